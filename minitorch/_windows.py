"""Window functions (hann, hamming, blackman, bartlett, kaiser) and index factories
(tril_indices, triu_indices, unravel_index)."""

from __future__ import annotations

import collections.abc
import math
import operator

import numpy as np

from minitorch import _dtype
from minitorch._arg_errors import arity_error
from minitorch._factories import _build, _device, _dtype_arg, _put, _require_grad, check_layout
from minitorch._tensor import Tensor, _make
from minitorch._tensor_methods import _is_index as is_index
from minitorch._tensor_methods import _type_name as type_name

_OPTIONS = (
    "*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)

# fmt: off
__all__ = [
    "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
    "tril_indices", "triu_indices", "unravel_index",
]
# fmt: on


# --- windows ---
#
# Each window is computed on the host from torch's formula, in torch's order of operations,
# over n = 0 .. N-1 and cast once: in float64, or (blackman, bartlett) in the window's own
# float32/float64 arithmetic, so its values round as torch's do (float16 and bfloat16: in
# float32, closer than torch, which evaluates the cosines in half). float32 hann and hamming
# windows are float64 values rounded once, within an ulp of torch's (torch's float32 cosines
# are not NumPy's, so float32 steps would not give torch's bits either). A periodic window of
# length N is the symmetric window of length N + 1 less its last value (torch's definition).


class _Unset:
    """The default of a window parameter torch's overloads only take after the ones before it:
    hamming_window's alpha after periodic, its beta after alpha, kaiser_window's beta after
    periodic (kaiser_window(6, beta=8.0) finds no overload)."""

    __slots__ = ()

    def __repr__(self):
        return "<default>"


_UNSET = _Unset()


def _resolve_skipped(name: str, window_length, params: dict, defaults: dict, options) -> list:
    """The values of params (name -> value or _UNSET, in signature order), unset ones replaced by
    their defaults; torch's TypeError when one is passed after one left unset. The "got" list
    takes the leading ones as positional and the later ones, then the factory options (dtype,
    layout, device, pin_memory, requires_grad) not at their defaults, as keywords, listed last
    first as torch's parser lists keywords (assuming the usual order of a call)."""
    values = list(params.values())
    first_unset = next((i for i, v in enumerate(values) if v is _UNSET), len(values))
    later = [(k, v) for k, v in list(params.items())[first_unset:] if v is not _UNSET]
    if later:
        from minitorch._ops._common import arg_types, no_overload

        dtype, layout, device, pin_memory, requires_grad = options
        opts = [("dtype", dtype), ("layout", layout), ("device", device)]
        opts += [("pin_memory", pin_memory or None), ("requires_grad", requires_grad or None)]
        keywords = later + [(k, v) for k, v in opts if v is not None]
        got = arg_types(window_length, *values[:first_unset])
        got += "".join(f", {k}={type_name(v)}" for k, v in reversed(keywords))
        raise no_overload(name, got, _overloads(list(params)[1:]))
    return [defaults[k] if v is _UNSET else v for k, v in params.items()]


def _overloads(names=()) -> list:
    """torch's signatures of a window: (window_length), (.., periodic), then one more coefficient
    of names at a time."""
    heads = ["int window_length", "int window_length, bool periodic"]
    for k in range(len(names)):
        heads.append(heads[1] + "".join(f", float {n}" for n in names[: k + 1]))
    return [f"{h}, {_OPTIONS}" for h in heads]


def _too_many(name: str, args: tuple, names=()) -> TypeError:
    """torch's TypeError for more positional arguments than any overload of the window takes:
    its options are keyword-only (hann_window(8, False, torch.float64) finds no overload)."""
    from minitorch._ops._common import arg_types, no_overload

    return no_overload(name, arg_types(*args), _overloads(names))


def _check_window_args(name: str, window_length, periodic, floats=(), names=()):
    """torch's TypeError for a periodic that is not a bool or a coefficient that is not a float:
    its parser finds no overload of the window (hann_window(5, None), hamming_window(5, True,
    "a")). Returns the coefficients as numbers."""
    from minitorch._ops._common import arg_types, check_float, no_overload

    args = (window_length, periodic, *floats)
    try:
        if periodic.__class__ is not bool:
            raise TypeError
        return tuple(check_float(name, f, "", None) for f in floats)
    except TypeError:
        # the arguments up to the offending one (those after it may be defaults, unknown here)
        bad = 1 if periodic.__class__ is not bool else 2
        while bad < len(args) - 1 and args[bad].__class__ in (bool, int, float):
            bad += 1
        args = args[: bad + 1]
        raise no_overload(name, arg_types(*args), _overloads(names)) from None


def _window(
    name: str, window_length, periodic, dtype, device, requires_grad, formula, in_dtype=False,
    options=(None, False), coefs=(),
) -> Tensor:  # fmt: skip
    """The window of `formula`; `options` its (layout, pin_memory), `coefs` the coefficients
    after periodic (for its argument errors: NOTE [ Factory option errors ])."""
    if window_length.__class__ is not int:
        # NumPy integers and 0-d integer tensors are ints to torch's parser, bools, floats and
        # arrays are not (NOTE [ Int-like arguments ]); np.array(4) passes _is_index's
        # operator.index, so it is refused by name, as torch refuses it
        if not is_index(window_length) or isinstance(window_length, np.ndarray):
            raise TypeError(
                f"{name}(): argument 'window_length' (position 1) must be int, not "
                f"{type_name(window_length)}"
            )
        window_length = operator.index(window_length)
    if periodic.__class__ is not bool:
        _check_window_args(name, window_length, periodic)
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    try:
        dt = _dtype_arg(dtype, _dtype.default_float(), name)
        if options[0] is not None:
            check_layout(options[0], name)
    except TypeError as e:
        raise _option_error(name, e, (window_length, periodic, *coefs), dtype, device,
                            requires_grad, options) from None  # fmt: skip
    dev = _device(device)
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_text(dt, dev)}")
    if window_length <= 1:
        arr = _build(lambda xp: xp.ones((window_length,), dtype=_dtype.numpy_dtype(dt)), dev)
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    n_points = window_length + 1 if periodic else window_length
    # in_dtype: computed in the window's own float32/float64 arithmetic, as torch's (its ends
    # are torch's then: blackman's first value is exactly 0 in float64, -2.98e-08 in float32)
    work = np.float64
    if in_dtype and dt is not _dtype.float64:
        work = np.float32
    n = np.arange(n_points, dtype=work)
    values = formula(n, n_points)[:window_length]
    host = np.ascontiguousarray(values.astype(_dtype.numpy_dtype(dt)))
    return _require_grad(_make(_put(host, dev), dev, False, None), requires_grad)


