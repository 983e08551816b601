"""minitorch.amp: automatic mixed precision (autocast regions and GradScaler). Mirrors torch.amp."""

from __future__ import annotations

from minitorch.amp.autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)
from minitorch.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
