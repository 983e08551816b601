"""Session 22 (h9): fixes found by differential fuzzing of nn.functional's non-layer functions.

Expected values are literals obtained by running torch 2.13.0."""

import pytest

import minitorch
import minitorch.nn.functional as F


def test_conv_transpose1d_output_padding_message_names_the_2d_run():
    # torch runs conv_transpose1d as a 2-d one over (1, L): the message names a height
    x = minitorch.zeros(1, 2, 5)
    w = minitorch.zeros(2, 2, 3)
    with pytest.raises(RuntimeError) as e:
        F.conv_transpose1d(x, w, output_padding=2, stride=2)
    assert str(e.value) == (
        "output padding must be smaller than either stride or dilation, but got "
        "output_padding_height: 0 output_padding_width: 2 stride_height: 1 stride_width: 2 "
        "dilation_height: 1 dilation_width: 1"
    )
    with pytest.raises(RuntimeError) as e:
        F.conv_transpose1d(
            minitorch.zeros(2, 5), minitorch.zeros(2, 1, 3), output_padding=2, dilation=2, groups=2
        )
    assert str(e.value).endswith(
        "output_padding_height: 0 output_padding_width: 2 stride_height: 1 stride_width: 1 "
        "dilation_height: 1 dilation_width: 2"
    )


def test_max_unpool_output_size_length_and_message():
    y = minitorch.tensor([[[5.0, 7.0]]])
    i = minitorch.tensor([[[1, 3]]])
    # a length other than n or n + 2 is refused (it used to be trimmed silently)
    for size, n in (((1, 9), 2), ((1, 1, 1, 9), 4), ((), 0)):
        with pytest.raises(ValueError) as e:
            F.max_unpool1d(y, i, 2, output_size=size)
        assert str(e.value) == (
            "output_size should be a sequence containing 1 or 3 elements, but it has a "
            f"length of '{n}'"
        )
    # the message shows the trimmed sequence as given (a list stays a list)
    with pytest.raises(ValueError) as e:
        F.max_unpool1d(y, i, 2, output_size=[1, 1, 9])
    assert str(e.value) == 'invalid output_size "[9]" (dim 0 must be between 2 and 6)'
    with pytest.raises(ValueError) as e:
        F.max_unpool1d(y, i, 2, output_size=(9,))
    assert str(e.value) == 'invalid output_size "(9,)" (dim 0 must be between 2 and 6)'
    y2 = minitorch.zeros(1, 1, 2, 2)
    i2 = minitorch.tensor([[[[0, 1], [4, 5]]]])
    with pytest.raises(ValueError) as e:
        F.max_unpool2d(y2, i2, 2, output_size=(1, 4, 4))
    assert "containing 2 or 4 elements, but it has a length of '3'" in str(e.value)
    assert F.max_unpool2d(y2, i2, 2, output_size=(1, 1, 4, 4)).shape == (1, 1, 4, 4)


def test_max_unpool_empty_output_is_returned_unchecked():
    # torch writes nothing into an empty output, so it checks no index
    y = minitorch.tensor([[[[5.0, 7.0]]]], dtype=minitorch.float64, requires_grad=True)
    i = minitorch.tensor([[[[0, 3]]]])
    out = F.max_unpool2d(y, i, 2, 3, 1)
    assert out.shape == (1, 1, 0, 3)
    assert out.grad_fn.name() == "MaxUnpool2DBackward0"
    assert F.max_unpool2d(y, i, 2, 3, 1, output_size=(0, 3)).shape == (1, 1, 0, 3)
    out.sum().backward()
    assert y.grad.tolist() == [[[[0.0, 0.0]]]]
    y1 = minitorch.tensor([[[5.0]]], requires_grad=True)
    out1 = F.max_unpool1d(y1, minitorch.tensor([[[3]]]), 2, 3, 1, output_size=[0])
    assert out1.shape == (1, 1, 0)
