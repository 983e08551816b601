"""Continuous Bernoulli distribution on [0, 1] (probs or logits)."""

from __future__ import annotations

import math
import numbers

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["ContinuousBernoulli"]


def _bce_with_logits(logits, target):
    from minitorch.nn import functional as F

    return F.binary_cross_entropy_with_logits(logits, target, reduction="none")


class ContinuousBernoulli(ExponentialFamily):
    """density C(p) p**x (1 - p)**(1 - x) on [0, 1], C(p) = 2 atanh(1 - 2p) / (1 - 2p).

    C(p), the mean and the variance have a removable singularity at p = 1/2: for probs inside
    `lims` they are evaluated by their Taylor series around 1/2 instead, as torch does.

    Mirrors torch.distributions.ContinuousBernoulli."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (probs,) = broadcast_all(probs)
            # torch checks probs here whenever validate_args is given, even as False
            if validate_args is not None and not bool(
                self.arg_constraints["probs"].check(probs).all()
            ):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(probs)
            self._param = self.probs
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        return self._expand_params(new, batch_shape, ("probs", "logits"))

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    # the Taylor branch: probs in (lims[0], lims[1]]
    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """probs, with those in the Taylor branch replaced by lims[0] (kept finite for grads)."""
        low = minitorch.full_like(self.probs, self._lims[0])
        return minitorch.where(self._outside_unstable_region(), self.probs, low)

    def _cont_bern_log_norm(self):
        """log C(probs)."""
        cut = self._cut_probs()
        below = minitorch.where(cut <= 0.5, cut, minitorch.zeros_like(cut))
        above = minitorch.where(cut >= 0.5, cut, minitorch.ones_like(cut))
        log_norm = (minitorch.log1p(-cut) - cut.log()).abs().log() - minitorch.where(
            cut <= 0.5, minitorch.log1p(-2.0 * below), (2.0 * above - 1.0).log()
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return minitorch.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (minitorch.log1p(-cut) - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return minitorch.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut = self._cut_probs()
        vars_ = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / (
            minitorch.log1p(-cut) - cut.log()
        ).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return minitorch.where(self._outside_unstable_region(), vars_, taylor)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = minitorch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with minitorch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = minitorch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = minitorch.where(self._outside_unstable_region(), cdfs, value)
        return minitorch.where(
            value <= 0.0,
            minitorch.zeros_like(unbounded),
            minitorch.where(value >= 1.0, minitorch.ones_like(unbounded), unbounded),
        )

    def icdf(self, value):
        cut = self._cut_probs()
        num = minitorch.log1p(-cut + value * (2.0 * cut - 1.0)) - minitorch.log1p(-cut)
        return minitorch.where(
            self._outside_unstable_region(), num / (cut.log() - minitorch.log1p(-cut)), value
        )

    def entropy(self):
        log_probs0 = minitorch.log1p(-self.probs)
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    # natural parameters (logits,); see ExponentialFamily
    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C in terms of the logit x, with its Taylor series near x = 0."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = minitorch.where(outside, x, minitorch.full_like(x, self._lims[0] - 0.5))
        log_norm = (cut.exp() - 1.0).abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return minitorch.where(outside, log_norm, taylor)
