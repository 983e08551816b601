"""torch.distributions.kumaraswamy: Kumaraswamy (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import Kumaraswamy

__all__ = ["Kumaraswamy"]
