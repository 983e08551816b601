"""Dtypes: minitorch.float32 and friends, their NumPy dtypes, promotion rules, the default dtype."""

from __future__ import annotations

import builtins
import math

import numpy as np

from minitorch._arg_errors import (
    REQUIRED,
    arity_error,
    missing_positional,
    too_many_positional,
    unexpected_keyword,
)

# fmt: off
__all__ = [
    "dtype", "ALL_DTYPES",
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
    "uint16", "uint32", "uint64", "SHELL_UINTS",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    "FLOAT8",
    "half", "float", "double", "short", "int", "long",
    "numpy_dtype", "from_numpy", "to_dtype",
    "get_default_dtype", "set_default_dtype", "default_float",
    "promote_types", "result_type", "binary_dtype", "scalar_dtype", "can_cast",
    "finfo", "iinfo",
]
# fmt: on

# NOTE [ Shadowed builtins ]
# This module defines `bool`, `int` and `float` as dtypes, exactly as `torch` does, so the Python
# types are spelled `builtins.bool`, `builtins.int` and `builtins.float` everywhere below.

# Kinds, ordered: a dtype of a higher kind wins promotion against any dtype of a lower kind.
_BOOL, _INT, _FLOAT = 0, 1, 2

# NOTE [ Public module of core classes ]
# torch's core classes live in its compiled core but name a public module: torch.dtype prints as
# <class 'torch.dtype'>, and that string shows up in typing annotations (Optional[torch.dtype]),
# in dataclass and argparse reprs and in error messages that libraries compare. The classes
# minitorch re-exports from the package root (dtype, finfo, iinfo here; memory_format; Size)
# therefore set `__module__ = "minitorch"`, and Generator, which torch files under torch._C,
# sets "minitorch._C". The class must be that module's attribute of the same name, because
# pickle finds a class, and an instance whose __reduce__ returns a bare name, through
# `__module__`: pickle.dumps(minitorch.float32) writes `minitorch.float32`. Files pickled
# before, naming minitorch._dtype, still load: the defining module keeps the names.


class dtype:
    """A tensor element type, one object per type, compared by identity. Mirrors torch.dtype.

    `np` is the NumPy dtype that stores it (for bfloat16, see `numpy_dtype`).
    """

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_kind")
    __module__ = "minitorch"  # See NOTE [ Public module of core classes ]
    is_complex = False

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'minitorch.dtype' instances")

    def __repr__(self):
        return "torch." + self.name

    __str__ = __repr__

    def __reduce__(self):
        # A string means "the module global of that name": unpickling gives back the singleton.
        return self.name

    # dtypes are unordered. These only give Python's TypeError torch's wording, which names the
    # type with its module ('torch.dtype'); any other operand may still answer the reflected op.
    def _unordered(self, other, op: str):
        if other.__class__ is dtype:
            raise TypeError(
                f"'{op}' not supported between instances of 'torch.dtype' and 'torch.dtype'"
            )
        return NotImplemented

    def __lt__(self, other):
        return self._unordered(other, "<")

    def __le__(self, other):
        return self._unordered(other, "<=")

    def __gt__(self, other):
        return self._unordered(other, ">")

    def __ge__(self, other):
        return self._unordered(other, ">=")

    def to_real(self) -> dtype:
        """The real dtype of the same precision: every minitorch dtype is real, so itself.
        Mirrors torch.dtype.to_real."""
        return self

    def to_complex(self) -> dtype:
        """Mirrors torch.dtype.to_complex.

        Differences from torch: minitorch has no complex dtypes, so a floating dtype raises a
        TypeError where torch returns complex64/complex128 (an integer or bool dtype raises
        torch's RuntimeError)."""
        if not self.is_floating_point:
            raise RuntimeError(f"Unknown Complex ScalarType for {scalar_name(self)}")
        raise TypeError(f"{self}.to_complex(): minitorch has no complex dtypes")

    def __getattr__(self, attr):
        # Only reached for a slot never filled: bfloat16's and float8's `np`, resolved on first
        # use.
        if attr == "np":
            return numpy_dtype(self)
        raise AttributeError(f"'minitorch.dtype' object has no attribute '{attr}'")


def _make(name: str, np_dtype, itemsize: builtins.int, kind: builtins.int, signed) -> dtype:
    dt = object.__new__(dtype)
    dt.name = name
    if np_dtype is not None:
        dt.np = np.dtype(np_dtype)
    dt.itemsize = itemsize
    dt.is_floating_point = kind == _FLOAT
    dt.is_signed = signed
    dt._kind = kind
    return dt


