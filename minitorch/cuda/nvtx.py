"""torch.cuda.nvtx: profiler range markers. Mirrors torch.cuda.nvtx.

Differences from torch: with CUDA every function is a no-op (minitorch emits no NVTX ranges;
range_push/range_pop still return the nesting level as nvtxRangePush/Pop do); without CUDA each
raises torch's RuntimeError.
"""

from __future__ import annotations

import contextlib

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]

_depth = [0]  # the nesting level of open range_push ranges


def _check() -> None:
    from minitorch.cuda import is_available

    if not is_available():
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


def range_push(msg) -> int:
    """Opens a nested range; returns its level (0 for the outermost). Mirrors
    torch.cuda.nvtx.range_push."""
    _check()
    _depth[0] += 1
    return _depth[0] - 1


def range_pop() -> int:
    """Closes the innermost range; returns the level left. Mirrors torch.cuda.nvtx.range_pop."""
    _check()
    _depth[0] = max(_depth[0] - 1, 0)
    return _depth[0]


def range_start(msg) -> int:
    """Mirrors torch.cuda.nvtx.range_start (a range id; always 0 here)."""
    _check()
    return 0


def range_end(range_id) -> None:
    """Mirrors torch.cuda.nvtx.range_end."""
    _check()


def mark(msg) -> None:
    """Mirrors torch.cuda.nvtx.mark."""
    _check()


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    """A range around a block, named msg.format(*args, **kwargs). Mirrors torch.cuda.nvtx.range."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
