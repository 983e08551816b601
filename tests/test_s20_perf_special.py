"""polygamma(1, x) through minitorch's vectorised trigamma kernel (NOTE [ Trigamma ] in
minitorch/_backend/numpy_special.py): digamma's, lgamma's and mvlgamma's backward use it."""

import math

import numpy as np
import pytest

import minitorch
from minitorch._backend import numpy_special
from minitorch.autograd import gradcheck, gradgradcheck

NAN, INF = math.nan, math.inf


def _ulps(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want))


# (x, psi'(x) from mpmath at 120 bits): points where SciPy's polygamma (tiny x) or the no-SciPy
# fallback (x near 10) was 4-6 ulps off
_MPMATH = [
    (7.194275269950507e-08, 193208352886348.72),
    (9.383353959055873e-08, 113575276243585.73),
    (10.053031113747936, 0.10458359471123042),
    (10.110625849644833, 0.10395797105162005),
    (3.3, 0.3535015418410618),
    (7.0, 0.15354517795933756),
    (-123456789.5, 9.869604392989359),
    (-1000.75, 19.73821005070119),
]


def test_polygamma1_float64_within_2_ulps_of_mpmath():
    x = minitorch.tensor([p[0] for p in _MPMATH], dtype=minitorch.float64)
    got = minitorch.polygamma(1, x).numpy()
    assert _ulps(got, [p[1] for p in _MPMATH]).max() <= 2


def test_backend_polygamma1_kernel_with_and_without_scipy(monkeypatch):
    xs = np.array([p[0] for p in _MPMATH])
    want = [p[1] for p in _MPMATH]
    assert _ulps(numpy_special.FALLBACKS["polygamma"](1, xs), want).max() <= 2
    monkeypatch.setattr(numpy_special, "_cache", {})
    assert _ulps(numpy_special.special("polygamma")(1, xs), want).max() <= 2
    # other orders still go through SciPy's polygamma (or the fallback)
    assert numpy_special.special("polygamma")(2, np.array([1.0]))[0] == pytest.approx(
        -2.4041138063191885, rel=1e-14
    )


def test_polygamma1_float32_edges_as_torch():
    v = [0.0, -0.0, -1.0, -3.5, -0.25, 0.5, 1.0, 2.5, 9.5, 10.0, 30.0, 1e-30, INF, -INF, NAN]
    want = [INF, INF, 1291369695936512.0, 9.620879173278809, 18.54188346862793,
            4.934802055358887, 1.644934058189392, 0.49035775661468506, 0.1109972894191742,
            0.10516633093357086, 0.033895060420036316, INF, 0.0, NAN, NAN]  # fmt: skip
    got = minitorch.polygamma(1, minitorch.tensor(v)).numpy()
    assert got.dtype == np.float32
    # torch's float32 series from 0 up; below 0 its sin(pi x) of a rounded pi x is replaced
    # by the distance to the nearest integer's (1-2 ulps apart here, 1e3 and more further out)
    np.testing.assert_allclose(got, np.array(want, dtype=np.float32), rtol=3e-7)


def test_polygamma1_shapes_dtypes():
    x = minitorch.tensor([[0.25, -1.5, 3.0], [12.0, -0.75, 2.0]]).t()  # non-contiguous
    got = minitorch.polygamma(1, x)
    assert got.shape == (3, 2) and got.dtype is minitorch.float32
    assert minitorch.equal(got, minitorch.polygamma(1, x.contiguous()))
    # float32 takes torch's float32 series, not the float64 values rounded: a few ulps apart
    want = minitorch.polygamma(1, x.double()).numpy()
    np.testing.assert_allclose(got.numpy(), want, rtol=5e-7, err_msg="float32 vs float64")
    assert minitorch.polygamma(1, minitorch.zeros(0, 3)).shape == (0, 3)
    assert minitorch.polygamma(1, minitorch.tensor(-2.5)).item() == pytest.approx(9.5392466, 1e-7)
    half = minitorch.polygamma(1, minitorch.tensor([0.5, 2.0], dtype=minitorch.float16))
    assert half.dtype is minitorch.float16 and half.tolist() == [4.93359375, 0.64501953125]
    ints = minitorch.polygamma(1, minitorch.tensor([1, 2, -3]))
    assert ints.dtype is minitorch.float32 and ints[:2].tolist() == pytest.approx(
        [1.6449340, 0.6449341], 1e-7
    )


def test_digamma_and_mvlgamma_backward_as_torch():
    a = minitorch.tensor([0.3, 1.7, 4.0, -2.25, 12.0], requires_grad=True)
    minitorch.digamma(a).sum().backward()
    want = [12.245363235473633, 0.7932328581809998, 0.2838229537010193, 19.379411697387695,
            0.08690187335014343]  # fmt: skip
    assert a.grad.tolist() == pytest.approx(want, rel=3e-7)
    b = minitorch.tensor([0.3, 1.7, 4.0, -2.25, 12.0], dtype=minitorch.float64, requires_grad=True)
    minitorch.mvlgamma(b + 3, 2).sum().backward()
    want = [1.875369477909039, 2.748762700918381, 3.6656956654984, -5.313314413162738,
            5.31361638700978]  # fmt: skip
    assert b.grad.tolist() == pytest.approx(want, rel=1e-13)


def test_digamma_polygamma_gradients_float64():
    rng = np.random.default_rng(0)
    x = minitorch.tensor(rng.uniform(0.2, 15.0, 8), dtype=minitorch.float64, requires_grad=True)
    neg = minitorch.tensor([-0.3, -1.6, -7.25], dtype=minitorch.float64, requires_grad=True)
    for a in (x, neg):
        assert gradcheck(minitorch.digamma, (a,))
        assert gradgradcheck(minitorch.digamma, (a,))
        assert gradcheck(lambda t: minitorch.polygamma(1, t), (a,))


def test_large_array_takes_the_vectorised_kernel():
    # a million values, negative ones included: SciPy's zeta path took ~0.2 s per 1M, and for
    # x near -1e6 ~50 ms per element; the fallback shifted -1e6 up one step per pass
    rng = np.random.default_rng(1)
    v = rng.uniform(-30.0, 30.0, 1_000_000)
    v[:3] = [-1e6 - 0.5, -1e8 - 0.25, 1e12]
    got = minitorch.polygamma(1, minitorch.tensor(v)).numpy()
    assert np.isfinite(got).all() and (got > 0).all()
    assert got[0] == pytest.approx(math.pi**2, rel=1e-6)
    assert got[1] == pytest.approx(2 * math.pi**2, rel=1e-6)
    assert got[2] == pytest.approx(1e-12, rel=1e-9)
