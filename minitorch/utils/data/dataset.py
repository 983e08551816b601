"""Datasets: the map-style and iterable-style bases, the wrappers that combine them, and
random_split."""

from __future__ import annotations

import bisect
import itertools
import math
import typing
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

from minitorch._tensor import Tensor
from minitorch.random import Generator, default_generator, randperm

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")
T_stack = TypeVar("T_stack", tuple[T_co, ...], dict[str, T_co])


class Dataset(Generic[T_co]):
    """A map from keys to samples: subclasses define __getitem__ (and usually __len__).
    Mirrors torch.utils.data.Dataset; `a + b` is ConcatDataset([a, b]).

    A subclass may also define __getitems__(indices) -> list of samples, which the DataLoader
    calls with a whole batch of indices when it is present.
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


# typing.Iterable (not collections.abc's) puts Iterable before Generic in the MRO, as torch's
# class does: subclasses that declare no type parameter of their own (ChainDataset, a user's
# stream) then stay subscriptable through Iterable's __class_getitem__ (ChainDataset[int]).
class IterableDataset(Dataset[T_co], typing.Iterable[T_co]):
    """A stream of samples: subclasses define __iter__. Mirrors torch.utils.data.IterableDataset.

    With num_workers > 0 every worker iterates its own copy; use get_worker_info() inside
    __iter__ (or in worker_init_fn) to give each worker its share. `a + b` chains the streams.
    """

    def __add__(self, other: Dataset[T_co]) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are tuple(t[index] for t in tensors). Mirrors torch.utils.data.TensorDataset."""

    tensors: tuple

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple([t[index] for t in self.tensors])  # (a list: no generator frame)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


def _nested_items(dataset, indices: list) -> list:
    """dataset's samples at indices, through __getitems__ when it has one."""
    getitems = getattr(dataset, "__getitems__", None)
    if not callable(getitems):
        return [dataset[i] for i in indices]
    items = getitems(indices)
    if len(items) != len(indices):
        raise ValueError(
            f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}"
        )
    return items


class StackDataset(Dataset[T_stack]):
    """Zips same-length datasets: StackDataset(a, b)[i] == (a[i], b[i]) and
    StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}. Mirrors torch.utils.data.StackDataset."""

    datasets: tuple | dict

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            # torch's message, missing space included
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {name: d[index] for name, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list) -> list:
        if isinstance(self.datasets, dict):
            columns = {name: _nested_items(d, indices) for name, d in self.datasets.items()}
            return [{name: col[j] for name, col in columns.items()} for j in range(len(indices))]
        columns = [_nested_items(d, indices) for d in self.datasets]
        return [tuple(col[j] for col in columns) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after another. Mirrors torch.utils.data.ConcatDataset."""

    datasets: list
    cumulative_sizes: list

    @staticmethod
    def cumsum(sequence) -> list:
        """Running totals of the datasets' lengths."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self) -> list:
        warnings.warn(
            "`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
            FutureWarning,
            stacklevel=2,
        )
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets one after another, chained lazily. Mirrors
    torch.utils.data.ChainDataset."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset[T_co]):
    """dataset restricted to `indices`: Subset(d, idx)[i] == d[idx[i]]. Mirrors
    torch.utils.data.Subset."""

    dataset: Dataset
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        # The DataLoader fetches batches through __getitems__, so an overridden __getitem__
        # alone would be silently bypassed.
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. When subclassing "
                "Subset and overriding __getitem__, you must also override __getitems__ to "
                "ensure DataLoader works correctly with your custom logic. A simple "
                "implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]"
            )

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list) -> list:
        mapped = [self.indices[i] for i in indices]
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self) -> int:
        return len(self.indices)


def _fraction_lengths(n: int, fractions: Sequence[float]) -> list:
    """floor(n * f) each, then the remainder handed out one by one from the first split on."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(
                f"Length of split at index {i} is 0. This might result in an empty dataset.",
                stacklevel=3,
            )
    return lengths


def random_split(
    dataset: Dataset[T],
    lengths: Sequence[int | float],
    generator: Generator | None = default_generator,
) -> list[Subset[T]]:
    """Splits dataset into non-overlapping random Subsets of the given lengths, or of the given
    fractions of len(dataset) (summing to 1). Mirrors torch.utils.data.random_split: one
    randperm from `generator`, so the same seed gives torch's subsets.
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _fraction_lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(sum(lengths), generator=generator).tolist()
    splits = []
    start = 0
    for length in lengths:
        splits.append(Subset(dataset, order[start : start + length]))
        start += length
    return splits
