"""Special functions on NumPy arrays: scipy.special when importable, else pure-NumPy fallbacks."""

from __future__ import annotations

import math

import numpy as np

from minitorch._backend.numpy_special_fits import (
    _B2K,
    _bessel_i,
    _digamma,
    _erf,
    _erfc,
    _erfcx,
    _lgamma,
)

# fmt: off
__all__ = ["special", "FALLBACKS"]
# fmt: on

# NOTE [ Special functions ]
# NumPy has no erf, lgamma or digamma. Backend.special(name) hands the ops an array function for
# one of NAMES: scipy.special's on the CPU when SciPy is installed (it is optional), cupyx's on
# the GPU, and the fallbacks below otherwise. erf, erfc, erfcx, lgamma, digamma and I0/I1 are
# piecewise polynomials over whole arrays (NOTE [ Vectorised fallbacks ]); erfinv refines a
# rational first guess by Newton steps on erf; polygamma shifts the argument up by recurrence
# and finishes with the asymptotic series; gammainc, zeta, j0 and j1 still go per element.
# Each takes and returns float64 arrays; callers cast.

_SCIPY_NAMES = {
    "erf": "erf",
    "erfc": "erfc",
    "erfinv": "erfinv",
    "lgamma": "gammaln",
    "digamma": "psi",
    "polygamma": "polygamma",
    "i0": "i0",
    "i1": "i1",
    "gammainc": "gammainc",
    "gammaincc": "gammaincc",
}


def _elementwise(fn):
    """A per-element Python function as a float64 array function."""
    ufunc = np.frompyfunc(fn, 1, 1)

    def apply(x):
        return np.asarray(ufunc(np.asarray(x, dtype=np.float64)), dtype=np.float64)

    return apply


def _erfinv(y):
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        # M. Giles' single-precision approximation as the first guess
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w < 5.0
        ws = w - 2.5
        p = np.full_like(y, 2.81022636e-08)
        for c in (
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ):
            p = c + p * ws
        wl = np.sqrt(np.where(small, 5.0, w)) - 3.0
        q = np.full_like(y, -0.000200214257)
        for c in (
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ):
            q = c + q * wl
        t = np.abs(y)
        a = np.where(small, p, q) * t
        finite = np.isfinite(a)
        a = np.where(finite, a, 1.0)
        tail = t > 0.5
        for _ in range(4):  # Newton steps from a guess good to ~1e-7
            # in the tails on log erfc(a) = log(1 - t) (1 - t is exact there, and log erfc is
            # nearly quadratic), else on erf(a) = t
            e = np.where(tail, _erfc(a), _erf(a))
            slope = 2.0 / math.sqrt(math.pi) * np.exp(-a * a)
            a = np.where(tail, a + (np.log(e) - np.log1p(-t)) * e / slope, a - (e - t) / slope)
        x = np.where(finite, np.copysign(a, y), np.nan)
        x = np.where(t == 1.0, np.copysign(np.inf, y), x)
        return np.where(np.abs(y) > 1.0, np.nan, x)


def _shift_up(x, n: int, low: float = 10.0):
    """(x + k, sum of (-1)^(n+1) n! / (x + j)^(n+1) for j < k) with k the steps to reach `low`:
    psi^(n)(x) = that sum + psi^(n)(x + k)."""
    acc = np.zeros_like(x)
    sign_fact = (-1.0) ** (n + 1) * math.factorial(n)
    while True:
        below = x < low
        if not below.any():
            return x, acc
        safe = np.where(below, x, 1.0)
        term = sign_fact / safe ** (n + 1) if n else 1.0 / safe
        acc = acc + np.where(below, term, 0.0)
        x = np.where(below, x + 1.0, x)


# The Bernoulli numbers B_16, B_18, B_20: trigamma's series goes three terms further than digamma's
_B2K_TRIGAMMA = _B2K + (-3617 / 510, 43867 / 798, -174611 / 330)


