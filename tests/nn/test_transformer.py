"""MultiheadAttention and the transformer layers: values vs NumPy, mask semantics, gradients,
shapes, parameter layout and torch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck


def _np(t):
    return t.detach().cpu().numpy()


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_mha(m, q, k, v, mask=None):
    """(L, N, E) multi-head attention in NumPy; mask: additive (L, S)."""
    E, H = m.embed_dim, m.num_heads
    w, b = _np(m.in_proj_weight), _np(m.in_proj_bias)
    qp, kp, vp = (
        q @ w[:E].T + b[:E],
        k @ w[E : 2 * E].T + b[E : 2 * E],
        v @ w[2 * E :].T + b[2 * E :],
    )
    L, N, _ = q.shape
    S = k.shape[0]
    d = E // H

    def heads(x, n):  # (n, N, E) -> (N, H, n, d)
        return x.reshape(n, N, H, d).transpose(1, 2, 0, 3)

    scores = heads(qp, L) @ heads(kp, S).transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        scores = scores + mask
    weights = _softmax(scores)
    out = (weights @ heads(vp, S)).transpose(2, 0, 1, 3).reshape(L, N, E)
    out = out @ _np(m.out_proj.weight).T + _np(m.out_proj.bias)
    return out, weights.mean(1)


def test_mha_matches_numpy(device):
    mt.manual_seed(0)
    m = nn.MultiheadAttention(8, 2).double().to(device)
    nn.init.uniform_(m.in_proj_bias, -0.5, 0.5)
    nn.init.uniform_(m.out_proj.bias, -0.5, 0.5)
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(3, 2, 8)), rng.normal(size=(4, 2, 8))
    mask = np.where(rng.random((3, 4)) < 0.3, -np.inf, 0.0)
    mask[:, 0] = 0.0  # no fully masked row
    out, w = m(
        mt.tensor(q, device=device),
        mt.tensor(k, device=device),
        mt.tensor(k, device=device),
        attn_mask=mt.tensor(mask < 0, device=device),
    )
    want_out, want_w = ref_mha(m, q, k, k, mask)
    np.testing.assert_allclose(_np(out), want_out, atol=1e-12)
    np.testing.assert_allclose(_np(w), want_w, atol=1e-12)
    out2, none = m(
        mt.tensor(q, device=device),
        mt.tensor(k, device=device),
        mt.tensor(k, device=device),
        attn_mask=mt.tensor(mask, device=device),
        need_weights=False,
    )
    assert none is None
    np.testing.assert_allclose(_np(out2), want_out, atol=1e-12)


def test_mha_key_padding_mask_equals_attn_mask():
    m = nn.MultiheadAttention(8, 4).double()
    x = mt.randn(5, 2, 8, dtype=mt.float64)
    kpm = mt.tensor([[False] * 5, [False, False, False, True, True]])
    out_kpm, w = m(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
    assert w.shape == (2, 4, 5, 5)
    assert float(w[1, :, :, 3:].abs().max()) == 0
    # batch 1 without its padded keys gives the same result for the kept queries
    short = x[:3, 1:2]
    out_short, _ = m(short, short, short)
    np.testing.assert_allclose(_np(out_kpm[:3, 1:2]), _np(out_short), atol=1e-12)


def test_mha_batch_first_unbatched_kdim_vdim():
    m = nn.MultiheadAttention(
        8, 2, kdim=6, vdim=5, batch_first=True, add_bias_kv=True, add_zero_attn=True
    )
    assert m.in_proj_weight is None and m.k_proj_weight.shape == (8, 6)
    assert list(m.state_dict()) == [
        "q_proj_weight",
        "k_proj_weight",
        "v_proj_weight",
        "in_proj_bias",
        "bias_k",
        "bias_v",
        "out_proj.weight",
        "out_proj.bias",
    ]
    out, w = m(mt.randn(2, 3, 8), mt.randn(2, 4, 6), mt.randn(2, 4, 5))
    assert out.shape == (2, 3, 8) and w.shape == (2, 3, 6)  # 4 keys + bias_k + zero attention
    out, w = m(mt.randn(3, 8), mt.randn(4, 6), mt.randn(4, 5))
    assert out.shape == (3, 8) and w.shape == (3, 6)


def test_mha_gradcheck():
    m = nn.MultiheadAttention(4, 2).double()
    x = mt.randn(3, 2, 4, dtype=mt.float64, requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=mt.float64)
    assert gradcheck(lambda a: m(a, a, a, attn_mask=mask)[0], (x,))
    assert gradcheck(lambda a: m(a, a, a, attn_mask=mask, need_weights=False)[0], (x,))


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda m, x: nn.MultiheadAttention(8, 3), AssertionError, "divisible by num_heads"),
        (
            lambda m, x: m(x, x, x, attn_mask=mt.ones(3, 4, dtype=mt.bool)),
            RuntimeError,
            "The shape of the 2D attn_mask is",
        ),
        (
            lambda m, x: m(x, x, x, attn_mask=mt.ones(3, 3, dtype=mt.int64)),
            AssertionError,
            "only bool and floating types of attn_mask are supported",
        ),
        (lambda m, x: m(x, x, x, is_causal=True), RuntimeError, "Need attn_mask"),
        (
            lambda m, x: m(x[..., :6], x, x),
            AssertionError,
            "was expecting embedding dimension of 8, but got 6",
        ),
        (
            lambda m, x: m(x, x, x, key_padding_mask=mt.ones(2, 4, dtype=mt.bool)),
            AssertionError,
            "Expected key_padded_mask.shape\\[1\\] to be 3, but got 4",
        ),
    ],
)
def test_mha_errors(call, exc, msg):
    m = nn.MultiheadAttention(8, 2)
    with pytest.raises(exc, match=msg):
        call(m, mt.randn(3, 2, 8))


def test_generate_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == mt.float32
    assert m.tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]


def test_encoder_layer_matches_composition():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).double()
    x = mt.randn(4, 2, 8, dtype=mt.float64)
    a = layer.self_attn(x, x, x, need_weights=False)[0]
    h = layer.norm1(x + a)
    want = layer.norm2(h + layer.linear2(layer.linear1(h).relu()))
    np.testing.assert_allclose(_np(layer(x)), _np(want), atol=1e-12)


def test_encoder_decoder_stacks():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))
    assert enc.layers[0] is not enc.layers[1]
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    model = nn.Transformer(
        8, 2, 1, 2, 16, dropout=0.0, batch_first=True, norm_first=True, activation="gelu"
    )
    assert len(list(model.state_dict())) == 12 + 2 + 2 * 18 + 2
    src, tgt = mt.randn(2, 5, 8), mt.randn(2, 4, 8)
    out = model(
        src,
        tgt,
        tgt_mask=model.generate_square_subsequent_mask(4),
        src_key_padding_mask=mt.zeros(2, 5, dtype=mt.bool),
    )
    assert out.shape == (2, 4, 8)
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(src, mt.randn(3, 4, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt"):
        model(src, mt.randn(2, 4, 6))


def test_causal_decoder_ignores_the_future():
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    mem, tgt = mt.randn(5, 1, 8), mt.randn(4, 1, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    a = layer(tgt, mem, tgt_mask=mask)
    tgt2 = tgt.clone()
    tgt2[3] = 100.0
    b = layer(tgt2, mem, tgt_mask=mask, tgt_is_causal=True)
    np.testing.assert_allclose(_np(a[:3]), _np(b[:3]), atol=1e-5)


def test_no_host_reads_on_strict():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.1).to("strict")
    src = mt.randn(5, 2, 8, device="strict")
    tgt = mt.randn(4, 2, 8, device="strict")
    mask = nn.Transformer.generate_square_subsequent_mask(4, device="strict")
    kpm = mt.zeros(2, 5, dtype=mt.bool, device="strict")
    with count_transfers() as t:
        model(src, tgt, tgt_mask=mask, src_key_padding_mask=kpm).sum().backward()
    assert t.count == 0


def test_encoder_inference_zeroes_padded_positions_as_torchs_nested_path():
    rng = np.random.default_rng(0)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True).eval()
    x = mt.tensor(rng.standard_normal((2, 4, 8)), dtype=mt.float32)
    pad = mt.tensor([[False, False, True, True], [False, False, False, False]])
    with mt.no_grad():
        out = enc(x, src_key_padding_mask=pad)
        ref = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
        ref.load_state_dict(enc.state_dict())
        want = ref(x, src_key_padding_mask=pad)
    assert (out[0, 2:] == 0).all()  # torch's to_padded_tensor(0.0)
    np.testing.assert_allclose(out[0, :2].numpy(), want[0, :2].numpy(), rtol=1e-6)
    np.testing.assert_allclose(out[1].numpy(), want[1].numpy(), rtol=1e-6)
    assert (want[0, 2:] != 0).any()
    # not in eval, with gradients, or with a mask that is not left-aligned: computed values
    with mt.no_grad():
        gap = mt.tensor([[False, True, False, True], [False, False, False, False]])
        assert (enc(x, src_key_padding_mask=gap)[0, 1] != 0).any()
    assert (enc(x, src_key_padding_mask=pad)[0, 2:] != 0).any()  # grad mode, weights need grad
