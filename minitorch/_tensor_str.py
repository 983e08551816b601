"""Formats a tensor's values exactly as PyTorch's ``repr`` does; standalone, NumPy only."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator

import numpy as np

# NOTE [ Tensor printing ]
# PyTorch picks one format for every printed element of a tensor:
#   * integers and bools: ``str(value)``;
#   * floats whose nonzero finite values are all integral: ``1.`` (``{:.0f}`` plus a dot);
#   * other floats: fixed point with ``precision`` decimals;
#   * scientific (``{:.4e}``) when max/min of the nonzero finite magnitudes exceeds 1000, the max
#     exceeds 1e8, or (non-integral values only) the min is below 1e-4.
# Every element is right-aligned to the widest nonzero finite value (at least 1 column); zeros,
# nan and inf are padded to that width but never widen it. Above ``threshold`` elements only
# ``edgeitems`` per side of each long dimension are printed (and choose the format), with ``...``
# in between.


@dataclasses.dataclass
class __PrinterOptions:  # torch's name, which its repr shows
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = __PrinterOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing tensors. Mirrors torch.set_printoptions.

    As in torch, a profile is applied first and explicit arguments override it; an unknown profile
    name is ignored, and ``sci_mode`` is always reset (``None`` means automatic).
    """
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(PRINT_OPTS, name, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """Return the current print options as a dict. Mirrors torch._tensor_str.get_printoptions."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs) -> Iterator[None]:
    """Set print options inside a ``with`` block. Mirrors torch._tensor_str.printoptions."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """One format and one column width for all elements. See NOTE [ Tensor printing ]."""

    def __init__(self, values: np.ndarray, floating: bool, e8m0: bool = False):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not floating:
            self.max_width = max([1] + [len(str(v)) for v in flat.tolist()])
            return
        if e8m0:  # torch's isfinite holds for every float8_e8m0fnu, NaN included, and its 0 is
            shown = flat[flat != 2.0**-127]  # 2 ** -127 (NaN then makes no mode sci nor int)
        else:
            shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return  # all zero / nan / inf: integer style, width 1, sci_mode option ignored
        magnitudes = np.abs(shown)
        lo, hi = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or (not self.int_mode and lo < 1.0e-4)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode
        self.max_width = max(len(self._text(v)) for v in shown.tolist())

    def _text(self, value) -> str:
        if not self.floating:
            return str(value)
        if self.sci_mode:
            return f"{value:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            return f"{value:.0f}." if math.isfinite(value) else f"{value:.0f}"
        return f"{value:.{PRINT_OPTS.precision}f}"

    def format(self, value) -> str:
        return self._text(value).rjust(self.max_width)


def _summarize(values: np.ndarray) -> tuple[np.ndarray, tuple[bool, ...]]:
    """Keep ``edgeitems`` from both ends of each dimension longer than twice that; say which."""
    edge = PRINT_OPTS.edgeitems
    cut = tuple(size > 2 * edge for size in values.shape)
    keep = [
        np.r_[0:edge, size - edge : size] if c else np.arange(size)
        for c, size in zip(cut, values.shape, strict=True)
    ]
    # one gather of the kept elements (np.take copies a non-contiguous input whole first: an
    # expanded (10**6, 10**6) tensor would need terabytes; torch prints it from its edges)
    return values[np.ix_(*keep)], cut


def _vector_str(values: np.ndarray, indent: int, cut: bool, fmt: _Formatter) -> str:
    edge = PRINT_OPTS.edgeitems
    # math.floor of a true division, as torch: a linewidth of inf is its OverflowError
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2)))
    items = [fmt.format(v) for v in values.tolist()]
    if cut:
        items = items[:edge] + [" ..."] + items[edge:]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, cut: tuple[bool, ...], fmt: _Formatter) -> str:
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, cut[0], fmt)
    rows = [_nested_str(row, indent + 1, cut[1:], fmt) for row in values]
    if cut[0]:
        edge = PRINT_OPTS.edgeitems
        rows = rows[:edge] + ["..."] + rows[edge:]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


def _values_str(values: np.ndarray, indent: int) -> str:
    """The bracketed values of a non-empty tensor, as torch lays them out."""
    if values.dtype.kind == "c":
        raise TypeError("tensor_repr: complex tensors are not supported")
    floating = values.dtype.kind not in "biu"
    summarize = values.ndim > 0 and values.size > PRINT_OPTS.threshold  # a scalar shows itself
    if summarize and not PRINT_OPTS.edgeitems:
        return "[...]"
    if summarize:
        values, cut = _summarize(values)
    else:
        cut = (False,) * values.ndim
    e8m0 = values.dtype.name == "float8_e8m0fnu"
    if floating:
        values = values.astype(np.float64)  # exact for float16/bfloat16/float32; Python formats it
    return _nested_str(values, indent, cut, _Formatter(values, floating, e8m0))


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` items, starting a new line when one would pass the linewidth."""
    parts = [text]
    # torch's measure of the current line is two more than its length
    line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(
    values,
    *,
    dtype_name: str,
    default_float_name: str = "float32",
    device: str | None = None,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    prefix: str = "tensor(",
    indent: int | None = None,
    contents: str | None = None,
    tangent: str | None = None,
) -> str:
    """``repr`` of a tensor holding ``values`` (a host array). Mirrors torch.Tensor.__repr__.

    ``dtype_name`` is the torch name without ``torch.`` (``"float32"``, ``"bfloat16"``);
    ``device`` is ``None`` (or ``"cpu"``) for CPU, else printed, e.g. ``"cuda:0"``. ``indent``
    (default ``len(prefix)``) is the continuation indent. ``contents``, when given, is printed
    in place of the values (``Tensor.__repr__(tensor_contents=...)``); ``tangent``, a dual
    tensor's forward gradient as text, is printed last. A Parameter's repr is
    ``"Parameter containing:\\n" + tensor_repr(..., requires_grad=True)``.
    Differences from torch: complex tensors are not supported.
    """
    values = np.asarray(values)
    if indent is None:
        indent = len(prefix)
    suffixes = []
    if device is not None and device != "cpu":
        suffixes.append(f"device='{device}'")
    shape = str(tuple(int(n) for n in values.shape))
    if device == "meta":  # no values to show (NOTE [ The meta device ]): the size always
        body = "..." if contents is None else contents
        suffixes.append(f"size={shape}")
        if dtype_name != default_float_name:
            suffixes.append(f"dtype=torch.{dtype_name}")
    elif values.size == 0:
        body = "[]" if contents is None else contents
        if values.ndim != 1:
            suffixes.append(f"size={shape}")
        # nothing to infer the dtype from, so only the default float dtype goes unsaid
        if dtype_name != default_float_name:
            suffixes.append(f"dtype=torch.{dtype_name}")
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={shape}")
        if dtype_name not in (default_float_name, "int64", "bool"):
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = _values_str(values, indent) if contents is None else contents
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return _add_suffixes(prefix + body, suffixes, indent)


# NOTE [ C++ tensor printing ]
# Some of torch's error messages embed a tensor as its C++ `<<` prints it (meshgrid's "got: "), a
# format of its own: one number format per matrix (integers by %g, else fixed or scientific with 4
# decimals, or fixed under a common "scale *" factor), each value right-aligned to that format's
# width and followed by a space or a newline, matrices of more dimensions as "(i,j,.,.) = " slices
# (the first index counting fastest), and a "[ torch.FloatTensor{2,3} ]" footer.
_CPP_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte"}  # fmt: skip


def _cpp_scale(k: int) -> str:
    """The factor 10**k as the printer writes it: shortest digits, in exponent form below 1e-4."""
    return f"1e{k:+03d}" if k < -4 else f"{10.0**k:.{max(-k, 0)}f}"


def _cpp_format(values: np.ndarray):
    """(scale, width, format) torch's C++ printer picks for the values of one matrix; the scale
    as its power of ten (0: none)."""
    finite = values[np.isfinite(values)]
    exp_lo = exp_hi = 1
    if finite.size:
        mags = np.abs(finite)
        lo, hi = float(mags.min()), float(mags.max())
        exp_lo = math.floor(math.log10(lo)) + 1 if lo != 0 else 1
        exp_hi = math.floor(math.log10(hi)) + 1 if hi != 0 else 1
    if bool(np.all(finite == np.ceil(finite))):
        return (0, 11, "{:.4e}") if exp_hi > 9 else (0, exp_hi + 1, "{:g}")
    if exp_hi - exp_lo > 4:
        return 0, 12 if abs(exp_hi) > 99 or abs(exp_lo) > 99 else 11, "{:.4e}"
    if exp_hi > 5 or exp_hi < 0:
        return exp_hi - 1, 7, "{:.4f}"
    return 0, 7 if exp_hi == 0 else exp_hi + 6, "{:.4f}"


def _cpp_matrix(values: np.ndarray, indent: int) -> str:
    k, width, fmt = _cpp_format(values)
    scale = 10.0**k
    per_line = (80 - indent) // (width + 1)
    rows, cols = values.shape
    out = []
    first = 0
    while first < cols:
        last = min(first + per_line, cols) - 1
        if per_line < cols:
            out.append(
                ("\n" if first else "") + f"Columns {first + 1} to {last + 1}" + " " * indent
            )
        if scale != 1:
            out.append(f"{_cpp_scale(k)} *\n" + " " * indent)
        for r in range(rows):
            for c in range(first, last + 1):
                out.append(fmt.format(values[r, c] / scale).rjust(width))
                if c != last:
                    out.append(" ")
            out.append("\n")
            if r != rows - 1:
                out.append(" " * indent + (" " if scale != 1 else ""))
        first = last + 1
    return "".join(out)


def cpp_str(values, dtype_name: str, device: str = "cpu") -> str:
    """A tensor holding `values` (a host array) as torch's C++ `<<` prints it, for the error
    messages that embed one: NOTE [ C++ tensor printing ]."""
    values = np.asarray(values)
    if dtype_name in _CPP_TYPE:
        cuda = ".cuda" if device.startswith("cuda") else ""
        kind = f"torch{cuda}.{_CPP_TYPE[dtype_name]}Tensor"
    else:  # no legacy tensor type: bool, bfloat16, ...
        kind = (
            f"{'CUDA' if device.startswith('cuda') else 'CPU'}"
            + ("BFloat16" if dtype_name == "bfloat16" else dtype_name.capitalize())
            + "Type"
        )
    footer = f"[ {kind}{{{','.join(str(n) for n in values.shape)}}} ]"
    if values.size == 0:
        return footer
    v = values.astype(np.float64)
    if v.ndim <= 1:
        k, width, fmt = _cpp_format(v.reshape(-1))
        scale, head = 10.0**k, f"{_cpp_scale(k)} *\n" if k else ""
        return (
            head
            + "".join(fmt.format(x / scale).rjust(width) + "\n" for x in v.reshape(-1))
            + footer
        )
    if v.ndim == 2:
        return _cpp_matrix(v, 0) + footer
    lead = v.shape[:-2]
    slices = []
    for idx in np.ndindex(*lead[::-1]):  # the first index counts fastest
        idx = idx[::-1]
        name = "(" + "".join(f"{i + 1}," for i in idx) + ".,.) = \n"
        slices.append(name + _cpp_matrix(v[idx], 1))
    return "\n".join(slices) + footer
