"""Differential fuzzer: indexing (x[key], x[key] = v, their gradients, index/scatter/gather ops).

Parts: get (x[key]: values, dtype, strides, view-ness, errors), set (x[key] = value, version
counter), grad-get / grad-set (gradients through getitem/setitem), ops (index_select, index_add,
index_copy, index_fill, index_put, masked_*, take, put, gather, scatter*, take_along_dim).
Adapted from session 22's h1 fuzzers (fz_get.py, fz_set.py, fz_ops.py).
"""

import random
import re

import _harness as H
import numpy as np
from _harness import mt, torch

INT_DTYPES = ["int64", "int32", "int16", "int8", "uint8"]
X_DTYPES = ["float64", "float32", "int64", "bool", "int32", "float16"]


def rshape(r):
    nd = r.choice([0, 1, 1, 2, 2, 3, 3, 4])
    return tuple(r.choice([0, 1, 1, 2, 3, 4, 5]) for _ in range(nd))


def rint(r, n):
    if r.random() < 0.08:
        return r.choice([n, -n - 1, n + 2, -n - 3])
    if n == 0:
        return r.choice([0, -1])
    return r.randrange(-n, n)


def rslice(r, n):
    def b():
        c = r.random()
        if c < 0.3:
            return None
        return r.randint(-n - 2, n + 2)

    step = None
    c = r.random()
    if c < 0.4:
        step = None
    elif c < 0.93:
        step = r.randint(1, 3)
    elif c < 0.97:
        step = -1
    else:
        step = 0
    return ("slice", b(), b(), step)


def rindex_list(r, n, shape):
    # nested list of ints of given shape
    if not shape:
        return rint(r, max(n, 1)) if n else (0 if r.random() < 0.5 else 0)
    return [rindex_list(r, n, shape[1:]) for _ in range(shape[0])]


def rbool_list(r, shape):
    if not shape:
        return r.random() < 0.5
    return [rbool_list(r, shape[1:]) for _ in range(shape[0])]


def rkey(r, shape):
    items = []
    nd = len(shape)
    d = 0
    used_ell = False
    nitems = r.choice([1, 1, 2, 2, 3, 4])
    for _ in range(nitems):
        n = shape[d] if d < nd else 3
        c = r.random()
        if c < 0.2:
            items.append(("int", rint(r, n)))
            d += 1
        elif c < 0.4:
            items.append(rslice(r, n))
            d += 1
        elif c < 0.47:
            items.append(("none",))
        elif c < 0.52 and not used_ell:
            items.append(("ell",))
            used_ell = True
            d = max(d, nd - (nitems - len(items)))
        elif c < 0.55:
            items.append(("bool", r.random() < 0.6))
        elif c < 0.8:
            ishape = r.choice([(), (2,), (3,), (1,), (0,), (2, 2), (1, 3), (2, 1)])
            lst = rindex_list(r, n, ishape)
            kind = r.choice(["tensor", "tensor", "list", "tuple"]) if ishape else "tensor"
            dt = r.choice(INT_DTYPES[:4] + ["int64", "int64"])
            items.append((kind, dt, lst))
            d += 1
        elif c < 0.92:
            k = r.choice([1, 1, 2])
            mshape = tuple(shape[d : d + k])
            if r.random() < 0.1 or not mshape:
                mshape = tuple(r.choice([1, 2, 3]) for _ in range(k))
            lst = rbool_list(r, mshape)
            kind = r.choice(["mask", "mask", "boollist", "u8mask"])
            items.append((kind, lst))
            d += len(mshape)
        else:
            items.append(("t0", r.choice(["int64", "int32", "bool"]), r.randint(-1, 1)))
            d += 1
    wrap = r.random()
    if len(items) == 1 and wrap < 0.6:
        return ("single", items)
    if wrap < 0.1:
        return ("list", items)
    return ("tuple", items)


