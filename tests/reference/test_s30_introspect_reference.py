"""Session 30 (helper introspect): debugging and introspection code written around models, run
under torch and minitorch with the same seeds and compared record by record: breadth-first
walks of grad_fn graphs (names, next_functions edges, AccumulateGrad variables, metadata, views,
in-place nodes, reshape copies, add/sub with alpha), the _saved_* attributes torchviz reads
(_saved_self / _saved_other / _saved_result identity and values, reductions' and shape ops'
sizes and dims, the freed-graph error), node hooks and prehooks (order, replacing gradients,
removal handles, AccumulateGrad hooks, wrong counts and shapes), saved_tensors_hooks (pack and
unpack calls, offloading by tuples, save_on_cpu, nesting, disable_saved_tensors_hooks, a pack
hook changing its input in place, raw SavedTensor hooks, get_gradient_edge),
register_multi_grad_hook ("all"/"any", autograd.grad), tensor hooks with retain_grad and
post-accumulate hooks, module hooks (forward pre/post with kwargs, prepend, always_call, the
handle as a context manager, state-dict hooks), full backward hooks and pre-hooks (replacing
gradients, None grad_inputs, the in-place refusal, mixing with legacy hooks), global module hooks
and registration hooks, detect_anomaly (messages, check_nan, custom Functions, the modified-saved
hint, its warnings), profiler record_function counts, key_averages tables' headers, grouping by
input shape and DeviceType, module summaries (repr, named_modules/parameters/buffers, parameter
counting, tied weights, get_submodule errors, a hook-driven summary table), per-layer gradient
norms with clipping, dead-ReLU detection, activation statistics, weakref/refcount checks that
hooks and graphs do not leak, hook error messages, custom Function nodes (hooks seeing one
gradient per Tensor input, once_differentiable, version counters), LSTM hooks, reprs of tensors
and nodes seen in hooks, engine pruning (which hooks run under autograd.grad and
backward(inputs=)), activation checkpointing with hooks, parametrizations, and Grad-CAM /
SmoothGrad / integrated gradients. float64 must agree to 1e-10 of each record's scale, float32
to 1e-4; texts exactly.

Known and left (documented):
- mm / addmm nodes (MmBackward0, AddmmBackward0) expose no _saved_* attributes (torch's
  _saved_self/_saved_mat2 with their sym_sizes/sym_strides, _saved_alpha/_saved_beta), nor do
  add/sub nodes show _saved_alpha; only the programs' other nodes' attributes are compared.
- torch records a softmax's (and any op's) negative dim in _saved_dim as 2**64 + dim; the
  programs use non-negative dims.
- What goes through saved_tensors_hooks differs for some ops (not compared): torch packs
  integer indices (max/topk/sort/gather/index/embedding), layer/group/batch norm statistics
  and mm's operands in the order mat2, self; minitorch keeps indices and statistics outside the
  saved tensors, saves conv2d's unfolded columns and bilinear interpolation's weights.
- torch's grad_fn nodes cannot be weakly referenced; minitorch's can.
- anomaly mode's forward traceback lists the user's frames only (torch's lists its own Python
  frames, torch/nn/modules/module.py..., too); the first line is compared.
- profiler tables list minitorch's Function names (Linear, Sum), not torch's aten:: ops; only
  the programs' record_function rows and the headers are compared."""

from __future__ import annotations

