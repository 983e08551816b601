"""minitorch.cpu.amp: torch's deprecated CPU spellings of autocast and GradScaler, each warning
FutureWarning as torch does. Mirrors torch.cpu.amp."""

from __future__ import annotations

import warnings

from minitorch import _dtype
from minitorch import amp as _amp

__all__ = ["autocast", "GradScaler"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"`torch.cpu.amp.{old}(args...)` is deprecated. Please use `{new}` instead.",
        FutureWarning,
        stacklevel=3,
    )


class autocast(_amp.autocast):  # noqa: N801 - torch's name
    """Deprecated: minitorch.amp.autocast('cpu', ...). Mirrors torch.cpu.amp.autocast."""

    def __init__(self, enabled: bool = True, dtype=_dtype.bfloat16, cache_enabled: bool = True):
        _deprecated("autocast", "torch.amp.autocast('cpu', args...)")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """Deprecated: minitorch.amp.GradScaler('cpu', ...). Mirrors torch.cpu.amp.GradScaler."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("GradScaler", "torch.amp.GradScaler('cpu', args...)")
        super().__init__(
            "cpu",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )
