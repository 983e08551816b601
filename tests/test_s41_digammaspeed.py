"""digamma's host route (each kernel on only the elements that take it) gives the same bits as
the device route (every kernel on every element, one picked per element)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch._ops import special


class _DeviceLikeNumpy:
    """NumPy under another name: `on_host` answers False, so the ops take the device route."""

    def __getattr__(self, name):
        return getattr(np, name)


_DEVICE_XP = _DeviceLikeNumpy()
_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _sample(n: int, seed: int) -> np.ndarray:
    """Normal, wide and narrow uniform, log-uniform over the whole float64 range (both signs),
    integers (the poles), halves, and the edges: ±0, ±inf, NaN, subnormals, huge values, and
    the ends of the ranges each kernel takes."""
    rng = np.random.default_rng(seed)
    edges = [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        5e-324,
        -5e-324,
        1e-310,
        -1e-310,
        1e-300,
        1e308,
        -1e308,
        1e17,
        -1e17,
        2.5,
        -1.5,
        10.0,
        9.999999999999998,
        -8.999999999999998,
        1.4616321449683622,
        -0.5040830082644554,
        np.nextafter(2.5, 0),
        np.nextafter(-1.5, 0),
    ]
    parts = [
        rng.standard_normal(n),
        rng.standard_normal(n) * 3,
        rng.uniform(-60, 60, n),
        rng.uniform(-1.6, 2.6, n),
        np.exp(rng.uniform(-745, 709, n)) * rng.choice([-1.0, 1.0], n),
        rng.integers(-50, 50, n).astype(float),
        np.arange(-40, 41) * 0.5,
        edges,
    ]
    x = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    rng.shuffle(x)
    return x


def _assert_same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, what
    bits = _BITS[got.dtype.itemsize]
    differ = got.view(bits) != want.view(bits)
    assert not differ.any(), f"{what}: {int(differ.sum())} differ, at {got[differ][:5]!r}"


def _psi():
    return minitorch.zeros(1, dtype=minitorch.float64)._device.backend.special("digamma")


def test_float64_host_route_matches_compute_both():
    x = _sample(20_000, 0)
    want = special._digamma64_both(_DEVICE_XP, x, _psi())
    _assert_same_bits(special._digamma64_host(np, x, _psi()), want, "host route")
    t = minitorch.from_numpy(x)
    _assert_same_bits(minitorch.digamma(t).numpy(), want, "digamma")
    _assert_same_bits(minitorch.polygamma(0, t).numpy(), want, "polygamma(0)")
    # the host route does pick per element: SciPy's value on (-1.5, 2.5), the series elsewhere
    assert not np.array_equal(want, special._digamma(_DEVICE_XP, x), equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_series_host_route_matches_device_route(dtype):
    with np.errstate(over="ignore"):
        x = _sample(20_000, 1).astype(dtype)
    want = special._digamma(_DEVICE_XP, x)
    _assert_same_bits(special._digamma(np, x), want, dtype)
    _assert_same_bits(minitorch.digamma(minitorch.from_numpy(x)).numpy(), want, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "values",
    [[], [0.0], [-0.0], [1.3], [-1.0], [np.nan], [20.0], [-3.5], [5.0, 20.0], [-2.5, 3.0]],
)
def test_small_and_uniform_inputs(dtype, values):
    # all elements on one route (the shortcuts that skip the split), 0-d and empty arrays
    for shape in [(), (0,), (3, 0), (2, 3)]:
        if shape == () and len(values) != 1:
            continue
        n = int(np.prod(shape))
        x = np.resize(np.asarray(values, dtype=dtype), n).reshape(shape)
        want = np.asarray(special._digamma(_DEVICE_XP, x))
        if dtype == "float64":
            want = np.asarray(special._digamma64_both(_DEVICE_XP, x, _psi()))
        got = minitorch.digamma(minitorch.from_numpy(x)).numpy()
        _assert_same_bits(got, want, f"{values} {shape}")


def test_layout_kept():
    # a transposed input keeps its layout through the masked route, as through np.where
    x = _sample(600, 2)[:600].reshape(20, 30).T
    t = minitorch.from_numpy(x)
    out = minitorch.digamma(t)
    assert out.stride() == t.stride()
    _assert_same_bits(out.numpy(), special._digamma64_both(_DEVICE_XP, x, _psi()), "transposed")


@pytest.mark.parametrize("poles", [True, False])
def test_trigamma_float64_host_route_matches_device_route(poles):
    # polygamma(1)'s torch edges (huge finite values at the negative integers, NaN at -inf):
    # the host skips the sines when no element is a pole
    x = _sample(20_000, 3)
    if not poles:
        x = np.abs(x)
    kernel = minitorch.zeros(1, dtype=minitorch.float64)._device.backend.special("polygamma")
    want = special._polygamma_edges(_DEVICE_XP, x, 1, kernel(1, x))
    _assert_same_bits(special._polygamma_edges(np, x, 1, kernel(1, x)), want, "edges")
    got = minitorch.polygamma(1, minitorch.from_numpy(x)).numpy()
    _assert_same_bits(got, want, "polygamma(1)")
    if poles:
        assert (x == -1.0).any() and np.isfinite(got[x == -1.0]).all()
        assert (x == -np.inf).any() and np.isnan(got[x == -np.inf]).all()
