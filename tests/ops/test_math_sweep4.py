"""Sweep 4 fixes: rounded division stays in autograd, +0. gradients of masking backwards, and
hardtanh/relu6 gradients at NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional


def _signbits(t):
    return np.signbit(t.detach().numpy()).tolist()


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_rounding_mode_is_recorded_with_zero_gradients(mode):
    a = mt.tensor([3.3, -1.7], requires_grad=True)
    b = mt.tensor([2.0, 0.5], requires_grad=True)
    q = mt.div(a, b, rounding_mode=mode)
    assert q.requires_grad and q.grad_fn.name() == "DivBackward2"
    expected = [1.0, -4.0] if mode == "floor" else [1.0, -3.0]
    np.testing.assert_array_equal(q.detach().numpy(), expected)
    q.backward(mt.tensor([float("nan"), -1.0]))  # zeros, not grad * 0
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 0.0])
    assert _signbits(a.grad) == [False, False]


def test_div_floor_in_place_on_non_leaf_keeps_a_node():
    a = mt.tensor([3.3, -1.7], requires_grad=True)
    c = a * 1
    c.div_(mt.tensor([2.0, 0.5]), rounding_mode="floor")
    assert not c.is_leaf and c.grad_fn.name() == "DivBackward2"
    np.testing.assert_array_equal(c.detach().numpy(), [1.0, -4.0])


def test_floor_divide_requires_grad_and_backward_raises():
    a = mt.tensor([3.3, -1.7], requires_grad=True)
    for q in (a // 2, mt.floor_divide(a, mt.tensor([2.0, 0.5])), 2 // a):
        assert q.requires_grad and q.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::floor_divide"):
            q.sum().backward()
    np.testing.assert_array_equal((a // 2).detach().numpy(), [1.0, -1.0])


def test_relu_gradient_zeros_are_positive_and_nan_passes():
    x = mt.tensor([[-1.0, 2.0, -3.0, float("nan")]], requires_grad=True)
    x.relu().backward(mt.tensor([[-1.0, -1.0, float("nan"), -2.0]]))
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, -1.0, 0.0, -2.0]])
    assert _signbits(x.grad) == [[False, True, False, True]]
    # the reused-gradient path (mul hands relu an owned gradient), and the Tensor-level one
    x.grad = None
    (x.relu() * -1.0).sum().backward()
    assert _signbits(x.grad) == [[False, True, False, True]]
    (g,) = mt.autograd.grad((x.relu() * -1.0).sum(), x, create_graph=True)
    assert _signbits(g) == [[False, True, False, True]]


def test_relu_gradient_half_and_gradcheck():
    x = mt.tensor([-1.0, 2.0], dtype=mt.float16, requires_grad=True)
    x.relu().backward(mt.tensor([-1.0, -1.0], dtype=mt.float16))
    assert _signbits(x.grad) == [False, True]
    x64 = mt.tensor([-1.0, 2.0, 0.5], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.relu, (x64,)) and gradgradcheck(mt.relu, (x64,))


def test_full_max_min_gradients_are_positive_zero_off_the_extremes():
    x = mt.tensor([[-1.0, 2.0, -3.0]], requires_grad=True)
    (-x.max()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, -1.0, 0.0]])
    assert _signbits(x.grad) == [[False, True, False]]
    x.grad = None
    x.min().backward(mt.tensor(float("nan")))
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0, float("nan")]])
    t = mt.tensor([1.0, 3.0, 3.0, 3.0], requires_grad=True)  # ties: grad / k, as torch divides
    t.max().backward(mt.tensor(1.0))
    np.testing.assert_array_equal(t.grad.numpy(), np.array([0, 1, 1, 1], np.float32) / 3)
    x64 = mt.tensor([[1.0, 3.0], [3.0, 0.0]], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda v: v.max(), (x64,)) and gradgradcheck(lambda v: v.min(), (x64,))


def test_max_pool_gradient_zeros_are_positive_and_nan_stays_at_the_argmax():
    x = mt.tensor([[-1.0, 2.0, -3.0, 0.5]], requires_grad=True)
    F.max_pool1d(x[None], 2).backward(mt.tensor([[[-1.0, float("nan")]]]))
    got = x.grad.numpy()[0].tolist()
    assert got[:3] == [0.0, -1.0, 0.0] and math.isnan(got[3]), got
    assert _signbits(x.grad)[0][:3] == [False, True, False]
    y = mt.tensor([[[[1.0, 5.0], [3.0, 4.0]]]], requires_grad=True)
    F.max_pool2d(y, 2).backward(-mt.ones(1, 1, 1, 1))
    assert _signbits(y.grad)[0][0] == [[False, True], [False, False]]


@pytest.mark.parametrize("fn", [F.hardtanh, F.relu6])
def test_hardtanh_relu6_pass_the_gradient_at_nan(fn):
    x = mt.tensor([float("nan"), 0.5, 7.0], requires_grad=True)
    fn(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 0.0])
    x64 = mt.tensor([float("nan"), 0.5, 7.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(fn(x64).sum(), x64, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [1.0, 1.0, 0.0])
    ok = mt.tensor([-2.0, 0.5, 3.0], dtype=mt.float64, requires_grad=True)
    assert gradcheck(fn, (ok,)) and gradgradcheck(fn, (ok,))
