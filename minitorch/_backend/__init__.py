"""The backend seam: devices and the one backend object per device kind (NumPy, CuPy, strict)."""

from __future__ import annotations

import contextlib
import math
import sys
import threading

from minitorch._arg_errors import unexpected_keyword

# fmt: off
__all__ = [
    "Device", "device", "tensor_device", "backend_of", "Backend", "register_backend", "cpu",
    "default_device", "set_default_device", "CudaUnavailableError", "current_cuda_index",
    "set_current_cuda_index", "OutOfMemoryError", "strided_view",
]
# fmt: on

# NOTE [ Device types ]
# A device string may name any of torch's device types (listed in its order, which its
# error message shows), so code that builds device('mps') or device('xpu:0') up front, or
# compares a tensor's device with one, runs as under torch. Tensors exist on cpu, cuda and meta
# (NOTE [ The meta device ]) only (and on 'strict', the CuPy-like test device of strict.py,
# which torch's message does not list): using another type for a tensor raises when its
# backend is looked up (_load).
_TORCH_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip
_DEVICE_TYPES = frozenset((*_TORCH_DEVICE_TYPES, "strict"))


class CudaUnavailableError(RuntimeError, AssertionError):
    """Raised when a CUDA device is used on a machine without CuPy or without a GPU.

    torch raises AssertionError ("Torch not compiled with CUDA enabled") there; this error is both a
    RuntimeError and an AssertionError, so code catching either keeps working.
    """


class OutOfMemoryError(RuntimeError):
    """A GPU allocation failed even after the allocator's cache was emptied. Mirrors
    torch.OutOfMemoryError (exported as minitorch.cuda.OutOfMemoryError); the message ends with
    minitorch.cuda.memory_summary()."""


class Device:
    """A device: 'cpu', 'cuda:N', the test-only 'strict', or another of torch's device types
    ('mps', 'xpu:0', 'meta'...). Mirrors torch.device.

    Differences from torch: tensors cannot be made on types other than cpu, cuda and meta;
    see NOTE [ Device types ].

    Instances are interned (one object per type/index), so ops compare devices with `is`.
    Tensors hold canonical devices only (see `tensor_device`): 'cpu' without an index, 'cuda' with
    one.
    """

    __slots__ = ("type", "index", "_str", "backend")

    def __new__(cls, *args, **kwargs):  # torch's parameters: (type, index) or (device)
        if kwargs or not 1 <= len(args) <= 2:
            return _device_call(args, kwargs)
        if len(args) == 2 and args[1] is None and not isinstance(args[0], (str, bytes, Device)):
            # (device() reads a None index as none given; torch's parser saw two arguments)
            raise TypeError(
                f"device(): argument 'type' (position 1) must be str, not {_typename(args[0])}"
            )
        return device(*args)

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self._str

    def __eq__(self, other):
        # As torch.device: equal to devices only (device('cpu') == 'cpu' is False in torch too).
        if other.__class__ is not Device:
            return NotImplemented
        return self is other

    def __ne__(self, other):
        if other.__class__ is not Device:
            return NotImplemented
        return self is not other

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (Device, (self.type, self.index))

    def __setattr__(self, name, value):
        # Devices are interned and compared with `is`: type and index are read-only, as
        # torch's. `backend` stays writable (set on a device's first use).
        if name == "backend":
            object.__setattr__(self, name, value)
        elif name in ("type", "index"):
            raise AttributeError(f"attribute '{name}' of 'torch.device' objects is not writable")
        else:
            raise AttributeError(f"'torch.device' object has no attribute '{name}'")

    def __delattr__(self, name):
        self.__setattr__(name, None)  # the same errors: nothing can be deleted

    def __enter__(self):
        # `with torch.device('cuda'):` changes the default device of factories.
        _default_stack().append(self)
        return self

    def __exit__(self, *exc):
        _default_stack().pop()
        return False


# torch's class is named `device` (type(d).__name__, `<class 'torch.device'>`): so is this one,
# published as minitorch.device, the name pickle then writes and finds it under.
Device.__name__ = Device.__qualname__ = "device"
Device.__module__ = "minitorch"

