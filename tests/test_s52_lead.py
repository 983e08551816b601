"""Session 52's per-step trims keep what they replaced: Tensor.backward's bound engine call, the
scalar root gradient of loss.backward(), the product node's class defaults and indexing's
batched watches of its index tensors."""

import numpy as np
import pytest

import minitorch as torch
from minitorch import _tensor
from minitorch.autograd import engine


def test_tensor_backward_calls_the_engine_bound_at_import():
    assert _tensor._engine_backward is engine.backward


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64], ids=str)
def test_implicit_scalar_gradient_matches_an_explicit_one(dtype):
    torch.manual_seed(0)
    x = torch.randn(3, 4, dtype=dtype, requires_grad=True)
    (x * x).sum().backward()
    implicit = x.grad.clone()
    x.grad = None
    loss = (x * x).sum()
    loss.backward(torch.ones_like(loss))
    assert implicit.dtype == dtype
    assert torch.equal(implicit, x.grad)
    assert torch.equal(implicit, 2 * x.detach())


def test_implicit_gradient_of_one_element_outputs_and_errors():
    x = torch.tensor([[3.0]], requires_grad=True)
    (x * 2).backward()  # a (1, 1) output: the general loop's ones
    assert x.grad.tolist() == [[2.0]]
    y = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        (y * 2).backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        torch.ones(()).backward()


def test_product_nodes_keep_their_flags_as_class_defaults():
    torch.manual_seed(0)
    a = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(4, 5, requires_grad=True)
    node = (a @ b).grad_fn
    assert type(node).__name__ == "MmBackward0"
    assert not vars(node)  # nothing set per node on the common path
    assert (node.ta, node.tb, node.cols) == (False, False, (False, False))
    # a column-major operand records its layout on its own node, not the class
    w = torch.randn(5, 4).requires_grad_()
    out = a @ w.t()
    assert out.grad_fn.cols == (False, True)
    assert (a @ b).grad_fn.cols == (False, False)
    out.sum().backward()
    assert w.grad.stride() == (4, 1)
    np.testing.assert_allclose(w.grad.numpy(), np.ones((3, 5)).T @ a.detach().numpy(), 1e-6)


@pytest.mark.parametrize("changed", [0, 1])
def test_each_index_tensor_of_a_key_is_watched(changed):
    torch.manual_seed(0)
    x = torch.randn(4, 5, requires_grad=True)
    key = [torch.tensor([0, 1, 2]), torch.tensor([4, 3, 2])]
    out = x[key[0], key[1]]
    assert len(out.grad_fn._watched) == 2
    key[changed].add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_gradient_of_a_two_index_gather_scatters_into_place():
    x = torch.zeros(3, 4, requires_grad=True)
    rows, cols = torch.tensor([0, 2, 2]), torch.tensor([1, 3, 3])
    x[rows, cols].backward(torch.tensor([1.0, 2.0, 3.0]))
    expected = np.zeros((3, 4), np.float32)
    expected[0, 1], expected[2, 3] = 1.0, 5.0  # a repeated position adds up
    np.testing.assert_array_equal(x.grad.numpy(), expected)
