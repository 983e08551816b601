"""Session 39 (helper nonegrad): autograd-graph nodes that receive only None (undefined)
gradients, written the way users meet them in torch, run under torch and minitorch with the same
seeds and compared record by record. A node is reached by the backward walk but every consumer's
backward returned None for it (a gradient-blocking custom Function, a frozen branch), or a
multi-output Function is used through some outputs only. torch's engine still runs such a node:
a custom Function's backward is called (on zeros, the default ctx.set_materialize_grads(True);
on None when False) and the zeros it returns flow on; tensor hooks, Node pre-hooks and post hooks
on and behind it see None; a leaf's tensor hooks see None and its post-accumulate hooks run; a
retained grad stays None; a built-in node unpacks its saved tensors (unpack hooks, in-place
version checks, the freed-graph error) and passes None on. The programs: multi-output custom
Functions with one output used (materialized or not), mark_non_differentiable outputs, blocked
branches in front of custom and built-in nodes (call counters), hooks of every kind behind a
block, hooks that try to replace None, leaves behind a block (optimizer-in-backward hooks),
autograd.grad with allow_unused / materialize_grads, backward(inputs=...), modules with full
backward (pre-)hooks behind a block, checkpoint (reentrant and not) behind a block, multi-output
built-ins (unbind, chunk) with hooks, multi-grad hooks, saved-tensor checks, create_graph,
anomaly mode.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- The engine skipped a node that got no gradient: a custom Function's backward was not called
  (torch calls it with zeros, or with None after set_materialize_grads(False), and the zeros it
  returns reach the leaves, whose .grad becomes zeros, not None); tensor hooks, Node pre-hooks
  and post hooks on or behind it were not called (torch calls them with None); a leaf's tensor
  hooks and post-accumulate hooks were not called; a built-in node's saved tensors were neither
  unpacked (torch runs unpack hooks and raises for a tensor modified in place or already freed)
  nor freed. Now the walk runs such nodes on its rare path (NOTE [ Nodes no gradient reached ]).
- autograd.grad and backward(inputs=...) did the same for the nodes and leaves they reach: now
  their tensor hooks (also of a node autograd.grad only reads from) and leaves' hooks see None.
- A hook given None that returns a tensor (a tensor's, a leaf's, a Node pre- or post hook)
  raises torch's "can't replace a None gradient with a non-None value" (a leaf's hook result
  check read the None's dtype).
- backward(inputs=...) accumulated into a leaf without running its accumulator's Node pre-hooks
  and post hooks (grad_fn.next_functions[0][0].register_hook); torch runs them, with a gradient
  or None.
- A module's full backward hook behind a block sent zeros into the module (to make the skipping
  engine run its input hook), so its parameters got zero .grad where torch leaves None.

Known and left (documented):
- max(dim)/min(dim)'s node has two outputs here (values and indices); torch's has one, so its
  Node pre-hooks see (g,) in torch and (g, None) here, with or without a gradient. Not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "unused_output", "unused_output_no_materialize", "non_diff_output", "blocked_custom",
    "blocked_builtin_hooks", "hook_replaces_none", "leaf_hooks", "optimizer_in_backward",
    "grad_allow_unused", "backward_inputs", "module_hooks", "checkpoint_blocked",
    "multi_output_builtin", "saved_checks", "create_graph", "anomaly", "straight_through",
    "moe_dispatch", "multi_grad_hook",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _seen(rec, name, g):
    """Records what a hook or backward was given: "None", or the tensor(s)."""
    if g is None:
        rec(name, "None")
    elif isinstance(g, (tuple, list)):
        rec(name + ".n", len(g))
        for i, t in enumerate(g):
            _seen(rec, f"{name}.{i}", t)
    else:
        rec(name, g)


def _post(rec, name, grad_inputs, grad_outputs):
    """A post hook's record of what it was given (returns None: it changes nothing)."""
    _seen(rec, name + ".in", grad_inputs)
    _seen(rec, name + ".out", grad_outputs)


def _grad(rec, name, t):
    _seen(rec, name + ".grad", t.grad)


