"""Values and gradients at extreme inputs (NaN/inf operands of small products, one-element
norms, subnormals, non-finite upstream gradients), checked against torch 2.13's results."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

nan, inf = float("nan"), float("inf")
F = torch.nn.functional


def _eq(t, expected, err_msg=""):
    np.testing.assert_array_equal(t.detach().numpy(), np.asarray(expected), err_msg=err_msg)


# --- 1. a product with a (1, 1) operand keeps NaN and inf ---


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_product_with_one_by_one_zero_propagates_nan(dtype):
    zero = torch.zeros(1, 1, dtype=dtype)
    row = torch.tensor([[nan, inf, 1.0]], dtype=dtype)
    _eq(zero @ row, [[nan, nan, 0.0]], "(1, 1) @ (1, 3)")
    _eq(torch.mm(row.T, zero), [[nan], [nan], [0.0]], "(3, 1) @ (1, 1)")
    _eq(torch.matmul(zero, row), [[nan, nan, 0.0]], "matmul")
    # the ordinary small products still give IEEE values
    _eq(
        torch.ones(2, 3, dtype=dtype) @ torch.tensor([[0.0], [0.0], [inf]], dtype=dtype),
        [[inf], [inf]],
    )


def test_product_backward_with_one_by_one_grad():
    x = torch.tensor([[0.0, 2.0, inf]], requires_grad=True)
    w = torch.ones(1, 3, requires_grad=True)
    (x @ w.T).backward(torch.tensor([[0.0]]))
    _eq(w.grad, [[0.0, 0.0, nan]])
    _eq(x.grad, [[0.0, 0.0, 0.0]])


def test_product_one_by_one_finite_values_and_grads():
    rng = np.random.default_rng(0)
    a = torch.tensor(rng.standard_normal((1, 1)), requires_grad=True)
    b = torch.tensor(rng.standard_normal((1, 4)), requires_grad=True)
    np.testing.assert_allclose((a @ b).detach().numpy(), a.detach().numpy() @ b.detach().numpy())
    assert gradcheck(torch.mm, (a, b))
    assert gradgradcheck(torch.mm, (a, b))


# --- 2. a norm over one element is |x| exactly ---


@pytest.mark.parametrize("ord", [2, 3, 0.5, -1, -2, 1.5])
def test_vector_norm_one_element_is_abs(ord):
    x = torch.tensor([[1e30], [1e-30], [-3.0], [0.0]])
    expected = np.abs(x.numpy()[:, 0])
    _eq(torch.linalg.vector_norm(x, ord, dim=1), expected, f"ord {ord}")
    _eq(torch.linalg.vector_norm(x, ord, dim=1, keepdim=True), expected[:, None])
    _eq(torch.linalg.vector_norm(x[:1], ord), expected[:1].reshape(()), "all dims")


def test_norm_one_element_spellings():
    x = torch.tensor([[1e30], [1e-30], [-3.0]])
    expected = np.abs(x.numpy()[:, 0])
    _eq(x.norm(dim=1), expected)
    _eq(torch.norm(x, 3, dim=1), expected)
    _eq(torch.linalg.norm(x, dim=1), expected)
    _eq(torch.linalg.vector_norm(torch.tensor([1e200], dtype=torch.float64)), 1e200)
    _eq(torch.linalg.vector_norm(torch.tensor(-1e-200, dtype=torch.float64)), 1e-200)


def test_norm_two_elements_still_overflow_as_torch():
    x = torch.tensor([[1e30, 0.0], [1e-30, 0.0]])
    _eq(torch.linalg.vector_norm(x, dim=1), [inf, 0.0])
    _eq(torch.linalg.vector_norm(x, 3, dim=1), [inf, 0.0])


def test_norm_one_element_half_and_grad():
    h = torch.tensor([[3e4]], dtype=torch.float16)
    _eq(torch.linalg.vector_norm(h, 3, dim=1), np.array([3e4], np.float16))
    x = torch.tensor([[1e30], [1e-30], [-3.0], [0.0]], requires_grad=True)
    torch.linalg.vector_norm(x, dim=1).backward(torch.ones(4))
    _eq(x.grad, [[1.0], [1.0], [-1.0], [0.0]])
    d = torch.tensor([[0.7], [-2.0]], dtype=torch.float64, requires_grad=True)
    for p in (2, 3, 1.5):
        assert gradcheck(lambda t, p=p: torch.linalg.vector_norm(t, p, dim=1), (d,))
        assert gradgradcheck(lambda t, p=p: torch.linalg.vector_norm(t, p, dim=1), (d,))


def test_normalize_cosine_pairwise_on_one_column():
    x = torch.tensor([[1e30], [1e-30], [-3.0]])
    np.testing.assert_allclose(F.normalize(x, dim=1).flatten().numpy(), [1.0, 1e-18, -1.0])
    np.testing.assert_allclose(
        F.cosine_similarity(x, torch.ones(3, 1)).numpy(), [1.0, 1e-22, -1.0], rtol=1e-6
    )
    np.testing.assert_allclose(
        F.pairwise_distance(x, torch.zeros(3, 1)).numpy(), [1e30, 1e-6, 3.0], rtol=1e-6
    )


def test_renorm_rows_of_one_element():
    x = torch.tensor([[1e30], [1e-30], [-3.0]])
    for p in (2, 3):
        _eq(torch.renorm(x, p, 0, 1.0).flatten(), np.float32([1.0, 1e-30, -1.0]), f"p {p}")


def test_clip_grad_norm_one_element_parameter():
    p = torch.nn.Parameter(torch.zeros(1))
    p.grad = torch.tensor([1e25])
    total = torch.nn.utils.clip_grad_norm_([p], 1.0)
    _eq(total, np.float32(1e25))
    _eq(p.grad, [1.0])


# --- 3. copysign's gradients ---


def test_copysign_backward_non_finite():
    a = torch.tensor([inf, -inf, nan, 0.0, -0.0, 2.0, -2.0, 0.0], requires_grad=True)
    b = torch.tensor([-1.0, 1.0, 1.0, -1.0, 1.0, -0.0, nan, -nan], requires_grad=True)
    g = torch.tensor([1.0, 1.0, 1.0, nan, 1.0, 2.0, 3.0, inf])
    torch.copysign(a, b).backward(g)
    _eq(a.grad, [nan, nan, nan, nan, 0.0, -2.0, -3.0, nan])
    _eq(b.grad, np.zeros(8))
    s = torch.tensor([inf, 0.0, 2.0, -2.0], requires_grad=True)
    torch.copysign(s, -1.0).backward(torch.tensor([1.0, nan, 2.0, 3.0]))
    _eq(s.grad, [nan, nan, -2.0, 3.0])


def test_copysign_broadcast_grads():
    rng = np.random.default_rng(1)
    a = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = torch.tensor(rng.standard_normal(4), requires_grad=True)
    torch.copysign(a, b).backward(torch.full((3, 4), nan, dtype=torch.float64))
    _eq(b.grad, np.zeros(4))
    assert b.grad.shape == (4,)
    assert gradcheck(torch.copysign, (a, b))
    assert gradgradcheck(torch.copysign, (a, b))


# --- 4. logcumsumexp's backward treats a NaN upstream gradient as 0 ---


def test_logcumsumexp_backward_nan_grad():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.logcumsumexp(x, 0).backward(torch.tensor([1.0, 1.0, nan], dtype=torch.float64))
    xn = x.detach().numpy()
    out = np.logaddexp.accumulate(xn)
    expected = [np.exp(xn[0] - out[0]) + np.exp(xn[0] - out[1]), np.exp(xn[1] - out[1]), 0.0]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
    y = torch.tensor([[1.0, 2.0, 3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    torch.logcumsumexp(y, 1).backward(torch.tensor([[1.0, nan, 0.5, inf]], dtype=torch.float64))
    assert np.isinf(y.grad.numpy()).all(), y.grad  # inf still reaches every i <= j
    assert gradcheck(lambda t: torch.logcumsumexp(t, 1), (y,))
    assert gradgradcheck(lambda t: torch.logcumsumexp(t, 1), (y,))


# --- 5. quantile's backward through torch's lerp ---


def test_quantile_backward_inf_grad():
    x = torch.tensor([0.0, 1.0, 2.0, 3.0], requires_grad=True)
    torch.quantile(x, 0.3).backward(torch.tensor(inf))
    _eq(x.grad, [inf, inf, 0.0, 0.0])
    x.grad = None
    torch.nanquantile(x, 0.5).backward(torch.tensor(-inf))
    _eq(x.grad, [0.0, -inf, -inf, 0.0])


def test_quantile_values_and_grads_with_infinite_ends():
    x = torch.tensor([-inf, 1.0, 2.0, inf], dtype=torch.float64, requires_grad=True)
    q = torch.tensor([0.3, 0.5, 0.9], dtype=torch.float64, requires_grad=True)
    r = torch.quantile(x, q)
    _eq(r, [-inf, 1.5, nan])
    r.backward(torch.tensor([1.0, inf, -2.0], dtype=torch.float64))
    # torch 2.13's values: ranks 0.9, 1.5, 2.7; lerp's grads grad * (1 - w) and grad * w
    np.testing.assert_allclose(x.grad.numpy(), [0.1, inf, inf, -1.4], rtol=1e-12)
    _eq(q.grad, [inf, inf, -inf])
    rng = np.random.default_rng(2)
    d = torch.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    qd = torch.tensor([0.1, 0.65], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t, s: torch.quantile(t, s, dim=1), (d, qd))
    assert gradgradcheck(lambda t, s: torch.quantile(t, s, dim=1), (d, qd))


# --- 6. lgamma of float64 subnormals ---


def test_lgamma_float64_subnormals():
    x = torch.tensor([1e-310, -1e-310, 5e-324, 1e-300, 0.0, 2.5], dtype=torch.float64)
    expected = [-np.log(1e-310), -np.log(1e-310), -np.log(5e-324), -np.log(1e-300), inf]
    np.testing.assert_allclose(torch.lgamma(x).numpy()[:5], expected, rtol=1e-15)
    np.testing.assert_allclose(torch.special.gammaln(x).numpy()[:3], expected[:3], rtol=1e-15)
    np.testing.assert_allclose(torch.lgamma(x).numpy()[5], 0.2846828704729192, rtol=1e-14)
    f = torch.tensor([1e-40, -1e-45])  # float32 subnormals were already right
    np.testing.assert_allclose(torch.lgamma(f).numpy(), [92.10341, 103.27893], rtol=1e-6)


# --- 7. hypot's backward at subnormal inputs ---


def test_hypot_backward_subnormal():
    a = torch.tensor([1e-40, 2e-39, 3.0], requires_grad=True)
    b = torch.tensor([1e-40, 0.0, -4.0], requires_grad=True)
    torch.hypot(a, b).backward(torch.tensor([1.0, 2.0, 5.0]))
    np.testing.assert_allclose(a.grad.numpy(), [0.70710754, 2.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), [0.70710754, 0.0, -4.0], rtol=1e-6)
    rng = np.random.default_rng(3)
    c = torch.tensor(rng.standard_normal(4), requires_grad=True)
    e = torch.tensor(rng.standard_normal(4), requires_grad=True)
    assert gradcheck(torch.hypot, (c, e))
    assert gradgradcheck(torch.hypot, (c, e))
