"""Differential fuzzer: torch.nn.functional.

Families (--fam): pad, pool (max/avg/lp/adaptive/fractional, unpool), unfold/fold, conv
(conv*d/conv_transpose*d with stride/padding/dilation/groups), dist (pairwise/cdist/cosine
similarity/pdist/normalize), misc (activations, softmax family, glu, pixel_shuffle, ...), emb
(embedding/embedding_bag), interp (interpolate in every mode). Values, dtypes, shapes, 1st (and
sometimes 2nd) gradients, in-place side effects, exception type and message; a gradient mismatch
where torch's own gradcheck fails is counted as "-torchbad". Adapted from session 22's h9 fuzzers
(fz_multi.py, fz_interp.py, harness.py).
"""

# ruff: noqa: E501  (code adapted as-is from the session fuzzers)

import random
import traceback

import _harness as H
import numpy as np
from _harness import mt, torch

# ----------------------------------------------------------------------


# ----------------------------------------------------------------------


def _flat(o):
    if isinstance(o, (tuple, list)):
        r = []
        for x in o:
            r += _flat(x)
        return r
    return [o]


def _mk(T, a, rg):
    if isinstance(a, np.ndarray):
        t = T.tensor(a.copy()) if a.ndim else T.tensor(a.item())
        if rg and a.dtype.kind == "f":
            t.requires_grad_(True)
        return t
    return a


def _np(T, g):
    if T is torch:
        return g.detach().numpy(force=True).copy()
    return g.detach().numpy().copy()


def _run(T, fn, arrays, rg, second):
    ins = [_mk(T, a, rg) for a in arrays]
    try:
        out = fn(T, *ins)
    except Exception as e:
        return ("err", type(e).__name__, str(e).split("\n")[0][:300]), None, None, ins
    outs = _flat(out)
    vals = []
    for o in outs:
        if isinstance(o, (T.Tensor,)):
            vals.append(
                (
                    "t",
                    str(o.dtype).replace("minitorch.", "torch."),
                    tuple(o.shape),
                    o.detach().cpu().numpy().copy(),
                )
            )
        else:
            vals.append(("py", o))
    grads = None
    gg = None
    if rg:
        leaves = [t for t in ins if isinstance(t, T.Tensor) and t.requires_grad]
        fo = [
            o
            for o in outs
            if isinstance(o, T.Tensor) and o.requires_grad and o.dtype.is_floating_point
        ]
        if leaves and fo:
            rs = np.random.RandomState(123)
            loss = 0
            for o in fo:
                w = T.tensor(rs.standard_normal(tuple(o.shape)), dtype=o.dtype)
                loss = loss + (o * w).sum()
            try:
                gs = T.autograd.grad(loss, leaves, allow_unused=True, create_graph=second)
                grads = [None if g is None else _np(T, g) for g in gs]
                if second:
                    s = 0
                    for g in gs:
                        if g is not None and g.requires_grad:
                            s = s + (g * g).sum()
                    if not isinstance(s, int):
                        g2 = T.autograd.grad(s, leaves, allow_unused=True)
                        gg = [None if g is None else _np(T, g) for g in g2]
            except Exception as e:
                grads = ("err", type(e).__name__, str(e).split("\n")[0][:300])
    # post-call input state (in-place side effects)
    post = [t.detach().numpy().copy() if isinstance(t, T.Tensor) else None for t in ins]
    return ("ok", vals), grads, gg, post


