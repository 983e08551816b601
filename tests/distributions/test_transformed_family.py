"""LogNormal, Gumbel, RelaxedBernoulli and RelaxedOneHotCategorical built as torch builds them
(TransformedDistributions of Normal / a clamped Uniform / LogitRelaxedBernoulli /
ExpRelaxedCategorical), the distribution submodules as package attributes, and sampling with
invalid parameters under validate_args=False."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch
import minitorch.distributions as D
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.distributions import transforms as T


def _t(a, dtype=minitorch.float64, requires_grad=False):
    return minitorch.tensor(np.asarray(a), dtype=dtype, requires_grad=requires_grad)


def _np(t):
    return t.detach().numpy()


# ---------------------------------------------------------------------------------------------
# structure


def test_families_are_transformed_distributions():
    from minitorch.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    from minitorch.distributions.relaxed_categorical import ExpRelaxedCategorical

    ln = D.LogNormal(_t([0.2]), _t([1.5]))
    assert isinstance(ln, D.TransformedDistribution)
    assert type(ln.base_dist) is D.Normal and ln.transforms == [T.ExpTransform()]

    g = D.Gumbel(_t([0.2]), _t([1.5]))
    assert isinstance(g, D.TransformedDistribution) and type(g.base_dist) is D.Uniform
    kinds = [type(t).__name__ for t in g.transforms]
    assert kinds == ["_InverseTransform", "AffineTransform", "_InverseTransform", "AffineTransform"]
    finfo = minitorch.finfo(minitorch.float64)
    np.testing.assert_array_equal(_np(g.base_dist.low), [finfo.tiny])
    np.testing.assert_array_equal(_np(g.base_dist.high), [1 - finfo.eps])

    rb = D.RelaxedBernoulli(_t(0.5), probs=_t([0.3]))
    assert isinstance(rb, D.TransformedDistribution)
    assert type(rb.base_dist) is LogitRelaxedBernoulli
    assert rb.transforms == [T.SigmoidTransform()]
    assert rb.base_dist.support is D.constraints.real and not LogitRelaxedBernoulli.has_rsample

    rc = D.RelaxedOneHotCategorical(_t(0.5), probs=_t([0.3, 0.7]))
    assert isinstance(rc, D.TransformedDistribution)
    assert type(rc.base_dist) is ExpRelaxedCategorical and rc.transforms == [T.ExpTransform()]
    assert rc.base_dist.event_shape == (2,) and rc.base_dist.has_rsample

    # expand keeps the family and expands the base
    for d in (ln, g, rb):
        e = d.expand((3, 1))
        assert type(e) is type(d) and e.batch_shape == (3, 1) and e.base_dist.batch_shape == (3, 1)
    e = rc.expand((4,))
    assert type(e) is D.RelaxedOneHotCategorical and e.base_dist.batch_shape == (4,)
    assert repr(ln) == "LogNormal()" and repr(rb) == "RelaxedBernoulli()"
    # as torch's, RelaxedBernoulli builds its base with the default validation
    with pytest.raises(ValueError, match="LogitRelaxedBernoulli"):
        D.RelaxedBernoulli(_t(0.5), probs=_t(1.5), validate_args=False)


def test_kl_lognormal_resolves_through_transformed_pair():
    # torch registers no (LogNormal, LogNormal) rule: any two TransformedDistributions with equal
    # transforms fall back to the KL of their bases, so a hand-built exp(Normal) works too
    p = D.LogNormal(_t([0.2, -1.0]), _t([1.5, 0.5]))
    q = D.TransformedDistribution(D.Normal(_t([0.0, 0.0]), _t([1.0, 2.0])), [T.ExpTransform()])
    kl = D.kl_divergence(p, q)
    expected = (
        np.log([1.0, 2.0] / np.array([1.5, 0.5]))
        + (np.array([1.5, 0.5]) ** 2 + np.array([0.2, -1.0]) ** 2) / (2 * np.array([1.0, 2.0]) ** 2)
        - 0.5
    )
    np.testing.assert_allclose(_np(kl), expected, rtol=1e-12, err_msg="KL(LogNormal || exp N)")
    np.testing.assert_allclose(
        _np(D.kl_divergence(q, p)), _np(D.kl_divergence(q.base_dist, p.base_dist))
    )


# ---------------------------------------------------------------------------------------------
# LogNormal: cdf at 0 (torch validates log(value) against the Normal's real support)


def test_lognormal_cdf_at_zero():
    d = D.LogNormal(_t(0.0), _t(1.0))
    x = _t([0.0, 1.0, 2.0])
    expected = [0.0, 0.5, 0.5 * (1 + math.erf(math.log(2.0) / math.sqrt(2)))]
    np.testing.assert_allclose(_np(d.cdf(x)), expected, rtol=1e-12, err_msg="LogNormal.cdf")
    np.testing.assert_allclose(_np(d.icdf(_t([0.0, 0.5]))), [0.0, 1.0], rtol=1e-12)
    with pytest.raises(ValueError, match="support"):
        d.cdf(_t([-1.0]))  # log(-1) is nan: outside the Normal's support
    with pytest.raises(ValueError, match="support"):
        d.log_prob(_t([0.0]))  # log_prob still checks the LogNormal's own (positive) support


def test_lognormal_gradients():
    loc, scale = _t([0.3, -0.5], requires_grad=True), _t([1.2, 0.7], requires_grad=True)
    x, p = _t([0.4, 2.5]), _t([0.2, 0.9])
    assert gradcheck(lambda m, s: D.LogNormal(m, s).cdf(x), (loc, scale))
    assert gradcheck(lambda m, s: D.LogNormal(m, s).icdf(p), (loc, scale))
    assert gradgradcheck(lambda m, s: D.LogNormal(m, s).log_prob(x), (loc, scale))


# ---------------------------------------------------------------------------------------------
# RelaxedBernoulli: SigmoidTransform clamps at finfo.tiny (not eps)


def test_relaxed_bernoulli_log_prob_clamps_at_tiny():
    d = D.RelaxedBernoulli(_t(0.5, minitorch.float32), probs=_t([0.3] * 3, minitorch.float32))
    lp = d.log_prob(_t([0.0, 1e-7, 1e-9], minitorch.float32))
    # torch 2.x's values; an eps clamp gives 8.1237 for all three
    np.testing.assert_allclose(
        _np(lp), [43.822426, 8.211724, 10.515636], rtol=1e-5, err_msg="RelaxedBernoulli.log_prob"
    )
    d64 = D.RelaxedBernoulli(_t(0.5), probs=_t([0.3]))
    np.testing.assert_allclose(_np(d64.log_prob(_t([1e-20]))), [23.180001609301048], rtol=1e-10)


def test_relaxed_bernoulli_sample_floor_is_tiny():
    minitorch.manual_seed(0)
    d = D.RelaxedBernoulli(_t(0.01, minitorch.float32), logits=_t([-50.0], minitorch.float32))
    assert d.sample().tolist() == [minitorch.finfo(minitorch.float32).tiny]


def test_relaxed_gradients():
    temperature = _t(0.6, requires_grad=True)
    probs = _t([0.2, 0.7], requires_grad=True)
    x = _t([0.3, 0.8])
    assert gradcheck(lambda t, p: D.RelaxedBernoulli(t, probs=p).log_prob(x), (temperature, probs))
    logits = _t([0.2, -0.3, 1.0], requires_grad=True)
    v = _t([0.2, 0.5, 0.3])
    assert gradgradcheck(
        lambda t, lg: D.RelaxedOneHotCategorical(t, logits=lg).log_prob(v), (temperature, logits)
    )


# ---------------------------------------------------------------------------------------------
# Gumbel: the clamped Uniform base gives finite icdf(0), icdf(1)


def test_gumbel_icdf_endpoints_are_finite():
    for dtype in (minitorch.float32, minitorch.float64):
        finfo = minitorch.finfo(dtype)
        d = D.Gumbel(_t(0.5, dtype), _t(2.0, dtype))
        expected = [
            0.5 - 2.0 * math.log(-math.log(finfo.tiny)),
            0.5 - 2.0 * math.log(-math.log1p(-finfo.eps)),
        ]
        got = d.icdf(_t([0.0, 1.0], dtype))
        np.testing.assert_allclose(_np(got), expected, rtol=1e-5, err_msg=str(dtype))
    # Python-number parameters: a 0-d float32 Uniform base
    np.testing.assert_allclose(
        D.Gumbel(0.0, 1.0).icdf(_t([0.0, 1.0], minitorch.float32)).tolist(),
        [-4.469769, 15.942385],
        rtol=1e-5,
    )


def test_gumbel_values_and_gradients():
    loc, scale = _t([0.2, -0.5], requires_grad=True), _t([1.5, 0.3], requires_grad=True)
    d = D.Gumbel(loc, scale)
    x = _t([0.5, -0.6])
    z = (np.array([0.5, -0.6]) - [0.2, -0.5]) / [1.5, 0.3]
    np.testing.assert_allclose(_np(d.log_prob(x)), -(z + np.exp(-z)) - np.log([1.5, 0.3]))
    np.testing.assert_allclose(_np(d.cdf(x)), np.exp(-np.exp(-z)), rtol=1e-12)
    np.testing.assert_allclose(_np(d.icdf(d.cdf(x))), [0.5, -0.6], rtol=1e-12)
    assert gradcheck(lambda m, s: D.Gumbel(m, s).cdf(x), (loc, scale))
    assert gradcheck(lambda m, s: D.Gumbel(m, s).icdf(_t([0.1, 0.8])), (loc, scale))
    # as torch's: cdf checks exp(-exp(-z)) against the base's [tiny, 1 - eps]
    with pytest.raises(ValueError, match="support"):
        D.Gumbel(0.0, 1.0).cdf(_t([20.0], minitorch.float32))
    out = D.Gumbel(0.0, 1.0, validate_args=False).cdf(_t([20.0, -10.0], minitorch.float32))
    assert out.tolist() == [1.0, 0.0]


# ---------------------------------------------------------------------------------------------
# submodules


def test_distribution_submodules_are_package_attributes():
    # a fresh interpreter: in this one another test may already have imported the submodules
    names = [
        "chi2", "half_cauchy", "half_normal", "inverse_gamma", "kumaraswamy", "log_normal",
        "logistic_normal", "one_hot_categorical", "pareto", "relaxed_bernoulli",
        "relaxed_categorical", "studentT", "weibull",
    ]  # fmt: skip
    code = (
        "import minitorch\n"
        f"print([m for m in {names!r} if not hasattr(minitorch.distributions, m)])\n"
        "print(minitorch.distributions.one_hot_categorical.OneHotCategorical.__name__)"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(minitorch.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.stdout.split() == ["[]", "OneHotCategorical"], out.stdout + out.stderr


# ---------------------------------------------------------------------------------------------
# sampling with invalid parameters (validate_args=False)


def test_normal_sample_rejects_negative_scale():
    d = D.Normal(minitorch.zeros(2), -minitorch.ones(2), validate_args=False)
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        d.sample()
    assert d.rsample().shape == (2,)  # torch's rsample does not check either
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        D.Normal(0.0, math.nan, validate_args=False).sample()
    minitorch.manual_seed(3)
    a = D.Normal(_t([1.0, 2.0]), _t([0.5, 3.0])).sample((2,))
    minitorch.manual_seed(3)
    b = D.Normal(_t([1.0, 2.0]), _t([0.5, 3.0])).rsample((2,))
    np.testing.assert_array_equal(_np(a), _np(b))
    assert not a.requires_grad


def test_gamma_sample_with_nonpositive_concentration_is_tiny():
    for dtype in (minitorch.float32, minitorch.float64):
        tiny = minitorch.finfo(dtype).tiny
        conc = _t([-1.0, 0.0, math.nan, 2.0], dtype)
        for method in ("sample", "rsample"):
            out = _np(getattr(D.Gamma(conc, 1.0, validate_args=False), method)((3,)))
            assert out.dtype == np.dtype(str(dtype).split(".")[-1])
            np.testing.assert_array_equal(out[:, :3], np.full((3, 3), tiny), err_msg=method)
            assert (out[:, 3] > tiny).all()
    out = D.Gamma(_t(-1.0), 1.0, validate_args=False).sample()
    assert out.shape == () and out.item() == minitorch.finfo(minitorch.float64).tiny


# ---------------------------------------------------------------------------------------------
# devices: the transformed families stay on the device and read nothing back to the host

_DEVICE_CASES = [
    ("LogNormal", lambda v: D.LogNormal(v, v + 1, validate_args=False)),
    ("Gumbel", lambda v: D.Gumbel(v, v + 1, validate_args=False)),
    ("RelaxedBernoulli", lambda v: D.RelaxedBernoulli(v + 1, probs=v + 0.2, validate_args=False)),
    (
        "RelaxedOneHotCategorical",
        lambda v: D.RelaxedOneHotCategorical(v[0] + 1, logits=v, validate_args=False),
    ),
]


@pytest.mark.parametrize("name,make", _DEVICE_CASES, ids=[c[0] for c in _DEVICE_CASES])
def test_device_and_no_host_transfers(device, name, make):
    from minitorch._backend.strict import count_transfers

    # torch builds RelaxedBernoulli's base with the default validation (validate_args is not
    # passed on), and validation reads the device: turn the default off around the checks
    default = D.Distribution._validate_args
    D.Distribution.set_default_validate_args(False)
    try:
        d = make(minitorch.tensor([0.1, 0.5], device=device))
        with count_transfers() as t:
            s = d.rsample((3,))
            lp = d.log_prob(s)
            if name in ("LogNormal", "Gumbel"):
                d.icdf(d.cdf(s))
                D.kl_divergence(d, d)
    finally:
        D.Distribution.set_default_validate_args(default)
    assert t.count == 0, f"{name}: {t.count} host transfers"
    assert str(s.device).startswith(device.split(":")[0]) and lp.device == s.device
