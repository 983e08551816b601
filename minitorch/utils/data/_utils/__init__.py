"""torch.utils.data._utils's layout: the collate, fetch, pin_memory and worker modules under the
names code written for torch imports them by (the implementations live in utils/data/_collate.py
and _worker.py). Mirrors torch.utils.data._utils."""

from __future__ import annotations

import sys

from minitorch.utils.data._utils import collate, fetch, pin_memory, worker
from minitorch.utils.data._worker import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper

IS_WINDOWS = sys.platform == "win32"
HAS_NUMPY = True  # NumPy is minitorch's CPU backend

__all__ = [
    "ExceptionWrapper",
    "HAS_NUMPY",
    "IS_WINDOWS",
    "MP_STATUS_CHECK_INTERVAL",
    "collate",
    "fetch",
    "pin_memory",
    "worker",
]
