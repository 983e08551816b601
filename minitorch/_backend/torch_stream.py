"""PyTorch's CPU random stream, number for number: its mt19937 engine (seeded, stepped and saved
as torch's CPUGeneratorImpl is) and the transformations its CPU kernels apply to the engine's
words (uniform, normal, integers, permutations, Bernoulli, exponential, ...).

The engine's words come from NumPy's MT19937 (the same algorithm, one C call for many words);
the transformations are array operations that reproduce torch's per-element arithmetic, its
order of draws and its size-dependent paths (NOTE [ torch's CPU streams ]). Backend layer: NumPy
only, host arrays in and out.
"""

from __future__ import annotations

import math
import struct

import numpy as np

# NOTE [ torch's CPU streams ]
# The engine: mt19937 initialised from the low 32 bits of the uint64 seed (init_genrand);
# random() is one 32-bit word, random64() two words, the first the high half. What each op makes
# of them (torch 2.x, checked number for number against torch on this machine):
#   uniform_(a, b)  float64: 53 bits of random64(); float32: 24 bits of random(); float16 and
#                   bfloat16: 11 / 8 bits of random(), computed in float32: u * (b - a) + a
#   normal_         n >= 16 and contiguous: all n uniforms first (dtype's bits), then Box-Muller
#                   over blocks of 16 (u1 = 1 - u[j], u2 = u[j + 8], j < 8: cos half, sin
#                   half); a tail that is not a whole block draws 16 fresh uniforms and
#                   recomputes the last 16 elements. float32 runs torch's AVX2 kernel, whose
#                   log / sincos are Cephes polynomials with fused multiply-adds, emulated here
#                   step by step; float64 uses libm's log, cos, sin.
#                   Otherwise (n < 16, strided): one normal_distribution<double> per element,
#                   Box-Muller on two random64() uniforms that returns r cos(t) and keeps r sin(t)
#                   for the next call (the generator's cached normal, part of its state).
#   random_ / randint: random() % range + from, random64() when the range needs 64 bits
#   randperm        for i < n - 1: swap a[i] with a[i + random() % (n - i)]
#   bernoulli_(p)   u < p with a float64 uniform (torch's default kernel; see the Generator's
#                   docstring for MKL builds on Intel CPUs); bernoulli(p tensor) uses a float32
#                   uniform unless p is float64
#   exponential_    -1/lambda * log1p(-u); cauchy_ median + sigma * tan(pi (u - 1/2));
#   geometric_      ceil(log(u) / log(1 - p)); log_normal_ exp(normal_distribution<double>)
# libm's log / log1p / exp / tan differ from NumPy's SIMD versions in the last bit for a few
# values in a thousand, so log1p / exp / tan go through Python's math module (libm) element by
# element; log is computed in NumPy and checked (NOTE [ libm's log without a call per element ]).

_N = 624  # mt19937's state words
_MASK64 = (1 << 64) - 1
_U64 = np.uint64
_F32 = np.float32
_F64 = np.float64

# torch's CPUGeneratorImplState: the_initial_seed, left, seeded, next, state[624] (uint64 each),
# normal_x, normal_y, normal_rho, normal_is_valid (+4 padding), next_float_normal_sample,
# is_next_float_normal_sample_valid (+3 padding): 5056 bytes
_STATE = struct.Struct("<QiiQ624QdddiIf?3x")
STATE_SIZE = _STATE.size


