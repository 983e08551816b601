"""Checks that need no torch: prelu's weight view and saved values (with first and second
derivatives), elu/selu/celu and softplus with integer coefficients, where's explicit out=None,
fold/unfold sizes given as tensors, and torch.embedding_bag's bag sizes with padding."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional


def _rand(shape, seed):
    """float64 values in [-1, -0.1] or [0.1, 1]: away from 0, where prelu and elu have kinks."""
    rng = np.random.default_rng(seed)
    v = rng.uniform(0.1, 1.0, shape) * rng.choice([-1.0, 1.0], shape)
    return minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True)


@pytest.mark.parametrize(
    ("xs", "ws", "saved"),
    [
        ((2, 3), (1,), (1, 1)),
        ((2, 3), (), (1, 1)),
        ((2, 3, 4), (1,), (1, 1, 1)),
        ((2, 3, 4), (3,), (1, 3, 1)),
        ((3,), (1,), (1,)),
        ((), (1,), ()),
        ((4,), (), (1,)),
    ],
)
def test_prelu_weight_view_and_derivatives(xs, ws, saved):
    x = _rand(xs, 1)
    w = minitorch.tensor(
        np.linspace(0.1, 0.4, int(np.prod(ws))).reshape(ws), dtype=minitorch.float64,
        requires_grad=True,
    )  # fmt: skip
    y = F.prelu(x, w)
    assert tuple(y.shape) == xs
    node = y.grad_fn
    assert tuple(node._saved_weight.shape) == saved
    assert node._saved_self is x
    xn, wn = x.detach().numpy(), w.detach().numpy().reshape(saved)
    np.testing.assert_allclose(
        y.detach().numpy(), np.where(xn > 0, xn, wn * xn), rtol=0, atol=0, err_msg=str(xs)
    )
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))
    (gx,) = minitorch.autograd.grad(y, x, minitorch.ones_like(y), create_graph=True)
    double = gx.grad_fn
    assert type(double).__name__ == "PreluKernelBackwardBackward0"
    assert tuple(double._saved_weight.shape) == saved
    assert double._saved_self is x


@pytest.mark.parametrize("op", ["elu", "selu", "celu"])
def test_elu_family_integer_coefficients(op):
    x = _rand((3, 4), 2)
    fn = getattr(F, op)
    y = fn(x)
    xn = x.detach().numpy()
    alpha, scale = {"elu": (1.0, 1.0), "celu": (1.0, 1.0)}.get(
        op, (1.6732632423543772, 1.0507009873554805)
    )
    want = scale * np.where(xn > 0, xn, alpha * np.expm1(xn))
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-15, atol=0, err_msg=op)
    node = y.grad_fn
    assert node._saved_alpha == alpha
    if op != "celu":
        assert node._saved_input_scale.__class__ is int and node._saved_input_scale == 1
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_softplus_integer_defaults_equal_float_ones():
    x = _rand((5, 3), 3)
    a = F.softplus(x)
    b = F.softplus(x, 1.0, 20.0)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert (a.grad_fn._saved_beta, a.grad_fn._saved_threshold) == (1, 20)
    assert a.grad_fn._saved_beta.__class__ is int
    assert b.grad_fn._saved_beta.__class__ is float
    assert gradcheck(F.softplus, (x,))
    assert gradgradcheck(F.softplus, (x,))


def test_where_out_none_takes_tensors_only():
    x = minitorch.arange(4.0)
    c = x > 1
    with pytest.raises(
        TypeError, match=r"argument 'other' \(position 3\) must be Tensor, not float"
    ):
        minitorch.where(c, x, 0.0, out=None)
    with pytest.raises(TypeError, match=r"got \(Tensor, out=NoneType\)"):
        minitorch.where(c, out=None)
    np.testing.assert_array_equal(minitorch.where(c, x, x * 2, out=None).numpy(), [0, 2, 2, 3])
    np.testing.assert_array_equal(minitorch.where(c, x, 0.0).numpy(), [0, 0, 2, 3])


def test_fold_sizes_as_tensors():
    cols = minitorch.arange(36.0).reshape(1, 4, 9)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        F.fold(cols, minitorch.tensor(4), 2)
    with pytest.raises(RuntimeError, match="output_size equals to 2, but got size 1"):
        F.fold(cols, minitorch.tensor([4]), 2)
    out = F.fold(cols, minitorch.tensor([4, 4]), minitorch.tensor([2, 2]))
    np.testing.assert_array_equal(out.numpy(), F.fold(cols, 4, 2).numpy())
    img = minitorch.arange(16.0).reshape(1, 1, 4, 4)
    strided = F.unfold(img, 2, 1, 0, range(1, 3))  # stride (1, 2)
    assert tuple(strided.shape) == (1, 4, 6)


def test_embedding_bag_sizes_leave_padding_out():
    w = minitorch.arange(20.0).reshape(5, 4)
    idx = minitorch.tensor([1, 2, 3, 2, 2, 0])
    offsets = minitorch.tensor([0, 3, 5])
    for mode in (1, 2):
        _, bag_of, size, _ = minitorch.embedding_bag(
            w, idx, offsets, False, mode, False, None, False, 2
        )
        np.testing.assert_array_equal(bag_of.numpy(), [0, 0, 0, 1, 1, 2])
        np.testing.assert_array_equal(size.numpy(), [2, 0, 1], err_msg=str(mode))
    out, bag_of, size, best = minitorch.embedding_bag(
        w, idx, minitorch.tensor([0, 3, 6]), False, 0, False, None, True, None
    )
    assert bag_of.numel() == 0
    np.testing.assert_array_equal(size.numpy(), [0, 0, 0])
    np.testing.assert_array_equal(best.numpy(), [0, 0, 0])
    np.testing.assert_array_equal(out[1].numpy(), (w[2] * 2 + w[0]).numpy())
