"""Differential fuzzer: printing.

repr/str/format of tensors compared exactly (--gen): gen (every dtype, shapes 0-d to 5-d incl.
empty, mixed magnitudes/nan/inf/-0.0/big ints, requires_grad/grad_fn/Parameter suffixes,
non-contiguous and expanded views, containers, set_printoptions precision/threshold/edgeitems/
linewidth/profile/sci_mode), gen2 (summarisation sizes, formatting boundaries such as 1e-4/1e8/
65504, 0-d format specs, linewidth/suffix wrapping), gen3 (random print options with view/
grad_fn modifiers), misc (a fixed list: Size/dtype/device/finfo/iinfo reprs, named tuples, meta
tensors, default-dtype suffixes, subclasses). --cases is per random generator. Adapted from
session 23's print fuzzers (fuzz.py, fuzz2.py, fuzz3.py, misc.py).
"""

import inspect
import random

import _harness as H
import numpy as np
from _harness import mt, torch

# ----------------------------------------------------------------------


# ----------------------------------------------------------------------


DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
NP = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
}
INFO = {
    "uint8": (0, 255),
    "int8": (-128, 127),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def gen_shape(r):
    nd = r.choice([0, 1, 1, 2, 2, 3, 4, 5])
    if nd == 0:
        return ()
    shape = []
    for _ in range(nd):
        shape.append(
            r.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 12, 20]) if r.random() < 0.95 else 0
        )
    while np.prod(shape) > 3000:
        shape[r.randrange(nd)] //= 2
    return tuple(shape)


def gen_values(r, dt, shape):
    n = int(np.prod(shape))
    rng = np.random.default_rng(r.randrange(2**31))
    if dt == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dt in INFO:
        lo, hi = INFO[dt]
        kind = r.choice(["small", "full", "edge", "equal"])
        if kind == "small":
            v = rng.integers(max(lo, -20), min(hi, 20) + 1, n)
        elif kind == "full":
            v = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)
        elif kind == "edge":
            v = rng.choice(np.array([lo, hi, 0, 1, max(lo, -1)], dtype=np.int64), n)
        else:
            v = np.full(n, r.choice([lo, hi, 0, 7]), dtype=np.int64)
        return v.astype(NP[dt]).reshape(shape)
    kind = r.choice(
        ["normal", "mag", "int", "special", "equal", "negzero", "tiny", "big", "mixint"]
    )
    if kind == "normal":
        v = rng.standard_normal(n) * 10 ** r.uniform(-3, 4)
    elif kind == "mag":
        v = 10 ** rng.uniform(-8, 10, n) * rng.choice([-1, 1], n)
    elif kind == "int":
        v = rng.integers(-1000, 1000, n).astype(float) * r.choice([1, 1, 1000, 1e6, 1e9])
    elif kind == "special":
        v = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3.0, 1e-5, 1e9]), n)
    elif kind == "equal":
        v = np.full(
            n, r.choice([0.0, -0.0, 1.0, 0.1, 1e-9, 1e12, np.nan, np.inf, 123.456, 2.0**60])
        )
    elif kind == "negzero":
        v = rng.choice(np.array([-0.0, 0.0, 1.0, -1.0]), n)
    elif kind == "tiny":
        v = rng.standard_normal(n) * 1e-6
    elif kind == "big":
        v = rng.standard_normal(n) * 1e8
    else:
        v = rng.integers(-10, 10, n).astype(float)
        if n:
            v[rng.integers(0, n)] = r.choice([0.5, 1e-5, 1e5 + 0.5, np.nan, 1e20])
    with np.errstate(over="ignore"):
        return v.astype(NP[dt]).reshape(shape)