def build_item(lib, it):
    k = it[0]
    if k == "int":
        return it[1]
    if k == "slice":
        return slice(it[1], it[2], it[3])
    if k == "none":
        return None
    if k == "ell":
        return Ellipsis
    if k == "bool":
        return it[1]
    if k == "tensor":
        return lib.tensor(it[2], dtype=getattr(lib, it[1]))
    if k == "list":
        return it[2]
    if k == "tuple":
        return tuple(it[2]) if isinstance(it[2], list) else it[2]
    if k == "mask":
        return lib.tensor(it[1], dtype=lib.bool)
    if k == "u8mask":
        return lib.tensor(it[1], dtype=lib.uint8)
    if k == "boollist":
        return it[1]
    if k == "t0":
        if it[1] == "bool":
            return lib.tensor(bool(it[2] % 2))
        return lib.tensor(it[2], dtype=getattr(lib, it[1]))
    raise ValueError(k)


def build_key(lib, spec):
    wrap, items = spec
    b = [build_item(lib, it) for it in items]
    if wrap == "single":
        return b[0]
    if wrap == "list":
        return list(b)
    return tuple(b)


def make_x(lib, shape, dt, seed):
    rs = np.random.RandomState(seed)
    a = np.asarray(rs.randn(*shape) * 3)
    if dt == "bool":
        a = a > 0
    elif dt.startswith("int"):
        a = np.round(a)
    a = a.astype(dt)
    return lib.tensor(a) if lib is torch else lib.tensor(a.copy())


def summarize(lib, x, out):
    if not isinstance(out, lib.Tensor):
        return ("nontensor", repr(out))
    view = out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() and out.numel() > 0
    arr = out.detach().cpu()
    if arr.dtype == lib.bfloat16:
        arr = arr.float()
    return (
        tuple(out.shape),
        str(out.dtype).split(".")[-1],
        tuple(out.stride()),
        view,
        np.asarray(arr.numpy()).tolist(),
        out.is_contiguous(),
        (out.storage_offset() if view else None),
    )


def errsum(e):
    return ("ERR", type(e).__name__, str(e).split("\n")[0][:300])


def run_get(lib, shape, dt, seed, spec):
    x = make_x(lib, shape, dt, seed)
    try:
        key = build_key(lib, spec)
        out = x[key]
        return summarize(lib, x, out)
    except Exception as e:
        return errsum(e)


def classify(a, b):
    if a[0] == "ERR" or b[0] == "ERR":
        if a[0] != b[0]:
            return "err-vs-ok"
        if a[1] != b[1]:
            return "errtype"
        if a[2] != b[2]:
            return "errmsg"
        return None
    if a[0] != b[0]:
        return "shape"
    if a[1] != b[1]:
        return "dtype"
    if a[4] != b[4]:
        va, vb = np.array(a[4], dtype=float), np.array(b[4], dtype=float)
        if va.shape == vb.shape and np.allclose(va, vb, equal_nan=True, rtol=1e-3, atol=1e-3):
            pass
        else:
            return "VALUE"
    if a[3] != b[3]:
        return "view"
    if a[3] and a[2] != b[2] and 0 not in a[0]:
        return "stride"
    if a[3] and a[6] != b[6] and 0 not in a[0]:
        return "offset"
    if not a[3] and a[5] != b[5]:
        return "contig"
    return None


def main_get(n, seed0):
    from collections import Counter

    cnt = Counter()
    ex = {}
    for i in range(n):
        r = random.Random(seed0 * 100000 + i)
        shape = rshape(r)
        dt = r.choice(X_DTYPES)
        spec = rkey(r, shape)
        a = run_get(torch, shape, dt, i, spec)
        try:
            b = run_get(mt, shape, dt, i, spec)
        except BaseException as e:
            b = ("ERR", "CRASH", repr(e))
        c = classify(a, b)
        cnt[c] += 1
        if c is not None:
            ex.setdefault(c, []).append(
                (shape, dt, spec, a[:3] if a[0] == "ERR" else a, b[:3] if b[0] == "ERR" else b)
            )
    return cnt, {
        c: [(e[0], e[1], e[2], "T: " + str(e[3]), "M: " + str(e[4])) for e in lst]
        for c, lst in ex.items()
    }


# ---- setitem and gradients (was fz_set.py)


