"""Session 36 (helper ensemble): model-ensembling and functional-API programs written the way
such code is written in torch (the functorch "model ensembling" and "per-sample gradients"
tutorials), run under torch and minitorch with the same seeds and compared record by record:
torch.func.stack_module_state over N copies of MLPs, CNNs, BatchNorm nets (eval-mode running
statistics in the stacked buffers; train mode updating them in place) and transformer-ish
blocks; a base copy on the 'meta' device (copy.deepcopy(model).to('meta')) run by vmap over
functional_call with in_dims (0, 0, None) and (0, 0, 0), per-key in_dims dicts (a shared trunk
with ensembled heads), out_dims ints, tuples and dicts, chunk_size and nested vmap; dropout
under randomness 'error', 'same' and 'different'; grad / grad_and_value with has_aux and
argnums tuples, per-sample gradients (vmap over grad), jacrev / jacfwd / hessian of small
networks (also w.r.t. parameter dicts), Hessian-vector products (jvp over grad, vjp over
grad), gradient penalties and Laplacians; functional_call with tied weights (tie_weights),
strict=, partial dicts and kwargs; replace_all_batch_norm_modules_; ensembles trained a few
steps with Adam, AdamW, RMSprop, Adagrad, NAdam, SGD (nesterov), clip_grad_norm_ and StepLR
over the stacked leaves, and the functorch way (vmap(grad_and_value) and manual updates);
and torch's errors for mismatched in_dims, batch sizes, non-tensor outputs, argnums, has_aux,
strict keys, stack_module_state's checks, and the meta base run without its buffers.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- jacfwd (and hessian, which is jacfwd over jacrev) ran random ops under its default
  randomness='error'; torch's jacfwd is vmap over jvp and raises "vmap: called random
  operation while in randomness error mode. ..." (a dropout in training mode, torch.rand, a
  draw from an explicit Generator, refused before it draws); the generators are left where
  they were.
- vmap's in_dims/out_dims dicts had to list their keys in the inputs' order (else "in_dims is
  not compatible with the structure of `inputs`"); torch's pytree matches any two standard
  dicts (dict, OrderedDict, defaultdict) by key, lists the dims in the in_dims dict's key
  order and vmap pairs them with the inputs' leaves in their own order (a dims dict in
  another order maps other inputs, as torch's does). func/_pytree.broadcast_prefix now goes
  through utils._pytree._broadcast_to_and_flatten, torch's rules in one place.
- F.batch_norm with running statistics on the meta device (a meta base copy called with only
  the parameters) raised the strict array's "host and device arrays cannot be mixed"
  TypeError; torch: "Tensor on device meta is not on the expected device cpu!" (checked after
  the sizes and the evaluation-mode None check, before the one-None ValueError and the dtype
  checks), and "... device cpu is not on the expected device meta!" for a meta input.

Known and left (documented):
- vmap runs func once per sample (no batching rules): the output's grad_fn is StackBackward0
  where torch's is the last op's (AddBackward0); errors raised inside func name the sample's
  shapes and dims where torch's name the batched (physical) ones (mm/bmm, broadcasting, cat,
  dtype mismatches in linear); .item(), data-dependent control flow, nonzero and in-place
  writes into captured tensors work per sample where torch raises. Not recorded.
- randomness='different' draws each sample's numbers in turn; records of its values are kept
  to the cases where that is torch's stream (one dropout, one small rand per sample).
- jacfwd computes in reverse mode with one run of func: randomness 'same' and 'different'
  give every column the same draws (torch's 'different' draws per column); not recorded.
- Eval-mode nn.MultiheadAttention inside vmap takes torch's fused fast path
  (_native_multi_head_attention, the batched parameters not seen as requiring grad) whose
  backward torch cannot compute; minitorch computes it. The block program runs in train mode
  (dropout 0).
- vmap(chunk_size=1.5): torch fails in its chunking arithmetic ("can't multiply sequence by
  non-int of type 'float'"), minitorch names the argument (documented in _vmap.py).
- The records run on the CPU only; the strict test device and CuPy are not exercised here.
"""

from __future__ import annotations

import copy

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "stack_state", "ensemble_same_x", "ensemble_own_x", "ensemble_train", "bn_eval_buffers",
    "dropout_randomness", "grad_aux", "per_sample_grads", "jac_hess", "vmap_trees",
    "nested_vmap", "tied_weights", "strict_keys", "vmap_errors", "grad_errors",
    "jac_aux_argnums", "ensemble_cnn", "hvp", "vjp_ensemble", "functorch_train",
    "stack_errors", "ensemble_uncertainty", "chunked", "out_dims", "random_values",
    "optimizers", "ensemble_layers", "double_grad", "vmap_kwargs", "func_dict_outputs",
    "jacfwd_random", "bn_replace", "shared_backbone", "dims_key_order", "meta_base_errors",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


