"""Differential fuzzer: the autograd API.

Scenarios (--scen): backward (retain_graph, grad accumulation, .grad of non-leaves, errors),
hooks (tensor/grad_fn/post-accumulate hooks), graph (grad_fn names, next_functions), modes
(no_grad/enable_grad/inference_mode/set_grad_enabled), func/func2/func3 (custom
autograd.Function: ctx.save_for_backward, mark_dirty, mark_non_differentiable, once_differentiable,
set_materialize_grads, setup_context, vmap-less jvp), functional (autograd.grad with
create_graph/allow_unused/is_grads_batched...), saved (saved_tensors_hooks), anomaly, misc,
functional2, batched, multihook, mixed, combo. Every observable step is logged (values, shapes,
dtypes, requires_grad, is_leaf, grad_fn names, exceptions) and the logs are compared.
--cases is per scenario. Env NOGF=1 leaves grad_fn names out. Adapted from session 22's h5 fuzzer.
"""

# ruff: noqa: B007, B008, B015, B023, E741, UP031  (code adapted as-is from the session fuzzers)

import math
import os
import random

import _harness as H
import numpy as np
from _harness import minitorch, torch

NOGF = os.environ.get("NOGF")


def conv(T, x, depth=0):
    if isinstance(x, T.Tensor):
        d = {
            "v": np.asarray(x.detach().cpu().numpy()).round(8).tolist()
            if x.numel() < 200
            else None,
            "shape": tuple(x.shape),
            "dtype": str(x.dtype).replace("minitorch", "torch"),
            "rg": x.requires_grad,
            "leaf": x.is_leaf,
            "gf": (type(x.grad_fn).__name__ if x.grad_fn is not None else None)
            if not NOGF
            else None,
        }
        return ("T", d)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [conv(T, y, depth + 1) for y in x])
    if isinstance(x, float):
        return round(x, 8)
    if isinstance(x, (int, str, bool)) or x is None:
        return x
    return ("obj", type(x).__name__)


class Rec:
    def __init__(self, T):
        self.T = T
        self.log = []

    def __call__(self, name, val):
        self.log.append((name, conv(self.T, val)))

    def tr(self, name, fn):
        try:
            r = fn()
            self(name, r)
            return r
        except Exception as e:
            msg = str(e).replace("minitorch", "torch")
            self.log.append((name, ("EXC", type(e).__name__, msg)))
            return None


def arr(rng, shape):
    return np.array([rng.uniform(-2, 2) for _ in range(int(np.prod(shape)))]).reshape(shape)


UNARY = ["sin", "exp", "tanh", "sq", "neg", "sum", "mean", "detach", "cos", "mul2", "relu", "sig"]
BIN = ["add", "mul", "sub", "div"]


def build(T, rng, R, nleaf=3, shape=(2, 3)):
    leaves = []
    for _i in range(nleaf):
        rg = rng.random() < 0.8
        leaves.append(T.tensor(arr(rng, shape), dtype=T.float64, requires_grad=rg))
    nodes = list(leaves)
    for _k in range(rng.randint(2, 7)):
        if rng.random() < 0.5:
            a = rng.choice(nodes)
            op = rng.choice(UNARY)
            if op == "sin":
                y = a.sin()
            elif op == "exp":
                y = (a * 0.3).exp()
            elif op == "tanh":
                y = T.tanh(a)
            elif op == "sq":
                y = a * a
            elif op == "neg":
                y = -a
            elif op == "sum":
                y = a.sum(-1, keepdim=True).expand_as(leaves[0]) if a.dim() == 2 else a
            elif op == "mean":
                y = a.mean() + leaves[0] * 0
            elif op == "detach":
                y = a.detach()
            elif op == "cos":
                y = a.cos()
            elif op == "mul2":
                y = a * 2
            elif op == "relu":
                y = T.relu(a)
            else:
                y = T.sigmoid(a)
        else:
            a = rng.choice(nodes)
            b = rng.choice(nodes)
            op = rng.choice(BIN)
            if op == "add":
                y = a + b
            elif op == "mul":
                y = a * b
            elif op == "sub":
                y = a - b
            else:
                y = a / (b * b + 1)
        nodes.append(y)
    return leaves, nodes


def s_backward(T, rng, R):
    leaves, nodes = build(T, rng, R)
    outs = rng.sample(nodes[len(leaves) :], min(len(nodes) - len(leaves), rng.randint(1, 3)))
    inter = nodes[len(leaves) :]
    rg_nodes = [n for n in inter if n.requires_grad]
    for n in rng.sample(rg_nodes, min(len(rg_nodes), rng.randint(0, 2))):
        if rng.random() < 0.7:
            R.tr("retain_grad", lambda n=n: n.retain_grad())
    mode = rng.choice(["bwd", "bwd_scalar", "grad", "grad2", "repeat", "create"])
    out = outs[0]
    g = T.tensor(arr(rng, tuple(out.shape)), dtype=T.float64)
    cand = leaves + inter
    if mode == "bwd":
        kw = {}
        if rng.random() < 0.3:
            k = rng.randint(1, 3)
            sel = rng.sample(range(len(cand)), min(k, len(cand)))
            kw["inputs"] = [cand[i] for i in sel] if rng.random() < 0.7 else cand[sel[0]]
        if rng.random() < 0.5:
            kw["retain_graph"] = True
        R.tr("bwd", lambda: out.backward(g, **kw))
        if rng.random() < 0.5:
            R.tr("bwd2", lambda: out.backward(g, **kw))
    elif mode == "bwd_scalar":
        s = sum(o.sum() * (i + 1) for i, o in enumerate(outs))
        R.tr(
            "bwds",
            lambda: (
                s.backward() if rng.random() < 0.8 else s.backward(T.tensor(2.0, dtype=T.float64))
            ),
        )
        if rng.random() < 0.3:
            R.tr("bwds_nonscalar", lambda: outs[0].backward())
    elif mode in ("grad", "grad2"):
        k = rng.randint(1, 3)
        ins = rng.sample(cand, min(k, len(cand)))
        gos = []
        for o in outs:
            c = rng.random()
            gos.append(None if c < 0.3 else T.tensor(arr(rng, tuple(o.shape)), dtype=T.float64))
        kw = {}
        if rng.random() < 0.5:
            kw["allow_unused"] = True
        if rng.random() < 0.3:
            kw["materialize_grads"] = True
        if rng.random() < 0.3:
            kw["retain_graph"] = True
        if rng.random() < 0.3:
            kw["create_graph"] = True
        oo = outs if mode == "grad2" else outs[0]
        gg = gos if mode == "grad2" else (gos[0] if rng.random() < 0.7 else None)
        if mode == "grad2" and all(x is None for x in gos) and rng.random() < 0.5:
            gg = None
        r = R.tr("grad", lambda: T.autograd.grad(oo, ins, gg, **kw))
        if r is not None and kw.get("create_graph"):
            s = sum(
                (x.sum() for x in r if x is not None and x.requires_grad),
                T.tensor(0.0, dtype=T.float64),
            )
            R.tr("gg", lambda: s.backward() if s.requires_grad else None)
    elif mode == "repeat":
        s = sum((o * o).sum() for o in outs)
        for i in range(rng.randint(1, 3)):
            R.tr("rep%d" % i, lambda: s.backward(retain_graph=True))
        R.tr("final", lambda: s.backward())
        R.tr("again", lambda: s.backward())
    elif mode == "create":
        s = sum((o * o * o).sum() for o in outs)
        R.tr("c1", lambda: s.backward(create_graph=True))
        R.log.append(("gradfns", [conv(T, l.grad) for l in leaves]))
        gs = [l.grad for l in leaves if l.grad is not None and l.grad.requires_grad]
        if gs:
            t = sum(x.sum() for x in gs)
            R.tr(
                "c2",
                lambda: t.backward(
                    inputs=[l for l in leaves if l.requires_grad] if rng.random() < 0.5 else None
                ),
            )
    for i, l in enumerate(leaves):
        R("leafgrad%d" % i, l.grad)
    for i, n in enumerate(inter):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            R("nodegrad%d" % i, n.grad)
        R("node%d" % i, n)


