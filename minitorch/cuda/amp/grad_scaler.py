"""minitorch.cuda.amp.grad_scaler: the deprecated torch.cuda.amp.GradScaler, defined here
because torch defines it here (a pickled scaler names this module). Mirrors
torch.cuda.amp.grad_scaler."""

from __future__ import annotations

from minitorch.amp._deprecated import grad_scaler_for
from minitorch.amp.grad_scaler import OptState  # noqa: F401  (torch keeps it importable here)

__all__ = ["GradScaler"]

GradScaler = grad_scaler_for("cuda", __name__)
