"""Losses: the order of their checks (a learnable weight or target refused before the kernel's
shape, dtype and value errors; the reduction before the argument types), uint8 class indices
in messages, a Python float variance, and the gradients of the class-probability cross
entropy, checked without torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

NOT_DIFF = "The function '{}' is not differentiable with respect to argument '{}'."


def _x():
    return minitorch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])


@pytest.mark.parametrize(
    ("call", "op", "arg"),
    [
        (lambda x, w: F.nll_loss(x, minitorch.tensor([0.0, 2.0]), weight=w), "nll_loss_forward",
         "weight"),
        (lambda x, w: F.cross_entropy(x, minitorch.zeros(2, 2, dtype=minitorch.long), weight=w),
         "nll_loss_forward", "weight"),
        (lambda x, w: F.nll_loss(minitorch.ones(2, 3, 4, 5), minitorch.zeros(2, 5).long(),
                                 weight=w), "nll_loss2d_forward", "weight"),
        (lambda x, w: F.binary_cross_entropy(x.long(), x, weight=w), "binary_cross_entropy",
         "weight"),
        (lambda x, w: F.binary_cross_entropy_with_logits(x, x.bool(), weight=w),
         "binary_cross_entropy_with_logits", "weight"),
        (lambda x, w: F.binary_cross_entropy_with_logits(x, x, pos_weight=minitorch.ones(
            4, requires_grad=True)), "binary_cross_entropy_with_logits", "pos_weight"),
        (lambda x, w: F.multi_margin_loss(x, minitorch.tensor([0, 5]), weight=w),
         "multi_margin_loss", "weight"),
        (lambda x, w: F.soft_margin_loss(x.long(), minitorch.ones(2, 3, requires_grad=True)),
         "soft_margin_loss", "target"),
    ],
)  # fmt: skip
def test_learnable_argument_refused_before_kernel_checks(call, op, arg):
    w = minitorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        call(_x(), w)
    assert str(info.value).startswith(NOT_DIFF.format(op, arg)), str(info.value)
    with minitorch.no_grad(), pytest.raises(Exception) as info:  # then the kernel's own error
        call(_x(), w)
    assert "not differentiable" not in str(info.value)


def test_nll_checks_batch_sizes_before_refusing_the_weight():
    w = minitorch.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target"):
        F.nll_loss(_x(), minitorch.zeros(3, dtype=minitorch.long), weight=w)
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 5\]"):
        F.nll_loss(minitorch.ones(2, 3, 4), minitorch.zeros(2, 5).long(), weight=w)


def test_uint8_class_index_out_of_range_messages():
    x = _x()
    with pytest.raises(IndexError, match=r"^Target \x05 is out of bounds\.$"):
        F.nll_loss(x, minitorch.tensor([1, 5], dtype=minitorch.uint8), reduction="none")
    with pytest.raises(IndexError, match=r"^Target d is out of bounds\.$"):
        F.cross_entropy(x, minitorch.tensor([1, 100], dtype=minitorch.uint8), reduction="none")
    with pytest.raises(UnicodeDecodeError, match="can't decode byte 0xc8 in position 7"):
        F.nll_loss(x, minitorch.tensor([200, 1], dtype=minitorch.uint8), reduction="none")
    for red, xx, t in (("mean", x, [1, 5]), ("none", x[0], [5])):  # numbers elsewhere
        with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
            F.nll_loss(xx, minitorch.tensor(t, dtype=minitorch.uint8), reduction=red)


def test_cross_entropy_uint8_target_smoothed_weighted_mean_refused():
    x, w = _x(), minitorch.tensor([0.5, 1.0, 2.0])
    t = minitorch.tensor([0, 2], dtype=minitorch.uint8)
    with pytest.raises(RuntimeError, match=r"gather\(\): Expected dtype int32/int64 for index"):
        F.cross_entropy(x, t, weight=w, label_smoothing=0.5)
    got = F.cross_entropy(x, t, weight=w, label_smoothing=0.5, reduction="sum")
    want = F.cross_entropy(x, t.long(), weight=w, label_smoothing=0.5, reduction="sum")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_cross_entropy_probabilities_check_order():
    x, p = _x(), minitorch.full((2, 3), 1 / 3)
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 3"):
        F.cross_entropy(x, p, weight=minitorch.ones(2), label_smoothing=1.5)
    with pytest.raises(NotImplementedError, match="log_softmax_lastdim_kernel_impl"):
        F.cross_entropy(x.long(), p, label_smoothing=1.5)
    with pytest.raises(
        RuntimeError, match=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"
    ):
        F.cross_entropy(x, p, label_smoothing=1.5)


def test_reduction_checked_before_argument_types():
    x = _x()
    for call in (
        lambda: F.hinge_embedding_loss(x, [1.0], reduction="avg"),
        lambda: F.cosine_embedding_loss(x, x, [1.0], reduction="avg"),
        lambda: F.triplet_margin_loss(x, x, [1.0], reduction="avg"),
        lambda: F.soft_margin_loss(x, [1.0], reduction="avg"),
        lambda: F.multilabel_margin_loss(x, [1.0], reduction="avg"),
        lambda: F.multi_margin_loss(x, [1.0], reduction="avg"),
        lambda: F.kl_div(x, [1.0], reduction="avg"),
        lambda: F.poisson_nll_loss(x, [1.0], reduction="avg"),
    ):
        with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
            call()
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(x, [0, 1], p=3)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        with pytest.raises(TypeError, match=r"argument 'target' \(position 2\) must be Tensor"):
            F.hinge_embedding_loss(x, 1.5, size_average=False)


def test_soft_margin_integer_input_broadcast_error_first():
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of"):
        F.soft_margin_loss(_x().long(), minitorch.ones(2, 2))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output"):
        F.soft_margin_loss(_x().long(), minitorch.ones(2, 1))


def test_gaussian_nll_float_var_of_integer_input():
    x = minitorch.tensor([1, 0, 2])
    target = minitorch.tensor([0.5, 1.0, 2.0])
    out = F.gaussian_nll_loss(x, target, 1.5, reduction="none")
    assert out.dtype is minitorch.float32
    want = 0.5 * (math.log(1.5) + (np.array([1, 0, 2]) - np.array([0.5, 1.0, 2.0])) ** 2 / 1.5)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        F.gaussian_nll_loss(x.bool(), target, 1.5)


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("shape", [(3, 4), (4,), (2, 3, 2)])
def test_cross_entropy_probabilities_twice_differentiable(shape, smoothing):
    gen = np.random.default_rng(7)
    class_dim = 0 if len(shape) == 1 else 1
    x = minitorch.tensor(gen.standard_normal(shape), requires_grad=True)
    p = gen.uniform(0.1, 1.0, shape)
    p = minitorch.tensor(p / p.sum(class_dim, keepdims=True), requires_grad=True)
    w = minitorch.tensor(gen.uniform(0.5, 2.0, shape[class_dim]))

    def fn(a, b):
        return F.cross_entropy(a, b, weight=w, label_smoothing=smoothing)

    assert gradcheck(fn, (x, p))
    assert gradgradcheck(fn, (x, p))
