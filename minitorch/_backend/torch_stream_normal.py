"""torch's CPU normal samplers, number for number (the transformations behind randn, normal_,
log_normal_, exponential_, cauchy_ and geometric_ on a TorchStream): its serial Box-Muller with
the cached second value, its blocks of 16 with the AVX2 float32 log/sincos, and libm's float64
log without a Python call per element. See NOTE [ torch's CPU streams ] in torch_stream.py."""

from __future__ import annotations

import math

import numpy as np

from minitorch._backend.torch_stream import (
    _DIGITS,
    _F32,
    _F64,
    _U64,
    TorchStream,
    _fma32,
    _fma64,
    unit_uniform,
)

# NOTE [ libm's log without a call per element ]
# glibc's log is within 0.519 ulp of the exact value (its documented bound), so wherever the exact
# log is farther than 0.019 ulp from a rounding midpoint it returns the correctly rounded value.
# _log_libm computes the log in double-double (relative error about 2^-62, i.e. under 0.01 ulp),
# rounds it, and calls math.log only for the elements within 0.03 ulp of a midpoint (about 6%)
# and for inputs outside (0, inf). The reduction: x = 2^k m, m in [sqrt(1/2), sqrt(2)), a centre
# 1 + i/1024 near m with a 13-bit inverse g (g = 1 exactly at i = 0, so no cancellation near
# x = 1); m g - 1 is exact as two products of g with the 26-bit halves of m; then
# log x = k ln2 - log g + log1p(m g - 1), with -log g tabulated in double-double at first use.
_LOG_TABLE = None
_LOG_BAND = 0.47  # |residual| / ulp above this: too near a midpoint to trust


def _log_table():
    global _LOG_TABLE
    if _LOG_TABLE is None:
        from decimal import Decimal, localcontext

        i = np.arange(-300, 425)
        inv = np.rint(4096.0 / (1.0 + i / 1024.0)) / 4096.0
        inv[i == 0] = 1.0
        hi = np.empty(inv.size)
        lo = np.empty(inv.size)
        with localcontext() as ctx:
            ctx.prec = 40
            for n, v in enumerate(inv.tolist()):
                d = -Decimal(v).ln()
                hi[n] = float(d)
                lo[n] = float(d - Decimal(hi[n]))
            ln2 = Decimal(2).ln()
            ln2_hi = math.ldexp(round(math.ldexp(float(ln2), 42)), -42)  # k * ln2_hi is exact
            _LOG_TABLE = (inv, hi, lo, ln2_hi, float(ln2 - Decimal(ln2_hi)))
    return _LOG_TABLE


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _log_dd(x, inv_t, hi_t, lo_t, ln2_hi, ln2_lo):
    """(y, doubt): log of positive finite x rounded to float64, and where y may not be libm's."""
    mant, k = np.frexp(x)
    low = mant < 0.7071067811865476
    m = mant + mant * low
    k = (k - low).astype(_F64)
    idx = np.rint(m * 1024.0).astype(np.intp)
    idx -= 1024 - 300
    inv = inv_t[idx]
    mh = (m.view(_U64) & _U64(0xFFFFFFFFF8000000)).view(_F64)
    m -= mh
    m *= inv
    mh *= inv
    mh -= 1.0
    rh, rl = _two_sum(mh, m)  # m g - 1, exactly
    q = rh * (1 / 7)
    for c in (-1 / 6, 1 / 5, -1 / 4, 1 / 3, -1 / 2):
        q += c
        q *= rh
    q *= rh  # log1p(rh) - rh
    s, e1 = _two_sum(k * ln2_hi, hi_t[idx])
    s, e2 = _two_sum(s, rh)
    lo = e1 + e2
    lo += k * ln2_lo
    lo += lo_t[idx]
    lo += rl - rl * rh
    lo += q
    y = s + lo
    s -= y
    s += lo  # the residual: exact log minus y
    np.abs(s, out=s)
    np.abs(y, out=lo)
    gap = lo - np.nextafter(lo, 0.0)  # the smaller of the two gaps around |y|
    gap *= _LOG_BAND
    return y, s > gap


