"""Differential fuzzer: shape / join / split ops, torch vs minitorch.

view/reshape/permute/transpose/squeeze/expand/flatten/unflatten/movedim, cat/stack/*stack,
split/chunk/tensor_split/unbind, repeat/tile/repeat_interleave/roll/flip/rot90, *_copy and
*_scatter variants, narrow/select/unfold/as_strided, ... on contiguous and strided inputs:
values, dtypes, shapes, strides, view-ness, errors, first/second gradients and grad_fn names.
Adapted from session 22's h6 fuzzer. ``--only op1,op2`` restricts the op families.
"""

# ruff: noqa: E402  (code adapted as-is from the session fuzzers)

import collections
import random
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

warnings.simplefilter("ignore")


def rshape(r, nd=None, lo=0):
    if nd is None:
        nd = r.randint(0, 5)
    return tuple(
        r.choice([0, 1, 1, 2, 2, 3, 3, 4]) if r.random() < 0.15 else r.choice([1, 2, 3, 4])
        for _ in range(nd)
    )


def layout(r, shape):
    """returns (base_shape, expr producing x from base) with x.shape == shape"""
    nd = len(shape)
    kinds = ["contig", "contig"]
    if nd >= 2:
        kinds.append("perm")
    if nd >= 1:
        kinds += ["step", "expand"]
    k = r.choice(kinds)
    if k == "contig":
        return shape, "base"
    if k == "perm":
        p = list(range(nd))
        r.shuffle(p)
        inv = [p.index(i) for i in range(nd)]
        bshape = tuple(shape[p[i]] for i in range(nd))
        # base.permute(inv) has shape bshape[inv[j]] = shape[p[inv[j]]] = shape[j]
        return bshape, f"base.permute({inv})"
    if k == "step":
        d = r.randrange(nd)
        bs = list(shape)
        bs[d] = shape[d] * 2 + r.randint(0, 1)
        idx = ", ".join([":"] * d + ["::2" if bs[d] % 2 == 0 or shape[d] == 0 else "1::2"])
        # ensure correct length
        if bs[d] % 2 == 1:
            # 1::2 on 2n+1 gives n
            pass
        return tuple(bs), f"base[{idx}]"
    # expand
    bs = [1 if r.random() < 0.5 else s for s in shape]
    return tuple(bs), f"base.expand({tuple(shape)})"


def rdim(r, nd, allow_bad=0.05):
    if r.random() < allow_bad:
        return r.choice([nd, -nd - 1, nd + 2])
    if nd == 0:
        return r.choice([0, -1])
    return r.randint(-nd, nd - 1)


def gen_case(r):
    """returns dict(op, shape, dtype, exprs) where expr uses T and x (and y, z)"""
    op = r.choice(OPS)
    return op, OPGEN[op](r)


OPGEN = {}


def reg(name):
    def deco(f):
        OPGEN[name] = f
        return f

    return deco


def _sizes_for(r, n):
    """random reshape target for n elements"""
    m = n
    out = []
    if n == 0:
        out = [r.choice([0, 2, 3]) for _ in range(r.randint(1, 3))]
        out[r.randrange(len(out))] = 0
    else:
        while m > 1 and len(out) < 4:
            for p in (2, 3, 4, 5, 6):
                if m % p == 0 and r.random() < 0.6:
                    out.append(p)
                    m //= p
                    break
            else:
                out.append(m)
                m = 1
        if m > 1:
            out.append(m)
        while r.random() < 0.3:
            out.insert(r.randint(0, len(out)), 1)
    if out and r.random() < 0.4 and n != 0:
        out[r.randrange(len(out))] = -1
    if r.random() < 0.05:
        out.append(7)
    return tuple(out)


@reg("reshape")
def _(r):
    s = rshape(r)
    n = int(np.prod(s))
    t = _sizes_for(r, n)
    m = r.choice(["x.reshape({})", "x.view({})", "T.reshape(x, {})", "x.reshape(*{})"])
    if m == "x.reshape(*{})" and not t:
        m = "x.reshape({})"
    return s, [m.format(t)]


@reg("view_dtype")
def _(r):
    s = rshape(r)
    dt = r.choice(["float32", "int32", "int16", "uint8", "float64", "int64", "bool"])
    return s, [f"x.view(T.{dt})"], r.choice(["float32", "float64", "int64"])


