"""Indexing: x[key] (views for basic keys, copies for index tensors), x[key] = v, index_put."""

from __future__ import annotations

import math
import operator
import warnings

from minitorch import _dtype
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    cast,
    check_bool,
    check_tensor_list,
    check_tensors,
    is_index,
    opmath_dtype,
    type_name,
    wrong_type,
)
from minitorch._ops._index_key import (
    IndexPlan,
    basic_key,
    explain_bounds,
    parse_key,
    tensors_plan,
)
from minitorch._ops.inplace import (
    _check_leaf,
    _check_no_grad_view,
    _check_overlap,
    _short,
    apply_inplace,
    autograd_refusals,
    check_partial_overlap,
    copy_,
    expanded_write,
    fill_,
    has_overlap,
    same_order,
    warn_expanded_put,
    writable,
)
from minitorch._ops.shape import empty_view, own_node_names, plain_view, view_apply
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import (
    Function,
    check_watched,
    fast_path,
    frees_index,
    name_node,
    record_unary,
    saved_uint64,
    watch_index,
)
from minitorch.autograd.grad_mode import state

__all__ = ["getitem", "setitem", "index_put", "index_put_"]

_CPU_XP = _CPU.backend.xp  # the host's kernels
_CPU_BACKEND = _CPU.backend


# --- kernels on raw arrays (see NOTE [ Indexing plans ]) ---


# NOTE [ Flat plans ]
# A plan whose v_shape is not the shape of its basic view addresses that view reshaped to
# v_shape: take and put index x.flatten() with their index as it is (one 1-d key, NumPy's fast
# gather and scatter-add), not with the tuple of its unravelled coordinates in x's shape (10x
# slower both ways: NOTE [ Flat scatter keys ] in minitorch/_backend/numpy_backend.py). Writes
# go through the reshape only where it is a view: the fresh contiguous arrays of IndexPut and
# IndexBackward. A 1-d flat index may stand for an out_shape of other dims (the small flat plans
# of gather, scatter and sort: ufunc.at is fast with a 1-d key only): _take reshapes its result
# to out_shape, _put flattens the values (row-major: the index's order).


# Below this many elements a gather of several index arrays keeps its key (the flat index, ~10 us
# to build, saves less; the check here spares small gathers, as logits[arange(n), y], the call
# into the backend)
_FLAT_GATHER_MIN = 1 << 12


def _by_take_at(plan: IndexPlan) -> bool:
    """Whether x[key] goes to the backend's take_at: rows of a matrix or more picked by one
    index array (x[idx], index_select(x, 0, idx), embedding: NumPy's take along axis 0 is up to
    2x faster than indexing), or index arrays and a large result (one flat gather, or take
    along the axis of a single array)."""
    adv = plan.adv
    if len(adv) == 1:
        return len(plan.v_shape) > 1
    return (
        math.prod(plan.out_shape) >= _FLAT_GATHER_MIN
        and sum(1 for k in adv if k.__class__ is not slice) >= 1
    )


def _take(x, plan: IndexPlan, backend):
    """x[key] in torch's layout: the basic view, then the advanced gather."""
    v = x if plan.basic is None else x[plan.basic]
    if plan.adv is None:
        return v
    if v.shape != plan.v_shape:  # See NOTE [ Flat plans ]
        v = v.reshape(plan.v_shape)
    if 0 in plan.out_shape:  # (NOTE [ Empty index results ] in minitorch/_ops/_index_key.py)
        return backend.xp.empty(plan.out_shape, dtype=v.dtype)
    try:
        # NumPy's take along rows, or one flat gather (NOTE [ Flat scatter keys ])
        out = backend.take_at(v, plan.adv) if _by_take_at(plan) else v[plan.adv]
    except IndexError:
        out = None
    if out is None:
        # torch's error is raised here, outside NumPy's handler, so that it does not carry
        # NumPy's IndexError as its __context__ (a doubled traceback; torch's has none)
        explain_bounds(plan)
        out = v[plan.adv]  # not an unchecked bound after all: NumPy's own error, raised again
    xp = backend.xp
    if out.ndim != len(plan.out_shape):  # a 1-d index standing for out_shape (as above)
        out = out.reshape(plan.out_shape)
    if plan.perm is not None:
        out = xp.moveaxis(out, *plan.perm)
    # a gather makes new memory, row-major in torch (NumPy's may come out permuted: x[:, [0, 2]]
    # had strides (1, 3) and .view() on it failed where torch's works)
    return out if out.flags.c_contiguous else xp.ascontiguousarray(out)


def _put(device, target, plan: IndexPlan, values, accumulate: bool, in_float32=False) -> None:
    """target[key] = values (or += with duplicates accumulating), in place. `in_float32`: half
    duplicates summed in float32 and rounded once, as torch's scatter_add/scatter_reduce do
    (index_put_ and indexing's backward add them one by one in the half dtype on the CPU)."""
    if plan.adv is None:
        if accumulate:
            target[plan.basic] += values
        else:
            target[plan.basic] = values
        return
    if 0 in plan.out_shape:  # nothing to write, its index values unread (NOTE [ Empty index
        return  # results ] in minitorch/_ops/_index_key.py)
    v = target if plan.basic is None else target[plan.basic]
    if v.shape != plan.v_shape:  # a view of the fresh target (NOTE [ Flat plans ])
        v = v.reshape(plan.v_shape)
        if plan.adv[0].ndim == 1 != len(plan.out_shape) and getattr(values, "ndim", 0):
            # a 1-d index standing for out_shape (gather's and scatter's small flat plans):
            # the values in the same (row-major) order
            if values.shape != plan.out_shape:
                values = device.backend.xp.broadcast_to(values, plan.out_shape)
            values = values.reshape(-1)
    if plan.perm is not None:
        xp = device.backend.xp
        values = xp.moveaxis(xp.broadcast_to(values, plan.out_shape), plan.perm[1], plan.perm[0])
    if accumulate:
        if (in_float32 or device.type != "cpu") and opmath_dtype(v.dtype):
            # half on the GPU: duplicates summed in float32 and rounded once (CuPy's atomic adds
            # may not take bfloat16). On the CPU torch adds them one by one in the half dtype,
            # rounding each time (a run of bfloat16 ones stops at 256), as np.add.at does.
            acc = v.astype("float32")
            device.backend.scatter_add(acc, plan.adv, values.astype("float32"))
            v[...] = acc.astype(v.dtype)
        elif not (device is _CPU and _add_to_rows(v, plan.adv, values)):
            device.backend.scatter_add(v, plan.adv, values)
    else:
        # Duplicate indices: the last write wins on CPU; on CUDA one of them wins (as in torch).
        v[plan.adv] = values


