"""Session 21: optimizer mismatches a differential fuzzer (torch.optim vs minitorch.optim) found.

Expected values are literals obtained by running torch 2.13 (CPU)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from minitorch import optim

# --- Adagrad's accumulator starts at the constructor's value --------------------------------


def test_adagrad_state_uses_constructor_initial_accumulator_value():
    a = minitorch.zeros(2, requires_grad=True)
    b = minitorch.zeros(2, requires_grad=True)
    opt = optim.Adagrad(
        [{"params": [a]}, {"params": [b], "initial_accumulator_value": 0.5}],
        initial_accumulator_value=0.1,
    )
    # torch reads self.defaults, never the group's value (which stays in the group)
    np.testing.assert_array_equal(opt.state[b]["sum"].numpy(), np.float32([0.1, 0.1]))
    assert opt.param_groups[1]["initial_accumulator_value"] == 0.5
    c = minitorch.zeros(2, requires_grad=True)
    opt.add_param_group({"params": [c], "initial_accumulator_value": 0.7})
    c.grad = minitorch.ones(2)
    opt.step()
    np.testing.assert_allclose(opt.state[c]["sum"].numpy(), [1.100000023841858] * 2, rtol=1e-7)
    np.testing.assert_allclose(c.detach().numpy(), [-0.009534625336527824] * 2, rtol=1e-6)


# --- foreach=True: the checks torch's multi-tensor step makes --------------------------------

_FOREACH_AUTOGRAD = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adadelta", "ASGD",
                     "Rprop", "Adagrad"]  # fmt: skip


@pytest.mark.parametrize("name", _FOREACH_AUTOGRAD)
def test_foreach_differentiable_step_raises(name):
    p = minitorch.zeros(2)
    p.grad = minitorch.ones(2)
    opt = getattr(optim, name)([p], foreach=True, differentiable=True)
    with pytest.raises(AssertionError, match="^_foreach ops don't support autograd$"):
        opt.step()


_DEVICES = "['cuda', 'xpu', 'hpu', 'privateuseone']"
_CAPTURABLE_FOREACH = {
    "Adam": f"params and state_steps must be on supported devices: {_DEVICES}.",
    "AdamW": f"params and state_steps must be on supported devices: {_DEVICES}.",
    "Adamax": f"params and state_steps must be on supported devices: {_DEVICES}.",
    "NAdam": f"params, mu_products, and state_steps must be on supported devices: {_DEVICES}.",
    "RAdam": f"params and state_steps must be on supported devices: {_DEVICES}.",
    "ASGD": f"params, mus, etas, and state_steps must be on supported devices: {_DEVICES}.",
}  # (RMSprop's and Rprop's foreach steps list 'xla' too, as their single-tensor ones)


@pytest.mark.parametrize("name", sorted(_CAPTURABLE_FOREACH))
def test_foreach_capturable_message_on_cpu(name):
    p = minitorch.zeros(2)
    p.grad = minitorch.ones(2)
    opt = getattr(optim, name)([p], foreach=True, capturable=True)
    with pytest.raises(AssertionError) as info:
        opt.step()
    assert str(info.value) == "If capturable=True, " + _CAPTURABLE_FOREACH[name]


@pytest.mark.parametrize("name", ["Adamax", "Adadelta", "Adagrad"])
def test_foreach_group_without_gradients_still_checks_autograd(name):
    # these torch multi-tensor steps check before returning on a group with no gradient
    # (Adam's, NAdam's, RAdam's, ... return first and step without error)
    opt = getattr(optim, name)([minitorch.zeros(2)], foreach=True, differentiable=True)
    with pytest.raises(AssertionError, match="_foreach ops don't support autograd"):
        opt.step()
    optim.NAdam([minitorch.zeros(2)], foreach=True, differentiable=True).step()


def test_adam_foreach_refuses_a_group_tensor_lr_or_betas_at_step():
    a = minitorch.zeros(2, requires_grad=True)
    b = minitorch.zeros(2, requires_grad=True)
    a.grad, b.grad = minitorch.ones(2), minitorch.ones(2)
    opt = optim.Adam([{"params": [a]}, {"params": [b], "lr": minitorch.tensor(0.01)}], foreach=True)
    msg = "^lr as a Tensor is not supported for capturable=False and foreach=True$"
    with pytest.raises(RuntimeError, match=msg):
        opt.step()
    betas = (minitorch.tensor(0.9), minitorch.tensor(0.99))
    opt = optim.Adam([{"params": [a], "betas": betas}], foreach=True)
    msg = "^beta1 as a Tensor is not supported for capturable=False and foreach=True$"
    with pytest.raises(ValueError, match=msg):
        opt.step()


# --- constructor checks ----------------------------------------------------------------------


def test_sgd_lets_a_nan_lr_through():
    opt = optim.SGD([minitorch.zeros(2, requires_grad=True)], lr=float("nan"))  # torch: lr < 0
    assert math.isnan(opt.param_groups[0]["lr"])
    with pytest.raises(ValueError, match="^Invalid learning rate: -0.1$"):
        optim.SGD([minitorch.zeros(2, requires_grad=True)], lr=-0.1)


def test_sparse_adam_refuses_zero_lr_and_eps():
    p = minitorch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="^Invalid learning rate: 0.0$"):
        optim.SparseAdam([p], lr=0.0)
    with pytest.raises(ValueError, match="^Invalid epsilon value: 0.0$"):
        optim.SparseAdam([p], eps=0.0)


# --- values ----------------------------------------------------------------------------------


def test_adam_beta1_zero_keeps_the_gradient_exactly():
    # lerp with weight 1 (torch's formula for weights >= 0.5) gives the end point itself;
    # m + (g - m) * 1 loses g = 1e-9 next to m = 1
    p = minitorch.zeros(1)
    opt = optim.Adam([p], lr=0.1, betas=(0.0, 0.999))
    for g in (1.0, 1e-9):
        p.grad = minitorch.tensor([g])
        opt.step()
    np.testing.assert_array_equal(opt.state[p]["exp_avg"].numpy(), np.float32([1e-9]))
    np.testing.assert_allclose(p.numpy(), [-0.09999998658895493], rtol=1e-7)


def test_rmsprop_centered_grad_avg_takes_the_large_weight_formula():
    # grad_avg.lerp_(grad, 1 - alpha) with weight 0.9: torch computes g - (g - m) * (1 - 0.9)
    p = minitorch.zeros(1, dtype=minitorch.float64)
    opt = optim.RMSprop([p], lr=0.1, alpha=0.1, centered=True)
    for g in (1.1, 0.3):
        p.grad = minitorch.tensor([g], dtype=minitorch.float64)
        opt.step()
    assert opt.state[p]["grad_avg"].item() == 0.369  # (m + (g - m) * 0.9 = 0.3689999999999999)


def test_adam_tensor_betas_round_in_their_dtype():
    p = minitorch.tensor([0.5, -1.25, 2.0], dtype=minitorch.float64)
    betas = (minitorch.tensor(0.9), minitorch.tensor(0.999))  # float32
    opt = optim.Adam([p], lr=0.1, betas=betas)
    for g in ([0.3, -0.2, 0.1], [0.05, 0.4, -0.7]):
        p.grad = minitorch.tensor(g, dtype=minitorch.float64)
        opt.step()
    np.testing.assert_allclose(
        p.numpy(), [0.3216675305369797, -1.1866102255947515, 1.9641948978161061], rtol=1e-14
    )
    np.testing.assert_allclose(
        opt.state[p]["exp_avg"].numpy(),
        [0.03200000691413862, 0.022000005722046016, -0.06100001478195195],
        rtol=1e-14,
    )


@pytest.mark.parametrize("foreach", [False, True])
def test_adagrad_tensor_lr_with_lr_decay_rounds_in_lr_dtype(foreach):
    p = minitorch.tensor([0.5, -1.25, 2.0], dtype=minitorch.float64)
    opt = optim.Adagrad([p], lr=minitorch.tensor(0.1), lr_decay=0.3, foreach=foreach)
    for g in ([0.3, -0.2, 0.1], [0.05, 0.4, -0.7], [1.0, 1.0, 1.0]):
        p.grad = minitorch.tensor(g, dtype=minitorch.float64)
        opt.step()
    np.testing.assert_allclose(
        p.numpy(), [0.32755831298105953, -1.2758565257912016, 1.9251189261829644], rtol=1e-14
    )


def test_adamw_fused_reads_tensor_lr_and_betas_as_doubles():
    # torch's fused kernel takes them as doubles: no float32 rounding of the step sizes
    p = minitorch.tensor([0.5, -1.25, 2.0], dtype=minitorch.float64)
    betas = (minitorch.tensor(0.9), minitorch.tensor(0.999))
    opt = optim.AdamW([p], lr=minitorch.tensor(0.1), betas=betas, fused=True)
    for g in ([0.3, -0.2, 0.1], [0.05, 0.4, -0.7]):
        p.grad = minitorch.tensor(g, dtype=minitorch.float64)
        opt.step()
    np.testing.assert_allclose(
        p.numpy(), [0.3207677704847771, -1.1842116068858806, 1.9602971230026907], rtol=1e-14
    )
