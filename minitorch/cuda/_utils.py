"""Helpers shared by the minitorch.cuda modules: setting CUDA up, reading device arguments."""

from __future__ import annotations

from minitorch import _backend
from minitorch._backend import cupy_backend


def lazy_init():
    """The CUDA backend, set up on first use; CudaUnavailableError where CuPy or a GPU is
    missing (a RuntimeError and an AssertionError: torch raises AssertionError there)."""
    return _backend.backend_of(_backend.device("cuda", 0))


def initialized_backend():
    """The CUDA backend if something already set CUDA up, else None (never sets it up)."""
    return _backend._backends.get("cuda")


def require(what: str):
    """The CUDA backend for `what` (a class name), or torch's RuntimeError for CPU-only builds
    (a plain RuntimeError: torch's Stream and Event raise no AssertionError)."""
    reason = cupy_backend.unavailable_reason()
    if reason is not None:
        raise RuntimeError(f"{what} requires CUDA support ({reason})")
    return lazy_init()


def device_index(device) -> int:
    """A device argument (None, int, str, minitorch.device) as a CUDA ordinal."""
    if device is None:
        return _backend.current_cuda_index()
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    d = _backend.device(device)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return _backend.current_cuda_index() if d.index is None else d.index


def _get_device_index(device, optional: bool = False, allow_cpu: bool = False):
    """torch.cuda._utils._get_device_index: a CUDA device (or int) as its index; refuses other
    device types (cpu too, unless allow_cpu: -1). Mirrors torch.cuda._utils._get_device_index."""
    if isinstance(device, str):
        device = _backend.device(device)
    if isinstance(device, _backend.Device):
        if allow_cpu:
            if device.type not in ("cuda", "cpu"):
                raise ValueError(f"Expected a cuda or cpu device, but got: {device}")
        elif device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
    from minitorch._utils import _get_device_index as generic

    return generic(device, optional, allow_cpu)