_interned: dict = {}
_backends: dict = {}


def _make(type_: str, index):
    key = (type_, index)
    d = _interned.get(key)
    if d is None:
        d = object.__new__(Device)
        setattr_ = object.__setattr__  # past Device.__setattr__, which refuses type and index
        setattr_(d, "type", type_)
        setattr_(d, "index", index)
        setattr_(d, "_str", type_ if index is None else f"{type_}:{index}")
        setattr_(d, "backend", _backends.get(type_))
        _interned[key] = d
    return d


def _typename(x) -> str:
    cls = type(x)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _parser_typename(x) -> str:
    """x's type as torch's argument parser shows a value no overload takes: "Tensor" for a
    tensor, element types for a list or tuple ("list of [int, float]", "tuple of (int,)")."""
    if any(c.__name__ == "Tensor" and c.__module__ == "minitorch" for c in type(x).__mro__):
        return "Tensor"
    if isinstance(x, (tuple, list)):
        items = ", ".join(_parser_typename(v) for v in x)
        if isinstance(x, list):
            return f"list of [{items}]"
        return f"tuple of ({items}{',' if len(x) == 1 else ''})"
    return _typename(x)


def _invalid_device(args) -> TypeError:
    """torch's parser error for a torch.device(...) call no signature takes (positional
    arguments only); one argument is also shown against the (torch.device device) signature."""
    got = ", ".join(_parser_typename(a).partition(" of ")[0] for a in args)
    why = ""
    if len(args) == 1:
        why = (
            "      didn't match because some of the arguments have invalid types: "
            f"(!{_parser_typename(args[0])}!)\n"
        )
    return TypeError(
        f"device() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n * (torch.device device)\n{why} * (str type, int index = -1)\n"
    )


def _device_call(args: tuple, kwargs: dict) -> Device:
    """torch.device(...) called with keywords, or with no or more than two arguments."""
    for k in kwargs:
        if k not in ("type", "index", "device"):
            raise unexpected_keyword("device", k)
    if "type" in kwargs and args:
        raise TypeError("device() got multiple values for argument 'type'")
    if not args and list(kwargs) == ["device"]:
        return device(kwargs["device"])
    named = dict(zip(("type", "index"), args, strict=False))
    named.update(kwargs)
    if len(args) > 2 or not named or "type" not in named or "device" in named:
        raise _invalid_device(args)
    return device(named["type"], named.get("index"))


def _parse(spec: str):
    """'cuda:1' -> ('cuda', 1), with torch's errors for malformed strings."""
    if not spec:
        raise RuntimeError("Device string must not be empty")
    type_, colon, idx = spec.partition(":")
    if not type_ or not all(c.isalpha() or c == "_" for c in type_) or not type_.isascii():
        raise RuntimeError(f"Invalid device string: '{spec}'")
    index = None
    if colon:
        if not (idx.isascii() and idx.isdigit()) or (len(idx) > 1 and idx[0] == "0"):
            raise RuntimeError(f"Invalid device string: '{spec}'")
        index = int(idx)
    if type_ not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_TORCH_DEVICE_TYPES)} device type at start of device "
            f"string: {type_}"
        )
    return type_, index


def device(spec, index=None) -> Device:
    """Parse 'cpu', 'cuda', 'cuda:1', ('cuda', 1), a Device, or an int (a CUDA ordinal: the
    accelerator's, so torch's RuntimeError where no GPU is present). The index may be a NumPy
    integer, as in torch."""
    if spec.__class__ is Device:
        if index is not None:
            raise TypeError("device(): argument 'type' (position 1) must be str, not torch.device")
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        if index is not None:
            raise TypeError("device(): argument 'type' (position 1) must be str, not int")
        if spec < 0:
            raise RuntimeError("Device index must not be negative")
        from minitorch._backend import cupy_backend

        if not cupy_backend.cuda_available():  # torch: an int names the current accelerator
            raise RuntimeError("Cannot access accelerator device when none is available.")
        return _make("cuda", int(spec))
    if not isinstance(spec, str):
        if isinstance(spec, bytes):  # torch's parser reads bytes as a str
            return device(spec.decode(), index)
        raise _invalid_device((spec,)) if index is None else TypeError(
            f"device(): argument 'type' (position 1) must be str, not {_typename(spec)}"
        )
    type_, parsed = _parse(spec)
    if index is not None:
        if isinstance(index, bool) or not isinstance(index, int):
            if getattr(getattr(index, "dtype", None), "kind", None) in ("i", "u") and hasattr(
                index, "__index__"
            ):  # a NumPy integer (np.int64(1)), taken as torch takes it; not np.bool_
                return device(spec, int(index))
            raise TypeError(
                f"device(): argument 'index' (position 2) must be int, not {_typename(index)}"
            )
        if parsed is not None:
            raise RuntimeError(
                "type (string) must not include an index because index was passed explicitly: "
                f"{spec}"
            )
        if index < 0:
            raise RuntimeError("Device index must not be negative")
        parsed = int(index)
    return _make(type_, parsed)