bool = _make("bool", np.bool_, 1, _BOOL, False)
uint8 = _make("uint8", np.uint8, 1, _INT, False)
int8 = _make("int8", np.int8, 1, _INT, True)
int16 = _make("int16", np.int16, 2, _INT, True)
int32 = _make("int32", np.int32, 4, _INT, True)
int64 = _make("int64", np.int64, 8, _INT, True)
float16 = _make("float16", np.float16, 2, _FLOAT, True)
bfloat16 = _make("bfloat16", None, 2, _FLOAT, True)  # `np` filled lazily, see numpy_dtype
float32 = _make("float32", np.float32, 4, _FLOAT, True)
float64 = _make("float64", np.float64, 8, _FLOAT, True)
# NOTE [ Shell unsigned dtypes ]
# torch's uint16, uint32 and uint64 are "shell" dtypes: tensors of them can be made, converted,
# viewed, indexed, printed and saved (16-bit PNGs and depth maps arrive as NumPy uint16), but
# promotion with any other integer or bool dtype is an error and most kernels are not built for
# them. They stay out of ALL_DTYPES (the fully supported ones); the promotion tables hold only
# their valid pairs, and a missing pair raises torch's error on the slow path (promotion_error).
uint16 = _make("uint16", np.uint16, 2, _INT, False)
uint32 = _make("uint32", np.uint32, 4, _INT, False)
uint64 = _make("uint64", np.uint64, 8, _INT, False)
SHELL_UINTS = (uint16, uint32, uint64)
# NOTE [ Float8 dtypes ]
# torch's float8 dtypes are storage formats: tensors of them are made, cast, viewed, indexed,
# printed and saved, but promotion with any other dtype is an error ("Promotion for Float8 Types
# is not supported") and torch's CPU kernels refuse most arithmetic. ml_dtypes stores them (as
# bfloat16, `np` filled lazily). Casts into them round as torch's do (cast_to_float8), not as
# ml_dtypes' astype: e4m3fn saturates at +-448, e8m0fnu keeps the exponent of |x|.
# Differences from torch: only arithmetic with a number (and clamp) is refused; tensor-tensor
# add/sub, neg, sum/mean/max and dot compute where torch's CPU kernels refuse them.
float8_e4m3fn = _make("float8_e4m3fn", None, 1, _FLOAT, True)
float8_e5m2 = _make("float8_e5m2", None, 1, _FLOAT, True)
float8_e4m3fnuz = _make("float8_e4m3fnuz", None, 1, _FLOAT, True)
float8_e5m2fnuz = _make("float8_e5m2fnuz", None, 1, _FLOAT, True)
float8_e8m0fnu = _make("float8_e8m0fnu", None, 1, _FLOAT, False)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)

half = float16
# torch's reduced-precision floats: ops on them compute in float32 and round once ("opmath")
HALF_FLOATS = (float16, bfloat16)
float = float32
double = float64
short = int16
int = int32
long = int64

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)

# bfloat16 and the float8 dtypes join when resolved
_FROM_NUMPY = {dt.np: dt for dt in ALL_DTYPES + SHELL_UINTS if dt is not bfloat16}
_ML_DTYPES = {dt.name: dt for dt in (bfloat16,) + FLOAT8}  # stored by ml_dtypes


def numpy_dtype(dt: dtype) -> np.dtype:
    """The NumPy dtype that stores `dt`; TypeError for bfloat16 and the float8 dtypes when
    ml_dtypes is not installed."""
    try:
        return object.__getattribute__(dt, "np")
    except AttributeError:
        pass
    try:
        import ml_dtypes  # optional, and slow to import: only when bfloat16 storage is needed
    except ImportError:
        raise TypeError(
            f"{dt.name} needs the optional package ml_dtypes (pip install ml_dtypes); "
            f"NumPy has no {dt.name}"
        ) from None
    dt.np = np.dtype(getattr(ml_dtypes, dt.name))
    _FROM_NUMPY[dt.np] = dt
    return dt.np


# ---------------------------------------------------------------------------------------------
# Conversions from NumPy and Python types

_SUPPORTED_NUMPY = (
    "float64, float32, float16, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool"
)


def via_float32(a, npdt):
    """a, rounded to float32 first when a float64 array or a Python float is about to become
    npdt, a 2-byte float: c10 builds Half and BFloat16 from a float, so torch rounds a double
    twice (NumPy's float16, and ml_dtypes' bfloat16 from version 0.7, round it once). Into a
    float8 dtype, a as torch casts it (cast_to_float8)."""
    if npdt.itemsize <= 2 and npdt.kind not in "iub":
        if npdt.itemsize == 1:
            return cast_to_float8(a, npdt)
        if a.__class__ is builtins.float:
            return np.float32(a)
        if getattr(a, "dtype", None) == "float64":
            return a.astype("float32")
    elif npdt.kind in "iu":
        if a.__class__ is builtins.int:
            return checked_int(a, npdt)
        if a.__class__ is builtins.float:  # masked_fill(m, float('-inf')) on a long tensor
            checked_float_int(a, npdt)
        elif _ml_stored(getattr(a, "dtype", None)):
            # ml_dtypes clips a negative bfloat16 (or float8) to 0 in an unsigned type; torch
            # converts as from a float (-2.25 -> uint8 254, as float32 and float16 do)
            return a.astype("float32")
        elif npdt == _NP_UINT8 and getattr(a, "dtype", None) == "float64":
            # c10 makes a uint8 from a double through int64 (-2147483649.0 -> 255, 4294967301.0
            # -> 5); NumPy goes through int32 there (both give 0)
            with np.errstate(invalid="ignore"):
                return a.astype("int64")
    return a