def _init_genrand(seed32: int) -> np.ndarray:
    key = [seed32]
    for j in range(1, _N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class TorchStream:
    """One CPU generator's stream: the engine, its initial seed and the cached normal samples.

    The array methods below return NumPy host arrays; `wrap` / `unwrap` let a backend whose
    arrays are NumPy arrays in disguise (the strict test device) use the same stream."""

    __slots__ = ("seed", "_bg", "_next_at_end", "normal_double", "normal_float", "wrap", "unwrap")

    def __init__(self, seed: int, wrap=None, unwrap=None):
        self.seed = seed
        self._bg = np.random.MT19937(0)
        legacy = getattr(self._bg, "_legacy_seeding", None)
        if legacy is not None:
            legacy(seed & 0xFFFFFFFF)
        else:  # pragma: no cover - NumPy without the private helper
            self._set_engine(_init_genrand(seed & 0xFFFFFFFF), _N)
        self._next_at_end = 0  # torch's `next` field while the engine is due to regenerate
        self.normal_double = None  # the cached second Box-Muller value (a float) or None
        self.normal_float = None  # torch's float cache: kept in the state, never drawn on CPU
        self.wrap = wrap if wrap is not None else _same
        self.unwrap = unwrap if unwrap is not None else _same

    def _set_engine(self, key, pos: int) -> None:
        self._bg.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.asarray(key, dtype=np.uint32), "pos": pos},
        }

    def copy(self) -> TorchStream:
        new = TorchStream.__new__(TorchStream)
        new.seed = self.seed
        new._bg = np.random.MT19937(0)
        new._bg.state = self._bg.state
        new._next_at_end = self._next_at_end
        new.normal_double = self.normal_double
        new.normal_float = self.normal_float
        new.wrap, new.unwrap = self.wrap, self.unwrap
        return new

    # --- the engine ---

    def words(self, n: int) -> np.ndarray:
        """n outputs of random() (32-bit values in a uint64 array)."""
        if n <= 0:
            return np.zeros(0, dtype=_U64)
        self._next_at_end = _N
        return self._bg.random_raw(n)

    def words64(self, n: int) -> np.ndarray:
        """n outputs of random64(): two words each, the first the high half."""
        w = self.words(2 * n)
        return (w[0::2] << _U64(32)) | w[1::2]

    def numpy_generator(self) -> np.random.Generator:
        """A NumPy Generator seeded from four words of this stream: for the samplers that have
        no torch-exact transformation here (gamma, binomial, poisson): reproducible, not
        torch's numbers."""
        w = [int(v) for v in self.words(4)]
        seed = w[0] << 96 | w[1] << 64 | w[2] << 32 | w[3]
        return np.random.Generator(np.random.PCG64(seed))

    def random(self, size=None):
        """NumPy Generator.random's signature (float64 on [0, 1), torch's 53-bit uniforms):
        for the library's own uses of a backend stream (gradcheck's random vectors)."""
        shape = () if size is None else (size,) if isinstance(size, int) else tuple(size)
        n = math.prod(shape)
        u = (self.words64(n) & _U64((1 << 53) - 1)).astype(_F64) * _F64(2.0**-53)
        return self.wrap(u.reshape(shape))

    # --- torch's state bytes ---

    def get_state(self) -> bytes:
        st = self._bg.state["state"]
        pos = int(st["pos"])
        if pos >= _N:
            left, next_ = 1, self._next_at_end
        else:
            left, next_ = _N + 1 - pos, pos
        nd = self.normal_double
        nf = self.normal_float
        return _STATE.pack(
            self.seed,
            left,
            1,
            next_,
            *[int(v) for v in st["key"]],
            0.0,
            0.0 if nd is None else nd,
            0.0,
            0 if nd is None else 1,
            0,
            0.0 if nf is None else nf,
            nf is not None,
        )

    def set_state(self, data: bytes) -> None:
        """Loads torch's 5056-byte state (validated as torch does: RuntimeError)."""
        if len(data) != STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG "
                f"state size to be {len(data)}"
            )
        fields = _STATE.unpack(data)
        seed, left, seeded, next_ = fields[:4]
        key = np.array(fields[4 : 4 + _N], dtype=_U64).astype(np.uint32)  # torch keeps 32 bits
        _, normal_y, _, normal_valid, _, float_sample, float_valid = fields[4 + _N :]
        if not (seeded != 0 and 0 < left <= _N and (next_ & 0xFFFFFFFF) <= _N):
            raise RuntimeError("Invalid mt19937 state")
        next_ &= 0xFFFFFFFF
        self.seed = seed
        self._set_engine(key, _N if left == 1 else next_)
        self._next_at_end = next_
        self.normal_double = normal_y if normal_valid else None
        self.normal_float = float(float_sample) if float_valid else None

    def restart_from(self, data: bytes, seed: int) -> None:
        """A fresh engine whose 624 words are derived from `data` (NumPy's SeedSequence, a
        stable algorithm): the same bytes always give the same stream; `seed` is kept as the
        initial seed. For states that are not torch's (NOTE [ RNG state bytes ])."""
        words = np.random.SeedSequence(int.from_bytes(data, "little")).generate_state(_N)
        self.seed = seed
        self._set_engine(words, _N)
        self._next_at_end = 0
        self.normal_double = self.normal_float = None


