"""minitorch.distributions against torch.distributions: the same float64 parameters give the same
log_prob, cdf/icdf, entropy, mean/mode/variance, KL divergences, reprs, shapes, errors and
gradients of log_prob with respect to the parameters. Samples are compared by shape and dtype only
(the random streams differ)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

TD = torch.distributions
MD = minitorch.distributions


def _arr(a):
    return np.asarray(a, dtype=np.float64)


A2 = _arr([0.1, -1.0])
S2 = _arr([1.5, 0.5])
P2 = _arr([0.2, 0.7])
PROBS = _arr([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
COV = _arr([[2.0, 0.5], [0.5, 1.0]])

# name, family, positional params (arrays), keyword params (arrays), value, grad-param indices
CASES = [
    ("Normal", "Normal", [A2, S2], {}, [0.3, -0.2]),
    ("Normal0d", "Normal", [_arr(0.5), _arr(2.0)], {}, 1.1),
    ("BernoulliProbs", "Bernoulli", [P2], {}, [1.0, 0.0]),
    ("BernoulliLogits", "Bernoulli", [], {"logits": A2}, [1.0, 0.0]),
    ("Categorical", "Categorical", [PROBS], {}, None),
    ("CategoricalLogits", "Categorical", [], {"logits": np.log(PROBS)}, None),
    ("OneHotCategorical", "OneHotCategorical", [PROBS], {}, [[0, 1.0, 0], [0, 0, 1.0]]),
    ("Uniform", "Uniform", [_arr([0.0, 1.0]), _arr([2.0, 3.0])], {}, [0.5, 2.5]),
    ("Exponential", "Exponential", [_arr([0.5, 2.0])], {}, [0.3, 1.2]),
    ("Laplace", "Laplace", [A2, S2], {}, [0.3, -0.2]),
    ("LogNormal", "LogNormal", [A2, S2], {}, [0.3, 2.2]),
    ("Cauchy", "Cauchy", [A2, S2], {}, [0.3, -0.2]),
    ("Gumbel", "Gumbel", [A2, S2], {}, [0.3, -0.2]),
    ("StudentT", "StudentT", [_arr([3.0, 5.0]), A2, S2], {}, [0.3, -0.2]),
    ("Gamma", "Gamma", [_arr([0.5, 3.0]), S2], {}, [0.3, 2.2]),
    ("Beta", "Beta", [_arr([0.5, 3.0]), S2], {}, [0.3, 0.8]),
    ("Dirichlet", "Dirichlet", [_arr([[0.5, 3.0, 1.0], [1.5, 0.5, 2.0]])], {}, PROBS),
    ("Poisson", "Poisson", [_arr([0.5, 3.0])], {}, [0.0, 4.0]),
    ("Geometric", "Geometric", [_arr([0.3, 0.8])], {}, [0.0, 4.0]),
    ("GeometricLogits", "Geometric", [], {"logits": A2}, [0.0, 4.0]),
    ("Binomial", "Binomial", [_arr([5.0, 5.0]), _arr([0.3, 0.8])], {}, [0.0, 4.0]),
    ("RelaxedBernoulli", "RelaxedBernoulli", [_arr(0.7), P2], {}, [0.3, 0.9]),
    ("RelaxedBernoulliLogits", "RelaxedBernoulli", [_arr([0.5, 2.0])], {"logits": A2}, [0.3, 0.9]),
    ("RelaxedOneHot", "RelaxedOneHotCategorical", [_arr(0.5), PROBS], {}, [[0.2, 0.3, 0.5]]),
    ("MVNCov", "MultivariateNormal", [A2, COV], {}, [0.3, -0.2]),
    ("MVNPrec", "MultivariateNormal", [A2], {"precision_matrix": np.linalg.inv(COV)}, [0.3, -0.2]),
    ("MVNTril", "MultivariateNormal", [A2], {"scale_tril": np.linalg.cholesky(COV)}, [0.3, -0.2]),
    (
        "MVNBatch",
        "MultivariateNormal",
        [_arr([[0.1, -1.0], [0.0, 0.0], [1.0, 1.0]]), COV],
        {},
        [[0.3, -0.2]],
    ),
]


def _build(lib, family, args, kwargs, requires_grad=False):
    D = lib.distributions
    t_args = [lib.tensor(a, requires_grad=requires_grad) for a in args]
    t_kwargs = {k: lib.tensor(v, requires_grad=requires_grad) for k, v in kwargs.items()}
    return getattr(D, family)(*t_args, **t_kwargs), t_args + list(t_kwargs.values())


def _value(lib, value):
    if value is None:
        return lib.tensor([2, 0])
    return lib.tensor(_arr(value))


def _evaluate(d, lib, value):
    out = {}
    for attr in ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"):
        try:
            if attr in ("log_prob", "cdf"):
                r = getattr(d, attr)(_value(lib, value))
            elif attr == "icdf":
                r = d.icdf(lib.tensor(_arr([0.3, 0.6])))
            elif attr == "entropy":
                r = d.entropy()
            else:
                r = getattr(d, attr)
            out[attr] = r.detach().numpy()
        except NotImplementedError:
            out[attr] = "NotImplementedError"
    return out


@pytest.mark.parametrize("name,family,args,kwargs,value", CASES, ids=[c[0] for c in CASES])
def test_statistics_match_torch(name, family, args, kwargs, value):
    td, _ = _build(torch, family, args, kwargs)
    md, _ = _build(minitorch, family, args, kwargs)
    assert repr(md) == repr(td)
    assert tuple(md.batch_shape) == tuple(td.batch_shape)
    assert tuple(md.event_shape) == tuple(td.event_shape)
    assert md.has_rsample == td.has_rsample, "has_rsample"
    assert md.has_enumerate_support == td.has_enumerate_support
    assert repr(md.support) == repr(td.support)
    t_out, m_out = _evaluate(td, torch, value), _evaluate(md, minitorch, value)
    skip = {"Poisson": {"entropy"}}.get(family, set())
    for key, expected in t_out.items():
        if key in skip:
            continue
        got = m_out[key]
        if isinstance(expected, str) or isinstance(got, str):
            assert got == expected, f"{name}.{key}: {got} vs {expected}"
            continue
        assert got.dtype == expected.dtype, f"{name}.{key} dtype"
        np.testing.assert_allclose(
            got, expected, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=f"{name}.{key}"
        )
    t_sample, m_sample = td.sample((3,)), md.sample((3,))
    assert tuple(m_sample.shape) == tuple(t_sample.shape)
    assert str(m_sample.dtype) == str(t_sample.dtype)


GRAD_CASES = [c for c in CASES if c[1] not in ("Binomial",)]


@pytest.mark.parametrize(
    "name,family,args,kwargs,value", GRAD_CASES, ids=[c[0] for c in GRAD_CASES]
)
def test_log_prob_gradients_match_torch(name, family, args, kwargs, value):
    grads = []
    for lib in (torch, minitorch):
        d, params = _build(lib, family, args, kwargs, requires_grad=True)
        rng = np.random.default_rng(0)
        lp = d.log_prob(_value(lib, value))
        upstream = lib.tensor(rng.standard_normal(tuple(lp.shape)))
        (lp * upstream).sum().backward()
        grads.append([p.grad.numpy() for p in params])
    for i, (g_m, g_t) in enumerate(zip(grads[1], grads[0], strict=True)):
        np.testing.assert_allclose(g_m, g_t, rtol=1e-8, atol=1e-12, err_msg=f"{name} param {i}")


def _pair(family, p_args, q_args):
    return family, [_arr(a) for a in p_args], [_arr(a) for a in q_args]


KL_PAIRS = [
    _pair("Normal", [[0.1, -1.0], [1.5, 0.5]], [[0.3, 1.0], [0.7, 2.0]]),
    _pair("Bernoulli", [[0.2, 0.7, 0.0, 1.0]], [[0.4, 0.1, 0.5, 0.3]]),
    _pair(
        "Categorical", [[[0.2, 0.3, 0.5], [0.0, 0.1, 0.9]]], [[[0.1, 0.6, 0.3], [0.3, 0.3, 0.4]]]
    ),
    _pair("OneHotCategorical", [[[0.2, 0.3, 0.5]]], [[[0.1, 0.6, 0.3]]]),
    _pair("Uniform", [[0.0, 1.0], [2.0, 3.0]], [[-1.0, 1.5], [2.5, 3.5]]),
    _pair("Exponential", [[0.5, 2.0]], [[1.5, 0.2]]),
    _pair("Laplace", [[0.1, -1.0], [1.5, 0.5]], [[0.3, 1.0], [0.7, 2.0]]),
    _pair("LogNormal", [[0.1, -1.0], [1.5, 0.5]], [[0.3, 1.0], [0.7, 2.0]]),
    _pair("Gumbel", [[0.1, -1.0], [1.5, 0.5]], [[0.3, 1.0], [0.7, 2.0]]),
    _pair("Gamma", [[0.5, 3.0], [1.5, 0.5]], [[1.3, 1.0], [0.7, 2.0]]),
    _pair("Beta", [[0.5, 3.0], [1.5, 0.5]], [[1.3, 1.0], [0.7, 2.0]]),
    _pair("Dirichlet", [[[0.5, 3.0, 1.0]]], [[[1.5, 1.0, 1.0]]]),
    _pair("Poisson", [[0.5, 3.0]], [[1.5, 2.0]]),
    _pair("Geometric", [[0.3, 0.8]], [[0.5, 0.2]]),
    _pair(
        "MultivariateNormal",
        [[[0.1, -1.0], [0.0, 0.0]], COV],
        [[0.3, 1.0], [[1.0, -0.3], [-0.3, 0.5]]],
    ),
]


@pytest.mark.parametrize("family,p_args,q_args", KL_PAIRS, ids=[k[0] for k in KL_PAIRS])
def test_kl_divergence_matches_torch(family, p_args, q_args):
    out = []
    for lib in (torch, minitorch):
        C = getattr(lib.distributions, family)
        p = C(*[lib.tensor(a) for a in p_args])
        q = C(*[lib.tensor(a) for a in q_args])
        out.append(lib.distributions.kl_divergence(p, q).numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-9, equal_nan=True, err_msg=family)


def test_kl_independent_matches_torch():
    out = []
    for lib in (torch, minitorch):
        D = lib.distributions
        p = D.Independent(D.Normal(lib.tensor([[0.0, 1.0]]), lib.tensor([[1.0, 2.0]])), 1)
        q = D.Independent(D.Normal(lib.tensor([[1.0, 1.0]]), lib.tensor([[1.0, 3.0]])), 1)
        out.append(D.kl_divergence(p, q).numpy())
        assert repr(p).replace("minitorch", "torch")
    np.testing.assert_allclose(out[1], out[0], rtol=1e-6)


ERRORS = [
    ("normal_scale", lambda lib, D: D.Normal(0.0, -1.0)),
    ("normal_scale_vec", lambda lib, D: D.Normal(lib.zeros(2), lib.tensor([1.0, -1.0]))),
    ("bernoulli_none", lambda lib, D: D.Bernoulli()),
    ("bernoulli_both", lambda lib, D: D.Bernoulli(0.2, 0.1)),
    ("log_prob_number", lambda lib, D: D.Normal(0.0, 1.0).log_prob(1)),
    ("bernoulli_support", lambda lib, D: D.Bernoulli(0.3).log_prob(lib.tensor(0.5))),
    ("categorical_support", lambda lib, D: D.Categorical(lib.ones(3)).log_prob(lib.tensor(5))),
    ("broadcast", lambda lib, D: D.Normal(lib.zeros(2), lib.ones(2)).log_prob(lib.zeros(3))),
    (
        "event_shape",
        lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)),
    ),
    ("mvn_none", lambda lib, D: D.MultivariateNormal(lib.zeros(2))),
    ("mvn_0d_loc", lambda lib, D: D.MultivariateNormal(lib.tensor(0.0), lib.eye(2))),
    (
        "mvn_not_pd",
        lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    ),
    (
        "mvn_not_tril",
        lambda lib, D: D.MultivariateNormal(
            lib.zeros(2), scale_tril=lib.tensor([[1.0, 2.0], [2.0, 1.0]])
        ),
    ),
    ("uniform_order", lambda lib, D: D.Uniform(1.0, 0.0)),
    ("categorical_0d", lambda lib, D: D.Categorical(lib.tensor(1.0))),
    ("independent_ndims", lambda lib, D: D.Independent(D.Normal(0.0, 1.0), 1)),
    ("geometric_zero", lambda lib, D: D.Geometric(0.0)),
    ("dirichlet_negative", lambda lib, D: D.Dirichlet(lib.tensor([1.0, -1.0]))),
    ("binomial_count", lambda lib, D: D.Binomial(2.5, lib.tensor(0.3))),
    ("poisson_rate", lambda lib, D: D.Poisson(-1.0)),
    ("gamma_rate", lambda lib, D: D.Gamma(1.0, 0.0)),
    ("kl_unknown", lambda lib, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Cauchy(0.0, 1.0))),
    (
        "binomial_inhomogeneous",
        lambda lib, D: D.Binomial(lib.tensor([2.0, 3.0]), lib.tensor(0.3)).entropy(),
    ),
    (
        "independent_enumerate",
        lambda lib, D: D.Independent(D.Bernoulli(lib.ones(2) / 2), 1).enumerate_support(),
    ),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn):
    caught = []
    for lib in (torch, minitorch):
        with pytest.raises(Exception) as info:
            fn(lib, lib.distributions)
        caught.append(info.value)
    t_err, m_err = caught
    assert type(m_err).__name__ == type(t_err).__name__, (name, m_err, t_err)
    assert str(m_err).replace("minitorch", "torch") == str(t_err), name


def test_enumerate_support_matches_torch():
    for family, args in [
        ("Bernoulli", [_arr([0.2, 0.7])]),
        ("Categorical", [PROBS]),
        ("OneHotCategorical", [PROBS]),
        ("Binomial", [_arr([3.0, 3.0]), _arr([0.2, 0.7])]),
    ]:
        for expand in (True, False):
            t = getattr(TD, family)(*[torch.tensor(a) for a in args]).enumerate_support(expand)
            m = getattr(MD, family)(*[minitorch.tensor(a) for a in args]).enumerate_support(expand)
            assert tuple(m.shape) == tuple(t.shape), family
            assert str(m.dtype) == str(t.dtype), family
            np.testing.assert_array_equal(m.numpy(), t.numpy(), err_msg=family)


def test_expand_matches_torch():
    for lib in (torch, minitorch):
        D = lib.distributions
        d = D.Normal(lib.zeros(3), 1.0).expand((2, 3))
        assert tuple(d.batch_shape) == (2, 3)
        assert repr(d).replace("minitorch", "torch") == (
            "Normal(loc: torch.Size([2, 3]), scale: torch.Size([2, 3]))"
        )
        c = D.Categorical(lib.ones(2, 3)).expand((4, 2))
        assert tuple(c.log_prob(lib.zeros(4, 2)).shape) == (4, 2)
