"""A seeded random sweep of the attention layers against torch: nn.MultiheadAttention (bias,
add_bias_kv, add_zero_attn, kdim / vdim, batch_first, key_padding_mask and attn_mask bool or
float, 2-d or 3-d, need_weights, average_attn_weights, is_causal with a mask, unbatched inputs),
nn.TransformerEncoderLayer / DecoderLayer / Encoder / Decoder / Transformer (norm_first,
activation by name or callable, layer_norm_eps, bias, batch_first, source / target / memory
masks, generate_square_subsequent_mask) and F.scaled_dot_product_attention (bool or float
masks, is_causal, scale, enable_gqa). Both libraries get the same weights (by state_dict key)
and the same inputs; the records are the state_dict keys and shapes, the outputs, the attention
weights, the gradients of the inputs and of every parameter, and for an invalid call the
exception's type and message. float64 agrees to 1e-10 of each record's scale, float32 to 1e-5."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.reference._programs import Rec, record_diffs, run_program, seeded_randn

torch = pytest.importorskip("torch")


# ----------------------------------------------------------------------------- draws


def _mask(r, shape, kind, *, full=False):
    """A mask of `shape` as a NumPy array: bool (True = masked) or float (0, -inf or random).
    No row of the last dimension is all masked unless `full`, which masks the first row (the
    first batch entry of a 1-d or 2-d padding mask) wholly. A float mask's first column is 0
    (torch's fused encoder path reads a float mask as bool, nonzero masked: a row of nonzeros
    is all masked there, NaN in torch and 0 here, a documented difference)."""
    if kind == "bool":
        m = r_array(r, shape) > 0.6
        m[..., 0] = False
    else:
        m = r_array(r, shape)
        if r.random() < 0.5:
            m = np.where(m > 0.6, -np.inf, m)
        m[..., 0] = 0.0
    if full:
        m[(0,) * (m.ndim - 1)] = True if kind == "bool" else -np.inf
    return m


def r_array(r, shape):
    return np.random.default_rng(r.randrange(1 << 30)).standard_normal(shape)


def mha_case(seed, bad=None):
    """A random MultiheadAttention configuration and call; `bad`: the kind of invalid call."""
    r = random.Random(seed)
    heads = r.choice([1, 2, 4])
    e = heads * r.choice([1, 2, 3])
    c = {
        "kind": "mha",
        "dt": r.choice(["float64", "float64", "float32"]),
        "embed_dim": e,
        "num_heads": heads,
        "bias": r.random() < 0.7,
        "add_bias_kv": r.random() < 0.3,
        "add_zero_attn": r.random() < 0.3,
        "batch_first": r.random() < 0.5,
        "kdim": None,
        "vdim": None,
        "N": r.choice([None, 1, 2, 3]),
        "L": r.choice([1, 2, 4]),
        "S": r.choice([1, 3, 4]),
        "self_attn": r.random() < 0.4,
        "need_weights": r.random() < 0.7,
        "average": r.random() < 0.5,
        "kpm": r.choice([None, "bool", "float"]),
        "am": r.choice([None, "bool", "float"]),
        "am3": r.random() < 0.3,
        "is_causal": r.random() < 0.15,
        "seed": r.randrange(1 << 30),
    }
    if r.random() < 0.3:
        c["kdim"] = r.choice([e, 3, 5])
        c["vdim"] = r.choice([e, 2, 5])
    if c["self_attn"]:
        c["S"] = c["L"]
    if c["kpm"] is not None and c["am"] is not None and r.random() < 0.7:
        c["kpm"] = c["am"]  # mixed mask kinds are a deprecation path; keep them rarer
    c["fast"] = r.random() < 0.3  # eval() under no_grad: torch's fused inference path
    # some rows of the masks all masked: NaN in torch's fused path, 0 here (a documented
    # difference of MultiheadAttention), so only off that path
    c["full"] = not c["fast"] and r.random() < 0.15
    c["kv_same"] = not c["self_attn"] and r.random() < 0.3  # key is value, query apart
    c["mask_grad"] = not c["fast"] and r.random() < 0.3  # float masks that require grad
    c["mask_dt"] = r.random() < 0.1  # float masks of the other float dtype
    if bad is not None:  # an invalid call, with the options it needs
        c["bad"] = bad
        if bad in ("kdim_mismatch", "kv_len"):
            c["self_attn"] = False
        if bad == "causal_nomask":
            c["am"] = None
        if bad in ("mask_shape", "mask3_batch") and c["am"] is None:
            c["am"] = "bool"
        if bad == "mask3_batch":
            c["am3"] = True
        if bad in ("kpm_shape", "mask_dtype") and c["kpm"] is None:
            c["kpm"] = "bool"
    return c


MHA_BAD = [
    "kdim_mismatch",
    "mask_shape",
    "kpm_shape",
    "mask_dtype",
    "heads",
    "causal_nomask",
    "mask3_batch",
    "q_dim",
    "kv_len",
]


def layer_case(seed):
    """A random transformer layer / stack configuration and call."""
    r = random.Random(seed)
    heads = r.choice([1, 2])
    c = {
        "kind": r.choice(["enc_layer", "dec_layer", "encoder", "decoder", "transformer"]),
        "dt": r.choice(["float64", "float64", "float32"]),
        "d_model": heads * r.choice([2, 4]),
        "nhead": heads,
        "ff": r.choice([3, 8]),
        "activation": r.choice(["relu", "gelu", "callable_gelu", "callable_tanh"]),
        "eps": r.choice([1e-5, 1e-3]),
        "norm_first": r.random() < 0.5,
        "bias": r.random() < 0.75,
        "batch_first": r.random() < 0.5,
        "N": r.choice([None, 1, 2]),
        "S": r.choice([1, 3, 4]),
        "T": r.choice([1, 2, 3]),
        "layers": r.choice([1, 2]),
        "final_norm": r.random() < 0.5,
        "src_mask": r.choice([None, "bool", "float", "causal"]),
        "tgt_mask": r.choice([None, "bool", "float", "causal"]),
        "mem_mask": r.choice([None, "bool", "float"]),
        "src_kpm": r.choice([None, "bool"]),
        "tgt_kpm": r.choice([None, "bool"]),
        "mem_kpm": r.choice([None, "bool"]),
        "src_is_causal": r.random() < 0.2,
        "tgt_is_causal": r.random() < 0.2,
        "seed": r.randrange(1 << 30),
    }
    c["fast"] = r.random() < 0.3  # eval() under no_grad: torch's fused inference path
    c["nested"] = r.random() < 0.5  # TransformerEncoder's enable_nested_tensor
    if c["dt"] == "float32" and c["d_model"] == 2:
        c["d_model"] = 4  # a two-wide layer norm turns float32 rounding into 1e-5 gradients
    if r.random() < 0.1:
        c["bad"] = r.choice(["activation", "batch", "d_model", "heads"])
    return c


def sdpa_case(seed):
    r = random.Random(seed)
    hq = r.choice([1, 2, 4])
    gqa = r.random() < 0.3
    hk = r.choice([h for h in (1, 2) if hq % h == 0]) if gqa else hq
    c = {
        "kind": "sdpa",
        "dt": r.choice(["float64", "float64", "float32"]),
        "B": r.choice([None, 1, 2]),
        "Hq": hq,
        "Hk": hk,
        "gqa": gqa,
        "L": r.choice([1, 3, 4]),
        "S": r.choice([1, 3, 4]),
        "E": r.choice([2, 3]),
        "Ev": r.choice([2, 5]),
        "mask": r.choice([None, "bool", "float"]),
        "mask_shape": r.choice(["LS", "1LS", "HLS", "full"]),
        "is_causal": r.random() < 0.3,
        "scale": r.choice([None, None, 0.5, 2.0]),
        "seed": r.randrange(1 << 30),
    }
    c["full"] = r.random() < 0.1
    if c["is_causal"] and c["mask"] is not None and r.random() < 0.7:
        c["mask"] = None  # both is an error; keep it a few cases
    if r.random() < 0.15:
        c["bad"] = r.choice(["mask_dtype", "mask_shape", "qk_dim", "gqa_heads", "no_gqa", "dims"])
    return c


# ----------------------------------------------------------------------------- programs


def _load(lib, mod, dt, seed, rec):
    """Records the state_dict's keys and shapes, then fills it with seeded values."""
    sd = mod.state_dict()
    rec("keys", repr([(k, tuple(v.shape)) for k, v in sd.items()]))
    rng = np.random.default_rng(seed)
    new = {
        k: lib.tensor(rng.standard_normal(tuple(v.shape)) * 0.5, dtype=dt) for k, v in sd.items()
    }
    mod.load_state_dict(new)


