"""Selection along a dim or by mask: index_select/add/copy/fill, masked_*, take, put, nonzero."""

from __future__ import annotations

from operator import index as _int

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _settings
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    broadcast_pair,
    check_bool,
    check_int,
    check_tensors,
    is_scalar_arg,
    not_tensor,
    opmath_dtype,
    row_major,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops._index_key import IndexPlan, is_index_dtype, parse_key
from minitorch._ops.indexing import (
    Index,
    IndexPut,
    _put,
    flat_mask_plan,
    in_bounds,
    saved_arg,
    saved_sizes,
    saved_watched,
    watch_indices,
)
from minitorch._ops.inplace import (
    _check_leaf,
    _check_overlap,
    _short,
    apply_inplace,
    check_partial_overlap,
    expanded_write,
    has_overlap,
    warn_expanded,
    with_out,
    writable,
    write_out_exact,
)
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, show_saved
from minitorch.autograd.function import (
    Function,
    _raise_broadcast_error,
    check_watched,
    saved_uint64,
)
from minitorch.autograd.grad_mode import no_grad, state

__all__ = [
    "index_select", "index_add", "index_add_", "index_copy", "index_copy_", "index_fill",
    "index_fill_", "masked_fill", "masked_fill_", "masked_select", "masked_scatter",
    "masked_scatter_", "take", "put", "put_", "nonzero", "argwhere",
]  # fmt: skip

_CPU_XP = _CPU.backend.xp  # nonzero's host route


class IndexSelect(Index):
    """out = x gathered at index along dim;  grad_x = zeros with grad added at index"""

    _node_name = "IndexSelectBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's)
        "dim": saved_arg("saved_dim", wrap=True),
        "index": saved_watched(0),
        "self_sym_sizes": saved_sizes,
    }


class IndexAdd(IndexPut):
    """out = x with source added at index along dim;  grad_x = grad,  grad_src = grad[index]"""

    _node_name = "IndexAddBackward0"
    # grad_fn._saved_<name> (as torch's): the index and source are saved for the source's
    # gradient only (None when the source needs none); index_add watches the source then
    _saved_attrs = {
        "alpha": saved_arg("saved_alpha"),
        "dim": saved_arg("saved_dim", wrap=True),
        "index": lambda node: saved_watched(0)(node) if len(node._watched) > 1 else None,
        "source": lambda node: saved_watched(1)(node) if len(node._watched) > 1 else None,
        "source_dim": saved_arg("saved_source_dim"),
    }

    @staticmethod
    def forward(ctx, a, v, *, plan, accumulate):
        if not opmath_dtype(a._data.dtype) or a._data.ndim != 1:
            # (half slices of a tensor with more dims: torch sums them in float32 and rounds once)
            return IndexPut.forward(ctx, a, v, plan=plan, accumulate=accumulate, in_float32=True)
        # A 1-d half tensor: torch adds the source elements one at a time in the tensor's own
        # dtype, rounding after every add (a run of bfloat16 ones stops at 256). The backend's
        # unbuffered scatter-add does exactly that in float16/bfloat16.
        ctx.plan = plan
        ctx.accumulate = accumulate
        out = a._data.copy()
        a._device.backend.scatter_add(out, plan.adv, v._data)
        return out


def _saved_int(name: str):
    """A _saved_attrs entry: the int argument `name` that watch_indices kept on the node (an
    int-like as its int), as torch's binding reads an int64 back (a negative dim unsigned)."""
    return lambda node: saved_uint64(_int(node.__dict__[name]))


def _saved_if_watched(k: int):
    """A _saved_attrs entry: saved_watched(k) of a node that watches its index tensors (one an
    op made for itself, as masked_scatter's take, has none: no such attribute)."""

    def read(node):
        if len(node._watched) <= k:
            raise AttributeError(f"'{type(node).__name__}' object has no such saved value")
        return saved_watched(k)(node)

    return read


class IndexCopy(IndexPut):
    """out = x with source copied at index along dim;  grad_x = grad with those zeroed,
    grad_src = grad[index]"""

    _node_name = "IndexCopyBackward0"
    # grad_fn._saved_<name> (as torch's): the source (as given) only where it requires grad
    _saved_attrs = {
        "dim": _saved_int("saved_dim"),
        "index": saved_watched(0),
        "source": saved_arg("saved_source"),
        "source_dim": saved_arg("saved_source_dim"),
    }


class IndexFill(IndexPut):
    """out = x with value at index along dim;  grad_x = grad with those zeroed,
    grad_value = sum of grad there"""

    _node_name = "IndexFillBackward0"
    _saved_attrs = {"dim": _saved_int("saved_dim"), "index": saved_watched(0)}  # (as torch's)

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import where

        check_watched(ctx)
        plan = ctx.plan
        ga = gv = None
        if ctx.needs_input_grad[0]:
            zero = _make(ctx.xp.zeros((), dtype=grad._data.dtype), grad._device, False, None)
            ga = IndexPut.apply(grad, zero, plan=plan, accumulate=False)
        if ctx.needs_input_grad[1]:
            # each filled element once, however often the index names it (grad[index] would
            # count a repeated index's elements again)
            filled = ctx.xp.zeros(grad._data.shape, dtype=bool)
            _put(grad._device, filled, plan, True, False)
            mask = _make(filled, grad._device, False, None)
            gv = where(mask, grad, 0.0).sum()
        return ga, gv