cpu = _make("cpu", None)

# The CUDA device that 'cuda' without an index means (minitorch.cuda.set_device changes it).
_cuda_current = 0


def current_cuda_index() -> int:
    return _cuda_current


def set_current_cuda_index(index: int) -> None:
    global _cuda_current
    _cuda_current = index


def tensor_device(spec) -> Device:
    """The canonical device a tensor made for `spec` lives on: any 'cpu:N' is 'cpu', 'cuda' is
    the current CUDA device ('cuda:0' unless set_device changed it), as in torch."""
    d = spec if spec.__class__ is Device else device(spec)
    if d.type == "cpu":
        return cpu
    if d.index is None and d.type == "cuda":
        return _make("cuda", _cuda_current)
    if d.type in ("strict", "meta") and d.index is not None:
        return _make(d.type, None)  # one strict device, one meta: an index means nothing
    return d


class Backend:
    """What a device kind provides: `xp` (numpy or cupy-like module) and the helpers the two
    modules spell differently. Subclasses: NumpyBackend, CupyBackend, StrictBackend."""

    name = "abstract"
    xp = None

    def from_host(self, array, device):
        """A host (NumPy) array copied onto `device`; no copy for the CPU backend."""
        raise NotImplementedError

    def to_host(self, array):
        """An explicit device-to-host copy as a NumPy array (shares memory on CPU)."""
        raise NotImplementedError

    def from_host_nonblocking(self, array, device):
        """from_host for `.to(device, non_blocking=True)`: asynchronous on the current stream
        where the backend can (CuPy, from pinned memory); otherwise from_host."""
        return self.from_host(array, device)

    def to_host_nonblocking(self, array):
        """to_host for `.to('cpu', non_blocking=True)`: CuPy copies into pinned memory on the
        current stream and returns before the copy is done; otherwise to_host."""
        return self.to_host(array)

    def is_array(self, obj) -> bool:
        raise NotImplementedError

    def data_ptr(self, array) -> int:
        """The address of the array's first element (for Tensor.data_ptr and storage_offset)."""
        raise NotImplementedError

    def select(self, cond, a, b):
        """xp.where(cond, a, b) for arrays a and b of one dtype (NumPy's is branch-free: NOTE [
        Branch-free selects ] in numpy_backend.py)."""
        return self.xp.where(cond, a, b)

    def keep(self, cond, g):
        """xp.where(cond, g, 0) for an array g (branch-free on NumPy, as select)."""
        return self.xp.where(cond, g, self.xp.zeros((), g.dtype))

    def scatter_add(self, target, index, values):
        """target[index] += values with duplicate indices accumulating (never a lost update)."""
        self.ufunc_at(self.xp.add, target, index, values)

    def ufunc_at(self, ufunc, target, index, values):
        """ufunc.at(target, index, values) for one of xp's ufuncs (add, maximum, minimum,
        multiply, ...): target[index] = ufunc(target[index], values), duplicate indices applied
        in turn (NumPy's goes through one flat index: NOTE [ Flat scatter keys ] in
        numpy_backend.py). CuPy's ufunc.at is a few atomic kernels, for the ufuncs and dtypes
        of DEVICE_UFUNC_AT only; the rest goes another way here, with the same results: an
        int64 sum as a uint64 one (two's complement: the same bits), a narrower dtype in a
        wider one that has the kernel (exact: wrapping sums, extremes), anything else
        (multiply: scatter_reduce's 'prod'; int64 extremes) through _ufunc_at_sorted."""
        name = ufunc.__name__
        kernels = DEVICE_UFUNC_AT.get(name)
        dt = target.dtype
        if kernels is None:
            _ufunc_at_sorted(self.xp, ufunc, target, index, values)
        elif dt.name in kernels:
            ufunc.at(target, index, values)
        elif name == "add" and dt.name == "int64":
            xp = self.xp
            values = xp.asarray(values, dtype=dt).view(xp.uint64)
            ufunc.at(target.view(xp.uint64), index, values)
        elif _WIDER_AT.get(dt.name) in kernels:
            wide = target.astype(_WIDER_AT[dt.name])
            ufunc.at(wide, index, self.xp.asarray(values, dtype=dt))
            target[...] = wide.astype(dt)  # (a wrapped sum, or nonzero for bool: any)
        else:
            _ufunc_at_sorted(self.xp, ufunc, target, index, values)

    def bincount(self, x, size: int, weights=None):
        """xp.bincount(x, weights, minlength=size) for a 1-D int64 x whose values all lie in
        [0, size): int64 counts, or float64 sums of weights. No host read: a scatter-add into
        size slots (CuPy's bincount reads x on the host twice, to check it and to size its
        result; NumPy's is used on the CPU, see its override)."""
        xp = self.xp
        if weights is None:
            out = xp.zeros(size, dtype=xp.int64)
            self.scatter_add(out, x, xp.ones(x.shape, dtype=xp.int64))
        else:
            out = xp.zeros(size, dtype=xp.float64)
            self.scatter_add(out, x, weights.astype(xp.float64))
        return out

    def take_at(self, array, index):
        """array[index] for a tuple of index arrays and slices (NumPy's through one flat index)."""
        return array[index]

    def broadcast_to(self, array, shape):
        """A read-only view of `array` broadcast to `shape` (xp.broadcast_to)."""
        return self.xp.broadcast_to(array, shape)

    def segment_reduce(self, values, starts, op: str):
        """The sums ("sum"), maxima ("max") or minima ("min") of values along dim 0 over the
        segments that start at `starts` (a sorted int array whose first entry is 0), each
        running to the next start and the last to the end; an empty segment gives the op's
        identity (0, the dtype's lowest or highest value, -inf/inf for floats). No host read:
        a scatter by segment id. NumPy's reduces segment by segment (see its override)."""
        xp = self.xp
        n = values.shape[0]
        shape = (starts.shape[0],) + values.shape[1:]
        out = xp.full(shape, _identity(op, values.dtype), dtype=values.dtype)
        if n and starts.shape[0]:
            ids = xp.searchsorted(starts, xp.arange(n), side="right") - 1
            if op == "sum":
                self.scatter_add(out, ids, values)
            else:
                self.ufunc_at(xp.maximum if op == "max" else xp.minimum, out, ids, values)
        return out

    def special(self, name: str):
        """The array function of a special function NumPy lacks: 'erf', 'erfc', 'erfinv',
        'erfcx', 'ndtri', 'log_ndtr', 'lgamma', 'digamma', 'i0', 'i0e', 'i1', 'i1e', 'j0', 'j1'
        (x -> array), 'polygamma' ((n, x) -> array), 'gammainc', 'gammaincc', 'zeta' ((a, x) ->
        array), and 'y0', 'y1', 'k0', 'k1', 'k0e', 'k1e' (x -> array, or None where only SciPy
        has them and it is not installed); it may compute in a wider float dtype than x's. See
        NOTE [ Special functions ] in numpy_special.py."""
        raise NotImplementedError

    def synchronize(self, device):
        pass

    def device_context(self, device):
        """A context in which new arrays are allocated on `device` (CuPy: that GPU)."""
        return _NO_CONTEXT

    def owns_data(self, array) -> bool:
        """True when no other array can see `array`'s memory (used to steal gradients safely):
        it is not a view, or it views the whole of an array nothing else references (the
        transpose of a transposed weight gradient, see Linear in minitorch/_ops/nn_kernels.py)."""
        base = array.base
        if base is None:
            return True
        return (
            base.base is None
            and base.nbytes == array.nbytes
            and sys.getrefcount(base) <= _VIEW_ONLY_REFS
        )

    # --- random streams (a NumPy-style Generator per minitorch.Generator) ---

    def make_rng(self, seed: int):
        raise NotImplementedError

    def rng_get_state(self, rng):
        """A picklable snapshot of the generator's stream."""
        return rng.bit_generator.state

    def rng_set_state(self, rng, state) -> None:
        rng.bit_generator.state = state

    def randperm(self, rng, n: int):
        """A random permutation of 0..n-1 as an int64 array."""
        return rng.permutation(n)


