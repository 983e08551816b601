"""minitorch.cpu: the CPU device module (always available) and its amp spellings. Mirrors
torch.cpu."""

from __future__ import annotations

__all__ = ["is_available", "device_count", "current_device", "synchronize", "amp"]


def is_available() -> bool:
    """Always True. Mirrors torch.cpu.is_available."""
    return True


def device_count() -> int:
    """Always 1. Mirrors torch.cpu.device_count."""
    return 1


def current_device() -> str:
    """Always 'cpu'. Mirrors torch.cpu.current_device."""
    return "cpu"


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU ops are synchronous. Mirrors torch.cpu.synchronize."""


def __getattr__(name):
    # amp is imported on first use, as minitorch.amp itself (see NOTE [ Lazy submodules ]).
    if name == "amp":
        import importlib

        return importlib.import_module("minitorch.cpu.amp")
    raise AttributeError(f"module 'minitorch.cpu' has no attribute '{name}'")