def _stop(lib):
    """A gradient block as users write one: forward is the identity, backward returns None."""

    class StopGradient(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return None

    return StopGradient.apply


def _scale(lib, rec, tag, materialize=True):
    """A custom Function y = x * 2 that records each call of its backward and what it got."""

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            _seen(rec, tag + ".backward_got", g)
            return None if g is None else g * 2

    return Scale.apply


# --- programs ---


def p_unused_output(lib, dt, rec):
    # a mean/variance Function whose variance is not used: its backward still runs, on zeros
    class MeanVar(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.mean(0), x.var(0, unbiased=False)

        @staticmethod
        def backward(ctx, g_mean, g_var):
            (x,) = ctx.saved_tensors
            _seen(rec, "g_mean", g_mean)
            _seen(rec, "g_var", g_var)
            n = x.shape[0]
            return g_mean / n + g_var * 2 * (x - x.mean(0)) / n

    x = _randn(lib, dt, 0, 5, 3).requires_grad_()
    m, v = MeanVar.apply(x)
    (m * _randn(lib, dt, 1, 3)).sum().backward()
    _grad(rec, "x", x)
    # neither output reaches the loss directly: both behind a block
    x.grad = None
    m, v = MeanVar.apply(x)
    stop = _stop(lib)
    w = _randn(lib, dt, 2, 3).requires_grad_()
    (stop(m) * w + stop(v)).sum().backward()
    _grad(rec, "x2", x)
    _grad(rec, "w", w)


def p_unused_output_no_materialize(lib, dt, rec):
    class Split2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x[:2].clone(), x[2:].clone()

        @staticmethod
        def backward(ctx, ga, gb):
            _seen(rec, "ga", ga)
            _seen(rec, "gb", gb)
            if ga is None and gb is None:
                return None
            out = lib.zeros(5, dtype=dt)
            if ga is not None:
                out[:2] = ga
            if gb is not None:
                out[2:] = gb
            return out

    x = _randn(lib, dt, 3, 5).requires_grad_()
    a, b = Split2.apply(x)
    (a * 3).sum().backward()
    _grad(rec, "x", x)
    x.grad = None
    a, b = Split2.apply(x)
    stop = _stop(lib)
    z = _randn(lib, dt, 4, 1).requires_grad_()
    (stop(a).sum() + stop(b).sum() + z.sum()).backward()
    _grad(rec, "x_blocked", x)
    _grad(rec, "z", z)


def p_non_diff_output(lib, dt, rec):
    class ReluWithMask(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(mask)
            ctx.save_for_backward(mask)
            return x * mask, mask

        @staticmethod
        def backward(ctx, g, g_mask):
            (mask,) = ctx.saved_tensors
            _seen(rec, "g", g)
            _seen(rec, "g_mask", g_mask)
            return g * mask

    x = _randn(lib, dt, 5, 6).requires_grad_()
    y, mask = ReluWithMask.apply(x)
    rec("mask.requires_grad", mask.requires_grad)
    (y * mask).sum().backward()
    _grad(rec, "x", x)
    # y only behind a block: the backward runs on zeros for both
    x.grad = None
    y, mask = ReluWithMask.apply(x)
    z = _randn(lib, dt, 6, 2).requires_grad_()
    (_stop(lib)(y).sum() + (z * mask[:2]).sum()).backward()
    _grad(rec, "x_blocked", x)
    _grad(rec, "z", z)


def p_blocked_custom(lib, dt, rec):
    calls = {"n": 0}

    class Counted(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x @ w

        @staticmethod
        def backward(ctx, g):
            calls["n"] += 1
            x, w = ctx.saved_tensors
            _seen(rec, "counted.got", g)
            return g @ w.T, x.T @ g

    stop = _stop(lib)
    x = _randn(lib, dt, 7, 4, 3).requires_grad_()
    w = _randn(lib, dt, 8, 3, 2).requires_grad_()
    b = _randn(lib, dt, 9, 2).requires_grad_()
    h = Counted.apply(x, w)
    out = stop(h) + b
    out.pow(2).sum().backward()
    rec("calls", calls["n"])
    _grad(rec, "x", x)  # zeros: the custom backward ran on zeros
    _grad(rec, "w", w)
    _grad(rec, "b", b)
    # the same through built-in ops only: the leaves stay None
    x2 = _randn(lib, dt, 7, 4, 3).requires_grad_()
    h2 = (x2 @ w).tanh()
    (stop(h2) + b).sum().backward()
    _grad(rec, "x2", x2)
    # a chain: built-in -> custom -> built-in behind the block
    scale = _scale(lib, rec, "scale")
    x3 = _randn(lib, dt, 10, 3).requires_grad_()
    (stop(scale(x3.exp()).sin()).sum() + b.sum()).backward()
    _grad(rec, "x3", x3)
    # used only through a path that is not differentiable: the node is not reached at all
    before = calls["n"]
    h4 = Counted.apply(x, w)
    ((h4 > 0).to(dt).sum() * b).sum().backward()
    rec("calls_not_reached", calls["n"] - before)


def p_blocked_builtin_hooks(lib, dt, rec):
    stop = _stop(lib)
    x = _randn(lib, dt, 11, 2, 3).requires_grad_()
    w = _randn(lib, dt, 12, 3).requires_grad_()
    m = x * w
    m.retain_grad()
    m.register_hook(lambda g: _seen(rec, "m.hook", g))
    m.grad_fn.register_prehook(lambda go: _seen(rec, "mul.pre", go))
    m.grad_fn.register_hook(lambda gi, go: _post(rec, "mul.post", gi, go))
    n = m.sum(1)
    n.retain_grad()
    n.register_hook(lambda g: _seen(rec, "n.hook", g))
    n.grad_fn.register_hook(lambda gi, go: _seen(rec, "sum.post.in", gi))
    x.register_hook(lambda g: _seen(rec, "x.hook", g))
    z = _randn(lib, dt, 13, 2).requires_grad_()
    (stop(n) * z).sum().backward()
    _grad(rec, "m", m)
    _grad(rec, "n", n)
    _grad(rec, "x", x)
    _grad(rec, "w", w)
    _grad(rec, "z", z)
    # custom node behind the block with hooks
    scale = _scale(lib, rec, "scale")
    s = scale(x)
    s.register_hook(lambda g: _seen(rec, "s.hook", g))
    s.grad_fn.register_prehook(lambda go: _seen(rec, "scale.pre", go))
    s.grad_fn.register_hook(lambda gi, go: _post(rec, "scale.post", gi, go))
    x.grad = None
    (stop(s).sum() + z.sum()).backward()
    _grad(rec, "x_after_custom", x)


def p_hook_replaces_none(lib, dt, rec):
    stop = _stop(lib)

    def run(setup):
        x = _randn(lib, dt, 14, 3).requires_grad_()
        m = x * 2
        setup(x, m)
        z = _randn(lib, dt, 15, 3).requires_grad_()
        (stop(m) + z).sum().backward()

    one = lambda g: lib.ones(3, dtype=dt)  # noqa: E731
    rec.err("tensor_hook", lambda: run(lambda x, m: m.register_hook(one)))
    rec.err("leaf_hook", lambda: run(lambda x, m: x.register_hook(one)))
    rec.err("prehook", lambda: run(lambda x, m: m.grad_fn.register_prehook(lambda go: (one(0),))))
    rec.err(
        "posthook", lambda: run(lambda x, m: m.grad_fn.register_hook(lambda gi, go: (one(0), None)))
    )
    rec.err(
        "acc_posthook",
        lambda: run(lambda x, m: m.grad_fn.next_functions[0][0].register_hook(lambda gi, go: None)),
    )
    rec.err(
        "acc_prehook",
        lambda: run(
            lambda x, m: m.grad_fn.next_functions[0][0].register_prehook(lambda go: (one(0),))
        ),
    )
    rec.err(
        "hooks_returning_none",
        lambda: run(
            lambda x, m: (
                m.register_hook(lambda g: None),
                x.register_hook(lambda g: None),
                m.grad_fn.register_prehook(lambda go: None),
                m.grad_fn.register_hook(lambda gi, go: None),
            )
        ),
    )


def p_leaf_hooks(lib, dt, rec):
    stop = _stop(lib)
    x = _randn(lib, dt, 16, 4).requires_grad_()
    y = _randn(lib, dt, 17, 4).requires_grad_()
    x.register_hook(lambda g: _seen(rec, "x.hook", g))
    x.register_post_accumulate_grad_hook(lambda p: _seen(rec, "x.post_acc", p.grad))
    acc = (x * 1).grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: _seen(rec, "acc.pre", go))
    acc.register_hook(lambda gi, go: _post(rec, "acc.post", gi, go))
    (stop(x * y) + y).sum().backward()
    _grad(rec, "x", x)
    _grad(rec, "y", y)
    # with a .grad already there: the post-accumulate hook sees it unchanged
    x.grad = lib.ones(4, dtype=dt)
    (stop(x.exp()) * y).sum().backward()
    _grad(rec, "x_kept", x)
    # a plain leaf (no node hooks) with only tensor hooks
    p = _randn(lib, dt, 18, 4).requires_grad_()
    p.register_hook(lambda g: _seen(rec, "p.hook", g))
    p.register_post_accumulate_grad_hook(lambda t: _seen(rec, "p.post_acc", t.grad))
    (stop(p.sin()) * y).sum().backward()
    _grad(rec, "p", p)


def p_optimizer_in_backward(lib, dt, rec):
    # the optimizer-in-backward pattern: each parameter steps in its post-accumulate hook, which
    # torch also calls for a parameter whose gradient path was blocked (p.grad is None there)
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 3)).to(dt)
    frozen_head = lib.nn.Linear(5, 2).to(dt)
    opts = {p: lib.optim.SGD([p], lr=0.1) for p in [*net.parameters(), *frozen_head.parameters()]}
    seen = []

    def step(p):
        seen.append(p.grad is None)
        opts[p].step()
        opts[p].zero_grad()

    for p in opts:
        p.register_post_accumulate_grad_hook(step)
    stop = _stop(lib)
    x = _randn(lib, dt, 19, 6, 4)
    for _ in range(2):
        h = net[1](net[0](x))
        out = net[2](h)
        aux = stop(frozen_head(h))
        (out.pow(2).mean() + aux.sum() * 0).backward()
    rec("hook_saw_none", [int(s) for s in seen])
    rec.params("net", net)
    rec.params("head", frozen_head)


def p_grad_allow_unused(lib, dt, rec):
    stop = _stop(lib)
    scale = _scale(lib, rec, "scale")
    x = _randn(lib, dt, 20, 3).requires_grad_()
    w = _randn(lib, dt, 21, 3).requires_grad_()
    x.register_hook(lambda g: _seen(rec, "x.hook", g))
    m = scale(x)
    m.register_hook(lambda g: _seen(rec, "m.hook", g))
    b = w.exp()
    b.register_hook(lambda g: _seen(rec, "b.hook", g))
    y = (stop(m) + stop(b) * 2 + w).sum()
    gs = lib.autograd.grad(y, [x, w, m, b], allow_unused=True, retain_graph=True)
    _seen(rec, "grads", gs)
    gs = lib.autograd.grad(y, [x, b], materialize_grads=True, retain_graph=True)
    _seen(rec, "materialized", gs)
    gs = lib.autograd.grad(y, [x])  # x is reached: the custom backward returns zeros
    _seen(rec, "x_only", gs)
    # unbind pieces read by autograd.grad: the unused piece's hook sees None
    t = _randn(lib, dt, 22, 2, 3).requires_grad_()
    p0, p1 = t.unbind(0)
    p0.register_hook(lambda g: _seen(rec, "p0.hook", g))
    p1.register_hook(lambda g: _seen(rec, "p1.hook", g))
    _seen(rec, "unbind", lib.autograd.grad((p0 * p0).sum(), [p0]))
    rec.err("unused_error", lambda: lib.autograd.grad((stop(t.exp()) + w).sum(), [t, w]))


def p_backward_inputs(lib, dt, rec):
    stop = _stop(lib)
    scale = _scale(lib, rec, "scale")

    def graph():
        x = _randn(lib, dt, 23, 3).requires_grad_()
        w = _randn(lib, dt, 24, 3).requires_grad_()
        x.register_hook(lambda g: _seen(rec, "x.hook", g))
        x.register_post_accumulate_grad_hook(lambda p: _seen(rec, "x.post_acc", p.grad))
        m = x * 3
        m.register_hook(lambda g: _seen(rec, "m.hook", g))
        m.grad_fn.register_prehook(lambda go: _seen(rec, "m.pre", go))
        m.grad_fn.register_hook(lambda gi, go: _seen(rec, "m.post.in", gi))
        for name, leaf in (("x", x), ("w", w)):  # the accumulators' node hooks
            acc = (leaf * 1).grad_fn.next_functions[0][0]
            acc.register_prehook(lambda go, name=name: _seen(rec, name + ".acc.pre", go))
            acc.register_hook(lambda gi, go, name=name: _post(rec, name + ".acc.post", gi, go))
        s = scale(w)
        y = (stop(m) + stop(s) * w).sum()
        return x, w, m, y

    x, w, m, y = graph()
    y.backward(inputs=[x, w])
    _grad(rec, "a.x", x)
    _grad(rec, "a.w", w)
    x, w, m, y = graph()
    y.backward(inputs=[w])
    _grad(rec, "b.x", x)
    _grad(rec, "b.w", w)
    x, w, m, y = graph()
    y.backward(inputs=[m])
    _grad(rec, "c.m", m)
    _grad(rec, "c.x", x)


def p_module_hooks(lib, dt, rec):
    lib.manual_seed(1)
    body = lib.nn.Linear(3, 4).to(dt)
    head = lib.nn.Linear(4, 2).to(dt)
    head.register_full_backward_pre_hook(lambda mod, go: _seen(rec, "head.pre", go))
    head.register_full_backward_hook(lambda mod, gi, go: _post(rec, "head", gi, go))
    body.register_full_backward_hook(lambda mod, gi, go: _post(rec, "body", gi, go))
    stop = _stop(lib)
    x = _randn(lib, dt, 25, 5, 3).requires_grad_()
    h = body(x)
    out = stop(head(h.tanh()))
    (out.sum() + h.pow(2).sum()).backward()
    rec.params("body", body, grads=True)
    for n, p in head.named_parameters():
        _grad(rec, "head." + n, p)
    _grad(rec, "x", x)


def p_checkpoint_blocked(lib, dt, rec):
    stop = _stop(lib)
    for reentrant in (True, False):
        runs = {"n": 0}

        def block(t, runs=runs):
            runs["n"] += 1
            return t.sin() * t

        x = _randn(lib, dt, 26, 4).requires_grad_()
        z = _randn(lib, dt, 27, 4).requires_grad_()
        y = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=reentrant)
        (stop(y) + z).sum().backward()
        rec(f"runs.{reentrant}", runs["n"])
        _grad(rec, f"x.{reentrant}", x)
        _grad(rec, f"z.{reentrant}", z)


