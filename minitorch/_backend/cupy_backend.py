"""The CUDA backend: kernels run in CuPy. The only module of minitorch that imports cupy."""

from __future__ import annotations

from minitorch._backend import Backend


def _import_cupy():
    try:
        import cupy
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise RuntimeError(
            "CUDA device requested but CuPy is not installed: install minitorch with the "
            "'cuda12' or 'cuda13' extra (pip install 'minitorch-np[cuda12]')"
        ) from e
    return cupy


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one GPU; never raises."""
    try:
        cupy = _import_cupy()
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


class CupyBackend(Backend):
    name = "cupy"

    def __init__(self):
        cupy = _import_cupy()
        import cupyx

        self.xp = cupy
        self._cupyx = cupyx

    def from_host(self, array, device):
        with self.xp.cuda.Device(device.index or 0):
            return self.xp.asarray(array)

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def is_array(self, obj) -> bool:
        return isinstance(obj, self.xp.ndarray)

    def scatter_add(self, target, index, values):
        self._cupyx.scatter_add(target, index, values)

    def synchronize(self, device):
        self.xp.cuda.Device(device.index or 0).synchronize()

    def make_rng(self, seed: int):
        return self.xp.random.default_rng(seed)
