"""Gather and scatter along a dim: gather, scatter(_add/_reduce), take_along_dim."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._arg_errors import (
    NOT_GIVEN,
    REQUIRED,
    arity_error,
    missing_required,
    too_many_positional,
)
from minitorch._backend import cpu as _CPU
from minitorch._call_site import passed_by_keyword
from minitorch._ops._common import (
    check_bool,
    check_int,
    check_tensors,
    is_floating,
    not_tensor,
    wrap_dim,
    wrong_type,
)
from minitorch._ops._index_key import IndexPlan, is_index_dtype
from minitorch._ops.indexing import (
    Index,
    IndexPut,
    _put,
    in_bounds,
    index_with_plan,
    saved_arg,
    saved_watched,
    watch_indices,
)
from minitorch._ops.inplace import _check_leaf, apply_inplace, check_partial_overlap
from minitorch._ops.pointwise import where
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, _DelayedError, check_watched
from minitorch.autograd.grad_mode import state

_CPU_XP = _CPU.backend.xp  # the host's kernels (flat plans are built on the host)

__all__ = [
    "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce",
    "scatter_reduce_", "take_along_dim",
]  # fmt: skip


# NOTE [ Along-dim plans ]
# gather/scatter address out[i][j][k] <-> x[i][index[i][j][k]][k] (dim=1): an advanced key of
# `index` at `dim` and broadcast aranges at the other dims, over index's shape (which may be
# smaller than x's). Run through the indexing ops (Index, IndexPut) it gives gather, scatter and
# scatter_add with their backward (duplicates accumulate, double backward works) for free.


def along_dim_plan(index_arr, dim: int, x_shape, xp, basic=None) -> IndexPlan:
    """The plan of x[index along dim] (see NOTE [ Along-dim plans ]). `basic`: a first view
    step (x[None] for a 0-d x, which gather and scatter read as shape (1,))."""
    shape = index_arr.shape
    n = len(shape)
    key = []
    for d in range(n):
        if d == dim:
            key.append(index_arr)
        else:
            key.append(xp.arange(shape[d]).reshape((shape[d],) + (1,) * (n - 1 - d)))
    return IndexPlan(basic, tuple(key), None, "Alias", tuple(x_shape), tuple(shape), basic is None)


class Gather(Index):
    """out[i][j] = x[i][index[i][j]] (dim=1);  grad_x = zeros with grad added at index"""

    _node_name = "GatherBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's)
        "dim": saved_arg("saved_dim", wrap=True),
        "index": saved_watched(0),
        "self": saved_watched(1),
        "sparse_grad": saved_arg("saved_sparse_grad"),
    }
    # cummax/cummin of a 0-d input run through this node under their own names
    _saved_shown = {"CummaxBackward0": (), "CumminBackward0": ()}


class Scatter(IndexPut):
    """out = x with out[i][index[i][j]] = src[i][j];  grad_x = grad with those zeroed,
    grad_src = gather(grad)"""

    _node_name = "ScatterBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's)
        "dim": saved_arg("saved_dim", wrap=True),
        "index": saved_watched(0),
    }


class ScatterValue(Scatter):
    """scatter of a number (torch's ScatterBackward1: the input alone)"""

    _node_name = "ScatterBackward1"
    _edges = (0,)


class ScatterAdd(IndexPut):
    """out = x with out[i][index[i][j]] += src[i][j];  grad_x = grad,  grad_src = gather(grad)"""

    _node_name = "ScatterAddBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's)
        "dim": saved_arg("saved_dim", wrap=True),
        "index": saved_watched(0),
    }


def _check_index(index, op: str):
    if not isinstance(index, Tensor):
        raise wrong_type(op, index, "index", 3, "Tensor")
    # an empty index of any dtype is fine: torch checks the dtype of one it will read
    if index._data.size and not is_index_dtype(index._data.dtype):
        if op == "gather" and index._device.type == "meta":  # (torch's meta kernel's text)
            raise RuntimeError(
                f"{op}(): Expected dtype int32/int64 for index, but got {index.dtype}"
            )
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")


def _check_src(src, op: str, pos: int = 4):
    """torch's TypeError for a src that is not a Tensor (scatter_add and scatter_reduce take no
    number, unlike scatter); pos is the function's position (the methods check their own)."""
    if not isinstance(src, Tensor):
        raise wrong_type(op, src, "src", pos, "Tensor")


def _index_on(x: Tensor, index: Tensor):
    """index's array on x's device (a CPU index may address a tensor on another device)."""
    if index._device is x._device:
        return index._data
    if index._device.type != "cpu":
        raise RuntimeError(
            f"Expected all tensors to be on the same device, but found at least two devices, "
            f"{x._device} and {index._device}!"
        )
    return x._device.backend.from_host(index._data, x._device)


def _check_bounds(x: Tensor, idx, dim: int):
    """RuntimeError for an index outside x's dim (CPU only; see NOTE [ Indexing plans ])."""
    if x._device.type != "cpu" or idx.size == 0:
        return
    n = x._data.shape[dim] if x._data.ndim else 1
    if in_bounds(idx, 0, n):  # (one reduction: 3x faster than the mask below)
        return
    bad = (idx >= n) | (idx < 0)  # torch's gather and scatter take no negative index
    if bad.any():
        value = int(idx.reshape(-1)[bad.reshape(-1).argmax()])
        raise RuntimeError(f"index {value} is out of bounds for dimension {dim} with size {n}")


