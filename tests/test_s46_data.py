"""Session 46 (helper data): a TensorDataset batch gathered at once (NOTE [ TensorDataset batches ]
in minitorch/utils/data/_collate.py) is the batch the samples' views stack into, bit for bit,
with the same layout, history, order and random stream; everything the fast path does not
cover still reads the samples; the profiler's range per batch is opened only under a profile."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import profiler as P
from minitorch.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    TensorDataset,
    _collate,
    _worker,
)
from minitorch.utils.data import dataloader as dataloader_module

RANGE = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"


@pytest.fixture
def spy(monkeypatch):
    """Counts the batches tensor_rows answered (and those it declined)."""
    real = _collate.tensor_rows
    seen = {"fast": 0, "declined": 0}

    def counted(tensors, index):
        out = real(tensors, index)
        seen["fast" if out is not None else "declined"] += 1
        return out

    monkeypatch.setattr(_collate, "tensor_rows", counted)
    return seen


def _epoch(dl, *, fast=True):
    """One epoch of dl, through tensor_rows (fast) or with it declining (the samples' path)."""
    if fast:
        return list(dl)
    real = _collate.tensor_rows
    _collate.tensor_rows = lambda tensors, index: None
    try:
        return list(dl)
    finally:
        _collate.tensor_rows = real


def _assert_same_tensor(a, b, where):
    assert a.__class__ is b.__class__, where
    assert a.dtype == b.dtype and a.shape == b.shape, where
    assert a.stride() == b.stride() and a.is_contiguous() == b.is_contiguous(), where
    assert a.requires_grad == b.requires_grad, where
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__, where
    assert a._version == b._version and (a._base is None) == (b._base is None), where
    assert a._data.tobytes() == b._data.tobytes(), where  # bit for bit


def _assert_same_batches(got, want):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert type(g) is type(w) and len(g) == len(w), k
        for j, (a, b) in enumerate(zip(g, w, strict=True)):
            _assert_same_tensor(a, b, (k, j))


def _tensors(shape, dtype, seed=0):
    g = np.random.default_rng(seed)
    if dtype == mt.bool:
        return mt.tensor(g.random(shape) > 0.5)
    if dtype in (mt.int64, mt.int32, mt.uint8):
        return mt.tensor(g.integers(0, 100, shape)).to(dtype)
    return mt.tensor(g.standard_normal(shape)).to(dtype)


@pytest.mark.parametrize(
    "dtype",
    [mt.float32, mt.float64, mt.float16, mt.bfloat16, mt.int64, mt.int32, mt.uint8, mt.bool],
)
@pytest.mark.parametrize("shape", [(20,), (20, 3), (20, 1, 2, 3, 2), (20, 2, 3, 1, 2, 3)])
def test_batches_bit_for_bit(dtype, shape, spy):
    ds = TensorDataset(_tensors(shape, dtype), mt.arange(20))
    for kwargs in (
        {"batch_size": 6},
        {"batch_size": 1},
        {"batch_size": 64},
        {"batch_size": 7, "drop_last": True},
    ):
        dl = DataLoader(ds, **kwargs)
        _assert_same_batches(_epoch(dl), _epoch(dl, fast=False))
    assert spy["fast"] == 4 + 20 + 1 + 2 and spy["declined"] == 0


def test_shuffle_order_and_random_stream(spy):
    ds = TensorDataset(mt.randn(50, 4, generator=mt.Generator().manual_seed(1)), mt.arange(50))
    runs = []
    for fast in (True, False):
        mt.manual_seed(7)
        gen = mt.Generator().manual_seed(3)
        batches = _epoch(DataLoader(ds, batch_size=8, shuffle=True), fast=fast)
        batches += _epoch(DataLoader(ds, batch_size=8, shuffle=True, generator=gen), fast=fast)
        runs.append((batches, mt.randn(3), gen.get_state()))
    (fb, fr, fg), (sb, sr, sg) = runs
    _assert_same_batches(fb, sb)
    assert fr.tolist() == sr.tolist() and fg.tolist() == sg.tolist()
    order = mt.cat([b[1] for b in fb[:7]]).tolist()
    assert sorted(order) == list(range(50)) and order != list(range(50))
    assert spy["fast"] == 14


def test_result_is_new_storage_and_no_history(spy):
    x = mt.arange(12.0).reshape(6, 2)
    (b,) = next(iter(DataLoader(TensorDataset(x), batch_size=3)))
    assert b._base is None and b.grad_fn is None and not b.requires_grad and b._version == 0
    b.add_(100)
    assert x.tolist() == mt.arange(12.0).reshape(6, 2).tolist()  # a copy, not a view
    with mt.inference_mode():
        (c,) = next(iter(DataLoader(TensorDataset(x), batch_size=3)))
    assert c.is_inference() and not b.is_inference()
    assert spy["fast"] == 2


def test_recorded_and_no_grad(spy):
    w = mt.randn(6, 2, generator=mt.Generator().manual_seed(0), requires_grad=True)
    dl = DataLoader(TensorDataset(w, mt.arange(6)), batch_size=4)
    got = _epoch(dl)
    assert spy["fast"] == 0 and spy["declined"] == 2  # a graph to record: the samples' path
    _assert_same_batches(got, _epoch(dl, fast=False))
    assert type(got[0][0].grad_fn).__name__ == "StackBackward0"
    got[0][0].sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0]] * 4 + [[0.0, 0.0]] * 2
    with mt.no_grad():
        got = _epoch(dl)
        want = _epoch(dl, fast=False)
    assert spy["fast"] == 2
    _assert_same_batches(got, want)
    assert not got[0][0].requires_grad


