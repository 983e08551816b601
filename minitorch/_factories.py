"""Tensor factories: tensor, as_tensor, from_numpy, from_file, zeros/ones/full/empty(_like),
empty_permuted, ranges, eye, and the legacy constructors (torch.Tensor(2, 3), torch.FloatTensor)."""

from __future__ import annotations

import inspect
import math
import operator
import os
import warnings

import numpy as np

from minitorch import _dtype, _memory_format, _settings
from minitorch._arg_errors import (
    NOT_GIVEN,
    REQUIRED,
    arity_error,
    missing_positional,
    too_many_positional,
    unexpected_keyword,
)
from minitorch._backend import Device, backend_of, cpu, default_device, strided_view, tensor_device
from minitorch._tensor import Size, Tensor, _make, _tp_name, _warn_scalar_of_grad
from minitorch._tensor_methods import _at

# fmt: off
__all__ = [
    "tensor", "as_tensor", "asarray", "from_numpy", "from_file", "zeros", "ones", "full", "empty",
    "empty_permuted", "zeros_like", "ones_like", "full_like", "empty_like", "arange", "range",
    "linspace", "logspace", "eye", "scalar_tensor", "FloatTensor", "DoubleTensor", "HalfTensor",
    "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
    "BoolTensor",
]
# fmt: on

_builtin_range = range

# ---------------------------------------------------------------------------------------------
# Arguments shared by the factories (and by the samplers in minitorch.random)


def _device(device) -> Device:
    """The canonical device a new tensor goes on (the default device when None)."""
    if device is None:
        device = default_device()
        if device is cpu:
            return cpu
    elif device is cpu or (device.__class__ is str and device == "cpu"):
        return cpu  # (tensor_device's answer, without parsing)
    try:
        return tensor_device(device)
    except TypeError:
        if isinstance(device, (str, int, Device)):
            raise
        # torch's parser refuses it before any device() parsing (the factory named)
        raise TypeError(
            f"{_called()}(): argument 'device' must be torch.device, not {_tp_name(device)}"
        ) from None


def _dtype_arg(dtype, default, op: str):
    if dtype is None:
        return default
    if dtype.__class__ is _dtype.dtype:
        return dtype
    return _dtype.to_dtype(dtype, op)


def _typename(x) -> str:
    """A value's type as torch's argument errors name it: 'int', 'Tensor', 'torch.dtype', ..."""
    cls = type(x)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    if isinstance(x, Tensor):
        return "Tensor"
    if cls is _dtype.dtype:
        return "torch.dtype"
    if cls is Device:
        return "torch.device"
    name = f"{cls.__module__}.{cls.__qualname__}"
    if name.startswith("minitorch."):  # (torch.Size, torch.layout, torch._C.Generator, ...)
        return "torch" + name[9:]
    return name


def _as_int(x):
    """x as a Python int when it is an integer (not a bool), else None."""
    if x.__class__ is int:
        return x
    if isinstance(x, (bool, np.bool_)):
        return None
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, Tensor) and x.ndim == 0 and x.dtype._kind == 1:  # an integer 0-d tensor
        return int(x)
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iu":  # np.array(3), as torch
        return int(x)
    return None


def _size_int(x):
    """A size element as a Python int, else None: _as_int's ints, and (as torch's int[] parser
    reads them) one-element integer tensors of any ndim. See NOTE [ Int-like arguments ]."""
    if isinstance(x, Tensor) and x._data.size == 1 and x.dtype._kind == 1:
        return int(x)
    n = _as_int(x)
    if n is None and not isinstance(x, (Tensor, np.ndarray, np.generic, bool)):
        # any other object with __index__ (a SymInt-like wrapper): torch's parser takes it
        index = getattr(type(x), "__index__", None)
        if index is not None:
            return operator.index(x)
    return n


def _shape(args: tuple, size, op: str, pos: int = 1) -> tuple:
    """zeros(2, 3), zeros((2, 3)), zeros([2, 3]), zeros(Size) and zeros(size=(2, 3)), with torch's
    errors; `pos` is the position of the size argument (for messages)."""
    if size is not None:
        if args:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        return _shape_seq(size, op, None)
    if not args:
        raise missing_positional(op, "size")
    a = args[0]
    # The common case first: non-negative Python ints, as varargs or one tuple/list/Size.
    seq = a if len(args) == 1 and a.__class__ in _SEQUENCES else args
    for n in seq:
        if n.__class__ is not int or n < 0:
            break
    else:
        return tuple(seq)
    if len(args) == 1:
        if a.__class__ is tuple or a.__class__ is list or a.__class__ is Size:
            return _shape_seq(a, op, pos)
        if _size_int(a) is None:
            return _shape_seq(a, op, pos)
    elif isinstance(a, (tuple, list, bool)) or _size_int(a) is None:
        # torch's parser reads varargs as a size only when the first one is an int; otherwise
        # the call matches no signature (zeros(n / 2, 3) with a float n / 2)
        if op in _NO_VARARGS_OVERLOADS:
            listed = "".join(f" * ({o})\n" for o in _NO_VARARGS_OVERLOADS[op])
            raise TypeError(
                f"{op}() received an invalid combination of arguments - got "
                f"({', '.join(_typename(x) for x in args)}), but expected one of:\n{listed}"
            )
        raise too_many_positional(op, len(args), 1)
    return _shape_seq(args, op, pos)


_SIZE_KWARGS = (
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False"
)
# The factories whose overloads torch lists when varargs do not start with an int.
_NO_VARARGS_OVERLOADS = {
    op: (
        f"tuple of ints size, *, torch.Generator generator, {_SIZE_KWARGS}",
        f"tuple of ints size, *, {_SIZE_KWARGS}",
    )
    for op in ("rand", "randn")
}


_SEQUENCES = (tuple, list, Size)

# NOTE [ The factories' common call ]
# zeros(32, 32), zeros((32, 32)), ones, empty and full of a float, with no keyword or with
# dtype=, device=, requires_grad=, run in every training loop (buffers, masks, targets), so
# their common case is read inline: a size of non-negative Python ints, as varargs or one
# tuple, list or Size, taken as NumPy's shape as it is (NumPy reads a list or Size as the
# tuple _shape returns); a dtype given as a dtype object; the default device or the CPU
# (_device's answer, without parsing). Anything else goes to the general helpers (_shape,
# _dtype_arg, _device), which give torch's errors in torch's order, so the inline tests
# only ever choose between two ways to the same tensor. requires_grad=False skips
# _require_grad, and memory_format=None _in_format (whose default is contiguous_format).


def _shape_seq(seq, op: str, pos) -> tuple:
    if seq.__class__ in _SEQUENCES:
        for n in seq:
            if n.__class__ is not int or n < 0:
                break
        else:
            return tuple(seq)
    where = _at(pos, "size", op)
    if not isinstance(seq, (tuple, list)):
        raise TypeError(
            f"{op}(): argument 'size'{where} must be tuple of ints, not {_typename(seq)}"
        )
    shape = []
    for i, s in enumerate(seq):
        n = s if s.__class__ is int else _size_int(s)
        if n is not None and not _INT64_MIN <= n < _INT64_END:
            raise unpack_overflow(op, i)
        if n is None and i > 0 and s.__class__ is bool:
            n = int(s)  # torch's parser checks the first element strictly, reads later bools
        if n is None:
            if i == 0:  # torch's text for a bad first element; as a keyword it names the seq
                if pos is None:
                    raise TypeError(
                        f"{op}(): argument 'size' must be tuple of ints, not {_typename(seq)}"
                    )
                raise TypeError(
                    f"{op}(): argument 'size'{where} must be tuple of ints, but found element of "
                    f"type {_typename(s)} at pos 0"
                )
            raise TypeError(
                f"{op}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {_typename(s)}"'
            )
        shape.append(n)
    for n in shape:
        if n < 0:
            if op == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {shape}")
    return tuple(shape)


def unpack_overflow(op: str, i: int) -> TypeError:
    """torch's parser error for element i of a size beyond int64 (its text continues with the
    C++ stack trace, left out here, before the closing quote)."""
    return TypeError(
        f"{op}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
        '"Overflow when unpacking long long\n"'
    )


def shape_error(shape, itemsize: int, op: str | None = None, error=None) -> Exception:
    """torch's error for a new tensor of `shape` that NumPy could not make (`error`, its
    ValueError or MemoryError): a dimension beyond int64 is the parser's unpacking error, a
    byte size from 2**63 on the storage size check's, a MemoryError the allocator's; another
    ValueError is `error` itself. Error paths only."""
    for i, n in enumerate(shape):
        if not _INT64_MIN <= n < _INT64_END:
            return unpack_overflow(op or _called(), i)
    nbytes = math.prod(shape) * itemsize
    if nbytes >= _INT64_END:
        return RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    if error is None or isinstance(error, MemoryError):
        return _alloc_error(nbytes)
    return error


def _size_kwarg(kwargs: dict, op: str):
    """The size= keyword of a factory taking *size (the only extra keyword allowed); kwargs is
    left as it is (rand's error path reads it)."""
    if not kwargs:
        return None
    for name in kwargs:
        if name != "size":
            raise unexpected_keyword(op, name)
    size = kwargs["size"]
    if size is None:  # (given: no size is missing, this one is of the wrong type)
        raise TypeError(f"{op}(): argument 'size' must be tuple of ints, not NoneType")
    return size


def check_layout(layout, op: str, dtype=None) -> None:
    """A factory's layout= that was given (not None): torch.strided, the one layout minitorch
    has, passes; anything else is torch's TypeError naming the argument, or a `dtype` of no
    dtype type before it (a factory of several overloads turns either into their listing: NOTE
    [ Factory option errors ])."""
    from minitorch._ops.tensor_misc import layout as layout_type

    if layout.__class__ is not layout_type:
        if dtype is not None:  # (torch's parser reads dtype before layout)
            _dtype_arg(dtype, None, op)
        raise TypeError(f"{op}(): argument 'layout' must be torch.layout, not {_typename(layout)}")


def _require_grad(t: Tensor, requires_grad) -> Tensor:
    if requires_grad.__class__ is not bool:
        requires_grad = bool_flag(requires_grad, "requires_grad")
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t._requires_grad = True
    return t


# NOTE [ Bool keywords of the factories ]
# torch's parser takes only a bool for requires_grad= and pin_memory= ("zeros(): argument
# 'requires_grad' must be bool, not int"; 1, "yes", np.bool_(True) and a tensor are refused),
# and None where the schema's option is optional (zeros, full, the *_like and new_* factories,
# empty_strided, scalar_tensor), not for tensor, new_tensor, range and frombuffer. The shared
# helpers (_require_grad, _check_pin_memory) test `value.__class__ is not bool` and only then
# call bool_flag, which names the factory the user called (_call_site.called_name).
_NO_NONE_FLAGS = frozenset({"tensor", "new_tensor", "range", "frombuffer"})


def _called() -> str:
    """The factory the user's code called (a zeros() in a module's forward names zeros): for
    the argument errors of NOTE [ Bool keywords of the factories ]. Error paths only."""
    from minitorch._call_site import called_name

    return called_name(through_nn=True) or "tensor"


def bool_flag(value, name: str) -> bool:
    """A factory's requires_grad= or pin_memory= that is no bool: False for None where the
    factory takes None, else torch's TypeError. See NOTE [ Bool keywords of the factories ]."""
    op = _called()
    if value is None and op not in _NO_NONE_FLAGS:
        return False
    raise TypeError(f"{op}(): argument '{name}' must be bool, not {_tp_name(value)}")