class _MLP:
    """A factory of small MLPs (built from lib.nn so one class serves both libraries)."""

    @staticmethod
    def make(lib, dt, seed, din=4, hidden=8, dout=3, act="tanh"):
        lib.manual_seed(seed)
        nn = lib.nn
        acts = {"tanh": nn.Tanh, "relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}
        return nn.Sequential(nn.Linear(din, hidden), acts[act](), nn.Linear(hidden, dout)).to(dt)


def _models(lib, dt, n, **kw):
    return [_MLP.make(lib, dt, 100 + i, **kw) for i in range(n)]


def _fmodel(lib, base):
    def fmodel(params, buffers, x):
        return lib.func.functional_call(base, (params, buffers), (x,))

    return fmodel


def _meta_base(models):
    return copy.deepcopy(models[0]).to("meta")


# --- the programs: each takes the library, a dtype and a recorder ---


def p_stack_state(lib, dt, rec):
    models = _models(lib, dt, 4)
    params, buffers = lib.func.stack_module_state(models)
    rec("keys", str(list(params)))
    rec("buffers", str(list(buffers)))
    for k, v in params.items():
        rec("p." + k, v)
        rec("p.info." + k, str((tuple(v.shape), v.requires_grad, v.is_leaf, v.grad_fn)))
    # the stacked leaves are copies: editing them leaves the models alone
    with lib.no_grad():
        params["0.weight"].mul_(2.0)
    rec("model0.w", models[0][0].weight)
    # frozen parameters stay frozen
    for m in models:
        m[0].bias.requires_grad_(False)
    p2, _ = lib.func.stack_module_state(models)
    rec("frozen", str({k: v.requires_grad for k, v in p2.items()}))


def p_ensemble_same_x(lib, dt, rec):
    models = _models(lib, dt, 5, act="gelu")
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    rec("base.device", str(base[0].weight.device))
    x = _randn(lib, dt, 1, 6, 4)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    loop = lib.stack([m(x) for m in models])
    rec("loop", loop)
    rec("diff", (out - loop).abs().max())
    out2 = lib.func.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("out2", out2)


def p_ensemble_own_x(lib, dt, rec):
    models = _models(lib, dt, 3, act="silu")
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    xs = _randn(lib, dt, 2, 3, 7, 4)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, 0))(params, buffers, xs)
    rec("out", out)
    # the batch dim of x second (in_dims=1)
    xt = xs.transpose(0, 1).contiguous()
    out_t = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, 1))(params, buffers, xt)
    rec("out_t", out_t)
    # backward through the ensemble output reaches the stacked leaves
    w = _randn(lib, dt, 3, *out.shape)
    (out * w).sum().backward()
    for k, v in params.items():
        rec("g." + k, v.grad)


def p_ensemble_train(lib, dt, rec):
    models = _models(lib, dt, 4, act="tanh")
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    f = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))
    x = _randn(lib, dt, 4, 16, 4)
    y = _randn(lib, dt, 5, 16, 3)
    opt = lib.optim.Adam(params.values(), lr=0.01, weight_decay=1e-3)
    for step in range(5):
        opt.zero_grad()
        pred = f(params, buffers, x)
        loss = ((pred - y) ** 2).mean(dim=(1, 2)).sum()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    for k, v in params.items():
        rec("p." + k, v)
    rec("state", str(sorted(opt.state[params["0.weight"]])))
    # SGD with momentum over a second copy
    p2 = {k: v.detach().clone().requires_grad_() for k, v in params.items()}
    sgd = lib.optim.SGD(list(p2.values()), lr=0.05, momentum=0.9, nesterov=True)
    for _ in range(3):
        sgd.zero_grad()
        lib.nn.functional.mse_loss(f(p2, buffers, x), y.expand(4, 16, 3)).backward()
        sgd.step()
    for k, v in p2.items():
        rec("sgd." + k, v)


class _BNNet:
    @staticmethod
    def make(lib, dt, seed):
        lib.manual_seed(seed)
        nn = lib.nn
        net = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)).to(dt)
        # a few training batches give each model its own running statistics
        g = lib.Generator().manual_seed(seed)
        for _ in range(3):
            net(lib.randn(8, 4, generator=g, dtype=dt) * 2 + 1)
        return net.eval()


def p_bn_eval_buffers(lib, dt, rec):
    models = [_BNNet.make(lib, dt, s) for s in (1, 2, 3)]
    params, buffers = lib.func.stack_module_state(models)
    rec("bkeys", str(list(buffers)))
    for k, v in buffers.items():
        rec("b." + k, v)
        rec("b.rg." + k, str(v.requires_grad))
    base = _meta_base(models)
    rec("base.training", str(base.training))
    x = _randn(lib, dt, 9, 5, 4)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    rec("loop", lib.stack([m(x) for m in models]))
    out.pow(2).sum().backward()
    for k, v in params.items():
        rec("g." + k, v.grad)
    # the buffers are unchanged by eval-mode calls
    rec("rm", buffers["1.running_mean"])
    rec("nbt", buffers["1.num_batches_tracked"])


def p_dropout_randomness(lib, dt, rec):
    lib.manual_seed(0)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2)).to(dt)
    models = [copy.deepcopy(net) for _ in range(3)]
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 1, 5, 4)
    rec.err("error", lambda: lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x))
    rec.err(
        "default",
        lambda: lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None), randomness="error")(
            params, buffers, x
        ),
    )
    # randomness='same': every model sees the same mask, so identical models agree
    lib.manual_seed(7)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None), randomness="same")(params, buffers, x)
    rec("same.eq01", str(bool((out[0] == out[1]).all())))
    rec("same.eq12", str(bool((out[1] == out[2]).all())))
    rec("same.shape", str(tuple(out.shape)))
    # randomness='different': independent masks
    lib.manual_seed(7)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None), randomness="different")(
        params, buffers, x
    )
    rec("diff.eq01", str(bool((out[0] == out[1]).all())))
    rec("diff.shape", str(tuple(out.shape)))
    rec.err("bad", lambda: lib.vmap(_fmodel(lib, base), randomness="differnt"))
    # eval mode: no randomness, 'error' is fine
    base.eval()
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("eval", out)


def _loss_aux(lib):
    def loss(params, x, y, base):
        pred = lib.func.functional_call(base, params, (x,))
        err = pred - y
        return (err**2).mean(), {"pred": pred, "mae": err.abs().mean()}

    return loss


