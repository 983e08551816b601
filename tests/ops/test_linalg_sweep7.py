"""Sweep 7's linear-algebra differences from torch: Cholesky of a matrix with +inf on the diagonal
(inf / inf pivots, and the NaN columns of torch's small float32 kernel), torch.cholesky's error
naming its own op, and the batch-broadcast error of the solves naming B's and A's batch sizes."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

INF = float("inf")
NAN = float("nan")
K3 = [[4.0, 1.0, 0.0], [1.0, INF, 0.0], [0.0, 0.0, 1.0]]


def _t(a, dtype=mt.float64):
    return mt.tensor(np.asarray(a, dtype=np.float64), dtype=dtype)


def _pd_message(op, order, batch=""):
    return (
        f"{op}: {batch}The factorization could not be completed because the input is not "
        f"positive-definite (the leading minor of order {order} is not positive-definite)."
    )


def _assert_factor(got, want, err_msg):
    np.testing.assert_array_equal(got.numpy(), np.asarray(want, dtype=np.float64), err_msg=err_msg)


# --- Cholesky of an infinite pivot ---


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_cholesky_all_inf_fails_at_order_2(dtype):
    # inf / inf below the first pivot is NaN, so is the second pivot
    a = mt.full((2, 2), INF, dtype=dtype)
    low, info = mt.linalg.cholesky_ex(a)
    assert info.item() == 2
    _assert_factor(low, [[INF, 0.0], [NAN, NAN]], "lower")
    up, info_up = mt.linalg.cholesky_ex(a, upper=True)
    assert info_up.item() == 2
    _assert_factor(up, [[INF, NAN], [0.0, NAN]], "upper")
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(_pd_message("linalg.cholesky", 2))):
        mt.linalg.cholesky(a)
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(_pd_message("linalg.cholesky", 2))):
        mt.linalg.cholesky(a, upper=True)
    msg = _pd_message("linalg.cholesky_ex", 2)
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(msg)):
        mt.linalg.cholesky_ex(a, check_errors=True)
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(_pd_message("cholesky", 2))):
        mt.cholesky(a)


def test_cholesky_small_float32_inf_pivot_fails_next():
    # torch's float32 kernel for small matrices leaves NaN below an infinite pivot
    low, info = mt.linalg.cholesky_ex(_t(K3, mt.float32))
    assert info.item() == 3
    _assert_factor(low, [[2.0, 0.0, 0.0], [0.5, INF, 0.0], [0.0, NAN, NAN]], "float32")
    up, info_up = mt.linalg.cholesky_ex(_t(K3, mt.float32), upper=True)
    assert info_up.item() == 3
    _assert_factor(up, [[2.0, 0.5, 0.0], [0.0, INF, NAN], [0.0, 0.0, NAN]], "float32 upper")
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(_pd_message("linalg.cholesky", 3))):
        mt.linalg.cholesky(_t(K3, mt.float32))


def test_cholesky_float64_inf_pivot_factors():
    # float64 divides as IEEE does: 0 / inf = 0, and the factorization completes
    want = [[2.0, 0.0, 0.0], [0.5, INF, 0.0], [0.0, 0.0, 1.0]]
    low, info = mt.linalg.cholesky_ex(_t(K3))
    assert info.item() == 0
    _assert_factor(low, want, "cholesky_ex")
    _assert_factor(mt.linalg.cholesky(_t(K3)), want, "cholesky")
    _assert_factor(mt.linalg.cholesky(_t(np.diag([INF, INF, INF]))), np.diag([INF] * 3), "diag")


@pytest.mark.parametrize(
    ("n", "pos", "want"),
    [(2, 0, 2), (2, 1, 0), (4, 0, 2), (4, 2, 4), (4, 3, 0), (16, 7, 9), (17, 7, 0), (17, 0, 0)],
)
def test_cholesky_float32_inf_pivot_info_by_size(n, pos, want):
    a = np.eye(n) * 2.0 + 0.1
    a[pos, pos] = INF
    assert mt.linalg.cholesky_ex(_t(a, mt.float32)).info.item() == want
    assert mt.linalg.cholesky_ex(_t(a, mt.float32), upper=True).info.item() == want
    assert mt.linalg.cholesky_ex(_t(a)).info.item() == 0


@pytest.mark.parametrize(
    ("dtype", "want"), [(mt.float32, [0, 2, 3, 3, 1]), (mt.float64, [0, 2, 0, 3, 1])]
)
def test_cholesky_batched_infos_with_inf_and_nan(dtype, want):
    mats = [
        np.eye(3) * 2.0,
        np.full((3, 3), INF),
        K3,
        [[4.0, 1.0, 0.0], [1.0, 4.0, 0.0], [0.0, 0.0, -INF]],
        [[NAN, 1.0, 0.0], [1.0, 4.0, 0.0], [0.0, 0.0, 1.0]],
    ]
    a = _t(np.stack([np.asarray(m, dtype=np.float64) for m in mats]).reshape(5, 1, 3, 3), dtype)
    low, info = mt.linalg.cholesky_ex(a)
    assert info.shape == (5, 1)
    assert info.flatten().tolist() == want
    assert mt.linalg.cholesky_ex(a, upper=True).info.flatten().tolist() == want
    _assert_factor(low[1, 0], [[INF, 0.0, 0.0], [NAN, NAN, 0.0], [NAN, INF, INF]], "all inf")
    msg = _pd_message("linalg.cholesky", 2, "(Batch element 1): ")
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(msg)):
        mt.linalg.cholesky(a)


def test_cholesky_gradients_unchanged():
    a = _t([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]).requires_grad_()
    # the factor reads one triangle: differentiate through a symmetric input
    assert gradcheck(lambda x: mt.linalg.cholesky(x + x.mT), (a,))
    assert gradgradcheck(lambda x: mt.linalg.cholesky(x + x.mT, upper=True), (a,))


def test_deprecated_cholesky_error_names_its_op():
    with pytest.raises(mt.linalg.LinAlgError, match=re.escape(_pd_message("cholesky", 1))):
        mt.cholesky(-mt.eye(2))


# --- batch dimensions of the solves ---


def _solvers(a, b):
    lu, piv = mt.linalg.lu_factor(a)
    return {
        "cholesky_solve": lambda: mt.cholesky_solve(b, a),
        "solve_triangular": lambda: mt.linalg.solve_triangular(a, b, upper=False),
        "solve_triangular_right": lambda: mt.linalg.solve_triangular(
            a, b.mT, upper=False, left=False
        ),
        "triangular_solve": lambda: mt.triangular_solve(b, a),
        "solve": lambda: mt.linalg.solve(a, b),
        "solve_ex": lambda: mt.linalg.solve_ex(a, b),
        "solve_right": lambda: mt.linalg.solve(a, b.mT, left=False),
        "lu_solve": lambda: mt.linalg.lu_solve(lu, piv, b),
        "lu_solve_old": lambda: mt.lu_solve(b, lu, piv),
    }


# (batch of A, batch of B) -> (B's size, A's size, dimension) as torch words it
BATCH_CASES = [
    ((3,), (2,), (2, 3, 0)),
    ((2, 1), (3, 4), (3, 2, 0)),
    ((7, 2, 3), (2, 4), (4, 3, 2)),
    ((3,), (1, 2), (2, 3, 1)),
    ((2, 3), (3, 2), (2, 3, 1)),
]


SOLVERS = list(_solvers(mt.eye(3), mt.ones(3, 2)))


@pytest.mark.parametrize("op", SOLVERS)
@pytest.mark.parametrize(("batch_a", "batch_b", "want"), BATCH_CASES)
def test_solve_batch_mismatch_names_batch_dim(op, batch_a, batch_b, want):
    a = mt.eye(3).expand(*batch_a, 3, 3).clone()
    b = mt.ones(*batch_b, 3, 2)
    size_b, size_a, dim = want
    msg = (
        f"The size of tensor a ({size_b}) must match the size of tensor b ({size_a}) at "
        f"non-singleton dimension {dim}"
    )
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        _solvers(a, b)[op]()


def test_solve_broadcast_batches_still_solve():
    a = mt.eye(3).expand(2, 1, 3, 3).clone() * 2.0
    b = mt.ones(4, 3, 2)
    for name, fn in _solvers(a, b).items():
        out = fn()
        x = out[0] if isinstance(out, tuple) else out
        assert x.shape[:2] == (2, 4), name
        np.testing.assert_allclose(
            x.numpy(), np.full(x.shape, 0.25 if "cholesky" in name else 0.5), err_msg=name
        )


# --- householder_product with nothing to differentiate ---


@pytest.mark.parametrize(
    "a_shape, tau_shape", [((3, 0), (0,)), ((3, 2), (0,)), ((0, 3, 2), (0, 2)), ((0, 3, 2), (0, 0))]
)
@pytest.mark.parametrize("op", ["householder_product", "orgqr"])
def test_householder_product_without_reflectors_stays_in_the_graph(a_shape, tau_shape, op):
    # torch records the product (it requires grad, backward runs) and gives no gradient
    A = mt.ones(a_shape, dtype=mt.float64, requires_grad=True)
    tau = mt.ones(tau_shape, dtype=mt.float64, requires_grad=True)
    fn = mt.linalg.householder_product if op == "householder_product" else mt.orgqr
    q = fn(A, tau)
    assert q.requires_grad and type(q.grad_fn).__name__ == "LinalgHouseholderProductBackward0"
    np.testing.assert_array_equal(
        q.detach().numpy(),
        np.eye(*a_shape[-2:])[None][: a_shape[0]] if len(a_shape) == 3 else np.eye(*a_shape),
    )
    q.sum().backward()
    assert A.grad is None and tau.grad is None
    q.detach()[...] = 5  # a fresh result, not the expanded identity's memory
    assert not fn(A.detach(), tau.detach()).requires_grad
