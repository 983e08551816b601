"""Differential fuzzer: activation checkpointing, backward hooks, pytrees.

Parts (--part): ckpt (torch.utils.checkpoint.checkpoint on random chains of ops: use_reentrant
True/False, preserve_rng_state, determinism_check, debug, context_fn, nested checkpoints, kwargs,
non-tensor outputs, early stop; outputs, gradients, grad_fn names, warnings, errors), bhook
(module forward/backward/full-backward hooks around checkpointed modules), seq
(checkpoint_sequential with segments, dropout RNG replay, in-place modules), pytree
(torch.utils._pytree: tree_flatten/unflatten/map/leaves/structure, key paths, treespec repr/
equality/serialization, registered node types, namedtuples, OrderedDict/defaultdict/deque).
--cases is per part. Adapted from session 22's h14 fuzzers.
"""

# ruff: noqa: B023  (code adapted as-is from the session fuzzers)

import random
import re
import traceback
import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple

import _harness as H
import numpy as np
import torch.utils._pytree as tpt
import torch.utils.checkpoint  # noqa: F401
from _harness import minitorch, torch

import minitorch.utils._pytree as mpt
import minitorch.utils.checkpoint  # noqa: F401

# ----------------------------------------------------------------------

# Differential fuzzer: torch.utils.checkpoint vs minitorch.utils.checkpoint.


UNARY = ["sin", "exp_small", "tanh", "relu", "sigmoid", "square", "neg", "cos", "abs"]
BINARY = ["add", "mul", "sub", "matmulT", "where"]


def apply_unary(L, name, a):
    if name == "sin":
        return a.sin()
    if name == "exp_small":
        return (a * 0.3).exp()
    if name == "tanh":
        return a.tanh()
    if name == "relu":
        return L.relu(a)
    if name == "sigmoid":
        return a.sigmoid()
    if name == "square":
        return a * a
    if name == "neg":
        return -a
    if name == "cos":
        return L.cos(a)
    if name == "abs":
        return a.abs()
    raise KeyError(name)


def apply_binary(L, name, a, b):
    if name == "add":
        return a + b
    if name == "mul":
        return a * b
    if name == "sub":
        return a - b
    if name == "matmulT":
        return a @ b.t()
    if name == "where":
        return L.where(a > 0, a, b)
    raise KeyError(name)


def gen_case(seed):
    r = random.Random(seed)
    c = {"seed": seed}
    c["n_in"] = r.randint(1, 3)
    c["rg"] = [r.random() < 0.7 for _ in range(c["n_in"])]
    if r.random() < 0.1:
        c["rg"] = [False] * c["n_in"]
    c["extra"] = r.choice([[], ["int"], ["none"], ["int", "none"], ["float"], ["bool"]])
    c["use_linear"] = r.random() < 0.4
    c["dropout"] = r.random() < 0.25
    c["steps"] = []
    pool = c["n_in"]
    for _ in range(r.randint(1, 5)):
        if r.random() < 0.6:
            c["steps"].append(("u", r.choice(UNARY), r.randrange(pool)))
        else:
            c["steps"].append(("b", r.choice(BINARY), r.randrange(pool), r.randrange(pool)))
        pool += 1
    c["pool"] = pool
    # outputs
    kind = r.choice(["single", "tuple", "tuple_mixed", "list", "dict", "single_input"])
    c["out_kind"] = kind
    c["outs"] = [r.randrange(c["n_in"], pool) for _ in range(r.randint(1, 3))]
    c["use_reentrant"] = r.choice([None, True, False, False])
    c["preserve"] = r.choice([True, True, False])
    c["determinism"] = r.choice(["default", "default", "none"])
    c["debug"] = r.random() < 0.1
    c["context_fn"] = r.random() < 0.1
    c["kwargs"] = r.random() < 0.15
    c["no_grad"] = r.random() < 0.08
    c["nested"] = r.random() < 0.15
    c["inplace_in"] = r.random() < 0.08
    c["early"] = r.choice([None, None, True, False])
    c["backward"] = r.choice(["backward", "backward", "grad", "twice", "inputs", "create_graph"])
    c["nondet"] = r.random() < 0.05
    c["mutate_after"] = r.random() < 0.05
    c["dtype"] = r.choice(["f64", "f64", "f32"])
    c["inner_ur"] = r.choice([None, True, False])
    c["partial"] = r.random() < 0.2
    c["detach_out"] = r.random() < 0.1
    c["dbg_global"] = r.choice([None] * 8 + [True, False])
    c["outer_hooks"] = r.random() < 0.1
    c["count_ctx"] = r.random() < 0.1
    return c


