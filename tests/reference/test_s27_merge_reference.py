"""Session 27 (helper merge): programs of researchers who manipulate whole models and their
gradients, run under torch and minitorch with the same seeds and compared record by record:
federated learning (FedAvg over deep-copied clients with BatchNorm's long num_batches_tracked,
weighted state_dict averages, FedProx, SCAFFOLD, FedAdam with averaged optimizer states,
secure-aggregation masks in int64 modular arithmetic, non-IID Dirichlet partitions and samplers,
DP-SGD by vmap(grad(functional_call)), Opacus-style hooks (Linear, grouped strided Conv1d, norms,
Embedding) and the error torch gives when they meet vmap, compression by top-k with error
feedback, sign-SGD votes and QSGD), model merging (task arithmetic, soups, TIES with
kthvalue/topk/quantile, DARE, SLERP, Fisher averaging, parameters_to_vector round trips,
functional_call with tied weights, stack_module_state ensembles, merging LSTM/GRU/attention/
transformer weights, loss-landscape and mode-connectivity curves), multi-task gradient surgery
(PCGrad, GradNorm with create_graph, MGDA, uncertainty weighting, CAGrad), distillation (KD with
temperature and log_target, attention transfer, FitNets, RKD, ensemble distillation, EMA/SWA,
fusion) and continual learning (EWC buffers, LwF, reservoir replay, SI/MAS, PackNet masks, HAT
gates, head expansion, re-initialisation), lottery tickets and torch.nn.utils.prune (global
magnitude masks, rewinding, custom methods, structured pruning, remove), low-rank merging
(truncated SVDs of task vectors, svd_lowrank/pca_lowrank, RegMean by solve/lstsq/cholesky_solve),
and the state_dict machinery they rely on (in-place aliasing, assign=True, hooks, metadata
versions, errors).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts and the warnings the
programs give exactly.

Known and left (documented): which of equal magnitudes topk picks (the lottery program prunes the
trained weights, not the rewound ones, which tie at zero); there are no meta tensors; vmap runs
BatchNorm's running-statistics update once per sample instead of refusing it, and `.item()`
inside vmap gives a value (README.md, minitorch/func/_vmap.py); singular vectors' signs are
LAPACK's (NumPy's OpenBLAS here, MKL in torch: often flipped for wide matrices, as svd_lowrank's
Q^H A), so the SVD records are sign-free (linalg_svd's docstring)."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import copy
import importlib
import io
import math

import pytest

import minitorch
from tests.reference._one_thread import one_torch_thread  # noqa: F401 - autouse fixture
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


PROGRAMS = [
    "fedavg", "fedprox_scaffold", "secagg", "dp_vmap", "opacus_hooks", "compress", "task_arith",
    "ties", "slerp_fisher", "ensemble_vmap", "pcgrad", "gradnorm", "mgda_uw", "kd",
    "feat_distill_ewc", "replay_si", "lottery", "sd_inplace", "opt_avg", "dp_noise",
    "signsgd_int", "func_edges", "prune_more", "conv_persample", "ensemble_distill", "kd_temps",
    "noniid", "sd_hooks", "param_vec_train", "merge_seq", "packnet_hat", "reset_init",
    "fuse_swa_bn", "custom_prune", "lowrank_merge", "opacus_layers",
]  # fmt: skip


def _keep(w):
    """The warnings compared: not NumPy's floating-point ones minitorch filters (README.md), nor
    torch's internal notices (torch.jit.script's deprecation, vmap's missing batching rules)."""
    if issubclass(w.category, RuntimeWarning) and "minitorch" in str(w.filename):
        return False
    msg = str(w.message)
    return "torch.jit.script" not in msg and "batching rule" not in msg


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True), keep_warnings=_keep)
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True), keep_warnings=_keep)
    assert_records_match(want, got, 1e-10 if dt == "float64" else 1e-4, rename=True)


# --- the programs: each takes the library, a dtype and a recorder ---


def _net(lib, dt, bn=True):
    nn = lib.nn
    layers = [nn.Linear(4, 6)]
    if bn:
        layers.append(nn.BatchNorm1d(6))
    layers += [nn.ReLU(), nn.Linear(6, 3)]
    return nn.Sequential(*layers).to(dt)


def p_fedavg(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(0)
    glob = _net(lib, dt)
    opt = lib.optim.SGD(glob.parameters(), lr=0.1, momentum=0.9)
    data = [(lib.randn(n, 4, dtype=dt), lib.randint(0, 3, (n,))) for n in (8, 12, 4)]
    for rnd in range(2):
        sds, counts = [], []
        for c, (x, y) in enumerate(data):
            m = copy.deepcopy(glob)
            o = copy.deepcopy(opt)
            o.param_groups[0]["params"] = list(m.parameters())
            o2 = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
            m.train()
            for _ in range(2):
                o2.zero_grad()
                loss = F.cross_entropy(m(x), y)
                loss.backward()
                o2.step()
            rec(f"r{rnd}.c{c}.loss", loss)
            sds.append(m.state_dict())
            counts.append(x.shape[0])
        tot = sum(counts)
        avg = {k: sum(sd[k] * (n / tot) for sd, n in zip(sds, counts, strict=True)) for k in sds[0]}
        for k, v in avg.items():
            rec(f"r{rnd}.avg.{k}", v)
            rec(f"r{rnd}.avg.{k}.dtype", str(v.dtype))
        res = glob.load_state_dict(avg)
        rec(f"r{rnd}.res", repr(res))
        for k, v in glob.state_dict().items():
            rec(f"r{rnd}.glob.{k}", v)
            rec(f"r{rnd}.glob.{k}.dtype", str(v.dtype))
        # integer-preserving average
        avg2 = {}
        for k in sds[0]:
            st = lib.stack([sd[k].float() for sd in sds])
            w = lib.tensor(counts, dtype=lib.float32) / tot
            w = w.view(-1, *([1] * (st.dim() - 1)))
            avg2[k] = (st * w).sum(0).to(sds[0][k].dtype)
        rec(f"r{rnd}.nbt", avg2["1.num_batches_tracked"])
        glob.load_state_dict(avg2, strict=True)
    glob.eval()
    rec("final", glob(data[0][0]))
    rec("opt_state", repr(sorted(o.state_dict()["param_groups"][0].keys())))
    rec("sd_keys", ",".join(glob.state_dict().keys()))
    rec.err(
        "bad_load", lambda: glob.load_state_dict({k: v for k, v in avg.items() if "bias" not in k})
    )
    rec.err("bad_shape", lambda: glob.load_state_dict({**avg, "0.weight": lib.zeros(2, 2)}))


def p_fedprox_scaffold(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(1)
    glob = _net(lib, dt, bn=False)
    c_glob = [lib.zeros_like(p) for p in glob.parameters()]
    clients = [(lib.randn(10, 4, dtype=dt), lib.randn(10, 3, dtype=dt)) for _ in range(3)]
    c_loc = [[lib.zeros_like(p) for p in glob.parameters()] for _ in clients]
    lr, mu, K = 0.05, 0.1, 3
    for rnd in range(2):
        sel = lib.randperm(3)[:2].tolist()
        rec(f"r{rnd}.sel", sel)
        deltas, dcs = [], []
        for ci in sel:
            x, y = clients[ci]
            m = copy.deepcopy(glob)
            g0 = [p.detach().clone() for p in glob.parameters()]
            for _ in range(K):
                m.zero_grad()
                loss = F.mse_loss(m(x), y)
                prox = sum(((p - q) ** 2).sum() for p, q in zip(m.parameters(), g0, strict=True))
                (loss + mu / 2 * prox).backward()
                with lib.no_grad():
                    for p, cg, cl in zip(m.parameters(), c_glob, c_loc[ci], strict=True):
                        p.add_(p.grad - cl + cg, alpha=-lr)
            rec(f"r{rnd}.c{ci}.loss", loss)
            with lib.no_grad():
                new_c = [
                    cl - cg + (q - p) / (K * lr)
                    for p, q, cl, cg in zip(m.parameters(), g0, c_loc[ci], c_glob, strict=True)
                ]
                dcs.append([a - b for a, b in zip(new_c, c_loc[ci], strict=True)])
                c_loc[ci] = new_c
                deltas.append([p - q for p, q in zip(m.parameters(), g0, strict=True)])
        with lib.no_grad():
            for i, p in enumerate(glob.parameters()):
                p.add_(lib.stack([d[i] for d in deltas]).mean(0))
                c_glob[i] += lib.stack([d[i] for d in dcs]).sum(0) / 3
        rec.params(f"r{rnd}", glob)
        for i, c in enumerate(c_glob):
            rec(f"r{rnd}.c{i}", c)


def p_secagg(lib, dt, rec):
    lib.manual_seed(2)
    n, d, Q = 4, 6, 2**31 - 1
    vals = (lib.rand(n, d, dtype=dt) * 100).round().long()
    rec("vals", vals)
    masks = {}
    for i in range(n):
        for j in range(i + 1, n):
            masks[(i, j)] = lib.randint(0, Q, (d,), dtype=lib.int64)
    masked = []
    for i in range(n):
        m = vals[i].clone()
        for j in range(n):
            if i < j:
                m = (m + masks[(i, j)]) % Q
            elif j < i:
                m = (m - masks[(j, i)]) % Q
        masked.append(m)
    rec("masked", lib.stack(masked))
    agg = lib.stack(masked).sum(0) % Q
    rec("agg", agg)
    rec("agg_ref", vals.sum(0))
    rec("fmod", lib.fmod(vals - 50, 7))
    rec("rem", lib.remainder(vals - 50, 7))
    rec("rem_neg", (vals - 50) % -7)
    rec("floordiv", (vals - 50) // 7)
    rec("div_floor", lib.div(vals - 50, 7, rounding_mode="floor"))
    rec("div_trunc", lib.div(vals - 50, 7, rounding_mode="trunc"))
    rec("big", (lib.tensor([2**62, -(2**62)]) * 2))
    rec("bitxor", masks[(0, 1)] ^ masks[(0, 2)])
    rec("shift", (masks[(0, 1)] >> 3) & 0xFF)
    perm = lib.randperm(10)
    rec("perm", perm)
    rec("perm_small", lib.randperm(3, dtype=lib.int32))
    g = lib.Generator().manual_seed(5)
    rec("perm_gen", lib.randperm(8, generator=g))
    rec("rint_gen", lib.randint(-5, 5, (4,), generator=g))
    rec("rint_low", lib.randint(3, (2, 3)))
    rec("rint_like", lib.randint_like(vals, 10))
    rec("mean_long_err", repr(rec.err("mean_long", lambda: vals.mean())))


def p_dp_vmap(lib, dt, rec):
    nn, F, fn = lib.nn, lib.nn.functional, lib.func
    lib.manual_seed(3)
    model = nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 2)).to(dt)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    x = lib.randn(6, 5, dtype=dt)
    y = lib.randint(0, 2, (6,))

    def loss_fn(p, b, xi, yi):
        out = fn.functional_call(model, (p, b), (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    ps = fn.vmap(fn.grad(loss_fn), in_dims=(None, None, 0, 0))(params, buffers, x, y)
    for k, g in ps.items():
        rec("psg." + k, g)
    C, sigma = 0.5, 1.0
    norms = lib.stack([g.flatten(1).norm(dim=1) for g in ps.values()], 1).norm(dim=1)
    rec("norms", norms)
    factor = (C / (norms + 1e-6)).clamp(max=1.0)
    rec("factor", factor)
    for k, p in model.named_parameters():
        clipped = lib.einsum("i,i...->...", factor, ps[k])
        noise = lib.zeros_like(clipped).normal_(0, sigma * C)
        p.grad = (clipped + noise) / x.shape[0]
        rec("g." + k, p.grad)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    opt.step()
    rec.params("after", model)

    # per-sample grads via jacrev of loss over the batch
    def batch_loss(p):
        out = fn.functional_call(model, p, (x,))
        return F.cross_entropy(out, y, reduction="none")

    jr = fn.jacrev(batch_loss)(dict(model.named_parameters()))
    for k, g in jr.items():
        rec("jr." + k, g)
    # clip_grad_norm_
    for p in model.parameters():
        p.grad = lib.randn_like(p)
    tn = nn.utils.clip_grad_norm_(model.parameters(), 0.3)
    rec("tn", tn)
    rec.params("clip", model, grads=True)
    rec("gn", nn.utils.get_total_norm([p.grad for p in model.parameters()]))


def p_opacus_hooks(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)).to(dt)
    acts, backs = {}, {}
    hs = []
    for name, m in model.named_modules():
        if isinstance(m, nn.Linear):
            hs.append(
                m.register_forward_hook(
                    lambda mod, inp, out, name=name: acts.__setitem__(name, inp[0].detach())
                )
            )
            hs.append(
                m.register_full_backward_hook(
                    lambda mod, gin, gout, name=name: backs.__setitem__(name, gout[0].detach())
                )
            )
    x = lib.randn(7, 3, dtype=dt)
    y = lib.randint(0, 2, (7,))
    loss = F.cross_entropy(model(x), y, reduction="sum")
    loss.backward()
    for name, m in model.named_modules():
        if isinstance(m, nn.Linear):
            gw = lib.einsum("ni,nj->nij", backs[name], acts[name])
            gb = backs[name]
            rec(name + ".gw", gw)
            rec(name + ".sum_ok", (gw.sum(0) - m.weight.grad).abs().max())
            rec(name + ".gb", gb)
            n = (gw.flatten(1).pow(2).sum(1) + gb.pow(2).sum(1)).sqrt()
            rec(name + ".n", n)
    for h in hs:
        h.remove()
    rec("n_hooks", len(model[0]._forward_hooks) + len(model[0]._backward_hooks))
    # backward hook returning modified grad_input
    h = model[2].register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    rec.params("hooked", model, grads=True)
    h.remove()
    # register_full_backward_pre_hook
    h = model[0].register_full_backward_pre_hook(lambda m, go: (go[0].clamp(-0.1, 0.1),))
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    rec.params("prehook", model, grads=True)
    h.remove()
    # tensor hooks on params (grad accumulation)
    seen = []
    hh = [p.register_hook(lambda g: seen.append(g.norm()) or g * 0.5) for p in model.parameters()]
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    rec("seen", lib.stack(seen))
    rec.params("phook", model, grads=True)
    for h in hh:
        h.remove()
    hp = [
        p.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(3)) for p in model.parameters()
    ]
    model.zero_grad()
    rec.err("post_ret", lambda: F.cross_entropy(model(x), y).backward())
    for h in hp:
        h.remove()
    hp = [
        p.register_post_accumulate_grad_hook(lambda p: (p.grad.mul_(3), None)[1])
        for p in model.parameters()
    ]
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    rec.params("post", model, grads=True)


def p_compress(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(5)
    workers = [(lib.randn(8, 4, dtype=dt), lib.randn(8, 3, dtype=dt)) for _ in range(3)]
    model = _net(lib, dt, bn=False)
    errs = [[lib.zeros_like(p) for p in model.parameters()] for _ in workers]
    ratio = 0.25
    for step in range(3):
        agg = [lib.zeros_like(p) for p in model.parameters()]
        signs = [lib.zeros_like(p) for p in model.parameters()]
        qs = [lib.zeros_like(p) for p in model.parameters()]
        for wi, (x, y) in enumerate(workers):
            model.zero_grad()
            F.mse_loss(model(x), y).backward()
            for i, p in enumerate(model.parameters()):
                g = p.grad + errs[wi][i]
                flat = g.flatten()
                k = max(1, int(ratio * flat.numel()))
                _, idx = flat.abs().topk(k)
                sp = lib.zeros_like(flat).scatter_(0, idx, flat[idx])
                errs[wi][i] = (flat - sp).view_as(g)
                agg[i] += sp.view_as(g)
                signs[i] += p.grad.sign()
                # QSGD
                s = 4
                nrm = p.grad.norm()
                lvl = p.grad.abs() / nrm * s
                low = lvl.floor()
                q = low + lib.bernoulli(lvl - low)
                qs[i] += nrm * p.grad.sign() * q / s
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                vote = signs[i].sign()
                p.sub_(0.01 * vote + 0.05 * agg[i] / 3)
                rec(f"s{step}.vote{i}", vote)
                rec(f"s{step}.agg{i}", agg[i])
                rec(f"s{step}.q{i}", qs[i])
    rec.params("final", model)
    t = lib.randn(20, dtype=dt)
    v, i = t.topk(5, largest=False, sorted=True)
    rec("tk_small", v)
    rec("tk_idx", i)
    rec("bern_p", lib.bernoulli(lib.full((6,), 0.3, dtype=dt)))
    rec("bern_", lib.empty(6, dtype=dt).bernoulli_(0.7))
    rec("bern_t", lib.empty(6, dtype=dt).bernoulli_(lib.linspace(0, 1, 6, dtype=dt)))
    rec("sign0", lib.tensor([0.0, -0.0, 1.5, -2.0], dtype=dt).sign())
    rec("sgnbit", lib.signbit(lib.tensor([0.0, -0.0, 1.5, -2.0], dtype=dt)))


def _mlp(lib, dt):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 6), nn.LayerNorm(6), nn.GELU(), nn.Linear(6, 3)).to(dt)