@reg("flatten")
def _(r):
    s = rshape(r)
    nd = len(s)
    if r.random() < 0.3:
        return s, [r.choice(["x.flatten()", "T.flatten(x)", "x.ravel()", "T.ravel(x)"])]
    a = rdim(r, nd)
    b = rdim(r, nd)
    return s, [f"x.flatten({a}, {b})"]


@reg("unflatten")
def _(r):
    s = rshape(r, r.randint(1, 4))
    d = rdim(r, len(s), 0.02)
    n = s[d] if -len(s) <= d < len(s) else 6
    t = _sizes_for(r, n)
    if not t:
        t = (1,)
    return s, [f"x.unflatten({d}, {t})"]


@reg("squeeze")
def _(r):
    s = rshape(r)
    nd = len(s)
    c = r.random()
    if c < 0.3:
        return s, ["x.squeeze()"]
    if c < 0.7:
        return s, [f"x.squeeze({rdim(r, nd)})"]
    ds = tuple(sorted(set(rdim(r, nd, 0.02) for _ in range(r.randint(0, 3)))))
    return s, [f"T.squeeze(x, {ds})"]


@reg("unsqueeze")
def _(r):
    s = rshape(r)
    d = rdim(r, len(s) + 1)
    return s, [f"x.unsqueeze({d})"]


@reg("permute")
def _(r):
    s = rshape(r)
    nd = len(s)
    p = list(range(nd))
    r.shuffle(p)
    p = [i - nd if r.random() < 0.3 else i for i in p]
    if r.random() < 0.05 and nd:
        p[0] = p[-1]
    m = r.choice(["x.permute({})", "T.permute(x, {})", "x.permute(*{})"])
    if not p and m == "x.permute(*{})":
        m = "x.permute({})"
    return s, [m.format(p)]


@reg("movedim")
def _(r):
    s = rshape(r)
    nd = len(s)
    if r.random() < 0.5 or nd == 0:
        a, b = rdim(r, nd), rdim(r, nd)
    else:
        k = r.randint(1, nd)
        a = tuple(r.sample(range(nd), k))
        b = tuple(r.sample(range(-nd, 0), k))
    f = r.choice(["movedim", "moveaxis"])
    return s, [f"T.{f}(x, {a}, {b})", f"x.{f}({a}, {b})"]


@reg("transpose")
def _(r):
    s = rshape(r)
    nd = len(s)
    a, b = rdim(r, nd), rdim(r, nd)
    f = r.choice(["transpose", "swapaxes", "swapdims"])
    return s, [f"x.{f}({a}, {b})"]


@reg("t")
def _(r):
    s = rshape(r, r.randint(0, 3))
    return s, [r.choice(["x.t()", "T.t(x)", "x.T", "x.mT", "x.mH", "x.H", "x.adjoint()"])]


@reg("expand")
def _(r):
    s = rshape(r, r.randint(0, 3))
    new = []
    for d in s:
        if d == 1:
            new.append(r.choice([1, 3, -1, 0]))
        else:
            new.append(r.choice([d, -1, d, d + 1 if r.random() < 0.1 else d]))
    lead = [r.choice([2, 1, 0]) for _ in range(r.randint(0, 2))]
    t = tuple(lead + new)
    m = r.choice(
        ["x.expand({})", "x.expand(*{})", "T.broadcast_to(x, {})", "x.expand_as(T.empty({}))"]
    )
    if m == "x.expand_as(T.empty({}))":
        t = tuple(abs(v) if v != -1 else 2 for v in t)
    if m == "x.expand(*{})" and not t:
        m = "x.expand({})"
    return s, [m.format(t)]


@reg("repeat")
def _(r):
    s = rshape(r, r.randint(0, 3))
    k = len(s) + r.randint(-1 if r.random() < 0.1 else 0, 2)
    rep = tuple(r.choice([1, 2, 3, 0]) for _ in range(max(k, 0)))
    return s, [r.choice([f"x.repeat({rep})", f"T.tile(x, {rep})", f"x.tile({rep})"])]


@reg("repeat_interleave")
def _(r):
    s = rshape(r, r.randint(0, 3))
    nd = len(s)
    d = None if r.random() < 0.3 or nd == 0 else rdim(r, nd, 0.02)
    c = r.random()
    if c < 0.4:
        rep = str(r.randint(0, 3))
    else:
        n = int(np.prod(s)) if d is None else (s[d] if -nd <= d < nd else 2)
        if r.random() < 0.2:
            n = 1
        rep = f"T.tensor({[r.randint(0, 3) for _ in range(n)]})"
    kw = ""
    if r.random() < 0.2:
        kw = f", output_size={r.randint(0, 8)}"
    ds = "" if d is None else f", dim={d}"
    return s, [f"x.repeat_interleave({rep}{ds}{kw})"]


