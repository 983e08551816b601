"""Differentiable optimizer steps and float32 powers, checked without torch: one step taken with
differentiable=True is a function of the starting parameters (and of a tensor lr) whose first and
second derivatives match central differences in float64; number ** tensor and tensor ** tensor
in float32 are rounded once from the double result on short tensors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

_TENSOR_LR = ["Adam", "AdamW", "NAdam", "RAdam", "SGD"]  # (a grad-requiring lr is kept)


def _one_step(name, kw, with_lr):
    """f(w[, lr]) = sum(step(w)^2) after one differentiable step from w."""

    def f(w, lr=0.05):
        p = w * 1.0
        opt = getattr(mt.optim, name)([p], lr=lr, differentiable=True, **kw)
        loss = ((p - 0.3) ** 2).sum() + ((p + 0.2) ** 3).sum() * 0.1  # (saves no p)
        (p.grad,) = mt.autograd.grad(loss, [p], create_graph=True)
        opt.step()
        return (p**2).sum()

    return f if with_lr else (lambda w: f(w))


@pytest.mark.parametrize(
    "name, kw",
    [
        ("Adam", {"weight_decay": 0.1}),
        ("Adam", {"weight_decay": 0.01, "decoupled_weight_decay": True, "amsgrad": True}),
        ("AdamW", {}),
        ("NAdam", {"weight_decay": 0.1}),
        ("NAdam", {"weight_decay": 0.01, "decoupled_weight_decay": True}),
        ("RAdam", {"weight_decay": 0.01, "decoupled_weight_decay": True}),
        ("SGD", {"weight_decay": 0.1}),  # (a first momentum step detaches its buffer, as torch)
        ("Adamax", {}),
        ("Adagrad", {"lr_decay": 0.01}),
        ("RMSprop", {"centered": True}),
        ("RMSprop", {}),
    ],
)
def test_differentiable_step_is_twice_differentiable(name, kw):
    rng = np.random.default_rng(0)
    w = mt.tensor(rng.uniform(0.5, 1.5, (2, 3)), dtype=mt.float64, requires_grad=True)
    inputs = (w,)
    with_lr = name in _TENSOR_LR
    if with_lr:
        inputs += (mt.tensor(0.05, dtype=mt.float64, requires_grad=True),)
    f = _one_step(name, kw, with_lr)
    assert gradcheck(f, inputs, eps=1e-6, atol=1e-5)
    assert gradgradcheck(f, inputs, eps=1e-6, atol=1e-5)


def test_differentiable_step_keeps_a_tensor_lr_dtype():
    """A float64 tensor lr that does not require grad rounds the step size in float64 (the
    step count is float32): the same parameters as the lr given as a float64 that requires
    grad, not as a Python number (whose step size rounds in float32)."""
    rng = np.random.default_rng(1)
    start = rng.standard_normal(5)

    def run(lr):
        p = mt.tensor(start, dtype=mt.float64, requires_grad=True) * 1.0
        opt = mt.optim.Adam([p], lr=lr, differentiable=True)
        for i in range(3):
            p.grad = mt.tensor(np.cos(np.arange(5.0) * (i + 1)), dtype=mt.float64)
            opt.step()
        return p.detach().numpy()

    plain = run(mt.tensor(0.05, dtype=mt.float64))
    grad = run(mt.tensor(0.05, dtype=mt.float64, requires_grad=True))
    number = run(0.05)
    np.testing.assert_array_equal(plain, grad)
    assert not np.array_equal(plain, number)  # (float32 rounding of the step size moves it)


def test_float32_power_with_a_tensor_exponent_rounds_once():
    rng = np.random.default_rng(2)
    x = rng.uniform(0.1, 3, 31).astype(np.float32)
    y = rng.uniform(-3, 3, 31).astype(np.float32)
    want = (x.astype(np.float64) ** y.astype(np.float64)).astype(np.float32)
    got = (mt.from_numpy(x) ** mt.from_numpy(y)).numpy()
    np.testing.assert_array_equal(got, want)
    base = np.float64(np.float32(0.9))  # (a number base is taken in the exponent's dtype)
    steps = np.arange(1, 9, dtype=np.float32)
    want = (base ** steps.astype(np.float64)).astype(np.float32)
    got = np.array([(0.9 ** mt.tensor(float(s))).item() for s in steps], dtype=np.float32)
    np.testing.assert_array_equal(got, want)
