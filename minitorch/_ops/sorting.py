"""Sorting and counting: sort, topk, kthvalue, unique, searchsorted, bincount, histograms."""

from __future__ import annotations

import functools
import itertools
import math
import numbers
import operator

from minitorch import _dtype, _memory_format, return_types
from minitorch._arg_errors import REQUIRED, missing_required, too_many_positional
from minitorch._backend import cpu as _CPU
from minitorch._backend import torch_stream_multinomial as _tsm
from minitorch._ops._common import (
    check_bool,
    check_int,
    check_tensors,
    index,
    is_floating,
    is_index,
    is_number,
    is_scalar_arg,
    no_overload,
    not_tensor,
    promote,
    quiet_extreme,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops._index_key import IndexPlan
from minitorch._ops.indexing import Index, saved_arg, saved_sizes, saved_watched, watch_indices
from minitorch._ops.inplace import _dense, check_out_tuple, with_out, write_out_exact
from minitorch._ops.pointwise import _type_label
from minitorch._ops.pointwise_binary import _CPP_NAMES
from minitorch._ops.reduction_more import (
    flag_error,
    outs_apart,
    rank_index,
    real_kernel,
    resize_index_outs,
    stable_argsort,
)
from minitorch._ops.scatter_gather import FLAT_PLAN_MAX, along_dim_plan, flat_along_plan
from minitorch._ops.shape import sym_int
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import RefusedBackward, name_node
from minitorch.autograd.grad_mode import state

__all__ = [
    "sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_consecutive",
    "searchsorted", "bucketize", "bincount", "histc", "histogram", "isin",
]  # fmt: skip

_histogram_type = return_types.histogram
_ctype = _CPP_NAMES.__getitem__  # torch's C++ dtype names ("long int"), as histogramdd spells them


class SortValues(Index):
    """values = x gathered at the sorting permutation;  grad_x = grad scattered back"""

    _node_name = "SortBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's): the dim as given, the indices returned
        "dim": saved_arg("saved_dim", wrap=True),
        "indices": saved_watched(0),
        "self_sym_sizes": saved_sizes,
    }

    @staticmethod
    def forward(ctx, x, *, plan):
        return in_input_layout(ctx.xp, x._data, Index.forward(ctx, x, plan=plan))


def in_input_layout(xp, x, arr):
    """arr (x's shape) laid out in memory as x when x is dense in another order (a transposed
    or permuted tensor): torch's sort writes its values and indices into empty_like(input), so
    x.t().sort(0) has x.t()'s strides; a stepped slice gives a dense layout in its order of
    strides (empty_like's). Otherwise arr itself."""
    if x.flags.c_contiguous or x.size < 2:
        return arr
    if not _dense(x):
        return _memory_format.like(xp, x, arr)
    out = xp.empty_like(x, dtype=arr.dtype)  # (order "K": x's order of strides)
    out[...] = arr
    return out


class TopkValues(Index):
    """values = x gathered at the top-k indices;  grad_x = grad scattered back (zeros elsewhere)"""

    _node_name = "TopkBackward0"
    _saved_attrs = SortValues._saved_attrs


class KthvalueValues(Index):
    """value = x at the k-th smallest index;  grad_x = grad at that index, zeros elsewhere"""

    _node_name = "KthvalueBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's): the dim as given, the indices returned
        "dim": saved_arg("saved_dim", wrap=True),
        "indices": saved_watched(0),
        "keepdim": saved_arg("saved_keepdim"),
        "self_sym_sizes": saved_sizes,
    }
    _saved_shown = None  # (Index's hides its own attributes from this node)


def _exact_out(message):
    """Wraps a `with_out` op (sort & co.) with torch's check that out='s values have the input's
    dtype and its indices int64, exactly: its kernels refuse a cast. `message(role, want, got)`
    spells the op's own RuntimeError. Only calls given out= pay for it."""

    def decorate(fn):
        body = _unwrapped(fn)

        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            if out is None:
                return body(*args, **kwargs)
            input = args[0] if args else kwargs.get("input")
            outs = (out,) if isinstance(out, Tensor) else out
            # a malformed tuple gets torch's parser error first (with_out's)
            if (
                isinstance(input, Tensor)
                and isinstance(outs, (tuple, list))
                and (len(outs) == 2 or isinstance(out, Tensor))
                and all(isinstance(o, Tensor) for o in outs)
            ):
                wants = (input.dtype, _dtype.int64)
                for role, o, want in zip(("values", "indices"), outs, wants, strict=False):
                    if o.dtype is not want:
                        raise RuntimeError(message(role, want, o.dtype))
            return fn(*args, out=out, **kwargs)

        return wrapper

    return decorate


def _unwrapped(fn):
    """The function under fn's decorators (each a functools.wraps wrapper): what a call without
    out= runs, since every out= wrapper here (with_out's too) passes such a call on unchanged;
    calling it at once spares a frame and an argument repacking per layer (x.sort(): 3 layers)."""
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return fn


