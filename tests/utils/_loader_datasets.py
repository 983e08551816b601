"""Datasets for the DataLoader worker tests, in an importable module so that workers started
with 'spawn' can load them."""

from __future__ import annotations

import os
import random
import signal
import threading

import numpy as np

import minitorch
from minitorch.utils.data import Dataset, IterableDataset, get_worker_info


class Range(Dataset):
    """i -> i."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i

    def __len__(self):
        return self.n


class Pairs(Dataset):
    """i -> (a float tensor, the int i)."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return minitorch.full((2,), float(i)), i

    def __len__(self):
        return self.n


class RaiseAt(Range):
    """Raises `exc` at index `bad`."""

    def __init__(self, n, bad, exc=ValueError):
        super().__init__(n)
        self.bad, self.exc = bad, exc

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc(f"bad index {i}")
        return i


class ExitAt(Range):
    """The worker process ends itself at index `bad` (os._exit, or SIGKILL)."""

    def __init__(self, n, bad, kill=False):
        super().__init__(n)
        self.bad, self.kill = bad, kill

    def __getitem__(self, i):
        if i == self.bad and get_worker_info() is not None:
            if self.kill:
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(3)
        return i


class BlockAt(Range):
    """Never returns index `bad` (the loader's timeout must fire)."""

    def __init__(self, n, bad):
        super().__init__(n)
        self.bad = bad

    def __getitem__(self, i):
        if i == self.bad:
            threading.Event().wait()
        return i


class Probe(Range):
    """i -> what the worker knows: (id, num_workers, seed, pid, draws from each RNG)."""

    def __getitem__(self, i):
        info = get_worker_info()
        return {
            "id": info.id,
            "num_workers": info.num_workers,
            "seed": info.seed,
            "pid": os.getpid(),
            "tag": getattr(info.dataset, "tag", ""),
            "minitorch": minitorch.rand(1).item(),
            "numpy": int(np.random.randint(1 << 30)),
            "random": random.random(),
        }


class Shards(IterableDataset):
    """range(n) split among the workers: worker k yields k, k + W, k + 2W, ..."""

    def __init__(self, n, with_len=True):
        self.n = n
        self.with_len = with_len

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        if not self.with_len:
            raise TypeError("no len")
        return self.n


class Unsharded(IterableDataset):
    """range(n) in every worker (duplicates: the len() warning must fire)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def tag_worker(worker_id):
    """worker_init_fn: marks the worker's dataset copy."""
    get_worker_info().dataset.tag = f"worker{worker_id}"


def failing_init(worker_id):
    raise KeyError(f"init {worker_id}")


def make_ghost():
    """A dataset class that exists only in this process: a spawned worker cannot load it."""

    class Ghost(Range):
        pass

    Ghost.__qualname__ = "Ghost"
    globals()["Ghost"] = Ghost
    return Ghost(4)
