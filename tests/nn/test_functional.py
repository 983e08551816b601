"""nn.functional beyond activations and losses: linear, pad, embedding, one_hot, distances,
dropout, scaled_dot_product_attention, and the Dropout/Embedding/distance modules; values
against NumPy, float64 gradients, and no host reads on the strict device."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def _t(a, device="cpu", grad=False, dtype=None):
    return minitorch.tensor(np.asarray(a), device=device, dtype=dtype, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


# --- linear ---


def test_linear_matches_numpy_and_linear_module_uses_it(device):
    x, w, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(5, 4)), RNG.normal(size=5)
    out = F.linear(_t(x, device), _t(w, device), _t(b, device))
    np.testing.assert_allclose(_np(out), x @ w.T + b, rtol=1e-12)
    x2 = _t(x[0], grad=True)
    assert gradcheck(F.linear, (x2, _t(w, grad=True), _t(b, grad=True)))
    assert gradgradcheck(F.linear, (x2, _t(w, grad=True), _t(b, grad=True)))
    layer = nn.Linear(4, 5).double()
    np.testing.assert_allclose(_np(layer(_t(x))), x @ _np(layer.weight).T + _np(layer.bias))
    with pytest.raises(
        RuntimeError,
        match=r"mat1 and mat2 shapes cannot be multiplied \(6x4 and "
        r"3x5\)",
    ):
        F.linear(_t(x), _t(w[:, :3]))


def test_bilinear_matches_numpy():
    x1, x2 = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 2))
    w, b = RNG.normal(size=(5, 4, 2)), RNG.normal(size=5)
    out = F.bilinear(_t(x1), _t(x2), _t(w), _t(b))
    np.testing.assert_allclose(_np(out), np.einsum("ni,oij,nj->no", x1, w, x2) + b, rtol=1e-12)


# --- pad ---


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_match_numpy(mode, device):
    x = RNG.normal(size=(2, 3, 4, 5))
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    with count_transfers() as transfers:
        out = F.pad(_t(x, device), (1, 2, 3, 1), mode=mode)
    if device == "strict":
        assert transfers.count == 0
    want = np.pad(x, ((0, 0), (0, 0), (3, 1), (1, 2)), mode=np_mode)
    np.testing.assert_allclose(_np(out), want)


def test_pad_constant_any_number_of_dims():
    x = RNG.normal(size=(2, 3, 4))
    out = F.pad(_t(x), (1, 1, 0, 2, 1, 0), value=-1.5)
    np.testing.assert_allclose(_np(out), np.pad(x, ((1, 0), (0, 2), (1, 1)), constant_values=-1.5))
    np.testing.assert_allclose(
        _np(F.pad(_t(x), (-1, 1))), np.pad(x[..., 1:], ((0, 0), (0, 0), (0, 1)))
    )
    assert F.pad(_t([1, 2]), (1, 0), value=2.7).tolist() == [2, 1, 2]


@pytest.mark.parametrize(
    "mode, pad",
    [
        ("constant", (1, -1, 2, 0)),
        ("reflect", (2, 1)),
        ("replicate", (2, 3, 1, 0)),
        ("circular", (1, 2)),
    ],
)
def test_pad_gradients(mode, pad):
    x = _t(RNG.normal(size=(1, 2, 3, 4)[4 - len(pad) // 2 - 2 :]), grad=True)
    fn = lambda x: F.pad(x, pad, mode=mode)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# --- embedding, embedding_bag, one_hot ---


def test_embedding_module_padding_idx_gets_no_gradient(device):
    emb = nn.Embedding(5, 3, padding_idx=1).double().to(device)
    np.testing.assert_array_equal(_np(emb.weight)[1], [0, 0, 0])
    idx = _t([[0, 1, 1], [4, 1, 0]], device)
    with count_transfers() as transfers:
        out = emb(idx)
        out.sum().backward()
    if device == "strict":
        assert transfers.count == 0
    assert out.shape == (2, 3, 3)
    np.testing.assert_allclose(_np(out), _np(emb.weight)[_np(idx)])
    np.testing.assert_array_equal(_np(emb.weight.grad)[:, 0], [2, 0, 0, 0, 1])


def test_embedding_scale_grad_by_freq_and_gradcheck():
    w = _t(RNG.normal(size=(5, 3)), grad=True)
    idx = _t([0, 0, 0, 2, 4, 4])
    F.embedding(idx, w, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(_np(w.grad)[:, 0], [1, 0, 1, 0, 1])
    # (padding_idx and scale_grad_by_freq change the gradient on purpose: no gradcheck of them)
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert gradgradcheck(lambda w: F.embedding(idx, w), (w,))


def test_embedding_max_norm_renormalises_in_place():
    w = _t(RNG.normal(size=(5, 3)) * 3)
    before = _np(w).copy()
    F.embedding(_t([0, 2, 2]), w, max_norm=1.0)
    norms = np.linalg.norm(_np(w), axis=1)
    assert np.all(norms[[0, 2]] <= 1.0 + 1e-6)
    np.testing.assert_array_equal(_np(w)[[1, 3, 4]], before[[1, 3, 4]])


def test_embedding_from_pretrained_and_repr():
    w = _t(RNG.normal(size=(4, 3)))
    emb = nn.Embedding.from_pretrained(w)
    assert emb.weight.requires_grad is False and repr(emb) == "Embedding(4, 3)"
    emb = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=-1, max_norm=2.0)
    assert emb.weight.requires_grad and repr(emb) == "Embedding(4, 3, padding_idx=3, max_norm=2.0)"
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dim"):
        nn.Embedding.from_pretrained(_t([1.0, 2.0]))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 3, padding_idx=7)
    assert repr(nn.EmbeddingBag(5, 3, mode="max", padding_idx=1)) == (
        "EmbeddingBag(5, 3, mode='max', padding_idx=1)"
    )


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_numpy(mode, device):
    w = RNG.normal(size=(6, 3))
    idx = np.array([0, 2, 2, 5, 1, 3, 4])
    offsets = [0, 3, 3, 5]
    bag = nn.EmbeddingBag.from_pretrained(_t(w, device), mode=mode, freeze=False)
    with count_transfers() as transfers:
        out = bag(_t(idx, device), _t(offsets, device))
    if device == "strict":
        assert transfers.count == 0
    red = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    bounds = offsets + [len(idx)]
    spans = zip(bounds, bounds[1:], strict=False)
    want = [red(w[idx[a:b]], axis=0) if b > a else np.zeros(3) for a, b in spans]
    np.testing.assert_allclose(_np(out), np.array(want), rtol=1e-12)
    assert gradcheck(
        lambda w: F.embedding_bag(_t(idx), w, _t(offsets), mode=mode), (_t(w, grad=True),)
    )


def test_one_hot():
    out = F.one_hot(_t([[0, 2], [1, 3]]), 5)
    assert out.dtype is minitorch.int64 and out.shape == (2, 2, 5)
    np.testing.assert_array_equal(_np(out), np.eye(5, dtype=int)[[[0, 2], [1, 3]]])
    assert F.one_hot(_t([0, 2])).shape == (2, 3)
    with count_transfers() as transfers:
        F.one_hot(_t([0, 2], "strict"), 3)
    assert transfers.count == 0
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(_t([0, 3]), 3)


# --- distances ---


def test_distances_match_numpy(device):
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    cos = F.cosine_similarity(_t(a, device), _t(b, device))
    want = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(_np(cos), want, rtol=1e-12)
    d = nn.PairwiseDistance(p=1.0)(_t(a, device), _t(b, device))
    np.testing.assert_allclose(_np(d), np.abs(a - b + 1e-6).sum(1), rtol=1e-12)
    np.testing.assert_allclose(
        _np(nn.CosineSimilarity(0)(_t(a), _t(b))),
        (a * b).sum(0) / np.linalg.norm(a, axis=0) / np.linalg.norm(b, axis=0),
        rtol=1e-12,
    )
    n = F.normalize(_t(a, device), dim=1)
    np.testing.assert_allclose(_np(n), a / np.linalg.norm(a, axis=1, keepdims=True))
    pd = F.pdist(_t(a))
    want = [np.linalg.norm(a[i] - a[j]) for i in range(4) for j in range(i + 1, 4)]
    np.testing.assert_allclose(_np(pd), want, rtol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: F.cosine_similarity(a, b, dim=1),
        lambda a, b: F.pairwise_distance(a, b, p=3.0),
        lambda a, b: F.normalize(a - b, p=2.0, dim=0),
        lambda a, b: F.pdist(a),
    ],
    ids=["cosine", "pairwise", "normalize", "pdist"],
)
def test_distance_gradients(fn):
    a = _t(RNG.normal(size=(4, 3)), grad=True)
    b = _t(RNG.normal(size=(4, 3)), grad=True)
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


# --- dropout ---


def test_dropout_statistics_and_scaling(device):
    x = minitorch.ones(200, 100, device=device, dtype=minitorch.float64)
    with count_transfers() as transfers:
        y = F.dropout(x, 0.3)
    if device == "strict":
        assert transfers.count == 0
    v = _np(y)
    assert set(np.unique(v)) <= {0.0, 1 / 0.7}
    assert abs((v == 0).mean() - 0.3) < 0.02
    assert F.dropout(x, 0.3, training=False) is x
    assert float(F.dropout(x, 1.0).abs().sum()) == 0


def test_dropout_is_reproducible_with_manual_seed():
    x = minitorch.ones(50)
    minitorch.manual_seed(3)
    a = _np(F.dropout(x, 0.5))
    minitorch.manual_seed(3)
    np.testing.assert_array_equal(_np(F.dropout(x, 0.5)), a)


def test_dropout_modules():
    x = minitorch.ones(8, 16, 5, 5)
    m = nn.Dropout2d(0.5)
    y = _np(m(x))
    per_channel = y.reshape(8, 16, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert m.eval()(x) is x
    assert repr(nn.Dropout(0.2, True)) == "Dropout(p=0.2, inplace=True)"
    y = _np(nn.Dropout1d(0.5)(minitorch.ones(6, 7)))  # unbatched (C, L)
    assert np.all((y == 0).all(-1) | (y == 2.0).all(-1))
    z = minitorch.ones(4, 3)
    out = nn.Dropout(0.5, inplace=True)(z)
    assert out is z and set(np.unique(_np(z))) <= {0.0, 2.0}
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        nn.Dropout(1.5)


def test_alpha_dropout_keeps_mean_and_variance():
    x = minitorch.randn(200000, dtype=minitorch.float64)
    y = _np(nn.AlphaDropout(0.2)(x))
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    assert nn.AlphaDropout(0.2).eval()(x) is x


def test_dropout_gradient_uses_the_same_mask():
    x = _t(np.ones((10, 10)), grad=True)
    y = F.dropout(x, 0.4)
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), _np(y))


# --- attention ---


def _sdpa_numpy(q, k, v, mask=None, causal=False):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


def test_scaled_dot_product_attention_matches_numpy(device):
    q, k, v = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 5, 4)), RNG.normal(size=(2, 5, 6))
    mask = RNG.random((3, 5)) < 0.7
    mask[:, 0] = True
    fmask = RNG.normal(size=(3, 5))
    with count_transfers() as transfers:
        outs = [
            F.scaled_dot_product_attention(_t(q, device), _t(k, device), _t(v, device)),
            F.scaled_dot_product_attention(
                _t(q, device), _t(k, device), _t(v, device), attn_mask=_t(mask, device)
            ),
            F.scaled_dot_product_attention(
                _t(q, device), _t(k, device), _t(v, device), attn_mask=_t(fmask, device)
            ),
        ]
    if device == "strict":
        assert transfers.count == 0
    for out, m in zip(outs, [None, mask, fmask], strict=True):
        np.testing.assert_allclose(_np(out), _sdpa_numpy(q, k, v, m), rtol=1e-10)
    q4 = RNG.normal(size=(1, 4, 4))
    out = F.scaled_dot_product_attention(_t(q4), _t(q4), _t(q4), is_causal=True)
    np.testing.assert_allclose(_np(out), _sdpa_numpy(q4, q4, q4, causal=True), rtol=1e-10)


def test_scaled_dot_product_attention_gradients_and_dropout():
    q, k, v = (_t(RNG.normal(size=s), grad=True) for s in [(2, 3, 4), (2, 5, 4), (2, 5, 2)])
    mask = _t(RNG.random((3, 5)) < 0.7)

    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.7)

    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert out.shape == (2, 3, 2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sdpa_of_half_inputs_takes_a_float32_additive_mask(dtype):
    # a mask built with zeros(L, L).masked_fill(...) (float32) for a .half() model: torch
    # accepts it; it raised "expected scalar type Float but found Half"
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    dt = getattr(minitorch, dtype)
    q = minitorch.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 8)))
    mask = minitorch.zeros(4, 4).masked_fill(
        minitorch.ones(4, 4, dtype=minitorch.bool).triu(1), -1e4
    )
    out = F.scaled_dot_product_attention(q.to(dt), q.to(dt), q.to(dt), attn_mask=mask)
    assert out.dtype is dt
    # torch's CPU flash kernel: float32 from the half values, exp(s - rowmax) rounded to the
    # half dtype for its product with value, scaled by 1 / (its unrounded sum), rounded
    h = q.to(dt).float()
    s = h @ h.transpose(-2, -1) / 8**0.5 + mask
    num = (s - s.amax(-1, keepdim=True)).exp()
    want = ((num.to(dt).float() @ h) * (1 / num.sum(-1, keepdim=True))).to(dt)
    assert out.tolist() == want.tolist()


def test_sdpa_applies_an_explicit_mask_and_is_causal_together_on_4d_inputs():
    # torch 2.13's CPU kernel: both masks apply (a padding mask and the causal one)
    rng = np.random.default_rng(0)
    q = minitorch.tensor(rng.standard_normal((1, 1, 3, 2)), dtype=minitorch.float32)
    pad = minitorch.tensor([[True, False, True]] * 3)
    out = F.scaled_dot_product_attention(q, q, q, attn_mask=pad, is_causal=True)
    keep = pad & minitorch.ones(3, 3, dtype=minitorch.bool).tril()
    scores = (q @ q.transpose(-1, -2) / 2**0.5).masked_fill(~keep, float("-inf"))
    np.testing.assert_allclose(out.numpy(), (scores.softmax(-1) @ q).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        F.scaled_dot_product_attention(q[0], q[0], q[0], attn_mask=pad, is_causal=True)  # 3-D
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        # a value head dim other than the query's: torch's math path refuses the pair too
        F.scaled_dot_product_attention(q, q, q[..., :1], attn_mask=pad, is_causal=True)
    assert minitorch.legacy_contiguous_format is minitorch.contiguous_format


def test_sdpa_refuses_a_one_dimensional_mask_as_torch():
    q = minitorch.ones(1, 1, 2, 4)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=minitorch.ones(2, dtype=minitorch.bool))


def test_sdpa_gqa_heads_must_divide():
    q, kv = minitorch.zeros(2, 3, 4, 8), minitorch.zeros(2, 2, 4, 8)
    with pytest.raises(RuntimeError, match="must divide the number of heads in $"):
        F.scaled_dot_product_attention(q, kv, kv, enable_gqa=True)
