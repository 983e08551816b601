"""Tensor-kind queries and the complex-number stubs of a real-only library, select and fill,
the unsafe_* split aliases, sum_to_size, nonzero_static, empty_strided, map2_, and the numeric
helpers gradient and histogramdd."""

from __future__ import annotations

import builtins
import numbers
import operator

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, arity_error, too_many_positional
from minitorch._backend import strided_view
from minitorch._ops._common import (
    check_int,
    check_tensor_list,
    check_tensors,
    index,
    int_list,
    ints,
    is_index,
    not_tensor_element,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops.indexing import keep_select_dim
from minitorch._ops.pointwise import _out, _out_exact
from minitorch._ops.pointwise_more import _check_tensor, _to_float
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch._tensor_methods import _int_list
from minitorch.autograd.function import name_node, scalar_node

# fmt: off
__all__ = [
    "is_complex", "is_signed", "is_nonzero", "is_same_size", "isreal", "is_conj", "is_neg",
    "is_inference", "conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg",
    "real", "imag", "select", "fill", "detach", "detach_", "unsafe_chunk", "unsafe_split",
    "unsafe_split_with_sizes", "nonzero_static", "empty_strided", "gradient", "histogramdd",
    "layout", "strided",
]
# fmt: on


class layout:
    """A tensor memory layout; minitorch has one, `strided`. Mirrors torch.layout."""

    __module__ = "minitorch"  # See NOTE [ Public module of core classes ] in minitorch/_dtype.py
    __slots__ = ("_name",)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.layout' instances")

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return "strided"  # the module attribute: unpickles to the same object


strided = object.__new__(layout)
strided._name = "strided"


# --- tensor-kind queries ---
#
# minitorch tensors are real, dense, strided CPU/CUDA tensors: the queries for other kinds
# (complex, conjugate or negative views, sparse, quantized, ...) are False, and the complex
# accessors do what torch does for a real tensor.


def is_complex(input) -> bool:
    """False: minitorch has no complex dtypes. Mirrors torch.is_complex."""
    _check_tensor(input, "is_complex")
    return False


def is_signed(input) -> bool:
    """Whether the dtype is signed. Mirrors torch.is_signed."""
    _check_tensor(input, "is_signed")
    return input.dtype.is_signed


def is_nonzero(input) -> bool:
    """Whether a one-element tensor is not zero (reads the value back to the host).
    Mirrors torch.is_nonzero."""
    _check_tensor(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input._device.backend.to_host(input._data).reshape(()) != 0)


def is_same_size(input, other) -> bool:
    """Whether two tensors have the same shape. Mirrors torch.is_same_size."""
    _check_tensor(input, "is_same_size")
    _check_tensor(other, "is_same_size", "other", 2)
    return tuple(input.shape) == tuple(other.shape)


def isreal(input) -> Tensor:
    """All True for a real tensor. Mirrors torch.isreal."""
    _check_tensor(input, "isreal")
    xp = input._device.backend.xp
    return _make(xp.ones(input._data.shape, dtype=bool), input._device, False, None)


def is_conj(input) -> bool:
    """False: real tensors are never conjugate views. Mirrors torch.is_conj."""
    _check_tensor(input, "is_conj")
    return False


def is_neg(input) -> bool:
    """False: real tensors are never negative views. Mirrors torch.is_neg."""
    _check_tensor(input, "is_neg")
    return False


def is_inference(input) -> bool:
    """Whether input is an inference tensor (made in inference mode, or a view of one).
    Mirrors torch.is_inference."""
    _check_tensor(input, "is_inference")
    return input.is_inference()


def conj(input) -> Tensor:
    """input itself (the conjugate of a real tensor). Mirrors torch.conj."""
    _check_tensor(input, "conj")
    return input


def conj_physical(input, *, out=None) -> Tensor:
    """input itself (or copied into out=). Mirrors torch.conj_physical."""
    _check_tensor(input, "conj_physical")
    return input if out is None else _out_exact(input, out)


def conj_physical_(input) -> Tensor:
    """input itself, its values unchanged. Mirrors torch.conj_physical_: an in-place op all the
    same (refused on a leaf that requires grad, the version counter bumped)."""
    from minitorch._ops.inplace import _check_leaf, apply_inplace
    from minitorch.autograd import grad_mode

    _check_tensor(input, "conj_physical_")
    if input._requires_grad and grad_mode.state.enabled:
        # torch records a node all the same: ConjPhysicalBackward1 (the gradient passes as is)
        return apply_inplace(
            input, lambda s: name_node(s.clone(), "ConjPhysicalBackward1"), "conj_physical_"
        )
    _check_leaf(input, "conj_physical_", writes=False)
    input._vc[0] += 1
    return input


def resolve_conj(input) -> Tensor:
    """input itself. Mirrors torch.resolve_conj."""
    _check_tensor(input, "resolve_conj")
    return input


def resolve_neg(input) -> Tensor:
    """input itself. Mirrors torch.resolve_neg."""
    _check_tensor(input, "resolve_neg")
    return input


def real(input) -> Tensor:
    """input itself (the real part of a real tensor). Mirrors torch.real."""
    _check_tensor(input, "real")
    return input


def imag(input):
    """Refused, as torch refuses it for a real tensor. Mirrors torch.imag."""
    _check_tensor(input, "imag")
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def complex_unsupported(self, op: str):
    """Tensor.cfloat / cdouble / chalf: minitorch has no complex dtypes."""
    raise TypeError(
        f"{op}(): complex dtypes are not supported by minitorch (tensor of dtype {self.dtype}); "
        "see 'Differences from PyTorch' in the README"
    )


# --- select, fill, detach, the unsafe_* splits ---


def select(input=REQUIRED, dim=REQUIRED, index=REQUIRED, *extra) -> Tensor:
    """The slice at `index` along `dim`, a view with one dimension less. Mirrors torch.select."""
    if extra or input is REQUIRED or dim is REQUIRED or index is REQUIRED:
        raise arity_error("select", extra, 3, input=input, dim=dim, index=index)
    _check_tensor(input, "select")
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim, "select", "dim", 2)
    if index.__class__ is not int:
        # a SymInt: an int-like (not a bool) or a one-element integer tensor of any ndim
        if isinstance(index, Tensor) and index.numel() == 1 and index.dtype._kind == 1:
            index = int(index)
        else:
            index = check_int("select", index, "index", 3)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    out = input[(slice(None),) * d + (index,)]
    if dim.__class__ is not int or dim < 0:  # (an int-like dim: its value; a dim >= 0 is the key's)
        dim = operator.index(dim)
        if dim < 0:  # grad_fn._saved_dim: the dim as given, as torch's
            keep_select_dim(out, dim)
    return out


