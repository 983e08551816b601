"""torch's CPU Poisson and binomial samplers on a TorchStream, number for number: the draws behind
torch.poisson / torch.binomial (so Poisson and Binomial samples). See NOTE [ torch's CPU streams ]
in torch_stream.py.

NOTE [ torch's count draws ]
Both draw one element after another in C order, every uniform a float64 one (53 bits of
random64()), and neither touches the cached normal.
Poisson(lam), lam as float64: lam == 0 gives 0 with no draw; lam < 10 multiplies uniforms until
the product is not above exp(-lam) and counts the factors before that; lam >= 10 is Hoermann's
transformed rejection (PTRS, 1993): per try U = u - 1/2, V = u', us = 1/2 - |U|,
k = floor((2a / us + b) U + lam + 0.43) (cast to int64: a value that is not finite gives
int64's minimum), accepted at once when us >= 0.07 and V <= v_r, rejected when k < 0 or
(us < 0.013 and V > us), else accepted when log V + log(1 / alpha) - log(a / us^2 + b) <=
k log lam - lam - lgamma(k + 1).
Binomial(n, p): n <= 0 or p <= 0 gives 0 and p >= 1 gives n (no draws); otherwise q = min(p,
1 - p) and n q >= 10 takes Hoermann's BTRS (1993) with q, n q < 10 the geometric-gap inversion
(sum ceil(log u / log1p(-q)) until the sum passes n; the count is the number of whole gaps);
p > 1/2 returns n minus the draw. BTRS, per try: U, V, us as above, k = floor((2a / us + b) U +
n q + 1/2), rejected when k < 0 or k > n, accepted at once when us >= 0.07 and V <= v_r, else
accepted when log(V alpha / (a / us^2 + b)) is at most the log ratio of the mode m = floor((n +
1) q) to k by Stirling's series (its tail tabulated below 10). In float32 the products of n and
q (the threshold, n q, (n + 1) q, n q (1 - q)) and q / (1 - q) are float32 arithmetic, the rest
float64, as in torch's kernel for float tensors.
"""

from __future__ import annotations

import math

import numpy as np

from minitorch._backend.torch_stream import TorchStream
from minitorch._backend.torch_stream_gamma import _Reader, _slot_uniforms

_INT64_MIN = float(-(2**63))
_F32 = np.float32
# log k! - ((k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2) for k < 10 (Stirling's remainder)
_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _log(x: float) -> float:
    """C's log: -inf at 0, NaN below 0 or at NaN (where Python's raises)."""
    if x > 0:
        return math.log(x)
    return -math.inf if x == 0 else math.nan


def _floor(x: float) -> float:
    """C's floor on doubles: infinities and NaN unchanged."""
    return float(math.floor(x)) if math.isfinite(x) else x


def poisson(s: TorchStream, lam: np.ndarray) -> np.ndarray:
    """One Poisson(lam) draw per element of lam (C order), as float64 counts (NOTE [ torch's
    count draws ]); lam's values must be non-negative. From _FAST_MIN elements on the leaner
    loop of NOTE [ count draws from a block of uniforms ]: the same numbers and stream position
    as poisson_scalar."""
    flat = np.ascontiguousarray(lam, dtype=np.float64).ravel()
    if flat.size < _FAST_MIN:
        return poisson_scalar(s, lam)
    if flat.size < _SPEC_MIN:
        return _poisson_fast(s, flat).reshape(np.shape(lam))
    parts = [_poisson_chunk(s, flat[i : i + _CHUNK]) for i in range(0, flat.size, _CHUNK)]
    return np.concatenate(parts).reshape(np.shape(lam))


def poisson_scalar(s: TorchStream, lam: np.ndarray) -> np.ndarray:
    """poisson element by element through a uniform() per draw: the reference the fast path is
    checked against (and the path for few elements)."""
    flat = np.ascontiguousarray(lam, dtype=np.float64).ravel()
    out = np.empty(flat.size, dtype=np.float64)
    rd = _Reader(s, 4 * flat.size)
    for i, x in enumerate(flat.tolist()):
        out[i] = _poisson_one(x, rd.uniform)
    rd.finish()
    return out.reshape(np.shape(lam))


def _poisson_one(lam: float, uniform) -> float:
    if lam == 0:
        return 0.0
    if lam < 10:
        limit, count, prod = math.exp(-lam), 0, 1.0
        while True:
            prod *= uniform()
            if not prod > limit:
                return float(count)
            count += 1
    slam, loglam = math.sqrt(lam), math.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = math.log(1.1239 + 1.1328 / (b - 3.4))
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        U = uniform() - 0.5
        V = uniform()
        us = 0.5 - abs(U)
        if us == 0:  # u == 0: C's k = int64's minimum, rejected
            continue
        kf = _floor((2 * a / us + b) * U + lam + 0.43)
        k = kf if math.isfinite(kf) and abs(kf) < 2.0**63 else _INT64_MIN
        if us >= 0.07 and V <= v_r:
            return k
        if k < 0 or (us < 0.013 and V > us):
            continue
        if _log(V) + log_inv_alpha - _log(a / (us * us) + b) <= -lam + k * loglam - math.lgamma(
            k + 1
        ):
            return k


