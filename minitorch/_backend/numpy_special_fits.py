"""Vectorised approximations of special functions on float64 NumPy arrays: the fallbacks that
minitorch/_backend/numpy_special.py hands out where SciPy is not installed (and, for a few
names, always). See NOTE [ Vectorised fallbacks ]."""

from __future__ import annotations

import math

import numpy as np

# The Bernoulli numbers B_2, B_4, ..., B_14, for the asymptotic series of digamma and polygamma
_B2K = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)

# NOTE [ Vectorised fallbacks ]
# The fallbacks below work on all elements at once: each function is cut into a few intervals,
# each interval's elements are gathered (np.flatnonzero + take), a polynomial is evaluated on
# them by Horner's rule, and the values are put back. The polynomials are Chebyshev
# interpolants of the function (or of a smooth factor of it) fitted with mpmath at 40 digits
# and written out in powers of s = (x - c) / h, with [c - h, c + h] the interval; the degree is
# the first one whose truncation error is below 1e-17 relative. Where a function has a zero
# (lgamma at 1 and 2, digamma at 1.4616...) the zero is factored out, so relative accuracy
# holds there. erfc(a) = exp(-a²) erfcx(a) takes exp(-a²) in two exact pieces (a² would lose
# ~a² ulps). lgamma and digamma reach their tables by the recurrence (up to 7 steps, in
# masks) or Stirling's / the asymptotic series (from 10 up), and negative arguments by the
# reflection formulas; I0 and I1 use their power series up to 8 and a fit of the scaled
# function in 1/|x| above. Within 5 ulps of mpmath (SciPy: up to 500 for erfc, 10^7 for
# lgamma near 1) except near the negative zeros of lgamma and digamma (as SciPy); 3-100x
# faster than the per-element fallbacks they replaced, 2-3x slower than SciPy for erf, erfc,
# lgamma and digamma, ~1.5x faster for I0 and I1, with SciPy's float32 values.

