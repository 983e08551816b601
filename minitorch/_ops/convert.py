"""Copies and conversions: clone, dtype casts, device moves, Tensor.to / type / cuda, pinned
host memory (pin_memory, is_pinned) and record_stream."""

from __future__ import annotations

import warnings

from minitorch import _dtype, _memory_format
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import Device, _backends, backend_of, cpu, tensor_device
from minitorch._backend import device as as_device
from minitorch._backend.numpy_backend import fast_cast
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, fast_path, plain_result
from minitorch.autograd.grad_mode import no_grad
from minitorch.autograd.grad_mode import state as _grad_state

# fmt: off
__all__ = [
    "clone", "to", "to_dtype", "to_device", "type_", "cuda_device", "pin_memory", "is_pinned",
    "record_stream",
]
# fmt: on


class Clone(Function):
    """out = copy of a (laid out as memory_format says, see NOTE [ Memory formats ]);
    grad_a = grad"""

    @staticmethod
    def forward(ctx, a, *, memory_format=_memory_format.preserve_format):
        x = a._data
        if memory_format is _memory_format.preserve_format and x.flags.c_contiguous:
            return x.copy()  # the common case
        return _memory_format.copy_as(ctx.xp, x, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad

    _backward_data = backward  # an array passes as well (NOTE [ Data-level backward ])


class ToCopy(Function):
    """out = a cast to another dtype and/or copied to another device, laid out in memory_format
    when given (to(..., memory_format=...): torch records one ToCopyBackward0 for both);
    grad_a = grad cast and copied back"""

    @staticmethod
    def forward(ctx, a, *, np_dtype, device, non_blocking=False, memory_format=None, cast=True):
        ctx.src_device = a._device
        ctx.src_dtype = a.dtype
        if memory_format is None:  # the common case
            return ToCopy.kernel(a._data, a._device, np_dtype, device, non_blocking)
        return ToCopy.laid_out(
            a._data, a._device, np_dtype, device, non_blocking, memory_format, cast
        )

    @staticmethod
    def laid_out(x, a_device, np_dtype, device, non_blocking, memory_format, cast):
        """The input's array x cast (cast=False: nothing to convert) and laid out in
        memory_format: the cast's copy where it is laid out so already (a size-1 dim may have
        any stride there: copied in fmt's own strides), else a copy of it (or of x) in fmt."""
        if cast:
            x = ToCopy.kernel(x, a_device, np_dtype, device, non_blocking)
            if 1 not in x.shape and _memory_format.is_in(x, memory_format):
                return x
        return _memory_format.copy_as(device.backend.xp, x, memory_format)

    @staticmethod
    def kernel(x, a_device, np_dtype, device, non_blocking=False):
        """The array of the input's array x (on a_device) cast to np_dtype on device."""
        if _dtype.cast_may_warn(x.dtype, np_dtype):  # torch casts NaN / out of range silently
            with _dtype.quiet_casts():
                x = _dtype.via_float32(x, np_dtype)
                return ToCopy._cast(x, a_device, np_dtype, device, non_blocking)
        x = _dtype.via_float32(x, np_dtype)
        return ToCopy._cast(x, a_device, np_dtype, device, non_blocking)

    @staticmethod
    def _cast(x, a_device, np_dtype, device, non_blocking):
        """x (the input's array, on a_device) as np_dtype on device."""
        if device is a_device:
            if a_device is cpu:  # float32 <-> float16 / bfloat16: NOTE [ Half casts ]
                out = fast_cast(x, np_dtype)
                if out is not None:
                    return out
            order = _cast_order(x)
            if order == "C":  # a broadcast dim (rare): NOTE [ Preserved layouts ]
                return _memory_format.preserved_copy(a_device.backend.xp, x, np_dtype)
            return x.astype(np_dtype, order=order)
        # Between devices through the host: an explicit device-to-host copy, then host-to-device.
        # non_blocking copies keep the host side pinned (see to_host/from_host_nonblocking), so
        # they cast on the device; blocking ones cast on the host (fewer bytes when narrowing).
        # An unusable target (CUDA without a GPU) is refused before reading the source, as torch.
        b = None if device is cpu else backend_of(device)
        if a_device is not cpu:
            src = a_device.backend
            if non_blocking:  # queued on the current stream of the source's GPU
                with src.device_context(a_device):
                    x = src.to_host_nonblocking(x if x.dtype == np_dtype else x.astype(np_dtype))
            else:
                x = src.to_host(x)
            if device is cpu:
                return x if x.dtype == np_dtype else x.astype(np_dtype)
        with b.device_context(device):
            if not non_blocking:
                return b.from_host(x if x.dtype == np_dtype else x.astype(np_dtype), device)
            out = b.from_host_nonblocking(x, device)
            return out if out.dtype == np_dtype else out.astype(np_dtype)

    @staticmethod
    def backward(ctx, grad):
        return to(grad, ctx.src_device, ctx.src_dtype)

    @classmethod
    def apply(cls, a, *, np_dtype, device, non_blocking=False, memory_format=None, cast=True):
        # The output lives on `device`, not on the input's: set it after the generic apply.
        if memory_format is None:
            out = super().apply(a, np_dtype=np_dtype, device=device, non_blocking=non_blocking)
        else:
            out = super().apply(
                a,
                np_dtype=np_dtype,
                device=device,
                non_blocking=non_blocking,
                memory_format=memory_format,
                cast=cast,
            )
        out._device = device
        return out


def _cast_order(x) -> str:
    """The layout of a cast's copy: the input's ("K") unless a dim is broadcast (stride 0),
    where torch lays the copy out row-major and NumPy's "K" would make that dim the fastest
    (`arange(T).expand(B, T).float().view(-1)` must work)."""
    if 0 in x.strides:
        for n, st in zip(x.shape, x.strides, strict=True):
            if st == 0 and n > 1:
                return "C"
    return "K"


def clone(input=REQUIRED, *extra, memory_format=None):
    """A copy that stays in the graph, in input's memory order unless memory_format says
    otherwise. Mirrors torch.clone."""
    if extra:  # (input REQUIRED: check_tensors words torch.clone())
        raise arity_error("clone", extra, 1, input=input)
    if memory_format is None:
        try:
            return Clone.apply(input)
        except AttributeError:  # torch.clone(None): zero-cost when a tensor
            from minitorch._ops._common import check_tensors

            check_tensors("clone", ("input", input))
            raise
    fmt = _memory_format.check(memory_format, "clone")
    return Clone.apply(input, memory_format=fmt)


def contiguous_as(input, memory_format):
    """input laid out densely in memory_format: itself when it already is, else a copy.
    Tensor.contiguous(memory_format=...)."""
    fmt = _memory_format.check(memory_format, "contiguous", _memory_format.contiguous_format)
    if _memory_format.is_in(input._data, fmt):
        return input
    if fmt is _memory_format.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return Clone.apply(input, memory_format=fmt)


def _plain_on_cpu(input: Tensor, device: Device) -> bool:
    """Whether a conversion to device may take the no-grad fast path: a plain CPU tensor staying
    on the CPU, with nothing to record (NOTE [ The no-grad fast path ])."""
    return (
        device is cpu
        and input._device is cpu
        and input.__class__ is Tensor
        and not (input._requires_grad and _grad_state.enabled)
        and fast_path[0]
    )


def _convert(input: Tensor, dt, device: Device, copy: bool, non_blocking: bool = False) -> Tensor:
    """input with dtype dt on device: itself when nothing changes and copy is False."""
    np_dtype = dt.np  # (bfloat16's resolves on first use: _dtype.numpy_dtype)
    same = device is input._device and input._data.dtype == np_dtype
    if same and not copy:
        return input
    # (torch's to(copy=True) always runs its _to_copy: the node is ToCopyBackward0, not Clone's)
    if _plain_on_cpu(input, device):  # NOTE [ The no-grad fast path ]: ToCopy.forward's array
        return plain_result(ToCopy.kernel(input._data, cpu, np_dtype, cpu), cpu)
    if input._requires_grad and not same and not dt.is_floating_point:
        # A cast to an integer type leaves the graph, as in torch.
        with no_grad():
            return ToCopy.apply(input, np_dtype=np_dtype, device=device, non_blocking=non_blocking)
    return ToCopy.apply(input, np_dtype=np_dtype, device=device, non_blocking=non_blocking)


def to_dtype(input: Tensor, dt, copy: bool = False) -> Tensor:
    """input cast to dtype dt (a dtype, or the name of one for internal callers)."""
    if dt.__class__ is str:
        dt = getattr(_dtype, dt)
    elif dt.__class__ is not _dtype.dtype:
        dt = _dtype.to_dtype(dt, "to")
    return _convert(input, dt, input._device, copy)


def to_device(input: Tensor, device, copy: bool = False, non_blocking: bool = False):
    """input copied to `device` (canonical: 'cuda' means the current GPU, 'cpu:1' the CPU)."""
    return _convert(input, input.dtype, tensor_device(device), copy, non_blocking)


def cuda_device(device) -> Device:
    """The device of Tensor.cuda(device): an index or a CUDA device."""
    if isinstance(device, int) and not isinstance(device, bool):
        return as_device("cuda", device)
    d = as_device(device)
    if d.type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    return d


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
)