# NOTE [ 0-d and empty in gather/scatter ]
# torch reads a 0-d self, index or src as one element in one dim (its ensure_nonempty_size):
# tensor(2.).gather(0, tensor([0, 0])) is [2., 2.], zeros(2).scatter_add(0, tensor([1]),
# tensor(5.)) adds 5. A 0-d x is addressed through its view x[None] (the plan's basic step), a
# 0-d index is a 0-d key (the result of gather is 0-d) and a 0-d src is read as src.reshape(1).
# An empty index returns before any shape check (scatter gives self, gather an empty tensor of
# index's shape): its plan is one empty key array per dim of x, which touches nothing.


def _src_dims_error(src: Tensor, ishape: tuple, shape: tuple, dim: int) -> None:
    """torch's IndexError where a src with fewer dims than index fails its size walk first.

    torch compares index with self, then (if that fit) index with src size by size, dim by dim,
    before it checks src's number of dims: the walk stops at the first size index exceeds, and
    reading a src dim past its last raises 'Dimension out of range' (a 0-d src reads as size 1
    in every dim, so it never does). Only reached on the way to the dims RuntimeError."""
    if src._data.ndim == 0 or any(d != dim and ishape[d] > shape[d] for d in range(len(ishape))):
        return
    sshape = src._data.shape
    for d in range(len(ishape)):
        if d >= len(sshape):
            wrap_dim(d, len(sshape))  # raises torch's IndexError
        if ishape[d] > sshape[d]:
            return


def _plan(x: Tensor, dim, index: Tensor, op: str, src: Tensor | None = None):
    """Validates a gather/scatter call and returns (dim, plan) on x's device (see NOTE [ 0-d and
    empty in gather/scatter ])."""
    if not isinstance(index, Tensor):
        if dim.__class__ is not int:  # torch's parser reads dim's type first: gather(x, index, 1)
            check_int(op, dim, "dim", 2)
        raise wrong_type(op, index, "index", 3, "Tensor")
    try:
        ndim = x._data.ndim
    except AttributeError:  # torch.gather(None, ...): zero-cost when a tensor
        raise not_tensor(op, x) from None
    dim = wrap_dim(dim, ndim, op, "dim", 2)  # torch checks dim before index's dtype
    # scatter_add and scatter_reduce check the index as scatter, in its name
    _check_index(index, "gather" if op == "gather" else "scatter")
    idx = _index_on(x, index)
    shape = x._data.shape or (1,)
    basic = None if ndim else (None, Ellipsis)
    if idx.size == 0:
        idx = idx.astype("int64", copy=False)  # (an empty index of any dtype: see _check_index)
        return dim, IndexPlan(basic, (idx,) * len(shape), None, "Alias", shape, idx.shape, not ndim)
    ishape = idx.shape or (1,)
    if len(ishape) != len(shape):
        who = "input" if op == "gather" else "self"
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {who} tensor")
    sshape = None if src is None else (src._data.shape or (1,))
    if sshape is not None and len(sshape) != len(ishape):
        _src_dims_error(src, ishape, shape, dim)
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for d in range(len(ishape)):
        too_big = d != dim and ishape[d] > shape[d]
        if sshape is not None:
            too_big = too_big or ishape[d] > sshape[d]  # src must cover index, dim included
        if not too_big:
            continue
        if x._device.type == "meta":
            _meta_shape_error(x, dim, index, src, op)
        expected = (
            f"Expected index {list(idx.shape)} to be no larger than self {list(x._data.shape)} "
            f"apart from dimension {dim}"
        )
        if sshape is not None:
            expected += f" and to be no larger size than src {list(src._data.shape)}"
        elif op == "gather":
            expected = f"Size does not match at dimension {d} e" + expected[1:]
        raise RuntimeError(expected)
    _check_bounds(x, idx, dim)
    if idx.ndim == 0:  # a 0-d key: a 0-d result
        return dim, IndexPlan(basic, (idx,), None, "Alias", shape, (), not ndim)
    if basic is None and x._device is _CPU and idx.size < FLAT_PLAN_MAX:
        return dim, flat_along_plan(idx, dim, shape)
    return dim, along_dim_plan(idx, dim, shape, x._device.backend.xp, basic)


def _meta_shape_error(x: Tensor, dim: int, index: Tensor, src, op: str) -> None:
    """The size error of torch's meta gather/scatter kernels (Python), which compare index with
    self at every dim first, then with src, and show the shapes as torch.Size."""
    ishape = index._data.shape or (1,)
    shape = x._data.shape or (1,)
    for d in range(len(ishape)):
        if d != dim and ishape[d] > shape[d]:
            text = (
                f"xpected index {index.shape} to be no larger than self {x.shape} apart from "
                f"dimension {dim}"
            )
            at = f"Size does not match at dimension {d} e" if op == "gather" else "E"
            raise RuntimeError(at + text)
    raise RuntimeError(f"Expected index {index.shape} to be no larger than src {src.shape}")