def _option_error(name, error, args, dtype, device, requires_grad, options) -> TypeError:
    """option_error for the window `name` called with `args` (window_length, periodic and its
    coefficients; those the call gave are read from it). For error paths only."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import option_error

    names = ["window_length", "periodic", *{"hamming_window": ("alpha", "beta"),
                                            "kaiser_window": ("beta",)}.get(name, ())]
    call = call_arguments(name)
    given = call[0] if call is not None else 1 + (args[1] is not True) + len(args[2:])
    layout, pin_memory = options
    kw = {"dtype": dtype, "layout": layout, "device": device, "pin_memory": pin_memory,
          "requires_grad": requires_grad}  # fmt: skip
    named = list(zip(names, args[:given], strict=False))
    return option_error(name, _overloads(names[2:]), named, kw, None, error)


# the C++ names torch's TensorOptions printout gives the integer and bool dtypes
_CPP_NAMES = {
    "bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
    "int32": "int", "int64": "long int", "uint16": "short unsigned int",
    "uint32": "unsigned int", "uint64": "long unsigned int",
}  # fmt: skip


def _options_text(dt, dev) -> str:
    """The TensorOptions printout torch's window error ends with (layout, requires_grad and
    pin_memory as their defaults)."""
    name = _CPP_NAMES.get(str(dt).split(".")[-1], str(dt))
    return (
        f"TensorOptions(dtype={name}, device={dev}, layout=Strided (default), "
        "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
    )


def _cosine_sum(alpha, beta):
    """alpha - beta cos(2 pi n / (N - 1)), in n's dtype in torch's order: cos(.) (-beta) + alpha"""

    def formula(n, big_n):
        f = n.dtype.type
        return np.cos(n * f(2.0 * math.pi / (big_n - 1))) * f(-beta) + f(alpha)

    return formula


def hann_window(
    window_length,
    periodic=True,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """0.5 - 0.5 cos(2 pi n / (N - 1)). Mirrors torch.hann_window."""
    if extra:
        raise _too_many("hann_window", (window_length, periodic, *extra))
    return _window(
        "hann_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _cosine_sum(0.5, 0.5),
        options=(layout, pin_memory),
    )


def hamming_window(
    window_length,
    periodic=_UNSET,
    alpha=_UNSET,
    beta=_UNSET,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """alpha - beta cos(2 pi n / (N - 1)). Mirrors torch.hamming_window."""
    if extra:
        names = ("alpha", "beta")
        raise _too_many("hamming_window", (window_length, periodic, alpha, beta, *extra), names)
    periodic, alpha, beta = _resolve_skipped(
        "hamming_window",
        window_length,
        {"periodic": periodic, "alpha": alpha, "beta": beta},
        {"periodic": True, "alpha": 0.54, "beta": 0.46},
        (dtype, layout, device, pin_memory, requires_grad),
    )
    alpha, beta = _check_window_args(
        "hamming_window", window_length, periodic, (alpha, beta), ("alpha", "beta")
    )
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _cosine_sum(alpha, beta),
        options=(layout, pin_memory),
        coefs=(alpha, beta),
    )


def blackman_window(
    window_length,
    periodic=True,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).
    Mirrors torch.blackman_window."""
    if extra:
        raise _too_many("blackman_window", (window_length, periodic, *extra))
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _blackman,
        in_dtype=True,
        options=(layout, pin_memory),
    )


