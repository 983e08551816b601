"""The CPU backend: kernels run in NumPy."""

from __future__ import annotations

import math

import numpy as np

from minitorch._backend import Backend, _identity

# NOTE [ Branch-free selects ]
# NumPy's where(cond, a, b) branches on every element: on a mask without long runs (the signs of
# activations) the mispredictions make it the slowest pass of a kernel by far ((1000, 1000)
# float32 of random signs: 8.5 ms, against 0.1 ms for an add and 0.08 ms for torch's whole
# leaky_relu). select and keep work on the arrays' bits instead: with m all ones where cond holds
# and zero elsewhere (cond cast to integers of the element size, negated), where(cond, a, b) is
# b ^ ((a ^ b) & m) and where(cond, g, 0) is g & m, bit for bit what where returns, in five and
# three passes without branches (0.5 ms and 0.25 ms). Small arrays (below ~2k elements, where
# the extra calls cost more) and mixed dtypes keep where; so do CuPy (its where is one kernel
# without branches) and the strict test device (Backend.select).
_SELECT_MIN = 1 << 11
_INT_OF_SIZE = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def _bit_mask(cond, ints):
    """cond as integers of the dtype `ints`: all ones where it holds, else zero."""
    if cond.dtype.char == "?":  # a bool's byte (0 or 1) widened and negated in one pass, not two
        return np.negative(cond.view(np.int8), dtype=ints)  # ((2048, 512): 320 -> 243 us)
    m = cond.astype(ints)
    return np.negative(m, out=m)


# NOTE [ Flat scatter keys ]
# NumPy 2's ufunc.at (np.add.at, maximum.at, ...) is fast for one 1-d index array only: with a
# tuple of index arrays or a multi-dimensional index it goes through a general iterator, 10-30x
# slower (np.add.at on a (1000, 1000) float32 array with the key of scatter_add along dim 1,
# (arange(1000)[:, None], index): 17 ms, against 3.7 ms for the same sums through one raveled
# index); a gather with such a key is ~2x slower than take on x.reshape(-1). On a C-contiguous
# array a key of index arrays and full slices is turned into that one index, flat = sum over
# dims of idx_d * stride_d (a slice is an arange), laid out as NumPy lays out target[key] (the
# index arrays' broadcast dims in place when they are adjacent, else first) and raveled with
# the values. ufunc.at applies the updates in the order of the index's positions either way, so
# duplicates accumulate in the same order: the results are the same bits. It also avoids a
# NumPy 2.4 bug: np.add.at(a, i, v) on a 1-d `a` with a multi-dimensional i and values that
# broadcast along i's dims reads garbage (np.add.at(zeros(3), zeros((2, 3), int), ones(3))
# gives [3, 0, 0], and NaN on larger keys), so a 1-d target always takes the flat index. Small
# keys into targets of more dims (below ~2k elements, where building the index costs more than
# it saves), keys of other kinds and out-of-range indices (NumPy raises its own error) keep the
# key as it is; CuPy and the strict device keep ufunc.at and cupyx's scatter_add
# (Backend.ufunc_at, Backend.take_at).
_FLAT_MIN = 1 << 11
_FULL = slice(None)

# NOTE [ Segment reductions ]
# np.add.reduceat along dim 0 of an (L, D) array runs one strided inner loop per segment and
# column: 2048 rows of 128 float32 in 64 segments take 255 us, against 117 us for a Python loop
# of one ufunc.reduce per segment (rows added in turn, as index_add adds them) and 330 us for
# np.add.at through a flat key. So segment_reduce loops over the segments while there are few
# (below one per _SEGMENT_LOOP elements: each costs ~1 us of calls); with more, each non-empty
# segment's first row is assigned and only the other rows are scattered (ufunc.at, in order).
_SEGMENT_LOOP = 1 << 10
_SEGMENT_UFUNCS = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def _one_array_axis(key):
    """The position of the one integer index array in a key of it and full slices, or None."""
    axis = None
    for d, it in enumerate(key):
        if it.__class__ is np.ndarray and it.dtype.kind in "iu" and axis is None:
            axis = d
        elif not (it.__class__ is slice and it == _FULL):
            return None
    return axis


