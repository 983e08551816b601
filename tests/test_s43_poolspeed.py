"""Session 43 speed work on convolution and padding, each new route against the formula it
replaced (kept here as it was), bit for bit:

- the depthwise convolution's taps' sum in chunks of samples (_depthwise_flat);
- the input gradient's wide col2im with the samples end to end (_col2im_wide);
- reflect / replicate / circular padding's edge copies on row-major views (_pad_in_place).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch._ops import conv as conv_ops
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import _functional_pad as pad_mod
from tests.ops.specs_conv import ref_conv

# --- the replaced formulas, as they were before session 43 ---


def old_depthwise_flat(xp, xpad, wk, dilation, out_size):
    n, c = xpad.shape[:2]
    padded = xpad.shape[3:]
    kernel = wk.shape[2:]
    strides = [conv_ops.prod(padded[i + 1 :]) for i in range(len(padded))]
    length = out_size[0] * strides[0]
    offsets = [
        sum(t * d * st for t, d, st in zip(ks, dilation, strides, strict=True))
        for ks in itertools.product(*(range(k) for k in kernel))
    ]
    flat = xpad.reshape(n, c, 1, conv_ops.prod(padded))
    short = length + max(offsets) - flat.shape[-1]
    if short > 0:
        flat = xp.concatenate([flat, xp.zeros((n, c, 1, short), dtype=flat.dtype)], axis=-1)
    out = xp.zeros((n,) + wk.shape[:2] + (length,), dtype=xpad.dtype)
    tmp = xp.empty_like(out)
    ranges = itertools.product(*(range(k) for k in kernel))
    for off, ks in zip(offsets, ranges, strict=True):
        out += xp.multiply(flat[..., off : off + length], conv_ops._per_channel(wk, ks, 1), out=tmp)
    out = out.reshape(out.shape[:3] + (out_size[0],) + tuple(padded[1:]))
    return out[(slice(None),) * 4 + tuple(slice(0, o) for o in out_size[1:])]


def old_depthwise_views(xp, xpad, wk, stride, dilation, out_size):
    nd = len(out_size)
    kernel = wk.shape[2:]
    out = xp.zeros(xpad.shape[:1] + wk.shape[:2] + out_size, dtype=xpad.dtype)
    tmp = xp.empty_like(out)
    lead = (slice(None),) * 3
    ranges = itertools.product(*(range(k) for k in kernel))
    for (_, sl), ks in zip(conv_ops.taps(kernel, stride, dilation, out_size), ranges, strict=True):
        out += xp.multiply(xpad[lead + sl], conv_ops._per_channel(wk, ks, nd), out=tmp)
    return out


def old_col2im_wide(xp, wm, xd, groups, kernel, dilation, padded, chunk_bytes=2 << 20):
    prod = conv_ops.prod
    n, c_in = xd.shape[:2]
    in_size = xd.shape[2:]
    row = prod(padded[1:])
    wide = xp.zeros((groups, c_in // groups, n, in_size[0]) + tuple(padded[1:]), dtype=xd.dtype)
    src = xd.reshape((n, groups, c_in // groups) + tuple(in_size))
    key = (slice(None),) * 4 + tuple(slice(0, s) for s in in_size[1:])
    wide[key] = src.transpose((1, 2, 0) + tuple(range(3, 3 + len(in_size))))
    length = in_size[0] * row
    wide = wide.reshape(groups, c_in // groups, n * length)
    c_out = wm.shape[0] * wm.shape[1] // prod(kernel)
    strides = [prod(padded[i + 1 :]) for i in range(len(padded))]
    extra = sum(
        d * (k - 1) * st for d, k, st in zip(dilation[1:], kernel[1:], strides[1:], strict=True)
    )
    flat = xp.zeros((c_out, n, padded[0] * row + extra), dtype=xd.dtype)
    offsets = [
        sum(t * d * st for t, d, st in zip(ks, dilation, strides, strict=True))
        for ks in itertools.product(*(range(k) for k in kernel))
    ]
    chunk = max(1, chunk_bytes // (wm.shape[0] * wm.shape[1] * length * xd.itemsize))
    buf = xp.empty(wm.shape[:2] + (min(chunk, n) * length,), dtype=xd.dtype)
    for n0 in range(0, n, chunk):
        n1 = min(n, n0 + chunk)
        part = buf[:, :, : (n1 - n0) * length]
        cols = xp.matmul(wm, wide[:, :, n0 * length : n1 * length], out=part)
        cols = cols.reshape((c_out, prod(kernel), n1 - n0, length))
        for t, off in enumerate(offsets):
            flat[:, n0:n1, off : off + length] += cols[:, t]
    return flat[:, :, : padded[0] * row].reshape((c_out, n) + tuple(padded))


def old_pad_in_place(xp, x, plan, keep):
    shape = list(x.shape)
    key = [slice(None)] * x.ndim
    for dim, _, out_size, center_at in plan:
        key[dim] = slice(center_at, center_at + x.shape[dim])
        shape[dim] = out_size
    out = pad_mod._empty_as(xp, x, shape, keep)
    out[tuple(key)] = x
    for dim, runs, _, center_at in plan:
        head, tail = tuple(key[:dim]), tuple(key[dim + 1 :])
        for o, s, n, step in runs:
            if o != center_at:
                src = pad_mod._slice(0, center_at + s, n, step)[0]
                out[(*head, slice(o, o + n), *tail)] = out[(*head, src, *tail)]
        key[dim] = slice(None)
    return out


def _same_bits(a, b, what=""):
    assert a.shape == b.shape and a.dtype == b.dtype, what
    ua = np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")
    ub = np.ascontiguousarray(b).view(f"u{b.dtype.itemsize}")
    mismatch = int((ua != ub).sum())
    assert mismatch == 0, f"{what}: {mismatch} elements differ in their bits"


def _specials(a):
    """a with an inf, a NaN, zeros of both signs (the routes must keep their bits)."""
    flat = a.reshape(-1)
    flat[3], flat[7], flat[11], flat[13] = np.inf, np.nan, -0.0, 0.0
    return a


# --- the depthwise taps' sum in chunks ---

# (input shape (N, C, *S), channel multiplier, kernel, dilation)
DEPTHWISE_CASES = [
    ((5, 3, 9, 8), 1, (3, 3), (1, 1)),
    ((4, 2, 7, 9), 2, (3, 2), (2, 1)),
    ((7, 4, 13), 3, (5,), (2,)),
    ((3, 2, 4, 5, 6), 1, (2, 3, 2), (1, 1, 2)),
    ((1, 3, 6, 6), 1, (1, 1), (1, 1)),
]


@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
@pytest.mark.parametrize("chunk_bytes", [1, 1000, 256 << 10])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_depthwise_flat_in_chunks_matches_the_old_formula(case, chunk_bytes, dtype, monkeypatch):
    shape, mult, kernel, dilation = case
    rng = np.random.default_rng(0)
    x = _specials(rng.normal(size=shape).astype(dtype))
    wk = rng.normal(size=(shape[1], mult) + kernel).astype(dtype)
    pads = tuple(
        (d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2)
        for k, d in zip(kernel, dilation, strict=True)
    )
    xpad = conv_ops.pad_array(np, x, pads)[:, :, None]
    out_size = tuple(shape[2:])
    monkeypatch.setattr(conv_ops, "DEPTHWISE_CHUNK_BYTES", chunk_bytes)
    got = conv_ops._depthwise_flat(np, xpad, wk, dilation, out_size)
    want = old_depthwise_flat(np, xpad, wk, dilation, out_size)
    _same_bits(got, want, f"chunk_bytes={chunk_bytes}")


@pytest.mark.parametrize("case", DEPTHWISE_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
@pytest.mark.parametrize("chunk_bytes", [1, 1000, 256 << 10])
@pytest.mark.parametrize("stride", [2, 3])
def test_depthwise_views_in_chunks_matches_the_old_formula(case, chunk_bytes, stride, monkeypatch):
    shape, mult, kernel, dilation = case
    rng = np.random.default_rng(18)
    x = _specials(rng.normal(size=shape).astype(np.float32))
    wk = rng.normal(size=(shape[1], mult) + kernel).astype(np.float32)
    pads = tuple((1, 1) for _ in kernel)
    xpad = conv_ops.pad_array(np, x, pads)[:, :, None]
    strides = (stride,) * len(kernel)
    out_size = tuple(
        conv_ops.conv_out_size(s + 2, k, stride, (0, 0), d)
        for s, k, d in zip(shape[2:], kernel, dilation, strict=True)
    )
    monkeypatch.setattr(conv_ops, "DEPTHWISE_CHUNK_BYTES", chunk_bytes)
    got = conv_ops._depthwise_views(np, xpad, wk, strides, dilation, out_size)
    want = old_depthwise_views(np, xpad, wk, strides, dilation, out_size)
    _same_bits(got, want, f"chunk_bytes={chunk_bytes}")


def _depthwise_all(x, w, b, kw, g, gg=None):
    """out, grad_x, grad_w, grad_b of a depthwise conv2d, and with gg the double backward's
    gradient of g (ConvTranspose's depthwise route, then Conv's)."""
    xt = mt.tensor(x, requires_grad=True)
    wt = mt.tensor(w, requires_grad=True)
    bt = mt.tensor(b, requires_grad=True)
    gt = mt.tensor(g, requires_grad=True)
    out = F.conv2d(xt, wt, bt, groups=x.shape[1], **kw)
    grads = mt.autograd.grad(out, (xt, wt, bt), gt, create_graph=True)
    res = [out.detach().numpy()] + [t.detach().numpy() for t in grads]
    (ggx,) = mt.autograd.grad(grads[0], (gt,), mt.tensor(gg))
    return res + [ggx.numpy()]


@pytest.mark.parametrize(
    "kw", [dict(padding=1), dict(padding=(2, 1), dilation=(2, 1)), dict(stride=2, padding=1)]
)
@pytest.mark.parametrize("mult", [1, 2])
def test_depthwise_conv_and_gradients_do_not_depend_on_the_chunks(kw, mult, monkeypatch):
    rng = np.random.default_rng(1)
    x = _specials(rng.normal(size=(5, 3, 8, 7)).astype(np.float32))
    w = rng.normal(size=(3 * mult, 1, 3, 3)).astype(np.float32)
    b = rng.normal(size=3 * mult).astype(np.float32)
    out_shape = F.conv2d(mt.tensor(x), mt.tensor(w), groups=3, **kw).shape
    g = rng.normal(size=tuple(out_shape)).astype(np.float32)
    gg = rng.normal(size=x.shape).astype(np.float32)
    monkeypatch.setattr(conv_ops, "DEPTHWISE_CHUNK_BYTES", 1 << 40)  # one chunk: the old sums
    whole = _depthwise_all(x, w, b, kw, g, gg)
    calls = []
    for name in ("_depthwise_flat", "_depthwise_views"):
        fn = getattr(conv_ops, name)
        monkeypatch.setattr(conv_ops, name, lambda *a, _f=fn, _n=name: calls.append(_n) or _f(*a))
    monkeypatch.setattr(conv_ops, "DEPTHWISE_CHUNK_BYTES", 1)  # one sample a chunk
    chunked = _depthwise_all(x, w, b, kw, g, gg)
    if kw.get("stride", 1) == 1:  # the forward and the input gradient: the flat route
        assert calls.count("_depthwise_flat") >= 2
    else:  # the forward on strided views (the double backward's Conv too)
        assert "_depthwise_views" in calls
    names = ("out", "grad_x", "grad_w", "grad_b", "grad_g")
    for name, a, c in zip(names, chunked, whole, strict=True):
        _same_bits(a, c, name)
        assert a.flags.c_contiguous, name


def test_depthwise_conv_matches_numpy_and_float64_gradients():
    rng = np.random.default_rng(2)
    x, w, b = rng.normal(size=(2, 4, 6, 5)), rng.normal(size=(8, 1, 3, 3)), rng.normal(size=8)
    out = F.conv2d(mt.tensor(x), mt.tensor(w), mt.tensor(b), padding=1, groups=4)
    np.testing.assert_allclose(
        out.numpy(), ref_conv(x, w, b, padding=1, groups=4), rtol=1e-12, atol=1e-12
    )
    xt = mt.tensor(x[:1, :2, :4, :4], requires_grad=True)
    wt = mt.tensor(w[:4], requires_grad=True)

    def f(a, v):
        return F.conv2d(a, v, padding=1, groups=2)

    assert gradcheck(f, (xt, wt))
    assert gradgradcheck(f, (xt, wt))


# --- the wide col2im with the samples end to end ---

# (N, C_in, C_out, in size, kernel, dilation, groups): the input gradient's shapes
WIDE_CASES = [
    (64, 32, 16, (14, 14), (3, 3), (1, 1), 1),  # the CNN step's conv2 (2 MB chunks only)
    (5, 6, 4, (7, 9), (3, 2), (2, 1), 2),
    (3, 4, 4, (11,), (5,), (2,), 1),
    (2, 4, 6, (5, 6, 7), (3, 3, 2), (1, 2, 1), 2),
    (9, 8, 4, (4, 4), (3, 3), (1, 1), 4),
    (1, 3, 3, (6, 6), (1, 1), (1, 1), 1),
]


@pytest.mark.parametrize("case", WIDE_CASES, ids=lambda c: f"{c[0]}-{c[3]}-{c[4]}")
@pytest.mark.parametrize("chunk_bytes", [1, 5000, 2 << 20])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wide_col2im_matches_the_old_formula(case, chunk_bytes, dtype, monkeypatch):
    n, c_in, c_out, size, kernel, dilation, groups = case
    if n == 64 and (chunk_bytes != 2 << 20 or dtype != np.float32):
        pytest.skip("the CNN step's shape: its own chunks, in float32")
    rng = np.random.default_rng(3)
    w = rng.normal(size=(c_in, c_out // groups) + kernel).astype(dtype)
    gy = _specials(rng.normal(size=(n, c_in) + size).astype(dtype))
    gy64 = gy.astype(np.float64)
    taps = conv_ops.prod(kernel)
    wm = np.swapaxes(w.reshape(groups, c_in // groups, (c_out // groups) * taps), -1, -2)
    padded = tuple(s + d * (k - 1) for s, k, d in zip(size, kernel, dilation, strict=True))
    monkeypatch.setattr(conv_ops, "WIDE_CHUNK_BYTES", chunk_bytes)
    got = conv_ops._col2im_wide(np, wm, gy, groups, kernel, dilation, padded)
    want = old_col2im_wide(np, wm, gy, groups, kernel, dilation, padded, chunk_bytes)
    exact = old_col2im_wide(np, wm.astype(np.float64), gy64, groups, kernel, dilation, padded)
    _same_up_to_the_gemm(got, want, exact)


def _same_up_to_the_gemm(got, want, exact, what=""):
    """got == want bit for bit, or where a GEMM with another column count rounds otherwise
    (OpenBLAS's Haswell sgemm, the test suite's pinned kernel, rounds a column by it): the
    same NaN, infinite and zero entries (with their signs), ulps apart elsewhere, and as close
    to the float64 result `exact` on average."""
    assert got.shape == want.shape and got.dtype == want.dtype, what
    ug = got.view(f"u{got.dtype.itemsize}")
    uw = want.view(f"u{want.dtype.itemsize}")
    if np.array_equal(ug, uw):
        return
    special = ~np.isfinite(want) | (want == 0)
    _same_bits(got[special], want[special], f"{what}: non-finite and zero entries")
    tol = 1e-5 if got.dtype == np.float32 else 1e-13
    ok = ~special
    np.testing.assert_allclose(got[ok], want[ok], rtol=tol, atol=tol, err_msg=what)
    err_got = np.abs(got[ok] - exact[ok]).mean()
    err_want = np.abs(want[ok] - exact[ok]).mean()
    assert err_got <= 1.05 * err_want, (what, err_got, err_want)


def test_the_cnn_steps_input_gradient_takes_the_samples_end_to_end():
    # conv2's input gradient: (64, 32, 14, 14) into 16 channels on 16 x 16 planes
    per_sample = 16 * 9 * 16 * 16 * 4
    assert conv_ops.WIDE_CHUNK_BYTES // per_sample >= 2


def _conv_input_grad(x, w, kw, g, gg):
    """grad_x of conv(x, w) for g, and the double backward's grad of g and w for gg."""
    xt = mt.tensor(x, requires_grad=True)
    wt = mt.tensor(w, requires_grad=True)
    gt = mt.tensor(g, requires_grad=True)
    out = F.conv2d(xt, wt, **kw) if x.ndim == 4 else F.conv3d(xt, wt, **kw)
    (gx,) = mt.autograd.grad(out, (xt,), gt, create_graph=True)
    ggy, gw = mt.autograd.grad(gx, (gt, wt), mt.tensor(gg))
    return gx.detach().numpy(), ggy.numpy(), gw.numpy()