# fmt: off
# (c, h, coefficients from the highest power of s down): see NOTE [ Vectorised fallbacks ]
_ERF_SMALL = (0.5, 0.5, (
    -3.80659122412214e-13, 9.21125018742823e-12, -2.035231956483527e-10,
    4.115751500265885e-09, -7.51156925108609e-08, 1.2233827638093572e-06,
    -1.75371694412802e-05, 0.00021751715603563488, -0.0022854855611440855,
    0.019852496688984218, -0.1405360890227171, 0.9654687386698673,
))
_ERFCX_1 = (0.75, 0.25, (
    -2.1463289279578493e-13, 2.585599367357183e-12, -2.940348914756972e-11,
    3.306043556501409e-10, -3.5801438250789833e-09, 3.719545089633589e-08,
    -3.693562177597921e-07, 3.4885738732198706e-06, -3.114966996088564e-05,
    0.00026090055675162256, -0.002028688468670001, 0.014434883221955935,
    -0.09199317291394885, 0.5069376502931449,
))
_ERFCX_2 = (1.5, 0.5, (
    2.0206514750441873e-13, -1.512018061489917e-12, 1.0201594788774491e-11,
    -7.257032617086992e-11, 5.04654734183512e-10, -3.405938587821499e-09,
    2.2328417586062252e-08, -1.4191186135917107e-07, 8.72304473829848e-07,
    -5.171328672722121e-06, 2.947085745299996e-05, -0.0001608111733699307,
    0.0008360838095667121, -0.004116363162445659, 0.01903775996386935,
    -0.08181145886628002, 0.3215854164543175,
))
_ERFCX_3 = (3.0, 1.0, (
    1.6482525468969957e-12, -8.134236373235494e-12, 3.1724792006762475e-11,
    -1.5077563830210874e-10, 7.20516363335066e-10, -3.316229237177357e-09,
    1.4977253627698686e-08, -6.64646639786765e-08, 2.8926684651166363e-07,
    -1.2333685934914701e-06, 5.146436522511331e-06, -2.0989464259545496e-05,
    8.355413963369297e-05, -0.00032412554452200884, 0.0012230390523765237,
    -0.004479431018371144, 0.01588437115987134, -0.05437226000717289,
    0.17900115118138996,
))
_ERFCX_4 = (0.03125, 0.03125, (
    1.0329783159266158e-12, -4.7243775186469616e-12, 1.958804427777353e-11,
    -1.0392183818824352e-10, 5.997909547717608e-10, -3.7525006811941756e-09,
    2.6102655506466723e-08, -2.0641918996937377e-07, 1.9147125699967903e-06,
    -2.1861074903197153e-05, 0.0003335970130798221, -0.008073805168515238,
    0.5557581685752836,
))
_LGAMMA_1 = (1.25, 0.25, (
    2.141263019829694e-13, -1.1330791403561276e-12, 5.106438131036768e-12,
    -2.725541715400204e-11, 1.4773930912315267e-10, -7.962774907512488e-10,
    4.317142285692878e-09, -2.3589821444264103e-08, 1.3008297606475636e-07,
    -7.256005143716598e-07, 4.108320087107295e-06, -2.373906741675187e-05,
    0.00014124530459150062, -0.0008792719886534107, 0.005910358627063182,
    -0.04613959610920402, 0.5241164609163369,
))
_LGAMMA_2 = (1.75, 0.25, (
    -3.5384641739086224e-13, 2.6478769548513186e-12, -1.867634611316453e-11,
    1.414110225240109e-10, -1.080307334455946e-09, 8.314622929887982e-09,
    -6.473180880866018e-08, 5.116048968749832e-07, -4.127142702310065e-06,
    3.428269698271253e-05, -0.0002977180910975417, 0.0027825279499062872,
    -0.029870396656310687, 0.4501393121092563,
))
_LGAMMA_3 = (2.5, 0.5, (
    1.9604702407818708e-13, -1.0332705731012683e-12, 4.629940843530398e-12,
    -2.4598267873333703e-11, 1.327168665657836e-10, -7.116963737186337e-10,
    3.8384629794069976e-09, -2.0863787351334714e-08, 1.1445032468769523e-07,
    -6.35174172502713e-07, 3.5789630855480136e-06, -2.0582490830156427e-05,
    0.00012181609305914603, -0.0007523460658796142, 0.004976288576185802,
    -0.037331787077249705, 0.37957716063055885,
))
_DIGAMMA_1 = (1.25, 0.25, (
    -8.612712875099789e-13, 4.3064023128742415e-12, -1.7656703992657758e-11,
    8.828703702402691e-11, -4.487338725842948e-10, 2.243955903338831e-09,
    -1.121502061193761e-08, 5.6098533863689114e-08, -2.807096347490006e-07,
    1.4054855529587894e-06, -7.045185061898764e-06, 3.539022643292034e-05,
    -0.00017849350516003837, 0.0009072910216089259, -0.0046846791977716625,
    0.02501495193392654, -0.14479162045588542, 1.0747589096650145,
))
_DIGAMMA_2 = (1.75, 0.25, (
    -4.340658423455766e-12, 3.040256512828185e-11, -1.9782457899141623e-10,
    1.3869191185966325e-09, -9.753273027444738e-09, 6.854165715039448e-08,
    -4.828165967157288e-07, 3.414497870638711e-06, -2.4306687994403324e-05,
    0.0001749986503246907, -0.0012857122868079743, 0.00982000708449524,
    -0.08156365696702644, 0.8581832171262996,
))
_DIGAMMA_3 = (2.5, 0.5, (
    6.307842899541871e-13, -3.1566747734440434e-12, 1.2964240516681834e-11,
    -6.49457107797728e-11, 3.3093219581111844e-10, -1.6609454533676373e-09,
    8.344194949201035e-09, -4.2043016126537583e-08, 2.125505163126307e-07,
    -1.0798410546711642e-06, 5.5264700319979104e-06, -2.860256305537754e-05,
    0.00015066905691936685, -0.0008170729153862621, 0.00466470518369272,
    -0.02952550645521577, 0.24517887805011743, 0.7031566406452432,
))
_I1_LARGE = (0.0625, 0.0625, (
    -1.13288885034257e-10, -3.2677656089803323e-11, 7.79067217908059e-10,
    2.582169443152386e-10, -2.5062162405593894e-09, -1.0476127785270019e-09,
    5.094016301574338e-09, 3.0717395650769477e-09, -7.222524178953976e-09,
    -7.432535335623792e-09, 5.722677527454156e-09, 1.3952625102162603e-08,
    6.795073490187386e-09, -8.407326839577817e-09, -2.3382691353601083e-08,
    -4.31323156237458e-08, -1.0001220638799958e-07, -3.483853071371078e-07,
    -1.8349101539664522e-06, -1.503854721127423e-05, -0.000219235763833829,
    -0.009749577193235609, 0.38939845902587233,
))
_I0_LARGE = (0.0625, 0.0625, (
    1.0881994785468934e-10, 3.525321019700796e-11, -7.473844621887592e-10,
    -2.748111637276033e-10, 2.3981927228949238e-09, 1.0924527246468664e-09,
    -4.8482509221176966e-09, -3.11851456121224e-09, 6.789790403895736e-09,
    7.323310735122893e-09, -5.162517880939013e-09, -1.331979859201994e-08,
    -6.805980075129678e-09, 7.532386417555123e-09, 2.155681110989874e-08,
    3.932926571091252e-08, 8.872154618944625e-08, 2.9735956581528157e-07,
    1.4838475863096976e-06, 1.1143033802583682e-05, 0.00013621607439187193,
    0.0033605519836677235, 0.4021765094450081,
))
_LGAMMA_TABLES = (_LGAMMA_1, _LGAMMA_2, _LGAMMA_3)
# fmt: on