def p_grad_aux(lib, dt, rec):
    model = _MLP.make(lib, dt, 3)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _randn(lib, dt, 1, 10, 4)
    y = _randn(lib, dt, 2, 10, 3)
    g, aux = lib.func.grad(_loss_aux(lib), has_aux=True)(params, x, y, model)
    for k, v in g.items():
        rec("g." + k, v)
    rec("aux.pred", aux["pred"])
    rec("aux.mae", aux["mae"])
    rec("aux.rg", str(aux["pred"].requires_grad))
    (gp, gx), (val, aux) = lib.func.grad_and_value(_loss_aux(lib), argnums=(0, 1), has_aux=True)(
        params, x, y, model
    )
    rec("gx", gx)
    rec("val", val)
    rec("gp.keys", str(list(gp)))
    gy = lib.func.grad(lambda p, x, y: _loss_aux(lib)(p, x, y, model)[0], argnums=2)(params, x, y)
    rec("gy", gy)
    # negative argnums
    gy2 = lib.func.grad(lambda p, x, y: _loss_aux(lib)(p, x, y, model)[0], argnums=-1)(params, x, y)
    rec("gy2", gy2)


def p_per_sample_grads(lib, dt, rec):
    model = _MLP.make(lib, dt, 5, act="relu")
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    x = _randn(lib, dt, 1, 6, 4)
    t = lib.tensor([0, 2, 1, 1, 0, 2])

    def loss(params, buffers, sample, target):
        out = lib.func.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, target.unsqueeze(0))

    ps = lib.vmap(lib.func.grad(loss), in_dims=(None, None, 0, 0))(params, buffers, x, t)
    for k, v in ps.items():
        rec("ps." + k, v)
    # the mean of per-sample grads is the batch gradient
    model.zero_grad()
    lib.nn.functional.cross_entropy(model(x), t).backward()
    for k, p in model.named_parameters():
        rec("bg." + k, p.grad)
        rec("mean." + k, ps[k].mean(0))
    # per-sample gradient norms (DP-SGD style)
    norms = lib.stack([v.flatten(1).norm(dim=1) for v in ps.values()], 1).norm(dim=1)
    rec("norms", norms)


def p_jac_hess(lib, dt, rec):
    model = _MLP.make(lib, dt, 9, din=3, hidden=5, dout=2)
    params = dict(model.named_parameters())
    x = _randn(lib, dt, 2, 3)

    def f(x):
        return model(x)

    rec("jacrev", lib.func.jacrev(f)(x))
    rec("jacfwd", lib.func.jacfwd(f)(x))
    rec("hess", lib.func.hessian(lambda x: model(x).sum())(x))
    xb = _randn(lib, dt, 3, 4, 3)
    rec("batched_jac", lib.vmap(lib.func.jacrev(f))(xb))
    rec("batched_jacfwd", lib.vmap(lib.func.jacfwd(f))(xb))

    def fp(p, x):
        return lib.func.functional_call(model, p, (x,))

    jp = lib.func.jacrev(fp)(params, x)
    for k, v in jp.items():
        rec("jp." + k, v)
    jf = lib.func.jacfwd(fp, argnums=1)(params, x)
    rec("jf", jf)
    h = lib.func.hessian(lambda p, x: fp(p, x).pow(2).sum())({"2.bias": params["2.bias"]}, x)
    rec("h.keys", str(list(h)))
    rec("h", h["2.bias"]["2.bias"])


def p_vmap_trees(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 3)
    y = _randn(lib, dt, 2, 4)

    def f(a, b):
        return {"s": a.sum() * b, "t": (a * b, a.exp())}, a.max()

    d, m = lib.vmap(f)(x, y)
    rec("s", d["s"])
    rec("t0", d["t"][0])
    rec("t1", d["t"][1])
    rec("m", m)
    # dict inputs with a dict of in_dims
    inp = {"a": x, "b": y.unsqueeze(0).expand(2, 4)}
    out = lib.vmap(lambda dd: dd["a"].sum() + dd["b"], in_dims=({"a": 0, "b": 1},))(inp)
    rec("dict_in", out)
    # a list input
    out = lib.vmap(lambda pair: pair[0] * pair[1].sum(), in_dims=([0, 0],))([y, x])
    rec("list_in", out)
    rec("type", type(lib.vmap(lambda a: [a, a])(y)).__name__)


def p_nested_vmap(lib, dt, rec):
    a = _randn(lib, dt, 1, 3, 4, 5)
    b = _randn(lib, dt, 2, 5, 2)
    # pairwise matrix products: outer over rows of a, inner over columns
    out = lib.vmap(lib.vmap(lambda r, c: (r @ c).tanh(), in_dims=(0, None)), in_dims=(0, None))(
        a, b
    )
    rec("out", out)
    # pairwise distances by nested vmap
    p = _randn(lib, dt, 3, 4, 3)
    q = _randn(lib, dt, 4, 5, 3)
    dist = lib.vmap(lib.vmap(lambda u, v: (u - v).norm(), in_dims=(None, 0)), in_dims=(0, None))(
        p, q
    )
    rec("dist", dist)
    rec("cdist", lib.cdist(p, q))
    # ensemble x batch: models on the outer vmap, samples on the inner
    models = _models(lib, dt, 3, din=3, dout=2)
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)

    def one(params, buffers, s):
        return lib.func.functional_call(base, (params, buffers), (s,))

    inner = lib.vmap(one, in_dims=(None, None, 0))
    out = lib.vmap(inner, in_dims=(0, 0, None))(params, buffers, p)
    rec("ens", out)


class _Tied:
    @staticmethod
    def make(lib, dt):
        lib.manual_seed(4)
        nn = lib.nn

        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(6, 4)
                self.proj = nn.Linear(4, 4)
                self.out = nn.Linear(4, 6, bias=False)
                self.out.weight = self.emb.weight

            def forward(self, idx):
                return self.out(self.proj(self.emb(idx)).tanh())

        return LM().to(dt)


