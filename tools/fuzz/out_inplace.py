"""Differential fuzzer: out= arguments and in-place methods.

Part out: every torch function taking out= (names inlined below, plus torch.linalg.* and
torch.special.*), called from a template with out tensors of the right/wrong dtype and shape,
non-contiguous, aliasing an input, requiring grad, in no_grad: values, dtype/shape/strides of out,
the returned object's identity, resize warnings, exceptions. Part inplace: every Tensor method
ending in "_" on float32/float64/int64/bool/broadcast/expanded/leaf-requiring-grad/view-with-grad/
float16/bfloat16/int32/0-d/non-contiguous inputs: values, dtype, version counter, grad_fn,
exceptions. Exhaustive, not random: --cases limits the ops per part (0: all), taken from index
--seed on. Adapted from session 23's outvar fuzzers (fuzz_out.py, fuzz_inplace.py).
"""

import collections
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential fuzzer of out= arguments: torch vs minitorch.


# names of torch functions that take out= (torch 2.13)
NAMES = [
    "abs",
    "acos",
    "acosh",
    "add",
    "addbmm",
    "addcdiv",
    "addcmul",
    "addmm",
    "addmv",
    "addr",
    "all",
    "amax",
    "amin",
    "aminmax",
    "angle",
    "any",
    "arange",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "baddbmm",
    "bernoulli",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bmm",
    "bucketize",
    "cat",
    "ceil",
    "chain_matmul",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "clamp",
    "clip",
    "column_stack",
    "concat",
    "concatenate",
    "conj_physical",
    "copysign",
    "cos",
    "cosh",
    "cross",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "deg2rad",
    "diag",
    "diff",
    "digamma",
    "div",
    "divide",
    "dot",
    "dstack",
    "empty",
    "empty_like",
    "empty_permuted",
    "empty_strided",
    "eq",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "eye",
    "fix",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frac",
    "frexp",
    "from_file",
    "full",
    "gather",
    "gcd",
    "ge",
    "geqrf",
    "ger",
    "greater",
    "greater_equal",
    "gt",
    "hamming_window",
    "heaviside",
    "histc",
    "histogram",
    "histogramdd",
    "hstack",
    "hypot",
    "i0",
    "igamma",
    "igammac",
    "index_select",
    "inner",
    "inverse",
    "isneginf",
    "isposinf",
    "kron",
    "kthvalue",
    "lcm",
    "ldexp",
    "le",
    "lerp",
    "less",
    "less_equal",
    "lgamma",
    "linspace",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logaddexp2",
    "logcumsumexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "logspace",
    "logsumexp",
    "lt",
    "lu",
    "lu_solve",
    "lu_unpack",
    "masked_select",
    "matmul",
    "matrix_power",
    "max",
    "maximum",
    "mean",
    "median",
    "min",
    "minimum",
    "mm",
    "mode",
    "msort",
    "mul",
    "multinomial",
    "multiply",
    "mv",
    "mvlgamma",
    "nan_to_num",
    "nanmean",
    "nanmedian",
    "nanquantile",
    "narrow_copy",
    "ne",
    "neg",
    "negative",
    "nextafter",
    "nonzero",
    "norm",
    "normal",
    "not_equal",
    "ones",
    "ones_like",
    "ormqr",
    "outer",
    "polygamma",
    "pow",
    "qr",
    "quantile",
    "rad2deg",
    "rand",
    "rand_like",
    "randint",
    "randn",
    "randn_like",
    "randperm",
    "range",
    "reciprocal",
    "remainder",
    "renorm",
    "round",
    "row_stack",
    "rsqrt",
    "searchsorted",
    "sgn",
    "sigmoid",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "sort",
    "sqrt",
    "square",
    "stack",
    "std",
    "std_mean",
    "sub",
    "subtract",
    "svd",
    "take_along_dim",
    "tan",
    "tanh",
    "topk",
    "triangular_solve",
    "tril",
    "triu",
    "trunc",
    "var",
    "var_mean",
    "vdot",
    "vstack",
    "where",
    "xlogy",
    "zeros",
    "zeros_like",
]
LINALG = [
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "vander",
    "vecdot",
    "vector_norm",
]
SPECIAL = [
    "bessel_j0",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "xlog1py",
    "xlogy",
    "zeta",
    "chebyshev_polynomial_t",
    "hermite_polynomial_h",
    "modified_bessel_i0",
]
SKIP = {
    "normal",
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "bernoulli",
    "multinomial",
    "poisson",
    "empty",
    "empty_like",
    "empty_strided",
    "from_file",
    "range",
}

