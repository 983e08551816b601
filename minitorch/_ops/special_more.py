"""torch.special's own functions: erfcx, ndtri, log_ndtr, i0e, i1, i1e, xlog1py, entr, zeta,
the Bessel functions (first and second kind, modified) and the Airy function (the orthogonal
polynomials are in special_poly.py). They live under minitorch.special only, as in torch."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._ops._common import cast, promote_float, quiet, scalar_like
from minitorch._ops.pointwise import _out, exp, log, sign, where
from minitorch._ops.pointwise_more import _arr, _not_implemented, _to_float
from minitorch._ops.special import I1, _special, i0
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, computes_input_grad, name_node

# torch has these only under torch.special: minitorch.special imports them from here.
__all__: list[str] = []

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


class Erfcx(Function):
    """out = exp(a²) erfc(a);  grad_a = grad * (2 a out - 2/sqrt(pi))"""

    _node_name = "SpecialErfcxBackward0"
    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "erfcx")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        return grad * (2.0 * a * out - _TWO_OVER_SQRT_PI)


class Ndtri(Function):
    """out = Φ⁻¹(a), the standard normal quantile;  grad_a = grad * sqrt(2 pi) exp(out² / 2)"""

    _node_name = "SpecialNdtriBackward0"
    _saved_names = ("result",)  # grad_fn._saved_result (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "ndtri")
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad * exp(out * out * 0.5) * _SQRT_2PI


class LogNdtr(Function):
    """out = log Φ(a);  grad_a = grad * exp(-a²/2 - out) / sqrt(2 pi)"""

    _node_name = "SpecialLogNdtrBackward0"
    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "log_ndtr")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        return grad * exp(a * a * -0.5 - out) * (1.0 / _SQRT_2PI)


class I0e(Function):
    """out = I0(a) exp(-|a|);  grad_a = grad * (i1e(a) - sign(a) out)"""

    _node_name = "SpecialI0EBackward0"
    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "i0e")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        return grad * (I1e.apply(a) - sign(a) * out)


class SpecialI1(I1):
    """out = I1(a), as I1 (torch.special.i1 names its node apart from i0's helper, and saves its
    result too, which I1's gradient formula does not read)"""

    _node_name = "SpecialI1Backward0"
    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "i1")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, _ = ctx._stored_tensors
        tiny = (a.abs() > _dtype.finfo(a.dtype).eps).logical_not()
        safe = where(tiny, 1.0, a)
        return grad * where(tiny, 0.5, i0(a) - I1.apply(a) / safe)  # I1's, as written there


class I1e(Function):
    """out = I1(a) exp(-|a|);  grad_a = grad * (i0e(a) - out (sign(a) + 1/a)), 1/2 unless
    |a| > the dtype's eps (as torch: at NaN too; near 0 1/a would overflow for denormals)"""

    _node_name = "SpecialI1EBackward0"
    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _special(a, "i1e")
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        tiny = (a.abs() > _dtype.finfo(a.dtype).eps).logical_not()
        safe = where(tiny, 1.0, a)
        return grad * where(tiny, 0.5, I0e.apply(a) - out * (sign(a) + 1.0 / safe))


class Xlog1py(Function):
    """out = a log(1 + b), 0 where a = 0 (b not NaN);  grad_a = xlog1py(grad, b) (0 where
    a = 0 and b <= -1),  grad_b = grad a / (1 + b)"""

    _node_name = "SpecialXlog1PyBackward0"
    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = ctx.xp
        x, y = a._data, b._data
        with quiet(xp):  # log1p(-1) and 0 * -inf, replaced or the answer: quietly, as torch
            out = xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log1p(y))
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            # a zero upstream gradient stays 0 at b = -1 (not 0 * -inf = NaN), as torch's
            ga = where((a == 0) & (b <= -1), 0.0, Xlog1py.apply(grad, b))
        if ctx.needs_input_grad[1]:
            gb = grad * a / (b + 1.0)
        return ga, gb


class Entr(Function):
    """out = -a log(a) for a > 0, 0 at 0, -inf below;  grad_a = -grad (1 + log(a))"""

    _node_name = "SpecialEntrBackward0"
    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

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
        (a,) = ctx._stored_tensors
        return grad * -(log(a) + 1.0)


