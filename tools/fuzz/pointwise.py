"""Differential fuzzer: the pointwise op catalogue with special values and every dtype.

Parts: unary (torch.*, Tensor methods, torch.special, nn.functional activations, with kwargs),
binary (arithmetic, comparisons, bitwise, special, out= dtypes, scalar operands), ternary (clamp,
lerp, addcmul/addcdiv, where, isclose, in-place and out= forms), grad (first and second gradients
on a grid of special points: 0, -0, +-inf, tiny, ...; deterministic, ignores --cases).
Compares values (dtype-aware tolerance, signed zeros, NaN), result dtypes and errors.
Adapted from session 22's h3 fuzzers (fz.py, run1.py, run2.py, run3.py, grad.py).
"""

# ruff: noqa: B023, E501  (code adapted as-is from the session fuzzers)

import collections
import itertools
import math
import operator
import random
import warnings

import _harness as H
import numpy as np
from _harness import mt, torch

warnings.filterwarnings("ignore")
np.seterr(all="ignore")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
DTYPES = ["bool"] + INTS + FLOATS

FVALS = [
    float("nan"),
    float("inf"),
    float("-inf"),
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-310,
    1e-45,
    1e-40,
    1e308,
    -1e308,
    1e38,
    3.4e38,
    65504.0,
    70000.0,
    1e-8,
    0.5,
    -0.5,
    1.0,
    -1.0,
    2.0,
    -2.0,
    3.7,
    -3.7,
    100.0,
    -100.0,
    0.999999,
    1e5,
    88.7,
    710.0,
    0.25,
    -0.75,
    1.5,
    2.5,
    -2.5,
    0.1,
    3.0,
    -3.0,
    1e-3,
    20.0,
    -20.0,
    7.0,
    1e10,
]
IRANGE = {
    "uint8": (0, 255),
    "int8": (-128, 127),
    "int16": (-32768, 32767),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "bool": (0, 1),
}


def ivals(dt):
    lo, hi = IRANGE[dt]
    base = [0, 1, 2, 3, 5, 7, -1, -2, -3, -7, 8, 31, 32, 63, 64, lo, hi, lo + 1, hi - 1, 100, -100]
    return [v for v in base if lo <= v <= hi]


def gen_values(rng, dt, shape, pool=None):
    n = int(np.prod(shape)) if shape else 1
    if dt == "bool":
        vals = [bool(rng.random() < 0.5) for _ in range(n)]
        return np.array(vals, dtype=bool).reshape(shape)
    if dt in INTS:
        p = ivals(dt)
        vals = [rng.choice(p) if rng.random() < 0.7 else rng.randint(*IRANGE[dt]) for _ in range(n)]
        return np.array(vals, dtype=np.dtype(dt)).reshape(shape)
    p = pool or FVALS
    vals = [rng.choice(p) if rng.random() < 0.75 else rng.uniform(-5, 5) for _ in range(n)]
    return np.array(vals, dtype=np.float64).reshape(shape)


def mk(lib, spec):
    kind = spec[0]
    if kind == "s":
        return spec[1]
    arr, dt, rg = spec[1], spec[2], spec[3] if len(spec) > 3 else False
    if lib is torch:
        t = torch.from_numpy(arr.copy()).to(getattr(torch, dt))
    else:
        t = mt.from_numpy(arr.copy()).to(getattr(mt, dt))
    if rg:
        t.requires_grad_(True)
    return t


def summarize(lib, r):
    T = torch.Tensor if lib is torch else mt.Tensor
    if isinstance(r, T):
        dt = str(r.dtype).replace("torch.", "")
        rr = r.detach()
        if dt in ("bfloat16", "float16"):
            a = rr.to(lib.float64).numpy()
        elif dt.startswith("complex"):
            a = rr.numpy()
        else:
            try:
                a = rr.numpy()
            except RuntimeError:
                a = rr.numpy(force=True)
        return ("T", dt, tuple(r.shape), np.array(a, copy=True))
    if isinstance(r, (tuple, list)):
        return ("L", [summarize(lib, x) for x in r])
    return ("P", type(r).__name__, r)


