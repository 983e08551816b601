"""Session 39 (helper redfuzz): seeded fuzzing of reductions and scans against torch. A
fixed-seed generator writes each program as a spec: a random input (float64 or float32; 0-d,
0-size and 1-size dims; noncontiguous through a transpose or a stepped slice; in some programs
NaN, inf, -inf and -0.0 among the values) and one op of sum, nansum, mean, nanmean, prod, amax,
amin, max/min(dim), logsumexp, var/std (correction 0/1/2), var_mean/std_mean, norm (p = 1, 2,
inf, -inf, 0, 3), aminmax, cumsum, cumprod, cummax/cummin, logcumsumexp, softmax/log_softmax,
median/nanmedian(dim), count_nonzero, all/any, with a random dim (int, negative, tuple, None
where allowed), keepdim, and dtype= where allowed. Each program records the forward values (NaN
at the same places), shapes and dtypes, or the error's type and message; in float64 the input's
gradient for a random upstream gradient, and for a third of them the double backward (the
gradient of the gradient weighed by a second random tensor). Index-returning ops (max/min(dim),
median, cummax/cummin) and the gradients of amax/amin/prod get distinct values, so no tie that
rounding decides is recorded. float64 must agree to 1e-10 of each record's scale, float32 to
1e-4.

Also in some programs: an int64/int32/uint8/bool input (the integral dtype rules), the Tensor
method with a positional dim, an out= tensor (empty, of the program's dtype or a wrong one), dim
as a list or an empty list, logsumexp of values whose exp overflows, many NaNs for the nan-ops.
8000 seeds per dtype were run while writing this; the test keeps the first 1600, and
p_out_and_dim_orders replays the calls of the later seeds that differed.

Found and fixed:
- sum(x, None, out=o) raised the full sum's TypeError: torch's dim=None is the dim overload,
  which takes out= (also with keepdim=True).
- sum/prod/mean given out= or keepdim= with dtype= and no dim dropped dtype from the parser's
  error: torch's 'sum() missing 1 required positional arguments: "dim"' (sum, prod), and its
  listing "got (Tensor, dtype=torch.dtype, keepdim=bool)" (mean); prod's listing named "tuple
  of ints dim" for its "int dim" overload.
- mean(x, None, out=bool) gave the full mean's "mean.dtype_out()" message: torch's dim
  overload's "result type Float can't be cast..." (and out_dtype_error with dtype=).
- torch checks out='s dtype before the dims: amax/amin ("Expected the dtype for input and out
  to match", before out-of-range, repeated and empty dims), cummax/cummin/logcumsumexp
  ("expected scalar_type Float but found Double", also before a 0-d input's dim message),
  logsumexp's empty dim tuple (the float result check first); median/nanmedian check the dim's
  range and an empty dim before out='s dtypes.
- A bool out= of cumsum/cumprod raised the bool kernel error for a 0-d or empty input (torch
  copies, no kernel) and before out='s dtype mismatch with dtype=; cumsum(x_requiring_grad,
  dtype=bool) gave autograd's "Autograd not support dtype: Bool" where torch's kernel error
  comes first.
- nansum of an empty float input into an int out= raised "nansum_cpu not implemented": torch
  returns 0 (no kernel runs).
- linalg.vector_norm/norm checked dtype= before the dims and the empty-input identity ("cannot
  compute the inf norm on an empty tensor"), and keepdim's parser error after the dims.
- prod's backward over a dim of one factor (or a one-element full prod) with a zero in the
  input: torch's prod_safe_zeros_backward returns the upstream gradient itself (no graph), so
  its double backward has no path; minitorch's was differentiable (p_prod_one_factor).

Known and left (documented):
- var_mean/std_mean of an input with +-inf: torch's Welford mean is NaN or inf by the inf's
  position (inf first: NaN); minitorch's is the plain mean. Rounding-order noise of torch's
  kernel; the fuzzer puts NaN where it would put an infinity there.
- Gradients of 0-size inputs: torch's cummax/cummin backward returns the input itself (a leaf
  requiring grad), its logcumsumexp backward the upstream gradient; whether the gradient
  requires grad differs (values agree, both empty). No double backward is recorded for them.
- sum(x, keepdims=True, dtype=...) (NumPy's spelling) lists the overloads where torch says
  'missing "dim"'; mean(x, keepdim=False, dtype=...) without a dim is accepted (NOTE
  [ keepdim without dim ]: keepdim=False is taken on the fast path).
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import (
    Rec,
    assert_calls_match,
    assert_program_matches,
    record_diffs,
    run_calls,
    run_program,
)

torch = pytest.importorskip("torch")

BLOCKS = 8
PER_BLOCK = 200
SEEDS = range(BLOCKS * PER_BLOCK)

# op name -> (kind of dim argument, takes keepdim, takes dtype=, index-returning / tie-sensitive)
# dim kinds: "opt" int/tuple/None, "int" one int required, "intopt" one int or None,
# "none" no dim
OPS = {
    "sum": ("opt", True, True, False),
    "nansum": ("opt", True, True, False),
    "mean": ("opt", True, True, False),
    "nanmean": ("opt", True, True, False),
    "prod": ("intopt", True, True, True),
    "amax": ("opt", True, False, True),
    "amin": ("opt", True, False, True),
    "max": ("int", True, False, True),
    "min": ("int", True, False, True),
    "max_all": ("none", False, False, True),
    "logsumexp": ("opt", True, False, False),
    "var": ("opt", True, False, False),
    "std": ("opt", True, False, False),
    "var_mean": ("opt", True, False, False),
    "std_mean": ("opt", True, False, False),
    "norm": ("opt", True, True, True),
    "aminmax": ("intopt", True, False, True),
    "cumsum": ("int", False, True, False),
    "cumprod": ("int", False, True, True),
    "cummax": ("int", False, False, True),
    "cummin": ("int", False, False, True),
    "logcumsumexp": ("int", False, False, False),
    "softmax": ("int", False, True, False),
    "log_softmax": ("int", False, True, False),
    "median": ("int", True, False, True),
    "nanmedian": ("int", True, False, True),
    "median_all": ("none", False, False, True),
    "count_nonzero": ("opt", False, False, False),
    "all": ("intopt", True, False, False),
    "any": ("intopt", True, False, False),
}
OP_NAMES = sorted(OPS)
OUT_OPS = {
    "sum",
    "nansum",
    "mean",
    "nanmean",
    "prod",
    "amax",
    "amin",
    "max",
    "min",
    "logsumexp",
    "var",
    "std",
    "norm",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "logcumsumexp",
    "median",
    "nanmedian",
    "all",
    "any",
    "aminmax",
}
TUPLE_OPS = {"max", "min", "cummax", "cummin", "median", "nanmedian", "aminmax"}
SPECIALS = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]


def make_spec(seed, dt):
    """The program of `seed` as a dict (the same for both libraries)."""
    r = random.Random(seed * 7919 + (dt == "float32"))
    op = r.choice(OP_NAMES)
    dim_kind, has_keep, has_dtype, ties = OPS[op]
    nd = r.choice((0, 1, 1, 2, 2, 3, 3))
    shape = [
        r.choice((0, 1, 2, 3, 4, 5)) if r.random() < 0.15 else r.choice((1, 2, 3, 4, 5))
        for _ in range(nd)
    ]
    layout = r.choice(("contig", "contig", "t", "step")) if nd >= 1 else "contig"
    base = list(shape)
    if layout == "t" and nd >= 2:
        base = [shape[-1], *shape[1:-1], shape[0]]
    elif layout == "step":
        base = [*shape[:-1], shape[-1] * 2]
    else:
        layout = "contig"
    n = math.prod(base)
    vr = np.random.default_rng(seed)
    if ties:
        vals = vr.permutation(n).astype(np.float64) * 0.37 - n * 0.15 + vr.uniform(0, 0.01, n)
    else:
        vals = vr.standard_normal(n) * r.choice((0.5, 1.0, 3.0))
    if op in ("prod", "cumprod"):
        vals = 0.6 + vr.uniform(0, 0.8, n) * np.where(vr.random(n) < 0.5, -1, 1)
        if r.random() < 0.3 and n:
            vals[r.randrange(n)] = 0.0  # a structural zero (prod's backward branch)
    if op == "logsumexp" and r.random() < 0.3:
        vals = vals * 400.0  # exp overflows: the max-shifted sum
    special = r.random() < 0.25 and n > 0
    if special and op in ("nanmedian", "nanmean", "nansum") and r.random() < 0.5:
        vals[vr.random(n) < 0.5] = float("nan")  # many NaNs, some rows all NaN
    elif special:
        k = 1 if ties else r.randint(1, 3)
        for _ in range(k):
            v = r.choice(SPECIALS)
            if op in ("var_mean", "std_mean") and math.isinf(v):
                v = float("nan")  # torch's Welford mean: NaN or inf by the inf's position
            vals[r.randrange(n)] = v
    if op in ("all", "any", "count_nonzero") and n:
        vals[vr.random(n) < 0.4] = 0.0
    # the dim argument
    dim = "absent"
    if dim_kind != "none" and (nd > 0 or r.random() < 0.5):
        lo, hi = -max(nd, 1), max(nd, 1) - 1
        c = r.random()
        if dim_kind == "opt" and c < 0.2:
            dim = None
        elif dim_kind == "opt" and c < 0.45 and nd >= 1:
            k = r.randint(1, nd)
            ds = r.sample(range(nd), k)
            dim = tuple(d - nd if r.random() < 0.4 else d for d in ds)
            if r.random() < 0.05:
                dim = (*dim, dim[0])  # a repeated dim: an error in both
            if r.random() < 0.2:
                dim = list(dim)
        elif dim_kind == "opt" and c < 0.5:
            dim = [] if r.random() < 0.5 else ()  # an empty dim list: all dims (or none)
        elif dim_kind in ("opt", "intopt") and c < 0.3:
            dim = "absent"
        elif r.random() < 0.04:
            dim = hi + 1  # out of range: the error
        else:
            dim = r.randint(lo, hi)
    if dim_kind == "int" and dim == "absent" and op not in ("max", "min", "median", "nanmedian"):
        dim = 0
    keep = has_keep and r.random() < 0.5
    dtype = None
    if has_dtype and r.random() < 0.25:
        dtype = r.choice(("float64", "float32"))
    extra = {}
    if op in ("var", "std", "var_mean", "std_mean"):
        extra["correction"] = r.choice((0, 1, 2, None))
    if op == "norm":
        extra["p"] = r.choice((1, 2, float("inf"), float("-inf"), 0, 3, "fro"))
    # an integer or bool input (the dtype rules of reductions), in some programs
    cast = None
    if r.random() < 0.15 and op not in ("logsumexp", "logcumsumexp", "softmax", "log_softmax"):
        cast = r.choice(("int64", "int32", "bool", "uint8"))
        if ties and cast in ("bool", "uint8"):
            cast = "int64"
        vals = np.nan_to_num(np.round(vals * 2), nan=0.0, posinf=7.0, neginf=-7.0)
        if ties:  # distinct integers
            vals = vr.permutation(n).astype(np.float64) - n // 2
        if cast == "uint8":
            vals = np.abs(vals)
    if has_dtype and dtype is not None and r.random() < 0.3:
        dtype = r.choice(("int64", "int32", "bool"))
    method = r.random() < 0.3
    out = None  # out=: an empty tensor of a dtype (resized), or of the wrong one (the error)
    if not method and op in OUT_OPS and r.random() < 0.2:
        out = r.choice((dt, dt, "float64", "float32", "int64", "bool"))
    grad = dt == "float64" and cast is None and op not in ("count_nonzero", "all", "any")
    return {
        "seed": seed,
        "op": op,
        "shape": shape,
        "base": base,
        "layout": layout,
        "vals": vals,
        "dim": dim,
        "keep": keep,
        "dtype": dtype,
        "extra": extra,
        "grad": grad and out is None,
        "double": grad and seed % 3 == 0,
        "cast": cast,
        "method": method,
        "out": out,
    }


def _call(lib, x, s):
    """Runs the spec's op on x; returns a tuple of output tensors."""
    op, dim, keep, extra = s["op"], s["dim"], s["keep"], s["extra"]
    kw = {}
    if dim != "absent":
        kw["dim"] = dim
    if OPS[op][1] and keep:
        kw["keepdim"] = True
    if s["dtype"] is not None:
        kw["dtype"] = getattr(lib, s["dtype"])
    if s["out"] is not None:
        o = lib.empty(0, dtype=getattr(lib, s["out"]))
        if op in TUPLE_OPS:
            kw["out"] = (o, lib.empty(0, dtype=lib.int64 if op != "aminmax" else o.dtype))
        else:
            kw["out"] = o
    if s["method"] and op not in ("var_mean", "std_mean"):  # x.op(dim, ...): dim positional
        name = op.removesuffix("_all")
        args = (kw.pop("dim"),) if "dim" in kw else ()
        if op in ("var", "std") and extra["correction"] is not None:
            kw["correction"] = extra["correction"]
        if op == "norm":
            kw["p"] = extra["p"]
        out = getattr(x, name)(*args, **kw)
    elif op in ("max_all", "median_all"):
        out = getattr(lib, op[:-4])(x)
    elif op in ("var", "std", "var_mean", "std_mean"):
        if extra["correction"] is not None:
            kw["correction"] = extra["correction"]
        out = getattr(lib, op)(x, **kw)
    elif op == "norm":
        out = lib.norm(x, p=extra["p"], **kw)
    elif op in ("softmax", "log_softmax"):
        out = getattr(lib, op)(x, **kw)
    elif op in ("max", "min", "median", "nanmedian") and dim == "absent":
        out = getattr(lib, op)(x)
    else:
        out = getattr(lib, op)(x, **kw)
    if isinstance(out, tuple):
        return tuple(out)
    return (out,)


