"""Samplers: the orders in which a DataLoader visits a map-style dataset's indices, and
BatchSampler, which groups them into batches."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

from minitorch import _dtype
from minitorch._factories import as_tensor
from minitorch._ops.random_ops import multinomial
from minitorch.random import Generator, randint, randperm

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define __iter__ over indices (or lists of indices) and, usually,
    __len__. Mirrors torch.utils.data.Sampler."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1. Mirrors torch.utils.data.SequentialSampler."""

    data_source: Sized

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _fresh_seed(generator) -> int:
    """A 63-bit seed drawn from `generator` (the CPU default generator when None)."""
    from minitorch._factories import zeros  # torch: empty((), int64).random_()
    from minitorch._ops.random_ops import random_

    return int(random_(zeros((), dtype=_dtype.int64), generator=generator).item())


class RandomSampler(Sampler[int]):
    """A random permutation of the indices (repeated to reach num_samples), or num_samples
    indices drawn with replacement. Mirrors torch.utils.data.RandomSampler.

    Without a generator each iteration seeds a private generator with a 63-bit draw from the
    default one, as torch does; with the CPU streams torch's, the orders after
    minitorch.manual_seed(s) (or with a generator seeded s) are torch's.
    """

    data_source: Sized
    replacement: bool

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator().manual_seed(_fresh_seed(None))
        wanted = self.num_samples
        if self.replacement:
            # drawn in chunks of 32, so a partly consumed epoch draws little
            for start in range(0, wanted, 32):
                size = min(32, wanted - start)
                yield from randint(0, n, (size,), generator=generator).tolist()
            return
        for _ in range(wanted // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[: wanted % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order. Mirrors torch.utils.data.SubsetRandomSampler."""

    indices: Sequence[int]

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """num_samples indices in [0, len(weights)) drawn with probabilities proportional to weights.
    Mirrors torch.utils.data.WeightedRandomSampler (torch.multinomial's draws and errors when
    iterated, so the same seed gives torch's indices).
    """

    num_samples: int
    replacement: bool

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = as_tensor(weights, dtype=_dtype.float64)
        if weights_tensor.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        draws = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from draws.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Groups another sampler's indices into lists of batch_size (the last one shorter unless
    drop_last). Mirrors torch.utils.data.BatchSampler."""

    def __init__(
        self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