def run(lib, fn, specs, kw):
    try:
        args = [mk(lib, s) for s in specs]
        kwv = {
            k: (mk(lib, v) if isinstance(v, tuple) and v and v[0] in ("t", "s") else v)
            for k, v in kw.items()
        }
        r = fn(lib, *args, **kwv)
        return ("ok", summarize(lib, r))
    except Exception as e:  # noqa
        return ("err", type(e).__name__, str(e).split("\n")[0])


TOL = {
    "float64": (1e-13, 1e-300),
    "float32": (5e-6, 1e-37),
    "float16": (2e-3, 1e-7),
    "bfloat16": (1.6e-2, 1e-37),
    "complex64": (5e-6, 1e-37),
    "complex128": (1e-13, 1e-300),
}


def cmp_arr(dt, a, b):
    """Return None if equal, else a kind string."""
    if a.shape != b.shape:
        return "shape"
    if dt == "bool" or dt in INTS:
        if not np.array_equal(a, b):
            return "value-int"
        return None
    if dt.startswith("complex"):
        ok = np.allclose(a, b, rtol=TOL[dt][0], atol=TOL[dt][1], equal_nan=True)
        return None if ok else "value"
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    na, nb = np.isnan(a), np.isnan(b)
    if not np.array_equal(na, nb):
        return "nan"
    m = ~na
    a, b = a[m], b[m]
    ia, ib = np.isinf(a), np.isinf(b)
    if not np.array_equal(ia, ib) or not np.array_equal(a[ia], b[ib]):
        return "inf"
    a, b = a[~ia], b[~ia]
    rtol, atol = TOL[dt]
    if not np.allclose(a, b, rtol=rtol, atol=atol):
        return "value"
    z = (a == 0) & (b == 0)
    if not np.array_equal(np.signbit(a[z]), np.signbit(b[z])):
        return "signzero"
    return None


def compare(rt, rm):
    if rt[0] != rm[0]:
        if rt[0] == "err":
            return "missing-error"
        return "extra-error"
    if rt[0] == "err":
        if rt[1] != rm[1]:
            return "errtype"
        if rt[2] != rm[2]:
            return "errmsg"
        return None
    return cmp_sum(rt[1], rm[1])


def cmp_sum(st, sm):
    if st[0] != sm[0]:
        return "kind"
    if st[0] == "T":
        if st[1] != sm[1]:
            return "dtype"
        if st[2] != sm[2]:
            return "shape"
        return cmp_arr(st[1], st[3], sm[3])
    if st[0] == "L":
        if len(st[1]) != len(sm[1]):
            return "len"
        for x, y in zip(st[1], sm[1], strict=False):
            k = cmp_sum(x, y)
            if k:
                return k
        return None
    if st[1] != sm[1]:
        return "pytype"
    a, b = st[2], sm[2]
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return None
        return None if math.isclose(a, b, rel_tol=1e-12) else "value"
    return None if a == b else "value"


def fmt(spec):
    if spec[0] == "s":
        return repr(spec[1])
    arr = spec[1]
    return f"{spec[2]}{list(arr.shape)}:{arr.ravel().tolist()[:6]}"


def U(name):
    return lambda lib, x, **k: getattr(lib, name)(x, **k)


def UM(name):
    return lambda lib, x, **k: getattr(x, name)(**k)


def US(name):
    return lambda lib, x, **k: getattr(lib.special, name)(x, **k)


def UF(name):
    return lambda lib, x, **k: getattr(lib.nn.functional, name)(x, **k)


UNARY_NAMES = """abs neg sign sgn exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos
atan sinh cosh tanh asinh acosh atanh sigmoid logit erf erfc erfinv lgamma digamma trunc floor ceil
round frac reciprocal square bitwise_not logical_not isnan isinf isfinite isposinf isneginf isreal
signbit nan_to_num positive deg2rad rad2deg i0 sinc angle fix negative absolute arccos arcsin arctan
arcsinh arccosh arctanh conj_physical""".split()
SPECIAL_NAMES = """expit erfcx ndtr ndtri log_ndtr i0e i1 i1e entr sinc gammaln psi digamma exp2 expm1
log1p erf erfc erfinv logit round bessel_j0 bessel_j1 bessel_y0 bessel_y1 modified_bessel_i0
modified_bessel_i1 modified_bessel_k0 modified_bessel_k1 scaled_modified_bessel_k0
scaled_modified_bessel_k1 spherical_bessel_j0 airy_ai i0""".split()
F_NAMES = """relu relu6 elu selu celu gelu silu mish softplus softsign hardtanh hardsigmoid hardswish
leaky_relu logsigmoid tanhshrink softshrink hardshrink sigmoid tanh""".split()