_NP_UINT8 = np.dtype("uint8")  # (a comparison with a NumPy dtype, not a str, parses nothing)
_ML_BY_NUMPY: dict = {}  # NumPy dtype -> whether ml_dtypes stores it, see _ml_stored


def _ml_stored(npdt) -> builtins.bool:
    """Whether npdt (a NumPy dtype, or None) is one of ml_dtypes' (bfloat16, the float8 dtypes):
    its name is read once per dtype (a NumPy dtype's name costs microseconds)."""
    try:
        return _ML_BY_NUMPY[npdt]
    except KeyError:
        ml = _ML_BY_NUMPY[npdt] = getattr(npdt, "name", None) in _ML_DTYPES
        return ml
    except TypeError:  # (unhashable)
        return getattr(npdt, "name", None) in _ML_DTYPES


def cast_to_float8(a, npdt):
    """a (an array or a Python number) as the float8 NumPy dtype npdt, rounded as torch casts
    (NOTE [ Float8 dtypes ]): through float32, then to nearest even. e4m3fn saturates at +-448
    (inf too); e5m2 overflows to inf and the fnuz dtypes to NaN (as ml_dtypes); NaN is 0x7F, or
    0xFF with its sign bit, in e4m3fn and e5m2 (ml_dtypes' e5m2 NaN is 0x7E); e8m0fnu keeps the
    exponent of |x|, one up from a mantissa of one half on (0 is 2**-127, inf and NaN are NaN),
    where ml_dtypes makes 0 and negative numbers NaN."""
    with quiet_casts():  # (a double beyond float32's range: inf, silently as torch)
        if isinstance(a, (np.ndarray, np.generic)) or not hasattr(a, "astype"):
            x = np.asarray(a, dtype=np.float32)
        else:  # a device array stays on its device
            x = a.astype(np.float32)
    if npdt.name == "float8_e8m0fnu":
        u = x.view(np.uint32)
        e = (u >> 23) & 0xFF
        up = ((u >> 22) & 1).astype(builtins.bool) & (((u & 0x3FFFFF) != 0) | (e > 0))
        out = np.where(e == 255, e, e + up).astype(np.uint8).view(npdt)
    else:
        if npdt.name == "float8_e4m3fn":
            x = np.clip(x, -448.0, 448.0)
            if isinstance(x, np.generic):  # (from a 0-d x)
                x = np.asarray(x)
        out = x.astype(npdt)
        if npdt.name in ("float8_e4m3fn", "float8_e5m2"):
            nan = np.isnan(x)
            if not isinstance(x, np.ndarray) or nan.any():  # (no host read of device data)
                sign = (x.view(np.uint32) >> 24).astype(np.uint8) & 0x80
                out = np.where(nan, sign | 0x7F, out.view(np.uint8)).view(npdt)  # (no mask read)
    return out if isinstance(a, np.ndarray) else out[()]


def cast_may_warn(src, dst) -> builtins.bool:
    """Whether NumPy's cast of a src array to dst (NumPy dtypes) can warn where torch casts
    silently: "invalid value encountered in cast" for NaN/inf into an integer, "overflow" for a
    float64 through float32 into float16 or bfloat16, or bfloat16 or an int into float16. The
    caller then casts under quiet_casts() (only then: errstate costs microseconds).

    Differences from torch: float64 to float32 and float32 to float16 (`.float()` on float64
    data, autocast's half casts) skip errstate for speed, so a finite value beyond the target's
    range still gives NumPy's "overflow encountered in cast" RuntimeWarning (the value is
    torch's inf), except in a float32 to float16 cast of 4096 elements or more on the CPU, which
    runs on the bits and is silent (NOTE [ Half casts ] in minitorch/_backend/numpy_backend.py)."""
    if dst.kind in "iu":
        return src.kind in "fV"  # (bfloat16's NumPy kind is 'V')
    if dst.itemsize != 2 or dst.kind == "b":
        return False
    if src.kind == "f":
        return src.itemsize == 8
    return src.kind in "Viu" and dst.kind == "f"


def quiet_casts():
    """A context in which NumPy's casts do not warn (see cast_may_warn)."""
    return np.errstate(invalid="ignore", over="ignore")


