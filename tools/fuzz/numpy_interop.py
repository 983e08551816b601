"""Differential fuzzer: NumPy interoperability.

Expressions mixing tensors with NumPy arrays/scalars, evaluated in both libraries (--gen):
gen1 (binary operators in both orders between tensors of every dtype and NumPy arrays, NumPy
scalars, Python numbers, 0-d arrays; in-place operators; comparisons), gen2 (a catalogue of
interop expressions: np.asarray/np.array of tensors, __array__/__array_wrap__, ufuncs and NumPy
functions on tensors, torch functions on arrays, indexing with arrays, pickling, copy), gen3
(np.<ufunc>(tensor, array) and (array, tensor) in every dtype pair). Compares result type, dtype,
shape, values, requires_grad/grad_fn, gradients, exception type and message. Adapted from
session 23's npops fuzzers.
"""

# ruff: noqa: E501, E721, E741  (code adapted as-is from the session fuzzers)

import copy
import math
import operator
import pickle
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

TT = torch
MT = minitorch


# ----------------------------------------------------------------------


LIBS = {"torch": TT, "mt": MT}


def norm(lib, r, depth=0):
    if isinstance(r, lib.Tensor):
        d = str(r.dtype).replace("torch.", "")
        v = r.detach().cpu().numpy().copy() if r.layout == lib.strided else None
        return (
            "T",
            type(r).__name__ if type(r) is not lib.Tensor else "Tensor",
            d,
            tuple(r.shape),
            v,
            bool(r.requires_grad),
            r.grad_fn is None,
        )
    if isinstance(r, np.ndarray):
        if r.dtype == object:
            return ("A", "object", r.shape, [norm(lib, e, depth + 1) for e in r.ravel()])
        return ("A", str(r.dtype), r.shape, r.copy())
    if isinstance(r, np.generic):
        return ("S", type(r).__name__, r.item())
    if isinstance(r, (bool, int, float, complex, str, type(None))):
        return ("P", type(r).__name__, r)
    if isinstance(r, (list, tuple)):
        return ("L", type(r).__name__, [norm(lib, e, depth + 1) for e in r])
    if isinstance(r, (lib.dtype,)):
        return ("D", str(r).replace("torch.", ""))
    if isinstance(r, lib.Size):
        return ("Z", tuple(r))
    if isinstance(r, type):
        return ("Y", r.__name__)
    return ("O", type(r).__name__)


def run(libname, code, setup, grad=True):
    lib = LIBS[libname]
    ns = {
        "torch": lib,
        "np": np,
        "math": math,
        "operator": operator,
        "copy": copy,
        "pickle": pickle,
    }
    try:
        exec(setup, ns)
    except Exception as e:
        return ("SETUPERR", type(e).__name__, str(e))
    leaves = [
        v
        for k, v in ns.items()
        if isinstance(v, lib.Tensor) and k.startswith("t") and v.requires_grad
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if ";;" in code:
                stmt, code = code.split(";;")
                exec(stmt, ns)
            r = eval(code, ns)
        except Exception as e:
            return ("E", type(e).__name__, str(e).split("\n")[0])
    out = norm(lib, r)
    if (
        grad
        and leaves
        and isinstance(r, lib.Tensor)
        and r.requires_grad
        and r.dtype.is_floating_point
    ):
        try:
            r.sum().backward()
            gs = tuple(None if l.grad is None else l.grad.numpy().copy() for l in leaves)
        except Exception as e:
            gs = ("GE", type(e).__name__, str(e).split("\n")[0])
        out = out + (("grad", gs),)
    return out


def eq(a, b, tol=1e-5):
    if type(a) != type(b):
        return False
    if isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "fc":
            return np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)
        return np.array_equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(eq(x, y, tol) for x, y in zip(a, b, strict=False))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    if isinstance(a, complex):
        return abs(a - b) <= tol * (1 + abs(a))
    return a == b


