"""nn layers with unusual arguments, checked without torch: first and second derivatives
(float64 gradcheck/gradgradcheck) of packed/stacked/projected recurrent layers, attention with
bias_kv/zero_attn and masks, EmbeddingBag, LP and adaptive pooling, Fold/Unfold, shuffles,
circular padding and interpolate; and the places where minitorch keeps the documented
behaviour (EmbeddingBag's scale_grad_by_freq, nearest interpolation's gradient, a decoder's
module activation)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional


def _r(*shape, positive=False):
    t = mt.randn(*shape, dtype=mt.float64)
    if positive:
        t = t.abs() + 0.2
    return t.requires_grad_()


def _packed_lstm():
    lstm = mt.nn.LSTM(2, 2, 2, proj_size=1, bidirectional=True, batch_first=True, dtype=mt.float64)
    utils = mt.nn.utils.rnn

    def fn(x, h, c):
        p = utils.pack_padded_sequence(x, [1, 2], batch_first=True, enforce_sorted=False)
        out, (hn, cn) = lstm(p, (h, c))
        return utils.pad_packed_sequence(out, batch_first=True)[0], hn, cn

    return fn


def _unbatched_gru():
    return mt.nn.GRU(2, 2, 2, bidirectional=True, dtype=mt.float64)


def _mha():
    m = mt.nn.MultiheadAttention(
        4, 2, kdim=3, vdim=2, add_bias_kv=True, add_zero_attn=True, dtype=mt.float64
    )
    kpm = mt.tensor([[False, True]])
    mask = mt.tensor([[0.0, -1.0], [0.5, 0.0]], dtype=mt.float64)

    def fn(q, k, v):
        return m(q, k, v, key_padding_mask=kpm, attn_mask=mask, average_attn_weights=False)

    return fn


def _causal_encoder():
    layer = mt.nn.TransformerEncoderLayer(
        4, 2, 6, dropout=0.0, norm_first=True, activation="gelu", dtype=mt.float64
    )
    mask = mt.nn.Transformer.generate_square_subsequent_mask(3, dtype=mt.float64)
    return lambda x: layer(x, src_mask=mask, is_causal=True)


# layers built once per test (seeded), so every gradcheck evaluation sees the same weights
LAYERS = {
    "packed projected bidirectional LSTM",
    "unbatched stacked GRU",
    "attention with kdim, vdim, bias_kv, zero_attn and masks",
    "causal pre-norm encoder layer",
}
CASES = {
    "packed projected bidirectional LSTM": (_packed_lstm, [(2, 2, 2), (4, 2, 1), (4, 2, 2)]),
    "unbatched stacked GRU": (_unbatched_gru, [(3, 2), (4, 2)]),
    "attention with kdim, vdim, bias_kv, zero_attn and masks": (
        _mha,
        [(2, 1, 4), (2, 1, 3), (2, 1, 2)],
    ),
    "causal pre-norm encoder layer": (_causal_encoder, [(3, 1, 4)]),
    "embedding_bag max": (
        lambda w: F.embedding_bag(mt.tensor([0, 2, 1, 3]), w, mt.tensor([0, 2]), mode="max"),
        [(5, 2)],
    ),
    "embedding_bag per_sample_weights": (
        lambda w, p: F.embedding_bag(
            mt.tensor([0, 2, 1, 3]),
            w,
            mt.tensor([0, 2]),
            mode="sum",
            per_sample_weights=p,
            padding_idx=1,
        ),
        [(5, 2), (4,)],
    ),
    "lp_pool1d ceil_mode": (lambda x: F.lp_pool1d(x, 3.0, 2, ceil_mode=True), [(1, 2, 5)]),
    "lp_pool3d": (lambda x: F.lp_pool3d(x, 2.0, 2, stride=1), [(1, 1, 3, 3, 3)]),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), [(1, 2, 3, 4, 5)]),
    "adaptive_max_pool1d unbatched": (lambda x: F.adaptive_max_pool1d(x, 3), [(2, 5)]),
    "fold": (
        lambda x: F.fold(x, (4, 5), 2, dilation=(1, 2), padding=1, stride=(2, 1)),
        [(1, 4, 15)],
    ),
    "unfold": (lambda x: F.unfold(x, 2, dilation=(1, 2), padding=1, stride=(2, 1)), [(1, 2, 3, 4)]),
    "antialiased bilinear": (
        lambda x: F.interpolate(x, scale_factor=0.6, mode="bilinear", antialias=True),
        [(1, 1, 5, 5)],
    ),
    "antialiased bicubic": (
        lambda x: F.interpolate(x, size=(3, 2), mode="bicubic", antialias=True),
        [(1, 1, 5, 5)],
    ),
    "trilinear recomputed scale": (
        lambda x: F.interpolate(
            x, scale_factor=(1.5, 0.7, 2.0), mode="trilinear", recompute_scale_factor=True
        ),
        [(1, 1, 2, 3, 2)],
    ),
    "bilinear keeping one dim": (
        lambda x: F.interpolate(x, size=(3, 5), mode="bilinear"),
        [(1, 2, 3, 2)],
    ),
    "nearest 3-d with scale factors": (
        lambda x: F.interpolate(x, scale_factor=(0.4, 2.2, 1.5), mode="nearest"),
        [(1, 1, 5, 3, 2)],
    ),
    "CircularPad3d with a negative pad": (
        lambda x: mt.nn.CircularPad3d((1, 0, -1, 2, 0, 1))(x),
        [(1, 1, 2, 3, 3)],
    ),
    "channel_shuffle": (lambda x: F.channel_shuffle(x, 2), [(1, 4, 3)]),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [(1, 1, 4, 2)]),
    "max_pool2d dilated ceil_mode": (
        lambda x: F.max_pool2d(x, 2, 2, 1, 2, ceil_mode=True),
        [(1, 1, 5, 4)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives(name):
    fn, shapes = CASES[name]
    if name in LAYERS:
        fn = fn()
    positive = name.startswith("lp_pool")
    ins = [_r(*s, positive=positive) for s in shapes]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(fn, ins)
        assert gradgradcheck(fn, ins)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize(
    "idx, offsets",
    [
        ([2, 0, 1, 1, 1], [0]),
        ([1, 0, 0, 0, 0], [0, 2]),
        ([0, 2, 2, 2, 0], [0, 3]),
        ([1, 1, 3], [0]),
    ],
)
def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count(mode, idx, offsets):
    # the documented rule (as nn.Embedding's): row k's gradient is divided by how often k occurs
    # in the whole batch. torch 2.13's CPU kernel reads the wrong count for an index that sorts
    # after a repeated one (pytorch issue 190063).
    w = mt.ones(4, 2, dtype=mt.float64, requires_grad=True)
    out = F.embedding_bag(mt.tensor(idx), w, mt.tensor(offsets), mode=mode, scale_grad_by_freq=True)
    g = np.random.default_rng(0).uniform(-1, 1, tuple(out.shape))
    out.backward(mt.tensor(g))
    bounds = list(offsets) + [len(idx)]
    want = np.zeros((4, 2))
    counts = np.bincount(idx, minlength=4)
    for b in range(len(offsets)):
        members = idx[bounds[b] : bounds[b + 1]]
        for k in members:
            scale = 1.0 / len(members) if mode == "mean" else 1.0
            want[k] += g[b] * scale / counts[k]
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12, atol=1e-12)


def test_nearest_3d_gradient_is_the_forward_adjoint():
    # torch 2.13's upsample_nearest3d backward with scale factors (0.4, 2.2, 1.5) does not route
    # the gradient where its forward took the values; minitorch's does (the adjoint identity)
    rng = np.random.default_rng(1)
    x = mt.tensor(rng.standard_normal((1, 1, 6, 3, 3)), requires_grad=True)
    y = F.interpolate(x, scale_factor=(0.4, 2.2, 1.5), mode="nearest")
    assert tuple(y.shape) == (1, 1, 2, 6, 4)
    g = mt.tensor(rng.standard_normal(tuple(y.shape)))
    (gx,) = mt.autograd.grad(y, x, g)
    probe = rng.standard_normal((1, 1, 6, 3, 3))
    y_probe = F.interpolate(mt.tensor(probe), scale_factor=(0.4, 2.2, 1.5), mode="nearest")
    lhs = float((y_probe.numpy() * g.numpy()).sum())
    np.testing.assert_allclose(float((gx.numpy() * probe).sum()), lhs, rtol=1e-12)
    # H (3 -> 6 by 2.2) reads rows 0, 0, 0, 1, 1, 2; W (3 -> 4 by 1.5) columns 0, 0, 1, 2
    (gx1,) = mt.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(gx1.numpy()[0, 0, 0, :, 0], [6.0, 4.0, 2.0])


def test_decoder_copies_keep_a_module_activation():
    # TransformerDecoder deep-copies its layer; the copies keep a GELU module (torch's copies
    # fall back to relu, a documented difference), so the stack computes GELU everywhere
    mt.manual_seed(0)
    layer = mt.nn.TransformerDecoderLayer(
        4, 2, 6, dropout=0.0, activation=mt.nn.GELU(), dtype=mt.float64
    )
    dec = mt.nn.TransformerDecoder(layer, 2)
    assert all(isinstance(m.activation, mt.nn.GELU) for m in dec.layers)
    rng = np.random.default_rng(2)
    tgt, mem = mt.tensor(rng.standard_normal((2, 1, 4))), mt.tensor(rng.standard_normal((3, 1, 4)))
    ref_layer = mt.nn.TransformerDecoderLayer(
        4, 2, 6, dropout=0.0, activation=F.gelu, dtype=mt.float64
    )
    ref = mt.nn.TransformerDecoder(ref_layer, 2)
    ref.load_state_dict(dec.state_dict())
    np.testing.assert_allclose(
        dec(tgt, mem).detach().numpy(), ref(tgt, mem).detach().numpy(), rtol=0, atol=0
    )
    relu_layer = mt.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, dtype=mt.float64)
    relu = mt.nn.TransformerDecoder(relu_layer, 2)
    relu.load_state_dict(dec.state_dict())
    assert not np.allclose(dec(tgt, mem).detach().numpy(), relu(tgt, mem).detach().numpy())
