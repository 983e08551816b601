"""Session 21, h10: a seeded slice of the distributions differential fuzzer against torch.

Every family is built from the same random parameters in both libraries; the statistics,
log_prob/cdf/icdf (in and out of the support, validated or not), the float64 gradients of
log_prob, the moments at their poles and kl_divergence over all pairs must agree: values,
dtypes, shapes, and exception types and messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

_SCALAR = {
    "Normal": ("real", "pos"),
    "Laplace": ("real", "pos"),
    "Cauchy": ("real", "pos"),
    "Gumbel": ("real", "pos"),
    "LogNormal": ("real", "pos"),
    "Gamma": ("pos", "pos"),
    "Beta": ("pos", "pos"),
    "Kumaraswamy": ("pos", "pos"),
    "InverseGamma": ("pos", "pos"),
    "Pareto": ("pos", "df"),
    "Weibull": ("pos", "pos"),
    "FisherSnedecor": ("df", "df"),
    "StudentT": ("df", "real", "pos"),
    "VonMises": ("real", "pos"),
    "Chi2": ("df",),
    "Exponential": ("pos",),
    "Poisson": ("pos",),
    "HalfNormal": ("pos",),
    "HalfCauchy": ("pos",),
    "Bernoulli": ("prob",),
    "Geometric": ("prob",),
    "ContinuousBernoulli": ("prob",),
}


def _param(rng, kind, shape):
    if kind == "real":
        return rng.normal(size=shape) * 2
    if kind == "pos":
        return np.exp(rng.normal(size=shape) * 0.8)
    if kind == "df":  # includes the poles of the moments
        return rng.choice([1.0, 2.0, 4.0, 0.5, 7.5], size=shape)
    return rng.uniform(0.05, 0.95, size=shape)


def _outcome(f):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", f()
    except Exception as e:  # noqa: BLE001
        return "err", (type(e).__name__, str(e).replace("minitorch", "torch"))


def _same(got, expected, name, rtol=1e-7):
    assert got[0] == expected[0], f"{name}: {got} vs {expected}"
    if got[0] == "err":
        assert got[1] == expected[1], name
        return
    g, e = got[1], expected[1]
    if isinstance(e, tuple):
        assert len(g) == len(e), name
        for i, (a, b) in enumerate(zip(g, e, strict=True)):
            _same(("ok", a), ("ok", b), f"{name}[{i}]", rtol)
        return
    if isinstance(e, torch.Tensor):
        assert str(g.dtype) == str(e.dtype), f"{name}: {g.dtype} vs {e.dtype}"
        assert tuple(g.shape) == tuple(e.shape), f"{name}: {g.shape} vs {e.shape}"
        if e.dtype == torch.float32:
            rtol = max(rtol, 2e-4)
        np.testing.assert_allclose(
            g.detach().numpy(), e.detach().numpy(), rtol=rtol, atol=1e-10, err_msg=name
        )
        return
    assert str(g).replace("minitorch", "torch") == str(e), name


def _build(lib, name, params, requires_grad=False):
    ts = []
    for p in params:
        t = lib.tensor(p)
        if requires_grad:
            t.requires_grad_(True)
        ts.append(t)
    return getattr(lib.distributions, name)(*ts, validate_args=False), ts


@pytest.mark.parametrize("name", sorted(_SCALAR))
def test_scalar_families_match_torch(name):
    rng = np.random.default_rng(sorted(_SCALAR).index(name) + 21)
    for case in range(4):
        _check_case(name, rng, case)


def _check_case(name, rng, case):
    dtype = np.float64 if case % 2 == 0 else np.float32
    batch = [(), (3,), (2, 3), (1, 3)][case]
    params = [_param(rng, k, batch).astype(dtype) for k in _SCALAR[name]]
    dt, _ = _build(torch, name, params)
    dm, _ = _build(minitorch, name, params)
    for attr in ("batch_shape", "event_shape", "mean", "mode", "variance", "stddev"):
        _same(
            _outcome(lambda a=attr: getattr(dm, a)),
            _outcome(lambda a=attr: getattr(dt, a)),
            f"{name}.{attr}",
        )
    _same(_outcome(dm.entropy), _outcome(dt.entropy), f"{name}.entropy")
    torch.manual_seed(case)
    inside = dt.sample((2,)).numpy()
    outside = rng.choice([-1.0, 0.0, 0.5, 1.0, 2.5], size=batch).astype(dtype)
    for value in (inside, outside):
        for validate in (True, False):
            dt._validate_args = dm._validate_args = validate
            for fn in ("log_prob", "cdf"):
                _same(
                    _outcome(lambda f=fn, v=value: getattr(dm, f)(minitorch.tensor(v))),
                    _outcome(lambda f=fn, v=value: getattr(dt, f)(torch.tensor(v))),
                    f"{name}.{fn} validate={validate}",
                )
    q = rng.uniform(0.05, 0.95, size=batch).astype(dtype)
    _same(
        _outcome(lambda q=q: dm.icdf(minitorch.tensor(q))),
        _outcome(lambda q=q: dt.icdf(torch.tensor(q))),
        f"{name}.icdf",
    )
    if dtype == np.float64:
        params64 = [p.astype(np.float64) for p in params]
        for what in ("log_prob", "moments"):

            def grads(lib, what=what, params64=params64, value=inside):
                d, leaves = _build(lib, name, params64, requires_grad=True)
                if what == "log_prob":
                    out = d.log_prob(lib.tensor(value))
                else:
                    out = _outcome(lambda: d.mean + d.variance)
                    if out[0] == "err":
                        return ()
                    out = out[1]
                out = out[out.isfinite()] if out.dim() else out
                gs = lib.autograd.grad(out.sum(), leaves, allow_unused=True)
                return tuple(lib.zeros((), dtype=lib.float64) if g is None else g for g in gs)

            _same(
                _outcome(lambda g=grads: g(minitorch)),
                _outcome(lambda g=grads: g(torch)),
                f"{name}.grad {what}",
                rtol=1e-6,
            )


def _kl_family(lib, name, rng_seed, batch):
    rng = np.random.default_rng(rng_seed)
    params = [_param(rng, k, batch) for k in _SCALAR[name]]
    return _build(lib, name, params)[0]


def test_kl_all_scalar_pairs_match_torch():
    names = sorted(_SCALAR)
    for i, p in enumerate(names):
        for j, q in enumerate(names):
            seed = 100 * i + j
            got = _outcome(
                lambda p=p, q=q, s=seed: minitorch.distributions.kl_divergence(
                    _kl_family(minitorch, p, s, (3,)), _kl_family(minitorch, q, s + 1, (3,))
                )
            )
            expected = _outcome(
                lambda p=p, q=q, s=seed: torch.distributions.kl_divergence(
                    _kl_family(torch, p, s, (3,)), _kl_family(torch, q, s + 1, (3,))
                )
            )
            _same(got, expected, f"kl({p} || {q})")


def test_transform_errors_match_torch():
    def run(lib):
        T = lib.distributions.transforms
        cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 2])
        stack = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0)
        return [
            _outcome(lambda: cat(lib.zeros(2))),
            _outcome(lambda: stack(lib.zeros(3))),
            _outcome(lambda: T.StackTransform([T.ExpTransform()], dim=3)(lib.zeros(2))),
            _outcome(
                lambda: lib.distributions.constraints.independent(
                    lib.distributions.constraints.positive, 3
                ).check(lib.ones(2, 2))
            ),
            _outcome(lambda: repr(lib.distributions.constraints.Constraint())),
        ]

    for k, (got, expected) in enumerate(zip(run(minitorch), run(torch), strict=True)):
        _same(got, expected, f"case {k}")
