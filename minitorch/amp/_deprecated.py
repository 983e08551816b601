"""The deprecated per-device spellings torch keeps: torch.cuda.amp.autocast / GradScaler and
torch.cpu.amp.autocast / GradScaler. Each is the minitorch.amp class with the device fixed, warning
FutureWarning on construction as torch does; minitorch/cuda/amp.py and minitorch/cpu/amp.py make
theirs here."""

from __future__ import annotations

import warnings

from minitorch.amp.autocast_mode import autocast as _autocast
from minitorch.amp.grad_scaler import GradScaler as _GradScaler


def warn_deprecated(device: str, old: str, new: str) -> None:
    warnings.warn(
        f"`torch.{device}.amp.{old}(args...)` is deprecated. Please use `{new}` instead.",
        FutureWarning,
        stacklevel=3,
    )


def _named(cls, module: str):
    # defined at the module level of `module` under its torch name, so it pickles and prints so
    cls.__module__ = module
    cls.__qualname__ = cls.__name__
    return cls


def autocast_for(device: str, default_dtype, module: str):
    """`torch.<device>.amp.autocast(enabled, dtype, cache_enabled)`."""

    class autocast(_autocast):  # noqa: N801 - torch's name
        __doc__ = (
            f"Deprecated: minitorch.amp.autocast('{device}', ...). "
            f"Mirrors torch.{device}.amp.autocast."
        )

        def __init__(self, enabled: bool = True, dtype=default_dtype, cache_enabled: bool = True):
            warn_deprecated(device, "autocast", f"torch.amp.autocast('{device}', args...)")
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    return _named(autocast, module)


def grad_scaler_for(device: str, module: str):
    """`torch.<device>.amp.GradScaler(init_scale, growth_factor, ...)`."""

    class GradScaler(_GradScaler):
        __doc__ = (
            f"Deprecated: minitorch.amp.GradScaler('{device}', ...). "
            f"Mirrors torch.{device}.amp.GradScaler."
        )

        def __init__(
            self,
            init_scale: float = 2.0**16,
            growth_factor: float = 2.0,
            backoff_factor: float = 0.5,
            growth_interval: int = 2000,
            enabled: bool = True,
        ) -> None:
            warn_deprecated(device, "GradScaler", f"torch.amp.GradScaler('{device}', args...)")
            super().__init__(
                device,
                init_scale=init_scale,
                growth_factor=growth_factor,
                backoff_factor=backoff_factor,
                growth_interval=growth_interval,
                enabled=enabled,
            )

    return _named(GradScaler, module)
