"""Pooling, unpooling, interpolation and padding layers: values vs NumPy, indices, gradients,
module reprs and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from tests.ops.specs_conv import ref_avg_pool, ref_max_pool


def _np(t):
    return t.detach().cpu().numpy()


def _distinct(shape, seed=0):
    """Distinct values (no ties, so the arg-max is unique) as float64."""
    rng = np.random.default_rng(seed)
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64) / 7.0


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=(2, 3), stride=1, padding=(1, 1), dilation=(2, 1)),
    ],
)
def test_max_pool2d_values_and_indices(kw, device):
    x = _distinct((2, 3, 7, 6))
    out, idx = F.max_pool2d(mt.tensor(x, device=device), return_indices=True, **kw)
    np.testing.assert_array_equal(_np(out), ref_max_pool(x, **kw))
    flat = x.reshape(2, 3, -1)
    picked = np.take_along_axis(flat, _np(idx).reshape(2, 3, -1), -1).reshape(out.shape)
    np.testing.assert_array_equal(picked, _np(out))
    assert idx.dtype == mt.int64


def test_max_pool_ties_and_nan_pick_like_torch():
    x = mt.tensor([[[[0.0, 0.0], [0.0, 0.0]]]], requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    out.sum().backward()
    assert idx.item() == 0 and x.grad.flatten().tolist() == [1.0, 0.0, 0.0, 0.0]
    nan = float("nan")
    _, idx = F.max_pool2d(mt.tensor([[[[1.0, nan], [2.0, nan]]]]), 2, return_indices=True)
    assert idx.item() == 3  # torch keeps the last NaN


@pytest.mark.parametrize("shape", [(2, 3, 8, 6), (1, 2, 7, 5)])
def test_max_pool2d_kernel_2_picks_the_first_maximum_of_each_window(shape, device):
    # small integers: most windows hold ties (a ReLU's zeros do the same in a CNN)
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, size=shape).astype(np.float64)
    xt = mt.tensor(x, device=device, requires_grad=True)
    out, idx = F.max_pool2d(xt, 2, return_indices=True)
    n, c, h, w = shape
    oh, ow = h // 2, w // 2  # an odd last row or column is dropped
    win = x[:, :, : 2 * oh, : 2 * ow].reshape(n, c, oh, 2, ow, 2).transpose(0, 1, 2, 4, 3, 5)
    win = win.reshape(n, c, oh, ow, 4)
    first = win.argmax(-1)  # row-major order within the window
    rows = 2 * np.arange(oh)[:, None] + first // 2
    cols = 2 * np.arange(ow)[None, :] + first % 2
    np.testing.assert_array_equal(_np(out), win.max(-1))
    np.testing.assert_array_equal(_np(idx), rows * w + cols)
    g = rng.standard_normal(out.shape)
    out.backward(mt.tensor(g, device=device))
    want = np.zeros(shape)
    ni, ci = np.arange(n)[:, None, None, None], np.arange(c)[None, :, None, None]
    want[ni, ci, rows, cols] = g
    np.testing.assert_array_equal(_np(xt.grad), want)


def test_pool_gradients_float64(device):
    x = mt.tensor(_distinct((1, 2, 5, 6)), device=device, requires_grad=True)
    assert gradcheck(lambda a: F.max_pool2d(a, 3, 2, 1, ceil_mode=True), (x,))
    assert gradgradcheck(lambda a: F.max_pool2d(a, 2, 1), (x,))
    assert gradcheck(lambda a: F.avg_pool2d(a, 3, 2, 1, True, False), (x,))
    assert gradgradcheck(lambda a: F.avg_pool2d(a, 2, 1, divisor_override=3), (x,))


@pytest.mark.parametrize(
    "kw",
    [
        dict(kernel_size=2),
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=(3, 2), stride=1, padding=1, divisor_override=5),
    ],
)
def test_avg_pool2d_values(kw, device):
    x = np.random.default_rng(1).normal(size=(2, 3, 7, 6))
    out = F.avg_pool2d(mt.tensor(x, device=device), **kw)
    np.testing.assert_allclose(_np(out), ref_avg_pool(x, **kw), atol=1e-12)


def test_pool1d_and_3d():
    x = _distinct((2, 3, 9))
    out, idx = F.max_pool1d(mt.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(_np(out), ref_max_pool(x, 3, 2, 1, n=1))
    np.testing.assert_array_equal(np.take_along_axis(x, _np(idx), -1), _np(out))
    np.testing.assert_allclose(
        _np(F.avg_pool1d(mt.tensor(x), 3, 2, 1, ceil_mode=True)),
        ref_avg_pool(x, 3, 2, 1, ceil_mode=True, n=1),
    )
    x3 = _distinct((1, 2, 4, 5, 3))
    np.testing.assert_array_equal(
        _np(F.max_pool3d(mt.tensor(x3), 2, (2, 2, 1))), ref_max_pool(x3, 2, (2, 2, 1), n=3)
    )
    np.testing.assert_allclose(
        _np(F.avg_pool3d(mt.tensor(x3), 2, 1, 1)), ref_avg_pool(x3, 2, 1, 1, n=3)
    )


def _ref_adaptive_avg(x, out):
    H, W = x.shape[-2:]
    res = np.zeros(x.shape[:-2] + tuple(out))
    for i in range(out[0]):
        h0, h1 = (i * H) // out[0], -((-(i + 1) * H) // out[0])
        for j in range(out[1]):
            w0, w1 = (j * W) // out[1], -((-(j + 1) * W) // out[1])
            res[..., i, j] = x[..., h0:h1, w0:w1].mean((-2, -1))
    return res


def _ref_adaptive_max(x, out):
    H, W = x.shape[-2:]
    res = np.zeros(x.shape[:-2] + tuple(out))
    for i in range(out[0]):
        h0, h1 = (i * H) // out[0], -((-(i + 1) * H) // out[0])
        for j in range(out[1]):
            w0, w1 = (j * W) // out[1], -((-(j + 1) * W) // out[1])
            res[..., i, j] = x[..., h0:h1, w0:w1].max((-2, -1))
    return res


@pytest.mark.parametrize("out", [(3, 4), (4, 3), (1, 1), (7, 6)])
def test_adaptive_pools(out, device):
    x = _distinct((2, 3, 8, 9))
    t = mt.tensor(x, device=device)
    np.testing.assert_allclose(
        _np(F.adaptive_avg_pool2d(t, out)), _ref_adaptive_avg(x, out), atol=1e-12
    )
    vals, idx = F.adaptive_max_pool2d(t, out, return_indices=True)
    np.testing.assert_array_equal(_np(vals), _ref_adaptive_max(x, out))
    flat = np.take_along_axis(x.reshape(2, 3, -1), _np(idx).reshape(2, 3, -1), -1)
    np.testing.assert_array_equal(flat.reshape(vals.shape), _np(vals))


def test_adaptive_gradients_and_none_sizes():
    x = mt.tensor(_distinct((1, 2, 5, 7)), requires_grad=True)
    assert gradcheck(lambda a: F.adaptive_avg_pool2d(a, (3, None)), (x,))
    assert gradcheck(lambda a: F.adaptive_max_pool2d(a, (2, 3)), (x,))
    assert F.adaptive_avg_pool2d(x, (None, 3)).shape == (1, 2, 5, 3)
    assert F.adaptive_avg_pool1d(mt.randn(2, 10), 4).shape == (2, 4)


def test_adaptive_pools_to_an_empty_size():
    # torch returns an empty tensor for an output size of 0 (this raised ZeroDivisionError)
    x = mt.ones(2, 3, 4, 4, requires_grad=True)
    assert nn.AdaptiveAvgPool1d(0)(mt.ones(2, 3, 4)).shape == (2, 3, 0)
    y = F.adaptive_avg_pool2d(x, (0, 2))
    assert y.shape == (2, 3, 0, 2) and y.grad_fn is not None
    assert F.adaptive_avg_pool3d(mt.ones(1, 2, 2, 2, 2), (1, 0, 2)).shape == (1, 2, 1, 0, 2)
    vals, idx = F.adaptive_max_pool2d(x, (0, 2), return_indices=True)
    assert vals.shape == idx.shape == (2, 3, 0, 2) and idx.dtype is mt.int64
    assert F.adaptive_max_pool1d(mt.ones(2, 3, 4), 0).shape == (2, 3, 0)
    assert F.adaptive_max_pool3d(mt.ones(1, 2, 2, 2, 2), 0).shape == (1, 2, 0, 0, 0)


def test_max_unpool2d_inverts_max_pool():
    x = mt.tensor(_distinct((2, 3, 6, 8)))
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    back = F.max_unpool2d(out, idx, 2)
    want = np.where(_np(back) != 0, _np(x), 0)
    np.testing.assert_array_equal(_np(back), want)
    assert int((back != 0).sum()) == out.numel()
    assert F.max_unpool2d(out, idx, 2, output_size=(7, 9)).shape == (2, 3, 7, 9)
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(out, idx, 2, output_size=(12, 12))


def _ref_bilinear(x, size, align_corners):
    def axis_weights(L, o):
        i = np.arange(o, dtype=np.float64)
        if align_corners:
            src = i * ((L - 1) / (o - 1) if o > 1 else 0.0)
        else:
            src = np.maximum((i + 0.5) * (L / o) - 0.5, 0)
        i0 = np.floor(src).astype(int)
        i1 = np.minimum(i0 + 1, L - 1)
        lam = src - i0
        m = np.zeros((o, L))
        np.add.at(m, (np.arange(o), i0), 1 - lam)
        np.add.at(m, (np.arange(o), i1), lam)
        return m

    mh, mw = axis_weights(x.shape[-2], size[0]), axis_weights(x.shape[-1], size[1])
    return np.einsum("ih,nchw,jw->ncij", mh, x, mw)


@pytest.mark.parametrize("align", [False, True])
def test_interpolate_bilinear(align, device):
    x = np.random.default_rng(2).normal(size=(2, 3, 4, 5))
    out = F.interpolate(
        mt.tensor(x, device=device), size=(7, 3), mode="bilinear", align_corners=align
    )
    np.testing.assert_allclose(_np(out), _ref_bilinear(x, (7, 3), align), atol=1e-12)


def test_interpolate_nearest_and_grads():
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    out = F.interpolate(mt.tensor(x), scale_factor=2)
    np.testing.assert_array_equal(_np(out), x.repeat(2, 2).repeat(2, 3))
    out = F.interpolate(mt.tensor(x), size=(5, 3))
    rows, cols = np.floor(np.arange(5) * 3 / 5).astype(int), np.floor(np.arange(3) * 4 / 3)
    np.testing.assert_array_equal(_np(out), x[:, :, rows][:, :, :, cols.astype(int)])
    t = mt.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: F.interpolate(a, scale_factor=1.5, mode="bilinear"), (t,))


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda: F.interpolate(mt.randn(1, 1, 4, 4), scale_factor=2, align_corners=True),
            ValueError,
            "align_corners option can only be set",
        ),
        (
            lambda: F.interpolate(mt.randn(1, 1, 4, 4), scale_factor=2, mode="linear"),
            NotImplementedError,
            "Got 4D input, but linear mode needs 3D input",
        ),
        (lambda: F.interpolate(mt.randn(1, 1, 4, 4)), ValueError, "either size or scale_factor"),
        (
            lambda: F.max_pool2d(mt.randn(1, 3, 8, 8), 3, padding=2),
            RuntimeError,
            "pad should be at most half of effective kernel size",
        ),
        (
            lambda: F.max_pool2d(mt.randn(1, 3, 1, 8), 3),
            RuntimeError,
            r"Given input size: \(3x1x8\). Calculated output size: \(3x0x2\)",
        ),
        (lambda: F.max_pool2d(mt.randn(8), 2), RuntimeError, "3D or 4D"),
        (
            lambda: F.max_pool1d(mt.randn(2, 3, 8, 8), 2),
            RuntimeError,
            r"max_pool1d: Expected 2D or 3D",
        ),
        (
            lambda: F.avg_pool1d(mt.randn(2, 3, 8, 8), 2),
            RuntimeError,
            "while checking arguments for avg_pool1d",
        ),
        (
            lambda: F.max_pool2d(mt.randn(1, 1, 4, 4), 2, stride=0),
            RuntimeError,
            "stride should not be zero",
        ),
    ],
)
def test_pool_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_module_reprs():
    cases = {
        nn.MaxPool2d(2): "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, "
        "ceil_mode=False)",
        nn.MaxPool1d(3, 1, 1): "MaxPool1d(kernel_size=3, stride=1, padding=1, dilation=1, "
        "ceil_mode=False)",
        nn.AvgPool1d(2): "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))",
        nn.AvgPool2d(3, 1, 1): "AvgPool2d(kernel_size=3, stride=1, padding=1)",
        nn.AdaptiveAvgPool2d((None, 3)): "AdaptiveAvgPool2d(output_size=(None, 3))",
        nn.AdaptiveMaxPool2d(3): "AdaptiveMaxPool2d(output_size=3)",
        nn.MaxUnpool2d(2): "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))",
        nn.Upsample(scale_factor=2): "Upsample(scale_factor=2.0, mode='nearest')",
        nn.UpsamplingBilinear2d(size=4): "UpsamplingBilinear2d(size=4, mode='bilinear')",
        nn.ZeroPad2d((1, 2, 3, 4)): "ZeroPad2d((1, 2, 3, 4))",
        nn.ConstantPad1d(2, 3.5): "ConstantPad1d(padding=(2, 2), value=3.5)",
        nn.ReflectionPad2d(1): "ReflectionPad2d((1, 1, 1, 1))",
        nn.ReplicationPad1d(1): "ReplicationPad1d((1, 1))",
        nn.Fold(3, 2): "Fold(output_size=3, kernel_size=2, dilation=1, padding=0, stride=1)",
    }
    for m, want in cases.items():
        assert repr(m) == want


def test_pool_and_pad_modules_forward():
    x = mt.randn(2, 3, 6, 6)
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert nn.MaxUnpool2d(2)(out, idx).shape == (2, 3, 6, 6)
    assert nn.AdaptiveAvgPool2d(1)(x).shape == (2, 3, 1, 1)
    assert nn.AvgPool2d(3, 2, 1)(x).shape == (2, 3, 3, 3)
    assert nn.ZeroPad2d((1, 0, 2, 0))(x).shape == (2, 3, 8, 7)
    assert nn.ReflectionPad1d(2)(mt.randn(2, 5)).shape == (2, 9)
    assert nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True)(x).shape == (2, 3, 3, 4)