def fill(input, value) -> Tensor:
    """A new tensor like input filled with value (a number or a 0-d tensor; differentiable, with
    a zero gradient for input). Mirrors torch.fill."""
    _check_tensor(input, "fill")
    from minitorch._ops.inplace import Fill, fill_
    from minitorch.autograd import grad_mode

    is_tensor = isinstance(value, Tensor)
    if not (is_tensor or _is_number(value)):
        got = type(value).__name__
        raise TypeError(
            f"fill() received an invalid combination of arguments - got (Tensor, {got}), but "
            "expected one of:\n * (Tensor input, Tensor value)\n      didn't match because some "
            f"of the arguments have invalid types: (Tensor, !{got}!)\n * (Tensor input, Number "
            "value)\n      didn't match because some of the arguments have invalid types: "
            f"(Tensor, !{got}!)\n"
        )
    if not (
        grad_mode.state.enabled
        and (input._requires_grad or (is_tensor and value._requires_grad))
        and (not is_tensor or value.ndim == 0)
    ):
        return fill_(input.clone(), value)  # no graph (or fill_'s error for a 1-d value)
    # torch's nodes: FillBackward0 (a number: input alone), FillBackward1 (input and value)
    if is_tensor:
        return name_node(Fill.apply(input, value), "FillBackward1")
    return name_node(Fill.apply(input, value), "FillBackward0", shown=(0,))


def _is_number(value) -> bool:
    """Whether torch's argument parser takes value as a Number (a bool, int, float or complex,
    or a NumPy scalar of one)."""
    import numbers

    return isinstance(value, numbers.Number)