def s_hooks(T, rng, R):
    calls = []
    leaves, nodes = build(T, rng, R)
    inter = nodes[len(leaves) :]
    rgn = [n for n in nodes if n.requires_grad]
    if not rgn:
        return
    handles = []
    for j in range(rng.randint(1, 5)):
        n = rng.choice(rgn)
        idx = nodes.index(n)
        kind = rng.choice(["tnone", "tnew", "tbad", "post", "fn", "pre", "fnmod", "premod"])
        tag = "%s%d_%d" % (kind, idx, j)
        try:
            if kind == "tnone":
                h = n.register_hook(lambda g, tag=tag: calls.append((tag, conv(T, g))))
            elif kind == "tnew":
                h = n.register_hook(lambda g, tag=tag: (calls.append(tag), g * 3)[1])
            elif kind == "tbad":
                h = n.register_hook(lambda g, tag=tag: (calls.append(tag), g.sum())[1])
            elif kind == "post":
                h = n.register_post_accumulate_grad_hook(
                    lambda t, tag=tag: calls.append((tag, conv(T, t.grad)))
                )
            elif kind in ("fn", "fnmod"):
                if n.grad_fn is None:
                    continue

                def fh(gi, go, tag=tag, kind=kind):
                    calls.append((tag, conv(T, gi), conv(T, go)))
                    if kind == "fnmod":
                        return tuple(None if x is None else x * 2 for x in gi)

                h = n.grad_fn.register_hook(fh)
            else:
                if n.grad_fn is None:
                    continue

                def ph(go, tag=tag, kind=kind):
                    calls.append((tag, conv(T, go)))
                    if kind == "premod":
                        return tuple(None if x is None else x + 1 for x in go)

                h = n.grad_fn.register_prehook(ph)
            handles.append(h)
        except Exception as e:
            calls.append(("regexc", tag, type(e).__name__, str(e).replace("minitorch", "torch")))
    for h in handles:
        if rng.random() < 0.2:
            h.remove()
    out = rng.choice(rgn)
    if rng.random() < 0.3 and out in inter:
        R.tr("retain", lambda: out.retain_grad())
    R.tr("bwd", lambda: out.sum().backward(retain_graph=True))
    if rng.random() < 0.3:
        R.tr("bwd2", lambda: (out * 2).sum().backward())
    R.log.append(("calls", calls))
    for i, l in enumerate(leaves):
        R("leafgrad%d" % i, l.grad)
    for i, n in enumerate(nodes):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not n.is_leaf and n.requires_grad and rng.random() < 0.5:
                R("ngrad%d" % i, n.grad)


def s_graph(T, rng, R):
    leaves, nodes = build(T, rng, R)
    for i, n in enumerate(nodes):
        fn = n.grad_fn
        if fn is None:
            continue
        R("name%d" % i, fn.name())
        nf = fn.next_functions
        R("nf%d" % i, [(None if f is None else f.name(), k) for f, k in nf])
        R("md%d" % i, dict(fn.metadata) == {})
        R("isinst%d" % i, isinstance(fn, T.autograd.graph.Node))


def s_modes(T, rng, R):
    x = T.tensor(arr(rng, (3,)), requires_grad=True, dtype=T.float64)
    ctxs = []
    for _k in range(rng.randint(1, 4)):
        c = rng.choice(["ng", "eg", "sge0", "sge1", "im", "im0"])
        ctxs.append(c)

    def mk(c):
        return {
            "ng": T.no_grad,
            "eg": T.enable_grad,
            "sge0": lambda: T.set_grad_enabled(False),
            "sge1": lambda: T.set_grad_enabled(True),
            "im": T.inference_mode,
            "im0": lambda: T.inference_mode(False),
        }[c]()

    import contextlib

    with contextlib.ExitStack() as st:
        for c in ctxs:
            st.enter_context(mk(c))
            R("ge_" + c, T.is_grad_enabled())
            R("inf_" + c, T.is_inference_mode_enabled())
        y = R.tr("y", lambda: x * 2)
        if y is not None:
            pass
    R("after", T.is_grad_enabled())
    c = rng.choice(["ng", "eg", "im"])
    dec = {"ng": T.no_grad, "eg": T.enable_grad, "im": T.inference_mode}[c]

    @dec()
    def f(a):
        return a * 3, T.is_grad_enabled()

    @dec()
    def gen(a):
        for i in range(2):
            yield (a * i, T.is_grad_enabled())

    with T.no_grad() if rng.random() < 0.5 else T.enable_grad():
        R("dec", f(x))
        R("gen", list(gen(x)))
        R("ge", T.is_grad_enabled())