def flat_along_plan(idx, dim: int, shape: tuple) -> IndexPlan:
    """The along-dim plan of a small host index that _check_bounds has checked, as one index (of
    index's shape) into x.flatten() (NOTE [ Flat plans ] in indexing.py): NumPy gathers, writes
    and adds through it in the same order as through the key of aranges and index, so the last
    duplicate still wins and sums add in the same order, 2-5x faster (NumPy's kernels on (32, 32)
    float32: gather 3.1 -> 0.9 us, scatter 5.3 -> 1.2, scatter_add 9.6 -> 1.9; the ops: gather
    10.0 -> 8.2 us, scatter_add 17.6 -> 10.9, scatter_reduce amax 20.8 -> 11.3)."""
    key = (dim, shape, idx.shape)
    got = _FLAT_OFFSETS.get(key)
    if got is None:
        got = _flat_offsets(dim, shape, idx.shape)
        if got[0] is not None and got[0].size <= _FLAT_CACHED:
            if len(_FLAT_OFFSETS) >= 64:
                _FLAT_OFFSETS.clear()
            _FLAT_OFFSETS[key] = got
    offsets, stride = got
    flat = idx if stride == 1 else _CPU_XP.multiply(idx, stride, dtype="int64")
    if offsets is not None:
        flat = flat + offsets
    # one 1-d index: the kernels' fastest (ufunc.at's too); _take and _put reshape to index's
    # shape (NOTE [ Flat plans ] in indexing.py)
    flat = flat.reshape(-1)
    return IndexPlan(None, (flat,), None, "Alias", (math.prod(shape),), idx.shape, True)


# (dim, x's shape, index's shape) -> _flat_offsets, for offsets of up to _FLAT_CACHED elements:
# a few shapes recur in a program, and their aranges cost more than the rest of the plan
_FLAT_OFFSETS: dict = {}
_FLAT_CACHED = 1 << 14
# Indices of this many elements or more keep the key of aranges and index: the kernels flatten
# it themselves (scatter's _flat_put_plan, the backend's take_at and ufunc_at: NOTE [ Flat
# scatter keys ] in minitorch/_backend/numpy_backend.py)
FLAT_PLAN_MAX = 1 << 11


def _flat_offsets(dim: int, shape: tuple, ishape: tuple):
    """(offsets, stride): the flat offsets of the positions along every dim but dim (an array
    broadcasting to index's shape, None for a 1-d x) and dim's stride in x, so that the flat
    index is index * stride + offsets."""
    n = len(shape)
    offsets = None
    stride = 1
    dim_stride = 1
    for d in range(n - 1, -1, -1):
        if d == dim:
            dim_stride = stride
        else:
            m = ishape[d]
            term = (_CPU_XP.arange(m) * stride).reshape((m,) + (1,) * (n - 1 - d))
            offsets = term if offsets is None else offsets + term
        stride *= shape[d]
    if offsets is not None:
        offsets.flags.writeable = False  # (shared by the plans of every call)
    return offsets, dim_stride


def gather(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    index: Tensor = REQUIRED,
    *extra,
    sparse_grad: bool = False,
    out=None,
):
    """out[i][j] = input[i][index[i][j]] along dim. Mirrors torch.gather."""
    if extra or input is REQUIRED or dim is REQUIRED or index is REQUIRED:
        raise arity_error("gather", extra, 3, input=input, dim=dim, index=index)
    if sparse_grad.__class__ is not bool:
        _sparse_grad_error(input, dim, index, sparse_grad)
    _, plan = _plan(input, dim, index, "gather")
    # torch saves the input too (its backward reads only the shape, but the version check is
    # there): a change in place before backward raises (the index is named first)
    result = Gather.apply(input, plan=plan)
    result = watch_indices(result, index, input, saved_dim=dim, saved_sparse_grad=sparse_grad)
    if (
        isinstance(out, Tensor)
        and out.dtype is result.dtype
        and not (state.enabled and (result._requires_grad or out._requires_grad))
    ):  # (torch's refusals of out= with autograd or of another dtype come first: write_out's)
        # torch resizes out first, then refuses one sharing memory with input, and one partly
        # overlapping index
        _resize_out(out, result._data.shape)
        check_partial_overlap(out, input, same_ok=False)
        check_partial_overlap(out, index)
    return _maybe_out(result, out, "gather")


def _sparse_grad_error(input, dim, index, sparse_grad) -> None:
    """torch's TypeError for a sparse_grad that is no bool: its parser's, so after the errors
    of the arguments before it (their types), before any check of their values."""
    try:
        _plan(input, dim, index, "gather")
    except TypeError:
        raise
    except Exception:  # noqa: BLE001, S110 - a value error: torch's kernel would come later
        pass
    check_bool("gather", sparse_grad, "sparse_grad")


def _resize_out(out: Tensor, shape: tuple) -> None:
    """out resized to shape over its memory, as torch's kernels resize an out= of another shape
    before their own checks, with write_out's deprecation warning when out had elements."""
    if out._data.shape == shape:
        return
    from minitorch._ops.inplace import warn_resized

    warn_resized(out, shape)
    out.resize_(shape)


def _maybe_out(result, out, op=None):
    """op: the name the refusal of an out= that requires grad gives (write_out's)."""
    if out is None:
        return result
    from minitorch._ops.inplace import write_out_exact

    # gather, take_along_dim: out must have input's dtype
    return write_out_exact(out, result, graph_op=op)


