"""Edges of nn layers found against torch: saving lazy modules, the shrink and threshold kernels'
double backward and comparisons, flatten of a 0-d tensor, circular padding's rank check, and
batch/instance norm of half inputs."""

from __future__ import annotations

import io
import pickle
import re
import zipfile

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn
from minitorch._ops import activation as A
from minitorch.autograd import gradcheck, gradgradcheck

# --- torch.save of lazy modules before their first forward ---


def _round_trip(obj, **kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf, **kwargs)
    buf.seek(0)
    return buf


def test_save_load_uninitialized_placeholders():
    buf = _round_trip(
        {
            "sd": nn.LazyLinear(2).state_dict(),
            "p": nn.UninitializedParameter(requires_grad=False),
            "b": nn.UninitializedBuffer(),
        }
    )
    # written as torch writes them, so that torch reads the file too
    with zipfile.ZipFile(buf) as zf:
        data = zf.read("archive/data.pkl")
    assert b"torch.nn.parameter\nUninitializedParameter" in data
    assert b"torch.nn.parameter\nUninitializedBuffer" in data
    buf.seek(0)
    got = torch.load(buf, weights_only=False)
    assert list(got["sd"]) == ["weight", "bias"]
    assert type(got["sd"]["weight"]) is nn.UninitializedParameter
    assert got["sd"]["weight"].requires_grad
    assert type(got["p"]) is nn.UninitializedParameter and not got["p"].requires_grad
    assert type(got["b"]) is nn.UninitializedBuffer
    # weights_only refuses them, as torch does, unless marked safe
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="UninitializedParameter"):
        torch.load(buf)
    buf.seek(0)
    with torch.serialization.safe_globals([nn.UninitializedParameter, nn.UninitializedBuffer]):
        got = torch.load(buf)
    assert type(got["b"]) is nn.UninitializedBuffer


@pytest.mark.parametrize("legacy", [False, True])
def test_save_load_lazy_module_then_forward(legacy):
    m = nn.Sequential(nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d())
    buf = _round_trip(m, _use_new_zipfile_serialization=not legacy)
    m2 = torch.load(buf, weights_only=False)
    assert type(m2[0].weight) is nn.UninitializedParameter
    assert type(m2[1].running_mean) is nn.UninitializedBuffer
    y = m2(torch.ones(2, 3, 5, 5))
    assert tuple(y.shape) == (2, 4, 3, 3)
    assert type(m2[0].weight) is nn.Parameter and tuple(m2[0].weight.shape) == (4, 3, 3, 3)


# --- hardshrink, softshrink, threshold ---
# F.hardshrink/softshrink/threshold are composed in nn/functional.py; these test the kernels
# in minitorch/_ops/activation.py that replace them.

_SHRINKS = [
    ("hardshrink", lambda t: A.hardshrink(t, 0.4), "HardshrinkBackwardBackward0"),
    ("softshrink", lambda t: A.softshrink(t, 0.4), "SoftshrinkBackwardBackward0"),
    ("threshold", lambda t: A.threshold(t, 0.1, -2.0), "ThresholdBackwardBackward0"),
]