def _trigamma(x):
    """ψ'(x) = polygamma(1, x) on a float array, in float64; see NOTE [ Trigamma ]."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        neg = x < 0
        reflect = bool(neg.any())
        z = x
        if reflect:  # ψ'(x) = π² / sin²(πx) - ψ'(1 - x), sin(πx) = ±sin(π (x - round(x)))
            below = x[neg]
            sin = np.sin(math.pi * (below - np.round(below)))
            z = x.copy()
            z[neg] = 1.0 - below
        # the asymptotic series at w = z + 10: 1/w + 1/(2 w²) + sum_k B_2k / w^(2k+1)
        t = 1.0 / (z + 10.0)
        t2 = t * t
        series = np.full_like(t2, _B2K_TRIGAMMA[-1])
        for b in _B2K_TRIGAMMA[-2::-1]:
            series *= t2
            series += b
        series *= t
        series += 0.5
        series *= t2
        series += t
        # plus the recurrence's 1 / (z + k)², k = 9 ... 0, summed apart (smallest first) so that
        # for large z its small terms round once, not ten times, into the series
        acc = np.zeros_like(t)
        term = np.empty_like(t)
        for k in range(9, -1, -1):
            np.add(z, k, out=term)
            np.multiply(term, term, out=term)
            np.divide(1.0, term, out=term)
            acc += term
        acc += series
        if reflect:
            acc[neg] = math.pi * math.pi / (sin * sin) - acc[neg]
        return acc


# NOTE [ Trigamma ]
# polygamma(1, x), the derivative of digamma, is what digamma's, lgamma's and mvlgamma's
# backward compute. SciPy's polygamma goes through its Hurwitz zeta: 230 ms for 1M float32
# values (torch: 7 ms), and for a negative non-integer x its time grows with |x| (a second per
# element near -1e8); the fallback shifted negative arguments up one step per pass, as long.
# _trigamma reflects x < 0 to 1 - x, shifts by 10 unconditionally (no masks) and sums the
# asymptotic series at z + 10 through B_20: ~40 ms, within 2 ulps of mpmath for x > 0 (SciPy:
# up to 7), 4 for x < 0 (SciPy: 5), and the same float32 values as SciPy's. It gives
# torch.polygamma(1, x)'s float64 values, where torch's shorter series is ~1e-9 relative off;
# float32 and half follow torch's series (NOTE [ Digamma and trigamma: torch's series, or the
# function's value ] in minitorch/_ops/special.py).


def _polygamma(n, x):
    n = int(n)
    if n == 0:
        return _digamma(x)
    if n == 1:
        return _trigamma(x)
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        pole = (x <= 0) & (x == np.floor(x))
        z = np.where(pole | ~np.isfinite(x), 1.0, x)
        z, acc = _shift_up(z, n)
        # (-1)^(n+1) [ (n-1)!/z^n + n!/(2 z^(n+1)) + sum_k B_2k (2k+n-1)! / ((2k)! z^(2k+n)) ]
        total = math.factorial(n - 1) / z**n + math.factorial(n) / (2 * z ** (n + 1))
        for k, b in enumerate(_B2K, start=1):
            coef = b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
            total = total + coef / z ** (2 * k + n)
        out = (-1.0) ** (n + 1) * total + acc
        sign_inf = np.inf if n % 2 else -np.inf
        out = np.where(pole | (x == -np.inf), sign_inf, out)  # -inf as a pole, as SciPy's
        out = np.where(x == np.inf, 0.0, out)
        return np.where(np.isnan(x), np.nan, out)


def _gammainc_scalars(a: float, x: float) -> tuple:
    """(P(a, x), Q(a, x)), the regularized incomplete gamma functions: the power series of P
    below x = a + 1, the continued fraction of Q (modified Lentz) above it."""
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan, math.nan
    if a == 0:
        return (1.0, 0.0) if x > 0 else (math.nan, math.nan)
    if x == 0:
        return 0.0, 1.0
    if math.isinf(x):
        return 1.0, 0.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = 0
        while abs(term) > 1e-17 * abs(total) and n < 100000:
            n += 1
            term *= x / (a + n)
            total += term
        p = total * math.exp(log_front)
        return p, 1.0 - p
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    q = h * math.exp(log_front)
    return 1.0 - q, q


def _gammainc_pair(which: int):
    ufunc = np.frompyfunc(lambda a, x: _gammainc_scalars(a, x)[which], 2, 1)

    def apply(a, x):
        a = np.asarray(a, dtype=np.float64)
        return np.asarray(ufunc(a, np.asarray(x, dtype=np.float64)), dtype=np.float64)

    return apply


FALLBACKS = {
    "erf": _erf,
    "erfc": _erfc,
    "erfinv": _erfinv,
    "lgamma": _lgamma,
    "digamma": _digamma,
    "polygamma": _polygamma,
    "i0": _bessel_i(0, False),
    "i1": _bessel_i(1, False),
    "gammainc": _gammainc_pair(0),
    "gammaincc": _gammainc_pair(1),
}

_cache: dict = {}

# SciPy functions of several outputs whose first alone the table hands out (airy: Ai, Ai', Bi, Bi')
_SCIPY_FIRST_OUTPUT = {"airy_ai"}


def _first_output(fn):
    def apply(x):
        return fn(x)[0]

    return apply


# NOTE [ lgamma near 1 and 2 ]
# SciPy's gammaln loses relative precision around lgamma's zeros at 1 and 2: 3e-9 relative at
# 1 - 1e-7, over 4 ulps for a third of [0.5, 2]; torch's (the C library's) is within an ulp.
# There the float64 values come from the Taylor series of lgamma(2 + e), |e| <= 1/2:
# (1 - γ) e + sum over k >= 2 of (-1)^k (ζ(k) - 1) / k e^k, whose terms shrink as 4^-k (29
# terms), and lgamma(1 + e) = lgamma(2 + e) - log1p(e): within 3 ulps of mpmath on [0.5, 2.5).
# The NumPy fallback (no SciPy) is within 2 ulps of the C library's there already: it serves
# unwrapped.
_ONE_MINUS_EULER = 0.42278433509846713
_LGAMMA2_TAYLOR = (  # (-1)^k (ζ(k) - 1) / k, k = 2 ... 30
    0.3224670334241132, -0.0673523010531981, 0.020580808427784546, -0.007385551028673986,
    0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425,
    -0.00022315475845357939, 9.945751278180853e-05, -4.492623673813314e-05,
    2.050721277567069e-05, -9.439488275268397e-06, 4.374866789907488e-06,
    -2.039215753801366e-06, 9.55141213040742e-07, -4.492469198764566e-07,
    2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08,
    -2.2711094608943164e-08, 1.0838659214896955e-08, -5.183475041970047e-09,
    2.4836745438024785e-09, -1.1921401405860912e-09, 5.731367241678862e-10,
    -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11,
    3.1044247747322276e-11,
)


def _lgamma_near_zeros(gammaln):
    """gammaln with float64 arguments in [0.5, 2.5) by NOTE [ lgamma near 1 and 2 ]."""

    def apply(x):
        out = np.asarray(gammaln(x))
        if out.dtype != np.float64:
            return out
        x = np.asarray(x)
        near = (x >= 0.5) & (x < 2.5)
        if not near.any():
            return out
        v = x[near]
        low = v < 1.5
        e = np.where(low, v - 1.0, v - 2.0)  # exact (Sterbenz)
        s = np.full_like(e, _LGAMMA2_TAYLOR[-1])
        for c in _LGAMMA2_TAYLOR[-2::-1]:
            s *= e
            s += c
        s *= e
        s += _ONE_MINUS_EULER
        s *= e
        out[near] = np.where(low, s - np.log1p(e), s)
        return out

    return apply


def _erfc_upper(erfc, erfcx):
    """erfc with its float64 arguments above 2 as erfcx(x) exp(-x²), x² split exactly into
    h² + (h + x)(x - h), h x's leading 26 bits (so h² is exact): SciPy's erfc loses x²'s
    rounding there (relative 2^-53 x², 500 ulps near x = 26, and 0 past 26.64 where erfc is
    still subnormal); this is within 4 ulps of torch's (the C library's) up to the underflow
    at 27.2."""

    def apply(x):
        out = np.asarray(erfc(x))
        if out.dtype != np.float64:
            return out
        x = np.asarray(x)
        upper = (x > 2.0) & (x < 27.5)  # (0 from 27.3 up, inf included)
        if upper.any():
            v = x[upper]
            h = (v.view(np.int64) & ~np.int64((1 << 27) - 1)).view(np.float64)
            with np.errstate(under="ignore"):
                out[upper] = erfcx(v) * np.exp(-(h * h)) * np.exp(-(h + v) * (v - h))
        return out

    return apply


def _trigamma_first(polygamma):
    """SciPy's polygamma with n = 1 computed by _trigamma (NOTE [ Trigamma ])."""

    def apply(n, x):
        return _trigamma(x) if n == 1 else polygamma(n, x)

    return apply


