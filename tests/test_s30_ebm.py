"""Session 30 (helper ebm): torch-free checks of the library fixes the energy-based-model programs
in tests/reference/test_s30_ebm_reference.py found. A convolution's and grid_sample's first
backward, under create_graph, is recorded as torch's double-backward node, whose inputs include
the op's input and weight: the gradients require grad whenever those do, even where they are
constant in them (a gradient penalty of a frozen conv critic), and the second backward then
leaves those tensors' .grad None. The values below are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(
        np.asarray(got.detach(), dtype=float), want, rtol=1e-10, atol=1e-12, err_msg=err_msg
    )


def _names(fn):
    return [None if f is None else f.name() for f, _ in fn.next_functions]


def test_conv_input_gradient_of_a_frozen_conv_requires_grad():
    # R1 / WGAN-GP with the critic frozen: only the input requires grad
    conv = mt.nn.Conv2d(1, 2, 3, bias=False).double().requires_grad_(False)
    x = mt.rand(2, 1, 5, 5, dtype=F64, requires_grad=True)
    (gx,) = mt.autograd.grad(conv(x).sum(), x, create_graph=True)
    assert gx.requires_grad
    assert gx.grad_fn.name() == "ConvolutionBackwardBackward0"
    gx.pow(2).sum().backward()  # was: element 0 of tensors does not require grad
    assert x.grad is None
    # the same for conv1d, conv3d and conv_transpose2d
    for f, shape in (
        (mt.nn.Conv1d(2, 3, 3).double(), (1, 2, 6)),
        (mt.nn.Conv3d(1, 1, 2).double(), (1, 1, 3, 3, 3)),
        (mt.nn.ConvTranspose2d(1, 1, 2, stride=2).double(), (1, 1, 3, 3)),
    ):
        f.requires_grad_(False)
        z = mt.rand(*shape, dtype=F64, requires_grad=True)
        (gz,) = mt.autograd.grad(f(z).sum(), z, create_graph=True)
        assert gz.requires_grad and gz.grad_fn.name() == "ConvolutionBackwardBackward0"
        gz.sum().backward()
        assert z.grad is None


def test_conv_weight_gradient_requires_grad_with_only_the_weight():
    w = mt.randn(4, 3, 3, 3, dtype=F64, requires_grad=True)
    x = mt.randn(2, 3, 5, 5, dtype=F64)
    (gw,) = mt.autograd.grad(F.conv2d(x, w).sum(), w, create_graph=True)
    assert gw.requires_grad
    assert gw.grad_fn.name() == "ConvolutionBackwardBackward0"
    gw.sum().backward()
    assert w.grad is None


def test_conv_double_backward_values_and_edges():
    x = (mt.arange(18, dtype=F64).reshape(1, 2, 3, 3) / 10).requires_grad_()
    w = mt.tensor([[[[1.0, -1.0], [0.5, 2.0]], [[0.0, 1.0], [-2.0, 1.0]]]], dtype=F64)
    (g,) = mt.autograd.grad(F.conv2d(x, w, padding=1).tanh().sum(), x, create_graph=True)
    assert g.grad_fn.name() == "ConvolutionBackwardBackward0"
    # torch's edges: the output gradient, the input, the weight
    assert _names(g.grad_fn)[1:] == ["torch::autograd::AccumulateGrad", None]
    g.pow(2).sum().backward()
    _close(g, [[
        [[1.908305185117, 1.657544673192, 1.288867872887],
         [0.511826107474, 1.336264243965, 0.770592932593],
         [-0.209893624564, 0.388139762501, 0.649448396293]],
        [[-0.918333937272, -0.33583888787, 1.125529493537],
         [-1.172285500709, -0.062656236023, 0.462329964331],
         [0.1284859724, 0.133789086809, 0.211154717971]],
    ]])  # fmt: skip
    _close(x.grad, [[
        [[-11.656205403347, 23.527870109419, 19.850994931985],
         [-3.263589089306, -19.559620820444, -9.8008127738],
         [0.933749332424, -0.360489269666, -3.069314251567]],
        [[-21.472632618947, -13.385360267666, 2.454735128523],
         [15.771287778189, 3.433698438424, -6.7566891655],
         [-0.892069767438, 2.637907340978, -1.169629495629]],
    ]])  # fmt: skip


def test_conv_transpose_double_backward_values():
    x = (mt.arange(8, dtype=F64).reshape(1, 2, 2, 2) / 10).requires_grad_()
    w = mt.tensor([[[[1.0, -1.0], [0.5, 2.0]]], [[[0.0, 1.0], [-2.0, 1.0]]]], dtype=F64)
    (g,) = mt.autograd.grad(F.conv_transpose2d(x, w, stride=2).sin().sum(), x, create_graph=True)
    assert g.grad_fn.name() == "ConvolutionBackwardBackward0"
    g.sum().backward()
    _close(g, [[[[2.269414348676, 1.894469090576], [1.366408256287, 0.72693433357]],
                [[0.448708569311, 0.52253700236], [0.55417105702, 0.557915097837]]]])  # fmt: skip
    _close(x.grad, [[
        [[-2.874527122027, -4.575201168665], [-5.915900759689, -6.788607783681]],
        [[0.983813245773, 0.507593452655], [0.149209125761, -0.043720698185]],
    ]])  # fmt: skip


@pytest.mark.parametrize(
    "op, kwargs",
    [
        (F.conv2d, dict(stride=2, padding=1, groups=2)),
        (F.conv_transpose2d, dict(stride=2, padding=1, output_padding=1, groups=2)),
        (F.conv_transpose1d, dict(stride=2, output_padding=2, dilation=3)),
    ],
)
def test_conv_third_order_gradcheck(op, kwargs):
    g = mt.Generator().manual_seed(0)
    transposed = "output_padding" in kwargs
    if op is F.conv_transpose1d:
        x, w = mt.randn(1, 2, 4, generator=g, dtype=F64), mt.randn(2, 3, 3, generator=g, dtype=F64)
    elif transposed:
        x = mt.randn(1, 4, 3, 3, generator=g, dtype=F64)
        w = mt.randn(4, 2, 3, 3, generator=g, dtype=F64)
    else:
        x = mt.randn(1, 4, 5, 4, generator=g, dtype=F64)
        w = mt.randn(4, 2, 3, 3, generator=g, dtype=F64)
    x.requires_grad_()
    w.requires_grad_()

    def first(x, w):
        return mt.autograd.grad(op(x, w, **kwargs).pow(2).sum(), (x, w), create_graph=True)

    assert mt.autograd.gradcheck(first, (x, w))
    assert mt.autograd.gradgradcheck(first, (x, w))


def test_grid_sample_input_gradient_requires_grad_when_linear():
    img = mt.rand(1, 1, 4, 4, dtype=F64, requires_grad=True)
    grid = mt.rand(1, 3, 3, 2, dtype=F64) * 2 - 1
    out = F.grid_sample(img, grid, align_corners=False)
    (gi,) = mt.autograd.grad(out.sum(), img, create_graph=True)
    assert gi.requires_grad
    assert gi.grad_fn.name() == "GridSampler2DBackwardBackward0"
    gi.pow(2).sum().backward()
    assert img.grad is None
    img3 = mt.arange(8, dtype=F64).reshape(1, 1, 2, 2, 2).requires_grad_()
    grid3 = mt.tensor([[[[[0.1, -0.2, 0.3]]]]], dtype=F64)
    (g3,) = mt.autograd.grad(F.grid_sample(img3, grid3, align_corners=True).sum(), img3,
                             create_graph=True)  # fmt: skip
    assert g3.grad_fn.name() == "GridSampler3DBackwardBackward0"
    _close(g3.flatten(), [0.0945, 0.1155, 0.063, 0.077, 0.1755, 0.2145, 0.117, 0.143])


def test_grid_sample_double_backward_still_reaches_the_grid():
    g = mt.Generator().manual_seed(1)
    img = mt.rand(1, 2, 4, 5, generator=g, dtype=F64, requires_grad=True)
    grid = (mt.rand(1, 3, 2, 2, generator=g, dtype=F64) * 1.6 - 0.8).requires_grad_()

    def first(img, grid):
        out = F.grid_sample(img, grid, align_corners=False)
        return mt.autograd.grad(out.pow(2).sum(), (img, grid), create_graph=True)

    assert mt.autograd.gradcheck(first, (img, grid))


def test_celu_gradient_takes_alpha_as_float32():
    # torch's derivative of celu reads 1 / alpha.toFloat(): at 0 its slope is 0.7 / f32(0.7)
    x = mt.tensor([-3.0, -1.0, -0.1, 0.0, 0.5, 2.0], dtype=F64, requires_grad=True)
    y = F.celu(x, alpha=0.7)
    _close(y[:3], [-0.6903653492868647, -0.532244274490757, -0.09318547017487286])  # exact 1/α
    want = [0.013763785962892475, 0.23965103469267596, 0.8668779124040469, 1.0000000170298988,
            1.0, 1.0]  # fmt: skip
    (g1,) = mt.autograd.grad(y.sum(), x, create_graph=True)
    _close(g1, want)
    (g2,) = mt.autograd.grad(g1.sum(), x)
    _close(g2, [0.019662551710411938, 0.3423586268198698, 1.2383970388098429, 0.0, 0.0, 0.0])
    x.grad = None
    F.celu(x, alpha=0.7).sum().backward()  # the first-order path on arrays
    _close(x.grad, want)


def test_celu_backward_refuses_an_alpha_past_float32():
    x = mt.tensor([-3.0, -1.0], dtype=F64, requires_grad=True)
    y = mt.celu(x, alpha=1e39)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without ov"):
        y.sum().backward()


@pytest.mark.parametrize(
    "op, shape, name",
    [
        (F.adaptive_avg_pool2d, (1, 2, 7, 5), "AdaptiveAvgPool2DBackwardBackward0"),
        (F.adaptive_avg_pool3d, (1, 1, 5, 4, 3), "AdaptiveAvgPool3DBackwardBackward0"),
    ],
)
def test_adaptive_avg_pool_double_backward_node_name(op, shape, name):
    x = mt.randn(*shape, dtype=F64, requires_grad=True)
    (g,) = mt.autograd.grad(op(x, 3).sum(), x, create_graph=True)
    assert g.grad_fn.name() == name
    assert g.requires_grad
    (h,) = mt.autograd.grad(g.sum(), x)
    _close(h, np.zeros(shape))  # torch's double backward reaches the input with zeros


def test_rrelu_training_input_gradient_requires_grad():
    # torch's double-backward node of rrelu_with_noise takes the input (zero gradient)
    mt.manual_seed(0)
    x = mt.randn(4, 3, dtype=F64, requires_grad=True)
    lin = mt.nn.Linear(3, 3).double().requires_grad_(False)
    y = F.rrelu(lin(x), training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    assert [f.name() for f, _ in y.grad_fn.next_functions] == ["AddmmBackward0"]
    (gx,) = mt.autograd.grad(y.sum(), x, create_graph=True)
    assert gx.requires_grad
    gx.pow(2).sum().backward()  # was: element 0 of tensors does not require grad
    _close(x.grad, np.zeros((4, 3)))