def _build(fn, dev: Device):
    """fn(xp) run by the device's backend, so the array is made on the device (no host copy)."""
    if dev is cpu:
        return fn(np)
    b = backend_of(dev)
    with b.device_context(dev):
        return fn(b.xp)


def _put(host: np.ndarray, dev: Device):
    """A host array (owned by the caller) moved onto `dev`; no copy on the CPU."""
    if dev is cpu:
        return host
    b = backend_of(dev)
    with b.device_context(dev):
        return b.from_host(host, dev)


# NOTE [ Values converted into an integer dtype ]
# torch checks each Python number stored into an integer tensor (tensor(), full()): a value out
# of the dtype's range is an error, except that an unsigned type also takes negative values down
# to -max, wrapping them (tensor(-1, dtype=torch.uint8) is 255); NaN and infinities are errors;
# floats are truncated toward zero. Floating dtypes take any value (overflow gives inf).


def _check_int_range(src: np.ndarray, dt, name: str | None = None) -> None:
    """RuntimeError for a value of src that integer dtype dt cannot hold, naming the type as
    `name` (tensor() says "uint8") or else in c10's spelling (full() says "uint8_t")."""
    if dt._kind != 1 or src.size == 0:  # only integer targets are checked
        return
    info = np.iinfo(dt.np)
    if src.dtype.kind == "f":
        lo, hi = float(src.min()), float(src.max())
        # c10 compares in double: int64's maximum reads as 2.0**63, so 2.0**63 passes (and
        # converts to -2**63, as a C cast does)
        bad = not (math.isfinite(lo) and math.isfinite(hi))
        bad = bad or lo < float(info.min) or hi > float(info.max)
    elif src.dtype.kind in "iu":
        lo, hi = int(src.min()), int(src.max())
        if info.min == 0:
            bad = hi > info.max or -lo > info.max
        else:
            bad = lo < info.min or hi > info.max
    else:
        return
    if bad:
        if name is None:
            raise _dtype.overflow_error(dt.np.name)
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


# ---------------------------------------------------------------------------------------------
# tensor(): nested Python data
#
# NOTE [ Inferring a tensor from data ]
# As torch: the shape follows the first element at each depth (a Tensor element is a scalar
# there); every sequence must have that length ("expected sequence of length 2 at dim 1 (got 3)");
# the dtype promotes over all elements, a Python bool/int/float counting as bool/int64/the default
# float, a NumPy scalar or array and a Tensor as their own dtypes; an empty sequence is the default
# float dtype.

_INT64_MIN = -(1 << 63)
_INT64_END = 1 << 63

_PLAIN = frozenset({int, float, bool})
_PLAIN_DTYPE = {bool: "bool", int: "int64"}


def _is_seq(x) -> bool:
    cls = x.__class__
    if cls is list or cls is tuple:
        return True
    if cls in _PLAIN:
        return False
    if isinstance(x, (str, bytes, dict, Tensor, np.ndarray, np.generic)):
        return False
    return hasattr(cls, "__getitem__") and hasattr(cls, "__len__")


class _Scan:
    """What one pass over nested data finds: leaf dtypes, and whether leaves need converting."""

    __slots__ = ("types", "dtypes", "special", "bad_leaf", "infer", "converted")

    def __init__(self, infer: bool = True):
        self.types = set()  # Python types of plain leaves
        self.dtypes = []  # dtypes of Tensor / NumPy leaves and blocks
        self.special = False  # some leaf is not a plain Python number
        self.bad_leaf = None  # a block (array, Tensor) with more dims than the data's shape
        # torch infers a dtype only when none is given; given one, it converts each element
        # (float() or __index__), so None or a str fails there, in its own words (_element)
        self.infer = infer
        self.converted = False  # some leaf is to be converted by _element

    def leaf(self, v) -> None:
        cls = v.__class__
        if cls in _PLAIN:
            self.types.add(cls)
            return
        self.special = True
        if isinstance(v, Tensor):
            self.dtypes.append(v.dtype)
        elif isinstance(v, np.generic) and v.dtype.kind in "biuf":
            self.dtypes.append(_dtype.from_numpy(v.dtype))
        elif isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "biuf":
            # a 0-d array after a number (loss.numpy() in a list of losses): a scalar, as torch
            self.dtypes.append(_dtype.from_numpy(v.dtype))
        elif not self.infer and not isinstance(v, (complex, np.complexfloating)):
            self.converted = True
        elif isinstance(v, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{cls.__name__}'")
        elif isinstance(v, (complex, np.complexfloating)):
            raise TypeError("tensor(): minitorch has no complex dtypes")
        elif isinstance(v, bool):
            self.types.add(bool)
        elif isinstance(v, int):
            self.types.add(int)
        elif isinstance(v, float):
            self.types.add(float)
        elif isinstance(v, np.ndarray):
            # a sequence where a number belongs: its dtype counts (torch infers before it
            # stores), then storing it as a number fails (_element)
            self.converted = True
            self.dtypes.append(_dtype.from_numpy(v.dtype))
        elif _is_seq(v):
            self.converted = True
            if len(v) == 0:
                self.types.add(float)  # torch infers an empty sequence as the default dtype
            for i in _builtin_range(len(v)):
                self.leaf(v[i])
        else:
            raise RuntimeError(f"Could not infer dtype of {_tp_name(v)}")

    def block(self, arr, dim: int, shape: list) -> None:
        """An ndarray or Tensor standing for the sub-sequence at depth `dim`."""
        self.special = True
        want = shape[dim:]
        got = arr.shape
        for k, (w, g) in enumerate(zip(want, got, strict=False)):
            if w != g:
                raise ValueError(f"expected sequence of length {w} at dim {dim + k} (got {g})")
        if len(got) < len(want):
            raise TypeError("not a sequence")
        if len(got) > len(want) and self.bad_leaf is None:
            self.bad_leaf = arr
        self.dtypes.append(arr.dtype if isinstance(arr, Tensor) else _dtype.from_numpy(arr.dtype))

    def source_kind(self) -> str:
        """The kind NumPy builds the given-dtype data in before converting: 'f' when any leaf
        is floating, 'b' when all are bool, else 'i' (no promotion, so no uint64 error: torch
        infers nothing when a dtype is given)."""
        kinds = {d._kind for d in self.dtypes}
        if float in self.types or 2 in kinds:
            return "f"
        if kinds <= {0} and self.types <= {bool}:
            return "b"
        return "i"

    def dtype(self):
        dts = list(self.dtypes)
        for cls in self.types:
            if cls is float:
                dts.append(_dtype.default_float())
            else:
                dts.append(getattr(_dtype, _PLAIN_DTYPE[cls]))
        if not dts:
            return _dtype.default_float()
        out = dts[0]
        for d in dts[1:]:
            out = _dtype.promote_types(out, d)
        return out


def _sizes(data) -> list:
    shape = []
    x = data
    while True:
        if isinstance(x, np.ndarray):
            if shape and not x.ndim:  # torch measures a first element that is an array
                raise TypeError("len() of unsized object")
            shape.extend(x.shape)
            return shape
        if isinstance(x, str) and shape:  # torch measures a string as one more dim
            raise ValueError("too many dimensions 'str'")  # (np.str_ too)
        if not _is_seq(x):
            return shape
        n = len(x)
        shape.append(n)
        if n == 0:
            return shape
        x = x[0]


def _walk(seq, dim: int, shape: list, scan: _Scan) -> None:
    n = len(seq)
    if n != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {n})")
    if dim == len(shape) - 1:
        types = set(map(type, seq))
        if types <= _PLAIN:
            scan.types |= types
        else:
            for v in seq:
                scan.leaf(v)
        return
    for item in seq:
        if item.__class__ is list or item.__class__ is tuple:
            _walk(item, dim + 1, shape, scan)
        elif isinstance(item, (np.ndarray, Tensor)):
            scan.block(item, dim + 1, shape)
        elif _is_seq(item):
            scan.special = True
            # items by index, as torch reads a sequence (a pandas Series iterates as Python
            # floats but indexes as NumPy scalars: their dtype counts, float64 stays float64)
            _walk([item[i] for i in _builtin_range(len(item))], dim + 1, shape, scan)
        else:
            raise TypeError("not a sequence")