class Zeta(Function):
    """out = ζ(a, b) = Σ_k (b + k)^-a, the Hurwitz zeta function;  grad_b = -grad a ζ(a + 1, b),
    no gradient for a (torch has none)"""

    _node_name = "SpecialZetaBackward0"
    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's: None unless b's
    # gradient is computed, the one that reads them; none in zeta(tensor, number)'s node)
    _saved_shown = {"SpecialZetaBackward2": ()}

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*((a, b) if ctx.needs_input_grad[1] else (None, None)))
        x, y = a._data, b._data
        work = "float32" if x.dtype.itemsize < 4 else x.dtype
        fn = a._device.backend.special("zeta")
        out = _arr(ctx.xp, fn(x.astype(work, copy=False), y.astype(work, copy=False)))
        # torch's series at q = +inf ends in 0 * inf: NaN, but for s = 1 (checked first: inf)
        out = ctx.xp.where(y == math.inf, ctx.xp.where(x == 1, math.inf, math.nan), out)
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        if computes_input_grad(ctx, 0):
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        return None, grad * -a * Zeta.apply(a + 1.0, b)


# NOTE [ Number operands of special functions ]
# torch's Scalar overloads of xlog1py and zeta have nodes of their own, Backward1 (a number
# input) and Backward2 (a number other): each lists the tensor's edge alone and shows the number
# as given (2 stays an int) as its _saved_self or _saved_other, with no _raw_saved_ for it.
# minitorch computes them with the number wrapped into a 0-d tensor, saved under a name no node
# shows ("wrapped"), the number kept on the node as `given` (_binary sets it). zeta's Backward2
# saves nothing (the tensor's gradient is not implemented): Zeta's node, renamed.


class Xlog1pyNumberSelf(Xlog1py):
    """xlog1py(number, tensor): as Xlog1py (NOTE [ Number operands of special functions ])"""

    _node_name = "SpecialXlog1PyBackward1"
    _edges = (1,)
    _saved_names = ("wrapped", "other")
    _saved_attrs = {"self": "given"}
    _saved_shown = {"SpecialXlog1PyBackward1": ("self", "other")}


class Xlog1pyNumberOther(Xlog1py):
    """xlog1py(tensor, number): as Xlog1py (NOTE [ Number operands of special functions ])"""

    _node_name = "SpecialXlog1PyBackward2"
    _edges = (0,)
    _saved_names = ("self", "wrapped")
    _saved_attrs = {"other": "given"}
    _saved_shown = {"SpecialXlog1PyBackward2": ("self", "other")}


class ZetaNumberSelf(Zeta):
    """zeta(number, tensor): as Zeta (NOTE [ Number operands of special functions ])"""

    _node_name = "SpecialZetaBackward1"
    _edges = (1,)
    _saved_names = ("wrapped", "other")
    _saved_attrs = {"self": "given"}
    _saved_shown = {"SpecialZetaBackward1": ("self", "other")}


def _zeta_number_other(a: Tensor, b: Tensor) -> Tensor:
    """zeta(tensor, number): Zeta's, in torch's node SpecialZetaBackward2, which lists the
    tensor alone and saves nothing (its gradient is not implemented)."""
    return name_node(Zeta.apply(a, b), "SpecialZetaBackward2", (a,), shown=(0,))