def _log_libm(x, fallback=math.log, chunk=1 << 15):
    """libm's log of a float64 array (NOTE [ libm's log without a call per element ]);
    `fallback` (math.log or a variant) for the elements in doubt and for x <= 0, inf, nan."""
    table = _log_table()
    flat = np.asarray(x, _F64).ravel()
    out = np.empty(flat.size, dtype=_F64)
    doubt = np.empty(flat.size, dtype=bool)
    for lo in range(0, flat.size, chunk):
        part = flat[lo : lo + chunk]
        odd = ~((part > 0) & (part < math.inf))
        if odd.any():
            part = np.where(odd, 1.0, part)
        out[lo : lo + chunk], d = _log_dd(part, *table)
        np.logical_or(d, odd, out=doubt[lo : lo + chunk])
    at = np.flatnonzero(doubt)
    if at.size:
        out[at] = np.fromiter(map(fallback, flat[at].tolist()), dtype=_F64, count=at.size)
    return out.reshape(np.shape(x))


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """fn (a math-module function: libm, as torch's kernels call it) element by element."""
    return np.fromiter(map(fn, x.ravel().tolist()), dtype=_F64, count=x.size).reshape(x.shape)


# NOTE [ libm's log1p of -u without a call per element ]
# exponential_ and the serial normal take libm's log1p(-u) of float64 uniforms u (multiples of
# 2^-53 in [0, 1)). glibc's log1p is fdlibm's algorithm (not correctly rounded: about 1 result
# in 20 differs from the rounded exact value); on x86-64 CPUs with FMA its FMA build runs, where
# the polynomial R of s^2 (s = f / (2 + f)) is evaluated with fused multiply-adds and every other
# step is plain float64 arithmetic (k * ln2_hi is exact and c is 0 for these u, so the fused
# steps outside R round as unfused ones). _log1p_neg replays the algorithm in NumPy with R
# unfused, which is within 8 units of 2^-53 R of the fused R (the polynomial's terms are all
# positive; measured: 2); the result is monotone in R, so it is computed at both ends of that
# interval, and where the two differ (about 1 element in 30) or fdlibm's other branches are
# reached (u below 2^-29, |f| below 2^-20) math.log1p is called. A fixed probe
# of values checks at first use that this replay is this machine's libm; otherwise (another
# libm, a CPU without FMA) every element goes through math.log1p.
_LP = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
_LOG1P_OK = None
_LOG1P_SPLIT = float.fromhex("-0x1.2bec4p-2")  # x at or below: fdlibm's high word >= 0xbfd2bec4
_LOG1P_HALF = float.fromhex("0x1.6a09ep0")
_CHUNK_LOG1P = 1 << 14


def _log1p_replay(u: np.ndarray) -> np.ndarray:
    """log1p(-u) for float64 u on [0, 1) (NOTE [ libm's log1p of -u without a call per
    element ]), math.log1p for the elements in doubt."""
    x = -u
    big = x <= _LOG1P_SPLIT  # f from 1 + x normalised, k its exponent
    m, e = np.frexp(1.0 - u)  # 1 - u is exact for u a multiple of 2^-53
    m += m  # [1, 2)
    half = m >= _LOG1P_HALF  # fdlibm's top mantissa word >= 0x6a09e: m / 2 and k + 1
    kf = e.astype(_F64)
    kf += half
    kf -= 1.0
    kf *= big
    m *= 1.0 - 0.5 * half
    m -= 1.0
    f = np.where(big, m, x)
    hfsq = 0.5 * f
    hfsq *= f
    s = f / (2.0 + f)
    z = s * s
    z2 = z * z
    z4 = z2 * z2
    z6 = z4 * z2
    r = z * _LP[0]
    r += z2 * (_LP[1] + z * _LP[2])
    r += z4 * (_LP[3] + z * _LP[4])
    r += z6 * (_LP[5] + z * _LP[6])
    d = r * 2.0**-50
    c = kf * 1.90821492927058770002e-10
    kf *= 6.93147180369123816490e-01  # exact: k is a small integer, ln2_hi a short constant
    out = []
    for rr in (r - d, r + d):  # k ln2_hi - ((hfsq - (s (hfsq + R) + k ln2_lo)) - f): at k = 0
        rr += hfsq  # the k = 0 branch's f - (hfsq - s (hfsq + R)) exactly
        rr *= s
        rr += c
        np.subtract(hfsq, rr, out=rr)
        rr -= f
        np.subtract(kf, rr, out=rr)
        out.append(rr)
    lo, hi = out
    doubt = lo != hi
    doubt |= u < 2.0**-29
    doubt |= big & (np.abs(m) < 2.0**-18)  # |f| < 2^-20 (and a few more): another branch
    at = np.flatnonzero(doubt)
    if at.size:
        lo[at] = np.fromiter(map(math.log1p, (-u[at]).tolist()), dtype=_F64, count=at.size)
    return lo