def run_one(lib, dt, seed, rec):
    s = make_spec(seed, dt)
    # "p12f": a program whose op computes in float32 (its dtype, dtype= or out=), compared as
    # float32 whatever the dtype of its records
    tag = f"p{seed}" + ("f" if "float32" in (dt, s["dtype"], s["out"]) else "")
    dtype = getattr(lib, dt)
    base = lib.tensor(s["vals"], dtype=dtype).reshape(s["base"])
    if s["cast"] is not None:
        base = base.to(getattr(lib, s["cast"]))
    leaf = base.clone().requires_grad_(s["grad"])
    if s["layout"] == "t":
        x = leaf.transpose(0, -1)
    elif s["layout"] == "step":
        x = leaf[..., ::2]
    else:
        x = leaf * 1 if s["grad"] else leaf
    outs = rec.err(tag + ".call", lambda: _call(lib, x, s))
    if outs is None:
        return
    for i, o in enumerate(outs):
        rec(f"{tag}.out{i}", o)
        rec(f"{tag}.out{i}.shape", str(tuple(o.shape)))
    if not s["grad"]:
        return
    diffs = [o for o in outs if o.dtype.is_floating_point and o.requires_grad]
    if not diffs:
        return
    gr = np.random.default_rng(10_000 + seed)
    ws = [lib.tensor(gr.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in diffs]
    try:
        (g,) = lib.autograd.grad(diffs, leaf, ws, create_graph=s["double"], allow_unused=True)
        if g is None:
            rec(tag + ".grad", "None")
            return
        rec(tag + ".grad", g)
        if s["double"] and g.requires_grad and g.numel():
            w2 = lib.tensor(gr.standard_normal(tuple(g.shape)), dtype=g.dtype)
            (gg,) = lib.autograd.grad((g * w2).sum(), leaf, allow_unused=True)
            # (+ 0: torch's zero double backward may be a ZeroTensor, which has no numpy())
            rec(tag + ".gg", "None" if gg is None else gg + 0)
    except Exception as e:  # noqa: BLE001 - the error is the record
        rec(tag + ".grad_error", f"{type(e).__name__}: {e}")


def describe(seed, dt):
    s = make_spec(seed, dt)
    s = dict(s, vals=np.array2string(s["vals"], precision=17, separator=", "))
    return f"# program {seed} ({dt}): {s}"


def _tolerance(name, value):
    """1e-10 of the record's scale for a float64 record; 1e-4 for a float32 one, or one of a
    float64 program computed in float32 (5e-4 for its second derivatives)."""
    low = re.match(r"p\d+f\.", name)
    if value.dtype == np.float64 and not low:
        return 1e-10
    return 5e-4 if low and name.endswith(".gg") else 1e-4


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("block", range(BLOCKS))
def test_fuzz_block_matches_torch(block, dt):
    import minitorch

    def prog(lib, dtype, rec):
        for seed in SEEDS[block * PER_BLOCK : (block + 1) * PER_BLOCK]:
            run_one(lib, dt, seed, rec)

    want = run_program(prog, torch, dt, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True))
    diffs = record_diffs(want, got, _tolerance, rename=True)
    if diffs:
        seeds = sorted({int(m) for m in re.findall(r"\bp(\d+)\.", "\n".join(diffs))})
        text = "\n".join(describe(s, dt) for s in seeds[:3])
        pytest.fail(f"{len(diffs)} record(s) differ:\n" + "\n".join(diffs[:10]) + "\n" + text)


