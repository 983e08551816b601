"""DistributedSampler: each of num_replicas processes reads its own slice of the dataset."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TypeVar

from minitorch.random import Generator, randperm
from minitorch.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]

T_co = TypeVar("T_co", covariant=True)


class DistributedSampler(Sampler[T_co]):
    """The indices of replica `rank`: every num_replicas-th index of the (shuffled) dataset,
    padded by repeating indices so all replicas get num_samples (or the tail dropped with
    drop_last). Call set_epoch(epoch) before each epoch to reshuffle. Mirrors
    torch.utils.data.DistributedSampler.

    The shuffle is randperm from a generator seeded with seed + epoch, so it is torch's order.

    Differences from torch: num_replicas and rank must be given (there is no process group
    yet, so torch's "Default process group has not been initialized" ValueError is the
    "Requires distributed package to be available" RuntimeError torch raises without one).
    """

    def __init__(
        self,
        dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            g = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            missing = self.total_size - len(indices)
            if missing <= len(indices):
                # as torch: a dataset grown since __init__ (missing < 0) appends all but the
                # last -missing indices, which the length check below then reports
                indices += indices[:missing]
            else:  # wrap around, as many times as needed
                indices += (indices * math.ceil(missing / len(indices)))[:missing]
        if len(indices) != self.total_size:
            raise AssertionError(
                f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})"
            )
        mine = indices[self.rank : self.total_size : self.num_replicas]
        if len(mine) != self.num_samples:
            raise AssertionError(
                f"Number of subsampled indices ({len(mine)}) does not match num_samples "
                f"({self.num_samples})"
            )
        return iter(mine)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch, which reseeds the shuffle (seed + epoch). Mirrors
        torch.utils.data.DistributedSampler.set_epoch."""
        self.epoch = epoch
