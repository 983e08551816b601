"""Samplers: sequential, random (with and without replacement, generators, seeding), subset,
weighted, batch and distributed."""

from __future__ import annotations

import collections

import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)


def _gen(seed):
    return minitorch.Generator().manual_seed(seed)


def test_sampler_base_needs_iter():
    with pytest.raises(NotImplementedError):
        iter(Sampler())


def test_sequential_sampler():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5
    assert list(SequentialSampler([])) == []


def test_random_sampler_is_a_permutation():
    s = RandomSampler(range(10), generator=_gen(0))
    order = list(s)
    assert sorted(order) == list(range(10)) and len(s) == 10
    assert order != list(range(10))


def test_random_sampler_generator_reproducible_and_advancing():
    g = _gen(3)
    s = RandomSampler(range(20), generator=g)
    first, second = list(s), list(s)
    assert first != second  # the generator advances between epochs
    assert list(RandomSampler(range(20), generator=_gen(3))) == first


def test_random_sampler_default_generator_follows_manual_seed():
    minitorch.manual_seed(5)
    a = list(RandomSampler(range(30)))
    minitorch.manual_seed(5)
    assert list(RandomSampler(range(30))) == a
    minitorch.manual_seed(6)
    assert list(RandomSampler(range(30))) != a


def test_random_sampler_num_samples_without_replacement_repeats_permutations():
    s = RandomSampler(range(4), num_samples=10, generator=_gen(1))
    out = list(s)
    assert len(out) == len(s) == 10
    assert sorted(out[:4]) == sorted(out[4:8]) == [0, 1, 2, 3]
    assert len(set(out[8:])) == 2


def test_random_sampler_with_replacement():
    s = RandomSampler(range(3), replacement=True, num_samples=70, generator=_gen(2))
    out = list(s)
    assert len(out) == 70 and set(out) == {0, 1, 2}
    assert collections.Counter(out).most_common(1)[0][1] > 1
    assert list(RandomSampler(range(3), replacement=True, num_samples=70, generator=_gen(2))) == out


def test_random_sampler_errors():
    with pytest.raises(
        TypeError, match="replacement should be a boolean value, but got replacement=0"
    ):
        RandomSampler(range(3), replacement=0)
    with pytest.raises(
        ValueError, match="num_samples should be a positive integer value, but got num_samples=0"
    ):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples=0"):
        RandomSampler([])
    with pytest.raises(ValueError, match="num_samples=1.5"):
        RandomSampler(range(3), num_samples=1.5)


def test_subset_random_sampler():
    idx = [10, 20, 30, 40]
    s = SubsetRandomSampler(idx, generator=_gen(0))
    out = list(s)
    assert sorted(out) == idx and len(s) == 4
    assert list(SubsetRandomSampler(idx, generator=_gen(0))) == out


def test_weighted_sampler_with_replacement_follows_the_weights():
    s = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 400, generator=_gen(0))
    out = list(s)
    counts = collections.Counter(out)
    assert len(out) == len(s) == 400
    assert set(counts) == {1, 3}  # zero weights are never drawn
    assert 0.65 < counts[3] / 400 < 0.85
    assert s.weights.dtype is minitorch.float64 and s.replacement is True


def test_weighted_sampler_without_replacement():
    s = WeightedRandomSampler([5.0, 0.0, 1.0, 2.0], 4, replacement=False, generator=_gen(0))
    out = list(s)
    assert sorted(out) == [0, 1, 2, 3]
    assert out[-1] == 1  # a zero weight is drawn only once nothing else is left
    assert list(WeightedRandomSampler([1.0, 0.0, 0.0], 2, replacement=False)) == [0, 1]


def test_weighted_sampler_reproducible():
    w = minitorch.tensor([1.0, 2.0, 3.0, 4.0])
    a = list(WeightedRandomSampler(w, 10, generator=_gen(4)))
    assert list(WeightedRandomSampler(w, 10, generator=_gen(4))) == a


