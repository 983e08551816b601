"""Session 37 (helper tying): parameter sharing and tying as users write it, run under torch and
minitorch with the same seeds and compared record by record: tied input/output embeddings
(self.head.weight = self.embed.weight) trained several SGD and Adam steps; a module used twice in
forward; the same Linear in several ModuleList slots; parameters(), named_parameters(
remove_duplicate=True/False), named_modules, named_buffers and state_dict of tied models (both
keys kept); load_state_dict of tied models (strict, non-strict, assign=True); gradient
accumulation into a shared weight; optimizers given duplicate parameters (the warning and the
ValueError); copy.deepcopy of tied models; module.to(dtype)/.double()/.half() keeping ties;
parameters_to_vector / vector_to_parameters; weight sharing across time steps in a hand-written
RNN; siamese networks; ALBERT-style cross-layer sharing; tied autoencoders (W and W.t(), conv and
conv_transpose); register_parameter with an existing Parameter; del and reassignment of tied
attributes; parametrizations on a tied weight; torch.func.functional_call of tied models.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Also: conversions under torch.__future__'s overwrite/swap flags, save/load and pickle of tied
models, Embedding(_weight=)/from_pretrained, pruning, weight_norm, spectral_norm and orthogonal
on a tied weight, right_inverse through a tied original, checkpoint of a module used twice,
func.grad/hessian/vmap/stack_module_state over tied models, autograd.grad with a repeated input,
ParameterList/ParameterDict/ModuleList/ModuleDict holding one object twice, hooks on a reused
module, tied LSTM weights, .data assignment through one owner, Embedding options (padding_idx,
scale_grad_by_freq, sparse, max_norm) with a tied head, a WGAN-GP critic using one layer twice,
and every optimizer (for-loop path) given a parameter twice.

Found and fixed:
- SGD with momentum given a parameter twice in a group (torch warns "optimizer contains a
  parameter group with duplicate parameters" and keeps it) read the momentum buffer at each
  place as it stepped, so the second place of the first step already found the buffer the first
  place made. torch's _init_group reads every buffer before any update: both places start
  without one (two fresh buffers, the later kept) and later steps update the one buffer twice.
  The fused half-precision path (float16/bfloat16, fused=True) reads the same snapshot, as
  torch's fused kernel (which takes the list of buffers) does.

Known and left (documented):
- foreach=True / fused=True optimizers given a parameter twice: torch's multi-tensor and fused
  kernels apply each list-wide op once per entry (a duplicate's step counter, exp_avg and
  momentum are advanced twice per op before the next op), so their numbers differ from the
  for-loop's; minitorch's foreach/fused flags run the for-loop (documented in the optimizers).
  The programs use the default (for-loop) path, torch's default on CPU.
- SGD(foreach=True, nesterov=True) in torch adds the momentum into p.grad in place (the
  gradient a user reads after step() changes); minitorch leaves p.grad as it was.
- SparseAdam takes dense gradients here (torch refuses them; minitorch has no sparse tensors;
  documented in SparseAdam).
- A module moved to the meta device (.to("meta")) loses its ties in both libraries; torch's
  F.linear of a CPU input and a meta weight then returns an uninitialised CPU tensor, where
  minitorch raises the device-mismatch RuntimeError. Not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here.
"""

from __future__ import annotations

import copy
import importlib

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "tied_lm_sgd", "tied_lm_adam", "module_twice", "modulelist_same", "names_dedup",
    "state_dict_tied", "load_strict", "load_assign", "grad_accum", "optim_duplicates",
    "deepcopy_tied", "to_dtype", "params_vector", "rnn_shared", "siamese", "albert",
    "register_existing", "del_reassign", "parametrize_tied", "functional_call_tied",
    "tied_autoencoder", "conv_tied", "apply_visits", "freeze_shared", "shared_buffer",
    "optim_state_tied", "clip_shared", "conversion_futures", "save_load", "embedding_from",
    "prune_tied", "weight_norm_tied", "checkpoint_twice", "func_grad_tied", "autograd_grad_dup",
    "paramlist_shared", "container_dup", "optim_dup_kinds", "optim_dup_state_dict", "lbfgs_tied",
    "swa_tied", "meta_to_empty", "parametrize_inverse", "spectral_tied", "stack_module_state",
    "orthogonal_tied", "half_grad", "hooks_reused", "lstm_tied", "data_assign",
    "transfer_parametrizations", "embedding_options", "pickle_copy", "double_backward_shared",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- models written the way users write them ---


def _tied_lm(lib, dt, vocab=11, dim=6, seed=0):
    nn = lib.nn

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.proj = nn.Linear(dim, dim)
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, vocab, bias=False)
            self.head.weight = self.embed.weight

        def forward(self, idx):
            h = self.embed(idx)
            h = self.norm(h + lib.tanh(self.proj(h)))
            return self.head(h)

    lib.manual_seed(seed)
    return TinyLM().to(dt)


def _tokens(lib, seed, vocab, *shape):
    g = lib.Generator().manual_seed(seed)
    return lib.randint(0, vocab, shape, generator=g)


def _record_model(rec, tag, model, grads=True):
    for n, p in model.named_parameters():
        rec(f"{tag}.{n}", p)
        if grads and p.grad is not None:
            rec(f"{tag}.g.{n}", p.grad)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_tied_lm_sgd(lib, dt, rec):
    F = lib.nn.functional
    model = _tied_lm(lib, dt)
    rec("tied", model.head.weight is model.embed.weight)
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("count", len(list(model.parameters())))
    rec("numel", sum(p.numel() for p in model.parameters()))
    opt = lib.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    x = _tokens(lib, 1, 11, 3, 5)
    y = _tokens(lib, 2, 11, 3, 5)
    for step in range(4):
        opt.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, 11), y.reshape(-1))
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"g{step}", model.embed.weight.grad)
        rec(f"same_grad{step}", model.head.weight.grad is model.embed.weight.grad)
        opt.step()
    _record_model(rec, "end", model)
    rec("still_tied", model.head.weight is model.embed.weight)


def p_tied_lm_adam(lib, dt, rec):
    F = lib.nn.functional
    model = _tied_lm(lib, dt, seed=3)
    opt = lib.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.1)
    x = _tokens(lib, 4, 11, 2, 7)
    for step in range(5):
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.transpose(1, 2), x[:, 1:])
        opt.zero_grad(set_to_none=step % 2 == 0)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    _record_model(rec, "end", model)
    rec("state_len", len(opt.state))
    rec("exp_avg", opt.state[model.embed.weight]["exp_avg"])
    rec("sd_params", str(opt.state_dict()["param_groups"][0]["params"]))


def p_module_twice(lib, dt, rec):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
            self.out = nn.Linear(4, 2)

        def forward(self, x):
            return self.out(self.block(self.block(x)) + self.block(x))

    lib.manual_seed(5)
    net = Net().to(dt)
    x = _randn(lib, dt, 6, 5, 4)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        loss = net(x).pow(2).mean()
        loss.backward()
        rec(f"loss{step}", loss)
        _record_model(rec, f"s{step}", net)
        opt.step()
    rec("nparams", len(list(net.parameters())))
    rec("modules", str([n for n, _ in net.named_modules()]))


