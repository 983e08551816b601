"""MultiheadAttention and the transformer layers against torch: torch's state dict loads, and the
same inputs and masks give the same outputs, attention weights, gradients and reprs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _load(tm, mm):
    mm.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})


def _close(a, b, what):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.shape == b.shape, f"{what}: shape {a.shape}, torch {b.shape}"
    np.testing.assert_allclose(a, b, atol=1e-10, err_msg=what)


def _t(lib, a, grad=False):
    return None if a is None else lib.tensor(a, requires_grad=grad)


MHA_CASES = [
    (dict(), dict(), "self", None),
    (dict(), dict(need_weights=False), "self", "float"),
    (dict(batch_first=True), dict(average_attn_weights=False), "self", "bool"),
    (dict(kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True), dict(), "cross", None),
    (dict(bias=False), dict(kpm=True), "cross", "bool"),
    (dict(), dict(kpm=True, need_weights=False), "self", "float"),
    (dict(), dict(is_causal=True, need_weights=False), "self", "causal"),
    (dict(), dict(unbatched=True), "self", "bool_safe"),
]


@pytest.mark.parametrize("ck, fk, kind, mask", MHA_CASES, ids=lambda c: str(c))
def test_multihead_attention_matches_torch(ck, fk, kind, mask):
    fk = dict(fk)
    tm = torch.nn.MultiheadAttention(8, 2, **ck).double()
    mm = minitorch.nn.MultiheadAttention(8, 2, **ck).double()
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _load(tm, mm)
    rng = np.random.default_rng(0)
    L, S, N = 3, (3 if kind == "self" else 4), 2
    unbatched = fk.pop("unbatched", False)
    batch_first = ck.get("batch_first", False)

    def shape(n, d):
        return (n, d) if unbatched else ((N, n, d) if batch_first else (n, N, d))

    q = rng.normal(size=shape(L, 8))
    k = rng.normal(size=shape(S, ck.get("kdim", 8)))
    v = rng.normal(size=shape(S, ck.get("vdim", 8)))
    am = {
        None: None,
        "bool": rng.random((L, S)) < 0.3,
        "bool_safe": np.triu(np.ones((L, S), bool), 1),
        "float": rng.normal(size=(L, S)),
        "causal": np.triu(np.full((L, S), -np.inf), 1),
    }[mask]
    kpm = None
    if fk.pop("kpm", False):
        kpm = np.zeros((N, S), bool)
        kpm[1, -1] = True
    res = []
    for lib, m in ((torch, tm), (minitorch, mm)):
        tq = _t(lib, q, True)
        tk, tv = (tq, tq) if kind == "self" else (_t(lib, k, True), _t(lib, v, True))
        out, w = m(tq, tk, tv, attn_mask=_t(lib, am), key_padding_mask=_t(lib, kpm), **fk)
        g = lib.tensor(np.random.default_rng(5).normal(size=tuple(out.shape)))
        (out * g).sum().backward()
        res.append((out, w, tq.grad, [p.grad for p in m.parameters()]))
    (to, tw, tg, tpg), (mo, mw, mg, mpg) = res
    _close(mo, to, "output")
    assert (mw is None) == (tw is None)
    if tw is not None:
        _close(mw, tw, "attention weights")
    _close(mg, tg, "query gradient")
    for (name, _), a, b in zip(mm.named_parameters(), mpg, tpg, strict=True):
        _close(a, b, f"gradient of {name}")


def _build(lib, which, kw):
    nn = lib.nn
    if which == "encoder":
        return nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, **kw), 2, norm=nn.LayerNorm(8)
        )
    if which == "decoder":
        return nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, **kw), 2)
    return nn.Transformer(8, 2, 2, 1, 16, **kw)


STACKS = [
    ("encoder", dict(dropout=0.0)),
    ("encoder", dict(dropout=0.0, norm_first=True, activation="gelu", batch_first=True)),
    ("decoder", dict(dropout=0.0)),
    ("decoder", dict(dropout=0.0, norm_first=True, bias=False)),
    ("transformer", dict(dropout=0.0)),
    ("transformer", dict(dropout=0.0, batch_first=True, norm_first=True)),
]


@pytest.mark.parametrize("which, kw", STACKS, ids=lambda c: str(c))
def test_transformer_stacks_match_torch(which, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, mm = _build(torch, which, kw).double(), _build(minitorch, which, kw).double()
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _load(tm, mm)
    bf = kw.get("batch_first", False)
    rng = np.random.default_rng(1)
    src = rng.normal(size=(2, 5, 8) if bf else (5, 2, 8))
    tgt = rng.normal(size=(2, 4, 8) if bf else (4, 2, 8))
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3:] = True
    res = []
    for lib, m in ((torch, tm), (minitorch, mm)):
        s, t = lib.tensor(src, requires_grad=True), lib.tensor(tgt, requires_grad=True)
        mask4 = lib.nn.Transformer.generate_square_subsequent_mask(4, dtype=lib.float64)
        if which == "encoder":
            mask5 = lib.nn.Transformer.generate_square_subsequent_mask(5, dtype=lib.float64)
            out = m(s, mask=mask5, src_key_padding_mask=lib.tensor(kpm))
        elif which == "decoder":
            out = m(t, s, tgt_mask=mask4, memory_key_padding_mask=lib.tensor(kpm))
        else:
            out = m(
                s,
                t,
                tgt_mask=mask4,
                src_key_padding_mask=lib.tensor(kpm),
                memory_key_padding_mask=lib.tensor(kpm),
            )
        g = lib.tensor(np.random.default_rng(3).normal(size=tuple(out.shape)))
        (out * g).sum().backward()
        res.append((out, s.grad, [p.grad for p in m.parameters()]))
    (to, tg, tpg), (mo, mg, mpg) = res
    _close(mo, to, "output")
    _close(mg, tg, "src gradient")
    for (name, _), a, b in zip(mm.named_parameters(), mpg, tpg, strict=True):
        _close(a, b, f"gradient of {name}")


def test_square_subsequent_mask_matches_torch():
    got = minitorch.nn.Transformer.generate_square_subsequent_mask(4)
    want = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert got.dtype == minitorch.float32
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def _mask_warnings(lib, case):
    nn = lib.nn
    lib.manual_seed(0)
    q = lib.randn(3, 2, 8)
    kpm = lib.zeros(2, 3, dtype=lib.bool)
    float_mask, bool_mask = lib.zeros(3, 3), lib.zeros(3, 3, dtype=lib.bool)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    calls = {
        "mha": lambda: nn.MultiheadAttention(8, 2)(
            q, q, q, key_padding_mask=kpm, attn_mask=float_mask
        ),
        "mha same types": lambda: nn.MultiheadAttention(8, 2)(
            q, q, q, key_padding_mask=kpm, attn_mask=bool_mask
        ),
        "encoder layer": lambda: layer(q, src_mask=float_mask, src_key_padding_mask=kpm),
        "encoder": lambda: nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)(
            q, mask=float_mask, src_key_padding_mask=kpm
        ),
        "decoder layer": lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)(
            q, q, tgt_mask=float_mask, tgt_key_padding_mask=kpm
        ),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calls[case]()
    return [str(w.message) for w in caught if "mismatched" in str(w.message)]


@pytest.mark.parametrize(
    "case", ["mha", "mha same types", "encoder layer", "encoder", "decoder layer"]
)
def test_mismatched_mask_types_warn_as_torch(case):
    assert _mask_warnings(minitorch, case) == _mask_warnings(torch, case)
