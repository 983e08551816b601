"""The CUDA backend: kernels run in CuPy. The only module of minitorch that imports cupy."""

from __future__ import annotations

from minitorch._backend import Backend

_INSTALL_HINT = (
    "install minitorch with the 'cuda12' or 'cuda13' extra (pip install 'minitorch-np[cuda12]')"
)


def _import_cupy():
    try:
        import cupy
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise RuntimeError(
            f"CUDA device requested but CuPy is not installed: {_INSTALL_HINT}"
        ) from e
    return cupy


_reason: list = []  # [reason or None], filled by the first unavailable_reason() call


def unavailable_reason() -> str | None:
    """Why CUDA cannot be used here (None when CuPy imports and sees a GPU); never raises.

    Probed once: importing CuPy and asking the driver are slow, and GPUs do not come and go.
    """
    if not _reason:
        try:
            cupy = __import__("cupy")
        except Exception as e:  # ImportError, or a broken CUDA installation
            _reason.append(f"CuPy could not be imported ({type(e).__name__}: {e}); {_INSTALL_HINT}")
        else:
            try:
                n = cupy.cuda.runtime.getDeviceCount()
            except Exception as e:  # no driver, no device, ...
                n, why = 0, f"CuPy found no usable GPU ({type(e).__name__}: {e})"
            else:
                why = "CuPy found no GPU"
            _reason.append(None if n > 0 else why)
    return _reason[0]


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one GPU; never raises."""
    return unavailable_reason() is None


def device_count() -> int:
    """The number of GPUs CuPy sees (0 without CuPy or a GPU); never raises."""
    if unavailable_reason() is not None:
        return 0
    return _import_cupy().cuda.runtime.getDeviceCount()


class CupyBackend(Backend):
    name = "cupy"

    def __init__(self):
        cupy = _import_cupy()
        import cupyx

        self.xp = cupy
        self.array_cls = cupy.ndarray
        self.scalar_cls = ()
        self._cupyx = cupyx

    def from_host(self, array, device):
        with self.xp.cuda.Device(device.index or 0):
            return self.xp.asarray(array)

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def is_array(self, obj) -> bool:
        return isinstance(obj, self.xp.ndarray)

    def data_ptr(self, array) -> int:
        return array.data.ptr

    def scatter_add(self, target, index, values):
        self._cupyx.scatter_add(target, index, values)

    def special(self, name: str):
        import cupyx.scipy.special as sc

        if name == "polygamma":  # cupyx broadcasts n with x: it must be an array
            return lambda n, x: sc.polygamma(self.xp.asarray(n, dtype=x.dtype), x)
        return getattr(sc, "gammaln" if name == "lgamma" else name)

    def synchronize(self, device):
        self.xp.cuda.Device(device.index or 0).synchronize()

    def device_context(self, device):
        return self.xp.cuda.Device(device.index or 0)

    def make_rng(self, seed: int):
        return self.xp.random.default_rng(seed)

    def rng_get_state(self, rng):
        raise NotImplementedError(
            "get_state: minitorch cannot snapshot a CUDA generator's stream (CuPy keeps it on "
            "the GPU); reseed with manual_seed() to reproduce a stream"
        )

    def rng_set_state(self, rng, state) -> None:
        self.rng_get_state(rng)

    def randperm(self, rng, n: int):
        # CuPy's Generator has no permutation(): sort random keys instead (ties have
        # probability ~n^2 / 2^53, and would still give a permutation).
        return self.xp.argsort(rng.random(n))