def _outs_apart(count: int):
    """Wraps a `with_out` op with torch's refusal of out= tensors sharing memory with input: the
    first `count` of them (topk: values and indices; kthvalue: values only)."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            if out is not None and isinstance(out, (tuple, list)):
                outs_apart(args[0] if args else kwargs.get("input"), tuple(out)[:count])
            return fn(*args, out=out, **kwargs)

        return wrapper

    return decorate


def _expected_dtype(role: str, want, got) -> str:
    return str(_dtype.out_dtype_error(want, got))


def _kthvalue_out_message(role: str, want, got) -> str:
    if role == "values":
        return "output values must be of same type as input"
    return "output indices must be of scalar type Long"


def _stable_argsort(x, dim: int, descending: bool, xp):
    """argsort along dim, ties in input order (descending too); NaN sorts as the largest."""
    # stable_argsort's kernel: on the host, the array's method (past np.argsort's wrapper)
    host = xp is _CPU.backend.xp and x.dtype.kind != "V" and x.__class__ is xp.ndarray
    if not descending:
        return x.argsort(axis=dim, kind="stable") if host else stable_argsort(xp, x, dim)
    # Sorting the reversed array stably and reversing the result keeps ties in input order.
    n = x.shape[dim]
    flip = (slice(None),) * dim + (slice(None, None, -1),)  # (xp.flip's view, without its cost)
    if host:
        idx = x[flip].argsort(axis=dim, kind="stable")[flip]
    else:
        idx = stable_argsort(xp, x[flip], dim)[flip]
    return (n - 1) - idx


def _int64(t: Tensor, arr) -> Tensor:
    return _make(arr.astype("int64", copy=False), t._device, False, None)


def _sorted_parts(input: Tensor, dim, descending: bool, op: str):
    try:
        x = input._data
    except AttributeError:  # torch.sort(list_of_scores): zero-cost when a tensor
        raise not_tensor(op, input) from None
    xp = input._device.backend.xp
    if x.ndim == 0:
        wrap_dim(dim, 0, op, "dim", 2)
        return 0, xp.zeros((), dtype="int64")
    dim = wrap_dim(dim, x.ndim, op, "dim", 2)
    idx = _stable_argsort(x, dim, descending, xp)
    return dim, (in_input_layout(xp, x, idx) if op in ("sort", "argsort") else idx)


def _take_host(xp, x, idx, dim: int):
    """take_along_axis(x, idx, dim) for a host idx within x's dim and of x's shape elsewhere:
    a small one through one flat index (3x quicker than take_along_axis's key of aranges)."""
    if xp is _CPU.backend.xp and 0 < idx.size < FLAT_PLAN_MAX:
        return x.reshape(-1)[flat_along_plan(idx, dim, x.shape).adv[0]].reshape(idx.shape)
    return xp.take_along_axis(x, idx, dim)


def _gather(cls, input: Tensor, dim: int, idx) -> Tensor:
    if input._data.ndim == 0:
        return cls.apply(input, plan=_scalar_plan())
    device = input._device
    if device is _CPU and 0 < idx.size < FLAT_PLAN_MAX:  # (idx: sort's, within bounds)
        return cls.apply(input, plan=flat_along_plan(idx, dim, input._data.shape))
    return cls.apply(input, plan=along_dim_plan(idx, dim, input._data.shape, device.backend.xp))


def _watched_pair(values: Tensor, indices: Tensor, dim=None) -> tuple:
    """(values, indices), values' node refusing a backward once the returned indices changed in
    place: its plan reads their array (NOTE [ Watched index tensors ]); `dim`, as given, for its
    grad_fn._saved_dim."""
    if dim is None:
        return watch_indices(values, indices), indices
    return watch_indices(values, indices, saved_dim=dim), indices


def _scalar_plan():
    return IndexPlan(None, (Ellipsis,), None, "Alias", (), (), True)


_UNSET = object()  # sort's arguments not given: torch's overloads depend on which were

_SORT_FORMS = {
    op: (
        f"Tensor input, *, bool stable, int dim = -1, bool descending = False, {out} out = None",
        f"Tensor input, int dim = -1, bool descending = False{tail}",
    )
    for op, out, tail in (
        ("sort", "tuple of Tensors", ", *, tuple of Tensors out = None"),
        ("argsort", "Tensor", ""),
    )
}

_SORT_METHOD_FORMS = (
    "*, bool stable, int dim = -1, bool descending = False",
    "int dim = -1, bool descending = False",
)


def _sort_arguments(op: str, input, args: tuple, stable, dim, descending):
    """(dim, descending) of a sort/argsort call, as torch's two overloads read them:
    (input, *, stable, dim=-1, descending=False) and (input, dim=-1, descending=False). So dim
    and descending may be positional only without `stable`, descending is a Python bool and
    stable a bool (sort's also None); anything else is torch's "invalid combination" TypeError."""
    keywords = (("stable", stable), ("dim", dim), ("descending", descending))
    if args:
        if stable is not _UNSET or len(args) > 2 or dim is not _UNSET:
            raise _sort_error(op, input, args, keywords)
        dim = args[0]
        if len(args) == 2:
            if descending is not _UNSET:
                raise _sort_error(op, input, args, keywords)
            descending = args[1]
    if dim is _UNSET:
        dim = -1
    elif dim.__class__ is not int and not is_index(dim):
        raise _sort_error(op, input, args, keywords)
    if descending is _UNSET:
        descending = False
    elif descending.__class__ is not bool:
        raise _sort_error(op, input, args, keywords)
    if not (stable is _UNSET or stable.__class__ is bool or (stable is None and op == "sort")):
        raise _sort_error(op, input, args, keywords)
    return dim, descending


def _sort_error(op: str, input, args: tuple, keywords, method: bool = False) -> TypeError:
    """torch's parser error for a sort/argsort call it refuses. Its overloads whose argument
    counts (the tensor, positionals and keywords; out= aside) fit the call are the plausible ones;
    when only one is, its own complaint is raised (too many positionals, or the first argument of
    the wrong type), else "invalid combination". method: the Tensor method (self not counted)."""
    given = [(name, v) for name, v in keywords if v is not _UNSET]
    count = len(args) + len(given) + (not method)
    # (least count, most count, most positionals) of the stable= overload and the other one
    if method:
        forms = ((1, 3, 0), (0, 2, 2))
    else:
        forms = ((2, 5, 1), (1, 4 if op == "sort" else 3, 3))
    fits = [form for form in forms if form[0] <= count <= form[1]]
    if len(fits) == 1:
        least, _, positionals = fits[0]
        if len(args) + (not method) > positionals:
            return too_many_positional(op, len(args) + (not method), positionals, least)
        for name, v in given:
            want = int if name == "dim" else bool
            if v is None and name == "stable" and op == "sort":  # sort's is `bool? stable`
                continue
            if v.__class__ is not want and not (want is int and is_index(v)):
                return TypeError(
                    f"{op}(): argument '{name}' must be {want.__name__}, not {type_name(v)}"
                )
    from minitorch._ops._parser_errors import _shown_order, invalid_arguments

    positional = args if method else (input, *args)
    forms = _SORT_METHOD_FORMS if method else _SORT_FORMS[op]
    return invalid_arguments(op, forms, positional, _shown_order(dict(given), op))


def _sort_out(op: str):
    """Wraps sort/argsort with torch's parser refusal of an out= no overload takes: argsort's is
    a Tensor of its stable= overload only (argsort(x, out=o) is an "invalid combination",
    argsort(x, dim=1, descending=True, out=o) misses `stable`); and with out= counted among the
    arguments of any other call the parser refuses (_sort_error's are counted without it).
    Only calls given out= pay for it. sort's out= must be a tuple or list: no overload of
    torch's takes a Tensor there, so sort(x, out=tensor) lists both."""

    def decorate(fn):
        body = _unwrapped(fn)

        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            if out is None:
                return body(*args, **kwargs)
            if isinstance(out, (tuple, list) if op == "sort" else Tensor) and (
                op == "sort" or "stable" in kwargs
            ):
                try:
                    return fn(*args, out=out, **kwargs)
                except TypeError as e:
                    parsed = (f"{op}() received an invalid", f"{op}() takes", f"{op}(): arg")
                    if not str(e).startswith(parsed) or "argument 'out'" in str(e):
                        raise
            from minitorch._ops._parser_errors import _shown_order, invalid_arguments

            given = {k: kwargs[k] for k in ("stable", "dim", "descending") if k in kwargs}
            given["out"] = out
            raise invalid_arguments(op, _SORT_FORMS[op], args, _shown_order(given, op)) from None

        return wrapper

    return decorate


def sort_method_error(e: TypeError, op: str, input, args: tuple, kwargs: dict) -> TypeError:
    """The error of the Tensor method x.sort/x.argsort for the error e of the function: torch's
    parser counts and names the method's arguments without self."""
    if not str(e).startswith((f"{op}() received an invalid", f"{op}() takes", f"{op}(): arg")):
        return e
    if kwargs.keys() - {"stable", "dim", "descending"}:  # (a keyword sort lacks: worded so)
        return e
    keywords = [(k, kwargs.get(k, _UNSET)) for k in ("stable", "dim", "descending")]
    return _sort_error(op, input, args, keywords, method=True)


@_sort_out("sort")
@_exact_out(_expected_dtype)
@with_out
def sort(input: Tensor, *args, stable=_UNSET, dim=_UNSET, descending=_UNSET):
    """(values, indices) sorted along dim; always stable. Mirrors torch.sort: called as
    sort(input, dim=-1, descending=False) or sort(input, *, stable, dim=-1, descending=False)."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        kwargs = {"stable": stable, "dim": dim, "descending": descending}
        return run_converted(sort, (input, *args), kwargs)
    given, descending = _sort_arguments("sort", input, args, stable, dim, descending)
    dim, idx = _sorted_parts(input, given, descending, "sort")
    values = _gather(SortValues, input, dim, idx)
    if stable is not _UNSET:  # torch's `stable=` overload: another node name
        name_node(values, "SortBackward1", (input,))
    return return_types.sort(_watched_pair(values, _int64(input, idx), given))


@_sort_out("argsort")
@with_out(exact=True)  # torch's stable= overload takes out= (an int64 tensor, exactly)
def argsort(input: Tensor, *args, stable=_UNSET, dim=_UNSET, descending=_UNSET):
    """The indices that sort input along dim; always stable. Mirrors torch.argsort (its two
    overloads as sort's)."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        kwargs = {"stable": stable, "dim": dim, "descending": descending}
        return run_converted(argsort, (input, *args), kwargs)
    dim, descending = _sort_arguments("argsort", input, args, stable, dim, descending)
    _, idx = _sorted_parts(input, dim, descending, "argsort")
    return _int64(input, idx)


@_exact_out(_expected_dtype)
@with_out
def msort(input: Tensor) -> Tensor:
    """input sorted along dim 0. Mirrors torch.msort."""
    if not isinstance(input, Tensor):  # (sort's check would name sort)
        raise not_tensor("msort", input)
    return sort(input, 0).values


def _take_along(xp, idx, dim: int, start: int, stop: int):
    """idx[start:stop] along dim in memory of its own: torch returns topk's and kthvalue's
    indices contiguous (idx.view(-1) works), a slice of the argsort array is not."""
    return xp.ascontiguousarray(idx[(slice(None),) * dim + (slice(start, stop),)])


def _topk_candidates(xp, row, k: int, largest: bool):
    """The positions (ascending) of a superset of row's top k, or None: the k-th largest of the
    maxima of blocks of 64 (smallest of minima) is a bound t that at least k elements reach, so
    every element that ties with or beats the k-th value is one of those reaching t. A partition
    of n / 64 values and one comparison instead of a partition of all n (topk(k=10) of 100000
    float32: 5x torch's time, now about 1.5x; perf11, session 27). None where a block holds a
    nan (nan sorts last) or the bound leaves more than half of the row."""
    n = row.shape[0]
    blocks = row[: n - n % 64].reshape(-1, 64)
    ext = blocks.max(1) if largest else blocks.min(1)
    if is_floating(row.dtype) and (xp.isnan(ext).any() or xp.isnan(row[n - n % 64 :]).any()):
        return None  # (the tail past the last whole block too)
    nb = ext.shape[0]
    at = nb - k if largest else k - 1
    t = xp.partition(ext, at)[at]
    cand = xp.flatnonzero(row >= t if largest else row <= t)
    return cand if cand.shape[0] <= n // 2 else None


# Up to this many elements topk sorts them all (as for 4k > n): _topk_index's passes cost more
# than the sort there (topk(k=3) of 16x16 float32: 70 us by them, 7 us by the sort)
_TOPK_SORT_MAX = 1024


def _topk_index(xp, x, dim: int, k: int, largest: bool):
    """The first k indices along dim of _stable_argsort(x, dim, largest), without sorting all of
    x (a host kernel, as rank_index; topk(k=10) of 100000 float32: 10 ms by the full sort, about
    1 ms so, torch 0.3). v, the k-th value in that order, comes from a partition; the top k are
    the elements that sort before v, then the first of those equal to v in input order; a stable
    sort of those k (kept in input order) orders them as the full sort does."""
    if x.dtype.kind == "V":  # bfloat16
        x = x.astype("float32")  # exact (as stable_argsort)
    rows = xp.moveaxis(x, dim, -1)
    shape = rows.shape
    rows = rows.reshape(-1, shape[-1])
    n = shape[-1]
    if k == 1 and (largest or not is_floating(x.dtype) or not xp.isnan(rows).any()):
        # the first maximum (a nan is one: argmax stops at the first) or the first minimum
        # (where no nan is; argmin would stop at one): one pass, the sort's first index
        idx = (rows.argmax(1) if largest else rows.argmin(1)).reshape(shape[:-1] + (1,))
        return xp.ascontiguousarray(xp.moveaxis(idx, -1, dim))
    if rows.shape[0] == 1 and n >= 4096 and k * 64 <= n:
        cand = _topk_candidates(xp, rows[0], k, largest)
        if cand is not None:  # the answer among fewer elements, kept in input order
            idx = cand[_topk_index(xp, rows[:, cand], 1, k, largest)]
            return xp.ascontiguousarray(xp.moveaxis(idx.reshape(shape[:-1] + (k,)), -1, dim))
    at = n - k if largest else k - 1  # v's position in the ascending order (nan last)
    v = xp.partition(rows, at, axis=1)[:, at : at + 1]
    floating = is_floating(x.dtype)
    if floating and xp.isnan(v).any():  # nan sorts as the largest value
        before = rows > v if largest else rows < v
        equal = rows == v
        x_nan = xp.isnan(rows)
        v_nan = xp.isnan(v)
        before = (before | (x_nan & ~v_nan)) if largest else (before | (v_nan & ~x_nan))
        equal |= x_nan & v_nan
    elif largest and floating:  # no nan v: the nans (larger than v) are the rows <= v misses
        before = rows <= v
        xp.logical_not(before, out=before)
        equal = rows == v
    else:  # (the smallest k of a row with a number as v: no nan comes before it)
        before = rows > v if largest else rows < v
        equal = rows == v
    # Every row holds at least k elements in before or equal (which are apart), so all of
    # them make the top k when there are k per row in all; else some row holds v more often
    # than it needs, and the first ones in input order are taken (a cumsum costs 10 passes;
    # rare). The total from the positions, not a count per row: one pass fewer.
    pos = xp.flatnonzero(before | equal)
    if pos.shape[0] != k * rows.shape[0]:
        need = k - before.sum(axis=1, keepdims=True)  # how many of the values equal to v
        equal &= xp.cumsum(equal, axis=1) <= need
        pos = xp.flatnonzero(before | equal)
    pick = (pos % n).reshape(-1, k)  # exactly k per row, in input order
    order = _stable_argsort(xp.take_along_axis(rows, pick, 1), 1, largest, xp)
    idx = xp.take_along_axis(pick, order, 1).reshape(shape[:-1] + (k,))
    return xp.ascontiguousarray(xp.moveaxis(idx, -1, dim))


def _sym_int(k, op: str) -> int:
    """topk's and kthvalue's k, which torch reads as a SymInt (shape.sym_int: an integer tensor
    of one element, whatever its rank, too), or torch's TypeError naming it."""
    if isinstance(k, Tensor) and k._data.size == 1 and k._data.dtype.kind in "iu":
        return sym_int(k, op, "k")
    if not is_index(k):
        raise wrong_type(op, k, "k", 2, "int")  # (position 1 in the method's call)
    return index(k, op, "k")


@_exact_out(_expected_dtype)
@_outs_apart(2)
@with_out
def topk(
    input: Tensor = REQUIRED,
    k: int = REQUIRED,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *extra,
):
    """The k largest (or smallest) values along dim and their indices, sorted. Mirrors
    torch.topk (on the CPU, tied values' indices as torch's CPU kernel picks and orders them).

    Differences from torch: sorted=False gives the sorted order (torch's CPU kernel leaves
    nth_element's) where the row has no ties; off the CPU, ties keep input order."""
    if extra:
        raise too_many_positional("topk", 5 + len(extra), 5, 2)
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(topk, (input, k, dim, largest, sorted))
    try:
        x = input._data
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        if input is REQUIRED or k is REQUIRED:
            raise missing_required("topk", input=input, k=k) from None
        raise not_tensor("topk", input) from None
    if k.__class__ is not int:  # torch's SymInt k: an integer tensor of one element too
        if k is REQUIRED:
            raise missing_required("topk", input=input, k=k)
        k = _sym_int(k, "topk")
    if largest.__class__ is not bool:  # (None would sort ascending: the k smallest)
        raise flag_error("topk", "largest", largest, 4)
    if sorted.__class__ is not bool:
        raise flag_error("topk", "sorted", sorted, 5)
    given = dim
    d = wrap_dim(dim, x.ndim, "topk", "dim", 3)  # torch checks dim, then k, then the dtype
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if (
        x.ndim
        and 0 < 4 * k <= n
        and (k == 1 or x.size > _TOPK_SORT_MAX)
        and input._device.type == "cpu"
        and real_kernel(x)
    ):
        dim = d
        idx = _topk_index(input._device.backend.xp, x, d, k, largest)
        order = None
    else:
        dim, order = _sorted_parts(input, dim, largest, "topk")
        idx = _take_along(input._device.backend.xp, order, dim, 0, k) if x.ndim else order
    if x.ndim and k and input._device.type == "cpu" and real_kernel(x):
        xp = input._device.backend.xp
        if (
            _has_ties(xp, x, dim, k, _take_host(xp, x, idx, dim))
            if order is None
            else _sorted_ties(xp, x, dim, k, order)
        ):
            idx = _ties_as_torch(xp, x, dim, k, largest, sorted, idx)
    values = _gather(TopkValues, input, dim, idx)
    return return_types.topk(_watched_pair(values, _int64(input, idx), given))


def _has_ties(xp, x, dim: int, k: int, vals) -> bool:
    """Whether some row of x along dim holds a value of its top k (vals, sorted, in x's layout)
    twice: two equal neighbours in vals, or the k-th value (a NaN: the NaNs) more than once in
    the row. A few whole-array passes, no per-row work (host data: the CPU only)."""
    kind = x.dtype.kind  # (not dtype.name or is_floating: those cost more than the passes here)
    if kind not in "fiu":  # bfloat16 (ml_dtypes)
        x, vals, kind = x.astype("float32"), vals.astype("float32"), "f"  # exact
    lead = (slice(None),) * dim
    kth = vals[lead + (slice(k - 1, k),)]
    if k > 1:
        a, b = vals[lead + (slice(1, None),)], vals[lead + (slice(None, -1),)]
        if (a == b).any():
            return True
    count = (x == kth).sum(dim, keepdims=True)
    if kind == "f":
        nan_kth = xp.isnan(kth)
        if k > 1 and (xp.isnan(a) & xp.isnan(b)).any():
            return True  # NaNs count as equal here (they sort together)
        if nan_kth.any():
            count = xp.where(nan_kth, xp.isnan(x).sum(dim, keepdims=True), count)
    return bool((count > 1).any())


def _sorted_ties(xp, x, dim: int, k: int, order) -> bool:
    """_has_ties from the whole row's stable sort `order` (along dim): equal values sit side by
    side in it (the NaNs too), so a tie in the top k or a k-th value found again past it is two
    equal neighbours among the first k + 1 sorted values. One gather and a comparison."""
    if x.dtype.kind not in "fiu":  # bfloat16 (ml_dtypes)
        x = x.astype("float32")  # exact
    n = x.shape[dim]
    if x.size <= _TIES_IN_PYTHON and dim == x.ndim - 1 and xp is _CPU.backend.xp:
        return _sorted_ties_small(x, n, k, order)
    lead = (slice(None),) * dim
    top = _take_host(xp, x, order[lead + (slice(0, k + 1),)], dim)
    a, b = top[lead + (slice(1, None),)], top[lead + (slice(None, -1),)]
    equal = a == b
    if x.dtype.kind == "f":
        equal |= xp.isnan(a) & xp.isnan(b)  # NaNs count as equal here (they sort together)
    return bool(equal.any())


# Rows along the last dim of up to this many elements in all are checked for ties in Python:
# the gather and four NumPy passes of _sorted_ties cost ~6 us whatever the size (topk(2) of 3x4)
_TIES_IN_PYTHON = 64


def _sorted_ties_small(x, n: int, k: int, order) -> bool:
    """_sorted_ties of a small host x along its last dim, on Python numbers: the values (floats,
    ints) compare as NumPy's do, a NaN unequal to itself (two NaNs count as equal here)."""
    rows = x.reshape(-1, n).tolist()
    for row, sorted_at in zip(rows, order.reshape(-1, n)[:, : k + 1].tolist(), strict=True):
        before = row[sorted_at[0]]
        for at in sorted_at[1:]:
            v = row[at]
            if v == before or (v != v and before != before):
                return True
            before = v
    return False


def _ties_as_torch(xp, x, dim: int, k: int, largest: bool, sort: bool, idx):
    """idx (topk's indices, ties in input order) with the rows whose top k hold equal values, or
    whose k-th value is also found past the k-th place, replaced by the indices torch's CPU
    kernel gives: which of equal values come out, and in what order, is the choice of
    libstdc++'s partial_sort / nth_element (NOTE [ libstdc++'s selection on ties ]), replayed
    on the row's value ranks. A host kernel (NumPy only); rows without ties pay one pass."""
    if x.dtype.kind == "V":  # bfloat16
        x = x.astype("float32")  # exact
    rows = xp.moveaxis(x, dim, -1)
    shape = rows.shape
    rows = rows.reshape(-1, shape[-1])
    top = xp.moveaxis(idx, dim, -1).reshape(-1, k)
    vals = xp.take_along_axis(rows, top, 1)
    kth = vals[:, -1:]
    if is_floating(x.dtype):
        nan = xp.isnan(vals)
        tied = ((vals[:, 1:] == vals[:, :-1]) | (nan[:, 1:] & nan[:, :-1])).any(1)
        count = (rows == kth).sum(1)
        if nan[:, -1].any():  # a NaN k-th value: its count is the NaNs' (host data: CPU only)
            count = xp.where(nan[:, -1], xp.isnan(rows).sum(1), count)
    else:
        tied = (vals[:, 1:] == vals[:, :-1]).any(1)
        count = (rows == kth).sum(1)
    tied |= count > 1  # the k-th value twice: inside the top k (caught above) or past it
    if not tied.any():
        return idx
    top = top.copy()
    which = xp.flatnonzero(tied)
    sub = rows[which]
    ranks = xp.unique(sub, return_inverse=True)[1].reshape(sub.shape)  # NaN: the top rank
    for r, rank in zip(which.tolist(), ranks if largest else -ranks, strict=True):
        top[r] = _tsm._stl_topk(rank, k, sort)
    return xp.ascontiguousarray(xp.moveaxis(top.reshape(shape[:-1] + (k,)), -1, dim))


def _kthvalue_resize(out, input, k, dim=-1, keepdim=False):
    resize_index_outs(out, input, dim, keepdim, lambda n, d: n == input.ndim - 1)


@_exact_out(_kthvalue_out_message)
@_outs_apart(1)
@with_out(resize=_kthvalue_resize)
def kthvalue(
    input: Tensor = REQUIRED, k: int = REQUIRED, dim: int = -1, keepdim: bool = False, *extra
):
    """The k-th smallest value along dim and its index. Mirrors torch.kthvalue."""
    if extra:
        raise too_many_positional("kthvalue", 4 + len(extra), 4, 2)
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(kthvalue, (input, k, dim, keepdim))
    try:
        x = input._data
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        if input is REQUIRED or k is REQUIRED:
            raise missing_required("kthvalue", input=input, k=k) from None
        raise not_tensor("kthvalue", input) from None
    if k.__class__ is not int:  # a float, None or bool k is torch's TypeError
        if k is REQUIRED:
            raise missing_required("kthvalue", input=input, k=k)
        k = _sym_int(k, "kthvalue")
    if keepdim.__class__ is not bool:
        raise flag_error("kthvalue", "keepdim", keepdim, 4)
    d = wrap_dim(dim, x.ndim, "kthvalue", "dim", 3)
    saved = {"saved_dim": operator.index(dim), "saved_keepdim": keepdim}  # (grad_fn._saved_*)
    n = x.shape[d] if x.ndim else 1
    if not 1 <= k <= n:
        if n == 0:
            raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    # torch checks k before the dtype, and a 0-d input is its own answer (no kernel runs), so
    # only a bool tensor with dims reaches torch's missing bool kernel
    if x.dtype.kind == "b" and x.ndim:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    xp = input._device.backend.xp
    if x.ndim and input._device.type == "cpu" and real_kernel(x):
        # the sort's k-th index, from a partition (NumPy only; see rank_index), then torch's
        # choice among equal values
        dim = d
        idx = _kth_ties_as_torch(xp, x, dim, k, rank_index(xp, x, dim, k - 1))
    else:
        dim, idx = _sorted_parts(input, dim, False, "kthvalue")
        if not x.ndim:
            indices = _int64(input, idx)
            values = watch_indices(_gather(KthvalueValues, input, 0, idx), indices, **saved)
            return return_types.kthvalue((values, indices))
        idx = _take_along(xp, idx, dim, k - 1, k)
    if keepdim:
        indices = _int64(input, idx)
        values = watch_indices(_gather(KthvalueValues, input, dim, idx), indices, **saved)
        return return_types.kthvalue((values, indices))
    if input._device is _CPU and 0 < idx.size < FLAT_PLAN_MAX:  # one flat index (_gather's)
        flat = flat_along_plan(idx, dim, x.shape).adv[0]
        idx = idx.reshape(idx.shape[:dim] + idx.shape[dim + 1 :])
        plan = IndexPlan(None, (flat,), None, "Alias", (x.size,), idx.shape, True)
    else:
        idx = idx.reshape(idx.shape[:dim] + idx.shape[dim + 1 :])
        plan = _reduced_plan(xp, x.shape, dim, idx)
    values = KthvalueValues.apply(input, plan=plan)
    indices = _int64(input, idx)
    return return_types.kthvalue((watch_indices(values, indices, **saved), indices))


def _reduced_plan(xp, shape: tuple, dim: int, idx) -> IndexPlan:
    """The plan of x (of shape) read at idx along dim, idx of the reduced shape (dim dropped)."""
    key = []
    r = len(idx.shape)
    for d, n in enumerate(shape):
        if d == dim:
            key.append(idx)
        else:
            pos = d if d < dim else d - 1  # the dim's place in the result
            key.append(xp.arange(n).reshape((n,) + (1,) * (r - 1 - pos)))
    return IndexPlan(None, tuple(key), None, "Alias", shape, idx.shape, True)


# Rows longer in all than this take the first equal value in input order rather than torch's
# choice among equal values: the replay runs in Python (about 1 ms for a row of 1,000).
_KTH_REPLAY_LIMIT = 1 << 16


def _small_kth_tied(x, dim: int, idx) -> bool:
    """Whether some row of a small host x along dim holds its k-th value (at idx, of size 1
    along dim) more than once, as _kth_ties_as_torch counts it (a NaN k-th value: the row's
    NaNs), on Python numbers: its gather and five NumPy passes cost ~5 us whatever the size."""
    n = x.shape[dim]
    if dim != x.ndim - 1:
        order = [d for d in range(x.ndim) if d != dim] + [dim]
        x, idx = x.transpose(order), idx.transpose(order)
    for row, at in zip(x.reshape(-1, n).tolist(), idx.reshape(-1).tolist(), strict=True):
        v = row[at]
        if v != v:
            if sum(1 for e in row if e != e) > 1:
                return True
        elif row.count(v) > 1:  # (v itself counts once, as in NumPy's count)
            return True
    return False


def _kth_ties_as_torch(xp, x, dim: int, k: int, idx):
    """idx (kthvalue's indices, the first equal value in input order) with the rows whose k-th
    value occurs more than once given the index torch's CPU kernel picks (NOTE [ torch's
    quickselect on ties ]), replayed on the row's value ranks while the tied rows hold at most
    _KTH_REPLAY_LIMIT elements. A host kernel (NumPy only); rows without ties pay one pass."""
    if x.dtype.kind == "V":  # bfloat16
        x = x.astype("float32")  # exact
    if x.size <= _TIES_IN_PYTHON and xp is _CPU.backend.xp and not _small_kth_tied(x, dim, idx):
        return idx
    v = _take_host(xp, x, idx, dim)
    count = (x == v).sum(dim, keepdims=True)
    if x.dtype.kind == "f":
        nan = xp.isnan(v)
        if nan.any():  # a NaN k-th value: its count is the NaNs'
            count = xp.where(nan, xp.isnan(x).sum(dim, keepdims=True), count)
    tied = xp.flatnonzero(xp.moveaxis(count, dim, -1) > 1)
    n = x.shape[dim]
    if not tied.size or tied.size * n > _KTH_REPLAY_LIMIT:
        return idx
    rows = xp.moveaxis(x, dim, -1).reshape(-1, n)
    out = xp.moveaxis(idx, dim, -1).reshape(-1).copy()
    ranks = xp.unique(rows[tied], return_inverse=True)[1].reshape(tied.size, n)  # NaN: the top
    for r, rank in zip(tied.tolist(), ranks.tolist(), strict=True):
        out[r] = _tsm._quick_select(rank, k - 1)
    return xp.moveaxis(out.reshape(xp.moveaxis(idx, dim, -1).shape), -1, dim)


# --- unique ---


def _finish_unique(input, values, inverse, counts, return_inverse, return_counts, kernel):
    """The unique family's results; the values require grad when input does (grad mode on),
    through torch's node for `kernel`, whose backward raises."""
    dev = input._device
    out = [_make(values, dev, False, None)]
    if input._requires_grad and state.enabled:
        node = "".join(w.capitalize() for w in kernel.split("_")) + "Backward0"  # Unique2Backward0
        out[0] = name_node(
            NotImplementedDerivative.apply(input, result=values, op=kernel), node, (input,)
        )
    if return_inverse:
        out.append(_make(inverse.astype("int64", copy=False), dev, False, None))
    if return_counts:
        out.append(_make(counts.astype("int64", copy=False), dev, False, None))
    return out[0] if len(out) == 1 else tuple(out)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
):
    """The sorted unique elements (or slices along dim). Mirrors torch.unique.

    Differences from torch: with dim, NaN-holding slices of more than 16 (where torch's CPU sort
    leaves insertion sort) come in NumPy's order, not torch's (NOTE [ unique(dim) with NaN ]);
    on a GPU, always in NumPy's order.
    """
    try:
        x = input._data
    except AttributeError:  # torch names its kernel, _unique2, in this error
        raise not_tensor("_unique2", input) from None
    if not (sorted.__class__ is return_inverse.__class__ is return_counts.__class__ is bool):
        for name, flag in (("sorted", sorted), ("return_inverse", return_inverse),
                           ("return_counts", return_counts)):  # fmt: skip
            if flag.__class__ is not bool:  # (passed on by keyword: no position)
                kernel = "_unique2" if dim is None else "unique_dim"
                raise wrong_type(kernel, flag, name, None, "bool")
    if input._device.type == "meta":  # its size depends on the values: NOTE [ The meta device ]
        from minitorch._backend.meta import no_kernel

        raise no_kernel("_unique2" if dim is None else "unique_dim")
    xp = input._device.backend.xp
    dt = x.dtype
    if dt.kind == "V" and dt.name == "bfloat16":  # (kind first: a NumPy dtype.name costs 1+ us)
        x = x.astype("float32")  # exact; NumPy's bfloat16 sort misplaces NaN
    if dim is None:
        # torch keeps every NaN apart ([1, nan, nan]); NumPy merges them unless told not to
        kw = {"equal_nan": False} if input._device.type == "cpu" else {}
        values, inverse, counts = xp.unique(
            x.reshape(-1), return_inverse=True, return_counts=True, **kw
        )
        inverse = inverse.reshape(x.shape)
    else:
        dim = _slice_dim(dim, x.ndim, "unique_dim", 2)  # (torch.unique passes it by position)
        _check_slices(x.shape, dim)
        moved = xp.moveaxis(x, dim, 0)
        if (
            input._device.type == "cpu"
            and 1 < moved.shape[0] <= 16
            and is_floating(x.dtype)
            and xp.isnan(moved).any()
        ):
            values, inverse, counts = _unique_slices_with_nan(xp, moved)
        else:
            values, inverse, counts = xp.unique(
                moved, axis=0, return_inverse=True, return_counts=True
            )
        values = xp.moveaxis(values, 0, dim)
        inverse = inverse.reshape(-1)
    values = values.astype(dt, copy=False)
    kernel = "_unique2" if dim is None else "unique_dim"
    return _finish_unique(input, values, inverse, counts, return_inverse, return_counts, kernel)


def _check_slices(shape, dim: int):
    """torch's unique(dim) and unique_consecutive(dim) refuse a 0-sized dim other than dim."""
    if any(n == 0 for d, n in enumerate(shape) if d != dim):
        if shape[dim] == 0:  # (torch's message ends in a space)
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
            )
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )


# NOTE [ unique(dim) with NaN ]
# torch's CPU unique(dim) std::sorts the slices with a lexicographic "less" that skips every
# position where neither side is less (so a NaN position is skipped), then merges neighbours
# that compare equal everywhere (a NaN never does). With NaN that "less" is no strict weak
# order, so the result is whatever std::sort does: for up to 16 slices libstdc++ runs a plain
# insertion sort, replayed here on the CPU; past 16 its introsort is not replayed (NumPy's
# order instead, see unique's Differences).


def _unique_slices_with_nan(xp, x):
    """(values, inverse, counts) of unique over x's first axis (2 to 16 slices, some NaN), as
    torch's CPU kernel orders them (NOTE [ unique(dim) with NaN ])."""
    n = x.shape[0]
    flat = x.reshape(n, -1)
    lt = flat[:, None, :] < flat[None, :, :]
    decided = lt | (flat[:, None, :] > flat[None, :, :])
    first = decided.argmax(axis=2)[..., None]  # the first position where a side is less
    less = (decided.any(axis=2) & xp.take_along_axis(lt, first, axis=2)[..., 0]).tolist()
    order = list(range(n))
    for i in range(1, n):  # libstdc++'s __insertion_sort, moves and all
        v = order[i]
        if less[v][order[0]]:
            order[1 : i + 1] = order[:i]
            order[0] = v
            continue
        j = i
        while less[v][order[j - 1]]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = v
    ordered = flat[order]
    starts = xp.concatenate([xp.ones(1, dtype=bool), ~(ordered[1:] == ordered[:-1]).all(axis=1)])
    group = xp.cumsum(starts) - 1
    inverse = xp.empty(n, dtype=group.dtype)
    inverse[order] = group
    values = x[order][starts]
    return values, inverse, xp.bincount(group)