def p_tied_weights(lib, dt, rec):
    m = _Tied.make(lib, dt)
    idx = lib.tensor([[0, 3, 5], [1, 1, 2]])
    rec("names", str([k for k, _ in m.named_parameters()]))
    rec("sd", str(list(m.state_dict())))
    new_w = _randn(lib, dt, 3, 6, 4)
    out = lib.func.functional_call(m, {"emb.weight": new_w}, (idx,))
    rec("tied", out)
    out = lib.func.functional_call(m, {"emb.weight": new_w}, (idx,), tie_weights=False)
    rec("untied", out)
    out = lib.func.functional_call(m, {"out.weight": new_w}, (idx,))
    rec("tied_other", out)
    rec.err(
        "both_diff",
        lambda: lib.func.functional_call(m, {"emb.weight": new_w, "out.weight": new_w * 2}, (idx,)),
    )
    out = rec.err(
        "both_same",
        lambda: lib.func.functional_call(m, {"emb.weight": new_w, "out.weight": new_w}, (idx,)),
    )
    rec("both_same.out", out)
    rec("orig", m(idx))
    # grad through a functional call with the tied weight
    g = lib.func.grad(
        lambda w: lib.func.functional_call(m, {"emb.weight": w}, (idx,)).logsumexp(-1).sum()
    )(new_w)
    rec("g", g)


def p_strict_keys(lib, dt, rec):
    m = _BNNet.make(lib, dt, 5)
    x = _randn(lib, dt, 1, 3, 4)
    params = dict(m.named_parameters())
    buffers = dict(m.named_buffers())
    out = lib.func.functional_call(m, (params, buffers), (x,), strict=True)
    rec("full", out)
    part = {"0.weight": params["0.weight"] * 0.5}
    rec("partial", lib.func.functional_call(m, part, (x,)))
    rec.err("strict_missing", lambda: lib.func.functional_call(m, part, (x,), strict=True))
    extra = dict(params, **buffers, bogus=lib.zeros(2, dtype=dt))
    rec.err("strict_unexpected", lambda: lib.func.functional_call(m, extra, (x,), strict=True))
    rec.err("nonstrict_unexpected", lambda: lib.func.functional_call(m, extra, (x,)))
    rec.err("dup", lambda: lib.func.functional_call(m, (part, part), (x,)))
    rec.err("bad_type", lambda: lib.func.functional_call(m, [1, 2], (x,)))
    # kwargs and a bare (non-tuple) arg
    rec("bare", lib.func.functional_call(m, params, x))
    lin = lib.nn.Linear(4, 2).to(dt)
    rec("kwargs", lib.func.functional_call(lin, dict(lin.named_parameters()), (), {"input": x}))
    # the module's own tensors are back after the call
    rec("w_back", str(m[0].weight is params["0.weight"]))


def p_vmap_errors(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 4)
    y = _randn(lib, dt, 2, 5, 4)

    def f(a, b):
        return a + b

    rec.err("sizes", lambda: lib.vmap(f)(x, y))
    rec.err("in_dims_len", lambda: lib.vmap(f, in_dims=(0, 0, 0))(x, x))
    rec.err("in_dims_range", lambda: lib.vmap(f, in_dims=(2, 0))(x, x))
    rec.err("in_dims_type", lambda: lib.vmap(f, in_dims=[0, 0])(x, x))
    rec.err("in_dims_float", lambda: lib.vmap(f, in_dims=(0.5, 0))(x, x))
    rec.err("nontensor_in", lambda: lib.vmap(f, in_dims=(0, 0))(x, 3.0))
    rec.err("all_none", lambda: lib.vmap(f, in_dims=(None, None))(x, x))
    rec.err("no_inputs", lambda: lib.vmap(lambda: x)())
    rec.err("float_out", lambda: lib.vmap(lambda a: 1.0)(x))
    rec.err("str_out", lambda: lib.vmap(lambda a: "s")(x))
    rec.err("tuple_float_out", lambda: lib.vmap(lambda a: (a, 2))(x))
    rec.err("none_out", lambda: lib.vmap(lambda a: None)(x))
    rec.err("out_dims_bad", lambda: lib.vmap(lambda a: a, out_dims=(0, 1))(x))
    rec.err("out_dims_range", lambda: lib.vmap(lambda a: a, out_dims=3)(x))
    rec.err("out_dims_type", lambda: lib.vmap(lambda a: a, out_dims="0")(x))
    rec.err("chunk0", lambda: lib.vmap(f, chunk_size=0))
    params, buffers = lib.func.stack_module_state(_models(lib, dt, 3))
    base = _meta_base(_models(lib, dt, 1))
    rec.err(
        "ens_batch",
        lambda: lib.vmap(_fmodel(lib, base), in_dims=(0, 0, 0))(
            params, buffers, _randn(lib, dt, 3, 4, 5, 4)
        ),
    )
    rec.err("ens_in_dims", lambda: lib.vmap(_fmodel(lib, base), in_dims=(0, 0))(params, buffers, x))
    rec.err("meta_call", lambda: base(x))


def p_grad_errors(lib, dt, rec):
    x = _randn(lib, dt, 1, 3)
    rec.err("nonscalar", lambda: lib.func.grad(lambda a: a * 2)(x))
    rec.err("aux_not_tuple", lambda: lib.func.grad(lambda a: a.sum(), has_aux=True)(x))
    rec.err("aux_len", lambda: lib.func.grad(lambda a: (a.sum(), 1, 2), has_aux=True)(x))
    rec.err("argnums_range", lambda: lib.func.grad(lambda a, b: (a * b).sum(), argnums=2)(x, x))
    rec.err("argnums_neg", lambda: lib.func.grad(lambda a, b: (a * b).sum(), argnums=-3)(x, x))
    rec.err("argnums_empty", lambda: lib.func.grad(lambda a, b: (a * b).sum(), argnums=())(x, x))
    rec.err("argnums_float", lambda: lib.func.grad(lambda a: a.sum(), argnums=0.0)(x))
    rec.err("not_tensor", lambda: lib.func.grad(lambda a: a.sum())(2.0))
    rec.err("int_input", lambda: lib.func.grad(lambda a: a.sum())(lib.arange(3)))
    rec.err("float_out", lambda: lib.func.grad(lambda a: 1.0)(x))
    rec.err("jacrev_aux", lambda: lib.func.jacrev(lambda a: a * 2, has_aux=True)(x))
    rec.err("hess_argnums", lambda: lib.func.hessian(lambda a: a.sum(), argnums=1)(x))


