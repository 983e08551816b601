"""grid_sample's reflection padding on arrays without branching selects or NumPy's fmod loop
(_fmod_data, _pad_data in nn/_functional_vision.py): the same bits as the plain NumPy
formulation it replaced (np.fmod and np.where), on grids with NaN and infinities; gradcheck and
gradgradcheck in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn._functional_vision as V
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional
BACKEND = minitorch.tensor([1.0])._device.backend


def _old_pad(x, size, align_corners, nan_to):
    """The reflection coordinate as written before, with np.fmod and np.where."""
    twice_low, twice_high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    hi = size - 1
    sign = None
    if twice_low == twice_high:
        x = x * 0
    else:
        low = twice_low / 2
        span = (twice_high - twice_low) / 2
        shifted = x - low
        x = np.abs(shifted)
        extra = np.fmod(x, span)
        even = np.fmod(np.floor(x / span), 2) == 0
        x = np.where(even, extra + low, span - extra + low)
        sign = np.sign(shifted) * np.where(even, 1, -1).astype(x.dtype)
    inside = (x > 0) & (x < hi)
    return np.nan_to_num(np.clip(x, 0, hi), nan=float(nan_to)), inside, sign


def _wild(rng, n, dtype, size):
    """Coordinates in and far out of [0, size), on and next to the reflection's folds, huge."""
    k = rng.integers(-50, 50, n).astype(np.float64)
    x = np.concatenate(
        [
            rng.standard_normal(n) * size * 3,
            k * size - 0.5,
            k * (size - 1),
            np.nextafter((k * size - 0.5).astype(dtype), np.inf).astype(np.float64),
            np.exp2(rng.uniform(-20, 100, n)) * rng.choice([-1, 1], n),
            [np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0**23, 2.0**52, -(2.0**60)],
        ]
    )
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [1, 2, 5, 64, 1000])
@pytest.mark.parametrize("align_corners", [False, True])
def test_reflection_coordinate_same_bits(dtype, size, align_corners):
    rng = np.random.default_rng(size)
    x = _wild(rng, 3000, dtype, size)  # above the branch-free selects' minimum size
    with np.errstate(all="ignore"):
        want = _old_pad(x, size, align_corners, 0)
        got = V._pad_data(BACKEND, x, size, "reflection", align_corners, 0)
    for w, g in zip(want, got, strict=True):
        if w is None:
            assert g is None
            continue
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("span", [1.0, 3.0, 64.0, 1023.0, 2.0**23 - 1, 2.0**23, 2.0**53])
def test_fmod_data_is_fmod(dtype, span):
    rng = np.random.default_rng(7)
    k = rng.integers(0, 2**22, 4000).astype(np.float64)
    x = np.concatenate(
        [
            k * span,
            np.nextafter((k * span).astype(dtype), 0).astype(np.float64),
            np.nextafter((k * span).astype(dtype), np.inf).astype(np.float64),
            rng.random(4000) * span * 1e6,
            np.exp2(rng.uniform(-30, 120, 4000)),
            [0.0, np.inf, np.nan, 2.0**23, 2.0**23 - 1, 2.0**52 + 2],
        ]
    ).astype(dtype)
    q = np.floor(x / dtype(span))
    with np.errstate(all="ignore"):
        want = np.fmod(x, span)
        got = V._fmod_data(BACKEND, x, span, q)
    assert got.dtype == want.dtype
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert got[~nan].tobytes() == want[~nan].tobytes()


def test_grid_sample_reflection_values_and_grads():
    # torch 2.13: F.grid_sample(x, g, padding_mode="reflection", align_corners=False) on
    # x = arange(9.).view(1, 1, 3, 3), g = [[[[-1.7, 0.4], [2.9, -3.3]]]]; backward of .sum()
    x = minitorch.arange(9.0).view(1, 1, 3, 3).requires_grad_()
    g = minitorch.tensor([[[[-1.7, 0.4], [2.9, -3.3]]]]).requires_grad_()
    out = F.grid_sample(x, g, padding_mode="reflection", align_corners=False)
    out.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), [[[[5.349999904632568, 6.0]]]], rtol=1e-6)
    np.testing.assert_allclose(g.grad.numpy(), [[[[-1.5, 4.5], [0.0, -0.0]]]], atol=1e-6)
    want = [[0.0, 0.0, 0.0], [0.18000000715255737, 0.22000008821487427, 0.0]]
    want.append([1.2699999809265137, 0.32999998331069946, 0.0])
    np.testing.assert_allclose(x.grad.numpy(), [[want]], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_reflection_gradcheck_and_gradgradcheck(mode, align_corners):
    minitorch.manual_seed(0)
    x = minitorch.randn(1, 2, 4, 5, dtype=minitorch.float64, requires_grad=True)
    g = (minitorch.rand(1, 3, 4, 2, dtype=minitorch.float64) * 5 - 2.5).requires_grad_()

    def f(a, b):
        return F.grid_sample(a, b, mode, "reflection", align_corners)

    assert gradcheck(f, (x, g))
    assert gradgradcheck(f, (x, g))
