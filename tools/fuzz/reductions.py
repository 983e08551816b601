"""Differential fuzzer: reductions / cumulative / sorting / selection, torch vs minitorch.

sum, prod, max/min/amax/aminmax, var/std(_mean), norms, all/any, median/mode/kthvalue, sort/
argsort/topk/msort, cumsum/cumprod/cummax/logcumsumexp, unique*: values, dtypes, index outputs,
first and second gradients (float64), errors. ``tie-exact`` kinds are index choices among ties.
Adapted from session 22's h2 fuzzer. ``--big P --view P``: probability of large shapes / views.
"""

import random
import traceback
import warnings

import _harness as H
import numpy as np
from _harness import mt, torch

warnings.filterwarnings("ignore")

GRAD_DTYPES = ("float64",)
BIG = 0.0
VIEW = 0.0
DTYPES = [
    "bfloat16",
    "float64",
    "float32",
    "float16",
    "int64",
    "int32",
    "uint8",
    "int8",
    "bool",
    "int16",
]
FLOATS = {"float64", "float32", "float16", "bfloat16"}


def gen_shape(rng):
    if rng.random() < BIG:
        return rng.choice(
            [
                (128, 130),
                (130, 128),
                (16, 32, 33),
                (2, 64, 129),
                (4100, 4),
                (3, 6000),
                (64, 16, 4, 5),
            ]
        )
    nd = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
    shape = []
    for _ in range(nd):
        r = rng.random()
        shape.append(0 if r < 0.08 else (1 if r < 0.25 else rng.randint(2, 5)))
    return tuple(shape)


def gen_values(rng, shape, dtype):
    n = int(np.prod(shape)) if shape else 1
    kind = rng.choice(["randn", "ints", "ints", "special", "pos"])
    if dtype == "bool":
        v = np.array([rng.random() < 0.5 for _ in range(n)], dtype=np.float64)
    elif dtype == "uint8":
        v = np.array(
            [rng.randint(0, 6) if kind != "randn" else rng.randint(0, 255) for _ in range(n)],
            dtype=np.float64,
        )
    elif dtype in ("int64", "int32", "int8", "int16"):
        big = {"int64": 2**40, "int32": 2**29, "int16": 2**13, "int8": 100}[dtype]
        hi = big if kind == "special" else 4
        v = np.array([rng.randint(-hi, hi) for _ in range(n)], dtype=np.float64)
    else:
        if kind == "special" and rng.random() < 0.3:
            v = np.array(
                [rng.choice([60000.0, -60000.0, 1e30, -1e30, 3e38, 1e-30]) for _ in range(n)]
            )
            return v.reshape(shape)
        if kind == "randn":
            v = np.array([rng.gauss(0, 1) for _ in range(n)])
        elif kind == "pos":
            v = np.array([rng.uniform(0.5, 2.0) for _ in range(n)])
        elif kind == "ints":
            v = np.array([float(rng.randint(-3, 3)) for _ in range(n)])
        else:
            v = np.array([rng.gauss(0, 1) for _ in range(n)])
            for i in range(n):
                r = rng.random()
                if r < 0.12:
                    v[i] = float("nan")
                elif r < 0.2:
                    v[i] = rng.choice([float("inf"), -float("inf")])
                elif r < 0.3:
                    v[i] = -0.0
                elif r < 0.4:
                    v[i] = 0.0
    return v.reshape(shape)


def build(lib, vals, dtype, rg):
    t = lib.tensor(vals, dtype=lib.float64).to(getattr(lib, dtype))
    if rg:
        t.requires_grad_(True)
    return t


def gen_dim(rng, nd, allow_none=True, allow_tuple=True, allow_bad=True):
    r = rng.random()
    lo, hi = (-nd, nd - 1) if nd else (-1, 0)
    if allow_none and r < 0.15:
        return None
    if allow_tuple and r < 0.4:
        k = rng.randint(0, max(nd, 1))
        ds = rng.sample(range(max(nd, 1)), min(k, max(nd, 1)))
        ds = [d - nd if (nd and rng.random() < 0.4) else d for d in ds]
        if allow_bad and rng.random() < 0.08 and ds:
            ds.append(ds[0] if rng.random() < 0.5 else ds[0] + (nd if ds[0] < 0 else -nd))
        return tuple(ds) if rng.random() < 0.6 else list(ds)
    if allow_bad and r < 0.44:
        return rng.choice([hi + 1, lo - 1])
    return rng.randint(lo, hi)