def p_multi_output_builtin(lib, dt, rec):
    stop = _stop(lib)
    x = _randn(lib, dt, 28, 3, 4).requires_grad_()
    a, b, c = x.unbind(0)
    for name, t in (("a", a), ("b", b), ("c", c)):
        t.register_hook(lambda g, name=name: _seen(rec, name + ".hook", g))
    a.grad_fn.register_prehook(lambda go: _seen(rec, "unbind.pre", go))
    a.grad_fn.register_hook(lambda gi, go: _post(rec, "unbind.post", gi, go))
    (a * 2 + stop(b)).sum().backward()
    _grad(rec, "x", x)
    x.grad = None
    p, q = x.chunk(2, dim=1)
    p.register_hook(lambda g: _seen(rec, "p.hook", g))
    q.register_hook(lambda g: _seen(rec, "q.hook", g))
    z = _randn(lib, dt, 29, 1).requires_grad_()
    (stop(p).sum() + stop(q).sum() + z.sum()).backward()
    _grad(rec, "x_all_blocked", x)


def p_saved_checks(lib, dt, rec):
    stop = _stop(lib)

    def modified():
        x = _randn(lib, dt, 30, 3).requires_grad_()
        m = x * 1
        s = m.sin()  # saves m
        m.add_(1)
        (stop(s).sum() + x.sum()).backward()

    rec.err("modified_in_place", modified)

    def twice():
        x = _randn(lib, dt, 31, 3).requires_grad_()
        s = x.sin()
        (stop(s).sum() + x.sum()).backward()
        (stop(s).sum() + x.sum()).backward()

    rec.err("backward_twice", twice)
    events = []
    x = _randn(lib, dt, 32, 3).requires_grad_()

    def pack(t):
        events.append("pack")
        return t

    def unpack(t):
        events.append("unpack")
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        s = (x * 1).exp()
    (stop(s).sum() + x.sum()).backward()
    rec("events", " ".join(events))
    _grad(rec, "x", x)
    # retain_graph keeps them: a second backward through the same blocked node works
    x2 = _randn(lib, dt, 33, 3).requires_grad_()
    s2 = x2.cos()
    y2 = stop(s2).sum() + (s2 * 2).sum()
    y2.backward(retain_graph=True)
    y2.backward()
    _grad(rec, "x2", x2)