_DIGAMMA_ROOT = (1.4616321449683622, 9.549995429965697e-17)  # its positive zero, hi + lo
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)
# Stirling's series of lgamma: B_2k / (2k (2k - 1)), k = 8 ... 1 (powers of 1 / x²)
_STIRLING = tuple(b / (2 * k * (2 * k - 1)) for k, b in enumerate(_B2K + (-3617 / 510,), 1))[::-1]
# digamma's asymptotic series: B_2k / 2k, k = 8 ... 1
_PSI_SERIES = tuple(b / (2 * k) for k, b in enumerate(_B2K + (-3617 / 510,), 1))[::-1]
# the power series of I0 and I1(x) / x in u = x²: 1 / (4^k k! k!) and 1 / (2 4^k k! (k + 1)!)
_I0_SERIES = tuple(1.0 / (4.0**k * math.factorial(k) ** 2) for k in range(24))[::-1]
_I1_SERIES = tuple(0.5 / (4.0**k * math.factorial(k) * math.factorial(k + 1)) for k in range(24))[
    ::-1
]


def _horner(coefs, s):
    """sum of coefs[i] s^(n - i) (a new array)."""
    p = s * coefs[0]
    p += coefs[1]
    for c in coefs[2:]:
        p *= s
        p += c
    return p


def _table(piece, x):
    """A piece of the tables above at x."""
    c, h, coefs = piece
    return _horner(coefs, (x - c) * (1.0 / h))


def _pieces(x, out, bounds, fn):
    """out[i] = fn(k, x[i]) for x[i] in [bounds[k], bounds[k + 1]); other elements untouched."""
    for k in range(len(bounds) - 1):
        idx = np.flatnonzero((x >= bounds[k]) & (x < bounds[k + 1]))
        if idx.size:
            out.put(idx, fn(k, x.take(idx)))


def _prepare(x):
    """x as a flat float64 array (a copy never needed) and the shape to give the result."""
    x = np.asarray(x, dtype=np.float64)
    return x.ravel(), x.shape


def _exp_minus_square(a):
    """exp(-a²) for 0 <= a < 27 to ~1 ulp: a = hi + lo with hi a multiple of 1/64, so hi² is
    exact and exp(-a²) = exp(-hi²) exp(-lo (a + hi)) rounds only the two exponentials."""
    hi = np.round(a * 64.0) * (1.0 / 64.0)
    return np.exp(-hi * hi) * np.exp(-(a - hi) * (a + hi))


def _erfcx_large(k, a):
    """exp(a²) erfc(a) on the piece k of [0.5, 1, 2, 4, inf]."""
    if k < 3:
        return _table((_ERFCX_1, _ERFCX_2, _ERFCX_3)[k], a)
    t = 1.0 / a
    return _table(_ERFCX_4, t * t) * t


def _erfc_positive(a, out):
    """out = erfc(a) where 0.5 <= a (erfc underflows to 0 from 26.7 on, as SciPy's)."""

    def piece(k, a):
        if k == 3:
            keep = a < 26.6417
            a = np.where(keep, a, 0.0)
            return np.where(keep, _exp_minus_square(a) * _erfcx_large(3, a), 0.0)
        return _exp_minus_square(a) * _erfcx_large(k, a)

    _pieces(a, out, (0.5, 1.0, 2.0, 4.0, np.inf), piece)
    out[a == np.inf] = 0.0


