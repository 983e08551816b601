"""Sorting and counting: sort, topk, kthvalue, unique, searchsorted, bincount, histograms."""

from __future__ import annotations

import math

from minitorch import _dtype, return_types
from minitorch._ops._common import is_floating, quiet_extreme, wrap_dim
from minitorch._ops._index_key import IndexPlan
from minitorch._ops.indexing import Index
from minitorch._ops.inplace import with_out
from minitorch._ops.reduction_more import stable_argsort
from minitorch._ops.scatter_gather import along_dim_plan
from minitorch._tensor import Tensor, _make

__all__ = [
    "sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_consecutive",
    "searchsorted", "bucketize", "bincount", "histc", "histogram", "isin",
]  # fmt: skip

_histogram_type = return_types.histogram


class SortValues(Index):
    """values = x gathered at the sorting permutation;  grad_x = grad scattered back"""

    _node_name = "SortBackward0"


class TopkValues(Index):
    """values = x gathered at the top-k indices;  grad_x = grad scattered back (zeros elsewhere)"""

    _node_name = "TopkBackward0"


class KthvalueValues(Index):
    """value = x at the k-th smallest index;  grad_x = grad at that index, zeros elsewhere"""

    _node_name = "KthvalueBackward0"


def _stable_argsort(x, dim: int, descending: bool, xp):
    """argsort along dim, ties in input order (descending too); NaN sorts as the largest."""
    if not descending:
        return stable_argsort(xp, x, dim)
    # Sorting the reversed array stably and reversing the result keeps ties in input order.
    n = x.shape[dim]
    rev = xp.flip(x, axis=dim)
    idx = xp.flip(stable_argsort(xp, rev, dim), axis=dim)
    return (n - 1) - idx


def _int64(t: Tensor, arr) -> Tensor:
    return _make(arr.astype("int64", copy=False), t._device, False, None)


def _sorted_parts(input: Tensor, dim, descending: bool, op: str):
    x = input._data
    xp = input._device.backend.xp
    if x.ndim == 0:
        wrap_dim(dim, 0, op)
        return 0, xp.zeros((), dtype="int64")
    dim = wrap_dim(dim, x.ndim, op)
    return dim, _stable_argsort(x, dim, descending, xp)


def _gather(cls, input: Tensor, dim: int, idx) -> Tensor:
    if input._data.ndim == 0:
        return cls.apply(input, plan=_scalar_plan())
    xp = input._device.backend.xp
    return cls.apply(input, plan=along_dim_plan(idx, dim, input._data.shape, xp))


def _scalar_plan():
    return IndexPlan(None, (Ellipsis,), None, "Alias", (), (), True)


@with_out
def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False):
    """(values, indices) sorted along dim; always stable. Mirrors torch.sort."""
    dim, idx = _sorted_parts(input, dim, descending, "sort")
    values = _gather(SortValues, input, dim, idx)
    return return_types.sort((values, _int64(input, idx)))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False):
    """The indices that sort input along dim; always stable. Mirrors torch.argsort."""
    _, idx = _sorted_parts(input, dim, descending, "argsort")
    return _int64(input, idx)


@with_out
def msort(input: Tensor) -> Tensor:
    """input sorted along dim 0. Mirrors torch.msort."""
    return sort(input, 0).values


def _take_first(idx, dim: int, k: int):
    return idx[(slice(None),) * dim + (slice(0, k),)]


