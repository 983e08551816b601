"""The CPU backend: kernels run in NumPy."""

from __future__ import annotations

import numpy as np

from minitorch._backend import Backend

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
    m = cond.astype(ints)
    return np.negative(m, out=m)


class NumpyBackend(Backend):
    name = "numpy"
    xp = np
    array_cls = np.ndarray
    scalar_cls = np.generic  # what NumPy returns for 0-d results

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
        np.add.at(target, index, values)

    def broadcast_to(self, array, shape):
        # The gradient of a full reduction (sum, mean) is a 0-d array spread over the input's
        # shape on every backward: an all-zero-strides view of its one element is built directly,
        # without np.broadcast_to's Python-level argument handling (~3x faster).
        if array.ndim == 0:
            out = np.ndarray(shape, array.dtype, array, 0, (0,) * len(shape))
            out.flags.writeable = False
            return out
        return np.broadcast_to(array, shape)

    def make_rng(self, seed: int):
        return np.random.Generator(np.random.PCG64(seed))

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