import collections
import warnings
import weakref

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "graph_walk", "saved_attrs", "node_hooks", "saved_hooks", "multi_grad", "tensor_hooks",
    "module_hooks", "backward_hooks", "global_hooks", "anomaly", "profiler", "summary",
    "grad_norms", "dead_relu", "act_stats", "leaks", "hook_errors", "custom_nodes", "lstm_hooks",
    "reprs", "pruning", "checkpoint", "parametrize", "grad_cam",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _mlp(lib, dt, seed=0, sizes=(4, 8, 8, 3)):
    lib.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=False)):
        layers.append(lib.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(lib.nn.ReLU())
    return lib.nn.Sequential(*layers).to(dt)


def _walk(fn):
    """The graph under fn breadth first: (depth, name, [(child name, input index)])."""
    out, seen, todo = [], set(), [(fn, 0)]
    while todo:
        node, d = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        kids = [(None if f is None else f.name(), i) for f, i in node.next_functions]
        out.append((d, node.name(), kids))
        todo.extend((f, d + 1) for f, _ in node.next_functions)
    return out


# --- the programs: each takes the library, a dtype and a recorder ---


def p_graph_walk(lib, dt, rec):
    net = _mlp(lib, dt)
    x = lib.randn(5, 4, dtype=dt)
    y = net(x)
    loss = lib.nn.functional.cross_entropy(y, lib.tensor([0, 1, 2, 0, 1]))
    rec("loss", loss)
    rec("walk", str(_walk(loss.grad_fn)))
    rec("root", type(loss.grad_fn).__name__)
    # AccumulateGrad nodes hold the parameters
    leaves = []
    todo, seen = [loss.grad_fn], set()
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if hasattr(n, "variable"):
            leaves.append(n.variable)
        todo.extend(f for f, _ in n.next_functions)
    names = {id(p): k for k, p in net.named_parameters()}
    rec("leaves", str(sorted(names[id(v)] for v in leaves)))
    rec("n_nodes", len(seen))
    rec("is_leaf", str([(k, p.is_leaf, p.grad_fn) for k, p in net.named_parameters()]))
    rec("y_leaf", y.is_leaf)
    rec("requires", y.requires_grad)
    # metadata is a dict per node, kept across accesses
    loss.grad_fn.metadata["tag"] = "loss"
    rec("meta", str(loss.grad_fn.metadata))
    rec("meta_type", type(loss.grad_fn.metadata).__name__)
    # detached tensors and no_grad results have no grad_fn
    rec("detached", str(y.detach().grad_fn))
    with lib.no_grad():
        z = net(x)
    rec("no_grad", str((z.grad_fn, z.requires_grad)))
    # views and in-place ops
    v = y[:, 1:]
    rec("view", v.grad_fn.name())
    w = y.clone()
    w.mul_(2)
    rec("inplace", w.grad_fn.name())
    rec("inplace_next", str([f and f.name() for f, _ in w.grad_fn.next_functions]))
    w2 = y.t().reshape(-1).unsqueeze(0).expand(2, -1)
    rec("chain", str(_walk(w2.grad_fn)[:4]))
    rec("alpha_add", str(_walk(lib.add(y, 2 * y, alpha=0.5).grad_fn)[:2]))
    rec("alpha_sub", str(_walk(y.sub(w, alpha=3).grad_fn)[:2]))
    rec("sum_dim", y.sum(1).grad_fn.name())
    rec("mean", y.mean().grad_fn.name())
    rec("max", y.max(1)[0].grad_fn.name())
    rec("cat", lib.cat([y, y]).grad_fn.name())
    rec("stack", str(_walk(lib.stack([y, 2 * y]).grad_fn)[:2]))
    loss.backward()
    rec("grads", str([(k, p.grad is None) for k, p in net.named_parameters()]))
    rec("g0", net[0].weight.grad)


def _saved(fn):
    """A node's _saved_* attributes as torchviz's make_dot(show_saved=True) reads them."""
    out = []
    for a in sorted(dir(fn)):
        if not a.startswith("_saved_"):
            continue
        v = getattr(fn, a)
        if hasattr(v, "shape"):
            v = f"tensor{tuple(v.shape)}"
        out.append((a, str(v)))
    return out


def p_saved_attrs(lib, dt, rec):
    lib.manual_seed(0)
    x = lib.randn(3, 4, dtype=dt, requires_grad=True)
    w = lib.randn(2, 4, dtype=dt, requires_grad=True)
    b = lib.randn(2, dtype=dt, requires_grad=True)
    # the autograd-mechanics examples: an input is saved as itself, an output as another object
    y = x.pow(2)
    rec("pow_self_is_x", y.grad_fn._saved_self is x)
    rec("pow_equal", x.equal(y.grad_fn._saved_self))
    rec("pow_exponent", str(y.grad_fn._saved_exponent))
    e = x.exp()
    rec("exp_result_is_e", e.grad_fn._saved_result is e)
    rec("exp_result_equal", e.equal(e.grad_fn._saved_result))
    rec("exp_result", e.grad_fn._saved_result)
    m = x * w[0]
    rec("mul_other", m.grad_fn._saved_other)
    rec("mul_self_is", m.grad_fn._saved_self is x)
    s = x.sigmoid()
    rec("sig", s.grad_fn._saved_result)
    d = x / (x.abs() + 1)
    rec("div", str(_saved(d.grad_fn)))
    # the nodes an MLP layer and its loss records (not mm/addmm's nor add/sub's alpha: see the
    # module docstring)
    rec("bias", b.grad_fn)
    for name, t in [
        ("sum", x.sum()),
        ("sum1", x.sum(1, keepdim=True)),
        ("mean", x.mean(0)),
        ("view", x.view(12)),
        ("relu", x.relu()),
        ("tanh", x.tanh()),
        ("lsm", x.log_softmax(1)),
        ("sm", x.softmax(1)),  # torch shows dim=-1 as 2**64 - 1
        ("sin", x.sin()),
        ("gelu", lib.nn.functional.gelu(x)),
        ("silu", lib.nn.functional.silu(x)),
        ("log", x.abs().log()),
        ("sqrt", (x * x).sqrt()),
        ("tr", x.transpose(0, 1)),
        ("perm", x.permute(1, 0)),
        ("unsq", x.unsqueeze(1)),
        ("cat", lib.cat([x, x], 1)),
        ("expand", x[:1].expand(3, 4)),
        ("cumprod", x.cumprod(1)),
    ]:
        rec("saved_" + name, str(_saved(t.grad_fn)))
    # after backward the saved tensors are freed: the attribute access raises
    z = (x * w[0]).sum()
    fn = z.grad_fn.next_functions[0][0]
    z.backward()
    rec("freed", rec.err("freed", lambda: fn._saved_self) and "")
    z2 = (x.exp()).sum()
    fn2 = z2.grad_fn.next_functions[0][0]
    z2.backward(retain_graph=True)
    rec("retained", fn2._saved_result)


def p_node_hooks(lib, dt, rec):
    lib.manual_seed(1)
    x = lib.randn(4, 3, dtype=dt, requires_grad=True)
    w = lib.randn(3, 2, dtype=dt, requires_grad=True)
    h = (x @ w).tanh()
    y = (h * h).sum()
    log = []

    def post(name):
        def hook(grad_inputs, grad_outputs):
            log.append(
                (
                    name,
                    "post",
                    [None if g is None else tuple(g.shape) for g in grad_inputs],
                    [None if g is None else tuple(g.shape) for g in grad_outputs],
                )
            )

        return hook

    def pre(name):
        def hook(grad_outputs):
            log.append((name, "pre", [tuple(g.shape) for g in grad_outputs]))

        return hook

    handles = []
    fn = y.grad_fn
    while fn is not None:
        handles.append(fn.register_hook(post(fn.name())))
        handles.append(fn.register_prehook(pre(fn.name())))
        fn = fn.next_functions[0][0] if fn.next_functions else None
    rec("n_handles", len(handles))
    rec("handle_type", type(handles[0]).__name__)
    # a prehook that scales the gradient flowing into tanh
    th = h.grad_fn
    scale = th.register_prehook(lambda go: (go[0] * 0.5,))
    # a post hook replacing grad_inputs of the matmul
    mm_node = th.next_functions[0][0]
    swap = mm_node.register_hook(lambda gi, go: tuple(None if g is None else g * 2 for g in gi))
    y.backward(retain_graph=True)
    rec("log", str(log))
    rec("gx", x.grad)
    rec("gw", w.grad)
    # removing handles: the hooks stop running
    scale.remove()
    swap.remove()
    for hd in handles:
        hd.remove()
    handles[0].remove()  # removing twice is fine
    log.clear()
    x.grad = None
    w.grad = None
    y.backward()
    rec("log_after", str(log))
    rec("gx2", x.grad)
    # hooks on AccumulateGrad nodes
    acc = (x * 2).grad_fn.next_functions[0][0]
    rec("acc_name", acc.name())
    rec("acc_var", acc.variable is x)
    seen = []
    hd = acc.register_hook(lambda gi, go: seen.append((len(gi), tuple(go[0].shape))))
    hp = acc.register_prehook(lambda go: seen.append(("pre", float(go[0].sum()))))
    x.grad = None
    (x * 3).sum().backward()
    rec("acc_seen", str(seen))
    rec("acc_grad", x.grad)
    hd.remove()
    hp.remove()
    # a prehook returning a wrong number of gradients
    z = (x * 2).sum()
    z.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    rec.err("bad_prehook", lambda: z.backward())
    z = (x.exp()).sum()
    z.grad_fn.next_functions[0][0].register_hook(lambda gi, go: (gi[0][:1],))
    rec.err("bad_shape", lambda: z.backward())


def p_saved_hooks(lib, dt, rec):
    lib.manual_seed(2)
    net = _mlp(lib, dt, 2, (5, 6, 2))
    x = lib.randn(3, 5, dtype=dt)
    packed, unpacked = [], []

    def pack(t):
        packed.append((tuple(t.shape), str(t.dtype).split(".")[-1], t.requires_grad))
        return t.clone()

    def unpack(t):
        unpacked.append(tuple(t.shape))
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = net(x).pow(2).sum()
    rec("packed", str(sorted(packed)))
    rec("n_unpacked_before", len(unpacked))
    out.backward()
    rec("unpacked", str(sorted(unpacked)))
    rec("g", net[0].weight.grad)
    # hooks that keep a tuple and rebuild the tensor (offloading)
    store = {}

    def pack2(t):
        k = len(store)
        store[k] = t.detach().numpy().copy()
        return (k, t.dtype)

    def unpack2(p):
        k, d = p
        return lib.from_numpy(store[k]).to(d)

    net.zero_grad()
    with lib.autograd.graph.saved_tensors_hooks(pack2, unpack2):
        out = net(x).sigmoid().mean()
    out.backward()
    rec("offload_n", len(store))
    rec("offload_g", net[2].weight.grad)
    # save_on_cpu on a CPU model gives the same gradients
    net.zero_grad()
    with lib.autograd.graph.save_on_cpu(pin_memory=False):
        out2 = net(x).sigmoid().mean()
    out2.backward()
    rec("cpu_g", net[2].weight.grad)
    # nested contexts: the inner hooks win
    inner = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: p[1]):
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: inner.append(1) or ("inner", t), lambda p: p[1]
        ):
            y = (x.requires_grad_() * x).sum()
    rec("inner", len(inner))
    rec("raw", str(y.grad_fn.next_functions[0][0]._raw_saved_self.__class__.__name__))
    # disable_saved_tensors_hooks refuses registering hooks inside it
    with lib.autograd.graph.disable_saved_tensors_hooks("no hooks in this region"):
        rec.err(
            "disabled",
            lambda: lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__(),
        )
    # a pack hook that returns the tensor modified in place is a user error torch reports late
    a = lib.randn(4, dtype=dt, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
        b = (a * a).sum()
    b.backward()
    rec("a_grad", a.grad)
    # a pack hook may not modify its input in place (torch raises at once, in forward)
    c = lib.ones(4, dtype=dt)
    with lib.autograd.graph.saved_tensors_hooks(
        lambda t: t if t.requires_grad else t.mul_(2), lambda t: t
    ):
        rec.err("pack_inplace", lambda: a * c)
    rec("c_version", c._version)
    e2 = (a * 1).exp()
    rec.err(
        "raw_inplace",
        lambda: e2.grad_fn._raw_saved_result.register_hooks(lambda t: t.add_(1), lambda t: t),
    )
    # the registry of hooks: get_gradient_edge names the node and the output number
    e = lib.autograd.graph.get_gradient_edge(net(x))
    rec("edge", str((e.node.name(), e.output_nr)))


def p_multi_grad(lib, dt, rec):
    lib.manual_seed(3)
    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = lib.randn(3, dtype=dt, requires_grad=True)
    c = lib.randn(3, dtype=dt, requires_grad=True)
    seen = []

    def all_hook(grads):
        seen.append(("all", [None if g is None else round(float(g.sum()), 6) for g in grads]))

    h = lib.autograd.graph.register_multi_grad_hook((a, b, c), all_hook)
    (a * b).sum().backward()
    rec("all1", str(seen))
    seen.clear()
    (a * b * c).sum().backward()
    rec("all2", str(seen))
    h.remove()
    seen.clear()
    (a * b).sum().backward()
    rec("removed", str(seen))
    got = []
    h2 = lib.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: got.append(tuple(g.shape)), mode="any"
    )
    (b * 2).sum().backward()
    (a * b).sum().backward()
    rec("any", str(got))
    h2.remove()
    rec.err("mode", lambda: lib.autograd.graph.register_multi_grad_hook((a,), print, mode="x"))
    # with autograd.grad only the requested inputs count (non-leaves: torch refuses leaves)
    seen.clear()
    a2, b2 = a * 1, b * 1
    h3 = lib.autograd.graph.register_multi_grad_hook((a2, b2), all_hook)
    ga = lib.autograd.grad((a2 * b2).sum(), [a2])
    rec("grad_only", str(seen))
    rec("ga", ga[0])
    h3.remove()
    rec("handle", type(h3).__name__)


