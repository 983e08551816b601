"""The strict test device: a NumPy-backed array that behaves like CuPy toward the host.

`StrictArray` refuses implicit conversion to NumPy and mixing with host `numpy.ndarray`s, and
counts every explicit device-to-host transfer, so the device-agnostic tests catch on a CPU-only
machine what would break (or silently synchronise) on a GPU. See DESIGN.md, "GPU".
"""

from __future__ import annotations

import contextlib
import operator
import threading
import types

import numpy as np

from minitorch._backend import DEVICE_UFUNC_AT, Backend

__all__ = ["StrictArray", "StrictBackend", "xp", "transfer_count", "count_transfers"]

# Python and NumPy scalars combine with device arrays, as they do with cupy.ndarray.
_SCALARS = (int, float, complex, np.generic)
# Names on numpy.ndarray that reach host memory directly; CuPy has no host-side equivalent.
_HOST_ONLY = frozenset({"data", "ctypes", "tofile", "dump", "dumps", "tostring"})
# NumPy answers these with a Python scalar where CuPy returns a 0-d array (no synchronisation).
_ARRAY_RESULTS = frozenset({"allclose", "array_equal", "array_equiv", "count_nonzero"})
# NumPy functions CuPy lacks, refused by the strict xp as cupy refuses them (a kernel that
# needs one goes through a backend-neutral helper: errstate through _ops._common.quiet).
_NOT_IN_CUPY = frozenset({"errstate"})
# The ufunc methods CuPy (14) implements, by method; the others raise NotImplementedError
# there, and here. `outer` works for every ufunc. A ufunc call takes these keywords only.
_CUPY_UFUNC_METHODS = {
    "reduce": frozenset({"add", "multiply"}),
    "accumulate": frozenset({"add", "multiply"}),
    "reduceat": frozenset({"add"}),
    "at": frozenset(DEVICE_UFUNC_AT),  # (for the dtypes DEVICE_UFUNC_AT gives)
}
_CUPY_UFUNC_KEYWORDS = frozenset({"out", "dtype", "casting"})
# Ufuncs whose CuPy (14) loops lack dtype kinds NumPy's have, by ufunc: the logical ones have
# no complex loops (cupy/_logic/ops.py), so a complex array is a TypeError there, and here.
_CUPY_UFUNC_MISSING_KINDS = {
    "logical_and": "c", "logical_or": "c", "logical_xor": "c", "logical_not": "c",
}  # fmt: skip
# CuPy (14) functions that read device data on the host to check or size their result, by
# the reads one call makes: bincount checks (x < 0).any() and sizes its output by int(x.max())
# (cupy/_statistics/histogram.py); unravel_index checks (indices < 0).any() and
# (indices >= size).any() (cupy/_indexing/generate.py). Here each call counts them as
# transfers, so a kernel that must not wait on the GPU (histc, a sorted scatter) is caught.
# Functions whose result's size depends on the data read that size the same way (nonzero's
# "count_nonzero = int(scan_index[-1])  # synchronize!" in cupy/_core/_routines_indexing.pyx;
# unique compacts with a boolean mask). (So does a boolean-mask read a[mask], not counted.)
_CUPY_SYNCS = {
    "bincount": 2, "unravel_index": 2, "nonzero": 1, "flatnonzero": 1, "argwhere": 1, "unique": 1,
}  # fmt: skip


def _searchsorted_rule(a, v, *args, **kwargs) -> None:
    if v.__class__ is not StrictArray and not isinstance(v, (int, float, complex)):
        raise NotImplementedError("Only python scalars or ndarrays are supported for v")


def _partition_rule(a, kth, *args, **kwargs) -> None:
    if isinstance(kth, np.integer):  # CuPy takes a Python int, else iterates kth
        raise TypeError(f"'{type(kth).__module__}.{type(kth).__name__}' object is not iterable")