UNARY = []
for n in UNARY_NAMES:
    UNARY.append((n, U(n), {}))
    UNARY.append(("m." + n, UM(n), {}))
for n in SPECIAL_NAMES:
    UNARY.append(("special." + n, US(n), {}))
for n in F_NAMES:
    UNARY.append(("F." + n, UF(n), {}))
UNARY += [
    ("round_dec", U("round"), "dec"),
    ("logit_eps", U("logit"), "eps"),
    ("nan_to_num_kw", U("nan_to_num"), "n2n"),
    ("polygamma", lambda lib, x, n=1: lib.polygamma(n, x), "pg"),
    ("mvlgamma", lambda lib, x, p=1: lib.mvlgamma(x, p), "mv"),
    ("F.softplus_b", UF("softplus"), "sp"),
    ("F.elu_a", UF("elu"), "elu"),
    ("F.leaky_relu_s", UF("leaky_relu"), "lr"),
    ("F.threshold", lambda lib, x, t=0.5, v=-1.0: lib.nn.functional.threshold(x, t, v), {}),
    ("F.hardtanh_mm", lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 2.0), {}),
    ("F.gelu_tanh", lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"), {}),
    ("F.softshrink_l", lambda lib, x: lib.nn.functional.softshrink(x, 1.5), {}),
    ("F.celu_a", lambda lib, x: lib.nn.functional.celu(x, alpha=0.5), {}),
    ("clamp_s", lambda lib, x, lo=-1.5, hi=2: lib.clamp(x, lo, hi), "cl"),
    ("clamp_min", lambda lib, x, lo=0: lib.clamp(x, min=lo), "cl1"),
    ("clamp_max", lambda lib, x, hi=0: lib.clamp(x, max=hi), "cl2"),
    ("clip", lambda lib, x, lo=-1.5, hi=2: lib.clip(x, lo, hi), "cl"),
    ("float_power_s", lambda lib, x, e=2: lib.float_power(x, e), "pw"),
    ("pow_s", lambda lib, x, e=2: lib.pow(x, e), "pw"),
    ("rpow_s", lambda lib, x, e=2: e**x, "pw"),
]

KW = {
    "dec": lambda r: {"decimals": r.choice([0, 1, 2, -1, -2, 3])},
    "eps": lambda r: {"eps": r.choice([1e-6, 0.1, 0.0, 0.6, None])},
    "n2n": lambda r: {
        "nan": r.choice([0.0, 1.5, -2.0]),
        "posinf": r.choice([None, 9.0, 1e300]),
        "neginf": r.choice([None, -9.0]),
    },
    "pg": lambda r: {"n": r.choice([0, 1, 2, 3])},
    "mv": lambda r: {"p": r.choice([1, 2, 3])},
    "sp": lambda r: {"beta": r.choice([0.5, 1, 2, -1]), "threshold": r.choice([20, 1, 0.5])},
    "elu": lambda r: {"alpha": r.choice([1.0, 0.5, 2.0, -1.0])},
    "lr": lambda r: {"negative_slope": r.choice([0.01, 0.2, -0.5, 1.5])},
    "cl": lambda r: {
        "lo": r.choice([-1.5, 0, 2, True, 3.5, float("nan"), -float("inf")]),
        "hi": r.choice([2, 0.5, -2, 1.5, float("nan"), float("inf"), False]),
    },
    "cl1": lambda r: {"lo": r.choice([0, 1.5, -2, float("nan")])},
    "cl2": lambda r: {"hi": r.choice([0, 1.5, -2, float("nan")])},
    "pw": lambda r: {
        "e": r.choice(
            [
                0,
                1,
                2,
                3,
                -1,
                -2,
                0.5,
                -0.5,
                2.0,
                1.5,
                float("inf"),
                float("nan"),
                True,
                False,
                -3,
                0.0,
                63,
                64,
            ]
        )
    },
}


def shape1(r):
    return r.choice([(), (), (1,), (3,), (2, 3), (4,), (0,), (2, 1)])