def p_create_graph(lib, dt, rec):
    stop = _stop(lib)
    scale = _scale(lib, rec, "scale")
    x = _randn(lib, dt, 34, 3).requires_grad_()
    w = _randn(lib, dt, 35, 3).requires_grad_()
    y = (stop(scale(x * w)) + w.pow(3)).sum()
    gx, gw = lib.autograd.grad(y, [x, w], create_graph=True)
    rec("gx.requires_grad", gx.requires_grad)
    rec("gw.requires_grad", gw.requires_grad)
    _seen(rec, "gx", gx)
    _seen(rec, "gw", gw)
    (ggw,) = lib.autograd.grad(gw.sum(), [w])
    _seen(rec, "ggw", ggw)


def p_anomaly(lib, dt, rec):
    stop = _stop(lib)
    scale = _scale(lib, rec, "scale")
    with lib.autograd.detect_anomaly():
        x = _randn(lib, dt, 36, 3).requires_grad_()
        m = scale(x).exp()
        m.register_hook(lambda g: _seen(rec, "m.hook", g))
        (stop(m) + x).sum().backward()
        _grad(rec, "x", x)


def p_straight_through(lib, dt, rec):
    # a straight-through sign estimator written defensively for None gradients
    class SignSTE(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.sign()

        @staticmethod
        def backward(ctx, g):
            _seen(rec, "ste.got", g)
            if g is None:
                return None
            (x,) = ctx.saved_tensors
            return g * (x.abs() <= 1).to(g.dtype)

    stop = _stop(lib)
    lib.manual_seed(2)
    enc = lib.nn.Linear(4, 3).to(dt)
    x = _randn(lib, dt, 37, 5, 4)
    code = SignSTE.apply(enc(x))
    loss = (code * _randn(lib, dt, 38, 3)).sum()
    loss.backward()
    rec.params("enc", enc, grads=True)
    enc.zero_grad()
    code = SignSTE.apply(enc(x))
    (stop(code).sum() + enc.bias.sum()).backward()
    for n, p in enc.named_parameters():
        _grad(rec, "blocked." + n, p)


def p_moe_dispatch(lib, dt, rec):
    # a mixture of experts whose dispatch Function returns one slice per expert; an expert that
    # is switched off (its output multiplied by a detached gate of 0, i.e. not used) gets zeros
    calls = {"n": 0}

    class Dispatch(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.n = x.shape[0]
            return tuple(x[i::2].clone() for i in range(2))

        @staticmethod
        def backward(ctx, *gs):
            calls["n"] += 1
            for i, g in enumerate(gs):
                _seen(rec, f"dispatch.g{i}", g)
            out = gs[0].new_zeros((ctx.n, gs[0].shape[1]))
            for i, g in enumerate(gs):
                out[i::2] = g
            return out

    lib.manual_seed(3)
    experts = lib.nn.ModuleList([lib.nn.Linear(3, 3).to(dt) for _ in range(2)])
    x = _randn(lib, dt, 39, 6, 3).requires_grad_()
    parts = Dispatch.apply(x)
    out = experts[0](parts[0]).sum()
    out.backward()
    rec("calls", calls["n"])
    _grad(rec, "x", x)
    for i, e in enumerate(experts):
        _grad(rec, f"e{i}.weight", e.weight)
    x.grad = None
    parts = Dispatch.apply(x)
    stop = _stop(lib)
    z = _randn(lib, dt, 40, 1).requires_grad_()
    (stop(experts[0](parts[0])).sum() + stop(parts[1]).sum() + z.sum()).backward()
    rec("calls2", calls["n"])
    _grad(rec, "x2", x)


def p_multi_grad_hook(lib, dt, rec):
    stop = _stop(lib)
    for mode in ("all", "any"):
        x = _randn(lib, dt, 41, 3).requires_grad_()
        a, b, c = x * 2, x.exp(), x * 4
        lib.autograd.graph.register_multi_grad_hook(
            (a, b, c), lambda gs, mode=mode: _seen(rec, "multi." + mode, gs), mode=mode
        )
        (a.sum() + stop(b).sum()).backward()
        _grad(rec, "x." + mode, x)