class IndexFillTensor(IndexFill):
    """index_fill with a Tensor value: torch's other overload, its own node name"""

    _node_name = "IndexFillBackward1"


class Take(Index):
    """out = x.flatten()[index];  grad_x = zeros with grad added at index"""

    _node_name = "TakeBackward0"
    _saved_attrs = {"index": _saved_if_watched(0), "self": _saved_if_watched(1)}  # (as torch's)
    _saved_shown = None


class Put(IndexPut):
    """out = x with x.flatten()[index] = source (+= when accumulating);  grad_x = grad (zeroed
    there unless accumulating),  grad_source = grad.flatten()[index]"""

    _node_name = "PutBackward0"
    # grad_fn._saved_<name> (as torch's): the source (as given) only where it requires grad
    _saved_attrs = {
        "accumulate": "accumulate",
        "index": saved_watched(0),
        "source": saved_arg("saved_source"),
    }


class MaskedSelect(Index):
    """out = x[mask] (1-D);  grad_x = zeros with grad where mask"""

    _node_name = "MaskedSelectBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's: the mask and input as given)
        "mask": saved_watched(0),
        "self": lambda node: (check_watched(node), node.saved_self)[1],
    }
    _saved_shown = None


def _read_value_first(input: Tensor, value):
    """torch reads a 0-d value tensor as a number before it writes, so a value that is an
    element of input (x.masked_fill_(m, x[0, 0])) does not overlap the write: copy it out, so
    apply_inplace's overlap check sees a tensor of its own (gradients still flow through it)."""
    if isinstance(value, Tensor) and value._data.ndim == 0:
        root = input._base if input._base is not None else input
        if value is root or value._base is root:
            return value.clone()
    return value


def _index_array(x: Tensor, index, op: str, vector: bool = True):
    if not isinstance(index, Tensor):
        raise wrong_type(op, index, "index", 3, "Tensor")
    if vector and index._data.ndim > 1:  # (torch checks the rank before the dtype)
        if op == "index_add":  # torch's wording there names the in-place op and the index
            raise IndexError(
                f"index_add_(): Index is supposed to be a vector, but got dim: "
                f"{index._data.ndim} with type: {_short(index.dtype)} and size: "
                f"{list(index._data.shape)}"
            )
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if not is_index_dtype(index._data.dtype):
        if op == "index_add":  # torch's wording there
            raise RuntimeError(
                f"index_add_(): Expected dtype int32/int64 for index but got: {_short(index.dtype)}"
            )
        raise RuntimeError(f"{op}(): Expected dtype int32 or int64 for index")
    arr = index._data
    if index._device is not x._device:
        if index._device.type != "cpu":
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{x._device} and {index._device}! (when checking argument for argument index in "
                f"method wrapper__{op})"
            )
        arr = x._device.backend.from_host(arr, x._device)
    return arr.reshape(1) if vector and arr.ndim == 0 else arr


def _dim_plan(x: Tensor, dim: int, idx, op: str, scaled: bool = False) -> IndexPlan:
    """The plan of x[(:,) * dim + (idx,)], bounds-checked on CPU (scaled: index_add's alpha is
    not 1)."""
    shape = x._data.shape
    if x._device.type == "cpu" and idx.size:
        n = shape[dim] if shape else 1
        # torch wraps a negative index in index_fill only
        low = -n if op == "index_fill" else 0
        if not in_bounds(idx, low, n):
            bad = (idx >= n) | (idx < low)
            value = int(idx.reshape(-1)[bad.reshape(-1).argmax()])
            if op == "index_select" and (dim == 1 or (x._data.size == 0 and len(shape) > 1)):
                # torch's kernel for dim 1, and its bounds check of an empty input, say so
                raise RuntimeError(
                    f"INDICES element is out of DATA bounds, id={value} axis_dim={n}"
                )
            # torch's index_add scatters (RuntimeError) for alpha 1 along the first or last dim
            # of a tensor of 2+ dims; otherwise it adds slice by slice (IndexError)
            if op == "index_select" or (
                op == "index_add" and (scaled or len(shape) <= 1 or 0 < dim < len(shape) - 1)
            ):
                raise IndexError("index out of range in self")  # torch's embedding-style text
            err = RuntimeError if op == "index_add" else IndexError
            prefix = "index_copy_(): " if op == "index_copy_" else ""
            raise err(f"{prefix}index {value} is out of bounds for dimension {dim} with size {n}")
    if not shape:  # a 0-d tensor acts as one element: index [0] selects it, [] nothing
        if not idx.size:
            nothing = (x._device.backend.xp.asarray(False),)
            return IndexPlan(None, nothing, None, "Alias", (), (0,), True)
        return IndexPlan(None, (Ellipsis,), None, "Alias", (), (), True)
    key = (slice(None),) * dim + (idx,)
    out_shape = shape[:dim] + idx.shape + shape[dim + 1 :]
    return IndexPlan(None, key, None, "Alias", shape, out_shape, True)


