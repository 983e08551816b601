"""DataLoader: batching options, samplers, len(), option errors, and worker processes
(ordering, seeding, errors, dead workers, shutdown, persistence, spawn)."""

from __future__ import annotations

import gc
import multiprocessing
import sys
import types
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
    get_worker_info,
)
from tests.utils import _loader_datasets as helpers


def _values(loader):
    return [b.tolist() for b in loader]


def _no_children():
    gc.collect()
    return multiprocessing.active_children() == []


@pytest.fixture(autouse=True)
def _check_no_orphans():
    yield
    assert _no_children(), multiprocessing.active_children()


# --- single process ---


def test_batches_in_order():
    assert _values(DataLoader(helpers.Range(7), batch_size=3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _values(DataLoader(helpers.Range(7), batch_size=3, drop_last=True)) == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    assert _values(DataLoader(helpers.Range(3))) == [[0], [1], [2]]  # batch_size=1


def test_tensor_dataset_batches():
    x = minitorch.arange(10, dtype=minitorch.float32).reshape(5, 2)
    y = minitorch.arange(5)
    xb, yb = next(iter(DataLoader(TensorDataset(x, y), batch_size=4)))
    assert xb.shape == (4, 2) and xb.dtype is minitorch.float32
    assert yb.tolist() == [0, 1, 2, 3]


def test_batch_size_none_disables_batching():
    loader = DataLoader(helpers.Range(3), batch_size=None)
    assert list(loader) == [0, 1, 2]  # default_convert leaves ints alone
    assert loader.collate_fn is minitorch.utils.data.default_convert
    out = list(DataLoader([np.ones(2), np.zeros(2)], batch_size=None))
    assert all(isinstance(o, minitorch.Tensor) and o.shape == (2,) for o in out)


def test_shuffle_is_reproducible():
    minitorch.manual_seed(1)
    a = _values(DataLoader(helpers.Range(20), batch_size=5, shuffle=True))
    minitorch.manual_seed(1)
    b = _values(DataLoader(helpers.Range(20), batch_size=5, shuffle=True))
    assert a == b and sorted(sum(a, [])) == list(range(20)) and sum(a, []) != list(range(20))
    g = minitorch.Generator().manual_seed(2)
    loader = DataLoader(helpers.Range(20), batch_size=5, shuffle=True, generator=g)
    epoch1, epoch2 = _values(loader), _values(loader)
    assert epoch1 != epoch2  # reshuffled every epoch
    g.manual_seed(2)
    assert _values(loader) == epoch1


def test_sampler_and_batch_sampler():
    loader = DataLoader(helpers.Range(6), batch_size=2, sampler=[5, 4, 3, 2, 1, 0])
    assert _values(loader) == [[5, 4], [3, 2], [1, 0]]
    bs = BatchSampler(SequentialSampler(range(5)), 2, drop_last=False)
    loader = DataLoader(helpers.Range(5), batch_sampler=bs)
    assert _values(loader) == [[0, 1], [2, 3], [4]]
    assert loader.batch_size is None and loader.drop_last is False and len(loader) == 3
    assert _values(DataLoader(helpers.Range(5), batch_sampler=[[4, 0], [2]])) == [[4, 0], [2]]


def test_custom_collate_fn_and_getitems():
    loader = DataLoader(helpers.Range(5), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(loader) == [1, 5, 4]

    class Batched(Dataset):
        def __getitems__(self, indices):
            return [10 * i for i in indices]

        def __len__(self):
            return 4

    assert _values(DataLoader(Batched(), batch_size=3)) == [[0, 10, 20], [30]]


def test_structured_samples():
    xb, ib = next(iter(DataLoader(helpers.Pairs(4), batch_size=4)))
    assert xb.shape == (4, 2) and ib.dtype is minitorch.int64


def test_len():
    assert len(DataLoader(helpers.Range(10), batch_size=3)) == 4
    assert len(DataLoader(helpers.Range(10), batch_size=3, drop_last=True)) == 3
    assert len(DataLoader(helpers.Range(10), batch_size=None)) == 10
    assert len(iter(DataLoader(helpers.Range(10), batch_size=4))) == 3


def test_iterable_dataset_single_process():
    loader = DataLoader(helpers.Shards(7), batch_size=3)
    assert _values(loader) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _values(DataLoader(helpers.Shards(7), batch_size=3, drop_last=True)) == [
        [0, 1, 2],
        [3, 4, 5],
    ]
    assert list(DataLoader(helpers.Shards(3), batch_size=None)) == [0, 1, 2]


def test_iterable_dataset_len():
    assert len(DataLoader(helpers.Shards(7), batch_size=3)) == 3  # ceil
    assert len(DataLoader(helpers.Shards(7), batch_size=3, drop_last=True)) == 2  # floor
    assert len(DataLoader(helpers.Shards(7), batch_size=None)) == 7
    with pytest.raises(TypeError, match="no len"):
        len(DataLoader(helpers.Shards(7, with_len=False)))

    class Liar(IterableDataset):
        def __iter__(self):
            return iter(range(4))

        def __len__(self):
            return 2

    loader = DataLoader(Liar(), batch_size=1)
    list(loader)  # no warning before len() was asked
    assert len(loader) == 2
    with pytest.warns(
        UserWarning,
        match=r"was reported to be 2\(when accessing len\(dataloader\)\), "
        r"but [34] samples have been fetched",
    ):
        list(loader)


def test_option_errors():
    ds, it = helpers.Range(4), helpers.Shards(4)
    cases = [
        (dict(num_workers=-1), "num_workers option should be non-negative; use num_workers=0"),
        (dict(timeout=-1), "timeout option should be non-negative"),
        (
            dict(prefetch_factor=2),
            "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0",
        ),
        (dict(num_workers=1, prefetch_factor=-1), "prefetch_factor option should be non-negative"),
        (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
        (dict(sampler=[0], shuffle=True), "sampler option is mutually exclusive with shuffle"),
        (
            dict(batch_sampler=[[0]], batch_size=2),
            "batch_sampler option is mutually exclusive with "
            "batch_size, shuffle, sampler, and drop_last",
        ),
        (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
        (
            dict(batch_size=None, drop_last=True),
            "batch_size=None option disables auto-batching and "
            "is mutually exclusive with drop_last",
        ),
        (
            dict(multiprocessing_context="spawn"),
            "multiprocessing_context can only be used with "
            r"multi-process loading \(num_workers > 0\), but got "
            "num_workers=0",
        ),
        (
            dict(num_workers=1, multiprocessing_context="nope"),
            "multiprocessing_context option should specify a valid start method",
        ),
    ]
    for kwargs, msg in cases:
        with pytest.raises(ValueError, match=msg):
            DataLoader(ds, **kwargs)
    with pytest.raises(TypeError, match="should be a valid context object or a string"):
        DataLoader(ds, num_workers=1, multiprocessing_context=3)
    for kwargs, what in [
        (dict(shuffle=True), "shuffle option, but got shuffle=True"),
        (dict(sampler=[0]), "sampler option, but got sampler=[0]"),
        (dict(batch_sampler=[[0]]), "batch_sampler option, but got"),
    ]:
        with pytest.raises(
            ValueError,
            match=r"DataLoader with IterableDataset: expected "
            r"unspecified " + what.replace("[", r"\[").replace("]", r"\]"),
        ):
            DataLoader(it, **kwargs)
    DataLoader(it, shuffle=False)  # allowed


def test_attributes_are_frozen_after_init():
    loader = DataLoader(helpers.Range(4))
    for attr in (
        "batch_size",
        "batch_sampler",
        "sampler",
        "drop_last",
        "dataset",
        "persistent_workers",
    ):
        with pytest.raises(
            ValueError, match=f"{attr} attribute should not be set after DataLoader is initialized"
        ):
            setattr(loader, attr, None)
    loader.num_workers = 0  # others may change


def test_timeout_needs_workers():
    with pytest.raises(AssertionError, match="_SingleProcessDataLoaderIter requires timeout == 0"):
        iter(DataLoader(helpers.Range(4), timeout=1))


def test_iterator_cannot_be_pickled():
    import pickle

    with pytest.raises(NotImplementedError):
        pickle.dumps(iter(DataLoader(helpers.Range(4))))


def test_pin_memory_on_cpu_warns_and_passes_batches_through():
    if minitorch.cuda.is_available():
        pytest.skip("pins for real where CUDA is available")
    loader = DataLoader(helpers.Range(4), batch_size=2, pin_memory=True)
    with pytest.warns(
        UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"
    ):
        assert _values(loader) == [[0, 1], [2, 3]]


def test_too_many_workers_warns():
    with pytest.warns(
        UserWarning, match="This DataLoader will create 100000 worker processes in total"
    ):
        DataLoader(helpers.Range(4), num_workers=100000)


def test_get_worker_info_in_main_process_is_none():
    assert get_worker_info() is None


# --- worker processes ---


def test_workers_give_the_same_batches_in_order():
    for shuffle in (False, True):
        g = minitorch.Generator().manual_seed(4)
        single = _values(DataLoader(helpers.Range(23), batch_size=3, shuffle=shuffle, generator=g))
        g.manual_seed(4)
        loader = DataLoader(
            helpers.Range(23), batch_size=3, shuffle=shuffle, generator=g, num_workers=2
        )
        assert _values(loader) == single
    assert len(loader) == 8


def test_worker_batches_are_cpu_tensors_with_structure():
    xb, ib = next(iter(DataLoader(helpers.Pairs(4), batch_size=2, num_workers=1)))
    assert isinstance(xb, minitorch.Tensor) and xb.device.type == "cpu"
    assert xb.tolist() == [[0.0, 0.0], [1.0, 1.0]] and ib.tolist() == [0, 1]


def test_workers_without_batching_and_options():
    assert list(DataLoader(helpers.Range(5), batch_size=None, num_workers=2)) == [0, 1, 2, 3, 4]
    loader = DataLoader(
        helpers.Range(9), batch_size=2, num_workers=2, prefetch_factor=1, drop_last=True
    )
    assert _values(loader) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    unordered = DataLoader(helpers.Range(9), batch_size=2, num_workers=2, in_order=False)
    assert sorted(sum(_values(unordered), [])) == list(range(9))


def test_iterable_dataset_sharded_by_worker_info():
    loader = DataLoader(helpers.Shards(7), batch_size=2, num_workers=2)
    # worker 0 holds 0, 2, 4, 6 and worker 1 holds 1, 3, 5; batches alternate between them
    assert _values(loader) == [[0, 2], [1, 3], [4, 6], [5]]
    assert list(DataLoader(helpers.Shards(5), batch_size=None, num_workers=2)) == [0, 1, 2, 3, 4]
    dropped = DataLoader(helpers.Shards(7), batch_size=2, num_workers=2, drop_last=True)
    assert _values(dropped) == [[0, 2], [1, 3], [4, 6]]


def test_iterable_dataset_duplicates_warn_after_len():
    loader = DataLoader(helpers.Unsharded(2), batch_size=1, num_workers=2)
    assert len(loader) == 2
    with pytest.warns(
        UserWarning,
        match="could be caused by not properly configuring the "
        "IterableDataset replica at each worker",
    ):
        assert len(list(loader)) == 4


def test_worker_exception_is_reraised_with_traceback():
    loader = DataLoader(helpers.RaiseAt(6, bad=4), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1]
    assert next(it).tolist() == [2, 3]
    with pytest.raises(ValueError) as info:
        next(it)
    msg = str(info.value)
    assert msg.startswith(
        "Caught ValueError in DataLoader worker process 0.\nOriginal Traceback "
        "(most recent call last):\n"
    ), msg
    assert "_loader_datasets.py" in msg and "ValueError: bad index 4" in msg
    del it


def test_worker_key_error_message_is_readable():
    loader = DataLoader(helpers.RaiseAt(2, bad=1, exc=KeyError), batch_size=1, num_workers=1)
    with pytest.raises(KeyError) as info:
        list(loader)
    assert "Caught KeyError in DataLoader worker process 0.\nOriginal Traceback" in str(info.value)
    assert "\\n" not in str(info.value)  # the text, not its repr


def test_unpicklable_batch_is_reported_not_lost():
    loader = DataLoader(helpers.Range(2), num_workers=1, collate_fn=lambda b: lambda: b)
    with pytest.raises(
        Exception, match="Caught .* in DataLoader worker process 0 while sending a batch"
    ):
        list(loader)


@pytest.mark.parametrize("kill", [False, True], ids=["os._exit", "SIGKILL"])
def test_dead_worker_raises(kill):
    loader = DataLoader(helpers.ExitAt(8, bad=3, kill=kill), batch_size=1, num_workers=2)
    with pytest.raises(
        RuntimeError,
        match=r"DataLoader worker \(pid\(s\) \d+\) exited "
        r"unexpectedly",
    ):
        list(loader)


def test_timeout_raises():
    loader = DataLoader(helpers.BlockAt(4, bad=1), batch_size=1, num_workers=1, timeout=0.2)
    it = iter(loader)
    assert next(it).tolist() == [0]
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.2 seconds"):
        next(it)
    del it


def test_early_break_and_del_leave_no_processes():
    loader = DataLoader(helpers.Range(100), batch_size=2, num_workers=2)
    for i, _ in enumerate(loader):
        if i == 2:
            break
    assert _no_children()
    it = iter(loader)
    next(it)
    assert len(multiprocessing.active_children()) == 2
    del it
    assert _no_children()


def test_workers_exit_at_the_end_of_an_epoch():
    loader = DataLoader(helpers.Range(4), batch_size=2, num_workers=2)
    it = iter(loader)
    assert len(list(it)) == 2
    assert multiprocessing.active_children() == []  # before `it` is collected


def _probe(loader):
    return [row for batch in loader for row in _rows(batch)]


def _rows(batch):
    keys = list(batch)
    return [
        {
            k: (batch[k][i].item() if isinstance(batch[k], minitorch.Tensor) else batch[k][i])
            for k in keys
        }
        for i in range(len(batch["id"]))
    ]


def test_workers_are_seeded_from_the_generator():
    def run(seed):
        g = minitorch.Generator().manual_seed(seed)
        return _probe(DataLoader(helpers.Probe(4), batch_size=1, num_workers=2, generator=g))

    rows = run(11)
    assert [r["id"] for r in rows] == [0, 1, 0, 1]
    base = rows[0]["seed"]
    assert rows[1]["seed"] == base + 1 and rows[2]["seed"] == base  # seed = base_seed + id
    assert rows[0]["num_workers"] == 2
    for rng in ("minitorch", "numpy", "random"):  # the workers' streams differ ...
        assert rows[0][rng] != rows[1][rng], rng
    again = run(11)  # ... and repeat for the same generator seed
    strip = [{k: v for k, v in r.items() if k != "pid"} for r in rows]
    assert [{k: v for k, v in r.items() if k != "pid"} for r in again] == strip
    assert run(12)[0]["seed"] != base


def test_base_seed_follows_manual_seed_and_changes_each_epoch():
    loader = DataLoader(helpers.Probe(2), batch_size=1, num_workers=1)
    minitorch.manual_seed(5)
    first, second = _probe(loader), _probe(loader)
    assert first[0]["seed"] != second[0]["seed"]
    minitorch.manual_seed(5)
    assert _probe(loader)[0]["seed"] == first[0]["seed"]


def test_worker_seeding_does_not_touch_the_main_process():
    minitorch.manual_seed(0)
    np.random.seed(0)
    expected_np = np.random.RandomState(0).randint(1 << 30)
    list(DataLoader(helpers.Probe(2), batch_size=1, num_workers=1))
    assert np.random.randint(1 << 30) == expected_np


def test_worker_init_fn():
    loader = DataLoader(
        helpers.Probe(4), batch_size=2, num_workers=2, worker_init_fn=helpers.tag_worker
    )
    rows = _probe(loader)
    assert [r["tag"] for r in rows] == ["worker0", "worker0", "worker1", "worker1"]
    failing = DataLoader(helpers.Range(4), num_workers=1, worker_init_fn=helpers.failing_init)
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(failing)


def test_persistent_workers_keep_their_processes():
    loader = DataLoader(helpers.Probe(4), batch_size=2, num_workers=2, persistent_workers=True)
    first = _probe(loader)
    assert len(multiprocessing.active_children()) == 2  # still alive between epochs
    second = _probe(loader)
    assert {r["pid"] for r in first} == {r["pid"] for r in second}
    assert len({r["pid"] for r in first}) == 2
    it = iter(loader)  # an epoch abandoned halfway, then a full one
    next(it)
    assert len(_probe(loader)) == 4
    del it, loader
    assert _no_children()


def test_persistent_workers_restart_iterable_datasets():
    loader = DataLoader(helpers.Shards(5), batch_size=2, num_workers=2, persistent_workers=True)
    assert _values(loader) == _values(loader) == [[0, 2], [1, 3], [4]]
    del loader


def test_multiprocessing_context_object():
    ctx = multiprocessing.get_context("fork")
    loader = DataLoader(helpers.Range(4), batch_size=2, num_workers=1, multiprocessing_context=ctx)
    assert loader.multiprocessing_context is ctx
    assert _values(loader) == [[0, 1], [2, 3]]


# --- spawn: the dataset travels by pickling ---


def test_spawn_with_an_importable_dataset():
    g = minitorch.Generator().manual_seed(3)
    loader = DataLoader(
        helpers.Pairs(5),
        batch_size=2,
        shuffle=True,
        num_workers=2,
        generator=g,
        multiprocessing_context="spawn",
        worker_init_fn=helpers.tag_worker,
    )
    spawned = [b[1].tolist() for b in loader]
    g.manual_seed(3)
    assert [
        b[1].tolist() for b in DataLoader(helpers.Pairs(5), batch_size=2, shuffle=True, generator=g)
    ] == spawned


def test_spawn_with_a_notebook_dataset_says_what_to_do(monkeypatch):
    notebook = types.ModuleType("__main__")  # like Jupyter's: no __file__, no __spec__

    class NotebookDataset(Dataset):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 2

    NotebookDataset.__module__ = "__main__"
    NotebookDataset.__qualname__ = "NotebookDataset"
    notebook.NotebookDataset = NotebookDataset
    monkeypatch.setitem(sys.modules, "__main__", notebook)
    loader = DataLoader(NotebookDataset(), num_workers=2, multiprocessing_context="spawn")
    with pytest.raises(
        RuntimeError,
        match=r"NotebookDataset defined in __main__ .* move the "
        r"dataset class .* to a \.py module .* or use "
        r"num_workers=0",
    ):
        iter(loader)


def test_spawn_with_an_unpicklable_dataset_says_what_to_do():
    class Local(Dataset):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 2

    loader = DataLoader(Local(), num_workers=1, multiprocessing_context="spawn")
    with pytest.raises(
        RuntimeError,
        match=r"cannot be pickled \((AttributeError|PicklingError).*"
        r"Local.*num_workers=0",
    ):
        iter(loader)
    lam = DataLoader(
        helpers.Range(2), num_workers=1, multiprocessing_context="spawn", collate_fn=lambda b: b
    )
    with pytest.raises(RuntimeError, match="cannot be pickled"):
        iter(lam)


def test_spawn_worker_that_cannot_load_the_dataset_says_what_to_do():
    ghost = helpers.make_ghost()  # pickles here, but the worker's fresh import has no Ghost
    loader = DataLoader(ghost, num_workers=1, multiprocessing_context="spawn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeError) as info:
            list(loader)
    msg = str(info.value)
    assert "in DataLoader worker process 0 while loading the dataset" in msg
    assert "to a .py module" in msg and "num_workers=0" in msg
    assert "Can't get attribute 'Ghost'" in msg
