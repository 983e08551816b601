"""RelaxedBernoulli (the binary concrete distribution) and its logit-space base,
LogitRelaxedBernoulli."""

from __future__ import annotations

import numbers

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.transformed_distribution import (
    TransformedDistribution,
    _expand_subclass,
)
from minitorch.distributions.transforms import SigmoidTransform
from minitorch.distributions.utils import BinaryProbs, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _log_temperature(t, like):
    if isinstance(t, minitorch.Tensor):
        return t.log()
    return minitorch.tensor(float(t), dtype=like.dtype, device=like.device).log()


class LogitRelaxedBernoulli(BinaryProbs, Distribution):
    """The logit of a RelaxedBernoulli sample: (logits + logistic noise) / temperature, on the
    real line.

    Mirrors torch.distributions.relaxed_bernoulli.LogitRelaxedBernoulli.

    Differences from torch: a Python-number temperature also works in log_prob, and log_prob
    uses a softplus that does not overflow to -inf far in the tails."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        param = probs if probs is not None else logits
        is_scalar = isinstance(param, numbers.Number)
        (tensor,) = broadcast_all(param)
        setattr(self, "probs" if probs is not None else "logits", tensor)
        self._param = tensor
        self.temperature = temperature
        super().__init__(Size() if is_scalar else tensor.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        new.temperature = self.temperature
        return self._expand_params(new, batch_shape, ("probs", "logits"))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(minitorch.rand(shape, dtype=probs.dtype, device=probs.device))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        # log1p(exp(diff)) unguarded, as torch: a value at 0 (clipped to tiny) overflows to -inf
        return _log_temperature(self.temperature, logits) + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli on (0, 1): SigmoidTransform of a LogitRelaxedBernoulli, whose
    clipping to [tiny, 1 - eps] of the dtype bounds samples and log_prob's inverse.

    Mirrors torch.distributions.RelaxedBernoulli (its base, like torch's, is built with the
    default validation whatever validate_args says)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, RelaxedBernoulli, batch_shape, _instance)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