def index_select(
    input: Tensor = REQUIRED, dim: int = REQUIRED, index: Tensor = REQUIRED, *extra, out=None
) -> Tensor:
    """input's slices at index along dim. Mirrors torch.index_select."""
    if extra or input is REQUIRED or dim is REQUIRED or index is REQUIRED:
        raise arity_error("index_select", extra, 3, input=input, dim=dim, index=index)
    try:
        ndim = input._data.ndim
    except AttributeError:  # zero-cost when a tensor
        raise not_tensor("index_select", input) from None
    dim_arg, dim = dim, wrap_dim(dim, ndim, "index_select", "dim", 2)
    idx = _index_array(input, index, "index_select")
    if input._data.ndim == 0 and idx.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
        )
    if idx.size and input._data.ndim > 1 and input._data.shape[dim] == 0:
        # torch checks this from shapes alone (so on every device), before any bounds check;
        # a 1-d input falls through to the ordinary out-of-range IndexError
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    plan = _dim_plan(input, dim, idx, "index_select")
    result = watch_indices(IndexSelect.apply(input, plan=plan), index, saved_dim=dim_arg)
    if out is None:
        return result
    _out_apart(out, result, input, index)
    return write_out_exact(out, result, "index_select")


def _out_apart(out, result: Tensor, *operands) -> None:
    """torch's RuntimeErrors for an out= whose elements share memory (checked before any resize)
    or that shares any memory with an operand (the same memory too: the kernel would read what it
    has overwritten)."""
    if isinstance(out, Tensor) and not (
        state.enabled and (result._requires_grad or out._requires_grad)
    ):  # (torch's refusal of out= with autograd comes first: write_out raises it)
        _check_overlap(out)
        for t in operands:
            check_partial_overlap(out, t, same_ok=False)


def _maybe_out(result, out):
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def _source_plan(input, dim, index, source, op, scaled=False):
    ndim = input._data.ndim
    dim = wrap_dim(dim, ndim, op, "dim", 2)
    idx = _index_array(input, index, op)
    if not isinstance(source, Tensor):
        raise wrong_type(op, source, "source", 4, "Tensor")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"{op}_(): self ({_short(input.dtype)}) and source ({_short(source.dtype)}) must "
            f"have the same scalar type"
        )
    src_shape = source._data.shape
    mismatch = RuntimeError(
        f"source tensor shape must match self tensor shape, excluding the specified "
        f"dimension. Got self.shape = {list(input._data.shape)} source.shape = "
        f"{list(src_shape)}"
    )
    if (ndim == 0) != (len(src_shape) == 0):
        raise mismatch
    if ndim == 0:  # one element, addressed by one index (torch sizes a 0-d source as dim 0)
        if idx.size != 1:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        return _dim_plan(input, dim, idx, op, scaled)
    # torch's order (and texts): source has `dim`, its size there is the index count, then the
    # other sizes match input's; all from shapes, before any index bounds check
    if dim >= len(src_shape):
        raise RuntimeError(
            f"{op}_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
            f"{len(src_shape)}"
        )
    n_idx = idx.size
    if src_shape[dim] != n_idx:
        raise RuntimeError(
            f"{op}_(): Number of indices ({n_idx}) should be equal to source.size(dim): "
            f"({src_shape[dim]}), for dim: {dim}"
        )
    shape = input._data.shape
    if len(src_shape) != ndim or src_shape[:dim] + src_shape[dim + 1 :] != (
        shape[:dim] + shape[dim + 1 :]
    ):
        raise mismatch
    return _dim_plan(input, dim, idx, op, scaled)


def _integral_alpha(alpha: float, dt) -> int:
    """index_add's float alpha on an integer tensor, as torch converts it to the tensor's type
    before scaling: truncated toward zero (0.5 adds nothing, 1.7 adds once), and a value outside
    the type's range (a negative one for uint8) is c10's overflow error instead of a wrap."""
    info = _dtype.iinfo(dt)
    if not info.min <= alpha <= info.max:  # also refuses nan and inf
        raise _dtype.overflow_error(_dtype.numpy_dtype(dt).name)
    return int(alpha)


@with_out(exact=True)
def index_add(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    index: Tensor = REQUIRED,
    source: Tensor = REQUIRED,
    *extra,
    alpha=1,
) -> Tensor:
    """A copy of input with alpha * source added at index along dim (duplicates add up).
    Mirrors torch.index_add."""
    if extra or input is REQUIRED or dim is REQUIRED or index is REQUIRED or source is REQUIRED:
        raise arity_error("index_add", extra, 4, input=input, dim=dim, index=index, source=source)
    try:
        plan = _source_plan(input, dim, index, source, "index_add", alpha != 1)
        if isinstance(alpha, complex):  # c10's checked conversion to the (real) dtype
            if input.dtype is _dtype.bool:
                alpha = alpha != 0
            elif alpha.imag != 0:
                raise _dtype.overflow_error(_dtype.numpy_dtype(input.dtype).name)
            else:
                alpha = alpha.real
        if isinstance(alpha, float) and input.dtype._kind == _dtype._INT:
            alpha = _integral_alpha(alpha, input.dtype)
        # torch saves the index and the source (as given) for the source's gradient: a change
        # in place of either before backward raises then
        watched = (index, source) if source._requires_grad else (index,)
        saved = {"saved_alpha": alpha, "saved_dim": dim, "saved_source_dim": source._data.ndim}
        if alpha != 1:
            source = source * alpha
    except (AttributeError, TypeError, RuntimeError, IndexError):  # (no cost on success)
        _check_add_args("index_add", input, dim, index, source, alpha)
        raise
    result = IndexAdd.apply(input, source, plan=plan, accumulate=True)
    return watch_indices(result, *watched, **saved)


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    """In-place index_add. Mirrors torch.Tensor.index_add_."""
    try:
        _source_apart(
            input,
            source,
            "index_add_",
            index,
            lambda i: index_add(input.detach(), dim, i, source, alpha=alpha),
        )
        return apply_inplace(
            input, lambda s: index_add(s, dim, index, source, alpha=alpha), "index_add_", (source,)
        )
    except TypeError:  # index_add's parser error, which names the in-place op
        _check_add_args("index_add_", input, dim, index, source, alpha)
        raise