def _invalid_to(args, kwargs) -> TypeError:
    """torch's parser error for a call of to() no overload takes (the keywords listed in the
    reverse of the call's order; one overload that fits the count names the argument)."""
    from minitorch._ops._parser_errors import invalid_arguments

    forms = [line[4:-1] for line in _TO_SIGNATURES.splitlines()]
    return invalid_arguments("to", forms, tuple(args), dict(reversed(kwargs.items())))


def _is_dtype(x) -> bool:
    return x.__class__ is _dtype.dtype or x in (float, int, bool)


def to(input: Tensor, *args, **kwargs) -> Tensor:
    """Tensor.to in all torch's forms: to(device=None, dtype=None, non_blocking=False,
    copy=False), to(dtype, non_blocking=False, copy=False), to(tensor, non_blocking=False,
    copy=False). Mirrors torch.Tensor.to.

    non_blocking=True on a GPU: a copy from pinned host memory is queued on the current stream
    and returns at once; a copy to the host lands in pinned memory, valid once the stream has
    passed it (minitorch.cuda.synchronize(), an Event). Elsewhere copies are synchronous.
    """
    # The common calls first, without the general binding below: to(dtype), to(device) and
    # to(tensor) by position (with or without non_blocking=), to(device, dtype),
    # to(dtype=...), to(device=...).
    if len(args) == 1:
        if not kwargs:
            non_blocking = False
        elif len(kwargs) == 1 and kwargs.get("non_blocking").__class__ is bool:
            non_blocking = kwargs["non_blocking"]
        else:
            non_blocking = None
        if non_blocking is not None:
            first = args[0]
            cls = first.__class__
            if cls is _dtype.dtype:
                return _convert(input, first, input._device, False, non_blocking)
            if cls is str or cls is Device:
                return _to_device_of(input, first, non_blocking)
            if cls is Tensor:
                return _convert(input, first.dtype, first._device, False, non_blocking)
    elif len(args) == 2:
        device, dt = args
        if (
            not kwargs
            and dt.__class__ is _dtype.dtype
            and (device.__class__ is str or device.__class__ is Device)
        ):
            device = cpu if device.__class__ is str and device == "cpu" else tensor_device(device)
            return _convert(input, dt, device, False)
    elif not args and len(kwargs) == 1:
        dt = kwargs.get("dtype")
        if dt.__class__ is _dtype.dtype:
            return _convert(input, dt, input._device, False)
        device = kwargs.get("device")
        if device.__class__ is str or device.__class__ is Device:
            return _to_device_of(input, device, False)
    first = args[0] if args else None
    if isinstance(first, Tensor):
        names = ("tensor", "non_blocking", "copy")
    elif first is not None and _is_dtype(first):
        names = ("dtype", "non_blocking", "copy")
    else:
        names = ("device", "dtype", "non_blocking", "copy")
    if len(args) > len(names):
        raise _invalid_to(args, kwargs)
    bound = dict(zip(names, args, strict=False))
    fmt = None
    for k, v in kwargs.items():
        if k == "memory_format":
            try:
                fmt = _memory_format.check(v, "to")
            except TypeError:  # (every overload takes it: none fits)
                raise _invalid_to(args, kwargs) from None
            continue
        if k not in names or k in bound or k == "tensor":
            raise _invalid_to(args, kwargs)
        bound[k] = v
    device, dt = bound.get("device"), bound.get("dtype")
    if "tensor" in bound:
        other = bound["tensor"]
        device, dt = other._device, other.dtype
    non_blocking, copy = bound.get("non_blocking", False), bound.get("copy", False)
    if not isinstance(non_blocking, bool) or not isinstance(copy, bool):
        raise _invalid_to(args, kwargs)
    if dt is not None:
        if dt.__class__ is not _dtype.dtype:
            if not _is_dtype(dt) and not hasattr(dt, "itemsize"):
                raise _invalid_to(args, kwargs)
            dt = _dtype.to_dtype(dt, "to")
    if device is not None:
        if not isinstance(device, (str, Device, int)) or isinstance(device, bool):
            raise _invalid_to(args, kwargs)
        device = tensor_device(device)
    dt = input.dtype if dt is None else dt
    device = input._device if device is None else device
    if fmt is None or fmt is _memory_format.preserve_format:
        return _convert(input, dt, device, copy, non_blocking)
    return _convert_as(input, dt, device, copy, non_blocking, fmt)


