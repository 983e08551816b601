"""Worker-process helpers under torch's module path. Mirrors torch.utils.data._utils.worker."""

from __future__ import annotations

from minitorch.utils.data._worker import (
    MP_STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    WorkerInfo,
    get_worker_info,
)

__all__ = ["ExceptionWrapper", "MP_STATUS_CHECK_INTERVAL", "WorkerInfo", "get_worker_info"]
