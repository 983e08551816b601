"""minitorch.autograd.graph: the Node class every grad_fn is, gradient edges as grad() inputs,
version bumps."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd.graph import GradientEdge, Node, get_gradient_edge, increment_version


def _chain():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    return x, h, (h**2).sum()


def test_every_grad_fn_is_a_node():
    x, h, y = _chain()
    assert isinstance(y.grad_fn, Node) and isinstance(h.grad_fn, Node)
    acc = get_gradient_edge(x).node
    assert isinstance(acc, Node) and type(acc).__name__ == "AccumulateGrad"
    assert acc.variable is x


def test_gradient_edges_as_grad_inputs():
    x, h, y = _chain()
    e = get_gradient_edge(h)
    assert isinstance(e, GradientEdge) and e == (h.grad_fn, 0)
    (gh,) = mt.autograd.grad(y, e, retain_graph=True)  # d y / d h = 2 h
    np.testing.assert_allclose(gh.numpy(), [4.0, 8.0, 12.0])
    gx, gh2 = mt.autograd.grad(y, [get_gradient_edge(x), e])  # d y / d x = 8 x
    np.testing.assert_allclose(gx.numpy(), [8.0, 16.0, 24.0])
    np.testing.assert_allclose(gh2.numpy(), gh.numpy())
    assert x.grad is None  # grad() returns, it does not accumulate


def test_get_gradient_edge_needs_grad():
    with pytest.raises(RuntimeError, match="does not require gradients"):
        get_gradient_edge(mt.ones(2))


def test_increment_version_invalidates_saved_tensors():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * x  # saves x
    increment_version(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    a, b = mt.ones(2), mt.ones(2)
    increment_version([a, b])
    assert a._version == 1 and b._version == 1