def strided_view(xp, array, shape, strides):
    """A view of `array`'s memory from its first element with the given shape and byte strides
    (xp.lib.stride_tricks.as_strided; nothing is checked). ml_dtypes' float8_e5m2 spells itself
    '<f1' in its array interface, a type NumPy cannot read back: such an array is strided as
    bytes and viewed back (NOTE [ Float8 dtypes ] in minitorch/_dtype.py)."""
    shape, strides = tuple(shape), tuple(strides)
    try:
        return xp.lib.stride_tricks.as_strided(array, shape=shape, strides=strides)
    except TypeError:
        out = xp.lib.stride_tricks.as_strided(array.view(xp.uint8), shape=shape, strides=strides)
        return out.view(array.dtype)


def _identity(op: str, dtype):
    """The Python number of `dtype` that the segment op `op` leaves any value unchanged by."""
    import numpy as np  # dtype metadata only (iinfo): no kernel runs here

    if op == "sum":
        return 0
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -math.inf if op == "max" else math.inf
    info = np.iinfo(dtype)
    return int(info.min if op == "max" else info.max)


_NO_CONTEXT = contextlib.nullcontext()

# The dtypes of CuPy's (14) ufunc.at kernels, by ufunc (atomic operations; others raise
# there): Backend.ufunc_at goes another way for the rest, and the strict device refuses them.
_EXTREME_AT = frozenset({"int32", "uint32", "uint64", "float32", "float64"})
_BITWISE_AT = frozenset({"int32", "int64", "uint32", "uint64"})
DEVICE_UFUNC_AT = {
    "add": frozenset({"int32", "uint32", "uint64", "float16", "float32", "float64"}),
    "subtract": frozenset({"int32", "uint32"}),
    "maximum": _EXTREME_AT,
    "minimum": _EXTREME_AT,
    "bitwise_and": _BITWISE_AT,
    "bitwise_or": _BITWISE_AT,
    "bitwise_xor": _BITWISE_AT,
}
# The dtype a narrower one scatters in where it has no kernel of its own (its results exactly).
_WIDER_AT = {
    "bool": "int32", "int8": "int32", "uint8": "int32", "int16": "int32", "uint16": "int32",
    "float16": "float32",
}  # fmt: skip


