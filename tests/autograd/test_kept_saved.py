"""A second backward without retain_graph: torch frees saved tensors only, so a node that saved
none runs again, and one that saved a tensor raises (NOTE [ Kept saved values ])."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F

SECOND_TIME = "backward through the graph a second time"


def _leaf(*shape):
    rng = np.random.default_rng(0)
    return torch.tensor(rng.standard_normal(shape), requires_grad=True)


SAVES_NO_TENSOR = {
    "sum": lambda x: x.sum(dim=1),
    "add_alpha": lambda x: torch.add(x, x, alpha=2),
    "sub_alpha": lambda x: torch.sub(x, x, alpha=3),
    "sub_number": lambda x: 3 - x,
    "constant_pad": lambda x: F.pad(x, (1, 2)),
    "bilinear": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
    "nearest": lambda x: F.interpolate(x, size=(3, 5)),
    "channel_shuffle": lambda x: F.channel_shuffle(x, 2),
    "pixel_shuffle": lambda x: F.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda x: F.pixel_unshuffle(x, 2),
    "block_diag": lambda x: torch.block_diag(x[0, 0], x[0, 1]),
}


@pytest.mark.parametrize("name", sorted(SAVES_NO_TENSOR))
def test_two_losses_share_a_prefix_that_saves_no_tensor(name):
    x = _leaf(1, 4, 2, 2)
    shared = SAVES_NO_TENSOR[name](x)
    shared.sum().backward()
    first = x.grad.clone()
    (shared * 3).sum().backward()  # no retain_graph on the first: torch runs this too
    np.testing.assert_allclose(x.grad.numpy(), 4 * first.numpy())


SAVES_A_TENSOR = {
    "scale": lambda x: x * 2,  # torch saves the number as a tensor
    "mul": lambda x: x * x,
    "exp": lambda x: x.exp(),
    "reflect_pad": lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"),
    "pow": lambda x: x**2,
}


@pytest.mark.parametrize("name", sorted(SAVES_A_TENSOR))
def test_a_node_that_saved_a_tensor_still_refuses_a_second_backward(name):
    x = _leaf(1, 4, 2, 2)
    shared = SAVES_A_TENSOR[name](x)
    shared.sum().backward()
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        shared.sum().backward()


def test_alpha_scale_keeps_its_number_and_tensor_saves_are_freed_in_one_graph():
    x = _leaf(3)
    y = torch.add(x, x * 1, alpha=2).exp()  # the alpha scale keeps 2, ExpBackward0 frees its result
    y.sum().backward()
    add = y.grad_fn.next_functions[0][0]  # one AddBackward0, the scale folded in (as torch)
    assert add.name() == "AddBackward0"
    assert add(torch.ones(3))[1].tolist() == [2.0, 2.0, 2.0]  # runs again
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        y.grad_fn._stored_arrays()


def test_custom_function_that_saved_nothing_runs_twice():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = _leaf(3)
    y = Double.apply(x)
    y.sum().backward()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 4.0))