def _convert_as(input: Tensor, dt, device: Device, copy: bool, non_blocking: bool, fmt):
    """_convert laid out in fmt (not preserve_format): input itself where nothing changes,
    copy is False and its layout suggests fmt, else one ToCopy node (torch's ToCopyBackward0,
    also where only the layout changes) for the cast and the layout together."""
    np_dtype = dt.np
    same = device is input._device and input._data.dtype == np_dtype
    cast = copy or not same
    if not cast:
        # torch returns the tensor itself where its layout suggests fmt (a transposed matrix
        # suggests contiguous_format, a sliced channels-last image channels_last), and a copy
        # in fmt's own strides otherwise (an N x 1 x H x W one is channels-last and contiguous)
        if (_memory_format.suggested_last(input._data) or _memory_format.contiguous_format) is fmt:
            return input
    if _plain_on_cpu(input, device):  # NOTE [ The no-grad fast path ]: ToCopy.forward's array
        return plain_result(ToCopy.laid_out(input._data, cpu, np_dtype, cpu, False, fmt, cast), cpu)
    if not cast:  # (on its own device: no need of ToCopy.apply's device)
        return Function.apply.__func__(
            ToCopy, input, np_dtype=np_dtype, device=device, memory_format=fmt, cast=False
        )
    if input._requires_grad and not same and not dt.is_floating_point:
        # A cast to an integer type leaves the graph, as in torch.
        with no_grad():
            return ToCopy.apply(
                input,
                np_dtype=np_dtype,
                device=device,
                non_blocking=non_blocking,
                memory_format=fmt,
            )
    return ToCopy.apply(
        input, np_dtype=np_dtype, device=device, non_blocking=non_blocking, memory_format=fmt
    )


