"""utils.data against PyTorch where the semantics do not depend on random streams: collate and
convert outputs (types, shapes, dtypes, values), len(), BatchSampler and DistributedSampler
indices, random_split lengths, worker error text, and error messages."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tdata = pytest.importorskip("torch.utils.data")

import minitorch  # noqa: E402
from minitorch.utils import data as mdata  # noqa: E402

Point = collections.namedtuple("Point", "x y")
LIBS = [(minitorch, mdata), (torch, tdata)]


def _same(m, t, path="out"):
    """m (minitorch's result) has t's (torch's) structure, types, shapes, dtypes and values."""
    if isinstance(t, torch.Tensor):
        assert isinstance(m, minitorch.Tensor), f"{path}: {type(m)}"
        assert tuple(m.shape) == tuple(t.shape), f"{path}: {m.shape} != {t.shape}"
        assert str(m.dtype) == str(t.dtype), f"{path}: {m.dtype} != {t.dtype}"
        np.testing.assert_array_equal(m.numpy(), t.numpy(), err_msg=path)
        return
    assert type(m).__name__ == type(t).__name__, f"{path}: {type(m)} != {type(t)}"
    if isinstance(t, dict):
        assert list(m) == list(t), path
        for k in t:
            _same(m[k], t[k], f"{path}[{k!r}]")
    elif isinstance(t, (list, tuple)):
        assert len(m) == len(t), path
        for i, (a, b) in enumerate(zip(m, t, strict=True)):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(t, np.ndarray):
        np.testing.assert_array_equal(m, t, err_msg=path)
    else:
        assert m == t, f"{path}: {m!r} != {t!r}"


def _batches(lib):
    """Batches to collate, built with lib's tensors."""
    t = lib.tensor
    return {
        "tensors": [t([1.0, 2.0]), t([3.0, 4.0])],
        "int tensors 0-d": [t(1), t(2)],
        "float64 tensors": [t([1.0], dtype=lib.float64), t([2.0], dtype=lib.float64)],
        "floats": [1.5, 2.25, -3.0],
        "ints": [1, 2, 3],
        "bools": [True, False],
        "numpy float32": [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
        "numpy int32": [np.arange(3, dtype=np.int32)] * 2,
        "numpy uint8": [np.arange(3, dtype=np.uint8)] * 2,
        "numpy bool": [np.array([True, False])] * 2,
        "numpy 0-d": [np.array(1.5), np.array(2.5)],
        "numpy scalars f32": [np.float32(1.5), np.float32(2)],
        "numpy scalars i64": [np.int64(1), np.int64(2)],
        "numpy scalars i16": [np.int16(1), np.int16(2)],
        "numpy bool_": [np.bool_(True), np.bool_(False)],
        "strings": ["a", "bc"],
        "bytes": [b"a", b"b"],
        "numpy str_": [np.str_("a"), np.str_("b")],
        "dicts": [{"x": t([1, 2]), "y": 1.0, "s": "a"}, {"x": t([3, 4]), "y": 2.0, "s": "b"}],
        "ordered dicts": [collections.OrderedDict(b=1, a=2.0)] * 2,
        "named tuples": [Point(t([1.0]), "p"), Point(t([2.0]), "q")],
        "tuples": [(t([1.0]), 1, "a"), (t([2.0]), 2, "b")],
        "lists": [[1, [2.0, "x"]], [3, [4.0, "y"]]],
        "nested dict in list": [[{"k": np.float64(1)}], [{"k": np.float64(2)}]],
    }


@pytest.mark.parametrize("name", list(_batches(minitorch)))
def test_default_collate_matches(name):
    _same(
        mdata.default_collate(_batches(minitorch)[name]),
        tdata.default_collate(_batches(torch)[name]),
    )


def _samples(lib):
    return {
        "numpy array": np.arange(4),
        "numpy float32 scalar": np.float32(2.5),
        "numpy string array": np.array(["a", "b"]),
        "int": 3,
        "str": "s",
        "tensor": lib.tensor([1, 2]),
        "dict": {"a": np.ones(2), "b": [np.zeros(1), 1]},
        "tuple": (np.ones(1), "x"),
        "named tuple": Point(np.ones(1), 2),
        "list": [np.int32(1), 2.0],
    }


@pytest.mark.parametrize("name", list(_samples(minitorch)))
def test_default_convert_matches(name):
    _same(
        mdata.default_convert(_samples(minitorch)[name]),
        tdata.default_convert(_samples(torch)[name]),
    )


def _both(fn):
    """fn(lib, data) for both libraries: (minitorch's result, torch's)."""
    return [fn(lib, data) for lib, data in LIBS]


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


COLLATE_ERRORS = {
    "ragged": lambda lib: [[1, 2], [3]],
    "shapes": lambda lib: [lib.zeros(2), lib.zeros(3)],
    "object": lambda lib: [object(), object()],
    "none": lambda lib: [None, None],
    "numpy str array": lambda lib: [np.array(["a"]), np.array(["b"])],
}


@pytest.mark.parametrize("name", list(COLLATE_ERRORS))
def test_collate_errors_match(name):
    m, t = _both(lambda lib, data: _error(lambda: data.default_collate(COLLATE_ERRORS[name](lib))))
    if name == "object":  # the found type's repr names the object, not its address
        assert m == t
    assert m is not None and m == t


class _Range:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i

    def __len__(self):
        return self.n


def _iterable(data, n):
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n

    return Stream()


LOADER_CONFIGS = [
    dict(batch_size=1),
    dict(batch_size=3),
    dict(batch_size=3, drop_last=True),
    dict(batch_size=4, drop_last=True),
    dict(batch_size=None),
    dict(batch_size=2, shuffle=True),
    dict(batch_size=5, sampler=[0, 2, 4, 6, 8, 9, 7]),
]


@pytest.mark.parametrize("n", [0, 1, 10, 11])
@pytest.mark.parametrize("config", LOADER_CONFIGS, ids=str)
def test_len_matches(n, config):
    def length(make):
        def run(lib, data):
            out = []
            err = _error(lambda: out.append(len(data.DataLoader(make(data), **config))))
            return err or out[0]

        return run

    m, t = _both(length(lambda data: _Range(n)))  # shuffle with n=0: both raise
    assert m == t
    if "sampler" not in config and "shuffle" not in config:
        m, t = _both(length(lambda data: _iterable(data, n)))
        assert m == t


@pytest.mark.parametrize("config", [c for c in LOADER_CONFIGS if "shuffle" not in c], ids=str)
def test_unshuffled_batches_match(config):
    m, t = _both(lambda lib, data: list(data.DataLoader(_Range(11), **config)))
    _same(m, t)
    if "sampler" not in config:
        m, t = _both(lambda lib, data: list(data.DataLoader(_iterable(data, 11), **config)))
        _same(m, t)


@pytest.mark.parametrize("n", [0, 1, 7, 9])
@pytest.mark.parametrize("batch_size", [1, 2, 3, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_matches(n, batch_size, drop_last):
    m, t = _both(
        lambda lib, data: (lambda s: (list(s), len(s)))(
            data.BatchSampler(data.SequentialSampler(range(n)), batch_size, drop_last)
        )
    )
    assert m == t


@pytest.mark.parametrize("n", [1, 5, 10, 12, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_partition_matches(n, replicas, drop_last):
    def parts(lib, data):
        samplers = [
            data.DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last)
            for r in range(replicas)
        ]
        return [(list(s), len(s), s.total_size) for s in samplers]

    m, t = _both(parts)
    assert m == t


@pytest.mark.parametrize(
    "n, fractions",
    [
        (10, [0.3, 0.7]),
        (10, [1 / 3] * 3),
        (11, [0.5, 0.25, 0.25]),
        (7, [0.5, 0.5]),
        (100, [0.8, 0.1, 0.1]),
        (3, [0.1, 0.2, 0.3, 0.4]),
        (5, [1.0]),
    ],
)
def test_random_split_fraction_lengths_match(n, fractions):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m, t = _both(lambda lib, data: [len(s) for s in data.random_split(_Range(n), fractions)])
    assert m == t


def _ctor_errors(lib, data):
    R = _Range(4)
    cases = {
        "num_workers": lambda: data.DataLoader(R, num_workers=-1),
        "timeout": lambda: data.DataLoader(R, timeout=-1),
        "prefetch": lambda: data.DataLoader(R, prefetch_factor=2),
        "prefetch negative": lambda: data.DataLoader(R, num_workers=1, prefetch_factor=-1),
        "persistent": lambda: data.DataLoader(R, persistent_workers=True),
        "sampler shuffle": lambda: data.DataLoader(R, sampler=[0], shuffle=True),
        "batch_sampler": lambda: data.DataLoader(R, batch_sampler=[[0]], batch_size=2),
        "batch_size None": lambda: data.DataLoader(R, batch_size=None, drop_last=True),
        "context no workers": lambda: data.DataLoader(R, multiprocessing_context="spawn"),
        "context bad": lambda: data.DataLoader(R, num_workers=1, multiprocessing_context="x"),
        "context type": lambda: data.DataLoader(R, num_workers=1, multiprocessing_context=3),
        "iterable shuffle": lambda: data.DataLoader(_iterable(data, 2), shuffle=True),
        "iterable sampler": lambda: data.DataLoader(_iterable(data, 2), sampler=[0]),
        "iterable batch_sampler": lambda: data.DataLoader(_iterable(data, 2), batch_sampler=[[0]]),
        "setattr": lambda: setattr(data.DataLoader(R), "batch_size", 2),
        "timeout single": lambda: iter(data.DataLoader(R, timeout=1)),
        "random replacement": lambda: data.RandomSampler(R, replacement=1),
        "random num_samples": lambda: data.RandomSampler(R, num_samples=0),
        "random empty": lambda: data.RandomSampler([]),
        "weighted num_samples": lambda: data.WeightedRandomSampler([1.0], 0),
        "weighted replacement": lambda: data.WeightedRandomSampler([1.0], 1, replacement=2),
        "weighted shape": lambda: data.WeightedRandomSampler([[1.0]], 1),
        "weighted too many": lambda: list(data.WeightedRandomSampler([1.0], 2, False)),
        "weighted negative": lambda: list(data.WeightedRandomSampler([1.0, -1.0], 2)),
        "weighted negative norepl": lambda: list(data.WeightedRandomSampler([1.0, -1.0], 1, False)),
        "weighted zero": lambda: list(data.WeightedRandomSampler([0.0], 2)),
        "weighted inf": lambda: list(data.WeightedRandomSampler([math.inf], 2)),
        "batch size": lambda: data.BatchSampler(range(3), 0, False),
        "batch drop_last": lambda: data.BatchSampler(range(3), 1, None),
        "distributed rank": lambda: data.DistributedSampler(R, 2, 2),
        "tensor dataset": lambda: data.TensorDataset(lib.zeros(2), lib.zeros(3)),
        "stack empty": lambda: data.StackDataset(),
        "stack mismatch": lambda: data.StackDataset(R, _Range(3)),
        "stack both": lambda: data.StackDataset(R, b=R),
        "concat empty": lambda: data.ConcatDataset([]),
        "concat iterable": lambda: data.ConcatDataset([_iterable(data, 1)]),
        "concat negative": lambda: data.ConcatDataset([R])[-5],
        "chain map": lambda: list(data.ChainDataset([R])),
        "split sum": lambda: data.random_split(R, [1, 2]),
        "split fraction": lambda: data.random_split(R, [0.5, 1.5, -1.0]),
        "base getitem": lambda: data.Dataset()[0],
    }
    return {name: _error(fn) for name, fn in cases.items()}


def test_error_messages_match():
    m, t = _both(_ctor_errors)
    for name in t:
        assert t[name] is not None, name
        assert m[name] == t[name], name


def _raise_in_worker(lib, data):
    class Bad:
        def __getitem__(self, i):
            raise ValueError(f"bad {i}")

        def __len__(self):
            return 2

    loader = data.DataLoader(Bad(), num_workers=1, multiprocessing_context="fork")
    try:
        next(iter(loader))
    except ValueError as e:
        return str(e)


def test_worker_exception_text_matches():
    m, t = _both(_raise_in_worker)
    head = (
        "Caught ValueError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
    )
    assert m.startswith(head) and t.startswith(head)
    assert m.endswith("ValueError: bad 0\n") and t.endswith("ValueError: bad 0\n")


def test_worker_info_fields_match():
    import dataclasses

    names = [f.name for f in dataclasses.fields(tdata._utils.worker.WorkerInfo)]
    assert [f.name for f in dataclasses.fields(mdata._worker.WorkerInfo)] == names
