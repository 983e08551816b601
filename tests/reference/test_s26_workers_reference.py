"""Session 26 (helper workers): DataLoader programs with worker processes (num_workers > 0), run
under torch and minitorch with the same seeds (fork start method) and compared record by record:
random numbers drawn inside workers (torch.rand/randint/randn/randperm, initial_seed, NumPy and
Python's random), get_worker_info() fields and repr, the worker_init_fn seeding recipe, a
loader generator, persistent workers over epochs, the main process's stream after loaders,
IterableDataset sharding (drop_last, batch_size=None, prefetch_factor, more workers than items),
in_order=False, errors raised in workers (first lines and last line of the message), timeout, a
killed worker, constructor errors and warnings, and collation of tensors, arrays, dicts,
namedtuples and strings in workers.

Known and left (documented): a batch made by a worker is a pickled copy in minitorch, so
x.is_shared() is False where torch says True; the same for tensors sent through a
torch.multiprocessing Queue. torch.multiprocessing.spawn matches (ProcessContext, pids, the
ProcessRaisedException text) but takes 3-6 s per run here, so it is not compared in this file.

torch's workers and shutdown wait MP_STATUS_CHECK_INTERVAL (5 s) for stragglers; the fixture
below shortens it for torch so that the error programs stay fast."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import collections
import multiprocessing
import os
import random
import re
import signal
import time

import numpy as np
import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)


@pytest.fixture(autouse=True)
def _short_torch_waits(monkeypatch):
    import torch.utils.data._utils as tutils
    import torch.utils.data._utils.worker as tworker

    monkeypatch.setattr(tutils, "MP_STATUS_CHECK_INTERVAL", 0.2)
    monkeypatch.setattr(tworker, "MP_STATUS_CHECK_INTERVAL", 0.2)


def _both(prog):
    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    return want, got


def _check(prog):
    want, got = _both(prog)
    assert_records_match(want, got, 1e-6)


def _loader(L, ds, **kw):
    kw.setdefault("multiprocessing_context", "fork")
    return L.utils.data.DataLoader(ds, **kw)


def _err(rec, name, fn):
    """Records the exception's type, its first two lines and its last line (the traceback in
    between names files of each library)."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        lines = str(e).splitlines() or [""]
        rec(name, f"{type(e).__name__}: {lines[:2]} ... {lines[-1]}")
        return None
    rec(name, "no error")
    return out


def _plain(v):
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        dtype = str(v.dtype).replace("minitorch", "torch")
        return (type(v).__name__, dtype, v.tolist())
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [_plain(x) for x in v])
    return v


# --- random numbers in workers ---


class _Draws:
    def __init__(self, L, n=6):
        self.L, self.n = L, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        L = self.L
        return L.rand(2), L.randint(0, 10, (2,)), L.randn(1), L.randperm(4).float()


def prog_draws_in_getitem(L, rec):
    L.manual_seed(0)
    dl = _loader(L, _Draws(L), batch_size=2, num_workers=2)
    for ep in range(2):
        for k, b in enumerate(dl):
            for j, x in enumerate(b):
                rec(f"e{ep}.b{k}.{j}", x)
    rec("main_after", L.rand(3))


def test_draws_in_getitem():
    _check(prog_draws_in_getitem)


class _Info:
    def __init__(self, L):
        self.L = L

    def __len__(self):
        return 4

    def __getitem__(self, i):
        L = self.L
        info = L.utils.data.get_worker_info()
        text = re.sub(r" at 0x[0-9a-f]+", "", repr(info)).replace("minitorch", "torch")
        return [
            i,
            info.id,
            info.num_workers,
            info.seed,
            L.initial_seed(),
            info.dataset is self,
            text,
            type(info).__name__,
        ]


def prog_worker_info(L, rec):
    L.manual_seed(3)
    rec("main", repr(L.utils.data.get_worker_info()))
    for x in _loader(L, _Info(L), batch_size=None, num_workers=2):
        rec(f"item{x[0]}", str(x[1:]))


def test_worker_info():
    _check(prog_worker_info)


def _seed_numpy_and_random(worker_id):
    # the documented recipe, written for both libraries
    lib = torch if torch.utils.data.get_worker_info() is not None else minitorch
    seed = lib.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)


class _HostRandom:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return np.random.rand(2), random.random(), np.random.randint(0, 1000)


def prog_worker_init_recipe(L, rec):
    L.manual_seed(5)
    for init in (None, _seed_numpy_and_random):
        dl = _loader(L, _HostRandom(), batch_size=2, num_workers=3, worker_init_fn=init)
        for k, b in enumerate(dl):
            for j, x in enumerate(b):
                rec(f"{init is None}.b{k}.{j}", x)