def mkval(lib, vspec, seed):
    kind = vspec[0]
    if kind == "scalar":
        return vspec[1]
    shape, dt, rg = vspec[1], vspec[2], vspec[3]
    rs = np.random.RandomState(seed + 7)
    a = np.asarray(rs.randn(*shape) * 2)
    if dt == "bool":
        a = a > 0
    elif dt.startswith("int"):
        a = np.round(a)
    a = a.astype(dt)
    t = lib.tensor(a.copy())
    if rg:
        t.requires_grad_(True)
    return t


def rval(r, out_shape, xdt):
    c = r.random()
    if c < 0.2 or out_shape is None:
        return ("scalar", r.choice([0, 1, -2, 2.5, True, False, -0.0, 1e10]))
    shp = list(out_shape)
    # broadcastable variants
    c2 = r.random()
    if c2 < 0.3:
        shp = shp
    elif c2 < 0.5:
        shp = shp[r.randint(0, len(shp)) :]
    elif c2 < 0.65:
        shp = [1 if r.random() < 0.5 else s for s in shp]
    elif c2 < 0.75:
        shp = [1] + shp
    elif c2 < 0.85:
        shp = []
    else:
        shp = [s + r.choice([0, 1]) for s in shp]
    dt = xdt if r.random() < 0.6 else r.choice(["float64", "float32", "int64", "bool"])
    return ("tensor", tuple(shp), dt, False)


def run_set(lib, shape, dt, seed, spec, vspec):
    x = make_x(lib, shape, dt, seed)
    try:
        key = build_key(lib, spec)
        v = mkval(lib, vspec, seed)
        v0 = x._version
        x[key] = v
        arr = x.float() if dt == "float16" else x
        return (tuple(x.shape), np.asarray(arr.numpy()).tolist(), x._version - v0)
    except Exception as e:
        return errsum(e)


def run_grad(lib, shape, seed, spec, vspec, mode):
    x = make_x(lib, shape, "float64", seed).requires_grad_(True)
    rs = np.random.RandomState(seed + 3)
    try:
        key = build_key(lib, spec)
        if mode == "get":
            y = x[key]
            w = lib.tensor(rs.randn(*y.shape))
            (y * w).sum().backward()
            return (np.asarray(x.grad.numpy()).tolist(),)
        x2 = x * 1.0
        v = mkval(lib, vspec, seed)
        x2[key] = v
        w = lib.tensor(rs.randn(*x2.shape))
        (x2 * w).sum().backward()
        g = v.grad if isinstance(v, lib.Tensor) else None
        return (
            np.asarray(x.grad.numpy()).tolist(),
            None if g is None else np.asarray(g.numpy()).tolist(),
        )
    except Exception as e:
        return errsum(e)


def cmp_set(a, b):
    if a[0] == "ERR" or b[0] == "ERR":
        if a[0] != b[0]:
            return "err-vs-ok"
        if a[1] != b[1]:
            return "errtype"
        if a[2] != b[2]:
            return "errmsg"
        return None
    for p, q in zip(a, b, strict=False):
        if p == q:
            continue
        if p is None or q is None:
            return "VALUE"
        if isinstance(p, int) and isinstance(q, int):
            return "version"
        if isinstance(p, tuple):
            return "shape"
        pa, qa = np.array(p, dtype=float), np.array(q, dtype=float)
        if pa.shape != qa.shape or not np.allclose(pa, qa, rtol=1e-3, atol=1e-3, equal_nan=True):
            return "VALUE"
    return None


def main_set(n, seed0, what):
    from collections import Counter

    cnt = Counter()
    ex = {}
    for i in range(n):
        r = random.Random(seed0 * 100000 + i)
        shape = rshape(r)
        dt = r.choice(X_DTYPES)
        spec = rkey(r, shape)
        g = run_get(torch, shape, dt, i, spec)
        out_shape = None if g[0] == "ERR" else g[0]
        if what == "set":
            vs = rval(r, out_shape, dt)
            a = run_set(torch, shape, dt, i, spec, vs)
            b = run_set(mt, shape, dt, i, spec, vs)
        else:
            if g[0] == "ERR":
                continue
            vs = rval(r, out_shape, "float64")
            if vs[0] == "tensor":
                vs = ("tensor", vs[1], "float64", True)
            a = run_grad(torch, shape, i, spec, vs, what)
            b = run_grad(mt, shape, i, spec, vs, what)
        c = cmp_set(a, b)
        cnt[c] += 1
        if c is not None:
            k = (
                c
                if not c.startswith("err")
                else (
                    c,
                    re.sub(r"-?\d+", "N", a[-1] if a[0] == "ERR" else "")[:60],
                    re.sub(r"-?\d+", "N", b[-1] if b[0] == "ERR" else "")[:60],
                )
            )
            ex.setdefault(k, []).append((shape, dt, spec, vs, a, b))
    return cnt, {
        c: [(e[0], e[1], e[2], e[3], "T: " + str(e[4]), "M: " + str(e[5])) for e in lst]
        for c, lst in ex.items()
    }