def run(L, c):
    """Runs case c with library L; returns a dict of observables."""
    obs = {}
    np_r = np.random.RandomState(c["seed"])
    dt = L.float64 if c["dtype"] == "f64" else L.float32
    ck = L.utils.checkpoint
    L.manual_seed(c["seed"])
    ins = []
    for i in range(c["n_in"]):
        t = L.tensor(np_r.randn(2, 3), dtype=dt)
        t.requires_grad_(c["rg"][i])
        ins.append(t)
    lin = L.nn.Linear(3, 3).to(dt)
    with L.no_grad():
        lin.weight.copy_(L.tensor(np_r.randn(3, 3), dtype=dt))
        lin.bias.copy_(L.tensor(np_r.randn(3), dtype=dt))
    drop = L.nn.Dropout(0.5)
    calls = [0]
    log = []

    def body(*args, **kw):
        calls[0] += 1
        tens = list(args[: c["n_in"]])
        extra = args[c["n_in"] :]
        if c["inplace_in"]:
            tens[0].mul_(2)
        pool = list(tens)
        for s in c["steps"]:
            if s[0] == "u":
                v = apply_unary(L, s[1], pool[s[2]])
            else:
                v = apply_binary(L, s[1], pool[s[2]], pool[s[3]])
                if v.shape != pool[s[2]].shape:
                    v = v[:, :1] * pool[s[2]]
            pool.append(v)
        if c["use_linear"]:
            pool[-1] = lin(pool[-1])
        if c["dropout"]:
            pool[-1] = drop(pool[-1])
        for e in extra:
            if isinstance(e, bool):
                if e:
                    pool[-1] = pool[-1] * 2
            elif isinstance(e, (int, float)):
                pool[-1] = pool[-1] * e
        if kw:
            pool[-1] = pool[-1] * kw.get("scale", 1)
        if c["nondet"] and calls[0] > 1:
            pool[-1] = pool[-1].sum(0).sin()  # differing saved shape on recompute
        log.append("end")
        outs = [pool[i] for i in c["outs"]]
        if c["detach_out"]:
            outs[0] = outs[0].detach()
        k = c["out_kind"]
        if k == "single":
            return outs[-1]
        if k == "tuple":
            return tuple(outs)
        if k == "tuple_mixed":
            return (outs[0], 3, None) + tuple(outs[1:])
        if k == "list":
            return list(outs)
        if k == "dict":
            return {"a": outs[0], "n": 1}
        if k == "single_input":
            return (outs[0], tens[0])
        raise KeyError(k)

    fn = body
    if c["nested"]:
        inner_ur = c["use_reentrant"] if c["use_reentrant"] is not None else True
        if c["inner_ur"] is not None:
            inner_ur = c["inner_ur"]

        def fn(*args, **kw):
            return ck.checkpoint(body, *args, use_reentrant=inner_ur, **kw)

    extra = []
    for e in c["extra"]:
        extra.append({"int": 3, "none": None, "float": 0.5, "bool": True}[e])
    kwargs = {}
    if c["use_reentrant"] is not None:
        kwargs["use_reentrant"] = c["use_reentrant"]
    if not c["preserve"]:
        kwargs["preserve_rng_state"] = False
    if c["determinism"] != "default":
        kwargs["determinism_check"] = c["determinism"]
    if c["debug"]:
        kwargs["debug"] = True
    if c["context_fn"]:
        import contextlib

        kwargs["context_fn"] = lambda: (contextlib.nullcontext(), contextlib.nullcontext())
    if c["count_ctx"] and c["use_reentrant"] is False:
        import contextlib

        @contextlib.contextmanager
        def cm(tag):
            log.append(tag + "-in")
            yield
            log.append(tag + "-out")

        kwargs["context_fn"] = lambda: (cm("f"), cm("r"))
    if c["kwargs"]:
        kwargs["scale"] = 2

    def main():
        import contextlib

        es = (
            ck.set_checkpoint_early_stop(c["early"])
            if c["early"] is not None
            else contextlib.nullcontext()
        )
        ng = L.no_grad() if c["no_grad"] else contextlib.nullcontext()
        dg = (
            ck.set_checkpoint_debug_enabled(c["dbg_global"])
            if c["dbg_global"] is not None
            else contextlib.nullcontext()
        )
        oh = (
            L.autograd.graph.saved_tensors_hooks(lambda t: ("p", t * 1), lambda p: p[1])
            if c["outer_hooks"]
            else contextlib.nullcontext()
        )
        with es, ng, dg, oh:
            out = ck.checkpoint(fn, *ins, *extra, **kwargs)
        obs["calls_fwd"] = calls[0]
        obs["out"] = describe(L, out)
        if c["mutate_after"]:
            with L.no_grad():
                ins[0].add_(1)
        leaves = [t for t in flat_tensors(out)]
        loss = None
        for j, t in enumerate(leaves):
            if c["partial"] and j % 2 == 1:
                continue
            if t.requires_grad:
                term = (t * (j + 1)).sum()
                loss = term if loss is None else loss + term
        obs["loss_rg"] = loss is not None
        if loss is None:
            return
        targets = [t for t in ins if t.requires_grad] + [
            p for p in lin.parameters() if c["use_linear"]
        ]
        b = c["backward"]
        if b == "backward":
            loss.backward()
        elif b == "grad":
            gs = L.autograd.grad(loss, targets, allow_unused=True)
            obs["gradres"] = [
                None if g is None else g.detach().numpy(force=True).copy() for g in gs
            ]
        elif b == "twice":
            loss.backward(retain_graph=True)
            obs["calls_mid"] = calls[0]
            loss.backward()
        elif b == "inputs":
            loss.backward(inputs=targets if targets else None)
        elif b == "create_graph":
            if not targets:
                return
            gs = L.autograd.grad(loss, targets, create_graph=True, allow_unused=True)
            s = None
            for g in gs:
                if g is not None and g.requires_grad:
                    s = (g * g).sum() if s is None else s + (g * g).sum()
            obs["gg_rg"] = s is not None
            if s is not None:
                obs["gradres"] = [
                    None if g is None else g.detach().numpy(force=True).copy() for g in gs
                ]
                s.backward()
        obs["calls_bwd"] = calls[0]

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            main()
            obs["exc"] = None
        except Exception as e:  # noqa: BLE001
            obs["exc"] = (type(e).__name__, norm_msg(str(e)))
            obs["tb"] = traceback.format_exc()
    obs["warn"] = sorted(
        {(x.category.__name__, norm_msg(str(x.message))) for x in w if keep_warn(x)}
    )
    obs["grads"] = [
        None if t.grad is None else t.grad.detach().numpy(force=True).copy() for t in ins
    ]
    obs["pgrads"] = [
        None if p.grad is None else p.grad.detach().numpy(force=True).copy()
        for p in lin.parameters()
    ]
    obs["ins_after"] = [t.detach().numpy().copy() for t in ins]
    obs["rng_after"] = L.rand(3).numpy().copy()
    obs["log"] = len(log)
    obs["logtags"] = [x for x in log if x != "end"]
    return obs


