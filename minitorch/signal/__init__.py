"""minitorch.signal: signal-processing helpers (the windows). Mirrors torch.signal."""

from minitorch.signal import windows

__all__ = ["windows"]