_WHOLE = slice(None)
_ROWS_MIN = 1 << 12  # the fewest elements to add for _add_to_rows (its checks cost ~5 us)
_ROW_ROUNDS = 8  # the most times one row may be indexed for it
_ROUNDS_MIN = 1 << 14  # and the fewest elements to add where one is indexed twice or more


def _add_to_rows(v, key, values) -> bool:
    """v[key] += values, duplicates adding up in index order, for a host key of one 1-d index
    along v's first dim (then whole slices), when that is worth it: True when done, False to
    leave it to the backend's scatter-add (ufunc.at). Rows indexed once take NumPy's gather,
    add and scatter of whole rows, which beats ufunc.at's element-wise loop ((2048, 512)
    float32, 1024 distinct rows: 2.8 -> 0.85 ms; (256, 512), 128 rows: 120 -> 21 us); a row
    indexed up to _ROW_ROUNDS times gets its values in rounds, the i-th of each row's values
    in round i. Each element then takes its additions in ufunc.at's order: the same bits.
    Not for few elements (ufunc.at is quicker there), a v whose elements may
    overlap (expanded: ufunc.at writes one after another) or values that may share its
    memory."""
    rows = key[0]
    xp = _CPU_XP
    for k in key[1:]:  # (first: logits[arange(n), y]'s backward has two index arrays)
        if k.__class__ is not slice or k != _WHOLE:
            return False
    if v.ndim < 2 or rows.__class__ is not xp.ndarray or rows.ndim != 1:
        return False
    n, m = v.shape[0], rows.shape[0]
    work = m * (v.size // n) if n else 0  # (the elements to add)
    if work < _ROWS_MIN or n > 8 * work:  # (the count below reads n numbers)
        return False
    if (
        rows.dtype.kind != "i"
        or values.__class__ is not xp.ndarray
        or values.dtype != v.dtype
        or v.dtype.kind not in "fciu"
        or values.ndim > v.ndim
        or not v.flags.c_contiguous
        or xp.may_share_memory(v, values)
    ):
        return False
    at = rows % n  # (negative indices as their rows; bounds were checked with the key)
    counts = xp.bincount(at, minlength=n)
    most = counts.max()
    if most == 1:
        v[key] += values
        return True
    if most > _ROW_ROUNDS or work < _ROUNDS_MIN:  # (each round costs ~10 us)
        return False
    # each index's rank among the indices of its row, in index order: its round
    order = xp.argsort(at, kind="stable")
    ranked = at[order]
    first = xp.empty(m, dtype=bool)
    first[0] = True
    xp.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    starts = xp.flatnonzero(first)
    rank = xp.empty(m, dtype=starts.dtype)
    rank[order] = xp.arange(m) - starts[xp.cumsum(first) - 1]
    per_row = values.ndim == v.ndim and values.shape[0] == m and m != 1  # else broadcast
    rest = key[1:]
    for r in range(most):
        sel = xp.flatnonzero(rank == r)
        v[(rows[sel], *rest)] += values[sel] if per_row else values
    return True


# --- the ops ---


class BasicIndex(Function):
    """out = x[key] for ints, slices and None (a view);  grad_x = zeros with grad at key"""

    _is_view = True
    _node_name = "AliasBackward0"
    _view_name = "Alias"  # its key in _VIEWS

    @staticmethod
    def forward(ctx, x, *, key):
        ctx.key = key  # (the input's shape: the node's _in_meta, recorded by apply)
        out = x._data[key]
        if out.size:
            return out
        return empty_view(ctx.xp, x, key)  # torch's offset and strides: NOTE [ Empty views ]

    @staticmethod
    def backward(ctx, grad):
        shape = ctx._in_meta[0][0]
        name = _double_backward_name(ctx.key, shape, type(ctx).__name__ == "SliceBackward0")
        if name is None:  # x[...]: an alias, whose backward passes the gradient as it is
            return grad
        # (its view's name: a double backward takes that view of the gradient's gradient, as
        # torch's SliceBackward0 of x[1:3] then records a SliceBackward0)
        plan = IndexPlan(ctx.key, None, None, type(ctx)._fn._view_name, None, grad._data.shape)
        return name_node(IndexBackward.apply(grad, plan=plan, shape=shape), name)

    @staticmethod
    def _backward_data(ctx, grad):
        # IndexBackward.kernel of the basic key, inlined (no plan to build): the gradient is
        # written into zeros, as _put writes it (each element is reached once)
        out = ctx._out_device.backend.xp.zeros(ctx._in_meta[0][0], dtype=grad.dtype)
        out[ctx.key] = grad
        return out


# torch names the node after the last view op the key applies (x[0, 1:] is a slice of a select).
class SelectIndex(BasicIndex):
    """out = x[key] ending in an int (a view);  grad_x = zeros with grad at key"""

    _node_name = "SelectBackward0"
    _view_name = "Select"


class SliceIndex(BasicIndex):
    """out = x[key] ending in a slice (a view);  grad_x = zeros with grad at key"""

    _node_name = "SliceBackward0"
    _view_name = "Slice"


class UnsqueezeIndex(BasicIndex):
    """out = x[key] ending in None (a view);  grad_x = zeros with grad at key"""

    _node_name = "UnsqueezeBackward0"
    _view_name = "Unsqueeze"


# NOTE [ Saved values of a basic key ]
# torch's indexing applies a basic key's items left to right as view ops (select for an int,
# slice for a slice that is not the whole dim, unsqueeze for None; a bare x[:] slices anyway),
# one node each, and x[key].grad_fn is the last one: x[1, 2:4] shows SliceBackward0 with
# _saved_dim 0 and _saved_self_sym_sizes of x[1]. minitorch records one node, named after that
# last op, and its grad_fn._saved_<name> are that op's, worked out from the key when read: the
# key as the call gave it (`given`, which getitem keeps on the node it recorded: a negative
# index or start shows as torch's binding reads an int64 back, 2**64 + i, and a slice with no
# stop ends at 2**63 - 1), or the parsed key for a node getitem did not make (a backward's, a
# replayed view's). Recording pays one stored attribute, set after apply (keep_given in
# shape.py says why); the forward no longer stores the input's shape (the node's _in_meta).
_NO_STOP = (1 << 63) - 1  # torch's end of a slice with no stop (INT64_MAX)


def _basic_saves(key, shape) -> dict:
    """The _saved_<name> values of torch's node for the last view op of the basic key `key`
    (ints, slices, None, Ellipsis, or one of them bare) on a tensor of `shape`."""
    items = key if key.__class__ is tuple else (key,)
    dims = list(shape)
    rest = len(dims) - sum(1 for it in items if it is not None and it is not Ellipsis)
    whole_skipped = key.__class__ is tuple  # (torch slices a bare x[:] all the same)
    saves = {}
    d = 0
    for it in items:
        if it is None:
            saves = {"dim": d}
            dims.insert(d, 1)
            d += 1
        elif it is Ellipsis:
            d += rest
        elif it.__class__ is slice:
            n = dims[d]
            start = 0 if it.start is None else operator.index(it.start)
            stop = _NO_STOP if it.stop is None else operator.index(it.stop)
            step = 1 if it.step is None else operator.index(it.step)
            if not (whole_skipped and start == 0 and step == 1 and stop >= n):
                saves = {
                    "dim": d,
                    "start": saved_uint64(start),
                    "end": saved_uint64(stop),
                    "step": step,
                    "self_sym_sizes": tuple(dims),
                }
                dims[d] = len(range(*it.indices(n)))
            d += 1
        else:  # an int, or an int-like (a NumPy integer, a 0-d integer tensor on the CPU)
            index = saved_uint64(operator.index(it))
            saves = {"dim": d, "index": index, "self_sym_sizes": tuple(dims)}
            del dims[d]
    return saves


def _key_saved(name: str):
    """A _saved_attrs entry of a basic index node: torch's saved `name` (NOTE [ Saved values
    of a basic key ]); a select's dim as its call gave it first (keep_select_dim)."""

    def read(node):
        if name == "dim" and "given_dim" in node.__dict__:
            return saved_uint64(node.given_dim)
        key = node.__dict__.get("given")
        saves = _basic_saves(node.key if key is None else key, node._in_meta[0][0])
        if name not in saves:  # (not a key whose last op is this node's)
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_{name}'")
        return saves[name]

    return read


def keep_select_dim(out: Tensor, dim: int) -> Tensor:
    """out, select's view along the negative `dim` (x.select(-1, 2), made as x[:, :, 2]), its
    node (where one was recorded) keeping dim as given: grad_fn._saved_dim shows it as torch's,
    read back unsigned (2**64 - 1), where the key alone gives the wrapped dim. Called only for
    a negative dim, so a dim >= 0 pays nothing."""
    node = out._grad_fn
    if node is not None:
        node.given_dim = dim
    return out


SelectIndex._saved_attrs = {n: _key_saved(n) for n in ("dim", "index", "self_sym_sizes")}
SliceIndex._saved_attrs = {
    n: _key_saved(n) for n in ("dim", "start", "end", "step", "self_sym_sizes")
}
UnsqueezeIndex._saved_attrs = {"dim": _key_saved("dim")}
# (NOTE [ Saved values under another node name ] in minitorch/_ops/shape.py)
SelectIndex._saved_shown = own_node_names("SelectBackward0")
SliceIndex._saved_shown = own_node_names("SliceBackward0")
UnsqueezeIndex._saved_shown = own_node_names("UnsqueezeBackward0")


_VIEWS = {
    "Alias": BasicIndex,
    "Select": SelectIndex,
    "Slice": SliceIndex,
    "Unsqueeze": UnsqueezeIndex,
}


class Index(Function):
    """out = x[key] with index tensors (a copy);  grad_x = zeros with grad scatter-added at key"""

    @staticmethod
    def forward(ctx, x, *, plan):
        ctx.shape = x._data.shape
        ctx.plan = plan
        return _take(x._data, plan, x._device.backend)

    @staticmethod
    def backward(ctx, grad):
        # the plan reads the key's index tensors as they are now: refuse them changed in place
        # since forward (NOTE [ Watched index tensors ])
        check_watched(ctx)
        name = _double_backward_name(ctx.plan.basic or (), ctx.shape, False)
        out = IndexBackward.apply(grad, plan=ctx.plan, shape=ctx.shape)
        return name_node(out, name or "IndexPutImplBackward0")

    @staticmethod
    def _backward_data(ctx, grad):
        check_watched(ctx)
        return IndexBackward.kernel(ctx._out_device, grad, ctx.plan, ctx.shape)


def _double_backward_name(key, shape, single_slice: bool) -> str | None:
    """The name torch gives the node of an index's backward (seen in a double backward): the
    backward of the first view op the key applies, left to right (a full slice is skipped,
    unless it is the whole key: x[:]); None where the key applies none (x[...])."""
    ellipsis_dims = len(shape) - sum(1 for it in key if it is not None and it is not Ellipsis)
    d = 0
    for it in key:
        if it is None:
            return "SqueezeBackward1"
        if it is Ellipsis:
            d += ellipsis_dims
        elif it.__class__ is slice:
            if it.indices(shape[d]) != (0, shape[d], 1):
                return "SliceBackwardBackward0"
            d += 1
        elif it.__class__ is int:
            return "SelectBackwardBackward0"
        else:  # an index array (an advanced key's basic part keeps none)
            d += 1
    return "SliceBackwardBackward0" if single_slice else None


class IndexBackward(Function):
    """out = zeros(shape) with g added at key (duplicates accumulate);  grad_g = grad[key]"""

    @staticmethod
    def forward(ctx, g, *, plan, shape):
        ctx.plan = plan
        return IndexBackward.kernel(g._device, g._data, plan, shape)

    @staticmethod
    def kernel(device, g, plan, shape):
        out = device.backend.xp.zeros(shape, dtype=g.dtype)
        # A basic key (ints, slices) reaches each element once: the gradient is written, not
        # added to the zeros, so a -0.0 keeps its sign as in torch; index tensors may repeat.
        _put(device, out, plan, g, accumulate=plan.adv is not None)
        return out

    @staticmethod
    def backward(ctx, grad):
        return index_with_plan(grad, ctx.plan)


class IndexPut(Function):
    """out = a with out[key] = v (+= v when accumulating);  grad_a = grad with key zeroed (grad
    when accumulating),  grad_v = grad[key]"""

    @staticmethod
    def forward(ctx, a, v, *, plan, accumulate, in_float32=False):
        ctx.plan = plan
        ctx.accumulate = accumulate
        out = a._data.copy()
        _put(a._device, out, plan, v._data, accumulate, in_float32)
        return out

    @staticmethod
    def backward(ctx, grad):
        ga = gv = None
        plan = ctx.plan
        if ctx.needs_input_grad[1] or not ctx.accumulate:
            # a gradient that reads the index (torch checks its saved index only then:
            # x.index_add(0, idx, src) with a constant src never reads it)
            check_watched(ctx)
        if ctx.needs_input_grad[0]:
            if ctx.accumulate:
                ga = grad
            else:
                zero = _make(ctx.xp.zeros((), dtype=grad._data.dtype), grad._device, False, None)
                ga = IndexPut.apply(grad, zero, plan=plan, accumulate=False)
        if ctx.needs_input_grad[1]:
            gv = index_with_plan(grad, plan)
        return ga, gv


def watch_indices(result: Tensor, *indices, **saved) -> Tensor:
    """result, its node (when one was recorded) refusing a backward after any of the index
    Tensors `indices` changed in place (NOTE [ Watched index tensors ]); `saved`: arguments the
    node keeps for its grad_fn._saved_<name> attributes (see saved_arg)."""
    fn = result._grad_fn
    if fn is not None:
        for t in indices:
            watch_index(fn, t)
        if saved:
            fn.__dict__.update(saved)
    return result


def saved_arg(name: str, *, wrap: bool = False):
    """A _saved_attrs entry: the argument `name` that watch_indices kept on the node, as torch's
    grad_fn._saved_<name> shows it (wrap: an int64 argument, which torch's binding reads back
    as an unsigned number, so a negative dim -1 shows as 2**64 - 1)."""
    if wrap:
        return lambda node: saved_uint64(node.__dict__[name])
    return lambda node: node.__dict__[name]


def saved_watched(k: int):
    """A _saved_attrs entry: the node's k-th watched tensor (an index, or an input torch saves),
    raising torch's errors once a backward freed it or it changed in place."""

    def read(node):
        check_watched(node)
        return node._watched[k][1]

    return read


def saved_sizes(node) -> tuple:
    """grad_fn._saved_self_sym_sizes of an Index node: its input's shape."""
    return tuple(node.shape)


def _applied_key(node) -> tuple:
    """(indices, sizes): IndexBackward0's _saved_indices and _saved_self_sym_sizes for the key
    its getitem kept. torch applies the key's ints, slices and Nones as views first, then
    indexes the view with a list holding each index tensor (a list converted to one) at the
    dim it indexes, None at the dims before it that it leaves; a bool mask covers its dims."""
    got = node.__dict__.get("saved_key_parts")
    if got is not None:
        return got
    key = node.__dict__.get("given_key")
    if key is None:  # an index node made by a backward (a double backward's graph)
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_indices'")
    from minitorch._factories import tensor

    items = key if key.__class__ is tuple else (key,)
    in_shape = node.__dict__.get("key_shape") or node.shape  # (setitem's: the written tensor's)
    shape = list(in_shape)
    takes = [_dims_taken(it) for it in items]
    dim = 0
    indices = []
    for it, n in zip(items, takes, strict=True):
        if it is None:
            shape.insert(dim, 1)
            dim += 1
        elif it is Ellipsis:
            dim += len(in_shape) - sum(takes)
        elif it.__class__ is slice:
            shape[dim] = len(range(*it.indices(shape[dim])))
            dim += 1
        elif isinstance(it, Tensor) and (
            it._data.ndim or it._device.type != "cpu" or it._data.dtype.kind != "i"
        ):  # (a CPU integer 0-d tensor selects: _watched_0d)
            indices += [None] * (dim - len(indices)) + [it]
            dim += n
        elif not isinstance(it, Tensor) and (
            isinstance(it, (list, tuple)) or hasattr(it, "__array__")  # (an ndarray too)
        ):
            indices += [None] * (dim - len(indices)) + [tensor(it)]
            dim += n
        else:  # an int (or a CPU integer 0-d tensor) selects
            del shape[dim]
    got = node.saved_key_parts = (tuple(indices), tuple(shape))
    return got


def _dims_taken(item) -> int:
    """How many of x's dims a key item indexes (a bool mask: its own number of dims)."""
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, Tensor) and item._data.dtype.kind == "b":
        return max(item._data.ndim, 1)
    return 1


