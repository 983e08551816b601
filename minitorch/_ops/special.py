"""Special functions: erf, erfc, erfinv, lgamma, digamma, polygamma, logit, xlogy, i0, sinc,
igamma, igammac, mvlgamma."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._ops._common import (
    cast,
    check_float,
    check_int,
    index,
    on_host,
    opmath_dtype,
    promote,
    promote_float,
    quiet,
    scalar_like,
)
from minitorch._ops.pointwise import _out, abs, callers_out, exp, log, raise_in_order, where
from minitorch._ops.pointwise_more import (
    _arr,
    _check_tensor,
    _inplace,
    _not_implemented,
    _to_float,
    _unary,
    cos,
)
from minitorch._tensor import Tensor
from minitorch.autograd.function import (
    Function,
    computes_input_grad,
    name_node,
)

# fmt: off
__all__ = [
    "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "logit", "xlogy",
    "erf_", "erfc_", "erfinv_", "lgamma_", "digamma_", "polygamma_", "logit_", "xlogy_",
    "i0", "sinc", "igamma", "igammac", "mvlgamma", "i0_", "sinc_",
]
# igamma_, igammac_ and mvlgamma_ are Tensor methods only, as in torch.
# fmt: on

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_SINC_C1 = -(math.pi**2) / 3.0
_SINC_C3 = math.pi**4 / 30.0


def _special(a: Tensor, name: str, *args):
    """The backend's special function `name` on a's array, in a's dtype (computed in at least
    float32). See NOTE [ Special functions ] in minitorch/_backend/numpy_special.py."""
    x = a._data
    fn = a._device.backend.special(name)
    work = x if x.dtype.itemsize >= 4 else x.astype("float32")
    return _arr(a._device.backend.xp, fn(*args, work)).astype(x.dtype, copy=False)


class Erf(Function):
    """out = erf(a);  grad_a = grad * 2/sqrt(pi) * exp(-a²)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _special(a, "erf")

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * exp(-(a * a)) * _TWO_OVER_SQRT_PI