def _binary(forms, input, other, op: str, out):
    """A float binary op whose either argument may be a Python number (as torch's); `forms`:
    the functions computing it from two tensors, for two tensors, for a number input and for
    a number other (torch's Scalar overloads), each given the number as a 0-d tensor."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        from minitorch._ops._parser_errors import BINARY_FORMS, overload_error

        # xlogy's three overloads (Tensor-Tensor, Number self, Number other) are theirs too
        raise overload_error(op, *BINARY_FORMS["xlogy"], (("input", input), ("other", other)))
    a, b, dt = promote_float(input, other, op)
    # promote leaves a bool tensor beside a float one uncast; the kernels compute in their
    # operands' dtype (xlog1py(mask, p) is float, as xlogy's)
    a, b = (x if not isinstance(x, Tensor) or x.dtype is dt else cast(x, dt) for x in (a, b))
    both, number_self, number_other = forms
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _out(both(a, b), out)
    if not isinstance(a, Tensor):
        number = input
        result = number_self(cast(scalar_like(a, b), dt), b)
    else:
        number = other
        result = number_other(a, cast(scalar_like(b, a), dt))
    if result._grad_fn is not None:  # (its grad_fn._saved_self or _saved_other)
        result._grad_fn.given = number
    return _out(result, out)


_XLOG1PY_FORMS = (Xlog1py.apply, Xlog1pyNumberSelf.apply, Xlog1pyNumberOther.apply)
_ZETA_FORMS = (Zeta.apply, ZetaNumberSelf.apply, _zeta_number_other)


def _no_half(input, op: str, kernel: str) -> Tensor:
    """input as a float tensor for a kernel torch builds for float32 and float64 only: float16
    and bfloat16 are refused with its NotImplementedError."""
    x = _to_float(input, op)
    if x._data.dtype.itemsize < 4:
        raise _not_implemented(kernel, x.dtype)
    return x


def erfcx(input, *, out=None):
    """The scaled complementary error function exp(x²) erfc(x). Mirrors torch.special.erfcx."""
    return _out(Erfcx.apply(_no_half(input, "special_erfcx", "erfcx_cpu")), out)


def ndtri(input, *, out=None):
    """The inverse of the standard normal CDF. Mirrors torch.special.ndtri."""
    return _out(Ndtri.apply(_no_half(input, "special_ndtri", "ndtri_cpu")), out)


def log_ndtr(input, *, out=None):
    """log of the standard normal CDF, accurate far into the lower tail.
    Mirrors torch.special.log_ndtr."""
    return _out(LogNdtr.apply(_no_half(input, "special_log_ndtr", "log_ndtr_cpu")), out)


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
    return _binary(_XLOG1PY_FORMS, input, other, "special_xlog1py", out)


def entr(input, *, out=None):
    """The elementwise entropy -x log(x) (0 at 0, -inf below). Mirrors torch.special.entr."""
    return _out(Entr.apply(_to_float(input, "special_entr")), out)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function ζ(input, other). Mirrors torch.special.zeta
    (differentiable in other only, as torch).

    Differences from torch: backward raises as soon as input requires grad, even when only
    other's gradient is asked for (torch raises only when input's gradient is needed)."""
    return _binary(_ZETA_FORMS, input, other, "special_zeta", out)


def _no_grad_special(input, name: str, op: str, out):
    """A special function torch gives no derivative: a result outside the graph."""
    x = _no_half(input, op, f"bessel_{name}_cpu")  # (j0, j1)
    return _out(_make(_special(x, name), x._device, False, None), out)


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind, order 0. Mirrors torch.special.bessel_j0
    (not differentiable, as torch)."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(bessel_j0, (input,), {"out": out})
    return _no_grad_special(input, "j0", "special_bessel_j0", out)


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind, order 1. Mirrors torch.special.bessel_j1
    (not differentiable, as torch)."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(bessel_j1, (input,), {"out": out})
    return _no_grad_special(input, "j1", "special_bessel_j1", out)


def _forward_only(input, op: str):
    """input as a float tensor for a forward-only special function; float16 and bfloat16 are
    refused, as torch's kernels for them have no half-precision instantiation."""
    x = _to_float(input, op)
    if x._data.dtype.itemsize < 4:
        raise _not_implemented(f"{op}_cpu", x.dtype)
    return x


def _float64_result(x: Tensor, values, out):
    """values (computed in float64 from x's array) as a tensor of x's dtype, outside the graph."""
    arr = values.astype(x._data.dtype, copy=False)
    return _out(_make(arr, x._device, False, None), out)


def modified_bessel_i0(input, *, out=None):
    """The modified Bessel function of the first kind, order 0. Mirrors
    torch.special.modified_bessel_i0 (not differentiable, as torch)."""
    x = _forward_only(input, "modified_bessel_i0")
    return _out(_make(_special(x, "i0"), x._device, False, None), out)