def _check_integral_leaf(x, kind: int) -> None:
    """A NumPy scalar going into an integer (kind 1) or bool (kind 0) tensor: torch reads it
    with __index__ unless it is a Python float (np.float64), so np.float32(2.5) or np.float16
    is refused, and np.bool_ too for an integer dtype; a 0-d array must hold an integer."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return
    if isinstance(x, np.floating) and not isinstance(x, float):
        bad = True
    else:
        bad = kind == 1 and isinstance(x, np.bool_)
    if bad:
        raise TypeError(f"'numpy.{type(x).__name__}' object cannot be interpreted as an integer")


def _plain(x, depth: int, kind):
    """Nested data with every leaf a Python number (Tensors and NumPy values read out); a Tensor
    leaf converts as torch converts it into the target: __index__ for integers and bool, else
    __float__. `kind` is the target's: 1 integer, 0 bool (see _check_integral_leaf), None a
    float dtype."""
    if depth == 0:
        if isinstance(x, Tensor):
            if kind is not None and x.dtype.is_floating_point:
                raise TypeError(
                    "only integer tensors of a single element can be converted to an index"
                )
            if kind is not None:
                return x.__index__()
            if x.numel() != 1:
                raise ValueError("only one element tensors can be converted to Python scalars")
            if x._requires_grad:  # torch reads each element as float(t): the gradient is lost
                _warn_scalar_of_grad()
            return x.item()
        if isinstance(x, np.generic) or (isinstance(x, np.ndarray) and not x.ndim):
            if kind is not None:
                _check_integral_leaf(x, kind)
            return x.item()
        if x.__class__ in _PLAIN or isinstance(x, (bool, int, float)):
            return x
        return _element(x, kind)  # None, a sequence, an object with __float__...
    if isinstance(x, (Tensor, np.ndarray)):
        return x.tolist()
    return [_plain(v, depth - 1, kind) for v in x]


def _bad_leaf_error(leaf, dt) -> Exception:
    try:
        _element(leaf, dt._kind if dt._kind <= 1 else None)
    except (TypeError, ValueError) as e:
        return e
    return TypeError(f"must be real number, not {_tp_name(leaf)}")  # pragma: no cover


def _element(x, kind):
    """One element of data that is not a number, converted as torch stores it into a dtype of
    `kind` (1 integer, 0 bool: __index__; None, floating: float(), but never from a str), with
    the errors that raises ("must be real number, not NoneType", NumPy's own for an array)."""
    if kind is not None:
        return operator.index(x)
    cls = type(x)
    if isinstance(x, (str, bytes)) or not (hasattr(cls, "__float__") or hasattr(cls, "__index__")):
        raise TypeError(f"must be real number, not {_tp_name(x)}")
    return float(x)


_FLOAT32_MAX = 3.4028234663852886e38


def _plain_rows(data):
    """The leaves of a list of equally long, non-empty lists of Python numbers (a matrix written
    out: tensor([[1., 2.], [3., 4.]])) as one flat list, else None."""
    n = len(data[0])
    if not n:
        return None
    leaves = []
    for row in data:
        if row.__class__ is not list or len(row) != n:
            return None
        leaves += row
    return leaves


def _fast_plain(data, dt):
    """tensor() of a Python number, a flat list of them or a list of equally long lists of them
    (the common cases), without the general walk: (array, dtype), or None to take the general
    path. Each leaf is converted as the general path converts it (np.array of the nested list in
    the dtype the types give)."""
    cls = data.__class__
    if cls is list:
        if data and data[0].__class__ is list:  # (a matrix: its leaves' types)
            leaves = _plain_rows(data)
            if leaves is None:
                return None
        else:
            leaves = data
        types = set(map(type, leaves))
        if not types or not types <= _PLAIN:
            return None
    elif cls in _PLAIN:
        types = {cls}
    else:
        return None
    if float in types:
        dt = _dtype.default_float() if dt is None else dt
        if dt is _dtype.float32:
            # A value beyond float32's range becomes inf with a NumPy warning: the general path.
            biggest = max(map(abs, leaves)) if cls is list else abs(data)
            if not biggest < _FLOAT32_MAX:
                return None
        elif dt is not _dtype.float64:
            return None
    else:
        inferred = _dtype.int64 if int in types else _dtype.bool
        dt = inferred if dt is None else dt
        if dt is not inferred:
            if inferred is _dtype.int64 and (dt is _dtype.float32 or dt is _dtype.float64):
                # ints into a float dtype: read as int64, then cast (the general path's steps;
                # no int64 is beyond float32's range, so the cast never warns)
                try:
                    return np.array(data, dtype=np.int64).astype(dt.np), dt
                except OverflowError:
                    return None
            return None
    try:
        return np.array(data, dtype=dt.np), dt
    except OverflowError:  # an int beyond int64: the general path raises torch's error
        return None


def _host_from_data(data, dt):
    """Nested Python data as a host array of dtype `dt` (None: inferred); returns (array, dtype)."""
    fast = _fast_plain(data, dt)
    if fast is not None:
        return fast
    if isinstance(data, (str, bytes)):  # (np.str_ too: torch names it numpy.str_)
        raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
    shape = _sizes(data)
    scan = _Scan(infer=dt is None)
    if shape:
        if _is_seq(data) and not isinstance(data, (list, tuple)):
            data = list(data)
        if data and isinstance(data[0], np.ndarray):
            # torch's TORCH_WARN_ONCE: once per process, not once per call
            _settings.warn_once(
                "list_of_ndarrays",
                "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                "consider converting the list to a single numpy.ndarray with numpy.array() before "
                "converting to a tensor.",
            )
        if not math.prod(shape):
            # torch infers empty data's dtype but stores (and checks) no element: [(), 2] is a
            # (2, 0) tensor
            if dt is None:
                scan.infer = True
                for i in _builtin_range(len(data)):
                    scan.leaf(data[i])
                dt = scan.dtype()
            return np.zeros(shape, dtype=_dtype.numpy_dtype(dt)), dt
        try:
            _walk(data, 0, shape, scan)
        except (TypeError, ValueError):
            if dt is None:  # torch infers the dtype first: [(1,), None] cannot be inferred
                whole = _Scan()
                for i in _builtin_range(len(data)):
                    whole.leaf(data[i])
            else:  # torch stores each element as it walks: an element before the bad one fails
                _convert_before_error(data, shape, dt)
            raise
    else:
        scan.leaf(data)
    if dt is None:
        dt = scan.dtype()
    if scan.bad_leaf is not None:
        raise _bad_leaf_error(scan.bad_leaf, dt)
    if dt is _dtype.uint64:  # torch reads each number as a C unsigned long long
        return _uint64_leaves(data, len(shape), scan), dt
    if dt._kind == 1:
        return _int_array(data, shape, scan, dt), dt
    if scan.special:
        data = _plain(data, len(shape), 0 if dt is _dtype.bool else None)
    # Build in the widest type of the data's kind, then convert.
    src_kind = ("b" if dt is _dtype.bool else "f") if scan.converted else scan.source_kind()
    src_dt = np.float64 if src_kind == "f" else np.bool_ if src_kind == "b" else np.int64
    try:
        src = np.array(data, dtype=src_dt)
    except OverflowError:
        # an int beyond int64 (a factorial): torch converts it to a floating or bool dtype
        if dt.is_floating_point:
            src = np.array(data, dtype=np.float64)
        else:  # (an array even for 0-d data: the comparison of a 0-d array is a NumPy scalar)
            src = np.asarray(np.array(data, dtype=object) != 0, dtype=np.bool_)
    if src.shape != tuple(shape):  # pragma: no cover - the walk above checked the shape
        raise ValueError(f"tensor(): inconsistent nested data of shape {src.shape}")
    npdt = _dtype.numpy_dtype(dt)
    if src.dtype == npdt:
        return src, dt
    with np.errstate(over="ignore", invalid="ignore"):
        if dt.is_floating_point and (src.dtype.kind == "f" or dt.itemsize == 1):
            # (bfloat16's NumPy kind is 'V'; ints into float8 round as torch's, via float32)
            return _from_double(src, npdt), dt
        return src.astype(npdt), dt


_EXACT_IN_DOUBLE = float(2**53)


def _int_array(data, shape: list, scan: _Scan, dt) -> np.ndarray:
    """Nested data (not all plain floats and ints of one dtype, _fast_plain's) into integer dtype
    dt, but uint64: built at once in int64 or float64 and range-checked; where that fails, or
    float64 would round an int (ints and floats mixed), converted leaf by leaf (_int_leaves),
    which gives torch's values and the first bad element's error."""
    floats = False
    try:
        plain = _plain(data, len(shape), 1) if scan.special else data
        floats = scan.source_kind() == "f"
        src = np.array(plain, dtype=np.float64 if floats else np.int64)
        _check_int_range(src, dt, dt.name)
    except (TypeError, ValueError, OverflowError, RuntimeError):
        src = None  # (_int_leaves raises the error of the first bad element)
    if src is None or (
        floats
        and (scan.special or int in scan.types)
        and src.size
        and float(np.abs(src).max()) >= _EXACT_IN_DOUBLE
    ):
        src = _int_leaves(data, len(shape), dt).reshape(shape)
    npdt = dt.np
    if src.dtype == npdt:
        return src
    with np.errstate(over="ignore", invalid="ignore"):
        return src.astype(npdt)


def _uint64_leaves(data, depth: int, scan: _Scan) -> np.ndarray:
    """Nested data as a uint64 array, as torch reads it for uint64: each number a C unsigned
    long long, so only Python ints and bools pass ("an integer is required" for a float, a
    NumPy scalar, a tensor or an array), no wrap below 0 and CPython's OverflowError outside
    [0, 2**64), the first bad element's error."""
    if not scan.special and float not in scan.types:
        try:
            return np.array(data, dtype=np.uint64)
        except OverflowError:
            pass
    for x in _nested_leaves(data, depth, False):
        _check_uint64_leaf(x)
    return np.array(data, dtype=np.uint64)  # pragma: no cover - a leaf above raised


def _check_uint64_leaf(x) -> None:
    """torch's error for one element of data that uint64 cannot take (see _uint64_leaves)."""
    if not isinstance(x, int):
        raise TypeError("an integer is required")
    if not 0 <= x < _dtype.SCALAR_INT_END:
        raise _dtype.scalar_int_overflow(x)


def _int_leaves(data, depth: int, dt) -> np.ndarray:
    """The leaves of nested data converted one by one, in order, as torch converts them into
    integer dtype dt: a leaf is read as _plain reads it; an int is unpacked as a C long long
    (ValueError beyond it) and may wrap into an unsigned dtype down to -max (-3 into uint8 is
    253), a float must lie within the dtype's range compared in double (2.0**63 passes int64's
    and, cast as C casts it, is -2**63) and is truncated. As int64, flat."""
    info = np.iinfo(dt.np)
    lowest = -int(info.max) if info.min == 0 else int(info.min)
    bottom, top = float(info.min), float(info.max)
    out = []
    for x in _nested_leaves(data, depth, True):
        v = _plain(x, 0, 1)
        if isinstance(v, float):
            ok = bottom <= v <= top  # (NaN fails)
            if ok:
                v = int(v)
                if v == _INT64_END:
                    v = _INT64_MIN
        else:
            v = int(v)
            if not _INT64_MIN <= v < _INT64_END:
                raise ValueError("Overflow when unpacking long long")
            ok = lowest <= v <= info.max
        if not ok:
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
        out.append(v)
    return np.array(out, dtype=np.int64)


def _convert_before_error(data, shape: list, dt) -> None:
    """The error of the first element of nested data (lists and tuples of numbers) that dt
    cannot take, where one comes before the walk's own error (a sequence of the wrong length):
    torch converts each element as it reaches it, so [[1e40, 1], []] into int8 is an overflow.
    Returns where none does (the caller raises the walk's error). Error paths only."""
    kind = dt._kind if dt._kind <= 1 else None
    try:
        for x in _walk_order(data, 0, shape):
            if dt is _dtype.uint64:
                _check_uint64_leaf(x)
            elif dt._kind == 1:
                _int_leaves(x, 0, dt)
            else:
                _plain(x, 0, kind)
    except _WalkEnd:
        pass


class _WalkEnd(Exception):
    """Where _walk_order stops: the walk's own error comes here."""


def _walk_order(seq, dim: int, shape: list):
    """The leaves of nested lists and tuples in the order torch's walk reaches them, up to the
    first sequence of the wrong length or anything else _walk refuses (then _WalkEnd)."""
    if seq.__class__ is not list and seq.__class__ is not tuple or len(seq) != shape[dim]:
        raise _WalkEnd
    if dim == len(shape) - 1:
        yield from seq
        return
    for item in seq:
        yield from _walk_order(item, dim + 1, shape)


def _nested_leaves(data, depth: int, blocks: bool):
    """The leaves of nested data `depth` levels deep, in order; an array or tensor standing for
    a sub-sequence gives its elements as Python numbers (blocks=True) or is itself a leaf.
    (Module level: a nested function calling itself holds itself in a reference cycle.)"""
    if depth == 0:
        yield data
    elif isinstance(data, (np.ndarray, Tensor)):
        if blocks:
            yield from _nested_leaves(data.tolist(), depth, True)
        else:
            yield data
    else:
        for v in data:
            yield from _nested_leaves(v, depth - 1, blocks)


def _check_ndarray(a: np.ndarray):
    """The dtype of a NumPy array a tensor can wrap; torch's errors otherwise."""
    try:
        dt = _dtype.from_numpy(a.dtype)  # TypeError (unsupported) / ValueError (byte order)
    except ValueError:
        if any(s < 0 for s in a.strides):  # (torch reports a negative stride first)
            raise ValueError(_NEGATIVE_STRIDES_TEXT) from None
        raise
    itemsize = a.itemsize
    for s in a.strides:
        if s < 0 or s % itemsize:
            break
    else:
        return dt  # (the common case: the checks below, in one pass)
    if any(s < 0 for s in a.strides):
        raise ValueError(_NEGATIVE_STRIDES_TEXT)
    if any(s % a.itemsize for s in a.strides):  # a field of a structured (record) array
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy "
            "array to reallocate the memory."
        )
    return dt


_NEGATIVE_STRIDES_TEXT = (
    "At least one stride in the given numpy array is negative, and tensors with negative "
    "strides are not currently supported. (You can probably work around this by making a "
    "copy of your array  with array.copy().) "
)


def _numpy_copy_order(a: np.ndarray) -> str:
    """The NumPy order of a tensor's copy of array `a`: torch copies a NumPy array as it clones
    a tensor, keeping a dense array's layout (a Fortran-ordered `df.values` stays column-major,
    so its .view(-1) fails as torch's does) and a strided one's dimension order; a broadcast
    array is copied row-major (see _cast_order)."""
    from minitorch._ops.convert import _cast_order  # (ops load after the factories)

    return _cast_order(a)