def p_task_arith(lib, dt, rec):
    lib.manual_seed(10)
    base = _mlp(lib, dt)
    pre = copy.deepcopy(base.state_dict())
    fts = []
    for _ in range(3):
        m = copy.deepcopy(base)
        with lib.no_grad():
            for p in m.parameters():
                p.add_(lib.randn_like(p) * 0.1)
        fts.append(m.state_dict())
    tvs = [{k: ft[k] - pre[k] for k in pre} for ft in fts]
    merged = {k: pre[k] + 0.5 * sum(tv[k] for tv in tvs) for k in pre}
    neg = {k: pre[k] - tvs[0][k] for k in pre}
    x = lib.randn(5, 4, dtype=dt)
    out = lib.func.functional_call(base, merged, (x,))
    rec("merged_out", out)
    rec("neg_out", lib.func.functional_call(base, neg, x))
    rec("base_out", base(x))
    from_sd = copy.deepcopy(base)
    from_sd.load_state_dict(merged)
    rec("load_out", from_sd(x))
    # soups: uniform and greedy
    soup = {k: lib.stack([ft[k] for ft in fts]).mean(0) for k in pre}
    rec("soup_out", lib.func.functional_call(base, soup, (x,)))
    # stateless (deprecated) API
    rec("stateless", lib.nn.utils.stateless.functional_call(base, soup, (x,)))
    # strict / tie_weights / missing keys
    part = {k: v for k, v in soup.items() if k.startswith("0.")}
    rec("partial", lib.func.functional_call(base, part, (x,)))
    rec.err("strict", lambda: lib.func.functional_call(base, part, (x,), strict=True))
    rec.err(
        "extra",
        lambda: lib.func.functional_call(base, {**soup, "zz": lib.ones(1)}, (x,), strict=True),
    )
    # vector round trip
    vec = lib.nn.utils.parameters_to_vector(base.parameters())
    rec("vec", vec)
    rec("vec.shape", list(vec.shape))
    lib.nn.utils.vector_to_parameters(vec * 2, from_sd.parameters())
    rec.params("v2p", from_sd)
    rec.err(
        "v2p_bad", lambda: lib.nn.utils.vector_to_parameters(vec[:-1] * 1, from_sd.parameters())
    )
    rec.err("v2p_notensor", lambda: lib.nn.utils.vector_to_parameters([1.0], from_sd.parameters()))
    # state dict arithmetics keep grad?
    sd = base.state_dict()
    rec("sd_rg", str([v.requires_grad for v in sd.values()]))
    sd2 = base.state_dict(keep_vars=True)
    rec("sd2_rg", str([v.requires_grad for v in sd2.values()]))
    rec("sd_type", type(sd).__name__)
    rec("meta", str(getattr(sd, "_metadata", None)))


