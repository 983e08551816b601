"""Op-test rows for the activation kernels (minitorch/_ops/activation.py), checked against
torch.nn.functional."""

from __future__ import annotations

import math

import numpy as np

from minitorch._ops import activation as A
from tests.ops.spec import OpSpec
from tests.ops.specs_pointwise import FLOATS, INTS, NOGRAD, S, away_from

try:
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover - depends on the machine
    _erf = np.vectorize(math.erf, otypes=[np.float64])


def _F(name, **bound):
    """torch.nn.functional.<name> with arguments bound; torch is imported only when called."""

    def op(x):
        import torch.nn.functional as F

        return getattr(F, name)(x, **bound)

    return op


def act(name, ref, shapes=(S,), fn=None, **kw) -> OpSpec:
    """A row for the kernel A.<fn or name> with keyword arguments `bound` (shared with torch)."""
    bound = kw.pop("bound", {})
    kernel = getattr(A, fn or name.split("__")[0])
    return OpSpec(
        name=name,
        op=lambda x: kernel(x, **bound),
        ref=lambda x: ref(x, **bound),
        shapes=list(shapes),
        torch_op=_F(fn or name.split("__")[0], **bound),
        **kw,
    )


# --- references (float64, overflow-free) ---


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    return np.clip(x, min_val, max_val)


def _relu6(x):
    return np.clip(x, 0, 6)


def _leaky_relu(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope)


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _selu(x):
    return 1.0507009873554804934193349852946 * _elu(x, 1.6732632423543772848170429916717)


def _celu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) / alpha))


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(x / 2))


def _silu(x):
    return x * _sigmoid(x)


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta)


def _mish(x):
    return x * np.tanh(np.logaddexp(0, x))


def _hardsigmoid(x):
    return np.clip(x + 3, 0, 6) / 6


def _hardswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


def _logsigmoid(x):
    return -np.logaddexp(0, -x)


AWAY_0 = away_from(0.0)
WIDE = (-60.0, 60.0)  # exp would overflow in float32 without the stable forms
HARD = away_from(-3.0, 3.0, low=-5.0, high=5.0)


def _inplace(name, ref, domain, **bound):
    kernel = getattr(A, name)
    return OpSpec(
        name=f"{name}_inplace",
        op=lambda x: kernel(x.clone(), inplace=True, **bound),
        ref=lambda x: ref(x, **bound),
        shapes=[S],
        domain=domain,
        torch_op=lambda x: _F(name, inplace=True, **bound)(x.clone()),
    )


# fmt: off
SPECS = [
    act("hardtanh", _hardtanh, domain=away_from(-1.0, 1.0)),
    act("hardtanh__bounds", _hardtanh, domain=away_from(-0.5, 1.5, low=-3, high=3),
        bound={"min_val": -0.5, "max_val": 1.5}),
    act("hardtanh__int", _hardtanh, dtypes=INTS, domain=(-3, 3), **NOGRAD),
    act("relu6", _relu6, domain=away_from(0.0, 6.0, low=-3.0, high=9.0)),
    act("leaky_relu", _leaky_relu, domain=AWAY_0),
    act("leaky_relu__slope", _leaky_relu, [(2, 3, 4)], domain=AWAY_0,
        bound={"negative_slope": 0.2}),
    act("elu", _elu, domain=AWAY_0),
    act("elu__alpha", _elu, [()], domain=AWAY_0, bound={"alpha": 0.5}),
    act("elu__wide", _elu, domain=WIDE, **NOGRAD),
    act("selu", _selu, domain=AWAY_0),
    act("celu", _celu, domain=AWAY_0, bound={"alpha": 2.0}),
    act("gelu", _gelu),
    act("gelu__0d", _gelu, [()]),
    act("gelu__tanh", _gelu, bound={"approximate": "tanh"}),
    act("silu", _silu, domain=(-4.0, 4.0)),
    act("silu__wide", _silu, domain=WIDE, dtypes=FLOATS),
    act("mish", _mish, domain=(-4.0, 4.0)),
    act("mish__wide", _mish, domain=WIDE),
    act("softplus", _softplus, domain=(-4.0, 4.0)),
    act("softplus__beta", _softplus, domain=away_from(0.5, low=-2.0, high=2.0),
        bound={"beta": 2.0, "threshold": 1.0}),
    act("softplus__wide", _softplus, domain=WIDE),
    act("hardsigmoid", _hardsigmoid, domain=HARD),
    act("hardswish", _hardswish, domain=HARD),
    act("logsigmoid", _logsigmoid, domain=(-4.0, 4.0)),
    act("logsigmoid__wide", _logsigmoid, domain=WIDE),
    act("logsigmoid__empty", _logsigmoid, [(0, 3)]),
    _inplace("hardtanh", _hardtanh, away_from(-1.0, 1.0)),
    _inplace("elu", _elu, AWAY_0, alpha=0.7),
    _inplace("silu", _silu, (-2.0, 2.0)),
    _inplace("hardswish", _hardswish, HARD),
]
# fmt: on
