"""torch.optim.adamw's import path (`from torch.optim.adamw import AdamW`): AdamW lives in
minitorch/optim/adam.py beside Adam, whose update it shares."""

from minitorch.optim.adam import AdamW, adamw

__all__ = ["AdamW", "adamw"]