def p_ties(lib, dt, rec):
    lib.manual_seed(11)
    n, d = 3, 40
    tvs = lib.randn(n, d, dtype=dt)
    k = 0.3
    # trim: keep top-k magnitude per task
    kk = int(d * (1 - k))
    thr = tvs.abs().kthvalue(kk, dim=1, keepdim=True).values
    rec("thr", thr)
    mask = tvs.abs() >= thr
    rec("mask", mask)
    thr_q = tvs.abs().quantile(1 - k, dim=1, keepdim=True)
    rec("thr_q", thr_q)
    for interp in ["linear", "lower", "higher", "midpoint", "nearest"]:
        rec(
            "q_" + interp,
            lib.quantile(
                tvs.abs(), lib.tensor([0.1, 0.5, 0.7], dtype=dt), dim=1, interpolation=interp
            ),
        )
    rec(
        "nanq",
        lib.nanquantile(lib.where(mask, tvs, lib.tensor(float("nan"), dtype=dt)), 0.5, dim=1),
    )
    topv, topi = tvs.abs().topk(int(d * k), dim=1)
    m2 = lib.zeros_like(tvs, dtype=lib.bool).scatter_(1, topi, True)
    rec("m2", m2)
    trimmed = tvs * mask
    # elect
    sgn = lib.sign(trimmed.sum(0))
    rec("sgn", sgn)
    sgn_cnt = lib.sign((trimmed.sign()).sum(0))
    rec("sgn_cnt", sgn_cnt)
    agree = (trimmed.sign() == sgn) & mask
    merged = (trimmed * agree).sum(0) / agree.sum(0).clamp(min=1)
    rec("merged", merged)
    rec("agree_cnt", agree.sum(0))
    rec("agree_dtype", str(agree.sum(0).dtype))
    # kthvalue variants
    v, i = lib.kthvalue(tvs[0], 3)
    rec("kv", v)
    rec("ki", i)
    rec.err("kth_big", lambda: lib.kthvalue(tvs[0], 41))
    rec.err("kth_zero", lambda: lib.kthvalue(tvs[0], 0))
    rec("kth_0d", lib.kthvalue(lib.tensor(3.0, dtype=dt), 1).values)
    # DARE
    p = 0.7
    keep = lib.bernoulli(lib.full_like(tvs, 1 - p))
    dare = tvs * keep / (1 - p)
    rec("dare", dare)
    drop = lib.nn.functional.dropout(tvs, p=p, training=True)
    rec("dare_dropout", drop)
    # quantile errors
    rec.err("q_big", lambda: lib.quantile(tvs.float(), 1.5))
    big = lib.randn(20_000_000 // 1000, dtype=dt)
    rec("q_large", lib.quantile(big, 0.9))


def p_slerp_fisher(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(12)
    a = _mlp(lib, dt)
    b = _mlp(lib, dt)
    va = lib.nn.utils.parameters_to_vector(a.parameters())
    vb = lib.nn.utils.parameters_to_vector(b.parameters())
    cos = F.cosine_similarity(va, vb, dim=0)
    rec("cos", cos)
    omega = lib.acos(cos.clamp(-1 + 1e-7, 1 - 1e-7))
    so = lib.sin(omega)
    for t in (0.0, 0.3, 1.0):
        v = lib.sin((1 - t) * omega) / so * va + lib.sin(t * omega) / so * vb
        rec(f"slerp{t}", v)
    rec("acos_edge", lib.acos(lib.tensor([1.0, -1.0, 1.0000001, 0.5], dtype=dt)))
    cs = lib.tensor([0.999], dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(lib.acos(cs.clamp(-1, 1)).sum(), cs)
    rec("acos_g", g)
    cs1 = lib.tensor([1.0], dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(lib.acos(cs1.clamp(-1, 1)).sum(), cs1)
    rec("acos_g1", g)
    # normalized lerp on unit vectors
    ua, ub = F.normalize(va, dim=0), F.normalize(vb, dim=0)
    rec("lerp", lib.lerp(ua, ub, 0.25))
    rec("lerp_t", lib.lerp(ua, ub, lib.full_like(ua, 0.75)))
    # Fisher-weighted averaging
    x = lib.randn(16, 4, dtype=dt)
    fishers = []
    for m in (a, b):
        fi = [lib.zeros_like(p) for p in m.parameters()]
        for i in range(4):
            m.zero_grad()
            logp = F.log_softmax(m(x[i * 4 : (i + 1) * 4]), -1)
            yy = lib.multinomial(logp.exp().detach(), 1).squeeze(1)
            rec(f"yy{i}", yy)
            F.nll_loss(logp, yy).backward()
            for f, p in zip(fi, m.parameters(), strict=True):
                f += p.grad.detach() ** 2 / 4
        fishers.append(fi)
    merged = [
        (fa * pa + fb * pb) / (fa + fb + 1e-8)
        for fa, fb, pa, pb in zip(
            fishers[0], fishers[1], a.parameters(), b.parameters(), strict=True
        )
    ]
    for i, m_ in enumerate(merged):
        rec(f"fw{i}", m_)
    rec("fw_rg", str([m_.requires_grad for m_ in merged]))


def p_ensemble_vmap(lib, dt, rec):
    nn, fn = lib.nn, lib.func
    lib.manual_seed(13)
    models = [
        nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2)).to(dt)
        for _ in range(3)
    ]
    for m in models:
        m.eval()
    params, bufs = fn.stack_module_state(models)
    rec("pkeys", ",".join(params))
    rec("bkeys", ",".join(bufs))
    rec("nbt", bufs["1.num_batches_tracked"])
    rec("rg", str([v.requires_grad for v in params.values()]))
    rec("leaf", str([v.is_leaf for v in params.values()]))
    base = copy.deepcopy(models[0])
    x = lib.randn(4, 3, dtype=dt)
    out = fn.vmap(lambda p, b, xx: fn.functional_call(base, (p, b), (xx,)), in_dims=(0, 0, None))(
        params, bufs, x
    )
    rec("out", out)
    rec("ref", lib.stack([m(x) for m in models]))
    # average into one model
    avg = {k: v.mean(0) for k, v in params.items()}
    one = copy.deepcopy(models[0])
    res = one.load_state_dict({**avg, **{k: v[0] for k, v in bufs.items()}})
    rec("res", repr(res))
    rec("one", one(x))
    # grads wrt stacked params
    loss = out.pow(2).sum()
    loss.backward()
    for k, v in params.items():
        rec("g." + k, v.grad)
    rec.err("empty", lambda: fn.stack_module_state([]))
    rec.err("mixed", lambda: fn.stack_module_state([models[0], nn.Linear(3, 5).to(dt)]))
    models[1].train()
    rec.err("mode", lambda: fn.stack_module_state(models))


class _MT:
    def __init__(self, lib, dt):
        nn = lib.nn
        self.shared = nn.Sequential(nn.Linear(4, 8), nn.Tanh()).to(dt)
        self.heads = nn.ModuleList([nn.Linear(8, 1).to(dt) for _ in range(3)])


def p_pcgrad(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(20)
    mt = _MT(lib, dt)
    sp = list(mt.shared.parameters())
    opt = lib.optim.Adam(list(sp) + list(mt.heads.parameters()), lr=0.01)
    x = lib.randn(10, 4, dtype=dt)
    ys = [lib.randn(10, 1, dtype=dt) for _ in range(3)]
    for step in range(3):
        opt.zero_grad()
        h = mt.shared(x)
        losses = [F.mse_loss(hd(h), y) for hd, y in zip(mt.heads, ys, strict=True)]
        grads = []
        for L in losses:
            gs = lib.autograd.grad(L, sp, retain_graph=True)
            grads.append(lib.cat([g.flatten() for g in gs]))
        G = lib.stack(grads)
        pc = G.clone()
        for i in range(3):
            order = lib.randperm(3).tolist()
            rec(f"s{step}.order{i}", order)
            for j in order:
                if j == i:
                    continue
                dot = lib.dot(pc[i], G[j])
                if dot < 0:
                    pc[i] = pc[i] - dot / (G[j].norm() ** 2) * G[j]
        rec(f"s{step}.pc", pc)
        merged = pc.sum(0)
        sum(losses).backward()
        off = 0
        for p in sp:
            n = p.numel()
            p.grad = merged[off : off + n].view_as(p).clone()
            off += n
        opt.step()
        rec(f"s{step}.losses", lib.stack(losses))
    rec.params("shared", mt.shared)
    rec("cos", lib.nn.functional.cosine_similarity(G[0:1], G[1:2]))
    rec("cs_mat", lib.nn.functional.cosine_similarity(G.unsqueeze(1), G.unsqueeze(0), dim=-1))


def p_gradnorm(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(21)
    mt = _MT(lib, dt)
    W = mt.shared[0].weight
    w = lib.ones(3, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD(list(mt.shared.parameters()) + list(mt.heads.parameters()), lr=0.05)
    opt_w = lib.optim.Adam([w], lr=0.025)
    x = lib.randn(12, 4, dtype=dt)
    ys = [lib.randn(12, 1, dtype=dt) * (i + 1) for i in range(3)]
    alpha = 1.5
    L0 = None
    for step in range(4):
        h = mt.shared(x)
        L = lib.stack([F.mse_loss(hd(h), y) for hd, y in zip(mt.heads, ys, strict=True)])
        if L0 is None:
            L0 = L.detach()
        wl = (w * L).sum()
        opt.zero_grad()
        wl.backward(retain_graph=True)
        w.grad = None
        norms = lib.stack(
            [
                lib.autograd.grad(w[i] * L[i], W, retain_graph=True, create_graph=True)[0].norm()
                for i in range(3)
            ]
        )
        rec(f"s{step}.norms", norms)
        ratio = L.detach() / L0
        r = ratio / ratio.mean()
        target = (norms.mean() * r**alpha).detach()
        gl = F.l1_loss(norms, target, reduction="sum")
        rec(f"s{step}.gl", gl)
        w.grad = lib.autograd.grad(gl, w)[0]
        rec(f"s{step}.wgrad", w.grad)
        opt.step()
        opt_w.step()
        with lib.no_grad():
            w.data = w.data / w.data.sum() * 3
        rec(f"s{step}.w", w)
    rec.params("end", mt.shared)


def p_mgda_uw(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(22)
    mt = _MT(lib, dt)
    sp = list(mt.shared.parameters())
    x = lib.randn(10, 4, dtype=dt)
    ys = [lib.randn(10, 1, dtype=dt) for _ in range(3)]
    h = mt.shared(x)
    l1, l2 = [F.mse_loss(hd(h), y) for hd, y in zip(mt.heads[:2], ys, strict=False)]
    g1 = lib.cat([g.flatten() for g in lib.autograd.grad(l1, sp, retain_graph=True)])
    g2 = lib.cat([g.flatten() for g in lib.autograd.grad(l2, sp, retain_graph=True)])
    a = ((g2 - g1) @ g2) / ((g1 - g2).norm() ** 2)
    a = a.clamp(0, 1)
    rec("alpha", a)
    d = a * g1 + (1 - a) * g2
    rec("d", d)
    # uncertainty weighting
    log_vars = lib.nn.Parameter(lib.zeros(3, dtype=dt))
    opt = lib.optim.Adam(sp + list(mt.heads.parameters()) + [log_vars], lr=0.02)
    for step in range(3):
        opt.zero_grad()
        h = mt.shared(x)
        L = lib.stack([F.mse_loss(hd(h), y) for hd, y in zip(mt.heads, ys, strict=True)])
        tot = (lib.exp(-log_vars) * L + log_vars).sum()
        tot.backward()
        opt.step()
        rec(f"uw{step}", tot)
        rec(f"lv{step}", log_vars)
    # CAGrad-lite
    gs = []
    h = mt.shared(x)
    for hd, y in zip(mt.heads, ys, strict=True):
        L = F.mse_loss(hd(h), y)
        gs.append(lib.cat([g.flatten() for g in lib.autograd.grad(L, sp, retain_graph=True)]))
    G = lib.stack(gs)
    g0 = G.mean(0)
    GG = G @ G.T
    rec("GG", GG)
    ww = lib.zeros(3, dtype=dt, requires_grad=True)
    wopt = lib.optim.SGD([ww], lr=1.0, momentum=0.5)
    c = 0.5 * g0.norm()
    for _ in range(10):
        wopt.zero_grad()
        wsm = lib.softmax(ww, 0)
        gw = wsm @ G
        obj = gw @ g0 + c * gw.norm()
        obj.backward()
        wopt.step()
    rec("ww", ww)
    gw = lib.softmax(ww, 0) @ G
    final = g0 + c / gw.norm() * gw
    rec("cagrad", final.detach())
    # gradient vaccine style: cosine + projection in-place on a leaf copy
    rec("proj", (G[0] - (G[0] @ G[1]) / (G[1] @ G[1]) * G[1]))


def p_kd(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(23)
    teacher = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 5)).to(dt)
    student = nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 5)).to(dt)
    teacher.eval()
    opt = lib.optim.AdamW(student.parameters(), lr=0.01)
    x = lib.randn(8, 6, dtype=dt)
    y = lib.randint(0, 5, (8,))
    T = 3.0
    for step in range(3):
        with lib.no_grad():
            tl = teacher(x)
        sl = student(x)
        kd = (
            F.kl_div(F.log_softmax(sl / T, -1), F.softmax(tl / T, -1), reduction="batchmean")
            * T
            * T
        )
        kd2 = (
            F.kl_div(
                F.log_softmax(sl / T, -1),
                F.log_softmax(tl / T, -1),
                reduction="batchmean",
                log_target=True,
            )
            * T
            * T
        )
        ce = F.cross_entropy(sl, y, label_smoothing=0.1)
        loss = 0.7 * kd + 0.3 * ce
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"s{step}.kd", kd)
        rec(f"s{step}.kd2", kd2)
        rec(f"s{step}.ce", ce)
    rec.params("student", student, grads=True)
    p = F.log_softmax(student(x), -1)
    q = F.softmax(teacher(x), -1)
    for red in ["none", "sum", "mean", "batchmean"]:
        rec("kl_" + red, F.kl_div(p, q, reduction=red))
    rec.warns("kl_mean_warn", lambda: F.kl_div(p, q, reduction="mean"))
    rec("kl_mod", nn.KLDivLoss(reduction="batchmean", log_target=True)(p, q.log()))
    rec("kl_zero_t", F.kl_div(p, lib.zeros_like(q), reduction="sum"))
    pp = p.detach().requires_grad_()
    qq = q.detach().clone()
    qq[0, 0] = 0.0
    qq.requires_grad_()
    kl = F.kl_div(pp, qq, reduction="sum")
    gp, gq = lib.autograd.grad(kl, (pp, qq))
    rec("kl_gp", gp)
    rec("kl_gq", gq)
    rec("xlogy", lib.xlogy(qq.detach(), qq.detach()))
    rec("ce_soft", F.cross_entropy(student(x) / T, q))
    rec("ce_soft_ls", F.cross_entropy(student(x), q, label_smoothing=0.2))
    rec.err("ce_soft_bad", lambda: F.cross_entropy(student(x), q[:, :3]))


def p_feat_distill_ewc(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(24)
    teacher = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    student = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    feats = {}
    teacher[1].register_forward_hook(lambda m, i, o: feats.__setitem__("t", o))
    student[1].register_forward_hook(lambda m, i, o: feats.__setitem__("s", o))
    x = lib.randn(6, 5, dtype=dt)
    with lib.no_grad():
        teacher(x)
    student(x)
    fl = F.mse_loss(feats["s"], feats["t"])
    fl.backward()
    rec("fl", fl)
    rec.params("fd", student, grads=True)
    rec("t_rg", str(feats["t"].requires_grad))

    class EWC(nn.Module):
        def __init__(self, model, data):
            super().__init__()
            self.model = model
            for n, p in model.named_parameters():
                self.register_buffer(n.replace(".", "_") + "_mean", p.detach().clone())
                self.register_buffer(n.replace(".", "_") + "_fisher", lib.zeros_like(p))
            for xb in data:
                model.zero_grad()
                lp = F.log_softmax(model(xb), -1)
                yb = lp.argmax(-1)
                F.nll_loss(lp, yb).backward()
                for n, p in model.named_parameters():
                    getattr(self, n.replace(".", "_") + "_fisher").add_(p.grad**2 / len(data))

        def penalty(self):
            tot = 0
            for n, p in self.model.named_parameters():
                k = n.replace(".", "_")
                tot = (
                    tot
                    + (getattr(self, k + "_fisher") * (p - getattr(self, k + "_mean")) ** 2).sum()
                )
            return tot

    data = [lib.randn(4, 5, dtype=dt) for _ in range(3)]
    ewc = EWC(student, data)
    sd = ewc.state_dict()
    rec("ewc_keys", ",".join(sd))
    rec("ewc_buf_keys", ",".join(n for n, _ in ewc.named_buffers()))
    opt = lib.optim.SGD(student.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        xb = lib.randn(4, 5, dtype=dt)
        loss = F.cross_entropy(student(xb), lib.randint(0, 3, (4,))) + 100 * ewc.penalty()
        loss.backward()
        opt.step()
        rec(f"ewc{step}", loss)
        rec(f"pen{step}", ewc.penalty())
    # LwF: old head outputs as soft targets
    old = copy.deepcopy(student)
    new_head = nn.Linear(8, 2).to(dt)
    xb = lib.randn(4, 5, dtype=dt)
    with lib.no_grad():
        old_out = old(xb)
    h = student[1](student[0](xb))
    lwf = F.kl_div(
        F.log_softmax(student[2](h) / 2, 1), F.softmax(old_out / 2, 1), reduction="batchmean"
    )
    ce = F.cross_entropy(new_head(h), lib.randint(0, 2, (4,)))
    (lwf + ce).backward()
    rec("lwf", lwf)
    rec.params("lwf", student, grads=True)
    # buffers persistent=False
    m = nn.Linear(2, 2)
    m.register_buffer("tmp", lib.ones(2), persistent=False)
    m.register_buffer("none_buf", None)
    rec("np_keys", ",".join(m.state_dict()))
    rec("np_bufs", ",".join(n for n, _ in m.named_buffers()))
    rec.err("buf_bad", lambda: m.register_buffer("weight", lib.ones(2)))
    rec.err("buf_dot", lambda: m.register_buffer("a.b", lib.ones(2)))
    rec.err("buf_type", lambda: m.register_buffer("c", [1.0]))


def p_replay_si(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(25)
    cap = 5
    buf_x = lib.zeros(cap, 3, dtype=dt)
    buf_y = lib.zeros(cap, dtype=lib.long)
    seen = 0
    stream = lib.randn(20, 3, dtype=dt)
    labels = lib.randint(0, 4, (20,))
    for i in range(20):
        if seen < cap:
            buf_x[seen] = stream[i]
            buf_y[seen] = labels[i]
        else:
            j = lib.randint(0, seen + 1, (1,)).item()
            if j < cap:
                buf_x[j] = stream[i]
                buf_y[j] = labels[i]
        seen += 1
    rec("buf_x", buf_x)
    rec("buf_y", buf_y)
    idx = lib.randint(0, cap, (3,))
    rec("sample", buf_x[idx])
    idx2 = lib.multinomial(lib.ones(cap), 3, replacement=False)
    rec("mn", idx2)
    # SI / MAS
    model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 4)).to(dt)
    W = {n: lib.zeros_like(p) for n, p in model.named_parameters()}
    prev = {n: p.detach().clone() for n, p in model.named_parameters()}
    start = copy.deepcopy(prev)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    for _ in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(buf_x), buf_y)
        loss.backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters()}
        opt.step()
        for n, p in model.named_parameters():
            W[n] -= grads[n] * (p.detach() - prev[n])
            prev[n] = p.detach().clone()
    omega = {n: W[n] / ((prev[n] - start[n]) ** 2 + 1e-3) for n in W}
    for n, o in omega.items():
        rec("si." + n, o)
    # MAS
    mas = {n: lib.zeros_like(p) for n, p in model.named_parameters()}
    for xb in buf_x.split(2):
        model.zero_grad()
        model(xb).norm(2, dim=1).pow(2).mean().backward()
        for n, p in model.named_parameters():
            mas[n] += p.grad.abs() / 3
    for n, o in mas.items():
        rec("mas." + n, o)
    rec("split_sizes", [t.shape[0] for t in buf_x.split(2)])
    rec("chunk_sizes", [t.shape[0] for t in buf_x.chunk(3)])


def p_lottery(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(26)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    init_sd = copy.deepcopy(model.state_dict())
    x = lib.randn(10, 6, dtype=dt)
    y = lib.randint(0, 3, (10,))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    # manual global magnitude mask
    ws = [m.weight for m in (model[0], model[2])]
    allw = lib.cat([w.detach().abs().flatten() for w in ws])
    k = int(0.5 * allw.numel())
    thr = allw.kthvalue(k).values
    rec("thr", thr)
    masks = [(w.detach().abs() > thr).to(dt) for w in ws]
    rec("kept", lib.stack([m.sum() for m in masks]))
    # rewind
    trained_sd = copy.deepcopy(model.state_dict())
    model.load_state_dict(init_sd)
    with lib.no_grad():
        for w, m in zip(ws, masks, strict=True):
            w.mul_(m)
    rec.params("rewound", model)
    # prune API (on the trained weights: the rewound ones tie at zero, and which of equal
    # magnitudes topk picks is unspecified)
    model.load_state_dict(trained_sd)
    params = [(model[0], "weight"), (model[2], "weight")]
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.3)
    rec("keys", ",".join(model.state_dict()))
    rec("mask0", model[0].weight_mask)
    rec("mask2", model[2].weight_mask)
    rec("sparsity", lib.stack([(m.weight == 0).float().mean() for m in (model[0], model[2])]))
    rec("is_pruned", str(prune.is_pruned(model)))
    rec("params", ",".join(n for n, _ in model.named_parameters()))
    rec("buffers", ",".join(n for n, _ in model.named_buffers()))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    rec.params("pr", model, grads=True)
    opt.step()
    rec("w_after", model[0].weight)
    # iterative
    prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=2)
    rec("mask0b", model[0].weight_mask)
    rec("hooks", str([type(h).__name__ for h in model[0]._forward_pre_hooks.values()]))
    sd = model.state_dict()
    fresh = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    rec.err("load_pruned", lambda: fresh.load_state_dict(sd))
    prune.remove(model[0], "weight")
    prune.remove(model[2], "weight")
    rec("keys2", ",".join(model.state_dict()))
    rec.params("removed", model)
    rec.err("remove_again", lambda: prune.remove(model[0], "weight"))
    prune.random_unstructured(model[0], "bias", amount=0.5)
    rec("rmask", model[0].bias_mask)
    prune.ln_structured(model[2], "weight", amount=0.34, n=2, dim=0)
    rec("lnmask", model[2].weight_mask)
    prune.l1_unstructured(
        model[2], "weight", amount=0.25, importance_scores=lib.arange(24, dtype=dt).view(3, 8)
    )
    rec("imask", model[2].weight_mask)
    rec.err("bad_amt", lambda: prune.l1_unstructured(model[2], "bias", amount=1.5))
    rec.err("bad_amt_int", lambda: prune.l1_unstructured(model[2], "bias", amount=10))
    prune.identity(model[0], "weight")
    rec("id_mask", model[0].weight_mask)
    cm = prune.custom_from_mask(nn.Linear(2, 2).to(dt), "weight", lib.tensor([[1, 0], [0, 1]]))
    rec("cfm", cm.weight_mask)


