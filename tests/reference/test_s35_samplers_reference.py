"""Session 35 (helper samplers): data pipelines' randomness written the way training scripts
write it in torch, run under torch and minitorch with the same seeds and compared record by
record: RandomSampler (with and without replacement, num_samples below, at and past the
dataset's length, its draws in chunks of 32 and what each leaves of the generator's stream, a
private generator seeded from the default one), SequentialSampler, SubsetRandomSampler (lists,
ranges, tensors), WeightedRandomSampler (replacement True/False, list, tuple, tensor and
class-balanced weights, extreme and overflowing weights), BatchSampler (drop_last, over any
iterable), DistributedSampler (num_replicas, rank, shuffle, seed, set_epoch, drop_last,
padding by repetition when the dataset is shorter than the replicas, and the wrappers written
over it: a sampler as a dataset, a weighted sampler per rank), random_split with lengths,
fractions (the round-robin remainder, the zero-length warnings) and generators, DataLoader
shuffles across epochs with a generator or the global seed (the epoch's base seed drawn first),
resuming an order from a saved generator state, worker processes (fork: each worker's seed,
torch/random/NumPy streams, persistent workers, IterableDataset shards, the seed_worker
recipe), the seeds drawn for IterDataPipe graphs,
ConcatDataset/Subset/ChainDataset/StackDataset/TensorDataset indexing, and torch's
errors and warnings (bad lengths, fractions not summing to 1, num_samples <= 0, negative, NaN,
infinite and all-zero weights, mutually exclusive DataLoader options, randperm's argument
errors). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; indices and texts
exactly.

Found and fixed:
- randperm(n, generator=g) (also dtype=, out=, device=, layout=, requires_grad=, pin_memory=)
  with an n that is no int raised "randperm(): argument 'n' (position 1) must be int, not
  float"; torch's parser names the argument only when n is the one argument given, and else
  raises its "received an invalid combination of arguments - got (float, generator=...)"
  TypeError. random_split hits it when lengths are computed as floats ([0.8 * n, 0.2 * n]).
- WeightedRandomSampler / multinomial with weights whose total overflows (two weights of 1e308)
  gave NumPy's "overflow encountered in reduce/accumulate" and "invalid value encountered in
  divide" RuntimeWarnings; torch warns of nothing (the draws were already torch's).
- A DataLoader over an IterDataPipe drew only the epoch's base seed from its generator; torch
  first draws a shared seed for the pipe graph (and again at each reset, once more at the start
  of a loader with workers), so every later draw from the generator (the next epoch's shuffle,
  a sampler sharing it) was off torch's stream. minitorch draws it too (it has no random pipes
  for the seed to reach).
- DistributedSampler over a dataset grown past total_size since __init__: torch appends all
  but the last (len - total_size) indices before its length check ("Number of indices (18)
  does not match total_size (8)"); minitorch appended nothing and reported 10.

Known and left (documented):
- DistributedSampler without num_replicas or rank raises "Requires distributed package to be
  available" (minitorch.distributed.is_available() is False); torch, whose distributed package
  is available, raises "Default process group has not been initialized" (ValueError). Not
  recorded.
- randperm(2.0, generator=None): torch counts the explicit None as a second argument (the
  "invalid combination" TypeError); minitorch cannot tell it from the default and names
  argument 'n'. Only the explicit None differs (random_split(..., generator=None) with float
  lengths). Not recorded.
- Messages listing what was given name minitorch's types ("generator=minitorch._C.Generator")
  but keep torch's spelling in the overloads they list ("torch.Generator generator"); the
  randperm texts are compared with "minitorch" read as "torch" throughout.
- torch's default generator starts from a seed that differs between processes here, so
  orders drawn before any manual_seed are not recorded; every program seeds first.
- torch's DataLoader pickles an IterDataPipe graph to traverse it (to seed and shard its
  pipes), so a pipe class defined inside a function raises "Can't pickle local object" when
  iterated; minitorch does not traverse the graph and iterates it. The programs' pipes are
  module-level classes.
- The records run on the CPU only; worker processes only where the fork start method exists."""

from __future__ import annotations

import warnings

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import (
    Rec,
    assert_program_matches,
    assert_records_match,
    run_calls,
    run_program,
)
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


# programs whose records hold floats (tensors of the dtype): run in float64 and float32
PROGRAMS = [
    "loader_epochs", "loader_global_seed", "loader_weighted", "loader_subset_split",
    "loader_batch_sampler", "loader_distributed", "loader_unbatched", "datasets_indexing",
    "stack_chain",
]  # fmt: skip

# programs of indices, lengths and messages only: run once
INDEX_PROGRAMS = [
    "random_sampler", "random_sampler_replacement", "random_sampler_global",
    "random_sampler_partial", "random_sampler_errors", "subset_random", "weighted",
    "weighted_errors", "batch_sampler", "distributed", "distributed_errors", "random_split",
    "random_split_fractions", "random_split_errors", "loader_errors", "large_randperm",
    "worker_seed", "resume", "worker_processes", "distributed_wrappers", "datapipe_seeds",
]  # fmt: skip

