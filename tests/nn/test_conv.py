"""Convolution layers and functions: values vs NumPy loops, float64 gradients, module behaviour,
torch's errors, and no host reads on the strict device."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck
from tests.ops.specs_conv import ref_conv, ref_conv_transpose


def _t(a, device="cpu", grad=False):
    return mt.tensor(a, device=device, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


CONV_CASES = [
    # (input shape, weight shape, kwargs)
    ((2, 3, 9), (4, 3, 3), dict(stride=2, padding=2, dilation=2)),
    ((2, 4, 7, 6), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), groups=2)),
    ((1, 2, 6, 5), (3, 2, 4, 3), dict(padding="same", dilation=(1, 2))),
    ((1, 2, 6, 5), (3, 2, 3, 3), dict(padding="valid")),
    ((1, 2, 4, 5, 3), (2, 1, 2, 3, 2), dict(padding=1, stride=(1, 2, 1), groups=2)),
]


@pytest.mark.parametrize("shapes", CONV_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_conv_matches_numpy(shapes, device):
    xs, ws, kw = shapes
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=xs), rng.normal(size=ws), rng.normal(size=ws[0])
    fn = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}[len(xs)]
    out = fn(_t(x, device), _t(w, device), _t(b, device), **kw)
    np.testing.assert_allclose(_np(out), ref_conv(x, w, b, **kw), rtol=1e-10, atol=1e-10)


def test_conv_gradients_float64(device):
    rng = np.random.default_rng(1)
    x = _t(rng.normal(size=(2, 4, 5, 4)), device, True)
    w = _t(rng.normal(size=(4, 2, 2, 3)), device, True)
    b = _t(rng.normal(size=4), device, True)

    def f(x, w, b):
        return F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_conv_transpose_matches_numpy_and_grads(device):
    rng = np.random.default_rng(2)
    x, w, b = rng.normal(size=(2, 4, 3, 4)), rng.normal(size=(4, 3, 3, 2)), rng.normal(size=6)
    kw = dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=(1, 2))
    out = F.conv_transpose2d(_t(x, device), _t(w, device), _t(b, device), **kw)
    np.testing.assert_allclose(_np(out), ref_conv_transpose(x, w, b, **kw), atol=1e-10)
    tx, tw = _t(x[:1, :, :2, :3], device, True), _t(w, device, True)
    assert gradcheck(lambda a, c: F.conv_transpose2d(a, c, **kw), (tx, tw))


def test_conv1d_unbatched_and_empty_batch():
    w = mt.randn(3, 2, 3)
    assert F.conv1d(mt.randn(2, 7), w).shape == (3, 5)
    assert F.conv1d(mt.zeros(0, 2, 7), w).shape == (0, 3, 5)


def test_conv_no_host_reads_on_strict():
    x = mt.randn(2, 3, 6, 6, device="strict", requires_grad=True)
    conv = nn.Conv2d(3, 4, 3, padding=1).to("strict")
    with count_transfers() as t:
        out = F.max_pool2d(conv(x).relu(), 2)
        F.avg_pool2d(out, 1).sum().backward()
    assert t.count == 0
    assert x.grad.device == mt.device("strict")


# --- modules ---


def test_conv2d_module_shapes_init_repr():
    mt.manual_seed(0)
    m = nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=True)
    assert m.weight.shape == (6, 2, 3, 2)
    bound = 1 / math.sqrt(2 * 3 * 2)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    assert repr(m) == (
        "Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), groups=2)"
    )
    assert list(m.state_dict()) == ["weight", "bias"]
    assert m(mt.randn(1, 4, 9, 8)).shape == (1, 6, 4, 4)
    assert m(mt.randn(4, 9, 8)).shape == (6, 4, 4)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv_padding_modes(mode):
    rng = np.random.default_rng(3)
    m = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode).double()
    x = rng.normal(size=(1, 2, 5, 6))
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 2)], mode=np_mode)
    want = ref_conv(xp, _np(m.weight), _np(m.bias))
    np.testing.assert_allclose(_np(m(mt.tensor(x))), want, atol=1e-10)
    assert repr(m).endswith(f"padding=(1, 2), padding_mode={mode})")
    xt = mt.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: m(a), (xt,))


def test_conv_same_padding_even_kernel_module():
    m = nn.Conv1d(1, 1, 4, padding="same", padding_mode="circular", bias=False)
    assert m._reversed_padding_repeated_twice == [1, 2]
    assert m(mt.randn(1, 1, 7)).shape == (1, 1, 7)


def test_conv_transpose_module_output_size():
    m = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    x = mt.randn(1, 3, 4, 5)
    assert m(x).shape == (1, 2, 7, 9)
    assert m(x, output_size=(8, 10)).shape == (1, 2, 8, 10)
    assert m(x, output_size=[1, 2, 8, 9]).shape == (1, 2, 8, 9)
    with pytest.raises(ValueError, match="requested an output size of"):
        m(x, output_size=(9, 9))
    assert m.weight.shape == (3, 2, 3, 3)
    assert repr(nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1)) == (
        "ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,), output_padding=(1,))"
    )


@pytest.mark.parametrize(
    "make, exc, msg",
    [
        (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible"),
        (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible"),
        (lambda: nn.Conv2d(3, 4, 3, groups=0), ValueError, "groups must be a positive"),
        (lambda: nn.Conv2d(3, 4, 3, padding="foo"), ValueError, "Invalid padding string"),
        (lambda: nn.Conv2d(3, 4, 3, padding="same", stride=2), ValueError, "strided"),
        (lambda: nn.Conv2d(3, 4, 3, padding_mode="foo"), ValueError, "padding_mode must be"),
        (lambda: nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"), ValueError, "zeros"),
    ],
)
def test_conv_module_errors(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: F.conv2d(mt.randn(2, 3, 8, 8), mt.randn(4, 2, 3, 3)),
            r"Given groups=1, weight of size \[4, 2, 3, 3\], expected input\[2, 3, 8, 8\] to have "
            "2 channels, but got 3 channels instead",
        ),
        (
            lambda: F.conv2d(mt.randn(8, 8), mt.randn(4, 3, 3, 3)),
            r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: "
            r"\[8, 8\]",
        ),
        (
            lambda: F.conv2d(mt.randn(1, 3, 2, 2), mt.randn(4, 3, 3, 3)),
            r"Calculated padded input size per channel: \(2 x 2\). Kernel size: \(3 x 3\)",
        ),
        (
            lambda: F.conv2d(mt.randn(1, 3, 5, 5), mt.randn(4, 3, 3, 3), stride=0),
            "non-positive stride",
        ),
        (
            lambda: F.conv2d(mt.randn(1, 3, 5, 5), mt.randn(4, 3, 3, 3), padding=-1),
            "negative padding",
        ),
        (
            lambda: F.conv2d(mt.randn(1, 3, 5, 5), mt.randn(4, 3, 3, 3), bias=mt.randn(3)),
            "expected bias to be 1-dimensional with 4 elements",
        ),
        (
            lambda: F.conv2d(mt.randn(1, 3, 5, 5), mt.randn(4, 3, 3, 3).double()),
            "expected scalar type Float but found Double",
        ),
        (
            lambda: F.conv_transpose2d(mt.randn(1, 3, 5, 5), mt.randn(4, 2, 3, 3)),
            "Given transposed=1, weight of size",
        ),
        (
            lambda: F.conv_transpose2d(
                mt.randn(1, 3, 5, 5), mt.randn(3, 2, 3, 3), output_padding=1
            ),
            "output padding must be smaller than either stride or dilation",
        ),
    ],
)
def test_conv_functional_errors(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call()


def test_unfold_fold_roundtrip(device):
    x = mt.randn(2, 3, 5, 6, device=device, dtype=mt.float64)
    cols = F.unfold(x, (2, 3), padding=1, stride=(1, 2))
    assert cols.shape == (2, 3 * 6, 6 * 3)
    # fold(unfold(x)) multiplies each pixel by the number of blocks that read it
    ones = mt.ones_like(x)
    count = F.fold(
        F.unfold(ones, (2, 3), padding=1, stride=(1, 2)), (5, 6), (2, 3), padding=1, stride=(1, 2)
    )
    back = F.fold(cols, (5, 6), (2, 3), padding=1, stride=(1, 2))
    np.testing.assert_allclose(_np(back), _np(x * count), atol=1e-12)
    assert gradgradcheck(
        lambda a: F.unfold(a, 2, dilation=2), (x[:1, :1].detach().requires_grad_(),)
    )


def test_pixel_shuffle_roundtrip():
    x = mt.randn(2, 8, 3, 4)
    y = F.pixel_shuffle(x, 2)
    assert y.shape == (2, 2, 6, 8)
    assert float((F.pixel_unshuffle(y, 2) - x).abs().max()) == 0
    # channel c*4 + i*2 + j goes to (c, h*2 + i, w*2 + j)
    assert float(y[1, 1, 2 * 2 + 1, 3 * 2 + 0]) == float(x[1, 4 + 2, 2, 3])
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    with pytest.raises(RuntimeError, match="not divisible by 4"):
        F.pixel_shuffle(mt.randn(1, 3, 2, 2), 2)


# --- stride 1, against the definition of the weight gradient ---

WIDE_CASES = [
    ((2, 3, 6, 5), (4, 3, 3, 3), dict(padding=1)),
    ((2, 4, 7, 6), (6, 2, 2, 3), dict(padding=(2, 0), dilation=(2, 1), groups=2)),
    ((1, 2, 6, 5), (3, 2, 4, 3), dict(padding="same", dilation=(1, 2))),
    ((2, 2, 4, 5, 3), (2, 2, 2, 3, 2), dict(padding=(1, 0, 1))),
]


def _sliding_weight_grad(x, g, w_shape, kw):
    """d sum(conv(x, w) * g) / dw from the definition, via a windowed view (groups=1 or more)."""
    groups = kw.get("groups", 1)
    pad = kw.get("padding", 0)
    dil = kw.get("dilation", 1)
    nd = x.ndim - 2
    dil = (dil,) * nd if isinstance(dil, int) else dil
    k = w_shape[2:]
    if pad == "same":
        total = [d * (kk - 1) for d, kk in zip(dil, k, strict=True)]
        pads = [(t // 2, t - t // 2) for t in total]
    else:
        pad = (pad,) * nd if isinstance(pad, int) else pad
        pads = [(p, p) for p in pad]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    out = np.zeros(w_shape)
    cg, fg = x.shape[1] // groups, w_shape[0] // groups
    for gi in range(groups):
        for idx in np.ndindex(*k):
            sl = tuple(
                slice(i * d, i * d + o) for i, d, o in zip(idx, dil, g.shape[2:], strict=True)
            )
            xs = xp[(slice(None), slice(gi * cg, (gi + 1) * cg)) + sl]
            gs = g[:, gi * fg : (gi + 1) * fg]
            out[(slice(gi * fg, (gi + 1) * fg), slice(None)) + idx] = np.einsum(
                "nfs,ncs->fc", gs.reshape(gs.shape[:2] + (-1,)), xs.reshape(xs.shape[:2] + (-1,))
            )
    return out


@pytest.mark.parametrize("shapes", WIDE_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_stride_one_conv_values_and_gradients(shapes, device):
    xs, ws, kw = shapes
    rng = np.random.default_rng(5)
    x, w, b = rng.normal(size=xs), rng.normal(size=ws), rng.normal(size=ws[0])
    fn = {4: F.conv2d, 5: F.conv3d}[len(xs)]
    tx, tw, tb = _t(x, device, True), _t(w, device, True), _t(b, device, True)
    out = fn(tx, tw, tb, **kw)
    np.testing.assert_allclose(_np(out), ref_conv(x, w, b, **kw), rtol=1e-10, atol=1e-10)
    g = rng.normal(size=out.shape)
    out.backward(_t(g, device))
    want_w = _sliding_weight_grad(x, g, ws, kw)
    np.testing.assert_allclose(_np(tw.grad), want_w, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(_np(tb.grad), g.sum((0, *range(2, g.ndim))), rtol=1e-10)
    small = [_t(a, device, True) for a in (x[:1], w, b)]
    assert gradcheck(lambda *a: fn(*a, **kw), small)
    assert gradgradcheck(lambda *a: fn(*a, **kw), small)


def test_stride_one_weight_gradient_with_inf_input_matches_definition(device):
    # an inf input makes only the weight-gradient taps that read it infinite
    rng = np.random.default_rng(6)
    x, w = rng.normal(size=(1, 1, 4, 4)), rng.normal(size=(1, 1, 3, 3))
    x[0, 0, 1, 3] = np.inf  # last column: read by the junk of the row below
    tx, tw = _t(x, device), _t(w, device, True)
    out = F.conv2d(tx, tw, padding="valid")  # 2x2 outputs; (1, 3) is read by taps (1, 1), (1, 2)
    g = np.ones(out.shape)
    out.backward(_t(g, device))
    want = _sliding_weight_grad(x, g, w.shape, dict(padding=0))
    assert np.isfinite(want[0, 0, 0, 0]) and np.isinf(want[0, 0, 1, 2])
    np.testing.assert_array_equal(np.isfinite(_np(tw.grad)), np.isfinite(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(_np(tw.grad)[fin], want[fin], rtol=1e-12)