def kw(**k):
    return {a: b for a, b in k.items() if b is not _SKIP}


_SKIP = object()


def maybe(rng, v, p=0.5):
    return v if rng.random() < p else _SKIP


def gen_case(rng):
    """Return (opname, dtype, vals, fn(lib, x), differentiable)."""
    shape = gen_shape(rng)
    nd = len(shape)
    dtype = rng.choice(DTYPES + ["float64"] * 4 + ["float32"] * 2)
    vals = gen_values(rng, shape, dtype)
    op = rng.choice(OPS)
    fn, diff, name = op(rng, nd, dtype)
    return name, dtype, vals, fn, diff


def op_sum(rng, nd, dt):
    name = rng.choice(["sum", "mean", "nansum", "nanmean", "logsumexp"])
    d = gen_dim(rng, nd, allow_none=name != "logsumexp")
    k = {}
    if d is not None or rng.random() < 0.5:
        k["dim"] = d
    if rng.random() < 0.5:
        k["keepdim"] = rng.random() < 0.5
    if name != "logsumexp" and rng.random() < 0.3:
        k["dtype"] = rng.choice(["float64", "float32", "int64", "float16", "int32"])
    if name == "sum" and "dim" not in k and "keepdim" in k:
        del k["keepdim"]

    def f(lib, x):
        kk = dict(k)
        if "dtype" in kk:
            kk["dtype"] = getattr(lib, kk["dtype"])
        if rng_method[0]:
            return getattr(x, name)(**kk)
        return getattr(lib, name)(x, **kk)

    rng_method = [rng.random() < 0.3]
    return f, True, f"{name}{k}"


def op_prod(rng, nd, dt):
    k = {}
    if rng.random() < 0.6:
        k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
        if rng.random() < 0.5:
            k["keepdim"] = rng.random() < 0.5
    if rng.random() < 0.3:
        k["dtype"] = rng.choice(["float64", "float32", "int64"])

    def f(lib, x):
        kk = dict(k)
        if "dtype" in kk:
            kk["dtype"] = getattr(lib, kk["dtype"])
        return lib.prod(x, **kk)

    return f, True, f"prod{k}"


def op_maxmin(rng, nd, dt):
    name = rng.choice(["max", "min", "amax", "amin", "argmax", "argmin", "aminmax"])
    k = {}
    if name in ("max", "min"):
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
            if rng.random() < 0.5:
                k["keepdim"] = rng.random() < 0.5
    elif name in ("amax", "amin"):
        if rng.random() < 0.7:
            k["dim"] = gen_dim(rng, nd, allow_none=False)
        if rng.random() < 0.5:
            k["keepdim"] = rng.random() < 0.5
    elif name in ("argmax", "argmin"):
        if rng.random() < 0.7:
            k["dim"] = gen_dim(rng, nd, allow_tuple=False)
        if rng.random() < 0.5:
            k["keepdim"] = rng.random() < 0.5
    else:
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_tuple=False)
        if rng.random() < 0.5:
            k["keepdim"] = rng.random() < 0.5
    meth = rng.random() < 0.3

    def f(lib, x):
        if meth:
            return getattr(x, name)(**k)
        return getattr(lib, name)(x, **k)

    return f, name not in ("argmax", "argmin"), f"{name}{k}"


def op_var(rng, nd, dt):
    name = rng.choice(["std", "var", "std_mean", "var_mean"])
    k = {}
    if rng.random() < 0.7:
        k["dim"] = gen_dim(rng, nd)
    r = rng.random()
    if r < 0.3:
        k["correction"] = rng.choice([0, 1, 2, 0.5])
    elif r < 0.5:
        k["unbiased"] = rng.random() < 0.5
    if rng.random() < 0.4:
        k["keepdim"] = rng.random() < 0.5

    def f(lib, x):
        return getattr(lib, name)(x, **k)

    return f, True, f"{name}{k}"


