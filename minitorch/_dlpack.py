"""DLPack exchange: Tensor.__dlpack__/__dlpack_device__ and minitorch.from_dlpack, zero-copy."""

from __future__ import annotations

import numpy as np

from minitorch import _dtype
from minitorch._backend import backend_of, tensor_device
from minitorch._backend import device as as_device
from minitorch._tensor import Tensor, _make

__all__ = ["from_dlpack", "to_dlpack", "tensor_dlpack", "tensor_dlpack_device"]

# DLDeviceType codes (dlpack.h) minitorch can hold.
_CPU, _CUDA, _CUDA_HOST = 1, 2, 3


def tensor_dlpack(t: Tensor, stream=None, max_version=None, dl_device=None, copy=None):
    """Tensor.__dlpack__: the array's own capsule, no copy. Mirrors torch.Tensor.__dlpack__."""
    if t._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if t._device.type == "meta":
        raise BufferError("Cannot pack tensors on meta")
    kwargs = {}
    if stream is not None:
        kwargs["stream"] = stream
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    return t._data.__dlpack__(**kwargs)


def tensor_dlpack_device(t: Tensor) -> tuple:
    """Tensor.__dlpack_device__: (DLDeviceType, index) of the underlying array."""
    dev_type, index = t._data.__dlpack_device__()
    return (int(dev_type), int(index))


def to_dlpack(tensor: Tensor):
    """A DLPack capsule sharing tensor's memory. Mirrors torch.utils.dlpack.to_dlpack."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}")
    return tensor_dlpack(tensor)


class _Capsule:
    """Lets np/cupy.from_dlpack read a bare capsule (they take objects with __dlpack__)."""

    __slots__ = ("capsule", "dev")

    def __init__(self, capsule, dev):
        self.capsule = capsule
        self.dev = dev

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.dev


class _WritableView:
    """A writable alias of an array NumPy imported read-only from a legacy (unversioned) capsule.

    Legacy DLPack has no read-only flag; NumPy plays safe and marks such imports read-only, while
    torch (whose to_dlpack makes them) treats them as writable. This holder keeps the read-only
    array alive and exposes the same memory writable, without a copy.
    """

    __slots__ = ("_array", "__array_interface__")

    def __init__(self, array):
        self._array = array
        iface = dict(array.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


def from_dlpack(ext_tensor) -> Tensor:
    """A Tensor sharing the memory of any object with __dlpack__ (NumPy, CuPy, torch, JAX, a
    minitorch Tensor) or of a DLPack capsule; dtype and device are kept. Mirrors
    torch.from_dlpack.

    Differences from torch: a bare capsule is read as host memory first, then (if that fails and
    CUDA is available) as CUDA memory of the current device.
    """
    if isinstance(ext_tensor, Tensor):
        return _make(ext_tensor._data, ext_tensor._device, False, None)
    if hasattr(ext_tensor, "__dlpack__"):
        dev_type, index = ext_tensor.__dlpack_device__()
        return _wrap(_import(ext_tensor, int(dev_type), int(index)))
    if type(ext_tensor).__name__ != "PyCapsule":
        raise TypeError(
            f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got "
            f"{type(ext_tensor).__name__}"
        )
    legacy = '"dltensor"' in repr(ext_tensor)  # before import renames it "used_dltensor"
    try:
        array, dev = _import(_Capsule(ext_tensor, (_CPU, 0)), _CPU, 0)
    except (BufferError, RuntimeError, ValueError) as err:
        cpu_error = err
    else:
        if legacy and not array.flags.writeable:
            array = np.asarray(_WritableView(array))  # see _WritableView
        return _wrap((array, dev))
    from minitorch import cuda

    if not cuda.is_available():
        raise cpu_error
    index = cuda.current_device()
    return _wrap(_import(_Capsule(ext_tensor, (_CUDA, index)), _CUDA, index))


def _import(obj, dev_type: int, index: int):
    """(array, device) for obj's memory: np.from_dlpack on the host, cupy's on a GPU."""
    if dev_type in (_CPU, _CUDA_HOST):
        return np.from_dlpack(obj), tensor_device(as_device("cpu"))
    if dev_type == _CUDA:
        dev = tensor_device(as_device("cuda", index))
        return backend_of(dev).xp.from_dlpack(obj), dev
    raise BufferError(
        f"from_dlpack: DLPack device type {dev_type} is not supported (minitorch holds CPU "
        "and CUDA memory)"
    )


def _wrap(array_device) -> Tensor:
    array, dev = array_device
    _dtype.from_numpy(array.dtype)  # TypeError naming a dtype minitorch has no tensor type for
    return _make(array, dev, False, None)