rng = np.random.default_rng(0)
A34 = rng.standard_normal((3, 4))
B34 = rng.standard_normal((3, 4))
C34 = rng.standard_normal((3, 4))
P34 = rng.uniform(0.1, 0.9, (3, 4))
M33 = rng.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = M33 @ M33.T
N45 = rng.standard_normal((4, 5))
V4 = rng.standard_normal(4)
V3 = rng.standard_normal(3)
I34 = rng.integers(-5, 6, (3, 4))
J34 = rng.integers(1, 6, (3, 4))
MASK = rng.random((3, 4)) > 0.5
IDX = rng.integers(0, 3, (3, 4))


def T(L, a, dtype="float32", rg=False):
    t = L.tensor(np.array(a), dtype=getattr(L, dtype))
    if rg:
        t.requires_grad_(True)
    return t


# each template: (label, builder(L, rg) -> (args, kwargs))
def templates():
    lambda a: lambda L, rg: ((T(L, a, rg=rg),), {})  # noqa: E731
    return [
        ("x", lambda L, rg: ((T(L, A34, rg=rg),), {})),
        ("p", lambda L, rg: ((T(L, P34, rg=rg),), {})),
        ("x,y", lambda L, rg: ((T(L, A34, rg=rg), T(L, B34, rg=rg)), {})),
        ("p,p", lambda L, rg: ((T(L, P34, rg=rg), T(L, P34 + 1, rg=rg)), {})),
        ("x,dim", lambda L, rg: ((T(L, A34, rg=rg),), {"dim": 1})),
        ("x,y,z", lambda L, rg: ((T(L, A34, rg=rg), T(L, B34, rg=rg), T(L, C34, rg=rg)), {})),
        ("x,y,0.5", lambda L, rg: ((T(L, A34, rg=rg), T(L, B34, rg=rg), 0.5), {})),
        ("x,2", lambda L, rg: ((T(L, A34, rg=rg), 2), {})),
        ("x,2.0", lambda L, rg: ((T(L, A34, rg=rg), 2.0), {})),
        ("1,p", lambda L, rg: ((1, T(L, P34 + 1, rg=rg)), {})),
        ("i,i", lambda L, rg: ((T(L, I34, "int64"), T(L, J34, "int64")), {})),
        ("i", lambda L, rg: ((T(L, I34, "int64"),), {})),
        ("m,n", lambda L, rg: ((T(L, A34, rg=rg), T(L, N45, rg=rg)), {})),
        ("sq", lambda L, rg: ((T(L, M33, rg=rg),), {})),
        ("spd", lambda L, rg: ((T(L, SPD, rg=rg),), {})),
        ("sq,sq", lambda L, rg: ((T(L, M33, rg=rg), T(L, SPD, rg=rg)), {})),
        ("v,v", lambda L, rg: ((T(L, V4, rg=rg), T(L, V4 + 1, rg=rg)), {})),
        ("m,v", lambda L, rg: ((T(L, A34, rg=rg), T(L, V4, rg=rg)), {})),
        ("v", lambda L, rg: ((T(L, V4, rg=rg),), {})),
        ("[x,y]", lambda L, rg: (([T(L, A34, rg=rg), T(L, B34, rg=rg)],), {})),
        ("[sq,sq]", lambda L, rg: (([T(L, M33, rg=rg), T(L, SPD, rg=rg)],), {})),
        ("mask,x,y", lambda L, rg: ((T(L, MASK, "bool"), T(L, A34, rg=rg), T(L, B34, rg=rg)), {})),
        ("x,0,idx", lambda L, rg: ((T(L, A34, rg=rg), 0, T(L, IDX, "int64")), {})),
        (
            "x,0,idx,y",
            lambda L, rg: ((T(L, A34, rg=rg), 0, T(L, IDX, "int64"), T(L, B34, rg=rg)), {}),
        ),
        ("x,2,dim", lambda L, rg: ((T(L, A34, rg=rg), 2), {"dim": 1})),
        (
            "x,y,m,n",
            lambda L, rg: (
                (T(L, A34[:, :3] @ N45[:3, :], rg=rg), T(L, A34, rg=rg), T(L, N45, rg=rg)),
                {},
            ),
        ),
        ("5", lambda L, rg: ((5,), {})),
        ("2,3", lambda L, rg: ((2, 3), {})),
        ("0,1,5", lambda L, rg: ((0.0, 1.0, 5), {})),
        ("(2,3),1.5", lambda L, rg: (((2, 3), 1.5), {})),
        ("v3,v3", lambda L, rg: ((T(L, V3, rg=rg), T(L, V3 + 1, rg=rg)), {})),
        ("i_v", lambda L, rg: ((T(L, J34[0], "int64"),), {})),
        ("b,b", lambda L, rg: ((T(L, MASK, "bool"), T(L, ~MASK, "bool")), {})),
    ]


