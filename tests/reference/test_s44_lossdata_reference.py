"""The losses' first-order gradients on the data-level path against torch (helper lossdata,
session 44): mse, smooth l1, huber and binary cross entropy, each reduction, float32/float64,
including the target's signed zeros where input == target."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

_CASES = {
    "mse": lambda F, x, t, r: F.mse_loss(x, t, reduction=r),
    "smooth_l1": lambda F, x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5),
    "huber": lambda F, x, t, r: F.huber_loss(x, t, reduction=r, delta=0.7),
    "bce": lambda F, x, t, r: F.binary_cross_entropy(x, t, reduction=r),
}


def _grads(lib, fn, xa, ta, ga, reduction, needs):
    x = lib.tensor(xa, requires_grad=needs[0])
    t = lib.tensor(ta, requires_grad=needs[1])
    loss = fn(lib.nn.functional, x, t, reduction)
    g = lib.tensor(ga) if reduction == "none" else None
    ins = [v for v, k in zip((x, t), needs, strict=True) if k]
    return [r.detach().numpy() for r in lib.autograd.grad(loss, ins, g)]


@pytest.mark.parametrize("name", sorted(_CASES))
def test_loss_gradients_match_torch(name):
    fn = _CASES[name]
    rng = np.random.default_rng(0)
    for dt, reduction in itertools.product(["float32", "float64"], ["mean", "sum", "none"]):
        if name == "bce":
            xa, ta = rng.uniform(0.05, 0.95, (4, 5)), rng.uniform(0, 1, (4, 5))
            needs = [(True, False)]
        else:
            xa, ta = rng.standard_normal((4, 5)) * 1.5, rng.standard_normal((4, 5))
            xa[0, :3] = ta[0, :3]  # x == t: the target's gradient is +0. (torch's t - x)
            needs = [(True, False), (True, True)]
        xa, ta = xa.astype(dt), ta.astype(dt)
        ga = rng.uniform(-1, 1, (4, 5)).astype(dt)
        for need in needs:
            ours = _grads(mt, fn, xa, ta, ga, reduction, need)
            theirs = _grads(torch, fn, xa, ta, ga, reduction, need)
            for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
                at = f"{name} {dt} {reduction} {need} input {i}"
                assert a.dtype == b.dtype and a.shape == b.shape, at
                tol = 1e-6 if dt == "float32" else 1e-14
                np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=at)
                np.testing.assert_array_equal(np.signbit(a[a == 0]), np.signbit(b[a == 0]), at)
