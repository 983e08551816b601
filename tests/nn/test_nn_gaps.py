"""nn gaps found by running the same programs under torch and minitorch, checked without torch:
grid_sample's double backward and its nearest mode's grid gradient, the errors of a wrong RNN
hidden state, Module.compile, nn.utils.skip_init, nn.utils.fusion and nn.grad."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck


def _np(t):
    return t.detach().cpu().numpy()


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- grid_sample: double backward ---


def test_grid_sample_double_backward_repro():
    # a gradient penalty through a spatial transformer: the first backward's graph reads the
    # sampler's intermediates and its output, which once ran the same inner nodes twice
    x = mt.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
    grid = mt.tensor([[[[0.1, -0.3], [0.5, 0.2]]]], requires_grad=True)
    out = F.grid_sample(x, grid, align_corners=False)
    (g,) = mt.autograd.grad(out.pow(2).sum(), x, create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(_np(grid.grad), [[[[4.0, 16.0], [4.0, 16.0]]]], rtol=1e-5)


def _penalty_grads(f):
    """The gradients of sum(f(a, b)^2), kept differentiable: a gradcheck of them checks a double
    backward whose graph reads f's output as well as its intermediates."""

    def grads(a, b):
        out = f(a, b)
        return mt.autograd.grad(out.pow(2).sum(), (a, b), create_graph=True, allow_unused=True)

    return grads


_CASES_2D = list(
    itertools.product(("bilinear", "bicubic", "nearest"), ("zeros", "border", "reflection"),
                      (False, True))
)  # fmt: skip
_CASES_3D = list(
    itertools.product(("bilinear", "nearest"), ("zeros", "border", "reflection"), (False, True))
)


@pytest.mark.parametrize("mode, padding_mode, align_corners", _CASES_2D)
def test_grid_sample_2d_gradgradcheck(mode, padding_mode, align_corners):
    rng = _rng(1)
    x = mt.tensor(rng.standard_normal((1, 1, 3, 4)), requires_grad=True)
    grid = mt.tensor(rng.uniform(-1.3, 1.3, (1, 2, 2, 2)), requires_grad=True)

    def f(a, b):
        return F.grid_sample(a, b, mode, padding_mode, align_corners)

    assert gradcheck(f, (x, grid))
    assert gradgradcheck(f, (x, grid))
    assert gradcheck(_penalty_grads(f), (x, grid))


@pytest.mark.parametrize("mode, padding_mode, align_corners", _CASES_3D)
def test_grid_sample_3d_gradgradcheck(mode, padding_mode, align_corners):
    rng = _rng(2)
    x = mt.tensor(rng.standard_normal((1, 1, 2, 3, 3)), requires_grad=True)
    grid = mt.tensor(rng.uniform(-1.3, 1.3, (1, 2, 1, 2, 3)), requires_grad=True)

    def f(a, b):
        return F.grid_sample(a, b, mode, padding_mode, align_corners)

    assert gradcheck(f, (x, grid))
    assert gradgradcheck(f, (x, grid))
    assert gradcheck(_penalty_grads(f), (x, grid))


