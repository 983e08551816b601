"""Op-test rows for the linear algebra ops (minitorch/_ops/linalg.py, einsum.py, linalg norms)."""

from __future__ import annotations

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec


def _torch(make):
    """The op built for torch; torch is imported only when a reference test calls it."""

    def op(*args, **kwargs):
        import torch

        return make(torch)(*args, **kwargs)

    return op


def row(name, make, ref, shapes, **kw) -> OpSpec:
    """A spec whose minitorch and torch ops are the same code: make(lib) -> callable."""
    return OpSpec(name=name, op=make(mt), ref=ref, shapes=shapes, torch_op=_torch(make), **kw)


FLOATS = ("float32", "float64")
INTS = ("int64", "int32")
NOGRAD = {"grad": (), "gradgrad": False}


def matmul_row(name, sa, sb, **kw):
    return row(f"matmul_{name}", lambda T: T.matmul, np.matmul, [sa, sb], **kw)


def _addmm(a, b, c, beta=1.0, alpha=1.0):
    return beta * a + alpha * (b @ c)


def _kron(a, b):
    return np.kron(a, b)


def _tensordot(a, b, dims):
    return np.tensordot(a, b, axes=dims)


def _inner(a, b):
    return np.inner(a, b)


def einsum_row(name, eq, shapes, ref_eq=None, **kw):
    ref_eq = ref_eq or eq
    return row(
        f"einsum_{name}",
        lambda T: lambda *ops: T.einsum(eq, *ops),
        lambda *ops: np.asarray(np.einsum(ref_eq, *ops)),
        shapes,
        **kw,
    )


def _broadcast_einsum(a, b):
    return np.einsum("ij,ij->i", np.broadcast_to(a, (2, 3)), b)


