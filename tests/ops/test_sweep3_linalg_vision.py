"""Sweep 3 fixes: pinv/lstsq gradients at repeated singular values, slogdet/logdet backward on
singular matrices, grid_sample with non-finite grid points and empty batches."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

INF, NAN = math.inf, math.nan


def _grad(f, x, g=None):
    out = f(x)
    return mt.autograd.grad(out, x, g if g is not None else mt.ones_like(out))[0].numpy()


def test_pinv_grad_finite_at_repeated_singular_values():
    eye = mt.eye(3, dtype=mt.float64, requires_grad=True)
    expect = -np.ones((3, 3))
    for f in (mt.linalg.pinv, mt.pinverse, lambda a: mt.linalg.pinv(a, hermitian=True)):
        np.testing.assert_allclose(_grad(f, eye), expect, err_msg="pinv(I) gradient")
    jac = mt.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], requires_grad=True)
    np.testing.assert_allclose(
        _grad(mt.linalg.pinv, jac), [[-1, -1, 1], [-1, -1, 1]], err_msg="pinv(2x3 Jacobian)"
    )
    ones = mt.ones(3, 1, dtype=mt.float64)
    got = _grad(lambda a: mt.linalg.lstsq(a, ones).solution, eye)
    np.testing.assert_allclose(got, expect, err_msg="lstsq(I, 1) gradient")


def test_pinv_grad_rank_deficient_matches_formula():
    # A = [[1, 2], [2, 4]] (rank 1): pinv = A / 25; torch's gradient of pinv(A).sum()
    a = mt.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=mt.float64, requires_grad=True)
    p = np.array([[1.0, 2.0], [2.0, 4.0]]) / 25
    g = np.ones((2, 2))
    an = p * 25
    expect = -p.T @ g @ p.T + (np.eye(2) - an @ p) @ g.T @ p @ p.T
    expect += p.T @ p @ g.T @ (np.eye(2) - p @ an)
    np.testing.assert_allclose(_grad(mt.linalg.pinv, a), expect, atol=1e-15, err_msg="rank 1")
    assert mt.linalg.pinv(a).grad_fn.name() == "LinalgPinvBackward0"


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (3, 3), (2, 2, 4)])
def test_pinv_gradcheck(shape):
    rng = np.random.default_rng(7)
    a = mt.tensor(rng.standard_normal(shape), requires_grad=True)
    assert mt.autograd.gradcheck(mt.linalg.pinv, (a,))
    assert mt.autograd.gradgradcheck(mt.linalg.pinv, (a,))


def test_lstsq_gradgradcheck_full_rank():
    rng = np.random.default_rng(8)
    a = mt.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    b = mt.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda x, y: mt.linalg.lstsq(x, y).solution, (a, b))


def test_pinv_hermitian_needs_square():
    with pytest.raises(RuntimeError, match="linalg.eigh: A must be batches of square"):
        mt.linalg.pinv(mt.ones(2, 3), hermitian=True)


def test_slogdet_logdet_backward_singular_gives_inf():
    for f in (lambda m: mt.linalg.slogdet(m).logabsdet, mt.logdet):
        m = mt.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
        np.testing.assert_array_equal(_grad(f, m), [[-INF, INF], [INF, -INF]])
        z = mt.zeros(2, 2, dtype=mt.float64, requires_grad=True)
        np.testing.assert_array_equal(_grad(f, z), [[NAN, NAN], [NAN, INF]])
    batch = mt.tensor([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]]], requires_grad=True)
    got = _grad(lambda m: mt.linalg.slogdet(m).logabsdet, batch)
    np.testing.assert_array_equal(got, [[[-INF, INF], [INF, -INF]], [[1.0, 0.0], [0.0, 0.5]]])


def _nonfinite_grid():
    # points projected from depth 0: [nan, nan], [.3, .2], [inf, nan]
    xyz = mt.tensor([[0.0, 0.0, 0.0], [0.3, 0.2, 1.0], [1.0, 0.0, 0.0]])
    return (xyz[:, :2] / xyz[:, 2:]).reshape(1, 1, 3, 2)


@pytest.mark.parametrize(
    "mode, padding_mode, align_corners, expect",
    [
        ("bilinear", "border", False, [1.0, 8.3, 4.0]),
        ("nearest", "border", False, [1.0, 7.0, 4.0]),
        ("bilinear", "reflection", True, [1.0, 7.75, 1.0]),
        ("nearest", "reflection", False, [1.0, 7.0, 1.0]),
    ],
)
def test_grid_sample_2d_nonfinite_points_are_clipped(mode, padding_mode, align_corners, expect):
    feat = mt.arange(1.0, 13.0).reshape(1, 1, 3, 4)
    out = F.grid_sample(
        feat, _nonfinite_grid(), mode=mode, padding_mode=padding_mode, align_corners=align_corners
    )
    np.testing.assert_allclose(out.flatten().numpy(), expect, rtol=1e-6, err_msg=mode)


def test_grid_sample_3d_nonfinite_points():
    vol = mt.arange(1.0, 25.0, dtype=mt.float64).reshape(1, 1, 2, 3, 4).requires_grad_()
    g = [NAN, 0.0, 0.0, INF, 0.0, 0.0, 0.3, 0.2, 0.1]
    grid = mt.tensor(g, dtype=mt.float64).reshape(1, 1, 1, 3, 3).requires_grad_()
    out = F.grid_sample(vol, grid, align_corners=False)
    np.testing.assert_allclose(out.flatten().detach().numpy(), [0.0, 0.0, 15.5], rtol=1e-12)
    gv, gg = mt.autograd.grad(out.sum(), (vol, grid))
    assert np.isfinite(gv.numpy()).all() and np.isfinite(gg.numpy()).all()
    np.testing.assert_allclose(gg.numpy().reshape(3, 3)[:2], 0.0, err_msg="non-finite points")
    np.testing.assert_allclose(gg.numpy().reshape(3, 3)[2], [2.0, 6.0, 12.0], rtol=1e-12)
    np.testing.assert_allclose(gv.numpy().sum(), 1.0, rtol=1e-12, err_msg="one point's weights")
    border = F.grid_sample(vol.detach(), grid.detach(), padding_mode="border", align_corners=True)
    # torch's 3-d kernel clips NaN to the last index, +-inf to the bounds
    np.testing.assert_allclose(border.flatten().numpy(), [14.0, 14.0, 14.35], rtol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_empty_batch(mode):
    x = mt.ones(0, 2, 3, 4, requires_grad=True)
    g = mt.zeros(0, 5, 1, 2, requires_grad=True)
    out = F.grid_sample(x, g, mode=mode, align_corners=False)
    assert tuple(out.shape) == (0, 2, 5, 1)
    out.sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 3, 4) and tuple(g.grad.shape) == (0, 5, 1, 2)
    out3 = F.grid_sample(mt.ones(0, 2, 1, 3, 4), mt.zeros(0, 1, 1, 1, 3), align_corners=False)
    assert tuple(out3.shape) == (0, 2, 1, 1, 1)
    assert tuple(
        F.grid_sample(mt.ones(2, 0, 3, 4), g.new_zeros(2, 5, 1, 2), align_corners=False).shape
    ) == (2, 0, 5, 1)
