"""Session 56, lead: gelu at the infinities. The float32 kernel (_gelu32 in
minitorch/_ops/activation.py, also half's) computes relu(x) - |x| Phi(-|x|); at +inf that was
inf - inf * 0 = NaN, where x Phi(x) is inf (as float64's formula gives). It now takes |x| as
|min(x, float32 max)|: gelu(+inf) is inf, gelu(-inf) stays NaN (-inf * 0, as torch's formula),
and the derivative, now summed as 1/2 + (sign(x) (1/2 - h) + x phi(x)), stays NaN at both
infinities from its x phi(x) (as torch's). Finite inputs give the values they gave before, bit
for bit, and a derivative as accurate."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch._ops import activation

INF, NAN = float("inf"), float("nan")
VALUES = [INF, -INF, NAN, 1.0, -1.0, 0.0]


def _gelu64(x):
    from math import erf, sqrt

    return np.array([v * 0.5 * (1 + erf(v / sqrt(2))) for v in x])


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_gelu_at_the_infinities(device, dtype):
    dt = getattr(torch, dtype)
    x = torch.tensor(VALUES, dtype=dt, device=device, requires_grad=True)
    y = F.gelu(x)
    y.backward(torch.ones_like(y))
    out = y.detach().cpu().float().numpy()
    grad = x.grad.cpu().float().numpy()
    assert out[0] == np.inf
    assert np.isnan(out[1]) and np.isnan(out[2])
    np.testing.assert_allclose(
        out[3:], _gelu64(VALUES[3:]), rtol=2e-3 if dtype == "float16" else 1e-6
    )
    assert np.isnan(grad[:3]).all()
    np.testing.assert_allclose(grad[3:], [1.0833155, -0.0833155, 0.5], rtol=2e-3, atol=1e-7)


@pytest.mark.parametrize("grad", [False, True])
def test_gelu_inf_no_grad_module_and_zero_dim(device, grad):
    x = torch.tensor([INF, -INF, 2.0], device=device, requires_grad=grad)
    for y in (F.gelu(x), torch.nn.GELU()(x)):
        out = y.detach().cpu().numpy()
        assert out[0] == np.inf and np.isnan(out[1]) and np.isfinite(out[2])
    assert F.gelu(torch.tensor(INF, device=device)).item() == np.inf
    with torch.no_grad():
        assert F.gelu(x).cpu().numpy()[0] == np.inf


def test_gelu_inf_in_every_block():
    """+inf at both ends of the kernel's cache-sized blocks, and in the last, shorter block."""
    block = activation._BLOCK
    n = 3 * block + 5
    rng = np.random.default_rng(0)
    base = rng.standard_normal(n).astype(np.float32)
    at = [0, block - 1, block, 2 * block + 7, n - 1]
    xs = base.copy()
    xs[at] = np.inf
    x = torch.tensor(xs, requires_grad=True)
    y = F.gelu(x)
    y.sum().backward()
    out, grad = y.detach().numpy(), x.grad.numpy()
    assert (out[at] == np.inf).all() and np.isnan(grad[at]).all()
    ref = torch.tensor(base, requires_grad=True)
    r = F.gelu(ref)
    r.sum().backward()
    keep = np.ones(n, bool)
    keep[at] = False
    np.testing.assert_array_equal(out[keep], r.detach().numpy()[keep])
    np.testing.assert_array_equal(grad[keep], ref.grad.numpy()[keep])


@pytest.mark.parametrize("n", [5, 3000, 3 * activation._BLOCK + 5])
def test_finite_bits_unchanged(monkeypatch, n):
    """The clamp changes nothing for finite inputs: the kernel with its upper bound at inf
    (the product |x| h, as before) gives the same bits, forward and derivative."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(n) * 6).astype(np.float32)
    x[: min(n, 4)] = [-0.0, 0.0, 1e-40, -1e-40][: min(n, 4)]

    def run():
        out, deriv = np.empty_like(x), np.empty_like(x)
        activation._gelu32(np, x, out, deriv, activation._BLOCK)
        return out.view(np.int32), deriv.view(np.int32)

    got = run()
    monkeypatch.setattr(activation, "_GELU32_BOUNDS", (np.float32(-INF), np.float32(INF)))
    before = run()
    np.testing.assert_array_equal(got[0], before[0])
    np.testing.assert_array_equal(got[1], before[1])
    # and that bound is what the kernel reads: with it, +inf gives NaN again
    out = np.empty(1, np.float32)
    activation._gelu32(np, np.array([INF], np.float32), out, None, activation._BLOCK)
    assert np.isnan(out[0])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_largest_finite_inputs(dtype):
    """The largest finite inputs, beside the infinities: gelu(x) is x far right and -0. far
    left, the derivative 1 and 0, with no NaN or sign slip from the clamp or from the
    derivative's x phi(x) (the float64 kernel, erf-based, agrees)."""
    big = float(np.finfo(dtype).max)
    vals = [30.0, 1e3, big, -30.0, -1e3, -big]
    x = torch.tensor(vals, dtype=getattr(torch, dtype), requires_grad=True)
    y = F.gelu(x)
    y.backward(torch.ones_like(y))
    out, grad = y.detach().float().numpy(), x.grad.float().numpy()
    np.testing.assert_array_equal(out[:3], np.array(vals[:3], dtype).astype(np.float32))
    assert (out[3:] == 0).all() and np.signbit(out[3:]).all()
    np.testing.assert_array_equal(grad, [1, 1, 1, 0, 0, 0])
    x64 = torch.tensor(vals[:2] + vals[3:5], dtype=torch.float64)
    np.testing.assert_array_equal(F.gelu(x64).numpy(), [30.0, 1e3, -0.0, -0.0])


def test_derivative_accuracy():
    """The derivative's new order of sums keeps its error at float32's rounding of 1/2."""
    from math import erf, exp, pi, sqrt

    rng = np.random.default_rng(6)
    x = np.concatenate([rng.standard_normal(20000) * 3, rng.uniform(-15, 15, 5000)])
    x = x.astype(np.float32)
    out, deriv = np.empty_like(x), np.empty_like(x)
    activation._gelu32(np, x, out, deriv, activation._BLOCK)
    want = np.array(
        [0.5 * (1 + erf(v / sqrt(2))) + v * exp(-v * v / 2) / sqrt(2 * pi) for v in x.astype(float)]
    )
    assert np.abs(deriv - want).max() < 4e-7