def _flat_key(target, index):
    """(one 1-d index into target.reshape(-1), the shape of target[index]) for a key of index
    arrays and full slices on a C-contiguous target, or None (see NOTE [ Flat scatter keys ])."""
    key = index if index.__class__ is tuple else (index,)
    shape = target.shape
    if len(key) > len(shape) or not target.flags.c_contiguous:
        return None
    dims, arrays = [], []
    bound = math.prod(shape[len(key) :])  # at least target[key].size, for a first cheap check
    for d, it in enumerate(key):
        if isinstance(it, np.ndarray):
            if it.dtype.kind not in "iu":
                return None
            bound *= it.size
            dims.append(d)
            arrays.append(it)
        elif it.__class__ is slice and it == _FULL:
            bound *= shape[d]
        else:
            return None
    if not bound or not arrays or (len(shape) == 1 and arrays[0].ndim <= 1):
        return None  # empty, a basic key, or already the one 1-d index ufunc.at is fast with
    if len(shape) > 1 and bound < _FLAT_MIN:
        return None
    try:
        b_shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        return None
    rest = [d for d in range(len(shape)) if d not in dims]
    # NumPy's layout of target[key]: the broadcast dims where the arrays are when adjacent
    pos = dims[0] if dims[-1] - dims[0] == len(dims) - 1 else 0
    rest_shape = [shape[d] for d in rest]
    out_shape = tuple(rest_shape[:pos]) + b_shape + tuple(rest_shape[pos:])
    if len(shape) > 1 and math.prod(out_shape) < _FLAT_MIN:
        return None
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    nb, nr = len(b_shape), len(out_shape)
    terms = []  # (idx_d * stride_d in out_shape's dims, whether it is an array of our own)
    for d, a in zip(dims, arrays, strict=True):
        n = shape[d]
        a = a.astype(np.intp, copy=False)  # (uint64 + int64 is float64)
        lo, hi = a.min(), a.max()
        if lo < -n or hi >= n:
            return None  # NumPy raises its IndexError on the key as it is
        own = lo < 0 or strides[d] != 1
        if lo < 0:
            a = np.where(a < 0, a + n, a)
        if strides[d] != 1:
            a = a * strides[d]
        lead = (1,) * (pos + nb - a.ndim)
        terms.append((a.reshape(lead + a.shape + (1,) * (nr - pos - nb)), own))
    for j, d in enumerate(rest):
        if shape[d] > 1:
            axis = j if j < pos else j + nb
            a = np.arange(0, shape[d] * strides[d], strides[d])
            terms.append((a.reshape((1,) * axis + (shape[d],) + (1,) * (nr - axis - 1)), True))
    terms.sort(key=lambda t: -t[0].size)
    flat, own = terms[0]
    for t, _ in terms[1:]:
        if own and np.broadcast_shapes(flat.shape, t.shape) == flat.shape:
            np.add(flat, t, out=flat)
        else:
            flat, own = flat + t, True
    return np.broadcast_to(flat, out_shape).reshape(-1), out_shape