class Erfc(Function):
    """out = 1 - erf(a);  grad_a = -grad * 2/sqrt(pi) * exp(-a²)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _special(a, "erfc")

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * exp(-(a * a)) * -_TWO_OVER_SQRT_PI


class Erfinv(Function):
    """out = erf⁻¹(a);  grad_a = grad * sqrt(pi)/2 * exp(erf⁻¹(a)²)"""

    # Saves its input and recomputes erf⁻¹ in backward, as torch does: so an in-place change of
    # the result (y.mul_(2)) leaves backward valid, and one of the input is refused.
    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        # an odd function: erfinv(-0.) is -0. as torch's (SciPy's gives +0.). Arguments outside
        # [-1, 1] go in as NaN (the result there): SciPy reports each out-of-domain argument
        # through its error machinery, ~100x slower than the whole array otherwise
        xp, x = ctx.xp, a._data
        fn = a._device.backend.special("erfinv")
        work = x if x.dtype.itemsize >= 4 else x.astype("float32")
        work = xp.where(xp.abs(work) <= 1, work, math.nan)
        return xp.copysign(_arr(xp, fn(work)).astype(x.dtype, copy=False), x)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        out = erfinv(a)
        return grad * exp(out * out) * _SQRT_PI_OVER_TWO


class Lgamma(Function):
    """out = log|Γ(a)|;  grad_a = grad * digamma(a)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp, x = ctx.xp, a._data
        out = _special(a, "lgamma")
        if x.dtype.itemsize == 8:
            # SciPy's gammaln overflows to inf below about 1e-309 (the float64 subnormals),
            # where log|Γ(x)| = -log|x| - γx is -log|x| to the last bit, as torch gives
            ax = xp.abs(x)
            tiny = (ax < 1e-300) & (ax > 0)
            out = xp.where(tiny, -xp.log(xp.where(tiny, ax, 1.0)), out)
        return xp.where(x == -math.inf, math.inf, out).astype(out.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * digamma(a)


_PSI_10 = 2.25175258906672110764  # ψ(10)
_PSI_SERIES = (1 / 12, -691 / 32760, 1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12)  # B_2k / 2k


def _digamma(xp, x):
    """ψ(x) by torch's series, whose values are up to ~20 ulps off the function's (SciPy's are
    to an ulp or two), in x's dtype (half in float32, rounded once): x < 0 reflected, ψ(x) =
    ψ(1 - x) - pi / tan(pi r), r x's fractional part, that term in float64; then ψ(y) =
    ψ(y + 1) - 1 / y up to y >= 10 (ψ(10) itself exactly); then log y - 1 / 2y minus the
    asymptotic series in 1 / y² (none from 1e17 on), its log in float64 and rounded (as the C
    library's logf but for rare last-ulp cases, where NumPy's float32 log is often an ulp or
    two off). ±inf at ±0, NaN at the negative integers, as torch's."""
    w = x if x.dtype.itemsize >= 4 else x.astype("float32")
    f = w.dtype.type
    neg = w < 0
    y = xp.where(neg, 1 - w, w)
    out = xp.zeros_like(y)
    # On the host the steps and the reflection run on only the elements that take them (the
    # same operations, so the same values; index arrays gather and scatter faster than masks);
    # a device does every element (one launch each).
    host = on_host(xp) and w.ndim > 0
    low = xp.nonzero(y < 10) if host else None
    part = host and low[0].size < y.size
    y_low, out_low = (y[low], out[low]) if part else (y, out)
    if host:
        y_low, out_low = _steps_at_once(xp, y_low, out_low)
    else:
        for _ in range(10):
            below = y_low < 10
            out_low -= xp.where(below, 1 / y_low, f(0))
            y_low = xp.where(below, y_low + 1, y_low)
    if part:
        y[low], out[low] = y_low, out_low
    else:
        y, out = y_low, out_low
    at = xp.nonzero(neg) if host else None
    w_neg = w[at] if host else w
    w_int = xp.trunc(w_neg)
    r = (w_neg - w_int).astype("float64")
    reflected = (math.pi / xp.tan(math.pi * r)).astype(w.dtype)
    z = 1 / (y * y)
    p = xp.full_like(z, f(_PSI_SERIES[0]))
    for c in _PSI_SERIES[1:]:  # in place: the same roundings, fewer allocations
        p *= z
        p += f(c)
    p *= z
    tail = xp.where(y < 1e17, p, f(0))
    series = out + xp.log(y.astype("float64")).astype(y.dtype, copy=False)
    series -= f(0.5) / y
    series -= tail
    out = xp.where(y == 10, out + f(_PSI_10), series)
    if host:
        out[at] = xp.where(w_neg == w_int, f(math.nan), out[at] - reflected)
        out = xp.where(w == 0, xp.copysign(f(math.inf), -w), out)
    else:
        out = xp.where(neg, out - reflected, out)
        out = xp.where(w == 0, xp.copysign(f(math.inf), -w), out)
        out = xp.where(neg & (w == w_int), f(math.nan), out)
    return out.astype(x.dtype, copy=False)


def _steps_at_once(xp, y, out):
    """_digamma's ten steps (while y < 10: out -= 1 / y, then y += 1) on host arrays, as a few
    array operations over all ten: y's successive values are one accumulated sum down the rows
    of [y, 1, ..., 1], each step rounded in turn as y + 1 was (y >= 0 here, so they rise: a
    value that reached 10 stays past it, and `below` marks each column's steps), and out's the
    accumulated difference down [out, terms], each subtraction in turn (a term 0 where the loop
    subtracted 0). y ends at its first value from 10 on (the smallest; NaN stays NaN). The
    loop's values, bit for bit, in 12 operations where it took 40."""
    n, shape = y.size, y.shape
    if not n:
        return y, out
    inf = y.dtype.type(math.inf)
    ys = xp.empty((11, n), dtype=y.dtype)
    ys[0] = y.reshape(-1)
    ys[1:] = 1
    ys = xp.add.accumulate(ys, axis=0)  # row k: y after k steps, were each one taken
    below = ys[:10] < 10
    terms = xp.empty((11, n), dtype=out.dtype)
    terms[0] = out.reshape(-1)
    terms[1:] = xp.where(below, 1 / ys[:10], y.dtype.type(0))
    y = xp.minimum.reduce(xp.where(ys < 10, inf, ys), axis=0)
    out = xp.subtract.accumulate(terms, axis=0)[10]
    return y.reshape(shape), out.reshape(shape)


# NOTE [ Digamma and trigamma: torch's series, or the function's value ]
# torch computes ψ and ψ' by short series (_digamma, _trigamma), in the input's dtype. Where
# those are accurate minitorch gives their values; where they are clearly not, the function's:
# - ψ in float64 on (-1.5, 2.5): torch's sum of -1/y terms cancels towards the zero at
#   1.4616 (up to 4e5 ulps off there, 10-150 elsewhere in (0, 2.5)), and its reflection below
#   0 carries ψ(1 - x) from there (up to 1e3 ulps off on (-1.5, 0); SciPy's: 1e2, from its
#   own reflection); SciPy's is within 2 ulps on (0, 2.5). From 2.5 up torch's is within 4
#   ulps of the function, and below -1.5 it is as close as SciPy's.
# - ψ' in float64: torch's series stops at its 1/42 term at y >= 6.5, ~1e-9 relative off
#   (median 1e4 ulps); the backend's kernel (NOTE [ Trigamma ]) is within 2-4 ulps, and as
#   fast. Its torch edges stay: huge but finite at the negative integers, NaN at -inf.
# - ψ' in float32 and half below 0: torch's float32 sin(pi x) of a rounded pi x is 1e3 ulps
#   off by x = -3 and 1e5 by -1000; the reflection here takes sin of pi times x's distance to
#   the nearest integer instead (torch's rounded product at the integers themselves, for its
#   huge finite values there). Elsewhere float32 and half ψ' and ψ are torch's.
# Cost. A device computes both ψ kernels on every element and picks (_digamma64_both); the host
# gives each kernel only the elements that take it (_digamma64_host), and within the series the
# ψ(y + 1) steps and the reflection only the elements below 10 and below 0: the same values to
# the bit (a test compares the two routes on a seeded sample). ms per 1M values, both kernels
# everywhere -> split, best of 9 on a shared 2-core machine (±15%), SciPy's psi alone in ():
#   float64 uniform(-50, 50) 151 -> 99 (43), uniform(2.5, 100) 100 -> 42 (8), standard normal
#   ~720 -> ~650 (~620: SciPy's own series about ψ's zeros, slow, serves most of those values);
#   float32 uniform(-50, 50) 64 -> 34, uniform(2.5, 100) 50 -> 19, standard normal 57 -> 53.
#   1,000 values: float64 0.16 -> 0.13 and 0.12 -> 0.09 ms, float32 0.10 -> 0.08 ms.
# Float64 ψ' (polygamma(1)) skips the sines of its torch edges on the host when no element is
# a negative integer: 1M positive values 58 -> 38 ms (the kernel alone ~35, NOTE [ Trigamma ]:
# ~40), uniform(-50, 50) 90 -> 68 ms; float32 ψ' (torch's series) ~38-47 ms.


def _digamma_near(xp, x):
    """Where float64 ψ takes the function's value rather than torch's series (NOTE [ Digamma
    and trigamma: torch's series, or the function's value ]; torch's edges: ±inf at ±0, NaN at
    the negative integers)."""
    return (x > -1.5) & (x < 2.5) & ((x > 0) | (x != xp.trunc(x)))


def _digamma64_both(xp, x, psi):
    """Float64 ψ on a device: both kernels on every element, one picked per element (the
    fewest launches, no host read; NOTE [ Fewer kernel launches on a device ])."""
    return xp.where(_digamma_near(xp, x), _arr(xp, psi(x)), _digamma(xp, x))


def _digamma64_host(xp, x, psi):
    """Float64 ψ on the host: each kernel on only the elements that take it, the same values
    as _digamma64_both's."""
    if x.ndim == 0:
        return _digamma64_both(xp, x, psi)
    near = _digamma_near(xp, x)
    if near.all():
        return _arr(xp, psi(x))
    if not near.any():
        return _digamma(xp, x)
    out = xp.empty_like(x)
    at = xp.nonzero(near)  # index arrays: faster than the mask, used twice
    out[at] = psi(x[at])
    at = xp.nonzero(~near)
    out[at] = _digamma(xp, x[at])
    return out


def _digamma_forward(a):
    x = a._data
    xp = a._device.backend.xp
    if x.dtype != "float64":
        return _digamma(xp, x)
    psi = a._device.backend.special("digamma")
    return (_digamma64_host if on_host(xp) else _digamma64_both)(xp, x, psi)


class Digamma(Function):
    """out = ψ(a) = d/da log Γ(a);  grad_a = grad * polygamma(1, a)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, _digamma_forward(a))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * polygamma(1, a)


def _polygamma_edges(xp, x, n: int, out):
    """out with torch's values where its kernels differ from the limits. torch's trigamma
    reflects x < 1/2 through pi² / sin²(pi x), computed in x's dtype: at a negative integer
    sin(pi x) is a rounding error, not 0, so the result is huge but finite (6.58e32 at -1 in
    float64), and at -inf it is NaN (float64 here; float32 and half: _trigamma). For n >= 2
    torch goes through zeta(n + 1, x), which is NaN at +inf (see Zeta in special_more.py)."""
    if n == 1:
        pi = x.dtype.type(math.pi)
        pole = (x < 0) & (x == xp.floor(x))
        # the host skips the sines (a third of the op's time) when there is no pole
        if not on_host(xp) or pole.any():
            s = xp.sin(pi * x)
            out = xp.where(pole, pi * pi / (s * s), out)
        return xp.where(x == -math.inf, math.nan, out).astype(x.dtype, copy=False)
    return xp.where(x == math.inf, math.nan, out).astype(x.dtype, copy=False)


def _trigamma(xp, x):
    """ψ⁽¹⁾(x) by torch's series (float32 and half; float64: NOTE [ Digamma and trigamma:
    torch's series, or the function's value ]): x < 1/2 reflected through pi² / sin²(pi x),
    six steps of ψ⁽¹⁾(y) = 1 / y² + ψ⁽¹⁾(y + 1), then the asymptotic series in 1 / y² to its
    1/42 term, all in x's dtype (half in float32, rounded once). So at a negative integer
    sin(pi x) is a rounding error, not 0, and the result is huge but finite, and at -inf it
    is NaN, as torch's."""
    w = x if x.dtype.itemsize >= 4 else x.astype("float32")
    f = w.dtype.type
    pi = f(math.pi)
    low = w < 0.5
    # sin in float64, rounded: the C library's sinf, where NumPy's float32 sin is an ulp off;
    # below 0 of pi times the distance to the nearest integer (exact), but at the integers
    w64 = w.astype("float64")
    near = xp.round(w64)
    far = (w < 0) & (w64 != near)
    s = xp.sin(xp.where(far, math.pi * (w64 - near), (pi * w).astype("float64")))
    s = s.astype(w.dtype, copy=False)
    out = xp.where(low, -(pi * pi) / (s * s), f(0))
    y = xp.where(low, 1 - w, w)
    if y.size and y.ndim and on_host(xp):
        # the six steps at once, as _steps_at_once's: y's values one accumulated sum, out's
        # one accumulated sum of its terms, each addition rounded in turn as in the loop
        n, shape = y.size, y.shape
        ys = xp.empty((7, n), dtype=y.dtype)
        ys[0] = y.reshape(-1)
        ys[1:] = 1
        ys = xp.add.accumulate(ys, axis=0)
        terms = xp.empty((7, n), dtype=out.dtype)
        terms[0] = out.reshape(-1)
        terms[1:] = 1 / (ys[:6] * ys[:6])
        out = xp.add.accumulate(terms, axis=0)[6].reshape(shape)
        y = ys[6].reshape(shape)
    else:
        for _ in range(6):
            out += 1 / (y * y)
            y = y + 1
    ixx = 1 / (y * y)
    out += (1 + 1 / (2 * y) + ixx * (f(1 / 6) - ixx * (f(1 / 30) - ixx * f(1 / 42)))) / y
    return xp.where(low, -out, out).astype(x.dtype, copy=False)


