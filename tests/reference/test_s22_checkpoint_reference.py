"""Session 22 (h14): a seeded slice of the checkpoint / _pytree differential fuzzers: random
small programs checkpointed (reentrant or not, nested, with parameters, dropout, early stop,
several outputs, backward / autograd.grad / retain_graph / create_graph) and random nested
containers flattened, against torch."""

from __future__ import annotations

import collections
import contextlib
import random
import re
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

_UNARY = ["sin", "tanh", "relu", "sigmoid", "square", "exp"]
_BINARY = ["add", "mul", "matmul", "where"]


def _unary(lib, name, a):
    if name == "relu":
        return lib.relu(a)
    if name == "square":
        return a * a
    if name == "exp":
        return (a * 0.3).exp()
    return getattr(a, name)()


def _binary(lib, name, a, b):
    if name == "add":
        return a + b
    if name == "mul":
        return a * b
    if name == "where":
        return lib.where(a > 0, a, b)
    return (a @ b.t())[:, :1] * a


def _case(seed):
    r = random.Random(seed)
    c = {"n": r.randint(1, 3), "steps": [], "seed": seed}
    c["rg"] = [r.random() < 0.75 for _ in range(c["n"])]
    pool = c["n"]
    for _ in range(r.randint(1, 4)):
        if r.random() < 0.6:
            c["steps"].append(("u", r.choice(_UNARY), r.randrange(pool)))
        else:
            c["steps"].append(("b", r.choice(_BINARY), r.randrange(pool), r.randrange(pool)))
        pool += 1
    c["outs"] = [r.randrange(c["n"], pool) for _ in range(r.randint(1, 3))]
    c["kind"] = r.choice(["single", "tuple", "mixed", "dict"])
    c["reentrant"] = r.choice([True, False, False])
    c["linear"] = r.random() < 0.4
    c["dropout"] = r.random() < 0.3
    c["nested"] = r.random() < 0.2
    c["early"] = r.choice([None, True, False])
    c["backward"] = r.choice(["backward", "grad", "twice", "create_graph"])
    c["nondet"] = r.random() < 0.08
    c["mutate"] = r.random() < 0.05
    return c


def _norm(s):
    s = re.sub(r"0x[0-9a-f]+", "0x", str(s))
    return s.split("\nTip: To see a more detailed")[0].strip()


def _np(t):
    return None if t is None else t.detach().numpy(force=True).copy()


def _run(lib, c):
    rs = np.random.RandomState(c["seed"])
    lib.manual_seed(c["seed"])
    ck = lib.utils.checkpoint
    ins = [lib.tensor(rs.randn(2, 3), requires_grad=g) for g in c["rg"]]
    lin = lib.nn.Linear(3, 3).double()
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(rs.randn(3, 3)))
        lin.bias.copy_(lib.tensor(rs.randn(3)))
    drop = lib.nn.Dropout(0.5)
    calls = [0]

    def body(*ts):
        calls[0] += 1
        pool = list(ts)
        for s in c["steps"]:
            if s[0] == "u":
                pool.append(_unary(lib, s[1], pool[s[2]]))
            else:
                pool.append(_binary(lib, s[1], pool[s[2]], pool[s[3]]))
        if c["linear"]:
            pool[-1] = lin(pool[-1])
        if c["dropout"]:
            pool[-1] = drop(pool[-1])
        if c["nondet"] and calls[0] > 1:
            pool[-1] = pool[-1].sum(0).sin()
        outs = [pool[i] for i in c["outs"]]
        if c["kind"] == "single":
            return outs[-1]
        if c["kind"] == "tuple":
            return tuple(outs)
        if c["kind"] == "mixed":
            return (outs[0], 3, None, *outs[1:])
        return {"a": outs[0], "n": 1}

    fn = body
    if c["nested"]:

        def fn(*ts):
            return ck.checkpoint(body, *ts, use_reentrant=c["reentrant"])

    obs = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            early = (
                ck.set_checkpoint_early_stop(c["early"])
                if c["early"] is not None
                else contextlib.nullcontext()
            )
            with early:
                out = ck.checkpoint(fn, *ins, use_reentrant=c["reentrant"])
            if isinstance(out, dict):
                outs = [out["a"]]
            elif isinstance(out, tuple):
                outs = [o for o in out if isinstance(o, type(ins[0]))]
            else:
                outs = [out]
            obs["out"] = [(_np(o), o.requires_grad) for o in outs]
            if c["mutate"]:
                with lib.no_grad():
                    ins[0].add_(1)
            terms = [(o * (j + 1)).sum() for j, o in enumerate(outs) if o.requires_grad]
            if terms:
                loss = sum(terms[1:], terms[0])
                targets = [t for t in ins if t.requires_grad]
                if c["linear"]:
                    targets += list(lin.parameters())
                if c["backward"] == "backward":
                    loss.backward()
                elif c["backward"] == "twice":
                    loss.backward(retain_graph=True)
                    loss.backward()
                elif targets:
                    gs = lib.autograd.grad(
                        loss,
                        targets,
                        allow_unused=True,
                        create_graph=c["backward"] == "create_graph",
                    )
                    obs["g"] = [_np(g) for g in gs]
                    second = [(g * g).sum() for g in gs if g is not None and g.requires_grad]
                    if second:
                        sum(second[1:], second[0]).backward()
            obs["exc"] = None
        except Exception as e:  # noqa: BLE001 - compared with torch's
            obs["exc"] = (type(e).__name__, _norm(e))
    obs["warn"] = sorted({(x.category.__name__, _norm(x.message)) for x in w})
    obs["grads"] = [_np(t.grad) for t in ins] + [_np(p.grad) for p in lin.parameters()]
    obs["calls"] = calls[0]
    obs["rng"] = _np(lib.rand(3))
    return obs


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and np.allclose(a, b, rtol=1e-9, atol=1e-9)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


