"""Tensor factories: tensor, as_tensor, from_numpy, zeros/ones/full/empty(_like), ranges, random."""

from __future__ import annotations

import math
import warnings

import numpy as np

from minitorch import _dtype
from minitorch._backend import Device, backend_of, default_device
from minitorch._backend import device as as_device
from minitorch._tensor import Tensor, _make
from minitorch.random import generator_for

__all__ = [
    "tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "full", "empty", "zeros_like",
    "ones_like", "full_like", "empty_like", "arange", "range", "linspace", "logspace", "eye",
    "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like",
    "scalar_tensor",
]

def _device(device) -> Device:
    if device is None:
        return default_device()
    return device if isinstance(device, Device) else as_device(device)


def _dtype_or(dtype, default):
    if dtype is None:
        return default
    if isinstance(dtype, str):
        return getattr(_dtype, dtype)
    return _dtype.to_dtype(dtype)


def _size(size, op):
    """zeros(2, 3), zeros((2, 3)) and zeros([2, 3]) all mean the shape (2, 3)."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = size[0]
    try:
        shape = tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(
            f"{op}(): argument 'size' must be tuple of ints, but found element of type "
            f"{type(size).__name__}"
        ) from None
    for s in shape:
        if s < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    return shape


def _finish(array, device: Device, requires_grad: bool, op: str = "") -> Tensor:
    """Puts a host array on the device and sets requires_grad (only floats may require it)."""
    data = backend_of(device).from_host(array, device) if device.type != "cpu" else array
    t = _make(data, device, False, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _on_device(array_fn, device: Device, requires_grad: bool) -> Tensor:
    """Builds the array directly on the device with its backend's xp (no host round trip)."""
    t = _make(array_fn(backend_of(device).xp), device, False, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


# --- from data ---


def _infer_host_array(data, dtype):
    """Nested Python data (numbers, lists, tuples, NumPy arrays, tensors) as a host array."""
    if isinstance(data, Tensor):
        return data._host()
    if isinstance(data, np.ndarray):
        return data
    if isinstance(data, (list, tuple)):
        items = [_infer_host_array(x, None) if isinstance(x, (Tensor, list, tuple)) else x
                 for x in data]
        _check_ragged(items)
        try:
            arr = np.array(items)
        except ValueError as e:
            raise ValueError(f"tensor(): could not convert nested data: {e}") from None
    else:
        arr = np.asarray(data)
    if arr.dtype == object:
        raise TypeError(f"tensor(): could not infer dtype of {type(data).__name__}")
    return arr


def _check_ragged(items, dim=1):
    lens = [len(x) for x in items if isinstance(x, (list, tuple, np.ndarray))]
    if lens and (len(lens) != len(items) or len(set(lens)) > 1):
        first = lens[0] if lens else 0
        bad = next((n for n in lens if n != first), "scalar")
        raise ValueError(f"expected sequence of length {first} at dim {dim} (got {bad})")


def _python_default_dtype(arr) -> _dtype.dtype:
    kind = arr.dtype.kind
    if kind == "b":
        return _dtype.bool
    if kind in "iu":
        return _dtype.int64
    if kind == "f":
        return _dtype.default_float()
    return _dtype.from_numpy(arr.dtype)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor copying `data`. Mirrors torch.tensor."""
    dev = _device(device)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
            "or sourceTensor.clone().detach().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        dt = _dtype_or(dtype, data.dtype)
        t = data.detach().to(dev, dt, copy=True)
        if requires_grad:
            t.requires_grad_(True)
        return t
    if isinstance(data, np.ndarray):
        dt = _dtype_or(dtype, _dtype.from_numpy(data.dtype))
    else:
        arr = _infer_host_array(data, dtype)
        dt = _dtype_or(dtype, _python_default_dtype(arr) if not isinstance(data, np.generic)
                       else _dtype.from_numpy(arr.dtype))
        data = arr
    array = np.array(data, dtype=_dtype.numpy_dtype(dt), copy=True)
    return _finish(array, dev, requires_grad, "tensor")


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return tensor(s, dtype=_dtype_or(dtype, _dtype.default_float()), device=device,
                  requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like tensor() but shares memory when dtype and device already match. Mirrors torch."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (device or dtype) else data
    if isinstance(data, np.ndarray):
        dev = _device(device)
        dt = _dtype_or(dtype, _dtype.from_numpy(data.dtype))
        if dev.type == "cpu" and data.dtype == _dtype.numpy_dtype(dt):
            return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False) -> Tensor:
    """Mirrors torch.asarray (shares memory unless copy=True or a conversion is needed)."""
    if copy:
        t = tensor(obj.detach() if isinstance(obj, Tensor) else obj, dtype=dtype, device=device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def from_numpy(ndarray) -> Tensor:
    """A CPU tensor sharing memory with a NumPy array. Mirrors torch.from_numpy."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy(ndarray.dtype)  # TypeError for unsupported dtypes
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if not ndarray.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior.",
            UserWarning,
            stacklevel=2,
        )
    return _make(ndarray, as_device("cpu"), False, None)