def _sort_rule(a, axis=-1, kind=None, *args, **kwargs) -> None:
    if kind is not None and kind != "stable":  # its one sort is thrust's stable sort
        raise ValueError("kind can only be None or 'stable'")


# Arguments CuPy (14) refuses where NumPy takes them, by function (checked before the call):
# searchsorted's v must be a device array or a Python scalar, a NumPy scalar is refused
# (cupy/_sorting/search.py); partition's kth must be a Python int or a sequence of them
# (cupy/_core/_routines_sorting.pyx); sort's and argsort's kind must be None or 'stable'
# (ndarray._check_kind_sort, cupy/_core/core.pyx). (ndarray.sort() in place also refuses a
# non-C-contiguous array: StrictArray.sort.)
_CUPY_ARGUMENT_RULES = {
    "searchsorted": _searchsorted_rule, "partition": _partition_rule, "sort": _sort_rule,
    "argsort": _sort_rule,
}  # fmt: skip
# Argument types that never hold an array: returned by _unwrap without a look inside.
_ATOMS = frozenset({int, float, bool, complex, str, slice, type(None), type(Ellipsis)})

# ---------------------------------------------------------------------------------------------
# Device-to-host transfer counter
# ---------------------------------------------------------------------------------------------

_transfers = 0
_transfers_lock = threading.Lock()


def _count_transfer() -> None:
    global _transfers
    with _transfers_lock:
        _transfers += 1


def transfer_count() -> int:
    """The number of explicit device-to-host transfers since the process started."""
    return _transfers


class TransferCount:
    """What `count_transfers()` yields: `.count` is the transfers made inside the block so far."""

    __slots__ = ("_start", "_stop")

    def __init__(self):
        self._start = _transfers
        self._stop = None

    @property
    def count(self) -> int:
        return (_transfers if self._stop is None else self._stop) - self._start


@contextlib.contextmanager
def count_transfers():
    """Count device-to-host transfers in a block: `with count_transfers() as t: ...; t.count`."""
    counter = TransferCount()
    try:
        yield counter
    finally:
        counter._stop = _transfers


# ---------------------------------------------------------------------------------------------
# Unwrapping arguments and wrapping results
# ---------------------------------------------------------------------------------------------


def _mixing_error(op: str) -> TypeError:
    return TypeError(
        f"{op}: host (numpy.ndarray) and device (StrictArray) arrays cannot be mixed; copy "
        f"explicitly with xp.asarray(host_array) or device_array.get()"
    )


def _unwrap(x, op: str, host_ok: bool = False):
    """StrictArrays -> their ndarrays, through lists, tuples and dicts; host ndarrays refused."""
    cls = x.__class__
    if cls is StrictArray:
        return x._a
    if cls in _ATOMS:
        return x
    if cls is tuple:
        return tuple([_unwrap(v, op, host_ok) for v in x])
    if cls is list:
        return [_unwrap(v, op, host_ok) for v in x]
    if cls is dict:
        return {k: _unwrap(v, op, host_ok) for k, v in x.items()}
    if not host_ok and isinstance(x, np.ndarray):
        raise _mixing_error(op)
    return x


def _unwrap_index(key):
    """An indexing key with StrictArrays unwrapped; host index arrays are allowed, as in CuPy."""
    cls = key.__class__
    if cls is StrictArray:
        return key._a
    if cls is tuple:
        return tuple([_unwrap_index(k) for k in key])
    if cls is list:
        return [_unwrap_index(k) for k in key]
    return key


