"""torch.special's own functions: erfcx, ndtri, log_ndtr, i0e, i1, i1e, xlog1py, entr, zeta and
the Bessel functions of the first kind. They live under minitorch.special only, as in torch."""

from __future__ import annotations

import math

from minitorch._ops._common import cast, promote_float, scalar_like
from minitorch._ops.pointwise import _out, exp, log, sign, where
from minitorch._ops.pointwise_more import _arr, _to_float, log1p
from minitorch._ops.special import I1, _special
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function

# torch has these only under torch.special: minitorch.special imports them from here.
__all__: list[str] = []

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


class Erfcx(Function):
    """out = exp(a²) erfc(a);  grad_a = grad * (2 a out - 2/sqrt(pi))"""

    _node_name = "SpecialErfcxBackward0"

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "erfcx")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return grad * (2.0 * a * out - _TWO_OVER_SQRT_PI)


class Ndtri(Function):
    """out = Φ⁻¹(a), the standard normal quantile;  grad_a = grad * sqrt(2 pi) exp(out² / 2)"""

    _node_name = "SpecialNdtriBackward0"

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "ndtri")
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * exp(out * out * 0.5) * _SQRT_2PI


class LogNdtr(Function):
    """out = log Φ(a);  grad_a = grad * exp(-a²/2 - out) / sqrt(2 pi)"""

    _node_name = "SpecialLogNdtrBackward0"

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "log_ndtr")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return grad * exp(a * a * -0.5 - out) * (1.0 / _SQRT_2PI)


class I0e(Function):
    """out = I0(a) exp(-|a|);  grad_a = grad * (i1e(a) - sign(a) out)"""

    _node_name = "SpecialI0EBackward0"

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "i0e")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        return grad * (I1e.apply(a) - sign(a) * out)


class SpecialI1(I1):
    """out = I1(a), as I1 (torch.special.i1 names its node apart from i0's helper)"""

    _node_name = "SpecialI1Backward0"


class I1e(Function):
    """out = I1(a) exp(-|a|);  grad_a = grad * (i0e(a) - out (sign(a) + 1/a)), 1/2 at 0"""

    _node_name = "SpecialI1EBackward0"

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "i1e")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        zero = a == 0
        safe = where(zero, 1.0, a)
        return grad * where(zero, 0.5, I0e.apply(a) - out * (sign(a) + 1.0 / safe))


class Xlog1py(Function):
    """out = a log(1 + b), 0 where a = 0 (b not NaN);  grad_a = grad log1p(b) (0 where a = 0 and
    b <= -1),  grad_b = grad a / (1 + b)"""

    _node_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = ctx.xp
        x, y = a._data, b._data
        out = xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log1p(y))
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = where((a == 0) & (b <= -1), 0.0, grad * log1p(b))
        if ctx.needs_input_grad[1]:
            gb = grad * a / (b + 1.0)
        return ga, gb


class Entr(Function):
    """out = -a log(a) for a > 0, 0 at 0, -inf below;  grad_a = -grad (1 + log(a))"""

    _node_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        pos = x > 0
        out = xp.where(pos, -x * xp.log(xp.where(pos, x, 1)), 0)
        out = xp.where(x < 0, -math.inf, out)
        return _arr(xp, xp.where(xp.isnan(x), x, out).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * -(log(a) + 1.0)


class Zeta(Function):
    """out = ζ(a, b) = Σ_k (b + k)^-a, the Hurwitz zeta function;  grad_b = -grad a ζ(a + 1, b),
    no gradient for a (torch has none)"""

    _node_name = "SpecialZetaBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        x, y = a._data, b._data
        work = "float32" if x.dtype.itemsize < 4 else x.dtype
        fn = a._device.backend.special("zeta")
        out = fn(x.astype(work, copy=False), y.astype(work, copy=False))
        return _arr(ctx.xp, out).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, grad * -a * Zeta.apply(a + 1.0, b)


def _binary(cls, input, other, op: str, out):
    """A float binary op whose either argument may be a Python number (as torch's)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(other).__name__})"
        )
    a, b, dt = promote_float(input, other, op)
    # promote leaves a bool tensor beside a float one uncast; the kernels compute in their
    # operands' dtype (xlog1py(mask, p) is float, as xlogy's)
    a, b = (x if not isinstance(x, Tensor) or x.dtype is dt else cast(x, dt) for x in (a, b))
    if not isinstance(a, Tensor):
        a = cast(scalar_like(a, b), dt)
    elif not isinstance(b, Tensor):
        b = cast(scalar_like(b, a), dt)
    return _out(cls.apply(a, b), out)


def erfcx(input, *, out=None):
    """The scaled complementary error function exp(x²) erfc(x). Mirrors torch.special.erfcx."""
    return _out(Erfcx.apply(_to_float(input, "special_erfcx")), out)


def ndtri(input, *, out=None):
    """The inverse of the standard normal CDF. Mirrors torch.special.ndtri."""
    return _out(Ndtri.apply(_to_float(input, "special_ndtri")), out)


def log_ndtr(input, *, out=None):
    """log of the standard normal CDF, accurate far into the lower tail.
    Mirrors torch.special.log_ndtr."""
    return _out(LogNdtr.apply(_to_float(input, "special_log_ndtr")), out)


def i0e(input, *, out=None):
    """The exponentially scaled modified Bessel function I0(x) exp(-|x|).
    Mirrors torch.special.i0e."""
    return _out(I0e.apply(_to_float(input, "special_i0e")), out)


def i1(input, *, out=None):
    """The modified Bessel function of the first kind, order 1. Mirrors torch.special.i1."""
    return _out(SpecialI1.apply(_to_float(input, "special_i1")), out)


def i1e(input, *, out=None):
    """The exponentially scaled modified Bessel function I1(x) exp(-|x|).
    Mirrors torch.special.i1e."""
    return _out(I1e.apply(_to_float(input, "special_i1e")), out)


def xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input is 0 (unless other is NaN).
    Mirrors torch.special.xlog1py."""
    return _binary(Xlog1py, input, other, "special_xlog1py", out)


def entr(input, *, out=None):
    """The elementwise entropy -x log(x) (0 at 0, -inf below). Mirrors torch.special.entr."""
    return _out(Entr.apply(_to_float(input, "special_entr")), out)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function ζ(input, other). Mirrors torch.special.zeta
    (differentiable in other only, as torch).

    Differences from torch: backward raises as soon as input requires grad, even when only
    other's gradient is asked for (torch raises only when input's gradient is needed)."""
    return _binary(Zeta, input, other, "special_zeta", out)


def _no_grad_special(input, name: str, op: str, out):
    """A special function torch gives no derivative: a result outside the graph."""
    x = _to_float(input, op)
    return _out(_make(_special(x, name), x._device, False, None), out)


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind, order 0. Mirrors torch.special.bessel_j0
    (not differentiable, as torch)."""
    return _no_grad_special(input, "j0", "special_bessel_j0", out)


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind, order 1. Mirrors torch.special.bessel_j1
    (not differentiable, as torch)."""
    return _no_grad_special(input, "j1", "special_bessel_j1", out)
