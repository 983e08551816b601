"""Session 22 pointwise fuzzing fixes: pow of two tensors at -0 and -inf with a broadcast
exponent 0.5, fmod's and acosh's gradients at their special points, add/sub's bool alpha.
Expected values are torch 2.13's, obtained by running it."""

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

INF = math.inf


def _f64(v, grad=True):
    return torch.tensor(v, dtype=torch.float64, requires_grad=grad)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pow_broadcast_half_exponent_at_negative_zero_and_inf(dtype):
    # torch: C's pow for two tensors (+0 and +inf), not sqrt (-0 and nan), however the
    # exponent broadcasts
    base = torch.tensor([[-INF, -0.0, 4.0, -4.0]], dtype=dtype)
    for exponent in (
        torch.tensor(0.5, dtype=dtype),
        torch.tensor([0.5], dtype=dtype),
        torch.tensor([[0.5], [0.5]], dtype=dtype),
    ):
        got = torch.pow(base, exponent).numpy()
        np.testing.assert_array_equal(got[0], [INF, 0.0, 2.0, np.nan])
        assert not np.signbit(got[..., 1]).any()
    got = torch.pow(torch.tensor(-0.0, dtype=dtype), torch.tensor(0.5, dtype=dtype))
    assert got.item() == 0.0 and math.copysign(1.0, got.item()) == 1.0
    # other exponents and a full-shape exponent are untouched
    e = torch.tensor([[0.5, 0.5, 2.0, -1.0]], dtype=dtype)
    np.testing.assert_array_equal(torch.pow(base, e).numpy(), [[INF, 0.0, 16.0, -0.25]])


def test_pow_tensor_exponent_half_gradient_still_checks():
    a, b = _f64([1.5, 4.0]), _f64(0.5)
    assert gradcheck(torch.pow, (a, b))
    assert gradgradcheck(torch.pow, (a, b))


def test_fmod_second_derivative_at_zero_divisor_is_zero():
    # torch differentiates the quotient trunc(a / b) as a constant: 0, not 0 * inf = nan
    a, b = _f64(0.0), _f64(0.0)
    ga, gb = torch.autograd.grad(torch.fmod(a, b), (a, b), create_graph=True)
    assert ga.item() == 1.0 and math.isnan(gb.item())
    g2 = torch.autograd.grad(gb, (a, b), allow_unused=True)
    assert [0.0 if g is None else g.item() for g in g2] == [0.0, 0.0]
    # and the sign of its zero: torch gives +0 for 0 fmod 1 (was -0)
    a, b = _f64(0.0), _f64(1.0)
    _, gb = torch.autograd.grad(torch.fmod(a, b), (a, b), create_graph=True)
    g2 = torch.autograd.grad(gb * 0.5, (a, b), allow_unused=True)
    assert all(g is None or math.copysign(1.0, g.item()) == 1.0 for g in g2)


def test_fmod_gradients_check():
    a, b = _f64([5.5, -3.2, 0.7]), _f64([2.0, 1.5, -0.3])
    assert gradcheck(torch.fmod, (a, b))
    assert gradgradcheck(torch.fmod, (a, b))


def test_acosh_gradients_at_plus_minus_one():
    # torch: grad * rsqrt(a * a - 1): +inf at -1 (was -inf), second derivative -inf at 1 (was nan)
    x = _f64(-1.0)
    (g,) = torch.autograd.grad(torch.acosh(x), x)
    assert g.item() == INF
    x = _f64(1.0)
    (g,) = torch.autograd.grad(torch.acosh(x), x, create_graph=True)
    assert g.item() == INF
    (g2,) = torch.autograd.grad(g, x)
    assert g2.item() == -INF
    x = _f64([1.0000001, 1.5, 3.0, 1e10])
    (g,) = torch.autograd.grad(torch.acosh(x).sum(), x)
    expected = [2236.06792098999, 0.8944271909999159, 0.35355339059327373, 1e-10]
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
    assert gradcheck(torch.acosh, (_f64([1.2, 2.0, 7.5]),))
    assert gradgradcheck(torch.acosh, (_f64([1.2, 2.0, 7.5]),))


@pytest.mark.parametrize("fn", [torch.add, torch.sub])
def test_bool_alpha_refused_unless_result_is_bool(fn):
    msg = "Boolean alpha only supported for Boolean results."
    cases = [
        (torch.tensor([1, 2]), torch.tensor([1, 2])),
        (torch.tensor([1.0]), 2),
        (torch.tensor([1.0]), torch.tensor([1.0])),
    ]
    for a, b in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn(a, b, alpha=False)
    assert torch.add(torch.tensor([True]), torch.tensor([False]), alpha=False).tolist() == [True]
    assert torch.add(torch.tensor([True]), True, alpha=False).tolist() == [True]


