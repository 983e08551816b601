"""Session 26 (model zoo): a channels-last input (or weight) keeps its layout through
convolutions, transposed and depthwise convolutions and poolings, as torch's kernels keep it;
the values and gradients do not depend on the layout. Strides stated are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch

F = torch.nn.functional


def _inputs():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 8, 8, dtype=torch.float64)
    return x, x.to(memory_format=torch.channels_last)


CASES = [
    ("conv", lambda x, w: F.conv2d(x, w["conv"], padding=1), (512, 1, 64, 8)),
    ("depthwise", lambda x, w: F.conv2d(x, w["dw"], groups=4), (144, 1, 24, 4)),
    ("transpose", lambda x, w: F.conv_transpose2d(x, w["up"], stride=2), (512, 1, 32, 2)),
    ("transpose_dw", lambda x, w: F.conv_transpose2d(x, w["updw"], groups=4), (400, 1, 40, 4)),
    ("maxpool", lambda x, w: F.max_pool2d(x, 2), (64, 1, 16, 4)),
    ("maxpool_idx", lambda x, w: F.max_pool2d(x, 2, return_indices=True)[1], (64, 1, 16, 4)),
    ("avgpool", lambda x, w: F.avg_pool2d(x, 3, stride=2, padding=1), (64, 1, 16, 4)),
    ("adaptive3", lambda x, w: F.adaptive_avg_pool2d(x, 3), (36, 1, 12, 4)),
    ("adaptive42", lambda x, w: F.adaptive_avg_pool2d(x, (4, 2)), (32, 1, 8, 4)),
]


def _weights():
    g = torch.Generator().manual_seed(1)
    return {
        "conv": torch.randn(8, 4, 3, 3, dtype=torch.float64, generator=g),
        "dw": torch.randn(4, 1, 3, 3, dtype=torch.float64, generator=g),
        "up": torch.randn(4, 2, 2, 2, dtype=torch.float64, generator=g),
        "updw": torch.randn(4, 1, 3, 3, dtype=torch.float64, generator=g),
    }


@pytest.mark.parametrize("name,fn,stride", CASES, ids=[c[0] for c in CASES])
def test_channels_last_input_keeps_its_layout(name, fn, stride):
    x, xc = _inputs()
    w = _weights()
    out, outc = fn(x, w), fn(xc, w)
    assert outc.stride() == stride, name
    assert outc.is_contiguous(memory_format=torch.channels_last)
    assert out.is_contiguous()  # a row-major input stays row-major
    np.testing.assert_array_equal(outc.numpy(), out.numpy(), err_msg=name)


def test_channels_last_weight_makes_a_channels_last_convolution():
    x, _ = _inputs()
    w = _weights()["conv"].to(memory_format=torch.channels_last)
    assert F.conv2d(x, w).stride() == (288, 1, 48, 8)
    assert F.conv2d(x, w.contiguous()).stride() == (288, 36, 6, 1)


def test_channels_last_model_feature_maps():
    torch.manual_seed(2)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 8, 3, padding=1, groups=8),
    ).to(memory_format=torch.channels_last)
    y = net(torch.randn(2, 3, 16, 16))  # a row-major input: the weights decide
    assert y.stride() == (512, 1, 64, 8)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        y.view(2, -1)  # torch's view fails on a channels-last map