# c10's C++ name of each dtype, as torch's kernel messages spell it ("long int", "c10::Half")
CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "uint16": "short unsigned int",
    "uint32": "unsigned int",
    "uint64": "long unsigned int",
}


def out_dtype_error(want, got) -> RuntimeError:
    """torch's error for an out= whose dtype is not the result's, in the kernels that refuse to
    cast ("Expected out tensor to have dtype float, but got double instead"); `want` and `got`
    are dtypes (minitorch's or NumPy's: both have the name)."""
    return RuntimeError(
        f"Expected out tensor to have dtype {CPP_NAMES[want.name]}, but got "
        f"{CPP_NAMES[got.name]} instead"
    )


# c10's spelling of each dtype (by NumPy's name) in its checked conversion's overflow error
C10_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "int64_t", "int32": "int", "int16": "int16_t",
             "int8": "int8_t", "uint8": "uint8_t", "bool": "bool", "uint16": "uint16_t",
             "uint32": "uint32_t", "uint64": "uint64_t", "float8_e4m3fn": "c10::Float8_e4m3fn",
             "float8_e5m2": "c10::Float8_e5m2", "float8_e4m3fnuz": "c10::Float8_e4m3fnuz",
             "float8_e5m2fnuz": "c10::Float8_e5m2fnuz",
             "float8_e8m0fnu": "c10::Float8_e8m0fnu"}  # fmt: skip


def overflow_error(name: str) -> RuntimeError:
    """c10's error for a number the dtype named `name` (NumPy's name) cannot hold."""
    return RuntimeError(
        f"value cannot be converted to type {C10_NAMES.get(name, name)} without overflow"
    )


# The largest finite value of each narrow float dtype
FLOAT_TOP = {"float32": 3.4028234663852886e38, "float16": 65504.0,
              "bfloat16": 3.3895313892515355e38}  # fmt: skip


_TOP_BY_NUMPY: dict = {}  # FLOAT_TOP by NumPy dtype, filled as dtypes come


def _float_top(npdt):
    """FLOAT_TOP's entry for a NumPy dtype, None for a dtype without one; npdt.name is read the
    first time only (a NumPy dtype's name costs microseconds, a dict lookup nanoseconds)."""
    try:
        return _TOP_BY_NUMPY[npdt]
    except KeyError:
        top = _TOP_BY_NUMPY[npdt] = FLOAT_TOP.get(npdt.name)
        return top


_PY_NUMBERS = (builtins.float, builtins.int, builtins.bool)
_NUMBER_TYPES = (builtins.int, builtins.float, builtins.complex, np.bool_, np.number)


def fill_number(value, npdt, op: str = "fill_"):
    """A Python number every element is set to (full, fill_, masked_fill, index_fill), converted
    as c10's checked conversion does: as via_float32, and a finite number beyond a narrow float
    dtype's range raises torch's overflow error (`masked_fill(mask, -1e9)` on a float16 tensor:
    NumPy would write -inf) where arithmetic with the same number would not. An int no Scalar
    holds is an OverflowError whatever the dtype (see NOTE [ Ints beyond a Scalar ]). Anything
    but a number (None, a string, a list) is torch's TypeError, named after `op`: NumPy would
    store None as nan."""
    if value.__class__ not in _PY_NUMBERS:
        if not isinstance(value, _NUMBER_TYPES):
            raise TypeError(f"{op}(): the fill value must be a Number, not {type(value).__name__}")
        if isinstance(value, np.generic):  # as torch's parser reads it: the Python number it
            value = value.item()  # holds (np.float64(1e39) into int8 raises, not wraps)
    if value.__class__ is builtins.int and not SCALAR_INT_MIN <= value < SCALAR_INT_END:
        raise scalar_int_overflow(value)
    top = _float_top(npdt) if value.__class__ in (builtins.float, builtins.int) else None
    if top is not None:
        if abs(value) > top and value - value == 0:  # finite (inf and nan are
            raise overflow_error(npdt.name)  # stored as they are)
    elif npdt.itemsize == 1 and npdt.name in _ML_DTYPES and value == value:  # float8, not NaN
        info = finfo(_ML_DTYPES[npdt.name])
        # only e5m2 holds inf; e8m0fnu holds no 0 nor anything negative, but c10 checks an int
        # against -max alone there (fill_(0) and fill_(-1) pass: 2**-127 and 1)
        lo = -info.max if value.__class__ is builtins.int else info.min
        if not lo <= value <= info.max and not (
            npdt.name == "float8_e5m2" and abs(value) == math.inf
        ):
            raise overflow_error(npdt.name)
    return via_float32(value, npdt)