class Polygamma(Function):
    """out = ψ⁽ⁿ⁾(a);  grad_a = grad * polygamma(n + 1, a)"""

    _saved_names = ("self",)  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"n": "n"}

    @staticmethod
    def forward(ctx, a, *, n):
        ctx.save_for_backward(a)
        ctx.n = n
        if n == 0:
            return _arr(ctx.xp, _digamma_forward(a))
        if n == 1 and a._data.dtype != "float64":
            return _arr(ctx.xp, _trigamma(ctx.xp, a._data))
        return _polygamma_edges(ctx.xp, a._data, n, _special(a, "polygamma", n))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * polygamma(ctx.n + 1, a)


erf = _unary(Erf, "erf", "The error function")
erfc = _unary(Erfc, "erfc", "The complementary error function, 1 - erf(input)")
erfinv = _unary(Erfinv, "erfinv", "The inverse error function")
lgamma = _unary(Lgamma, "lgamma", "log |Γ(input)|")
digamma = _unary(Digamma, "digamma", "The digamma function ψ, the derivative of lgamma")


def polygamma(n, input, *, out=None):
    """The n-th derivative of the digamma function. Mirrors torch.polygamma."""
    n = n if n.__class__ is int else index(n, "polygamma", "n", 1)  # not 1.5: torch refuses
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _out(Polygamma.apply(_to_float(input, "polygamma"), n=n), out)


