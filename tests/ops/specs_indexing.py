"""Op-test rows for indexing and selection: x[key], x[key] = v, index_put and friends."""

from __future__ import annotations

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec


def _set(key):
    """x[key] = v on a clone of x (a differentiable function of both x and v)."""

    def op(x, v):
        y = x.clone()
        y[key] = v
        return y

    def ref(a, v):
        b = a.copy()
        b[key] = v
        return b

    return op, ref


def _torch_set(key):
    def op(x, v):
        y = x.clone()
        y[key] = v
        return y

    return op


def _row(name, key, shape, ref=True, **kw):
    """A getitem row: the NumPy reference is a[key] unless the key mixes ints and index arrays
    (NumPy broadcasts the ints with the arrays; torch selects first)."""
    return OpSpec(
        name,
        lambda x: x[key],
        (lambda a: a[key]) if ref else None,
        [shape],
        torch_op=lambda x: x[key],
        **kw,
    )


SPECS = [
    # basic indexing (views)
    _row("getitem_int", 1, (3, 4)),
    _row("getitem_neg_int", -1, (3, 4)),
    _row("getitem_ints_to_0d", (1, 2), (3, 4)),
    _row("getitem_slice", slice(1, 3), (4, 3)),
    _row("getitem_slice_step", (slice(None), slice(0, None, 2)), (3, 5)),
    _row("getitem_slice_clamped", slice(-10, 10), (3, 2)),
    _row("getitem_none_ellipsis", (None, Ellipsis, 0), (2, 3, 4)),
    _row("getitem_empty_slice", slice(2, 1), (3, 2)),
    _row("getitem_0d_ellipsis", Ellipsis, ()),
    _row("getitem_0d_none", None, ()),
    _row("getitem_empty_tensor", (slice(None), 0), (0, 3)),
    # advanced indexing (copies; duplicates accumulate in backward)
    _row("getitem_list_dups", [0, 2, 0, -1], (3, 4)),
    _row("getitem_nested_list", ([[0, 1], [2, 2]],), (3, 2)),
    _row("getitem_two_arrays_adjacent", (slice(None), [0, 1, 1], [2, 0, 2]), (2, 3, 4)),
    _row("getitem_two_arrays_separated", ([0, 1, 1], slice(None), [2, 0, 2]), (2, 3, 4)),
    _row("getitem_arrays_broadcast", ([[0], [1]], [0, 2, 2]), (2, 3)),
    _row("getitem_array_none", ([0, 1], None, [1, 1]), (2, 3)),
    _row("getitem_bool_list", [True, False, True], (3, 2)),
    _row("getitem_bool_true", True, (2, 3)),
    _row("getitem_bool_false", False, (2, 3)),
    _row("getitem_int_then_array", (0, slice(None), [0, 0, 1]), (2, 3, 4), ref=False),
    _row("getitem_array_then_int", ([1, 0, 1], 2), (2, 3, 4)),
    _row("getitem_empty_list", [], (3, 2)),
    OpSpec(
        "getitem_mask_tensor",
        lambda x: x[x > 0],
        lambda a: a[a > 0],
        [(3, 4)],
        domain=(-2.0, 2.0),
        torch_op=lambda x: x[x > 0],
    ),
    # x[key] = v
    OpSpec("setitem_int", *_set(1), [(3, 4), (4,)], torch_op=_torch_set(1)),
    OpSpec(
        "setitem_slice_broadcast",
        *_set(slice(0, 2)),
        [(3, 4), (1, 4)],
        torch_op=_torch_set(slice(0, 2)),
    ),
    OpSpec(
        "setitem_scalar_value",
        *_set((slice(None), 1)),
        [(3, 4), ()],
        torch_op=_torch_set((slice(None), 1)),
    ),
    OpSpec("setitem_list", *_set([2, 0]), [(3, 4), (2, 4)], torch_op=_torch_set([2, 0])),
    OpSpec(
        "setitem_arrays",
        *_set(([0, 2], [1, 3])),
        [(3, 4), (2,)],
        torch_op=_torch_set(([0, 2], [1, 3])),
    ),
    OpSpec(
        "setitem_mask",
        *_set([True, False, True]),
        [(3, 4), (4,)],
        torch_op=_torch_set([True, False, True]),
    ),
    OpSpec("setitem_leading_ones", _set(0)[0], None, [(3, 4), (1, 1, 4)], torch_op=_torch_set(0)),
    # index_put
    OpSpec(
        "index_put_accumulate_dups",
        lambda x, v: mt.index_put(x, (mt.tensor([0, 2, 0], device=x.device),), v, True),
        lambda a, v: _np_add_at(a, ([0, 2, 0],), v),
        [(3, 4), (3, 4)],
        torch_op=lambda x, v: x.index_put((_ti(x, [0, 2, 0]),), v, True),
    ),
    OpSpec(
        "index_put_two_indices",
        lambda x, v: mt.index_put(
            x, (mt.tensor([0, 2], device=x.device), mt.tensor([1, 1], device=x.device)), v
        ),
        lambda a, v: _np_set(a, ([0, 2], [1, 1]), v),
        [(3, 4), (2,)],
        torch_op=lambda x, v: x.index_put((_ti(x, [0, 2]), _ti(x, [1, 1])), v),
    ),
]