def p_tensor_hooks(lib, dt, rec):
    lib.manual_seed(4)
    x = lib.randn(4, 3, dtype=dt, requires_grad=True)
    lin = lib.nn.Linear(3, 2).to(dt)
    h = lin(x)
    h.retain_grad()
    rec("retains", h.retains_grad)
    rec("leaf_retains", x.retains_grad)
    r = h.relu()
    r.retain_grad()
    calls = []
    hd = h.register_hook(lambda g: calls.append(("h", tuple(g.shape))))
    hd2 = h.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: calls.append(("x", float(g.abs().sum()) > 0)))
    loss = r.sum()
    loss.backward(retain_graph=True)
    rec("calls", str(calls))
    rec("h_grad", h.grad)  # retain_grad sees the hooked gradient
    rec("r_grad", r.grad)
    rec("x_grad", x.grad)
    hd.remove()
    hd2.remove()
    h.grad = None
    loss.backward()
    rec("h_grad2", h.grad)
    # a non-leaf's .grad without retain_grad warns and is None
    z = x * 2
    z.sum().backward()
    rec.warns("nonleaf_grad", lambda: z.grad)
    rec("nonleaf_none", z.grad is None)
    # hooks refuse tensors that do not require grad
    rec.err("no_grad_hook", lambda: lib.randn(2).register_hook(lambda g: g))
    rec.err("retain_no_grad", lambda: lib.randn(2).retain_grad())
    # a hook returning a wrong shape
    y = x * 1
    y.register_hook(lambda g: g[0])
    rec.err("bad_shape", lambda: y.sum().backward())
    # post-accumulate hooks on parameters (optimizer-in-backward pattern)
    steps = []
    for n, p in lin.named_parameters():
        p.register_post_accumulate_grad_hook(lambda p, n=n: steps.append((n, tuple(p.grad.shape))))
    lin(x).sum().backward()
    rec("post_acc", str(sorted(steps)))
    rec.err("post_acc_nonleaf", lambda: (x * 2).register_post_accumulate_grad_hook(print))
    # the hook sees grad_fn names in its tensor repr
    reprs = []
    w = lib.ones(2, dtype=dt, requires_grad=True)
    (w * 3).register_hook(lambda g: reprs.append(repr(g)))
    q = w * 3
    q.register_hook(lambda g: reprs.append(repr(g)))
    (q.exp() * 0 + q).sum().backward(create_graph=True)
    rec("reprs", str(reprs))
    rec("w_grad_repr", repr(w.grad))


class _Block:
    """A module class built per library: a linear layer taking a keyword `scale`."""

    cache = {}

    @classmethod
    def make(cls, lib):
        if lib.__name__ not in cls.cache:

            class Block(lib.nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.fc = lib.nn.Linear(n, n)
                    self.act = lib.nn.GELU()

                def forward(self, x, scale=1.0, *, shift=None):
                    y = self.act(self.fc(x)) * scale
                    return y if shift is None else y + shift

            cls.cache[lib.__name__] = Block
        return cls.cache[lib.__name__]


def p_module_hooks(lib, dt, rec):
    lib.manual_seed(5)
    Block = _Block.make(lib)
    blk = Block(4).to(dt)
    x = lib.randn(2, 4, dtype=dt)
    log = []

    def pre(mod, args, kwargs):
        log.append(("pre", type(mod).__name__, len(args), sorted(kwargs)))
        return (args[0] * 2,), {**kwargs, "scale": 0.5}

    def post(mod, args, kwargs, out):
        log.append(("post", len(args), sorted(kwargs), tuple(out.shape)))
        return out + 1

    h1 = blk.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = blk.register_forward_hook(post, with_kwargs=True)
    h3 = blk.fc.register_forward_hook(lambda m, a, o: log.append(("fc", tuple(o.shape))))
    h4 = blk.fc.register_forward_pre_hook(lambda m, a: log.append(("fc_pre",)), prepend=True)
    h5 = blk.fc.register_forward_pre_hook(lambda m, a: log.append(("fc_pre2",)))
    out = blk(x, scale=3.0, shift=lib.ones(4, dtype=dt))
    rec("out", out)
    rec("log", str(log))
    rec("n_hooks", str((len(blk._forward_pre_hooks), len(blk._forward_hooks))))
    rec("kw_flags", str(sorted(blk._forward_hooks_with_kwargs.items()) == [(h2.id, True)]))
    for h in (h1, h2, h3, h4, h5):
        h.remove()
    rec("n_after", str((len(blk._forward_pre_hooks), len(blk._forward_hooks))))
    rec("plain", blk(x))
    # a plain forward hook (no kwargs) replacing the output; a pre hook returning a non-tuple
    log.clear()
    h = blk.register_forward_pre_hook(lambda m, a: a[0] * 0)
    rec("pre_single", blk(x))
    h.remove()

    # always_call hooks run when forward raises
    def boom(m, a):
        raise ValueError("stop")

    hb = blk.fc.register_forward_pre_hook(boom)
    ha = blk.register_forward_hook(lambda m, a, o: log.append("always"), always_call=True)
    rec.err("raises", lambda: blk(x))
    rec("always", str(log))
    hb.remove()
    ha.remove()
    # the handle as a context manager
    with blk.register_forward_hook(lambda m, a, o: o * 0):
        rec("ctx", blk(x))
    rec("ctx_after", blk(x))
    # state-dict hooks
    sd_log = []
    blk._register_state_dict_hook(lambda m, sd, prefix, local: sd_log.append(sorted(sd)))
    blk.state_dict()
    rec("sd_hook", str(sd_log))
    # hooks do not show in the repr
    rec("repr", repr(blk))


def p_backward_hooks(lib, dt, rec):
    lib.manual_seed(6)
    net = _mlp(lib, dt, 6, (4, 5, 3))
    x = lib.randn(2, 4, dtype=dt, requires_grad=True)
    log = []

    def bw(name):
        def hook(mod, gin, gout):
            log.append(
                (
                    name,
                    "bw",
                    [None if g is None else tuple(g.shape) for g in gin],
                    [None if g is None else tuple(g.shape) for g in gout],
                )
            )

        return hook

    def bw_pre(name):
        def hook(mod, gout):
            log.append((name, "pre", [tuple(g.shape) for g in gout]))

        return hook

    hs = []
    for name, m in net.named_modules():
        hs.append(m.register_full_backward_hook(bw(name or "root")))
        hs.append(m.register_full_backward_pre_hook(bw_pre(name or "root")))
    out = net(x)
    rec("out_fn", out.grad_fn.name())
    out.sum().backward()
    rec("log", str(log))
    rec("gx", x.grad)
    for h in hs:
        h.remove()
    # hooks modifying gradients: pre-hook scales grad_output, full hook replaces grad_input
    relu = net[1]
    relu.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    net[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0 + 1,))
    x.grad = None
    net.zero_grad()
    net(x).sum().backward()
    rec("gx_mod", x.grad)
    rec("gw0", net[0].weight.grad)
    rec("gw2", net[2].weight.grad)
    # an input that does not require grad gives grad_input None
    seen = []
    lin = lib.nn.Linear(4, 2).to(dt)
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(str(gi)))
    lin(lib.randn(3, 4, dtype=dt)).sum().backward()
    rec("gi_none", str(seen))
    # mixing the old register_backward_hook with full hooks is refused
    rec.err("mix", lambda: lin.register_backward_hook(lambda m, gi, go: None))
    # in-place on the output of a module with full backward hooks is refused
    m2 = lib.nn.Linear(4, 4).to(dt)
    m2.register_full_backward_hook(lambda m, gi, go: None)
    inp = lib.randn(2, 4, dtype=dt, requires_grad=True)
    rec.err("inplace", lambda: m2(inp).relu_())
    o = m2(inp)
    rec("bw_hook_fn", o.grad_fn.name())
    # a module with no tensor input requiring grad still fires with a None grad_input
    emb = lib.nn.Embedding(5, 3).to(dt)
    es = []
    emb.register_full_backward_hook(lambda m, gi, go: es.append((gi, tuple(go[0].shape))))
    emb(lib.tensor([1, 2])).sum().backward()
    rec("emb", str(es))


