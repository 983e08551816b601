"""Host BLAS: the fused multiply-add NumPy lacks, and threaded bias rows, from the BLAS library
NumPy itself ships.

NOTE [ axpy through NumPy's BLAS ]
torch's CPU kernel of `a.add_(b, alpha=c)` computes a + c b with one fused multiply-add per
element, rounded once (NOTE [ Fused multiply-adds ] in minitorch/_ops/_common.py). NumPy has no
fma ufunc, so minitorch widens float32 operands to float64 (two passes over 8-byte temporaries)
and takes float64 ones through Dekker's exact product (some 20 passes). That is the optimizer's
update, `p.add_(grad, alpha=-lr)`, on every parameter of every step: 0.51 ms of float32 work for
a (784, 512) weight where `p -= lr * grad` (rounded twice) takes 0.20 ms.

BLAS has the operation: axpy, y <- alpha x + y. NumPy's Linux, Windows and Intel macOS wheels
bundle OpenBLAS (as `scipy_openblas`, its symbols prefixed `scipy_`, 64-bit integers in the
`64_`-suffixed build), whose x86-64 axpy kernels are written with FMA instructions: the same
(784, 512) update takes 0.02 ms there. So for large contiguous float32/float64 operands on the
CPU, the update calls that library's cblas_saxpy/cblas_daxpy through ctypes.

Whether a kernel rounds once depends on the CPU the library picked it for (OpenBLAS chooses per
CPU at load; pre-Haswell kernels have no FMA) and on how it was compiled: its vector loop fuses,
but the scalar loop after it (the last n mod 32 elements) rounds twice in the Haswell build
(the one OPENBLAS_CORETYPE=Haswell, and so the test suite, selects) and fuses in the SkylakeX
one. So BLAS gets the leading multiple of BLOCK elements only and the caller computes the rest
with NumPy, and the kernels are used only after a probe on this machine: such lengths, single
and threaded (OpenBLAS splits a long vector between threads), on inputs where rounding the
product first changes many results, checked against the exactly rounded sums. A library that is
missing, has other symbols or fails the probe is not used, and callers keep the NumPy
computation (the same values).
MINITORCH_HOST_BLAS=0 turns this module off (and NOTE [ Bias rows through NumPy's BLAS ]'s
path). Nothing is loaded or probed until the first large update or bias row (importing
minitorch stays as fast as before; loading and probing take ~30 ms once).
"""

from __future__ import annotations

import os
import threading

import numpy as np

__all__: list[str] = []

# BLAS updates the leading multiple of BLOCK elements (see the NOTE); below AXPY_MIN elements
# the call (~3.4 us with its checks and pointer reads) costs more than NumPy's passes (float32:
# two, measured crossover 2,048 elements; float64: ~20, whose fixed cost makes BLAS cheaper from
# one block on: 64 elements 45k instructions against 159k, 256 45k against 178k). Where the
# length leaves a tail (n mod BLOCK elements), NumPy's passes over the tail cost about what they
# cost over the whole, so the fused helpers (fma_into in minitorch/_ops/_common.py) take BLAS
# there only from AXPY_TAIL_MIN elements on (callgrind, instructions per update, NumPy against
# BLAS + tail: float64 100 161k/206k, 500 191k/208k, 700 215k/209k; float32 4,200 68k/86k,
# 6,000 87k/87k). Those measured crossovers (~640 and ~6,000) are not taken: lengths that went
# through BLAS keep its one rounding, which NumPy's float32 route misses at rare double-rounding
# ties and its float64 one where an intermediate overflows (NOTE [ Fused multiply-adds ]).
BLOCK = 64
AXPY_MIN = {"f": 2048, "d": 64}
AXPY_TAIL_MIN = {"f": 2048, "d": 256}

_lock = threading.Lock()
_kernels: dict | None = None  # None: not looked for yet; {}: none usable; else char -> function


def _off(env) -> bool:
    return env.get("MINITORCH_HOST_BLAS", "1").strip().lower() in ("0", "false", "no", "off")


def _library_paths() -> list:
    """The BLAS shared libraries bundled with the installed NumPy wheel (none for NumPy built
    against a system BLAS, MKL or Accelerate)."""
    info = np.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {})
    if "openblas" not in str(info.get("name", "")):
        return []
    import glob  # (here: loading and probing happen at the first large update, not at import)

    root = os.path.dirname(np.__file__)
    found = []
    for folder in (os.path.join(root, os.pardir, "numpy.libs"), os.path.join(root, ".dylibs")):
        found += sorted(glob.glob(os.path.join(folder, "*openblas*")))
    return found


def _symbol(lib, routine: str):
    """The library's cblas_<routine> and its integer type (64-bit in NumPy's OpenBLAS), or
    (None, None)."""
    import ctypes

    for name, index in (
        (f"scipy_cblas_{routine}64_", ctypes.c_int64),
        (f"cblas_{routine}64_", ctypes.c_int64),
        (f"scipy_cblas_{routine}", ctypes.c_int),
        (f"cblas_{routine}", ctypes.c_int),
    ):
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn, index
    return None, None