def main_unary(seed, n, only=None):
    r = random.Random(seed)
    stats = collections.Counter()
    mism = collections.OrderedDict()
    ops = UNARY if not only else [o for o in UNARY if o[0] in only]
    for _i in range(n):
        name, fn, kwspec = r.choice(ops)
        dt = r.choice(DTYPES + FLOATS * 2)
        sh = shape1(r)
        arr = gen_values(r, dt, sh)
        spec = ("t", arr, dt)
        kw = KW[kwspec](r) if isinstance(kwspec, str) else kwspec
        rt = run(torch, fn, [spec], kw)
        rm = run(mt, fn, [spec], kw)
        k = compare(rt, rm)
        stats["cases"] += 1
        if k:
            stats[k] += 1
            key = (name, k, dt)
            mism.setdefault(key, []).append((fmt(spec), kw, str(rt)[:300], str(rm)[:300]))
    return stats, mism


def B(name, **kk):
    return lambda lib, x, y: getattr(lib, name)(x, y, **kk)


def BS(name):
    return lambda lib, x, y: getattr(lib.special, name)(x, y)


def BM(name):
    return lambda lib, x, y: getattr(x, name)(y)


BIN_NAMES = """add sub mul div true_divide floor_divide remainder fmod atan2 hypot copysign nextafter
ldexp xlogy maximum minimum fmax fmin pow float_power bitwise_and bitwise_or bitwise_xor
bitwise_left_shift bitwise_right_shift logical_and logical_or logical_xor eq ne lt le gt ge
heaviside gcd lcm igamma igammac logaddexp logaddexp2 isclose subtract multiply divide
greater less_equal not_equal rsub arctan2 dist""".split()
BINARY = []
for n in BIN_NAMES:
    BINARY.append((n, B(n)))
BINARY += [
    ("div_trunc", B("div", rounding_mode="trunc")),
    ("div_floor", B("div", rounding_mode="floor")),
    ("add_alpha2", B("add", alpha=2)),
    ("sub_alpha-1.5", B("sub", alpha=-1.5)),
    ("add_alpha_true", B("add", alpha=True)),
    ("special.xlog1py", BS("xlog1py")),
    ("special.xlogy", BS("xlogy")),
    ("special.zeta", BS("zeta")),
    ("isclose_nan", B("isclose", equal_nan=True)),
    ("isclose_tol", B("isclose", rtol=0.1, atol=0.5)),
]
for n, op in [
    ("+", operator.add),
    ("-", operator.sub),
    ("*", operator.mul),
    ("/", operator.truediv),
    ("//", operator.floordiv),
    ("%", operator.mod),
    ("**", operator.pow),
    ("&", operator.and_),
    ("|", operator.or_),
    ("^", operator.xor),
    ("<<", operator.lshift),
    (">>", operator.rshift),
    ("==", operator.eq),
    ("<", operator.lt),
    (">=", operator.ge),
    ("!=", operator.ne),
]:
    BINARY.append(("op" + n, (lambda op: lambda lib, x, y: op(x, y))(op)))
for n in [
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "remainder",
    "fmod",
    "atan2",
    "hypot",
    "copysign",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "floor_divide",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "xlogy",
    "logaddexp",
    "lerp",
    "clamp_min",
    "clamp_max",
    "eq",
    "lt",
    "float_power",
    "true_divide",
    "ldexp",
    "nextafter",
    "gcd",
    "lcm",
    "heaviside",
    "logical_and",
]:
    if n == "lerp":
        BINARY.append(("m.lerp_", lambda lib, x, y: x.lerp_(y, 0.5)))
        continue
    BINARY.append(("m." + n + "_", (lambda n: lambda lib, x, y: getattr(x, n + "_")(y))(n)))
# out= forms: out tensor of a chosen dtype
OUTDT = ["float32", "int64", "float64", "bool", "float16", "int32"]
for n in [
    "add",
    "mul",
    "div",
    "pow",
    "remainder",
    "maximum",
    "atan2",
    "eq",
    "floor_divide",
    "bitwise_and",
    "logical_and",
    "hypot",
    "float_power",
    "copysign",
    "fmod",
    "xlogy",
]:
    BINARY.append(
        (
            "out." + n,
            (
                lambda n: (
                    lambda lib, x, y, od: getattr(lib, n)(
                        x, y, out=lib.empty(0, dtype=getattr(lib, od))
                    )
                )
            )(n),
        )
    )


