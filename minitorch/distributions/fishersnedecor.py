"""Fisher-Snedecor (F) distribution."""

from __future__ import annotations

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.gamma import Gamma, _rsample_standard_gamma
from minitorch.distributions.utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(_Elementwise):
    """The F distribution with df1 and df2 degrees of freedom: (X1 / df1) / (X2 / df2) for
    independent chi-squared X1, X2.

    Mirrors torch.distributions.FisherSnedecor. rsample() is differentiable with respect to both
    degrees of freedom (through the gamma draws' implicit gradient)."""

    _params = ("df1", "df2")
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        df1, df2 = broadcast_all(df1, df2)
        # torch builds its two chi-squared (gamma) parts first, validated under the global default
        # whatever validate_args says: the same errors, naming Gamma, come from here
        Gamma(df1 * 0.5, df1)
        Gamma(df2 * 0.5, df2)
        super().__init__(df1, df2, validate_args=validate_args)

    @property
    def mean(self):
        df2 = self.df2
        valid = df2 > 2
        # a safe df2 where the mean is undefined keeps the pole at df2 = 2 out of the gradient
        safe = minitorch.where(valid, df2, 3.0)
        return minitorch.where(valid, safe / (safe - 2), float("nan"))

    @property
    def mode(self):
        df1, df2 = self.df1, self.df2
        return minitorch.where(df1 > 2, (df1 - 2) / df1 * df2 / (df2 + 2), float("nan"))

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2
        # NaN enters through df2 (as torch does), so df1's gradient is NaN where df2 <= 4
        df2 = minitorch.where(df2 > 4, df2, float("nan"))
        return 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = minitorch.finfo(self.df1.dtype).tiny
        # chi2(d) / d is Gamma(d / 2, rate d / 2); the factor 2 cancels in the ratio
        x1 = _rsample_standard_gamma((0.5 * self.df1).expand(shape)) / self.df1
        x2 = _rsample_standard_gamma((0.5 * self.df2).expand(shape)) / self.df2
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        norm = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        return (
            norm
            + h1 * ratio.log()
            + (h1 - 1) * minitorch.log(value)
            - (h1 + h2) * (ratio * value).log1p()
        )