def _blackman(n, big_n):
    # torch's order of the terms, in n's dtype: 0.08 cos(2w) - 0.5 cos(w) + 0.42
    f = n.dtype.type
    w = n * f(2.0 * math.pi / (big_n - 1))
    return f(0.08) * np.cos(f(2) * w) - f(0.5) * np.cos(w) + f(0.42)


def bartlett_window(
    window_length,
    periodic=True,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """1 - |2 n / (N - 1) - 1|. Mirrors torch.bartlett_window."""
    if extra:
        raise _too_many("bartlett_window", (window_length, periodic, *extra))
    return _window(
        "bartlett_window",
        window_length,
        periodic,
        dtype,
        device,
        requires_grad,
        _bartlett,
        in_dtype=True,
        options=(layout, pin_memory),
    )


def _bartlett(n, big_n):
    # torch's steps in n's dtype: 2 n / (N - 1) rising, then 2 - that past the middle
    f = n.dtype.type
    w = n * f(2.0 / (big_n - 1))
    half = (big_n - 1) // 2 + 1
    w[half:] = f(2.0) - w[half:]
    return w


def kaiser_window(
    window_length,
    periodic=_UNSET,
    beta=_UNSET,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2.
    Mirrors torch.kaiser_window."""
    if extra:
        raise _too_many("kaiser_window", (window_length, periodic, beta, *extra), ("beta",))
    periodic, beta = _resolve_skipped(
        "kaiser_window",
        window_length,
        {"periodic": periodic, "beta": beta},
        {"periodic": True, "beta": 12.0},
        (dtype, layout, device, pin_memory, requires_grad),
    )
    (beta,) = _check_window_args("kaiser_window", window_length, periodic, (beta,), ("beta",))

    def formula(n, big_n):
        a = (big_n - 1) / 2.0
        r = np.clip(1.0 - ((n - a) / a) ** 2, 0.0, None)
        return np.i0(beta * np.sqrt(r)) / np.i0(float(beta))

    return _window(
        "kaiser_window", window_length, periodic, dtype, device, requires_grad, formula,
        options=(layout, pin_memory), coefs=(beta,),
    )  # fmt: skip


# --- triangle indices ---


_REQUIRED = object()  # row and col: torch's parser names what a call leaves out


def _triangle_indices(name, row, col, offset, dtype, device, lower: bool) -> Tensor:
    if row is _REQUIRED or col is _REQUIRED:
        from minitorch._ops._parser_errors import missing_arguments

        given = {k: v for k, v in (("row", row), ("col", col)) if v is not _REQUIRED}
        raise missing_arguments(name, (("row", False), ("col", False)), (), given)
    if row.__class__ is not int or col.__class__ is not int or offset.__class__ is not int:
        from minitorch._ops._common import check_int

        row = check_int(name, row, "row", 1)
        col = check_int(name, col, "col", 2)
        offset = check_int(name, offset, "offset", 3)
    for arg, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{arg} must be non-negative, got{value}")
    dt = _dtype_arg(dtype, _dtype.int64, name)
    if dt not in (_dtype.int64, _dtype.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_dtype.scalar_name(dt)}'")
    # row r holds the columns start[r] .. stop[r] - 1: built from the counts per row (the size of
    # the output), not by masking a row x col grid
    nd = _dtype.numpy_dtype(dt)
    r = np.arange(row, dtype=np.int64)
    offset = min(max(offset, -row - 1), col)  # (the same rows: no int64 overflow below)
    if lower:
        start = np.zeros(row, dtype=np.int64)
        stop = np.clip(r + (offset + 1), 0, col)
    else:
        start = np.clip(r + offset, 0, col)
        stop = np.full(row, col, dtype=np.int64)
    count = stop - start
    first = np.cumsum(count) - count  # where each row begins in the output
    host = np.empty((2, int(first[-1] + count[-1]) if row else 0), dtype=nd)
    host[0] = np.repeat(r, count)
    host[1] = np.arange(host.shape[1], dtype=np.int64) - np.repeat(first - start, count)
    dev = _device(device)
    return _make(_put(np.ascontiguousarray(host), dev), dev, False, None)


def tril_indices(
    row=_REQUIRED,
    col=_REQUIRED,
    offset=0,
    *extra,
    dtype=None,
    device=None,
    layout=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """The (2, N) coordinates of the lower triangle of a row x col matrix, row by row
    (offset > 0 takes diagonals above the main one). Mirrors torch.tril_indices."""
    if extra:
        raise arity_error("tril_indices", extra, 3, row=row, col=col)
    if layout is not None:
        check_layout(layout, "tril_indices", dtype)
    out = _triangle_indices("tril_indices", row, col, offset, dtype, device, lower=True)
    return _require_grad(out, requires_grad)  # integer indices: True raises torch's error


def triu_indices(
    row=_REQUIRED,
    col=_REQUIRED,
    offset=0,
    *extra,
    dtype=None,
    device=None,
    layout=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """The (2, N) coordinates of the upper triangle of a row x col matrix, row by row.
    Mirrors torch.triu_indices."""
    if extra:
        raise arity_error("triu_indices", extra, 3, row=row, col=col)
    if layout is not None:
        check_layout(layout, "triu_indices", dtype)
    out = _triangle_indices("triu_indices", row, col, offset, dtype, device, lower=False)
    return _require_grad(out, requires_grad)  # integer indices: True raises torch's error


# --- unravel_index ---


def unravel_index(indices, shape) -> tuple:
    """Flat indices into coordinates of `shape`: one int64 tensor per dimension. Out-of-range
    and negative indices wrap (floor division and modulo), as torch 2.13 computes them.
    Mirrors torch.unravel_index."""
    if not isinstance(indices, Tensor):
        indices.is_complex()  # torch's first read of indices: a non-tensor's AttributeError
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, Tensor) or not isinstance(shape, (int, collections.abc.Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if not isinstance(shape, int):
        bad = next((s for s in shape if not isinstance(s, int)), None)
        if bad is not None:
            raise TypeError(
                f"expected 'shape' sequence to only contain ints, but got {type(bad)}"
            )
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if any(s >= 2**63 for s in shape):
        raise ValueError("Overflow when unpacking long long")
    if not shape:
        return ()
    if any(s == 0 for s in shape):
        raise RuntimeError("ZeroDivisionError")
    xp = indices._device.backend.xp
    flat = indices._data.astype("int64", copy=False)
    coords = []
    stride = 1
    for size in reversed(shape):
        coords.append(xp.asarray(xp.remainder(xp.floor_divide(flat, stride), size)))
        stride *= size
    return tuple(_make(c, indices._device, False, None) for c in reversed(coords))
