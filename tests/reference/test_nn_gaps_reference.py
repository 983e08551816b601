"""nn gaps against PyTorch: grid_sample's gradients and double-backward gradients, its nearest
mode's grid gradient, the exception types of a wrong RNN hidden state, Module.compile,
nn.utils.skip_init, nn.utils.fusion and nn.grad (same float64 inputs give the same numbers)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

LIBS = (torch, minitorch)


def _np(t):
    return None if t is None else t.detach().cpu().numpy()


def _close(a, b, what, atol=1e-9):
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x is None or y is None:  # an unused input: None or zeros in either library
            for z in (x, y):
                assert z is None or not np.any(z), f"{what}[{i}]"
            continue
        np.testing.assert_allclose(x, y, rtol=1e-7, atol=atol, err_msg=f"{what}[{i}]")


# --- grid_sample ---


def _grid_sample_run(lib, x, g, u, mode, padding_mode, align_corners):
    """output, first gradients for upstream u, and the gradients of a penalty that reads the
    first gradients, the input and the output (a double backward)."""
    F = lib.nn.functional
    x = lib.tensor(x, requires_grad=True)
    g = lib.tensor(g, requires_grad=True)
    out = F.grid_sample(x, g, mode, padding_mode, align_corners)
    gx, gg = lib.autograd.grad((out * lib.tensor(u)).sum(), (x, g), create_graph=True)
    gx2, gg2 = lib.autograd.grad(out.pow(2).sum(), (x, g), create_graph=True)
    penalty = (gx * gx).sum() + (gx * x).sum() + (gg * gg).sum() + (gx2 * gx2).sum()
    penalty = penalty + (gg2 * gg2).sum()
    second = lib.autograd.grad(penalty, (x, g), allow_unused=True)
    # the repro's order: the input's gradient alone, then backward of its sum
    out = F.grid_sample(x, g, mode, padding_mode, align_corners)
    (gx,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
    third = lib.autograd.grad(gx.sum(), (x, g), allow_unused=True)
    return [_np(out), _np(gx), _np(gg), *[_np(t) for t in second + third]]


_CASES = [
    (n, mode, pm, ac)
    for n, mode, pm, ac in itertools.product(
        (2, 3), ("bilinear", "bicubic", "nearest"), ("zeros", "border", "reflection"), (False, True)
    )
    if not (n == 3 and mode == "bicubic")
]


@pytest.mark.parametrize("n, mode, padding_mode, align_corners", _CASES)
def test_grid_sample_gradients_and_double_backward(n, mode, padding_mode, align_corners):
    rng = np.random.default_rng(n)
    x = rng.standard_normal((2, 2, *([3] * n)))
    g = rng.uniform(-1.3, 1.3, (2, *([2] * n), n))
    u = rng.standard_normal((2, 2, *([2] * n)))
    got = [_grid_sample_run(lib, x, g, u, mode, padding_mode, align_corners) for lib in LIBS]
    _close(*got, f"grid_sample {n}d {mode} {padding_mode} {align_corners}")


def test_grid_sample_nearest_grid_requires_grad():
    got = []
    for lib in LIBS:
        x = lib.arange(16.0).reshape(1, 1, 4, 4)
        grid = lib.zeros(1, 2, 2, 2, requires_grad=True)
        out = lib.nn.functional.grid_sample(x, grid, mode="nearest", align_corners=False)
        assert out.requires_grad and out.grad_fn is not None
        out.sum().backward()
        got.append((out.grad_fn.name(), _np(grid.grad)))
    assert got[0][0] == got[1][0] == "GridSampler2DBackward0"
    np.testing.assert_array_equal(got[0][1], got[1][1])


def test_grid_sample_spatial_transformer_double_backward():
    rng = np.random.default_rng(5)
    xa, wa = rng.standard_normal((2, 3, 5, 5)), rng.standard_normal((6, 75)) * 0.05
    got = []
    for lib in LIBS:
        F = lib.nn.functional
        x = lib.tensor(xa, requires_grad=True)
        w = lib.tensor(wa, requires_grad=True)
        eye = lib.tensor([[1.0, 0, 0], [0, 1.0, 0]], dtype=lib.float64)
        theta = (x.reshape(2, -1) @ w.t()).reshape(2, 2, 3) + eye
        out = F.grid_sample(x, F.affine_grid(theta, (2, 3, 4, 4), align_corners=False),
                            align_corners=False)  # fmt: skip
        gx, gw = lib.autograd.grad(out.pow(2).sum(), (x, w), create_graph=True)
        (gx.pow(2).sum() + gw.pow(2).sum()).backward()
        got.append([_np(gx), _np(gw), _np(x.grad), _np(w.grad)])
    _close(*got, "spatial transformer", atol=1e-7)


# --- RNN hidden states of the wrong form: torch's exception types ---


def _rnn_mistakes(lib):
    nn = lib.nn
    x, x2, h = lib.zeros(4, 1, 2), lib.zeros(4, 2), lib.zeros(1, 1, 3)
    hc = lib.zeros(4, 3)
    packed = nn.utils.rnn.pack_padded_sequence(x, [4])
    return {
        "lstm tensor hx": lambda: nn.LSTM(2, 3)(x, h),
        "lstm tensor hx unbatched": lambda: nn.LSTM(2, 3)(x2, lib.zeros(1, 3)),
        "lstm tensor hx of 2 layers": lambda: nn.LSTM(2, 3)(x, lib.zeros(2, 1, 3)),
        "lstm 4-d tensor hx": lambda: nn.LSTM(2, 3)(x, lib.zeros(2, 1, 1, 3)),
        "lstm 0-d hx": lambda: nn.LSTM(2, 3)(x, lib.tensor(1.0)),
        "lstm packed tensor hx": lambda: nn.LSTM(2, 3)(packed, h),
        "lstm 1-tuple": lambda: nn.LSTM(2, 3)(x, (h,)),
        "lstm 3-tuple": lambda: nn.LSTM(2, 3)(x, (h, h, h)),
        "lstm None in tuple": lambda: nn.LSTM(2, 3)(x, (h, None)),
        "lstm int hx": lambda: nn.LSTM(2, 3)(x, 3),
        "lstm c of wrong size": lambda: nn.LSTM(2, 3)(x, (h, lib.zeros(1, 2, 3))),
        "gru tuple": lambda: nn.GRU(2, 3)(x, (h, h)),
        "rnn list": lambda: nn.RNN(2, 3)(x, [h]),
        "gru packed tuple": lambda: nn.GRU(2, 3)(packed, (h,)),
        "gru wrong size": lambda: nn.GRU(2, 3)(x, lib.zeros(1, 1, 4)),
        "lstmcell tensor hx": lambda: nn.LSTMCell(2, 3)(x2, hc),
        "lstmcell 1-tuple": lambda: nn.LSTMCell(2, 3)(x2, (hc,)),
        "lstmcell 3-tuple": lambda: nn.LSTMCell(2, 3)(x2, (hc, hc, hc)),
        "grucell tuple": lambda: nn.GRUCell(2, 3)(x2, (hc, hc)),
        "rnncell list": lambda: nn.RNNCell(2, 3)(x2, [hc]),
    }


@pytest.mark.parametrize("case", list(_rnn_mistakes(minitorch)))
def test_rnn_hidden_state_mistakes_raise_torch_types(case):
    types = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:  # noqa: B017  (the type is what is compared)
            _rnn_mistakes(lib)[case]()
        types.append(info.type)
    assert types[0] is types[1], f"{case}: torch raises {types[0]}, minitorch {types[1]}"


# --- Module.compile ---


def test_module_compile():
    for lib in LIBS:
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())
        assert model.compile() is None
        assert tuple(model(lib.ones(1, 3)).shape) == (1, 2)
        with pytest.raises(RuntimeError, match="Unrecognized mode"):
            model.compile(mode="bogus")
        assert hasattr(model, "xpu")


# --- nn.utils.skip_init, nn.utils.fusion ---


def test_skip_init_same_module_and_errors():
    for lib in LIBS:
        m = lib.nn.utils.skip_init(lib.nn.Linear, in_features=6, out_features=2,
                                   dtype=lib.float64)  # fmt: skip
        assert (tuple(m.weight.shape), str(m.weight.dtype)[-7:]) == ((2, 6), "float64")
        assert m.weight.requires_grad and m.weight.device.type == "cpu"
        with pytest.raises(RuntimeError, match="must support a 'device' arg"):
            lib.nn.utils.skip_init(lib.nn.ReLU)


def _fusion_run(lib, make, transpose, shape):
    rng = np.random.default_rng(3)
    conv, bn = make(lib.nn)
    with lib.no_grad():
        for m in (conv, bn):
            for v in m.state_dict().values():
                if v.dtype.is_floating_point:
                    v.copy_(lib.tensor(rng.uniform(0.5, 1.5, tuple(v.shape)), dtype=v.dtype))
            m.eval()
    if transpose is None:
        fused = lib.nn.utils.fusion.fuse_linear_bn_eval(conv, bn)
    else:
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = lib.tensor(rng.standard_normal(shape), dtype=lib.float32)
    return [_np(fused.weight), _np(fused.bias), _np(fused(x))]


@pytest.mark.parametrize(
    "make, transpose, shape",
    [
        (lambda nn: (nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)), False, (2, 3, 5, 5)),
        (lambda nn: (nn.Conv1d(3, 4, 2, bias=False), nn.BatchNorm1d(4)), False, (2, 3, 5)),
        (lambda nn: (nn.ConvTranspose2d(3, 4, 2), nn.BatchNorm2d(4)), True, (2, 3, 3, 3)),
        (lambda nn: (nn.Conv3d(2, 4, 2), nn.BatchNorm3d(4, affine=False)), False, (1, 2, 3, 3, 3)),
        (lambda nn: (nn.Linear(3, 4), nn.BatchNorm1d(4)), None, (5, 3)),
        (lambda nn: (nn.Linear(3, 4, bias=False), nn.BatchNorm1d(1)), None, (5, 3)),
    ],
)
def test_fusion_same_weights(make, transpose, shape):
    got = [_fusion_run(lib, make, transpose, shape) for lib in LIBS]
    for i, (a, b) in enumerate(zip(*got, strict=True)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=str(i))


# --- nn.grad ---


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("stride, padding, dilation, groups", [(1, 0, 1, 1), (3, 2, 2, 2)])
def test_nn_grad_same_numbers(n, stride, padding, dilation, groups):
    rng = np.random.default_rng(n)
    xa = rng.standard_normal((2, 4, *(7, 6, 5)[:n]))
    wa = rng.standard_normal((6, 4 // groups, *([2] * n)))
    conv = getattr(torch.nn.functional, f"conv{n}d")
    ga = rng.standard_normal(conv(torch.tensor(xa), torch.tensor(wa), None, stride, padding,
                                  dilation, groups).shape)  # fmt: skip
    got = []
    for lib in LIBS:
        x, w, go = (lib.tensor(a, requires_grad=True) for a in (xa, wa, ga))
        args = (stride, padding, dilation, groups)
        gi = getattr(lib.nn.grad, f"conv{n}d_input")(list(x.shape), w, go, *args)
        gw = getattr(lib.nn.grad, f"conv{n}d_weight")(x, tuple(w.shape), go, *args)
        second = lib.autograd.grad((gi * gi).sum() + (gw * gw).sum(), (x, w, go))
        got.append([_np(gi), _np(gw), *[_np(t) for t in second]])
    _close(*got, f"nn.grad conv{n}d")