def op_norm(rng, nd, dt):
    k = {}
    p = rng.choice([2, 1, 3, float("inf"), -float("inf"), 0, "fro", 0.5, -1])
    if rng.random() < 0.7:
        k["p"] = p
    if rng.random() < 0.6:
        k["dim"] = gen_dim(rng, nd, allow_bad=False)
        if isinstance(k["dim"], list):
            k["dim"] = tuple(k["dim"])
    if rng.random() < 0.4:
        k["keepdim"] = rng.random() < 0.5
    vn = rng.random() < 0.4

    def f(lib, x):
        if vn:
            kk = dict(k)
            if "p" in kk:
                kk["ord"] = kk.pop("p")
                if kk["ord"] == "fro":
                    kk["ord"] = 2
            return lib.linalg.vector_norm(x, **kk)
        return lib.norm(x, **k)

    return f, True, f"{'vector_norm' if vn else 'norm'}{k}"


def op_bool(rng, nd, dt):
    name = rng.choice(["all", "any", "count_nonzero"])
    k = {}
    if rng.random() < 0.7:
        k["dim"] = gen_dim(rng, nd, allow_tuple=True)
    if name != "count_nonzero" and rng.random() < 0.4:
        k["keepdim"] = rng.random() < 0.5

    def f(lib, x):
        return getattr(lib, name)(x, **k)

    return f, False, f"{name}{k}"


def op_median(rng, nd, dt):
    name = rng.choice(["median", "nanmedian", "mode", "kthvalue"])
    k = {}
    a = ()
    if name == "kthvalue":
        a = (rng.randint(0, 4),)
        if rng.random() < 0.7:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
    elif name == "mode":
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
    else:
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
    if "dim" in k and rng.random() < 0.5:
        k["keepdim"] = rng.random() < 0.5

    def f(lib, x):
        return getattr(lib, name)(x, *a, **k)

    return f, True, f"{name}{a}{k}"


def op_sort(rng, nd, dt):
    name = rng.choice(["sort", "argsort", "msort", "topk", "topk"])
    k = {}
    a = ()
    if name == "topk":
        a = (rng.randint(0, 4),)
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
        if rng.random() < 0.5:
            k["largest"] = rng.random() < 0.5
        if rng.random() < 0.3:
            k["sorted"] = True
    elif name in ("sort", "argsort"):
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
        if rng.random() < 0.5:
            k["descending"] = rng.random() < 0.5
        if rng.random() < 0.5:
            k["stable"] = True

    def f(lib, x):
        return getattr(lib, name)(x, *a, **k)

    return f, name != "argsort", f"{name}{a}{k}"


