"""Differential fuzzer: torch.utils.data.

Families (--only): collate (default_collate of random nested structures of tensors, NumPy
arrays/scalars, numbers, strings, dicts, namedtuples, with perturbations), convert
(default_convert), loader (DataLoader over map-style datasets: batch_size, shuffle with a
generator, sampler/batch_sampler, drop_last, collate_fn, len, errors), iterable (IterableDataset
loaders), sampler (Sequential/Random/SubsetRandom/WeightedRandom/BatchSampler with generators),
split (random_split with lengths/fractions), datasets (TensorDataset/ConcatDataset/Subset/
StackDataset/ChainDataset), misc. Outputs are serialized and compared (values, dtypes, types,
exceptions). --cases is per family; workers (num_workers > 0) are not covered. Adapted from
session 23's data fuzzer.
"""

# ruff: noqa: UP031  (code adapted as-is from the session fuzzers)

import collections
import random
import re  # noqa: E402
import traceback
import warnings

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------

# Differential fuzzer: torch.utils.data vs minitorch.utils.data.


warnings.simplefilter("ignore")

NT2 = collections.namedtuple("NT2", ["a", "b"])
NT1 = collections.namedtuple("NT1", ["x"])

DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
]
NP_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def ser(x, lib):
    """Canonical form of a value."""
    if isinstance(x, lib.Tensor):
        d = str(x.dtype).replace("torch.", "").replace("minitorch.", "")
        v = x.detach().double() if d == "bfloat16" else x.detach()
        arr = np.asarray(v.numpy())
        return ("T", d, tuple(x.shape), arr.tolist(), x.requires_grad)
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
    name = type(x).__name__
    return ("obj", name, type(x).__module__.replace("minitorch", "torch"))


def exc_ser(e):
    msg = re.sub(r" at 0x[0-9a-f]+", "", str(e)).replace("minitorch.", "torch.")
    msg = msg.replace("torch.", "").replace("minitorch.", "").replace("minitorch", "torch")
    return ("EXC", type(e).__name__, msg)


# --------------------------------------------------------------------------------------------
# nested structure generation (spec: pure data, built per library)


def gen_leaf_spec(r, allow_mixed=True):
    k = r.choice(
        ["tensor", "tensor", "np", "npscalar", "int", "float", "bool", "str", "bytes", "none"]
        + (["obj"] if allow_mixed else [])
    )
    if k == "tensor":
        dt = r.choice(DTYPES)
        shape = tuple(r.randint(0, 3) for _ in range(r.randint(0, 2)))
        return ("tensor", dt, shape)
    if k == "np":
        dt = r.choice(NP_DTYPES + ["<U3", "object"] if r.random() < 0.1 else NP_DTYPES)
        shape = tuple(r.randint(0, 3) for _ in range(r.randint(0, 2)))
        return ("np", dt, shape)
    if k == "npscalar":
        return (
            "npscalar",
            r.choice(NP_DTYPES + ["str_", "bytes_"] if r.random() < 0.1 else NP_DTYPES),
        )
    return (k,)


def gen_struct_spec(r, depth=0):
    if depth >= 3 or r.random() < 0.45:
        return gen_leaf_spec(r)
    k = r.choice(["tuple", "list", "dict", "nt2", "nt1", "odict"])
    if k in ("tuple", "list"):
        return (k, [gen_struct_spec(r, depth + 1) for _ in range(r.randint(0, 3))])
    if k in ("dict", "odict"):
        keys = r.sample(["a", "b", "c", "d"], r.randint(0, 3))
        return (k, [(kk, gen_struct_spec(r, depth + 1)) for kk in keys])
    if k == "nt2":
        return (k, [gen_struct_spec(r, depth + 1), gen_struct_spec(r, depth + 1)])
    return (k, [gen_struct_spec(r, depth + 1)])


