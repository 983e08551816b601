"""fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine (minitorch/_ops/quantize.py):
values worked out by hand (ties to even, clamping, the zero point, the precision of each step), the
straight-through gradient, torch's errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

fq_tensor = mt.fake_quantize_per_tensor_affine
fq_channel = mt.fake_quantize_per_channel_affine

# x / 0.5 = [-6, -0.5, 0.5, 1.5, 2.5, 2, 3.2, 4, 10]: ties round to even (-0, 0, 2, 2)
X = [-3.0, -0.25, 0.25, 0.75, 1.25, 1.0, 1.6, 2.0, 5.0]


def _grad(y, x, g=None):
    return mt.autograd.grad(y, x, mt.ones_like(y) if g is None else g)[0].numpy()


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.float16])
def test_per_tensor_values_ties_and_clamping(dtype):
    x = mt.tensor(X, dtype=dtype, requires_grad=True)
    # zero point 0, range [-4, 3]: q = [-6, -0, 0, 2, 2, 2, 3, 4, 10] clamped to [-4, 3]
    y = fq_tensor(x, 0.5, 0, -4, 3)
    assert y.dtype is dtype
    assert type(y.grad_fn).__name__ == "FakeQuantizePerTensorAffineCachemaskBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), [-2, 0, 0, 1, 1, 1, 1.5, 1.5, 1.5])
    # the gradient passes where the quantized value was in range, before clamping
    np.testing.assert_array_equal(_grad(y, x), [0, 1, 1, 1, 1, 1, 1, 0, 0])
    # zero point 1: q = [-5, 1, 1, 3, 3, 3, 4, 5, 11] (added after rounding) clamped to [-4, 3]
    y = fq_tensor(x, 0.5, 1, -4, 3)
    np.testing.assert_array_equal(y.detach().numpy(), [-2.5, 0, 0, 1, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(_grad(y, x), [0, 1, 1, 1, 1, 1, 0, 0, 0])


def test_per_tensor_tensor_qparams():
    x = mt.tensor(X, requires_grad=True)
    y = fq_tensor(x, mt.tensor(0.5), mt.tensor(1, dtype=mt.int32), -4, 3)
    assert type(y.grad_fn).__name__ == "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), [-2.5, 0, 0, 1, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(_grad(y, x), [0, 1, 1, 1, 1, 1, 0, 0, 0])
    # a float zero point is read as an integer (truncated), and not range-checked
    y2 = fq_tensor(x, mt.tensor([0.5]), mt.tensor([1.75]), -4, 3)
    np.testing.assert_array_equal(y2.detach().numpy(), y.detach().numpy())
    np.testing.assert_array_equal(fq_tensor(x, mt.tensor(1.0), mt.tensor(10), -4, 3).detach(), -7)


def test_per_tensor_precision_and_non_finite():
    # x * float32(1 / float32(0.1)) rounds to 3; the dequantization 3 * 0.1 is a float32 product
    # even for float64 input
    y = fq_tensor(mt.tensor([0.3], dtype=mt.float64), 0.1, 0, -128, 127)
    assert y.item() == float(np.float32(3) * np.float32(0.1)) == 0.30000001192092896
    # NaN and -inf land on quant_min, +inf on quant_max; none of them passes a gradient
    x = mt.tensor([math.nan, math.inf, -math.inf], requires_grad=True)
    y = fq_tensor(x, 1.0, 0, -4, 3)
    np.testing.assert_array_equal(y.detach().numpy(), [-4, 3, -4])
    np.testing.assert_array_equal(_grad(y, x), [0, 0, 0])


def test_per_channel_values():
    x = mt.tensor([[0.75, -1.25, 5.0], [0.375, -2.5, 0.125]], requires_grad=True)
    scale = mt.tensor([0.5, 0.25])
    # row 0: x / 0.5 = [1.5, -2.5, 10] -> [2, -2, 10] -> clamped [2, -2, 7]
    # row 1: x / 0.25 = [1.5, -10, 0.5] -> [2, -10, 0] + 2 = [4, -8, 2]
    y = fq_channel(x, scale, mt.tensor([0, 2], dtype=mt.int32), 0, -8, 7)
    assert type(y.grad_fn).__name__ == "FakeQuantizePerChannelAffineCachemaskBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), [[1.0, -1.0, 3.5], [0.5, -2.5, 0.0]])
    np.testing.assert_array_equal(_grad(y, x), [[1, 1, 0], [1, 1, 1]])
    # a floating zero point is added before rounding: row 0: [2.0, -2.0, 10.5] -> [2, -2, 10];
    # row 1: [3.0, -8.5, 2.0] -> [3, -8, 2] (ties to even)
    y = fq_channel(x, scale, mt.tensor([0.5, 1.5]), 0, -8, 7)
    np.testing.assert_array_equal(y.detach().numpy(), [[0.75, -1.25, 3.25], [0.375, -2.375, 0.125]])
    np.testing.assert_array_equal(_grad(y, x), [[1, 1, 0], [1, 1, 1]])
    # along the last axis, and in float64 the dequantization is a float64 product
    x64 = mt.tensor([[0.3, 0.6]], dtype=mt.float64)
    y = fq_channel(x64, mt.tensor([0.1, 0.2]), mt.tensor([0, 0], dtype=mt.int32), 1, -128, 127)
    assert y.dtype is mt.float64
    expected = [3 * float(np.float32(0.1)), 3 * float(np.float32(0.2))]
    np.testing.assert_array_equal(y.numpy(), [expected])
    # NaN / inf with a floating zero point: quant_min
    y = fq_channel(mt.tensor([[math.nan, math.inf]]), mt.tensor([1.0]), mt.tensor([0.5]), 0, -4, 3)
    np.testing.assert_array_equal(y.numpy(), [[-4.5, -4.5]])


def test_half_input_and_empty():
    y = fq_channel(
        mt.tensor([[1.3]], dtype=mt.float16), mt.tensor([0.5]), mt.tensor([0.0]), 0, 0, 9
    )
    assert y.dtype is mt.float16 and y.item() == 1.5
    e = fq_channel(
        mt.zeros(0, 2), mt.tensor([0.1, 0.2]), mt.tensor([0, 0], dtype=mt.int32), 1, 0, 9
    )
    assert e.shape == (0, 2)
    assert fq_tensor(mt.tensor(0.26), 0.1, 0, -128, 127).shape == ()


def test_straight_through_gradcheck():
    # steps of 2**-34 are far below gradcheck's finite-difference step, so the numerical
    # derivative is the straight-through one: 1 in range, 0 clamped (the range ends at +-2**-10)
    rng = np.random.default_rng(0)
    mags = rng.choice([0.2, 0.6, 1.5], size=(3, 4)) * rng.choice([-1.0, 1.0], size=(3, 4))
    x = mt.tensor(mags * 2.0**-10, dtype=mt.float64, requires_grad=True)
    ops = [
        lambda a: fq_tensor(a, 2.0**-34, 0, -(2**24), 2**24),
        lambda a: fq_tensor(a, mt.tensor(2.0**-34), mt.tensor(0), -(2**24), 2**24),
        lambda a: fq_channel(
            a, mt.full((4,), 2.0**-34), mt.zeros(4, dtype=mt.int32), 1, -(2**24), 2**24
        ),
        lambda a: fq_channel(a, mt.full((3,), 2.0**-34), mt.zeros(3), 0, -(2**24), 2**24),
    ]
    for op in ops:
        assert gradcheck(op, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        assert gradgradcheck(op, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        np.testing.assert_array_equal(_grad(op(x), x), np.abs(mags) < 1)


def test_double_backward_is_grad_times_mask():
    x = mt.tensor([-9.0, 0.3, 1.2], dtype=mt.float64, requires_grad=True)
    g = mt.tensor([2.0, -3.0, 5.0], dtype=mt.float64, requires_grad=True)
    (gx,) = mt.autograd.grad(fq_tensor(x, 0.1, 0, -10, 10), x, g, create_graph=True)
    np.testing.assert_array_equal(gx.detach().numpy(), [0.0, -3.0, 0.0])
    (gg,) = mt.autograd.grad(gx.sum(), g)
    np.testing.assert_array_equal(gg.numpy(), [0.0, 1.0, 0.0])


_X = [[-1.0, 0.0, 1.0], [2.0, 3.0, 4.0]]
_I32 = mt.int32


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda x: fq_tensor(x, 0.1, 0, 5, 4),
            RuntimeError,
            "`quant_min` should be less than or         equal to `quant_max`.",
        ),
        (
            lambda x: fq_tensor(x, 0.1, 200, -128, 127),
            RuntimeError,
            "`zero_point` must be between `quant_min` and `quant_max`.",
        ),
        (
            lambda x: fq_tensor(x, mt.tensor(0.1), mt.tensor(0), 5, 4),
            RuntimeError,
            "`quant_min` should be less than or         equal to `quant_max`.",
        ),
        (
            lambda x: fq_tensor(x.int(), 0.1, 0, -128, 127),
            NotImplementedError,
            "\"fake_quantize_tensor_cachemask_kernel_type_handling\" not implemented for 'Int'",
        ),
        (lambda x: fq_tensor(x, 0.1, 0.5, -128, 127), TypeError, "zero_point"),
        (
            lambda x: fq_tensor(x, mt.tensor([0.1, 0.2]), mt.tensor(0), -128, 127),
            RuntimeError,
            "a Tensor with 2 elements cannot be converted to Scalar",
        ),
        (
            lambda x: fq_tensor(x, mt.tensor(0.1, requires_grad=True), mt.tensor(0), -128, 127),
            RuntimeError,
            "is not differentiable with respect to argument 'scale'",
        ),
        (
            lambda x: fq_channel(x, mt.tensor([0.1, 0.2]), mt.tensor([0, 1]), 0, -128, 127),
            RuntimeError,
            "Zero-point must be Int32, Float or Half, found Long",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([0.1, 0.2]).double(), mt.tensor([0, 1], dtype=_I32), 0, -128, 127
            ),
            RuntimeError,
            "Scale must be Float or BFloat16, found Double",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([[0.1, 0.2]]), mt.tensor([0, 1], dtype=_I32), 0, -128, 127
            ),
            RuntimeError,
            "scale should be a 1-D tensor",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([0.1, 0.2]), mt.tensor([0, 1, 2], dtype=_I32), 0, -128, 127
            ),
            RuntimeError,
            "scale and zero-point need to have the same dimensions",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([0.1, 0.2, 0.3]), mt.tensor([0, 1, 2], dtype=_I32), 0, -128, 127
            ),
            RuntimeError,
            "dimensions of scale and zero-point are not consistent with input tensor",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([0.1, 0.2]), mt.tensor([0, 1], dtype=_I32), 2, -128, 127
            ),
            IndexError,
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([0.1, 0.2, 0.3]), mt.tensor([0, 1, 2], dtype=_I32), -1, -128, 127
            ),
            RuntimeError,
            "`axis` must be between 0 and number of dimensions of input",
        ),
        (
            lambda x: fq_channel(
                x, mt.tensor([0.1, 0.2]), mt.tensor([0, 300], dtype=_I32), 0, -128, 127
            ),
            RuntimeError,
            "`zero_point` must be between `quant_min` and `quant_max`.",
        ),
        (
            lambda x: fq_channel(
                x.int(), mt.tensor([0.1, 0.2]), mt.tensor([0, 1], dtype=_I32), 0, -128, 127
            ),
            NotImplementedError,
            "\"fake_quantize_channel_cachemask_cpu_type_handling\" not implemented for 'Int'",
        ),
        (
            lambda x: fq_channel(
                x[0, 0], mt.tensor([0.1]), mt.tensor([0], dtype=_I32), 0, -128, 127
            ),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
    ],
)
def test_errors(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call(mt.tensor(_X))


def test_requires_grad_qparams_allowed_under_no_grad():
    with mt.no_grad():
        y = fq_tensor(mt.tensor([0.26]), mt.tensor(0.1, requires_grad=True), mt.tensor(0), -9, 9)
    np.testing.assert_allclose(y.numpy(), [0.3], rtol=1e-6, err_msg="no_grad qparams")


# --- quantile's size limit (minitorch/_ops/reduction_more.py; kept here beside the other
# fixes of the same sweep) ---


@pytest.mark.parametrize("fn", [mt.quantile, mt.nanquantile])
def test_quantile_refuses_more_than_2_24_values_along_the_reduced_dim(fn):
    # expanded views: no 64 MB array is allocated, and the check comes before any copy
    over = mt.zeros(1).expand(2**24 + 1)
    with pytest.raises(RuntimeError, match=r"^quantile\(\) input tensor is too large$"):
        fn(over, 0.5)
    with pytest.raises(RuntimeError, match="too large"):
        fn(mt.zeros(1, 1).expand(2**24 + 1, 1), mt.tensor([0.25, 0.5]), dim=-2)
    # dim=None counts the whole tensor, though no single dim is over the limit
    with pytest.raises(RuntimeError, match="too large"):
        fn(mt.zeros(1, 1).expand(2, 2**23 + 1), 0.5)
    # the argument checks come first, as in torch
    with pytest.raises(RuntimeError, match="q must be in the range"):
        fn(over, 1.5)
    assert fn(mt.tensor([1.0, 3.0, 2.0]), 0.5).item() == 2.0