# NOTE [ unique_consecutive's dispatch names ]
# torch.unique_consecutive is Python: boolean_dispatch wrappers (on return_inverse, read at
# position 2, then return_counts, read at position 1, as torch's arg_index say) calling one of
# four functions, so Python's TypeError for an argument given twice, a missing or an extra one
# names that function: torch.unique_consecutive(x, True, return_inverse=False) is
# "_consecutive_return_counts() got multiple values for argument 'return_inverse'". The
# wrapper renames the error on its path only.
def _dispatched_name(args: tuple, kwargs: dict) -> str:
    def flag(name, i):
        v = kwargs[name] if name in kwargs else args[i] if i < len(args) else False
        return v is not None and not isinstance(v, Tensor) and bool(v)  # (no host reads)

    inverse, counts = flag("return_inverse", 2), flag("return_counts", 1)
    if inverse:
        return "_consecutive_return_inverse" + ("_and_counts" if counts else "")
    return "_consecutive_return_counts" if counts else "_consecutive_return_output"


def unique_consecutive(*args, **kwargs):
    """Collapses runs of equal consecutive elements (or slices along dim). Mirrors
    torch.unique_consecutive."""
    try:
        return _unique_consecutive(*args, **kwargs)
    except TypeError as e:  # NOTE [ unique_consecutive's dispatch names ]
        text = str(e)
        if not text.startswith("_unique_consecutive() "):
            raise
        name = _dispatched_name(args, kwargs)
        raise TypeError(name + text[len("_unique_consecutive") :]) from None


