"""minitorch.cpu.amp: torch's deprecated CPU spellings of autocast and GradScaler, each warning
FutureWarning as torch does. Mirrors torch.cpu.amp."""

from __future__ import annotations

from minitorch import _dtype
from minitorch.amp._deprecated import autocast_for, grad_scaler_for

__all__ = ["autocast", "GradScaler"]

autocast = autocast_for("cpu", _dtype.bfloat16, __name__)
GradScaler = grad_scaler_for("cpu", __name__)
