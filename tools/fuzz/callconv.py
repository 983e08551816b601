"""Differential fuzzer of calling conventions: torch vs minitorch, driven by aten schemas.

For every public torch function / Tensor method with an aten schema: positional vs keyword
arguments, defaults left out, None for optionals, ints for floats, lists vs tuples vs Size, dim
names, wrong types and arities; compares values and the error type and message. --cases is the
number of argument forms per op (default 6); --only is a regex on op names. Adapted from session
23's callconv fuzzer.
"""

# ruff: noqa: B007  (code adapted as-is from the session fuzzers)

import collections
import math
import random
import re
import signal
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

warnings.filterwarnings("ignore")
torch.set_num_threads(1)

SKIP_NAMES = {
    "rpc_async",
    "rpc_remote",
    "rpc_sync",
    "set_",
    "resize_",
    "resize_as_",
    "share_memory_",
    "record_stream",
    "backward",
    "retain_grad",
    "register_hook",
    "numpy",
    "tolist",
    "item",
    "data_ptr",
    "storage",
    "untyped_storage",
    "pin_memory",
    "cuda",
    "cpu",
    "is_pinned",
    "to_sparse",
    "to_mkldnn",
    "to_dense",
    "set_data",
    "requires_grad_",
    "detach_",
    "_version",
    "is_leaf",
    "output_nr",
    "geqrf",
    "ormqr",
    "lstsq",
    "name",
    "names",
}
RANDOM_NAMES = re.compile(
    r"^(rand|randn|randint|randperm|empty|empty_like|new_empty|empty_strided|new_empty_strided|"
    r"bernoulli|multinomial|normal|poisson|dropout|alpha_dropout|feature_dropout|"
    r"feature_alpha_dropout|random_|uniform_|normal_|cauchy_|exponential_|geometric_|"
    r"log_normal_|bernoulli_|rand_like|randn_like|randint_like|rrelu|rrelu_|empty_permuted|"
    r"native_dropout|binomial|_standard_gamma|uniform)$"
)
OK_TYPES = re.compile(
    r"^(Tensor|Tensor\?|Tensor\(\w!?\)|Tensor\(\w!?\)\?|int|int\?|SymInt|SymInt\?|int\[\d*\]\??|"
    r"SymInt\[\d*\]\??|bool|bool\?|float|float\?|Scalar|Scalar\?|ScalarType\?|ScalarType|"
    r"Generator\?|Layout\?|Device\?|str|str\?|Tensor\[\]|Tensor\(\w!?\)\[\]|MemoryFormat\?|"
    r"float\[\]\?|bool\[\d*\])$"
)


def parse_schema(s):
    s = str(s)
    m = re.match(r"aten::(\w+)(?:\.(\w+))?\((.*)\) -> (.*)$", s)
    if not m:
        return None
    name, overload, args, _ = m.groups()
    params = []
    kwonly = False
    depth = 0
    cur = ""
    parts = []
    for ch in args:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    for p in parts:
        if p == "*":
            kwonly = True
            continue
        mm = re.match(r"(\S+) (\w+)(?:=(.*))?$", p)
        if not mm:
            return None
        typ, pname, default = mm.groups()
        params.append((typ, pname, default, kwonly))
    return name, overload or "", params


class Skip(Exception):
    pass


def dim_val(rng, nd):
    return rng.randrange(-nd, nd) if nd else 0


