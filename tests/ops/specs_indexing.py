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
    OpSpec("setitem_slice_broadcast", *_set(slice(0, 2)), [(3, 4), (1, 4)],
           torch_op=_torch_set(slice(0, 2))),
    OpSpec("setitem_scalar_value", *_set((slice(None), 1)), [(3, 4), ()],
           torch_op=_torch_set((slice(None), 1))),
    OpSpec("setitem_list", *_set([2, 0]), [(3, 4), (2, 4)], torch_op=_torch_set([2, 0])),
    OpSpec("setitem_arrays", *_set(([0, 2], [1, 3])), [(3, 4), (2,)],
           torch_op=_torch_set(([0, 2], [1, 3]))),
    OpSpec("setitem_mask", *_set([True, False, True]), [(3, 4), (4,)],
           torch_op=_torch_set([True, False, True])),
    OpSpec("setitem_leading_ones", *_set(0), [(3, 4), (1, 1, 4)], ref=None,
           torch_op=_torch_set(0)),
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