def perturb(spec, r):
    """Occasionally changes a spec (a different leaf, a different length)."""
    if r.random() < 0.1:
        return gen_struct_spec(r, 2)
    if spec[0] in ("tuple", "list") and r.random() < 0.1:
        return (spec[0], spec[1] + [gen_leaf_spec(r)])
    if spec[0] in ("tuple", "list", "nt2", "nt1"):
        return (spec[0], [perturb(s, r) for s in spec[1]])
    if spec[0] in ("dict", "odict"):
        return (spec[0], [(k, perturb(s, r)) for k, s in spec[1]])
    if spec[0] in ("tensor", "np") and r.random() < 0.1:
        shape = tuple(r.randint(0, 3) for _ in range(len(spec[2])))
        return (
            spec[0],
            spec[1] if r.random() < 0.7 else r.choice(DTYPES if spec[0] == "tensor" else NP_DTYPES),
            shape,
        )
    return spec


class Obj:
    pass


def np_values(dt, shape, rs):
    if dt in ("<U3",):
        return np.array(rs.choice(["ab", "c", "xyz"], size=shape))
    if dt == "object":
        return np.empty(shape, dtype=object)
    n = int(np.prod(shape)) if shape else 1
    if dt == "bool":
        a = rs.randint(0, 2, size=n).astype(bool)
    elif dt.startswith(("int", "uint")):
        a = rs.randint(0, 100, size=n).astype(dt)
    elif dt.startswith("complex"):
        a = (rs.randn(n) + 1j * rs.randn(n)).astype(dt)
    else:
        a = rs.randn(n).astype(dt)
    return a.reshape(shape)


def build(spec, lib, rs):
    k = spec[0]
    if k == "tensor":
        dt, shape = spec[1], spec[2]
        src = "float32" if dt == "bfloat16" else dt
        a = np_values(src, shape, rs)
        t = lib.tensor(a)
        if dt == "bfloat16":
            t = t.to(lib.bfloat16)
        return t
    if k == "np":
        return np_values(spec[1], spec[2], rs)
    if k == "npscalar":
        dt = spec[1]
        if dt == "str_":
            return np.str_("ab")
        if dt == "bytes_":
            return np.bytes_(b"ab")
        return np_values(dt, (), rs)[()]
    if k == "int":
        return int(rs.randint(-5, 5))
    if k == "float":
        return float(rs.randn())
    if k == "bool":
        return bool(rs.randint(0, 2))
    if k == "str":
        return "s%d" % rs.randint(0, 9)
    if k == "bytes":
        return b"b%d" % rs.randint(0, 9)
    if k == "none":
        return None
    if k == "obj":
        return Obj()
    if k == "tuple":
        return tuple(build(s, lib, rs) for s in spec[1])
    if k == "list":
        return [build(s, lib, rs) for s in spec[1]]
    if k == "dict":
        return {kk: build(s, lib, rs) for kk, s in spec[1]}
    if k == "odict":
        return collections.OrderedDict((kk, build(s, lib, rs)) for kk, s in spec[1])
    if k == "nt2":
        return NT2(*(build(s, lib, rs) for s in spec[1]))
    if k == "nt1":
        return NT1(*(build(s, lib, rs) for s in spec[1]))
    raise ValueError(k)


def run(fn, lib):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = fn(lib)
        ws = tuple(
            sorted(
                {
                    str(x.message).replace("minitorch", "torch")
                    for x in w
                    if not issubclass(x.category, DeprecationWarning)
                }
            )
        )
        return ("OK", out, ws)
    except Exception as e:  # noqa: BLE001
        return exc_ser(e)


# --------------------------------------------------------------------------------------------
# case families


def case_collate(r, seed):
    spec = gen_struct_spec(r)
    B = r.randint(1, 4)
    specs = [spec] + [perturb(spec, r) if r.random() < 0.3 else spec for _ in range(B - 1)]

    def f(lib):
        rs = np.random.RandomState(seed)
        batch = [build(s, lib, rs) for s in specs]
        return ser(lib.utils.data.default_collate(batch), lib)

    return f


def case_convert(r, seed):
    spec = gen_struct_spec(r)

    def f(lib):
        rs = np.random.RandomState(seed)
        return ser(lib.utils.data.default_convert(build(spec, lib, rs)), lib)

    return f


def make_map_dataset(lib, n, kind, rs):
    D = lib.utils.data

    class DS(D.Dataset):
        def __init__(self):
            self.data = [(lib.tensor(np.float32(i)) * 1.5, i) for i in range(n)]

        def __getitem__(self, i):
            if kind == "dict":
                return {"x": self.data[i][0], "y": self.data[i][1]}
            return self.data[i]

        def __len__(self):
            return n

    return DS()