def close(a, b, tol):
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        return np.array_equal(a, b)
    return np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def compare(name, fn, arrays, rg=True, second=False, tol=None, check_msg=True):
    """returns list of mismatch descriptions."""
    dt = [a.dtype for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    if tol is None:
        tol = 1e-9 if (dt and dt[0] == np.float64) else 2e-4
    try:
        tr = _run(torch, fn, arrays, rg, second)
    except Exception as e:
        return [("torch-crash", repr(e)[:200])]
    try:
        mr = _run(mt, fn, arrays, rg, second)
    except Exception:
        return [("mt-crash", traceback.format_exc()[-500:])]
    res = []
    t0, m0 = tr[0], mr[0]
    if t0[0] == "err" or m0[0] == "err":
        if t0[0] != m0[0]:
            res.append(("err-presence", str(t0)[:300], str(m0)[:300]))
        else:
            if t0[1] != m0[1]:
                res.append(("err-type", t0[1:], m0[1:]))
            elif check_msg and t0[2] != m0[2]:
                res.append(("err-msg", t0[2], m0[2]))
        return res
    tv, mv = t0[1], m0[1]
    if len(tv) != len(mv):
        return [("nout", len(tv), len(mv))]
    for i, (a, b) in enumerate(zip(tv, mv, strict=False)):
        if a[0] != b[0]:
            res.append(("kind", i, a[0], b[0]))
            continue
        if a[0] == "py":
            if a[1] != b[1]:
                res.append(("pyval", i, a[1], b[1]))
            continue
        if a[1] != b[1]:
            res.append(("dtype", i, a[1], b[1]))
        if a[2] != b[2]:
            res.append(("shape", i, a[2], b[2]))
            continue
        if not close(a[3], b[3], tol):
            d = np.nanmax(np.abs(a[3].astype(float) - b[3].astype(float))) if a[3].size else 0
            res.append(("value", i, float(d)))
    tg, mg = tr[1], mr[1]
    if tg is not None or mg is not None:
        if tg is None or mg is None or isinstance(tg, tuple) or isinstance(mg, tuple):
            if not (isinstance(tg, tuple) and isinstance(mg, tuple)):
                res.append(
                    (
                        "grad-presence",
                        str(tg)[:200] if isinstance(tg, tuple) else tg is None,
                        str(mg)[:200] if isinstance(mg, tuple) else mg is None,
                    )
                )
        else:
            for i, (a, b) in enumerate(zip(tg, mg, strict=False)):
                if a is None and b is None:
                    continue
                if a is None:
                    a = np.zeros_like(b)
                if b is None:
                    b = np.zeros_like(a)
                if not close(a, b, tol * 10):
                    res.append(
                        (
                            "grad",
                            i,
                            float(np.nanmax(np.abs(a - b)))
                            if a.shape == b.shape
                            else (a.shape, b.shape),
                        )
                    )
    tgg, mgg = tr[2], mr[2]
    if tgg is not None and mgg is not None:
        for i, (a, b) in enumerate(zip(tgg, mgg, strict=False)):
            if a is None or b is None:
                continue
            if not close(a, b, tol * 100):
                res.append(("gradgrad", i, float(np.nanmax(np.abs(a - b)))))
    elif (tgg is None) != (mgg is None):
        res.append(("gg-presence", tgg is None, mgg is None))
    for i, (a, b) in enumerate(zip(tr[3], mr[3], strict=False)):
        if a is not None and b is not None and not close(a, b, tol):
            res.append(("inplace-side", i))
    return res


# ----------------------------------------------------------------------

rnd = random.Random(0)
rs = np.random.RandomState(0)


def R(*s):
    return rs.standard_normal(s)


def dtp():
    return rnd.choice([np.float64, np.float64, np.float32])


def tup(n, lo, hi):
    v = [rnd.randint(lo, hi) for _ in range(n)]
    return v[0] if rnd.random() < 0.3 else tuple(v)


def g_pad():
    nd = rnd.randint(1, 5)
    shape = [rnd.randint(1, 5) for _ in range(nd)]
    mode = rnd.choice(["constant", "reflect", "replicate", "circular"])
    npairs = rnd.randint(1, 3) if mode != "constant" else rnd.randint(1, nd)
    pad = tuple(rnd.randint(-3, 5) for _ in range(2 * npairs))
    kw = {"mode": mode}
    if mode == "constant" and rnd.random() < 0.5:
        kw["value"] = rnd.choice([0.5, -2.0, float("inf")])
    x = R(*shape).astype(dtp())
    return "pad-" + mode, (lambda T, a: T.nn.functional.pad(a, pad, **kw)), [x], dict(pad=pad, **kw)


def g_pool():
    kind = rnd.choice(["max", "avg", "lp", "amax", "aavg"])
    n = rnd.randint(1, 3)
    if kind == "lp":
        n = rnd.randint(1, 2)
    batched = rnd.random() < 0.8
    shape = (
        ([rnd.randint(1, 2)] if batched else [])
        + [rnd.randint(1, 3)]
        + [rnd.randint(1, 7) for _ in range(n)]
    )
    x = R(*shape).astype(dtp())
    if kind == "max" and rnd.random() < 0.3:
        x.flat[rnd.randrange(x.size)] = rnd.choice([np.nan, -np.inf, np.inf])
    if kind == "max" and rnd.random() < 0.2:
        x = np.round(x)  # ties
    F = f"{'max' if kind in ('max', 'amax') else 'avg' if kind in ('avg', 'aavg') else 'lp'}_pool{n}d"
    kw = {}
    if kind in ("max", "avg", "lp"):
        k = tup(n, 1, 4)
        kw["kernel_size"] = k
        if rnd.random() < 0.7:
            kw["stride"] = tup(n, 1, 3)
        if kind in ("max", "avg") and rnd.random() < 0.5:
            kw["padding"] = tup(n, 0, 2)
        if kind == "max" and rnd.random() < 0.5:
            kw["dilation"] = tup(n, 1, 3)
        if rnd.random() < 0.4:
            kw["ceil_mode"] = True
        if kind == "max" and rnd.random() < 0.5:
            kw["return_indices"] = True
        if kind == "avg" and rnd.random() < 0.4:
            kw["count_include_pad"] = False
        if kind == "avg" and n > 1 and rnd.random() < 0.3:
            kw["divisor_override"] = rnd.randint(1, 5)
        if kind == "lp":
            kw["norm_type"] = rnd.choice([1, 2, 3, 1.5, float("inf")])
            x = np.abs(x) + 0.1 if rnd.random() < 0.7 else x
        name = F
        args = kw

        def fn(T, a):
            return getattr(T.nn.functional, F)(a, **args)
    else:
        F = f"adaptive_{'max' if kind == 'amax' else 'avg'}_pool{n}d"
        os_ = [rnd.randint(1, 8) for _ in range(n)]
        if n > 1 and rnd.random() < 0.3:
            os_[rnd.randrange(n)] = None
        os_ = os_[0] if (n == 1 or rnd.random() < 0.2) and os_[0] is not None else tuple(os_)
        kw = {"output_size": os_}
        if kind == "amax" and rnd.random() < 0.5:
            kw["return_indices"] = True
        name = F

        def fn(T, a):
            return getattr(T.nn.functional, F)(a, **kw)

    return name, fn, [x], dict(shape=shape, **kw)


def g_unfold():
    shape = [rnd.randint(1, 2), rnd.randint(1, 3), rnd.randint(1, 7), rnd.randint(1, 7)]
    if rnd.random() < 0.2:
        shape = shape[1:]
    kw = dict(kernel_size=tup(2, 1, 3))
    if rnd.random() < 0.5:
        kw["dilation"] = tup(2, 1, 2)
    if rnd.random() < 0.5:
        kw["padding"] = tup(2, 0, 2)
    if rnd.random() < 0.5:
        kw["stride"] = tup(2, 1, 3)
    x = R(*shape).astype(dtp())
    if rnd.random() < 0.5:
        return (
            "unfold",
            (lambda T, a: T.nn.functional.unfold(a, **kw)),
            [x],
            dict(shape=shape, **kw),
        )
    # fold: build input via torch unfold shape
    import torch

    os_ = (rnd.randint(1, 7), rnd.randint(1, 7))
    try:
        L = torch.nn.functional.unfold(torch.zeros([1, 1] + list(os_)), **kw).shape[-1]
    except Exception:
        L = rnd.randint(1, 5)
    k = kw["kernel_size"]
    k = (k, k) if isinstance(k, int) else k
    C = rnd.randint(1, 2) * k[0] * k[1]
    if rnd.random() < 0.1:
        L += 1
    if rnd.random() < 0.05:
        C += 1
    y = R(*([rnd.randint(1, 2)] if rnd.random() < 0.8 else []), C, L).astype(dtp())
    return (
        "fold",
        (lambda T, a: T.nn.functional.fold(a, os_, **kw)),
        [y],
        dict(os=os_, shape=y.shape, **kw),
    )


def g_conv():
    n = rnd.randint(1, 3)
    tr = rnd.random() < 0.4
    g = rnd.choice([1, 1, 2, 3])
    cin = g * rnd.randint(1, 2)
    cout = g * rnd.randint(1, 2)
    k = [rnd.randint(1, 3) for _ in range(n)]
    batched = rnd.random() < 0.85
    sp = [rnd.randint(1, 6) for _ in range(n)]
    x = R(*(([rnd.randint(1, 2)] if batched else []) + [cin] + sp)).astype(dtp())
    w = R(*(([cin, cout // g] if tr else [cout, cin // g]) + k)).astype(x.dtype)
    b = R(cout).astype(x.dtype) if rnd.random() < 0.6 else None
    kw = {"groups": g}
    if rnd.random() < 0.5:
        kw["stride"] = tup(n, 1, 3)
    if rnd.random() < 0.5:
        kw["dilation"] = tup(n, 1, 2)
    if tr:
        if rnd.random() < 0.5:
            kw["padding"] = tup(n, 0, 2)
        if rnd.random() < 0.4:
            kw["output_padding"] = tup(n, 0, 2)
        F = f"conv_transpose{n}d"
    else:
        r = rnd.random()
        if r < 0.2:
            kw["padding"] = "same"
            kw.pop("stride", None) if rnd.random() < 0.8 else None
        elif r < 0.3:
            kw["padding"] = "valid"
        elif r < 0.7:
            kw["padding"] = tup(n, 0, 2)
        F = f"conv{n}d"
    arrays = [x, w] + ([b] if b is not None else [])
    if b is None:

        def fn(T, a, ww):
            return getattr(T.nn.functional, F)(a, ww, None, **kw)
    else:

        def fn(T, a, ww, bb):
            return getattr(T.nn.functional, F)(a, ww, bb, **kw)

    return F, fn, arrays, dict(x=x.shape, w=w.shape, b=b is not None, **kw)


def g_dist():
    k = rnd.choice(["cos", "pw", "pdist", "cdist", "normalize"])
    dt = dtp()
    if k == "cos":
        a = R(*[rnd.randint(1, 4) for _ in range(rnd.randint(1, 3))]).astype(dt)
        shb = list(a.shape)
        for i in range(len(shb)):
            if rnd.random() < 0.3:
                shb[i] = 1
        if rnd.random() < 0.2:
            shb = [rnd.randint(1, 2)] + shb
        b = R(*shb).astype(dt)
        if rnd.random() < 0.2:
            b[...] = 0
        kw = {"dim": rnd.randint(-1, len(shb) - 1) if rnd.random() < 0.5 else -1}
        if rnd.random() < 0.3:
            kw["eps"] = rnd.choice([1e-3, 1.0, 0.0])
        return (
            "cosine_similarity",
            (lambda T, x, y: T.nn.functional.cosine_similarity(x, y, **kw)),
            [a, b],
            dict(a=a.shape, b=b.shape, **kw),
        )
    if k == "pw":
        D = rnd.randint(1, 4)
        a = R(*([rnd.randint(1, 3)] if rnd.random() < 0.8 else []), D).astype(dt)
        b = R(*([rnd.randint(1, 3)] if rnd.random() < 0.5 else []), D).astype(dt)
        if a.ndim == 2 and b.ndim == 2 and a.shape[0] != b.shape[0] and rnd.random() < 0.7:
            b = R(1, D).astype(dt)
        if rnd.random() < 0.2:
            b = a.copy()
        kw = {"p": rnd.choice([0, 1, 2, 3, 1.5, 0.5, float("inf"), -1.0, float("-inf")])}
        if rnd.random() < 0.4:
            kw["keepdim"] = True
        if rnd.random() < 0.3:
            kw["eps"] = rnd.choice([0.0, 1e-3])
        return (
            "pairwise_distance",
            (lambda T, x, y: T.nn.functional.pairwise_distance(x, y, **kw)),
            [a, b],
            dict(a=a.shape, b=b.shape, **kw),
        )
    if k == "pdist":
        a = R(rnd.randint(1, 5), rnd.randint(1, 4)).astype(dt)
        if rnd.random() < 0.3 and a.shape[0] > 1:
            a[1] = a[0]
        p = rnd.choice([0, 1, 2, 3, 1.5, 0.5, float("inf")])
        return "pdist", (lambda T, x: T.nn.functional.pdist(x, p)), [a], dict(a=a.shape, p=p)
    if k == "cdist":
        B = [rnd.randint(1, 2)] if rnd.random() < 0.5 else []
        D = rnd.randint(1, 4)
        a = R(*B, rnd.randint(1, 5), D).astype(dt)
        b = R(*B, rnd.randint(1, 5), D).astype(dt)
        if rnd.random() < 0.3:
            b[..., 0, :] = a[..., 0, :]
        kw = {"p": rnd.choice([0, 1, 2, 3, 1.5, 0.5, float("inf")])}
        if rnd.random() < 0.5:
            kw["compute_mode"] = rnd.choice(
                [
                    "use_mm_for_euclid_dist_if_necessary",
                    "use_mm_for_euclid_dist",
                    "donot_use_mm_for_euclid_dist",
                ]
            )
        return (
            "cdist",
            (lambda T, x, y: T.cdist(x, y, **kw)),
            [a, b],
            dict(a=a.shape, b=b.shape, **kw),
        )
    a = R(*[rnd.randint(1, 4) for _ in range(rnd.randint(1, 3))]).astype(dt)
    if rnd.random() < 0.2:
        a[...] = 0
    kw = {"p": rnd.choice([1, 2, 3, 0.5, float("inf")]), "dim": rnd.randint(-a.ndim, a.ndim - 1)}
    if rnd.random() < 0.3:
        kw["eps"] = rnd.choice([1e-3, 1.0])
    return (
        "normalize",
        (lambda T, x: T.nn.functional.normalize(x, **kw)),
        [a],
        dict(a=a.shape, **kw),
    )


def g_misc():
    k = rnd.choice(["one_hot", "pix", "unpix", "chsh", "unpool", "grid", "affine"])
    dt = dtp()
    if k == "one_hot":
        a = np.array(
            rs.randint(0, 5, size=[rnd.randint(0, 3) for _ in range(rnd.randint(0, 2))]),
            dtype=np.int64,
        )
        if rnd.random() < 0.1 and a.size:
            a.flat[0] = -1
        nc = rnd.choice([-1, -1, 5, 6, 3])
        return (
            "one_hot",
            (lambda T, x: T.nn.functional.one_hot(x, nc)),
            [a],
            dict(a=a.tolist(), nc=nc),
        )
    if k in ("pix", "unpix"):
        r = rnd.randint(1, 3)
        if k == "pix":
            a = R(
                *([rnd.randint(1, 2)] if rnd.random() < 0.5 else []),
                rnd.randint(1, 2) * r * r * (1 if rnd.random() < 0.9 else 2)
                + (1 if rnd.random() < 0.05 else 0),
                rnd.randint(1, 3),
                rnd.randint(1, 3),
            ).astype(dt)
            return (
                "pixel_shuffle",
                (lambda T, x: T.nn.functional.pixel_shuffle(x, r)),
                [a],
                dict(a=a.shape, r=r),
            )
        a = R(
            *([rnd.randint(1, 2)] if rnd.random() < 0.5 else []),
            rnd.randint(1, 2),
            rnd.randint(1, 2) * r + (1 if rnd.random() < 0.05 else 0),
            rnd.randint(1, 2) * r,
        ).astype(dt)
        return (
            "pixel_unshuffle",
            (lambda T, x: T.nn.functional.pixel_unshuffle(x, r)),
            [a],
            dict(a=a.shape, r=r),
        )
    if k == "chsh":
        g = rnd.randint(1, 3)
        a = R(
            rnd.randint(1, 2),
            g * rnd.randint(1, 3),
            *[rnd.randint(1, 3) for _ in range(rnd.randint(0, 2))],
        ).astype(dt)
        return (
            "channel_shuffle",
            (lambda T, x: T.nn.functional.channel_shuffle(x, g)),
            [a],
            dict(a=a.shape, g=g),
        )
    if k == "unpool":
        n = rnd.randint(1, 3)
        sp = [rnd.randint(2, 6) for _ in range(n)]
        a = R(rnd.randint(1, 2), rnd.randint(1, 2), *sp).astype(dt)
        ks = rnd.randint(1, 3)
        st = rnd.choice([None, 1, 2, 3])
        pd = rnd.randint(0, ks // 2)
        osz = rnd.random() < 0.3

        def fn(T, x):
            F = T.nn.functional
            y, idx = getattr(F, f"max_pool{n}d")(x, ks, st, pd, return_indices=True)
            if osz:
                s = list(getattr(F, f"max_unpool{n}d")(y.detach(), idx, ks, st, pd).shape)
                s = [v + 1 for v in s[2:]]
                return getattr(F, f"max_unpool{n}d")(y, idx, ks, st, pd, output_size=s)
            return getattr(F, f"max_unpool{n}d")(y, idx, ks, st, pd)

        return f"max_unpool{n}d", fn, [a], dict(a=a.shape, ks=ks, st=st, pd=pd, osz=osz)
    if k == "grid":
        n = rnd.choice([2, 2, 3])
        N_ = rnd.randint(1, 2)
        C = rnd.randint(1, 2)
        sp = [rnd.randint(1, 5) for _ in range(n)]
        a = R(N_, C, *sp).astype(dt)
        osp = [rnd.randint(1, 4) for _ in range(n)]
        g = (rs.uniform(-1.6, 1.6, size=[N_] + osp + [n])).astype(dt)
        if rnd.random() < 0.2:
            g = np.round(g * 2) / 2
        mode = rnd.choice(["bilinear", "nearest"] + (["bicubic"] if n == 2 else []))
        kw = dict(
            mode=mode,
            padding_mode=rnd.choice(["zeros", "border", "reflection"]),
            align_corners=rnd.choice([True, False]),
        )
        return (
            "grid_sample-" + mode,
            (lambda T, x, gg: T.nn.functional.grid_sample(x, gg, **kw)),
            [a, g],
            dict(a=a.shape, g=g.shape, **kw),
        )
    n = rnd.choice([2, 3])
    N_ = rnd.randint(1, 2)
    th = R(N_, n, n + 1).astype(dt)
    size = [N_, rnd.randint(1, 3)] + [rnd.randint(1, 4) for _ in range(n)]
    ac = rnd.choice([True, False])
    return (
        "affine_grid",
        (lambda T, t: T.nn.functional.affine_grid(t, size, align_corners=ac)),
        [th],
        dict(size=size, ac=ac),
    )


def g_emb():
    k = rnd.choice(["emb", "bag"])
    dt = dtp()
    V = rnd.randint(2, 7)
    D = rnd.randint(1, 4)
    W = R(V, D).astype(dt)
    if k == "emb":
        idx = rs.randint(0, V, size=[rnd.randint(1, 4) for _ in range(rnd.randint(1, 2))]).astype(
            np.int64
        )
        kw = {}
        if rnd.random() < 0.4:
            kw["padding_idx"] = rnd.randint(-V, V - 1)
        if rnd.random() < 0.4:
            kw["max_norm"] = rnd.choice([0.5, 1.0, 2.0])
            if rnd.random() < 0.5:
                kw["norm_type"] = rnd.choice([1.0, 3.0, float("inf")])
        if rnd.random() < 0.3:
            kw["scale_grad_by_freq"] = True
        if kw.get("max_norm") is None and rnd.random() < 0.0:
            kw["sparse"] = True
        return (
            "embedding",
            (lambda T, i, w: T.nn.functional.embedding(i, w, **kw)),
            [idx, W],
            dict(idx=idx.tolist(), W=W.shape, **kw),
        )
    mode = rnd.choice(["sum", "mean", "max"])
    kw = {"mode": mode}
    if rnd.random() < 0.5:
        L = rnd.randint(0, 8)
        idx = rs.randint(0, V, size=L).astype(np.int64)
        offs = sorted(rs.randint(0, L + 1, size=rnd.randint(1, 4)).tolist())
        offs[0] = 0
        offs = np.array(offs, dtype=np.int64)
        if rnd.random() < 0.3 and len(offs) > 1:
            kw["include_last_offset"] = True
            offs[-1] = L
        arrs = [idx, W, offs]
        psw = mode == "sum" and rnd.random() < 0.5
        if psw:
            arrs.append(R(L).astype(dt))
    else:
        idx = rs.randint(0, V, size=(rnd.randint(1, 3), rnd.randint(1, 3))).astype(np.int64)
        arrs = [idx, W]
        psw = mode == "sum" and rnd.random() < 0.4
        if psw:
            arrs.append(R(*idx.shape).astype(dt))
    if rnd.random() < 0.3:
        kw["padding_idx"] = rnd.randint(0, V - 1)
    if rnd.random() < 0.2:
        kw["max_norm"] = 1.0
    pass

    def fn(T, *a):
        a = list(a)
        i, w = a[0], a[1]
        rest = a[2:]
        offs = None
        p = None
        if len(rest) and rest[0].dtype == T.int64:
            offs = rest[0]
            rest = rest[1:]
        if rest:
            p = rest[0]
        return T.nn.functional.embedding_bag(i, w, offs, per_sample_weights=p, **kw)

    return (
        "embedding_bag-" + mode,
        fn,
        arrs,
        dict(
            shapes=[x.shape for x in arrs],
            offs=arrs[2].tolist() if len(arrs) > 2 and arrs[2].dtype == np.int64 else None,
            **kw,
        ),
    )


# ----------------------------------------------------------------------

MODES = ["nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area"]


def interp_case(rep):
    modes = MODES
    nd = rnd.choice([1, 2, 3])
    mode = rnd.choice(modes)
    if rnd.random() < 0.8:
        nd = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}.get(mode, nd)
    shape = [rnd.randint(1, 2), rnd.randint(1, 3)] + [rnd.randint(1, 6) for _ in range(nd)]
    dt = rnd.choice([np.float64, np.float64, np.float32])
    x = rs.standard_normal(shape).astype(dt)
    kw = {"mode": mode}
    if rnd.random() < 0.5:
        s = [rnd.randint(1, 9) for _ in range(nd)]
        kw["size"] = s[0] if (nd == 1 or rnd.random() < 0.3) and rnd.random() < 0.5 else tuple(s)
    else:
        sc = [rnd.choice([0.5, 1.5, 2, 2.0, 3, 0.7, 1.3, 0.25, 1.0, 2.5, 0.33]) for _ in range(nd)]
        kw["scale_factor"] = sc[0] if rnd.random() < 0.5 else tuple(sc)
        if rnd.random() < 0.4:
            kw["recompute_scale_factor"] = rnd.choice([True, False])
    if mode in ("linear", "bilinear", "bicubic", "trilinear") and rnd.random() < 0.6:
        kw["align_corners"] = rnd.choice([True, False])
    elif rnd.random() < 0.05:
        kw["align_corners"] = True
    if mode in ("bilinear", "bicubic") and rnd.random() < 0.4:
        kw["antialias"] = True
    if rnd.random() < 0.03:
        kw["size"] = 3
        kw["scale_factor"] = 2

    def fn(T, a):
        return T.nn.functional.interpolate(a, **kw)

    second = rnd.random() < 0.2
    try:
        r = compare("interp", fn, [x], second=second)
    except Exception as e:
        r = [("harness", repr(e)[:200])]
    for m in r:
        key = (mode, m[0])
        if m[0] in ("grad", "gradgrad") and dt == np.float64:
            import torch

            a = torch.tensor(x, requires_grad=True)
            try:
                ok = torch.autograd.gradcheck(lambda a: fn(torch, a), (a,), raise_exception=False)
            except Exception:
                ok = False
            if not ok:
                key = (mode, "torch-grad-bug")
        if m[0] == "value" and kw.get("antialias") and (kw.get("size") is not None):
            key = (mode, "aa-value?")
        rep.add(key, (shape, dt.__name__, kw), m)


FAMS = ["pad", "pool", "unfold", "conv", "dist", "misc", "emb", "interp"]
GENS = {
    "dist": g_dist,
    "misc": g_misc,
    "emb": g_emb,
    "pad": g_pad,
    "pool": g_pool,
    "unfold": g_unfold,
    "conv": g_conv,
}


def multi_case(fam, rep):
    name, fn, arrays, desc = GENS[fam]()
    second = rnd.random() < 0.25
    dt = [a.dtype for a in arrays if a.dtype.kind == "f"]
    dt = dt[0] if dt else np.float32
    try:
        r = compare(name, fn, arrays, second=second and dt == np.float64)
    except Exception as e:
        r = [("harness", repr(e)[:200])]
    for m in r:
        key = (name, m[0])
        if m[0] in ("grad", "gradgrad") and dt == np.float64:
            ts = [torch.tensor(a, requires_grad=True) for a in arrays]
            try:
                ok = torch.autograd.gradcheck(
                    lambda *a: fn(torch, *a), ts, raise_exception=False, nondet_tol=1e-7
                )
            except Exception:
                ok = False
            if not ok:
                key = (name, m[0] + "-torchbad")
        rep.add(key, desc, m)


def main():
    global rnd, rs
    args = H.cli(
        "nn_functional",
        default_cases=6000,
        extra=lambda p: p.add_argument("--fam", help="comma-separated families (default all)"),
    )
    rep = args.report
    fams = args.fam.split(",") if args.fam else FAMS
    rnd = random.Random(args.seed)
    rs = np.random.RandomState(args.seed % 2**32)
    one = H.limited(
        lambda f: multi_case(f, rep) if f != "interp" else interp_case(rep),
        args.timeout,
        lambda e: rep.add("timeout", str(e)),
    )
    for _ in range(args.cases):
        rep.case()
        one(rnd.choice(fams))
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