def p_sd_inplace(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(30)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)).to(dt)
    sd = m.state_dict()
    sd["0.weight"].mul_(0)
    sd["0.bias"] += 1
    sd["1.num_batches_tracked"] += 3
    rec.params("after_inplace", m)
    rec("nbt", m[1].num_batches_tracked)
    src = {k: v.clone() for k, v in sd.items()}
    src["0.weight"].fill_(2)
    for k in sd:
        sd[k].copy_(src[k])
    rec.params("after_copy", m)
    # averaged long buffer as float into load_state_dict
    avg = {k: (v * 0.5) for k, v in m.state_dict().items()}
    rec("avg_nbt", avg["1.num_batches_tracked"])
    rec("avg_nbt_dt", str(avg["1.num_batches_tracked"].dtype))
    m.load_state_dict(avg)
    rec("nbt2", m[1].num_batches_tracked)
    rec("nbt2_dt", str(m[1].num_batches_tracked.dtype))
    # int division of long buffers
    q = m.state_dict()["1.num_batches_tracked"]
    rec("div", q / 2)
    rec("fdiv", q // 2)
    rec.err("div_inplace", lambda: q.clone().div_(2))
    rec("true_div_inplace_mode", q.clone().div_(2, rounding_mode="floor"))
    # assign=True
    m2 = nn.Linear(3, 4).to(dt)
    newsd = {"weight": lib.ones(4, 3, dtype=dt), "bias": lib.zeros(4, dtype=dt)}
    m2.load_state_dict(newsd, assign=True)
    rec("assign_same", str(m2.weight.data_ptr() == newsd["weight"].data_ptr()))
    rec("assign_type", type(m2.weight).__name__)
    rec("assign_rg", str(m2.weight.requires_grad))
    m3 = nn.Linear(3, 4).to(dt)
    m3.load_state_dict(newsd)
    rec("copy_same", str(m3.weight.data_ptr() == newsd["weight"].data_ptr()))
    # dtype mismatch on load
    m4 = nn.Linear(3, 4).to(dt)
    m4.load_state_dict(
        {"weight": lib.ones(4, 3, dtype=lib.float16), "bias": lib.zeros(4, dtype=lib.int64)}
    )
    rec("m4w", m4.weight)
    rec("m4dt", str(m4.weight.dtype) + str(m4.bias.dtype))
    m4.load_state_dict(
        {"weight": lib.ones(4, 3, dtype=lib.float16), "bias": lib.zeros(4)}, assign=True
    )
    rec("m4dt_assign", str(m4.weight.dtype) + str(m4.bias.dtype))
    # save/load round trip
    buf = io.BytesIO()
    lib.save(m.state_dict(), buf)
    buf.seek(0)
    loaded = lib.load(buf, weights_only=True)
    rec("loaded_keys", ",".join(loaded))
    for k, v in loaded.items():
        rec("ld." + k, v)
    rec("ld_type", type(loaded).__name__)
    # strict=False results
    res = m.load_state_dict(
        {"0.weight": lib.zeros(4, 3, dtype=dt), "extra": lib.ones(1)}, strict=False
    )
    rec("res", repr(res))
    rec("res_fields", str((res.missing_keys, res.unexpected_keys)))
    rec.err(
        "bad_size", lambda: m.load_state_dict({**m.state_dict(), "2.bias": lib.zeros(3, dtype=dt)})
    )
    rec.err("not_tensor", lambda: m.load_state_dict({**m.state_dict(), "2.bias": [0.0, 0.0]}))
    rec.err("not_mapping", lambda: m.load_state_dict([1, 2]))


def p_opt_avg(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(31)
    glob = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2)).to(dt)
    sopt = lib.optim.Adam(glob.parameters(), lr=0.1, betas=(0.9, 0.99))  # FedAdam server
    copt = lib.optim.Adam(glob.parameters(), lr=0.01)
    data = [(lib.randn(6, 4, dtype=dt), lib.randn(6, 2, dtype=dt)) for _ in range(2)]
    for rnd in range(2):
        deltas, osds = [], []
        for x, y in data:
            m = copy.deepcopy(glob)
            o = lib.optim.Adam(m.parameters(), lr=0.01)
            o.load_state_dict(copt.state_dict())
            for _ in range(2):
                o.zero_grad()
                F.mse_loss(m(x), y).backward()
                o.step()
            osds.append(o.state_dict())
            deltas.append(
                [
                    q.detach() - p.detach()
                    for p, q in zip(glob.parameters(), m.parameters(), strict=True)
                ]
            )
        # average optimizer states
        avg_sd = copy.deepcopy(osds[0])
        for pid in avg_sd["state"]:
            for key in ("exp_avg", "exp_avg_sq"):
                avg_sd["state"][pid][key] = sum(s["state"][pid][key] for s in osds) / len(osds)
        rec(f"r{rnd}.step", avg_sd["state"][0]["step"])
        rec(f"r{rnd}.step_dt", str(avg_sd["state"][0]["step"].dtype))
        copt.load_state_dict(avg_sd)
        rec(f"r{rnd}.copt", copt.state_dict()["state"][1]["exp_avg"])
        sopt.zero_grad()
        for i, p in enumerate(glob.parameters()):
            p.grad = -sum(d[i] for d in deltas) / len(deltas)
        sopt.step()
        rec.params(f"r{rnd}", glob)
    st = copt.state_dict()
    rec("pg", repr({k: v for k, v in st["param_groups"][0].items() if k != "params"}))
    rec("pids", st["param_groups"][0]["params"])
    dc = copy.deepcopy(copt)
    rec("dc_same", str(dc.param_groups[0]["params"][0] is copt.param_groups[0]["params"][0]))
    rec("dc_state_keys", str([type(k).__name__ for k in dc.state]))
    rec.err("bad_load", lambda: copt.load_state_dict({"state": {}, "param_groups": []}))
    # SGD momentum buffers averaging, None momentum_buffer before step
    o = lib.optim.SGD(glob.parameters(), lr=0.1, momentum=0.9)
    rec("sgd_sd0", repr(o.state_dict()["state"]))
    glob.zero_grad()
    F.mse_loss(glob(data[0][0]), data[0][1]).backward()
    o.step()
    rec("mb", o.state_dict()["state"][0]["momentum_buffer"])