def _source_apart(input: Tensor, source, op: str, index=None, run=None) -> None:
    """torch's refusal of a source sharing input's memory (the same memory too: these kernels
    read the source as they write), which comes after autograd's refusals of the write and,
    given `run` (the out-of-place op on a detached input, given an index), index_add_'s and
    put_'s checks of the arguments (not of the index's values: run with zeros in its place)."""
    try:
        check_partial_overlap(input, source, same_ok=False)
    except RuntimeError:
        _check_leaf(input, op)
        if run is not None and isinstance(index, Tensor):
            zeros = index._device.backend.xp.zeros_like(index._data)
            with no_grad():
                run(_make(zeros, index._device, False, None))
        raise


def _check_add_args(op: str, input, dim, index, source, alpha) -> None:
    """torch's parser's TypeError for index_add's first ill-typed argument, in its order (the
    error path of an op that failed: returns when all are well typed)."""
    check_tensors(op, ("input", input))
    if dim.__class__ is not int:
        check_int(op, dim, "dim", 2)
    check_tensors(op, (None, input), (None, dim), ("index", index), ("source", source))
    if not is_scalar_arg(alpha):
        raise wrong_type(op, alpha, "alpha", None, "Number")


def _check_copy_arguments(op: str, input, dim, index, source) -> None:
    """torch's parser errors for index_copy's (or index_copy_'s) argument types, in its order
    (wrong_type names a method's positions)."""
    if not isinstance(input, Tensor):
        raise wrong_type(op, input, "input", 1, "Tensor")
    if dim.__class__ is not int:
        check_int(op, dim, "dim", 2)
    if not isinstance(index, Tensor):
        raise wrong_type(op, index, "index", 3, "Tensor")
    if not isinstance(source, Tensor):
        raise wrong_type(op, source, "source", 4, "Tensor")


def _copy_plan(input: Tensor, dim: int, index, source):
    """index_copy's checks, in torch's order and with its exception types (they differ from
    index_add's); a 0-d source (one index) or a 0-d input takes the selected slice's shape."""
    op = "index_copy_"
    # (argument errors name the op called, values' errors torch's in-place kernel: index_copy_)
    _check_copy_arguments("index_copy", input, dim, index, source)
    dim = wrap_dim(dim, input._data.ndim, "index_copy", "dim", 2)
    if index._data.ndim > 1:
        raise IndexError(f"{op}(): Index should have dimension 1 or 0 (got {index._data.ndim})")
    n_idx = index._data.size
    shape, src_shape = input._data.shape, source._data.shape
    if not src_shape and n_idx != 1:
        raise IndexError(
            f"{op}(): When source is scalar, index should have one element (got {n_idx})"
        )
    if src_shape and shape and len(src_shape) != len(shape):
        raise IndexError(
            f"{op}(): When source and destination are not scalars, their dimensionality must "
            f"match. Source dimensionality ({len(src_shape)}), destination dimensionality "
            f"({len(shape)})"
        )
    if index.dtype is not _dtype.int64:
        raise RuntimeError(
            f"{op}(): Expected a long tensor for index, but got {_short(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"{op}(): self and source expected to have the same dtype, but got (self) "
            f"{_short(input.dtype)} and (source) {_short(source.dtype)}"
        )
    dst_slice = shape[:dim] + shape[dim + 1 :]
    src_slice = src_shape[:dim] + src_shape[dim + 1 :]
    if dst_slice != src_slice:
        raise RuntimeError(
            f"{op}(): Source/destination tensor must have same slice shapes. Destination slice "
            f"shape: {' '.join(map(str, dst_slice))} at dimension {dim} and source slice shape: "
            f"{' '.join(map(str, src_slice))} at dimension 0."
        )
    if src_shape and src_shape[dim] != n_idx:
        raise IndexError(
            f"{op}(): Number of indices ({n_idx}) should be equal to source.size(dim) "
            f"({src_shape[dim]})"
        )
    plan = _dim_plan(input, dim, _index_array(input, index, op), op)
    if src_shape != plan.out_shape:  # a 0-d source or input: same number of elements
        source = source.reshape(plan.out_shape)
    return plan, source


@with_out(exact=True)
def index_copy(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    index: Tensor = REQUIRED,
    source: Tensor = REQUIRED,
    *extra,
) -> Tensor:
    """A copy of input with source copied at index along dim. Mirrors torch.index_copy."""
    if extra or input is REQUIRED or dim is REQUIRED or index is REQUIRED or source is REQUIRED:
        raise arity_error("index_copy", extra, 4, input=input, dim=dim, index=index, source=source)
    if _autocast.state.any_enabled:
        return _autocast.call(index_copy, _autocast.PROMOTE, (input, dim, index, source))
    plan, src = _copy_plan(input, dim, index, source)
    return watch_indices(
        IndexCopy.apply(input, src, plan=plan, accumulate=False),
        index,
        saved_dim=dim,
        saved_source=source if source._requires_grad else None,
        saved_source_dim=source._data.ndim,
    )


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """In-place index_copy. Mirrors torch.Tensor.index_copy_."""
    if index.__class__ is not Tensor or source.__class__ is not Tensor or dim.__class__ is not int:
        _check_copy_arguments("index_copy_", input, dim, index, source)  # (before the overlap)
    _source_apart(input, source, "index_copy_")  # (torch checks the arguments after)

    def copy(s):  # the in-place form is on no autocast list (torch): no casts under it
        if _autocast.state.any_enabled:
            return _autocast.call(index_copy, None, (s, dim, index, source))
        return index_copy(s, dim, index, source)

    try:
        return apply_inplace(input, copy, "index_copy_", (source,))
    except TypeError as e:  # an argument error of index_copy's under this op's name
        if not str(e).startswith("index_copy("):
            raise
        raise TypeError("index_copy_" + str(e)[len("index_copy") :]) from None