SPECS = [
    # matmul: every rank combination torch handles, broadcast batches, empty sizes
    matmul_row("1d_1d", (3,), (3,), dtypes=FLOATS + INTS),
    matmul_row("2d_1d", (2, 3), (3,)),
    matmul_row("1d_2d", (3,), (3, 4)),
    matmul_row("2d_2d", (2, 3), (3, 4), dtypes=FLOATS + INTS),
    matmul_row("3d_2d", (5, 2, 3), (3, 4)),
    matmul_row("2d_3d", (2, 3), (5, 3, 4)),
    matmul_row("3d_1d", (5, 2, 3), (3,)),
    matmul_row("1d_3d", (3,), (5, 3, 4)),
    matmul_row("3d_3d", (5, 2, 3), (5, 3, 4), dtypes=FLOATS + INTS),
    matmul_row("broadcast_batch", (2, 1, 2, 3), (5, 3, 4)),
    matmul_row("broadcast_4d_1d", (2, 1, 2, 3), (3,)),
    matmul_row("empty_rows", (0, 3), (3, 2)),
    matmul_row("empty_inner", (2, 0), (0, 4)),
    row("matmul_operator", lambda T: lambda a, b: a @ b, np.matmul, [(2, 3), (3, 4)]),
    row("mm", lambda T: T.mm, np.matmul, [(2, 3), (3, 4)], dtypes=FLOATS + INTS),
    row("mm_method", lambda T: lambda a, b: a.mm(b), np.matmul, [(4, 1), (1, 3)]),
    row("bmm", lambda T: T.bmm, np.matmul, [(3, 2, 4), (3, 4, 5)], dtypes=FLOATS + INTS),
    row("mv", lambda T: T.mv, np.matmul, [(2, 3), (3,)]),
    row("dot", lambda T: T.dot, np.dot, [(4,), (4,)], dtypes=FLOATS + INTS),
    row("vdot", lambda T: T.vdot, np.vdot, [(4,), (4,)]),
    row("outer", lambda T: T.outer, np.outer, [(3,), (4,)]),
    row("ger", lambda T: T.ger, np.outer, [(2,), (3,)]),
    row("inner", lambda T: T.inner, _inner, [(2, 3), (4, 3)]),
    row("inner_1d", lambda T: T.inner, _inner, [(3,), (3,)]),
    row("inner_0d", lambda T: T.inner, _inner, [(), (2, 3)]),
    row("addmm", lambda T: T.addmm, _addmm, [(2, 4), (2, 3), (3, 4)]),
    row(
        "addmm_scaled_broadcast",
        lambda T: lambda a, b, c: T.addmm(a, b, c, beta=0.5, alpha=2),
        lambda a, b, c: _addmm(a, b, c, 0.5, 2.0),
        [(4,), (2, 3), (3, 4)],
    ),
    row(
        "addmm_beta0",
        lambda T: lambda a, b, c: T.addmm(a, b, c, beta=0),
        lambda a, b, c: b @ c,
        [(2, 4), (2, 3), (3, 4)],
    ),
    row(
        "addmv",
        lambda T: lambda a, b, c: T.addmv(a, b, c, alpha=-1.5),
        lambda a, b, c: a - 1.5 * (b @ c),
        [(2,), (2, 3), (3,)],
    ),
    row(
        "baddbmm",
        lambda T: lambda a, b, c: T.baddbmm(a, b, c, beta=2),
        lambda a, b, c: 2 * a + b @ c,
        [(2, 4), (3, 2, 5), (3, 5, 4)],
    ),
    row(
        "addbmm",
        lambda T: T.addbmm,
        lambda a, b, c: a + (b @ c).sum(0),
        [(2, 4), (3, 2, 5), (3, 5, 4)],
    ),
    row(
        "tensordot_int",
        lambda T: lambda a, b: T.tensordot(a, b, dims=2),
        lambda a, b: _tensordot(a, b, 2),
        [(2, 3, 4), (3, 4, 2)],
    ),
    row(
        "tensordot_lists",
        lambda T: lambda a, b: T.tensordot(a, b, dims=([0, 2], [1, 0])),
        lambda a, b: _tensordot(a, b, ([0, 2], [1, 0])),
        [(2, 3, 4), (4, 2, 5)],
    ),
    row(
        "tensordot_0",
        lambda T: lambda a, b: T.tensordot(a, b, dims=0),
        lambda a, b: _tensordot(a, b, 0),
        [(2, 3), (2,)],
    ),
    row("kron", lambda T: T.kron, _kron, [(2, 3), (2, 2)]),
    row("kron_ranks", lambda T: T.kron, _kron, [(2,), (3, 2)]),
    row(
        "trace",
        lambda T: T.trace,
        lambda a: np.asarray(np.trace(a)),
        [(3, 3)],
        dtypes=FLOATS + INTS,
    ),
    row("trace_rect", lambda T: lambda a: a.trace(), lambda a: np.asarray(np.trace(a)), [(3, 5)]),
    # einsum: explicit and implicit outputs, repeated subscripts, ellipsis, size-1 broadcast
    einsum_row("matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    einsum_row("implicit", "ij,jk", [(2, 3), (3, 4)]),
    einsum_row("transpose", "ij->ji", [(2, 3)]),
    einsum_row("sum_all", "ijk->", [(2, 3, 4)]),
    einsum_row("trace", "ii", [(3, 3)]),
    einsum_row("diagonal", "ii->i", [(3, 3)]),
    einsum_row("outer", "i,j->ij", [(3,), (4,)]),
    einsum_row("batch_ellipsis", "...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    einsum_row("ellipsis_implicit", "b...,b->...", [(3, 2, 4), (3,)]),
    einsum_row("three_operands", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    einsum_row("summed_inside", "ij,k->k", [(2, 3), (4,)]),
    einsum_row("spaces", "i j , j k -> i k", [(2, 3), (3, 4)], ref_eq="ij,jk->ik"),
    row(
        "einsum_size1_broadcast",
        lambda T: lambda a, b: T.einsum("ij,ij->i", a, b),
        _broadcast_einsum,
        [(1, 3), (2, 3)],
    ),
    row(
        "einsum_list",
        lambda T: lambda a, b: T.einsum("i,i->", [a, b]),
        lambda a, b: np.asarray(np.dot(a, b)),
        [(3,), (3,)],
    ),
]