def _to_device_of(input: Tensor, spec, non_blocking: bool) -> Tensor:
    """to(spec) for a device given as a str or Device: input itself on that device already."""
    device = cpu if spec.__class__ is str and spec == "cpu" else tensor_device(spec)
    if device is input._device:
        return input
    return _convert(input, input.dtype, device, False, non_blocking)


_BY_TYPE_NAME = {v: k for k, v in _dtype.TENSOR_TYPE_NAMES.items()}


def type_name(dt, device: Device) -> str:
    """'torch.FloatTensor' for a CPU float32 tensor, 'torch.cuda.FloatTensor' on a GPU."""
    prefix = "torch." if device.type == "cpu" else f"torch.{device.type}."
    return prefix + _dtype.TENSOR_TYPE_NAMES[dt.name]


def type_(input: Tensor, dt=None):
    """Tensor.type(): the type name with no argument, else a cast to a dtype or a legacy type
    ('torch.LongTensor', minitorch.LongTensor, 'torch.cuda.FloatTensor'). Mirrors torch."""
    if dt is None:
        return type_name(input.dtype, input._device)
    if dt.__class__ is _dtype.dtype:
        return _convert(input, dt, input._device, False)
    if isinstance(dt, type) and hasattr(dt, "_device_type"):  # minitorch.FloatTensor and friends
        device = (
            input._device
            if input._device.type == dt._device_type
            else (tensor_device(dt._device_type))
        )
        return _convert(input, dt.dtype, device, False)
    if isinstance(dt, str):
        head, _, name = dt.rpartition(".")
        if name in _BY_TYPE_NAME and head in ("torch", "torch.cuda"):
            target = getattr(_dtype, _BY_TYPE_NAME[name])
            if head == "torch.cuda":
                device = input._device if input._device.type == "cuda" else tensor_device("cuda")
            else:
                device = tensor_device("cpu")
            return _convert(input, target, device, False)
        raise ValueError(f"invalid type: '{dt}'")
    name = getattr(dt, "__name__", type(dt).__name__)
    raise ValueError(f"invalid type: '{name}'")


