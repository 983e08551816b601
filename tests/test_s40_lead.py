"""The engine's array path into a leaf's .grad: a new .grad never shares memory with another
tensor or gradient, accumulation is in place, and hooks, odd .grads and dead leaves take the
general path with the same results."""

import gc

import numpy as np
import pytest

import minitorch as torch


def test_add_routes_one_array_to_two_leaves_without_sharing_it():
    x = torch.randn(3, 4, requires_grad=True)
    y = torch.randn(3, 4, requires_grad=True)
    (x + y).sum().backward()  # AddBackward0 hands the same gradient array to both leaves
    assert not np.shares_memory(x.grad.numpy(), y.grad.numpy())
    x.grad.add_(1)
    assert y.grad.tolist() == [[1.0] * 4] * 3


@pytest.mark.parametrize(
    "view",
    [
        lambda w: w.view(2, 3),
        lambda w: w.reshape(2, 3),
        lambda w: w.t().t(),
        lambda w: w[...],
        lambda w: w.expand(2, 3),
        lambda w: w + 0,
    ],
)
def test_a_user_gradient_is_never_taken_as_grad(view):
    g = torch.ones(2, 3)
    w = torch.randn(2, 3, requires_grad=True)
    view(w).backward(g)
    assert not np.shares_memory(w.grad.numpy(), g.numpy())
    w.grad.add_(5)
    assert g.tolist() == [[1.0] * 3] * 2


def test_accumulation_is_in_place_and_bumps_the_version():
    x = torch.randn(4, requires_grad=True)
    (x * 2).sum().backward()
    grad = x.grad
    version = grad._version
    (x * 3).sum().backward()
    assert x.grad is grad
    assert grad._version == version + 1
    assert x.grad.tolist() == [5.0] * 4


def test_a_fresh_grad_of_a_transposed_leaf_takes_the_leafs_layout():
    w = torch.randn(3, 4).t().requires_grad_()  # column-major leaf
    (w * torch.arange(12.0).view(4, 3)).sum().backward()
    assert w.grad.stride() == w.stride()
    assert w.grad.tolist() == torch.arange(12.0).view(4, 3).tolist()


def test_a_read_only_grad_is_replaced_not_written():
    x = torch.randn(2, 3, requires_grad=True)
    x.grad = torch.zeros(3).expand(2, 3)  # an expanded (read-only) .grad
    (x * 2).sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2
    assert x.grad.stride() == (3, 1)


def test_hooks_still_run_on_the_array_path():
    x = torch.randn(3, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
    x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
    (x * 2).sum().backward()
    assert [s.tolist() for s in seen] == [[2.0] * 3, [20.0] * 3]
    assert x.grad.tolist() == [20.0] * 3


def test_a_dead_leaf_drops_its_gradient():
    x = torch.randn(3, requires_grad=True)
    y = (x * 2).sum()
    del x
    gc.collect()
    y.backward()  # nothing to accumulate into: no error


def test_second_order_and_retain_graph_unchanged():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = (x * x * x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]
    z = (x * 2).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.tolist() == [10.0, 16.0]
