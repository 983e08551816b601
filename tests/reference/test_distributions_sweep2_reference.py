"""Distributions sweep 2 against torch: which parameters stay the user's tensors, log_prob dtypes
for mixed parameter/value dtypes, KL(Uniform || q) from 0, the submodule names, FisherSnedecor,
GeneralizedPareto, ExponentialFamily membership, CatTransform/StackTransform and
constraints.cat/stack."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _np(t):
    return t.detach().cpu().numpy()


def _close(got, expected, name, rtol=1e-6):
    g, e = _np(got), _np(expected)
    assert g.dtype == e.dtype, f"{name} dtype {g.dtype} vs {e.dtype}"
    assert g.shape == e.shape, f"{name} shape {g.shape} vs {e.shape}"
    np.testing.assert_allclose(g, e, rtol=rtol, atol=1e-12, equal_nan=True, err_msg=name)


def _families(lib, p):
    """(name, distribution, parameters given, attribute names) with p(*shape) making params."""
    D = lib.distributions
    out = [
        ("Normal", lambda a, b: D.Normal(a, b), ("loc", "scale")),
        ("Laplace", lambda a, b: D.Laplace(a, b), ("loc", "scale")),
        ("Cauchy", lambda a, b: D.Cauchy(a, b), ("loc", "scale")),
        ("Gumbel", lambda a, b: D.Gumbel(a, b), ("loc", "scale")),
        ("Uniform", lambda a, b: D.Uniform(a, b + 1), ("low", "high")),
        ("Gamma", lambda a, b: D.Gamma(a, b), ("concentration", "rate")),
        ("Beta", lambda a, b: D.Beta(a, b), ("concentration1", "concentration0")),
        ("Pareto", lambda a, b: D.Pareto(a, b), ("scale", "alpha")),
        ("Weibull", lambda a, b: D.Weibull(a, b), ("scale", "concentration")),
        ("Kumaraswamy", lambda a, b: D.Kumaraswamy(a, b), ("concentration1", "concentration0")),
        ("InverseGamma", lambda a, b: D.InverseGamma(a, b), ("concentration", "rate")),
        ("FisherSnedecor", lambda a, b: D.FisherSnedecor(a, b), ("df1", "df2")),
        ("StudentT", lambda a, b, c: D.StudentT(a, b, c), ("df", "loc", "scale")),
        (
            "GPareto",
            lambda a, b, c: D.GeneralizedPareto(a, b, c),
            ("loc", "scale", "concentration"),
        ),
        ("Chi2", lambda a: D.Chi2(a), ("df",)),
        ("Exponential", lambda a: D.Exponential(a), ("rate",)),
        ("Poisson", lambda a: D.Poisson(a), ("rate",)),
        ("HalfNormal", lambda a: D.HalfNormal(a), ("scale",)),
        ("HalfCauchy", lambda a: D.HalfCauchy(a), ("scale",)),
        ("BernoulliP", lambda a: D.Bernoulli(probs=a), ("probs",)),
        ("BernoulliL", lambda a: D.Bernoulli(logits=a), ("logits",)),
        ("Geometric", lambda a: D.Geometric(probs=a), ("probs",)),
        ("Binomial", lambda a: D.Binomial(10, probs=a), ("probs",)),
        ("NegBinomial", lambda a: D.NegativeBinomial(10, probs=a), ("probs",)),
        ("CategoricalP", lambda a: D.Categorical(probs=a), ("probs",)),
        ("OneHot", lambda a: D.OneHotCategorical(probs=a), ("probs",)),
        ("Multinomial", lambda a: D.Multinomial(5, probs=a), ("probs",)),
        ("Dirichlet", lambda a: D.Dirichlet(a), ("concentration",)),
        (
            "RelaxedBernoulli",
            lambda a: D.RelaxedBernoulli(lib.tensor(0.5), probs=a),
            ("probs",),
        ),
        (
            "RelaxedOneHot",
            lambda a: D.RelaxedOneHotCategorical(lib.tensor(0.5), probs=a),
            ("probs",),
        ),
    ]
    return out


_NAMES = [n for n, _, _ in _families(torch, None)]


@pytest.mark.parametrize("name", _NAMES)
def test_parameter_identity_matches_torch(name):
    def result(lib):
        (_, make, attrs) = next(f for f in _families(lib, None) if f[0] == name)
        args = [lib.full((3,), 0.5).requires_grad_() for _ in attrs]
        d = make(*args)
        return [
            (getattr(d, a) is x, getattr(d, a).is_leaf) for a, x in zip(attrs, args, strict=True)
        ]

    assert result(minitorch) == result(torch)


def test_broadcast_identity_matches_torch():
    def result(lib):
        a, b, c, s = lib.zeros(2), lib.ones(2), lib.ones(3, 2), lib.tensor(1.0)
        out = []
        for x, y in ((a, b), (a, c), (a, s)):
            rx, ry = lib.broadcast_tensors(x, y)
            out.append((rx is x, ry is y))
        return out

    assert result(minitorch) == result(torch)


def _dtype_cases(lib):
    D = lib.distributions

    def t(v, dt):
        return lib.tensor(v, dtype=dt)

    return [
        ("Normal", lambda dt: D.Normal(t([0.0], dt), t([1.0], dt)), [0.5]),
        ("Uniform", lambda dt: D.Uniform(t([0.0], dt), t([1.0], dt)), [0.5]),
        ("Gamma", lambda dt: D.Gamma(t([1.0], dt), t([1.0], dt)), [0.5]),
        ("Chi2", lambda dt: D.Chi2(t([1.0], dt)), [0.5]),
        ("Beta", lambda dt: D.Beta(t([2.0], dt), t([2.0], dt)), [0.5]),
        ("Poisson", lambda dt: D.Poisson(t([1.0], dt)), [1.0]),
        ("Bernoulli", lambda dt: D.Bernoulli(probs=t([0.3], dt)), [1.0]),
        ("Geometric", lambda dt: D.Geometric(probs=t([0.3], dt)), [1.0]),
        ("HalfNormal", lambda dt: D.HalfNormal(t([1.0], dt)), [0.5]),
        ("HalfCauchy", lambda dt: D.HalfCauchy(t([1.0], dt)), [0.5]),
        ("Pareto", lambda dt: D.Pareto(t([0.1], dt), t([2.0], dt)), [0.5]),
        ("StudentT", lambda dt: D.StudentT(t([3.0], dt)), [0.5]),
        ("Dirichlet", lambda dt: D.Dirichlet(t([1.0, 2.0], dt)), [0.4, 0.6]),
        ("FisherSnedecor", lambda dt: D.FisherSnedecor(t([3.0], dt), t([4.0], dt)), [0.5]),
        (
            "MVN",
            lambda dt: D.MultivariateNormal(t([0.0, 0.0], dt), lib.eye(2, dtype=dt)),
            [0.5, 1.0],
        ),
    ]


_DT = [("f32", "f64"), ("f64", "f32"), ("f16", "f32"), ("f32", "f16")]


@pytest.mark.parametrize("pdt,vdt", _DT)
@pytest.mark.parametrize("name", [n for n, _, _ in _dtype_cases(torch)])
def test_log_prob_dtype_matches_torch(name, pdt, vdt):
    if name == "MVN" and pdt == "f16":
        pytest.skip("no float16 cholesky in either")
    dts = {"f16": "float16", "f32": "float32", "f64": "float64"}

    def run(lib):
        make, v = next((m, v) for n, m, v in _dtype_cases(lib) if n == name)
        d = make(getattr(lib, dts[pdt]))
        return d.log_prob(lib.tensor(v, dtype=getattr(lib, dts[vdt])))

    got, expected = run(minitorch), run(torch)
    assert str(got.dtype) == str(expected.dtype)
    rtol = 2e-3 if "f16" in (pdt, vdt) else 1e-5
    np.testing.assert_allclose(
        _np(got).astype(np.float64), _np(expected).astype(np.float64), rtol=rtol
    )


@pytest.mark.parametrize("q", ["Gamma", "Beta", "Chi2", "Exponential", "Normal"])
def test_kl_uniform_from_zero_matches_torch(q):
    def run(lib):
        D = lib.distributions
        t = lambda *v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
        p = D.Uniform(t(0.0, 0.2, 0.0), t(1.0, 1.0, 0.5))
        qs = {
            "Gamma": lambda: D.Gamma(t(2.0), t(1.5)),
            "Beta": lambda: D.Beta(t(2.0), t(3.0)),
            "Chi2": lambda: D.Chi2(t(3.0)),
            "Exponential": lambda: D.Exponential(t(2.0)),
            "Normal": lambda: D.Normal(t(0.3), t(2.0)),
        }
        return D.kl_divergence(p, qs[q]())

    _close(run(minitorch), run(torch), q, rtol=1e-10)


def test_submodules_match_torch():
    import pkgutil

    import torch.distributions as TD

    for info in pkgutil.iter_modules(TD.__path__):
        tmod = importlib.import_module(f"torch.distributions.{info.name}")
        names = [n for n in getattr(tmod, "__all__", []) if hasattr(minitorch.distributions, n)]
        if not names:
            continue
        mmod = importlib.import_module(f"minitorch.distributions.{info.name}")
        for n in names:
            assert hasattr(mmod, n), f"minitorch.distributions.{info.name}.{n}"


def test_exponential_family_membership_matches_torch():
    for name in minitorch.distributions.__all__:
        mcls = getattr(minitorch.distributions, name)
        tcls = getattr(torch.distributions, name, None)
        if not isinstance(mcls, type) or tcls is None or not isinstance(tcls, type):
            continue
        if not issubclass(tcls, torch.distributions.Distribution):
            continue
        assert issubclass(mcls, minitorch.distributions.ExponentialFamily) == issubclass(
            tcls, torch.distributions.ExponentialFamily
        ), name


def _fs_gp(lib):
    D = lib.distributions
    t = lambda *v: lib.tensor(v, dtype=lib.float64)  # noqa: E731
    f = D.FisherSnedecor(t(3.0, 1.0, 5.0, 0.7), t(4.0, 2.0, 10.0, 5.0))
    # float32 parameters for GeneralizedPareto: torch 2.13's log_prob raises for float64
    g = D.GeneralizedPareto(
        lib.tensor([0.0, 0.0, 0.5, 1.0]),
        lib.tensor([1.0, 2.0, 1.0, 0.5]),
        lib.tensor([0.0, 0.5, -0.5, 0.2]),
    )
    return f, g


def test_fisher_snedecor_matches_torch():
    (mf, _), (tf, _) = _fs_gp(minitorch), _fs_gp(torch)
    x = [0.5, 1.0, 2.0, 0.1]
    _close(
        mf.log_prob(minitorch.tensor(x, dtype=minitorch.float64)),
        tf.log_prob(torch.tensor(x, dtype=torch.float64)),
        "log_prob",
        rtol=1e-10,
    )
    for attr in ("mean", "mode", "variance"):
        _close(getattr(mf, attr), getattr(tf, attr), attr, rtol=1e-10)
    assert tuple(mf.rsample((5,)).shape) == tuple(tf.rsample((5,)).shape)


def test_generalized_pareto_matches_torch():
    (_, mg), (_, tg) = _fs_gp(minitorch), _fs_gp(torch)
    x = [0.5, 1.0, 1.7, 1.2]
    mx, tx = minitorch.tensor(x), torch.tensor(x)
    for m in ("log_prob", "cdf", "log_cdf", "log_survival_function"):
        _close(getattr(mg, m)(mx), getattr(tg, m)(tx), m)
    q = [0.1, 0.5, 0.9, 0.99]
    _close(mg.icdf(minitorch.tensor(q)), tg.icdf(torch.tensor(q)), "icdf")
    for attr in ("mean", "mode", "variance", "stddev"):
        _close(getattr(mg, attr), getattr(tg, attr), attr)
    _close(mg.entropy(), tg.entropy(), "entropy")
    _close(mg.support.upper_bound, tg.support.upper_bound, "support")
    assert tuple(mg.sample((2, 3)).shape) == tuple(tg.sample((2, 3)).shape)
    # gradients of log_prob
    grads = []
    for lib, x in ((minitorch, mx), (torch, tx)):
        p = [lib.tensor([0.1, 0.2]).requires_grad_() for _ in range(3)]
        p[1] = lib.tensor([1.2, 0.8]).requires_grad_()
        d = lib.distributions.GeneralizedPareto(*p)
        grads.append(lib.autograd.grad(d.log_prob(x[:2]).sum(), p))
    for g, e in zip(*grads, strict=True):
        np.testing.assert_allclose(_np(g), _np(e), rtol=1e-5, atol=1e-6, err_msg="grad")


def _transforms(lib):
    C = lib.distributions.constraints
    T = lib.distributions.transforms
    return [
        (
            T.CatTransform(
                [T.ExpTransform(), T.identity_transform, T.AffineTransform(0.0, 3.0)],
                dim=0,
                lengths=[1, 2, 1],
            ),
            (4,),
        ),
        (T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)], -1, [1, 3]), (2, 4)),
        (
            T.CatTransform(
                [T.IndependentTransform(T.ExpTransform(), 1), T.AffineTransform(0.0, 3.0)]
            ),
            (2, 4),
        ),
        (
            T.CatTransform(
                [T.TanhTransform(), T.SigmoidTransform()], dim=-1, lengths=[2, 2]
            ).inv.inv,
            (1, 4),
        ),
        (T.StackTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=1), (4, 2)),
        (T.StackTransform([T.SigmoidTransform(), T.TanhTransform()], dim=0), (2, 3)),
        (lib.distributions.biject_to(C.cat([C.real, C.positive], 0, [1, 2])), (3,)),
        (lib.distributions.biject_to(C.stack([C.interval(0.0, 2.0), C.positive], -1)), (3, 2)),
    ]


@pytest.mark.parametrize("i", range(8))
def test_cat_stack_transforms_match_torch(i):
    mt, shape = _transforms(minitorch)[i]
    tt, _ = _transforms(torch)[i]
    x = np.random.default_rng(i).uniform(0.1, 0.9, size=shape)
    mx, tx = minitorch.tensor(x), torch.tensor(x)
    my, ty = mt(mx), tt(tx)
    _close(my, ty, "forward")
    _close(mt.inv(my), tt.inv(ty), "inverse")
    _close(mt.log_abs_det_jacobian(mx, my), tt.log_abs_det_jacobian(tx, ty), "ladj")
    assert mt.domain.event_dim == tt.domain.event_dim
    assert mt.codomain.event_dim == tt.codomain.event_dim
    assert mt.bijective == tt.bijective
    try:
        expected = tt.codomain.check(ty)
    except RuntimeError:  # torch's cat check cannot join parts of different event dims
        with pytest.raises(RuntimeError):
            mt.codomain.check(my)
    else:
        _close(mt.codomain.check(my), expected, "check")


def test_transform_to_positive_semidefinite_matches_torch():
    C = "positive_semidefinite"
    mt = minitorch.distributions.transform_to(getattr(minitorch.distributions.constraints, C))
    tt = torch.distributions.transform_to(getattr(torch.distributions.constraints, C))
    assert type(mt).__name__ == type(tt).__name__


@pytest.mark.parametrize("kw", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_mvn_rank_message_matches_torch(kw):
    msgs = []
    for lib in (minitorch, torch):
        with pytest.raises(ValueError) as info:
            lib.distributions.MultivariateNormal(lib.zeros(2), **{kw: lib.ones(2)})
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