def gen_value(rng, typ, pname, nd, shape):
    """A plain (library independent) description of an argument value."""
    base = typ.rstrip("?")
    base = re.sub(r"\(\w!?\)", "", base)
    if base == "Tensor":
        if pname in ("index", "indices"):
            return ("itensor", shape, 0, shape[0] if shape else 1)
        if pname == "mask":
            return ("btensor", shape)
        if pname in (
            "other",
            "tensor1",
            "tensor2",
            "exponent",
            "end",
            "weight",
            "mat2",
            "vec",
            "src",
            "source",
            "value",
            "min",
            "max",
            "input",
            "target",
            "tensor",
        ):
            return ("ftensor", shape if rng.random() < 0.8 else shape[-1:])
        return ("ftensor", shape)
    if base == "Tensor[]":
        return ("tlist", [shape, shape])
    if base in ("int", "SymInt"):
        if "dim" in pname or pname in ("axis", "source", "destination", "dim0", "dim1"):
            return dim_val(rng, nd)
        if pname in ("diagonal", "offset", "shifts"):
            return rng.randrange(-1, 2)
        return rng.randrange(1, 3)
    if re.match(r"(Sym)?[Ii]nt\[\d*\]", base):
        n = int(re.search(r"\[(\d*)\]", base).group(1) or 0)
        if pname in ("dim", "dims"):
            if pname == "dims" or rng.random() < 0.5:
                perm = list(range(nd))
                rng.shuffle(perm)
                if pname == "dims" and rng.random() < 0.5:
                    return tuple(perm)
                return tuple(perm[: rng.randint(1, max(1, nd))])
            return (dim_val(rng, nd),)
        if pname in ("size", "shape"):
            numel = math.prod(shape)
            return rng.choice(
                [(numel,), tuple(reversed(shape)), (-1,), (shape[0], -1), tuple(shape)]
            )
        if pname in ("repeats", "sizes"):
            return tuple(rng.choice([1, 2]) for _ in range(nd))
        if pname in ("shifts",):
            return (1,)
        if n:
            return tuple(rng.randrange(1, 3) for _ in range(n))
        return (1,)
    if base in ("bool",):
        return rng.random() < 0.5
    if base in ("float", "Scalar"):
        return rng.choice([0.5, 2, 1.5, -1])
    if base == "ScalarType":
        return ("dtype", rng.choice(["float64", "float32", "int64"]))
    if base in ("Generator", "Layout", "Device", "MemoryFormat"):
        raise Skip
    if base in ("str",):
        raise Skip
    raise Skip


def materialize(lib, v, arrs):
    """Turn a plain description into a value of lib."""
    if isinstance(v, tuple) and v and isinstance(v[0], str):
        k = v[0]
        if k == "ftensor":
            a = arrs.setdefault(("f", v[1]), np.random.default_rng(len(arrs)).standard_normal(v[1]))
            return lib.tensor(a.copy())
        if k == "itensor":
            a = arrs.setdefault(("i", v[1]), np.random.default_rng(7).integers(0, v[3], v[1]))
            return lib.tensor(a.copy())
        if k == "btensor":
            a = arrs.setdefault(("b", v[1]), np.random.default_rng(8).random(v[1]) < 0.5)
            return lib.tensor(a.copy())
        if k == "tlist":
            return [materialize(lib, ("ftensor", s), arrs) for s in v[1]]
        if k == "dtype":
            return getattr(lib, v[1])
        if k == "i0":  # 0-d int tensor
            return lib.tensor(v[1])
        if k == "f0":
            return lib.tensor(float(v[1]))
        if k == "npint":
            return np.int64(v[1])
        if k == "size":
            return lib.Size(v[1])
        if k == "list":
            return list(v[1])
        if k == "none":
            return None
        if k == "float":
            return float(v[1])
        if k == "bool":
            return bool(v[1])
    return v


def norm(x, depth=0):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        try:
            a = np.asarray(x.detach().numpy() if hasattr(x, "detach") else x)
        except Exception as e:
            return ("T?", str(e)[:40])
        return ("T", tuple(x.shape), str(x.dtype), a)
    if isinstance(x, (tuple, list)) and depth < 3:
        return tuple(norm(y, depth + 1) for y in x)
    if isinstance(x, (torch.dtype, minitorch.dtype)):
        return ("dtype", str(x))
    if isinstance(x, (int, float, bool, complex, str, type(None))):
        return x
    if isinstance(x, (torch.Size, minitorch.Size)):
        return tuple(x)
    return ("obj", type(x).__name__)


def same(a, b, noval):
    if isinstance(a, tuple) and len(a) == 4 and a[0] == "T":
        if not (isinstance(b, tuple) and len(b) == 4 and b[0] == "T"):
            return False, "kind"
        if a[1] != b[1]:
            return False, "shape"
        if a[2] != b[2]:
            return False, "dtype"
        if noval:
            return True, ""
        x, y = a[3], b[3]
        if x.shape != y.shape:
            return False, "shape"
        try:
            tol = 1e-4 if x.dtype in (np.float32, np.float16) else 1e-9
            ok = np.allclose(
                x.astype(complex) if x.dtype.kind == "c" else x.astype(float),
                y.astype(complex) if y.dtype.kind == "c" else y.astype(float),
                rtol=tol,
                atol=tol,
                equal_nan=True,
            )
        except Exception:
            ok = np.array_equal(x, y)
        return ok, "value"
    if (
        isinstance(a, tuple)
        and isinstance(b, tuple)
        and len(a) == len(b)
        and not (a and a[0] == "T")
    ):
        for x, y in zip(a, b, strict=False):
            ok, why = same(x, y, noval)
            if not ok:
                return ok, why
        return True, ""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isclose(a, b, rel_tol=1e-9) or (a != a and b != b)), "value"
    return a == b, "value"