def make_funcs(T):
    class Sq(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, mode):
            ctx.mode = mode
            ctx.k = k
            y = x * x * k
            if mode == "out":
                ctx.save_for_backward(y)
            elif mode == "inter":
                z = x * 2
                ctx.save_for_backward(x, z)
            else:
                ctx.save_for_backward(x)
            return y

        @staticmethod
        def backward(ctx, g):
            ctx.nig = tuple(ctx.needs_input_grad)
            if ctx.mode == "out":
                (y,) = ctx.saved_tensors
                return g * 2 * (y / ctx.k).sqrt() * ctx.k * 0 + g * 2 * ctx.kx, None, None
            if ctx.mode == "inter":
                x, z = ctx.saved_tensors
                return g * z * ctx.k, None, None
            (x,) = ctx.saved_tensors
            if ctx.mode == "toomany":
                return g * 2 * x * ctx.k, None, None, None
            if ctx.mode == "toofew":
                return (g * 2 * x * ctx.k,)
            if ctx.mode == "shape":
                return (g * 2 * x * ctx.k).sum(), None, None
            if ctx.mode == "nonetensor":
                return None, None, None
            if ctx.mode == "badtype":
                return g.float(), None, None
            return g * 2 * x * ctx.k, None, None

    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            s = a + b
            m = a > b
            ctx.mark_non_differentiable(m)
            return a * b, s, m

        @staticmethod
        def backward(ctx, g1, g2, g3):
            a, b = ctx.saved_tensors
            ctx.got = (g1 is None, g2 is None, g3 is None)
            r1 = (0 if g1 is None else g1 * b) + (0 if g2 is None else g2)
            r2 = (0 if g1 is None else g1 * a) + (0 if g2 is None else g2)
            if isinstance(r1, int):
                r1 = None
            if isinstance(r2, int):
                r2 = None
            return r1, r2

    class Inpl(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Once(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp()

    return Sq, Two, Inpl, Once


def s_func(T, rng, R):
    Sq, Two, Inpl, Once = make_funcs(T)
    x = T.tensor(arr(rng, (2, 2)), dtype=T.float64, requires_grad=True)
    w = T.tensor(arr(rng, (2, 2)), dtype=T.float64, requires_grad=rng.random() < 0.7)
    kind = rng.choice(["sq", "two", "inpl", "once", "nested", "dbl"])
    if kind == "sq":
        mode = rng.choice(
            ["in", "inter", "toomany", "toofew", "shape", "nonetensor", "badtype", "plain"]
        )
        base = x if rng.random() < 0.5 else x * 1.5
        y = R.tr("y", lambda: Sq.apply(base, 1.5, mode))
        if y is not None:
            R.tr("bwd", lambda: (y * w).sum().backward())
        R("xg", x.grad)
        R("wg", w.grad)
    elif kind == "two":
        rng.random() < 0.5
        a = x * 1
        b = w * 1
        p, s, m = Two.apply(a, b)
        R("m", m)
        R("p", p)
        R("s", s)
        which = rng.choice(["p", "s", "both"])
        loss = {"p": lambda: p.sum(), "s": lambda: s.sum(), "both": lambda: (p + s).sum()}[which]()
        R.tr("bwd", lambda: loss.backward())
        R("xg", x.grad)
        R("wg", w.grad)
    elif kind == "inpl":
        a = x * 1
        y = R.tr("y", lambda: Inpl.apply(a))
        R("same", y is a)
        if y is not None:
            R.tr("bwd", lambda: (y * y).sum().backward())
        R("xg", x.grad)
        lf = T.tensor(arr(rng, (2,)), dtype=T.float64, requires_grad=True)
        R.tr("leaf_inpl", lambda: Inpl.apply(lf))
    elif kind == "once":
        y = Once.apply(x)
        g = R.tr("g", lambda: T.autograd.grad(y.sum(), x, create_graph=True))
        if g is not None:
            R.tr("gg", lambda: g[0].sum().backward())
    elif kind == "nested":
        y = Sq.apply(Sq.apply(x, 2.0, "in"), 0.5, "inter")
        R.tr("bwd", lambda: y.sum().backward())
        R("xg", x.grad)
    elif kind == "dbl":
        y = Sq.apply(x, 1.0, "in")
        g = R.tr("g", lambda: T.autograd.grad(y.sum(), x, create_graph=True))
        if g is not None:
            R.tr("gg", lambda: T.autograd.grad(g[0].sum(), x))


def s_func2(T, rng, R):
    class MG(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, flag):
            ctx.set_materialize_grads(flag)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.rec = (g1 is None, g2 is None)
            r = None
            if g1 is not None:
                r = g1 * 2
            if g2 is not None:
                r = (0 if r is None else r) + g2 * 3
            return r, None

    x = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)
    flag = rng.random() < 0.5
    a, b = MG.apply(x, flag)
    which = rng.choice(["a", "b", "ab"])
    loss = {"a": a.sum(), "b": b.sum(), "ab": (a * b).sum()}[which]
    R.tr("bwd", lambda: loss.backward())
    R("rec", a.grad_fn.rec if hasattr(a.grad_fn, "rec") else "none")
    R("xg", x.grad)

    class NT(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, n, s):
            ctx.n = n
            return x * n, n + 1, s

        @staticmethod
        def backward(ctx, g, gn, gs):
            ctx.rec = (gn, gs)
            return g * ctx.n, None, None

    y, n1, s = NT.apply(x, 3, "str")
    R("nt", (y, n1, s))
    R.tr("ntb", lambda: y.sum().backward())
    R("rec2", y.grad_fn.rec)
    R("xg2", x.grad)

    class NIG(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c):
            return a + b

        @staticmethod
        def backward(ctx, g):
            ctx.nig = tuple(ctx.needs_input_grad)
            return g, g, None

    b = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=rng.random() < 0.5)
    z = NIG.apply(x, b, 5)
    R.tr("nigb", lambda: z.sum().backward())
    R("nig", getattr(z.grad_fn, "nig", None))
    R("z", z)


def s_functional(T, rng, R):
    F = T.autograd.functional
    A = T.tensor(arr(rng, (3, 3)), dtype=T.float64)

    def f1(x):
        return (A @ x).sin()

    def f2(x, y):
        return (x * y).exp(), x.sum() * y

    def fs(x):
        return (x.sin() * x).sum()

    def fconst(x):
        return A.sum(0)

    x = T.tensor(arr(rng, (3,)), dtype=T.float64)
    y = T.tensor(arr(rng, (3,)), dtype=T.float64)
    v = T.tensor(arr(rng, (3,)), dtype=T.float64)
    kind = rng.choice(["jac", "jac2", "hes", "vjp", "jvp", "hvp", "vhp", "const", "hes2"])
    kw = {}
    if rng.random() < 0.3:
        kw["create_graph"] = True
    if rng.random() < 0.3:
        kw["strict"] = True
    if kind == "jac":
        if rng.random() < 0.3 and not kw.get("strict"):
            kw["vectorize"] = True
        if kw.get("vectorize") and rng.random() < 0.5:
            kw["strategy"] = "forward-mode"
        R.tr("r", lambda: F.jacobian(f1, x, **kw))
    elif kind == "jac2":
        R.tr("r", lambda: F.jacobian(f2, (x, y), **kw))
    elif kind == "hes":
        if rng.random() < 0.3 and not kw.get("strict"):
            kw["vectorize"] = True
        R.tr("r", lambda: F.hessian(fs, x, **kw))
    elif kind == "hes2":
        R.tr("r", lambda: F.hessian(lambda a, b: (a * b * b).sum(), (x, y), **kw))
    elif kind == "vjp":
        R.tr("r", lambda: F.vjp(f1, x, v if rng.random() < 0.8 else None, **kw))
    elif kind == "jvp":
        R.tr("r", lambda: F.jvp(f1, x, v if rng.random() < 0.8 else None, **kw))
    elif kind == "hvp":
        R.tr("r", lambda: F.hvp(fs, x, v, **kw))
    elif kind == "vhp":
        R.tr("r", lambda: F.vhp(fs, x, v, **kw))
    elif kind == "const":
        sub = rng.choice(["jacobian", "vjp", "jvp", "hessian"])
        fn = getattr(F, sub)
        if sub == "hessian":
            R.tr("r", lambda: fn(lambda a: A.sum(), x, **kw))
        elif sub == "jacobian":
            R.tr("r", lambda: fn(fconst, x, **kw))
        else:
            R.tr("r", lambda: fn(fconst, x, v, **kw))


