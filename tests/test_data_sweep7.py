"""utils.data sweep 7: default_collate inside workers (out= semantics), one thread per worker,
and torch's internal names (iterator classes, _utils.fetch, _generate_state, DataPipes)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import (
    DataLoader,
    Dataset,
    IterDataPipe,
    MapDataPipe,
    default_collate,
    functional_datapipe,
)
from minitorch.utils.data import _worker as worker_impl
from minitorch.utils.data import dataloader as dataloader_mod


class _Samples(Dataset):
    """Two samples of one kind: "grad" (requires grad), "param", "second" (only sample 1
    requires grad), "mixed" (float32 then float64) or "threads" (get_num_threads())."""

    def __init__(self, kind):
        self.kind = kind

    def __len__(self):
        return 2

    def __getitem__(self, i):
        if self.kind == "param":
            return minitorch.nn.Parameter(minitorch.ones(2))
        if self.kind == "second":
            return minitorch.ones(2, requires_grad=i == 1)
        if self.kind == "mixed":
            return minitorch.ones(2, dtype=minitorch.float64 if i else minitorch.float32)
        if self.kind == "threads":
            return minitorch.get_num_threads()
        if self.kind == "numpy":
            return worker_impl.get_worker_info().seed, int(np.random.randint(1 << 30))
        return minitorch.ones(2, requires_grad=True)


def _no_grad_init(worker_id):
    minitorch.set_grad_enabled(False)


_OUT_GRAD_MSG = (
    "stack(): functions with out=... arguments don't support automatic differentiation, but one "
    "of the arguments requires grad."
)


# --- default_collate in workers stacks as torch's out= does ---


@pytest.mark.parametrize("kind", ["grad", "param", "second"])
def test_worker_collate_refuses_samples_that_require_grad(kind):
    loader = DataLoader(_Samples(kind), batch_size=2, num_workers=1)
    with pytest.raises(RuntimeError) as info:
        next(iter(loader))
    text = str(info.value)
    assert text.startswith("Caught RuntimeError in DataLoader worker process 0."), text
    assert text.rstrip().endswith("RuntimeError: " + _OUT_GRAD_MSG), text


def test_main_process_collate_keeps_the_graph():
    batch = next(iter(DataLoader(_Samples("grad"), batch_size=2)))
    assert batch.requires_grad and batch.grad_fn is not None


def test_worker_collate_with_grad_disabled_returns_a_plain_batch():
    loader = DataLoader(_Samples("grad"), batch_size=2, num_workers=1, worker_init_fn=_no_grad_init)
    batch = next(iter(loader))
    assert not batch.requires_grad
    np.testing.assert_array_equal(batch.numpy(), np.ones((2, 2), np.float32))


def test_worker_collate_casts_to_the_first_samples_dtype():
    assert next(iter(DataLoader(_Samples("mixed"), batch_size=2))).dtype is minitorch.float64
    batch = next(iter(DataLoader(_Samples("mixed"), batch_size=2, num_workers=1)))
    assert batch.dtype is minitorch.float32


def test_collate_in_worker_context_without_processes(monkeypatch):
    info = worker_impl.WorkerInfo(id=0, num_workers=1, seed=0, dataset=None)
    monkeypatch.setattr(worker_impl, "_worker_info", info)
    with pytest.raises(RuntimeError, match=r"^stack\(\): functions with out="):
        default_collate([minitorch.zeros(3), minitorch.ones(3, requires_grad=True)])
    with minitorch.no_grad():
        out = default_collate([minitorch.zeros(3), minitorch.ones(3, requires_grad=True)])
    assert not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), [[0, 0, 0], [1, 1, 1]])


# --- worker processes ---


def test_workers_run_with_one_thread():
    before = minitorch.get_num_threads()
    try:
        minitorch.set_num_threads(2)
        got = list(DataLoader(_Samples("threads"), batch_size=None, num_workers=1))
        assert got == [1, 1]
        assert minitorch.get_num_threads() == 2  # the parent's count is untouched
    finally:
        minitorch.set_num_threads(before)


# torch 2.13's torch.utils.data._utils.worker._generate_state(base_seed, worker_id)
_TORCH_STATES = {
    (0, 0): [2968811710, 3677149159, 745650761, 2884920346],
    (0, 1): [1835504127, 1731038949, 1320224556, 2330041505],
    (123456789, 3): [79161910, 865404129, 3632275496, 1052160850],
    (2**40 + 7, 2): [3414002249, 738104259, 3373899610, 3724589701],
    (2**63 - 1, 5): [694888498, 1605100010, 2142732751, 3756774104],
}


@pytest.mark.parametrize("key", sorted(_TORCH_STATES))
def test_generate_state_matches_torch(key):
    from minitorch.utils.data._utils.worker import _generate_state

    state = _generate_state(*key)
    assert state == _TORCH_STATES[key]
    assert all(type(w) is int for w in state)


def test_worker_numpy_rng_is_seeded_from_generate_state():
    # torch's worker 0 draws 374366730 from np.random.randint(1 << 30) for this base seed
    np.random.seed(worker_impl._generate_state(900450186894289455, 0))
    assert np.random.randint(1 << 30) == 374366730
    for (seed, drawn), worker_id in zip(
        DataLoader(_Samples("numpy"), batch_size=None, num_workers=2), [0, 1], strict=True
    ):
        base = seed - worker_id
        rng = np.random.RandomState(worker_impl._generate_state(base, worker_id))
        assert drawn == rng.randint(1 << 30)


# --- names torch code imports ---


def test_iterator_classes_from_the_dataloader_module():
    from minitorch.utils.data.dataloader import (
        _MultiProcessingDataLoaderIter,
        _SingleProcessDataLoaderIter,
    )

    assert isinstance(iter(DataLoader(_Samples("threads"))), _SingleProcessDataLoaderIter)
    it = iter(DataLoader(_Samples("threads"), num_workers=1))
    assert isinstance(it, _MultiProcessingDataLoaderIter)
    assert [b.tolist() for b in it] == [[1], [1]]
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        dataloader_mod.nope  # noqa: B018


def test_fetch_module():
    from minitorch.utils.data._utils import fetch

    m = fetch._MapDatasetFetcher([10, 20, 30], True, default_collate, False)
    assert isinstance(m, fetch._BaseDatasetFetcher)
    assert m.fetch([2, 0]).tolist() == [30, 10]
    it = fetch._IterableDatasetFetcher(range(3), True, default_collate, True)
    assert isinstance(it, fetch._BaseDatasetFetcher)
    assert it.fetch([0, 1]).tolist() == [0, 1]
    with pytest.raises(StopIteration):
        it.fetch([0, 1])  # one sample left, drop_last


# --- DataPipes: subclassing, functional forms, DataLoader ---


class _Range(IterDataPipe):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


@functional_datapipe("_sweep7_times")
class _Times(IterDataPipe):
    def __init__(self, source, k=2):
        self.source, self.k = source, k

    def __iter__(self):
        return (x * self.k for x in self.source)


class _Tens(MapDataPipe):
    def __getitem__(self, i):
        return i * 10

    def __len__(self):
        return 3


@functional_datapipe("_sweep7_plus")
class _Plus(MapDataPipe):
    def __init__(self, source, k):
        self.source, self.k = source, k

    def __getitem__(self, i):
        return self.source[i] + self.k

    def __len__(self):
        return len(self.source)


def test_iter_datapipe_functional_form_chains():
    pipe = _Range(5)._sweep7_times(k=3)._sweep7_times()
    assert isinstance(pipe, _Times) and isinstance(pipe, minitorch.utils.data.IterableDataset)
    assert list(pipe) == [0, 6, 12, 18, 24]
    assert repr(pipe) == "_Times"
    assert list(pickle.loads(pickle.dumps(pipe))) == [0, 6, 12, 18, 24]


def test_map_datapipe_functional_form():
    pipe = _Tens()._sweep7_plus(1)
    assert isinstance(pipe, minitorch.utils.data.Dataset)
    assert [pipe[i] for i in range(3)] == [1, 11, 21]


def test_functional_forms_are_per_kind_and_names_unique():
    with pytest.raises(AttributeError, match="'_Tens' object has no attribute '_sweep7_times'"):
        _Tens()._sweep7_times()
    with pytest.raises(AttributeError, match="'_Range' object has no attribute '_sweep7_plus'"):
        _Range(1)._sweep7_plus(1)
    with pytest.raises(Exception, match="_sweep7_times as it is already taken"):
        functional_datapipe("_sweep7_times")(type("Again", (IterDataPipe,), {}))
    plain = type("Plain", (), {})
    assert functional_datapipe("_sweep7_plain")(plain) is plain
    assert "_sweep7_plain" not in IterDataPipe.functions


@pytest.mark.parametrize("num_workers", [0, 1])
def test_dataloader_over_datapipes(num_workers):
    batches = DataLoader(_Range(5)._sweep7_times(), batch_size=2, num_workers=num_workers)
    assert [b.tolist() for b in batches] == [[0, 2], [4, 6], [8]]
    batches = DataLoader(_Tens()._sweep7_plus(1), batch_size=2, num_workers=num_workers)
    assert [b.tolist() for b in batches] == [[1, 11], [21]]
