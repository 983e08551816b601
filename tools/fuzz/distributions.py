"""Differential fuzzer: torch.distributions.

Parts (--part): fam (every distribution family with random parameter shapes/kinds: sample
shapes, log_prob, cdf/icdf, entropy, mean/variance/mode/stddev, support checks, enumerate_support,
expand, rsample gradients, validation errors), kl (kl_divergence for every registered pair and
some extra, values and gradients), tr (transforms: forward/inverse/log_abs_det_jacobian, domain/
codomain, biject_to/transform_to). Env EXT=1 widens parameter ranges. --cases is per family /
per KL pair / transform seeds. Adapted from session 23's dist fuzzers (fuzz.py, tfuzz.py).
"""

# ruff: noqa: B023  (code adapted as-is from the session fuzzers)

import traceback
import warnings
from collections import Counter, defaultdict

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential fuzzer: torch.distributions vs minitorch.distributions.


warnings.filterwarnings("ignore")
LIBS = {"t": torch, "m": minitorch}

SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (4,)]


def pshape(rng, bs):
    """A shape broadcastable to bs."""
    s = list(bs)
    k = rng.integers(0, len(s) + 1)
    s = s[k:]
    s = [1 if rng.random() < 0.25 else d for d in s]
    return tuple(s)


class P:
    """A parameter: numpy array or python number, with a kind."""

    def __init__(self, arr, num=False):
        self.arr = arr
        self.num = num


def conv(lib, x, dt, grad):
    if isinstance(x, P):
        if x.num:
            return float(x.arr)
        t = lib.tensor(x.arr, dtype=getattr(lib, dt))
        if grad:
            t.requires_grad_(True)
        return t
    return x


def gen(rng, bs, kind, extra=(), allow_num=True):
    shp = pshape(rng, bs) + tuple(extra)
    if shp == () and allow_num and rng.random() < 0.4:
        num = True
    else:
        num = False
    if EXT[0] and rng.random() < 0.5:
        sz = shp
        if kind == "real":
            a = rng.choice([-1, 1], size=sz) * rng.uniform(15, 60, size=sz)
        elif kind in ("pos", "big"):
            a = rng.choice([1e-3, 0.02, 60.0, 300.0], size=sz) * rng.uniform(0.8, 1.2, size=sz)
        elif kind == "prob":
            e = rng.choice([1e-7, 1e-4, 1e-2], size=sz)
            a = np.where(rng.random(size=sz) < 0.5, e, 1 - e)
        elif kind == "small":
            a = rng.choice([-0.45, 1e-9, 0.0, 2.0, -2.0], size=sz)
        a = np.asarray(a, dtype=float)
        return P(float(a) if num else a, num)
    if kind == "real":
        a = rng.normal(size=shp) * 1.5
    elif kind == "pos":
        a = rng.uniform(0.3, 3.0, size=shp)
    elif kind == "prob":
        a = rng.uniform(0.05, 0.95, size=shp)
    elif kind == "small":
        a = rng.uniform(-0.4, 0.6, size=shp)
    elif kind == "big":
        a = rng.uniform(2.5, 8.0, size=shp)
    a = np.asarray(a)
    return P(float(a) if num else a, num)


def spd(rng, bs, k):
    A = rng.normal(size=tuple(bs) + (k, k))
    return A @ np.swapaxes(A, -1, -2) + k * np.eye(k)


def tril(rng, bs, k):
    L = np.tril(rng.normal(size=tuple(bs) + (k, k)) * 0.5)
    d = np.arange(k)
    L[..., d, d] = rng.uniform(0.5, 2.0, size=tuple(bs) + (k,))
    return L


def pl(rng, bs, extra=()):
    """probs or logits kwarg."""
    if rng.random() < 0.5:
        if extra:
            return "probs", gen(rng, bs, "pos", extra, False)
        return "probs", gen(rng, bs, "prob")
    return "logits", gen(rng, bs, "real", extra, not extra)