def _erf(x):
    x, shape = _prepare(x)
    out = np.empty_like(x)
    a = np.abs(x)
    idx = np.flatnonzero(a < 1.0)
    if idx.size:
        small = x.take(idx)
        out.put(idx, small * _table(_ERF_SMALL, small * small))
    tail = np.full_like(x, np.nan)
    _erfc_positive(np.where(a >= 1.0, a, np.nan), tail)
    big = a >= 1.0
    out[big] = np.copysign(1.0 - tail[big], x[big])
    out[np.isnan(x)] = np.nan
    return out.reshape(shape)


def _erfc(x):
    x, shape = _prepare(x)
    out = np.full_like(x, np.nan)
    a = np.abs(x)
    idx = np.flatnonzero(a < 0.5)
    if idx.size:
        small = x.take(idx)
        out.put(idx, 1.0 - small * _table(_ERF_SMALL, small * small))
    _erfc_positive(np.where(a >= 0.5, a, np.nan), out)
    neg = x <= -0.5
    out[neg] = 2.0 - out[neg]
    return out.reshape(shape)


def _erfcx(x):
    """exp(x²) erfc(x): the tables from 0.5 up; below, exp(x²) (in two exact pieces, as in
    _exp_minus_square) times 1 - erf(x), or 2 exp(x²) - erfcx(-x) from -0.5 down (inf from
    -26.7 down)."""
    x, shape = _prepare(x)
    out = np.full_like(x, np.nan)
    with np.errstate(over="ignore", invalid="ignore"):
        _pieces(x, out, (0.5, 1.0, 2.0, 4.0, np.inf), _erfcx_large)
        out[x == np.inf] = 0.0
        idx = np.flatnonzero(x < 0.5)
        if idx.size:
            v = x.take(idx)
            a = np.minimum(-v, 27.0)
            hi = np.round(a * 64.0) * (1.0 / 64.0)
            square = np.exp(hi * hi) * np.exp((a - hi) * (a + hi))
            mirror = np.full_like(v, np.nan)
            _pieces(a, mirror, (0.5, 1.0, 2.0, 4.0, np.inf), _erfcx_large)
            small = v * _table(_ERF_SMALL, v * v)
            small = square * (1.0 - small)
            out.put(idx, np.where(v > -0.5, small, 2.0 * square - mirror))
    return out.reshape(shape)


def _lgamma_positive(z):
    """log Γ(z) for z >= 0 (inf at 0 and inf, NaN kept)."""
    out = np.full_like(z, np.inf)

    def piece(k, z):
        if k == 0:  # log Γ(z) = log Γ(z + 1) - log z, the factors z and z - 1 exact
            w = z + 1.0
            return z * (z - 1.0) * _lgamma_table(w) - np.log(z)
        if k == 1:  # the table (z - 1)(z - 2) S(z); both factors exact (+0: not -0 at 1)
            return (z - 1.0) * (z - 2.0) * _lgamma_table(z) + 0.0
        if k == 2:  # down to w in [2, 3): log Γ(z) = log Γ(w) + log (w (w + 1) ... (z - 1))
            w = z - (np.floor(z) - 2.0)
            prod = w.copy()
            for j in range(1, 7):
                prod *= np.where(w + j < z, w + j, 1.0)
            return (w - 1.0) * (w - 2.0) * _lgamma_table(w) + np.log(prod)
        # Stirling's series, from 10 up
        t = 1.0 / z
        with np.errstate(over="ignore", invalid="ignore"):
            out = (z - 0.5) * np.log(z) - z + _HALF_LOG_2PI
        return out + _horner(_STIRLING, t * t) * t

    _pieces(z, out, (0.0, 1.0, 3.0, 10.0, np.inf), piece)
    out[z == 0] = np.inf
    out[np.isnan(z)] = np.nan
    return out


def _lgamma_table(w):
    """S(w) = log Γ(w) / ((w - 1)(w - 2)) for w in [1, 3]."""
    out = np.empty_like(w)
    _pieces(w, out, (1.0, 1.5, 2.0, 3.0 + 1e-15), lambda k, w: _table(_LGAMMA_TABLES[k], w))
    return out


def _lgamma(x):
    x, shape = _prepare(x)
    neg = x < 0
    out = _lgamma_positive(np.where(neg, 1.0 - x, x))
    idx = np.flatnonzero(neg)
    if idx.size:  # reflection: log |Γ(x)| = log π - log |sin πx| - log Γ(1 - x)
        v = x.take(idx)
        with np.errstate(divide="ignore", invalid="ignore"):
            sin = np.abs(np.sin(math.pi * (v - np.round(v))))
            val = _LOG_PI - np.log(sin) - out.take(idx)
        out.put(idx, np.where((sin == 0) | (v == -np.inf), np.inf, val))  # the poles, -inf
    return out.reshape(shape)


