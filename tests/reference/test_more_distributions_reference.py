"""Multinomial, MixtureSameFamily, LowRankMultivariateNormal and every KL pair torch registers
between families minitorch has, against torch: the same float64 parameters give the same
log_prob, entropy, mean, variance, matrices, cdf and KL values (inf and errors included), and
samples of the same shape and dtype."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _arr(*v):
    return np.array(v, dtype=np.float64)


def _close(got, expected, name):
    got, expected = got.detach().numpy(), expected.detach().numpy()
    assert got.dtype == expected.dtype, f"{name} dtype {got.dtype} vs {expected.dtype}"
    assert got.shape == expected.shape, f"{name} shape {got.shape} vs {expected.shape}"
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12, equal_nan=True, err_msg=name)


RNG = np.random.default_rng(0)
PROBS = RNG.uniform(0.1, 1.0, size=(2, 4))
LOC, W, DIAG = RNG.normal(size=(2, 4)), RNG.normal(size=(2, 4, 2)), RNG.uniform(0.5, 2, size=4)
MIX_W, MIX_MU, MIX_SD = (
    RNG.uniform(size=(2, 3)),
    RNG.normal(size=(2, 3)),
    RNG.uniform(0.5, 2, (2, 3)),
)


def _multinomial(lib, n=5, logits=False):
    D = lib.distributions
    if logits:
        return D.Multinomial(n, logits=lib.tensor(np.log(PROBS)))
    return D.Multinomial(n, lib.tensor(PROBS))


def _lowrank(lib):
    D = lib.distributions
    return D.LowRankMultivariateNormal(lib.tensor(LOC), lib.tensor(W), lib.tensor(DIAG))


def _gmm(lib):
    D = lib.distributions
    return D.MixtureSameFamily(
        D.Categorical(lib.tensor(MIX_W)), D.Normal(lib.tensor(MIX_MU), lib.tensor(MIX_SD))
    )


def _gmm_event(lib):
    D = lib.distributions
    comp = D.Independent(D.Normal(lib.tensor(RNG_MU), lib.tensor(RNG_SD)), 1)
    return D.MixtureSameFamily(D.Categorical(lib.tensor(MIX_W[0])), comp)


RNG_MU, RNG_SD = np.random.default_rng(1).normal(size=(3, 2)), np.full((3, 2), 0.8)

# name, builder, value for log_prob, attributes to compare
CASES = [
    (
        "Multinomial",
        _multinomial,
        [[1.0, 2.0, 0.0, 2.0], [0.0, 0.0, 5.0, 0.0]],
        ("mean", "variance"),
    ),
    (
        "MultinomialLogits",
        lambda lib: _multinomial(lib, 3, logits=True),
        [[1.0, 1.0, 0.0, 1.0]],
        ("mean", "variance", "probs", "logits"),
    ),
    ("Multinomial20", lambda lib: _multinomial(lib, 20), [[5.0, 5.0, 5.0, 5.0]], ("mean",)),
    (
        "LowRankMVN",
        _lowrank,
        RNG.normal(size=(3, 2, 4)),
        ("mean", "mode", "variance", "covariance_matrix", "precision_matrix", "scale_tril"),
    ),
    ("MixtureNormal", _gmm, RNG.normal(size=(5, 2)), ("mean", "variance")),
    ("MixtureIndependent", _gmm_event, RNG.normal(size=(5, 2)), ("mean", "variance")),
]


@pytest.mark.parametrize("name,build,value,attrs", CASES, ids=[c[0] for c in CASES])
def test_statistics_match_torch(name, build, value, attrs):
    td, md = build(torch), build(minitorch)
    assert tuple(md.batch_shape) == tuple(td.batch_shape)
    assert tuple(md.event_shape) == tuple(td.event_shape)
    assert md.has_rsample == td.has_rsample
    assert repr(md) == repr(td)
    assert repr(md.support) == repr(td.support)
    v = np.asarray(value, dtype=np.float64)
    _close(md.log_prob(minitorch.tensor(v)), td.log_prob(torch.tensor(v)), f"{name}.log_prob")
    for attr in attrs:
        _close(getattr(md, attr), getattr(td, attr), f"{name}.{attr}")
    if not name.startswith("Mixture"):
        _close(md.entropy(), td.entropy(), f"{name}.entropy")
    if name == "MixtureNormal":
        _close(md.cdf(minitorch.tensor(v)), td.cdf(torch.tensor(v)), f"{name}.cdf")
    for shape in ((), (3,), (2, 1)):
        ts, ms = td.sample(shape), md.sample(shape)
        assert tuple(ms.shape) == tuple(ts.shape), f"{name} sample{shape}"
        assert str(ms.dtype) == str(ts.dtype)
    ex_t, ex_m = td.expand((3,) + tuple(td.batch_shape)), md.expand((3,) + tuple(md.batch_shape))
    assert tuple(ex_m.sample().shape) == tuple(ex_t.sample().shape)
    one = v.reshape((-1,) + tuple(td.event_shape))[0]  # one event broadcasts over any batch
    _close(ex_m.log_prob(minitorch.tensor(one)), ex_t.log_prob(torch.tensor(one)), f"{name} expand")


def test_log_prob_gradients_match_torch():
    grads = []
    x = RNG.normal(size=(3, 2, 4))
    for lib in (torch, minitorch):
        params = [lib.tensor(a, requires_grad=True) for a in (LOC, W, DIAG)]
        d = lib.distributions.LowRankMultivariateNormal(*params)
        (d.log_prob(lib.tensor(x)).sum() + d.entropy().sum()).backward()
        grads.append([p.grad.numpy() for p in params])
    for got, expected in zip(grads[1], grads[0], strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)
    grads = []
    for lib in (torch, minitorch):
        params = [lib.tensor(a, requires_grad=True) for a in (MIX_W, MIX_MU, MIX_SD)]
        D = lib.distributions
        d = D.MixtureSameFamily(D.Categorical(params[0]), D.Normal(params[1], params[2]))
        d.log_prob(lib.tensor(x[:, :, 0])).sum().backward()
        grads.append([p.grad.numpy() for p in params])
    for got, expected in zip(grads[1], grads[0], strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-12)


def test_multinomial_errors_match_torch():
    for lib in (torch, minitorch):
        D = lib.distributions
        with pytest.raises(NotImplementedError, match="inhomogeneous total_count"):
            D.Multinomial(lib.tensor(3.0), lib.tensor(PROBS))
        with pytest.raises(ValueError, match="Simplex"):
            D.Multinomial(3, lib.tensor([0.2, -0.8]))
        with pytest.raises(ValueError, match="support"):
            D.Multinomial(3, lib.tensor(PROBS)).log_prob(lib.tensor([1.0, -2.0, 1.0, 1.0]))
        with pytest.raises(RuntimeError, match="n_sample <= 0"):
            D.Multinomial(0, lib.tensor(PROBS)).sample()


# ---------------------------------------------------------------------------------------------
# KL divergences: every pair torch registers between families minitorch has

PARAMS = {
    "Bernoulli": [_arr(0.3, 0.8)],
    "Beta": [_arr(0.5, 3.0), _arr(1.5, 0.5)],
    "Binomial": [_arr(5.0, 5.0), _arr(0.3, 0.8)],
    "Categorical": [_arr(0.2, 0.3, 0.5)],
    "Cauchy": [_arr(0.1, -1.0), _arr(1.5, 0.5)],
    "Dirichlet": [_arr(0.5, 3.0, 1.0)],
    "Exponential": [_arr(0.5, 2.0)],
    "Gamma": [_arr(0.5, 3.0), _arr(1.5, 0.5)],
    "Geometric": [_arr(0.3, 0.8)],
    "Gumbel": [_arr(0.1, -1.0), _arr(1.5, 0.5)],
    "HalfNormal": [_arr(1.5, 0.5)],
    "Laplace": [_arr(0.1, -1.0), _arr(1.5, 0.5)],
    "Normal": [_arr(0.1, -1.0), _arr(1.5, 0.5)],
    "OneHotCategorical": [_arr(0.2, 0.3, 0.5)],
    "Pareto": [_arr(1.5, 0.5), _arr(2.5, 3.0)],
    "Poisson": [_arr(0.5, 3.0)],
    "Uniform": [_arr(0.1, -1.0), _arr(0.9, 2.0)],
}
# second parameter sets: inside the unit interval, Pareto alpha <= 1 and <= 2, etc.
ALT = {
    "Beta": [_arr(2.0, 1.0), _arr(1.0, 3.0)],
    "Uniform": [_arr(0.2, 0.3), _arr(0.7, 0.9)],
    "Pareto": [_arr(1.0, 0.5), _arr(0.8, 3.0)],
    "Binomial": [_arr(5.0, 5.0), _arr(0.6, 0.4)],
    "Normal": [_arr(0.5, -2.0), _arr(0.7, 1.5)],
    "Exponential": [_arr(1.5, 0.7)],
    "Gamma": [_arr(2.0, 1.0), _arr(0.5, 1.5)],
}


def _pairs():
    registry = torch.distributions.kl._KL_REGISTRY
    out = []
    for p, q in registry:
        if p.__name__ in PARAMS and q.__name__ in PARAMS:
            out.append((p.__name__, q.__name__))
    return sorted(set(out))


def _make(lib, family, params):
    return getattr(lib.distributions, family)(*[lib.tensor(a) for a in params])


def _kl_or_error(lib, p, q):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return lib.distributions.kl_divergence(p, q)
        except (NotImplementedError, ValueError) as e:
            return type(e)


@pytest.mark.parametrize("p_family,q_family", _pairs(), ids=lambda n: n)
def test_kl_matches_torch(p_family, q_family):
    for pp in (PARAMS[p_family], ALT.get(p_family, PARAMS[p_family])):
        for qp in (PARAMS[q_family], ALT.get(q_family, PARAMS[q_family])):
            expected = _kl_or_error(torch, _make(torch, p_family, pp), _make(torch, q_family, qp))
            got = _kl_or_error(
                minitorch, _make(minitorch, p_family, pp), _make(minitorch, q_family, qp)
            )
            if isinstance(expected, type) or isinstance(got, type):
                assert got is expected, f"{p_family}->{q_family}: {got} vs {expected}"
                continue
            _close(got, expected, f"KL({p_family} || {q_family}) {pp} {qp}")


def test_kl_lowrank_pairs_match_torch():
    rng = np.random.default_rng(5)
    L = np.tril(rng.normal(size=(4, 4))) + 3 * np.eye(4)
    q_loc, q_w, q_d = rng.normal(size=4), rng.normal(size=(4, 3)), rng.uniform(0.5, 2.0, size=4)

    def build(lib):
        D = lib.distributions
        lr = D.LowRankMultivariateNormal(lib.tensor(LOC), lib.tensor(W), lib.tensor(DIAG))
        lr2 = D.LowRankMultivariateNormal(lib.tensor(q_loc), lib.tensor(q_w), lib.tensor(q_d))
        mvn = D.MultivariateNormal(lib.tensor(q_loc), scale_tril=lib.tensor(L))
        return [(lr, lr2), (lr2, lr), (lr, mvn), (mvn, lr)]

    for (tp, tq), (mp, mq) in zip(build(torch), build(minitorch), strict=True):
        name = f"KL({type(mp).__name__} || {type(mq).__name__})"
        _close(
            minitorch.distributions.kl_divergence(mp, mq),
            torch.distributions.kl_divergence(tp, tq),
            name,
        )


def test_kl_binomial_total_count_errors_match_torch():
    for lib in (torch, minitorch):
        D = lib.distributions
        small = D.Binomial(lib.tensor([3.0, 5.0]), lib.tensor([0.3, 0.4]))
        big = D.Binomial(lib.tensor([4.0, 5.0]), lib.tensor([0.3, 0.4]))
        with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
            D.kl_divergence(small, big)
    got = minitorch.distributions.kl_divergence(
        minitorch.distributions.Binomial(
            minitorch.tensor([6.0, 5.0]), minitorch.tensor([0.3, 0.4])
        ),
        minitorch.distributions.Binomial(
            minitorch.tensor([4.0, 5.0]), minitorch.tensor([0.3, 0.4])
        ),
    )
    expected = torch.distributions.kl_divergence(
        torch.distributions.Binomial(torch.tensor([6.0, 5.0]), torch.tensor([0.3, 0.4])),
        torch.distributions.Binomial(torch.tensor([4.0, 5.0]), torch.tensor([0.3, 0.4])),
    )
    _close(got, expected, "KL(Binomial || Binomial) inf")


def test_negative_binomial_matches_torch():
    kw = dict(total_count=[3.0, 0.5, 0.0], probs=[0.3, 0.7, 0.2])
    v = [[0.0], [2.0], [5.0]]
    ours = minitorch.distributions.NegativeBinomial(
        *(minitorch.tensor(kw[k], dtype=minitorch.float64) for k in ("total_count",)),
        probs=minitorch.tensor(kw["probs"], dtype=minitorch.float64),
    )
    theirs = torch.distributions.NegativeBinomial(
        torch.tensor(kw["total_count"], dtype=torch.float64),
        probs=torch.tensor(kw["probs"], dtype=torch.float64),
    )
    np.testing.assert_allclose(
        ours.log_prob(minitorch.tensor(v, dtype=minitorch.float64)).numpy(),
        theirs.log_prob(torch.tensor(v, dtype=torch.float64)).numpy(),
        rtol=1e-10,
    )
    for name in ("mean", "variance", "mode"):
        np.testing.assert_allclose(
            getattr(ours, name).numpy(), getattr(theirs, name).numpy(), rtol=1e-10, err_msg=name
        )