def _ti(x, values):
    import torch

    return torch.tensor(values, device=x.device)


def _np_set(a, key, v):
    b = a.copy()
    b[key] = v
    return b


def _np_add_at(a, key, v):
    b = a.copy()
    np.add.at(b, key, v)
    return b


# --- gather / scatter / selection / sorting ---


def _i(x, values):
    """An int64 index tensor on x's device (minitorch or torch alike)."""
    mod = mt if isinstance(x, mt.Tensor) else __import__("torch")
    return mod.tensor(np.asarray(values, dtype=np.int64), device=x.device)


def _m(x, values):
    """A bool mask on x's device."""
    mod = mt if isinstance(x, mt.Tensor) else __import__("torch")
    return mod.tensor(np.asarray(values, dtype=bool), device=x.device)


def _along_key(idx, axis):
    """NumPy's advanced key addressing idx along axis (gather/scatter semantics)."""
    idx = np.asarray(idx)
    n = idx.ndim
    return tuple(
        idx if d == axis else np.arange(idx.shape[d]).reshape((-1,) + (1,) * (n - 1 - d))
        for d in range(n)
    )


def _scatter_ufunc(ufunc, a, idx, axis, src, include_self=True, identity=None):
    b = a.copy()
    key = _along_key(idx, axis)
    src = src[tuple(slice(0, n) for n in np.shape(idx))]
    if not include_self:
        b[key] = identity
    ufunc.at(b, key, src)
    return b


def _scatter_mean(a, idx, axis, src, include_self=True):
    total = _scatter_ufunc(np.add, a, idx, axis, src, include_self, 0)
    count = np.full(a.shape, 1.0 if include_self else 0.0)
    np.add.at(count, _along_key(idx, axis), 1.0)
    return total / np.maximum(count, 1)


def _kth(a, k, axis):
    idx = np.take(np.argsort(a, axis=axis, kind="stable"), [k - 1], axis=axis)
    return (np.take_along_axis(a, idx, axis).squeeze(axis), idx.squeeze(axis))


G = [[0, 0, 3, 1], [2, 1, 1, 0], [3, 3, 0, 2]]  # gather/scatter_add index (duplicates)
S = [[0, 2], [3, 1], [1, 0]]  # scatter index: unique per row (a scatter with duplicates has no
# well-defined gradient)
MASK = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
R = [0, 0, 2, 2, 2]  # scatter_reduce groups

