"""The CPU backend: kernels run in NumPy."""

from __future__ import annotations

import numpy as np

from minitorch._backend import Backend


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
