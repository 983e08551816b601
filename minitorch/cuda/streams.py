"""CUDA streams and events over CuPy's: Stream, Event, the current stream and stream contexts.

Kernels go onto the current CuPy stream of the current device; these classes give torch's names
and semantics to CuPy's `cupy.cuda.Stream` and `cupy.cuda.Event`.
"""

from __future__ import annotations

from minitorch import _backend
from minitorch._backend import cupy_backend
from minitorch.cuda._utils import device_index, lazy_init, require

# fmt: off
__all__ = [
    "Stream", "Event", "StreamContext", "stream", "current_stream", "default_stream",
    "set_stream",
]
# fmt: on


class Stream:
    """A CUDA stream: an ordered queue of GPU work. Mirrors torch.cuda.Stream.

    `Stream(device=None, priority=0)` makes a new non-blocking stream on `device` (lower priority
    numbers run first, as in CUDA). Differences from torch: streams are CuPy streams, made on
    construction rather than taken from a pool.
    """

    def __init__(self, device=None, priority: int = 0, **kwargs):
        xp = require("minitorch.cuda.Stream").xp
        if kwargs:
            raise TypeError(f"Stream() got unexpected keyword arguments {sorted(kwargs)}")
        index = device_index(device)
        with xp.cuda.Device(index):
            if priority:
                cp = xp.cuda.Stream(non_blocking=True, priority=priority)
            else:
                cp = xp.cuda.Stream(non_blocking=True)
        self._init(cp, index, priority)

    def _init(self, cp, index: int, priority: int) -> None:
        self._cupy_stream = cp
        self.device_index = index
        self.device_type = 1  # torch's DeviceType.CUDA
        self.priority = priority

    @classmethod
    def _wrap(cls, cp, index: int) -> Stream:
        """A Stream for an existing CuPy stream (the current or the default one)."""
        s = cls.__new__(cls)
        s._init(cp, index, getattr(cp, "priority", 0) or 0)
        return s

    @property
    def device(self):
        return _backend.device("cuda", self.device_index)

    @property
    def cuda_stream(self) -> int:
        """The cudaStream_t address (0 for the legacy default stream)."""
        return self._cupy_stream.ptr

    def query(self) -> bool:
        """True when all work queued on this stream has finished."""
        return bool(self._cupy_stream.done)

    def synchronize(self) -> None:
        """Waits until all work queued on this stream has finished."""
        self._cupy_stream.synchronize()

    def wait_event(self, event: Event) -> None:
        """Makes work queued on this stream from now on wait for `event`."""
        self._cupy_stream.wait_event(event._cupy_event)

    def wait_stream(self, stream: Stream) -> None:
        """Makes work queued on this stream from now on wait for the work queued on `stream`."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        """Records `event` (a new Event if None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return False
        return self.cuda_stream == other.cuda_stream and self.device_index == other.device_index

    def __hash__(self):
        return hash((self.cuda_stream, self.device))

    def __repr__(self):
        return f"<minitorch.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"

    def __cuda_stream__(self):
        """The CUDA stream protocol: (version, address)."""
        return (0, self.cuda_stream)


class Event:
    """A CUDA event: a marker in a stream, for synchronisation and timing. Mirrors
    torch.cuda.Event.

    Differences from torch: `interprocess` is accepted and ignored (no IPC handles); the CuPy
    event is made on construction, on the current device.
    """

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess=False):
        xp = require("minitorch.cuda.Event").xp
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self._cupy_event = xp.cuda.Event(
            block=self.blocking, disable_timing=not self.enable_timing, interprocess=False
        )
        self._recorded = False
        self.device = None

    @property
    def cuda_event(self) -> int:
        return self._cupy_event.ptr

    def record(self, stream: Stream | None = None) -> None:
        """Records the event on `stream` (the current stream if None)."""
        if stream is None:
            stream = current_stream()
        self._cupy_event.record(stream._cupy_stream)
        self._recorded = True
        self.device = stream.device

    def wait(self, stream: Stream | None = None) -> None:
        """Makes work queued on `stream` (the current stream if None) from now on wait for this
        event."""
        if stream is None:
            stream = current_stream()
        stream.wait_event(self)

    def query(self) -> bool:
        """True when the work before the event's record has finished (or it was never
        recorded)."""
        return True if not self._recorded else bool(self._cupy_event.done)

    def synchronize(self) -> None:
        """Waits until the work before the event's record has finished."""
        if self._recorded:
            self._cupy_event.synchronize()

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event's record and `end_event`'s (both must be done)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(lazy_init().xp.cuda.get_elapsed_time(self._cupy_event, end_event._cupy_event))

    def __repr__(self):
        if not self._recorded:
            return "<minitorch.cuda.Event uninitialized>"
        return f"<minitorch.cuda.Event {self.cuda_event:#x}>"


def current_stream(device=None) -> Stream:
    """The stream kernels on `device` (the current GPU if None) go to. Mirrors
    torch.cuda.current_stream."""
    xp = lazy_init().xp
    index = device_index(device)
    with xp.cuda.Device(index):
        return Stream._wrap(xp.cuda.get_current_stream(), index)


def default_stream(device=None) -> Stream:
    """The default (legacy null) stream of `device`. Mirrors torch.cuda.default_stream."""
    xp = lazy_init().xp
    return Stream._wrap(xp.cuda.Stream.null, device_index(device))


def set_stream(stream: Stream | None) -> None:
    """Makes `stream` the current stream of its device (None: no-op). Mirrors
    torch.cuda.set_stream; prefer the `stream()` context manager."""
    if stream is None:
        return
    xp = lazy_init().xp
    with xp.cuda.Device(stream.device_index):
        stream._cupy_stream.use()


class StreamContext:
    """Selects `stream` inside its block and restores the previous current stream(s) on exit;
    a no-op for None or without CUDA. Mirrors torch.cuda.StreamContext."""

    def __init__(self, stream: Stream | None):
        self.stream = stream
        self.idx = _backend.current_cuda_index() if cupy_backend.cuda_available() else -1
        self.src_prev_stream = None
        self.dst_prev_stream = None

    def __enter__(self):
        s = self.stream
        if s is None or self.idx == -1:
            return
        self.src_prev_stream = current_stream(None)
        if self.src_prev_stream.device != s.device:
            # The stream lives on another GPU: remember that GPU's current stream too.
            self.dst_prev_stream = current_stream(s.device)
        set_stream(s)

    def __exit__(self, *exc):
        s = self.stream
        if s is None or self.idx == -1:
            return False
        if self.dst_prev_stream is not None:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)
        return False


def stream(stream: Stream | None) -> StreamContext:
    """`with minitorch.cuda.stream(s):` queues the block's kernels on `s`. Mirrors
    torch.cuda.stream."""
    return StreamContext(stream)
