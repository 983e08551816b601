"""RelaxedBernoulli and RelaxedOneHotCategorical: the concrete (Gumbel-softmax) relaxations."""

from __future__ import annotations

import numbers

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import (
    BinaryProbs,
    broadcast_all,
    clamp_probs,
)

__all__ = ["RelaxedBernoulli", "RelaxedOneHotCategorical"]


def _softplus(x):
    return x.clamp(min=0) + (-x.abs()).exp().log1p()


class RelaxedBernoulli(BinaryProbs, Distribution):
    """A relaxed Bernoulli on (0, 1): sigmoid((logits + logistic noise) / temperature).

    Mirrors torch.distributions.RelaxedBernoulli.

    Differences from torch: a plain Distribution (torch builds it as a TransformedDistribution
    of LogitRelaxedBernoulli), so there is no base_dist or transforms attribute."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

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
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        new.temperature = self.temperature
        return self._expand_params(new, batch_shape, ("probs", "logits"))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(minitorch.rand(shape, dtype=probs.dtype, device=probs.device))
        x = (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature
        return clamp_probs(minitorch.sigmoid(x))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = clamp_probs(value)
        x = y.log() - (-y).log1p()  # logit(y)
        logits, x = broadcast_all(self.logits, x)
        diff = logits - x * self.temperature
        t = self.temperature
        log_t = t.log() if isinstance(t, minitorch.Tensor) else minitorch.tensor(float(t)).log()
        base = log_t + diff - 2 * _softplus(diff)
        return base - y.log() - (-y).log1p()

    def __repr__(self) -> str:
        return "RelaxedBernoulli()"  # torch's: its parameters live on an inner base_dist


class RelaxedOneHotCategorical(Distribution):
    """A relaxed one-hot categorical on the simplex: softmax((logits + Gumbel noise) /
    temperature).

    Mirrors torch.distributions.RelaxedOneHotCategorical.

    Differences from torch: a plain Distribution, not a TransformedDistribution of
    ExpRelaxedCategorical."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        from minitorch.distributions.categorical import Categorical

        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        logits = self.logits
        u = clamp_probs(minitorch.rand(shape, dtype=logits.dtype, device=logits.device))
        gumbels = -((-u.log()).log())
        scores = (logits + gumbels) / self.temperature
        return (scores - scores.logsumexp(dim=-1, keepdim=True)).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_value = value.log()
        k = self._categorical._num_events
        t = self.temperature
        if not isinstance(t, minitorch.Tensor):
            t = minitorch.tensor(float(t), dtype=self.logits.dtype, device=self.logits.device)
        log_scale = minitorch.full_like(t, float(k)).lgamma() + (k - 1) * t.log()
        score = self.logits - log_value * t
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale - log_value.sum(-1)

    def __repr__(self) -> str:
        return "RelaxedOneHotCategorical()"  # torch's: its parameters live on an inner base_dist