def binomial(s: TorchStream, n: np.ndarray, p: np.ndarray, float32: bool) -> np.ndarray:
    """One Binomial(n, p) draw per element of the (broadcast) n and p (C order), as float64
    values (NOTE [ torch's count draws ]); float32: the float32 steps are taken. A NaN count or
    probability gives NaN with no draw. From _FAST_MIN elements on the leaner loop of NOTE [ count
    draws from a block of uniforms ] (one count and probability, or a short period of them, from
    _SPEC_MIN on: NOTE [ binomial draws of one count and probability by a table of next
    slots ]): the same numbers and stream position as binomial_scalar."""
    n_flat = np.ascontiguousarray(n, dtype=np.float64).ravel()
    p_flat = np.ascontiguousarray(p, dtype=np.float64).ravel()
    if n_flat.size < _FAST_MIN:
        return binomial_scalar(s, n, p, float32)
    if p_flat.size != n_flat.size:
        raise ValueError("binomial: n and p must have the same number of elements")
    if n_flat.size < _SPEC_MIN:
        return _binomial_fast(s, n_flat, p_flat, float32).reshape(np.shape(n))
    parts = []
    for i in range(0, n_flat.size, _CHUNK):
        nc, pc = n_flat[i : i + _CHUNK], p_flat[i : i + _CHUNK]
        out = None
        per = _period(nc, pc)
        if per:
            cs, qs = nc[:per].tolist(), pc[:per].tolist()
            out = _binomial_periodic(s, nc.size, cs, qs, float32)
        parts.append(_binomial_fast(s, nc, pc, float32) if out is None else out)
    return np.concatenate(parts).reshape(np.shape(n))


def _period(n: np.ndarray, p: np.ndarray) -> int:
    """The least period L <= _PERIOD_MAX of the pairs (n, p) (0: none), a multiple of the
    size or not (a distribution's parameters expanded over a batch)."""
    for per in range(1, _PERIOD_MAX + 1):
        if np.array_equal(n[per:], n[:-per]) and np.array_equal(p[per:], p[:-per]):
            return per
    return 0


def binomial_scalar(s: TorchStream, n: np.ndarray, p: np.ndarray, float32: bool) -> np.ndarray:
    """binomial element by element through a uniform() per draw: the reference the fast path is
    checked against (and the path for few elements)."""
    n_flat = np.ascontiguousarray(n, dtype=np.float64).ravel().tolist()
    p_flat = np.ascontiguousarray(p, dtype=np.float64).ravel().tolist()
    out = np.empty(len(n_flat), dtype=np.float64)
    rd = _Reader(s, 4 * len(n_flat))
    for i, (c, q) in enumerate(zip(n_flat, p_flat, strict=True)):
        out[i] = _binomial_one(c, q, float32, rd.uniform)
    rd.finish()
    return out.reshape(np.shape(n))


def _mul(a: float, b: float, float32: bool) -> float:
    return float(_F32(a) * _F32(b)) if float32 else a * b


def _binomial_one(n: float, p: float, float32: bool, uniform) -> float:
    if math.isnan(n) or math.isnan(p):
        return math.nan
    if n <= 0 or p <= 0:
        return 0.0
    if p >= 1:
        return n
    flip = p > 0.5
    q = float(_F32(1.0 - p)) if flip and float32 else 1.0 - p if flip else p
    if _mul(n, q, float32) >= 10:
        k = _btrs(n, q, float32, uniform)
    else:
        k = _inversion(n, q, uniform)
    return n - k if flip else k


def _inversion(n: float, q: float, uniform) -> float:
    log_q = math.log1p(-q)
    total, count = 0.0, 0.0
    while True:
        u = uniform()
        gap = math.log(u) / log_q if u > 0 else math.inf  # inf too for a tiny q (C's ceil)
        total += float(math.ceil(gap)) if gap < math.inf else math.inf
        if total > n:
            return count
        count += 1


def _tail(k: float) -> float:
    """Stirling's remainder of log k! (k a whole number)."""
    if k <= 9:
        return _TAIL[int(k)]
    k1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1sq) / k1sq) / (k + 1)