@pytest.mark.parametrize("name,fn,node", _SHRINKS, ids=[s[0] for s in _SHRINKS])
def test_shrink_gradient_is_differentiable(name, fn, node):
    # a gradient penalty: the gradient depends on x (with a zero derivative), as in torch
    x = torch.tensor([-1.0, -0.3, 0.05, 0.25, 0.7, 1.5], requires_grad=True)
    w = torch.tensor([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
    (g,) = torch.autograd.grad((fn(x) * w).sum(), x, create_graph=True)
    assert g.requires_grad and type(g.grad_fn).__name__ == node
    (g * g).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(6, np.float32), err_msg=name)


@pytest.mark.parametrize("name,fn,node", _SHRINKS, ids=[s[0] for s in _SHRINKS])
def test_shrink_gradcheck(name, fn, node):
    # away from the kinks at +-0.4 and 0.1
    x = torch.tensor(
        [-1.3, -0.6, -0.2, 0.0, 0.3, 0.55, 0.9], dtype=torch.float64, requires_grad=True
    )
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_shrink_values_and_gradients():
    x = torch.tensor([-1.0, -0.5, -0.3, 0.0, 0.2, 0.5, 0.7, float("nan")], requires_grad=True)
    y = A.hardshrink(x, 0.5)
    np.testing.assert_array_equal(y.detach().numpy(), np.float32([-1, 0, 0, 0, 0, 0, 0.7, np.nan]))
    assert type(y.grad_fn).__name__ == "HardshrinkBackward0"
    y.backward(torch.full((8,), 2.0))
    np.testing.assert_array_equal(x.grad.numpy(), [2, 0, 0, 0, 0, 0, 2, 2])
    x.grad = None
    y = A.softshrink(x, 0.5)
    np.testing.assert_allclose(
        y.detach().numpy(), [-0.5, 0, 0, 0, 0, 0, 0.2, np.nan], rtol=1e-6, atol=0
    )
    y.backward(torch.full((8,), 2.0))
    np.testing.assert_array_equal(x.grad.numpy(), [2, 0, 0, 0, 0, 0, 2, 2])
    x.grad = None
    y = A.threshold(x, 0.2, -7.0)
    np.testing.assert_array_equal(
        y.detach().numpy(), np.float32([-7, -7, -7, -7, -7, 0.5, 0.7, np.nan])
    )
    y.backward(torch.full((8,), 2.0))
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0, 0, 0, 2, 2, 2])


def test_shrink_half_comparisons_as_torch():
    # x = half(0.10002): hardshrink and the shrinks' backward compare in half (x <= half(lambd),
    # zeroed), softshrink's forward and threshold in float32 (x > 0.10002, kept)
    x = torch.tensor([0.10003662109375, -0.10003662109375], dtype=torch.float16)
    x.requires_grad_()
    one = torch.ones(2, dtype=torch.float16)
    y = A.hardshrink(x, 0.10002)
    y.backward(one)
    np.testing.assert_array_equal(y.detach().float().numpy(), [0, 0])
    np.testing.assert_array_equal(x.grad.float().numpy(), [0, 0])
    x.grad = None
    y = A.softshrink(x, 0.10002)
    y.backward(one)
    expected = np.float16(np.float32(0.10003662109375) - np.float32(0.10002))
    np.testing.assert_array_equal(y.detach().numpy(), [expected, -expected])
    np.testing.assert_array_equal(x.grad.float().numpy(), [0, 0])
    x.grad = None
    y = A.threshold(x, 0.10002, -7.0)
    y.backward(one)
    np.testing.assert_array_equal(y.detach().float().numpy(), [0.10003662109375, -7])
    np.testing.assert_array_equal(x.grad.float().numpy(), [1, 0])


def test_threshold_integer_and_inplace():
    # an integer input's threshold and value are truncated, as torch's kernel
    xi = torch.tensor([-1, 0, 3])
    assert A.threshold(xi, -0.5, 9.7).tolist() == [9, 9, 3]
    x = torch.tensor([-1.0, 0.2, 0.7], requires_grad=True)
    y = A.threshold(x * 1, 0.1, 0.0, inplace=True)
    assert type(y.grad_fn).__name__ == "ThresholdBackward1"
    assert y.tolist() == pytest.approx([0.0, 0.2, 0.7])


def test_shrink_dtype_and_lambda_errors():
    with pytest.raises(NotImplementedError, match="\"hardshrink_cpu\" not implemented for 'Long'"):
        A.hardshrink(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="\"softshrink_check\" not implemented for 'Int'"):
        A.softshrink(torch.tensor([1, 2], dtype=torch.int32))
    with pytest.raises(NotImplementedError, match="\"threshold_cpu\" not implemented for 'Bool'"):
        A.threshold(torch.tensor([True]), 0, 1)
    msg = r"lambda must be in range \[0, 65504\] for input dtype Half, but found -1"
    with pytest.raises(RuntimeError, match=msg):
        A.softshrink(torch.ones(2, dtype=torch.float16), -1.0)