def modified_bessel_i1(input, *, out=None):
    """The modified Bessel function of the first kind, order 1. Mirrors
    torch.special.modified_bessel_i1 (not differentiable, as torch)."""
    x = _forward_only(input, "modified_bessel_i1")
    return _out(_make(_special(x, "i1"), x._device, False, None), out)


# --- Bessel functions of the second kind, modified ones of the second kind ---

# NOTE [ Bessel functions of the second kind ]
# Y0, Y1, K0 and K1 are computed in float64 by two methods, split at x = 2:
# - below, their power series (DLMF 10.8.1-2, 10.31.1): with t = x²/4 <= 1 the 25 terms taken
#   reach double precision and nothing cancels badly;
# - above, integrals the trapezoidal rule converges on exponentially fast (the integrands are
#   even and analytic in a strip, so the rule's error is exp(-2 pi (strip) / step)):
#   K_nu(x) e^x = int_0^inf exp(-2 x sinh²(t/2)) cosh(nu t) dt (DLMF 10.32.9; sinh² rather than
#   cosh t - 1, which cancels for large x), cut where the integrand is below e^-60 and taken in
#   96 steps; and Hankel's integral (DLMF 10.17 / Watson 7.2), with u = s²,
#   H_nu(x) = sqrt(2 / (pi x)) e^(i(x - nu pi/2 - pi/4)) / Gamma(nu + 1/2)
#             * int_0^inf 2 s^(2 nu) e^(-s²) (1 + i s² / (2 x))^(nu - 1/2) ds,
#   whose real part is J_nu and imaginary part Y_nu; its branch point lies sqrt(x) >= 1.4 off
#   the real axis, so steps of 0.2 out to s = 6.6 reach double precision.
# torch evaluates Cephes' rational approximations instead: values agree to a few ulp (relative
# accuracy is lost near the zeros of Y0 and Y1 by both, differently).

_EULER_GAMMA = 0.5772156649015329
_SERIES_TERMS = 25
_HANKEL_S = [0.2 * k for k in range(34)]


def _small_x_series(xp, x, order: int, kind: str):
    """The power series' partial sums for x <= 2, t = x²/4: for order 0 A0 = sum t^k/(k!)²
    (I0; with alternating signs J0) and the harmonic-weighted sum the second kind adds; for
    order 1 the same with t^k / (k! (k+1)!) (I1, J1 without x/2) and the digamma-weighted sum.
    Only the two sums the asked function needs are accumulated."""
    t = x * x / 4.0
    term = xp.ones_like(x)  # t^k / (k!)², or t^k / (k! (k+1)!) for order 1
    first = xp.zeros_like(x)  # I or J
    second = xp.zeros_like(x)  # the K or Y sum
    alternate = kind == "y"
    harmonic = 0.0
    for k in range(_SERIES_TERMS):
        if k:
            term = term * t / (k * (k + order))
            harmonic += 1.0 / k
        sign = -1.0 if k % 2 else 1.0
        first = first + (sign * term if alternate else term)
        if order == 0:
            # (-1)^(k+1) H_k t^k / (k!)² for Y0, H_k t^k / (k!)² for K0
            second = second - sign * harmonic * term if alternate else second + harmonic * term
        else:
            psi_k1 = -_EULER_GAMMA + harmonic  # psi(k + 1)
            psi_k2 = psi_k1 + 1.0 / (k + 1)  # psi(k + 2)
            weighted = (psi_k1 + psi_k2) * term
            second = second + (sign * weighted if alternate else weighted)
    return first, second


def _k_small(xp, x, order: int):
    i, k = _small_x_series(xp, x, order, "k")
    log_half = xp.log(x / 2.0)
    if order == 0:
        return -(log_half + _EULER_GAMMA) * i + k
    i1 = x / 2.0 * i
    return 1.0 / x + log_half * i1 - x / 4.0 * k


def _y_small(xp, x, order: int):
    j, y = _small_x_series(xp, x, order, "y")
    log_half = xp.log(x / 2.0)
    if order == 0:
        return 2.0 / math.pi * ((log_half + _EULER_GAMMA) * j + y)
    j1 = x / 2.0 * j
    return -2.0 / (math.pi * x) + 2.0 / math.pi * log_half * j1 - x / (2.0 * math.pi) * y