# NOTE [ Ints beyond a Scalar ]
# torch's argument parser reads a Python int given for a Scalar as an int64, or as a uint64 when
# it is positive: 2**63 passes the parser (then a kernel may refuse it: "value cannot be converted
# to type int64_t without overflow"), 2**64 and -2**63 - 1 do not: they are CPython's
# OverflowError ("int too big to convert" / "can't convert negative int to unsigned"), on every
# dtype, float ones included. A value assigned by x[i] = v is read as an int64 alone: ValueError
# "Overflow when unpacking long long" from 2**63 on (minitorch/_ops/indexing.py).
SCALAR_INT_MIN = -(1 << 63)
SCALAR_INT_END = 1 << 64


def scalar_int_overflow(v: int) -> OverflowError:
    """CPython's error for an int outside [-2**63, 2**64): NOTE [ Ints beyond a Scalar ]."""
    if v < 0:
        return OverflowError("can't convert negative int to unsigned")
    return OverflowError("int too big to convert")


def wrap_int(v: int, npdt, scalar: bool = True) -> int:
    """A Python int as an integer dtype's arithmetic kernels see it: wrapped around into its
    range, as torch converts the number (uint8 tensor + (-1) adds 255); NumPy would raise.
    scalar: v is a number the user gave, which torch's parser reads first, so one outside
    [-2**63, 2**64) is CPython's OverflowError (NOTE [ Ints beyond a Scalar ]); False for a
    product the kernel forms itself (add's alpha * other), which wraps."""
    bits = 8 * npdt.itemsize
    lo = -(1 << (bits - 1)) if npdt.kind == "i" else 0
    if lo <= v < lo + (1 << bits):
        return v
    if scalar and not SCALAR_INT_MIN <= v < SCALAR_INT_END:
        raise scalar_int_overflow(v)
    return (v - lo) % (1 << bits) + lo


def checked_int(v: int, npdt) -> int:
    """A Python int written into an integer dtype (fill_, x[i] = v, full), as c10 converts it:
    in range; for an unsigned type a negative value down to -max wraps (uint8: -1 is 255);
    anything else raises torch's RuntimeError (NumPy raised OverflowError or wrapped)."""
    info = np.iinfo(npdt)
    if info.min <= v <= info.max:
        return v
    if info.min == 0 and -info.max <= v < 0:
        return v + info.max + 1
    if not SCALAR_INT_MIN <= v < SCALAR_INT_END:
        raise scalar_int_overflow(v)
    raise overflow_error(npdt.name)


def checked_float_int(v: float, npdt) -> float:
    """A Python float written into an integer dtype, as c10 checks it: within the dtype's range
    before truncation, with no wrap-around (into uint8, -1.0 and -0.5 raise where the int -1 gives
    255, and 255.5 raises); NaN and inf raise. Returns v, for the store to truncate."""
    info = np.iinfo(npdt)
    if not info.min <= v <= info.max:  # also False for NaN
        raise overflow_error(npdt.name)
    return v


def from_numpy(np_dtype) -> dtype:
    """The minitorch dtype of a NumPy dtype; TypeError naming it when there is none.

    Mirrors the dtype check of torch.from_numpy, including its ValueError for a non-native byte
    order.
    """
    try:
        return _FROM_NUMPY[np_dtype]  # the hot path of Tensor.dtype
    except KeyError:
        pass
    np_dtype = np.dtype(np_dtype)
    if np_dtype in _FROM_NUMPY:  # an equal spelling, e.g. 'longlong' for int64
        return _FROM_NUMPY[np_dtype]
    lazy = _ML_DTYPES.get(np_dtype.name)
    if lazy is not None:
        try:
            if numpy_dtype(lazy) == np_dtype:
                return lazy
        except TypeError:
            pass
    if not np_dtype.isnative and np_dtype.newbyteorder("=") in _FROM_NUMPY:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported."
        )
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{np_dtype.type.__name__}. "
        f"The only supported types are: {_SUPPORTED_NUMPY}."
    )


_FROM_PYTHON = {builtins.bool: bool, builtins.int: int64, builtins.float: float64}


def _typename(x) -> str:
    cls = x.__class__
    if cls.__module__ == "builtins":
        return cls.__qualname__
    if any(c.__name__ == "Tensor" and c.__module__ == "minitorch" for c in cls.__mro__):
        return cls.__qualname__  # (a Python class: torch's tp_name, "Tensor", "Parameter")
    return f"{cls.__module__}.{cls.__qualname__}"


def _dtype_arg(x, op: str, arg: str, pos: builtins.int | None = None) -> dtype:
    """`x` as a dtype for argument `arg` of `op`, with torch's TypeError when it is none."""
    if x.__class__ is dtype:
        return x
    if isinstance(x, builtins.type) and x in _FROM_PYTHON:
        return _FROM_PYTHON[x]
    if isinstance(x, np.dtype) or (isinstance(x, builtins.type) and issubclass(x, np.generic)):
        try:
            return from_numpy(x)
        except (TypeError, ValueError):
            raise TypeError(f"{op}(): NumPy dtype {np.dtype(x)} has no minitorch dtype") from None
    if x is builtins.complex:
        raise TypeError(f"{op}(): minitorch has no complex dtypes")
    if pos is not None:  # (no position for one passed by keyword, as torch's parser words it)
        from minitorch._call_site import passed_by_keyword

        pos = None if passed_by_keyword(arg, op) else pos
    where = f"argument '{arg}'" if pos is None else f"argument '{arg}' (position {pos})"
    raise TypeError(f"{op}(): {where} must be torch.dtype, not {_typename(x)}")


