"""Differential fuzzer: loss functions (functional and module forms).

Generators (--only): ce, nll, bce, bcel, kl, pois, gauss, reg (l1/mse/huber/smooth_l1/soft
margin), regw, margin (hinge/cosine embedding/margin ranking), trip (triplet margin, with
distance functions), multi (multilabel/multi margin, multilabel soft margin), ctc; with reduction
variants, weights, ignore_index, label smoothing, dtypes. --mutate perturbs shapes/dtypes/targets
for error paths. Compares output, 1st and 2nd gradients, warnings, exception type and message.
--cases is per generator. Adapted from session 23's loss fuzzer (fz.py, gen.py, main.py).
"""

# ruff: noqa: E741  (code adapted as-is from the session fuzzers)

import random
import sys
import traceback
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential fuzzer for losses: torch vs minitorch.
DT = {
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "i64": "int64",
    "i32": "int32",
    "bool": "bool",
}


class Tn:  # tensor spec
    def __init__(self, arr, dt="f64", rg=False):
        self.arr, self.dt, self.rg = np.asarray(arr), dt, rg

    def build(self, L):
        t = L.tensor(
            self.arr.tolist() if self.arr.ndim else self.arr.item(), dtype=getattr(L, DT[self.dt])
        )
        if self.arr.size == 0:
            t = t.reshape(self.arr.shape)
        if self.rg:
            t.requires_grad_(True)
        return t

    def __repr__(self):
        return f"T{self.arr.shape}{self.dt}{'*' if self.rg else ''}"


class Fn:
    def __init__(self, name):
        self.name = name

    def build(self, L):
        if self.name == "pdist":
            return lambda a, b: L.nn.functional.pairwise_distance(a, b)
        if self.name == "cos":
            return lambda a, b: 1.0 - L.nn.functional.cosine_similarity(a, b)
        if self.name == "l1":
            return lambda a, b: (a - b).abs().sum(-1)
        return None

    def __repr__(self):
        return self.name


def bld(x, L):
    if isinstance(x, (Tn, Fn)):
        return x.build(L)
    return x