def test_grid_sample_grid_computed_from_input():
    # a spatial transformer: theta (so the grid) depends on the input it samples; the sampler's
    # backward must give partial derivatives, the walk adds the path through the grid
    rng = _rng(3)
    x = mt.tensor(rng.standard_normal((1, 1, 3, 3)), requires_grad=True)
    w = mt.tensor(rng.standard_normal((6, 9)) * 0.1)
    eye = mt.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=mt.float64)

    def f(a):
        theta = (a.reshape(1, -1) @ w.t()).reshape(1, 2, 3) + eye
        grid = F.affine_grid(theta, (1, 1, 2, 2), align_corners=False)
        return F.grid_sample(a, grid, "bilinear", "border", align_corners=False)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_grid_sample_node_and_retained_graph(device):
    x = mt.randn(1, 2, 3, 3, device=device, requires_grad=True)
    grid = (mt.rand(1, 2, 2, 2, device=device) * 2 - 1).requires_grad_()
    out = F.grid_sample(x, grid, align_corners=False)
    assert out.grad_fn.name() == "GridSampler2DBackward0"
    assert [type(f).__name__ for f, _ in out.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    out.sum().backward(retain_graph=True)
    first = _np(x.grad).copy(), _np(grid.grad).copy()
    out.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * first[0], rtol=1e-6)
    np.testing.assert_allclose(_np(grid.grad), 2 * first[1], rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()
    x3 = mt.randn(1, 1, 2, 2, 2, device=device, requires_grad=True)
    out3 = F.grid_sample(x3, mt.zeros(1, 1, 1, 1, 3, device=device), align_corners=True)
    assert out3.grad_fn.name() == "GridSampler3DBackward0"
    with mt.no_grad():
        assert not F.grid_sample(x, grid, align_corners=False).requires_grad


# --- grid_sample: nearest with only the grid requiring grad ---


@pytest.mark.parametrize("n", [2, 3])
def test_grid_sample_nearest_grid_gets_zero_gradient(n, device):
    spatial = (4, 4) if n == 2 else (2, 2, 2)
    x = mt.arange(float(np.prod(spatial)), device=device).reshape((1, 1, *spatial))
    grid = mt.zeros((1,) + (2,) * n + (n,), device=device, requires_grad=True)
    out = F.grid_sample(x, grid, mode="nearest", align_corners=False)
    assert out.requires_grad and out.grad_fn is not None
    out.sum().backward()
    np.testing.assert_array_equal(_np(grid.grad), np.zeros(grid.shape))
    # with the input requiring grad too: the input's gradient is the counts of each tap
    xg = x.detach().requires_grad_()
    grid.grad = None
    F.grid_sample(xg, grid, mode="nearest", align_corners=False).sum().backward()
    assert _np(xg.grad).sum() == 2**n
    np.testing.assert_array_equal(_np(grid.grad), np.zeros(grid.shape))


# --- RNN hidden states of the wrong form ---


def test_lstm_single_tensor_hx_raises_index_error():
    lstm = nn.LSTM(2, 3)
    # torch's LSTM reads hx[0] and hx[1]: the Tensor's own indexing errors
    with pytest.raises(IndexError, match="^index 1 is out of bounds for dimension 0 with size 1$"):
        lstm(mt.zeros(4, 1, 2), mt.zeros(1, 1, 3))
    with pytest.raises(IndexError, match="^index 1 is out of bounds"):
        lstm(mt.zeros(4, 2), mt.zeros(1, 3))  # unbatched
    with pytest.raises(IndexError, match="0-dim"):
        lstm(mt.zeros(4, 1, 2), mt.tensor(1.0))
    # a Tensor of first dim 2 passes torch's indexing, then fails its rank check (its words)...
    with pytest.raises(RuntimeError, match="should also be 3-D but got \\(2-D, 2-D\\) tensors$"):
        lstm(mt.zeros(4, 1, 2), mt.zeros(2, 1, 3))
    # ... or, when the ranks fit, is refused by the lstm kernel's argument parser
    with pytest.raises(TypeError, match=r"^lstm\(\) received an invalid combination"):
        lstm(mt.zeros(4, 1, 2), mt.zeros(2, 1, 1, 3))
    h_n, c_n = lstm(mt.zeros(4, 2), mt.zeros(2, 1, 3))[1]  # unbatched: split, as in torch
    assert h_n.shape == c_n.shape == (1, 3)
    packed = nn.utils.rnn.pack_padded_sequence(mt.zeros(4, 1, 2), [4])
    with pytest.raises(TypeError, match=r"^lstm\(\) received an invalid combination"):
        lstm(packed, mt.zeros(1, 1, 3))


def test_lstm_tuple_of_the_wrong_length_or_contents():
    lstm = nn.LSTM(2, 3)
    x, h = mt.zeros(4, 1, 2), mt.zeros(1, 1, 3)
    with pytest.raises(IndexError, match="^tuple index out of range$"):
        lstm(x, (h,))
    with pytest.raises(RuntimeError, match="^lstm expects two hidden states$"):
        lstm(x, (h, h, h))
    with pytest.raises(AttributeError, match="^'NoneType' object has no attribute 'dim'$"):
        lstm(x, (h, None))
    with pytest.raises(TypeError, match="^'int' object is not subscriptable$"):
        lstm(x, 3)
    out, (hn, cn) = lstm(x, [h, h])  # a list works, as in torch
    assert hn.shape == cn.shape == (1, 1, 3)
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[1\] size \(1, 1, 3\), got \[1, 2, 3\]"
    ):
        lstm(x, (h, mt.zeros(1, 2, 3)))


@pytest.mark.parametrize("cls", [nn.GRU, nn.RNN])
def test_gru_rnn_given_a_tuple_raise_attribute_error(cls):
    m = cls(2, 3)
    h = mt.zeros(1, 1, 3)
    with pytest.raises(AttributeError, match="^'tuple' object has no attribute 'dim'$"):
        m(mt.zeros(4, 1, 2), (h, h))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 3\), got \[1, 1, 4\]"):
        m(mt.zeros(4, 1, 2), mt.zeros(1, 1, 4))