def _ufunc_at_sorted(xp, ufunc, target, index, values) -> None:
    """ufunc.at without ufunc.at, for an associative and commutative ufunc (multiply): the
    writes sorted by the position they hit (its flat place in target, read off an arange),
    each run of one position combined by a log-step segmented scan (log2(n) whole-array
    passes, no host read), then one write per position. The order in which a position's
    values combine differs from NumPy's sequential one (as it does between torch's CPU and
    GPU kernels)."""
    pos = xp.arange(target.size, dtype=xp.int64).reshape(target.shape)[index]
    n = pos.size
    if n == 0:
        return
    vals = xp.broadcast_to(xp.asarray(values, dtype=target.dtype), pos.shape).reshape(-1)
    order = xp.argsort(pos.reshape(-1), kind="stable")
    pos = pos.reshape(-1)[order]
    run = vals[order]
    step = 1
    while step < n:  # run[i] = ufunc over run[i - 2 step + 1 .. i] within i's position
        same = pos[step:] == pos[:-step]
        both = ufunc(run[:-step], run[step:])
        run = xp.concatenate([run[:step], xp.where(same, both, run[step:])])
        step *= 2
    last = xp.concatenate([pos[1:] != pos[:-1], xp.ones(1, dtype=bool)])
    # The last of each run writes its position, the others a spare slot past the end: no
    # boolean mask and no unravel_index, whose result sizes and checks CuPy reads on the host.
    size = target.size
    dest = xp.where(last, pos, size)
    flat = xp.concatenate([target.reshape(-1), xp.zeros(1, dtype=target.dtype)])
    flat[dest] = ufunc(flat[dest], run)
    target[...] = flat[:size].reshape(target.shape)


