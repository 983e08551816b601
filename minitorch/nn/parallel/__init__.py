"""torch.nn.parallel: DataParallel and data_parallel (defined in data_parallel.py, the module
older code imports them from), DistributedDataParallel (distributed.py), scatter and gather
(scatter_gather.py). Mirrors torch.nn.parallel."""

from __future__ import annotations

from minitorch.nn.parallel.data_parallel import DataParallel, data_parallel
from minitorch.nn.parallel.distributed import DistributedDataParallel
from minitorch.nn.parallel.scatter_gather import gather, scatter

__all__ = ["scatter", "gather", "DataParallel", "data_parallel", "DistributedDataParallel"]