def test_worker_init_recipe():
    _check(prog_worker_init_recipe)


def prog_generator(L, rec):
    L.manual_seed(5)
    g = L.Generator().manual_seed(7)
    dl = _loader(L, _Draws(L, 7), batch_size=3, num_workers=2, shuffle=True, generator=g)
    for ep in range(2):
        for k, b in enumerate(dl):
            rec(f"e{ep}.b{k}", b[0])
    rec("gen_after", L.rand(2, generator=g))
    it = iter(dl)
    rec("gen_after_iter", L.rand(2, generator=g))
    del it
    rec("main_after", L.rand(2))


def test_generator():
    _check(prog_generator)


def prog_persistent(L, rec):
    L.manual_seed(1)
    g = L.Generator().manual_seed(3)
    dl = _loader(
        L,
        _Draws(L),
        batch_size=3,
        num_workers=2,
        shuffle=True,
        generator=g,
        persistent_workers=True,
    )
    for ep in range(3):
        for k, b in enumerate(dl):
            rec(f"e{ep}.b{k}.rand", b[0])
            rec(f"e{ep}.b{k}.perm", b[3])
        rec(f"e{ep}.main", L.rand(1))
    dl2 = _loader(L, _Info(L), batch_size=None, num_workers=2, persistent_workers=True)
    for ep in range(2):
        rec(f"seeds{ep}", str([x[:5] for x in dl2]))
    rec("gen_after", L.rand(2, generator=g))


def test_persistent_workers():
    _check(prog_persistent)


def prog_main_stream(L, rec):
    L.manual_seed(11)
    dl = _loader(L, list(range(5)), batch_size=2, num_workers=2, shuffle=True)
    rec("after_create", L.rand(1))
    it = iter(dl)
    rec("after_iter", L.rand(1))
    for k, b in enumerate(it):
        rec(f"b{k}", b)
    rec("after_epoch", L.rand(1))
    seq = _loader(L, list(range(5)), batch_size=2, num_workers=2)
    it = iter(seq)
    del it
    rec("after_seq_iter", L.rand(1))
    rec("initial_seed", L.initial_seed())


def test_main_stream():
    _check(prog_main_stream)


def prog_samplers(L, rec):
    L.manual_seed(1)
    D = L.utils.data
    for name, s in [
        ("random", D.RandomSampler(range(6), num_samples=4)),
        ("weighted", D.WeightedRandomSampler([0.1, 0.5, 1, 1, 2, 0.3], 5)),
    ]:
        for ep in range(2):
            for k, b in enumerate(_loader(L, _Draws(L), batch_size=2, num_workers=2, sampler=s)):
                rec(f"{name}.e{ep}.b{k}", b[0])
    rec("main_after", L.rand(1))


def test_samplers():
    _check(prog_samplers)


def _noisy_collate(batch):
    lib = minitorch if isinstance(batch[0], minitorch.Tensor) else torch
    return lib.stack(batch) + lib.rand(len(batch))


def prog_random_collate(L, rec):
    L.manual_seed(2)
    for k, b in enumerate(
        _loader(L, L.arange(6.0), batch_size=2, num_workers=2, collate_fn=_noisy_collate)
    ):
        rec(f"b{k}", b)


def test_random_collate():
    _check(prog_random_collate)


# --- iterable datasets ---


