"""Convolution, pooling and interpolation against torch 2.13's behaviour: the order and words of
the argument checks (negative padding before the channel check, a negative or zero dilation,
groups above the weight's size, a weight of another rank, pool arguments before the input's
emptiness, adaptive output sizes of the wrong length or sign), and interpolation's float32
source coordinates (one rounding) and half-precision weights (kept in the half type). Expected
messages and values were printed by torch for the same calls."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F


def _z(*shape, dtype=minitorch.float64):
    return minitorch.zeros(*shape, dtype=dtype)


def _vals(shape, dtype):
    """A fixed pattern of values in [-5/3, 5/3], rounded to dtype."""
    n = int(np.prod(shape))
    v = ((np.arange(n) * 7 % 11) - 5) / 3.0
    return minitorch.tensor(v, dtype=minitorch.float32).reshape(shape).to(dtype)


# --- convolution: torch's checks, in torch's order ---

_CONV_ERRORS = [
    # negative padding is refused before the input's channels are compared
    (lambda: F.conv1d(_z(1, 1, 4), _z(1, 2, 2), padding=-1), "negative padding is not supported"),
    (
        lambda: F.conv_transpose2d(_z(1, 1, 4, 4), _z(2, 2, 2, 2), padding=-1),
        "negative padding is not supported",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), padding=-1, stride=0),
        "negative padding is not supported",
    ),
    (
        lambda: F.conv_transpose2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), stride=0, output_padding=-1),
        "negative output_padding is not supported",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), dilation=-1),
        "dilation should be greater than zero",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), dilation=0, groups=0),
        "non-positive groups is not supported",
    ),
    # a zero dilation is refused by torch's dilated kernel, after the channels
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 2, 2, 2), dilation=0),
        "Given groups=1, weight of size [1, 2, 2, 2], expected input[1, 1, 4, 4] to have 2 "
        "channels, but got 1 channels instead",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), dilation=[1, 0]),
        "dilation should be greater than zero, but got [1, 0]",
    ),
    (
        lambda: F.conv1d(_z(1, 1, 4), _z(1, 1, 2), dilation=0),
        "dilation should be greater than zero, but got [1, 0]",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 0, 2), dilation=2),
        "kernel size should be greater than zero, but got [0, 2]",
    ),
    (
        lambda: F.conv_transpose2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), dilation=[0, 1]),
        "dilation should be greater than zero, but got dilation_height: 0, dilation_width: 1",
    ),
    (
        lambda: F.conv_transpose3d(_z(1, 1, 4, 4, 4), _z(1, 1, 2, 2, 2), dilation=[1, 0, 1]),
        "dilation should be greater than zero, but got dilation_depth: 1, dilation_height: 0, "
        "dilation_width: 1",
    ),
    # groups above the weight's size
    (
        lambda: F.conv3d(_z(2, 2, 4, 4, 4), _z(2, 2, 2, 2, 2), groups=3),
        "Given groups=3, expected weight to be at least 3 at dimension 0, but got weight of "
        "size [2, 2, 2, 2, 2] instead",
    ),
    (
        lambda: F.conv1d(_z(2, 2, 4), _z(2, 2, 2), groups=3, padding="same"),
        "Given groups=3, expected weight to be at least 3 at dimension 0, but got weight of "
        "size [2, 2, 2] instead",
    ),
    (
        lambda: F.conv_transpose2d(_z(1, 1, 4, 4), _z(0, 1, 2, 2)),
        "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of "
        "size [0, 1, 2, 2] instead",
    ),
    # a weight of another rank than the convolution's
    (
        lambda: F.conv1d(_z(1, 1, 4), _z(1, 1, 2, 2)),
        "Expected 4-dimensional input for 4-dimensional weight [1, 1, 2, 2], but got "
        "3-dimensional input of size [1, 1, 4] instead",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2), padding="same"),
        "Expected 3-dimensional input for 3-dimensional weight[1, 1, 2], but got "
        "4-dimensional input of size [1, 1, 4, 4] instead",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2, 2), stride=[1]),
        "expected padding to be a single integer value or a list of 3 values to match the "
        "convolution dimensions, but got padding=[0, 0]",
    ),
    (
        lambda: F.conv_transpose2d(
            _z(1, 1, 4, 4), _z(1, 1, 2, 2, 2), stride=[1], padding=[0], dilation=[1]
        ),
        "expected output_padding to be a single integer value or a list of 3 values to match "
        "the convolution dimensions, but got output_padding=[0, 0]",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), padding="same", stride=[1, 1, 1]),
        "stride cannot broadcast to 2 dimensions",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), padding="same", stride=2, dilation=-1),
        "padding='same' is not supported for strided convolutions",
    ),
    # torch reports the input as padded for an even kernel
    (
        lambda: F.conv2d(_z(1, 3, 4, 4), _z(1, 1, 2, 2), padding="same"),
        "Given groups=1, weight of size [1, 1, 2, 2], expected input[1, 3, 5, 5] to have 1 "
        "channels, but got 3 channels instead",
    ),
    (
        lambda: F.conv2d(_z(1, 1, 4, 4), _z(1, 1), _z(1, dtype=minitorch.float32)),
        "Input type (double) and bias type (float) should be the same",
    ),
    # the transposed convolution: channels, then the bias, then the kernel, then the dtype
    (
        lambda: F.conv_transpose2d(_z(1, 3, 4, 4), _z(1, 1, 0, 2)),
        "Given transposed=1, weight of size [1, 1, 0, 2], expected input[1, 3, 4, 4] to have 1 "
        "channels, but got 3 channels instead",
    ),
    (
        lambda: F.conv_transpose2d(_z(1, 1, 4, 4), _z(1, 1, 2, 2), _z(3)),
        "Given transposed=1, weight of size [1, 1, 2, 2], expected bias to be 1-dimensional "
        "with 1 elements, but got bias of size [3] instead",
    ),
    (
        lambda: F.conv_transpose2d(
            _z(1, 1, 4, 4, dtype=minitorch.int32),
            _z(1, 1, 2, 2, dtype=minitorch.int32),
            output_padding=1,
        ),
        "output padding must be smaller than either stride or dilation, but got "
        "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
        "dilation_height: 1 dilation_width: 1",
    ),
    (
        lambda: F.conv_transpose2d(
            _z(1, 1, 1, 1), _z(1, 1, 1, 1, dtype=minitorch.float32), padding=2
        ),
        "Given input size per channel: (1 x 1). Calculated output size per channel: (-3 x -3). "
        "Output size is too small",
    ),
    # the padded size is checked before the dtypes
    (
        lambda: F.conv2d(_z(1, 1, 1, 1), _z(1, 1, 2, 2, dtype=minitorch.float32)),
        "Calculated padded input size per channel: (1 x 1). Kernel size: (2 x 2). Kernel size "
        "can't be greater than actual input size",
    ),
]


@pytest.mark.parametrize("call, message", _CONV_ERRORS)
def test_conv_argument_errors(call, message):
    with pytest.raises(RuntimeError, match="^" + re.escape(message) + "$"):
        call()


def test_conv_zero_dilation_of_an_empty_batch_runs():
    out = F.conv2d(_z(0, 1, 4, 4), _z(1, 1, 2, 2), dilation=0)
    assert out.shape == (0, 1, 4, 4)
    out = F.conv_transpose2d(_z(0, 1, 4, 4), _z(1, 1, 2, 2), dilation=0)
    assert out.shape == (0, 1, 4, 4)


# --- pooling: the arguments before the input's emptiness ---

_f32 = minitorch.float32

_POOL_ERRORS = [
    (
        lambda: F.max_pool2d(_z(0, 1, 49, dtype=_f32), 2, stride=50, padding=-1),
        RuntimeError,
        "pad must be non-negative, but got pad: -1",
    ),
    (
        lambda: F.avg_pool2d(_z(0, 1, 49, dtype=_f32), (3, 2), stride=50, padding=4),
        RuntimeError,
        "pad should be at most half of effective kernel size, but got pad=4, kernel_size=3 and "
        "dilation=1",
    ),
    (
        lambda: F.avg_pool3d(_z(0, 1, 49, 50, dtype=_f32), 2, stride=50, padding=-1),
        RuntimeError,
        "pad must be non-negative, but got pad: -1",
    ),
    (
        lambda: F.max_pool3d(_z(0, 1, 49, 50, dtype=_f32), 2, padding=4, return_indices=True),
        RuntimeError,
        "pad should be at most half of effective kernel size, but got pad=4, kernel_size=2 and "
        "dilation=1",
    ),
    (
        lambda: F.max_pool2d(_z(2, 1, 10, 0, dtype=_f32), 1),
        RuntimeError,
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
        "got:[2, 1, 10, 0]",
    ),
    (
        lambda: F.avg_pool2d(_z(2, 2, 2, 2, 2, dtype=_f32), 1),
        RuntimeError,
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
        "got:[2, 2, 2, 2, 2]",
    ),
    (
        lambda: F.avg_pool2d(_z(2, 2, dtype=_f32), 1),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
    ),
    (
        lambda: F.avg_pool2d(_z(1, 1, 4, 4, dtype=minitorch.int32), 2, padding=-1),
        RuntimeError,
        "pad must be non-negative, but got pad: -1",
    ),
    (
        lambda: F.max_pool3d(_z(2, 1, 0, 1, 2, dtype=_f32), 1),
        RuntimeError,
        "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to "
        "have positive length, but input has a shape of [2, 1, 0, 1, 2] and non-batch "
        "dimension 0 has length zero!",
    ),
    (
        lambda: F.avg_pool3d(_z(1, 1, 1, 1, 0, dtype=_f32), 2),
        RuntimeError,
        "avg_pool3d(): Expected input's non-batch dimensions to have positive length, but input "
        "has a shape of [1, 1, 1, 1, 0] and non-batch dimension 0 has length zero!",
    ),
    (
        lambda: F.avg_pool3d(_z(1, 1, 1, 1, 1, dtype=_f32), 2, padding=-1),
        RuntimeError,
        "pad must be non-negative, but got pad: -1",
    ),
    # max_pool1d: its values-only kernel checks the input first; with indices it is the 2-d pool
    (
        lambda: F.max_pool1d(_z(1, 10, 0, dtype=_f32), 2, padding=-1),
        RuntimeError,
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
        "input, but got:[1, 10, 0]",
    ),
    (
        lambda: F.max_pool1d(_z(0, 10, dtype=_f32), 1),
        RuntimeError,
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
        "input, but got:[0, 10]",
    ),
    (
        lambda: F.max_pool1d(_z(0, 1, 49, dtype=_f32), 2, padding=-1, return_indices=True),
        RuntimeError,
        "pad must be non-negative, but got pad: -1",
    ),
    (
        lambda: F.max_pool1d(_z(0, 1, 49, dtype=_f32), 3, 1, 3, 2, return_indices=True),
        RuntimeError,
        "pad should be at most half of effective kernel size, but got pad=3, kernel_size=3 and "
        "dilation=2",
    ),
    (
        lambda: F.max_pool1d(_z(0, 10, dtype=_f32), 2, dilation=0, return_indices=True),
        RuntimeError,
        "dilation should be greater than zero, but got dilationH: 1 dilationW: 0",
    ),
    (
        lambda: F.max_pool1d(_z(1, 10, 0, dtype=_f32), 1, return_indices=True),
        RuntimeError,
        "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
        "got:[1, 10, 1, 0]",
    ),
    (
        lambda: F.max_pool1d(_z(3, dtype=_f32), 1, return_indices=True),
        RuntimeError,
        "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
        "checking arguments for max_pool1d)",
    ),
]


@pytest.mark.parametrize("call, kind, message", _POOL_ERRORS)
def test_pool_argument_errors(call, kind, message):
    with pytest.raises(kind, match="^" + re.escape(message) + "$"):
        call()


# --- adaptive pooling: output sizes of the wrong length or sign ---

_ADAPTIVE_ERRORS = [
    (
        lambda: F.adaptive_avg_pool1d(_z(1, 2, 3, dtype=_f32), []),
        RuntimeError,
        "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 0)",
    ),
    (
        lambda: F.adaptive_max_pool1d(_z(2, 3, dtype=_f32), [2, 2]),
        RuntimeError,
        "adaptive_max_pool1d() argument 'output_size' should contain one int (got 2)",
    ),
    (
        lambda: F.adaptive_max_pool1d(_z(2, 3, dtype=_f32), [None]),
        TypeError,
        "adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, but "
        "found element of type NoneType at pos 0",
    ),
    (
        lambda: F.adaptive_max_pool2d(_z(1, 2, 3, 4, dtype=_f32), []),
        RuntimeError,
        "adaptive_max_pool2d(): internal error: output_size.size() must be 2",
    ),
    (
        lambda: F.adaptive_max_pool3d(_z(1, 2, 3, 4, dtype=_f32), []),
        RuntimeError,
        "adaptive_max_pool3d(): internal error: output_size.size() must be 3",
    ),
    (
        lambda: F.adaptive_max_pool1d(_z(1, 1, 1, dtype=_f32), [-1]),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [1, 1, 1, -1]",
    ),
    (
        lambda: F.adaptive_max_pool2d(_z(1, 1, 1, 1, dtype=_f32), [-1, 0]),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [1, 1, -1, 0]",
    ),
    (
        lambda: F.adaptive_max_pool3d(_z(1, 1, 1, 1, 1, dtype=_f32), [-1, 0, 2]),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [1, 1, -1, 0, 2]",
    ),
    (
        lambda: F.adaptive_avg_pool1d(_z(1, 1, 1, dtype=_f32), [-1]),
        RuntimeError,
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
        "received {1, -1}",
    ),
    (
        lambda: F.adaptive_avg_pool3d(_z(1, 2, 3, 3, 3, dtype=_f32), [2, 2, -1]),
        RuntimeError,
        "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
        "received {2, 2,-1}",
    ),
]


@pytest.mark.parametrize("call, kind, message", _ADAPTIVE_ERRORS)
def test_adaptive_pool_output_size_errors(call, kind, message):
    with pytest.raises(kind, match="^" + re.escape(message) + "$"):
        call()


# --- interpolation: torch's coordinates and half-precision weights ---


def test_linear_float32_source_coordinate_is_rounded_once():
    # scale * (i + 0.5) - 0.5 is one fused multiply-add in torch's float32 kernel: position 3
    # of 4 -> 7 lands a float32 ulp below 1.5, so it reads 1000 and -500, not -500 alone
    x = minitorch.tensor([[[0.0, 1000.0, -500.0, 250.0]]])
    out = F.interpolate(x, size=7, mode="linear")
    np.testing.assert_allclose(
        out[0, 0, 3].item(), 249.99981689453125, rtol=0, atol=2e-5, err_msg="linear (4 -> 7)[3]"
    )


_HALF_CASES = [
    (
        "linear", (1, 2, 4), (5,), minitorch.float16, False,
        [-1.6669921875, -0.0330810546875, 0.0, 0.03350830078125, 1.6669921875, 0.333251953125,
         -0.60009765625, 0.16650390625, 0.93359375, 0.0],
    ),
    (
        "linear", (1, 2, 4), (5,), minitorch.bfloat16, False,
        [-1.6640625, -0.033447265625, 0.0, 0.033447265625, 1.6640625, 0.333984375, -0.59765625,
         0.16796875, 0.93359375, 0.0],
    ),
    (
        "trilinear", (1, 1, 2, 2, 3), (3, 3, 2), minitorch.float16, False,
        [-1.083984375, -0.333251953125, 0.125, -0.5, 1.333984375, -0.6669921875,
         -0.04193115234375, -0.66650390625, 0.47900390625, -0.83349609375, 1.0, -1.0, 1.0, -1.0,
         0.83349609375, -1.1669921875, 0.6669921875, -1.333984375],
    ),
    (
        "bicubic", (1, 1, 3, 3), (4, 5), minitorch.float16, False,
        [-2.15625, -0.80322265625, 0.6904296875, 0.06146240234375, -0.7705078125, 0.50341796875,
         0.59375, 0.489990234375, -0.3271484375, -0.97119140625, 2.080078125, 1.3359375,
         0.176513671875, -0.7646484375, -1.2841796875, 1.4365234375, 0.88818359375,
         -0.02392578125, -0.93603515625, -1.484375],
    ),
    (
        "bicubic", (1, 1, 3, 3), (4, 5), minitorch.bfloat16, True,
        [-1.6640625, -0.373046875, 0.66796875, 0.21875, -0.66796875, 0.65234375, 0.69140625,
         0.4765625, -0.20703125, -0.859375, 1.9296875, 1.1875, 0.19140625, -0.640625, -1.140625,
         1.3359375, 0.79296875, 0.0, -0.79296875, -1.3359375],
    ),
]  # fmt: skip


@pytest.mark.parametrize("mode, shape, size, dtype, align_corners, expected", _HALF_CASES)
def test_half_interpolation_weights(mode, shape, size, dtype, align_corners, expected):
    out = F.interpolate(_vals(shape, dtype), size=size, mode=mode, align_corners=align_corners)
    assert out.dtype is dtype
    np.testing.assert_array_equal(
        out.float().numpy().reshape(-1), np.array(expected, dtype=np.float32), err_msg=mode
    )
