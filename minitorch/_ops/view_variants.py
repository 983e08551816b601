"""The out-of-place variants of the view ops: *_scatter (a copy of input with src written into
one view of it), *_copy (a view's values in new memory); index_reduce; as_strided_."""

from __future__ import annotations

import math
import re

from minitorch import _dtype, _memory_format
from minitorch._arg_errors import REQUIRED
from minitorch._ops._common import (
    arg_types,
    check_int,
    check_tensors,
    index,
    is_index,
    no_overload,
    not_tensor,
    wrap_dim,
    wrong_type,
)
from minitorch._ops.indexing import watch_indices
from minitorch._ops.inplace import apply_inplace, check_shape_change, set_shape_
from minitorch._ops.scatter_gather import (
    ScatterReduce,
    _check_reduce_args,
    _identity,
    along_dim_plan,
    reduce_into,
    reduce_ufunc,
)
from minitorch._ops.shape import squeeze_overloads
from minitorch._tensor import Tensor, _make, _storage_root
from minitorch.autograd import grad_mode
from minitorch.autograd.function import name_node

# fmt: off
__all__ = [
    "select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter",
    "index_reduce", "index_reduce_", "as_strided_",
    "view_copy", "permute_copy", "t_copy", "transpose_copy", "diagonal_copy", "expand_copy",
    "squeeze_copy", "unsqueeze_copy", "select_copy", "slice_copy", "split_copy",
    "split_with_sizes_copy", "unbind_copy", "unfold_copy", "as_strided_copy", "detach_copy",
    "alias_copy", "narrow_copy",
]
# fmt: on


def _write(result, out, op=None):
    """out=: torch's view-copy, slice_scatter and index_reduce kernels want out in the result's
    dtype exactly ("Expected out tensor to have dtype float, but got double instead"). op: the
    name torch's refusal of an out= that requires grad gives (aten::permute_copy, narrow_copy)."""
    if out is None:
        return result
    from minitorch._ops.inplace import write_out_exact

    return write_out_exact(out, result, graph_op=op)


# --- *_scatter: input with src embedded in one of its views ---

# NOTE [ View scatters ]
# Each *_scatter clones input and copies src into the chosen view of the clone; the in-place
# machinery records the write (CopySlices), so the result is differentiable w.r.t. both input
# (the gradient outside the view) and src (the gradient inside it), to any order. The node is
# renamed to torch's (SelectScatterBackward0, ...): see NOTE [ Composite node names ].


def _scatter_into(input, src, view_of, op):
    if not isinstance(src, Tensor):
        raise not_tensor(op, src, "src", 2)  # (position 1 of the method, none by keyword)
    out = _clone_preserving_strides(input)
    view = view_of(out)
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(view.shape)}"
        )
    view.copy_(src)
    return out


def _clone_preserving_strides(input):
    """input's copy with input's own strides, gaps (a stepped input's) included, as torch's
    scatters lay out their result; a self-overlapping (expanded) input gives a row-major one."""
    from minitorch._ops.shape_more import _may_overlap
    from minitorch._ops.tensor_misc import empty_strided

    x = input._data
    if x.flags.c_contiguous or x.flags.f_contiguous or x.size == 0 or _may_overlap(x):
        return input.clone()
    out = empty_strided(input.shape, input.stride(), dtype=input.dtype, device=input.device)
    return out.copy_(input)  # (recorded: the gradient reaches input through the copy)


