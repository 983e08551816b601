"""torch.distributions.pareto: Pareto (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import Pareto

__all__ = ["Pareto"]