def families():
    F = {}

    def two(name, ctor, k1, k2, **kw):
        def mk(rng, bs):
            return ctor, [gen(rng, bs, k1), gen(rng, bs, k2)], {}

        F[name] = mk

    def one(name, ctor, k1):
        def mk(rng, bs):
            return ctor, [gen(rng, bs, k1)], {}

        F[name] = mk

    two("Normal", lambda D, a, b, **k: D.Normal(a, b, **k), "real", "pos")
    two("Laplace", lambda D, a, b, **k: D.Laplace(a, b, **k), "real", "pos")
    two("Cauchy", lambda D, a, b, **k: D.Cauchy(a, b, **k), "real", "pos")
    two("Gumbel", lambda D, a, b, **k: D.Gumbel(a, b, **k), "real", "pos")
    two("LogNormal", lambda D, a, b, **k: D.LogNormal(a, b, **k), "real", "pos")
    two("Beta", lambda D, a, b, **k: D.Beta(a, b, **k), "pos", "pos")
    two("Gamma", lambda D, a, b, **k: D.Gamma(a, b, **k), "pos", "pos")
    two("InverseGamma", lambda D, a, b, **k: D.InverseGamma(a, b, **k), "pos", "pos")
    two("Weibull", lambda D, a, b, **k: D.Weibull(a, b, **k), "pos", "pos")
    two("Pareto", lambda D, a, b, **k: D.Pareto(a, b, **k), "pos", "pos")
    two("Kumaraswamy", lambda D, a, b, **k: D.Kumaraswamy(a, b, **k), "pos", "pos")
    two("VonMises", lambda D, a, b, **k: D.VonMises(a, b, **k), "real", "pos")
    two("FisherSnedecor", lambda D, a, b, **k: D.FisherSnedecor(a, b, **k), "pos", "big")
    two("Uniform", lambda D, a, b, **k: D.Uniform(a, a + b if True else b, **k), "real", "pos")
    two("RelaxedBernoulli", lambda D, a, b, **k: D.RelaxedBernoulli(a, probs=b, **k), "pos", "prob")
    one("Poisson", lambda D, a, **k: D.Poisson(a, **k), "pos")
    one("Exponential", lambda D, a, **k: D.Exponential(a, **k), "pos")
    one("HalfNormal", lambda D, a, **k: D.HalfNormal(a, **k), "pos")
    one("HalfCauchy", lambda D, a, **k: D.HalfCauchy(a, **k), "pos")
    one("Chi2", lambda D, a, **k: D.Chi2(a, **k), "pos")

    def studentt(rng, bs):
        return (
            lambda D, a, b, c, **k: D.StudentT(a, b, c, **k),
            [gen(rng, bs, "pos"), gen(rng, bs, "real"), gen(rng, bs, "pos")],
            {},
        )

    F["StudentT"] = studentt

    def gpareto(rng, bs):
        return (
            lambda D, a, b, c, **k: D.GeneralizedPareto(a, b, c, **k),
            [gen(rng, bs, "real"), gen(rng, bs, "pos"), gen(rng, bs, "small")],
            {},
        )

    F["GeneralizedPareto"] = gpareto

    for nm in ["Bernoulli", "Geometric", "ContinuousBernoulli"]:

        def mk(rng, bs, nm=nm):
            key, p = pl(rng, bs)
            return (lambda D, a, key=key, nm=nm, **k: getattr(D, nm)(**{key: a}, **k), [p], {})

        F[nm] = mk

    def binom(rng, bs):
        key, p = pl(rng, bs)
        if rng.random() < 0.5:
            n = P(float(rng.integers(0, 8)), True)
        else:
            n = P(rng.integers(0, 8, size=pshape(rng, bs)).astype(float))
        return (lambda D, n, a, key=key, **k: D.Binomial(n, **{key: a}, **k), [n, p], {})

    F["Binomial"] = binom

    def negbin(rng, bs):
        key, p = pl(rng, bs)
        n = gen(rng, bs, "pos")
        return (lambda D, n, a, key=key, **k: D.NegativeBinomial(n, **{key: a}, **k), [n, p], {})

    F["NegativeBinomial"] = negbin

    for nm in ["Categorical", "OneHotCategorical"]:

        def mk(rng, bs, nm=nm):
            K = int(rng.integers(1, 5))
            key, p = pl(rng, bs, (K,))
            return (lambda D, a, key=key, nm=nm, **k: getattr(D, nm)(**{key: a}, **k), [p], {})

        F[nm] = mk

    def multinom(rng, bs):
        K = int(rng.integers(1, 5))
        key, p = pl(rng, bs, (K,))
        n = int(rng.integers(1, 6))
        return (lambda D, a, key=key, n=n, **k: D.Multinomial(n, **{key: a}, **k), [p], {})

    F["Multinomial"] = multinom

    def relaxcat(rng, bs):
        K = int(rng.integers(1, 5))
        key, p = pl(rng, bs, (K,))
        t = gen(rng, bs, "pos")
        return (
            lambda D, t, a, key=key, **k: D.RelaxedOneHotCategorical(t, **{key: a}, **k),
            [t, p],
            {},
        )

    F["RelaxedOneHotCategorical"] = relaxcat

    def dirich(rng, bs):
        K = int(rng.integers(1, 5))
        return (lambda D, a, **k: D.Dirichlet(a, **k), [gen(rng, bs, "pos", (K,), False)], {})

    F["Dirichlet"] = dirich

    def mvn(rng, bs):
        K = int(rng.integers(1, 4))
        loc = gen(rng, bs, "real", (K,), False)
        which = ["covariance_matrix", "precision_matrix", "scale_tril"][rng.integers(3)]
        sb = pshape(rng, bs)
        M = P(tril(rng, sb, K) if which == "scale_tril" else spd(rng, sb, K))
        return (
            lambda D, a, m, which=which, **k: D.MultivariateNormal(a, **{which: m}, **k),
            [loc, M],
            {},
        )

    F["MultivariateNormal"] = mvn

    def lrmvn(rng, bs):
        K = int(rng.integers(1, 4))
        R = int(rng.integers(1, 3))
        loc = gen(rng, bs, "real", (K,), False)
        cf = gen(rng, bs, "real", (K, R), False)
        cd = gen(rng, bs, "pos", (K,), False)
        return (
            lambda D, a, b, c, **k: D.LowRankMultivariateNormal(a, b, c, **k),
            [loc, cf, cd],
            {},
        )

    F["LowRankMultivariateNormal"] = lrmvn

    def lkj(rng, bs):
        dim = int(rng.integers(2, 5))
        c = gen(rng, bs, "pos")
        return (lambda D, c, dim=dim, **k: D.LKJCholesky(dim, c, **k), [c], {})

    F["LKJCholesky"] = lkj

    def wishart(rng, bs):
        K = int(rng.integers(1, 4))
        which = ["covariance_matrix", "precision_matrix", "scale_tril"][rng.integers(3)]
        sb = pshape(rng, bs)
        M = P(tril(rng, sb, K) if which == "scale_tril" else spd(rng, sb, K))
        df = P(rng.uniform(K, K + 3, size=pshape(rng, bs)))
        return (lambda D, df, m, which=which, **k: D.Wishart(df, **{which: m}, **k), [df, M], {})

    F["Wishart"] = wishart

    def logisticnormal(rng, bs):
        K = int(rng.integers(1, 4))
        return (
            lambda D, a, b, **k: D.LogisticNormal(a, b, **k),
            [gen(rng, bs, "real", (K,), False), gen(rng, bs, "pos", (K,), False)],
            {},
        )

    F["LogisticNormal"] = logisticnormal

    def mixture(rng, bs):
        M = int(rng.integers(1, 4))
        mix = gen(rng, bs, "real", (M,), False)
        if rng.random() < 0.5:
            loc = gen(rng, bs, "real", (M,), False)
            sc = gen(rng, bs, "pos", (M,), False)
            return (
                lambda D, a, b, c, **k: D.MixtureSameFamily(
                    D.Categorical(logits=a), D.Normal(b, c), **k
                ),
                [mix, loc, sc],
                {},
            )
        K = int(rng.integers(1, 3))
        loc = gen(rng, bs, "real", (M, K), False)
        sc = gen(rng, bs, "pos", (M, K), False)
        return (
            lambda D, a, b, c, **k: D.MixtureSameFamily(
                D.Categorical(logits=a), D.Independent(D.Normal(b, c), 1), **k
            ),
            [mix, loc, sc],
            {},
        )

    F["MixtureSameFamily"] = mixture

    def indep(rng, bs):
        bs2 = bs if len(bs) else (3,)
        loc = P(rng.normal(size=bs2))
        sc = P(rng.uniform(0.5, 2, size=pshape(rng, bs2)))
        r = int(rng.integers(0, len(bs2) + 1))
        base = ["Normal", "Gamma", "Bernoulli"][rng.integers(3)]
        if base == "Normal":
            return (lambda D, a, b, r=r, **k: D.Independent(D.Normal(a, b), r, **k), [loc, sc], {})
        if base == "Gamma":
            return (
                lambda D, a, b, r=r, **k: D.Independent(D.Gamma(b, b + 1), r, **k),
                [loc, sc],
                {},
            )
        return (
            lambda D, a, b, r=r, **k: D.Independent(D.Bernoulli(logits=a), r, **k),
            [loc, sc],
            {},
        )

    F["Independent"] = indep

    def transformed(rng, bs):
        loc = gen(rng, bs, "real")
        sc = gen(rng, bs, "pos")
        choice = int(rng.integers(0, 7))

        def ctor(D, a, b, choice=choice, **k):
            T = D.transforms
            base = D.Normal(a, b)
            ts = [
                [T.ExpTransform()],
                [T.AffineTransform(a, b), T.SigmoidTransform()],
                [T.TanhTransform()],
                [T.ExpTransform(), T.PowerTransform(2.0)],
                [T.AffineTransform(1.0, -2.0)],
                [T.SigmoidTransform().inv],
                [T.ExpTransform(), T.AffineTransform(0.5, 3.0), T.PowerTransform(0.5)],
            ][choice]
            return D.TransformedDistribution(base, ts, **k)

        return ctor, [loc, sc], {}

    F["Transformed"] = transformed
    return F


