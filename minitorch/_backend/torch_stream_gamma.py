"""torch's CPU gamma sampler on a TorchStream, number for number: the draws behind
_standard_gamma and _sample_dirichlet (so Gamma, Chi2, Beta and Dirichlet samples). See
NOTE [ torch's CPU streams ] in torch_stream.py.

NOTE [ torch's gamma draws ]
Marsaglia and Tsang's rejection method (2000), one element after another in C order, every
uniform a float64 one (53 bits of random64()) and every normal one normal_distribution<double>
(Box-Muller with the generator's cached second value). A concentration a below 1 is first
boosted: one uniform u gives the factor (1 - u)^(1 / a), and a becomes a + 1 (a == 0: the
sample is 0, no draws). Then d = a - 1/3, with 1/3 the float32 constant (in float64 too: checked
number for number against torch), c = 1 / sqrt(9 d), and until accepted: normals x until
y = 1 + c x is not <= 0 (a NaN y ends that loop), v = y^3, u = 1 - uniform, accept when
u < 1 - 0.0331 x^4 or log(u) < x^2 / 2 + d (1 - v + log v); the sample is factor * d * v.
For float32 concentrations the boost (1 / a, a + 1) and a - 1/3 are float32 arithmetic, the rest
float64, and the sample is rounded to float32. A NaN concentration is accepted at once with a
NaN sample (the caller's clamp to the smallest normal turns it into that, as torch's std::max).
The words are read from one block drawn ahead; the engine is then rewound and stepped by the
number actually used. From _FAST_MIN elements on the draws are vectorised (NOTE [ gamma draws
without a loop per element ]; a constant or short-period concentration: NOTE [ gamma draws of a
periodic concentration ]): the same numbers bit for bit and the same stream position
(tests/test_s25_gamma.py compares the routines element by element).
"""

from __future__ import annotations

import math

import numpy as np

from minitorch._backend.torch_stream import TorchStream

_THIRD32 = float(np.float32(1.0) / np.float32(3.0))
_K = float(np.float32(0.0331))
_SCALE53 = 2.0**-53
_MASK21 = (1 << 21) - 1


class _Reader:
    """The stream's words as Python ints, drawn in blocks; `finish` leaves the engine where a
    word-by-word reader would have left it."""

    def __init__(self, s: TorchStream, hint: int):
        self.s = s
        self.start = s._bg.state
        self.start_next = s._next_at_end
        self.block = max(64, hint)
        self.buf: list = []
        self.pos = 0
        self.used = 0

    def uniform(self) -> float:
        """uniform_real_distribution<double>(0, 1): random64()'s low 53 bits * 2^-53."""
        if self.pos + 2 > len(self.buf):
            self.buf = self.buf[self.pos :] + self.s.words(self.block).tolist()
            self.pos = 0
        hi, lo = self.buf[self.pos], self.buf[self.pos + 1]
        self.pos += 2
        self.used += 2
        return ((hi & _MASK21) << 32 | lo) * _SCALE53

    def finish(self) -> None:
        s = self.s
        s._bg.state = self.start
        s._next_at_end = self.start_next
        s.words(self.used)


def standard_gamma(s: TorchStream, alpha: np.ndarray, float32: bool) -> np.ndarray:
    """One Gamma(a, 1) draw per element of alpha (C order), as float64 values before torch's
    rounding to the dtype and its clamp (NOTE [ torch's gamma draws ]); float32: alpha is a
    float32 array and the float32 steps are taken. Speculative and vectorised from
    _FAST_MIN elements on (NOTE [ gamma draws without a loop per element ]), the same numbers
    and stream position as standard_gamma_scalar."""
    flat = np.ascontiguousarray(alpha).ravel()
    out = None
    if flat.size >= _FAST_MIN:
        period = _period(flat)
        if period:
            out = _standard_gamma_periodic(s, flat, float32, period)
        else:
            out = _standard_gamma_fast(s, flat, float32)
    if out is None:
        out = standard_gamma_scalar(s, flat, float32)
    return out.reshape(np.shape(alpha))