# torch 2.13, float32, value=-1.7: addcmul is a fused (value * t1) * t2 + input, addcdiv
# (value * t1) / t2 + input (the former value * (t1 * t2) missed all four by an ulp)
_X = [0.22578661143779755, -0.3526307940483093, 0.02425956539809704, -0.5052287578582764]
_A = [-0.06777025759220123, -0.8232001662254333, -2.138340711593628, 1.120263695716858]
_B = [0.5432590246200562, 0.775000810623169, 0.45244431495666504, -0.5396592617034912]
_ADDCMUL = [0.2883751690387726, 0.7319365739822388, 1.6689757108688354, 0.5225244760513306]
_ADDCDIV = [0.4378575086593628, 1.453096628189087, 8.058794021606445, 3.023754358291626]


def test_addcmul_addcdiv_float32_round_as_torch():
    x, a, b = (torch.tensor(v) for v in (_X, _A, _B))
    assert torch.addcmul(x, a, b, value=-1.7).tolist() == _ADDCMUL
    assert torch.addcdiv(x, a, b, value=-1.7).tolist() == _ADDCDIV
    assert x.clone().addcmul_(a, b, value=-1.7).tolist() == _ADDCMUL
    assert x.clone().addcdiv_(a, b, value=-1.7).tolist() == _ADDCDIV
    # the order shows at the ends of the range too: 0.5 * 1e-45 rounds to 0 before / 0
    got = torch.addcdiv(torch.tensor([-0.5]), torch.tensor([1e-45]), torch.tensor([0.0]), value=0.5)
    assert math.isnan(got.item())
    got = torch.addcdiv(
        torch.tensor([0.999999]), torch.tensor([3.4e38]), torch.tensor([710.0]), value=-1.5
    )
    assert got.item() == -INF


def test_addcmul_addcdiv_gradients_check():
    def mk(*shape):
        return torch.randn(*shape, dtype=torch.float64, requires_grad=True)

    torch.manual_seed(0)
    args = (mk(3), mk(2, 3), mk(1))
    assert gradcheck(lambda x, a, b: torch.addcmul(x, a, b, value=-0.7), args)
    assert gradgradcheck(lambda x, a, b: torch.addcmul(x, a, b, value=-0.7), args)
    args = (mk(3), mk(2, 3), (mk(1).detach() + 3).requires_grad_())
    assert gradcheck(lambda x, a, b: torch.addcdiv(x, a, b, value=-0.7), args)
    assert gradgradcheck(lambda x, a, b: torch.addcdiv(x, a, b, value=-0.7), args)


def _signs(t):
    return [math.copysign(1.0, v) for v in t.tolist()]


def test_bfloat16_remainder_zero_keeps_dividend_sign():
    # torch 2.13: a zero remainder keeps the dividend's sign in bfloat16 as in every float dtype
    x = torch.tensor([-4.0, 4.0, -0.0, 0.0, -61.0, 3.0], dtype=torch.bfloat16)
    for divisor in (2.0, -2.0, torch.tensor([0.25] * 6, dtype=torch.bfloat16)):
        got = torch.remainder(x, divisor)
        assert _signs(got[:4]) == [-1.0, 1.0, -1.0, 1.0]
    assert torch.remainder(x, 2.0).tolist() == [-0.0, 0.0, -0.0, 0.0, 1.0, 1.0]
    assert torch.remainder(x, -2.0).tolist() == [-0.0, 0.0, -0.0, 0.0, -1.0, -1.0]
    assert _signs(x % torch.tensor([0.25] * 6, dtype=torch.bfloat16))[4] == -1.0


@pytest.mark.parametrize("fn", [torch.sign, torch.sgn])
def test_bfloat16_sign_of_negative_zero_is_positive_zero(fn):
    x = torch.tensor([-0.0, 0.0, -2.0, math.nan, 3.0, -INF], dtype=torch.bfloat16)
    got = fn(x)
    assert got.tolist() == [0.0, 0.0, -1.0, 0.0, 1.0, -1.0]
    assert _signs(got[:2]) == [1.0, 1.0]
    assert _signs(fn(torch.tensor(-0.0, dtype=torch.bfloat16)).reshape(1)) == [1.0]