TEMPLATES = templates()


def get(L, path):
    obj = L
    for p in path.split("."):
        obj = getattr(obj, p)
    return obj


def discover(path):
    fn = get(torch, path)
    for label, build in TEMPLATES:
        try:
            args, kw = build(torch, False)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = fn(*args, **kw)
        except Exception:
            continue
        if isinstance(r, torch.Tensor) or (
            isinstance(r, tuple) and r and all(isinstance(e, torch.Tensor) for e in r)
        ):
            return label, build, r
    return None


def observe(L, path, build, rg, make_out, alias=False, grad_mode=True):
    """Runs one case: returns an observation dict."""
    fn = get(L, path)
    args, kw = build(L, rg)
    out = make_out(L, args)
    if alias:
        out = args[0] if not isinstance(args[0], list) else args[0][0]
    outs = out if isinstance(out, tuple) else (out,)
    vers = [o._version if isinstance(o, L.Tensor) else None for o in outs]
    obs = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            ctx = L.enable_grad() if grad_mode else L.no_grad()
            with ctx:
                r = fn(*args, out=out, **kw)
        except Exception as e:
            obs["exc"] = (type(e).__name__, str(e).split("\n")[0][:200])
            r = None
    obs["warn"] = sorted(
        str(x.message).split("\n")[0][:160]
        for x in w
        if "resized" in str(x.message) or "out" in str(x.message)
    )
    if r is not None:
        rs = r if isinstance(r, tuple) else (r,)
        obs["ident"] = (
            [a is b for a, b in zip(rs, outs, strict=False)] if len(rs) == len(outs) else "len"
        )
        obs["rtype"] = type(r).__name__
        vals = []
        for o in outs:
            if isinstance(o, L.Tensor):
                d = o.detach()
                vals.append(
                    (
                        str(d.dtype).split(".")[-1],
                        tuple(d.shape),
                        d.to(L.float64).numpy()
                        if d.dtype != L.bool and not d.is_complex()
                        else d.numpy().copy(),
                    )
                )
        obs["vals"] = vals
        obs["rg"] = [
            (o.requires_grad, type(o.grad_fn).__name__) for o in outs if isinstance(o, L.Tensor)
        ]
        obs["bump"] = [
            (o._version > v) if v is not None else None for o, v in zip(outs, vers, strict=False)
        ]
        if alias:
            pass
    return obs


def same_vals(a, b, tol):
    if len(a) != len(b):
        return False, "nvals"
    for (da, sa, va), (db, sb, vb) in zip(a, b, strict=False):
        if da != db:
            return False, f"dtype {da} vs {db}"
        if sa != sb:
            return False, f"shape {sa} vs {sb}"
        if va.dtype.kind in "fc" or vb.dtype.kind in "fc":
            if not np.allclose(va, vb, rtol=tol, atol=tol, equal_nan=True):
                return False, "values"
        elif not np.array_equal(va, vb):
            return False, "values"
    return True, ""


