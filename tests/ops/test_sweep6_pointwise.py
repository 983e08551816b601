"""Pointwise and activation corners where minitorch once differed from torch (sweep 6: abs's
gradient at NaN, signed zeros of elu/selu/celu, in-place leaky_relu/elu with a negative slope,
pow's rsqrt/cube/inverse-square kernels, logit's and i1e's gradients at tiny inputs, keyword
names of true_divide and pow); torch's answers written out, so these run without torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional
nan = float("nan")
inf = float("inf")


def _bits(t):
    """values and sign bits, so that -0 and +0 (and NaN) compare as torch prints them"""
    a = t.detach().double().numpy()
    return np.where(np.isnan(a), 0.0, a).tolist(), np.signbit(a).tolist(), np.isnan(a).tolist()


# --- abs: the gradient at NaN is 0 (sign(nan) = 0), the masked-MAE idiom ---


def test_abs_grad_at_nan_is_zero_for_masked_losses():
    pred = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tgt = mt.tensor([1.5, nan, 2.0])
    mask = ~tgt.isnan()
    F.l1_loss(pred, tgt, reduction="none")[mask].mean().backward()
    np.testing.assert_array_equal(pred.grad.numpy(), [-0.5, 0.0, 0.5])
    pred.grad = None
    mt.where(mask, (pred - tgt).abs(), 0.0).sum().backward()
    np.testing.assert_array_equal(pred.grad.numpy(), [-1.0, 0.0, 1.0])
    pred.grad = None
    F.smooth_l1_loss(pred, tgt, beta=0.0, reduction="none")[mask].sum().backward()
    np.testing.assert_array_equal(pred.grad.numpy(), [-1.0, 0.0, 1.0])
    for dt in (mt.float16, mt.float32, mt.float64):
        x = mt.tensor([nan, -2.0, 3.0], dtype=dt, requires_grad=True)
        x.abs().backward(mt.tensor([5.0, 5.0, 5.0], dtype=dt))
        np.testing.assert_array_equal(x.grad.float().numpy(), [0.0, -5.0, 5.0], err_msg=str(dt))
    x = mt.tensor(nan, requires_grad=True)  # 0-d
    x.abs().backward()
    assert x.grad.item() == 0.0


def test_abs_grad_at_nan_create_graph_and_gradcheck():
    x = mt.tensor([nan, -2.0, 3.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(x.abs().sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, -1.0, 1.0])
    (gg,) = mt.autograd.grad((g * mt.arange(3.0, dtype=mt.float64)).sum(), x, allow_unused=True)
    assert gg is None or not gg.isnan().any().item()
    y = mt.tensor([-1.5, 0.7, 2.0], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.abs, (y,))
    assert gradgradcheck(mt.abs, (y,))


# --- elu / selu / celu keep the sign of a zero input ---


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_elu_family_signed_zeros(dtype):
    dt = getattr(mt, dtype)
    x = mt.tensor([-0.0, 0.0, -1e-30, 1.0], dtype=dt)
    fns = {
        "elu": lambda v: F.elu(v),
        "elu alpha<0": lambda v: F.elu(v, alpha=-1.0),
        "selu": F.selu,
        "celu": lambda v: F.celu(v, alpha=0.5),
        "celu alpha<0": lambda v: F.celu(v, alpha=-2.0),
    }
    for name, fn in fns.items():
        signs = _bits(fn(x))[1]
        assert signs[:2] == [True, False], (name, dtype, signs)


def test_elu_gradients_unchanged():
    x = mt.tensor([-1.5, -0.3, 0.4, 2.0], dtype=mt.float64, requires_grad=True)
    for fn in (lambda v: F.elu(v, alpha=0.7), F.selu, lambda v: F.celu(v, alpha=-1.3)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


# --- in-place leaky_relu / elu / celu with a negative slope: torch refuses at backward ---


@pytest.mark.parametrize(
    "fn, word",
    [
        (lambda v: F.leaky_relu(v, -0.5, inplace=True), "leakyReLu"),
        (lambda v: F.leaky_relu_(v, -0.5), "leakyReLu"),
        (lambda v: mt.nn.LeakyReLU(-0.5, inplace=True)(v), "leakyReLu"),
        (lambda v: F.elu(v, -1.0, inplace=True), "elu"),
        (lambda v: mt.nn.ELU(alpha=-1.0, inplace=True)(v), "elu"),
        (lambda v: F.celu(v, -1.0, inplace=True), "elu"),
    ],
)
def test_inplace_negative_slope_raises_at_backward(fn, word):
    x = mt.tensor([-1.0, 2.0], requires_grad=True)
    y = fn(x * 1.0)  # the forward works
    assert y.detach().numpy()[1] == 2.0
    with pytest.raises(RuntimeError, match=f"In-place {word} backward calculation is triggered"):
        y.sum().backward()


def test_inplace_nonnegative_slope_and_no_grad_still_work():
    x = mt.tensor([-1.0, 2.0], requires_grad=True)
    F.leaky_relu(x * 1.0, 0.0, inplace=True).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0])
    x.grad = None
    y = F.leaky_relu(x * 1.0, -0.5)  # out of place: fine
    assert type(y.grad_fn).__name__ == "LeakyReluBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-0.5, 1.0])
    z = F.leaky_relu(x * 1.0, -0.5, inplace=True)
    assert type(z.grad_fn).__name__ == "LeakyReluBackward1"
    t = mt.tensor([-1.0, 2.0])  # no graph: no error to raise
    np.testing.assert_allclose(
        F.elu(t, -1.0, inplace=True).numpy(), [1 - np.exp(-1.0), 2.0], rtol=1e-6
    )


# --- pow: torch's rsqrt, cube and inverse-square kernels ---


def test_pow_minus_half_at_negative_zero_and_inf():
    for dt in (mt.float32, mt.float64, mt.bfloat16):
        x = mt.tensor([-0.0, -inf, 0.0, inf, 4.0], dtype=dt)
        vals, signs, nans = _bits(x**-0.5)
        assert vals == [-inf, 0.0, inf, 0.0, 0.5] and nans == [False, True, False, False, False]
        assert signs[0], dt
    # float16's torch kernel is C's pow throughout: +inf at -0, 0 at -inf
    vals, _, nans = _bits(mt.tensor([-0.0, -inf], dtype=mt.float16) ** -0.5)
    assert vals == [inf, 0.0] and nans == [False, False]


def test_pow_half_gradient_at_negative_zero_and_inf():
    x = mt.tensor([-0.0, -inf, 0.0, 4.0], requires_grad=True)
    (x**0.5).sum().backward()
    vals, _, nans = _bits(x.grad)
    assert vals == [-inf, 0.0, inf, 0.25] and nans == [False, True, False, False]
    x = mt.tensor([-0.0, -inf], requires_grad=True)
    y = x**-0.5
    y.sum().backward()
    assert _bits(x.grad)[:2] == ([-inf, 0.0], [True, True])


def test_pow_special_exponents_round_as_products():
    rng = np.random.default_rng(0)
    for np_dt in ("float32", "float64"):
        a = rng.uniform(-10, 10, 4000).astype(np_dt)
        x = mt.from_numpy(a)
        np.testing.assert_array_equal((x**3).numpy(), a * a * a, err_msg=np_dt)
        np.testing.assert_array_equal((x**-2.0).numpy(), 1 / (a * a), err_msg=np_dt)
        b = np.abs(a)
        np.testing.assert_array_equal(
            (mt.from_numpy(b) ** -0.5).numpy(), 1 / np.sqrt(b), err_msg=np_dt
        )
    assert (mt.tensor([4, -3]) ** 3).tolist() == [64, -27]  # integers: untouched
    x = mt.tensor([0.7, 1.3, 2.9], dtype=mt.float64, requires_grad=True)
    for e in (-0.5, 0.5, 3, -2.0, 1.5):
        assert gradcheck(lambda v, e=e: v**e, (x,))
        assert gradgradcheck(lambda v, e=e: v**e, (x,))


# --- logit's gradient at -0 and i1e's at tiny inputs ---


def test_logit_grad_at_zeros_is_grad_times_inf():
    for dt in (mt.float32, mt.float64):
        x = mt.tensor([-0.0, 0.0, 1.0, 0.5, -0.1], dtype=dt, requires_grad=True)
        mt.logit(x).backward(mt.ones_like(x))
        vals, _, nans = _bits(x.grad)
        assert vals[:4] == [inf, inf, inf, 4.0] and nans == [False] * 4 + [True], dt
        x.grad = None
        mt.logit(x).backward(-mt.ones_like(x))
        assert _bits(x.grad)[0][:3] == [-inf, -inf, -inf]
        x.grad = None
        mt.logit(x, eps=0.0).backward(mt.ones_like(x))
        assert _bits(x.grad)[0] == [inf, inf, inf, 4.0, 0.0]
    y = mt.tensor([0.2, 0.6], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.logit, (y,))
    assert gradgradcheck(mt.logit, (y,))


def test_i1e_grad_is_half_up_to_eps():
    for dt, np_dt in ((mt.float32, "float32"), (mt.float64, "float64")):
        eps = float(np.finfo(np_dt).eps)
        x = mt.tensor([1e-40, -1e-40, 0.0, eps, -eps, 2 * eps], dtype=dt, requires_grad=True)
        mt.special.i1e(x).sum().backward()
        g = x.grad.double().numpy()
        np.testing.assert_array_equal(g[:5], [0.5] * 5, err_msg=np_dt)
        assert g[5] < 0.5 and g[5] > 0.5 - 4 * eps, (np_dt, g[5])
    y = mt.tensor([-1.2, 0.3, 2.5], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.special.i1e, (y,))
    assert gradgradcheck(mt.special.i1e, (y,))


# --- keyword names ---


def test_true_divide_and_pow_keywords():
    a, b = mt.tensor([7, 8]), mt.tensor([2, 3])
    np.testing.assert_allclose(mt.true_divide(a, other=b).numpy(), [3.5, 8 / 3], rtol=1e-6)
    np.testing.assert_allclose(mt.true_divide(input=a, other=b).numpy(), [3.5, 8 / 3], rtol=1e-6)
    assert mt.pow(self=2, exponent=b).tolist() == [4, 8]
    assert mt.pow(self=2.5, exponent=b).tolist() == [6.25, 15.625]
    assert mt.pow(input=a, exponent=b).tolist() == [49, 512]
    for kwargs in ({"self": a, "exponent": 2}, {"exponent": b}):
        with pytest.raises(TypeError, match="pow\\(\\) received an invalid combination"):
            mt.pow(**kwargs)
    with pytest.raises(TypeError, match="invalid combination"):
        mt.pow(2, self=2, exponent=b)
