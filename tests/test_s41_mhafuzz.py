"""Attention layers without torch: the mask checks' order (an integer padding mask is refused
before the mixed-mask deprecation warning), and first and second derivatives in float64 of
MultiheadAttention (bias_k / bias_v, zero attention, kdim / vdim, bool and float masks, with and
without weights), of scaled_dot_product_attention with GQA and a learned float mask, and of a
pre-norm transformer decoder layer."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


def _randn(seed, *shape):
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


def test_integer_padding_mask_refused_before_mixed_mask_warning():
    mha = torch.nn.MultiheadAttention(4, 2)
    x = torch.zeros(3, 2, 4)
    kpm = torch.zeros(2, 3, dtype=torch.int64)
    am = torch.zeros(3, 3, dtype=torch.bool)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(
            AssertionError, match="^only bool and floating types of key_padding_mask are supported$"
        ):
            mha(x, x, x, key_padding_mask=kpm, attn_mask=am)
    assert [str(w.message) for w in caught] == []


def test_mixed_masks_still_warn():
    mha = torch.nn.MultiheadAttention(4, 2)
    x = torch.zeros(3, 2, 4)
    kpm = torch.zeros(2, 3)
    am = torch.zeros(3, 3, dtype=torch.bool)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        out, _ = mha(x, x, x, key_padding_mask=kpm, attn_mask=am)
    assert out.shape == (3, 2, 4)


@pytest.mark.parametrize(
    "opts",
    [
        dict(add_bias_kv=True, add_zero_attn=True, need_weights=True, average=False),
        dict(kdim=3, vdim=5, need_weights=False, batch_first=True),
        dict(need_weights=True, average=True, bias=False, unbatched=True),
    ],
    ids=["bias_kv_zero_attn", "kdim_vdim_sdpa_path", "unbatched_no_bias"],
)
def test_multihead_attention_twice_differentiable(opts):
    e, h, L, S, N = 4, 2, 3, 2, 2
    kdim, vdim = opts.get("kdim", e), opts.get("vdim", e)
    mha = torch.nn.MultiheadAttention(
        e,
        h,
        bias=opts.get("bias", True),
        add_bias_kv=opts.get("add_bias_kv", False),
        add_zero_attn=opts.get("add_zero_attn", False),
        kdim=opts.get("kdim"),
        vdim=opts.get("vdim"),
        batch_first=opts.get("batch_first", False),
        dtype=torch.float64,
    )
    unbatched = opts.get("unbatched", False)

    def shape(n, d):
        if unbatched:
            return (n, d)
        return (N, n, d) if opts.get("batch_first") else (n, N, d)

    q, k, v = _randn(1, *shape(L, e)), _randn(2, *shape(S, kdim)), _randn(3, *shape(S, vdim))
    am = _randn(4, L, S)
    inf = float("-inf")
    kpm = torch.tensor([0.0, inf] if unbatched else [[0.0, inf], [0.0, 0.0]], dtype=torch.float64)

    def f(q, k, v, am):
        out, w = mha(
            q,
            k,
            v,
            attn_mask=am,
            key_padding_mask=kpm,
            need_weights=opts["need_weights"],
            average_attn_weights=opts.get("average", True),
        )
        return (out, w) if w is not None else out

    assert gradcheck(f, (q, k, v, am))
    assert gradgradcheck(f, (q, k, v, am))


def test_sdpa_gqa_learned_mask_twice_differentiable():
    q, k, v = _randn(5, 1, 4, 3, 2), _randn(6, 1, 2, 2, 2), _randn(7, 1, 2, 2, 3)
    bias = _randn(8, 4, 3, 2)

    def f(q, k, v, bias):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.7, enable_gqa=True)

    assert gradcheck(f, (q, k, v, bias))
    assert gradgradcheck(f, (q, k, v, bias))


def test_pre_norm_decoder_layer_twice_differentiable():
    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(
        4,
        2,
        dim_feedforward=3,
        dropout=0.0,
        activation="gelu",
        norm_first=True,
        batch_first=True,
        dtype=torch.float64,
    )
    tgt, mem = _randn(9, 1, 2, 4), _randn(10, 1, 3, 4)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float64)

    def f(tgt, mem):
        return layer(tgt, mem, tgt_mask=mask, tgt_is_causal=True)

    assert gradcheck(f, (tgt, mem))
    assert gradgradcheck(f, (tgt, mem))
