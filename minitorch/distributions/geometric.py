"""Geometric distribution (failures before the first success)."""

from __future__ import annotations

import numbers

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import (
    BinaryProbs,
    broadcast_all,
)

__all__ = ["Geometric"]


class Geometric(BinaryProbs, Distribution):
    """The number of failures before the first success in Bernoulli(probs) trials.

    Mirrors torch.distributions.Geometric."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        param = probs if probs is not None else logits
        is_scalar = isinstance(param, numbers.Number)
        (tensor,) = broadcast_all(param)
        setattr(self, "probs" if probs is not None else "logits", tensor)
        self._param = tensor
        super().__init__(Size() if is_scalar else tensor.size(), validate_args=validate_args)
        if probs is not None and self._validate_args:
            valid = tensor > 0
            if not bool(valid.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(tensor).__name__} of shape "
                    f"{tuple(tensor.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{tensor.detach().reshape(-1)[~valid.reshape(-1)]}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        return self._expand_params(new, batch_shape, ("probs", "logits"))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return minitorch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = minitorch.finfo(self.probs.dtype).tiny
        with minitorch.no_grad():
            u = minitorch.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
            u = u.clamp(min=tiny)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # probs == 1 and value == 0: 0 * log(0) is 0, not nan
        q = minitorch.where((probs == 1) & (value == 0), minitorch.zeros_like(probs), probs)
        return value * (-q).log1p() + self.probs.log()

    def entropy(self):
        from minitorch.nn import functional as F

        bce = F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
