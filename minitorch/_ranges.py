"""Range factories: arange, range, linspace, logspace, with torch's CPU values bit for bit."""

from __future__ import annotations

import math
import warnings

import numpy as np

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, missing_positional
from minitorch._backend import cpu, default_device
from minitorch._factories import (
    _INT64_END,
    _alloc_error,
    _as_int,
    _build,
    _check_pin_memory,
    _device,
    _dtype_arg,
    _from_double,
    _into_out,
    _put,
    _require_grad,
    _typename,
    check_layout,
    passed_keywords,
)
from minitorch._tensor import Tensor, _make
from minitorch._tensor_methods import _at

__all__ = ["arange", "range", "linspace", "logspace"]

_builtin_range = range


# Ranges
#
# NOTE [ Range values ]
# torch's CPU kernels for arange and linspace write blocks of 2*V elements with AVX2 vector code
# (V = 32 bytes / element size) and the remaining tail with scalar code; the two evaluate different
# expressions (a block starts from its first value and adds j*step), and the compiler fuses the
# multiply-adds. minitorch evaluates the same expressions, with the same roundings, in NumPy, so
# the values equal torch's bit for bit (for up to 32768 elements: beyond that torch splits the
# range between threads, which moves the blocks). On other devices the values come from the
# plain formula start + i*step, computed on the device, as torch's CUDA kernels do.


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(x):
    c = 134217729.0 * x  # 2**27 + 1: Veltkamp's split into two 26-bit halves
    hi = c - (c - x)
    return hi, x - hi


# NOTE [ The FMA's signed zero ]
# The FMA of a product of -0. and a c of -0. is -0. (an exact sum of two -0.), which torch's
# arange(-0., end, negative step) and linspace(-0., negative end) give as their first value. The
# emulation's two_sum of them gives hi = -0. and lo = +0., and hi + (lo + p_err) would turn the
# -0. into +0.: where the low part v is zero the result is hi itself (exact: the low parts sum
# to 0), which is also right for every other zero.


