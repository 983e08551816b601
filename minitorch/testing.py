"""minitorch.testing: assert_close, assert_allclose and make_tensor, as torch.testing.

Comparisons read tensors back to the host (one device-to-host copy per tensor compared): they
are test helpers, not library code.
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import minitorch as _mt
from minitorch._ops.logical import _close_args, check_tolerances
from minitorch._tensor import Tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]

# (rtol, atol) by dtype, as torch.testing; every other dtype compares exactly
_DEFAULT_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}


class _Mismatch(AssertionError):
    """A failed comparison; `path` is where in nested containers it happened."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.message, self.path = message, path


class _Unsupported(TypeError):
    """A pair of inputs no comparison handles; `path` as _Mismatch's (torch's TypeError names
    it too, and `msg` does not replace this one's text)."""

    def __init__(self, actual, expected, path: str = ""):
        self.message = (
            "No comparison pair was able to handle inputs of type "
            f"{type(actual)} and {type(expected)}."
        )
        super().__init__(self.message)
        self.path = path


def _tolerances(dtypes, rtol, atol) -> tuple:
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}."
        )
    if rtol is not None:
        return rtol, atol
    pairs = [_DEFAULT_TOLERANCES.get(dt.name, (0.0, 0.0)) for dt in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind: str, diff, idx, tol, equality: bool) -> str:
    if idx is None:
        line = f"{kind.title()} difference: {diff}"
    else:
        line = f"Greatest {kind} difference: {diff} at index {idx}"
    return line if equality else f"{line} (up to {tol} allowed)"


def _message(what: str, extra: str, abs_diff, abs_idx, rel_diff, rel_idx, rtol, atol) -> str:
    equality = rtol == 0 and atol == 0
    lines = [
        f"{what} are not {'equal' if equality else 'close'}!",
        "",
        extra,
        _diff_line("absolute", abs_diff, abs_idx, atol, equality),
        _diff_line("relative", rel_diff, rel_idx, rtol, equality),
    ]
    return "\n".join(lines)


# --- numbers ---


def _compare_numbers(actual, expected, *, rtol, atol, equal_nan, check_dtype):
    if isinstance(actual, builtins.bool) or isinstance(expected, builtins.bool):
        if actual is not expected:
            raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}")
        return
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    floats = isinstance(actual, builtins.float) or isinstance(expected, builtins.float)
    if (rtol is None) != (atol is None):
        _tolerances((), rtol, atol)  # raises
    if rtol is None:
        rtol, atol = (1e-7, 1e-7) if floats else (0.0, 0.0)
    if _number_close(actual, expected, rtol, atol, equal_nan):
        return
    _raise_scalar(actual, expected, rtol, atol)


def _number_close(actual, expected, rtol, atol, equal_nan) -> builtins.bool:
    if actual == expected:
        return True
    if equal_nan and actual != actual and expected != expected:  # both NaN
        return True
    if math.isinf(abs(actual)) or math.isinf(abs(expected)):
        return False
    return abs(actual - expected) <= atol + rtol * abs(expected)


