"""Op-test rows for the activation kernels (minitorch/_ops/activation.py), checked against
torch.nn.functional."""

from __future__ import annotations

import math

import numpy as np

import minitorch as mt
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


def _hardshrink(x, lambd=0.5):
    return np.where(np.abs(x) > lambd, x, 0.0)


def _softshrink(x, lambd=0.5):
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0))


def _threshold(x, threshold, value):
    return np.where(x > threshold, x, value)


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


def _gelu_backward(x, g):
    return g * (
        0.5 * (1 + _erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    )


def _softmax_backward(x, g):
    e = np.exp(x - x.max(-1, keepdims=True))
    y = e / e.sum(-1, keepdims=True)
    return y * (g - (g * y).sum(-1, keepdims=True))


def _backward_op(T, fn):
    """(x, g) -> d fn(x)/dx^T g built with create_graph, so a fused backward Function
    (GeluBackward, SoftmaxBackward) is checked (and differentiated twice) like any op."""

    def op(x, g):
        x = x if x.requires_grad else x.detach().requires_grad_(True)
        return T.autograd.grad(fn(T, x), x, g, create_graph=True)[0]

    return op


def _backward_row(name, fn, ref, shapes, **kw):
    def torch_op(x, g):
        import torch

        return _backward_op(torch, fn)(x, g)

    return OpSpec(
        name=name,
        op=_backward_op(mt, fn),
        ref=ref,
        shapes=shapes,
        domain=kw.pop("domain", (-3.0, 3.0)),
        torch_op=torch_op,
        **kw,
    )


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(x / 2))


# layer_norm's fused kernel (minitorch/_ops/nn_kernels.py LayerNorm) lives with the speed work
# on the attention block's activations; its rows sit here with GELU's.
def _layer_norm(x, w=None, b=None, k=1):
    axes = tuple(range(x.ndim - k, x.ndim))
    d = x - x.mean(axes, keepdims=True)
    out = d / np.sqrt((d * d).mean(axes, keepdims=True) + 1e-5)
    if w is not None:
        out = out * w
    return out if b is None else out + b


def _layer_norm_op(k, bias_only=False):
    def call(F, x, wb):
        return F.layer_norm(x, x.shape[x.ndim - k :], *(((None,) + wb) if bias_only else wb))

    def op(x, *wb):
        import minitorch.nn.functional as F

        return call(F, x, wb)

    def torch_op(x, *wb):
        import torch.nn.functional as F

        return call(F, x, wb)

    return op, torch_op


def _layer_norm_row(name, shapes, k=1, bias_only=False):
    op, torch_op = _layer_norm_op(k, bias_only)

    def ref(x, *wb):
        return _layer_norm(x, *(((None,) + wb) if bias_only else wb), k=k)

    return OpSpec(name=name, op=op, ref=ref, shapes=shapes, torch_op=torch_op)


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
    act("hardshrink", _hardshrink, domain=away_from(-0.5, 0.5)),
    act("softshrink", _softshrink, domain=away_from(-0.5, 0.5)),
    act("threshold", _threshold, domain=away_from(0.1), bound={"threshold": 0.1, "value": -2.0}),
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
    # the float32 kernel's tails (A&S 7.1.26; Φ from erfc on the negative side)
    act("gelu__wide", _gelu, [(4, 25)], domain=(-9.0, 9.0), dtypes=("float32",), **NOGRAD,
        atol=1e-6, rtol=2e-5),
    # (over more points than __wide, torch's own float32 erf is off by up to 1.1e-6)
    act("gelu__blocks", _gelu, [(3, 40000)], domain=(-9.0, 9.0), dtypes=("float32",), **NOGRAD,
        atol=2e-6, rtol=2e-5),
    act("gelu__half", _gelu, domain=(-3.0, 3.0), dtypes=("float16", "bfloat16"), **NOGRAD,
        atol=1e-2, rtol=1e-2),
    _backward_row("gelu_backward", lambda T, x: T.nn.functional.gelu(x), _gelu_backward,
                  [S, S]),
    # the float32 kernel's derivative (written by the forward), over its tails and over several
    # of its cache-sized blocks
    _backward_row("gelu_backward__wide", lambda T, x: T.nn.functional.gelu(x), _gelu_backward,
                  [(4, 25), (4, 25)], domain=(-9.0, 9.0), dtypes=("float32",), **NOGRAD,
                  atol=1e-6, rtol=2e-5),
    _backward_row("gelu_backward__blocks", lambda T, x: T.nn.functional.gelu(x),
                  _gelu_backward, [(3, 40000), (3, 40000)], domain=(-9.0, 9.0),
                  dtypes=("float32",), **NOGRAD, atol=2e-6, rtol=2e-5),
    _backward_row("softmax_backward", lambda T, x: T.softmax(x, -1), _softmax_backward,
                  [(2, 3, 4), (2, 3, 4)]),
    _backward_row("softmax_backward__0d", lambda T, x: T.softmax(x, -1), lambda x, g: 0 * g,
                  [(), ()]),
    _layer_norm_row("layer_norm", [(2, 3, 4), (4,), (4,)]),
    _layer_norm_row("layer_norm__2d_no_affine", [(2, 3, 4)], k=2),
    _layer_norm_row("layer_norm__weight_only", [(5, 3), (3,)]),
    _layer_norm_row("layer_norm__2d_bias_only", [(2, 3, 4), (3, 4)], k=2, bias_only=True),
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