class NumpyBackend(Backend):
    name = "numpy"
    xp = np
    array_cls = np.ndarray
    scalar_cls = np.generic  # what NumPy returns for 0-d results
    # the ufunc np.clip calls for a float array between two number bounds, without np.clip's
    # two Python frames (half its cost on a (32, 32) array): clamp's no-grad fast path
    clip_ufunc = (np._core if hasattr(np, "_core") else np.core).umath.clip

    def from_host(self, array, device):
        return array

    def to_host(self, array):
        return array

    def is_array(self, obj) -> bool:
        return isinstance(obj, np.ndarray)

    def data_ptr(self, array) -> int:
        return array.__array_interface__["data"][0]

    def select(self, cond, a, b):
        arrays = a.__class__ is np.ndarray and b.__class__ is np.ndarray
        if cond.size < _SELECT_MIN or not arrays:
            return np.where(cond, a, b)
        ints = _INT_OF_SIZE.get(a.dtype.itemsize)
        if ints is None or a.dtype != b.dtype:
            return np.where(cond, a, b)
        b_bits = b.view(ints)
        d = np.bitwise_xor(a.view(ints), b_bits)
        d = np.bitwise_and(d, _bit_mask(cond, ints), out=d if d.shape == cond.shape else None)
        return np.bitwise_xor(d, b_bits, out=d).view(a.dtype)

    def keep(self, cond, g):
        if cond.size < _SELECT_MIN or g.__class__ is not np.ndarray or g.shape != cond.shape:
            return np.where(cond, g, np.zeros((), g.dtype))
        ints = _INT_OF_SIZE.get(g.dtype.itemsize)
        if ints is None:
            return np.where(cond, g, np.zeros((), g.dtype))
        m = _bit_mask(cond, ints)
        return np.bitwise_and(m, g.view(ints), out=m).view(g.dtype)

    def scatter_add(self, target, index, values):
        if target.ndim > 1 and values.__class__ is np.ndarray and 0 < values.size < _FLAT_MIN:
            np.add.at(target, index, values)  # a small scatter (see _FLAT_MIN): on the step path
            return
        self.ufunc_at(np.add, target, index, values)

    def bincount(self, x, size: int, weights=None):
        return np.bincount(x, weights, minlength=size)

    def ufunc_at(self, ufunc, target, index, values):
        if target.ndim > 1 and values.__class__ is np.ndarray and 0 < values.size < _FLAT_MIN:
            ufunc.at(target, index, values)  # a small scatter (see _FLAT_MIN), decided cheaply
            return
        flat = _flat_key(target, index)
        if flat is None:
            ufunc.at(target, index, values)
            return
        key, shape = flat
        if values.__class__ is np.ndarray and values.ndim:
            try:
                values = np.broadcast_to(values, shape)
            except ValueError:  # NumPy's own error
                ufunc.at(target, index, values)
                return
            values = values.reshape(-1)
        ufunc.at(target.reshape(-1), key, values)

    def take_at(self, array, index):
        key = index if index.__class__ is tuple else (index,)
        if len(key) == 1 and key[0].__class__ is np.ndarray and key[0].dtype.kind in "iu":
            return array.take(key[0], axis=0)  # rows: take beats indexing (up to 2x), same bits
        axis = _one_array_axis(key)
        if axis is not None:  # x[:, :, idx]: take along that axis, row-major as torch's result
            return array.take(key[axis], axis=axis)  # (NumPy's indexing: 4x slower with the copy)
        flat = _flat_key(array, index)
        if flat is None:
            return array[index]
        key, shape = flat
        return array.reshape(-1)[key].reshape(shape)

    def segment_reduce(self, values, starts, op: str):
        # See NOTE [ Segment reductions ]
        m, n = starts.shape[0], values.shape[0]
        if not m or not n or m * _SEGMENT_LOOP > values.size:
            return self._segment_scatter(values, starts, op)
        ufunc = _SEGMENT_UFUNCS[op]
        out = np.empty((m,) + values.shape[1:], values.dtype)
        bounds = starts.tolist()
        bounds.append(n)
        for i in range(m):
            s, e = bounds[i], bounds[i + 1]
            if s < e:
                ufunc.reduce(values[s:e], axis=0, keepdims=True, out=out[i : i + 1])
            else:
                out[i] = _identity(op, values.dtype)
        return out

    def _segment_scatter(self, values, starts, op: str):
        """segment_reduce for many segments: each non-empty segment's first row assigned, the
        other rows scattered onto it in order."""
        n = values.shape[0]
        shape = (starts.shape[0],) + values.shape[1:]
        out = np.full(shape, _identity(op, values.dtype), dtype=values.dtype)
        if not n or not starts.shape[0]:
            return out
        ids = np.searchsorted(starts, np.arange(n), side="right") - 1
        dt = values.dtype
        if dt.kind == "f" and dt.itemsize >= 4 and starts[0] == 0 and math.prod(shape) > 1:
            # segments of similar lengths: each one's rows stacked along a new dim 0 (padded
            # with a value the op leaves unchanged, -0.0 for a sum) and reduced along it, row
            # after row as the scatter below adds them: the same bits, no ufunc.at (but a sum
            # of -0.0 is 0.0, as torch's; NumPy's half sums would round once, not per row)
            count = np.diff(starts, append=n)
            longest = int(count.max())
            if longest * shape[0] <= 2 * n:
                fill = -0.0 if op == "sum" else _identity(op, values.dtype)
                padded = np.full((longest,) + shape, fill, dtype=values.dtype)
                padded[np.arange(n) - starts[ids], ids] = values
                out = _SEGMENT_UFUNCS[op].reduce(padded, axis=0)
                out[count == 0] = _identity(op, values.dtype)
                return out
        head = np.empty(n, bool)
        head[0] = True
        np.not_equal(ids[1:], ids[:-1], out=head[1:])
        out[ids[head]] = values[head]
        rest = ~head
        if rest.any():
            self.ufunc_at(_SEGMENT_UFUNCS[op], out, ids[rest], values[rest])
        return out

    def broadcast_to(self, array, shape):
        # The gradient of a full reduction (sum, mean) is a 0-d array spread over the input's
        # shape on every backward: an all-zero-strides view of its one element is built directly,
        # without np.broadcast_to's Python-level argument handling (~3x faster).
        if array.ndim == 0:
            if not shape:  # (a 0-d result repeats nothing: a writable view, as torch's expand)
                return array.view()
            out = np.ndarray(shape, array.dtype, array, 0, (0,) * len(shape))
            out.flags.writeable = False
            return out
        return np.broadcast_to(array, shape)

    def make_rng(self, seed: int):
        from minitorch._backend.torch_stream import TorchStream

        return TorchStream(seed)  # torch's CPU stream (NOTE [ torch's CPU streams ])

    def special(self, name: str):
        from minitorch._backend.numpy_special import special

        return special(name)