def test_weighted_sampler_errors():
    with pytest.raises(
        ValueError, match="num_samples should be a positive integer value, but got num_samples=True"
    ):
        WeightedRandomSampler([1.0], True)
    with pytest.raises(
        ValueError, match="replacement should be a boolean value, but got replacement=1"
    ):
        WeightedRandomSampler([1.0], 1, replacement=1)
    with pytest.raises(
        ValueError,
        match=r"weights should be a 1d sequence but given weights have "
        r"shape \(1, 2\)",
    ):
        WeightedRandomSampler([[1.0, 2.0]], 1)
    cases = [
        (([1.0, 2.0], 3, False), "cannot sample n_sample > prob_dist.size"),
        (
            ([1.0, -1.0], 2, True),
            r"invalid multinomial distribution \(encountering probability "
            r"entry < 0\)",
        ),
        (([1.0, float("inf")], 2, True), r"\(encountering probability entry = infinity or NaN\)"),
        (([1.0, -1.0], 1, True), "probability tensor contains"),  # one draw: torch's other kernel
        (([1.0, -1.0], 1, False), "probability tensor contains either `inf`, `nan` or element < 0"),
        (([1.0, float("nan")], 1, True), "probability tensor contains either `inf`, `nan`"),
        (([0.0, 0.0], 1, True), r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
        (([], 1, True), r"^aminmax\(\): cannot compute aminmax over an empty dimension"),
    ]
    for args, msg in cases:
        s = WeightedRandomSampler(*args)  # torch checks when iterating
        with pytest.raises(RuntimeError, match=msg):
            list(s)


def test_batch_sampler():
    s = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False)
    assert list(s) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(s) == 4
    s = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True)
    assert list(s) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(s) == 3
    s = BatchSampler(range(6), 3, True)  # any iterable of indices
    assert list(s) == [[0, 1, 2], [3, 4, 5]] and len(s) == 2
    assert list(BatchSampler([], 2, False)) == []


def test_batch_sampler_errors():
    for bad in (0, -1, True, 2.0):
        with pytest.raises(
            ValueError,
            match=f"batch_size should be a positive integer value, but got batch_size={bad}",
        ):
            BatchSampler(range(3), bad, False)
    with pytest.raises(
        ValueError, match="drop_last should be a boolean value, but got drop_last=0"
    ):
        BatchSampler(range(3), 1, 0)


def _all_ranks(n, replicas, **kw):
    return [list(DistributedSampler(range(n), replicas, r, **kw)) for r in range(replicas)]


def test_distributed_sampler_partition_and_padding():
    parts = _all_ranks(10, 3, shuffle=False)
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded from the start
    assert len(DistributedSampler(range(10), 3, 0)) == 4
    parts = _all_ranks(2, 5, shuffle=False)  # padding longer than the dataset wraps around
    assert parts == [[0], [1], [0], [1], [0]]


def test_distributed_sampler_drop_last():
    parts = _all_ranks(10, 3, shuffle=False, drop_last=True)
    assert parts == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    s = DistributedSampler(range(10), 3, 1, drop_last=True)
    assert len(s) == 3 and s.total_size == 9
    assert len(DistributedSampler(range(9), 3, 1, drop_last=True)) == 3


def test_distributed_sampler_shuffle_seed_and_epoch():
    parts = _all_ranks(12, 3, seed=4)
    assert sorted(sum(parts, [])) == list(range(12))  # one permutation shared by the ranks
    assert _all_ranks(12, 3, seed=4) == parts
    s = DistributedSampler(range(12), 3, 0, seed=4)
    assert list(s) == parts[0] and s.epoch == 0
    s.set_epoch(1)
    assert s.epoch == 1 and list(s) != parts[0]
    t = DistributedSampler(range(12), 3, 0, seed=3)
    t.set_epoch(1)
    assert list(t) == list(DistributedSampler(range(12), 3, 0, seed=4))  # seed + epoch


def test_distributed_sampler_errors():
    with pytest.raises(
        ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"
    ):
        DistributedSampler(range(4), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=3, rank=-1)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(4))