def op_cum(rng, nd, dt):
    name = rng.choice(["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "diff"])
    k = {}
    if name == "diff":
        if rng.random() < 0.5:
            k["n"] = rng.randint(0, 3)
        if rng.random() < 0.6:
            k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
        pre = rng.random() < 0.2
        app = rng.random() < 0.2

        def f(lib, x):
            kk = dict(k)
            if pre:
                kk["prepend"] = x[..., :1] * 2 if x.dim() else x
            if app:
                kk["append"] = x * 3
            return lib.diff(x, **kk)

        return f, True, f"diff{k} pre={pre} app={app}"
    k["dim"] = gen_dim(rng, nd, allow_none=False, allow_tuple=False)
    if name in ("cumsum", "cumprod") and rng.random() < 0.3:
        k["dtype"] = rng.choice(["float64", "float32", "int64"])

    def f(lib, x):
        kk = dict(k)
        if "dtype" in kk:
            kk["dtype"] = getattr(lib, kk["dtype"])
        return getattr(lib, name)(x, **kk)

    return f, True, f"{name}{k}"


def op_unique(rng, nd, dt):
    name = rng.choice(["unique", "unique_consecutive"])
    k = {}
    if rng.random() < 0.5:
        k["return_inverse"] = rng.random() < 0.6
    if rng.random() < 0.5:
        k["return_counts"] = rng.random() < 0.6
    if rng.random() < 0.4:
        k["dim"] = gen_dim(rng, nd, allow_none=True, allow_tuple=False)
    if name == "unique" and rng.random() < 0.3:
        k["sorted"] = rng.random() < 0.7

    def f(lib, x):
        return getattr(lib, name)(x, **k)

    return f, False, f"{name}{k}"


OPS = [
    op_sum,
    op_sum,
    op_prod,
    op_maxmin,
    op_maxmin,
    op_var,
    op_norm,
    op_bool,
    op_median,
    op_sort,
    op_cum,
    op_unique,
]


def flat(r):
    if isinstance(r, (tuple, list)):
        out = []
        for e in r:
            out.extend(flat(e))
        return out
    return [r]


def tol(dt):
    return {
        "float64": (1e-9, 1e-12),
        "float32": (1.3e-5, 1e-5),
        "float16": (1e-3, 1e-3),
        "bfloat16": (1.6e-2, 1e-5),
    }.get(dt, (0, 0))


def cmp_tensor(a, b, what):
    """a torch, b minitorch; return list of (kind, detail)."""
    if not isinstance(a, torch.Tensor):
        if isinstance(b, mt.Tensor) or type(a) is not type(b) or a != b:
            return [("type", f"{what}: torch {a!r} mt {b!r}")]
        return []
    if not isinstance(b, mt.Tensor):
        return [("type", f"{what}: mt got {type(b)}")]
    if tuple(a.shape) != tuple(b.shape):
        return [("shape", f"{what}: torch {tuple(a.shape)} mt {tuple(b.shape)}")]
    ad = str(a.dtype).replace("torch.", "")
    bd = str(b.dtype).replace("torch.", "").replace("minitorch.", "")
    if ad != bd:
        return [("dtype", f"{what}: torch {ad} mt {bd}")]
    if a._is_zerotensor():
        a = torch.zeros(a.shape, dtype=a.dtype)
    an = a.detach().to(torch.float64).numpy() if a.dtype != torch.bool else a.numpy()
    bn = b.detach().to(mt.float64).numpy() if ad != "bool" else b.numpy()
    if ad in FLOATS:
        rt, at = tol(ad)
        an_ = np.where(np.isnan(an), 0, an)
        bn_ = np.where(np.isnan(bn), 0, bn)
        if not np.array_equal(np.isnan(an), np.isnan(bn)):
            return [("value-nan", f"{what}: torch {an.ravel()[:8]} mt {bn.ravel()[:8]}")]
        inf_ok = np.array_equal(np.isinf(an_) * np.sign(an_), np.isinf(bn_) * np.sign(bn_))
        fa, fb = np.where(np.isinf(an_), 0, an_), np.where(np.isinf(bn_), 0, bn_)
        if not inf_ok or not np.allclose(fa, fb, rtol=rt, atol=at):
            err = np.max(np.abs(fa - fb)) if fa.size else 0
            return [
                ("value", f"{what}: maxerr {err:.3g} torch {an.ravel()[:6]} mt {bn.ravel()[:6]}")
            ]
        z = (an == 0) & (bn == 0)
        if np.any(np.signbit(an[z]) != np.signbit(bn[z])):
            return [("signzero", f"{what}: torch {an.ravel()[:6]} mt {bn.ravel()[:6]}")]
        return []
    if not np.array_equal(an, bn):
        return [("exact", f"{what}: torch {an.ravel()[:10]} mt {bn.ravel()[:10]}")]
    return []


def run_lib(lib, vals, dtype, fn, rg, view):
    x = build(lib, vals, dtype, rg)
    v = x
    if view == 1 and x.dim() >= 2:
        v = x.transpose(0, -1)
    elif view == 2 and x.dim() >= 1:
        v = x[..., ::2]
    elif view == 3 and x.dim() >= 2:
        v = x.permute(*range(x.dim() - 1, -1, -1))[1:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(lib, v)
        return x, r, None
    except Exception as e:  # noqa: BLE001
        return x, None, e


def msg(e):
    return str(e).split("\n")[0].strip()


def grads(lib, x, r, wseed):
    outs = [o for o in flat(r) if isinstance(o, lib.Tensor) and o.requires_grad]
    if not outs:
        return None
    wr = np.random.default_rng(wseed)
    loss = None
    for o in outs:
        w = lib.tensor(wr.standard_normal(tuple(o.shape)), dtype=o.dtype)
        term = (o * w).sum()
        loss = term if loss is None else loss + term
    (g,) = lib.autograd.grad(loss, x, create_graph=True, allow_unused=True)
    if g is None:
        return ("none",)
    v = lib.tensor(wr.standard_normal(tuple(x.shape)), dtype=x.dtype)
    if g.requires_grad:
        (gg,) = lib.autograd.grad((g * v).sum(), x, allow_unused=True)
    else:
        gg = None
    return g, gg


def one(seed, stats, verbose):
    rng = random.Random(seed)
    name, dtype, vals, fn, diff = gen_case(rng)
    rg = diff and dtype in GRAD_DTYPES and rng.random() < 0.7
    view = rng.choice([1, 2, 3]) if rng.random() < VIEW else 0
    tx, tr, te = run_lib(torch, vals, dtype, fn, rg, view)
    mx, mr, me = run_lib(mt, vals, dtype, fn, rg, view)
    probs = []
    if te is not None or me is not None:
        if te is None:
            probs.append(("mt-raises", f"{type(me).__name__}: {msg(me)}"))
        elif me is None:
            probs.append(("torch-raises", f"{type(te).__name__}: {msg(te)}"))
        elif type(te).__name__ != type(me).__name__:
            probs.append(
                (
                    "exc-type",
                    f"torch {type(te).__name__}: {msg(te)} | mt {type(me).__name__}: {msg(me)}",
                )
            )
        elif msg(te) != msg(me):
            probs.append(("exc-msg", f"torch: {msg(te)} | mt: {msg(me)}"))
    else:
        ft, fm = flat(tr), flat(mr)
        if len(ft) != len(fm):
            probs.append(("arity", f"torch {len(ft)} mt {len(fm)}"))
        else:
            if type(tr).__name__ != type(mr).__name__ and isinstance(tr, tuple):
                probs.append(("rtype", f"torch {type(tr).__name__} mt {type(mr).__name__}"))
            for i, (a, b) in enumerate(zip(ft, fm, strict=False)):
                probs += cmp_tensor(a, b, f"out{i}")
            if rg and not probs:
                try:
                    tg = grads(torch, tx, tr, seed)
                except Exception as e:  # noqa: BLE001
                    tg = ("err", type(e).__name__, msg(e))
                try:
                    mg = grads(mt, mx, mr, seed)
                except Exception as e:  # noqa: BLE001
                    mg = ("err", type(e).__name__, msg(e))
                    if verbose > 1:
                        traceback.print_exc()
                if tg is None or mg is None or tg[0] in ("none", "err") or mg[0] in ("none", "err"):
                    if str(tg) != str(mg) and not (tg is None and mg is None):
                        probs.append(("grad-struct", f"torch {str(tg)[:150]} mt {str(mg)[:150]}"))
                else:
                    p = cmp_tensor(tg[0], mg[0], "grad")
                    probs += [("grad-" + k, d) for k, d in p]
                    if not p:
                        if (tg[1] is None) != (mg[1] is None):
                            probs.append(
                                ("grad2-struct", f"torch {tg[1] is None} mt {mg[1] is None}")
                            )
                        elif tg[1] is not None:
                            probs += [("grad2-" + k, d) for k, d in cmp_tensor(tg[1], mg[1], "gg")]
    fv = vals.ravel()
    has_ties = fv.size != np.unique(np.where(np.isnan(fv), 1e300, fv)).size
    probs = [("tie-" + k if k == "exact" and has_ties else k, d) for k, d in probs]
    view = view
    for kind, det in probs:
        key = name.split("{")[0].split("(")[0]
        stats.add(
            f"{kind}: {key}",
            f"[{seed}] {name} dtype={dtype} shape={vals.shape} rg={rg} view={view}",
            det,
        )
    return bool(probs)


def main():
    global BIG, VIEW, GRAD_DTYPES

    def extra(p):
        p.add_argument("--big", type=float, default=0.0, help="probability of a large shape")
        p.add_argument(
            "--view", type=float, default=0.0, help="probability of a strided view input"
        )

    args = H.cli("reductions", default_cases=1000, extra=extra)
    rep = args.report
    if args.big or args.view:
        BIG, VIEW = args.big, args.view
        GRAD_DTYPES = ("float64", "float32")
    for s in range(args.seed, args.seed + args.cases):
        rep.case()
        try:
            with H.timeout(args.timeout):
                one(s, rep, args.verbose)
        except H.CaseTimeout as e:
            rep.add("timeout", f"[{s}]", e)
        except Exception as e:  # noqa: BLE001
            rep.add("fuzzer-crash", f"[{s}]", traceback.format_exc(limit=-2), e)
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