def s_saved(T, rng, R):
    calls = []
    x = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)

    def pack(t):
        calls.append(("pack", tuple(t.shape)))
        return t * 1 if rng.random() < 0.0 else t.detach().clone()

    def unpack(t):
        calls.append(("unpack", tuple(t.shape)))
        return t

    kind = rng.choice(["hooks", "cpu", "disable"])
    if kind == "hooks":
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).sin()
        n_pack = len(calls)
        R.tr("b", lambda: y.sum().backward())
        R("calls_count", (n_pack > 0, len(calls) > n_pack))
    elif kind == "cpu":
        with T.autograd.graph.save_on_cpu(pin_memory=False):
            y = (x * x).sin()
        R.tr("b", lambda: y.sum().backward())
    else:
        with T.autograd.graph.disable_saved_tensors_hooks("nope msg"):
            R.tr("inner", lambda: T.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__())
        y = x.exp()
        R.tr("b", lambda: y.sum().backward())
    R("xg", x.grad)


def s_anomaly(T, rng, R):
    x = T.tensor([0.0, 1.0, 4.0], dtype=T.float64, requires_grad=True)
    op = rng.choice(["sqrt", "log", "div"])
    with T.autograd.detect_anomaly():
        y = {"sqrt": lambda: x.sqrt(), "log": lambda: x.log() * 0, "div": lambda: 1 / x}[op]()
        z = (y * 0).sum() if rng.random() < 0.5 else y.sum()
        try:
            z.backward()
            R("ok", x.grad)
        except RuntimeError as e:
            R(
                "err",
                str(e).replace("minitorch", "torch").split(" Function ")[-1][:60]
                if "Function" in str(e)
                else str(e),
            )


SCEN = {
    "backward": s_backward,
    "hooks": s_hooks,
    "graph": s_graph,
    "modes": s_modes,
    "func": s_func,
    "func2": s_func2,
    "functional": s_functional,
    "saved": s_saved,
    "anomaly": s_anomaly,
}


def run(T, name, seed):
    rng = random.Random(seed)
    R = Rec(T)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            SCEN[name](T, rng, R)
        except Exception as e:
            R.log.append(
                ("TOP", ("EXC", type(e).__name__, str(e).replace("minitorch", "torch")[:300]))
            )
    return R.log