def _other(r, s, dt_choices=("float64",)):
    return s


@reg("cat")
def _(r):
    nd = r.randint(1, 4)
    s = rshape(r, nd)
    d = rdim(r, nd, 0.05)
    n = r.randint(0, 3)
    parts = []
    for _ in range(n):
        s2 = list(s)
        if -nd <= d < nd:
            s2[d] = r.randint(0, 3)
        if r.random() < 0.05 and nd:
            s2[r.randrange(nd)] += 1
        dt = r.choice(["float64", "float64", "float32", "int64", "bool", "int32"])
        if r.random() < 0.08:
            s2 = [0]
        parts.append(f"T.ones({tuple(s2)}, dtype=T.{dt})")
    fn = r.choice(["cat", "concat", "concatenate"])
    order = r.random() < 0.5
    lst = ["x"] + parts if order else parts + ["x"]
    kw = "dim" if fn != "concatenate" or r.random() < 0.5 else "axis"
    return s, [f"T.{fn}([{', '.join(lst)}], {kw}={d})"]


@reg("stack")
def _(r):
    nd = r.randint(0, 3)
    s = rshape(r, nd)
    fn = r.choice(["stack", "hstack", "vstack", "dstack", "column_stack", "row_stack"])
    n = r.randint(0, 2)
    parts = []
    for _ in range(n):
        s2 = list(s)
        if fn != "stack" and nd and r.random() < 0.5:
            ax = {
                "hstack": 1 if nd > 1 else 0,
                "vstack": 0,
                "row_stack": 0,
                "dstack": 2,
                "column_stack": 1,
            }[fn]
            if ax < nd:
                s2[ax] = r.randint(1, 3)
        if r.random() < 0.05 and nd:
            s2[r.randrange(nd)] += 1
        dt = r.choice(["float64", "float64", "float32", "int64"])
        parts.append(f"T.ones({tuple(s2)}, dtype=T.{dt})")
    lst = ["x"] + parts
    if fn == "stack":
        return s, [f"T.stack([{', '.join(lst)}], dim={rdim(r, nd + 1)})"]
    return s, [f"T.{fn}([{', '.join(lst)}])"]


@reg("split")
def _(r):
    s = rshape(r, r.randint(1, 4))
    nd = len(s)
    d = rdim(r, nd, 0.03)
    n = s[d] if -nd <= d < nd else 3
    c = r.random()
    if c < 0.4:
        k = r.randint(0 if r.random() < 0.05 else 1, 4)
        return s, [r.choice([f"x.split({k}, {d})", f"T.split(x, {k}, dim={d})"])]
    if c < 0.7:
        sizes = []
        rem = n
        while rem > 0:
            k = r.randint(0, rem)
            sizes.append(k)
            rem -= k
        if r.random() < 0.1:
            sizes.append(1)
        return s, [r.choice([f"x.split({sizes}, {d})", f"x.split_with_sizes({sizes}, {d})"])]
    k = r.randint(0 if r.random() < 0.05 else 1, 5)
    return s, [r.choice([f"x.chunk({k}, {d})", f"T.chunk(x, {k}, dim={d})"])]


@reg("tensor_split")
def _(r):
    s = rshape(r, r.randint(1, 4))
    nd = len(s)
    d = rdim(r, nd, 0.03)
    c = r.random()
    if c < 0.4:
        k = r.randint(0 if r.random() < 0.05 else 1, 5)
        arg = str(k) if r.random() < 0.7 else f"T.tensor({k})"
    else:
        idx = sorted(r.randint(-2, 6) for _ in range(r.randint(0, 3)))
        arg = str(idx) if r.random() < 0.6 else f"T.tensor({idx}, dtype=T.int64)"
    return s, [f"T.tensor_split(x, {arg}, dim={d})"]


@reg("hsplit")
def _(r):
    s = rshape(r, r.randint(0, 4))
    fn = r.choice(["hsplit", "vsplit", "dsplit"])
    if r.random() < 0.5:
        arg = str(r.randint(1, 4))
    else:
        arg = str(sorted(r.randint(0, 5) for _ in range(r.randint(0, 3))))
    return s, [f"T.{fn}(x, {arg})"]


@reg("unbind")
def _(r):
    s = rshape(r, r.randint(0, 4))
    return s, [f"x.unbind({rdim(r, len(s))})"]