def p_dp_noise(lib, dt, rec):
    nn, F, fn = lib.nn, lib.nn.functional, lib.func
    lib.manual_seed(32)
    model = nn.Linear(4, 3).to(dt)
    x = lib.randn(5, 4, dtype=dt)
    y = lib.randint(0, 3, (5,))
    # is_grads_batched per-sample grads of the outputs
    out = model(x)
    loss = F.cross_entropy(out, y, reduction="none")
    eye = lib.eye(5, dtype=dt)
    (g,) = lib.autograd.grad(loss, model.weight, grad_outputs=eye, is_grads_batched=True)
    rec("batched", g)
    # noise variants
    g = lib.Generator().manual_seed(7)
    rec("normal_gen", lib.normal(0.0, 0.5, size=(3, 2), generator=g, dtype=dt))
    rec("normal_t", lib.normal(lib.zeros(4, dtype=dt), lib.full((4,), 0.3, dtype=dt)))
    rec("normal_ms", lib.normal(lib.zeros(4, dtype=dt), 2.0))
    rec("normal_like", lib.randn_like(model.weight) * 0.1)
    rec(
        "laplace",
        lib.distributions.Laplace(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt)).sample(
            (4,)
        ),
    )
    rec(
        "dist_normal",
        lib.distributions.Normal(lib.tensor(0.0, dtype=dt), 1.0).sample(model.weight.shape),
    )
    w = model.weight.detach().clone()
    w.normal_(generator=g)
    rec("normal_inplace_gen", w)
    rec("exp_", lib.empty(3, dtype=dt).exponential_(2.0))
    rec("cauchy", lib.empty(3, dtype=dt).cauchy_())
    rec("lognormal", lib.empty(3, dtype=dt).log_normal_())
    rec("geometric", lib.empty(3, dtype=dt).geometric_(0.3))
    rec("rand_gen", lib.rand(3, generator=g, dtype=dt))

    # vmap with randomness
    def noisy(t):
        return t + lib.randn_like(t) * 0.1

    lib.manual_seed(0)
    rec("vm_diff", fn.vmap(noisy, randomness="different")(lib.zeros(3, 2, dtype=dt)))
    lib.manual_seed(0)
    rec("vm_same", fn.vmap(noisy, randomness="same")(lib.zeros(3, 2, dtype=dt)))
    rec.err("vm_err", lambda: fn.vmap(noisy)(lib.zeros(3, 2, dtype=dt)))
    # grad with has_aux and per-sample clipping via vmap over a dict
    params = {k: v.detach() for k, v in model.named_parameters()}

    def lf(p, xi, yi):
        o = fn.functional_call(model, p, (xi,))
        loss = F.cross_entropy(o, yi)
        return loss, o.detach()

    gs, aux = fn.vmap(fn.grad(lf, has_aux=True), in_dims=(None, 0, 0))(params, x, y)
    rec("aux", aux)
    rec("gsw", gs["weight"])
    gvl, _ = fn.grad_and_value(lambda p: lf(p, x[0], y[0]), has_aux=True)(params)
    rec("gvl", gvl["bias"])
    # clip_grad_value_ and norm types
    for p in model.parameters():
        p.grad = lib.randn_like(p)
    nn.utils.clip_grad_value_(model.parameters(), 0.2)
    rec.params("cv", model, grads=True)
    rec("inf_norm", nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type="inf"))
    rec("l1_norm", nn.utils.clip_grad_norm_(model.parameters(), 0.1, norm_type=1))
    model.weight.grad[0, 0] = float("nan")
    rec.err(
        "nonfinite",
        lambda: nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True),
    )
    rec("nan_norm", nn.utils.clip_grad_norm_(model.parameters(), 1.0))


def p_signsgd_int(lib, dt, rec):
    lib.manual_seed(33)
    grads = lib.randn(5, 12, dtype=dt)
    s = grads.sign()
    rec("s_dt", str(s.dtype))
    votes = s.to(lib.int8).sum(0)
    rec("votes", votes)
    rec("votes_dt", str(votes.dtype))
    rec("maj", lib.sign(votes))
    rec("sign_int", lib.sign(lib.tensor([-3, 0, 5])))
    rec.err("sign_bool", lambda: lib.sign(lib.tensor([True, False])))
    packed = (s > 0).to(lib.uint8)
    rec("packed", packed)
    rec("pk_sum", packed.sum(0))
    rec("pk_sum_dt", str(packed.sum(0).dtype))
    bits = (packed[0, :8] * (2 ** lib.arange(8, dtype=lib.uint8))).sum()
    rec("bits", bits)
    rec("bits_dt", str(bits.dtype))
    # QSGD levels via rand < frac
    nrm = grads.norm(dim=1, keepdim=True)
    lvl = grads.abs() / nrm * 8
    fl = lvl.floor()
    q = fl + (lib.rand_like(lvl) < (lvl - fl)).to(dt)
    rec("q", q)
    rec("q_int", q.to(lib.int8))
    rec("deq", nrm * grads.sign() * q / 8)
    # top-k via threshold with kthvalue on flattened abs
    flat = grads.flatten().abs()
    t = flat.kthvalue(flat.numel() - 6 + 1).values
    rec("thr", t)
    rec("nnz", (flat >= t).sum())
    sp = grads.flatten() * (flat >= t)
    rec("nz", sp.nonzero().squeeze(1))
    rec("nz_tuple", lib.nonzero(sp, as_tuple=True)[0])
    rec("to_sparse_vals", sp.to_sparse().values() if hasattr(sp, "to_sparse") else sp[sp != 0])
    idx = lib.argsort(flat, descending=True)[:6]
    rec("argsort_idx", idx)
    # scatter_add aggregation from workers with index lists
    agg = lib.zeros(60, dtype=dt)
    for w in range(5):
        v, i = grads[w].abs().topk(3)
        agg.index_add_(0, i + 12 * w, grads[w][i])
    rec("agg", agg)
    agg2 = lib.zeros(12, dtype=dt).scatter_add(0, lib.tensor([0, 0, 3, 5]), grads[0, :4])
    rec("agg2", agg2)
    rec(
        "scatter_red",
        lib.zeros(12, dtype=dt).scatter_reduce(
            0, lib.tensor([0, 0, 3, 5]), grads[0, :4], reduce="amax", include_self=False
        ),
    )


def p_func_edges(lib, dt, rec):
    nn, fn = lib.nn, lib.func
    lib.manual_seed(40)

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(6, 4)
            self.out = nn.Linear(4, 6, bias=False)
            self.out.weight = self.emb.weight

        def forward(self, i):
            return self.out(self.emb(i))

    m = Tied().to(dt)
    i = lib.tensor([0, 3, 5])
    rec("sd_keys", ",".join(m.state_dict()))
    rec("np", ",".join(n for n, _ in m.named_parameters()))
    rec("np_dup", ",".join(n for n, _ in m.named_parameters(remove_duplicate=False)))
    w2 = lib.randn(6, 4, dtype=dt)
    rec("tied_call", fn.functional_call(m, {"emb.weight": w2}, (i,)))
    rec("untied_call", fn.functional_call(m, {"emb.weight": w2}, (i,), tie_weights=False))
    rec.err(
        "tied_conflict",
        lambda: fn.functional_call(m, {"emb.weight": w2, "out.weight": w2 * 2}, (i,)),
    )
    rec("tied_same", fn.functional_call(m, {"emb.weight": w2, "out.weight": w2}, (i,)))
    # kwargs, buffers separate dicts, duplicate key error
    bn = nn.BatchNorm1d(3).to(dt)
    x = lib.randn(4, 3, dtype=dt)
    p = dict(bn.named_parameters())
    b = dict(bn.named_buffers())
    out = fn.functional_call(bn, (p, b), (x,))
    rec("bn_out", out)
    rec("bn_buf_updated", b["running_mean"])
    rec("bn_mod_rm", bn.running_mean)
    rec("bn_nbt", b["num_batches_tracked"])
    rec.err("dup_keys", lambda: fn.functional_call(bn, (p, p), (x,)))
    # vmap over batchnorm in train mode
    bn2 = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).to(dt)
    fn.replace_all_batch_norm_modules_(bn2)
    rec("rbn", str((bn2[1].running_mean, bn2[1].track_running_stats)))
    rec("rbn_out", fn.vmap(bn2)(x.unsqueeze(0).expand(2, 4, 3).contiguous()))
    # jacrev wrt params dict
    lin = nn.Linear(3, 2).to(dt)
    J = fn.jacrev(lambda pp: fn.functional_call(lin, pp, (x,)))(dict(lin.named_parameters()))
    rec("Jw", J["weight"])
    rec("Jb", J["bias"])
    H = fn.hessian(lambda pp: fn.functional_call(lin, pp, (x,)).pow(2).sum())(
        dict(lin.named_parameters())
    )
    rec("Hww", H["weight"]["weight"])
    rec("Hwb", H["weight"]["bias"])
    # autograd.grad edges
    a = lib.randn(3, dtype=dt, requires_grad=True)
    c = lib.randn(3, dtype=dt, requires_grad=True)
    rec.err("unused", lambda: lib.autograd.grad((a * 2).sum(), [a, c]))
    g = lib.autograd.grad((a * 2).sum(), [a, c], allow_unused=True)
    rec("unused_none", str(g[1]))
    g = lib.autograd.grad((a * 2).sum(), [a, c], allow_unused=True, materialize_grads=True)
    rec("mat", g[1])
    rec.err(
        "mat_no_unused",
        lambda: lib.autograd.grad(
            (a * 2).sum(), [a, c], allow_unused=False, materialize_grads=True
        ),
    )
    l2 = (a**2).sum()
    lib.autograd.grad(l2, a)
    rec.err("twice", lambda: lib.autograd.grad(l2, a))
    # vjp / jvp functional
    out, vjpf = fn.vjp(lambda t: t.sin() * 2, a)
    rec("vjp", vjpf(lib.ones_like(out))[0])
    rec("jvp", fn.jvp(lambda t: t.sin() * 2, (a,), (lib.ones_like(a),))[1])
    rec("afj", lib.autograd.functional.jacobian(lambda t: t.exp() * t.sum(), a))
    rec("afh", lib.autograd.functional.hessian(lambda t: (t.exp() * t.sum()).sum(), a))
    rec("afvhp", lib.autograd.functional.vhp(lambda t: (t**3).sum(), a, lib.ones_like(a))[1])