_SCALAR_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
    "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
    "float64": "Double", "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64",
    "float8_e4m3fn": "Float8_e4m3fn", "float8_e5m2": "Float8_e5m2",
    "float8_e4m3fnuz": "Float8_e4m3fnuz", "float8_e5m2fnuz": "Float8_e5m2fnuz",
    "float8_e8m0fnu": "Float8_e8m0fnu",
}  # fmt: skip


# torch's legacy tensor type names ('FloatTensor' for float32): Tensor.type(), torch.FloatTensor
TENSOR_TYPE_NAMES = {name: scalar + "Tensor" for name, scalar in _SCALAR_NAMES.items()}


def scalar_name(dt: dtype) -> str:
    """torch's ScalarType name ('Float' for float32), as its error messages spell dtypes."""
    return _SCALAR_NAMES[dt.name]


# the dtypes whose legacy tensor classes torch's C++ type registry knows (torch.FloatTensor)
_REGISTERED_TYPES = frozenset(
    ("uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
)


# the dtypes torch's range and permutation kernels (arange, range, linspace, logspace, randperm)
# are not built for: they raise NotImplementedError naming the kernel and the ScalarType
NO_RANGE_KERNEL = frozenset(("bool", "uint16", "uint32", "uint64"))


def checked_type_name(t) -> str:
    """How torch's argument checks ('... but got X instead (while checking arguments for op)')
    name tensor t's type: its legacy class (torch.FloatTensor, torch.cuda.FloatTensor) for the
    eight original dtypes, the backend type (CPUBoolType, CUDABFloat16Type) for the others."""
    if t.dtype.name in _REGISTERED_TYPES:
        return t.type()
    return f"{t.device.type.upper()}{_SCALAR_NAMES[t.dtype.name]}Type"


def to_dtype(x, op: str = "to_dtype") -> dtype:
    """Read a `dtype=` argument: a dtype, Python `bool`/`int`/`float` (-> bool/int64/float64).

    Differences from torch: NumPy dtypes and scalar types (np.float32, ...) are accepted too.
    `op` names the calling function in the TypeError raised for anything else.
    """
    return _dtype_arg(x, op, "dtype")


# ---------------------------------------------------------------------------------------------
# The default floating dtype

_default = float32  # read by default_float() on the hot path; changed only by set_default_dtype


def default_float() -> dtype:
    """The default floating dtype (fast; for internal use)."""
    return _default


def get_default_dtype() -> dtype:
    """The dtype of floating tensors made without a dtype. Mirrors torch.get_default_dtype."""
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype. Mirrors torch.set_default_dtype."""
    global _default
    rule = "only floating-point types are supported as the default type"
    if d.__class__ is not dtype:
        raise TypeError(f"invalid dtype object: {rule}")
    if d in FLOAT8:  # torch looks for the dtype's legacy storage class, which float8 lacks
        raise TypeError(f"couldn't find storage object {scalar_name(d)}Storage")
    if not d.is_floating_point:
        raise TypeError(rule)
    _default = d
    _SCALAR_CACHE.clear()  # Python floats promote to the default dtype


# ---------------------------------------------------------------------------------------------
# Promotion


def _promote(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a._kind != b._kind:
        return a if a._kind > b._kind else b
    if a.itemsize != b.itemsize:
        return a if a.itemsize > b.itemsize else b
    # Same kind and size, different types: uint8/int8 or float16/bfloat16. Neither holds the other's
    # values, so PyTorch goes one size up.
    return int16 if a._kind == _INT else float32


_PROMOTE = {(a, b): _promote(a, b) for a in ALL_DTYPES for b in ALL_DTYPES}
# The shell unsigned dtypes promote only with themselves and with floating dtypes; every other
# pair is missing. See NOTE [ Shell unsigned dtypes ]
for _u in SHELL_UINTS:
    _PROMOTE[_u, _u] = _u
    for _f in (float16, bfloat16, float32, float64):
        _PROMOTE[_u, _f] = _PROMOTE[_f, _u] = _f
for _f in FLOAT8:  # a float8 dtype promotes only with itself: NOTE [ Float8 dtypes ]
    _PROMOTE[_f, _f] = _f


def float8_error(kernel: str, dt: dtype) -> NotImplementedError:
    """torch's error for a CPU kernel built for no float8 dtype (NOTE [ Float8 dtypes ])."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dt)}'")


def promotion_error(a: dtype, b: dtype) -> RuntimeError:
    """torch's error for a pair of dtypes with no common dtype (a float8 dtype with any other;
    a shell unsigned dtype with another integer or bool dtype)."""
    if a in FLOAT8 or b in FLOAT8:
        return RuntimeError(
            "Promotion for Float8 Types is not supported, attempted to promote "
            f"{scalar_name(a)} and {scalar_name(b)}"
        )
    return RuntimeError(
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
        f"{scalar_name(a)} and {scalar_name(b)}"
    )


def _promote_pair(a: dtype, b: dtype) -> dtype:
    try:
        return _PROMOTE[a, b]
    except KeyError:
        raise promotion_error(a, b) from None


def promote_types(type1: dtype = REQUIRED, type2: dtype = REQUIRED, *extra) -> dtype:
    """The smallest dtype both promote to. Mirrors torch.promote_types."""
    if extra or type1 is REQUIRED or type2 is REQUIRED:  # (torch's parser wording)
        raise arity_error("promote_types", extra, 2, type1=type1, type2=type2)
    a = _dtype_arg(type1, "promote_types", "type1", 1)
    b = _dtype_arg(type2, "promote_types", "type2", 2)
    return _promote_pair(a, b)


def can_cast(from_: dtype = REQUIRED, to: dtype = REQUIRED, *extra) -> builtins.bool:
    """Whether casting is allowed under PyTorch's rules. Mirrors torch.can_cast."""
    if extra or from_ is REQUIRED or to is REQUIRED:
        raise arity_error("can_cast", extra, 2, from_=from_, to=to)
    a = _dtype_arg(from_, "can_cast", "from_", 1)
    b = _dtype_arg(to, "can_cast", "to", 2)
    # Only a cast to a lower kind is refused (float -> int/bool, int -> bool); narrowing within a
    # kind is allowed.
    return b._kind >= a._kind


# NOTE [ Result type ]
# torch.result_type ranks operands in three priority levels: tensors with ndim > 0, 0-dim tensors,
# and Python scalars ("wrapped numbers"). Each level promotes within itself (a Python float counts
# as the default dtype, an int as int64); then a lower level only matters when its kind is higher
# than the level above it: an int tensor with a 0-dim float64 tensor gives float64, but a float32
# tensor stays float32, and a Python int never widens an int tensor. A bool level gives way to any
# number.


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    if higher is None:
        return lower
    if lower is None or higher._kind == _FLOAT:
        return higher
    if higher is bool or lower._kind == _FLOAT:
        return _promote_pair(higher, lower)
    return higher


def _scalar_type(scalar) -> dtype:
    """The dtype a Python scalar brings to promotion (a Python float: the default dtype)."""
    if isinstance(scalar, (builtins.bool, np.bool_)):
        return bool
    if isinstance(scalar, (builtins.int, np.integer)):
        return int64
    if isinstance(scalar, (builtins.float, np.floating)):
        return _default
    raise TypeError(f"result_type(): expected a bool, int or float scalar, got {_typename(scalar)}")


def result_type(*operands) -> dtype:
    """The dtype of an op's result. Mirrors torch.result_type, for any number of operands.

    Each operand is a `(dtype, ndim)` pair describing a tensor, or a Python bool/int/float.
    See NOTE [ Result type ].
    """
    if not operands:
        raise TypeError("result_type(): expected at least one operand")
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, tuple):
            dt, ndim = x
            dt = _dtype_arg(dt, "result_type", "dtype")
            if ndim:
                dim = dt if dim is None else _promote_pair(dim, dt)
            else:
                zero = dt if zero is None else _promote_pair(zero, dt)
        else:
            dt = _scalar_type(x)
            wrapped = dt if wrapped is None else _promote_pair(wrapped, dt)
    return _combine(dim, _combine(zero, wrapped))