def p_modulelist_same(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(7)
    lin = nn.Linear(3, 3).to(dt)
    other = nn.Linear(3, 3).to(dt)
    layers = nn.ModuleList([lin, other, lin, lin])
    rec("len", len(layers))
    rec("names", str([n for n, _ in layers.named_parameters()]))
    rec("names_all", str([n for n, _ in layers.named_parameters(remove_duplicate=False)]))
    rec("mods", str([n for n, _ in layers.named_modules()]))
    rec("mods_all", str([n for n, _ in layers.named_modules(remove_duplicate=False)]))
    rec("children", len(list(layers.children())))
    rec("keys", str(list(layers.state_dict().keys())))
    rec("repr", repr(layers))
    x = _randn(lib, dt, 8, 4, 3)
    opt = lib.optim.Adam(layers.parameters(), lr=0.05)
    for step in range(3):
        h = x
        for layer in layers:
            h = lib.relu(layer(h)) + h
        loss = h.square().sum()
        opt.zero_grad()
        loss.backward()
        rec(f"gw{step}", lin.weight.grad)
        opt.step()
        rec(f"loss{step}", loss)
    rec("w", lin.weight)
    rec("w2", layers[2].weight)


def p_names_dedup(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(9)
    shared = nn.Linear(2, 2).to(dt)
    a = nn.Sequential(shared, nn.ReLU())
    b = nn.Sequential(nn.Linear(2, 2), shared).to(dt)
    root = nn.ModuleDict({"a": a, "b": b})
    root.register_buffer("buf", lib.ones(2, dtype=dt))
    root.b.register_buffer("buf2", root.buf)
    for rd in (True, False):
        rec(f"params.{rd}", str([n for n, _ in root.named_parameters(remove_duplicate=rd)]))
        rec(f"bufs.{rd}", str([n for n, _ in root.named_buffers(remove_duplicate=rd)]))
        rec(f"mods.{rd}", str([n for n, _ in root.named_modules(remove_duplicate=rd)]))
        rec(
            f"mods_pref.{rd}",
            str([n for n, _ in root.named_modules(prefix="m", remove_duplicate=rd)]),
        )
        rec(f"prefixed.{rd}", str([n for n, _ in root.named_parameters("p", remove_duplicate=rd)]))
    rec("nonrec", str([n for n, _ in root.b.named_parameters(recurse=False)]))
    rec("sd", str(list(root.state_dict().keys())))
    rec("modules", len(list(root.modules())))
    rec("buffers", len(list(root.buffers())))
    rec("params", len(list(root.parameters())))


def p_state_dict_tied(lib, dt, rec):
    model = _tied_lm(lib, dt)
    sd = model.state_dict()
    rec("keys", str(list(sd.keys())))
    rec("same_storage", sd["head.weight"].data_ptr() == sd["embed.weight"].data_ptr())
    rec("distinct_objects", sd["head.weight"] is sd["embed.weight"])
    rec("is_param", type(sd["head.weight"]).__name__)
    rec("requires_grad", sd["head.weight"].requires_grad)
    kv = model.state_dict(keep_vars=True)
    rec("kv_same", kv["head.weight"] is kv["embed.weight"])
    rec("kv_is_param", kv["head.weight"] is model.embed.weight)
    # a change through one state_dict tensor is seen by both owners
    sd["head.weight"][0, 0] = 5.0
    rec("embed00", model.embed.weight[0, 0])
    pref = model.state_dict(prefix="m.")
    rec("pref", str(list(pref.keys())))


def p_load_strict(lib, dt, rec):
    src = _tied_lm(lib, dt, seed=1)
    dst = _tied_lm(lib, dt, seed=2)
    sd = src.state_dict()
    res = dst.load_state_dict(sd)
    rec("res", str(res))
    rec("emb", dst.embed.weight)
    rec("tied", dst.head.weight is dst.embed.weight)
    # two different values for the two tied keys: the later key's copy wins
    sd2 = {k: v.clone() for k, v in sd.items()}
    sd2["embed.weight"].fill_(1.0)
    sd2["head.weight"].fill_(2.0)
    dst.load_state_dict(sd2)
    rec("emb2", dst.embed.weight)
    rec("head2", dst.head.weight)
    sd3 = {k: v for k, v in sd2.items() if k != "head.weight"}
    rec.err("missing", lambda: dst.load_state_dict(sd3))
    res = dst.load_state_dict(sd3, strict=False)
    rec("missing_ns", str(res))
    rec("emb3", dst.embed.weight)
    rec("missing_keys", str(res.missing_keys))
    sd4 = dict(sd)
    sd4["head.weight"] = sd["head.weight"][:, :3]
    rec.err("shape", lambda: dst.load_state_dict(sd4))
    rec.err("shape_ns", lambda: dst.load_state_dict(sd4, strict=False))
    sd5 = dict(sd)
    sd5["tail.weight"] = sd["head.weight"]
    rec.err("unexpected", lambda: dst.load_state_dict(sd5))
    rec("unexpected_ns", str(dst.load_state_dict(sd5, strict=False)))


def p_load_assign(lib, dt, rec):
    src = _tied_lm(lib, dt, seed=1)
    dst = _tied_lm(lib, dt, seed=2)
    sd = src.state_dict()
    dst.load_state_dict(sd, assign=True)
    rec("tied_obj", dst.head.weight is dst.embed.weight)
    rec("tied_mem", dst.head.weight.data_ptr() == dst.embed.weight.data_ptr())
    rec("src_mem", dst.embed.weight.data_ptr() == src.embed.weight.data_ptr())
    rec("type", type(dst.embed.weight).__name__)
    rec("rg", dst.head.weight.requires_grad)
    rec("nparams", len(list(dst.parameters())))
    rec("names", str([n for n, _ in dst.named_parameters()]))
    # fresh tensors per key: the tie is gone
    dst2 = _tied_lm(lib, dt, seed=2)
    sd2 = {k: v.clone() for k, v in sd.items()}
    dst2.load_state_dict(sd2, assign=True)
    rec("tied2", dst2.head.weight is dst2.embed.weight)
    rec("nparams2", len(list(dst2.parameters())))
    # keep_vars state dict: the same Parameter for both keys
    dst3 = _tied_lm(lib, dt, seed=2)
    dst3.load_state_dict(src.state_dict(keep_vars=True), assign=True)
    rec("tied3", dst3.head.weight is dst3.embed.weight)
    rec("is_src", dst3.head.weight is src.embed.weight)
    rec("nparams3", len(list(dst3.parameters())))
    x = _tokens(lib, 3, 11, 2, 4)
    dst2(x).sum().backward()
    rec("g_embed", dst2.embed.weight.grad)
    rec("g_head", dst2.head.weight.grad)


def p_grad_accum(lib, dt, rec):
    w = lib.nn.Parameter(_randn(lib, dt, 1, 3, 3))
    x = _randn(lib, dt, 2, 4, 3)
    for micro in range(3):
        h = lib.tanh(x[micro : micro + 2] @ w)
        out = (h @ w.t()).sum() / 3
        out.backward()
        rec(f"g{micro}", w.grad)
    lib.manual_seed(0)
    a = lib.nn.Linear(3, 3).to(dt)
    b = lib.nn.Linear(3, 3).to(dt)
    b.weight = a.weight
    for i in range(2):
        (a(x).sum() + 2 * b(x).pow(2).sum()).backward()
        rec(f"lin{i}", a.weight.grad)
        rec(f"bias_a{i}", a.bias.grad)
        rec(f"bias_b{i}", b.bias.grad)
    a.zero_grad()
    rec("after_zero", str(b.weight.grad))
    rec("b_bias", b.bias.grad)
    b.zero_grad(set_to_none=False)
    rec("b_bias0", b.bias.grad)
    # hook on a shared weight fires once per backward with the summed gradient
    calls = []
    a.weight.register_hook(lambda g: calls.append(g.clone()))
    (a(x).sum() + b(x).sum()).backward()
    rec("hook_calls", len(calls))
    rec("hook_g", calls[0])


def p_optim_duplicates(lib, dt, rec):
    lib.manual_seed(1)
    model = _tied_lm(lib, dt)
    w = model.embed.weight
    params = [w, model.head.weight, model.proj.weight]
    opt = rec.warns("dup_warn", lambda: lib.optim.SGD(params, lr=0.1))
    rec("n_group", len(opt.param_groups[0]["params"]))
    rec.err("two_groups", lambda: lib.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1))
    rec.err(
        "two_groups_tied",
        lambda: lib.optim.Adam(
            [{"params": model.embed.parameters()}, {"params": model.head.parameters()}]
        ),
    )
    opt2 = lib.optim.SGD([model.embed.weight], lr=0.1)
    rec.err("add_group", lambda: opt2.add_param_group({"params": [model.head.weight]}))
    rec("groups_after", len(opt2.param_groups))
    rec.warns("add_dup", lambda: opt2.add_param_group({"params": [model.proj.bias] * 2}))
    rec("groups_after2", len(opt2.param_groups))
    rec("g2", len(opt2.param_groups[1]["params"]))
    rec.err("set", lambda: lib.optim.SGD({w}, lr=0.1))
    rec.err("dict", lambda: lib.optim.SGD([{"params": {w}}], lr=0.1))
    # a duplicated parameter is stepped twice by SGD (torch keeps the duplicate)
    opt3 = lib.optim.SGD([model.proj.weight, model.proj.weight], lr=0.1)
    x = _tokens(lib, 2, 11, 2, 3)
    model(x).sum().backward()
    before = model.proj.weight.detach().clone()
    opt3.step()
    rec("step_twice", model.proj.weight - before)
    rec("n_dup", len(opt3.param_groups[0]["params"]))


def p_deepcopy_tied(lib, dt, rec):
    F = lib.nn.functional
    model = _tied_lm(lib, dt, seed=4)
    clone = copy.deepcopy(model)
    rec("tied", clone.head.weight is clone.embed.weight)
    rec("new", clone.embed.weight is model.embed.weight)
    rec("names", str([n for n, _ in clone.named_parameters()]))
    x = _tokens(lib, 5, 11, 2, 6)
    opt = lib.optim.SGD(clone.parameters(), lr=0.5)
    for step in range(3):
        loss = F.cross_entropy(clone(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("clone_emb", clone.embed.weight)
    rec("orig_emb", model.embed.weight)
    rec("orig_head", model.head.weight)
    # deepcopy of a model with a grad keeps the grad, tied
    model(x).sum().backward()
    c2 = copy.deepcopy(model)
    rec("grad_tied", c2.head.weight.grad is c2.embed.weight.grad)
    rec("grad", c2.embed.weight.grad)
    # deepcopy of a module list holding one module twice keeps one module
    lin = lib.nn.Linear(2, 2)
    ml = copy.deepcopy(lib.nn.ModuleList([lin, lin]))
    rec("ml_same", ml[0] is ml[1])


def p_to_dtype(lib, dt, rec):
    model = _tied_lm(lib, dt, seed=6)
    for name, fn in [
        ("double", lambda m: m.double()),
        ("half", lambda m: m.half()),
        ("float", lambda m: m.float()),
        ("to64", lambda m: m.to(lib.float64)),
        ("to_dt", lambda m: m.to(dtype=dt)),
        ("bf16", lambda m: m.bfloat16()),
        ("type", lambda m: m.type(dt)),
    ]:
        out = fn(model)
        rec(f"{name}.ret", out is model)
        rec(f"{name}.tied", model.head.weight is model.embed.weight)
        rec(f"{name}.dtype", str(model.head.weight.dtype))
        rec(f"{name}.n", len(list(model.parameters())))
        rec(f"{name}.is_param", type(model.head.weight).__name__)
    rec("w", model.embed.weight)
    x = _tokens(lib, 7, 11, 3, 2)
    model(x).sum().backward()
    rec("grad", model.embed.weight.grad)
    # with a grad: .double() converts the shared grad once, keeping grad ties
    model.double()
    rec("grad_tied", model.head.weight.grad is model.embed.weight.grad)
    rec("grad_dtype", str(model.head.weight.grad.dtype))
    rec("grad64", model.head.weight.grad)


def p_params_vector(lib, dt, rec):
    utils = lib.nn.utils
    model = _tied_lm(lib, dt, seed=8)
    vec = utils.parameters_to_vector(model.parameters())
    rec("vec", vec)
    rec("numel", vec.numel())
    dup = utils.parameters_to_vector([model.embed.weight, model.head.weight])
    rec("dup_numel", dup.numel())
    new = lib.arange(vec.numel(), dtype=dt) / 100
    utils.vector_to_parameters(new, model.parameters())
    rec("emb", model.head.weight)
    rec("bias", model.proj.bias)
    rec.err("short", lambda: utils.vector_to_parameters(new[:-1], model.parameters()))
    rec.err("not_tensor", lambda: utils.vector_to_parameters([1.0], model.parameters()))
    # flat gradient vector from a tied model
    x = _tokens(lib, 9, 11, 2, 3)
    model(x).square().mean().backward()
    gvec = utils.parameters_to_vector(p.grad for p in model.parameters())
    rec("gvec", gvec)


def p_rnn_shared(lib, dt, rec):
    nn = lib.nn

    class ElmanRNN(nn.Module):
        def __init__(self, n_in, n_hid, n_out):
            super().__init__()
            self.w_xh = nn.Linear(n_in, n_hid)
            self.w_hh = nn.Linear(n_hid, n_hid, bias=False)
            self.w_hy = nn.Linear(n_hid, n_out)

        def forward(self, xs, h):
            outs = []
            for t in range(xs.shape[0]):
                h = lib.tanh(self.w_xh(xs[t]) + self.w_hh(h))
                outs.append(self.w_hy(h))
            return lib.stack(outs), h

    lib.manual_seed(11)
    rnn = ElmanRNN(3, 5, 2).to(dt)
    xs = _randn(lib, dt, 12, 7, 4, 3)
    ys = _randn(lib, dt, 13, 7, 4, 2)
    opt = lib.optim.RMSprop(rnn.parameters(), lr=0.01)
    h = lib.zeros(4, 5, dtype=dt)
    for step in range(4):
        out, h_last = rnn(xs, h)
        loss = lib.nn.functional.mse_loss(out, ys)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"g_hh{step}", rnn.w_hh.weight.grad)
        lib.nn.utils.clip_grad_norm_(rnn.parameters(), 0.5)
        opt.step()
        h = h_last.detach()
    _record_model(rec, "end", rnn)
    # truncated BPTT: per-step contributions by hooks on the shared weight's uses
    per_step = []
    h = lib.zeros(4, 5, dtype=dt)
    for t in range(3):
        hh = rnn.w_hh(h)
        hh.register_hook(lambda g, t=t: per_step.append((t, g.sum())))
        h = lib.tanh(rnn.w_xh(xs[t]) + hh)
    h.sum().backward()
    for t, g in sorted(per_step, key=lambda p: p[0]):
        rec(f"hook{t}", g)


def p_siamese(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class Siamese(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 4))

        def forward(self, a, b):
            return self.encoder(a), self.encoder(b)

    lib.manual_seed(13)
    net = Siamese().to(dt)
    a = _randn(lib, dt, 14, 6, 5)
    b = a + 0.3 * _randn(lib, dt, 15, 6, 5)
    label = lib.tensor([1.0, 0.0, 1.0, 0.0, 1.0, 1.0], dtype=dt)
    opt = lib.optim.Adam(net.parameters(), lr=0.02)
    for step in range(4):
        za, zb = net(a, b)
        d = F.pairwise_distance(za, zb)
        loss = (label * d.pow(2) + (1 - label) * F.relu(1.0 - d).pow(2)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"d{step}", d)
    _record_model(rec, "end", net)
    trip = nn.TripletMarginLoss(margin=0.5)
    za, zb = net(a, b)
    zc = net.encoder(a.flip(0))
    loss = trip(za, zb, zc) + F.cosine_embedding_loss(za, zb, 2 * label - 1)
    net.zero_grad()
    loss.backward()
    rec("trip", loss)
    _record_model(rec, "trip", net)


def p_albert(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.attn = nn.MultiheadAttention(d, 2, batch_first=True, dropout=0.0)
            self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
            self.ln1 = nn.LayerNorm(d)
            self.ln2 = nn.LayerNorm(d)

        def forward(self, x):
            x = self.ln1(x + self.attn(x, x, x, need_weights=False)[0])
            return self.ln2(x + self.ff(x))

    class Albert(nn.Module):
        def __init__(self, vocab, e, d, n_layers):
            super().__init__()
            self.embed = nn.Embedding(vocab, e)
            self.map = nn.Linear(e, d)
            self.shared = Block(d)
            self.n_layers = n_layers
            self.back = nn.Linear(d, e)
            self.decoder = nn.Linear(e, vocab)
            self.decoder.weight = self.embed.weight

        def forward(self, idx):
            h = self.map(self.embed(idx))
            for _ in range(self.n_layers):
                h = self.shared(h)
            return self.decoder(self.back(h))

    lib.manual_seed(17)
    model = Albert(13, 4, 6, 3).to(dt)
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("n", sum(p.numel() for p in model.parameters()))
    x = _tokens(lib, 16, 13, 2, 5)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    for step in range(3):
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, 13), x.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("emb", model.embed.weight)
    rec("ff", model.shared.ff[0].weight)
    rec("inproj", model.shared.attn.in_proj_weight)


def p_register_existing(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(19)
    lin = nn.Linear(3, 2).to(dt)
    m = nn.Module()
    m.register_parameter("w", lin.weight)
    rec("same", m.w is lin.weight)
    lin.register_parameter("w_alias", lin.weight)
    rec("names", str([n for n, _ in lin.named_parameters()]))
    rec("names_all", str([n for n, _ in lin.named_parameters(remove_duplicate=False)]))
    rec("sd", str(list(lin.state_dict().keys())))
    rec.err("not_param", lambda: lin.register_parameter("x", lib.ones(2, dtype=dt)))
    rec.err("dotted", lambda: lin.register_parameter("a.b", lin.bias))
    rec.err("empty", lambda: lin.register_parameter("", lin.bias))
    rec.err("not_str", lambda: lin.register_parameter(3, lin.bias))
    lin.foo = 1
    rec.err("attr_exists", lambda: lin.register_parameter("foo", lin.bias))
    rec.err("non_leaf", lambda: lin.register_parameter("nl", nn.Parameter(lin.weight * 2)))
    nl = lin.weight * 2
    rec.err("non_leaf2", lambda: lin.register_parameter("nl", nl))
    rec.err("none", lambda: lin.register_parameter("maybe", None))
    rec("maybe", str(lin.maybe))
    rec("names_none", str([n for n, _ in lin.named_parameters()]))
    lin.register_parameter("maybe", lin.bias)
    rec("maybe_bias", lin.maybe is lin.bias)
    x = _randn(lib, dt, 20, 4, 3)
    (lin(x).sum() + (x @ lin.w_alias.t()).sum()).backward()
    rec("g", lin.weight.grad)


def p_del_reassign(lib, dt, rec):
    nn = lib.nn
    model = _tied_lm(lib, dt, seed=21)
    del model.head.weight
    rec("has", hasattr(model.head, "weight"))
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("keys", str(list(model.state_dict().keys())))
    x = _tokens(lib, 22, 11, 2, 3)
    rec.err("fwd", lambda: model(x))
    model.head.weight = model.embed.weight
    rec("retied", model.head.weight is model.embed.weight)
    rec("out", model(x))
    rec.err("plain", lambda: setattr(model.head, "weight", model.embed.weight.detach()))
    rec.err("plain64", lambda: setattr(model.head, "weight", lib.zeros(2, dtype=lib.float64)))
    rec.err("plain_int", lambda: setattr(model.head, "weight", lib.zeros(2, dtype=lib.int64)))
    model.head.weight = None
    rec("none", str(model.head.weight))
    rec("names2", str([n for n, _ in model.named_parameters()]))
    rec("keys2", str(list(model.state_dict().keys())))
    model.head.weight = nn.Parameter(model.embed.weight.detach().clone())
    rec("untied", model.head.weight is model.embed.weight)
    rec("n_untied", len(list(model.parameters())))
    model.head.weight = model.embed.weight
    del model.embed.weight
    rec("names3", str([n for n, _ in model.named_parameters()]))
    rec.err("emb_fwd", lambda: model.embed(x))
    rec.err("del_again", lambda: delattr(model.embed, "weight"))
    model.embed.weight = model.head.weight

    # reassigning a parameter attribute to a module or a buffer slot
    class Gate(nn.Module):
        pass

    rec.err("param_to_module", lambda: setattr(model.head, "weight", Gate()))
    model.head.register_buffer("b", lib.ones(2, dtype=dt))
    rec.err("buf_param", lambda: setattr(model.head, "b", model.embed.weight))
    rec("b_type", type(model.head.b).__name__)
    rec("head_params", str([n for n, _ in model.head.named_parameters()]))
    rec("head_bufs", str([n for n, _ in model.head.named_buffers()]))


def p_parametrize_tied(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize

    class Scale(nn.Module):
        def forward(self, w):
            return 2 * w

    model = _tied_lm(lib, dt, seed=23)
    orig = model.embed.weight
    P.register_parametrization(model.embed, "weight", Scale())
    rec("is_param", P.is_parametrized(model.embed, "weight"))
    rec("head_param", P.is_parametrized(model.head))
    rec("orig_is", model.embed.parametrizations.weight.original is orig)
    rec("head_is", model.head.weight is orig)
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("names_all", str([n for n, _ in model.named_parameters(remove_duplicate=False)]))
    rec("keys", str(list(model.state_dict().keys())))
    rec("emb_w", model.embed.weight)
    rec("head_w", model.head.weight)
    x = _tokens(lib, 24, 11, 2, 4)
    opt = lib.optim.SGD(model.parameters(), lr=0.2)
    for step in range(3):
        loss = model(x).logsumexp(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("orig", orig)
    # parametrize the other owner too, with the same parametrization
    P.register_parametrization(model.head, "weight", Scale())
    rec("names2", str([n for n, _ in model.named_parameters()]))
    rec("same_orig", model.head.parametrizations.weight.original is orig)
    loss = model(x).logsumexp(-1).mean()
    loss.backward()
    rec("g_orig", orig.grad)
    P.remove_parametrizations(model.embed, "weight", leave_parametrized=True)
    rec("after_remove", model.embed.weight)
    rec("tied_after", model.embed.weight is orig)
    rec("head_orig", model.head.parametrizations.weight.original is orig)
    P.remove_parametrizations(model.head, "weight", leave_parametrized=False)
    rec("head_after", model.head.weight is orig)
    rec("names3", str([n for n, _ in model.named_parameters()]))


def p_functional_call_tied(lib, dt, rec):
    fc = lib.func.functional_call
    model = _tied_lm(lib, dt, seed=25)
    x = _tokens(lib, 26, 11, 2, 3)
    w = _randn(lib, dt, 27, 11, 6)
    out = fc(model, {"embed.weight": w}, (x,))
    rec("tie_on", out)
    out2 = fc(model, {"embed.weight": w}, (x,), tie_weights=False)
    rec("tie_off", out2)
    rec.err("both", lambda: fc(model, {"embed.weight": w, "head.weight": w + 1}, (x,)))
    out3 = fc(model, {"embed.weight": w, "head.weight": w + 1}, (x,), tie_weights=False)
    rec("both_off", out3)
    out4 = fc(model, {"head.weight": w}, (x,))
    rec("head_only", out4)
    rec("orig", model.embed.weight is model.head.weight)
    rec("orig_w", model.embed.weight)
    wg = w.clone().requires_grad_(True)
    fc(model, {"embed.weight": wg}, (x,)).square().sum().backward()
    rec("wg", wg.grad)
    rec("model_grad", str(model.embed.weight.grad))


def p_tied_autoencoder(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class TiedAE(nn.Module):
        def __init__(self, n, k):
            super().__init__()
            self.enc = nn.Linear(n, k)
            self.dec_bias = nn.Parameter(lib.zeros(n))

        def forward(self, x):
            z = lib.sigmoid(self.enc(x))
            return F.linear(z, self.enc.weight.t(), self.dec_bias)

    lib.manual_seed(29)
    ae = TiedAE(6, 3).to(dt)
    x = _randn(lib, dt, 30, 10, 6)
    opt = lib.optim.Adagrad(ae.parameters(), lr=0.1)
    for step in range(4):
        loss = F.mse_loss(ae(x), x)
        opt.zero_grad()
        loss.backward()
        rec(f"g{step}", ae.enc.weight.grad)
        opt.step()
        rec(f"loss{step}", loss)
    _record_model(rec, "end", ae)


def p_conv_tied(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class ConvTiedAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Conv2d(2, 3, 3, stride=2, padding=1)
            self.dec = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)
            self.dec.weight = self.enc.weight

        def forward(self, x):
            return self.dec(F.relu(self.enc(x)))

    lib.manual_seed(31)
    m = ConvTiedAE().to(dt)
    rec("tied", m.dec.weight is m.enc.weight)
    rec("shape", str(tuple(m.dec.weight.shape)))
    x = _randn(lib, dt, 32, 2, 2, 6, 6)
    opt = lib.optim.SGD(m.parameters(), lr=0.05, nesterov=True, momentum=0.5)
    for step in range(3):
        loss = F.mse_loss(m(x), x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    _record_model(rec, "end", m)


def p_apply_visits(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(33)
    shared = nn.Linear(2, 2)
    inner = nn.Sequential(shared, shared)
    root = nn.Sequential(inner, shared, nn.Sequential(shared)).to(dt)
    seen = []
    root.apply(lambda m: seen.append(type(m).__name__))
    rec("apply", str(seen))
    rec("children", len(list(inner.children())))
    rec("modules", len(list(root.modules())))
    rec("modules_all", len(list(root.modules(remove_duplicate=False))))
    count = {"n": 0}

    def init(m):
        if isinstance(m, nn.Linear):
            count["n"] += 1
            with lib.no_grad():
                m.weight.mul_(2)

    root.apply(init)
    rec("inits", count["n"])
    rec("w", shared.weight)
    root.zero_grad()
    rec("train", str([m.training for m in root.modules()]))
    root.eval()
    rec("eval", str([m.training for m in root.modules()]))


def p_freeze_shared(lib, dt, rec):
    model = _tied_lm(lib, dt, seed=35)
    model.head.requires_grad_(False)
    rec("emb_rg", model.embed.weight.requires_grad)
    rec("trainable", str([n for n, p in model.named_parameters() if p.requires_grad]))
    x = _tokens(lib, 36, 11, 2, 3)
    model(x).sum().backward()
    rec("emb_grad", str(model.embed.weight.grad))
    rec("proj_grad", model.proj.weight.grad)
    model.embed.weight.requires_grad_(True)
    rec("head_rg", model.head.weight.requires_grad)
    model.zero_grad()
    model(x).sum().backward()
    rec("emb_grad2", model.embed.weight.grad)


def p_shared_buffer(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(37)
    bn = nn.BatchNorm1d(3).to(dt)
    seq = nn.Sequential(bn, nn.Linear(3, 3), bn).to(dt)
    x = _randn(lib, dt, 38, 5, 3)
    for _ in range(2):
        seq(x)
    rec("mean", bn.running_mean)
    rec("var", bn.running_var)
    rec("n", bn.num_batches_tracked)
    rec("bufs", str([n for n, _ in seq.named_buffers()]))
    rec("bufs_all", str([n for n, _ in seq.named_buffers(remove_duplicate=False)]))
    rec("keys", str(list(seq.state_dict().keys())))
    seq.zero_grad()
    seq(x).sum().backward()
    rec("g", bn.weight.grad)
    seq.eval()
    rec("eval_out", seq(x))


def p_optim_state_tied(lib, dt, rec):
    F = lib.nn.functional
    model = _tied_lm(lib, dt, seed=39)
    opt = lib.optim.Adam(model.parameters(), lr=0.03, amsgrad=True)
    x = _tokens(lib, 40, 11, 2, 5)
    for _ in range(2):
        loss = F.cross_entropy(model(x).flatten(0, 1), x.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    sd = opt.state_dict()
    rec("state_keys", str(sorted(sd["state"].keys())))
    rec("params", str(sd["param_groups"][0]["params"]))
    clone = _tied_lm(lib, dt, seed=39)
    clone.load_state_dict(model.state_dict())
    opt2 = lib.optim.Adam(clone.parameters(), lr=0.03, amsgrad=True)
    opt2.load_state_dict(sd)
    for step in range(2):
        for m, o in ((model, opt), (clone, opt2)):
            loss = F.cross_entropy(m(x).flatten(0, 1), x.flatten())
            o.zero_grad()
            loss.backward()
            o.step()
        rec(f"loss{step}", loss)
    rec("same", (model.embed.weight - clone.head.weight).abs().max())
    rec("emb", clone.embed.weight)


def p_clip_shared(lib, dt, rec):
    utils = lib.nn.utils
    model = _tied_lm(lib, dt, seed=41)
    x = _tokens(lib, 42, 11, 3, 4)
    model(x).square().sum().backward()
    g = model.embed.weight.grad.clone()
    n1 = utils.clip_grad_norm_(model.parameters(), 1.0)
    rec("norm_dedup", n1)
    model.embed.weight.grad.copy_(g)
    n2 = utils.clip_grad_norm_([model.embed.weight, model.head.weight], 1.0)
    rec("norm_dup", n2)
    rec("g_dup", model.embed.weight.grad)
    model.embed.weight.grad.copy_(g)
    n3 = utils.get_total_norm([p.grad for p in model.parameters()], 3.0)
    rec("total", n3)
    utils.clip_grad_value_([model.embed.weight, model.head.weight], 0.5)
    rec("clipped", model.head.weight.grad)


def p_conversion_futures(lib, dt, rec):
    fut = lib.__future__
    for name, setter in (
        ("overwrite", fut.set_overwrite_module_params_on_conversion),
        ("swap", fut.set_swap_module_params_on_conversion),
    ):
        model = _tied_lm(lib, dt, seed=43)
        old = model.embed.weight
        setter(True)
        try:
            model.double()
        finally:
            setter(False)
        rec(f"{name}.tied", model.head.weight is model.embed.weight)
        rec(f"{name}.old", model.embed.weight is old)
        rec(f"{name}.head_old", model.head.weight is old)
        rec(f"{name}.mem", model.head.weight.data_ptr() == model.embed.weight.data_ptr())
        rec(f"{name}.n", len(list(model.parameters())))
        rec(f"{name}.dtypes", str([str(p.dtype) for p in model.parameters()]))
        rec(f"{name}.w", model.head.weight)


def p_save_load(lib, dt, rec):
    import io

    model = _tied_lm(lib, dt, seed=45)
    buf = io.BytesIO()
    lib.save(model.state_dict(), buf)
    buf.seek(0)
    sd = lib.load(buf)
    rec("keys", str(list(sd.keys())))
    rec("shared", sd["head.weight"].data_ptr() == sd["embed.weight"].data_ptr())
    sd["head.weight"][0, 0] = 7.0
    rec("alias", sd["embed.weight"][0, 0])
    other = _tied_lm(lib, dt, seed=46)
    other.load_state_dict(sd, assign=True)
    rec("assign_tied", other.head.weight is other.embed.weight)
    rec("assign_mem", other.head.weight.data_ptr() == other.embed.weight.data_ptr())
    rec("n", len(list(other.parameters())))
    seq = lib.nn.Sequential(lib.nn.Embedding(5, 3), lib.nn.Linear(3, 5, bias=False)).to(dt)
    seq[1].weight = seq[0].weight
    buf = io.BytesIO()
    lib.save(seq, buf)
    buf.seek(0)
    whole = lib.load(buf, weights_only=False)
    rec("whole_tied", whole[1].weight is whole[0].weight)
    rec("whole_w", whole[1].weight)

    # a list of the same parameter twice keeps its identity through save/load
    buf = io.BytesIO()
    lib.save([model.embed.weight, model.head.weight], buf)
    buf.seek(0)
    a, b = lib.load(buf)
    rec("list_same", a is b)
    rec("list_type", type(a).__name__)


def p_embedding_from(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(47)
    lin = nn.Linear(4, 9).to(dt)
    emb = nn.Embedding(9, 4, _weight=lin.weight)
    rec("same_obj", emb.weight is lin.weight)
    rec("same_mem", emb.weight.data_ptr() == lin.weight.data_ptr())
    pre = nn.Embedding.from_pretrained(lin.weight)
    rec("pre_obj", pre.weight is lin.weight)
    rec("pre_mem", pre.weight.data_ptr() == lin.weight.data_ptr())
    rec("pre_rg", pre.weight.requires_grad)
    pre2 = nn.Embedding.from_pretrained(lin.weight, freeze=False)
    rec("pre2_rg", pre2.weight.requires_grad)
    p = nn.Parameter(lin.weight)
    rec("param_of_param", p is lin.weight)
    rec("param_mem", p.data_ptr() == lin.weight.data_ptr())
    idx = lib.tensor([[1, 2, 8], [0, 0, 3]])
    out = lin(emb(idx)) + pre2(idx).sum(-1, keepdim=True)
    out.sum().backward()
    rec("lin_g", lin.weight.grad)
    rec("pre2_g", pre2.weight.grad)
    rec("emb_g_is", emb.weight.grad is lin.weight.grad)


def p_prune_tied(lib, dt, rec):
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    model = _tied_lm(lib, dt, seed=49)
    orig = model.embed.weight
    prune.l1_unstructured(model.head, "weight", amount=0.4)
    rec("orig_is", model.head.weight_orig is orig)
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("bufs", str([n for n, _ in model.named_buffers()]))
    rec("keys", str(list(model.state_dict().keys())))
    rec("mask", model.head.weight_mask)
    rec("emb_is", model.embed.weight is orig)
    x = _tokens(lib, 50, 11, 2, 3)
    model(x).square().mean().backward()
    rec("g", orig.grad)
    prune.remove(model.head, "weight")
    rec("removed_is", model.head.weight is orig)
    rec("emb_after", model.embed.weight)


def p_weight_norm_tied(lib, dt, rec):
    nn = lib.nn
    model = _tied_lm(lib, dt, seed=51)
    orig = model.embed.weight
    nn.utils.parametrizations.weight_norm(model.head, "weight", dim=0)
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("emb_is", model.embed.weight is orig)
    rec("g", model.head.parametrizations.weight.original0)
    rec("v_is", model.head.parametrizations.weight.original1 is orig)
    x = _tokens(lib, 52, 11, 2, 3)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        loss = model(x).logsumexp(-1).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("emb", model.embed.weight)
    rec("head", model.head.weight)


def p_checkpoint_twice(lib, dt, rec):
    nn = lib.nn
    cp = lib.utils.checkpoint.checkpoint
    lib.manual_seed(53)
    block = nn.Sequential(nn.Linear(4, 4), nn.SiLU(), nn.Linear(4, 4)).to(dt)
    x = _randn(lib, dt, 54, 3, 4).requires_grad_(True)
    for reentrant in (False, True):
        block.zero_grad()
        x.grad = None
        h = cp(block, x, use_reentrant=reentrant)
        h = cp(block, h + x, use_reentrant=reentrant)
        h.pow(2).sum().backward()
        rec(f"{reentrant}.x", x.grad)
        _record_model(rec, f"{reentrant}", block)
    block.zero_grad()
    x.grad = None
    block(block(x) + x).pow(2).sum().backward()
    rec("plain.x", x.grad)
    _record_model(rec, "plain", block)


def p_func_grad_tied(lib, dt, rec):
    from_func = lib.func
    model = _tied_lm(lib, dt, seed=55)
    x = _tokens(lib, 56, 11, 2, 3)
    params = {k: v.detach() for k, v in model.named_parameters()}
    rec("keys", str(list(params)))

    def loss_fn(p):
        return from_func.functional_call(model, p, (x,)).logsumexp(-1).sum()

    grads = from_func.grad(loss_fn)(params)
    rec("gkeys", str(list(grads)))
    for k, g in grads.items():
        rec("g." + k, g)
    model(x).logsumexp(-1).sum().backward()
    rec("eager", model.embed.weight.grad)
    all_params = dict(model.named_parameters(remove_duplicate=False))
    rec("all_keys", str(list(all_params)))
    rec.err("all_tied", lambda: from_func.functional_call(model, all_params, (x,)))
    rec(
        "out_all",
        from_func.functional_call(
            model, {k: v.detach() for k, v in all_params.items()}, (x,), tie_weights=False
        ),
    )
    rec.err("strict", lambda: from_func.functional_call(model, params, (x,), strict=True))
    rec.err(
        "strict_all",
        lambda: from_func.functional_call(
            model, {**params, **{k: v for k, v in model.named_buffers()}}, (x,), strict=True
        ),
    )


def p_autograd_grad_dup(lib, dt, rec):
    w = lib.nn.Parameter(_randn(lib, dt, 57, 3, 3))
    x = _randn(lib, dt, 58, 2, 3)
    y = (lib.tanh(x @ w) @ w).sum()
    g1, g2 = lib.autograd.grad(y, [w, w], retain_graph=True)
    rec("g1", g1)
    rec("same", g1 is g2)
    rec("eq", lib.equal(g1, g2))
    (gg,) = lib.autograd.grad(y, w, create_graph=True)
    h = lib.autograd.grad(gg.sum(), w)[0]
    rec("hess", h)
    y = (lib.tanh(x @ w) @ w).sum()
    y.backward(inputs=[w, w])
    rec("inputs_dup", w.grad)


def p_paramlist_shared(lib, dt, rec):
    nn = lib.nn
    p = nn.Parameter(_randn(lib, dt, 59, 2, 2))
    q = nn.Parameter(_randn(lib, dt, 60, 2))
    pl = nn.ParameterList([p, q, p])
    rec("len", len(pl))
    rec("names", str([n for n, _ in pl.named_parameters()]))
    rec("names_all", str([n for n, _ in pl.named_parameters(remove_duplicate=False)]))
    rec("repr", repr(pl))
    pd = nn.ParameterDict({"a": p, "b": p})
    rec("pd_names", str([n for n, _ in pd.named_parameters()]))
    rec("pd_keys", str(list(pd.state_dict().keys())))
    rec("pd_repr", repr(pd))
    m = nn.Module()
    m.pl = pl
    m.pd = pd
    rec("m_names", str([n for n, _ in m.named_parameters()]))
    rec("get", m.get_parameter("pd.b") is p)
    loss = sum((t * t).sum() for t in pl) + (pd["a"] * pd["b"]).sum()
    loss.backward()
    rec("g", p.grad)
    pl.append(q)
    rec("len2", len(pl))
    rec("names2", str([n for n, _ in pl.named_parameters()]))


def p_container_dup(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(61)
    lin = nn.Linear(2, 3).to(dt)
    seq = nn.Sequential(lin, nn.ReLU(), lin.__class__(3, 2).to(dt))
    ml = nn.ModuleList()
    ml.extend([lin, lin])
    ml.insert(1, seq)
    ml.append(lin)
    rec("repr", repr(ml))
    rec("names", str([n for n, _ in ml.named_parameters()]))
    rec("children", str([n for n, _ in ml.named_children()]))
    del ml[0]
    rec("after_del", str([n for n, _ in ml.named_parameters()]))
    rec("after_del_mods", str([n for n, _ in ml.named_modules()]))
    m = nn.Module()
    m.add_module("first", lin)
    m.register_module("second", lin)
    m.third = lin
    rec("m_children", str([n for n, _ in m.named_children()]))
    rec("m_modules_all", str([n for n, _ in m.named_modules(remove_duplicate=False)]))
    rec("m_sd", str(list(m.state_dict().keys())))
    rec("get", m.get_submodule("second") is lin)
    rec("m_repr", repr(m))
    seq2 = nn.Sequential(lin, nn.Tanh(), nn.Linear(3, 2), nn.Tanh())
    seq2[2] = lin.__class__(3, 2)
    rec("seq2", repr(seq2))
    md = nn.ModuleDict({"x": lin, "y": lin})
    rec("md", repr(md))
    rec("md_keys", str(list(md.state_dict().keys())))
    rec("md_params", len(list(md.parameters())))


def p_optim_dup_kinds(lib, dt, rec):
    F = lib.nn.functional
    for name, make in [
        ("adam", lambda ps: lib.optim.Adam(ps, lr=0.01, foreach=False)),
        ("sgd", lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)),
        ("rmsprop", lambda ps: lib.optim.RMSprop(ps, lr=0.01)),
        ("adagrad", lambda ps: lib.optim.Adagrad(ps, lr=0.1)),
    ]:
        model = _tied_lm(lib, dt, seed=63)
        ps = [model.embed.weight, *model.parameters()]
        opt = rec.warns(f"{name}.warn", lambda make=make, ps=ps: make(ps))
        x = _tokens(lib, 64, 11, 2, 4)
        for step in range(2):
            loss = F.cross_entropy(model(x).flatten(0, 1), x.flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"{name}.loss{step}", loss)
        rec(f"{name}.emb", model.embed.weight)
        rec(f"{name}.proj", model.proj.weight)
        rec(f"{name}.nstate", len(opt.state))


def p_optim_dup_state_dict(lib, dt, rec):
    lib.manual_seed(65)
    a = lib.nn.Parameter(_randn(lib, dt, 66, 3))
    b = lib.nn.Parameter(_randn(lib, dt, 67, 2))
    opt = lib.optim.SGD([a, b, a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": [lib.nn.Parameter(_randn(lib, dt, 68, 2))]})
    ((a * a).sum() + b.sum()).backward()
    opt.step()
    sd = opt.state_dict()
    rec("groups", str([g["params"] for g in sd["param_groups"]]))
    rec("state", str(sorted(sd["state"])))
    rec("buf_a", sd["state"][sd["param_groups"][0]["params"][0]]["momentum_buffer"])
    a2 = lib.nn.Parameter(a.detach().clone())
    b2 = lib.nn.Parameter(b.detach().clone())
    opt2 = lib.optim.SGD([a2, b2, a2], lr=0.1, momentum=0.5)
    opt2.add_param_group({"params": [lib.nn.Parameter(_randn(lib, dt, 68, 2))]})
    opt2.load_state_dict(sd)
    rec("loaded", str(sorted(id(p) == id(a2) for p in opt2.state)))
    rec("buf_a2", opt2.state[a2]["momentum_buffer"])
    opt3 = lib.optim.SGD([a2, b2], lr=0.1, momentum=0.5)
    rec.err("mismatch", lambda: opt3.load_state_dict(sd))
    # the fused half-precision kernel with a duplicate (every place starts without a buffer)
    for tag, hdt in (("f16", lib.float16), ("bf16", lib.bfloat16)):
        h = lib.nn.Parameter(a.detach().to(hdt))
        opt4 = lib.optim.SGD([h, h], lr=0.1, momentum=0.5, fused=True)
        for step in range(3):
            opt4.zero_grad()
            (h * h).sum().mul(step + 1).backward()
            opt4.step()
        rec(f"fused.{tag}", h)
        rec(f"fused_buf.{tag}", opt4.state[h]["momentum_buffer"])


def p_lbfgs_tied(lib, dt, rec):
    F = lib.nn.functional
    model = _tied_lm(lib, dt, seed=69)
    x = _tokens(lib, 70, 11, 2, 5)
    opt = lib.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4, history_size=3)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).flatten(0, 1), x.flatten())
        loss.backward()
        return loss

    for step in range(2):
        rec(f"loss{step}", opt.step(closure))
    rec("emb", model.embed.weight)
    rec("tied", model.head.weight is model.embed.weight)


def p_swa_tied(lib, dt, rec):
    swa = lib.optim.swa_utils
    model = _tied_lm(lib, dt, seed=71)
    avg = swa.AveragedModel(model)
    rec("avg_tied", avg.module.head.weight is avg.module.embed.weight)
    rec("avg_names", str([n for n, _ in avg.named_parameters()]))
    opt = lib.optim.SGD(model.parameters(), lr=0.3)
    x = _tokens(lib, 72, 11, 2, 4)
    for _ in range(3):
        opt.zero_grad()
        model(x).logsumexp(-1).mean().backward()
        opt.step()
        avg.update_parameters(model)
    rec("avg_emb", avg.module.embed.weight)
    rec("n_avg", avg.n_averaged)
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    for _ in range(2):
        opt.zero_grad()
        model(x).logsumexp(-1).mean().backward()
        opt.step()
        ema.update_parameters(model)
    rec("ema_emb", ema.module.head.weight)
    rec("out", ema(x))


def p_meta_to_empty(lib, dt, rec):
    with lib.device("meta"):
        model = _tied_lm(lib, dt, seed=73)
    rec("meta_tied", model.head.weight is model.embed.weight)
    rec("meta_dev", str(model.head.weight.device))
    model.to_empty(device="cpu")
    rec("tied", model.head.weight is model.embed.weight)
    rec("dev", str(model.embed.weight.device))
    rec("n", len(list(model.parameters())))
    lib.manual_seed(74)
    for m in model.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    rec("emb", model.embed.weight)
    rec("head", model.head.weight)


def p_parametrize_inverse(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize

    class Symmetric(nn.Module):
        def forward(self, w):
            return w.triu() + w.triu(1).transpose(-1, -2)

        def right_inverse(self, w):
            return w.triu()

    class NoInverse(nn.Module):
        def forward(self, w):
            return w * 3

    lib.manual_seed(75)
    a = nn.Linear(4, 4).to(dt)
    b = nn.Linear(4, 4).to(dt)
    b.weight = a.weight
    orig = a.weight
    P.register_parametrization(a, "weight", Symmetric())
    rec("a_w", a.weight)
    rec("b_w", b.weight)
    new = _randn(lib, dt, 76, 4, 4)
    a.weight = new
    rec("orig_after_set", orig)
    rec("b_after_set", b.weight)
    rec("still_same", a.parametrizations.weight.original is orig)
    rec("b_is_orig", b.weight is orig)
    P.register_parametrization(b, "weight", NoInverse())
    rec.err("no_inverse", lambda: setattr(b, "weight", new))
    with P.cached():
        out = a(new) + b(new)
        rec("cached_out", out)
    out.sum().backward()
    rec("g_orig", orig.grad)
    c = copy.deepcopy(nn.Sequential(a, b))
    rec("copy_same", c[0].parametrizations.weight.original is c[1].parametrizations.weight.original)
    rec("copy_out", c(new))


def p_spectral_tied(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(77)
    a = nn.Linear(4, 3).to(dt)
    b = nn.Linear(4, 3).to(dt)
    b.weight = a.weight
    orig = a.weight
    nn.utils.spectral_norm(a, n_power_iterations=3)
    rec("names", str([n for n, _ in a.named_parameters()]))
    rec("orig_is", a.weight_orig is orig)
    rec("b_is", b.weight is orig)
    x = _randn(lib, dt, 78, 5, 4)
    rec("a_out", a(x))
    rec("b_out", b(x))
    (a(x).sum() + b(x).sum()).backward()
    rec("g", orig.grad)
    nn.utils.remove_spectral_norm(a)
    rec("removed_is", a.weight is orig)
    rec("removed_names", str([n for n, _ in a.named_parameters()]))


def p_stack_module_state(lib, dt, rec):
    func = lib.func
    models = [_tied_lm(lib, dt, seed=79)]
    for s in (80, 81):
        lib.manual_seed(s)
        models.append(type(models[0])().to(dt))
    params, buffers = func.stack_module_state(models)
    rec("keys", str(list(params)))
    rec("emb", params["embed.weight"])
    x = _tokens(lib, 82, 11, 2, 3)
    base = copy.deepcopy(models[0])

    def f(p, b):
        return func.functional_call(base, (p, b), (x,))

    out = func.vmap(f)(params, buffers)
    rec("out", out)
    rec("ref", models[1](x))


def p_orthogonal_tied(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(83)
    a = nn.Linear(3, 3, bias=False).to(dt)
    b = nn.Linear(3, 3, bias=False).to(dt)
    b.weight = a.weight
    orig = a.weight
    nn.utils.parametrizations.orthogonal(a, orthogonal_map="matrix_exp")
    rec("orig_is", a.parametrizations.weight.original is orig)
    rec("names", str([n for n, _ in nn.Sequential(a, b).named_parameters()]))
    w = a.weight
    rec("ortho", w @ w.t())
    rec("b_w", b.weight)
    x = _randn(lib, dt, 84, 2, 3)
    opt = lib.optim.SGD(nn.Sequential(a, b).parameters(), lr=0.1)
    for step in range(3):
        loss = (b(a(x)) - x).square().sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("a_w", a.weight)


def p_half_grad(lib, dt, rec):
    model = _tied_lm(lib, dt, seed=85)
    x = _tokens(lib, 86, 11, 2, 3)
    model(x).sum().backward()
    model.half()
    rec("grad_tied", model.head.weight.grad is model.embed.weight.grad)
    rec("grad_dtype", str(model.embed.weight.grad.dtype))
    rec("w", model.embed.weight.float())
    rec("g", model.embed.weight.grad.float())
    model.to(dt)
    rec("back", model.head.weight)
    rec("n", len(list(model.parameters())))


def p_hooks_reused(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(87)
    lin = nn.Linear(3, 3).to(dt)
    log = []
    lin.register_forward_pre_hook(lambda m, args: log.append("pre"))
    lin.register_forward_hook(lambda m, args, out: log.append("fwd"))
    grads_out = []
    lin.register_full_backward_hook(lambda m, gin, gout: grads_out.append(gout[0].clone()))
    pre_grads = []
    lin.register_full_backward_pre_hook(lambda m, gout: pre_grads.append(gout[0].sum()))
    acc = []
    lin.weight.register_post_accumulate_grad_hook(lambda p: acc.append(p.grad.clone()))
    x = _randn(lib, dt, 88, 2, 3).requires_grad_(True)
    y = lin(lib.tanh(lin(x)))
    (y * _randn(lib, dt, 89, 2, 3)).sum().backward()
    rec("log", str(log))
    rec("n_bwd", len(grads_out))
    for i, g in enumerate(grads_out):
        rec(f"gout{i}", g)
    for i, g in enumerate(pre_grads):
        rec(f"pre{i}", g)
    rec("n_acc", len(acc))
    rec("acc", acc[0])
    rec("xg", x.grad)


def p_lstm_tied(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(90)
    enc = nn.LSTM(3, 4, batch_first=True).to(dt)
    dec = nn.LSTM(3, 4, batch_first=True).to(dt)
    dec.weight_hh_l0 = enc.weight_hh_l0
    dec.weight_ih_l0 = enc.weight_ih_l0
    rec("tied", dec.weight_hh_l0 is enc.weight_hh_l0)
    rec("names", str([n for n, _ in nn.ModuleList([enc, dec]).named_parameters()]))
    x = _randn(lib, dt, 91, 2, 5, 3)
    opt = lib.optim.Adam(nn.ModuleList([enc, dec]).parameters(), lr=0.02)
    for step in range(3):
        _, (h, c) = enc(x)
        out, _ = dec(x.flip(1), (h, c))
        loss = out.square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("w_hh", dec.weight_hh_l0)
    rec("b_dec", dec.bias_ih_l0)
    rec("b_enc", enc.bias_ih_l0)
    cell = nn.GRUCell(3, 4).to(dt)
    h = lib.zeros(2, 4, dtype=dt)
    for t in range(5):
        h = cell(x[:, t], h)
    h.sum().backward()
    rec("cell_g", cell.weight_hh.grad)


def p_data_assign(lib, dt, rec):
    model = _tied_lm(lib, dt, seed=92)
    new = _randn(lib, dt, 93, 11, 6)
    model.embed.weight.data = new
    rec("head", model.head.weight)
    rec("shares", model.head.weight.data_ptr() == new.data_ptr())
    with lib.no_grad():
        model.head.weight.mul_(0.5)
        model.head.weight[0].fill_(1.0)
    rec("emb", model.embed.weight)
    rec("new_alias", new)
    model.embed.weight.data.copy_(lib.ones(11, 6, dtype=dt))
    rec("ones", model.head.weight.sum())
    rec.err("inplace_leaf", lambda: model.head.weight.add_(1.0))
    rec.err("data_shape", lambda: setattr(model.embed.weight, "data", lib.ones(2)))
    v = model.embed.weight._version
    with lib.no_grad():
        model.head.weight.add_(1.0)
    rec("version", model.embed.weight._version - v)


def p_transfer_parametrizations(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize

    class Double(nn.Module):
        def forward(self, w):
            return 2 * w

        def right_inverse(self, w):
            return w / 2

    lib.manual_seed(94)
    a = nn.Linear(3, 3).to(dt)
    b = nn.Linear(3, 3).to(dt)
    b.weight = a.weight
    P.register_parametrization(a, "weight", Double())
    rec.err("assign_plain", lambda: setattr(b, "weight", a.weight))
    c = nn.Linear(3, 3).to(dt)
    P.transfer_parametrizations_and_params(a, c)
    rec("c_param", P.is_parametrized(c, "weight"))
    rec("c_orig_is", c.parametrizations.weight.original is a.parametrizations.weight.original)
    rec("c_w", c.weight)
    rec("c_bias", c.bias)
    rec("type", P.type_before_parametrizations(a).__name__)
    sd = nn.Sequential(a, b).state_dict()
    rec("keys", str(list(sd.keys())))
    s2 = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3)).to(dt)
    s2[1].weight = s2[0].weight
    P.register_parametrization(s2[0], "weight", Double())
    s2.load_state_dict(sd)
    rec("loaded", s2[0].weight)
    rec("loaded_b", s2[1].weight)


def p_embedding_options(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    x = _tokens(lib, 95, 7, 2, 4)
    x[0, 0] = 0
    for tag, kw in [
        ("pad", dict(padding_idx=0)),
        ("freq", dict(scale_grad_by_freq=True)),
        ("sparse", dict(sparse=True)),
    ]:
        lib.manual_seed(96)
        emb = nn.Embedding(7, 3, **kw).to(dt)
        head = nn.Linear(3, 7, bias=False).to(dt)
        head.weight = emb.weight
        opt = lib.optim.SGD([emb.weight], lr=0.2)
        for step in range(2):
            loss = F.cross_entropy(head(emb(x)).flatten(0, 1), x.flatten())
            opt.zero_grad()
            loss.backward()
            g = emb.weight.grad
            rec(f"{tag}.g{step}", g.to_dense() if g.is_sparse else g)
            opt.step()
            rec(f"{tag}.loss{step}", loss)
        rec(f"{tag}.w", emb.weight)
    # max_norm renormalizes the shared weight in place during the embedding's forward
    lib.manual_seed(97)
    emb = nn.Embedding(7, 3, max_norm=0.5).to(dt)
    head = nn.Linear(3, 7, bias=False).to(dt)
    head.weight = emb.weight
    out = head(emb(x))
    rec("renormed", emb.weight)
    out.sum().backward()
    rec("g_ok", emb.weight.grad)
    emb.weight.grad = None
    logits = head(lib.ones(2, 3, dtype=dt))
    emb(x)
    rec.err("version", lambda: logits.sum().backward())


def p_pickle_copy(lib, dt, rec):
    import pickle

    nn = lib.nn
    lib.manual_seed(98)
    seq = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False), nn.Linear(3, 5)).to(dt)
    seq[1].weight = seq[0].weight
    seq[2].weight = seq[0].weight
    back = pickle.loads(pickle.dumps(seq))
    rec("pickle_tied", back[1].weight is back[0].weight and back[2].weight is back[0].weight)
    rec("pickle_w", back[2].weight)
    shallow = copy.copy(seq)
    rec("shallow_same_param", shallow[1].weight is seq[1].weight)
    rec("shallow_same_module", shallow[0] is seq[0])
    shallow[0] = nn.Embedding(5, 3)
    rec("shallow_dict_shared", shallow._modules is seq._modules)
    rec("orig_replaced_too", seq[0] is shallow[0])
    pl = nn.ParameterList([back[0].weight, back[0].weight])
    fut = lib.__future__
    fut.set_overwrite_module_params_on_conversion(True)
    try:
        pl.double()
    finally:
        fut.set_overwrite_module_params_on_conversion(False)
    rec("pl_tied", pl[0] is pl[1])
    rec("pl_n", len(list(pl.parameters())))
    rec("back_tied", back[1].weight is back[0].weight)
    back.share_memory()
    rec("shared_tied", back[1].weight is back[0].weight)
    rec("shared_mem", back[0].weight.is_shared())


def p_double_backward_shared(lib, dt, rec):
    nn = lib.nn

    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.out = nn.Linear(3, 1)

        def forward(self, x):
            h = lib.nn.functional.softplus(self.fc(x))
            h = lib.tanh(self.fc(h))  # the same layer twice
            return self.out(h)

    lib.manual_seed(99)
    critic = Critic().to(dt)
    opt = lib.optim.Adam(critic.parameters(), lr=0.01, betas=(0.5, 0.9))
    real = _randn(lib, dt, 100, 4, 3)
    fake = _randn(lib, dt, 101, 4, 3)
    alpha = lib.rand(4, 1, generator=lib.Generator().manual_seed(102), dtype=dt)
    for step in range(3):
        mix = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        score = critic(mix)
        (g,) = lib.autograd.grad(score.sum(), mix, create_graph=True)
        penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
        opt.zero_grad()
        loss.backward()
        rec(f"gp{step}", penalty)
        rec(f"g_fc{step}", critic.fc.weight.grad)
        opt.step()
    params = {k: v.detach() for k, v in critic.named_parameters()}

    def f(w):
        return lib.func.functional_call(critic, {**params, "fc.weight": w}, (real,)).sum()

    rec("hess", lib.func.hessian(f)(params["fc.weight"]))
