"""Gumbel distribution."""

from __future__ import annotations

import math

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.utils import euler_constant

__all__ = ["Gumbel"]

_EULER = euler_constant


class Gumbel(_Elementwise):
    """The Gumbel (type-I extreme value) distribution with location loc and scale scale.

    Mirrors torch.distributions.Gumbel.

    Differences from torch: a plain Distribution, not a TransformedDistribution."""

    _params = ("loc", "scale")
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(loc, scale, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        finfo = minitorch.finfo(self.loc.dtype)
        u = minitorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        u = u.clamp(min=finfo.tiny, max=1 - finfo.eps)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER)