# --- hand-written programs: the minimised mismatches ---

_OUT_CALLS = [
    # sum's dim=None is its dim overload, which takes out=; the full sum's takes none
    "L.sum(x, None, out=L.empty(0))", "L.sum(x, dim=None, keepdim=True, out=L.empty(0))",
    "L.sum(x, None, out=L.empty(0, dtype=L.int64))", "L.sum(x, out=L.empty(0))",
    "L.prod(x, out=L.empty(0))", "L.prod(x, out=L.empty(0), dtype=L.float64)",
    "L.sum(x, dtype=L.float64, out=L.empty(0))", "L.prod(x, keepdim=True, dtype=L.float64)",
    "L.sum(x, keepdim=True, dtype=L.float32)", "x.mean(keepdim=True, dtype=L.float32)",
    "L.mean(x, dtype=L.float32, keepdim=True)", "L.mean(x, keepdim=True, dtype=L.float32)",
    # mean(x, None, out=) is the dim overload too: its messages
    "L.mean(x, out=L.empty(0, dtype=L.bool))",
    "L.mean(x, None, True, out=L.empty(0, dtype=L.bool))",
    "L.mean(x.double(), None, dtype=L.float64, out=L.empty(0, dtype=L.int64))",
    "L.mean(x.double(), dtype=L.float64, out=L.empty(0, dtype=L.int64))",
    # out='s dtype before the dims; median's dim and empty dim before out='s dtypes
    "L.amax(x, 5, out=L.empty(0, dtype=L.float64))",
    "L.amin(x, (1, 1), out=L.empty(0, dtype=L.int64))",
    "L.amin(e, 1, out=L.empty(0, dtype=L.bool))",
    "L.cummin(x, 5, out=(L.empty(0, dtype=L.float64), L.empty(0, dtype=L.int64)))",
    "L.cummax(s, 5, out=(L.empty(0), L.empty(0, dtype=L.int32)))",
    "L.cummax(x, 'a', out=(L.empty(0, dtype=L.float64), L.empty(0, dtype=L.int64)))",
    "L.logcumsumexp(x, 5, out=L.empty(0, dtype=L.float64))",
    "L.logcumsumexp(x, 'a', out=L.empty(0, dtype=L.float64))",
    "L.logsumexp(x, (), out=L.empty(0, dtype=L.bool))",
    "L.logsumexp(x, (), out=L.empty(0, dtype=L.float64))",
    "L.median(x, 5, out=(L.empty(0, dtype=L.int64), L.empty(0, dtype=L.int64)))",
    "L.nanmedian(e, 1, out=(L.empty(0), L.empty(0)))",
    "L.median(x, 1, out=(L.empty(0, dtype=L.int64), L.empty(0, dtype=L.int64)))",
    # scans: a bool out= reaches no kernel for a 0-d or empty input; the kernel's bool error
    # before autograd's dtype check
    "L.cumsum(s, 0, out=L.empty(0, dtype=L.bool))", "L.cumprod(e, 0, out=L.empty(0, dtype=L.bool))",
    "L.cumsum(x, 0, out=L.empty(0, dtype=L.bool))",
    "L.cumsum(x, 0, dtype=L.float64, out=L.empty(0, dtype=L.bool))",
    "L.cumprod(xg, 0, dtype=L.bool)", "L.cumsum(eg, 0, dtype=L.bool)",
    "L.nansum(e, out=L.empty(0, dtype=L.int64))", "L.nansum(x, 0, out=L.empty(0, dtype=L.int32))",
    # vector_norm: the empty input's identity before dtype='s checks
    "L.norm(e3, p=float('inf'), dtype=L.int64)",
    "L.linalg.vector_norm(e3.double(), float('inf'), dtype=L.float32)",
    "L.linalg.vector_norm(e3, float('inf'), 5, dtype=L.int64)",
    "L.linalg.vector_norm(e3, -1, dtype=3)", "L.linalg.vector_norm(e3, 2, dtype=L.int64)",
]  # fmt: skip