def detach(input) -> Tensor:
    """Mirrors torch.detach."""
    _check_tensor(input, "detach")
    return input.detach()


def detach_(input) -> Tensor:
    """Mirrors torch.detach_."""
    _check_tensor(input, "detach_")
    return input.detach_()


def unsafe_chunk(input, chunks, dim=0) -> tuple:
    """chunk without view tracking in torch; here chunk, with torch's node name. Mirrors
    torch.unsafe_chunk."""
    check_tensors("unsafe_chunk", ("input", input))
    if chunks.__class__ is not int:  # (named as unsafe_chunk, before chunk's checks)
        chunks = check_int("unsafe_chunk", chunks, "chunks", 2)
    from minitorch._ops.shape_join import chunk

    outs = chunk(input, chunks, dim)
    # an empty dim is chunked by sizes (zeros), so torch's node is the sizes one
    empty = input.shape[wrap_dim(dim, input.ndim, "chunk")] == 0
    return _unsafe(outs, "UnsafeSplitWithSizesBackward0" if empty else "UnsafeSplitBackward0")


def unsafe_split(input, split_size, dim=0) -> tuple:
    """The same as split here. Mirrors torch.unsafe_split."""
    check_tensors("unsafe_split", ("input", input))
    if split_size.__class__ is not int:  # (a list of sizes too: unsafe_split_with_sizes takes it)
        split_size = check_int("unsafe_split", split_size, "split_size", 2)
    from minitorch._ops.shape_join import split

    return _unsafe(split(input, split_size, dim), "UnsafeSplitBackward0")


def unsafe_split_with_sizes(input, split_sizes, dim=0) -> tuple:
    """The same as split_with_sizes here. Mirrors torch.unsafe_split_with_sizes."""
    from minitorch._ops.shape_join import split_with_sizes

    if split_sizes.__class__ is not list and (
        isinstance(split_sizes, str) or not hasattr(split_sizes, "__iter__")
    ):
        check_tensors("unsafe_split_with_sizes", ("input", input))  # (the parser's order)
        raise wrong_type("unsafe_split_with_sizes", split_sizes, "split_sizes", 2, "tuple of ints")
    try:
        outs = split_with_sizes(input, split_sizes, dim)
    except (AttributeError, TypeError):  # the parser's order, its op's name
        check_tensors("unsafe_split_with_sizes", ("input", input))
        if dim.__class__ is not int:
            check_int("unsafe_split_with_sizes", dim, "dim", 3)
        raise
    return _unsafe(outs, "UnsafeSplitWithSizesBackward0")


def _unsafe(outs: tuple, name: str) -> tuple:
    """The pieces, their node named as torch's unsafe split (the graph of an LSTM's gates), and
    open to in-place changes (not marked as a multi-output op's views: NOTE [ Multi-output
    views ] in minitorch/_ops/shape_join.py)."""
    from minitorch.autograd.function import _MULTI_OUTPUT_VIEW

    if outs:
        name_node(outs[0], name)
    for t in outs:
        if t._view_chain and t._view_chain[-1] is _MULTI_OUTPUT_VIEW:
            t._view_chain = t._view_chain[:-1]
    return outs


# --- sum_to_size, nonzero_static ---


def sum_to_size(self, *size) -> Tensor:
    """self summed down to `size`, which must expand to self's shape. Mirrors
    torch.Tensor.sum_to_size."""
    given, spread = size, True  # (as the call gave it, for torch's TypeErrors)
    if len(size) == 1 and not isinstance(size[0], int):
        if isinstance(size[0], str) or not hasattr(size[0], "__iter__"):
            raise wrong_type("sum_to_size", size[0], "size", 1, "tuple of ints")
        given, spread = size[0], False
        size = tuple(size[0])
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:], strict=True)):
        if not all(s.__class__ is int for s in size):  # (torch's parser refuses them first)
            if spread and not is_index(size[0]):  # (no int first: torch reads no int...)
                raise too_many_positional("sum_to_size", len(size), 1)
            size = int_list(given, "sum_to_size", "size", 1)
        have = ", ".join(str(s) for s in size)
        want = ", ".join(str(n) for n in shape)
        raise RuntimeError(f"size {{[{have}]}} is not expandable to size {{[{want}]}}.")
    if not size:  # torch: a full sum (SumBackward0; int64 for int and bool), a 0-d self too
        return self.sum()
    dims = list(range(lead)) + [
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1
    ]
    if not dims:
        return self
    out = self.sum(dim=dims, keepdim=True)
    # torch views only to drop the leading dims: with none, the node is the sum's (SumBackward1)
    return out.view(size) if lead else out