# --- BLAS threads (torch.set_num_threads) ---

# NOTE [ BLAS threads ]
# NumPy's matmul runs in the OpenBLAS its wheel bundles, whose thread count NumPy does not expose.
# torch.set_num_threads(n) is how PyTorch code asks for n intra-op threads (one per DataLoader
# worker, or one for timing): minitorch passes it to that OpenBLAS through its C entry point,
# found once among the libraries this process loaded (Linux: /proc/self/maps). Elsewhere, or
# with another BLAS, the number is only stored (NOTE [ Stored settings ]).
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_blas_threads = []  # [(set, get) or None], looked up on first use


def _find_openblas():
    import ctypes

    try:
        with open("/proc/self/maps") as f:
            paths = sorted(
                {
                    parts[5]
                    for parts in (line.split(None, 5) for line in f)
                    if len(parts) == 6 and "openblas" in parts[5].lower()
                }
            )
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path.strip())
        except OSError:
            continue
        for name in _SETTERS:
            setter = getattr(lib, name, None)
            getter = getattr(lib, name.replace("set_", "get_"), None)
            if setter is not None and getter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                return setter, getter
    return None


def _openblas():
    if not _blas_threads:
        _blas_threads.append(_find_openblas())
    return _blas_threads[0]


def set_blas_threads(n: int) -> bool:
    """Sets OpenBLAS's thread count; False when no OpenBLAS was found. See NOTE [ BLAS threads ]."""
    found = _openblas()
    if found is None:
        return False
    found[0](n)
    return True


def get_blas_threads() -> int | None:
    """OpenBLAS's thread count, or None when no OpenBLAS was found."""
    found = _openblas()
    return None if found is None else found[1]()


# --- 2-byte float casts ---