def gen_opts(r):
    if r.random() < 0.4:
        return None
    o = {}
    if r.random() < 0.3:
        o["profile"] = r.choice(["default", "short", "full"])
    if r.random() < 0.5:
        o["precision"] = r.choice([0, 1, 2, 3, 6, 8, 10])
    if r.random() < 0.5:
        o["threshold"] = r.choice([0, 1, 5, 10, 20, 50, 100, 1000, 5000])
    if r.random() < 0.5:
        o["edgeitems"] = r.choice([0, 1, 2, 3, 4])
    if r.random() < 0.5:
        o["linewidth"] = r.choice([1, 10, 20, 40, 60, 80, 120, 200])
    if r.random() < 0.5:
        o["sci_mode"] = r.choice([True, False, None])
    return o


def gen_case(seed):
    r = random.Random(seed)
    dt = r.choice(DTYPES)
    shape = gen_shape(r)
    vals = gen_values(r, dt, shape)
    c = dict(
        dt=dt,
        vals=vals,
        opts=gen_opts(r),
        default64=r.random() < 0.15,
        mod=r.choice(["none"] * 5 + ["T", "step", "expand", "rg", "gradfn", "param", "neg"]),
        wrap=r.choice(["repr"] * 4 + ["str", "list", "tuple", "dict", "format"]),
        spec=r.choice(["", ".2f", ".3e", ">12", "g", "d", "+", ".1%", "x"]),
    )
    return c


def build(lib, c):
    arr = c["vals"]
    x = lib.tensor(np.array(arr)) if arr.ndim else lib.tensor(arr.item())
    if c["dt"] == "bfloat16":
        x = x.to(lib.float32).to(lib.bfloat16)
    else:
        x = x.to(getattr(lib, c["dt"]))
    m = c["mod"]
    fl = x.is_floating_point()
    if m == "T" and x.dim() >= 2:
        x = x.transpose(0, -1)
    elif m == "step" and x.dim() >= 1:
        x = x[..., ::2]
    elif m == "expand" and x.dim() >= 1 and x.shape[-1] == 1:
        x = x.expand(*x.shape[:-1], 4)
    elif m == "neg" and x.dim() >= 1:
        x = x.flip(0)
    elif m == "rg" and fl:
        x.requires_grad_()
    elif m == "gradfn" and fl:
        x = x.requires_grad_() * 1
    elif m == "param" and fl:
        x = lib.nn.Parameter(x)
    return x


def render(lib, c):
    lib.set_printoptions(profile="default")
    lib.set_printoptions(sci_mode=None)
    old = lib.get_default_dtype()
    try:
        if c["default64"]:
            lib.set_default_dtype(lib.float64)
        if c["opts"] is not None:
            lib.set_printoptions(**c["opts"])
        x = build(lib, c)
        w = c["wrap"]
        if w == "repr":
            return repr(x)
        if w == "str":
            return str(x)
        if w == "list":
            return str([x, 1])
        if w == "tuple":
            return repr((x,))
        if w == "dict":
            return str({"k": x})
        return format(x, c["spec"])
    except Exception as e:
        return f"EXC {type(e).__name__}: {e}"
    finally:
        lib.set_default_dtype(old)
        lib.set_printoptions(profile="default")
        lib.set_printoptions(sci_mode=None)


def classify(c, a, b):
    if a.startswith("EXC") or b.startswith("EXC"):
        return "exc:" + a[:40] + "|" + b[:40]
    return f"diff:{c['dt']}:{c['mod']}:{c['wrap']}"


# ----------------------------------------------------------------------


BOUND = [
    1e-4,
    9.99e-5,
    1.0001e-4,
    1e8,
    1e8 + 1,
    99999999.0,
    1000.0,
    0.001,
    1.0,
    0.99995,
    9.99995,
    0.5,
    2.5,
    0.125,
    1e-8,
    1e10,
    65504.0,
    6e-8,
    16777217.0,
    2.0**53 + 2,
    1e16,
    123456.789,
    0.00015,
    1e-3,
    1e-5,
    5e-5,
    999.99999,
    1000.0001,
    1e7,
    3.0,
]


