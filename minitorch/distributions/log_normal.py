"""LogNormal: the exponential of a normal variable, built as a TransformedDistribution."""

from __future__ import annotations

from minitorch.distributions import constraints
from minitorch.distributions.normal import Normal
from minitorch.distributions.transformed_distribution import (
    TransformedDistribution,
    _expand_subclass,
)
from minitorch.distributions.transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """exp(X) for X ~ Normal(loc, scale): `base_dist` is that Normal, `transforms` is
    [ExpTransform()]. cdf/icdf/log_prob/rsample come from TransformedDistribution, so cdf checks
    log(value) against the Normal's (real) support and cdf(0) is 0.

    Mirrors torch.distributions.LogNormal."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, LogNormal, batch_shape, _instance)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