def _btrs(n: float, q: float, float32: bool, uniform) -> float:
    nq = _mul(n, q, float32)
    var = _mul(nq, 1.0 - q, float32)
    stddev = float(np.sqrt(_F32(var))) if float32 else math.sqrt(var)
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * q
    c = nq + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(_F32(q) / (_F32(1.0) - _F32(q))) if float32 else q / (1 - q)
    alpha = (2.83 + 5.1 / b) * stddev
    m = _floor(_mul(n + 1, q, float32))
    if not (math.isfinite(n) and math.isfinite(m)):
        # an infinite count: every try ends in NaN comparisons but the immediate acceptance
        while True:
            U = uniform() - 0.5
            V = uniform()
            if 0.5 - abs(U) >= 0.07 and V <= v_r:
                return math.inf if U > 0 else math.nan
    while True:
        U = uniform() - 0.5
        V = uniform()
        us = 0.5 - abs(U)
        if us == 0:  # u == 0: C's k = floor(-inf), rejected
            continue
        k = _floor((2 * a / us + b) * U + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and V <= v_r:
            return k
        if _btrs_log_test(n, m, r, alpha, a, b, us, V, k):
            return k


# NOTE [ count draws from a block of uniforms ]
# The fast path is the scalar routine's arithmetic step for step (so the same numbers and the
# same decisions, libm's log / exp / log1p / lgamma through math.*), without its per-draw costs:
# the uniforms are converted from one block of words at once (a Python list, grown when an
# element runs past its end: that element is redone from its first slot), each element's
# constants (exp(-lam); PTRS's and BTRS's a, b, v_r, BTRS's float32 products) are computed for
# all elements at once in NumPy (IEEE arithmetic and sqrt, bit for bit Python's; exp through
# math.exp, as NumPy's may differ in the last bit), the common tries are inlined in one loop,
# and elements with no draws (lam 0, n <= 0, p <= 0 or >= 1, NaN) are set without entering it.
# Rates or counts outside the inlined ranges (infinite, NaN, huge) go through the scalar
# routine from their slot. The engine is then rewound and stepped by the slots used.
# tests/test_s25_counts.py compares both paths element by element and the stream after them.
_FAST_MIN = 16  # fewer elements: the scalar routine costs less
_PTRS_MAX = 1e6  # larger rates: the scalar routine (k's int64 cast may overflow)
_K_LIM = 2.0**63


class _Block:
    """The stream's uniforms (two words each) from the call's start, as a Python list."""

    def __init__(self, s: TorchStream, n: int):
        self.s = s
        self.start = s._bg.state
        self.start_next = s._next_at_end
        self.u = _slot_uniforms(s.words(2 * n)).tolist()

    def grow(self) -> None:
        n = len(self.u) // 2 + 64
        self.u.extend(_slot_uniforms(self.s.words(2 * n)).tolist())

    def finish(self, used: int) -> None:
        s = self.s
        s._bg.state = self.start
        s._next_at_end = self.start_next
        s.words(2 * used)


def _reader_at(u: list, p: int):
    """A uniform() over u from slot p, and a one-element list holding the next slot."""
    at = [p]

    def uniform() -> float:
        v = u[at[0]]
        at[0] += 1
        return v

    return uniform, at


def _poisson_fast(s: TorchStream, flat: np.ndarray) -> np.ndarray:
    """poisson's fast path (NOTE [ count draws from a block of uniforms ])."""
    m = flat.size
    with np.errstate(all="ignore"):
        small = (flat > 0) & (flat < 10)
        big = (flat >= 10) & (flat < _PTRS_MAX)
        b = 0.931 + 2.53 * np.sqrt(flat)
        a = -0.059 + 0.02483 * b
        v_r = 0.9277 - 3.6224 / (b - 2)
    kind = np.where(small, 1, np.where(big, 2, np.where(flat == 0, 0, 3)))
    lim = np.zeros(m)
    at = np.flatnonzero(small)
    lim[at] = np.fromiter(map(math.exp, (-flat[at]).tolist()), np.float64, count=at.size)
    est = float(flat[at].sum()) + at.size + 2.5 * int(big.sum()) + 4 * int((kind == 3).sum())
    blk = _Block(s, int(est * 1.05) + 64)
    u = blk.u
    out = [0.0] * m
    kind_l, lim_l, lam_l = kind.tolist(), lim.tolist(), flat.tolist()
    a_l, b_l, vr_l = a.tolist(), b.tolist(), v_r.tolist()
    floor, log, lgamma = math.floor, math.log, math.lgamma
    i = p = p0 = 0
    while True:
        try:
            for i in range(i, m):  # noqa: B020 - resumed at the element that ran out
                p0 = p
                kd = kind_l[i]
                if kd == 1:
                    lm = lim_l[i]
                    prod = u[p]
                    p += 1
                    cnt = 0
                    while prod > lm:
                        prod *= u[p]
                        p += 1
                        cnt += 1
                    out[i] = cnt
                elif kd == 2:
                    lam, aa, bb, vr = lam_l[i], a_l[i], b_l[i], vr_l[i]
                    while True:
                        U = u[p] - 0.5
                        V = u[p + 1]
                        p += 2
                        us = 0.5 - abs(U)
                        if us >= 0.07 and V <= vr:
                            k = floor((2 * aa / us + bb) * U + lam + 0.43)
                            break
                        if us == 0:  # C: k = floor(-inf), int64's minimum: rejected
                            continue
                        x = (2 * aa / us + bb) * U + lam + 0.43
                        k = floor(x) if -_K_LIM < x < _K_LIM else _INT64_MIN
                        if k < 0 or (us < 0.013 and V > us):
                            continue
                        lhs = (log(V) if V > 0 else -math.inf) + log(
                            1.1239 + 1.1328 / (bb - 3.4)
                        )
                        if lhs - log(aa / (us * us) + bb) <= -lam + k * log(lam) - lgamma(k + 1):
                            break
                    out[i] = k
                elif kd == 3:
                    uniform, nxt = _reader_at(u, p)
                    out[i] = _poisson_one(lam_l[i], uniform)
                    p = nxt[0]
        except IndexError:
            blk.grow()
            p = p0
            continue
        break
    blk.finish(p)
    return np.array(out, dtype=np.float64)


# NOTE [ count draws of one rate by a table of next slots ]
# With one rate lam over a chunk of elements (a scalar rate expanded, torch.full), the draw an
# element makes depends only on the slot p it starts at (slot p: the uniform u[p]), so each
# slot's count and next slot are computed for all slots of a block at once, and the elements
# only walk the table: p -> next[p]. Rate < 10: with S[q] = sum_{r < q} -log u[r] (NumPy's log),
# the product u[p] ... u[q] is first not above exp(-lam) at about the first q + 1 with S[q + 1] >=
# S[p] + lam (searchsorted); the slot is kept only when S[q] and S[q + 1] are farther from S[p]
# + lam than _TOL_ULPS * (slots) * eps * S[-1] (a bound on the sequential cumsum's error, far
# above the log's and the product's), else it is "uncertain". Rate >= 10 (PTRS): every slot's
# try (U = u[p] - 1/2, V = u[p + 1]) is decided in the scalar routine's float64 arithmetic
# (lgamma through math.lgamma per distinct k; the log test with NumPy's logs, redone with
# math.log within 1e-9 of a tie; only even slots need the log test: a one-rate PTRS chunk
# starts at slot 0 and every try takes 2), and a slot's element ends at the first accepted try
# at p, p + 2, ... (a reverse running minimum per parity). An uncertain slot, or one past the
# block, is drawn exactly from there (the lean loop's arithmetic). tests/test_s25_counts.py
# compares with the scalar routine, stream included. Varying rates (a draw's slots then depend
# on the element as well) and rates in [_TABLE_MAX_SMALL, 10) (the table's slots cost more than
# the loop) take the lean loop of NOTE [ count draws from a block of uniforms ].
_SPEC_MIN = 1024  # fewer elements: the lean loop
_CHUNK = 1 << 16
_TOL_ULPS = 8
_TABLE_MAX_SMALL = 4.0  # rates in [4, 10): the lean loop costs less than the table's slots


class _ArrayBlock(_Block):
    """_Block whose uniforms are a NumPy array (arr), with a Python list of those from a slot
    on for the few exact draws."""

    def __init__(self, s: TorchStream, n: int):
        self.s = s
        self.start = s._bg.state
        self.start_next = s._next_at_end
        self.arr = _slot_uniforms(s.words(2 * n))

    def list_from(self, p: int, k: int) -> list:
        if p + k > self.arr.size:
            more = max(p + k - self.arr.size, self.arr.size // 8) + 256
            extra = _slot_uniforms(self.s.words(2 * more))
            self.arr = np.concatenate([self.arr, extra])
        return self.arr[p : p + k].tolist()


def _poisson_step(lam: float, lm: float, aa: float, bb: float, vr: float, u: list, p: int):
    """One element's exact draw of rate lam (0 < lam < _PTRS_MAX) from slot p over u (the lean
    loop's arithmetic): (count, next slot); an IndexError when u runs out."""
    if lam < 10:
        prod = u[p]
        p += 1
        cnt = 0
        while prod > lm:
            prod *= u[p]
            p += 1
            cnt += 1
        return float(cnt), p
    floor, log = math.floor, math.log
    while True:
        U = u[p] - 0.5
        V = u[p + 1]
        p += 2
        us = 0.5 - abs(U)
        if us >= 0.07 and V <= vr:
            return float(floor((2 * aa / us + bb) * U + lam + 0.43)), p
        if us == 0:
            continue
        x = (2 * aa / us + bb) * U + lam + 0.43
        k = floor(x) if -_K_LIM < x < _K_LIM else _INT64_MIN
        if k < 0 or (us < 0.013 and V > us):
            continue
        lhs = (log(V) if V > 0 else -math.inf) + log(1.1239 + 1.1328 / (bb - 3.4))
        if lhs - log(aa / (us * us) + bb) <= -lam + k * log(lam) - math.lgamma(k + 1):
            return float(k), p


def _mapped(f, x: np.ndarray) -> np.ndarray:
    return np.fromiter(map(f, x.tolist()), np.float64, count=x.size)


def _product_table(u: np.ndarray, lam: float):
    """Per slot: the next slot of a product-method draw of rate lam started there (-1:
    uncertain or past the block) and its count (NOTE [ count draws of one rate by a table of
    next slots ])."""
    n = u.size
    with np.errstate(divide="ignore"):
        nl = -np.log(u)
    nl[u == 0] = 800.0  # a product of 0: stops whatever the rate
    S = np.empty(n + 1)
    S[0] = 0.0
    np.cumsum(nl, out=S[1:])
    tol = _TOL_ULPS * n * 2.3e-16 * float(S[-1]) + 1e-12
    p = np.arange(n)
    target = S[:-1] + lam
    j = np.maximum(np.searchsorted(S, target), p + 1)
    jc = np.minimum(j, n)
    ok = (j <= n) & (S[jc] - target >= tol) & ((j == p + 1) | (target - S[jc - 1] > tol))
    return np.where(ok, j, -1), (j - 1 - p).astype(np.float64)


def _two_slot_table(acc: np.ndarray, k: np.ndarray):
    """The table of next slots of a sampler whose tries take two uniforms each: from slot s,
    the first accepted try at s, s + 2, ... (acc, one flag per slot) gives the draw k there and
    the slot after it, -1 where the block holds no accepted try."""
    big = np.int64(1 << 62)
    first = np.where(acc, np.arange(acc.size), big)
    for parity in (0, 1):
        first[parity::2] = np.minimum.accumulate(first[parity::2][::-1])[::-1]
    ok = first < big
    fc = np.where(ok, first, 0)
    nxt = np.append(np.where(ok, fc + 2, -1), -1)
    return nxt, np.append(k[fc], 0.0)


def _ptrs_table(u: np.ndarray, lam: float):
    """As _product_table for a PTRS draw of rate lam (10 <= lam < _PTRS_MAX)."""
    log = math.log
    b = 0.931 + 2.53 * math.sqrt(lam)
    a = -0.059 + 0.02483 * b
    v_r = 0.9277 - 3.6224 / (b - 2)
    U = u[:-1] - 0.5
    V = u[1:]
    with np.errstate(all="ignore"):
        us = 0.5 - np.abs(U)
        x = (2 * a / us + b) * U + lam + 0.43
        k = np.where((x > -_K_LIM) & (x < _K_LIM), np.floor(x), _INT64_MIN)
        acc = (us >= 0.07) & (V <= v_r)
        test = ~acc & (us != 0) & (k >= 0) & ~((us < 0.013) & (V > us))
        test[1::2] = False  # a chunk of one PTRS rate starts at slot 0 and steps by 2
        at = np.flatnonzero(test)
        ka = k[at]
        kk, inv = np.unique(ka + 1, return_inverse=True)
        rhs = -lam + ka * log(lam) - _mapped(math.lgamma, kk)[inv.ravel()]
        c = log(1.1239 + 1.1328 / (b - 3.4))
        d = a / (us[at] * us[at]) + b
        lhs = np.log(V[at]) + c - np.log(d)  # NumPy's logs: to decide away from a tie
        acc[at] = lhs <= rhs
        tie = np.flatnonzero(np.abs(lhs - rhs) <= 1e-9 * (1 + np.abs(rhs)))
        for t in tie.tolist():
            v = float(V[at[t]])
            exact = (log(v) if v > 0 else -math.inf) + c - log(float(d[t]))
            acc[at[t]] = exact <= float(rhs[t])
    return _two_slot_table(acc, k)


def _poisson_one_rate(s: TorchStream, m: int, lam: float) -> np.ndarray:
    """m Poisson(lam) draws, 0 < lam < _PTRS_MAX, by a table of next slots (NOTE [ count draws
    of one rate by a table of next slots ])."""
    small = lam < 10
    est = m * (lam + 1) + 6 * math.sqrt(m * lam) if small else 3.2 * m + 6 * math.sqrt(m)
    blk = _ArrayBlock(s, int(est) + 64)
    nxt_np, val_np = (_product_table if small else _ptrs_table)(blk.arr, lam)
    nxt = nxt_np.tolist()
    lm = math.exp(-lam)
    b = 0.931 + 2.53 * math.sqrt(lam)
    a, v_r = -0.059 + 0.02483 * b, 0.9277 - 3.6224 / (b - 2)
    st = [0] * m
    fix_i, fix_v = [], []
    i = p = 0
    while True:
        try:
            while i < m:
                q = nxt[p]
                if q < 0:
                    break
                st[i] = p
                p = q
                i += 1
        except IndexError:  # past the table
            pass
        if i == m:
            break
        k = 64
        while True:
            try:
                v, used = _poisson_step(lam, lm, a, b, v_r, blk.list_from(p, k), 0)
                break
            except IndexError:
                k *= 8
        p += used
        fix_i.append(i)
        fix_v.append(v)
        i += 1
    out = val_np[np.minimum(np.array(st, dtype=np.int64), val_np.size - 1)]
    out[fix_i] = fix_v
    blk.finish(p)
    return out


def _poisson_chunk(s: TorchStream, flat: np.ndarray) -> np.ndarray:
    """poisson of one chunk: one rate by its table (rates below _TABLE_MAX_SMALL or PTRS's),
    else the lean loop."""
    lam = float(flat[0])
    if (0 < lam < _TABLE_MAX_SMALL or 10 <= lam < _PTRS_MAX) and bool((flat == lam).all()):
        return _poisson_one_rate(s, flat.size, lam)
    return _poisson_fast(s, flat)


def _binomial_fast(s: TorchStream, n: np.ndarray, pr: np.ndarray, float32: bool) -> np.ndarray:
    """binomial's fast path (NOTE [ count draws from a block of uniforms ]); n and pr flat and of
    one size."""
    m = n.size
    f32 = _F32
    with np.errstate(all="ignore"):
        nan = np.isnan(n) | np.isnan(pr)
        none = nan | (n <= 0) | (pr <= 0) | (pr >= 1)
        flip = pr > 0.5
        q = np.where(flip, 1.0 - pr, pr)
        if float32:
            q = np.where(flip, q.astype(f32).astype(np.float64), q)
            nq = (n.astype(f32) * q.astype(f32)).astype(np.float64)
            var = (nq.astype(f32) * (1.0 - q).astype(f32)).astype(np.float64)
            stddev = np.sqrt(var.astype(f32)).astype(np.float64)
            r = (q.astype(f32) / (f32(1.0) - q.astype(f32))).astype(np.float64)
            mm = np.floor(((n + 1).astype(f32) * q.astype(f32)).astype(np.float64))
        else:
            nq = n * q
            var = nq * (1.0 - q)
            stddev = np.sqrt(var)
            r = q / (1 - q)
            mm = np.floor((n + 1) * q)
        b = 1.15 + 2.53 * stddev
        a = -0.0873 + 0.0248 * b + 0.01 * q
        c = nq + 0.5
        v_r = 0.92 - 4.2 / b
        alpha = (2.83 + 5.1 / b) * stddev
        btrs = ~none & (nq >= 10)
        regular = btrs & np.isfinite(n) & np.isfinite(mm)
        inv = ~none & ~btrs
        tiny = inv & (q < 1e-280)  # log u / log1p(-q) may overflow: the scalar routine
    kind = np.where(inv & ~tiny, 1, np.where(regular, 2, np.where(btrs | tiny, 3, 0)))
    est = float(np.where(inv, nq, 0.0).sum()) + int(inv.sum()) + 2.5 * int(btrs.sum())
    blk = _Block(s, int(est * 1.05) + 64)
    u = blk.u
    out = [0.0] * m
    kind_l, n_l, q_l, flip_l = kind.tolist(), n.tolist(), q.tolist(), flip.tolist()
    a_l, b_l, c_l, vr_l = a.tolist(), b.tolist(), c.tolist(), v_r.tolist()
    alpha_l, r_l, m_l = alpha.tolist(), r.tolist(), mm.tolist()
    cst_l, lnm_l, lr_l, tol_l, log_t, tail_t = _btrs_fast_test(n, mm, r, kind == 2)
    ceil, log = math.ceil, math.log
    lq_all = np.zeros(m)
    at = np.flatnonzero(kind == 1)
    lq_all[at] = np.fromiter(map(math.log1p, (-q[at]).tolist()), np.float64, count=at.size)
    lq_l = lq_all.tolist()
    i = p = p0 = 0
    while True:
        try:
            for i in range(i, m):  # noqa: B020 - resumed at the element that ran out
                p0 = p
                kd = kind_l[i]
                if kd == 0:
                    continue
                nn = n_l[i]
                if kd == 1:
                    lq = lq_l[i]
                    total = 0.0
                    start = p
                    try:
                        while True:
                            total += ceil(log(u[p]) / lq)  # whole numbers: the sum is exact
                            p += 1
                            if total > nn:
                                break
                    except ValueError:  # log(0): an infinite gap
                        p += 1
                    k = float(p - start - 1)
                elif kd == 2:
                    aa, bb, cc, vr = a_l[i], b_l[i], c_l[i], vr_l[i]
                    a2 = 2 * aa
                    while True:
                        U = u[p] - 0.5
                        V = u[p + 1]
                        p += 2
                        us = 0.5 - abs(U)
                        if us == 0:  # C: k = floor(-inf): rejected
                            continue
                        k = ((a2 / us + bb) * U + cc) // 1.0  # floor (finite: us >= 2^-53)
                        if k < 0 or k > nn:
                            continue
                        if us >= 0.07 and V <= vr:
                            break
                        tol = tol_l[i]
                        lv = V * alpha_l[i] / (aa / (us * us) + bb)
                        if tol > 0 and lv > 0:  # NOTE [ BTRS's log test from tables ]
                            j, jn = int(k), int(nn - k)
                            lj = log_t[jn + 1]
                            d = log(lv) - (
                                cst_l[i]
                                + (nn + 1) * (lnm_l[i] - lj)
                                + (k + 0.5) * (lr_l[i] + lj - log_t[j + 1])
                                - tail_t[j]
                                - tail_t[jn]
                            )
                            if d < -tol:
                                break
                            if d > tol:
                                continue
                        if _btrs_log_test(nn, m_l[i], r_l[i], alpha_l[i], aa, bb, us, V, k):
                            break
                else:
                    uniform, nxt = _reader_at(u, p)
                    if nn * q_l[i] < 10:  # a tiny q
                        k = _inversion(nn, q_l[i], uniform)
                    else:
                        k = _btrs(nn, q_l[i], float32, uniform)
                    p = nxt[0]
                out[i] = nn - k if flip_l[i] else k
        except IndexError:
            blk.grow()
            p = p0
            continue
        break
    blk.finish(p)
    res = np.array(out, dtype=np.float64)
    with np.errstate(all="ignore"):
        res[none] = np.where(nan, np.nan, np.where((n <= 0) | (pr <= 0), 0.0, n))[none]
    return res


# NOTE [ BTRS's log test from tables ]
# The lean loop decides BTRS's log test (_btrs_log_test: three logs and four Stirling tails per
# try) from per-element constants (the mode's terms, log(n - m + 1), log r: NumPy's logs) and
# tables of log j and of the tail for whole j up to the largest count (_LOG_TABLE_MAX), in
# another association than the scalar routine's; a difference within tol = _LOG_TOL (1 + n) of the
# bound (far above the few ulps the two computations can differ by) is redone by
# _btrs_log_test, as are counts that are not whole or past the tables (tol 0).
_LOG_TABLE_MAX = 1 << 20
_LOG_TOL = 1e-9
_LOG_TABLES: list = [[], []]


def _btrs_fast_test(n: np.ndarray, mm: np.ndarray, r: np.ndarray, regular: np.ndarray):
    """Per element: the constants of NOTE [ BTRS's log test from tables ] as lists, and the
    tables of log j and tail(j)."""
    with np.errstate(all="ignore"):
        ok = regular & (n == np.floor(n)) & (n < _LOG_TABLE_MAX - 2)
        if not ok.any():
            zero = [0.0] * n.size
            return zero, zero, zero, zero, [], []
        top = int(n[ok].max()) + 2
        logs, tails = _LOG_TABLES
        if len(logs) < top:
            j = np.arange(max(top, 1024), dtype=np.float64)
            logs[:] = np.log(j).tolist()
            tails[:] = _tail_np(j).tolist()
        nm = np.where(ok, n - mm, 0.0)
        cst = (mm + 0.5) * np.log((mm + 1) / (r * (nm + 1)))
        cst += _tail_np(np.where(ok, mm, 0.0)) + _tail_np(nm)
        lnm = np.log(nm + 1)
        lr = np.log(r)
        tol = np.where(ok & np.isfinite(cst) & np.isfinite(lr), _LOG_TOL * (1 + n), 0.0)
    return cst.tolist(), lnm.tolist(), lr.tolist(), tol.tolist(), logs, tails


def _btrs_log_test(n, m, r, alpha, a, b, us, V, k) -> bool:
    """BTRS's acceptance by the log ratio of the mode's probability to k's (as in _btrs)."""
    lhs = _log(V * alpha / (a / (us * us) + b))
    bound = (
        (m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
        + (n + 1) * math.log((n - m + 1) / (n - k + 1))
        + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1))
        + _tail(m)
        + _tail(n - m)
        - _tail(k)
        - _tail(n - k)
    )
    return lhs <= bound


# NOTE [ binomial draws of one count and probability by a table of next slots ]
# As NOTE [ count draws of one rate by a table of next slots ], for a chunk whose elements all
# have one count n and one probability p (a scalar expanded, torch.full), or whose pairs (n, p)
# repeat with a period up to _PERIOD_MAX (a distribution's parameters expanded over a batch; a
# table per pair, element i walking that of pair i mod L): each slot's draw (its value and next
# slot) is computed for all slots of a block at once and the elements walk the table; elements
# left when the walk runs past the block get a block and tables of their own. Inversion (whole
# n up to _INV_TABLE_MAX): every slot's gap ceil(log u / log1p(-q)) (NumPy's log; a ratio
# within _GAP_ULPS ulps of a whole number is redone with math.log; u == 0 and gaps past n count
# as n + 1, which ends a draw as the scalar routine's infinite or large gap does), their
# running sums G (whole numbers below 2^53: exact), and a draw from slot p ends at the first t
# with G[t] > G[p] + n (counted pass by pass: n q < 10 keeps the counts small; searchsorted
# past 48). BTRS: every slot's try is decided in the scalar routine's float64 arithmetic (k's
# floor, the immediate tests), the log test with NumPy's logs and Stirling tails, redone by
# _btrs_log_test within _LOG_TOL of a tie; a slot's element ends at the first accepted try at
# p, p + 2, ... (a reverse running minimum per parity). The last few elements past a block are
# drawn exactly by the scalar routine. tests/test_s26_binom.py compares with binomial_scalar,
# stream included.
_INV_TABLE_MAX = float(1 << 24)
_PERIOD_MAX = 4  # more pairs: a table each costs more than the lean loop
_GAP_ULPS = 8


def _btrs_consts(n: float, q: float, float32: bool):
    """BTRS's per-element constants as _btrs computes them: (a, b, c, v_r, r, alpha, m)."""
    nq = _mul(n, q, float32)
    var = _mul(nq, 1.0 - q, float32)
    stddev = float(np.sqrt(_F32(var))) if float32 else math.sqrt(var)
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * q
    r = float(_F32(q) / (_F32(1.0) - _F32(q))) if float32 else q / (1 - q)
    alpha = (2.83 + 5.1 / b) * stddev
    m = _floor(_mul(n + 1, q, float32))
    return a, b, nq + 0.5, 0.92 - 4.2 / b, r, alpha, m


def _tail_np(k: np.ndarray) -> np.ndarray:
    """_tail for an array of whole numbers (NumPy's arithmetic: to decide away from ties)."""
    k1sq = (k + 1) * (k + 1)
    out = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1sq) / k1sq) / (k + 1)
    small = k <= 9
    out[small] = np.array(_TAIL)[k[small].astype(np.int64)]
    return out