def p_global_hooks(lib, dt, rec):
    lib.manual_seed(7)
    mm = lib.nn.modules.module
    net = _mlp(lib, dt, 7, (3, 4, 2))
    x = lib.randn(2, 3, dtype=dt, requires_grad=True)
    log = []
    handles = [
        mm.register_module_forward_pre_hook(lambda m, a: log.append(("gpre", type(m).__name__))),
        mm.register_module_forward_hook(lambda m, a, o: log.append(("gpost", type(m).__name__))),
        mm.register_module_full_backward_hook(
            lambda m, gi, go: log.append(("gbw", type(m).__name__))
        ),
        mm.register_module_full_backward_pre_hook(
            lambda m, go: log.append(("gbwpre", type(m).__name__))
        ),
    ]
    try:
        net[0].register_forward_hook(lambda m, a, o: log.append(("local", type(m).__name__)))
        out = net(x)
        out.sum().backward()
    finally:
        for h in handles:
            h.remove()
    rec("log", str(log))
    log.clear()
    net(x)
    rec("after", str(log))
    rec("gx", x.grad)
    # a global forward hook that changes the output
    h = mm.register_module_forward_hook(lambda m, a, o: o * 2 if isinstance(o, type(x)) else o)
    try:
        rec("doubled", net(x))
    finally:
        h.remove()
    rec("plain", net(x))
    # global buffer/parameter registration hooks
    regs = []
    hp = mm.register_module_parameter_registration_hook(lambda m, n, p: regs.append(("p", n)))
    hb = mm.register_module_buffer_registration_hook(lambda m, n, b: regs.append(("b", n)))
    hm = mm.register_module_module_registration_hook(lambda m, n, s: regs.append(("m", n)))
    try:
        lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    finally:
        hp.remove()
        hb.remove()
        hm.remove()
    rec("regs", str(regs))


def p_anomaly(lib, dt, rec):
    lib.manual_seed(8)
    x = lib.tensor([1.0, 0.0, 2.0], dtype=dt, requires_grad=True)
    rec("enabled0", lib.is_anomaly_enabled())
    with lib.autograd.detect_anomaly():
        rec("enabled", lib.is_anomaly_enabled())
        rec("check_nan", lib.is_anomaly_check_nan_enabled())
        y = (x.sqrt() * 0).sum()
        rec.err("sqrt_nan", lambda: y.backward())
        z = (x / x).sum()
        rec.err("div_nan", lambda: z.backward())
    rec("enabled_after", lib.is_anomaly_enabled())
    with lib.autograd.detect_anomaly(check_nan=False):
        rec("check_nan_off", lib.is_anomaly_check_nan_enabled())
        x.grad = None
        (x / x).sum().backward()
        rec("nan_grad", x.grad)
    # set_detect_anomaly as a function and a context
    lib.autograd.set_detect_anomaly(True)
    try:
        rec("set", lib.is_anomaly_enabled())
        w = lib.tensor([-1.0, 4.0], dtype=dt, requires_grad=True)
        rec.err("log_nan", lambda: w.log().sum().backward())
    finally:
        lib.autograd.set_detect_anomaly(False)
    with lib.autograd.set_detect_anomaly(True):
        rec("ctx", lib.is_anomaly_enabled())
    rec.err("not_bool", lambda: lib.autograd.set_detect_anomaly(1))
    rec.err("check_nan_str", lambda: lib.set_anomaly_enabled(True, "no"))
    lib.autograd.set_detect_anomaly(False)
    rec("ctx_after", lib.is_anomaly_enabled())

    # the mode names a custom Function's node
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    v = lib.ones(2, dtype=dt, requires_grad=True)
    with lib.autograd.detect_anomaly():
        rec.err("custom", lambda: Bad.apply(v).sum().backward())
        # a modified saved tensor: the error gains the anomaly hint
        a = lib.randn(3, dtype=dt, requires_grad=True)
        b = a.exp()
        c = b * 2
        b.add_(1)
        rec.err("modified", lambda: c.sum().backward())
    # nan in a forward is not an anomaly
    with lib.autograd.detect_anomaly():
        q = lib.tensor([float("nan"), 1.0], dtype=dt, requires_grad=True)
        q2 = q * 2
        q2.sum().backward()
        rec("fwd_nan_grad", q.grad)
    rec.warns("warn_enter", lambda: lib.autograd.detect_anomaly().__enter__())
    lib.autograd.set_detect_anomaly(False)
    # the warning naming the failing node, with the forward traceback (its first line)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            y = (x.sqrt() * 0).sum()
            rec.err("sqrt_again", lambda: y.backward())
    texts = [str(w.message).splitlines() for w in caught if w.category is UserWarning]
    rec("anomaly_warnings", str([t[0] for t in texts]))
    rec(
        "traceback_names_file",
        str([any("test_s30_introspect" in line for line in t) for t in texts]),
    )