def _log1p_neg(u: np.ndarray) -> np.ndarray:
    """libm's log1p(-u) of float64 uniforms u (multiples of 2^-53 on [0, 1)), element for
    element as math.log1p (NOTE [ libm's log1p of -u without a call per element ])."""
    global _LOG1P_OK
    if _LOG1P_OK is None:
        probe = np.arange(1, 1 << 14, dtype=_F64) * (2.0**-14) - 2.0**-53 * 12345
        probe = np.concatenate([probe, np.arange(1, 4096, dtype=_F64) * 2.0**-40])
        _LOG1P_OK = bool(np.array_equal(_log1p_replay(probe), _libm(math.log1p, -probe)))
    if not _LOG1P_OK or u.size < 64:
        return _libm(math.log1p, -u)
    flat = u.ravel()
    if flat.size <= _CHUNK_LOG1P:
        return _log1p_replay(flat).reshape(u.shape)
    out = np.empty(flat.size, dtype=_F64)
    for lo in range(0, flat.size, _CHUNK_LOG1P):  # temporaries that stay in cache
        out[lo : lo + _CHUNK_LOG1P] = _log1p_replay(flat[lo : lo + _CHUNK_LOG1P])
    return out.reshape(u.shape)


# --- normal ---

# torch's AVX2 float32 kernel: Cephes log256_ps / sincos256_ps with the compiled fused
# multiply-adds. NOTE [ float32 fused multiply-add ]: a * b + c is computed in float64 (the
# product of two float32 is exact there) and rounded once to float32. That is a second rounding
# of the float64 sum, which differs from one rounding only when the sum is inexact and lands on a
# float32 midpoint; over every input these kernels can get (the 2^24 float32 uniforms of
# normal_), no multiply-add here ever does (checked exhaustively), so the results are the fused
# ones. A product that is exact in float32 (a small integer times a short constant) needs no
# float64 at all. Masks select by arithmetic or bits: NumPy's where is slow on random masks.
_LOG_P = [
    _F64(_F32(v))
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_COS_P = [
    _F64(_F32(v)) for v in (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
]
_SIN_P = [_F64(_F32(v)) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)]
_I32 = np.int32


def _log_avx2(w):
    """torch's AVX2 log256_ps on float32 w > 0 (normal numbers): a new float32 array."""
    xi = w.view(_I32)
    e = ((xi >> 23) - 126).astype(_F32)
    m = ((xi & 0x007FFFFF) | 0x3F000000).view(_F32)
    small = m < _F32(0.707106781186547524)
    x = m - _F32(1)
    x += m * small  # 2m - 1 when m is small: exact
    e -= small
    x64 = x.astype(_F64)
    t = x64 * _LOG_P[0]
    y = np.empty_like(x)
    np.add(t, _LOG_P[1], out=y, casting="unsafe")
    for p in _LOG_P[2:]:  # fused: float64 product and sum, one rounding
        np.multiply(x64, y, out=t)
        np.add(t, p, out=y, casting="unsafe")
    y *= x
    z = x * x
    np.multiply(y, z, out=t, dtype=_F64)
    np.add(t, e * _F32(-2.12194440e-4), out=y, casting="unsafe")
    z *= _F32(-0.5)  # fma(z, -0.5, y): z / 2 is exact
    y += z
    y += x
    e *= _F32(0.693359375)  # fma(e, ln2_hi, y): e is a small integer, the product exact
    y += e
    return y


def _sincos_avx2(t):
    """torch's AVX2 sincos256_ps on float32 t in [0, 2 pi]: new float32 arrays (sin, cos)."""
    j = (t * _F32(1.27323954473516)).astype(_I32)
    j += 1
    j &= ~1
    y = j.astype(_F32)
    x = y * _F32(-0.78515625)  # y <= 8: this product and the next are exact in float32
    x += t
    x += y * _F32(-2.4187564849853515625e-4)
    acc = y.astype(_F64)
    acc *= _F64(_F32(-3.77489497744594108e-8))
    acc += x
    x[...] = acc
    x64 = x.astype(_F64)
    z = x * x
    z64 = z.astype(_F64)
    c = np.empty_like(z)
    np.multiply(z64, _COS_P[0], out=acc)
    np.add(acc, _COS_P[1], out=c, casting="unsafe")
    np.multiply(z64, c, out=acc)
    np.add(acc, _COS_P[2], out=c, casting="unsafe")
    c *= z
    np.multiply(z64, c, out=acc)
    np.subtract(acc, z * _F32(0.5), out=c, casting="unsafe")
    c += _F32(1)
    s = np.empty_like(z)
    np.multiply(z64, _SIN_P[0], out=acc)
    np.add(acc, _SIN_P[1], out=s, casting="unsafe")
    np.multiply(z64, s, out=acc)
    np.add(acc, _SIN_P[2], out=s, casting="unsafe")
    s *= z
    np.multiply(x64, s, out=acc)
    np.add(acc, x64, out=s, casting="unsafe")
    sb, cb = s.view(_I32), c.view(_I32)
    d = sb ^ cb
    d &= -((j >> 1) & 1)  # j & 2: the polynomials trade places
    sb ^= d
    cb ^= d
    sb ^= (j & 4) << 29  # sin's sign
    j -= 2
    np.invert(j, out=j)
    j &= 4
    j <<= 29
    cb ^= j  # cos's sign
    return s, c


_CHUNK = 4096  # blocks of 16 per pass of the float32 kernel: its temporaries stay in cache


def _box_muller_blocks(u, kind: str):
    """normal_fill_16 on rows of 16 uniforms (a (blocks, 16) array): unit normals."""
    a, b = u[:, :8], u[:, 8:]
    if kind == "float64":
        radius = np.sqrt(-2.0 * _log_libm(1.0 - a))
        theta = (2.0 * math.pi) * b
        return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    out = np.empty(u.shape, dtype=_F32)
    for lo in range(0, u.shape[0], _CHUNK):
        hi = lo + _CHUNK
        r = _log_avx2((_F32(1) - a[lo:hi]).ravel())
        r *= _F32(-2)
        np.sqrt(r, out=r)
        sin, cos = _sincos_avx2((_F32(2.0 * math.pi) * b[lo:hi]).ravel())
        rows = r.reshape(-1, 8)
        np.multiply(rows, cos.reshape(-1, 8), out=out[lo:hi, :8])
        np.multiply(rows, sin.reshape(-1, 8), out=out[lo:hi, 8:])
    return out


def normal_fill(s: TorchStream, n: int, kind: str, mean: float, std: float) -> np.ndarray:
    """normal_(mean, std) of a contiguous tensor of n >= 16 elements (torch's vectorised path):
    float64 or float32 values, before the cast to `kind`."""
    if kind in _DIGITS and kind not in ("float64", "float32"):
        # float16 / bfloat16: float32 uniforms padded to whole blocks with fresh draws; the
        # padded last block gives the last 16 elements
        kind = "float32"
        u = unit_uniform(s, -(-n // 16) * 16, kind)
    else:
        u = unit_uniform(s, n, kind)
    whole = n // 16 * 16
    if whole == n:
        return _scaled(_box_muller_blocks(u.reshape(-1, 16), kind).reshape(-1), kind, mean, std)
    # The tail: the last 16 elements recomputed from 16 uniforms (fresh ones for float32 / 64),
    # transformed with the whole blocks in one pass (the kernel's cost is per call, not per row)
    tail = u[whole:] if u.size > n else unit_uniform(s, 16, kind)
    rows = np.concatenate([u[:whole], tail]).reshape(-1, 16)
    blocks = _box_muller_blocks(rows, kind)
    out = np.concatenate([blocks[:-1].reshape(-1)[: n - 16], blocks[-1]])
    return _scaled(out, kind, mean, std)


def _scaled(out, kind, mean, std):
    """Unit normals out as normal(mean, std) values, as torch's kernel scales them."""
    if mean == 0 and std == 1:
        return out
    if kind == "float64":
        # (std 0 takes the fma: 0. * a negative normal is -0., torch's values are +0.)
        return out * std if mean == 0 and std != 0 else _fma64(out, std, mean)
    return _fma32(out, _F32(std), _F32(mean))


def normal_serial(s: TorchStream, n: int, mean: float, std: float) -> np.ndarray:
    """n draws of normal_distribution<double>(mean, std): float64 values, in order, using and
    refilling the generator's cached normal."""
    z = np.empty(n, dtype=_F64)
    start = 0
    if n and s.normal_double is not None:
        z[0] = s.normal_double
        s.normal_double = None
        start = 1
    rest = n - start
    if 0 < rest <= 32:  # few values: Python floats cost less than array operations
        z[start:] = _normal_pairs(s, rest)
    elif rest:
        pairs = (rest + 1) // 2
        u = (s.words64(2 * pairs) & _U64((1 << 53) - 1)).astype(_F64) * _F64(2.0**-53)
        u1, u2 = u[0::2], u[1::2]
        r = np.sqrt(-2.0 * _log1p_neg(u2))
        theta = 2.0 * math.pi * u1
        cos, sin = r * np.cos(theta), r * np.sin(theta)
        both = np.empty(2 * pairs, dtype=_F64)
        both[0::2], both[1::2] = cos, sin
        z[start:] = both[:rest]
        if rest % 2:
            s.normal_double = float(sin[-1])
    if mean == 0 and std == 1:
        return z
    return z * std if mean == 0 and std != 0 else _fma64(z, std, mean)  # (std 0: +0.)


def _normal_pairs(s: TorchStream, rest: int) -> list:
    """normal_serial's Box-Muller pairs in Python floats (the same operations, libm's)."""
    it = iter(s.words(4 * ((rest + 1) // 2)).tolist())
    log1p, sqrt, cos, sin = math.log1p, math.sqrt, math.cos, math.sin
    scale, two_pi = 2.0**-53, 2.0 * math.pi
    out = []
    put = out.append
    for a, b, c, d in zip(it, it, it, it, strict=True):  # random64(): high word << 32 | low
        t = two_pi * (((a & 0x1FFFFF) << 32 | b) * scale)
        r = sqrt(-2.0 * log1p(-(((c & 0x1FFFFF) << 32 | d) * scale)))
        put(r * cos(t))
        put(r * sin(t))
    if rest % 2:
        s.normal_double = out.pop()
    return out


def log_normal(s: TorchStream, n: int, mean: float, std: float) -> np.ndarray:
    return _libm(math.exp, normal_serial(s, n, mean, std))


# --- other continuous distributions (float64 math, serial) ---


def exponential(s: TorchStream, n: int, lambd: float) -> np.ndarray:
    u = unit_uniform(s, n, "float64")
    return (-1.0 / lambd) * _log1p_neg(u)


def cauchy(s: TorchStream, n: int, median: float, sigma: float) -> np.ndarray:
    u = unit_uniform(s, n, "float64")
    return _fma64(sigma, _libm(math.tan, math.pi * (u - 0.5)), median)


def geometric(s: TorchStream, n: int, p: float) -> np.ndarray:
    u = unit_uniform(s, n, "float64")
    with np.errstate(divide="ignore"):
        return np.ceil(_log_libm(u, _log_or_inf) / math.log(1.0 - p))


def _log_or_inf(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf
