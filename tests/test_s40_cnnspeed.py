"""Convolution's per-sample GEMMs, the wide col2im in chunks and max pooling on contiguous taps:
each route against the one it stands in for, NumPy references and float64 gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch._ops import conv as conv_ops
from minitorch._ops import pool as pool_ops
from minitorch.autograd import gradcheck, gradgradcheck
from tests.ops.specs_conv import ref_conv, ref_max_pool

CONV = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}

# (input shape, weight shape, kwargs): each sample's GEMM is small (the per-sample route)
PER_SAMPLE_CASES = [
    ((3, 1, 11, 9), (4, 1, 3, 3), dict(padding=1)),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), groups=2)),
    ((2, 3, 9), (5, 3, 3), dict(stride=2, padding=2, dilation=2)),
    ((1, 2, 6, 5), (3, 2, 3, 3), dict(padding="same", dilation=(1, 2))),
    ((2, 2, 4, 5, 3), (4, 1, 2, 3, 2), dict(padding=1, stride=(1, 2, 1), groups=2)),
    ((0, 3, 5, 5), (2, 3, 3, 3), dict(padding=1)),
]


def _conv_and_grads(xs, ws, kw, dtype, seed=0):
    """(out, grad_x, grad_w, grad_b) of conv(x, w, b) for a random upstream gradient."""
    rng = np.random.default_rng(seed)
    x = mt.tensor(rng.normal(size=xs).astype(dtype), requires_grad=True)
    w = mt.tensor(rng.normal(size=ws).astype(dtype), requires_grad=True)
    b = mt.tensor(rng.normal(size=ws[0]).astype(dtype), requires_grad=True)
    out = CONV[len(xs)](x, w, b, **kw)
    g = mt.tensor(rng.normal(size=tuple(out.shape)).astype(dtype))
    grads = mt.autograd.grad(out, (x, w, b), g)
    return [out.detach().numpy()] + [t.numpy() for t in grads]


def _no_channel_major_columns(*args, **kwargs):
    raise AssertionError("the channel-major im2col ran on the per-sample route")


@pytest.mark.parametrize("case", PER_SAMPLE_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_per_sample_convolution_matches_the_channel_major_route(case, dtype, monkeypatch):
    xs, ws, kw = case
    monkeypatch.setattr(conv_ops, "PER_SAMPLE_MAX_MACS", -1)
    channel_major = _conv_and_grads(xs, ws, kw, dtype)
    monkeypatch.undo()
    monkeypatch.setattr(conv_ops, "_columns_cm", _no_channel_major_columns)
    got = _conv_and_grads(xs, ws, kw, dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for name, a, b in zip(("out", "grad_x", "grad_w", "grad_b"), got, channel_major, strict=True):
        assert a.dtype == dtype and a.shape == b.shape, name
        assert a.flags.c_contiguous, name
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("case", PER_SAMPLE_CASES[:5], ids=lambda c: f"{c[0]}-{c[1]}")
def test_per_sample_convolution_matches_numpy(case):
    xs, ws, kw = case
    rng = np.random.default_rng(3)
    x, w, b = rng.normal(size=xs), rng.normal(size=ws), rng.normal(size=ws[0])
    out = CONV[len(xs)](mt.tensor(x), mt.tensor(w), mt.tensor(b), **kw)
    np.testing.assert_allclose(out.numpy(), ref_conv(x, w, b, **kw), rtol=1e-10, atol=1e-10)


# smaller inputs for gradcheck and gradgradcheck
GRAD_CASES = [
    ((2, 1, 6, 5), (3, 1, 3, 3), dict(padding=1)),
    ((2, 4, 5, 4), (4, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), groups=2)),
    ((2, 3, 7), (2, 3, 3), dict(stride=2, padding=2, dilation=2)),
    ((1, 2, 3, 4, 3), (2, 1, 2, 2, 2), dict(padding=1, stride=(1, 2, 1), groups=2)),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_per_sample_convolution_gradients_float64(case):
    xs, ws, kw = case
    rng = np.random.default_rng(4)
    x = mt.tensor(rng.normal(size=xs), requires_grad=True)
    w = mt.tensor(rng.normal(size=ws), requires_grad=True)
    b = mt.tensor(rng.normal(size=ws[0]), requires_grad=True)

    def f(x, w, b):
        return CONV[len(xs)](x, w, b, **kw)

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_cnn_first_layer_takes_the_per_sample_route_and_keeps_its_values(monkeypatch):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(8, 1, 28, 28)).astype(np.float32)
    w = rng.normal(size=(16, 1, 3, 3)).astype(np.float32)
    assert conv_ops._per_sample(np, w.dtype, 16, 9, (28, 28))
    assert not conv_ops._per_sample(np, w.dtype, 32, 144, (14, 14))  # the second layer's
    ref = ref_conv(x.astype(np.float64), w.astype(np.float64), padding=1)
    got = F.conv2d(mt.tensor(x), mt.tensor(w), padding=1).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def _input_grad(x, w, kw, g):
    xt = mt.tensor(x, requires_grad=True)
    out = CONV[x.ndim](xt, mt.tensor(w), **kw)
    return mt.autograd.grad(out, (xt,), mt.tensor(g))[0].numpy()


# (input shape, weight shape, kwargs): stride 1, the input gradient takes the wide col2im
WIDE_CASES = [
    ((5, 3, 9, 7), (4, 3, 3, 3), dict(padding=1)),
    ((5, 4, 8, 6), (6, 2, 3, 2), dict(padding=(2, 1), dilation=(2, 1), groups=2)),
    ((3, 2, 3, 20, 20), (3, 2, 1, 2, 2), dict()),
]


def _two_samples_bytes(xs, ws, kw, out_shape, itemsize):
    """WIDE_CHUNK_BYTES for chunks of two samples in the input gradient's wide col2im."""
    nd = len(xs) - 2
    pad = kw.get("padding", 0)
    pad = (pad,) * nd if isinstance(pad, int) else pad
    padded = [s + 2 * p for s, p in zip(xs[2:], pad, strict=True)]
    length = out_shape[2] * int(np.prod(padded[1:]))
    return 2 * xs[1] * int(np.prod(ws[2:])) * length * itemsize