def p_profiler(lib, dt, rec):
    lib.manual_seed(9)
    net = _mlp(lib, dt, 9, (6, 8, 2))
    x = lib.randn(4, 6, dtype=dt)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]) as prof:
        for step in range(3):
            with lib.profiler.record_function("forward_pass"):
                out = net(x)
            with lib.autograd.profiler.record_function("loss_and_backward"):
                out.pow(2).mean().backward()
            with lib.profiler.record_function(f"step_{step % 2}"):
                pass
    ka = prof.key_averages()
    mine = sorted(
        (e.key, e.count)
        for e in ka
        if e.key in ("forward_pass", "loss_and_backward", "step_0", "step_1")
    )
    rec("mine", str(mine))
    rec("ka_type", type(ka).__name__)
    table = ka.table(sort_by="cpu_time_total", row_limit=3)
    lines = table.splitlines()
    rec("header", " ".join(lines[1].split()))
    rec("n_lines", len(lines) >= 5)
    rec("self_time", lines[-1].split(":")[0])
    ev = [e for e in prof.events() if e.name == "forward_pass"]
    rec("events", len(ev))
    # a record_function used as a decorator-free handle (enter/exit by hand)
    with lib.autograd.profiler.profile() as p2:
        r = lib.autograd.profiler.record_function("manual")
        r.__enter__()
        net(x)
        r.__exit__(None, None, None)
    rec("manual", str([(e.key, e.count) for e in p2.key_averages() if e.key == "manual"]))
    # events by device type, shapes grouped
    D = lib.autograd.DeviceType
    rec("dev_types", str(sorted({str(e.device_type) for e in ka})))
    rec("cpu_only", all(e.device_type == D.CPU for e in prof.events()))
    rec("dev_enum", str((repr(D.CUDA), int(D.CUDA), D(13), lib.profiler.DeviceType is D)))
    with lib.profiler.profile(record_shapes=True) as p3:
        for n in (4, 5, 4):
            with lib.profiler.record_function("fwd"):
                net(lib.randn(n, 6, dtype=dt))
    grouped = p3.key_averages(group_by_input_shape=True)
    rec("grouped", str([(e.key, e.count, e.input_shapes) for e in grouped if e.key == "fwd"]))
    rec("grouped_header", " ".join(grouped.table(row_limit=1).splitlines()[1].split()))
    tot = p3.key_averages().total_average()
    rec("total", str((type(tot).__name__, tot.key, str(tot.device_type))))
    # record_function outside a profiler is harmless
    with lib.profiler.record_function("idle"):
        rec("idle", net(x).shape[0])


def _conv_net(lib, dt, seed):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Sequential(nn.Linear(16, 8), nn.Dropout(0.2), nn.LeakyReLU(0.1)),
        nn.Linear(8, 3, bias=False),
    ).to(dt)


def p_summary(lib, dt, rec):
    net = _conv_net(lib, dt, 10)
    rec("repr", repr(net))
    rec("modules", str([(n, type(m).__name__) for n, m in net.named_modules()]))
    rec("children", str([n for n, _ in net.named_children()]))
    rec("params", str([(n, tuple(p.shape), p.requires_grad) for n, p in net.named_parameters()]))
    rec("buffers", str([(n, tuple(b.shape), str(b.dtype)) for n, b in net.named_buffers()]))
    total = sum(p.numel() for p in net.parameters())
    trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
    for p in net[0].parameters():
        p.requires_grad_(False)
    frozen = sum(p.numel() for p in net.parameters() if not p.requires_grad)
    rec("counts", str((total, trainable, frozen)))
    rec("bytes", sum(p.numel() * p.element_size() for p in net.parameters()))
    rec("buf_bytes", sum(b.nelement() * b.element_size() for b in net.buffers()))
    # a torchsummary-style table driven by forward hooks
    rows = []

    def hook(m, inp, out):
        n = sum(p.numel() for p in m.parameters(recurse=False))
        rows.append(f"{type(m).__name__:<12}{str(list(out.shape)):<16}{n:>6,}")

    hs = [m.register_forward_hook(hook) for m in net.modules() if not list(m.children())]
    net.eval()
    net(lib.randn(2, 1, 4, 4, dtype=dt))
    for h in hs:
        h.remove()
    rec("table", "\n".join(rows))
    # named_parameters with prefixes and duplicates
    shared = lib.nn.Linear(2, 2).to(dt)
    tied = lib.nn.Sequential(shared, lib.nn.Tanh(), shared)
    rec("tied", str([n for n, _ in tied.named_parameters()]))
    rec("tied_all", str([n for n, _ in tied.named_parameters(remove_duplicate=False)]))
    rec("tied_mods", str([n for n, _ in tied.named_modules(remove_duplicate=False)]))
    rec("prefix", str([n for n, _ in net[5].named_parameters(prefix="head")]))
    rec("get", str(net.get_submodule("5.0")))
    rec("get_param", tuple(net.get_parameter("5.0.weight").shape))
    rec.err("get_missing", lambda: net.get_submodule("5.9"))
    rec.err("get_param_missing", lambda: net.get_parameter("5.0.gamma"))
    # the state dict keys and its metadata
    sd = net.state_dict()
    rec("sd_keys", str(list(sd)))
    rec("sd_meta", str(sorted(sd._metadata.items())[:3]))
    rec("train_flags", str([m.training for m in net.modules()]))
    rec("extra", net[0].extra_repr())
    rec("bn_extra", net[1].extra_repr())


def p_grad_norms(lib, dt, rec):
    net = _conv_net(lib, dt, 11)
    lib.manual_seed(11)
    x = lib.randn(6, 1, 4, 4, dtype=dt)
    y = lib.tensor([0, 1, 2, 0, 1, 2])
    opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    net.eval()  # deterministic: no dropout, running statistics
    for step in range(3):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        norms = {n: p.grad.norm(2) for n, p in net.named_parameters() if p.grad is not None}
        for n, v in norms.items():
            rec(f"s{step}.{n}", v)
        total = lib.norm(lib.stack([g.detach() for g in norms.values()]), 2)
        clipped = lib.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5)
        rec(f"s{step}.total", total)
        rec(f"s{step}.clip_ret", clipped)
        after = lib.nn.utils.get_total_norm([p.grad for p in net.parameters()])
        rec(f"s{step}.after", after)
        ratio = {n: (p.grad.norm() / (p.norm() + 1e-12)) for n, p in net.named_parameters()}
        rec(f"s{step}.ratio", lib.stack(list(ratio.values())))
        opt.step()
    # inf norm and clip_grad_value_
    rec("inf", lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0, norm_type="inf"))
    lib.nn.utils.clip_grad_value_(net.parameters(), 0.01)
    rec("maxabs", max(p.grad.abs().max() for p in net.parameters()))
    # non-finite gradients
    net[6].weight.grad[0, 0] = float("nan")
    rec.err(
        "nonfinite",
        lambda: lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0, error_if_nonfinite=True),
    )
    rec("nan_total", lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0))
    # parameters_to_vector for a single flat view of all grads
    net.zero_grad()
    rec("none_grads", str([p.grad is None for p in net.parameters()]))
    rec("vec", lib.nn.utils.parameters_to_vector(net.parameters()).shape[0])


def p_dead_relu(lib, dt, rec):
    lib.manual_seed(12)
    net = lib.nn.Sequential(
        lib.nn.Linear(5, 16),
        lib.nn.ReLU(),
        lib.nn.Linear(16, 16),
        lib.nn.ReLU(),
        lib.nn.Linear(16, 2),
    ).to(dt)
    with lib.no_grad():
        net[2].bias[:6] = -50.0  # six units that never fire
    dead, fired = {}, {}

    def make(name):
        def hook(m, inp, out):
            active = (out > 0).any(0)
            fired[name] = fired.get(name, lib.zeros_like(active)) | active
            dead[name] = (out == 0).all(0).sum().item()

        return hook

    hs = [
        m.register_forward_hook(make(n))
        for n, m in net.named_modules()
        if isinstance(m, lib.nn.ReLU)
    ]
    for _ in range(3):
        net(lib.randn(32, 5, dtype=dt))
    rec("dead", str(sorted(dead.items())))
    for n, f in sorted(fired.items()):
        rec("fired" + n, f)
        rec("frac" + n, 1 - f.to(dt).mean())
    for h in hs:
        h.remove()
    # the gradient through a dead unit is exactly zero
    x = lib.randn(8, 5, dtype=dt)
    net(x).sum().backward()
    rec("dead_rows", (net[2].weight.grad[:6] == 0).all())
    rec("dead_bias", net[2].bias.grad[:6])
    rec("live_bias", net[2].bias.grad[6:])
    # a leaky ReLU has no dead units
    act = lib.nn.functional.leaky_relu(net[2](net[1](net[0](x))), 0.01)
    rec("leaky_zero", (act == 0).sum())
    rec("relu_fn", net[3](net[2](net[1](net[0](x)))).grad_fn.name())