# Names whose vectorised fallback serves even when SciPy is installed: for I0, I1 and their
# scaled forms it is ~1.5-2.5x faster than SciPy's and as accurate (the same float32 values on
# 10M random inputs); SciPy's erf, erfc, lgamma and digamma are 2-3x faster than the fallbacks
# (NOTE [ Vectorised fallbacks ]).
_PREFER_FALLBACK = frozenset({"i0", "i1", "i0e", "i1e"})


def special(name: str):
    """The array function `name` (one of FALLBACKS' keys), or None for a SciPy-only name when
    SciPy is not installed; see NOTE [ Special functions ]."""
    if name in _cache:
        return _cache[name]
    if name not in FALLBACKS:
        raise ValueError(f"special: unknown function '{name}'")
    try:
        if name in _PREFER_FALLBACK:
            raise ImportError(name)
        import scipy.special as sc  # optional dependency
    except ImportError:
        fn = FALLBACKS[name]
    else:
        fn = getattr(sc, _SCIPY_NAMES[name])
        if name in _SCIPY_FIRST_OUTPUT:
            fn = _first_output(fn)
        elif name == "polygamma":
            fn = _trigamma_first(fn)
    if name == "lgamma" and fn is not FALLBACKS["lgamma"]:  # (the fallback: 2 ulps there)
        fn = _lgamma_near_zeros(fn)
    elif name == "erfc" and fn is not FALLBACKS["erfc"]:
        fn = _erfc_upper(fn, special("erfcx"))
    _cache[name] = fn
    return fn