FAM = families()


def rep(lib, fn):
    """Normalize an outcome."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001
        msg = str(e).replace("minitorch.", "torch.")
        return ("exc", type(e).__name__, msg)
    return norm(lib, r)


def norm(lib, r):
    if isinstance(r, lib.Tensor):
        a = r.detach().cpu().numpy() if r.dtype != lib.bool else r.cpu().numpy()
        return ("val", str(r.dtype).replace("minitorch", "torch"), tuple(r.shape), a)
    if isinstance(r, (tuple, list)) and all(isinstance(x, lib.Tensor) or x is None for x in r):
        return ("seq", tuple(norm(lib, x) if x is not None else None for x in r))
    if isinstance(r, (int, float, bool, str, tuple)):
        return ("py", r)
    return ("py", repr(r))


def same(a, b, tol):
    if a[0] != b[0]:
        return False
    if a[0] == "exc":
        return a[1] == b[1] and a[2] == b[2]
    if a[0] == "val":
        if a[1] != b[1] or a[2] != b[2]:
            return False
        x, y = a[3], b[3]
        if a[1] in ("torch.float32",):
            tol = max(tol, 2e-4)
        if x.dtype == bool or y.dtype == bool:
            return np.array_equal(x, y)
        return np.allclose(x, y, rtol=tol, atol=tol, equal_nan=True)
    if a[0] == "seq":
        if len(a[1]) != len(b[1]):
            return False
        return all(
            (u is None and v is None) or (u is not None and v is not None and same(u, v, tol))
            for u, v in zip(a[1], b[1], strict=False)
        )
    return a == b


def short(o):
    if o[0] == "val":
        return f"val {o[1]} {o[2]} {np.array2string(o[3].ravel()[:6], precision=6)}"
    if o[0] == "exc":
        return f"exc {o[1]}: {o[2][:300]}"
    return str(o)[:300]


NOMATCH = {
    "Gamma",
    "Beta",
    "Chi2",
    "Dirichlet",
    "FisherSnedecor",
    "InverseGamma",
    "StudentT",
    "Binomial",
    "NegativeBinomial",
    "Poisson",
    "LKJCholesky",
    "Wishart",
    "Independent",
}
TORCH_BUGS = {
    "Double did not match Float",
    "'float' object has no attribute 'log'",
    "full_like(): argument 'input' (position 1) must be Tensor, not float",
}
MISMATCH = defaultdict(list)
EXT = [False]
COUNT = Counter()


def cmp(fam, what, ft, fm, tol, ctx):
    COUNT["checks"] += 1
    a = rep(torch, ft)
    b = rep(minitorch, fm)
    if what in ("sample_values", "rsample_values", "grad_rs") and fam in NOMATCH:
        return a, b
    if a[0] == "exc" and a[2] in TORCH_BUGS:
        COUNT["torch_bug"] += 1
        return a, b
    if not same(a, b, tol):
        key = (
            fam,
            what,
            a[0] + ("/" + a[1] if a[0] == "exc" else ""),
            b[0] + ("/" + b[1] if b[0] == "exc" else ""),
        )
        MISMATCH[key].append((ctx, short(a), short(b)))
    return a, b


def build(ctor, D, lib, params, dt, grad, **kw):
    ps = [conv(lib, p, dt, grad) for p in params]
    return ctor(D, *ps, **kw), ps


def run_case(fam, seed):
    rng = np.random.default_rng(seed)
    bs = SHAPES[rng.integers(len(SHAPES))]
    dt = "float64" if rng.random() < 0.6 else "float32"
    tol = 1e-7 if dt == "float64" else 2e-4
    EXT[0] = EXTMODE and rng.random() < 0.7
    ctor, params, _ = FAM[fam](rng, bs)
    ctx = f"{fam} seed={seed} dt={dt} bs={bs}"
    va = bool(rng.random() < 0.5)
    Dt, Dm = torch.distributions, minitorch.distributions
    try:
        dt_, pt = build(ctor, Dt, torch, params, dt, False, validate_args=va)
    except Exception:  # noqa: BLE001
        # torch fails: minitorch should fail identically
        cmp(
            fam,
            "ctor",
            lambda: build(ctor, Dt, torch, params, dt, False, validate_args=va)[0],
            lambda: build(ctor, Dm, minitorch, params, dt, False, validate_args=va)[0],
            tol,
            ctx,
        )
        COUNT["torch_ctor_fail"] += 1
        return
    try:
        dm_, pm = build(ctor, Dm, minitorch, params, dt, False, validate_args=va)
    except Exception as e:  # noqa: BLE001
        MISMATCH[(fam, "ctor", "ok", "exc/" + type(e).__name__)].append((ctx, "", repr(e)[:300]))
        return
    C = lambda what, ft, fm, t=tol: cmp(fam, what, ft, fm, t, ctx)  # noqa: E731
    C("batch_shape", lambda: tuple(dt_.batch_shape), lambda: tuple(dm_.batch_shape))
    C("event_shape", lambda: tuple(dt_.event_shape), lambda: tuple(dm_.event_shape))
    C("repr", lambda: repr(dt_), lambda: repr(dm_))
    C("support", lambda: repr(dt_.support), lambda: repr(dm_.support))
    C("has_rsample", lambda: dt_.has_rsample, lambda: dm_.has_rsample)
    C("has_enum", lambda: dt_.has_enumerate_support, lambda: dm_.has_enumerate_support)
    for attr in ["mean", "mode", "variance", "stddev"]:
        C(attr, lambda: getattr(dt_, attr), lambda: getattr(dm_, attr))
    C("entropy", lambda: dt_.entropy(), lambda: dm_.entropy())
    for pname in sorted(set(dt_.arg_constraints) | {"probs", "logits"}):
        C("attr_" + pname, lambda: getattr(dt_, pname), lambda: getattr(dm_, pname))

    def supchk(d, lib):
        lib.manual_seed(seed)
        return d.support.check(d.sample((2,)))

    C("support_check", lambda: supchk(dt_, torch), lambda: supchk(dm_, minitorch))
    # values
    torch.manual_seed(seed)
    try:
        s = dt_.sample((2,)).detach()
    except Exception:  # noqa: BLE001
        s = None
    vals = []
    if s is not None:
        sn = s.numpy()
        vals.append(("sample", sn))
        vals.append(("sample0", sn[0]))
        if sn.dtype.kind in "iu":
            vals.append(("int_oob", sn + 5))
            vals.append(("int_neg", -sn - 1))
        if sn.dtype == np.float64:
            vals.append(("as_f32", sn.astype(np.float32)))
        elif sn.dtype == np.float32:
            vals.append(("as_f64", sn.astype(np.float64)))
        if sn.dtype != bool:
            vals.append(("zero", np.zeros_like(sn)))
            vals.append(("one", np.ones_like(sn)))
            lb = getattr(dt_.support, "lower_bound", None)
            if isinstance(lb, torch.Tensor) and lb.shape == dt_.batch_shape:
                vals.append(("lb", np.broadcast_to(lb.detach().numpy(), sn.shape).astype(sn.dtype)))
            ub = getattr(dt_.support, "upper_bound", None)
            if isinstance(ub, torch.Tensor) and ub.shape == dt_.batch_shape:
                vals.append(("ub", np.broadcast_to(ub.detach().numpy(), sn.shape).astype(sn.dtype)))
            vals.append(("neg", -np.abs(sn) - 0.5))
            vals.append(("plus", sn + 1.5))
            vals.append(("half", sn + 0.5))
    for vn, v in vals:
        vt = torch.tensor(v)
        vm = minitorch.tensor(v)
        vtol = 1e-5 if vn.startswith("as_") else tol
        C("log_prob/" + vn, lambda: dt_.log_prob(vt), lambda: dm_.log_prob(vm), vtol)
        C("cdf/" + vn, lambda: dt_.cdf(vt), lambda: dm_.cdf(vm))
    C("rsample_any", lambda: tuple(dt_.rsample().shape), lambda: tuple(dm_.rsample().shape))
    bad = np.zeros((5, 7))
    C(
        "lp_badshape",
        lambda: dt_.log_prob(torch.tensor(bad)),
        lambda: dm_.log_prob(minitorch.tensor(bad)),
    )
    C("perplexity", lambda: dt_.perplexity(), lambda: dm_.perplexity())
    C(
        "arg_constraints",
        lambda: repr(sorted(dt_.arg_constraints.items())),
        lambda: repr(sorted(dm_.arg_constraints.items())),
    )
    C("lp_pyfloat", lambda: dt_.log_prob(0.5), lambda: dm_.log_prob(0.5))
    C("icdf_bad", lambda: dt_.icdf(torch.tensor(1.5)), lambda: dm_.icdf(minitorch.tensor(1.5)))
    C("cdf_f", lambda: dt_.cdf(torch.tensor(0.25)), lambda: dm_.cdf(minitorch.tensor(0.25)))
    q = rng.uniform(0.05, 0.95, size=tuple(dt_.batch_shape) + tuple(dt_.event_shape))
    qq = np.concatenate([q.ravel(), [0.0, 1.0]])[: max(q.size, 1)].reshape(q.shape)
    C(
        "icdf",
        lambda: dt_.icdf(torch.tensor(qq, dtype=getattr(torch, dt))),
        lambda: dm_.icdf(minitorch.tensor(qq, dtype=getattr(minitorch, dt))),
    )
    if dt_.has_enumerate_support:
        C("enum", lambda: dt_.enumerate_support(), lambda: dm_.enumerate_support())
        C("enum_noexp", lambda: dt_.enumerate_support(False), lambda: dm_.enumerate_support(False))
    # expand
    nb = (2,) + tuple(dt_.batch_shape)
    C(
        "expand_bs",
        lambda: tuple(dt_.expand(nb).batch_shape),
        lambda: tuple(dm_.expand(nb).batch_shape),
    )
    C(
        "expand_lp",
        lambda: dt_.expand(nb).log_prob(torch.tensor(vals[0][1])) if vals else None,
        lambda: dm_.expand(nb).log_prob(minitorch.tensor(vals[0][1])) if vals else None,
    )
    C("expand_mean", lambda: dt_.expand(nb).mean, lambda: dm_.expand(nb).mean)
    # sample shapes
    for ss in [(), (3,), "size", (2, 1), [2]]:
        sst = torch.Size([2, 3]) if ss == "size" else ss
        ssm = minitorch.Size([2, 3]) if ss == "size" else ss

        def tsamp(d, s, lib):
            lib.manual_seed(seed)
            x = d.sample(s)
            return (tuple(x.shape), str(x.dtype).replace("minitorch", "torch"))

        C(f"sample_shape{ss}", lambda: tsamp(dt_, sst, torch), lambda: tsamp(dm_, ssm, minitorch))
        if dt_.has_rsample:

            def trs(d, s, lib):
                lib.manual_seed(seed)
                x = d.rsample(s)
                return (tuple(x.shape), str(x.dtype).replace("minitorch", "torch"))

            C(f"rsample_shape{ss}", lambda: trs(dt_, sst, torch), lambda: trs(dm_, ssm, minitorch))

    def sval(d, lib):
        lib.manual_seed(seed)
        return d.sample((2,))

    C("sample_values", lambda: sval(dt_, torch), lambda: sval(dm_, minitorch))
    if dt_.has_rsample:

        def rval(d, lib):
            lib.manual_seed(seed)
            return d.rsample((2,))

        C("rsample_values", lambda: rval(dt_, torch), lambda: rval(dm_, minitorch))
    # support check of samples
    # gradients
    if dt == "float64" and vals:
        v0 = vals[0][1]
        for what in ["lp", "ent", "rs", "mean", "var", "lp2", "ent2", "cdf", "icdf", "kl2"]:

            def g(lib, D, what=what):
                d, ps = build(ctor, D, lib, params, dt, True, validate_args=False)
                tp = [p for p in ps if isinstance(p, lib.Tensor)]
                if not tp:
                    return None
                if what == "lp":
                    out = d.log_prob(lib.tensor(v0)).sum()
                elif what == "ent":
                    out = d.entropy().sum()
                elif what in ("lp2", "ent2", "kl2"):
                    if what == "lp2":
                        o1 = d.log_prob(lib.tensor(v0)).sum()
                    elif what == "ent2":
                        o1 = d.entropy().sum()
                    else:
                        d2, _ = build(ctor, D, lib, params, dt, False, validate_args=False)
                        o1 = D.kl_divergence(d, d2).sum()
                    if not o1.requires_grad:
                        return "nograd"
                    gs = lib.autograd.grad(o1, tp, create_graph=True, allow_unused=True)
                    gs = [x for x in gs if x is not None and x.requires_grad]
                    if not gs:
                        return "nograd2"
                    out = sum((x * x).sum() for x in gs)
                elif what == "cdf":
                    out = d.cdf(lib.tensor(v0)).sum()
                elif what == "icdf":
                    qv = np.full(tuple(d.batch_shape), 0.3)
                    out = d.icdf(lib.tensor(qv)).sum()
                elif what == "mean":
                    out = d.mean.sum()
                elif what == "var":
                    out = d.variance.sum()
                else:
                    if not d.has_rsample:
                        return None
                    lib.manual_seed(seed)
                    out = d.rsample((2,)).sum()
                if not out.requires_grad:
                    return "nograd"
                return lib.autograd.grad(out, tp, allow_unused=True)

            C("grad_" + what, lambda: g(torch, Dt), lambda: g(minitorch, Dm), 1e-6)
    # validate_args log_prob outside support
    if vals:
        for vn, v in vals:

            def vlp(lib, D, v=v):
                d, _ = build(ctor, D, lib, params, dt, False, validate_args=True)
                return d.log_prob(lib.tensor(v))

            C("vlog_prob/" + vn, lambda: vlp(torch, Dt), lambda: vlp(minitorch, Dm))
    # bad parameters at construction
    for i, p in enumerate(params):
        if not isinstance(p, P):
            continue
        for bad in [-1.0, float("nan"), 1.5, 0.0]:
            if p.num:
                pb = P(bad, True)
            else:
                a = np.array(p.arr, copy=True)
                if a.size == 0:
                    continue
                a.reshape(-1)[0] = bad
                pb = P(a)
            nps = list(params)
            nps[i] = pb

            def bc(lib, D, nps=nps):
                d, _ = build(ctor, D, lib, nps, dt, False, validate_args=True)
                return repr(d)

            C(f"badparam{i}/{bad}", lambda: bc(torch, Dt), lambda: bc(minitorch, Dm))
    return dt_, dm_, params, ctor, dt


def kl_cases(seeds):
    names = list(FAM)
    for seed in seeds:
        rng = np.random.default_rng(10_000 + seed)
        bs = SHAPES[rng.integers(len(SHAPES))]
        a, b = names[rng.integers(len(names))], names[rng.integers(len(names))]
        if rng.random() < 0.5:
            b = a
        dt = "float64"
        ca, pa, _ = FAM[a](rng, bs)
        cb, pb, _ = FAM[b](rng, bs)
        ctx = f"KL {a}||{b} seed={seed} bs={bs}"
        try:
            p_t, _ = build(ca, torch.distributions, torch, pa, dt, False)
            q_t, _ = build(cb, torch.distributions, torch, pb, dt, False)
        except Exception:  # noqa: BLE001
            continue
        COUNT["kl"] += 1

        def kl(lib, grad=False):
            D = lib.distributions
            p, ps = build(ca, D, lib, pa, dt, grad)
            q, qs = build(cb, D, lib, pb, dt, grad)
            out = D.kl_divergence(p, q)
            if not grad:
                return out
            tp = [x for x in ps + qs if isinstance(x, lib.Tensor)]
            return lib.autograd.grad(out.sum(), tp, allow_unused=True)

        ktol = 1e-4 if any(x.num for x in pa + pb) else 1e-7
        cmp(f"KL {a}|{b}", "kl", lambda: kl(torch), lambda: kl(minitorch), ktol, ctx)
        cmp(
            f"KL {a}|{b}",
            "kl_grad",
            lambda: kl(torch, True),
            lambda: kl(minitorch, True),
            1e-6,
            ctx,
        )


EXTMODE = bool(int(__import__("os").environ.get("EXT", "0")))


# ----------------------------------------------------------------------


def kl_pair(a, b, seed):
    rng = np.random.default_rng(20_000 + seed)
    bs = SHAPES[rng.integers(len(SHAPES))]
    EXT[0] = bool(int(__import__("os").environ.get("EXT", "0"))) and rng.random() < 0.6
    dt = "float64" if rng.random() < 0.7 else "float32"
    ca, pa, _ = FAM[a](rng, bs)
    cb, pb, _ = FAM[b](rng, bs)
    ctx = f"KLR {a}||{b} seed={seed} bs={bs} dt={dt}"
    COUNT["klr"] += 1

    def kl(lib, grad=False):
        D = lib.distributions
        p, ps = build(ca, D, lib, pa, dt, grad)
        q, qs = build(cb, D, lib, pb, dt, grad)
        out = D.kl_divergence(p, q)
        if not grad:
            return out
        tp = [x for x in ps + qs if isinstance(x, lib.Tensor)]
        return lib.autograd.grad(out.sum(), tp, allow_unused=True)

    ktol = 1e-4 if any(x.num for x in pa + pb) or dt == "float32" else 1e-7
    ktol = 1e-6 if EXT[0] and ktol < 1e-6 else ktol
    cmp(f"KLR {a}|{b}", "kl", lambda: kl(torch), lambda: kl(minitorch), ktol, ctx)
    if dt == "float64":
        cmp(
            f"KLR {a}|{b}",
            "kl_grad",
            lambda: kl(torch, True),
            lambda: kl(minitorch, True),
            1e-6,
            ctx,
        )


def kl_registry(n, seeds=None):
    from torch.distributions import kl as tkl

    pairs = [(p.__name__, q.__name__) for p, q in tkl._KL_REGISTRY]
    pairs = [
        (
            "Transformed" if a == "TransformedDistribution" else a,
            "Transformed" if b == "TransformedDistribution" else b,
        )
        for a, b in pairs
    ]
    pairs += [
        ("Wishart", "Wishart"),
        ("Chi2", "Chi2"),
        ("Chi2", "Gamma"),
        ("HalfNormal", "Normal"),
        ("LogNormal", "LogNormal"),
        ("Multinomial", "Multinomial"),
        ("NegativeBinomial", "NegativeBinomial"),
        ("StudentT", "StudentT"),
        ("HalfCauchy", "HalfCauchy"),
        ("Categorical", "OneHotCategorical"),
    ]
    for a, b in pairs:
        if a not in FAM or b not in FAM:
            continue
        for seed in seeds or range(n):
            try:
                kl_pair(a, b, seed)
            except Exception:  # noqa: BLE001
                MISMATCH[(a + "|" + b, "harness", "", "")].append(
                    (f"seed={seed}", "", traceback.format_exc()[-400:])
                )


# ----------------------------------------------------------------------

# Transforms + biject_to/transform_to fuzz.


def tlist(T, lib, rng_vals):
    a, b, e = rng_vals
    return {
        "Exp": (T.ExpTransform(), 0, "real"),
        "Pow": (T.PowerTransform(lib.tensor(e)), 0, "pos"),
        "Pow2": (T.PowerTransform(2.0), 0, "pos"),
        "Sigmoid": (T.SigmoidTransform(), 0, "real"),
        "Tanh": (T.TanhTransform(), 0, "real"),
        "Abs": (T.AbsTransform(), 0, "real"),
        "Softplus": (T.SoftplusTransform(), 0, "real"),
        "Affine": (T.AffineTransform(lib.tensor(a), lib.tensor(b)), 0, "real"),
        "AffineNeg": (T.AffineTransform(1.0, -2.0), 0, "real"),
        "Affine_ev1": (T.AffineTransform(lib.tensor(a), lib.tensor(b), event_dim=1), 1, "real"),
        "Softmax": (T.SoftmaxTransform(), 1, "real"),
        "StickBreaking": (T.StickBreakingTransform(), 1, "real"),
        "LowerCholesky": (T.LowerCholeskyTransform(), 2, "sq"),
        "PositiveDefinite": (T.PositiveDefiniteTransform(), 2, "sq"),
        "CorrCholesky": (T.CorrCholeskyTransform(), 1, "corrvec"),
        "Compose": (T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)]), 0, "real"),
        "ComposeSB": (
            T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.StickBreakingTransform()]),
            1,
            "real",
        ),
        "Indep": (T.IndependentTransform(T.ExpTransform(), 1), 1, "real"),
        "Reshape": (T.ReshapeTransform((6,), (2, 3)), 1, "six"),
        "InvSigmoid": (T.SigmoidTransform().inv, 0, "unit"),
        "InvExp": (T.ExpTransform().inv, 0, "pos"),
        "InvTanh": (T.TanhTransform().inv, 0, "unitsym"),
        "CDF": (
            T.CumulativeDistributionTransform(
                lib.distributions.Normal(lib.tensor(a), lib.tensor(b).abs())
            ),
            0,
            "real",
        ),
        "Cat": (
            T.CatTransform(
                [
                    T.ExpTransform(),
                    T.IdentityTransform()
                    if hasattr(T, "IdentityTransform")
                    else T.ComposeTransform([]),
                ],
                dim=-1,
                lengths=[2, 2],
            ),
            0,
            "four",
        ),
        "Stack": (T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=-1), 0, "two"),
    }


def xval(rng, kind, bs):
    if kind == "real":
        return rng.normal(size=bs + (3,))
    if kind == "pos":
        return rng.uniform(0.2, 3, size=bs + (3,))
    if kind == "unit":
        return rng.uniform(0.05, 0.95, size=bs + (3,))
    if kind == "unitsym":
        return rng.uniform(-0.9, 0.9, size=bs + (3,))
    if kind == "sq":
        return rng.normal(size=bs + (3, 3))
    if kind == "corrvec":
        return rng.normal(size=bs + (3,))
    if kind == "six":
        return rng.normal(size=bs + (6,))
    if kind == "four":
        return rng.normal(size=bs + (4,))
    if kind == "two":
        return rng.normal(size=bs + (2,))


def trun(seed):
    rng = np.random.default_rng(seed)
    bs = [(), (2,), (2, 1)][rng.integers(3)]
    vals = (
        rng.normal(size=(3,)),
        rng.uniform(0.5, 2, size=(3,)) * rng.choice([-1, 1], size=3),
        float(rng.uniform(0.3, 3)),
    )
    Tt = tlist(torch.distributions.transforms, torch, vals)
    Tm = tlist(minitorch.distributions.transforms, minitorch, vals)
    for name in Tt:
        tt, ev, kind = Tt[name]
        tm = Tm[name][0]
        ctx = f"T {name} seed={seed} bs={bs}"
        x = xval(rng, kind, bs)
        fam = "T " + name

        def C(what, ft, fm, tol=1e-7):
            cmp(fam, what, ft, fm, tol, ctx)

        C("repr", lambda: repr(tt), lambda: repr(tm))
        C("domain", lambda: repr(tt.domain), lambda: repr(tm.domain))
        C("codomain", lambda: repr(tt.codomain), lambda: repr(tm.codomain))
        C("bijective", lambda: tt.bijective, lambda: tm.bijective)
        C(
            "event_dim",
            lambda: (tt.domain.event_dim, tt.codomain.event_dim),
            lambda: (tm.domain.event_dim, tm.codomain.event_dim),
        )
        C("sign", lambda: tt.sign, lambda: tm.sign)
        xt, xm = torch.tensor(x), minitorch.tensor(x)
        C("fwd", lambda: tt(xt), lambda: tm(xm))
        C(
            "fwd_shape",
            lambda: tuple(tt.forward_shape(xt.shape)),
            lambda: tuple(tm.forward_shape(xm.shape)),
        )
        try:
            y = tt(xt).detach().numpy()
        except Exception:  # noqa: BLE001
            continue
        yt, ym = torch.tensor(y), minitorch.tensor(y)
        C("inv", lambda: tt.inv(yt), lambda: tm.inv(ym), 1e-6)
        C(
            "inv_shape",
            lambda: tuple(tt.inverse_shape(yt.shape)),
            lambda: tuple(tm.inverse_shape(ym.shape)),
        )
        C(
            "ladj",
            lambda: tt.log_abs_det_jacobian(xt, yt),
            lambda: tm.log_abs_det_jacobian(xm, ym),
            1e-6,
        )

        def g(lib, t):
            xx = lib.tensor(x, requires_grad=True)
            yy = t(xx)
            out = yy.sum() + t.log_abs_det_jacobian(xx, yy).sum()
            return lib.autograd.grad(out, [xx])

        C("grad", lambda: g(torch, tt), lambda: g(minitorch, tm), 1e-6)
        # as a TransformedDistribution over a Normal base with the right event dims
        if kind in ("real", "six", "four", "two", "corrvec"):

            def td(lib, t):
                D = lib.distributions
                base = D.Normal(
                    lib.zeros(x.shape, dtype=lib.float64), lib.ones(x.shape, dtype=lib.float64)
                )
                if ev:
                    base = D.Independent(base, ev)
                d = D.TransformedDistribution(base, [t])
                return d

            C(
                "td_shapes",
                lambda: (tuple(td(torch, tt).batch_shape), tuple(td(torch, tt).event_shape)),
                lambda: (
                    tuple(td(minitorch, tm).batch_shape),
                    tuple(td(minitorch, tm).event_shape),
                ),
            )
            C(
                "td_lp",
                lambda: td(torch, tt).log_prob(yt),
                lambda: td(minitorch, tm).log_prob(ym),
                1e-6,
            )
            C(
                "td_support",
                lambda: repr(td(torch, tt).support),
                lambda: repr(td(minitorch, tm).support),
            )


def biject(seed):
    rng = np.random.default_rng(seed)
    for _lib in (torch,):
        pass
    cons = [
        ("real", lambda c: c.real, (3,)),
        ("positive", lambda c: c.positive, (3,)),
        ("nonnegative", lambda c: c.nonnegative, (3,)),
        ("unit_interval", lambda c: c.unit_interval, (3,)),
        ("greater_than", lambda c: c.greater_than(1.5), (3,)),
        ("greater_than_eq", lambda c: c.greater_than_eq(1.5), (3,)),
        ("less_than", lambda c: c.less_than(-0.5), (3,)),
        ("interval", lambda c: c.interval(-1.0, 2.0), (3,)),
        ("half_open_interval", lambda c: c.half_open_interval(-1.0, 2.0), (3,)),
        ("simplex", lambda c: c.simplex, (3,)),
        ("lower_cholesky", lambda c: c.lower_cholesky, (3, 3)),
        ("positive_definite", lambda c: c.positive_definite, (3, 3)),
        ("corr_cholesky", lambda c: c.corr_cholesky, (3,)),
        ("independent", lambda c: c.independent(c.positive, 1), (3,)),
        ("real_vector", lambda c: c.real_vector, (3,)),
        ("cat", lambda c: c.cat([c.positive, c.real], 0, [1, 2]), (3,)),
        ("stack", lambda c: c.stack([c.positive, c.real, c.unit_interval], 0), (3,)),
        ("positive_semidefinite", lambda c: c.positive_semidefinite, (3, 3)),
        ("boolean", lambda c: c.boolean, (3,)),
        ("integer_interval", lambda c: c.integer_interval(0, 3), (3,)),
    ]
    for name, mk, shp in cons:
        x = rng.normal(size=shp)
        for fn in ("biject_to", "transform_to"):
            ctx = f"{fn} {name} seed={seed}"

            def go(lib, what):
                D = lib.distributions
                t = getattr(D, fn)(mk(D.constraints))
                if what == "repr":
                    return repr(t)
                xx = lib.tensor(x)
                y = t(xx)
                if what == "fwd":
                    return y
                if what == "ladj":
                    return t.log_abs_det_jacobian(xx, y)
                if what == "inv":
                    return t.inv(y)
                if what == "check":
                    return mk(D.constraints).check(y)

            for what in ("repr", "fwd", "ladj", "inv", "check"):
                cmp(
                    f"{fn} {name}",
                    what,
                    lambda: go(torch, what),
                    lambda: go(minitorch, what),
                    1e-6,
                    ctx,
                )


def main():
    def extra(p):
        p.add_argument("--part", default="fam,kl,tr", help="default %(default)s")
        p.add_argument("--only", help="comma-separated families (part fam)")

    args = H.cli("distributions", default_cases=9, extra=extra)
    report = args.report
    parts = args.part.split(",")
    seeds = range(args.seed, args.seed + args.cases)
    if "fam" in parts:
        for fam in args.only.split(",") if args.only else list(FAM):
            for seed in seeds:
                report.case()
                try:
                    with H.timeout(args.timeout):
                        run_case(fam, seed)
                except Exception:  # noqa: BLE001
                    MISMATCH[(fam, "harness", "", "")].append(
                        (f"seed={seed}", "", traceback.format_exc()[-400:])
                    )
    if "kl" in parts:
        n0 = COUNT["klr"]
        with H.timeout(args.timeout * 20):
            kl_registry(args.cases, seeds)
        report.case(COUNT["klr"] - n0)
    if "tr" in parts:
        for seed in seeds:
            report.case()
            try:
                with H.timeout(args.timeout):
                    trun(seed)
            except Exception:  # noqa: BLE001
                MISMATCH[("T", "harness", "", "")].append(
                    (f"seed={seed}", "", traceback.format_exc()[-600:])
                )
            biject(seed)
    for key, lst in sorted(MISMATCH.items(), key=lambda kv: str(kv[0])):
        kind = " | ".join(str(k) for k in key if k != "")
        report.counts[kind] += len(lst)
        report.examples[kind] = [(ctx, f"torch: {a}", f"mini:  {b}") for ctx, a, b in lst[:3]]
    return report.finish()


if __name__ == "__main__":
    H.main_guard(main)
