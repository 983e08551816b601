"""Sweep 2's linear-algebra differences from torch: non-finite and singular inputs (cholesky,
det's gradient, cond, cholesky_solve, lu_factor), gradients that must be zeros rather than
missing, LU's derivative for non-square matrices, gradcheck's forward-mode check, deprecated
tolerance keywords, half-precision refusals, error messages and dtype promotion."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.autograd.gradcheck import GradcheckError

NAN, INF = float("nan"), float("inf")


def _t(a, requires_grad=False, dtype=mt.float64, device="cpu"):
    return mt.tensor(np.asarray(a, dtype=np.float64), dtype=dtype, requires_grad=requires_grad,
                     device=device)  # fmt: skip


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _raises(exc, msg, fn, *args, **kwargs):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(*args, **kwargs)


# --- cholesky of non-finite matrices ---


def test_cholesky_nan_is_not_positive_definite():
    not_pd = "the input is not positive-definite (the leading minor of order {} is not"
    _raises(mt.linalg.LinAlgError, not_pd.format(1), mt.linalg.cholesky, mt.full((3, 3), NAN,
            dtype=mt.float64))  # fmt: skip
    # what eye(3) * inf holds: nan off the diagonal (0 * inf), so the second pivot is nan
    inf_eye = _t([[INF, NAN, NAN], [NAN, INF, NAN], [NAN, NAN, INF]])
    _raises(mt.linalg.LinAlgError, not_pd.format(2), mt.linalg.cholesky, inf_eye)
    batch = mt.stack([mt.eye(3, dtype=mt.float64), mt.full((3, 3), NAN, dtype=mt.float64)])
    _raises(mt.linalg.LinAlgError, "linalg.cholesky: (Batch element 1): The factorization",
            mt.linalg.cholesky, batch)  # fmt: skip


@pytest.mark.parametrize(
    "m, info",
    [
        ([[NAN, 0], [0, 1]], 1),
        ([[1, 0], [0, NAN]], 2),
        ([[1, 0], [NAN, 1]], 2),
        ([[1, NAN], [0, 1]], 0),  # the upper triangle is not read
        ([[INF, 0], [0, INF]], 0),  # an infinite pivot is positive
        ([[4, 1, 1], [1, 4, 1], [1, 1, NAN]], 3),
    ],
)
def test_cholesky_ex_reports_nan_pivots(m, info):
    r = mt.linalg.cholesky_ex(_t(m))
    assert r.info.item() == info
    if info:
        assert np.isnan(r.L.numpy()[info - 1, info - 1])
        assert np.isnan(r.L.numpy()[info - 1, : info - 1]).sum() == np.isnan(np.asarray(m,
               dtype=float)[info - 1, : info - 1]).sum()  # fmt: skip


def test_cholesky_on_strict_device_reads_nothing_back():
    a = _rand(3, 3)
    a = a @ a.T + 3 * np.eye(3)
    low = mt.linalg.cholesky(_t(a, device="strict"))
    np.testing.assert_allclose(low.cpu().numpy(), np.linalg.cholesky(a), rtol=1e-12)


# --- det's gradient at singular matrices ---


def test_det_backward_of_singular_matrix_is_zero_as_torch():
    x = _t([[1.0, 2, 0], [3, 4, 0], [5, 6, 0]], requires_grad=True)
    mt.linalg.det(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 3)))
    b = _t([[[1.0, 0], [0, 0]], [[2, 1], [1, 3]]], requires_grad=True)
    mt.linalg.det(b).sum().backward()
    expected = [[[0, 0], [0, 0]], [[3, -1], [-1, 2]]]
    np.testing.assert_allclose(b.grad.numpy(), expected, atol=1e-12)


def test_det_create_graph_at_singular_matrix_is_the_adjugate():
    x = _t([[1.0, 2, 0], [3, 4, 0], [5, 6, 0]], requires_grad=True)
    (g,) = mt.autograd.grad(mt.linalg.det(x), x, create_graph=True)
    expected = [[0, 0, -2], [0, 0, 4], [0, 0, -2]]  # the cofactors of the zero column
    np.testing.assert_allclose(g.detach().numpy(), expected, atol=1e-12)
    assert g.requires_grad
    y = _t([[1.0, 0], [0, 0]], requires_grad=True)
    (g,) = mt.autograd.grad(mt.linalg.det(y), y, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [[0, 0], [0, 1]], atol=1e-12)

    def det_grad(a):
        return mt.autograd.grad(mt.linalg.det(a), a, create_graph=True)[0]

    assert gradcheck(det_grad, (x,))  # the second derivative at the singular matrix


def test_det_gradients_of_regular_matrices_still_check():
    x = _t(_rand(3, 3), requires_grad=True)
    assert gradcheck(mt.linalg.det, (x,))
    assert gradgradcheck(mt.linalg.det, (x,))


# --- cond of singular matrices ---


@pytest.mark.parametrize("p", [1, -1, INF, -INF, "fro", "nuc"])
def test_cond_of_singular_matrix_is_inf(p):
    assert mt.linalg.cond(mt.ones(3, 3, dtype=mt.float64), p).item() == INF
    batch = mt.stack([mt.eye(2, dtype=mt.float64) * 2, mt.zeros(2, 2, dtype=mt.float64)])
    r = mt.linalg.cond(batch, p).numpy()
    assert r[1] == INF
    eye2 = np.eye(2) * 2
    np.testing.assert_allclose(r[0], np.linalg.cond(eye2, p), rtol=1e-12)


# --- gradients that are zeros, not missing ---


def test_matrix_power_zero_stays_in_the_graph():
    a = _t(_rand(3, 3), requires_grad=True)
    p0 = mt.linalg.matrix_power(a, 0)
    assert p0.requires_grad and type(p0.grad_fn).__name__ == "CopyBackwards"
    np.testing.assert_array_equal(p0.detach().numpy(), np.eye(3))
    p0.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((3, 3)))
    assert not mt.linalg.matrix_power(a.detach(), 0).requires_grad


def test_cdist_p0_and_addmv_beta0_give_zero_gradients():
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    d = mt.cdist(x, x + mt.tensor([[1.0, 0.0], [0.0, 0.0]]), p=0)
    np.testing.assert_array_equal(d.detach().numpy(), [[1, 2], [2, 0]])
    d.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 2)))
    c = mt.tensor([NAN, 1.0], requires_grad=True)  # beta = 0: input's values are ignored
    a, v = mt.ones(2, 2, requires_grad=True), mt.ones(2, requires_grad=True)
    r = mt.addmv(c, a, v, beta=0)
    np.testing.assert_array_equal(r.detach().numpy(), [2, 2])
    assert type(r.grad_fn).__name__ == "AddmvBackward0"
    r.sum().backward()
    np.testing.assert_array_equal(c.grad.numpy(), [0, 0])
    np.testing.assert_array_equal(v.grad.numpy(), [2, 2])


# --- LU's derivative for non-square matrices ---


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 3, 4), (2, 4, 3)])
def test_lu_backward_of_non_square_matrices(shape):
    a = _t(_rand(*shape, seed=3), requires_grad=True)
    assert gradcheck(lambda x: tuple(mt.linalg.lu(x))[1:], (a,))
    assert gradcheck(lambda x: mt.linalg.lu_factor(x).LU, (a,))


def test_lu_double_backward_of_non_square_matrices():
    for shape in [(2, 3), (3, 2)]:
        a = _t(_rand(*shape, seed=4), requires_grad=True)
        assert gradgradcheck(lambda x: tuple(mt.linalg.lu(x))[1:], (a,))


def test_lu_backward_wide_values():
    # the values torch 2.13 gives for (L.sum() + U.sum()).backward() of these matrices
    a = _t(np.random.default_rng(0).standard_normal((3, 5)), requires_grad=True)
    _, low, up = mt.linalg.lu(a)
    (low.sum() + up.sum()).backward()
    np.testing.assert_allclose(a.grad.sum().item(), -2.229445269395402, rtol=1e-9)
    a = _t(np.random.default_rng(0).standard_normal((5, 3)), requires_grad=True)
    _, low, up = mt.linalg.lu(a)
    (low.sum() + up.sum()).backward()
    np.testing.assert_allclose(a.grad.sum().item(), 1.9736479432482144, rtol=1e-9)


# --- singular factors ---


def test_cholesky_solve_with_singular_factor_gives_nan():
    r = mt.cholesky_solve(mt.ones(3, 1, dtype=mt.float64), mt.zeros(3, 3, dtype=mt.float64))
    assert np.isnan(r.numpy()).all()
    upper = mt.cholesky_solve(mt.ones(3, 1, dtype=mt.float64), mt.zeros(3, 3, dtype=mt.float64),
                              upper=True)  # fmt: skip
    assert np.isnan(upper.numpy()).all()


def test_cholesky_solve_regular_factor_unchanged():
    a = _rand(3, 3)
    a = a @ a.T + 3 * np.eye(3)
    low, b = np.linalg.cholesky(a), _rand(3, 2, seed=1)
    for upper, f in ((False, low), (True, low.T)):
        r = mt.cholesky_solve(_t(b), _t(f), upper=upper)
        np.testing.assert_allclose(r.numpy(), np.linalg.solve(a, b), rtol=1e-10)


def test_cholesky_solve_requires_equal_dtypes():
    low = mt.linalg.cholesky(mt.eye(3, dtype=mt.float64) * 2)
    _raises(RuntimeError, "Expected b and A to have the same dtype, but found b of type Float and "
            "A of type Double instead.", mt.cholesky_solve, mt.ones(3, 1), low)  # fmt: skip


def test_lu_factor_of_singular_matrix_raises():
    msg = (
        "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a "
        "division by zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )
    _raises(RuntimeError, msg, mt.linalg.lu_factor, mt.ones(3, 3, dtype=mt.float64))
    batch = mt.stack([mt.eye(2, dtype=mt.float64), mt.zeros(2, 2, dtype=mt.float64)])
    _raises(RuntimeError, "lu_factor: (Batch element 1): U[1,1] is zero", mt.linalg.lu_factor,
            batch)  # fmt: skip
    r = mt.linalg.lu_factor_ex(mt.ones(3, 3, dtype=mt.float64))
    assert r.info.item() == 2
    p, low, up = mt.linalg.lu(mt.ones(3, 3, dtype=mt.float64))  # lu does not check
    np.testing.assert_allclose((p @ low @ up).numpy(), np.ones((3, 3)))


# --- gradcheck's forward-mode check ---


class _FrozenBackward(mt.autograd.Function):
    """out = x * x with a correct backward that is not differentiable in grad (its tangents,
    computed through double backward, are missing)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return mt.tensor((2 * grad.detach() * x.detach()).numpy())


