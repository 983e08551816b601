"""Session 23, rnnatt: a seeded slice of the differential fuzzer of recurrent and attention
layers. Each case builds the same layer in torch and minitorch (weights copied through the state
dict), runs the same float64 inputs (padded, packed, unbatched; masks of every kind) and compares
outputs, hidden states and the gradients of inputs, initial states and weights, or the exception
type and message."""

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _np(x):
    return None if x is None else np.array(x.detach().numpy())


def _run(fn, lib, case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", fn(lib, case)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return "err", (type(e).__name__, str(e))


def _check(fn, case):
    kt, rt = _run(fn, torch, case)
    km, rm = _run(fn, minitorch, case)
    assert kt == km, (case, rt, rm)
    if kt == "err":
        assert rt == rm, case
        return
    assert rt.keys() == rm.keys(), case
    for key, a in rt.items():
        b = rm[key]
        if a is None or b is None:
            assert a is None and b is None, (key, case)
            continue
        assert a.shape == b.shape, (key, case)
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10, err_msg=f"{key} {case}")


def _loss_and_grads(lib, outs, leaves, module, seed):
    g = np.random.default_rng(seed)
    res = {f"out{i}": _np(o) for i, o in enumerate(outs)}
    loss = 0
    for o in outs:
        w = g.standard_normal(tuple(o.shape))
        w[~np.isfinite(_np(o))] = 0
        loss = loss + (o * lib.tensor(w, dtype=o.dtype)).nan_to_num().sum()
    loss.backward()
    res.update({"g_" + k: _np(v.grad) for k, v in leaves.items()})
    if module is not None:
        res.update({"g_" + k: _np(p.grad) for k, p in module.named_parameters()})
    return res


# --- recurrent layers ---


def _rnn_case(seed):
    r = np.random.default_rng(seed)
    kind = str(r.choice(["RNN_tanh", "RNN_relu", "LSTM", "GRU"]))
    c = {"seed": seed, "kind": kind, "I": int(r.integers(1, 4)), "H": int(r.integers(2, 5))}
    c.update(
        layers=int(r.integers(1, 4)),
        bias=bool(r.random() < 0.7),
        bf=bool(r.random() < 0.5),
        bidir=bool(r.random() < 0.5),
        dropout=float(r.choice([0.0, 0.4])),
    )
    c["proj"] = int(r.integers(1, c["H"])) if kind == "LSTM" and r.random() < 0.4 else 0
    L, N = int(r.integers(1, 4)), int(r.integers(1, 4))
    c["form"] = form = str(r.choice(["batched", "unbatched", "packed"]))
    D = (2 if c["bidir"] else 1) * c["layers"]
    Hr = c["proj"] or c["H"]
    if form == "unbatched":
        c["x"] = r.standard_normal((L, c["I"]))
        hs, cs = (D, Hr), (D, c["H"])
    else:
        c["x"] = r.standard_normal((N, L, c["I"]) if c["bf"] else (L, N, c["I"]))
        hs, cs = (D, N, Hr), (D, N, c["H"])
        lengths = [int(v) for v in r.integers(1, L + 1, size=N)]
        c["sorted"] = bool(r.random() < 0.4)
        c["lengths"] = sorted(lengths, reverse=True) if c["sorted"] else lengths
        c["total"] = None if r.random() < 0.6 else L + int(r.integers(0, 2))
        c["padval"] = float(r.choice([0.0, -1.5]))
    c["h_given"] = bool(r.random() < 0.6)
    if form != "packed" and r.random() < 0.1:  # a wrong shape: torch's message
        hs = (hs[0] + 1, *hs[1:])
    c["h0"], c["c0"] = r.standard_normal(hs), r.standard_normal(cs)
    return c


def _rnn(lib, c):
    kw = dict(num_layers=c["layers"], bias=c["bias"], batch_first=c["bf"], dtype=lib.float64)
    kw.update(dropout=c["dropout"], bidirectional=c["bidir"])
    lib.manual_seed(0)
    if c["kind"].startswith("RNN"):
        m = lib.nn.RNN(c["I"], c["H"], nonlinearity=c["kind"][4:], **kw)
    elif c["kind"] == "LSTM":
        m = lib.nn.LSTM(c["I"], c["H"], proj_size=c["proj"], **kw)
    else:
        m = lib.nn.GRU(c["I"], c["H"], **kw)
    g = np.random.default_rng(c["seed"] + 7)
    m.load_state_dict({k: lib.tensor(g.uniform(-0.6, 0.6, tuple(v.shape))) for k, v in
                       m.state_dict().items()})  # fmt: skip
    m.eval()
    x = lib.tensor(c["x"], requires_grad=True)
    leaves = {"x": x}
    inp = x
    U = lib.nn.utils.rnn
    if c["form"] == "packed":
        inp = U.pack_padded_sequence(
            x, c["lengths"], batch_first=c["bf"], enforce_sorted=c["sorted"]
        )
    hx = None
    if c["h_given"]:
        leaves["h0"] = hx = lib.tensor(c["h0"], requires_grad=True)
        if c["kind"] == "LSTM":
            leaves["c0"] = lib.tensor(c["c0"], requires_grad=True)
            hx = (leaves["h0"], leaves["c0"])
    out, hn = m(inp, hx)
    hs = list(hn) if isinstance(hn, tuple) else [hn]
    if c["form"] == "packed":
        out, _ = U.pad_packed_sequence(
            out, batch_first=c["bf"], padding_value=c["padval"], total_length=c["total"]
        )
    return _loss_and_grads(lib, [out, *hs], leaves, m, c["seed"])


@pytest.mark.parametrize("seed", range(60))
def test_recurrent_layers_match_torch(seed):
    _check(_rnn, _rnn_case(seed))