# --- pinned host memory and streams ---


def _deprecated_device_argument(op: str, device) -> None:
    if device is not None:
        if not isinstance(device, (Device, str, int)):  # (torch's parser, before the warning)
            from minitorch._ops._common import wrong_type

            raise wrong_type(op, device, "device", 1, "torch.device")
        warnings.warn(
            f"The argument 'device' of Tensor.{op}() is deprecated. Please do not pass this "
            "argument.",
            DeprecationWarning,
            stacklevel=3,
        )
        if as_device(device).type == "cpu":
            raise RuntimeError("CPU device type not an accelerator.")


def pin_memory(input: Tensor, device=None) -> Tensor:
    """input copied into page-locked host memory (CuPy's pinned pool), or input itself when it
    is already pinned. Mirrors torch.Tensor.pin_memory: torch's errors without a GPU and for
    tensors off the CPU.

    Differences from torch: a tensor that requires grad gets a CloneBackward0 node (torch's is
    PinMemoryBackward0); the gradient is the same.
    """
    _deprecated_device_argument("pin_memory", device)
    if input._device is not cpu:
        what = type_name(input.dtype, input._device)
        if input._device.type == "meta":  # torch names the meta backend's type: MetaFloatType
            what = "Meta" + _dtype.TENSOR_TYPE_NAMES[input.dtype.name][: -len("Tensor")] + "Type"
        raise RuntimeError(f"cannot pin '{what}' only dense CPU tensors can be pinned")
    from minitorch._backend import cupy_backend

    if not cupy_backend.cuda_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    gpu = backend_of(as_device("cuda", 0))
    if gpu.is_pinned(input._data):
        return input
    if input._requires_grad:
        out = Clone.apply(input)
    else:
        out = _make(input._data, cpu, False, None)
    out._data = gpu.pin(input._data)
    return out


def is_pinned(input: Tensor, device=None) -> bool:
    """True when input's memory is pinned (from pin_memory() or a non_blocking copy to the
    host). Mirrors torch.Tensor.is_pinned."""
    if device is not None:
        if isinstance(device, str):  # (torch parses it first: x.is_pinned("a") is its error)
            as_device(device)
        elif not isinstance(device, (Device, int)):
            from minitorch._ops._common import wrong_type

            raise wrong_type("is_pinned", device, "device", 1, "torch.device")
        warnings.warn(
            "The argument 'device' of Tensor.is_pinned() is deprecated. Please do not pass this "
            "argument.",
            DeprecationWarning,
            stacklevel=2,
        )
    if input._device is not cpu:
        return False
    gpu = _backends.get("cuda")  # nothing was pinned before CUDA was set up
    return gpu is not None and gpu.is_pinned(input._data)


def record_stream(input: Tensor, stream) -> None:
    """Marks input's memory as used by work queued on `stream`: it is not reused before that
    work is done, even if the tensor dies first. Mirrors torch.Tensor.record_stream."""
    cupy_stream = getattr(stream, "_cupy_stream", None)
    if cupy_stream is None:
        raise RuntimeError(
            f"record_stream: expected a minitorch.cuda.Stream, got {type(stream).__name__}"
        )
    if input._device.type != "cuda":
        raise RuntimeError(f"record_stream: expected a CUDA tensor, got one on {input._device}")
    input._device.backend.keep_alive(input._data, cupy_stream)