def _unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """unique_consecutive, its arguments bound."""
    check_tensors("unique_consecutive", ("input", input))
    # (torch's Python wrapper passes these by keyword: no position in its message)
    check_bool("unique_consecutive", return_inverse, "return_inverse")
    check_bool("unique_consecutive", return_counts, "return_counts")
    if input._device.type == "meta":  # its size depends on the values: NOTE [ The meta device ]
        from minitorch._backend.meta import no_kernel

        raise no_kernel("unique_consecutive")
    xp = input._device.backend.xp
    x = input._data
    if dim is None:
        flat = x.reshape(-1)
        changed = flat[1:] != flat[:-1]
        shape = x.shape
    else:
        dim = _slice_dim(dim, x.ndim, "unique_consecutive")
        _check_slices(x.shape, dim)
        flat = xp.moveaxis(x, dim, 0)
        diff = flat[1:] != flat[:-1]
        # the slice size is spelled out: reshape(0, -1) cannot infer it when there is 0 or 1 slice
        changed = diff.reshape(diff.shape[0], math.prod(diff.shape[1:])).any(axis=1)
        shape = (flat.shape[0],)
    n = flat.shape[0]
    starts = xp.concatenate([xp.ones(min(n, 1), dtype=bool), changed])
    first = xp.nonzero(starts)[0]
    values = flat[first]
    if dim is not None:
        values = xp.moveaxis(values, 0, dim)
    inverse = (xp.cumsum(starts) - 1).reshape(shape)
    counts = xp.diff(xp.concatenate([first, xp.asarray([n], dtype=first.dtype)]))
    return _finish_unique(
        input, values, inverse, counts, return_inverse, return_counts, "unique_consecutive"
    )


unique_consecutive.__wrapped__ = _unique_consecutive  # (its signature, for inspect)


# --- searching and counting ---