def classify(t, m):
    if t[0] != m[0]:
        return f"kind {t[0]}->{m[0]}"
    if t[0] == "E":
        if t[1] != m[1]:
            return "exc type"
        return "exc msg"
    if t[0] == "T":
        if t[1:3] != m[1:3]:
            return "dtype/type"
        if t[3] != m[3]:
            return "shape"
        if not eq(t[4], m[4]):
            return "VALUES"
        if t[5:7] != m[5:7]:
            return "rg/gradfn"
        if not eq(t[7:], m[7:]):
            return "GRAD"
    if t[0] in ("A",):
        if t[1] != m[1]:
            return "dtype"
        if t[2] != m[2]:
            return "shape"
        return "VALUES"
    if t[0] in ("S", "P"):
        if t[1] != m[1]:
            return "pytype"
        return "VALUES"
    return "other"


def compare(code, setup, grad=True):
    t = run("torch", code, setup, grad)
    m = run("mt", code, setup, grad)
    if eq(t, m):
        return None
    return classify(t, m) if t[0] != "SETUPERR" else "setup", t, m


# ----------------------------------------------------------------------


np1_DT = ["float32", "float64", "int64", "int32", "int8", "uint8", "bool", "float16"]
np1_NPS = ["np.float32", "np.float64", "np.int64", "np.bool_", "np.int8", "np.int32", "np.uint8"]
np1_BIN = [
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "@",
    "&",
    "|",
    "^",
    "<<",
    ">>",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
]


def np1_tens(rng, dt, shape, rg=False, name="t"):
    vals = rng.integers(1, 5, size=shape).tolist() if shape else int(rng.integers(1, 5))
    if dt == "bool":
        vals = (np.asarray(vals) % 2 == 0).tolist()
    rgs = ", requires_grad=True" if rg and dt.startswith("float") else ""
    return f"{name} = torch.tensor({vals!r}, dtype=torch.{dt}{rgs})"


def np1_other(rng, shape):
    k = rng.integers(0, 4)
    dt = rng.choice(np1_DT[:-1] + ["float16"])
    if k == 0:
        v = rng.integers(1, 4, size=shape)
        return f"a = np.array({v.tolist()!r}, dtype=np.{dt if dt != 'bool' else 'bool_'})"
    if k == 1:
        return (
            f"a = np.array({int(rng.integers(1, 4))}, dtype=np.{dt if dt != 'bool' else 'bool_'})"
        )
    s = rng.choice(np1_NPS)
    return f"a = {s}({int(rng.integers(1, 4)) if s != 'np.bool_' else 'True'})"


def np1_cases(rng, n):
    out = []
    for _ in range(n):
        kind = rng.integers(0, 3)
        shape = [(), (3,), (2, 3)][rng.integers(0, 3)]
        dt = rng.choice(np1_DT)
        rg = rng.random() < 0.3
        setup = (
            np1_tens(rng, dt, shape, rg)
            + "; "
            + np1_other(rng, shape if rng.random() < 0.7 else shape[-1:])
        )
        if kind == 0:
            op = rng.choice(np1_BIN)
            code = f"t {op} a" if rng.random() < 0.5 else f"a {op} t"
        elif kind == 1:
            op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "@"])
            side = rng.random() < 0.5
            if side:
                setup += "; t0 = t if not t.requires_grad else t.detach().clone(); x = t0"
                code = f"x {op}= a;;(x, x is t0, t0)"
            else:
                setup += "; a0 = a"
                code = f"a {op}= t;;(a, a is a0)"
        else:
            u = rng.choice(
                [
                    "-t",
                    "~t",
                    "abs(t)",
                    "+t",
                    "-a + t",
                    "divmod(t, a)",
                    "divmod(a, t)",
                    "pow(t, a)",
                    "pow(a, t)",
                    "round(t)",
                    "round(t, 1)",
                    "t.__array__()",
                    "t.__array__(np.float64)",
                    "np.asarray(t, dtype=np.int32)",
                    "np.array([t, t])",
                    "a in t",
                    "t in t",
                    "np.exp(t)",
                    "np.add(t, a)",
                    "np.add(a, t)",
                    "np.multiply(a, t)",
                    "np.true_divide(a, t)",
                    "np.floor_divide(a, t)",
                    "np.power(a, t)",
                    "np.maximum(a, t)",
                    "np.equal(a, t)",
                    "np.sum(t)",
                    "np.mean(t)",
                    "np.concatenate([t, t])",
                    "np.sqrt(t)",
                    "np.abs(t)",
                    "np.sign(t)",
                    "np.negative(t)",
                    "np.remainder(t, a)",
                    "np.remainder(a, t)",
                    "np.fmod(t, a)",
                    "np.bitwise_and(t, a)",
                    "np.left_shift(t, a)",
                    "np.arctan2(t, a)",
                    "np.logical_and(t, a)",
                    "np.isnan(t)",
                    "np.square(t)",
                    "np.reciprocal(t)",
                    "np.invert(t)",
                    "np.clip(t, 1, 2)",
                    "np.where(t > 1, t, a)",
                    "np.dot(t, t)",
                    "np.cumsum(t)",
                    "np.prod(t)",
                    "np.max(t)",
                    "np.argmax(t)",
                ]
            )
            code = u
        out.append((setup, code))
    return out