def eq(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-5 * (1 + abs(a))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(eq(a[k], b[k]) for k in a)
    return a == b


def s_misc(T, rng, R):
    calls = []
    x = T.tensor(arr(rng, (2, 3)), dtype=T.float64, requires_grad=True)
    kind = rng.choice(
        [
            "leafhook",
            "acchook",
            "retain_inpl",
            "hookbad",
            "sc",
            "ident",
            "viewret",
            "gradseq",
            "nonleaf_inputs",
            "retain_twice",
            "hookdtype",
            "posthook_leafonly",
            "setup_ctx",
            "fn_prehook_ret",
            "detach_",
            "requires_grad_",
        ]
    )
    if kind == "leafhook":
        h = x.register_hook(lambda g: g * 10 if rng.random() < 2 else None)
        x.register_hook(lambda g: calls.append(conv(T, g)))
        (x * x).sum().backward()
        if rng.random() < 0.5:
            h.remove()
        (x * 3).sum().backward()
        R("g", x.grad)
    elif kind == "acchook":
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        R("accname", acc.name())
        R.tr("accvar", lambda: tuple(acc.variable.shape))
        acc.register_prehook(lambda go: calls.append(("pre", conv(T, go))))
        acc.register_hook(lambda gi, go: calls.append(("post", conv(T, gi), conv(T, go))))
        x.register_hook(lambda g: calls.append(("t", conv(T, g))))
        x.register_post_accumulate_grad_hook(lambda t: calls.append(("pa", conv(T, t.grad))))
        y.sum().backward()
        R("g", x.grad)
    elif kind == "retain_inpl":
        y = x * 2
        y.retain_grad()
        if rng.random() < 0.5:
            y.register_hook(lambda g: calls.append(("h", conv(T, g))))
        y.mul_(3)
        if rng.random() < 0.5:
            y.register_hook(lambda g: calls.append(("h2", conv(T, g))))
        R("gf", y.grad_fn.name())
        (y * y).sum().backward()
        R("yg", y.grad)
        R("g", x.grad)
    elif kind == "hookbad":
        y = x * 2
        which = rng.choice(["shape", "dtype", "nontensor", "list"])
        ret = {
            "shape": lambda g: g.sum(),
            "dtype": lambda g: g.float(),
            "nontensor": lambda g: 3.0,
            "list": lambda g: [g],
        }[which]
        (x if rng.random() < 0.5 else y).register_hook(ret)
        R.tr("bwd", lambda: y.sum().backward())
        R("g", x.grad)
    elif kind == "sc":
        y = x.sin()
        z = y * y
        r = R.tr("gr", lambda: T.autograd.grad(z.sum(), [x, y], create_graph=rng.random() < 0.5))
        if r is not None:
            R.tr("gg", lambda: T.autograd.grad(r[0].sum(), x, allow_unused=True))
    elif kind == "ident":

        class Id(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = x * 1 if rng.random() < 0.5 else x
        z = Id.apply(y)
        R("same", z is y)
        R("z", z)
        R.tr("bwd", lambda: z.sum().backward())
        R("g", x.grad)
    elif kind == "viewret":

        class V(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.view(-1)

            @staticmethod
            def backward(ctx, g):
                return g.view(2, 3) * 2

        y = x * 1
        z = V.apply(y)
        R("z", z)
        R("base", z._base is y if hasattr(z, "_base") else None)
        R.tr("bwd", lambda: z.sum().backward())
        R("g", x.grad)
        z2 = V.apply(x * 1)
        R.tr("inpl", lambda: z2.mul_(2))
    elif kind == "gradseq":
        y = (x * x).sum()
        for i in range(rng.randint(1, 3)):
            R.tr("b%d" % i, lambda: y.backward(retain_graph=True, create_graph=rng.random() < 0.5))
            R("g%d" % i, x.grad)
        if x.grad is not None and x.grad.requires_grad:
            R.tr("bb", lambda: x.grad.sum().backward())
            R("gb", x.grad)
        if rng.random() < 0.5:
            x.grad = None
        R.tr("bl", lambda: (x * 2).sum().backward())
        R("gl", x.grad)
    elif kind == "nonleaf_inputs":
        y = x * 2
        z = y.exp()
        w = (z * y).sum()
        ins = rng.choice([[y], y, [z], [x, y], [z, y], [x]])
        R.tr("bwd", lambda: w.backward(inputs=ins, retain_graph=True))
        R("xg", x.grad)
        R("yg", y.grad)
        R("zg", z.grad)
        R.tr("bwd2", lambda: w.backward())
        R("xg2", x.grad)
        R("yg2", y.grad)
        R("zg2", z.grad)
    elif kind == "retain_twice":
        y = x * 2
        y.retain_grad()
        y.retain_grad()
        R("rg", y.retains_grad)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        R("yg", y.grad)
        R.tr("leafret", lambda: x.retain_grad())
        R("xrg", x.retains_grad)
        R.tr("c", lambda: T.ones(2).retain_grad())
    elif kind == "hookdtype":
        y = x * 2
        R.tr("h", lambda: T.ones(2).register_hook(lambda g: g))
        R.tr("p", lambda: y.register_post_accumulate_grad_hook(lambda t: None))
        R.tr("p2", lambda: T.ones(2).register_post_accumulate_grad_hook(lambda t: None))
    elif kind == "posthook_leafonly":
        x.register_post_accumulate_grad_hook(
            lambda t: (calls.append(conv(T, t.grad)), t.grad.mul_(0.5))
        )
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        R("g", x.grad)
    elif kind == "setup_ctx":

        class S(T.autograd.Function):
            @staticmethod
            def forward(a, k):
                return a * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * ctx.k + a * 0, None

        y = S.apply(x, 2.5)
        R("y", y)
        R.tr("bwd", lambda: y.sum().backward())
        R("g", x.grad)
    elif kind == "fn_prehook_ret":
        y = x * 3
        z = y.sin()
        z.grad_fn.register_prehook(lambda go: (go[0] * 0,))
        y.register_hook(lambda g: calls.append(("y", conv(T, g))))
        z.grad_fn.register_hook(lambda gi, go: calls.append(("post", conv(T, gi), conv(T, go))))
        z.register_hook(lambda g: calls.append(("z", conv(T, g))) or g + 1)
        z.sum().backward()
        R("g", x.grad)
    elif kind == "detach_":
        y = x * 2
        z = y * 3
        R.tr("d", lambda: y.detach_())
        R("y", y)
        R.tr("b", lambda: z.sum().backward())
        R("g", x.grad)
    elif kind == "requires_grad_":
        y = x * 2
        R.tr("r", lambda: y.requires_grad_(False))
        R.tr("r2", lambda: x.detach().requires_grad_(True))
        R.tr("r3", lambda: T.tensor([1, 2]).requires_grad_())
        with T.no_grad():
            w = x * 2
        R("w", w)
        R.tr("r4", lambda: w.requires_grad_())
        R.tr("b", lambda: (w * x).sum().backward())
        R("wg", w.grad)
        R("g", x.grad)
    R.log.append(("calls", calls))


SCEN["misc"] = s_misc


def s_functional2(T, rng, R):
    F = T.autograd.functional
    A = T.tensor(arr(rng, (2, 2)), dtype=T.float64)
    fns = {
        "lin": lambda x: A @ x,
        "quad": lambda x: (x * x).sum(),
        "two": lambda x, y: (x * y, (x + y).sum()),
        "tup1": lambda x: (x.exp(),),
        "indep": lambda x, y: x * 2,
        "nograd": lambda x: x.detach() * 2,
        "const": lambda x: A[0],
        "sc2": lambda x, y: (x.sin() * y).sum(),
        "cube": lambda x: (x**3).sum(),
        "nonscal": lambda x: x**2,
    }
    name = rng.choice(list(fns))
    f = fns[name]
    nargs = 2 if name in ("two", "indep", "sc2") else 1
    ins = tuple(T.tensor(arr(rng, (2,)), dtype=T.float64) for _ in range(nargs))
    if nargs == 1 and rng.random() < 0.5:
        ins = ins[0]
    kw = {}
    if rng.random() < 0.4:
        kw["create_graph"] = True
    if rng.random() < 0.4:
        kw["strict"] = True
    api = rng.choice(["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
    if api in ("jacobian", "hessian") and rng.random() < 0.4:
        kw["vectorize"] = True
        if api == "jacobian" and rng.random() < 0.4:
            kw["strategy"] = "forward-mode"
    if api in ("jacobian", "hessian") and rng.random() < 0.1:
        kw["strategy"] = "bogus"
    fnc = getattr(F, api)
    if api in ("vjp", "jvp", "hvp", "vhp"):
        if rng.random() < 0.75:
            if isinstance(ins, tuple):
                v = tuple(T.tensor(arr(rng, (2,)), dtype=T.float64) for _ in ins)
            else:
                v = T.tensor(arr(rng, (2,)), dtype=T.float64)
            if api == "vjp" and name in ("quad", "sc2", "cube"):
                v = T.tensor(rng.uniform(-1, 1), dtype=T.float64) if rng.random() < 0.7 else v
            if api == "vjp" and name == "two":
                v = (T.tensor(arr(rng, (2,)), dtype=T.float64), T.tensor(1.5, dtype=T.float64))
        else:
            v = None
        r = R.tr("r", lambda: fnc(f, ins, v, **kw))
    else:
        r = R.tr("r", lambda: fnc(f, ins, **kw))
    if r is not None and kw.get("create_graph"):
        flat = []

        def walk(o):
            if isinstance(o, (tuple, list)):
                for q in o:
                    walk(q)
            elif o is not None:
                flat.append(o)

        walk(r)
        R("rg", [q.requires_grad for q in flat])


def s_batched(T, rng, R):
    x = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)
    w = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)
    y = (x * w).sin()
    s = (y * x).sum()
    kind = rng.choice(["vec", "scal", "two", "bad", "unused"])
    kw = {}
    if rng.random() < 0.3:
        kw["create_graph"] = True
    if rng.random() < 0.3:
        kw["retain_graph"] = True
    if kind == "vec":
        go = T.tensor(arr(rng, (4, 3)), dtype=T.float64)
        R.tr("r", lambda: T.autograd.grad(y, [x, w], go, is_grads_batched=True, **kw))
    elif kind == "scal":
        go = T.tensor(arr(rng, (4,)), dtype=T.float64)
        R.tr("r", lambda: T.autograd.grad(s, x, go, is_grads_batched=True, **kw))
    elif kind == "two":
        go = (
            T.tensor(arr(rng, (2, 3)), dtype=T.float64),
            T.tensor(arr(rng, (2,)), dtype=T.float64),
        )
        R.tr("r", lambda: T.autograd.grad((y, s), (x,), go, is_grads_batched=True, **kw))
    elif kind == "bad":
        go = T.tensor(arr(rng, (3,)), dtype=T.float64)
        R.tr("r", lambda: T.autograd.grad(y, x, go, is_grads_batched=True, **kw))
    else:
        z = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)
        go = T.tensor(arr(rng, (2, 3)), dtype=T.float64)
        R.tr(
            "r",
            lambda: T.autograd.grad(
                y,
                [x, z],
                go,
                is_grads_batched=True,
                allow_unused=True,
                materialize_grads=rng.random() < 0.5,
                **kw,
            ),
        )


def s_multihook(T, rng, R):
    calls = []
    ts = [T.tensor(arr(rng, (2,)), dtype=T.float64, requires_grad=True) for _ in range(3)]
    inter = ts[0] * ts[1]
    pool = ts + [inter]
    sel = rng.sample(pool, rng.randint(1, 3))
    mode = rng.choice(["all", "any"])

    def hk(g):
        if mode == "all":
            calls.append([None if q is None else conv(T, q) for q in g])
        else:
            calls.append(conv(T, g))

    h = R.tr("reg", lambda: T.autograd.graph.register_multi_grad_hook(sel, hk, mode=mode))
    for i in range(rng.randint(1, 3)):
        outs = rng.choice(
            [inter.sum(), (ts[2] * 2).sum(), (inter * ts[2]).sum(), (ts[0] + ts[2]).sum()]
        )
        how = rng.choice(["bwd", "grad"])
        if how == "bwd":
            R.tr("b%d" % i, lambda: outs.backward(retain_graph=True))
        else:
            R.tr(
                "g%d" % i,
                lambda: T.autograd.grad(
                    outs,
                    [t for t in pool if t.requires_grad][:2],
                    allow_unused=True,
                    retain_graph=True,
                ),
            )
        if h is not None and rng.random() < 0.2:
            h.remove()
    R.log.append(("calls", calls))


SCEN["functional2"] = s_functional2
SCEN["batched"] = s_batched
SCEN["multihook"] = s_multihook


def s_func3(T, rng, R):
    calls = []
    x = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)
    kind = rng.choice(
        [
            "packorder",
            "savednone",
            "savenontensor",
            "twice",
            "freed",
            "kwargs",
            "ndgrad",
            "retleaf",
            "oncedbl",
            "unpackbad",
            "savedview",
            "nested_hooks",
            "noinput_rg",
            "ctxattrs",
            "int_out",
        ]
    )
    if kind == "packorder":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                y = a * b
                ctx.save_for_backward(a, y, b)
                return y

            @staticmethod
            def backward(ctx, g):
                a, y, b = ctx.saved_tensors
                calls.append(("bw", [conv(T, q) for q in (a, y, b)]))
                return g * b, g * a

        def pack(t):
            calls.append(("pack", tuple(t.shape), t.requires_grad))
            return ("p", t)

        def unpack(p):
            calls.append(("unpack", p[0]))
            return p[1]

        w = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=rng.random() < 0.5)
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = F.apply(x, w)
        R.tr("b", lambda: y.sum().backward())
        R("g", x.grad)
    elif kind == "savednone":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(None, a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                n, a = ctx.saved_tensors
                calls.append(n is None)
                return g * 2

        R.tr("b", lambda: F.apply(x).sum().backward())
        R("g", x.grad)
    elif kind == "savenontensor":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a, 3)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        R.tr("b", lambda: F.apply(x).sum().backward())
    elif kind == "twice":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                (a2,) = ctx.saved_tensors
                return g * 2

        y = F.apply(x)
        R.tr("b", lambda: y.sum().backward(retain_graph=rng.random() < 0.5))
        R.tr("b2", lambda: y.sum().backward())
        R("g", x.grad)
    elif kind == "freed":
        y = x * x.sin()
        z = y.exp()
        R.tr("b", lambda: z.sum().backward())
        R.tr("sv", lambda: z.grad_fn._saved_result)
        R.tr("sv2", lambda: y.grad_fn._saved_self)
        R.tr("b2", lambda: z.sum().backward())
    elif kind == "kwargs":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, k=2.0):
                return a * k

            @staticmethod
            def backward(ctx, g):
                return g * 2, None

        R.tr("kw", lambda: F.apply(x, k=3.0))
        R.tr("call", lambda: F()(x))
        R.tr("fwd", lambda: F.forward(None, x))
    elif kind == "ndgrad":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                o = a * 2
                i = a.argmax()
                ctx.mark_non_differentiable(i)
                return o, i

            @staticmethod
            def backward(ctx, g, gi):
                calls.append(("gi", conv(T, gi)))
                return g * 2

        o, i = F.apply(x)
        R("i", i)
        R.tr("b", lambda: (o.sum() + i.double()).backward())
        R("g", x.grad)
    elif kind == "retleaf":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a, b * 1

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 3, g2 * 5

        w = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=True)
        src = x if rng.random() < 0.5 else x * 1
        p, q = F.apply(src, w)
        R("p", p)
        R("q", q)
        R("is", p is src)
        R.tr("b", lambda: (p * q).sum().backward())
        R("g", x.grad)
        R("wg", w.grad)
    elif kind == "oncedbl":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a**2

            @staticmethod
            @T.autograd.function.once_differentiable
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return 2 * a * g

        y = F.apply(x)
        gr = R.tr("g1", lambda: T.autograd.grad(y.sum(), x, create_graph=True))
        if gr is not None:
            R("gfn", gr[0].grad_fn.name() if gr[0].grad_fn is not None else None)
            R.tr("g2", lambda: T.autograd.grad(gr[0].sum(), x))
    elif kind == "unpackbad":

        def pack(t):
            return t

        which = rng.choice(["shape", "nontensor", "dtype"])

        def unpack(t):
            return {"shape": lambda: t.sum(), "nontensor": lambda: 5, "dtype": lambda: t.float()}[
                which
            ]()

        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = x.sin()
        R.tr("b", lambda: y.sum().backward())
        R("g", x.grad)
    elif kind == "savedview":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                v = a.view(3)
                ctx.save_for_backward(v)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                (v,) = ctx.saved_tensors
                return g * 2 + v * 0

        R.tr("b", lambda: F.apply(x).sum().backward())
        R("g", x.grad)
    elif kind == "nested_hooks":

        def mk(tag):
            def pack(t):
                calls.append(("pack", tag))
                return t

            def unpack(t):
                calls.append(("unpack", tag))
                return t

            return pack, unpack

        with T.autograd.graph.saved_tensors_hooks(*mk("outer")):
            with T.autograd.graph.saved_tensors_hooks(*mk("inner")):
                y = x.exp()
            z = y.exp()
        R.tr("b", lambda: z.sum().backward())
        R("g", x.grad)
    elif kind == "noinput_rg":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                calls.append(("ge", T.is_grad_enabled()))
                return a * 2

            @staticmethod
            def backward(ctx, g):
                calls.append(("bge", T.is_grad_enabled()))
                return g

        c = T.tensor(arr(rng, (3,)), dtype=T.float64)
        R("y", F.apply(c))
        y = F.apply(x)
        R("y2", y)
        R.tr("gr", lambda: T.autograd.grad(y.sum(), x, create_graph=rng.random() < 0.5))
        with T.no_grad():
            R("y3", F.apply(x))
    elif kind == "ctxattrs":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, n):
                calls.append(("nig_f", tuple(ctx.needs_input_grad)))
                return a * b * n

            @staticmethod
            def backward(ctx, g):
                calls.append(("nig_b", tuple(ctx.needs_input_grad)))
                return g, g, None

        b = T.tensor(arr(rng, (3,)), dtype=T.float64, requires_grad=rng.random() < 0.5)
        y = F.apply(x if rng.random() < 0.7 else x.detach(), b, 2)
        R("y", y)
        if y.requires_grad:
            R.tr("b", lambda: y.sum().backward())
        R("g", x.grad)
        R("bg", b.grad)
    elif kind == "int_out":

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return (a > 0).long(), a * 2

            @staticmethod
            def backward(ctx, gi, g):
                calls.append(("gi", conv(T, gi)))
                return g * 2

        i, y = F.apply(x)
        R("i", i)
        R("y", y)
        R.tr("b", lambda: y.sum().backward())
        R("g", x.grad)
    R.log.append(("calls", calls))