def gen_case2(seed):
    r = random.Random(seed)
    kind = r.choice(["big", "bound", "zero_d", "suffix"])
    dt = r.choice(DTYPES)
    rng = np.random.default_rng(seed)
    if kind == "big":
        shape = r.choice(
            [
                (1000,),
                (1001,),
                (999,),
                (7, 143),
                (2, 3, 167),
                (1, 1001),
                (1001, 1),
                (31, 33),
                (2, 2, 2, 2, 63),
                (6, 6, 6, 5),
                (4, 0, 300),
                (300, 4, 1),
            ]
        )
        c = gen_case(seed)
        vals = gen_values(r, dt, shape)
    elif kind == "bound":
        n = r.choice([1, 2, 3, 5])
        shape = (n,) if r.random() < 0.7 else ()
        n = int(np.prod(shape))
        v = rng.choice(np.array(BOUND), n) * rng.choice([-1, 1], n)
        if r.random() < 0.3 and n:
            v[0] = r.choice([0.0, -0.0, np.nan, np.inf])
        dt = r.choice(["float16", "bfloat16", "float32", "float64"])
        with np.errstate(over="ignore"):
            vals = v.astype(NP[dt]).reshape(shape)
        c = gen_case(seed)
    elif kind == "zero_d":
        shape = ()
        c = gen_case(seed)
        vals = gen_values(r, dt, shape)
        c["wrap"] = r.choice(["format", "format", "repr", "str", "list"])
    else:
        shape = r.choice([(3,), (2, 3), (5,), (12,), (1, 2, 2)])
        c = gen_case(seed)
        vals = gen_values(r, dt, shape)
        c["opts"] = {
            "linewidth": r.randint(5, 60),
            **({"precision": r.randint(0, 8)} if r.random() < 0.5 else {}),
        }
        c["mod"] = r.choice(["gradfn", "rg", "param", "none"])
    c["dt"] = dt
    c["vals"] = vals
    return c


# ----------------------------------------------------------------------


def gen_case3(seed):
    c = gen_case(seed)
    r = random.Random(seed * 7 + 1)
    o = {
        "threshold": r.choice([0, 1, 3, 8, 30]),
        "edgeitems": r.choice([1, 2, 3]),
        "linewidth": r.choice([8, 15, 25, 40, 70]),
    }
    if r.random() < 0.5:
        o["precision"] = r.randint(0, 9)
    if r.random() < 0.4:
        o["sci_mode"] = r.choice([True, False])
    if r.random() < 0.2:
        o["profile"] = r.choice(["short", "full"])
    c["opts"] = o
    c["mod"] = r.choice(["none", "T", "step", "expand", "rg", "gradfn", "param", "neg"])
    return c


# ----------------------------------------------------------------------


def misc_run(f):
    out = []
    for m in (torch, mt):
        try:
            out.append(str(f(m)))
        except Exception as e:
            out.append(f"EXC {type(e).__name__}: {e}")
        finally:
            try:
                m.set_printoptions(profile="default")
                m.set_printoptions(sci_mode=None)
            except Exception:
                pass
    return out