# Tables for the per-op path, where a call should cost about one dict lookup.
_DIM_OVER_ZERO = {(a, b): _combine(a, b) for a in ALL_DTYPES for b in ALL_DTYPES}
for _u in SHELL_UINTS + FLOAT8:  # the valid pairs only, as in _PROMOTE
    for _d in ALL_DTYPES + SHELL_UINTS + FLOAT8:
        for _a, _b in ((_u, _d), (_d, _u)):
            try:
                _DIM_OVER_ZERO[_a, _b] = _combine(_a, _b)
            except RuntimeError:
                pass
del _u, _f, _d, _a, _b
_SCALAR_CACHE: dict = {}  # scalar class -> {tensor dtype: result}; cleared by set_default_dtype


def binary_dtype(a: dtype, a_ndim: builtins.int, b: dtype, b_ndim: builtins.int) -> dtype:
    """result_type of two tensors given by dtype and ndim (fast: the per-op path)."""
    if a is b:
        return a
    try:
        if a_ndim:
            return _PROMOTE[a, b] if b_ndim else _DIM_OVER_ZERO[a, b]
        return _DIM_OVER_ZERO[b, a] if b_ndim else _PROMOTE[a, b]
    except KeyError:  # See NOTE [ Shell unsigned dtypes ]
        if b_ndim and not a_ndim:  # torch names the dimensioned operand's dtype first
            raise promotion_error(b, a) from None
        raise promotion_error(a, b) from None