def _inversion_table(u: np.ndarray, n: float, q: float):
    """Per slot: the next slot of an inversion draw (whole n, q) started there (-1: past the
    block) and its count."""
    size = u.size
    lq = math.log1p(-q)
    with np.errstate(divide="ignore", over="ignore"):
        ratio = np.log(u) / lq
    near = np.abs(ratio - np.round(ratio)) <= _GAP_ULPS * 2.3e-16 * np.abs(ratio) + 1e-300
    near &= u > 0
    for t in np.flatnonzero(near).tolist():
        ratio[t] = math.log(float(u[t])) / lq
    gap = np.minimum(np.ceil(ratio), n + 1.0)  # u == 0: inf, clipped
    G = np.empty(size + 1)
    G[0] = 0.0
    np.cumsum(gap, out=G[1:])
    target = G[:-1] + n
    # G rises by at least 1 a slot: count the slots within reach, pass by pass (few: n q < 10)
    cnt = np.zeros(size, dtype=np.int64)
    for j in range(1, min(int(n), 48) + 2):
        hit = G[j : size + 1] <= target[: size + 1 - j]
        if j > 48 or not hit.any():
            break
        cnt[: hit.size] += hit
    if j > 48:
        t = np.searchsorted(G, target, side="right")
    else:
        t = np.arange(1, size + 1) + cnt
    return np.where(t <= size, t, -1), t - 1.0 - np.arange(size)


