"""minitorch.special: torch.special's functions, mostly other names for minitorch's own ops.

Mirrors torch.special. The functions torch has only here (erfcx, ndtri, log_ndtr, i0e, i1, i1e,
xlog1py, entr, zeta, the Bessel functions) live in minitorch/_ops/special_more.py, the
orthogonal polynomials in minitorch/_ops/special_poly.py.
"""

from __future__ import annotations

import math

from minitorch._arg_errors import REQUIRED, arity_error, too_many_positional, unexpected_keyword
from minitorch._ops import (
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    i0,
    igamma,
    igammac,
    lgamma,
    log1p,
    logit,
    mvlgamma,
    polygamma,
    sigmoid,
    sin,
    sinc,
    where,
    xlogy,
)
from minitorch._ops import log_softmax as _log_softmax
from minitorch._ops import round as _round
from minitorch._ops import softmax as _softmax
from minitorch._ops._common import index, wrong_type
from minitorch._ops.pointwise import _out
from minitorch._ops.pointwise_more import _to_float
from minitorch._ops.reduction import _MISSING, _logsumexp
from minitorch._ops.special_more import (
    _no_half,
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    entr,
    erfcx,
    i0e,
    i1,
    i1e,
    log_ndtr,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    ndtri,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    xlog1py,
    zeta,
)
from minitorch._ops.special_poly import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from minitorch._tensor import Tensor
from minitorch.autograd.function import scalar_node

# fmt: off
__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
    "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta",
]
# fmt: on

_SQRT1_2 = math.sqrt(0.5)  # M_SQRT1_2, torch's (1 / sqrt(2.) rounds one ulp below it)

psi = digamma
gammaln = lgamma


def expit(input, *, out=None):
    """The logistic sigmoid 1 / (1 + exp(-x)). Mirrors torch.special.expit."""
    return sigmoid(input, out=out)


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function. Mirrors torch.special.gammainc."""
    return igamma(input, other, out=out)


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function. Mirrors torch.special.gammaincc."""
    return igammac(input, other, out=out)


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function. Mirrors torch.special.multigammaln."""
    return mvlgamma(input, p, out=out)


def ndtr(input, *, out=None):
    """The standard normal CDF, (1 + erf(x / sqrt(2))) / 2. Mirrors torch.special.ndtr:
    computed as torch composes it, so the far lower tail rounds to 0 as torch's does
    (ndtr(-10) is 0, not 7.6e-24), with its nodes MulBackward1 <- AddBackward1 <- ErfBackward0
    <- MulBackward1."""
    x = _to_float(input, "special_ndtr")
    scaled = scalar_node(x * _SQRT1_2)
    result = scalar_node(scalar_node(erf(scaled) + 1.0) * 0.5)
    return _out(result, out)


def round(input=REQUIRED, *args, decimals=0, out=None, **unknown):
    """Rounds half to even, to `decimals` decimal places. Mirrors torch.special.round, which is
    torch's round with its decimals always given (0 too): its node is RoundBackward1, and it
    refuses an integer or bool tensor. Its one signature's argument errors name special_round."""
    op = "special_round"
    if args:  # (torch's parser: its decimals is keyword-only)
        raise too_many_positional(op, 1 + len(args), 1)
    if unknown:
        raise unexpected_keyword(op, next(iter(unknown)))
    if not isinstance(input, Tensor):
        raise wrong_type(op, input, "input", 1, "Tensor")
    if decimals.__class__ is not int:
        decimals = index(decimals, op, "decimals")  # (an int-like, or torch's TypeError)
    if out is not None and not isinstance(out, Tensor):
        raise wrong_type(op, out, "out", None, "Tensor")
    return _round(input, decimals=decimals, out=out)  # (given, 0 too: NOTE [ round's decimals ])


def logsumexp(input, dim=_MISSING, keepdim=False, *args, out=None):
    """log(sum(exp(input))) over dims. Mirrors torch.special.logsumexp (whose errors say
    special_logsumexp)."""
    return _logsumexp("special_logsumexp", input, dim, keepdim, out, args)


def softmax(input, dim=REQUIRED, *extra, dtype=None):
    """softmax along dim. Mirrors torch.special.softmax."""
    if dim is REQUIRED or extra:
        raise arity_error("special_softmax", extra, 2, input=input, dim=dim)
    return _softmax(input, dim, dtype)


def log_softmax(input, dim=REQUIRED, *extra, dtype=None):
    """log_softmax along dim. Mirrors torch.special.log_softmax."""
    if dim is REQUIRED or extra:
        raise arity_error("special_log_softmax", extra, 2, input=input, dim=dim)
    return _log_softmax(input, dim, dtype)


def spherical_bessel_j0(x, *, out=None):
    """The spherical Bessel function of the first kind, order 0: sin(x) / x, 1 at 0, 0 at ±inf.
    Mirrors torch.special.spherical_bessel_j0 (not differentiable, as torch; its argument is
    named x)."""
    from minitorch.autograd.grad_mode import no_grad

    with no_grad():
        x = _no_half(x, "special_spherical_bessel_j0", "spherical_bessel_j0_cpu")
        zero = x == 0
        safe = where(zero, 1.0, x)
        result = where(zero, 1.0, sin(safe) / safe)
        result = where(x.isinf(), 0.0, result)  # sin(±inf) is NaN; the limit is 0
    return _out(result, out)
