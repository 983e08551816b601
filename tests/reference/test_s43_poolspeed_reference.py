"""Session 43's faster routes against torch: the depthwise convolution in chunks of samples,
the conv input gradient's wide col2im with the samples end to end, and reflect / replicate /
circular padding's edge copies (values, layouts and gradients)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import conv as conv_ops

torch = pytest.importorskip("torch")


def _both(arrays, requires_grad=True):
    """The arrays as (minitorch tensors, torch tensors), leaves requiring grad."""
    ours = [mt.tensor(a, requires_grad=requires_grad) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=requires_grad) for a in arrays]
    return ours, theirs


def _close(got, want, tol, what):
    got = got.detach().numpy() if hasattr(got, "detach") else got
    want = want.detach().numpy()
    assert got.shape == want.shape and got.dtype == want.dtype, what
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


@pytest.mark.parametrize(
    "xs, mult, kw",
    [
        ((6, 4, 12, 12), 1, dict(padding=1)),  # several samples a chunk
        ((3, 4, 40, 36), 2, dict(padding=(2, 1), dilation=(2, 1))),  # one sample a chunk
    ],
)
def test_depthwise_conv_and_gradients_match_torch(xs, mult, kw, monkeypatch):
    monkeypatch.setattr(conv_ops, "DEPTHWISE_CHUNK_BYTES", 4 << 10)  # several chunks
    rng = np.random.default_rng(0)
    c = xs[1]
    x = rng.normal(size=xs).astype(np.float32)
    w = rng.normal(size=(c * mult, 1, 3, 3)).astype(np.float32)
    b = rng.normal(size=c * mult).astype(np.float32)
    (xm, wm, bm), (xt, wt, bt) = _both([x, w, b])
    om = mt.nn.functional.conv2d(xm, wm, bm, groups=c, **kw)
    ot = torch.nn.functional.conv2d(xt, wt, bt, groups=c, **kw)
    _close(om, ot, 1e-5, "out")
    g = rng.normal(size=tuple(ot.shape)).astype(np.float32)
    gm = mt.autograd.grad(om, (xm, wm, bm), mt.tensor(g))
    gt = torch.autograd.grad(ot, (xt, wt, bt), torch.tensor(g))
    for name, a, e in zip(("grad_x", "grad_w", "grad_b"), gm, gt, strict=True):
        _close(a, e, 1e-5, name)


def test_cnn_step_conv2_input_gradient_matches_torch():
    # the CNN step's second convolution: its input gradient takes the samples end to end
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 16, 14, 14)).astype(np.float32)
    w = (rng.normal(size=(32, 16, 3, 3)) / 12).astype(np.float32)
    (xm, wm), (xt, wt) = _both([x, w])
    om = mt.nn.functional.conv2d(xm, wm, padding=1)
    ot = torch.nn.functional.conv2d(xt, wt, padding=1)
    g = rng.normal(size=tuple(ot.shape)).astype(np.float32)
    gm = mt.autograd.grad(om, (xm, wm), mt.tensor(g))
    gt = torch.autograd.grad(ot, (xt, wt), torch.tensor(g))
    for name, a, e in zip(("grad_x", "grad_w"), gm, gt, strict=True):
        _close(a, e, 1e-5, name)


# (input shape, pad, channels_last)
PAD_CASES = [
    ((4, 8, 12, 10), (1, 1, 1, 1), False),
    ((4, 8, 12, 10), (3, 2, 0, 4), False),
    ((2, 3, 6, 5), (1, 2, 2, 1), True),
    ((3, 5, 17), (4, 2), False),
    ((1, 2, 4, 5, 6), (1, 2, 2, 1, 3, 0), False),
]


@pytest.mark.parametrize("case", PAD_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_matches_torch_values_layout_and_gradients(case, mode):
    shape, pad, channels_last = case
    rng = np.random.default_rng(2)
    x = rng.normal(size=shape)
    (xm,), (xt,) = _both([x])
    if channels_last:
        xm = xm.contiguous(memory_format=mt.channels_last)
        xt = xt.contiguous(memory_format=torch.channels_last)
    om = mt.nn.functional.pad(xm, pad, mode=mode)
    ot = torch.nn.functional.pad(xt, pad, mode=mode)
    np.testing.assert_array_equal(om.detach().numpy(), ot.detach().numpy())  # copies: exact
    assert om.stride() == ot.stride()
    g = rng.normal(size=tuple(ot.shape))
    (gm,) = mt.autograd.grad(om, (xm,), mt.tensor(g))
    (gt,) = torch.autograd.grad(ot, (xt,), torch.tensor(g))
    _close(gm, gt, 1e-12, "grad_x")


@pytest.mark.parametrize(
    "shape, kw",
    [
        ((2, 3, 16, 12), dict(scale_factor=2, mode="bilinear")),
        ((2, 3, 16, 12), dict(size=(7, 25), mode="bilinear", align_corners=True)),
        ((2, 3, 20), dict(scale_factor=1.5, mode="linear")),
        ((1, 2, 4, 6, 5), dict(size=(8, 3, 9), mode="trilinear")),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_without_a_graph_matches_torch(shape, kw, dtype):
    rng = np.random.default_rng(3)
    x = rng.normal(size=shape).astype(dtype)
    with mt.no_grad():
        got = mt.nn.functional.interpolate(mt.tensor(x), **kw)
    with torch.no_grad():
        want = torch.nn.functional.interpolate(torch.tensor(x), **kw)
    _close(got, want, 1e-6 if dtype == np.float32 else 1e-12, "out")
    assert got.stride() == want.stride()
