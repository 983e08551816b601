"""nn.attention as a package: bias (CausalBias through scaled_dot_product_attention) and eager
flex_attention (score_mod, BlockMask, mask combinators)."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.attention import SDPBackend, sdpa_kernel
from minitorch.nn.attention import bias as attn_bias
from minitorch.nn.attention import flex_attention as fa


def _t(a, grad=False):
    return minitorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _np_attention(q, k, v, scores_fn=None, keep=None, scale=None):
    """NumPy reference: softmax over masked (and modified) scores, 0 and -inf on empty rows."""
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if scores_fn is not None:
        s = scores_fn(s)
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    empty = np.isneginf(s).all(-1, keepdims=True)
    s = np.where(empty, 0.0, s)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = np.where(empty, 0.0, e / e.sum(-1, keepdims=True))
    lse = np.where(empty[..., 0], -np.inf, np.log(e.sum(-1)) + s.max(-1))
    return w @ v, lse


def test_package_keeps_sdpa_kernel():
    assert int(SDPBackend.MATH) == 0 and SDPBackend.MATH != 0  # an enum, no int (as torch's)
    with sdpa_kernel(SDPBackend.MATH):
        assert minitorch.backends.cuda.math_sdp_enabled()


def test_causal_bias_materialize_and_repr():
    assert [int(v) for v in attn_bias.CausalVariant] == [1, 2]
    lower = attn_bias.causal_lower_right(2, 3)
    upper = attn_bias.causal_upper_left(2, 3)
    assert (lower.variant, lower.seq_len_q, lower.seq_len_kv) == (2, 2, 3)
    np.testing.assert_array_equal(lower._materialize().numpy(), [[1, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(upper.to_dense().numpy(), [[1, 0, 0], [1, 1, 0]])
    assert lower._materialize().dtype is minitorch.bool
    assert repr(lower) == repr(minitorch.tensor([[True, True, False], [True, True, True]]))
    with pytest.raises(AssertionError, match="causal_lower_right only supports 2D"):
        attn_bias.causal_lower_right(2)
    with pytest.raises(AssertionError, match="variant must be a CausalVariant"):
        attn_bias.CausalBias(1, 2, 3)
    with pytest.warns(UserWarning, match="Lower right causal bias will produce NaNs"):
        attn_bias.causal_lower_right(3, 2)


def test_sdpa_with_causal_lower_right_kv_cache_values():
    # two new queries against a cache of three keys: query 0 sees keys 0-1, query 1 all three
    q = minitorch.ones(1, 1, 2, 4)
    k = v = minitorch.arange(12.0).reshape(1, 1, 3, 4)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias.causal_lower_right(2, 3))
    keep = np.array([[True, True, False], [True, True, True]])
    kn = np.arange(12.0).reshape(1, 1, 3, 4)
    expected, _ = _np_attention(np.ones((1, 1, 2, 4)), kn, kn, keep=keep)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, err_msg="lower right")
    np.testing.assert_allclose(out.numpy()[0, 0, 0], [3.998659, 4.998659, 5.998659, 6.998659], 1e-6)
    # upper left is is_causal=True
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias.causal_upper_left(2, 3))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), err_msg="upper left")
    with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
        F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_bias.causal_upper_left(2, 3), is_causal=True
        )


def test_sdpa_with_causal_bias_gradients():
    rng = np.random.default_rng(0)
    q = _t(rng.standard_normal((1, 2, 3, 4)), grad=True)
    k = _t(rng.standard_normal((1, 2, 5, 4)), grad=True)
    v = _t(rng.standard_normal((1, 2, 5, 3)), grad=True)
    mask = attn_bias.causal_lower_right(3, 5)

    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))


def test_flex_attention_matches_reference_with_mods_gqa_and_empty_rows():
    rng = np.random.default_rng(1)
    qn, kn, vn = (rng.standard_normal(s) for s in [(2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)])
    table = rng.standard_normal(4)
    tab = _t(table)

    def score_mod(s, b, h, i, j):
        return s * 0.5 + tab[h] - (i - j).abs() + b

    def mask_mod(b, h, i, j):  # head 1 keeps nothing outside batch 1's first query
        return (j <= i + 1) & (h != 1) | (b == 1) & (i == 0)

    bm = fa.create_block_mask(mask_mod, 2, 4, 3, 5, device="cpu")
    out, lse = fa.flex_attention(
        _t(qn), _t(kn), _t(vn), score_mod, bm, scale=0.7, enable_gqa=True, return_lse=True
    )
    b, h, i, j = np.ogrid[:2, :4, :3, :5]
    keep = ((j <= i + 1) & (h != 1)) | ((b == 1) & (i == 0))
    expected, expected_lse = _np_attention(
        qn,
        np.repeat(kn, 2, 1),
        np.repeat(vn, 2, 1),
        scores_fn=lambda s: s * 0.5 + table[h] - np.abs(i - j) + b,
        keep=keep,
        scale=0.7,
    )
    assert np.isneginf(expected_lse).sum() == 5  # the test covers fully masked rows
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10, atol=1e-12, err_msg="out")
    np.testing.assert_allclose(lse.numpy(), expected_lse, rtol=1e-10, err_msg="lse")
    assert out.dtype is minitorch.float64 and lse.shape == (2, 4, 3)
    # low precision: scores in float32, output in the query's dtype, lse float32
    out16, lse16 = fa.flex_attention(
        _t(qn).half(), _t(kn).half(), _t(vn).half(), block_mask=bm, enable_gqa=True, return_lse=True
    )
    assert (out16.dtype, lse16.dtype) == (minitorch.float16, minitorch.float32)


def test_flex_attention_gradients():
    rng = np.random.default_rng(2)
    q = _t(rng.standard_normal((1, 2, 3, 4)), grad=True)
    k = _t(rng.standard_normal((1, 2, 5, 4)), grad=True)
    v = _t(rng.standard_normal((1, 2, 5, 4)), grad=True)
    table = _t(rng.standard_normal(9), grad=True)
    bm = fa.create_block_mask(lambda b, h, i, j: (j <= i + 1) & (i != 0), None, None, 3, 5)

    def fn(q, k, v, table):
        return fa.flex_attention(q, k, v, lambda s, b, h, i, j: s + table[i - j + 4], bm, scale=0.3)

    assert gradcheck(fn, (q, k, v, table))
    assert gradgradcheck(fn, (q, k, v, table))
    out = fn(q, k, v, table)
    out.backward(minitorch.ones_like(out))
    assert np.isfinite(q.grad.numpy()).all()
    np.testing.assert_array_equal(q.grad.numpy()[:, :, 0], 0.0)  # the fully masked row


def test_flex_attention_without_mods_is_sdpa():
    rng = np.random.default_rng(3)
    q, k, v = (_t(rng.standard_normal(s)) for s in [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 2)])
    np.testing.assert_allclose(
        fa.flex_attention(q, k, v).numpy(),
        F.scaled_dot_product_attention(q, k, v).numpy(),
        rtol=1e-12,
    )
    causal = fa.create_block_mask(lambda b, h, i, j: i >= j, None, None, 3, 5)
    np.testing.assert_allclose(
        fa.flex_attention(q, k, v, block_mask=causal).numpy(),
        F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy(),
        rtol=1e-12,
    )


def test_flex_attention_errors():
    q, k, v = minitorch.zeros(1, 4, 3, 4), minitorch.zeros(1, 2, 5, 4), minitorch.zeros(1, 2, 5, 4)
    with pytest.raises(ValueError, match="same number of heads but got Hq=4 and Hkv=2"):
        fa.flex_attention(q, k, v)
    with pytest.raises(ValueError, match="same embedding dimension but got E=4 and E=3"):
        fa.flex_attention(q, k[..., :3], v, enable_gqa=True)
    with pytest.raises(NotImplementedError, match="must be 4D tensors"):
        fa.flex_attention(q[0], k[0], v[0])
    with pytest.raises(ValueError, match="multiple of kv heads for GQA but got Hq=3 and Hkv=2"):
        fa.flex_attention(q[:, :3], k, v, enable_gqa=True)
    for q_len in (2, 4):
        bm = fa.create_block_mask(fa.noop_mask, None, None, q_len, 5)
        with pytest.raises(ValueError, match=r"block_mask was created for .*\(1, 1, \d, 5\)"):
            fa.flex_attention(q, k, v, block_mask=bm, enable_gqa=True)
    with pytest.raises(RuntimeError, match="All inputs should be callable mask_mods"):
        fa.and_masks(1)


def test_masks_and_block_mask():
    def causal(b, h, i, j):
        return i >= j

    def first_key(b, h, i, j):
        return j == 0

    both = fa.create_mask(fa.and_masks(causal, fa.noop_mask), 2, None, 2, 3)
    either = fa.create_mask(fa.or_masks(causal, first_key), None, None, 2, 3)
    from_score_mod = fa.create_mask(
        lambda s, b, h, i, j: minitorch.where(i >= j, s, float("-inf")), None, None, 2, 3
    )
    lower = [[1, 0, 0], [1, 1, 0]]
    assert both.shape == (2, 1, 2, 3) and both.dtype is minitorch.bool
    np.testing.assert_array_equal(both.numpy(), [[lower], [lower]])
    np.testing.assert_array_equal(either.numpy()[0, 0], lower)
    np.testing.assert_array_equal(from_score_mod.numpy()[0, 0], lower)
    bm = fa.create_block_mask(lambda b, h, i, j: (j < 64) | (i < 64), 1, 2, 130, 100, BLOCK_SIZE=64)
    assert (bm.shape, bm.seq_lengths, bm.BLOCK_SIZE) == ((1, 2, 130, 100), (130, 100), (64, 64))
    assert bm.to_dense().dtype is minitorch.int32
    np.testing.assert_array_equal(bm.to_dense().numpy()[0, 1], [[1, 1], [1, 0], [1, 0]])
    assert repr(bm) == "BlockMask(shape=(1, 2, 130, 100), BLOCK_SIZE=(64, 64), mask_mod=<lambda>)"
