"""Cauchy distribution."""

from __future__ import annotations

import math

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise

__all__ = ["Cauchy"]


class Cauchy(_Elementwise):
    """The Cauchy (Lorentz) distribution with median loc and half-width scale.

    Mirrors torch.distributions.Cauchy."""

    _params = ("loc", "scale")
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(loc, scale, validate_args=validate_args)

    @property
    def mean(self):
        return minitorch.full(
            self._extended_shape(), float("nan"), dtype=self.loc.dtype, device=self.loc.device
        )

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return minitorch.full(
            self._extended_shape(), float("inf"), dtype=self.loc.dtype, device=self.loc.device
        )

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            eps = minitorch.empty(shape, dtype=self.loc.dtype, device=self.loc.device)
            eps.cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return minitorch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
