"""minitorch.cuda.amp: torch's deprecated CUDA spellings of autocast, GradScaler, custom_fwd and
custom_bwd, each warning FutureWarning as torch does. Mirrors torch.cuda.amp.

A package as torch's, because checkpoints and imports name its submodule:
torch.cuda.amp.grad_scaler.GradScaler."""

from __future__ import annotations

import functools

from minitorch import _dtype
from minitorch import amp as _amp
from minitorch.amp._deprecated import autocast_for, warn_deprecated
from minitorch.amp.grad_scaler import OptState  # noqa: F401  (torch keeps it importable here)
from minitorch.cuda.amp.grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


autocast = autocast_for("cuda", _dtype.float16, __name__)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: minitorch.amp.custom_fwd(..., device_type='cuda'). Mirrors
    torch.cuda.amp.custom_fwd."""
    warn_deprecated("cuda", "custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(_amp.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: minitorch.amp.custom_bwd(..., device_type='cuda'). Mirrors
    torch.cuda.amp.custom_bwd."""
    warn_deprecated("cuda", "custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _amp.custom_bwd(bwd, device_type="cuda")
