"""autocast through the nn layers: convolutions, attention and the norms."""

from __future__ import annotations

import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn

CASES = [("cpu", minitorch.bfloat16), ("cpu", minitorch.float16), ("strict", minitorch.float16)]


def _t(*shape, device="cpu", dtype=minitorch.float32):
    return minitorch.randn(*shape, dtype=dtype, device=device)


CONVS = {
    "conv1d": lambda d: F.conv1d(_t(2, 3, 7, device=d), _t(4, 3, 3, device=d), _t(4, device=d)),
    "conv2d": lambda d: F.conv2d(_t(1, 2, 5, 5, device=d), _t(3, 2, 3, 3, device=d), padding=1),
    "conv3d": lambda d: F.conv3d(_t(1, 2, 4, 4, 4, device=d), _t(3, 2, 2, 2, 2, device=d)),
    "conv_transpose1d": lambda d: F.conv_transpose1d(
        _t(1, 2, 5, device=d), _t(2, 3, 3, device=d), stride=2
    ),
    "conv_transpose2d": lambda d: F.conv_transpose2d(
        _t(1, 2, 4, 4, device=d), _t(2, 3, 3, 3, device=d), _t(3, device=d)
    ),
    "conv_transpose3d": lambda d: F.conv_transpose3d(
        _t(1, 2, 3, 3, 3, device=d), _t(2, 3, 2, 2, 2, device=d)
    ),
}


@pytest.mark.parametrize("name", sorted(CONVS))
@pytest.mark.parametrize(("device", "low"), CASES)
def test_convolutions_run_in_the_low_dtype(name, device, low):
    with minitorch.autocast(device, dtype=low):
        out = CONVS[name](device)
    assert out.dtype is low, name


@pytest.mark.parametrize(("device", "low"), CASES)
def test_a_conv_layer_gets_float32_gradients(device, low):
    conv = nn.Conv2d(2, 3, 3).to(device)
    x = _t(2, 2, 6, 6, device=device).requires_grad_()
    with minitorch.autocast(device, dtype=low):
        out = conv(x)
    assert out.dtype is low
    out.float().square().sum().backward()
    assert conv.weight.grad.dtype is minitorch.float32 and x.grad.dtype is minitorch.float32
    assert conv.bias.grad.dtype is minitorch.float32


@pytest.mark.parametrize(("device", "low"), CASES)
def test_scaled_dot_product_attention(device, low):
    q = _t(2, 4, 8, device=device)
    with minitorch.autocast(device, dtype=low):
        out = F.scaled_dot_product_attention(q, q, q)
    assert out.dtype is low


@pytest.mark.parametrize(("device", "low"), CASES)
def test_norms_run_in_float32_on_cuda_like_devices_only(device, low):
    x = _t(2, 4, 3, device=device, dtype=low)
    with minitorch.autocast(device, dtype=low):
        ln = F.layer_norm(x, (3,))
        gn = F.group_norm(x, 2)
    if device == "strict":
        assert ln.dtype is minitorch.float32 and gn.dtype is minitorch.float32
    else:  # the CPU's lists leave them alone: the same dtypes as outside autocast
        assert ln.dtype is F.layer_norm(x, (3,)).dtype and gn.dtype is F.group_norm(x, 2).dtype


def test_the_softmax_method_and_torch_softmax_follow_the_same_lists():
    x = _t(2, 3, device="strict", dtype=minitorch.float16)
    with minitorch.autocast("strict"):
        assert x.softmax(-1).dtype is minitorch.float32
        assert minitorch.log_softmax(x, 1).dtype is minitorch.float32
        assert minitorch.softmax(x, -1, dtype=minitorch.float16).dtype is minitorch.float16
    with minitorch.autocast("cpu"):
        assert _t(2, 3, dtype=minitorch.float16).softmax(-1).dtype is minitorch.float16
