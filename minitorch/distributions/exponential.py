"""Exponential distribution."""

from __future__ import annotations

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(_Elementwise, ExponentialFamily):
    """The exponential distribution with rate `rate` (mean 1 / rate).

    Mirrors torch.distributions.Exponential."""

    _params = ("rate",)
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        super().__init__(rate, validate_args=validate_args)

    # natural parameters (-rate,); see ExponentialFamily
    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return minitorch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            e = minitorch.empty(shape, dtype=self.rate.dtype, device=self.rate.device)
            e.exponential_()
        return e / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -minitorch.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()