def _slice_dim(dim, ndim: int, op: str, pos: int | None = None) -> int:
    """unique's dim: a 0-d tensor has no slices to compare (torch's IndexError, where wrap_dim
    would take it as 1-d)."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim, op, "dim", pos)


def _compared(a, b, op: str):
    """(a, b) as tensors of the dtype torch compares them in (searchsorted, isin): the pair's
    result type, with a Python number read as a wrapped number of it. searchsorted(float32_seq,
    0.7) searches float32(0.7), which equals the element 0.7 (NumPy would compare the float64
    0.7 and step past it); a uint8 tensor's -1 is 255; a float16 sequence's 2049 is 2048."""
    a, b, dt = promote(a, b, op)
    ref = a if isinstance(a, Tensor) else b
    xp = ref._device.backend.xp

    def as_tensor(v):
        if isinstance(v, Tensor):
            return v
        data = xp.asarray(_dtype.via_float32(v, dt.np), dtype=dt.np)
        return _make(data, ref._device, False, None)

    return as_tensor(a), as_tensor(b)


_SEARCHSORTED_OVERLOADS = tuple(
    f"Tensor sorted_sequence, {kind}, *, bool out_int32 = False, bool right = False, str side = "
    "None, Tensor sorter = None, Tensor out = None"
    for kind in ("Tensor input", "Number self")
)


_ABSENT = object()  # searchsorted's/bucketize's tensors not given: the parser reports the call


def _searchsorted_no_overload(sorted_sequence, input, extra, unknown, **kwargs) -> TypeError:
    from minitorch._ops._parser_errors import overload_error

    # the keywords torch's message lists are those given: here, those not at their default
    named = [("sorted_sequence", sorted_sequence), ("input", input)]
    named = [(n, v) for n, v in named if v is not _ABSENT]
    named += [(f"#{i}", v) for i, v in enumerate(extra)]  # (never passed by keyword)
    named += [(k, v) for k, v in kwargs.items() if v is not _default_of(k)]
    named += list(unknown.items())
    return overload_error("searchsorted", _SEARCHSORTED_OVERLOADS, (), named, unknown=unknown)


def _default_of(keyword: str):
    """The default of searchsorted's and bucketize's keywords (the flags False, others None)."""
    return False if keyword in ("out_int32", "right") else None


def _flags_ok(out_int32, right, side=None, sorter=None, out=None) -> bool:
    """Whether torch's parser takes these: the flags Python bools (not 1, not None), side a str,
    sorter and out tensors (not a list or an array) or None."""
    return (
        out_int32.__class__ is bool
        and right.__class__ is bool
        and (side is None or isinstance(side, str))  # (a str subclass too: numpy.str_)
        and (sorter is None or isinstance(sorter, Tensor))
        and (out is None or isinstance(out, Tensor))
    )


def searchsorted(
    sorted_sequence: Tensor = _ABSENT,
    input=_ABSENT,
    *extra,
    out_int32: bool = False,
    right: bool = False,
    side=None,
    sorter=None,
    out=None,
    **kwargs,
) -> Tensor:
    """Insertion points of input into the sorted innermost dim of sorted_sequence. Mirrors
    torch.searchsorted.

    Differences from torch: a sequence that is not sorted (torch's results are then unspecified)
    may give other points than torch's where NumPy's search runs (NOTE [ searchsorted by rows ])."""
    if (
        extra
        or kwargs
        or not isinstance(sorted_sequence, Tensor)
        or not isinstance(input, (Tensor, numbers.Number))
        or not _flags_ok(out_int32, right, side, sorter, out)
    ):
        # torch's argument parser: neither overload takes them (searchsorted(list, tensor),
        # right=1, NumPy's searchsorted(a, v, "right") or v=, sorter=a list)
        kw = {"out_int32": out_int32, "right": right, "side": side, "sorter": sorter, "out": out}
        raise _searchsorted_no_overload(sorted_sequence, input, extra, kwargs, **kw)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    if isinstance(out, Tensor) and out.dtype is not (_dtype.int32 if out_int32 else _dtype.int64):
        raise RuntimeError(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
            "Long(int64) depending on whether out_int32 flag is True, but we got output "
            f"tensor's dtype {_dtype.scalar_name(out.dtype)} and out_int32 flag is {out_int32}"
        )
    sorted_sequence, values = _compared(sorted_sequence, input, "searchsorted")
    xp = sorted_sequence._device.backend.xp
    seq = sorted_sequence._data
    v = values._data
    if sorter is not None:
        seq = xp.take_along_axis(seq, _sorter_indices(sorted_sequence, sorter), axis=-1)
    if v.ndim == 0 and seq.ndim != 1:
        raise RuntimeError(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor "
            f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input value's "
            f"dim({v.ndim}) numel({v.size})"
        )
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if seq.ndim != 1 and seq.shape[:-1] != v.shape[:-1]:
        raise RuntimeError(
            f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            f"dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}"
        )
    _warn_non_contiguous(sorted_sequence, input)
    if seq.dtype.kind == "b" and v.dtype.kind == "b":
        # torch has no Bool search kernel (after its checks); a bool sequence searched for ints
        # is promoted first
        raise NotImplementedError(
            f"\"searchsorted_out_{sorted_sequence._device.type}\" not implemented for 'Bool'"
        )
    dtype = "int32" if out_int32 else "int64"
    if seq.ndim == 1 and not _ends_in_nan(sorted_sequence, seq):
        # NumPy's kernel, for speed; it agrees with torch's search except where the sequence
        # itself holds NaN (NumPy orders NaN last, torch's comparisons with NaN are false)
        res = xp.searchsorted(seq, v, side="right" if right else "left")
    else:
        if _rows_by_numpy(sorted_sequence, seq, v):
            res = xp.empty(v.shape, dtype="int64")
            side = "right" if right else "left"
            for row in itertools.product(*map(range, seq.shape[:-1])):
                res[row] = xp.searchsorted(seq[row], v[row], side=side)
        else:
            res = bisect(xp, seq, v, right)
    result = _make(xp.asarray(res).astype(dtype), sorted_sequence._device, False, None)
    return result if out is None else _write(out, result)


def _warn_non_contiguous(sorted_sequence: Tensor, input) -> None:
    """torch's once-per-process performance warnings of searchsorted (and so bucketize) for a
    non-contiguous input tensor, then for non-contiguous boundaries."""
    from minitorch._settings import warn_once

    for what, t in (("input value", input), ("boundary", sorted_sequence)):
        if isinstance(t, Tensor) and not t.is_contiguous():
            warn_once(
                f"searchsorted_{what}",
                f"torch.searchsorted(): {what} tensor is non-contiguous, this will lower the "
                "performance due to extra data copy when converting non-contiguous tensor to "
                f"contiguous, please use contiguous {what} tensor if possible. This message will "
                "only appear once per program.",
            )


# NOTE [ searchsorted by rows ]
# A batched search ran bisect's log2(n) whole-array steps (316 rows of 316 values, each row
# searched for 316 values: 12.8 ms, torch 3 ms); with many values a row, NumPy's kernel row by
# row takes 1.3 ms. It runs where the 1-D search runs it (no row ends in NaN: NumPy orders NaN
# last, torch's comparisons with NaN are false), on the host only (that test reads the rows).
_VALUES_A_ROW = 32


def _rows_by_numpy(sorted_sequence: Tensor, seq, v) -> bool:
    """Whether a batched search runs NumPy's kernel row by row (NOTE [ searchsorted by rows ])."""
    if sorted_sequence._device.type != "cpu" or not v.size:
        return False
    if math.prod(seq.shape[:-1]) * _VALUES_A_ROW > v.size or not seq.shape[-1]:
        return False
    if is_floating(seq.dtype):
        last = seq[..., -1]
        return not (last != last).any()
    return True


def _ends_in_nan(sorted_sequence: Tensor, seq) -> bool:
    """Whether a 1-D float sequence ends in NaN (sorted, any NaN is last), so that torch's search
    (bisect) must run instead of NumPy's. On CPU only: reading an element would make a GPU wait,
    so there NumPy's (CuPy's) kernel runs whatever the sequence holds."""
    if sorted_sequence._device.type != "cpu" or not seq.size or not is_floating(seq.dtype):
        return False
    last = seq[-1]
    return bool(last != last)


def _sorter_indices(sorted_sequence: Tensor, sorter: Tensor):
    """sorter's array, validated as torch's searchsorted does (the range check on CPU only: it
    reads the indices, which would make a GPU wait)."""
    seq, idx = sorted_sequence._data, sorter._data
    if seq.shape != idx.shape:
        raise RuntimeError(
            "torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
            f"tensor {list(seq.shape)}and got sorter tensor {list(idx.shape)}"
        )
    if idx.dtype != "int64":
        raise RuntimeError(
            "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
            f"{_dtype.scalar_name(sorter.dtype)}"
        )
    on_host = sorter._device.type == "cpu"
    if on_host and idx.size and seq.ndim and bool(((idx < 0) | (idx >= seq.shape[-1])).any()):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")
    return idx


def bisect(xp, seq, v, right: bool):
    """torch's binary search for each value of v in the last dim of seq (1-D, or with v's
    leading dims): the first position whose entry is > v (right) or >= v (left), found by
    halving [0, n). A comparison with NaN is false, which steps right: a NaN value lands at n,
    and a row holding NaN is searched as torch searches it (even an unsorted one, as the
    histogram kernel's explicit edges may be). All rows advance together, log2(n) steps."""
    n = seq.shape[-1]
    lo = xp.zeros(v.shape, dtype="int64")
    hi = xp.full(v.shape, n, dtype="int64")
    for _ in range(n.bit_length()):
        mid = (lo + hi) >> 1
        at = xp.minimum(mid, n - 1)  # a finished search may point at n
        entry = seq[at] if seq.ndim == 1 else xp.take_along_axis(seq, at, axis=-1)
        active = lo < hi
        up = active & ~((entry > v) if right else (entry >= v))
        lo = xp.where(up, mid + 1, lo)
        hi = xp.where(active & ~up, mid, hi)
    return lo


def _write(out, result):
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def bucketize(
    input=_ABSENT,
    boundaries: Tensor = _ABSENT,
    *extra,
    out_int32=False,
    right=False,
    out=None,
    **kwargs,
) -> Tensor:
    """The bucket of each input value among 1-D boundaries. Mirrors torch.bucketize."""
    if (
        # (NumPy's digitize(x, bins, right) by position, searchsorted's side="right": torch's
        # parser lists bucketize's overloads)
        extra
        or kwargs
        or not isinstance(boundaries, Tensor)
        or not isinstance(input, (Tensor, numbers.Number))
        or not _flags_ok(out_int32, right, out=out)
    ):
        from minitorch._ops._parser_errors import overload_error

        forms = (
            "Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
            "Tensor out = None",
            "Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False",
        )
        named = [("input", input), ("boundaries", boundaries)]
        named = [(n, v) for n, v in named if v is not _ABSENT]
        named += [(f"#{i}", v) for i, v in enumerate(extra)]  # (never passed by keyword)
        named += [(k, v) for k, v in (("out_int32", out_int32), ("right", right), ("out", out))
                  if v is not _default_of(k)]  # fmt: skip
        raise overload_error("bucketize", forms, (), named + list(kwargs.items()), unknown=kwargs)
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


class NoDerivative(RefusedBackward):
    """out = a result computed outside autograd (a histogram, a weighted count);  no derivative:
    torch's result still requires grad when an input does, and its backward raises"""

    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, *inputs, result, op):
        ctx.op = op
        ctx.message = f"derivative for aten::{op} is not implemented"
        return result


class NotImplementedDerivative(NoDerivative):
    """out = a result whose derivative torch leaves not implemented (the unique family): its
    backward raises torch's NotImplementedError naming the kernel"""

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError(f"the derivative for '{ctx.op}' is not implemented.")


def no_derivative(result, inputs, op: str):
    """result (a Tensor, or a tuple of them: one node's outputs), made to require grad through a
    NoDerivative node when grad mode is on and one of `inputs` (Tensors or None) requires grad,
    as torch's non-differentiable kernels do."""
    if not state.enabled:
        return result
    tracked = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    if not tracked:
        return result
    if result.__class__ is tuple:  # several results: the outputs of one node, as torch's
        return NoDerivative.apply(*tracked, result=tuple(r._data for r in result), op=op)
    return NoDerivative.apply(*tracked, result=result._data, op=op)


def bincount(
    input: Tensor = REQUIRED, weights: Tensor | None = None, minlength: int = 0, *extra
) -> Tensor:
    """Counts of each value of a 1-D non-negative integer tensor (weighted sums with weights).
    Mirrors torch.bincount (the output size needs a host sync on a GPU)."""
    if extra:
        raise too_many_positional("bincount", 3 + len(extra), 3, 1)
    if input is REQUIRED:
        raise missing_required("bincount", input=input)
    if not isinstance(input, Tensor):
        raise not_tensor("bincount", input)
    if weights is not None and not isinstance(weights, Tensor):
        raise wrong_type("bincount", weights, "weights", 2, "Tensor")
    if minlength.__class__ is not int:
        minlength = check_int("bincount", minlength, "minlength", 3)
    if input._device.type == "meta":  # its size depends on the values: NOTE [ The meta device ]
        from minitorch._backend.meta import no_kernel

        raise no_kernel("bincount")
    x = input._data
    xp = input._device.backend.xp
    if x.dtype.kind != "i" and x.dtype != "uint8":  # torch's kernel: the signed ints and uint8
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{_dtype.scalar_name(input.dtype)}'"
        )
    if x.ndim != 1 or (x.size and bool(x.min() < 0)):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    w = None
    if weights is not None and x.size:  # torch: an empty input counts in int64, weights or not
        w = weights._data
        if w.ndim != 1 or w.shape[0] != x.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    try:
        if w is None:
            res = xp.bincount(x, minlength=minlength).astype("int64")
        else:
            res = xp.bincount(x, weights=w, minlength=minlength)  # torch: double, but float
            if w.dtype == "float32":  # float32 weights add up in float32, in the input's order
                res = xp.zeros(res.shape, w.dtype)
                input._device.backend.scatter_add(res, x, w)
    except (MemoryError, ValueError):  # a huge value or minlength: torch's allocator error
        raise _bincount_alloc_error(x, w, minlength) from None
    return no_derivative(_make(res, input._device, False, None), (weights,), "bincount")