def nonzero_static(input, *, size, fill_value=-1) -> Tensor:
    """nonzero(input), cut or padded with fill_value to exactly `size` rows.
    Mirrors torch.nonzero_static."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        kwargs = {"size": size, "fill_value": fill_value}
        return run_converted(nonzero_static, (input,), kwargs)
    from minitorch._ops.selection import nonzero
    from minitorch._ops.shape_join import cat

    _check_tensor(input, "nonzero_static")
    if size.__class__ is not int:
        # a SymInt: an int-like, or a one-element integer tensor of any ndim, as torch reads it
        if isinstance(size, Tensor) and size.numel() == 1 and size.dtype._kind == 1:
            size = int(size)
        else:
            size = index(size, "nonzero_static", "size")
    if fill_value.__class__ is not int:
        fill_value = index(fill_value, "nonzero_static", "fill_value")
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if input._device.type == "meta":  # a static size: no values read (NOTE [ The meta device ])
        pad = input._device.backend.xp.full((size, input.ndim), fill_value, dtype="int64")
        return _make(pad, input._device, False, None)
    found = nonzero(input)
    k = found.shape[0]
    if k >= size:
        return found[:size]
    xp = input._device.backend.xp
    pad = xp.full((size - k, input.ndim), fill_value, dtype=found._data.dtype)
    return cat([found, _make(pad, input._device, False, None)])


def empty_strided(
    size=REQUIRED,
    stride=REQUIRED,
    *extra,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
) -> Tensor:
    """An uninitialized (here zero-filled) tensor of `size` laid out with `stride` (in
    elements) over memory of its own. Mirrors torch.empty_strided."""
    from minitorch._factories import (
        _dtype_arg,
        _require_grad,
        _shape_seq,
        check_options,
        empty,
    )

    if extra or size is REQUIRED or stride is REQUIRED:
        raise arity_error("empty_strided", extra, 2, size=size, stride=stride)
    dtype = _dtype_arg(dtype, None, "empty_strided")
    if layout is not None or pin_memory is not False:
        check_options("empty_strided", layout, pin_memory)
    # torch's size check: "Trying to create tensor with negative dimension -3: [2, -3]"
    size, stride = _shape_seq(size, "empty_strided", 1), ints(stride, "empty_strided", "stride", 2)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
            f"({len(stride)})"
        )
    if 0 not in size and any(st < 0 and k > 1 for k, st in zip(size, stride, strict=True)):
        # torch's storage size then wraps (a stride on a dim of size 0 or 1 moves nothing)
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(size)} and "
            f"strides={list(stride)}"
        )
    if any(s < 0 for s in stride):  # on a dim of size 0 or 1 (torch makes it 1; refused here)
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    length = 0 if 0 in size else 1 + sum((k - 1) * st for k, st in zip(size, stride, strict=True))
    flat = empty(length, dtype=dtype, device=device)
    data = flat._data
    item = data.itemsize
    data = strided_view(flat._device.backend.xp, data, size, [st * item for st in stride])
    out = _make(data, flat._device, False, None)
    return _require_grad(out, requires_grad)


def new_empty_strided(
    self,
    size,
    stride,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """empty_strided with self's dtype and device by default.
    Mirrors torch.Tensor.new_empty_strided."""
    from minitorch._factories import _dtype_arg, check_layout

    if layout is not None:
        check_layout(layout, "new_empty_strided", dtype)
    return empty_strided(
        size,
        stride,
        dtype=self.dtype if dtype is None else _dtype_arg(dtype, None, "new_empty_strided"),
        device=self.device if device is None else device,
        requires_grad=requires_grad,
        pin_memory=pin_memory,
    )


# --- map2_ ---


def map2_(self, x, y, callable):
    """self[i] <- callable(self[i], x[i], y[i]) with x and y broadcast to self, in Python.
    CPU only. Mirrors torch.Tensor.map2_."""
    from minitorch._ops.random_ops import _host_callback_checks, _write_elements

    for pos, (arg, t) in enumerate((("x", x), ("y", y)), start=1):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"map2_(): argument '{arg}' (position {pos}) must be Tensor, not {type_name(t)}"
            )
    _host_callback_checks(self, "map2_")
    for arg, t in (("x", x), ("y", y)):
        if t.dtype is not self.dtype:
            want, got = _dtype.checked_type_name(self), _dtype.checked_type_name(t)
            raise TypeError(f"map2_: expected {want} for argument '{arg}' (got {got})")
        if t._device is not self._device:
            raise TypeError("map2_ is only implemented on CPU tensors")
        if t._requires_grad:
            raise RuntimeError(
                "Can't call map2_() on Variable that requires grad. Use var.detach().map2_() "
                "instead."
            )
    if not builtins.callable(callable):
        raise TypeError(f"'{type(callable).__name__}' object is not callable")
    xs = x.expand(self.shape)._data.reshape(-1).tolist()
    ys = y.expand(self.shape)._data.reshape(-1).tolist()
    return _write_elements(self, lambda a, bc: callable(a, *bc), list(zip(xs, ys, strict=True)))


# --- gradient ---


def _spacings(spacing, dims, input: Tensor):
    """One spacing per dim: a number or a 1-D coordinates tensor."""
    if spacing is None or isinstance(spacing, (int, float)):
        # torch parses None and bool as the Number overload (None -> 1, True -> 1)
        return [1 if spacing is None else +spacing] * len(dims)  # +True is 1
    if isinstance(spacing, Tensor):  # 0-d: wider ones were refused by gradient
        # torch reads a 0-d tensor as a Number; kept as a tensor (no host read), it still
        # acts as one: a 0-d operand does not widen the data's dtype
        return [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            "dim arguments to have the same length, but got a spacing argument of length "
            f"{len(spacing)} and a dim argument of length {len(dims)}."
        )
    for s, d in zip(spacing, dims, strict=True):
        if isinstance(s, Tensor) and s.ndim != 1:
            raise RuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but got "
                f"an element with {s.ndim} dimensions!"
            )
        if isinstance(s, Tensor) and s.shape[0] != input.shape[d]:
            raise RuntimeError(
                "torch.gradient expected each tensor to be on the same device as the input "
                f"and of size {input.shape[d]} along dim {d}, but got {s.shape[0]}"
            )
    return spacing


def _spacing_list(spacing) -> list:
    """A sequence spacing as a list: all numbers, or else (torch's other overload) all tensors,
    with torch's TypeError naming the first element that is not one."""
    spacing = list(spacing)
    if all(isinstance(s, numbers.Real) and not isinstance(s, Tensor) for s in spacing):
        return spacing
    check_tensor_list(spacing, 1)
    return spacing


def _check_spacing_count(count: int, dim, ndim: int) -> None:
    if dim is None and count != ndim:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {ndim}', since dim argument was not given, but got a list "
            f"of length {count}"
        )
    ndims = 1 if isinstance(dim, int) or is_index(dim) else len(dim) if dim is not None else ndim
    if count != ndims:
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
            "dim arguments to have the same length, but got a spacing argument of length "
            f"{count} and a dim argument of length {ndims}."
        )


