"""Decompositions and solvers beyond the op table: errors, return types, node names, LU, the
deprecated torch.* spellings (values and gradients are in specs_linalg_decomp.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _t(a, **kw):
    return (
        mt.from_numpy(np.asarray(a, dtype=np.float64))
        .clone()
        .requires_grad_(kw.get("requires_grad", False))
    )


def _square(n=3, batch=(), seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, size=batch + (n, n)) + 2 * np.eye(n)


SINGULAR = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]


# --- errors ---


def test_linalg_error_is_a_runtime_error():
    assert issubclass(mt.linalg.LinAlgError, RuntimeError)


def test_inv_singular_message():
    with pytest.raises(mt.linalg.LinAlgError) as e:
        mt.linalg.inv(_t(SINGULAR))
    assert str(e.value) == (
        "linalg.inv: The diagonal element 3 is zero, the inversion could not be completed "
        "because the input matrix is singular."
    )


def test_inv_singular_names_the_batch_element():
    batch = np.stack([np.eye(3), np.asarray(SINGULAR)])
    with pytest.raises(
        RuntimeError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 3"
    ):
        mt.inverse(_t(batch))


@pytest.mark.parametrize(
    ("shape", "dtype", "message"),
    [
        ((2, 3), mt.float32, "linalg.inv: A must be batches of square matrices, but they are 2 "
         "by 3 matrices"),
        ((3,), mt.float32, "linalg.inv: The input tensor A must have at least 2 dimensions."),
        ((2, 2), mt.int64, "linalg.inv: Expected a floating point or complex tensor as input. Got "
         "Long"),
    ],
)  # fmt: skip
def test_inv_shape_and_dtype_errors(shape, dtype, message):
    with pytest.raises(RuntimeError) as e:
        mt.linalg.inv(mt.ones(shape, dtype=dtype))
    assert str(e.value) == message


def test_det_non_square():
    with pytest.raises(RuntimeError, match="linalg.det: A must be batches of square matrices"):
        mt.linalg.det(mt.ones(2, 3))


def test_cholesky_not_positive_definite():
    a = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 1.0]]])
    with pytest.raises(mt.linalg.LinAlgError) as e:
        mt.linalg.cholesky(_t(a))
    assert str(e.value) == (
        "linalg.cholesky: (Batch element 1): The factorization could not be completed because the "
        "input is not positive-definite (the leading minor of order 2 is not positive-definite)."
    )


def test_solve_errors():
    with pytest.raises(mt.linalg.LinAlgError, match="The solver failed because the input matrix"):
        mt.linalg.solve(_t(SINGULAR), _t([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError) as e:
        mt.linalg.solve(mt.eye(3), mt.ones(4))
    assert str(e.value) == (
        "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"
    )


def test_qr_backward_errors():
    a = _t(np.random.default_rng(1).normal(size=(5, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        mt.linalg.qr(a, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows"):
        mt.linalg.qr(a, mode="complete").Q.sum().backward()
    with pytest.raises(RuntimeError, match="unrecognized mode 'full'"):
        mt.linalg.qr(a, mode="full")


def test_eig_is_out_of_scope():
    with pytest.raises(NotImplementedError, match="complex tensors"):
        mt.linalg.eig(mt.eye(2))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_solve_triangular_zero_diagonal_gives_inf_like_torch():
    x = mt.linalg.solve_triangular(_t([[1.0, 2.0], [0.0, 0.0]]), _t([[1.0], [1.0]]), upper=True)
    np.testing.assert_array_equal(x.numpy(), [[-np.inf], [np.inf]])


# --- return types and node names ---


def test_return_types():
    a = _t(_square())
    assert type(mt.linalg.slogdet(a)).__name__ == "linalg_slogdet"
    assert type(mt.slogdet(a)).__name__ == "slogdet"
    assert type(mt.linalg.qr(a)).__name__ == "linalg_qr"
    assert type(mt.qr(a)).__name__ == "qr"
    assert type(mt.linalg.svd(a)).__name__ == "linalg_svd"
    assert type(mt.svd(a)).__name__ == "svd"
    assert type(mt.linalg.eigh(a)).__name__ == "linalg_eigh"
    assert type(mt.linalg.lstsq(a, a)).__name__ == "linalg_lstsq"
    assert type(mt.linalg.lu_factor(a)).__name__ == "linalg_lu_factor"
    assert type(mt.linalg.lu(a)).__name__ == "linalg_lu"
    sign, logabs = mt.linalg.slogdet(a)
    assert sign.requires_grad is False and logabs.dtype == mt.float64


def test_node_names_match_torch():
    a = _t(_square(), requires_grad=True)
    spd = a @ a.mT
    names = {
        "LinalgInvExBackward0": mt.linalg.inv(a),
        "LinalgDetBackward0": mt.linalg.det(a),
        "LinalgSlogdetBackward0": mt.linalg.slogdet(a).logabsdet,
        "LinalgSolveExBackward0": mt.linalg.solve(a, a),
        "LinalgSolveTriangularBackward0": mt.linalg.solve_triangular(a, a, upper=True),
        "LinalgCholeskyExBackward0": mt.linalg.cholesky(spd),
        "LinalgQrBackward0": mt.linalg.qr(a).Q,
        "LinalgEighBackward0": mt.linalg.eigh(spd).eigenvalues,
        "LinalgSvdBackward0": mt.linalg.svd(a).S,
        "LinalgMatrixExpBackward0": mt.linalg.matrix_exp(a),
    }
    for name, out in names.items():
        assert out.grad_fn.name() == name


# --- LU (forward only) ---


def test_lu_factor_and_lu_reconstruct():
    a = np.random.default_rng(0).normal(size=(2, 4, 3))
    lu, piv = mt.linalg.lu_factor(_t(a))
    assert piv.dtype == mt.int32 and tuple(piv.shape) == (2, 3)
    p, low, up = mt.linalg.lu(_t(a))
    np.testing.assert_allclose((p @ low @ up).numpy(), a, atol=1e-12, err_msg="P L U != A")
    np.testing.assert_allclose(np.triu(lu.numpy()[:, :3]), up.numpy(), err_msg="U in LU")
    p2, low2, up2 = mt.lu_unpack(lu, piv)
    np.testing.assert_array_equal(p2.numpy(), p.numpy(), err_msg="lu_unpack P")
    np.testing.assert_array_equal(low2.numpy(), low.numpy(), err_msg="lu_unpack L")


def test_lu_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).normal(size=(2, 3, 5))
    ours = mt.linalg.lu_factor(_t(a))
    theirs = torch.linalg.lu_factor(torch.from_numpy(a))
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-12, err_msg="LU")
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy(), err_msg="pivots")


# --- the torch.* spellings and Tensor methods ---


def test_svd_compute_uv_false_and_full():
    a = _t(np.random.default_rng(2).normal(size=(4, 3)))
    u, s, v = mt.svd(a, compute_uv=False)
    assert tuple(u.shape) == (4, 4) and tuple(v.shape) == (3, 3)
    assert not u.numpy().any() and not v.numpy().any()
    u, s, v = mt.svd(a, some=False)
    assert tuple(u.shape) == (4, 4) and tuple(v.shape) == (3, 3)
    np.testing.assert_allclose((u[:, :3] * s) @ v.mT, a.numpy(), atol=1e-12, err_msg="U S V^T")


def test_lstsq_default_driver_outputs():
    rng = np.random.default_rng(4)
    a, b = _t(rng.normal(size=(5, 3))), _t(rng.normal(size=(5, 2)))
    x, residuals, rank, svals = mt.linalg.lstsq(a, b)
    assert tuple(residuals.shape) == (0,) and tuple(svals.shape) == (0,)
    assert rank.dtype == mt.int64 and rank.item() == 3
    want = np.linalg.lstsq(a.numpy(), b.numpy(), rcond=None)[0]
    np.testing.assert_allclose(x.numpy(), want, atol=1e-12, err_msg="solution")


def test_tensor_methods():
    a = _t(_square())
    np.testing.assert_allclose(a.det().item(), np.linalg.det(a.numpy()), err_msg="det")
    np.testing.assert_allclose(a.inverse().numpy(), np.linalg.inv(a.numpy()), err_msg="inverse")
    spd = a @ a.mT
    low = spd.cholesky()
    np.testing.assert_allclose((low @ low.mT).numpy(), spd.numpy(), err_msg="cholesky")
    np.testing.assert_allclose(
        spd.logdet().item(), np.linalg.slogdet(spd.numpy())[1], err_msg="logdet"
    )
    np.testing.assert_allclose(
        a.matrix_power(-1).numpy(), np.linalg.inv(a.numpy()), err_msg="matrix_power"
    )
    np.testing.assert_allclose(
        a.pinverse().numpy(), np.linalg.inv(a.numpy()), atol=1e-12, err_msg="pinverse"
    )


def test_cholesky_solve_upper_and_inverse():
    a = _t(_square())
    spd = a @ a.mT + mt.eye(3, dtype=mt.float64)
    up = mt.linalg.cholesky(spd, upper=True)
    b = _t(np.arange(6.0).reshape(3, 2))
    want = np.linalg.solve(spd.numpy(), b.numpy())
    np.testing.assert_allclose(mt.cholesky_solve(b, up, upper=True).numpy(), want, err_msg="solve")
    np.testing.assert_allclose(
        mt.cholesky_inverse(up, upper=True).numpy(), np.linalg.inv(spd.numpy()), err_msg="inverse"
    )


def test_logdet_of_singular_is_minus_inf():
    assert mt.logdet(_t(SINGULAR[:2] + [[0.0, 0.0, 0.0]])).item() == -np.inf


def test_matrix_exp_of_rotation_generator():
    theta = 0.7
    a = _t([[0.0, -theta], [theta, 0.0]])
    want = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    np.testing.assert_allclose(mt.matrix_exp(a).numpy(), want, atol=1e-14, err_msg="expm")


def test_matrix_exp_large_norm_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(5).normal(size=(2, 4, 4)) * 5
    got = mt.linalg.matrix_exp(_t(a)).numpy()
    want = torch.linalg.matrix_exp(torch.from_numpy(a)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, err_msg="expm, scaled and squared")


def test_matrix_rank_tolerances():
    a = _t(np.diag([1.0, 1e-3, 1e-9]))
    # (torch's answers) the default rtol is eps * max(m, n); atol alone sets rtol to 0
    assert mt.linalg.matrix_rank(a).item() == 3
    assert mt.linalg.matrix_rank(a, atol=1e-2).item() == 1
    assert mt.linalg.matrix_rank(a, rtol=1e-6).item() == 2
    assert mt.linalg.matrix_rank(a, atol=1e-2, rtol=1e-6).item() == 1
    assert mt.linalg.matrix_rank(a, atol=1e-12).item() == 3
