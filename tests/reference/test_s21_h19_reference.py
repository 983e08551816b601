"""utils.data against PyTorch with the same seeds (a seeded slice of session 21's differential
fuzzer, h19): sampler orders, random_split, DistributedSampler shuffles, DataLoader batches
(values, dtypes, containers), errors, the default generator's state afterwards, and the seeds
and random streams that reach worker processes."""

from __future__ import annotations

import collections
import multiprocessing
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

Point = collections.namedtuple("Point", "x y")
LIBS = (torch, minitorch)


def _canon(x):
    """A comparable form of x: tensors as (dtype, shape, values), containers by type name."""
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        return ("T", str(x.dtype).replace("minitorch", "torch"), tuple(x.shape), x.tolist())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, [_canon(v) for v in x])
    if isinstance(x, dict):
        return (type(x).__name__, [(k, _canon(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_canon(v) for v in x])
    return (type(x).__name__, repr(x))


def _run(fn):
    try:
        return ("OK", fn())
    except Exception as e:  # noqa: BLE001  (the error is what is compared)
        return ("ERR", type(e).__name__, str(e).replace("minitorch", "torch"))


def _sampler_case(r):
    kind = r.choice(["rand", "subset", "weighted", "dist", "split", "batch"])
    n = r.choice([1, 2, 5, 7, 10, 33, 64])
    case = {"kind": kind, "n": n, "seed": r.randrange(10**6), "gen": r.choice([None, 17, 99])}
    if kind == "rand":
        case["replacement"] = r.choice([False, True])
        case["num_samples"] = r.choice([None, 1, 5, 31, 32, 33, 65, 0])
    elif kind == "subset":
        case["indices"] = [r.randrange(50) for _ in range(r.randrange(12))]
    elif kind == "weighted":
        m = r.randint(1, 8)
        case["weights"] = [r.choice([0.0, r.random(), 3 * r.random()]) for _ in range(m)]
        case["num_samples"] = r.choice([1, 3, m, m + 1, 20])
        case["replacement"] = r.choice([True, False])
    elif kind == "dist":
        case["replicas"] = r.choice([1, 2, 3, 4])
        case["rank"] = r.randrange(case["replicas"])
        case["dseed"] = r.choice([0, 7, 12345])
        case["epoch"] = r.choice([0, 1, 5])
        case["drop_last"] = r.choice([False, True])
        case["shuffle"] = r.choice([False, True])
    elif kind == "split":
        if r.random() < 0.5:
            cut = r.randint(0, n)
            case["lengths"] = [cut, n - cut]
        else:
            case["lengths"] = r.choice([[0.5, 0.5], [0.1, 0.2, 0.7], [1 / 3] * 3, [0.25] * 4])
    else:
        case["batch_size"] = r.choice([1, 2, 3, 7])
        case["drop_last"] = r.choice([False, True])
    return case


def _sample(lib, case):
    data = lib.utils.data
    lib.manual_seed(case["seed"])
    g = None if case["gen"] is None else lib.Generator().manual_seed(case["gen"])
    n, kind = case["n"], case["kind"]
    if kind == "rand":
        make = lambda: data.RandomSampler(  # noqa: E731
            range(n), case["replacement"], case["num_samples"], generator=g
        )
    elif kind == "subset":
        make = lambda: data.SubsetRandomSampler(case["indices"], generator=g)  # noqa: E731
    elif kind == "weighted":
        make = lambda: data.WeightedRandomSampler(  # noqa: E731
            case["weights"], case["num_samples"], case["replacement"], generator=g
        )
    elif kind == "dist":

        def make():
            s = data.DistributedSampler(
                range(n),
                num_replicas=case["replicas"],
                rank=case["rank"],
                shuffle=case["shuffle"],
                seed=case["dseed"],
                drop_last=case["drop_last"],
            )
            s.set_epoch(case["epoch"])
            return s

    elif kind == "split":
        kwargs = {} if g is None else {"generator": g}
        make = lambda: [  # noqa: E731
            p.indices for p in data.random_split(range(n), case["lengths"], **kwargs)
        ]
    else:
        make = lambda: data.BatchSampler(  # noqa: E731
            data.RandomSampler(range(n), generator=g), case["batch_size"], case["drop_last"]
        )
    sampler = _run(make)
    out = [sampler[:1] if sampler[0] == "OK" else sampler]
    if sampler[0] == "OK" and kind != "split":
        out += [_run(lambda: list(sampler[1])), _run(lambda: list(sampler[1]))]
        out.append(_run(lambda: len(sampler[1])))
    elif sampler[0] == "OK":
        out.append(sampler[1])
    out.append(lib.rand(2).tolist())
    if g is not None:
        out.append(lib.rand(2, generator=g).tolist())
    return out


@pytest.mark.parametrize("start", range(0, 300, 50))
def test_sampler_orders_match(start):
    for seed in range(start, start + 50):
        case = _sampler_case(random.Random(seed))
        want, got = (_sample(lib, case) for lib in LIBS)
        assert got == want, case


class _Samples:
    """Samples of a fixed nested layout, with tensors of the library given."""

    def __init__(self, lib, n, layout):
        self.lib, self.n, self.layout = lib, n, layout

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        lib = self.lib
        if self.layout == "tensor":
            return lib.arange(3, dtype=lib.float32) + i
        if self.layout == "tuple":
            return (lib.tensor([i, -i]), float(i) / 4, f"s{i}")
        if self.layout == "dict":
            return {"x": np.full((2,), i, np.int16), "y": [i, bool(i % 2)], "p": Point(i, b"b")}
        return Point(np.float32(i), {"z": lib.tensor(i % 3 == 0)})


def _loader_case(r):
    return {
        "seed": r.randrange(10**6),
        "n": r.choice([1, 3, 8, 13]),
        "layout": r.choice(["tensor", "tuple", "dict", "point"]),
        "batch_size": r.choice([1, 2, 3, 5, None]),
        "shuffle": r.choice([False, True, True]),
        "drop_last": r.choice([False, True]),
        "gen": r.choice([None, 5, 123]),
        "epochs": r.choice([1, 2]),
    }


def _load(lib, case):
    lib.manual_seed(case["seed"])
    g = None if case["gen"] is None else lib.Generator().manual_seed(case["gen"])
    make = lambda: lib.utils.data.DataLoader(  # noqa: E731
        _Samples(lib, case["n"], case["layout"]),
        batch_size=case["batch_size"],
        shuffle=case["shuffle"],
        drop_last=case["drop_last"],
        generator=g,
    )
    loader = _run(make)
    if loader[0] != "OK":
        return [loader]
    loader = loader[1]
    out = [_run(lambda: len(loader))]
    for _ in range(case["epochs"]):
        out.append(_run(lambda: [_canon(b) for b in loader]))
    out.append(lib.rand(2).tolist())
    return out


@pytest.mark.parametrize("start", range(0, 200, 50))
def test_loader_batches_match(start):
    for seed in range(start, start + 50):
        case = _loader_case(random.Random(10**6 + seed))
        want, got = (_load(lib, case) for lib in LIBS)
        assert got == want, case


class _WorkerView:
    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 6

    def __getitem__(self, i):
        lib = self.lib
        info = lib.utils.data.get_worker_info()
        return [
            i,
            info.id,
            info.num_workers,
            info.seed,
            lib.initial_seed(),
            lib.rand(2).tolist(),
            lib.randperm(5).tolist(),
            random.random(),
            int(np.random.randint(0, 2**31)),
        ]


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)
@pytest.mark.parametrize("gen", [None, 31])
def test_worker_seeds_match(gen):
    def run(lib):
        lib.manual_seed(2024)
        g = None if gen is None else lib.Generator().manual_seed(gen)
        loader = lib.utils.data.DataLoader(
            _WorkerView(lib),
            batch_size=None,
            shuffle=True,
            num_workers=3,
            generator=g,
            multiprocessing_context="fork",
        )
        return [[list(loader) for _ in range(2)], lib.rand(1).tolist()]

    assert run(minitorch) == run(torch)