# --- flatten of a 0-d tensor ---


@pytest.mark.parametrize(
    "call,got",
    [
        (lambda x: nn.Flatten()(x), 1),
        (lambda x: x.flatten(1), 1),
        (lambda x: torch.flatten(x, 0, 1), 1),
        (lambda x: x.flatten(-2), -2),
    ],
)
def test_flatten_0d_checks_dims(call, got):
    msg = rf"Dimension out of range \(expected to be in range of \[-1, 0\], but got {got}\)"
    with pytest.raises(IndexError, match=msg):
        call(torch.tensor(3.0))


def test_flatten_0d_valid_dims():
    x = torch.tensor(3.0)
    for args in ((), (0,), (-1,), (0, -1), (-1, 0)):
        y = x.flatten(*args)
        assert tuple(y.shape) == (1,) and y.item() == 3.0


# --- circular padding's input rank ---


@pytest.mark.parametrize(
    "module,shape,msg",
    [
        (nn.CircularPad1d, (4,), "expected 2D or 3D input (got 1D input)"),
        (nn.CircularPad1d, (2, 3, 4, 5), "expected 2D or 3D input (got 4D input)"),
        (nn.CircularPad2d, (4, 4), "expected 3D or 4D input (got 2D input)"),
        (nn.CircularPad3d, (2, 3, 3), "expected 4D or 5D input (got 3D input)"),
    ],
)
def test_circular_pad_rank(module, shape, msg):
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        module(1)(torch.ones(*shape))


def test_circular_pad_values():
    x = torch.arange(6.0).reshape(1, 2, 3)
    y = nn.CircularPad1d((1, 2))(x)
    np.testing.assert_array_equal(y.numpy(), [[[2, 0, 1, 2, 0, 1], [5, 3, 4, 5, 3, 4]]])
    assert repr(nn.CircularPad2d((1, 2, 3, 0))) == "CircularPad2d((1, 2, 3, 0))"


# --- batch norm / instance norm of half inputs ---


def _half_input():
    return np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float16)


def test_batch_norm_half_input_float32_module_rounds_once():
    # float32 parameters: torch keeps the statistics in float32 and rounds the output once,
    # which here is the correctly rounded result
    x = _half_input()
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean((0, 2, 3), keepdims=True)) / np.sqrt(
        x64.var((0, 2, 3), keepdims=True) + 1e-5
    )
    for m in (nn.BatchNorm2d(3), nn.BatchNorm2d(3, affine=False)):
        y = m(torch.tensor(x))
        assert y.dtype is torch.float16
        np.testing.assert_array_equal(y.detach().numpy(), ref.astype(np.float16))


def test_instance_norm_half_as_torch():
    # torch runs instance_norm as batch_norm of the (1, N*C, ...) view, with the statistics
    # in half when there are no float32 affine parameters (so not correctly rounded)
    x = torch.tensor(_half_input())
    flat = nn.functional.batch_norm(x.reshape(1, 6, 4, 4), None, None, training=True)
    for m in (nn.InstanceNorm2d(3), nn.InstanceNorm2d(3, track_running_stats=True)):
        y = m(x)
        np.testing.assert_array_equal(y.numpy(), flat.reshape(2, 3, 4, 4).numpy())
    assert nn.InstanceNorm2d(3)(x)[0, 0, 1, 3].item() == 1.380859375  # torch's value
    # float32 affine parameters: float32 statistics, one rounding
    m = nn.InstanceNorm2d(3, affine=True)
    x64 = _half_input().astype(np.float64)
    ref = (x64 - x64.mean((2, 3), keepdims=True)) / np.sqrt(x64.var((2, 3), keepdims=True) + 1e-5)
    np.testing.assert_array_equal(m(x).detach().numpy(), ref.astype(np.float16))


def test_instance_norm_without_running_stats_in_eval():
    for dt in (torch.float32, torch.float16):
        with pytest.raises(RuntimeError, match="Expected running_mean and running_var"):
            nn.functional.instance_norm(torch.ones(2, 3, 4, dtype=dt), use_input_stats=False)
