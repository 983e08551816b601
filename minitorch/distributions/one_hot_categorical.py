"""torch.distributions.one_hot_categorical: OneHotCategorical and
OneHotCategoricalStraightThrough (in categorical.py)."""

from __future__ import annotations

from minitorch.distributions.categorical import OneHotCategorical, OneHotCategoricalStraightThrough

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]
