"""Numerics against torch: exact 0 std/var of constant slices along a dim, adaptive average
pooling that keeps an inf/nan inside its windows, trace's gradient with an inf/nan upstream."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


# --- std/var along a dim: constant slices give exactly 0 (torch's per-slice Welford) ---


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_std_var_constant_slices_are_exactly_zero(dtype, correction):
    x = torch.tensor([[0.7, 1.0], [0.7, 2.0], [0.7, 4.0], [0.7, 8.0]], dtype=dtype)
    for keepdim in (False, True):
        for op in (torch.std, torch.var):
            r = op(x, 0, correction=correction, keepdim=keepdim).float().numpy().reshape(-1)
            assert r[0] == 0.0, f"{op.__name__} {dtype} correction={correction}: {r[0]}"
            assert r[1] > 0.0
    s, m = torch.std_mean(torch.full((5, 3), 0.3, dtype=dtype), 1)
    v, _ = torch.var_mean(torch.full((5, 3), 0.1, dtype=dtype), (0,))
    np.testing.assert_array_equal(s.float().numpy(), np.zeros(5, np.float32))
    np.testing.assert_array_equal(v.float().numpy(), np.zeros(3, np.float32))


def test_std_constant_slices_several_dims_and_standardisation():
    x = torch.full((4, 3, 5), 0.1, dtype=torch.float64)
    np.testing.assert_array_equal(x.std((0, 2)).numpy(), np.zeros(3))
    X = torch.tensor([[0.7, 1.0], [0.7, 2.0], [0.7, 4.0]], dtype=torch.float64)
    Z = ((X - X.mean(0)) / X.std(0)).numpy()
    assert np.isinf(Z[:, 0]).all(), Z  # torch: inf, not a finite 0.8165


def test_std_var_dim_values_nan_inf_and_full_reduction():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 5)) * 3 + 1e3
    x = torch.tensor(a)
    for corr in (0, 1, 2):
        np.testing.assert_allclose(x.var(0, correction=corr).numpy(), a.var(0, ddof=corr), 1e-12)
        np.testing.assert_allclose(x.std(1, correction=corr).numpy(), a.std(1, ddof=corr), 1e-12)
    b = a.copy()
    b[2, 1], b[3, 3], b[4, 4] = np.inf, np.nan, -np.inf
    r = torch.tensor(b).std(0).numpy()
    assert np.isnan(r[[1, 3, 4]]).all() and np.isfinite(r[[0, 2]]).all(), r
    f = np.float32(np.random.default_rng(1).standard_normal((7, 9)))
    np.testing.assert_allclose(torch.tensor(f).std(0).numpy(), f.astype(np.float64).std(0, ddof=1),
                               1e-6)  # fmt: skip
    # one output: torch's two-pass kernel, a few ulps above 0 (unchanged)
    assert torch.tensor([0.1, 0.1, 0.1], dtype=torch.float64).std().item() == pytest.approx(
        1.69967494438814779e-17, rel=1e-12
    )


def test_std_gradient_zero_at_constant_slices():
    a = torch.tensor([[0.1, 0.7, -1.3, 2.9]], dtype=torch.float64, requires_grad=True)
    s, _ = torch.std_mean(a.expand(3, 4), 0)
    s.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros((1, 4)))  # was -+1.22


def test_std_var_dim_gradcheck():
    rng = np.random.default_rng(2)
    x = torch.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    for fn in (
        lambda t: t.std(0),
        lambda t: t.var(1, correction=0, keepdim=True),
        lambda t: torch.std_mean(t, 0, correction=2)[0],
    ):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


# --- adaptive average pooling: each window on its own ---


def test_adaptive_avg_pool_inf_nan_stay_in_their_windows():
    x = torch.tensor([[[1.0, 2.0, 3.0, 4.0, float("nan")]]])
    np.testing.assert_array_equal(F.adaptive_avg_pool1d(x, 2).numpy(), [[[2.0, np.nan]]])
    x = torch.tensor([[[1.0, 2.0, 3.0, 4.0, float("inf")]]])
    np.testing.assert_array_equal(F.adaptive_avg_pool1d(x, 2).numpy(), [[[2.0, np.inf]]])
    y = torch.ones(1, 1, 4, 4)
    y[0, 0, 3, 3] = float("inf")
    want = np.ones((1, 1, 3, 3), np.float32)
    want[0, 0, 2, 2] = np.inf
    np.testing.assert_array_equal(F.adaptive_avg_pool2d(y, 3).numpy(), want)
    z = torch.ones(1, 1, 3, 4, 5, dtype=torch.float64)
    z[0, 0, 0, 0, 0] = float("nan")
    r = F.adaptive_avg_pool3d(z, (2, 3, 3)).numpy()
    assert np.isnan(r[0, 0, 0, 0, 0]) and np.isnan(r).sum() == 1, r
    x = torch.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]], requires_grad=True)
    F.adaptive_avg_pool1d(x, 2).backward(torch.tensor([[[1.0, float("inf")]]]))
    np.testing.assert_allclose(x.grad.numpy(), [[[1 / 3, 1 / 3, np.inf, np.inf, np.inf]]])


def _adaptive_ref(a, out):
    """torch's windows, summed and divided per dim, in float64."""
    n = len(out)
    res = a
    for d, o in enumerate(out):
        ax = a.ndim - n + d
        L = a.shape[ax]
        parts = []
        for i in range(o):
            lo, hi = (i * L) // o, -((-(i + 1) * L) // o)
            parts.append(np.take(res, range(lo, hi), axis=ax).mean(axis=ax, keepdims=True))
        res = np.concatenate(parts, axis=ax)
    return res


