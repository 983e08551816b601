"""Session 21 small leftovers: F.pad's edge cases (reflect/replicate outputs too small,
circular wrap-around over a cropped dim, torch's check order and messages). Expected errors and
values are torch 2.13's."""

import re

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional

OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def _x(*shape):
    return mt.arange(float(np.prod(shape))).reshape(shape)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize(
    "shape, pad, message",
    [
        ((1, 1, 4), (-2, -2), "input (W: 4) is too small. Calculated output W: 0"),
        ((1, 1, 4), (-3, -2), "input (W: 4) is too small. Calculated output W: -1"),
        ((1, 4), (1, -5), "input (W: 4) is too small. Calculated output W: 0"),
        ((2, 3, 5), (-3, -2), "input (W: 5) is too small. Calculated output W: 0"),
        (
            (1, 1, 4, 4, 4),
            (-2, -3, -2, -2, -2, -2),
            "input (D: 4 H: 4, W: 4) is too small. Calculated output D: 0 H: 0 W: -1",
        ),
    ],
)
def test_mode_pad_output_too_small_raises(mode, shape, pad, message):
    with pytest.raises(RuntimeError, match=re.escape(message)):
        F.pad(mt.ones(shape), pad, mode=mode)


def test_pad2d_too_small_messages():
    x = mt.ones(1, 1, 4, 4)
    with pytest.raises(RuntimeError, match=re.escape("input (H: 4, W: 4) is too small. Calcul")):
        F.pad(x, (-2, -2, -3, -2), mode="reflect")
    # (torch's replication_pad2d message has a space before the parenthesis)
    want = "input (H: 4, W: 4 ) is too small. Calculated output H: 0 W: -1"
    with pytest.raises(RuntimeError, match=re.escape(want)):
        F.pad(x, (-3, -2, -2, -2), mode="replicate")


def test_mode_pad_one_negative_output_dim_raises():
    # torch: allocating the output fails (reflection_pad2d: its numel overflows)
    x = mt.ones(1, 1, 4, 4)
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        F.pad(x, (-3, -2, 0, 0), mode="reflect")
    want = "Trying to create tensor with negative dimension -1: [1, 1, -1, 4]"
    with pytest.raises(RuntimeError, match=re.escape(want)):
        F.pad(x, (0, 0, 1, -6), mode="replicate")
    want = "Trying to create tensor with negative dimension -1: [1, 1, 4, -1, -1]"
    with pytest.raises(RuntimeError, match=re.escape(want)):
        F.pad(mt.ones(1, 1, 4, 4, 4), (-3, -2, -3, -2, 0, 0), mode="reflect")
    # an empty output where not every padded dim is below 1
    for mode in ("reflect", "replicate", "circular"):
        assert F.pad(_x(1, 1, 4, 4), (0, 0, -2, -2), mode=mode).shape == (1, 1, 0, 4)
        out = F.pad(_x(1, 1, 4, 4, 4), (-2, -2, 0, 0, -2, -2), mode=mode)
        assert out.shape == (1, 1, 0, 4, 0)


@pytest.mark.parametrize("pad", [(-2, 3), (3, -2), (-1, 4), (-3, 2), (4, -1), (2, -3)])
def test_circular_wrap_over_cropped_part_raises(pad):
    with pytest.raises(RuntimeError, match=re.escape(OVERLAP)):
        F.pad(_x(1, 1, 4), pad, mode="circular")


@pytest.mark.parametrize("pad", [(-4, 1), (1, -4)])
def test_circular_wrap_of_nothing_raises(pad):
    # a deliberate difference (pad's docstring): torch returns uninitialised memory here
    with pytest.raises(RuntimeError, match=re.escape(OVERLAP)):
        F.pad(_x(1, 1, 4), pad, mode="circular")


def test_circular_checks_outer_dims_first():
    # torch checks each padded dim, outermost first, for wrapping and a negative size
    with pytest.raises(RuntimeError, match="^Negative padding value is resulting in an empty"):
        F.pad(mt.ones(1, 5, 3), (2, 6, -3, -3), mode="circular")
    with pytest.raises(RuntimeError, match="^Padding value causes wrapping around more than once"):
        F.pad(mt.ones(1, 3, 5), (-3, -3, 2, 6), mode="circular")


def test_reflect_pad_size_message_names_the_argument():
    # torch numbers the pair: 4 for the last dim, 6 for the one before, 8 for the third
    with pytest.raises(RuntimeError, match=r"^Argument #6: Padding size should be less than"):
        F.pad(mt.ones(1, 1, 4, 4), (0, 0, 4, 0), mode="reflect")
    with pytest.raises(RuntimeError, match=r"^Argument #8: Padding size should be less than"):
        F.pad(mt.ones(1, 4, 4, 4), (0, 0, 0, 0, 4, 0), mode="reflect")
    with pytest.raises(RuntimeError, match=r"^Argument #4: Padding size should be less than"):
        F.pad(mt.ones(1, 4, 4), (4, 0, 0, 0), mode="reflect")