def _src_region(src: Tensor, plan: IndexPlan) -> Tensor:
    """src cut to index's shape (scatter reads only that corner of src; see NOTE [ 0-d and empty
    in gather/scatter ])."""
    shape = plan.out_shape
    if src._data.shape == shape:
        return src
    if not shape:  # a 0-d index reads src's first element
        return src.reshape(-1)[0]
    if 0 in shape:  # an empty index reads nothing (src's gradient is zeros)
        return src.reshape(-1)[:0].reshape(shape)
    if not src._data.ndim:
        return src.reshape(1)
    return src[tuple(slice(0, n) for n in shape)]


def _flat_put_plan(x: Tensor, plan: IndexPlan) -> IndexPlan:
    """plan as one index into x.flatten() (NOTE [ Flat plans ] in indexing.py) for a large
    scatter on the CPU, whose index _check_bounds has checked: NumPy writes through one 1-d
    index ~4x faster than through the key of aranges and index (316x316: 470 us, 110 us;
    perf11, session 27). The writes go in the same order, so the last duplicate still wins."""
    shape = plan.v_shape
    if plan.basic is not None or x._device.type != "cpu" or math.prod(plan.out_shape) < 2048:
        return plan
    flat = 0
    stride = 1
    for d in range(len(shape) - 1, -1, -1):
        flat = plan.adv[d] * stride + flat
        stride *= shape[d]
    xp = x._device.backend.xp
    flat = xp.broadcast_to(flat, plan.out_shape)
    return IndexPlan(None, (flat,), None, "Alias", (stride,), plan.out_shape, True)