def summ(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        t = x.detach()
        if isinstance(x, torch.Tensor) and x._is_zerotensor():
            t = torch.zeros(x.shape, dtype=x.dtype)
        dt = str(t.dtype).split(".")[-1]
        a = (
            (t.double() if t.dtype.is_floating_point else t).numpy()
            if isinstance(x, torch.Tensor)
            else np.asarray((t.double() if t.dtype.is_floating_point else t).numpy())
        )
        return ("T", tuple(t.shape), dt, a)
    if x is None:
        return None
    return ("O", repr(x))


TOL = {"float64": 1e-8, "float32": 2e-4, "float16": 2e-2}


def run(case, L, form):
    fname, args, kw, mname = case
    ws = []
    res = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            a = [bld(x, L) for x in args]
            k = {n: bld(v, L) for n, v in kw.items()}
            if form == "F":
                out = getattr(L.nn.functional, fname)(*a, **k)
            else:
                mod = getattr(L.nn, mname)(**k)
                out = mod(*a)
            res["out"] = summ(out)
            ins = [
                x for x in a if isinstance(x, (torch.Tensor, minitorch.Tensor)) and x.requires_grad
            ]
            if isinstance(out, (torch.Tensor, minitorch.Tensor)) and out.requires_grad and ins:
                rs = np.random.RandomState(7)
                g = L.tensor(
                    rs.uniform(0.5, 1.5, size=tuple(out.shape)).tolist() if out.ndim else 1.3,
                    dtype=out.dtype,
                )
                try:
                    gs = L.autograd.grad(out, ins, g, create_graph=True, allow_unused=True)
                    res["g1"] = [summ(x) for x in gs]
                    if out.dtype == L.float64:
                        res["g1rg"] = ("O", repr([x is not None and x.requires_grad for x in gs]))
                    if out.dtype == L.float64:
                        tot = 0
                        for gi in gs:
                            if gi is not None and gi.requires_grad:
                                v = L.tensor(
                                    rs.uniform(0.5, 1.5, size=tuple(gi.shape)).tolist()
                                    if gi.ndim
                                    else 0.7,
                                    dtype=gi.dtype,
                                )
                                tot = tot + (gi * v).sum()
                        if isinstance(tot, (torch.Tensor, minitorch.Tensor)):
                            try:
                                g2 = L.autograd.grad(tot, ins, allow_unused=True)
                                res["g2"] = [summ(x) for x in g2]
                            except Exception as e:
                                res["g2"] = ("err", type(e).__name__, str(e)[:200])
                except Exception as e:
                    res["g1"] = ("err", type(e).__name__, str(e)[:300])
        except Exception as e:
            res["out"] = ("err", type(e).__name__, str(e)[:300])
            if "--tb" in sys.argv and L is minitorch:
                traceback.print_exc()
    ws = sorted(
        set(
            f"{x.category.__name__}: {str(x.message)[:200]}"
            for x in w
            if "TypedStorage" not in str(x.message) and "encountered in" not in str(x.message)
        )
    )
    res["warn"] = ws
    return res


def cmp(a, b, tol):
    if a is None or b is None:
        return (a is None) == (b is None), "none"
    if isinstance(a, tuple) and a and a[0] == "err":
        if not (isinstance(b, tuple) and b and b[0] == "err"):
            return False, "err vs ok"
        if a[1] != b[1]:
            return False, f"errtype {a[1]} vs {b[1]}"
        if a[2] != b[2]:
            return False, "errmsg"
        return True, ""
    if isinstance(b, tuple) and b and b[0] == "err":
        return False, "ok vs err"
    if isinstance(a, list):
        if len(a) != len(b):
            return False, "len"
        for x, y in zip(a, b, strict=False):
            ok, why = cmp(x, y, tol)
            if not ok:
                return ok, why
        return True, ""
    if a[0] == "O":
        return a == b, "obj"
    if a[1] != b[1]:
        return False, "shape"
    if a[2] != b[2]:
        return False, "dtype"
    x, y = np.asarray(a[3], np.float64), np.asarray(b[3], np.float64)
    t = TOL.get(a[2], 0)
    if x.shape and x.size == 0:
        return True, ""
    if not np.allclose(x, y, rtol=t, atol=t, equal_nan=True):
        # inf handling
        return False, "value"
    return True, ""


def compare(case, form):
    rt = run(case, torch, form)
    rm = run(case, minitorch, form)
    kinds = []
    for key in ("out", "g1", "g2", "g1rg"):
        if key not in rt and key not in rm:
            continue
        if (key in rt) != (key in rm):
            kinds.append(f"{key}:presence")
            continue
        ok, why = cmp(rt[key], rm[key], 0)
        if not ok:
            kinds.append(f"{key}:{why}")
    if case[0] in ("nll_loss", "multi_margin_loss", "multilabel_margin_loss", "ctc_loss"):
        kinds = [k for k in kinds if not k.startswith(("g1rg", "g2"))]
    if rt["warn"] != rm["warn"]:
        kinds.append("warn")
    return kinds, rt, rm


# ----------------------------------------------------------------------


RED = ["none", "mean", "sum"]


def red(r, kw, legacy=True, elem=True):
    c = r.random()
    if legacy and c < 0.15:
        kw["size_average"] = r.choice([None, True, False])
        kw["reduce"] = r.choice([None, True, False])
        if kw["size_average"] is None and kw["reduce"] is None:
            kw["reduce"] = False
    elif elem and c < 0.18:
        kw["reduction"] = "elementwise_mean"
    elif c < 0.2:
        kw["reduction"] = r.choice(["avg", "batchmean"])
    elif c < 0.85:
        kw["reduction"] = r.choice(RED)


def fdt(r):
    x = r.random()
    return "f64" if x < 0.7 else ("f32" if x < 0.9 else "f16")


def shape(r, lo=0, hi=3, mx=4):
    return tuple(r.randint(1, mx) for _ in range(r.randint(lo, hi)))


def arr(rs, shp, lo=-2, hi=2):
    return rs.uniform(lo, hi, size=shp)


def g_ce(r, rs, fname="cross_entropy"):
    dt = fdt(r)
    C = r.randint(1, 5)
    kind = r.random()
    if kind < 0.2:
        ish, tsh = (C,), ()
    else:
        N = r.randint(0 if r.random() < 0.05 else 1, 4)
        extra = tuple(r.randint(1, 3) for _ in range(r.choice([0, 0, 1, 2, 3])))
        ish, tsh = (N, C) + extra, (N,) + extra
    x = Tn(arr(rs, ish, -3, 3), dt, rg=True)
    if fname == "nll_loss":
        x = Tn(
            np.log(rs.dirichlet(np.ones(C), size=int(np.prod(ish)) // C).reshape((-1, C))).reshape(
                ish
            )
            if len(ish) < 2
            else np.moveaxis(
                np.log(rs.dirichlet(np.ones(C), size=int(np.prod(ish)) // C)).reshape(
                    ish[:1] + ish[2:] + (C,)
                ),
                -1,
                1,
            ),
            dt,
            rg=True,
        )
    kw = {}
    probs = fname == "cross_entropy" and r.random() < 0.3
    if probs:
        p = (
            rs.dirichlet(np.ones(C), size=int(np.prod(tsh))).reshape(tsh + (C,))
            if int(np.prod(tsh))
            else np.zeros(tsh + (C,))
        )
        p = np.moveaxis(p, -1, 0 if len(ish) == 1 else 1)
        t = Tn(p, dt if r.random() < 0.9 else "f64", rg=r.random() < 0.5)
    else:
        tv = rs.randint(0, C, size=tsh)
        ii = r.choice([None, -100, 0, 1, -1, -5])
        if ii is not None:
            kw["ignore_index"] = ii
            if r.random() < 0.3:
                tv = np.full(tsh, ii)
            elif r.random() < 0.5:
                m = rs.rand(*tsh) < 0.4
                tv = np.where(m, ii, tv)
        t = Tn(tv, r.choice(["i64", "i64", "i32"]) if r.random() < 0.97 else "f64")
        if r.random() < 0.03:
            t = Tn(np.full(tsh, C + 1), "i64")
    if r.random() < 0.4:
        kw["weight"] = Tn(rs.uniform(0.1, 2, size=(C,)), dt)
    if fname == "cross_entropy" and r.random() < 0.4:
        kw["label_smoothing"] = r.choice([0.0, 0.1, 0.5, 1.0, 0.33])
    if probs and r.random() < 0.2:
        kw["ignore_index"] = r.choice([-1, -100, 2])
    red(r, kw)
    return fname, [x, t], kw, "CrossEntropyLoss" if fname == "cross_entropy" else "NLLLoss"


def g_nll(r, rs):
    return g_ce(r, rs, "nll_loss")


def g_bce(r, rs):
    dt = fdt(r)
    sh = shape(r, 0, 3)
    xv = rs.uniform(0.01, 0.99, size=sh)
    if r.random() < 0.4:
        xv = np.where(rs.rand(*sh) < 0.3, rs.randint(0, 2, size=sh).astype(float), xv)
    tv = rs.uniform(0, 1, size=sh)
    if r.random() < 0.4:
        tv = rs.randint(0, 2, size=sh).astype(float)
    kw = {}
    if r.random() < 0.5:
        wsh = sh[r.randint(0, len(sh)) :] if sh else ()
        if r.random() < 0.3 and wsh:
            wsh = tuple(1 if r.random() < 0.5 else s for s in wsh)
        kw["weight"] = Tn(rs.uniform(0.1, 2, size=wsh), dt)
    red(r, kw)
    return "binary_cross_entropy", [Tn(xv, dt, True), Tn(tv, dt, r.random() < 0.5)], kw, "BCELoss"


def g_bcel(r, rs):
    dt = fdt(r)
    sh = shape(r, 0, 3)
    xv = rs.uniform(-4, 4, size=sh)
    tv = rs.uniform(0, 1, size=sh)
    kw = {}
    for nm in ("weight", "pos_weight"):
        if r.random() < 0.5:
            wsh = sh[r.randint(0, len(sh)) :] if sh else ()
            if r.random() < 0.3 and wsh:
                wsh = tuple(1 if r.random() < 0.5 else s for s in wsh)
            kw[nm] = Tn(rs.uniform(0.1, 2, size=wsh), dt)
    red(r, kw)
    return (
        "binary_cross_entropy_with_logits",
        [Tn(xv, dt, True), Tn(tv, dt, r.random() < 0.5)],
        kw,
        "BCEWithLogitsLoss",
    )


def g_kl(r, rs):
    dt = fdt(r)
    sh = shape(r, 0, 3)
    x = np.log(rs.uniform(0.05, 1, size=sh))
    lt = r.random() < 0.5
    tv = np.log(rs.uniform(0.05, 1, size=sh)) if lt else rs.uniform(0, 1, size=sh)
    if not lt and r.random() < 0.3:
        tv = np.where(rs.rand(*sh) < 0.4, 0.0, tv)
    kw = {}
    if r.random() < 0.5:
        kw["log_target"] = lt
    red(r, kw)
    if r.random() < 0.3:
        kw["reduction"] = "batchmean"
    return "kl_div", [Tn(x, dt, True), Tn(tv, dt, r.random() < 0.5)], kw, "KLDivLoss"


def g_pois(r, rs):
    dt = fdt(r)
    sh = shape(r, 0, 3)
    kw = {}
    li = r.random() < 0.5
    if r.random() < 0.7:
        kw["log_input"] = li
    else:
        li = True
    x = rs.uniform(-2, 2, size=sh) if li else rs.uniform(0, 3, size=sh)
    if not li and r.random() < 0.3:
        x = np.where(rs.rand(*sh) < 0.3, 0.0, x)
    tv = rs.randint(0, 5, size=sh).astype(float)
    if r.random() < 0.5:
        kw["full"] = r.random() < 0.7
    if r.random() < 0.3:
        kw["eps"] = r.choice([1e-8, 0.1, 0.0, 1.0])
    red(r, kw, elem=False)
    return "poisson_nll_loss", [Tn(x, dt, True), Tn(tv, dt, r.random() < 0.5)], kw, "PoissonNLLLoss"


def g_gauss(r, rs):
    dt = fdt(r)
    sh = shape(r, 1, 3)
    kw = {}
    c = r.random()
    if c < 0.35:
        vsh = sh
    elif c < 0.6:
        vsh = sh[:-1]
    elif c < 0.8:
        vsh = sh[:-1] + (1,)
    elif c < 0.9:
        i = r.randrange(len(sh))
        vsh = sh[:i] + (1,) + sh[i + 1 :]
    else:
        vsh = shape(r, 0, 3)
    v = rs.uniform(0.0, 2, size=vsh)
    if r.random() < 0.3:
        v = np.where(rs.rand(*vsh) < 0.3, 1e-9, v)
    var = Tn(v, dt, True)
    if r.random() < 0.08:
        var = r.choice([0.5, 2.0, -1.0])
    if r.random() < 0.5:
        kw["full"] = r.random() < 0.6
    if r.random() < 0.3:
        kw["eps"] = r.choice([1e-6, 0.1, 0.0])
    red(r, kw, legacy=False, elem=False)
    args = [Tn(arr(rs, sh), dt, True), Tn(arr(rs, sh), dt, r.random() < 0.5), var]
    return "gaussian_nll_loss", args, kw, "GaussianNLLLoss"


def g_reg(r, rs):
    f = r.choice(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
    dt = fdt(r)
    sh = shape(r, 0, 3)
    tsh = sh
    if r.random() < 0.15:
        tsh = sh[1:] if sh else (1,)
    x = arr(rs, sh)
    t = arr(rs, tsh)
    if r.random() < 0.3 and sh == tsh:
        t = np.where(rs.rand(*sh) < 0.4, x, t)  # exact ties
    kw = {}
    if f == "smooth_l1_loss" and r.random() < 0.6:
        kw["beta"] = r.choice([0.0, 0.5, 1.0, 2.0])
    if f == "huber_loss":
        if r.random() < 0.6:
            kw["delta"] = r.choice([0.5, 1.0, 2.0, 0.1])
        red(r, kw, legacy=False)
    else:
        red(r, kw)
    m = {
        "mse_loss": "MSELoss",
        "l1_loss": "L1Loss",
        "smooth_l1_loss": "SmoothL1Loss",
        "huber_loss": "HuberLoss",
    }[f]
    return f, [Tn(x, dt, True), Tn(t, dt, r.random() < 0.5)], kw, m


def g_margin(r, rs):
    dt = fdt(r)
    f = r.choice(
        ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "cosine_embedding_loss"]
    )
    kw = {}
    if f == "margin_ranking_loss":
        sh = shape(r, 0, 2)
        args = [
            Tn(arr(rs, sh), dt, True),
            Tn(arr(rs, sh), dt, True),
            Tn(rs.choice([-1.0, 1.0], size=sh), dt),
        ]
        if r.random() < 0.5:
            kw["margin"] = r.choice([0.0, 0.5, 1.0, -0.3])
        m = "MarginRankingLoss"
    elif f == "hinge_embedding_loss":
        sh = shape(r, 0, 3)
        args = [Tn(arr(rs, sh, 0, 2), dt, True), Tn(rs.choice([-1.0, 1.0], size=sh), dt)]
        if r.random() < 0.5:
            kw["margin"] = r.choice([0.0, 0.5, 1.0, 2.0])
        m = "HingeEmbeddingLoss"
    elif f == "soft_margin_loss":
        sh = shape(r, 0, 3)
        args = [
            Tn(arr(rs, sh), dt, True),
            Tn(rs.choice([-1.0, 1.0], size=sh), dt, r.random() < 0.3),
        ]
        m = "SoftMarginLoss"
    else:
        D = r.randint(1, 4)
        if r.random() < 0.3:
            sh = (D,)
            tsh = ()
        else:
            N = r.randint(1, 4)
            sh = (N, D)
            tsh = (N,)
        args = [
            Tn(arr(rs, sh), dt, True),
            Tn(arr(rs, sh), dt, True),
            Tn(rs.choice([-1, 1], size=tsh), r.choice(["i64", dt])),
        ]
        if r.random() < 0.5:
            kw["margin"] = r.choice([0.0, 0.5, -0.5])
        m = "CosineEmbeddingLoss"
    red(r, kw)
    return f, args, kw, m


def g_triplet(r, rs):
    dt = fdt(r)
    D = r.randint(1, 4)
    sh = (D,) if r.random() < 0.25 else (r.randint(1, 4), D)
    args = [Tn(arr(rs, sh), dt, True) for _ in range(3)]
    if r.random() < 0.2:
        args[1] = Tn(args[0].arr.copy(), dt, True)
    kw = {}
    if r.random() < 0.5:
        kw["margin"] = r.choice([0.0, 1.0, 2.0, 0.5])
    kw["swap"] = r.random() < 0.5
    if r.random() < 0.5:
        f = "triplet_margin_loss"
        if r.random() < 0.6:
            kw["p"] = r.choice([1.0, 2.0, 3.0, 1.5])
        if r.random() < 0.3:
            kw["eps"] = r.choice([1e-6, 0.1, 0.0])
        red(r, kw)
        return f, args, kw, "TripletMarginLoss"
    f = "triplet_margin_with_distance_loss"
    if r.random() < 0.7:
        kw["distance_function"] = Fn(r.choice(["pdist", "cos", "l1"]))
    red(r, kw, legacy=False)
    return f, args, kw, "TripletMarginWithDistanceLoss"


def g_multi(r, rs):
    dt = fdt(r)
    f = r.choice(["multilabel_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss"])
    C = r.randint(1, 5)
    one = r.random() < 0.25
    N = r.randint(1, 4)
    sh = (C,) if one else (N, C)
    x = Tn(arr(rs, sh), dt, True)
    kw = {}
    if f == "multilabel_margin_loss":
        tv = np.full(sh, -1)
        for row in tv[None] if one else tv:
            k = r.randint(0, C)
            row[:k] = rs.choice(C, size=k, replace=False)
            if r.random() < 0.2 and k < C:
                row[k + 1 :] = rs.randint(0, C, size=C - k - 1)
        args = [x, Tn(tv, "i64")]
        m = "MultiLabelMarginLoss"
    elif f == "multilabel_soft_margin_loss":
        args = [x, Tn(rs.randint(0, 2, size=sh).astype(float), dt, r.random() < 0.3)]
        if r.random() < 0.5:
            kw["weight"] = Tn(rs.uniform(0.1, 2, size=(C,) if r.random() < 0.7 else sh), dt)
        m = "MultiLabelSoftMarginLoss"
    else:
        args = [x, Tn(rs.randint(0, C, size=() if one else (N,)), "i64")]
        if r.random() < 0.5:
            kw["p"] = r.choice([1, 2])
        if r.random() < 0.5:
            kw["margin"] = r.choice([0.0, 1.0, 0.5, 2.0])
        if r.random() < 0.4:
            kw["weight"] = Tn(rs.uniform(0.1, 2, size=(C,)), dt)
        m = "MultiMarginLoss"
    red(r, kw)
    return f, args, kw, m


def g_ctc(r, rs):
    dt = "f64" if r.random() < 0.8 else "f32"
    T = r.randint(1, 7)
    N = r.randint(1, 3)
    C = r.randint(2, 5)
    blank = r.choice([0, 0, C - 1, r.randrange(C)])
    unb = r.random() < 0.15
    lp = rs.standard_normal((T, N, C))
    lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
    il = [r.randint(max(0, T - 3), T) for _ in range(N)]
    tl = [r.randint(0, min(T + 1, 5)) for _ in range(N)]
    nonblank = [c for c in range(C) if c != blank]
    tgts = [[r.choice(nonblank) for _ in range(l)] for l in tl]
    if r.random() < 0.3:  # repeats make impossible alignments more likely
        tgts = [[t[0]] * len(t) if t else t for t in tgts]
    ldt = r.choice(["i64", "i32"])
    if unb:
        lp = lp[:, 0]
        il, tl, tgts = il[0], tl[0], tgts[0]
        targs = Tn(np.array(tgts, dtype=np.int64), "i64")
        args = [Tn(lp, dt, True), targs, Tn(np.array(il), ldt), Tn(np.array(tl), ldt)]
    else:
        if r.random() < 0.5:
            S = max(tl) + r.randint(0, 2)
            pad = np.zeros((N, S), dtype=np.int64)
            for i, t in enumerate(tgts):
                pad[i, : len(t)] = t
            targs = Tn(pad, r.choice(["i64", "i32"]))
        else:
            targs = Tn(np.array(sum(tgts, []), dtype=np.int64), r.choice(["i64", "i32"]))
        if r.random() < 0.2:
            il_, tl_ = tuple(il), tuple(tl)
        else:
            il_, tl_ = Tn(np.array(il), ldt), Tn(np.array(tl), ldt)
        args = [Tn(lp, dt, True), targs, il_, tl_]
    kw = {}
    if blank or r.random() < 0.3:
        kw["blank"] = blank
    if r.random() < 0.5:
        kw["zero_infinity"] = r.random() < 0.5
    red(r, kw, legacy=False, elem=False)
    return "ctc_loss", args, kw, "CTCLoss"


GENS = {
    "ce": g_ce,
    "nll": g_nll,
    "bce": g_bce,
    "bcel": g_bcel,
    "kl": g_kl,
    "pois": g_pois,
    "gauss": g_gauss,
    "reg": g_reg,
    "margin": g_margin,
    "trip": g_triplet,
    "multi": g_multi,
    "ctc": g_ctc,
}


def mutate(case, r, rs):
    fname, args, kw, m = case
    slots = [("a", i) for i, a in enumerate(args) if isinstance(a, Tn)] + [
        ("k", k) for k, v in kw.items() if isinstance(v, Tn)
    ]
    if not slots:
        return case
    kind, key = r.choice(slots)
    t = args[key] if kind == "a" else kw[key]
    c = r.random()
    if c < 0.5:
        dt = r.choice(["f16", "f32", "f64", "i64", "i32", "bool"])
        a = t.arr
        if dt in ("i64", "i32"):
            a = np.round(a).astype(np.int64)
        elif dt == "bool":
            a = a != 0
        nt = Tn(a, dt, t.rg and dt.startswith("f"))
    elif c < 0.75:
        a = t.arr
        nt = Tn(a[None] if r.random() < 0.5 or a.ndim == 0 else a[0], t.dt, t.rg)
    else:
        a = t.arr
        if a.ndim:
            ax = r.randrange(a.ndim)
            a = np.concatenate([a, a], axis=ax) if r.random() < 0.5 else np.take(a, [0], axis=ax)
        nt = Tn(a, t.dt, t.rg)
    args = list(args)
    kw = dict(kw)
    if kind == "a":
        args[key] = nt
    else:
        kw[key] = nt
    return fname, args, kw, m


def g_regw(r, rs):
    f, args, kw, m = g_reg(r, rs)
    if f != "smooth_l1_loss":
        kw = dict(kw)
        kw["weight"] = Tn(rs.uniform(0.1, 2, size=args[0].arr.shape), args[0].dt)
    return f, args, kw, m


GENS["regw"] = g_regw


def main():
    def extra(p):
        p.add_argument("--only", help="comma-separated generators (default all)")
        p.add_argument("--mutate", action="store_true", help="mutate the cases (error paths)")

    args = H.cli("losses", default_cases=400, extra=extra)
    rep = args.report
    names = args.only.split(",") if args.only else list(GENS)
    cmp = H.limited(compare, args.timeout, lambda e: ([f"timeout:{e}"], None, None))
    for nm in names:
        for i in range(args.cases):
            seed = args.seed + i
            r = random.Random(f"{nm}{seed}")
            rs = np.random.RandomState(seed)
            try:
                case = GENS[nm](r, rs)
                if args.mutate:
                    case = mutate(case, r, rs)
            except Exception as e:
                rep.add((nm, "GEN", type(e).__name__ + str(e)[:60]), f"seed {seed}")
                continue
            form = "F" if r.random() < 0.6 else "M"
            try:
                kinds, rt, rm = cmp(case, form)
            except Exception as e:
                kinds, rt, rm = [f"harness:{type(e).__name__}:{e}"], None, None
            rep.case()
            for k in kinds:
                key = k.split(":")[0]

                def sh(res, key=key):
                    if res is None:
                        return None
                    return str(res.get(key) if key in ("out", "g1", "g2") else res.get("warn"))[
                        :400
                    ]

                rep.add(
                    (nm, case[0], k),
                    f"seed {seed} {form} {case[0]} {case[1]} {case[2]}"[:400],
                    f"torch {sh(rt)}",
                    f"mt    {sh(rm)}",
                )
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
