"""The CUDA backend: kernels run in CuPy. The only module of minitorch that imports cupy."""

from __future__ import annotations

import numpy

from minitorch._backend import Backend, OutOfMemoryError

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


def _format_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return ""  # pragma: no cover


# The function that describes a device's memory in an OutOfMemoryError (minitorch.cuda's
# memory_summary, registered when minitorch.cuda.memory is imported; the backend does not import
# the public API above it).
oom_describer = None


class MemoryTracker:
    """The allocator minitorch puts in front of CuPy's default memory pool.

    # NOTE [ Peak memory tracking ]
    CuPy's pool reports current usage (used_bytes, total_bytes) but no peaks. Usage only grows
    inside malloc, so reading it there after each allocation gives exact peaks. The wrapper adds
    one Python call and three C calls to an allocation: about 0.4-0.6 us measured with C
    stand-ins for the pool on a loaded CPU, against several us for cupy.empty itself; frees go
    straight back to the pool untouched. A failed allocation empties the pool's cache
    and retries once (torch's num_alloc_retries), then raises minitorch's OutOfMemoryError.
    """

    def __init__(self, cupy):
        self.pool = cupy.get_default_memory_pool()
        self._malloc = self.pool.malloc
        self._used = self.pool.used_bytes
        self._total = self.pool.total_bytes
        self._current_device = cupy.cuda.runtime.getDevice
        self._oom = cupy.cuda.memory.OutOfMemoryError
        self._device_cls = cupy.cuda.Device
        # device index -> [peak allocated, peak reserved, allocations, bytes requested,
        #                   retries, ooms]
        self.stats: dict = {}
        self.malloc = self._make_malloc()

    def device_stats(self, index: int) -> list:
        st = self.stats.get(index)
        if st is None:
            st = self.stats[index] = [0, 0, 0, 0, 0, 0]
        return st

    def _make_malloc(self):
        """The allocator function: a closure over locals, the cheapest Python call there is
        (attribute lookups on self cost about a third more, measured)."""
        pool_malloc, used_bytes, total_bytes = self._malloc, self._used, self._total
        current_device, oom, stats_get = self._current_device, self._oom, self.stats.get
        device_stats, retry = self.device_stats, self._retry

        def malloc(nbytes):
            try:
                mem = pool_malloc(nbytes)
            except oom as e:
                mem = retry(nbytes, e)
            st = stats_get(current_device())
            if st is None:
                st = device_stats(current_device())
            used = used_bytes()
            if used > st[0]:
                st[0] = used
            reserved = total_bytes()
            if reserved > st[1]:
                st[1] = reserved
            st[2] += 1
            st[3] += nbytes
            return mem

        return malloc

    def _retry(self, nbytes, error):
        index = self._current_device()
        st = self.device_stats(index)
        st[4] += 1
        self.pool.free_all_blocks()
        try:
            return self._malloc(nbytes)
        except self._oom:
            st[5] += 1
        summary = ""
        if oom_describer is not None:
            try:
                summary = "\n" + oom_describer(index)
            except Exception:  # the error being raised matters more than its description
                summary = ""
        raise OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {_format_bytes(nbytes)}. GPU {index}: "
            f"{_format_bytes(self._used())} allocated by minitorch, "
            f"{_format_bytes(self._total())} reserved. ({error}){summary}"
        ) from None

    def reset_peaks(self, index: int) -> None:
        with self._device_cls(index):
            st = self.device_stats(index)
            st[0], st[1] = self._used(), self._total()


class CupyBackend(Backend):
    name = "cupy"

    def __init__(self):
        cupy = _import_cupy()
        self.xp = cupy
        self.array_cls = cupy.ndarray
        self.scalar_cls = ()
        self.memory = MemoryTracker(cupy)
        cupy.cuda.set_allocator(self.memory.malloc)
        self._pinned_cls = cupy.cuda.PinnedMemoryPointer
        # (event, object) pairs: objects an asynchronous copy or record_stream() must keep alive
        # until the GPU has passed the event (see keep_alive).
        self._pending: list = []

    def from_host(self, array, device):
        with self.xp.cuda.Device(device.index or 0):
            return self.xp.asarray(array)

    def to_host(self, array):
        return self.xp.asnumpy(array)

    # --- pinned memory and asynchronous copies ---

    def empty_pinned(self, shape, dtype):
        """A NumPy array whose buffer comes from CuPy's pinned (page-locked) memory pool."""
        dtype = numpy.dtype(dtype)
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        mem = self.xp.cuda.alloc_pinned_memory(max(nbytes, 1))
        return numpy.ndarray(shape, dtype, buffer=mem)

    def pin(self, array):
        """A pinned copy of host `array` (C-contiguous)."""
        out = self.empty_pinned(array.shape, array.dtype)
        out[...] = array
        return out

    def is_pinned(self, array) -> bool:
        """Whether host `array`'s memory comes from CuPy's pinned pool (views included)."""
        b = array
        while b is not None:
            if isinstance(b, self._pinned_cls):
                return True
            b = getattr(b, "base", None)
        return False

    def keep_alive(self, obj, stream) -> None:
        """Holds `obj` until the work queued on `stream` so far is done, so its memory is not
        reused under an asynchronous copy or a kernel (torch's record_stream)."""
        if self._pending:
            self._pending = [p for p in self._pending if not p[0].done]
        event = self.xp.cuda.Event(disable_timing=True)
        event.record(stream)
        self._pending.append((event, obj))

    def from_host_nonblocking(self, array, device):
        if not self.is_pinned(array) or array.size == 0:
            return self.from_host(array, device)
        cuda = self.xp.cuda
        with cuda.Device(device.index or 0):
            stream = cuda.get_current_stream()
            out = self.xp.empty(array.shape, array.dtype)
            out.set(array, stream=stream)
            self.keep_alive(array, stream)
        return out

    def to_host_nonblocking(self, array):
        if array.size == 0:
            return self.to_host(array)
        stream = self.xp.cuda.get_current_stream()
        src = self.xp.ascontiguousarray(array)
        out = self.empty_pinned(array.shape, array.dtype)
        try:
            src.get(stream=stream, out=out, blocking=False)
        except TypeError:  # CuPy before 13 has no `blocking`: get() on a stream still queues
            src.get(stream=stream, out=out)
        self.keep_alive(src, stream)
        return out

    def is_array(self, obj) -> bool:
        return isinstance(obj, self.xp.ndarray)

    def data_ptr(self, array) -> int:
        return array.data.ptr

    def special(self, name: str):
        import cupyx.scipy.special as sc

        if name == "polygamma":  # cupyx broadcasts n with x: it must be an array
            return lambda n, x: sc.polygamma(self.xp.asarray(n, dtype=x.dtype), x)
        if name == "airy_ai":  # cupyx.scipy.special has no airy: minitorch computes it
            return None
        return getattr(sc, "gammaln" if name == "lgamma" else name)

    def synchronize(self, device):
        self.xp.cuda.Device(device.index or 0).synchronize()
        self._pending = [p for p in self._pending if not p[0].done]

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