def keep_warn(w):
    s = str(w.message)
    return "TypedStorage" not in s and "non-writable" not in s


def norm_msg(s):
    s = re.sub(r"0x[0-9a-f]+", "0x", s)
    s = s.split("\nTip: To see a more detailed")[0]
    return s.strip()


def flat_tensors(out):
    if isinstance(out, (list, tuple)):
        r = []
        for o in out:
            r += flat_tensors(o)
        return r
    if isinstance(out, dict):
        r = []
        for o in out.values():
            r += flat_tensors(o)
        return r
    if hasattr(out, "shape") and hasattr(out, "requires_grad"):
        return [out]
    return []


def describe(L, out):
    if isinstance(out, (list, tuple, dict)):
        items = out.items() if isinstance(out, dict) else enumerate(out)
        return (type(out).__name__, [(k, describe(L, v)) for k, v in items])
    if hasattr(out, "requires_grad"):
        gf = out.grad_fn
        return (
            "T",
            tuple(out.shape),
            str(out.dtype).replace("torch.", ""),
            out.requires_grad,
            out.detach().numpy().copy(),
            None if gf is None else type(gf).__name__,
        )
    return repr(out)


def close(a, b, tol):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, tol) for x, y in zip(a, b, strict=False))
    return a == b


def compare(c, t, m):
    tol = 1e-9 if c["dtype"] == "f64" else 1e-4
    diffs = []
    keys = sorted(set(t) | set(m))
    for k in keys:
        if k == "tb":
            continue
        a, b = t.get(k, "<missing>"), m.get(k, "<missing>")
        if k == "out":
            a, b = strip_gf(a), strip_gf(b)
        if (
            k == "exc"
            and (c["debug"] or c["dbg_global"])
            and a
            and b
            and a[0] == b[0] == "CheckpointError"
        ):
            continue
        if not close(a, b, tol):
            diffs.append(k)
    return diffs


