"""Numerical accuracy at the edges of the ranges, checked without torch: logsigmoid's gradient
past exp's range, the in-place ELUs' gradient from their result, half-precision moments near
the dtype's max, digamma/trigamma/lgamma against series and differences, the divisor's
gradient's rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _grad(fn, x, dtype, g=None):
    t = minitorch.tensor(x, dtype=dtype, requires_grad=True)
    y = fn(t)
    y.backward(minitorch.ones_like(y) if g is None else minitorch.tensor(g, dtype=dtype))
    return t.grad.numpy()


# --- logsigmoid ---


def test_logsigmoid_gradient_keeps_subnormals():
    # sigmoid(-x) = exp(-x) / (1 + exp(-x)): past x = 88.7 exp(x) overflows float32, but the
    # gradient is exp(-x), a subnormal down to x = 103.9
    x = np.array([89.0, 92.5, 95.0, 100.0, 103.0], dtype=np.float32)
    got = _grad(F.logsigmoid, x, minitorch.float32)
    want = np.exp(-x.astype(np.float64)).astype(np.float32)
    assert (got > 0).all(), got
    np.testing.assert_array_max_ulp(got, want, maxulp=1)
    x64 = np.array([710.0, 720.0, 740.0])
    got64 = _grad(F.logsigmoid, x64, minitorch.float64)
    assert (got64 > 0).all(), got64
    np.testing.assert_allclose(got64, np.exp(-x64), rtol=1e-12)


def test_logsigmoid_gradient_limits():
    x = np.array([-1e30, -745.0, -100.0, -89.0, 0.0, 104.0, 1e30, np.inf, -np.inf, np.nan])
    for dt in (minitorch.float32, minitorch.float64):
        got = _grad(F.logsigmoid, x, dt)
        want = [1.0, 1.0, 1.0, 1.0, 0.5, 0.0 if dt is minitorch.float32 else math.exp(-104.0)]
        want += [0.0, 0.0, 1.0, math.nan]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, err_msg=str(dt))


def test_logsigmoid_twice_differentiable():
    x = minitorch.tensor([-30.0, -3.0, -0.5, 0.0, 0.7, 4.0, 30.0], dtype=minitorch.float64)
    x.requires_grad_(True)
    assert gradcheck(F.logsigmoid, (x,))
    assert gradgradcheck(F.logsigmoid, (x,))
    (g,) = minitorch.autograd.grad(F.logsigmoid(x[3]), x, create_graph=True)
    (h,) = minitorch.autograd.grad(g[3], x)
    assert h[3].item() == -0.25  # -sigmoid(0) sigmoid(-0), also at exactly 0


# --- in-place elu / selu / celu ---


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_inplace_elu_gradient_from_result(dtype):
    # the in-place form's gradient is grad (out + 1) from its rounded result: 0 where out
    # rounds to -1, where exp(x) would still be positive
    np_dt = np.float32 if dtype is minitorch.float32 else np.float64
    x = np.concatenate([-np.geomspace(1e-3, 800, 50), np.linspace(0.01, 5, 10)]).astype(np_dt)
    g = np.random.default_rng(2).uniform(0.5, 1.5, x.size).astype(np_dt)
    got = _grad(lambda t: F.elu(t * 1, inplace=True), x, dtype, g)
    out = F.elu(minitorch.tensor(x)).numpy()
    want = np.where(x <= 0, g * (out + np_dt(1)), g)
    np.testing.assert_array_equal(got, want)
    far = x < (-18 if dtype is minitorch.float32 else -38)
    assert far.any() and (got[far] == 0).all()
    # the out-of-place form keeps exp's gradient there, down to exp's underflow
    band = far & (x > (-80 if dtype is minitorch.float32 else -700))
    assert band.any() and (_grad(F.elu, x, dtype, g)[band] > 0).all()


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: F.elu(t * 1, alpha=0.7, inplace=True),
        lambda t: F.selu(t * 1, inplace=True),
        lambda t: F.celu(t * 1, alpha=1.3, inplace=True),
        lambda t: minitorch.celu_(t * 1, alpha=0.4),
    ],
    ids=["elu", "selu", "celu", "celu_"],
)
def test_inplace_elus_twice_differentiable(fn):
    x = minitorch.tensor([-4.0, -1.2, -0.3, 0.4, 2.0], dtype=minitorch.float64)
    x.requires_grad_(True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_inplace_celu_keeps_forward_scale():
    # celu_'s result is computed with 1 / α, its gradient formula takes 1 / float32(α): the
    # result itself must not change with it
    x = np.array([-3.0, -0.5, 1.0])
    t = minitorch.tensor(x, dtype=minitorch.float64, requires_grad=True)
    y = F.celu(t * 1, alpha=1.3, inplace=True)
    y.backward(minitorch.ones_like(y))
    np.testing.assert_array_equal(y.detach().numpy(), F.celu(minitorch.tensor(x), 1.3).numpy())
    out = y.detach().numpy()[:2]
    want = (1.0 / np.float64(np.float32(1.3))) * (out + 1.3)
    np.testing.assert_array_equal(t.grad.numpy()[:2], want)


# --- half-precision std / var ---


def test_bfloat16_std_near_max_is_finite():
    x = np.array([3.0e38, 3.2e38, 3.3e38, -3.0e38])
    t = minitorch.tensor(x, dtype=minitorch.bfloat16)
    xs = t.double().numpy()
    want_var = np.var(xs, ddof=1)  # 9.5e76: beyond bfloat16 (inf), its sqrt is not
    std = t.std()
    assert std.dtype is minitorch.bfloat16
    got = std.float().item()
    assert math.isfinite(got)
    assert got == minitorch.tensor(math.sqrt(want_var)).to(minitorch.bfloat16).float().item()
    assert t.var().float().item() == math.inf
    np.testing.assert_array_equal(
        minitorch.var_mean(t)[1].float().numpy(), minitorch.tensor(xs.mean()).bfloat16().float()
    )


# --- digamma, trigamma, lgamma ---

_EULER = 0.5772156649015329
_ZETA = {2: math.pi**2 / 6, 3: 1.2020569031595942, 4: math.pi**4 / 90, 5: 1.0369277551433699,
         6: math.pi**6 / 945, 7: 1.0083492773819228}  # fmt: skip


def _lgamma_at_1(e):
    """lgamma(1 + e) = -γ e + sum_k (-1)^k ζ(k) / k e^k (|e| <= 1e-3: to double precision)."""
    return math.fsum([-_EULER * e] + [(-1) ** k * _ZETA[k] / k * e**k for k in range(2, 8)])


def _lgamma_at_2(e):
    """lgamma(2 + e) = (1 - γ) e + sum_k (-1)^k (ζ(k) - 1) / k e^k."""
    terms = [(1 - _EULER) * e] + [(-1) ** k * (_ZETA[k] - 1) / k * e**k for k in range(2, 8)]
    return math.fsum(terms)


def test_lgamma_float64_near_one_and_two():
    rng = np.random.default_rng(4)
    e = np.concatenate([10 ** rng.uniform(-15, -3, 100), -(10 ** rng.uniform(-15, -3, 100))])
    for base, series in ((1.0, _lgamma_at_1), (2.0, _lgamma_at_2)):
        x = base + e
        exact_e = x - base  # the e that x holds
        got = minitorch.lgamma(minitorch.tensor(x, dtype=minitorch.float64)).numpy()
        want = np.array([series(v) for v in exact_e])
        np.testing.assert_array_max_ulp(got, want, maxulp=4)
    one_two = minitorch.tensor([1.0, 2.0], dtype=minitorch.float64)
    np.testing.assert_array_equal(minitorch.lgamma(one_two).numpy(), [0.0, 0.0])


def test_lgamma_float64_continuous_at_the_series_edges():
    # lgamma's series covers [0.5, 2.5): no step where it hands over
    for edge in (0.5, 1.5, 2.5):
        x = np.array([np.nextafter(edge, 0), edge, np.nextafter(edge, 3)])
        y = minitorch.lgamma(minitorch.tensor(x, dtype=minitorch.float64)).numpy()
        slope = minitorch.digamma(minitorch.tensor(edge, dtype=minitorch.float64)).item()
        np.testing.assert_allclose(np.diff(y), slope * np.diff(x), rtol=0.02, atol=1e-15)


def test_digamma_and_trigamma_against_differences():
    x = np.array([-7.3, -2.5, -0.4, 0.2, 0.9, 1.4616, 2.0, 3.7, 9.5, 10.0, 12.0, 250.0])
    t = minitorch.tensor(x, dtype=minitorch.float64)
    h = 1e-5 * np.maximum(1.0, np.abs(x))
    lg = [minitorch.lgamma(minitorch.tensor(x + s * h, dtype=minitorch.float64)).numpy()
          for s in (1, -1)]  # fmt: skip
    dg = [minitorch.digamma(minitorch.tensor(x + s * h, dtype=minitorch.float64)).numpy()
          for s in (1, -1)]  # fmt: skip
    np.testing.assert_allclose(minitorch.digamma(t).numpy(), (lg[0] - lg[1]) / (2 * h),
                               rtol=1e-6, atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(minitorch.special.polygamma(1, t).numpy(),
                               (dg[0] - dg[1]) / (2 * h), rtol=1e-6)  # fmt: skip


def test_digamma_trigamma_known_values_and_edges():
    f64 = minitorch.float64
    assert abs(minitorch.digamma(minitorch.tensor(1.0, dtype=f64)).item() + _EULER) < 1e-15
    assert minitorch.digamma(minitorch.tensor(10.0, dtype=f64)).item() == 2.251752589066721
    tri = minitorch.special.polygamma(1, minitorch.tensor([1.0, 0.5], dtype=f64)).numpy()
    np.testing.assert_allclose(tri, [math.pi**2 / 6, math.pi**2 / 2], rtol=1e-9)
    for dt in (minitorch.float32, minitorch.float64, minitorch.bfloat16, minitorch.float16):
        x = minitorch.tensor([0.0, -0.0, -1.0, -2.0, math.inf, -math.inf, math.nan], dtype=dt)
        d = minitorch.digamma(x).float().numpy()
        np.testing.assert_array_equal(d, [-np.inf, np.inf, np.nan, np.nan, np.inf, np.nan, np.nan])
        tg = minitorch.special.polygamma(1, x).float().numpy()
        assert tg[0] == tg[1] == np.inf and tg[4] == 0 and np.isnan(tg[5:]).all()
        # at a negative integer sin(pi x) is a rounding error, not 0: huge, but finite
        assert dt.itemsize == 2 or (np.isfinite(tg[2:4]).all() and (tg[2:4] > 1e10).all())


def test_digamma_lgamma_twice_differentiable():
    x = minitorch.tensor([-2.6, -0.3, 0.4, 1.7, 6.0, 12.5], dtype=minitorch.float64)
    x.requires_grad_(True)
    for fn in (minitorch.lgamma, minitorch.digamma):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


# --- erfc's upper tail ---


def test_erfc_float64_upper_tail_smooth_and_subnormal():
    # past x = 2 erfc is erfcx(x) exp(-x²) with x² split exactly: no step at the hand-over,
    # the ratio of neighbours follows exp(-2 x dx), and it stays subnormal up to 27.2
    x = np.concatenate([[np.nextafter(2.0, 0), 2.0, np.nextafter(2.0, 3)], np.arange(3, 27, 0.5)])
    y = minitorch.erfc(minitorch.tensor(x, dtype=minitorch.float64)).numpy()
    np.testing.assert_allclose(y[1] - y[0], y[2] - y[1], rtol=0.5, atol=1e-30)
    xs = x[3:]
    ratio = y[4:] / y[3:-1]
    # erfc(x + 1/2) / erfc(x) -> exp(-x - 1/4) x / (x + 1/2): a smooth, decreasing run
    np.testing.assert_allclose(ratio, np.exp(-xs[:-1] - 0.25) * xs[:-1] / xs[1:], rtol=0.05)
    tail = minitorch.erfc(
        minitorch.tensor([26.7, 26.9, 27.1, 27.5, math.inf], dtype=minitorch.float64)
    )
    t = tail.numpy()
    assert (t[:3] > 0).all() and (t[:3] < np.finfo(np.float64).tiny).all(), t
    assert t[0] > t[1] > t[2] and t[3] == 0 and t[4] == 0


# --- division's gradient ---


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_divisor_gradient_grouping(dtype):
    # -grad * ((a / b) / b), grouped as torch's formula: bitwise
    np_dt = np.float32 if dtype is minitorch.float32 else np.float64
    rng = np.random.default_rng(6)
    a, b, g = (rng.standard_normal(500).astype(np_dt) * 3 for _ in range(3))
    ta = minitorch.tensor(a, requires_grad=True)
    tb = minitorch.tensor(b, requires_grad=True)
    (ta / tb).backward(minitorch.tensor(g))
    np.testing.assert_array_equal(tb.grad.numpy(), -g * ((a / b) / b))
    np.testing.assert_array_equal(ta.grad.numpy(), g / b)
