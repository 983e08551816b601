"""Distributions sweep 2, without torch: parameters keep the user's tensors (broadcast_tensors
returns inputs of the common shape as themselves), KL(Uniform || Gamma/Beta/Chi2) at 0,
log_prob dtypes per family, the torch submodule names, ExponentialFamily, FisherSnedecor,
GeneralizedPareto, CatTransform/StackTransform with constraints.cat/stack, and small fixes."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import minitorch
import minitorch.distributions as D
from minitorch.autograd import gradcheck
from minitorch.distributions import constraints
from minitorch.distributions import transforms as T


def _t(a, requires_grad=False, dtype=np.float64):
    return minitorch.tensor(np.asarray(a, dtype=dtype), requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


# ---------------------------------------------------------------------------------------------
# I1: parameters keep identity


def test_broadcast_tensors_returns_inputs_of_the_common_shape():
    a, b = minitorch.zeros(2), minitorch.ones(2)
    ra, rb = minitorch.broadcast_tensors(a, b)
    assert ra is a and rb is b
    c = minitorch.ones(3, 2)
    ra, rc = minitorch.broadcast_tensors(a, c)
    assert ra is not a and tuple(ra.shape) == (3, 2)
    assert rc is c
    # a 0-d tensor against a vector: the vector is already of the common shape
    s = minitorch.tensor(1.0)
    ra, rs = minitorch.broadcast_tensors(a, s)
    assert ra is a and rs is not s and tuple(rs.shape) == (2,)


def test_broadcast_tensors_expanded_gradient_still_sums():
    x = minitorch.ones(1, 3, requires_grad=True)
    y = minitorch.ones(2, 3, requires_grad=True)
    bx, by = minitorch.broadcast_tensors(x, y)
    assert by is y
    (bx * by * 2).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [[4.0, 4.0, 4.0]])
    np.testing.assert_allclose(_np(y.grad), np.full((2, 3), 2.0))


def test_normal_keeps_the_users_leaf_and_is_optimisable():
    mu = minitorch.zeros(3, requires_grad=True)
    q = D.Normal(mu, minitorch.ones(3))
    assert q.loc is mu and q.loc.is_leaf
    opt = minitorch.optim.SGD([q.loc, q.scale], lr=0.1)
    (-q.log_prob(minitorch.ones(3)).sum()).backward()
    opt.step()
    np.testing.assert_allclose(_np(q.loc), [0.1, 0.1, 0.1], rtol=1e-6)
    r = repr(D.Normal(minitorch.nn.Parameter(minitorch.zeros(1)), 1.0))
    assert "Parameter containing" in r, r


def _p(*shape):
    return minitorch.full(shape, 0.5).requires_grad_()


# (family, parameters, attributes that must be the very tensors given): as in torch
_IDENTITY = [
    (lambda a, b: D.Normal(a, b), ("loc", "scale")),
    (lambda a, b: D.Laplace(a, b), ("loc", "scale")),
    (lambda a, b: D.Cauchy(a, b), ("loc", "scale")),
    (lambda a, b: D.Gumbel(a, b), ("loc", "scale")),
    (lambda a, b: D.Gamma(a, b), ("concentration", "rate")),
    (lambda a, b: D.Pareto(a, b), ("scale", "alpha")),
    (lambda a, b: D.Weibull(a, b), ("scale", "concentration")),
    (lambda a, b: D.Kumaraswamy(a, b), ("concentration1", "concentration0")),
    (lambda a, b: D.InverseGamma(a, b), ("concentration", "rate")),
    (lambda a, b: D.FisherSnedecor(a, b), ("df1", "df2")),
    (lambda a, b, c: D.StudentT(a, b, c), ("df", "loc", "scale")),
    (lambda a, b, c: D.GeneralizedPareto(a, b, c), ("loc", "scale", "concentration")),
    (lambda a: D.Exponential(a), ("rate",)),
    (lambda a: D.Poisson(a), ("rate",)),
    (lambda a: D.HalfNormal(a), ("scale",)),
    (lambda a: D.HalfCauchy(a), ("scale",)),
    (lambda a: D.Bernoulli(probs=a), ("probs",)),
    (lambda a: D.Bernoulli(logits=a), ("logits",)),
    (lambda a: D.Geometric(probs=a), ("probs",)),
    (lambda a: D.Binomial(10, probs=a), ("probs",)),
    (lambda a: D.NegativeBinomial(10, probs=a), ("probs",)),
    (lambda a: D.RelaxedBernoulli(minitorch.tensor(0.5), probs=a), ("probs",)),
    (lambda a: D.Dirichlet(a), ("concentration",)),
]


@pytest.mark.parametrize("make,names", _IDENTITY)
def test_family_parameters_keep_identity(make, names):
    args = [_p(3) for _ in names]
    d = make(*args)
    for arg, name in zip(args, names, strict=True):
        value = getattr(d, name)
        assert value is arg, name
        assert value.is_leaf, name


def test_broadcast_parameter_is_expanded_not_kept():
    loc, scale = _p(3), _p(2, 3)
    d = D.Normal(loc, scale)
    assert d.scale is scale and d.loc is not loc
    assert tuple(d.loc.shape) == (2, 3) and not d.loc.is_leaf


# ---------------------------------------------------------------------------------------------
# I3: KL(Uniform || q) with an endpoint at 0 (x log x -> 0)


@pytest.mark.parametrize(
    "q,expected",
    [
        (lambda: D.Gamma(_t([2.0]), _t([1.5])), [0.939069783784, 0.909853856989]),
        (lambda: D.Beta(_t([2.0]), _t([3.0])), [0.515093350212, 0.782164526046]),
        (lambda: D.Chi2(_t([3.0])), [1.668938533205, 1.740902345465]),
    ],
)
def test_kl_uniform_from_zero_is_finite(q, expected):
    p = D.Uniform(_t([0.0, 0.2]), _t([1.0, 1.0]))
    np.testing.assert_allclose(_np(D.kl_divergence(p, q())), expected, rtol=1e-9)


def test_kl_uniform_gamma_gradient_at_zero_endpoint():
    high = _t([1.0], requires_grad=True)
    rate = _t([1.5], requires_grad=True)

    def f(h, r):
        return D.kl_divergence(D.Uniform(_t([0.0]), h), D.Gamma(_t([2.0]), r))

    assert gradcheck(f, (high, rate))


# ---------------------------------------------------------------------------------------------
# I5: log_prob dtype when the value's dtype differs from the parameters'

f16, f32, f64 = minitorch.float16, minitorch.float32, minitorch.float64


@pytest.mark.parametrize(
    "make,value,pdt,vdt,out",
    [
        # Gamma/Chi2 cast the value to the parameters' dtype
        (lambda dt: D.Gamma(minitorch.tensor([1.0], dtype=dt), 1.0), [0.5], f32, f64, f32),
        (lambda dt: D.Gamma(minitorch.tensor([1.0], dtype=dt), 1.0), [0.5], f16, f32, f16),
        (lambda dt: D.Chi2(minitorch.tensor([1.0], dtype=dt)), [0.5], f32, f64, f32),
        # Poisson and HalfNormal promote
        (lambda dt: D.Poisson(minitorch.tensor([1.0], dtype=dt)), [1.0], f32, f64, f64),
        (lambda dt: D.Poisson(minitorch.tensor([1.0], dtype=dt)), [1.0], f16, f32, f32),
        (lambda dt: D.HalfNormal(minitorch.tensor([1.0], dtype=dt)), [0.5], f32, f64, f64),
        (lambda dt: D.HalfNormal(minitorch.tensor([1.0], dtype=dt)), [0.5], f16, f32, f32),
        # HalfCauchy casts
        (lambda dt: D.HalfCauchy(minitorch.tensor([1.0], dtype=dt)), [0.5], f32, f64, f32),
        # MultivariateNormal: the parameters' dtype
        (
            lambda dt: D.MultivariateNormal(
                minitorch.zeros(2, dtype=dt), minitorch.eye(2, dtype=dt)
            ),
            [0.5, 1.0],
            f32,
            f64,
            f32,
        ),
        (
            lambda dt: D.MultivariateNormal(
                minitorch.zeros(2, dtype=dt), minitorch.eye(2, dtype=dt)
            ),
            [0.5, 1.0],
            f64,
            f32,
            f64,
        ),
        # Bernoulli: the value's dtype
        (lambda dt: D.Bernoulli(probs=minitorch.tensor([0.3], dtype=dt)), [1.0], f64, f32, f32),
        (lambda dt: D.Bernoulli(probs=minitorch.tensor([0.3], dtype=dt)), [1.0], f32, f16, f16),
        (lambda dt: D.Bernoulli(probs=minitorch.tensor([0.3], dtype=dt)), [1.0], f32, f64, f64),
        # the promoting majority stays so
        (lambda dt: D.Normal(minitorch.tensor([0.0], dtype=dt), 1.0), [0.5], f32, f64, f64),
        (lambda dt: D.Uniform(minitorch.tensor([0.0], dtype=dt), 1.0), [0.5], f32, f64, f32),
    ],
)
def test_log_prob_dtype_per_family(make, value, pdt, vdt, out):
    d = make(pdt)
    lp = d.log_prob(minitorch.tensor(value, dtype=vdt))
    assert lp.dtype == out


def test_log_prob_values_unchanged_by_casts():
    v = minitorch.tensor([0.5, 2.0], dtype=f64)
    g = D.Gamma(minitorch.tensor([2.0, 3.0]), minitorch.tensor([1.5, 0.5]))
    c, r, x = np.array([2.0, 3.0]), np.array([1.5, 0.5]), np.array([0.5, 2.0])
    ref = c * np.log(r) + (c - 1) * np.log(x) - r * x - np.vectorize(math.lgamma)(c)
    np.testing.assert_allclose(_np(g.log_prob(v)), ref, rtol=1e-6)
    k = np.array([0.0, 3.0])
    p = D.Poisson(minitorch.tensor([1.5, 2.5]))
    ref = k * np.log([1.5, 2.5]) - np.array([1.5, 2.5]) - np.vectorize(math.lgamma)(k + 1)
    np.testing.assert_allclose(_np(p.log_prob(minitorch.tensor(k, dtype=f64))), ref, rtol=1e-6)


def test_gamma_log_prob_accepts_a_number():
    g = D.Gamma(minitorch.tensor([2.0]), 1.0)
    np.testing.assert_allclose(_np(g.log_prob(0.5)), [math.log(0.5) - 0.5], rtol=1e-6)


def test_mvn_log_prob_of_float64_value_matches_float32_computation():
    d = D.MultivariateNormal(minitorch.zeros(2), _t([[2.0, 0.5], [0.5, 1.0]]).float())
    x = np.array([0.5, 1.0])
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    ref = -0.5 * (
        x @ np.linalg.solve(cov, x) + np.log(np.linalg.det(cov)) + 2 * math.log(2 * math.pi)
    )
    lp = d.log_prob(_t(x))
    assert lp.dtype == f32
    np.testing.assert_allclose(_np(lp), ref, rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# I2 / G6: submodules and classes


@pytest.mark.parametrize(
    "module,names",
    [
        ("chi2", ["Chi2"]),
        ("exp_family", ["ExponentialFamily"]),
        ("fishersnedecor", ["FisherSnedecor"]),
        ("generalized_pareto", ["GeneralizedPareto"]),
        ("half_cauchy", ["HalfCauchy"]),
        ("half_normal", ["HalfNormal"]),
        ("inverse_gamma", ["InverseGamma"]),
        ("kumaraswamy", ["Kumaraswamy"]),
        ("log_normal", ["LogNormal"]),
        ("logistic_normal", ["LogisticNormal"]),
        ("one_hot_categorical", ["OneHotCategorical", "OneHotCategoricalStraightThrough"]),
        ("pareto", ["Pareto"]),
        ("relaxed_bernoulli", ["RelaxedBernoulli"]),
        ("relaxed_categorical", ["RelaxedOneHotCategorical"]),
        ("studentT", ["StudentT"]),
        ("weibull", ["Weibull"]),
    ],
)
def test_torch_submodule_names(module, names):
    mod = importlib.import_module(f"minitorch.distributions.{module}")
    for name in names:
        assert getattr(mod, name) is getattr(D, name)
        assert name in mod.__all__


def test_transforms_and_constraints_exports():
    assert T.CatTransform is D.CatTransform and T.StackTransform is D.StackTransform
    assert "CatTransform" in T.__all__ and "StackTransform" in T.__all__
    assert constraints.cat is not None and constraints.stack is not None
    assert "cat" in constraints.__all__ and "stack" in constraints.__all__
    from minitorch.distributions.utils import euler_constant

    assert euler_constant == 0.5772156649015329


# ---------------------------------------------------------------------------------------------
# ExponentialFamily

_EXP_FAMILIES = [
    ("Normal", lambda: D.Normal(_t([0.5, -1.0]), _t([2.0, 0.3]))),
    ("Gamma", lambda: D.Gamma(_t([2.0, 0.7]), _t([3.0, 1.2]))),
    ("Chi2", lambda: D.Chi2(_t([3.0, 1.5]))),
    ("Exponential", lambda: D.Exponential(_t([2.0, 0.4]))),
    ("Bernoulli", lambda: D.Bernoulli(probs=_t([0.3, 0.9]))),
]


@pytest.mark.parametrize("name,make", _EXP_FAMILIES, ids=[n for n, _ in _EXP_FAMILIES])
def test_exponential_family_bregman_entropy_matches_closed_form(name, make):
    d = make()
    assert isinstance(d, D.ExponentialFamily)
    bregman = D.ExponentialFamily.entropy(d)
    np.testing.assert_allclose(_np(bregman), _np(d.entropy()), rtol=1e-10, err_msg=name)


def test_exponential_family_membership_as_torch():
    members = [
        D.Bernoulli(0.3),
        D.Beta(2.0, 3.0),
        D.Dirichlet(_t([1.0, 2.0])),
        D.Poisson(2.0),
        D.Gamma(2.0, 1.0),
        D.Chi2(2.0),
        D.Exponential(1.0),
        D.Normal(0.0, 1.0),
    ]
    for d in members:
        assert isinstance(d, D.ExponentialFamily), type(d).__name__
    others = [D.Laplace(0.0, 1.0), D.Uniform(0.0, 1.0), D.StudentT(3.0), D.FisherSnedecor(1.0, 2.0)]
    for d in others:
        assert not isinstance(d, D.ExponentialFamily), type(d).__name__
    with pytest.raises(NotImplementedError):
        D.Poisson(2.0).entropy()  # no carrier-measure mean, as in torch


def test_bregman_kl_matches_closed_form():
    from minitorch.distributions.kl import _kl_expfamily_expfamily

    for p, q in [
        (D.Normal(_t([0.5]), _t([2.0])), D.Normal(_t([-0.2]), _t([0.7]))),
        (D.Gamma(_t([2.0]), _t([3.0])), D.Gamma(_t([0.7]), _t([1.1]))),
        (D.Beta(_t([2.0]), _t([3.0])), D.Beta(_t([1.5]), _t([0.8]))),
        (D.Dirichlet(_t([1.0, 2.0, 3.0])), D.Dirichlet(_t([2.0, 0.5, 1.0]))),
    ]:
        np.testing.assert_allclose(
            _np(_kl_expfamily_expfamily(p, q)), _np(D.kl_divergence(p, q)), rtol=1e-9
        )
    # the Poisson pair through the Bregman form: rate_p log(rate_p / rate_q) - rate_p + rate_q
    p, q = D.Poisson(_t([2.0])), D.Poisson(_t([3.0]))
    np.testing.assert_allclose(
        _np(_kl_expfamily_expfamily(p, q)), [2 * math.log(2 / 3) - 2 + 3], rtol=1e-12
    )
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(D.Poisson(_t([2.0])), D.Exponential(_t([2.0])))


# ---------------------------------------------------------------------------------------------
# FisherSnedecor


def _f_logpdf(x, d1, d2):
    lg = math.lgamma
    return (
        lg((d1 + d2) / 2)
        - lg(d1 / 2)
        - lg(d2 / 2)
        + d1 / 2 * math.log(d1 / d2)
        + (d1 / 2 - 1) * math.log(x)
        - (d1 + d2) / 2 * math.log1p(d1 * x / d2)
    )


def test_fisher_snedecor_log_prob_and_moments():
    d1, d2 = [3.0, 1.0, 5.0], [4.0, 2.0, 10.0]
    f = D.FisherSnedecor(_t(d1), _t(d2))
    x = [0.5, 1.0, 2.0]
    ref = [_f_logpdf(*a) for a in zip(x, d1, d2, strict=True)]
    np.testing.assert_allclose(_np(f.log_prob(_t(x))), ref, rtol=1e-12)
    np.testing.assert_allclose(_np(f.mean), [2.0, np.nan, 1.25], rtol=1e-12)
    np.testing.assert_allclose(_np(f.mode), [2 / 9, np.nan, 0.5], rtol=1e-12)
    np.testing.assert_allclose(_np(f.variance), [np.nan, np.nan, 1.3541666666666667], rtol=1e-12)
    assert f.support is constraints.positive and f.has_rsample
    assert tuple(f.sample((2,)).shape) == (2, 3)
    assert tuple(f.expand((4, 3)).batch_shape) == (4, 3)
    assert tuple(D.FisherSnedecor(3.0, 4.0).batch_shape) == ()
    with pytest.raises(NotImplementedError):
        f.entropy()


def test_fisher_snedecor_log_prob_gradcheck_and_rsample_gradient():
    d1 = _t([3.0, 5.0], requires_grad=True)
    d2 = _t([4.0, 10.0], requires_grad=True)
    x = _t([0.5, 2.0], requires_grad=True)
    assert gradcheck(lambda a, b, v: D.FisherSnedecor(a, b).log_prob(v), (d1, d2, x))
    minitorch.manual_seed(0)
    s = D.FisherSnedecor(d1, d2).rsample((50,))
    s.sum().backward()
    assert d1.grad is not None and d2.grad is not None
    assert np.isfinite(_np(d1.grad)).all() and np.isfinite(_np(d2.grad)).all()


def test_fisher_snedecor_sample_mean():
    minitorch.manual_seed(0)
    s = D.FisherSnedecor(_t([6.0]), _t([20.0])).sample((20000,))
    np.testing.assert_allclose(_np(s).mean(), 20 / 18, rtol=0.03)


# ---------------------------------------------------------------------------------------------
# GeneralizedPareto

LOC, SCALE, CONC = [0.0, 0.0, 0.5], [1.0, 2.0, 1.0], [0.0, 0.5, -0.5]


def _gp_np(x):
    loc, s, c = (np.array(v) for v in (LOC, SCALE, CONC))
    z = (np.asarray(x) - loc) / s
    safe = np.where(c == 0, 1.0, c)
    log_sf = np.where(c == 0, -z, -np.log1p(safe * z) / safe)
    log_pdf = np.where(c == 0, -np.log(s) - z, -np.log(s) - (1 + 1 / safe) * np.log1p(safe * z))
    return log_pdf, log_sf


def test_generalized_pareto_values():
    g = D.GeneralizedPareto(_t(LOC), _t(SCALE), _t(CONC))
    x = [0.5, 1.0, 1.7]
    log_pdf, log_sf = _gp_np(x)
    np.testing.assert_allclose(_np(g.log_prob(_t(x))), log_pdf, rtol=1e-12)
    np.testing.assert_allclose(_np(g.log_survival_function(_t(x))), log_sf, rtol=1e-12)
    np.testing.assert_allclose(_np(g.cdf(_t(x))), -np.expm1(log_sf), rtol=1e-12)
    np.testing.assert_allclose(_np(g.log_cdf(_t(x))), np.log(-np.expm1(log_sf)), rtol=1e-12)
    np.testing.assert_allclose(_np(g.cdf(_t(x))), [1 - math.exp(-0.5), 0.36, 0.84], rtol=1e-12)
    np.testing.assert_allclose(_np(g.icdf(g.cdf(_t(x)))), x, rtol=1e-12)
    np.testing.assert_allclose(_np(g.icdf(_t([0.0, 1.0, 1.0]))), [0.0, np.inf, 2.5])
    np.testing.assert_allclose(_np(g.mean), [1.0, 4.0, 0.5 + 1 / 1.5], rtol=1e-12)
    np.testing.assert_allclose(_np(g.variance), [1.0, np.nan, 1 / (2.25 * 2)], rtol=1e-12)
    np.testing.assert_allclose(_np(g.mode), LOC)
    np.testing.assert_allclose(_np(g.entropy()), np.log(SCALE) + np.array(CONC) + 1, rtol=1e-12)
    sup = g.support
    np.testing.assert_allclose(_np(sup.lower_bound), LOC)
    np.testing.assert_allclose(_np(sup.upper_bound), [np.inf, np.inf, 2.5])


def test_generalized_pareto_moments_undefined_for_heavy_tails():
    g = D.GeneralizedPareto(0.0, 1.0, _t([1.0, 2.0, 0.3, 0.6, 0.5]))
    np.testing.assert_allclose(_np(g.mean), [np.nan, np.nan, 1 / 0.7, 2.5, 2.0], rtol=1e-12)
    np.testing.assert_allclose(
        _np(g.variance), [np.nan, np.nan, 1 / (0.49 * 0.4), np.nan, np.nan], rtol=1e-12
    )


def test_generalized_pareto_shapes_validation_and_gradients():
    g = D.GeneralizedPareto(_t(LOC), _t(SCALE), _t(CONC))
    assert tuple(g.sample((2,)).shape) == (2, 3) and tuple(g.rsample().shape) == (3,)
    assert tuple(g.expand((4, 3)).batch_shape) == (4, 3)
    assert tuple(D.GeneralizedPareto(0.0, 1.0, 0.5).batch_shape) == ()
    with pytest.raises(ValueError, match="support"):
        g.log_prob(_t([0.5, 1.0, 3.0]))  # 3 > 2.5, the c < 0 upper bound
    with pytest.raises(ValueError, match="scale"):
        D.GeneralizedPareto(0.0, -1.0, 0.5)
    loc = _t([0.0, 0.1], requires_grad=True)
    scale = _t([1.2, 0.8], requires_grad=True)
    conc = _t([0.3, -0.2], requires_grad=True)
    x = _t([0.7, 0.5])
    assert gradcheck(lambda a, b, c: D.GeneralizedPareto(a, b, c).log_prob(x), (loc, scale, conc))
    assert gradcheck(lambda a, b, c: D.GeneralizedPareto(a, b, c).cdf(x), (loc, scale, conc))
    # at c = 0 the gradient stays finite (the other branch never sees 1 / 0)
    c0 = _t([0.0], requires_grad=True)
    D.GeneralizedPareto(0.0, 1.0, c0).log_prob(_t([0.5])).sum().backward()
    assert np.isfinite(_np(c0.grad)).all()


def test_generalized_pareto_sample_mean():
    minitorch.manual_seed(0)
    s = D.GeneralizedPareto(_t([1.0]), _t([2.0]), _t([0.2])).sample((20000,))
    np.testing.assert_allclose(_np(s).mean(), 1 + 2 / 0.8, rtol=0.04)


# ---------------------------------------------------------------------------------------------
# CatTransform, StackTransform, constraints.cat / stack


def test_constraints_cat_and_stack():
    c = constraints.cat([constraints.real, constraints.positive], dim=0, lengths=[2, 1])
    np.testing.assert_array_equal(_np(c.check(_t([-1.0, 2.0, -3.0]))), [True, True, False])
    assert c.event_dim == 0 and not c.is_discrete
    assert constraints.cat([constraints.real, constraints.simplex]).event_dim == 1
    assert constraints.cat([constraints.boolean, constraints.real]).is_discrete
    s = constraints.stack([constraints.real, constraints.positive], dim=0)
    np.testing.assert_array_equal(
        _np(s.check(_t([[1.0, -1.0], [-2.0, 3.0]]))), [[True, True], [False, True]]
    )
    assert s.event_dim == 0
    rs = [constraints.real, constraints.simplex]
    assert [constraints.stack(rs, dim=d).event_dim for d in (0, -1, -2)] == [1, 1, 2]
    with pytest.raises(AssertionError):
        constraints.cat([constraints.real]).check(_t(1.0))


def test_cat_transform():
    t = T.CatTransform(
        [T.ExpTransform(), T.identity_transform, T.AffineTransform(0.0, 3.0)],
        dim=0,
        lengths=[1, 2, 1],
    )
    assert t.event_dim == 0 and t.bijective and t.length == 4
    x = _t([0.0, 1.0, 2.0, 3.0])
    y = t(x)
    np.testing.assert_allclose(_np(y), [1.0, 1.0, 2.0, 9.0])
    np.testing.assert_allclose(_np(t.inv(y)), _np(x))
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(x, y)), [0.0, 0.0, 0.0, math.log(3)])
    with pytest.raises(AssertionError):
        t(_t([0.0, 1.0, 2.0]))
    assert T.CatTransform([T.ExpTransform()]).lengths == [1]
    assert T.CatTransform([T.ExpTransform()], cache_size=1).transforms[0]._cache_size == 1
    assert repr(t.domain) == "Cat()"


def test_cat_transform_event_dims_sum_or_concatenate():
    x = _t(np.arange(8.0).reshape(2, 4))
    # an event part along a batch dim: its jacobian is summed over the event, then concatenated
    t = T.CatTransform([T.IndependentTransform(T.ExpTransform(), 1), T.AffineTransform(0.0, 3.0)])
    assert t.event_dim == 1
    np.testing.assert_allclose(_np(t.log_abs_det_jacobian(x, t(x))), [6.0, 4 * math.log(3)])
    # cut inside the event dim: the parts' totals add
    t = T.CatTransform(
        [T.IndependentTransform(T.ExpTransform(), 1), T.AffineTransform(0.0, 3.0)],
        dim=-1,
        lengths=[1, 3],
    )
    np.testing.assert_allclose(
        _np(t.log_abs_det_jacobian(x, t(x))), [3 * math.log(3), 4 + 3 * math.log(3)]
    )


def test_stack_transform_and_gradient():
    st = T.StackTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=1)
    x = _t(np.arange(8.0).reshape(2, 4).T.copy())
    y = st(x)
    np.testing.assert_allclose(_np(y)[:, 0], np.exp(np.arange(4.0)))
    np.testing.assert_allclose(_np(y)[:, 1], 1 + 2 * np.arange(4.0, 8.0))
    np.testing.assert_allclose(_np(st.inv(y)), _np(x))
    ladj = _np(st.log_abs_det_jacobian(x, y))
    np.testing.assert_allclose(ladj[:, 0], np.arange(4.0))
    np.testing.assert_allclose(ladj[:, 1], np.full(4, math.log(2)))
    assert st.event_dim == 0 and st.bijective and repr(st.codomain) == "Stack()"
    with pytest.raises(AssertionError):
        st(_t(np.zeros((3, 3))))
    assert st.with_cache(1).transforms[0]._cache_size == 1
    xr = _t([0.3, -0.2, 1.0], requires_grad=True)
    tt = T.CatTransform([T.SigmoidTransform(), T.ExpTransform()], 0, [1, 2])
    assert gradcheck(lambda v: tt(v), (xr,))
    assert gradcheck(lambda v: tt.log_abs_det_jacobian(v, tt(v)), (xr,))


def test_biject_to_cat_and_stack():
    b = D.biject_to(constraints.cat([constraints.real, constraints.positive], 0, [1, 1]))
    assert isinstance(b, T.CatTransform)
    np.testing.assert_allclose(_np(b(_t([1.0, -1.0]))), [1.0, math.exp(-1.0)])
    b = D.transform_to(constraints.stack([constraints.simplex, constraints.positive], 0))
    assert isinstance(b, T.StackTransform)
    assert isinstance(b.transforms[0], T.SoftmaxTransform)
    b = D.biject_to(constraints.stack([constraints.interval(0.0, 2.0), constraints.positive], 0))
    np.testing.assert_allclose(_np(b(_t([0.0, 0.0]))), [1.0, 1.0])


# ---------------------------------------------------------------------------------------------
# smaller fixes


def test_transform_to_positive_semidefinite():
    t = D.transform_to(constraints.positive_semidefinite)
    assert isinstance(t, T.PositiveDefiniteTransform)


@pytest.mark.parametrize(
    "kw,name",
    [
        ("covariance_matrix", "covariance_matrix must"),
        ("precision_matrix", "precision_matrix must"),
        ("scale_tril", "scale_tril matrix must"),
    ],
)
def test_mvn_matrix_rank_messages(kw, name):
    with pytest.raises(ValueError, match=name):
        D.MultivariateNormal(minitorch.zeros(2), **{kw: minitorch.ones(2)})