def _bincount_alloc_error(x, w, minlength: int) -> RuntimeError:
    """torch's RuntimeError when bincount's output (max(input) + 1 or minlength bins) cannot be
    allocated; NumPy raises MemoryError, or ValueError past the largest array it can describe."""
    size = max(minlength, int(x.max()) + 1 if x.size else 0)
    if size >= 2**63 // 8:
        return RuntimeError(f"Storage size calculation overflowed with sizes=[{size}]")
    nbytes = size * (4 if w is not None and w.dtype == "float32" else 8)
    return RuntimeError(
        "bincount: DefaultCPUAllocator: can't allocate memory: you tried to allocate "
        f"{nbytes} bytes."
    )


def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """A histogram of bins equal-width bins over [min, max] (the data's range when min == max).
    Mirrors torch.histc."""
    try:
        x = input._data
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("histc", input) from None
    xp = input._device.backend.xp
    if bins.__class__ is not int:
        bins = check_int("histc", bins, "bins", 2)
    if bins <= 0:  # (torch's CPU histc runs histogram's checks, this one before the dtype's)
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    for name, bound in (("min", min), ("max", max)):
        if isinstance(bound, (str, bytes)) or not hasattr(type(bound), "__float__") or (
            isinstance(bound, Tensor) and not is_scalar_arg(bound)  # (tensor([1.0]) too)
        ):
            raise wrong_type("histc", bound, name, 3 if name == "min" else 4, "Number")
    # torch's order: out's dtype, the range's checks, then the kernels' dtypes (the bin edges'
    # linspace has no Bool kernel, the count none for integers)
    if out is not None:
        _check_histogram_out(input, out, "hist")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(quiet_extreme(xp, x, x.min)), float(quiet_extreme(xp, x, x.max))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not is_floating(x.dtype):
        kernel = "linspace_cpu" if x.dtype.kind == "b" else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short_name(input.dtype)}'")
    # torch finds a value's bin as int((x - lo) * bins / (hi - lo)), each step rounded to the
    # input's dtype (bfloat16 and float16 too), with lo and hi rounded to it first; it does not
    # correct the result against the bin edges as NumPy's histogram does. Same here, so values
    # near an edge land in torch's bin.
    flat = x.reshape(-1)
    left, right = xp.asarray(lo, dtype=x.dtype), xp.asarray(hi, dtype=x.dtype)
    _check_histc_range(input.dtype, lo, hi, bins)
    # NaN and out-of-range values go to an extra bin that is dropped (no boolean mask: its
    # data-dependent size would make a GPU wait)
    valid = (flat >= left) & (flat <= right)
    pos = xp.where(valid, flat, left) - left
    pos *= xp.asarray(bins, dtype=x.dtype)
    pos /= right - left
    pos = pos.astype("int64")
    # x == hi goes into the last bin; a NaN position (0 / 0: min and max that round to one value
    # in the input's dtype) into bin 0, as torch's on x86
    xp.clip(pos, 0, bins - 1, out=pos)
    pos = xp.where(valid, pos, bins)
    counts = input._device.backend.bincount(pos, bins + 1)[:bins]
    result = _make(counts.astype(x.dtype), input._device, False, None)
    return result if out is None else _write(out, result)


def _check_histogram_out(input: Tensor, out, role: str):
    """torch's histogram kernels write out= only in the input's dtype (no cast)."""
    if isinstance(out, Tensor) and out.dtype is not input.dtype:
        where = " for dimension 0" if role == "bin_edges" else ""
        raise RuntimeError(
            f"torch.histogram: input tensor and {role} tensor should have the same dtype, but "
            f"got input {_ctype(input.dtype.name)} and {role} {_ctype(out.dtype.name)}{where}"
        )


def _check_histc_range(dt, lo: float, hi: float, bins: int):
    """Refuses a range whose bin arithmetic overflows the input's dtype (float16 past 65504):
    torch's then computes bin edges of NaN (nothing counted, as for [-6e4, 6e4]) or converts an
    infinite position to an integer, undefined in C++ (x86 puts the value in bin 0). Checked on
    the bounds, host scalars rounded as the kernel rounds, so no data is read back."""
    T = _dtype.numpy_dtype(dt).type
    top = T(T(T(hi) - T(lo)) * T(bins))  # the largest (x - min) * bins
    if abs(float(top)) <= _dtype.finfo(dt).max:  # False for inf
        return
    wider = "input.double()" if dt is _dtype.float32 else "input.float()"
    if dt is _dtype.float64:
        wider = "a narrower range"
    raise RuntimeError(
        f"torch.histc: {bins} bins over [{T(lo)}, {T(hi)}] overflow {dt} in torch's bin "
        f"arithmetic (its result is then undefined); histogram {wider} instead"
    )


def _short_name(dt) -> str:
    from minitorch._ops.inplace import _short

    return _short(dt)


_HISTOGRAM_FORMS = (
    "Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, tuple of Tensors "
    "out = None",
    "Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, bool "
    "density = False, tuple of Tensors out = None",
)

HISTOGRAM_METHOD_FORMS = tuple(
    f.replace("Tensor input, ", "").replace(", tuple of Tensors out = None", "")
    for f in _HISTOGRAM_FORMS
)


def _histogram_error(input, bins, extra, range, weight, density, out, unknown) -> TypeError:
    """torch's parser TypeError for histogram arguments none of its overloads take, as the call
    was written (an argument at its default counts only when passed by keyword). For error
    paths only."""
    from minitorch._call_site import call_arguments, passed_by_keyword
    from minitorch._ops._common import _called_as_method
    from minitorch._ops._parser_errors import overload_error

    def given(name, value, default):
        return value is not default or passed_by_keyword(name, "histogram")

    call = call_arguments("histogram")  # (histogram(x, 100, ...): bins's default by position)
    bins_by_position = call is not None and call[0] >= 2 - _called_as_method("histogram")
    named = [("input", input)]
    named += [("bins", bins)] if extra or bins_by_position or given("bins", bins, 100) else []
    named += [(f"#{i}", v) for i, v in enumerate(extra)]  # (never passed by keyword)
    for name, value, default in (
        ("range", range, None), ("weight", weight, None), ("density", density, False),
        ("out", out, None),
    ):  # fmt: skip
        named += [(name, value)] if given(name, value, default) else []
    named += list(unknown.items())
    return overload_error(
        "histogram", _HISTOGRAM_FORMS, HISTOGRAM_METHOD_FORMS, named, unknown=unknown
    )


def floats_head_ok(seq) -> bool:
    """Whether torch's parser matches seq to a `tuple of floats` argument (histogram's and
    histogramdd's range): a tuple or list whose first element (the only one it reads then) is a
    number or a NumPy scalar, not a tensor; check_float_elements reads the others later."""
    return isinstance(seq, (tuple, list)) and (not seq or is_number(seq[0]))


def check_float_elements(op: str, seq) -> None:
    """torch's parse-time TypeError for an element of a `tuple of floats` seq (None: none) that
    is no real number (a 0-d tensor is one)."""
    for i, edge in enumerate(seq or ()):
        if isinstance(edge, (str, bytes)) or not hasattr(type(edge), "__float__"):
            raise TypeError(
                f"{op}(): argument 'range' must be tuple of floats, but found element of "
                f"type {type_name(edge)} at pos {i + 1}"
            )


def histogram(input, bins=100, *extra, range=None, weight=None, density=False, out=None, **kwargs):
    """(hist, bin_edges) of input: bins equal-width bins over range (the data's by default) or
    explicit edges. Mirrors torch.histogram (the data's range needs a host sync on a GPU)."""
    explicit = isinstance(bins, Tensor)
    counted = not isinstance(bins, bool) and hasattr(type(bins), "__index__")
    if (
        extra  # (NumPy's histogram(a, bins, range) by position)
        or kwargs
        or not isinstance(input, Tensor)
        or not (explicit or counted)
        or (explicit and range is not None)
        or (range is not None and not floats_head_ok(range))
        or (weight is not None and not isinstance(weight, Tensor))
        or density.__class__ is not bool
        or (out is not None and not isinstance(out, (tuple, list)))
    ):
        args = (input, bins, extra, range, weight, density, out, kwargs)
        raise _histogram_error(*args)
    check_float_elements("histogram", range)
    if out is not None:  # (the tensor-bins overload has no range: out is one argument sooner)
        check_out_tuple(out, 2, "histogram", 4 if explicit else 5)
    if explicit:
        _check_edges(input, bins, 0)  # before the count, as torch
    count = bins.numel() - 1 if explicit else operator.index(bins)
    if count <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for dimension 0")
    # torch's histogram is its histogramdd of the flattened points, weight flattened alike
    w = None if weight is None else weight.reshape(-1)
    hist, (bin_edges,) = histogramdd_arrays(input.reshape(-1, 1), [bins], range, w, density)
    dev = input._device
    args = (input, weight, bins)  # (no_derivative skips an int bins)
    results = tuple(_make(a, dev, False, None) for a in (hist, bin_edges))
    result = _histogram_type(no_derivative(results, args, "histogram"))
    if out is not None:
        _check_histogram_out(input, out[0], "hist")
        _check_histogram_out(input, out[1], "bin_edges")
        _write(out[0], result[0])
        _write(out[1], result[1])
        return return_types.histogram_out((out[0], out[1]))
    return result


# NOTE [ Histogram bins ]
# torch.histogram, histogramdd and histc share one CPU kernel, and samples on a bin edge follow
# it, not NumPy: the edges of counted bins are linspace(min, max, bins + 1) in the input dtype
# (torch's linspace, which counts down from max in its second half: edge 6 of 10 over [0, 1] is
# 0.6, where min + 6 * width is 0.6000000000000001); the bin of a sample x in [e_0, e_n] is
# int((x - e_0) * bins / (e_n - e_0)) in the input dtype, then (histogram, histogramdd) moved by
# one if the edges beside it disagree, as an upper_bound over the 3 edges around it; explicit
# edges are searched by bisect (upper_bound), whatever their order; x == e_n goes to the last
# bin, anything else outside [e_0, e_n] (NaN too) is not counted. histc keeps the arithmetic bin
# with no correction.