def _value_tensor(x: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.ndim:  # (a Number value takes a 0-d tensor only: no overload fits)
            raise _NoOverload
        return value.to(x.dtype) if value.dtype is not x.dtype else value
    xp = x._device.backend.xp
    value = _dtype.fill_number(value, x._data.dtype)  # c10's checked conversion: u8 takes -1
    return _make(xp.asarray(value, dtype=x._data.dtype), x._device, False, None)


def scatter(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    index: Tensor = REQUIRED,
    src=None,
    *extra,
    value=None,
    reduce=None,
    out=None,
) -> Tensor:
    """A copy of input with src (or value) written at index along dim. Mirrors torch.scatter.

    Differences from torch: with duplicate indices the last write wins on CPU (torch leaves it
    unspecified); reduce='multiply' combines duplicates in an order that may differ by device.
    """
    return _scatter_call(input, dim, index, src, extra, value, reduce, out, None)


def scatter_by(op: str, input, dim, index, args: tuple, src, value, reduce):
    """scatter (op "scatter") or scatter_ ("scatter_") of a caller that tells how src came: the
    Tensor methods' entry (NOTE [ A number src by keyword ]). args: the arguments given by
    position after index (src first, then any extra); src: the one given by keyword, NOT_GIVEN
    where none."""
    if src is NOT_GIVEN:
        keyword = False
        src, args = (args[0], args[1:]) if args else (None, ())
    elif args:  # Python's error for src given twice, which the methods' wrapper words as torch's
        raise TypeError(f"{op}() got multiple values for argument 'src'")
    else:
        keyword = True
    if op == "scatter":
        return _scatter_call(input, dim, index, src, args, value, reduce, None, keyword)
    return _scatter_inplace(input, dim, index, src, args, value, reduce, keyword)


def _scatter_call(input, dim, index, src, extra, value, reduce, out, keyword):
    """scatter's work; keyword: whether src came by keyword (None: not known, the call site
    says where src is a number)."""
    named = (("input", input), ("dim", dim), ("index", index), ("src", src))
    named += (("value", value), ("reduce", reduce), ("out", out))
    if extra:
        raise _extra_error("scatter", named, extra)
    if src is not None and (src.__class__ is not Tensor or value is not None):
        _src_number_by_keyword(src, "scatter", named, keyword)
    try:
        result = _scatter(input, dim, index, src, value, reduce)
    except (AttributeError, TypeError) as e:  # NOTE [ Overloaded reductions ]: its overloads
        raise _overload_error(e, "scatter", named) from None
    if out is None:
        return result
    if not isinstance(out, Tensor):  # (an out= of no overload: torch lists them)
        from minitorch._ops._parser_errors import parsed_error

        raise parsed_error("scatter", named)
    return _maybe_out(result, out)


class _NoOverload(TypeError):
    """An argument of a type no overload of scatter takes where argument_error, which reads the
    arguments by position, would find one (a tensor given as value=)."""


def _overload_error(error: Exception, op: str, named) -> Exception:
    """torch's parser error for scatter or scatter_ (`op`) refusing the arguments `named`, or
    `error` as it is where it is about their values. For error paths only."""
    from minitorch._ops._parser_errors import argument_error, parsed_error

    if isinstance(error, _NoOverload):
        return parsed_error(op, named)
    return argument_error(error, op, named)


def _extra_error(op: str, named, extra: tuple) -> TypeError:
    """torch's parser's TypeError for scatter or scatter_ given `extra` positional arguments
    past src (x.scatter(0, i, src, 5)): its overloads listed. named: scatter's (name, value)
    pairs, the keyword-only ones None where not given."""
    from minitorch._ops._parser_errors import OVERLOADS, overload_error, with_extra

    keywords = [(k, v) for k, v in named[4:] if v is not None]
    return overload_error(op, *OVERLOADS[op], with_extra(named[:4], extra) + keywords)


# NOTE [ A number src by keyword ]
# torch's scatter takes a number as its value: by position (x.scatter(1, i, 1.0)) or as value=,
# never as src= (x.scatter(1, i, src=1.0) fits no overload). A function of the signature
# (input, dim, index, src=None, ...) receives both calls alike, so the public functions ask the
# call site (passed_by_keyword: a walk of the stack and a read of the caller's bytecode, ~3 us)
# for a number src. scatter_by is the entry for a caller that knows, a method taking
# (dim, index, *args, src=NOT_GIVEN, ...): the common one-hot x.scatter_(1, i, 1.0) then looks
# at no frame.


def _src_number_by_keyword(src, op: str, named, keyword=None) -> None:
    """torch's TypeError for a number passed as src= (only value= or a positional number takes
    one), or a src beside value= (x.scatter(1, i, 1.5, value=1.5)): the call fits no overload.
    keyword: whether src came by keyword, None where the caller cannot tell (the call site
    says: NOTE [ A number src by keyword ])."""
    if named[4][1] is not None or (  # (named[4]: value's pair)
        not isinstance(src, Tensor)
        and (keyword if keyword is not None else passed_by_keyword("src", op))
    ):
        from minitorch._ops._parser_errors import parsed_error

        raise parsed_error(op, named)


def _scatter(input: Tensor, dim, index: Tensor, src, value, reduce) -> Tensor:
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if reduce is not None:
        if not isinstance(reduce, str):  # (to argument_error: no overload takes it)
            raise TypeError
        if src is not None:
            _warn_reduce_deprecated()
        if reduce not in ("add", "multiply"):
            _check_before_reduce(input, dim, index, src, "scatter")
            raise RuntimeError("reduce argument must be either add or multiply.")
        if src is None:
            src = _value_tensor(input, value).expand(index.shape)
        return scatter_reduce(input, dim, index, src, "sum" if reduce == "add" else "prod")
    if src is not None:
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        _, plan = _plan(input, dim, index, "scatter", src)
        region = _src_region(src, plan)
        out = Scatter.apply(input, region, plan=_flat_put_plan(input, plan), accumulate=False)
        return watch_indices(out, index, saved_dim=dim)
    if value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    _, plan = _plan(input, dim, index, "scatter")
    plan = _flat_put_plan(input, plan)
    out = ScatterValue.apply(input, _value_tensor(input, value), plan=plan, accumulate=False)
    return watch_indices(out, index, saved_dim=dim)


def _warn_reduce_deprecated() -> None:
    """torch's deprecation warning for scatter's reduce= with a Tensor src (not with a number):
    once per process, given before reduce itself is checked, as torch's."""
    from minitorch._settings import warn_once

    warn_once(
        "scatter_reduce_argument",
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
        "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
        "options.",
    )


def scatter_(
    input: Tensor, dim: int = REQUIRED, index: Tensor = REQUIRED, src=None, *extra, value=None,
    reduce=None,
):
    """In-place scatter. Mirrors torch.Tensor.scatter_."""
    return _scatter_inplace(input, dim, index, src, extra, value, reduce, None)


def _scatter_inplace(input, dim, index, src, extra, value, reduce, keyword):
    """scatter_'s work; keyword as _scatter_call's."""
    named = (("input", input), ("dim", dim), ("index", index), ("src", src))
    named += (("value", value), ("reduce", reduce))
    if extra:
        raise _extra_error("scatter_", named, extra)
    if src is not None and (src.__class__ is not Tensor or value is not None):
        _src_number_by_keyword(src, "scatter_", named, keyword)
    others = (src,) if isinstance(src, Tensor) else ()
    try:
        return apply_inplace(
            input,
            lambda s: _src_apart(input, src, _scatter(s, dim, index, src, value, reduce)),
            "scatter_",
            others,
        )
    except (AttributeError, TypeError) as e:  # scatter's overloads, as the method's
        raise _overload_error(e, "scatter_", named) from None
    except RuntimeError as raised:
        _raise_first_error(raised, input, dim, index, src, "scatter")


def scatter_add(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    index: Tensor = REQUIRED,
    src: Tensor = REQUIRED,
    *extra,
    out=None,
) -> Tensor:
    """A copy of input with src added at index along dim (duplicates add up). Mirrors
    torch.scatter_add."""
    if extra or input is REQUIRED or dim is REQUIRED or index is REQUIRED or src is REQUIRED:
        raise arity_error("scatter_add", extra, 4, input=input, dim=dim, index=index, src=src)
    check_tensors("scatter_add", ("input", input))
    if src.__class__ is not Tensor:
        _check_src(src, "scatter_add")
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")  # (torch's)
    _, plan = _plan(input, dim, index, "scatter_add", src)
    region = _src_region(src, plan)  # half sums in float32: torch's scatter_add
    result = ScatterAdd.apply(input, region, plan=plan, accumulate=True, in_float32=True)
    return _maybe_out(watch_indices(result, index, saved_dim=dim), out)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """In-place scatter_add. Mirrors torch.Tensor.scatter_add_."""
    try:
        return apply_inplace(
            input,
            lambda s: _src_apart(input, src, scatter_add(s, dim, index, src)),
            "scatter_add_",
            (src,),
        )
    except TypeError:  # scatter_add's parser error, which names the in-place op (its arguments
        # are scatter_reduce's but for reduce and include_self, given well typed here)
        _check_reduce_args("scatter_add_", input, dim, index, src, "sum", True)
        raise
    except RuntimeError as raised:
        _raise_first_error(raised, input, dim, index, src, "scatter_add")


def _raise_first_error(raised: RuntimeError, input, dim, index, src, op: str):
    """Raises the error torch's in-place scatter (`op` names the out-of-place one) gives first for
    a call that failed with `raised` (_in_place_error's, else `raised` itself)."""
    error = _in_place_error(input, dim, index, src, op)
    if error is None:
        raise raised
    raise error from None


def _in_place_error(input, dim, index, src, op: str) -> Exception | None:
    """The error torch's in-place scatters (`op` names the out-of-place one) give first for a
    call that failed: after autograd's refusals of the write, they check the dtypes and shapes
    (_check_before_reduce), then refuse a src sharing input's memory, and only then check
    reduce and index's values. None where the error raised is torch's. For error paths only."""
    if not (isinstance(input, Tensor) and isinstance(index, Tensor) and isinstance(src, Tensor)):
        return None
    try:
        _check_leaf(input, op + "_")
    except RuntimeError:  # (autograd's refusal comes first: the one raised)
        return None
    try:
        _check_before_reduce(input, dim, index, src, op)
        check_partial_overlap(input, src, same_ok=False)
    except (RuntimeError, IndexError) as error:
        return error
    return None


def _check_before_reduce(input, dim, index, src, op: str) -> None:
    """The checks torch's scatters make before they read reduce or index's values (src's dtype,
    dim, index's dtype, the shapes; `op` names the scatter), for an error path: raises the
    first that fails."""
    if not (isinstance(input, Tensor) and isinstance(index, Tensor)):
        return
    if isinstance(src, Tensor) and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    # index's shape and dtype with values in bounds: the shape checks alone
    zeros = _make(index._device.backend.xp.zeros_like(index._data), index._device, False, None)
    _plan(input, dim, zeros, op, src if isinstance(src, Tensor) else None)


def _src_apart(input: Tensor, src, result: Tensor) -> Tensor:
    """result (an in-place scatter's, computed), once torch's refusal of a src sharing input's
    memory, src being input too, has passed: checked after the arguments and shapes, as
    torch's kernels do."""
    check_partial_overlap(input, src, same_ok=False)
    return result


# --- scatter_reduce ---

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce: str, dtype, xp):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if is_floating(dtype):
        return -xp.inf if reduce == "amax" else xp.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _counts(device, shape, plan: IndexPlan, include_self: bool, dtype, in_float32=True):
    """How many values reduce into each position (1 for self where it counts); in_float32=False
    counts in a half dtype itself (rounding as it goes, as torch's index_reduce does)."""
    xp = device.backend.xp
    c = xp.full(shape, 1 if include_self else 0, dtype=dtype)
    ones = xp.ones(plan.out_shape, dtype=dtype)
    _put(device, c, plan, ones, accumulate=True, in_float32=in_float32)
    return c