# ---- index ops (was fz_ops.py)


def arr(r, shape, dt, seed):
    rs = np.random.RandomState(seed)
    a = np.asarray(rs.randn(*shape) * 3)
    if dt == "bool":
        a = a > 0
    elif dt.startswith("int"):
        a = np.round(a)
    return a.astype(dt)


def idx(r, shape, n, oob=0.05):
    rs = np.random.RandomState(r.randrange(1 << 30))
    hi = max(n, 1)
    a = rs.randint(-hi if r.random() < 0.3 else 0, hi, size=shape)
    if r.random() < oob and a.size:
        a.flat[0] = r.choice([n, -n - 1, n + 3])
    if n == 0 and a.size and r.random() < 0.8:
        a = a[:0] if a.ndim == 1 else a
    return a.astype("int64")


def ops_rshape(r, lo=0):
    nd = r.choice([0, 1, 1, 2, 2, 3])
    return tuple(
        r.choice([0, 1, 2, 3, 4]) if r.random() < 0.1 else r.choice([1, 2, 3, 4]) for _ in range(nd)
    )


def gen_ops(r):
    op = r.choice(
        [
            "index_select",
            "index_add",
            "index_copy",
            "index_fill",
            "index_put",
            "index_put_acc",
            "masked_fill",
            "masked_scatter",
            "masked_select",
            "take",
            "put",
            "put_acc",
            "gather",
            "scatter",
            "scatter_value",
            "scatter_add",
            "scatter_reduce",
            "take_along_dim",
        ]
    )
    shape = ops_rshape(r)
    nd = len(shape)
    dim = r.randrange(-max(nd, 1), max(nd, 1)) if r.random() > 0.03 else nd + 1
    dnorm = dim % nd if nd else 0
    n = shape[dnorm] if nd else 1
    xdt = r.choice(["float64"] * 3 + ["float32", "int64"])
    idt = "int64" if r.random() < 0.9 else r.choice(["int32", "int16", "float32"])
    c = {"op": op, "shape": shape, "dim": dim, "xdt": xdt, "idt": idt, "seed": r.randrange(1 << 30)}
    if op in ("index_select", "index_add", "index_copy", "index_fill"):
        k = r.choice([0, 1, 2, 3, 5])
        ishape = (k,) if r.random() < 0.9 else ()
        c["index"] = idx(r, ishape, n)
        sshape = list(shape) if nd else []
        if nd:
            sshape[dnorm] = k if ishape else 1
        if not ishape and nd:
            sshape = sshape  # scalar index keeps dim 1
        if r.random() < 0.05 and sshape:
            sshape[-1] += 1
        c["src_shape"] = tuple(sshape) if nd else ()
        c["alpha"] = r.choice([1, 1, 2.5, -1])
        c["fill"] = r.choice([0.5, -2, 3])
    elif op.startswith("index_put"):
        k = r.randint(1, max(1, nd))
        ishape = r.choice([(3,), (2,), (0,), (2, 2), ()])
        c["indices"] = [idx(r, ishape, shape[i] if i < nd else 1) for i in range(k)]
        out = ishape + shape[k:]
        c["src_shape"] = out if r.random() < 0.7 else out[1:] if out else ()
        c["src_dt"] = xdt if r.random() < 0.9 else "float32"
    elif op.startswith("masked"):
        ms = shape[r.randint(0, nd) :] if nd else ()
        if r.random() < 0.1:
            ms = tuple(1 for _ in ms) if ms else ()
        c["mask"] = arr(r, ms, "bool", c["seed"] + 1)
        c["fill"] = r.choice([0.5, -2, 3])
        c["src_shape"] = (int(np.prod(shape)) + r.choice([0, 0, 2]),)
    elif op in ("take", "put", "put_acc"):
        numel = int(np.prod(shape))
        ishape = r.choice([(3,), (2, 2), (), (0,)])
        c["index"] = idx(r, ishape, numel)
        c["src_shape"] = ishape
    else:  # gather/scatter family
        ishape = tuple(max(0, s - r.choice([0, 0, 1])) for s in shape) if nd else ()
        if nd:
            ishape = tuple(ishape[i] if i != dnorm else r.choice([1, 2, 3, 5]) for i in range(nd))
        c["index"] = idx(r, ishape, n)
        c["src_shape"] = tuple(s + r.choice([0, 0, 1]) for s in ishape)
        c["reduce"] = r.choice(["sum", "prod", "mean", "amax", "amin"])
        c["include_self"] = r.random() < 0.5
        c["fill"] = r.choice([0.5, -2, 3])
        if op == "take_along_dim" and r.random() < 0.2:
            c["dim"] = None
    return c