def _raise_scalar(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = math.inf if expected == 0 else abs_diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    raise _Mismatch(_message("Scalars", extra, abs_diff, None, rel_diff, None, rtol, atol))


# --- tensors ---


def _host(t: Tensor) -> np.ndarray:
    t = t.detach()
    if t.dtype == _mt.bfloat16:
        t = t.float()
    return t.cpu().numpy()


def _compare_tensors(
    actual, expected, *, rtol, atol, equal_nan, check_device, check_dtype, check_stride, path=()
):
    if actual.shape != expected.shape:
        raise _Mismatch(
            f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}."
        )
    # torch compares the strides right after the shapes (before device and dtype), in elements
    if check_stride and actual.stride() != expected.stride():
        raise _Mismatch(
            "The values for attribute 'stride()' do not match: "
            f"{actual.stride()} != {expected.stride()}."
        )
    for attr, check in (("device", check_device), ("dtype", check_dtype)):
        a, e = getattr(actual, attr), getattr(expected, attr)
        if check and a != e:
            raise _Mismatch(f"The values for attribute '{attr}' do not match: {a} != {e}.")
    if actual.is_meta or expected.is_meta:
        return  # no values to compare, as torch's
    rtol, atol = _tolerances((actual.dtype, expected.dtype), rtol, atol)
    try:  # torch's isclose checks the tolerances
        check_tolerances(*_close_args(rtol, atol, equal_nan, "isclose")[:2])
    except Exception as error:
        options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device)
        options.update(check_dtype=check_dtype, check_layout=True, check_stride=check_stride)
        raise _unexpected(path, actual, expected, options) from error
    if actual.dtype != expected.dtype:
        common = _mt.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    a, e = _host(actual), _host(expected)
    rounding = actual.dtype.np if actual.dtype == _mt.bfloat16 else None
    if a.dtype.kind in "biu":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        close = a == e
        if a.dtype.kind == "f":
            finite = np.isfinite(a) & np.isfinite(e)
            close |= finite & (np.abs(a - e) <= atol + rtol * np.abs(e))
            if equal_nan:
                close |= np.isnan(a) & np.isnan(e)
        elif rtol or atol:
            close |= np.abs(a - e) <= atol + rtol * np.abs(e)
    if close.all():
        return
    if a.ndim == 0:
        _raise_scalar(a.item(), e.item(), rtol, atol)
    _raise_tensor(a, e, close, rtol, atol, rounding)


def _unexpected(path, actual, expected, options) -> RuntimeError:
    """torch's RuntimeError for an error it did not expect while comparing a pair of tensors,
    which shows the pair (TensorLikePair's repr)."""
    fields = [("id", path), ("actual", actual), ("expected", expected), *options.items()]
    pair = "\n".join(["TensorLikePair(", *(f"    {k}={v!s}," for k, v in fields), ")"])
    return RuntimeError(
        f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above. If you are a "
        "user and see this message during normal operation please file an issue at "
        "https://github.com/pytorch/pytorch/issues. If you are a developer and working on the "
        "comparison functions, please except the previous error and raise an expressive "
        "`ErrorMeta` instead."
    )