@reg("narrow")
def _(r):
    s = rshape(r, r.randint(0, 4))
    nd = len(s)
    d = rdim(r, nd)
    n = s[d] if -nd <= d < nd and nd else 2
    st = r.randint(-n - 1 if r.random() < 0.1 else -n, n)
    ln = r.randint(0, max(n - (st % n if n else 0), 0) + (1 if r.random() < 0.1 else 0))
    sts = str(st) if r.random() < 0.7 else f"T.tensor({st})"
    return s, [f"x.narrow({d}, {sts}, {ln})"]


@reg("flip")
def _(r):
    s = rshape(r)
    nd = len(s)
    c = r.random()
    if c < 0.6:
        ds = [rdim(r, nd, 0.02) for _ in range(r.randint(0, 3))]
        return s, [f"x.flip({ds})"]
    return s, [r.choice(["T.fliplr(x)", "T.flipud(x)"])]


@reg("roll")
def _(r):
    s = rshape(r)
    nd = len(s)
    if r.random() < 0.3:
        return s, [f"x.roll({r.randint(-5, 5)})"]
    k = r.randint(1, 3)
    sh = tuple(r.randint(-5, 5) for _ in range(k))
    ds = tuple(rdim(r, nd, 0.02) for _ in range(k if r.random() > 0.05 else k + 1))
    return s, [f"T.roll(x, {sh}, {ds})"]


@reg("rot90")
def _(r):
    s = rshape(r)
    nd = len(s)
    k = r.randint(-5, 5)
    ds = [rdim(r, nd, 0.03), rdim(r, nd, 0.03)]
    return s, [f"T.rot90(x, {k}, {ds})"]


@reg("diagonal")
def _(r):
    s = rshape(r, r.randint(1, 4))
    nd = len(s)
    off = r.randint(-4, 4)
    fn = r.choice(["diagonal", "diag", "diag_embed", "diagflat", "tril", "triu", "trace"])
    if fn == "diagonal":
        a, b = rdim(r, nd), rdim(r, nd)
        return s, [f"x.diagonal({off}, {a}, {b})"]
    if fn == "diag":
        s = rshape(r, r.randint(0, 3))
        return s, [f"T.diag(x, {off})"]
    if fn == "diag_embed":
        n = nd + 1
        a, b = rdim(r, n), rdim(r, n)
        return s, [f"T.diag_embed(x, {off}, {a}, {b})"]
    if fn == "diagflat":
        return s, [f"T.diagflat(x, {off})"]
    if fn == "trace":
        s = rshape(r, r.randint(1, 3))
        return s, ["T.trace(x)"]
    s = rshape(r, r.randint(1, 4))
    return s, [f"x.{fn}({off})"]


@reg("atleast")
def _(r):
    s = rshape(r, r.randint(0, 4))
    fn = r.choice(["atleast_1d", "atleast_2d", "atleast_3d"])
    if r.random() < 0.3:
        return s, [f"T.{fn}(x, x)", f"T.{fn}([x])"]
    return s, [f"T.{fn}(x)"]


@reg("unfold")
def _(r):
    s = rshape(r, r.randint(0, 4))
    nd = len(s)
    d = rdim(r, nd)
    n = s[d] if nd and -nd <= d < nd else 1
    size = r.randint(0, n + 1)
    step = r.randint(0 if r.random() < 0.05 else 1, 3)
    return s, [f"x.unfold({d}, {size}, {step})"]


@reg("as_strided")
def _(r):
    s = rshape(r, r.randint(1, 3))
    int(np.prod(s))
    nd2 = r.randint(0, 3)
    size = tuple(r.randint(0, 3) for _ in range(nd2))
    stride = tuple(r.randint(0, 2) for _ in range(nd2))
    off = r.randint(0, 2)
    return s, [f"x.as_strided({size}, {stride}, {off})"]


@reg("clone")
def _(r):
    s = rshape(r, r.choice([0, 1, 2, 4, 4, 5, 3]))
    mf = r.choice(["preserve_format", "contiguous_format", "channels_last"])
    return s, [
        r.choice(
            [
                f"x.clone(memory_format=T.{mf})",
                "x.contiguous()",
                f"x.contiguous(memory_format=T.{mf})",
            ]
        )
    ]


@reg("block_diag")
def _(r):
    s = rshape(r, r.randint(0, 2))
    parts = ["x"]
    for _ in range(r.randint(0, 2)):
        dt = r.choice(["float64", "float32", "int64"])
        parts.append(f"T.ones({rshape(r, r.randint(0, 2))}, dtype=T.{dt})")
    r.shuffle(parts)
    return s, [f"T.block_diag({', '.join(parts)})"]