def _k_scaled_large(xp, x, order: float):
    """K_order(x) e^x for x > 2 by the trapezoidal rule (NOTE above)."""
    steps = 96
    h = 2.0 * xp.arcsinh(xp.sqrt(30.0 / x)) / steps  # 2 x sinh²(t/2) = 60 at the cut
    total = 0.5 * xp.ones_like(x)  # the t = 0 end, halved
    for k in range(1, steps + 1):
        t = h * k
        sh = xp.sinh(t / 2.0)
        value = xp.exp(-2.0 * x * sh * sh)
        total = total + (value * xp.cosh(order * t) if order else value)  # cosh(0 t) = 1
    return total * h


def _hankel_y_large(xp, x, order: int):
    """Y_order(x) for x > 2 from Hankel's integral (NOTE above), order 0 or 1. The factor
    (1 + i y)^(order - 1/2), y = s² / (2x), is taken in polar form without complex powers:
    with r = |1 + i y| and c, d = cos, sin of half its angle (c = sqrt((1 + 1/r) / 2), nothing
    cancels), it is r^(-1/2) (c - i d) for order 0 and r^(1/2) (c + i d) for order 1."""
    w = 0.5 / x
    re = xp.zeros_like(x)
    im = xp.zeros_like(x)
    for k, s in enumerate(_HANKEL_S):
        s2 = s * s
        weight = 2.0 * s2**order * math.exp(-s2) * (0.5 if k == 0 else 1.0)
        if weight == 0.0:
            continue
        y = s2 * w
        r = xp.hypot(1.0, y)
        c = xp.sqrt((1.0 + 1.0 / r) / 2.0)
        d = y / (2.0 * r * c)  # sin(angle / 2) = sin(angle) / (2 cos(angle / 2))
        scale = weight * (xp.sqrt(r) if order else 1.0 / xp.sqrt(r))
        re = re + scale * c
        im = im + (scale * d if order else -(scale * d))
    norm = 0.2 / math.gamma(order + 0.5)
    phase = x - (2 * order + 1) * math.pi / 4.0
    return xp.sqrt(2.0 / (math.pi * x)) * (xp.cos(phase) * im + xp.sin(phase) * re) * norm


# the backend's name of each (kind, order): SciPy's/cupyx's function where one is installed
_SECOND_KIND_NAMES = {
    ("y", 0): "y0", ("y", 1): "y1", ("k", 0): "k0", ("k", 1): "k1",
    ("k_scaled", 0): "k0e", ("k_scaled", 1): "k1e",
}  # fmt: skip


def _second_kind(input, op: str, order: int, kind: str, out):
    x = _forward_only(input, op)
    backend = x._device.backend
    xp = backend.xp
    a = x._data.astype("float64")
    fast = backend.special(_SECOND_KIND_NAMES[kind, order])
    if fast is not None:  # SciPy's (or cupyx's): the same values at 0, < 0, inf and NaN
        return _float64_result(x, fast(a), out)
    # each method on the elements it serves only (x <= 2: the series; 2 < x < inf: the integral)
    small = (a <= 2.0) & (a > 0)
    large = (a > 2.0) & (a < math.inf)
    lo, hi = a[small], a[large]
    res = xp.full_like(a, math.nan)  # negative and NaN x
    if kind == "y":
        res[small] = _y_small(xp, lo, order)
        res[large] = _hankel_y_large(xp, hi, order)
        res = xp.where(a == 0, -math.inf, res)
        # torch's NaN at inf (the limit is 0): already there
    else:
        scaled = kind == "k_scaled"
        near = _k_small(xp, lo, order)
        far = _k_scaled_large(xp, hi, order)
        res[small] = near * xp.exp(lo) if scaled else near
        res[large] = far if scaled else far * xp.exp(-hi)
        res = xp.where(a == 0, math.inf, res)
        res = xp.where(a == math.inf, 0.0, res)
    return _float64_result(x, res, out)


def bessel_y0(input, *, out=None):
    """The Bessel function of the second kind, order 0. Mirrors torch.special.bessel_y0 (not
    differentiable, as torch); see NOTE [ Bessel functions of the second kind ]."""
    return _second_kind(input, "bessel_y0", 0, "y", out)


