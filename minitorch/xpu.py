"""torch.xpu's availability queries, for device-selection code: minitorch runs on the CPU and on
CUDA GPUs only, so no xpu device is ever available. Mirrors torch.xpu's queries."""

from __future__ import annotations

__all__ = ["device_count", "is_available"]


def is_available() -> bool:
    """Always False. Mirrors torch.xpu.is_available."""
    return False


def device_count() -> int:
    """Always 0. Mirrors torch.xpu.device_count."""
    return 0