def gen_loader_kwargs(r):
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
        kw["collate_fn"] = r.choice(["id", "len", "convert"])
    if r.random() < 0.1:
        kw["num_workers"] = r.choice([-1, 0])
    if r.random() < 0.1:
        kw["prefetch_factor"] = r.choice([None, 2, -1, 0])
    if r.random() < 0.1:
        kw["persistent_workers"] = r.choice([True, False])
    if r.random() < 0.05:
        kw["timeout"] = r.choice([-1, 0])
    return kw


def realize_kwargs(kw, lib, ds, n):
    D = lib.utils.data
    out = dict(kw)
    if "sampler" in kw:
        out["sampler"] = {
            "seq": lambda: D.SequentialSampler(ds),
            "rand": lambda: D.RandomSampler(ds),
            "list": lambda: list(range(n))[::-1],
            "subset": lambda: D.SubsetRandomSampler(list(range(0, n, 2))),
        }[kw["sampler"]]()
    if "batch_sampler" in kw:
        out["batch_sampler"] = {
            "bs": lambda: D.BatchSampler(D.SequentialSampler(ds), 3, False),
            "list": lambda: [[0, 1], [2], [n - 1, 0, 1]],
        }[kw["batch_sampler"]]()
    if "generator" in kw:
        out["generator"] = lib.Generator().manual_seed(kw["generator"])
    if "collate_fn" in kw:
        out["collate_fn"] = {
            "id": lambda b: b,
            "len": lambda b: len(b) if isinstance(b, list) else -1,
            "convert": D.default_convert,
        }[kw["collate_fn"]]
    return out


def case_loader(r, seed):
    n = r.randint(0, 9)
    kind = r.choice(["tuple", "dict"])
    kw = gen_loader_kwargs(r)
    mseed = r.randint(0, 1000)

    def f(lib):
        rs = np.random.RandomState(seed)
        ds = make_map_dataset(lib, n, kind, rs)
        lib.manual_seed(mseed)
        dl = lib.utils.data.DataLoader(ds, **realize_kwargs(kw, lib, ds, n))
        res = []
        try:
            res.append(("len", len(dl)))
        except Exception as e:  # noqa: BLE001
            res.append(exc_ser(e))
        for _ in range(2):
            try:
                res.append(ser(list(dl), lib))
            except Exception as e:  # noqa: BLE001
                res.append(exc_ser(e))
        res.append(
            (
                "attrs",
                dl.batch_size,
                dl.drop_last,
                type(dl.sampler).__name__,
                type(dl.batch_sampler).__name__,
            )
        )
        return res

    return f


def case_iterable(r, seed):
    n = r.randint(0, 9)
    has_len = r.choice([True, False, "wrong"])
    kw = {}
    if r.random() < 0.8:
        kw["batch_size"] = r.choice([None, 1, 2, 3, 4])
    if r.random() < 0.5:
        kw["drop_last"] = r.choice([True, False])
    if r.random() < 0.2:
        kw["shuffle"] = r.choice([True, False, None])
    if r.random() < 0.1:
        kw["sampler"] = "seq"
    if r.random() < 0.1:
        kw["batch_sampler"] = "bs"
    chain = r.random() < 0.2

    def f(lib):
        D = lib.utils.data

        class It(D.IterableDataset):
            def __iter__(self):
                for i in range(n):
                    yield (lib.tensor([i, i + 1]), float(i))

        if has_len is True:
            It.__len__ = lambda self: n
        elif has_len == "wrong":
            It.__len__ = lambda self: max(n - 2, 0)
        ds = It()
        if chain:
            ds = D.ChainDataset([ds, It()])
        k = dict(kw)
        if "sampler" in k:
            k["sampler"] = D.SequentialSampler(range(n))
        if "batch_sampler" in k:
            k["batch_sampler"] = D.BatchSampler(range(n), 2, False)
        dl = D.DataLoader(ds, **k)
        res = []
        try:
            res.append(("len", len(dl)))
        except Exception as e:  # noqa: BLE001
            res.append(exc_ser(e))
        for _ in range(2):
            try:
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    out = list(dl)
                res.append(
                    (
                        ser(out, lib),
                        tuple(str(x.message).replace("minitorch", "torch")[:60] for x in w),
                    )
                )
            except Exception as e:  # noqa: BLE001
                res.append(exc_ser(e))
        return res

    return f