class _DefaultDevices(threading.local):
    # a thread's `with device:` blocks; None until its first one (a class attribute: reading
    # it on a thread that never set it costs no AttributeError inside getattr, as a plain
    # threading.local's missing attribute would, on every factory call)
    stack = None


_default = _DefaultDevices()
_default_base = cpu  # set_default_device; `with device:` blocks stack above it per thread


class NullCtx:
    """The ctx built-in forwards get when no node is recorded (see Function.apply): saving is a
    no-op and no input needs grad. One per backend, so `xp` is fixed; attributes a forward sets
    on it are never read back by a backward."""

    __slots__ = ("xp", "__dict__")
    needs_input_grad = (False,) * 64

    def __init__(self, xp):
        self.xp = xp

    def save_for_backward(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass


def register_backend(type_: str, backend: Backend) -> None:
    # See NOTE [ The per-op path ] in minitorch/autograd/function.py
    backend.null_ctx = NullCtx(backend.xp)
    _backends[type_] = backend
    for (t, _), d in _interned.items():
        if t == type_:
            d.backend = backend


def backend_of(dev: Device) -> Backend:
    """The backend that runs kernels for `dev` (imports CuPy on first use of a CUDA device)."""
    b = dev.backend
    if b is None:
        b = _backends.get(dev.type)
        if b is None:
            b = _load(dev.type)
        dev.backend = b
    return b


def _load(type_: str) -> Backend:
    if type_ == "cuda":
        from minitorch._backend import cupy_backend

        reason = cupy_backend.unavailable_reason()
        if reason is not None:
            raise CudaUnavailableError(f"CUDA is not available: {reason}")
        b = cupy_backend.CupyBackend()
    elif type_ == "strict":
        from minitorch._backend.strict import StrictBackend

        b = StrictBackend()
    elif type_ == "meta":
        from minitorch._backend.meta import MetaBackend

        b = MetaBackend()  # NOTE [ The meta device ]
    else:
        # See NOTE [ Device types ]: the device object exists, its tensors cannot (torch says
        # "PyTorch is not linked with support for mps devices" in a build without them).
        raise RuntimeError(
            f"minitorch is not linked with support for {type_} devices: tensors live on cpu, "
            "cuda or meta only"
        )
    register_backend(type_, b)
    return b


def _default_stack() -> list:
    stack = _default.stack
    if stack is None:
        stack = _default.stack = []
    return stack


default_device_stack = _default_stack


def default_device() -> Device:
    """The device factories use when none is given: the innermost `with device:` block, else the
    one set by set_default_device (CPU at start)."""
    stack = _default.stack
    return stack[-1] if stack else _default_base


def set_default_device(device) -> None:
    """Sets the device factories use by default (None: back to CPU). Mirrors
    torch.set_default_device."""
    global _default_base
    _default_base = cpu if device is None else _make_device(device)


_make_device = device  # (set_default_device's parameter is named `device`, as torch's)

from minitorch._backend import host_memory  # noqa: E402
from minitorch._backend.numpy_backend import NumpyBackend  # noqa: E402

register_backend("cpu", NumpyBackend())
host_memory.tune()


def _view_only_refs():
    """sys.getrefcount of an array's base inside owns_data when the view alone holds it."""

    class Probe:
        base = None

    class Owner:
        base = None
        nbytes = 0

    probe = Probe()
    probe.base = Owner()
    base = probe.base
    count = sys.getrefcount(base)
    del base
    return count


_VIEW_ONLY_REFS = _view_only_refs()
