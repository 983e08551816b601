"""Convolution, pooling, padding and resizing against torch: the same inputs and weights give the
same outputs, gradients, state_dict keys and reprs."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.reference._nn_harness import Case, compare, floats

torch = pytest.importorskip("torch")


def _distinct(*shapes):
    def make(rng):
        return [rng.permutation(int(np.prod(s))).reshape(s) / 7.0 for s in shapes]

    return make


CASES = [
    Case(
        "conv1d",
        lambda F, T, x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2),
        floats((2, 4, 9), (3, 4, 3), (3,)),
    ),
    Case(
        "conv2d_groups_same",
        lambda F, T, x, w: F.conv2d(x, w, padding="same", groups=2),
        floats((2, 4, 6, 5), (6, 2, 2, 3)),
    ),
    Case(
        "conv2d_unbatched",
        lambda F, T, x, w, b: F.conv2d(x, w, b, stride=(2, 1)),
        floats((3, 7, 6), (2, 3, 3, 3), (2,)),
    ),
    Case(
        "conv3d",
        lambda F, T, x, w: F.conv3d(x, w, padding=(1, 0, 1), stride=2),
        floats((1, 2, 5, 4, 5), (3, 2, 2, 2, 3)),
    ),
    Case(
        "conv_transpose1d",
        lambda F, T, x, w, b: F.conv_transpose1d(x, w, b, 2, 1, 1, dilation=2),
        floats((2, 3, 5), (3, 2, 3), (2,)),
    ),
    Case(
        "conv_transpose2d_groups",
        lambda F, T, x, w: F.conv_transpose2d(
            x, w, stride=(2, 3), padding=1, groups=2, output_padding=(1, 2)
        ),
        floats((1, 4, 3, 4), (4, 2, 3, 3)),
    ),
    Case(
        "max_pool2d_indices",
        lambda F, T, x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True),
        _distinct((2, 3, 7, 8)),
    ),
    Case(
        "max_pool1d",
        lambda F, T, x: F.max_pool1d(x, 2, 1, dilation=2, return_indices=True),
        _distinct((2, 3, 9)),
    ),
    Case("max_pool3d", lambda F, T, x: F.max_pool3d(x, 2), _distinct((1, 2, 4, 4, 5))),
    Case(
        "avg_pool2d",
        lambda F, T, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        floats((2, 3, 7, 8)),
    ),
    Case("avg_pool1d", lambda F, T, x: F.avg_pool1d(x, 3, 2, 1), floats((2, 3, 9))),
    Case(
        "avg_pool3d",
        lambda F, T, x: F.avg_pool3d(x, (2, 3, 2), 1, divisor_override=4),
        floats((1, 2, 4, 4, 3)),
    ),
    Case(
        "adaptive_avg_pool2d",
        lambda F, T, x: F.adaptive_avg_pool2d(x, (3, 5)),
        floats((2, 3, 7, 8)),
    ),
    Case("adaptive_avg_pool1d", lambda F, T, x: F.adaptive_avg_pool1d(x, 4), floats((2, 3, 9))),
    Case(
        "adaptive_max_pool2d",
        lambda F, T, x: F.adaptive_max_pool2d(x, (3, 5), return_indices=True),
        _distinct((2, 3, 7, 8)),
    ),
    Case(
        "max_unpool2d",
        lambda F, T, x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
        _distinct((2, 3, 6, 6)),
    ),
    Case(
        "interpolate_nearest",
        lambda F, T, x: F.interpolate(x, scale_factor=1.7),
        floats((1, 2, 5, 4)),
    ),
    Case(
        "interpolate_nearest_exact",
        lambda F, T, x: F.interpolate(x, size=(7, 3), mode="nearest-exact"),
        floats((1, 2, 5, 4)),
    ),
    Case(
        "interpolate_bilinear",
        lambda F, T, x: F.interpolate(x, scale_factor=(1.5, 2.5), mode="bilinear"),
        floats((1, 2, 5, 4)),
    ),
    Case(
        "interpolate_bilinear_align",
        lambda F, T, x: F.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True),
        floats((1, 2, 5, 4)),
    ),
    Case(
        "interpolate_linear",
        lambda F, T, x: F.interpolate(x, size=11, mode="linear"),
        floats((2, 3, 5)),
    ),
    Case(
        "interpolate_trilinear",
        lambda F, T, x: F.interpolate(x, size=(3, 4, 5), mode="trilinear"),
        floats((1, 2, 2, 3, 4)),
    ),
    Case(
        "interpolate_area",
        lambda F, T, x: F.interpolate(x, size=(3, 2), mode="area"),
        floats((1, 2, 5, 4)),
    ),
    Case(
        "unfold",
        lambda F, T, x: F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=2),
        floats((2, 3, 6, 7)),
    ),
    Case("fold", lambda F, T, x: F.fold(x, (4, 5), 2, padding=1), floats((2, 12, 30))),
    Case("pixel_shuffle", lambda F, T, x: F.pixel_shuffle(x, 2), floats((2, 8, 3, 4))),
    Case("pixel_unshuffle", lambda F, T, x: F.pixel_unshuffle(x, 2), floats((2, 2, 4, 6))),
]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_functional_matches_torch(case):
    compare(case, torch)


def test_float32_conv_close_to_torch():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3, 12, 12)).astype(np.float32)
    w = rng.normal(size=(8, 3, 3, 3)).astype(np.float32)
    got = minitorch.nn.functional.conv2d(minitorch.tensor(x), minitorch.tensor(w), padding=1)
    want = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    assert got.dtype == minitorch.float32
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


MODULES = [
    lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1),
    lambda nn: nn.Conv2d(
        4, 6, (3, 2), padding="same", groups=2, bias=False, padding_mode="reflect"
    ),
    lambda nn: nn.Conv2d(3, 2, 3, padding=2, padding_mode="circular", dilation=2),
    lambda nn: nn.Conv2d(3, 2, 3, padding=1, padding_mode="replicate"),
    lambda nn: nn.Conv3d(2, 2, 2, stride=(1, 2, 1)),
    lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2),
    lambda nn: nn.ConvTranspose1d(3, 2, 4, stride=3, dilation=2),
]
INPUTS = [
    (2, 3, 9),
    (2, 4, 6, 5),
    (1, 3, 7, 6),
    (1, 3, 5, 5),
    (1, 2, 4, 5, 3),
    (2, 4, 3, 4),
    (2, 3, 5),
]


@pytest.mark.parametrize("k", range(len(MODULES)))
def test_modules_match_torch(k):
    tm = MODULES[k](torch.nn).double()
    mm = MODULES[k](minitorch.nn).double()
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    for name, p in mm.named_parameters():
        assert p.shape == tuple(dict(tm.named_parameters())[name].shape), name
    mm.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(k).normal(size=INPUTS[k])
    tx = torch.tensor(x, requires_grad=True)
    mx = minitorch.tensor(x, requires_grad=True)
    to, mo = tm(tx), mm(mx)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), atol=1e-10)
    g = np.random.default_rng(100 + k).normal(size=tuple(to.shape))
    to.backward(torch.tensor(g))
    mo.backward(minitorch.tensor(g))
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), atol=1e-10)
    for (name, p), (_, q) in zip(mm.named_parameters(), tm.named_parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), atol=1e-10, err_msg=name)
    assert type(mo.grad_fn).__name__ == type(to.grad_fn).__name__


def test_default_init_matches_torch():
    """torch's kaiming_uniform_(a=sqrt(5)) init, value for value: the CPU streams are torch's."""
    minitorch.manual_seed(3)
    torch.manual_seed(3)
    mm, tm = minitorch.nn.Conv2d(16, 32, 3), torch.nn.Conv2d(16, 32, 3)
    for a, b in ((mm.weight, tm.weight), (mm.bias, tm.bias)):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        assert abs(a.detach().numpy()).max() <= 1 / np.sqrt(16 * 9)


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.MaxPool2d(3, 2, 1, ceil_mode=True),
        lambda nn: nn.AvgPool1d(3),
        lambda nn: nn.AvgPool2d((2, 3), divisor_override=2),
        lambda nn: nn.AdaptiveAvgPool2d((None, 2)),
        lambda nn: nn.AdaptiveMaxPool1d(3),
        lambda nn: nn.MaxUnpool1d(2),
        lambda nn: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
        lambda nn: nn.UpsamplingNearest2d(scale_factor=3),
        lambda nn: nn.ZeroPad1d((1, 2)),
        lambda nn: nn.ConstantPad3d(1, 0.5),
        lambda nn: nn.ReflectionPad3d(2),
        lambda nn: nn.ReplicationPad2d((1, 0, 2, 3)),
        lambda nn: nn.CircularPad2d(1),
        lambda nn: nn.PixelUnshuffle(3),
        lambda nn: nn.Unfold((2, 3), padding=1),
        lambda nn: nn.Fold(4, 2, stride=2),
        lambda nn: nn.LPPool2d(2, 3, 2),
        lambda nn: nn.LPPool1d(1.5, 2),
    ],
)
def test_layer_reprs_match_torch(make):
    assert repr(make(minitorch.nn)) == repr(make(torch.nn))