def _bind(lib, char: str):
    """The library's cblas_<char>axpy as a Python callable (n, alpha, x_ptr, y_ptr), or None."""
    import ctypes

    fn, index = _symbol(lib, ("s" if char == "f" else "d") + "axpy")
    if fn is None:
        return None
    real = ctypes.c_float if char == "f" else ctypes.c_double
    fn.argtypes = (index, real, ctypes.c_void_p, index, ctypes.c_void_p, index)
    fn.restype = None
    limit = 2**63 - 1 if index is ctypes.c_int64 else 2**31 - 1

    def call(n, alpha, x_ptr, y_ptr):
        if n > limit:
            return False
        fn(n, alpha, x_ptr, 1, y_ptr, 1)
        return True

    return call


def _bind_ger(lib, char: str):
    """The library's cblas_<char>ger as a Python callable (m, n, x_ptr, y_ptr, a_ptr): the
    row-major (m, n) array at a_ptr += x y^T (x of m elements, y of n), or None."""
    import ctypes

    fn, index = _symbol(lib, ("s" if char == "f" else "d") + "ger")
    if fn is None:
        return None
    real = ctypes.c_float if char == "f" else ctypes.c_double
    p = ctypes.c_void_p
    fn.argtypes = (ctypes.c_int, index, index, real, p, index, p, index, p, index)
    fn.restype = None
    limit = 2**63 - 1 if index is ctypes.c_int64 else 2**31 - 1

    def call(m, n, x_ptr, y_ptr, a_ptr):
        if m > limit or n > limit:
            return False
        fn(_ROW_MAJOR, m, n, 1.0, x_ptr, 1, y_ptr, 1, a_ptr, n)
        return True

    return call


_ROW_MAJOR = 101  # CBLAS_ORDER's CblasRowMajor


def _ger_passes(call, char: str) -> bool:
    """Whether call adds a row to every row of a matrix as NumPy's `a + row` does (one exact
    product by one, one rounding), single and threaded."""
    dt = np.float32 if char == "f" else np.float64
    rng = np.random.default_rng(20261206)
    for m, n in ((3, 5), (67, 129), (700, 530)):
        a = rng.standard_normal((m, n)).astype(dt)
        row = rng.standard_normal(n).astype(dt)
        ones = np.ones(m, dt)
        got = a.copy()
        if not call(m, n, ones.ctypes.data, row.ctypes.data, got.ctypes.data):
            return False
        if not np.array_equal(got, a + row):
            return False
    return True


def _exact(p: np.ndarray, alpha: float, x: np.ndarray) -> np.ndarray:
    """p + alpha x rounded once to float64, element by element in exact rational arithmetic
    (Python's int / int rounds correctly)."""
    e, f = alpha.as_integer_ratio()
    exact = []
    for pi, xi in zip(p.tolist(), x.tolist(), strict=True):
        a, b = pi.as_integer_ratio()
        c, d = xi.as_integer_ratio()
        exact.append((a * d * f + e * c * b) / (b * d * f))
    return np.array(exact, dtype=np.float64)


def _probe_inputs(dt, n: int, rng):
    """y, x, alpha with |y| in [1/4, 1) and |alpha x| in [0.3, 0.6): for float32 their exact
    sum fits float64's 53 bits, so one float64 sum is the exact value."""
    x = rng.uniform(1.0, 2.0, n).astype(dt)
    y = (rng.uniform(0.25, 1.0, n) * rng.choice([-1.0, 1.0], n)).astype(dt)
    alpha = float(dt(0.3 + 1e-3 * rng.random()))
    return y, x, alpha


def _passes(call, char: str) -> bool:
    """Whether call(n, alpha, x, y) rounds y + alpha x once for every element, for lengths that
    are multiples of BLOCK, single and threaded (see the NOTE)."""
    dt = np.float32 if char == "f" else np.float64
    rng = np.random.default_rng(20261205)
    discriminating = 0
    for n in (BLOCK, 2 * BLOCK, 3 * BLOCK, 64 * BLOCK + 3 * BLOCK):
        y, x, alpha = _probe_inputs(dt, n, rng)
        if char == "f":
            want = (y.astype(np.float64) + x.astype(np.float64) * alpha).astype(dt)
        else:
            want = _exact(y, alpha, x)
        got = y.copy()
        if not call(n, alpha, x.ctypes.data, got.ctypes.data) or not np.array_equal(got, want):
            return False
        discriminating += int(np.count_nonzero(y + dt(alpha) * x != want))
    # past OpenBLAS's one-thread limit (10,000 elements): the same values as calls on pieces
    # short enough for one thread, of lengths checked above
    n, piece = 625 * BLOCK, 67 * BLOCK
    y, x, alpha = _probe_inputs(dt, n, rng)
    whole, pieces = y.copy(), y.copy()
    call(n, alpha, x.ctypes.data, whole.ctypes.data)
    for i in range(0, n, piece):
        m = min(piece, n - i)
        if not call(m, alpha, x[i:].ctypes.data, pieces[i:].ctypes.data):
            return False
    return np.array_equal(whole, pieces) and discriminating > 0  # (the inputs tell one
    # rounding from two)