def scalar_dtype(t_dtype: dtype, scalar) -> dtype:
    """result_type of a tensor and a Python scalar (fast, cached: the per-op path)."""
    try:
        return _SCALAR_CACHE[scalar.__class__][t_dtype]
    except KeyError:
        s = _scalar_type(scalar)
        table = {t: _combine(t, s) for t in ALL_DTYPES + SHELL_UINTS + FLOAT8}
        _SCALAR_CACHE[scalar.__class__] = table
        return table[t_dtype]


# ---------------------------------------------------------------------------------------------
# finfo / iinfo

# bits, explicit mantissa bits, largest exponent
_FLOAT_LAYOUT = {
    float16: (16, 10, 15),
    bfloat16: (16, 7, 127),
    float32: (32, 23, 127),
    float64: (64, 52, 1023),
}
# The float8 dtypes' limits do not follow from a layout (e4m3fn spends its top code on NaN, not
# inf; the fnuz ones have no -0; e8m0fnu has no sign): eps, max, min, smallest normal
_FLOAT8_INFO = {
    float8_e4m3fn: (2.0**-3, 448.0, -448.0, 2.0**-6),
    float8_e5m2: (2.0**-2, 57344.0, -57344.0, 2.0**-14),
    float8_e4m3fnuz: (2.0**-3, 240.0, -240.0, 2.0**-7),
    float8_e5m2fnuz: (2.0**-3, 57344.0, -57344.0, 2.0**-15),
    float8_e8m0fnu: (1.0, 2.0**127, 2.0**-127, 2.0**-127),
}


def _info_dtype_arg(x, op: str) -> dtype:
    # torch.finfo/iinfo take torch dtypes and Python's float/int only: a NumPy dtype or scalar
    # type is torch's TypeError here, though other dtype= arguments accept one
    if isinstance(x, np.dtype) or (isinstance(x, builtins.type) and issubclass(x, np.generic)):
        raise TypeError(
            f"{op}(): argument 'type' (position 1) must be torch.dtype, not {_typename(x)}"
        )
    return _dtype_arg(x, op, "type", 1)


class finfo:
    """Machine limits of a floating dtype (default: the default dtype). Mirrors torch.finfo.

    Differences from torch: `finfo(None)` means the default dtype instead of raising.
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")
    __module__ = "minitorch"  # See NOTE [ Public module of core classes ]

    def __init__(self, type: dtype | None = None):
        dt = _default if type is None else _info_dtype_arg(type, "finfo")
        if not dt.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. "
                "Use torch.iinfo to handle 'torch.finfo'"
            )
        if dt.itemsize == 1:
            self.bits = 8
            self.eps, self.max, self.min, self.tiny = _FLOAT8_INFO[dt]
            self.smallest_normal = self.tiny
            self.resolution = 1.0  # (no decimal digit is exact in 2 or 3 mantissa bits)
            self.dtype = dt.name
            return
        bits, mantissa, max_exp = _FLOAT_LAYOUT[dt]
        self.bits = bits
        self.eps = 2.0**-mantissa
        self.max = (2.0 - self.eps) * 2.0**max_exp
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** (1 - max_exp)
        # Decimal digits the mantissa holds, as numpy.finfo's `precision`.
        self.resolution = 10.0 ** -builtins.int(mantissa * math.log10(2))
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Machine limits of an integer dtype. Mirrors torch.iinfo."""

    __slots__ = ("bits", "max", "min", "dtype")
    __module__ = "minitorch"  # See NOTE [ Public module of core classes ]

    def __init__(self, type: dtype = REQUIRED, *extra, **unknown):
        if type is REQUIRED or extra or unknown:  # (torch's binding words these itself)
            if type is REQUIRED:
                raise missing_positional("iinfo", "type")
            if extra:
                raise too_many_positional("iinfo", 1 + len(extra), 1)
            raise unexpected_keyword("iinfo", next(iter(unknown)))
        dt = _info_dtype_arg(type, "iinfo")
        if dt is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dt._kind != _INT:
            raise TypeError(
                "torch.iinfo() requires an integer input type. "
                "Use torch.finfo to handle 'torch.iinfo'"
            )
        self.bits = 8 * dt.itemsize
        if dt.is_signed:
            self.min = -(2 ** (self.bits - 1))
            self.max = 2 ** (self.bits - 1) - 1
        else:
            self.min = 0
            self.max = 2**self.bits - 1
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