# ----------------------------------------------------------------------


np2_DT = ["float32", "float64", "int64", "int32", "int8", "uint8", "bool", "float16"]


def np2_tens(rng, dt, shape, rg=False, name="t"):
    vals = (
        (rng.integers(-4, 5, size=shape) * (0.75 if dt.startswith("float") else 1)).tolist()
        if shape
        else float(rng.integers(-4, 5)) * (0.75 if dt.startswith("float") else 1)
    )
    if dt == "bool":
        vals = (np.asarray(vals) % 2 == 0).tolist()
    elif not dt.startswith("float"):
        vals = np.asarray(vals).astype(int).tolist()
        if dt == "uint8":
            vals = np.abs(np.asarray(vals)).tolist()
    rgs = ", requires_grad=True" if rg and dt.startswith("float") else ""
    return f"{name} = torch.tensor({vals!r}, dtype=torch.{dt}{rgs})"


np2_EXPRS = [
    "abs(t)",
    "round(t)",
    "round(t, 1)",
    "round(t, 0)",
    "round(t, -1)",
    "math.floor(t)",
    "math.ceil(t)",
    "math.trunc(t)",
    "math.isnan(t)",
    "math.isclose(t, 1.5)",
    "int(t)",
    "float(t)",
    "complex(t)",
    "bool(t)",
    "operator.index(t)",
    "divmod(t, 2)",
    "divmod(2, t)",
    "divmod(t, t)",
    "pow(t, 2, 5)",
    "pow(t, 2)",
    "pow(2, t)",
    "hash(t) == id(t)",
    "1 in t",
    "1.5 in t",
    "True in t",
    "np.float64(1.5) in t",
    "t in t",
    "t[0] in t",
    "[1] in t",
    "None in t",
    "len(t)",
    "list(t)",
    "list(iter(t))",
    "format(t, '.3f')",
    "format(t, '')",
    "format(t)",
    "f'{t:.2f}'",
    "f'{t:>10}'",
    "f'{t}'",
    "min(t)",
    "max(t)",
    "sum(t)",
    "sorted(t)",
    "sum(t, 1)",
    "sorted(t, reverse=True)",
    "copy.copy(t)",
    "copy.deepcopy(t)",
    "(lambda c: (c, c.is_leaf, c.requires_grad, c.grad_fn is None))(copy.deepcopy(t))",
    "copy.deepcopy(t * 2)",
    "copy.deepcopy(t[0])",
    "(lambda v: (lambda c: (c[0], c[1], c[0]._base is c[1] if hasattr(c[0], '_base') else None))(copy.deepcopy([v, t])))(t[:1])",
    "pickle.loads(pickle.dumps(t))",
    "(lambda c: (c, c.requires_grad, c.is_leaf))(pickle.loads(pickle.dumps(t)))",
    "pickle.loads(pickle.dumps(t * 2))",
    "pickle.loads(pickle.dumps(torch.nn.Parameter(t.detach().float())))",
    "copy.deepcopy(torch.nn.Parameter(t.detach().float()))",
    "type(copy.deepcopy(torch.nn.Parameter(t.detach().float()))).__name__",
    "copy.copy(torch.nn.Parameter(t.detach().float()))",
    "np.asarray(t)",
    "np.asarray(t, dtype=np.float64)",
    "np.asarray(t, dtype=np.int8)",
    "np.array(t)",
    "np.array([t, t])",
    "np.array([t[0], t[0]]) if t.dim() else np.array([t, t])",
    "t.__array__()",
    "t.__array__(np.float16)",
    "t.__array__(None)",
    "np.array(t, copy=False)",
    "np.array(t, dtype=object)",
    "np.asarray(t).flags.writeable",
    "np.shares_memory(np.asarray(t), t.numpy())",
    "np.array(list(t))",
    "np.float64(2) * t",
    "t * np.float64(2)",
    "np.exp(t)",
    "np.sum(t)",
    "np.concatenate([t, t])",
    "t[np.int64(0)]",
    "t[np.array([0])]",
    "t[np.array([0, 1])]",
    "t[np.array(0)]",
    "t[np.array([True, False])]",
    "t[np.bool_(True)]",
    "t[np.int32(-1)]",
    "t[np.array([[0], [1]])]",
    "t[np.array([], dtype=np.int64)]",
    "t[..., np.int64(0)]",
    "t[np.uint8(1)]",
    "t[np.array([1, 0], dtype=np.uint8)]",
    "t[np.array([0, 1], dtype=np.int8)]",
    "t[np.float64(0)]",
    "t[np.array([0.0])]",
    "np.arange(6)[t]",
    "np.arange(6)[t.long()]",
    "np.arange(6)[t.bool()] if t.dim() else None",
    "np.arange(6).reshape(2, 3)[t.long()]",
    "[10, 20, 30, 40, 50, 60][t]",
    "np.arange(6)[t.long().clamp(0, 5)]",
    "np.arange(6)[t[0].long().clamp(0, 5)] if t.dim() else np.arange(6)[t.long().clamp(0,5)]",
    "torch.add(t, np.ones(1))",
    "torch.mul(t, np.float64(2))",
    "torch.add(t, np.float32(2))",
    "torch.tensor(np.float64(2.5))",
    "torch.tensor(np.array([1, 2], dtype=np.int8))",
    "torch.tensor(np.int64(3))",
    "torch.tensor(np.bool_(True))",
    "torch.tensor([np.float32(1), np.float64(2)])",
    "torch.tensor([np.int8(1), 2])",
    "torch.tensor(np.array(2.5, dtype=np.float16))",
    "torch.tensor([np.array(1.0), np.array(2.0)])",
    "torch.tensor(np.array([1, 2], dtype=np.uint16))",
    "torch.as_tensor(np.arange(3.0)).dtype",
    "(lambda a: (lambda x: (x.add_(1), a))(torch.as_tensor(a)))(np.arange(3.0))",
    "(lambda a: (lambda x: (x.add_(1), a))(torch.as_tensor(a, dtype=torch.float32)))(np.arange(3.0))",
    "(lambda a: (lambda x: (x.add_(1), a))(torch.from_numpy(a)))(np.arange(3))",
    "torch.tensor(np.arange(3.0)[::-1])",
    "torch.as_tensor(np.arange(6.0).reshape(2,3).T).stride()",
    "torch.from_numpy(np.arange(3.0)[::-1])",
    "torch.as_tensor([np.float32(1), np.float32(2)]).dtype",
    "torch.as_tensor(np.float32(2)).dtype",
    "torch.tensor(np.array([[1, 2]], dtype='>i4'))",
    "torch.tensor(t.numpy()) if not t.requires_grad else 0",
    "torch.where(t > 0, t, np.float64(0))",
    "torch.clamp(t, np.float64(0), np.int64(2))",
    "torch.full((2,), np.float32(2)).dtype",
    "torch.zeros(np.int64(2), np.int32(3)).shape",
    "t.view(np.int64(-1))",
    "t.reshape(np.array([-1]))",
    "t.sum(np.int64(0))",
    "t.expand(np.int64(2), *t.shape)",
    "torch.arange(np.int64(3))",
    "torch.arange(np.float32(2.5))",
    "t.repeat(np.int64(2))",
    "torch.linspace(0, np.float64(1), np.int64(3))",
    "t.new_full((2,), np.float64(3))",
    "t.fill_(np.float64(1.5)) if not t.requires_grad else 0",
    "-t",
    "~t",
    "+t",
    "t.__index__()",
    "t.__bool__()",
    "t.__float__()",
    "t.__int__()",
    "t.__len__()",
]