def p_jac_aux_argnums(lib, dt, rec):
    w = _randn(lib, dt, 1, 2, 3)
    x = _randn(lib, dt, 2, 3)

    def f(w, x):
        y = (w @ x).sin()
        return y, {"norm": y.norm()}

    (jw, jx), aux = lib.func.jacrev(f, argnums=(0, 1), has_aux=True)(w, x)
    rec("jw", jw)
    rec("jx", jx)
    rec("aux", aux["norm"])
    (jw2, jx2), aux2 = lib.func.jacfwd(f, argnums=(0, 1), has_aux=True)(w, x)
    rec("jw2", jw2)
    rec("jx2", jx2)
    rec("aux2", aux2["norm"])
    jc = lib.func.jacrev(lambda w, x: f(w, x)[0], chunk_size=1)(w, x)
    rec("jc", jc)
    hh = lib.func.hessian(lambda w, x: f(w, x)[0].sum(), argnums=(0, 1))(w, x)
    rec("h00", hh[0][0])
    rec("h01", hh[0][1])
    rec("h11", hh[1][1])


class _CNN:
    @staticmethod
    def make(lib, dt, seed):
        lib.manual_seed(seed)
        nn = lib.nn
        return nn.Sequential(
            nn.Conv2d(1, 3, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(18, 4),
            nn.LogSoftmax(-1),
        ).to(dt)


def p_ensemble_cnn(lib, dt, rec):
    models = [_CNN.make(lib, dt, s) for s in range(3)]
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 1, 2, 1, 4, 6)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    rec("vote", out.exp().mean(0))
    t = lib.tensor([1, 3])
    loss = lib.vmap(lambda o: lib.nn.functional.nll_loss(o, t))(out)
    rec("loss", loss)
    loss.sum().backward()
    rec("g.conv", params["0.weight"].grad)
    rec("g.lin", params["4.weight"].grad)


def p_hvp(lib, dt, rec):
    model = _MLP.make(lib, dt, 12, din=3, hidden=4, dout=1)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _randn(lib, dt, 1, 5, 3)

    def loss(p):
        return lib.func.functional_call(model, p, (x,)).pow(2).mean()

    v = {k: _randn(lib, dt, 10 + i, *p.shape) for i, (k, p) in enumerate(params.items())}
    _, hv = lib.func.jvp(lib.func.grad(loss), (params,), (v,))
    for k, t in hv.items():
        rec("fwdrev." + k, t)
    _, vjp_fn = lib.func.vjp(lib.func.grad(loss), params)
    (hv2,) = vjp_fn(v)
    for k, t in hv2.items():
        rec("revrev." + k, t)


def p_vjp_ensemble(lib, dt, rec):
    models = _models(lib, dt, 3)
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 1, 4, 4)
    f = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))
    out, vjp_fn = lib.func.vjp(lambda p: f(p, buffers, x), params)
    rec("out", out)
    (g,) = vjp_fn(_randn(lib, dt, 2, *out.shape))
    for k, v in g.items():
        rec("g." + k, v)
    out_j, jv = lib.func.jvp(
        lambda p: f(p, buffers, x), (params,), ({k: lib.ones_like(v) for k, v in params.items()},)
    )
    rec("jv", jv)


def p_functorch_train(lib, dt, rec):
    """The functorch way: vmap(grad(loss)) over the models, manual SGD on the stacked dicts."""
    models = _models(lib, dt, 3, act="tanh")
    params, buffers = lib.func.stack_module_state(models)
    params = {k: v.detach() for k, v in params.items()}
    base = _meta_base(models)
    x = _randn(lib, dt, 1, 3, 8, 4)
    y = _randn(lib, dt, 2, 3, 8, 3)

    def loss(p, b, x, y):
        pred = lib.func.functional_call(base, (p, b), (x,))
        return ((pred - y) ** 2).mean(), pred.detach()

    step = lib.vmap(lib.func.grad_and_value(loss, has_aux=True))
    for i in range(4):
        g, (val, pred) = step(params, buffers, x, y)
        params = {k: v - 0.1 * g[k] for k, v in params.items()}
        rec(f"loss{i}", val)
    rec("pred", pred)
    for k, v in params.items():
        rec("p." + k, v)


def p_stack_errors(lib, dt, rec):
    a = _MLP.make(lib, dt, 1)
    b = _MLP.make(lib, dt, 2)
    rec.err("empty", lambda: lib.func.stack_module_state([]))
    b.eval()
    rec.err("modes", lambda: lib.func.stack_module_state([a, b]))
    b.train()
    b[0].weight.requires_grad_(False)
    rec.err("rg", lambda: lib.func.stack_module_state([a, b]))
    b[0].weight.requires_grad_(True)
    c = _MLP.make(lib, dt, 3, hidden=5)
    rec.err("shapes", lambda: lib.func.stack_module_state([a, c]))
    rec.err("tuple", lambda: lib.func.stack_module_state((a, b)))
    p, _ = lib.func.stack_module_state((a, b))
    rec("tuple.w", p["2.bias"])


