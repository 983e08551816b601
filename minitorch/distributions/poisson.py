"""Poisson distribution."""

from __future__ import annotations

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(_Elementwise, ExponentialFamily):
    """Counts with mean `rate`.

    Mirrors torch.distributions.Poisson.

    Differences from torch: no entropy() (torch computes it through its exponential-family
    machinery)."""

    _params = ("rate",)
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        super().__init__(rate, validate_args=validate_args)

    # natural parameters (log rate,); see ExponentialFamily
    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            return minitorch.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # a Python number value takes rate's dtype; tensor dtypes promote in the ops, as torch's
        rate, value = broadcast_all(self.rate, value)
        return minitorch.xlogy(value, rate) - rate - (value + 1).lgamma()