def _t(lib, a, dt, grad=False):
    if a is None:
        return None
    if a.dtype == np.bool_:
        return lib.tensor(a)
    return lib.tensor(a, dtype=dt, requires_grad=grad)


def _backward(lib, rec, outs, inputs, params, seed):
    """Backward of a seeded random projection of outs; records the input and parameter grads."""
    rng = np.random.default_rng(seed)
    total = 0
    for o in outs:
        if o is None or not o.requires_grad:
            continue
        w = lib.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype)
        total = total + (o.nan_to_num(0.0) * w).sum()
    if isinstance(total, int):
        return
    total.backward()
    for name, x in inputs:
        if x is not None and x.requires_grad:
            rec("grad " + name, x.grad if x.grad is not None else "None")
    for name, p in params:
        rec("grad " + name, p.grad if p.grad is not None else "None")


def mha_prog(c):
    def prog(lib, dt, rec):
        s = c["seed"]
        r = random.Random(s)
        e, h = c["embed_dim"], c["num_heads"]
        kdim = c["kdim"] if c["kdim"] is not None else e
        vdim = c["vdim"] if c["vdim"] is not None else e
        heads_arg = h + 1 if c.get("bad") == "heads" and e % (h + 1) else h
        mod = rec.err(
            "init",
            lambda: lib.nn.MultiheadAttention(
                e,
                heads_arg,
                bias=c["bias"],
                add_bias_kv=c["add_bias_kv"],
                add_zero_attn=c["add_zero_attn"],
                kdim=c["kdim"],
                vdim=c["vdim"],
                batch_first=c["batch_first"],
                dtype=dt,
            ),
        )
        if mod is None:
            return
        _load(lib, mod, dt, s, rec)
        N, L, S = c["N"], c["L"], c["S"]

        def shape(n, d):
            if N is None:
                return (n, d)
            return (N, n, d) if c["batch_first"] else (n, N, d)

        bad = c.get("bad")
        qe = e + 1 if bad == "q_dim" else e
        grad = not c["fast"]
        q = _t(lib, r_array(r, shape(L, qe)), dt, grad)
        if c["self_attn"]:
            k = v = q
        else:
            kd = kdim + 1 if bad == "kdim_mismatch" else kdim
            k = _t(lib, r_array(r, shape(S, kd)), dt, grad)
            v = _t(lib, r_array(r, shape(S + (bad == "kv_len"), vdim)), dt, grad)
            if c["kv_same"] and kd == vdim and bad != "kv_len":
                v = k
        mdt = dt
        if c["mask_dt"]:
            mdt = lib.float32 if dt == lib.float64 else lib.float64
        kpm = am = None
        if c["kpm"] is not None:
            ks = (S,) if N is None else (N, S)
            if bad == "kpm_shape":
                ks = ks[:-1] + (S + 1,)
            kpm = _t(lib, _mask(r, ks, c["kpm"], full=c["full"]), mdt, c["mask_grad"])
            if bad == "mask_dtype":
                kpm = kpm.long() if c["kpm"] == "bool" else kpm
        if c["am"] is not None:
            ashape = (L, S)
            if c["am3"]:
                ashape = ((N or 1) * h + (bad == "mask3_batch"), L, S)
            if bad == "mask_shape":
                ashape = ashape[:-1] + (S + 2,)
            am = _t(lib, _mask(r, ashape, c["am"], full=c["full"]), mdt, c["mask_grad"])
            if bad == "mask_dtype" and c["kpm"] is None:
                am = am.int()
        is_causal = (c["is_causal"] and am is not None) or (bad == "causal_nomask" and am is None)
        if c["fast"]:
            mod.eval()

        def call():
            with lib.no_grad() if c["fast"] else lib.enable_grad():
                return mod(
                    q,
                    k,
                    v,
                    key_padding_mask=kpm,
                    need_weights=c["need_weights"],
                    attn_mask=am,
                    average_attn_weights=c["average"],
                    is_causal=is_causal,
                )

        out = rec.err("forward", call)
        if out is None:
            return
        o, w = out
        rec("out", o)
        rec("weights", w if w is not None else "None")
        if not c["fast"]:
            _backward(
                lib,
                rec,
                [o, w],
                [("q", q), ("k", k), ("v", v), ("kpm", kpm), ("am", am)],
                list(mod.named_parameters()),
                s + 1,
            )

    return prog


