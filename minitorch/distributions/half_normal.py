"""torch.distributions.half_normal: HalfNormal (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import HalfNormal

__all__ = ["HalfNormal"]