def _saved_key_indices(node) -> tuple:
    """IndexBackward0's _saved_indices, until a backward frees them."""
    check_watched(node)  # raises torch's errors for a freed or changed index
    return _applied_key(node)[0]


Index._saved_attrs = {  # grad_fn._saved_<name> (as torch's)
    "indices": _saved_key_indices,
    "self_sym_sizes": lambda node: _applied_key(node)[1],
}
# (the other index ops' nodes: their own attributes, or none)
Index._saved_shown = {"KthvalueBackward0": (), "TakeBackward0": (), "MaskedSelectBackward0": ()}


def _put_indices(node) -> tuple:
    """IndexPutBackward0's _saved_indices: index_put's indices as given, or those x[key] = v
    applies (as IndexBackward0's), until a backward frees them."""
    check_watched(node)  # raises torch's errors for a freed or changed index
    given = node.__dict__.get("saved_indices")
    if given is None:
        return _applied_key(node)[0]
    from minitorch._factories import tensor

    return tuple(i if i is None or isinstance(i, Tensor) else tensor(i) for i in given)


IndexPut._saved_attrs = {  # grad_fn._saved_<name> (as torch's)
    "accumulate": "accumulate",
    "indices": _put_indices,
}


def _key_tensors(key, self: Tensor) -> list:
    """The Tensors in an indexing key that its plan reads as index arrays."""
    items = key if key.__class__ is tuple else (key,)
    return [t for t in items if isinstance(t, Tensor) and (t._data.ndim or _watched_0d(t, self))]


