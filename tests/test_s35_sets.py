"""Session 35 (helper sets): torch-free regression tests of the library fixes the set and
pointer-model programs of tests/reference/test_s35_sets_reference.py found:
F.multi_head_attention_forward's argument checks (missing projection weights, the separate
weights' and biases' shapes, bias_k without bias_v, biases with static keys or values, the
static keys' and values' sizes), torch's private attention helpers (_in_projection,
_mha_shape_check, _none_or_dtype, _check_key_padding_mask) and MultiheadAttention's TypeError
for a mask that is no tensor. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _setup():
    mt.manual_seed(0)
    m = mt.nn.MultiheadAttention(6, 2)
    ms = mt.nn.MultiheadAttention(6, 2, kdim=4, vdim=5)
    g = mt.Generator().manual_seed(1)
    q = mt.randn(3, 2, 6, generator=g)
    k = mt.randn(4, 2, 4, generator=g)
    v = mt.randn(4, 2, 5, generator=g)
    return m, ms, q, k, v


def _call(m, q, k, v, w="packed", b=None, bk=None, bv=None, **kw):
    w = m.in_proj_weight if w == "packed" else w
    b = m.in_proj_bias if b is None else b
    return F.multi_head_attention_forward(
        q, k, v, 6, 2, w, b, bk, bv, False, 0.0, m.out_proj.weight, m.out_proj.bias, **kw
    )


def _separate(m, ms, q, k, v, b=None, **weights):
    ws = dict(q_proj_weight=ms.q_proj_weight, k_proj_weight=ms.k_proj_weight)
    ws["v_proj_weight"] = ms.v_proj_weight
    ws.update(weights)
    return _call(m, q, k, v, None, b, use_separate_proj_weight=True, **ws)


def test_mha_forward_missing_weights():
    m, ms, q, k, v = _setup()
    msg = _message(AssertionError, lambda: _call(m, q, q, q, None))
    assert msg == "use_separate_proj_weight is False but in_proj_weight is None"
    for name in ("q", "k", "v"):
        msg = _message(
            AssertionError, lambda n=name: _separate(m, ms, q, k, v, **{n + "_proj_weight": None})
        )
        assert msg == f"use_separate_proj_weight is True but {name}_proj_weight is None"
    out, w = _separate(m, ms, q, k, v)
    assert tuple(out.shape) == (3, 2, 6) and tuple(w.shape) == (2, 3, 4)


def test_mha_forward_separate_shapes():
    m, ms, q, k, v = _setup()
    kw, vw = ms.k_proj_weight, ms.v_proj_weight
    cases = [
        (dict(q_proj_weight=kw), "expecting query weights shape of (6, 6), but got"),
        (dict(k_proj_weight=vw), "expecting key weights shape of (6, 4), but got"),
        (dict(v_proj_weight=kw), "expecting value weights shape of (6, 5), but got"),
        # the query's weights are checked first
        (dict(q_proj_weight=kw, k_proj_weight=vw), "expecting query weights shape of (6, 6)"),
    ]
    for weights, want in cases:
        assert _message(
            AssertionError, lambda w=weights: _separate(m, ms, q, k, v, **w)
        ).startswith(want)
    b = m.in_proj_bias
    msg = _message(AssertionError, lambda: _separate(m, ms, q, k, v, b=b[:15]))
    assert msg.startswith("expecting query bias shape of (6,), but got") and "[5]" in msg
    msg = _message(AssertionError, lambda: _separate(m, ms, q, k, v, b=b[:17]))
    assert msg.startswith("expecting value bias shape of (6,), but got") and "[5]" in msg


def test_mha_forward_bias_kv_and_static():
    m, _, q, _, _ = _setup()
    bk = mt.ones(1, 1, 6)
    sk = mt.ones(4, 5, 3)
    cases = [
        (dict(bk=bk), "bias_k is set but bias_v is None"),
        (dict(bv=bk), "bias_v is set but bias_k is None"),
        (dict(bk=bk, bv=bk, static_k=sk), "bias cannot be added to static key."),
        (dict(bk=bk, bv=bk, static_v=sk), "bias cannot be added to static value."),
        (dict(static_k=sk[:3]), "expecting static_k.size(0) of 4, but got 3"),
        (dict(static_k=sk[..., :2]), "expecting static_k.size(2) of 3, but got 2"),
        (dict(static_v=sk[:3]), "expecting static_v.size(0) of 4, but got 3"),
        (dict(static_v=mt.ones(4, 3, 4)), "expecting static_v.size(2) of 3, but got 4"),
    ]
    for kw, want in cases:
        assert _message(AssertionError, lambda kw=kw: _call(m, q, q, q, **kw)) == want
    # static keys and values of another length than the inputs' are used as given
    _, w = _call(m, q, q, q, static_k=sk, static_v=sk * 0.5)
    assert tuple(w.shape) == (2, 3, 5)
    mt.testing.assert_close(w.sum(-1), mt.ones(2, 3))


def test_private_attention_helpers():
    m, ms, q, k, v = _setup()
    b_q, b_k, b_v = ms.in_proj_bias.chunk(3)
    qq, kk, vv = F._in_projection(
        q, k, v, ms.q_proj_weight, ms.k_proj_weight, ms.v_proj_weight, b_q, b_k, b_v
    )
    mt.testing.assert_close(kk, F.linear(k, ms.k_proj_weight, b_k))
    assert tuple(vv.shape) == (4, 2, 6)
    msg = _message(
        AssertionError,
        lambda: F._in_projection(
            q, k, v, ms.q_proj_weight, ms.k_proj_weight, ms.v_proj_weight, b_k=mt.ones(5)
        ),
    )
    assert msg.startswith("expecting key bias shape of (6,), but got")
    assert F._none_or_dtype(None) is None
    assert F._none_or_dtype(mt.ones(2, dtype=mt.float64)) is mt.float64
    msg = _message(RuntimeError, lambda: F._none_or_dtype(3))
    assert msg == "input to _none_or_dtype() must be None or torch.Tensor"
    kpm = mt.zeros(2, 4, dtype=mt.bool)
    F._check_key_padding_mask(kpm, 4, 2)
    msg = _message(AssertionError, lambda: F._check_key_padding_mask(kpm, 5, 2))
    assert msg == "Expected key_padded_mask.shape[1] to be 5, but got 4"
    msg = _message(AssertionError, lambda: F._check_key_padding_mask(kpm, 4, 3))
    assert msg == "Expected key_padded_mask.shape[0] to be 3, but got 2"
    assert F._mha_shape_check(q, k, v, None, None, 2) is True
    assert F._mha_shape_check(q[:, 0], k[:, 0], v[:, 0], None, None, 2) is False
    msg = _message(AssertionError, lambda: F._mha_shape_check(q, k[0], v, None, None, 2))
    assert msg.startswith("For batched (3-D) `query`, expected `key` and `value` to be 3-D")


def test_mha_module_mask_not_tensor():
    mt.manual_seed(0)
    mha = mt.nn.MultiheadAttention(4, 2, batch_first=True)
    q, k = mt.ones(2, 3, 4), mt.ones(2, 5, 4)
    rows = [[True] * 5] * 3
    want = "is_floating_point(): argument 'input' (position 1) must be Tensor, not "
    cases = [
        (dict(attn_mask=rows), "list"),
        (dict(key_padding_mask=rows[:2]), "list"),
        (dict(key_padding_mask=rows[:2], attn_mask=mt.zeros(3, 5, dtype=mt.bool)), "list"),
        (dict(key_padding_mask=(1, 2), need_weights=False), "tuple"),
    ]
    for kw, name in cases:
        assert _message(TypeError, lambda kw=kw: mha(q, k, k, **kw)) == want + name
    # a float attn_mask ends torch's test before the padding mask, which fails later
    msg = _message(
        AttributeError,
        lambda: mha(q, k, k, key_padding_mask=rows[:2], attn_mask=mt.zeros(3, 5)),
    )
    assert msg == "'list' object has no attribute 'dtype'"