def _digamma_positive(z):
    """ψ(z) for z > 0 (inf at inf, NaN kept; 0 is the caller's)."""
    out = np.full_like(z, np.nan)

    def piece(k, z):
        if k == 0:  # ψ(z) = ψ(z + 1) - 1 / z
            return _digamma_table(z + 1.0) - 1.0 / z
        if k == 1:
            return _digamma_table(z)
        if k == 2:  # down to w in [2, 3): ψ(z) = ψ(w) + 1 / w + ... + 1 / (z - 1)
            w = z - (np.floor(z) - 2.0)
            acc = np.zeros_like(w)
            for j in range(6, -1, -1):
                acc += np.where(w + j < z, 1.0 / (w + j), 0.0)
            return _digamma_table(w) + acc
        t = 1.0 / z  # the asymptotic series, from 10 up
        return np.log(z) - 0.5 * t - _horner(_PSI_SERIES, t * t) * (t * t)

    _pieces(z, out, (0.0, 1.0, 3.0, 10.0, np.inf), piece)
    out[z == np.inf] = np.inf
    return out


def _digamma_table(w, root=None):
    """ψ(w) for w in [1, 3]: (w - x0) R(w) below 2, with x0 the zero, then the table. `root`:
    w - x0 when the caller has it more exactly than w itself."""
    out = np.empty_like(w)
    if root is None:
        root = (w - _DIGAMMA_ROOT[0]) - _DIGAMMA_ROOT[1]

    def piece(k, w):
        if k == 2:
            return _table(_DIGAMMA_3, w)
        return _table((_DIGAMMA_1, _DIGAMMA_2)[k], w)

    _pieces(w, out, (1.0, 1.5, 2.0, 3.0 + 1e-15), piece)
    below = w < 2.0
    out[below] *= root[below]
    return out


def _digamma(x):
    x, shape = _prepare(x)
    neg = x < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _digamma_positive(np.where(neg, 1.0 - x, x))
        idx = np.flatnonzero(neg)
        if idx.size:  # reflection: ψ(x) = ψ(1 - x) - π cot(πx)
            v = x.take(idx)
            r = v - np.round(v)
            # cot(πr) = ±tan(π (1/2 - |r|)): 1/2 - |r| is exact, πr near ±π/2 would not be
            far = np.abs(r) > 0.25
            cot = np.where(far, np.copysign(np.tan(math.pi * (0.5 - np.abs(r))), r), 0.0)
            cot[~far] = 1.0 / np.tan(math.pi * r[~far])
            psi = out.take(idx)
            near = v > -1.0  # 1 - v in (1, 2) rounds; 1 - x0 does not, so ψ(1 - v) from that
            w = 1.0 - v[near]
            psi[near] = _digamma_table(w, ((1.0 - _DIGAMMA_ROOT[0]) - v[near]) - _DIGAMMA_ROOT[1])
            val = psi - math.pi * cot
            out.put(idx, np.where(r == 0, np.nan, val))  # the poles, and -inf
    out[x == 0] = np.copysign(np.inf, -x[x == 0])
    return out.reshape(shape)


def _bessel_i(order: int, scaled: bool):
    """I0, I1 or their scaled forms exp(-|x|) I(x): the power series up to |x| = 8, a fit of
    sqrt(|x|) exp(-|x|) I(x) in 1/|x| beyond."""
    series = (_I0_SERIES, _I1_SERIES)[order]
    large = (_I0_LARGE, _I1_LARGE)[order]

    def apply(x):
        x, shape = _prepare(x)
        out = np.full_like(x, np.nan)
        a = np.abs(x)

        def piece(k, a):
            if k == 0:
                val = _horner(series, a * a)
                if order:
                    val *= a
                return val * np.exp(-a) if scaled else val
            t = 1.0 / a
            val = _table(large, t) * np.sqrt(t)
            return val if scaled else val * np.exp(a)  # inf from 709.8 on, as torch and SciPy

        with np.errstate(over="ignore", invalid="ignore"):
            _pieces(a, out, (0.0, 8.0, np.inf), piece)
        out[a == np.inf] = 0.0 if scaled else np.nan  # torch's and SciPy's I(+-inf): NaN
        if order:  # odd: negated where x < 0, so I1(-0.) is 0., as torch's (not copysign)
            np.negative(out, out=out, where=x < 0)
        return out.reshape(shape)

    return apply
