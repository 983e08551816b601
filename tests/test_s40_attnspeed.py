"""Products of operands with repeated rows (expanded tensors, the gradient of `.sum()`) and the
float32 GELU kernel: values against NumPy and float64 references, layouts, gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import activation, linalg

# --- products of repeated rows (NOTE [ Products of repeated rows ]) ---


def _ref(a, b, ta, tb):
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    return np.matmul(np.ascontiguousarray(a, np.float64), np.ascontiguousarray(b, np.float64))


def _operands(case, rng, dt):
    """(a, b, ta, tb) with an operand BLAS cannot read in place, as `case` names it."""

    def dense(*shape):
        return rng.standard_normal(shape).astype(dt)

    if case == "sum-grad @ w.T":  # Linear's input gradient from `.sum()`: all strides zero
        return np.broadcast_to(dt(0.5), (300, 40)), dense(70, 40), False, True
    if case == "sum-grad.T @ x":  # Linear's weight gradient from `.sum()`
        return np.broadcast_to(dt(-2.0), (300, 40)), dense(300, 70), True, False
    if case == "expanded rows":  # a (1, K) row expanded: op(a)'s rows repeat
        return np.broadcast_to(dense(1, 90), (120, 90)), dense(90, 50), False, False
    if case == "expanded columns":  # op(b)'s columns repeat (b's rows, under tb)
        return dense(60, 80), np.broadcast_to(dense(1, 80), (110, 80)), False, True
    if case == "transposed expanded":  # a (K, 1) column expanded and used transposed
        return np.broadcast_to(dense(80, 1), (80, 100)), dense(80, 30), True, False
    if case == "batched rows":  # rows repeat within each batch matrix, batches differ
        return np.broadcast_to(dense(4, 1, 64), (4, 50, 64)), dense(4, 64, 30), False, False
    if case == "batched, broadcast batch":  # b shared by the batches, a all zero strides
        return np.broadcast_to(dt(1.5), (3, 70, 64)), dense(64, 20), False, False
    if case == "stepped transpose":  # copied: op(a)'s row stride is two elements
        return dense(80, 180)[:, ::2], dense(80, 40), True, False
    if case == "stepped":  # copied: a column stride of two elements
        return dense(90, 160)[:, ::2], dense(80, 40), False, False
    raise AssertionError(case)


_CASES = [
    "sum-grad @ w.T",
    "sum-grad.T @ x",
    "expanded rows",
    "expanded columns",
    "transposed expanded",
    "batched rows",
    "batched, broadcast batch",
    "stepped transpose",
    "stepped",
]


@pytest.mark.parametrize("case", _CASES)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_product_of_operands_blas_cannot_read(case, dt):
    rng = np.random.default_rng(7)
    a, b, ta, tb = _operands(case, rng, dt)
    assert not (linalg.blas_ready(a) and linalg.blas_ready(b)), "the case must take that path"
    out = linalg._product(np, a, b, ta, tb)
    want = _ref(a, b, ta, tb)
    assert out.dtype == dt and out.shape == want.shape
    assert out.flags.c_contiguous and out.flags.writeable and out.base is None
    assert not np.shares_memory(out, a) and not np.shares_memory(out, b)
    rtol = 2e-5 if dt == np.float32 else 1e-12
    np.testing.assert_allclose(out, want, rtol=rtol, atol=rtol * 10, err_msg=case)


def test_product_of_repeated_rows_is_exact_for_integers():
    rng = np.random.default_rng(1)
    a = np.broadcast_to(rng.integers(-9, 9, (1, 70)), (200, 70))
    b = rng.integers(-9, 9, (70, 90))
    out = linalg._product(np, a, b, False, False)
    np.testing.assert_array_equal(out, np.ascontiguousarray(a) @ b)
    np.testing.assert_array_equal(out[0], out[-1])


def test_product_of_repeated_rows_keeps_nan_and_inf_per_row():
    # a row of op(a) meets b's nan/inf in every repeated row of the result, as in a GEMM
    b = np.ones((80, 60), np.float32)
    b[3, 5], b[7, 9] = np.nan, np.inf
    a = np.broadcast_to(np.float32(2.0), (100, 80))
    out = linalg._product(np, a, b, False, False)
    want = np.ascontiguousarray(a) @ b
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    np.testing.assert_array_equal(out[np.isfinite(want)], want[np.isfinite(want)])


def test_linear_gradients_from_sum_match_the_dense_gradient(device):
    # `.sum()` sends a zero-stride gradient: the Linear backward must give what an explicit
    # ones gradient gives (a dense array, no repeated-row path)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 16, 48)).astype(np.float32)
    w = rng.standard_normal((80, 48)).astype(np.float32)
    bias = rng.standard_normal(80).astype(np.float32)
    grads = []
    for dense in (False, True):
        xt, wt, bt = (mt.tensor(v, device=device, requires_grad=True) for v in (x, w, bias))
        out = mt.nn.functional.linear(mt.nn.functional.gelu(xt), wt, bt)
        if dense:
            out.backward(mt.ones(out.shape, device=device))
        else:
            out.sum().backward()
        grads.append([t.grad.cpu().numpy() for t in (xt, wt, bt)])
        assert all(t.grad.is_contiguous() for t in (xt, wt, bt))
    for got, want, name in zip(grads[0], grads[1], ("x", "w", "b"), strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-4, err_msg=name)


def test_mm_of_an_expanded_operand_is_twice_differentiable():
    rng = np.random.default_rng(5)
    row = mt.tensor(rng.standard_normal((1, 64)), requires_grad=True)
    m = mt.tensor(rng.standard_normal((64, 3)), requires_grad=True)

    def f(r, mat):  # (64, 64) @ (64, 3): 4096 elements, the size from which BLAS's path applies
        return r.expand(64, 64) @ mat

    assert row.expand(64, 64)._data.size >= linalg._BLAS_COPY_MIN
    assert mt.autograd.gradcheck(f, (row, m))
    assert mt.autograd.gradgradcheck(f, (row, m))


# --- the float32 GELU kernel (NOTE [ GELU's polynomial in two squares ]) ---


def _cdf(x64):
    """Φ of a float64 array, through erfc (no cancellation on the negative side)."""
    return np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x64])


def test_gelu_quadratic_factors_multiply_out_to_the_polynomial():
    alpha = activation._GELU_ALPHA
    p1, q1, p2, q2 = (activation._GELU_P1, activation._GELU_Q1, activation._GELU_P2,
                      activation._GELU_Q2)  # fmt: skip
    quad1 = np.array([1.0, 2 * p1, p1 * p1 + q1])
    quad2 = np.array([1.0, 2 * p2, p2 * p2 + q2])
    got = np.polymul(quad1, quad2)  # s^4 ... s^0
    want = [0.5 * c / alpha ** (4 - i) for i, c in enumerate(activation._AS_COEFFS)]
    want = np.array(want) / want[0]  # leading 0.5 a5 / alpha^5 ... (a monic quartic)
    np.testing.assert_allclose(0.5 * activation._AS_COEFFS[0] / alpha**5, 1.0, rtol=1e-14)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert q1 > 0 and q2 > 0  # sums of positive terms


@pytest.mark.parametrize("n", [0, 1, 7, 1000, activation._BLOCK + 3])
@pytest.mark.parametrize("block", [5, 256, activation._BLOCK])
def test_gelu32_against_float64_erf(n, block):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    if n >= 7:
        x[:7] = [0.0, -0.0, 9.5, -9.5, 1e-30, -3.0, 3.0]
    out, deriv = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    activation._gelu32(np, x, out, deriv, block)
    x64 = x.astype(np.float64)
    cdf = _cdf(x64)
    pdf = np.exp(-0.5 * x64 * x64) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(out, x64 * cdf, rtol=1e-6, atol=6e-7)
    np.testing.assert_allclose(deriv, cdf + x64 * pdf, rtol=1e-6, atol=6e-7)
    tail = (x < -5) & (x > -12)  # no cancellation on the negative side: tiny outputs, not 0
    assert (out[tail] < 0).all()
    only = np.full(n, np.nan, np.float32)
    activation._gelu32(np, x, only, None, block)
    np.testing.assert_array_equal(only, out)  # the derivative does not change the output


def test_gelu32_results_do_not_depend_on_the_block_size():
    x = (np.random.default_rng(0).standard_normal(5000) * 3).astype(np.float32)
    outs = []
    for block in (64, 999, 5000):
        out, deriv = np.empty_like(x), np.empty_like(x)
        activation._gelu32(np, x, out, deriv, block)
        outs.append((out, deriv))
    for out, deriv in outs[1:]:
        np.testing.assert_array_equal(out, outs[0][0])
        np.testing.assert_array_equal(deriv, outs[0][1])


def test_gelu_keeps_nan_and_float32(device):
    x = mt.tensor([np.nan, -1.0, 0.5, 2.0], device=device, requires_grad=True)
    y = mt.nn.functional.gelu(x)
    assert y.dtype == mt.float32
    y.backward(mt.ones(4, device=device))
    got, g = y.detach().cpu().numpy(), x.grad.cpu().numpy()
    assert np.isnan(got[0]) and np.isnan(g[0])
    x64 = np.array([-1.0, 0.5, 2.0])
    cdf = _cdf(x64)
    np.testing.assert_allclose(got[1:], x64 * cdf, rtol=1e-6)
    pdf = np.exp(-0.5 * x64 * x64) / math.sqrt(2 * math.pi)
    np.testing.assert_allclose(g[1:], cdf + x64 * pdf, rtol=1e-6)