class _Batches:
    """A batch sampler yielding the given index lists."""

    def __init__(self, batches):
        self.batches = batches

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)


class _Rows(TensorDataset):
    def __getitem__(self, index):
        return tuple(t[index] * 2 for t in self.tensors)


def test_declined_cases_read_the_samples(spy, monkeypatch):  # (spy patches through monkeypatch)
    x = mt.arange(24.0).reshape(8, 3)
    y = mt.arange(8)
    cases = [
        DataLoader(TensorDataset(x.t().contiguous().t(), y), batch_size=3),  # not row-major
        DataLoader(TensorDataset(x[:, ::2], y), batch_size=3),
        DataLoader(TensorDataset(x.expand(2, 8, 3)[0], y), batch_size=3),  # row-major
        DataLoader(TensorDataset(x, y), batch_sampler=_Batches([[np.int64(1), 2], [True]])),
        DataLoader(TensorDataset(x, y), batch_sampler=_Batches([(1, 2), [-1, 0]])),
        DataLoader(TensorDataset(mt.zeros(8, 0), y), batch_size=3),
    ]
    declined = [3, 3, 0, 2, 1, 3]
    for dl, n in zip(cases, declined, strict=True):
        before = spy["declined"]
        _assert_same_batches(_epoch(dl), _epoch(dl, fast=False))
        assert spy["declined"] - before == n
    assert spy["fast"] == 3 + 1
    # a subclass, another collate_fn: the dataset and collate_fn are called as before
    (b,) = [b for b in DataLoader(_Rows(mt.arange(3.0)), batch_size=3)]
    assert b[0].tolist() == [0.0, 2.0, 4.0]
    b = next(iter(DataLoader(TensorDataset(x), batch_size=2, collate_fn=lambda s: s)))
    assert isinstance(b, list) and isinstance(b[0], tuple) and b[0][0]._base is not None
    assert spy["fast"] == 4 and spy["declined"] == 12
    # an index out of range: the sample's error
    dl = DataLoader(TensorDataset(x), batch_sampler=_Batches([[0, 8]]))
    with pytest.raises(IndexError, match="index 8 is out of bounds for dimension 0 with size 8"):
        next(iter(dl))
    # inside a worker the batch is stacked into the worker's out= tensor: declined
    assert spy["declined"] == 13
    with monkeypatch.context() as m:
        m.setattr(_worker, "_worker_info", object())
        assert _collate.tensor_rows((x,), [0, 1]) is None
    assert _collate.tensor_rows((x,), [0, 1])[0].tolist() == x[:2].tolist()
    assert spy["declined"] == 14 and spy["fast"] == 5