def _raise_tensor(a, e, close, rtol, atol, rounding=None):
    """rounding: the dtype the differences are rounded to (bfloat16, compared in float32)."""
    total = close.size
    wrong = total - int(close.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[close] = 0
        rel_diff = abs_diff / np.abs(e)
        if a.dtype.kind != "f":  # torch divides integers into its default float dtype
            rel_diff = rel_diff.astype(_mt.get_default_dtype().np)
        rel_diff[close] = 0
        if rounding is not None:
            abs_diff = abs_diff.astype(rounding).astype(a.dtype)
            rel_diff = rel_diff.astype(rounding).astype(a.dtype)
    where = []
    for diff in (abs_diff, rel_diff):
        flat = diff.ravel()
        nan = np.isnan(flat) if flat.dtype.kind == "f" else np.zeros(flat.shape, bool)
        idx = int(np.argmax(nan)) if nan.any() else int(np.argmax(flat))
        pos = tuple(int(i) for i in np.unravel_index(idx, a.shape))
        where.append((flat[idx].item(), pos))
    (ad, ai), (rd, ri) = where
    raise _Mismatch(_message("Tensor-likes", extra, ad, ai, rd, ri, rtol, atol))


# --- containers ---


def _is_sequence(x) -> builtins.bool:
    return isinstance(x, Sequence) and not isinstance(x, (str, bytes))


def _item(path: tuple) -> str:
    """A path of keys and indices as torch names the item: [0]['a']."""
    return "".join(f"[{key!r}]" for key in path)


def _as_number(x):
    """A NumPy scalar (np.mean(...), arr.sum()) as the Python number it holds, as torch compares
    it; anything else unchanged."""
    if isinstance(x, (np.bool_, np.integer, np.floating)):
        return x.item()
    return x


def _sorted_keys(mapping: Mapping) -> list:
    """torch walks a mapping's keys sorted, so a failure names the first sorted key; keys that do
    not sort (mixed types) keep the mapping's order."""
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


# NOTE [ assert_close in two passes ]
# torch first pairs up the leaves of actual and expected (container lengths, mapping keys and
# leaf types are checked here, so a structural error anywhere wins), then compares every pair
# in order: the first value mismatch is reported after all pairs ran, while an unexpected
# error in a pair (isclose refusing a negative tolerance) is raised as soon as it happens.


def _originate(actual, expected, path: tuple, pairs: list, *, allow_subclasses, **options):
    """Appends to `pairs` (path, comparison) for each leaf pair of actual and expected; raises
    _Mismatch or _Unsupported (with the path) for a structural difference."""
    try:
        _originate_pair(actual, expected, path, pairs, allow_subclasses, options)
    except (_Mismatch, _Unsupported) as mismatch:
        if not mismatch.path:
            mismatch.path = _item(path)
        raise


def _originate_pair(actual, expected, path, pairs, allow_subclasses, options):
    if actual is None or expected is None:
        if actual is not expected:
            message = f"None mismatch: {actual} is not {expected}"
            pairs.append((path, lambda: _raise(message)))
        else:
            pairs.append((path, lambda: None))
        return
    arrays = isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray)
    if arrays or (isinstance(actual, Tensor) and isinstance(expected, Tensor)):
        # Tensor-likes of related types compare (a Parameter with a Tensor); allow_subclasses=
        # False asks for one type (Python numbers are exempt, as in torch).
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported(actual, expected)
        if arrays:
            actual, expected = _mt.from_numpy(actual), _mt.from_numpy(expected)
        _check_tolerances_given(options, path)
        pairs.append((path, lambda: _compare_tensors(actual, expected, path=path, **options)))
        return
    number = (builtins.bool, builtins.int, builtins.float)
    a_num, e_num = _as_number(actual), _as_number(expected)
    if isinstance(a_num, number) and isinstance(e_num, number):
        _check_tolerances_given(options, path)
        numbers_options = {k: options[k] for k in ("rtol", "atol", "equal_nan", "check_dtype")}
        pairs.append((path, lambda: _compare_numbers(a_num, e_num, **numbers_options)))
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        missing = sorted(set(expected) - set(actual), key=repr)
        extra = sorted(set(actual) - set(expected), key=repr)
        if missing or extra:
            raise _Mismatch(
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {missing}\n"
                f"Additional keys in the actual mapping: {extra}"
            )
        for key in _sorted_keys(expected):
            _originate(
                actual[key],
                expected[key],
                (*path, key),
                pairs,
                allow_subclasses=allow_subclasses,
                **options,
            )
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
            )
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _originate(a, e, (*path, i), pairs, allow_subclasses=allow_subclasses, **options)
        return
    raise _Unsupported(actual, expected)


def _check_tolerances_given(options, path):
    """torch's ValueError for rtol without atol (or atol without rtol), raised while pairing
    tensors or numbers (naming the item in a container)."""
    if (options["rtol"] is None) == (options["atol"] is None):
        return
    try:
        _tolerances((), options["rtol"], options["atol"])
    except ValueError as error:
        if not path:
            raise
        raise ValueError(f"{error}\n\nThe failure occurred for item {_item(path)}") from None


def _raise(message: str):
    raise _Mismatch(message)


