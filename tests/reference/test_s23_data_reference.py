"""Seeded slice of the session-23 differential fuzzer for minitorch.utils.data: the same random
cases run through torch.utils.data and minitorch.utils.data, and every observable result (batch
structure, container types, tensor dtypes/shapes/values, lengths, sampler orders after a seed,
exception type and message) must be equal."""

import collections
import random
import re
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

NT2 = collections.namedtuple("NT2", ["a", "b"])
NT1 = collections.namedtuple("NT1", ["x"])

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8"]
DTYPES += ["uint8", "bool"]
NP_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def ser(x, lib):
    """A library-independent form of a result."""
    if isinstance(x, lib.Tensor):
        dtype = str(x.dtype).split(".")[-1]
        v = x.detach().double() if dtype == "bfloat16" else x.detach()
        return ("T", dtype, tuple(x.shape), v.numpy().tolist(), x.requires_grad)
    if isinstance(x, np.ndarray):
        return ("np", str(x.dtype), x.shape, x.tolist())
    if isinstance(x, np.generic):
        return ("npg", type(x).__name__, x.item())
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("nt", type(x).__name__, tuple(ser(v, lib) for v in x))
    if isinstance(x, dict):
        return ("dict", type(x).__name__, tuple((k, ser(v, lib)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(ser(v, lib) for v in x))
    if isinstance(x, (int, float, bool, str, bytes, type(None))):
        return (type(x).__name__, x)
    return ("obj", type(x).__name__)


def exc_ser(e):
    msg = re.sub(r" at 0x[0-9a-f]+", "", str(e)).replace("minitorch.", "torch.")
    return ("EXC", type(e).__name__, msg)


def outcome(fn, lib):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(lib)
    except Exception as e:  # noqa: BLE001
        return exc_ser(e)


def both(fn):
    return outcome(fn, torch), outcome(fn, minitorch)


# ---------------------------------------------------------------------------------------------
# random nested samples


def leaf_spec(r):
    kind = r.choice(["tensor", "tensor", "np", "npscalar", "int", "float", "bool", "str", "bytes"])
    if kind == "tensor":
        return ("tensor", r.choice(DTYPES), tuple(r.randint(0, 3) for _ in range(r.randint(0, 2))))
    if kind == "np":
        return ("np", r.choice(NP_DTYPES), tuple(r.randint(0, 3) for _ in range(r.randint(0, 2))))
    if kind == "npscalar":
        return ("npscalar", r.choice(NP_DTYPES))
    return (kind,)


def struct_spec(r, depth=0):
    if depth >= 3 or r.random() < 0.45:
        return leaf_spec(r)
    kind = r.choice(["tuple", "list", "dict", "odict", "nt2", "nt1"])
    if kind in ("tuple", "list"):
        return (kind, [struct_spec(r, depth + 1) for _ in range(r.randint(0, 3))])
    if kind in ("dict", "odict"):
        keys = r.sample(["a", "b", "c", "d"], r.randint(0, 3))
        return (kind, [(k, struct_spec(r, depth + 1)) for k in keys])
    return (kind, [struct_spec(r, depth + 1) for _ in range(2 if kind == "nt2" else 1)])


def np_values(dtype, shape, rs):
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        a = rs.randint(0, 2, size=n).astype(bool)
    elif dtype.startswith(("int", "uint")):
        a = rs.randint(0, 100, size=n).astype(dtype)
    else:
        a = rs.randn(n).astype(dtype)
    return a.reshape(shape)


def build(spec, lib, rs):
    kind = spec[0]
    if kind == "tensor":
        dtype, shape = spec[1], spec[2]
        t = lib.tensor(np_values("float32" if dtype == "bfloat16" else dtype, shape, rs))
        return t.to(lib.bfloat16) if dtype == "bfloat16" else t
    if kind == "np":
        return np_values(spec[1], spec[2], rs)
    if kind == "npscalar":
        return np_values(spec[1], (), rs)[()]
    if kind == "int":
        return int(rs.randint(-5, 5))
    if kind == "float":
        return float(rs.randn())
    if kind == "bool":
        return bool(rs.randint(0, 2))
    if kind == "str":
        return f"s{rs.randint(0, 9)}"
    if kind == "bytes":
        return b"b%d" % rs.randint(0, 9)
    parts = spec[1]
    if kind == "tuple":
        return tuple(build(s, lib, rs) for s in parts)
    if kind == "list":
        return [build(s, lib, rs) for s in parts]
    if kind == "dict":
        return {k: build(s, lib, rs) for k, s in parts}
    if kind == "odict":
        return collections.OrderedDict((k, build(s, lib, rs)) for k, s in parts)
    return (NT2 if kind == "nt2" else NT1)(*(build(s, lib, rs) for s in parts))


@pytest.mark.parametrize("block", range(4))
def test_default_collate_and_convert_on_random_structures(block):
    for seed in range(block * 60, block * 60 + 60):
        r = random.Random(seed)
        spec = struct_spec(r)
        size = r.randint(1, 4)

        def collate(lib, spec=spec, size=size, seed=seed):
            rs = np.random.RandomState(seed)
            batch = [build(spec, lib, rs) for _ in range(size)]
            return ser(lib.utils.data.default_collate(batch), lib)

        def convert(lib, spec=spec, seed=seed):
            rs = np.random.RandomState(seed)
            return ser(lib.utils.data.default_convert(build(spec, lib, rs)), lib)

        a, b = both(collate)
        assert a == b, (seed, a, b)
        a, b = both(convert)
        assert a == b, (seed, a, b)


ERROR_BATCHES = {
    "unequal_lists": lambda lib: [[1, 2], [3]],
    "unequal_tensors": lambda lib: [lib.zeros(2), lib.zeros(3)],
    "str_arrays": lambda lib: [np.array(["a"]), np.array(["b"])],
    "object_arrays": lambda lib: [np.array([None]), np.array([None])],
    "objects": lambda lib: [object(), object()],
    "none": lambda lib: [None, None],
    "empty": lambda lib: [],
    "missing_key": lambda lib: [{"a": 1}, {"b": 2}],
}


@pytest.mark.parametrize("name", sorted(ERROR_BATCHES))
def test_default_collate_errors(name):
    a, b = both(lambda lib: lib.utils.data.default_collate(ERROR_BATCHES[name](lib)))
    assert a == b


# ---------------------------------------------------------------------------------------------
# DataLoader


def loader_case(r):
    kw = {}
    if r.random() < 0.8:
        kw["batch_size"] = r.choice([None, 1, 2, 3, 4, 7, 0, -1, 2.0, True])
    if r.random() < 0.5:
        kw["shuffle"] = r.choice([True, False, None])
    if r.random() < 0.4:
        kw["drop_last"] = r.choice([True, False])
    if r.random() < 0.2:
        kw["sampler"] = r.choice(["seq", "rand", "list", "subset"])
    if r.random() < 0.15:
        kw["batch_sampler"] = r.choice(["bs", "list"])
    if r.random() < 0.3:
        kw["generator"] = r.randint(0, 100)
    if r.random() < 0.15:
        kw["collate_fn"] = r.choice(["id", "convert"])
    if r.random() < 0.1:
        kw["num_workers"] = r.choice([-1, 0])
    if r.random() < 0.1:
        kw["prefetch_factor"] = r.choice([None, 2, -1])
    if r.random() < 0.1:
        kw["persistent_workers"] = r.choice([True, False])
    return kw


def realize(kw, lib, ds, n):
    data = lib.utils.data
    out = dict(kw)
    if "sampler" in kw:
        out["sampler"] = {
            "seq": lambda: data.SequentialSampler(ds),
            "rand": lambda: data.RandomSampler(ds),
            "list": lambda: list(range(n))[::-1],
            "subset": lambda: data.SubsetRandomSampler(list(range(0, n, 2))),
        }[kw["sampler"]]()
    if "batch_sampler" in kw:
        out["batch_sampler"] = {
            "bs": lambda: data.BatchSampler(data.SequentialSampler(ds), 3, False),
            "list": lambda: [[0, 1], [2], [n - 1, 0, 1]],
        }[kw["batch_sampler"]]()
    if "generator" in kw:
        out["generator"] = lib.Generator().manual_seed(kw["generator"])
    if "collate_fn" in kw:
        out["collate_fn"] = {"id": lambda b: b, "convert": data.default_convert}[kw["collate_fn"]]
    return out


def map_dataset(lib, n, as_dict):
    class Samples(lib.utils.data.Dataset):
        def __getitem__(self, i):
            x = lib.tensor(np.float32(i)) * 1.5
            return {"x": x, "y": i} if as_dict else (x, i)

        def __len__(self):
            return n

    return Samples()


@pytest.mark.parametrize("block", range(3))
def test_dataloader_options_batches_orders_and_errors(block):
    for seed in range(block * 50, block * 50 + 50):
        r = random.Random(seed)
        n = r.randint(0, 9)
        as_dict = r.random() < 0.5
        kw = loader_case(r)
        manual = r.randint(0, 1000)

        def run(lib, n=n, as_dict=as_dict, kw=kw, manual=manual):
            ds = map_dataset(lib, n, as_dict)
            lib.manual_seed(manual)
            loader = lib.utils.data.DataLoader(ds, **realize(kw, lib, ds, n))
            out = [outcome(lambda _: len(loader), lib)]
            out += [ser(list(loader), lib) for _ in range(2)]  # two epochs: two shuffles
            return out

        a, b = both(run)
        assert a == b, (seed, kw, a, b)


@pytest.mark.parametrize("block", range(2))
def test_dataloader_over_iterable_datasets(block):
    for seed in range(block * 40, block * 40 + 40):
        r = random.Random(seed)
        n = r.randint(0, 9)
        has_len = r.choice([True, False, "short"])
        kw = {}
        if r.random() < 0.8:
            kw["batch_size"] = r.choice([None, 1, 2, 3, 4])
        if r.random() < 0.5:
            kw["drop_last"] = r.choice([True, False])
        if r.random() < 0.2:
            kw["shuffle"] = r.choice([True, False, None])
        chain = r.random() < 0.2

        def run(lib, n=n, has_len=has_len, kw=kw, chain=chain):
            data = lib.utils.data

            class Stream(data.IterableDataset):
                def __iter__(self):
                    return iter([(lib.tensor([i, i + 1]), float(i)) for i in range(n)])

            if has_len is True:
                Stream.__len__ = lambda self: n
            elif has_len == "short":
                Stream.__len__ = lambda self: max(n - 2, 0)
            ds = data.ChainDataset([Stream(), Stream()]) if chain else Stream()
            loader = data.DataLoader(ds, **kw)
            return [outcome(lambda _: len(loader), lib)] + [
                ser(list(loader), lib) for _ in range(2)
            ]

        a, b = both(run)
        assert a == b, (seed, kw, a, b)


# ---------------------------------------------------------------------------------------------
# samplers, random_split, datasets


@pytest.mark.parametrize("block", range(2))
def test_samplers_orders_after_seeding(block):
    for seed in range(block * 100, block * 100 + 100):
        r = random.Random(seed)
        n = r.randint(1, 8)
        which = r.choice(["rand", "rand", "subset", "weighted", "batch"])
        gen = r.choice([None, r.randint(0, 99)])
        manual = r.randint(0, 1000)
        replacement = r.choice([True, False])
        num_samples = r.choice([None, 1, 5, 13, 40])
        weights = [round(r.random() * 3, 2) + 0.01 for _ in range(n)]
        batch_size, drop_last = r.randint(1, 4), r.choice([True, False])

        def run(
            lib,
            n=n,
            which=which,
            gen=gen,
            manual=manual,
            repl=replacement,
            num=num_samples,
            weights=weights,
            bs=batch_size,
            dl=drop_last,
        ):
            data = lib.utils.data
            lib.manual_seed(manual)
            g = None if gen is None else lib.Generator().manual_seed(gen)
            items = list(range(n))
            if which == "rand":
                s = data.RandomSampler(items, replacement=repl, num_samples=num, generator=g)
            elif which == "subset":
                s = data.SubsetRandomSampler([10 + i for i in items], generator=g)
            elif which == "weighted":
                s = data.WeightedRandomSampler(weights, num or n, repl, generator=g)
            else:
                s = data.BatchSampler(data.RandomSampler(items, generator=g), bs, dl)
            return [list(s), list(s), outcome(lambda _: len(s), lib)]

        a, b = both(run)
        assert a == b, (seed, a, b)


@pytest.mark.parametrize("block", range(2))
def test_random_split_lengths_fractions_and_errors(block):
    for seed in range(block * 75, block * 75 + 75):
        r = random.Random(seed)
        n = r.randint(0, 12)
        mode = r.choice(["int", "frac", "bad"])
        k = r.randint(1, 4)
        if mode == "int":
            lengths = [r.randint(0, 5) for _ in range(k)]
            if r.random() < 0.6:
                lengths[-1] = n - sum(lengths[:-1])
        elif mode == "frac":
            w = [r.random() for _ in range(k)]
            lengths = [x / sum(w) for x in w]
        else:
            lengths = r.choice([[0.5, 0.6], [-0.5, 1.5], [0.5], [n + 1], [], [1.0, 0.0], [n]])
        gen = r.choice([None, r.randint(0, 99)])
        manual = r.randint(0, 1000)

        def run(lib, n=n, lengths=lengths, gen=gen, manual=manual):
            lib.manual_seed(manual)
            kw = {} if gen is None else {"generator": lib.Generator().manual_seed(gen)}
            parts = lib.utils.data.random_split(list(range(100, 100 + n)), lengths, **kw)
            return [
                (type(p).__name__, list(p.indices), [p[i] for i in range(len(p))]) for p in parts
            ]

        a, b = both(run)
        assert a == b, (seed, lengths, a, b)


def test_dataset_wrappers_indexing_lengths_and_errors():
    for seed in range(150):
        r = random.Random(seed)
        which = r.choice(["concat", "subset", "tensor", "stack", "stack_kw", "chain"])
        sizes = [r.randint(0, 4) for _ in range(r.randint(0, 3))]
        idxs = [r.randint(-12, 12) for _ in range(6)]

        def run(lib, which=which, sizes=sizes, idxs=idxs):
            data = lib.utils.data
            if which == "concat":
                ds = data.ConcatDataset(
                    [list(range(10 * j, 10 * j + s)) for j, s in enumerate(sizes)]
                )
                out = [ds.cumulative_sizes, len(ds)]
            elif which == "subset":
                base = list(range(20, 26 + (sizes[0] if sizes else 0)))
                ds = data.Subset(base, [i % len(base) for i in idxs[:3]])
                out = [len(ds)]
            elif which == "tensor":
                ts = [
                    lib.arange(2 * s).reshape(s, 2) if j % 2 else lib.arange(s)
                    for j, s in enumerate(sizes)
                ]
                ds = data.TensorDataset(*ts)
                out = [len(ds)]
            elif which.startswith("stack"):
                parts = [list(range(s)) for s in sizes]
                if which == "stack":
                    ds = data.StackDataset(*parts)
                else:
                    ds = data.StackDataset(**{f"k{j}": p for j, p in enumerate(parts)})
                out = [len(ds)]
            else:

                class Stream(data.IterableDataset):
                    def __init__(self, m):
                        self.m = m

                    def __iter__(self):
                        return iter(range(self.m))

                    def __len__(self):
                        return self.m

                ds = data.ChainDataset([Stream(s) for s in sizes])
                return [len(ds), list(ds)]
            return out + [outcome(lambda _, i=i: ser(ds[i], lib), lib) for i in idxs]

        a, b = both(run)
        assert a == b, (seed, which, a, b)


WORKER_BATCHES = {
    "smaller_later": lambda lib: [lib.zeros(3, 2), lib.zeros(3, 2), lib.zeros(2, 0)],
    "larger_later": lambda lib: [lib.zeros(2), lib.zeros(3)],
    "non_tensor": lambda lib: [lib.zeros(3, requires_grad=True), "s"],
    "grad": lambda lib: [lib.zeros(3), lib.zeros(3, requires_grad=True)],
    "mixed_dtypes": lambda lib: [lib.zeros(2), lib.ones(2, dtype=lib.float64) / 3],
    "int_then_float": lambda lib: [lib.zeros(2, dtype=lib.int64), lib.ones(2) / 3],
}


def test_default_collate_inside_a_worker():
    def run(lib):
        data = lib.utils.data
        names = sorted(WORKER_BATCHES)

        class Index(data.Dataset):
            def __len__(self):
                return len(names)

            def __getitem__(self, i):
                return i

        def collate(indices):  # runs in the worker: collates the named batch there
            try:
                return ser(data.default_collate(WORKER_BATCHES[names[indices[0]]](lib)), lib)
            except Exception as e:  # noqa: BLE001
                return exc_ser(e)

        return list(data.DataLoader(Index(), batch_size=1, num_workers=1, collate_fn=collate))

    a, b = both(run)
    assert a == b