def strip_gf(d):
    if isinstance(d, tuple) and d and d[0] == "T":
        return d[:5]
    if isinstance(d, tuple) and len(d) == 2 and isinstance(d[1], list):
        return (d[0], [(k, strip_gf(v)) for k, v in d[1]])
    return d


# ----------------------------------------------------------------------

# Differential fuzzer: module full backward hooks (BackwardHook) vs torch.


def bh_gen(seed):
    r = random.Random(seed)
    c = {"seed": seed}
    c["n_in"] = r.randint(1, 3)
    c["rg"] = [r.random() < 0.7 for _ in range(c["n_in"])]
    c["nontensor"] = r.random() < 0.3
    c["out"] = r.choice(["single", "tuple", "tuple_const", "input_passthrough", "list"])
    c["hook_ret"] = r.choice([None, None, "scale", "wrong_len", "none_tuple"])
    c["pre"] = r.random() < 0.4
    c["pre_ret"] = r.choice([None, "scale"])
    c["ckpt"] = r.choice([None, None, True, False])
    c["inplace_out"] = r.random() < 0.1
    c["old_hook"] = False and r.random() < 0.1
    c["params"] = r.random() < 0.5
    c["kw_in"] = r.random() < 0.2
    return c


def bh_to_np(x):
    if x is None:
        return None
    return x.detach().numpy().copy()