def shapes(r):
    a = r.choice([(), (), (3,), (2, 3), (1, 3), (2, 1), (4,), (0,)])
    b = (
        r.choice([(), (), (3,), (2, 3), (1, 3), (2, 1), a, a, (0,)])
        if r.random() < 0.1
        else r.choice([a, a, (), (1,)] + ([a[1:]] if a else []))
    )
    return a, b


def scal(r):
    return r.choice(
        [
            True,
            False,
            0,
            1,
            2,
            -1,
            -3,
            3,
            7,
            64,
            100,
            0.0,
            -0.0,
            0.5,
            -2.5,
            1.5,
            float("nan"),
            float("inf"),
            -float("inf"),
            1e300,
            2**40,
            3.0,
            2**63 - 1,
        ]
    )


def operand(r, dt, sh):
    k = r.random()
    if k < 0.2:
        return ("s", scal(r))
    if k < 0.3:
        return ("t", gen_values(r, dt, ()), dt)
    return ("t", gen_values(r, dt, sh), dt)


def main_binary(seed, n, only=None):
    r = random.Random(seed)
    stats = collections.Counter()
    mism = collections.OrderedDict()
    ops = BINARY if not only else [o for o in BINARY if o[0] in only]
    for _i in range(n):
        name, fn = r.choice(ops)
        d1 = r.choice(DTYPES + FLOATS + ["int64", "float32"])
        d2 = d1 if r.random() < 0.4 else r.choice(DTYPES + FLOATS)
        sa, sb = shapes(r)
        a = operand(r, d1, sa)
        b = operand(r, d2, sb)
        if a[0] == "s" and b[0] == "s":
            a = ("t", gen_values(r, d1, sa), d1)
        if name.startswith("m.") and a[0] == "s":
            a = ("t", gen_values(r, d1, sa), d1)
        specs = [a, b]
        kw = {}
        if name.startswith("out."):
            kw = {"od": r.choice(OUTDT)}
        rt = run(torch, fn, specs, kw)
        rm = run(mt, fn, specs, kw)
        k = compare(rt, rm)
        stats["cases"] += 1
        if k:
            stats[k] += 1
            "".join("s" if s[0] == "s" else "t" for s in specs)
            key = (name, k)
            mism.setdefault(key, []).append((fmt(a), fmt(b), kw, str(rt)[:260], str(rm)[:260]))
    return stats, mism