def _fill_value(input: Tensor, value, op: str) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"{op} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        if value.dtype is not input.dtype:
            if value._device.type == "cpu":
                _check_fill_range(value, input)
            if value._device is not input._device:
                value = value.to(input._device)
            return value.to(input.dtype)
        if value._device is not input._device:
            value = value.to(input._device)
        return value
    xp = input._device.backend.xp
    if isinstance(value, complex):
        value = _real_fill(value, input._data.dtype, op)
    value = _dtype.fill_number(value, input._data.dtype, op)  # torch's rounding and range checks
    return _make(xp.asarray(value, dtype=input._data.dtype), input._device, False, None)


def _real_fill(value: complex, npdt, op: str):
    """A complex fill value as torch converts it into a real dtype: index_fill refuses any;
    masked_fill takes one with no imaginary part (a bool tensor: any, as nonzero or not)."""
    if op == "index_fill_":
        raise RuntimeError(
            "index_fill_(): Converting complex Scalar to non-complex type is not supported"
        )
    if npdt.kind == "b":
        return value != 0
    if value.imag != 0:
        raise _dtype.overflow_error(npdt.name)
    return value.real


def _check_fill_range(value: Tensor, input: Tensor) -> None:
    """torch reads a 0-d value tensor of another dtype as a number and converts that to input's
    dtype with c10's checked conversion: int8 masked_fill(mask, tensor(1000)) and half
    masked_fill(mask, tensor(-1e9)) raise its overflow error where a cast would wrap or give -inf.

    Differences from torch: checked only for a value on the CPU; a device value is cast without
    the check, since reading it would be a host sync."""
    v = value._data.item()
    if value.dtype.is_floating_point:
        v = float(v)  # (a bfloat16 element is not a Python float)
    _dtype.fill_number(v, input._data.dtype)  # raises for a value out of range; the value unused


def _fill_plan(input: Tensor, dim: int, index, value):
    # torch's order and types: the index dtype (int64 only), then dim, then the index's rank
    if isinstance(index, Tensor) and index.dtype is not _dtype.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    dim = wrap_dim(dim, input._data.ndim, "index_fill", "dim", 2)
    if isinstance(index, Tensor) and index._data.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    idx = _index_array(input, index, "index_fill")
    if idx.size and not input._data.size:  # (rare) an empty input: torch checks no bound, ...
        shape = input._data.shape
        if shape[dim] == 0:  # ... but fails to restride an empty dim to the index's length
            sizes = [*shape[:dim], idx.size, *shape[dim + 1 :]]
            strides = list(input.stride())
            strides[dim] = 0
            item = input._data.dtype.itemsize
            need = item * (1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True)))
            raise RuntimeError(
                f"setStorage: sizes {sizes}, strides {strides}, storage offset 0, and itemsize "
                f"{item} requiring a storage size of {need} are out of bounds for storage of "
                "size 0"
            )
        idx = idx[:0]  # and fills nothing
    plan = _dim_plan(input, dim, idx, "index_fill")
    return plan, _fill_value(input, value, "index_fill_")


def index_fill(
    input: Tensor = REQUIRED, dim: int = REQUIRED, index: Tensor = REQUIRED, value=REQUIRED, *extra
) -> Tensor:
    """A copy of input with value at index along dim. Mirrors torch.index_fill."""
    fn = IndexFillTensor if isinstance(value, Tensor) else IndexFill
    try:
        if extra:  # (one REQUIRED: an error of _fill_plan's, worded as torch's below)
            raise TypeError
        plan, value = _fill_plan(input, dim, index, value)
    except (AttributeError, TypeError) as e:  # NOTE [ Overloaded reductions ]: its overloads
        from minitorch._ops._parser_errors import argument_error, parsed_error, with_extra

        named = (("input", input), ("dim", dim), ("index", index), ("value", value))
        if extra:
            raise parsed_error("index_fill", with_extra(named, extra)) from None
        raise argument_error(e, "index_fill", named) from None
    return watch_indices(fn.apply(input, value, plan=plan, accumulate=False), index, saved_dim=dim)


