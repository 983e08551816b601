"""minitorch.distributions without torch: log_prob/entropy/cdf against closed forms, sample shapes,
seeding, sample statistics, reparameterised gradients, validation errors and KL closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.distributions as D
from minitorch.autograd import gradcheck
from minitorch.distributions import constraints


def _t(a, requires_grad=False):
    return minitorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


LOC, SCALE = [0.5, -1.0, 2.0], [1.0, 0.5, 2.5]
X = [0.3, -0.7, 4.0]


def _normal_logpdf(x, m, s):
    x, m, s = map(np.asarray, (x, m, s))
    return -((x - m) ** 2) / (2 * s**2) - np.log(s) - 0.5 * np.log(2 * np.pi)


# ---------------------------------------------------------------------------------------------
# log_prob, cdf, entropy, moments against closed forms


def test_normal_closed_forms():
    d = D.Normal(_t(LOC), _t(SCALE))
    np.testing.assert_allclose(_np(d.log_prob(_t(X))), _normal_logpdf(X, LOC, SCALE), rtol=1e-12)
    cdf = [
        0.5 * (1 + math.erf((x - m) / (s * math.sqrt(2))))
        for x, m, s in zip(X, LOC, SCALE, strict=True)
    ]
    np.testing.assert_allclose(_np(d.cdf(_t(X))), cdf, rtol=1e-12, err_msg="cdf")
    np.testing.assert_allclose(_np(d.icdf(d.cdf(_t(X)))), X, rtol=1e-8, err_msg="icdf o cdf")
    ent = 0.5 * np.log(2 * np.pi * np.e * np.asarray(SCALE) ** 2)
    np.testing.assert_allclose(_np(d.entropy()), ent, rtol=1e-12, err_msg="entropy")
    np.testing.assert_allclose(_np(d.variance), np.square(SCALE), err_msg="variance")
    np.testing.assert_allclose(_np(d.perplexity()), np.exp(ent), rtol=1e-12)


def test_bernoulli_probs_and_logits_agree():
    p = np.array([0.2, 0.7, 0.5])
    v = _t([1.0, 0.0, 1.0])
    expected = np.log(np.where(_np(v) == 1, p, 1 - p))
    for d in (D.Bernoulli(probs=_t(p)), D.Bernoulli(logits=_t(np.log(p / (1 - p))))):
        np.testing.assert_allclose(_np(d.log_prob(v)), expected, rtol=1e-10, err_msg=repr(d))
        ent = -(p * np.log(p) + (1 - p) * np.log(1 - p))
        np.testing.assert_allclose(_np(d.entropy()), ent, rtol=1e-10, err_msg=repr(d))
        np.testing.assert_allclose(_np(d.probs), p, rtol=1e-12)
    mode = _np(D.Bernoulli(_t(p)).mode)
    assert mode[0] == 0 and mode[1] == 1 and np.isnan(mode[2])


def test_categorical_batch_and_enumerate_support():
    probs = np.array([[1.0, 2.0, 7.0], [3.0, 3.0, 4.0]])  # unnormalised on purpose
    d = D.Categorical(_t(probs))
    norm = probs / probs.sum(-1, keepdims=True)
    assert d.batch_shape == (2,) and d.event_shape == ()
    v = minitorch.tensor([2, 0])
    np.testing.assert_allclose(_np(d.log_prob(v)), np.log([norm[0, 2], norm[1, 0]]), rtol=1e-12)
    np.testing.assert_allclose(
        _np(d.entropy()), -(norm * np.log(norm)).sum(-1), rtol=1e-12, err_msg="entropy"
    )
    support = d.enumerate_support()
    assert support.shape == (3, 2) and support.dtype == minitorch.int64
    np.testing.assert_array_equal(_np(d.enumerate_support(expand=False)), [[0], [1], [2]])
    np.testing.assert_allclose(_np(d.log_prob(support).exp().sum(0)), [1.0, 1.0], rtol=1e-12)
    logits = D.Categorical(logits=_t(np.log(norm)))
    np.testing.assert_allclose(_np(logits.probs), norm, rtol=1e-12)


def test_one_hot_categorical():
    p = np.array([0.2, 0.3, 0.5])
    d = D.OneHotCategorical(_t(p))
    assert d.event_shape == (3,) and d.batch_shape == ()
    lp = d.log_prob(_t([0.0, 0.0, 1.0]))
    np.testing.assert_allclose(_np(lp), np.log(0.5), rtol=1e-12)
    np.testing.assert_array_equal(_np(d.enumerate_support()), np.eye(3))
    np.testing.assert_allclose(_np(d.variance), p * (1 - p))


def test_uniform_closed_forms():
    d = D.Uniform(_t([0.0, -1.0]), _t([2.0, 3.0]))
    np.testing.assert_allclose(_np(d.log_prob(_t([1.0, 0.0]))), -np.log([2.0, 4.0]))
    np.testing.assert_allclose(_np(d.cdf(_t([1.0, 0.0]))), [0.5, 0.25])
    np.testing.assert_allclose(_np(d.entropy()), np.log([2.0, 4.0]))
    np.testing.assert_allclose(_np(d.variance), np.array([4.0, 16.0]) / 12)
    outside = D.Uniform(0.0, 1.0, validate_args=False).log_prob(_t(2.0))
    assert _np(outside) == -np.inf


def test_mvn_parameterisations_agree():
    cov = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 0.7]])
    loc = np.array([0.1, -0.3, 1.0])
    x = np.array([[0.3, 0.2, 0.1], [1.0, -1.0, 0.5]])
    diff = x - loc
    maha = np.einsum("bi,ij,bj->b", diff, np.linalg.inv(cov), diff)
    expected = -0.5 * (3 * np.log(2 * np.pi) + np.log(np.linalg.det(cov)) + maha)
    ent = 0.5 * (3 * (1 + np.log(2 * np.pi)) + np.log(np.linalg.det(cov)))
    variants = [
        {"covariance_matrix": _t(cov)},
        {"precision_matrix": _t(np.linalg.inv(cov))},
        {"scale_tril": _t(np.linalg.cholesky(cov))},
    ]
    for kwargs in variants:
        d = D.MultivariateNormal(_t(loc), **kwargs)
        name = next(iter(kwargs))
        np.testing.assert_allclose(_np(d.log_prob(_t(x))), expected, rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(_np(d.entropy()), ent, rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(_np(d.covariance_matrix), cov, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(_np(d.variance), np.diag(cov), rtol=1e-10, err_msg=name)
        np.testing.assert_allclose(
            _np(d.precision_matrix), np.linalg.inv(cov), atol=1e-10, err_msg=name
        )


def test_mvn_broadcast_batch():
    d = D.MultivariateNormal(minitorch.zeros(4, 1, 2), minitorch.eye(2).expand(3, 2, 2))
    assert d.batch_shape == (4, 3) and d.event_shape == (2,)
    assert d.sample((5,)).shape == (5, 4, 3, 2)
    assert d.log_prob(minitorch.zeros(2)).shape == (4, 3)


def test_scalar_families_closed_forms():
    x = np.array([0.4, 1.7])
    a, b = np.array([0.7, 2.5]), np.array([1.3, 0.6])
    lg = np.vectorize(math.lgamma)
    cases = {
        "Exponential": (D.Exponential(_t(b)), np.log(b) - b * x),
        "Laplace": (D.Laplace(_t(a), _t(b)), -np.log(2 * b) - np.abs(x - a) / b),
        "Cauchy": (D.Cauchy(_t(a), _t(b)), -np.log(np.pi * b * (1 + ((x - a) / b) ** 2))),
        "Gumbel": (D.Gumbel(_t(a), _t(b)), -((x - a) / b + np.exp(-(x - a) / b)) - np.log(b)),
        "LogNormal": (D.LogNormal(_t(a), _t(b)), _normal_logpdf(np.log(x), a, b) - np.log(x)),
        "Gamma": (
            D.Gamma(_t(a), _t(b)),
            a * np.log(b) + (a - 1) * np.log(x) - b * x - lg(a),
        ),
        "StudentT": (
            D.StudentT(_t(a), 0.0, 1.0),
            lg((a + 1) / 2)
            - lg(a / 2)
            - 0.5 * np.log(a * np.pi)
            - (a + 1) / 2 * np.log1p(x**2 / a),
        ),
    }
    for name, (d, expected) in cases.items():
        np.testing.assert_allclose(_np(d.log_prob(_t(x))), expected, rtol=1e-10, err_msg=name)


def test_discrete_families_closed_forms():
    k = np.array([0.0, 3.0])
    rate, p, n = np.array([0.5, 2.0]), np.array([0.3, 0.8]), np.array([5.0, 5.0])
    poisson = k * np.log(rate) - rate - np.array([math.lgamma(v + 1) for v in k])
    np.testing.assert_allclose(_np(D.Poisson(_t(rate)).log_prob(_t(k))), poisson, rtol=1e-12)
    geom = k * np.log1p(-p) + np.log(p)
    np.testing.assert_allclose(_np(D.Geometric(_t(p)).log_prob(_t(k))), geom, rtol=1e-12)
    binom = [
        math.log(math.comb(5, int(v)) * q**v * (1 - q) ** (5 - v))
        for v, q in zip(k, p, strict=True)
    ]
    d = D.Binomial(_t(n), _t(p))
    np.testing.assert_allclose(_np(d.log_prob(_t(k))), binom, rtol=1e-10, err_msg="binomial")
    np.testing.assert_allclose(_np(d.log_prob(d.enumerate_support()).exp().sum(0)), [1, 1])
    assert D.Binomial(10, _t(0.3)).entropy().shape == ()


def test_beta_dirichlet_closed_forms():
    a, b, x = 2.0, 3.5, 0.3
    lbeta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    expected = (a - 1) * math.log(x) + (b - 1) * math.log(1 - x) - lbeta
    beta = D.Beta(_t(a), _t(b))
    np.testing.assert_allclose(_np(beta.log_prob(_t(x))), expected, rtol=1e-12)
    dirichlet = D.Dirichlet(_t([a, b]))
    np.testing.assert_allclose(_np(dirichlet.log_prob(_t([x, 1 - x]))), expected, rtol=1e-12)
    np.testing.assert_allclose(_np(beta.entropy()), _np(dirichlet.entropy()), rtol=1e-12)
    np.testing.assert_allclose(_np(beta.mean), a / (a + b))


def test_independent_sums_event_dims():
    base = D.Normal(_t([LOC, LOC]), _t([SCALE, SCALE]))
    d = D.Independent(base, 1)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    np.testing.assert_allclose(
        _np(d.log_prob(_t(X))), [_normal_logpdf(X, LOC, SCALE).sum()] * 2, rtol=1e-12
    )
    assert repr(d).startswith("Independent(Normal(loc: torch.Size([2, 3])")
    assert d.support.event_dim == 1


# ---------------------------------------------------------------------------------------------
# sampling: shapes, dtypes, seeding, statistics


SHAPED = [
    ("Normal", lambda: D.Normal(minitorch.zeros(2, 3), 1.0), (2, 3), ()),
    ("Bernoulli", lambda: D.Bernoulli(minitorch.full((2,), 0.3)), (2,), ()),
    ("Categorical", lambda: D.Categorical(minitorch.ones(2, 4)), (2,), ()),
    ("OneHotCategorical", lambda: D.OneHotCategorical(minitorch.ones(2, 4)), (2,), (4,)),
    ("Uniform", lambda: D.Uniform(0.0, minitorch.ones(3)), (3,), ()),
    (
        "MultivariateNormal",
        lambda: D.MultivariateNormal(minitorch.zeros(3), minitorch.eye(3)),
        (),
        (3,),
    ),
    ("Independent", lambda: D.Independent(D.Normal(minitorch.zeros(2, 3), 1.0), 1), (2,), (3,)),
    ("Exponential", lambda: D.Exponential(minitorch.ones(2)), (2,), ()),
    ("Laplace", lambda: D.Laplace(0.0, minitorch.ones(2)), (2,), ()),
    ("LogNormal", lambda: D.LogNormal(0.0, minitorch.ones(2)), (2,), ()),
    ("Binomial", lambda: D.Binomial(5, minitorch.full((2,), 0.4)), (2,), ()),
    ("Poisson", lambda: D.Poisson(minitorch.ones(2)), (2,), ()),
    ("Gamma", lambda: D.Gamma(minitorch.ones(2), 2.0), (2,), ()),
    ("Beta", lambda: D.Beta(minitorch.ones(2), 2.0), (2,), ()),
    ("Dirichlet", lambda: D.Dirichlet(minitorch.ones(2, 3)), (2,), (3,)),
    ("Geometric", lambda: D.Geometric(minitorch.full((2,), 0.4)), (2,), ()),
    ("Cauchy", lambda: D.Cauchy(0.0, minitorch.ones(2)), (2,), ()),
    ("Gumbel", lambda: D.Gumbel(0.0, minitorch.ones(2)), (2,), ()),
    ("StudentT", lambda: D.StudentT(minitorch.full((2,), 3.0)), (2,), ()),
    ("RelaxedBernoulli", lambda: D.RelaxedBernoulli(0.5, minitorch.full((2,), 0.3)), (2,), ()),
    (
        "RelaxedOneHotCategorical",
        lambda: D.RelaxedOneHotCategorical(0.5, minitorch.ones(2, 3) / 3),
        (2,),
        (3,),
    ),
]


@pytest.mark.parametrize("name,make,batch,event", SHAPED, ids=[c[0] for c in SHAPED])
def test_sample_shapes_and_seeding(name, make, batch, event):
    d = make()
    assert d.batch_shape == batch and d.event_shape == event, name
    assert d.sample().shape == batch + event
    assert d.sample((4, 5)).shape == (4, 5) + batch + event
    minitorch.manual_seed(3)
    a = d.sample((6,))
    minitorch.manual_seed(3)
    b = d.sample((6,))
    np.testing.assert_array_equal(_np(a), _np(b), err_msg=f"{name} reproducible under seed")
    expected_dtype = minitorch.int64 if name == "Categorical" else minitorch.float32
    assert a.dtype == expected_dtype, (name, a.dtype)
    assert not a.requires_grad
    assert bool(d.support.check(a).all()), f"{name} samples outside the support"


STATS = [
    ("Normal", lambda: D.Normal(_t(1.5), _t(2.0))),
    ("Bernoulli", lambda: D.Bernoulli(_t(0.3))),
    ("Uniform", lambda: D.Uniform(_t(-1.0), _t(3.0))),
    ("Exponential", lambda: D.Exponential(_t(2.0))),
    ("Laplace", lambda: D.Laplace(_t(0.5), _t(1.5))),
    ("LogNormal", lambda: D.LogNormal(_t(0.1), _t(0.4))),
    ("Binomial", lambda: D.Binomial(_t(8.0), _t(0.35))),
    ("Poisson", lambda: D.Poisson(_t(3.5))),
    ("Gamma", lambda: D.Gamma(_t(2.5), _t(1.5))),
    ("Beta", lambda: D.Beta(_t(2.0), _t(5.0))),
    ("Geometric", lambda: D.Geometric(_t(0.3))),
    ("Gumbel", lambda: D.Gumbel(_t(0.5), _t(2.0))),
    ("StudentT", lambda: D.StudentT(_t(6.0), _t(1.0), _t(2.0))),
]


@pytest.mark.parametrize("name,make", STATS, ids=[c[0] for c in STATS])
def test_sample_mean_and_variance(name, make):
    minitorch.manual_seed(0)
    d = make()
    s = _np(d.sample((20000,)))
    mean, var = float(_np(d.mean)), float(_np(d.variance))
    sd = math.sqrt(var)
    assert abs(s.mean() - mean) < 5 * sd / math.sqrt(20000), (name, s.mean(), mean)
    np.testing.assert_allclose(s.var(), var, rtol=0.1, err_msg=f"{name} sample variance")


def test_categorical_and_mvn_sample_statistics():
    minitorch.manual_seed(0)
    p = np.array([0.1, 0.6, 0.3])
    s = _np(D.Categorical(_t(p)).sample((20000,)))
    np.testing.assert_allclose(np.bincount(s, minlength=3) / 20000, p, atol=0.015)
    cov = np.array([[2.0, 0.6], [0.6, 0.5]])
    x = _np(D.MultivariateNormal(_t([1.0, -2.0]), _t(cov)).sample((20000,)))
    np.testing.assert_allclose(x.mean(0), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.06)
    dir_s = _np(D.Dirichlet(_t([1.0, 2.0, 3.0])).sample((20000,)))
    np.testing.assert_allclose(dir_s.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.01)


# ---------------------------------------------------------------------------------------------
# gradients


def test_log_prob_gradcheck():
    loc, scale = _t([0.3, -0.5], True), _t([1.2, 0.7], True)
    x = _t([0.1, 0.4])
    assert gradcheck(lambda m, s: D.Normal(m, s).log_prob(x), (loc, scale))
    assert gradcheck(lambda m, s: D.Laplace(m, s).log_prob(x), (loc, scale))
    assert gradcheck(lambda m, s: D.Gumbel(m, s).log_prob(x), (loc, scale))
    assert gradcheck(lambda m, s: D.Normal(m, s).entropy(), (loc, scale))
    logits = _t([[0.2, -0.3, 1.0], [0.5, 0.1, -1.0]], True)
    v = minitorch.tensor([2, 0])
    assert gradcheck(lambda lg: D.Categorical(logits=lg).log_prob(v), (logits,))
    assert gradcheck(lambda lg: D.Categorical(logits=lg).entropy(), (logits,))
    assert gradcheck(lambda lg: D.Bernoulli(logits=lg).log_prob(_t([[1, 0, 1]] * 2)), (logits,))
    conc, rate = _t([1.5, 2.5], True), _t([0.7, 1.3], True)
    assert gradcheck(lambda c, r: D.Gamma(c, r).log_prob(_t([0.4, 1.1])), (conc, rate))
    assert gradcheck(lambda c, r: D.Beta(c, r).log_prob(_t([0.4, 0.8])), (conc, rate))
    L = _t([[1.0, 0.0], [0.3, 0.8]], True)
    assert gradcheck(
        lambda m, L: D.MultivariateNormal(m, scale_tril=L.tril()).log_prob(_t([0.2, 0.1])), (loc, L)
    )


def test_rsample_is_differentiable():
    loc, scale = _t([0.3, -0.5], True), _t([1.2, 0.7], True)

    def seeded(make):
        def fn(*params):
            minitorch.manual_seed(11)
            return make(*params).rsample((3,))

        return fn

    for cls in (D.Normal, D.Laplace, D.Gumbel, D.Cauchy, D.LogNormal, D.Uniform):
        hi = (loc + 2).detach().requires_grad_() if cls is D.Uniform else scale
        assert gradcheck(seeded(cls), (loc, hi)), cls.__name__
    assert gradcheck(seeded(D.Exponential), (scale,))
    temperature, probs = _t(0.6, True), _t([[0.2, 0.3, 0.5]], True)
    assert gradcheck(seeded(lambda t, p: D.RelaxedBernoulli(t, p)), (temperature, probs))
    assert gradcheck(seeded(lambda t, p: D.RelaxedOneHotCategorical(t, p)), (temperature, probs))
    L = _t([[1.0, 0.0], [0.3, 0.8]], True)
    assert gradcheck(seeded(lambda m, L: D.MultivariateNormal(m, scale_tril=L.tril())), (loc, L))
    assert D.Normal(loc, scale).has_rsample and not D.Bernoulli(_t(0.3)).has_rsample
    assert not D.Normal(loc, scale).sample().requires_grad
    assert D.Normal(loc, scale).rsample().requires_grad


# ---------------------------------------------------------------------------------------------
# validation, repr, expand


def test_invalid_parameters_raise():
    with pytest.raises(
        ValueError,
        match=r"Expected parameter scale \(Tensor of shape \(\)\) of "
        r"distribution Normal\(loc: 0.0, scale: -1.0\) to satisfy the constraint "
        r"GreaterThan\(lower_bound=0.0\)",
    ):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Categorical(probs=_t([0.5, 0.5]), logits=_t([0.0, 0.0]))
    with pytest.raises(ValueError, match="must be at least one-dimensional"):
        D.Categorical(_t(1.0))
    with pytest.raises(ValueError, match="Exactly one of covariance_matrix"):
        D.MultivariateNormal(minitorch.zeros(2))
    with pytest.raises(ValueError, match="PositiveDefinite"):
        D.MultivariateNormal(minitorch.zeros(2), _t([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims <= len"):
        D.Independent(D.Normal(0.0, 1.0), 1)
    with pytest.raises(ValueError, match="LessThan"):
        D.Uniform(1.0, 0.0)
    D.Normal(0.0, -1.0, validate_args=False)  # no check when asked


def test_invalid_values_raise():
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob(1.0)
    with pytest.raises(ValueError, match=r"to be within the support \(Boolean\(\)\)"):
        D.Bernoulli(0.3).log_prob(_t(0.5))
    with pytest.raises(ValueError, match="IntegerInterval"):
        D.Categorical(minitorch.ones(3)).log_prob(minitorch.tensor(5))
    with pytest.raises(ValueError, match="Value is not broadcastable"):
        D.Normal(minitorch.zeros(2), 1.0).log_prob(minitorch.zeros(3))
    with pytest.raises(ValueError, match="right-most size of value must match event_shape"):
        D.MultivariateNormal(minitorch.zeros(2), minitorch.eye(2)).log_prob(minitorch.zeros(3))


def test_default_validate_args_switch():
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
        assert not D.Normal(0.0, 1.0)._validate_args
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)


def test_repr():
    assert repr(D.Normal(minitorch.zeros(2), minitorch.ones(2))) == (
        "Normal(loc: torch.Size([2]), scale: torch.Size([2]))"
    )
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Bernoulli(logits=minitorch.zeros(2))) == "Bernoulli(logits: torch.Size([2]))"
    assert (
        repr(constraints.integer_interval(0, 3)) == "IntegerInterval(lower_bound=0, upper_bound=3)"
    )
    assert repr(constraints.real_vector) == "IndependentConstraint(Real(), 1)"


def test_expand():
    d = D.Normal(minitorch.zeros(3), 1.0).expand((2, 3))
    assert d.batch_shape == (2, 3) and d.sample((4,)).shape == (4, 2, 3)
    c = D.Categorical(minitorch.ones(3)).expand((5,))
    assert c.batch_shape == (5,) and c.sample().shape == (5,)
    m = D.MultivariateNormal(minitorch.zeros(2), minitorch.eye(2)).expand((4,))
    assert m.batch_shape == (4,) and m.log_prob(minitorch.zeros(2)).shape == (4,)


def test_constraints_check():
    assert bool(constraints.simplex.check(_t([0.2, 0.8])))
    assert not bool(constraints.simplex.check(_t([0.2, 0.9])))
    assert bool(constraints.lower_cholesky.check(_t([[1.0, 0.0], [2.0, 1.0]])))
    assert not bool(constraints.positive_definite.check(_t([[1.0, 2.0], [2.0, 1.0]])))
    np.testing.assert_array_equal(
        _np(constraints.interval(0.0, 1.0).check(_t([-0.1, 0.5, 1.0]))), [False, True, True]
    )
    assert constraints.boolean.is_discrete and constraints.simplex.event_dim == 1


# ---------------------------------------------------------------------------------------------
# KL divergence


def test_kl_closed_forms():
    p, q = D.Normal(_t(0.3), _t(1.5)), D.Normal(_t(-1.0), _t(0.7))
    expected = math.log(0.7 / 1.5) + (1.5**2 + 1.3**2) / (2 * 0.7**2) - 0.5
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), expected, rtol=1e-12)
    pb, qb = D.Bernoulli(_t(0.2)), D.Bernoulli(_t(0.6))
    expected = 0.2 * math.log(0.2 / 0.6) + 0.8 * math.log(0.8 / 0.4)
    np.testing.assert_allclose(_np(D.kl_divergence(pb, qb)), expected, rtol=1e-10)
    pc, qc = np.array([0.1, 0.6, 0.3]), np.array([0.3, 0.3, 0.4])
    expected = (pc * np.log(pc / qc)).sum()
    kl = D.kl_divergence(D.Categorical(_t(pc)), D.Categorical(_t(qc)))
    np.testing.assert_allclose(_np(kl), expected, rtol=1e-12)
    kl = D.kl_divergence(D.OneHotCategorical(_t(pc)), D.OneHotCategorical(_t(qc)))
    np.testing.assert_allclose(_np(kl), expected, rtol=1e-12)
    kl = D.kl_divergence(D.Uniform(_t(0.0), _t(1.0)), D.Uniform(_t(-1.0), _t(2.0)))
    np.testing.assert_allclose(_np(kl), math.log(3.0))
    assert _np(D.kl_divergence(D.Uniform(-1.0, 2.0), D.Uniform(0.0, 1.0))) == np.inf
    kl = D.kl_divergence(D.Exponential(_t(2.0)), D.Exponential(_t(0.5)))
    np.testing.assert_allclose(_np(kl), 0.25 - 1 - math.log(0.25), rtol=1e-12)


def test_kl_mvn_and_independent_match_normal():
    loc_p, loc_q = _t([0.3, 1.0]), _t([-1.0, 0.2])
    sp, sq = _t([1.5, 0.5]), _t([0.7, 2.0])
    diag = D.kl_divergence(D.Normal(loc_p, sp), D.Normal(loc_q, sq)).sum()
    ind = D.kl_divergence(
        D.Independent(D.Normal(loc_p, sp), 1), D.Independent(D.Normal(loc_q, sq), 1)
    )
    mvn = D.kl_divergence(
        D.MultivariateNormal(loc_p, scale_tril=minitorch.diag(sp)),
        D.MultivariateNormal(loc_q, scale_tril=minitorch.diag(sq)),
    )
    np.testing.assert_allclose(_np(ind), _np(diag), rtol=1e-12)
    np.testing.assert_allclose(_np(mvn), _np(diag), rtol=1e-10)


def test_kl_dispatch_and_errors():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Cauchy(0.0, 1.0))

    class MyNormal(D.Normal):
        pass

    kl = D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0))
    np.testing.assert_allclose(_np(kl), 0.5)

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return minitorch.tensor(42.0)

    assert float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0))) == 42.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0))) == 0.5
    with pytest.raises(TypeError, match="Expected type_q to be a Distribution subclass"):
        D.register_kl(D.Normal, int)


def test_import_is_lazy():
    import subprocess
    import sys

    code = "import sys, minitorch; print('minitorch.distributions' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# ---------------------------------------------------------------------------------------------
# devices: parameters' device and dtype carry to samples; no hidden host transfers


def _on(device, a, dtype=minitorch.float32):
    return minitorch.tensor(np.asarray(a), dtype=dtype, device=device)


DEVICE_CASES = [
    ("Normal", lambda dv: D.Normal(_on(dv, [0.0, 1.0]), _on(dv, [1.0, 2.0]), validate_args=False)),
    ("Bernoulli", lambda dv: D.Bernoulli(logits=_on(dv, [0.3, -1.0]), validate_args=False)),
    (
        "Categorical",
        lambda dv: D.Categorical(_on(dv, [[0.2, 0.8], [0.5, 0.5]]), validate_args=False),
    ),
    (
        "Uniform",
        lambda dv: D.Uniform(_on(dv, [0.0, 1.0]), _on(dv, [2.0, 3.0]), validate_args=False),
    ),
    (
        "MultivariateNormal",
        lambda dv: D.MultivariateNormal(
            _on(dv, [0.0, 1.0]), _on(dv, np.eye(2)), validate_args=False
        ),
    ),
    ("Exponential", lambda dv: D.Exponential(_on(dv, [1.0, 2.0]), validate_args=False)),
    (
        "Laplace",
        lambda dv: D.Laplace(_on(dv, [0.0, 1.0]), _on(dv, [1.0, 2.0]), validate_args=False),
    ),
    ("Gamma", lambda dv: D.Gamma(_on(dv, [0.5, 2.0]), _on(dv, [1.0, 2.0]), validate_args=False)),
    ("Dirichlet", lambda dv: D.Dirichlet(_on(dv, [0.5, 2.0, 1.0]), validate_args=False)),
    ("Poisson", lambda dv: D.Poisson(_on(dv, [0.5, 2.0]), validate_args=False)),
]


@pytest.mark.parametrize("name,make", DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_device_and_no_host_transfers(device, name, make):
    from minitorch._backend.strict import count_transfers

    d = make(device)
    with count_transfers() as t:
        s = d.sample((3,))
        lp = d.log_prob(s)
        if name != "Poisson":
            d.entropy()
        D.kl_divergence(d, d)
    assert t.count == 0, f"{name}: {t.count} host transfers"
    assert s.device == lp.device
    assert str(s.device).startswith(device.split(":")[0])
    expected_dtype = minitorch.int64 if name == "Categorical" else minitorch.float32
    assert s.dtype == expected_dtype and lp.dtype == minitorch.float32