@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((6, 4, 7, 6), (5, 4, 3, 3), dict(padding=1)),
        ((5, 4, 8, 6), (6, 2, 3, 2), dict(padding=(2, 1), dilation=(2, 1), groups=2)),
        ((2, 2, 3, 12, 12), (3, 2, 1, 2, 2), dict()),
    ],
)
def test_conv_input_gradient_does_not_depend_on_the_wide_route(xs, ws, kw, monkeypatch):
    rng = np.random.default_rng(4)
    x = rng.normal(size=xs).astype(np.float32)
    w = rng.normal(size=ws).astype(np.float32)
    conv = F.conv2d if len(xs) == 4 else F.conv3d
    g = _specials(rng.normal(size=tuple(conv(mt.tensor(x), mt.tensor(w), **kw).shape)))
    g = g.astype(np.float32)
    gg = rng.normal(size=xs).astype(np.float32)
    monkeypatch.setattr(conv_ops, "WIDE_CHUNK_BYTES", 1)  # one sample a chunk: the old route
    old = _conv_input_grad(x, w, kw, g, gg)
    calls = []
    wide = conv_ops._col2im_wide
    monkeypatch.setattr(conv_ops, "_col2im_wide", lambda *a: calls.append(a) or wide(*a))
    monkeypatch.setattr(conv_ops, "WIDE_CHUNK_BYTES", 1 << 40)  # the samples end to end
    new = _conv_input_grad(x, w, kw, g, gg)
    assert calls  # the wide route ran
    exact = _conv_input_grad(
        *(a.astype(np.float64) for a in (x, w)), kw, *(a.astype(np.float64) for a in (g, gg))
    )
    for name, a, b, e in zip(("grad_x", "grad_g", "grad_w"), new, old, exact, strict=True):
        _same_up_to_the_gemm(a, b, e, name)