def _load(env) -> dict:
    if _off(env):
        return {}
    import ctypes

    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        kernels = {}
        for char in "fd":
            call = _bind(lib, char)
            if call is not None and _passes(call, char):
                kernels[char] = call
            call = _bind_ger(lib, char)
            if call is not None and _ger_passes(call, char):
                kernels["ger" + char] = call
        if kernels:
            return kernels
    return {}


def kernels(env=os.environ) -> dict:
    """{'f': saxpy, 'd': daxpy, 'gerf': sger, 'gerd': dger} (those that passed their probe)
    from NumPy's BLAS; {} if none."""
    global _kernels
    if _kernels is None:
        with _lock:
            if _kernels is None:
                try:
                    _kernels = _load(env)
                except Exception:  # any surprise while loading: NumPy's path stays
                    _kernels = {}
    return _kernels


def axpy(alpha: float, x, y) -> int:
    """y[:k] += alpha * x[:k], each element rounded once, in place, for same-shape C-contiguous
    aligned NumPy float32 or float64 arrays (x may be y itself, not a part of it) of at least
    AXPY_MIN elements, over the flat leading k elements, k the largest multiple of BLOCK;
    returns k, or 0 having written nothing where it does not apply. The caller computes the
    other n - k elements."""
    dt = y.dtype
    char = dt.char
    if char not in "fd" or y.size < AXPY_MIN[char] or alpha == 0:
        return 0  # (BLAS returns at once for alpha = 0, leaving -0. and 0 * inf unadded)
    if type(y) is not np.ndarray or type(x) is not np.ndarray or x.dtype != dt:
        return 0
    if x.shape != y.shape or not dt.isnative:
        return 0
    fy, fx = y.flags, x.flags
    if not (fy.c_contiguous and fx.c_contiguous and fy.writeable and fy.aligned and fx.aligned):
        return 0
    if x is not y and np.may_share_memory(x, y):
        return 0  # a partial overlap: BLAS leaves the result undefined
    call = (_kernels if _kernels is not None else kernels()).get(char)
    k = y.size - y.size % BLOCK
    if call is None or not call(k, alpha, x.ctypes.data, y.ctypes.data):
        return 0
    return k


def axpy_fits(x, y, alpha) -> bool:
    """Whether axpy would take x and a C-contiguous copy of y (NumPy arrays of one shape and
    float dtype, alpha exact in it), before the copy is made."""
    dt = x.dtype
    if dt.char not in "fd" or x.size < AXPY_MIN[dt.char] or type(y) is not np.ndarray:
        return False
    return y.dtype == dt and y.shape == x.shape and dt.type(alpha) == alpha


# NOTE [ Bias rows through NumPy's BLAS ]
# A linear layer's output gets its bias added to every row after the product: one NumPy pass
# over the output, on one core, while the product before it ran on all of BLAS's threads. BLAS's
# rank-one update ger (A += x y^T) with x a column of ones adds the same row, on those threads,
# with NumPy's values (each element gets the bias times exactly one, added once; a probe checks
# it once). Float32, 2 cores, best of 7 x 300 in cache: (2048, 512) 202 -> 57 us, (256, 512)
# 19.5 -> 10.4 us, (512, 128) 11.0 -> 8.3 us, (256, 10) 1.7 -> 6.1 us (the call's cost: hence
# ADD_ROW_MIN); bench/attention_block 21.10 -> 20.76 ms (medians of 8 interleaved processes).
ADD_ROW_MIN = 1 << 16  # output elements below which NumPy's one pass is as fast
_ones: dict = {}  # dtype char -> the longest column of ones made so far


def add_row(out, row) -> bool:
    """out += row, row added to each row of a C-contiguous (m, n) NumPy float32/float64 array
    of at least ADD_ROW_MIN elements, through BLAS (NOTE [ Bias rows through NumPy's BLAS ]);
    False, having written nothing, where that does not apply."""
    if out.size < ADD_ROW_MIN or type(out) is not np.ndarray or type(row) is not np.ndarray:
        return False
    dt = out.dtype
    char = dt.char
    if char not in "fd" or row.dtype != dt or out.ndim != 2 or row.shape != out.shape[1:]:
        return False
    if not (out.flags.c_contiguous and out.flags.writeable and row.flags.c_contiguous):
        return False
    if not dt.isnative or np.may_share_memory(out, row):
        return False
    call = (_kernels if _kernels is not None else kernels()).get("ger" + char)
    if call is None:
        return False
    m, n = out.shape
    ones = _ones.get(char)
    if ones is None or ones.shape[0] < m:
        ones = _ones[char] = np.ones(m, dt)
    return call(m, n, ones.ctypes.data, row.ctypes.data, out.ctypes.data)
