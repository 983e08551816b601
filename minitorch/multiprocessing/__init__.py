"""torch.multiprocessing: Python's multiprocessing, plus spawn/start_processes and the sharing
strategy switches. Mirrors torch.multiprocessing.

Differences from torch: a tensor sent through a Queue or a Pipe is pickled (a copy); torch moves
its storage to shared memory instead. The sharing strategy is recorded, not used.
"""

from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F403

from minitorch.multiprocessing.spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = [
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
] + list(_mp.__all__)

_strategies = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def set_sharing_strategy(new_strategy: str) -> None:
    """Records the strategy (one of get_all_sharing_strategies()). Mirrors
    torch.multiprocessing.set_sharing_strategy."""
    if new_strategy not in _strategies:
        raise AssertionError(f"{new_strategy} is not a valid sharing strategy")
    _strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    """Mirrors torch.multiprocessing.get_sharing_strategy."""
    return _strategy[0]


def get_all_sharing_strategies() -> set:
    """Mirrors torch.multiprocessing.get_all_sharing_strategies."""
    return set(_strategies)