# torch's reentrant backward fails on its own ("Boolean value of Tensor ...") when the
# recomputation returns differently shaped outputs; not a behaviour to copy
def _torch_quirk(c, t):
    return c["reentrant"] and c["nondet"] and t["exc"] is not None


@pytest.mark.parametrize("block", range(4))
def test_checkpoint_random_programs_match_torch(block):
    bad = []
    for seed in range(block * 100, block * 100 + 100):
        c = _case(seed)
        t, m = _run(torch, c), _run(minitorch, c)
        if _torch_quirk(c, t):
            continue
        diff = [k for k in t if not _same(t[k], m[k])]
        if diff:
            bad.append((seed, diff, t.get("exc"), m.get("exc")))
    assert not bad, bad[:5]


# --- _pytree ---

_P2 = collections.namedtuple("_P2", ["a", "b"])


def _tree(r, depth):
    if depth == 0 or r.random() < 0.3:
        return r.choice([("i", r.randint(0, 9)), ("none",), ("s", "ab"), ("t", r.randint(0, 3))])
    kind = r.choice(["list", "tuple", "dict", "od", "dd", "deque", "nt", "size"])
    n = 2 if kind == "nt" else r.randint(0, 3)
    return (kind, [_tree(r, depth - 1) for _ in range(n)], r.sample(["a", "b", 1, "z"], n))


def _build(lib, d):
    k = d[0]
    if k == "i":
        return d[1]
    if k == "none":
        return None
    if k == "s":
        return d[1]
    if k == "t":
        return lib.tensor([float(d[1])])
    if k == "size":
        return lib.Size(range(1, len(d[1]) + 1))
    kids, keys = [_build(lib, x) for x in d[1]], d[2]
    return {
        "list": lambda: kids,
        "tuple": lambda: tuple(kids),
        "dict": lambda: dict(zip(keys, kids, strict=True)),
        "od": lambda: collections.OrderedDict(zip(keys, kids, strict=True)),
        "dd": lambda: collections.defaultdict(list, zip(keys, kids, strict=True)),
        "deque": lambda: collections.deque(kids, maxlen=4),
        "nt": lambda: _P2(*kids),
    }[k]()


def _text(s):
    s = re.sub(r"0x[0-9a-f]+", "0x", str(s)).replace("minitorch.", "torch.")
    return re.sub(r"tensor\(\[([^\]]*)\]\)", r"T(\1)", s)


def _pytree_obs(lib, pt, d1, d2):
    t1, t2 = _build(lib, d1), _build(lib, d2)
    out = {}

    def rec(name, f):
        try:
            out[name] = _text(f())
        except Exception as e:  # noqa: BLE001 - compared with torch's
            out[name] = ("EXC", type(e).__name__, _text(e))

    leaves, spec = pt.tree_flatten(t1)
    rec("leaves", lambda: leaves)
    rec("repr", lambda: repr(spec))
    rec("nums", lambda: (spec.num_leaves, spec.num_nodes, spec.num_children))
    rec("unflatten", lambda: pt.tree_unflatten(leaves, spec))
    rec("map", lambda: pt.tree_map(lambda x: ("m", x), t1))
    rec("map2", lambda: pt.tree_map(lambda a, b: (a, b), t1, t2))
    rec("up_to", lambda: spec.flatten_up_to(t2))
    rec("eq", lambda: spec == pt.tree_structure(t2))
    rec("paths", lambda: [pt.keystr(p) for p, _ in pt.tree_flatten_with_path(t1)[0]])
    rec("unflatten_other", lambda: pt.tree_unflatten(pt.tree_leaves(t2), spec))
    return out


def test_pytree_random_trees_match_torch():
    import torch.utils._pytree as tpt

    import minitorch.utils._pytree as mpt

    bad = []
    for seed in range(600):
        r = random.Random(seed)
        d1 = _tree(r, 3)
        d2 = d1 if r.random() < 0.4 else _tree(r, 3)
        t = _pytree_obs(torch, tpt, d1, d2)
        m = _pytree_obs(minitorch, mpt, d1, d2)
        diff = [k for k in t if t[k] != m[k]]
        if diff:
            bad.append((seed, diff, [(t[k], m[k]) for k in diff][:1]))
    assert not bad, bad[:3]