@reg("cartesian_prod")
def _(r):
    s = rshape(r, 1)
    if r.random() < 0.05:
        s = rshape(r, 2)
    parts = ["x"] + [f"T.arange({r.randint(0, 3)}.)" for _ in range(r.randint(0, 2))]
    return s, [f"T.cartesian_prod({', '.join(parts)})"]


@reg("combinations")
def _(r):
    s = (r.randint(0, 5),)
    return s, [f"T.combinations(x, {r.randint(0, 4)}, with_replacement={r.random() < 0.5})"]


@reg("meshgrid")
def _(r):
    s = rshape(r, 1 if r.random() < 0.9 else r.choice([0, 2]))
    parts = ["x"] + [f"T.arange({r.randint(0, 3)}.)" for _ in range(r.randint(0, 2))]
    ix = r.choice(["", ", indexing='ij'", ", indexing='xy'"])
    return s, [f"T.meshgrid({', '.join(parts)}{ix})"]


@reg("flatten0d")
def _(r):
    s = ()
    return s, [
        r.choice(
            [
                "x.flatten()",
                "x.flatten(0, -1)",
                "x.ravel()",
                "x.view(-1)",
                "x.reshape(())",
                "x.unflatten(0, (1,))",
                "x.squeeze(0)",
                "x.unsqueeze(-1)",
                "x.flip(0)",
                "x.roll(1)",
                "x.expand(3)",
                "x.repeat(2)",
                "x.t()",
                "x.T",
                "x.diagonal()",
                "x.unbind(0)",
                "x.narrow(0, 0, 1)",
                "x.movedim(0, 0)",
                "x.transpose(0, -1)",
            ]
        )
    ]


OPS = sorted(OPGEN)


def flat(o):
    if isinstance(o, (tuple, list)):
        res = []
        for v in o:
            res += flat(v)
        return res
    return [o]


def describe(T, o, base):
    items = flat(o)
    res = []
    for v in items:
        if isinstance(v, T.Tensor):
            a = v.detach()
            if a.dtype == T.bfloat16:
                a = a.float()
            res.append(
                (
                    "T",
                    tuple(v.shape),
                    str(v.dtype).split(".")[-1],
                    tuple(v.stride()),
                    v.is_contiguous(),
                    v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
                    if v.numel() and base.numel()
                    else None,
                    np.asarray(a.cpu().numpy()).tolist(),
                )
            )
        else:
            res.append(("V", repr(v)))
    return type(o).__name__ if not isinstance(o, (T.Tensor,)) else "Tensor", res


import os

DTS = os.environ.get("DTS", "float64,float64,float32,int64").split(",")
_WRITE_OUT = bool(os.environ.get("WRITE_OUT"))


def run_one(T, shape, layout_expr, bshape, dtype, expr, seed):
    rng = np.random.default_rng(seed)
    arr = rng.standard_normal(bshape)
    if dtype in ("int64", "int32", "uint8", "int8"):
        arr = np.abs(arr * 5).round().astype(np.int64)
    elif dtype == "bool":
        arr = arr > 0
    base = T.tensor(arr, dtype=getattr(T, dtype))
    ns = {"T": T, "base": base}
    x = eval(layout_expr, ns)
    ns["x"] = x
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            o = eval(expr, ns)
        warns = sorted(set(type(i.message).__name__ for i in w))
    except Exception as e:
        return ("err", type(e).__name__, str(e).split("\n")[0]), None
    d = describe(T, o, base)
    if _WRITE_OUT:
        first = [v for v in flat(o) if isinstance(v, T.Tensor)]
        try:
            with T.no_grad():
                first[0].mul_(3) if first and dtype != "bool" else None
            werr = None
        except Exception as e:
            werr = (type(e).__name__, str(e).split(chr(10))[0])
        return ("ok", d, [werr, base.tolist()], []), o
    # aliasing: write into base
    try:
        with T.no_grad():
            base.add_(1) if dtype != "bool" else base.logical_not_()
        after = [v for v in describe(T, o, base)[1]]
    except Exception as e:
        after = ("err", type(e).__name__)
    return ("ok", d, after, warns), o


