"""Half-precision rounding of pow, logit, renorm, embedding's max_norm, addr and ldexp: the
values torch's CPU kernels give (literals from torch 2.13, or NumPy step by step)."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import minitorch as torch

BF16 = ml_dtypes.bfloat16


def _values(t):
    return t.detach().float().numpy().astype(np.float64)


def _same(actual, expected, msg):
    np.testing.assert_array_equal(_values(actual), np.asarray(expected, np.float64), err_msg=msg)


# --- pow: NOTE [ Half-precision pow ] ---


@pytest.mark.parametrize("e", [3, -2, 3.0, -2.0])
def test_bfloat16_pow_three_and_minus_two_multiply_step_by_step(e):
    x = (np.random.default_rng(0).standard_normal(1000) * 3).astype(BF16)
    x = x[x != 0]
    stepwise = x * x * x if e == 3 else 1 / (x * x)  # ml_dtypes rounds each product
    once = (x.astype(np.float32) ** e).astype(BF16)
    assert (stepwise != once).any()  # the case tells the two roundings apart
    t = torch.tensor(x.astype(np.float32)).to(torch.bfloat16)
    _same(t**e, stepwise.astype(np.float32), f"x ** {e}")
    _same(t.clone().pow_(e), stepwise.astype(np.float32), f"pow_({e})")


def test_bfloat16_pow_rounds_the_exponent():
    x = torch.tensor([0.0037, 0.5, 3.0, 7.9, 0.8], dtype=torch.bfloat16)
    # 1.7 is 1.703125 in bfloat16
    _same(x.pow(1.7), [7.200241088867188e-05, 0.306640625, 6.5, 33.75, 0.68359375], "1.7")
    _same(x ** (1 / 2.2), [0.078125, 0.73046875, 1.6484375, 2.5625, 0.90234375], "1/2.2")
    y = x.requires_grad_() ** 1.7
    assert type(y.grad_fn).__name__ == "PowBackward0"
    assert y.grad_fn._saved_exponent == 1.7  # the number as given


def test_half_pow_exponent_goes_through_float32_and_overflow_raises():
    x = torch.tensor([3.0, 7.0, 100.0], dtype=torch.float16)
    # 1 + 2**-11 + 2**-40: float32 drops 2**-40, the tie rounds to 1.0 (NumPy alone gives
    # 1.0009765625)
    _same(x ** (1 + 2**-11 + 2**-40), [3.0, 7.0, 100.0], "float16")
    _same(x.bfloat16() ** (1 + 2**-8 + 2**-40), [3.0, 7.0, 100.0], "bfloat16")
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        x**70000.0
    with pytest.raises(RuntimeError, match="c10::BFloat16 without overflow"):
        x.bfloat16() ** 1e39
    _same(x.bfloat16() ** 70000.0, [math.inf] * 3, "bfloat16 holds 70000")


def test_float16_pow_half_is_c_pow_and_bfloat16_is_sqrt():
    x = torch.tensor([-0.0, -math.inf, 4.0, 2.0], dtype=torch.float16)
    r = x**0.5
    _same(r, [0.0, math.inf, 2.0, 1.4140625], "float16")
    assert not np.signbit(_values(r)[0])
    b = _values(x.bfloat16() ** 0.5)
    assert np.signbit(b[0]) and np.isnan(b[1]) and b[3] == 1.4140625


@pytest.mark.parametrize("dt, npdt", [(torch.float16, np.float16), (torch.bfloat16, BF16)])
def test_half_pow_gradient_rounds_each_step(dt, npdt):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(1000) * 3).astype(npdt)
    g = rng.standard_normal(1000).astype(npdt)
    # torch: grad * (3 * x.pow(2)), every step in the half dtype
    expected = g * ((x * x).astype(np.float32) * 3).astype(npdt)
    assert (expected != (g.astype(np.float32) * 3 * x.astype(np.float32) ** 2).astype(npdt)).any()
    t = torch.tensor(x.astype(np.float32)).to(dt).requires_grad_()
    (t**3).backward(torch.tensor(g.astype(np.float32)).to(dt))
    _same(t.grad, expected.astype(np.float32), f"{dt} grad of x ** 3")


@pytest.mark.parametrize(
    "dt, expected",
    [
        (torch.float16, [0.544921875, -5.79296875, -8.625, 4.9609375]),
        (torch.bfloat16, [0.546875, -5.8125, -8.625, 4.9375]),
    ],
)
def test_half_pow_gradient_float_exponent(dt, expected):
    x = torch.tensor([1.1, 2.7, -3.3, 0.45], dtype=dt).requires_grad_()
    (x.abs() ** 1.7).backward(torch.tensor([0.3, -1.7, 2.2, 5.1], dtype=dt))
    _same(x.grad, expected, str(dt))


def test_pow_gradient_order_and_zero_exponent():
    # torch's grad * (e * x ** (e - 1)): the two orders round differently in float32
    x = torch.tensor(np.random.default_rng(0).uniform(0.1, 4, 500), dtype=torch.float32)
    g = torch.tensor(np.random.default_rng(1).standard_normal(500), dtype=torch.float32)
    x.requires_grad_()
    (x**3).backward(g)
    xd, gd = x.detach().numpy(), g.numpy()
    expected = gd * (np.float32(3) * (xd * xd))
    assert (expected != gd * np.float32(3) * (xd * xd)).any()
    np.testing.assert_array_equal(x.grad.numpy(), expected, err_msg="float32 x ** 3")
    # e == 0: zeros, even for an inf or nan upstream gradient
    z = torch.tensor([1.0, 2.0, 0.0], requires_grad=True)
    (z**0).backward(torch.tensor([math.inf, math.nan, 1.0]))
    np.testing.assert_array_equal(z.grad.numpy(), [0.0, 0.0, 0.0], err_msg="x ** 0")


@pytest.mark.parametrize("e", [3, -2, 1.7, 0.5, -0.5, 2])
def test_pow_number_gradcheck(e):
    x = torch.tensor(np.random.default_rng(2).uniform(0.5, 2.0, (3, 4)), dtype=torch.float64)
    x.requires_grad_()
    assert torch.autograd.gradcheck(lambda t: t**e, (x,))
    assert torch.autograd.gradgradcheck(lambda t: t**e, (x,))


# --- logit ---


def test_bfloat16_logit_eps_rounds_as_without_eps():
    x = torch.tensor([0.498046875, 0.30078125, 0.69921875, 0.1, 0.25, 0.9], dtype=torch.bfloat16)
    free = [-0.00390625, -0.84375, 0.84375, -2.1875, -1.09375, 2.1875]
    _same(x.logit(), free, "logit()")
    _same(x.logit(1e-6), free, "logit(1e-6)")
    _same(
        x.logit(eps=0.25), [-0.00390625, -0.84375, 0.84375, -1.09375, -1.09375, 1.1015625], "0.25"
    )
    assert x.logit(1e-6).dtype == torch.bfloat16


def test_logit_eps_gradcheck():
    x = torch.tensor([0.05, 0.3, 0.5, 0.8, 0.97], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t.logit(0.1), (x,))
    assert torch.autograd.gradgradcheck(lambda t: t.logit(0.1), (x,))


# --- renorm, embedding(max_norm=) ---

_A = (np.random.default_rng(7).standard_normal((64, 33)) * 3).astype(np.float32)


@pytest.mark.parametrize(
    "dt, renorm_sum, embedding_sum",
    [
        (torch.float16, -72.46683728694916, -72.4688972234726),
        (torch.bfloat16, -72.51591968536377, -72.51739978790283),
    ],
)
def test_half_renorm_and_embedding_max_norm(dt, renorm_sum, embedding_sum):
    # renorm: the factor in float32 rounded to the dtype; embedding: the scale in double from
    # the norm in the dtype, rounded to the dtype; one multiplication each
    r = torch.tensor(_A).to(dt).renorm(2, 0, 5)
    e = torch.nn.functional.embedding(torch.arange(64), torch.tensor(_A).to(dt), max_norm=5.0)
    assert r.dtype == dt and e.dtype == dt
    assert r.double().sum().item() == renorm_sum
    assert e.double().sum().item() == embedding_sum


def test_bfloat16_renorm_row():
    r = torch.tensor(_A).to(torch.bfloat16).renorm(2, 0, 5)
    _same(r[0, :4], [0.00113677978515625, 0.275390625, -0.25390625, -0.82421875], "row 0")


def test_renorm_gradcheck():
    x = torch.tensor(np.random.default_rng(3).standard_normal((3, 4)) * 3, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t.renorm(2, 0, 2.5), (x,))
    assert torch.autograd.gradgradcheck(lambda t: t.renorm(2, 0, 2.5), (x,))


# --- addr ---


def test_half_addr_rounds_each_step():
    m = torch.tensor([[-1.9541, -0.5239, 4.9912, 1.9775]], dtype=torch.float16)
    v1 = torch.tensor([2.1465], dtype=torch.float16)
    v2 = torch.tensor([2.9902, -2.5430, 1.4629, -0.4377], dtype=torch.float16)
    _same(
        m.addr(v1, v2, beta=0.37, alpha=1.3),
        [[7.62109375, -7.2890625, 5.9296875, -0.48876953125]],
        "",
    )
    _same(m.addr(v1, v2, beta=0, alpha=1.3), [[8.34375, -7.09375, 4.08203125, -1.220703125]], "")
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        m.addr(v1, v2, alpha=70000.0)


def test_bfloat16_addr_matches_stepwise():
    rng = np.random.default_rng(0)
    m, v1, v2 = (rng.standard_normal(s).astype(BF16) for s in ((6, 7), 6, 7))
    b, a = BF16(0.37), BF16(1.3)
    expected = b * m + (a * v1)[:, None] * v2[None, :]
    t = [torch.tensor(x.astype(np.float32)).bfloat16() for x in (m, v1, v2)]
    _same(t[0].addr(t[1], t[2], beta=0.37, alpha=1.3), expected.astype(np.float32), "bf16 addr")


# --- ldexp ---


def test_ldexp_power_in_the_exponent_dtype():
    x = torch.tensor([0.1234567891234, -0.987654321], dtype=torch.float64)
    r = torch.ldexp(x, torch.tensor([0.3, 1.7], dtype=torch.float32))
    assert r.dtype == torch.float64
    np.testing.assert_array_equal(r.numpy(), [0.15199313805930093, -3.2088983795190367])
    # a float16 exponent: 2 ** 16 is inf in float16
    r = torch.ldexp(torch.tensor([1.0, 3.0]), torch.tensor([16.0, -3.0], dtype=torch.float16))
    assert r.dtype == torch.float32
    np.testing.assert_array_equal(r.numpy(), [math.inf, 0.375])


def test_ldexp_gradcheck():
    x = torch.tensor([0.3, -1.2, 2.5], dtype=torch.float64, requires_grad=True)
    e = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.ldexp, (x, e))
    assert torch.autograd.gradgradcheck(torch.ldexp, (x, e))
