"""Datasets: TensorDataset, StackDataset, ConcatDataset, ChainDataset, Subset, `+`, and
random_split (lengths, fractions, generators)."""

from __future__ import annotations

import pytest

import minitorch
from minitorch.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return self.n


class Count(IterableDataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


class Batched(Dataset):
    """Records whether it was read through __getitems__."""

    def __init__(self, n, *, short=False):
        self.n = n
        self.short = short
        self.calls = []

    def __getitem__(self, i):
        return -i

    def __getitems__(self, indices):
        self.calls.append(list(indices))
        out = [100 + i for i in indices]
        return out[:-1] if self.short else out

    def __len__(self):
        return self.n


def test_dataset_base_needs_getitem():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement"):
        Dataset()[0]


def test_dataset_is_generic():
    assert Dataset[int] is not None  # subscriptable in type hints, as in torch


def test_tensor_dataset_indexes_every_tensor():
    x = minitorch.arange(12).reshape(4, 3)
    y = minitorch.tensor([0, 1, 0, 1])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    a, b = ds[2]
    assert a.tolist() == [6, 7, 8] and b.item() == 0
    assert ds.tensors[0] is x
    xs, ys = ds[1:3]  # any index the tensors accept
    assert xs.shape == (2, 3) and ys.tolist() == [1, 0]


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(minitorch.zeros(3), minitorch.zeros(4))


def test_stack_dataset_tuple_and_dict():
    a, b = Squares(3), TensorDataset(minitorch.arange(3))
    assert StackDataset(a, b)[2][0] == 4
    assert StackDataset(a, b)[2][1][0].item() == 2
    d = StackDataset(x=a, y=Squares(3))
    assert d[1] == {"x": 1, "y": 1}
    assert len(d) == 3


def test_stack_dataset_getitems_uses_nested_getitems():
    inner = Batched(4)
    ds = StackDataset(inner, Squares(4))
    assert ds.__getitems__([1, 3]) == [(101, 1), (103, 9)]
    assert inner.calls == [[1, 3]]
    assert StackDataset(p=inner, q=Squares(4)).__getitems__([2]) == [{"p": 102, "q": 4}]
    with pytest.raises(
        ValueError, match="Nested dataset's output size mismatch. Expected 2, got 1"
    ):
        StackDataset(Batched(4, short=True)).__getitems__([0, 1])


def test_stack_dataset_errors():
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Squares(2), Squares(3))
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a=Squares(2), b=Squares(3))
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(Squares(2), b=Squares(2))


def test_concat_dataset_indexing():
    ds = ConcatDataset([Squares(2), Squares(3), Squares(1)])
    assert len(ds) == 6
    assert ds.cumulative_sizes == [2, 5, 6]
    assert [ds[i] for i in range(6)] == [0, 1, 0, 1, 4, 0]
    assert ds[-1] == 0 and ds[-4] == 0 and ds[-3] == 1
    with pytest.raises(
        ValueError, match="absolute value of index should not exceed dataset length"
    ):
        ds[-7]
    with pytest.raises(IndexError):
        ds[6]
    with pytest.warns(FutureWarning, match="renamed to `cumulative_sizes`"):
        assert ds.cummulative_sizes == [2, 5, 6]


def test_concat_dataset_errors():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Squares(1), Count(0, 2)])


def test_add_concatenates_or_chains():
    both = Squares(2) + Squares(3)
    assert isinstance(both, ConcatDataset) and len(both) == 5
    chained = Count(0, 2) + Count(5, 7)
    assert isinstance(chained, ChainDataset)
    assert list(chained) == [0, 1, 5, 6]
    assert len(chained) == 4


def test_chain_dataset_rejects_map_style():
    chained = ChainDataset([Count(0, 1), Squares(2)])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(chained)
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(chained)


def test_subset():
    sub = Subset(Squares(10), [9, 2, 4])
    assert len(sub) == 3
    assert [sub[i] for i in range(3)] == [81, 4, 16]
    assert sub.__getitems__([0, 2]) == [81, 16]
    inner = Batched(10)
    assert Subset(inner, [5, 6]).__getitems__([1, 0]) == [106, 105]
    assert inner.calls == [[6, 5]]


def test_subset_list_index_goes_to_dataset():
    x = minitorch.arange(10)
    sub = Subset(x, [7, 3, 5])
    assert sub[[0, 2]].tolist() == [7, 5]


def test_subset_subclass_must_override_getitems():
    class Bad(Subset):
        def __getitem__(self, idx):
            return 0

    with pytest.raises(NotImplementedError, match="Bad overrides __getitem__ but not __getitems__"):
        Bad(Squares(3), [0])

    class Good(Bad):
        def __getitems__(self, indices):
            return [self[i] for i in indices]

    assert Good(Squares(3), [0, 1]).__getitems__([0, 1]) == [0, 0]


def _parts(splits):
    return [list(s.indices) for s in splits]


def test_random_split_lengths_partition_the_dataset():
    splits = random_split(Squares(10), [3, 7], generator=minitorch.Generator().manual_seed(1))
    assert [len(s) for s in splits] == [3, 7]
    assert all(isinstance(s, Subset) for s in splits)
    assert sorted(sum(_parts(splits), [])) == list(range(10))


def test_random_split_fractions_distribute_the_remainder_round_robin():
    # floor(10 * f) = [3, 3, 3], remainder 1 goes to the first split
    assert [len(s) for s in random_split(Squares(10), [1 / 3, 1 / 3, 1 / 3])] == [4, 3, 3]
    assert [len(s) for s in random_split(Squares(11), [0.5, 0.25, 0.25])] == [6, 3, 2]
    assert [len(s) for s in random_split(Squares(7), [0.5, 0.5])] == [4, 3]


def test_random_split_fraction_warnings_and_errors():
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(Squares(1), [0.5, 0.5])  # floor gives [0, 0]; remainder goes to split 0
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(Squares(4), [0.5, 1.5, -1.0])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length"):
        random_split(Squares(4), [1, 2])


def test_random_split_is_reproducible():
    a = random_split(Squares(20), [5, 15], generator=minitorch.Generator().manual_seed(7))
    b = random_split(Squares(20), [5, 15], generator=minitorch.Generator().manual_seed(7))
    c = random_split(Squares(20), [5, 15], generator=minitorch.Generator().manual_seed(8))
    assert _parts(a) == _parts(b)
    assert _parts(a) != _parts(c)
    minitorch.manual_seed(3)
    d = random_split(Squares(20), [5, 15])  # the default generator
    minitorch.manual_seed(3)
    assert _parts(random_split(Squares(20), [5, 15])) == _parts(d)