def grad_one(T, layout_expr, bshape, expr, seed):
    rng = np.random.default_rng(seed)
    arr = rng.standard_normal(bshape)
    base = T.tensor(arr, dtype=T.float64, requires_grad=True)
    ns = {"T": T, "base": base}
    x = eval(layout_expr, ns)
    ns["x"] = x
    o = eval(expr, ns)
    outs = [
        v for v in flat(o) if isinstance(v, T.Tensor) and v.dtype == T.float64 and v.requires_grad
    ]
    if not outs:
        return None
    loss = 0
    fns = []
    for i, v in enumerate(outs):
        w = T.tensor(np.random.default_rng(seed + i + 1).standard_normal(tuple(v.shape)))
        loss = loss + (w * v * v).sum()
        fns.append(type(v.grad_fn).__name__ if v.grad_fn is not None else None)
    (g,) = T.autograd.grad(loss, base, create_graph=True)
    v2 = T.tensor(np.random.default_rng(seed + 99).standard_normal(bshape))
    (gg,) = T.autograd.grad((g * v2).sum(), base, allow_unused=True)
    return (g.detach().numpy(), None if gg is None else gg.numpy(), fns)


def close(a, b, tol=1e-9):
    return a == b


def cmp_vals(a, b):
    # a, b: lists (nested) of numbers
    try:
        A = np.asarray(a, dtype=float)
        B = np.asarray(b, dtype=float)
    except Exception:
        return a == b
    if A.shape != B.shape:
        return False
    return np.allclose(A, B, rtol=1e-6, atol=1e-6, equal_nan=True)


def compare(rt, rm):
    kinds = []
    if rt[0] != rm[0]:
        kinds.append(("status", rt[0] + "/" + rm[0]))
        return kinds
    if rt[0] == "err":
        if rt[1] != rm[1]:
            kinds.append(("errtype", f"{rt[1]}/{rm[1]}"))
        elif rt[2] != rm[2]:
            kinds.append(("errmsg", ""))
        return kinds
    _, (tt, dt), after_t, wt = rt
    _, (tm, dm), after_m, wm = rm
    if tt != tm:
        kinds.append(("container", f"{tt}/{tm}"))
    if len(dt) != len(dm):
        kinds.append(("nout", ""))
        return kinds
    for a, b in zip(dt, dm, strict=False):
        if a[0] != b[0]:
            kinds.append(("kind", ""))
            continue
        if a[0] == "V":
            if a != b:
                kinds.append(("value", ""))
            continue
        if a[1] != b[1]:
            kinds.append(("shape", ""))
            continue
        if a[2] != b[2]:
            kinds.append(("dtype", ""))
        if not cmp_vals(a[6], b[6]):
            kinds.append(("VALUES", ""))
        if a[3] != b[3]:
            if 0 not in a[1] and any(
                n > 1 and p != q for n, p, q in zip(a[1], a[3], b[3], strict=False)
            ):
                kinds.append(("STRIDE", f"{a[3]}/{b[3]}"))
            else:
                kinds.append(("stride_trivial", ""))
        if a[4] != b[4]:
            kinds.append(("contig", ""))
        if a[5] != b[5]:
            kinds.append(("ALIAS", ""))
    if _WRITE_OUT:
        et, em = after_t[0], after_m[0]
        if (et is None) != (em is None) or (et and et[0] != em[0]):
            kinds.append(("write_err", f"{et}/{em}"))
        elif et and et != em:
            kinds.append(("write_errmsg", f"{et}/{em}"))
        elif not cmp_vals(after_t[1], after_m[1]):
            kinds.append(("WRITE_THROUGH", ""))
    elif isinstance(after_t, list) and isinstance(after_m, list):
        for a, b in zip(after_t, after_m, strict=False):
            if a[0] == "T" and b[0] == "T" and a[1] == b[1] and not cmp_vals(a[6], b[6]):
                kinds.append(("ALIAS_AFTER_WRITE", ""))
    elif after_t != after_m:
        kinds.append(("after", f"{after_t}/{after_m}"))
    if wt != wm:
        kinds.append(("warn", f"{wt}/{wm}"))
    return kinds