def p_act_stats(lib, dt, rec):
    net = _conv_net(lib, dt, 13)
    stats = {}
    grads = {}

    def fwd(name):
        def hook(m, inp, out):
            o = out.detach()
            stats[name] = lib.stack([o.mean(), o.std(), o.abs().max(), (o == 0).to(dt).mean()])

        return hook

    def bwd(name):
        def hook(m, gin, gout):
            grads[name] = gout[0].detach().pow(2).mean().sqrt()

        return hook

    hs = []
    for n, m in net.named_modules():
        if n and not list(m.children()) and not isinstance(m, lib.nn.Dropout):
            hs.append(m.register_forward_hook(fwd(n)))
            hs.append(m.register_full_backward_hook(bwd(n)))
    lib.manual_seed(13)
    x = lib.randn(4, 1, 4, 4, dtype=dt, requires_grad=True)
    net.train()
    net[5][1].p = 0.0
    out = net(x)
    out.pow(2).sum().backward()
    for n in sorted(stats):
        rec("f" + n, stats[n])
    for n in sorted(grads):
        rec("g" + n, grads[n])
    for h in hs:
        h.remove()
    # running statistics and a histogram of one activation
    rec("rm", net[1].running_mean)
    rec("rv", net[1].running_var)
    rec("nbt", net[1].num_batches_tracked)
    feats = {}
    h = net[4].register_forward_hook(lambda m, i, o: feats.__setitem__("flat", o.detach()))
    net.eval()
    net(x.detach())
    h.remove()
    rec("hist", lib.histc(feats["flat"], bins=5, min=0, max=2))
    q = lib.quantile(feats["flat"].flatten(), lib.tensor([0.1, 0.5, 0.9], dtype=dt))
    rec("quant", q)
    rec("kurt", ((feats["flat"] - feats["flat"].mean()) ** 4).mean() / feats["flat"].var() ** 2)


def p_leaks(lib, dt, rec):
    lib.manual_seed(14)
    # a module with hooks dies with its last reference (the handles hold it weakly)
    m = lib.nn.Linear(3, 3).to(dt)
    store = []
    h1 = m.register_forward_hook(lambda mod, i, o: store.append(o.shape))
    h2 = m.register_full_backward_hook(lambda mod, gi, go: None)
    m(lib.randn(2, 3, dtype=dt, requires_grad=True)).sum().backward()
    ref = weakref.ref(m)
    del m
    rec("module_dead", ref() is None)
    h1.remove()  # removing after the module died is harmless
    h2.remove()
    # a graph dies with its output; a tensor hook's closure does not keep it alive
    x = lib.randn(4, dtype=dt, requires_grad=True)
    mid = x * 2
    y = mid.exp()
    mid_ref = weakref.ref(mid)
    y.register_hook(lambda g: g)
    del y, mid
    rec("graph_dead", mid_ref() is None)
    # activation caches kept by hooks keep tensors alive until cleared
    acts = {}
    net = _mlp(lib, dt, 14, (3, 4, 2))
    hs = [
        mod.register_forward_hook(lambda mod, i, o, n=n: acts.__setitem__(n, o))
        for n, mod in net.named_children()
    ]
    out = net(lib.randn(2, 3, dtype=dt))
    refs = {n: weakref.ref(a) for n, a in acts.items()}
    rec("cached", str(sorted(acts)))
    rec("has_fn", str([a.grad_fn is not None for _, a in sorted(acts.items())]))
    acts.clear()
    del out
    rec("freed", str([r() is None for _, r in sorted(refs.items())]))
    for h in hs:
        h.remove()
    rec("hooks_left", len(net[0]._forward_hooks))
    # RemovableHandle keeps weak references to its dicts
    d = collections.OrderedDict()  # a plain dict cannot be weakly referenced
    rec.err("plain_dict", lambda: lib.utils.hooks.RemovableHandle({}))
    handle = lib.utils.hooks.RemovableHandle(d)
    d[handle.id] = print
    rec("handle_in", handle.id in d)
    handle.remove()
    rec("handle_out", handle.id in d)
    # saved tensors are released by backward; retain_graph keeps them
    a = lib.randn(5, dtype=dt, requires_grad=True)
    b = a.sigmoid()
    s = b.sum()
    ref_b = weakref.ref(b)
    del b
    rec("saved_alive", ref_b() is None)
    s.backward()
    rec("a_grad", a.grad)
    # a node hook holding the node does not leak past the tensor
    c = (a * 3).tanh()
    fn = c.grad_fn
    fn.register_hook(lambda gi, go, fn=fn: None)  # the node holds itself
    cref = weakref.ref(c)
    del c, fn
    rec("out_dead", cref() is None)


def p_hook_errors(lib, dt, rec):
    lib.manual_seed(15)
    lin = lib.nn.Linear(3, 2).to(dt)
    x = lib.randn(4, 3, dtype=dt, requires_grad=True)
    # a forward hook raising propagates
    h = lin.register_forward_hook(lambda m, i, o: 1 / 0)
    rec.err("fwd_raise", lambda: lin(x))
    h.remove()
    # a full backward hook returning the wrong number of gradients
    h = lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    rec.err("bw_count", lambda: lin(x).sum().backward())
    h.remove()
    # a full backward hook returning a wrong shape
    h = lin.register_full_backward_hook(lambda m, gi, go: (gi[0][:1],))
    rec.err("bw_shape", lambda: lin(x).sum().backward())
    h.remove()
    # a backward pre-hook returning the wrong number
    h = lin.register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    rec.err("pre_count", lambda: lin(x).sum().backward())
    h.remove()
    # a forward pre hook with kwargs returning a bad value
    h = lin.register_forward_pre_hook(lambda m, a, k: a, with_kwargs=True)
    rec.err("pre_kwargs", lambda: lin(x))
    h.remove()
    # a tensor hook raising during backward
    y = x * 2

    def bad(g):
        raise ValueError("from hook")

    y.register_hook(bad)
    rec.err("tensor_hook_raise", lambda: y.sum().backward())
    # a tensor hook returning a different dtype
    z = x * 2
    z.register_hook(lambda g: g.float() if g.dtype == lib.float64 else g.double())
    rec.err("dtype", lambda: z.sum().backward())
    # register_hook on a node with a non-callable
    w = (x * 2).sum()
    rec.err("noncallable", lambda: w.grad_fn.register_hook(3))
    # calling backward twice
    v = (x.exp() * 2).sum()
    v.backward()
    rec.err("twice", lambda: v.backward())
    # backward of a non-scalar and of a tensor without grad_fn
    rec.err("nonscalar", lambda: (x * 2).backward())
    rec.err("no_grad_fn", lambda: lib.randn(2, dtype=dt).sum().backward())
    # hooks on a leaf inside no_grad still register
    with lib.no_grad():
        hh = x.register_hook(lambda g: g * 0)
    x.grad = None
    (x * 2).sum().backward()
    rec("zero_grad_via_hook", x.grad)
    hh.remove()