def _select_key(input, dim, index):
    """The indexing key of input.select(dim, index), with torch's range check."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim, "select", "dim", 2)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {d}"
        )
    return (slice(None),) * d + (index,)


def select_scatter(input, src, dim, index):
    """input with src written at index along dim. Mirrors torch.select_scatter."""
    try:
        key = _select_key(input, dim, index)
        r = _scatter_into(input, src, lambda t: t[key], "select_scatter")
    except (AttributeError, IndexError, TypeError):  # (a float index fails in t[key])
        # torch's parser reads the arguments' types first, and names its op
        check_tensors("select_scatter", ("input", input))
        if dim.__class__ is not int:
            check_int("select_scatter", dim, "dim", 3)
        if index.__class__ is not int:
            check_int("select_scatter", index, "index", 4)
        raise
    return name_node(r, "SelectScatterBackward0")


def _slice_step(step, op, pos):
    # an int (None too is refused: only start and end are optional), positive: torch's slice op
    # refuses the rest itself (x[::0] is Python's ValueError, before any op)
    if step.__class__ is not int:
        step = check_int(op, step, "step", pos)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return step


def _slice_bounds(input, dim, start, end):
    # slice_scatter's optional int start and end (an error path: torch's TypeError, by position)
    check_tensors("slice_scatter", ("input", input))
    if dim.__class__ is not int:
        check_int("slice_scatter", dim, "dim", 3)
    if start is not None:
        start = check_int("slice_scatter", start, "start", 4)
    if end is not None:
        end = check_int("slice_scatter", end, "end", 5)
    return start, end


def slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None):
    """input with src written into input[start:end:step] along dim. Mirrors
    torch.slice_scatter."""
    if (start is not None and start.__class__ is not int) or (
        end is not None and end.__class__ is not int
    ):  # torch's parser reads the types first (x.slice_scatter(src, 9, 1.5) names start)
        start, end = _slice_bounds(input, dim, start, end)
    try:
        d = wrap_dim(dim, input.ndim, "slice_scatter", "dim", 3)
    except AttributeError:
        check_tensors("slice_scatter", ("input", input))
        raise
    key = (slice(None),) * d + (slice(start, end, _slice_step(step, "slice_scatter", 6)),)
    r = _scatter_into(input, src, lambda t: t[key], "slice_scatter")
    return _write(name_node(r, "SliceScatterBackward0"), out, "aten::slice_scatter")


def diagonal_scatter(input, src=REQUIRED, offset=0, dim1=0, dim2=1):
    """input with src written on its diagonal. Mirrors torch.diagonal_scatter (which, unlike
    slice_scatter, takes no out=, as select_scatter and as_strided_scatter)."""
    try:
        r = _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2), "diagonal_scatter")
    except (AttributeError, TypeError):  # the parser's order, its op's name (not diagonal's)
        check_tensors("diagonal_scatter", ("input", input))
        for pos, (name, x) in enumerate((("offset", offset), ("dim1", dim1), ("dim2", dim2)), 3):
            if x.__class__ is not int:
                check_int("diagonal_scatter", x, name, pos)
        raise
    return name_node(r, "DiagonalScatterBackward0")


def as_strided_scatter(input, src=REQUIRED, size=REQUIRED, stride=REQUIRED, storage_offset=None):
    """input with src written into its as_strided(size, stride, storage_offset) view. Mirrors
    torch.as_strided_scatter. Differences from torch: the strides index input's values in
    row-major order (torch: input's own memory layout, the same for a contiguous input)."""
    from minitorch._ops.shape_more import as_strided

    try:
        r = _scatter_into(
            input.contiguous(),
            src,
            lambda t: as_strided(t, size, stride, storage_offset),
            "as_strided_scatter",
        )
    except AttributeError:
        check_tensors("as_strided_scatter", ("input", input))
        raise
    except TypeError as e:  # as_strided's, of an argument the two share
        raise _as_strided_error(e, "as_strided_scatter", 1) from None
    return name_node(r, "AsStridedScatterBackward0")


# --- index_reduce ---


def _index_reduce_args(input, dim, index, source, reduce, op):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(
            f"{op}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    wrap_dim(dim, input.ndim, op)  # torch wraps dim against input's rank before the index checks
    if index.ndim > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
            f"type: {_dtype.scalar_name(index.dtype)} and size: {list(index.shape)}"
        )
    if index.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{_dtype.scalar_name(index.dtype)}"
        )
    if input.dtype != source.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({_dtype.scalar_name(input.dtype)}) and source "
            f"({_dtype.scalar_name(source.dtype)}) must have the same scalar type"
        )
    nd = max(source.ndim, 1)
    d = wrap_dim(dim, nd, op)
    n = source.shape[d] if source.ndim else 1
    if index.numel() != n:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({n}), for dim: {dim}"
        )
    if input.ndim != source.ndim or input.shape[:d] + input.shape[d + 1 :] != (
        source.shape[:d] + source.shape[d + 1 :]
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    size = input.shape[d] if input.ndim else 1
    ia = index._data
    if index.device.type == "cpu" and ia.size and ((ia < 0) | (ia >= size)).any():
        raise IndexError("index out of range in self")  # torch's message (CPU only)
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = n
    idx = index.reshape(shape).expand(tuple(source.shape)) if source.ndim else index.reshape(())
    return d, idx.to(_dtype.int64)


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """input with the rows of source reduced ('prod', 'mean', 'amax', 'amin') into the rows
    index names along dim. Mirrors torch.index_reduce."""
    args = (input, dim, index, source, reduce, include_self)
    if include_self.__class__ is not bool or reduce.__class__ is not str:
        _check_reduce_args("index_reduce", *args, src_name="source")
    try:
        d, idx = _index_reduce_args(input, dim, index, source, reduce, "index_reduce")
    except (AttributeError, TypeError):  # (no cost on the common path)
        _check_reduce_args("index_reduce", *args, src_name="source")
        raise
    from minitorch._settings import warn_once

    warn_once("index_reduce", "index_reduce() is in beta and the API may change at any time.")
    if input.dtype == _dtype.bool:
        # torch 2.13's Bool kernels: rows of a 2-d or larger input, including self, for
        # prod/amax/amin; none for a 0-d or 1-d input, for excluding self, or for mean's division
        if not include_self:
            kernel = "index_reduce_func_exclude_input_init"
        elif input.ndim <= 1:
            kernel = "index_func_"
        elif reduce == "mean":
            kernel = "div_floor_cpu"
        else:
            kernel = None
        if kernel is not None:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    rows = (  # whole rows of source into whole rows of input (see IndexReduceRows)
        reduce != "mean"
        and input.ndim == source.ndim >= 1
        and index.numel()
        and source.numel()  # (an empty source reduces nothing: reduce_into's path)
        and index._device is input._device
        and input.shape[:d] == source.shape[:d]
        and input.shape[d + 1 :] == source.shape[d + 1 :]
    )
    if rows:
        plan = along_dim_plan(idx._data, d, input.shape, input._device.backend.xp)
        r = IndexReduceRows.apply(
            input, source, plan=plan, reduce=reduce, include_self=bool(include_self),
            op="index_reduce", dim=d, rows=index._data,
        )  # fmt: skip
    else:
        r = reduce_into(input, d, idx, source, reduce, include_self, "index_reduce")
    node = name_node(r, "IndexReduceBackward0")
    result = watch_indices(node, index, saved_dim=dim, saved_reduce=reduce)
    return _write(result, out, "index_reduce")


class IndexReduceRows(ScatterReduce):
    """ScatterReduce ('prod', 'amax', 'amin') of whole rows along dim: the flat scatter key
    built from the 1-d index (A*n*B positions from n rows), where scatter_reduce's builds it from
    the index expanded to source's shape and checks that (for a (1000, 1000) source: 1.3 ms of
    the 5 ms op, and 16x torch's time). The updates go in the same order (source's row-major
    order), so the results are the same bits; the backward is ScatterReduce's."""

    @staticmethod
    def forward(ctx, x, src, *, plan, reduce, include_self, op, dim, rows):
        xp = ctx.xp
        out = x._data.copy()
        shape = out.shape
        n, size, inner = rows.size, shape[dim], math.prod(shape[dim + 1 :])
        outer = xp.arange(math.prod(shape[:dim]), dtype=xp.int64).reshape(-1, 1) * size
        key = outer + rows.astype(xp.int64).reshape(1, n)  # (A, n) rows of the (A, N, B) view
        if inner > 1:
            key = key.reshape(-1, n, 1) * inner + xp.arange(inner, dtype=xp.int64)
        key = key.reshape(-1)
        flat = out.reshape(-1)
        if not include_self:
            flat[key] = _identity(reduce, out.dtype, xp)
        x._device.backend.ufunc_at(reduce_ufunc(xp, reduce), flat, key, src._data.reshape(-1))
        return ScatterReduce._save_state(ctx, x, src, out, plan, reduce, include_self, op)


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """In-place index_reduce. Mirrors torch.Tensor.index_reduce_."""
    args = (input, dim, index, source, reduce, include_self)
    if include_self.__class__ is not bool or reduce.__class__ is not str:
        _check_reduce_args("index_reduce_", *args, src_name="source")
    try:
        return apply_inplace(
            input,
            lambda s: index_reduce(s, dim, index, source, reduce, include_self=include_self),
            "index_reduce_",
            (source,),
        )
    except (AttributeError, TypeError):  # the parser's errors name the in-place op
        _check_reduce_args("index_reduce_", *args, src_name="source")
        raise


# NOTE [ Storage kept by as_strided_ ]
# A tensor with no view base owns its array, and as_strided_ makes that array a strided window
# into itself: the memory outside the window would be lost to storage_offset(),
# untyped_storage() and a later as_strided_ (torch's tensor keeps its whole storage). So the
# tensor remembers the tensor holding the whole memory as its `_storage_root` (as a detached or
# dtype-viewed alias does: `_storage_root` in minitorch/_tensor.py), and an as_strided_ of a
# tensor with such a storage of its own dtype addresses that memory: its data is a window into
# it, and its gradient (w.r.t. the tensor as it was) is that of as_strided of a copy of the
# storage with the tensor's values put at their memory positions: the gradient of elements the
# tensor did not cover is dropped, as in torch.


def as_strided_(input, size, stride, storage_offset=None):
    """input becomes the as_strided view of its storage, in place. Mirrors
    torch.Tensor.as_strided_ (with as_strided's differences). See NOTE [ Storage kept by
    as_strided_ ]."""
    try:
        return _as_strided_(input, size, stride, storage_offset)
    except (IndexError, RuntimeError):
        check_shape_change(input)  # (torch's autograd refusals come first)
        raise


def _as_strided_(input, size, stride, storage_offset):
    from minitorch._ops.shape_more import as_strided

    if input._base is not None:  # a view addresses its base's memory: nothing to keep
        return set_shape_(
            input, as_strided(input, size, stride, storage_offset), "AsStridedBackward1"
        )
    store = _kept_storage(input)
    if store is None:
        old = input._data
        set_shape_(input, as_strided(input, size, stride, storage_offset), "AsStridedBackward1")
        if input._data is not old and "_storage_root" not in input.__dict__:
            input._storage_root = _make(old, input._device, False, None)
        return input
    if storage_offset is None:
        storage_offset = input.storage_offset()
    window = as_strided(store, size, stride, storage_offset)  # checks against the storage
    if input._requires_grad and grad_mode.state.enabled:
        viewed = as_strided(_in_storage(input, store), size, stride, storage_offset)
    else:
        viewed = window
    set_shape_(input, viewed, "AsStridedBackward1")
    input._data = window._data  # the storage's own memory, not the copy's
    return input


def _kept_storage(input):
    """The whole memory under a base-less input that lies inside another tensor's storage (after
    as_strided_, detach() of a view): a flat tensor of it, or None (input owns its memory, or
    the storage is of another dtype or not dense)."""
    root = _storage_root(input)
    if root is input:
        return None
    r = root._data
    if r.dtype != input._data.dtype or not (r.flags.c_contiguous or r.flags.f_contiguous):
        return None
    return _make(r.ravel(order="K"), input._device, False, None)


def _in_storage(input, store):
    """A copy of the flat storage `store` with input's values put at their memory positions:
    differentiable w.r.t. input."""
    from minitorch._backend import strided_view
    from minitorch._ops.indexing import index_put
    from minitorch._ops.shape_more import _positions

    xp = input._device.backend.xp
    x = input._data
    pos = _positions(xp, (store.numel(),))[input.storage_offset() :]
    at = strided_view(xp, pos, x.shape, [s // x.itemsize * pos.itemsize for s in x.strides])
    idx = _make(at.reshape(-1), input._device, False, None)
    return index_put(store, (idx,), input.reshape(-1))


# --- *_copy: the view's values in new memory (differentiable as the view) ---


def _copy(view, input, name=None):
    """The view's values in new (row-major) memory, its node named as torch's: the view's node
    with `_copy` (SelectBackward0_copy), or `name`. See NOTE [ Composite node names ]."""
    # torch's *_copy ops fill a fresh contiguous tensor, whatever the view's strides: a
    # preserve_format clone would keep a permuted layout (permute_copy(x).view(-1) must work)
    r = view.clone(memory_format=_memory_format.contiguous_format)
    if name is None:
        fn = view.grad_fn
        if fn is None or view is input:
            return r
        name = type(fn).__name__ + "_copy"
    return name_node(r, name)


def view_copy(input, size, *, out=None):
    """Mirrors torch.view_copy."""
    check_tensors("view_copy", ("input", input))
    # torch falls back to reshape's copy where the strides cannot be viewed (a transposed or
    # stepped input): the result is the values in row-major order either way
    if isinstance(size, _dtype.dtype):
        return _write(_contiguous_copy(input.view(size)), out, "aten::view_copy")
    result = _copy(input.reshape(_sizes(size)), input, "ViewBackward0_copy")
    return _write(result, out, "aten::view_copy")


def _contiguous_copy(t):
    return t.clone(memory_format=_memory_format.contiguous_format)


def _sizes(size):
    return tuple(size) if isinstance(size, (tuple, list)) else (size,)


def permute_copy(input, dims, *, out=None):
    """Mirrors torch.permute_copy."""
    check_tensors("permute_copy", ("input", input))
    if dims is None or isinstance(dims, str):
        raise wrong_type("permute_copy", dims, "dims", 2, "tuple of ints")
    return _write(_copy(input.permute(_sizes(dims)), input), out, "aten::permute_copy")


def t_copy(input, *, out=None):
    """Mirrors torch.t_copy."""
    check_tensors("t_copy", ("input", input))
    return _write(_copy(input.t(), input), out, "aten::t_copy")


def transpose_copy(input, dim0, dim1, *, out=None):
    """Mirrors torch.transpose_copy."""
    check_tensors("transpose_copy", ("input", input))
    return _write(_copy(input.transpose(dim0, dim1), input), out, "aten::transpose_copy")


def diagonal_copy(input, offset=0, dim1=0, dim2=1, *, out=None):
    """Mirrors torch.diagonal_copy."""
    check_tensors("diagonal_copy", ("input", input))
    try:
        view = input.diagonal(offset, dim1, dim2)
    except TypeError:  # the method's, which counts positions from offset: name the function's
        for pos, (name, x) in enumerate((("offset", offset), ("dim1", dim1), ("dim2", dim2)), 2):
            if x.__class__ is not int:
                check_int("diagonal_copy", x, name, pos)
        raise
    return _write(_copy(view, input), out, "aten::diagonal_copy")


def expand_copy(input, size, *, implicit=False, out=None):
    """Mirrors torch.expand_copy."""
    check_tensors("expand_copy", ("input", input))
    if isinstance(size, (tuple, list)):  # (_sizes, inlined)
        size = tuple(size)
    elif size.__class__ is int or is_index(size):
        # torch's parser reads an int as a one-element int[] for expand, not for expand_copy
        raise wrong_type("expand_copy", size, "size", 2, "tuple of ints")
    else:
        size = (size,)
    return _write(_copy(input.expand(size), input), out, "aten::expand_copy")


def squeeze_copy(input, dim=None, *, out=None):
    """Mirrors torch.squeeze_copy."""
    check_tensors("squeeze_copy", ("input", input))
    if isinstance(dim, Tensor) and not is_index(dim):
        raise no_overload("squeeze_copy", arg_types(input, dim), squeeze_overloads(True))
    v = input.squeeze() if dim is None else input.squeeze(dim)
    return _write(_copy(v, input), out, "aten::squeeze_copy")


def unsqueeze_copy(input, dim, *, out=None):
    """Mirrors torch.unsqueeze_copy."""
    check_tensors("unsqueeze_copy", ("input", input))
    return _write(_copy(input.unsqueeze(dim), input), out, "aten::unsqueeze_copy")


def select_copy(input, dim, index, *, out=None):
    """Mirrors torch.select_copy."""
    check_tensors("select_copy", ("input", input))
    if index.__class__ is not int:
        index = check_int("select_copy", index, "index", 3)
    return _write(_copy(input[_select_key(input, dim, index)], input), out, "aten::select_copy")


def slice_copy(input, dim=0, start=None, end=None, step=1, *, out=None):
    """Mirrors torch.slice_copy."""
    check_tensors("slice_copy", ("input", input))
    if step.__class__ is not int:
        step = check_int("slice_copy", step, "step", 5)
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim, "slice_copy", "dim", 2)
    key = (slice(None),) * d + (slice(start, end, _slice_step(step, "slice_copy", 5)),)
    # named SliceBackward0_copy even when the slice is all of dim (indexing then gives an alias)
    return _write(_copy(input[key], input, "SliceBackward0_copy"), out, "aten::slice_copy")


def _copies(parts, input, out, op):
    """The copies of a split's parts: a tuple, or (with out=) written into out's tensors and
    None returned, as torch's multi-output out= variants do. split_copy copies into them (a
    cast, broadcasting); the others resize them, which must have the parts' dtype."""
    parts = tuple(_copy(p, input) for p in parts)
    if out is None:
        return parts
    if len(out) != len(parts):
        raise RuntimeError(
            f"{op} expected an out= argument of size {len(parts)}, got size {len(out)}"
        )
    for p, o in zip(parts, out, strict=True):
        if op.startswith("split_copy"):
            with grad_mode.no_grad():
                o.copy_(p)
        else:
            _write(p, o)
    return None


def split_copy(input, split_size, dim=0, *, out=None):
    """Mirrors torch.split_copy (a tuple of copies; split sizes as a list go to
    split_with_sizes_copy, as in torch)."""
    check_tensors("split_copy", ("input", input))
    if isinstance(split_size, bool) or not hasattr(split_size, "__index__"):
        raise TypeError(
            "split_copy(): argument 'split_size' (position 2) must be int, not "
            f"{type(split_size).__name__}"
        )
    return _copies(input.split(split_size, dim), input, out, "split_copy_Tensor_out()")


def split_with_sizes_copy(input, split_sizes, dim=0, *, out=None):
    """Mirrors torch.split_with_sizes_copy."""
    check_tensors("split_with_sizes_copy", ("input", input))
    return _copies(input.split(list(split_sizes), dim), input, out, "split_with_sizes_copy_out")


def unbind_copy(input, dim=0, *, out=None):
    """Mirrors torch.unbind_copy."""
    check_tensors("unbind_copy", ("input", input))
    return _copies(input.unbind(dim), input, out, "unbind_copy_int_out")


def unfold_copy(input, dimension, size, step, *, out=None):
    """Mirrors torch.unfold_copy."""
    check_tensors("unfold_copy", ("input", input))
    return _write(_copy(input.unfold(dimension, size, step), input), out, "aten::unfold_copy")


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):
    """Mirrors torch.as_strided_copy (with as_strided's differences)."""
    from minitorch._ops.shape_more import as_strided

    try:
        view = as_strided(input, size, stride, storage_offset)
    except TypeError as e:  # as_strided's, of an argument the two share
        raise _as_strided_error(e, "as_strided_copy", 0) from None
    return _write(_copy(view, input), out, "aten::as_strided_copy")


def _as_strided_error(e: TypeError, op: str, shift: int) -> TypeError:
    """as_strided's argument TypeError `e` as `op`'s (which takes as_strided's arguments `shift`
    positions later) words it; any other TypeError as it is. An error path."""
    msg = str(e)
    if not msg.startswith("as_strided(): argument"):
        return e
    msg = op + msg[len("as_strided") :]
    if shift:
        msg = re.sub(r"\(position (\d+)\)", lambda m: f"(position {int(m[1]) + shift})", msg)
    return TypeError(msg)


def detach_copy(input, *, out=None):
    """Mirrors torch.detach_copy."""
    check_tensors("detach_copy", ("input", input))
    return _write(_contiguous_copy(input.detach()), out, "aten::detach_copy")


def alias_copy(input, *, out=None):
    """Mirrors torch.alias_copy."""
    check_tensors("alias_copy", ("input", input))
    return _write(_copy(input, input, "AliasBackward0_copy"), out, "aten::alias_copy")


def narrow_copy(input, dim, start, length, *, out=None):
    """Mirrors torch.narrow_copy (int arguments only, its own checks: a length that is negative
    or too long gives one message)."""
    from minitorch._ops.shape import narrow, sym_int

    dim = dim if dim.__class__ is int else index(dim, "narrow_copy", "dim", 2)
    start = start if start.__class__ is int else sym_int(start, "narrow_copy", "start", 3)
    length = length if length.__class__ is int else sym_int(length, "narrow_copy", "length", 4)
    try:
        shape = input._data.shape
    except AttributeError:
        check_tensors("narrow_copy", ("input", input))
        raise
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= len(shape):  # (torch checks the positive bound by an internal assert)
        raise RuntimeError(
            "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement request "
            "to PyTorch.)"
        )
    d = wrap_dim(dim, len(shape), "narrow_copy")
    size = shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    if out is not None and isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(  # torch's internal check, its text as it prints it
            "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    result = _copy(narrow(input, d, start, length), input, "NarrowCopyBackward0")
    if (
        isinstance(out, Tensor)
        and out._data.shape != result._data.shape
        and not (grad_mode.state.enabled and (result._requires_grad or out._requires_grad))
    ):  # torch's kernel resizes out itself: silently, without the deprecation warning
        out.resize_(result._data.shape)
    return _write(result, out, "narrow_copy")
