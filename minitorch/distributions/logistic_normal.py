"""torch.distributions.logistic_normal: LogisticNormal (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import LogisticNormal

__all__ = ["LogisticNormal"]
