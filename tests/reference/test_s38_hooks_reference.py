"""Session 38 (helper hooks): hooks as research code uses them, written the way users write
them in torch, run under torch and minitorch with the same seeds and compared record by record:
feature extraction with forward hooks (named_modules, prepend=True, handles removed, hooks added
or removed from inside hooks), forward pre-hooks replacing the input (a bare tensor, a tuple, an
input mask), with_kwargs pre-/forward hooks rewriting kwargs and outputs (MultiheadAttention's
need_weights), always_call hooks when forward or a pre-hook raises (local and global), modules
returning tuples, dicts, lists, namedtuples, nested tuples, non-tensors and their own input;
full backward hooks and backward pre-hooks replacing grad_input/grad_output (gradient clipping,
gradient reversal for domain adaptation, PCGrad-like projection), hooks registered after the
forward, nested and shared modules, LSTM/GRUCell/MHA hooks, old-style register_backward_hook
(its grads and FutureWarnings) and the errors when mixing it with full hooks, in-place ops on
hooked outputs, hooks under no_grad/inference_mode, inputs that need no grad, retain_graph
twice, checkpointed blocks (reentrant and not), functional-style parametrizations, pruning,
weight_norm and spectral_norm (their pre-hooks and state-dict hooks); global module hooks and
registration hooks (ModuleList/Dict, Sequential, buffers and parameters reassigned, returned
replacements), state-dict hooks (pre/post, private _register_state_dict_hook, load pre/post
hooks that strip a DataParallel prefix, edit incompatible keys, add error messages, assign=True,
local metadata); Tensor.register_hook on leaves and non-leaves (order, replacement, removal in
a hook, retain_grad order, create_graph, views, errors), hooks on unused outputs of multi-output
nodes, post-accumulate-grad hooks (optimizer in backward, DDP-style bucketing), Node hooks and
pre-hooks via grad_fn, saved_tensors_hooks (offloading, lossy packing, save_on_cpu, errors,
retain_graph), gradient aliasing after hooks (clip_grad_norm_, SGD), low-precision dtype
checks, and the argument errors of the hook registration calls.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- A module with full backward hooks returned a plain tuple for a namedtuple output; torch's
  BackwardHook rebuilds it with its type (nn/modules/_hooks.py, BackwardHook._wrap).
- Node.register_hook/register_prehook were Python methods ("Node.register_hook() missing 1
  required positional argument: 'fn'"); torch's are C methods of one argument:
  "MulBackward0.register_hook() takes exactly one argument (0 given)", "... takes no keyword
  arguments", owned by _FunctionBase on a custom Function's node, AccumulateGrad on a leaf's.
- A hook changing a gradient's dtype named a dtype without a legacy tensor class by its Python
  class ("torch.BFloat16Tensor"); torch names the backend type: "was CPUBFloat16Type got
  torch.FloatTensor", CPUBoolType, CPUUInt16Type (engine._full_type).
- The tensor hooks of a multi-output node's unused outputs (unbind, split, chunk, a custom
  Function's second output) did not run; torch runs them with None when the node runs, and a
  hook returning a tensor there raises "can't replace a None gradient with a non-None value".

Known and left (documented):
- A node whose every incoming gradient is None (a custom Function's backward returned None for
  it) is skipped here, and so is everything below it; torch's engine still runs them with
  undefined gradients: their tensor hooks, node pre-/post-hooks, a leaf's hooks and its
  post-accumulate-grad hooks fire with None, and a custom Function below (materialize_grads
  on) gets zeros, so its leaves end with zero gradients where minitorch leaves None. An
  engine-wide change (the skip path of engine._run_node and the walk); not recorded.
- nn.modules.module has no _global_is_full_backward_hook (the flag lives in _hooks._global_state);
  Node.name(1) raises Python's "Node.name() takes 1 positional argument but 2 were given"
  (torch's "MulBackward0.name() takes no arguments (1 given)").
- register_hooks(1, 2) on a SavedTensor: the message names the object with its address (and
  minitorch's class path); not recorded. Embedding(sparse=True) gives dense gradients
  (documented in nn/modules/sparse.py), so hooks see strided gradients.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import collections
import importlib

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "feature_extract", "pre_replace", "fwd_replace_kwargs", "always_call_chain",
    "tuple_dict_outputs", "grad_surgery", "bwd_pre_replace", "mixing_errors", "inplace_bwd_hook",
    "global_hooks", "registration_hooks", "state_dict_hooks", "load_hooks", "prune_masks",
    "tensor_hooks", "post_accumulate", "node_hooks", "offload", "pack_errors", "no_grad_hooks",
    "retain_twice", "logging_stats", "bwd_hook_errors", "context_handles", "grad_reversal",
    "hooks_edited_midway", "old_style", "module_io_kinds", "bwd_view_output",
    "layer_tuple_outputs", "checkpoint_hooks", "nested_shared", "state_dict_private",
    "bwd_replace_errors", "load_post_sub", "norm_reparam", "registration_paths",
    "hook_error_state", "low_precision_hooks", "grad_aliasing",
    "multi_out_hooks", "transformer_hooks",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


HOOK_CALLS = [
    "m.register_forward_hook(h, True)",
    "m.register_forward_hook()",
    "m.register_forward_hook(h, prepend=True, foo=1)",
    "m.register_forward_pre_hook(h, with_kwargs=True, always_call=True)",
    "m.register_full_backward_hook(h, True)",
    "m.register_full_backward_hook(h, with_kwargs=True)",
    "m.register_full_backward_pre_hook()",
    "m.register_backward_hook(h, prepend=True)",
    "m.register_state_dict_post_hook(h, h)",
    "m.register_load_state_dict_pre_hook(h, prepend=True)",
    "m._register_load_state_dict_pre_hook(h, True, 1)",
    "t.register_hook()",
    "t.register_hook(h, h)",
    "t.register_post_accumulate_grad_hook(h, h)",
    "x.register_hook(h)",
    "y.grad_fn.register_hook()",
    "y.grad_fn.register_hook(h, h)",
    "y.grad_fn.register_hook(fn=h)",
    "y.grad_fn.register_prehook()",
    "y.grad_fn.register_prehook(h, fn=h)",
    "acc.register_hook()",
    "acc.register_prehook(h, h)",
    "acc.register_prehook(fn=h)",
    "c.grad_fn.register_hook(h, h)",
    "c.grad_fn.register_prehook()",
    "c.grad_fn.register_prehook(fn=h)",
    "lib.autograd.graph.saved_tensors_hooks(h)",
    "lib.autograd.graph.disable_saved_tensors_hooks()",
    "mm.register_module_forward_hook(h, True)",
    "mm.register_module_full_backward_hook(h, prepend=True)",
]


def p_hook_calls(lib, rec):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    t = lib.ones(2, requires_grad=True)
    env = {
        "lib": lib,
        "m": lib.nn.Linear(2, 2),
        "t": t,
        "y": t * 2,
        "c": Double.apply(t),
        "acc": (t * 1).grad_fn.next_functions[0][0],
        "x": lib.ones(2),
        "h": lambda *a: None,
        "mm": lib.nn.modules.module,
    }
    run_calls(HOOK_CALLS, env, rec)


def test_hook_calls_match_torch():
    assert_calls_match(p_hook_calls, torch)


# --- helpers ---


def _mlp(lib, dt, seed=0, sizes=(4, 6, 5, 3)):
    lib.manual_seed(seed)
    nn = lib.nn
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers).to(dt)


def _cnn(lib, dt, seed=0):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(4, 3, 3, stride=2),
        nn.Tanh(),
        nn.Flatten(),
        nn.Linear(12, 2),
    ).to(dt)


def _shape(t):
    return None if t is None else tuple(t.shape)


def _lin(lib, dt, seed, i=3, o=2):
    lib.manual_seed(seed)
    return lib.nn.Linear(i, o).to(dt)


def _two(lib, dt, seed):
    """A module of two tensor inputs: l(a) * b."""
    nn = lib.nn

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(3, 3)

        def forward(self, a, b):
            return self.l(a) * b

    lib.manual_seed(seed)
    return Two().to(dt)


Out = collections.namedtuple("Out", ["logits", "feats"])


def _mod(lib, dt, kind):
    """A module whose forward returns a namedtuple, a list, a nested tuple or its input."""
    nn = lib.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(3, 2)

        def forward(self, x):
            y = self.l(x)
            if kind == "namedtuple":
                return Out(y, x * 2)
            if kind == "list":
                return [y, x * 2]
            if kind == "nested":
                return y, (x * 2, x * 3)
            if kind == "input":
                return x
            return y

    lib.manual_seed(1)
    return M().to(dt)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_feature_extract(lib, dt, rec):
    model = _cnn(lib, dt)
    x = _randn(lib, dt, 1, 2, 2, 5, 5)
    feats, order = {}, []
    handles = []
    for name, mod in model.named_modules():
        if name in ("0", "2", "4"):

            def hook(m, inp, out, name=name):
                order.append((name, type(m).__name__, len(inp), tuple(out.shape)))
                feats[name] = out.detach()

            handles.append(mod.register_forward_hook(hook))
    y = model(x)
    rec("y", y)
    for k in sorted(feats):
        rec("feat." + k, feats[k])
    rec("order", str(order))
    rec("detached", str([feats[k].requires_grad for k in sorted(feats)]))
    for h in handles:
        h.remove()
    order.clear()
    model(x)
    rec("after_remove", str(order))
    # hooks with prepend=True run before the ones already there
    calls = []
    lin = model[5]
    lin.register_forward_hook(lambda m, i, o: calls.append("a"))
    lin.register_forward_hook(lambda m, i, o: calls.append("b"), prepend=True)
    lin.register_forward_pre_hook(lambda m, i: calls.append("pa"))
    lin.register_forward_pre_hook(lambda m, i: calls.append("pb"), prepend=True)
    model(x)
    rec("prepend", str(calls))


def p_pre_replace(lib, dt, rec):
    lin = _mlp(lib, dt, 1, (3, 2))[0]
    x = _randn(lib, dt, 2, 4, 3)
    # a pre-hook returning one tensor: torch wraps it into a tuple
    h = lin.register_forward_pre_hook(lambda m, args: args[0] * 2.0)
    rec("single", lin(x))
    h.remove()
    h = lin.register_forward_pre_hook(lambda m, args: (args[0] + 1.0,))
    rec("tuple", lin(x))
    h.remove()
    # returning None keeps the input; two hooks chain
    seen = []
    lin.register_forward_pre_hook(lambda m, args: seen.append(_shape(args[0])))
    lin.register_forward_pre_hook(lambda m, args: (args[0].flip(0),))
    lin.register_forward_pre_hook(lambda m, args: seen.append(str(args[0][0, 0])))
    rec("chain", lin(x))
    rec("seen_len", len(seen))
    # a pruning-like input mask via a pre-hook on the whole Sequential
    model = _mlp(lib, dt, 2)
    mask = (_randn(lib, dt, 3, 4) > 0).to(dt)
    model.register_forward_pre_hook(lambda m, args: (args[0] * mask,))
    xx = _randn(lib, dt, 4, 5, 4).requires_grad_(True)
    out = model(xx)
    out.pow(2).sum().backward()
    rec("masked_out", out)
    rec("masked_grad", xx.grad)


def p_fwd_replace_kwargs(lib, dt, rec):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, mask=None, *, temperature=1.0):
            y = self.lin(x) / temperature
            if mask is not None:
                y = y.masked_fill(~mask, 0.0)
            return y

    lib.manual_seed(3)
    m = Block().to(dt)
    x = _randn(lib, dt, 5, 2, 3)
    mask = _randn(lib, dt, 6, 2, 3) > 0
    log = []

    def pre(mod, args, kwargs):
        log.append(("pre", len(args), sorted(kwargs)))
        kwargs = dict(kwargs)
        kwargs["temperature"] = 2.0
        return args, kwargs

    def post(mod, args, kwargs, out):
        log.append(("post", len(args), sorted(kwargs), kwargs.get("temperature")))
        return {"y": out, "norm": out.norm()}

    h1 = m.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = m.register_forward_hook(post, with_kwargs=True)
    out = m(x, mask=mask)
    rec("y", out["y"])
    rec("norm", out["norm"])
    out = m(x, mask, temperature=4.0)
    rec("y2", out["y"])
    rec("log", str(log))
    h1.remove()
    h2.remove()
    # a kwargs pre-hook that returns a bare tuple of args
    h = m.register_forward_pre_hook(lambda mod, a, k: (a, k, 1), with_kwargs=True)
    rec.err("bad3", lambda: m(x))
    h.remove()
    h = m.register_forward_pre_hook(lambda mod, a, k: (x * 2,), with_kwargs=True)
    rec.err("bad1", lambda: m(x))
    h.remove()
    rec("plain", m(x, temperature=0.5))


def p_always_call_chain(lib, dt, rec):
    nn = lib.nn

    class Flaky(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            if x.sum() > 0:
                raise ValueError("positive input")
            return self.lin(x)

    lib.manual_seed(4)
    m = Flaky().to(dt)
    log = []
    m.register_forward_pre_hook(lambda mod, a: log.append("pre"))
    m.register_forward_hook(lambda mod, a, o: log.append(("plain", o is None)))
    m.register_forward_hook(lambda mod, a, o: log.append(("always", o is None)), always_call=True)
    m.register_forward_hook(
        lambda mod, a, k, o: log.append(("always_kw", sorted(k))),
        with_kwargs=True,
        always_call=True,
    )
    x = -_randn(lib, dt, 7, 3, 2).abs()
    rec("ok", m(x))
    rec("log_ok", str(log))
    log.clear()
    rec.err("raise", lambda: m(-x))
    rec("log_raise", str(log))
    log.clear()

    # a pre-hook that raises: the always_call hooks run too
    def bad_pre(mod, a):
        raise RuntimeError("pre failed")

    h = m.register_forward_pre_hook(bad_pre)
    rec.err("pre_raise", lambda: m(x))
    rec("log_pre_raise", str(log))
    h.remove()
    log.clear()
    # a global always_call hook
    g = nn.modules.module.register_module_forward_hook(
        lambda mod, a, o: log.append(("global", type(mod).__name__, o is None)), always_call=True
    )
    try:
        rec.err("raise_global", lambda: m(-x))
    finally:
        g.remove()
    rec("log_global", str(log))


def p_tuple_dict_outputs(lib, dt, rec):
    nn = lib.nn

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 2)
            self.b = nn.Linear(3, 4)

        def forward(self, x):
            return self.a(x), self.b(x)

    class Dict(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 2)

        def forward(self, x):
            return {"logits": self.a(x), "aux": x.sum()}

    lib.manual_seed(5)
    two = Two().to(dt)
    x = _randn(lib, dt, 8, 4, 3).requires_grad_(True)
    log = []

    def fh(m, inp, out):
        log.append(("fwd", type(out).__name__, [tuple(o.shape) for o in out]))
        return out[0] * 2.0, out[1]

    def bh(m, gin, gout):
        log.append(("bwd", [_shape(g) for g in gin], [_shape(g) for g in gout]))
        rec("two.gout0", gout[0])
        rec("two.gout1", gout[1])

    two.register_forward_hook(fh)
    two.register_full_backward_hook(bh)
    a, b = two(x)
    (a.pow(2).sum() + b.sin().sum()).backward()
    rec("two.gx", x.grad)
    rec("two.grad_fn", type(a.grad_fn).__name__)
    # only one output used
    x.grad = None
    a, b = two(x)
    b.sum().backward()
    rec("two.gx2", x.grad)
    rec("two.log", str(log))
    log.clear()
    d = Dict().to(dt)

    def dict_bh(m, gin, gout):
        log.append("dict bwd")

    d.register_full_backward_hook(dict_bh)
    out = rec.warns("dict.warn", lambda: d(x))
    out["logits"].sum().backward()
    rec("dict.log", str(log))
    rec("dict.grad_fn", type(out["logits"].grad_fn).__name__)


def p_grad_surgery(lib, dt, rec):
    model = _mlp(lib, dt, 6)
    x = _randn(lib, dt, 9, 5, 4).requires_grad_(True)
    t = _randn(lib, dt, 10, 5, 3)
    log = []

    def clip_hook(m, gin, gout):
        log.append((type(m).__name__, [_shape(g) for g in gin], [_shape(g) for g in gout]))
        return tuple(None if g is None else g.clamp(-0.05, 0.05) for g in gin)

    def scale_hook(m, gin, gout):
        log.append(("scale", len(gin)))
        return (gin[0] * 3.0,)

    hs = [model[0].register_full_backward_hook(clip_hook)]
    hs.append(model[1].register_full_backward_hook(scale_hook))
    hs.append(model[4].register_full_backward_hook(clip_hook))
    loss = lib.nn.functional.mse_loss(model(x), t)
    loss.backward()
    rec("loss", loss)
    rec("gx", x.grad)
    for n, p in model.named_parameters():
        rec("g." + n, p.grad)
    rec("log", str(log))
    for h in hs:
        h.remove()
    # PCGrad-like projection of two task gradients, done via tensor hooks on the shared output
    model.zero_grad()
    feats = model[:3](x.detach())
    g_store = {}
    h = feats.register_hook(lambda g: g_store.setdefault("g1", g.clone()))
    feats.sum().backward(retain_graph=True)
    h.remove()
    g1 = g_store["g1"]

    def project(g):
        dot = (g * g1).sum()
        return g - (dot.clamp(max=0.0) / g1.pow(2).sum()) * g1

    feats.register_hook(project)
    (-feats.pow(2)).sum().backward()
    for n, p in model.named_parameters():
        rec("pc." + n, p.grad)


def p_bwd_pre_replace(lib, dt, rec):
    model = _mlp(lib, dt, 7)
    x = _randn(lib, dt, 11, 3, 4).requires_grad_(True)
    log = []

    def pre(m, gout):
        log.append(("pre", type(m).__name__, [_shape(g) for g in gout]))
        return (gout[0] * 0.5,)

    def full(m, gin, gout):
        log.append(("full", type(m).__name__, [_shape(g) for g in gin]))

    model[2].register_full_backward_pre_hook(pre)
    model[2].register_full_backward_hook(full)
    model[0].register_full_backward_hook(full)
    model.register_full_backward_pre_hook(lambda m, g: log.append(("seq_pre", len(g))))
    model.register_full_backward_pre_hook(
        lambda m, g: log.append(("seq_pre_first", len(g))), prepend=True
    )
    model(x).sum().backward()
    rec("gx", x.grad)
    rec("log", str(log))
    for n, p in model.named_parameters():
        rec("g." + n, p.grad)
    # a pre-hook returning the wrong count / a bare tensor
    lin = _mlp(lib, dt, 8, (3, 2))[0]
    xi = _randn(lib, dt, 12, 2, 3).requires_grad_(True)
    h = lin.register_full_backward_pre_hook(lambda m, g: (g[0], g[0]))
    rec.err("two", lambda: lin(xi).sum().backward())
    h.remove()
    h = lin.register_full_backward_pre_hook(lambda m, g: g[0] * 2)
    rec.err("bare", lambda: lin(xi).sum().backward())
    rec("bare.gx", xi.grad if xi.grad is not None else lib.zeros(1))
    h.remove()


def p_mixing_errors(lib, dt, rec):
    lin = _mlp(lib, dt, 9, (3, 2))[0]
    lin.register_full_backward_hook(lambda m, gi, go: None)
    rec.err("old_after_full", lambda: lin.register_backward_hook(lambda m, gi, go: None))
    lin2 = _mlp(lib, dt, 9, (3, 2))[0]
    lin2.register_backward_hook(lambda m, gi, go: None)
    rec.err("full_after_old", lambda: lin2.register_full_backward_hook(lambda m, gi, go: None))
    rec.err("pre_after_old", lambda: lin2.register_full_backward_pre_hook(lambda m, go: None))
    x = _randn(lib, dt, 13, 2, 3).requires_grad_(True)
    # non-full hooks on a module of several nodes warn
    model = _mlp(lib, dt, 10, (3, 4, 2))
    seen = []
    model.register_backward_hook(lambda m, gi, go: seen.append(len(gi)))
    out = model(x)
    rec.warns("old_multi_node", lambda: out.sum().backward())
    rec("seen", str(seen))
    # the global full backward hook mixed with a module's old-style hook
    g = lib.nn.modules.module.register_module_full_backward_hook(lambda m, gi, go: None)
    try:
        rec.err("global_with_old", lambda: lin2(x).sum().backward())
    finally:
        g.remove()


def p_inplace_bwd_hook(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 2)).to(dt)
    model[0].register_full_backward_hook(lambda m, gi, go: None)
    x = _randn(lib, dt, 14, 2, 3).requires_grad_(True)
    rec.err("relu_inplace", lambda: model(x))
    # a forward hook that modifies the output in place is fine without backward hooks
    lib.manual_seed(11)
    m2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 2)).to(dt)
    out = m2(x)
    out.sum().backward()
    rec("gx", x.grad)
    # a full backward hook on the in-place module itself
    lib.manual_seed(11)
    m3 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 2)).to(dt)
    m3[1].register_full_backward_hook(lambda m, gi, go: None)
    rec.err("hook_on_inplace", lambda: m3(x))


def p_global_hooks(lib, dt, rec):
    mm = lib.nn.modules.module
    model = _mlp(lib, dt, 12)
    x = _randn(lib, dt, 15, 2, 4).requires_grad_(True)
    log = []
    handles = []
    try:
        handles.append(
            mm.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__)))
        )
        handles.append(
            mm.register_module_forward_hook(lambda m, a, o: log.append(("gfwd", type(m).__name__)))
        )
        handles.append(
            mm.register_module_full_backward_hook(
                lambda m, gi, go: log.append(("gbwd", type(m).__name__, [_shape(g) for g in gi]))
            )
        )
        handles.append(
            mm.register_module_full_backward_pre_hook(
                lambda m, go: log.append(("gbpre", type(m).__name__))
            )
        )
        handles.append(model[0].register_forward_hook(lambda m, a, o: log.append("local_fwd")))
        handles.append(model[0].register_forward_pre_hook(lambda m, a: log.append("local_pre")))
        handles.append(
            model[0].register_full_backward_hook(lambda m, gi, go: log.append("local_bwd"))
        )
        out = model(x)
        out.sum().backward()
        rec("gx", x.grad)
        rec("log", str(log))
        log.clear()
        # a global forward hook that replaces every Tanh output
        handles.append(
            mm.register_module_forward_hook(
                lambda m, a, o: o * 0.5 if isinstance(m, lib.nn.Tanh) else None
            )
        )
        rec("halved", model(x))
    finally:
        for h in handles:
            h.remove()
    log.clear()
    rec("clean", model(x))
    rec("log_clean", str(log))


def _logging_registration_hooks(mm, log, handles: list) -> None:
    """Global parameter, buffer and module registration hooks that append what they see to
    `log`; each handle joins `handles` as soon as it exists (the caller removes them)."""
    handles.append(
        mm.register_module_parameter_registration_hook(
            lambda m, n, p: log.append(("param", type(m).__name__, n, _shape(p)))
        )
    )
    handles.append(
        mm.register_module_buffer_registration_hook(
            lambda m, n, b: log.append(("buffer", type(m).__name__, n, _shape(b)))
        )
    )
    handles.append(
        mm.register_module_module_registration_hook(
            lambda m, n, s: log.append(("module", type(m).__name__, n, type(s).__name__))
        )
    )


def p_registration_hooks(lib, dt, rec):
    mm = lib.nn.modules.module
    nn = lib.nn
    log = []
    hs = []
    try:
        _logging_registration_hooks(mm, log, hs)
        lib.manual_seed(13)
        model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).to(dt)
        model.extra = nn.Identity()
        model.register_buffer("scale", lib.ones(3, dtype=dt))
        model.register_parameter("bias_extra", None)
        rec("log", str(log))
        log.clear()

        # a parameter hook that replaces the parameter (e.g. a frozen copy)
        def freeze(m, n, p):
            if p is not None:
                return nn.Parameter(p.detach().clone(), requires_grad=False)

        hs.append(mm.register_module_parameter_registration_hook(freeze))
        lin = nn.Linear(2, 2)
        rec("frozen", str([p.requires_grad for p in lin.parameters()]))

        def buf_double(m, n, b):
            return b * 2 if b is not None else None

        hs.append(mm.register_module_buffer_registration_hook(buf_double))
        m = nn.Module()
        m.register_buffer("b", lib.arange(3, dtype=dt))
        rec("buf", m.b)
        rec("log2", str(log))
    finally:
        for h in hs:
            h.remove()
    log.clear()
    nn.Linear(2, 2)
    rec("after", str(log))


def p_state_dict_hooks(lib, dt, rec):
    model = _mlp(lib, dt, 14, (3, 4, 2))
    log = []

    def pre(module, prefix, keep_vars):
        log.append(("pre", type(module).__name__, prefix, keep_vars))

    def post(module, state_dict, prefix, local_metadata):
        log.append(("post", type(module).__name__, prefix, sorted(state_dict)))
        # export in half the size: drop the biases of this module
        for k in list(state_dict):
            if k.startswith(prefix) and k.endswith("bias"):
                del state_dict[k]

    model.register_state_dict_pre_hook(pre)
    model[0].register_state_dict_pre_hook(pre)
    model[2].register_state_dict_post_hook(post)
    sd = model.state_dict()
    rec("keys", str(list(sd)))
    rec("log", str(log))
    for k, v in sd.items():
        rec("sd." + k, v)
    log.clear()
    model.state_dict(prefix="net.", keep_vars=True)
    rec("log2", str(log))

    # a post hook that returns a value
    def post_ret(module, state_dict, prefix, local_metadata):
        return {}

    m = _mlp(lib, dt, 14, (3, 2))
    m.register_state_dict_post_hook(post_ret)
    rec.err("post_returns", lambda: m.state_dict())


def p_load_hooks(lib, dt, rec):
    src = _mlp(lib, dt, 15, (3, 4, 2))
    sd = {"module." + k: v for k, v in src.state_dict().items()}
    dst = _mlp(lib, dt, 16, (3, 4, 2))
    log = []

    # strip a DataParallel prefix in a load pre-hook (the common checkpoint fix)
    def strip(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        log.append(("pre", type(module).__name__, prefix, strict))
        for k in list(state_dict):
            if k.startswith(prefix + "module."):
                state_dict[prefix + k[len(prefix) + len("module.") :]] = state_dict.pop(k)

    def post(module, incompatible):
        log.append(
            ("post", sorted(incompatible.missing_keys), sorted(incompatible.unexpected_keys))
        )

    dst.register_load_state_dict_pre_hook(strip)
    dst.register_load_state_dict_post_hook(post)
    res = dst.load_state_dict(dict(sd))
    rec("res", str(res))
    rec("log", str(log))
    for k, v in dst.state_dict().items():
        rec("dst." + k, v)
    log.clear()

    # a post hook that forgives missing biases (editing incompatible keys)
    dst2 = _mlp(lib, dt, 17, (3, 4, 2))

    def forgive(module, incompatible):
        for k in list(incompatible.missing_keys):
            if k.endswith("bias"):
                incompatible.missing_keys.remove(k)

    dst2.register_load_state_dict_post_hook(forgive)
    partial = {k: v for k, v in src.state_dict().items() if k.endswith("weight")}
    rec("forgiven", str(dst2.load_state_dict(partial)))
    partial["2.extra"] = lib.zeros(1)
    rec.err("unexpected", lambda: dst2.load_state_dict(partial))

    # a post hook adding an error message in the submodule's hook... via error_msgs
    dst3 = _mlp(lib, dt, 18, (3, 2))

    def veto(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        errors.append("vetoed by hook")

    dst3[0].register_load_state_dict_pre_hook(veto)
    rec.err("veto", lambda: dst3.load_state_dict(_mlp(lib, dt, 19, (3, 2)).state_dict()))
    rec.err("veto_nonstrict", lambda: dst3.load_state_dict({}, strict=False))

    # a post hook that returns something
    dst4 = _mlp(lib, dt, 20, (3, 2))
    dst4.register_load_state_dict_post_hook(lambda m, inc: 1)
    rec.err("post_returns", lambda: dst4.load_state_dict(dst4.state_dict()))


def p_prune_masks(lib, dt, rec):
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    model = _mlp(lib, dt, 21, (4, 6, 3))
    x = _randn(lib, dt, 22, 5, 4)
    # a mask from the random weights: magnitudes have no ties
    prune.l1_unstructured(model[0], name="weight", amount=0.4)
    rec("mask0", model[0].weight_mask)
    rec("hooks0", str([type(h).__name__ for h in model[0]._forward_pre_hooks.values()]))
    rec("names0", str(sorted(n for n, _ in model[0].named_parameters())))
    rec("bufs0", str(sorted(n for n, _ in model[0].named_buffers())))
    out = model(x)
    out.sum().backward()
    rec("out", out)
    rec("g_orig", model[0].weight_orig.grad)
    # a custom mask through a forward pre-hook, like research code without prune
    mask = (model[2].weight.detach().abs() > 0.2).to(dt)

    def apply_mask(m, a):
        m.weight.data.mul_(mask)

    h = model[2].register_forward_pre_hook(apply_mask)
    out2 = model(x)
    rec("out2", out2)
    rec("w2", model[2].weight)
    h.remove()
    prune.custom_from_mask(model[2], "bias", mask=lib.tensor([1.0, 0.0, 1.0], dtype=dt))
    rec("bias_masked", model[2].bias)
    prune.remove(model[0], "weight")
    rec("after_remove", str(sorted(n for n, _ in model[0].named_parameters())))
    rec("w0", model[0].weight)
    rec("hooks_after", len(model[0]._forward_pre_hooks))


def p_tensor_hooks(lib, dt, rec):
    w = _randn(lib, dt, 23, 3, 3).requires_grad_(True)
    x = _randn(lib, dt, 24, 3)
    log = []
    h1 = w.register_hook(lambda g: log.append(("leaf1", g.sum().item() != 0)))
    w.register_hook(lambda g: g * 2.0)
    w.register_hook(lambda g: log.append(("leaf3_sees_doubled", True)))
    y = w @ x
    z = y.tanh()
    holder = {}

    def nl1(g):
        log.append("nl1")
        holder["h"].remove()  # removing the next hook from inside a hook
        return g + 1.0

    hy1 = y.register_hook(nl1)
    holder["h"] = y.register_hook(lambda g: log.append("nl2 (removed)") or g * 100)
    y.register_hook(lambda g: log.append("nl3"))
    z.sum().backward(retain_graph=True)
    rec("w.grad", w.grad)
    rec("log", str(log))
    log.clear()
    h1.remove()
    hy1.remove()
    w.grad = None
    z.sum().backward()
    rec("w.grad2", w.grad)
    rec("log2", str(log))
    # a hook on a non-leaf sees the gradient before retain_grad stores it? (retain_grad order)
    a = _randn(lib, dt, 25, 4).requires_grad_(True)
    b = a * 3
    b.retain_grad()
    b.register_hook(lambda g: g * 10)
    b.sum().backward()
    rec("b.grad", b.grad)
    rec("a.grad", a.grad)
    c = a * 3
    c.register_hook(lambda g: g * 10)
    c.retain_grad()
    c.sum().backward()
    rec("c.grad", c.grad)
    # hook errors
    rec.err("no_grad_tensor", lambda: x.register_hook(lambda g: g))
    d = a.exp()
    d.register_hook(lambda g: g[:2])
    rec.err("bad_shape", lambda: d.sum().backward())
    e = a.exp()
    e.register_hook(lambda g: g.to(lib.int64))
    rec.err("bad_dtype", lambda: e.sum().backward())


def p_post_accumulate(lib, dt, rec):
    model = _mlp(lib, dt, 26)
    x = _randn(lib, dt, 27, 6, 4)
    t = _randn(lib, dt, 28, 6, 3)
    opts = {p: lib.optim.SGD([p], lr=0.1, momentum=0.9) for p in model.parameters()}
    order = []
    names = {id(p): n for n, p in model.named_parameters()}

    def step(p):
        order.append(names[id(p)])
        opts[p].step()
        opts[p].zero_grad()

    hs = [p.register_post_accumulate_grad_hook(step) for p in model.parameters()]
    for _ in range(3):
        loss = lib.nn.functional.mse_loss(model(x), t)
        loss.backward()
        rec("loss", loss)
    rec("order", str(order))
    for n, p in model.named_parameters():
        rec("p." + n, p)
        rec("grad_none." + n, p.grad is None)
    for h in hs:
        h.remove()
    # errors: a non-leaf, a tensor that needs no grad
    y = model(x)
    rec.err("nonleaf", lambda: y.register_post_accumulate_grad_hook(lambda t: None))
    rec.err("nograd", lambda: x.register_post_accumulate_grad_hook(lambda t: None))


def p_node_hooks(lib, dt, rec):
    a = _randn(lib, dt, 29, 3, 4).requires_grad_(True)
    b = _randn(lib, dt, 30, 4, 2).requires_grad_(True)
    y = a @ b
    z = y.relu().sum()
    log = []
    node = y.grad_fn

    def post(grad_inputs, grad_outputs):
        log.append(("post", [_shape(g) for g in grad_inputs], [_shape(g) for g in grad_outputs]))
        return tuple(None if g is None else g * 2 for g in grad_inputs)

    def pre(grad_outputs):
        log.append(("pre", [_shape(g) for g in grad_outputs]))
        return (grad_outputs[0] + 1.0,)

    h1 = node.register_hook(post)
    h2 = node.register_prehook(pre)
    rec("name", node.name())
    rec("next", str([type(n).__name__ if n else None for n, _ in node.next_functions]))
    z.backward(retain_graph=True)
    rec("ga", a.grad)
    rec("gb", b.grad)
    rec("log", str(log))
    h1.remove()
    h2.remove()
    a.grad = b.grad = None
    z.backward()
    rec("ga2", a.grad)
    # accumulate-grad node hooks via a view's grad_fn.next_functions
    w = _randn(lib, dt, 31, 3).requires_grad_(True)
    acc = (w * 1).grad_fn.next_functions[0][0]
    rec("acc_name", acc.name())
    acc.register_prehook(lambda g: (g[0] * 0.0 + 7.0,))
    (w * 2).sum().backward()
    rec("w.grad", w.grad)


def p_offload(lib, dt, rec):
    model = _mlp(lib, dt, 32)
    x = _randn(lib, dt, 33, 4, 4).requires_grad_(True)
    stats = {"pack": 0, "unpack": 0}
    store = {}

    def pack(t):
        stats["pack"] += 1
        key = len(store)
        store[key] = t.detach().clone()  # "offloaded" copy
        return key

    def unpack(key):
        stats["unpack"] += 1
        return store[key]

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = model(x)
    rec("packed_some", stats["pack"] > 0)
    out.pow(2).sum().backward()
    rec("unpacked_all", stats["unpack"] == stats["pack"])
    rec("gx", x.grad)
    for n, p in model.named_parameters():
        rec("g." + n, p.grad)
    # the same model without hooks gives the same gradients
    x2 = x.detach().clone().requires_grad_(True)
    model.zero_grad()
    model(x2).pow(2).sum().backward()
    rec("gx_plain", x2.grad)
    # quantising pack hooks (lossy): float32 -> float16 -> back
    with lib.autograd.graph.saved_tensors_hooks(
        lambda t: (t.dtype, t.to(lib.float16)), lambda p: p[1].to(p[0])
    ):
        y = (x2 * x2).sum()
    x2.grad = None
    y.backward()
    rec("gx_lossy", x2.grad)
    # save_on_cpu on the CPU is a no-op copy
    x2.grad = None
    with lib.autograd.graph.save_on_cpu():
        y = x2.sin().sum()
    y.backward()
    rec("gx_cpu", x2.grad)


def p_pack_errors(lib, dt, rec):
    x = _randn(lib, dt, 34, 3).requires_grad_(True)
    # unpack returns something that is not a tensor
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: "nope"):
        y = (x * x).sum()
    rec.err("unpack_str", lambda: y.backward())
    # unpack returning a tensor of another shape
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p[:1]):
        y = x.exp().sum()
    rec.err("unpack_shape", lambda: y.backward())
    # pack hook modifying its argument in place
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda p: p):
        rec.err("pack_inplace", lambda: (x.detach().requires_grad_(True) * 2).exp())
    # hooks disabled
    with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        rec.err(
            "disabled",
            lambda: lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda p: p).__enter__(),
        )
    # backward twice with hooks: unpack runs again after retain_graph, else the error
    n = {"u": 0}

    def unpack(p):
        n["u"] += 1
        return p

    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = (x.sin() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    rec("unpacks", n["u"])
    rec.err("third", lambda: y.backward())
    rec("x.grad", x.grad)


def p_no_grad_hooks(lib, dt, rec):
    model = _mlp(lib, dt, 35, (3, 4, 2))
    log = []
    model[0].register_full_backward_hook(lambda m, gi, go: log.append("bwd"))
    model[0].register_forward_hook(lambda m, a, o: log.append(("fwd", o.requires_grad)))
    x = _randn(lib, dt, 36, 2, 3)
    with lib.no_grad():
        out = model(x)
    rec("out", out)
    rec("req", out.requires_grad)
    rec("log", str(log))
    log.clear()
    with lib.inference_mode():
        out2 = model(x)
    rec("out_inf", out2)
    rec("log_inf", str(log))
    log.clear()
    # inputs need no grad but parameters do: grad_input is (None,)
    gin = []
    model[2].register_full_backward_hook(lambda m, gi, go: gin.append(str(gi)))
    model[0].register_full_backward_hook(lambda m, gi, go: gin.append(str(gi)))
    model(x).sum().backward()
    rec("gin", str(gin))
    rec("log_bwd", str(log))
    # a tensor hook registered under no_grad on a tensor that requires grad works
    w = _randn(lib, dt, 37, 2).requires_grad_(True)
    with lib.no_grad():
        w.register_hook(lambda g: g * 5)
    (w * w).sum().backward()
    rec("w.grad", w.grad)
    # a hook that runs under no_grad during backward (create_graph False)
    flags = []
    v = w * 2
    v.register_hook(lambda g: flags.append(lib.is_grad_enabled()))
    v.sum().backward()
    v2 = w * 2
    v2.register_hook(lambda g: flags.append(lib.is_grad_enabled()))
    v2.sum().backward(create_graph=True)
    rec("flags", str(flags))


def p_retain_twice(lib, dt, rec):
    model = _mlp(lib, dt, 38)
    x = _randn(lib, dt, 39, 3, 4).requires_grad_(True)
    log = []
    model[0].register_full_backward_hook(lambda m, gi, go: log.append(("m0", _shape(gi[0]))))
    model[2].register_full_backward_pre_hook(lambda m, go: log.append("m2pre"))
    out = model(x)
    h = out.register_hook(lambda g: log.append("out") or g * 0.5)
    loss = out.pow(2).sum()
    loss.backward(retain_graph=True)
    rec("gx1", x.grad)
    loss.backward(retain_graph=True)
    rec("gx2", x.grad)
    h.remove()
    loss.backward()
    rec("gx3", x.grad)
    rec("log", str(log))
    rec.err("fourth", lambda: loss.backward())
    # autograd.grad through module hooks
    log.clear()
    out = model(x)
    (g,) = lib.autograd.grad(out.sum(), x, retain_graph=True)
    rec("grad", g)
    (g2,) = lib.autograd.grad(out.sum(), x)
    rec("grad2", g2)
    rec("log_grad", str(log))


def p_logging_stats(lib, dt, rec):
    model = _cnn(lib, dt, 40)
    x = _randn(lib, dt, 41, 3, 2, 5, 5)
    t = lib.tensor([0, 1, 1])
    stats = []
    grad_norms = {}
    handles = []
    for name, mod in model.named_modules():
        if isinstance(mod, (lib.nn.ReLU, lib.nn.Tanh)):

            def hook(m, inp, out, name=name):
                stats.append((name, out.detach().mean(), (out.detach() == 0).to(dt).mean()))

            handles.append(mod.register_forward_hook(hook))
    for name, p in model.named_parameters():

        def ghook(g, name=name):
            grad_norms[name] = g.norm()

        handles.append(p.register_hook(ghook))
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(2):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), t)
        loss.backward()
        opt.step()
        rec("loss", loss)
    for name, mean, frac in stats:
        rec("act." + name, mean)
        rec("dead." + name, frac)
    for name in sorted(grad_norms):
        rec("gn." + name, grad_norms[name])
    for h in handles:
        h.remove()
    rec("n_hooks", sum(len(m._forward_hooks) for m in model.modules()))


def p_bwd_hook_errors(lib, dt, rec):
    lin = _mlp(lib, dt, 42, (3, 2))[0]
    x = _randn(lib, dt, 43, 2, 3).requires_grad_(True)
    h = lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    rec.err("count", lambda: lin(x).sum().backward())
    h.remove()
    h = lin.register_full_backward_hook(lambda m, gi, go: (gi[0][:1],))
    rec.err("shape", lambda: lin(x).sum().backward())
    h.remove()
    h = lin.register_full_backward_hook(lambda m, gi, go: gi[0])
    rec.err("bare", lambda: lin(x).sum().backward())
    h.remove()

    # a hook that raises
    def boom(m, gi, go):
        raise ValueError("boom in hook")

    h = lin.register_full_backward_hook(boom)
    rec.err("raises", lambda: lin(x).sum().backward())
    h.remove()
    # forward hook that raises
    h = lin.register_forward_hook(lambda m, a, o: 1 / 0)
    rec.err("fwd_raises", lambda: lin(x))
    h.remove()
    # a module called twice: the hook fires twice
    n = []
    lin.register_full_backward_hook(lambda m, gi, go: n.append(_shape(go[0])))
    (lin(x) + lin(x * 2)).sum().backward()
    rec("twice", str(n))


def p_context_handles(lib, dt, rec):
    model = _mlp(lib, dt, 44)
    x = _randn(lib, dt, 45, 2, 4)
    log = []
    with (
        model[0].register_forward_hook(lambda m, a, o: log.append("f")),
        model[0].register_forward_pre_hook(lambda m, a: log.append("p")),
    ):
        model(x)
    model(x)
    rec("log", str(log))
    w = _randn(lib, dt, 46, 3).requires_grad_(True)
    with w.register_hook(lambda g: g * 3):
        (w * w).sum().backward()
    rec("g1", w.grad)
    w.grad = None
    (w * w).sum().backward()
    rec("g2", w.grad)
    # handle id and removal of an already removed handle
    h = model.register_forward_hook(lambda m, a, o: None)
    rec("in_dict", h.id in model._forward_hooks)
    h.remove()
    h.remove()
    rec("gone", h.id in model._forward_hooks)
    # with_kwargs flags are cleaned up with the handle
    h = model.register_forward_hook(lambda m, a, k, o: None, with_kwargs=True)
    rec("kw_in", h.id in model._forward_hooks_with_kwargs)
    h.remove()
    rec("kw_gone", h.id in model._forward_hooks_with_kwargs)
    h = model.register_forward_hook(lambda m, a, o: None, always_call=True)
    rec("ac_in", h.id in model._forward_hooks_always_called)
    h.remove()
    rec("ac_gone", h.id in model._forward_hooks_always_called)


def p_grad_reversal(lib, dt, rec):
    # domain-adversarial training: a gradient reversal done by a full backward hook on a head
    nn = lib.nn
    lib.manual_seed(47)
    feat = nn.Sequential(nn.Linear(4, 5), nn.Tanh()).to(dt)
    head = nn.Linear(5, 2).to(dt)
    dom = nn.Sequential(nn.Identity(), nn.Linear(5, 2)).to(dt)
    lam = 0.3
    dom[0].register_full_backward_hook(lambda m, gi, go: (-lam * gi[0],))
    x = _randn(lib, dt, 48, 6, 4)
    y = lib.tensor([0, 1, 0, 1, 1, 0])
    d = lib.tensor([1, 1, 1, 0, 0, 0])
    params = list(feat.parameters()) + list(head.parameters()) + list(dom.parameters())
    opt = lib.optim.SGD(params, lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        f = feat(x)
        ce = nn.functional.cross_entropy
        loss = ce(head(f), y) + ce(dom(f), d)
        loss.backward()
        rec("loss", loss)
        rec("g.feat0", feat[0].weight.grad)
        opt.step()
    for n, p in feat.named_parameters():
        rec("p." + n, p)


def _hook_added_in_hook(lib, dt, rec):
    lin = _lin(lib, dt, 1)
    x = _randn(lib, dt, 2, 2, 3)
    log = []

    def pre(m, a):
        log.append("pre")
        if len(log) < 2:
            m.register_forward_hook(lambda m, a, o: log.append("added_fwd"))
            m.register_forward_pre_hook(lambda m, a: log.append("added_pre"))

    lin.register_forward_pre_hook(pre)
    lin(x)
    rec("log1", str(log))
    lin(x)
    rec("log2", str(log))


def _remove_in_fwd_hook(lib, dt, rec):
    lin = _lin(lib, dt, 1)
    x = _randn(lib, dt, 2, 2, 3)
    log = []
    hs = {}

    def a(m, i, o):
        log.append("a")
        hs["b"].remove()

    hs["a"] = lin.register_forward_hook(a)
    hs["b"] = lin.register_forward_hook(lambda m, i, o: log.append("b"))
    lin(x)
    lin(x)
    rec("log", str(log))
    log.clear()

    def pa(m, i):
        log.append("pa")
        hs["pb"].remove()

    lin.register_forward_pre_hook(pa)
    hs["pb"] = lin.register_forward_pre_hook(lambda m, i: log.append("pb"))
    lin(x)
    lin(x)
    rec("log_pre", str(log))


def _bwd_hook_registered_late(lib, dt, rec):
    lin = _lin(lib, dt, 3)
    x = _randn(lib, dt, 4, 2, 3).requires_grad_(True)
    log = []
    h0 = lin.register_full_backward_hook(lambda m, gi, go: log.append("h0"))
    out = lin(x)
    h1 = lin.register_full_backward_hook(lambda m, gi, go: log.append("h1 (late)"))
    h0.remove()
    out.sum().backward()
    rec("log", str(log))
    log.clear()
    h1.remove()
    out = lin(x)
    lin.register_full_backward_hook(lambda m, gi, go: log.append("h2 (late, none at fwd)"))
    out.sum().backward()
    rec("log2", str(log))


def p_hooks_edited_midway(lib, dt, rec):
    _hook_added_in_hook(lib, dt, rec)
    _remove_in_fwd_hook(lib, dt, rec)
    _bwd_hook_registered_late(lib, dt, rec)


def p_old_style(lib, dt, rec):
    lin = _lin(lib, dt, 5)
    x = _randn(lib, dt, 6, 2, 3).requires_grad_(True)
    got = []

    def h(m, gi, go):
        got.append(([_shape(g) for g in gi], [_shape(g) for g in go]))
        for i, g in enumerate(gi):
            if g is not None:
                rec(f"gi{i}", g)

    lin.register_backward_hook(h)
    out = rec.warns("fwd", lambda: lin(x))
    rec("gf", type(out.grad_fn).__name__)
    rec.warns("bwd", lambda: out.sum().backward())
    rec("got", str(got))
    # old-style on a single-op module
    r = lib.nn.Tanh()
    got.clear()
    r.register_backward_hook(
        lambda m, gi, go: got.append(([_shape(g) for g in gi], [_shape(g) for g in go]))
    )
    y = x.detach().requires_grad_(True)
    rec.warns("bwd_tanh", lambda: r(y).sum().backward())
    rec("got_tanh", str(got))
    # old style replacing grad
    r2 = lib.nn.Tanh()
    r2.register_backward_hook(lambda m, gi, go: (gi[0] * 0 + 1,))
    y.grad = None
    r2(y).sum().backward()
    rec("y.grad", y.grad)


def _output_kinds(lib, dt, rec):
    for kind in ("namedtuple", "list", "nested", "input"):
        m = _mod(lib, dt, kind)
        log = []
        m.register_full_backward_hook(
            lambda mod, gi, go, log=log: log.append(
                ([_shape(g) for g in gi], [type(g).__name__ for g in go])
            )
        )
        x = _randn(lib, dt, 2, 2, 3).requires_grad_(True)
        out = rec.warns(kind + ".warn", lambda m=m, x=x: m(x))
        rec(kind + ".type", type(out).__name__)
        first = out[0] if kind != "input" else out
        rec(kind + ".gf", type(first.grad_fn).__name__)
        first.sum().backward()
        rec(kind + ".log", str(log))
        rec(kind + ".gx", x.grad)


def _tuple_nontensor_out(lib, dt, rec):
    nn = lib.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(3, 2)

        def forward(self, x):
            o = self.l(x)
            return o, None, 3, o.detach()

    lib.manual_seed(10)
    m = M().to(dt)
    x = _randn(lib, dt, 11, 2, 3).requires_grad_(True)
    got = []

    def h(m, gi, go):
        got.append(([_shape(g) for g in gi], [_shape(g) for g in go]))

    m.register_full_backward_hook(h)
    m.register_full_backward_pre_hook(lambda m, go: got.append(("pre", [_shape(g) for g in go])))
    out = m(x)
    rec("types", str([type(o).__name__ for o in out]))
    rec("rg", str([getattr(o, "requires_grad", None) for o in out]))
    out[0].sum().backward()
    rec("got", str(got))
    rec("gx", x.grad)


def _kwargs_tensor_inputs(lib, dt, rec):
    # tensors passed by keyword are not module inputs for full backward hooks
    nn = lib.nn

    class M(nn.Module):
        def forward(self, x, *, w):
            return x * w

    m = M()
    log = []
    m.register_full_backward_hook(lambda mod, gi, go: log.append([_shape(g) for g in gi]))
    x = _randn(lib, dt, 3, 2).requires_grad_(True)
    w = _randn(lib, dt, 4, 2).requires_grad_(True)
    m(x, w=w).sum().backward()
    m(x=x, w=w).sum().backward()
    rec("log", str(log))
    rec("gx", x.grad)
    rec("gw", w.grad)


def p_module_io_kinds(lib, dt, rec):
    _output_kinds(lib, dt, rec)
    _tuple_nontensor_out(lib, dt, rec)
    _kwargs_tensor_inputs(lib, dt, rec)
    _mixed_inputs(lib, dt, rec)


def p_bwd_view_output(lib, dt, rec):
    nn = lib.nn
    f = nn.Flatten()
    f.register_full_backward_hook(lambda m, gi, go: None)
    x = _randn(lib, dt, 14, 2, 3, 2).requires_grad_(True)
    y = x * 1
    out = f(y)
    rec("gf", type(out.grad_fn).__name__)
    rec.err("inplace_out", lambda: out.add_(1))
    v = f(y)
    rec.err("inplace_view", lambda: v[0].mul_(2))
    # input modified in place after a full backward hook forward
    lin = _lin(lib, dt, 15)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    z = x.reshape(4, 3) * 1
    o = lin(z)
    z.add_(1)
    rec.err("input_inplace", lambda: o.sum().backward())


def _lstm_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    lstm = nn.LSTM(3, 4, batch_first=True).to(dt)
    x = _randn(lib, dt, 2, 2, 5, 3).requires_grad_(True)
    log = []

    def fh(m, i, o):
        out, (h, c) = o
        log.append(("fwd", tuple(out.shape), tuple(h.shape), tuple(c.shape)))

    lstm.register_forward_hook(fh)
    lstm.register_full_backward_hook(
        lambda m, gi, go: log.append(
            ("bwd", [_shape(g) for g in gi], [type(g).__name__ for g in go])
        )
    )
    out = rec.warns("fwd", lambda: lstm(x))
    out[0].sum().backward()
    rec("log", str(log))
    rec("gx", x.grad)


def _mha_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    mha = nn.MultiheadAttention(4, 2, batch_first=True).to(dt)
    mha.eval()
    x = _randn(lib, dt, 4, 2, 3, 4).requires_grad_(True)
    attn = {}

    def fh(m, args, kwargs, out):
        attn["w"] = out[1]
        attn["nargs"] = len(args)
        attn["kw"] = sorted(kwargs)

    mha.register_forward_hook(fh, with_kwargs=True)

    # a pre-hook that forces need_weights (a common attention-map extraction trick)
    def pre(m, args, kwargs):
        kwargs["need_weights"] = True
        kwargs["average_attn_weights"] = False
        return args, kwargs

    mha.register_forward_pre_hook(pre, with_kwargs=True)
    out, w = mha(x, x, x, need_weights=False)
    rec("out", out)
    rec("w", w)
    rec("attn_w", attn["w"])
    rec("meta", str((attn["nargs"], attn["kw"])))
    got = []
    mha.register_full_backward_hook(
        lambda m, gi, go: got.append(([_shape(g) for g in gi], [_shape(g) for g in go]))
    )
    out, w = mha(x, x, x)
    (out.sum() + w.pow(2).sum()).backward()
    rec("got", str(got))
    rec("gx", x.grad)


def p_layer_tuple_outputs(lib, dt, rec):
    _lstm_hooks(lib, dt, rec)
    _mha_hooks(lib, dt, rec)


def p_checkpoint_hooks(lib, dt, rec):
    cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    nn = lib.nn
    lib.manual_seed(5)
    block = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 3)).to(dt)
    log = []
    block[0].register_forward_hook(lambda m, a, o: log.append(("fwd0", lib.is_grad_enabled())))
    block[2].register_forward_pre_hook(lambda m, a: log.append("pre2"))
    x = _randn(lib, dt, 6, 2, 3).requires_grad_(True)
    out = cp.checkpoint(block, x, use_reentrant=False)
    log.append("--- backward")
    out.pow(2).sum().backward()
    rec("log", str(log))
    rec("gx", x.grad)
    log.clear()
    x.grad = None
    out = cp.checkpoint(block, x, use_reentrant=True)
    log.append("--- backward")
    out.pow(2).sum().backward()
    rec("log_re", str(log))
    rec("gx_re", x.grad)
    # full backward hooks inside a checkpointed block
    block[0].register_full_backward_hook(lambda m, gi, go: log.append(("bwd0", _shape(gi[0]))))
    log.clear()
    x.grad = None
    out = cp.checkpoint(block, x, use_reentrant=False)
    out.sum().backward()
    rec("log_bwd", str(log))
    rec("gx_bwd", x.grad)


def _nested_bwd_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    inner = nn.Linear(3, 3).to(dt)
    outer = nn.Sequential(inner, nn.Tanh()).to(dt)
    log = []
    inner.register_full_backward_hook(lambda m, gi, go: log.append("inner") or (gi[0] * 2,))
    outer.register_full_backward_hook(
        lambda m, gi, go: log.append(("outer", go[0].sum().item() != 0)) or (gi[0] + 1,)
    )
    inner.register_full_backward_pre_hook(lambda m, go: log.append("inner_pre"))
    outer.register_full_backward_pre_hook(lambda m, go: log.append("outer_pre"))
    x = _randn(lib, dt, 12, 2, 3).requires_grad_(True)
    outer(x).sum().backward()
    rec("gx", x.grad)
    rec("log", str(log))


def _same_input_twice(lib, dt, rec):
    nn = lib.nn

    class Bil(nn.Module):
        def __init__(self):
            super().__init__()
            self.b = nn.Bilinear(3, 3, 2)

        def forward(self, a, b):
            return self.b(a, b)

    lib.manual_seed(9)
    m = Bil().to(dt)
    x = _randn(lib, dt, 10, 2, 3).requires_grad_(True)
    got = []

    def h(mod, gi, go):
        got.append([_shape(g) for g in gi])
        for i, g in enumerate(gi):
            rec(f"gi{i}", g)
        return (gi[0] * 2, gi[1])

    m.register_full_backward_hook(h)
    m(x, x).sum().backward()
    rec("gx", x.grad)
    rec("got", str(got))


def p_nested_shared(lib, dt, rec):
    _nested_bwd_hooks(lib, dt, rec)
    _same_input_twice(lib, dt, rec)


def _state_dict_private(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(13)
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).to(dt)

    def old_post(module, state_dict, prefix, local_metadata):
        state_dict[prefix + "tag"] = lib.tensor(1.0)
        return state_dict

    model[1]._register_state_dict_hook(old_post)
    sd = model.state_dict()
    rec("keys", str(list(sd)))
    rec("meta", str(dict(sd._metadata)))

    def old_post_new(module, state_dict, prefix, local_metadata):
        return {k: v for k, v in state_dict.items() if "running" not in k}

    model._register_state_dict_hook(old_post_new)
    rec("keys2", str(list(model.state_dict())))
    log = []

    def lpre(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        log.append((type(module).__name__, prefix, sorted(local_metadata.items())))
        state_dict.pop(prefix + "tag", None)

    model[1]._register_load_state_dict_pre_hook(lpre, with_module=True)

    def lpre2(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        log.append(("nomod", prefix))

    model[0]._register_load_state_dict_pre_hook(lpre2)
    sd = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).to(dt).state_dict()
    sd["1.tag"] = lib.tensor(2.0)
    del sd["1.num_batches_tracked"]
    sd._metadata["1"] = {"version": 1}
    res = model.load_state_dict(sd)
    rec("res", str(res))
    rec("log", str(log))
    rec("nbt", model[1].num_batches_tracked)


def _sd_pre_hook_sub(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(8)
    model = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.BatchNorm1d(3))).to(dt)
    log = []

    def pre(module, prefix, keep_vars):
        log.append((type(module).__name__, prefix, keep_vars))

    for mod in model.modules():
        mod.register_state_dict_pre_hook(pre)

    def post(module, sd, prefix, lm):
        log.append(("post", type(module).__name__, prefix, sorted(lm.items())))

    model[1][0].register_state_dict_post_hook(post)
    dest = {}
    out = model.state_dict(dest, "pfx.")
    rec("same", out is dest)
    rec("keys", str(list(dest)))
    rec("log", str(log))
    log.clear()
    model.state_dict(destination=None, prefix="", keep_vars=True)
    rec("log2", str(log))
    rec.err("positional_warn", lambda: model.state_dict({}, "a.", True))


def p_state_dict_private(lib, dt, rec):
    _state_dict_private(lib, dt, rec)
    _sd_pre_hook_sub(lib, dt, rec)


def _bwd_replace_nograd_input(lib, dt, rec):
    m = _two(lib, dt, 1)
    a = _randn(lib, dt, 2, 2, 3).requires_grad_(True)
    b = _randn(lib, dt, 3, 2, 3)
    got = []

    def h(mod, gi, go):
        got.append([_shape(g) for g in gi])
        return (gi[0], lib.ones(2, 3, dtype=dt))

    hh = m.register_full_backward_hook(h)
    rec.err("replace_none", lambda: m(a, b).sum().backward())
    rec("got", str(got))
    rec("ga", a.grad if a.grad is not None else lib.zeros(1))
    hh.remove()
    hh = m.register_full_backward_hook(
        lambda mod, gi, go: (gi[0].double() if dt == lib.float32 else gi[0].float(), None)
    )
    a.grad = None
    rec.err("dtype", lambda: m(a, b).sum().backward())
    hh.remove()
    hh = m.register_full_backward_hook(lambda mod, gi, go: (gi[0][0], None))
    rec.err("shape", lambda: m(a, b).sum().backward())
    hh.remove()
    hh = m.register_full_backward_hook(lambda mod, gi, go: [gi[0] * 2, None])
    a.grad = None
    rec.err("list", lambda: m(a, b).sum().backward())
    rec("ga_list", a.grad if a.grad is not None else lib.zeros(1))
    hh.remove()
    hh = m.register_full_backward_hook(lambda mod, gi, go: (1, None))
    rec.err("int", lambda: m(a, b).sum().backward())
    hh.remove()


def _bwd_pre_errors(lib, dt, rec):
    lib.manual_seed(4)
    lin = lib.nn.Linear(3, 2).to(dt)
    x = _randn(lib, dt, 5, 2, 3).requires_grad_(True)
    h = lin.register_full_backward_pre_hook(lambda m, go: (go[0][:1],))
    rec.err("shape", lambda: lin(x).sum().backward())
    h.remove()
    h = lin.register_full_backward_pre_hook(lambda m, go: (None,))
    x.grad = None
    rec.err("none", lambda: lin(x).sum().backward())
    rec("gx_none", x.grad if x.grad is not None else lib.zeros(1))
    h.remove()
    h = lin.register_full_backward_pre_hook(lambda m, go: [go[0] * 3])
    x.grad = None
    rec.err("list", lambda: lin(x).sum().backward())
    rec("gx_list", x.grad if x.grad is not None else lib.zeros(1))
    h.remove()
    h = lin.register_full_backward_pre_hook(lambda m, go: (go[0].to(lib.int64),))
    rec.err("int", lambda: lin(x).sum().backward())
    h.remove()


def p_bwd_replace_errors(lib, dt, rec):
    _bwd_replace_nograd_input(lib, dt, rec)
    _bwd_pre_errors(lib, dt, rec)
    _warn_no_input_grad(lib, dt, rec)


def p_load_post_sub(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(6)
    model = nn.Sequential(
        nn.Linear(2, 3), nn.Sequential(nn.Linear(3, 3), nn.ReLU()), nn.Linear(3, 1)
    ).to(dt)
    log = []

    def post(name):
        def hook(module, inc):
            log.append((name, list(inc.missing_keys), list(inc.unexpected_keys)))

        return hook

    model.register_load_state_dict_post_hook(post("root"))
    model[1].register_load_state_dict_post_hook(post("sub"))
    model[1][0].register_load_state_dict_post_hook(post("subsub"))

    def pre(name):
        def hook(module, sd, prefix, lm, strict, missing, unexpected, errors):
            log.append(("pre " + name, prefix, list(missing), list(unexpected)))

        return hook

    model.register_load_state_dict_pre_hook(pre("root"))
    model[1][0].register_load_state_dict_pre_hook(pre("subsub"))
    model[2].register_load_state_dict_pre_hook(pre("last"))
    sd = model.state_dict()
    del sd["1.0.bias"]
    sd["junk"] = lib.zeros(1)
    res = model.load_state_dict(sd, strict=False)
    rec("res", str(res))
    rec("log", str(log))
    log.clear()

    # a sub hook that adds a missing key makes a strict load fail
    def add(module, inc):
        inc.missing_keys.append("invented")

    model[2].register_load_state_dict_post_hook(add)
    rec.err("strict", lambda: model.load_state_dict(model.state_dict()))
    rec("log2", str(log))
    # a post hook clears everything so a strict load passes
    log.clear()
    model2 = nn.Sequential(nn.Linear(2, 3)).to(dt)

    def clear(module, inc):
        inc.missing_keys.clear()
        inc.unexpected_keys.clear()

    model2.register_load_state_dict_post_hook(clear)
    rec("cleared", str(model2.load_state_dict({"x": lib.zeros(1)})))


def _weight_norm_spectral(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(17)
    lin = nn.Linear(4, 3).to(dt)
    wn = nn.utils.weight_norm(lin)
    rec("names", str(sorted(n for n, _ in wn.named_parameters())))
    rec("hooks", str([type(h).__name__ for h in wn._forward_pre_hooks.values()]))
    x = _randn(lib, dt, 18, 2, 4)
    out = wn(x)
    out.sum().backward()
    rec("out", out)
    rec("g_g", wn.weight_g.grad)
    rec("g_v", wn.weight_v.grad)
    rec("sd", str(list(wn.state_dict())))
    nn.utils.remove_weight_norm(wn)
    rec("names2", str(sorted(n for n, _ in wn.named_parameters())))
    rec("w", wn.weight)


def _spectral(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    lin = nn.utils.spectral_norm(nn.Linear(4, 3).to(dt))
    rec("hooks", str([type(h).__name__ for h in lin._forward_pre_hooks.values()]))
    rec("sdh", len(lin._state_dict_hooks))
    rec("lsdh", len(lin._load_state_dict_pre_hooks))
    x = _randn(lib, dt, 2, 2, 4)
    out = lin(x)
    rec("out", out)
    sd = lin.state_dict()
    rec("keys", str(list(sd)))
    rec("meta", str(sd._metadata))
    lin.eval()
    rec("eval_out", lin(x))
    lin2 = nn.utils.spectral_norm(nn.Linear(4, 3).to(dt))
    lin2.load_state_dict(sd)
    lin2.eval()
    rec("loaded_out", lin2(x))


def _prune_twice(lib, dt, rec):
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    nn = lib.nn
    lib.manual_seed(3)
    lin = nn.Linear(5, 4).to(dt)
    prune.l1_unstructured(lin, "weight", amount=0.25)
    prune.random_unstructured(lin, "weight", amount=0.25)
    rec("hooks", str([type(h).__name__ for h in lin._forward_pre_hooks.values()]))
    rec("mask_sum", lin.weight_mask.sum())
    prune.ln_structured(lin, "weight", amount=1, n=2, dim=0)
    rec("mask2", lin.weight_mask)
    x = _randn(lib, dt, 4, 3, 5)
    rec("out", lin(x))
    m = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2)).to(dt)
    prune.global_unstructured(
        [(m[0], "weight"), (m[1], "weight")], pruning_method=prune.L1Unstructured, amount=5
    )
    rec("gm0", m[0].weight_mask)
    rec("gm1", m[1].weight_mask)
    rec("is_pruned", prune.is_pruned(m))


def p_norm_reparam(lib, dt, rec):
    _weight_norm_spectral(lib, dt, rec)
    _spectral(lib, dt, rec)
    _prune_twice(lib, dt, rec)
    _parametrize_hooks(lib, dt, rec)


def p_registration_paths(lib, dt, rec):
    mm = lib.nn.modules.module
    nn = lib.nn
    log = []
    hs = []
    try:
        _logging_registration_hooks(mm, log, hs)
        ml = nn.ModuleList()
        ml.append(nn.ReLU())
        ml.extend([nn.Tanh()])
        ml.insert(0, nn.Identity())
        ml[1] = nn.Sigmoid()
        md = nn.ModuleDict({"a": nn.ReLU()})
        md["b"] = nn.Tanh()
        md.update({"c": nn.Identity()})
        seq = nn.Sequential()
        seq.append(nn.ReLU())
        seq.add_module("x", nn.Tanh())
        seq.register_module("y", nn.Identity())
        rec("log_mod", str(log))
        log.clear()
        m = nn.Module()
        m.register_buffer("b", lib.zeros(2))
        m.b = lib.ones(3)
        m.b = None
        m.register_buffer("nb", lib.zeros(1), persistent=False)
        m.w = nn.Parameter(lib.zeros(2))
        m.w = nn.Parameter(lib.ones(4))
        m.w = None
        m.register_parameter("p", None)
        pl = nn.ParameterList([nn.Parameter(lib.zeros(1))])
        pl.append(nn.Parameter(lib.zeros(2)))
        nn.ParameterDict({"q": nn.Parameter(lib.zeros(1))})
        rec("log_pb", str(log))
        log.clear()
        lin = nn.Linear(2, 2)
        lin.to(dt)
        lin.double()
        bn = nn.BatchNorm1d(2)
        log.clear()
        bn.to(dt)
        bn(_randn(lib, dt, 1, 3, 2))
        rec("log_to", str(log))
        rec.err("bad_name", lambda: m.register_buffer("a.b", lib.zeros(1)))
        rec("log_bad", str(log))
    finally:
        for h in hs:
            h.remove()


def p_hook_error_state(lib, dt, rec):
    x = _randn(lib, dt, 1, 3).requires_grad_(True)
    y = x.exp()
    z = y.sin()

    def boom(g):
        raise ValueError("stop")

    h = y.register_hook(boom)
    rec.err("first", lambda: z.sum().backward())
    h.remove()
    rec.err("second", lambda: z.sum().backward())
    rec("xg_none", x.grad is None)
    # with retain_graph the graph survives the failed pass
    y = x.exp()
    z = y.sin()
    h = y.register_hook(boom)
    rec.err("first_r", lambda: z.sum().backward(retain_graph=True))
    h.remove()
    rec.err("second_r", lambda: z.sum().backward())
    rec("xg", x.grad)
    # a non-callable hook
    w = x * 2
    w.register_hook(1)
    rec.err("noncallable", lambda: w.sum().backward())
    m = lib.nn.Linear(3, 1).to(dt)
    m.register_full_backward_hook(3)
    rec.err("mod_noncallable", lambda: m(x).sum().backward())
    rec.err("mod_fwd_noncallable", lambda: (m.register_forward_hook("s"), m(x)))


def p_low_precision_hooks(lib, dt, rec):
    # mixed-precision code: hooks that upcast a bfloat16/float16 gradient are refused
    for low in (lib.bfloat16, lib.float16):
        x = _randn(lib, dt, 3, 4).to(low).requires_grad_(True)
        h = x.register_hook(lambda g: g.float())
        rec.err(f"{low}.upcast", lambda x=x: (x * 2).sum().backward())
        h.remove()
        x.register_hook(lambda g: g.to(lib.bool))
        rec.err(f"{low}.to_bool", lambda x=x: (x * 2).sum().backward())
    y = _randn(lib, dt, 4, 4).requires_grad_(True)
    h16 = y.to(lib.bfloat16)
    h16.register_hook(lambda g: g * 2)
    (h16.float() * 3).sum().backward()
    rec("gy", y.grad)
    z = _randn(lib, dt, 5, 3).requires_grad_(True)
    z.register_hook(lambda g: g.to(lib.bfloat16))
    rec.err("to_bf16", lambda: (z * 2).sum().backward())
    lib.manual_seed(6)
    lin = lib.nn.Linear(3, 2).to(dt)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0].to(lib.bfloat16),))
    rec.err("module_bf16", lambda: lin(z).sum().backward())
    node_in = (z * 2).exp()
    node_in.grad_fn.register_prehook(lambda go: (go[0].to(lib.uint8),))
    rec.err("node_uint8", lambda: node_in.sum().backward())


def _hook_grad_aliasing(lib, dt, rec):
    lib.manual_seed(1)
    model = lib.nn.Linear(3, 2).to(dt)
    kept = {}
    model.weight.register_hook(lambda g: kept.__setitem__("w", g))
    model.bias.register_hook(lambda g: g.mean().expand_as(g))
    x = _randn(lib, dt, 2, 4, 3)
    model(x).pow(2).sum().backward()
    rec("kept_before", kept["w"])
    rec("bias_grad", model.bias.grad)
    rec("bias_contig", model.bias.grad.is_contiguous())
    rec("bias_strides", str(model.bias.grad.stride()))
    total = lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    rec("total", total)
    rec("kept_after", kept["w"])
    rec("w_grad", model.weight.grad)
    rec("b_grad", model.bias.grad)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    opt.step()
    model.bias.grad.add_(1.0)
    rec("b_grad2", model.bias.grad)
    # accumulate a second time on top of an expanded first gradient
    model(x).sum().backward()
    rec("b_grad3", model.bias.grad)
    rec("p_b", model.bias)


def _hook_returns_input_alias(lib, dt, rec):
    # a leaf hook returning a tensor the user keeps: .grad must not alias it
    w = _randn(lib, dt, 3, 3).requires_grad_(True)
    store = lib.zeros(3, dtype=dt)
    w.register_hook(lambda g: store)
    (w * 2).sum().backward()
    w.grad.mul_(5)
    rec("store", store)
    rec("wgrad", w.grad)
    # retain_grad'ed non-leaf + hook that returns a view of a buffer
    buf = _randn(lib, dt, 4, 2, 3)
    v = _randn(lib, dt, 5, 3).requires_grad_(True)
    y = v * 1
    y.retain_grad()
    y.register_hook(lambda g: buf[0])
    y.sum().backward()
    y.grad.zero_()
    rec("buf", buf)
    rec("vgrad", v.grad)


def p_grad_aliasing(lib, dt, rec):
    _hook_grad_aliasing(lib, dt, rec)
    _hook_returns_input_alias(lib, dt, rec)


def _two_outputs(lib, mat, rec):
    """A custom Function of two outputs (x * 2, x * 3), materializing grads or not."""

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(mat)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            rec(f"{mat}.in_bw", str((_shape(ga), _shape(gb))))
            out = 0
            if ga is not None:
                out = out + ga * 2
            if gb is not None:
                out = out + gb * 3
            return out

    return Two


def p_multi_out_hooks(lib, dt, rec):
    # the hooks of a multi-output node's unused outputs run with None (their node runs)
    for mat in (True, False):
        Two = _two_outputs(lib, mat, rec)
        x = _randn(lib, dt, 1, 3).requires_grad_(True)
        a, b = Two.apply(x)
        seen = []
        a.grad_fn.register_prehook(lambda go, seen=seen: seen.append([_shape(g) for g in go]))
        a.grad_fn.register_hook(
            lambda gi, go, seen=seen: seen.append(
                ("post", [_shape(g) for g in gi], [_shape(g) for g in go])
            )
        )
        a.register_hook(lambda g, seen=seen: seen.append(("a", _shape(g))))
        b.register_hook(lambda g, seen=seen: seen.append(("b", _shape(g))))
        a.sum().backward()
        rec(f"{mat}.seen", str(seen))
        rec(f"{mat}.gx", x.grad)
    # built-in multi-output nodes: unbind, split; a retained unused output keeps grad None
    x = _randn(lib, dt, 2, 3).requires_grad_(True)
    parts = x.unbind()
    seen = []
    parts[2].register_hook(lambda g: seen.append(("p2", _shape(g))))
    parts[0].register_hook(lambda g: seen.append(("p0", _shape(g))))
    (parts[1] * 5).backward()
    rec("unbind.seen", str(seen))
    rec("unbind.gx", x.grad)
    a, b = x.split(2)
    b.retain_grad()
    b.register_hook(lambda g: seen.append(("b", _shape(g))))
    a.sum().backward()
    rec("split.seen", str(seen))
    rec("split.b_grad_none", b.grad is None)
    # a hook that makes up a gradient for an unused output
    parts = x.unbind()
    parts[0].register_hook(lambda g: lib.ones((), dtype=dt))
    rec.err("made_up", lambda: parts[1].backward())
    # chunked heads (multi-task): a gradient-logging hook on every chunk
    lib.manual_seed(3)
    trunk = lib.nn.Linear(3, 6).to(dt)
    heads = trunk(_randn(lib, dt, 4, 2, 3)).chunk(3, dim=1)
    norms = {}
    for i, h in enumerate(heads):
        h.register_hook(lambda g, i=i: norms.__setitem__(i, None if g is None else g.norm()))
    (heads[0].pow(2).sum() + heads[2].sum()).backward()
    rec("chunk.none", str(sorted(k for k, v in norms.items() if v is None)))
    for k in sorted(k for k, v in norms.items() if v is not None):
        rec(f"chunk.norm{k}", norms[k])
    rec("chunk.gw", trunk.weight.grad)


def _parametrize_hooks(lib, dt, rec):
    P = importlib.import_module(lib.__name__ + ".nn.utils.parametrize")
    nn = lib.nn
    lib.manual_seed(1)
    lin = nn.Linear(3, 3).to(dt)
    log = []
    lin.register_forward_pre_hook(lambda m, a: log.append(("pre", type(m).__name__)))
    lin.register_forward_hook(lambda m, a, o: log.append(("fwd", type(m).__name__)))
    lin.register_full_backward_hook(lambda m, gi, go: log.append(("bwd", type(m).__name__)))

    class Sym(nn.Module):
        def forward(self, w):
            return w.triu() + w.triu(1).T

    P.register_parametrization(lin, "weight", Sym())
    x = _randn(lib, dt, 2, 2, 3).requires_grad_(True)
    out = lin(x)
    out.sum().backward()
    rec("out", out)
    rec("log", str(log))
    rec("g", lin.parametrizations.weight.original.grad)
    rec("cls", type(lin).__name__)
    # hooks on the parametrization module itself
    lin.parametrizations.weight[0].register_forward_hook(
        lambda m, a, o: log.append(("param_fwd", tuple(o.shape)))
    )
    log.clear()
    lin(x)
    rec("log2", str(log))


def _warn_no_input_grad(lib, dt, rec):
    lib.manual_seed(3)
    lin = lib.nn.Linear(2, 2).to(dt)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    x = _randn(lib, dt, 4, 1, 2)
    out = lin(x)
    rec.warns("w", lambda: out.sum().backward())
    lin2 = lib.nn.Linear(2, 2).to(dt)
    lin2.register_full_backward_hook(lambda m, gi, go: (lib.zeros(1, 2, dtype=dt),))
    rec.err("ret", lambda: lin2(x).sum().backward())


def p_transformer_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True).to(
        dt
    )
    log = []
    for name, mod in layer.named_modules():
        if name:
            mod.register_forward_hook(lambda m, a, o, name=name: log.append(name))
    x = _randn(lib, dt, 2, 2, 5, 8)
    layer.train()
    y = layer(x)
    rec("train_log", str(log))
    rec("y", y)
    log.clear()
    layer.eval()
    with lib.no_grad():
        y2 = layer(x)
    rec("eval_nograd_log", str(log))
    rec("y2", y2)
    log.clear()
    with lib.inference_mode():
        layer(x)
    rec("inf_log", str(log))
    log.clear()
    layer(x)
    rec("eval_grad_log", str(log))
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    log.clear()
    with lib.no_grad():
        enc(x)
    rec("enc_log", str(log))
    # activation patching: cache the clean run's MLP output, patch it into a corrupted run
    lib.manual_seed(2)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True).to(
        dt
    )
    layer.eval()
    cache = {}
    h = layer.linear2.register_forward_hook(lambda m, a, o: cache.__setitem__("mlp", o.detach()))
    clean = _randn(lib, dt, 3, 1, 5, 8)
    corrupt = _randn(lib, dt, 4, 1, 5, 8)
    y_clean = layer(clean)
    h.remove()
    y_corrupt = layer(corrupt)

    def patch(m, a, o):
        o = o.clone()
        o[:, 2] = cache["mlp"][:, 2]
        return o

    h = layer.linear2.register_forward_hook(patch)
    y_patched = layer(corrupt)
    h.remove()
    rec("clean", y_clean)
    rec("corrupt", y_corrupt)
    rec("patched", y_patched)
    # attention pattern capture via need_weights forced by a kwargs pre-hook
    attn = {}

    def force(m, args, kwargs):
        kwargs["need_weights"] = True
        return args, kwargs

    layer.self_attn.register_forward_pre_hook(force, with_kwargs=True)
    layer.self_attn.register_forward_hook(lambda m, a, o: attn.__setitem__("w", o[1]))
    layer(clean)
    rec("attn", attn["w"])


def _mixed_inputs(lib, dt, rec):
    nn = lib.nn

    class M(nn.Module):
        def forward(self, k, x, xs, scale=None):
            out = x * k + sum(xs)
            return out if scale is None else out * scale

    m = M()
    got = []

    def h(mod, gi, go):
        got.append(
            [_shape(g) if g is None or hasattr(g, "shape") else type(g).__name__ for g in gi]
        )
        return tuple(None if g is None else g * 2 for g in gi)

    m.register_full_backward_hook(h)
    m.register_forward_pre_hook(lambda mod, a: got.append(("pre", [type(v).__name__ for v in a])))
    x = _randn(lib, dt, 1, 3).requires_grad_(True)
    xs = [_randn(lib, dt, 2, 3).requires_grad_(True)]
    s = _randn(lib, dt, 3, 3).requires_grad_(True)
    m(2, x, xs, s).sum().backward()
    rec("got", str(got))
    rec("gx", x.grad)
    rec("gxs", xs[0].grad)
    rec("gs", s.grad)
    got.clear()

    class Z(nn.Module):
        def forward(self):
            return lib.ones(2, dtype=dt, requires_grad=True) * 3

    z = Z()
    z.register_forward_pre_hook(lambda mod, a: got.append(("zpre", a)))
    z.register_full_backward_hook(
        lambda mod, gi, go: got.append(("zbwd", gi, [_shape(g) for g in go]))
    )
    out = z()
    rec.warns("z_bwd", lambda: out.sum().backward())
    rec("zgot", str(got))
