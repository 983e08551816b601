"""RelaxedOneHotCategorical (the concrete / Gumbel-softmax distribution) and its log-space
base, ExpRelaxedCategorical."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.transformed_distribution import (
    TransformedDistribution,
    _expand_subclass,
)
from minitorch.distributions.transforms import ExpTransform
from minitorch.distributions.utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample: log_softmax((logits + Gumbel noise) /
    temperature) over the last dim.

    Mirrors torch.distributions.relaxed_categorical.ExpRelaxedCategorical.

    Differences from torch: a Python-number temperature also works in log_prob."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

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
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self._categorical._num_events
        logits, value = broadcast_all(self.logits, value)
        t = self.temperature
        if not isinstance(t, minitorch.Tensor):
            t = minitorch.tensor(float(t), dtype=logits.dtype, device=logits.device)
        # log of the density's normaliser (K - 1)! * t^(K - 1)
        log_scale = minitorch.full_like(t, float(k)).lgamma() + (k - 1) * t.log()
        score = logits - value * t
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot categorical on the simplex: ExpTransform of an ExpRelaxedCategorical.

    Mirrors torch.distributions.RelaxedOneHotCategorical."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_subclass(self, RelaxedOneHotCategorical, batch_shape, _instance)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