class Timeout(Exception):
    pass


def _alarm(*a):
    raise Timeout


signal.signal(signal.SIGALRM, _alarm)


def run(lib, fn_desc, args, kwargs, arrs):
    form, name = fn_desc
    try:
        signal.alarm(2)
        a = [materialize(lib, v, arrs) for v in args]
        k = {kk: materialize(lib, v, arrs) for kk, v in kwargs.items()}
        if form == "method":
            self_ = a.pop(0)
            f = getattr(self_, name)
        else:
            f = getattr(lib, name)
        r = f(*a, **k)
        if form == "method" and name.endswith("_"):
            r = (r, self_)
        return ("ok", norm(r))
    except Timeout:
        return ("timeout",)
    except Exception as e:
        return ("err", type(e).__name__, str(e).split("\n")[0][:300])
    finally:
        signal.alarm(0)


def int_variants(v):
    return [
        ("i0", v),
        ("npint", v),
        ("float", v),
        ("bool", v % 2 if isinstance(v, int) else 1),
        ("none",),
        ("f0", v),
    ]


def build_cases(rng, n_per_schema=6):
    schemas = torch._C._jit_get_all_schemas()
    cases = []
    for sch in schemas:
        p = parse_schema(sch)
        if not p:
            continue
        name, overload, params = p
        if name.startswith("_") or name in SKIP_NAMES or "out" in overload or "Dimname" in str(sch):
            continue
        if any(not OK_TYPES.match(t) for t, _, _, _ in params):
            continue
        if any(pn == "out" for _, pn, _, _ in params):
            continue
        forms = []
        if (
            params
            and params[0][1] == "self"
            and params[0][0].startswith("Tensor")
            and hasattr(torch.Tensor, name)
            and hasattr(minitorch.Tensor, name)
        ):
            forms.append("method")
        if hasattr(torch, name) and hasattr(minitorch, name) and not name.endswith("_"):
            forms.append("func")
        if not forms:
            continue
        for _ in range(n_per_schema):
            shape = rng.choice([(3, 4), (2, 3, 4), (4,), (2, 2)])
            nd = len(shape)
            try:
                vals = []
                for typ, pname, default, kwonly in params:
                    if pname == "self" and typ.startswith("Tensor") and "[]" not in typ:
                        vals.append(("ftensor", shape))
                        continue
                    vals.append(gen_value(rng, typ, pname, nd, shape))
            except Skip:
                break
            form = rng.choice(forms)
            # choose which optional params to pass, and positional cut
            npos_max = sum(1 for _, _, _, kw in params if not kw)
            cut = rng.randint(0, npos_max)
            if form == "method":
                cut = max(cut, 1)
            args, kwargs = [], {}
            passed = []
            last_pos_given = True
            for i, ((typ, pname, default, kwonly), v) in enumerate(zip(params, vals, strict=False)):
                optional = default is not None
                give = (not optional) or rng.random() < 0.6
                if not give:
                    if i < cut:
                        last_pos_given = False
                    continue
                kwname = "input" if pname == "self" else pname
                if i < cut and last_pos_given and not kwonly:
                    args.append(v)
                else:
                    if form == "method" and pname == "self":
                        args.append(v)
                    else:
                        kwargs[kwname] = v
                passed.append((i, pname, typ))
            base = (form, name, str(sch))
            cases.append((base, "plain", list(args), dict(kwargs)))
            # perturbation: one int argument as a variant
            for j, v in enumerate(args):
                if isinstance(v, int) and not isinstance(v, bool):
                    var = rng.choice(int_variants(v))
                    a2 = list(args)
                    a2[j] = var
                    cases.append((base, "int:" + var[0], a2, dict(kwargs)))
                if (
                    isinstance(v, tuple)
                    and v
                    and all(isinstance(x, int) for x in v)
                    and not isinstance(v[0], str)
                ):
                    a2 = list(args)
                    var = rng.choice(["list", "size", "varargs", "i0elem", "single"])
                    if var == "list":
                        a2[j] = ("list", v)
                    elif var == "size":
                        a2[j] = ("size", v)
                    elif var == "varargs":
                        if (
                            j != len(a2) - 1
                            or kwargs
                            and any(pn in kwargs for _, pn, _, kw in params if not kw)
                        ):
                            continue
                        a2 = a2[:j] + list(v)
                    elif var == "i0elem":
                        a2[j] = ("list", v)  # placeholder; handled below
                        a2[j] = ("tlist0", v)
                        continue
                    elif var == "single":
                        if len(v) != 1:
                            continue
                        a2[j] = v[0]
                    cases.append((base, "intlist:" + var, a2, dict(kwargs)))
            for kk, v in kwargs.items():
                if isinstance(v, int) and not isinstance(v, bool):
                    var = rng.choice(int_variants(v))
                    k2 = dict(kwargs)
                    k2[kk] = var
                    cases.append((base, "kwint:" + var[0], list(args), k2))
                if (
                    isinstance(v, tuple)
                    and v
                    and all(isinstance(x, int) for x in v)
                    and not isinstance(v[0], str)
                ):
                    k2 = dict(kwargs)
                    k2[kk] = rng.choice(
                        [("list", v), ("size", v)] + ([v[0]] if len(v) == 1 else [])
                    )
                    cases.append((base, "kwintlist", list(args), k2))
            # wrong calls
            r = rng.random()
            if r < 0.25:
                cases.append((base, "wrong:unknown_kw", list(args), dict(kwargs, foo=1)))
            elif r < 0.5 and len(args) == npos_max:
                cases.append((base, "wrong:extra", list(args) + [1], dict(kwargs)))
            elif r < 0.75:
                tens = [
                    j
                    for j, v in enumerate(args)
                    if isinstance(v, tuple)
                    and v
                    and v[0] == "ftensor"
                    and not (form == "method" and j == 0)
                ]
                if tens:
                    a2 = list(args)
                    a2[rng.choice(tens)] = ("none",)
                    cases.append((base, "wrong:none_tensor", a2, dict(kwargs)))
            # numpy aliases
            if "dim" in kwargs and rng.random() < 0.3:
                k2 = dict(kwargs)
                k2["axis"] = k2.pop("dim")
                if "keepdim" in k2:
                    k2["keepdims"] = k2.pop("keepdim")
                cases.append((base, "alias:axis", list(args), k2))
    return cases