def main(n, seed0=0, only=None, verbose=False):
    stats = collections.Counter()
    examples = collections.defaultdict(list)
    ncase = 0
    for i in range(n):
        r = random.Random(seed0 + i)
        op = r.choice(OPS) if only is None else r.choice(only)
        g = OPGEN[op](r)
        shape, exprs = g[0], g[1]
        dtype = g[2] if len(g) > 2 else r.choice(DTS)
        bshape, lay = layout(r, shape)
        for expr in exprs:
            ncase += 1
            key = (op, expr, lay, bshape, dtype)
            rt, ot = run_one(torch, shape, lay, bshape, dtype, expr, i)
            try:
                rm, om = run_one(minitorch, shape, lay, bshape, dtype, expr, i)
            except Exception as e:
                rm = ("crash", type(e).__name__, str(e))
            ks = compare(rt, rm)
            if rt[0] == "ok" and dtype in ("float64", "float32", "float16") and not ks:
                try:
                    gt = grad_one(torch, lay, bshape, expr, i)
                except Exception as e:
                    gt = ("err", type(e).__name__, str(e).split("\n")[0])
                try:
                    gm = grad_one(minitorch, lay, bshape, expr, i)
                except Exception as e:
                    gm = ("err", type(e).__name__, str(e).split("\n")[0])
                if (gt is None) != (gm is None):
                    ks.append(("grad_none", ""))
                elif gt is not None:
                    et = isinstance(gt[0], str)
                    em = isinstance(gm[0], str)
                    if et or em:
                        if (
                            et
                            and not em
                            and "does not require grad" in gt[2]
                            and (gm[1] is None or not gm[1].any())
                        ):
                            ks.append(("grad2_connect", ""))
                        elif not (et and em and gt == gm):
                            ks.append(
                                ("GRAD_ERR", f"{gt[:3] if et else 'ok'}/{gm[:3] if em else 'ok'}")
                            )
                    else:
                        if not np.allclose(gt[0], gm[0], rtol=1e-9, atol=1e-9):
                            ks.append(("GRAD1", ""))
                        if (gt[1] is None) != (gm[1] is None):
                            ks.append(("grad2none", ""))
                        elif gt[1] is not None and not np.allclose(
                            gt[1], gm[1], rtol=1e-9, atol=1e-9
                        ):
                            ks.append(("GRAD2", ""))
                        if gt[2] != gm[2]:
                            ks.append(("grad_fn", f"{gt[2]}/{gm[2]}"))
            for k in ks:
                kk = (op, k[0])
                stats[kk] += 1
                if len(examples[kk]) < 4:
                    examples[kk].append(
                        (key, k[1], rt if rt[0] == "err" else None, rm if rm[0] != "ok" else None)
                    )
    return stats, examples, ncase


def _gen_copies(r):
    s = rshape(r, r.randint(0, 4))
    nd = len(s)
    d = rdim(r, nd, 0.03)
    n = s[d] if nd and -nd <= d < nd else 1
    c = r.choice(
        [
            "view",
            "permute",
            "t",
            "transpose",
            "diagonal",
            "expand",
            "squeeze",
            "unsqueeze",
            "select",
            "slice",
            "split",
            "sws",
            "unbind",
            "unfold",
            "as_strided",
            "narrow",
            "sel_sc",
            "slice_sc",
            "diag_sc",
            "as_sc",
            "alias",
        ]
    )
    if c == "view":
        return s, [f"T.view_copy(x, {_sizes_for(r, int(np.prod(s)))})"]
    if c == "permute":
        p = list(range(nd))
        r.shuffle(p)
        return s, [f"T.permute_copy(x, {p})"]
    if c == "t":
        return s, ["T.t_copy(x)"]
    if c == "transpose":
        return s, [f"T.transpose_copy(x, {d}, {rdim(r, nd)})"]
    if c == "diagonal":
        return s, [f"T.diagonal_copy(x, {r.randint(-3, 3)}, {d}, {rdim(r, nd)})"]
    if c == "expand":
        t = tuple([r.choice([2, 1])] + [v if v != 1 else r.choice([1, 3]) for v in s])
        return s, [f"T.expand_copy(x, {t})"]
    if c == "squeeze":
        return s, [r.choice(["T.squeeze_copy(x)", f"T.squeeze_copy(x, {d})"])]
    if c == "unsqueeze":
        return s, [f"T.unsqueeze_copy(x, {rdim(r, nd + 1)})"]
    if c == "select":
        return s, [f"T.select_copy(x, {d}, {r.randint(-n, n - 1) if n else 0})"]
    if c == "slice":
        a, b = r.randint(-n - 1, n + 1), r.randint(-n - 1, n + 2)
        return s, [f"T.slice_copy(x, {d}, {a}, {b}, {r.randint(1, 3)})"]
    if c == "split":
        return s, [f"T.split_copy(x, {r.randint(1, 3)}, {d})"]
    if c == "sws":
        sizes = []
        rem = n
        while rem > 0:
            k = r.randint(0, rem)
            sizes.append(k)
            rem -= k
        return s, [f"T.split_with_sizes_copy(x, {sizes}, {d})"]
    if c == "unbind":
        return s, [f"T.unbind_copy(x, {d})"]
    if c == "unfold":
        return s, [f"T.unfold_copy(x, {d}, {r.randint(0, n)}, {r.randint(1, 3)})"]
    if c == "as_strided":
        size = tuple(r.randint(0, 3) for _ in range(2))
        return s, [f"T.as_strided_copy(x, {size}, {(r.randint(0, 2), r.randint(0, 2))})"]
    if c == "narrow":
        st = r.randint(-n, n) if n else 0
        return s, [f"T.narrow_copy(x, {d}, {st}, {r.randint(0, max(n - st % max(n, 1), 0))})"]
    if c == "sel_sc":
        i = r.randint(-n, n - 1) if n else 0
        return s, [f"T.select_scatter(x, x.select({d}, {i}) * 2 + 1, {d}, {i})"]
    if c == "slice_sc":
        a, b, st = r.randint(-n, n), r.randint(-n, n + 1), r.randint(1, 3)
        sl = f"T.slice_copy(x, {d}, {a}, {b}, {st})"
        return s, [f"T.slice_scatter(x, {sl} * 3, {d}, {a}, {b}, {st})"]
    if c == "diag_sc":
        off, a2 = r.randint(-2, 2), rdim(r, nd)
        return s, [f"T.diagonal_scatter(x, x.diagonal({off}, {d}, {a2}) * 2, {off}, {d}, {a2})"]
    if c == "as_sc":
        size = tuple(r.randint(0, 3) for _ in range(2))
        st = (r.randint(0, 2), r.randint(0, 2))
        return s, [f"T.as_strided_scatter(x, T.as_strided_copy(x, {size}, {st}) * 2, {size}, {st})"]
    return s, [r.choice(["T.alias_copy(x)", "T.detach_copy(x)"])]