def _fns(lib):
    """Custom Functions built per library (the class objects differ)."""

    class Clip(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, lo):
            ctx.save_for_backward(x)
            ctx.lo = lo
            return x.clamp(min=lo)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x > ctx.lo).to(g.dtype), None

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Clip, Once


def p_custom_nodes(lib, dt, rec):
    lib.manual_seed(16)
    Clip, Once = _fns(lib)
    x = lib.randn(5, dtype=dt, requires_grad=True)
    y = Clip.apply(x, 0.0)
    fn = y.grad_fn
    rec("name", fn.name())
    rec("cls", type(fn).__name__)
    rec("is_node", isinstance(fn, lib.autograd.graph.Node))
    rec("is_node_builtin", isinstance((x * 2).grad_fn, lib.autograd.graph.Node))
    rec("next", str([(f.name() if f else None, i) for f, i in fn.next_functions]))
    rec("needs", str(fn.needs_input_grad))
    rec("saved", fn.saved_tensors[0])
    rec("lo", fn.lo)
    rec("no_saved_attr", hasattr(fn, "_saved_self"))
    rec("builtin_saved_tensors", hasattr((x * 2).grad_fn, "saved_tensors"))
    rec("metadata", str(fn.metadata))
    log = []
    fn.register_hook(lambda gi, go: log.append(("post", len(gi), len(go))))
    fn.register_prehook(lambda go: log.append(("pre", len(go))))
    y.sum().backward()
    rec("log", str(log))
    rec("g", x.grad)
    rec.err("saved_after", lambda: fn.saved_tensors)
    # a hook sees one gradient per Tensor input (the number is not one), and may replace them
    y = Clip.apply(x, 0.5)
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 5,))
    x.grad = None
    y.sum().backward()
    rec("g_hooked", x.grad)
    y = Clip.apply(x, 0.5)
    y.grad_fn.register_hook(lambda gi, go: (gi[0], None))
    rec.err("hook_count", lambda: y.sum().backward())
    # once_differentiable refuses double backward
    z = Once.apply(x)
    (g,) = lib.autograd.grad(z.sum(), x, create_graph=True)
    rec("g_once", g)
    rec("g_once_rg", g.requires_grad)
    rec.err("double", lambda: g.sum().backward())
    # the version counter after in-place ops
    a = lib.zeros(3, dtype=dt)
    v0 = a._version
    a.add_(1)
    a[0] = 5
    a.mul_(2)
    rec("versions", str((v0, a._version)))
    b = a.view(3)
    b.zero_()
    rec("view_version", str((a._version, b._version)))
    lib.autograd.graph.increment_version(a)
    rec("inc", a._version)
    # the class of a built-in node and its module
    rec("node_cls", str(type((x * 2).grad_fn)))
    rec("acc_cls", str(type((x * 2).grad_fn.next_functions[0][0]).__name__))


def p_lstm_hooks(lib, dt, rec):
    lib.manual_seed(17)
    lstm = lib.nn.LSTM(3, 4, batch_first=True).to(dt)
    head = lib.nn.Linear(4, 2).to(dt)
    x = lib.randn(2, 5, 3, dtype=dt, requires_grad=True)
    log = []

    def fwd(m, args, out):
        o, (h, c) = out
        log.append(("fwd", tuple(o.shape), tuple(h.shape), tuple(c.shape)))

    def bw(m, gin, gout):
        log.append(
            (
                "bw",
                [None if g is None else tuple(g.shape) for g in gin],
                [None if g is None else tuple(g.shape) for g in gout],
            )
        )

    lstm.register_forward_hook(fwd)
    lstm.register_full_backward_hook(bw)
    out, (h, c) = lstm(x)
    head(out[:, -1]).sum().backward()
    rec("log", str(log))
    rec("gx", x.grad)
    rec("names", str([n for n, _ in lstm.named_parameters()]))
    rec("gnorms", lib.stack([p.grad.norm() for p in lstm.parameters()]))

    # a forward hook replacing the tuple output
    def replace(m, args, out):
        o, hc = out
        return o * 0, hc

    hd = lstm.register_forward_hook(replace)
    o2, _ = lstm(x)
    rec("replaced", o2.abs().sum())
    hd.remove()
    # gradient of the hidden state only
    log.clear()
    x.grad = None
    lstm.zero_grad()
    _, (h, c) = lstm(x)
    h.sum().backward()
    rec("log_h", str(log))
    rec("gx_h", x.grad)


def p_reprs(lib, dt, rec):
    lib.manual_seed(18)
    net = _mlp(lib, dt, 18, (3, 4, 2))
    x = lib.randn(2, 3, dtype=dt, requires_grad=True)
    seen = []
    for n, m in net.named_children():
        m.register_forward_hook(lambda m, i, o, n=n: seen.append((n, repr(o.grad_fn))))
        m.register_full_backward_hook(
            lambda m, gi, go, n=n: seen.append((n, [repr(g) for g in go if g is not None]))
        )
    out = net(x)
    loss = lib.nn.functional.cross_entropy(out, lib.tensor([0, 1]))
    rec("loss_repr", repr(loss))
    rec("out_repr", repr(out))
    loss.backward(create_graph=True)
    rec("seen", str([s for s in seen if isinstance(s[1], str) and "object at" not in s[1]]))
    rec("grad_reprs", str([s for s in seen if isinstance(s[1], list)]))
    rec("param_repr", repr(net[2].bias))
    rec("grad_repr", repr(net[2].bias.grad))
    rec("x_grad", repr(x.grad))
    for f in [
        lambda t: t.mean(),
        lambda t: t.std(),
        lambda t: t.norm(),
        lambda t: t.softmax(-1),
        lambda t: t.max(),
        lambda t: t.amax(0),
        lambda t: t.flatten(),
        lambda t: t[:, None],
        lambda t: t.square(),
        lambda t: t.rsqrt(),
        lambda t: t.clamp(0),
        lambda t: t.abs(),
        lambda t: lib.nn.functional.mse_loss(t, t.detach() + 1),
        lambda t: lib.nn.functional.layer_norm(t, (3,)),
        lambda t: lib.nn.functional.dropout(t, 0.0),
        lambda t: t.masked_fill(t > 0, 0.0),
        lambda t: lib.where(t > 0, t, 0.0),
        lambda t: t.to(lib.float32 if dt == "float64" else lib.float64),
        lambda t: t.contiguous(),
        lambda t: t.t().contiguous(),
        lambda t: t.sum(0).unsqueeze(0),
        lambda t: lib.einsum("ij,ij->i", t, t),
        lambda t: t.T @ t,
        lambda t: t.split(1)[1],
        lambda t: t.chunk(3, 1)[0],
        lambda t: t.unbind(0)[0],
        lambda t: t.log1p(),
        lambda t: lib.logsumexp(t, 1),
        lambda t: t.cumsum(1),
        lambda t: t.topk(2)[0],
        lambda t: t.sort(1)[0],
        lambda t: lib.nn.functional.softplus(t),
        lambda t: t.exp2(),
    ]:
        r = f(x * 1)
        rec("fn", type(r.grad_fn).__name__)


