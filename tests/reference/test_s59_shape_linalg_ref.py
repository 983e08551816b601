"""Session 59: the shape and matmul-family cases of tests/test_s59_shape_linalg.py, and their
neighbours, run under torch and minitorch alike: results (values, dtypes, shapes) and
exceptions (type and message)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return ("raises", type(e).__name__, str(e).split("\nException raised from")[0])
    r = r.detach()
    return (str(r.dtype).split(".")[-1], tuple(r.shape), np.asarray(r.numpy()).tolist())


def _same(fn):
    got, want = _outcome(mt, fn), _outcome(torch, fn)
    assert repr(got) == repr(want)  # (NaN-safe)


def _z(T, *shape, dtype=None):
    return T.zeros(shape, dtype=dtype or T.float32)


def _b(T, *shape):
    return T.zeros(shape, dtype=T.bool)


SHAPES = [
    # stack wraps its dim before the sizes; cat refuses 0-d tensors first
    lambda T: T.stack([T.zeros(2), T.zeros(1)], 3),
    lambda T: T.stack([T.zeros(2), T.zeros(1)], -3),
    lambda T: T.stack([T.zeros(2), T.zeros(1)], 1),
    lambda T: T.stack([T.zeros(2), T.zeros(2)], -2),
    lambda T: T.cat([T.zeros(2), T.zeros(())], 5),
    lambda T: T.cat([T.zeros(0), T.zeros(())], 5),
    lambda T: T.cat([T.zeros(2), T.zeros(()), T.zeros(3)], 5),
    lambda T: T.cat([T.zeros(2, 3), T.zeros(4), T.zeros(())]),
    lambda T: T.cat([T.zeros(2, 3), T.zeros(4, 4), T.zeros(())], 1),
    lambda T: T.cat([T.zeros(2), T.zeros(3)], 5),
    lambda T: T.cat([T.zeros(2, 3), T.zeros(4)]),
    # permute: dim by dim
    lambda T: T.zeros(2, 2, 1, 3).permute(2, 2, 0, -5),
    lambda T: T.zeros(2, 2, 1, 3).permute(2, -5, 2, 0),
    lambda T: T.zeros(2, 3).permute(1, 1, 5),
    lambda T: T.zeros(2, 3).permute(5, 1),
    lambda T: T.zeros(2, 3).permute(-1, 1),
    lambda T: T.zeros(2, 3).permute(-1, 0),
    lambda T: T.zeros(2, 3).permute(5, "a"),
    lambda T: T.zeros(2, 3).permute(1, 1.0),
    lambda T: T.permute(T.zeros(2, 3), (T.tensor(1), 0)),
    # unflatten
    lambda T: T.zeros(3).unflatten(0, (-2, 3)),
    lambda T: T.zeros(3).unflatten(0, (-1, -1)),
    lambda T: T.zeros(3).unflatten(0, (2, 2)),
    lambda T: T.zeros(3).unflatten(-1, (2, 2)),
    lambda T: T.zeros(0).unflatten(0, (-1, 0)),
    lambda T: T.zeros(()).unflatten(-1, (1, -1)),
    lambda T: T.zeros(()).unflatten(0, (1, -1)),
    # repeat and tile: only a negative size is refused, the first named
    lambda T: T.zeros(1, 3).repeat(-2, 6, -2),
    lambda T: T.zeros(1, 3).repeat(2, -6, -2),
    lambda T: T.zeros(2, 0).repeat(2, -2),
    lambda T: T.zeros(2, 0).tile(2, -2),
    lambda T: T.zeros(2, 0).tile(-2),
    lambda T: T.zeros(0).repeat(-1),
    lambda T: T.zeros(1).repeat(-1),
    lambda T: T.zeros(0).repeat(-1, 2),
    lambda T: T.zeros(0).repeat(0, -1),
    lambda T: T.zeros(2, 0).repeat(-3, -2),
    lambda T: T.zeros(3, 0).repeat(1, -5),
    lambda T: T.zeros(0, 3).repeat(1, 0, -2),
    lambda T: T.zeros(2, 0, requires_grad=True).repeat(2, -2).sum().backward(),
    # expand: -1 as a new dim of a 0-d tensor is a negative size
    lambda T: T.zeros(()).expand(-1),
    lambda T: T.zeros(()).expand(-1, 2),
    lambda T: T.zeros(()).expand(2, -1),
    lambda T: T.zeros(()).expand(-3, -1),
    lambda T: T.broadcast_to(T.zeros(()), (-1,)),
    lambda T: T.zeros(2).expand(-1, 2),
    lambda T: T.zeros(2).expand(0, -1, 2),
    lambda T: T.zeros(1, 1).expand(-1, -2),
]


@pytest.mark.parametrize("fn", SHAPES)
def test_shape_ops_match_torch(fn):
    _same(fn)


PRODUCTS = [
    # mv of a 0-d matrix
    lambda T: T.mv(T.tensor(1.0), T.zeros(3)),
    lambda T: T.mv(T.tensor(1.0), T.tensor(1.0)),
    lambda T: T.mv(T.zeros(3), T.zeros(3)),
    lambda T: T.mv(T.zeros(2, 3, 4), T.zeros(3)),
    # matmul folds a batch only where torch's stride test says so
    lambda T: T.zeros(3) @ T.zeros(2, 4, 1),
    lambda T: T.zeros(3) @ T.zeros(1, 4, 1),
    lambda T: T.zeros(3) @ T.zeros(2, 4, 2),
    lambda T: T.zeros(3) @ T.zeros(2, 2, 4).mT,
    lambda T: T.zeros(3) @ T.zeros(2, 4, 0),
    lambda T: T.zeros(3, requires_grad=True) @ T.zeros(2, 4, 1),
    lambda T: T.zeros(2, 4, 1).mT @ T.zeros(5, 2),
    lambda T: T.zeros(2, 4, 1).mT @ T.zeros(5),
    lambda T: T.zeros(2, 1, 4) @ T.zeros(5, 2),
    lambda T: T.zeros(2, 1, 4) @ T.zeros(5),
    lambda T: T.zeros(2, 3, 5)[:, :, :4] @ T.zeros(5, 2),
    lambda T: T.arange(4.0).reshape(2, 2, 1).mT @ T.ones(2, 3),
    lambda T: T.arange(4.0).reshape(2, 2, 1).mT @ T.ones(2),
    lambda T: T.matmul(T.zeros(2), T.zeros(2, 2, 1, dtype=T.float64)),
    lambda T: T.matmul(T.zeros(2), T.zeros(2, 2, 3, dtype=T.float64)),
    lambda T: T.matmul(T.zeros(2), T.zeros(2, 3, 2, dtype=T.float64).mT),
    lambda T: T.matmul(T.zeros(2, 4, 1).mT, T.zeros(4, 2, dtype=T.float64)),
    lambda T: T.matmul(T.zeros(2, 4, 1).mT, T.zeros(5), out=T.zeros(0)),
    lambda T: T.matmul(_b(T, 2), _b(T, 2, 2, 1)),
    # products of bool operands: empty ones are False, others refused by the kernel torch runs
    lambda T: T.mm(_b(T, 2, 0), _b(T, 0, 3)),
    lambda T: T.mm(_b(T, 0, 2), _b(T, 2, 3)),
    lambda T: T.mm(_b(T, 2, 2), _b(T, 2, 0)),
    lambda T: T.mm(_b(T, 2, 2), _b(T, 2, 3)),
    lambda T: T.mm(_b(T, 2, 0), _z(T, 0, 3)),
    lambda T: T.bmm(_b(T, 1, 2, 0), _b(T, 1, 0, 3)),
    lambda T: T.bmm(_b(T, 0, 3, 2), _b(T, 0, 2, 5)),
    lambda T: T.bmm(_b(T, 2, 3, 1), _b(T, 2, 1, 5)),
    lambda T: T.bmm(_b(T, 1, 4, 2), _b(T, 1, 2, 75)),
    lambda T: T.bmm(_b(T, 3, 20, 20), _z(T, 3, 20, 20)),
    lambda T: T.bmm(_z(T, 3, 20, 20, dtype=T.int64), _z(T, 3, 20, 20, dtype=T.int32)),
    lambda T: T.matmul(_b(T, 3, 20, 20), _b(T, 3, 20, 20)),
    lambda T: T.matmul(_b(T, 2, 0), _b(T, 0, 3)),
    lambda T: T.matmul(_b(T, 0), _b(T, 0)),
    lambda T: T.matmul(_b(T, 0), _b(T, 0, 3)),
    lambda T: T.matmul(_b(T, 3, 0), _b(T, 0)),
    lambda T: T.matmul(_b(T, 2, 3, 0), _b(T, 0, 4)),
    lambda T: T.matmul(_b(T, 2, 3, 0), _b(T, 2, 0, 4)),
    lambda T: T.matmul(_b(T, 0), _b(T, 2, 0, 4)),
    lambda T: T.matmul(_b(T, 2, 3, 0), _b(T, 0)),
    lambda T: T.matmul(_b(T, 0, 2), _b(T, 2)),
    lambda T: T.matmul(_b(T, 2, 2), _b(T, 2)),
    lambda T: T.mv(_b(T, 3, 0), _b(T, 0)),
    lambda T: T.mv(_b(T, 0, 3), _b(T, 3)),
    lambda T: T.dot(_b(T, 0), _b(T, 0)),
    lambda T: T.nn.functional.linear(_b(T, 2, 0), _b(T, 3, 0)),
    lambda T: T.nn.functional.linear(_b(T, 0), _b(T, 3, 0)),
    lambda T: T.nn.functional.linear(_b(T, 4, 2, 0), _b(T, 3, 0)),
    lambda T: T.nn.functional.linear(_b(T, 2, 0), _b(T, 3, 0), _b(T, 3)),
    lambda T: T.nn.functional.linear(_b(T, 2, 2), _b(T, 3, 2)),
    # inner and tensordot of bool operands
    lambda T: T.inner(_b(T, 2), _b(T, 3)),
    lambda T: T.inner(_b(T, 2, 2), _b(T, 2)),
    lambda T: T.inner(_b(T, 2), _b(T, 2, 2)),
    lambda T: T.inner(_b(T, 2), _b(T, 2)),
    lambda T: T.inner(_b(T, 0), _b(T, 0)),
    lambda T: T.inner(_b(T, 2, 0), _b(T, 3, 0)),
    lambda T: T.inner(_b(T, 0, 2), _b(T, 2)),
    lambda T: T.inner(_b(T, 2, 0), _b(T, 3, 1)),
    lambda T: T.tensordot(_b(T, 2), _b(T, 2), 1),
    lambda T: T.tensordot(_b(T, 0), _b(T, 0), 1),
    lambda T: T.tensordot(_b(T, 2, 2), _b(T, 2, 2), 1),
    lambda T: T.tensordot(_b(T, 2, 2), _b(T, 2, 2), 2),
    lambda T: T.tensordot(_b(T, 2, 2), _b(T, 2), 1),
    lambda T: T.tensordot(_b(T, 2), _b(T, 2, 3), 1),
    lambda T: T.tensordot(_b(T, 2), _b(T, 2, 1), ([0], [0])),
    lambda T: T.tensordot(_b(T, 1, 2), _b(T, 2, 1), ([1], [0])),
    lambda T: T.tensordot(_b(T, 1), _b(T, 2), 1),
    lambda T: T.tensordot(_b(T, 0), _b(T, 1), 1),
    lambda T: T.tensordot(_b(T), _b(T), 0),
    lambda T: T.tensordot(_b(T), _b(T, 2), 0),
    lambda T: T.tensordot(_b(T, 2), _b(T, 0), 0),
    lambda T: T.tensordot(_b(T, 2, 0), _b(T, 0, 3), 1),
    lambda T: T.tensordot(_b(T, 1, 3), _b(T, 0, 3), ([0], [0])),
    lambda T: T.tensordot(_z(T, 2, 3), _z(T, 1, 3), ([0], [0])),
    # einsum's bmm errors follow the kernel torch runs
    lambda T: T.einsum("...ij,...jk->...ik", _z(T, 5, 5, 5, 5), _z(T, 5, 4, dtype=T.float64)),
    lambda T: T.einsum("...ij,...jk->...ik", _z(T, 2, 2, 2), _z(T, 2, 2, dtype=T.float64)),
    lambda T: T.einsum("...ij,...jk->...ik", _z(T, 5, 5, 5, 5), _b(T, 5, 4)),
    lambda T: T.einsum("...ij,...jk->...ik", _b(T, 5, 5, 5, 5), _z(T, 5, 4)),
    lambda T: T.einsum("...ij,...jk->...ik", _b(T, 2, 2, 2), _z(T, 2, 2)),
    lambda T: T.einsum("...ij,...jk->...ik", _b(T, 4, 2), _b(T, 5, 5, 2, 3)),
    lambda T: T.einsum(
        "...ij,...jk->...ik", _z(T, 5, 5, 5, 5, dtype=T.int64), _z(T, 5, 4, dtype=T.int32)
    ),
    lambda T: T.einsum("bij,bjk->bik", _z(T, 3, 10, 10), _z(T, 3, 10, 10, dtype=T.float64)),
    lambda T: T.einsum("bij,bjk->bik", _z(T, 3, 2, 2, dtype=T.float64), _z(T, 3, 2, 2)),
    lambda T: T.einsum("ij,jk->ik", _b(T, 20, 20), _b(T, 20, 20)),
    lambda T: T.einsum("ij,jk->ik", _b(T, 2, 2), _b(T, 2, 3)),
    lambda T: T.einsum("ij,jk->ik", _b(T, 2, 0), _b(T, 0, 3)),
    lambda T: T.einsum("i,i->", _b(T, 2), _b(T, 2)),
]


@pytest.mark.parametrize("fn", PRODUCTS)
def test_products_match_torch(fn):
    _same(fn)


I64 = "int64"


def _t(T, shape, dtype=None, fill=0.0):
    dt = getattr(T, dtype) if dtype else T.float32
    return T.full(shape, fill, dtype=T.float32).to(dt)


ADD_PRODUCTS = [
    # baddbmm: ranks, sizes, then (only over elements) the dtypes
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (3, 4)), _t(T, (2, 4, 5), "float64")),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 5)), _t(T, (4, 4, 5), "float64")),
    lambda T: T.baddbmm(_t(T, (1,), "float64"), _t(T, (3, 4)), _t(T, (2, 4, 5))),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 4)), _t(T, (2, 4, 5), I64)),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 50)), _t(T, (2, 50, 4), "float64")),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 50)), _t(T, (2, 50, 4), I64)),
    lambda T: T.baddbmm(_b(T, 2, 3, 4), _b(T, 2, 3, 5), _t(T, (2, 5, 4))),
    lambda T: T.baddbmm(_b(T, 2, 3, 50), _b(T, 2, 3, 50), _t(T, (2, 50, 4))),
    lambda T: T.baddbmm(_b(T, 2, 3, 4), _b(T, 2, 3, 5), _b(T, 2, 5, 4)),
    lambda T: T.baddbmm(_b(T, 1), _b(T, 3, 20, 20), _b(T, 3, 20, 20)),
    lambda T: T.baddbmm(_b(T, 1), _b(T, 2, 3, 1), _b(T, 2, 1, 5)),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 4)), _t(T, (4, 5))),
    lambda T: T.baddbmm(_t(T, (7,)), _t(T, (3, 4)), _t(T, (2, 4, 5))),
    # baddbmm over no elements: beta * input in batch2's dtype, scaled in place
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 0)), _t(T, (2, 0, 5), I64)),
    lambda T: T.baddbmm(_t(T, (1,), fill=1.0), _t(T, (2, 3, 0)), _t(T, (2, 0, 5), I64), beta=2),
    lambda T: T.baddbmm(_t(T, (1,), fill=1.7), _t(T, (2, 3, 0)), _t(T, (2, 0, 5), I64), beta=2),
    lambda T: T.baddbmm(_t(T, (1,), fill=1.0), _t(T, (2, 3, 0)), _t(T, (2, 0, 5), I64), beta=2.5),
    lambda T: T.baddbmm(_t(T, (1,), fill=1.0), _t(T, (0, 3, 2)), _t(T, (0, 2, 5), I64)),
    lambda T: T.baddbmm(_t(T, (1,), fill=1.0), _t(T, (2, 0, 2)), _t(T, (2, 2, 5), I64)),
    lambda T: T.baddbmm(_t(T, (3, 5), fill=1.0), _t(T, (2, 3, 0)), _t(T, (2, 0, 5), "float64")),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 0)), _t(T, (2, 0, 5), "float64"), beta=0),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 0)), _b(T, 2, 0, 5)),
    lambda T: T.baddbmm(_t(T, (1,)), _t(T, (2, 3, 0)), _b(T, 2, 0, 5), beta=0),
    lambda T: T.baddbmm(_b(T, 1), _b(T, 2, 3, 0), _b(T, 2, 0, 5)),
    lambda T: T.baddbmm(_b(T, 1), _b(T, 2, 3, 0), _b(T, 2, 0, 5), beta=0),
    lambda T: T.baddbmm(_b(T, 1), _b(T, 2, 3, 0), _b(T, 2, 0, 5), beta=True),
    lambda T: T.baddbmm(_b(T, 1), _b(T, 0, 3, 1), _b(T, 0, 1, 5)),
    lambda T: T.baddbmm(
        _t(T, (2, 2, 3), fill=1.0), _t(T, (2, 2, 0)), _t(T, (2, 0, 3)), alpha=math.nan
    ),
    lambda T: T.baddbmm(_t(T, (5,)), _t(T, (0, 3, 2)), _t(T, (0, 2, 5))),
    lambda T: T.baddbmm(_t(T, ()), _t(T, (2, 3, 0)), _t(T, (2, 0, 5))),
    # addmv of an empty matrix: beta * input, of input's shape
    lambda T: T.addmv(_t(T, (1,)), _t(T, (2, 0)), _t(T, (0,))),
    lambda T: T.addmv(_t(T, ()), _t(T, (2, 0)), _t(T, (0,))),
    lambda T: T.addmv(_t(T, (1,), fill=1.0), _t(T, (2, 0)), _t(T, (0,)), beta=3),
    lambda T: T.addmv(_t(T, (1,), fill=1.0), _t(T, (2, 0)), _t(T, (0,)), beta=0),
    lambda T: T.addmv(_t(T, (1,), fill=1.0), _t(T, (2, 0)), _t(T, (0,)), beta=2.5),
    lambda T: T.addmv(_t(T, (2,), fill=1.0), _t(T, (2, 0)), _t(T, (0,)), alpha=math.nan),
    lambda T: T.addmv(_t(T, (1,)), _t(T, (0, 3)), _t(T, (3,))),
    lambda T: T.addmv(_t(T, ()), _t(T, (0, 3)), _t(T, (3,))),
    lambda T: T.addmv(_t(T, (1,), I64, 1.0), _t(T, (2, 0), I64), _t(T, (0,), I64), beta=2.5),
    lambda T: T.addmv(_t(T, (1,), fill=1.0), _t(T, (2, 0)), _t(T, (0,), "float64")),
    lambda T: T.addmv(~_b(T, 1), _b(T, 2, 0), _b(T, 0)),
    lambda T: T.addmv(~_b(T, 1), _b(T, 2, 0), _b(T, 0), beta=0),
    lambda T: T.addmv(~_b(T, 1), _b(T, 2, 0), _b(T, 0), beta=2),
    lambda T: T.addmv(~_b(T, 2), _b(T, 2, 0), _b(T, 0)),
    lambda T: T.addmv(~_b(T, 1), _b(T, 0, 1), _b(T, 1)),
    lambda T: T.addmv(~_b(T, 1), _b(T, 2, 1), _b(T, 1)),
    # addmm and addbmm over no elements: scaled in place, alpha unread
    lambda T: T.addmm(_t(T, (1,)), _t(T, (2, 0)), _t(T, (0, 3))),
    lambda T: T.addmm(_t(T, (2, 3), fill=1.0), _t(T, (2, 0)), _t(T, (0, 3)), alpha=math.nan),
    lambda T: T.addmm(_t(T, (1,), I64, 1.0), _t(T, (2, 0), I64), _t(T, (0, 3), I64), beta=2.5),
    lambda T: T.addmm(_t(T, (1,), I64, 1.0), _t(T, (2, 1), I64), _t(T, (1, 3), I64), beta=2.5),
    lambda T: T.addmm(_t(T, (3, 3), I64), _t(T, (2, 0), I64), _t(T, (0, 3), I64), beta=2.5),
    lambda T: T.addmm(~_b(T, 1), _b(T, 2, 0), _b(T, 0, 3)),
    lambda T: T.addmm(~_b(T, 1), _b(T, 2, 0), _b(T, 0, 3), beta=0),
    lambda T: T.addmm(~_b(T, 1), _b(T, 2, 0), _b(T, 0, 3), beta=True),
    lambda T: T.addmm(~_b(T, 1), _b(T, 0, 2), _b(T, 2, 3)),
    lambda T: T.addmm(~_b(T, 1), _b(T, 2, 2), _b(T, 2, 3)),
    lambda T: T.addbmm(_t(T, (1,)), _t(T, (2, 2, 0)), _t(T, (2, 0, 3))),
    lambda T: T.addbmm(_t(T, (2, 3), fill=1.0), _t(T, (2, 2, 0)), _t(T, (2, 0, 3)), alpha=math.nan),
    lambda T: T.addbmm(
        _t(T, (1,), I64, 1.0), _t(T, (2, 2, 0), I64), _t(T, (2, 0, 3), I64), beta=2.5
    ),
    lambda T: T.addbmm(_t(T, (1,), I64, 1.0), _t(T, (0, 2, 1), I64), _t(T, (0, 1, 3), I64), beta=2),
    lambda T: T.addbmm(
        _t(T, (1,), I64, 1.0), _t(T, (0, 2, 1), I64), _t(T, (0, 1, 3), I64), beta=2.5
    ),
    lambda T: T.addbmm(~_b(T, 1), _b(T, 2, 2, 0), _b(T, 2, 0, 3)),
    lambda T: T.addbmm(~_b(T, 1), _b(T, 2, 2, 0), _b(T, 2, 0, 3), beta=0),
    lambda T: T.addbmm(~_b(T, 1), _b(T, 1, 2, 0), _b(T, 1, 0, 3), beta=True),
    lambda T: T.addbmm(~_b(T, 1), _b(T, 0, 2, 1), _b(T, 0, 1, 3)),
    lambda T: T.addbmm(~_b(T, 1), _b(T, 2, 2, 1), _b(T, 2, 1, 0)),
    lambda T: T.addbmm(~_b(T, 1), _b(T, 2, 2, 1), _b(T, 2, 1, 3)),
    lambda T: T.addbmm(_t(T, (1,)), _t(T, (1, 2, 0)), _t(T, (0, 3))),
    lambda T: T.addbmm(_t(T, (5,)), _t(T, (2, 0)), _t(T, (1, 0, 3))),
    lambda T: T.addbmm(_t(T, (1,)), _t(T, (2, 0)), _t(T, (1, 0, 3))),
    lambda T: T.addbmm(_t(T, (1,)), _t(T, (2, 3, 4)), _t(T, (2, 4, 3, 1))),
    lambda T: T.addr(_t(T, (1,)), _t(T, (0,)), _t(T, (3,))),
    lambda T: T.addr(~_b(T, 1), _b(T, 0), _b(T, 3)),
]


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("fn", ADD_PRODUCTS)
def test_add_products_match_torch(fn):
    _same(fn)


def _warned(T):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        T.addmv(T.ones(1), T.zeros(2, 0), T.zeros(0))
        T.addmv(T.ones(()), T.zeros(1, 0), T.zeros(0))
        T.addmv(T.ones(2), T.zeros(2, 0), T.zeros(0))
        T.addmv(T.ones(1), T.zeros(0, 3), T.zeros(3))
    return [str(x.message).split(" (Triggered internally")[0] for x in w]


def test_addmv_of_an_empty_matrix_warns_as_torch():
    assert _warned(mt) == _warned(torch)


def _grads(T):
    out = []
    x = T.ones(1, requires_grad=True)
    r = T.addmv(x, T.zeros(2, 0), T.zeros(0), beta=0.5)
    r.sum().backward()
    out.append((r.grad_fn.name(), tuple(r.shape), x.grad.tolist()))
    x = T.ones(1, requires_grad=True)
    r = T.addmv(x, T.zeros(2, 0), T.zeros(0), beta=0)
    r.sum().backward()
    out.append((r.grad_fn.name(), tuple(r.shape), x.grad.tolist()))
    x = T.ones(1, requires_grad=True)
    r = T.baddbmm(x, T.zeros(2, 3, 0), T.zeros(2, 0, 4, dtype=T.float64), beta=2)
    r.sum().backward()
    out.append((r.grad_fn.name(), str(r.dtype), x.grad.tolist()))
    x = T.ones(1, requires_grad=True)
    r = T.addmm(x, T.zeros(2, 0), T.zeros(0, 4), beta=2, alpha=math.nan)
    r.sum().backward()
    out.append((r.grad_fn.name(), r.tolist(), x.grad.tolist()))
    return out


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_products_over_no_elements_have_torch_s_gradients():
    assert repr(_grads(mt)) == repr(_grads(torch))