# NOTE [ Half casts ]
# NumPy casts float32 to and from float16 one element at a time in software (~1.6 ns an element,
# and ~70 ns for results that are subnormal in float16: a (316, 316) array of gradients near 1e-5
# takes 6.8 ms); ml_dtypes' bfloat16 casts are ~1 ns an element. fast_cast does these four casts
# in a few whole-array integer and float passes, giving the same bits as astype:
# - float32 -> float16: |x| is rounded once, to nearest even, onto float16's grid by adding and
#   subtracting c = 2 ** (e + 13) (e: the exponent of |x|, held between float16's smallest normal
#   exponent, -14, so subnormals round onto 2 ** -24, and 16, past which all is inf); the rounded
#   value times 2 ** -112 is exact and its float32 bits shifted right by 13 are float16's bits
#   (normal and subnormal alike; beyond 65504 they are clipped to inf's). Sign bit added last.
# - float16 -> float32: float16's bits moved up 13 (sign back to bit 31) read as a float32 are
#   the value times 2 ** -112, exactly (subnormals too); times 2 ** 112. Inf/NaN: exponent 255.
# - float32 -> bfloat16: the top 16 bits after adding 0x7fff plus the lowest kept bit (ties to
#   even); bfloat16 -> float32: the bits moved up 16.
# An array holding a NaN keeps astype on the way down (NumPy's and ml_dtypes' payload rules), as
# do small arrays (the passes cost more than they save below ~4k elements) and strided views
# (those neither C- nor F-contiguous nor broadcast).
_HALF_CAST_MIN = 1 << 12
_U32 = np.uint32
_H_LO, _H_HI, _H_UP = _U32(113 << 23), _U32(143 << 23), _U32(13 << 23)


def _f32_to_f16(x):
    u = x.view(_U32)
    a = np.bitwise_and(u, _U32(0x7FFFFFFF))
    c = np.bitwise_and(a, _U32(0x7F800000))
    np.clip(c, _H_LO, _H_HI, out=c)
    c += _H_UP
    cf = c.view(np.float32)
    r = np.add(a.view(np.float32), cf, out=a.view(np.float32))
    r -= cf
    r *= np.float32(2.0**-112)
    h = r.view(_U32)
    h >>= _U32(13)
    np.clip(h, _U32(0), _U32(0x7C00), out=h)
    s = np.right_shift(u, _U32(16), out=c)
    s &= _U32(0x8000)
    h |= s
    return h.astype(np.uint16).view(np.float16)


def _f16_to_f32(x):
    h = x.view(np.uint16)
    t = h.view(np.int16).astype(np.int32)
    t <<= 13
    t &= np.int32(-0x70000001)  # sign (bit 31) and the 15 bits below it, at 13..27
    special = None
    if np.max(np.left_shift(h, np.uint16(1))) >= 0xF800:  # an exponent of 31: inf or NaN
        special = (h & 0x7C00) == 0x7C00
        bits = t[special] | np.int32(0x70000000)
    r = t.view(np.float32)
    r *= np.float32(2.0**112)
    if special is not None:
        t[special] = bits
    return r


def _f32_to_bf16(x, dtype):
    u = x.view(_U32)
    t = np.right_shift(u, _U32(16))
    t &= _U32(1)
    t += u
    t += _U32(0x7FFF)
    t >>= _U32(16)
    return t.astype(np.uint16).view(dtype)


def _bf16_to_f32(x):
    t = x.view(np.uint16).astype(_U32)
    t <<= _U32(16)
    return t.view(np.float32)


def fast_cast(x, dtype):
    """x.astype(dtype) (an array of the same bits) where a faster way is known (NOTE [ Half
    casts ]), else None."""
    if x.size < _HALF_CAST_MIN or x.__class__ is not np.ndarray:
        return None
    if not x.flags.c_contiguous:
        if x.flags.f_contiguous:  # laid out as x, as astype(order="K")
            out = fast_cast(x.T, dtype)
            return None if out is None else out.T
        if not any(st == 0 and n > 1 for n, st in zip(x.shape, x.strides, strict=True)):
            return None
        x = np.ascontiguousarray(x)  # broadcast (a sum's gradient): copied row-major, as torch
    src = x.dtype
    if src == np.float32:
        if dtype.itemsize != 2 or np.isnan(np.max(x)):
            return None
        if dtype == np.float16:
            return _f32_to_f16(x)
        return _f32_to_bf16(x, dtype) if dtype.name == "bfloat16" else None
    if dtype != np.float32 or src.itemsize != 2:
        return None
    if src == np.float16:
        return _f16_to_f32(x)
    return _bf16_to_f32(x) if src.name == "bfloat16" else None


