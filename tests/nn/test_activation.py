"""Activation modules and the composed activations of nn.functional: values against NumPy,
float64 first and second derivatives, reprs, in-place forms, and no host reads on the strict
device."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

X = np.array([[-2.5, -1.2, -0.4, 0.3], [0.8, 1.7, 2.6, -3.4], [4.1, -0.9, 0.55, 7.2]])


def _t(a, device="cpu", grad=False, dtype=None):
    return minitorch.tensor(np.asarray(a), device=device, dtype=dtype, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


# (module, NumPy reference)
MODULES = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    (
        nn.SELU(),
        lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    ),
    (nn.CELU(2.0), lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    (
        nn.GELU("tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    (nn.SiLU(), lambda x: x * _sig(x)),
    (nn.Mish(), lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (nn.Sigmoid(), _sig),
    (nn.Tanh(), np.tanh),
    (nn.Hardtanh(-0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    (nn.Hardsigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    (nn.Softplus(2.0, 5.0), lambda x: np.where(2 * x > 5, x, np.log1p(np.exp(2 * x)) / 2)),
    (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    (nn.Threshold(0.5, -1.0), lambda x: np.where(x > 0.5, x, -1.0)),
    (nn.LogSigmoid(), lambda x: np.log(_sig(x))),
    (nn.Softmax(1), lambda x: _softmax(x, 1)),
    (nn.Softmin(0), lambda x: _softmax(-x, 0)),
    (nn.LogSoftmax(-1), lambda x: np.log(_softmax(x, -1))),
    (nn.GLU(1), lambda x: x[:, :2] * _sig(x[:, 2:])),
    (nn.Hardshrink(1.0), lambda x: np.where(np.abs(x) > 1.0, x, 0)),
    (nn.Softshrink(1.0), lambda x: np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0))),
    (nn.PReLU(), lambda x: np.where(x > 0, x, 0.25 * x)),
    (nn.RReLU().eval(), lambda x: np.where(x >= 0, x, x * (1 / 8 + 1 / 3) / 2)),
]


@pytest.mark.parametrize(
    "module, ref", MODULES, ids=[type(m).__name__ + str(i) for i, (m, _) in enumerate(MODULES)]
)
def test_module_matches_numpy(module, ref, device):
    module = copy.deepcopy(module).to(device).double()  # PReLU's weight: the input's dtype
    x = _t(X, device)
    with count_transfers() as transfers:
        out = module(x)
    assert out.device == x.device and out.dtype == x.dtype
    if device == "strict":
        assert transfers.count == 0
    np.testing.assert_allclose(_np(out), ref(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "module, ref",
    MODULES[:27],
    ids=[type(m).__name__ + str(i) for i, (m, _) in enumerate(MODULES[:27])],
)
def test_module_float32(module, ref):
    out = copy.deepcopy(module).float()(_t(X, dtype=minitorch.float32))
    assert out.dtype is minitorch.float32
    np.testing.assert_allclose(_np(out), ref(X), rtol=2e-6, atol=2e-6)


# composed activations (the kernels have rows in tests/ops/specs_activation.py)
COMPOSED = {
    "softsign": lambda x: F.softsign(x),
    "tanhshrink": lambda x: F.tanhshrink(x),
    "threshold": lambda x: F.threshold(x, 0.5, -1.0),
    "hardshrink": lambda x: F.hardshrink(x, 1.0),
    "softshrink": lambda x: F.softshrink(x, 1.0),
    "glu": lambda x: F.glu(x, 1),
    "softmin": lambda x: F.softmin(x, 1),
    "rrelu_eval": lambda x: F.rrelu(x),
    "relu": lambda x: F.relu(x),
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_composed_gradients(name, device):
    x = _t(X + 0.05, device, grad=True)  # away from the kinks at 0, +-1, 0.5
    fn = COMPOSED[name]
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_prelu_gradients():
    x = _t(X[:, :3].T.copy(), grad=True)  # (3, 3): 3 channels
    w = _t([0.1, 0.25, -0.3], grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))
    out = F.prelu(_t(X), _t([0.1, 0.2, 0.3, 0.4]))
    np.testing.assert_allclose(_np(out), np.where(X > 0, X, X * [0.1, 0.2, 0.3, 0.4]))


def test_reprs():
    assert repr(nn.ReLU()) == "ReLU()" and repr(nn.ReLU(True)) == "ReLU(inplace=True)"
    assert repr(nn.ReLU6(True)) == "ReLU6(inplace=True)"
    assert repr(nn.LeakyReLU(0.2, True)) == "LeakyReLU(negative_slope=0.2, inplace=True)"
    assert repr(nn.PReLU(3)) == "PReLU(num_parameters=3)"
    assert repr(nn.ELU()) == "ELU(alpha=1.0)" and repr(nn.CELU(2.0, True)) == (
        "CELU(alpha=2.0, inplace=True)"
    )
    assert repr(nn.GELU("tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.Hardtanh(-2, 2, True)) == "Hardtanh(min_val=-2, max_val=2, inplace=True)"
    assert repr(nn.Hardsigmoid(True)) == "Hardsigmoid()"
    assert repr(nn.Softplus(2, 10)) == "Softplus(beta=2, threshold=10)"
    assert repr(nn.Threshold(0.1, 20, True)) == "Threshold(threshold=0.1, value=20, inplace=True)"
    assert repr(nn.Softmax()) == "Softmax(dim=None)" and repr(nn.LogSoftmax(-1)) == (
        "LogSoftmax(dim=-1)"
    )
    assert repr(nn.GLU()) == "GLU(dim=-1)" and repr(nn.Softshrink(0.3)) == "Softshrink(0.3)"
    assert repr(nn.RReLU(0.1, 0.3, True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"
    assert repr(nn.Sequential(nn.Linear(2, 3), nn.SiLU())) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): SiLU()\n)"
    )


def test_prelu_parameter_and_state_dict():
    m = nn.PReLU(3, init=0.1)
    assert list(m.state_dict()) == ["weight"]
    np.testing.assert_allclose(_np(m.weight), [0.1] * 3, rtol=1e-6)
    out = m(_t(-np.ones((2, 3, 4)), dtype=minitorch.float32))
    out.sum().backward()
    np.testing.assert_allclose(_np(m.weight.grad), [-8.0] * 3)


@pytest.mark.parametrize(
    "module",
    [
        nn.ReLU(True),
        nn.ELU(inplace=True),
        nn.SiLU(True),
        nn.Hardtanh(inplace=True),
        nn.Threshold(0.0, 2.0, True),
        nn.LeakyReLU(inplace=True),
    ],
)
def test_inplace_modules_write_into_the_input(module):
    x = _t(X.copy())
    want = _np(copy.deepcopy(module)(_t(X.copy())))
    y = module(x)
    assert y is x
    np.testing.assert_allclose(_np(x), want)
    assert not np.allclose(want, X)


def test_inplace_on_a_non_leaf_keeps_gradients():
    a = _t(X, grad=True)
    b = a * 2
    F.relu(b, inplace=True)
    b.sum().backward()
    np.testing.assert_allclose(_np(a.grad), np.where(X > 0, 2.0, 0.0))


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(_t(X))
    np.testing.assert_allclose(_np(out), _softmax(X, 1))
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        F.log_softmax(_t(X[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.Softmax(1)(_t(X))


def test_softmax_is_stable_and_keeps_dtype():
    big = _t([[1000.0, 1001.0, -1000.0]], dtype=minitorch.float32)
    np.testing.assert_allclose(
        _np(F.softmax(big, 1)),
        _softmax(np.array([[1000.0, 1001.0, -1000.0]]), 1),
        rtol=1e-6,
        atol=1e-30,
    )
    assert np.isfinite(_np(F.log_softmax(big, 1))).all()
    assert F.softmax(_t(X, dtype=minitorch.float32), 1, dtype=minitorch.float64).dtype is (
        minitorch.float64
    )
    with pytest.raises(NotImplementedError, match="softmax_lastdim_kernel_impl"):
        F.softmax(_t([1, 2]), 0)


def test_gumbel_softmax():
    logits = _t(np.log([[0.7, 0.2, 0.1]] * 2000))
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(_np(soft.sum(1)), 1.0, rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    assert set(np.unique(_np(hard))) <= {0.0, 1.0}
    freq = _np(hard).mean(0)
    np.testing.assert_allclose(freq, [0.7, 0.2, 0.1], atol=0.04)
    x = _t(np.zeros((2, 3)), grad=True)
    F.gumbel_softmax(x, hard=True).sum().backward()
    assert x.grad is not None


def test_rrelu_training_draws_slopes_in_range():
    x = _t(-np.ones(1000))
    y = _np(F.rrelu(x, 0.1, 0.3, training=True))
    assert (y <= -0.1).all() and (y >= -0.3).all() and y.std() > 0.03
    assert np.allclose(_np(nn.RReLU(0.1, 0.3).eval()(x)), -0.2)


def test_errors():
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(_t(np.ones((2, 3))), 1)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
        F.prelu(_t(np.ones((2, 3))), _t(np.ones(4)))
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        F.relu(_t([True]))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D"):
        nn.Softmax2d()(_t(np.ones((2, 3))))


def test_shrink_and_threshold_pass_nan_through():
    x = minitorch.tensor([float("nan"), 2.0, -0.2])
    for out in (F.hardshrink(x, 0.5), F.softshrink(x, 0.5), F.threshold(x, 0.1, -3.0)):
        assert np.isnan(out[0].item())  # torch's kernels keep a NaN (these made it 0 or -3)
    assert F.hardshrink(x, 0.5)[1:].tolist() == [2.0, 0.0]
    assert F.threshold(x, 0.1, -3.0)[1:].tolist() == [2.0, -3.0]


def test_lp_pool_of_an_all_zero_window_has_zero_gradient():
    x = minitorch.tensor([[[0.0, 0.0, 3.0, 4.0]]], requires_grad=True)
    F.lp_pool1d(x, 2, 2).sum().backward()  # (0^2 + 0^2)^(1/2): no nan
    np.testing.assert_allclose(x.grad.numpy(), [[[0.0, 0.0, 0.6, 0.8]]], rtol=1e-6)
