"""minitorch.cuda.amp: torch's deprecated CUDA spellings of autocast, GradScaler, custom_fwd and
custom_bwd, each warning FutureWarning as torch does. Mirrors torch.cuda.amp."""

from __future__ import annotations

import functools
import warnings

from minitorch import _dtype
from minitorch import amp as _amp
from minitorch.amp.grad_scaler import OptState  # noqa: F401  (torch keeps it importable here)

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"`torch.cuda.amp.{old}(args...)` is deprecated. Please use `{new}` instead.",
        FutureWarning,
        stacklevel=3,
    )


class autocast(_amp.autocast):  # noqa: N801 - torch's name
    """Deprecated: minitorch.amp.autocast('cuda', ...). Mirrors torch.cuda.amp.autocast."""

    def __init__(self, enabled: bool = True, dtype=_dtype.float16, cache_enabled: bool = True):
        _deprecated("autocast", "torch.amp.autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """Deprecated: minitorch.amp.GradScaler('cuda', ...). Mirrors torch.cuda.amp.GradScaler."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('cuda', args...)")
        super().__init__(
            "cuda",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: minitorch.amp.custom_fwd(..., device_type='cuda'). Mirrors
    torch.cuda.amp.custom_fwd."""
    _deprecated("custom_fwd", "torch.amp.custom_fwd(args..., device_type='cuda')")
    return functools.partial(_amp.custom_fwd, device_type="cuda")(fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: minitorch.amp.custom_bwd(..., device_type='cuda'). Mirrors
    torch.cuda.amp.custom_bwd."""
    _deprecated("custom_bwd", "torch.amp.custom_bwd(args..., device_type='cuda')")
    return _amp.custom_bwd(bwd, device_type="cuda")
