"""torch.nn.parallel: DataParallel and data_parallel (defined in data_parallel.py, the module
older code imports them from) and DistributedDataParallel (distributed.py). Mirrors
torch.nn.parallel."""

from __future__ import annotations

from minitorch.nn.parallel.data_parallel import DataParallel, data_parallel
from minitorch.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]