def _watched_0d(t: Tensor, self: Tensor) -> bool:
    """Whether a 0-d index tensor t in a key of self is an index array (a bool, or off the CPU),
    not a select read at once (an integer on the CPU, as in torch)."""
    return self._device.type != "cpu" or t._data.dtype.kind != "i"


def index_with_plan(x: Tensor, plan: IndexPlan) -> Tensor:
    """x[key] for a parsed key."""
    if plan.adv is None:
        return _VIEWS[plan.view_name].apply(x, key=plan.basic)
    return Index.apply(x, plan=plan)


# --- public functions ---


_INT_OR_NONE = frozenset((int, type(None)))  # the bounds of getitem's common slice


def _index_view(self, x, basic, cls, key):
    """self[basic] for a basic key (cls: its view's class; key: as the call gave it) on the
    view fast path where nothing is recorded (NOTE [ The view fast path ] in shape.py), else
    through cls.apply."""
    if (
        not (self._requires_grad and state.enabled)
        and self.__class__ is Tensor
        and self._device is _CPU
        and fast_path[0]
    ):
        out = x[basic]
        if out.size:  # (an empty one is rebuilt by the forward: NOTE [ Empty views ])
            return plain_view(self, out, cls, {"key": basic})
    out = view_apply(cls, self, {"key": basic})
    fn = out._grad_fn
    if fn is not None:  # the key as the call gave it (NOTE [ Saved values of a basic key ])
        fn.given = key
    return out