def compare(ta, mo, tol=1e-4):
    diffs = []
    te, me = ta.get("exc"), mo.get("exc")
    if te or me:
        if (te is None) != (me is None):
            diffs.append(("exc-presence", te, me))
        elif te[0] != me[0]:
            diffs.append(("exc-type", te, me))
        elif te[1] != me[1]:
            diffs.append(("exc-msg", te[1], me[1]))
        return diffs
    if ta["warn"] != mo["warn"]:
        diffs.append(("warn", ta["warn"], mo["warn"]))
    if ta["ident"] != mo["ident"]:
        diffs.append(("ident", ta["ident"], mo["ident"]))
    ok, why = same_vals(ta["vals"], mo["vals"], tol)
    if not ok:
        diffs.append(("vals", why, ""))
    if ta["rg"] != mo["rg"]:
        diffs.append(("rg", ta["rg"], mo["rg"]))
    if ta["bump"] != mo["bump"]:
        diffs.append(("bump", ta["bump"], mo["bump"]))
    return diffs


def like(ref, dtype=None, shape=None, kind="plain"):
    """maker of an out tensor mirroring torch result `ref`."""
    dt = str(dtype or ref.dtype).split(".")[-1]
    shp = tuple(ref.shape) if shape is None else shape

    def make(L):
        d = getattr(L, dt)
        if kind == "plain":
            return L.zeros(shp, dtype=d)
        if kind == "noncontig" and len(shp) >= 2:
            return (
                L.zeros(shp[::-1], dtype=d).transpose(0, -1)
                if len(shp) == 2
                else L.zeros(shp, dtype=d)[..., :]
            )
        if kind == "noncontig":
            n = int(np.prod(shp))
            return L.zeros(2 * n, dtype=d)[::2].reshape(shp) if n else L.zeros(shp, dtype=d)
        if kind == "expanded" and len(shp) >= 1 and shp[-1] > 1:
            return L.zeros(shp[:-1] + (1,), dtype=d).expand(shp)
        if kind == "expanded":
            return L.zeros(shp, dtype=d)
        if kind == "rg":
            if d.is_floating_point:
                return L.zeros(shp, dtype=d, requires_grad=True)
            return L.zeros(shp, dtype=d)
        raise ValueError(kind)

    return make


def scenarios(r):
    rs = r if isinstance(r, tuple) else (r,)
    tup = isinstance(r, tuple)

    def mk(makers):
        if tup:
            return lambda L, args: tuple(m(L) for m in makers)
        return lambda L, args: makers[0](L)

    yield "right", mk([like(e) for e in rs]), False, False
    yield "empty", mk([like(e, shape=(0,)) for e in rs]), False, False
    yield "wrongshape", mk([like(e, shape=(7,)) for e in rs]), False, False
    yield "wrongshape2", mk([like(e, shape=(2, 2, 2, 2)) for e in rs]), False, False
    yield "noncontig", mk([like(e, kind="noncontig") for e in rs]), False, False
    for dt in ["float64", "float32", "int64", "int32", "bool", "float16"]:
        yield f"dtype-{dt}", mk([like(rs[0], dtype=dt)] + [like(e) for e in rs[1:]]), False, False
        if tup and len(rs) > 1:
            yield (
                f"dtype2-{dt}",
                mk([like(rs[0])] + [like(e, dtype=dt) for e in rs[1:]]),
                False,
                False,
            )
    yield "out-rg", mk([like(e, kind="rg") for e in rs]), False, False
    yield "out-rg-nograd", mk([like(e, kind="rg") for e in rs]), False, True
    yield "out-expanded", mk([like(e, kind="expanded") for e in rs]), False, False
    yield "in-rg", mk([like(e) for e in rs]), True, False
    yield "in-rg-nograd", mk([like(e) for e in rs]), True, True
    yield "alias", mk([like(e) for e in rs]), False, "alias"


