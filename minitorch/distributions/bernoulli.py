"""Bernoulli distribution (probs or logits)."""

from __future__ import annotations

import numbers

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.utils import (
    BinaryProbs,
    broadcast_all,
)

__all__ = ["Bernoulli"]


def _bce_with_logits(logits, target):
    """-(target log sigmoid(logits) + (1 - target) log sigmoid(-logits)), elementwise."""
    from minitorch.nn import functional as F

    return F.binary_cross_entropy_with_logits(logits, target, reduction="none")


def _probs_or_logits(probs, logits):
    """Broadcast the one given parameter; (tensor, is_scalar, which)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    param = probs if probs is not None else logits
    is_scalar = isinstance(param, numbers.Number)
    (param,) = broadcast_all(param)
    return param, is_scalar, "probs" if probs is not None else "logits"


class Bernoulli(BinaryProbs, ExponentialFamily):
    """A 0/1 variable that is 1 with probability `probs` (or sigmoid(`logits`)).

    Mirrors torch.distributions.Bernoulli."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        param, is_scalar, which = _probs_or_logits(probs, logits)
        setattr(self, which, param)
        self._param = param
        batch_shape = Size() if is_scalar else param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        return self._expand_params(new, batch_shape, ("probs", "logits"))

    # natural parameters (logits,); see ExponentialFamily
    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return x.exp().log1p()

    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return minitorch.where(self.probs == 0.5, mode.new_tensor(float("nan")), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            return minitorch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        if value.dtype.is_floating_point and value.dtype != logits.dtype:
            # torch's binary_cross_entropy_with_logits gives the target's dtype, not the promoted
            # one: a float32 value has a float32 log_prob even under float64 probs
            logits = logits.to(value.dtype)
        return -_bce_with_logits(logits, value)

    def entropy(self):
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand: bool = True):
        values = minitorch.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
