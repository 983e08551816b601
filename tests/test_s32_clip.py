"""Session 32 (helper clip): torch-free checks of what the CLIP-style contrastive programs in
tests/reference/test_s32_clip_reference.py found: layer_norm refuses mixed parameter dtypes
before it compares shapes, and multi_head_attention_forward keeps the width of its output
projection (CLIP's AttentionPool2d). torch 2.13's values and messages are written below as
literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


# --- layer_norm: mixed dtypes before shapes ---


def _ln_error(x, shape, w=None, b=None):
    with pytest.raises(RuntimeError) as info:
        F.layer_norm(x, shape, w, b)
    return str(info.value)


MIXED = "mixed dtype (CPU): all inputs must share same datatype."
NOT_FLOAT = "mixed dtype (CPU): expect parameter to have scalar type of Float"
SHAPE16 = (
    "Given normalized_shape=[16], expected input with shape [*, 16], but got input of size[4, 8]"
)


def test_layer_norm_mixed_dtype_is_refused_before_the_shape():
    x64 = mt.zeros(4, 8, dtype=mt.float64)
    assert _ln_error(x64, (16,), mt.ones(16)) == MIXED  # the module's float32 weight
    assert _ln_error(x64, (16,), None, mt.ones(16)) == MIXED
    assert _ln_error(x64, (16,), mt.ones(16, dtype=mt.float16)) == NOT_FLOAT
    assert _ln_error(mt.zeros(4, 8, dtype=mt.float16), (16,), mt.ones(16, dtype=mt.float64)) == (
        NOT_FLOAT
    )
    assert _ln_error(mt.zeros(4, 8, dtype=mt.int64), (16,), mt.ones(16)) == MIXED
    assert _ln_error(x64, (8,), mt.ones(7)) == MIXED
    with pytest.raises(RuntimeError, match="mixed dtype"):
        mt.nn.LayerNorm(16)(x64)


def test_layer_norm_shape_error_stays_where_dtypes_agree_or_half_input():
    x64 = mt.zeros(4, 8, dtype=mt.float64)
    # the first parameter matches the input: torch compares shapes first
    assert _ln_error(x64, (16,), mt.ones(16, dtype=mt.float64), mt.ones(16)) == SHAPE16
    assert _ln_error(mt.zeros(4, 8, dtype=mt.float16), (16,), mt.ones(16)) == SHAPE16
    assert _ln_error(mt.zeros(4, 8, dtype=mt.int64), (16,)) == SHAPE16
    assert _ln_error(mt.zeros(4, 8), (8,), mt.ones(7)) == (
        "Expected weight to be of same shape as normalized_shape, but got weight of shape [7] "
        "and normalized_shape = [8]"
    )


# --- multi_head_attention_forward: the output projection's width ---


def _pool_args(dtype):
    g = mt.Generator().manual_seed(0)
    q = mt.randn(1, 2, 8, generator=g, dtype=dtype)
    k = mt.randn(4, 2, 8, generator=g, dtype=dtype)
    w = mt.randn(24, 8, generator=g, dtype=dtype)
    b = mt.randn(24, generator=g, dtype=dtype)
    ow = mt.randn(5, 8, generator=g, dtype=dtype)
    ob = mt.randn(5, generator=g, dtype=dtype)
    return q, k, w, b, ow, ob


def _by_hand(q, k, w, b, ow, ob):
    qp = q @ w[:8].T + b[:8]
    kp = k @ w[8:16].T + b[8:16]
    vp = k @ w[16:].T + b[16:]
    heads = []
    for h in range(2):
        sl = slice(4 * h, 4 * h + 4)
        qh, kh, vh = (t[..., sl].permute(1, 0, 2) for t in (qp, kp, vp))  # (N, L, 4)
        att = (qh @ kh.transpose(1, 2) / 2.0).softmax(-1)
        heads.append((att @ vh).permute(1, 0, 2))
    return mt.cat(heads, -1) @ ow.T + ob


@pytest.mark.parametrize("need_weights", [True, False])
def test_multi_head_attention_forward_keeps_the_out_projection_width(need_weights):
    q, k, w, b, ow, ob = _pool_args(mt.float64)
    out, att = F.multi_head_attention_forward(
        q, k, k, 8, 2, w, b, None, None, False, 0.0, ow, ob,
        training=False, need_weights=need_weights,
    )  # fmt: skip
    assert tuple(out.shape) == (1, 2, 5)  # torch: torch.Size([1, 2, 5])
    assert (tuple(att.shape) if need_weights else att) == ((2, 1, 4) if need_weights else None)
    np.testing.assert_allclose(out.numpy(), _by_hand(q, k, w, b, ow, ob).numpy(), rtol=1e-12)
    unbatched = F.multi_head_attention_forward(
        q[:, 0], k[:, 0], k[:, 0], 8, 2, w, b, None, None, False, 0.0, ow, ob,
        training=False, need_weights=need_weights,
    )[0]  # fmt: skip
    assert tuple(unbatched.shape) == (1, 5)


def test_attention_pool_with_separate_projections_backpropagates():
    q, k, w, b, ow, ob = _pool_args(mt.float64)
    k.requires_grad_()
    ow.requires_grad_()
    out, _ = F.multi_head_attention_forward(
        query=q, key=k, value=k, embed_dim_to_check=8, num_heads=2,
        in_proj_weight=None, in_proj_bias=b, bias_k=None, bias_v=None, add_zero_attn=False,
        dropout_p=0.0, out_proj_weight=ow, out_proj_bias=ob, use_separate_proj_weight=True,
        q_proj_weight=w[:8], k_proj_weight=w[8:16], v_proj_weight=w[16:], need_weights=False,
    )  # fmt: skip
    assert tuple(out.shape) == (1, 2, 5)
    out.pow(2).sum().backward()
    assert tuple(k.grad.shape) == (4, 2, 8)
    assert tuple(ow.grad.shape) == (5, 8)