@with_out
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The k largest (or smallest) values along dim and their indices, sorted. Mirrors
    torch.topk (ties keep input order)."""
    x = input._data
    if x.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    n = x.shape[wrap_dim(dim, x.ndim, "topk")] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    dim, idx = _sorted_parts(input, dim, largest, "topk")
    if x.ndim:
        idx = _take_first(idx, dim, k)
    values = _gather(TopkValues, input, dim, idx)
    return return_types.topk((values, _int64(input, idx)))


@with_out
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """The k-th smallest value along dim and its index. Mirrors torch.kthvalue."""
    x = input._data
    if x.dtype.kind == "b":
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    d = wrap_dim(dim, x.ndim, "kthvalue")
    n = x.shape[d] if x.ndim else 1
    if not 1 <= k <= n:
        if n == 0:
            raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    dim, idx = _sorted_parts(input, dim, False, "kthvalue")
    if not x.ndim:
        return return_types.kthvalue((_gather(KthvalueValues, input, 0, idx), _int64(input, idx)))
    idx = idx[(slice(None),) * dim + (slice(k - 1, k),)]
    if keepdim:
        return return_types.kthvalue((_gather(KthvalueValues, input, dim, idx), _int64(input, idx)))
    idx = idx.reshape(idx.shape[:dim] + idx.shape[dim + 1 :])
    xp = input._device.backend.xp
    key = []
    r = len(idx.shape)
    for d, n in enumerate(x.shape):
        if d == dim:
            key.append(idx)
        else:
            pos = d if d < dim else d - 1  # the dim's place in the result
            key.append(xp.arange(n).reshape((n,) + (1,) * (r - 1 - pos)))
    plan = IndexPlan(None, tuple(key), None, "Alias", x.shape, idx.shape, True)
    return return_types.kthvalue((KthvalueValues.apply(input, plan=plan), _int64(input, idx)))


# --- unique ---


def _finish_unique(input, values, inverse, counts, return_inverse, return_counts):
    dev = input._device
    out = [_make(values, dev, False, None)]
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

    Differences from torch: the result is not differentiable (torch's backward raises anyway).
    """
    xp = input._device.backend.xp
    x = input._data
    dt = x.dtype
    if dt.name == "bfloat16":
        x = x.astype("float32")  # exact; NumPy's bfloat16 sort misplaces NaN
    if dim is None:
        # torch keeps every NaN apart ([1, nan, nan]); NumPy merges them unless told not to
        kw = {"equal_nan": False} if input._device.type == "cpu" else {}
        values, inverse, counts = xp.unique(
            x.reshape(-1), return_inverse=True, return_counts=True, **kw
        )
        inverse = inverse.reshape(x.shape)
    else:
        dim = wrap_dim(dim, x.ndim, "unique")
        moved = xp.moveaxis(x, dim, 0)
        values, inverse, counts = xp.unique(moved, axis=0, return_inverse=True, return_counts=True)
        values = xp.moveaxis(values, 0, dim)
        inverse = inverse.reshape(-1)
    values = values.astype(dt, copy=False)
    return _finish_unique(input, values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """Collapses runs of equal consecutive elements (or slices along dim). Mirrors
    torch.unique_consecutive."""
    xp = input._device.backend.xp
    x = input._data
    if dim is None:
        flat = x.reshape(-1)
        changed = flat[1:] != flat[:-1]
        shape = x.shape
    else:
        dim = wrap_dim(dim, x.ndim, "unique_consecutive")
        flat = xp.moveaxis(x, dim, 0)
        diff = flat[1:] != flat[:-1]
        changed = diff.reshape(diff.shape[0], -1).any(axis=1)
        shape = (flat.shape[0],)
    n = flat.shape[0]
    starts = xp.concatenate([xp.ones(min(n, 1), dtype=bool), changed])
    first = xp.nonzero(starts)[0]
    values = flat[first]
    if dim is not None:
        values = xp.moveaxis(values, 0, dim)
    inverse = (xp.cumsum(starts) - 1).reshape(shape)
    counts = xp.diff(xp.concatenate([first, xp.asarray([n], dtype=first.dtype)]))
    return _finish_unique(input, values, inverse, counts, return_inverse, return_counts)


# --- searching and counting ---


def _as_tensor(value, ref: Tensor) -> Tensor:
    if isinstance(value, Tensor):
        return value
    xp = ref._device.backend.xp
    return _make(xp.asarray(value), ref._device, False, None)


def searchsorted(
    sorted_sequence: Tensor,
    input,
    *,
    out_int32: bool = False,
    right: bool = False,
    side=None,
    sorter=None,
    out=None,
) -> Tensor:
    """Insertion points of input into the sorted innermost dim of sorted_sequence. Mirrors
    torch.searchsorted."""
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
    values = _as_tensor(input, sorted_sequence)
    xp = sorted_sequence._device.backend.xp
    seq = sorted_sequence._data
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter._data, axis=-1)
    v = values._data
    dtype = "int32" if out_int32 else "int64"
    if seq.ndim == 1:
        res = xp.searchsorted(seq, v, side="right" if right else "left")
    else:
        if seq.shape[:-1] != v.shape[:-1]:
            raise RuntimeError(
                f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                f"dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(v.shape)}"
            )
        # Rows differ: count, per value, the row entries before it (O(n*m), no per-row loop).
        before = (
            seq[..., None, :] <= v[..., :, None] if right else seq[..., None, :] < v[..., :, None]
        )
        res = before.sum(axis=-1)
    result = _make(xp.asarray(res).astype(dtype), sorted_sequence._device, False, None)
    return result if out is None else _write(out, result)