@pytest.mark.parametrize("case", WIDE_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wide_col2im_in_chunks_matches_one_chunk(case, dtype, monkeypatch):
    xs, ws, kw = case
    rng = np.random.default_rng(6)
    x, w = rng.normal(size=xs).astype(dtype), rng.normal(size=ws).astype(dtype)
    out_shape = CONV[len(xs)](mt.tensor(x), mt.tensor(w), **kw).shape
    g = rng.normal(size=tuple(out_shape)).astype(dtype)
    calls = []
    wide = conv_ops._col2im_wide
    monkeypatch.setattr(conv_ops, "_col2im_wide", lambda *a: calls.append(1) or wide(*a))
    whole = _input_grad(x, w, kw, g)
    two = _two_samples_bytes(xs, ws, kw, out_shape, x.itemsize)
    monkeypatch.setattr(conv_ops, "WIDE_CHUNK_BYTES", two)  # chunks of 2 samples, the last of 1
    chunked = _input_grad(x, w, kw, g)
    assert len(calls) == 2
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(chunked, whole, rtol=tol, atol=tol)
    if dtype == np.float64 and len(xs) == 4:  # three samples: chunks of 2 and 1
        xt = mt.tensor(x[:3], requires_grad=True)
        assert gradcheck(lambda a: CONV[len(xs)](a, mt.tensor(w), **kw), (xt,))


# (pool, input shape, kwargs, whether its arg-max runs on contiguous copies of the taps: where
# the copy is no larger than the padded input)
POOL_CASES = [
    (F.max_pool2d, (3, 4, 8, 8), dict(kernel_size=2), True),
    (F.max_pool2d, (2, 3, 9, 7), dict(kernel_size=(2, 3), stride=(2, 3), padding=1), True),
    (F.max_pool2d, (1, 3, 7, 7), dict(kernel_size=2, ceil_mode=True), True),
    (F.max_pool2d, (2, 2, 12, 10), dict(kernel_size=2, stride=3, dilation=(2, 1)), True),
    (F.max_pool1d, (2, 3, 11), dict(kernel_size=3, stride=3, padding=1), True),
    (F.max_pool3d, (1, 2, 5, 4, 6), dict(kernel_size=2, stride=(2, 2, 3)), True),
    (F.max_pool2d, (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1), False),
    (F.max_pool2d, (2, 2, 9, 10), dict(kernel_size=(2, 3), stride=1, dilation=(2, 1)), False),
]


def _pool_inputs(shape, rng):
    """Floats with ties (small integers), both zeros and a NaN window."""
    x = rng.integers(-2, 3, size=shape).astype(np.float64)
    x[x == 0] = rng.choice([0.0, -0.0], size=int((x == 0).sum()))
    nan = x.copy()
    nan.reshape(-1)[[1, 4, 5]] = np.nan
    return x, nan


def _counting(fn, calls):
    def counted(*args):
        calls.append(1)
        return fn(*args)

    return counted


def _pool_all(fn, x, kw, grad):
    xt = mt.tensor(x, requires_grad=True)
    out, idx = fn(xt, return_indices=True, **kw)
    (gx,) = mt.autograd.grad(out, (xt,), mt.tensor(grad))
    return out.detach().numpy(), idx.numpy(), gx.numpy(), out.stride()


@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[0].__name__}-{c[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_on_contiguous_taps_matches_the_strided_taps(case, dtype, monkeypatch):
    fn, shape, kw, copied = case
    rng = np.random.default_rng(7)
    copy_taps = pool_ops._contiguous_taps
    for x in _pool_inputs(shape, rng):
        x = x.astype(dtype)
        out_shape = fn(mt.tensor(x), **kw).shape
        g = rng.normal(size=tuple(out_shape)).astype(dtype)
        calls = []
        monkeypatch.setattr(pool_ops, "_contiguous_taps", _counting(copy_taps, calls))
        got = _pool_all(fn, x, kw, g)
        assert bool(calls) == copied
        monkeypatch.setattr(pool_ops, "_contiguous_taps", lambda xp, views: views)
        strided = _pool_all(fn, x, kw, g)
        monkeypatch.undo()
        for a, b in zip(got[:3], strided[:3], strict=True):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
        assert got[3] == strided[3]
        if not np.isnan(x).any():
            n = len(shape) - 2
            ref = ref_max_pool(x, n=n, **kw)
            np.testing.assert_array_equal(got[0], ref)


def test_max_pool_on_contiguous_taps_keeps_channels_last():
    rng = np.random.default_rng(8)
    x = mt.tensor(rng.normal(size=(2, 3, 6, 6)), requires_grad=True)
    xc = x.detach().to(memory_format=mt.channels_last).requires_grad_()
    out, outc = F.max_pool2d(x, 2), F.max_pool2d(xc, 2)
    assert outc.is_contiguous(memory_format=mt.channels_last)
    np.testing.assert_array_equal(outc.detach().numpy(), out.detach().numpy())


def test_max_pool_on_contiguous_taps_gradients_float64():
    rng = np.random.default_rng(9)
    x = mt.tensor(rng.normal(size=(2, 2, 7, 6)), requires_grad=True)

    def f(a):
        return F.max_pool2d(a, 3, stride=2, padding=1)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
    assert gradcheck(lambda a: F.max_pool2d(a, 2), (x,))