def _wrap(x):
    """NumPy results -> StrictArrays; NumPy scalars become 0-d arrays, as CuPy returns them."""
    if x.__class__ is np.ndarray:
        return StrictArray(x)
    if isinstance(x, np.generic):
        return StrictArray(np.asarray(x))
    if isinstance(x, np.ndarray):
        return StrictArray(x)
    if isinstance(x, tuple):
        items = [_wrap(v) for v in x]
        return x.__class__(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    if isinstance(x, (np.random.Generator, np.random.RandomState)):
        return _Namespace(x, x.__class__.__name__, scalars_as_arrays=True)
    return x


def _call(fn, name: str, args: tuple, kwargs: dict, owner=None):
    """fn(*args, **kwargs) on unwrapped arguments, with the result wrapped."""
    unwrapped = [a._a if a.__class__ is StrictArray else _unwrap(a, name) for a in args]
    result = fn(*unwrapped, **(_unwrap(kwargs, name) if kwargs else kwargs))
    if result.__class__ is not np.ndarray:
        return _wrap(result)
    # CuPy returns the very input object where NumPy returns an input's array itself
    # (astype(copy=False), asarray of an array, out=): keep that identity.
    if owner is not None and owner._a is result:
        return owner
    if args and args[0].__class__ is StrictArray and args[0]._a is result:
        return args[0]
    out = kwargs.get("out")
    if out.__class__ is tuple and len(out) == 1:
        out = out[0]
    if out.__class__ is StrictArray and out._a is result:
        return out
    return StrictArray(result)


def _cupy_ufunc_method(ufunc, method: str) -> None:
    """Refuses a ufunc method CuPy does not implement, with CuPy's error."""
    allowed = _CUPY_UFUNC_METHODS.get(method)
    if allowed is not None and ufunc.__name__ not in allowed:
        raise NotImplementedError(f"`cupy_{ufunc.__name__}.{method}` is not supported yet")


def _cupy_ufunc_loops(name: str, inputs) -> None:
    """Refuses, with CuPy's error, inputs of a dtype kind CuPy's ufunc has no loop for."""
    kinds = _CUPY_UFUNC_MISSING_KINDS.get(name)
    if kinds is not None:
        dtypes = tuple(a.dtype for a in inputs if a.__class__ is StrictArray)
        if any(d.kind in kinds for d in dtypes):
            raise TypeError(f"Wrong type ({dtypes}) of arguments for cupy_{name}")


def _ufunc_at(ufunc, a, indices, b=None) -> None:
    _cupy_ufunc_method(ufunc, "at")
    kernels = DEVICE_UFUNC_AT[ufunc.__name__]
    if a.dtype.name not in kernels:  # CuPy's atomic kernels cover a few dtypes
        names = ", ".join(sorted(kernels))
        raise TypeError(f"cupy.{ufunc.__name__}.at only supports {names} as data type")
    name = f"{ufunc.__name__}.at"
    values = () if b is None else (_unwrap(b, name),)
    ufunc.at(_unwrap(a, name), _unwrap_index(indices), *values)


# ---------------------------------------------------------------------------------------------
# StrictArray
# ---------------------------------------------------------------------------------------------


def _operand(other, name: str):
    """The ndarray or scalar behind an operand; NotImplemented for other types (lists included,
    which cupy.ndarray refuses too), so that their own reflected operator gets a turn."""
    if other.__class__ is StrictArray:
        return other._a
    if isinstance(other, _SCALARS):
        return other
    if isinstance(other, np.ndarray):
        raise _mixing_error(f"StrictArray.{name}")
    return NotImplemented


def _binary(op, reflected: bool = False):
    name = f"__{'r' if reflected else ''}{op.__name__.rstrip('_')}__"

    def method(self, other):
        other = _operand(other, name)
        if other is NotImplemented:
            return other
        return _wrap(op(other, self._a) if reflected else op(self._a, other))

    method.__name__ = name
    return method


def _operators(op, iop=None):
    """__op__, __rop__ and (from the in-place `iop`) __iop__ of one binary operator."""
    if iop is None:
        return _binary(op), _binary(op, reflected=True)

    def inplace(self, other):
        other = _operand(other, iop.__name__)
        if other is NotImplemented:
            return other
        iop(self._a, other)
        return self

    inplace.__name__ = f"__{iop.__name__}__"
    return _binary(op), _binary(op, reflected=True), inplace


def _unary(op):
    return lambda self: _wrap(op(self._a))


def _methods(*names: str):
    """Methods delegated to the ndarray, with arguments unwrapped and results wrapped."""

    def make(name):
        def method(self, *args, **kwargs):
            return _call(getattr(self._a, name), name, args, kwargs, owner=self)

        method.__name__ = name
        return method

    return tuple(make(name) for name in names)


def _counted(*names: str):
    """Methods that read device data on the host: counted, then delegated to the ndarray."""

    def make(name):
        def method(self, *args):
            _count_transfer()
            return getattr(self._a, name)(*args)

        method.__name__ = name
        return method

    return tuple(make(name) for name in names)


def _synchronizing(fn, reads: int):
    """fn counting the host reads CuPy's function of that name makes (see _CUPY_SYNCS)."""

    def wrapper(*args, **kwargs):
        for _ in range(reads):
            _count_transfer()
        return fn(*args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _checking(fn, rule):
    """fn refusing, as CuPy does, the arguments `rule` raises for (see _CUPY_ARGUMENT_RULES)."""

    def wrapper(*args, **kwargs):
        rule(*args, **kwargs)
        return fn(*args, **kwargs)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


class StrictArray:
    """A NumPy array posing as a device array: it behaves like cupy.ndarray toward the host.

    Only for the 'strict' test device. Implicit conversion to NumPy and mixing with host arrays
    raise TypeError; explicit transfers (`get`, `item`, `float()`, `bool()`, `repr`, ...) work and
    are counted (see `count_transfers`).
    """

    __slots__ = ("_a",)
    __hash__ = None

    def __init__(self, array: np.ndarray):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"StrictArray wraps a numpy.ndarray, not {type(array).__name__}")
        self._a = array

    # --- the host boundary ---------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    def get(self, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
        """An explicit, counted device-to-host copy. Mirrors cupy.ndarray.get."""
        _count_transfer()
        if out is not None:
            np.copyto(out, self._a)
            return out
        return np.array(self._a, order=order, copy=True)

    def set(self, arr: np.ndarray, stream=None) -> None:
        """Copy a host array into this one (host-to-device). Mirrors cupy.ndarray.set."""
        if arr.shape != self._a.shape or arr.dtype != self._a.dtype:
            raise ValueError(
                f"set: shape/dtype mismatch ({arr.shape}, {arr.dtype}) into "
                f"({self._a.shape}, {self._a.dtype})"
            )
        np.copyto(self._a, arr)

    item, tolist, tobytes = _counted("item", "tolist", "tobytes")
    __float__, __int__, __complex__, __bool__, __index__ = _counted(
        "__float__", "__int__", "__complex__", "__bool__", "__index__"
    )
    __repr__, __str__, __format__ = _counted("__repr__", "__str__", "__format__")

    def __reduce__(self):
        _count_transfer()  # pickling reads the data on the host, as for cupy.ndarray
        return (StrictArray, (self._a.copy(),))

    def __copy__(self):
        return StrictArray(self._a.copy())

    def __deepcopy__(self, memo):
        return StrictArray(self._a.copy())

    # --- NumPy protocols: np.exp(s), np.concatenate([s, t]) dispatch here, as with CuPy --------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "at":
            return _ufunc_at(ufunc, *inputs)
        _cupy_ufunc_method(ufunc, method)
        if method == "__call__":
            _cupy_ufunc_loops(ufunc.__name__, inputs)
        name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
        return _call(getattr(ufunc, method), name, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _call(func, func.__name__, args, kwargs)

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()

    # --- attributes ----------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: StrictArray(self._a.T))
    if hasattr(np.ndarray, "mT"):
        mT = property(lambda self: StrictArray(self._a.mT))
    real = property(lambda self: StrictArray(self._a.real))
    imag = property(lambda self: StrictArray(self._a.imag))

    @property
    def base(self):
        """None exactly when the array owns its memory (the engine relies on it)."""
        base = self._a.base
        if base is None or not isinstance(base, np.ndarray):
            return base  # None, or a non-array owner such as as_strided's
        return StrictArray(base)

    def __getattr__(self, name):
        # Dunders stay explicit: delegating e.g. __array_interface__ would let NumPy read the data.
        if name == "_a" or name.startswith("__") or name in _HOST_ONLY:
            raise AttributeError(f"'StrictArray' object has no attribute '{name}'")
        try:
            attr = getattr(self._a, name)
        except AttributeError:
            raise AttributeError(f"'StrictArray' object has no attribute '{name}'") from None
        if callable(attr):
            return lambda *args, **kwargs: _call(attr, name, args, kwargs, owner=self)
        return _wrap(attr)

    # --- methods -------------------------------------------------------------------------------
    astype, copy, view, reshape, ravel, flatten = _methods(
        "astype", "copy", "view", "reshape", "ravel", "flatten"
    )
    transpose, swapaxes, squeeze, diagonal, conj, repeat, take = _methods(
        "transpose", "swapaxes", "squeeze", "diagonal", "conj", "repeat", "take"
    )
    sum, mean, prod, std, var, max, min, argmax, argmin, any, all = _methods(
        "sum", "mean", "prod", "std", "var", "max", "min", "argmax", "argmin", "any", "all"
    )
    cumsum, cumprod, clip, round, nonzero, fill, dot = _methods(
        "cumsum", "cumprod", "clip", "round", "nonzero", "fill", "dot"
    )
    nonzero = _synchronizing(nonzero, _CUPY_SYNCS["nonzero"])

    def sort(self, axis=-1, kind=None) -> None:
        """In place, along axis; CuPy's refuses a non-C-contiguous array (its thrust sort)."""
        _sort_rule(self, axis, kind)
        if not self._a.flags.c_contiguous:
            raise NotImplementedError("Sorting non-contiguous array is not supported.")
        self._a.sort(axis=axis, kind="stable")  # CuPy's sort is always stable

    def argsort(self, axis=-1, kind=None):
        _sort_rule(self, axis, kind)
        return StrictArray(self._a.argsort(axis=axis, kind="stable"))

    def partition(self, kth, axis=-1) -> None:
        _partition_rule(self, kth)
        self._a.partition(kth, axis=axis)

    # --- indexing and iteration ----------------------------------------------------------------
    def __getitem__(self, key):
        key = _unwrap_index(key)
        out = self._a[key]
        if out.__class__ is not np.ndarray:
            # A full integer index gives a NumPy scalar; CuPy gives a 0-d view. The trailing
            # Ellipsis makes NumPy return that view too.
            out = self._a[(*key, Ellipsis) if key.__class__ is tuple else (key, Ellipsis)]
        return StrictArray(out)

    def __setitem__(self, key, value):
        self._a[_unwrap_index(key)] = _unwrap(value, "StrictArray.__setitem__")

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self):
        a = self._a
        if a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (StrictArray(a[i, ...]) for i in range(len(a)))

    # --- operators -----------------------------------------------------------------------------
    __add__, __radd__, __iadd__ = _operators(operator.add, operator.iadd)
    __sub__, __rsub__, __isub__ = _operators(operator.sub, operator.isub)
    __mul__, __rmul__, __imul__ = _operators(operator.mul, operator.imul)
    __truediv__, __rtruediv__, __itruediv__ = _operators(operator.truediv, operator.itruediv)
    __floordiv__, __rfloordiv__, __ifloordiv__ = _operators(operator.floordiv, operator.ifloordiv)
    __mod__, __rmod__, __imod__ = _operators(operator.mod, operator.imod)
    __pow__, __rpow__, __ipow__ = _operators(operator.pow, operator.ipow)
    __matmul__, __rmatmul__, __imatmul__ = _operators(operator.matmul, operator.imatmul)
    __and__, __rand__, __iand__ = _operators(operator.and_, operator.iand)
    __or__, __ror__, __ior__ = _operators(operator.or_, operator.ior)
    __xor__, __rxor__, __ixor__ = _operators(operator.xor, operator.ixor)
    __lshift__, __rlshift__, __ilshift__ = _operators(operator.lshift, operator.ilshift)
    __rshift__, __rrshift__, __irshift__ = _operators(operator.rshift, operator.irshift)
    __divmod__, __rdivmod__ = _operators(divmod)
    __lt__, __le__, __gt__, __ge__ = map(
        _binary, (operator.lt, operator.le, operator.gt, operator.ge)
    )
    __eq__, __ne__ = _binary(operator.eq), _binary(operator.ne)
    __neg__, __pos__ = _unary(operator.neg), _unary(operator.pos)
    __invert__, __abs__ = _unary(operator.invert), _unary(operator.abs)


# ---------------------------------------------------------------------------------------------
# xp: numpy seen through StrictArrays
# ---------------------------------------------------------------------------------------------


def _function(fn, name: str, scalars_as_arrays: bool = False):
    def wrapper(*args, **kwargs):
        result = _call(fn, name, args, kwargs)
        if scalars_as_arrays and isinstance(result, (int, float, complex)):
            result = StrictArray(np.asarray(result))
        return result

    wrapper.__name__ = name
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    return wrapper


def _to_device(fn):
    """asarray and friends: like cupy.asarray, a host array argument is copied to the device."""
    name = fn.__name__

    def wrapper(obj, *args, **kwargs):
        result = fn(_unwrap(obj, name, host_ok=True), *args, **_unwrap(kwargs, name))
        if obj.__class__ is StrictArray and result is obj._a:
            return obj
        if isinstance(obj, np.ndarray) and np.may_share_memory(result, obj):
            result = result.copy(order="K")
        return StrictArray(result)

    wrapper.__name__ = name
    return wrapper


class _Ufunc:
    """A numpy.ufunc whose call and methods (at, reduce, accumulate, outer) take StrictArrays."""

    def __init__(self, ufunc: np.ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        if kwargs and not kwargs.keys() <= _CUPY_UFUNC_KEYWORDS:  # where=, order=, ...
            raise TypeError(f"Wrong arguments {kwargs}")
        _cupy_ufunc_loops(self.__name__, args)
        return _call(self._ufunc, self.__name__, args, kwargs)

    def at(self, a, indices, b=None) -> None:
        _ufunc_at(self._ufunc, a, indices, b)

    def reduce(self, *args, **kwargs):
        _cupy_ufunc_method(self._ufunc, "reduce")
        return _call(self._ufunc.reduce, f"{self.__name__}.reduce", args, kwargs)

    def accumulate(self, *args, **kwargs):
        _cupy_ufunc_method(self._ufunc, "accumulate")
        return _call(self._ufunc.accumulate, f"{self.__name__}.accumulate", args, kwargs)

    def reduceat(self, *args, **kwargs):
        _cupy_ufunc_method(self._ufunc, "reduceat")
        return _call(self._ufunc.reduceat, f"{self.__name__}.reduceat", args, kwargs)

    def outer(self, *args, **kwargs):
        return _call(self._ufunc.outer, f"{self.__name__}.outer", args, kwargs)

    def __getattr__(self, name):  # nin, nout, identity, types, ...
        return getattr(self._ufunc, name)

    def __repr__(self):
        return f"<strict ufunc '{self.__name__}'>"


class _Namespace:
    """A module (numpy, numpy.linalg, ...) or a random Generator whose callables take and return
    StrictArrays. Wrappers are built on first lookup and cached in the instance."""

    def __init__(self, target, name: str, scalars_as_arrays: bool = False, **overrides):
        self._target = target
        self._name = name
        self._scalars_as_arrays = scalars_as_arrays
        self.__dict__.update(overrides)

    def __getattr__(self, name):
        if name.startswith("__") or (self._target is np and name in _NOT_IN_CUPY):
            raise AttributeError(f"'{self._name}' has no attribute '{name}'")
        value = getattr(self._target, name)
        if value is np.ndarray:
            wrapped = StrictArray
        elif isinstance(value, np.ufunc):
            wrapped = _Ufunc(value)
        elif isinstance(value, types.ModuleType):
            wrapped = _Namespace(value, f"{self._name}.{name}", self._scalars_as_arrays)
        elif isinstance(value, type) and not issubclass(
            value, (np.random.Generator, np.random.RandomState)
        ):
            wrapped = value  # dtypes, scalar types, finfo, exceptions: the same objects as NumPy's
        elif callable(value):
            as_arrays = self._scalars_as_arrays or name in _ARRAY_RESULTS
            wrapped = _function(value, name, as_arrays)
            if self._target is np and name in _CUPY_SYNCS:
                wrapped = _synchronizing(wrapped, _CUPY_SYNCS[name])
            if self._target is np and name in _CUPY_ARGUMENT_RULES:
                wrapped = _checking(wrapped, _CUPY_ARGUMENT_RULES[name])
        else:
            return StrictArray(value) if isinstance(value, np.ndarray) else value  # constants
        self.__dict__[name] = wrapped
        return wrapped

    def __repr__(self):
        return f"<strict namespace {self._name!r} over {self._target!r}>"


def asnumpy(a, stream=None, order="C", out=None, blocking=True) -> np.ndarray:
    """An explicit device-to-host copy (counted). Mirrors cupy.asnumpy."""
    if a.__class__ is StrictArray:
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    return np.asarray(a, order=order)


def get_array_module(*args):
    """xp when any argument is a StrictArray, else numpy. Mirrors cupy.get_array_module."""
    return xp if any(a.__class__ is StrictArray for a in args) else np


xp = _Namespace(
    np,
    "xp",
    ndarray=StrictArray,
    asnumpy=asnumpy,
    get_array_module=get_array_module,
    random=_Namespace(np.random, "xp.random", scalars_as_arrays=True),
    **{
        fn.__name__: _to_device(fn)
        for fn in (np.asarray, np.array, np.asanyarray, np.ascontiguousarray, np.asfortranarray)
    },
)


class StrictBackend(Backend):
    """The backend of the test-only 'strict' device: NumPy kernels on StrictArrays."""

    name = "strict"
    xp = xp
    array_cls = StrictArray
    scalar_cls = ()  # its reductions give 0-d arrays, never scalars

    def from_host(self, array, device):
        if array.__class__ is StrictArray:
            return array
        return StrictArray(np.array(array, copy=True, order="K"))

    def to_host(self, array) -> np.ndarray:
        return asnumpy(array)

    def is_array(self, obj) -> bool:
        return obj.__class__ is StrictArray

    def data_ptr(self, array) -> int:
        return array._a.__array_interface__["data"][0]

    def segment_reduce(self, values, starts, op: str):
        from minitorch._backend import backend_of, cpu

        return StrictArray(backend_of(cpu).segment_reduce(values._a, starts._a, op))

    def make_rng(self, seed: int):
        from minitorch._backend.torch_stream import TorchStream

        # the CPU's stream, its arrays wrapped: the strict device gives the CPU's numbers
        return TorchStream(seed, wrap=_wrap, unwrap=lambda a: _unwrap(a, "random"))

    def owns_data(self, array) -> bool:
        return array._a.base is None

    def special(self, name: str):
        from minitorch._backend.numpy_special import special

        fn = special(name)  # None: a SciPy-only name without SciPy
        return None if fn is None else _function(fn, name, scalars_as_arrays=True)