SPECS += [
    OpSpec(
        "gather",
        lambda x: mt.gather(x, 1, _i(x, G)),
        lambda a: np.take_along_axis(a, np.array(G), 1),
        [(3, 4)],
        torch_op=lambda x: x.gather(1, _i(x, G)),
    ),
    OpSpec(
        "gather_smaller_index",
        lambda x: x.gather(0, _i(x, [[2, 0]])),
        lambda a: a[_along_key([[2, 0]], 0)],
        [(3, 4)],
        torch_op=lambda x: x.gather(0, _i(x, [[2, 0]])),
    ),
    OpSpec(
        "take_along_dim",
        lambda x: mt.take_along_dim(x, _i(x, [[1, 0, 1]]), 0),
        lambda a: np.take_along_axis(a, np.array([[1, 0, 1]]), 0),
        [(2, 3)],
        torch_op=lambda x: __import__("torch").take_along_dim(x, _i(x, [[1, 0, 1]]), 0),
    ),
    OpSpec(
        "scatter",
        lambda x, s: x.scatter(1, _i(x, S), s),
        lambda a, s: _np_set(a, _along_key(S, 1), s),
        [(3, 4), (3, 2)],
        torch_op=lambda x, s: x.scatter(1, _i(x, S), s),
    ),
    OpSpec(
        "scatter_value",
        lambda x: x.scatter(1, _i(x, S), -1.5),
        lambda a: _np_set(a, _along_key(S, 1), -1.5),
        [(3, 4)],
        torch_op=lambda x: x.scatter(1, _i(x, S), -1.5),
    ),
    OpSpec(
        "scatter_add",
        lambda x, s: x.scatter_add(1, _i(x, G), s),
        lambda a, s: _scatter_ufunc(np.add, a, G, 1, s),
        [(3, 4), (3, 4)],
        torch_op=lambda x, s: x.scatter_add(1, _i(x, G), s),
    ),
    OpSpec(
        "scatter_reduce_sum_noself",
        lambda x, s: x.scatter_reduce(0, _i(x, R), s, "sum", include_self=False),
        lambda a, s: _scatter_ufunc(np.add, a, R, 0, s, False, 0.0),
        [(4,), (5,)],
        torch_op=lambda x, s: x.scatter_reduce(0, _i(x, R), s, "sum", include_self=False),
    ),
    OpSpec(
        "scatter_reduce_prod",
        lambda x, s: x.scatter_reduce(0, _i(x, R), s, "prod"),
        lambda a, s: _scatter_ufunc(np.multiply, a, R, 0, s),
        [(4,), (5,)],
        torch_op=lambda x, s: x.scatter_reduce(0, _i(x, R), s, "prod"),
    ),
    OpSpec(
        "scatter_reduce_mean",
        lambda x, s: x.scatter_reduce(0, _i(x, R), s, "mean"),
        lambda a, s: _scatter_mean(a, R, 0, s),
        [(4,), (5,)],
        torch_op=lambda x, s: x.scatter_reduce(0, _i(x, R), s, "mean"),
    ),
    OpSpec(
        "scatter_reduce_amax_noself",
        lambda x, s: x.scatter_reduce(0, _i(x, R), s, "amax", include_self=False),
        lambda a, s: _scatter_ufunc(np.maximum, a, R, 0, s, False, -np.inf),
        [(4,), (5,)],
        torch_op=lambda x, s: x.scatter_reduce(0, _i(x, R), s, "amax", include_self=False),
    ),
    OpSpec(
        "scatter_reduce_amin",
        lambda x, s: x.scatter_reduce(0, _i(x, R), s, "amin"),
        lambda a, s: _scatter_ufunc(np.minimum, a, R, 0, s),
        [(4,), (5,)],
        torch_op=lambda x, s: x.scatter_reduce(0, _i(x, R), s, "amin"),
    ),
    OpSpec(
        "index_select",
        lambda x: mt.index_select(x, 1, _i(x, [3, 0, 3])),
        lambda a: np.take(a, [3, 0, 3], axis=1),
        [(3, 4)],
        torch_op=lambda x: x.index_select(1, _i(x, [3, 0, 3])),
    ),
    OpSpec(
        "index_add_alpha",
        lambda x, s: x.index_add(0, _i(x, [2, 0, 2]), s, alpha=-2),
        lambda a, s: _np_add_at(a, ([2, 0, 2],), -2 * s),
        [(3, 4), (3, 4)],
        torch_op=lambda x, s: x.index_add(0, _i(x, [2, 0, 2]), s, alpha=-2),
    ),
    OpSpec(
        "index_copy",
        lambda x, s: x.index_copy(1, _i(x, [3, 0]), s),
        lambda a, s: _np_set(a, (slice(None), [3, 0]), s),
        [(3, 4), (3, 2)],
        torch_op=lambda x, s: x.index_copy(1, _i(x, [3, 0]), s),
    ),
    OpSpec(
        "index_fill_number",
        lambda x: x.index_fill(1, _i(x, [3, 0]), -1.5),
        lambda a: _np_set(a, (slice(None), [3, 0]), -1.5),
        [(3, 4)],
        torch_op=lambda x: x.index_fill(1, _i(x, [3, 0]), -1.5),
    ),
    OpSpec(
        "index_fill_tensor_value",
        lambda x, v: x.index_fill(1, _i(x, [1, 3]), v),
        lambda a, v: _np_set(a, (slice(None), [1, 3]), v),
        [(3, 4), ()],
        torch_op=lambda x, v: x.index_fill(1, _i(x, [1, 3]), v),
    ),
    OpSpec(
        "masked_fill_number",
        lambda x: x.masked_fill(_m(x, MASK), 0.5),
        lambda a: np.where(MASK, np.asarray(0.5, a.dtype), a),
        [(3, 4)],
        torch_op=lambda x: x.masked_fill(_m(x, MASK), 0.5),
    ),
    OpSpec(
        "masked_fill_tensor_value",
        lambda x, v: x.masked_fill(_m(x, MASK), v),
        lambda a, v: np.where(MASK, v, a),
        [(3, 4), ()],
        torch_op=lambda x, v: x.masked_fill(_m(x, MASK), v),
    ),
    OpSpec(
        "masked_select_broadcast",
        lambda x: mt.masked_select(x, _m(x, MASK)),
        lambda a: np.broadcast_to(a, (3, 4))[np.array(MASK)],
        [(4,)],
        torch_op=lambda x: x.masked_select(_m(x, MASK)),
    ),
    OpSpec(
        "masked_scatter",
        lambda x, s: x.masked_scatter(_m(x, MASK), s),
        lambda a, s: _np_set(a, np.array(MASK), s.reshape(-1)[: int(np.sum(MASK))]),
        [(3, 4), (2, 5)],
        torch_op=lambda x, s: x.masked_scatter(_m(x, MASK), s),
    ),
    OpSpec(
        "take",
        lambda x: mt.take(x, _i(x, [[0, 11], [-1, 5]])),
        lambda a: np.take(a, [[0, 11], [-1, 5]]),
        [(3, 4)],
        torch_op=lambda x: __import__("torch").take(x, _i(x, [[0, 11], [-1, 5]])),
    ),
    OpSpec(
        "put_accumulate",
        lambda x, s: x.put(_i(x, [0, 5, 5, -1]), s, accumulate=True),
        lambda a, s: _np_add_at(a.reshape(-1), ([0, 5, 5, -1],), s).reshape(a.shape),
        [(3, 4), (4,)],
        torch_op=lambda x, s: x.put(_i(x, [0, 5, 5, -1]), s, accumulate=True),
    ),
    OpSpec(
        "sort",
        lambda x: mt.sort(x, 0),
        lambda a: (np.sort(a, 0), np.argsort(a, 0, kind="stable")),
        [(3, 4)],
        torch_op=lambda x: tuple(x.sort(0)),
    ),
    OpSpec(
        "sort_descending",
        lambda x: tuple(x.sort(descending=True)),
        lambda a: (-np.sort(-a, -1), np.argsort(-a, -1, kind="stable")),
        [(3, 4)],
        torch_op=lambda x: tuple(x.sort(descending=True)),
    ),
    OpSpec(
        "topk",
        lambda x: tuple(mt.topk(x, 2, dim=1)),
        lambda a: (-np.sort(-a, 1)[:, :2], np.argsort(-a, 1, kind="stable")[:, :2]),
        [(3, 4)],
        torch_op=lambda x: tuple(x.topk(2, dim=1)),
    ),
    OpSpec(
        "kthvalue",
        lambda x: tuple(mt.kthvalue(x, 2, 0)),
        lambda a: _kth(a, 2, 0),
        [(3, 4)],
        torch_op=lambda x: tuple(x.kthvalue(2, 0)),
    ),
    # A gradient as an op: reaches the backward ops' own Functions (their double backward).
    OpSpec(
        "getitem_backward",
        lambda x, w: _index_grad(mt, x, w),
        lambda a, w: _np_add_at(np.zeros_like(a), ([0, 2, 0],), w),
        [(3, 2), (3, 2)],
        grad=(1,),
        torch_op=lambda x, w: _index_grad(__import__("torch"), x, w),
    ),
    OpSpec(
        "select_backward",
        lambda x, w: _index_grad(mt, x, w, 1),
        lambda a, w: _np_set(np.zeros_like(a), 1, w),
        [(3, 2), (2,)],
        grad=(1,),
        torch_op=lambda x, w: _index_grad(__import__("torch"), x, w, 1),
    ),
]