def _same(x):
    return x


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


def _fma64(a, b, c):
    """a * b + c rounded once (torch's compiled kernels fuse it), from error-free transforms."""
    a = np.asarray(a, _F64)
    p = a * b
    c = np.asarray(c, _F64)
    split = 134217729.0
    t = split * a
    ah = t - (t - a)
    al = a - ah
    t = split * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    return s + (err + e)


def _fma32(a, b, c):
    """float32 a * b + c: one float64 multiply-add, rounded to float32 (NOTE [ float32 fused
    multiply-add ])."""
    return (np.asarray(a, _F64) * _F64(b) + np.asarray(c, _F64)).astype(_F32)


# --- uniform ---

_DIGITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


def unit_uniform(s: TorchStream, n: int, kind: str) -> np.ndarray:
    """uniform_real_distribution<T>(0, 1) n times: float64 for 'float64', else float32."""
    if kind == "float64":
        return (s.words64(n) & _U64((1 << 53) - 1)).astype(_F64) * _F64(2.0**-53)
    d = _DIGITS[kind]
    return (s.words(n) & _U64((1 << d) - 1)).astype(_F32) * _F32(2.0**-d)


def uniform(s: TorchStream, n: int, kind: str, lo: float, hi: float, npdt) -> np.ndarray:
    """uniform_(lo, hi) of n elements of dtype `kind` (NumPy dtype npdt): u * (hi - lo) + lo
    fused, in float64 for float64 and float32 otherwise; a value that rounds to `hi` is
    replaced by `lo`, as torch does."""
    if lo == 0 and hi == 1 and kind in ("float64", "float32"):  # rand: u itself, below 1
        return unit_uniform(s, n, kind).astype(npdt, copy=False)
    if kind == "float64":
        out = _fma64(unit_uniform(s, n, kind), hi - lo, lo)
    else:
        a, b = _F32(lo), _F32(hi)
        out = _fma32(unit_uniform(s, n, "float32"), b - a, a)
    out = out.astype(npdt, copy=False)
    top, bottom = np.asarray([hi, lo]).astype(npdt)
    return np.where(out == top, bottom, out) if top != bottom else out


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
    out = np.empty(n, dtype=u.dtype)
    out[:whole] = _box_muller_blocks(u[:whole].reshape(-1, 16), kind).reshape(-1)
    if whole != n:  # the tail: recomputed from 16 uniforms (fresh ones for float32 / 64)
        tail = u[whole:] if u.size > n else unit_uniform(s, 16, kind)
        out[n - 16 :] = _box_muller_blocks(tail.reshape(1, 16), kind)[0]
    if mean == 0 and std == 1:
        return out
    if kind == "float64":
        return out * std if mean == 0 else _fma64(out, std, mean)
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
        r = np.sqrt(-2.0 * _libm(math.log1p, -u2))
        theta = 2.0 * math.pi * u1
        cos, sin = r * np.cos(theta), r * np.sin(theta)
        both = np.empty(2 * pairs, dtype=_F64)
        both[0::2], both[1::2] = cos, sin
        z[start:] = both[:rest]
        if rest % 2:
            s.normal_double = float(sin[-1])
    if mean == 0 and std == 1:
        return z
    return z * std if mean == 0 else _fma64(z, std, mean)


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
    return (-1.0 / lambd) * _libm(math.log1p, -u)