# randperm's argument errors (random_split and the samplers call it with generator=)
RANDPERM_CALLS = [
    "lib.randperm(2.0)", "lib.randperm(2.0, generator=g)", "lib.randperm(2.0, dtype=lib.int64)",
    "lib.randperm(2.0, out=lib.empty(2, dtype=lib.int64))", "lib.randperm(2.0, device='cpu')",
    "lib.randperm(2.0, requires_grad=True)", "lib.randperm(2.0, layout=lib.strided)",
    "lib.randperm(2.0, pin_memory=True)", "lib.randperm('a', generator=g)",
    "lib.randperm(lib.tensor(3.0), generator=g)", "lib.randperm(None, generator=g)",
    "lib.randperm(2, generator=3)", "lib.randperm(-1, generator=g)", "lib.randperm(3, 4)",
    "lib.randperm(lib.tensor(3), generator=g)",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def test_randperm_calls_match_torch():
    """The texts are compared with "minitorch" read as "torch" throughout: minitorch's
    messages name its own types (minitorch._C.Generator) in what was given but keep torch's
    spelling in the overloads they list."""
    import minitorch

    def prog(lib, rec):
        run_calls(RANDPERM_CALLS, {"lib": lib, "g": _gen(lib, 0)}, rec)

    want = run_program(prog, torch, rec=Rec())
    got = run_program(prog, minitorch, rec=Rec())
    got = [(n, v.replace("minitorch", "torch")) for n, v in got]
    assert_records_match(want, got, 0.0)


@pytest.mark.parametrize("name", INDEX_PROGRAMS)
def test_index_program_matches_torch(name):
    import minitorch

    prog = globals()["p_" + name]
    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, 0.0, rename=True)


# --- helpers ---


def _after(lib, rec, name, g=None):
    """Records where a generator's stream stands: its next draws."""
    rec(name, lib.randint(0, 1 << 30, (3,), generator=g))


def _batches(rec, name, loader):
    for i, batch in enumerate(loader):
        if isinstance(batch, (list, tuple)):
            for j, part in enumerate(batch):
                rec(f"{name}.{i}.{j}", part)
        elif isinstance(batch, dict):
            for k in sorted(batch):
                rec(f"{name}.{i}.{k}", batch[k])
        else:
            rec(f"{name}.{i}", batch)


def _err_as_torch(rec, name, fn):
    """rec.err's record with "minitorch" read as "torch" throughout."""
    rec.err(name, fn)
    rec.items[-1] = (name, rec.items[-1][1].replace("minitorch", "torch"))


