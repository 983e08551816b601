"""Copies and conversions: clone, dtype casts, device moves, Tensor.to / type."""

from __future__ import annotations

from minitorch import _dtype
from minitorch._backend import Device, backend_of
from minitorch._backend import device as as_device
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function

__all__ = ["clone", "to", "to_dtype", "to_device", "type_", "cuda_device"]


class Clone(Function):
    """out = copy of a;  grad_a = grad"""

    @staticmethod
    def forward(ctx, a):
        return a._data.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(Function):
    """out = a cast to another dtype;  grad_a = grad cast back (the engine casts)"""

    @staticmethod
    def forward(ctx, a, *, np_dtype):
        return a._data.astype(np_dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToDevice(Function):
    """out = a copied to another device;  grad_a = grad copied back"""

    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, a, *, device):
        ctx.src = a._device
        host = a._device.backend.to_host(a._data)
        return backend_of(device).from_host(host, device)

    @staticmethod
    def backward(ctx, grad):
        return to_device(grad, ctx.src)

    @classmethod
    def apply(cls, a, *, device):
        # The output lives on `device`, not the input's: build it by hand after the generic apply.
        out = super().apply(a, device=device)
        out._device = device
        return out


def clone(input, *, memory_format=None):
    """A copy that stays in the graph. Mirrors torch.clone."""
    return Clone.apply(input)


def to_dtype(input: Tensor, dt, copy: bool = False) -> Tensor:
    if isinstance(dt, str):
        dt = getattr(_dtype, dt)
    elif not isinstance(dt, _dtype.dtype):
        dt = _dtype.to_dtype(dt, "to")
    np_dtype = _dtype.numpy_dtype(dt)
    if input._data.dtype == np_dtype:
        return Clone.apply(input) if copy else input
    if input._requires_grad and not dt.is_floating_point:
        # Casting to an integer type cuts the graph, as in torch.
        return _make(input._data.astype(np_dtype), input._device, False, None)
    return ToCopy.apply(input, np_dtype=np_dtype)


def to_device(input: Tensor, device: Device, copy: bool = False, non_blocking: bool = False):
    if input._device is device:
        return Clone.apply(input) if copy else input
    backend_of(device)  # loads the backend (CuPy) on first use
    return ToDevice.apply(input, device=device)


def cuda_device(index) -> Device:
    if isinstance(index, Device):
        return index
    if isinstance(index, int):
        return as_device("cuda", index)
    return as_device(index)


def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Tensor.to(device=None, dtype=None, non_blocking=False, copy=False) in all torch's forms."""
    device = kwargs.pop("device", None)
    dt = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        device, dt = other._device, other.dtype
    elif rest and (isinstance(rest[0], (str, Device)) or
                   (isinstance(rest[0], int) and not isinstance(rest[0], bool))):
        device = rest.pop(0)
    if rest and (isinstance(rest[0], _dtype.dtype) or isinstance(rest[0], type)):
        dt = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        copy = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments: {args!r}")
    out = input
    if dt is not None:
        out = to_dtype(out, dt, copy=copy)
        copy = copy and out is input
    if device is not None:
        out = to_device(out, as_device(device) if not isinstance(device, Device) else device,
                        copy=copy, non_blocking=non_blocking)
    elif copy and out is input:
        out = Clone.apply(input)
    return out


_TYPE_NAMES = {
    "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
    "bfloat16": "torch.BFloat16Tensor", "int64": "torch.LongTensor", "int32": "torch.IntTensor",
    "int16": "torch.ShortTensor", "int8": "torch.CharTensor", "uint8": "torch.ByteTensor",
    "bool": "torch.BoolTensor",
}


def type_(input: Tensor, dt=None):
    """Tensor.type(): the type string with no argument, else a cast."""
    if dt is None:
        name = _TYPE_NAMES[input.dtype.name]
        return name if input._device.type == "cpu" else name.replace("torch.", "torch.cuda.")
    if isinstance(dt, str):
        for k, v in _TYPE_NAMES.items():
            if dt in (v, v.replace("torch.", "torch.cuda.")):
                out = to_dtype(input, getattr(_dtype, k))
                return to_device(out, as_device("cuda")) if ".cuda." in dt else out
        raise ValueError(f"invalid type: '{dt}'")
    return to_dtype(input, dt)