_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)


def _copy_tensor(src: Tensor, dt, dev: Device):
    """A new array holding src's values with dtype dt on dev (device-to-device when they match),
    laid out as a cast's copy is: an expanded tensor's copy is row-major, as torch's (copies of
    `arange(T).expand(B, T)` must take .view(-1))."""
    from minitorch._ops.convert import _cast_order  # (ops load after the factories)

    npdt = _dtype.numpy_dtype(dt)
    order = _cast_order(src._data)
    if src._device is dev:
        return _from_double(src._data, npdt).astype(npdt, order=order, copy=True)
    host = src._device.backend.to_host(src._data)
    return _put(_from_double(host, npdt).astype(npdt, order=order, copy=True), dev)


_NO_PINNED_ALLOCATOR = (
    "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator "
    "is available on this system."
)


def check_options(op: str, layout, pin_memory, dtype=None) -> None:
    """A factory's layout= and pin_memory= where either was given (the caller tests `layout is
    not None or pin_memory is not False`, so a plain call pays one test): check_layout, then
    the pinned-memory check."""
    if layout is not None:
        check_layout(layout, op, dtype)
    if pin_memory is not False:
        _check_pin_memory(pin_memory)


def _check_pin_memory(pin_memory=True) -> None:
    """A factory's pin_memory=True: torch's RuntimeError where no GPU provides page-locked
    memory (checked only when asked, so the common factory call pays nothing); a pin_memory
    that is no bool: See NOTE [ Bool keywords of the factories ].

    Differences from torch: with a GPU the result is an ordinary (unpinned) CPU tensor;
    Tensor.pin_memory() pins one."""
    from minitorch._backend import cupy_backend

    if pin_memory.__class__ is not bool and not bool_flag(pin_memory, "pin_memory"):
        return
    if not cupy_backend.cuda_available():
        raise RuntimeError(_NO_PINNED_ALLOCATOR)


def tensor(
    data=REQUIRED, *, dtype=None, device=None, requires_grad=False, pin_memory=False
) -> Tensor:
    """A new tensor copying `data` (nested sequences, numbers, NumPy arrays, tensors).

    Mirrors torch.tensor; see NOTE [ Inferring a tensor from data ].
    """
    if data is REQUIRED:
        raise missing_positional("tensor", "data")
    if pin_memory is not False:
        _check_pin_memory(pin_memory)
    dt = None if dtype is None else _dtype_arg(dtype, None, "tensor")
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("torch.tensor"), UserWarning, stacklevel=2)
        dev = data._device if device is None else _device(device)
        arr = _copy_tensor(data, data.dtype if dt is None else dt, dev)
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    dev = cpu if device is None and default_device() is cpu else _device(device)
    if isinstance(data, np.ndarray):
        src_dt = _check_ndarray(data)
        target = src_dt if dt is None else dt
        npdt = _dtype.numpy_dtype(target)
        order = _numpy_copy_order(data)
        if data.dtype != npdt and (
            data.dtype.kind == "f" or _dtype.cast_may_warn(data.dtype, npdt)
        ):
            # astype's copy is in NumPy's "K" order already; asarray re-lays only a broadcast one
            arr = np.asarray(_from_double(data, npdt), order=order)
        else:
            arr = np.array(data, dtype=npdt, order=order, copy=True)
    elif isinstance(data, np.generic) and data.dtype.kind in "biuf":
        src_dt = _dtype.from_numpy(data.dtype)
        if (src_dt if dt is None else dt) is _dtype.uint64:  # See _uint64_leaves
            raise TypeError("an integer is required")
        if dt is not None and dt._kind <= 1:
            _check_integral_leaf(data, dt._kind)
        arr, _ = _host_from_data(data.item(), src_dt if dt is None else dt)
    elif _array_like(data):  # a pandas Series or Index: its array, keeping float64 / int32
        _refuse_missing(data, dt)
        values = np.asarray(data)
        if values.dtype == object:  # torch reads an object column's Python values one by one
            values = values.tolist()
        return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)
    else:
        arr, _ = _host_from_data(data, dt)
    arr = _put(arr, dev)
    if not arr.size:  # tensor([[], []]): See _contiguous_empty
        arr = _contiguous_empty(arr, dev)
    return _require_grad(_make(arr, dev, False, None), requires_grad)


def _refuse_positional_options() -> None:
    """as_tensor's dtype or device of the wrong type given by position: torch takes them by
    keyword only, so its parser reports the count (see as_tensor). Error paths only."""
    from minitorch._call_site import call_arguments

    call = call_arguments("as_tensor")
    if call is not None and call[0] > 1:
        raise too_many_positional("as_tensor", call[0], 1)


def _refuse_missing(data, dt) -> None:
    """A pandas nullable column (Int64, Float64, boolean, ...) holding pd.NA: torch reads its
    elements and cannot convert the NA (NumPy's conversion would silently make it NaN, or a
    huge negative integer)."""
    if isinstance(data.dtype, np.dtype) or not hasattr(data, "isna") or not data.isna().any():
        return
    if dt is None:
        raise RuntimeError("Could not infer dtype of NAType")
    if dt.is_floating_point:
        raise TypeError("must be real number, not NAType")
    raise TypeError("'NAType' object cannot be interpreted as an integer")


def _array_like(data) -> bool:
    """A one-dtype container with a NumPy array of its own (pandas' Series and Index): torch
    reads its elements as NumPy scalars, which keep the dtype; iterating gives Python numbers.
    A DataFrame (several dtypes) is refused as torch refuses it."""
    if type(data) in (list, tuple, dict, str) or not hasattr(data, "__array__"):
        return False
    if isinstance(data, (str, bytes)):  # np.str_, np.bytes_: torch's error for a string
        return False
    if hasattr(data, "__cuda_array_interface__"):  # a device array: not read back here
        return False
    if hasattr(data, "dtypes") and hasattr(data, "columns"):
        raise ValueError(f"could not determine the shape of object type '{type(data).__name__}'")
    return hasattr(data, "dtype")


def scalar_tensor(
    s=REQUIRED, *extra, dtype=None, layout=None, device=None, requires_grad=False,
    pin_memory=False
) -> Tensor:  # fmt: skip
    """A 0-d tensor of the default float dtype (unless dtype=). Mirrors torch.scalar_tensor."""
    if s is REQUIRED or extra:
        raise arity_error("scalar_tensor", extra, 1, s=s)
    if pin_memory is not False:
        _check_pin_memory(pin_memory)
    dt = _dtype_arg(dtype, _dtype.default_float(), "scalar_tensor")
    if layout is not None:
        check_layout(layout, "scalar_tensor", dtype)
    if isinstance(s, Tensor):
        s = s.item()
    elif not isinstance(s, (int, float, np.generic)) or isinstance(s, (str, bytes, np.flexible)):
        raise TypeError(
            f"scalar_tensor(): argument 's'{_at(1, 's', 'scalar_tensor')} must be Number, not "
            f"{_typename(s)}"
        )
    if s.__class__ is int and not _dtype.SCALAR_INT_MIN <= s < _dtype.SCALAR_INT_END:
        raise _dtype.scalar_int_overflow(s)
    # torch converts the Scalar with c10's checked conversion: an integer dtype's range, and
    # float32's for a finite value (float16 and bfloat16 take it unchecked: inf)
    if dt._kind == 1 and isinstance(s, (int, float)):
        _check_int_range(np.asarray(s), dt)
    elif dt is _dtype.float32 and isinstance(s, (int, float)) and math.isfinite(s):
        if abs(s) > _FLOAT32_MAX:
            raise _dtype.overflow_error("float32")
    return tensor(s, dtype=dt, device=device, requires_grad=requires_grad)


def as_tensor(data=REQUIRED, dtype=None, device=None) -> Tensor:
    """Like tensor(), but shares memory with a tensor or a NumPy array when dtype and device
    already match. Mirrors torch.as_tensor.

    Differences from torch: dtype and device may come by position (torch 2.13 takes them by
    keyword only); refusing them would cost every call (a function of plain parameters is
    the one CPython specializes)."""
    if data is REQUIRED:
        raise missing_positional("as_tensor", "data")
    try:
        dt = None if dtype is None else _dtype_arg(dtype, None, "as_tensor")
    except TypeError:
        _refuse_positional_options()
        raise
    if isinstance(data, Tensor):
        out = data
        if dt is not None and dt is not data.dtype:
            out = out.to(dt)
        if device is not None and _device(device) is not data._device:
            out = out.to(_device(device))
        return out
    if isinstance(data, np.ndarray):
        dev = _device(device)
        src_dt = _check_ndarray(data)
        if dev is cpu and (dt is None or dt is src_dt):
            return _numpy_tensor(data, cpu)
        npdt = _dtype.numpy_dtype(src_dt if dt is None else dt)
        order = _numpy_copy_order(data)
        arr = _from_double(data, npdt)  # a copy in "K" order when the dtype differs
        # (the same dtype onto another device: copied here first, so the layout is the copy's)
        arr = np.array(arr, order=order, copy=True) if arr is data else np.asarray(arr, order=order)
        return _make(_put(arr, dev), dev, False, None)
    return tensor(data, dtype=dt, device=device)


_LABEL = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
          "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool"}  # fmt: skip