def _along(t: Tensor, d: int, ndim: int) -> Tensor:
    """A 1-D tensor shaped to broadcast along dim d of an ndim tensor."""
    return t.reshape((1,) * d + (-1,) + (1,) * (ndim - d - 1))


def _gradient_dim(f: Tensor, d: int, h, edge_order: int) -> Tensor:
    from minitorch._ops.shape_join import cat

    n = f.shape[d]

    def part(start, length):
        return f.narrow(d, start, length)

    if not isinstance(h, Tensor) or h.ndim == 0:
        # torch's formulas, roundings and nodes for a Number spacing (its DivBackward1 and
        # MulBackward1; an integer input is subtracted as integers, then divided into floats)
        if isinstance(h, Tensor):  # (read as a Number: it must not widen an integer input)
            f = _to_float(f, "gradient")
        interior = scalar_node(scalar_node((part(2, n - 2) - part(0, n - 2)) / h) / 2)
        if edge_order == 1:
            first = scalar_node((part(1, 1) - part(0, 1)) / h)
            last = scalar_node((part(n - 1, 1) - part(n - 2, 1)) / h)
        else:
            a, b, c = part(0, 1), part(1, 1), part(2, 1)
            s = scalar_node(a * -1.5) + scalar_node(b * 2) - scalar_node(c * 0.5)
            first = scalar_node(s / h)
            a, b, c = part(n - 3, 1), part(n - 2, 1), part(n - 1, 1)
            s = scalar_node(a * 0.5) - scalar_node(b * 2) + scalar_node(c * 1.5)
            last = scalar_node(s / h)
        return cat([first, interior, last], dim=d)
    # The coefficients are computed in the coordinates' dtype (int coordinates divide into the
    # default float) and only then meet the data, so the result promotes as torch's does:
    # float32 data with float64 coordinates gives float64, float64 data with float32
    # coordinates uses float32 coefficients.
    dx = h[1:] - h[:-1]
    hl = _along(dx[:-1], d, f.ndim)
    hr = _along(dx[1:], d, f.ndim)
    a = -hr / (hl * (hl + hr))
    b = (hr - hl) / (hl * hr)
    c = hl / (hr * (hl + hr))
    interior = a * part(0, n - 2) + b * part(1, n - 2) + c * part(2, n - 2)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (
            part(0, 1) * (-(2 * d1 + d2) / (d1 * (d1 + d2)))
            + part(1, 1) * ((d1 + d2) / (d1 * d2))
            + part(2, 1) * (-d1 / (d2 * (d1 + d2)))
        )
        d1, d2 = dx[-2], dx[-1]
        last = (
            part(n - 3, 1) * (d2 / (d1 * (d1 + d2)))
            + part(n - 2, 1) * (-(d2 + d1) / (d1 * d2))
            + part(n - 1, 1) * ((2 * d2 + d1) / (d2 * (d1 + d2)))
        )
    return cat([first, interior, last], dim=d)


