"""Generalized Pareto distribution."""

from __future__ import annotations

import math

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(_Elementwise):
    """The generalized Pareto distribution with location loc, scale scale and shape
    concentration c: survival function (1 + c z)^(-1/c), z = (x - loc) / scale (exp(-z) at
    c = 0). Supported on [loc, inf) for c >= 0 and [loc, loc - scale / c] for c < 0.

    Mirrors torch.distributions.GeneralizedPareto.

    Differences from torch: float64 parameters work (torch 2.13 raises "Double did not match
    Float" in log_prob, comparing them with a float32 zero)."""

    _params = ("loc", "scale", "concentration")
    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        super().__init__(loc, scale, concentration, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        _, c = self._shape_or_one()
        upper = minitorch.where(c < 0, self.loc - self.scale / c, math.inf)
        return constraints.interval(self.loc, upper)

    def _z(self, x):
        return (x - self.loc) / self.scale

    def _shape_or_one(self):
        """(c is ~0, c with those entries replaced by 1): the c = 0 limit is taken on its own
        branch, and the other branch must stay finite there so that gradients do too."""
        c = self.concentration
        at_zero = minitorch.isclose(c, minitorch.zeros_like(c))
        return at_zero, minitorch.where(at_zero, minitorch.ones_like(c), c)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = minitorch.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, c = self._shape_or_one()
        # as torch: (1 + 1/c) log1p(c z) is taken as 0 where 1 + 1/c is (c = -1, no 0 * -inf)
        y = 1 / c + minitorch.ones_like(z)
        nonzero = minitorch.where(y == 0, y, y * (c * z).log1p())
        return -self.scale.log() - minitorch.where(at_zero, z, nonzero)

    def log_survival_function(self, value):
        """log P(X > value)."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, c = self._shape_or_one()
        return minitorch.where(at_zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value):
        """log P(X <= value)."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        at_zero, c = self._shape_or_one()
        tail = minitorch.log1p(-value)
        # torch's expressions, so its roundings and its graph (a where of the two branches)
        nonzero = self.loc + self.scale / c * minitorch.expm1(-c * tail)
        return minitorch.where(at_zero, self.loc - self.scale * tail, nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        # a safe c where the mean is undefined keeps the pole at c = 1 out of the gradient
        c = minitorch.where(valid, self.concentration, 0.5)
        return minitorch.where(valid, self.loc + self.scale / (1 - c), float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        valid = self.concentration < 0.5
        c = minitorch.where(valid, self.concentration, 0.25)  # as in mean
        var = self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c))
        return minitorch.where(valid, var, float("nan"))

    def entropy(self):
        return minitorch.broadcast_to(self.scale.log() + self.concentration + 1, self.batch_shape)