def asarray(obj=REQUIRED, *extra, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor:
    """Mirrors torch.asarray: shares memory with a tensor or a NumPy array when dtype and device
    allow; copy=True always copies, copy=False refuses to; a buffer-protocol object's bytes are
    read as dtype (frombuffer). See NOTE [ asarray of a tensor ]."""
    if obj is REQUIRED or extra:
        raise arity_error("asarray", extra, 1, obj=obj)
    if requires_grad is not None and requires_grad.__class__ is not bool:
        bool_flag(requires_grad, "requires_grad")
    if dtype is not None:
        dtype = _dtype_arg(dtype, None, "asarray")
    if isinstance(obj, Tensor):
        if requires_grad is None:  # torch 2.13: obj's own flag (it used to be False)
            requires_grad = obj.requires_grad
            if requires_grad:
                _settings.warn_once(
                    "asarray_requires_grad",
                    "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                    "instead of False. Pass requires_grad=False explicitly to get the old "
                    "behavior and silence this warning.",
                )
        return _asarray_tensor(obj, dtype, device, copy, requires_grad)
    requires_grad = bool(requires_grad)
    if isinstance(obj, np.generic):  # torch reads a NumPy scalar as a 0-d array (cast, not
        if copy is False:  # checked: asarray(np.float32(300), dtype=torch.uint8) is 44)
            raise RuntimeError(
                "can't alias NumPy scalars. Either remove copy=False or transform it in a "
                "ndarray. "
            )
        obj = np.asarray(obj)
    elif obj.__class__ not in _PLAIN_DATA and not isinstance(obj, np.ndarray) and _buffer(obj):
        return _require_grad(_asarray_buffer(obj, dtype, device, copy), requires_grad)
    if copy is False:
        _check_aliasable(obj, dtype, device)
    if copy or (isinstance(obj, np.ndarray) and obj.ndim == 0):
        # (torch reads a 0-d array as a scalar: a copy even for copy=False)
        t = tensor(obj, dtype=dtype, device=device)
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    return _require_grad(t, requires_grad)


_PLAIN_DATA = (list, tuple, int, float, bool)


def _buffer(obj) -> bool:
    """Whether obj implements Python's buffer protocol (bytes, bytearray, array.array, ...)."""
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _asarray_buffer(obj, dtype, device, copy) -> Tensor:
    """asarray of a buffer-protocol object: as torch, its bytes read as `dtype` (the default
    float dtype when None) by frombuffer, whatever the buffer's own item type."""
    from minitorch._misc_api import frombuffer

    dt = _dtype.default_float() if dtype is None else _dtype_arg(dtype, None, "asarray")
    t = frombuffer(obj, dtype=dt)
    if device is not None and _device(device) is not cpu:
        return t.to(_device(device))
    return t.clone() if copy else t


# NOTE [ asarray of a tensor ]
# torch.asarray(t) starts from t itself, or from a differentiable copy of it (t.to(dtype,
# device) when those change, t.clone() for copy=True), so a copy of a tensor that requires grad
# is in its graph. Then requires_grad decides: a leaf gets the flag set to it (on t itself when
# nothing was copied: asarray(param, requires_grad=False) turns param.requires_grad off, as in
# torch), while a non-leaf is kept as it is for requires_grad=True and detached otherwise (a
# leaf alias of the same memory, outside the graph). Left unspecified, requires_grad is t's own
# flag (torch 2.13; before, False), with torch's once-per-process warning where that is True.


def _asarray_tensor(obj: Tensor, dtype, device, copy, requires_grad) -> Tensor:
    dt = obj.dtype if dtype is None else _dtype_arg(dtype, None, "asarray")
    dev = obj._device if device is None else _device(device)
    moved = dt is not obj.dtype or dev is not obj._device
    if copy is False:
        _check_aliasable(obj, dtype, device)
    t = obj
    if copy or (copy is None and moved):
        t = obj.to(dev, dt, copy=True) if moved else obj.clone()
    if t.is_leaf:
        if requires_grad:
            return _require_grad(t, True)
        t._requires_grad = False
        return t
    return t if requires_grad else t.detach()


def _check_aliasable(obj, dtype, device) -> None:
    """asarray(copy=False): torch's ValueError when the result cannot share obj's memory."""
    if not isinstance(obj, (Tensor, np.ndarray)):
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    src = obj.dtype if isinstance(obj, Tensor) else _check_ndarray(obj)
    dt = src if dtype is None else _dtype_arg(dtype, None, "asarray")
    if dt is not src:
        raise ValueError(
            f"can't alias tensor with dtype '{_LABEL[src.name]}' into dtype '{_LABEL[dt.name]}'."
        )
    here = obj._device if isinstance(obj, Tensor) else cpu
    if device is not None and _device(device) is not here:
        raise ValueError(f"can't alias tensor from device '{here}' to '{_device(device)}'.")


def from_numpy(ndarray) -> Tensor:
    """A CPU tensor sharing memory with a NumPy array (both ways). Mirrors torch.from_numpy."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_typename(ndarray)})")
    _check_ndarray(ndarray)
    return _numpy_tensor(ndarray, cpu)


def _numpy_tensor(ndarray, dev) -> Tensor:
    """A CPU tensor over a checked NumPy array's memory (from_numpy, as_tensor, asarray). Its
    storage is the bytes the array reaches from its first element, as torch's, not the whole
    buffer NumPy sliced a strided array from (untyped_storage().nbytes(), storage_offset())."""
    a = ndarray.view(np.ndarray)  # _shared_array's, inline where the array is writable
    flags = a.flags
    if not flags.writeable:
        a = _shared_array(ndarray)
        flags = a.flags
    t = _make(a, dev, False, None)
    if a.size > 1 and not (flags.c_contiguous or flags.f_contiguous):
        span = 1 + sum((n - 1) * s for n, s in zip(a.shape, a.strides, strict=True)) // a.itemsize
        t._storage_root = _make(strided_view(np, a, (span,), (a.itemsize,)), dev, False, None)
    return t


def _shared_array(ndarray):
    """The array a tensor shares with NumPy. A read-only one (pandas 3's `df[col].values`) gets
    torch's warning (once per process, as torch's) and, as torch writes through it, a
    writable view of the same memory where NumPy allows one (memory NumPy refuses to write, a
    bytes buffer, stays read-only: in-place ops on it raise instead of writing into an
    immutable object). A subclass (np.matrix from scipy.sparse's todense(), a masked array, a
    memmap) is seen as the plain array over its memory, as torch reads it: np.matrix's `*` is a
    matrix product and its rows stay 2-d."""
    # A new ndarray object over the memory in any case: the caller's `a.shape = (2, 3)` or
    # `a.flags.writeable = False` must not reshape or freeze the tensor (torch keeps its own
    # sizes and strides).
    ndarray = ndarray.view(np.ndarray)
    if ndarray.flags.writeable:
        return ndarray
    _settings.warn_once(
        "numpy_not_writable",
        "The given NumPy array is not writable, and PyTorch does not support non-writable "
        "tensors. This means writing to this tensor will result in undefined behavior. You "
        "may want to copy the array to protect its data or make it writable before "
        "converting it to a tensor. This type of warning will be suppressed for the rest of "
        "this program.",
    )
    try:
        ndarray.setflags(write=True)
    except ValueError:
        pass
    return ndarray


# ---------------------------------------------------------------------------------------------
# Filled tensors


def _from_double(a: np.ndarray, npdt) -> np.ndarray:
    """float64 values stored as npdt the way c10 converts them (see _dtype.via_float32), without
    NumPy's warnings for NaN, inf or values out of range (torch converts them silently)."""
    if _dtype.cast_may_warn(a.dtype, npdt):
        with _dtype.quiet_casts():
            return _dtype.via_float32(a, npdt).astype(npdt, copy=False)
    return _dtype.via_float32(a, npdt).astype(npdt, copy=False)


def _filled(fill, shape, dt, dev, requires_grad):
    """A new tensor of `shape` (non-negative ints) filled with `fill` (a number _fill_array
    takes), of dtype dt on dev, requiring grad as asked."""
    npdt = dt.np  # bfloat16's resolves on first use (see _dtype.numpy_dtype)
    try:
        if dev is not cpu:
            arr = _build(lambda xp: _fill_array(xp, fill, shape, npdt), dev)
        elif fill == 0:  # zeros and empty, the common case: _fill_array's, one call fewer
            arr = np.zeros(shape, npdt)
        else:
            arr = _fill_array(np, fill, shape, npdt)
    except (ValueError, MemoryError) as e:  # NumPy's "array is too big", out of memory
        raise shape_error(shape, npdt.itemsize, error=e) from None
    if not arr.size:
        arr = _contiguous_empty(arr, dev)
    t = _make(arr, dev, False, None)
    if requires_grad is not False:
        _require_grad(t, requires_grad)
    return t


def _contiguous_empty(arr, dev: Device):
    """An empty array given torch's contiguous strides (a dim of size 0 counting as 1), as a view
    that reads nothing. NumPy gives an empty array zero strides, which a transpose then carries:
    torch's empty(0, 5).t() has strides (1, 5), not the (1, 1) of a fresh (5, 0) tensor."""
    strides, n = [], arr.itemsize
    for s in reversed(arr.shape):
        strides.append(n)
        n *= max(s, 1)
    xp = np if dev is cpu else backend_of(dev).xp
    return strided_view(xp, arr, arr.shape, reversed(strides))


def _fill_array(xp, fill, shape, npdt):
    if fill == 0:
        return xp.zeros(shape, dtype=npdt)
    if fill == 1:
        if xp is np:  # (np.ones is np.empty and a copyto through two Python frames)
            arr = np.empty(shape, npdt)
            arr.fill(1)
            return arr
        return xp.ones(shape, dtype=npdt)
    return xp.full(shape, _dtype.fill_number(fill, npdt), dtype=npdt)


def _into_out(
    out,
    dtype,
    op: str,
    make,
    keep_numel: bool = False,
    *,
    requires_grad=False,
    overlap_write=None,
    warn_resize: bool = False,
) -> Tensor:
    """A factory's `out=`: the values made in out's dtype (an explicit dtype must be it) and on
    its device by make(dtype, device), written into out (resized to their shape). keep_numel:
    the ranges' out= keeps its shape when it holds as many elements (torch resizes it only when
    the count differs: arange(6, out=empty(2, 3)) fills the 2x3 tensor in row-major order).
    An out whose elements share memory (expanded) is refused with torch's overlap error, unless
    `overlap_write(array, values)` writes it as torch's fill-based factories do. warn_resize:
    arange's warning when a non-empty out is resized. Afterwards a leaf out requires grad as
    `requires_grad` says (torch sets the flag of a factory's result, out= included)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {_typename(out)}")
    if requires_grad.__class__ is not bool:
        requires_grad = bool_flag(requires_grad, "requires_grad")
    if dtype is not None and _dtype_arg(dtype, None, op) is not out.dtype:
        raise RuntimeError(
            f"dtype {_dtype.scalar_name(_dtype_arg(dtype, None, op))} does not match dtype of out "
            f"parameter ({_dtype.scalar_name(out.dtype)})"
        )
    from minitorch.autograd.grad_mode import state

    if out._requires_grad and state.enabled:
        raise RuntimeError(
            f"aten::{op}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    try:
        result = make(out.dtype, out.device)
    except RuntimeError as e:
        text = str(e)
        if op != "empty" and (
            text.startswith("Trying to create tensor with negative dimension")
            or text == "zeros: Dimension size must be non-negative."
        ):  # torch resizes out= to the size first, and its element count fails there
            raise RuntimeError("numel: integer multiplication overflow") from None
        raise
    # No resize warning here: torch's factories resize out= silently (its ops warn, write_out),
    # but for arange's own.
    same = out._data.shape == result._data.shape
    if same or (keep_numel and out._data.size == result._data.size):
        values = result._data if same else result._data.reshape(out._data.shape)
        data = out._data
        if not data.flags.writeable:  # an expanded out (NumPy's broadcast views are read-only)
            from minitorch._ops.inplace import _check_overlap, has_overlap, writable

            overlapping = has_overlap(out)
            if overlapping and overlap_write is None:
                _check_overlap(out)  # torch's RuntimeError
            data = writable(out)
            if overlapping:
                overlap_write(data, values)
                values = None
        if values is not None:
            data[...] = values
    else:
        if warn_resize and out._data.size:
            warnings.warn(
                f"The number of elements in the out tensor of shape {list(out._data.shape)} is "
                f"{out._data.size} which does not match the computed number of elements "
                f"{result._data.size}. Note that this may occur as a result of rounding error. "
                f"The out tensor will be resized to a tensor of shape ({result._data.size},).",
                UserWarning,
                stacklevel=3,
            )
        out._data = result._data  # resized: new memory, as torch's resize_ of a smaller out
    out._vc[0] += 1
    if out._grad_fn is None and (requires_grad or out._base is None):
        out._requires_grad = bool(requires_grad)  # (a view keeps its base's flag, as torch)
    return out


def _write_fill(data, values) -> None:
    """zeros/ones/full/empty's out= write: one value everywhere (torch's fill_), so elements
    sharing memory are fine."""
    data[...] = values


def _write_eye(data, values) -> None:
    """eye's out= write as torch's zero_ then the diagonal's fill_: a memory location shared by
    a diagonal element ends up 1."""
    data[...] = 0
    ones = values != 0
    data[ones] = values[ones]


def _common_call(size, kwargs, dtype, device, op):
    """(shape, dtype, device) of a zeros/ones/empty call (NOTE [ The factories' common call ]):
    plain non-negative ints (as varargs or one sequence) read in one loop, a dtype object and
    the CPU taken as they are; anything else through _shape, to_dtype and _device, which raise
    torch's errors."""
    if size and not kwargs:
        shape = size[0] if len(size) == 1 and size[0].__class__ in _SEQUENCES else size
        for n in shape:
            if n.__class__ is not int or n < 0:
                try:
                    shape = _shape(size, None, op)
                except RuntimeError:  # a negative size: See _options_before_size
                    _options_before_size(None, dtype, device, op)
                    raise
                break
    else:
        try:
            shape = _shape(size, _size_kwarg(kwargs, op), op)
        except RuntimeError:
            _options_before_size(None, dtype, device, op)
            raise
    if dtype is None:
        dt = _dtype.default_float()
    else:
        dt = dtype if dtype.__class__ is _dtype.dtype else _dtype.to_dtype(dtype, op)
    return shape, dt, cpu if device is None and default_device() is cpu else _device(device)


def _options_before_size(default, dtype, device, op: str) -> None:
    """The dtype and device of a factory whose size is negative: torch's parser refuses one of
    the wrong type before the size is checked (zeros(-1, dtype="float32") names the dtype).
    Error paths only."""
    _dtype_arg(dtype, default, op)
    if device is not None:
        _device(device)


def zeros(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    memory_format=None,
    **kwargs,
) -> Tensor:
    """Mirrors torch.zeros (sizes as varargs, a tuple/list/Size, or size=)."""
    if layout is not None or pin_memory is not False:
        check_options("zeros", layout, pin_memory, dtype)
    if out is not None:
        return _into_out(
            out,
            dtype,
            "zeros",
            lambda dt, dev: zeros(
                *size, dtype=dt, device=dev, memory_format=memory_format, **kwargs
            ),
            requires_grad=requires_grad,
            overlap_write=_write_fill,
        )
    shape, dt, dev = _common_call(size, kwargs, dtype, device, "zeros")
    t = _filled(0, shape, dt, dev, requires_grad)
    return t if memory_format is None else _in_format(t, memory_format, "zeros")


def ones(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    memory_format=None,
    **kwargs,
) -> Tensor:
    """Mirrors torch.ones."""
    if layout is not None or pin_memory is not False:
        check_options("ones", layout, pin_memory, dtype)
    if out is not None:
        return _into_out(
            out,
            dtype,
            "ones",
            lambda dt, dev: ones(
                *size, dtype=dt, device=dev, memory_format=memory_format, **kwargs
            ),
            requires_grad=requires_grad,
            overlap_write=_write_fill,
        )
    shape, dt, dev = _common_call(size, kwargs, dtype, device, "ones")
    t = _filled(1, shape, dt, dev, requires_grad)
    return t if memory_format is None else _in_format(t, memory_format, "ones")


def empty(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    memory_format=None,
    **kwargs,
) -> Tensor:
    """Mirrors torch.empty.

    Differences from torch: the memory is zero-filled (uninitialised memory would make programs
    non-deterministic, e.g. NaNs that propagate); in deterministic mode it holds torch's fill
    (see _uninitialized).
    """
    if layout is not None or pin_memory is not False:
        check_options("empty", layout, pin_memory, dtype)
    if out is not None:
        if isinstance(out, Tensor) and out._requires_grad:  # (torch's empty resizes out first)
            raise RuntimeError("cannot resize variables that require grad")
        return _into_out(
            out,
            dtype,
            "empty",
            lambda dt, dev: empty(*size, dtype=dt, device=dev, **_no_format(memory_format, kwargs)),
            requires_grad=requires_grad,
            overlap_write=_write_fill,
        )
    shape, dt, dev = _common_call(size, kwargs, dtype, device, "empty")
    fill = 0 if not _settings._state["deterministic"] else _uninitialized(dt)
    out = _filled(fill, shape, dt, dev, requires_grad)
    return out if memory_format is None else _in_format(out, memory_format, "empty")


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """An empty tensor of shape `size` whose dims lie in memory in the order physical_layout
    (outermost first): empty_permuted((2, 3, 5, 7), (0, 2, 3, 1)) has strides (105, 1, 21, 3).
    Mirrors torch.empty_permuted; filled as empty() is."""
    if layout is not None or pin_memory is not False:
        check_options("empty_permuted", layout, pin_memory, dtype)
    shape = _dims_arg(size, "empty_permuted", "size", 1)
    perm = _dims_arg(physical_layout, "empty_permuted", "physical_layout", 2)
    ndim = len(shape)
    if len(perm) != ndim:
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {ndim} is not equal to len(physical_layout) = {len(perm)}"
        )
    seen = set()
    for i, d in enumerate(perm):
        if not 0 <= d < ndim:
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {ndim - 1}, but got {d} "
                f"at index {i}).  NB: negative dims not currently supported; file an issue if "
                "you want it."
            )
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    dt = _dtype_arg(dtype, _dtype.default_float(), "empty_permuted")
    physical = _shape_seq([shape[d] for d in perm], "empty_permuted", 1)  # (torch names it)
    t = _filled(_uninitialized(dt), physical, dt, _device(device), requires_grad)
    # the physical array seen in logical order: no view tensor, a new leaf as torch's
    t._data = t._data.transpose(tuple(perm.index(d) for d in _builtin_range(ndim)))
    return t