def bessel_y1(input, *, out=None):
    """The Bessel function of the second kind, order 1. Mirrors torch.special.bessel_y1 (not
    differentiable, as torch); see NOTE [ Bessel functions of the second kind ]."""
    return _second_kind(input, "bessel_y1", 1, "y", out)


def modified_bessel_k0(input, *, out=None):
    """The modified Bessel function of the second kind, order 0. Mirrors
    torch.special.modified_bessel_k0 (not differentiable, as torch)."""
    return _second_kind(input, "modified_bessel_k0", 0, "k", out)


def modified_bessel_k1(input, *, out=None):
    """The modified Bessel function of the second kind, order 1. Mirrors
    torch.special.modified_bessel_k1 (not differentiable, as torch)."""
    return _second_kind(input, "modified_bessel_k1", 1, "k", out)


def scaled_modified_bessel_k0(x, *, out=None):
    """K0(x) e^x, finite where K0 underflows. Mirrors torch.special.scaled_modified_bessel_k0
    (not differentiable, as torch; its argument is named x)."""
    return _second_kind(x, "scaled_modified_bessel_k0", 0, "k_scaled", out)


def scaled_modified_bessel_k1(x, *, out=None):
    """K1(x) e^x, finite where K1 underflows. Mirrors torch.special.scaled_modified_bessel_k1
    (not differentiable, as torch; its argument is named x)."""
    return _second_kind(x, "scaled_modified_bessel_k1", 1, "k_scaled", out)


# --- the Airy function Ai ---

# NOTE [ The Airy function ]
# SciPy's airy where it is installed. Without it Ai is computed in float64 by three methods:
# - on [-10, 2], Taylor series about the nearest of the nodes -10, -9.5, ..., 2 (|x - node| <=
#   1/4): Ai'' = x Ai gives the coefficients' recurrence (n+2)(n+1) c[n+2] = x0 c[n] + c[n-1],
#   and the nodes' Ai and Ai' come from Taylor steps of 1/2 taken from Ai(0), Ai'(0) once, at
#   import (the steps to -10 keep their error near 1e-15: the solutions oscillate there, and
#   the four steps to 2 let Bi grow by 40x only);
# - above 2, Ai(x) = sqrt(x/3) K_{1/3}(zeta) / pi with zeta = 2 x^(3/2) / 3 (DLMF 9.6.1), K by
#   the trapezoidal integral of the Bessel functions above (nothing cancels as Ai decays);
# - below -10, the asymptotic expansion DLMF 9.7.9 (zeta >= 21: 20 terms are past 1e-17).
# torch's values (Cephes' rational approximations) differ from these by ~1e-14 relative for
# x > -2, and by up to ~3e-6 absolute on the negative axis (torch's, not ours: mpmath agrees
# with SciPy and these). Ai(inf), Ai(-inf) and NaN give NaN, x > 103.892 gives 0, as torch.

_AIRY_LOW, _AIRY_HIGH, _AIRY_STEP = -10.0, 2.0, 0.5
_AIRY_TERMS = 30
_AIRY_CUTOFF = 103.892  # torch's 0 beyond (Ai underflows there)


def _airy_taylor(x0: float, value: float, slope: float, d: float):
    """(Ai, Ai') at x0 + d from their values at x0, by the Taylor series (Python floats)."""
    prev, cur, nxt = 0.0, value, slope  # c[n-1], c[n], c[n+1]
    total, deriv, power = value, 0.0, 1.0  # power = d^n
    for n in range(60):
        deriv += (n + 1) * nxt * power
        power *= d
        total += nxt * power
        prev, cur, nxt = cur, nxt, (x0 * cur + prev) / ((n + 2) * (n + 1))
    return total, deriv