@pytest.mark.parametrize(
    "shape,out",
    [((2, 3, 7), (3,)), ((3, 10), (4,)), ((2, 3, 7, 5), (3, 2)), ((1, 2, 13, 13), (7, 7)),
     ((2, 2, 3, 5), (5, 7)), ((1, 2, 5, 7, 6), (3, 4, 4))],
)  # fmt: skip
def test_adaptive_avg_pool_values_and_grad(shape, out):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape)
    fn = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}[len(out)]
    for dt, tol in ((torch.float64, 1e-12), (torch.float32, 1e-6), (torch.float16, 2e-3)):
        r = fn(torch.tensor(a, dtype=dt), out)
        assert r.dtype is dt
        np.testing.assert_allclose(r.double().numpy(), _adaptive_ref(a, out), tol, tol)
    x = torch.tensor(a, requires_grad=True)
    y = fn(x, out)
    assert y.grad_fn.name() in ("AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0",
                                "SqueezeBackward1")  # fmt: skip
    g = rng.standard_normal(y.shape)
    (gx,) = torch.autograd.grad(y, x, torch.tensor(g))
    # the adjoint: <pool(x), g> == <x, grad>
    np.testing.assert_allclose((y.detach().numpy() * g).sum(), (a * gx.numpy()).sum(), 1e-12)
    assert gradcheck(lambda t: fn(t, out), (x,))
    assert gradgradcheck(lambda t: fn(t, out), (x,))


def test_adaptive_avg_pool_float32_sums_in_torchs_order():
    # torch adds each window's taps in order in float32, then divides by kh and by kw
    a = np.float32(np.random.default_rng(4).standard_normal((2, 3, 13, 13)))
    r = F.adaptive_avg_pool2d(torch.tensor(a), 7).numpy()
    want = np.empty((2, 3, 7, 7), np.float32)
    for i in range(7):
        h0, h1 = (i * 13) // 7, -((-(i + 1) * 13) // 7)
        for j in range(7):
            w0, w1 = (j * 13) // 7, -((-(j + 1) * 13) // 7)
            s = np.zeros((2, 3), np.float32)
            for h in range(h0, h1):
                for w in range(w0, w1):
                    s = s + a[:, :, h, w]
            want[:, :, i, j] = s / np.float32(h1 - h0) / np.float32(w1 - w0)
    np.testing.assert_array_equal(r, want)
    # an empty batch keeps its shape (and its gradient's)
    e = torch.zeros(0, 3, 7, 5, requires_grad=True)
    F.adaptive_avg_pool2d(e, 3).sum().backward()
    assert e.grad.shape == (0, 3, 7, 5)


# --- trace: the gradient on the diagonal only ---


def test_trace_backward_inf_nan_grad_off_diagonal_zero():
    x = torch.arange(9.0).reshape(3, 3).requires_grad_()
    torch.trace(x).backward(torch.tensor(float("inf")))
    np.testing.assert_array_equal(x.grad.numpy(), np.diag([np.inf] * 3))
    x = torch.ones(2, 3, requires_grad=True)
    (torch.trace(x) * float("nan")).backward()
    want = np.zeros((2, 3))
    want[0, 0] = want[1, 1] = np.nan
    np.testing.assert_array_equal(x.grad.numpy(), want)
    assert x.grad.dtype is torch.float32
    y = torch.tensor(np.random.default_rng(5).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(torch.trace, (y,)) and gradgradcheck(torch.trace, (y,))
