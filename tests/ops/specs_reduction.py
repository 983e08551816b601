"""Op-test rows for the reductions (minitorch/_ops: reduction, reduction_more, cumulative)."""

from __future__ import annotations

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec

# --- input domains (see OpSpec.domain) ---


def distinct(rng, shape, dtype):
    """Values with gaps of 0.25 (ints: 1) between any two: max/min/median without ties."""
    n = int(np.prod(shape, dtype=np.int64))
    perm = rng.permutation(n).reshape(shape) - n // 2
    if np.dtype(dtype).kind in "iu":
        return perm
    return perm * 0.25 + rng.uniform(-0.05, 0.05, size=shape)


def with_zeros(rng, shape, dtype):
    """Small integers as floats, about one in five a zero: products through zeros."""
    return rng.integers(-2, 3, size=shape).astype(float)


def positive(rng, shape, dtype):
    return rng.uniform(0.5, 1.5, size=shape)


# --- rows ---


def _torch(make):
    """The op built for torch; torch is imported only when a reference test calls it."""

    def op(*args, **kwargs):
        import torch

        return make(torch)(*args, **kwargs)

    return op


def row(name, make, ref, shapes, **kw) -> OpSpec:
    """A spec whose minitorch and torch ops are the same code: make(lib) -> callable."""
    return OpSpec(name=name, op=make(mt), ref=ref, shapes=shapes, torch_op=_torch(make), **kw)


S = (3, 4)
S3 = (2, 3, 4)
BIG, BIG3 = (160, 120), (20, 30, 40)  # above reduction._GEMV_MIN_SIZE elements
FLOATS = ("float32", "float64")
INTS = ("int64", "int32")
NOGRAD = {"grad": (), "gradgrad": False}


def _sum(a, axis=None, keepdims=False):
    dt = np.int64 if a.dtype.kind in "biu" else None
    return np.asarray(np.sum(a, axis=axis, keepdims=keepdims, dtype=dt))


def _mean(a, axis=None, keepdims=False):
    n = a.size if axis is None else np.prod([a.shape[d] for d in np.atleast_1d(axis)])
    s = np.sum(a, axis=axis, keepdims=keepdims)
    return s / n if n else s * np.nan


def _prod(a, axis=None, keepdims=False):
    dt = np.int64 if a.dtype.kind in "biu" else None
    return np.asarray(np.prod(a, axis=axis, keepdims=keepdims, dtype=dt))


def _max_dim(a, dim, keepdim=False):
    idx = np.expand_dims(np.argmax(a, axis=dim), dim)
    v = np.take_along_axis(a, idx, axis=dim)
    return (v, idx) if keepdim else (v.squeeze(dim), idx.squeeze(dim))


def _min_dim(a, dim, keepdim=False):
    idx = np.expand_dims(np.argmin(a, axis=dim), dim)
    v = np.take_along_axis(a, idx, axis=dim)
    return (v, idx) if keepdim else (v.squeeze(dim), idx.squeeze(dim))


def _lse(a, axis, keepdims=False):
    a = a.astype(np.float64)
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _argmax_keep(a):
    return np.argmax(a).reshape((1,) * a.ndim)


def _var(a, axis=None, ddof=1, keepdims=False):
    return np.asarray(np.var(a, axis=axis, ddof=ddof, keepdims=keepdims))


def _std(a, axis=None, ddof=1, keepdims=False):
    return np.asarray(np.std(a, axis=axis, ddof=ddof, keepdims=keepdims))


def _vnorm(a, p=2, axis=None, keepdims=False):
    x = np.abs(a)
    if p == np.inf:
        return np.max(x, axis=axis, keepdims=keepdims)
    if p == -np.inf:
        return np.min(x, axis=axis, keepdims=keepdims)
    if p == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(a.dtype)
    return np.sum(x**p, axis=axis, keepdims=keepdims) ** (1 / p)


