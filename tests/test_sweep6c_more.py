"""Sweep 6c: ctc_loss's argument checks (padded targets' batch, the length overloads), full()
with a fill value that requires grad, and the grad_fn names of lu_solve, linalg.lu and
triangular_solve."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

# --- ctc_loss ---


def _ctc_inputs():
    lp = mt.tensor(np.random.default_rng(0).normal(size=(8, 3, 5))).log_softmax(-1)
    return lp, mt.ones(3, 4, dtype=mt.int64)


@pytest.mark.parametrize("rows", [2, 4])
def test_ctc_padded_targets_need_one_row_per_sample(rows):
    lp, _ = _ctc_inputs()
    tg = mt.ones(rows, 4, dtype=mt.int64)
    want = (
        rf"^Expected tensor to have size 3 at dimension 0, but got size {rows} for argument #2 "
        r"'targets' \(while checking arguments for ctc_loss_allocate_outputs\)$"
    )
    with pytest.raises(RuntimeError, match=want):
        F.ctc_loss(lp, tg, [8, 8, 8], [4, 3, 2])
    with pytest.raises(RuntimeError, match=want):  # device-style tensor lengths too
        F.ctc_loss(lp, tg, mt.tensor([8, 8, 8]), mt.tensor([4, 3, 2]))
    # torch's order: negative target lengths first, then the rows, then the widths and inputs
    with pytest.raises(RuntimeError, match="target_lengths to have value at least 0"):
        F.ctc_loss(lp, tg, [8, 8, 8], [-1, 3, 2])
    with pytest.raises(RuntimeError, match=want):
        F.ctc_loss(lp, tg, [9, 8, 8], [5, 3, 2])
    # unbatched log_probs: one row
    with pytest.raises(RuntimeError, match="size 1 at dimension 0, but got size 2"):
        F.ctc_loss(lp[:, 0], mt.ones(2, 4, dtype=mt.int64), [8], [4])


@pytest.mark.parametrize(
    "il, tl, got",
    [
        (mt.tensor([8, 7, 6]), [4, 3, 2], "Tensor, list"),
        ([8, 7, 6], mt.tensor([4, 3, 2]), "list, Tensor"),
        (np.array([8, 7, 6]), np.array([4, 3, 2]), "numpy.ndarray, numpy.ndarray"),
        ([8.0, 7, 6], [4, 3, 2], "list, list"),
        ([True, 7, 6], [4, 3, 2], "list, list"),
        ([8, 7, 6], [4, 3, mt.tensor(2.0)], "list, list"),
        (range(8, 5, -1), [4, 3, 2], "range, list"),
        (None, [4, 3, 2], "NoneType, list"),
        (8, 4, "int, int"),
    ],
)
def test_ctc_lengths_match_one_overload(il, tl, got):
    lp, tg = _ctc_inputs()
    with pytest.raises(TypeError, match=r"^ctc_loss\(\) received an invalid combination") as e:
        F.ctc_loss(lp, tg, il, tl)
    msg = str(e.value)
    assert f"got (Tensor, Tensor, {got}, int, int, bool), but expected one of:" in msg
    assert "Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths" in msg
    assert "Tensor targets, Tensor input_lengths, Tensor target_lengths" in msg


def test_ctc_invalid_combination_names_the_argument_types():
    lp, tg = _ctc_inputs()
    with pytest.raises(TypeError) as e:
        F.ctc_loss(lp, tg, mt.tensor([8, 7, 6]), [4, 3, 2], reduction="sum")
    assert "got (Tensor, Tensor, Tensor, list, int, int, bool), but expected one of" in str(e.value)
    with pytest.raises(TypeError) as e:
        F.ctc_loss(lp, tg, np.array([8, 7, 6]), [4, 3, 2])
    assert "got (Tensor, Tensor, numpy.ndarray, list, int, int, bool)" in str(e.value)
    with pytest.raises(TypeError, match=r"got \(Tensor, Tensor, list, list, float, int, bool\)"):
        F.ctc_loss(lp, tg, [8, 7, 6], [4, 3, 2], blank=0.0)
    with pytest.raises(TypeError, match=r"got \(Tensor, Tensor, list, list, int, int, int\)"):
        F.ctc_loss(lp, tg, [8, 7, 6], [4, 3, 2], zero_infinity=1)


def test_ctc_accepted_length_forms_agree():
    lp, tg = _ctc_inputs()
    ref = F.ctc_loss(lp, tg, [8, 7, 6], [4, 3, 2]).item()
    forms = [
        ((8, 7, 6), (4, 3, 2)),
        ([np.int64(8), 7, 6], [4, 3, 2]),
        ([mt.tensor(8), 7, mt.tensor([6])], mt.Size([4, 3, 2])),
        (mt.tensor([[8, 7, 6]]), mt.tensor([4, 3, 2], dtype=mt.int32)),
    ]
    for il, tl in forms:
        got = F.ctc_loss(lp, tg, il, tl).item()
        np.testing.assert_allclose(got, ref, rtol=1e-12, err_msg=f"{il!r} {tl!r}")
    # a blank given as a NumPy or 0-d integer tensor is read as the int
    np.testing.assert_allclose(
        F.ctc_loss(lp, tg, [8, 7, 6], [4, 3, 2], blank=mt.tensor(0)).item(), ref, rtol=1e-12
    )
    np.testing.assert_allclose(
        F.ctc_loss(lp, tg, [8, 7, 6], [4, 3, 2], blank=np.int64(0)).item(), ref, rtol=1e-12
    )
    # float length tensors stay torch's RuntimeError
    with pytest.raises(RuntimeError, match="^input_lengths must be integral$"):
        F.ctc_loss(lp, tg, mt.tensor([8.0, 7, 6]), mt.tensor([4, 3, 2]))


# --- full with a tensor fill value ---


def test_full_refuses_a_fill_value_that_requires_grad():
    s = mt.tensor(1.5, requires_grad=True)
    x = mt.zeros(2, 3)
    msg = "argument 'fill_value' (position 2) must be Number, not Tensor"
    with pytest.raises(
        TypeError, match=r"^full\(\): " + msg.replace("(", r"\(").replace(")", r"\)")
    ):
        mt.full((2,), s)
    with pytest.raises(TypeError, match=r"^full_like\(\): argument 'fill_value'"):
        mt.full_like(x, s)
    with pytest.raises(TypeError, match="must be Number, not Tensor"):
        x.new_full((2,), s)
    with mt.no_grad(), pytest.raises(TypeError, match="must be Number, not Tensor"):
        mt.full((2,), s)  # the tensor still requires grad
    with pytest.raises(TypeError, match=r"^full_like\(\): argument 'fill_value'.*not list"):
        mt.full_like(x, [1.0])
    # a 0-d tensor that does not require grad is a number: its value, its dtype
    out = mt.full((2,), s.detach())
    np.testing.assert_array_equal(out.numpy(), [1.5, 1.5])
    assert out.dtype is mt.float32 and not out.requires_grad
    assert mt.full((2,), mt.tensor(3)).dtype is mt.int64
    np.testing.assert_array_equal(mt.full_like(x, mt.tensor(2.5)).numpy(), np.full((2, 3), 2.5))
    # fill_ takes a value tensor that requires grad (and differentiates it)
    y = mt.zeros(2).fill_(s)
    assert y.requires_grad


# --- grad_fn names of lu_solve, linalg.lu and triangular_solve ---


def _matrices():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 3)) + 4 * np.eye(3)
    A = mt.tensor(a, requires_grad=True)
    B = mt.tensor(rng.normal(size=(3, 2)), requires_grad=True)
    return A, B


def _names(t):
    return [(type(f).__name__ if f is not None else None, n) for f, n in t.grad_fn.next_functions]


@pytest.mark.parametrize("kw", [{}, {"adjoint": True}, {"left": False}])
def test_lu_solve_is_one_node(kw):
    A, B = _matrices()
    LU, piv = mt.linalg.lu_factor(A)
    b = B if kw.get("left", True) else B.mT
    x = mt.linalg.lu_solve(LU, piv, b, **kw)
    assert type(x.grad_fn).__name__ == "LinalgLuSolveBackward0"
    edge_b = "AccumulateGrad" if kw.get("left", True) else "TransposeBackward0"
    assert _names(x) == [("LinalgLuFactorExBackward0", 0), (edge_b, 0)]
    assert _names(mt.linalg.lu_solve(LU.detach(), piv, b, **kw)) == [(None, 0), (edge_b, 0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert type(mt.lu_solve(B, LU, piv).grad_fn).__name__ == "LinalgLuSolveBackward0"
    # torch's node saves the pivots: changing them in place makes backward raise
    piv.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        x.sum().backward()

    def f(a, bb):
        lu, p = mt.linalg.lu_factor(a)
        return mt.linalg.lu_solve(lu, p, bb, **kw)

    assert gradcheck(f, (A, b.detach().requires_grad_()))
    assert gradgradcheck(f, (A, b.detach().requires_grad_()))


def test_linalg_lu_is_one_node():
    A, _ = _matrices()
    P, L, U = mt.linalg.lu(A)
    assert not P.requires_grad
    assert type(L.grad_fn).__name__ == "LinalgLuBackward0" and L.grad_fn is U.grad_fn
    assert (L.output_nr, U.output_nr) == (0, 1)
    assert _names(L) == [("AccumulateGrad", 0)]
    # values unchanged: A = P L U
    np.testing.assert_allclose((P @ L @ U).detach().numpy(), A.detach().numpy(), atol=1e-12)
    with mt.no_grad():
        U.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        L.sum().backward()
    wide = mt.tensor(np.random.default_rng(4).normal(size=(3, 4)), requires_grad=True)
    for a in (A, wide):
        assert gradcheck(lambda m: mt.linalg.lu(m)[1:], (a,))
        assert gradgradcheck(lambda m: mt.linalg.lu(m)[1:], (a,))


@pytest.mark.parametrize("transpose", [False, True])
def test_triangular_solve_is_one_node(transpose):
    A, B = _matrices()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tri = A.triu()
        r = mt.triangular_solve(B, tri, transpose=transpose)
        assert type(r.solution.grad_fn).__name__ == "TriangularSolveBackward0"
        assert r.solution.grad_fn is r.cloned_coefficient.grad_fn
        assert (r.solution.output_nr, r.cloned_coefficient.output_nr) == (0, 1)
        assert _names(r.solution) == [("AccumulateGrad", 0), ("TriuBackward0", 0)]
        x = np.linalg.solve(tri.detach().numpy().T if transpose else tri.detach().numpy(), B.data)
        np.testing.assert_allclose(r.solution.detach().numpy(), x, rtol=1e-12)
        with mt.no_grad():
            tri.mul_(1)  # torch's node saves A (not the clone)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            r.solution.sum().backward()

        def f(a, b):
            return tuple(mt.triangular_solve(b, a.triu(), upper=True, transpose=transpose))

        assert gradcheck(f, (A, B))
        assert gradgradcheck(f, (A, B))