def p_prune_more(lib, dt, rec):
    nn = lib.nn
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(41)
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16, 3)).to(dt)
    scores = {
        (model[0], "weight"): model[0].weight.detach().abs() * lib.rand(4, 2, 3, 3, dtype=dt),
        (model[3], "weight"): model[3].weight.detach().abs(),
    }
    prune.global_unstructured(
        list(scores), pruning_method=prune.L1Unstructured, importance_scores=scores, amount=0.4
    )
    rec("m0", model[0].weight_mask)
    rec("m3", model[3].weight_mask)
    rec.err("deepcopy_pruned", lambda: copy.deepcopy(model))
    x = lib.randn(2, 2, 4, 4, dtype=dt)
    buf = io.BytesIO()
    lib.save(model.state_dict(), buf)
    buf.seek(0)
    sd = lib.load(buf)
    m2 = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(16, 3)).to(dt)
    prune.identity(m2[0], "weight")
    prune.identity(m2[3], "weight")
    m2.load_state_dict(sd)
    rec("m2_out", m2(x))
    prune.ln_structured(model[0], "weight", amount=1, n=1, dim=1)
    rec("m0b", model[0].weight_mask)
    hooks = list(model[0]._forward_pre_hooks.values())
    rec("container", type(hooks[0]).__name__)
    rec("hist", str([type(h).__name__ for h in hooks[0]._pruning_methods]))
    prune.random_structured(model[3], "weight", amount=0.5, dim=0)
    rec("rs", model[3].weight_mask)
    prune.remove(model[0], "weight")
    rec("rem_w", model[0].weight)
    rec("rem_is_param", type(model[0].weight).__name__)
    rec.err("bad_dim", lambda: prune.ln_structured(model[3], "bias", amount=0.5, n=2, dim=1))
    rec.err("bad_name", lambda: prune.l1_unstructured(model[3], "nope", amount=0.5))
    rec.err(
        "global_bad",
        lambda: prune.global_unstructured(
            [(model[3], "weight")], pruning_method=prune.LnStructured, amount=0.2
        ),
    )
    # pruning amount rounding
    lin = nn.Linear(5, 3).to(dt)
    prune.l1_unstructured(lin, "weight", amount=0.1)
    rec("round", lin.weight_mask.sum())
    prune.l1_unstructured(lin, "bias", amount=0.0)
    rec("zero", lin.bias_mask)
    rec("mask_dt", str(lin.weight_mask.dtype))
    # prune then optimizer references
    opt = lib.optim.SGD(lin.parameters(), lr=0.1)
    rec("opt_n", len(opt.param_groups[0]["params"]))
    # unpruned model prune.is_pruned
    rec("ispr", str(prune.is_pruned(nn.Linear(2, 2))))
    # torch.nn.utils.parametrize based masks
    P = importlib.import_module(lib.__name__ + ".nn.utils.parametrize")

    class Mask(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.register_buffer("m", m)

        def forward(self, w):
            return w * self.m

    l2 = nn.Linear(3, 2).to(dt)
    P.register_parametrization(l2, "weight", Mask(lib.tensor([[1.0, 0, 1], [0, 1, 1]], dtype=dt)))
    rec("pz_keys", ",".join(l2.state_dict()))
    rec("pz_w", l2.weight)
    P.remove_parametrizations(l2, "weight", leave_parametrized=True)
    rec("pz_keys2", ",".join(l2.state_dict()))


def _cnn(lib, dt, w=4):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(2, w, 3, padding=1),
        nn.BatchNorm2d(w),
        nn.ReLU(),
        nn.Conv2d(w, w, 3, stride=2),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(w, 3),
    ).to(dt)


def p_conv_persample(lib, dt, rec):
    nn, F, fn = lib.nn, lib.nn.functional, lib.func
    lib.manual_seed(50)
    model = _cnn(lib, dt)
    model.eval()
    x = lib.randn(3, 2, 6, 6, dtype=dt)
    y = lib.randint(0, 3, (3,))
    params = {k: v.detach() for k, v in model.named_parameters()}
    bufs = dict(model.named_buffers())

    def lf(p, xi, yi):
        return F.cross_entropy(fn.functional_call(model, (p, bufs), (xi[None],)), yi[None])

    g = fn.vmap(fn.grad(lf), in_dims=(None, 0, 0))(params, x, y)
    for k in ("0.weight", "3.weight", "7.weight"):
        rec("g." + k, g[k])
    # Opacus-style: unfold activations and einsum with backprops
    conv = model[0]
    acts, backs = [], []
    conv.register_forward_hook(lambda m, i, o: acts.append(i[0].detach()))
    conv.register_full_backward_hook(lambda m, gi, go: backs.append(go[0].detach()))
    F.cross_entropy(model(x), y, reduction="sum").backward()
    A = F.unfold(acts[0], 3, padding=1)
    B = backs[0].flatten(2)
    gw = lib.einsum("noq,npq->nop", B, A).view(3, *conv.weight.shape)
    rec("opacus_gw", gw)
    rec("opacus_diff", (gw - g["0.weight"]).abs().max() < 1e-4)
    rec("sum_check", (gw.sum(0) - conv.weight.grad).abs().max() < 1e-4)
    # attention transfer
    t = _cnn(lib, dt, 4)
    t.eval()
    feats = {}
    t[2].register_forward_hook(lambda m, i, o: feats.__setitem__("t", o))
    model[2].register_forward_hook(lambda m, i, o: feats.__setitem__("s", o))
    model.train()
    with lib.no_grad():
        t(x)
    out = model(x)

    def at(f):
        return F.normalize(f.pow(2).mean(1).view(f.size(0), -1))

    atl = (at(feats["s"]) - at(feats["t"])).pow(2).mean()
    rec("at", atl)
    # FitNets regressor
    reg = nn.Conv2d(4, 4, 1).to(dt)
    fit = F.mse_loss(reg(feats["s"]), feats["t"])
    rec("fit", fit)
    # RKD distance
    se, te = out, t(x)
    sd_ = lib.cdist(se, se)
    td_ = lib.pdist(te)
    rec("cdist", sd_)
    rec("pdist", td_)
    sdn = sd_ / sd_[sd_ > 0].mean()
    rec("sdn", sdn)
    rkd = F.smooth_l1_loss(sdn[lib.triu_indices(3, 3, 1).unbind()], td_ / td_.mean())
    rec("rkd", rkd)
    model.zero_grad()
    (atl + fit + rkd).backward()
    rec.params("g", model, grads=True)
    rec("bn_rm", model[1].running_mean)
    rec("bn_nbt", model[1].num_batches_tracked)


def p_ensemble_distill(lib, dt, rec):
    nn, F, fn = lib.nn, lib.nn.functional, lib.func
    lib.manual_seed(51)
    members = [nn.Sequential(nn.Linear(3, 6), nn.SiLU(), nn.Linear(6, 4)).to(dt) for _ in range(4)]
    p, b = fn.stack_module_state(members)
    base = copy.deepcopy(members[0])
    x = lib.randn(7, 3, dtype=dt)
    logits = fn.vmap(fn.functional_call, in_dims=(None, 0, None))(base, p, (x,))
    rec("logits", logits)
    probs = logits.softmax(-1).mean(0)
    rec("ens", probs)
    ent = -(probs * probs.log()).sum(-1)
    rec("ent", ent)
    mi = ent + (logits.softmax(-1) * logits.log_softmax(-1)).sum(-1).mean(0)
    rec("mi", mi)
    student = nn.Sequential(nn.Linear(3, 6), nn.SiLU(), nn.Linear(6, 4)).to(dt)
    opt = lib.optim.Adam(student.parameters(), lr=0.05)
    for s in range(3):
        opt.zero_grad()
        loss = F.kl_div(student(x).log_softmax(-1), probs.detach(), reduction="batchmean")
        loss.backward()
        opt.step()
        rec(f"l{s}", loss)

    # torch.func.grad through ensemble mean w.r.t. stacked params
    def ens_loss(p):
        lg = fn.vmap(fn.functional_call, in_dims=(None, 0, None))(base, p, (x,))
        return lg.logsumexp(-1).mean()

    g = fn.grad(ens_loss)(p)
    rec("g0w", g["0.weight"])
    # weight averaging of members (uniform soup) vs ensemble
    soup = {k: v.mean(0) for k, v in p.items()}
    rec("soup", fn.functional_call(base, soup, (x,)))
    # EMA model with torch.optim.swa_utils
    swa = importlib.import_module(lib.__name__ + ".optim.swa_utils")
    ema = swa.AveragedModel(student, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    for _ in range(3):
        with lib.no_grad():
            for q in student.parameters():
                q.add_(0.1)
        ema.update_parameters(student)
    rec.params("ema", ema)
    rec("n_avg", ema.n_averaged)
    avg = swa.AveragedModel(student)
    for _ in range(3):
        with lib.no_grad():
            for q in student.parameters():
                q.mul_(0.9)
        avg.update_parameters(student)
    rec.params("swa", avg)
    rec("sd_keys", ",".join(avg.state_dict()))


def p_kd_temps(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(52)
    s = lib.randn(6, 10, dtype=dt, requires_grad=True)
    t = lib.randn(6, 10, dtype=dt) * 3
    for T in (1.0, 4.0, 20.0):
        kd = (
            F.kl_div(F.log_softmax(s / T, dim=1), F.softmax(t / T, dim=1), reduction="batchmean")
            * T**2
        )
        (g,) = lib.autograd.grad(kd, s, create_graph=True)
        (gg,) = lib.autograd.grad(g.pow(2).sum(), s)
        rec(f"kd{T}", kd)
        rec(f"g{T}", g)
        rec(f"gg{T}", gg)
    # symmetric / JS divergence
    ps, pt = F.softmax(s, 1), F.softmax(t, 1)
    m = 0.5 * (ps + pt)
    js = 0.5 * F.kl_div(m.log(), ps, reduction="batchmean") + 0.5 * F.kl_div(
        m.log(), pt, reduction="batchmean"
    )
    rec("js", js)
    rec("js_g", lib.autograd.grad(js, s)[0])
    # soft-target CE vs KD
    ce = -(pt * F.log_softmax(s, 1)).sum(1).mean()
    rec("ce", ce)
    rec("ce_builtin", F.cross_entropy(s, pt))
    rec(
        "nll_w",
        F.nll_loss(
            F.log_softmax(s, 1),
            lib.tensor([0, 1, 2, 3, 4, 5]),
            weight=lib.linspace(0.5, 2, 10, dtype=dt),
        ),
    )
    rec("ce_w_soft", F.cross_entropy(s, pt, weight=lib.linspace(0.5, 2, 10, dtype=dt)))
    rec("ce_ignore", F.cross_entropy(s, lib.tensor([0, -100, 2, 3, -100, 5])))
    rec("ce_all_ignore", F.cross_entropy(s, lib.full((6,), -100)))
    rec(
        "kl_log_t_g",
        lib.autograd.grad(
            F.kl_div(F.log_softmax(s, 1), F.log_softmax(t, 1), log_target=True, reduction="sum"), s
        )[0],
    )
    rec.warns("kl_size_warn", lambda: F.kl_div(F.log_softmax(s, 1), pt[:1], reduction="batchmean"))
    rec("kl_bcast", F.kl_div(F.log_softmax(s, 1), pt[:1], reduction="batchmean"))
    rec.err("kl_bad", lambda: F.kl_div(F.log_softmax(s, 1), pt[:, :3]))
    rec(
        "kl_int_tgt",
        str(
            rec.err(
                "kl_int", lambda: F.kl_div(F.log_softmax(s, 1), lib.ones(6, 10, dtype=lib.long))
            )
        ),
    )
    rec("mse_bcast_w", str(rec.warns("mse_warn", lambda: F.mse_loss(s, t[:1]))))
    rec("cos_emb", F.cosine_embedding_loss(s, t, lib.tensor([1, -1, 1, 1, -1, 1]), margin=0.1))


def p_noniid(lib, dt, rec):
    lib.manual_seed(60)
    n, C, K = 60, 4, 3
    labels = lib.randint(0, C, (n,))
    rec("bincount", lib.bincount(labels, minlength=C))
    u, inv, cnt = lib.unique(labels, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)
    D = lib.distributions.Dirichlet(lib.full((K,), 0.5, dtype=dt))
    parts = [[] for _ in range(K)]
    for c in range(C):
        idx = (labels == c).nonzero().flatten()
        idx = idx[lib.randperm(len(idx))]
        props = D.sample()
        rec(f"props{c}", props)
        cuts = (lib.cumsum(props, 0) * len(idx)).long()[:-1]
        rec(f"cuts{c}", cuts)
        for k, chunk in enumerate(lib.tensor_split(idx, cuts)):
            parts[k].append(chunk)
    for k in range(K):
        rec(f"part{k}", lib.cat(parts[k]).sort().values)
    ds = lib.utils.data.TensorDataset(lib.randn(n, 2, dtype=dt), labels)
    g = lib.Generator().manual_seed(1)
    a, b, c = lib.utils.data.random_split(ds, [0.5, 0.3, 0.2], generator=g)
    rec("rs_idx", a.indices)
    rec("rs_len", [len(a), len(b), len(c)])
    a2, b2 = lib.utils.data.random_split(ds, [45, 15])
    rec("rs2", b2.indices)
    rec.err("rs_bad", lambda: lib.utils.data.random_split(ds, [10, 10]))
    sub = lib.utils.data.Subset(ds, lib.cat(parts[0]).tolist())
    dl = lib.utils.data.DataLoader(
        sub, batch_size=7, shuffle=True, generator=lib.Generator().manual_seed(3)
    )
    for i, (_, yb) in enumerate(dl):
        rec(f"dl{i}", yb)
    ws = lib.utils.data.WeightedRandomSampler(
        lib.tensor([0.1, 0.5, 0.2, 0.2], dtype=dt), 8, generator=lib.Generator().manual_seed(4)
    )
    rec("wrs", list(ws))
    rec(
        "rsamp",
        list(
            lib.utils.data.RandomSampler(
                range(10), num_samples=5, generator=lib.Generator().manual_seed(5)
            )
        ),
    )
    rec(
        "rsamp_repl",
        list(
            lib.utils.data.RandomSampler(
                range(10), replacement=True, num_samples=5, generator=lib.Generator().manual_seed(5)
            )
        ),
    )
    # client sampling by weighted multinomial
    w = lib.tensor([len(lib.cat(p)) for p in parts], dtype=dt)
    rec("mn_sample", lib.multinomial(w / w.sum(), 2, replacement=False))
    rec(
        "beta",
        lib.distributions.Beta(lib.tensor(0.5, dtype=dt), lib.tensor(0.5, dtype=dt)).sample((4,)),
    )
    rec(
        "gamma",
        lib.distributions.Gamma(lib.tensor(2.0, dtype=dt), lib.tensor(1.0, dtype=dt)).sample((4,)),
    )
    rec("cat", lib.distributions.Categorical(probs=w / w.sum()).sample((6,)))
    rec("poisson", lib.poisson(lib.full((5,), 3.0, dtype=dt)))
    rec("binom", lib.distributions.Binomial(10, lib.tensor([0.3, 0.6], dtype=dt)).sample((3,)))


def p_sd_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(61)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(dt)
    calls = []
    m.register_load_state_dict_post_hook(
        lambda mod, keys: calls.append(
            ("post", list(keys.missing_keys), list(keys.unexpected_keys))
        )
    )
    m[1].register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, lm, strict, mk, uk, em: calls.append(
            ("pre", prefix, sorted(sd)[:2])
        )
    )
    sd = m.state_dict()
    rec("meta", str(sorted(sd._metadata.items())))
    plain = {k: v.clone() for k, v in sd.items()}
    del plain["1.num_batches_tracked"]
    rec.err("missing_nbt", lambda: m.load_state_dict(plain))
    rec("calls", str(calls))
    calls.clear()
    od = type(sd)(plain)
    od._metadata = copy.deepcopy(sd._metadata)
    od._metadata["1"] = {"version": 1}
    rec.err("old_version", lambda: m.load_state_dict(od))
    rec("nbt_after", m[1].num_batches_tracked)
    rec("calls2", str(calls))
    m.register_state_dict_post_hook(
        lambda mod, sd, prefix, local: sd.__setitem__(prefix + "extra", lib.ones(1))
    )
    rec("keys_hook", ",".join(m.state_dict()))
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("sdpre", prefix)))
    m.state_dict()
    rec("calls3", str(calls[-1]))
    rec("prefix", ",".join(m.state_dict(prefix="model.")))
    dest = {}
    m[0].state_dict(destination=dest, prefix="a.")
    rec("dest", ",".join(dest))
    rec("getp", m.get_parameter("0.weight"))
    rec.err("getp_bad", lambda: m.get_parameter("0.nope"))
    rec.err("getp_mod", lambda: m.get_parameter("2.weight"))
    rec("getb", m.get_buffer("1.running_var"))
    rec("getsub", repr(m.get_submodule("1")))
    rec.err("getsub_bad", lambda: m.get_submodule("0.x"))
    rec("np_norec", ",".join(n for n, _ in m.named_parameters(prefix="p", recurse=True)))
    rec("np_nore", ",".join(n for n, _ in m[0].named_parameters(recurse=False)))
    rec("modules", ",".join(n for n, _ in m.named_modules(prefix="root")))
    rec("repr", repr(m))
    res = m.load_state_dict(
        {**{k: v for k, v in m.state_dict().items() if k != "extra"}}, strict=False
    )
    rec("res_missing", repr(res))
    rec("calls4", str(calls[-1]))