_FLOAT_BITS = {4: np.int32, 8: np.int64}


def fast_nextafter(x, y):
    """np.nextafter(x, y) for two C-contiguous float32 or float64 arrays of one shape, the same
    bits (NaN: y + x, as NumPy's), on the floats' bits in whole-array passes (NumPy calls the C
    library per element: (316, 316) float32, 920 -> 90 us); None for other inputs."""
    ints = _FLOAT_BITS.get(x.dtype.itemsize)
    if (
        ints is None
        or x.size < _HALF_CAST_MIN
        or x.dtype.kind != "f"
        or y.dtype != x.dtype
        or y.shape != x.shape
        or x.__class__ is not np.ndarray
        or y.__class__ is not np.ndarray
        or not (x.flags.c_contiguous and y.flags.c_contiguous)
    ):
        return None
    away = np.greater(y, x)
    np.equal(away, x > 0, out=away)  # the step away from zero: bits + 1, else bits - 1
    d = away.view(np.int8).astype(ints)
    d += d
    d -= 1
    d += x.view(ints)
    out = d.view(x.dtype)
    zero = x == 0  # from ±0: the smallest subnormal, signed as y
    if zero.any():
        tiny = x.dtype.type(np.finfo(x.dtype).smallest_subnormal)
        out[zero] = np.where(y[zero] < 0, -tiny, tiny)
    same = x == y  # y itself (-0 from +0 towards -0)
    out[same] = y[same]
    nan = np.isnan(x)
    nan |= np.isnan(y)
    if nan.any():
        with np.errstate(invalid="ignore"):
            out[nan] = y[nan] + x[nan]
    return out


# NOTE [ Maximum with a number ]
# NumPy runs a float32 maximum against a number from 2048 elements on in a loop without vector
# code (NumPy 2.4, AVX2: relu's maximum(0, x) of a (256, 512) float32 array takes 63 us, a
# maximum of two such arrays 22 us), while its clip ufunc has vector code for number bounds:
# clip(x, 0, inf) is relu's maximum bit for bit (a NaN passes with its sign and payload, -0.
# stays -0. as maximum's second operand does, inf stays inf) in 23 us, 2.8-3x faster from 2048
# to 10^6 elements. Below 2048, and for float64 (where clip is 5-15% slower), maximum stays.
# maximum_number makes that choice for relu (Relu.kernel, relu_) and the float32 GELU kernel's
# relu part, maximum(-0., x) (_gelu32 in activation.py; a 49152-element block 35 -> 14 us);
# since session 56 also for mish's max(z, 0) and binary cross-entropy's gradient denominator,
# and minimum_number, clip(x, -inf, hi), for logsigmoid's min(x, 0) and its gradient's cap
# (those kernels, written for every backend, call maximum_array/minimum_array in _ops/_common).
# np.clip itself adds ~2.5 us of Python over the ufunc (NumpyBackend.clip_ufunc), which is
# called here directly. tests/test_s55_relu_clip.py holds the bits to maximum's.

_CLIP_MIN = 1 << 11  # elements
_clip = NumpyBackend.clip_ufunc
_F32_INF = np.float32(math.inf)


def maximum_number(lo, x, out=None):
    """np.maximum(lo, x, out=out) for a NumPy array x and a number lo of x's dtype, by clip
    where NumPy's maximum has no vector loop (NOTE [ Maximum with a number ])."""
    if x.size >= _CLIP_MIN and x.dtype.char == "f":
        return _clip(x, lo, _F32_INF, out=out)
    return np.maximum(lo, x, out=out)


_F32_NEG_INF = np.float32(-math.inf)


def minimum_number(hi, x, out=None):
    """np.minimum(hi, x, out=out), maximum_number's twin: clip(x, -inf, hi) gives its bits as
    clip(x, lo, inf) gives maximum's (the tie's second operand, NaN passed)."""
    if x.size >= _CLIP_MIN and x.dtype.char == "f":
        return _clip(x, _F32_NEG_INF, hi, out=out)
    return np.minimum(hi, x, out=out)