def _btrs_table(u: np.ndarray, n: float, q: float, float32: bool):
    """As _inversion_table for BTRS draws (n q >= 10, n and m finite)."""
    a, b, c, v_r, r, alpha, m = _btrs_consts(n, q, float32)
    U = u[:-1] - 0.5
    V = u[1:]
    with np.errstate(all="ignore"):
        us = 0.5 - np.abs(U)
        k = np.floor((2 * a / us + b) * U + c)
        ok = (k >= 0) & (k <= n)
        acc = ok & (us >= 0.07) & (V <= v_r)
        at = np.flatnonzero(ok & ~acc)
        ka, usa, va = k[at], us[at], V[at]
        lhs = np.log(va * alpha / (a / (usa * usa) + b))
        log = math.log
        const = (m + 0.5) * log((m + 1) / (r * (n - m + 1))) + _tail(m) + _tail(n - m)
        rhs = (
            const
            + (n + 1) * np.log((n - m + 1) / (n - ka + 1))
            + (ka + 0.5) * np.log(r * (n - ka + 1) / (ka + 1))
            - _tail_np(ka)
            - _tail_np(n - ka)
        )
        acc[at] = lhs <= rhs
        tie = np.flatnonzero(~(np.abs(lhs - rhs) > _LOG_TOL * (1 + np.abs(rhs))))
    for t in tie.tolist():
        acc[at[t]] = _btrs_log_test(
            n, m, r, alpha, a, b, float(usa[t]), float(va[t]), float(ka[t])
        )
    return _two_slot_table(acc, k)


