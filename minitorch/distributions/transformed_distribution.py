"""TransformedDistribution and the families torch builds from it (HalfNormal, Weibull, ...)."""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.cauchy import Cauchy
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.independent import Independent
from minitorch.distributions.normal import Normal
from minitorch.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    StickBreakingTransform,
    Transform,
)
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.utils import _sum_rightmost, broadcast_all

__all__ = [
    "HalfCauchy",
    "HalfNormal",
    "InverseGamma",
    "Kumaraswamy",
    "LogisticNormal",
    "Pareto",
    "TransformedDistribution",
    "Weibull",
]

_EULER = 0.57721566490153286060


class TransformedDistribution(Distribution):
    """`base_distribution` pushed through `transforms` (applied in order); log_prob adds the
    inverse transforms' log |det J| summed over the event dims.

    Mirrors torch.distributions.TransformedDistribution."""

    arg_constraints: dict = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")

        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        domain_event_dim = transform.domain.event_dim
        if len(base_shape) < domain_event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {domain_event_dim}, "
                f"but got {base_shape}."
            )
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:
            cut = len(expanded_base_shape) - base_event_dim
            base_distribution = base_distribution.expand(expanded_base_shape[:cut])
        reinterpreted = domain_event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution

        codomain_event_dim = transform.codomain.event_dim
        event_dim = max(codomain_event_dim, base_event_dim + codomain_event_dim - domain_event_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch_shape = shape[: len(shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch_shape)
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with minitorch.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            ladj = t.log_abs_det_jacobian(x, y)
            log_prob = log_prob - _sum_rightmost(ladj, event_dim - t.domain.event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        return log_prob + _sum_rightmost(base, event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """Flip a CDF computed through decreasing transforms."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The CDF through monotone transforms (each needs a `sign`)."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        """The inverse CDF through monotone transforms (each needs a `sign`)."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value


def _expand_subclass(self, cls, batch_shape, _instance, names=()):
    """expand() of a TransformedDistribution subclass: expand its own parameters `names`, then
    the base distribution."""
    new = self._get_checked_instance(cls, _instance)
    for name in names:
        setattr(new, name, getattr(self, name).expand(batch_shape))
    return TransformedDistribution.expand(self, batch_shape, _instance=new)


class _Folded(TransformedDistribution):
    """|X| for X symmetric about 0 with a `scale` (HalfNormal, HalfCauchy): the density, cdf and
    entropy of the fold follow from the base's."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base_cls = None  # the symmetric family folded
    # torch's HalfCauchy casts the value to the scale's dtype; its HalfNormal does not (the
    # dtypes promote), so the two give different log_prob dtypes for a value of another dtype
    _cast_value = True

    def __init__(self, scale, validate_args=None):
        base = self._base_cls(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, type(self), batch_shape, _instance)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return minitorch.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        if self._cast_value:
            value = minitorch.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return minitorch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """|X| for X ~ Normal(0, scale). Mirrors torch.distributions.HalfNormal."""

    _base_cls = Normal
    _cast_value = False

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """|X| for X ~ Cauchy(0, scale). Mirrors torch.distributions.HalfCauchy."""

    _base_cls = Cauchy

    @property
    def mean(self):
        return minitorch.full_like(self.scale, math.inf)

    @property
    def variance(self):
        return minitorch.full_like(self.scale, math.inf)


class InverseGamma(TransformedDistribution):
    """1 / X for X ~ Gamma(concentration, rate). Mirrors torch.distributions.InverseGamma."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base.rate.new_ones(())
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, InverseGamma, batch_shape, _instance)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        c = self.concentration
        return minitorch.where(c > 1, self.rate / (c - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        return minitorch.where(c > 2, self.rate.pow(2) / ((c - 1).pow(2) * (c - 2)), math.inf)

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()


class LogisticNormal(TransformedDistribution):
    """StickBreakingTransform of an independent Normal(loc, scale) over the last dim: a
    distribution on the simplex. Mirrors torch.distributions.LogisticNormal."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(
            Independent(base, 1), StickBreakingTransform(), validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, LogisticNormal, batch_shape, _instance)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale


class Weibull(TransformedDistribution):
    """scale * E ** (1 / concentration) for E ~ Exponential(1).

    Mirrors torch.distributions.Weibull."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(minitorch.ones_like(self.scale), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        batch_shape = Size(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base = self.base_dist.expand(batch_shape)
        transforms = [
            PowerTransform(exponent=new.concentration_reciprocal),
            AffineTransform(loc=0, scale=new.scale),
        ]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self):
        return (
            _EULER * (1 - self.concentration_reciprocal)
            + (self.scale * self.concentration_reciprocal).log()
            + 1
        )


class Pareto(TransformedDistribution):
    """scale * exp(E) for E ~ Exponential(alpha). Mirrors torch.distributions.Pareto."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Pareto, _instance)
        batch_shape = Size(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.alpha = self.alpha.expand(batch_shape)
        base = self.base_dist.expand(batch_shape)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=new.scale)]
        TransformedDistribution.__init__(new, base, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


def _kumaraswamy_moment(a, b, n):
    """E[X^n] = b * B(1 + n/a, b)."""
    arg1 = 1 + n / a
    return b * (arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """(1 - U ** (1/concentration0)) ** (1/concentration1) for U ~ Uniform(0, 1).

    Mirrors torch.distributions.Kumaraswamy."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(
            minitorch.full_like(self.concentration0, 0),
            minitorch.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        super().__init__(base, self._transforms(), validate_args=validate_args)

    def _transforms(self):
        return [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        batch_shape = Size(batch_shape)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        base = self.base_dist.expand(batch_shape)
        TransformedDistribution.__init__(new, base, new._transforms(), validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        c1, c0 = self.concentration1, self.concentration0
        log_mode = c0.reciprocal() * (-c0).log1p() - (-c0 * c1).log1p()
        nan = minitorch.full_like(log_mode, math.nan)
        return minitorch.where((c0 < 1) | (c1 < 1), nan, log_mode).exp()

    @property
    def variance(self):
        c1, c0 = self.concentration1, self.concentration0
        return _kumaraswamy_moment(c1, c0, 2) - self.mean.pow(2)

    def entropy(self):
        c1, c0 = self.concentration1, self.concentration0
        t1 = 1 - c1.reciprocal()
        t0 = 1 - c0.reciprocal()
        h0 = (c0 + 1).digamma() + _EULER
        return t0 + t1 * h0 - c1.log() - c0.log()


# torch defines these families in modules of their own, which their class reprs name
# (`<class 'torch.distributions.half_normal.HalfNormal'>` in NotImplementedError messages).
for _cls in (HalfNormal, HalfCauchy, InverseGamma, LogisticNormal, Weibull, Pareto, Kumaraswamy):
    _cls.__module__ = "minitorch.distributions." + {
        "HalfNormal": "half_normal",
        "HalfCauchy": "half_cauchy",
        "InverseGamma": "inverse_gamma",
        "LogisticNormal": "logistic_normal",
        "Weibull": "weibull",
        "Pareto": "pareto",
        "Kumaraswamy": "kumaraswamy",
    }[_cls.__name__]
del _cls