def _act(lib, name):
    if name == "callable_gelu":
        return lib.nn.functional.gelu
    if name == "callable_tanh":
        return lib.tanh
    return name


def layer_prog(c):
    def prog(lib, dt, rec):
        s = c["seed"]
        r = random.Random(s)
        nn = lib.nn
        d, h = c["d_model"], c["nhead"]
        bad = c.get("bad")
        act = "swish" if bad == "activation" else _act(lib, c["activation"])
        h = h + 1 if bad == "heads" else h
        kw = dict(
            dim_feedforward=c["ff"],
            dropout=0.0,
            activation=act,
            layer_norm_eps=c["eps"],
            batch_first=c["batch_first"],
            norm_first=c["norm_first"],
            bias=c["bias"],
            dtype=dt,
        )
        kind = c["kind"]

        def norm():
            if not c["final_norm"]:
                return None
            return nn.LayerNorm(d, eps=c["eps"], bias=c["bias"], dtype=dt)

        def build():
            if kind in ("enc_layer", "encoder"):
                layer = nn.TransformerEncoderLayer(d, h, **kw)
                if kind == "enc_layer":
                    return layer
                return nn.TransformerEncoder(
                    layer, c["layers"], norm=norm(), enable_nested_tensor=c["nested"]
                )
            if kind in ("dec_layer", "decoder"):
                layer = nn.TransformerDecoderLayer(d, h, **kw)
                if kind == "dec_layer":
                    return layer
                return nn.TransformerDecoder(layer, c["layers"], norm=norm())
            return nn.Transformer(
                d, h, num_encoder_layers=c["layers"], num_decoder_layers=c["layers"], **kw
            )

        mod = rec.err("init", build)
        if mod is None:
            return
        _load(lib, mod, dt, s, rec)
        if c["fast"]:
            mod.eval()
        N, S, T = c["N"], c["S"], c["T"]

        def shape(n):
            if N is None:
                return (n, d)
            return (N, n, d) if c["batch_first"] else (n, N, d)

        def sq_mask(kind, n, m):
            if kind is None:
                return None
            if kind == "causal":
                gen = (
                    nn.Transformer.generate_square_subsequent_mask(n, dtype=dt) if n == m else None
                )
                rec("causal mask", gen if gen is not None else "None")
                return gen
            return _t(lib, _mask(r, (n, m), kind), dt)

        def kpm(kind, n):
            if kind is None:
                return None
            return _t(lib, _mask(r, (n,) if N is None else (N, n), kind), dt)

        grad = not c["fast"]
        src = _t(lib, r_array(r, shape(S)), dt, grad)
        if bad == "d_model":
            src = src[..., :-1]
        tgt = _t(lib, r_array(r, shape(T)), dt, grad)
        if bad == "batch" and N is not None:
            tgt = tgt[:1] if c["batch_first"] else tgt[:, :1]
        src_mask = sq_mask(c["src_mask"], S, S)
        tgt_mask = sq_mask(c["tgt_mask"], T, T)
        mem_mask = _t(lib, _mask(r, (T, S), c["mem_mask"]), dt) if c["mem_mask"] else None
        src_kpm, tgt_kpm, mem_kpm = kpm(c["src_kpm"], S), kpm(c["tgt_kpm"], T), kpm(c["mem_kpm"], S)
        sc = c["src_is_causal"] and src_mask is not None
        tc = c["tgt_is_causal"] and tgt_mask is not None
        if kind in ("enc_layer", "encoder"):
            inputs = [("src", src)]
            call = lambda: mod(src, src_mask, src_kpm, is_causal=sc)  # noqa: E731
        elif kind == "dec_layer":
            inputs = [("tgt", tgt), ("memory", src)]
            call = lambda: mod(  # noqa: E731
                tgt, src, tgt_mask, mem_mask, tgt_kpm, mem_kpm, tgt_is_causal=tc
            )
        elif kind == "decoder":
            inputs = [("tgt", tgt), ("memory", src)]
            call = lambda: mod(  # noqa: E731
                tgt, src, tgt_mask, mem_mask, tgt_kpm, mem_kpm, tgt_is_causal=tc
            )
        else:
            inputs = [("src", src), ("tgt", tgt)]
            call = lambda: mod(  # noqa: E731
                src,
                tgt,
                src_mask,
                tgt_mask,
                mem_mask,
                src_kpm,
                tgt_kpm,
                mem_kpm,
                src_is_causal=sc,
                tgt_is_causal=tc,
            )

        def run():
            with lib.no_grad() if c["fast"] else lib.enable_grad():
                return call()

        out = rec.err("forward", run)
        if out is None:
            return
        rec("out", out)
        if not c["fast"]:
            _backward(lib, rec, [out], inputs, list(mod.named_parameters()), s + 1)

    return prog