def test_conv_input_gradient_end_to_end_float64_gradcheck(monkeypatch):
    monkeypatch.setattr(conv_ops, "WIDE_CHUNK_BYTES", 1 << 40)
    rng = np.random.default_rng(5)
    x = mt.tensor(rng.normal(size=(3, 2, 5, 4)), requires_grad=True)
    w = mt.tensor(rng.normal(size=(3, 2, 3, 2)), requires_grad=True)

    def f(a, v):
        return F.conv2d(a, v, padding=(1, 1), dilation=(1, 2))

    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


# --- padding's edge copies ---

# (input shape, pad)
PAD_CASES = [
    ((2, 3, 6, 5), (1, 1, 1, 1)),
    ((2, 3, 6, 5), (3, 2, 0, 4)),
    ((3, 7), (2, 3)),
    ((2, 3, 9), (4, 0)),
    ((1, 2, 4, 5, 6), (1, 2, 2, 1, 3, 0)),
    ((2, 4, 3, 4, 5), (0, 0, 2, 2, 1, 1)),
]


def _plan(mode, shape, pad):
    pairs = [(len(shape) - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    plan = []
    for dim, left, right in pairs:
        runs = pad_mod._runs(mode, shape[dim], left, right)
        plan.append((dim, runs, sum(r[2] for r in runs), left))
    return tuple(plan)


@pytest.mark.parametrize("case", PAD_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "strided"])
def test_pad_in_place_matches_the_old_formula(case, mode, layout):
    shape, pad = case
    rng = np.random.default_rng(6)
    x = _specials(rng.normal(size=shape).astype(np.float32))
    if layout == "channels_last" and x.ndim in (4, 5):
        x = np.moveaxis(np.ascontiguousarray(np.moveaxis(x, 1, -1)), -1, 1)
    elif layout == "strided":
        x = np.repeat(x, 2, axis=-1)[..., ::2]
    plan = _plan(mode, shape, pad)
    for keep in (False, True):
        got = pad_mod._pad_in_place(np, x, plan, keep)
        want = old_pad_in_place(np, x, plan, keep)
        _same_bits(got, want, f"keep={keep}")
        assert got.strides == want.strides


NP_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("case", PAD_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
def test_pad_matches_numpy_and_its_gradient_sums_the_copies(case, mode, dtype):
    shape, pad = case
    if len(pad) // 2 == len(shape):  # reflect and replicate take (C, *S) or (N, C, *S)
        pytest.skip("no batch or channel dim")
    rng = np.random.default_rng(7)
    x = rng.normal(size=shape) * 10
    x = x.astype(dtype)
    widths = [(0, 0)] * len(shape)
    for i in range(len(pad) // 2):
        widths[len(shape) - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    got = F.pad(mt.tensor(x), pad, mode=mode).numpy()
    _same_bits(got, np.pad(x, widths, mode=NP_MODES[mode]), mode)
    if dtype != np.float64:
        return
    xt = mt.tensor(x, requires_grad=True)
    out = F.pad(xt, pad, mode=mode)
    g = rng.normal(size=tuple(out.shape))
    (gx,) = mt.autograd.grad(out, (xt,), mt.tensor(g))
    # each input element's gradient: the sum of the upstream gradient at its copies
    index = np.pad(np.arange(x.size).reshape(shape), widths, mode=NP_MODES[mode])
    want = np.bincount(index.reshape(-1), weights=g.reshape(-1), minlength=x.size)
    np.testing.assert_allclose(gx.numpy().reshape(-1), want, rtol=1e-12, atol=1e-12)


def test_pad_keeps_a_channels_last_layout_and_its_gradients():
    rng = np.random.default_rng(8)
    x = mt.tensor(rng.normal(size=(2, 3, 5, 4)).astype(np.float32))
    x = x.contiguous(memory_format=mt.channels_last).requires_grad_(True)
    for mode in ("reflect", "replicate"):
        out = F.pad(x, (1, 2, 2, 1), mode=mode)
        assert out.is_contiguous(memory_format=mt.channels_last)
        ref = np.pad(x.detach().numpy(), [(0, 0), (0, 0), (2, 1), (1, 2)], NP_MODES[mode])
        _same_bits(out.detach().numpy(), ref, mode)
    xt = mt.tensor(rng.normal(size=(1, 2, 4, 3)), requires_grad=True)
    assert gradcheck(lambda a: F.pad(a, (1, 1, 2, 0), mode="reflect"), (xt,))
    assert gradgradcheck(lambda a: F.pad(a, (1, 1, 2, 0), mode="replicate"), (xt,))


# --- ConvTranspose by taps only with enough output channels per group ---


def _transpose_and_grads(x, w, kw, g):
    xt = mt.tensor(x, requires_grad=True)
    wt = mt.tensor(w, requires_grad=True)
    out = F.conv_transpose2d(xt, wt, **kw)
    gx, gw = mt.autograd.grad(out, (xt, wt), mt.tensor(g))
    return out.detach().numpy(), gx.numpy(), gw.numpy()


@pytest.mark.parametrize(
    "c_out, groups, taps_now",
    [(3, 1, False), (8, 2, False), (32, 2, True), (16, 1, True)],
)
def test_transpose_goes_by_taps_with_enough_channels_per_group(
    c_out, groups, taps_now, monkeypatch
):
    # a stem conv's input gradient: (4, 16, 16, 16) through 7x7 at stride 2, 0.6-6.4 MB of columns
    monkeypatch.setattr(conv_ops, "TAPS_MIN_BYTES", 512 << 10)
    rng = np.random.default_rng(9)
    x = _specials(rng.normal(size=(4, 16, 16, 16)).astype(np.float32))
    w = rng.normal(size=(16, c_out // groups, 7, 7)).astype(np.float32)
    kw = dict(stride=2, padding=3, output_padding=1, groups=groups)
    out_shape = F.conv_transpose2d(mt.tensor(x), mt.tensor(w), **kw).shape
    g = rng.normal(size=tuple(out_shape)).astype(np.float32)
    calls = []
    by_taps = conv_ops._col2im_taps
    monkeypatch.setattr(conv_ops, "_col2im_taps", lambda *a: calls.append(1) or by_taps(*a))
    new = _transpose_and_grads(x, w, kw, g)
    assert bool(calls) == taps_now
    monkeypatch.setattr(conv_ops, "TAPS_FULL_CHANNELS", 1)  # the old rule: by taps
    old = _transpose_and_grads(x, w, kw, g)
    assert calls
    exact = _transpose_and_grads(
        x.astype(np.float64), w.astype(np.float64), kw, g.astype(np.float64)
    )
    for name, a, b, e in zip(("out", "grad_x", "grad_w"), new, old, exact, strict=True):
        _same_up_to_the_gemm(a, b, e, name)


def test_taps_threshold_scales_with_the_channels_per_group():
    assert conv_ops._taps_min_bytes(16) == conv_ops.TAPS_MIN_BYTES
    assert conv_ops._taps_min_bytes(64) == conv_ops.TAPS_MIN_BYTES
    assert conv_ops._taps_min_bytes(4) == 4 * conv_ops.TAPS_MIN_BYTES
    assert conv_ops._taps_min_bytes(0) == 16 * conv_ops.TAPS_MIN_BYTES


# --- max pooling's backward over overlapping windows ---


def old_max_pool_grad_overlapping(xp, g, tap, geom, in_shape):
    from minitorch._ops import pool as pool_ops

    kernel, stride, pads, dilation, out_size = geom
    head, size = pool_ops._split(in_shape, len(kernel))
    out = xp.zeros(head + pool_ops._padded(size, pads), dtype=g.dtype)
    lead = (slice(None),) * len(head)
    for t, sl in conv_ops.taps(kernel, stride, dilation, out_size):
        out[lead + sl] += xp.where(tap == t, g, 0)
    return conv_ops.crop_array(xp, out, pads, size)


@pytest.mark.parametrize(
    "shape, kernel, stride, pads, dilation",
    [
        ((2, 3, 9, 8), (3, 3), (2, 2), ((1, 1), (1, 1)), (1, 1)),
        ((3, 7, 6), (3, 2), (1, 1), ((0, 0), (1, 1)), (1, 1)),
        ((1, 2, 4, 5, 6), (2, 3, 2), (1, 2, 1), ((1, 1), (0, 0), (1, 1)), (1, 1, 2)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_pool_grad_overlapping_matches_the_old_formula(
    shape, kernel, stride, pads, dilation, dtype
):
    from minitorch._ops import pool as pool_ops

    rng = np.random.default_rng(10)
    x = rng.normal(size=shape).astype(dtype)
    geom = pool_ops._geometry(x, kernel, stride, pads, dilation)
    assert not pool_ops._disjoint(geom)
    out_shape = shape[: len(shape) - len(kernel)] + geom[4]
    tap = rng.integers(0, int(np.prod(kernel)), size=out_shape).astype(np.uint8)
    g = _specials(rng.normal(size=out_shape).astype(dtype))
    got = pool_ops.MaxPoolGrad.kernel(np, g, tap, geom, shape)
    _same_bits(got, old_max_pool_grad_overlapping(np, g, tap, geom, shape))
    # a channels-last gradient
    g4 = np.moveaxis(np.ascontiguousarray(np.moveaxis(g, 1, -1)), -1, 1)
    got = pool_ops.MaxPoolGrad.kernel(np, g4, tap, geom, shape)
    _same_bits(got, old_max_pool_grad_overlapping(np, g4, tap, geom, shape))


def test_max_pool_overlapping_gradients_end_to_end():
    rng = np.random.default_rng(11)
    x = mt.tensor(rng.normal(size=(1, 2, 5, 5)), requires_grad=True)

    def f(a):
        return F.max_pool2d(a, 3, 2, 1)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
    xs = mt.tensor(rng.normal(size=(2, 3, 7, 6)).astype(np.float32), requires_grad=True)
    out = F.max_pool2d(xs, 3, 2, 1)
    g = rng.normal(size=tuple(out.shape)).astype(np.float32)
    (gx,) = mt.autograd.grad(out, (xs,), mt.tensor(g))
    # each input element's gradient: the upstream gradient of the windows whose max it is
    idx = F.max_pool2d(xs.detach(), 3, 2, 1, return_indices=True)[1].numpy()
    want = np.zeros((6, 42))
    for p in range(6):
        np.add.at(want[p], idx.reshape(6, -1)[p], g.reshape(6, -1)[p])
    np.testing.assert_allclose(gx.numpy().reshape(6, 42), want, rtol=1e-6, atol=1e-6)


# --- ConvTranspose's two gradients share one im2col of the upstream gradient ---

# (input shape, weight shape, kwargs, whether the columns are shared)
TRANSPOSE_CASES = [
    ((4, 16, 8, 8), (16, 8, 4, 4), dict(stride=2, padding=1), True),  # channel-major
    ((3, 4, 9, 7), (4, 6, 3, 3), dict(padding=1), True),  # per-sample
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(stride=(2, 1), dilation=2, groups=2), True),
    ((2, 6, 7), (6, 2, 3), dict(stride=2, padding=1), True),
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0)), True),
    # an output_padding that leaves Conv(grad, w) longer than x: not shared
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(dilation=2, output_padding=(1, 0)), False),
    ((2, 4, 5, 6), (4, 1, 3, 3), dict(padding=1, groups=4), False),  # depthwise
    ((0, 4, 5, 6), (4, 3, 3, 3), dict(padding=1), False),  # an empty batch
]


def _transpose_grads(xs, ws, kw, dtype, seed, create_graph=False):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=xs).astype(dtype)
    x = mt.tensor(_specials(x) if x.size else x, requires_grad=True)
    w = mt.tensor(rng.normal(size=ws).astype(dtype), requires_grad=True)
    b = mt.tensor(rng.normal(size=ws[1] * kw.get("groups", 1)).astype(dtype), requires_grad=True)
    conv = F.conv_transpose1d if len(xs) == 3 else F.conv_transpose2d
    out = conv(x, w, b, **kw)
    g = mt.tensor(rng.normal(size=tuple(out.shape)).astype(dtype), requires_grad=create_graph)
    grads = mt.autograd.grad(out, (x, w, b), g, create_graph=create_graph)
    res = [out.detach().numpy()] + [t.detach().numpy() for t in grads]
    if create_graph:  # the double backward: through ConvInputGrad (transposed) and ConvWeight
        total = (grads[0] * grads[0]).sum() + (grads[1] * grads[1]).sum()
        res += [t.numpy() for t in mt.autograd.grad(total, (g, w))]
    return res


@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_transpose_gradients_share_their_columns_bit_for_bit(case, dtype, monkeypatch):
    xs, ws, kw, shared = case
    if dtype == np.float16 and not shared:
        pytest.skip("the float32 and float64 rows cover the unshared routes")
    made = []
    for name in ("_columns", "_columns_cm"):
        fn = getattr(conv_ops, name)
        monkeypatch.setattr(conv_ops, name, lambda *a, _f=fn, **k: made.append(1) or _f(*a, **k))
    new = _transpose_grads(xs, ws, kw, dtype, 12)
    n_new = len(made)
    monkeypatch.setattr(conv_ops, "_transpose_columns", lambda *a: None)  # the old way
    made.clear()
    old = _transpose_grads(xs, ws, kw, dtype, 12)
    if shared:
        assert n_new == 1 and len(made) == 2
    else:
        assert n_new == len(made)
    for name, a, b in zip(("out", "grad_x", "grad_w", "grad_b"), new, old, strict=True):
        _same_bits(a, b, name)
        assert a.strides == b.strides, name


@pytest.mark.parametrize("case", TRANSPOSE_CASES[:4], ids=lambda c: f"{c[0]}-{c[1]}")
def test_transpose_double_backward_with_shared_columns(case, monkeypatch):
    xs, ws, kw, _ = case
    new = _transpose_grads(xs, ws, kw, np.float32, 13, create_graph=True)
    monkeypatch.setattr(conv_ops, "_transpose_columns", lambda *a: None)
    old = _transpose_grads(xs, ws, kw, np.float32, 13, create_graph=True)
    names = ("out", "grad_x", "grad_w", "grad_b", "grad_g", "grad_w2")
    for name, a, b in zip(names, new, old, strict=True):
        _same_bits(a, b, name)


def test_transpose_gradients_float64_gradcheck():
    rng = np.random.default_rng(14)
    x = mt.tensor(rng.normal(size=(1, 4, 3, 3)), requires_grad=True)
    w = mt.tensor(rng.normal(size=(4, 2, 3, 2)), requires_grad=True)

    def f(a, v):
        return F.conv_transpose2d(a, v, stride=(2, 1), padding=1, groups=2)

    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


# --- interpolate's linear modes without a graph ---

# (input shape, mode, kwargs)
INTERP_CASES = [
    ((2, 3, 8, 7), "bilinear", dict(scale_factor=2)),
    ((2, 3, 8, 7), "bilinear", dict(size=(5, 11), align_corners=True)),
    ((2, 3, 9), "linear", dict(scale_factor=1.7)),
    ((1, 2, 4, 5, 3), "trilinear", dict(size=(7, 2, 6))),
    ((0, 3, 4, 4), "bilinear", dict(scale_factor=2)),
    ((2, 3, 6, 6), "bilinear", dict(scale_factor=0.5, recompute_scale_factor=True)),
]


def _interp(x, mode, kw):
    return F.interpolate(x, mode=mode, **kw)


@pytest.mark.parametrize("case", INTERP_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{sorted(c[2])}")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_no_grad_matches_the_composed_ops(case, dtype, monkeypatch):
    from minitorch.autograd import function
    from minitorch.nn import _functional_interpolate as interp

    shape, mode, kw = case
    rng = np.random.default_rng(15)
    a = rng.normal(size=shape).astype(dtype)
    if a.size:
        a = _specials(a)
    calls = []
    fast = interp._linear_no_grad
    monkeypatch.setattr(interp, "_linear_no_grad", lambda *a: calls.append(1) or fast(*a))
    with mt.no_grad():
        got = _interp(mt.tensor(a), mode, kw)
    plain = _interp(mt.tensor(a), mode, kw)  # no input requires grad: no graph either
    assert len(calls) == 2
    monkeypatch.setattr(function, "fast_path", [False])  # the composed ops
    monkeypatch.setattr(interp, "fast_path", [False])
    want = _interp(mt.tensor(a), mode, kw)
    assert len(calls) == 2
    for t in (got, plain):
        _same_bits(t.numpy(), want.numpy())
        assert t.stride() == want.stride() and t.dtype == want.dtype
        assert t.grad_fn is None and not t.requires_grad and t._base is None


def test_interpolate_records_its_graph_as_before():
    from minitorch.nn import _functional_interpolate as interp

    rng = np.random.default_rng(16)
    x = mt.tensor(rng.normal(size=(1, 2, 4, 3)), requires_grad=True)
    out = F.interpolate(x, scale_factor=2, mode="bilinear")
    assert out.grad_fn.name() == "UpsampleBilinear2DBackward0"
    assert gradcheck(lambda a: F.interpolate(a, scale_factor=2, mode="bilinear"), (x,))
    # grad mode off: no graph, the fast route; a channels-last or half input: the composed one
    with mt.no_grad():
        assert F.interpolate(x, scale_factor=2, mode="bilinear").grad_fn is None
    calls = []
    fast = interp._linear_no_grad
    interp._linear_no_grad = lambda *a: calls.append(1) or fast(*a)
    try:
        cl = mt.tensor(rng.normal(size=(2, 3, 4, 5)).astype(np.float32))
        cl = cl.contiguous(memory_format=mt.channels_last)
        out = F.interpolate(cl, scale_factor=2, mode="bilinear")
        assert out.is_contiguous(memory_format=mt.channels_last)
        F.interpolate(cl.half(), scale_factor=2, mode="bilinear")
        F.interpolate(cl, size=(4, 7), mode="bilinear")  # an unchanged size: composed
        assert not calls
        out2 = F.interpolate(cl.contiguous(), scale_factor=2, mode="bilinear")
        assert calls
        _same_bits(out.contiguous().numpy(), out2.numpy())
    finally:
        interp._linear_no_grad = fast


def test_interpolate_no_grad_in_inference_mode_and_under_the_profiler():
    rng = np.random.default_rng(17)
    x = mt.tensor(rng.normal(size=(2, 3, 5, 4)).astype(np.float32))
    want = F.interpolate(x, scale_factor=2, mode="bilinear").numpy()
    with mt.inference_mode():
        out = F.interpolate(x, scale_factor=2, mode="bilinear")
    assert out.is_inference()
    _same_bits(out.numpy(), want)
    with mt.autograd.profiler.profile() as prof:
        out = F.interpolate(x, scale_factor=2, mode="bilinear")
    names = {e.name for e in prof.function_events}
    assert "IndexSelect" in names  # the composed ops, one event each
    _same_bits(out.numpy(), want)