def _index_grad(mod, x, w, key=None):
    """d/dx sum(x[key] * w), as a differentiable function of w."""
    key = [0, 2, 0] if key is None else key
    x = x.detach().requires_grad_(True)
    return mod.autograd.grad((x[key] * w).sum(), x, create_graph=True)[0]


# --- view scatters and index_reduce (minitorch/_ops/view_variants.py) ---


def _both(make):
    """(minitorch op, torch op) from make(lib)."""
    return make(mt), lambda *a: make(__import__("torch"))(*a)


def _scatter_row(name, make, ref, shapes, **kw):
    op, torch_op = _both(make)
    return OpSpec(name, op, ref, shapes, torch_op=torch_op, **kw)


def _np_index_reduce(a, dim, index, s, reduce, include_self=True):
    out = np.moveaxis(a.copy(), dim, 0)
    src = np.moveaxis(s, dim, 0)
    fn = {"prod": np.prod, "amax": np.max, "amin": np.min, "mean": np.mean}[reduce]
    for t in set(index):
        rows = [src[i] for i, j in enumerate(index) if j == t]
        if include_self:
            rows.append(out[t])
        out[t] = fn(np.stack(rows), axis=0)
    return np.moveaxis(out, 0, dim)


def _np_strided_scatter(a, s, size, stride, offset):
    out = a.copy()
    flat = out.reshape(-1)
    pos = np.lib.stride_tricks.as_strided(
        np.arange(a.size)[offset:], size, [st * 8 for st in stride]
    )
    flat[pos.ravel()] = s.ravel()
    return out