def np2_cases(rng, n):
    for _ in range(n):
        shape = [(), (1,), (3,), (2, 3), (1, 1), (0,)][rng.integers(0, 6)]
        dt = rng.choice(np2_DT)
        rg = rng.random() < 0.3
        yield np2_tens(rng, dt, shape, rg), np2_EXPRS[rng.integers(0, len(np2_EXPRS))]


# ----------------------------------------------------------------------

np3_DT = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "float16"]
np3_UF = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "power",
    "remainder",
    "fmod",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "arctan2",
    "hypot",
    "logaddexp",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "equal",
    "less",
    "greater_equal",
    "logical_and",
    "logical_xor",
    "matmul",
]


def np3_val(rng, dt, shape):
    v = rng.integers(1, 5, size=shape)
    if dt == "bool":
        v = v % 2 == 0
    return v


def np3_case(rng):
    d1, d2 = rng.choice(np3_DT), rng.choice(np3_DT)
    shape = [(3,), (2, 3), ()][rng.integers(0, 3)]
    ashape = shape if rng.random() < 0.6 else ()
    if "matmul" and rng.random() < 0.1:
        pass
    uf = rng.choice(np3_UF)
    if uf == "matmul":
        shape, ashape = (3,), (3, 2)
    setup = f"t = torch.tensor({np3_val(rng, d1, shape).tolist()!r}, dtype=torch.{d1}); a = np.array({np3_val(rng, d2, ashape).tolist()!r}, dtype=np.{d2 if d2 != 'bool' else 'bool_'})"
    code = f"np.{uf}(t, a)" if rng.random() < 0.5 else f"np.{uf}(a, t)"
    r = compare(code, setup)
    if r is None:
        return None
    t, m = r[1], r[2]
    if t[0] == "T" and m[0] == "T" and t[2] == "uint8" and m[2] == "bool":
        return None  # bool->uint8 (documented)
    return (r[0], uf), setup, code, t, m