_GRADIENT_FORMS = tuple(
    f"Tensor input, *, {spacing}{dim}, int edge_order = 1"
    for spacing, dim in [
        ("", "tuple of ints dim"),
        ("Number spacing, ", "tuple of ints dim"),
        ("Number spacing = None, ", "int dim = None"),
        ("tuple of Scalars spacing, ", "int dim = None"),
        ("tuple of Scalars spacing, ", "tuple of ints dim"),
        ("tuple of Tensors spacing, ", "int dim = None"),
        ("tuple of Tensors spacing, ", "tuple of ints dim"),
    ]
)


def _gradient_parses(spacing, dim, edge_order) -> bool:
    """Whether one of torch.gradient's overloads takes these keywords: an int edge_order, an
    int dim or a sequence whose first element is one (torch's parser reads a sequence's type
    from its first element; bools are no ints there), and a number, a 0-d tensor, or a tuple or
    list (of numbers or of tensors, checked later) for spacing."""
    if edge_order.__class__ is bool or not is_index(edge_order):
        return False
    if isinstance(dim, (tuple, list)):
        if dim and (dim[0].__class__ is bool or not is_index(dim[0])):
            return False
    elif dim is not None and (dim.__class__ is bool or not is_index(dim)):
        return False
    if isinstance(spacing, Tensor):  # (a Number: NOTE [ Number-like arguments ])
        return spacing.ndim == 0 and not spacing.requires_grad
    return spacing is None or isinstance(spacing, (numbers.Number, tuple, list))


def _gradient_overloads(input, spacing, dim, edge_order, extra=()) -> TypeError:
    """torch's parser error for keywords no overload takes (_gradient_parses), such as a 1-D
    coordinates tensor not wrapped in a tuple, as numpy.gradient would take it, and for a call
    without input or with arguments after it by position (all its others are keywords)."""
    from minitorch._call_site import call_keywords
    from minitorch._ops._parser_errors import overload_error

    if isinstance(spacing, (tuple, list)) and spacing and not extra and input is not REQUIRED:
        check_tensor_list(list(spacing), 1)  # (torch's last overload fails on a number first)
    passed = call_keywords("gradient", depth=2)
    given = (("spacing", spacing, 1), ("dim", dim, None), ("edge_order", edge_order, 1))
    named = [("input", input)] + [(f"#{i}", v) for i, v in enumerate(extra)]
    # (an unread call: the keywords not at their defaults)
    named += [(n, v) for n, v, d in given if (n in passed if passed is not None else v is not d)]
    return overload_error("gradient", _GRADIENT_FORMS, _GRADIENT_FORMS, named)


