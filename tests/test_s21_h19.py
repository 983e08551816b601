"""utils.data's random orders are torch's: with the CPU streams torch's mt19937, the samplers,
random_split, DataLoader(shuffle=True) and the seeds that reach worker processes give, for the
same seed, the indices and numbers torch 2.13 gives (literals obtained by running torch). The
order of draws matters as much as the draws: a loader iterator takes its workers' base seed
from the generator before the sampler takes its own seed."""

from __future__ import annotations

import multiprocessing
import random

import numpy as np
import pytest

import minitorch
from minitorch.utils import data


def test_random_sampler_orders_are_torchs():
    minitorch.manual_seed(0)
    assert list(data.RandomSampler(range(10))) == [6, 9, 0, 7, 3, 5, 4, 2, 1, 8]
    # the sampler's private generator was seeded from one draw of the default one
    assert minitorch.rand(2).tolist() == [0.08847743272781372, 0.13203048706054688]

    g = minitorch.Generator().manual_seed(1)
    # num_samples > n: whole permutations, then the head of one more
    assert list(data.RandomSampler(range(6), num_samples=13, generator=g)) == [
        1, 5, 2, 0, 3, 4, 1, 2, 3, 5, 4, 0, 2
    ]  # fmt: skip
    assert list(data.RandomSampler(range(6), generator=g)) == [0, 3, 1, 5, 4, 2]


def test_random_sampler_with_replacement_draws_torchs_chunks():
    minitorch.manual_seed(2)
    got = list(data.RandomSampler(range(1000), replacement=True, num_samples=35))
    assert got == [
        828, 209, 524, 359, 914, 414, 74, 429, 350, 559, 799, 964, 782, 562, 913, 918, 246,
        633, 188, 704, 9, 349, 715, 996, 933, 883, 670, 440, 944, 723, 459, 728, 636, 840, 266,
    ]  # fmt: skip


def test_subset_and_weighted_samplers_are_torchs():
    g = minitorch.Generator().manual_seed(5)
    assert list(data.SubsetRandomSampler([3, 5, 7, 9, 11], generator=g)) == [5, 9, 3, 11, 7]

    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    minitorch.manual_seed(3)
    assert list(data.WeightedRandomSampler(weights, 10)) == [1, 3, 4, 1, 4, 4, 2, 4, 4, 4]
    assert list(data.WeightedRandomSampler(weights, 5, replacement=False)) == [5, 3, 1, 4, 2]
    g = minitorch.Generator().manual_seed(8)
    assert list(data.WeightedRandomSampler([1.0, 0.0, 2.0, 5.0], 6, generator=g)) == [
        3, 3, 0, 2, 3, 2
    ]  # fmt: skip


def _replicas(epoch, **kwargs):
    out = []
    for rank in range(3):
        s = data.DistributedSampler(range(11), num_replicas=3, rank=rank, seed=4, **kwargs)
        s.set_epoch(epoch)
        out.append(list(s))
    return out


def test_distributed_sampler_shuffle_is_torchs():
    assert _replicas(0) == [[10, 8, 0, 2], [5, 1, 4, 9], [6, 7, 3, 10]]
    assert _replicas(3) == [[3, 2, 4, 7], [0, 5, 10, 6], [9, 8, 1, 3]]
    assert _replicas(1, drop_last=True)[1] == [5, 10, 6]


def test_random_split_is_torchs():
    g = minitorch.Generator().manual_seed(42)
    parts = data.random_split(range(10), [3, 7], generator=g)
    assert [p.indices for p in parts] == [[2, 6, 1], [8, 4, 5, 0, 9, 3, 7]]
    minitorch.manual_seed(7)
    parts = data.random_split(range(10), [0.3, 0.3, 0.4])
    assert [p.indices for p in parts] == [[5, 0, 3], [4, 1, 7], [9, 6, 8, 2]]
    assert minitorch.rand(1).tolist() == [0.8512683510780334]


def test_dataloader_shuffle_and_its_draws_are_torchs():
    minitorch.manual_seed(3)
    loader = data.DataLoader(range(10), batch_size=3, shuffle=True)
    epochs = [[b.tolist() for b in loader] for _ in range(2)]
    assert epochs == [
        [[6, 2, 0], [1, 8, 3], [5, 4, 7], [9]],
        [[3, 4, 0], [9, 6, 7], [1, 2, 5], [8]],
    ]
    # each epoch drew the workers' base seed, then the sampler's seed: two draws per epoch
    assert minitorch.rand(2).tolist() == [0.5944212079048157, 0.887856662273407]

    # with generator=, both draws come from it and the default generator is untouched
    g = minitorch.Generator().manual_seed(11)
    loader = data.DataLoader(range(8), batch_size=4, shuffle=True, generator=g)
    minitorch.manual_seed(0)
    assert [b.tolist() for b in loader] == [[0, 5, 7, 1], [3, 4, 2, 6]]
    assert minitorch.rand(1).tolist() == [0.49625658988952637]
    assert minitorch.rand(1, generator=g).tolist() == [0.10250282287597656]

    # even an unshuffled loader draws the base seed once per epoch
    minitorch.manual_seed(3)
    assert [b.tolist() for b in data.DataLoader([0, 1])] == [[0], [1]]
    assert minitorch.rand(1).tolist() == [0.2858424782752991]


class _WorkerSeeds:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = data.get_worker_info()
        return (
            i,
            info.id,
            info.seed,
            minitorch.initial_seed(),
            minitorch.rand(1).item(),
            random.random(),
            int(np.random.randint(0, 10**6)),
        )


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
def test_worker_seeds_and_streams_are_torchs():
    minitorch.manual_seed(5)
    loader = data.DataLoader(
        _WorkerSeeds(), batch_size=None, num_workers=2, multiprocessing_context="fork"
    )
    base = 4095051218741643470
    # worker w: seed base + w for minitorch and Python's random, NumPy from SeedSequence
    assert list(loader) == [
        [0, 0, base, base, 0.7106006741523743, 0.9732059885921714, 610916],
        [1, 1, base + 1, base + 1, 0.2905186414718628, 0.7347412016282042, 691010],
        [2, 0, base, base, 0.34830594062805176, 0.09916814881074121, 534634],
        [3, 1, base + 1, base + 1, 0.5857152342796326, 0.421098279900221, 463968],
    ]
