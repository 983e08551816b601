"""minitorch.accelerator: the device-generic API of current PyTorch tutorials. The only
accelerator minitorch knows is CUDA (through CuPy), so every function here is minitorch.cuda's
when a GPU is present, and torch's "no accelerator" behaviour otherwise.
"""

from __future__ import annotations

import sys

from minitorch import _backend, cuda

# fmt: off
__all__ = [
    "is_available", "current_accelerator", "device_count", "current_device_index",
    "set_device_index", "current_device_idx", "set_device_idx", "synchronize", "device_index",
    "current_stream", "set_stream", "empty_cache", "memory_allocated", "max_memory_allocated",
    "memory_reserved", "max_memory_reserved", "memory_stats", "reset_peak_memory_stats",
    "reset_accumulated_memory_stats", "empty_host_cache", "get_memory_info", "memory",
    "AcceleratorError", "get_device_capability",
]
# fmt: on

_NONE = "Cannot access accelerator device when none is available."


class AcceleratorError(RuntimeError):
    """An error reported by the accelerator's runtime. Mirrors torch.AcceleratorError."""


AcceleratorError.__module__ = "minitorch"


def _require() -> None:
    if not cuda.is_available():
        raise RuntimeError(_NONE)


def is_available() -> bool:
    """True when an accelerator (a CUDA GPU through CuPy) can be used. Mirrors
    torch.accelerator.is_available."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False):
    """device('cuda') when a GPU is present, else None. Mirrors
    torch.accelerator.current_accelerator.

    Differences from torch: without a GPU it is None even with check_available=False (a CPU-only
    torch build answers None too; a CUDA build without a device would answer 'cuda').
    """
    return _backend.device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """The number of accelerators (0 without one). Mirrors torch.accelerator.device_count."""
    return cuda.device_count()


def current_device_index() -> int:
    """The index of the current accelerator. Mirrors torch.accelerator.current_device_index."""
    _require()
    return cuda.current_device()


def get_device_capability(device=None, /) -> dict:
    """{"supported_dtypes": the dtypes tensors can take on the accelerator} for `device` (the
    current one by default). Mirrors torch.accelerator.get_device_capability, including its
    RuntimeErrors for a non-accelerator device and for no accelerator."""
    if device is not None and _backend.device(device).type != "cuda":
        raise RuntimeError("Accelerator expected")
    _require()
    from minitorch import _dtype

    return {"supported_dtypes": set(_dtype.ALL_DTYPES)}


def set_device_index(device, /) -> None:
    """Makes `device` the current accelerator. Mirrors torch.accelerator.set_device_index."""
    _require()
    cuda.set_device(device)


current_device_idx = current_device_index
set_device_idx = set_device_index


def synchronize(device=None, /) -> None:
    """Waits for the accelerator's queued work. Mirrors torch.accelerator.synchronize."""
    _require()
    cuda.synchronize(device)


def current_stream(device=None, /):
    """The current stream of the accelerator. Mirrors torch.accelerator.current_stream."""
    _require()
    return cuda.current_stream(device)


def set_stream(stream) -> None:
    """Makes `stream` current on its device. Mirrors torch.accelerator.set_stream."""
    _require()
    cuda.set_stream(stream)


class device_index:
    """Changes the current accelerator inside the block (None: a no-op). Mirrors
    torch.accelerator.device_index."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            _require()
            self.prev_idx = cuda.current_device()
            if self.idx != self.prev_idx:
                cuda.set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx is not None and self.prev_idx != self.idx:
            cuda.set_device(self.prev_idx)
        return False


def empty_cache() -> None:
    """Mirrors torch.accelerator.empty_cache."""
    _require()
    cuda.empty_cache()


def memory_stats(device_index=None, /) -> dict:
    """Mirrors torch.accelerator.memory_stats."""
    _require()
    return cuda.memory_stats(device_index)


def memory_allocated(device_index=None, /) -> int:
    """Mirrors torch.accelerator.memory_allocated."""
    _require()
    return cuda.memory_allocated(device_index)


def max_memory_allocated(device_index=None, /) -> int:
    """Mirrors torch.accelerator.max_memory_allocated."""
    _require()
    return cuda.max_memory_allocated(device_index)


def memory_reserved(device_index=None, /) -> int:
    """Mirrors torch.accelerator.memory_reserved."""
    _require()
    return cuda.memory_reserved(device_index)


def max_memory_reserved(device_index=None, /) -> int:
    """Mirrors torch.accelerator.max_memory_reserved."""
    _require()
    return cuda.max_memory_reserved(device_index)


def reset_peak_memory_stats(device_index=None, /) -> None:
    """Mirrors torch.accelerator.reset_peak_memory_stats."""
    _require()
    cuda.reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    """Mirrors torch.accelerator.reset_accumulated_memory_stats.

    Differences from torch: with a GPU only the peaks restart (minitorch keeps no other
    accumulated counter)."""
    _require()
    cuda.reset_peak_memory_stats(device_index)


def empty_host_cache() -> None:
    """Mirrors torch.accelerator.empty_host_cache (CuPy's pinned pool frees its blocks)."""
    _require()
    _backend.backend_of(
        _backend.device("cuda", 0)
    ).xp.get_default_pinned_memory_pool().free_all_blocks()


def get_memory_info(device_index=None, /) -> tuple:
    """(free, total) bytes of the accelerator. Mirrors torch.accelerator.get_memory_info."""
    _require()
    return cuda.mem_get_info(device_index)


def _make_memory():
    """torch.accelerator.memory: the memory functions, also reachable as torch.accelerator.*."""
    import types

    mod = types.ModuleType("minitorch.accelerator.memory", "Mirrors torch.accelerator.memory.")
    mod.__all__ = [
        "empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
        "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
        "reset_accumulated_memory_stats", "reset_peak_memory_stats",
    ]  # fmt: skip
    for name in mod.__all__:
        setattr(mod, name, globals()[name])
    return mod


memory = sys.modules["minitorch.accelerator.memory"] = _make_memory()
