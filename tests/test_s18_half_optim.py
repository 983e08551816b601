"""Half precision and optimizers at extremes: group_norm's one-value-per-group check, hardtanh's
half gradient at the rounded bound, half optimizer updates rounded once, RMSprop's overflow."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

# --- group_norm: one value per group ---


@pytest.mark.parametrize("training", [True, False])
def test_group_norm_module_one_value_per_group_raises(training):
    gn = minitorch.nn.GroupNorm(32, 32)
    gn.train(training)  # torch checks in eval mode too
    with pytest.raises(ValueError, match=r"got input size \[1, 32, 1, 1\]"):
        gn(minitorch.ones(1, 32, 1, 1))


def test_group_norm_functional_check_uses_group_sizes():
    with pytest.raises(ValueError, match=r"more than 1 value per channel.*\[1, 4\]$"):
        F.group_norm(minitorch.ones(1, 4), 4)
    # torch's check runs before divisibility and shows [n * c // groups, groups, *spatial]
    with pytest.raises(ValueError, match=r"got input size \[1, 2\]$"):
        F.group_norm(minitorch.ones(1, 3), 2)
    # more than one value per group: fine
    out = F.group_norm(minitorch.ones(1, 6, 1), 3)
    np.testing.assert_array_equal(out.numpy(), np.zeros((1, 6, 1), np.float32))
    assert tuple(F.group_norm(minitorch.ones(1, 8), 4).shape) == (1, 8)
    assert tuple(F.group_norm(minitorch.ones(0, 4), 4).shape) == (0, 4)


# --- hardtanh in half: the gradient compares with the exact bound ---

_HT_X = [-5.0, -0.7, 0.7, 0.1, 0.3, 3.0, math.nan]


@pytest.mark.parametrize(
    "dtype, expected",
    [
        # bfloat16(-0.7) = -0.69921875 > -0.7: inside; bfloat16(0.1) = 0.10009765625 > 0.1
        ("bfloat16", [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        # float16(-0.7) = -0.7001953125 < -0.7; float16(0.1) = 0.0999755859375 < 0.1: inside
        ("float16", [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
    ],
)
@pytest.mark.parametrize("form", ["F", "inplace", "module", "module_inplace"])
def test_hardtanh_half_grad_at_rounded_bound(dtype, expected, form):
    dt = getattr(minitorch, dtype)
    x = minitorch.tensor(_HT_X, dtype=dt, requires_grad=True)
    if form == "F":
        y = F.hardtanh(x, -0.7, 0.1)
    elif form == "inplace":
        y = F.hardtanh(x * 1, -0.7, 0.1, inplace=True)
    elif form == "module":
        y = minitorch.nn.Hardtanh(-0.7, 0.1)(x)
    else:
        y = minitorch.nn.Hardtanh(-0.7, 0.1, inplace=True)(x * 1)
    (g,) = minitorch.autograd.grad(y.sum(), x, create_graph=True)
    assert g.dtype is dt
    np.testing.assert_array_equal(g.detach().float().numpy(), np.array(expected, np.float32))
    # the double backward goes through the same comparison
    (gg,) = minitorch.autograd.grad((g * 2).sum(), x, allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(gg.float().numpy(), np.zeros(7, np.float32))


def test_hardtanh_float64_grad_unchanged():
    x = minitorch.tensor([-1.5, -0.5, 0.2, 0.9], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: F.hardtanh(t, -1.0, 0.5), (x,))
    assert minitorch.autograd.gradgradcheck(lambda t: F.hardtanh(t, -1.0, 0.5), (x,))


# --- half optimizer updates: torch's addcdiv_/lerp_/addcmul compute in float32, round once ---


def test_adam_half_single_step_rounds_once():
    for name, expected in [("Adam", -0.400146484375), ("AdamW", -0.399658203125)]:
        p = minitorch.nn.Parameter(minitorch.tensor([-0.5], dtype=minitorch.float16))
        opt = getattr(minitorch.optim, name)([p], lr=0.1)
        p.grad = minitorch.sin(p.detach() * 2) + 0.1
        opt.step()
        assert p.item() == expected, (name, p.item())


_P = [-0.5, 0.25, 1.5, -2.0]
_G = [[0.3, -1.7, 2.5, 0.01], [-0.2, 0.9, -3.1, 0.05], [1.1, -0.4, 0.7, -2.2]]
# torch 2.x's values after three steps with lr=0.1
_EXPECTED = [
    ("float16", "Adam", {}, [-0.6787109375, 0.406005859375, 1.4169921875, -2.115234375]),
    ("float16", "AdamW", {}, [-0.67724609375, 0.405029296875, 1.4130859375, -2.109375]),
    ("float16", "NAdam", {}, [-0.6611328125, 0.33740234375, 1.4541015625, -2.087890625]),
    ("float16", "Adagrad", {}, [-0.6396484375, 0.323486328125, 1.4609375, -2.09765625]),
    ("float16", "Adamax", {}, [-0.6513671875, 0.390625, 1.416015625, -2.126953125]),
    ("float16", "RMSprop", {}, [-1.89453125, 0.9853515625, 1.10546875, -2.974609375]),
    (
        "float16",
        "RMSprop",
        {"centered": True},
        [-1.904296875, 0.990234375, 1.1005859375, -2.978515625],
    ),
    ("bfloat16", "Adam", {}, [-0.68359375, 0.404296875, 1.4140625, -2.109375]),
    ("bfloat16", "AdamW", {}, [-0.68359375, 0.404296875, 1.4140625, -2.109375]),
    ("bfloat16", "NAdam", {}, [-0.66015625, 0.337890625, 1.453125, -2.078125]),
    ("bfloat16", "Adagrad", {}, [-0.640625, 0.322265625, 1.4609375, -2.09375]),
    ("bfloat16", "Adamax", {}, [-0.65234375, 0.390625, 1.4140625, -2.125]),
    ("bfloat16", "RMSprop", {}, [-1.8984375, 0.984375, 1.109375, -2.984375]),
    ("bfloat16", "RMSprop", {"centered": True}, [-1.90625, 0.98828125, 1.1015625, -3.0]),
]


@pytest.mark.parametrize("dtype, name, kwargs, expected", _EXPECTED)
def test_half_optimizer_steps_match_torch_bits(dtype, name, kwargs, expected):
    dt = getattr(minitorch, dtype)
    p = minitorch.nn.Parameter(minitorch.tensor(_P, dtype=dt))
    opt = getattr(minitorch.optim, name)([p], lr=0.1, **kwargs)
    for g in _G:
        p.grad = minitorch.tensor(g, dtype=dt)
        opt.step()
    assert p.dtype is dt
    np.testing.assert_array_equal(
        p.detach().float().numpy(), np.array(expected, np.float32), err_msg=f"{dtype} {name}"
    )


# --- RMSprop(centered=True): an overflowing square keeps the parameter finite, as torch ---


def test_rmsprop_centered_overflowing_grad_stays_finite():
    p = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0]))
    opt = minitorch.optim.RMSprop([p], lr=0.01, centered=True)
    p.grad = minitorch.tensor([1e30, 1.0])
    opt.step()
    # torch: grad / sqrt(inf - 1e56 (fused)) = 0 moves nothing; the other element as usual
    np.testing.assert_array_equal(
        p.detach().numpy(), np.array([1.0, 1.8994961977005005], np.float32)
    )