def histogramdd_arrays(input: Tensor, bins, range, weight, density: bool):
    """torch.histogramdd's checks and kernel: (hist array, [edges array per dimension]) of the
    points input[..., :D]; bins holds one int or 1-D edges tensor per dimension, range is None
    or D (min, max) pairs flattened. See NOTE [ Histogram bins ]."""
    x = input._data
    xp = input._device.backend.xp
    dims = x.shape[-1]
    points = x.reshape(-1, dims)
    ctype = _ctype(x.dtype.name)
    # torch's order: explicit edges' checks, range's length, the kernel's dtype, the ranges,
    # the counted bins' edges (linspace), their counts, then the weight
    explicit = False
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            _check_edges(input, b, d)
            explicit = True
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(
            f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
            f"{2 * dims} elements, but got {len(range)}"
        )
    # torch reads the data's range in float32/float64 only; its counting kernel also takes
    # float16/bfloat16, which given edges or a range reach (bool fails at the edges' linspace,
    # after the range's checks; the integers at the count, after the weight's)
    half = x.dtype.name in ("float16", "bfloat16")
    late = range is not None and not explicit
    if x.dtype.name not in ("float32", "float64") and not (half and (explicit or late)):
        if not late:
            kernel = f"histogram_{input._device.type}" if explicit else "histogramdd"
            raise NotImplementedError(
                f"\"{kernel}\" not implemented for '{_dtype.scalar_name(input.dtype)}'"
            )
    else:
        late = False
    ranges = _histogram_ranges(points, bins, range, xp)
    n_edges = [b._data.shape[0] if isinstance(b, Tensor) else b + 1 for b in bins]
    if any(n < 0 for n in n_edges):  # linspace(lo, hi, bins + 1) of every dim comes first
        raise RuntimeError("number of steps must be non-negative")
    for d, n in enumerate(n_edges):  # every dim's edges, then every dim's bins
        _check_edge_count(n, d)
    for d, n in enumerate(n_edges):
        if n == 1:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {d}")
    if late and x.dtype.kind == "b":
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    w = None
    if weight is not None:
        w = weight._data
        if w.dtype != x.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                f"should have the same dtype, but got input({ctype}), and "
                f"weight({_ctype(w.dtype.name)})"
            )
    edges = []
    if w is not None and w.shape != x.shape[:-1]:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"{list(x.shape)} and weight with shape {list(w.shape)}"
        )
    if late:
        raise NotImplementedError(
            f'"histogram_{input._device.type}" not implemented for '
            f"'{_dtype.scalar_name(input.dtype)}'"
        )
    from minitorch._ranges import linspace

    for b, r in zip(bins, ranges, strict=True):
        if isinstance(b, Tensor):
            edges.append(b._data.copy())  # a new tensor, as torch's bin_edges
        else:
            e = linspace(r[0], r[1], b + 1, dtype=input.dtype, device=input._device)
            edges.append(e._data)
    return _histogram_kernel(input._device.backend, points, bins, edges, w, density), edges


def _check_edges(input: Tensor, edges: Tensor, d: int):
    """torch's checks of an explicit edges tensor for dimension d."""
    if edges._data.dtype != input._data.dtype:
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
            f"input with dtype {_ctype(input._data.dtype.name)} and bins for dimension {d} with "
            f"dtype {_ctype(edges._data.dtype.name)}"
        )
    if edges._data.ndim != 1:
        raise RuntimeError(
            "torch.histogramdd: bins tensor should have one dimension, but got "
            f"{edges._data.ndim} dimensions in the bins tensor for dimension {d}"
        )
    _check_edge_count(edges._data.shape[0], d)


def _check_edge_count(n: int, d: int):
    """torch's check that dimension d has edges (explicit, or a count of bins plus 1: bins=-1)."""
    if n == 0:
        raise RuntimeError(
            "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in "
            f"the bins tensor for dimension {d}"
        )


def _histogram_ranges(points, bins, range, xp):
    """Per dimension, the (min, max) the linear edges span: range's, else the data's (0, 1 when
    empty), widened by 0.5 each way when empty; None for explicit edges."""
    if range is not None:  # (its length checked by the caller)
        r = [float(v) for v in range]
    out = []
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            out.append(None)
            continue
        if range is not None:
            lo, hi = r[2 * d], r[2 * d + 1]
        elif points.shape[0]:
            col = points[:, d]
            lo, hi = float(col.min()), float(col.max())  # NaN propagates: not finite below
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is not finite"
            )
        if lo > hi:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                f"for dimension {d}"
            )
        out.append((lo - 0.5, hi + 0.5) if lo == hi else (lo, hi))
    return out


def _histogram_kernel(backend, points, bins, edges, w, density: bool):
    """The counts (weight sums) per bin of each point; see NOTE [ Histogram bins ]."""
    xp = backend.xp
    counts = [e.shape[0] - 1 for e in edges]
    total = math.prod(counts)
    valid = xp.ones(points.shape[0], dtype=bool)
    flat = xp.zeros(points.shape[0], dtype="int64")
    for d, (b, e, n) in enumerate(zip(bins, edges, counts, strict=True)):
        col = points[:, d]
        valid &= (col >= e[0]) & (col <= e[-1])
        if isinstance(b, Tensor):
            pos = bisect(xp, e, col, True) - 1
        else:
            x = xp.where(valid, col, e[0])  # out-of-range values would overflow the cast
            pos = ((x - e[0]) * xp.asarray(n, dtype=x.dtype) / (e[-1] - e[0])).astype("int64")
            xp.clip(pos, 0, n, out=pos)
            # the upper_bound of x among edges [pos - 1, pos + 2) that exist (sorted: a count of
            # those <= x); at pos 0 that is edges 0 and 1 only (a range collapsed in the input's
            # dtype has equal edges there)
            first = xp.maximum(pos - 1, 0)
            stop = xp.minimum(pos + 2, n + 1)
            found = xp.zeros_like(pos)
            for k in range(3):
                j = first + k
                found += (j < stop) & (e[xp.minimum(j, n)] <= x)
            pos = first + found - 1
        pos = xp.where(pos == n, n - 1, pos)  # the last bin includes its right edge
        flat = flat * n + pos
    flat = xp.where(valid, flat, total)  # uncounted points go to a slot that is dropped
    sums = backend.bincount(flat, total + 1, None if w is None else w.reshape(-1))
    hist = sums[:total].reshape(counts).astype(points.dtype)
    if density:
        hist = hist / hist.sum()  # an empty histogram is NaN, as torch's
        for d, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = counts[d]
            hist = hist / xp.diff(e).reshape(shape)
    return hist


_ISIN_FORMS = (
    (("elements", True), ("test_elements", True)),
    (("element", False), ("test_elements", True)),
    (("elements", True), ("test_element", False)),
)
_ISIN_SIGNATURES = tuple(
    f"{'Tensor' if t1 else 'Number'} {n1}, {'Tensor' if t2 else 'Number'} {n2}, *, bool "
    "assume_unique = False, bool invert = False, Tensor out = None"
    for (n1, t1), (n2, t2) in _ISIN_FORMS
)
_ISIN_OPTIONS = frozenset(("assume_unique", "invert", "out"))
_ISIN_MISSING = object()


def _isin_fits(v, tensor: bool) -> bool:
    """Whether v passes torch's parser as a Tensor (tensor) or as a Number (a 0-d tensor too)."""
    if isinstance(v, Tensor):
        return tensor or v.ndim == 0
    return not tensor and isinstance(v, numbers.Number)


def _isin_operands(args, kwargs):
    """(elements, test_elements) by torch's three overloads of isin: two tensors, a Number
    `element` with a tensor, a tensor with a Number `test_element` (the names tell them apart
    when given by keyword); else torch's TypeError listing them."""
    for form in _ISIN_FORMS:
        if len(args) > 2 or not _flags_ok(
            kwargs.get("assume_unique", False), kwargs.get("invert", False)
        ):  # (the flags: Python bools only, as torch's parser)
            break
        names = [n for n, _ in form]
        if any(k not in _ISIN_OPTIONS and k not in names[len(args) :] for k in kwargs):
            continue
        values = [*args, *(kwargs.get(n, _ISIN_MISSING) for n in names[len(args) :])]
        if all(_isin_fits(v, tensor) for v, (_, tensor) in zip(values, form, strict=True)):
            return values
    # torch's parser lists the keywords last, in the reverse of the order given
    labels = [_type_label(a) for a in args]
    keys = [f"{k}={_type_label(v)}" for k, v in reversed(kwargs.items())]
    got = ", ".join(labels + keys) if labels else "".join(k + ", " for k in keys)
    raise no_overload("isin", got, _ISIN_SIGNATURES)


def isin(*args, **kwargs):
    """Whether each element is in test_elements. Mirrors torch.isin: isin(elements,
    test_elements), isin(element=number, test_elements=tensor), isin(elements, test_element=
    number); keywords assume_unique, invert and out (a bool tensor, exactly)."""
    elements, test_elements = _isin_operands(args, kwargs)
    result = _isin(
        elements,
        test_elements,
        assume_unique=kwargs.get("assume_unique", False),
        invert=kwargs.get("invert", False),
    )
    out = kwargs.get("out")
    return result if out is None else write_out_exact(out, result)


def _isin(elements, test_elements, *, assume_unique: bool, invert: bool):
    for v in (elements, test_elements):  # each operand as given, before promotion (torch's)
        if (v._data.dtype.kind == "b") if isinstance(v, Tensor) else isinstance(v, bool):
            raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    a, b = _compared(elements, test_elements, "isin")
    xp = a._device.backend.xp
    res = xp.isin(a._data, b._data, assume_unique=assume_unique, invert=invert)
    return _make(xp.asarray(res), a._device, False, None)
