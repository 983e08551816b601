"""torch.distributions.relaxed_categorical: RelaxedOneHotCategorical (in relaxed.py)."""

from __future__ import annotations

from minitorch.distributions.relaxed import RelaxedOneHotCategorical

__all__ = ["RelaxedOneHotCategorical"]