TERN = [
    ("clamp", lambda lib, a, b, c: lib.clamp(a, b, c)),
    ("clamp_kw", lambda lib, a, b, c: lib.clamp(a, min=b, max=c)),
    ("clip", lambda lib, a, b, c: lib.clip(a, b, c)),
    ("m.clamp_", lambda lib, a, b, c: a.clamp_(b, c)),
    ("lerp", lambda lib, a, b, c: lib.lerp(a, b, c)),
    ("m.lerp_", lambda lib, a, b, c: a.lerp_(b, c)),
    ("addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c)),
    ("addcmul_v", lambda lib, a, b, c: lib.addcmul(a, b, c, value=2)),
    ("addcmul_vf", lambda lib, a, b, c: lib.addcmul(a, b, c, value=0.5)),
    ("addcdiv", lambda lib, a, b, c: lib.addcdiv(a, b, c)),
    ("addcdiv_v", lambda lib, a, b, c: lib.addcdiv(a, b, c, value=-1.5)),
    ("m.addcmul_", lambda lib, a, b, c: a.addcmul_(b, c)),
    ("m.addcdiv_", lambda lib, a, b, c: a.addcdiv_(b, c, value=0.5)),
    (
        "where",
        lambda lib, a, b, c: lib.where(a > 0 if not isinstance(a, (int, float)) else a > 0, b, c),
    ),
    ("where_b", lambda lib, a, b, c: lib.where(a.bool() if hasattr(a, "bool") else bool(a), b, c)),
    (
        "nan_to_num",
        lambda lib, a, b, c: lib.nan_to_num(a, nan=0.5, posinf=b if isinstance(b, float) else None),
    ),
    ("isclose", lambda lib, a, b, c: lib.isclose(a, b, rtol=0.01, atol=1e-3)),
    ("isclose_en", lambda lib, a, b, c: lib.isclose(a, b, equal_nan=True)),
    (
        "out.clamp",
        lambda lib, a, b, c: lib.clamp(
            a, b, c, out=lib.empty(0, dtype=a.dtype if hasattr(a, "dtype") else lib.float32)
        ),
    ),
    ("out.lerp", lambda lib, a, b, c: lib.lerp(a, b, c, out=lib.empty(0, dtype=lib.float64))),
    ("out.addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c, out=lib.empty(0, dtype=lib.float32))),
]


def main_ternary(seed, n, only=None):
    r = random.Random(seed)
    stats = collections.Counter()
    mism = collections.OrderedDict()
    ops = TERN if not only else [o for o in TERN if o[0] in only]
    for _i in range(n):
        name, fn = r.choice(ops)
        d1 = r.choice(DTYPES + FLOATS + ["int64", "float32"])
        ds = [d1 if r.random() < 0.5 else r.choice(DTYPES + FLOATS) for _ in range(2)]
        sa, sb = shapes(r)
        sc = r.choice([sa, sb, ()])
        a = ("t", gen_values(r, d1, sa), d1)
        b = operand(r, ds[0], sb)
        c = operand(r, ds[1], sc)
        if r.random() < 0.1:
            b = ("s", None) if not name.startswith("lerp") else b
        specs = [a, b, c]
        rt = run(torch, fn, specs, {})
        rm = run(mt, fn, specs, {})
        k = compare(rt, rm)
        stats["cases"] += 1
        if k:
            stats[k] += 1
            mism.setdefault((name, k), []).append(
                (fmt(a), fmt(b), fmt(c), str(rt)[:260], str(rm)[:260])
            )
    return stats, mism


inf, nan = float("inf"), float("nan")
P = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.0,
    2.0,
    3.0,
    -3.0,
    6.0,
    inf,
    -inf,
    1e-300,
    20.0,
    -20.0,
    40.0,
    -40.0,
    2.5,
]


def grads(lib, fn, vals, creategraph=True):
    xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in vals]
    try:
        out = fn(lib, *xs)
    except Exception as e:
        return ("err", type(e).__name__, str(e).split("\n")[0])
    res = [summarize(lib, out)]
    if not out.requires_grad:
        return ("ok", res)
    go = lib.ones_like(out) * 0.75
    try:
        g = lib.autograd.grad(out, xs, go, create_graph=True, allow_unused=True)
    except Exception as e:
        return ("ok", res + [("err1", type(e).__name__, str(e).split("\n")[0])])
    res.append([summarize(lib, gi) if gi is not None else None for gi in g])
    tot = None
    for gi, w in zip(g, [1.0, 0.5, -0.25, 2.0], strict=False):
        if gi is None or not gi.requires_grad:
            continue
        t = (gi * w).sum()
        tot = t if tot is None else tot + t
    if tot is None:
        res.append(None)
        return ("ok", res)
    try:
        g2 = lib.autograd.grad(tot, xs, allow_unused=True)
        res.append([summarize(lib, gi) if gi is not None else None for gi in g2])
    except Exception as e:
        res.append(("err2", type(e).__name__, str(e).split("\n")[0]))
    return ("ok", res)


def cmp_any(a, b):
    if isinstance(a, tuple) and a and a[0] in ("T", "L", "P"):
        if not (isinstance(b, tuple) and b and b[0] == a[0]):
            return "kind"
        return cmp_sum(a, b)
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return "kind"
        for x, y in zip(a, b, strict=False):
            # torch None grad vs zeros: treat None == zeros
            if x is None and y is not None and y[0] == "T" and not np.any(y[3]):
                continue
            if y is None and x is not None and x[0] == "T" and not np.any(x[3]):
                continue
            k = cmp_any(x, y)
            if k:
                return k
        return None
    if a is None or b is None:
        return None if a is b else "none"
    if a != b:
        return "err:" + str(a[0])
    return None


def compare_g(rt, rm):
    if rt[0] != rm[0]:
        return "fwd-err"
    if rt[0] == "err":
        return None if rt[1:] == rm[1:] else "errdiff"
    names = ["fwd", "grad1", "grad2"]
    for i, (a, b) in enumerate(zip(rt[1], rm[1], strict=False)):
        k = cmp_any(a, b)
        if k:
            return names[i] + ":" + k
    if len(rt[1]) != len(rm[1]):
        return "len"
    return None


def F(n, **kw):
    return lambda lib, x: getattr(lib.nn.functional, n)(x, **kw)