def case_sampler(r, seed):
    n = r.randint(0, 8)
    which = r.choice(["seq", "rand", "rand", "subset", "weighted", "batch"])
    args = {}
    if which == "rand":
        args = {
            "replacement": r.choice([True, False, 1]) if r.random() < 0.9 else "x",
            "num_samples": r.choice([None, None, 1, 5, 13, 0, -2, 2.0]),
            "gen": r.choice([None, r.randint(0, 99)]),
        }
    elif which == "subset":
        args = {"gen": r.choice([None, r.randint(0, 99)])}
    elif which == "weighted":
        args = {
            "weights": [round(r.random() * 3, 2) * (r.random() > 0.1) for _ in range(n)]
            if r.random() < 0.9
            else [[1.0, 2.0]],
            "num_samples": r.choice([1, 3, 10, 0, -1, 2.5, True]),
            "replacement": r.choice([True, False, 0]),
            "gen": r.choice([None, r.randint(0, 99)]),
        }
    elif which == "batch":
        args = {
            "bs": r.choice([1, 2, 3, 0, -1, 2.0, True, None]),
            "dl": r.choice([True, False, 1, None]),
            "inner": r.choice(["seq", "range", "rand"]),
        }
    mseed = r.randint(0, 1000)

    def f(lib):
        D = lib.utils.data
        data = list(range(n))
        lib.manual_seed(mseed)
        g = None
        if args.get("gen") is not None:
            g = lib.Generator().manual_seed(args["gen"])
        if which == "seq":
            s = D.SequentialSampler(data)
        elif which == "rand":
            s = D.RandomSampler(
                data, replacement=args["replacement"], num_samples=args["num_samples"], generator=g
            )
        elif which == "subset":
            s = D.SubsetRandomSampler([10 + i for i in data], generator=g)
        elif which == "weighted":
            s = D.WeightedRandomSampler(
                args["weights"], args["num_samples"], args["replacement"], generator=g
            )
        else:
            inner = {
                "seq": lambda: D.SequentialSampler(data),
                "range": lambda: range(n),
                "rand": lambda: D.RandomSampler(data) if n else range(0),
            }[args["inner"]]()
            s = D.BatchSampler(inner, args["bs"], args["dl"])
        res = []
        for _ in range(2):
            try:
                res.append(ser(list(s), lib))
            except Exception as e:  # noqa: BLE001
                res.append(exc_ser(e))
        try:
            res.append(len(s))
        except Exception as e:  # noqa: BLE001
            res.append(exc_ser(e))
        return res

    return f


def case_split(r, seed):
    n = r.randint(0, 12)
    mode = r.choice(["int", "frac", "bad"])
    k = r.randint(1, 4)
    if mode == "int":
        lengths = [r.randint(0, 5) for _ in range(k)]
        if r.random() < 0.6 and k > 0:
            lengths[-1] = n - sum(lengths[:-1])
    elif mode == "frac":
        w = [r.random() for _ in range(k)]
        s = sum(w)
        lengths = [x / s for x in w]
        if r.random() < 0.3:
            lengths = r.choice(
                [
                    [0.5, 0.5],
                    [0.3, 0.3, 0.4],
                    [0.1, 0.9],
                    [1.0],
                    [0.0, 1.0],
                    [0.25, 0.25, 0.25, 0.25],
                    [1 / 3, 1 / 3, 1 / 3],
                    [0.7, 0.2, 0.1],
                ]
            )
    else:
        lengths = r.choice(
            [
                [0.5, 0.6],
                [-0.5, 1.5],
                [0.5],
                [n + 1],
                [-1, n + 1],
                [],
                [0.5, 0.5, 0.0],
                [2, 0.5],
                [n],
                [1.0, 0.0],
            ]
        )
    gen = r.choice([None, r.randint(0, 99)])
    mseed = r.randint(0, 1000)

    def f(lib):
        D = lib.utils.data
        data = list(range(100, 100 + n))
        lib.manual_seed(mseed)
        kw = {}
        if gen is not None:
            kw["generator"] = lib.Generator().manual_seed(gen)
        parts = D.random_split(data, lengths, **kw)
        return [(type(p).__name__, list(p.indices), [p[i] for i in range(len(p))]) for p in parts]

    return f