def test_cells_given_the_wrong_hx_form():
    x, h = mt.zeros(4, 2), mt.zeros(4, 3)
    with pytest.raises(
        TypeError, match=r"^lstm_cell\(\): argument 'hx' \(position 2\) must be tuple of Tensors, "
    ):  # torch's text: a batched input with one Tensor for hx
        nn.LSTMCell(2, 3)(x, h)
    for bad in ((h,), (h, h, h)):
        with pytest.raises(RuntimeError, match="^lstm_cell expects two hidden states$"):
            nn.LSTMCell(2, 3)(x, bad)
    with pytest.raises(AttributeError, match="^'NoneType' object has no attribute 'dim'$"):
        nn.LSTMCell(2, 3)(x, (h, None))
    for cls in (nn.GRUCell, nn.RNNCell):
        with pytest.raises(AttributeError, match="^'tuple' object has no attribute 'dim'$"):
            cls(2, 3)(x, (h,))
    assert nn.LSTMCell(2, 3)(x, [h, h])[0].shape == (4, 3)


# --- Module.compile, Module.xpu ---


def test_module_compile_in_place():
    model = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    before = _np(model(mt.ones(1, 3)))
    assert model.compile() is None
    assert model.compile(mode="max-autotune", fullgraph=True, dynamic=False) is None
    np.testing.assert_array_equal(_np(model(mt.ones(1, 3))), before)
    assert list(model.state_dict()) == ["0.weight", "0.bias"]
    with pytest.raises(RuntimeError, match="Unrecognized mode=bogus"):
        model.compile(mode="bogus")


def test_module_xpu_raises_as_a_build_without_xpu():
    with pytest.raises(AssertionError, match="not compiled with XPU"):
        nn.Linear(2, 2).xpu()
    relu = nn.ReLU()
    assert relu.xpu() is relu


# --- nn.utils.skip_init ---


def test_skip_init():
    m = nn.utils.skip_init(nn.Linear, 5, 1)
    assert isinstance(m, nn.Linear) and m.weight.shape == (1, 5) and m.weight.requires_grad
    m = nn.utils.skip_init(nn.Linear, in_features=6, out_features=2, bias=False, dtype=mt.float64)
    assert m.weight.dtype == mt.float64 and m.bias is None and m.weight.device.type == "cpu"
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(mt.Tensor)
    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)
    with pytest.raises(TypeError):
        nn.utils.skip_init(3)
    from minitorch.nn.utils.init import skip_init

    assert nn.utils.skip_init is skip_init


# --- nn.utils.fusion ---


def _randomise(*modules, rng):
    with mt.no_grad():
        for m in modules:
            for v in m.state_dict().values():
                if v.dtype.is_floating_point:
                    v.copy_(mt.tensor(rng.uniform(0.5, 1.5, tuple(v.shape)), dtype=v.dtype))
            m.eval()


@pytest.mark.parametrize(
    "make, transpose, shape",
    [
        (lambda: (nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)), False, (2, 3, 6, 6)),
        (lambda: (nn.Conv1d(3, 4, 3, bias=False), nn.BatchNorm1d(4)), False, (2, 3, 6)),
        (lambda: (nn.ConvTranspose2d(3, 4, 3), nn.BatchNorm2d(4)), True, (2, 3, 5, 5)),
        (lambda: (nn.Conv3d(2, 4, 2), nn.BatchNorm3d(4, affine=False)), False, (1, 2, 3, 3, 3)),
    ],
)
def test_fuse_conv_bn_eval(make, transpose, shape):
    rng = _rng(4)
    conv, bn = make()
    _randomise(conv, bn, rng=rng)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    assert type(fused) is type(conv) and fused is not conv
    assert isinstance(fused.weight, nn.Parameter) and isinstance(fused.bias, nn.Parameter)
    x = mt.tensor(rng.standard_normal(shape), dtype=mt.float32)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(conv(x))), rtol=1e-5, atol=1e-5)
    if conv.bias is None:
        assert fused.bias is not None and conv.bias is None  # the original is left alone