SCEN["func3"] = s_func3


def s_mixed(T, rng, R):
    calls = []
    shapes = [(2, 3), (3,), (2, 1), (), (1, 3)]
    leaves = []
    for i in range(rng.randint(2, 4)):
        sh = rng.choice(shapes)
        dt = T.float32 if rng.random() < 0.3 else T.float64
        leaves.append(T.tensor(arr(rng, sh), dtype=dt, requires_grad=rng.random() < 0.85))
    nodes = list(leaves)
    for _k in range(rng.randint(2, 6)):
        a = rng.choice(nodes)
        b = rng.choice(nodes)
        op = rng.choice(
            [
                "add",
                "mul",
                "div",
                "sub",
                "sin",
                "expand",
                "idx",
                "cat",
                "where",
                "mm",
                "pow",
                "max",
                "clamp",
                "t",
            ]
        )
        try:
            if op == "add":
                y = a + b
            elif op == "mul":
                y = a * b
            elif op == "div":
                y = a / (b * b + 1)
            elif op == "sub":
                y = a - b
            elif op == "sin":
                y = a.sin()
            elif op == "expand":
                y = a.expand(2, 3) if a.dim() <= 2 else a
            elif op == "idx":
                y = a[..., :1] if a.dim() else a
            elif op == "cat":
                y = T.cat([a.reshape(-1), b.reshape(-1)])
            elif op == "where":
                y = T.where(a > 0, a, b)
            elif op == "mm":
                y = a.reshape(-1, 1) @ b.reshape(1, -1)
            elif op == "pow":
                y = a.abs() ** b
            elif op == "max":
                y = a.max() + b * 0 if a.numel() else a
            elif op == "clamp":
                y = a.clamp(-0.5, 0.5)
            else:
                y = a.t() if a.dim() == 2 else a
        except Exception as e:
            R.log.append(("opexc", op, type(e).__name__))
            continue
        nodes.append(y)
    for n in nodes:
        if n.requires_grad and rng.random() < 0.3:
            n.register_hook(
                lambda g, i=len(calls): calls.append(
                    ("h", tuple(g.shape), str(g.dtype).replace("minitorch", "torch"))
                )
            )
    out = rng.choice(nodes)
    R("out", out)
    how = rng.choice(["sum", "grad", "gradout"])
    if how == "sum":
        R.tr("b", lambda: out.sum().backward())
    elif how == "grad":
        ins = [l for l in leaves if l.requires_grad]
        if ins:
            R.tr(
                "g",
                lambda: T.autograd.grad(
                    out.sum(), ins, allow_unused=True, create_graph=rng.random() < 0.3
                ),
            )
    else:
        go = T.tensor(arr(rng, tuple(out.shape)), dtype=rng.choice([T.float64, T.float32]))
        R.tr("b", lambda: out.backward(go))
    for i, l in enumerate(leaves):
        R("lg%d" % i, l.grad)
    R.log.append(("calls", calls))