def out_main(paths, verbose=False):
    counts = collections.Counter()
    found = collections.defaultdict(list)
    ncases = 0
    for path in paths:
        try:
            get(minitorch, path)
        except AttributeError:
            continue
        d = discover(path)
        if d is None:
            counts["no-template"] += 1
            if verbose:
                print("no template:", path)
            continue
        label, build, r = d
        for sname, make_out, rg, extra in scenarios(r):
            alias = extra == "alias"
            nograd = extra is True
            if alias and (
                not isinstance(r, torch.Tensor)
                or not label.startswith(("x", "p", "sq", "spd", "[", "v"))
            ):
                continue
            obs = {}
            for k, L in LIBS.items():
                try:
                    obs[k] = observe(L, path, build, rg, make_out, alias, not nograd)
                except Exception as e:
                    obs[k] = {"exc": ("HARNESS-" + type(e).__name__, str(e)[:200]), "warn": []}
            ncases += 1
            diffs = compare(obs["torch"], obs["mt"])
            for dd in diffs:
                counts[dd[0]] += 1
                found[dd[0]].append((path, label, sname, dd[1:]))
    return counts, found, ncases


# ----------------------------------------------------------------------

# Differential fuzzer of in-place ip_methods x.op_(...): torch vs minitorch.


IP_SKIP = {
    "requires_grad_",
    "share_memory_",
    "set_",
    "resize_",
    "resize_as_",
    "uniform_",
    "normal_",
    "random_",
    "bernoulli_",
    "cauchy_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "retain_grad",
    "record_stream",
    "detach_",
    "storage_",
    "unsqueeze_",
    "squeeze_",
    "transpose_",
    "t_",
    "as_strided_",
    "swapdims_",
    "swapaxes_",
    "rename_",
    "refine_names",
    "align_to",
    "coalesce_",
    "pin_memory_",
    "to_padded_tensor",
    "_coalesced_",
    "set_names_",
    "sparse_resize_",
    "sparse_resize_and_clear_",
    "index_put_",
    "put_",
    "map_",
    "apply_",
    "map2_",
    "module_load",
}

IP_G = np.random.default_rng(1).standard_normal((3, 4))


def ip_methods():
    out = []
    for n in dir(torch.Tensor):
        if (
            n.endswith("_")
            and not n.startswith("_")
            and n not in IP_SKIP
            and hasattr(minitorch.Tensor, n)
        ):
            out.append(n)
    return out


def ip_discover(name):
    for label, build in TEMPLATES:
        try:
            args, kw = build(torch, False)
            if not args or not isinstance(args[0], torch.Tensor):
                continue
            x = args[0].clone()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = getattr(x, name)(*args[1:], **kw)
            if r is x:
                return label, build
        except Exception:
            continue
    return None


def ip_make_x(L, kind, base_args):
    a0 = base_args[0]
    if kind == "f32":
        return a0.clone()
    if kind == "f64":
        return a0.double()
    if kind == "i64":
        return (a0 * 3).long()
    if kind == "bool":
        return a0 > 0
    if kind == "bcast":
        return a0[0].clone() if a0.dim() == 2 else None
    if kind == "expanded":
        return a0[0:1].clone().expand(a0.shape) if a0.dim() == 2 else None
    if kind == "f16":
        return a0.half()
    if kind == "bf16":
        return a0.bfloat16()
    if kind == "i32":
        return (a0 * 3).int()
    if kind == "0d":
        return a0.reshape(-1)[0].clone()
    if kind == "nc":
        return a0.t().clone().t() if a0.dim() == 2 else None
    if kind == "leafrg":
        return a0.clone().requires_grad_(True)
    raise ValueError(kind)


def ip_observe(L, name, build, kind):
    args, kw = build(L, False)
    obs = {}
    x = ip_make_x(L, kind, args)
    if x is None:
        return None
    v0 = x._version
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            r = getattr(x, name)(*args[1:], **kw)
        except Exception as e:
            obs["exc"] = (type(e).__name__, str(e).split("\n")[0][:200])
            return obs
    obs["ident"] = r is x
    d = x.detach()
    obs["vals"] = [
        (
            str(d.dtype).split(".")[-1],
            tuple(d.shape),
            d.to(L.float64).numpy() if d.dtype != L.bool else d.numpy().copy(),
        )
    ]
    obs["bump"] = x._version > v0
    return obs