def _torch_strided_scatter(x, s, size, stride, offset):
    y = x.clone()
    y.as_strided(size, stride, offset).copy_(s)
    return y


IR = [0, 2, 0, 0]  # index_reduce groups along dim 0 (row 1 untouched)

SPECS += [
    _scatter_row("select_scatter", lambda T: lambda x, s: T.select_scatter(x, s, 1, -1),
                 lambda a, s: _np_set(a, (slice(None), -1), s), [(3, 4), (3,)]),
    _scatter_row("slice_scatter_step", lambda T: lambda x, s: x.slice_scatter(s, 1, 0, 4, 2),
                 lambda a, s: _np_set(a, (slice(None), slice(0, 4, 2)), s), [(3, 4), (3, 2)]),
    _scatter_row("slice_scatter_defaults", lambda T: T.slice_scatter,
                 lambda a, s: s.copy(), [(2, 3), (2, 3)]),
    _scatter_row("diagonal_scatter_offset", lambda T: lambda x, s: T.diagonal_scatter(
                 x, s, 1, 1, 2), lambda a, s: _np_diag_set(a, s, 1), [(2, 3, 4), (2, 3)]),
    # torch 2.13's own as_strided_scatter fails gradcheck for input (its gradient is grad inside
    # the view instead of outside); torch's side writes through an as_strided view of a clone.
    OpSpec("as_strided_scatter", lambda x, s: mt.as_strided_scatter(x, s, (2, 2), (1, 4), 1),
           lambda a, s: _np_strided_scatter(a, s, (2, 2), (1, 4), 1), [(3, 4), (2, 2)],
           torch_op=lambda x, s: _torch_strided_scatter(x, s, (2, 2), (1, 4), 1)),
    _scatter_row("index_reduce_prod", lambda T: lambda x, s: x.index_reduce(
                 0, _i(x, IR), s, "prod"), lambda a, s: _np_index_reduce(a, 0, IR, s, "prod"),
                 [(3, 2), (4, 2)], domain=(0.5, 2.0)),
    _scatter_row("index_reduce_mean_noself", lambda T: lambda x, s: T.index_reduce(
                 x, 1, _i(x, [1, 0]), s, "mean", include_self=False),
                 lambda a, s: _np_index_reduce(a, 1, [1, 0], s, "mean", False),
                 [(2, 3), (2, 2)]),
    _scatter_row("index_reduce_amax", lambda T: lambda x, s: x.index_reduce(
                 0, _i(x, IR), s, "amax"), lambda a, s: _np_index_reduce(a, 0, IR, s, "amax"),
                 [(3, 2), (4, 2)]),
    _scatter_row("index_reduce_amin_noself", lambda T: lambda x, s: x.index_reduce(
                 0, _i(x, IR), s, "amin", include_self=False),
                 lambda a, s: _np_index_reduce(a, 0, IR, s, "amin", False), [(3, 2), (4, 2)]),
    _scatter_row("index_reduce_", lambda T: lambda x, s: (x * 1).index_reduce_(
                 0, _i(x, IR), s, "mean"), lambda a, s: _np_index_reduce(a, 0, IR, s, "mean"),
                 [(3, 2), (4, 2)]),
]  # fmt: skip


def _np_diag_set(a, s, offset):
    out = a.copy()
    n = s.shape[-1]
    out[:, np.arange(n), np.arange(n) + offset] = s
    return out