# NOTE [ Float32 log1p and expm1 ]
# NumPy has no vector loops for float32 log1p and expm1: it computes them in float64 libm calls,
# ~14 ns an element (a (1024, 1024) array: 13-15 ms, torch 2.2-2.7 ms), where its float32 log
# and exp are vectorised (~1.7 ns). From 4096 elements these two functions compute them from
# log and exp with a correction for the rounding of the argument, in ~9 one-pass ufuncs more:
# - log1p(y) = log(u) + (y - (u - 1)) / u with u = y + 1 rounded (u - 1 is exact, so the second
#   term is the rounding error of u over u: log's first-order correction);
# - expm1(x) = (u - 1) + u (x - log(u)) with u = exp(x) rounded (x - log(u) is the relative
#   error of u, to first order; u - 1 is exact near 0, where it matters).
# Their error is that of NumPy's float32 log and exp, at most ~4 ulp (NumPy's own log1p and
# expm1: 0.8 ulp; torch's: 1 ulp), measured against float64 on 2.6M points over the whole
# range. The special values keep NumPy's log1p and expm1 bits: both functions keep the sign of
# their argument (or'ed in: -0. gives -0.), the correction's NaN at the infinities and at
# log1p(-1) is dropped (log1p: the fmin with u, which is its value there; expm1: kept only
# where finite), so +-inf, -1 and NaN give NumPy's inf, -inf/-1 and NaN. A (1024, 1024)
# float32 array: log1p 13.8 -> 5.3 ms, expm1 13.1 -> 6.8 ms (65536 elements: 1.05 -> 0.27 ms,
# 0.99 -> 0.44 ms; below 4096 the extra calls cost more than they save). Used for the float32
# log1p and expm1 ops on the CPU and by softplus, the ELU family, mish, logsigmoid and binary
# cross-entropy (tests/test_s56_log1p_expm1.py).
_FAST_LOG1P_MIN = 1 << 12  # elements
_ONE32 = np.float32(1)
_SIGN32 = np.int32(-(2**31))


def log1p(x, out=None):
    """np.log1p(x, out=out) for a NumPy array x, out may be x (NOTE [ Float32 log1p and
    expm1 ])."""
    if x.dtype.char != "f" or x.size < _FAST_LOG1P_MIN or not (out is None or out.dtype == x.dtype):
        return np.log1p(x, out=out)
    with np.errstate(all="ignore"):
        sign = np.bitwise_and(x.view(np.int32), _SIGN32)  # (before out, which may be x)
        u = np.add(x, _ONE32)
        t = np.subtract(u, _ONE32)
        np.subtract(x, t, out=t)
        t /= u
        np.fmin(t, u, out=t)  # NaN at +inf and -1 -> u: inf + inf, -inf + 0
        out = np.log(u, out=u if out is None else out)
        out += t
    bits = out.view(np.int32)
    np.bitwise_or(bits, sign, out=bits)
    return out


def expm1(x, out=None):
    """np.expm1(x, out=out) for a NumPy array x, out may be x (NOTE [ Float32 log1p and
    expm1 ])."""
    if x.dtype.char != "f" or x.size < _FAST_LOG1P_MIN or not (out is None or out.dtype == x.dtype):
        return np.expm1(x, out=out)
    with np.errstate(all="ignore"):
        u = np.exp(x)
        c = np.log(u)
        np.subtract(x, c, out=c)
        c *= u  # NaN or -inf where u is 0 or inf: dropped
        mask = _bit_mask(np.isfinite(c), np.int32)
        bits = c.view(np.int32)
        np.bitwise_and(mask, bits, out=bits)
        sign = np.bitwise_and(x.view(np.int32), _SIGN32, out=mask)  # (before out, maybe x)
        out = np.subtract(u, _ONE32, out=u if out is None else out)
        out += c
    bits = out.view(np.int32)
    np.bitwise_or(bits, sign, out=bits)
    return out