def getitem(self: Tensor, key) -> Tensor:
    """self[key]: a view for ints, slices, None and ...; a copy with index tensors or masks.
    Mirrors torch.Tensor.__getitem__ (see NOTE [ Indexing plans ] for the differences)."""
    cls = key.__class__
    x = self._data
    if cls is int:  # the common x[i]
        shape = x.shape
        if shape and -(n := shape[0]) <= key < n:
            return _index_view(self, x, (key % n, Ellipsis), SelectIndex, key)
    elif cls is slice and key.step is None:  # the common x[a:b]
        shape = x.shape
        if shape and key.start.__class__ in _INT_OR_NONE and key.stop.__class__ in _INT_OR_NONE:
            return _index_view(
                self, x, (slice(*key.indices(shape[0])), Ellipsis), SliceIndex, key
            )
    if cls is tuple and key and key[0].__class__ is Tensor:
        # logits[arange(n), y]: no basic key (basic_key's answer), parse_key's plan at once
        plan = tensors_plan(self, x.shape, key, True)
        if plan is not None:
            return _index(self, key, plan)
    elif cls is tuple or key is None or key is Ellipsis:  # x[0, 1:], x[..., None]
        found = basic_key(x.shape, key)
        if found is not None:
            basic, name = found
            if (  # _index_view, inlined: x[:, 1:3] is the common key of all
                not (self._requires_grad and state.enabled)
                and self.__class__ is Tensor
                and self._device is _CPU
                and fast_path[0]
            ):
                out = x[basic]
                if out.size:
                    return plain_view(self, out, _VIEWS[name], {"key": basic})
            out = view_apply(_VIEWS[name], self, {"key": basic})
            fn = out._grad_fn
            if fn is not None:  # See NOTE [ Saved values of a basic key ]
                fn.given = key
            return out
    if (
        cls is Tensor
        and self._device is _CPU
        and key._device is _CPU
        and key._data.shape == x.shape
        and key._data.dtype.kind == "b"
        and x.ndim
        and x.size
    ):  # x[mask] (of x's shape)
        return _index(self, key, flat_mask_plan(x.size, key._data))
    plan = parse_key(self, key, read=True)
    if plan.adv is not None:
        return _index(self, key, plan)
    return _index_view(self, x, plan.basic, _VIEWS[plan.view_name], key)


_UNSIGNED = {
    _CPU_XP.dtype(f"i{size}"): _CPU_XP.dtype(f"uint{size * 8}") for size in (8, 4, 2, 1)
}  # a host index's signed dtype -> the unsigned one of its size


def in_bounds(idx, low: int, n: int) -> bool:
    """Whether every element of the non-empty host index array idx lies in [low, n): the quick
    test of the common case, before an op looks for the offending index. With low 0 one
    reduction: a negative index read as unsigned is huge."""
    if low == 0:
        unsigned = _UNSIGNED.get(idx.dtype)
        if unsigned is not None:
            return bool(idx.view(unsigned).max() < n)
    return bool(low <= idx.min() and idx.max() < n)


def flat_mask_plan(size: int, mask) -> IndexPlan:
    """The plan of x[mask] for a host bool mask of x's shape (x of `size` elements, not 0-d):
    one flat index of the mask's True positions into x.flatten() (NOTE [ Flat plans ]), which
    picks the elements in the row-major order of the mask's per-dim indices, without the
    general key parser ((32, 32) float32: x[mask] 20 -> 6 us)."""
    idx = mask.reshape(-1).nonzero()[0]
    return IndexPlan(None, (idx,), None, "Alias", (size,), idx.shape, True)


def _index(self: Tensor, key, plan: IndexPlan) -> Tensor:
    """self[key] for a key with index tensors (a copy)."""
    out = None
    if (  # NOTE [ The recorded fast path ] in minitorch/autograd/function.py
        self.__class__ is Tensor
        and self._device is _CPU
        and self._requires_grad
        and state.enabled
        and fast_path[0]
    ):
        out = _recorded_index(self, plan)
    if out is None:
        out = Index.apply(self, plan=plan)
    fn = out._grad_fn
    if fn is not None:  # its node reads the key's index tensors at backward
        fn.given_key = key  # (for grad_fn._saved_indices and _saved_self_sym_sizes)
        watched = plan.tensors or _key_tensors(key, self)
        for t in watched:
            watch_index(fn, t)  # (which frees the index with the saved tensors)
        if not watched:
            frees_index(fn)  # torch saves the index even when the key was a list
    return out


