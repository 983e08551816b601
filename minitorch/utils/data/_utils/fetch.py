"""The dataset fetchers (a sample or a collated batch per index) under torch's module path; they
live in utils/data/_worker.py. Mirrors torch.utils.data._utils.fetch."""

from __future__ import annotations

from minitorch.utils.data._worker import (
    _BaseDatasetFetcher,
    _IterableDatasetFetcher,
    _MapDatasetFetcher,
)

__all__ = ["_BaseDatasetFetcher", "_IterableDatasetFetcher", "_MapDatasetFetcher"]