def _sharded(L, n):
    class Sharded(L.utils.data.IterableDataset):
        def __iter__(self):
            info = L.utils.data.get_worker_info()
            if info is None:
                return iter(range(n))
            per = -(-n // info.num_workers)
            start = info.id * per
            return iter(range(start, min(start + per, n)))

    return Sharded()


def prog_iterable(L, rec):
    for name, n, kw in [
        ("bs3", 10, dict(batch_size=3, num_workers=2)),
        ("drop", 10, dict(batch_size=3, num_workers=2, drop_last=True)),
        ("none", 10, dict(batch_size=None, num_workers=2)),
        ("pf1", 10, dict(batch_size=2, num_workers=2, prefetch_factor=1)),
        ("pf3", 9, dict(batch_size=2, num_workers=3, prefetch_factor=3)),
        ("more_workers", 3, dict(batch_size=2, num_workers=5)),
    ]:
        rec(name, str([_plain(b) for b in _loader(L, _sharded(L, n), **kw)]))

    class Unsharded(L.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(3))

        def __len__(self):
            return 3

    dl = _loader(L, Unsharded(), batch_size=2, num_workers=2)
    rec("dup_len", len(dl))
    out = rec.warns("dup_warn", lambda: [b.tolist() for b in dl])
    rec("dup", str(out))

    class Failing(L.utils.data.IterableDataset):
        def __iter__(self):
            yield 1
            yield 2
            raise IndexError("mid-stream")

    got = []
    _err(
        rec,
        "iter_error",
        lambda: [got.append(int(b)) for b in _loader(L, Failing(), batch_size=None, num_workers=1)],
    )
    rec("iter_error_before", got)


def test_iterable_dataset():
    want, got = _both(prog_iterable)
    # the length warning names the dataset object (its address)
    clean = [
        (n, re.sub(r" object at 0x[0-9a-f]+", "", v) if isinstance(v, str) else v) for n, v in want
    ]
    got = [
        (
            n,
            re.sub(r" object at 0x[0-9a-f]+", "", v).replace("minitorch", "torch")
            if isinstance(v, str)
            else v,
        )
        for n, v in got
    ]
    assert_records_match(clean, got, 0)


def prog_persistent_iterable(L, rec):
    L.manual_seed(4)

    class Stream(L.utils.data.IterableDataset):
        def __iter__(self):
            info = L.utils.data.get_worker_info()
            for _ in range(2):
                yield [info.id, L.rand(1).item(), L.initial_seed()]

    dl = _loader(L, Stream(), num_workers=2, batch_size=None, persistent_workers=True)
    for ep in range(2):
        rec(f"e{ep}", str([x for x in dl]))
    rec("main_after", L.rand(1))


def test_persistent_iterable():
    _check(prog_persistent_iterable)


# --- in_order=False ---


class _Slow:
    def __init__(self, slow, n):
        self.slow, self.n = slow, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.slow.get(i, 0))
        return i


def prog_out_of_order(L, rec):
    # two workers: worker 0 is slow, so the order is set by the scheduling, not by a race
    for name, slow, n, pf in [("a", {0: 0.4}, 6, 2), ("b", {0: 0.4, 4: 0.2}, 10, 3)]:
        dl = _loader(
            L, _Slow(slow, n), batch_size=None, num_workers=2, in_order=False, prefetch_factor=pf
        )
        rec(name, [int(x) for x in dl])

    class Stream(L.utils.data.IterableDataset):
        def __iter__(self):
            info = L.utils.data.get_worker_info()
            for k in range(info.id, 12, info.num_workers):
                if k == 0:
                    time.sleep(0.4)
                yield k

    rec(
        "iterable",
        [b.tolist() for b in _loader(L, Stream(), num_workers=2, batch_size=2, in_order=False)],
    )


def test_out_of_order():
    _check(prog_out_of_order)


# --- errors ---


class _Raises:
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise self.exc
        return i


class _TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


def _bad_init(worker_id):
    raise RuntimeError(f"init {worker_id}")


def _bad_collate(batch):
    raise TypeError("cannot collate")


def prog_worker_errors(L, rec):
    for name, exc in [
        ("value", ValueError("bad 2")),
        ("key", KeyError("k")),
        ("two_arg", _TwoArgError(1, 2)),
        ("stop", StopIteration()),
    ]:
        got = []
        _err(
            rec,
            name,
            lambda: [
                got.append(int(x)) for x in _loader(L, _Raises(exc), batch_size=None, num_workers=2)
            ],
        )
        rec(name + ".before", got)
    _err(
        rec,
        "init",
        lambda: list(_loader(L, list(range(4)), num_workers=2, worker_init_fn=_bad_init)),
    )
    _err(
        rec,
        "collate",
        lambda: list(_loader(L, list(range(4)), num_workers=2, collate_fn=_bad_collate)),
    )

    class Ragged:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return L.zeros(i + 1)

    _err(rec, "ragged", lambda: list(_loader(L, Ragged(), batch_size=2, num_workers=1)))

    class Unknown:
        pass

    class Objects:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return Unknown()

    _err(rec, "uncollatable", lambda: list(_loader(L, Objects(), batch_size=2, num_workers=1)))

    class Grad:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return L.ones(2, requires_grad=True)

    b = next(iter(_loader(L, Grad(), batch_size=None, num_workers=1)))
    rec("grad_unbatched", [b.requires_grad, b.is_leaf])
    _err(rec, "grad_batched", lambda: list(_loader(L, Grad(), batch_size=2, num_workers=1)))


