"""Dirichlet distribution."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.gamma import _rsample_standard_gamma

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex, with concentration over the last dim.

    Mirrors torch.distributions.Dirichlet.

    Differences from torch: rsample() differentiates the normalised gamma draws (each through
    its implicit reparameterisation gradient); torch uses a dedicated Dirichlet gradient, so
    per-sample gradients differ while their expectations agree."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # natural parameters (concentration,); see ExponentialFamily
    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = self.concentration
        m = (c - 1).clamp(min=0.0)
        m = m / m.sum(-1, keepdim=True)
        # every concentration below 1: a corner of the simplex. torch takes the argmax of the
        # all-NaN row 0/0 above, which is always the first corner; we give the same.
        corner = minitorch.zeros_like(c)
        if c.shape[-1]:
            corner[..., 0] = 1
        return minitorch.where((c < 1).all(-1, keepdim=True), corner, m)

    @property
    def variance(self):
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        if not self.concentration.requires_grad:  # torch's sampler, so torch's numbers
            return minitorch._sample_dirichlet(self.concentration.expand(shape))
        g = _rsample_standard_gamma(self.concentration.expand(shape), kernel="dirichlet")
        out = g / g.sum(-1, keepdim=True)
        finfo = minitorch.finfo(out.dtype)
        return out.clamp(min=finfo.tiny, max=1 - finfo.eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return minitorch.xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (
            c.lgamma().sum(-1)
            - a0.lgamma()
            - (k - a0) * a0.digamma()
            - ((c - 1.0) * c.digamma()).sum(-1)
        )
