"""Differential fuzzer: recurrent layers, attention and transformers.

Parts (--part): att (scaled_dot_product_attention and MultiheadAttention with masks of every
kind/dtype, is_causal, dropout 0, kdim/vdim, batch_first, need_weights/average_attn_weights,
add_bias_kv/add_zero_attn, fast paths; --maskdt cycles mask dtypes), pack (pack_padded_sequence/
pad_packed_sequence/pack_sequence/pad_sequence/unpad/unsorted indices), rnn (RNN/LSTM/GRU and
cells: layers, bidirectional, proj_size, batch_first, packed input, hx, state dicts; outputs and
gradients), rnnerr (bad inputs to recurrent layers and cells), tr (Transformer/Encoder/Decoder
(layers) with masks, norm_first, activations, nested-tensor fast path). Kinds: part/what:kind with
kind in value/shape/dtype/structure/errtype/errmsg/mt_error/mt_no_error. --cases is per part.
Adapted from session 23's rnnatt fuzzers.
"""

# ruff: noqa: E741  (code adapted as-is from the session fuzzers)

import traceback
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Shared differential harness: run fn(lib, rng-driven case) under torch and minitorch, compare.
warnings.filterwarnings("ignore")


def to_np(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        return (
            "T",
            str(x.dtype).replace("minitorch.", "torch."),
            tuple(x.shape),
            np.array(
                x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else x.detach().numpy()
            ),
        )
    if isinstance(x, (tuple, list)):
        return type(x).__name__ if False else [to_np(v) for v in x]
    if isinstance(x, dict):
        return {k: to_np(v) for k, v in x.items()}
    return ("V", x)


def run(lib, fn, case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", to_np(fn(lib, case)))
    except Exception as e:  # noqa
        return ("err", type(e).__name__, str(e).split("\n")[0], traceback.format_exc())


def compare(a, b, path="", tol=None):
    """Return list of (kind, path, detail)."""
    out = []
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [("structure", path, f"len {len(a)} vs {len(b)}")]
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            out += compare(x, y, f"{path}[{i}]", tol)
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [("structure", path, f"keys {sorted(a)} vs {sorted(b)}")]
        for k in a:
            out += compare(a[k], b[k], f"{path}.{k}", tol)
        return out
    if isinstance(a, tuple) and isinstance(b, tuple) and a and b and a[0] == b[0] == "T":
        if a[1] != b[1]:
            out.append(("dtype", path, f"{a[1]} vs {b[1]}"))
        if a[2] != b[2]:
            return out + [("shape", path, f"{a[2]} vs {b[2]}")]
        x, y = a[3], b[3]
        if x.dtype == bool or np.issubdtype(x.dtype, np.integer):
            if not np.array_equal(x, y):
                out.append(("value", path, "int mismatch"))
            return out
        t = tol if tol is not None else (1e-9 if x.dtype == np.float64 else 2e-4)
        if x.size:
            same_nan = np.array_equal(np.isnan(x), np.isnan(y))
            d = (
                np.nanmax(
                    np.abs(x.astype(np.float64) - y.astype(np.float64))
                    / (1 + np.abs(x.astype(np.float64)))
                )
                if np.isfinite(x).any() or np.isfinite(y).any()
                else 0
            )
            if not same_nan or not (d <= t):
                out.append(("value", path, f"maxrel {d:.3g} nan_same={same_nan}"))
        return out
    if a != b:
        out.append(("other", path, f"{str(a)[:100]} vs {str(b)[:100]}"))
    return out


def diff(fn, case, tol=None):
    rt = run(torch, fn, case)
    rm = run(minitorch, fn, case)
    if rt[0] == "err" or rm[0] == "err":
        if rt[0] == rm[0] == "err":
            if rt[1] != rm[1]:
                return (
                    [("errtype", "", f"torch {rt[1]}: {rt[2][:150]} | mt {rm[1]}: {rm[2][:150]}")],
                    rt,
                    rm,
                )
            if rt[2] != rm[2]:
                return [("errmsg", "", f"torch {rt[2][:200]} | mt {rm[2][:200]}")], rt, rm
            return [], rt, rm
        if rt[0] == "err":
            return [("mt_no_error", "", f"torch {rt[1]}: {rt[2][:200]}")], rt, rm
        return [("mt_error", "", f"{rm[1]}: {rm[2][:200]}\n{rm[3][-1500:]}")], rt, rm
    return compare(rt[1], rm[1], tol=tol), rt, rm


# ----------------------------------------------------------------------


def rmask(r, shape, kind, full_row_ok=False):
    if kind == "bool":
        m = r.random(shape) < 0.3
        if not full_row_ok and len(shape):
            m[..., 0] = False
        return m
    m = r.standard_normal(shape)
    if r.random() < 0.3:
        m[r.random(shape) < 0.2] = -np.inf
        if len(shape):
            m[..., 0] = 0.0
    return m


def att_make_case(seed):
    r = np.random.default_rng(seed)
    c = {"seed": seed}
    c["what"] = str(r.choice(["mha", "mha", "mhaf", "sdpa", "sdpa"]))
    c["dtype"] = "float64" if r.random() < 0.85 else "float32"
    if c["what"] == "sdpa":
        nb = int(r.integers(0, 3))
        batch = [int(v) for v in r.integers(1, 3, size=nb)]
        Hk = int(r.integers(1, 3))
        c["gqa"] = bool(r.random() < 0.25)
        Hq = Hk * int(r.integers(1, 3)) if c["gqa"] else Hk
        L, S, E, Ev = (int(v) for v in r.integers(1, 5, size=4))
        if nb == 0:
            qs, ks, vs = (L, E), (S, E), (S, Ev)
            c["gqa"] = False
        else:
            qs, ks, vs = (*batch, Hq, L, E), (*batch, Hk, S, E), (*batch, Hk, S, Ev)
        c["q"], c["k"], c["v"] = r.standard_normal(qs), r.standard_normal(ks), r.standard_normal(vs)
        mk = str(r.choice(["none", "bool", "float"]))
        c["mask_kind"] = mk
        if mk != "none":
            full = (*qs[:-1], S)
            # broadcastable shape: drop leading dims, set some to 1
            nd = int(r.integers(1, len(full) + 1))
            shp = [d if r.random() < 0.6 else 1 for d in full[len(full) - nd :]]
            if r.random() < 0.05:
                shp[-1] += 1
            c["mask"] = rmask(r, tuple(shp), mk, full_row_ok=r.random() < 0.15)
        c["is_causal"] = bool(r.random() < 0.3)
        c["scale"] = None if r.random() < 0.6 else float(r.uniform(0.1, 2))
        return c
    nh = int(r.integers(1, 4))
    hd = int(r.integers(1, 4))
    E = nh * hd
    c.update(nh=nh, E=E)
    c["bf"] = bool(r.random() < 0.5)
    c["kdim"] = E if r.random() < 0.6 else int(r.integers(1, 5))
    c["vdim"] = c["kdim"] if r.random() < 0.6 else int(r.integers(1, 5))
    c["bias"] = bool(r.random() < 0.7)
    c["bias_kv"] = bool(r.random() < 0.3)
    c["zero_attn"] = bool(r.random() < 0.3)
    c["dropout"] = float(r.choice([0.0, 0.0, 0.3]))
    c["train"] = c["dropout"] == 0 and r.random() < 0.4
    c["nograd"] = bool(r.random() < 0.15)
    c["self"] = c["kdim"] == E == c["vdim"] and r.random() < 0.3
    unb = r.random() < 0.25
    N, L, S = (int(v) for v in r.integers(1, 4, size=3))
    if c["self"]:
        S = L
    c["unb"] = bool(unb)

    def shp(n, l, e):
        if unb:
            return (l, e)
        return (n, l, e) if c["bf"] else (l, n, e)

    c["q"] = r.standard_normal(shp(N, L, E))
    c["k"] = r.standard_normal(shp(N, S, c["kdim"]))
    c["v"] = r.standard_normal(shp(N, S, c["vdim"]))
    am = str(r.choice(["none", "bool2", "float2", "bool3", "float3"]))
    c["am_kind"] = am
    if am != "none":
        shape = (L, S) if am.endswith("2") else ((nh if unb else N * nh), L, S)
        if r.random() < 0.05:
            shape = (L + 1, S)
        c["am"] = rmask(r, shape, am[:-1], full_row_ok=r.random() < 0.2)
        if am.startswith("float") and r.random() < 0.1:
            c["am_f32"] = True
    kp = str(r.choice(["none", "none", "bool", "float"]))
    c["kp_kind"] = kp
    if kp != "none":
        shape = (S,) if unb else (N, S)
        if r.random() < 0.04:
            shape = (N, S + 1)
        c["kp"] = rmask(r, shape, kp, full_row_ok=r.random() < 0.2)
    c["need_weights"] = bool(r.random() < 0.6)
    c["avg"] = bool(r.random() < 0.5)
    c["is_causal"] = bool(r.random() < 0.2)
    if c["is_causal"] and r.random() < 0.7 and L == S:
        c["am_kind"] = "causal"
        c["am"] = np.triu(np.ones((L, S), bool), 1)
    torch.manual_seed(seed)
    m = att_build(torch, c)
    c["sd"] = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    return c


def att_build(lib, c):
    dt = getattr(lib, c["dtype"])
    return lib.nn.MultiheadAttention(
        c["E"],
        c["nh"],
        dropout=c["dropout"],
        bias=c["bias"],
        add_bias_kv=c["bias_kv"],
        add_zero_attn=c["zero_attn"],
        kdim=c["kdim"],
        vdim=c["vdim"],
        batch_first=c["bf"],
        dtype=dt,
    )


MASK_DT = None


def mk(lib, a, dt):
    if MASK_DT is not None and MASK_DT != "same":
        if MASK_DT in ("int64", "uint8"):
            return lib.tensor(
                np.nan_to_num(a, neginf=1).astype(np.int64) % 2, dtype=getattr(lib, MASK_DT)
            )
        return lib.tensor(a.astype(np.float64), dtype=getattr(lib, MASK_DT))
    if a.dtype == bool:
        return lib.tensor(a)
    return lib.tensor(a, dtype=dt)


def att_fn(lib, c):
    dt = getattr(lib, c["dtype"])

    def T(a):
        return lib.tensor(a, dtype=dt, requires_grad=True)

    res = {}
    if c["what"] == "sdpa":
        q, k, v = T(c["q"]), T(c["k"]), T(c["v"])
        mask = mk(lib, c["mask"], dt) if "mask" in c else None
        kw = {}
        if c["scale"] is not None:
            kw["scale"] = c["scale"]
        if c["gqa"]:
            kw["enable_gqa"] = True
        out = lib.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=0.0, is_causal=c["is_causal"], **kw
        )
        outs = [out]
        leaves = dict(q=q, k=k, v=v)
        params = {}
    else:
        m = att_build(lib, c)
        m.load_state_dict({k: lib.tensor(v) for k, v in c["sd"].items()})
        m.train(c["train"])
        if c["nograd"]:
            q = lib.tensor(c["q"], dtype=dt)
            k = v = q if c["self"] else None
            if not c["self"]:
                k, v = lib.tensor(c["k"], dtype=dt), lib.tensor(c["v"], dtype=dt)
            leaves = {}
        else:
            q = T(c["q"])
            if c["self"]:
                k = v = q
            else:
                k, v = T(c["k"]), T(c["v"])
            leaves = dict(q=q, k=k, v=v)
        am = None
        if "am" in c:
            am = mk(lib, c["am"], lib.float32 if c.get("am_f32") else dt)
        kp = mk(lib, c["kp"], dt) if "kp" in c else None
        kw = {}
        if c["what"] == "mha":
            if c["is_causal"]:
                kw["is_causal"] = True
            ctx = lib.no_grad() if c["nograd"] else _null()
            with ctx:
                out, w = m(
                    q,
                    k,
                    v,
                    key_padding_mask=kp,
                    need_weights=c["need_weights"],
                    attn_mask=am,
                    average_attn_weights=c["avg"],
                    **kw,
                )
        else:
            q_, k_, v_ = (q, k, v)
            if not c["unb"] and c["bf"]:
                q_, k_, v_ = (t.transpose(0, 1) for t in (q, k, v))
            out, w = lib.nn.functional.multi_head_attention_forward(
                q_,
                k_,
                v_,
                c["E"],
                c["nh"],
                m.in_proj_weight,
                m.in_proj_bias,
                m.bias_k,
                m.bias_v,
                c["zero_attn"],
                c["dropout"],
                m.out_proj.weight,
                m.out_proj.bias,
                training=c["train"],
                key_padding_mask=kp,
                need_weights=c["need_weights"],
                attn_mask=am,
                use_separate_proj_weight=not m._qkv_same_embed_dim,
                q_proj_weight=m.q_proj_weight,
                k_proj_weight=m.k_proj_weight,
                v_proj_weight=m.v_proj_weight,
                average_attn_weights=c["avg"],
                is_causal=c["is_causal"],
            )
        outs = [out] + ([w] if w is not None else [])
        res["w_is_none"] = ("V", w is None)
        params = dict(m.named_parameters())
    g = np.random.default_rng(c["seed"] + 1)
    loss = 0
    for i, o in enumerate(outs):
        res[f"out{i}"] = o
        wt = g.standard_normal(tuple(o.shape))
        wt[~np.isfinite(o.detach().numpy())] = 0  # avoid nan grads
        loss = loss + (o * lib.tensor(wt, dtype=o.dtype)).nan_to_num().sum()
    if loss.requires_grad:
        loss.backward()
        for k, v in leaves.items():
            res["g_" + k] = v.grad
        for k, p in params.items():
            res["g_" + k] = p.grad
    return res


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


# ----------------------------------------------------------------------


def pack_make_case(seed):
    r = np.random.default_rng(seed)
    c = {"seed": seed}
    c["what"] = str(r.choice(["pps", "pad_seq", "pack_seq", "unpad", "unpack"]))
    c["dtype"] = str(r.choice(["float64", "float32", "int64"], p=[0.7, 0.15, 0.15]))
    N = int(r.integers(1, 4))
    T = int(r.integers(1, 5))
    feat = tuple(int(v) for v in r.integers(1, 3, size=int(r.integers(0, 3))))
    lengths = [int(v) for v in r.integers(1, T + 1, size=N)]
    if r.random() < 0.1:
        lengths[int(r.integers(0, N))] = int(r.choice([0, T + 1, -1]))
    c["es"] = bool(r.random() < 0.5)
    if c["es"] and r.random() < 0.8:
        lengths = sorted(lengths, reverse=True)
    c["lengths"] = lengths
    c["len_kind"] = str(r.choice(["list", "tensor", "tensor32", "tuple"]))
    c["bf"] = bool(r.random() < 0.5)
    c["x"] = r.standard_normal((N, T, *feat) if c["bf"] else (T, N, *feat))
    c["seqs"] = [r.standard_normal((max(n, 0), *feat)) for n in lengths]
    c["padval"] = float(r.choice([0.0, 2.5]))
    c["side"] = str(r.choice(["right", "left", "default"]))
    c["out_bf"] = bool(r.random() < 0.5)
    c["total_length"] = None if r.random() < 0.6 else int(max(lengths) + r.integers(-1, 3))
    return c


def pack_fn(lib, c):
    dt = getattr(lib, c["dtype"])
    U = lib.nn.utils.rnn
    fl = dt.is_floating_point

    def T(a):
        return (
            lib.tensor(a, dtype=dt, requires_grad=fl)
            if fl
            else lib.tensor((a * 3).round(), dtype=dt)
        )

    L = c["lengths"]
    lk = c["len_kind"]
    lengths = (
        L
        if lk == "list"
        else tuple(L)
        if lk == "tuple"
        else lib.tensor(L, dtype=lib.int64 if lk == "tensor" else lib.int32)
    )
    res = {}
    leaves = {}
    w = c["what"]
    if w in ("pps", "unpack"):
        x = T(c["x"])
        leaves["x"] = x
        p = U.pack_padded_sequence(x, lengths, batch_first=c["bf"], enforce_sorted=c["es"])
        res.update(data=p.data, bs=p.batch_sizes, si=p.sorted_indices, ui=p.unsorted_indices)
        if w == "pps":
            out, lens = U.pad_packed_sequence(
                p,
                batch_first=c["out_bf"],
                padding_value=c["padval"],
                total_length=c["total_length"],
            )
            res["lens"] = lens
            outs = [out]
        else:
            outs = U.unpack_sequence(p)
    else:
        seqs = [T(s) for s in c["seqs"]]
        for i, s in enumerate(seqs):
            leaves[f"s{i}"] = s
        if w == "pad_seq":
            kw = {} if c["side"] == "default" else {"padding_side": c["side"]}
            outs = [U.pad_sequence(seqs, batch_first=c["bf"], padding_value=c["padval"], **kw)]
        elif w == "pack_seq":
            p = U.pack_sequence(seqs, enforce_sorted=c["es"])
            res.update(data=p.data, bs=p.batch_sizes, si=p.sorted_indices, ui=p.unsorted_indices)
            outs = [p.data]
        else:
            padded = U.pad_sequence(seqs, batch_first=c["bf"])
            outs = U.unpad_sequence(padded, lengths, batch_first=c["bf"])
    g = np.random.default_rng(c["seed"] + 1)
    loss = 0
    for i, o in enumerate(outs):
        res[f"out{i}"] = o
        if fl:
            loss = loss + (o * lib.tensor(g.standard_normal(tuple(o.shape)), dtype=o.dtype)).sum()
    if fl:
        loss.backward()
        for k, v in leaves.items():
            res["g_" + k] = v.grad
    return res


# ----------------------------------------------------------------------


def rnn_make_case(seed):
    r = np.random.default_rng(seed)
    c = {}
    kind = r.choice(["RNN_tanh", "RNN_relu", "LSTM", "GRU", "cell"])
    c["kind"] = str(kind)
    c["dtype"] = "float64" if r.random() < 0.85 else "float32"
    I, H = int(r.integers(1, 5)), int(r.integers(2, 6))
    c["I"], c["H"] = I, H
    c["bias"] = bool(r.random() < 0.7)
    if kind == "cell":
        c["cell"] = str(r.choice(["RNNCell_tanh", "RNNCell_relu", "LSTMCell", "GRUCell"]))
        c["unbatched"] = bool(r.random() < 0.3)
        N = int(r.integers(1, 4))
        c["x"] = r.standard_normal((I,) if c["unbatched"] else (N, I))
        c["hgiven"] = bool(r.random() < 0.7)
        hs = (H,) if c["unbatched"] else (N, H)
        if r.random() < 0.08:  # wrong shape
            hs = tuple(int(s) + int(r.integers(-1, 2)) for s in hs) if r.random() < 0.5 else hs[-1:]
        c["h0"] = r.standard_normal(hs)
        c["c0"] = r.standard_normal(hs)
        return c
    c["layers"] = int(r.integers(1, 4))
    c["batch_first"] = bool(r.random() < 0.5)
    c["bidir"] = bool(r.random() < 0.5)
    c["dropout"] = float(r.choice([0.0, 0.0, 0.4]))
    c["proj"] = int(r.integers(1, H)) if kind == "LSTM" and r.random() < 0.4 else 0
    c["train"] = c["dropout"] == 0 and r.random() < 0.5
    L, N = int(r.integers(1, 5)), int(r.integers(1, 4))
    form = str(r.choice(["batched", "unbatched", "packed", "packseq"]))
    c["form"] = form
    D = 2 if c["bidir"] else 1
    Hr = c["proj"] or H
    if form == "unbatched":
        c["x"] = r.standard_normal((L, I))
        hshape, cshape = (D * c["layers"], Hr), (D * c["layers"], H)
    elif form == "batched":
        c["x"] = r.standard_normal((N, L, I) if c["batch_first"] else (L, N, I))
        hshape, cshape = (D * c["layers"], N, Hr), (D * c["layers"], N, H)
    else:
        lengths = [int(v) for v in r.integers(1, L + 1, size=N)]
        c["enforce_sorted"] = bool(r.random() < 0.4)
        if c["enforce_sorted"]:
            lengths = sorted(lengths, reverse=True)
        c["lengths"] = lengths
        if form == "packed":
            c["pad_bf"] = c["batch_first"] if r.random() < 0.7 else not c["batch_first"]
            c["x"] = r.standard_normal((N, L, I) if c["pad_bf"] else (L, N, I))
        else:
            c["seqs"] = [r.standard_normal((n, I)) for n in lengths]
        c["out_bf"] = bool(r.random() < 0.5)
        c["padval"] = float(r.choice([0.0, -1.5]))
        c["total_length"] = None if r.random() < 0.6 else int(max(lengths) + r.integers(-1, 3))
        hshape, cshape = (D * c["layers"], N, Hr), (D * c["layers"], N, H)
    c["hgiven"] = bool(r.random() < 0.6)
    if r.random() < 0.08:
        hshape = tuple(s + int(r.integers(0, 2)) for s in hshape)
    if r.random() < 0.04:
        cshape = cshape[1:]
    c["h0"] = r.standard_normal(hshape)
    c["c0"] = r.standard_normal(cshape)
    # weights from a torch module
    torch.manual_seed(seed)
    m = rnn_build(torch, c)
    c["sd"] = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    c["up_seed"] = seed
    return c


def rnn_build(lib, c):
    dt = getattr(lib, c["dtype"])
    if c["kind"] == "cell":
        name = c["cell"]
        if name.startswith("RNNCell"):
            return lib.nn.RNNCell(
                c["I"], c["H"], bias=c["bias"], nonlinearity=name.split("_")[1], dtype=dt
            )
        return getattr(lib.nn, name)(c["I"], c["H"], bias=c["bias"], dtype=dt)
    kw = dict(
        num_layers=c["layers"],
        bias=c["bias"],
        batch_first=c["batch_first"],
        dropout=c["dropout"],
        bidirectional=c["bidir"],
        dtype=dt,
    )
    if c["kind"].startswith("RNN"):
        return lib.nn.RNN(c["I"], c["H"], nonlinearity=c["kind"][4:], **kw)
    if c["kind"] == "LSTM":
        return lib.nn.LSTM(c["I"], c["H"], proj_size=c["proj"], **kw)
    return lib.nn.GRU(c["I"], c["H"], **kw)


def rnn_fn(lib, c):
    dt = getattr(lib, c["dtype"])
    m = rnn_build(lib, c)
    m.load_state_dict({k: lib.tensor(v) for k, v in c["sd"].items()})
    if c["kind"] != "cell":
        m.train(c["train"])

    def T(a):
        return lib.tensor(a, dtype=dt, requires_grad=True)

    leaves = {}
    res = {}
    if c["kind"] == "cell":
        x = T(c["x"])
        leaves["x"] = x
        hx = None
        if c["hgiven"]:
            h0 = T(c["h0"])
            leaves["h0"] = h0
            if c["cell"] == "LSTMCell":
                c0 = T(c["c0"])
                leaves["c0"] = c0
                hx = (h0, c0)
            else:
                hx = h0
        out = m(x, hx)
        outs = list(out) if isinstance(out, tuple) else [out]
    else:
        U = lib.nn.utils.rnn
        if c["form"] in ("batched", "unbatched"):
            x = T(c["x"])
            leaves["x"] = x
            inp = x
        elif c["form"] == "packed":
            x = T(c["x"])
            leaves["x"] = x
            inp = U.pack_padded_sequence(
                x, c["lengths"], batch_first=c["pad_bf"], enforce_sorted=c["enforce_sorted"]
            )
        else:
            seqs = [T(s) for s in c["seqs"]]
            for i, s in enumerate(seqs):
                leaves[f"s{i}"] = s
            inp = U.pack_sequence(seqs, enforce_sorted=c["enforce_sorted"])
        if c["form"] in ("packed", "packseq"):
            res["in_bs"] = inp.batch_sizes
            res["in_si"] = inp.sorted_indices
            res["in_ui"] = inp.unsorted_indices
        hx = None
        if c["hgiven"]:
            h0 = T(c["h0"])
            leaves["h0"] = h0
            if c["kind"] == "LSTM":
                c0 = T(c["c0"])
                leaves["c0"] = c0
                hx = (h0, c0)
            else:
                hx = h0
        out, hn = m(inp, hx)
        hs = list(hn) if isinstance(hn, tuple) else [hn]
        if c["form"] in ("packed", "packseq"):
            res["out_data"] = out.data
            res["out_si"] = out.sorted_indices
            padded, lens = U.pad_packed_sequence(
                out,
                batch_first=c["out_bf"],
                padding_value=c["padval"],
                total_length=c["total_length"],
            )
            res["lens"] = lens
            out = padded
        outs = [out] + hs
    g = np.random.default_rng(c["up_seed"] + 1)
    loss = 0
    for i, o in enumerate(outs):
        res[f"out{i}"] = o
        w = g.standard_normal(tuple(o.shape))
        loss = loss + (o * lib.tensor(w, dtype=o.dtype)).sum()
    loss.backward()
    for k, v in leaves.items():
        res["g_" + k] = v.grad
    for k, p in m.named_parameters():
        res["g_" + k] = p.grad
    return res


# ----------------------------------------------------------------------

# Bad inputs to recurrent layers and cells: dtypes, sizes, hx forms.


def rnnerr_make_case(seed):
    r = np.random.default_rng(seed)
    c = {"seed": seed}
    c["kind"] = str(r.choice(["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]))
    c["I"], c["H"] = 3, 4
    c["layers"] = int(r.integers(1, 3))
    c["bidir"] = bool(r.random() < 0.5)
    c["bf"] = bool(r.random() < 0.5)
    c["xdt"] = str(r.choice(["float64", "float64", "float32", "int64"]))
    c["hdt"] = str(r.choice(["float64", "float64", "float32"]))
    cell = c["kind"].endswith("Cell")
    nd = int(r.choice([1, 2, 3, 4] if not cell else [0, 1, 2, 3]))
    c["xshape"] = tuple(int(v) for v in r.integers(0 if r.random() < 0.1 else 1, 4, size=nd))
    if nd and r.random() < 0.7:
        c["xshape"] = c["xshape"][:-1] + (c["I"] if r.random() < 0.85 else 2,)
    c["hx"] = str(r.choice(["none", "tensor", "tuple", "list3", "tuple1", "int"]))
    hn = int(r.choice([1, 2, 3, 4]))
    c["hshape"] = tuple(int(v) for v in r.integers(1, 5, size=hn))
    c["cshape"] = (
        c["hshape"] if r.random() < 0.7 else tuple(int(v) for v in r.integers(1, 5, size=hn))
    )
    return c


def rnnerr_fn(lib, c):
    cell = c["kind"].endswith("Cell")
    if cell:
        m = getattr(lib.nn, c["kind"])(c["I"], c["H"], dtype=lib.float64)
    else:
        m = getattr(lib.nn, c["kind"])(
            c["I"],
            c["H"],
            num_layers=c["layers"],
            bidirectional=c["bidir"],
            batch_first=c["bf"],
            dtype=lib.float64,
        )
    with lib.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(
                lib.linspace(-1, 1, p.numel(), dtype=lib.float64).reshape(p.shape) * (i + 1) / 7
            )
    x = lib.ones(c["xshape"], dtype=getattr(lib, c["xdt"]))

    def h(s):
        return lib.ones(s, dtype=getattr(lib, c["hdt"]))

    hx = {
        "none": None,
        "tensor": h(c["hshape"]),
        "tuple": (h(c["hshape"]), h(c["cshape"])),
        "list3": [h(c["hshape"])] * 3,
        "tuple1": (h(c["hshape"]),),
        "int": 3,
    }[c["hx"]]
    out = m(x, hx)
    flat = []

    def walk(o):
        if isinstance(o, (tuple, list)):
            for v in o:
                walk(v)
        else:
            flat.append(o)

    walk(out)
    return {f"o{i}": o for i, o in enumerate(flat)}


# ----------------------------------------------------------------------


def tr_make_case(seed):
    r = np.random.default_rng(seed)
    c = {"seed": seed}
    c["what"] = str(
        r.choice(["enc_layer", "dec_layer", "encoder", "decoder", "transformer", "gsm"])
    )
    c["dtype"] = "float64" if r.random() < 0.85 else "float32"
    if c["what"] == "gsm":
        c["sz"] = int(r.integers(0, 5))
        c["gdt"] = str(r.choice(["none", "float64", "float32", "bfloat16"]))
        return c
    nh = int(r.integers(1, 3))
    d = nh * int(r.integers(1, 3))
    c.update(nh=nh, d=d, ff=int(r.integers(1, 6)))
    c["dropout"] = float(r.choice([0.0, 0.2]))
    c["train"] = c["dropout"] == 0 and r.random() < 0.3
    c["act"] = str(r.choice(["relu", "gelu", "F.relu", "F.gelu", "nn.GELU", "tanh"]))
    if c["act"] == "nn.GELU" and c["what"] in ("decoder", "transformer"):
        c["act"] = "tanh"  # torch's decoder-layer copies replace a module activation by relu
    c["eps"] = float(r.choice([1e-5, 1e-2]))
    c["bf"] = bool(r.random() < 0.5)
    c["nf"] = bool(r.random() < 0.5)
    c["bias"] = bool(r.random() < 0.8)
    c["nograd"] = bool(r.random() < 0.15)
    c["nested"] = bool(r.random() < 0.3)
    c["nlayers"] = int(r.integers(1, 3))
    c["nlayers2"] = int(r.integers(1, 3))
    c["final_norm"] = bool(r.random() < 0.5)
    N, L, S = (int(v) for v in r.integers(1, 4, size=3))
    c["unb"] = bool(r.random() < 0.15)

    def shp(l):
        return (l, d) if c["unb"] else ((N, l, d) if c["bf"] else (l, N, d))

    c["src"] = r.standard_normal(shp(S))
    c["tgt"] = r.standard_normal(shp(L))

    def amask(l, s, is_self):
        k = str(r.choice(["none", "bool", "float", "causal", "bool3", "float3"]))
        if k == "causal" and (not is_self or l != s):
            k = "bool"
        if k == "none":
            return None, k
        if k == "causal":
            return np.triu(np.full((l, l), -np.inf), 1), k
        shape = (l, s) if not k.endswith("3") else ((nh if c["unb"] else N * nh), l, s)
        if r.random() < 0.04:
            shape = (l + 1, s)
        return rmask(r, shape, k.rstrip("3")), k

    def kpm(s):
        k = str(r.choice(["none", "none", "bool", "float"]))
        if k == "none":
            return None
        shape = (s,) if c["unb"] else (N, s)
        return rmask(r, shape, k)

    c["src_mask"], c["src_mask_k"] = amask(S, S, True)
    c["tgt_mask"], c["tgt_mask_k"] = amask(L, L, True)
    c["mem_mask"], c["mem_mask_k"] = amask(L, S, False)
    c["src_kpm"], c["tgt_kpm"], c["mem_kpm"] = kpm(S), kpm(L), kpm(S)
    if c["src_kpm"] is not None and c["src_mask"] is not None and r.random() < 0.8:
        # matching dtypes mostly (mismatched is deprecated, warns)
        if c["src_kpm"].dtype != c["src_mask"].dtype:
            c["src_kpm"] = None
    c["src_causal"] = bool(r.random() < 0.25)
    c["tgt_causal"] = bool(r.random() < 0.25)
    c["mem_causal"] = bool(r.random() < 0.1)
    torch.manual_seed(seed)
    m = tr_build(torch, c)
    c["sd"] = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    return c


def tr_act(lib, c):
    a = c["act"]
    if a in ("relu", "gelu"):
        return a
    if a == "F.relu":
        return lib.nn.functional.relu
    if a == "F.gelu":
        return lib.nn.functional.gelu
    if a == "nn.GELU":
        return lib.nn.GELU()
    return lib.tanh


def tr_build(lib, c):
    dt = getattr(lib, c["dtype"])
    kw = dict(
        dim_feedforward=c["ff"],
        dropout=c["dropout"],
        activation=tr_act(lib, c),
        layer_norm_eps=c["eps"],
        batch_first=c["bf"],
        norm_first=c["nf"],
        bias=c["bias"],
        dtype=dt,
    )
    w = c["what"]
    if w == "enc_layer":
        return lib.nn.TransformerEncoderLayer(c["d"], c["nh"], **kw)
    if w == "dec_layer":
        return lib.nn.TransformerDecoderLayer(c["d"], c["nh"], **kw)
    if w == "encoder":
        norm = lib.nn.LayerNorm(c["d"], eps=c["eps"], dtype=dt) if c["final_norm"] else None
        return lib.nn.TransformerEncoder(
            lib.nn.TransformerEncoderLayer(c["d"], c["nh"], **kw),
            c["nlayers"],
            norm=norm,
            enable_nested_tensor=c["nested"],
        )
    if w == "decoder":
        norm = lib.nn.LayerNorm(c["d"], eps=c["eps"], dtype=dt) if c["final_norm"] else None
        return lib.nn.TransformerDecoder(
            lib.nn.TransformerDecoderLayer(c["d"], c["nh"], **kw), c["nlayers"], norm=norm
        )
    return lib.nn.Transformer(c["d"], c["nh"], c["nlayers"], c["nlayers2"], **kw)


def tr_fn(lib, c):
    if c["what"] == "gsm":
        kw = {} if c["gdt"] == "none" else {"dtype": getattr(lib, c["gdt"])}
        out = lib.nn.Transformer.generate_square_subsequent_mask(c["sz"], **kw)
        return {"m": out.float() if c["gdt"] == "bfloat16" else out, "dt": ("V", str(out.dtype))}
    dt = getattr(lib, c["dtype"])
    m = tr_build(lib, c)
    m.load_state_dict({k: lib.tensor(v) for k, v in c["sd"].items()})
    m.train(c["train"])
    rg = not c["nograd"]
    src = lib.tensor(c["src"], dtype=dt, requires_grad=rg)
    tgt = lib.tensor(c["tgt"], dtype=dt, requires_grad=rg)

    def M(k):
        return None if c[k] is None else mk(lib, c[k], dt)

    w = c["what"]
    ctx = lib.no_grad() if c["nograd"] else _null()
    with ctx:
        if w == "enc_layer":
            out = m(
                src,
                src_mask=M("src_mask"),
                src_key_padding_mask=M("src_kpm"),
                is_causal=c["src_causal"],
            )
            leaves = dict(src=src)
        elif w == "encoder":
            out = m(
                src,
                mask=M("src_mask"),
                src_key_padding_mask=M("src_kpm"),
                is_causal=c["src_causal"] if c["src_causal"] else None,
            )
            leaves = dict(src=src)
        elif w in ("dec_layer", "decoder"):
            out = m(
                tgt,
                src,
                tgt_mask=M("tgt_mask"),
                memory_mask=M("mem_mask"),
                tgt_key_padding_mask=M("tgt_kpm"),
                memory_key_padding_mask=M("mem_kpm"),
                tgt_is_causal=c["tgt_causal"],
                memory_is_causal=c["mem_causal"],
            )
            leaves = dict(src=src, tgt=tgt)
        else:
            out = m(
                src,
                tgt,
                src_mask=M("src_mask"),
                tgt_mask=M("tgt_mask"),
                memory_mask=M("mem_mask"),
                src_key_padding_mask=M("src_kpm"),
                tgt_key_padding_mask=M("tgt_kpm"),
                memory_key_padding_mask=M("mem_kpm"),
                src_is_causal=c["src_causal"],
                tgt_is_causal=c["tgt_causal"],
                memory_is_causal=c["mem_causal"],
            )
            leaves = dict(src=src, tgt=tgt)
    res = {}
    if out.is_nested:
        out = out.to_padded_tensor(0.0)
    res["out"] = out
    if rg:
        g = np.random.default_rng(c["seed"] + 1)
        wt = g.standard_normal(tuple(out.shape))
        wt[~np.isfinite(out.detach().numpy())] = 0
        (out * lib.tensor(wt, dtype=out.dtype)).nan_to_num().sum().backward()
        for k, v in leaves.items():
            res["g_" + k] = v.grad
        for k, p in m.named_parameters():
            res["g_" + k] = p.grad
    return res


PARTS = ["att", "pack", "rnn", "rnnerr", "tr"]


def main():
    global MASK_DT

    def extra(p):
        p.add_argument("--part", default=",".join(PARTS), help="default %(default)s")
        p.add_argument("--maskdt", action="store_true", help="att: cycle attention-mask dtypes")

    args = H.cli("rnn_attention", default_cases=150, extra=extra)
    rep = args.report
    dif = H.limited(diff, args.timeout, lambda e: ([("timeout", "", str(e))], ("err",), ("err",)))
    make = {
        "att": att_make_case,
        "pack": pack_make_case,
        "rnn": rnn_make_case,
        "rnnerr": rnnerr_make_case,
        "tr": tr_make_case,
    }
    fns = {"att": att_fn, "pack": pack_fn, "rnn": rnn_fn, "rnnerr": rnnerr_fn, "tr": tr_fn}
    for part in args.part.split(","):
        fn = fns[part]
        for s in range(args.seed, args.seed + args.cases):
            try:
                c = make[part](s)
                if part == "att" and args.maskdt:
                    MASK_DT = [
                        "same",
                        "float32",
                        "float16",
                        "int64",
                        "uint8",
                        "bfloat16",
                        "float64",
                    ][s % 7]
            except Exception as e:
                rep.add((part, "casegen_" + type(e).__name__), f"seed {s}", repr(e)[:300])
                continue
            rep.case()
            if part == "rnnerr":
                tol = 1e-5
            elif part == "pack":
                tol = None if c["dtype"] != "float32" else 1e-6
            else:
                tol = None if c["dtype"] == "float64" else (3e-4 if part == "tr" else 2e-4)
            d, rt, rm = dif(fn, c, tol)
            if part == "tr" and d and c.get("nograd"):
                dg, _, rmg = diff(fn, dict(c, nograd=False), tol)
                rtg = run(torch, fn, dict(c, nograd=False))
                rmn = run(minitorch, fn, c)
                if (
                    not dg
                    and rmn[0] == rtg[0]
                    and (rmn[0] == "err" or not compare(rtg[1]["out"], rmn[1]["out"], tol=tol))
                ):
                    continue  # torch's no-grad fast path differs from its own grad mode
            if d:
                what = c.get("kind" if part == "rnnerr" else "what", "?")
                info = {
                    k: (v if not isinstance(v, np.ndarray) else (v.shape, v.dtype))
                    for k, v in c.items()
                    if k not in ("sd", "seqs")
                }
                rep.add((part, f"{what}:{d[0][0]}"), f"seed {s}", str(d[:3])[:600], str(info)[:400])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