def ip_observe_view_grad(L, name, build):
    """leaf (float64) -> nonleaf = leaf * 1 -> view = nonleaf[1:] -> view.op_(...) ->
    (nonleaf * IP_G).sum().backward(): leaf.grad and grads of tensor args that require grad."""
    args, kw = build(L, False)
    leaf = args[0].double().detach().requires_grad_(True)
    others = []
    new_args = []
    for a in args[1:]:
        if isinstance(a, L.Tensor) and a.dtype.is_floating_point and a.dim() == 2:
            a = a.double().detach()[1:].clone().requires_grad_(True)
            others.append(a)
        new_args.append(a)
    obs = {}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            nonleaf = leaf * 1
            view = nonleaf[1:]
            getattr(view, name)(*new_args, **kw)
            (nonleaf * L.tensor(IP_G, dtype=L.float64)).sum().backward()
        except Exception as e:
            obs["exc"] = (type(e).__name__, str(e).split("\n")[0][:200])
            return obs
    obs["ident"] = True
    vals = [("float64", tuple(nonleaf.shape), nonleaf.detach().numpy())]
    for t in [leaf, *others]:
        g = t.grad
        vals.append(("float64", tuple(t.shape), g.numpy() if g is not None else np.full(1, 7e7)))
    obs["vals"] = vals
    obs["bump"] = True
    return obs


def ip_compare(ta, mo, tol):
    diffs = []
    te, me = ta.get("exc"), mo.get("exc")
    if te or me:
        if (te is None) != (me is None):
            diffs.append(("exc-presence", te, me))
        elif te[0] != me[0]:
            diffs.append(("exc-type", te, me))
        elif te[1] != me[1]:
            diffs.append(("exc-msg", te[1], me[1]))
        return diffs
    if ta["ident"] != mo["ident"]:
        diffs.append(("ident", ta["ident"], mo["ident"]))
    ok, why = same_vals(ta["vals"], mo["vals"], tol)
    if not ok:
        diffs.append(("vals", why, ""))
    if ta["bump"] != mo["bump"]:
        diffs.append(("bump", ta["bump"], mo["bump"]))
    return diffs


def ip_main(names):
    counts = collections.Counter()
    found = collections.defaultdict(list)
    n = 0
    for name in names:
        d = ip_discover(name)
        if d is None:
            counts["no-template"] += 1
            continue
        label, build = d
        for kind in [
            "f32",
            "f64",
            "i64",
            "bool",
            "bcast",
            "expanded",
            "leafrg",
            "viewgrad",
            "f16",
            "bf16",
            "i32",
            "0d",
            "nc",
        ]:
            obs = {}
            for k, L in LIBS.items():
                try:
                    if kind == "viewgrad":
                        obs[k] = ip_observe_view_grad(L, name, build)
                    else:
                        obs[k] = ip_observe(L, name, build, kind)
                except Exception as e:
                    obs[k] = {"exc": ("HARNESS-" + type(e).__name__, str(e)[:200])}
            if obs["torch"] is None:
                continue
            n += 1
            tol = {"f64": 1e-9, "viewgrad": 1e-9, "f16": 2e-3, "bf16": 2e-2}.get(kind, 1e-4)
            for dd in ip_compare(obs["torch"], obs["mt"], tol):
                counts[dd[0]] += 1
                found[dd[0]].append((name, label, kind, dd[1:]))
    return counts, found, n


LIBS = {"torch": torch, "mt": minitorch}


def main():
    args = H.cli(
        "out_inplace",
        default_cases=0,
        extra=lambda p: p.add_argument("--part", default="out,inplace", help="default %(default)s"),
    )
    rep = args.report

    def pick(names):
        if not args.cases:
            return names
        k = args.seed % max(len(names), 1)
        return (names[k:] + names[:k])[: args.cases]

    for part in args.part.split(","):
        if part == "out":
            paths = [n for n in NAMES if n not in SKIP]
            paths += ["linalg." + n for n in LINALG] + ["special." + n for n in SPECIAL]
            counts, found, n = out_main(pick(paths), args.verbose)
        else:
            counts, found, n = ip_main(pick(ip_methods()))
        rep.case(n)
        for k, v in counts.items():
            if k == "no-template":
                continue
            rep.counts[(part + " | " + k)] += v
            rep.examples[(part + " | " + k)] = [(str(x)[:400],) for x in found.get(k, [])[:3]]
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
