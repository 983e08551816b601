"""Categorical and one-hot categorical distributions (probs or logits over the last dim)."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical", "OneHotCategorical", "OneHotCategoricalStraightThrough"]


class Categorical(Distribution):
    """Indices 0..K-1 drawn with probabilities `probs` (normalised over the last dim) or
    softmax(`logits`); the leading dims are the batch.

    Mirrors torch.distributions.Categorical."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = batch_shape + Size((self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return minitorch.full(
            self._extended_shape(), float("nan"), dtype=self.probs.dtype, device=self.probs.device
        )

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        n = sample_shape.numel()
        probs_2d = self.probs.reshape(-1, self._num_events)
        with minitorch.no_grad():
            draws = minitorch.multinomial(probs_2d, n, True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = minitorch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=minitorch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True):
        values = minitorch.arange(self._num_events, dtype=minitorch.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class OneHotCategorical(Distribution):
    """Categorical draws encoded as one-hot vectors of length K (the event).

    Mirrors torch.distributions.OneHotCategorical."""

    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        idx = probs.argmax(dim=-1)
        return minitorch.nn.functional.one_hot(idx, probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        p = self._categorical.probs
        return p * (1 - p)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        probs = self._categorical.probs
        idx = self._categorical.sample(sample_shape)
        return minitorch.nn.functional.one_hot(idx, self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(dim=-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True):
        n = self.event_shape[0]
        values = minitorch.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample passes the gradient of probs straight through the
    one-hot sample (sample + probs - probs.detach()). Mirrors
    torch.distributions.OneHotCategoricalStraightThrough."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self.probs
        return samples + (probs - probs.detach())


# torch's class reprs name the module it defines these in.
OneHotCategorical.__module__ = "minitorch.distributions.one_hot_categorical"
OneHotCategoricalStraightThrough.__module__ = "minitorch.distributions.one_hot_categorical"
