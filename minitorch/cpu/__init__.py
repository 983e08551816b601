"""minitorch.cpu: the CPU device module (always available) and its amp spellings. Mirrors
torch.cpu."""

from __future__ import annotations

# fmt: off
__all__ = [
    "is_available", "device_count", "current_device", "synchronize", "amp", "is_initialized",
    "set_device", "Stream", "StreamContext", "stream", "current_stream", "Event",
]
# fmt: on


def is_available() -> bool:
    """Always True. Mirrors torch.cpu.is_available."""
    return True


def device_count() -> int:
    """Always 1. Mirrors torch.cpu.device_count."""
    return 1


def current_device() -> str:
    """Always 'cpu'. Mirrors torch.cpu.current_device."""
    return "cpu"


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU ops are synchronous. Mirrors torch.cpu.synchronize."""


def is_initialized() -> bool:
    """Always True: the CPU needs no set-up. Mirrors torch.cpu.is_initialized."""
    return True


def set_device(device) -> None:
    """Does nothing: there is one CPU device. Mirrors torch.cpu.set_device."""


# The stream and event classes below do nothing: CPU work runs in order as it is called. They
# exist so device-agnostic code (minitorch.get_device_module(x.device).Stream()) runs unchanged.


class Stream:
    """A stand-in stream for device-agnostic code. Mirrors torch.cpu.Stream."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def record_event(self) -> None:
        """Records nothing (torch's CPU stream returns None too)."""

    def wait_event(self, event) -> None:
        """Nothing to wait for."""


class Event:
    """A stand-in event that is always complete. Mirrors torch.cpu.Event."""

    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_default_stream = Stream()
_current = [_default_stream]  # the stream current_stream() answers; stream(s) swaps it


def current_stream(device=None) -> Stream:
    """The selected stand-in stream (`device` is ignored). Mirrors torch.cpu.current_stream."""
    return _current[0]


class StreamContext:
    """Makes `stream` current inside the block (None: changes nothing). Mirrors
    torch.cpu.StreamContext; __enter__ returns None, as torch's."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self) -> None:
        if self.stream is not None:
            self.prev_stream = _current[0]
            _current[0] = self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is not None:
            _current[0] = self.prev_stream


def stream(stream) -> StreamContext:
    """Mirrors torch.cpu.stream: a StreamContext selecting `stream`."""
    return StreamContext(stream)


def __getattr__(name):
    # amp is imported on first use, as minitorch.amp itself (see NOTE [ Lazy submodules ]).
    if name == "amp":
        import importlib

        return importlib.import_module("minitorch.cpu.amp")
    raise AttributeError(f"module 'minitorch.cpu' has no attribute '{name}'")