def T(n, **kw):
    return lambda lib, *a: getattr(lib, n)(*a, **kw)


def S(n, **kw):
    return lambda lib, *a: getattr(lib.special, n)(*a, **kw)


CASES1 = {}
for n in [
    "relu",
    "relu6",
    "elu",
    "selu",
    "celu",
    "gelu",
    "silu",
    "mish",
    "softplus",
    "softsign",
    "hardtanh",
    "hardsigmoid",
    "hardswish",
    "leaky_relu",
    "logsigmoid",
    "tanhshrink",
    "softshrink",
    "hardshrink",
    "sigmoid",
    "tanh",
]:
    CASES1["F." + n] = F(n)
CASES1["F.gelu_tanh"] = F("gelu", approximate="tanh")
CASES1["F.softplus_b2t1"] = F("softplus", beta=2, threshold=1)
CASES1["F.elu_a05"] = F("elu", alpha=0.5)
CASES1["F.celu_a2"] = F("celu", alpha=2.0)
CASES1["F.hardtanh_m"] = lambda lib, x: lib.nn.functional.hardtanh(x, -2.0, 3.0)
CASES1["F.threshold"] = lambda lib, x: lib.nn.functional.threshold(x, 1.0, -5.0)
CASES1["F.softshrink1"] = F("softshrink", lambd=1.0)
CASES1["F.hardshrink1"] = F("hardshrink", lambd=1.0)
CASES1["F.leaky_relu_n"] = F("leaky_relu", negative_slope=-0.5)
CASES1["F.rrelu_eval"] = F("rrelu", training=False)
for (
    n
) in """abs neg sign sgn exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan
sinh cosh tanh asinh acosh atanh sigmoid logit erf erfc erfinv lgamma digamma trunc floor ceil round
frac reciprocal square nan_to_num deg2rad rad2deg i0 sinc angle fix positive""".split():
    CASES1[n] = T(n)
for n in """expit erfcx ndtr ndtri log_ndtr i0e i1 i1e entr sinc""".split():
    CASES1["special." + n] = S(n)
CASES1["logit_eps"] = T("logit", eps=0.25)
CASES1["nan_to_num_kw"] = T("nan_to_num", nan=1.0, posinf=2.0, neginf=-2.0)
CASES1["round_d1"] = T("round", decimals=1)
CASES1["polygamma1"] = lambda lib, x: lib.polygamma(1, x)
CASES1["mvlgamma2"] = lambda lib, x: lib.mvlgamma(x, 2)
CASES1["clamp_s"] = lambda lib, x: lib.clamp(x, -1.0, 2.0)
CASES1["clamp_inv"] = lambda lib, x: lib.clamp(x, 2.0, -1.0)
CASES1["clamp_min0"] = lambda lib, x: lib.clamp(x, min=0.0)
CASES1["clamp_max0"] = lambda lib, x: lib.clamp(x, max=0.0)
CASES1["clamp_nan"] = lambda lib, x: lib.clamp(x, min=nan)
CASES1["pow0"] = lambda lib, x: lib.pow(x, 0)
CASES1["pow0.5"] = lambda lib, x: lib.pow(x, 0.5)
CASES1["pow1"] = lambda lib, x: lib.pow(x, 1)
CASES1["pow2"] = lambda lib, x: lib.pow(x, 2)
CASES1["pow3"] = lambda lib, x: lib.pow(x, 3)
CASES1["pow-1"] = lambda lib, x: lib.pow(x, -1)
CASES1["pow-0.5"] = lambda lib, x: x**-0.5
CASES1["pow1.5"] = lambda lib, x: x**1.5
CASES1["rpow0"] = lambda lib, x: 0.0**x
CASES1["rpow2"] = lambda lib, x: 2**x
CASES1["rpow-2"] = lambda lib, x: (-2.0) ** x
CASES1["fpow2"] = lambda lib, x: lib.float_power(x, 2)
CASES1["fpow0.5"] = lambda lib, x: lib.float_power(x, 0.5)
CASES1["xlogy_s0"] = lambda lib, x: lib.xlogy(x, 0.0)
CASES1["xlogy_0s"] = lambda lib, x: lib.xlogy(0.0, x) if False else lib.xlogy(lib.zeros_like(x), x)
CASES1["div_s"] = lambda lib, x: 1.0 / x
CASES1["sq_mul"] = lambda lib, x: x * x
CASES1["fmod2"] = lambda lib, x: lib.fmod(x, 2.0)
CASES1["rem2"] = lambda lib, x: lib.remainder(x, 2.0)
CASES1["rem_neg"] = lambda lib, x: x % -1.5

