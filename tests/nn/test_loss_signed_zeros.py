"""Signed zeros in the gradients of the regression losses and binary cross entropy: where the
target requires grad, torch differentiates with respect to it with the operands swapped
(grad_t = 2 (t - x) grad for mse), so an equal pair gives +0. for a positive upstream gradient.
See NOTE [ Regression losses' target gradient ]."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

LOSSES = {
    "mse": F.mse_loss,
    "smooth_l1": F.smooth_l1_loss,
    "smooth_l1_beta": lambda a, b, reduction: F.smooth_l1_loss(a, b, reduction=reduction, beta=0.5),
    "huber": F.huber_loss,
    "huber_delta": lambda a, b, reduction: F.huber_loss(a, b, reduction=reduction, delta=2.0),
}
MODULES = {"mse": minitorch.nn.MSELoss, "smooth_l1": minitorch.nn.SmoothL1Loss,
           "huber": minitorch.nn.HuberLoss}  # fmt: skip


def _grads(fn, reduction, sign, dtype=minitorch.float32):
    x = minitorch.tensor([1.0, 0.0, -1.0, 0.5, -3.0], dtype=dtype, requires_grad=True)
    t = minitorch.tensor([0.0, 0.0, 0.0, 0.5, -3.0], dtype=dtype, requires_grad=True)
    out = fn(x, t, reduction=reduction)
    g = minitorch.full(out.shape, sign, dtype=dtype)
    gx, gt = minitorch.autograd.grad(out, [x, t], g)
    return gx.detach().numpy(), gt.detach().numpy()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_equal_pair_gives_the_sign_of_the_upstream_gradient(name, reduction, sign):
    gx, gt = _grads(LOSSES[name], reduction, sign)
    # torch: every zero of both gradients is a zero times the upstream gradient (+0. for +1)
    want_x = np.array([sign < 0, sign < 0, sign > 0, sign < 0, sign < 0])
    want_t = np.array([sign > 0, sign < 0, sign < 0, sign < 0, sign < 0])
    np.testing.assert_array_equal(np.signbit(gx), want_x, err_msg=f"{name} input grad {gx}")
    np.testing.assert_array_equal(np.signbit(gt), want_t, err_msg=f"{name} target grad {gt}")
    np.testing.assert_array_equal(np.abs(gx), np.abs(gt), err_msg=name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_target_grad_is_plus_zero(name):
    x = minitorch.tensor([1.0, 0.0, -1.0])
    t = minitorch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    MODULES[name](reduction="sum")(x, t).backward()
    np.testing.assert_array_equal(np.signbit(t.grad.numpy()), [True, False, False], err_msg=name)
    assert t.grad.tolist() == ([-2.0, 0.0, 2.0] if name == "mse" else [-1.0, 0.0, 1.0])


def test_mse_values_unchanged_and_grad_fn_named():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x = minitorch.tensor(a, requires_grad=True)
    t = minitorch.tensor(b, requires_grad=True)
    out = F.mse_loss(x, t)
    assert type(out.grad_fn).__name__ == "MseLossBackward0"
    np.testing.assert_allclose(out.item(), ((a - b) ** 2).mean(), rtol=1e-12)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (a - b) / 12, rtol=1e-12)
    np.testing.assert_allclose(t.grad.numpy(), 2 * (b - a) / 12, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_gradients_float64(name, reduction):
    rng = np.random.default_rng(1)
    # spread so that both branches of smooth l1 / huber are taken, away from the kinks
    a = rng.uniform(-3, 3, (2, 5))
    b = a + np.array([-2.7, -1.3, -0.2, 0.3, 1.1]) * np.array([[1.0], [-1.0]])
    x = minitorch.tensor(a, dtype=minitorch.float64, requires_grad=True)
    t = minitorch.tensor(b, dtype=minitorch.float64, requires_grad=True)

    def fn(x, t):
        return LOSSES[name](x, t, reduction=reduction)

    assert gradcheck(fn, (x, t))
    assert gradgradcheck(fn, (x, t))


def test_broadcast_target_and_0d():
    x = minitorch.tensor([[1.0], [2.0]], requires_grad=True)
    t = minitorch.tensor([1.0, 3.0], requires_grad=True)
    with pytest.warns(UserWarning):
        F.mse_loss(x, t, reduction="sum").backward()
    assert x.grad.tolist() == [[-4.0], [0.0]] and t.grad.tolist() == [-2.0, 6.0]
    s = minitorch.tensor(2.0, requires_grad=True)
    out = F.huber_loss(s, minitorch.tensor(0.5))
    assert out.shape == () and out.item() == 1.0


@pytest.mark.parametrize("dtype", [minitorch.float16, minitorch.bfloat16])
def test_half_precision_keeps_dtype_and_signs(dtype):
    for name in ("mse", "smooth_l1", "huber"):
        gx, gt = _grads(LOSSES[name], "sum", 1.0, dtype)
        assert not np.signbit(np.asarray(gt, dtype=np.float32)[1]), name
    out = F.smooth_l1_loss(minitorch.tensor([0.1], dtype=dtype), minitorch.tensor([0.0]).to(dtype))
    assert out.dtype is dtype


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_binary_cross_entropy_target_grad_is_minus_logit(sign):
    p = minitorch.tensor([0.25, 0.5, 0.75], dtype=minitorch.float64)
    t = minitorch.tensor([0.0, 0.0, 1.0], dtype=minitorch.float64, requires_grad=True)
    out = F.binary_cross_entropy(p, t, reduction="none")
    (gt,) = minitorch.autograd.grad(out, [t], minitorch.full((3,), sign, dtype=minitorch.float64))
    # torch: -logit(p) * grad, so at p = 0.5 the zero is -0. times the upstream gradient's sign
    assert bool(np.signbit(gt.numpy()[1])) == (sign > 0)
    np.testing.assert_array_equal(gt.numpy(), -np.log(p.numpy() / (1 - p.numpy())) * sign)
