"""Gumbel distribution, built as a TransformedDistribution of a clamped Uniform."""

from __future__ import annotations

import math
import numbers

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions.transformed_distribution import (
    TransformedDistribution,
    _expand_subclass,
)
from minitorch.distributions.transforms import AffineTransform, ExpTransform
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]

_EULER = euler_constant


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution: loc - scale * log(-log(U)) for U uniform
    on [tiny, 1 - eps] of the dtype, as transforms [log, negate, log, loc - scale * x] of that
    Uniform. The clamped base keeps samples finite and gives finite icdf(0) and icdf(1); cdf
    checks its inverse-transformed value against that base's support, as torch's does.

    Mirrors torch.distributions.Gumbel."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = minitorch.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            low = minitorch.full_like(self.loc, finfo.tiny)
            high = minitorch.full_like(self.loc, 1 - finfo.eps)
            base = Uniform(low, high, validate_args=validate_args)
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-1),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, Gumbel, batch_shape, _instance, names=("loc", "scale"))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

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

    def entropy(self):
        return self.scale.log() + (1 + _EULER)