def test_collate_map_and_class_patches_are_respected(monkeypatch):
    x = mt.arange(6.0)
    dl = DataLoader(TensorDataset(x), batch_size=3)
    with monkeypatch.context() as m:
        m.setitem(_collate.default_collate_fn_map, mt.Tensor, lambda b, **k: len(b))
        assert list(dl) == [[3], [3]]
    with monkeypatch.context() as m:
        m.setattr(TensorDataset, "__getitem__", lambda self, i: (i,))
        assert [b[0].tolist() for b in dl] == [[0, 1, 2], [3, 4, 5]]
    with monkeypatch.context() as m:
        getitems = lambda self, idx: [(-t,) for t in self.tensors[0][idx]]  # noqa: E731
        m.setattr(TensorDataset, "__getitems__", getitems, raising=False)
        assert [b[0].tolist() for b in dl] == [[-0.0, -1.0, -2.0], [-3.0, -4.0, -5.0]]
    assert not hasattr(TensorDataset, "__getitems__")  # as torch's
    assert [b[0].tolist() for b in dl] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_profiler_range_only_under_a_profile(spy, monkeypatch):
    ds = TensorDataset(mt.arange(5.0))
    opened = []

    class Counted(P.record_function):
        def __enter__(self):
            opened.append(self.name)
            return super().__enter__()

    monkeypatch.setattr(dataloader_module, "record_function", Counted)
    assert len(list(DataLoader(ds, batch_size=2))) == 3
    assert opened == [] and spy["fast"] == 3
    with mt.profiler.profile() as prof:
        batches = [b for (b,) in DataLoader(ds, batch_size=2)]
    assert [b.tolist() for b in batches] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert opened == [RANGE] * 4 and spy["fast"] == 3  # the ops are profiled: samples' path
    names = [e.name for e in prof.events()]
    assert names.count(RANGE) == 4 and "Stack" in names and "SelectIndex" in names


def test_collate_sizes_and_errors_in_order():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        _collate.default_collate([(1, 2), (3,), 5])
    with pytest.raises(TypeError, match="object of type 'int' has no len"):
        _collate.default_collate([(1, 2), 5, (3,)])
    assert [t.tolist() for t in _collate.default_collate([(1, 2.5), (3, 4.5)])] == [
        [1, 3],
        [2.5, 4.5],
    ]


class _Stream(IterableDataset):
    def __iter__(self):
        return iter(range(5))

    def __len__(self):
        return 3


class _Dict(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"x": mt.full((2,), float(i)), "y": i}


def test_length_warning_and_other_datasets():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dl = DataLoader(_Stream(), batch_size=None)
        assert len(dl) == 3
        assert [int(b) for b in dl] == [0, 1, 2, 3, 4]
    assert len(caught) == 2 and caught[0].filename == __file__
    assert "was reported to be 3(when accessing len(dataloader)), but 4" in str(caught[0].message)
    pairs = [(mt.full((2,), float(i)), i) for i in range(5)]
    got = list(DataLoader(pairs, batch_size=2))
    assert [b[1].tolist() for b in got] == [[0, 1], [2, 3], [4]] and got[0][1].dtype == mt.int64
    assert got[2][0].tolist() == [[4.0, 4.0]]
    (d,) = list(DataLoader(_Dict(), batch_size=4))
    assert d["x"][:, 0].tolist() == [0.0, 1.0, 2.0, 3.0] and d["y"].tolist() == [0, 1, 2, 3]