misc_cases = {
    "size0": lambda m: repr(m.Size([])),
    "size1": lambda m: (repr(m.Size([0, 3])), str(m.Size([5])), m.Size([2, 3]).__format__("")),
    "sizeadd": lambda m: repr(m.Size([2]) + (3,)),
    "sizeslice": lambda m: repr(m.Size([2, 3, 4])[1:]),
    "sizeshape": lambda m: repr(m.zeros(2, 3).shape),
    "sizeprint": lambda m: [m.Size([1])],
    "dtypes": lambda m: [
        repr(getattr(m, d))
        for d in [
            "float",
            "double",
            "half",
            "long",
            "int",
            "short",
            "bool",
            "uint8",
            "int8",
            "bfloat16",
            "float16",
            "float32",
            "float64",
            "int16",
            "int32",
            "int64",
            "cfloat" if m is torch else "float",
        ]
    ][:-1],
    "dtypestr": lambda m: (str(m.float32), format(m.int8, ""), f"{m.int64!s}"),
    "dev": lambda m: (
        repr(m.device("cpu")),
        repr(m.device("cuda", 1)),
        str(m.device("cuda:0")),
        repr(m.device("cpu", 0)),
        repr(m.device("meta")),
    ),
    "devfmt": lambda m: (f"{m.device('cpu')}", [m.device("cuda")]),
    "finfo": lambda m: [repr(m.finfo(d)) for d in (m.float16, m.bfloat16, m.float32, m.float64)],
    "finfostr": lambda m: [str(m.finfo(d)) for d in (m.float16, m.float64)] + [str(m.finfo())],
    "iinfo": lambda m: [
        repr(m.iinfo(d)) for d in (m.uint8, m.int8, m.int16, m.int32, m.int64, m.bool)
    ],
    "iinfostr": lambda m: [str(m.iinfo(m.int32))],
    "iinfobool": lambda m: repr(m.iinfo(m.bool)),
    "finfoint": lambda m: repr(m.finfo(m.int32)),
    "max": lambda m: repr(m.tensor([[1.0, 2], [3, 0]]).max(1)),
    "maxk": lambda m: repr(m.max(m.tensor([[1.0, 2], [3, 0]]), dim=0, keepdim=True)),
    "min": lambda m: str(m.tensor([[1, 2], [3, 0]]).min(0)),
    "topk": lambda m: repr(m.topk(m.arange(6.0), 2)),
    "sort": lambda m: repr(m.sort(m.tensor([3, 1, 2]), descending=True)),
    "kth": lambda m: repr(m.kthvalue(m.tensor([3.0, 1, 2]), 2)),
    "mode": lambda m: repr(m.mode(m.tensor([3.0, 1, 1]))),
    "median": lambda m: repr(m.median(m.tensor([[3.0, 1, 1]]), 1)),
    "nanmedian": lambda m: repr(m.nanmedian(m.tensor([[3.0, 1, 1]]), 1)),
    "aminmax": lambda m: repr(m.aminmax(m.tensor([3.0, 1, 2]))),
    "cummax": lambda m: repr(m.cummax(m.tensor([1.0, 3, 2]), 0)),
    "cummin": lambda m: repr(m.cummin(m.tensor([1.0, 3, 2]), 0)),
    "frexp": lambda m: repr(m.frexp(m.tensor([1.0, 3, 2]))),
    "slogdet": lambda m: repr(m.linalg.slogdet(m.eye(2, dtype=m.float64))),
    "slogdet2": lambda m: repr(m.slogdet(m.eye(2))),
    "qr": lambda m: repr(m.linalg.qr(m.eye(2))),
    "eigh": lambda m: repr(m.linalg.eigh(m.eye(2))),
    "svd": lambda m: repr(m.linalg.svd(m.eye(2))),
    "svdold": lambda m: repr(m.svd(m.eye(2))),
    "lu_factor": lambda m: repr(m.linalg.lu_factor(m.eye(2))),
    "inv_ex": lambda m: repr(m.linalg.inv_ex(m.eye(2))),
    "chol_ex": lambda m: repr(m.linalg.cholesky_ex(m.eye(2))),
    "lstsq": lambda m: repr(m.linalg.lstsq(m.eye(2), m.eye(2))),
    "hist": lambda m: repr(m.histogram(m.tensor([1.0, 2, 1]), bins=2)),
    "unique": lambda m: repr(m.unique(m.tensor([1, 2, 1]), return_counts=True)),
    "std_mean": lambda m: repr(m.std_mean(m.tensor([1.0, 2, 1]))),
    "maxfields": lambda m: (
        m.tensor([1.0, 2]).max(0)._fields,
        type(m.tensor([1.0, 2]).max(0)).__name__,
        type(m.tensor([1.0]).max(0)).__module__,
    ),
    "maxidx": lambda m: (m.tensor([1.0, 2]).max(0)[1], len(m.tensor([1.0, 2]).max(0))),
    "rtstr": lambda m: str(m.return_types.max),
    "po": lambda m: m._tensor_str.get_printoptions() if hasattr(m, "_tensor_str") else None,
    "po2": lambda m: (
        m.set_printoptions(precision=2, profile="full"),
        m._tensor_str.get_printoptions(),
    )[1],
    "pobad": lambda m: (m.set_printoptions(profile="bogus"), m._tensor_str.get_printoptions())[1],
    "poneg": lambda m: (m.set_printoptions(precision=-1), repr(m.tensor([1.5])))[1],
    "pofloat": lambda m: (m.set_printoptions(precision=2.0), repr(m.tensor([1.5])))[1],
    "posig": lambda m: str(inspect.signature(m.set_printoptions)),
    "ctx": lambda m: (m._tensor_str.printoptions(precision=1).__enter__(), repr(m.tensor([1.55])))[
        1
    ],
    "printopt_cm": lambda m: hasattr(m._tensor_str, "printoptions"),
    "lw0": lambda m: (m.set_printoptions(linewidth=0), repr(m.arange(5.0)))[1],
    "edgeneg": lambda m: (m.set_printoptions(edgeitems=-1, threshold=1), repr(m.arange(5.0)))[1],
    "thrfloat": lambda m: (m.set_printoptions(threshold=2.5), repr(m.arange(5.0)))[1],
    "thrinf": lambda m: (m.set_printoptions(threshold=float("inf")), repr(m.arange(5.0)))[1],
    "param_int": lambda m: repr(m.nn.Parameter(m.tensor([1, 2]), requires_grad=False)),
    "param_nograd": lambda m: repr(m.nn.Parameter(m.tensor([1.0, 2]), requires_grad=False)),
    "param_str": lambda m: str(m.nn.Parameter(m.tensor(1.0))),
    "param_empty": lambda m: repr(m.nn.Parameter(m.empty(0, 2))),
    "param_fmt": lambda m: format(m.nn.Parameter(m.tensor(1.0)), ""),
    "param64": lambda m: (
        m.set_default_dtype(m.float64),
        repr(m.nn.Parameter(m.ones(2))),
        repr(m.nn.Parameter(m.ones(2, dtype=m.float32))),
        m.set_default_dtype(m.float32),
    )[1:3],
    "buffer": lambda m: repr(m.nn.Buffer(m.ones(2))),
    "lin": lambda m: (m.manual_seed(0), repr(m.nn.Linear(2, 1).weight))[1],
    "grad": lambda m: (
        lambda x: (
            (x * x).sum().backward(),
            repr(x.grad),
            repr((x * 2).sum()),
            repr(x.sum(0)),
            repr(x[0]),
            repr(x.view(2)),
            repr(x.T),
        )
    )(m.ones(2, requires_grad=True)),
    "gradfns": lambda m: (
        lambda x: [
            repr(f(x))
            for f in (
                lambda x: x + 1,
                lambda x: x.exp(),
                lambda x: x.mean(),
                lambda x: x.reshape(2, 1),
                lambda x: x.unsqueeze(0),
                lambda x: x.clone(),
                lambda x: x.to(m.float64),
                lambda x: x.relu(),
                lambda x: x @ x,
                lambda x: x.expand(2, 2),
                lambda x: x[None],
                lambda x: x.flip(0),
                lambda x: x.cumsum(0),
                lambda x: m.cat([x, x]),
                lambda x: m.stack([x]),
                lambda x: x.max(),
                lambda x: x.abs(),
                lambda x: -x,
                lambda x: x / 2,
                lambda x: x**2,
                lambda x: x.t(),
            )
        ]
    )(m.tensor([1.0, 2.0], requires_grad=True)),
    "inplace": lambda m: (lambda x: (x.add_(1), repr(x))[1])(m.ones(2, requires_grad=True) * 1),
    "nograd": lambda m: (lambda x: repr(x.detach()))(m.ones(2, requires_grad=True) * 1),
    "fmt0": lambda m: [
        format(m.tensor(v, dtype=getattr(m, d)), s)
        for v, d, s in [
            (2.5, "float32", ".3f"),
            (3, "int64", "04d"),
            (True, "bool", ""),
            (1.1, "float16", ""),
            (1.1, "bfloat16", ".5f"),
            (1.1, "float32", ""),
            (7, "uint8", "x"),
            (1e20, "float64", "g"),
        ]
    ],
    "fmt0rg": lambda m: format(m.tensor(2.5, requires_grad=True), ".1f"),
    "fmt1": lambda m: format(m.tensor([2.5]), ""),
    "fmt1s": lambda m: format(m.tensor([2.5]), ".2f"),
    "fmtstr0": lambda m: f"{m.tensor(0.1, dtype=m.float32)}",
    "fmtstr": lambda m: f"{m.tensor([1, 2])}",
    "str0": lambda m: (
        str(m.tensor(0.1)),
        str(m.tensor(-0.0)),
        str(m.tensor(float("nan"))),
        repr(m.tensor(-float("inf"))),
        repr(m.tensor(1e-9)),
        repr(m.tensor(12345678901.0)),
        repr(m.tensor(2**62)),
        repr(m.tensor(True)),
    ),
    "empty_shapes": lambda m: (
        [repr(m.empty(*s)) for s in [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0)]]
        + [
            repr(m.empty(0, dtype=m.int64)),
            repr(m.empty(0, 2, dtype=m.bool)),
            repr(m.empty(0, requires_grad=True)),
        ]
    ),
    "empty_thr0": lambda m: (
        m.set_printoptions(threshold=0, edgeitems=0),
        repr(m.empty(0, 3)),
        repr(m.ones(2)),
        repr(m.tensor(1.0)),
    )[1:],
    "hugeint": lambda m: repr(m.tensor([2**63 - 1, -(2**63), 0])),
    "floatbigint": lambda m: repr(m.tensor([2.0**60, 1.0], dtype=m.float64)),
    "meta": lambda m: repr(m.empty(2, 3, device="meta")),
    "nested": lambda m: repr(m.zeros(2, 2).unbind(0)),
    "tensorlist": lambda m: str([m.zeros(2, 2), m.ones(1)]),
    "subclass": lambda m: (
        lambda C: repr(C(m.ones(2))) if False else repr(m.ones(2).as_subclass(C))
    )(type("MyT", (m.Tensor,), {})),
    "requires_int": lambda m: repr(m.tensor([1.0, 2.0]).requires_grad_().long()),
    "dtype_default16": lambda m: (
        m.set_default_dtype(m.float16) if m is torch else m.set_default_dtype(m.float16),
        repr(m.ones(2)),
        repr(m.ones(2, dtype=m.float32)),
        repr(m.empty(0)),
        m.set_default_dtype(m.float32),
    )[1:4],
    "dtype_defaultbf": lambda m: (
        m.set_default_dtype(m.bfloat16),
        repr(m.ones(2)),
        repr(m.ones(2, dtype=m.float32)),
        m.set_default_dtype(m.float32),
    )[1:3],
    "obj_repr_default": lambda m: repr(m.tensor([1.0]).new_zeros(0, dtype=m.float64)),
}


def main():
    args = H.cli(
        "printing",
        default_cases=2000,
        extra=lambda p: p.add_argument("--gen", default="gen,gen2,gen3,misc", help="%(default)s"),
    )
    rep = args.report
    gens = {"gen": gen_case, "gen2": gen_case2, "gen3": gen_case3}
    rend = H.limited(render, args.timeout, lambda e: f"CaseTimeout {e}")
    for g in args.gen.split(","):
        if g == "misc":
            for k, f in misc_cases.items():
                rep.case()
                a, b = misc_run(f)
                if a != b:
                    rep.add(("misc", k), f"--torch\n{a[:600]}", f"--mt\n{b[:600]}")
            continue
        for seed in range(args.seed, args.seed + args.cases):
            rep.case()
            c = gens[g](seed)
            a, b = rend(torch, c), rend(mt, c)
            if a != b:
                k = classify(c, a, b)
                rep.add((g, k), f"seed={seed}", f"--torch\n{a[:600]}", f"--mt\n{b[:600]}")
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
