"""torch.distributions.weibull: Weibull (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import Weibull

__all__ = ["Weibull"]