# --- logit ---


class Logit(Function):
    """out = log(z / (1 - z)), z = a clamped to [eps, 1 - eps];  grad_a = grad / (a (1 - a))
    inside the clamp, 0 outside it (NaN outside [0, 1] without eps)"""

    _saved_names = ("self",)  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"eps": "eps"}

    @staticmethod
    def forward(ctx, a, *, eps):
        ctx.save_for_backward(a)
        ctx.eps = eps
        x = a._data
        if eps is not None:
            # The bounds as torch's kernel holds them: eps in the tensor's dtype and 1 - eps
            # computed there (so a half tensor stays half: its quotient and log round step by
            # step, as without eps). torch tests the lower bound first: with eps > 1/2 (bounds
            # crossed) x < eps maps to eps, where a clip would give 1 - eps.
            lo = x.dtype.type(_dtype.via_float32(eps, x.dtype))
            hi = x.dtype.type(1) - lo
            x = ctx.xp.where(x < lo, lo, ctx.xp.where(x > hi, hi, x))
        return _arr(ctx.xp, ctx.xp.log(x / (1 - x)).astype(a._data.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        eps = ctx.eps
        # a + 0 turns -0 into +0: torch's kernel gives grad * inf at both zeros (a -0 in the
        # product would flip it to -inf)
        g = grad / ((a + 0.0) * (1 - a))
        if eps is None:
            return where((a < 0) | (a > 1), math.nan, g)
        return where((a < eps) | (a > 1 - eps), 0.0, g)


def logit(input, eps=None, *, out=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given. Mirrors torch.logit."""
    if eps is not None and eps.__class__ is not float:
        eps = check_float("logit", eps, "eps", 2)  # NOTE [ Number-like arguments ]
    return _out(Logit.apply(_to_float(input, "logit"), eps=eps), out)


# --- xlogy ---


class Xlogy(Function):
    """out = a log(b), 0 where a = 0 (b not NaN);  grad_a = xlogy(grad, b) (0 where a = 0 and
    b <= 0),  grad_b = grad a / b"""

    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp = ctx.xp
        x, y = a._data, b._data
        with quiet(xp):  # log(0) and 0 * -inf, replaced or the answer: quietly, as torch
            out = xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log(y))
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            # xlogy(grad, b), not grad * log(b): a zero upstream gradient (a term masked out
            # by a later product) stays 0 at b = 0 instead of 0 * -inf = NaN, as torch's
            ga = where((a == 0) & (b <= 0), 0.0, Xlogy.apply(grad, b))
        if ctx.needs_input_grad[1]:
            gb = grad * a / b
        return ga, gb


class XlogyScalarSelf(Xlogy):
    """xlogy(number, tensor): as Xlogy"""

    _node_name = "XlogyBackward1"
    _saved_attrs = {"self": "given"}  # grad_fn._saved_self: the number, as given (xlogy keeps it)
    _edges = (1,)  # next_functions lists the tensor's edge alone, as torch's


class XlogyScalarOther(Xlogy):
    """xlogy(tensor, number): as Xlogy"""

    _node_name = "XlogyBackward2"
    _saved_attrs = {"other": "given"}  # grad_fn._saved_other: the number, as given
    _edges = (0,)


def xlogy(input, other, *, out=None):
    """input * log(other), 0 where input is 0 (unless other is NaN). Mirrors torch.xlogy."""
    a, b, dt = promote_float(input, other, "xlogy")
    # promote leaves a bool tensor beside a float one uncast (NumPy's arithmetic would promote
    # it), but the kernel computes in its operands' dtype: xlogy(mask, p) is float, not bool
    if isinstance(a, Tensor) and a.dtype is not dt:
        a = cast(a, dt)
    if isinstance(b, Tensor) and b.dtype is not dt:
        b = cast(b, dt)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _out(Xlogy.apply(a, b), out)
    if not isinstance(a, Tensor):
        number = input
        result = XlogyScalarSelf.apply(cast(scalar_like(a, b), dt), b)
    else:
        number = other
        result = XlogyScalarOther.apply(a, cast(scalar_like(b, a), dt))
    if result._grad_fn is not None:  # (its grad_fn._saved_self or _other)
        result._grad_fn.given = number
    return _out(result, out)


# --- i0, sinc ---


class I0(Function):
    """out = I0(a), the modified Bessel function of order 0;  grad_a = grad * I1(a)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _special(a, "i0")

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * _i1(a)


class I1(Function):
    """out = I1(a) (only in I0's backward);  grad_a = grad * (I0(a) - I1(a) / a), 1/2 unless
    |a| > the dtype's eps (as torch: near 0, and at NaN)"""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _special(a, "i1")

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        tiny = (a.abs() > _dtype.finfo(a.dtype).eps).logical_not()
        safe = where(tiny, 1.0, a)
        return grad * where(tiny, 0.5, i0(a) - _i1(a) / safe)


def _i1(a: Tensor) -> Tensor:
    return I1.apply(a)


class Sinc(Function):
    """out = sin(pi a) / (pi a), 1 at 0;  grad_a = grad * (cos(pi a) - out) / a, +0. at 0"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        # the ufuncs themselves rather than xp.sinc, whose warnings (sin(inf)) NumPy attributes
        # to its own module, past minitorch's filter
        xp = ctx.xp
        x = a._data
        dt = x.dtype
        if opmath_dtype(dt):  # half: computed in float32 and rounded once, as torch does
            x = x.astype("float32")
        zero = x == 0
        y = xp.where(zero, 1.0, x) * math.pi
        return _arr(xp, xp.where(zero, 1.0, xp.sin(y) / y)).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        # near 0 the difference cos(pi a) - sinc(a) cancels: there the Taylor series of the
        # slope, -pi²/3 a + pi⁴/30 a³ (exact to double precision below |a| = 1e-3)
        small = abs(a) < 1e-3
        safe = where(small, 1.0, a)
        slope = (cos(safe * math.pi) - sinc(safe)) / safe
        series = a * (_SINC_C1 + _SINC_C3 * (a * a))
        out = grad * where(small, series, slope)
        # +0. at 0 whatever grad's sign, as torch's; adding 0. keeps the second derivative
        return where(a == 0, out + 0.0, out)


i0 = _unary(I0, "i0", "The modified Bessel function of the first kind, order 0")
sinc = _unary(Sinc, "sinc", "The normalized sinc function sin(pi x) / (pi x)")


# --- igamma, igammac, mvlgamma ---


def _gamma_pair(a: Tensor, b: Tensor, name: str):
    x, y = a._data, b._data
    work = "float32" if x.dtype.itemsize < 4 else x.dtype
    fn = a._device.backend.special(name)
    out = fn(x.astype(work, copy=False), y.astype(work, copy=False))
    return _arr(a._device.backend.xp, out).astype(x.dtype, copy=False)


class Igamma(Function):
    """out = P(a, b), the regularized lower incomplete gamma function;
    grad_b = grad * b^(a-1) e^(-b) / Γ(a),  no gradient for a (torch has none)"""

    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's)

    _sign = 1.0
    _kernel = "gammainc"

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        return _gamma_pair(a, b, cls._kernel)

    @classmethod
    def backward(cls, ctx, grad):
        a, b = ctx._stored_tensors
        if computes_input_grad(ctx, 0):
            name = cls.__name__.lower()
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        density = exp((a - 1) * log(b) - b - lgamma(a))
        return None, grad * density * cls._sign


class Igammac(Igamma):
    """out = Q(a, b) = 1 - P(a, b);  grad_b = -grad * b^(a-1) e^(-b) / Γ(a)"""

    _sign = -1.0
    _kernel = "gammaincc"


def _igamma_args(input, other, op: str):
    _check_tensor(input, op)
    _check_tensor(other, op, "other", 2)
    a, b, dt = promote(input, other, op)
    if not dt.is_floating_point:  # shapes, then out=, before the dtype (NOTE [ Shapes before
        # dtypes ]; igamma's out=, read from its frame: its success path passes none here)
        raise_in_order((input, other), _not_implemented(f"{op}_cpu", dt), dt, callers_out())
    # promote leaves a bool operand uncast, and the kernel's result takes the first's dtype
    return cast(a, dt), cast(b, dt)


def igamma(input, other, *, out=None):
    """The regularized lower incomplete gamma function P(input, other).
    Mirrors torch.igamma (differentiable in other only, as torch)."""
    return _out(Igamma.apply(*_igamma_args(input, other, "igamma")), out)


def igammac(input, other, *, out=None):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P.
    Mirrors torch.igammac (differentiable in other only, as torch)."""
    return _out(Igammac.apply(*_igamma_args(input, other, "igammac")), out)


class Mvlgamma(Function):
    """out = sum over j < p of lgamma(a - j/2) + p (p - 1) / 4 log(pi);
    grad_a = grad * sum over j < p of digamma(a - j/2)"""

    _saved_names = ("self",)  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"p": "p"}

    @staticmethod
    def forward(ctx, a, *, p):
        ctx.save_for_backward(a)
        ctx.p = p
        x = a._data
        dt = x.dtype
        work = dt if dt.itemsize >= 4 else "float32"
        fn = a._device.backend.special("lgamma")
        # torch's composite: the arguments, each lgamma and their sum rounded to x's dtype in
        # turn (which only half precision notices)
        total = 0
        for j in range(p):
            arg = (x - j / 2).astype(dt, copy=False).astype(work, copy=False)
            total = total + _arr(ctx.xp, fn(arg)).astype(dt).astype(work, copy=False)
        total = total.astype(dt).astype(work, copy=False) + p * (p - 1) / 4 * math.log(math.pi)
        return ctx.xp.where(x == -math.inf, math.inf, total).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        total = digamma(a)
        for j in range(1, ctx.p):
            total = total + digamma(a - j / 2)
        return grad * total


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma of dimension p: sum over j < p of lgamma(input - j/2), plus
    p (p - 1) / 4 log(pi). Mirrors torch.mvlgamma."""
    p = p if p.__class__ is int else check_int("mvlgamma", p, "p", 2)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if isinstance(input, Tensor) and input._data.dtype.kind == "b":
        raise RuntimeError("mvlgamma(): The input tensor may not be a boolean tensor.")
    x = _to_float(input, "mvlgamma")
    result = Mvlgamma.apply(x, p=p)
    if isinstance(out, Tensor) and not _dtype.can_cast(result.dtype, out.dtype):
        from minitorch._ops.inplace import refuse_out_autograd

        refuse_out_autograd("mvlgamma", out, input)  # torch's autograd check comes first
        # torch's message names the result's type twice
        name = _dtype.scalar_name(result.dtype)
        raise RuntimeError(
            f"mvlgamma: result type {name} can't be cast to the desired output type {name}"
        )
    return _out(result, out)


def mvlgamma_(self, p):
    """In-place mvlgamma. Mirrors torch.Tensor.mvlgamma_."""
    from minitorch._ops.inplace import apply_inplace

    p = p if p.__class__ is int else check_int("mvlgamma_", p, "p", 2)
    if isinstance(self, Tensor) and not self.dtype.is_floating_point:
        # torch's in-place kernel words its refusals of an integer or bool self so
        if self.dtype is _dtype.bool:
            raise RuntimeError("The input tensor may not be a boolean tensor.")
        raise RuntimeError(
            f"mvlgamma: result type {_dtype.scalar_name(self.dtype)} can't be cast to the "
            f"desired output type {_dtype.scalar_name(_dtype.get_default_dtype())}"
        )
    return apply_inplace(self, lambda s: mvlgamma(s, p), "mvlgamma_")


# --- in-place forms ---

i0_ = _inplace(i0)
sinc_ = _inplace(sinc)
igamma_ = _inplace(igamma)
igammac_ = _inplace(igammac)

erf_ = _inplace(erf)
erfc_ = _inplace(erfc)
erfinv_ = _inplace(erfinv)
lgamma_ = _inplace(lgamma)
digamma_ = _inplace(digamma)
xlogy_ = _inplace(xlogy)


def polygamma_(self, n):
    """In-place polygamma. Mirrors torch.Tensor.polygamma_."""
    from minitorch._ops.inplace import apply_inplace

    # torch's in-place overload has its own node (NOTE [ Composite node names ])
    return apply_inplace(
        self, lambda s: name_node(polygamma(n, s), "PolygammaBackward1"), "polygamma_"
    )


def logit_(input, eps=None):
    """In-place logit. Mirrors torch.Tensor.logit_."""
    if eps is not None and eps.__class__ is not float:
        eps = check_float("logit_", eps, "eps", 2)
    from minitorch._ops.inplace import apply_inplace

    return apply_inplace(input, lambda s: logit(s, eps), "logit_")
