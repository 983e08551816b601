"""torch.distributions.half_cauchy: HalfCauchy (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import HalfCauchy

__all__ = ["HalfCauchy"]