# --- attention ---


def _mask(r, shape, kind):
    if kind == "bool":
        m = r.random(shape) < 0.3
        m[..., 0] = r.random() < 0.15  # now and then a row with every key masked
        return m
    m = r.standard_normal(shape)
    m[r.random(shape) < 0.2] = -np.inf
    m[..., 0] = 0.0
    return m


def _mha_case(seed):
    r = np.random.default_rng(seed)
    nh, hd = int(r.integers(1, 4)), int(r.integers(1, 3))
    E = nh * hd
    c = {"seed": seed, "nh": nh, "E": E, "bf": bool(r.random() < 0.5)}
    c["kdim"] = E if r.random() < 0.6 else int(r.integers(1, 4))
    c["vdim"] = c["kdim"] if r.random() < 0.6 else int(r.integers(1, 4))
    c.update(bias=bool(r.random() < 0.7), bkv=bool(r.random() < 0.3), za=bool(r.random() < 0.3))
    c["self"] = c["kdim"] == E == c["vdim"] and r.random() < 0.3
    c["unb"] = unb = bool(r.random() < 0.25)
    N, L, S = (int(v) for v in r.integers(1, 4, size=3))
    S = L if c["self"] else S

    def shp(n, t, e):
        return (t, e) if unb else ((n, t, e) if c["bf"] else (t, n, e))

    c["q"], c["k"] = r.standard_normal(shp(N, L, E)), r.standard_normal(shp(N, S, c["kdim"]))
    c["v"] = r.standard_normal(shp(N, S, c["vdim"]))
    am = str(r.choice(["none", "bool2", "float2", "bool3", "float3"]))
    if am != "none":
        shape = (L, S) if am.endswith("2") else ((nh if unb else N * nh), L, S)
        c["am"] = _mask(r, shape, am[:-1])
    kp = str(r.choice(["none", "bool", "float"]))
    if kp != "none":
        c["kp"] = _mask(r, (S,) if unb else (N, S), kp)
    c.update(need=bool(r.random() < 0.6), avg=bool(r.random() < 0.5))
    c["causal"] = bool(r.random() < 0.2) and L == S
    if c["causal"]:
        c["am"] = np.triu(np.ones((L, S), bool), 1)
    return c


def _mha(lib, c):
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(
        c["E"], c["nh"], bias=c["bias"], add_bias_kv=c["bkv"], add_zero_attn=c["za"],
        kdim=c["kdim"], vdim=c["vdim"], batch_first=c["bf"], dtype=lib.float64,
    )  # fmt: skip
    g = np.random.default_rng(c["seed"] + 7)
    m.load_state_dict({k: lib.tensor(g.uniform(-0.6, 0.6, tuple(v.shape))) for k, v in
                       m.state_dict().items()})  # fmt: skip
    q = lib.tensor(c["q"], requires_grad=True)
    k, v = (q, q) if c["self"] else (lib.tensor(c[n], requires_grad=True) for n in "kv")
    mask = {n: lib.tensor(c[n]) for n in ("am", "kp") if n in c}
    out, w = m(
        q, k, v, key_padding_mask=mask.get("kp"), need_weights=c["need"],
        attn_mask=mask.get("am"), average_attn_weights=c["avg"], is_causal=c["causal"],
    )  # fmt: skip
    outs = [out] if w is None else [out, w]
    return _loss_and_grads(lib, outs, {"q": q, "k": k, "v": v}, m, c["seed"])


@pytest.mark.parametrize("seed", range(80))
def test_multihead_attention_matches_torch(seed):
    _check(_mha, _mha_case(seed))


def _sdpa_case(seed):
    r = np.random.default_rng(seed)
    nb = int(r.integers(0, 3))
    batch = tuple(int(v) for v in r.integers(1, 3, size=nb))
    Hk = int(r.integers(1, 3))
    gqa = nb > 0 and r.random() < 0.25
    Hq = Hk * int(r.integers(1, 3)) if gqa else Hk
    L, S, E, Ev = (int(v) for v in r.integers(1, 4, size=4))
    head = ((Hq,), (Hk,)) if nb else ((), ())
    c = {"seed": seed, "gqa": bool(gqa), "causal": bool(r.random() < 0.3)}
    c["q"] = r.standard_normal((*batch[:-1], *head[0], L, E) if nb else (L, E))
    c["k"] = r.standard_normal((*batch[:-1], *head[1], S, E) if nb else (S, E))
    c["v"] = r.standard_normal((*batch[:-1], *head[1], S, Ev) if nb else (S, Ev))
    kind = str(r.choice(["none", "bool", "float"]))
    if kind != "none":
        full = (*c["q"].shape[:-1], S)
        nd = int(r.integers(0, len(full) + 1))  # 0-d and 1-d masks included
        c["mask"] = _mask(r, tuple(d if r.random() < 0.6 else 1 for d in full[len(full) - nd :]),
                          kind) if nd else np.array(kind == "bool" or -0.5)  # fmt: skip
    c["scale"] = None if r.random() < 0.6 else float(r.uniform(0.1, 2))
    return c


def _sdpa(lib, c):
    q, k, v = (lib.tensor(c[n], requires_grad=True) for n in "qkv")
    mask = lib.tensor(c["mask"]) if "mask" in c else None
    kw = {"enable_gqa": True} if c["gqa"] else {}
    out = lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, is_causal=c["causal"], scale=c["scale"], **kw
    )
    return _loss_and_grads(lib, [out], {"q": q, "k": k, "v": v}, None, c["seed"])


@pytest.mark.parametrize("seed", range(80))
def test_scaled_dot_product_attention_matches_torch(seed):
    _check(_sdpa, _sdpa_case(seed))