def run_ops(lib, c, grad):
    getattr(lib, c["xdt"])
    x = lib.tensor(arr(None, c["shape"], c["xdt"], c["seed"]).copy())
    rg = grad and c["xdt"] == "float64"
    if rg:
        x.requires_grad_(True)
    x1 = x * 1 if rg else x.clone()

    def T(a, dt=None):
        t = lib.tensor(np.asarray(a).copy())
        return t if dt is None else t.to(getattr(lib, dt))

    sdt = c.get("src_dt", c["xdt"])
    src = lib.tensor(arr(None, c["src_shape"], sdt, c["seed"] + 5).copy())
    if rg and sdt == "float64":
        src.requires_grad_(True)
    op, d = c["op"], c["dim"]
    try:
        if op == "index_select":
            y = lib.index_select(x1, d, T(c["index"], c["idt"]))
        elif op == "index_add":
            y = x1.index_add_(d, T(c["index"], c["idt"]), src, alpha=c["alpha"])
        elif op == "index_copy":
            y = x1.index_copy_(d, T(c["index"], c["idt"]), src)
        elif op == "index_fill":
            y = x1.index_fill_(d, T(c["index"], c["idt"]), c["fill"])
        elif op.startswith("index_put"):
            y = x1.index_put_(
                tuple(T(i, c["idt"]) for i in c["indices"]), src, accumulate=op.endswith("acc")
            )
        elif op == "masked_fill":
            y = x1.masked_fill(T(c["mask"]), c["fill"])
        elif op == "masked_scatter":
            y = x1.masked_scatter(T(c["mask"]), src)
        elif op == "masked_select":
            y = lib.masked_select(x1, T(c["mask"]))
        elif op == "take":
            y = lib.take(x1, T(c["index"], c["idt"]))
        elif op == "put":
            y = x1.put_(T(c["index"], c["idt"]), src)
        elif op == "put_acc":
            y = x1.put_(T(c["index"], c["idt"]), src, accumulate=True)
        elif op == "gather":
            y = lib.gather(x1, d, T(c["index"], c["idt"]))
        elif op == "scatter":
            y = x1.scatter(d, T(c["index"], c["idt"]), src)
        elif op == "scatter_value":
            y = x1.scatter(d, T(c["index"], c["idt"]), c["fill"])
        elif op == "scatter_add":
            y = x1.scatter_add(d, T(c["index"], c["idt"]), src)
        elif op == "scatter_reduce":
            y = x1.scatter_reduce(
                d, T(c["index"], c["idt"]), src, c["reduce"], include_self=c["include_self"]
            )
        elif op == "take_along_dim":
            y = lib.take_along_dim(x1, T(c["index"], c["idt"]), c["dim"])
        res = [tuple(y.shape), str(y.dtype).split(".")[-1], np.asarray(y.detach().numpy()).tolist()]
        if rg and y.requires_grad and y.numel():
            w = lib.tensor(arr(None, tuple(y.shape), "float64", c["seed"] + 9))
            ins = [t for t in (x, src) if t.requires_grad]
            gs = lib.autograd.grad((y * w).sum(), ins, allow_unused=True)
            res.append(("G", [None if g is None else np.asarray(g.numpy()).tolist() for g in gs]))
        return res
    except Exception as e:
        return ("ERR", type(e).__name__, str(e).split("\n")[0][:300])


