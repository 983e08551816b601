"""Differential fuzzer: strides, storage offsets and contiguity of chains of views.

Random chains of view ops (view/reshape/permute/transpose/narrow/select/slicing/expand/unfold/
as_strided/diagonal/movedim/unflatten/squeeze/...) on contiguous, transposed, expanded and empty
bases: shape, stride(), storage_offset(), is_contiguous() (all memory formats), values, errors,
and whether writing through the view reaches the base (sharing). Adapted from session 23's
strides fuzzer.
"""

# ruff: noqa: E501  (code adapted as-is from the session fuzzers)

import random
import traceback

import _harness as H
import numpy as np
from _harness import mt, torch


def start(lib, kind, shape):
    n = int(np.prod(shape)) if shape else 1
    if kind == "contig":
        return lib.arange(float(n)).reshape(shape)
    if kind == "transposed":
        t = lib.arange(float(n)).reshape(shape[::-1])
        return t.permute(tuple(range(len(shape) - 1, -1, -1)))
    if kind == "sliced":  # a stepped slice of a bigger tensor
        big = [s * 2 + 1 for s in shape]
        nb = int(np.prod(big))
        t = lib.arange(float(nb)).reshape(big)
        idx = tuple(slice(1, 1 + 2 * s, 2) if s else slice(1, 1) for s in shape)
        return t[idx]
    if kind == "cl":
        t = lib.arange(float(n)).reshape(shape)
        return t.contiguous(memory_format=lib.channels_last)
    if kind == "cl3d":
        t = lib.arange(float(n)).reshape(shape)
        return t.contiguous(memory_format=lib.channels_last_3d)
    if kind == "empty":
        return lib.empty(shape)
    if kind == "expanded":
        if not shape:
            return lib.tensor(1.0).expand(())
        t = lib.arange(float(shape[-1] if shape else 1)).reshape(
            [1] * (len(shape) - 1) + [shape[-1]] if shape else []
        )
        return t.expand(*shape)
    raise ValueError(kind)


OPS = [
    "unsqueeze",
    "view",
    "reshape",
    "expand",
    "permute",
    "narrow",
    "select",
    "unflatten",
    "movedim",
    "as_strided",
    "diagonal",
    "T",
    "mT",
    "squeeze",
    "squeeze_dim",
    "transpose",
    "t",
    "flatten",
    "slice",
    "unbind",
    "split",
    "chunk",
    "unfold",
    "swapaxes",
    "index_int",
    "none_index",
    "ellipsis",
    "view_as",
    "expand_as",
    "tensor_split",
    "contiguous",
    "alias",
    "detach",
    "real",
    "squeeze_dims",
    "mH",
    "H",
    "adjoint",
    "broadcast_to",
    "flatten_all",
    "ravel",
    "reshape_flat",
    "hsplit",
    "vsplit",
    "dsplit",
    "unsqueeze_neg",
    "contiguous_cl",
    "narrow_empty",
    "slice_empty",
    "view_neg1",
]