def _cum_extreme(a, axis, kind):
    """numpy has no index-returning running max: a reference loop along axis."""
    a = np.moveaxis(a, axis, -1)
    values, indices = np.empty_like(a), np.empty(a.shape, dtype=np.int64)
    for idx in np.ndindex(a.shape[:-1]):
        best, at = None, 0
        for k, v in enumerate(a[idx]):
            if best is None or (v >= best if kind == "max" else v <= best):
                best, at = v, k
            values[idx + (k,)], indices[idx + (k,)] = best, at
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def _lcse(a, axis):
    return np.logaddexp.accumulate(a, axis=axis)


def _median_dim(a, axis, keepdim=False):
    order = np.argsort(a, axis=axis, kind="stable")
    idx = np.expand_dims(np.take(order, (a.shape[axis] - 1) // 2, axis=axis), axis)
    v = np.take_along_axis(a, idx, axis=axis)
    return (v, idx) if keepdim else (v.squeeze(axis), idx.squeeze(axis))


def _lower_median(a):
    return np.sort(a.ravel())[(a.size - 1) // 2]


def _mode_distinct(a, axis):
    """With distinct values every count is 1: the mode is the smallest value."""
    idx = np.argmin(a, axis=axis)
    return np.min(a, axis=axis), idx


def _quantile(a, q, axis=None, keepdims=False, method="linear"):
    return np.asarray(np.quantile(a, q, axis=axis, keepdims=keepdims, method=method))


def _diff(a, n=1, axis=-1, prepend=None):
    if prepend is None:
        return np.diff(a, n=n, axis=axis)
    return np.diff(a, n=n, axis=axis, prepend=prepend)


def _gather(a, idx, dim):
    return np.take_along_axis(a, idx, axis=dim)


_IDX = np.array([[0, 2, 2], [1, 0, 1]])


def _on(t):
    """The index array on t's device."""
    return t._device.backend.xp.asarray(_IDX)


def _take_along(T):
    from minitorch._ops.reduction_more import TakeAlong

    if T is mt:
        return lambda a: TakeAlong.apply(a, idx=_on(a), dim=1, out_shape=_IDX.shape)
    return lambda a: T.gather(a, 1, T.from_numpy(_IDX))


def _put_along(T):
    from minitorch._ops.reduction_more import PutAlong

    if T is mt:
        return lambda g: PutAlong.apply(g, idx=_on(g), dim=1, shape=(2, 4))
    return lambda g: T.zeros(2, 4, dtype=g.dtype).scatter_add(1, T.from_numpy(_IDX), g)


def _put_ref(g):
    out = np.zeros((2, 4), dtype=g.dtype)
    np.add.at(out, (np.arange(2)[:, None], _IDX), g)
    return out


SPECS = [
    # sum: all / dims / keepdim / dtype= / aliases, 0-d and empty, ints and bools to int64
    row("sum", lambda T: lambda a: T.sum(a), _sum, [S], dtypes=FLOATS + INTS + ("bool",)),
    row(
        "sum_dim", lambda T: lambda a: T.sum(a, 1), lambda a: _sum(a, 1), [S], dtypes=FLOATS + INTS
    ),
    row(
        "sum_dims_keepdim",
        lambda T: lambda a: a.sum((0, 2), keepdim=True),
        lambda a: _sum(a, (0, 2), True),
        [S3],
    ),
    row("sum_neg_dim", lambda T: lambda a: a.sum(-1), lambda a: _sum(a, -1), [S3]),
    # leading / trailing dims of a big contiguous float array: matrix-vector products (forward
    # only: the backward is the same Expand as above)
    row("sum_lead_dim", lambda T: lambda a: a.sum(0), lambda a: _sum(a, 0), [BIG], **NOGRAD),
    row("sum_lead_dims_keepdim", lambda T: lambda a: a.sum((0, 1), keepdim=True),
        lambda a: _sum(a, (0, 1), True), [BIG3], **NOGRAD),
    row("sum_trail_dims", lambda T: lambda a: a.sum((1, 2)), lambda a: _sum(a, (1, 2)), [BIG3],
        **NOGRAD),
    row("sum_lead_and_trail_dims", lambda T: lambda a: a.sum((0, 2, 3)),
        lambda a: _sum(a, (0, 2, 3)), [(8, 4, 24, 24)], **NOGRAD),
    row("sum_middle_dim", lambda T: lambda a: a.sum(1, keepdim=True),
        lambda a: _sum(a, 1, True), [BIG3], **NOGRAD),
    row("sum_lead_dim_strided", lambda T: lambda a: a.mT.sum(0), lambda a: _sum(a.T, 0), [BIG],
        **NOGRAD),
    row("sum_long_rows", lambda T: lambda a: a.sum(-1), lambda a: _sum(a, -1), [(2, 5000)],
        grad=(), gradgrad=False),
    row("sum_empty_dim_list", lambda T: lambda a: a.sum([]), _sum, [S]),
    row(
        "sum_dtype",
        lambda T: lambda a: a.sum(1, dtype=T.float64),
        lambda a: _sum(a, 1),
        [S],
        dtypes=("float32",),
    ),
    row(
        "sum_int_to_float",
        lambda T: lambda a: a.sum(dtype=T.float32),
        _sum,
        [S],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "sum_axis_alias",
        lambda T: lambda a: a.sum(axis=0, keepdims=True),
        lambda a: _sum(a, 0, True),
        [S],
    ),
    row("sum_0d", lambda T: lambda a: a.sum(), _sum, [()]),
    row("sum_0d_dim", lambda T: lambda a: a.sum(0), _sum, [()]),
    row("sum_empty", lambda T: lambda a: a.sum(), _sum, [(0, 3)]),
    row("sum_empty_dim", lambda T: lambda a: a.sum(0), lambda a: _sum(a, 0), [(0, 3)]),
    # mean
    row("mean", lambda T: lambda a: a.mean(), _mean, [S]),
    row("mean_dim", lambda T: lambda a: T.mean(a, 1), lambda a: _mean(a, 1), [S]),
    row("mean_lead_dims", lambda T: lambda a: a.mean((0, 1)), lambda a: _mean(a, (0, 1)),
        [BIG3], **NOGRAD),
    row(
        "mean_dims_keepdim",
        lambda T: lambda a: a.mean((0, -1), True),
        lambda a: _mean(a, (0, 2), True),
        [S3],
    ),
    row("mean_dtype", lambda T: lambda a: a.mean(dtype=T.float64), _mean, [S], dtypes=("float32",)),
    row("mean_0d", lambda T: lambda a: a.mean(), _mean, [()]),
    row("mean_empty_dim", lambda T: lambda a: a.mean(0), lambda a: _mean(a, 0), [(0, 3)]),
    # prod, zeros included
    row("prod", lambda T: lambda a: a.prod(), _prod, [S], dtypes=FLOATS + INTS),
    row("prod_dim", lambda T: lambda a: T.prod(a, 1), lambda a: _prod(a, 1), [S]),
    row(
        "prod_keepdim",
        lambda T: lambda a: a.prod(0, keepdim=True),
        lambda a: _prod(a, 0, True),
        [S3],
    ),
    row(
        "prod_zeros",
        lambda T: lambda a: a.prod(1),
        lambda a: _prod(a, 1),
        [(6, 3)],
        domain=with_zeros,
    ),
    row("prod_zeros_all", lambda T: lambda a: a.prod(), _prod, [(2, 2)], domain=with_zeros),
    row("prod_0d", lambda T: lambda a: a.prod(), _prod, [()]),
    row("prod_empty", lambda T: lambda a: a.prod(0), lambda a: _prod(a, 0), [(0, 3)]),
    # max / min: full (0-d), with dim (values, indices), binary
    row("max", lambda T: lambda a: a.max(), np.max, [S], domain=distinct, dtypes=FLOATS + INTS),
    row("min", lambda T: lambda a: T.min(a), np.min, [S], domain=distinct),
    row(
        "max_dim",
        lambda T: lambda a: T.max(a, 1),
        lambda a: _max_dim(a, 1),
        [S],
        domain=distinct,
        dtypes=FLOATS + INTS,
    ),
    row(
        "max_dim_keepdim",
        lambda T: lambda a: a.max(dim=0, keepdim=True),
        lambda a: _max_dim(a, 0, True),
        [S3],
        domain=distinct,
    ),
    row("max_dim_0d", lambda T: lambda a: a.max(0), lambda a: (a, np.asarray(0)), [()]),
    row("min_dim", lambda T: lambda a: a.min(-1), lambda a: _min_dim(a, -1), [S3], domain=distinct),
    row(
        "min_dim_keepdim",
        lambda T: lambda a: T.min(a, 1, True),
        lambda a: _min_dim(a, 1, True),
        [S],
        domain=distinct,
    ),
    row("max_binary", lambda T: lambda a, b: T.max(a, b), np.maximum, [S, (4,)], domain=distinct),
    row("min_binary", lambda T: lambda a, b: a.min(b), np.minimum, [S, S], domain=distinct),
    # amax / amin / aminmax
    row("amax", lambda T: lambda a: T.amax(a, 1), lambda a: np.max(a, 1), [S], domain=distinct),
    row("amax_all", lambda T: lambda a: a.amax(), np.max, [S3], domain=distinct),
    row(
        "amin_dims",
        lambda T: lambda a: T.amin(a, (0, 2), keepdim=True),
        lambda a: np.min(a, (0, 2), keepdims=True),
        [S3],
        domain=distinct,
    ),
    row(
        "aminmax",
        lambda T: lambda a: T.aminmax(a),
        lambda a: (np.min(a), np.max(a)),
        [S],
        domain=distinct,
    ),
    row(
        "aminmax_dim",
        lambda T: lambda a: T.aminmax(a, dim=1, keepdim=True),
        lambda a: (np.min(a, 1, keepdims=True), np.max(a, 1, keepdims=True)),
        [S],
        domain=distinct,
    ),
    # argmax / argmin (not differentiable)
    row(
        "argmax",
        lambda T: lambda a: a.argmax(),
        np.argmax,
        [S],
        domain=distinct,
        dtypes=FLOATS + INTS,
        **NOGRAD,
    ),
    row(
        "argmax_dim",
        lambda T: lambda a: T.argmax(a, 1),
        lambda a: np.argmax(a, 1),
        [S],
        domain=distinct,
        **NOGRAD,
    ),
    row(
        "argmax_keepdim",
        lambda T: lambda a: a.argmax(keepdim=True),
        _argmax_keep,
        [S],
        domain=distinct,
        **NOGRAD,
    ),
    row(
        "argmin_dim_keepdim",
        lambda T: lambda a: T.argmin(a, 0, True),
        lambda a: np.argmin(a, 0)[None],
        [S],
        domain=distinct,
        **NOGRAD,
    ),
    # logsumexp: stable for large values; integers to the default float
    row("logsumexp", lambda T: lambda a: T.logsumexp(a, 1), lambda a: _lse(a, 1), [S]),
    row(
        "logsumexp_dims_keepdim",
        lambda T: lambda a: a.logsumexp((0, 2), keepdim=True),
        lambda a: _lse(a, (0, 2), True),
        [S3],
    ),
    row(
        "logsumexp_large",
        lambda T: lambda a: a.logsumexp(-1),
        lambda a: _lse(a, -1),
        [S],
        domain=(500.0, 510.0),
    ),
    row("logsumexp_0d", lambda T: lambda a: a.logsumexp(0), lambda a: a, [()]),
    row(
        "logsumexp_int",
        lambda T: lambda a: a.logsumexp(0),
        lambda a: _lse(a, 0),
        [S],
        dtypes=INTS,
        **NOGRAD,
    ),
    # nansum / nanmean (nan-free inputs here: gradcheck cannot perturb a nan)
    row("nansum", lambda T: lambda a: T.nansum(a, 1), lambda a: np.nansum(a, 1), [S]),
    row("nanmean", lambda T: lambda a: a.nanmean(), np.nanmean, [S]),
    # std / var (correction, unbiased, dims, keepdim) and the (value, mean) pairs
    row("std", lambda T: lambda a: a.std(), _std, [S]),
    row(
        "std_dim_keepdim",
        lambda T: lambda a: T.std(a, 1, keepdim=True),
        lambda a: _std(a, 1, keepdims=True),
        [S],
    ),
    row(
        "std_correction0",
        lambda T: lambda a: a.std(dim=(0, 2), correction=0),
        lambda a: _std(a, (0, 2), 0),
        [S3],
    ),
    row("var", lambda T: lambda a: T.var(a), _var, [S]),
    row("var_unbiased_false", lambda T: lambda a: a.var(0, False), lambda a: _var(a, 0, 0), [S]),
    row(
        "var_correction2",
        lambda T: lambda a: a.var(-1, correction=2, keepdim=True),
        lambda a: _var(a, -1, 2, True),
        [S3],
    ),
    row(
        "var_mean", lambda T: lambda a: T.var_mean(a, 1), lambda a: (_var(a, 1), np.mean(a, 1)), [S]
    ),
    row(
        "std_mean",
        lambda T: lambda a: T.std_mean(a, correction=0),
        lambda a: (_std(a, None, 0), np.mean(a)),
        [S],
    ),
    # norms
    row("norm", lambda T: lambda a: a.norm(), _vnorm, [S]),
    row("norm_fro_dims", lambda T: lambda a: T.norm(a, "fro", dim=(0, 1)), _vnorm, [S]),
    row(
        "norm_p1_dim",
        lambda T: lambda a: T.norm(a, 1, 1),
        lambda a: _vnorm(a, 1, 1),
        [S],
        domain=distinct,
    ),
    row(
        "norm_p3_keepdim",
        lambda T: lambda a: a.norm(p=3, dim=0, keepdim=True),
        lambda a: _vnorm(a, 3, 0, True),
        [S],
    ),
    row(
        "vector_norm",
        lambda T: lambda a: T.linalg.vector_norm(a, dim=(0, 2)),
        lambda a: _vnorm(a, 2, (0, 2)),
        [S3],
    ),
    row(
        "vector_norm_inf",
        lambda T: lambda a: T.linalg.vector_norm(a, float("inf"), 1),
        lambda a: _vnorm(a, np.inf, 1),
        [S],
        domain=distinct,
    ),
    row(
        "vector_norm_neg_inf",
        lambda T: lambda a: T.linalg.vector_norm(a, float("-inf")),
        lambda a: _vnorm(a, -np.inf),
        [S],
        domain=distinct,
    ),
    row(
        "vector_norm_half",
        lambda T: lambda a: T.linalg.vector_norm(a, 0.5, -1),
        lambda a: _vnorm(a, 0.5, -1),
        [S],
        domain=distinct,
    ),
    row(
        "vector_norm_0",
        lambda T: lambda a: T.linalg.vector_norm(a, 0),
        lambda a: _vnorm(a, 0),
        [S],
        domain=with_zeros,
        **NOGRAD,
    ),
    row(
        "matrix_norm_fro",
        lambda T: lambda a: T.linalg.matrix_norm(a),
        lambda a: _vnorm(a, 2, (-2, -1)),
        [S3],
    ),
    row(
        "matrix_norm_1",
        lambda T: lambda a: T.linalg.matrix_norm(a, 1),
        lambda a: np.linalg.norm(a, 1, axis=(-2, -1)),
        [S3],
        domain=distinct,
    ),
    row(
        "matrix_norm_inf_keepdim",
        lambda T: lambda a: T.linalg.matrix_norm(a, -float("inf"), keepdim=True),
        lambda a: np.linalg.norm(a, -np.inf, axis=(-2, -1), keepdims=True),
        [S3],
        domain=distinct,
    ),
    row("linalg_norm", lambda T: lambda a: T.linalg.norm(a), lambda a: _vnorm(a), [S3]),
    # cumulative ops
    row(
        "cumsum",
        lambda T: lambda a: a.cumsum(1),
        lambda a: np.cumsum(a, 1),
        [S],
        dtypes=FLOATS + INTS,
    ),
    row("cumsum_dim0_3d", lambda T: lambda a: T.cumsum(a, dim=0), lambda a: np.cumsum(a, 0), [S3]),
    row(
        "cumsum_bool",
        lambda T: lambda a: a.cumsum(0),
        lambda a: np.cumsum(a, 0),
        [(5,)],
        dtypes=("bool",),
        **NOGRAD,
    ),
    row("cumsum_0d", lambda T: lambda a: a.cumsum(0), lambda a: a, [()]),
    row("cumsum_empty", lambda T: lambda a: a.cumsum(0), lambda a: np.cumsum(a, 0), [(0, 3)]),
    row(
        "cumprod",
        lambda T: lambda a: T.cumprod(a, 1),
        lambda a: np.cumprod(a, 1),
        [S],
        dtypes=FLOATS + INTS,
    ),
    row(
        "cumprod_zeros",
        lambda T: lambda a: a.cumprod(0),
        lambda a: np.cumprod(a, 0),
        [(6, 2)],
        domain=with_zeros,
    ),
    row(
        "cummax",
        lambda T: lambda a: a.cummax(1),
        lambda a: _cum_extreme(a, 1, "max"),
        [S],
        domain=distinct,
        dtypes=FLOATS + INTS,
    ),
    row(
        "cummin",
        lambda T: lambda a: T.cummin(a, 0),
        lambda a: _cum_extreme(a, 0, "min"),
        [(5, 3)],
        domain=distinct,
    ),
    row(
        "cummax_ties",
        lambda T: lambda a: a.cummax(0),
        lambda a: _cum_extreme(a, 0, "max"),
        [(8,)],
        domain=(-2, 2),
        dtypes=INTS,
        **NOGRAD,
    ),
    row("logcumsumexp", lambda T: lambda a: a.logcumsumexp(1), lambda a: _lcse(a, 1), [S]),
    row(
        "logcumsumexp_wide",
        lambda T: lambda a: T.logcumsumexp(a, 0),
        lambda a: _lcse(a, 0),
        [(5,)],
        domain=(-300.0, 300.0),
        gradgrad=False,
    ),
    # boolean reductions
    row(
        "all",
        lambda T: lambda a: a.all(),
        np.all,
        [S],
        dtypes=("bool", "float32", "int64"),
        **NOGRAD,
    ),
    row(
        "any_dim",
        lambda T: lambda a: T.any(a, 1),
        lambda a: np.any(a, 1),
        [S],
        dtypes=("bool", "float32", "int64"),
        domain=(0, 1),
        **NOGRAD,
    ),
    row(
        "all_dims_keepdim",
        lambda T: lambda a: a.all(dim=(0, 2), keepdim=True),
        lambda a: np.all(a, (0, 2), keepdims=True),
        [S3],
        dtypes=("bool",),
        **NOGRAD,
    ),
    row(
        "count_nonzero",
        lambda T: lambda a: T.count_nonzero(a, 0),
        lambda a: np.count_nonzero(a, 0),
        [S],
        domain=with_zeros,
        **NOGRAD,
    ),
    row(
        "count_nonzero_all",
        lambda T: lambda a: a.count_nonzero(),
        lambda a: np.asarray(np.count_nonzero(a)),
        [S],
        domain=with_zeros,
        **NOGRAD,
    ),
    # order statistics: median, nanmedian, mode, quantiles
    row(
        "median",
        lambda T: lambda a: a.median(),
        _lower_median,
        [S],
        domain=distinct,
        dtypes=FLOATS + INTS,
    ),
    row(
        "median_dim",
        lambda T: lambda a: T.median(a, 1),
        lambda a: _median_dim(a, 1),
        [(3, 5)],
        domain=distinct,
    ),
    row(
        "median_dim_even_keepdim",
        lambda T: lambda a: a.median(0, keepdim=True),
        lambda a: _median_dim(a, 0, True),
        [S],
        domain=distinct,
    ),
    row("nanmedian", lambda T: lambda a: a.nanmedian(), _lower_median, [S], domain=distinct),
    row(
        "nanmedian_dim",
        lambda T: lambda a: T.nanmedian(a, -1),
        lambda a: _median_dim(a, -1),
        [S],
        domain=distinct,
    ),
    row(
        "mode", lambda T: lambda a: a.mode(), lambda a: _mode_distinct(a, -1), [S], domain=distinct
    ),
    row(
        "quantile",
        lambda T: lambda a: T.quantile(a, 0.3, dim=1),
        lambda a: _quantile(a, 0.3, 1),
        [(3, 6)],
        domain=distinct,
    ),
    row(
        "quantile_all_keepdim",
        lambda T: lambda a: a.quantile(0.75, keepdim=True),
        lambda a: _quantile(a, 0.75, keepdims=True),
        [S],
        domain=distinct,
    ),
    row(
        "quantile_q_tensor",
        lambda T: lambda a, q: T.quantile(a, q, dim=0),
        lambda a, q: _quantile(a, q, 0),
        [S, (3,)],
        domain=[distinct, (0.0, 1.0)],
        grad=(0,),
    ),
    row(
        "quantile_lower",
        lambda T: lambda a: T.quantile(a, 0.4, 1, interpolation="lower"),
        lambda a: _quantile(a, 0.4, 1, method="lower"),
        [(3, 6)],
        domain=distinct,
    ),
    row(
        "quantile_higher",
        lambda T: lambda a: T.quantile(a, 0.4, 1, interpolation="higher"),
        lambda a: _quantile(a, 0.4, 1, method="higher"),
        [(3, 6)],
        domain=distinct,
    ),
    row(
        "quantile_midpoint",
        lambda T: lambda a: T.quantile(a, 0.4, 1, interpolation="midpoint"),
        lambda a: _quantile(a, 0.4, 1, method="midpoint"),
        [(3, 6)],
        domain=distinct,
    ),
    row(
        "quantile_nearest",
        lambda T: lambda a: T.quantile(a, 0.7, 1, interpolation="nearest"),
        lambda a: _quantile(a, 0.7, 1, method="nearest"),
        [(3, 6)],
        domain=distinct,
    ),
    row(
        "nanquantile",
        lambda T: lambda a: T.nanquantile(a, 0.4, dim=0),
        lambda a: _quantile(a, 0.4, 0),
        [S],
        domain=distinct,
    ),
    # diff
    row("diff", lambda T: lambda a: a.diff(), np.diff, [S]),
    row(
        "diff_n2_dim0",
        lambda T: lambda a: T.diff(a, n=2, dim=0),
        lambda a: _diff(a, 2, 0),
        [(4, 3)],
    ),
    row(
        "diff_prepend",
        lambda T: lambda a, b: T.diff(a, dim=0, prepend=b),
        lambda a, b: _diff(a, 1, 0, b),
        [S, (2, 4)],
    ),
    row(
        "diff_bool",
        lambda T: lambda a: a.diff(),
        lambda a: a[1:] != a[:-1],
        [(6,)],
        dtypes=("bool",),
        **NOGRAD,
    ),
    # the gather / scatter-add pair behind the order statistics' gradients
    row("take_along", _take_along, lambda a: _gather(a, _IDX, 1), [(2, 4)]),
    row("put_along", _put_along, _put_ref, [(2, 3)]),
    # segment_reduce (minitorch/_ops/segment.py; torch values in tests/test_s25_segment.py)
    OpSpec(
        name="segment_reduce_prod_axis1",
        op=lambda a: mt.segment_reduce(
            a, "prod", lengths=mt.tensor([[1, 3], [2, 2]], device=a.device), axis=1
        ),
        ref=lambda a: np.stack(
            [np.stack([a[0, :1].prod(0), a[0, 1:].prod(0)]),
             np.stack([a[1, :2].prod(0), a[1, 2:].prod(0)])]
        ),  # fmt: skip
        shapes=[(2, 4, 3)],
    ),
]
