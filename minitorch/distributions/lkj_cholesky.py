"""LKJ distribution over the Cholesky factors of correlation matrices."""

from __future__ import annotations

import math

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions.beta import Beta
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors L of dim x dim correlation matrices with density proportional to
    det(L L^T)**(concentration - 1).

    Samples by the onion method (Lewandowski, Kurowicka and Joe, 2009): row i is a point of the
    unit sphere's upper part, its squared radius drawn from Beta(i / 2, concentration + (dim - 2
    - i) / 2), and the diagonal completes each row to unit norm. No rsample, as torch.

    Mirrors torch.distributions.LKJCholesky."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = minitorch.Size((dim, dim))
        # row i (i >= 1) of the factor has a squared off-diagonal norm Beta(i/2, c + (dim-2-i)/2);
        # row 0 gets an unused Beta(1/2, c + (dim-2)/2) so that all rows are drawn at once
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = minitorch.arange(dim - 1, dtype=self.concentration.dtype,
                                  device=self.concentration.device)  # fmt: skip
        offset = minitorch.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = minitorch.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with minitorch.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            shape = self._extended_shape(sample_shape)
            u = minitorch.randn(shape, dtype=y.dtype, device=y.device).tril(-1)
            norm = u.norm(dim=-1, keepdim=True)
            norm[..., 0, :] = 1.0  # row 0 of u is all zeros: the factor's row 0 is (1, 0, ...)
            u = u / norm
            w = y.sqrt() * u
            tiny = minitorch.finfo(w.dtype).tiny
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return w + minitorch.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        # the exponent of L_ii: 2 (c - 1) + dim - i for i = 2..dim (the Jacobian of L -> L L^T)
        order = minitorch.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_norm = (
            0.5 * dm1 * math.log(math.pi)
            + minitorch.mvlgamma(alpha - 0.5, dm1)
            - minitorch.lgamma(alpha) * dm1
        )
        return unnormalized - log_norm
