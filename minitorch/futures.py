"""torch.futures: Future (a value or an exception set later, with callbacks), collect_all and
wait_all. Mirrors torch.futures; torch.jit.fork returns these futures (already completed).

Differences from torch: minitorch runs everything in the calling thread, so a future is completed
by whoever calls set_result/set_exception (another Python thread may; wait() blocks until then).
GPU values need no stream bookkeeping: CuPy's current stream already orders the work, so
`devices` is only checked.
"""

from __future__ import annotations

import sys
import threading
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")

_NOT_SET = object()  # the value slot of a future that holds no result (None is a result)


class Future(Generic[T]):
    """A result that is set once, later: wait() blocks for it, then() and add_done_callback()
    run callbacks when it arrives (at once if it already has). Mirrors torch.futures.Future
    (torch.jit.Future is this class)."""

    def __init__(self, *, devices=None):
        self._devices = [] if devices is None else _check_devices(devices)
        self._cond = threading.Condition()
        self._value = _NOT_SET
        self._error: Exception | None = None
        self._callbacks: list = []

    def done(self) -> bool:
        """Whether a result or an exception has been set. Mirrors torch.futures.Future.done."""
        return self._value is not _NOT_SET or self._error is not None

    def wait(self) -> T:
        """The result, once set (blocks until then); raises the exception set instead, if any.
        Mirrors torch.futures.Future.wait."""
        with self._cond:
            self._cond.wait_for(self.done)
        return self.value()

    def value(self) -> T:
        """The result of a completed future (raises its exception, if one was set). Mirrors
        torch.futures.Future.value."""
        if self._error is not None:
            raise self._error
        if self._value is _NOT_SET:
            raise RuntimeError(
                "Future.value: the future is not completed yet; call wait() or read the value in "
                "a callback"
            )
        return self._value

    def set_result(self, result: T) -> None:
        """Completes the future with `result` and runs its callbacks. Mirrors
        torch.futures.Future.set_result."""
        self._complete(result, None)

    def set_exception(self, result) -> None:
        """Completes the future with an error: wait() and value() raise `result`. Mirrors
        torch.futures.Future.set_exception."""
        if not isinstance(result, Exception):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(_NOT_SET, result)

    def _complete(self, value, error) -> None:
        with self._cond:
            if self.done():
                raise RuntimeError(
                    "Attempting to mark a completed Future as complete again. Note that a Future "
                    "can only be marked completed once."
                )
            self._value, self._error = value, error
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        # outside the lock: a callback may wait on, or chain onto, this future
        for callback in callbacks:
            callback(self)

    def add_done_callback(self, callback) -> None:
        """Runs callback(self) when the future completes (now, if it has). An exception the
        callback raises is reported on stderr and dropped, as torch logs it. Mirrors
        torch.futures.Future.add_done_callback."""
        _check_callable("add_done_callback", callback)

        def run(fut):
            try:
                callback(fut)
            except Exception as e:
                sys.stderr.write(
                    f"Got the following error when running the callback: {_named(e)}\n"
                )

        self._on_done(run)

    def then(self, callback) -> Future:
        """A new future holding callback(self), run when this one completes (now, if it has);
        an exception in the callback completes the new future with torch's RuntimeError.
        Mirrors torch.futures.Future.then."""
        _check_callable("then", callback)
        child: Future = Future(devices=self._devices)

        def run(fut):
            try:
                out = callback(fut)
            except Exception as e:
                error = RuntimeError(
                    f"Got the following error when running the callback: {_named(e)}"
                )
                error.__cause__ = e
                child.set_exception(error)
            else:
                child.set_result(out)

        self._on_done(run)
        return child

    def _on_done(self, run) -> None:
        with self._cond:
            if not self.done():
                self._callbacks.append(run)
                return
        run(self)


def _named(e: Exception) -> str:
    return f"{type(e).__name__}: {e}"


def _check_callable(method: str, callback) -> None:
    if not callable(callback):
        raise TypeError(
            f"Future.{method}(): expected a callable taking the future, got "
            f"{type(callback).__name__}"
        )


def _check_devices(devices) -> list:
    """The devices of a Future(devices=...): indexed devices (an int is a CUDA index); a CUDA
    one needs a GPU, as in torch."""
    from minitorch import _backend, cuda

    out = []
    for d in devices:
        dev = _backend.device("cuda", d) if isinstance(d, int) else _backend.device(d)
        if dev.index is None:
            raise ValueError(f"Expected devices to have indices, got {dev}")
        if dev.type != "cpu" and not cuda.is_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        out.append(dev)
    return out


def _check_futures(fn: str, futures) -> list:
    futures = list(futures) if isinstance(futures, (list, tuple)) else None
    if futures is None or not all(isinstance(f, Future) for f in futures):
        raise TypeError(f"{fn}(): expected a list of torch.futures.Future objects")
    return futures


def collect_all(futures) -> Future:
    """A future that completes when all of `futures` have, holding the list of them; if any
    completed with an exception it completes with the first such one (in list order). Mirrors
    torch.futures.collect_all."""
    futures = _check_futures("collect_all", futures)
    combined: Future = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_fut):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            error = next((f._error for f in futures if f._error is not None), None)
            if error is not None:
                combined.set_exception(error)
            else:
                combined.set_result(futures)

    if not futures:
        combined.set_result([])
    for f in futures:
        f._on_done(one_done)
    return combined


def wait_all(futures) -> list:
    """The values of all `futures`, once all have completed; raises the first exception among
    them instead. Mirrors torch.futures.wait_all."""
    futures = _check_futures("wait_all", futures)
    collect_all(futures).wait()
    return [f.value() for f in futures]
