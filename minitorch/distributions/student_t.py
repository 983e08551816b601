"""Student's t distribution."""

from __future__ import annotations

import math

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.gamma import Chi2, _rsample_standard_gamma
from minitorch.distributions.utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(_Elementwise):
    """Student's t distribution with df degrees of freedom, location loc and scale scale.

    Mirrors torch.distributions.StudentT. rsample() is differentiable with respect to df, loc
    and scale (df through the chi-squared draw's implicit gradient)."""

    _params = ("df", "loc", "scale")
    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        df, loc, scale = broadcast_all(df, loc, scale)
        # torch builds its chi-squared part first, validated under the global default whatever
        # validate_args says: the same error, naming Chi2, comes from here
        Chi2(df)
        super().__init__(df, loc, scale, validate_args=validate_args)

    @property
    def mean(self):
        nan = minitorch.full_like(self.loc, float("nan"))
        return minitorch.where(self.df > 1, self.loc, nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        # a safe df where the variance is not finite keeps the pole at df = 2 out of the gradient
        safe = minitorch.where(df > 2, df, 3.0)
        finite = self.scale.pow(2) * safe / (safe - 2)
        inf = minitorch.full_like(finite, float("inf"))
        nan = minitorch.full_like(finite, float("nan"))
        return minitorch.where(df > 2, finite, minitorch.where(df > 1, inf, nan))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = minitorch.randn(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = 2 * _rsample_standard_gamma((0.5 * self.df).expand(shape))
        y = x * (chi2 / self.df).rsqrt()
        return self.loc + self.scale * y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        df = self.df
        z = (
            self.scale.log()
            + 0.5 * df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * df).lgamma()
            - (0.5 * (df + 1.0)).lgamma()
        )
        return -0.5 * (df + 1.0) * (y.pow(2) / df).log1p() - z

    def entropy(self):
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (
            self.scale.log()
            + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
            + 0.5 * df.log()
            + lbeta
        )


StudentT.__module__ = "minitorch.distributions.studentT"  # the module torch's class repr names
