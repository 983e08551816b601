"""torch.distributions.chi2: Chi2 (in gamma.py)."""

from __future__ import annotations

from minitorch.distributions.gamma import Chi2

__all__ = ["Chi2"]