def _compare(actual, expected, **options):
    """See NOTE [ assert_close in two passes ]."""
    pairs = []
    _originate(actual, expected, (), pairs, **options)
    first = None
    for path, compare in pairs:
        try:
            compare()
        except _Mismatch as mismatch:
            if first is None:
                mismatch.path = _item(path)
                first = mismatch
    if first is not None:
        raise first


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Asserts that actual and expected are close: |actual - expected| <= atol + rtol |expected|
    elementwise, with the default tolerances of the dtypes when rtol and atol are omitted.
    Tensors, NumPy arrays, numbers (NumPy scalars compare as the Python numbers they hold),
    None, and sequences and mappings of them (mappings key by key in sorted order). Mirrors
    torch.testing.assert_close.

    Differences from torch: check_layout is accepted and ignored (minitorch has one layout).
    Complex numbers are not supported.
    """
    options = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_stride": check_stride,
    }
    try:
        _compare(actual, expected, **options)
    except _Mismatch as mismatch:
        text = mismatch.message
        if mismatch.path:
            text += f"\n\nThe failure occurred for item {mismatch.path}"
        if isinstance(msg, str):
            text = msg
        elif callable(msg):
            text = msg(text)
        raise AssertionError(text) from None
    except _Unsupported as unsupported:
        text = unsupported.message
        if unsupported.path:
            text += f"\n\nThe failure occurred for item {unsupported.path}"
        raise TypeError(text) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """Deprecated (as in torch): assert_close with looser default tolerances, check_dtype=False
    and equal_nan=True; non-tensors are turned into tensors first. Mirrors
    torch.testing.assert_allclose."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find detailed "
        "upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = _mt.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = _mt.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        loose = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}
        pairs = [loose.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        msg=msg or None,
    )


# --- make_tensor ---


def _bounds(low, high, dtype, lowest, highest, default_low, default_high, integral):
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, builtins.float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and not integral:
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
            "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(
            f"The value interval specified by `low` and `high` is [{low}, {high}), "
            f"but {dtype} only supports [{lowest}, {highest})"
        )
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if integral:  # randint's high is exclusive: ceil both so no value falls below low
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(
    *shape,
    dtype,
    device,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format=None,
) -> Tensor:
    """A tensor of `shape` with values drawn uniformly from [low, high) by minitorch's default
    generator (defaults by dtype as torch: [-9, 9) floats, [-9, 10) signed ints, [0, 10)
    unsigned, bool 0/1). Mirrors torch.testing.make_tensor.

    Differences from torch: the values come from minitorch's generator, so a seed gives other
    numbers than torch's."""
    if len(shape) == 1 and _is_sequence(shape[0]):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
            f"noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    dtype = _mt.get_default_dtype() if dtype is None else dtype
    integral = not dtype.is_floating_point
    if requires_grad and integral:
        raise ValueError(
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            f"dtype={dtype}"
        )
    noncontiguous = noncontiguous and math.prod(shape) > 1
    draw_shape = (*shape[:-1], 2 * shape[-1]) if noncontiguous else shape
    if dtype == _mt.bool:
        low, high = _bounds(low, high, dtype, 0, 2, 0, 2, True)
        result = _mt.randint(low, high, draw_shape, device=device).to(_mt.bool)
    elif integral:
        info = _mt.iinfo(dtype)
        highest = info.max + (1 if dtype != _mt.int64 else 0)
        low, high = _bounds(low, high, dtype, info.min, highest, -9, 10, True)
        result = _mt.randint(low, high, draw_shape, dtype=dtype, device=device)
    else:
        info = _mt.finfo(dtype)
        low, high = _bounds(low, high, dtype, info.min, info.max, -9, 9, False)
        result = _mt.empty(draw_shape, dtype=dtype, device=device)
        if high - low >= info.max:  # the span overflows: draw half of it, then double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:  # raises for a rank that the format does not fit, as torch
        result = result.contiguous(memory_format=memory_format)
    if exclude_zero:
        replacement = 1 if integral else _mt.finfo(dtype).tiny
        result[result == 0] = replacement
    if requires_grad:
        result.requires_grad_(True)
    return result