SCEN["mixed"] = s_mixed


def make_custom(T):
    class CMul(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return (
                g * b if ctx.needs_input_grad[0] else None,
                g * a if ctx.needs_input_grad[1] else None,
            )

    class CExp(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            y = a.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    return CMul, CExp


OPS1 = [
    "exp",
    "log",
    "tanh",
    "sigmoid",
    "relu",
    "sqrt",
    "abs",
    "sum0",
    "mean1",
    "max1",
    "norm",
    "softmax",
    "logsoftmax",
    "clamp",
    "pow3",
    "recip",
    "t",
    "reshape",
    "cexp",
    "cumsum",
    "prod",
    "amax",
    "logsumexp",
    "sinh",
    "atan",
    "erf",
    "square",
    "var",
    "std",
    "gelu",
    "silu",
    "softplus",
    "elu",
    "leaky",
    "hardtanh",
    "logsig",
    "xlogy",
    "expm1",
    "log1p",
    "rsqrt",
    "flip",
    "roll",
    "diag",
]
OPS2 = [
    "add",
    "mul",
    "div",
    "sub",
    "mm",
    "where",
    "maximum",
    "minimum",
    "cat0",
    "stack",
    "cmul",
    "pow",
    "atan2",
    "hypot",
    "lerp",
    "addcmul",
    "fmod",
    "cdist",
    "dot",
    "outer",
    "kron",
    "cross_entropy",
    "mse",
]


def apply_op(T, rng, op, a, b, CMul, CExp):
    F = T.nn.functional
    if op == "exp":
        return (a * 0.3).exp()
    if op == "log":
        return (a * a + 0.5).log()
    if op == "tanh":
        return a.tanh()
    if op == "sigmoid":
        return a.sigmoid()
    if op == "relu":
        return a.relu()
    if op == "sqrt":
        return (a * a + 0.1).sqrt()
    if op == "abs":
        return a.abs()
    if op == "sum0":
        return a.sum(0, keepdim=True).expand(3, 3)
    if op == "mean1":
        return a.mean(1, keepdim=True).expand(3, 3)
    if op == "max1":
        return a.max(1, keepdim=True)[0].expand(3, 3)
    if op == "norm":
        return a.norm() * a
    if op == "softmax":
        return a.softmax(-1)
    if op == "logsoftmax":
        return a.log_softmax(0)
    if op == "clamp":
        return a.clamp(-1, 1)
    if op == "pow3":
        return a**3
    if op == "recip":
        return 1 / (a * a + 1)
    if op == "t":
        return a.t()
    if op == "reshape":
        return a.reshape(9).flip(0).reshape(3, 3)
    if op == "cexp":
        return CExp.apply(a * 0.3)
    if op == "cumsum":
        return a.cumsum(1)
    if op == "prod":
        return a.prod(1, keepdim=True) * a
    if op == "amax":
        return a.amax(0) + a
    if op == "logsumexp":
        return a.logsumexp(1, keepdim=True) + a
    if op == "sinh":
        return a.sinh()
    if op == "atan":
        return a.atan()
    if op == "erf":
        return a.erf()
    if op == "square":
        return a.square()
    if op == "var":
        return a.var(1, keepdim=True) + a
    if op == "std":
        return a.std(0) * a
    if op == "gelu":
        return F.gelu(a)
    if op == "silu":
        return F.silu(a)
    if op == "softplus":
        return F.softplus(a)
    if op == "elu":
        return F.elu(a)
    if op == "leaky":
        return F.leaky_relu(a, 0.1)
    if op == "hardtanh":
        return F.hardtanh(a)
    if op == "logsig":
        return F.logsigmoid(a)
    if op == "xlogy":
        return T.xlogy(a, a * a + 1)
    if op == "expm1":
        return (a * 0.5).expm1()
    if op == "log1p":
        return (a * a).log1p()
    if op == "rsqrt":
        return (a * a + 1).rsqrt()
    if op == "flip":
        return a.flip(1)
    if op == "roll":
        return a.roll(1, 0)
    if op == "diag":
        return a.diag().diag() + a
    if op == "add":
        return a + b
    if op == "mul":
        return a * b
    if op == "div":
        return a / (b * b + 1)
    if op == "sub":
        return a - b
    if op == "mm":
        return a @ b
    if op == "where":
        return T.where(a > b, a, b * 2)
    if op == "maximum":
        return T.maximum(a, b)
    if op == "minimum":
        return T.minimum(a, b)
    if op == "cat0":
        return T.cat([a, b], 0)[1:4]
    if op == "stack":
        return T.stack([a, b]).sum(0)
    if op == "cmul":
        return CMul.apply(a, b)
    if op == "pow":
        return (a * a + 0.5) ** b
    if op == "atan2":
        return T.atan2(a, b)
    if op == "hypot":
        return T.hypot(a, b)
    if op == "lerp":
        return T.lerp(a, b, 0.3)
    if op == "addcmul":
        return T.addcmul(a, a, b, value=0.5)
    if op == "fmod":
        return T.fmod(a, 1.3) + b
    if op == "cdist":
        return T.cdist(a, b)
    if op == "dot":
        return T.dot(a[0], b[1]) * a
    if op == "outer":
        return T.outer(a[0], b[:, 1])
    if op == "kron":
        return T.kron(a[:1, :1], b)
    if op == "cross_entropy":
        return F.cross_entropy(a, b.softmax(1)) * a
    if op == "mse":
        return F.mse_loss(a, b) * b
    raise KeyError(op)


def s_combo(T, rng, R):
    CMul, CExp = make_custom(T)
    leaves = [
        T.tensor(arr(rng, (3, 3)), dtype=T.float64, requires_grad=rng.random() < 0.9)
        for _ in range(3)
    ]
    nodes = list(leaves)
    ops = []
    for k in range(rng.randint(1, 5)):
        if rng.random() < 0.5:
            op = rng.choice(OPS1)
            a = rng.choice(nodes)
            b = None
        else:
            op = rng.choice(OPS2)
            a = rng.choice(nodes)
            b = rng.choice(nodes)
        ops.append(op)
        try:
            y = apply_op(T, rng, op, a, b, CMul, CExp)
        except Exception as e:
            R.log.append(
                ("opexc", op, type(e).__name__, str(e)[:100].replace("minitorch", "torch"))
            )
            continue
        nodes.append(y)
        R("n%d" % k, y)
    R.log.append(("ops", ops))
    out = (nodes[-1] * T.tensor(arr(rng, (3, 3)), dtype=T.float64)).sum()
    ins = [l for l in leaves if l.requires_grad]
    if not out.requires_grad or not ins:
        return
    g = R.tr("g", lambda: T.autograd.grad(out, ins, create_graph=True, allow_unused=True))
    if g is None:
        return
    v = [T.tensor(arr(rng, (3, 3)), dtype=T.float64) for _ in ins]
    s = sum(
        (
            (gi * vi).sum()
            for gi, vi in zip(g, v, strict=False)
            if gi is not None and gi.requires_grad
        ),
        T.tensor(0.0, dtype=T.float64),
    )
    if s.requires_grad:
        R.tr(
            "gg",
            lambda: T.autograd.grad(
                s, ins, allow_unused=True, materialize_grads=rng.random() < 0.5
            ),
        )


SCEN["combo"] = s_combo


def main():
    global run
    args = H.cli(
        "autograd",
        default_cases=100,
        extra=lambda p: p.add_argument("--scen", help="comma-separated scenarios (default all)"),
    )
    run = H.limited(run, args.timeout, lambda e: [("TIMEOUT", ("EXC", "CaseTimeout", str(e)))])
    rep = args.report
    names = args.scen.split(",") if args.scen else list(SCEN)
    for name in names:
        for seed in range(args.seed, args.seed + args.cases):
            rep.case()
            a = run(torch, name, seed)
            b = run(minitorch, name, seed)
            if not eq(a, b):
                # the first differing entry
                for x, y in zip(a, b, strict=False):
                    if not eq(x, y):
                        break
                else:
                    x, y = (a[len(b) : len(b) + 1], b[len(a) : len(a) + 1])
                key = (name, str(x[0]) if isinstance(x, tuple) and x else "len")
                rep.add(key, f"seed {seed}", "torch: " + str(x)[:700], "mini:  " + str(y)[:700])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