def p_ensemble_uncertainty(lib, dt, rec):
    models = _models(lib, dt, 6, din=2, hidden=6, dout=2, act="relu")
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 3, 10, 2)
    with lib.no_grad():
        logits = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("rg", str(logits.requires_grad))
    probs = logits.softmax(-1)
    mean = probs.mean(0)
    entropy = -(mean * mean.log()).sum(-1)
    aleatoric = -(probs * probs.log()).sum(-1).mean(0)
    rec("mean", mean)
    rec("entropy", entropy)
    rec("mi", entropy - aleatoric)
    rec("std", logits.std(0))
    # params keep requires_grad and stay leaves after the no_grad call
    rec("leaf", str([(v.is_leaf, v.requires_grad) for v in params.values()]))


def p_chunked(lib, dt, rec):
    models = _models(lib, dt, 5)
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 1, 3, 4)
    full = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    for cs in (1, 2, 5, 7):
        out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None), chunk_size=cs)(params, buffers, x)
        rec(f"cs{cs}", out)
        rec(f"eq{cs}", (out - full).abs().max())
    rec.err("cs_neg", lambda: lib.vmap(_fmodel(lib, base), chunk_size=-1))
    jac = lib.func.jacrev(lambda x: base_call(lib, models[0], x), chunk_size=2)(x)
    rec("jac", jac)


def base_call(lib, m, x):
    return m(x).sum(0)


def p_out_dims(lib, dt, rec):
    models = _models(lib, dt, 3)
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 1, 4, 4)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None), out_dims=1)(params, buffers, x)
    rec("od1", out)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None), out_dims=-1)(params, buffers, x)
    rec("od-1", out)

    def two(p, b, x):
        o = lib.func.functional_call(base, (p, b), (x,))
        return o, o.mean()

    o, m = lib.vmap(two, in_dims=(0, 0, None), out_dims=(1, 0))(params, buffers, x)
    rec("o", o)
    rec("m", m)
    o, c = lib.vmap(
        lambda p, b, x: (two(p, b, x)[0], x * 2), in_dims=(0, 0, None), out_dims=(0, None)
    )(params, buffers, x)
    rec("c", c)
    rec.err(
        "none_batched",
        lambda: lib.vmap(two, in_dims=(0, 0, None), out_dims=(0, None))(params, buffers, x),
    )


def p_random_values(lib, dt, rec):
    """randomness='same' (one draw shared by the batch) and 'different' with one dropout."""
    x = lib.ones(4, 6, dtype=dt)
    F = lib.nn.functional
    lib.manual_seed(3)
    out = lib.vmap(lambda r: F.dropout(r, 0.5), randomness="same")(x)
    rec("same.dropout", out)
    lib.manual_seed(3)
    out = lib.vmap(lambda r: r * lib.rand(6, dtype=dt), randomness="same")(x)
    rec("same.rand", out)
    rec("after", lib.rand(2, dtype=dt))
    lib.manual_seed(3)
    out = lib.vmap(lambda r: r * lib.randn(6, dtype=dt), randomness="same")(x)
    rec("same.randn", out)
    lib.manual_seed(3)
    out = lib.vmap(lambda r: r + lib.rand(3, dtype=dt).sum(), randomness="different")(x)
    rec("diff.rand", out)
    lib.manual_seed(3)
    out = lib.vmap(lambda r: F.dropout(r, 0.25), randomness="different")(x)
    rec("diff.dropout", out)
    g = lib.Generator().manual_seed(5)
    rec.err("gen_error", lambda: lib.vmap(lambda r: r * lib.rand(6, generator=g, dtype=dt))(x))
    rec.err("randn_like_err", lambda: lib.vmap(lambda r: lib.randn_like(r))(x))


def p_optimizers(lib, dt, rec):
    """Ensembles trained with several optimizers, clipping and a scheduler on stacked leaves."""
    models = _models(lib, dt, 3, din=3, hidden=5, dout=2, act="relu")
    base = _meta_base(models)
    f = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, 0))
    x = _randn(lib, dt, 1, 3, 6, 3)
    y = _randn(lib, dt, 2, 3, 6, 2)
    for name in ("AdamW", "RMSprop", "Adagrad", "NAdam", "Adam_amsgrad"):
        params, buffers = lib.func.stack_module_state(models)
        if name == "Adam_amsgrad":
            opt = lib.optim.Adam(list(params.values()), lr=0.02, amsgrad=True)
        else:
            opt = getattr(lib.optim, name)(list(params.values()), lr=0.02)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(4):
            opt.zero_grad()
            loss = ((f(params, buffers, x) - y) ** 2).mean()
            loss.backward()
            norm = lib.nn.utils.clip_grad_norm_(params.values(), 0.5)
            opt.step()
            sched.step()
        rec(name + ".norm", norm)
        rec(name + ".loss", loss)
        for k, v in params.items():
            rec(name + "." + k, v)
        rec(name + ".lr", sched.get_last_lr())


