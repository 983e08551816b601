"""scaled_dot_product_attention: torch 2.13's CPU path choice (flash vs math), argument checks."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

EXPLICIT = "Explicit attn_mask should not be set when is_causal=True"
FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"


def _t(shape, seed=0, dtype=minitorch.float32, requires_grad=False):
    rng = np.random.default_rng(seed)
    x = minitorch.tensor(rng.standard_normal(shape), dtype=dtype)
    return x.requires_grad_(requires_grad)


def _sdpa(q, k, v, **kw):
    return F.scaled_dot_product_attention(q, k, v, **kw)


@pytest.mark.parametrize(
    "qs, ks, mask, kw",
    [
        ((1, 2, 3, 4), (1, 2, 3, 4), "rg", {}),  # a mask that requires grad
        ((2, 2, 3, 4), (1, 2, 3, 4), (3, 3), {}),  # batch broadcast
        ((1, 2, 3, 4), (1, 1, 3, 4), (3, 3), {}),  # head broadcast
        ((2, 3, 4), (2, 3, 4), (3, 3), {}),  # 3-D
        ((1, 2, 3, 4), (1, 2, 3, 4), (3, 3), {"dropout_p": 0.5}),
        ((1, 2, 3, 4), (1, 2, 3, 4), (2, 3, 3), {}),  # a 3-D mask
        ((1, 1, 2, 3, 4), (1, 1, 2, 3, 4), (3, 3), {}),  # 5-D
        ((2, 4, 3, 4), (1, 2, 3, 4), (3, 3), {"enable_gqa": True}),
    ],
)
def test_mask_with_causal_raises_off_flash_path(qs, ks, mask, kw):
    q, k = _t(qs), _t(ks, 1)
    m = minitorch.zeros(3, 3, requires_grad=True) if mask == "rg" else minitorch.zeros(mask)
    with pytest.raises(RuntimeError, match=EXPLICIT):
        _sdpa(q, k, k, attn_mask=m, is_causal=True, **kw)


def test_mask_with_causal_on_flash_path_matches_numpy():
    q, k, v = (
        _t((2, 2, 3, 4), 0, minitorch.float64),
        _t((2, 2, 3, 4), 1, minitorch.float64),
        _t((2, 2, 3, 4), 2, minitorch.float64),
    )
    m = _t((1, 1, 3, 3), 3, minitorch.float64)
    out = _sdpa(q, k, v, attn_mask=m, is_causal=True)
    s = q.numpy() @ np.swapaxes(k.numpy(), -1, -2) / 2.0 + m.numpy()
    s = np.where(np.tril(np.ones((3, 3), bool)), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    want = (w / w.sum(-1, keepdims=True)) @ v.numpy()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, err_msg="mask + causal")
    # gqa: key/value heads dividing the query's keep the flash path
    q4 = _t((1, 4, 3, 4), 4)
    assert _sdpa(
        q4,
        _t((1, 2, 3, 4)),
        _t((1, 2, 3, 4)),
        attn_mask=minitorch.zeros(3, 3),
        is_causal=True,
        enable_gqa=True,
    ).shape == (1, 4, 3, 4)


def test_argument_type_errors():
    q = _t((1, 2, 3))
    with pytest.raises(TypeError, match=r"argument 'attn_mask' must be Tensor, not numpy.ndarray"):
        _sdpa(q, q, q, attn_mask=np.ones((2, 2), dtype=bool))
    with pytest.raises(
        TypeError, match=r"argument 'query' \(position 1\) must be Tensor, not list"
    ):
        _sdpa([[1.0, 2.0, 3.0]], q, q)
    with pytest.raises(TypeError, match=r"argument 'value' \(position 3\) must be Tensor, not "):
        _sdpa(q, q, None)
    with pytest.raises(TypeError, match=r"argument 'dropout_p' must be float, not str"):
        _sdpa(q, q, q, dropout_p="a")


def test_dropout_and_dtype_errors():
    q = _t((1, 2, 3))
    with pytest.raises(RuntimeError, match=r"between 0 and 1, but got 1.5"):
        _sdpa(q, q, q, dropout_p=1.5)
    q4 = _t((1, 2, 3, 4))
    with pytest.raises(RuntimeError, match=r"flash_attention: Currently do not support dropout"):
        _sdpa(q4, q4, q4, dropout_p=-0.1)
    assert _sdpa(q, q, q, dropout_p=-0.1).shape == (1, 2, 3)  # 3-D: math path, no dropout
    b = q.bool()
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Bool$"):
        _sdpa(b, b, b)
    i = q4.long()
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Long$"):
        _sdpa(i, i, i, is_causal=True)  # the causal mask is built in the scores' dtype


@pytest.mark.parametrize(
    "qs, ms",
    [((2, 3, 5, 4), (1, 1, 1, 5, 5)), ((1, 2, 3, 4), (2, 2, 3, 3)), ((2, 3, 4), (1, 1, 3, 3))],
)
def test_mask_may_not_grow_scores(qs, ms):
    q = _t(qs)
    L = qs[-2]
    want = list(qs[:-1]) + [L]
    full = list(np.broadcast_shapes(tuple(want), ms))
    with pytest.raises(RuntimeError, match=r"output with shape \[") as e:
        _sdpa(q, q, q, attn_mask=minitorch.ones(ms, dtype=minitorch.bool))
    assert str(e.value) == f"output with shape {want} doesn't match the broadcast shape {full}"


def test_flash_node_name_edges_and_gradients():
    q = _t((1, 2, 3, 4), 0, minitorch.float64, True)
    k = _t((1, 2, 3, 4), 1, minitorch.float64, True)
    v = _t((1, 2, 3, 4), 2, minitorch.float64)
    out = _sdpa(q, k, v, is_causal=True)
    assert type(out.grad_fn).__name__ == FLASH
    nxt = out.grad_fn.next_functions
    assert len(nxt) == 3 and nxt[2][0] is None
    assert nxt[0][0].variable is q and nxt[1][0].variable is k
    # the math path keeps the matmul's node, as torch
    assert type(_sdpa(q, k, v, dropout_p=0.5).grad_fn).__name__ == "UnsafeViewBackward0"
    assert type(_sdpa(q[0], k[0], v[0]).grad_fn).__name__ == "UnsafeViewBackward0"
    m = minitorch.zeros(3, 3, dtype=minitorch.float64, requires_grad=True)
    assert type(_sdpa(q, k, v, attn_mask=m).grad_fn).__name__ == "UnsafeViewBackward0"
    h = _t((1, 2, 3, 4), 0, minitorch.bfloat16, True)
    assert type(_sdpa(h, h, h).grad_fn).__name__ == FLASH
    v.requires_grad_(True)
    mask = minitorch.tensor([[True, False, True]] * 3)

    def f(q, k, v):
        return _sdpa(q, k, v, attn_mask=mask, is_causal=True)

    assert gradcheck(f, (q, k, v))
    assert gradgradcheck(f, (q, k, v))


def test_flash_node_checks_saved_inputs():
    q = _t((1, 2, 3, 4), 0, requires_grad=True)
    v = _t((1, 2, 3, 4), 2)
    out = _sdpa(q, q, v)
    v.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_gqa_repeats_key_and_value_by_their_own_groups():
    q, k, v = _t((1, 4, 3, 4), 0), _t((1, 2, 3, 4), 1), _t((1, 1, 3, 4), 2)
    out = _sdpa(q, k, v, enable_gqa=True)
    want = _sdpa(q, k.repeat_interleave(2, dim=1), v.expand(1, 4, 3, 4))
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6, err_msg="gqa k/v heads")