def p_param_vec_train(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    U = lib.nn.utils
    lib.manual_seed(62)
    net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1)).to(dt)
    x = lib.randn(8, 3, dtype=dt)
    y = lib.randn(8, 1, dtype=dt)
    theta = U.parameters_to_vector(net.parameters()).detach()
    # random-direction loss landscape (mode connectivity)
    d1 = lib.randn_like(theta)
    d2 = lib.randn_like(theta)
    # filter normalisation per parameter
    off = 0
    for p in net.parameters():
        n = p.numel()
        d1[off : off + n] *= p.detach().norm() / d1[off : off + n].norm()
        off += n
    grid = []
    for a in (-0.5, 0.0, 0.5):
        row = []
        for b in (-0.5, 0.5):
            U.vector_to_parameters(theta + a * d1 + b * d2, net.parameters())
            with lib.no_grad():
                row.append(F.mse_loss(net(x), y))
        grid.append(lib.stack(row))
    rec("grid", lib.stack(grid))
    # Bezier curve between two modes with a trainable midpoint
    t1 = theta
    t2 = theta + d1
    mid = ((t1 + t2) / 2).clone().requires_grad_()
    opt = lib.optim.SGD([mid], lr=0.05)
    shapes = [p.shape for p in net.parameters()]
    names = [n for n, _ in net.named_parameters()]

    def unflat(v):
        out, o = {}, 0
        for nme, s in zip(names, shapes, strict=True):
            k = math.prod(s)
            out[nme] = v[o : o + k].view(s)
            o += k
        return out

    for it in range(3):
        t = lib.rand(1, dtype=dt)
        pt = (1 - t) ** 2 * t1 + 2 * t * (1 - t) * mid + t**2 * t2
        loss = F.mse_loss(lib.func.functional_call(net, unflat(pt), (x,)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"bz{it}", loss)
    rec("mid", mid)
    # linear interpolation barrier
    vals = []
    for a in lib.linspace(0, 1, 5, dtype=dt):
        with lib.no_grad():
            vals.append(
                F.mse_loss(lib.func.functional_call(net, unflat(lib.lerp(t1, t2, a)), (x,)), y)
            )
    rec("barrier", lib.stack(vals))
    # grads to vector
    net.zero_grad()
    U.vector_to_parameters(theta, net.parameters())
    F.mse_loss(net(x), y).backward()
    gv = U.parameters_to_vector(p.grad for p in net.parameters())
    rec("gv", gv)
    rec("gnorm", lib.linalg.vector_norm(gv))
    rec("gnorms", U.get_total_norm([p.grad for p in net.parameters()], norm_type=3.0))
    rec.err("p2v_gen", lambda: U.parameters_to_vector(iter([])))


def p_merge_seq(lib, dt, rec):
    nn, fn = lib.nn, lib.func
    lib.manual_seed(70)
    mods = {
        "lstm": nn.LSTM(3, 4, num_layers=2, batch_first=True),
        "gru": nn.GRU(3, 4, bidirectional=True),
        "mha": nn.MultiheadAttention(4, 2, batch_first=True),
        "enc": nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True),
        "emb": nn.EmbeddingBag(7, 4, mode="mean"),
        "cnn_t": nn.ConvTranspose1d(3, 2, 3),
        "ln": nn.LayerNorm(4),
        "gn": nn.GroupNorm(2, 4),
    }
    for name, m in mods.items():
        m = m.to(dt)
        m2 = copy.deepcopy(m)
        with lib.no_grad():
            for p in m2.parameters():
                p.add_(lib.randn_like(p) * 0.1)
        sd1, sd2 = m.state_dict(), m2.state_dict()
        rec(name + ".keys", ",".join(sd1))
        tv = {k: sd2[k] - sd1[k] for k in sd1}
        merged = {k: sd1[k] + 0.5 * tv[k] for k in sd1}
        if name in ("lstm",):
            x = (lib.randn(2, 5, 3, dtype=dt),)
        elif name == "gru":
            x = (lib.randn(5, 2, 3, dtype=dt),)
        elif name == "mha":
            q = lib.randn(2, 3, 4, dtype=dt)
            x = (q, q, q)
        elif name == "emb":
            x = (lib.tensor([[1, 2, 3], [4, 5, 6]]),)
        elif name == "cnn_t":
            x = (lib.randn(2, 3, 5, dtype=dt),)
        elif name == "gn":
            x = (lib.randn(2, 4, 3, dtype=dt),)
        else:
            x = (lib.randn(2, 3, 4, dtype=dt),)
        out_fc = fn.functional_call(m, merged, x)
        out_fc = out_fc[0] if isinstance(out_fc, tuple) else out_fc
        rec(name + ".fc", out_fc)
        m3 = copy.deepcopy(m)
        m3.load_state_dict(merged)
        o3 = m3(*x)
        o3 = o3[0] if isinstance(o3, tuple) else o3
        rec(name + ".load", o3)
        vec = lib.nn.utils.parameters_to_vector(m2.parameters())
        lib.nn.utils.vector_to_parameters(vec * 0.5, m3.parameters())
        o4 = m3(*x)
        o4 = o4[0] if isinstance(o4, tuple) else o4
        rec(name + ".v2p", o4)
        o5 = fn.functional_call(m, {k: v * 0.5 for k, v in sd2.items()}, x)
        o5 = o5[0] if isinstance(o5, tuple) else o5
        rec(name + ".fc_half", o5)
        # grads via functional_call with requires_grad merged params
        pg = {k: v.clone().requires_grad_() for k, v in merged.items() if v.is_floating_point()}
        out = fn.functional_call(m, pg, x)
        out = out[0] if isinstance(out, tuple) else out
        gs = lib.autograd.grad(out.pow(2).sum(), list(pg.values()), allow_unused=True)
        for k, g in zip(pg, gs, strict=True):
            rec(name + ".g." + k, g if g is not None else "None")