def from_file(
    filename,
    shared=None,
    size=0,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """A 1-d tensor of `size` elements read from the raw bytes of a file, memory-mapped: with
    shared=True the file is opened for writing (created and extended as needed) and writes to
    the tensor reach it; otherwise the mapping is private (copy-on-write) and the file must
    hold size * itemsize bytes. Mirrors torch.from_file."""
    if not isinstance(filename, str):
        raise TypeError(
            f"from_file(): argument 'filename' (position 1) must be str, not {_typename(filename)}"
        )
    n = _as_int(size)
    if n is None:
        raise TypeError(
            f"from_file(): argument 'size' (position 3) must be int, not {_typename(size)}"
        )
    if pin_memory is not False:
        _check_pin_memory(pin_memory)
    dt = _dtype_arg(dtype, _dtype.default_float(), "from_file")
    npdt = _dtype.numpy_dtype(dt)
    nbytes = n * npdt.itemsize
    if shared:
        with open(filename, "ab"):  # created if missing, as torch's O_CREAT
            pass
        if os.path.getsize(filename) < nbytes:
            os.truncate(filename, nbytes)  # extended with zeros, as torch's ftruncate
    else:
        try:
            have = os.path.getsize(filename)
        except OSError as e:
            raise RuntimeError(
                f"unable to open file <{filename}> in read-only mode: {e.strerror} ({e.errno})"
            ) from None
        if have < nbytes:
            raise RuntimeError(
                f"file <{filename}> size <{have}> is smaller than the required mapping size "
                f"<{nbytes}>"
            )
    if n == 0:  # (NumPy cannot map zero bytes)
        arr = np.empty(0, dtype=npdt)
    else:
        mode = "r+" if shared else "c"
        arr = np.memmap(filename, dtype=npdt, mode=mode, shape=(n,)).view(np.ndarray)
    dev = _device(device)
    return _require_grad(_make(_put(arr, dev), dev, False, None), requires_grad)


def _dims_arg(seq, op: str, name: str, pos: int) -> list:
    """An int[] argument that is not a size (dims), with torch's parser errors."""
    if not isinstance(seq, (tuple, list)):
        raise TypeError(
            f"{op}(): argument '{name}'{_at(pos, name, op)} must be tuple of ints, not "
            f"{_typename(seq)}"
        )
    dims = []
    for i, d in enumerate(seq):
        n = _size_int(d)
        if n is None:
            raise TypeError(
                f"{op}(): argument '{name}'{_at(pos, name, op)} must be tuple of ints, but found "
                f"element of type {_typename(d)} at pos {i}"
            )
        dims.append(n)
    return dims


def _uninitialized(dt):
    """What empty() fills new memory with: zeros, or, while use_deterministic_algorithms(True)
    and torch.utils.deterministic.fill_uninitialized_memory are set, torch's fill for that mode
    (NaN, the integer type's maximum, True), which makes reads of unwritten memory show."""
    if not _settings._state["deterministic"]:
        return 0
    from minitorch.utils import deterministic

    if not deterministic.fill_uninitialized_memory:
        return 0
    if dt.is_floating_point:
        return float("nan")
    return True if dt is _dtype.bool else _dtype.iinfo(dt).max


def _no_format(memory_format, kwargs: dict) -> dict:
    """empty(out=)'s keywords for the new tensor: torch refuses a memory_format beside out=."""
    if memory_format is not None:
        raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
    return kwargs


def _in_format(t: Tensor, fmt, op: str) -> Tensor:
    """A new tensor laid out in memory format fmt (see NOTE [ Memory formats ])."""
    fmt = _memory_format.check(fmt, op, _memory_format.contiguous_format)
    if fmt is _memory_format.contiguous_format:
        return t
    if fmt is _memory_format.preserve_format:  # (the *_like factories resolve it before)
        raise RuntimeError("unsupported memory format Preserve")
    t._data = _memory_format.copy_as(t._device.backend.xp, t._data, fmt)
    return t


def _fill_number(value, op: str):
    """A fill value as a Python number (or a 0-d tensor), with torch's TypeError otherwise: as
    for any Number argument, a tensor that requires grad is refused, its gradient would be
    dropped (NOTE [ Number-like arguments ])."""
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        if value.__class__ is int and not _dtype.SCALAR_INT_MIN <= value < _dtype.SCALAR_INT_END:
            raise _dtype.scalar_int_overflow(value)  # NOTE [ Ints beyond a Scalar ]
        return value
    if isinstance(value, np.bool_):
        return float(value)  # torch reads a NumPy bool as a float (full((2,), np.bool_(1)): 1.)
    if isinstance(value, Tensor) and value.ndim == 0 and not value._requires_grad:
        return value
    raise TypeError(
        f"{op}(): argument 'fill_value'{_at(2, 'fill_value', op)} must be Number, not "
        f"{_typename(value)}"
    )


def _number_dtype(value):
    """The dtype a Python number brings (bool, int64 or the default float), as in torch.full."""
    if isinstance(value, Tensor):
        kind = value.dtype._kind
    elif isinstance(value, (bool, np.bool_)):
        kind = 0
    elif isinstance(value, (int, np.integer)):
        kind = 1
    else:
        kind = 2
    return (_dtype.bool, _dtype.int64, _dtype.default_float())[kind]


def full(
    size=REQUIRED,
    fill_value=REQUIRED,
    *extra,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """Mirrors torch.full: the dtype follows fill_value (bool, int64 or the default float)."""
    if extra or size is REQUIRED or fill_value is REQUIRED:
        raise arity_error("full", extra, 2, size=size, fill_value=fill_value)
    if layout is not None or pin_memory is not False:
        check_options("full", layout, pin_memory, dtype)
    if out is not None:
        return _into_out(
            out,
            dtype,
            "full",
            lambda dt, dev: full(size, fill_value, dtype=dt, device=dev),
            requires_grad=requires_grad,
            overlap_write=_write_fill,
        )
    cls = fill_value.__class__
    if (cls is float or cls is int) and size.__class__ in _SEQUENCES:
        t = _full_plain(size, fill_value, dtype, device, requires_grad)
        if t is not None:
            return t
    try:
        shape = _shape_seq(size, "full", 1)
    except RuntimeError:  # a negative size: torch's parser reads the other arguments first
        _options_before_size(_number_dtype(_fill_number(fill_value, "full")), dtype, device, "full")
        raise
    fill_value = _fill_number(fill_value, "full")
    dt = _dtype_arg(dtype, _number_dtype(fill_value), "full")
    dev = _device(device)
    if isinstance(fill_value, Tensor):
        return _full_from_tensor(shape, fill_value, dt, dev, requires_grad)
    if dt._kind == 1:
        _check_int_range(np.asarray(fill_value), dt)
        if isinstance(fill_value, (float, np.floating)):
            # truncated as a C cast does: 2.0**63 passes int64's check in double and is -2**63
            with np.errstate(invalid="ignore"):
                fill_value = np.float64(fill_value).astype(dt.np)
        fill_value = int(fill_value)
    elif dt is _dtype.bool:
        fill_value = bool(fill_value)
    else:
        if dt is _dtype.float8_e8m0fnu and isinstance(fill_value, float) and fill_value <= 0.0:
            if math.prod(shape) != 1:  # (see fill_number; 0 would take zeros())
                raise _dtype.overflow_error(dt.name)
        fill_value = float(fill_value)
        if math.prod(shape) == 1 and (
            dt.itemsize == 1 or dt.itemsize == 2 and math.isfinite(fill_value)
        ):
            # torch fills a one-element half, bfloat16 or float8 tensor without its overflow
            # check (full((), 1e300, dtype=torch.half) is inf; full((2,), ...) raises)
            with _dtype.quiet_casts():
                fill_value = float(np.asarray(_dtype.via_float32(fill_value, dt.np), dt.np))
        if fill_value == 0.0 and math.copysign(1.0, fill_value) < 0:
            # -0.0 == 0 would take _filled's zeros() path and lose the sign (torch keeps it)
            arr = _build(lambda xp: xp.full(shape, -0.0, dtype=dt.np), dev)
            return _require_grad(_make(arr, dev, False, None), requires_grad)
    return _filled(fill_value, shape, dt, dev, requires_grad)


def _full_plain(size, value, dtype, device, requires_grad):
    """full(size, value) on the CPU for a size of non-negative ints and a float value in a
    float32 or float64 tensor or an int value in an int64 one (dtype None or that dtype), the
    value within the dtype's range: the tensor full's general path makes, in one NumPy fill
    (NOTE [ The factories' common call ]). None for anything else, which the general path
    makes or refuses."""
    if dtype is None:
        dt = _dtype.default_float() if value.__class__ is float else _dtype.int64
    elif dtype.__class__ is _dtype.dtype:
        dt = dtype
    else:
        return None
    if value.__class__ is float:
        # (float32: a finite value beyond its range is torch's overflow error)
        if dt is not _dtype.float64 and (
            dt is not _dtype.float32 or (abs(value) > _FLOAT32_MAX and value - value == 0)
        ):
            return None
    elif dt is not _dtype.int64 or not -_INT64_END <= value < _INT64_END:
        return None
    for n in size:
        if n.__class__ is not int or n < 0:
            return None
    # (the size, value and dtype are valid here: a device error is the general path's too)
    if (cpu if device is None and default_device() is cpu else _device(device)) is not cpu:
        return None
    try:
        arr = np.empty(size, dt.np)
    except ValueError:  # too big: the general path raises torch's error
        return None
    if not arr.size:
        return None
    arr.fill(value)  # (np.full's copyto of the number, without its Python frames)
    t = _make(arr, cpu, False, None)
    if requires_grad is not False:
        _require_grad(t, requires_grad)
    return t


def _full_from_tensor(shape, value: Tensor, dt, dev, requires_grad):
    """full() with a 0-d tensor value: filled on the device without reading the value back."""
    npdt = _dtype.numpy_dtype(dt)
    src = value._data if value._device is dev else _copy_tensor(value, value.dtype, dev)

    def fill(xp):
        out = xp.empty(shape, dtype=npdt)
        out[...] = src
        return out if out.size else _contiguous_empty(out, dev)

    return _require_grad(_make(_build(fill, dev), dev, False, None), requires_grad)


# NOTE [ *_like factories of a Tensor subclass ]
# torch hands zeros_like(sub) (and ones_, empty_, full_, rand_, randn_, randint_like) to the
# subclass's __torch_function__, whose default makes the plain tensor and returns it as the
# subclass (by as_subclass: requires_grad=True gives a non-leaf with AliasBackward0, as torch's).
# nn.Parameter opts out (a Parameter's zeros_like is a plain tensor), and an optimizer's state of
# a subclass parameter (exp_avg, ...) follows. A plain tensor pays one class comparison.


def like_subclass(func, given: dict):
    """func's call with the arguments `given` (its locals() on entry) handed to the
    __torch_function__ of the input's class, or None when the input is no dispatching Tensor
    subclass (or dispatch is off). Arguments still at their defaults are not passed on, as torch
    passes only what the caller gave."""
    from minitorch._subclass import dispatch, dispatch_off

    input = given["input"]
    cls = input.__class__
    if not (isinstance(input, Tensor) and cls._dispatches) or dispatch_off():
        return None
    args, kwargs = [], {}
    for name, param in inspect.signature(func).parameters.items():
        value = given[name]
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):  # (*extra, **unknown:
            continue  # refused before, empty when called)
        if param.kind is param.KEYWORD_ONLY:
            if value is not param.default:
                kwargs[name] = value
        else:
            args.append(value)
    while len(args) > 1 and args[-1] is None:  # randint_like(x, 5): no high
        args.pop()
    return dispatch(func, [cls], tuple(args), kwargs, name=f"torch.{func.__name__}")


def _like(input, dtype, device, op, memory_format=None, extra=()):
    """(shape, dtype, device) of a *_like result; torch's errors for input (REQUIRED: none
    given), for `extra` positional arguments past it, and for a channels_last memory_format
    that does not fit input's rank (raised before the dtype, fill value and requires_grad are
    looked at, as torch does)."""
    if extra or not isinstance(input, Tensor):
        if extra:
            raise too_many_positional(op, 1 + len(extra), 1)
        if input is REQUIRED:
            raise missing_positional(op, "input")
        raise TypeError(
            f"{op}(): argument 'input'{_at(1, 'input', op)} must be Tensor, not {_typename(input)}"
        )
    if memory_format is not None:
        fmt = _memory_format.check(memory_format, op)
        need = _memory_format._ORDERS.get(fmt)
        if need is not None and need[0] != input.ndim:
            raise _memory_format._rank_error(fmt, input.ndim)
    if dtype is None:
        dt = _dtype.from_numpy(input._data.dtype) if input.__class__ is Tensor else input.dtype
    else:
        dt = _dtype_arg(dtype, None, op)
    dev = input._device if device is None else _device(device)
    return input._data.shape, dt, dev


def _laid_like(t: Tensor, input: Tensor, fmt, op: str) -> Tensor:
    """A *_like result laid out as memory_format asks: input's own order by default
    (preserve_format), as torch does."""
    if fmt is None and input._data.flags.c_contiguous:
        return t  # the common case
    fmt = _memory_format.check(fmt, op)
    if fmt is _memory_format.preserve_format:
        if t._device is input._device:
            t._data = _memory_format.like(t._device.backend.xp, input._data, t._data)
        return t
    return _in_format(t, fmt, op)


def zeros_like(
    input=REQUIRED,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    """Mirrors torch.zeros_like."""
    if input.__class__ is not Tensor and getattr(input, "_dispatches", False):
        # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(zeros_like, locals())
        if r is not None:
            return r
    if layout is not None or pin_memory is not False:
        check_options("zeros_like", layout, pin_memory, dtype)
    shape, dt, dev = _like(input, dtype, device, "zeros_like", memory_format, extra)
    t = _filled(0, shape, dt, dev, requires_grad)
    if memory_format is None and input._data.flags.c_contiguous:
        return t  # (_laid_like's common case)
    return _laid_like(t, input, memory_format, "zeros_like")


def ones_like(
    input=REQUIRED,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    """Mirrors torch.ones_like."""
    if input.__class__ is not Tensor and getattr(input, "_dispatches", False):
        # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(ones_like, locals())
        if r is not None:
            return r
    if layout is not None or pin_memory is not False:
        check_options("ones_like", layout, pin_memory, dtype)
    shape, dt, dev = _like(input, dtype, device, "ones_like", memory_format, extra)
    t = _filled(1, shape, dt, dev, requires_grad)
    if memory_format is None and input._data.flags.c_contiguous:
        return t  # (_laid_like's common case)
    return _laid_like(t, input, memory_format, "ones_like")


def empty_like(
    input=REQUIRED,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    """Mirrors torch.empty_like (zero-filled, see empty)."""
    if input.__class__ is not Tensor and getattr(input, "_dispatches", False):
        # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(empty_like, locals())
        if r is not None:
            return r
    if layout is not None or pin_memory is not False:
        check_options("empty_like", layout, pin_memory, dtype)
    shape, dt, dev = _like(input, dtype, device, "empty_like", memory_format, extra)
    fill = 0 if not _settings._state["deterministic"] else _uninitialized(dt)
    out = _filled(fill, shape, dt, dev, requires_grad)
    if memory_format is None and input._data.flags.c_contiguous:
        return out  # (_laid_like's common case)
    return _laid_like(out, input, memory_format, "empty_like")


def full_like(
    input=REQUIRED,
    fill_value=REQUIRED,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
) -> Tensor:
    """Mirrors torch.full_like (the dtype is input's unless dtype= is given)."""
    if extra or input is REQUIRED or fill_value is REQUIRED:
        raise arity_error("full_like", extra, 2, input=input, fill_value=fill_value)
    if input.__class__ is not Tensor and getattr(input, "_dispatches", False):
        # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(full_like, locals())
        if r is not None:
            return r
    if layout is not None or pin_memory is not False:
        check_options("full_like", layout, pin_memory, dtype)
    shape, dt, dev = _like(input, dtype, device, "full_like", memory_format)
    fill_value = _fill_number(fill_value, "full_like")  # its error names full_like, not full
    out = full(shape, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)
    return _laid_like(out, input, memory_format, "full_like")


def eye(
    n=REQUIRED,
    m=NOT_GIVEN,
    *extra,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """The n x m identity matrix. Mirrors torch.eye (m=None, given, matches no overload)."""
    try:
        n_ = _as_int(n)
        m_ = n_ if m is NOT_GIVEN else _as_int(m)
        if n_ is None or m_ is None or extra or unknown:
            keywords = {"out": out, "dtype": dtype, "layout": layout, "device": device,
                        "pin_memory": pin_memory, "requires_grad": requires_grad}  # fmt: skip
            keywords = passed_keywords("eye", keywords)
            if extra or unknown or n is REQUIRED:  # (eye(), eye(2, 3, 4), eye(2, foo=1))
                raise _eye_type_error((n, m, *extra), keywords, unknown)
            if m is NOT_GIVEN and not keywords:
                at = _at(1, "n", "eye")
                raise TypeError(f"eye(): argument 'n'{at} must be int, not {_typename(n)}")
            # with a second argument or a keyword, torch's parser lists both overloads
            raise _eye_type_error((n,) if m is NOT_GIVEN else (n, m), keywords)
        if layout is not None or pin_memory is not False:
            check_options("eye", layout, pin_memory)
        if out is not None:
            return _into_out(
                out,
                dtype,
                "eye",
                lambda dt, dev: eye(n, m, dtype=dt, device=dev),
                requires_grad=requires_grad,
                overlap_write=_write_eye,
            )
        if n_ < 0:
            _eye_unpack(n_, m_)
            raise RuntimeError(f"n must be greater or equal to 0, got {n_}")
        if m_ < 0:
            _eye_unpack(n_, m_)
            raise RuntimeError(f"m must be greater or equal to 0, got {m_}")
        dt = _dtype_arg(dtype, _dtype.default_float(), "eye")
        npdt = dt.np  # (bfloat16's resolves on first use: _dtype.numpy_dtype)
        dev = cpu if device is None and default_device() is cpu else _device(device)
        if dev is cpu:  # np.eye's zeros and diagonal write, without its Python frame
            try:
                arr = np.zeros((n_, m_), npdt)
            except (ValueError, MemoryError) as e:  # too big: torch's errors (_eye_size_error)
                raise _eye_size_error(n_, m_, npdt.itemsize, e) from None
            arr.ravel()[: min(n_, m_) * (m_ + 1) : m_ + 1] = 1
        else:
            arr = _build(lambda xp: xp.eye(n_, m_, dtype=npdt), dev)
        if not arr.size:  # See _contiguous_empty
            arr = _contiguous_empty(arr, dev)
        t = _make(arr, dev, False, None)
        return t if requires_grad is False else _require_grad(t, requires_grad)
    except TypeError as e:
        from minitorch._ops._parser_errors import option_error, with_extra

        named = with_extra([("n", n)] if m is NOT_GIVEN else [("n", n), ("m", m)], extra)
        options = {"out": out, "dtype": dtype, "layout": layout, "device": device,
                   "pin_memory": pin_memory, "requires_grad": requires_grad}  # fmt: skip
        raise option_error("eye", _EYE_FORMS, named, options, unknown, e) from None


_EYE_OPTIONS = (
    "*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False"
)
_EYE_FORMS = (f"int n, {_EYE_OPTIONS}", f"int n, int m, {_EYE_OPTIONS}")


def _eye_type_error(args: tuple, keywords: dict, unknown=None) -> TypeError:
    """torch's TypeError for eye(n, m) arguments matching neither of its overloads: the
    arguments as the call gave them (NOTE [ Keyword arguments in argument errors ]; n REQUIRED
    where left out, m NOT_GIVEN where not given, then any past m), the keywords the call passed
    (passed_keywords), then `unknown` ones eye has not."""
    from minitorch._ops._parser_errors import overload_error, with_extra

    forms = _EYE_FORMS
    named = with_extra(list(zip(("n", "m"), args[:2], strict=False)), args[2:])
    if len(args) >= 2 and args[1] is NOT_GIVEN:
        named.pop(1)
    named += list(keywords.items())
    named += list((unknown or {}).items())
    return overload_error("eye", forms, forms, named, unknown=tuple(unknown or ()))


def passed_keywords(op: str, values: dict) -> dict:
    """The options of `values` (name -> value, in signature order) that the user's call of `op`
    passed: those not at their default (None, False), and those it passed by keyword at their
    default too, which torch's parser counts and lists ("got (float, dtype=NoneType)"; read
    from the call: NOTE [ Keyword arguments in argument errors ]). For error paths only."""
    from minitorch._call_site import call_keywords

    names = call_keywords(op, depth=2) or ()
    return {k: v for k, v in values.items() if k in names or (v is not None and v is not False)}


def _eye_unpack(n: int, m: int) -> None:
    """torch's parser error for eye's n or m beyond int64 (read before any other check)."""
    if not (_INT64_MIN <= n < _INT64_END and _INT64_MIN <= m < _INT64_END):
        raise ValueError("Overflow when unpacking long long")


def _eye_size_error(n: int, m: int, itemsize: int, error) -> Exception:
    """torch's error for an eye NumPy could not make (`error`): n or m beyond int64, then
    eye_out's resize, whose element count (numel) or byte size (storage) does not fit an int64,
    or the allocator's out of memory; another ValueError is `error` itself."""
    _eye_unpack(n, m)
    if n * m >= _INT64_END:
        return RuntimeError("numel: integer multiplication overflow")
    if n * m * itemsize >= _INT64_END:
        return RuntimeError(f"Storage size calculation overflowed with sizes={[n, m]}")
    if isinstance(error, MemoryError):
        return _alloc_error(n * m * itemsize)
    return error


def _alloc_error(nbytes: int) -> RuntimeError:
    """torch's CPU allocator's error for a tensor too large for memory (NumPy's MemoryError)."""
    return RuntimeError(
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)"
    )


# ---------------------------------------------------------------------------------------------
# The legacy constructors: torch.Tensor(...), torch.FloatTensor(...), Tensor.new(...)


_NEW_FORMS = (
    "*, torch.device device = None",
    "torch.Storage storage",
    "Tensor other",
    "tuple of ints size, *, torch.device device = None",
    "object data, *, torch.device device = None",
)


def _legacy_new(dt, device_type: str, args: tuple, kwargs: dict):
    """torch.Tensor(2, 3) (uninitialised: zero-filled here), Tensor(Size), Tensor(data) (a copy
    in dtype `dt`), Tensor(tensor) (an alias of its data), Tensor() (empty). torch's errors
    name every legacy constructor (torch.FloatTensor too) new()."""
    name = "new"
    device = kwargs.pop("device", None)
    if kwargs and not args:
        args, kwargs = _legacy_keywords(kwargs)
    if kwargs:
        from minitorch._ops._parser_errors import invalid_arguments

        raise invalid_arguments(name, _NEW_FORMS, args, dict(reversed(kwargs.items())))
    dev = tensor_device(device_type if device is None else device)
    any_dtype = dt is None  # torch.Tensor(other) keeps other's dtype; the typed ones check it
    if any_dtype:
        dt = _dtype.default_float()
    if dev.type != device_type:
        raise RuntimeError(
            f"legacy constructor expects device type: {device_type} but device type: {dev.type} "
            "was passed"
        )
    if not args:
        return _filled(0, (0,), dt, dev, False)
    first = args[0]
    from minitorch.storage import TypedStorage, UntypedStorage

    if len(args) == 1 and isinstance(first, (TypedStorage, UntypedStorage)):
        # torch.ByteTensor(storage): a tensor over the storage's memory (its dtype checked)
        if isinstance(first, TypedStorage) and first.dtype is not dt:
            raise RuntimeError(
                f"Expected a Storage of type {_dtype.scalar_name(dt)} or an UntypedStorage, but "
                f"got type {_dtype.scalar_name(first.dtype)} for argument 1 'storage'"
            )
        return _filled(0, (0,), dt, dev, False).set_(first)
    if len(args) == 1 and isinstance(first, Tensor):  # a 0-d one too: not a size
        if not any_dtype and first.dtype is not dt:
            raise TypeError(f"expected {_dtype.TENSOR_TYPE_NAMES[dt.name]} (got {first.dtype})")
        return first[...]  # a new tensor over the same memory (torch's alias, AliasBackward0)
    if len(args) == 1 and not isinstance(first, Size) and _size_int(first) is None:
        if isinstance(first, np.ndarray) and dev.type == "cpu" and first.dtype == dt.np:
            # torch shares a CPU array of the dtype already, as from_numpy (a write to one
            # shows in the other); any other array is converted into a copy below
            _check_ndarray(first)
            return _numpy_tensor(first, dev)
        if isinstance(first, np.ndarray) or _is_seq(first) or isinstance(first, (str, bytes)):
            return tensor(first, dtype=dt, device=dev)
        raise TypeError(f"{name}(): data must be a sequence (got {_typename(first)})")
    if any(isinstance(a, Tensor) and a.ndim != 0 for a in args) or (
        len(args) > 1 and any(isinstance(a, (list, tuple)) for a in args)
    ):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got "
            f"({', '.join(_typename(a) for a in args)})"
        )
    shape = _shape(args, None, name)
    return _filled(0, shape, dt, dev, False)


def _legacy_keywords(kwargs: dict):
    """torch.Tensor(size=(2, 3)), Tensor(data=[1.0]), Tensor(other=t): the keyword spellings of
    the one-argument overloads, as (args, the keywords left over); anything else is left for
    the caller's invalid-combination error."""
    if len(kwargs) != 1:
        return (), kwargs
    ((key, value),) = kwargs.items()
    if key == "size" and isinstance(value, (tuple, list)):
        return (Size(value),), {}
    if key == "data" or (key == "other" and isinstance(value, Tensor)):
        return (value,), {}
    return (), kwargs


def _legacy_tensor_init(self, *args, **kwargs):
    """torch.Tensor(...) called on the class: `self` becomes the new tensor."""
    if kwargs and not args:
        args, kwargs = _legacy_keywords(kwargs)
    src = _legacy_new(None, "cpu", args, kwargs)
    if len(args) == 1 and isinstance(args[0], Tensor):
        # Tensor(other) is an alias of other: its memory and version counter, and, where other
        # requires grad, its graph (src's AliasBackward0 node), as in torch
        for slot in ("_data", "_device", "_requires_grad", "_grad_fn", "_vc", "_base", "_grad"):
            setattr(self, slot, getattr(src, slot))
        self.__dict__.update(src.__dict__)
        return
    Tensor._init_from(self, src._data, src._device, False)


class _LegacyTensorType(type):
    """torch.FloatTensor and friends: calling one builds a Tensor of its dtype and device type;
    isinstance(t, torch.FloatTensor) checks the dtype and device type."""

    def __call__(cls, *args, **kwargs):
        return _legacy_new(cls.dtype, cls._device_type, args, dict(kwargs))

    @property
    def layout(cls):
        from minitorch._ops.tensor_misc import strided

        return strided

    def __getattr__(cls, name):
        # Only for what the class lacks: torch's legacy classes expose Tensor's methods and
        # attributes (old code's torch.FloatTensor.zero_(x)), though no tensor is an instance
        # of a subclass (isinstance stays the dtype check above).
        try:
            return getattr(Tensor, name)
        except AttributeError:
            raise AttributeError(
                f"type object '{cls.__name__}' has no attribute '{name}'"
            ) from None

    def __instancecheck__(cls, obj):
        return (
            isinstance(obj, Tensor)
            and obj.dtype is cls.dtype
            and obj._device.type == cls._device_type
        )

    def __repr__(cls):
        prefix = "torch" if cls._device_type == "cpu" else "torch.cuda"
        return f"<class '{prefix}.{cls.__name__}'>"


def legacy_type(dtype_name: str, device_type: str = "cpu"):
    """The legacy class (e.g. FloatTensor) of a dtype on a device type."""
    return _LegacyTensorType(
        _dtype.TENSOR_TYPE_NAMES[dtype_name],
        (),
        {
            "dtype": getattr(_dtype, dtype_name),
            "_device_type": device_type,
            # torch's class attributes, which on Tensor are per-tensor properties
            "is_cuda": device_type == "cuda",
            "is_sparse": False,
            "is_sparse_csr": False,
            "__module__": "minitorch" if device_type == "cpu" else "minitorch.cuda",
        },
    )


FloatTensor = legacy_type("float32")
DoubleTensor = legacy_type("float64")
HalfTensor = legacy_type("float16")
BFloat16Tensor = legacy_type("bfloat16")
LongTensor = legacy_type("int64")
IntTensor = legacy_type("int32")
ShortTensor = legacy_type("int16")
CharTensor = legacy_type("int8")
ByteTensor = legacy_type("uint8")
BoolTensor = legacy_type("bool")


# The samplers live in minitorch.random; old imports from here keep working.
_MOVED = frozenset(
    {
        "rand",
        "randn",
        "randint",
        "randperm",
        "normal",
        "rand_like",
        "randn_like",
        "randint_like",
        "_dtype_label",
    }
)


def __getattr__(name):
    if name in _MOVED:
        from minitorch import random

        return getattr(random, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The range factories live in minitorch/_ranges.py (they use the helpers above).
from minitorch._ranges import arange, linspace, logspace, range  # noqa: E402,F401
