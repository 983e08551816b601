"""Binomial distribution (probs or logits)."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import BinaryProbs, count_and_param

__all__ = ["Binomial"]


def _softplus(x):
    """log(1 + exp(x)), stable for large |x|.

    max(x, 0) is spelled so that its gradient at 0 is 1/2 (as torch's Binomial does): with a plain
    clamp it is 1 there, and the gradient of softplus at 0 would come out 1 instead of 1/2."""
    relu = (x.clamp(min=0) + x - x.clamp(max=0)) / 2
    return relu + (-x.abs()).exp().log1p()


class Binomial(BinaryProbs, Distribution):
    """The number of successes in total_count trials with success probability probs (or
    sigmoid(logits)).

    Mirrors torch.distributions.Binomial."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        count_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        return self._expand_params(new, batch_shape, ("total_count", "probs", "logits"))

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            return minitorch.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k, logits = self.total_count, value, self.logits
        # k log p + (n - k) log(1 - p) = k logits - n softplus(logits); n = 0 gives 0. Summed in
        # torch's order (softplus's two terms scaled apart, lgamma(n + 1) inside the normalizer):
        # float32's rounding then agrees (p = 0, k = 0 gives torch's -2**-20, not -10 eps).
        relu = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2  # (as _softplus)
        normalize = n * relu + n * (-logits.abs()).exp().log1p() - (n + 1).lgamma()
        return k * logits - minitorch.lgamma(k + 1) - (n - k + 1).lgamma() - normalize

    def _homogeneous_count(self, what: str) -> int:
        total = int(self.total_count.max()) if self.total_count.numel() else 0
        if not bool((self.total_count == total).all()):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        total = self._homogeneous_count("enumerate_support")
        values = minitorch.arange(1 + total, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