CASES2 = {}
for n in [
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "float_power",
    "atan2",
    "hypot",
    "copysign",
    "fmod",
    "remainder",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "xlogy",
    "logaddexp",
    "logaddexp2",
    "ldexp",
    "true_divide",
    "nextafter",
    "heaviside",
    "igamma",
    "igammac",
]:
    CASES2[n] = T(n)
CASES2["special.xlog1py"] = S("xlog1py")
CASES2["special.xlogy"] = S("xlogy")
CASES2["special.zeta"] = S("zeta")
CASES2["div_floor"] = T("div", rounding_mode="floor")
CASES2["div_trunc"] = T("div", rounding_mode="trunc")
CASES2["add_a"] = T("add", alpha=-2.5)
CASES2["sub_a"] = T("sub", alpha=0.5)
CASES2["lerp_s"] = lambda lib, a, b: lib.lerp(a, b, 0.25)
CASES2["clamp_tmin"] = lambda lib, a, b: lib.clamp(a, min=b)
CASES2["clamp_tmax"] = lambda lib, a, b: lib.clamp(a, max=b)
CASES2["clamp_min_t"] = lambda lib, a, b: lib.clamp_min(a, b)
CASES2["where"] = lambda lib, a, b: lib.where(a > b, a, b)
CASES2["where_s"] = lambda lib, a, b: lib.where(a > 0, a * b, 0.0)
CASES2["max_bin"] = lambda lib, a, b: lib.max(a, b)
CASES2["isclose"] = lambda lib, a, b: lib.isclose(a, b)
CASES2["F.prelu"] = lambda lib, a, b: lib.nn.functional.prelu(a.reshape(1), b.reshape(1))
CASES2["F.glu"] = lambda lib, a, b: lib.nn.functional.glu(lib.stack([a, b]), 0)

CASES3 = {
    "lerp": T("lerp"),
    "addcmul": lambda lib, a, b, c: lib.addcmul(a, b, c, value=0.5),
    "addcdiv": lambda lib, a, b, c: lib.addcdiv(a, b, c, value=-2.0),
    "clamp_tt": lambda lib, a, b, c: lib.clamp(a, b, c),
    "where3": lambda lib, a, b, c: lib.where(a > 0, b, c),
}
P2 = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, inf, -inf, 1e-300, 3.0]
P3 = [0.0, 1.0, -1.0, 2.0, -0.0, inf]


def main_grad(only=None):
    stats = collections.Counter()
    mism = collections.OrderedDict()
    jobs = [(k, f, [[v] for v in P]) for k, f in CASES1.items()]
    jobs += [(k, f, list(itertools.product(P2, P2))) for k, f in CASES2.items()]
    jobs += [(k, f, list(itertools.product(P3, P3, P3))) for k, f in CASES3.items()]
    for name, fn, pts in jobs:
        if only and name not in only:
            continue
        for vals in pts:
            rt = grads(torch, fn, vals)
            rm = grads(mt, fn, vals)
            k = compare_g(rt, rm)
            stats["cases"] += 1
            if k:
                stats[k] += 1
                mism.setdefault((name, k), []).append((vals, str(rt)[:400], str(rm)[:400]))
    return stats, mism


PARTS = ("unary", "binary", "ternary", "grad")


def main():
    global run, grads
    args = H.cli(
        "pointwise",
        default_cases=2000,
        extra=lambda p: p.add_argument("--part", choices=PARTS, action="append"),
    )
    run = H.limited(run, args.timeout)
    grads = H.limited(grads, args.timeout)
    rep = args.report
    for part in args.part or PARTS:
        if part == "unary":
            stats, mism = main_unary(args.seed, args.cases)
        elif part == "binary":
            stats, mism = main_binary(args.seed, args.cases)
        elif part == "ternary":
            stats, mism = main_ternary(args.seed, args.cases)
        else:
            stats, mism = main_grad()
        rep.case(stats["cases"])
        for key, exs in mism.items():
            for ex in exs:
                rep.add(f"{part}: " + " | ".join(map(str, key)), *ex)
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