def params(op, shape, r):
    nd = len(shape)
    if op in ("unsqueeze",):
        return (r.randint(-nd - 1, nd),)
    if op == "view" or op == "reshape":
        # random factorization with maybe 1s inserted
        n = int(np.prod(shape))
        if n == 0:
            s = list(shape)
            r.shuffle(s)
            if r.random() < 0.5:
                s.insert(r.randint(0, len(s)), 1)
            return (tuple(s),)
        fs = []
        m = n
        for p in (2, 3, 5, 7):
            while m % p == 0:
                fs.append(p)
                m //= p
        if m > 1:
            fs.append(m)
        r.shuffle(fs)
        out = []
        for f in fs:
            if out and r.random() < 0.5:
                out[-1] *= f
            else:
                out.append(f)
        for _ in range(r.randint(0, 2)):
            out.insert(r.randint(0, len(out)), 1)
        if r.random() < 0.3:
            out = list(shape)
        return (tuple(out),)
    if op == "view_neg1":
        if nd == 0:
            return ((-1,),)
        s = list(shape)
        i = r.randrange(nd)
        s[i] = -1
        return (tuple(s),)
    if op in ("expand", "broadcast_to"):
        s = [n if n != 1 or r.random() < 0.5 else r.choice([0, 1, 2, 3]) for n in shape]
        lead = [r.choice([0, 1, 2]) for _ in range(r.randint(0, 2))]
        if r.random() < 0.3:
            s = [-1] * len(s)
        return (tuple(lead + s),)
    if op in ("permute",):
        p = list(range(nd))
        r.shuffle(p)
        return (tuple(p),)
    if op in ("narrow", "narrow_empty"):
        if nd == 0:
            return None
        d = r.randrange(nd)
        n = shape[d]
        st = r.randint(0, n)
        ln = 0 if op == "narrow_empty" else r.randint(0, n - st)
        return (d - nd * r.randint(0, 1), st, ln)
    if op in ("select", "index_int"):
        ds = [d for d in range(nd) if shape[d] > 0]
        if not ds:
            return None
        d = r.choice(ds)
        return (d, r.randint(-shape[d], shape[d] - 1))
    if op == "unflatten":
        if nd == 0:
            return None
        d = r.randrange(nd)
        n = shape[d]
        if n == 0:
            return (d, (0, r.choice([1, 2, -1]) if r.random() < 0.5 else 3))
        fs = [f for f in range(1, n + 1) if n % f == 0]
        f = r.choice(fs)
        sz = [f, n // f]
        if r.random() < 0.5:
            sz.insert(r.randint(0, 2), 1)
        if r.random() < 0.3:
            sz[r.randrange(len(sz))] = -1
        return (d, tuple(sz))
    if op == "movedim":
        if nd == 0:
            return None
        return (r.randrange(nd), r.randrange(nd))
    if op == "as_strided":
        k = r.randint(0, 3)
        size = tuple(r.choice([0, 1, 2, 3]) for _ in range(k))
        stride = tuple(r.choice([0, 1, 2, 3, 4]) for _ in range(k))
        return (size, stride, r.randint(0, 2))
    if op == "diagonal":
        if nd < 2:
            return None
        a, b = r.sample(range(nd), 2)
        return (r.randint(-2, 2), a, b)
    if op in ("T", "H"):
        return () if nd in (0, 2) else None
    if op in ("mT", "mH", "adjoint"):
        return () if nd >= 2 else None
    if op == "t":
        return () if nd <= 2 else None
    if op == "squeeze":
        return ()
    if op == "squeeze_dim":
        if nd == 0:
            return (0,)
        return (r.randrange(nd),)
    if op == "squeeze_dims":
        if nd == 0:
            return ((),)
        return (tuple(r.sample(range(nd), r.randint(1, nd))),)
    if op in ("transpose", "swapaxes"):
        if nd == 0:
            return (0, 0)
        return (r.randrange(nd), r.randrange(nd))
    if op == "flatten":
        if nd == 0:
            return (0, -1)
        a = r.randrange(nd)
        b = r.randrange(a, nd)
        return (a, b)
    if op in (
        "flatten_all",
        "ravel",
        "reshape_flat",
        "contiguous",
        "alias",
        "detach",
        "real",
        "view_as",
        "expand_as",
        "none_index",
        "ellipsis",
        "contiguous_cl",
    ):
        return ()
    if op in ("slice", "slice_empty"):
        if nd == 0:
            return None
        d = r.randrange(nd)
        n = shape[d]
        a = r.randint(-n - 1, n + 1)
        b = r.randint(-n - 1, n + 1)
        st = r.choice([1, 1, 2, 3])
        if op == "slice_empty":
            b = a
        return (d, a, b, st)
    if op == "unbind":
        if nd == 0:
            return None
        d = r.randrange(nd)
        if shape[d] == 0:
            return None
        return (d, r.randrange(shape[d]))
    if op in ("split", "chunk", "tensor_split"):
        if nd == 0:
            return None
        d = r.randrange(nd)
        return (d, r.randint(1, 3), r.randint(0, 3))
    if op in ("hsplit", "vsplit", "dsplit"):
        need = {"hsplit": 1, "vsplit": 2, "dsplit": 3}[op]
        if nd < need:
            return None
        d = {"hsplit": 1 if nd > 1 else 0, "vsplit": 0, "dsplit": 2}[op]
        n = shape[d]
        fs = [f for f in range(1, max(n, 1) + 1) if n % f == 0] if n else [1, 2]
        return (r.choice(fs), r.randint(0, 3))
    if op == "unfold":
        if nd == 0:
            return (0, r.randint(0, 1), r.randint(1, 2))
        d = r.randrange(nd)
        return (d, r.randint(0, shape[d]), r.randint(1, 3))
    if op == "unsqueeze_neg":
        return (-1,)
    return ()


def apply(op, t, p):
    if op == "unsqueeze" or op == "unsqueeze_neg":
        return t.unsqueeze(p[0])
    if op == "view":
        return t.view(p[0])
    if op == "view_neg1":
        return t.view(p[0])
    if op == "reshape":
        return t.reshape(p[0])
    if op == "expand":
        return t.expand(*p[0])
    if op == "broadcast_to":
        return t.broadcast_to(p[0])
    if op == "permute":
        return t.permute(*p[0])
    if op in ("narrow", "narrow_empty"):
        return t.narrow(*p)
    if op == "select":
        return t.select(*p)
    if op == "index_int":
        d, i = p
        return t[(slice(None),) * d + (i,)]
    if op == "unflatten":
        return t.unflatten(*p)
    if op == "movedim":
        return t.movedim(*p)
    if op == "as_strided":
        return t.as_strided(*p)
    if op == "diagonal":
        return t.diagonal(*p)
    if op == "T":
        return t.T
    if op == "H":
        return t.H
    if op == "mT":
        return t.mT
    if op == "mH":
        return t.mH
    if op == "adjoint":
        return t.adjoint()
    if op == "t":
        return t.t()
    if op == "squeeze":
        return t.squeeze()
    if op == "squeeze_dim":
        return t.squeeze(p[0])
    if op == "squeeze_dims":
        return t.squeeze(p[0])
    if op == "transpose":
        return t.transpose(*p)
    if op == "swapaxes":
        return t.swapaxes(*p)
    if op == "flatten":
        return t.flatten(*p)
    if op == "flatten_all":
        return t.flatten()
    if op == "ravel":
        return t.ravel()
    if op == "reshape_flat":
        return t.reshape(-1)
    if op == "contiguous":
        return t.contiguous()
    if op == "contiguous_cl":
        return t.contiguous(memory_format=t.__class__ and _lib(t).channels_last)
    if op == "alias":
        return t[...]
    if op == "detach":
        return t.detach()
    if op == "real":
        return t.real
    if op == "view_as":
        return t.view_as(t)
    if op == "expand_as":
        return t.expand_as(t)
    if op == "none_index":
        return t[None]
    if op == "ellipsis":
        return t[..., None]
    if op in ("slice", "slice_empty"):
        d, a, b, st = p
        return t[(slice(None),) * d + (slice(a, b, st),)]
    if op == "unbind":
        return t.unbind(p[0])[p[1]]
    if op == "split":
        d, k, i = p
        parts = t.split(k, d)
        return parts[i % len(parts)]
    if op == "chunk":
        d, k, i = p
        parts = t.chunk(k, d)
        return parts[i % len(parts)] if parts else None
    if op == "tensor_split":
        d, k, i = p
        parts = t.tensor_split(k, d)
        return parts[i % len(parts)]
    if op == "hsplit":
        k, i = p
        parts = t.hsplit(k)
        return parts[i % len(parts)]
    if op == "vsplit":
        k, i = p
        parts = t.vsplit(k)
        return parts[i % len(parts)]
    if op == "dsplit":
        k, i = p
        parts = t.dsplit(k)
        return parts[i % len(parts)]
    if op == "unfold":
        return t.unfold(*p)
    raise ValueError(op)


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else mt


def obs(t, base):
    d = {
        "shape": tuple(t.shape),
        "stride": tuple(t.stride()),
        "off": t.storage_offset(),
        "contig": t.is_contiguous(),
    }
    lib = _lib(t)
    for name in ("channels_last", "channels_last_3d"):
        try:
            d[name] = t.is_contiguous(memory_format=getattr(lib, name))
        except Exception as e:
            d[name] = type(e).__name__
    return d


STARTS = ["contig", "transposed", "sliced", "cl", "cl3d", "empty", "expanded"]


def rand_shape(r, kind):
    if kind == "cl":
        nd = 4
    elif kind == "cl3d":
        nd = 5
    else:
        nd = r.randint(0, 4)
    return tuple(
        r.choice([0, 1, 1, 2, 3]) if r.random() < 0.6 else r.choice([1, 2, 3, 4]) for _ in range(nd)
    )


def run_case(seed, want_ops=None):
    r = random.Random(seed)
    kind = r.choice(STARTS)
    shape = rand_shape(r, kind)
    tt = start(torch, kind, shape)
    mm = start(mt, kind, shape)
    ttb, mmb = tt, mm
    chain = [("start", kind, shape)]
    ot, om = obs(tt, ttb), obs(mm, mmb)
    for k in ot:
        if ot[k] != om[k]:
            return (k, "start:" + kind, chain, f"torch {ot[k]} mt {om[k]}  shape {ot['shape']}")
    nsteps = r.randint(1, 4)
    for _ in range(nsteps):
        op = r.choice(OPS)
        p = params(op, tuple(tt.shape), r)
        if p is None:
            continue
        chain.append((op, p))
        try:
            tn = apply(op, tt, p)
        except Exception as e:
            te = e
            tn = None
        else:
            te = None
        try:
            mn = apply(op, mm, p)
        except Exception as e:
            me = e
            mn = None
        else:
            me = None
        if te is not None or me is not None:
            if (te is None) != (me is None) or type(te) is not type(me):
                return (
                    "error",
                    op,
                    chain,
                    f"torch {type(te).__name__}:{str(te)[:80]} / mt {type(me).__name__}:{str(me)[:80]}",
                )
            return None
        if tn is None or mn is None:
            return None
        tt, mm = tn, mn
        ot, om = obs(tt, ttb), obs(mm, mmb)
        for k in ot:
            if ot[k] != om[k]:
                return (k, op, chain, f"torch {ot[k]} mt {om[k]}  shape {ot['shape']}")
        tv = tt.detach().numpy() if tt.numel() else None
        mv = np.asarray(mm.detach().numpy()) if mm.numel() else None
        if tv is not None and not np.array_equal(tv, mv) and kind != "empty":
            return ("values", op, chain, "")
    # sharing: write into the final view (if it doesn't overlap) and compare bases
    if (
        kind != "empty"
        and tt.numel()
        and not any(s == 0 and n > 1 for s, n in zip(tt.stride(), tt.shape, strict=False))
    ):
        try:
            with torch.no_grad():
                tt.fill_(-7.0)
        except Exception:
            return None
        try:
            mm.fill_(-7.0)
        except Exception as e:
            return ("share_err", chain[-1][0], chain, repr(e)[:100])
        a = ttb.detach().numpy()
        b = np.asarray(mmb.detach().numpy())
        if kind != "expanded" and not np.array_equal(a, b):
            return ("sharing", chain[-1][0], chain, "")
    return None


def main():
    global run_case
    args = H.cli("strides", default_cases=2000)
    run_case = H.limited(run_case, args.timeout, lambda e: ("timeout", "?", [], str(e)))
    rep = args.report
    for seed in range(args.seed, args.seed + args.cases):
        rep.case()
        try:
            res = run_case(seed)
        except Exception:  # noqa: BLE001
            res = ("crash", "?", [], traceback.format_exc(limit=2)[-300:])
        if res:
            rep.add((res[0], res[1]), f"seed {seed}", res[2], res[3])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
