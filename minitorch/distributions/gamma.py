"""Gamma distribution."""

from __future__ import annotations

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.utils import _standard_gamma

__all__ = ["Gamma"]


class Gamma(_Elementwise):
    """The gamma distribution with shape `concentration` and inverse scale `rate`.

    Mirrors torch.distributions.Gamma.

    Differences from torch: rsample() is differentiable with respect to rate only; torch also
    differentiates the standard-gamma draw with respect to concentration."""

    _params = ("concentration", "rate")
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        super().__init__(concentration, rate, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=minitorch.finfo(value.dtype).tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return minitorch.xlogy(c, r) + minitorch.xlogy(c - 1, value) - r * value - c.lgamma()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return minitorch.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()