def _recorded_index(self: Tensor, plan: IndexPlan) -> Tensor | None:
    """Index.apply(self, plan=plan) for a plain CPU tensor requiring grad, grad mode on, no
    saved-tensor hooks: Index.forward's gather and the attributes it sets on its node, or None
    where the gather raises (the full path raises torch's error)."""
    x = self._data
    try:
        out = _take(x, plan, _CPU_BACKEND)
    except Exception:  # (free unless raised)
        return None
    result = record_unary(Index, out, self, None)
    node = result._grad_fn
    node.shape, node.plan = x.shape, plan
    return result


def _value_tensor(self: Tensor, value) -> Tensor | None:
    """The assigned value as a tensor on self's device (None for a Python number)."""
    if isinstance(value, Tensor):
        if value._device is not self._device:
            if value._device.type == "cpu":  # x_cuda[0] = cpu_t copies across, as torch's copy_
                return value.to(self._device)
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{self._device} and {value._device}! (when checking arguments for setitem)"
            )
        return value
    if isinstance(value, (bool, int, float)):
        return None  # (np.float64 is a float)
    if is_index(value) and not hasattr(value, "__setitem__"):
        return None  # NumPy's integer scalars, as torch (not np.float32, np.bool_, 0-d arrays)
    raise TypeError(f"can't assign a {type_name(value)} to a {self.type()}")


def _fit_value(value: Tensor, plan: IndexPlan, op: str, strip: bool = True) -> Tensor:
    """value with leading size-1 dims dropped down to the target's rank (strip=False: kept, as
    torch's index_put_ keeps them); torch's errors when it does not broadcast to the indexing
    result."""
    target = plan.out_shape
    shape = value._data.shape
    if shape == tuple(target):
        # kept as it is, as torch's copy of equal sizes (w.data[:] -= lr * g of a (1, n) w reads
        # a view with w's own strides: not a partial overlap)
        return value
    lead = 0
    while strip and lead < len(shape) and shape[lead] == 1:  # all, as torch (and its messages)
        lead += 1
    if lead:
        value = value.reshape(shape[lead:])
        shape = shape[lead:]
    if plan.adv is not None:
        ok = len(shape) <= len(target) and all(
            s == 1 or s == t for s, t in zip(shape[::-1], target[::-1], strict=False)
        )
        if not ok:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to "
                f"indexing result of shape {list(target)}"
            )
        return value
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand({_dtype.checked_type_name(value)}{{{list(shape)}}}, size={list(target)}): "
            f"the number of sizes provided ({len(target)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({len(shape)})"
        )
    for i in range(1, len(shape) + 1):
        if shape[-i] != 1 and shape[-i] != target[-i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[-i]}) must match the existing size "
                f"({shape[-i]}) at non-singleton dimension {len(target) - i}.  Target sizes: "
                f"{list(target)}.  Tensor sizes: {list(shape)}"
            )
    return value


_F32_TOP = _dtype.FLOAT_TOP["float32"]


def _scalar_value(value):
    """An assigned number as torch's parser reads it: a Python number (a NumPy one's .item(),
    so np.float64(1e39) into int8 is checked as 1e39 is)."""
    cls = value.__class__
    if cls is bool or cls is int or cls is float:
        return value
    item = getattr(value, "item", None)
    return value if item is None else item()


