"""Session-23 distributions fuzz, a seeded slice against torch: statistics, log_prob at and
outside the support, gradients (first and second order), KL for registered pairs, and the
KL event-shape error texts."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


@pytest.fixture(autouse=True)
def _validation_on_in_both():
    # torch.compile turns torch's default argument validation off for the rest of the process
    # (a test of torch.compile that runs earlier leaves it so): both libraries validate here
    saved = (
        torch.distributions.Distribution._validate_args,
        minitorch.distributions.Distribution._validate_args,
    )
    torch.distributions.Distribution.set_default_validate_args(True)
    minitorch.distributions.Distribution.set_default_validate_args(True)
    yield
    torch.distributions.Distribution.set_default_validate_args(saved[0])
    minitorch.distributions.Distribution.set_default_validate_args(saved[1])


def _out(lib, fn, *args):
    """fn(*args), normalized: a tensor's dtype and values, or the exception's type and text."""
    try:
        r = fn(*args)
    except Exception as e:  # noqa: BLE001
        return ("exc", type(e).__name__, str(e).replace("minitorch.", "torch."))
    if isinstance(r, lib.Tensor):
        return ("val", str(r.dtype).replace("minitorch", "torch"), r.detach().cpu().numpy())
    if isinstance(r, tuple):
        return ("seq", tuple(_out(lib, lambda x: x, x) for x in r))
    return ("py", r)


def _same(a, b, tol=1e-7):
    assert a[0] == b[0], (a, b)
    if a[0] == "val":
        assert a[1] == b[1], (a[1], b[1])
        assert a[2].shape == b[2].shape
        np.testing.assert_allclose(b[2], a[2], rtol=tol, atol=tol, equal_nan=True)
    elif a[0] == "seq":
        assert len(a[1]) == len(b[1])
        for x, y in zip(a[1], b[1], strict=True):
            _same(x, y, tol)
    else:
        assert a == b


def _families(D, T, rng):
    def pos(*s):
        return T(rng.uniform(0.3, 3.0, size=s))

    def real(*s):
        return T(rng.normal(size=s))

    return {
        "Normal": lambda: D.Normal(real(3), pos(3)),
        "Gamma": lambda: D.Gamma(pos(2, 3), pos(3)),
        "Beta": lambda: D.Beta(pos(3), pos(3)),
        "StudentT": lambda: D.StudentT(pos(3), real(3), pos(3)),
        "Poisson": lambda: D.Poisson(pos(3)),
        "Binomial": lambda: D.Binomial(5, logits=real(3)),
        "NegativeBinomial": lambda: D.NegativeBinomial(pos(3), logits=real(3)),
        "Categorical": lambda: D.Categorical(logits=real(2, 4)),
        "Dirichlet": lambda: D.Dirichlet(pos(2, 3)),
        "Kumaraswamy": lambda: D.Kumaraswamy(pos(3), pos(3)),
        "ContinuousBernoulli": lambda: D.ContinuousBernoulli(logits=real(3)),
        "LowRankMVN": lambda: D.LowRankMultivariateNormal(real(2, 3), real(3, 2), pos(3)),
        "Wishart": lambda: D.Wishart(T(np.array([4.0, 5.0])), scale_tril=T(np.eye(3) * 1.5)),
    }


NAMES = list(_families(None, None, None))


def _make(lib, name, seed, grad=False):
    made = []

    def T(a):
        t = lib.tensor(a, dtype=lib.float64)
        if grad:
            t.requires_grad_(True)
        made.append(t)
        return t

    d = _families(lib.distributions, T, np.random.default_rng(seed))[name]()
    return d, made


def _stat(d, attr):
    return d.entropy() if attr == "entropy" else getattr(d, attr)


def _grads(lib, name, seed, x, order):
    d, ps = _make(lib, name, seed, grad=True)
    out = d.log_prob(lib.tensor(x)).sum() + d.entropy().sum()
    g = lib.autograd.grad(out, ps, create_graph=order == 2, allow_unused=True)
    if order == 1:
        return tuple(g)
    s = sum((t * t).sum() for t in g if t is not None and t.requires_grad)
    return tuple(lib.autograd.grad(s, ps, allow_unused=True))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("name", NAMES)
def test_statistics_log_prob_and_grads_match_torch(name, seed):
    dt, _ = _make(torch, name, seed)
    dm, _ = _make(minitorch, name, seed)
    torch.manual_seed(seed)
    x = dt.sample((2,)).numpy()
    for attr in ("mean", "variance", "entropy"):
        _same(_out(torch, _stat, dt, attr), _out(minitorch, _stat, dm, attr))
    for v in (x, x + 0.5, -np.abs(x) - 0.5):
        _same(
            _out(torch, dt.log_prob, torch.tensor(v)),
            _out(minitorch, dm.log_prob, minitorch.tensor(v)),
        )
    for order in (1, 2):
        _same(
            _out(torch, _grads, torch, name, seed, x, order),
            _out(minitorch, _grads, minitorch, name, seed, x, order),
            1e-6,
        )


def _kl(lib, a, b, grad):
    p, ps = _make(lib, a, 7, grad)
    q, qs = _make(lib, b, 8, grad)
    out = lib.distributions.kl_divergence(p, q)
    if not grad:
        return out
    return tuple(lib.autograd.grad(out.sum(), ps + qs, allow_unused=True))


@pytest.mark.parametrize(
    "a,b",
    [
        ("Normal", "Normal"),
        ("Gamma", "Gamma"),
        ("Beta", "Beta"),
        ("Poisson", "Poisson"),
        ("Categorical", "Categorical"),
        ("Dirichlet", "Dirichlet"),
        ("ContinuousBernoulli", "ContinuousBernoulli"),
        ("LowRankMVN", "LowRankMVN"),
        ("Wishart", "Wishart"),
        ("Beta", "Normal"),
        ("Gamma", "Normal"),
        ("Normal", "Gamma"),
        ("StudentT", "StudentT"),
    ],
)
def test_kl_registered_pairs_and_grads_match_torch(a, b):
    _same(_out(torch, _kl, torch, a, b, False), _out(minitorch, _kl, minitorch, a, b, False))
    _same(_out(torch, _kl, torch, a, b, True), _out(minitorch, _kl, minitorch, a, b, True), 1e-6)


def _errors(lib):
    D = lib.distributions
    mvn2 = D.MultivariateNormal(lib.zeros(2), lib.eye(2))
    mvn3 = D.MultivariateNormal(lib.zeros(3), lib.eye(3))
    lr2 = D.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(2))
    lr3 = D.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3, 1), lib.ones(3))
    outs = [_out(lib, D.kl_divergence, p, q) for p, q in ((mvn2, mvn3), (mvn2, lr3), (lr2, lr3))]
    outs.append(_out(lib, D.Poisson(lib.tensor([1.5, 2.0]), validate_args=False).log_prob, 2.0))
    return outs


def test_kl_event_shape_errors_and_poisson_number_value_match_torch():
    for a, b in zip(_errors(torch), _errors(minitorch), strict=True):
        _same(a, b)