def test_fuse_linear_bn_and_errors():
    rng = _rng(5)
    lin, bn = nn.Linear(3, 4), nn.BatchNorm1d(4)
    _randomise(lin, bn, rng=rng)
    fused = nn.utils.fusion.fuse_linear_bn_eval(lin, bn)
    x = mt.tensor(rng.standard_normal((5, 3)), dtype=mt.float32)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(lin(x))), rtol=1e-5, atol=1e-5)
    w, b = nn.utils.fuse_linear_bn_weights(
        lin.weight, None, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    assert w.shape == (4, 3) and b.shape == (4,) and w.requires_grad and not b.requires_grad
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_linear_bn_eval(nn.Linear(3, 4), nn.BatchNorm1d(4))
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        nn.utils.fuse_linear_bn_eval(lin, nn.BatchNorm1d(3).eval())
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1).eval())
    assert nn.utils.fuse_conv_bn_weights is nn.utils.fusion.fuse_conv_bn_weights


# --- nn.grad ---


_GEOMETRIES = [(1, 0, 1, 1), (2, 1, 1, 1), (3, 2, 2, 2), (2, 0, 1, 4)]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("stride, padding, dilation, groups", _GEOMETRIES)
def test_nn_grad_matches_autograd_of_conv(n, stride, padding, dilation, groups):
    rng = _rng(6)
    conv = getattr(F, f"conv{n}d")
    x = mt.tensor(rng.standard_normal((2, 4, *(7, 6, 5)[:n])), requires_grad=True)
    w = mt.tensor(rng.standard_normal((8, 4 // groups, *([2] * n))), requires_grad=True)
    out = conv(x, w, None, stride, padding, dilation, groups)
    go = mt.tensor(rng.standard_normal(tuple(out.shape)))
    gx, gw = mt.autograd.grad(out, (x, w), go)
    got_x = getattr(nn.grad, f"conv{n}d_input")(x.shape, w, go, stride, padding, dilation, groups)
    got_w = getattr(nn.grad, f"conv{n}d_weight")(x, w.shape, go, stride, padding, dilation, groups)
    np.testing.assert_allclose(_np(got_x), _np(gx), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(got_w), _np(gw), rtol=1e-10, atol=1e-12)


def test_nn_grad_is_differentiable_and_checks_shapes():
    rng = _rng(7)
    x = mt.tensor(rng.standard_normal((1, 2, 5)), requires_grad=True)
    w = mt.tensor(rng.standard_normal((3, 2, 2)), requires_grad=True)
    go = mt.tensor(rng.standard_normal((1, 3, 2)), requires_grad=True)
    assert gradcheck(lambda w, go: nn.grad.conv1d_input((1, 2, 5), w, go, stride=2), (w, go))
    assert gradgradcheck(lambda w, go: nn.grad.conv1d_input((1, 2, 5), w, go, stride=2), (w, go))
    assert gradcheck(lambda x, go: nn.grad.conv1d_weight(x, (3, 2, 2), go, stride=2), (x, go))
    assert gradgradcheck(lambda x, go: nn.grad.conv1d_weight(x, (3, 2, 2), go, stride=2), (x, go))
    with pytest.raises(RuntimeError, match="conv1d_input: grad_output of size \\[1, 3, 2\\]"):
        nn.grad.conv1d_input((1, 2, 9), w, go, stride=2)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        nn.grad.conv1d_input((1, 2, 5), w, go[0], stride=2)
    with pytest.raises(RuntimeError, match="conv2d_weight: expected 4-dimensional"):
        nn.grad.conv2d_weight(x, (3, 2, 2), go)
    with pytest.raises(RuntimeError, match="to have 4 channels, but got 2"):
        nn.grad.conv1d_weight(x, (3, 4, 2), go, stride=2)


def test_grid_sample_grid_gradient_is_zero_on_the_clip_bounds():
    # torch's clip_coordinates: gradient 1 strictly inside, 0 on the bounds (clamp passed it);
    # an identity affine_grid with align_corners=True puts the edge pixels exactly there
    F = mt.nn.functional
    inp = mt.arange(12.0, dtype=mt.float64).view(1, 1, 3, 4) ** 1.5
    theta = mt.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=mt.float64, requires_grad=True)
    for mode in ("border", "reflection"):
        theta.grad = None
        g = F.affine_grid(theta, (1, 1, 3, 4), align_corners=True)
        F.grid_sample(inp, g, padding_mode=mode, align_corners=True).sum().backward()
        np.testing.assert_allclose(
            theta.grad.flatten().numpy(),
            [
                0.5416699076545062,
                7.9300804068041515,
                31.528416609853828,
                3.7039225293156317,
                0.0,
                65.33552877191256,
            ],
            rtol=1e-12,
            err_msg=mode,
        )
