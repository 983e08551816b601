"""Multinomial, MixtureSameFamily, LowRankMultivariateNormal and the added KL pairs without torch:
closed forms, brute-force enumeration, quadrature of KL, sample shapes and moments, gradients,
expand and validation errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import minitorch
import minitorch.distributions as D
from minitorch.autograd import gradcheck


def _t(a, requires_grad=False):
    return minitorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


def _normal_logpdf(x, m, s):
    return -((x - m) ** 2) / (2 * s**2) - np.log(s) - 0.5 * np.log(2 * np.pi)


def _normal_cdf(x, m, s):
    return 0.5 * (1 + np.vectorize(math.erf)((x - m) / (s * math.sqrt(2))))


# ---------------------------------------------------------------------------------------------
# Multinomial

PROBS = [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]


def _multinomial_logpmf(x, p):
    n = sum(x)
    out = math.lgamma(n + 1) - sum(math.lgamma(k + 1) for k in x)
    return out + sum(k * math.log(q) for k, q in zip(x, p, strict=True) if k)


def test_multinomial_log_prob_mean_variance():
    m = D.Multinomial(4, _t(PROBS))
    x = [[1.0, 2.0, 1.0], [0.0, 0.0, 4.0]]
    expected = [_multinomial_logpmf(x[i], PROBS[i]) for i in range(2)]
    np.testing.assert_allclose(_np(m.log_prob(_t(x))), expected, rtol=1e-12, err_msg="log_prob")
    np.testing.assert_allclose(_np(m.mean), 4 * np.array(PROBS), rtol=1e-12, err_msg="mean")
    p = np.array(PROBS)
    np.testing.assert_allclose(_np(m.variance), 4 * p * (1 - p), rtol=1e-12, err_msg="var")
    assert tuple(m.batch_shape) == (2,) and tuple(m.event_shape) == (3,)
    # unnormalised probs and logits give the same distribution
    m2 = D.Multinomial(4, logits=_t(np.log(PROBS) + 1.5))
    np.testing.assert_allclose(_np(m2.log_prob(_t(x))), expected, rtol=1e-12, err_msg="logits")
    m3 = D.Multinomial(4, _t(np.array(PROBS) * 7))
    np.testing.assert_allclose(_np(m3.probs), PROBS, rtol=1e-12, err_msg="normalised")
    # a zero count of an impossible category contributes 0, not nan
    m4 = D.Multinomial(3, logits=_t([float("-inf"), 0.0]))
    assert float(m4.log_prob(_t([0.0, 3.0]))) == 0.0


@pytest.mark.parametrize("n", [1, 3, 5])
def test_multinomial_entropy_by_enumeration(n):
    p = [0.2, 0.3, 0.5]
    H = 0.0
    for x in itertools.product(range(n + 1), repeat=3):
        if sum(x) == n:
            lp = _multinomial_logpmf(x, p)
            H -= math.exp(lp) * lp
    got = float(D.Multinomial(n, _t(p)).entropy())
    # torch evaluates lgamma(n + 1) in float32; tolerances allow for it
    np.testing.assert_allclose(got, H, rtol=1e-6, err_msg=f"entropy n={n}")


def test_multinomial_sample_shapes_support_and_moments():
    minitorch.manual_seed(0)
    m = D.Multinomial(10, _t(PROBS))
    s = m.sample()
    assert tuple(s.shape) == (2, 3) and s.dtype == minitorch.float64
    s = m.sample((2000,))
    assert tuple(s.shape) == (2000, 2, 3)
    arr = _np(s)
    assert (arr >= 0).all() and (arr == np.round(arr)).all() and (arr.sum(-1) == 10).all()
    assert bool(m.support.check(s).all())
    np.testing.assert_allclose(arr.mean(0), _np(m.mean), atol=0.12, err_msg="sample mean")
    np.testing.assert_allclose(arr.var(0), _np(m.variance), rtol=0.15, err_msg="sample var")
    assert m.sample().dtype == minitorch.float64
    f32 = D.Multinomial(5, minitorch.tensor([0.5, 0.5]))
    assert f32.sample((3,)).dtype == minitorch.float32


def test_multinomial_submodule_like_d2l():
    from minitorch.distributions import multinomial

    fair_probs = minitorch.ones([6]) / 6
    counts = multinomial.Multinomial(10, fair_probs).sample()
    assert tuple(counts.shape) == (6,) and float(counts.sum()) == 10.0
    counts = multinomial.Multinomial(10, fair_probs).sample((500,))
    assert tuple(counts.shape) == (500, 6)


def test_multinomial_expand_and_errors():
    m = D.Multinomial(3, _t(PROBS))
    e = m.expand((4, 2))
    assert tuple(e.batch_shape) == (4, 2) and tuple(e.sample().shape) == (4, 2, 3)
    np.testing.assert_allclose(_np(e.entropy()), np.broadcast_to(_np(m.entropy()), (4, 2)))
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
        D.Multinomial(_t(3.0), _t(PROBS))
    with pytest.raises(ValueError, match="Simplex"):
        D.Multinomial(3, _t([0.2, -0.8]))
    with pytest.raises(ValueError, match="support"):
        m.log_prob(_t([1.0, -2.0, 1.0]))
    with pytest.raises(ValueError, match="support"):
        m.log_prob(_t([2.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match="Either"):
        D.Multinomial(3)
    assert repr(m) == "Multinomial()" and repr(m.support) == "Multinomial()"
    assert m.support.event_dim == 1 and m.support.is_discrete


def test_multinomial_log_prob_gradcheck():
    logits = _t([[0.2, -0.3, 1.0], [0.5, 0.1, -1.0]], True)
    x = _t([[1.0, 2.0, 0.0], [0.0, 1.0, 2.0]])
    assert gradcheck(lambda lg: D.Multinomial(3, logits=lg).log_prob(x), (logits,))
    assert gradcheck(lambda lg: D.Multinomial(3, logits=lg).entropy(), (logits,))


# ---------------------------------------------------------------------------------------------
# MixtureSameFamily

W = [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]
MU = [[-1.0, 0.5, 2.0], [0.0, 1.0, -2.0]]
SD = [[0.5, 1.0, 1.5], [2.0, 0.7, 1.0]]


def _gmm(mu=MU, sd=SD, w=W, requires_grad=False):
    return D.MixtureSameFamily(
        D.Categorical(_t(w, requires_grad)),
        D.Normal(_t(mu, requires_grad), _t(sd, requires_grad)),
    )


def test_mixture_log_prob_cdf_mean_variance():
    g = _gmm()
    x = np.array([[0.3, -0.4], [1.5, 2.5], [-3.0, 0.0]])
    w, mu, sd = (np.array(a) for a in (W, MU, SD))
    dens = (w * np.exp(_normal_logpdf(x[..., None], mu, sd))).sum(-1)
    np.testing.assert_allclose(_np(g.log_prob(_t(x))), np.log(dens), rtol=1e-12)
    cdf = (w * _normal_cdf(x[..., None], mu, sd)).sum(-1)
    np.testing.assert_allclose(_np(g.cdf(_t(x))), cdf, rtol=1e-12)
    mean = (w * mu).sum(-1)
    np.testing.assert_allclose(_np(g.mean), mean, rtol=1e-12)
    var = (w * (sd**2 + mu**2)).sum(-1) - mean**2
    np.testing.assert_allclose(_np(g.variance), var, rtol=1e-12)
    assert tuple(g.batch_shape) == (2,) and tuple(g.event_shape) == ()


def test_mixture_shared_weights_and_event_dims():
    rng = np.random.default_rng(0)
    mu, sd = rng.normal(size=(4, 2)), rng.uniform(0.5, 2.0, size=(4, 2))
    w = rng.uniform(size=4)
    g = D.MixtureSameFamily(D.Categorical(_t(w)), D.Independent(D.Normal(_t(mu), _t(sd)), 1))
    assert tuple(g.batch_shape) == () and tuple(g.event_shape) == (2,)
    x = rng.normal(size=(5, 2))
    w = w / w.sum()
    comp = _normal_logpdf(x[:, None, :], mu, sd).sum(-1)
    np.testing.assert_allclose(_np(g.log_prob(_t(x))), np.log((w * np.exp(comp)).sum(-1)))
    np.testing.assert_allclose(_np(g.mean), (w[:, None] * mu).sum(0), rtol=1e-12)
    var = (w[:, None] * (sd**2 + mu**2)).sum(0) - (w[:, None] * mu).sum(0) ** 2
    np.testing.assert_allclose(_np(g.variance), var, rtol=1e-12)
    s = g.sample((7,))
    assert tuple(s.shape) == (7, 2)
    # a mixture weight broadcast over a component batch: log_prob works; sample fails as in torch
    g2 = D.MixtureSameFamily(D.Categorical(_t(w)), D.Normal(_t(rng.normal(size=(3, 4))), 1.0))
    assert tuple(g2.batch_shape) == (3,) and tuple(g2.log_prob(_t([0.1, 0.2, 0.3])).shape) == (3,)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        g2.sample((5,))


def test_mixture_sample_moments_and_expand():
    minitorch.manual_seed(1)
    g = _gmm()
    s = _np(g.sample((20000,)))
    assert s.shape == (20000, 2)
    np.testing.assert_allclose(s.mean(0), _np(g.mean), atol=0.06, err_msg="sample mean")
    np.testing.assert_allclose(s.var(0), _np(g.variance), rtol=0.06, err_msg="sample var")
    e = g.expand((5, 2))
    assert tuple(e.batch_shape) == (5, 2) and tuple(e.sample((3,)).shape) == (3, 5, 2)
    np.testing.assert_allclose(
        _np(e.log_prob(_t(0.3))), np.broadcast_to(_np(g.log_prob(_t(0.3))), (5, 2))
    )
    assert not g.has_rsample
    assert repr(g.support) == "MixtureSameFamilyConstraint(Real())"
    assert bool(g.support.check(_t([0.0, 1.0])).all())


def test_mixture_errors():
    comp = D.Normal(_t(MU), _t(SD))
    with pytest.raises(ValueError, match="Categorical"):
        D.MixtureSameFamily(comp, comp)
    with pytest.raises(ValueError, match="Distribution"):
        D.MixtureSameFamily(D.Categorical(_t(W)), _t(MU))
    with pytest.raises(ValueError, match="does not equal"):
        D.MixtureSameFamily(D.Categorical(_t([0.5, 0.5])), comp)
    with pytest.raises(ValueError, match="not compatible"):
        D.MixtureSameFamily(D.Categorical(_t([[0.3, 0.3, 0.4]] * 3)), comp)


def test_mixture_log_prob_gradcheck():
    w, mu, sd = _t(W, True), _t(MU, True), _t(SD, True)
    x = _t([[0.3, -0.4], [1.5, 2.5]])

    def f(w, mu, sd):
        return D.MixtureSameFamily(D.Categorical(w), D.Normal(mu, sd)).log_prob(x)

    assert gradcheck(f, (w, mu, sd))


# ---------------------------------------------------------------------------------------------
# LowRankMultivariateNormal


def _lowrank_params(seed=0, batch=(2,)):
    rng = np.random.default_rng(seed)
    loc = rng.normal(size=batch + (4,))
    W = rng.normal(size=batch + (4, 2))
    d = rng.uniform(0.5, 2.0, size=(4,))
    return loc, W, d


def test_lowrank_matches_full_covariance():
    loc, W, d = _lowrank_params()
    m = D.LowRankMultivariateNormal(_t(loc), _t(W), _t(d))
    cov = W @ np.swapaxes(W, -1, -2) + np.diag(d)
    full = D.MultivariateNormal(_t(loc), covariance_matrix=_t(cov))
    np.testing.assert_allclose(_np(m.covariance_matrix), cov, rtol=1e-12, err_msg="cov")
    np.testing.assert_allclose(_np(m.precision_matrix), np.linalg.inv(cov), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_np(m.scale_tril), np.linalg.cholesky(cov), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_np(m.variance), np.diagonal(cov, axis1=-2, axis2=-1), rtol=1e-12)
    x = np.random.default_rng(1).normal(size=(3, 2, 4))
    np.testing.assert_allclose(_np(m.log_prob(_t(x))), _np(full.log_prob(_t(x))), rtol=1e-10)
    np.testing.assert_allclose(_np(m.entropy()), _np(full.entropy()), rtol=1e-10)
    np.testing.assert_allclose(_np(m.mean), loc) and np.testing.assert_allclose(_np(m.mode), loc)
    assert tuple(m.batch_shape) == (2,) and tuple(m.event_shape) == (4,)


def test_lowrank_sample_shapes_moments_and_expand():
    loc, W, d = _lowrank_params(batch=())
    m = D.LowRankMultivariateNormal(_t(loc), _t(W), _t(d))
    minitorch.manual_seed(3)
    s = _np(m.rsample((20000,)))
    assert s.shape == (20000, 4)
    np.testing.assert_allclose(s.mean(0), loc, atol=0.06, err_msg="sample mean")
    cov = W @ W.T + np.diag(d)
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.15, err_msg="sample cov")
    e = m.expand((3,))
    assert tuple(e.batch_shape) == (3,) and tuple(e.sample((2,)).shape) == (2, 3, 4)
    np.testing.assert_allclose(_np(e.entropy()), np.full(3, _np(m.entropy())), rtol=1e-12)


def test_lowrank_gradients():
    loc, W, d = _lowrank_params(batch=())
    loc, W, d = _t(loc, True), _t(W, True), _t(d, True)
    x = _t([0.3, -0.2, 0.5, 1.0])

    def log_prob(m, w, dd):
        return D.LowRankMultivariateNormal(m, w, dd).log_prob(x)

    def rsample(m, w, dd):
        minitorch.manual_seed(5)
        return D.LowRankMultivariateNormal(m, w, dd).rsample((2,))

    assert gradcheck(log_prob, (loc, W, d))
    assert gradcheck(rsample, (loc, W, d))
    assert gradcheck(lambda m, w, dd: D.LowRankMultivariateNormal(m, w, dd).entropy(), (loc, W, d))


def test_lowrank_errors():
    with pytest.raises(ValueError, match="loc must be at least one-dimensional"):
        D.LowRankMultivariateNormal(_t(0.0), _t([[1.0]]), _t([1.0]))
    with pytest.raises(ValueError, match="cov_factor must be at least two-dimensional"):
        D.LowRankMultivariateNormal(_t([0.0]), _t([1.0]), _t([1.0]))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices"):
        D.LowRankMultivariateNormal(_t([0.0, 0.0]), _t([[1.0]]), _t([1.0, 1.0]))
    with pytest.raises(ValueError, match="cov_diag must be a batch of vectors"):
        D.LowRankMultivariateNormal(_t([0.0, 0.0]), _t([[1.0], [0.0]]), _t([1.0]))
    with pytest.raises(ValueError, match="Incompatible batch shapes"):
        D.LowRankMultivariateNormal(_t(np.zeros((2, 2))), _t(np.zeros((3, 2, 1))), _t([1.0, 1.0]))
    with pytest.raises(ValueError, match="cov_diag"):
        D.LowRankMultivariateNormal(_t([0.0, 0.0]), _t([[1.0], [0.0]]), _t([1.0, -1.0]))


# ---------------------------------------------------------------------------------------------
# KL divergences: closed forms against quadrature of E_p[log p - log q]


def _kl_by_icdf(p, q, icdf, n=400_000):
    """E_p[log p(X) - log q(X)] with X = icdf(u), u on a midpoint grid of (0, 1)."""
    u = (np.arange(n) + 0.5) / n
    x = _t(icdf(u))
    return float((p.log_prob(x) - q.log_prob(x)).mean())


def _kl_by_grid(p, q, lo, hi, n=400_000):
    """The integral of p log(p / q) over (lo, hi) by the midpoint rule."""
    h = (hi - lo) / n
    x = _t(lo + (np.arange(n) + 0.5) * h)
    lp, lq = p.log_prob(x), q.log_prob(x)
    return float((lp.exp() * (lp - lq)).sum()) * h


S = _t  # scalar parameters as 0-d float64 tensors


KL_ICDF_CASES = [
    ("Normal->Laplace", lambda: D.Normal(S(0.3), S(1.2)), lambda: D.Laplace(S(-0.5), S(0.8))),
    ("Normal->Gumbel", lambda: D.Normal(S(0.3), S(1.2)), lambda: D.Gumbel(S(-0.5), S(1.5))),
    ("Laplace->Normal", lambda: D.Laplace(S(0.3), S(0.7)), lambda: D.Normal(S(-0.5), S(1.5))),
    ("Gumbel->Normal", lambda: D.Gumbel(S(0.3), S(0.7)), lambda: D.Normal(S(-0.5), S(1.5))),
    ("Uniform->Normal", lambda: D.Uniform(S(-0.5), S(1.5)), lambda: D.Normal(S(0.2), S(0.9))),
    ("Uniform->Gumbel", lambda: D.Uniform(S(-0.5), S(1.5)), lambda: D.Gumbel(S(0.2), S(0.9))),
    ("Uniform->Beta", lambda: D.Uniform(S(0.2), S(0.7)), lambda: D.Beta(S(2.0), S(3.0))),
    ("Uniform->Gamma", lambda: D.Uniform(S(0.2), S(2.7)), lambda: D.Gamma(S(2.0), S(1.5))),
    ("Uniform->Exponential", lambda: D.Uniform(S(0.2), S(2.7)), lambda: D.Exponential(S(1.5))),
    ("Uniform->Pareto", lambda: D.Uniform(S(1.2), S(2.7)), lambda: D.Pareto(S(1.0), S(2.5))),
    ("Exponential->Gamma", lambda: D.Exponential(S(1.3)), lambda: D.Gamma(S(2.0), S(1.5))),
    ("Exponential->Gumbel", lambda: D.Exponential(S(1.3)), lambda: D.Gumbel(S(0.5), S(1.5))),
    ("Exponential->Normal", lambda: D.Exponential(S(1.3)), lambda: D.Normal(S(0.5), S(1.5))),
    ("Cauchy->Cauchy", lambda: D.Cauchy(S(0.3), S(0.7)), lambda: D.Cauchy(S(-0.5), S(1.5))),
    ("HalfNormal->HalfNormal", lambda: D.HalfNormal(S(0.7)), lambda: D.HalfNormal(S(1.5))),
]


@pytest.mark.parametrize("name,make_p,make_q", KL_ICDF_CASES, ids=[c[0] for c in KL_ICDF_CASES])
def test_kl_matches_quadrature_via_icdf(name, make_p, make_q):
    p, q = make_p(), make_q()
    expected = _kl_by_icdf(p, q, lambda u: _np(p.icdf(_t(u))))
    got = float(D.kl_divergence(p, q))
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-6, err_msg=name)


KL_GRID_CASES = [
    ("Gamma->Exponential", lambda: D.Gamma(S(2.5), S(1.5)), lambda: D.Exponential(S(0.7)), 0, 40),
    ("Gamma->Gumbel", lambda: D.Gamma(S(2.5), S(1.5)), lambda: D.Gumbel(S(0.5), S(1.5)), 0, 40),
    ("Gamma->Normal", lambda: D.Gamma(S(2.5), S(1.5)), lambda: D.Normal(S(0.5), S(1.5)), 0, 40),
    ("Beta->Exponential", lambda: D.Beta(S(2.0), S(3.0)), lambda: D.Exponential(S(0.7)), 0, 1),
    ("Beta->Gamma", lambda: D.Beta(S(2.0), S(3.0)), lambda: D.Gamma(S(2.0), S(0.7)), 0, 1),
    ("Beta->Normal", lambda: D.Beta(S(2.0), S(3.0)), lambda: D.Normal(S(0.2), S(0.7)), 0, 1),
    ("Beta->Uniform", lambda: D.Beta(S(2.0), S(3.0)), lambda: D.Uniform(S(-0.5), S(1.5)), 0, 1),
    (
        "Pareto->Pareto",
        lambda: D.Pareto(S(1.5), S(3.0)),
        lambda: D.Pareto(S(1.0), S(2.0)),
        1.5,
        3e3,
    ),
    (
        "Pareto->Exponential",
        lambda: D.Pareto(S(1.5), S(4.0)),
        lambda: D.Exponential(S(0.7)),
        1.5,
        3e3,
    ),
    ("Pareto->Gamma", lambda: D.Pareto(S(1.5), S(4.0)), lambda: D.Gamma(S(2.0), S(0.7)), 1.5, 3e3),
    (
        "Pareto->Normal",
        lambda: D.Pareto(S(1.5), S(5.0)),
        lambda: D.Normal(S(2.0), S(1.5)),
        1.5,
        3e3,
    ),
]


@pytest.mark.parametrize(
    "name,make_p,make_q,lo,hi", KL_GRID_CASES, ids=[c[0] for c in KL_GRID_CASES]
)
def test_kl_matches_quadrature_on_grid(name, make_p, make_q, lo, hi):
    p, q = make_p(), make_q()
    if name.startswith("Pareto"):  # a log-spaced grid for the heavy tail: x = exp(t)
        t_lo, t_hi, n = math.log(lo), math.log(hi), 400_000
        h = (t_hi - t_lo) / n
        x = np.exp(t_lo + (np.arange(n) + 0.5) * h)
        lp, lq = p.log_prob(_t(x)), q.log_prob(_t(x))
        expected = float((lp.exp() * (lp - lq) * _t(x)).sum()) * h
    else:
        expected = _kl_by_grid(p, q, lo, hi)
    got = float(D.kl_divergence(p, q))
    np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-6, err_msg=name)


def test_kl_discrete_pairs_by_summation():
    p, q = D.Binomial(_t([6.0, 5.0]), _t([0.3, 0.4])), D.Binomial(_t([6.0, 5.0]), _t([0.6, 0.2]))
    k = _t(np.arange(7.0)[:, None])
    lp = p.log_prob(k.clamp(max=p.total_count))
    lq = q.log_prob(k.clamp(max=q.total_count))
    mask = _np(k) <= _np(p.total_count)
    expected = (np.exp(_np(lp)) * (_np(lp) - _np(lq)) * mask).sum(0)
    np.testing.assert_allclose(_np(D.kl_divergence(p, q)), expected, rtol=1e-10)
    bigger = D.Binomial(_t([7.0, 5.0]), _t([0.3, 0.4]))
    np.testing.assert_array_equal(_np(D.kl_divergence(bigger, q))[0], np.inf)
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        D.kl_divergence(q, bigger)
    b, pois = D.Bernoulli(_t([0.3, 0.9])), D.Poisson(_t([0.5, 2.0]))
    v = _t([[0.0], [1.0]])
    lb, lpo = b.log_prob(v), pois.log_prob(v)
    expected = (np.exp(_np(lb)) * (_np(lb) - _np(lpo))).sum(0)
    np.testing.assert_allclose(_np(D.kl_divergence(b, pois)), expected, rtol=1e-10)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # log of < 0
def test_kl_infinite_and_unsupported_pairs():
    normal, lap, gum = D.Normal(_t([0.0, 1.0]), 1.0), D.Laplace(_t([0.0]), 1.0), D.Gumbel(0.0, 1.0)
    unit = D.Uniform(_t([0.0, 0.0]), 1.0)
    for p in (normal, lap, gum, D.Exponential(_t([1.0])), D.Gamma(_t([2.0]), 1.0)):
        for q in (unit, D.Beta(_t(2.0), 2.0), D.Pareto(_t(1.0), 2.0)):
            kl = _np(D.kl_divergence(p, q))
            assert np.isinf(kl).all() and kl.shape == tuple(p.batch_shape), (p, q)
    assert np.isinf(_np(D.kl_divergence(D.Poisson(_t([1.0])), D.Binomial(3, _t([0.5]))))).all()
    assert np.isinf(_np(D.kl_divergence(D.Poisson(_t([1.0])), D.Bernoulli(_t([0.5]))))).all()
    # p's support outside q's
    assert np.isinf(float(D.kl_divergence(D.Uniform(S(-0.5), S(1.0)), D.Exponential(S(1.0)))))
    assert np.isinf(float(D.kl_divergence(D.Uniform(S(0.5), S(1.5)), D.Beta(S(2.0), S(2.0)))))
    assert np.isinf(float(D.kl_divergence(D.Beta(S(2.0), S(2.0)), D.Uniform(S(0.5), S(1.5)))))
    assert np.isinf(float(D.kl_divergence(D.Pareto(S(1.0), S(0.8)), D.Exponential(S(1.0)))))
    assert np.isinf(float(D.kl_divergence(D.Pareto(S(1.0), S(2.0)), D.Pareto(S(1.5), S(2.0)))))
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0))


def test_kl_lowrank_pairs_match_full_mvn():
    loc, W, d = _lowrank_params(seed=2)
    loc2, W2, d2 = _lowrank_params(seed=3, batch=())
    p_lr = D.LowRankMultivariateNormal(_t(loc), _t(W), _t(d))
    q_lr = D.LowRankMultivariateNormal(_t(loc2), _t(W2), _t(d2))
    p_full = D.MultivariateNormal(_t(loc), covariance_matrix=p_lr.covariance_matrix)
    q_full = D.MultivariateNormal(_t(loc2), covariance_matrix=q_lr.covariance_matrix)
    expected = _np(D.kl_divergence(p_full, q_full))
    for p, q in ((p_lr, q_lr), (p_full, q_lr), (p_lr, q_full)):
        got = _np(D.kl_divergence(p, q))
        np.testing.assert_allclose(got, expected, rtol=1e-9, err_msg=f"{type(p)} {type(q)}")
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(p_lr, D.LowRankMultivariateNormal(_t([0.0]), _t([[1.0]]), _t([1.0])))


def test_kl_transformed_same_transforms():
    from minitorch.distributions.transforms import ExpTransform

    p = D.TransformedDistribution(D.Normal(S(0.3), S(1.2)), [ExpTransform()])
    q = D.TransformedDistribution(D.Normal(S(-0.2), S(0.7)), [ExpTransform()])
    expected = float(D.kl_divergence(p.base_dist, q.base_dist))
    np.testing.assert_allclose(float(D.kl_divergence(p, q)), expected, rtol=1e-12)
    r = D.TransformedDistribution(D.Normal(S(-0.2), S(0.7)), [])
    with pytest.raises(NotImplementedError):
        D.kl_divergence(p, r)


def test_kl_gradcheck_cross_family():
    loc, scale = _t([0.3, -0.5], True), _t([1.2, 0.7], True)
    loc2, scale2 = _t([0.1, 0.4], True), _t([0.9, 1.6], True)
    assert gradcheck(
        lambda a, b, c, d: D.kl_divergence(D.Normal(a, b), D.Laplace(c, d)),
        (loc, scale, loc2, scale2),
    )
    assert gradcheck(
        lambda a, b, c, d: D.kl_divergence(D.Gumbel(a, b), D.Normal(c, d)),
        (loc, scale, loc2, scale2),
    )


def test_one_hot_categorical_straight_through_passes_the_probs_gradient():
    logits = minitorch.tensor([0.5, 1.0, -1.0], requires_grad=True)
    d = minitorch.distributions.OneHotCategoricalStraightThrough(logits=logits)
    s = d.rsample((4,))
    assert d.has_rsample and s.shape == (4, 3) and s.sum(-1).tolist() == [1.0] * 4
    (s * minitorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    p = np.exp([0.5, 1.0, -1.0]) / np.exp([0.5, 1.0, -1.0]).sum()
    w = np.array([1.0, 2.0, 3.0])
    want = 4 * p * (w - (w * p).sum())  # d/dlogits of 4 * sum(w * softmax(logits))
    np.testing.assert_allclose(logits.grad.numpy(), want, rtol=1e-5)


def test_negative_binomial_log_prob_moments_and_samples():
    r, p = 2.5, 0.3
    d = minitorch.distributions.NegativeBinomial(
        minitorch.tensor(r, dtype=minitorch.float64),
        probs=minitorch.tensor(p, dtype=minitorch.float64),
    )
    for k in (0.0, 1.0, 4.0):
        want = (
            math.lgamma(k + r)
            - math.lgamma(k + 1)
            - math.lgamma(r)
            + r * math.log(1 - p)
            + k * math.log(p)
        )
        np.testing.assert_allclose(
            d.log_prob(minitorch.tensor(k, dtype=minitorch.float64)).item(), want, rtol=1e-12
        )
    np.testing.assert_allclose(d.mean.item(), r * p / (1 - p), rtol=1e-12)
    np.testing.assert_allclose(d.variance.item(), r * p / (1 - p) ** 2, rtol=1e-12)
    minitorch.manual_seed(0)
    s = d.sample((20000,))
    assert s.shape == (20000,) and (s >= 0).all() and (s == s.round()).all()
    np.testing.assert_allclose(s.mean().item(), r * p / (1 - p), rtol=0.05)
    z = minitorch.distributions.NegativeBinomial(minitorch.tensor(0.0), probs=minitorch.tensor(0.5))
    assert z.log_prob(minitorch.tensor(0.0)).item() == 0.0  # no trials: certain