def reduce_ufunc(xp, reduce: str):
    """The ufunc that scatters one of the reductions 'prod', 'amax', 'amin' (with ufunc.at)."""
    return {"prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum}[reduce]


class ScatterReduce(Function):
    """out[index along dim] = reduce(x (if include_self), src...);  gradients per reduction:
    sum -> grad, mean -> grad / count, amax/amin -> grad split among the values equal to the
    result (with include_self=False torch still counts a self value equal to the result in that
    split, giving it no share), prod -> grad * product of the other values"""

    # grad_fn._saved_<name> (as torch's; index_reduce's node names src "source")
    _saved_names = ("self", "src", "result")
    _saved_attrs = {
        "dim": saved_arg("saved_dim", wrap=True),
        "include_self": "include_self",
        "index": saved_watched(0),
        "reduce": saved_arg("saved_reduce"),  # as given ("max", not its alias "amax")
        "source": lambda node: node._stored_tensors[1],
    }
    _saved_shown = {
        name: ("dim", "include_self", "index", "reduce", "result", "self", src)
        for name, src in (("ScatterReduceBackward0", "src"), ("IndexReduceBackward0", "source"))
    }

    @staticmethod
    def forward(ctx, x, src, *, plan, reduce, include_self, op="scatter_reduce"):
        xp = ctx.xp
        dev = x._device
        out = x._data.copy()
        vals = src._data
        if not include_self:
            _put(dev, out, plan, _identity(reduce, out.dtype, xp), accumulate=False)
        # torch's scatter_reduce sums half values in float32, index_reduce in their dtype (and
        # counts in it too for a 1-d input)
        in_f32 = op != "index_reduce"
        if reduce in ("sum", "mean"):
            _put(dev, out, plan, vals, accumulate=True, in_float32=in_f32)
        else:
            target = out if plan.basic is None else out[plan.basic]
            if target.shape != plan.v_shape:  # a view of the fresh out (NOTE [ Flat plans ])
                target = target.reshape(plan.v_shape)
                if plan.adv[0].ndim == 1 != vals.ndim:  # gather's and scatter's small flat plans
                    vals = vals.reshape(-1)  # (src's region: index's shape)
            dev.backend.ufunc_at(reduce_ufunc(xp, reduce), target, plan.adv, vals)  # (flat key)
        if reduce == "mean":
            counts = _counts(dev, out.shape, plan, include_self, out.dtype, in_f32 or out.ndim > 1)
            counts = xp.maximum(counts, 1)
            if is_floating(out.dtype):
                out = out / counts
            else:
                out = xp.floor_divide(out, counts)
        return ScatterReduce._save_state(ctx, x, src, out, plan, reduce, include_self, op)

    @staticmethod
    def _save_state(ctx, x, src, out, plan, reduce, include_self, op):
        """What backward reads (also IndexReduceRows'); returns out."""
        ctx.plan = plan
        ctx.reduce = reduce
        ctx.include_self = include_self
        ctx.op = op
        ctx.save_for_backward(x, src, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        check_watched(ctx)  # the index (scatter_reduce watches it), which torch checks first
        x, src, out = ctx._stored_tensors
        plan, reduce, include_self = ctx.plan, ctx.reduce, ctx.include_self
        dev = grad._device
        xp = ctx.xp
        scattered = _make(_counts(dev, x.shape, plan, False, "int64") > 0, dev, False, None)
        gx = gs = None
        if reduce == "sum":
            gx = grad if include_self else where(scattered, 0.0, grad)
            gs = index_with_plan(grad, plan)
        elif reduce == "mean":
            in_f32 = ctx.op != "index_reduce" or grad._data.ndim > 1
            n = _counts(dev, x.shape, plan, include_self, grad._data.dtype, in_f32)
            n = _make(xp.maximum(n, 1), dev, False, None)
            gx = grad / n if include_self else where(scattered, 0.0, grad)
            gs = index_with_plan(grad / n, plan)
        elif reduce in ("amax", "amin"):
            with_out = index_with_plan(out, plan)
            eq_src = _make(src._data == with_out._data, dev, False, None)
            eq_x = x._data == out._data
            # torch's rule: an excluded self value (include_self=False) equal to the result still
            # counts in the tie (self=3, src=[1, 3, 3] gives src [0, 1/3, 1/3]); it gets no share
            n = eq_x.astype(grad._data.dtype)
            if not include_self:
                eq_x = eq_x & ~scattered._data
            eq_x = _make(eq_x, dev, False, None)
            _put(dev, n, plan, eq_src._data.astype(n.dtype), accumulate=True, in_float32=True)
            n = _make(xp.maximum(n, 1), dev, False, None)
            gx = where(eq_x, grad / n, 0.0)
            gs = where(eq_src, index_with_plan(grad / n, plan), 0.0)
        else:
            gx, gs = _prod_grads(x, src, out, grad, plan, include_self, scattered, ctx.op)
        return (gx if ctx.needs_input_grad[0] else None, gs if ctx.needs_input_grad[1] else None)


def _prod_grads(x, src, out, grad, plan, include_self, scattered, op):
    """Gradients of a scatter product, exact with zeros in a group and differentiable again:
    x gets grad * (its group's product with x taken as 1), which for x != 0 is the product of
    the others times x / x; a src value gets its group's product over itself when nonzero, the
    group's product with itself taken as 1 when it is the only zero among the group's src values.
    With more zeros in one group's src, double backward through the src gradient raises (torch:
    its first derivatives are right, its second would not be)."""
    dev = grad._device
    xp = dev.backend.xp
    zs = src._data == 0
    zs_t = _make(zs, dev, False, None)
    nzero = xp.zeros(x.shape, dtype="int64")
    _put(dev, nzero, plan, zs.astype("int64"), accumulate=True, in_float32=True)
    nzero = _make(nzero, dev, False, None)
    single = zs_t & (index_with_plan(nzero, plan) == 1)

    def product(base, values):
        return ScatterReduce.apply(
            base, values, plan=plan, reduce="prod", include_self=include_self, op=op
        )

    # a graph is built (create_graph): the products are recomputed as functions of x and src,
    # else the saved (constant) result serves
    building = state.enabled
    if include_self:
        x_nz = where(x == 0, 1.0, x)
        gx = grad * product(x_nz, src) / x_nz
    else:
        gx = where(scattered, 0.0, grad)
    whole = product(x, src) if building else out
    gs = where(
        single,
        index_with_plan(grad * product(x, where(single, 1.0, src)), plan),
        index_with_plan(grad * whole, plan) / where(zs_t, 1.0, src),
    )
    # torch's check reads the counts on the host: made where they live there (CPU)
    if building and dev.type == "cpu" and (nzero._data > 1).any():
        name = "src" if op == "scatter_reduce" else "source"
        gs = _DelayedError.apply(
            gs,
            msg=f"{op}(): Double backward is unsupported for {name} when >1 zeros in {name} are "
            "scattered to the same position in self",
        )
    return gx, gs


def scatter_reduce(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    index: Tensor = REQUIRED,
    src: Tensor = REQUIRED,
    reduce: str = REQUIRED,
    *extra,
    include_self=True,
    out=None,
) -> Tensor:
    """Reduces src into input at index along dim ('sum', 'prod', 'mean', 'amax', 'amin').
    Mirrors torch.scatter_reduce.

    Differences from torch: 'prod', 'amax' and 'amin' use xp.<ufunc>.at (CuPy may lack some);
    with 'prod', the >1-zeros check that refuses double backward is made on CPU only (it would
    read device data).
    """
    args = (input, dim, index, src, reduce, include_self)
    if extra:  # (torch's count: its parser's, where Python's counts the REQUIRED defaults)
        raise too_many_positional("scatter_reduce", 5 + len(extra), 5)
    if include_self.__class__ is not bool:
        _check_reduce_args("scatter_reduce", *args)
    try:
        result = reduce_into(*args)
    except (AttributeError, TypeError, RuntimeError):  # (no cost on the common path)
        if any(a is REQUIRED for a in args):  # (torch's wording: its parser's, not Python's)
            named = zip(("input", "dim", "index", "src", "reduce"), args, strict=False)
            raise missing_required("scatter_reduce", **dict(named)) from None
        _check_reduce_args("scatter_reduce", *args)
        raise
    return _maybe_out(watch_indices(result, index, saved_dim=dim, saved_reduce=reduce), out)


def _check_reduce_args(op: str, input, dim, index, src, reduce, include_self, src_name="src"):
    """torch's parser's TypeError for scatter_reduce's (or index_reduce's, whose src is named
    source) first ill-typed argument, in its order (the error path of an op that failed:
    returns when all are well typed)."""
    check_tensors(op, ("input", input))
    if dim.__class__ is not int:
        check_int(op, dim, "dim", 2)
    check_tensors(op, (None, input), (None, dim), ("index", index), (src_name, src))
    if not isinstance(reduce, str):
        raise wrong_type(op, reduce, "reduce", 5, "str")
    if include_self.__class__ is not bool:
        raise wrong_type(op, include_self, "include_self", None, "bool")


def reduce_into(input, dim, index, src, reduce, include_self, op="scatter_reduce"):
    """scatter_reduce's result, for it and index_reduce (`op` names the caller in the error
    of a refused double backward)."""
    if src.__class__ is not Tensor:
        _check_src(src, "scatter_reduce")
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # torch's aliases
    if reduce not in _REDUCES:
        _check_before_reduce(input, dim, index, src, "scatter_reduce")
        if input._device.type == "meta":  # (torch's meta kernel's text)
            raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin.")
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")  # (torch's)
    if reduce == "mean" and input._data.dtype.kind == "b":
        raise NotImplementedError(
            "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"
        )
    _, plan = _plan(input, dim, index, "scatter_reduce", src)
    return ScatterReduce.apply(
        input,
        _src_region(src, plan),
        plan=plan,
        reduce=reduce,
        include_self=bool(include_self),
        op=op,
    )


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """In-place scatter_reduce. Mirrors torch.Tensor.scatter_reduce_."""
    try:
        return apply_inplace(
            input,
            lambda s: _src_apart(
                input, src, scatter_reduce(s, dim, index, src, reduce, include_self=include_self)
            ),
            "scatter_reduce_",
            (src,),
        )
    except TypeError:  # scatter_reduce's parser error, which names the in-place op
        _check_reduce_args("scatter_reduce_", input, dim, index, src, reduce, include_self)
        raise
    except RuntimeError as raised:
        _raise_first_error(raised, input, dim, index, src, "scatter_reduce")


def take_along_dim(
    input: Tensor = REQUIRED, indices: Tensor = REQUIRED, dim=None, *extra, out=None
) -> Tensor:
    """Gathers values along dim, broadcasting input and indices elsewhere (flattened when dim is
    None). Mirrors torch.take_along_dim."""
    if extra or input is REQUIRED or indices is REQUIRED:
        raise arity_error("take_along_dim", extra, 3, input=input, indices=indices)
    check_tensors("take_along_dim", ("input", input))
    if not isinstance(indices, Tensor):  # (position 1 for the method, none by keyword)
        raise not_tensor("take_along_dim", indices, "indices", 2)
    if dim is None:  # gather's dtype check (int32 too; any dtype when empty); torch flattens
        # by view, so a tensor that cannot be viewed flat (an expanded one) is view's error
        return gather(input.view(-1), 0, indices.view(-1), out=out)
    # torch's order: dim's type (its parser), the ranks, the dtype (along a dim it takes int64
    # only), then dim's range
    if dim.__class__ is not int:
        dim = check_int("take_along_dim", dim, "dim", 3)
    ndim = input._data.ndim
    if indices._data.ndim != ndim:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {ndim} dimensions for input, and {indices._data.ndim} "
            f"dimensions for indices"
        )
    if indices.dtype is not _dtype.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{_dtype.scalar_name(indices.dtype)}"
        )
    dim = wrap_dim(dim, ndim, "take_along_dim", "dim", 3)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    shape_x = list(input._data.shape)
    shape_i = list(indices._data.shape)
    for d in reversed(range(ndim)):  # (torch names the last dim that does not broadcast)
        if d == dim:
            continue
        n = shape_i[d] if shape_x[d] == 1 else shape_x[d]  # (a size 0 beside a 1 is 0)
        if shape_i[d] not in (1, n):
            raise RuntimeError(
                f"The size of tensor a ({shape_x[d]}) must match the size of tensor b "
                f"({shape_i[d]}) at non-singleton dimension {d}"
            )
        shape_x[d] = shape_i[d] = n
    input = input.expand(shape_x)  # always, as torch (its graph has the ExpandBackward0 node)
    if tuple(shape_i) != indices._data.shape:
        indices = indices.expand(shape_i)
    # along a dim, torch takes every index modulo the size first (gather itself refuses a
    # negative one): -1 is the last, and one past the end the first, without an error
    ia = indices._data
    if ia.size:
        if shape_x[dim] == 0:
            raise RuntimeError("ZeroDivisionError")
        ia = indices._device.backend.xp.remainder(ia, shape_x[dim])
    indices = _make(ia, indices._device, False, None)
    return gather(input, dim, indices, out=out)  # its out= checks, as torch's