def cmp_ops(a, b):
    if a[0] == "ERR" or b[0] == "ERR":
        if a[0] != b[0]:
            return "err-vs-ok"
        if a[1] != b[1]:
            return "errtype"
        if a[2] != b[2]:
            return "errmsg"
        return None
    if a[0] != b[0]:
        return "shape"
    if a[1] != b[1]:
        return "dtype"
    for p, q in zip(a[2:], b[2:], strict=False):
        if isinstance(p, tuple):
            for pp, qq in zip(p[1], q[1], strict=False):
                if (pp is None) != (qq is None):
                    return "GRADNONE"
                if pp is None:
                    continue
                if np.array(pp, float).shape != np.array(qq, float).shape or not np.allclose(
                    np.array(pp, float), np.array(qq, float), rtol=1e-6, atol=1e-6, equal_nan=True
                ):
                    return "GRAD"
            continue
        pa, qa = np.array(p, dtype=float), np.array(q, dtype=float)
        if pa.shape != qa.shape or not np.allclose(pa, qa, rtol=1e-4, atol=1e-4, equal_nan=True):
            return "VALUE"
    if len(a) != len(b):
        return "gradpresence"
    return None


def main_ops(n, seed0):
    from collections import Counter

    cnt = Counter()
    ex = {}
    for i in range(n):
        r = random.Random(seed0 * 1000003 + i)
        c = gen_ops(r)
        dup = c["op"] in (
            "index_copy",
            "put",
            "scatter",
            "scatter_value",
            "index_put",
            "masked_scatter",
        )
        a = run_ops(torch, c, True)
        b = run_ops(mt, c, True)
        k = cmp_ops(a, b)
        if k == "VALUE" and dup:
            k = "VALUE?dup"
        if k is None:
            cnt[None] += 1
            continue
        key = (
            (c["op"], k)
            if not k.startswith("err")
            else (
                c["op"],
                k,
                re.sub(r"-?\d+", "N", a[-1] if a[0] == "ERR" else "")[:50],
                re.sub(r"-?\d+", "N", b[-1] if b[0] == "ERR" else "")[:50],
            )
        )
        cnt[key] += 1
        ex.setdefault(key, []).append((c, a, b))
    return cnt, {
        k: [
            (
                {kk: (vv.tolist() if hasattr(vv, "tolist") else vv) for kk, vv in c.items()},
                "T: " + str(a),
                "M: " + str(b),
            )
            for c, a, b in lst
        ]
        for k, lst in ex.items()
    }


PARTS = ("get", "set", "grad-get", "grad-set", "ops")


def main():
    global run_get, run_set, run_grad, run_ops
    args = H.cli(
        "indexing",
        default_cases=1000,
        extra=lambda p: p.add_argument("--part", choices=PARTS, action="append"),
    )

    def on_timeout(e):
        return ("ERR", "CaseTimeout", str(e))

    run_get = H.limited(run_get, args.timeout, on_timeout)
    run_set = H.limited(run_set, args.timeout, on_timeout)
    run_grad = H.limited(run_grad, args.timeout, on_timeout)
    run_ops = H.limited(run_ops, args.timeout, on_timeout)
    rep = args.report
    for part in args.part or PARTS:
        if part == "get":
            cnt, ex = main_get(args.cases, args.seed)
        elif part == "set":
            cnt, ex = main_set(args.cases, args.seed, "set")
        elif part.startswith("grad-"):
            cnt, ex = main_set(args.cases, args.seed, part[5:])
        else:
            cnt, ex = main_ops(args.cases, args.seed)
        rep.add_counts(cnt, ex, ok_keys=(None,), prefix=part + ": ")
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
