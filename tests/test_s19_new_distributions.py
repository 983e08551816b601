"""ContinuousBernoulli and VonMises (torch.distributions names minitorch lacked): values, dtypes,
gradients, sampling laws, expand, validation errors and ContinuousBernoulli's KL pairs. Expected
values were printed by torch 2.13 for the same calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck

D = minitorch.distributions
f64 = minitorch.float64


def _t(values, dtype=f64, **kw):
    return minitorch.tensor(values, dtype=dtype, **kw)


def _close(actual, expected, dtype=f64, tol=1e-12):
    assert actual.dtype == dtype
    np.testing.assert_allclose(actual.detach().numpy(), np.array(expected), rtol=tol, atol=tol)


# --- ContinuousBernoulli ---

_P = [0.1, 0.3, 0.4995, 0.5, 0.7, 0.95]  # 0.4995 and 0.5 take the Taylor branch
_V = [0.0, 0.25, 0.6, 0.9, 1.0, 0.5]
_CB_EXPECTED = {
    "mean": [0.33011961331341877, 0.43022250114382865, 0.4998333332888889, 0.5,
             0.5697774988561712, 0.7159322836604469],
    "variance": [0.06650886242255583, 0.08042515220619428, 0.08333331666667512,
                 0.08333333333333333, 0.0804251522061945, 0.05670199150409691],
    "stddev": [0.2578931220923812, 0.28359328660282895, 0.28867510572731264,
               0.28867513459481287, 0.28359328660282934, 0.23812179972463024],
    "logits": [-2.197224577336219, -0.8472978603872038, -0.0020000006666670567, 0.0,
               0.8472978603872034, 2.9444389791664394],
}  # fmt: skip


@pytest.mark.parametrize("attr", sorted(_CB_EXPECTED))
def test_continuous_bernoulli_moments(attr):
    _close(getattr(D.ContinuousBernoulli(_t(_P)), attr), _CB_EXPECTED[attr])


@pytest.mark.parametrize(
    "fn, expected",
    [
        ("entropy", [-0.17963111600005513, -0.02938620223212912, -1.666667611699424e-07, 0.0,
                     -0.029386202232128955, -0.29756546407938256]),
        ("log_prob", [0.9049780438330277, 0.1820883418449255, -0.00020016673343892233, 0.0,
                      0.39391280694172637, -0.338233968790862]),
        ("cdf", [0.0, 0.33406325475211274, 0.6, 0.9, 1.0, 0.18660549686337088]),
        ("icdf", [0.0, 0.1819321008987484, 0.6, 0.9, 1.0, 0.7820114830995406]),
    ],
)  # fmt: skip
def test_continuous_bernoulli_functions(fn, expected):
    d = D.ContinuousBernoulli(_t(_P))
    out = d.entropy() if fn == "entropy" else getattr(d, fn)(_t(_V))
    _close(out, expected)


def test_continuous_bernoulli_from_logits():
    d = D.ContinuousBernoulli(logits=_t([-2.0, -0.0005, 0.0, 0.8]))
    _close(d.probs, [0.11920292202211755, 0.49987500000260415, 0.5, 0.6899744811276125])
    _close(d.mean, [0.3434823572503344, 0.4999583333335069, 0.5, 0.5659662209160943])
    _close(d.variance, [0.06898458475842237, 0.08333333229166674, 0.08333333333333333,
                        0.08073290540781364])  # fmt: skip
    _close(d.entropy(), [-0.15159592392813556, -1.0416666640367112e-08, 0.0,
                         -0.026247104607641125])  # fmt: skip
    _close(d.log_prob(_t([0.2, 0.4, 0.6, 0.8])),
           [0.4385606384288042, 4.9989583333354126e-05, 0.0, 0.2134741278747656])  # fmt: skip


def test_continuous_bernoulli_float32():
    d = D.ContinuousBernoulli(_t([0.1, 0.3, 0.5, 0.7], minitorch.float32))
    f32 = minitorch.float32
    _close(d.mean, [0.33011960983276367, 0.43022245168685913, 0.5, 0.5697776079177856], f32, 1e-6)
    lp = d.log_prob(_t([0.2, 0.4, 0.6, 0.8], f32))
    _close(lp, [0.46553313732147217, 0.05499374866485596, 0.0, 0.22445327043533325], f32, 1e-6)
    assert D.ContinuousBernoulli(0.3).batch_shape == minitorch.Size([])
    assert D.ContinuousBernoulli(0.3).probs.dtype == f32


@pytest.mark.parametrize("fn", ["log_prob", "entropy", "mean", "variance", "cdf", "icdf"])
def test_continuous_bernoulli_gradcheck(fn):
    value = _t([0.1, 0.3, 0.5, 0.8])

    def f(probs):
        d = D.ContinuousBernoulli(probs)
        if fn in ("mean", "variance"):
            return getattr(d, fn)
        return d.entropy() if fn == "entropy" else getattr(d, fn)(value)

    assert gradcheck(f, (_t([0.2, 0.4995, 0.7, 0.9], requires_grad=True),))


def test_continuous_bernoulli_sample_expand():
    minitorch.manual_seed(0)
    probs = _t([0.2, 0.8], minitorch.float32, requires_grad=True)
    d = D.ContinuousBernoulli(probs)
    assert d.has_rsample
    r = d.rsample((4000,))
    assert r.shape == (4000, 2) and r.dtype == minitorch.float32 and r.requires_grad
    s = d.sample((3,))
    assert s.shape == (3, 2) and not s.requires_grad
    a = r.detach().numpy()
    assert (a >= 0).all() and (a <= 1).all()
    np.testing.assert_allclose(a.mean(0), [0.3880, 0.6120], atol=0.02)
    e = D.ContinuousBernoulli(_t([0.3]), lims=(0.2, 0.8)).expand((3, 1))
    assert e.batch_shape == (3, 1) and e._lims == (0.2, 0.8)
    _close(e.mean, [[0.5 + (1 / 3 + 16 / 45 * 0.04) * -0.2]] * 3)  # the Taylor branch of lims


def test_continuous_bernoulli_errors():
    with pytest.raises(ValueError, match="^The parameter probs has invalid values$"):
        D.ContinuousBernoulli(_t([1.5]), validate_args=False)  # checked whenever given
    _close(D.ContinuousBernoulli(_t([1.5])).probs, [1 - 2**-52])  # otherwise clamped
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.ContinuousBernoulli()
    d = D.ContinuousBernoulli(_t([0.3]), validate_args=True)
    with pytest.raises(ValueError, match=r"to be within the support \(Interval\(lower_bound=0.0"):
        d.log_prob(_t([1.5]))
    with pytest.raises(NotImplementedError, match="does not implement mode"):
        _ = d.mode
    assert "ContinuousBernoulli" in D.__all__ and "VonMises" in D.__all__


def _q():
    return D.ContinuousBernoulli(_t([0.3, 0.6, 0.5]))


def _p():
    return D.ContinuousBernoulli(_t([0.2, 0.5, 0.8]))


@pytest.mark.parametrize(
    "pair, expected",
    [
        (lambda: (_p(), _q()), [0.01126523640078858, 0.006840721103852643, 0.07641445280335879]),
        (lambda: (D.Beta(_t([1.5, 2.0, 0.7]), _t([2.0, 1.0, 3.0])), _q()),
         [0.07726504861214212, 0.13241038364577062, 0.7014726189655215]),
        (lambda: (D.Uniform(_t([0.0, 0.1, -0.1]), _t([1.0, 0.5, 0.5])), _q()),
         [math.inf, 1.0042244745996405, math.inf]),
        (lambda: (_p(), D.Uniform(_t([0.0, -0.1, 0.2]), _t([1.0, 1.5, 1.0]))),
         [math.inf, 0.47000362924573563, math.inf]),
        (lambda: (_p(), D.Exponential(_t([1.0, 2.0, 0.5]))),
         [0.4644286399145073, 0.3068528194400547, 1.07555453980773]),
        (lambda: (_p(), D.Normal(_t([0.0, 0.5, -1.0]), _t([1.0, 0.3, 2.0]))),
         [1.108579391111273, 0.17792869184169935, 2.022799674288213]),
        (lambda: (_p(), D.Pareto(_t([1.0, 2.0, 3.0]), _t([1.0, 2.0, 3.0]))), [math.inf] * 3),
        (lambda: (D.Gamma(_t([1.0, 2.0, 3.0]), _t([1.0, 2.0, 0.5])), _q()), [math.inf] * 3),
        (lambda: (D.Normal(_t([0.0, 1.0, 2.0]), _t([1.0, 1.0, 1.0])), _q()), [math.inf] * 3),
    ],
)  # fmt: skip
def test_continuous_bernoulli_kl(pair, expected):
    p, q = pair()
    _close(D.kl_divergence(p, q), expected)


# --- VonMises ---

_K = [0.01, 0.5, 2.0, 3.75, 5.0, 50.0]  # both sides of the Bessel approximations' 3.75 split
_LOC = [0.0, 1.0, -2.5, 0.3, 3.0, -1.0]


def test_von_mises_values():
    d = D.VonMises(_t(_LOC), _t(_K))
    assert not d.has_rsample
    _close(d.mean, _LOC)
    _close(d.mode, _LOC)
    _close(
        d.variance,
        [
            0.9950000624989057,
            0.7575003832967004,
            0.3022253424022666,
            0.14682956159041904,
            0.10661687617139548,
            0.010050398295787244,
        ],
    )
    _close(
        d.stddev,
        [
            0.9974968984908703,
            0.8703449794746336,
            0.5497502545722618,
            0.38318345683291055,
            0.3265223976565704,
            0.1002516747779669,
        ],
    )
    lp = d.log_prob(_t([0.3, -3.0, 10.0, 0.3, -3.1, -1.2]))
    _close(lp, [-1.82834870134691, -2.2262485708765296, -0.6662740517109565,
                -0.2982312929605082, -0.22621665261773716, 0.037876620181620524])  # fmt: skip
    f32 = minitorch.float32
    d32 = D.VonMises(_t([0.0, 1.0], f32), _t([0.5, 5.0], f32))
    _close(d32.log_prob(_t([0.2, 1.5], f32)), [-1.4093934297561646, -0.7546460628509521], f32, 1e-6)
    _close(d32.variance, [0.7575003504753113, 0.10661691427230835], f32, 1e-6)


def test_von_mises_gradcheck():
    value = _t([0.3, -3.0, 10.0, 0.3, -3.1, -1.2])

    def f(loc, conc):
        return D.VonMises(loc, conc).log_prob(value)

    loc = _t(_LOC, requires_grad=True)
    conc = _t([0.5, 2.0, 3.0, 4.5, 5.0, 50.0], requires_grad=True)
    assert gradcheck(f, (loc, conc))
    assert gradcheck(lambda c: D.VonMises(0.0, c).variance, (conc,))


@pytest.mark.parametrize("dtype", [minitorch.float32, f64])
def test_von_mises_sample(dtype):
    minitorch.manual_seed(0)
    kappa = [1e-7, 0.3, 4.0, 200.0]
    d = D.VonMises(_t([0.5, -3.0, 2.0, 3.1], dtype), _t(kappa, dtype, requires_grad=True))
    s = d.sample((5000,))
    assert s.shape == (5000, 4) and s.dtype == dtype and not s.requires_grad
    a = s.numpy().astype(np.float64)
    assert (a >= -np.pi).all() and (a <= np.pi).all()
    # the mean resultant vector is (1 - circular variance) * (cos loc, sin loc)
    resultant = 1 - d.variance.detach().numpy().astype(np.float64)
    loc = np.array([0.5, -3.0, 2.0, 3.1])
    np.testing.assert_allclose(np.cos(a).mean(0), resultant * np.cos(loc), atol=0.03)
    np.testing.assert_allclose(np.sin(a).mean(0), resultant * np.sin(loc), atol=0.03)
    assert D.VonMises(0.0, 1.0).sample().shape == ()


def test_von_mises_expand_and_errors():
    d = D.VonMises(_t([0.0]), _t([2.0]))
    e = d.expand((3, 1))
    assert e.batch_shape == (3, 1) and e.loc.shape == (3, 1) and e.variance.shape == (3, 1)
    with pytest.raises(NotImplementedError):
        d.rsample()
    with pytest.raises(NotImplementedError):
        d.entropy()
    with pytest.raises(ValueError, match="to satisfy the constraint GreaterThan"):
        D.VonMises(0.0, -1.0)
    assert repr(d) == "VonMises(loc: tensor([0.], dtype=torch.float64), concentration: " \
        "tensor([2.], dtype=torch.float64))"  # fmt: skip


# --- LKJCholesky ---

_L3 = [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.48, 0.36, 0.8]]


def test_lkj_cholesky_log_prob_and_grad():
    c = _t([0.7, 2.0], requires_grad=True)
    d = D.LKJCholesky(3, c)
    assert d.batch_shape == (2,) and d.event_shape == (3, 3) and not d.has_rsample
    lp = d.log_prob(_t(_L3))
    _close(lp, [-2.0395746698537405, -1.7312010946981775])
    (g,) = minitorch.autograd.grad(lp.sum(), c)
    _close(g, [1.0335849947802718, -0.172946510803615])
    assert gradcheck(lambda c: D.LKJCholesky(3, c).log_prob(_t(_L3)), (c,))
    f32 = minitorch.float32
    d2 = D.LKJCholesky(2, _t([0.5, 1.0, 4.0], f32))
    lp2 = d2.log_prob(_t([[1.0, 0.0], [-0.28, 0.96]], f32))
    _close(lp2, [-1.103907823562622, -0.6931471824645996, -0.15531986951828003], f32, 1e-6)


def test_lkj_cholesky_sample_expand_errors():
    minitorch.manual_seed(0)
    d = D.LKJCholesky(4, _t([0.5, 5.0]))
    s = d.sample((2000,))
    assert s.shape == (2000, 2, 4, 4) and s.dtype == f64
    assert bool(D.constraints.corr_cholesky.check(s).all())
    corr = (s @ s.transpose(-1, -2)).numpy()
    # LKJ(c) in dim 4: an off-diagonal correlation of the first row has variance 1 / (2c + 3)
    np.testing.assert_allclose(corr[..., 1, 0].var(0), [0.25, 1 / 13], atol=0.03)
    assert D.LKJCholesky(2).sample().shape == (2, 2)
    e = D.LKJCholesky(3, _t([1.0])).expand((4,))
    assert e.batch_shape == (4,) and e.sample().shape == (4, 3, 3)
    with pytest.raises(
        ValueError, match="^Expected dim to be an integer greater than or equal to 2. Found dim=1.$"
    ):
        D.LKJCholesky(1)
    with pytest.raises(ValueError, match="to be within the support \\(CorrCholesky\\(\\)\\)"):
        D.LKJCholesky(3, validate_args=True).log_prob(minitorch.eye(3) * 2)
    assert "LKJCholesky" in D.__all__


# --- Wishart ---

_COV = [[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 1.5]]
_VAL = [[3.0, 0.2, 0.4], [0.2, 2.0, 0.1], [0.4, 0.1, 1.0]]
_LP_COV = [-9.874932664022335, -10.2877432675604, -14.061339082452609]
_ENT_COV = [11.330542566066487, 14.175135130000736, 16.21623494804573]


@pytest.mark.parametrize(
    "kind, lp, ent",
    [
        ("covariance_matrix", _LP_COV, _ENT_COV),
        ("scale_tril", _LP_COV, _ENT_COV),
        ("precision_matrix",
         [-9.695214346280554, -8.791700094482033, -10.371421150479932],
         [7.820342951835589, 10.66493551576984, 12.706035333814834]),
    ],
)  # fmt: skip
def test_wishart_log_prob_entropy(kind, lp, ent):
    m = _t(_COV) if kind != "scale_tril" else minitorch.linalg.cholesky(_t(_COV))
    d = D.Wishart(_t([3.0, 4.5, 7.0]), **{kind: m})
    assert d.batch_shape == (3,) and d.event_shape == (3, 3) and d.has_rsample
    _close(d.log_prob(_t(_VAL)), lp, tol=1e-10)
    _close(d.entropy(), ent, tol=1e-10)


def test_wishart_moments_kl_float32():
    d = D.Wishart(_t([3.0, 4.5, 7.0]), covariance_matrix=_t(_COV))
    _close(d.mean[0], np.array(_COV) * 3)
    _close(d.mode[:, 0, 0], [math.nan, 1.0, 6.0])
    _close(d.variance[1].reshape(-1), [36.0, 10.125, 13.545, 10.125, 9.0, 7.155, 13.545, 7.155,
                                       20.25], tol=1e-10)  # fmt: skip
    _close(d.precision_matrix[0, 0], [0.5862785862785862, -0.3243243243243243,
                                      -0.10395010395010394], tol=1e-10)  # fmt: skip
    p = D.Wishart(_t([5.0, 3.0]), covariance_matrix=_t(_COV))
    q = D.Wishart(_t([4.0, 6.0]), covariance_matrix=_t(_VAL))
    _close(D.kl_divergence(p, q), [0.7385328140902688, 8.544720251642884], tol=1e-9)
    f32 = minitorch.float32
    d32 = D.Wishart(_t([3.0, 4.5], f32), covariance_matrix=_t(_COV, f32))
    _close(d32.log_prob(_t(_VAL, f32)), [-9.874932289123535, -10.287742614746094], f32, 1e-5)
    _close(d32.entropy(), [11.330541610717773, 14.175134658813477], f32, 1e-5)


def test_wishart_grad_and_rsample():
    df = _t([3.5, 4.5], requires_grad=True)
    cov = _t(_COV, requires_grad=True)
    assert gradcheck(lambda df: D.Wishart(df, covariance_matrix=_t(_COV)).log_prob(_t(_VAL)), (df,))
    assert gradcheck(lambda c: D.Wishart(df, covariance_matrix=(c + c.mT) / 2).entropy(), (cov,))
    minitorch.manual_seed(0)
    d = D.Wishart(_t([3.0, 9.0]), covariance_matrix=_t(_COV))
    s = d.rsample((4000,))
    assert s.shape == (4000, 2, 3, 3) and s.dtype == f64
    assert bool(D.constraints.positive_definite.check(s).all())
    np.testing.assert_allclose(s.numpy().mean(0)[:, 0, 0], [6.0, 18.0], rtol=0.1)
    g = D.Wishart(df, covariance_matrix=_t(_COV)).rsample()
    assert g.requires_grad
    e = D.Wishart(_t([5.0]), covariance_matrix=_t(_COV)).expand((4, 1))
    assert e.batch_shape == (4, 1) and e.rsample().shape == (4, 1, 3, 3)


def test_wishart_errors_and_warnings():
    cov = _t(_COV)
    with pytest.raises(
        ValueError, match=r"^Value of df=1.5 expected to be greater than ndim - 1 = 2.$"
    ):
        D.Wishart(1.5, covariance_matrix=cov)
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix or precision"):
        D.Wishart(3.0)
    with pytest.raises(ValueError, match="^scale_tril must be at least two-dimensional"):
        D.Wishart(3.0, precision_matrix=_t([1.0]))
    with pytest.warns(UserWarning, match="Low df values detected"):
        D.Wishart(2.5, covariance_matrix=cov)
    d = D.Wishart(_t([3.0, 3.0]), covariance_matrix=cov, validate_args=True)
    with pytest.raises(ValueError, match=r"within the support \(PositiveDefinite\(\)\)"):
        d.log_prob(-cov)
    assert repr(D.Wishart(3.0, covariance_matrix=cov)) == (
        "Wishart(covariance_matrix: torch.Size([3, 3]), df: 3.0)"
    )
    assert "Wishart" in D.__all__