def standard_gamma_scalar(s: TorchStream, alpha: np.ndarray, float32: bool) -> np.ndarray:
    """standard_gamma element by element in Python floats: the reference the fast path is
    checked against (and the path for few elements)."""
    flat = np.ascontiguousarray(alpha).ravel()
    out = np.empty(flat.size, dtype=np.float64)
    rd = _Reader(s, 8 * flat.size)
    uniform = rd.uniform
    cached = s.normal_double
    with np.errstate(all="ignore"):  # float32 1 / a of a subnormal a: inf, as in C
        for i, a in enumerate(flat.tolist()):
            out[i], cached = _one(a, float32, uniform, cached)
    s.normal_double = cached
    rd.finish()
    return out.reshape(np.shape(alpha))


def _one(a: float, float32: bool, uniform, cached):
    """One element's draw: (sample, the cached normal after it)."""
    factor = 1.0
    if a < 1.0:
        if a == 0.0:
            return 0.0, cached
        f32 = np.float32
        inv = float(f32(1.0) / f32(a)) if float32 else 1.0 / a
        factor = _pow(1.0 - uniform(), inv)
        a = float(f32(a) + f32(1.0)) if float32 else a + 1.0
    d = float(np.float32(a) - np.float32(_THIRD32)) if float32 else a - _THIRD32
    return _accept(uniform, d, factor, cached)


def _pow(base: float, e: float) -> float:
    """C's pow for base in (0, 1]: inf where Python's raises OverflowError."""
    try:
        return base**e
    except OverflowError:
        return math.inf


def _accept(uniform, d: float, factor: float, cached):
    """Marsaglia and Tsang's loop for d = a - 1/3: (sample, the cached normal after it)."""
    sqrt, log, log1p, cos, sin = math.sqrt, math.log, math.log1p, math.cos, math.sin
    two_pi = 2.0 * math.pi
    # C: 1 / sqrt(9 d) is inf at d = 0 and NaN below (a NaN y then ends the normals' loop)
    c = 1.0 / sqrt(9.0 * d) if d > 0 else math.inf if d == 0 else math.nan
    while True:
        while True:
            if cached is not None:
                x, cached = cached, None
            else:
                t = two_pi * uniform()
                r = sqrt(-2.0 * log1p(-uniform()))
                x, cached = r * cos(t), r * sin(t)
            y = 1.0 + c * x
            if not y <= 0.0:
                break
        v = y * y * y
        u = 1.0 - uniform()
        xx = x * x
        if u < 1.0 - _K * xx * xx:
            break
        if u > 0.0 and v > 0.0 and log(u) < 0.5 * xx + d * (1.0 - v + log(v)):
            break
    return factor * d * v, cached


# NOTE [ gamma draws without a loop per element ]
# Almost every element is accepted at its first try: [one uniform u0 when a < 1] + one normal +
# one uniform. Counting in slots of two words (one float64 uniform each), an element that finds
# the normals' cache empty (phase E) draws a Box-Muller pair at its slot p (angle U[p], radius
# U[p + 1]) and takes its cosine, then its uniform; one that finds it full (phase F) takes the
# sine of the pair drawn 3 slots before it starts (by the element before it, or by the last try
# of a rejected one, which also ends with a pair and one uniform). So from a known state (slot,
# phase) every following element's slots are cumulative sums of 3 + b (E) / 1 + b (F), b its
# boost, the phases alternating. The slots' uniforms, pairs (NumPy's log1p: only to decide) and
# squeeze tests are computed once for all slots in four variants (E/F x boost); a walk takes
# windows of elements from the known state, gathers their variant values, and stops at the first
# element the first try does not accept (y <= 0, or both the squeeze and the log test, done in
# Python floats for the squeeze's few failures). That element, and any concentration that is not
# finite and positive, is drawn by the scalar routine from its slot and cache; the walk
# continues from where it ends. At the end the accepted elements are recomputed with libm's
# values (log1p and pow element by element, cos / sin / sqrt NumPy's, equal to libm's) and
# their acceptance checked again; should any decision differ (the decisions used NumPy's log1p,
# which may differ in the last bit), the whole call is redone by the scalar routine.
_FAST_MIN = 24  # fewer elements: the scalar routine costs less
_TWO_PI = 2.0 * math.pi