def setitem(self: Tensor, key, value) -> None:
    """self[key] = value (broadcast, cast to self's dtype), differentiable w.r.t. both.
    Mirrors torch.Tensor.__setitem__.

    Differences from torch: with duplicate indices the last write wins on CPU (torch leaves the
    winner unspecified).
    """
    if value.__class__ is int and not -(1 << 63) <= value < (1 << 63):
        # torch reads an assigned int as an int64 before anything else, whatever self's dtype
        # (see NOTE [ Ints beyond a Scalar ] in minitorch/_dtype.py)
        raise ValueError("Overflow when unpacking long long")
    # torch converts the value to a tensor of self's dtype before it reads the key
    vt = _value_tensor(self, value)
    scalar = None if vt is not None else _dtype.via_float32(_scalar_value(value), self._data.dtype)
    if scalar.__class__ is float and not -_F32_TOP <= scalar <= _F32_TOP:
        if scalar - scalar == 0 and self._data.dtype.char == "f":  # (c10's checked conversion:
            raise _dtype.overflow_error("float32")  # float16's and bfloat16's take it as inf)
    if key is False:  # torch's x[False] = v does nothing (not even check v's shape)
        return
    if key is True:  # torch's x[True] = v writes x.unsqueeze(0), as x[None] = v (a cast copy)
        key = None
    # torch runs x[key] = one value as masked_fill_ (which casts it) when the key's one index
    # tensor is a mask of one dim or more beside ints, slices, None and Ellipsis
    fill_mask = (
        key.__class__ is not int
        and (
            value._data.size == 1 and value._device.type == "cpu"
            if isinstance(value, Tensor)
            else _one_value(value)
        )
        and _single_mask(key)
    )
    if fill_mask == "uint8":
        # torch runs x[mask] = one value as masked_fill_, which takes bool masks only; a mask
        # of the wrong shape gets the indexing IndexError first (without the uint8 warning)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse_key(self, key)
        raise RuntimeError(_BYTE_MASK_FILL)
    try:
        plan = parse_key(self, key)
        if vt is not None:
            vt = _fit_value(vt, plan, "setitem")  # (torch checks the shape before the dtype)
    except (IndexError, RuntimeError):
        _refusals_before_index_put(self, key, vt)
        raise
    if vt is not None:
        if plan.adv is not None and vt.dtype is not self.dtype and not fill_mask:
            # torch's index_put_ casts nothing (a basic index copies, casting, as copy_)
            raise _dtype_mismatch(self, vt)
    x = self._data
    expand = False  # the value is copied broadcast (torch's check does not judge it)
    itself = False  # the written part is written with itself (see _writes_itself)
    if vt is not None and (
        vt._base is not None or self._base is not None or vt._data is x or vt is self
    ):
        # x[1:] = x[:-1]: see NOTE [ Partial overlap ] (the written part against the value)
        region = x if plan.basic is None else x[plan.basic]
        if plan.adv is None:
            itself = _writes_itself(vt, region, self._device)
            expand = itself or not _copy_checks_overlap(vt, region)
        if fill_mask:  # masked_fill_ reads its one value first: no overlap to refuse
            vt = vt.clone()
        elif not expand:  # (index_put_ refuses the same memory too, as torch's)
            check_partial_overlap(self, vt, region, same_ok=plan.adv is None)
    if plan.adv is None and 0 in x.strides and not itself:
        # An expanded self may be written where the indexed part has no repeated elements (torch:
        # x.expand(2, 3)[0] = v writes x), not where it has (e[:, 0] = v)
        region = x if plan.basic is None else x[plan.basic]
        _check_overlap(_make(region, self._device, False, None))
    record = state.enabled and (self._requires_grad or (vt is not None and vt._requires_grad))
    if not record:
        _check_leaf(self, "setitem", overlap_ok=True)
        if plan.adv is not None and has_overlap(self):  # as index_put_ (torch's route)
            warn_expanded_put(bool(fill_mask))
        data = scalar if vt is None else _dtype.via_float32(vt._data, self._data.dtype)
        _put(self._device, writable(self), plan, data, accumulate=False)
        self._vc[0] += 1
        return
    if not self._requires_grad and self._base is not None and self.dtype.is_floating_point:
        _check_no_grad_view(self)  # (before the view of it the write goes through is taken)
    if vt is None:
        vt = _make(
            self._device.backend.xp.asarray(scalar, dtype=self._data.dtype),
            self._device,
            False,
            None,
        )
    else:
        vt = cast(vt, self.dtype)
    target = self
    if not plan.identity:
        target = _VIEWS[plan.view_name].apply(self, key=plan.basic)
    if plan.adv is None:
        if target._data.ndim and (
            not isinstance(value, Tensor) or (value._data.ndim == 0 and value._device.type == "cpu")
        ):
            fill_(target, vt)  # torch's copy_to fills from a number or a 0-d CPU value
        else:
            copy_(target, vt.expand(target.shape) if expand else vt)
        return
    sub = plan.adv_only()
    watched = _key_tensors(key, self)
    apply_inplace(
        target,
        lambda s: watch_indices(
            IndexPut.apply(s, vt, plan=sub, accumulate=False),
            *watched,
            given_key=key,  # (for grad_fn._saved_indices, as x[key]'s)
            key_shape=target._data.shape,
        ),
        "index_put_",
        (vt,),
        expanded_write(target, "index_put_", (vt,), bool(fill_mask)),
    )


def _refusals_before_index_put(self: Tensor, key, vt) -> None:
    """For a setitem whose key or value failed to fit: torch takes the key's ints, slices, None
    and Ellipsis as views first (their errors come first), then runs index_put_ for its index
    tensors, whose autograd refusals (a leaf that requires grad, ...) come before index_put_'s
    own checks of the indices and the value's shape. Raises such a refusal; an error path."""
    items = key if key.__class__ is tuple else (key,)
    basic = []
    found = False
    for k in items:
        if isinstance(k, Tensor) and (k._data.ndim or k.dtype is _dtype.bool):
            found = True
            if k.dtype is not _dtype.bool:
                basic.append(slice(None))
            else:  # (a mask spans its dims; a 0-d one adds a dim, as True does)
                basic.extend([slice(None)] * k._data.ndim if k._data.ndim else [None])
        elif k.__class__ is bool or k.__class__ is list or (
            hasattr(k, "__array__") and getattr(k, "ndim", 0)  # (a NumPy int: an int)
        ):
            found = True
            basic.append(None if k.__class__ is bool else slice(None))
        else:
            basic.append(k)
    if not found:
        return
    try:
        plan = parse_key(self, tuple(basic))
    except (IndexError, RuntimeError, TypeError):
        return  # the views' own error comes first: the one raised
    target = self if plan.identity else getitem(self, tuple(basic))  # (what index_put_ writes)
    autograd_refusals(target, (vt,) if vt is not None else ())  # (an inference tensor's
    # refusal comes after index_put_'s checks, as it was)
    check_partial_overlap(target, vt, same_ok=False)  # index_put_'s first check of its own


def _writes_itself(vt: Tensor, region, device) -> bool:
    """Whether x[basic key] = v writes the part `region` of x's memory with itself: v, taken as
    torch's copy takes it (broadcast to the part's shape), is the same elements of the same
    memory in the same order (x[None] = x, r[:] = r[-1] of a (1, 3) r, e[...] = a of an e that
    expands a). torch's copy then returns at once, before its overlap checks."""
    d = vt._data
    if vt._device is not device or d.dtype != region.dtype or not region.size or not d.ndim:
        return False
    ptr = device.backend.data_ptr
    if ptr(d) != ptr(region):
        return False
    if d.shape != region.shape:
        try:
            d = device.backend.xp.broadcast_to(d, region.shape)
        except ValueError:
            return False
    return same_order(region, d)


def _copy_checks_overlap(vt: Tensor, region) -> bool:
    """Whether torch's x[basic key] = v checks v against the written part of x's memory: it
    copies v when the shapes agree, fills with a 0-d CPU v (reading it as a number) and copies
    v broadcast otherwise, where its overlap check does not judge repeated elements."""
    if vt._data.shape == region.shape:
        return True
    if vt._data.ndim == 0 and vt._device.type == "cpu":
        return False
    return vt._data.size == region.size


_BYTE_MASK_FILL = "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"


def _one_value(value) -> bool:
    """A non-tensor value torch makes a one-element tensor of (a number, a NumPy scalar)."""
    return not isinstance(value, (list, tuple)) and getattr(value, "size", 1) == 1