def _fma(a, b, c):
    """a * b + c rounded once (float64 arrays), as the FMA instruction computes it.

    Error-free product and sum, then the low parts added with rounding to odd (Boldo and
    Melquiond, "Emulation of FMA and correctly rounded sums", 2008).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    scale = _split_scale(a) * _split_scale(b)
    if scale != 1.0:  # a finite factor past 2**900, whose split overflows: scaled by 2**-k,
        # an exact change of exponent (a c within 2**-766 of zero would lose low bits: no arange's)
        big = _split_scale(a)
        return _fma(a * big, b * (scale / big), np.asarray(c, np.float64) * scale) / scale
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    p_err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    hi, lo = _two_sum(c, p)
    v, v_err = _two_sum(lo, p_err)
    inexact_even = (v_err != 0) & ((v.view(np.int64) & 1) == 0)
    if np.any(inexact_even):
        v = np.where(inexact_even, np.nextafter(v, np.where(v_err > 0, np.inf, -np.inf)), v)
    with np.errstate(invalid="ignore"):
        out = np.where(v == 0, hi, hi + v)  # See NOTE [ The FMA's signed zero ]
        if not np.isfinite(out).all():  # an inf product or c (linspace's overflowed step):
            # the FMA's inf (or inf - inf's nan) is the plain sum's, not the split's nan
            out = np.where(np.isfinite(p) & np.isfinite(c), out, p + c)
    return out


def _split_scale(x) -> float:
    """2**-256 where a finite element of x is past 2**900 (Veltkamp's split of it, times 2**27,
    would overflow into nan), else 1."""
    big = np.abs(x, where=np.isfinite(x), out=np.zeros(x.shape)).max(initial=0.0) > 2.0**900
    return 2.0**-256 if big else 1.0


def _fma32(a, b, c):
    """fmaf: a * b + c rounded once to float32 (exact in float64 up to a negligible double
    rounding)."""
    return (np.float64(a) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(
        np.float32
    )


def _blocks(n: int, V: int):
    """(index, block start, offset in block, in a vector block?) of a CPU kernel's n outputs."""
    idx = np.arange(n, dtype=np.int64)
    n_vec = (n // (2 * V)) * 2 * V
    j = idx % V
    return idx, idx - j, j, idx < n_vec


def _arange_cpu(start, step, n: int, dt) -> np.ndarray:
    npdt = _dtype.numpy_dtype(dt)
    if dt._kind == 1:  # integers: int64 arithmetic on the truncated start and step
        start, step = int(start), int(step)
        if step == 0:  # a float step that truncates to 0 (int32 and smaller): n copies of start
            return np.full(n, start, dtype=np.int64).astype(npdt)
        return np.arange(start, start + n * step, step, dtype=np.int64).astype(npdt, copy=False)
    if (dt is _dtype.float32 or dt is _dtype.float64) and _tame(start, step, n, dt):
        return _arange_cpu_tame(start, step, n, dt)  # (no inf, no nan: no errstate to enter)
    with np.errstate(invalid="ignore"):  # an infinite step's inf - inf: nan, as torch, silently
        return _arange_cpu_float(start, step, n, dt, npdt)


def _tame(start: float, step: float, n: int, dt) -> bool:
    """Whether _arange_cpu_tame computes arange's values: at most 2**25 elements, and every
    value and partial result finite: |start| + n |step| below 2**900 (2**126 for float32, whose
    block bases are rounded to it)."""
    bound = 2.0**126 if dt is _dtype.float32 else 2.0**900
    return n <= 2**25 and abs(step) < bound and abs(start) + abs(step) * n < bound


def _fma_by_int(a: float, k, c):
    """_fma(a, k, c), bit for bit, for a float a, float64 integers 0 <= k <= 2**25 and c (a float
    or float64 array), |a| and |c| + |a k| < 2**900: k's Veltkamp split is (k, +0) exactly, so
    two of Dekker's four partial products are zeros that change no bit (the partial sums are
    never -0.0) and drop out, a's split is done once on the Python float, and nothing overflows
    (no errstate needed). About half _fma's cost, which dominates a small arange's."""
    t = 134217729.0 * a
    ah = t - (t - a)
    al = a - ah
    p = k * a
    p_err = (k * ah - p) + k * al
    hi = c + p  # _two_sum(c, p), inlined
    bb = hi - c
    lo = (c - (hi - bb)) + (p - bb)
    v = lo + p_err  # _two_sum(lo, p_err)
    bb = v - lo
    v_err = (lo - (v - bb)) + (p_err - bb)
    if v_err.any():  # (seldom: lo + p_err is mostly exact)
        inexact_even = (v_err != 0) & ((v.view(np.int64) & 1) == 0)
        v = np.where(inexact_even, np.nextafter(v, np.where(v_err > 0, np.inf, -np.inf)), v)
    if a < 0:  # a product of -0. (k = 0) can meet a c of -0. (NOTE [ The FMA's signed zero ])
        return np.where(v == 0, hi, hi + v)
    return hi + v


def _arange_cpu_tame(start: float, step: float, n: int, dt) -> np.ndarray:
    """_arange_cpu_float's float32 and float64 values for a _tame range, with fewer passes: the
    vector blocks' starts and the scalar tail in one multiply-add, then the blocks' offsets."""
    V = 32 // dt.itemsize
    n_vec = (n // (2 * V)) * 2 * V
    exact = abs(step.as_integer_ratio()[0]).bit_length() + (n - 1).bit_length() <= 53
    fma = _mul_add if exact else _fma_by_int  # (see _arange_cpu_float)
    k = np.arange(n, dtype=np.float64)
    if n_vec:
        j = k[:n_vec] % V
        k[:n_vec] -= j  # each vector block's first index; the tail's own
    # from a start of 0 the FMA rounds the product once and adds the zero: the plain multiply-add
    out = (_mul_add if start == 0 else fma)(step, k, start)
    if n_vec:
        base = out[:n_vec]
        if dt is _dtype.float32:
            base = base.astype(np.float32).astype(np.float64)
        out[:n_vec] = fma(step, j, base)
    return out.astype(np.float32) if dt is _dtype.float32 else out


def _mul_add(a, b, c):
    """a * b + c in float64, for products known to be exact: one rounding, as _fma's."""
    return np.multiply(a, b, dtype=np.float64) + c


def _arange_cpu_float(start, step, n: int, dt, npdt) -> np.ndarray:
    if dt is _dtype.float64 or dt is _dtype.float32:
        V = 32 // dt.itemsize
        idx, c, j, vec = _blocks(n, V)
        # step * k exact for every k < n (a step of few significant bits: 1.0, 0.5, 0.25):
        # the plain multiply-add rounds once, as the FMA does, at a fraction of _fma's cost
        exact = (
            math.isfinite(step)  # (an infinite step: inf - inf, the FMA's nan)
            and abs(step.as_integer_ratio()[0]).bit_length() + (n - 1).bit_length() <= 53
        )
        fma = _mul_add if exact else _fma
        scalar = fma(step, idx, start)
        if dt is _dtype.float64:
            base = fma(step, c, start)
            return np.where(vec, fma(j, step, base), scalar)
        base = fma(step, c, start).astype(np.float32).astype(np.float64)
        return np.where(vec, fma(j, step, base), scalar).astype(np.float32)
    # float16 / bfloat16: float32 arithmetic, 16 elements per vector
    start32, step32 = np.float32(start), np.float32(step)
    idx, c, j, vec = _blocks(n, 16)
    scalar = _fma32(step32, idx.astype(np.float32), start32).astype(npdt)
    base = _fma32(step32, c.astype(np.float32), start32).astype(npdt).astype(np.float32)
    return np.where(vec, _fma32(j.astype(np.float32), step32, base).astype(npdt), scalar)


def _num(x, op: str, arg: str):
    """A range argument as a Python number (0-d tensors and NumPy scalars read out)."""
    if isinstance(x, Tensor):
        if x.numel() != 1:
            raise RuntimeError(
                f"{op} only supports 0-dimensional start and end tensors, but got {arg} with "
                f"{x.ndim} dimension(s)."
            )
        return x.item()
    if isinstance(x, (np.generic,)):
        return x.item()
    if isinstance(x, (bool, int, float)):
        return x
    raise TypeError(f"{op}(): argument '{arg}' must be Number, not {_typename(x)}")


def _endpoints(start, end, op: str):
    """linspace's and logspace's start and end as numbers: a tensor must be 0-d (torch refuses a
    1-element 1-d one too), its message naming each tensor endpoint's dimensions."""
    dims = [
        f"{arg} with {x.ndim} dimension(s)"
        for x, arg in ((start, "start"), (end, "end"))
        if isinstance(x, Tensor)
    ]
    if (isinstance(start, Tensor) and start.ndim) or (isinstance(end, Tensor) and end.ndim):
        got = " and ".join(dims)
        raise RuntimeError(
            f"{op} only supports 0-dimensional start and end tensors, but got {got}."
        )
    return _num(start, op, "start"), _num(end, op, "end")


_FAST_INT = 2**53


_ARANGE_KW = (
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)
_ARANGE_FORMS = (
    f"Number end, *, Tensor out = None, {_ARANGE_KW}",
    f"Number start, Number end, *, {_ARANGE_KW}",
    f"Number start, Number end, Number step = 1, *, Tensor out = None, {_ARANGE_KW}",
)


def _arange_error(start, end, step, error: TypeError, extra=(), **options) -> TypeError:
    """torch's TypeError for arange's arguments (start, end, step as arange rebound them: a lone
    start is the end; `extra` the positional arguments past step; `options` its keywords, unknown
    ones too), as the user's call gave them: the one overload the argument count fits names its
    argument, else all are listed (NOTE [ Argument parser errors ]); `error` where the call
    cannot be read."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments

    call = call_arguments("arange")
    if call is None:
        return error
    n, names = call
    lone = n <= 1 and "end" not in names  # arange(x), arange(start=x): x was rebound as end
    values = {"start": end if lone else start, "end": end, "step": step, **options}
    positional = ((), (values["start"],), (start, end), (start, end, step))[min(n, 3)] + extra
    kwargs = {k: values[k] for k in reversed(names) if k in values}
    return invalid_arguments("arange", _ARANGE_FORMS, positional, kwargs)


def _parsed_number(x) -> bool:
    """Whether torch's parser takes x for a Number: a Python or NumPy number, or a 0-d tensor
    that does not require grad (as for a Scalar)."""
    if isinstance(x, Tensor):
        return x.ndim == 0 and not x.requires_grad
    return isinstance(x, (bool, int, float, np.number, np.bool_))


def _arange_parses(start, end, step, extra, out, dtype, layout, requires_grad, pin_memory, unknown):
    """Whether an overload of torch.arange takes the (rebound) arguments: torch's parser refuses
    the call before any range check otherwise."""
    return not (
        extra
        or unknown
        or not (_parsed_number(start) and _parsed_number(end) and _parsed_number(step))
        or (out is not None and not isinstance(out, Tensor))
        or not (dtype is None or dtype.__class__ is _dtype.dtype or _is_py_type(dtype))
        or (layout is not None and layout.__class__ is not _layout_type())
        or (requires_grad is not None and requires_grad.__class__ is not bool)
        or (pin_memory is not None and pin_memory.__class__ is not bool)
    )


def _is_py_type(x) -> bool:
    """Whether x is one of the Python types torch's parser reads as a dtype (compared by
    identity: a NumPy dtype compares equal to float)."""
    return x is bool or x is int or x is float


def _layout_type():
    from minitorch import strided

    return strided.__class__


_NOT_GIVEN = object()  # arange's start, end and step left out (None is refused when given)


def _keyword_bounds(start, end, step, extra, unknown, options):
    """arange's positional start, end, step with those given by keyword (popped from `unknown`)
    filled in. torch's parser refuses a bound given twice, and reads a lone start= as an
    arange(end) missing its end; a start= with other arguments and no end is left to arange's
    own check (no overload takes it)."""
    bounds = [start, end, step]
    twice = False
    for i, name in enumerate(("start", "end", "step")):
        if name in unknown:
            twice = twice or bounds[i] is not _NOT_GIVEN
            bounds[i] = unknown.pop(name)
    start, end, step = bounds
    if twice:
        error = TypeError("arange() received an invalid combination of arguments")
        end = start if end is _NOT_GIVEN else end  # arange(1, start=2): its type listed twice
        raise _arange_error(start, end, step, error, extra, **options, **unknown)
    if end is _NOT_GIVEN and start is not _NOT_GIVEN:  # start= without end=
        from minitorch._call_site import call_arguments

        call = call_arguments("arange")
        if call is not None and call[0] == 0 and list(call[1]) == ["start"] and not unknown:
            raise TypeError('arange() missing 1 required positional arguments: "end"')
        error = TypeError("arange() received an invalid combination of arguments")
        raise _arange_error(None, start, step, error, extra, **options, **unknown)
    return start, end, step


def arange(
    start=_NOT_GIVEN,
    end=_NOT_GIVEN,
    step=_NOT_GIVEN,
    /,
    *extra,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """Values from start to end (excluded) by step. Mirrors torch.arange: int64 when all of
    start, end and step are integers, else the default float dtype; see NOTE [ Range values ]."""
    if (  # arange(n) on the default device, the CPU: the index of logits[arange(n), y] (the
        # test of the int64 path below, without the general argument handling before it)
        start.__class__ is int
        and end is _NOT_GIVEN
        and step is _NOT_GIVEN
        and 0 <= start < _FAST_INT
        and device is None
        and dtype is None
        and out is None
        and requires_grad is False
        and layout is None
        and pin_memory is False
        and not extra
        and not unknown
        and default_device() is cpu
    ):
        try:
            arr = np.arange(start, dtype=np.int64)
        except (MemoryError, ValueError):  # (NumPy's "array is too big" is a ValueError)
            raise _alloc_error(8 * start) from None
        return _make(arr, cpu, False, None)
    if unknown:  # start=, end=, step= by keyword (positional-only above: arange(start=5) raises)
        options = {"out": out, "dtype": dtype, "layout": layout, "device": device}
        options.update(pin_memory=pin_memory, requires_grad=requires_grad)
        start, end, step = _keyword_bounds(start, end, step, extra, unknown, options)
    if pin_memory:
        _check_pin_memory()
    if end is _NOT_GIVEN:
        if start is _NOT_GIVEN or step is not _NOT_GIVEN:  # arange(), arange(5, step=2)
            start = None if start is _NOT_GIVEN else start
            raise _arange_error(start, start, step, TypeError(
                "arange() received an invalid combination of arguments - got (), but expected "
                "one of: (Number end, ...), (Number start, Number end, ...), (Number start, "
                "Number end, Number step, ...)"
            ), extra, out=out, dtype=dtype, layout=layout, device=device,
                requires_grad=requires_grad, pin_memory=pin_memory, **unknown)  # fmt: skip
        start, end, step = 0, start, 1
    elif start is _NOT_GIVEN:  # arange(end=5) (with a step: no overload takes it)
        start = 0 if step is _NOT_GIVEN else None
        step = 1 if step is _NOT_GIVEN else step
    elif step is _NOT_GIVEN:
        step = 1
    if (
        start.__class__ is int
        and end.__class__ is int
        and step.__class__ is int
        and dtype is None
        and out is None
        and not requires_grad
        and layout is None
        and not extra
        and not unknown
        and ((step > 0 and start <= end) or (step < 0 and end <= start))
        and -_FAST_INT < start < _FAST_INT
        and -_FAST_INT < end < _FAST_INT
        and -_FAST_INT < step < _FAST_INT  # (no count overflows: NOTE [ arange's int64 size ])
    ):  # arange(n) and friends on the CPU: every step of a training loop may build one
        dev = _device(device)
        if dev is cpu:
            try:
                arr = np.arange(start, end, step, dtype=np.int64)
            except MemoryError:
                raise _alloc_error(8 * len(_builtin_range(start, end, step))) from None
            return _make(arr, dev, False, None)
    if (
        (start.__class__ is float or end.__class__ is float or step.__class__ is float)
        and out is None
        and layout is None
        and device is None
        and (requires_grad is False or requires_grad is True)
        and pin_memory is False
        and not extra
        and not unknown
    ):
        arr = _plain_arange_float(start, end, step, dtype)
        if arr is not None:
            return _make(arr, cpu, requires_grad, None)
    if not _arange_parses(
        start, end, step, extra, out, dtype, layout, requires_grad, pin_memory, unknown
    ):
        error = TypeError("arange() received an invalid combination of arguments")
        options = {"out": out, "dtype": dtype, "layout": layout, "device": device}
        options.update(pin_memory=pin_memory, requires_grad=requires_grad, **unknown)
        raise _arange_error(start, end, step, error, extra, **options)
    if out is not None:
        return _into_out(
            out,
            dtype,
            "arange",
            lambda dt, dev: arange(start, end, step, dtype=dt, device=dev),
            keep_numel=True,
            requires_grad=requires_grad,
            warn_resize=True,
        )
    try:
        start, end, step = (
            _num(v, "arange", a) for v, a in ((start, "start"), (end, "end"), (step, "step"))
        )
    except TypeError as e:
        options = {"out": out, "dtype": dtype, "layout": layout, "device": device}
        options.update(pin_memory=pin_memory, requires_grad=requires_grad)
        raise _arange_error(start, end, step, e, **options) from None
    for v in (start, end, step):  # torch's parser reads an int as an int64 or a uint64 Scalar
        if v.__class__ is int and not _dtype.SCALAR_INT_MIN <= v < _dtype.SCALAR_INT_END:
            raise _dtype.scalar_int_overflow(v)
    is_int = not any(isinstance(v, float) for v in (start, end, step))
    dt = _dtype_arg(dtype, _dtype.int64 if is_int else _dtype.default_float(), "arange")
    if dt.name in _dtype.NO_RANGE_KERNEL:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_dtype.scalar_name(dt)}'")
    if dt.itemsize == 1 and dt.is_floating_point:  # NOTE [ Float8 dtypes ]
        raise _dtype.float8_error("arange_cpu", dt)
    start_d, end_d, step_d = float(start), float(end), float(step)
    if not (math.isfinite(start_d) and math.isfinite(end_d)):
        raise RuntimeError(f"unsupported range: {_fmt(start_d)} -> {_fmt(end_d)}")
    if not (step_d > 0 or step_d < 0):  # (a nan step too, as torch's test)
        raise RuntimeError("step must be nonzero")
    if not ((step_d > 0 and end_d >= start_d) or (step_d < 0 and end_d <= start_d)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt is _dtype.int64:  # See NOTE [ arange's int64 size ]
        xstart, xend, xstep = (_c10_int64(v) for v in (start, end, step))
        if xstep == 0:  # a float step that truncates to 0
            raise ValueError("step must be nonzero")
        sgn = 1 if xstep > 0 else -1
        size = _trunc_div(_wrap64(_wrap64(_wrap64(xend - xstart) + xstep) - sgn), xstep)
    else:
        if dt._kind == 1:  # torch converts start and step to the accumulation type (int64)
            xstart, xstep = int(start), int(step)
        else:
            xstart, xstep = start_d, step_d
        size = (end_d - start_d) / step_d
        size = math.ceil(size) if math.isfinite(size) else size
    if not (0 <= size <= _INT64_END):  # (NaN too)
        raise RuntimeError("invalid size, possible overflow?")
    if size == _INT64_END:  # (torch's check lets 2**63 in double through; as int64 it wraps)
        raise RuntimeError(
            f"IntArrayRef contains an int that cannot be represented as a SymInt: {-_INT64_END}"
        )
    n = size
    dev = _device(device)
    nbytes = n * _dtype.numpy_dtype(dt).itemsize
    if nbytes >= _INT64_END:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{n}]")
    if dev is cpu:
        try:
            arr = _arange_cpu(xstart, xstep, n, dt)
        except (MemoryError, ValueError) as e:  # (NumPy's "array is too big" is a ValueError)
            if isinstance(e, ValueError) and nbytes < 2**40:
                raise
            raise _alloc_error(nbytes) from None
    else:
        arr = _build(lambda xp: _arange_device(xp, xstart, xstep, n, dt), dev)
    return _require_grad(_make(arr, dev, False, None), requires_grad)


# NOTE [ arange's int64 size ]
# torch converts start, end and step of an int64 arange to int64 with c10's checked conversion
# (an int from 2**63 on, a float beyond int64's range compared in double, is its overflow error;
# 2.0**63 passes and wraps to -2**63), then counts the elements in int64 arithmetic, which
# wraps: (end - start + step - sign(step)) / step. So arange(-2**62, 2**62, 2**61) overflows to
# a negative count ("invalid size") and arange(-2**63, 2**63 - 1, 2**62) to an empty tensor.


def _wrap64(x: int) -> int:
    """x wrapped into int64's range, as C's two's-complement arithmetic wraps it."""
    return _dtype.wrap_int(x, _INT64_NP, False)


_INT64_NP = np.dtype(np.int64)


def _c10_int64(v) -> int:
    """A range argument as c10's checked conversion makes it an int64 (NOTE [ arange's int64
    size ])."""
    if isinstance(v, float):
        if not float(-_INT64_END) <= v <= float(_INT64_END - 1):
            raise _dtype.overflow_error("int64")
        return _wrap64(int(v))
    if not -_INT64_END <= v < _INT64_END:
        raise _dtype.overflow_error("int64")
    return int(v)


def _plain_arange_float(start, end, step, dtype):
    """arange's float32/float64 values (a host array) for a plain call of Python floats and
    ints, one a float at least, of at most 2**20 elements, or None (NOTE [ Plain range calls ]):
    the general route's checks passed, then its _arange_cpu_tame."""
    if not (
        (start.__class__ is float or start.__class__ is int)
        and (end.__class__ is float or end.__class__ is int)
        and (step.__class__ is float or step.__class__ is int)
    ):
        return None
    dt = _plain_float(dtype)
    if dt is None:
        return None
    if not (
        -_PLAIN_BOUND <= start <= _PLAIN_BOUND  # (not NaN; an int compared exactly)
        and -_PLAIN_BOUND <= end <= _PLAIN_BOUND
        and -_PLAIN_BOUND <= step <= _PLAIN_BOUND
    ):
        return None
    start_d, end_d, step_d = float(start), float(end), float(step)
    if not ((step_d > 0 and end_d >= start_d) or (step_d < 0 and end_d <= start_d)):
        return None
    size = (end_d - start_d) / step_d
    if not size <= 1 << 20:  # (a tiny step's inf, too)
        return None
    n = math.ceil(size)
    if not _tame(start_d, step_d, n, dt) or default_device() is not cpu:
        return None
    return _arange_cpu_tame(start_d, step_d, n, dt)


def _trunc_div(a: int, b: int) -> int:
    """C's integer division (rounds toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _fmt(x) -> str:
    """A number as C++'s ostream writes a double in torch's messages (printf's %g: 5, 0.5,
    1e+19, 1.23457e+08, inf)."""
    return f"{float(x):g}"


def _arange_device(xp, start, step, n, dt):
    npdt = _dtype.numpy_dtype(dt)
    if dt._kind == 1:
        return (xp.arange(n, dtype=np.int64) * int(step) + int(start)).astype(npdt)
    acc = np.float64 if dt is _dtype.float64 else np.float32
    idx = xp.arange(n, dtype=acc)
    return (idx * acc(step) + acc(start)).astype(npdt)


def range(
    start=None,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
) -> Tensor:
    """Deprecated torch.range: like arange but includes `end`, and float by default."""
    # torch's argument parser runs before the deprecation warning: its errors come without one
    if start is None:  # the parser's wording as it is
        raise missing_positional("range", "start", "end")
    _range_number(start, "start")  # (checked before a missing end, in the parameters' order)
    if end is None:  # torch.range has no one-argument form
        raise missing_positional("range", "end")
    _range_number(end, "end")
    _range_number(step, "step")
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(f"range(): argument 'out' must be Tensor, not {_typename(out)}")
    dt = _dtype_arg(dtype, _dtype.default_float(), "range")
    if layout is not None:
        check_layout(layout, "range", dtype)
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    start, end, step = (
        _num(v, "range", a) for v, a in ((start, "start"), (end, "end"), (step, "step"))
    )
    if out is not None:
        return _into_out(
            out,
            dtype,
            "range",
            lambda dt, dev: _range(start, end, step, dt, dev),
            keep_numel=True,
            requires_grad=requires_grad,
        )
    return _require_grad(_range(start, end, step, dt, _device(device)), requires_grad)


def _range_number(x, arg: str) -> None:
    """torch's parser's check of a Scalar argument of range: a Python or NumPy number, or a 0-d
    tensor that does not require grad (else a TypeError, with no warning)."""
    if isinstance(x, Tensor):
        if x.ndim == 0 and not x.requires_grad:
            return
    elif isinstance(x, (bool, int, float, complex, np.generic)):
        return
    raise TypeError(f"range(): argument '{arg}' must be Number, not {_typename(x)}")


def _range(start, end, step, dt, dev) -> Tensor:
    """range's values in dtype dt on dev. As torch's kernel, the arguments, the length and the
    values are computed in dt's accumulation type: int64 for an integer dtype (the arguments
    truncated first: range(0.5, 3, dtype=long) is [0, 1, 2, 3]), float32 for a 2-byte float
    (range(0, 0.3, 0.1, dtype=half) has 4 elements where float64 would give 3), else float64."""
    if dt.name in _dtype.NO_RANGE_KERNEL:
        raise NotImplementedError(f"\"range_cpu\" not implemented for '{_dtype.scalar_name(dt)}'")
    if not (float(step) > 0 or float(step) < 0):  # (a nan step too)
        raise RuntimeError("step must be nonzero")
    if dt._kind == 1:
        acc = int
        if not (math.isfinite(float(start)) and math.isfinite(float(end))):
            raise RuntimeError(f"unsupported range: {_fmt(float(start))} -> {_fmt(float(end))}")
    else:
        acc = np.float32 if dt.itemsize == 2 else np.float64
    if acc is int:  # c10's checked conversion to int64 (NOTE [ arange's int64 size ])
        xstart, xend, xstep = _c10_int64(start), _c10_int64(end), _c10_int64(step)
    else:
        xstart, xend, xstep = acc(start), acc(end), acc(step)
    if xstep == 0:  # an integer dtype's step that truncates to 0 (torch dies of SIGFPE)
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {_fmt(float(xstart))} -> {_fmt(float(xend))}")
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    npdt = _dtype.numpy_dtype(dt)
    if acc is int:
        n = _trunc_div(xend - xstart, xstep) + 1
    else:
        n = int((xend - xstart) / xstep + acc(1))  # (NumPy scalars: rounded in acc)
    try:
        if acc is int:
            arr = _build(
                lambda xp: (xp.arange(n, dtype=np.int64) * xstep + xstart).astype(npdt), dev
            )
        else:
            with np.errstate(invalid="ignore"):  # an infinite step: 0 * inf is nan, as torch's
                arr = _build(
                    lambda xp: (xstart + xp.arange(n, dtype=acc) * xstep).astype(npdt), dev
                )
    except (MemoryError, ValueError) as e:  # (NumPy's "array is too big" is a ValueError)
        if dev is not cpu or n * npdt.itemsize < 2**40:
            raise
        if n * npdt.itemsize >= _INT64_END:
            raise RuntimeError(f"Storage size calculation overflowed with sizes=[{n}]") from e
        raise _alloc_error(n * npdt.itemsize) from None
    return _make(arr, dev, False, None)


# linspace/logspace without steps: torch's TypeError lists the overloads (none without steps)
_NO_STEPS = object()


def _steps_arg(steps, op: str) -> int:
    n = _as_int(steps)
    if n is None:
        raise TypeError(
            f"{op}(): argument 'steps'{_at(3, 'steps', op)} must be int, not {_typename(steps)}"
        )
    if n < 0:
        raise RuntimeError("number of steps must be non-negative")
    return n


def _space_forms(op: str) -> list:
    """torch's four overloads of linspace/logspace (each endpoint a Tensor or a Number)."""
    base = ", float base = 10.0" if op == "logspace" else ""
    rest = (
        f", int steps{base}, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout "
        "= None, torch.device device = None, bool pin_memory = False, bool requires_grad = False"
    )
    kinds = (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number"))
    return [f" * ({a} start, {b} end{rest})" for a, b in kinds]


def _space_type_error(op: str, args: tuple, keywords: dict, unknown=None, extra=()) -> TypeError:
    """torch's TypeError for linspace/logspace arguments matching none of its overloads: `args`
    (start, end[, steps[, base]]) as the call gave them (NOTE [ Keyword arguments in argument
    errors ]; REQUIRED where left out), then the keywords the call passed (passed_keywords);
    `unknown`: keywords it has not (NumPy's num=); `extra`: positional arguments past them."""
    from minitorch._ops._parser_errors import overload_error, with_extra

    forms = [f[4:-1] for f in _space_forms(op)]  # (" * (" ... ")")
    named = with_extra(list(zip(("start", "end", "steps", "base"), args, strict=False)), extra)
    named += list(passed_keywords(op, keywords).items())
    named += list((unknown or {}).items())
    return overload_error(op, forms, forms, named, unknown=unknown or ())


def _to_int(x) -> np.ndarray:
    """C's double -> integer conversion (truncation toward zero), as int64."""
    return np.trunc(x).astype(np.int64)


def _linspace_cpu(start, end, steps: int, dt) -> np.ndarray:
    """torch's CPU linspace kernel (scalar code, fused multiply-adds): the first half counts up
    from start, the second half down from end; see NOTE [ Range values ]."""
    npdt = _dtype.numpy_dtype(dt)
    i = np.arange(steps, dtype=np.int64)
    up = i < steps // 2
    k = steps - 1 - i
    if dt._kind == 1:  # integers: a double step, values truncated toward zero
        s, e = float(int(start)), float(int(end))
        step = (e - s) / (steps - 1)
        return _to_int(np.where(up, _fma(step, i, s), _fma(-step, k, e))).astype(npdt)
    T = npdt.type
    s, e = T(start), T(end)
    step = T((e - s) / T(steps - 1))
    if dt is _dtype.float64 or dt is _dtype.float32:
        fma = _fma if dt is _dtype.float64 else _fma32
        return np.where(up, fma(step, i.astype(T), s), fma(-step, k.astype(T), e)).astype(T)
    # float16 / bfloat16: every operation rounds to the dtype (c10::Half arithmetic)
    return np.where(up, s + step * i.astype(T), e - step * k.astype(T)).astype(npdt)


def _to_range_dtype(value, dt):
    """start or end as torch's linspace converts it to the dtype before interpolating: a
    checked conversion (RuntimeError beyond the dtype's finite range; inf and nan pass into a
    float dtype, not an integer one), and an unsigned dtype wraps what it accepts below 0 (uint8
    takes -1 as 255)."""
    if dt._kind == 1:
        info = np.iinfo(_dtype.numpy_dtype(dt))
        lowest = -int(info.max) if info.min == 0 else int(info.min)  # c10 allows -max unsigned
        if isinstance(value, float):  # a float must fit as it is: -0.5 into uint8 overflows
            lowest = int(info.min)
        fits = lowest <= value <= int(info.max)
        if fits and value < 0 and info.min == 0:
            value = int(value) % (int(info.max) + 1)
    else:
        fits = (
            dt is _dtype.float64
            or not math.isfinite(value)
            or abs(value) <= 65504.0  # (every float dtype here holds float16's largest)
            or abs(value) <= _dtype.finfo(dt).max
        )
    if not fits:
        raise _dtype.overflow_error(_dtype.numpy_dtype(dt).name)
    return value


def _fill_value(value, dt):
    """linspace's start or logspace's base ** start filling a one-element result: fill_'s
    checked conversion, which range-checks an integer dtype (-1 into uint8 wraps) and float32
    (a finite value beyond it), not float16 or bfloat16 (1e5 is inf there)."""
    if dt._kind == 1:
        return _to_range_dtype(value, dt)
    if dt is _dtype.float32 and math.isfinite(value) and abs(value) > _dtype.FLOAT_TOP["float32"]:
        raise _dtype.overflow_error("float32")
    return value


def _c_int_cast(x: np.ndarray, npdt) -> np.ndarray:
    """Doubles converted to integer dtype npdt as torch's kernels convert them with a C cast on
    x86 (cvttsd2si): truncated, and NaN or a value beyond the 64-bit (int64) or 32-bit (every
    narrower type) register's range is its minimum; a narrower type keeps the low bits of the
    32-bit result (logspace(1, 10, 2, dtype=torch.int32) ends in -2**31, int16 in 0)."""
    bits = 64 if npdt.itemsize == 8 else 32
    wide, low = (np.int64, -(2.0**63)) if bits == 64 else (np.int32, -(2.0**31))
    t = np.trunc(x)
    fits = (t >= low) & (t < -low)  # (NaN fails)
    return np.where(fits, t, low).astype(wide).astype(npdt)


def _linspace_device(xp, start, end, steps: int, dt):
    """The formula of torch's CUDA linspace kernel (no vector blocks), computed on the device."""
    npdt = _dtype.numpy_dtype(dt)
    acc = np.float64 if dt._kind == 1 or dt is _dtype.float64 else np.float32
    if dt._kind == 1:
        start, end = int(start), int(end)
    s, e = acc(start), acc(end)
    step = acc((e - s) / acc(steps - 1))
    i = xp.arange(steps, dtype=acc)
    up = i * step + s
    down = e - (acc(steps - 1) - i) * step
    out = xp.where(i < steps // 2, up, down)
    if dt._kind == 1:
        out = xp.trunc(out)
    return out.astype(npdt)


# NOTE [ Plain range calls ]
# linspace(0, 1, 100), linspace(a, b, 3, dtype=float64), logspace(0, 1, 10), arange(0, 1, 0.1):
# Python numbers of moderate size (|x| <= 2**64, so no value or partial result overflows and no
# errstate is needed), a float32 or float64 result on the CPU default device, no other keyword
# than dtype= and a bool requires_grad= (a leaf that requires grad, as _require_grad's).
# The general routes parse every argument as torch's parser does and compute over whole arrays
# what each element needs; the plain helpers below compute each element with exactly the same
# operations in the same order (so the same bits), fewer NumPy calls and none of the parsing,
# or return None (anything else: the general route, which raises torch's errors).
# tests/test_s45_factories.py compares each with the general route (the helpers patched to
# return None).
_PLAIN_BOUND = 2.0**64


def _plain_float(dtype):
    """The float32 or float64 dtype a plain range call computes (dtype=, else the default
    float); None for any other (NOTE [ Plain range calls ])."""
    dt = _dtype.default_float() if dtype is None else dtype
    return dt if dt is _dtype.float32 or dt is _dtype.float64 else None


def _plain_linspace(start, end, steps: int, dtype):
    """linspace's float32/float64 values (a host array) for a plain call, or None (NOTE [ Plain
    range calls ]). _linspace_cpu's two halves computed apart: up from start for i < steps // 2,
    down from end after; float64's FMA is _fma_by_int's (every k an integer below 2**24), or the
    plain multiply-add where every product is exact (linspace(0, 1, 3)'s 0.5 * k)."""
    dt = _plain_float(dtype)
    if dt is None:
        return None
    if not (
        1 < steps <= 1 << 24
        and -_PLAIN_BOUND <= start <= _PLAIN_BOUND  # (not NaN)
        and -_PLAIN_BOUND <= end <= _PLAIN_BOUND
        and default_device() is cpu
    ):
        return None
    half = steps // 2
    if dt is _dtype.float64:  # (Python floats: float64's roundings, without NumPy scalars)
        s, e = float(start), float(end)
        step = (e - s) / (steps - 1)
        exact = abs(step.as_integer_ratio()[0]).bit_length() + (steps - 1).bit_length() <= 53
        if exact and steps <= 16:  # a few exact products: the multiply-adds in Python floats
            vals = [step * i + s for i in _builtin_range(half)]
            vals += [-step * k + e for k in _builtin_range(steps - 1 - half, -1, -1)]
            return np.array(vals, dtype=np.float64)
        up = np.arange(half, dtype=np.float64)  # i, for i < half
        down = np.arange(steps - 1 - half, -1, -1, dtype=np.float64)  # steps - 1 - i after
        fma = _mul_add if exact else _fma_by_int
        return np.concatenate((fma(step, up, s), fma(-step, down, e)))
    up = np.arange(half, dtype=np.float64)  # i, for i < half
    down = np.arange(steps - 1 - half, -1, -1, dtype=np.float64)  # steps - 1 - i, for i >= half
    T = np.float32
    s, e = T(start), T(end)
    step = T((e - s) / T(steps - 1))
    w = np.float64(step)  # _fma32's float64 arithmetic
    out = np.concatenate((w * up + np.float64(s), np.float64(-step) * down + np.float64(e)))
    return out.astype(np.float32)


def linspace(
    start=REQUIRED,
    end=REQUIRED,
    steps=_NO_STEPS,
    *extra,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kwargs,
) -> Tensor:
    """`steps` values evenly spaced from start to end (included). Mirrors torch.linspace; see
    NOTE [ Range values ]."""
    if (
        (start.__class__ is float or start.__class__ is int)
        and (end.__class__ is float or end.__class__ is int)
        and steps.__class__ is int
        and out is None
        and layout is None
        and device is None
        and (requires_grad is False or requires_grad is True)
        and pin_memory is False
        and not kwargs
        and not extra
    ):
        arr = _plain_linspace(start, end, steps, dtype)
        if arr is not None:
            return _make(arr, cpu, requires_grad, None)
    if kwargs or extra or start is REQUIRED or end is REQUIRED:
        # linspace(0, 1, num=11) (NumPy's spelling), linspace(): torch's parser lists the overloads
        given = (start, end) if steps is _NO_STEPS else (start, end, steps)
        keywords = dict(out=out, dtype=dtype, layout=layout, device=device)
        keywords.update(pin_memory=pin_memory, requires_grad=requires_grad)
        raise _space_type_error("linspace", given, keywords, kwargs, extra)
    if pin_memory:
        _check_pin_memory()
    if out is not None:
        return _into_out(
            out,
            dtype,
            "linspace",
            lambda dt, dev: linspace(start, end, steps, dtype=dt, device=dev),
            keep_numel=True,
            requires_grad=requires_grad,
        )
    given = (start, end) if steps is _NO_STEPS else (start, end, steps)
    try:
        start, end = _endpoints(start, end, "linspace")
        steps = _steps_arg(steps, "linspace")
        dt = _dtype_arg(dtype, _dtype.default_float(), "linspace")  # (dtype="float": the parser)
        if layout is not None:
            check_layout(layout, "linspace")
    except TypeError:
        keywords = dict(dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
        keywords["requires_grad"] = requires_grad
        raise _space_type_error("linspace", given, keywords) from None
    if dt.name in _dtype.NO_RANGE_KERNEL and steps > 1:  # torch fills 0 or 1 element of any dtype
        name = _dtype.scalar_name(dt)
        raise NotImplementedError(f"\"linspace_cpu\" not implemented for '{name}'")
    if dt.itemsize == 1 and dt.is_floating_point and steps > 1:  # NOTE [ Float8 dtypes ]
        raise _dtype.float8_error("linspace_cpu", dt)
    dev = _device(device)
    npdt = _dtype.numpy_dtype(dt)
    if steps <= 1:
        if steps:  # torch fills start (end is not read), with fill_'s checked conversion
            start = _fill_value(start, dt)
        if not steps:
            value = 0
        elif dt._kind == 1:
            value = int(start)
        else:
            value = bool(start) if dt is _dtype.bool else start
        with np.errstate(over="ignore"):  # unchecked here, as torch's fill: 1e5 -> half inf
            arr = _build(lambda xp: xp.full((steps,), value, dtype=npdt), dev)
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    start, end = _to_range_dtype(start, dt), _to_range_dtype(end, dt)
    if dev is cpu:
        with np.errstate(invalid="ignore", over="ignore"):
            arr = _linspace_cpu(start, end, steps, dt)
    else:
        arr = _build(lambda xp: _linspace_device(xp, start, end, steps, dt), dev)
    return _require_grad(_make(arr, dev, False, None), requires_grad)


def _logspace_host(start, end, steps: int, base, dt) -> np.ndarray:
    """torch's CPU logspace: base ** (start + i*step) up to halfway, base ** (end - ...) after,
    with C's pow (NumPy's vectorised power may differ in the last bit)."""
    npdt = _dtype.numpy_dtype(dt)
    base = float(base)
    if steps == 1:
        vals = [_pow(base, float(start))]
    else:
        if dt._kind == 1:
            s, e = int(start), int(end)
            diff = float(e - s)
        else:
            s, e = npdt.type(start), npdt.type(end)
            diff = float(npdt.type(e - s))
        s, e = float(s), float(e)
        step = diff / (steps - 1)
        half = steps // 2
        vals = [
            _pow(base, s + step * i if i < half else e - step * (steps - i - 1))
            for i in _builtin_range(steps)
        ]
    vals = np.array(vals, dtype=np.float64)
    if dt._kind == 1:
        return _c_int_cast(vals, npdt)
    return _from_double(vals, npdt)


def _pow(x: float, y: float) -> float:
    """C's pow: 0 to a negative power is inf (-inf for -0 to an odd integer power)."""
    try:
        return math.pow(x, y)
    except OverflowError:
        return math.inf
    except ValueError:  # a negative base to a fractional power, or 0 to a negative one
        if x == 0 and y < 0:
            odd = y == math.floor(y) and math.fmod(y, 2) != 0
            return math.copysign(math.inf, x) if odd else math.inf
        return math.nan


def _plain_logspace(start, end, steps: int, base, dtype):
    """logspace's float32/float64 values (a host array) for a plain call of a base in (0, 2**64],
    or None (NOTE [ Plain range calls ]): _logspace_host's, with math.pow called directly (an
    overflow, which _pow turns into inf, and a float32 value past 3e38, whose cast warns
    outside the general route's errstate, give None)."""
    dt = _plain_float(dtype)
    if dt is None:
        return None
    if not (
        1 < steps <= 1 << 24
        and -_PLAIN_BOUND <= start <= _PLAIN_BOUND  # (not NaN)
        and -_PLAIN_BOUND <= end <= _PLAIN_BOUND
        and 0 < base <= _PLAIN_BOUND
        and default_device() is cpu
    ):
        return None
    T = np.float64 if dt is _dtype.float64 else np.float32
    s, e = T(start), T(end)
    diff = float(T(e - s))
    s, e = float(s), float(e)
    step = diff / (steps - 1)
    half = steps // 2
    base = float(base)
    pow_ = math.pow
    try:
        vals = [pow_(base, s + step * i) for i in _builtin_range(half)]
        vals += [pow_(base, e - step * (steps - i - 1)) for i in _builtin_range(half, steps)]
    except OverflowError:
        return None
    if T is np.float64:
        return np.array(vals, dtype=np.float64)
    if max(vals) > 3e38:
        return None
    return np.array(vals, dtype=np.float64).astype(np.float32)


def logspace(
    start=REQUIRED,
    end=REQUIRED,
    steps=_NO_STEPS,
    base=10.0,
    *extra,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """`steps` values from base**start to base**end, log-evenly spaced. Mirrors torch.logspace."""
    if (
        (start.__class__ is float or start.__class__ is int)
        and (end.__class__ is float or end.__class__ is int)
        and steps.__class__ is int
        and (base.__class__ is float or base.__class__ is int)
        and out is None
        and layout is None
        and device is None
        and (requires_grad is False or requires_grad is True)
        and pin_memory is False
        and not unknown
        and not extra
    ):
        arr = _plain_logspace(start, end, steps, base, dtype)
        if arr is not None:
            return _make(arr, cpu, requires_grad, None)
    if unknown or extra or start is REQUIRED or end is REQUIRED:  # torch lists the overloads
        given = (start, end) if steps is _NO_STEPS else (start, end, steps)
        how = "position" if extra else _base_given(base, steps)
        args = (*given, base) if how == "position" else given
        keywords = dict(out=out, dtype=dtype, layout=layout, device=device)
        keywords.update(pin_memory=pin_memory, requires_grad=requires_grad)
        if how == "keyword":
            keywords["base"] = base
        raise _space_type_error("logspace", args, keywords, unknown, extra)
    if pin_memory:
        _check_pin_memory()
    if out is not None:
        return _into_out(
            out,
            dtype,
            "logspace",
            lambda dt, dev: logspace(start, end, steps, base, dtype=dt, device=dev),
            keep_numel=True,
            requires_grad=requires_grad,
        )
    given = (start, end) if steps is _NO_STEPS else (start, end, steps)
    try:
        start, end = _endpoints(start, end, "logspace")
        steps = _steps_arg(steps, "logspace")
        base = _num(base, "logspace", "base")
        dt = _dtype_arg(dtype, _dtype.default_float(), "logspace")  # (dtype="float": the parser)
        if layout is not None:
            check_layout(layout, "logspace")
    except TypeError:
        how = _base_given(base, steps)
        args = (*given, base) if how == "position" else given
        keywords = dict(dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
        keywords["requires_grad"] = requires_grad
        if how == "keyword":  # (torch lists it last)
            keywords["base"] = base
        raise _space_type_error("logspace", args, keywords) from None
    if dt.name in _dtype.NO_RANGE_KERNEL and steps > 1:  # torch fills 0 or 1 element of any dtype
        name = _dtype.scalar_name(dt)
        raise NotImplementedError(f"\"logspace_cpu\" not implemented for '{name}'")
    if not steps:
        return _require_grad(linspace(0, 0, 0, dtype=dt, device=device), requires_grad)
    if steps == 1:  # torch fills base ** start (end is not read), as linspace fills start
        _fill_value(_pow(float(base), float(start)), dt)
    elif dt is not _dtype.bool:  # start and end converted as linspace's
        start, end = _to_range_dtype(start, dt), _to_range_dtype(end, dt)
    with np.errstate(invalid="ignore", over="ignore"):
        host = _logspace_host(start, end, steps, base, dt)
    dev = _device(device)
    return _require_grad(_make(_put(host, dev), dev, False, None), requires_grad)


def _base_given(base, steps) -> str:
    """How the user's call gave logspace's base: "position", "keyword" or "" (left out), read
    from the call (NOTE [ Keyword arguments in argument errors ]); where it cannot be read, a
    base other than 10.0 counts as given, by keyword when steps was left out. Error paths only."""
    from minitorch._call_site import call_arguments

    call = call_arguments("logspace")
    if call is not None:
        n, names = call
        return "keyword" if "base" in names else "position" if n >= 4 else ""
    if base == 10.0:
        return ""
    return "keyword" if steps is _NO_STEPS else "position"
