"""Worker-process helpers under torch's module path. Mirrors torch.utils.data._utils.worker.

Differences from torch: _worker_loop is minitorch's worker entry point, whose arguments differ
from torch's (see utils/data/_worker.py); it is exposed for code that looks it up by name.
"""

from __future__ import annotations

from minitorch.utils.data._worker import (
    MP_STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    WorkerInfo,
    _generate_state,
    _IterableDatasetStopIteration,
    _ResumeIteration,
    _worker_loop,
    get_worker_info,
)

__all__ = [
    "ExceptionWrapper",
    "MP_STATUS_CHECK_INTERVAL",
    "WorkerInfo",
    "_IterableDatasetStopIteration",
    "_ResumeIteration",
    "_generate_state",
    "_worker_loop",
    "get_worker_info",
]