def p_ensemble_layers(lib, dt, rec):
    """An ensemble of small transformer-ish blocks (LayerNorm, attention, GELU MLP)."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(8)
            self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
            self.mlp = nn.Sequential(
                nn.Linear(8, 16), nn.GELU(approximate="tanh"), nn.Linear(16, 8)
            )

        def forward(self, x):
            h = self.ln(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.mlp(x)

    models = []
    for s in range(3):
        lib.manual_seed(s)
        models.append(Block().to(dt))  # train mode: see the docstring
    params, buffers = lib.func.stack_module_state(models)
    rec("keys", str(list(params)))
    base = _meta_base(models)
    x = _randn(lib, dt, 7, 2, 5, 8)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    rec("loop", lib.stack([m(x) for m in models]))
    out.square().mean().backward()
    rec("g.in_proj", params["attn.in_proj_weight"].grad)
    rec("g.ln", params["ln.weight"].grad)


def p_double_grad(lib, dt, rec):
    """grad of grad (gradient penalty), jacrev of jacrev, and hessian vs jacfwd(jacrev)."""
    model = _MLP.make(lib, dt, 21, din=2, hidden=6, dout=1, act="tanh")
    x = _randn(lib, dt, 1, 2)

    def f(x):
        return model(x).squeeze(-1)

    rec("gg", lib.func.grad(lambda x: lib.func.grad(f)(x).pow(2).sum())(x))
    rec("jj", lib.func.jacrev(lib.func.jacrev(f))(x))
    rec("fr", lib.func.jacfwd(lib.func.jacrev(f))(x))
    rec("hess", lib.func.hessian(f)(x))
    # batched Laplacian of the network (PINN style)
    xs = _randn(lib, dt, 2, 5, 2)
    lap = lib.vmap(lambda p: lib.func.hessian(f)(p).diagonal().sum())(xs)
    rec("lap", lap)
    # a gradient penalty trained by autograd on the model's parameters
    model.zero_grad()
    gp = lib.vmap(lib.func.grad(f))(xs).norm(dim=1).sub(1).pow(2).mean()
    gp.backward()
    rec("gp", gp)
    for k, p in model.named_parameters():
        rec("gp.g." + k, p.grad)


def p_vmap_kwargs(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 4)
    w = _randn(lib, dt, 2, 4)

    def f(a, *, scale, bias=None):
        out = a * scale
        return out if bias is None else out + bias

    rec("kw", lib.vmap(f)(x, scale=w))
    rec("kw2", lib.vmap(f)(x, scale=2.0, bias=w))
    rec("negdim", lib.vmap(lambda a: a.sum(), in_dims=-1)(x))
    rec("name", lib.vmap(f).__name__)
    rec.err("scalar_in", lambda: lib.vmap(lambda a: a)(lib.tensor(1.0, dtype=dt)))
    out = lib.vmap(lambda a, b: a * b, in_dims=(0, None))(x, w)
    rec("bcast", out)
    # a batch of size 0
    e = lib.zeros(0, 4, dtype=dt)
    rec("empty", lib.vmap(lambda a: a * 2 + 1)(e))
    rec("empty2", lib.vmap(lambda a: a.sum())(e))


def p_func_dict_outputs(lib, dt, rec):
    """jacrev/jacfwd/vmap of functions returning dicts; out_dims given as a dict."""
    x = _randn(lib, dt, 1, 3)

    def f(x):
        return {"sq": x**2, "sum": x.sum(), "prod": x[:2] * x[1:]}

    jr = lib.func.jacrev(f)(x)
    jf = lib.func.jacfwd(f)(x)
    for k in ("sq", "sum", "prod"):
        rec("jr." + k, jr[k])
        rec("jf." + k, jf[k])
    xb = _randn(lib, dt, 2, 4, 3)
    out = lib.vmap(f, out_dims={"sq": 1, "sum": 0, "prod": -1})(xb)
    for k in ("sq", "sum", "prod"):
        rec("vm." + k, out[k])
    rec.err("od_keys", lambda: lib.vmap(f, out_dims={"sq": 1, "sum": 0})(xb))


def p_jacfwd_random(lib, dt, rec):
    """jacfwd/hessian are vmap over jvp in torch: random ops follow its `randomness`."""
    lib.manual_seed(11)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Dropout(0.3), nn.Linear(4, 1)).to(dt)
    x = _randn(lib, dt, 1, 3)
    f = lambda x: net(x).squeeze(-1)  # noqa: E731
    rec.err("jacfwd", lambda: lib.func.jacfwd(f)(x))
    rec.err("hessian", lambda: lib.func.hessian(f)(x))
    rec("after", lib.rand(3, dtype=dt))  # the refused draw did not advance the generator
    g = lib.Generator().manual_seed(2)
    rec.err(
        "explicit", lambda: lib.func.jacfwd(lambda a: a * lib.rand(3, generator=g, dtype=dt))(x)
    )
    rec("after_g", lib.rand(2, generator=g, dtype=dt))
    lib.manual_seed(5)
    j = lib.func.jacfwd(lambda a: lib.nn.functional.dropout(a.exp(), 0.5), randomness="same")(x)
    rec("same", j)
    rec("jacrev", str(tuple(lib.func.jacrev(f)(x).shape)))  # jacrev runs f once: allowed
    net.eval()
    rec("eval.hess", lib.func.hessian(f)(x))
    rec.err(
        "nested",
        lambda: lib.vmap(lib.func.jacfwd(lambda a: a * lib.rand(3, dtype=dt), randomness="same"))(
            x.expand(2, 3)
        ),
    )


def p_bn_replace(lib, dt, rec):
    """The functorch recipe for BatchNorm in a vmapped ensemble in training mode:
    replace_all_batch_norm_modules_ drops the running statistics."""
    models = [_BNNet.make(lib, dt, s).train() for s in (4, 5, 6)]
    for m in models:
        out = lib.func.replace_all_batch_norm_modules_(m)
        rec("same", str(out is m))
    rec("repr", repr(models[0][1]))
    params, buffers = lib.func.stack_module_state(models)
    rec("bkeys", str(list(buffers)))
    base = _meta_base(models)
    xs = _randn(lib, dt, 8, 3, 6, 4)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, 0))(params, buffers, xs)
    rec("out", out)
    rec("loop", lib.stack([m(x) for m, x in zip(models, xs, strict=True)]))
    out.sum(-1).pow(2).mean().backward()
    for k, v in params.items():
        rec("g." + k, v.grad)


def p_shared_backbone(lib, dt, rec):
    """Ensemble heads over one shared trunk: in_dims given per key of the parameter dict."""
    models = _models(lib, dt, 3, din=4, hidden=6, dout=2)
    params, buffers = lib.func.stack_module_state(models)
    trunk = {k: params[k][0].detach().clone().requires_grad_() for k in ("0.weight", "0.bias")}
    heads = {k: params[k] for k in ("2.weight", "2.bias")}
    base = _meta_base(models)

    def f(heads, trunk, x):
        return lib.func.functional_call(base, (heads, trunk), (x,))

    x = _randn(lib, dt, 2, 5, 4)
    out = lib.vmap(f, in_dims=(0, None, None))(heads, trunk, x)
    rec("out", out)
    # the same through a per-key in_dims dict on one merged dict
    merged = dict(heads, **{k: v.expand(3, *v.shape) for k, v in trunk.items()})
    dims = {"2.weight": 0, "2.bias": 0, "0.weight": None, "0.bias": None}
    out2 = lib.vmap(lambda p, x: lib.func.functional_call(base, p, (x,)), in_dims=(dims, None))(
        dict(heads, **trunk), x
    )
    rec("out2", out2)
    out3 = lib.vmap(lambda p, x: lib.func.functional_call(base, p, (x,)), in_dims=(0, None))(
        merged, x
    )
    rec("out3", out3)
    (out * _randn(lib, dt, 3, *out.shape)).sum().backward()
    rec("g.trunk.w", trunk["0.weight"].grad)
    rec("g.trunk.b", trunk["0.bias"].grad)
    rec("g.head.w", heads["2.weight"].grad)
    rec.err(
        "bad_dims",
        lambda: lib.vmap(lambda p, x: p["0.weight"].sum() * x, in_dims=({"0.weight": 0}, None))(
            dict(heads, **trunk), x
        ),
    )


def p_dims_key_order(lib, dt, rec):
    """in_dims/out_dims dicts whose keys come in another order than the inputs'/outputs': torch's
    pytree matches dicts by key but lists the dims in the in_dims dict's order, and vmap pairs
    them with the inputs' leaves in their own order."""
    import collections

    x = _randn(lib, dt, 1, 4, 3)
    y = _randn(lib, dt, 2, 5)
    out = lib.vmap(lambda d: d["b"].sum() + d["a"].sum(), in_dims=({"a": 0, "b": None},))(
        {"b": x, "a": y}
    )
    rec("swapped", out)
    out = lib.vmap(lambda d: d["b"] * 2, in_dims=({"b": 0, "a": None},))({"b": x, "a": y})
    rec("same_dims", out)
    od = collections.OrderedDict(b=x, a=x * 2)
    rec.err("ordered", lambda: lib.vmap(lambda d: d["a"] - d["b"], in_dims=({"a": 1, "b": 0},))(od))
    out = lib.vmap(lambda d: d["a"] - d["b"], in_dims=(collections.OrderedDict(b=0, a=0),))(
        {"a": x, "b": x.flip(0)}
    )
    rec("ordered_dims", out)
    res = lib.vmap(lambda r: {"p": r * 2, "q": r.sum()}, out_dims={"q": 0, "p": 0})(x)
    rec("out.p", res["p"])
    rec("out.q", res["q"])
    res = lib.vmap(lambda r: {"p": r.sum(), "q": r * 2}, out_dims={"q": 0, "p": 0})(x)
    rec("out2.q", res["q"])
    rec.err(
        "missing_key",
        lambda: lib.vmap(lambda d: d["a"], in_dims=({"a": 0, "c": 0},))({"b": x, "a": x}),
    )
    rec.err("out_missing", lambda: lib.vmap(lambda r: {"p": r, "q": r}, out_dims={"p": 0})(x))