def sdpa_prog(c):
    def prog(lib, dt, rec):
        r = random.Random(c["seed"])
        F = lib.nn.functional
        B, L, S = c["B"], c["L"], c["S"]
        lead_q = (c["Hq"],) if B is None else (B, c["Hq"])
        lead_k = (c["Hk"],) if B is None else (B, c["Hk"])
        bad = c.get("bad")
        if bad == "gqa_heads":
            lead_k = lead_k[:-1] + (3,)
        q = _t(lib, r_array(r, (*lead_q, L, c["E"])), dt, True)
        k = _t(lib, r_array(r, (*lead_k, S, c["E"] + (bad == "qk_dim"))), dt, True)
        v = _t(lib, r_array(r, (*lead_k, S, c["Ev"])), dt, True)
        if bad == "dims":
            v = v[0]
        m = None
        if c["mask"] is not None:
            shapes = {
                "LS": (L, S),
                "1LS": (1, L, S),
                "HLS": (c["Hq"], L, S),
                "full": (*lead_q, L, S),
            }
            shp = shapes[c["mask_shape"]]
            if bad == "mask_shape":
                shp = shp[:-1] + (S + 1,)
            m = _mask(r, shp, c["mask"], full=c["full"])
            m = _t(lib, m, dt, c["mask"] == "float")
            if bad == "mask_dtype":
                m = m.long()
        kw = {"enable_gqa": True} if c["gqa"] and bad != "no_gqa" else {}
        out = rec.err(
            "forward",
            lambda: F.scaled_dot_product_attention(
                q, k, v, attn_mask=m, is_causal=c["is_causal"], scale=c["scale"], **kw
            ),
        )
        if out is None:
            return
        rec("out", out)
        _backward(lib, rec, [out], [("q", q), ("k", k), ("v", v), ("mask", m)], [], c["seed"] + 1)

    return prog