class _WrongJvp(mt.autograd.Function):
    """x * x with a right backward and a jvp missing the factor 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * grad * x

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * x


def test_gradcheck_forward_ad_checks_tangents():
    x = _t(_rand(4), requires_grad=True)
    assert gradcheck(mt.sin, (x,), check_forward_ad=True)
    assert gradcheck(mt.sin, (x,), check_forward_ad=True, fast_mode=True)
    two = (x, _t(_rand(4, seed=1), requires_grad=True))
    assert gradcheck(lambda a, b: (a * b, a.exp()), two, check_forward_ad=True,
                     check_backward_ad=False)  # fmt: skip
    assert gradcheck(_FrozenBackward.apply, (x,))  # the backward itself is right
    # a custom Function without jvp: torch's NotImplementedError, even without raise_exception
    for fast in (False, True):
        with pytest.raises(NotImplementedError, match="jvp"):
            gradcheck(_FrozenBackward.apply, (x,), check_forward_ad=True,
                      check_backward_ad=False, fast_mode=fast)  # fmt: skip
    with pytest.raises(NotImplementedError, match="jvp"):
        gradcheck(_FrozenBackward.apply, (x,), check_forward_ad=True, raise_exception=False)
    for fast in (False, True):  # a wrong jvp is caught
        with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch"):
            gradcheck(_WrongJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                      fast_mode=fast)  # fmt: skip
    assert not gradcheck(_WrongJvp.apply, (x,), check_forward_ad=True, raise_exception=False)


def test_gradgradcheck_fwd_over_rev():
    x = _t(_rand(3), requires_grad=True)
    assert gradgradcheck(lambda a: a.sin() * a, (x,), check_fwd_over_rev=True)


# --- deprecated tolerance keywords ---


def test_pinv_rcond_and_matrix_rank_tol():
    a = mt.diag(_t([2.0, 0.3, 0.01]))
    np.testing.assert_allclose(mt.linalg.pinv(a, rcond=0.1).diagonal().numpy(), [0.5, 1 / 0.3, 0])
    np.testing.assert_allclose(mt.linalg.pinv(a, 0.1).diagonal().numpy(), [0.5, 1 / 0.3, 0])
    np.testing.assert_allclose(mt.linalg.pinv(a, rcond=0).diagonal().numpy(), [0.5, 1 / 0.3, 100])
    assert mt.linalg.matrix_rank(a, tol=0.5).item() == 1
    assert mt.linalg.matrix_rank(a, 0.005).item() == 3
    assert mt.linalg.matrix_rank(mt.diag(_t([2.0, 0.3, 1e-30])), tol=0).item() == 3  # rtol = 0
    with pytest.raises(TypeError):
        mt.linalg.pinv(a, rcond=0.1, rtol=0.2)
    with pytest.raises(TypeError):
        mt.linalg.matrix_rank(a, tol=0.1, atol=0.2)


# --- half precision ---


@pytest.mark.parametrize(
    "fn, exc, msg",
    [
        (mt.linalg.inv, RuntimeError, "linalg.inv: Low precision dtypes not supported. Got Half"),
        (mt.linalg.det, NotImplementedError, "\"lu_cpu\" not implemented for 'Half'"),
        (mt.logdet, RuntimeError, "logdet: Low precision dtypes not supported. Got Half"),
        (mt.linalg.cholesky, NotImplementedError, "\"cholesky_cpu\" not implemented for 'Half'"),
        (mt.linalg.eigh, NotImplementedError, "\"linalg_eigh_cpu\" not implemented for 'Half'"),
        (mt.linalg.svdvals, NotImplementedError, "\"linalg_svd_cpu\" not implemented for 'Half'"),
        (mt.linalg.lu_factor, NotImplementedError, "\"lu_cpu\" not implemented for 'Half'"),
        (mt.linalg.matrix_rank, RuntimeError, "doesn't handle types other than float and double"),
        (mt.cholesky_inverse, NotImplementedError, '"cholesky_inverse_out_cpu" not implemented'),
    ],
)
def test_half_precision_linalg_raises_torch_errors(fn, exc, msg):
    _raises(exc, msg, fn, mt.eye(2, dtype=mt.float16))


def test_half_precision_where_allowed():
    _raises(RuntimeError, "Got BFloat16", mt.linalg.inv, mt.eye(2, dtype=mt.bfloat16))
    r = mt.linalg.matrix_exp(mt.zeros(2, 2, dtype=mt.float16))
    assert r.dtype == mt.float16
    np.testing.assert_array_equal(r.float().numpy(), np.eye(2))


# --- messages ---


def test_linalg_error_messages_name_op_and_batch_element():
    eye, zero = mt.eye(3, dtype=mt.float64), mt.zeros(3, 3, dtype=mt.float64)
    _raises(mt.linalg.LinAlgError, "torch.linalg.solve: (Batch element 1): The solver failed "
            "because the input matrix is singular.", mt.linalg.solve, mt.stack([eye, zero]),
            mt.ones(2, 3, dtype=mt.float64))  # fmt: skip
    nan = mt.full((3, 3), NAN, dtype=mt.float64)
    _raises(mt.linalg.LinAlgError, "linalg.svd: The algorithm failed to converge because the "
            "input matrix contained non-finite values.", mt.linalg.svdvals, nan)  # fmt: skip
    _raises(mt.linalg.LinAlgError, "linalg.svd: (Batch element 1): The algorithm failed",
            mt.linalg.svd, mt.stack([eye, nan]))  # fmt: skip
    _raises(mt.linalg.LinAlgError, "linalg.eigh: The algorithm failed to converge because the "
            "input matrix is ill-conditioned or has too many repeated eigenvalues (error code: "
            "2).", mt.linalg.eigh, nan)  # fmt: skip
    _raises(mt.linalg.LinAlgError, "cholesky_inverse: The diagonal element 1 is zero",
            mt.cholesky_inverse, zero)  # fmt: skip


@pytest.mark.parametrize(
    "fn, dts, msg",
    [
        (mt.addmm, "ffd", "self and mat2 must have the same dtype, but got Float and Double"),
        (mt.addmm, "fdf", "mat1 and mat2 must have the same dtype, but got Double and Float"),
        (mt.addmm, "dff", "self and mat2 must have the same dtype, but got Double and Float"),
        (mt.addbmm, "fdf", "mat1 and mat2 must have the same dtype, but got Double and Float"),
        (mt.baddbmm, "ffd", "expected scalar type Float but found Double"),
        (
            mt.baddbmm,
            "fdf",
            "Input dtypes must be the same, got: input float, batch1: double, batch2: float",
        ),  # fmt: skip
        (
            mt.addmv,
            "dff",
            "addmv input tensors must have the same dtype, but got Double, Float, and Float",
        ),  # fmt: skip
    ],
)
def test_add_product_dtype_messages(fn, dts, msg):
    dt = {"f": mt.float32, "d": mt.float64}
    shapes = {
        mt.addmm: [(3, 2), (3, 4), (4, 2)],
        mt.addbmm: [(3, 2), (2, 3, 4), (2, 4, 2)],
        mt.baddbmm: [(2, 3, 2), (2, 3, 4), (2, 4, 2)],
        mt.addmv: [(3,), (3, 4), (4,)],
    }[fn]
    args = [mt.ones(s, dtype=dt[c]) for s, c in zip(shapes, dts, strict=True)]
    _raises(RuntimeError, msg, fn, *args)


def test_matmul_vector_matrix_dtype_message():
    _raises(RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != double",
            mt.matmul, mt.ones(4), mt.ones(4, 2, dtype=mt.float64))  # fmt: skip


# --- dtype promotion of kron and block_diag ---


def test_kron_promotes_like_two_dimensioned_tensors():
    r = mt.kron(mt.tensor([True, False]), mt.tensor([2.5, 3.0]))
    assert r.dtype == mt.float32
    np.testing.assert_array_equal(r.numpy(), [2.5, 3.0, 0, 0])
    r = mt.kron(mt.tensor([1, 2]), mt.tensor(2.5))
    assert r.dtype == mt.float32
    np.testing.assert_array_equal(r.numpy(), [2.5, 5.0])
    assert mt.kron(mt.ones(2), mt.tensor(2.0, dtype=mt.float64)).dtype == mt.float64
    a, b = _t(_rand(2, 2), requires_grad=True), _t(_rand(2, 3, seed=1), requires_grad=True)
    assert gradcheck(mt.kron, (a, b))


def test_block_diag_promotes_with_result_type():
    r = mt.block_diag(mt.tensor([[1]], dtype=mt.uint8), mt.tensor(2))
    assert r.dtype == mt.uint8
    np.testing.assert_array_equal(r.numpy(), [[1, 0], [0, 2]])
    assert mt.block_diag(mt.tensor([[1]], dtype=mt.uint8), mt.tensor([2])).dtype == mt.int64
    assert mt.block_diag(mt.tensor([[1]], dtype=mt.uint8), mt.tensor(2.5)).dtype == mt.float32