def _write(out, result):
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def bucketize(
    input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None
) -> Tensor:
    """The bucket of each input value among 1-D boundaries. Mirrors torch.bucketize."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each value of a 1-D non-negative integer tensor (weighted sums with weights).
    Mirrors torch.bincount (the output size needs a host sync on a GPU)."""
    x = input._data
    xp = input._device.backend.xp
    if x.dtype.kind not in "iu":  # torch's kernel is for integers only
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{_dtype.scalar_name(input.dtype)}'"
        )
    if x.ndim != 1 or (x.size and bool(x.min() < 0)):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        res = xp.bincount(x, minlength=minlength).astype("int64")
    else:
        w = weights._data
        if w.ndim != 1 or w.shape[0] != x.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
        dt = w.dtype if w.dtype == "float32" else "float64"  # torch: float stays, else double
        res = xp.bincount(x, weights=w, minlength=minlength).astype(dt)
    return _make(res, input._device, False, None)


def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """A histogram of bins equal-width bins over [min, max] (the data's range when min == max).
    Mirrors torch.histc."""
    x = input._data
    xp = input._device.backend.xp
    if not is_floating(x.dtype):
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{_short_name(input.dtype)}'"
        )
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(quiet_extreme(xp, x, x.min)), float(quiet_extreme(xp, x, x.max))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    # torch finds a value's bin as int((x - lo) * bins / (hi - lo)), each step rounded to the
    # input's dtype (bfloat16 and float16 too), with lo and hi rounded to it first; it does not
    # correct the result against the bin edges as NumPy's histogram does. Same here, so values
    # near an edge land in torch's bin.
    flat = x.reshape(-1)
    left, right = xp.asarray(lo, dtype=x.dtype), xp.asarray(hi, dtype=x.dtype)
    # NaN and out-of-range values go to an extra bin that is dropped (no boolean mask: its
    # data-dependent size would make a GPU wait)
    valid = (flat >= left) & (flat <= right)
    pos = xp.where(valid, flat, left) - left
    pos *= xp.asarray(bins, dtype=x.dtype)
    pos /= right - left
    pos = pos.astype("int64")
    xp.minimum(pos, bins - 1, out=pos)  # x == hi goes into the last bin
    pos = xp.where(valid, pos, bins)
    counts = xp.bincount(pos, minlength=bins + 1)[:bins]
    result = _make(counts.astype(x.dtype), input._device, False, None)
    return result if out is None else _write(out, result)


def _short_name(dt) -> str:
    from minitorch._ops.inplace import _short

    return _short(dt)


def histogram(input: Tensor, bins=100, *, range=None, weight=None, density: bool = False, out=None):
    """(hist, bin_edges) of input: bins equal-width bins over range (the data's by default) or
    explicit edges. Mirrors torch.histogram."""
    x = input._data
    xp = input._device.backend.xp
    edges = bins._data if isinstance(bins, Tensor) else bins
    rng = None
    if range is not None:
        rng = (float(range[0]), float(range[1]))
    elif not isinstance(bins, Tensor):
        lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        rng = (lo, hi) if lo != hi else (lo - 0.5, hi + 0.5) if x.size else (0.0, 1.0)
    w = None if weight is None else weight._data.reshape(-1)
    hist, bin_edges = xp.histogram(x.reshape(-1), bins=edges, range=rng, weights=w, density=density)
    dev = input._device
    result = _histogram_type(
        (
            _make(hist.astype(x.dtype), dev, False, None),
            _make(bin_edges.astype(x.dtype), dev, False, None),
        )
    )
    if out is not None:
        _write(out[0], result[0])
        _write(out[1], result[1])
        return _histogram_type((out[0], out[1]))
    return result


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """Whether each element is in test_elements. Mirrors torch.isin."""
    ref = elements if isinstance(elements, Tensor) else test_elements
    a = _as_tensor(elements, ref)._data
    b = _as_tensor(test_elements, ref)._data
    xp = ref._device.backend.xp
    res = xp.isin(a, b, assume_unique=assume_unique, invert=invert)
    return _make(xp.asarray(res), ref._device, False, None)