OPGEN["copies"] = _gen_copies
OPS = sorted(OPGEN)


def _gen_misc(r):
    s = rshape(r, r.randint(0, 4))
    nd = len(s)
    d = rdim(r, nd, 0.03)
    n = s[d] if nd and -nd <= d < nd else 1
    c = r.choice(["select", "usplit", "uchunk", "usws", "sts", "bt", "gradient", "nzs", "select2"])
    if c in ("select", "select2"):
        i = r.randint(-n - 1, n)
        return s, [
            r.choice(
                [
                    f"x.select({d}, {i})",
                    f"T.select(x, {d}, {i})",
                    f"x[{'..., ' if r.random() < 0.5 else ''}{i}]",
                ]
            )
        ]
    if c == "usplit":
        return s, [f"T.unsafe_split(x, {r.randint(1, 3)}, {d})"]
    if c == "uchunk":
        return s, [f"T.unsafe_chunk(x, {r.randint(1, 4)}, {d})"]
    if c == "usws":
        sizes = []
        rem = n
        while rem > 0:
            k = r.randint(0, rem)
            sizes.append(k)
            rem -= k
        return s, [f"T.unsafe_split_with_sizes(x, {sizes}, {d})"]
    if c == "sts":
        t = tuple(1 if (v != 1 and r.random() < 0.4) else v for v in s)
        k = r.randint(0, len(t))
        t = t[k:]
        return s, [f"x.sum_to_size({t})"]
    if c == "bt":
        s2 = tuple(1 if r.random() < 0.4 else v for v in s)[r.randint(0, nd) :]
        return s, [f"T.broadcast_tensors(x, T.ones({s2}, dtype=T.float32))"]
    if c == "gradient":
        sp = r.choice(["", ", spacing=2.0", ", edge_order=2", f", dim={d}"])
        return s, [f"T.gradient(x{sp})"]
    return s, [f"T.nonzero_static(x > 0, size={r.randint(0, 5)})"]


OPGEN["misc"] = _gen_misc
OPS = sorted(OPGEN)


def main_cli():
    global run_one
    args = H.cli(
        "shape",
        default_cases=1000,
        extra=lambda p: p.add_argument("--only", help="comma-separated op families"),
    )
    run_one = H.limited(run_one, args.timeout, lambda e: (H.err(e), None))
    only = args.only.split(",") if args.only else None
    stats, examples, ncase = main(args.cases, args.seed, only)
    rep = args.report
    rep.case(ncase)
    for kk, c in stats.items():
        rep.counts[" | ".join(map(str, kk))] += c
        rep.examples[" | ".join(map(str, kk))] = examples[kk][: args.show]
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main_cli)
