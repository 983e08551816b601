"""Uniform distribution on [low, high)."""

from __future__ import annotations

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise

__all__ = ["Uniform"]


class Uniform(_Elementwise):
    """The uniform distribution on the half-open interval [low, high).

    Mirrors torch.distributions.Uniform."""

    _params = ("low", "high")
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        super().__init__(low, high, validate_args=validate_args)

    @property
    def arg_constraints(self):
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = minitorch.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value) & (self.high > value)
        return inside.to(self.low.dtype).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