def case_datasets(r, seed):
    which = r.choice(["concat", "subset", "tensor", "stack", "chain"])
    sizes = [r.randint(0, 4) for _ in range(r.randint(0, 3))]
    idxs = [r.randint(-12, 12) for _ in range(6)]
    use_args = r.random() < 0.5

    def f(lib):
        D = lib.utils.data
        res = []
        if which == "concat":
            ds = D.ConcatDataset([list(range(10 * j, 10 * j + s)) for j, s in enumerate(sizes)])
            res.append(("cs", ds.cumulative_sizes, len(ds)))
        elif which == "subset":
            base = list(range(20, 20 + (sizes[0] if sizes else 3) + 3))
            ds = D.Subset(base, [i % len(base) for i in idxs[:3]])
            res.append(len(ds))
        elif which == "tensor":
            ts = [
                lib.arange(s * 2).reshape(s, 2) if j % 2 else lib.arange(s)
                for j, s in enumerate(sizes)
            ]
            ds = D.TensorDataset(*ts)
            res.append(len(ds))
        elif which == "stack":
            parts = [list(range(s)) for s in sizes]
            if use_args:
                ds = D.StackDataset(*parts)
            else:
                ds = D.StackDataset(**{"k%d" % j: p for j, p in enumerate(parts)})
            res.append(len(ds))
        else:

            class It(D.IterableDataset):
                def __init__(self, m):
                    self.m = m

                def __iter__(self):
                    return iter(range(self.m))

                def __len__(self):
                    return self.m

            ds = D.ChainDataset([It(s) for s in sizes])
            res.append(len(ds))
            res.append(list(ds))
            return res
        for i in idxs:
            try:
                res.append(ser(ds[i], lib))
            except Exception as e:  # noqa: BLE001
                res.append(exc_ser(e))
        return res

    return f


def case_misc(r, seed):
    which = r.choice(["wi", "concat_bad", "chain_bad", "stack_bad", "tds_empty", "add"])
    cb = r.randint(0, 2)

    def f(lib):
        D = lib.utils.data
        if which == "wi":
            return D.get_worker_info()
        if which == "concat_bad":

            class It(D.IterableDataset):
                def __iter__(self):
                    return iter([])

            return D.ConcatDataset([[], [It()], [[1], It()]][cb])
        if which == "chain_bad":
            ds = D.ChainDataset([[1, 2]])
            return list(ds)
        if which == "stack_bad":
            return D.StackDataset([1], b=[2])
        if which == "tds_empty":
            return ser(D.TensorDataset(), lib)
        if which == "add":
            a = D.TensorDataset(lib.arange(3))
            b = a + a
            return (type(b).__name__, len(b), ser(b[4], lib))

    return f


FAMILIES = {
    "collate": case_collate,
    "convert": case_convert,
    "loader": case_loader,
    "iterable": case_iterable,
    "sampler": case_sampler,
    "split": case_split,
    "datasets": case_datasets,
    "misc": case_misc,
}


def main():
    args = H.cli(
        "utils_data",
        default_cases=800,
        extra=lambda p: p.add_argument("--only", help="comma-separated families (default all)"),
    )
    rep = args.report
    runl = H.limited(run, args.timeout, lambda e: ("EXC", "CaseTimeout", str(e)))
    for fam in args.only.split(",") if args.only else list(FAMILIES):
        for seed in range(args.seed, args.seed + args.cases):
            r = random.Random(seed * 7919 + len(fam))
            try:
                fn = FAMILIES[fam](r, seed)
            except Exception:
                rep.add((fam, "gen-error"), f"seed {seed}", traceback.format_exc()[-300:])
                continue
            rep.case()
            a = runl(fn, torch)
            b = runl(fn, minitorch)
            if a != b:
                key = (fam, a[0] if a[0] == "EXC" else "OK", b[0] if b[0] == "EXC" else "OK")
                rep.add(key, f"seed {seed}", "torch: " + repr(a)[:1000], "mini:  " + repr(b)[:1000])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