def gradient(input=REQUIRED, *extra, spacing=1, dim=None, edge_order=1) -> tuple:
    """The derivative estimated by central differences inside and one-sided differences of
    order edge_order at the ends, along each of `dim` (all by default). `spacing` is a number,
    one number per dim, or one coordinates tensor per dim. Differentiable.
    Mirrors torch.gradient.

    Differences from torch: a coordinates tensor whose length is not the size of its dim raises
    a RuntimeError; torch does not check it and computes from the wrong coordinates, or gives a
    result of another shape (4 coordinates for a dim of size 3: 4 rows)."""
    if extra or input is REQUIRED:
        raise _gradient_overloads(input, spacing, dim, edge_order, extra)
    _check_tensor(input, "gradient")
    if not _gradient_parses(spacing, dim, edge_order):
        raise _gradient_overloads(input, spacing, dim, edge_order)
    if dim.__class__ is not int and dim is not None:  # (NumPy ints; a sequence's later items)
        seq = isinstance(dim, (tuple, list))
        dim = _int_list(dim, "gradient", "dim") if seq else operator.index(dim)
    if spacing.__class__ not in (int, float) and isinstance(spacing, numbers.Number):
        spacing = operator.index(spacing) if is_index(spacing) else float(spacing)  # (NumPy's)
    edge_order = operator.index(edge_order)
    if not (spacing is None or isinstance(spacing, (int, float, Tensor))):
        spacing = _spacing_list(spacing)
    if input._data.dtype == "uint8":
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if isinstance(spacing, list):  # torch checks the count before the dims and edge_order
        _check_spacing_count(len(spacing), dim, input.ndim)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = list(range(input.ndim))
    elif input.ndim == 0:  # torch: every dim's range checked, then the first one named
        given = [dim] if isinstance(dim, int) else list(dim)
        for d in given:
            wrap_dim(d, 0, "gradient")
        raise IndexError(f"Dimension specified as {given[0]} but tensor has no dimensions")
    elif isinstance(dim, int):
        dims = [wrap_dim(dim, input.ndim, "gradient")]
    else:
        dims = [wrap_dim(d, input.ndim, "gradient") for d in dim]
        for i, d in enumerate(dims):
            if d in dims[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    if dims and input._data.dtype.kind == "b":  # (torch's subtraction error, after the sizes)
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    hs = _spacings(spacing, dims, input)
    return tuple(_gradient_dim(input, d, h, edge_order) for d, h in zip(dims, hs, strict=True))


# --- histogramdd ---


def _histogramdd_overloads(input, bins, **kwargs) -> TypeError:
    """torch's parser TypeError for histogramdd arguments no overload takes, as the call was
    written; kwargs: range, weight and density, in that order (one at its default counts when
    the call gave it)."""
    from minitorch._call_site import call_arguments, passed_by_keyword
    from minitorch._ops._parser_errors import overload_error

    rest = "tuple of floats range = None, Tensor weight = None, bool density = False"
    kinds = ("int", "tuple of ints", "tuple of Tensors")
    forms = [f"Tensor input, {k} bins, {rest}" for k in kinds]
    call = call_arguments("histogramdd")
    positional = 0 if call is None else call[0]
    named = [("input", input), ("bins", bins)]
    for at, (name, value) in enumerate(kwargs.items(), start=2):
        default = False if name == "density" else None
        if value is not default or positional > at or passed_by_keyword(name, "histogramdd"):
            named.append((name, value))
    return overload_error("histogramdd", forms, (), named)


def _histogramdd_bin(b, i):
    """One count of a bins sequence, with torch's TypeError for one that is not an int."""
    if b.__class__ is int:
        return b
    if i == 0 and b.__class__ is str:  # torch reads a sequence starting with a str as tensors'
        raise not_tensor_element(0, b, 1)
    from minitorch._ops._common import ints

    return ints((b,) if i == 0 else (0,) * i + (b,), "histogramdd", "bins")[i]


def histogramdd(input, bins=None, range=None, weight=None, density=False, *, out=None):
    """The D-dimensional histogram of the points input[..., :D]: (hist, bin_edges) with one
    edges tensor per dimension. Forward-only. Mirrors torch.histogramdd."""
    from minitorch.return_types import histogramdd as result

    if bins is None:  # required, as in torch (histogram's default of 10 is not histogramdd's)
        _missing_bins(input, range=range, weight=weight, density=density, out=out)
    from minitorch._ops.sorting import (
        check_float_elements,
        floats_head_ok,
        histogramdd_arrays,
        no_derivative,
    )

    if (
        (range is not None and not floats_head_ok(range))
        or (weight is not None and not isinstance(weight, Tensor))
        or density.__class__ is not bool
    ):
        raise _histogramdd_overloads(input, bins, range=range, weight=weight, density=density)
    check_float_elements("histogramdd", range)
    _check_tensor(input, "histogramdd")
    # A 1-D input is refused rather than read as one point (torch: points are input[..., :D]).
    if input.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    xp = input._device.backend.xp
    x = input._data
    dims = x.shape[-1]
    if bins.__class__ is int or (bins.__class__ is not bool and is_index(bins)):
        bins = [index(bins, "histogramdd", "bins")] * dims
    elif isinstance(bins, (str, Tensor, float, bool)) or not hasattr(bins, "__iter__"):
        raise _histogramdd_overloads(input, bins, range=range, weight=weight, density=density)
    bins = list(bins)
    if bins and isinstance(bins[0], Tensor) and not is_index(bins[0]):  # torch's parser: the
        check_tensor_list(bins, 1)  # first element decides between edges tensors and counts
    else:
        bins = [_histogramdd_bin(b, i) for i, b in enumerate(bins)]
    if len(bins) != dims:
        if any(isinstance(b, Tensor) for b in bins):  # (torch's first check of explicit edges)
            raise RuntimeError(
                f"torch.histogramdd: expected {dims} sequences of bin edges for a {dims}-"
                f"dimensional histogram but got {len(bins)}"
            )
        raise RuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    # torch's checks (the dtype's, the bins' counts: in its order), edges (linspace) and bin
    # rule, shared with histogram: NOTE [ Histogram bins ]
    hist, edges = histogramdd_arrays(input, bins, range, weight, density)
    dev = input._device
    explicit = all(isinstance(b, Tensor) for b in bins)
    args = (input, weight, *bins)  # results that require grad when these do, as torch's
    hist_t = no_derivative(
        _make(xp.asarray(hist).astype(x.dtype), dev, False, None),
        args,
        "_histogramdd_from_bin_tensors" if explicit else "_histogramdd_from_bin_cts",
    )
    if explicit:  # torch returns the bins tensors themselves as the edges
        edge_ts = tuple(bins)
    else:
        edge_ts = tuple(
            no_derivative(
                _make(xp.asarray(e).astype(x.dtype), dev, False, None),
                args,
                "_histogramdd_bin_edges",
            )
            for e in edges
        )
    if out is not None:
        _out(hist_t, out[0])
        return result((out[0], edge_ts))
    return result((hist_t, edge_ts))


def _missing_bins(input, **kwargs):
    """torch's TypeError for histogramdd called without bins (its overloads all need them)."""
    got = [type(input).__name__] + [
        f"{k}={type(v).__name__}" for k, v in kwargs.items() if v is not None and v is not False
    ]
    raise TypeError(
        f"histogramdd() received an invalid combination of arguments - got ({', '.join(got)}), "
        "but expected one of:\n"
        " * (Tensor input, int bins, tuple of floats range = None, Tensor weight = None, "
        "bool density = False)\n"
        " * (Tensor input, tuple of ints bins, tuple of floats range = None, Tensor weight = "
        "None, bool density = False)\n"
        " * (Tensor input, tuple of Tensors bins, tuple of floats range = None, Tensor weight = "
        "None, bool density = False)\n"
    )
