"""Session 27 (tn): the library fixes found by the tensor-network / decomposition / numerical
linear-algebra programs, each checked against the value or message torch 2.13 gives (stated as
literals obtained by running torch)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return f"{type(e).__name__}: {e}"
    return "no error"


def test_matrix_power_one_is_a_copy():
    a = torch.randn(3, 3, requires_grad=True)
    b = torch.linalg.matrix_power(a, 1)
    assert b is not a
    assert type(b.grad_fn).__name__ == "CloneBackward0"
    c = torch.randn(3, 3)
    d = c.matrix_power(1)
    assert d is not c and d.data_ptr() != c.data_ptr()
    np.testing.assert_array_equal(d.numpy(), c.numpy())
    assert type(torch.linalg.matrix_power(a, -1).grad_fn).__name__ == "LinalgInvExBackward0"


def test_multi_dot_order_is_torchs():
    # all 1x1: the first split wins ties, A(B(CD)); left to right would overflow to inf
    mats = [torch.full((1, 1), v) for v in [1e30, 1e30, 1e-30, 1e-30]]
    assert torch.linalg.multi_dot(mats).tolist() == [[0.0]]
    mats = [torch.full((2, 2), v) for v in [1e30, 1e30, 1e-30, 1e-30, 1e30]]
    np.testing.assert_allclose(torch.linalg.multi_dot(mats).numpy(), np.full((2, 2), 1.6e31))
    # three: (3x2)(2x5)(5x1) is cheaper as A(BC)
    mats = [torch.full((3, 2), 1e30), torch.full((2, 5), 1e30), torch.full((5, 1), 1e-30)]
    np.testing.assert_allclose(torch.linalg.multi_dot(mats).numpy(), np.full((3, 1), 1e31))
    x = torch.randn(2, 3, requires_grad=True)
    out = torch.linalg.multi_dot([x, torch.randn(3, 2), torch.randn(2, 4)])
    assert type(out.grad_fn).__name__ == "ViewBackward0"
    out = torch.linalg.multi_dot([torch.randn(3, requires_grad=True), torch.randn(3, 2)])
    assert type(out.grad_fn).__name__ == "ViewBackward0"


def test_svd_of_an_infinite_entry_gives_nan_not_a_hang():
    a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64)
    a[0, 0] = float("inf")
    assert np.isnan(torch.linalg.svdvals(a).numpy()).all()
    assert torch.linalg.matrix_rank(a).item() == 0
    assert np.isnan(torch.linalg.cond(a).item())
    b = torch.stack([torch.eye(2, dtype=torch.float64), a])
    s = torch.linalg.svdvals(b).numpy()
    np.testing.assert_array_equal(s[0], [1.0, 1.0])
    assert np.isnan(s[1]).all()
    a[0, 0] = float("nan")
    assert _err(lambda: torch.linalg.svd(a)) == (
        "_LinAlgError: linalg.svd: The algorithm failed to converge because the input matrix "
        "contained non-finite values."
    )


def test_cond_invalid_order_message():
    x = torch.randn(3, 3)
    for p, shown in [(3, "3"), (0.5, "0.5"), ("foo", "foo"), (-3.0, "-3")]:
        assert _err(lambda p=p: torch.linalg.cond(x, p)) == (
            f"RuntimeError: linalg.cond got an invalid norm type: {shown}"
        )
    assert _err(lambda: torch.linalg.cond(torch.randn(2, 3), 3)) == (
        "RuntimeError: linalg.cond got an invalid norm type: 3"
    )
    assert _err(lambda: torch.linalg.cond(torch.randn(2, 3), "foo")) == (
        "RuntimeError: linalg.cond(ord=foo): A must be batches of square matrices, but they are "
        "2 by 3 matrices"
    )
    y = torch.randn(3, 3, requires_grad=True)
    assert type(torch.linalg.cond(y).grad_fn).__name__ == "SqueezeBackward1"
    assert type(torch.linalg.cond(y, 1).grad_fn).__name__ == "NanToNumBackward0"
    assert type(torch.linalg.cond(y, "nuc").grad_fn).__name__ == "MulBackward0"


def test_matrix_norm_dims_and_orders():
    x = torch.randn(3, 3)
    assert _err(lambda: torch.linalg.matrix_norm(x, dim=(1, -1))) == (
        "RuntimeError: linalg.matrix_norm: dims must be different. Got (1, 1)"
    )
    assert _err(lambda: torch.linalg.matrix_norm(x, "nuc", dim=(0, 0))) == (
        "RuntimeError: linalg.matrix_norm: dims must be different. Got (0, 0)"
    )
    assert _err(lambda: torch.linalg.matrix_norm(x, 3, dim=(0, 0))) == (
        "RuntimeError: linalg.matrix_norm: Order 3 not supported."
    )
    assert _err(lambda: torch.linalg.norm(x, dim=(0, 0))) == (
        "RuntimeError: dim 0 appears multiple times in the list of dims"
    )
    assert _err(lambda: torch.linalg.norm(torch.ones(3, 3, dtype=torch.int64), dim=(0, 1))) == (
        "RuntimeError: linalg.vector_norm: Expected a floating point or complex tensor as input. "
        "Got Long"
    )
    assert _err(lambda: torch.norm(x, "foo")) == (
        "RuntimeError: linalg.matrix_norm: Order foo not supported."
    )
    y = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_()
    r = torch.linalg.matrix_norm(y, 1, dim=(0, 2))
    assert type(r.grad_fn).__name__ == "AmaxBackward0"
    assert r.tolist() == [18.0, 26.0, 34.0]
    r = torch.linalg.matrix_norm(y, float("-inf"), dim=(2, 0), keepdim=True)
    assert type(r.grad_fn).__name__ == "AminBackward0"
    assert r.shape == (1, 3, 1) and r.flatten().tolist() == [12.0, 20.0, 28.0]


def test_lu_solve_checks():
    LU, piv = torch.linalg.lu_factor(torch.randn(3, 3, dtype=torch.float64))
    b = torch.ones(3, 1, dtype=torch.float64)
    assert _err(lambda: torch.linalg.lu_solve(LU, piv[:2], b)) == (
        "RuntimeError: linalg.lu_solve: Number of pivots per batch should be same as the "
        "dimension of the matrix"
    )
    assert _err(lambda: torch.linalg.lu_solve(LU, piv[None].expand(2, 3), b)) == (
        "RuntimeError: linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, "
        "but got pivots with shape [2, 3] instead"
    )
    assert _err(lambda: torch.linalg.lu_solve(LU[None].expand(2, 3, 3), piv, b)) == (
        "RuntimeError: linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, "
        "but got pivots with shape [3] instead"
    )
    assert _err(lambda: torch.linalg.lu_solve(LU, torch.tensor(1, dtype=torch.int32), b)) == (
        "IndexError: Dimension specified as -1 but tensor has no dimensions"
    )
    assert _err(lambda: torch.linalg.lu_solve(LU[0], piv, b)) == (
        "RuntimeError: torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions."
    )
    assert _err(lambda: torch.linalg.lu_solve(torch.randn(3, 4), piv, b.float())) == (
        "RuntimeError: torch.linalg.lu_solve: A must be batches of square matrices, but they are "
        "3 by 4 matrices"
    )


def test_lu_unpack_checks_and_extra_pivots():
    LU = torch.tensor([[4.0, 3.0, 2.0], [0.5, 1.5, 1.0], [0.25, 0.5, 2.0]], dtype=torch.float64)
    i32 = torch.int32
    assert _err(lambda: torch.lu_unpack(LU[0], torch.tensor([1, 2, 3], dtype=i32))) == (
        "RuntimeError: torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [3] "
        "instead"
    )
    assert _err(lambda: torch.lu_unpack(LU, torch.tensor([1, 2, 3]))) == (
        "RuntimeError: torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
        "torch.int32 dtype.\nNote: this function is intended to be used with the output produced "
        "by torch.linalg.lu_factor"
    )
    assert _err(lambda: torch.lu_unpack(LU, torch.tensor([1, 2], dtype=i32))) == (
        "RuntimeError: pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did "
        "you properly pass the result of lu_factor?"
    )
    # torch reads the first min(m, n) pivots only; without unpack_pivots it reads none
    P, L, U = torch.lu_unpack(LU, torch.tensor([3, 3, 3, 1], dtype=i32))
    assert P.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    assert L.tolist() == [[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.25, 0.5, 1.0]]
    P, L, U = torch.lu_unpack(LU, torch.tensor([1, 2]), unpack_pivots=False)
    assert P.shape == (0,) and U.tolist() == [[4.0, 3.0, 2.0], [0.0, 1.5, 1.0], [0.0, 0.0, 2.0]]


def test_householder_and_geqrf_messages():
    x = torch.randn(2, 3, 3, dtype=torch.float64)
    assert _err(lambda: torch.linalg.householder_product(x, torch.randn(3, 2))) == (
        "RuntimeError: torch.linalg.householder_product: Expected batch dimensions of tau to be "
        "equal to input.shape[:-2], but got [3]"
    )
    assert _err(lambda: torch.orgqr(x, torch.randn(3, 2, dtype=torch.float64))) == (
        "RuntimeError: torch.linalg.householder_product: Expected batch dimensions of tau to be "
        "equal to input.shape[:-2], but got [3]"
    )
    assert _err(lambda: torch.orgqr(torch.randn(3, 5), torch.randn(2))) == (
        "RuntimeError: torch.linalg.householder_product: input.shape[-2] must be greater than or "
        "equal to input.shape[-1]"
    )
    assert _err(lambda: torch.linalg.householder_product(x[0], torch.tensor(1.0))) == (
        "IndexError: Dimension specified as -1 but tensor has no dimensions"
    )
    assert _err(lambda: torch.geqrf(torch.randn(3))) == (
        "RuntimeError: torch.geqrf: input must have at least 2 dimensions."
    )
    assert _err(lambda: torch.geqrf(torch.eye(2, dtype=torch.int64))) == (
        "NotImplementedError: \"geqrf_cpu\" not implemented for 'Long'"
    )


def test_lstsq_vector_case_and_batch_broadcast():
    A = torch.randn(2, 5, 3, dtype=torch.float64)
    assert _err(lambda: torch.linalg.lstsq(A, torch.randn(5, 2, dtype=torch.float64))) == (
        "RuntimeError: The size of tensor a (2) must match the size of tensor b (5) at "
        "non-singleton dimension 0"
    )
    assert _err(lambda: torch.linalg.lstsq(A, torch.randn(3, 5, dtype=torch.float64))) == (
        "RuntimeError: torch.linalg.lstsq: input.size(-2) should match other.size(-2)"
    )
    A4 = torch.randn(3, 2, 5, 3, dtype=torch.float64)
    assert _err(lambda: torch.linalg.lstsq(A4, torch.randn(2, 5, 2, dtype=torch.float64))) == (
        "RuntimeError: The size of tensor a (2) must match the size of tensor b (5) at "
        "non-singleton dimension 1"
    )
    assert torch.linalg.lstsq(A, torch.randn(2, 5, dtype=torch.float64)).solution.shape == (2, 3)
    # a matrix B one dim short is expanded over the batch A's broadcasts with B.shape[:-1]
    A1 = torch.arange(6.0, dtype=torch.float64).reshape(1, 3, 2) + torch.eye(3, 2)
    sol = torch.linalg.lstsq(A1, torch.ones(3, 2, dtype=torch.float64)).solution
    assert sol.shape == (3, 2, 2)
    np.testing.assert_allclose(sol[1].numpy(), [[0.0976, 0.0976], [0.1707, 0.1707]], atol=1e-4)


def test_opt_einsum_flags():
    o = torch.backends.opt_einsum
    assert o.set_flags(False) == (False, None)
    assert _err(lambda: o.set_flags(True)) == (
        "ValueError: opt_einsum is not available, so setting `enabled` to True will not reap the "
        "benefits of calculating an optimal path for einsum. torch.einsum will fall back to "
        "contracting from left to right. To enable this optimal path calculation, please install "
        "opt-einsum."
    )
    with pytest.raises(ValueError, match="setting `strategy` to greedy will not be meaningful"):
        with o.flags(enabled=False, strategy="greedy"):
            pass
    with o.flags(enabled=False):
        assert o.enabled is False
    assert o.enabled is False