def test_worker_errors():
    want, got = _both(prog_worker_errors)
    clean = [
        (n, re.sub(r"\.Unknown'>|\.Unknown object.*", "", v) if isinstance(v, str) else v)
        for n, v in want
    ]
    got = [
        (n, re.sub(r"\.Unknown'>|\.Unknown object.*", "", v) if isinstance(v, str) else v)
        for n, v in got
    ]
    assert_records_match(clean, got, 0)


def prog_persistent_error(L, rec):
    class SecondEpochFails:
        def __init__(self):
            self.calls = 0

        def __len__(self):
            return 2

        def __getitem__(self, i):
            self.calls += 1
            if self.calls > 2:
                raise ValueError("second epoch")
            return i

    dl = _loader(L, SecondEpochFails(), num_workers=1, persistent_workers=True)
    for ep in range(3):
        out = _err(rec, f"e{ep}", lambda: [b.tolist() for b in dl])
        rec(f"e{ep}.out", str(out))


def test_persistent_error():
    _check(prog_persistent_error)


class _Sleeps:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.6)
        return i


class _Dies:
    def __len__(self):
        return 2

    def __getitem__(self, i):
        os.kill(os.getpid(), signal.SIGKILL)


def prog_timeout_and_kill(L, rec):
    _err(rec, "timeout", lambda: next(iter(_loader(L, _Sleeps(), num_workers=1, timeout=0.2))))
    rec(
        "ok_with_timeout",
        str(
            [b.tolist() for b in _loader(L, list(range(4)), batch_size=2, num_workers=2, timeout=5)]
        ),
    )
    try:
        next(iter(_loader(L, _Dies(), num_workers=1)))
        rec("killed", "no error")
    except RuntimeError as e:
        rec("killed", re.sub(r"\d+", "N", str(e)))


def test_timeout_and_killed_worker():
    _check(prog_timeout_and_kill)


def prog_constructor_errors(L, rec):
    D = L.utils.data
    data = [1, 2]
    for name, kw in [
        ("prefetch_no_workers", dict(prefetch_factor=2)),
        ("persistent_no_workers", dict(persistent_workers=True)),
        ("context_bogus", dict(num_workers=1, multiprocessing_context="bogus")),
        ("context_space", dict(num_workers=1, multiprocessing_context="fork ")),
        ("context_no_workers", dict(multiprocessing_context="fork")),
        ("context_type", dict(num_workers=1, multiprocessing_context=3)),
        ("prefetch_negative", dict(num_workers=1, prefetch_factor=-1)),
        ("timeout_negative", dict(num_workers=1, timeout=-1)),
    ]:
        rec.err(name, lambda: D.DataLoader(data, **kw))
    _err(
        rec,
        "prefetch_zero",
        lambda: next(iter(D.DataLoader(data, num_workers=1, prefetch_factor=0))),
    )
    for w in (0, 1):
        rec.warns(
            f"pin_memory{w}", lambda: list(_loader(L, data, num_workers=w or 1, pin_memory=True))
        )
    ctx = multiprocessing.get_context("fork")
    dl = D.DataLoader(data, num_workers=1, multiprocessing_context=ctx)
    rec(
        "context_obj",
        [type(dl.multiprocessing_context).__name__, dl.prefetch_factor, [b.tolist() for b in dl]],
    )


def test_constructor_errors_and_warnings():
    _check(prog_constructor_errors)


# --- collation in workers ---

_Point = collections.namedtuple("_Point", "x y")


class _Mixed:
    def __init__(self, L):
        self.L = L

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {
            "t": self.L.tensor([i, i + 1.0]),
            "a": np.array([i, 2 * i], dtype=np.int32),
            "s": f"s{i}",
            "p": _Point(i, float(i)),
            "i": i,
            "f": i * 0.5,
            "nested": [(i, [i * 1.0, b"x"]), {"n": [np.float32(i), np.int16(i)], "b": True}],
        }


def prog_collate(L, rec):
    for k, b in enumerate(_loader(L, _Mixed(L), batch_size=2, num_workers=2)):
        rec(f"b{k}", str(_plain(b)))
    b = next(iter(_loader(L, _Mixed(L), batch_size=None, num_workers=1)))
    rec("unbatched", str(_plain(b)))

    class DictKeys:
        def __getitem__(self, k):
            return {"k": k, "v": len(k)}

    dl = _loader(L, DictKeys(), sampler=["a", "bb", "ccc"], num_workers=2, batch_size=2)
    rec("string_keys", str([_plain(b) for b in dl]))
    dl = _loader(L, list(range(4)), batch_sampler=[[3, 1], [0], [2, 2]], num_workers=2)
    rec("batch_sampler", str([b.tolist() for b in dl]))


def test_collate_in_workers():
    _check(prog_collate)
