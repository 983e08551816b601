"""Session 31 (helper nca): torch-free regression tests of the library fixes the neural-CA
reference programs (tests/reference/test_s31_nca_reference.py) led to, with torch 2.13's values
and messages written as literals: a zero dilation on torch's oneDNN convolution path, empty
batches convolved with a weight of another dtype, and the order of the pooling argument
checks, and the type of a convolution module's hand-padding pairs."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional


def _raises(exc, msg, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == msg


ONEDNN = "non-positive dilation is not supported"
LISTED = "dilation should be greater than zero, but got [0, 0]"


@pytest.mark.parametrize(
    "fn, msg",
    [  # float32 on torch's oneDNN kernel: groups > 1, a batch > 1, a kernel over 3x3
        (lambda: F.conv2d(mt.rand(1, 4, 6, 6), mt.ones(4, 1, 3, 3), groups=4, dilation=0), ONEDNN),
        (lambda: F.conv2d(mt.rand(2, 1, 6, 6), mt.ones(1, 1, 3, 3), dilation=(1, 0)), ONEDNN),
        (lambda: F.conv2d(mt.rand(1, 1, 6, 6), mt.ones(1, 1, 5, 5), dilation=0), ONEDNN),
        (lambda: F.conv1d(mt.rand(4, 6), mt.ones(4, 1, 3), groups=4, dilation=0), ONEDNN),
        (lambda: F.conv3d(mt.rand(2, 1, 4, 4, 4), mt.ones(1, 1, 3, 3, 3), dilation=0), ONEDNN),
        # the slow kernels: one small float32 image, or float64
        (lambda: F.conv2d(mt.rand(1, 1, 6, 6), mt.ones(1, 1, 3, 3), dilation=0), LISTED),
        (
            lambda: F.conv2d(
                mt.rand(2, 4, 6, 6).double(), mt.ones(4, 1, 3, 3).double(), groups=4, dilation=0
            ),
            LISTED,
        ),
        # oneDNN checks the dtypes first
        (
            lambda: F.conv2d(mt.rand(2, 4, 6, 6), mt.ones(4, 4, 3, 3).double(), dilation=0),
            "Input type (torch.FloatTensor) and weight type (torch.DoubleTensor) should be the "
            "same or input should be a MKLDNN tensor and weight is a dense tensor",
        ),
    ],
)
def test_conv_zero_dilation_words_by_kernel(fn, msg):
    _raises(RuntimeError, msg, fn)


def test_empty_batch_conv_takes_the_input_times_weight_dtype():
    # torch runs no kernel for an empty batch: input * weight[0] (a 0-d tensor), + bias[0]
    out = F.conv2d(mt.rand(0, 4, 6, 6), mt.ones(4, 4, 3, 3).double())
    assert (out.dtype, tuple(out.shape)) == (mt.float32, (0, 4, 4, 4))
    assert F.conv2d(mt.rand(0, 4, 6, 6).double(), mt.ones(4, 4, 3, 3)).dtype == mt.float64
    assert F.conv2d(mt.rand(0, 4, 6, 6).long(), mt.ones(4, 4, 3, 3).double()).dtype == mt.float64
    assert F.conv2d(mt.rand(0, 4, 6, 6).bool(), mt.ones(4, 4, 3, 3).bool()).dtype == mt.bool
    assert F.conv1d(mt.rand(0, 4, 6), mt.ones(4, 4, 3).double()).dtype == mt.float32
    assert F.conv2d(mt.rand(0, 4, 6, 6).half(), mt.ones(4, 4, 3, 3)).dtype == mt.float16
    # no channels: input.view(-1) * weight.view(-1), both 1-d
    assert F.conv2d(mt.rand(2, 0, 6, 6), mt.ones(4, 0, 3, 3).double()).dtype == mt.float64
    assert F.conv2d(mt.rand(2, 0, 6, 6), mt.ones(4, 0, 3, 3).bool()).dtype == mt.float32
    assert F.conv2d(mt.rand(2, 0, 6, 6), mt.ones(4, 0, 3, 3).double(), dilation=0).dtype == (
        mt.float64
    )
    tr = F.conv_transpose2d(mt.rand(0, 4, 6, 6), mt.ones(4, 4, 3, 3).double(),
                            bias=mt.ones(4).double())  # fmt: skip
    assert tr.dtype == mt.float32
    # the bias is still checked against the input
    _raises(
        RuntimeError,
        "Input type (float) and bias type (double) should be the same",
        lambda: F.conv2d(mt.rand(0, 4, 6, 6), mt.ones(4, 4, 3, 3), bias=mt.ones(4).double()),
    )
    # weight[0] of an empty kernel
    msg = "select(): index 0 out of range for tensor of size [0] at dimension 0"
    _raises(IndexError, msg, lambda: F.conv2d(mt.rand(0, 4, 6, 6), mt.ones(4, 4, 0, 3)))
    _raises(IndexError, msg, lambda: F.conv_transpose2d(mt.rand(0, 4, 6, 6), mt.ones(4, 4, 0, 3)))


def test_empty_batch_conv_gradients():
    x = mt.zeros(0, 4, 6, 6, dtype=mt.float64, requires_grad=True)
    w = mt.ones(4, 4, 3, 3, requires_grad=True)
    b = mt.ones(4, dtype=mt.float64, requires_grad=True)
    out = F.conv2d(x, w, b)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    gx, gw, gb = mt.autograd.grad(out.sum(), [x, w, b])
    assert [g.dtype for g in (gx, gw, gb)] == [mt.float64, mt.float32, mt.float64]
    assert float(gw.abs().sum()) == 0.0 and float(gb.abs().sum()) == 0.0


def _pad_msg(pad, k, d):
    return (
        f"pad should be at most half of effective kernel size, but got pad={pad}, "
        f"kernel_size={k} and dilation={d}"
    )


@pytest.mark.parametrize(
    "fn, msg",
    [  # each dim's output size first: stride, pad, pad against the dilated kernel
        (lambda x: F.max_pool2d(x, 3, 1, 1, dilation=0), _pad_msg(1, 3, 0)),
        (lambda x: F.max_pool2d(x, 3, 1, 1, dilation=-1), _pad_msg(1, 3, -1)),
        (lambda x: F.max_pool2d(x, 3, 1, (1, 0), dilation=(0, 1)), _pad_msg(1, 3, 0)),
        (lambda x: F.max_pool2d(x, 3, 1, (0, 1), dilation=(1, 0)), _pad_msg(1, 3, 0)),
        (lambda x: F.max_pool2d(x, 3, (1, 0), (2, 0)), _pad_msg(2, 3, 1)),
        (lambda x: F.avg_pool2d(x, 3, (1, 0), (2, 0)), _pad_msg(2, 3, 1)),
        (lambda x: F.max_pool2d(x, (0, 3), 1, 1), _pad_msg(1, 0, 1)),
        (lambda x: F.max_pool3d(x[None], 3, 1, 1, dilation=0), _pad_msg(1, 3, 0)),
        (
            lambda x: F.max_pool1d(x[0], 3, 1, 1, dilation=0, return_indices=True),
            _pad_msg(1, 3, 0),
        ),
        (lambda x: F.max_pool2d(x, 3, (0, 1), (0, 2)), "stride should not be zero"),
        # C++ halves -1 to 0: a zero pad passes, the sign checks come next
        (
            lambda x: F.max_pool2d(x, 3, 1, 0, dilation=-1),
            "dilation should be greater than zero, but got dilationH: -1 dilationW: -1",
        ),
        (
            lambda x: F.max_pool2d(x, (3, 0), 1, 0),
            "kernel size should be greater than zero, but got kH: 3 kW: 0",
        ),
        (
            lambda x: F.avg_pool2d(x, 0, 1, 0),
            "kernel size should be greater than zero, but got kH: 0 kW: 0",
        ),
        (
            lambda x: F.max_pool2d(x, 3, -1, 0),
            "stride should be greater than zero, but got dH: -1 dW: -1",
        ),
        (
            lambda x: F.max_pool3d(x[None], 3, 1, 0, dilation=0),
            "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0",
        ),
        (
            lambda x: F.avg_pool3d(x[None], 3, (1, -1, 1), 0),
            "stride should be greater than zero, but got dT: 1 dH: -1 dW: 1",
        ),
        # the input's shape before the pad against the plain kernel
        (
            lambda x: F.max_pool2d(mt.rand(1, 4, 0, 6), 3, 1, 2, dilation=2),
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            "but got:[1, 4, 0, 6]",
        ),
        (
            lambda x: F.max_pool2d(x, 3, 1, 2, dilation=2),
            "pad should be smaller than or equal to half of kernel size, but got padW = 2, "
            "padH = 2, kW = 3, kH = 3",
        ),
    ],
)
def test_pool_argument_check_order(fn, msg):
    _raises(RuntimeError, msg, lambda: fn(mt.rand(1, 4, 6, 6)))


def test_conv_module_reversed_padding_is_a_tuple():
    # code that pads by hand reads it (torch's is a tuple; for a string padding, a list)
    m = mt.nn.Conv2d(4, 4, (3, 5), padding=(1, 2), padding_mode="reflect")
    assert m._reversed_padding_repeated_twice == (2, 2, 1, 1)
    same = mt.nn.Conv1d(1, 1, 4, padding="same", padding_mode="circular")
    assert same._reversed_padding_repeated_twice == [1, 2]