# ----------------------------------------------------------------------------- the sweep

N_MHA, N_LAYER, N_SDPA = 160, 80, 120


def sweep_cases():
    # every eighth call is invalid, of each kind in turn
    cases = [
        ("mha", i, mha_case(1000 + i, MHA_BAD[i // 8 % 9] if i % 8 == 7 else None))
        for i in range(N_MHA)
    ]
    cases += [("layer", i, layer_case(5000 + i)) for i in range(N_LAYER)]
    cases += [("sdpa", i, sdpa_case(9000 + i)) for i in range(N_SDPA)]
    return cases


def _prog(c):
    return {"mha": mha_prog, "sdpa": sdpa_prog}.get(c["kind"], layer_prog)(c)


def _kept(w):
    """The warnings compared: the layers' own, not torch's prototype notices nor NumPy's
    floating-point notices (minitorch silences those by a module filter, which a caller's
    simplefilter("always") overrides) nor torch's notice of its CPU-capability variable."""
    msg = str(w.message)
    return not any(t in msg for t in ("prototype stage", "encountered in", "ATEN_CPU_CAPABILITY"))


def case_diffs(c):
    """The differences of minitorch's records from torch's for one case."""
    import minitorch

    prog = _prog(c)
    want = run_program(prog, torch, c["dt"], rec=Rec(), keep_warnings=_kept)
    got = run_program(prog, minitorch, c["dt"], rec=Rec(), keep_warnings=_kept)
    if c["dt"] == "float64":
        return record_diffs(want, got, 1e-10, rename=True)
    # float32: 1e-5 of each record's scale, and at least 1e-5 absolute (two-wide layer norms
    # amplify float32 rounding in the gradients of small parameters)
    return record_diffs(want, got, 1e-5, floor=1.0, rename=True)


def tally(cases=None):
    """Counts of matching cases per family, and the failing ones."""
    counts, bad = {}, []
    for fam, i, c in sweep_cases() if cases is None else cases:
        try:
            d = case_diffs(c)
        except Exception as e:  # noqa: BLE001 - a crash counts as a mismatch
            d = [f"crash {type(e).__name__}: {e}"]
        ok, n = counts.get(fam, (0, 0))
        counts[fam] = (ok + (not d), n + 1)
        if d:
            bad.append((fam, i, c, d))
    return counts, bad


CHUNK = 40


@pytest.mark.parametrize("start", range(0, N_MHA + N_LAYER + N_SDPA, CHUNK))
def test_sweep_matches_torch(start):
    """Every case of the sweep (in chunks, so that workers share it) records what torch does."""
    counts, bad = tally(sweep_cases()[start : start + CHUNK])
    msgs = [f"{fam} #{i} {c}\n    " + "\n    ".join(d[:3]) for fam, i, c, d in bad]
    assert not bad, f"{len(bad)} of {sum(n for _, n in counts.values())} cases differ:\n" + (
        "\n".join(msgs[:5])
    )


def test_sweep_draws_every_option():
    """The sweep reaches each option it is meant to sweep, invalid calls included."""
    cases = [c for _, _, c in sweep_cases()]
    mha = [c for c in cases if c["kind"] == "mha"]
    layers = [c for c in cases if c["kind"] not in ("mha", "sdpa")]
    sdpa = [c for c in cases if c["kind"] == "sdpa"]
    for key in (
        "bias",
        "add_bias_kv",
        "add_zero_attn",
        "batch_first",
        "need_weights",
        "average",
        "am3",
        "is_causal",
        "fast",
        "full",
        "kv_same",
        "mask_grad",
        "mask_dt",
        "self_attn",
    ):
        assert 0 < sum(bool(c[key]) for c in mha) < len(mha), key
    assert {c["kpm"] for c in mha} == {None, "bool", "float"}
    assert {c["am"] for c in mha} == {None, "bool", "float"}
    assert sum(c["N"] is None for c in mha) > 10  # unbatched inputs
    assert sum(c["kdim"] not in (None, c["embed_dim"]) for c in mha) > 5
    assert len({c.get("bad") for c in mha}) == 10  # nine kinds of invalid call, and valid ones
    assert {c["kind"] for c in layers} == {
        "enc_layer",
        "dec_layer",
        "encoder",
        "decoder",
        "transformer",
    }
    assert {c["activation"] for c in layers} == {"relu", "gelu", "callable_gelu", "callable_tanh"}
    for key in (
        "norm_first",
        "bias",
        "batch_first",
        "final_norm",
        "fast",
        "nested",
        "src_is_causal",
        "tgt_is_causal",
    ):
        assert 0 < sum(bool(c[key]) for c in layers) < len(layers), key
    assert {c["tgt_mask"] for c in layers} == {None, "bool", "float", "causal"}
    assert sum("bad" in c for c in layers) > 3
    for key in ("gqa", "is_causal", "full"):
        assert 0 < sum(bool(c[key]) for c in sdpa) < len(sdpa), key
    assert {c["mask"] for c in sdpa} == {None, "bool", "float"}
    assert {c["scale"] for c in sdpa} == {None, 0.5, 2.0}
    assert sum("bad" in c for c in sdpa) > 5


if __name__ == "__main__":
    counts, bad = tally()
    print(counts)
    for fam, i, c, d in bad:
        print(fam, i, c)
        for x in d[:3]:
            print("   ", x)


FUSED_CALLS = [
    # torch's fused inference path (eval, no grad, self-attention, batch_first) takes no
    # is_causal: a mask given applies as it is, and none gives no causal mask and no error
    "mha(x, x, x, attn_mask=wrong, is_causal=True, need_weights=False)[0]",
    "mha(x, x, x, attn_mask=wrong, is_causal=True)[0]",
    "mha(x, x, x, is_causal=True)[0]",
    "mha(x, x, x, attn_mask=wrong, key_padding_mask=kpm, is_causal=True)[0]",
    "layer(x, src_mask=wrong, is_causal=True)",
    "layer(x, is_causal=True)",
    "enc(x, is_causal=True)",
    "dec(x, x, tgt_mask=wrong, tgt_is_causal=True)",
    # ... and checks the query's width with its own message
    "mha(wide, wide, wide)",
    "odd(x, x, x, is_causal=True)",  # odd head count: not the fused path
    "unb(x, x, x, is_causal=True)",  # batch_first=False: not the fused path
    # enable_gqa reads dim -3 of query, key and value before anything else
    "F.scaled_dot_product_attention(q3, k3, v3[0], enable_gqa=True)",
    "F.scaled_dot_product_attention(q3[0], k3[0], v3[0], enable_gqa=True)",
    "F.scaled_dot_product_attention(q3, k3[0], v3, enable_gqa=True)",
]


def fused_prog(lib, dt, rec):
    lib.manual_seed(0)
    nn = lib.nn
    kw = dict(batch_first=True, dtype=dt)
    layer_kw = dict(dim_feedforward=8, dropout=0.0, **kw)
    env = {
        "F": nn.functional,
        "mha": nn.MultiheadAttention(4, 2, **kw).eval(),
        "odd": nn.MultiheadAttention(4, 1, **kw).eval(),
        "unb": nn.MultiheadAttention(4, 2, dtype=dt).eval(),
        "layer": nn.TransformerEncoderLayer(4, 2, **layer_kw).eval(),
        "enc": nn.TransformerEncoder(
            nn.TransformerEncoderLayer(4, 2, **layer_kw), 2, enable_nested_tensor=False
        ).eval(),
        "dec": nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, **layer_kw), 1).eval(),
        "x": seeded_randn(lib, dt, 1, 2, 3, 4),
        "wide": seeded_randn(lib, dt, 2, 2, 3, 5),
        "wrong": lib.tensor([[False, True, False], [True, False, False], [False, False, True]]),
        "kpm": lib.tensor([[False, False, True], [False, False, False]]),
        "q3": seeded_randn(lib, dt, 3, 4, 3, 2),
        "k3": seeded_randn(lib, dt, 4, 2, 3, 2),
        "v3": seeded_randn(lib, dt, 5, 2, 3, 2),
    }
    with lib.no_grad():
        for code in FUSED_CALLS:
            out = rec.err(code, lambda code=code: eval(code, env))  # noqa: S307
            if out is not None:
                rec(code + " ->", out)


def test_fused_inference_path_is_causal_and_errors():
    """The hint is_causal and the query width as torch's fused inference path treats them."""
    want = run_program(fused_prog, torch, "float64", rec=Rec(), keep_warnings=_kept)
    import minitorch

    got = run_program(fused_prog, minitorch, "float64", rec=Rec(), keep_warnings=_kept)
    diffs = record_diffs(want, got, 1e-10, rename=True)
    assert not diffs, "\n".join(diffs)