def _airy_nodes():
    ai0 = 1.0 / (3.0 ** (2.0 / 3.0) * math.gamma(2.0 / 3.0))
    aip0 = -1.0 / (3.0 ** (1.0 / 3.0) * math.gamma(1.0 / 3.0))
    count = round((_AIRY_HIGH - _AIRY_LOW) / _AIRY_STEP) + 1
    zero = round(-_AIRY_LOW / _AIRY_STEP)
    values, slopes = [0.0] * count, [0.0] * count
    values[zero], slopes[zero] = ai0, aip0
    for direction in (-1, 1):
        i = zero
        while 0 <= i + direction < count:
            x0 = _AIRY_LOW + i * _AIRY_STEP
            values[i + direction], slopes[i + direction] = _airy_taylor(
                x0, values[i], slopes[i], direction * _AIRY_STEP
            )
            i += direction
    return values, slopes


_AIRY_VALUES, _AIRY_SLOPES = _airy_nodes()


def _airy_u(count: int):
    """u_k = (2k+1)(2k+3)...(6k-1) / (216^k k!), the asymptotic expansion's coefficients."""
    u = [1.0]
    for k in range(1, count):
        u.append(u[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216.0 * k))
    return u


_AIRY_U = _airy_u(20)


def _airy_near(xp, x):
    """Ai on [-10, 2]: the Taylor series about the nearest node."""
    index = xp.round((x - _AIRY_LOW) / _AIRY_STEP)
    d = x - (_AIRY_LOW + index * _AIRY_STEP)
    index = index.astype("int64")
    x0 = _AIRY_LOW + index * _AIRY_STEP
    prev = xp.zeros_like(x)
    cur = xp.asarray(_AIRY_VALUES, dtype="float64")[index]
    nxt = xp.asarray(_AIRY_SLOPES, dtype="float64")[index]
    total, power = cur, xp.ones_like(x)
    for n in range(_AIRY_TERMS):
        power = power * d
        total = total + nxt * power
        prev, cur, nxt = cur, nxt, (x0 * cur + prev) / ((n + 2) * (n + 1))
    return total


def _airy_positive(xp, x):
    """Ai for x > 2 from K_{1/3}."""
    zeta = 2.0 / 3.0 * x * xp.sqrt(x)
    return xp.sqrt(x / 3.0) / math.pi * _k_scaled_large(xp, zeta, 1.0 / 3.0) * xp.exp(-zeta)


def _airy_negative(xp, x):
    """Ai for x < -10 by the asymptotic expansion."""
    z = -x
    zeta = 2.0 / 3.0 * z * xp.sqrt(z)
    inv = 1.0 / zeta
    even = xp.zeros_like(z)  # sum (-1)^k u_2k zeta^-2k, by Horner in zeta^-2
    odd = xp.zeros_like(z)  # sum (-1)^k u_2k+1 zeta^-2k-1
    inv2 = inv * inv
    for k in range(len(_AIRY_U) // 2 - 1, -1, -1):
        sign = -1.0 if k % 2 else 1.0
        even = even * inv2 + sign * _AIRY_U[2 * k]
        odd = odd * inv2 + sign * _AIRY_U[2 * k + 1]
    odd = odd * inv
    phase = zeta - math.pi / 4.0
    front = 1.0 / (math.sqrt(math.pi) * xp.sqrt(xp.sqrt(z)))
    return front * (xp.cos(phase) * even + xp.sin(phase) * odd)


def airy_ai(x, *, out=None):
    """The Airy function Ai. Mirrors torch.special.airy_ai (not differentiable, as torch; its
    argument is named x, as torch's binding); see NOTE [ The Airy function ]."""
    t = _forward_only(x, "airy_ai")
    backend = t._device.backend
    xp = backend.xp
    a = t._data.astype("float64")
    fast = backend.special("airy_ai")
    if fast is not None:
        res = fast(a)
    else:
        near = (a >= _AIRY_LOW) & (a <= _AIRY_HIGH)
        positive = (a > _AIRY_HIGH) & (a <= _AIRY_CUTOFF)
        negative = (a < _AIRY_LOW) & (a > -math.inf)
        res = xp.full_like(a, math.nan)
        res[near] = _airy_near(xp, a[near])
        res[positive] = _airy_positive(xp, a[positive])
        res[negative] = _airy_negative(xp, a[negative])
    res = xp.where(a > _AIRY_CUTOFF, 0.0, res)
    res = xp.where(xp.isinf(a), math.nan, res)
    return _float64_result(t, res, out)
