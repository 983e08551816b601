"""Convolution and pooling edges: result memory and layout, max pooling beside the padding,
create_graph gradients of the average and adaptive pools, argument errors, module bases."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck


def _rand(rng, *shape):
    return minitorch.tensor(rng.standard_normal(shape), dtype=minitorch.float64)


# --- results are new row-major memory ---


@pytest.mark.parametrize(
    "shape, kernel",
    [((1, 1, 6, 1), (3, 1)), ((1, 2, 1, 5), (1, 2)), ((2, 3, 4, 5), 1), ((1, 2, 3, 4), (3, 4))],
)
def test_unfold_result_is_new_row_major_memory(shape, kernel):
    x = minitorch.arange(float(np.prod(shape))).reshape(shape)
    before = x.numpy().copy()
    win = F.unfold(x, kernel_size=kernel)
    assert win.is_contiguous(), win.stride()
    win.mul_(10)
    np.testing.assert_array_equal(x.numpy(), before, err_msg="unfold's result aliases its input")


def test_unfold_of_transposed_input_is_row_major():
    x = minitorch.arange(60.0).reshape(1, 3, 4, 5).transpose(2, 3)
    win = F.unfold(x, 1)
    assert win.stride() == (60, 20, 1)
    np.testing.assert_array_equal(win.numpy(), x.numpy().reshape(1, 3, 20))


@pytest.mark.parametrize("fn", [F.pixel_shuffle, F.pixel_unshuffle])
def test_pixel_shuffle_factor_one_copies(fn):
    x = minitorch.zeros(1, 4, 2, 2)
    y = fn(x, 1)
    y.add_(1)
    assert x.sum().item() == 0.0
    assert y.stride() == (16, 4, 2, 1)


def test_pixel_shuffle_one_by_one_planes_copies():
    x = minitorch.zeros(1, 4, 1, 1)
    F.pixel_shuffle(x, 2).add_(1)
    assert x.sum().item() == 0.0


def test_pixel_shuffle_factor_one_keeps_channels_last():
    x = minitorch.zeros(2, 4, 2, 2).to(memory_format=minitorch.channels_last)
    y = F.pixel_shuffle(x, 1)
    assert y.stride() == (16, 1, 8, 4)
    y.add_(1)
    assert x.sum().item() == 0.0


def test_conv_weight_gradients_are_row_major():
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.ConvTranspose2d(4, 2, 3))
    loss = net(minitorch.ones(2, 3, 8, 8)).pow(2).mean()
    grads = minitorch.autograd.grad(loss, list(net.parameters()), create_graph=True)
    assert [g.is_contiguous() for g in grads] == [True] * 4
    assert minitorch.cat([g.view(-1) for g in grads]).shape == (4 * 3 * 9 + 4 + 4 * 2 * 9 + 2,)


@pytest.mark.parametrize("n", [1, 3])
def test_conv_nd_weight_gradient_row_major(n):
    conv = getattr(nn, f"Conv{n}d")(2, 3, 2)
    (g,) = minitorch.autograd.grad(conv(minitorch.ones(1, 2, *([4] * n))).sum(), conv.weight)
    assert g.is_contiguous(), g.stride()


def test_nn_grad_conv_weight_and_conv_tbc_row_major():
    gw = nn.grad.conv2d_weight(minitorch.ones(1, 2, 5, 5), (3, 2, 3, 3), minitorch.ones(1, 3, 3, 3))
    assert gw.stride() == (18, 9, 3, 1)
    np.testing.assert_array_equal(gw.numpy(), np.full((3, 2, 3, 3), 9.0))
    gw1 = nn.grad.conv1d_weight(minitorch.ones(1, 2, 5), (3, 2, 3), minitorch.ones(1, 3, 3))
    assert gw1.stride() == (6, 3, 1)
    y = minitorch.conv_tbc(minitorch.ones(5, 2, 3), minitorch.ones(3, 3, 4), minitorch.zeros(4), 1)
    assert y.stride() == (8, 4, 1)
    np.testing.assert_array_equal(y.numpy()[:, 0, 0], [6.0, 9.0, 9.0, 9.0, 6.0])


def test_adaptive_avg_pool_input_gradient_row_major():
    x = minitorch.ones(2, 2, 7, 8, requires_grad=True)
    (gx,) = minitorch.autograd.grad(F.adaptive_avg_pool2d(x, (3, 4)).sum(), x)
    assert gx.stride() == (112, 56, 8, 1)


def test_avg_pool_of_expanded_input_row_major():
    x = minitorch.arange(8.0).reshape(1, 1, 1, 8).expand(2, 3, 4, 8)
    y2 = F.avg_pool2d(x, 2)
    assert y2.stride() == (24, 8, 4, 1)
    np.testing.assert_array_equal(y2.numpy()[0, 0, 0], [0.5, 2.5, 4.5, 6.5])
    assert F.avg_pool1d(x[:, :, 0], 2).stride() == (12, 4, 1)
    x3 = x.unsqueeze(2).expand(2, 3, 2, 4, 8)
    assert F.avg_pool3d(x3, (1, 2, 2)).stride() == (48, 16, 8, 4, 1)


# --- max pooling beside the padding ---


def test_max_pool1d_all_neg_inf_window_points_at_real_element():
    inf = float("inf")
    x = minitorch.tensor([[[-inf, -inf, 1.0, -inf]]], requires_grad=True)
    y, idx = F.max_pool1d(x, 3, stride=2, padding=1, return_indices=True)
    assert idx.tolist() == [[[0, 2]]]
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[1.0, 0.0, 1.0, 0.0]]])
    up = F.max_unpool1d(y.detach(), idx, 3, stride=2, padding=1)
    np.testing.assert_array_equal(up.numpy(), [[[-inf, 0.0, 1.0]]])


def test_max_pool2d_neg_inf_window_with_right_padding_first():
    # all real values -inf, windows over the top, left and (ceil_mode) right padding: some
    # pad tap comes before the window's first real one in tap order; the indices are torch's
    inf = float("inf")
    x = minitorch.full((1, 1, 2, 4), -inf)
    y, idx = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_indices=True)
    assert idx.tolist() == [[[[0, 1, 3], [4, 5, 7]]]]
    x3 = minitorch.full((1, 1, 2, 2, 2), -inf)
    _, idx3 = F.max_pool3d(x3, 2, stride=1, padding=1, return_indices=True)
    np.testing.assert_array_equal(idx3.numpy()[0, 0, 0], [[0, 0, 1], [0, 0, 1], [2, 2, 3]])


def test_max_pool_integer_minimum_window_points_at_real_element():
    lo = -(2**63)
    x = minitorch.tensor([[[lo, lo, 5, lo]]])
    y, idx = F.max_pool1d(x, 3, stride=2, padding=1, return_indices=True)
    assert idx.tolist() == [[[0, 2]]]
    assert y.tolist() == [[[lo, 5]]]


# --- create_graph gradients of the pools reach the input ---


@pytest.mark.parametrize(
    "pool",
    [
        lambda x: F.avg_pool2d(x, 2),
        lambda x: F.avg_pool1d(x[0], 2),
        lambda x: F.avg_pool3d(x.unsqueeze(0), (1, 2, 2)),
        lambda x: F.adaptive_avg_pool2d(x, 4),
        lambda x: F.adaptive_avg_pool2d(x, 3),
        lambda x: F.adaptive_avg_pool1d(x[0], 4),
        lambda x: F.adaptive_avg_pool3d(x.unsqueeze(0), (2, 4, 4)),
        lambda x: F.adaptive_max_pool2d(x, 4),
        lambda x: F.adaptive_max_pool1d(x[0], 4),
        lambda x: F.adaptive_max_pool3d(x.unsqueeze(0), (2, 4, 4)),
    ],
)
def test_pool_gradient_penalty_runs(pool):
    x = minitorch.linspace(-1, 1, 2 * 3 * 6 * 6).reshape(2, 3, 6, 6).requires_grad_()
    y = pool(x)
    w = minitorch.linspace(0.5, 1.5, y.numel()).reshape(y.shape)
    (g,) = minitorch.autograd.grad((y * w).sum(), x, create_graph=True)
    assert g.requires_grad
    (g * g).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3, 6, 6)))


def test_global_adaptive_avg_gradient_has_no_graph():
    # torch takes a mean there: its gradient is an expand, with no edge to the input
    x = minitorch.ones(2, 3, 4, 4, requires_grad=True)
    (g,) = minitorch.autograd.grad(F.adaptive_avg_pool2d(x, 1).sum(), x, create_graph=True)
    assert not g.requires_grad
    np.testing.assert_allclose(g.numpy(), np.full((2, 3, 4, 4), 1 / 16), rtol=1e-6)


def test_adaptive_avg_values_and_gradients():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 2, 7, 5))
    x = minitorch.tensor(a, requires_grad=True)
    y = F.adaptive_avg_pool2d(x, (3, 2))
    rows = [(0, 3), (2, 5), (4, 7)]  # torch's windows [floor(i*L/o), ceil((i+1)*L/o))
    cols = [(0, 3), (2, 5)]
    want = np.array(
        [[a[..., r0:r1, c0:c1].mean((-1, -2)) for c0, c1 in cols] for r0, r1 in rows]
    ).transpose(2, 3, 0, 1)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-12)
    x2 = _rand(rng, 1, 2, 5, 7).requires_grad_()
    for f in (
        lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
        lambda t: F.adaptive_avg_pool3d(t.unsqueeze(0), (1, 2, 3)),
        lambda t: F.avg_pool2d(t, 2, padding=1, count_include_pad=False),
        lambda t: F.adaptive_max_pool2d(t, (3, 4)),
    ):
        assert gradcheck(f, (x2,))
        assert gradgradcheck(f, (x2,))


def test_max_pool_gradients_beside_padding():
    x = minitorch.tensor([[[0.3, -0.7, 1.1, 0.2, -0.4]]], dtype=minitorch.float64)
    x.requires_grad_()
    f = lambda t: F.max_pool1d(t, 3, stride=2, padding=1)  # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# --- argument errors ---


def test_numpy_arguments_raise_type_error():
    img = np.zeros((1, 3, 8, 8), np.float32)
    cases = [
        (lambda: nn.MaxPool2d(2)(img), "max_pool2d(): argument 'input' (position 1)"),
        (lambda: nn.AdaptiveAvgPool2d(1)(img), "adaptive_avg_pool2d(): argument 'input'"),
        (lambda: F.avg_pool1d(img[0], 2), "avg_pool1d(): argument 'input'"),
        (lambda: F.adaptive_max_pool1d(img[0], 2), "adaptive_max_pool1d(): argument 'input'"),
        (
            lambda: F.conv_transpose2d(img, minitorch.ones(3, 1, 3, 3)),
            "conv_transpose2d(): argument 'input'",
        ),
        (lambda: nn.Unfold(2)(img), "im2col(): argument 'input'"),
    ]
    for f, msg in cases:
        with pytest.raises(TypeError, match=r"must be Tensor, not numpy\.ndarray") as e:
            f()
        assert msg in str(e.value)
    # conv2d has two overloads (padding of ints or a str): torch lists them (a Conv2d module
    # passes its seven arguments by position)
    listed = r"^conv2d\(\) received an invalid combination of arguments - got \(numpy\.ndarray, "
    with pytest.raises(TypeError, match=listed + r"Parameter, Parameter, tuple, "):
        nn.Conv2d(3, 4, 3)(img)
    with pytest.raises(TypeError, match=r"^conv2d\(\) received an invalid combination of "
                       r"arguments - got \(Tensor, numpy\.ndarray\)"):  # fmt: skip
        F.conv2d(minitorch.zeros(1, 3, 8, 8), np.zeros((4, 3, 3, 3), np.float32))


def test_conv_transpose_output_padding_and_size_errors():
    x = minitorch.ones(1, 1, 4, 4)
    with pytest.raises(RuntimeError, match="negative output_padding is not supported"):
        F.conv_transpose2d(x, minitorch.ones(1, 1, 3, 3), output_padding=-1)
    with pytest.raises(RuntimeError, match=r"\(8 x 0\). Output size is too small"):
        F.conv_transpose2d(minitorch.ones(1, 8, 1), minitorch.ones(1, 8, 1, 2), padding=(0, 1))


@pytest.mark.parametrize(
    "kwargs, msg",
    [
        (dict(kernel_size=0), "kernel size should be greater than zero, but got kernel_height: 0"),
        (dict(kernel_size=(2, 0)), "kernel_height: 2 kernel_width: 0"),
        (dict(kernel_size=2, stride=0), "stride should be greater than zero, but got stride_h"),
        (dict(kernel_size=2, dilation=0, stride=0), "dilation should be greater than zero"),
        (dict(kernel_size=2, padding=-1), "padding should be non-negative, but got pad_height"),
    ],
)
def test_unfold_fold_geometry_errors(kwargs, msg):
    with pytest.raises(RuntimeError, match=msg):
        F.unfold(minitorch.ones(1, 1, 4, 4), **kwargs)
    with pytest.raises(RuntimeError, match=msg):
        F.fold(minitorch.ones(1, 4, 9), 4, **kwargs)


def test_unfold_low_rank_input_index_error():
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got 2"):
        nn.Unfold(2)(minitorch.ones(3, 4))
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        F.unfold(minitorch.ones(4), 2)
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.unfold(minitorch.ones(4), 0)  # torch checks the geometry first


# --- module bases ---


def test_adaptive_pool_base_classes():
    P = nn.modules.pooling
    for cls in (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d):
        assert cls.__mro__[1] is P._AdaptiveAvgPoolNd
        assert not issubclass(cls, P._AdaptiveMaxPoolNd)
    for cls in (nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d):
        assert cls.__mro__[1] is P._AdaptiveMaxPoolNd
        assert not issubclass(cls, P._AdaptiveAvgPoolNd)
    m = nn.AdaptiveMaxPool2d((2, 3), return_indices=True)
    assert m.return_indices and repr(m) == "AdaptiveMaxPool2d(output_size=(2, 3))"
    assert repr(nn.AdaptiveAvgPool2d(1)) == "AdaptiveAvgPool2d(output_size=1)"