def _single_mask(key) -> str | None:
    """ "bool" or "uint8" for a key whose only index tensor is a mask of one dim or more (a
    tensor, a NumPy array or a list of bools), beside ints, slices, None, Ellipsis and 0-d
    integer tensors (selects on the CPU): torch gives x[key] = one value to masked_fill_. A bool
    (or a 0-d bool tensor) is an index tensor there; None for any other key."""
    found = None
    items = key if key.__class__ is tuple else (key,)
    if key.__class__ is list and any(isinstance(k, (list, tuple, Tensor, slice)) for k in key):
        items = key  # (torch's legacy reading of a short list of sequences as a tuple)
    for k in items:
        if k is None or k is Ellipsis or k.__class__ in (int, slice):
            continue
        if isinstance(k, list) and k and all(b.__class__ is bool for b in k):
            dt, ndim = "bool", 1
        else:
            a = k._data if isinstance(k, Tensor) else k
            dt, ndim = getattr(a, "dtype", None), getattr(a, "ndim", 0)
            if ndim == 0 and dt is not None and dt.kind in "iu" and dt != "uint8":
                if isinstance(k, Tensor) and k._device.type == "cpu":
                    continue  # a 0-d integer tensor is a select on the CPU
        if found or ndim == 0 or dt not in ("bool", "uint8"):
            return None
        found = "bool" if dt == "bool" else "uint8"
    return found


def _put_plan(self: Tensor, indices, values, op: str, accumulate) -> IndexPlan:
    if not isinstance(indices, (tuple, list)):
        raise wrong_type(op, indices, "indices", 2, "tuple of Tensors")
    # (None too: index_put takes no slice)
    try:
        check_tensor_list(indices)
    except TypeError:
        from minitorch._ops._common import _called_as_method

        if _called_as_method(op):  # torch's method does not count self; its function does
            raise
        check_tensor_list(indices, 1)
    if not isinstance(values, Tensor):
        raise wrong_type(op, values, "values", 3, "Tensor")
    key = tuple(indices)
    if values._data.size == 1 and not accumulate and len(key) == 1:
        i = key[0]
        if i is not None and i._data.dtype == "uint8":
            # torch runs a one-mask, one-value put as masked_fill_, which takes bool masks only;
            # a mask of the wrong shape gets the indexing IndexError first (as setitem's)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                parse_key(self, key, as_select=False)
            raise RuntimeError(_BYTE_MASK_FILL)
    return parse_key(self, key, as_select=False)


def _put_values(self: Tensor, values, plan: IndexPlan, op: str, indices, accumulate) -> Tensor:
    values = _value_tensor(self, values)
    # (the shape before the dtype) torch's index_put_ broadcasts values to the indexing result
    # as they are, where setitem drops their leading 1s first; its masked_fill_ path (one value
    # at one bool mask) takes a value of any shape
    strip = _put_fills_mask(values, indices, accumulate)
    values = _fit_value(values, plan, op, strip=strip)
    if values.dtype is not self.dtype:
        if _put_fills_mask(values, indices, accumulate):
            # torch runs a put of one CPU value at one bool mask as masked_fill_, reading the
            # value as a number: cast, with c10's range check (the value is on the host)
            from minitorch._ops.selection import _check_fill_range

            _check_fill_range(values, self)
            return values.to(self.dtype)
        raise _dtype_mismatch(self, values)
    return values


def _dtype_mismatch(self: Tensor, values: Tensor) -> RuntimeError:
    """index_put_'s error for values of another dtype, after torch's autograd refusals of the
    in-place change, which come first."""
    autograd_refusals(self, (values,))
    return RuntimeError(
        f"Index put requires the source and destination dtypes match, got "
        f"{_short(self.dtype)} for the destination and {_short(values.dtype)} for the source."
    )


def _put_fills_mask(values: Tensor, indices, accumulate) -> bool:
    """Whether torch's index_put_ goes to masked_fill_: one value on the CPU, no accumulation,
    and one index tensor, a bool mask, beside Nones."""
    if accumulate or values._data.size != 1 or values._device.type != "cpu":
        return False
    given = [i for i in indices if i is not None]
    return len(given) == 1 and given[0]._data.dtype.kind == "b"


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with input[indices] = values (+= when accumulate). Mirrors
    torch.index_put."""
    check_tensors("index_put", ("input", input))
    if accumulate.__class__ is not bool:
        check_bool("index_put", accumulate, "accumulate", 4)
    plan = _put_plan(input, indices, values, "index_put", accumulate)
    values = _put_values(input, values, plan, "index_put", indices, accumulate)
    out = IndexPut.apply(input, values, plan=plan, accumulate=bool(accumulate))
    return watch_indices(out, *[i for i in indices if i is not None], saved_indices=tuple(indices))


def index_put_(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """input[indices] = values in place (+= when accumulate; duplicates add up). Mirrors
    torch.Tensor.index_put_."""
    check_tensors("index_put_", ("input", input))
    if accumulate.__class__ is not bool:
        check_bool("index_put_", accumulate, "accumulate", 4)
    plan = _put_plan(input, indices, values, "index_put_", accumulate)
    values = _put_values(input, values, plan, "index_put_", indices, accumulate)
    accumulate = bool(accumulate)
    if not _put_fills_mask(values, indices, accumulate):
        check_partial_overlap(input, values)
    elif values._base is not None or input._base is not None:
        values = values.clone()  # masked_fill_ reads its one value first: no overlap to refuse
    if not (state.enabled and (input._requires_grad or values._requires_grad)):
        overlap = has_overlap(input)
        if overlap:  # torch warns and writes the selected elements of an expanded tensor
            warn_expanded_put(_put_fills_mask(values, indices, accumulate))
        _check_leaf(input, "index_put_", overlap_ok=overlap)
        _put(input._device, writable(input), plan, values._data, accumulate)
        input._vc[0] += 1
        return input
    watched = [i for i in indices if i is not None]
    return apply_inplace(
        input,
        lambda s: watch_indices(
            IndexPut.apply(s, values, plan=plan, accumulate=accumulate),
            *watched,
            saved_indices=tuple(indices),
        ),
        "index_put_",
        (values,),
        expanded_write(input, "index_put_", (values,)),
    )