def cauchy(s: TorchStream, n: int, median: float, sigma: float) -> np.ndarray:
    u = unit_uniform(s, n, "float64")
    return _fma64(sigma, _libm(math.tan, math.pi * (u - 0.5)), median)


def geometric(s: TorchStream, n: int, p: float) -> np.ndarray:
    u = unit_uniform(s, n, "float64")
    with np.errstate(divide="ignore"):
        return np.ceil(_log_libm(u, _log_or_inf) / math.log(1.0 - p))


def _log_or_inf(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


# --- integers ---

_FULL_WIDTH = ("int64", "float64", "float32", "bfloat16")  # the dtypes random64() can fill


def random_from_to(s: TorchStream, n: int, span: int, base: int, kind: str) -> np.ndarray:
    """random_(base, base + span): int64 values (uint64 arithmetic wrapped, as torch's)."""
    if kind in _FULL_WIDTH and span >= 1 << 32:
        w = s.words64(n)
    else:
        w = s.words(n)
    if span >= 1 << 64:  # the full int64 range: random64() read as an int64
        return w.view(np.int64)
    return ((w % _U64(span)) + _U64(base & _MASK64)).view(np.int64)


_NO_BOUNDS = {
    "float64": (1 << 53) + 1,
    "float32": (1 << 24) + 1,
    "float16": (1 << 11) + 1,
    "bfloat16": (1 << 8) + 1,
    "int64": 1 << 63,
    "int32": 1 << 31,
    "int16": 1 << 15,
    "int8": 1 << 7,
    "uint8": 1 << 8,
    "bool": 2,
}


def random_default(s: TorchStream, n: int, kind: str) -> np.ndarray:
    """random_() without bounds: [0, 2^digits] for floats, [0, max] for integers (int64)."""
    w = s.words64(n) if kind in ("float64", "int64") else s.words(n)
    return (w % _U64(_NO_BOUNDS[kind])).view(np.int64)


def randperm(s: TorchStream, n: int) -> np.ndarray:
    """torch's CPU randperm: a[i] <-> a[i + random() % (n - i)] for i < n - 1 (int64), replayed
    without a loop (NOTE [ randperm without the swap loop ])."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    m = n - 1
    z = s.words(m) % np.arange(n, 1, -1, dtype=_U64)
    return _swaps_result(z.view(np.int64), n)


# NOTE [ randperm without the swap loop ]
# Step i of torch's loop swaps positions i and j_i = i + z_i (j_i >= i), after which position i
# is final. Let v[i] be what position i holds just before step i. A position p >= i has been
# written only by the steps k < i with j_k = p, each leaving v[k] there; so
#   v[t]     = v[k] for the last k < t with j_k = t (t's "parent"), or t when there is none
#   out[i]   = v[k] for the last k < i with j_k = j_i, or j_i when there is none
#   out[n-1] = v[n-1]
# Each k is the parent of at most one t (t = j_k), so parents form disjoint chains and v is the
# chain's root: pointer jumping finds it in log(chain length) rounds. "The last k < i with the
# same j" is the previous element of a sort by (j, k). torch switches to another algorithm
# (inside-out, random64()) from n = 2^32 / 20 on, sizes this replay does not reach in memory.


def _swaps_result(z: np.ndarray, n: int) -> np.ndarray:
    """The permutation torch's swap loop leaves for offsets z (int64, z[i] < n - i)."""
    m = n - 1
    k = np.arange(m, dtype=np.int64)
    key = z + k  # j
    key *= n
    key += k
    key.sort()  # by j, then k
    js = key // n
    ks = key - js * n
    same = np.empty(m, dtype=bool)  # same[p]: sorted element p - 1 has the same j
    same[0] = False
    np.equal(js[1:], js[:-1], out=same[1:])
    last = np.flatnonzero(np.append(~same[1:], True))  # the last element of each j's group
    t = js[last]
    parent = ks[last]
    own = parent == t  # the last step into t is t's own step (j_t = t): take the one before
    if own.any():
        at = last[own]
        parent[own] = np.where(same[at], ks[at - 1], -1)
    has = parent >= 0
    root = np.arange(n, dtype=np.int64)
    act = t[has]
    root[act] = parent[has]
    while act.size:  # pointer jumping: root[x] moves up its chain until it reaches the root
        up = root[act]
        upup = root[up]
        moved = upup != up
        act = act[moved]
        root[act] = upup[moved]
    vals = js  # out[k] for the sorted elements: j, or v of the previous element of the group
    rep = np.flatnonzero(same)
    vals[rep] = root[ks[rep - 1]]
    out = np.empty(n, dtype=np.int64)
    out[ks] = vals
    out[m] = root[m]
    return out


def bernoulli_scalar(s: TorchStream, n: int, p: float) -> np.ndarray:
    """bernoulli_(p) of n elements (torch's default CPU kernel): bool array."""
    return unit_uniform(s, n, "float64") < p


def bernoulli_tensor(s: TorchStream, p: np.ndarray) -> np.ndarray:
    """bernoulli with a probability per element (p's flat order): bool array of p's shape."""
    if p.dtype == _F64:
        return (unit_uniform(s, p.size, "float64") < p.ravel()).reshape(p.shape)
    return (unit_uniform(s, p.size, "float32") < p.ravel().astype(_F32)).reshape(p.shape)


# --- multinomial ---

# NOTE [ torch's multinomial ]
# Without replacement, or one sample: q = empty_like(p).exponential_() (float64 draws cast to
# p's dtype, filled in q's memory order: a transposed p gives a transposed q), keys p / q in p's
# dtype, then argmax (one sample) or topk(keys, k): the k largest keys, largest first. Keys that
# are all distinct (and the k-th above the (k+1)-th) leave one possible answer, computed by
# sorting; otherwise (ties: zero weights when k exceeds the positive ones, equal keys in
# float16; NaN keys, which rank above all) the row goes through libstdc++'s algorithms as
# torch's topk calls them (NOTE [ libstdc++'s selection on ties ]).
# With replacement and k > 1: per row, the running sum of p in p's dtype (float32 for float16
# and bfloat16), divided by the total, the last entry set to 1; then k float64 uniforms, each
# placed at the first index whose cumulative value is >= u (a binary search).


def multinomial(s: TorchStream, p: np.ndarray, k: int, replacement: bool, transposed=False):
    """torch's CPU multinomial of the rows of p (a 2-d host array of a float dtype, checked):
    an int64 array (rows, k). transposed: p's memory is column-major (NOTE above)."""
    rows, n = p.shape
    if rows == 0:
        return np.zeros((0, k), dtype=np.int64)
    if replacement and k > 1:
        acc = _F64 if p.dtype == _F64 else _F32
        cum = np.cumsum(p, axis=1, dtype=acc)  # sequential, as torch's loop
        cum /= cum[:, -1:]
        cum[:, -1] = 1
        u = unit_uniform(s, rows * k, "float64").reshape(rows, k)
        if rows <= 16:
            return np.stack([np.searchsorted(cum[r], u[r]) for r in range(rows)])
        return _lower_bound_rows(cum, u)
    q = exponential(s, p.size, 1.0)
    if p.dtype != _F64:
        q = q.astype(_F32)  # torch's cast of a double to half / bfloat16 goes through float
    q = q.astype(p.dtype, copy=False)
    q = q.reshape((n, rows)).T if transposed else q.reshape(rows, n)
    keys = (p / q).astype(_F64)  # p's dtype's quotient, widened exactly for the comparisons
    if k == 1:
        return np.argmax(keys, axis=1).reshape(rows, 1)  # the first largest (a NaN first)
    return _topk_rows(keys, k)


def _lower_bound_rows(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each row r: the first index i with cum[r, i] >= u[r, j], for all j (vectorised)."""
    rows, n = cum.shape
    flat = cum.ravel()
    base = (np.arange(rows, dtype=np.int64) * n)[:, None]
    left = np.zeros(u.shape, dtype=np.int64)
    right = np.full(u.shape, n, dtype=np.int64)
    while True:
        open_ = left < right
        if not open_.any():
            return left
        mid = (left + right) >> 1
        below = flat[base + np.minimum(mid, n - 1)] < u
        left = np.where(open_ & below, mid + 1, left)
        right = np.where(open_ & ~below, mid, right)


def _topk_rows(keys: np.ndarray, k: int) -> np.ndarray:
    """torch's topk(keys, k).indices per row (float64 keys)."""
    rows, n = keys.shape
    kk = min(k + 1, n)  # the k-th must also be above the (k+1)-th
    if kk < n and kk * 8 < n:
        part = np.argpartition(-keys, kk - 1, axis=1)[:, :kk]
        order = np.take_along_axis(part, np.argsort(-np.take_along_axis(keys, part, 1), 1), 1)
    else:
        order = np.argsort(-keys, axis=1, kind="stable")[:, :kk]
    top = np.take_along_axis(keys, order, 1)
    clear = (top[:, :-1] > top[:, 1:]).all(axis=1)  # False for NaN too
    out = order[:, :k].copy()
    for r in np.flatnonzero(~clear).tolist():
        ranks = np.unique(keys[r], return_inverse=True)[1].ravel()  # NaN: the top rank
        out[r] = _stl_topk(ranks.tolist(), k)
    return out


# NOTE [ libstdc++'s selection on ties ]
# torch's CPU topk puts (key, index) pairs in a vector and, with `a > b` on keys as the order,
# calls std::partial_sort(first, first + k, last) when 64 k <= n, else
# std::nth_element(first, first + k - 1, last) followed by std::sort(first, first + k - 1). Which
# of several equal keys comes out where is fixed by libstdc++'s algorithms (median-of-three
# introselect / introsort with a final insertion sort, heap select + heap sort): the functions
# below replay them on integer ranks of the keys (equal keys, equal ranks), step for step.


def _stl_topk(ranks: list, k: int) -> list:
    n = len(ranks)
    a = list(zip(ranks, range(n), strict=True))
    if k * 64 <= n:
        _heap_select(a, 0, k, n)
        _sort_heap(a, 0, k)
    else:
        _nth_element(a, k - 1, n)
        _std_sort(a, 0, k - 1)
    return [i for _, i in a[:k]]


def _move_median_to_first(a, res, i, j, m):
    x, y, z = a[i][0], a[j][0], a[m][0]
    if x > y:
        pick = j if y > z else (m if x > z else i)
    else:
        pick = i if x > z else (m if y > z else j)
    a[res], a[pick] = a[pick], a[res]


def _partition_pivot(a, first, last):
    _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1)
    pivot = a[first][0]
    lo, hi = first + 1, last
    while True:
        while a[lo][0] > pivot:
            lo += 1
        hi -= 1
        while pivot > a[hi][0]:
            hi -= 1
        if lo >= hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _linear_insert(a, last):
    val = a[last]
    while val[0] > a[last - 1][0]:
        a[last] = a[last - 1]
        last -= 1
    a[last] = val


def _insertion_sort(a, first, last):
    for i in range(first + 1, last):
        if a[i][0] > a[first][0]:
            val = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i)


def _adjust_heap(a, first, hole, length, value):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] > a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] > value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a, first, middle, last):
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _adjust_heap(a, first, parent, length, a[first + parent])
    for i in range(middle, last):
        if a[i][0] > a[first][0]:  # pop the heap's top into i
            value = a[i]
            a[i] = a[first]
            _adjust_heap(a, first, 0, length, value)


def _sort_heap(a, first, last):
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value)


def _std_sort(a, first, last):
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * ((last - first).bit_length() - 1))
    if last - first > 16:
        _insertion_sort(a, first, first + 16)
        for i in range(first + 16, last):
            _linear_insert(a, i)
    else:
        _insertion_sort(a, first, last)


def _introsort_loop(a, first, last, depth):
    while last - first > 16:
        if depth == 0:
            _heap_select(a, first, last, last)
            _sort_heap(a, first, last)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _nth_element(a, nth, last):
    first = 0
    if nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)
