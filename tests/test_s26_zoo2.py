"""Session 26 (model zoo, part 2): a channels-last input keeps its layout through torch.cat,
F.pad (constant, reflect, replicate; not circular), torch.roll over dims, group_norm,
F.interpolate (nearest, bilinear, bicubic, antialias), pixel_shuffle/unshuffle,
adaptive_avg_pool2d's mean shortcut and adaptive_max_pool2d's uneven windows, as torch's kernels
keep it; a row-major input stays row-major and the values do not depend on the layout. Strides
stated are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional

CASES = {
    "cat_c": (lambda x: torch.cat([x, x], 1), (240, 1, 40, 8), (240, 30, 5, 1)),
    "cat_h": (lambda x: torch.cat([x, x * 2], 2), (240, 1, 20, 4), (240, 60, 5, 1)),
    "cat_n": (lambda x: torch.cat([x, x], 0), (120, 1, 20, 4), (120, 30, 5, 1)),
    "pad_constant": (lambda x: F.pad(x, (1, 2, 1, 1), value=0.5), (256, 1, 32, 4), (256, 64, 8, 1)),
    "pad_channels": (lambda x: F.pad(x, (0, 0, 0, 0, 1, 1)), (180, 1, 30, 6), (180, 30, 5, 1)),
    "pad_crop": (lambda x: F.pad(x, (-1, 0, 1, 0)), (112, 1, 16, 4), (112, 28, 4, 1)),
    "pad_reflect": (
        lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"),
        (288, 1, 32, 4),
        (288, 72, 8, 1),
    ),
    "pad_replicate": (
        lambda x: F.pad(x, (1, 1, 1, 1), mode="replicate"),
        (224, 1, 28, 4),
        (224, 56, 7, 1),
    ),
    "pad_replicate_neg": (
        lambda x: F.pad(x, (-1, 2, 1, 1), mode="replicate"),
        (192, 1, 24, 4),
        (192, 48, 6, 1),
    ),
    "roll": (lambda x: torch.roll(x, (1, -2), (2, 3)), (120, 1, 20, 4), (120, 30, 5, 1)),
    "roll_c": (lambda x: torch.roll(x, 1, 1), (120, 1, 20, 4), (120, 30, 5, 1)),
    "group_norm": (lambda x: F.group_norm(x, 2), (120, 1, 20, 4), (120, 30, 5, 1)),
    "nearest": (lambda x: F.interpolate(x, scale_factor=2), (480, 1, 40, 4), (480, 120, 10, 1)),
    "bilinear": (
        lambda x: F.interpolate(x, size=(3, 7), mode="bilinear"),
        (84, 1, 28, 4),
        (84, 21, 7, 1),
    ),
    "bilinear_ac": (
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
        (480, 1, 40, 4),
        (480, 120, 10, 1),
    ),
    "bicubic": (
        lambda x: F.interpolate(x, size=(8, 4), mode="bicubic"),
        (128, 1, 16, 4),
        (128, 32, 4, 1),
    ),
    "bicubic_aa": (
        lambda x: F.interpolate(x, size=(3, 2), mode="bicubic", antialias=True),
        (24, 1, 8, 4),
        (24, 6, 2, 1),
    ),
    "pixel_shuffle_1ch": (lambda x: F.pixel_shuffle(x, 2), (120, 1, 10, 1), (120, 120, 10, 1)),
    "pixel_unshuffle": (
        lambda x: F.pixel_unshuffle(F.pad(x, (0, 1)), 3),
        (144, 1, 72, 36),
        (144, 4, 2, 1),
    ),
    "adaptive_avg_1": (lambda x: F.adaptive_avg_pool2d(x, 1), (4, 1, 4, 4), (4, 1, 1, 1)),
    "adaptive_max_3": (lambda x: F.adaptive_max_pool2d(x, 3), (36, 1, 12, 4), (36, 9, 3, 1)),
}


def _inputs():
    torch.manual_seed(0)
    x = torch.randn(2, 4, 6, 5, dtype=torch.float64)
    return x, x.to(memory_format=torch.channels_last)


@pytest.mark.parametrize("name", list(CASES))
def test_channels_last_layout_kept(name):
    fn, cl_stride, row_stride = CASES[name]
    x, xc = _inputs()
    out, outc = fn(x), fn(xc)
    assert outc.stride() == cl_stride, name
    assert out.stride() == row_stride, name
    np.testing.assert_allclose(outc.numpy(), out.numpy(), rtol=1e-14, atol=1e-15, err_msg=name)
    assert outc._base is None  # new memory, not a view of an intermediate


@pytest.mark.parametrize(
    "name", ["cat_h", "pad_constant", "pad_reflect", "pad_replicate_neg", "roll", "bilinear"]
)
def test_channels_last_gradients(name):
    fn = CASES[name][0]
    torch.manual_seed(1)
    x = torch.randn(1, 2, 4, 3, dtype=torch.float64).to(memory_format=torch.channels_last)
    x.requires_grad_()
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_adaptive_avg_shortcut_graph_is_torchs():
    _, xc = _inputs()
    xc.requires_grad_()
    y = F.adaptive_avg_pool2d(xc, 1)
    # torch restrides the mean in place: AsStridedBackward1 over MeanBackward1
    assert type(y.grad_fn).__name__ == "AsStridedBackward1"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MeanBackward1"
    y.sum().backward()
    np.testing.assert_allclose(xc.grad.numpy(), np.full((2, 4, 6, 5), 1 / 30))


def test_layouts_torch_does_not_keep_and_batch_of_one():
    _, xc = _inputs()
    # torch's circular padding and its roll of the flattened tensor write row-major
    assert F.pad(xc, (1, 1, 1, 1), mode="circular").stride() == (224, 56, 7, 1)
    assert torch.roll(xc, 3).stride() == (120, 30, 5, 1)
    # torch: a row-major operand (or a legacy empty one) makes the result row-major
    assert torch.cat([xc, xc.contiguous()], 1).stride() == (240, 30, 5, 1)
    assert torch.cat([xc.contiguous(), xc], 1).stride() == (240, 30, 5, 1)
    assert torch.cat([xc, torch.zeros(0, dtype=torch.float64)], 1).stride() == (120, 30, 5, 1)
    assert torch.cat([xc, xc.float()], 1).stride() == (240, 1, 40, 8)
    one = xc[:1].contiguous(memory_format=torch.channels_last)
    assert torch.cat([one, one], 1).stride() == (240, 1, 40, 8)
    assert F.pad(one, (1, 1)).stride() == (168, 1, 28, 4)
    assert F.group_norm(one, 2).stride() == (120, 1, 20, 4)