def index_fill_(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """In-place index_fill. Mirrors torch.Tensor.index_fill_."""
    value = _read_value_first(input, value)
    others = (value,) if isinstance(value, Tensor) else ()
    if has_overlap(input) and not (
        state.enabled and (input._requires_grad or getattr(value, "_requires_grad", False))
    ):  # an expanded tensor: as for masked_fill_, torch warns and writes the selected elements
        plan, value = _fill_plan(input, dim, index, value)
        warn_expanded("index_fill_", "tensor[mask] = scalar")
        _check_leaf(input, "index_fill_", overlap_ok=True)
        writable(input)[plan.adv] = value._data
        input._vc[0] += 1
        return input
    return apply_inplace(input, lambda s: index_fill(s, dim, index, value), "index_fill_", others)


# --- masks ---


class MaskedFill(Function):
    """out = where(mask, value, x);  grad_x = grad where not mask,  grad_value = sum of grad
    where mask"""

    _edges = (0,)  # a number value: torch's node lists the input alone
    _saved_names = ("mask",)  # grad_fn._saved_mask (as torch)

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.save_for_backward(mask)
        xp = ctx.xp
        out = xp.where(mask._data, value._data, x._data)
        return row_major(xp, out).astype(x._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import where

        (mask,) = ctx._stored_tensors
        # masked_fill, as torch's backward: its node (MaskedFillBackward0) lists grad alone
        gx = masked_fill(grad, mask, 0.0) if ctx.needs_input_grad[0] else None
        gv = where(mask, grad, 0.0).sum() if ctx.needs_input_grad[2] else None
        return gx, None, gv


class MaskedFillTensor(MaskedFill):
    """masked_fill with a tensor value (torch's MaskedFillBackward1: input and value)"""

    _node_name = "MaskedFillBackward1"
    _edges = (0, 2)


def _check_mask(mask, op: str, short: bool = False):
    """short: the dtype named as torch's masked_scatter names it ('Long', not 'long int')."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' must be Tensor, not {type_name(mask)}")
    if mask._data.dtype.kind != "b":
        name = _short(mask.dtype) if short else _dtype.CPP_NAMES.get(mask.dtype.name)
        raise RuntimeError(
            f"{op} only supports boolean masks, but got mask with dtype {name or mask.dtype.name}"
        )


def _mask_on(input: Tensor, mask: Tensor) -> Tensor:
    if mask._device is input._device:
        return mask
    return mask.to(input._device)


def masked_fill_overloads(op: str, input, mask, value, extra=()) -> None:
    """Raises torch's TypeError for masked_fill's (or masked_fill_'s) mask or value of a type
    no overload takes (NOTE [ Overloaded binary ops ]), left out (REQUIRED) or followed by
    `extra` positional arguments; returns when they are not the fault."""
    from minitorch._ops._common import is_number
    from minitorch._ops._parser_errors import TERNARY_FORMS, overload_error, with_extra

    if not extra and isinstance(input, Tensor) and isinstance(mask, Tensor) and (
        isinstance(value, Tensor) or is_number(value)
    ):
        return
    forms, method_forms = TERNARY_FORMS["masked_fill"]
    named = with_extra((("input", input), ("mask", mask), ("value", value)), extra)
    raise overload_error(op, forms, method_forms, named) from None


def masked_fill(
    input: Tensor = REQUIRED, mask: Tensor = REQUIRED, value=REQUIRED, *extra
) -> Tensor:
    """value where mask (broadcast), input elsewhere. Mirrors torch.masked_fill."""
    if extra:  # (one REQUIRED: an error below, worded by masked_fill_overloads)
        masked_fill_overloads("masked_fill", input, mask, value, extra)
    try:
        return _masked_fill(input, mask, value)
    except (AttributeError, TypeError):  # torch.masked_fill(None, ...): zero-cost when a tensor
        masked_fill_overloads("masked_fill", input, mask, value)
        raise
    except RuntimeError as err:  # torch broadcasts the mask (its "tensor a") against input
        _raise_broadcast_error(None, (mask, input), err)


def _masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    # apply's broadcast error names input "tensor a": torch's order for masked_fill_
    _check_mask(mask, "masked_fill_")
    fn = MaskedFillTensor if isinstance(value, Tensor) else MaskedFill
    value = _fill_value(input, value, "masked_fill_")
    return fn.apply(input, _mask_on(input, mask), value)


def masked_fill_(input: Tensor, mask: Tensor, value) -> Tensor:
    """In-place masked_fill. Mirrors torch.Tensor.masked_fill_."""
    value = _read_value_first(input, value)
    others = (value,) if isinstance(value, Tensor) else ()
    overlap = has_overlap(input)
    if overlap and not (
        state.enabled and (input._requires_grad or getattr(value, "_requires_grad", False))
    ):  # an expanded mask (HF-style attention masks): torch warns and writes the masked elements
        warn_expanded("masked_fill_", "tensor[mask] = scalar")
        _check_leaf(input, "masked_fill_", overlap_ok=True)
        _check_mask(mask, "masked_fill_")
        m = _mask_on(input, mask)._data
        shape = broadcast_pair(input._data.shape, m.shape)  # torch's TensorIterator errors
        if shape != input._data.shape:
            raise RuntimeError(
                f"output with shape {list(input._data.shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
        xp = input._device.backend.xp
        writable(input)[xp.broadcast_to(m, input._data.shape)] = _fill_value(
            input, value, "masked_fill_"
        )._data
        input._vc[0] += 1
        return input
    checked = overlap and expanded_write(input, "masked_fill_", others)
    return apply_inplace(
        input, lambda s: _masked_fill(s, mask, value), "masked_fill_", others, checked
    )


def _broadcast_pair(input: Tensor, mask: Tensor, op: str):
    from minitorch._ops._index_key import broadcast_shapes

    try:
        shape = broadcast_shapes([input._data.shape, mask._data.shape])
    except IndexError as err:  # torch broadcasts the mask (its "tensor a") against input
        _raise_broadcast_error(None, (mask, input), err)
    if input._data.shape != shape:
        input = input.expand(shape)
    if mask._data.shape != shape:
        mask = mask.expand(shape)
    return input, mask


def _mask_plan(x: Tensor, m: Tensor) -> IndexPlan:
    """The plan of x[m] for a mask of x's shape: flat on the CPU (as x[mask]'s)."""
    if x._device is not _CPU or not x._data.ndim or not x._data.size:
        return parse_key(x, m)
    return flat_mask_plan(x._data.size, m._data)


def masked_select(input: Tensor = REQUIRED, mask: Tensor = REQUIRED, *extra, out=None) -> Tensor:
    """The elements where mask (broadcast) is True, as a 1-D tensor. Mirrors
    torch.masked_select."""
    if extra or input is REQUIRED or mask is REQUIRED:
        raise arity_error("masked_select", extra, 2, input=input, mask=mask)
    check_tensors("masked_select", ("input", input), ("mask", mask))
    if input._device.type == "meta":  # its size depends on the values: NOTE [ The meta device ]
        from minitorch._backend.meta import no_kernel

        raise no_kernel("masked_select")
    if mask._data.dtype.kind != "b":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    x, m = _broadcast_pair(input, _mask_on(input, mask), "masked_select")
    result = watch_indices(MaskedSelect.apply(x, plan=_mask_plan(x, m)), mask, saved_self=input)
    if out is None:
        return result
    _out_apart(out, result, input, mask)
    return write_out_exact(out, result, "masked_select")


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """input with the True positions of mask filled by source's elements in order. Mirrors
    torch.masked_scatter.

    Differences from torch: off the CPU, a source too short for the mask is not detected (the
    check would read the mask's count on the host); its last element is repeated.
    """
    check_tensors("masked_scatter", ("input", input), ("mask", mask), ("source", source))
    from minitorch._ops.pointwise import where

    if source.dtype is not input.dtype:  # checked first, as torch's (its text has no space)
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got"
            f"{_short(input.dtype)} and {_short(source.dtype)}"
        )
    if mask.dtype is _dtype.uint8:
        import warnings

        from minitorch.autograd.anomaly_mode import _user_stacklevel

        warnings.warn(
            "masked_scatter_ received a mask with dtype torch.uint8, this behavior is now "
            "deprecated,please use a mask with dtype torch.bool instead.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
    _check_mask(mask, "masked_scatter_", short=True)
    mask = _mask_on(input, mask)
    x, m = _broadcast_pair(input, mask, "masked_scatter")
    xp = x._device.backend.xp
    flat_mask = m._data.reshape(-1)
    n_src = source._data.size
    if x._device.type == "cpu":
        if int(flat_mask.sum()) > n_src:
            raise RuntimeError("Number of elements of source < number of ones in mask")
    if n_src == 0:
        return x.clone()
    # The k-th True position takes source's k-th element: k = cumsum(mask) - 1 (no host sync).
    pos = xp.clip(xp.cumsum(flat_mask) - 1, 0, n_src - 1).reshape(m._data.shape)
    plan = IndexPlan(None, (pos,), None, "Alias", (n_src,), pos.shape, True)
    # (the mask as given, not broadcast: the node saves it so, as torch's, whose version error
    # names its shape)
    out = where(mask, Take.apply(source.reshape(-1), plan=plan), x)
    attrs = {"saved_mask": mask, "source_sizes": source._data.shape}  # (for show_saved's)
    return as_node(out, "MaskedScatterBackward0", (input, source), attrs=attrs)


show_saved(  # grad_fn._saved_<name> (as torch's: the mask as given, after _mask_on)
    "MaskedScatterBackward0", {"mask": "saved_mask", "source_sym_sizes": "source_sizes"}
)


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In-place masked_scatter. Mirrors torch.Tensor.masked_scatter_.

    Differences from torch: a source that shares part of input's memory raises torch's overlap
    error (torch checks nothing, and its result then depends on the kernel's write order).
    """
    if not (isinstance(mask, Tensor) and isinstance(source, Tensor)):
        check_tensors("masked_scatter_", (None, input), ("mask", mask), ("source", source))
    if mask._data.shape != input._data.shape:
        mask.expand(input._data.shape)  # torch expands the mask to self: its error
    return apply_inplace(
        input, lambda s: masked_scatter(s, mask, source), "masked_scatter_", (source,)
    )


# --- flat indexing ---


def _check_long_index(index, op: str) -> None:
    if isinstance(index, Tensor) and index.dtype is not _dtype.int64:  # torch's kernels: long only
        name = "put_" if op == "put" else op
        raise RuntimeError(
            f"{name}(): Expected a long tensor for index, but got {_dtype.scalar_name(index.dtype)}"
        )


def _flat_plan(input: Tensor, index: Tensor, op: str) -> IndexPlan:
    _check_long_index(index, op)
    idx = _index_array(input, index, op, vector=False)
    n = input._data.size
    if idx.size and not n:  # torch's texts, from shapes alone
        if op == "take":
            raise IndexError("take(): tried to take from an empty tensor")
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if input._device.type == "cpu" and idx.size and not in_bounds(idx, -n, n):
        bad = (idx >= n) | (idx < -n)
        if bad.any():
            value = int(idx.reshape(-1)[bad.reshape(-1).argmax()])
            raise IndexError(
                f"out of range: tried to access index {value} on a tensor of {n} elements."
            )
    if not input._data.shape:
        return None
    # the index addresses input.flatten() as it is (NOTE [ Flat plans ] in indexing.py)
    return IndexPlan(None, (idx,), None, "Alias", (n,), idx.shape, True)


def take(input: Tensor, index: Tensor, *, out=None) -> Tensor:
    """input.flatten()[index], in index's shape. Mirrors torch.take."""
    check_tensors("take", ("input", input), ("index", index))
    if out is not None and isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(
            f"take(): self and out expected to have the same dtype, but got self.dtype = "
            f"{_dtype.scalar_name(input.dtype)} and out.dtype = {_dtype.scalar_name(out.dtype)}"
        )
    plan = _flat_plan(input, index, "take")
    if plan is None:  # a 0-d input
        result = Take.apply(input.reshape(1), plan=_flat_plan(input.reshape(1), index, "take"))
    else:
        result = Take.apply(input, plan=plan)
    if out is not None:
        _out_apart(out, result, input, index)
    # torch saves the input too (the version check names the index first)
    return _maybe_out(watch_indices(result, index, input), out)


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with input.flatten()[index] = source (+= when accumulate). Mirrors
    torch.put."""
    check_tensors("put", ("input", input), ("index", index))
    if accumulate.__class__ is not bool:
        check_bool("put", accumulate, "accumulate", 4)
    if not isinstance(source, Tensor):
        raise wrong_type("put", source, "source", 3, "Tensor")
    # torch's order: the alert, the dtypes, the numbers of elements, then the bounds (_flat_plan)
    if not accumulate:  # which duplicate index wins is up to the kernel: not deterministic
        _settings.alert_not_deterministic("put_")
    _check_long_index(index, "put")
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got "
            f"self.dtype = {_short(input.dtype)} and source.dtype = {_short(source.dtype)}"
        )
    if source._data.size != index._data.size:
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {index._data.size}"
        )
    plan = _flat_plan(input, index, "put")
    saved = source if source._requires_grad else None  # (grad_fn._saved_source, as torch's)
    if plan is None:  # a 0-d input
        flat = input.reshape(1)
        plan = _flat_plan(flat, index, "put")
        out = Put.apply(
            flat, source.reshape(plan.out_shape), plan=plan, accumulate=bool(accumulate)
        )
        return watch_indices(out, index, saved_source=saved).reshape(())
    out = Put.apply(input, source.reshape(plan.out_shape), plan=plan, accumulate=bool(accumulate))
    return watch_indices(out, index, saved_source=saved)


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place put. Mirrors torch.Tensor.put_."""
    if accumulate.__class__ is not bool:
        check_bool("put_", accumulate, "accumulate", 3)
    _source_apart(
        input, source, "put_", index, lambda i: put(input.detach(), i, source, accumulate)
    )
    return apply_inplace(input, lambda s: put(s, index, source, accumulate), "put_", (source,))


# --- nonzero ---


def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or one 1-D tensor per dim
    with as_tuple=True. Mirrors torch.nonzero (the output size needs a host sync on a GPU)."""
    if as_tuple.__class__ is not bool:  # (torch's parser: input's type, then as_tuple's)
        check_tensors("nonzero", ("input", input))
        raise wrong_type("nonzero", as_tuple, "as_tuple", None, "bool")
    if out is not None:
        _nonzero_out_check(out, as_tuple)
    try:
        dev = input._device
    except AttributeError:  # torch.nonzero(None): zero-cost when a tensor
        raise not_tensor("nonzero", input) from None
    if dev.type == "meta":  # its size depends on the values: NOTE [ The meta device ]
        from minitorch._backend.meta import NONZERO

        raise NotImplementedError(NONZERO)
    xp = dev.backend.xp
    x = input._data
    if x.ndim == 0:
        x = x.reshape(1)
        idx = xp.nonzero(x)[0].astype("int64")
        if as_tuple:
            return (_make(idx, dev, False, None),)
        return _maybe_out(_make(idx.reshape(-1, 1)[:, :0], dev, False, None), out)
    if not as_tuple and xp is _CPU_XP and x.__class__ is xp.ndarray:
        # xp.stack's result (n, ndim) in new row-major memory from one array of the index rows
        # (np.stack's argument handling: x.nonzero() of 3x4 3.7 -> 1.7 us)
        idx = xp.asarray(x.nonzero()).T.copy().astype("int64", copy=False)
        return _maybe_out(_make(idx, dev, False, None), out)
    idx = [i.astype("int64", copy=False) for i in xp.nonzero(x)]
    if as_tuple:  # each its own contiguous memory, as torch's (NumPy's are strided views)
        return tuple(_make(xp.ascontiguousarray(i), dev, False, None) for i in idx)
    return _maybe_out(_make(xp.stack(idx, axis=1), dev, False, None), out)


def _nonzero_out_check(out, as_tuple) -> None:
    """torch's refusals of an out= for nonzero, in its order: not one tensor (its argument
    parser), with as_tuple, of another dtype than int64 (not cast into)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"nonzero(): argument 'out' must be Tensor, not {type_name(out)}")
    if as_tuple:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    if out.dtype is not _dtype.int64:
        raise RuntimeError(
            "nonzero: Expected out tensor to have scalar type Long but got scalar type"
            f"{_short(out.dtype)}"  # (torch's text has no space here)
        )


def argwhere(input: Tensor) -> Tensor:
    """Mirrors torch.argwhere (nonzero as an (n, ndim) tensor)."""
    check_tensors("argwhere", ("input", input))
    return nonzero(input)
