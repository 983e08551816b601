"""Double backward through the piecewise-linear ops: their backward keeps an edge to the input
with a zero gradient (NOTE [ Zero gradients of piecewise-linear backward ])."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional

CASES = {
    "relu": (F.relu, "ThresholdBackwardBackward0"),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), "LeakyReluBackwardBackward0"),
    "hardtanh": (lambda x: F.hardtanh(x, -0.5, 0.5), "HardtanhBackwardBackward0"),
    "relu6": (F.relu6, "HardtanhBackwardBackward0"),
    "hardsigmoid": (F.hardsigmoid, "HardsigmoidBackwardBackward0"),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), None),
    "max_pool2d_overlapping": (lambda x: F.max_pool2d(x, 3, 1, 1), None),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2), None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_input_gradient_stays_connected_with_zero_gradient(name):
    fn, node = CASES[name]
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((1, 2, 4, 4)) * 4, requires_grad=True)
    (g,) = mt.autograd.grad(fn(x).sum(), x, create_graph=True)
    assert g.grad_fn is not None  # before: a comparison's mask cut the graph here
    if node is not None:
        assert type(g.grad_fn).__name__ == node
    g.pow(2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((1, 2, 4, 4)))


def test_gradient_penalty_gives_parameters_zero_not_none():
    mt.manual_seed(0)
    critic = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.LeakyReLU(0.2), mt.nn.Linear(4, 1))
    x = mt.ones(2, 3, requires_grad=True)
    (g,) = mt.autograd.grad(critic(x).sum(), x, create_graph=True)
    ((g.norm(2, dim=1) - 1) ** 2).mean().backward()
    # the first layer's bias reaches the penalty only through LeakyReLU's backward
    assert critic[0].bias.grad is not None
    np.testing.assert_array_equal(critic[0].bias.grad.numpy(), np.zeros(4))
    assert critic[0].weight.grad.abs().sum().item() > 0


def test_gradients_through_the_new_backward_nodes():
    # the first-order values are unchanged, and the second derivative in `grad` is the op again
    rng = np.random.default_rng(1)
    for name in ("leaky_relu", "hardtanh", "hardsigmoid"):
        fn, _ = CASES[name]
        x = mt.tensor(rng.standard_normal((3, 5)) * 4, requires_grad=True)
        v = mt.tensor(rng.standard_normal((3, 5)), requires_grad=True)
        assert mt.autograd.gradcheck(
            lambda v, fn=fn, x=x: mt.autograd.grad(fn(x), x, v, create_graph=True)[0], (v,)
        )


def test_half_leaky_relu_backward_rounds_once():
    x = mt.tensor([-1.0, 2.0], dtype=mt.float16, requires_grad=True)
    g = mt.tensor([0.3, 0.3], dtype=mt.float16)
    (gx,) = mt.autograd.grad(F.leaky_relu(x, 0.1), x, g, create_graph=True)
    want = np.array([np.float32(np.float16(0.3)) * np.float32(0.1), np.float16(0.3)])
    np.testing.assert_array_equal(gx.detach().numpy(), want.astype(np.float16))


def test_hardswish_gradient_at_the_joins():
    # torch's pieces: 0 up to -3 inclusive, the slope of the right piece (1) at 3
    x = mt.tensor([-3.0, -2.999, 3.0, 2.999], requires_grad=True)
    F.hardswish(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, -2.999 / 3 + 0.5, 1.0, 2.999 / 3 + 0.5])