def p_meta_base_errors(lib, dt, rec):
    """A meta base copy run without some of its state: the meta tensors meet the inputs."""
    models = [_BNNet.make(lib, dt, s) for s in (1, 2)]
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    x = _randn(lib, dt, 3, 5, 4)
    # only the parameters: BatchNorm's running statistics are left on the meta device
    rec.err(
        "params_only",
        lambda: lib.vmap(lambda p, x: lib.func.functional_call(base, p, (x,)), in_dims=(0, None))(
            params, x
        ),
    )
    rec.err(
        "strict",
        lambda: lib.vmap(
            lambda p, x: lib.func.functional_call(base, p, (x,), strict=True), in_dims=(0, None)
        )(params, x),
    )
    one = {k: v[0] for k, v in params.items()}
    rec.err("unmapped", lambda: lib.func.functional_call(base, one, (x,)))
    F = lib.nn.functional
    m = lib.zeros(4, device="meta", dtype=dt)
    v = lib.ones(4, dtype=dt)
    xb = _randn(lib, dt, 4, 6, 4)
    rec.err("bn_meta_mean", lambda: F.batch_norm(xb, m, v))
    rec.err("bn_meta_var_train", lambda: F.batch_norm(xb, v, m, training=True))
    rec.err("bn_meta_input", lambda: F.batch_norm(xb.to("meta"), v, v))
    rec.err("bn_meta_one_none", lambda: F.batch_norm(xb, m, None, training=True))
    rec.err("bn_meta_eval_none", lambda: F.batch_norm(xb, m, None))
    rec.err("bn_meta_size", lambda: F.batch_norm(xb, lib.zeros(3, device="meta"), v))
    rec.err("bn_meta_int", lambda: F.batch_norm(xb.long(), m, v))
    # in train mode the stacked running statistics are updated in place, model by model
    for mm in models:
        mm.train()
    params, buffers = lib.func.stack_module_state(models)
    base = _meta_base(models)
    out = lib.vmap(_fmodel(lib, base), in_dims=(0, 0, None))(params, buffers, x)
    rec("train.out", out)
    for k, b in buffers.items():
        rec("train." + k, b)