def p_pruning(lib, dt, rec):
    lib.manual_seed(19)
    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = lib.randn(3, dtype=dt, requires_grad=True)
    log = []
    ea = a.exp()
    sb = b.sin()
    ea.grad_fn.register_hook(lambda gi, go: log.append("exp_post"))
    ea.grad_fn.register_prehook(lambda go: log.append("exp_pre"))
    sb.grad_fn.register_hook(lambda gi, go: log.append("sin_post"))
    ea.register_hook(lambda g: log.append("ea_tensor"))
    sb.register_hook(lambda g: log.append("sb_tensor"))
    y = (ea * sb).sum()
    y.grad_fn.register_hook(lambda gi, go: log.append("sum_post"))
    (ga,) = lib.autograd.grad(y, a, retain_graph=True)
    rec("grad_a_log", str(log))
    rec("ga", ga)
    log.clear()
    # backward(inputs=...) accumulates into the given leaves only
    y.backward(inputs=[b], retain_graph=True)
    rec("inputs_b_log", str(log))
    rec("a_grad_none", a.grad is None)
    rec("b_grad", b.grad)
    log.clear()
    # grad w.r.t. an intermediate: nodes below it do not run
    (gea,) = lib.autograd.grad(y, ea, retain_graph=True)
    rec("inter_log", str(log))
    rec("gea", gea)
    log.clear()
    # order of tensor hooks, retain_grad and node pre-hooks on one output
    z = a * 2
    z.register_hook(lambda g: log.append("t1") or g * 2)
    z.retain_grad()
    z.register_hook(lambda g: log.append("t2"))
    z.grad_fn.register_prehook(lambda go: log.append(("pre", round(float(go[0].sum()), 6))))
    w = z.sum()
    a.grad = None
    w.backward()
    rec("order", str(log))
    rec("z_grad", z.grad)
    rec("a_grad", a.grad)
    log.clear()
    # a tensor used twice: its hook runs once, on the summed gradient
    u = a * 1
    u.register_hook(lambda g: log.append(("u", [round(v, 6) for v in g.tolist()])))
    (u * u + u).sum().backward()
    rec("twice_log", str(log))
    # allow_unused and materialize_grads
    c = lib.randn(2, dtype=dt, requires_grad=True)
    rec.err("unused", lambda: lib.autograd.grad((a * 2).sum(), [a, c]))
    g2 = lib.autograd.grad((a * 2).sum(), [a, c], allow_unused=True)
    rec("unused_none", g2[1] is None)
    g3 = lib.autograd.grad((a * 2).sum(), [a, c], allow_unused=True, materialize_grads=True)
    rec("materialized", g3[1])


def p_checkpoint(lib, dt, rec):
    lib.manual_seed(20)
    from importlib import import_module

    cp = import_module(lib.__name__ + ".utils.checkpoint")
    blocks = lib.nn.ModuleList(
        [lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.Tanh()) for _ in range(3)]
    ).to(dt)
    x = lib.randn(2, 4, dtype=dt, requires_grad=True)
    calls = []
    for i, b in enumerate(blocks):
        b.register_forward_hook(lambda m, a, o, i=i: calls.append(i))
    packed = []
    with lib.autograd.graph.saved_tensors_hooks(
        lambda t: packed.append(tuple(t.shape)) or t, lambda t: t
    ):
        h = x
        for b in blocks:
            h = cp.checkpoint(b, h, use_reentrant=False)
        loss = h.pow(2).sum()
    rec("fwd_calls", str(calls))
    rec("n_packed", len(packed))
    loss.backward()
    rec("bwd_calls", str(calls))
    rec("gx", x.grad)
    rec("gw", blocks[0][0].weight.grad)
    # the same without checkpointing gives the same gradients
    x2 = x.detach().requires_grad_()
    h = x2
    for b in blocks:
        h = b(h)
    blocks.zero_grad()
    h.pow(2).sum().backward()
    rec("gx_plain", x2.grad)
    rec("gw_plain", blocks[0][0].weight.grad)
    # checkpoint_sequential
    seq = lib.nn.Sequential(*[blk for blk in blocks])
    x3 = x.detach().requires_grad_()
    out = cp.checkpoint_sequential(seq, 2, x3, use_reentrant=False)
    out.sum().backward()
    rec("seq", x3.grad)
    rec.warns("no_reentrant_arg", lambda: cp.checkpoint(blocks[0], x.detach()))


def p_parametrize(lib, dt, rec):
    lib.manual_seed(21)
    P = lib.nn.utils.parametrize

    class Sym(lib.nn.Module):
        def forward(self, w):
            return (w + w.T) / 2

    lin = lib.nn.Linear(3, 3).to(dt)
    P.register_parametrization(lin, "weight", Sym())
    rec("names", str([n for n, _ in lin.named_parameters()]))
    rec("is_param", P.is_parametrized(lin))
    rec("is_param_w", P.is_parametrized(lin, "weight"))
    rec("is_param_b", P.is_parametrized(lin, "bias"))
    rec("cls", type(lin).__name__)
    rec("repr", repr(lin))
    rec("sym", (lin.weight - lin.weight.T).abs().max())
    rec("sd", str(list(lin.state_dict())))
    x = lib.randn(2, 3, dtype=dt)
    lin(x).sum().backward()
    rec("g_orig", lin.parametrizations.weight.original.grad)
    with P.cached():
        w1 = lin.weight
        w2 = lin.weight
        rec("cached_same", w1 is w2)
    rec("uncached_same", lin.weight is lin.weight)
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("names_after", str([n for n, _ in lin.named_parameters()]))
    rec("cls_after", type(lin).__name__)
    # weight_norm through parametrizations
    wn = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2).to(dt))
    rec("wn_names", str([n for n, _ in wn.named_parameters()]))
    rec("wn_g", wn.parametrizations.weight.original0)
    sn = lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(3, 2).to(dt))
    rec("sn_names", str([n for n, _ in sn.named_parameters()]))
    rec("sn_buffers", str([n for n, _ in sn.named_buffers()]))
    orth = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3).to(dt))
    w = orth.weight
    rec("orth", (w @ w.T - lib.eye(3, dtype=dt)).abs().max() < 1e-5)
    rec.err("bad_name", lambda: P.register_parametrization(lin, "gamma", Sym()))


def p_grad_cam(lib, dt, rec):
    net = _conv_net(lib, dt, 22)
    net.eval()
    acts, grads = {}, {}

    def fwd(m, inp, out):
        acts["conv"] = out.detach()
        out.register_hook(lambda g: grads.__setitem__("conv", g.detach()))

    h = net[0].register_forward_hook(fwd)
    lib.manual_seed(22)
    x = lib.randn(2, 1, 4, 4, dtype=dt)
    logits = net(x)
    cls = logits.argmax(1)
    rec("cls", cls)
    score = logits.gather(1, cls[:, None]).sum()
    net.zero_grad()
    score.backward()
    h.remove()
    w = grads["conv"].mean((2, 3), keepdim=True)
    cam = lib.relu((w * acts["conv"]).sum(1))
    cam = cam / (cam.amax((1, 2), keepdim=True) + 1e-12)
    rec("cam", cam)
    up = lib.nn.functional.interpolate(
        cam[:, None], size=(8, 8), mode="bilinear", align_corners=False
    )
    rec("up", up)
    # saliency: input gradients, SmoothGrad by averaged noisy gradients
    xs = x.clone().requires_grad_()
    net(xs).gather(1, cls[:, None]).sum().backward()
    rec("saliency", xs.grad.abs().amax(1))
    g = lib.Generator().manual_seed(0)
    total = lib.zeros_like(x)
    for _ in range(4):
        xn = (x + 0.1 * lib.randn(x.shape, generator=g, dtype=dt)).requires_grad_()
        (gx,) = lib.autograd.grad(net(xn).gather(1, cls[:, None]).sum(), xn)
        total += gx
    rec("smooth", total / 4)
    # integrated gradients along a straight path
    alphas = lib.linspace(0, 1, 8, dtype=dt)
    path = (alphas[:, None, None, None, None] * x[None]).reshape(-1, 1, 4, 4).requires_grad_()
    out = net(path).view(8, 2, -1)
    sel = out.gather(2, cls[None, :, None].expand(8, 2, 1)).sum()
    (gp,) = lib.autograd.grad(sel, path)
    ig = x * gp.view(8, 2, 1, 4, 4).mean(0)
    rec("ig", ig)
    rec("ig_sum", ig.sum((1, 2, 3)))
