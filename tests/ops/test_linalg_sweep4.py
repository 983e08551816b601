"""Sweep 4's linear-algebra differences from torch: the layout of a transposed mm operand's
gradient, alpha=0 in addmm/addmv/addbmm, hermitian=True reading the lower triangle, solve_ex /
inv_ex on singular matrices, batched tensor tolerances, grad_fn names, error messages, input=
keywords, lstsq's gels driver, lu_unpack's skipped parts and exception types."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

NAN, INF = float("nan"), float("inf")


def _t(a, requires_grad=False, dtype=mt.float64):
    return mt.tensor(np.asarray(a, dtype=np.float64), dtype=dtype, requires_grad=requires_grad)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _raises(exc, msg, fn, *args, **kwargs):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(*args, **kwargs)


# --- 1. a column-major (transposed) mm operand gets a row-major gradient, as torch ---


@pytest.mark.parametrize(
    "name",
    ["x@w.T", "mm(w.T, b)", "addmm", "w.T@3d", "3d@w.T", "w.T@w2.T"],
)
def test_transposed_operand_grad_is_row_major(name):
    x, b = _rand(5, 2, seed=1), _rand(3, 4, seed=2)
    w = _t(_rand(3, 2), requires_grad=True)
    fns = {
        "x@w.T": lambda w: _t(x) @ w.T,
        "mm(w.T, b)": lambda w: mt.mm(w.T, _t(b)),
        "addmm": lambda w: mt.addmm(_t(np.ones(3)), _t(x), w.T, alpha=2.0),
        "w.T@3d": lambda w: w.T @ _t(_rand(4, 3, 5, seed=3)),
        "3d@w.T": lambda w: _t(_rand(4, 5, 2, seed=3)) @ w.T,
        "w.T@w2.T": lambda w: w.T @ _t(_rand(4, 3, seed=4)).T,
    }
    fn = fns[name]
    up = _rand(*fn(w).shape, seed=5)
    (g,) = mt.autograd.grad(fn(w), w, _t(up))
    assert g.stride() == (2, 1), (name, g.stride())
    assert g.view(-1).shape == (6,)  # the torch.cat([g.view(-1) ...]) idiom
    # the values: the same gradient computed from a row-major copy of the operand
    wc = _t(w.detach().numpy(), requires_grad=True)
    (ref,) = mt.autograd.grad(fn(wc), wc, _t(up))
    np.testing.assert_allclose(g.numpy(), ref.numpy(), rtol=1e-12, err_msg=name)
    assert gradcheck(fn, (w,))
    assert gradgradcheck(fn, (w,))


def test_transposed_operand_grad_backward_and_create_graph():
    x = _t(_rand(5, 2, seed=1))
    w = _t(_rand(3, 2), requires_grad=True)
    (x @ w.T).pow(2).sum().backward()
    assert w.grad.stride() == (2, 1)
    np.testing.assert_allclose(w.grad.numpy(), 2 * (x.numpy() @ w.detach().numpy().T).T @ x.numpy())
    (g,) = mt.autograd.grad((x @ w.T).pow(2).sum(), w, create_graph=True)
    assert g.stride() == (2, 1)
    (gg,) = mt.autograd.grad(g.pow(2).sum(), w)
    assert gg.stride() == (2, 1)
    # func.grad goes the same way
    g2 = mt.func.grad(lambda w: (x @ w.T).pow(2).sum())(w.detach())
    assert g2.stride() == (2, 1)
    np.testing.assert_allclose(g2.numpy(), w.grad.numpy(), rtol=1e-12)


def test_matmul_matrix_times_batch_folds_when_the_matrix_requires_grad():
    w = _t(_rand(3, 2), requires_grad=True)
    x = _t(_rand(4, 3, 5, seed=1), requires_grad=True)
    y = w.T @ x
    assert y.grad_fn.name() == "CloneBackward0"
    np.testing.assert_allclose(y.detach().numpy(), w.detach().numpy().T @ x.detach().numpy())
    gx, gw = mt.autograd.grad(y, (x, w), _t(_rand(4, 2, 5, seed=2)))
    assert gw.stride() == (2, 1) and gx.stride() == (15, 1, 3)
    assert gradcheck(lambda w, x: w.T @ x, (w, x))


# --- 2. alpha=0 skips the product in addmm/addmv/addbmm (not baddbmm/addr) ---


def test_alpha_zero_skips_the_product():
    bad = _t(np.full((2, 3), NAN))
    eye = _t(np.ones((2, 2)))
    r = mt.addmm(eye, bad, _t(np.ones((3, 2))), alpha=0)
    np.testing.assert_array_equal(r.numpy(), np.ones((2, 2)))
    r = mt.addmm(eye, bad, _t(np.ones((3, 2))), alpha=0, beta=0)
    np.testing.assert_array_equal(r.numpy(), np.zeros((2, 2)))
    r = mt.addmv(_t(np.ones(2)), bad, _t(np.full(3, INF)), alpha=0)
    np.testing.assert_array_equal(r.numpy(), np.ones(2))
    r = mt.addbmm(eye, bad[None], _t(np.ones((1, 3, 2))), alpha=0, beta=2)
    np.testing.assert_array_equal(r.numpy(), np.full((2, 2), 2.0))
    # torch's baddbmm and addr multiply through
    assert np.isnan(mt.baddbmm(eye[None], bad[None], _t(np.ones((1, 3, 2))), alpha=0).numpy()).all()
    r = mt.addr(eye, _t([NAN, 1.0]), _t(np.ones(2)), alpha=0).numpy()
    assert np.isnan(r[0]).all() and (r[1] == 1).all()


def test_alpha_zero_gradients():
    m1 = _t(_rand(2, 3), requires_grad=True)
    m2 = _t(_rand(3, 2, seed=1), requires_grad=True)
    inp = _t(_rand(2, 2, seed=2), requires_grad=True)
    up = _t(_rand(2, 2, seed=3))
    g_in, g1, g2 = mt.autograd.grad(mt.addmm(inp, m1, m2, alpha=0, beta=3), (inp, m1, m2), up)
    np.testing.assert_allclose(g_in.numpy(), 3 * up.numpy())
    np.testing.assert_array_equal(g1.numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(g2.numpy(), np.zeros((3, 2)))
    assert gradcheck(lambda i, a, b: mt.addmm(i, a, b, alpha=0, beta=0.5), (inp, m1, m2))


# --- 3. hermitian=True reads the lower triangle ---


def test_hermitian_reads_lower_triangle():
    a = np.array([[2.0, 5.0], [1.0, 3.0]])
    sym = np.array([[2.0, 1.0], [1.0, 3.0]])
    p = mt.linalg.pinv(_t(a), hermitian=True)
    np.testing.assert_allclose(p.numpy(), np.linalg.inv(sym), rtol=1e-12)
    # full-rank matrices whose lower triangles describe the rank-1 [[1, 1], [1, 1]]
    for m in ([[1.0, 5.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]]):
        assert mt.linalg.matrix_rank(_t(m)).item() == 2
        assert mt.linalg.matrix_rank(_t(m), hermitian=True).item() == 1
    assert mt.linalg.matrix_rank(_t([[1.0, 1.0], [2.0, 1.0]]), hermitian=True).item() == 2
    # the gradient: torch's pinv formula with A itself (not its symmetrised form)
    A = _t(a, requires_grad=True)
    (g,) = mt.autograd.grad(mt.linalg.pinv(A, hermitian=True), A, _t([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(g.numpy(), [[-0.08, -0.16], [-0.36, -0.6]], atol=1e-12)


# --- 4. solve_ex / inv_ex report singular matrices in info ---


def test_solve_ex_singular_reports_info():
    A = np.stack([np.eye(3), np.zeros((3, 3)), [[0, 1, 2], [0, 3, 1], [0, 0, 5.0]]])
    b = np.array([[1.0, 2.0, 0.0], [1.0, -1.0, 2.0], [2.0, 0.0, 1.0]])
    r = mt.linalg.solve_ex(_t(A), _t(b))
    assert r.info.dtype == mt.int32 and r.info.tolist() == [0, 1, 1]
    x = r.result.numpy()
    np.testing.assert_array_equal(x[0], b[0])
    np.testing.assert_array_equal(x[1], [NAN, NAN, INF])  # LAPACK getrs's pattern (torch's)
    np.testing.assert_allclose(x[2], [INF, -1 / 15, 0.2])
    r = mt.linalg.solve_ex(_t(A), _t(b)[:, None], left=False)
    assert r.info.tolist() == [0, 1, 1]
    assert np.isnan(r.result.numpy()[1]).all() and np.isnan(r.result.numpy()[2]).all()
    # info follows A's batch, not the broadcast one
    r = mt.linalg.solve_ex(_t(A[1]), _t(np.ones((2, 3, 1))))
    assert r.info.shape == () and r.info.item() == 1
    _raises(
        mt.linalg.LinAlgError,
        "torch.linalg.solve_ex: (Batch element 1): The solver failed because the input matrix is "
        "singular.",
        mt.linalg.solve_ex,
        _t(A),
        _t(b),
        check_errors=True,
    )
    Ar = _t(A, requires_grad=True)
    assert mt.linalg.solve_ex(Ar, _t(b)).result.grad_fn.name() == "LinalgSolveExBackward0"


def test_inv_ex_singular_reports_info():
    A = np.stack([np.eye(2), np.zeros((2, 2)), [[1.0, 2.0], [2.0, 4.0]]])
    r = mt.linalg.inv_ex(_t(A))
    assert r.info.tolist() == [0, 1, 2]
    np.testing.assert_array_equal(r.inverse.numpy()[0], np.eye(2))
    assert not np.isfinite(r.inverse.numpy()[1:]).all()
    _raises(
        mt.linalg.LinAlgError,
        "linalg.inv_ex: (Batch element 1): The diagonal element 1 is zero",
        mt.linalg.inv_ex,
        _t(A),
        check_errors=True,
    )


# --- 5. a batched tensor tolerance applies per matrix ---


def test_batched_tensor_tolerances():
    A = _t(np.stack([np.diag([1.0, 1e-2, 1e-4])] * 2))
    tol = _t([1e-3, 1e-1])
    np.testing.assert_allclose(
        mt.linalg.pinv(A, rtol=tol).diagonal(dim1=-2, dim2=-1).numpy(),
        [[1.0, 100.0, 0.0], [1.0, 0.0, 0.0]],
    )
    np.testing.assert_allclose(
        mt.linalg.pinv(A, atol=tol).diagonal(dim1=-2, dim2=-1).numpy(),
        [[1.0, 100.0, 0.0], [1.0, 0.0, 0.0]],
    )
    assert mt.linalg.matrix_rank(A, rtol=tol).tolist() == [2, 1]


# --- 6. grad_fn names ---


def test_grad_fn_names():
    a = (mt.ones(3, 3) + mt.eye(3)).requires_grad_()
    v = mt.ones(3, requires_grad=True)
    assert mt.linalg.lstsq(a, mt.ones(3, 1)).solution.grad_fn.name() == "LinalgLstsqBackward0"
    assert mt.linalg.solve(a, mt.ones(3)).grad_fn.name() == "LinalgSolveExBackward0"
    q = mt.linalg.householder_product(a, v[:2])
    assert q.grad_fn.name() == "LinalgHouseholderProductBackward0"
    assert mt.orgqr(a, v[:2]).grad_fn.name() == "LinalgHouseholderProductBackward0"
    assert mt.ormqr(a, v, mt.ones(3, 2)).grad_fn.name() == "OrmqrBackward0"
    x = mt.linalg.solve(a, _t([1.0, 2.0, 3.0], dtype=mt.float32))
    np.testing.assert_allclose(
        x.detach().numpy(), np.linalg.solve(np.eye(3) + 1, [1.0, 2.0, 3.0]), rtol=1e-6
    )


# --- 7. torch's messages for shape and dtype mismatches ---


@pytest.mark.parametrize(
    "fn, msg",
    [
        (
            lambda: mt.linalg.lstsq(mt.ones(4, 3), mt.ones(3, 2)),
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)",
        ),
        (
            lambda: mt.linalg.lstsq(mt.ones(4, 3), mt.ones(3)),
            "torch.linalg.lstsq: input.size(-2) should match other.size(-1)",
        ),
        (
            lambda: mt.linalg.lstsq(mt.ones(4, 3), mt.ones(4, 2, dtype=mt.float64)),
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
            "input's dtype Float and other's dtype Double",
        ),
        (
            lambda: mt.linalg.lstsq(mt.ones(4, 3), mt.ones(4, 3, 2)),
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim()",
        ),
        (
            lambda: mt.linalg.lstsq(mt.ones(4), mt.ones(4)),
            "torch.linalg.lstsq: input must have at least 2 dimensions.",
        ),
        (
            lambda: mt.linalg.lu_solve(*mt.linalg.lu_factor(mt.eye(3)), mt.ones(3, 1).double()),
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            "Float and B of type Double instead",
        ),
        (
            lambda: mt.linalg.solve_triangular(mt.eye(3), mt.ones(4, 1), upper=True),
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B "
            "(3x3 and 4x1)",
        ),
        (
            lambda: mt.linalg.solve_triangular(mt.eye(3), mt.ones(1, 4), upper=True, left=False),
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation XA = B "
            "(3x3 and 1x4)",
        ),
        (
            lambda: mt.cholesky_solve(mt.ones(4, 1), mt.eye(3)),
            "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b "
            "matrix is 4 by 1",
        ),
        (
            lambda: mt.cholesky_solve(mt.ones(3), mt.eye(3)),
            "b should have at least 2 dimensions, but has 1 dimensions instead",
        ),
        (
            lambda: mt.cholesky_solve(mt.ones(3, 1), mt.ones(2, 3)),
            "A must be batches of square matrices, but they are 2 by 3 matrices",
        ),
    ],
)
def test_messages(fn, msg):
    _raises(RuntimeError, msg, fn)


# --- 8. the input= keyword ---


def test_input_keyword():
    A = mt.eye(3) * 2
    np.testing.assert_allclose(mt.linalg.pinv(input=A).numpy(), np.eye(3) / 2)
    np.testing.assert_allclose(mt.linalg.pinv(input=A, rcond=0.1).numpy(), np.eye(3) / 2)
    assert mt.linalg.matrix_rank(input=A).item() == 3
    assert mt.linalg.matrix_rank(input=A, tol=3.0).item() == 0
    x = mt.cholesky_solve(input=_t([[2.0], [4.0], [6.0]]), input2=_t(np.eye(3) * 2))
    np.testing.assert_allclose(x.numpy(), [[0.5], [1.0], [1.5]])


# --- 9. lstsq's gels driver: a plain QR solve ---


def test_lstsq_gels_is_a_qr_solve():
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    b = np.array([[1.0], [0.0], [2.0]])
    r = mt.linalg.lstsq(_t(a), _t(b), driver="gels")
    ref, res, _, _ = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(r.solution.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(r.residuals.numpy(), res, rtol=1e-12)
    assert r.rank.shape == (0,) and r.singular_values.shape == (0,)
    # a vector b keeps its residuals' dim of one, as torch
    assert mt.linalg.lstsq(_t(a), _t(b[:, 0]), driver="gels").residuals.shape == (1,)
    assert mt.linalg.lstsq(_t(a), _t(b[:, 0]), driver="gelsd").residuals.shape == (1,)
    # underdetermined: the minimum-norm solution, no residuals
    r = mt.linalg.lstsq(_t(a.T), _t(b[:2]), driver="gels")
    np.testing.assert_allclose(r.solution.numpy(), np.linalg.pinv(a.T) @ b[:2], rtol=1e-12)
    assert r.residuals.shape == (0,)
    # no rank detection: a numerically singular matrix gives gels's huge solution (the
    # pseudo-inverse would cut the 1e-14 singular value)
    rng = np.random.default_rng(0)
    u, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    v, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    s = np.zeros((5, 4))
    s[:4, :4] = np.diag([10, 1, 1e-6, 1e-14])
    r = mt.linalg.lstsq(_t(u @ s @ v.T), _t(np.ones((5, 1))), driver="gels")
    assert r.solution.abs().max().item() > 1e12
    assert 1.0 < r.residuals.item() < 2.0
    A = _t(a, requires_grad=True)
    assert gradcheck(lambda A: mt.linalg.lstsq(A, _t(b), driver="gels").solution, (A,))
    assert gradcheck(lambda A: mt.linalg.lstsq(A, _t(b), driver="gels").residuals, (A,))


# --- 10. lu_unpack's skipped parts come back empty ---


def test_lu_unpack_skipped_parts_are_empty():
    LU, piv = mt.linalg.lu_factor(_t([[1.0, 2.0], [3.0, 4.0]], requires_grad=True))
    P, L, U = mt.lu_unpack(LU, piv, unpack_data=False)
    assert P.shape == (2, 2) and L.shape == (0,) and U.shape == (0,)
    assert L.dtype == mt.float64 and L.grad_fn.name() == "LuUnpackBackward0"
    P, L, U = mt.lu_unpack(LU, piv, unpack_pivots=False)
    assert P.shape == (0,) and P.dtype == mt.float64 and L.shape == U.shape == (2, 2)
    np.testing.assert_allclose((L @ U).detach().numpy(), [[3.0, 4.0], [1.0, 2.0]])


# --- 11. exception types and dtypes torch refuses ---


def test_refused_dtypes():
    ints = mt.tensor([[2, 1], [1, 2]])
    _raises(
        NotImplementedError, "\"linalg_eigh_cpu\" not implemented for 'Long'", mt.linalg.eigh, ints
    )
    _raises(
        NotImplementedError,
        "\"linalg_eigh_cpu\" not implemented for 'Long'",
        mt.linalg.eigvalsh,
        ints,
    )
    _raises(NotImplementedError, "\"lu_cpu\" not implemented for 'Long'", mt.linalg.lu, ints)
    _raises(NotImplementedError, "\"lu_cpu\" not implemented for 'Long'", mt.linalg.lu_factor, ints)
    _raises(RuntimeError, "linalg.det: Expected a floating point", mt.linalg.det, ints)
    x = mt.ones(3, dtype=mt.float64)
    _raises(
        RuntimeError,
        "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long",
        mt.linalg.vecdot, mt.arange(3), mt.arange(3),
    )  # fmt: skip
    _raises(
        RuntimeError,
        "linalg.vecdot: Expected x and y to have the same dtype, but found x of type Double and "
        "y of type Float instead",
        mt.linalg.vecdot, x, x.float(),
    )  # fmt: skip
    assert mt.linalg.vecdot(x, x * 2).item() == 6.0
    _raises(
        RuntimeError,
        "torch.linalg.householder_product: tau dtype Float does not match input dtype Double",
        mt.linalg.householder_product, mt.ones(3, 2, dtype=mt.float64), mt.ones(2),
    )  # fmt: skip
    _raises(
        TypeError,
        "tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int",
        mt.tensordot, mt.ones(2, 3), mt.ones(3, 4), dims=(1, 0),
    )  # fmt: skip
    _raises(
        TypeError,
        "tensordot(): argument 'dims_other' (position 4) must be tuple of ints, not int",
        mt.tensordot, mt.ones(2, 3), mt.ones(3, 4), dims=([1], 0),
    )  # fmt: skip
    assert mt.tensordot(mt.ones(2, 3), mt.ones(3, 4), dims=([1], [0])).shape == (2, 4)
    _raises(
        RuntimeError,
        "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32",
        mt.linalg.lu_solve, mt.eye(2), mt.tensor([1.0, 2.0]), mt.ones(2, 1),
    )  # fmt: skip
    _raises(
        ValueError,
        "Expected tangent to be floating point or complex, but got: torch.int64",
        mt.func.jvp, lambda a: a * 2, (x,), (mt.ones(3, dtype=mt.int64),),
    )  # fmt: skip
    _raises(
        ValueError,
        "Expected primal to be floating point or complex, but got: torch.int64",
        mt.func.jvp, lambda a: a * 2, (mt.ones(3, dtype=mt.int64),), (x,),
    )  # fmt: skip


# --- 12. out= on the multi-output functions ---


def test_multi_output_out():
    A = _t([[2.0, 1.0], [1.0, 3.0]])

    def e(dtype=mt.float64):
        return mt.empty(0, dtype=dtype)

    outs = (e(), e(), e())
    r = mt.linalg.svd(A, out=outs)
    assert type(r).__name__ == "linalg_svd_out" and r[1] is outs[1]
    np.testing.assert_allclose(outs[1].numpy(), np.linalg.svd(A.numpy())[1], rtol=1e-12)
    outs = (e(), e())
    r = mt.linalg.eigh(A, out=outs)
    assert type(r).__name__ == "linalg_eigh_out"
    np.testing.assert_allclose(outs[0].numpy(), np.linalg.eigvalsh(A.numpy()), rtol=1e-12)
    r = mt.linalg.slogdet(A, out=(e(), e()))
    np.testing.assert_allclose(r.logabsdet.item(), np.log(5.0), rtol=1e-12)
    assert type(mt.slogdet(A, out=(e(), e()))).__name__ == "slogdet_out"
    r = mt.linalg.lu_factor(A, out=(e(), e(mt.int32)))
    assert r.pivots.dtype == mt.int32 and r.LU.shape == (2, 2)
    r = mt.linalg.solve_ex(A, _t([[1.0], [2.0]]), out=(e(), e(mt.int32)))
    np.testing.assert_allclose(r.result.numpy(), np.linalg.solve(A.numpy(), [[1.0], [2.0]]))
    assert r.info.item() == 0
    for fn in (mt.linalg.qr, mt.linalg.lu, mt.linalg.inv_ex, mt.linalg.cholesky_ex, mt.geqrf):
        n = len(fn(A))
        r = fn(A, out=tuple(e(getattr(x, "dtype", mt.float64)) for x in fn(A)))
        assert type(r).__name__.endswith("_out") and len(r) == n, fn
    o = e()
    assert mt.linalg.vecdot(A, A, out=o) is o
    np.testing.assert_allclose(o.numpy(), [5.0, 10.0])
    with pytest.raises(TypeError):
        mt.linalg.svd(A, out=(e(), e()))