def _warned(rec, name, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    rec(name, str([f"{w.category.__name__}: {w.message}" for w in caught]))
    return out


# --- index programs: (lib, rec) ---


def p_random_sampler(lib, rec):
    data = list(range(10))
    g = _gen(lib, 7)
    s = lib.utils.data.RandomSampler(data, generator=g)
    rec("len", len(s))
    for epoch in range(3):
        rec(f"epoch{epoch}", list(s))
    s2 = lib.utils.data.RandomSampler(data, num_samples=25, generator=_gen(lib, 3))
    rec("more", list(s2))
    rec("len2", len(s2))
    s3 = lib.utils.data.RandomSampler(data, num_samples=4, generator=_gen(lib, 3))
    rec("fewer", list(s3))
    rec("one", list(lib.utils.data.RandomSampler(range(1), generator=_gen(lib, 1))))
    _after(lib, rec, "g", g)


def p_random_sampler_replacement(lib, rec):
    g = _gen(lib, 11)
    for k in (1, 31, 32, 33, 64, 70):
        s = lib.utils.data.RandomSampler(range(13), replacement=True, num_samples=k, generator=g)
        rec(f"k{k}", list(s))
        _after(lib, rec, f"k{k}.g", g)
    s = lib.utils.data.RandomSampler(range(5), replacement=True, generator=g)
    rec("default_n", list(s))
    rec("len", len(s))
    big = lib.utils.data.RandomSampler(range(70000), replacement=True, num_samples=40, generator=g)
    rec("big", list(big))


def p_random_sampler_global(lib, rec):
    lib.manual_seed(2024)
    s = lib.utils.data.RandomSampler(range(12))
    rec("e0", list(s))
    rec("e1", list(s))
    _after(lib, rec, "default")
    lib.manual_seed(5)
    r = lib.utils.data.RandomSampler(range(12), replacement=True, num_samples=40)
    rec("r", list(r))
    _after(lib, rec, "default2")


def p_random_sampler_partial(lib, rec):
    g = _gen(lib, 19)
    s = lib.utils.data.RandomSampler(range(50), replacement=True, num_samples=100, generator=g)
    it = iter(s)
    rec("first5", [next(it) for _ in range(5)])
    _after(lib, rec, "mid", g)
    rec("next", next(it))
    p = lib.utils.data.RandomSampler(range(9), num_samples=20, generator=g)
    it = iter(p)
    rec("p3", [next(it) for _ in range(3)])
    _after(lib, rec, "pmid", g)
    rec("prest", list(it))
    _after(lib, rec, "pend", g)


def p_random_sampler_errors(lib, rec):
    RS = lib.utils.data.RandomSampler
    rec.err("repl_int", lambda: RS(range(3), replacement=1))
    rec.err("repl_none", lambda: RS(range(3), replacement=None))
    rec.err("zero", lambda: RS(range(3), num_samples=0))
    rec.err("neg", lambda: RS(range(3), num_samples=-2))
    rec.err("float", lambda: RS(range(3), num_samples=2.0))
    rec.err("empty", lambda: RS([]))
    rec.err("empty_n", lambda: list(RS([], replacement=True, num_samples=3)))
    rec.err("bool_n", lambda: len(RS(range(3), num_samples=True)))
    rec.err("str_n", lambda: RS(range(3), num_samples="4"))


def p_subset_random(lib, rec):
    g = _gen(lib, 4)
    idx = [3, 9, 14, 2, 8, 21]
    s = lib.utils.data.SubsetRandomSampler(idx, generator=g)
    rec("len", len(s))
    rec("e0", list(s))
    rec("e1", list(s))
    lib.manual_seed(8)
    s2 = lib.utils.data.SubsetRandomSampler(range(100, 110))
    rec("global", list(s2))
    t = lib.utils.data.SubsetRandomSampler(lib.arange(5) * 3, generator=_gen(lib, 2))
    rec("tensor_idx", lib.stack(list(t)))
    rec("empty", list(lib.utils.data.SubsetRandomSampler([], generator=g)))
    seq = lib.utils.data.SequentialSampler(range(4))
    rec("seq", list(seq))
    rec("seq_len", len(seq))
    _after(lib, rec, "g", g)


def p_weighted(lib, rec):
    W = lib.utils.data.WeightedRandomSampler
    g = _gen(lib, 21)
    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    s = W(w, 20, generator=g)
    rec("repl", list(s))
    rec("repl2", list(s))
    s = W(w, 5, replacement=False, generator=g)
    rec("norepl", list(s))
    rec("weights", s.weights)
    rec("len", len(s))
    s = W(lib.tensor([1.0, 0.0, 2.0, 5.0]), 6, generator=g)
    rec("tensor_w", list(s))
    rec("tensor_w.dtype", str(s.weights.dtype))
    s = W((1, 2, 3), 3, replacement=False, generator=g)
    rec("int_w", list(s))
    s = W(lib.ones(200), 150, replacement=False, generator=g)
    rec("many", list(s))
    lib.manual_seed(3)
    rec("global", list(W([0.2, 0.3, 0.5], 10)))
    # class-balanced sampling, as it is written for imbalanced datasets
    labels = lib.tensor([0, 0, 0, 0, 0, 0, 1, 1, 2, 0, 1, 0])
    counts = lib.bincount(labels)
    sample_w = (1.0 / counts.double())[labels]
    s = W(sample_w, len(labels), generator=_gen(lib, 9))
    rec("balanced", list(s))
    _after(lib, rec, "g", g)


def p_weighted_errors(lib, rec):
    W = lib.utils.data.WeightedRandomSampler
    g = _gen(lib, 1)
    rec.err("zero", lambda: W([1.0, 2.0], 0))
    rec.err("neg_n", lambda: W([1.0, 2.0], -1))
    rec.err("bool_n", lambda: W([1.0, 2.0], True))
    rec.err("float_n", lambda: W([1.0, 2.0], 2.0))
    rec.err("repl_int", lambda: W([1.0, 2.0], 2, replacement=1))
    rec.err("2d", lambda: W([[1.0, 2.0]], 2))
    rec.err("0d", lambda: W(3.0, 2))
    rec.err("neg_w", lambda: list(W([1.0, -2.0, 3.0], 2, generator=g)))
    rec.err("zero_w", lambda: list(W([0.0, 0.0], 2, generator=g)))
    rec.err("nan_w", lambda: list(W([1.0, float("nan")], 2, generator=g)))
    rec.err("inf_w", lambda: list(W([1.0, float("inf")], 2, generator=g)))
    rec.err("too_many", lambda: list(W([1.0, 0.0, 2.0], 3, replacement=False, generator=g)))
    rec.err("empty_w", lambda: list(W([], 2, generator=g)))
    rec.err("str_w", lambda: W(["a"], 2))
    rec.err("gen_w", lambda: W((x for x in [1.0, 2.0]), 2))
    rec.err("gen_int", lambda: list(W([1.0, 2.0], 3, generator=5)))
    # weights whose total overflows: torch samples (the last category) and warns of nothing
    rec("overflow", rec.warns("overflow.warns", lambda: list(W([1e308, 1e308], 4, generator=g))))
    rec("overflow_norepl", list(W([1e308, 1e308, 1.0], 3, replacement=False, generator=g)))
    rec("tiny", list(W([5e-324, 5e-324, 0.0], 8, generator=g)))
    rec("extreme", list(W([1e-300, 1.0, 1e300, 0.5], 3, replacement=False, generator=g)))
    _after(lib, rec, "g", g)


def p_batch_sampler(lib, rec):
    D = lib.utils.data
    for drop in (False, True):
        for bs in (1, 3, 4, 10, 11):
            b = D.BatchSampler(D.RandomSampler(range(10), generator=_gen(lib, bs)), bs, drop)
            rec(f"{drop}.{bs}", str(list(b)))
            rec(f"{drop}.{bs}.len", len(b))
    b = D.BatchSampler(range(7), 3, False)
    rec("range", str(list(b)))
    b = D.BatchSampler([5, 1, 4], 2, True)
    rec("list", str(list(b)))
    w = D.BatchSampler(D.WeightedRandomSampler([1, 2, 3, 4], 9, generator=_gen(lib, 2)), 4, False)
    rec("weighted", str(list(w)))
    rec.err("bs0", lambda: D.BatchSampler(range(3), 0, False))
    rec.err("bs_bool", lambda: D.BatchSampler(range(3), True, False))
    rec.err("bs_float", lambda: D.BatchSampler(range(3), 2.0, False))
    rec.err("drop_int", lambda: D.BatchSampler(range(3), 2, 1))
    rec.err("drop_none", lambda: D.BatchSampler(range(3), 2, None))
    rec.err("nolen", lambda: len(D.BatchSampler(iter(range(3)), 2, False)))


def p_distributed(lib, rec):
    DS = lib.utils.data.DistributedSampler
    data = list(range(11))
    for drop in (False, True):
        for shuffle in (True, False):
            for rank in range(3):
                s = DS(data, num_replicas=3, rank=rank, shuffle=shuffle, seed=5, drop_last=drop)
                for epoch in (0, 1, 7):
                    s.set_epoch(epoch)
                    rec(f"{drop}.{shuffle}.{rank}.{epoch}", list(s))
                rec(f"{drop}.{shuffle}.{rank}.len", len(s))
                rec(f"{drop}.{shuffle}.{rank}.total", s.total_size)
    # fewer samples than replicas: padded by repeating the whole list
    for rank in range(8):
        s = DS(range(3), num_replicas=8, rank=rank, seed=1)
        rec(f"pad{rank}", list(s))
        d = DS(range(3), num_replicas=8, rank=rank, drop_last=True)
        rec(f"pad{rank}.drop", list(d))
        rec(f"pad{rank}.droplen", len(d))
    lib.manual_seed(0)
    s = DS(range(6), num_replicas=2, rank=1)
    rec("default_seed", list(s))
    _after(lib, rec, "default")  # the shuffle does not touch the default generator
    rec("empty", list(DS([], num_replicas=2, rank=0)))


def p_distributed_errors(lib, rec):
    DS = lib.utils.data.DistributedSampler
    rec.err("rank_big", lambda: DS(range(4), num_replicas=2, rank=2))
    rec.err("rank_neg", lambda: DS(range(4), num_replicas=2, rank=-1))
    rec.err("rank_one", lambda: DS(range(4), num_replicas=1, rank=1))
    # a dataset that grows or shrinks after the sampler was made (active learning appends)
    for n in (0, 1, 3, 8, 10, 11, 20):
        for drop in (False, True):
            for shuffle in (False, True):
                data = list(range(6))
                s = DS(data, num_replicas=4, rank=1, shuffle=shuffle, drop_last=drop)
                data[:] = range(n)
                rec.err(f"resized{n}.{drop}.{shuffle}", lambda s=s, n=n: rec(f"idx{n}", list(s)))


def p_random_split(lib, rec):
    D = lib.utils.data
    parts = D.random_split(range(10), [3, 7], generator=_gen(lib, 42))
    for i, p in enumerate(parts):
        rec(f"p{i}", list(p))
        rec(f"p{i}.indices", list(p.indices))
    lib.manual_seed(1)
    parts = D.random_split(list(range(100, 112)), [5, 0, 7])
    rec("default", [list(p) for p in parts])
    _after(lib, rec, "default_after")
    g = _gen(lib, 3)
    a, b = D.random_split(range(20), (15, 5), generator=g)
    c, d = D.random_split(a, [10, 5], generator=g)
    rec("nested", [list(c), list(d)])
    rec("nested.ix", [c[0], d[-1], len(c)])
    rec("lenint_tensor", [len(p) for p in D.random_split(range(6), lib.tensor([2, 4]).tolist())])


def p_random_split_fractions(lib, rec):
    D = lib.utils.data
    g = _gen(lib, 42)
    for n, fracs in [
        (30, [0.3, 0.3, 0.4]),
        (11, [0.5, 0.5]),
        (10, [0.1] * 10),
        (7, [0.25, 0.25, 0.25, 0.25]),
        (3, [0.8, 0.1, 0.1]),
        (2, [0.2, 0.2, 0.6]),
        (5, [1.0]),
        (4, [0.0, 1.0]),
    ]:
        parts = _warned(
            rec,
            f"{n}.{fracs}.warn",
            lambda n=n, fracs=fracs: D.random_split(range(n), fracs, generator=g),
        )
        rec(f"{n}.{fracs}", [list(p) for p in parts])
    _after(lib, rec, "g", g)


def p_random_split_errors(lib, rec):
    D = lib.utils.data
    g = _gen(lib, 0)
    rec.err("short", lambda: D.random_split(range(10), [3, 6], generator=g))
    rec.err("long", lambda: D.random_split(range(10), [3, 8], generator=g))
    rec.err("frac_sum", lambda: D.random_split(range(10), [0.3, 0.3], generator=g))
    rec.err("frac_over", lambda: D.random_split(range(10), [0.7, 0.7], generator=g))
    rec.err("frac_neg", lambda: D.random_split(range(10), [1.5, -0.5], generator=g))
    rec.err("frac_neg2", lambda: D.random_split(range(10), [-0.5, 1.5], generator=g))
    rec.err("neg_len", lambda: D.random_split(range(10), [12, -2], generator=g))
    rec.err("empty", lambda: D.random_split(range(0), [], generator=g))
    # lengths computed as floats (0.8 * n): randperm(10.0, generator=g) matches no overload
    # (read with "minitorch" as "torch": see test_randperm_calls_match_torch)
    _err_as_torch(rec, "float_lens", lambda: D.random_split(range(10), [8.0, 2.0], generator=g))
    _err_as_torch(rec, "float_lens_default", lambda: D.random_split(range(10), [10 * 0.8, 2.0]))
    rec.err("gen_int", lambda: D.random_split(range(5), [2, 3], generator=1))
    rec.err("no_len", lambda: D.random_split(iter(range(5)), [2, 3], generator=g))
    rec.err("str_lens", lambda: D.random_split(range(5), "ab", generator=g))
    _after(lib, rec, "g", g)
    np = pytest.importorskip("numpy")
    for name, lens in [
        ("np_lens", np.array([2, 3])),
        ("np_ints", [np.int64(2), np.int32(3)]),
        ("np_fracs", np.array([0.6, 0.4])),
        ("tensor_fracs", lib.tensor([0.6, 0.4], dtype=lib.float64)),
        ("bools", [True, False, True, True, True, True]),
    ]:
        rec(name, [list(p) for p in D.random_split(range(5), lens, generator=_gen(lib, 2))])


def p_loader_errors(lib, rec):
    D = lib.utils.data
    ds = D.TensorDataset(lib.arange(10))
    g = _gen(lib, 0)
    rec.err("sampler_shuffle", lambda: D.DataLoader(ds, sampler=range(10), shuffle=True))
    rec.err(
        "batch_sampler_bs",
        lambda: D.DataLoader(ds, batch_size=2, batch_sampler=D.BatchSampler(range(10), 2, False)),
    )
    rec.err(
        "batch_sampler_drop",
        lambda: D.DataLoader(ds, drop_last=True, batch_sampler=[[0, 1]]),
    )
    rec.err("none_drop", lambda: D.DataLoader(ds, batch_size=None, drop_last=True))
    rec.err("workers", lambda: D.DataLoader(ds, num_workers=-1))
    rec.err("prefetch", lambda: D.DataLoader(ds, prefetch_factor=2))
    rec.err("persistent", lambda: D.DataLoader(ds, persistent_workers=True))
    rec.err("bs0", lambda: D.DataLoader(ds, batch_size=0))
    rec.err("timeout", lambda: D.DataLoader(ds, timeout=-1))
    dl = D.DataLoader(ds, batch_size=3, shuffle=True, generator=g)
    rec.err("set_bs", lambda: setattr(dl, "batch_size", 4))
    rec.err("set_sampler", lambda: setattr(dl, "sampler", None))
    rec("sampler_type", type(dl.sampler).__name__)
    rec("batch_sampler_type", type(dl.batch_sampler).__name__)
    rec("gen_same", dl.sampler.generator is g)
    rec("len", len(dl))


def p_large_randperm(lib, rec):
    g = _gen(lib, 99)
    for n in (2, 17, 1000, 5000, 70000):
        s = lib.utils.data.RandomSampler(range(n), generator=g)
        out = list(s)
        rec(f"n{n}.head", out[:20])
        rec(f"n{n}.sum", sum(out[::7]))
    _after(lib, rec, "g", g)


def p_worker_seed(lib, rec):
    D = lib.utils.data
    calls = []

    def init(worker_id):
        calls.append(worker_id)

    ds = D.TensorDataset(lib.arange(8))
    g = _gen(lib, 13)
    dl = D.DataLoader(ds, batch_size=3, shuffle=True, worker_init_fn=init, generator=g)
    infos = []

    class Probe(D.Dataset):
        def __getitem__(self, i):
            infos.append(D.get_worker_info())
            return i

        def __len__(self):
            return 4

    for epoch in range(2):
        rec(f"e{epoch}", [b[0] for b in dl])
        _after(lib, rec, f"e{epoch}.g", g)
    rec("calls", calls)
    rec("infos", str(list(D.DataLoader(Probe(), batch_size=2))) + str(set(map(str, infos))))
    lib.manual_seed(77)
    it = iter(D.DataLoader(range(6), batch_size=2, shuffle=True))
    rec("first", next(it))
    _after(lib, rec, "default_mid")
    rec("rest", list(it))
    lib.manual_seed(77)
    it = iter(D.DataLoader(range(6), batch_size=2))
    _after(lib, rec, "default_seq")


def p_resume(lib, rec):
    """A resumable data order: the generator's state saved at an epoch's start and restored,
    the first batches skipped, and the global RNG state saved and restored around a loader."""
    import itertools

    D = lib.utils.data
    g = _gen(lib, 2718)
    dl = D.DataLoader(range(17), batch_size=4, shuffle=True, generator=g)
    rec("e0", lib.cat(list(dl)))
    state = g.get_state()
    rec("state", state)
    rec("e1", lib.cat(list(dl)))
    g.set_state(state)
    rec("e1_resumed", lib.cat(list(itertools.islice(dl, 2, None))))
    _after(lib, rec, "g", g)
    lib.manual_seed(12)
    cpu_state = lib.get_rng_state()
    s = D.RandomSampler(range(9))
    first = list(s)
    lib.set_rng_state(cpu_state)
    rec("same", [first, list(s)])
    rec("rng_state", lib.get_rng_state())
    c = D.RandomSampler(range(9), generator=g)
    g2 = lib.Generator()
    g2.set_state(g.get_state())
    rec("clone", [list(c), list(D.RandomSampler(range(9), generator=g2))])
    rec("seed", [g.initial_seed(), g2.initial_seed()])


def p_worker_processes(lib, rec):
    """Worker processes (fork): each worker's seed is base_seed + id, torch, random and NumPy
    seeded from it; persistent workers keep their streams across epochs; an IterableDataset
    shards by worker id."""
    import multiprocessing
    import random

    import numpy as np

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method")
    D = lib.utils.data

    class Probe(D.Dataset):
        def __getitem__(self, i):
            w = D.get_worker_info()
            return [
                i,
                w.id,
                w.num_workers,
                w.seed,
                lib.initial_seed(),
                random.random(),
                float(np.random.rand()),
                float(lib.rand(1, dtype=lib.float64)),
            ]

        def __len__(self):
            return 7

    class Shards(D.IterableDataset):
        def __iter__(self):
            w = D.get_worker_info()
            for k in range(w.id, 7, w.num_workers):
                yield [k, w.id, float(lib.randn(1, dtype=lib.float64))]

    def flat(loader):
        return lib.tensor([row for batch in loader for row in batch], dtype=lib.float64)

    def seed_worker(worker_id):  # the recipe of torch's reproducibility notes
        worker_seed = lib.initial_seed() % 2**32
        np.random.seed(worker_seed)
        random.seed(worker_seed)

    g = _gen(lib, 3)
    kw = dict(collate_fn=lambda b: b, num_workers=2, multiprocessing_context="fork")
    dl = D.DataLoader(Probe(), batch_size=2, worker_init_fn=seed_worker, generator=g, **kw)
    rec("recipe", flat(dl))
    dl = D.DataLoader(Probe(), batch_size=2, shuffle=True, generator=g, **kw)
    rec("e0", flat(dl))
    rec("e1", flat(dl))
    _after(lib, rec, "g", g)
    dl = D.DataLoader(
        Probe(), batch_size=3, shuffle=True, generator=g, persistent_workers=True, **kw
    )
    rec("p0", flat(dl))
    rec("p1", flat(dl))
    _after(lib, rec, "pg", g)
    lib.manual_seed(4)
    rec("shards", flat(D.DataLoader(Shards(), batch_size=2, **kw)))
    rec("shuffled_default", flat(D.DataLoader(Probe(), batch_size=4, shuffle=True, **kw)))
    rec("main_after", lib.rand(2, dtype=lib.float64))


def p_distributed_wrappers(lib, rec):
    """The distributed wrappers training code writes over DistributedSampler: a sampler
    wrapped as a dataset (catalyst's DistributedSamplerWrapper), a weighted sampler per rank,
    and a BatchSampler over each rank's indices."""
    D = lib.utils.data

    class DatasetFromSampler(D.Dataset):
        def __init__(self, sampler):
            self.sampler = sampler
            self.sampler_list = None

        def __getitem__(self, index):
            if self.sampler_list is None:
                self.sampler_list = list(self.sampler)
            return self.sampler_list[index]

        def __len__(self):
            return len(self.sampler)

    class DistributedSamplerWrapper(D.DistributedSampler):
        def __init__(self, sampler, num_replicas, rank, shuffle=True):
            super().__init__(
                DatasetFromSampler(sampler), num_replicas=num_replicas, rank=rank, shuffle=shuffle
            )
            self.sampler = sampler

        def __iter__(self):
            self.dataset = DatasetFromSampler(self.sampler)
            indexes_of_indexes = super().__iter__()
            return iter(self.dataset[i] for i in indexes_of_indexes)

    class DistributedWeightedSampler(D.DistributedSampler):
        def __init__(self, dataset, weights, num_replicas, rank):
            super().__init__(dataset, num_replicas=num_replicas, rank=rank)
            self.weights = lib.as_tensor(weights, dtype=lib.double)

        def __iter__(self):
            g = lib.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = lib.randperm(len(self.dataset), generator=g).tolist()
            indices += indices[: self.total_size - len(indices)]
            indices = indices[self.rank : self.total_size : self.num_replicas]
            w = self.weights[indices]
            picked = lib.multinomial(w, self.num_samples, replacement=True, generator=g)
            return iter(lib.tensor(indices)[picked].tolist())

    weights = [0.1, 0.2, 3.0, 0.4, 0.5, 1.0, 0.7, 0.8, 0.05, 1.0, 2.0]
    for rank in range(3):
        base = D.WeightedRandomSampler(weights, 14, generator=_gen(lib, 5))
        s = DistributedSamplerWrapper(base, num_replicas=3, rank=rank)
        for epoch in range(2):
            s.set_epoch(epoch)
            rec(f"wrap{rank}.{epoch}", list(s))
        rec(f"wrap{rank}.len", len(s))
        d = DistributedWeightedSampler(range(11), weights, num_replicas=3, rank=rank)
        d.set_epoch(3)
        rec(f"dw{rank}", list(d))
        b = D.BatchSampler(D.DistributedSampler(range(11), 3, rank, seed=9), 2, drop_last=True)
        rec(f"bs{rank}", str(list(b)))
        rec(f"bs{rank}.len", len(b))


def _pipes(lib):
    """An IterDataPipe and a MapDataPipe of lib, made once per library at module level: torch's
    DataLoader pickles a pipe graph to traverse it (a class local to a function cannot be)."""
    D = lib.utils.data
    if lib.__name__ in _PIPES:
        return _PIPES[lib.__name__]

    class Numbers(D.IterDataPipe):
        def __iter__(self):
            return iter(range(5))

    class Squares(D.MapDataPipe):
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 5

    for cls in (Numbers, Squares):
        cls.__qualname__ = f"_{lib.__name__}_{cls.__name__}"
        globals()[cls.__qualname__] = cls
    _PIPES[lib.__name__] = Numbers, Squares
    return Numbers, Squares


_PIPES = {}


def p_datapipe_seeds(lib, rec):
    """A DataLoader over an IterDataPipe draws a shared seed for the pipe graph from its
    generator before the epoch's base seed, and again at each reset (a loader with workers
    resets once at its start); a MapDataPipe draws none."""
    import multiprocessing

    D = lib.utils.data
    Numbers, Squares = _pipes(lib)
    g = _gen(lib, 1)
    dl = D.DataLoader(Numbers(), batch_size=2, generator=g)
    for epoch in range(2):
        rec(f"pipe{epoch}", str([b.tolist() for b in dl]))
        _after(lib, rec, f"pipe{epoch}.g", g)
    rec(
        "map",
        str([b.tolist() for b in D.DataLoader(Squares(), batch_size=2, shuffle=True, generator=g)]),
    )
    _after(lib, rec, "map.g", g)
    lib.manual_seed(6)
    rec("default", str([b.tolist() for b in D.DataLoader(Numbers(), batch_size=3)]))
    _after(lib, rec, "default.g")
    if "fork" not in multiprocessing.get_all_start_methods():
        return
    for persistent in (False, True):
        g = _gen(lib, 2)
        dl = D.DataLoader(
            Numbers(),
            batch_size=2,
            generator=g,
            num_workers=1,
            multiprocessing_context="fork",
            persistent_workers=persistent,
        )
        for epoch in range(2):
            rec(f"w{persistent}{epoch}", str([b.tolist() for b in dl]))
            _after(lib, rec, f"w{persistent}{epoch}.g", g)


# --- float programs: (lib, dt, rec) ---


def p_loader_epochs(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 1, 10, 3)
    y = lib.arange(10)
    g = _gen(lib, 123)
    dl = D.DataLoader(D.TensorDataset(x, y), batch_size=4, shuffle=True, generator=g)
    for epoch in range(3):
        _batches(rec, f"e{epoch}", dl)
    dl = D.DataLoader(
        D.TensorDataset(x, y), batch_size=4, shuffle=True, drop_last=True, generator=g
    )
    _batches(rec, "drop", dl)
    rec("drop.len", len(dl))
    # a model step per batch: the loss sequence depends on the order
    w = _randn(lib, dt, 2, 3).requires_grad_(True)
    opt = lib.optim.SGD([w], lr=0.1)
    for xb, yb in D.DataLoader(
        D.TensorDataset(x, y), batch_size=3, shuffle=True, generator=_gen(lib, 5)
    ):
        loss = ((xb * w).sum(1) - yb.to(dt)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("w", w)


def p_loader_global_seed(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 2, 9, 2)
    lib.manual_seed(31)
    dl = D.DataLoader(D.TensorDataset(x), batch_size=2, shuffle=True)
    for epoch in range(2):
        _batches(rec, f"e{epoch}", dl)
    rec("after", lib.rand(3, dtype=dt))
    lib.manual_seed(31)
    _batches(rec, "again", dl)
    rec("after2", lib.randn(2, dtype=dt))


def p_loader_weighted(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 3, 6, 2)
    s = D.WeightedRandomSampler([0.1, 0.5, 1.0, 2.0, 0.2, 0.2], 10, generator=_gen(lib, 4))
    dl = D.DataLoader(D.TensorDataset(x), batch_size=4, sampler=s, generator=_gen(lib, 6))
    _batches(rec, "w", dl)
    _batches(rec, "w2", dl)
    r = D.RandomSampler(range(6), replacement=True, num_samples=7, generator=_gen(lib, 8))
    _batches(rec, "r", D.DataLoader(D.TensorDataset(x), batch_size=3, sampler=r))
    rec("len", len(D.DataLoader(D.TensorDataset(x), batch_size=3, sampler=r)))


def p_loader_subset_split(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 4, 20, 2)
    y = lib.arange(20) % 3
    full = D.TensorDataset(x, y)
    train, val = D.random_split(full, [0.8, 0.2], generator=_gen(lib, 42))
    rec("sizes", [len(train), len(val)])
    _batches(rec, "train", D.DataLoader(train, batch_size=5, shuffle=True, generator=_gen(lib, 1)))
    _batches(rec, "val", D.DataLoader(val, batch_size=3))
    sub = D.Subset(full, [19, 0, 7, 7])
    _batches(rec, "sub", D.DataLoader(sub, batch_size=3))
    sampler = D.SubsetRandomSampler(val.indices, generator=_gen(lib, 2))
    _batches(rec, "srs", D.DataLoader(full, batch_size=2, sampler=sampler))


def p_loader_batch_sampler(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 5, 11, 2)
    ds = D.TensorDataset(x, lib.arange(11))
    bs = D.BatchSampler(D.RandomSampler(ds, generator=_gen(lib, 3)), 4, drop_last=False)
    dl = D.DataLoader(ds, batch_sampler=bs)
    rec("len", len(dl))
    _batches(rec, "b", dl)
    # a length-bucketing batch sampler written by the user
    lens = lib.randint(1, 9, (11,), generator=_gen(lib, 4))

    class Bucket(D.Sampler):
        def __init__(self, g):
            self.g = g

        def __iter__(self):
            order = lib.argsort(lens, stable=True).tolist()
            batches = [order[i : i + 3] for i in range(0, len(order), 3)]
            for j in lib.randperm(len(batches), generator=self.g).tolist():
                yield batches[j]

        def __len__(self):
            return 4

    _batches(rec, "bucket", D.DataLoader(ds, batch_sampler=Bucket(_gen(lib, 9))))


def p_loader_distributed(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 6, 13, 2)
    ds = D.TensorDataset(x)
    for rank in range(4):
        s = D.DistributedSampler(ds, num_replicas=4, rank=rank, seed=17)
        dl = D.DataLoader(ds, batch_size=2, sampler=s)
        for epoch in range(2):
            s.set_epoch(epoch)
            _batches(rec, f"r{rank}.e{epoch}", dl)
        rec(f"r{rank}.len", len(dl))


def p_loader_unbatched(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 7, 5, 2)
    dl = D.DataLoader(D.TensorDataset(x), batch_size=None, shuffle=True, generator=_gen(lib, 2))
    _batches(rec, "u", dl)
    rec("len", len(dl))
    dl = D.DataLoader(x, batch_size=2, shuffle=True, generator=_gen(lib, 2))
    _batches(rec, "plain", dl)


def p_datasets_indexing(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 8, 6, 2)
    y = lib.arange(6)
    a = D.TensorDataset(x, y)
    b = D.TensorDataset(x[:3] * 2, y[:3] + 10)
    c = a + b
    rec("type", type(c).__name__)
    rec("len", len(c))
    rec("cum", c.cumulative_sizes)
    for i in (0, 5, 6, 8, -1, -9):
        xi, yi = c[i]
        rec(f"c{i}", xi)
        rec(f"c{i}.y", yi)
    rec.err("c_big", lambda: c[9])
    rec.err("c_neg", lambda: c[-10])
    rec.err("empty", lambda: D.ConcatDataset([]))
    rec("slice", a[1:3][0])
    rec("fancy", a[[4, 1]][0])
    rec("tensor_idx", a[lib.tensor([2, 2, 0])][1])
    rec.err("mismatch", lambda: D.TensorDataset(x, y[:5]))
    s = D.Subset(c, [8, 0, -1])
    rec("sub", lib.stack([s[i][0] for i in range(len(s))]))
    rec("sub_items", lib.stack([t[0] for t in s.__getitems__([2, 1])]))
    ss = D.Subset(s, [2])
    rec("subsub", ss[0][1])
    rec.err("sub_oob", lambda: s[3])
    d3 = c + D.TensorDataset(x[:1], y[:1])
    rec("cc", [type(d3).__name__, len(d3), str(d3.cumulative_sizes)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec("cumm", c.cummulative_sizes)
    rec("cumm.warn", str([f"{w.category.__name__}: {w.message}" for w in caught]))


def p_stack_chain(lib, dt, rec):
    D = lib.utils.data
    x = _randn(lib, dt, 9, 5, 3)
    y = lib.arange(5)

    class Stream(D.IterableDataset):
        def __init__(self, t):
            self.t = t

        def __iter__(self):
            return iter(self.t)

        def __len__(self):
            return len(self.t)

    st = D.StackDataset(D.TensorDataset(x), y)
    rec("st0", st[1][0][0])
    rec("st1", st[1][1])
    sd = D.StackDataset(img=x, label=y)
    rec("sd", sd[4]["img"])
    rec("sd.len", len(sd))
    _batches(rec, "sdl", D.DataLoader(sd, batch_size=2, shuffle=True, generator=_gen(lib, 1)))
    rec.err("both", lambda: D.StackDataset(x, y=y))
    rec.err("none", lambda: D.StackDataset())
    rec.err("size", lambda: D.StackDataset(x, y[:4]))
    ch = Stream(x) + Stream(x[:2] * 3)
    rec("chain.type", type(ch).__name__)
    rec("chain.len", len(ch))
    rec("chain", lib.stack(list(ch)))
    _batches(rec, "chainl", D.DataLoader(ch, batch_size=3))
    rec.err("chain_map", lambda: list(D.ChainDataset([Stream(x), D.TensorDataset(x)])))
    rec.err("concat_iter", lambda: D.ConcatDataset([Stream(x)]))
    rec.err("chain_shuffle", lambda: D.DataLoader(ch, shuffle=True))
    g = _gen(lib, 8)
    _batches(rec, "chain_gen", D.DataLoader(ch, batch_size=4, generator=g))
    _after(lib, rec, "chain_gen.g", g)  # the epoch's base seed is drawn all the same
