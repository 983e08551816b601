"""torch.distributions.inverse_gamma: InverseGamma (in transformed_distribution.py)."""

from __future__ import annotations

from minitorch.distributions.transformed_distribution import InverseGamma

__all__ = ["InverseGamma"]
