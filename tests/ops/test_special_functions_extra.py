"""torch.special's Bessel functions of the second kind, modified Bessel functions and
orthogonal polynomials, and edge values and node names of polygamma, zeta, logit, mvlgamma,
ndtr, xlog1py and copysign (expected values read from torch or from the functions' definitions)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

S = torch.special
INF = math.inf

# --- polygamma, zeta ---


def test_trigamma_at_poles_and_infinities_as_torch():
    x = torch.tensor([-INF, -3.0, -1.0, 0.0, INF], dtype=torch.float64)
    got = S.polygamma(1, x).numpy()
    # torch reflects through pi² / sin²(pi x): huge but finite at the negative integers
    np.testing.assert_allclose(got[1:3], [7.31198905e31, 6.58079015e32], rtol=1e-8)
    assert np.isnan(got[0]) and got[3] == INF and got[4] == 0.0
    got32 = S.polygamma(1, torch.tensor([-3.0, -1.0])).numpy()
    np.testing.assert_allclose(got32, [1.7351288e16, 1.2913697e15], rtol=1e-6)


def test_polygamma_and_zeta_at_plus_infinity_are_nan():
    x = torch.tensor([-INF, -3.0, INF], dtype=torch.float64)
    got = S.polygamma(2, x).numpy()
    assert got[0] == -INF and got[1] == -INF and np.isnan(got[2])
    assert S.polygamma(3, x).numpy()[0] == INF
    assert np.isnan(S.zeta(2.0, torch.tensor([INF])).item())
    assert S.zeta(1.0, torch.tensor([INF])).item() == INF
    np.testing.assert_allclose(S.zeta(2.0, torch.tensor([1.0])).item(), math.pi**2 / 6, rtol=1e-6)


# --- logit ---


def test_logit_with_crossed_bounds_tests_the_lower_first():
    x = torch.tensor([0.1, 0.45, 0.55, 0.9])
    expected = [math.log(0.6 / 0.4)] * 3 + [math.log(0.4 / 0.6)]
    np.testing.assert_allclose(torch.logit(x, eps=0.6).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(S.logit(x, eps=0.6).numpy(), expected, rtol=1e-6)


# --- node names ---


def _node(t):
    return type(t.grad_fn).__name__, [type(f).__name__ for f, _ in t.grad_fn.next_functions]


def test_scalar_overload_node_names():
    x = torch.tensor([0.5, 1.5, 2.5], dtype=torch.float64, requires_grad=True)
    assert _node(S.zeta(x, 2.0)) == ("SpecialZetaBackward2", ["AccumulateGrad"])
    assert _node(S.zeta(2.0, x)) == ("SpecialZetaBackward1", ["AccumulateGrad"])
    assert _node(S.xlog1py(x, 2.0)) == ("SpecialXlog1PyBackward2", ["AccumulateGrad"])
    assert _node(S.xlog1py(2.0, x)) == ("SpecialXlog1PyBackward1", ["AccumulateGrad"])
    assert _node(torch.copysign(x, -1.0)) == ("CopysignBackward1", ["AccumulateGrad"])
    assert _node(S.ndtr(x)) == ("MulBackward1", ["AddBackward1"])
    assert _node(torch.mvlgamma(x + 2, 2))[0] == "MvlgammaBackward0"
    # the gradients themselves are unchanged
    assert gradcheck(lambda t: S.zeta(2.0, t), (x,))
    assert gradcheck(lambda t: S.xlog1py(t, 2.0), (x,))
    assert gradcheck(lambda t: torch.copysign(t, -1.0), (x,))


def test_mvlgamma_is_one_node_with_its_gradients():
    x = torch.tensor([1.7, 2.5, 4.0], dtype=torch.float64, requires_grad=True)
    for p in (1, 2, 3):
        y = torch.mvlgamma(x, p)
        assert type(y.grad_fn).__name__ == "MvlgammaBackward0"
        v = 1.7
        ref = sum(math.lgamma(v - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
        np.testing.assert_allclose(y.detach().numpy()[0], ref, rtol=1e-13)
        assert gradcheck(lambda t, p=p: torch.mvlgamma(t, p), (x,))
        assert gradgradcheck(lambda t, p=p: torch.mvlgamma(t, p), (x,))
    # half: torch's composite rounds each step, giving 1.55078125 at 3 for p = 2
    assert torch.mvlgamma(torch.tensor([3.0], dtype=torch.half), 2).item() == 1.55078125


def test_ndtr_is_composed_as_torch():
    x = torch.tensor([-10.0, -3.0, 0.5, 8.0], dtype=torch.float64, requires_grad=True)
    y = S.ndtr(x)
    assert y[0].item() == 0.0  # (1 + erf(x / sqrt 2)) / 2 rounds the far tail to 0, as torch
    ref = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in (-3.0, 0.5, 8.0)]
    np.testing.assert_allclose(y.detach().numpy()[1:], ref, rtol=1e-14)
    assert gradcheck(S.ndtr, (x,))
    assert gradgradcheck(S.ndtr, (x,))


# --- Bessel functions ---

# reference values of the functions (SciPy's, 16 digits) at 0.1, 1, 2.5, 10, 100
_BESSEL = {
    "modified_bessel_k0": [2.427069024702016, 0.4210244382407082, 0.06234755320036620,
                           1.778006231616765e-05, 4.656628229175903e-45],
    "modified_bessel_k1": [9.853844780870606, 0.6019072301972346, 0.07389081634774705,
                           1.864877345382559e-05, 4.679853735636910e-45],
    "scaled_modified_bessel_k0": [2.682326102262894, 1.144463079806895, 0.7595486903280996,
                                  0.3916319344365987, 0.1251756216591266],
    "scaled_modified_bessel_k1": [10.89018268304970, 1.636153486263258, 0.9001744239078779,
                                  0.4107665705957887, 0.1257999504795785],
    "bessel_y0": [-1.534238651350367, 0.08825696421567697, 0.4980703596152320,
                  0.05567116728359961, -0.07724431336508310],
    "bessel_y1": [-6.458951094702027, -0.7812128213002888, 0.1459181379667858,
                  0.2490154242069539, -0.02037231200275932],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_BESSEL))
def test_bessel_second_kind_values(name):
    fn = getattr(S, name)
    x = torch.tensor([0.1, 1.0, 2.5, 10.0, 100.0], dtype=torch.float64)
    np.testing.assert_allclose(fn(x).numpy(), _BESSEL[name], rtol=2e-14, err_msg=name)
    y32 = fn(x.float())
    assert y32.dtype is torch.float32
    np.testing.assert_allclose(y32.numpy(), _BESSEL[name], rtol=2e-6, atol=1e-44, err_msg=name)
    edges = fn(torch.tensor([0.0, -1.0, math.nan], dtype=torch.float64)).numpy()
    assert np.isinf(edges[0]) and np.isnan(edges[1:]).all()


def test_bessel_second_kind_limits_and_dtypes():
    big = torch.tensor([1e20, INF], dtype=torch.float64)
    np.testing.assert_allclose(
        S.scaled_modified_bessel_k0(big).numpy()[0], math.sqrt(math.pi / 2e20), rtol=1e-14
    )
    assert S.modified_bessel_k0(big).numpy().tolist() == [0.0, 0.0]
    assert np.isnan(S.bessel_y0(torch.tensor([INF])).item())  # torch's, not the limit 0
    assert S.modified_bessel_k1(torch.tensor([1, 2])).dtype is torch.float32
    with pytest.raises(NotImplementedError, match="modified_bessel_k0_cpu.*Half"):
        S.modified_bessel_k0(torch.tensor([1.0], dtype=torch.half))
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    for fn in (S.bessel_y0, S.modified_bessel_i0, S.modified_bessel_i1, S.modified_bessel_k1):
        assert fn(x).grad_fn is None  # torch gives them no derivative
    np.testing.assert_allclose(
        S.modified_bessel_i0(x).detach().numpy(), torch.i0(x).detach().numpy(), rtol=1e-7
    )


# --- orthogonal polynomials ---

_X = [-2.0, -0.5, 0.3, 1.5]
# torch's values at degree 7
_POLY7 = {
    "chebyshev_polynomial_t": [-5042.0, -0.5000000000000006, -0.8461632000000004, 421.5],
    "chebyshev_polynomial_u": [-10864.0, -1.0, -0.6785664, 987.0],
    "chebyshev_polynomial_v": [-13775.0, -2.0, -1.2372224, 610.0],
    "chebyshev_polynomial_w": [-7953.0, 0.0, -0.1199104000000001, 1364.0],
    "shifted_chebyshev_polynomial_t": [-4656965.0, -5042.0, 0.25802240000000076, 5042.0],
    "hermite_polynomial_h": [3104.0, 461.0, -416.5179264, 801.0],
    "hermite_polynomial_he": [-86.0, 40.0234375, -28.7158113, 54.4921875],
    "laguerre_polynomial_l": [133.24761904761903, 7.950934709821428, -0.3011057058928569,
                              0.5987583705357143],
    "legendre_polynomial_p": [-2199.125, -0.22314453125, -0.22407298125, 192.37646484375],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_POLY7))
def test_polynomial_values_and_degree_argument(name):
    fn = getattr(S, name)
    x = torch.tensor(_X, dtype=torch.float64)
    np.testing.assert_allclose(fn(x, 7).numpy(), _POLY7[name], rtol=1e-13, atol=1e-15)
    # the degree is truncated to an integer; negative, NaN or infinite degrees give 0
    np.testing.assert_array_equal(fn(x, 2.5).numpy(), fn(x, 2).numpy())
    np.testing.assert_array_equal(fn(x, -0.5).numpy(), [1.0] * 4)
    for n in (-1, math.nan, INF, 1e19):
        np.testing.assert_array_equal(fn(x, n).numpy(), [0.0] * 4, err_msg=f"n={n}")
    # a tensor degree broadcasts, each element with its own
    n = torch.tensor([[0], [1], [7]])
    got = fn(x, n).numpy()
    assert got.shape == (3, 4)
    np.testing.assert_array_equal(got[0], [1.0] * 4)
    np.testing.assert_array_equal(got[2], fn(x, 7).numpy())
    assert fn(x.float(), 7).dtype is torch.float32
    assert fn(torch.tensor([1, 2]), 3).dtype is torch.float32
    assert fn(x, torch.tensor([7.0], dtype=torch.float64)).dtype is torch.float64
    with pytest.raises(NotImplementedError, match=f"{name}_cpu.*Half"):
        fn(x.half(), 3)
    assert fn(x.requires_grad_(), 3).grad_fn is None


def test_chebyshev_closed_form_and_interval_ends():
    x = torch.tensor([0.3, -0.5, 1.0, -1.0], dtype=torch.float64)
    t30 = S.chebyshev_polynomial_t(x, 30).numpy()
    np.testing.assert_allclose(t30[:2], np.cos(30 * np.arccos([0.3, -0.5])), rtol=1e-14)
    assert t30[2:].tolist() == [1.0, 1.0]
    assert S.chebyshev_polynomial_u(x, 30).numpy()[2:].tolist() == [31.0, 31.0]
    assert S.chebyshev_polynomial_v(x, 3).numpy()[2:].tolist() == [1.0, -7.0]
    assert S.chebyshev_polynomial_w(x, 3).numpy()[2:].tolist() == [7.0, -1.0]
    ends = torch.tensor([1.0, 0.0], dtype=torch.float64)  # the shifted kinds' interval ends
    assert S.shifted_chebyshev_polynomial_u(ends, 3).numpy().tolist() == [4.0, -4.0]
    assert S.legendre_polynomial_p(x[2:], 3).numpy().tolist() == [1.0, -1.0]


def test_polynomial_overflow_as_torch_fused_multiply_add():
    # torch's compiled recurrence fuses 2x H_k - 2k H_{k-1}: the product does not overflow on
    # its own, so H_50 is -inf in float32 where a rounded product gives inf - inf = NaN
    x = torch.tensor([0.7518485740806538])
    assert S.hermite_polynomial_h(x, 50).item() == -INF
    assert S.hermite_polynomial_h(x, 49).item() == pytest.approx(2.4311354e38, rel=1e-6)
    # a long run past overflow stops early and stays non-finite
    assert not np.isfinite(S.chebyshev_polynomial_t(torch.tensor([3.0]), 100000).item())


@pytest.mark.parametrize(
    "fn",
    ["chebyshev_polynomial_t", "hermite_polynomial_h", "legendre_polynomial_p"],
)
def test_polynomials_with_a_number_degree_on_every_device(fn, device):
    # a Python degree bounds the recurrence itself: no device value is read back
    x = torch.tensor([0.5, 2.0, -3.0], dtype=torch.float64, device=device)
    got = getattr(torch.special, fn)(x, 3)
    want = getattr(torch.special, fn)(x.cpu(), 3)
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)
