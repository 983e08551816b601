"""PyTorch's CPU random stream, number for number: its mt19937 engine (seeded, stepped and saved
as torch's CPUGeneratorImpl is) and the transformations its CPU kernels apply to the engine's
words (uniform, normal, integers, permutations, Bernoulli, exponential, ...).

The engine's words come from NumPy's MT19937 (the same algorithm, one C call for many words);
the transformations are array operations that reproduce torch's per-element arithmetic, its
order of draws and its size-dependent paths (NOTE [ torch's CPU streams ]). Backend layer: NumPy
only, host arrays in and out. The engine, its state, uniforms, integers, permutations and
Bernoulli draws are here; the normal family is in torch_stream_normal.py, multinomial in
torch_stream_multinomial.py.
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
#   random_ / randint: random() % range + from, random64() % range + from when range >= 2^28
#   randperm        for i < n - 1: swap a[i] with a[i + random() % (n - i)]
#   bernoulli_(p)   u < p with a float64 uniform (torch's default kernel); bernoulli(p tensor)
#                   uses a float32 uniform unless p is float64
#   exponential_    -1/lambda * log1p(-u); cauchy_ median + sigma * tan(pi (u - 1/2));
#   geometric_      ceil(log(u) / log(1 - p)); log_normal_ exp(normal_distribution<double>)
# libm's log / log1p / exp / tan differ from NumPy's SIMD versions in the last bit for a few
# values in a thousand, so exp / tan go through Python's math module (libm) element by element;
# log is computed in NumPy and checked (NOTE [ libm's log without a call per element ]), log1p(-u)
# replayed from glibc's algorithm (NOTE [ libm's log1p of -u without a call per element ]).

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


# NOTE [ A cheap MT19937 to seed ]
# NumPy's MT19937(seed) hashes the seed with a SeedSequence and copies the 624 words it generates
# into the engine one by one, indexing the array from Python: ~200 us, paid by every Generator()
# (a shuffled DataLoader makes one per epoch, as torch's RandomSampler does), though the engine
# is seeded again at once (torch's init_genrand, _legacy_seeding) or given another state. So the
# constructor gets a seed sequence whose words are a fixed list (its items are read ~50x
# faster): ~2 us. NumPy without the interface gets the plain constructor. The sequence is made
# by the first engine: numpy.random costs `import minitorch` ~13 ms, and no stream is made at
# import (Generator makes its stream at the first draw).
_UNSEEDED = None


def _unseeded():
    """The seed sequence of NOTE [ A cheap MT19937 to seed ] (made once, on first use)."""
    global _UNSEEDED
    try:
        from numpy.random.bit_generator import ISeedSequence

        class _Unseeded(ISeedSequence):
            """MT19937's constructor's seed, for an engine seeded right after."""

            __slots__ = ()
            _words = [1] * _N

            def generate_state(self, n_words, dtype=None):
                return self._words if n_words == _N else [1] * n_words

        _UNSEEDED = _Unseeded()
    except (ImportError, TypeError):  # pragma: no cover - a NumPy without the interface
        _UNSEEDED = 0
    return _UNSEEDED


def _engine():
    """A NumPy MT19937 for the caller to seed or set (NOTE [ A cheap MT19937 to seed ])."""
    seq = _UNSEEDED
    return np.random.MT19937(_unseeded() if seq is None else seq)


class TorchStream:
    """One CPU generator's stream: the engine, its initial seed and the cached normal samples.

    The array methods below return NumPy host arrays; `wrap` / `unwrap` let a backend whose
    arrays are NumPy arrays in disguise (the strict test device) use the same stream."""

    __slots__ = ("seed", "_bg", "_next_at_end", "normal_double", "normal_float", "wrap", "unwrap")

    def __init__(self, seed: int, wrap=None, unwrap=None):
        self.seed = seed
        self._bg = _engine()
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
        new._bg = _engine()
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
        no torch-exact transformation here (those of dtypes torch's CPU kernels refuse, where
        minitorch still draws): reproducible, not torch's numbers."""
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


# --- integers ---

def _round_to_digits(x: int, digits: int) -> int:
    """x rounded to `digits` significant bits, ties to even (an int64 cast to a float dtype)."""
    shift = abs(x).bit_length() - digits
    if shift <= 0:
        return x
    q, r = divmod(abs(x), 1 << shift)
    if r > 1 << (shift - 1) or (r == 1 << (shift - 1) and q & 1):
        q += 1
    return (q << shift) * (1 if x >= 0 else -1)


def float_bounds(lo: int, hi, digits: int, top=None):
    """torch's update_from / update_to for a float dtype of `digits` significant bits: from + 1
    that the dtype rounds below from moves from up, and to - 1 that it rounds up to to or
    beyond moves to down, each to the dtype's value one spacing inside (hi None: no bound). A
    value rounding past the dtype's largest (`top`: float16's 65504) is infinite, which torch
    casts back to int64's minimum (x86)."""

    def cast(x):
        r = _round_to_digits(x, digits)
        return -(1 << 63) if top is not None and abs(r) > top else r

    up = cast(lo + 1)
    if up < lo:
        lo = up + (1 << (max(abs(lo + 1).bit_length() - 1, 0) - digits + 1))
    if hi is not None:
        down = cast(hi - 1)
        if down >= hi:
            hi = down - (1 << (max(abs(hi - 1).bit_length() - 1, 0) - digits + 1))
    return lo, hi


def random_from_to(s: TorchStream, n: int, span: int, base: int, kind: str) -> np.ndarray:
    """random_(base, base + span): int64 values (uint64 arithmetic wrapped, as torch's). A span
    of 2^28 or more draws random64() (torch 2.13, every dtype: int32 too), a smaller one
    random()."""
    if span >= 1 << 28:
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
    if n <= _SWAP_LOOP_MAX:
        return _swap_loop(z.tolist(), n)
    return _swaps_result(z.view(np.int64), n)


# Up to this n randperm runs torch's swap loop itself: fewer Python steps than _swaps_result's
# passes cost (randperm(16): 2 us against 25 us; even at n = 256)
_SWAP_LOOP_MAX = 256


def _swap_loop(z: list, n: int) -> np.ndarray:
    """torch's swap loop: a[i] <-> a[i + z[i]] for i < n - 1, on a list (what _swaps_result
    replays without the loop)."""
    a = list(range(n))
    for i, zi in enumerate(z):
        j = i + zi
        a[i], a[j] = a[j], a[i]
    return np.array(a, dtype=np.int64)


def randperms(s: TorchStream, n: int, count: int) -> np.ndarray:
    """`count` randperm(n)s drawn one after another, as a (count, n) array: their swap loops, run
    in turn, are one loop over count * n positions, each permutation's block swapped within
    itself (an offset of 0 at its last position: no swap)."""
    if n < 2 or count == 0:
        return np.broadcast_to(np.arange(n, dtype=np.int64), (count, n)).copy()
    z = s.words(count * (n - 1)).reshape(count, n - 1) % np.arange(n, 1, -1, dtype=_U64)
    z = np.concatenate([z.view(np.int64), np.zeros((count, 1), dtype=np.int64)], axis=1)
    out = _swaps_result(z.reshape(-1)[:-1], count * n).reshape(count, n)
    out -= np.arange(0, count * n, n, dtype=np.int64)[:, None]
    return out


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
    root[t[has]] = parent[has]
    while True:  # pointer jumping: root[x] moves up its chain until it reaches the root
        up = root[root]  # whole-array gathers: cheaper than tracking the nodes still moving
        if np.array_equal(up, root):
            break
        root = up
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