def _binomial_one_param(s: TorchStream, size: int, n: float, p: float, float32: bool):
    """size Binomial(n, p) draws by a table of next slots (NOTE [ binomial draws of one count
    and probability by a table of next slots ]), or None when n and p are not the table's."""
    return _binomial_periodic(s, size, [n], [p], float32)


def _table_of(n: float, p: float, float32: bool):
    """(slots per draw, table builder, flip) for Binomial(n, p), or None: not a table's."""
    if math.isnan(n) or math.isnan(p) or n <= 0 or p <= 0 or p >= 1:
        return None
    flip = p > 0.5
    q = float(_F32(1.0 - p)) if flip and float32 else 1.0 - p if flip else p
    nq = _mul(n, q, float32)
    if nq >= 10:
        if not (math.isfinite(n) and math.isfinite(_floor(_mul(n + 1, q, float32)))):
            return None
        return 2.9, lambda u: _btrs_table(u, n, q, float32), flip
    if not (n == math.floor(n) and n <= _INV_TABLE_MAX):
        return None
    return nq + 1, lambda u: _inversion_table(u, n, q), flip


def _binomial_periodic(s: TorchStream, size: int, ns: list, ps: list, float32: bool):
    """size Binomial draws, element i of count ns[i % L] and probability ps[i % L] (L =
    len(ns)), by a table of next slots per pair (NOTE [ binomial draws of one count and
    probability by a table of next slots ]), or None when a pair is not a table's."""
    per = len(ns)
    tabs = [_table_of(c, q, float32) for c, q in zip(ns, ps, strict=True)]
    if any(t is None for t in tabs):
        return None
    slots = sum(t[0] for t in tabs) / per
    est = slots * size + 8 * math.sqrt(slots * size)
    blk = _ArrayBlock(s, int(est) + 64)
    built = [t[1](blk.arr) for t in tabs]
    nxts = [memoryview(np.ascontiguousarray(b[0], dtype=np.int64)) for b in built]
    st = [0] * size
    fix_i, fix_v = [], []
    i = pos = 0
    rest = None
    while True:
        try:
            while i < size:
                t = nxts[i % per][pos]
                if t < 0:
                    break
                st[i] = pos
                pos = t
                i += 1
        except IndexError:  # past the table
            pass
        if i == size:
            break
        if i > 0 and size - i > 64:  # many left past the block: a table of their own
            st = st[:i]
            blk.finish(pos)
            r = i % per
            rest = _binomial_periodic(s, size - i, ns[r:] + ns[:r], ps[r:] + ps[:r], float32)
            break
        k = 64
        while True:
            try:
                uniform, at = _reader_at(blk.list_from(pos, k), 0)
                v = _binomial_one(ns[i % per], ps[i % per], float32, uniform)
                break
            except IndexError:
                k *= 8
        pos += at[0]
        fix_i.append(i)
        fix_v.append(v)
        i += 1
    which = np.arange(len(st)) % per
    st_np = np.array(st, dtype=np.int64)
    out = np.empty(len(st))
    for j, (b, t) in enumerate(zip(built, tabs, strict=True)):
        at = np.flatnonzero(which == j)
        vals = b[1][np.minimum(st_np[at], b[1].size - 1)]
        out[at] = ns[j] - vals if t[2] else vals
    out[fix_i] = fix_v
    if rest is not None:
        return np.concatenate([out, rest])
    blk.finish(pos)
    return out