def _slot_uniforms(words: np.ndarray) -> np.ndarray:
    """Each slot's (2 words') float64 uniform, as _Reader.uniform reads it."""
    u = ((words[0::2] & np.uint64(_MASK21)) << np.uint64(32) | words[1::2]).astype(np.float64)
    u *= _SCALE53
    return u


def _box_muller(u: np.ndarray, log_rest: np.ndarray):
    """The Box-Muller pair (r cos t, r sin t) started at every slot p: t = 2 pi u[p], r =
    sqrt(-2 log(1 - u[p + 1])) from log_rest = that log for u[1:] (NumPy's: to decide only)."""
    r = log_rest * -2.0
    np.sqrt(r, out=r)
    t = u[:-1] * _TWO_PI
    cos = np.cos(t)
    cos *= r
    sin = np.sin(t, out=t)
    sin *= r
    return cos, sin


class _Slots:
    """The stream's words from the call's start in slots of two (uniform U[p]), with the values
    the walk gathers: per variant (0: F, 1: F boosted, 2: E, 3: E boosted) and slot, the
    first try's normal x, its uniform u and whether the squeeze accepts it."""

    def __init__(self, s: TorchStream, n: int):
        self.s = s
        self.start = s._bg.state
        self.start_next = s._next_at_end
        self.words = np.zeros(0, dtype=np.uint64)
        self.n = 0
        self.extend(n)

    def extend(self, n: int) -> None:
        w = self.s.words(2 * n - self.words.size)
        self.words = np.concatenate([self.words, w]) if self.words.size else w
        self.n = n
        u = self.u = _slot_uniforms(self.words)
        self.u_list = None
        uu = 1.0 - u
        with np.errstate(all="ignore"):
            cos, sin = _box_muller(u, np.log1p(-u[1:]))
        # per variant: x, u and the squeeze's bound 1 - 0.0331 x^4 (NaN: no such slot)
        x = np.full((4, n), np.nan)
        uv = np.full((4, n), np.nan)
        x[0, 3:] = sin[: n - 3]
        x[2, :-1] = cos
        xx = x[0] * x[0]
        bound = xx * _K
        bound *= xx
        np.subtract(1.0, bound, out=bound)
        xx = x[2] * x[2]
        bound2 = xx * _K
        bound2 *= xx
        np.subtract(1.0, bound2, out=bound2)
        x[1] = x[0]
        x[3, :-1] = x[2, 1:]
        uv[0] = uu
        uv[1, :-1] = uu[1:]
        uv[2, :-2] = uu[2:]
        uv[3, :-3] = uu[3:]
        sq = np.empty((4, n), dtype=bool)
        with np.errstate(invalid="ignore"):
            np.less(uv[0], bound, out=sq[0])
            np.less(uv[1], bound, out=sq[1])
            np.less(uv[2], bound2, out=sq[2])
            sq[3, :-1] = uv[3, :-1] < bound2[1:]
            sq[3, -1] = False
        self.x, self.uv, self.sq = x.ravel(), uv.ravel(), sq.ravel()

    def uniform_at(self, p: int) -> float:
        if p >= self.n:
            self.extend(max(2 * self.n, p + 64))
        return float(self.u[p])

    def pair(self, p: int):
        """The Box-Muller pair at slot p in libm's arithmetic (the scalar routine's)."""
        t = _TWO_PI * self.uniform_at(p)
        r = math.sqrt(-2.0 * math.log1p(-self.uniform_at(p + 1)))
        return r * math.cos(t), r * math.sin(t)

    def finish(self, used: int) -> None:
        s = self.s
        s._bg.state = self.start
        s._next_at_end = self.start_next
        s.words(2 * used)


