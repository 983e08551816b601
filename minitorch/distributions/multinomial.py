"""Multinomial distribution: counts of total_count categorical draws over the last dim."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.binomial import Binomial
from minitorch.distributions.categorical import Categorical
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Counts per category of `total_count` independent draws from Categorical(probs/logits);
    the event is the last dim of the parameter, the leading dims are the batch.

    Mirrors torch.distributions.Multinomial (sample needs one shared int total_count; log_prob
    takes any counts)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        # torch leaves _binomial unset here (entropy of an expanded Multinomial fails there)
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        with minitorch.no_grad():
            # (total_count, *sample_shape, *batch_shape) category indices, draws moved last
            draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
            draws = draws.permute(*range(1, draws.dim()), 0)
            counts = minitorch.zeros(
                self._extended_shape(sample_shape), dtype=draws.dtype, device=draws.device
            )
            counts.scatter_add_(-1, draws, minitorch.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        # torch's formula: n H(cat) - log n! + sum_i E[log x_i!] over the Binomial marginals.
        # n is an int64 tensor as in torch, so lgamma(n + 1) is float32 there and here.
        n = minitorch.tensor(self.total_count, device=self.probs.device)
        term1 = n * self._categorical.entropy() - minitorch.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = minitorch.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        # 0 * log 0 = 0: a zero count of an impossible category contributes nothing
        logits = minitorch.where((value == 0) & (logits == float("-inf")), 0.0, logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
