"""The pointwise catalogue beyond its op-test rows: torch's errors and grad_fn names, Python-bool
results (allclose, equal), special values, no hidden device reads, and the special-function
fallbacks used where SciPy is not installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.numpy_special import FALLBACKS
from minitorch._backend.strict import count_transfers
from minitorch._ops import activation as A

F = mt.tensor([1.5, -2.5, 0.5])
D = mt.tensor([1.5, -2.5, 0.5], dtype=mt.float64)
I = mt.tensor([1, -2, 3])  # noqa: E741
B = mt.tensor([True, False, True])

# (call, exception type, message) as torch 2.x raises them
ERRORS = [
    (lambda: mt.floor(B), NotImplementedError, "\"floor_vml_cpu\" not implemented for 'Bool'"),
    (lambda: mt.frac(I), NotImplementedError, "\"frac_cpu\" not implemented for 'Long'"),
    (
        lambda: mt.round(I, decimals=1),
        NotImplementedError,
        "\"round_cpu\" not implemented for 'Long'",
    ),
    (lambda: mt.fmod(I, 0), RuntimeError, "ZeroDivisionError"),
    (lambda: mt.fmod(B, B), NotImplementedError, "\"fmod_cpu\" not implemented for 'Bool'"),
    (
        lambda: mt.fmax(F, 2.0),
        TypeError,
        "fmax(): argument 'other' (position 2) must be Tensor, not float",
    ),
    (
        lambda: mt.atan2(F, 2.0),
        TypeError,
        "atan2(): argument 'other' (position 2) must be Tensor, not float",
    ),
    (lambda: mt.hypot(I, I), NotImplementedError, "\"hypot_cpu\" not implemented for 'Long'"),
    (
        lambda: mt.logaddexp(I, I),
        NotImplementedError,
        "\"logaddexp_cpu\" not implemented for 'Long'",
    ),
    (
        lambda: mt.lerp(I, I, 0.5),
        NotImplementedError,
        "\"lerp_kernel_scalar\" not implemented for 'Long'",
    ),
    (
        lambda: mt.lerp(F, D, 0.5),
        RuntimeError,
        "expected dtype float for `end` but got dtype double",
    ),
    (
        lambda: mt.lerp(F, F, D),
        RuntimeError,
        "expected dtype float for `weight` but got dtype double",
    ),
    (
        lambda: mt.addcdiv(F, I, I),
        RuntimeError,
        "Integer division with addcdiv is no longer supported",
    ),
    (lambda: mt.polygamma(-1, F), RuntimeError, "polygamma(n, x) does not support negative n."),
    (lambda: mt.isclose(I, F), RuntimeError, "Long did not match Float"),
    (
        lambda: mt.isclose(F, F, rtol=-1),
        RuntimeError,
        "rtol must be greater than or equal to zero, but got -1",
    ),
    (lambda: mt.allclose(F, D), RuntimeError, "Float did not match Double"),
    (
        lambda: mt.isclose(mt.ones(2), mt.ones(3)),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    (
        lambda: mt.logical_and(I, 1),
        TypeError,
        "logical_and(): argument 'other' (position 2) must be Tensor, not int",
    ),
    (
        lambda: mt.bitwise_and(F, F),
        NotImplementedError,
        "\"bitwise_and_cpu\" not implemented for 'Float'",
    ),
    (
        lambda: mt.bitwise_not(F),
        NotImplementedError,
        "\"bitwise_not_cpu\" not implemented for 'Float'",
    ),
    (lambda: I << 1.5, NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
    (
        lambda: mt.bitwise_left_shift(B, B),
        NotImplementedError,
        "\"lshift_cpu\" not implemented for 'Bool'",
    ),
    (
        lambda: I.clone().sin_(),
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    (
        lambda: mt.sin(I, out=mt.zeros(3, dtype=mt.int64)),
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    (lambda: A.hardtanh(F, 2.0, 1.0), ValueError, "min_val cannot be greater than max_val"),
    (
        lambda: A.gelu(F, approximate="foo"),
        RuntimeError,
        "approximate argument must be either none or tanh.",
    ),
    (lambda: A.celu(F, alpha=0.0), RuntimeError, "ZeroDivisionError: alpha cannot be 0 for CELU"),
    (lambda: A.leaky_relu(I), NotImplementedError, "\"leaky_relu_cpu\" not implemented for 'Long'"),
    (lambda: A.gelu(I), NotImplementedError, "\"GeluKernelImpl\" not implemented for 'Long'"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors_match_torch(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert message in str(info.value)


def _grad_fn(call):
    x = mt.tensor([0.3, 0.6], requires_grad=True)
    return type(call(x).grad_fn).__name__


# grad_fn names as torch prints them
NODE_NAMES = [
    (lambda x: mt.round(x), "RoundBackward0"),
    (lambda x: mt.round(x, decimals=1), "RoundBackward1"),
    (lambda x: mt.log1p(x), "Log1PBackward0"),
    (lambda x: mt.square(x), "PowBackward0"),
    (lambda x: mt.true_divide(x, 2), "DivBackward0"),
    (lambda x: mt.fix(x), "TruncBackward0"),
    (lambda x: mt.fmod(x, 1.0), "FmodBackward0"),
    (lambda x: mt.fmod(x, x), "FmodBackward1"),
    (lambda x: mt.lerp(x, x, 0.5), "LerpBackward0"),
    (lambda x: mt.lerp(x, x, x), "LerpBackward1"),
    (lambda x: mt.xlogy(x, x), "XlogyBackward0"),
    (lambda x: mt.xlogy(2.0, x), "XlogyBackward1"),
    (lambda x: mt.xlogy(x, 2.0), "XlogyBackward2"),
    (lambda x: mt.polygamma(2, x), "PolygammaBackward0"),
    (lambda x: mt.nan_to_num(x), "NanToNumBackward0"),
    (lambda x: A.relu6(x), "HardtanhBackward0"),
    (lambda x: A.selu(x), "EluBackward0"),
    (lambda x: A.celu(x), "CeluBackward0"),
    (lambda x: A.leaky_relu(x), "LeakyReluBackward0"),
    (lambda x: A.logsigmoid(x), "LogSigmoidBackward0"),
    (lambda x: x.clone().sin_(), "SinBackward0"),
]


@pytest.mark.parametrize("call, name", NODE_NAMES)
def test_grad_fn_names(call, name):
    assert _grad_fn(call) == name


def test_python_bool_results(device):
    x = mt.tensor([1.0, float("nan")], device=device)
    assert mt.allclose(x, x) is False
    assert mt.allclose(x, x, equal_nan=True) is True
    assert mt.allclose(mt.ones(2, 3, device=device), mt.ones(3, device=device)) is True
    assert mt.equal(x[:1], x[:1]) is True and mt.equal(x, x) is False
    assert mt.equal(mt.ones(2, device=device), mt.ones(1, 2, device=device)) is False
    i = mt.tensor([1, 2], device=device)
    assert mt.equal(i, i.float()) is True and i.equal(i) is True


def test_special_values(device):
    z = mt.tensor([0.0, -0.0, -1.0], device=device)
    np.testing.assert_array_equal(mt.digamma(z).cpu().numpy(), [-np.inf, np.inf, np.nan])
    x = mt.tensor([0.0, -1.0, -np.inf], device=device)
    np.testing.assert_array_equal(mt.lgamma(x).cpu().numpy(), [np.inf, np.inf, np.inf])
    e = mt.erfinv(mt.tensor([1.0, -1.0, 2.0], device=device)).cpu().numpy()
    np.testing.assert_array_equal(e, [np.inf, -np.inf, np.nan])
    n = mt.nan_to_num(mt.tensor([np.nan, np.inf, -np.inf], device=device)).cpu().numpy()
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(n, np.array([0.0, big, -big], dtype=np.float32))
    s = A.softplus(mt.tensor([-1000.0, 1000.0], device=device)).cpu().numpy()
    np.testing.assert_array_equal(s, [0.0, 1000.0])
    big_shift = mt.tensor([-8, 8], device=device) >> 100
    np.testing.assert_array_equal(big_shift.cpu().numpy(), [-1, 0])


def test_inplace_keeps_dtype_and_identity(device):
    x = mt.tensor([0, 1, 2], device=device)
    y = x.logical_and_(mt.tensor([1.0, 1.0, 0.0], device=device))
    assert y is x and x.dtype == mt.int64
    np.testing.assert_array_equal(x.cpu().numpy(), [0, 1, 0])
    x <<= 2
    np.testing.assert_array_equal(x.cpu().numpy(), [0, 4, 0])
    f = mt.tensor([0.25, 0.5], device=device)
    assert A.hardswish(f, inplace=True) is f


OPS_ON_DEVICE = [
    lambda x: mt.erf(x) + mt.erfc(x) + mt.lgamma(x) + mt.digamma(x) + mt.erfinv(x * 0.5),
    lambda x: mt.polygamma(1, x) + mt.logit(x * 0.5) + mt.xlogy(x, x),
    lambda x: mt.sin(x) * mt.cos(x) + mt.atan2(x, x + 1) + mt.lerp(x, x * 2, x),
    lambda x: (
        (mt.fmod(x, 0.3) + mt.fmax(x, x * 0.5) + mt.nan_to_num(x) + mt.round(x, decimals=1)) * x
    ),
    lambda x: A.gelu(x) + A.mish(x) + A.softplus(x) + A.elu(x) + A.hardswish(x),
]


@pytest.mark.parametrize("op", OPS_ON_DEVICE)
def test_no_hidden_device_reads(op):
    """Forward, backward and double backward on the strict device read nothing back."""
    x = mt.tensor([0.3, 0.6, 0.9], device="strict", requires_grad=True)
    with count_transfers() as t:
        y = op(x)
        (g,) = mt.autograd.grad(y.sum(), x, create_graph=True)
        g.sum().backward()
    assert t.count == 0


# --- the fallbacks where SciPy is missing (see NOTE [ Special functions ]) ---

X = np.concatenate([np.linspace(-7.3, 12.0, 200), [1e-8, 0.5, 30.0, 1e5]])


def test_fallbacks_known_values():
    euler_gamma = 0.5772156649015329
    np.testing.assert_allclose(
        FALLBACKS["digamma"](np.array([1.0, 0.5])),
        [-euler_gamma, -euler_gamma - 2 * math.log(2)],
        rtol=1e-14,
    )
    np.testing.assert_allclose(
        FALLBACKS["polygamma"](1, np.array([1.0, 0.5])),
        [math.pi**2 / 6, math.pi**2 / 2],
        rtol=1e-13,
    )
    np.testing.assert_allclose(
        FALLBACKS["polygamma"](2, np.array([1.0])), [-2.4041138063191885], rtol=1e-13
    )
    y = np.linspace(-0.999, 0.999, 101)
    x = FALLBACKS["erfinv"](y)
    np.testing.assert_allclose(FALLBACKS["erf"](x), y, rtol=1e-14, atol=1e-16)
    assert np.isnan(FALLBACKS["digamma"](np.array([-2.0])))[0]
    assert FALLBACKS["lgamma"](np.array([-3.0]))[0] == np.inf


def test_fallbacks_match_scipy():
    sc = pytest.importorskip("scipy.special")
    pairs = [("erf", sc.erf), ("erfc", sc.erfc), ("lgamma", sc.gammaln), ("digamma", sc.psi)]
    for name, ref in pairs:
        np.testing.assert_allclose(FALLBACKS[name](X), ref(X), rtol=1e-12, atol=1e-13, err_msg=name)
    for n in (1, 2, 3, 5):
        np.testing.assert_allclose(
            FALLBACKS["polygamma"](n, X), sc.polygamma(n, X), rtol=1e-10, err_msg=f"polygamma {n}"
        )
    y = np.concatenate([np.linspace(-1, 1, 2001), [1 - 1e-12, -1 + 1e-15, 1e-300]])
    np.testing.assert_allclose(FALLBACKS["erfinv"](y), sc.erfinv(y), rtol=1e-14, err_msg="erfinv")
