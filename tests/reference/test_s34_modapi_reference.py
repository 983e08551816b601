"""Session 34 (helper modapi): the nn.Module API surface frameworks exercise, written the way
training libraries and model wrappers use it, run under torch and minitorch with the same seeds
and compared record by record: forward pre/post hooks with kwargs, prepend and always_call (and
what runs when forward or a hook raises); full backward hooks and backward pre-hooks replacing
gradients, on modules of several inputs and outputs (unused outputs, kwargs tensors, inputs that
need no grad, no_grad forwards); the global module hooks (forward, always-called, backward,
backward pre, registration hooks of parameters, buffers and modules); hook handles (context
manager, ids, removal inside a hook); state_dict pre/post hooks, load_state_dict pre/post hooks
(with_module, key renaming, clearing incompatible keys), assign=True, extra state, old BatchNorm
checkpoints, checkpoints holding views of the model's own memory; named_modules/parameters/buffers
with memo, prefix and remove_duplicate over shared submodules and tied weights; get_submodule,
set_submodule, get_parameter and get_buffer errors; to_empty, zero_grad (views, create_graph
grads), requires_grad_, train/eval propagation and overrides; __setattr__/__delattr__ edges and
registration errors; reprs with extra_repr; deepcopy of modules with hooks and gradients; dtype
conversion; a trainer's plumbing end to end (deferred init, EMA, LoRA injection, frozen BN).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- A module with full backward (pre-)hooks sent zeros into its backward for an output that got no
  gradient (an unused output, or a None a pre-hook returned), so the parameters only that output
  reaches got zero gradients; torch's hook returns the None, no gradient flows on and those
  parameters keep grad None (optimizers then skip them).
- load_state_dict of a checkpoint holding a view of the model's own memory (sd["w"].t() of
  model.state_dict()), and in-place ops between a tensor and views of a detached alias of it
  (p[1:].add_(p.detach()[:3])), wrote silently; torch raises its "some elements of the input
  tensor and the written-to tensor refer to a single memory location" overlap error (the
  partial-overlap check took two roots for distinct memory, but detach() makes a root over the
  same memory).

Known and left (documented):
- A backward pre-hook returning None for every output: torch's engine still runs the module's
  nodes on undefined gradients (the input hooks see zeros, x.grad is zeros, the parameters keep
  grad None); minitorch's engine skips a node that got no gradient, so zeros are sent in and the
  parameters get zero gradients. Not recorded.
- Two roots that are detached aliases of parts of one tensor (a[:3].detach().copy_(a[1:].detach()))
  are not checked for overlap (the fast path for two roots stays two attribute reads).
- Module.to_empty(device="cuda:7") on a machine without CUDA: torch's AssertionError "Torch not
  compiled with CUDA enabled", minitorch's CudaUnavailableError. complex dtypes (to(complex64))
  are not supported. Not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import copy
from collections import OrderedDict

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "fwd_hooks_kwargs", "always_call", "bwd_hooks", "bwd_pre_replace", "global_hooks",
    "state_dict_hooks", "load_hooks", "named_shared", "submodule_errors", "set_submodule",
    "to_empty", "zero_grad", "train_eval", "setattr_edges", "reprs", "deepcopy_hooks",
    "hook_errors", "param_errors", "bwd_multi_io", "global_more", "registration_hooks", "handles",
    "extra_state", "load_assign", "call_errors", "conversion", "bwd_none_grads", "load_aliases",
    "framework_flow",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _mlp(lib, dt, seed=0):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3)).to(dt)


# --- the programs ---


def p_fwd_hooks_kwargs(lib, dt, rec):
    nn = lib.nn

    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 2)

        def forward(self, x, scale=1.0, *, shift=None):
            y = self.lin(x) * scale
            return y if shift is None else y + shift

    lib.manual_seed(1)
    m = Scale().to(dt)
    x = _randn(lib, dt, 2, 4, 3)
    log = []

    def pre(mod, args, kwargs):
        log.append(("pre", len(args), sorted(kwargs)))
        return args, {**kwargs, "scale": 2.0}

    def pre_plain(mod, args):
        log.append(("pre_plain", len(args)))
        return (args[0] * 0.5,)

    def post(mod, args, kwargs, out):
        log.append(("post", len(args), sorted(kwargs)))
        return out + 1.0

    def post_plain(mod, args, out):
        log.append(("post_plain", len(args)))

    h1 = m.register_forward_pre_hook(pre, with_kwargs=True)
    h2 = m.register_forward_pre_hook(pre_plain, prepend=True)
    h3 = m.register_forward_hook(post, with_kwargs=True)
    h4 = m.register_forward_hook(post_plain, prepend=True)
    rec("out1", m(x, shift=lib.ones(2, dtype=dt)))
    rec("log1", str(log))
    log.clear()
    h2.remove()
    h4.remove()
    rec.err("twice", lambda: m(x, 3.0))
    rec("out2", m(x))
    rec("log2", str(log))
    log.clear()
    h1.remove()
    h3.remove()
    h1.remove()
    rec("out3", m(x))
    rec("log3", str(log))
    # a pre-hook with kwargs that returns the wrong thing
    m.register_forward_pre_hook(lambda mod, a, k: a, with_kwargs=True)
    rec.err("bad_pre", lambda: m(x))
    rec("handle_id", str(type(h1).__name__))


def p_always_call(lib, dt, rec):
    nn = lib.nn

    class Boom(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                raise ValueError("boom")
            return x * 2

    m = Boom()
    log = []
    m.register_forward_hook(lambda mod, a, o: log.append(("always", o is None)), always_call=True)
    m.register_forward_hook(lambda mod, a, o: log.append(("normal", o is None)))
    rec.err("raise", lambda: m(lib.ones(2, dtype=dt)))
    rec("log1", str(log))
    log.clear()
    rec("ok", m(-lib.ones(2, dtype=dt)))
    rec("log2", str(log))
    log.clear()

    def bad_pre(mod, args):
        raise RuntimeError("pre failed")

    h = m.register_forward_pre_hook(bad_pre)
    rec.err("pre_raise", lambda: m(-lib.ones(2, dtype=dt)))
    rec("log3", str(log))
    h.remove()
    log.clear()

    def bad_post(mod, args, out):
        raise RuntimeError("post failed")

    m.register_forward_hook(bad_post, prepend=True)
    rec.err("post_raise", lambda: m(-lib.ones(2, dtype=dt)))
    rec("log4", str(log))


def p_bwd_hooks(lib, dt, rec):
    m = _mlp(lib, dt, 3)
    x = _randn(lib, dt, 4, 6, 4).requires_grad_(True)
    log = []

    def bh(mod, gin, gout):
        log.append((type(mod).__name__, [g is None for g in gin], [tuple(g.shape) for g in gout]))
        rec(f"gout.{len(log)}", gout[0])
        if gin[0] is not None:
            rec(f"gin.{len(log)}", gin[0])

    hs = [sub.register_full_backward_hook(bh) for sub in m]
    hs.append(m.register_full_backward_hook(bh))
    out = m(x)
    out.pow(2).sum().backward()
    rec("log", str(log))
    rec("xgrad", x.grad)
    rec.params("p", m, grads=True)
    for h in hs:
        h.remove()
    # gradient replacement by the full backward hook on the first layer
    m.zero_grad()
    x.grad = None
    m[0].register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 3.0,))
    m(x).pow(2).sum().backward()
    rec("xgrad_scaled", x.grad)
    # input not requiring grad: grad_input is None
    m2 = _mlp(lib, dt, 4)
    seen = []
    m2.register_full_backward_hook(lambda mod, gin, gout: seen.append(gin[0] is None))
    m2(_randn(lib, dt, 5, 2, 4)).sum().backward()
    rec("no_input_grad", str(seen))


def p_bwd_pre_replace(lib, dt, rec):
    m = _mlp(lib, dt, 5)
    x = _randn(lib, dt, 6, 3, 4).requires_grad_(True)
    log = []

    def pre(mod, gout):
        log.append(len(gout))
        return (gout[0] * 0.5,)

    h = m[2].register_full_backward_pre_hook(pre)
    m(x).sum().backward()
    rec("log", str(log))
    rec("xgrad", x.grad)
    rec.params("p", m, grads=True)
    h.remove()
    m.zero_grad(set_to_none=False)
    x.grad = None
    order = []
    m[0].register_full_backward_pre_hook(lambda mod, g: order.append("pre0"))
    m[0].register_full_backward_hook(lambda mod, gi, go: order.append("post0"))
    m[2].register_full_backward_pre_hook(lambda mod, g: order.append("pre2"), prepend=True)
    m[2].register_full_backward_hook(lambda mod, gi, go: order.append("post2"))
    m(x).sum().backward()
    rec("order", str(order))
    rec("xgrad2", x.grad)
    # returning the wrong number of gradients
    m3 = _mlp(lib, dt, 6)
    m3[2].register_full_backward_pre_hook(lambda mod, g: (g[0], g[0]))
    rec.err("wrong_count", lambda: m3(x).sum().backward())


def p_global_hooks(lib, dt, rec):
    mm = lib.nn.modules.module
    m = _mlp(lib, dt, 7)
    x = _randn(lib, dt, 8, 2, 4).requires_grad_(True)
    log = []
    handles = [
        mm.register_module_forward_pre_hook(
            lambda mod, a: log.append("gpre " + type(mod).__name__)
        ),
        mm.register_module_forward_hook(
            lambda mod, a, o: log.append("gpost " + type(mod).__name__)
        ),
        mm.register_module_full_backward_hook(
            lambda mod, gi, go: log.append("gbwd " + type(mod).__name__)
        ),
    ]
    try:
        m[1].register_forward_hook(lambda mod, a, o: log.append("local " + type(mod).__name__))
        out = m(x)
        rec("log_fwd", str(log))
        log.clear()
        out.sum().backward()
        rec("log_bwd", str(log))
        rec("xgrad", x.grad)
    finally:
        for h in handles:
            h.remove()
    log.clear()
    m(x)
    rec("after_remove", str(log))
    # a global forward hook that changes the output
    h = mm.register_module_forward_hook(
        lambda mod, a, o: o * 2 if isinstance(mod, lib.nn.Tanh) else None
    )
    try:
        rec("doubled", m(x))
    finally:
        h.remove()


def p_state_dict_hooks(lib, dt, rec):
    m = _mlp(lib, dt, 8)
    m[0].register_buffer("steps", lib.tensor(3))
    m[0].register_buffer("tmp", lib.zeros(2, dtype=dt), persistent=False)
    log = []

    def pre(mod, prefix, keep_vars):
        log.append(("pre", type(mod).__name__, prefix, keep_vars))

    def post(mod, sd, prefix, local_metadata):
        log.append(("post", type(mod).__name__, prefix, sorted(local_metadata)))
        sd[prefix + "extra"] = lib.tensor(1.5, dtype=dt)

    m.register_state_dict_pre_hook(pre)
    m[0].register_state_dict_pre_hook(pre)
    m[2]._register_state_dict_hook(post)
    sd = m.state_dict()
    rec("keys", str(list(sd)))
    rec("log", str(log))
    rec("meta", str(sorted(sd._metadata.items())))
    rec("steps", sd["0.steps"])
    rec("keep_vars", str([v.requires_grad for v in m.state_dict(keep_vars=True).values()]))
    rec("not_keep", str([v.requires_grad for v in m.state_dict().values()]))
    log.clear()
    sd2 = m.state_dict(prefix="model.")
    rec("prefixed", str(list(sd2)))
    rec("log2", str(log))
    # post hook returning a new dict is an error-free replacement in torch for the private hook
    m2 = _mlp(lib, dt, 9)
    m2._register_state_dict_hook(lambda mod, sd, p, meta: OrderedDict(only=lib.zeros(1)))
    rec("replaced", str(list(m2.state_dict())))
    # the public post hook must return None
    m3 = _mlp(lib, dt, 9)
    m3.register_state_dict_post_hook(lambda mod, sd, p, meta: {})
    rec.err("public_post_returns", lambda: m3.state_dict())
    # destination positional (deprecated) and an OrderedDict passed in
    dest = OrderedDict()
    out = m3.__class__.state_dict(_mlp(lib, dt, 9), destination=dest)
    rec("dest_is", out is dest)


def p_load_hooks(lib, dt, rec):
    m = _mlp(lib, dt, 10)
    src = _mlp(lib, dt, 11)
    log = []

    def pre(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        log.append(("pre", prefix, strict))
        key = prefix + "old_weight"
        if key in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(key)

    def post(mod, incompatible):
        log.append(
            (
                "post",
                type(mod).__name__,
                list(incompatible.missing_keys),
                list(incompatible.unexpected_keys),
            )
        )

    m[0]._register_load_state_dict_pre_hook(pre)
    m[2]._register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, *rest: log.append(("pre_mod", type(mod).__name__, prefix)),
        with_module=True,
    )
    h = m.register_load_state_dict_post_hook(post)
    sd = src.state_dict()
    sd["0.old_weight"] = sd.pop("0.weight")
    res = m.load_state_dict(sd)
    rec("res", repr(res))
    rec("log", str(log))
    rec("w0", m[0].weight)
    log.clear()
    sd["junk"] = lib.zeros(1)
    del sd["2.bias"]
    res = m.load_state_dict(sd, strict=False)
    rec("res_nonstrict", repr(res))
    rec("log2", str(log))
    rec.err("strict", lambda: m.load_state_dict(sd))
    h.remove()

    def clear_missing(mod, incompatible):
        incompatible.missing_keys.clear()
        incompatible.unexpected_keys.clear()

    m.register_load_state_dict_post_hook(clear_missing)
    rec("cleared", repr(m.load_state_dict(sd)))
    # shape mismatch error text
    bad = src.state_dict()
    bad["0.weight"] = lib.zeros(3, 3, dtype=dt)
    rec.err("shape", lambda: m.load_state_dict(bad))
    rec.err("not_mapping", lambda: m.load_state_dict([1, 2]))


def p_named_shared(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(12)
    shared = nn.Linear(3, 3).to(dt)
    m = nn.Sequential(OrderedDict(a=shared, b=nn.ReLU(), c=shared, d=nn.Sequential(shared)))
    m.tied = shared.weight
    rec("mods", str([n for n, _ in m.named_modules()]))
    rec("mods_dup", str([n for n, _ in m.named_modules(remove_duplicate=False)]))
    rec("mods_prefix", str([n for n, _ in m.named_modules(prefix="net")]))
    memo = set()
    rec("mods_memo", str([n for n, _ in m.d.named_modules(memo=memo)]))
    rec("memo_len", len(memo))
    rec("mods_memo2", str([n for n, _ in m.named_modules(memo=memo)]))
    rec("params", str([n for n, _ in m.named_parameters()]))
    rec("params_dup", str([n for n, _ in m.named_parameters(remove_duplicate=False)]))
    rec("params_norec", str([n for n, _ in m.named_parameters(recurse=False)]))
    rec("params_prefix", str([n for n, _ in m.named_parameters(prefix="x")]))
    rec("children", str([n for n, _ in m.named_children()]))
    rec("n_params", len(list(m.parameters())))
    rec("sd", str(list(m.state_dict())))
    rec("modules_dup", len(list(m.modules())))
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    bn = nn.BatchNorm1d(3)
    m2 = nn.ModuleList([bn, bn])
    rec("bufs", str([n for n, _ in m2.named_buffers()]))
    rec("bufs_dup", str([n for n, _ in m2.named_buffers(remove_duplicate=False)]))


def p_submodule_errors(lib, dt, rec):
    m = _mlp(lib, dt, 13)
    m[0].register_buffer("running", lib.zeros(2, dtype=dt))
    m[0].plain = 5
    rec("get", str(m.get_submodule("0")))
    rec("get_self", m.get_submodule("") is m)
    rec.err("get_missing", lambda: m.get_submodule("7"))
    rec.err("get_nested_missing", lambda: m.get_submodule("0.foo"))
    rec.err("get_not_module", lambda: m.get_submodule("0.weight"))
    rec.err("get_plain", lambda: m.get_submodule("0.plain"))
    rec("param", m.get_parameter("0.bias"))
    rec.err("param_missing", lambda: m.get_parameter("0.nope"))
    rec.err("param_buffer", lambda: m.get_parameter("0.running"))
    rec.err("param_mod", lambda: m.get_parameter("1.weight"))
    rec.err("param_nomod", lambda: m.get_parameter("5.weight"))
    rec("buf", m.get_buffer("0.running"))
    rec.err("buf_missing", lambda: m.get_buffer("0.nope"))
    rec.err("buf_param", lambda: m.get_buffer("0.weight"))
    rec.err("buf_plain", lambda: m.get_buffer("0.plain"))
    rec.err("get_extra", lambda: m.get_extra_state())
    rec.err("attr", lambda: m.nothing)
    rec.err("attr_sub", lambda: m[0].nothing)


def p_set_submodule(lib, dt, rec):
    nn = lib.nn
    m = _mlp(lib, dt, 14)
    m.set_submodule("1", nn.ReLU())
    rec("after", str(m))
    outer = nn.Sequential(OrderedDict(enc=_mlp(lib, dt, 15)))
    outer.set_submodule("enc.2", nn.Identity())
    rec("nested", str(outer))
    rec.err("missing_parent", lambda: outer.set_submodule("dec.0", nn.ReLU()))
    rec.err("strict_missing", lambda: outer.set_submodule("enc.9", nn.ReLU(), strict=True))
    outer.set_submodule("enc.9", nn.ReLU())
    rec("nonstrict_added", str([n for n, _ in outer.named_modules()]))
    rec.err("not_module", lambda: outer.set_submodule("enc.0", 3))
    rec.err("empty", lambda: outer.set_submodule("", nn.ReLU()))
    outer.enc[0].z = 1
    rec.err("attr_not_module", lambda: outer.set_submodule("enc.0.z", nn.ReLU()))
    rec.err("through_attr", lambda: outer.set_submodule("enc.0.z.k", nn.ReLU()))


def p_to_empty(lib, dt, rec):
    m = _mlp(lib, dt, 16)
    m.register_buffer("flag", lib.ones(2, dtype=dt))
    w0 = m[0].weight
    out = m.to_empty(device="cpu")
    rec("returns_self", out is m)
    rec("same_param_obj", m[0].weight is w0)
    rec("shapes", str([(n, tuple(p.shape), str(p.dtype)) for n, p in m.state_dict().items()]))
    rec("is_param", str([type(p).__name__ for p in m.parameters()]))
    rec("req", str([p.requires_grad for p in m.parameters()]))
    m2 = _mlp(lib, dt, 17)
    m2.to_empty(device="cpu", recurse=False)
    rec("norecurse", m2[0].weight)
    rec.err("positional", lambda: m2.to_empty("cpu"))


def p_zero_grad(lib, dt, rec):
    m = _mlp(lib, dt, 18)
    x = _randn(lib, dt, 19, 3, 4)
    m(x).sum().backward()
    g = m[0].weight.grad
    m.zero_grad(set_to_none=False)
    rec("same_obj", m[0].weight.grad is g)
    rec("zeros", m[0].weight.grad)
    m(x).sum().backward()
    rec("accum", m[2].bias.grad)
    m.zero_grad()
    rec("none", str([p.grad is None for p in m.parameters()]))
    # a grad that is a non-leaf (from create_graph) is detached when zeroed in place
    out = m(x).pow(2).sum()
    (gw,) = lib.autograd.grad(out, [m[0].weight], create_graph=True)
    m[0].weight.grad = gw
    rec("grad_has_fn", m[0].weight.grad.grad_fn is not None)
    rec("grad_is_view", m[0].weight.grad._base is not None)
    rec.err("zero_view", lambda: m.zero_grad(set_to_none=False))
    m[0].weight.grad = gw.clone()
    m.zero_grad(set_to_none=False)
    rec("grad_fn_after", m[0].weight.grad.grad_fn is None)
    rec("zeroed", m[0].weight.grad)
    # requires_grad_ on the module
    m.requires_grad_(False)
    rec("req_off", str([p.requires_grad for p in m.parameters()]))
    m[2].requires_grad_()
    rec("req_partial", str([p.requires_grad for p in m.parameters()]))
    rec("ret", m.requires_grad_(True) is m)
    rec.err("req_nonbool", lambda: m.requires_grad_("yes"))


def p_train_eval(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(20)
    m = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(4)))
    m = m.to(dt)
    rec("init", str([s.training for s in m.modules()]))
    rec("eval_ret", m.eval() is m)
    rec("eval", str([s.training for s in m.modules()]))
    m[2].train()
    rec("partial", str([s.training for s in m.modules()]))
    m.train(False)
    rec("train_false", str([s.training for s in m.modules()]))
    rec.err("train_str", lambda: m.train("yes"))
    rec.err("train_int", lambda: m.train(1))
    m.train()
    x = _randn(lib, dt, 21, 6, 4)
    y = m[2](x)
    rec("bn_train", y)
    rec("running", m[2][0].running_mean)
    m.eval()
    rec("bn_eval", m[2](x))
    rec("tracked", m[2][0].num_batches_tracked)


def p_setattr_edges(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(22)
    m = nn.Linear(3, 2).to(dt)
    rec.err("tensor_to_param", lambda: setattr(m, "weight", lib.zeros(2, 3, dtype=dt)))
    m.weight = None
    rec("weight_none", str(m.weight))
    rec("params_after_none", str([n for n, _ in m.named_parameters()]))
    rec("sd_after_none", str(list(m.state_dict())))
    m.weight = nn.Parameter(lib.ones(2, 3, dtype=dt))
    rec("weight_back", m.weight)
    m.register_buffer("buf", None)
    rec("buf_none", str(m.buf))
    rec("bufs", str([n for n, _ in m.named_buffers()]))
    rec("sd_buf_none", str(list(m.state_dict())))
    m.buf = lib.arange(3, dtype=dt)
    rec("buf_set", m.buf)
    rec.err("buf_bad", lambda: setattr(m, "buf", 3))
    del m.buf
    rec.err("buf_deleted", lambda: m.buf)
    rec("bufs_after_del", str([n for n, _ in m.named_buffers()]))
    del m.bias
    rec("params_after_del", str([n for n, _ in m.named_parameters()]))
    rec.err("del_missing", lambda: delattr(m, "nothing"))
    rec.err("reg_dup", lambda: m.register_buffer("weight", lib.zeros(1)))
    rec.err("reg_dot", lambda: m.register_buffer("a.b", lib.zeros(1)))
    rec.err("reg_empty", lambda: m.register_buffer("", lib.zeros(1)))
    rec.err("reg_not_tensor", lambda: m.register_buffer("c", 1.0))
    rec.err("reg_param_not", lambda: m.register_parameter("p", lib.zeros(1)))
    rec.err("reg_param_dot", lambda: m.register_parameter("a.b", None))
    rec.err("reg_name_type", lambda: m.register_parameter(1, None))
    rec.err("add_module_bad", lambda: m.add_module("x", 3))
    rec.err("add_module_attr", lambda: m.add_module("weight", nn.ReLU()))
    m.sub = nn.ReLU()
    rec.err("module_to_tensor", lambda: setattr(m, "sub", lib.zeros(1)))
    m.sub = None
    rec("children_none", str([n for n, _ in m.named_children()]))
    rec("sub_none", str(m.sub))
    m.plain = 3
    rec.err("param_over_plain", lambda: m.register_parameter("plain", None))
    m.p2 = nn.Parameter(lib.zeros(2, dtype=dt))
    rec("p2_registered", str([n for n, _ in m.named_parameters()]))
    m.training = False
    rec("training_attr", m.training)
    rec.err("before_init", lambda: _before_init(nn, lib))


def _before_init(nn, lib):
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(lib.zeros(1))
            super().__init__()

    return Bad()


def p_reprs(lib, dt, rec):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.conv = nn.Conv2d(2, 3, k, padding=1, bias=False)
            self.body = nn.Sequential(nn.Linear(3, 3), nn.GELU(approximate="tanh"))
            self.heads = nn.ModuleDict({"a": nn.Linear(3, 1), "b": nn.Identity()})
            self.plist = nn.ParameterList([nn.Parameter(lib.zeros(2, dtype=dt))])

        def extra_repr(self):
            return f"k={self.k},\nmulti=True"

    lib.manual_seed(23)
    m = Block(3)
    rec("repr", repr(m))
    rec("seq_repeat", repr(nn.Sequential(*[nn.Linear(2, 2) for _ in range(4)], nn.ReLU())))
    rec("empty", repr(nn.Module()))
    rec("ml", repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])))
    rec("pdict", repr(nn.ParameterDict({"x": nn.Parameter(lib.zeros(2, 2, dtype=dt))})))
    rec("name", m._get_name())
    rec("dir_has", str([n for n in ("conv", "body", "k", "forward") if n in dir(m)]))


def p_deepcopy_hooks(lib, dt, rec):
    m = _mlp(lib, dt, 24)
    calls = []
    m.register_forward_hook(lambda mod, a, o: calls.append(id(mod) == id(m)))
    m[0].register_forward_pre_hook(lambda mod, a: (a[0] * 2,))
    m[2].register_full_backward_hook(lambda mod, gi, go: calls.append("bwd"))
    m2 = copy.deepcopy(m)
    rec("weight_eq", m2[0].weight)
    rec("is_same", m2[0].weight is m[0].weight)
    rec("n_hooks", str([len(m2._forward_hooks), len(m2[0]._forward_pre_hooks)]))
    x = _randn(lib, dt, 25, 3, 4)
    y = m2(x)
    rec("y", y)
    y.sum().backward()
    rec("calls", str(calls))
    rec("grads", m2[0].weight.grad)
    rec("orig_grad_none", m[0].weight.grad is None)
    m3 = copy.deepcopy(m2)
    rec("grad_copied", m3[0].weight.grad)
    rec("grad_copied_is", m3[0].weight.grad is m2[0].weight.grad)
    # deepcopy of a module with a non-leaf parameter attribute raises
    m4 = _mlp(lib, dt, 26)
    m4.cache = m4[0].weight * 2
    rec.err("nonleaf", lambda: copy.deepcopy(m4))


def p_hook_errors(lib, dt, rec):
    m = _mlp(lib, dt, 27)
    x = _randn(lib, dt, 28, 2, 4).requires_grad_(True)
    # a forward hook returning a tuple for a single output is the new output
    h = m[1].register_forward_hook(lambda mod, a, o: (o,))
    rec.err("tuple_out", lambda: m(x))
    h.remove()
    h = m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    rec.err("bwd_wrong_count", lambda: m(x).sum().backward())
    h.remove()
    h = m.register_full_backward_hook(lambda mod, gi, go: (gi[0][:1],))
    rec.err("bwd_wrong_shape", lambda: m(x).sum().backward())
    h.remove()
    # an in-place op on the output of a module with a full backward hook
    m[0].register_full_backward_hook(lambda mod, gi, go: None)
    rec.err("inplace_out", lambda: m[0](x).add_(1))
    rec.err("inplace_view", lambda: m[0](x)[0].add_(1))
    # a module returning a non-tensor with a backward hook
    nn = lib.nn

    class Dict(nn.Module):
        def forward(self, x):
            return {"y": x * 2}

    d = Dict()
    d.register_full_backward_hook(lambda mod, gi, go: None)
    rec("dict_out", d(x)["y"])
    # the old register_backward_hook mixed with the full one
    e = nn.Linear(4, 2).to(dt)
    e.register_full_backward_hook(lambda mod, gi, go: None)
    rec.err("mixed", lambda: e.register_backward_hook(lambda mod, gi, go: None))


def p_param_errors(lib, dt, rec):
    nn = lib.nn
    m = _mlp(lib, dt, 29)
    rec.err("param_of_param", lambda: nn.Parameter(nn.Parameter(lib.zeros(2))))
    rec.err("param_int", lambda: nn.Parameter(lib.zeros(2, dtype=lib.int64)))
    p = nn.Parameter(lib.zeros(2, dtype=lib.int64), requires_grad=False)
    rec("int_param", repr(p))
    rec("param_repr", repr(nn.Parameter(lib.ones(2, dtype=dt))))
    rec("param_none", repr(nn.Parameter()))
    rec.err("state_dict_bad_arg", lambda: m.state_dict(1, 2, 3, 4))
    rec.err("load_bad_type", lambda: m.load_state_dict({"0.weight": 3}))
    rec.err("apply_bad", lambda: m.apply(3))
    rec("apply_order", str(_apply_order(m)))
    rec.err("getitem", lambda: m[5])
    rec.err("to_bad", lambda: m.to("bogus"))
    rec.err("to_int", lambda: m.to(lib.int32))


def _apply_order(m):
    out = []
    m.apply(lambda s: out.append(type(s).__name__))
    return out


def p_bwd_multi_io(lib, dt, rec):
    nn = lib.nn

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, a, b, k=2, *, c=None):
            h = self.lin(a) * b
            out = (h, h.sum(-1), a.detach())
            return out if c is None else (h + c, h.sum(-1), a.detach())

    lib.manual_seed(30)
    m = Two().to(dt)
    a = _randn(lib, dt, 31, 2, 3).requires_grad_(True)
    b = _randn(lib, dt, 32, 2, 3)
    c = _randn(lib, dt, 33, 2, 3).requires_grad_(True)
    log = []

    def hook(mod, gin, gout):
        log.append(("gin", [None if g is None else tuple(g.shape) for g in gin]))
        log.append(("gout", [None if g is None else tuple(g.shape) for g in gout]))
        for i, g in enumerate(gout):
            if g is not None:
                rec(f"gout{len(log)}.{i}", g)

    def pre(mod, gout):
        log.append(("pre", [None if g is None else tuple(g.shape) for g in gout]))

    m.register_full_backward_hook(hook)
    m.register_full_backward_pre_hook(pre)
    h, s, d = m(a, b, 3)
    rec("d_req", d.requires_grad)
    (h.pow(2).sum() + s.sum()).backward()
    rec("log1", str(log))
    rec("agrad", a.grad)
    log.clear()
    a.grad = None
    h, s, d = m(a, b, c=c)
    h.sum().backward()
    rec("log2", str(log))
    rec("cgrad", c.grad)
    rec("agrad2", a.grad)
    log.clear()
    # the second input requires grad too
    b.requires_grad_(True)
    h, s, d = m(a, b)
    s.sum().backward()
    rec("log3", str(log))
    rec("bgrad", b.grad)
    log.clear()
    with lib.no_grad():
        m(a, b)
    rec("log_nograd", str(log))


def p_global_more(lib, dt, rec):
    mm = lib.nn.modules.module
    m = _mlp(lib, dt, 34)
    x = _randn(lib, dt, 35, 2, 4).requires_grad_(True)
    log = []
    hs = [
        mm.register_module_full_backward_pre_hook(
            lambda mod, g: log.append("gbpre " + type(mod).__name__)
        ),
        mm.register_module_forward_hook(
            lambda mod, a, o: log.append("galways " + type(mod).__name__), always_call=True
        ),
        mm.register_module_forward_pre_hook(
            lambda mod, a: log.append("gpre " + type(mod).__name__)
        ),
    ]
    try:
        m[2].register_forward_pre_hook(lambda mod, a: log.append("lpre"))
        m[2].register_forward_hook(lambda mod, a, o: log.append("lpost"))
        m[2].register_full_backward_pre_hook(lambda mod, g: log.append("lbpre"))
        out = m(x)
        rec("log_fwd", str(log))
        log.clear()
        out.sum().backward()
        rec("log_bwd", str(log))
        log.clear()
        rec("xgrad", x.grad)
    finally:
        for h in hs:
            h.remove()
    # global hooks with kwargs
    h = (
        mm.register_module_forward_hook(
            lambda mod, a, kw, o: log.append(("kw", type(mod).__name__, sorted(kw))),
            with_kwargs=True,
        )
        if _has_kw(mm.register_module_forward_hook)
        else None
    )
    try:
        m(x)
        rec("kw_log", str(log))
    finally:
        if h is not None:
            h.remove()


def _has_kw(fn):
    import inspect

    return "with_kwargs" in inspect.signature(fn).parameters


def p_registration_hooks(lib, dt, rec):
    nn = lib.nn
    mm = nn.modules.module
    log = []

    def on_param(mod, name, param):
        log.append(
            ("param", type(mod).__name__, name, None if param is None else tuple(param.shape))
        )

    def on_buffer(mod, name, buf):
        log.append(("buffer", type(mod).__name__, name))
        if buf is not None:
            return buf * 0 + 7

    def on_module(mod, name, sub):
        log.append(("module", type(mod).__name__, name, type(sub).__name__))

    hs = [
        mm.register_module_parameter_registration_hook(on_param),
        mm.register_module_buffer_registration_hook(on_buffer),
        mm.register_module_module_registration_hook(on_module),
    ]
    try:
        lib.manual_seed(36)
        m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).to(dt)
        m.extra = nn.Parameter(lib.zeros(3, dtype=dt))
        m.register_buffer("scale", lib.ones(2, dtype=dt))
        m.head = nn.ReLU()
    finally:
        for h in hs:
            h.remove()
    rec("log", str(log))
    rec("scale", m.scale)
    rec("bn_mean", m[1].running_mean)


def p_handles(lib, dt, rec):
    m = _mlp(lib, dt, 37)
    x = _randn(lib, dt, 38, 2, 4)
    log = []
    with m.register_forward_hook(lambda mod, a, o: log.append("ctx")) as h:
        m(x)
        rec("in_ctx", str(log))
        rec("has_id", isinstance(h.id, int))
    m(x)
    rec("after_ctx", str(log))
    h1 = m.register_forward_hook(lambda mod, a, o: log.append("a"))
    h2 = m.register_forward_hook(lambda mod, a, o: log.append("b"), prepend=True)
    h3 = m.register_forward_hook(lambda mod, a, o: log.append("c"))
    log.clear()
    m(x)
    rec("order", str(log))
    rec("ids_increase", h1.id < h2.id < h3.id)
    h2.remove()
    log.clear()
    m(x)
    rec("order2", str(log))
    # remove during the hook run
    log.clear()

    def self_remove(mod, a, o):
        log.append("once")
        h4.remove()

    h4 = m.register_forward_hook(self_remove)
    m(x)
    m(x)
    rec("once", str(log))
    # a forward hook that replaces the output, chained
    m2 = _mlp(lib, dt, 39)
    m2.register_forward_hook(lambda mod, a, o: o * 2)
    m2.register_forward_hook(lambda mod, a, o: o + 1)
    rec("chained", m2(x))
    m3 = _mlp(lib, dt, 39)
    m3.register_forward_pre_hook(lambda mod, a: a[0] * 2)
    rec("pre_single", m3(x))


def p_extra_state(lib, dt, rec):
    nn = lib.nn

    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.count = 0

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    lib.manual_seed(40)
    m = nn.Sequential(Counter(), nn.ReLU()).to(dt)
    m[0].count = 5
    sd = m.state_dict()
    rec("keys", str(list(sd)))
    rec("extra", str(sd["0._extra_state"]))
    m2 = nn.Sequential(Counter(), nn.ReLU()).to(dt)
    rec("load", repr(m2.load_state_dict(sd)))
    rec("count", m2[0].count)
    del sd["0._extra_state"]
    rec.err("missing_extra", lambda: m2.load_state_dict(sd))
    rec("nonstrict", repr(m2.load_state_dict(sd, strict=False)))


def p_load_assign(lib, dt, rec):
    nn = lib.nn
    m = _mlp(lib, dt, 41)
    src = _mlp(lib, dt, 42)
    w_obj = m[0].weight
    sd = src.state_dict()
    rec("assign", repr(m.load_state_dict(sd, assign=True)))
    rec("new_obj", m[0].weight is not w_obj)
    rec("is_param", type(m[0].weight).__name__)
    rec("req", m[0].weight.requires_grad)
    rec("shares", m[0].weight.data_ptr() == sd["0.weight"].data_ptr())
    rec("val", m[0].weight)
    # copy load keeps the object and copies values
    m2 = _mlp(lib, dt, 43)
    w2 = m2[0].weight
    m2.load_state_dict(sd)
    rec("same_obj", m2[0].weight is w2)
    rec("no_share", m2[0].weight.data_ptr() != sd["0.weight"].data_ptr())
    # dtype conversion on copy load
    sd32 = {k: v.float() for k, v in sd.items()}
    m2.load_state_dict(sd32)
    rec("dtype_kept", str(m2[0].weight.dtype))
    # a BatchNorm state dict without num_batches_tracked (an old checkpoint)
    bn = nn.BatchNorm1d(3).to(dt)
    old = bn.state_dict()
    del old["num_batches_tracked"]
    rec.err("bn_missing", lambda: bn.load_state_dict(old))
    old._metadata = OrderedDict({"": {"version": 1}})
    rec("bn_old_version", repr(bn.load_state_dict(old)))
    rec("nbt", bn.num_batches_tracked)
    # loading into a None parameter slot
    m3 = _mlp(lib, dt, 44)
    m3[0].bias = None
    rec.err("into_none", lambda: m3.load_state_dict(sd))
    rec("into_none_ns", repr(m3.load_state_dict(sd, strict=False)))


def p_call_errors(lib, dt, rec):
    nn = lib.nn

    class NoFwd(nn.Module):
        pass

    rec.err("no_forward", lambda: NoFwd()(lib.zeros(1, dtype=dt)))
    rec.err("module_forward", lambda: nn.Module()(1))
    rec.err("missing_arg", lambda: nn.Linear(2, 2).to(dt)())
    rec.err("extra_arg", lambda: nn.ReLU()(lib.zeros(1, dtype=dt), 2))
    rec.err("seq_kw", lambda: nn.Sequential(nn.ReLU())(lib.zeros(1, dtype=dt), k=1))
    rec.err("ml_call", lambda: nn.ModuleList([nn.ReLU()])(lib.zeros(1)))
    rec.err("md_call", lambda: nn.ModuleDict({"a": nn.ReLU()})(lib.zeros(1)))
    rec.err("not_module_hook", lambda: nn.ReLU().register_forward_hook(3)(1))
    m = nn.Linear(2, 2).to(dt)
    rec.err("dtype_mismatch", lambda: m(lib.zeros(1, 2, dtype=lib.float16)))
    rec.err("shape_mismatch", lambda: m(lib.zeros(3, 5, dtype=dt)))


def p_conversion(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(45)
    m = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    m.register_buffer("idx", lib.arange(3))
    x = _randn(lib, dt, 46, 4, 2).requires_grad_(True)
    m(x.float()).sum().backward()
    g = m[0].weight.grad
    p = m[0].weight
    m.to(dt)
    rec("dtypes", str([(n, str(t.dtype)) for n, t in m.state_dict().items()]))
    rec("same_param", m[0].weight is p)
    rec("grad_dtype", str(m[0].weight.grad.dtype))
    rec("grad_same", m[0].weight.grad is g)
    m.half()
    rec("half", str([str(t.dtype) for t in m.state_dict().values()]))
    m.double()
    rec("double", m[0].weight)
    m.type(lib.float32)
    rec("type", str([str(t.dtype) for t in m.state_dict().values()]))
    rec.err("type_str", lambda: m.type("torch.DoubleTensor"))
    rec("float_ret", m.float() is m)


def p_bwd_none_grads(lib, dt, rec):
    nn = lib.nn

    class Heads(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 2)
            self.b = nn.Linear(3, 4)

        def forward(self, x):
            return self.a(x), self.b(x)

    x0 = _randn(lib, dt, 47, 5, 3)
    w = _randn(lib, dt, 48, 5, 4)
    for tag in ("unused", "pre_none", "pre_keep", "hook_only"):
        lib.manual_seed(49)
        m = Heads().to(dt)
        seen = []
        if tag == "pre_none":
            m.register_full_backward_pre_hook(lambda mod, g: (None, g[1] * 2))
        elif tag == "pre_keep":
            m.register_full_backward_pre_hook(lambda mod, g: tuple(g))
        m.register_full_backward_hook(
            lambda mod, gi, go, add=seen.append: add([g is None for g in go])
        )
        x = x0.clone().requires_grad_(True)
        ya, yb = m(x)
        loss = (yb * w).sum() if tag != "hook_only" else (yb * w).sum() + ya.sum()
        loss.backward()
        rec(tag + ".seen", str(seen))
        rec(tag + ".none", str([n for n, p in m.named_parameters() if p.grad is None]))
        rec(tag + ".x", x.grad)
        rec.params(tag, m, grads=True)


def p_load_aliases(lib, dt, rec):
    m = _mlp(lib, dt, 50)
    sd = m.state_dict()
    rec("alias", sd["0.weight"].data_ptr() == m[0].weight.data_ptr())
    # a checkpoint edited with views of the model's own memory: torch's overlap error
    bad = dict(sd)
    bad["2.weight"] = sd["2.weight"].flip(0).t().t()
    rec.err("flip_ok", lambda: m.load_state_dict(bad))
    w = m[0].weight.detach()
    bad = {**sd, "0.weight": w.roll(1, 0)}
    rec.err("roll_ok", lambda: m.load_state_dict(bad))
    sq = _mlp(lib, dt, 51)
    sq[2] = lib.nn.Linear(3, 3).to(dt)
    sd2 = sq.state_dict()
    rec.err("transposed", lambda: sq.load_state_dict({**sd2, "2.weight": sd2["2.weight"].t()}))
    rec.err("shifted", lambda: sq.load_state_dict({**sd2, "2.bias": sd2["2.weight"][1]}))
    rec.err("same", lambda: sq.load_state_dict(sd2))
    rec("after", sq[2].weight)
    # in-place ops between a parameter and a detached alias of it
    p = lib.nn.Parameter(_randn(lib, dt, 52, 4))
    d = p.detach()
    with lib.no_grad():
        rec.err("add_shift", lambda: p[1:].add_(d[:3]))
        rec.err("copy_rev_view", lambda: p.copy_(d.flip(0)))
        rec.err("copy_disjoint", lambda: p[:2].copy_(d[2:]))
        rec.err("mul_self", lambda: p.mul_(d))
    rec("p", p)


def p_framework_flow(lib, dt, rec):
    """A trainer's module plumbing: meta-free deferred init by to_empty + load_state_dict,
    an EMA copy by deepcopy, feature capture by forward hooks, gradient clipping by backward
    hooks, LoRA-like injection by set_submodule, frozen BatchNorm by a train override."""
    nn = lib.nn

    class FrozenBNNet(nn.Sequential):
        def train(self, mode=True):
            super().train(mode)
            for sub in self.modules():
                if isinstance(sub, nn.BatchNorm1d):
                    sub.eval()
            return self

    class LoRA(nn.Module):
        def __init__(self, base, r=2):
            super().__init__()
            self.base = base
            self.a = nn.Parameter(lib.zeros(r, base.in_features, dtype=dt))
            self.b = nn.Parameter(lib.ones(base.out_features, r, dtype=dt) * 0.1)

        def forward(self, x):
            return self.base(x) + x @ self.a.t() @ self.b.t()

        def extra_repr(self):
            return f"r={self.a.shape[0]}"

    lib.manual_seed(53)
    src = FrozenBNNet(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)).to(dt)
    src[1].running_mean.fill_(0.3)
    net = FrozenBNNet(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)).to(dt)
    net.to_empty(device="cpu")
    rec("load", repr(net.load_state_dict(src.state_dict())))
    net.train()
    rec("modes", str([s.training for s in net.modules()]))
    ema = copy.deepcopy(net).requires_grad_(False)
    net.set_submodule("3", LoRA(net[3]))
    rec("repr", repr(net))
    for n, p in net.named_parameters():
        p.requires_grad_(n.startswith("3.a") or n.startswith("3.b"))
    feats = {}
    net[2].register_forward_hook(lambda mod, a, o: feats.__setitem__("relu", o.detach()))
    net[3].register_full_backward_hook(
        lambda mod, gi, go: (gi[0].clamp(-0.05, 0.05),) if gi[0] is not None else None
    )
    opt = lib.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.5)
    x = _randn(lib, dt, 54, 8, 4)
    y = _randn(lib, dt, 55, 8, 2)
    for step in range(3):
        opt.zero_grad()
        loss = (net(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        with lib.no_grad():
            for pe, pn in zip(
                ema.parameters(),
                (
                    net[0].weight,
                    net[0].bias,
                    net[1].weight,
                    net[1].bias,
                    net[3].base.weight,
                    net[3].base.bias,
                ),
                strict=True,
            ):
                pe.mul_(0.9).add_(pn, alpha=0.1)
    rec("feats", feats["relu"])
    rec("lora_b", net[3].b)
    rec("bn_mean", net[1].running_mean)
    rec("trainable", str([n for n, p in net.named_parameters() if p.requires_grad]))
    rec("ema_out", ema.eval()(x))
    rec("grads_none", str([n for n, p in net.named_parameters() if p.grad is None]))
