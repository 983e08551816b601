"""ExponentialFamily: the base of the families with density exp(<t(x), theta> - F(theta) + k(x))."""

from __future__ import annotations

import minitorch
from minitorch.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family: natural parameters theta, log normaliser F and
    carrier measure k. Its entropy (and the KL between two members of one family) follows from
    F by Bregman divergence, with F's gradient taken by autograd.

    Mirrors torch.distributions.ExponentialFamily."""

    @property
    def _natural_params(self) -> tuple:
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta)."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(X)]."""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(X)]."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        with minitorch.enable_grad():
            log_norm = self._log_normalizer(*params)
            grads = minitorch.autograd.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for p, g in zip(params, grads, strict=True):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
