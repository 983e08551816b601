"""Laplace distribution."""

from __future__ import annotations

import math

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise

__all__ = ["Laplace"]


class Laplace(_Elementwise):
    """The Laplace (double exponential) distribution with location loc and scale scale.

    Mirrors torch.distributions.Laplace."""

    _params = ("loc", "scale")
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(loc, scale, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = minitorch.finfo(self.loc.dtype).eps
        # uniform on [-1 + eps, 1) (log1p(-|u|) stays finite), scaled as uniform_ scales, in
        # float before the one rounding to a half dtype
        u = minitorch.empty(shape, dtype=self.loc.dtype, device=self.loc.device)
        u = u.uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * (-z.abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