def bh_run(L, c):
    npr = np.random.RandomState(c["seed"])
    obs = {"calls": []}

    class M(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = L.nn.Parameter(L.tensor(npr.randn(3))) if c["params"] else None

        def forward(self, *xs, k=None):
            ts = [x for x in xs if not isinstance(x, (int, float))]
            a = ts[0].sin()
            if self.w is not None:
                a = a * self.w
            b = ts[-1] * 2
            if k is not None:
                a = a + k
            if c["inplace_out"]:
                a.mul_(3)
            o = c["out"]
            if o == "single":
                return a + b
            if o == "tuple":
                return a, b
            if o == "tuple_const":
                return a, 3, b
            if o == "input_passthrough":
                return a, ts[0]
            if o == "list":
                return [a, b]

    m = M().double()
    ins = [L.tensor(npr.randn(3), requires_grad=rg) for rg in c["rg"]]

    def hook(mod, gin, gout):
        obs["calls"].append(
            (
                "hook",
                [None if g is None else bh_to_np(g) for g in gin],
                [None if g is None else bh_to_np(g) for g in gout],
            )
        )
        hr = c["hook_ret"]
        if hr == "scale":
            return tuple(None if g is None else g * 2 for g in gin)
        if hr == "wrong_len":
            return tuple(gin) + (None,)
        if hr == "none_tuple":
            return tuple(None for _ in gin)
        return None

    def pre(mod, gout):
        obs["calls"].append(("pre", [None if g is None else bh_to_np(g) for g in gout]))
        if c["pre_ret"] == "scale":
            return tuple(None if g is None else g * 3 for g in gout)
        return None

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            if c["old_hook"]:
                m.register_backward_hook(hook)
            else:
                m.register_full_backward_hook(hook)
            if c["pre"]:
                m.register_full_backward_pre_hook(pre)
            args = list(ins)
            if c["nontensor"]:
                args.insert(1, 2)
            kw = {"k": ins[0] * 1} if c["kw_in"] else {}
            if c["ckpt"] is None:
                out = m(*args, **kw)
            else:
                out = L.utils.checkpoint.checkpoint(m, *args, use_reentrant=c["ckpt"], **kw)
            outs = (
                [out]
                if not isinstance(out, (tuple, list))
                else [o for o in out if not isinstance(o, int)]
            )
            loss = None
            for j, o in enumerate(outs):
                if o.requires_grad:
                    t = (o * (j + 1)).sum()
                    loss = t if loss is None else loss + t
            if loss is not None:
                loss.backward()
            obs["exc"] = None
        except Exception as e:  # noqa: BLE001
            obs["exc"] = (type(e).__name__, re.sub(r"0x[0-9a-f]+", "", str(e)))
    obs["warn"] = sorted(
        {(x.category.__name__, re.sub(r"0x[0-9a-f]+", "", str(x.message))) for x in w}
    )
    obs["grads"] = [bh_to_np(x.grad) for x in ins]
    obs["wgrad"] = bh_to_np(m.w.grad) if m.w is not None else None
    return obs


# ----------------------------------------------------------------------

# Differential fuzzer: checkpoint_sequential + misc (dropout RNG, params, hooks).


seq_MODS = ["lin", "tanh", "relu", "drop", "relu_inplace", "sigmoid", "lin", "gelu"]


def seq_gen(seed):
    r = random.Random(seed)
    n = r.randint(1, 6)
    c = {"seed": seed, "mods": [r.choice(seq_MODS) for _ in range(n)]}
    c["segments"] = r.randint(1, n + 1)
    c["ur"] = r.choice([None, True, False, False])
    c["rg"] = r.random() < 0.7
    c["preserve"] = r.random() < 0.8
    c["as_list"] = r.random() < 0.3
    c["train"] = r.random() < 0.8
    c["bad_kw"] = r.random() < 0.05
    c["twice"] = r.random() < 0.2
    return c


def seq_run(L, c):
    obs = {}
    npr = np.random.RandomState(c["seed"])
    L.manual_seed(c["seed"])
    mods = []
    for m in c["mods"]:
        if m == "lin":
            lin = L.nn.Linear(4, 4).double()
            with L.no_grad():
                lin.weight.copy_(L.tensor(npr.randn(4, 4)))
                lin.bias.copy_(L.tensor(npr.randn(4)))
            mods.append(lin)
        elif m == "tanh":
            mods.append(L.nn.Tanh())
        elif m == "relu":
            mods.append(L.nn.ReLU())
        elif m == "relu_inplace":
            mods.append(L.nn.ReLU(inplace=True))
        elif m == "drop":
            mods.append(L.nn.Dropout(0.3))
        elif m == "sigmoid":
            mods.append(L.nn.Sigmoid())
        elif m == "gelu":
            mods.append(L.nn.GELU())
    seq = L.nn.Sequential(*mods)
    seq.train(c["train"])
    x = L.tensor(npr.randn(3, 4), requires_grad=c["rg"])
    kw = {}
    if c["ur"] is not None:
        kw["use_reentrant"] = c["ur"]
    if not c["preserve"]:
        kw["preserve_rng_state"] = False
    if c["bad_kw"]:
        kw["foo"] = 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fns = list(seq) if c["as_list"] else seq
            out = L.utils.checkpoint.checkpoint_sequential(fns, c["segments"], x, **kw)
            obs["out"] = out.detach().numpy().copy()
            obs["out_rg"] = out.requires_grad
            if out.requires_grad:
                (out * out).sum().backward(retain_graph=c["twice"])
                if c["twice"]:
                    (out * out).sum().backward()
            obs["exc"] = None
        except Exception as e:  # noqa: BLE001
            obs["exc"] = (type(e).__name__, norm_msg(str(e)))
    obs["warn"] = sorted(
        {(x.category.__name__, norm_msg(str(x.message))) for x in w if keep_warn(x)}
    )
    obs["xgrad"] = None if x.grad is None else x.grad.numpy().copy()
    obs["pgrad"] = [None if p.grad is None else p.grad.numpy().copy() for p in seq.parameters()]
    obs["rng"] = L.rand(3).numpy().copy()
    return obs


# ----------------------------------------------------------------------

# Differential fuzzer: torch.utils._pytree vs minitorch.utils._pytree.


pt_P2 = namedtuple("P2", ["a", "b"])
pt_P1 = namedtuple("P1", ["x"])
pt_P0 = namedtuple("P0", [])


class TSub(tuple):
    pass


class DSub(dict):
    pass


class Box:
    def __init__(self, items, tag):
        self.items, self.tag = list(items), tag

    def __repr__(self):
        return f"Box({self.items!r}, {self.tag!r})"

    def __eq__(self, o):
        return isinstance(o, Box) and o.items == self.items and o.tag == self.tag


for _pt in (tpt, mpt):
    _pt.register_pytree_node(
        Box,
        lambda b: (b.items, b.tag),
        lambda v, c: Box(v, c),
        flatten_with_keys_fn=lambda b: (
            [(_pt.SequenceKey(i), v) for i, v in enumerate(b.items)],
            b.tag,
        ),
    )


def pt_gen_tree(r, depth):
    if depth == 0 or r.random() < 0.3:
        k = r.randrange(8)
        return [
            ("int", r.randint(-3, 9)),
            ("none",),
            ("str", r.choice("abc")),
            ("float", 0.5),
            ("tensor", r.randint(0, 5)),
            ("int", 1),
            ("bool", True),
            ("size", r.randint(1, 3)),
        ][k]
    kind = r.choice(
        [
            "list",
            "tuple",
            "dict",
            "od",
            "dd",
            "deque",
            "nt2",
            "nt1",
            "nt0",
            "tsub",
            "dsub",
            "set",
            "box",
            "rt",
        ]
    )
    n = r.randint(0, 3)
    if kind == "nt2":
        n = 2
    elif kind == "nt1":
        n = 1
    elif kind == "nt0":
        n = 0
    kids = [pt_gen_tree(r, depth - 1) for _ in range(n)]
    keys = r.sample(["a", "b", "c", 1, 2, "z"], n)
    return (kind, kids, keys)


def pt_build(L, d):
    k = d[0]
    if k == "int":
        return d[1]
    if k == "none":
        return None
    if k == "str":
        return d[1]
    if k == "float":
        return d[1]
    if k == "bool":
        return d[1]
    if k == "tensor":
        return L.tensor([float(d[1])])
    if k == "size":
        return L.Size([d[1], 2])
    kids = [pt_build(L, c) for c in d[1]]
    keys = d[2]
    if k == "list":
        return kids
    if k == "tuple":
        return tuple(kids)
    if k == "dict":
        return dict(zip(keys, kids, strict=False))
    if k == "od":
        return OrderedDict(zip(keys, kids, strict=False))
    if k == "dd":
        return defaultdict(list, zip(keys, kids, strict=False))
    if k == "deque":
        return deque(kids, maxlen=5)
    if k == "nt2":
        return pt_P2(*kids)
    if k == "nt1":
        return pt_P1(*kids)
    if k == "nt0":
        return pt_P0()
    if k == "tsub":
        return TSub(kids)
    if k == "dsub":
        return DSub(zip(keys, kids, strict=False))
    if k == "box":
        return Box(kids, "t" + str(len(kids)))
    if k == "rt":
        v = L.max(L.tensor([[1.0, float(len(kids))], [3.0, 0.0]]), 0)
        return v
    if k == "set":
        return frozenset([1, 2][: len(kids)])
    raise KeyError(k)


def pt_norm(s):
    s = str(s)
    s = s.replace("torch.utils._pytree", "PT").replace("minitorch.utils._pytree", "PT")
    s = s.replace("<class 'torch.Size'>", "SIZE").replace("<class 'minitorch.Size'>", "SIZE")
    s = s.replace("torch.Size", "SIZE").replace("minitorch.Size", "SIZE")
    s = re.sub(r"0x[0-9a-f]+", "0x", s)
    s = s.replace("<class 'torch.Tensor'>", "TT").replace("<class 'minitorch.Tensor'>", "TT")
    s = s.replace("minitorch.return_types", "RT").replace("torch.return_types", "RT")
    s = re.sub(r"tensor\(\[([^\]]*)\]\)", r"T(\1)", s)
    return s


def pt_obs_for(L, pt, d1, d2, seed):
    random.Random(seed)
    t1 = pt_build(L, d1)
    t2 = pt_build(L, d2)
    out = {}

    def rec(name, f):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                v = f()
                out[name] = pt_norm(v)
            except Exception as e:  # noqa: BLE001
                out[name] = ("EXC", type(e).__name__, pt_norm(e))
            if w:
                out[name + "_warn"] = [(x.category.__name__, pt_norm(x.message)) for x in w]

    leaves, spec = pt.tree_flatten(t1)
    rec("leaves", lambda: leaves)
    rec("spec_repr", lambda: repr(spec))
    rec("spec_str", lambda: str(spec))
    rec("nums", lambda: (spec.num_leaves, spec.num_nodes, spec.num_children))
    rec("type", lambda: spec.type)
    rec("context", lambda: spec.context)
    rec("is_leaf", lambda: spec.is_leaf())
    rec("unflat", lambda: (pt.tree_unflatten(leaves, spec), type(pt.tree_unflatten(leaves, spec))))
    rec("map", lambda: pt.tree_map(lambda x: ("m", x), t1))
    rec("map_only", lambda: pt.tree_map_only(int, lambda x: x + 100, t1))
    rec("leaves2", lambda: pt.tree_leaves(t1))
    rec("struct_eq", lambda: pt.tree_structure(t1) == spec)
    rec("paths", lambda: [pt.keystr(p) for p, _ in pt.tree_flatten_with_path(t1)[0]])
    rec("all", lambda: pt.tree_all(lambda x: x is not None, t1))
    rec("any", lambda: pt.tree_any(lambda x: isinstance(x, str), t1))
    leaves2, spec2 = pt.tree_flatten(t2)
    rec("eq12", lambda: spec == spec2)
    rec("map2", lambda: pt.tree_map(lambda a, b: (a, b), t1, t2))
    rec("upto", lambda: spec.flatten_up_to(t2))
    rec("unflat_bad", lambda: pt.tree_unflatten(leaves2, spec))
    rec("is_leaf_fn", lambda: pt.tree_flatten(t1, is_leaf=lambda x: isinstance(x, list))[0])
    rec("children", lambda: [repr(c) for c in spec.children_specs])
    rec("tree_is_leaf", lambda: pt.tree_is_leaf(t1))
    rec("map_with_path", lambda: pt.tree_map_with_path(lambda p, x: pt.keystr(p), t1))
    rec("iter", lambda: list(pt.tree_iter(t1)))
    rec("unflat_short", lambda: pt.tree_unflatten(leaves[:-1], spec))
    rec("leafspec", lambda: (repr(pt.treespec_leaf()), pt.treespec_leaf() == pt.tree_structure(1)))
    rec(
        "map_isleaf",
        lambda: pt.tree_map(lambda x: type(x).__name__, t1, is_leaf=lambda x: isinstance(x, tuple)),
    )
    rec("child0", lambda: repr(spec.child(0)) if spec.num_children else None)
    rec("children_m", lambda: [repr(c) for c in spec.children()])
    rec("hash_eq", lambda: hash(spec) == hash(pt.tree_structure(t1)))
    rec("map_only_tuple", lambda: pt.tree_map_only((str, type(None)), lambda x: "S", t1))
    rec("any_only", lambda: pt.tree_any_only(int, lambda x: x > 5, t1))
    rec("all_only", lambda: pt.tree_all_only(str, lambda x: x == "a", t1))
    rec("lwp", lambda: [(pt.keystr(p), v) for p, v in pt.tree_leaves_with_path(t1)])
    rec("key_get", lambda: [pt.key_get(t1, p) for p, _ in pt.tree_flatten_with_path(t1)[0]])
    return out


PARTS = ["ckpt", "bhook", "seq", "pytree"]


def _res(d, t, m):
    """None, or (kind, detail) for the differing observation keys ``d``."""
    if not d:
        return None
    k = d[0]
    return ",".join(d), f"{k}: torch {t.get(k)!r:.400} || mt {m.get(k)!r:.400}"


def _ckpt(s):
    c = gen_case(s)
    t = run(torch, c)
    m = run(minitorch, c)
    if (c["debug"] or c["dbg_global"]) and t["exc"] and "_GeneratorContextManager" in t["exc"][1]:
        return None  # a torch bug in debug mode
    d = compare(c, t, m)
    return _res(d, t, m)


def _bhook(s):
    c = bh_gen(s)
    t, m = bh_run(torch, c), bh_run(minitorch, c)
    d = [k for k in sorted(t) if not close(t[k], m.get(k), 1e-9)]
    return _res(d, t, m)


def _seq(s):
    c = seq_gen(s)
    t, m = seq_run(torch, c), seq_run(minitorch, c)
    d = [k for k in sorted(t) if not close(t[k], m.get(k), 1e-9)]
    return _res(d, t, m)


def _pytree(s):
    r = random.Random(s)
    d1 = pt_gen_tree(r, 3)
    d2 = d1 if r.random() < 0.4 else pt_gen_tree(r, 3)
    t = pt_obs_for(torch, tpt, d1, d2, s)
    m = pt_obs_for(minitorch, mpt, d1, d2, s)
    diff = sorted(k for k in set(t) | set(m) if t.get(k) != m.get(k))
    return _res(diff, t, m)


def main():
    args = H.cli(
        "checkpoint_hooks_pytree",
        default_cases=1000,
        extra=lambda p: p.add_argument(
            "--part", default=",".join(PARTS), help="default %(default)s"
        ),
    )
    rep = args.report
    fns = {"ckpt": _ckpt, "bhook": _bhook, "seq": _seq, "pytree": _pytree}
    for part in args.part.split(","):
        one = H.limited(fns[part], args.timeout, lambda e: ("timeout", str(e)))
        for s in range(args.seed, args.seed + args.cases):
            rep.case()
            try:
                k = one(s)
            except Exception:
                k = "harness"
                rep.add((part, k), f"seed {s}", traceback.format_exc()[-400:])
                continue
            if k:
                rep.add((part, k[0]), f"seed {s}", k[1])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
