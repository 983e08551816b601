"""A CuPy test double: the subset of the cupy API minitorch's CUDA backend and minitorch.cuda call,
so their logic (streams, events, the allocator's statistics, pinned memory, non_blocking copies)
runs on a CPU-only machine.

The "GPU" is NumPy: device arrays are `FakeArray` (a numpy.ndarray subclass) whose memory is
accounted by a fake MemoryPool through the current allocator, as CuPy's arrays are. Streams and
events run nothing: a test marks a stream busy (`stream.busy = True`) to simulate queued work, and
moves `FakeCupy.clock_ms` to simulate time for event timing.
"""

from __future__ import annotations

import itertools
import sys
import types

import numpy as np

_ids = itertools.count(0x1000, 0x10)


class OutOfMemoryError(MemoryError):
    """cupy.cuda.memory.OutOfMemoryError."""

    def __init__(self, size, total, limit=0):
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,}).")


class MemoryPointer:
    """A block of fake device memory; returns to its pool when it dies."""

    def __init__(self, pool, device, size):
        self.pool, self.device_id, self.size = pool, device, size
        self.ptr = next(_ids)

    def __del__(self):
        self.pool._release(self.device_id, self.size)


class MemoryPool:
    """cupy.cuda.MemoryPool: per-device used/cached byte counts, a limit, a capacity."""

    def __init__(self, cuda, capacity: int):
        self._cuda = cuda
        self.capacity = capacity
        self._used: dict = {}
        self._cached: dict = {}
        self._limit: dict = {}
        self.malloc_calls = 0

    def malloc(self, nbytes):
        self.malloc_calls += 1
        dev = self._cuda.runtime.getDevice()
        size = -(-nbytes // 512) * 512
        used, cached = self._used.get(dev, 0), self._cached.get(dev, 0)
        if cached >= size:
            self._cached[dev] = cached - size
        else:
            limit = self._limit.get(dev) or self.capacity
            if used + cached + size > limit:
                raise OutOfMemoryError(size, used, limit)
        self._used[dev] = used + size
        return MemoryPointer(self, dev, size)

    def _release(self, dev, size):
        self._used[dev] -= size
        self._cached[dev] = self._cached.get(dev, 0) + size

    def used_bytes(self):
        return self._used.get(self._cuda.runtime.getDevice(), 0)

    def total_bytes(self):
        dev = self._cuda.runtime.getDevice()
        return self._used.get(dev, 0) + self._cached.get(dev, 0)

    def free_bytes(self):
        return self._cached.get(self._cuda.runtime.getDevice(), 0)

    def free_all_blocks(self, stream=None):
        self._cached[self._cuda.runtime.getDevice()] = 0

    def set_limit(self, size=None, fraction=None):
        dev = self._cuda.runtime.getDevice()
        self._limit[dev] = int(fraction * self.capacity) if fraction is not None else size

    def get_limit(self):
        return self._limit.get(self._cuda.runtime.getDevice(), 0)


class PinnedMemoryPointer(bytearray):
    """cupy.cuda.PinnedMemoryPointer: host memory NumPy can wrap (the buffer protocol)."""


class PinnedMemoryPool:
    def __init__(self):
        self.allocated = 0

    def malloc(self, nbytes):
        self.allocated += nbytes
        return PinnedMemoryPointer(nbytes)

    def n_free_blocks(self):
        return 0


class Stream:
    """cupy.cuda.Stream: records what was queued on it instead of running it."""

    null = None  # the legacy default stream, set below

    def __init__(self, null=False, non_blocking=False, ptds=False, priority=None):
        self.ptr = 0 if null else next(_ids)
        self.non_blocking = non_blocking
        self.priority = priority
        self.busy = False
        self.waited = []  # events this stream was told to wait for
        self.copies = []  # 'h2d' / 'd2h' copies queued on it

    @property
    def done(self):
        return not self.busy

    def synchronize(self):
        self.busy = False

    def wait_event(self, event):
        self.waited.append(event)

    def record(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def use(self):
        _state.current[_state.device] = self
        return self


Stream.null = Stream(null=True)


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.block, self.disable_timing = block, disable_timing
        self.ptr = next(_ids)
        self.busy = False
        self.time_ms = None
        self.stream = None

    def record(self, stream=None):
        stream = _state.current.get(_state.device, Stream.null) if stream is None else stream
        self.stream, self.busy, self.time_ms = stream, stream.busy, _state.clock_ms

    @property
    def done(self):
        return not self.busy

    def synchronize(self):
        self.busy = False


def get_elapsed_time(start, end):
    if start.disable_timing or end.disable_timing:
        raise RuntimeError("cudaErrorInvalidResourceHandle")
    return float(end.time_ms - start.time_ms)


class _State:
    def __init__(self, n_devices):
        self.n_devices = n_devices
        self.device = 0
        self.current: dict = {}
        self.clock_ms = 0.0
        self.synchronized = 0


_state = _State(1)


class Device:
    def __init__(self, device=None):
        self.id = _state.device if device is None else int(device)
        self._prev = []

    def __enter__(self):
        self._prev.append(_state.device)
        _state.device = self.id
        return self

    def __exit__(self, *exc):
        _state.device = self._prev.pop()
        return False

    def use(self):
        _state.device = self.id

    def synchronize(self):
        _state.synchronized += 1
        for s in list(_state.current.values()) + [Stream.null]:
            s.busy = False


class FakeArray(np.ndarray):
    """A fake device array: NumPy memory, accounted by the pool through `_mem`."""

    def set(self, arr, stream=None):
        (stream or get_current_stream()).copies.append("h2d")
        self[...] = arr

    def get(self, stream=None, order="C", out=None, blocking=True):
        (stream or get_current_stream()).copies.append("d2h")
        if out is None:
            return np.array(self.view(np.ndarray), order=order)
        out[...] = self.view(np.ndarray)
        return out


def get_current_stream(device_id=None):
    return _state.current.get(_state.device if device_id is None else device_id, Stream.null)


def build(n_devices: int = 1, capacity: int = 1 << 20):
    """Fresh (cupy, cupyx) fake modules."""
    global _state
    _state = _State(n_devices)
    Stream.null = Stream(null=True)
    cupy = types.ModuleType("cupy")
    cuda = types.ModuleType("cupy.cuda")
    runtime = types.SimpleNamespace(
        getDeviceCount=lambda: _state.n_devices,
        getDevice=lambda: _state.device,
        memGetInfo=lambda: (capacity - pool.total_bytes(), capacity),
        getDeviceProperties=lambda i: {
            "name": b"Fake GPU",
            "major": 9,
            "minor": 0,
            "totalGlobalMem": capacity,
            "multiProcessorCount": 132,
        },
        deviceSynchronize=lambda: Device().synchronize(),
    )
    pool = MemoryPool(cuda, capacity)
    pinned_pool = PinnedMemoryPool()
    allocator = [pool.malloc]
    cuda.runtime = runtime
    cuda.memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)
    cuda.Device, cuda.Stream, cuda.Event = Device, Stream, Event
    cuda.MemoryPool, cuda.PinnedMemoryPool = MemoryPool, PinnedMemoryPool
    cuda.MemoryPointer, cuda.PinnedMemoryPointer = MemoryPointer, PinnedMemoryPointer
    cuda.get_elapsed_time = get_elapsed_time
    cuda.get_current_stream = get_current_stream
    cuda.alloc_pinned_memory = pinned_pool.malloc
    cuda.set_allocator = lambda fn=None: allocator.__setitem__(0, fn or pool.malloc)
    cuda.get_allocator = lambda: allocator[0]

    def empty(shape, dtype=float, order="C"):
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        mem = allocator[0](int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
        out = np.empty(shape, dtype).view(FakeArray)
        out._mem = mem
        return out

    def asarray(a, dtype=None):
        if isinstance(a, FakeArray) and dtype is None:
            return a
        a = np.asarray(a.view(np.ndarray) if isinstance(a, FakeArray) else a, dtype=dtype)
        out = empty(a.shape, a.dtype)
        out[...] = a
        return out

    def ascontiguousarray(a):
        return a if a.flags.c_contiguous else asarray(np.ascontiguousarray(a.view(np.ndarray)))

    def asnumpy(a, stream=None):
        return np.array(a.view(np.ndarray) if isinstance(a, FakeArray) else a)

    def tracked(np_factory):
        """A factory whose result is accounted by the pool, as CuPy's factories' are."""

        def factory(*args, **kwargs):
            return asarray(np_factory(*args, **kwargs))

        return factory

    for name in ("zeros", "ones", "full", "arange", "zeros_like", "ones_like", "full_like"):
        setattr(cupy, name, tracked(getattr(np, name)))
    cupy.cuda = cuda
    cupy.ndarray = FakeArray
    cupy.empty, cupy.asarray, cupy.asnumpy = empty, asarray, asnumpy
    cupy.ascontiguousarray = ascontiguousarray
    cupy.get_default_memory_pool = lambda: pool
    cupy.get_default_pinned_memory_pool = lambda: pinned_pool
    cupy.__getattr__ = lambda name: getattr(np, name)  # kernels: NumPy's
    cupy._fake_state = _state

    cupyx = types.ModuleType("cupyx")
    cupyx.scatter_add = np.add.at
    return cupy, cupyx


def install(monkeypatch, **kwargs):
    """Puts fresh fakes in sys.modules (monkeypatch undoes it); returns the cupy fake."""
    cupy, cupyx = build(**kwargs)
    for name in [n for n in sys.modules if n == "cupy" or n.startswith(("cupy.", "cupyx"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cupy.cuda)
    monkeypatch.setitem(sys.modules, "cupyx", cupyx)
    return cupy