def p_out_and_dim_orders(lib, rec):
    """Which error a reduction's out=, dtype= and dim report first (fuzzed programs' calls)."""
    env = {
        "L": lib, "x": lib.tensor([[1.5, 2.0, 3.0], [4.0, 5.0, 6.5]]), "s": lib.tensor(2.0),
        "e": lib.ones(4, 0), "e3": lib.ones(5, 0, 2), "xg": lib.ones(2, 3, requires_grad=True),
        "eg": lib.ones(0, 2, requires_grad=True),
    }  # fmt: skip
    run_calls(_OUT_CALLS, env, rec)
    for code in _OUT_CALLS[:3]:  # the values of the ones that work
        rec(code + " = ", eval(code, env))  # noqa: S307


def p_prod_one_factor(lib, dt, rec):
    """prod's gradient over a dim of one factor, with a zero in the input: torch's
    prod_safe_zeros_backward returns the upstream gradient as it is (no graph), where more
    factors give a twice differentiable one."""
    for vals, dim in (([[0.0], [2.0]], 1), ([[3.0, 0.0]], 0), ([0.0], None), ([[0.0, 2.0]], 1)):
        x = lib.tensor(vals, dtype=dt, requires_grad=True)
        out = x.prod() if dim is None else x.prod(dim, keepdim=True)
        w = lib.linspace(-1.0, 2.0, out.numel(), dtype=dt).reshape(out.shape)
        (g,) = lib.autograd.grad(out, x, w, create_graph=True)
        rec(f"{vals}.grad", g)
        rec(f"{vals}.requires_grad", str(g.requires_grad))


def test_out_and_dim_orders_match_torch():
    assert_calls_match(p_out_and_dim_orders, torch)


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_prod_one_factor_matches_torch(dt):
    assert_program_matches(p_prod_one_factor, torch, dt)
