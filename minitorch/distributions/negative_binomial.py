"""NegativeBinomial distribution (failures before total_count successes; DeepAR's count law)."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import BinaryProbs, count_and_param, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbs, Distribution):
    """The number of successful Bernoulli(probs) trials before total_count failures: mean
    total_count * probs / (1 - probs). Sampled as a Poisson of a Gamma(total_count,
    (1 - probs) / probs) rate. Mirrors torch.distributions.NegativeBinomial."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        return self._expand_params(new, batch_shape, ("total_count", "probs", "logits"))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / minitorch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # the Poisson rate's law: Gamma(total_count, exp(-logits))
        return minitorch.distributions.Gamma(
            concentration=self.total_count, rate=(-self.logits).exp(), validate_args=False
        )

    def sample(self, sample_shape=()):
        with minitorch.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return minitorch.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        F = minitorch.nn.functional
        r = self.total_count
        unnormalized = r * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        normalization = -minitorch.lgamma(r + value) + minitorch.lgamma(1.0 + value)
        normalization = normalization + minitorch.lgamma(r)
        # no successes and no trials: probability 1 (lgamma(0) terms cancel)
        normalization = normalization.masked_fill(r + value == 0.0, 0.0)
        return unnormalized - normalization
