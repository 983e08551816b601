"""minitorch.utils.data: datasets, samplers, collation and the DataLoader. Mirrors
torch.utils.data."""

from __future__ import annotations

from minitorch.utils.data import _utils  # noqa: F401  (torch.utils.data._utils)
from minitorch.utils.data._collate import default_collate, default_convert
from minitorch.utils.data._worker import get_worker_info
from minitorch.utils.data.dataloader import DataLoader, _DatasetKind
from minitorch.utils.data.datapipes._decorator import functional_datapipe
from minitorch.utils.data.datapipes.datapipe import IterDataPipe, MapDataPipe
from minitorch.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from minitorch.utils.data.distributed import DistributedSampler
from minitorch.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterDataPipe",
    "IterableDataset",
    "MapDataPipe",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "default_collate",
    "default_convert",
    "functional_datapipe",
    "get_worker_info",
    "random_split",
]
