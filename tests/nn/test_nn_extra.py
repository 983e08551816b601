"""The later nn pieces without torch: Bilinear, the lazy layers, bicubic interpolation, CTC loss,
channel_shuffle, the 3-d pools, affine_grid/grid_sample and the torch.* forms of nn ops, checked
against NumPy loops, brute force and float64 gradchecks."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck


def _np(t):
    return t.detach().cpu().numpy()


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- Bilinear ---


def test_bilinear_forward_init_repr(device):
    m = nn.Bilinear(3, 4, 5).to(device)
    assert repr(m) == "Bilinear(in1_features=3, in2_features=4, out_features=5, bias=True)"
    assert tuple(m.weight.shape) == (5, 3, 4) and tuple(m.bias.shape) == (5,)
    bound = 1 / np.sqrt(3)
    assert np.abs(_np(m.weight)).max() <= bound and np.abs(_np(m.bias)).max() <= bound
    a, b = _rng().standard_normal((2, 7, 3)), _rng(1).standard_normal((2, 7, 4))
    out = m(mt.tensor(a, dtype=mt.float32, device=device), mt.tensor(b, device=device).float())
    ref = np.einsum("nti,oij,ntj->nto", a, _np(m.weight), b) + _np(m.bias)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-5, atol=1e-5)
    assert list(nn.Bilinear(2, 2, 3, bias=False).state_dict()) == ["weight"]


def test_bilinear_errors_and_gradients():
    m = nn.Bilinear(3, 4, 2).double()
    with pytest.raises(RuntimeError, match="batch dimensions do not match at dim 0: got 2 and 3"):
        m(mt.randn(2, 3).double(), mt.randn(3, 4).double())
    with pytest.raises(RuntimeError, match="input2 size does not match weight size: got 5 but"):
        m(mt.randn(2, 3).double(), mt.randn(2, 5).double())
    with pytest.raises(RuntimeError, match="input dimensions do not match: got 1 and 2"):
        m(mt.randn(3).double(), mt.randn(2, 4).double())
    x1 = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    x2 = mt.randn(2, 4, dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda a, b: m(a, b), (x1, x2))
    assert gradgradcheck(lambda a, b: m(a, b), (x1, x2))


# --- lazy layers ---


def test_lazy_linear_lifecycle():
    m = nn.LazyLinear(4)
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert m.has_uninitialized_params()
    assert isinstance(m.weight, nn.UninitializedParameter) and repr(m.weight) == (
        "<UninitializedParameter>"
    )
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        _ = m.weight.shape
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias"] and isinstance(sd["weight"], nn.UninitializedParameter)
    out = m(mt.randn(2, 3))
    assert type(m) is nn.Linear and not isinstance(m.weight, nn.UninitializedParameter)
    assert repr(m) == "Linear(in_features=3, out_features=4, bias=True)"
    assert tuple(out.shape) == (2, 4) and tuple(m.weight.shape) == (4, 3)
    assert not m._forward_pre_hooks and not m._load_state_dict_pre_hooks


def test_lazy_layers_draw_the_same_weights_as_regular_ones():
    x = mt.randn(2, 3, 5, 5)
    for lazy, regular in [
        (lambda: nn.LazyLinear(4), lambda: nn.Linear(5, 4)),
        (lambda: nn.LazyConv2d(6, 3, padding=1), lambda: nn.Conv2d(3, 6, 3, padding=1)),
        (lambda: nn.LazyConvTranspose2d(4, 2, groups=1), lambda: nn.ConvTranspose2d(3, 4, 2)),
    ]:
        mt.manual_seed(5)
        a = lazy()
        a(x)
        mt.manual_seed(5)
        b = regular()
        assert type(a) is type(b) and repr(a) == repr(b)
        for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
            assert ka == kb
            np.testing.assert_array_equal(_np(va), _np(vb), err_msg=ka)


def test_lazy_conv_and_batchnorm():
    c = nn.LazyConv1d(4, 3)
    assert repr(c) == "LazyConv1d(0, 4, kernel_size=(3,), stride=(1,))"
    with pytest.raises(RuntimeError, match="Expected 2D \\(unbatched\\) or 3D \\(batched\\) input"):
        c(mt.randn(5))
    c(mt.randn(6, 7))  # unbatched: channels are dim 0
    assert type(c) is nn.Conv1d and tuple(c.weight.shape) == (4, 6, 3)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(mt.randn(1, 3, 5, 5))
    bn = nn.LazyBatchNorm2d()
    keys = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert list(bn.state_dict()) == keys
    assert isinstance(bn.running_mean, nn.UninitializedBuffer)
    bn(mt.randn(4, 3, 2, 2))
    assert type(bn) is nn.BatchNorm2d and bn.num_features == 3
    assert type(bn.running_mean) is mt.Tensor and tuple(bn.running_mean.shape) == (3,)
    np.testing.assert_array_equal(_np(bn.weight), np.ones(3))
    assert bn.num_batches_tracked.item() == 1


def test_lazy_load_state_dict_materializes():
    src = nn.Linear(3, 2)
    m = nn.LazyLinear(2)
    m.load_state_dict(src.state_dict())
    assert not m.has_uninitialized_params() and type(m) is nn.LazyLinear
    np.testing.assert_array_equal(_np(m.weight), _np(src.weight))
    m(mt.randn(1, 3))
    assert repr(m) == "Linear(in_features=3, out_features=2, bias=True)"
    with pytest.raises(AssertionError, match="in_features inferred from input"):
        n = nn.LazyLinear(2)
        n.load_state_dict(src.state_dict())
        n(mt.randn(1, 5))


def test_lazy_modules_follow_to_and_double(device):
    m = nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d()).double().to(device)
    assert m[0].has_uninitialized_params() and m[1].has_uninitialized_params()
    assert isinstance(m[1].running_var, nn.UninitializedBuffer)
    out = m(mt.randn(4, 5, dtype=mt.float64, device=device))
    assert out.dtype is mt.float64 and out.device == mt.device(device)
    for t in (m[0].weight, m[1].bias, m[1].running_mean, m[1].num_batches_tracked):
        assert t.device == mt.device(device)
    assert m[1].running_mean.dtype is mt.float64 and tuple(m[0].weight.shape) == (3, 5)


def test_uninitialized_materialize():
    p = nn.UninitializedParameter(dtype=mt.float64)
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.dtype is mt.float64 and tuple(p.shape) == (2, 3)
    assert p.requires_grad
    b = nn.UninitializedBuffer()
    assert repr(b) == "<UninitializedBuffer>"
    b.materialize(4)
    assert type(b) is mt.Tensor and tuple(b.shape) == (4,) and not b.requires_grad


# --- bicubic ---


def _cubic_w(x, a=-0.75):
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _ref_bicubic(x, size, align_corners):
    """16 taps per output pixel, with border-clamped indices (torch's upsample_bicubic2d)."""
    n, c, h, w = x.shape
    oh, ow = size
    out = np.zeros((n, c, oh, ow))

    def src(i, L, o):
        if align_corners:
            return i * ((L - 1) / (o - 1) if o > 1 else 0.0)
        return (i + 0.5) * (L / o) - 0.5

    for i in range(oh):
        sy = src(i, h, oh)
        fy = np.floor(sy)
        for j in range(ow):
            sx = src(j, w, ow)
            fx = np.floor(sx)
            for dy in range(-1, 3):
                wy = _cubic_w(sy - (fy + dy))
                yy = int(min(max(fy + dy, 0), h - 1))
                for dx in range(-1, 3):
                    wx = _cubic_w(sx - (fx + dx))
                    xx = int(min(max(fx + dx, 0), w - 1))
                    out[:, :, i, j] += wy * wx * x[:, :, yy, xx]
    return out


@pytest.mark.parametrize("size", [(7, 9), (3, 2), (1, 1)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_vs_numpy(size, align_corners, device):
    x = _rng().standard_normal((2, 3, 4, 5))
    out = F.interpolate(
        mt.tensor(x, device=device), size=size, mode="bicubic", align_corners=align_corners
    )
    np.testing.assert_allclose(_np(out), _ref_bicubic(x, size, align_corners), atol=1e-12)


def test_bicubic_scale_factor_module_and_gradients():
    x = _rng().standard_normal((1, 2, 3, 4))
    up = nn.Upsample(scale_factor=2, mode="bicubic")
    assert repr(up) == "Upsample(scale_factor=2.0, mode='bicubic')"
    np.testing.assert_allclose(_np(up(mt.tensor(x))), _ref_bicubic(x, (6, 8), False), atol=1e-12)
    t = mt.tensor(x[:, :1], requires_grad=True)
    assert gradcheck(lambda a: F.interpolate(a, scale_factor=1.5, mode="bicubic"), (t,))
    f = lambda a: F.interpolate(a, size=(2, 3), mode="bicubic", align_corners=True)  # noqa: E731
    assert gradgradcheck(f, (t[:, :, :2, :3].detach().requires_grad_(),))
    with pytest.raises(NotImplementedError, match=r"got 3D\) for the modes"):  # torch's text
        F.interpolate(mt.randn(1, 2, 3), scale_factor=2, mode="bicubic")


# --- CTC ---


def _ref_ctc(lp, target, blank=0):
    """-log of the summed probability of every path that collapses to target (brute force)."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(target):
            total += np.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -np.log(total) if total > 0 else np.inf


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_ctc_loss_vs_brute_force(device):
    rng = _rng()
    T, N, C = 5, 4, 3
    lp = _log_softmax(rng.standard_normal((T, N, C)), 2)
    targets = [[1, 1], [2], [], [1, 2, 1]]
    in_len = [5, 4, 3, 5]
    ref = np.array([_ref_ctc(lp[: in_len[n], n], targets[n]) for n in range(N)])
    padded = np.zeros((N, 3), dtype=np.int64)
    for n, t in enumerate(targets):
        padded[n, : len(t)] = t
    flat = np.concatenate([t for t in targets if t]).astype(np.int64)
    tl = [len(t) for t in targets]
    x = mt.tensor(lp, device=device)
    for tgt in (padded, flat):
        for il, tgl in ((in_len, tl), (mt.tensor(in_len), mt.tensor(tl))):
            out = F.ctc_loss(x, mt.tensor(tgt, device=device), il, tgl, reduction="none")
            np.testing.assert_allclose(_np(out), ref, rtol=1e-10)
    mean = F.ctc_loss(x, mt.tensor(padded, device=device), in_len, tl)
    np.testing.assert_allclose(_np(mean), np.mean(ref / np.maximum(tl, 1)), rtol=1e-10)
    total = nn.CTCLoss(reduction="sum")(x, mt.tensor(padded, device=device), in_len, tl)
    np.testing.assert_allclose(_np(total), ref.sum(), rtol=1e-10)


def test_ctc_loss_blank_infinity_and_unbatched():
    lp = _log_softmax(_rng(1).standard_normal((3, 4)), 1)
    # blank=3; target (1, 1) needs a blank between the repeats: 3 frames is enough, 2 is not
    out = F.ctc_loss(mt.tensor(lp), mt.tensor([1, 1]), (3,), (2,), blank=3, reduction="sum")
    np.testing.assert_allclose(out.item(), _ref_ctc(lp, [1, 1], blank=3), rtol=1e-10)
    x = mt.tensor(lp[:, None], requires_grad=True)
    inf = F.ctc_loss(x, mt.tensor([[1, 1]]), [2], [2], blank=3, reduction="sum")
    assert inf.item() == float("inf")
    zeroed = F.ctc_loss(x, mt.tensor([[1, 1]]), [2], [2], blank=3, zero_infinity=True)
    zeroed.backward()
    assert zeroed.item() == 0.0 and np.all(_np(x.grad) == 0)
    single = F.ctc_loss(mt.tensor(lp), mt.tensor([2]), (3,), (1,), reduction="none")
    assert single.shape == () and np.isclose(single.item(), _ref_ctc(lp, [2]))
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(mt.tensor(lp[:, None]), mt.tensor([[1]]), [3], [1], blank=4)
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        F.ctc_loss(mt.tensor(lp[:, None]), mt.tensor([[1]]), [3, 3], [1])
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 3"):
        F.ctc_loss(mt.tensor(lp[:, None]), mt.tensor([[1]]), [4], [1])


def test_ctc_loss_gradients():
    rng = _rng(2)
    x = mt.tensor(_log_softmax(rng.standard_normal((3, 2, 3)), 2), requires_grad=True)
    tg = mt.tensor([[1, 2], [2, 0]])

    def f(a):  # through log_softmax: torch's gradient on raw log_probs is exp(a) - occupancy
        return F.ctc_loss(a.log_softmax(2), tg, [3, 2], [2, 1], reduction="none")

    assert gradcheck(f, (x,))
    one = x[:, :1].detach().requires_grad_()
    assert gradgradcheck(lambda a: F.ctc_loss(a, tg[:1], [3], [2], reduction="sum"), (one,))


# --- channel_shuffle, 3-d pools ---


def test_channel_shuffle(device):
    x = np.arange(2 * 6 * 3, dtype=np.float64).reshape(2, 6, 3)
    ref = x.reshape(2, 2, 3, 3).transpose(0, 2, 1, 3).reshape(2, 6, 3)
    out = F.channel_shuffle(mt.tensor(x, device=device), 2)
    np.testing.assert_array_equal(_np(out), ref)
    np.testing.assert_array_equal(_np(nn.ChannelShuffle(2)(mt.tensor(x, device=device))), ref)
    np.testing.assert_array_equal(_np(mt.native_channel_shuffle(mt.tensor(x), 2)), ref)
    assert repr(nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"
    with pytest.raises(RuntimeError, match="divisible by groups. Got 6 channels and 4 groups"):
        F.channel_shuffle(mt.tensor(x), 4)
    with pytest.raises(RuntimeError, match="expects input with > 2 dims"):
        F.channel_shuffle(mt.zeros(2, 6), 2)


def _windows(L, o):
    return [((i * L) // o, -((-(i + 1) * L) // o)) for i in range(o)]


def test_adaptive_max_pool3d_vs_numpy(device):
    x = _rng().permutation(2 * 5 * 7 * 4).reshape(1, 2, 5, 7, 4).astype(np.float64)
    for size in [(2, 3, 3), (5, 7, 4), (1, 2, 2)]:
        out, idx = F.adaptive_max_pool3d(mt.tensor(x, device=device), size, return_indices=True)
        ref = np.zeros((1, 2, *size))
        for (a, (d0, d1)), (b, (h0, h1)), (c, (w0, w1)) in itertools.product(
            *(enumerate(_windows(L, o)) for L, o in zip(x.shape[2:], size, strict=True))
        ):
            ref[..., a, b, c] = x[..., d0:d1, h0:h1, w0:w1].max(axis=(-3, -2, -1))
        np.testing.assert_array_equal(_np(out), ref)
        picked = np.take_along_axis(x.reshape(1, 2, -1), _np(idx).reshape(1, 2, -1), -1)
        np.testing.assert_array_equal(picked.reshape(out.shape), ref)
    t = mt.tensor(x[:1, :1, :3, :4, :3] / 7, requires_grad=True)
    assert gradcheck(lambda a: nn.AdaptiveMaxPool3d((2, 3, 2))(a), (t,))


def test_lp_pool3d_and_max_unpool3d(device):
    x = _rng().uniform(0.5, 2.0, (1, 2, 4, 4, 6))
    out = F.lp_pool3d(mt.tensor(x, device=device), 2, (2, 2, 3))
    ref = np.sqrt((x**2).reshape(1, 2, 2, 2, 2, 2, 2, 3).sum(axis=(3, 5, 7)))
    np.testing.assert_allclose(_np(out), ref, rtol=1e-12)
    expected = "LPPool3d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    assert repr(nn.LPPool3d(2, 3)) == expected
    t = mt.tensor(x, device=device)
    pooled, idx = F.max_pool3d(t, 2, return_indices=True)
    back = nn.MaxUnpool3d(2)(pooled, idx)
    ref = np.where(x == np.repeat(np.repeat(np.repeat(_np(pooled), 2, 2), 2, 3), 2, 4), x, 0)
    np.testing.assert_array_equal(_np(back), ref)


# --- affine_grid / grid_sample ---


def _ref_grid_sample(x, grid, mode, padding_mode, align_corners):
    n, c, h, w = x.shape
    out = np.zeros((n, c, *grid.shape[1:3]))

    def unnorm(g, size):
        p = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
        if padding_mode == "border":
            p = min(max(p, 0), size - 1)
        elif padding_mode == "reflection":
            lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
            span = hi - lo
            while p < lo or p > hi:  # unfold the reflections one at a time
                p = 2 * lo - p if p < lo else 2 * hi - p
            p = min(max(p, 0), size - 1) if span > 0 else 0.0
        return p

    def at(b, yy, xx):
        if 0 <= yy < h and 0 <= xx < w:
            return x[b, :, yy, xx]
        return np.zeros(c)

    for b, i, j in itertools.product(range(n), *map(range, grid.shape[1:3])):
        px, py = unnorm(grid[b, i, j, 0], w), unnorm(grid[b, i, j, 1], h)
        if mode == "nearest":
            out[b, :, i, j] = at(b, int(np.rint(py)), int(np.rint(px)))
            continue
        x0, y0 = int(np.floor(px)), int(np.floor(py))
        fx, fy = px - x0, py - y0
        for dy, dx in itertools.product((0, 1), (0, 1)):
            wgt = (fy if dy else 1 - fy) * (fx if dx else 1 - fx)
            out[b, :, i, j] += wgt * at(b, y0 + dy, x0 + dx)
    return out


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_vs_numpy(mode, padding_mode, align_corners, device):
    rng = _rng()
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.7, 1.7, (2, 3, 2, 2))
    out = F.grid_sample(
        mt.tensor(x, device=device), mt.tensor(grid, device=device), mode, padding_mode,
        align_corners,
    )  # fmt: skip
    ref = _ref_grid_sample(x, grid, mode, padding_mode, align_corners)
    np.testing.assert_allclose(_np(out), ref, atol=1e-12)


def test_affine_grid_identity_and_gradients():
    theta = mt.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=mt.float64)
    g = F.affine_grid(theta, (1, 1, 2, 3), align_corners=True)
    xs, ys = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 2))
    np.testing.assert_allclose(_np(g), np.stack([xs, ys], -1)[None], atol=1e-15)
    g = F.affine_grid(theta, (1, 1, 2, 3), align_corners=False)
    np.testing.assert_allclose(_np(g), np.stack([xs * 2 / 3, ys / 2], -1)[None], atol=1e-15)
    x = mt.randn(1, 2, 4, 4, dtype=mt.float64)
    # identity grid with align_corners=False reproduces the input exactly
    ident = F.affine_grid(theta, (1, 2, 4, 4), align_corners=False)
    np.testing.assert_allclose(_np(F.grid_sample(x, ident, align_corners=False)), _np(x))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.affine_grid(theta, (1, 1, 2, 2))
    assert "align_corners=False since 1.3.0" in str(w[0].message)
    with pytest.raises(ValueError, match="Nx3x4"):
        F.affine_grid(theta, (1, 1, 2, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(x, ident, padding_mode="wrap", align_corners=False)


def test_grid_sample_bicubic():
    theta = mt.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=mt.float64)
    x = mt.randn(1, 2, 4, 5, dtype=mt.float64)
    ident = F.affine_grid(theta, (1, 2, 4, 5), align_corners=False)
    for pm in ("zeros", "border", "reflection"):  # cubic convolution interpolates the samples
        out = F.grid_sample(x, ident, "bicubic", pm, align_corners=False)
        np.testing.assert_allclose(_np(out), _np(x), atol=1e-12, err_msg=pm)
    g = mt.tensor(_rng().uniform(-1.3, 1.3, (1, 2, 2, 2)), requires_grad=True)
    xs = x[:, :1].detach().requires_grad_()
    assert gradcheck(lambda a, b: F.grid_sample(a, b, "bicubic", "reflection", True), (xs, g))
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(mt.zeros(1, 1, 2, 2, 2), mt.zeros(1, 1, 1, 1, 3), "bicubic", "zeros", False)


def test_grid_sample_3d_gradients():
    th = mt.tensor(_rng().standard_normal((1, 3, 4)) * 0.5, requires_grad=True)
    x3 = mt.randn(1, 1, 2, 3, 2, dtype=mt.float64, requires_grad=True)

    def f(a, t):
        return F.grid_sample(a, F.affine_grid(t, (1, 1, 2, 2, 1), align_corners=False), "bilinear",
                             "border", align_corners=False)  # fmt: skip

    assert gradcheck(f, (x3, th))


# --- torch.* forms and Tensor methods ---


def test_torch_namespace_is_lazy_and_complete():
    # resolved by the module __getattr__ on first use, so `import minitorch` imports no nn
    from minitorch.nn import _torch_namespace

    assert not set(mt._NN_TORCH_NAMES) & set(vars(mt))
    assert all(mt._LAZY_NAMES[n] == "nn._torch_namespace" for n in mt._NN_TORCH_NAMES)
    assert sorted(_torch_namespace.__all__) == sorted(mt._NN_TORCH_NAMES)
    for name in mt._NN_TORCH_NAMES:
        assert callable(getattr(mt, name)), name
        assert name in dir(mt)


def test_torch_namespace_signatures():
    x = mt.randn(2, 3, 4, 4)
    w, b = mt.randn(3), mt.randn(3)
    rm, rv = mt.zeros(3), mt.ones(3)
    np.testing.assert_allclose(
        _np(mt.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, False)),
        _np(F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5)),
    )
    assert mt.dropout(x, 0.5, False) is x
    kept = mt.feature_dropout(mt.ones(4, 50, 3), 0.5, True)
    per_channel = _np(kept).std(axis=-1)
    assert np.all(per_channel == 0) and 0 < (_np(kept)[..., 0] == 0).mean() < 1
    with pytest.raises(TypeError):
        mt.dropout(x)
    ln = mt.layer_norm(x, [4, 4], None, None, 1e-5, True)
    np.testing.assert_allclose(_np(ln), _np(F.layer_norm(x, [4, 4])))
    vals, idx = mt.adaptive_max_pool1d(mt.randn(2, 3, 6), 2)
    assert idx.dtype is mt.int64
    assert tuple(mt.max_pool2d(x, 2).shape) == (2, 3, 2, 2)
    t = mt.tensor([1.0, -1.0])
    assert mt.hinge_embedding_loss(t, mt.tensor([1.0, -1.0]), 1.0, 0).tolist() == [1.0, 2.0]
    # an enum value other than mean (1) and sum (2) leaves the loss unreduced, as torch's
    assert mt.kl_div(t, t, 3).shape == (2,) and mt.hinge_embedding_loss(t, t, 1.0, -1).shape == (2,)
    seq = mt.randn(5, 2, 3)  # (time, batch, channels)
    weight, bias = mt.randn(2, 3, 4), mt.randn(4)
    ref = F.conv1d(seq.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=1)
    got, want = _np(mt.conv_tbc(seq, weight, bias, 1)), _np(ref.permute(2, 0, 1))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)  # float32: another sum order
    conv = mt.convolution(x, mt.randn(3, 2, 2, 2), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1)
    assert tuple(conv.shape) == (2, 2, 5, 5)
    assert mt.constant_pad_nd(t, [1, 2], 9.0).tolist() == [9.0, 1.0, -1.0, 9.0, 9.0]
    emb = mt.embedding(mt.eye(3), mt.tensor([2, 0]))
    assert emb.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


def test_native_norms_and_dropout():
    x = mt.tensor(_rng().standard_normal((4, 3, 5)))
    out, mean, rstd = mt.native_layer_norm(x, [5], None, None, 1e-5)
    a = _np(x)
    np.testing.assert_allclose(_np(mean), a.mean(-1, keepdims=True))
    np.testing.assert_allclose(_np(rstd), 1 / np.sqrt(a.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(_np(out), (a - _np(mean)) * _np(rstd), atol=1e-12)
    _, mean, rstd = mt.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    np.testing.assert_allclose(_np(mean), a.mean((0, 2)))
    _, mean, rstd = mt.native_group_norm(x, None, None, 4, 3, 5, 3, 1e-5)
    assert tuple(mean.shape) == (4, 3) and tuple(rstd.shape) == (4, 3)
    kept, mask = mt.native_dropout(mt.ones(200), 0.25, True)
    assert mask.dtype is mt.bool and 0.6 < _np(mask).mean() < 0.9
    np.testing.assert_allclose(_np(kept), np.where(_np(mask), 1 / 0.75, 0.0))


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_torch_recurrent_functions_match_the_modules(name):
    kw = dict(proj_size=2) if name == "LSTM" else {}
    m = getattr(nn, name)(3, 4, num_layers=2, bidirectional=True, batch_first=True, **kw).double()
    x = mt.randn(2, 5, 3, dtype=mt.float64)
    h0 = mt.randn(4, 2, 2 if name == "LSTM" else 4, dtype=mt.float64)
    hx = (h0, mt.randn(4, 2, 4, dtype=mt.float64)) if name == "LSTM" else h0
    want = m(x, hx)
    fn = {"LSTM": mt.lstm, "GRU": mt.gru, "RNN": mt.rnn_tanh}[name]
    got = fn(x, list(hx) if name == "LSTM" else hx, list(m.parameters()), True, 2, 0.0, False,
             True, True)  # fmt: skip
    want = (want[0], *want[1]) if name == "LSTM" else want
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-12, atol=1e-12)


def test_nn_tensor_methods():
    x = mt.tensor([-1.0, 0.2, 0.7, -0.3])
    assert x.hardshrink().tolist() == pytest.approx([-1.0, 0.0, 0.7, 0.0])
    assert x.prelu(mt.tensor([0.5])).tolist() == pytest.approx([-0.5, 0.2, 0.7, -0.15])