def main(seed=0, n_per=6, only=None, verbose=False):
    rng = random.Random(seed)
    cases = build_cases(rng, n_per)
    if only:
        cases = [c for c in cases if re.search(only, c[0][1])]
    stats = collections.Counter()
    bad = collections.defaultdict(list)
    for base, kind, args, kwargs in cases:
        form, name, sch = base
        arrs = {}
        rt = run(torch, (form, name), args, kwargs, arrs)
        rm = run(minitorch, (form, name), args, kwargs, arrs)
        noval = bool(RANDOM_NAMES.match(name))
        if rt[0] == "ok" and rm[0] == "ok":
            ok, why = same(rt[1], rm[1], noval)
            cls = "ok" if ok else "both_ok_diff_" + why
        elif rt[0] == "ok":
            cls = "torch_ok_mt_err"
        elif rm[0] == "ok":
            cls = "torch_err_mt_ok"
        elif rt[0] == "timeout" or rm[0] == "timeout":
            cls = "timeout"
        else:
            tt = rt[1]
            mt = rm[1]
            if tt != mt:
                cls = "errtype"
            elif rt[2] != rm[2]:
                cls = "errmsg"
            else:
                cls = "ok"
        stats[cls] += 1
        if cls != "ok":
            bad[cls].append(
                (
                    form,
                    name,
                    kind,
                    sch,
                    args,
                    kwargs,
                    rt[:3] if rt[0] != "ok" else "ok",
                    rm[:3] if rm[0] != "ok" else "ok",
                )
            )
    return stats, bad


def cli_main():
    def extra(p):
        p.add_argument("--only", help="regex on op names")

    args = H.cli("callconv", default_cases=6, extra=extra)
    stats, bad = main(args.seed, n_per=args.cases, only=args.only)
    rep = args.report
    for cls, exs in bad.items():
        for form, name, kind, sch, a, kw, rt, rm in exs:
            rep.add(
                cls,
                f"{name}: {form} {kind} {sch}",
                f"args={a!r:.200} kwargs={kw!r:.200}",
                f"torch: {rt}",
                f"mt:    {rm}",
            )
    rep.case(sum(stats.values()))
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(cli_main)