# --- torch.special's extra kernels (minitorch/_ops/special_more.py) ---


def _ndtri(p):
    return math.sqrt(2.0) * _erfinv(2.0 * np.asarray(p, dtype=np.float64) - 1.0)


def _log_ndtr(x):
    """log Φ(x): log1p(-Φ(-x)) above 0, log(erfcx(-x/√2) / 2) - x²/2 below (no underflow)."""
    x = np.asarray(x, dtype=np.float64)
    z = x / math.sqrt(2.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        upper = np.log1p(-0.5 * _erfc(z))
        lower = np.log(0.5 * _erfcx(-z)) - z * z
    return np.where(x > 0, upper, lower)


def _zeta_scalars(s: float, q: float) -> float:
    """The Hurwitz zeta Σ (q + k)^-s by Euler-Maclaurin: nine terms summed, the tail integrated."""
    if math.isnan(s) or math.isnan(q) or s < 1:
        return math.nan
    if s == 1:
        return math.inf
    if q <= 0:
        return math.inf if q == math.floor(q) else math.nan
    n = 9
    total = sum((q + k) ** -s for k in range(n))
    a = q + n
    total += a ** (1 - s) / (s - 1) + 0.5 * a**-s
    rising = s  # s (s + 1) ... (s + 2j - 2)
    fact = 2.0  # (2j)!
    for j, b in enumerate(_B2K, start=1):
        total += b / fact * rising * a ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
    return total


def _zeta(s, q):
    ufunc = np.frompyfunc(_zeta_scalars, 2, 1)
    s = np.asarray(s, dtype=np.float64)
    return np.asarray(ufunc(s, np.asarray(q, dtype=np.float64)), dtype=np.float64)


def _bessel_j_scalar(order: int):
    """J0 or J1: the power series up to |x| = 12, Hankel's asymptotic expansion beyond."""

    def apply(v: float) -> float:
        if math.isnan(v):
            return v
        if math.isinf(v):
            return 0.0
        if abs(v) <= 12.0:
            half = v / 2.0
            term = half**order / math.factorial(order)
            total = term
            k = 0
            while abs(term) > 1e-17 * max(abs(total), 1e-300) or k < 5:
                k += 1
                term *= -half * half / (k * (k + order))
                total += term
            return total
        x = abs(v)
        mu = 4.0 * order * order
        p, q, term = 1.0, 0.0, 1.0
        for k in range(1, 30):
            term *= (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
            if k % 2:
                q += term if (k // 2) % 2 == 0 else -term
            else:
                p += -term if (k // 2) % 2 else term
        chi = x - (2 * order + 1) * math.pi / 4.0
        out = math.sqrt(2.0 / (math.pi * x)) * (p * math.cos(chi) - q * math.sin(chi))
        return -out if (order == 1 and v < 0) else out

    return apply


_SCIPY_NAMES.update(
    {
        "erfcx": "erfcx",
        "ndtri": "ndtri",
        "log_ndtr": "log_ndtr",
        "i0e": "i0e",
        "i1e": "i1e",
        "zeta": "zeta",
        "j0": "j0",
        "j1": "j1",
    }
)
FALLBACKS.update(
    {
        "erfcx": _erfcx,
        "ndtri": _ndtri,
        "log_ndtr": _log_ndtr,
        "i0e": _bessel_i(0, True),
        "i1e": _bessel_i(1, True),
        "zeta": _zeta,
        "j0": _elementwise(_bessel_j_scalar(0)),
        "j1": _elementwise(_bessel_j_scalar(1)),
    }
)
# The Bessel functions of the second kind: SciPy's when it is installed (15-20x faster than the
# series and integrals of minitorch/_ops/special_more.py, the same float32 values, closer
# float64 ones); without SciPy special() gives None and that module computes them itself.
_SECOND_KIND = ("y0", "y1", "k0", "k1", "k0e", "k1e")
_SCIPY_NAMES.update({n: n for n in _SECOND_KIND})
FALLBACKS.update(dict.fromkeys(_SECOND_KIND))
# The Airy function Ai: SciPy's airy (its first output) when installed, else None and
# minitorch/_ops/special_more.py computes it (NOTE [ The Airy function ] there).
_SCIPY_NAMES["airy_ai"] = "airy"
FALLBACKS["airy_ai"] = None