def main():
    args = H.cli(
        "numpy_interop",
        default_cases=1500,
        extra=lambda p: p.add_argument("--gen", default="gen1,gen2,gen3", help="%(default)s"),
    )
    rep = args.report
    cmp = H.limited(compare, args.timeout, lambda e: ("timeout", str(e), None))
    gens = args.gen.split(",")
    if "gen1" in gens:
        for setup, code in np1_cases(np.random.default_rng(args.seed), args.cases):
            rep.case()
            r = cmp(code, setup)
            if r is not None:
                key = (r[0], code.split(" ")[1] if code.startswith(("t ", "a ")) else code[:25])
                rep.add(
                    ("gen1",) + key, setup, code, f"T {str(r[1])[:300]}", f"M {str(r[2])[:300]}"
                )
    if "gen2" in gens:
        for setup, code in np2_cases(np.random.default_rng(args.seed), args.cases):
            rep.case()
            r = cmp(code, setup)
            if r is not None:
                rep.add(
                    ("gen2", r[0], code[:40]),
                    setup,
                    code,
                    f"T {str(r[1])[:300]}",
                    f"M {str(r[2])[:300]}",
                )
    if "gen3" in gens:
        rng = np.random.default_rng(args.seed)
        for _ in range(args.cases):
            rep.case()
            r = np3_case(rng)
            if r is not None:
                key, setup, code, t, m = r
                rep.add(("gen3",) + key, setup, code, f"T {str(t)[:250]}", f"M {str(m)[:250]}")
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