# --- filled ---


def _filled(kind, size, fill_value, dtype, device, requires_grad, op):
    shape = _size(size, op)
    dev = _device(device)
    dt = _dtype_or(dtype, _dtype.default_float())
    npdt = _dtype.numpy_dtype(dt)
    if kind == "zeros":
        return _on_device(lambda xp: xp.zeros(shape, dtype=npdt), dev, requires_grad)
    if kind == "ones":
        return _on_device(lambda xp: xp.ones(shape, dtype=npdt), dev, requires_grad)
    if kind == "empty":
        # Differences from torch: empty() is zero-filled (NumPy's empty may expose stale memory
        # that makes programs non-deterministic, e.g. NaNs that propagate).
        return _on_device(lambda xp: xp.zeros(shape, dtype=npdt), dev, requires_grad)
    return _on_device(lambda xp: xp.full(shape, fill_value, dtype=npdt), dev, requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None) -> Tensor:
    """Mirrors torch.zeros."""
    return _filled("zeros", size, 0, dtype, device, requires_grad, "zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, memory_format=None) -> Tensor:
    """Mirrors torch.ones."""
    return _filled("ones", size, 1, dtype, device, requires_grad, "ones")


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None) -> Tensor:
    """Mirrors torch.empty (zero-filled here, see _filled)."""
    return _filled("empty", size, 0, dtype, device, requires_grad, "empty")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """Mirrors torch.full: the dtype follows fill_value (bool, int64 or the default float)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _python_default_dtype(np.asarray(fill_value))
    return _filled("full", (size,), fill_value, dtype, device, requires_grad, "full")


def _like(input, dtype, device):
    return (input.shape, _dtype_or(dtype, input.dtype),
            input.device if device is None else _device(device))


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device)
    return zeros(shape, dtype=dt, device=dev, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device)
    return ones(shape, dtype=dt, device=dev, requires_grad=requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device)
    return empty(shape, dtype=dt, device=dev, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device)
    return full(shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


# --- ranges ---


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False) -> Tensor:
    """Mirrors torch.arange: int64 for integer arguments, else the default float dtype."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    dt = _dtype_or(dtype, _dtype.int64 if is_int else _dtype.default_float())
    n = max(math.ceil((end - start) / step), 0)
    npdt = _dtype.numpy_dtype(dt)
    dev = _device(device)
    if is_int:
        return _on_device(lambda xp: xp.arange(start, end, step).astype(npdt, copy=False), dev,
                          requires_grad)
    # Computed in float64 as start + i * step, then cast (torch's values for float ranges).
    return _on_device(lambda xp: (start + xp.arange(n, dtype=np.float64) * step).astype(npdt),
                      dev, requires_grad)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False) -> Tensor:
    """Deprecated torch.range: includes `end`; always a float dtype by default."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    dt = _dtype_or(dtype, _dtype.default_float())
    npdt = _dtype.numpy_dtype(dt)
    return _on_device(lambda xp: (start + xp.arange(n, dtype=np.float64) * step).astype(npdt),
                      _device(device), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    """Mirrors torch.linspace."""
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    dt = _dtype_or(dtype, _dtype.default_float())
    npdt = _dtype.numpy_dtype(dt)
    return _on_device(lambda xp: xp.linspace(start, end, steps, dtype=np.float64).astype(npdt),
                      _device(device), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    """Mirrors torch.logspace."""
    dt = _dtype_or(dtype, _dtype.default_float())
    npdt = _dtype.numpy_dtype(dt)
    return _on_device(
        lambda xp: xp.logspace(_num(start), _num(end), steps, base=base,
                               dtype=np.float64).astype(npdt),
        _device(device), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    """Mirrors torch.eye."""
    dt = _dtype_or(dtype, _dtype.default_float())
    npdt = _dtype.numpy_dtype(dt)
    return _on_device(lambda xp: xp.eye(n, m, dtype=npdt), _device(device), requires_grad)


# --- random ---


def _float_dtype(dtype, op):
    dt = _dtype_or(dtype, _dtype.default_float())
    if not dt.is_floating_point:
        raise RuntimeError(f"\"{op}\" not implemented for '{_dtype_label(dt)}'")
    return dt


def _dtype_label(dt):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool"}.get(dt.name, dt.name)


def _draw(rng_method, shape, dt, dev, requires_grad):
    npdt = _dtype.numpy_dtype(dt)
    gen_dt = npdt if npdt in (np.float32, np.float64) else np.float32
    arr = rng_method(shape, dtype=gen_dt)
    if arr.dtype != npdt:
        arr = arr.astype(npdt)
    t = _make(arr, dev, False, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False) -> Tensor:
    """Uniform on [0, 1). Mirrors torch.rand."""
    shape = _size(size, "rand")
    dev = _device(device)
    dt = _float_dtype(dtype, "check_uniform_bounds")
    return _draw(generator_for(dev, generator).rng.random, shape, dt, dev, requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False) -> Tensor:
    """Standard normal. Mirrors torch.randn."""
    shape = _size(size, "randn")
    dev = _device(device)
    dt = _float_dtype(dtype, "normal_kernel_cpu")
    return _draw(generator_for(dev, generator).rng.standard_normal, shape, dt, dev,
                 requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False) -> Tensor:
    """Integers in [low, high). Mirrors torch.randint (int64 by default)."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    shape = _size((size,), "randint")
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    dev = _device(device)
    dt = _dtype_or(dtype, _dtype.int64)
    rng = generator_for(dev, generator).rng
    arr = rng.integers(low, high, size=shape, dtype=np.int64).astype(_dtype.numpy_dtype(dt),
                                                                      copy=False)
    return _make(arr, dev, False, None)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False) -> Tensor:
    """A random permutation of 0..n-1. Mirrors torch.randperm."""
    dev = _device(device)
    dt = _dtype_or(dtype, _dtype.int64)
    arr = generator_for(dev, generator).rng.permutation(n).astype(_dtype.numpy_dtype(dt))
    return _make(arr, dev, False, None)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False) -> Tensor:
    """Normal samples; mean/std may be tensors (broadcast) or numbers with a size. Mirrors torch."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = mean if isinstance(mean, Tensor) else std
        shape = ref.shape if not isinstance(mean, Tensor) or not isinstance(std, Tensor) else \
            np.broadcast_shapes(tuple(mean.shape), tuple(std.shape))
        z = randn(tuple(shape), generator=generator, dtype=ref.dtype, device=ref.device)
        return (z * std + mean).detach()
    if size is None:
        raise TypeError("normal(): with numbers for mean and std, size= is required")
    z = randn(_size((size,), "normal"), generator=generator, dtype=dtype, device=device)
    out = z * std + mean
    if requires_grad:
        out.requires_grad_(True)
    return out


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device)
    return rand(shape, dtype=dt, device=dev, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    shape, dt, dev = _like(input, dtype, device)
    return randn(shape, dtype=dt, device=dev, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None) -> Tensor:
    if high is None:
        low, high = 0, low
    shape, dt, dev = _like(input, dtype, device)
    return randint(low, high, tuple(shape), dtype=dt, device=dev)


# --- the legacy torch.Tensor(...) constructor ---


def _legacy_tensor_init(self, *args, **kwargs):
    """torch.Tensor(2, 3) (uninitialised float), torch.Tensor([1, 2]) (float copy), Tensor()."""
    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"Tensor(): unexpected keyword arguments {sorted(kwargs)}")
    dt = _dtype.default_float()
    if args and all(isinstance(a, (int, np.integer)) for a in args):
        src = zeros(*args, dtype=dt, device=device)
    elif len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        if isinstance(args[0], Tensor):
            src = args[0]
        else:
            src = tensor(args[0], dtype=dt, device=device)
    elif not args:
        src = zeros(0, dtype=dt, device=device)
    else:
        raise TypeError(f"Tensor(): invalid arguments {args!r}")
    Tensor._init_from(self, src._data, src._device, False)
    if args and src is args[0]:
        self._vc = src._vc  # Tensor(other) shares other's data, as torch does