def _standard_gamma_fast(s: TorchStream, flat: np.ndarray, float32: bool):
    """standard_gamma's speculative path (NOTE [ gamma draws without a loop per element ]):
    the draws as float64 values, or None (stream untouched) when the scalar routine must redo
    the call."""
    f32 = np.float32
    out = np.zeros(flat.size, dtype=np.float64)
    idx = np.flatnonzero(flat != 0)  # a == 0: no draws, sample 0
    m = idx.size
    if m == 0:
        return out
    ak = flat[idx]
    with np.errstate(all="ignore"):
        ok = (ak > 0) & (ak < np.inf)
        boost = ok & (ak < 1)
        if float32:
            inv = (f32(1.0) / ak).astype(np.float64)
            d = (np.where(boost, ak + f32(1.0), ak) - f32(_THIRD32)).astype(np.float64)
        else:
            inv = 1.0 / ak
            d = np.where(boost, ak + 1.0, ak) - _THIRD32
        c = 1.0 / np.sqrt(9.0 * d)
        ok &= ~boost | (inv < np.inf)
    c[~ok] = np.nan  # y is NaN: the walk hands these to the scalar routine
    b = boost.astype(np.int64)
    even = (np.arange(m) & 1) == 0
    # alignment 0: the even elements are E; alignment 1: the odd ones
    var = [np.where(even, 2, 0) + b, np.where(even, 0, 2) + b]
    cs = []
    for v in var:
        inc = np.where(v >= 2, 3, 1) + b
        cs.append(np.concatenate([[0], np.cumsum(inc)]))
    slots = _Slots(s, int(cs[0][-1] * 1.08) + 64)
    keys = [v * slots.n + c_[:-1] for v, c_ in zip(var, cs, strict=True)]
    d_list, a_list = d.tolist(), ak.tolist()
    runs = []  # (first, end, alignment, shift): elements first..end-1 accepted at first try
    scalar_k, scalar_v = [], []
    k = pos = 0
    cache = s.normal_double  # the cached normal when known (None: the sine 3 slots back)
    phase_f = cache is not None  # the cache is full
    canonical = not phase_f  # a full cache holds the sine of the pair 3 slots back
    window = 64
    log = math.log

    def uniform():
        nonlocal pos
        pos += 1
        return slots.uniform_at(pos - 1)

    with np.errstate(all="ignore"):
        while k < m:
            fail = k
            if canonical:
                al = (k + phase_f) & 1  # alignment al: element j is E when j % 2 == al
                shift = pos - int(cs[al][k])
                end = min(m, k + window)
                while cs[al][end - 1] + shift + 3 >= slots.n:
                    slots.extend(slots.n + slots.n // 2 + 64)
                    keys = [v * slots.n + c_[:-1] for v, c_ in zip(var, cs, strict=True)]
                ix = keys[al][k:end] + shift
                x = slots.x[ix]
                y = c[k:end] * x
                y += 1.0
                good = slots.sq[ix]
                good &= y > 0
                fail = end
                for i in np.flatnonzero(~good).tolist():
                    yv = float(y[i])
                    if yv > 0:  # the squeeze failed: the log test
                        xv = float(x[i])
                        uv = float(slots.uv[ix[i]])
                        v = yv * yv * yv
                        dj = d_list[k + i]
                        if uv > 0 and v > 0 and log(uv) < 0.5 * xv * xv + dj * (1.0 - v + log(v)):
                            continue
                    fail = k + i
                    break
                if fail > k:
                    runs.append((k, fail, al, shift))
                    pos = int(cs[al][fail]) + shift
                    phase_f = (fail & 1) != al
                    cache = None
                if fail == end:
                    window = min(4096, 2 * window)
                    k = fail
                    continue
                window = max(32, 2 * (fail - k) + 16)
            # the scalar routine for element `fail` from slot pos with this cache
            if phase_f and cache is None:
                cache = slots.pair(pos - 3)[1]
            val, cache = _one(a_list[fail], float32, uniform, cache if phase_f else None)
            phase_f = cache is not None
            canonical = True
            scalar_k.append(fail)
            scalar_v.append(val)
            k = fail + 1
    if phase_f and cache is None:
        cache = slots.pair(pos - 3)[1]
    if runs:
        starts = np.array([r[0] for r in runs])
        lens = np.array([r[1] - r[0] for r in runs])
        al = np.repeat(np.array([r[2] for r in runs]), lens)
        shift = np.repeat(np.array([r[3] for r in runs]), lens)
        kk = np.arange(lens.sum()) + np.repeat(starts - (np.cumsum(lens) - lens), lens)
        vals = _exact(
            slots,
            kk,
            np.where(al == 0, var[0][kk], var[1][kk]),
            np.where(al == 0, cs[0][kk], cs[1][kk]) + shift,
            c[kk],
            d[kk],
            inv[kk],
        )
        if vals is None:
            slots.finish(0)
            return None
        out[idx[kk]] = vals
    if scalar_k:
        out[idx[np.array(scalar_k)]] = scalar_v
    s.normal_double = cache if phase_f else None
    slots.finish(pos)
    return out


def _exact(slots: _Slots, kk, var, p, c, d, inv):
    """The first-try samples of the walk's accepted elements in libm's arithmetic, or None if
    one of them is not accepted after all."""
    u = slots.u
    e = var >= 2
    b = var & 1
    q = np.where(e, p + b, p - 3)  # their pairs' slots
    new = np.empty(q.size, dtype=bool)  # q is sorted: each pair's first element
    new[0] = True
    np.not_equal(q[1:], q[:-1], out=new[1:])
    qn = q[new]
    r = np.fromiter(map(math.log1p, (-u[qn + 1]).tolist()), dtype=np.float64, count=qn.size)
    # (libm's log1p is not the rounded log(1 - u): no shortcut as for log)
    r = np.sqrt(-2.0 * r)
    t = _TWO_PI * u[qn]
    which = np.cumsum(new) - 1
    x = np.where(e, (r * np.cos(t))[which], (r * np.sin(t))[which])
    y = 1.0 + c * x
    v = y * y * y
    uu = 1.0 - u[p + b + 2 * e]
    xx = x * x
    sq = uu < 1.0 - _K * xx * xx
    if not (y > 0).all():
        return None
    if not sq.all():
        at = np.flatnonzero(~sq)
        log = math.log
        for ui, vi, xi, di in zip(
            uu[at].tolist(), v[at].tolist(), xx[at].tolist(), d[at].tolist(), strict=True
        ):
            if not (ui > 0 and vi > 0 and log(ui) < 0.5 * xi + di * (1.0 - vi + log(vi))):
                return None
    factor = np.ones(kk.size)
    at = np.flatnonzero(b)
    if at.size:
        factor[at] = _pow_libm(1.0 - u[p[at]], inv[at])
    return factor * d * v


def _pow_libm(base, e):
    """libm's pow for base in (0, 1] and e >= 1 (no overflow): math.pow per element, except
    for e == 2 (a = 1/2: Chi2(1), Gamma(1/2)), where libm's pow (within 0.52 ulp) is the rounded
    square wherever that is not within 0.03 ulp of a midpoint (the exact square's low part by
    Dekker's product tells); math.pow for those in doubt."""
    if e.size and (e == 2.0).all():
        hi = base * base
        split = base * 134217729.0
        bh = split - (split - base)
        bl = base - bh
        lo = ((bh * bh - hi) + 2.0 * bh * bl) + bl * bl  # base^2 - hi, exactly
        gap = hi - np.nextafter(hi, 0.0)
        at = np.flatnonzero(np.abs(lo) > _LOG_BAND_POW * gap)
        if at.size:
            hi[at] = np.fromiter(map(math.pow, base[at].tolist(), [2.0] * at.size), np.float64)
        return hi
    return np.fromiter(map(math.pow, base.tolist(), e.tolist()), np.float64, count=base.size)


_LOG_BAND_POW = 0.47


# NOTE [ gamma draws of a periodic concentration ]
# When the concentrations repeat with a short period L (one value: Gamma(full), Chi2, StudentT;
# L = 2: Beta; L = 3 or 4: a small Dirichlet), an element's first try depends only on its state
# (j mod L, its phase, its slot). Per state the first try's acceptance is tabled for every slot
# (NumPy's log for the decisions); 2 L elements from a state with j mod L = 0 take a fixed
# number P of slots and return to the same kind of state, so per kind a "next cycle with a
# failure" table (a reversed running minimum along slots P apart) lets the walk jump over all
# accepted cycles in one step: a rejection costs a few Python steps plus the scalar routine for
# that element. The accepted elements' values are then computed as in _exact (libm's log1p and
# pow, every decision checked again; a differing one makes the scalar routine redo the call).
_PERIODS = (1, 2, 3, 4)


def _period(flat: np.ndarray) -> int:
    """The smallest period in _PERIODS of flat's bits (0: none), for concentrations that are all
    finite and positive."""
    bits = flat.view(np.int32 if flat.dtype == np.float32 else np.int64)
    for n in _PERIODS:
        if flat.size >= 4 * n and (bits[n:] == bits[:-n]).all():
            head = flat[:n]
            with np.errstate(all="ignore"):
                if not ((head > 0) & (head < np.inf)).all():
                    return 0
            return n
    return 0


class _Table:
    """The slots' uniforms and the first tries' acceptance per state kind k = 2 (j mod L) + ph
    (ph 1: the cache is full) and slot, with the next-failing-cycle tables."""

    def __init__(self, s, n, consts, L):
        self.s = s
        self.start = s._bg.state
        self.start_next = s._next_at_end
        self.words = s.words(2 * n)
        self.consts = consts
        self.L = L
        self.build(n)

    def grow(self, n):
        self.words = np.concatenate([self.words, self.s.words(2 * n - self.words.size)])
        self.build(n)

    def build(self, n):
        L, consts = self.L, self.consts
        u = _slot_uniforms(self.words)
        self.n, self.u = n, u
        uu = 1.0 - u
        with np.errstate(all="ignore"):
            luu = np.log(uu)
            cos, sin = _box_muller(u, luu[1:])
        nan = np.full(8, np.nan)
        cos = np.concatenate([cos, nan])  # x of an E element at p + b: cos[p + b]
        sin = np.concatenate([nan[:3], sin, nan])  # x of an F element at p: sin[p - 3]
        uu = np.concatenate([uu, nan])
        luu = np.concatenate([luu, nan])
        acc = []
        with np.errstate(all="ignore"):
            for b, d, c, _ in consts:
                for ph in (0, 1):
                    if ph:  # F: x = the sine 3 slots back, u at p + b
                        x, ui, li = sin[:n], uu[b : b + n], luu[b : b + n]
                    else:  # E: pair at p + b, u at p + b + 2
                        x, ui, li = cos[b : b + n], uu[b + 2 : b + 2 + n], luu[b + 2 : b + 2 + n]
                    y = c * x
                    y += 1.0
                    bound = x * x
                    bound *= bound
                    bound *= _K
                    np.subtract(1.0, bound, out=bound)
                    ok = ui < bound
                    pos = y > 0
                    at = np.flatnonzero(pos > ok)  # the squeeze failed: the log test
                    yy, xa, ua, la = y[at], x[at], ui[at], li[at]
                    v = yy * yy
                    v *= yy
                    rhs = 1.0 - v
                    rhs += np.log(v)
                    rhs *= d
                    rhs += 0.5 * (xa * xa)
                    ok[at] = (ua > 0) & (v > 0) & (la < rhs)
                    ok &= pos
                    ok[n - 8 :] = False  # near the end: the walk grows the table
                    acc.append(ok)
        self.acc = acc
        # cycles of 2 L elements from kind (0, ph): offsets, and per slot the next failing one
        inc = [(1 if k & 1 else 3) + consts[k >> 1][0] for k in range(2 * L)]
        self.inc = inc
        nxt, self.P = [], []
        for ph in (0, 1):
            P = sum(inc[2 * (i % L) + (ph ^ (i & 1))] for i in range(2 * L))  # a cycle's slots
            self.P.append(P)
            rows = -(-n // P) + 1
            bad = np.zeros(rows * P, dtype=bool)
            bad[n - P - 8 :] = True
            off = 0
            for i in range(2 * L):
                k = 2 * (i % L) + (ph ^ (i & 1))
                bad[: n - off] |= ~acc[k][off:]
                off += inc[k]
            bad = bad.reshape(rows, P)
            row = np.where(bad, np.arange(rows)[:, None], rows)
            row = np.minimum.accumulate(row[::-1], axis=0)[::-1]
            row *= P
            row += np.arange(P)
            nxt.append(row.ravel())
        self.nxt = nxt

    def pair(self, p):
        """The Box-Muller pair at slot p in libm's arithmetic (the scalar routine's)."""
        t = _TWO_PI * float(self.u[p])
        r = math.sqrt(-2.0 * math.log1p(-float(self.u[p + 1])))
        return r * math.cos(t), r * math.sin(t)

    def finish(self, used):
        s = self.s
        s._bg.state = self.start
        s._next_at_end = self.start_next
        s.words(2 * used)


def _standard_gamma_periodic(s: TorchStream, flat: np.ndarray, float32: bool, L: int):
    """standard_gamma for concentrations of period L (NOTE [ gamma draws of a periodic
    concentration ]): the draws as float64 values, or None (stream untouched) when the scalar
    routine must redo the call."""
    m = flat.size
    f32 = np.float32
    consts = []  # per j mod L: (boost, d, c, 1 / a)
    with np.errstate(all="ignore"):
        for a in flat[:L]:
            boost = bool(a < 1)
            if float32:
                inv = float(f32(1.0) / a)
                d = float((a + f32(1.0) if boost else a) - f32(_THIRD32))
            else:
                inv = 1.0 / float(a)
                d = (float(a) + 1.0 if boost else float(a)) - _THIRD32
            if boost and not inv < math.inf:
                return None
            consts.append((int(boost), d, 1.0 / math.sqrt(9.0 * d), inv))
    avg = sum(4 + 2 * c[0] for c in consts) / (2 * L)
    tab = _Table(s, int(m * avg * 1.1) + 64, consts, L)
    a_list = [float(a) for a in flat[:L]]
    L2 = 2 * L
    cache = s.normal_double
    j = p = 0
    ph = int(cache is not None)
    irr = []  # (element, value, slot after it, phase after it)
    if cache is not None:  # an arbitrary cached value: element 0 by the scalar routine
        j, p, ph, cache = _table_scalar(tab, 0, 0, a_list[0], float32, cache, irr)
    acc, inc, nxt, P = tab.acc, tab.inc, tab.nxt, tab.P
    margin = 3 * max(P) + 16
    while j < m:
        if p + margin >= tab.n:
            tab.grow(tab.n + tab.n // 2 + 64)
            acc, nxt = tab.acc, tab.nxt
            continue
        r = j % L
        if r == 0 and m - j >= L2:
            ncyc = min((int(nxt[ph][p]) - p) // P[ph], (m - j) // L2)
            if ncyc:
                j += L2 * ncyc
                p += P[ph] * ncyc
                continue
        k = 2 * r + ph
        if acc[k][p]:
            p += inc[k]
            ph ^= 1
            j += 1
            continue
        j, p, ph, cache = _table_scalar(tab, j, p, a_list[r], float32, None, irr, ph)
        acc, nxt = tab.acc, tab.nxt
    if ph:  # after any element a full cache holds the sine 3 slots back
        cache = tab.pair(p - 3)[1]
    out = _periodic_values(tab, m, irr, consts, L)
    if out is None:
        tab.finish(0)
        return None
    s.normal_double = cache if ph else None
    tab.finish(p)
    return out


def _table_scalar(tab, j, p, a, float32, cache, irr, ph=None):
    """Element j from slot p by the scalar routine (ph 1: the cache holds the sine 3 slots
    back); records it in irr and returns the state after it."""
    if ph:
        cache = tab.pair(p - 3)[1]
    pos = p

    def uniform():
        nonlocal pos
        if pos >= tab.n:
            tab.grow(pos + tab.n // 2 + 64)
        pos += 1
        return tab.u.item(pos - 1)

    val, cache = _one(a, float32, uniform, cache)
    ph = int(cache is not None)
    irr.append((j, val, pos, ph))
    return j + 1, pos, ph, cache


def _periodic_values(tab, m, irr, consts, L):
    """The values of the walk's elements: the recorded scalar ones, and the first-try ones in
    libm's arithmetic (None if one of those is not accepted after all)."""
    out = np.empty(m, dtype=np.float64)
    # runs of first-try elements: from (0, 0, E) or after each scalar element
    starts, slots, phs, ends = [], [], [], []
    j0, p0, ph0 = 0, 0, 0
    for j, val, pos, ph in irr:
        out[j] = val
        if j > j0:
            starts.append(j0), slots.append(p0), phs.append(ph0), ends.append(j)
        j0, p0, ph0 = j + 1, pos, ph
    if m > j0:
        starts.append(j0), slots.append(p0), phs.append(ph0), ends.append(m)
    if not starts:
        return out
    starts, ends = np.array(starts), np.array(ends)
    lens = ends - starts
    tot = int(lens.sum())
    first = np.repeat(starts, lens)
    jj = np.arange(tot) + np.repeat(starts - (np.cumsum(lens) - lens), lens)
    t = jj - first  # position within the run
    ph = np.repeat(np.array(phs), lens) ^ (t & 1)
    rr = jj % L
    # slot: run start + offsets of the elements before, by kinds along the run
    inc = np.array(tab.inc)
    L2 = 2 * L
    kind0 = 2 * (first % L) + np.repeat(np.array(phs), lens)
    # offsets within a cycle of 2 L elements from each starting kind
    offt = np.zeros((L2, L2 + 1), dtype=np.int64)
    for k0 in range(L2):
        r0, h0 = k0 >> 1, k0 & 1
        for i in range(L2):
            k = 2 * ((r0 + i) % L) + (h0 ^ (i & 1))
            offt[k0, i + 1] = offt[k0, i] + inc[k]
    p = np.repeat(np.array(slots), lens) + (t // L2) * offt[kind0, L2] + offt[kind0, t % L2]
    b = np.array([c[0] for c in consts])[rr]
    d = np.array([c[1] for c in consts])[rr]
    c = np.array([c[2] for c in consts])[rr]
    inv = np.array([c[3] for c in consts])[rr]
    e = ph == 0
    var = 2 * e + b  # _exact's variants: 0 F, 1 F boosted, 2 E, 3 E boosted
    vals = _exact(tab, jj, var, p, c, d, inv)
    if vals is None:
        return None
    out[jj] = vals
    return out


def gamma_sample(s: TorchStream, alpha: np.ndarray) -> np.ndarray:
    """torch._standard_gamma's CPU result for a float32 or float64 alpha: the draws rounded to
    alpha's dtype, then std::max(smallest normal, x) (so a NaN draw gives the smallest)."""
    dt = alpha.dtype
    raw = standard_gamma(s, alpha, dt == np.float32).astype(dt)
    tiny = np.finfo(dt).tiny
    return np.where(tiny < raw, raw, tiny).astype(dt, copy=False)


def dirichlet_sample(s: TorchStream, alpha: np.ndarray) -> np.ndarray:
    """torch._sample_dirichlet's CPU result (float32 or float64 alpha, last dim the simplex):
    float64 gamma draws of the concentrations taken as float64, clamped below by float64's
    smallest normal, divided by their sum, rounded to alpha's dtype and clamped to [its
    smallest normal, its largest value below 1]."""
    dt = alpha.dtype
    g = standard_gamma(s, alpha.astype(np.float64), False)
    tiny64 = np.finfo(np.float64).tiny
    g = np.where(tiny64 < g, g, tiny64)
    ratio = (g / g.sum(-1, keepdims=True)).astype(dt)
    lo, hi = np.finfo(dt).tiny, np.nextafter(dt.type(1), dt.type(0))
    return np.where(lo < ratio, ratio, lo).clip(max=hi).astype(dt, copy=False)