def p_packnet_hat(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(80)
    net = nn.ModuleDict({"body": nn.Linear(5, 8), "heads": nn.ModuleList([nn.Linear(8, 2)])}).to(dt)
    rec("keys", ",".join(net.state_dict()))
    masks = {}
    x = lib.randn(6, 5, dtype=dt)
    y = lib.randint(0, 2, (6,))
    w = net["body"].weight
    free = lib.ones_like(w, dtype=lib.bool)
    for task in range(2):
        if task > 0:
            new = nn.Linear(8, 2).to(dt)
            net["heads"].append(new)
        opt = lib.optim.SGD(net.parameters(), lr=0.1)
        h = w.register_hook(lambda g: g * free)
        for _ in range(2):
            opt.zero_grad()
            F.cross_entropy(net["heads"][task](F.relu(net["body"](x))), y).backward()
            opt.step()
        h.remove()
        with lib.no_grad():
            cand = w.abs() * free
            k = int(free.sum().item() * 0.5)
            thr = cand[free].kthvalue(k).values
            keep = (cand > thr) & free
            w[free & ~keep] = 0
            masks[task] = keep.clone()
            free = free & ~keep
        rec(f"t{task}.w", w)
        rec(f"t{task}.keep", keep)
        rec(f"t{task}.free", free.sum())
    rec("keys2", ",".join(net.state_dict()))
    # expanding the head: copy old rows into a bigger Linear
    big = nn.Linear(8, 4).to(dt)
    with lib.no_grad():
        big.weight[:2] = net["heads"][0].weight
        big.bias.data[:2] = net["heads"][0].bias.data
    rec("big", big.weight)
    # HAT-style gates
    emb = nn.Embedding(2, 8).to(dt)
    s = 10.0
    gate = lib.sigmoid(s * emb(lib.tensor([1])))
    out = net["heads"][1](F.relu(net["body"](x)) * gate)
    loss = F.cross_entropy(out, y)
    loss.backward()
    g = emb.weight.grad.clone()
    num = lib.cosh(lib.clamp(s * emb.weight.data, -50, 50)) + 1
    den = lib.cosh(emb.weight.data) + 1
    rec("hat_comp", g * 400 * num / den)
    # ParameterDict / ParameterList for task-specific parameters
    pd = nn.ParameterDict({"t0": nn.Parameter(lib.zeros(3, dtype=dt)), "t1": lib.ones(2, dtype=dt)})
    pl = nn.ParameterList([lib.ones(2, dtype=dt), nn.Parameter(lib.zeros(1, dtype=dt))])
    holder = nn.Module()
    holder.pd, holder.pl = pd, pl
    rec("pd_keys", ",".join(holder.state_dict()))
    rec("pd_types", str([type(p).__name__ for p in pd.values()]))
    rec("pd_repr", repr(holder))
    hc = copy.deepcopy(holder)
    rec("pd_copy", ",".join(n for n, _ in hc.named_parameters()))
    pd["t2"] = nn.Parameter(lib.full((1,), 2.0, dtype=dt))
    rec("pd_len", len(pd))
    rec("pd_in", str("t2" in pd))
    pl.append(lib.zeros(4, dtype=dt))
    rec("pl_types", str([type(p).__name__ for p in pl]))
    rec("pl_rg", str([p.requires_grad for p in pl]))


def p_reset_init(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(81)
    m = nn.Sequential(
        nn.Linear(4, 5),
        nn.Conv1d(2, 3, 3),
        nn.BatchNorm1d(3),
        nn.Embedding(5, 2),
        nn.LSTM(2, 3),
        nn.LayerNorm(3),
        nn.MultiheadAttention(4, 2),
    ).to(dt)
    for n, p in m.named_parameters():
        rec("init." + n, p)

    def reset(mod):
        if hasattr(mod, "reset_parameters") and mod is not m:
            mod.reset_parameters()

    m.apply(reset)
    for n, p in m.named_parameters():
        rec("reset." + n, p)
    m[2].running_mean.fill_(3)
    m[2].reset_running_stats()
    rec("rrs", m[2].running_mean)
    # init with generator
    g = lib.Generator().manual_seed(3)
    w = lib.empty(4, 3, dtype=dt)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
    rec("ku", w)
    nn.init.trunc_normal_(w, std=0.02, generator=g)
    rec("tn", w)
    nn.init.orthogonal_(w, generator=g)
    rec("orth", w)
    nn.init.xavier_normal_(w, gain=nn.init.calculate_gain("tanh"), generator=g)
    rec("xn", w)
    nn.init.sparse_(w, 0.5, generator=g)
    rec("sparse", w)
    rec("gain_lrelu", nn.init.calculate_gain("leaky_relu", 0.2))
    rec("gain_selu", nn.init.calculate_gain("selu"))
    # re-initialising only the last layer (continual learning "head reset")
    lib.manual_seed(9)
    head = nn.Linear(3, 2).to(dt)
    lib.manual_seed(9)
    head.reset_parameters()
    rec("head", head.weight)


def p_fuse_swa_bn(lib, dt, rec):
    nn = lib.nn
    swa = importlib.import_module(lib.__name__ + ".optim.swa_utils")
    fusion = importlib.import_module(lib.__name__ + ".nn.utils.fusion")
    lib.manual_seed(82)
    model = nn.Sequential(
        nn.Conv2d(2, 3, 3),
        nn.BatchNorm2d(3),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(12, 4),
        nn.BatchNorm1d(4),
    ).to(dt)
    data = [(lib.randn(4, 2, 4, 4, dtype=dt),) for _ in range(3)]
    avg = swa.AveragedModel(model)
    for (xb,) in data:
        model(xb)
        avg.update_parameters(model)
    swa.update_bn(data, avg)
    rec("swa_rm", avg.module[1].running_mean)
    rec("swa_rv", avg.module[5].running_var)
    rec("swa_nbt", avg.module[1].num_batches_tracked)
    rec("swa_mom", str(avg.module[1].momentum))
    model.eval()
    conv = fusion.fuse_conv_bn_eval(model[0], model[1])
    lin = fusion.fuse_linear_bn_eval(model[4], model[5])
    x = data[0][0]
    rec("fused", lin(conv(x).relu().flatten(1)))
    rec("ref", model(x))
    w, b = fusion.fuse_conv_bn_weights(
        model[0].weight,
        model[0].bias,
        model[1].running_mean,
        model[1].running_var,
        model[1].eps,
        model[1].weight,
        model[1].bias,
    )
    rec("fw", w)
    rec("fw_type", type(w).__name__)
    rec.err("fuse_train", lambda: fusion.fuse_conv_bn_eval(model[0].train(), model[1]))
    sched = swa.SWALR(
        lib.optim.SGD(model.parameters(), lr=0.5),
        swa_lr=0.05,
        anneal_epochs=3,
        anneal_strategy="cos",
    )
    lrs = []
    for _ in range(4):
        sched.optimizer.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    rec("swalr", lrs)


def p_custom_prune(lib, dt, rec):
    nn = lib.nn
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(83)

    class Thresh(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def __init__(self, threshold):
            self.threshold = threshold

        def compute_mask(self, t, default_mask):
            return default_mask * (t.abs() > self.threshold)

    m = nn.Linear(5, 4).to(dt)
    Thresh.apply(m, "weight", threshold=0.2)
    rec("mask", m.weight_mask)
    rec("mask_dt", str(m.weight_mask.dtype))
    prune.l1_unstructured(m, "weight", amount=3)
    rec("mask2", m.weight_mask)
    hook = next(iter(m._forward_pre_hooks.values()))
    rec("hook", type(hook).__name__)
    rec("n_methods", len(hook._pruning_methods))
    m2 = nn.Linear(5, 4).to(dt)
    m3 = nn.Linear(4, 3).to(dt)
    prune.global_unstructured(
        [(m2, "weight"), (m3, "weight"), (m3, "bias")], pruning_method=Thresh, threshold=0.3
    )
    rec("g2", m2.weight_mask)
    rec("g3b", m3.bias_mask)
    rec.err("ln_struct_tensor", lambda: prune.ln_structured(m3, "bias", amount=1, n=1, dim=0))
    m4 = nn.Conv2d(2, 4, 2).to(dt)
    prune.ln_structured(m4, "weight", amount=0.5, n=float("inf"), dim=0)
    rec("conv_mask", m4.weight_mask.sum((1, 2, 3)))
    prune.ln_structured(m4, "weight", amount=1, n=-float("inf"), dim=1)
    rec("conv_mask2", m4.weight_mask.sum((0, 2, 3)))
    rec("sd", ",".join(m4.state_dict()))
    out = m4(lib.randn(1, 2, 3, 3, dtype=dt))
    out.sum().backward()
    rec("g_orig", m4.weight_orig.grad)


def p_lowrank_merge(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(90)
    base = nn.Linear(6, 4).to(dt)
    experts = [copy.deepcopy(base) for _ in range(3)]
    for e in experts:
        with lib.no_grad():
            e.weight.add_(lib.randn(4, 6, dtype=dt) * 0.2)
    tvs = [e.weight.detach() - base.weight.detach() for e in experts]
    # truncated SVD of each task vector (sign-free reconstructions; see linalg_svd's docstring)
    recon = []
    for i, tv in enumerate(tvs):
        U, S, Vh = lib.linalg.svd(tv, full_matrices=False)
        rec(f"S{i}", S)
        recon.append(U[:, :2] @ lib.diag(S[:2]) @ Vh[:2])
        rec(f"recon{i}", recon[-1])
        rec(f"proj{i}", U[:, :2] @ U[:, :2].T)
    rec("svdvals", lib.linalg.svdvals(lib.stack(tvs)))
    rec("rank", lib.linalg.matrix_rank(recon[0]))
    rec("nuc", lib.linalg.matrix_norm(tvs[0], "nuc"))
    # randomized low rank of the summed task vector
    Ul, Sl, Vl = lib.svd_lowrank(sum(tvs), q=3, niter=2)
    rec("lr_S", Sl)
    rec("lr_recon", Ul @ lib.diag(Sl) @ Vl.T)
    _, Sp, Vp = lib.pca_lowrank(sum(tvs), q=2)
    rec("pca_S", Sp)
    rec("pca_proj", Vp @ Vp.T)
    rec("after", lib.randn(2, dtype=dt))
    # RegMean: closed-form merge from the experts' input Gram matrices
    xs = [lib.randn(10, 6, dtype=dt) for _ in experts]
    grams = [x.T @ x for x in xs]
    G = sum(grams) + 1e-3 * lib.eye(6, dtype=dt)
    rhs = sum(g @ e.weight.detach().T for g, e in zip(grams, experts, strict=True))
    W = lib.linalg.solve(G, rhs).T
    rec("regmean", W)
    rec("regmean_lstsq", lib.linalg.lstsq(G, rhs).solution.T)
    rec("regmean_chol", lib.cholesky_solve(rhs, lib.linalg.cholesky(G)).T)
    merged = copy.deepcopy(base)
    with lib.no_grad():
        merged.weight.copy_(W)
    rec("out", merged(xs[0]))
    rec("loss", F.mse_loss(merged(xs[0]), experts[0](xs[0])))


def p_opacus_layers(lib, dt, rec):
    nn, F, fn = lib.nn, lib.nn.functional, lib.func
    lib.manual_seed(91)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(9, 4)
            self.conv = nn.Conv1d(4, 4, 3, stride=2, dilation=1, padding=1, groups=2)
            self.ln = nn.LayerNorm(4)
            self.gn = nn.GroupNorm(2, 4)
            self.fc = nn.Linear(4, 3)

        def forward(self, i):
            h = self.emb(i).transpose(1, 2)
            h = self.gn(self.conv(h))
            h = self.ln(h.transpose(1, 2)).mean(1)
            return self.fc(h)

    net = Net().to(dt)
    ids = lib.randint(0, 9, (5, 6))
    y = lib.randint(0, 3, (5,))
    acts, backs, handles = {}, {}, []
    for name, m in net.named_children():
        handles.append(
            m.register_forward_hook(
                lambda mod, i, o, name=name: acts.__setitem__(name, i[0].detach())
            )
        )
        handles.append(
            m.register_full_backward_hook(
                lambda mod, gi, go, name=name: backs.__setitem__(name, go[0].detach())
            )
        )
    F.cross_entropy(net(ids), y, reduction="sum").backward()
    rec("keys", ",".join(sorted(backs)))
    # per-sample gradients from the hooks
    gs = {}
    gs["fc.weight"] = lib.einsum("ni,nj->nij", backs["fc"], acts["fc"])
    a, b = acts["ln"], backs["ln"]
    normed = F.layer_norm(a, (4,), eps=net.ln.eps)
    gs["ln.weight"] = (normed * b).sum(1)
    gs["ln.bias"] = b.sum(1)
    a, b = acts["gn"], backs["gn"]
    normed = F.group_norm(a, 2, eps=net.gn.eps)
    gs["gn.weight"] = (normed * b).sum(2)
    emb_g = lib.zeros(5, 9, 4, dtype=dt)
    emb_g.scatter_add_(1, acts["emb"].unsqueeze(-1).expand(5, 6, 4), backs["emb"])
    gs["emb.weight"] = emb_g
    a = F.pad(acts["conv"], (1, 1))
    unf = a.unfold(2, 3, 2)  # (n, c, L, k)
    b = backs["conv"]  # (n, o, L)
    g0 = lib.einsum("nol,nclk->nock", b[:, :2], unf[:, :2])
    g1 = lib.einsum("nol,nclk->nock", b[:, 2:], unf[:, 2:])
    gs["conv.weight"] = lib.cat([g0, g1], 1)
    # the same by vmap(grad)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def loss(p, i, t):
        return F.cross_entropy(fn.functional_call(net, p, (i[None],)), t[None])

    per_sample = fn.vmap(fn.grad(loss), in_dims=(None, 0, 0))
    rec.err("with_hooks", lambda: per_sample(params, ids, y))
    for h in handles:
        h.remove()
    ref = per_sample(params, ids, y)
    for k in gs:
        rec("hook." + k, gs[k])
        rec("vmap." + k, ref[k])
        rec("sum." + k, net.get_parameter(k).grad)
