"""Session 31 (helper continual): continual-learning programs written the way research code writes
them in torch, run under torch and minitorch with the same seeds and compared record by record:
EWC with a diagonal Fisher from squared per-sample gradients (a loop over autograd.grad, model-
sampled labels by multinomial, and torch.func.vmap(grad / grad_and_value) over functional_call
with buffers), online EWC with the means and Fisher kept as registered buffers, snapshots by
clone().detach() and copy.deepcopy (of state_dicts, modules, teachers), penalties over
named_parameters; reservoir replay under a Generator (randint/randperm, class-balanced
multinomial, weighted reservoir keys by topk, state round trips, index_copy_), replay through the
data API (ConcatDataset, Subset, WeightedRandomSampler, random_split by fractions, collate_fn);
LwF and knowledge distillation (kl_div with log_softmax/softmax at a temperature, batchmean,
log_target, soft-target cross_entropy, Categorical KL, xlogy/entr), DER/ER-ACE logit replay,
iCaRL herding with nearest-mean classification (cdist, normalize, BCE on old-class sigmoid
targets, LUCIR-style cosine and margin losses); synaptic intelligence path integrals (by hand
and by post-accumulate-grad hooks), MAS importances (a loop and vmap(jacrev)) with
create_graph double backward; multi-head and class-incremental heads with task masks
(masked_fill with -inf before cross_entropy, ignore_index, inf losses), BatchNorm freezing by
eval() on submodules (apply, momentum=None averages, per-task BN statistics swapped in,
fuse_conv_bn_eval, replace_all_batch_norm_modules_); GEM/A-GEM projection on flattened grads
(parameters_to_vector / vector_to_parameters, dot products, a dual QP, the original code's legacy
constructors and .data writes), OGD and GPM subspaces (Gram-Schmidt, QR, SVD energy
thresholds), a Kronecker-factored EWC from module hooks (eigh, kron), Laplace curvature (hessian,
hvp/vhp, vmap(jvp(grad)), cholesky, MultivariateNormal); PackNet pruning masks (kthvalue,
quantile, gradient hooks, torch.nn.utils.prune), HAT task-embedding gates, Piggyback masks by a
custom straight-through Function in a registered parametrization; per-task checkpoints with
torch.save/torch.load on BytesIO (optimizer state, map_location, strict/non-strict loads), a
replay memory kept as growing buffers loaded through a state_dict pre-hook; accuracy matrices
(average accuracy, BWT, FWT, forgetting, confusion by bincount, printed reprs); per-task
optimisers (add_param_group, StepLR, state resets, AdamW amsgrad), EMA teachers
(swa_utils.AveragedModel, update_bn, SWALR, _foreach ops, lerp), model ensembles by
stack_module_state, La-MAML meta-gradients through inner SGD steps (autograd.grad with
create_graph, nested torch.func.grad), the nn.Module surface such code walks (hooks, named_*
with prefixes and duplicates, get_submodule, keep_vars), RNG bookkeeping, and two programs of
errors. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.
No difference from torch was found.

Known and left:
- float32 sums may differ in the last bits (summation order); near-equal float32 losses are
  compared by allclose with a tolerance, not by their last bit.
- vmap runs func once per sample (documented in minitorch.func.vmap): .item() of a per-sample
  value, an in-place write into an unmapped input, and random ops made before a later error
  inside func are not refused as torch refuses them; the programs stay inside what both run.
- The order of tied values from an unstable sort/argsort and from topk is implementation-
  defined; the programs record only tie-free orders or stable sorts.
- Sparse embedding gradients (Embedding(sparse=True)) are out of scope."""

from __future__ import annotations

import copy
import importlib
import io
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ewc_loop", "ewc_vmap", "online_ewc", "reservoir", "lwf", "si", "multihead", "bn_freeze",
    "agem", "gem", "checkpoints", "acc_matrix", "der", "icarl", "mas", "packnet", "hat",
    "errors", "task_optim", "ensemble_func", "si_hooks", "replay_loader", "bn_conv", "kd_dist",
    "module_api", "gem_legacy", "kfac", "mean_teacher", "piggyback", "buffer_module", "laplace",
    "gpm", "prototypes", "ogd", "errors2", "rng_bookkeeping",
    "lamaml",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _task(lib, dt, t, n=48, d=6, c=4, seed=0):
    """Task t: inputs shifted per task, labels c*t .. c*t+c-1 (class-incremental numbering)."""
    g = lib.Generator().manual_seed(seed + 17 * t)
    x = lib.randn(n, d, generator=g, dtype=dt) + 0.5 * t
    w = lib.randn(d, c, generator=g, dtype=dt)
    y = (x @ w).argmax(1) + c * t
    return x, y


def _mlp(lib, dt, d=6, h=10, out=8, seed=0, bn=False):
    lib.manual_seed(seed)
    layers = [lib.nn.Linear(d, h)]
    if bn:
        layers.append(lib.nn.BatchNorm1d(h))
    layers += [lib.nn.ReLU(), lib.nn.Linear(h, out)]
    return lib.nn.Sequential(*layers).to(dt)


def _train(lib, model, x, y, steps=5, lr=0.1, penalty=None, bs=16, seed=0):
    opt = lib.optim.SGD(model.parameters(), lr=lr)
    g = lib.Generator().manual_seed(seed)
    losses = []
    for _ in range(steps):
        idx = lib.randperm(x.shape[0], generator=g)[:bs]
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x[idx]), y[idx])
        if penalty is not None:
            loss = loss + penalty(model)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return lib.stack(losses)


def _fisher_loop(lib, model, x, y):
    fisher = {n: lib.zeros_like(p) for n, p in model.named_parameters()}
    params = [p for _, p in model.named_parameters()]
    for i in range(x.shape[0]):
        out = model(x[i : i + 1])
        loss = lib.nn.functional.nll_loss(lib.log_softmax(out, dim=1), y[i : i + 1])
        grads = lib.autograd.grad(loss, params)
        for (n, _), g in zip(model.named_parameters(), grads, strict=True):
            fisher[n] += g.detach() ** 2
    return {n: f / x.shape[0] for n, f in fisher.items()}


def _ewc_penalty(lib, fisher, means, lam):
    def penalty(model):
        tot = 0.0
        for n, p in model.named_parameters():
            tot = tot + (fisher[n] * (p - means[n]).pow(2)).sum()
        return lam / 2 * tot

    return penalty


# --- the programs: each takes the library, a dtype and a recorder ---


def p_ewc_loop(lib, dt, rec):
    model = _mlp(lib, dt)
    x0, y0 = _task(lib, dt, 0)
    rec("loss0", _train(lib, model, x0, y0 % 8))
    fisher = _fisher_loop(lib, model, x0[:12], y0[:12] % 8)
    for n, f in fisher.items():
        rec("F." + n, f)
    means = {n: p.clone().detach() for n, p in model.named_parameters()}
    rec("means_req", str([m.requires_grad for m in means.values()]))
    x1, y1 = _task(lib, dt, 1)
    pen = _ewc_penalty(lib, fisher, means, 50.0)
    rec("pen0", pen(model))
    rec("loss1", _train(lib, model, x1, y1, penalty=pen))
    rec("pen1", pen(model))
    rec.params("after", model)
    # model-sampled labels (true Fisher) by multinomial under a generator
    g = lib.Generator().manual_seed(3)
    with lib.no_grad():
        probs = lib.softmax(model(x0[:8]), dim=1)
    ys = lib.multinomial(probs, 1, generator=g).squeeze(1)
    rec("ys", ys)
    f2 = _fisher_loop(lib, model, x0[:8], ys)
    rec("F2.sum", lib.stack([f.sum() for f in f2.values()]))
    rec("F2.max", max(float(f.max()) for f in f2.values()))


def p_ewc_vmap(lib, dt, rec):
    model = _mlp(lib, dt, seed=1)
    x, y = _task(lib, dt, 0, n=10, seed=2)
    y = y % 8
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}

    def loss_fn(p, b, xb, yb):
        out = lib.func.functional_call(model, (p, b), (xb.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, yb.unsqueeze(0))

    per = lib.func.vmap(lib.func.grad(loss_fn), in_dims=(None, None, 0, 0))(params, buffers, x, y)
    rec("keys", str(list(per.keys())))
    fisher = {k: (g**2).mean(0) for k, g in per.items()}
    loop = _fisher_loop(lib, model, x, y)
    for k in fisher:
        rec("F." + k, fisher[k])
        rec("same." + k, lib.allclose(fisher[k], loop[k], rtol=1e-4, atol=1e-6))
    # grad_and_value and the loss per sample
    gv = lib.func.vmap(lib.func.grad_and_value(loss_fn), in_dims=(None, None, 0, 0))
    grads, vals = gv(params, buffers, x, y)
    rec("vals", vals)
    rec("shape", str(grads["0.weight"].shape))
    # empirical Fisher from flattened per-sample grads: diag and the low-rank outer product
    flat = lib.cat([g.flatten(1) for g in per.values()], dim=1)
    rec("flat.shape", list(flat.shape))
    diag = flat.pow(2).mean(0)
    rec("diag", diag)
    outer = flat.T @ flat / flat.shape[0]
    rec("diag_eq", lib.allclose(outer.diagonal(), diag))
    rec("trace", outer.trace())
    # normalised Fisher, as some EWC variants do
    mx = lib.stack([f.max() for f in fisher.values()]).max()
    rec("norm", lib.cat([(f / mx).flatten() for f in fisher.values()]))


def p_online_ewc(lib, dt, rec):
    class OnlineEWC(lib.nn.Module):
        def __init__(self, model, gamma):
            super().__init__()
            self.model = model
            self.gamma = gamma
            for n, p in model.named_parameters():
                key = n.replace(".", "__")
                self.register_buffer(key + "_mean", lib.zeros_like(p))
                self.register_buffer(key + "_fisher", lib.zeros_like(p))
            self.register_buffer("tasks", lib.tensor(0))

        def forward(self, x):
            return self.model(x)

        def consolidate(self, fisher):
            for n, p in self.model.named_parameters():
                key = n.replace(".", "__")
                getattr(self, key + "_mean").copy_(p.detach())
                f = getattr(self, key + "_fisher")
                f.mul_(self.gamma).add_(fisher[n])
            self.tasks += 1

        def penalty(self):
            tot = lib.zeros((), dtype=next(self.parameters()).dtype)
            for n, p in self.model.named_parameters():
                key = n.replace(".", "__")
                m = getattr(self, key + "_mean")
                f = getattr(self, key + "_fisher")
                tot = tot + (f * (p - m) ** 2).sum()
            return tot

    net = OnlineEWC(_mlp(lib, dt, seed=4), gamma=0.9)
    rec("keys", str(list(net.state_dict().keys())))
    for t in range(3):
        x, y = _task(lib, dt, t, seed=5)
        pen = (lambda m: 10.0 * net.penalty()) if t else None
        rec(f"t{t}.loss", _train(lib, net, x, y % 8, steps=4, penalty=pen, seed=t))
        fisher = _fisher_loop(lib, net.model, x[:6], y[:6] % 8)
        with lib.no_grad():
            net.consolidate(fisher)
        rec(f"t{t}.pen", net.penalty())
        rec(f"t{t}.tasks", net.tasks)
    sd = net.state_dict()
    rec("fisher0", sd["model__0__weight_fisher"] if "model__0__weight_fisher" in sd else "none")
    rec("buf", sd["0__weight_fisher"] if "0__weight_fisher" in sd else "none")
    rec("nbuf", len(list(net.named_buffers())))
    rec("nparam", sum(p.numel() for p in net.parameters()))


def p_reservoir(lib, dt, rec):
    class Reservoir:
        def __init__(self, size, d, gen):
            self.x = lib.empty(size, d, dtype=dt)
            self.y = lib.full((size,), -1, dtype=lib.long)
            self.t = lib.zeros(size, dtype=lib.int32)
            self.seen = 0
            self.size = size
            self.gen = gen

        def add(self, xb, yb, task):
            for i in range(xb.shape[0]):
                if self.seen < self.size:
                    j = self.seen
                else:
                    j = int(lib.randint(0, self.seen + 1, (1,), generator=self.gen).item())
                if j < self.size:
                    self.x[j] = xb[i]
                    self.y[j] = yb[i]
                    self.t[j] = task
                self.seen += 1

        def sample(self, k):
            n = min(self.seen, self.size)
            idx = lib.randperm(n, generator=self.gen)[:k]
            return self.x[idx], self.y[idx], self.t[idx]

    g = lib.Generator().manual_seed(7)
    buf = Reservoir(20, 6, g)
    for t in range(3):
        x, y = _task(lib, dt, t, n=15, seed=8)
        buf.add(x, y, t)
        rec(f"t{t}.y", buf.y.clone())
        rec(f"t{t}.t", buf.t.clone())
    xs, ys, ts = buf.sample(8)
    rec("xs", xs)
    rec("ys", ys)
    rec("ts", ts)
    rec("counts", lib.bincount(buf.t, minlength=3))
    rec("uniq", lib.unique(buf.y, return_counts=True)[1])
    # class-balanced sampling by multinomial weights
    cnt = lib.bincount(buf.y, minlength=12).to(dt)
    w = 1.0 / cnt[buf.y]
    pick = lib.multinomial(w, 6, replacement=False, generator=g)
    rec("pick", pick)
    rec("w", w)
    # a reservoir done vectorised: keys by rand and topk (weighted reservoir)
    keys = lib.rand(buf.size, generator=g, dtype=dt) ** (1.0 / w)
    rec("topk", lib.topk(keys, 5).indices)
    # the generator's state round trip replays the same sample
    st = g.get_state()
    a = buf.sample(4)[1]
    g.set_state(st)
    b = buf.sample(4)[1]
    rec("replay_same", lib.equal(a, b))
    # index_copy_ / index_select updates of the buffer
    newx = lib.ones(2, 6, dtype=dt)
    buf.x.index_copy_(0, lib.tensor([1, 4]), newx)
    rec("x14", buf.x.index_select(0, lib.tensor([1, 4])).sum())
    rec("nonfinite", (~lib.isfinite(buf.x)).any())


def p_lwf(lib, dt, rec):
    F = lib.nn.functional
    student = _mlp(lib, dt, seed=9)
    x0, y0 = _task(lib, dt, 0, seed=10)
    _train(lib, student, x0, y0, steps=4)
    teacher = copy.deepcopy(student)
    teacher.requires_grad_(False)
    teacher.eval()
    rec("teacher_req", str([p.requires_grad for p in teacher.parameters()]))
    rec("student_req", str([p.requires_grad for p in student.parameters()]))
    rec("same_data", all(a.data_ptr() != b.data_ptr() for a, b in
                         zip(teacher.parameters(), student.parameters(), strict=True)))  # fmt: skip
    x1, y1 = _task(lib, dt, 1, seed=10)
    T = 2.0
    opt = lib.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    for step in range(4):
        opt.zero_grad()
        out = student(x1[:16])
        with lib.no_grad():
            t_out = teacher(x1[:16])
        ce = F.cross_entropy(out, y1[:16])
        old = slice(0, 4)
        kd = F.kl_div(
            F.log_softmax(out[:, old] / T, dim=1),
            F.softmax(t_out[:, old] / T, dim=1),
            reduction="batchmean",
        ) * (T * T)
        kd2 = F.kl_div(
            F.log_softmax(out[:, old] / T, dim=1),
            F.log_softmax(t_out[:, old] / T, dim=1),
            reduction="batchmean",
            log_target=True,
        ) * (T * T)
        rec(f"s{step}.ce", ce)
        rec(f"s{step}.kd", kd)
        rec(f"s{step}.kd_eq", lib.allclose(kd, kd2, rtol=1e-3, atol=1e-5))
        loss = ce + kd
        loss.backward()
        rec(f"s{step}.g", student[0].weight.grad)
        opt.step()
    rec.params("student", student)
    rec.params("teacher", teacher)
    # other reductions and the soft cross entropy form
    s, t = F.log_softmax(student(x0[:5]), 1), F.softmax(teacher(x0[:5]), 1)
    for red in ("sum", "none", "mean"):
        rec("kl_" + red, F.kl_div(s, t, reduction=red))
    rec("soft_ce", F.cross_entropy(student(x0[:5]), t))
    rec("soft_ce_ls", F.cross_entropy(student(x0[:5]), t, label_smoothing=0.1))
    rec("kldiv_mod", lib.nn.KLDivLoss(reduction="batchmean")(s, t))


def p_si(lib, dt, rec):
    model = _mlp(lib, dt, seed=11)
    names = [n for n, _ in model.named_parameters()]
    W = {n: lib.zeros_like(p) for n, p in model.named_parameters()}
    omega = {n: lib.zeros_like(p) for n, p in model.named_parameters()}
    start = {n: p.detach().clone() for n, p in model.named_parameters()}
    anchor = {n: p.detach().clone() for n, p in model.named_parameters()}
    c, xi = 0.5, 1e-3
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    for t in range(2):
        x, y = _task(lib, dt, t, seed=12)
        g = lib.Generator().manual_seed(t)
        for step in range(5):
            idx = lib.randint(0, x.shape[0], (12,), generator=g)
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x[idx]), y[idx])
            if t:
                sur = sum((omega[n] * (p - anchor[n]) ** 2).sum()
                          for n, p in model.named_parameters())  # fmt: skip
                loss = loss + c * sur
            loss.backward()
            before = {n: p.detach().clone() for n, p in model.named_parameters()}
            grads = {n: p.grad.detach().clone() for n, p in model.named_parameters()}
            opt.step()
            for n, p in model.named_parameters():
                W[n].add_(-grads[n] * (p.detach() - before[n]))
            rec(f"t{t}.s{step}.loss", loss)
        for n, p in model.named_parameters():
            delta = p.detach() - start[n]
            omega[n] += W[n] / (delta**2 + xi)
            W[n].zero_()
            start[n] = p.detach().clone()
            anchor[n] = p.detach().clone()
        rec(f"t{t}.omega", lib.cat([omega[n].flatten() for n in names]))
    rec("omega.max", lib.stack([o.max() for o in omega.values()]))
    rec("omega.nonneg", lib.stack([(o >= 0).float().mean() for o in omega.values()]))
    rec("opt.step", opt.state_dict()["state"][0]["step"])
    rec("opt.keys", str(sorted(opt.state_dict()["state"][0].keys())))


def p_multihead(lib, dt, rec):
    F = lib.nn.functional

    class MultiHead(lib.nn.Module):
        def __init__(self, ntasks, c):
            super().__init__()
            self.trunk = lib.nn.Sequential(lib.nn.Linear(6, 12), lib.nn.Tanh())
            self.heads = lib.nn.ModuleList([lib.nn.Linear(12, c) for _ in range(ntasks)])
            self.c = c

        def forward(self, x, task):
            h = self.trunk(x)
            if isinstance(task, int):
                return self.heads[task](h)
            outs = lib.stack([hd(h) for hd in self.heads], 1)
            return outs[lib.arange(x.shape[0]), task]

    lib.manual_seed(13)
    net = MultiHead(3, 4).to(dt)
    rec("repr", repr(net))
    xs, ys = [], []
    for t in range(3):
        x, y = _task(lib, dt, t, n=24, seed=14)
        xs.append(x)
        ys.append(y)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    for t in range(3):
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(net(xs[t], t), ys[t] - 4 * t)
            loss.backward()
            opt.step()
        rec(f"t{t}.loss", loss)
        rec(f"t{t}.gh", [0.0 if h.weight.grad is None else h.weight.grad.abs().sum().item()
                         for h in net.heads])  # fmt: skip
    # class-incremental single head with task masks (-inf for the other tasks' classes)
    lib.manual_seed(15)
    single = _mlp(lib, dt, out=12, seed=15)
    x = lib.cat(xs)
    y = lib.cat(ys)
    task = y // 4
    cls = lib.arange(12)
    mask = (cls.unsqueeze(0) // 4) != task.unsqueeze(1)
    logits = single(x).masked_fill(mask, float("-inf"))
    rec("masked_row", logits[0])
    loss = F.cross_entropy(logits, y)
    loss.backward()
    rec("masked_loss", loss)
    rec("masked_g", single[2].weight.grad)
    rec("pred", logits.argmax(1))
    rec("lse", lib.logsumexp(logits, 1))
    rec("softmax_zero", (lib.softmax(logits, 1)[mask] == 0).all())
    # task-incremental evaluation by per-task slices vs class-incremental argmax
    with lib.no_grad():
        full = single(x)
        til = lib.stack([full[i, 4 * t : 4 * t + 4].argmax() + 4 * t
                         for i, t in enumerate(task.tolist())])  # fmt: skip
        rec("til_acc", (til == y).to(dt).mean())
        rec("cil_acc", (full.argmax(1) == y).to(dt).mean())
    # -inf in the target position: the loss is inf, nll gives the same
    bad = logits.detach().clone()
    bad[0, y[0]] = float("-inf")
    rec("inf_loss", F.cross_entropy(bad[:2], y[:2], reduction="none"))
    rec("nll", F.nll_loss(F.log_softmax(bad[:2], 1), y[:2], reduction="none"))
    rec("ignore", F.cross_entropy(bad[:3], lib.tensor([-100, y[1], y[2]]), ignore_index=-100))


def p_bn_freeze(lib, dt, rec):
    model = _mlp(lib, dt, bn=True, seed=16)
    x0, y0 = _task(lib, dt, 0, seed=17)
    _train(lib, model, x0, y0 % 8, steps=3)
    rm = model[1].running_mean.clone()
    nbt = model[1].num_batches_tracked.clone()
    rec("rm", rm)
    rec("nbt", nbt)

    def freeze_bn(m):
        if isinstance(m, lib.nn.modules.batchnorm._BatchNorm):
            m.eval()
            for p in m.parameters():
                p.requires_grad_(False)

    model.train()
    model.apply(freeze_bn)
    rec("flags", str([(n, m.training) for n, m in model.named_modules()]))
    x1, y1 = _task(lib, dt, 1, seed=17)
    opt = lib.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    rec("ngroups", len(opt.param_groups[0]["params"]))
    for _ in range(3):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x1[:16]), y1[:16] % 8)
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("rm_same", lib.equal(model[1].running_mean, rm))
    rec("nbt_same", lib.equal(model[1].num_batches_tracked, nbt))
    rec("bn_w_grad", str(model[1].weight.grad))
    rec.params("p", model)
    model.train()
    rec("flags2", str([m.training for m in model.modules()]))
    # momentum=None: cumulative average of the batch statistics
    bn = lib.nn.BatchNorm1d(4, momentum=None).to(dt)
    g = lib.Generator().manual_seed(1)
    for _ in range(3):
        bn(lib.randn(8, 4, generator=g, dtype=dt))
    rec("cma_mean", bn.running_mean)
    rec("cma_var", bn.running_var)
    bn.reset_running_stats()
    rec("reset", bn.running_var)
    rec("reset_nbt", bn.num_batches_tracked)
    # track_running_stats=False in eval still uses batch stats
    bn2 = lib.nn.BatchNorm1d(4, track_running_stats=False).to(dt).eval()
    rec("no_track", bn2(lib.randn(5, 4, generator=g, dtype=dt)))
    rec("no_track_buf", str(bn2.running_mean))


def _flat_grad(lib, model):
    return lib.cat([p.grad.reshape(-1) if p.grad is not None else lib.zeros_like(p).reshape(-1)
                    for p in model.parameters()])  # fmt: skip


def _write_grad(model, vec):
    i = 0
    for p in model.parameters():
        n = p.numel()
        p.grad.copy_(vec[i : i + n].view_as(p))
        i += n


def p_agem(lib, dt, rec):
    F = lib.nn.functional
    model = _mlp(lib, dt, seed=18)
    x0, y0 = _task(lib, dt, 0, seed=19)
    _train(lib, model, x0, y0, steps=3)
    mem_x, mem_y = x0[:10], y0[:10]
    x1, y1 = _task(lib, dt, 1, seed=19)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for step in range(4):
        opt.zero_grad()
        F.cross_entropy(model(mem_x), mem_y).backward()
        g_ref = _flat_grad(lib, model)
        opt.zero_grad()
        F.cross_entropy(model(x1[step * 8 : step * 8 + 8]), y1[step * 8 : step * 8 + 8]).backward()
        g = _flat_grad(lib, model)
        dot = lib.dot(g, g_ref)
        rec(f"s{step}.dot", dot)
        if dot < 0:
            g = g - dot / lib.dot(g_ref, g_ref) * g_ref
        rec(f"s{step}.after", lib.dot(g, g_ref))
        _write_grad(model, g)
        opt.step()
    rec.params("p", model)
    # parameters_to_vector / vector_to_parameters round trip
    v = lib.nn.utils.parameters_to_vector(model.parameters())
    rec("v", v)
    lib.nn.utils.vector_to_parameters(v * 2, model.parameters())
    rec("doubled", model[0].bias)
    rec("is_leaf", model[0].bias.is_leaf)
    rec("req", model[0].bias.requires_grad)
    gv = lib.nn.utils.parameters_to_vector(p.grad for p in model.parameters())
    rec("gv", gv)
    rec("cos", F.cosine_similarity(gv, v, dim=0))


def p_gem(lib, dt, rec):
    # GEM with several past-task constraints: the projection is found by a few steps of
    # projected gradient ascent on the dual (v >= 0), as small research scripts do
    F = lib.nn.functional
    model = _mlp(lib, dt, seed=20, out=12)
    mems = [_task(lib, dt, t, n=8, seed=21) for t in range(2)]
    x2, y2 = _task(lib, dt, 2, n=16, seed=21)
    G = []
    for mx, my in mems:
        model.zero_grad()
        F.cross_entropy(model(mx), my).backward()
        G.append(lib.nn.utils.parameters_to_vector(p.grad for p in model.parameters()))
    G = lib.stack(G)
    model.zero_grad()
    F.cross_entropy(model(x2), y2).backward()
    g = lib.nn.utils.parameters_to_vector(p.grad for p in model.parameters())
    rec("Gg", G @ g)
    GG = G @ G.T
    v = lib.zeros(2, dtype=dt)
    for _ in range(50):
        v = (v - 0.5 * (GG @ v + G @ g) / GG.diagonal().max()).clamp(min=0)
    rec("v", v)
    gt = G.T @ v + g
    rec("Ggt", G @ gt)
    rec("proj_norm", gt.norm())
    rec("viol", (G @ gt < -1e-6).any())
    i = 0
    for p in model.parameters():
        n = p.numel()
        p.grad = gt[i : i + n].view_as(p).clone()
        i += n
    lib.optim.SGD(model.parameters(), lr=0.1).step()
    rec.params("p", model)
    # the same constraint check by torch.linalg on the active set
    act = (G @ g) < 0
    Ga = G[act]
    if Ga.shape[0]:
        lam = lib.linalg.solve(Ga @ Ga.T, -(Ga @ g))
        rec("lam", lam)
        rec("g_act", Ga @ (g + Ga.T @ lam))
    rec("nact", act.sum())


def p_checkpoints(lib, dt, rec):
    model = _mlp(lib, dt, seed=22)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    ckpts = {}
    for t in range(2):
        x, y = _task(lib, dt, t, seed=23)
        for _ in range(3):
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(x[:16]), y[:16]).backward()
            opt.step()
        buf = io.BytesIO()
        lib.save({"model": model.state_dict(), "opt": opt.state_dict(), "task": t}, buf)
        ckpts[t] = buf.getvalue()
        rec(f"t{t}.w", model[0].weight)
    # restore task 0 into a fresh model and optimizer
    fresh = _mlp(lib, dt, seed=99)
    state = lib.load(io.BytesIO(ckpts[0]), weights_only=True)
    rec("task", state["task"])
    rec("keys", str(list(state["model"].keys())))
    res = fresh.load_state_dict(state["model"])
    rec("res", str(res))
    rec("w0", fresh[0].weight)
    opt2 = lib.optim.Adam(fresh.parameters(), lr=0.01)
    opt2.load_state_dict(state["opt"])
    rec("step", opt2.state[fresh[0].weight]["step"])
    rec("exp_avg", opt2.state[fresh[0].weight]["exp_avg"])
    rec("pg", str({k: v for k, v in opt2.param_groups[0].items() if k != "params"}))
    # deepcopy snapshots vs state_dict references
    snap = copy.deepcopy(model.state_dict())
    live = model.state_dict()
    with lib.no_grad():
        model[0].weight.add_(1.0)
    rec("live_moved", lib.equal(live["0.weight"], model[0].weight))
    rec("snap_kept", lib.equal(snap["0.weight"], model[0].weight))
    rec("snap_diff", (model[0].weight - snap["0.weight"]).mean())
    cloned = {k: v.clone() for k, v in model.state_dict().items()}
    rec("clone_ver", cloned["0.weight"]._version)
    # a whole model deep-copied keeps its own parameters
    m2 = copy.deepcopy(model)
    rec("ptr", m2[0].weight.data_ptr() != model[0].weight.data_ptr())
    rec("m2", m2[2].bias)
    # saving a dict of snapshots per task and loading with map_location
    buf = io.BytesIO()
    lib.save({t: lib.load(io.BytesIO(b))["model"] for t, b in ckpts.items()}, buf)
    buf.seek(0)
    allc = lib.load(buf, map_location="cpu")
    rec("all_keys", str(list(allc.keys())))
    rec("diff01", (allc[1]["2.weight"] - allc[0]["2.weight"]).abs().max())
    # a strict load with a missing key and a shape mismatch
    sd = dict(state["model"])
    sd.pop("2.bias")
    rec.err("missing", lambda: fresh.load_state_dict(sd))
    rec("nonstrict", str(fresh.load_state_dict(sd, strict=False)))
    sd["2.bias"] = lib.zeros(3, dtype=dt)
    rec.err("shape", lambda: fresh.load_state_dict(sd))


def p_acc_matrix(lib, dt, rec):
    model = _mlp(lib, dt, out=12, seed=24)
    T = 3
    data = [_task(lib, dt, t, n=32, seed=25) for t in range(T)]
    R = lib.zeros(T, T, dtype=dt)
    base = lib.zeros(T, dtype=dt)
    with lib.no_grad():
        for j, (x, y) in enumerate(data):
            base[j] = (model(x).argmax(1) == y).to(dt).mean()
    for i, (x, y) in enumerate(data):
        _train(lib, model, x, y, steps=6, lr=0.2, seed=i)
        model.eval()
        with lib.no_grad():
            for j, (xt, yt) in enumerate(data):
                R[i, j] = (model(xt).argmax(1) == yt).to(dt).mean()
        model.train()
    rec("R", R)
    rec("R.str", str(R))
    rec("avg_acc", R[-1].mean())
    rec("bwt", (R[-1, :-1] - R.diagonal()[:-1]).mean())
    rec("fwt", (R.diagonal(offset=1) - base[1:]).mean())
    rec("forgetting", (R[:-1, :-1].max(0).values - R[-1, :-1]).mean())
    rec("lower", R.tril())
    rec("avg_inc", R.tril().sum(1) / lib.arange(1, T + 1, dtype=dt))
    rec("upper_mask", lib.triu(lib.ones(T, T, dtype=lib.bool), diagonal=1))
    # per-class accuracies by scatter_add and confusion matrix by bincount
    x = lib.cat([d[0] for d in data])
    y = lib.cat([d[1] for d in data])
    with lib.no_grad():
        pred = model(x).argmax(1)
    cm = lib.bincount(y * 12 + pred, minlength=144).view(12, 12)
    rec("cm", cm)
    hits = lib.zeros(12, dtype=dt).scatter_add_(0, y, (pred == y).to(dt))
    tot = lib.zeros(12, dtype=dt).index_add_(0, y, lib.ones_like(y, dtype=dt))
    rec("per_class", hits / tot)
    rec("fmt", f"{R[-1].mean().item():.4f} {R.max().item():.3f}")
    rec("tolist", str([[round(v, 4) for v in row] for row in R.tolist()]))


def p_der(lib, dt, rec):
    # dark experience replay: logits stored in the buffer, MSE to them, CE on replayed labels
    F = lib.nn.functional
    model = _mlp(lib, dt, out=8, seed=26)
    g = lib.Generator().manual_seed(27)
    size = 12
    bx = lib.zeros(size, 6, dtype=dt)
    by = lib.zeros(size, dtype=lib.long)
    bl = lib.zeros(size, 8, dtype=dt)
    seen = 0
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    for t in range(2):
        x, y = _task(lib, dt, t, n=24, seed=28)
        for step in range(3):
            xb, yb = x[step * 8 : step * 8 + 8], y[step * 8 : step * 8 + 8]
            opt.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            if seen:
                idx = lib.randint(0, min(seen, size), (6,), generator=g)
                rx, ry, rl = bx[idx], by[idx], bl[idx]
                r_out = model(rx)
                loss = loss + 0.3 * F.mse_loss(r_out, rl) + 0.5 * F.cross_entropy(r_out, ry)
            loss.backward()
            opt.step()
            rec(f"t{t}.s{step}", loss)
            for i in range(xb.shape[0]):
                j = seen if seen < size else int(lib.randint(0, seen + 1, (), generator=g))
                if j < size:
                    bx[j], by[j], bl[j] = xb[i], yb[i], out[i].detach()
                seen += 1
    rec("by", by)
    rec("bl", bl)
    rec("bl_req", bl.requires_grad)
    # ER-ACE: asymmetric cross entropy masks classes not present in the current batch
    out = model(x[:8])
    present = lib.zeros(8, dtype=lib.bool)
    present[y[:8].unique()] = True
    rec("present", present)
    masked = out.masked_fill(~present, -1e9)
    rec("ace", F.cross_entropy(masked, y[:8]))
    m2 = lib.where(present, out, lib.tensor(float("-inf"), dtype=dt))
    rec("ace_inf", F.cross_entropy(m2, y[:8]))
    l2 = F.cross_entropy(m2, y[:8])
    l2.backward()
    rec("ace_g", model[2].bias.grad)


def p_icarl(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(29)
    feat = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 5)).to(dt)
    x, y = _task(lib, dt, 0, n=40, seed=30)
    with lib.no_grad():
        phi = F.normalize(feat(x), p=2, dim=1)
    rec("phi_norm", phi.norm(dim=1))
    exemplars = {}
    for c in y.unique().tolist():
        fc = phi[y == c]
        mu = fc.mean(0)
        chosen = []
        acc = lib.zeros_like(mu)
        for k in range(1, min(4, fc.shape[0]) + 1):
            dist = ((mu - (acc + fc) / k) ** 2).sum(1)
            if chosen:
                dist[lib.tensor(chosen)] = float("inf")
            i = int(dist.argmin())
            chosen.append(i)
            acc += fc[i]
        exemplars[c] = chosen
    rec("ex", str(exemplars))
    means = lib.stack([F.normalize(phi[y == c][lib.tensor(ix)].mean(0), dim=0)
                       for c, ix in sorted(exemplars.items())])  # fmt: skip
    rec("means", means)
    d = lib.cdist(phi, means)
    rec("cdist", d)
    classes = lib.tensor(sorted(exemplars))
    rec("nme_pred", classes[d.argmin(1)])
    # iCaRL's BCE with old-class targets from the previous network's sigmoid
    head = lib.nn.Linear(5, 8).to(dt)
    old = copy.deepcopy(head)
    with lib.no_grad():
        old.weight.mul_(0.5)
    logits = head(feat(x))
    onehot = F.one_hot(y, 8).to(dt)
    with lib.no_grad():
        tgt_old = lib.sigmoid(old(feat(x)))
    tgt = lib.cat([tgt_old[:, :2], onehot[:, 2:]], 1)
    loss = F.binary_cross_entropy_with_logits(logits, tgt)
    loss.backward()
    rec("bce", loss)
    rec("g", head.weight.grad)
    rec("pw", F.binary_cross_entropy_with_logits(logits, tgt, pos_weight=lib.full((8,), 2.0,
                                                 dtype=dt)))  # fmt: skip
    rec("bce_prob", F.binary_cross_entropy(lib.sigmoid(logits), tgt, reduction="sum"))
    # cosine-normalised classifier (LUCIR-style)
    w = F.normalize(head.weight, dim=1)
    cos = F.normalize(feat(x), dim=1) @ w.T
    rec("cos", cos[:3])
    rec("lucir_margin", F.margin_ranking_loss(cos[:, 0], cos[:, 1], lib.ones(40, dtype=dt),
                                              margin=0.2))  # fmt: skip
    rec("emb_loss", F.cosine_embedding_loss(feat(x[:6]), feat(x[6:12]), lib.ones(6, dtype=dt)))


def p_mas(lib, dt, rec):
    # memory aware synapses: importance = mean |d ||f(x)||^2 / d theta| over unlabelled data
    model = _mlp(lib, dt, seed=31)
    x, _ = _task(lib, dt, 0, n=10, seed=32)
    imp = {n: lib.zeros_like(p) for n, p in model.named_parameters()}
    for i in range(x.shape[0]):
        model.zero_grad()
        out = model(x[i : i + 1])
        out.pow(2).sum().backward()
        for n, p in model.named_parameters():
            imp[n] += p.grad.abs()
    imp = {n: v / x.shape[0] for n, v in imp.items()}
    for n, v in imp.items():
        rec("imp." + n, v)
    # the batched version: the l2 norm per sample via jacrev of the output w.r.t. params
    params = dict(model.named_parameters())

    def f(p, xi):
        return lib.func.functional_call(model, p, (xi,)).pow(2).sum()

    per = lib.func.vmap(lib.func.jacrev(f), in_dims=(None, 0))(
        {k: v.detach() for k, v in params.items()}, x
    )
    for n in imp:
        rec("same." + n, lib.allclose(per[n].abs().mean(0), imp[n]))
    # importance-weighted regulariser and its gradient by autograd.grad with create_graph
    anchor = {n: p.detach() + 0.1 for n, p in params.items()}
    reg = sum((imp[n] * (p - anchor[n]) ** 2).sum() for n, p in params.items())
    gs = lib.autograd.grad(reg, list(params.values()), create_graph=True)
    rec("reg", reg)
    rec("g0", gs[0])
    hv = lib.autograd.grad(sum(g.sum() for g in gs), list(params.values()))
    rec("hv0", hv[0])
    rec("hv_eq", lib.allclose(hv[0], 2 * imp["0.weight"]))


def p_packnet(lib, dt, rec):
    # PackNet-style pruning per task: magnitude masks by kthvalue/quantile, gradient hooks
    model = _mlp(lib, dt, seed=33)
    x0, y0 = _task(lib, dt, 0, seed=34)
    _train(lib, model, x0, y0 % 8, steps=4)
    masks = {}
    owner = {}
    for n, p in model.named_parameters():
        if p.dim() < 2:
            continue
        flat = p.detach().abs().flatten()
        k = int(0.5 * flat.numel())
        thr = flat.kthvalue(k).values
        masks[n] = p.detach().abs() > thr
        rec("thr." + n, thr)
        rec("q." + n, lib.quantile(flat, 0.5, interpolation="lower"))
        owner[n] = lib.where(masks[n], lib.tensor(0), lib.tensor(-1))
        with lib.no_grad():
            p.mul_(masks[n])
    rec("kept", lib.stack([m.sum() for m in masks.values()]))
    handles = []
    for n, p in model.named_parameters():
        if n in masks:
            free = ~masks[n]
            handles.append(p.register_hook(lambda g, free=free: g * free))
    x1, y1 = _task(lib, dt, 1, seed=34)
    frozen = {n: p.detach().clone() for n, p in model.named_parameters()}
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x1[:16]), y1[:16] % 8).backward()
        opt.step()
    for n, p in model.named_parameters():
        if n in masks:
            rec("kept_same." + n, lib.equal(p[masks[n]], frozen[n][masks[n]]))
            rec("g." + n, p.grad)
    for h in handles:
        h.remove()
    rec.params("p", model)
    # evaluate task 0 with the later weights masked out
    with lib.no_grad():
        m0 = copy.deepcopy(model)
        for n, p in m0.named_parameters():
            if n in masks:
                p.mul_(masks[n].to(p.dtype))
        rec("t0_out", m0(x0[:4]))
    # torch.nn.utils.prune on a copy
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    m1 = copy.deepcopy(model)
    prune.l1_unstructured(m1[0], "weight", amount=0.3)
    rec("pruned_names", str(sorted(n for n, _ in m1.named_buffers())))
    rec("pruned_mask", m1[0].weight_mask)
    rec("is_pruned", prune.is_pruned(m1))
    prune.remove(m1[0], "weight")
    rec("after_remove", str(sorted(n for n, _ in m1.named_parameters())))
    rec("zeros", (m1[0].weight == 0).sum())


def p_hat(lib, dt, rec):
    # hard attention to the task: per-task embeddings gate hidden units through sigmoid(s * e)
    F = lib.nn.functional

    class HAT(lib.nn.Module):
        def __init__(self, ntasks):
            super().__init__()
            self.fc1 = lib.nn.Linear(6, 10)
            self.fc2 = lib.nn.Linear(10, 8)
            self.emb = lib.nn.Embedding(ntasks, 10)

        def mask(self, t, s):
            return lib.sigmoid(s * self.emb(lib.tensor([t])))

        def forward(self, x, t, s):
            m = self.mask(t, s)
            return self.fc2(F.relu(self.fc1(x)) * m), m

    lib.manual_seed(35)
    net = HAT(2).to(dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.05)
    smax = 50.0
    prev = None
    for t in range(2):
        x, y = _task(lib, dt, t, seed=36)
        for step in range(4):
            s = 1 / smax + (smax - 1 / smax) * step / 3
            opt.zero_grad()
            out, m = net(x[:16], t, s)
            reg = m.sum() / m.numel() if prev is None else (m * (1 - prev)).sum() / (1 - prev).sum()
            loss = F.cross_entropy(out, y[:16] % 8) + 0.75 * reg
            loss.backward()
            if prev is not None:
                net.fc1.weight.grad *= (1 - prev).view(-1, 1)
                net.fc1.bias.grad *= (1 - prev).view(-1)
            # the embedding gradient compensation of HAT
            num = lib.cosh(lib.clamp(s * net.emb.weight.data, -50, 50)) + 1
            den = lib.cosh(net.emb.weight.data) + 1
            net.emb.weight.grad *= smax / s * num / den
            lib.nn.utils.clip_grad_norm_(net.parameters(), 10000.0)
            opt.step()
            with lib.no_grad():
                net.emb.weight.clamp_(-6, 6)
            rec(f"t{t}.s{step}", loss)
        m = net.mask(t, smax).detach().view(-1)
        prev = m if prev is None else lib.maximum(prev, m)
        rec(f"t{t}.mask", prev)
    rec.params("p", net)
    rec("emb_grad_sparse", net.emb.weight.grad)


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    model = _mlp(lib, dt, seed=37)
    x, y = _task(lib, dt, 0, n=4, seed=38)
    out = model(x)
    rec.err("grad_nonscalar", lambda: lib.autograd.grad(out, list(model.parameters())))
    extra = lib.nn.Parameter(lib.ones(2, dtype=dt))
    loss = F.cross_entropy(out, y % 8)
    rec.err("unused", lambda: lib.autograd.grad(loss, [extra], retain_graph=True))
    g = lib.autograd.grad(loss, [model[0].weight, extra], allow_unused=True, retain_graph=True)
    rec("unused_none", str(g[1]))
    g = lib.autograd.grad(loss, [extra], allow_unused=True, materialize_grads=True)
    rec("materialized", g[0])
    rec.err("deepcopy_nonleaf", lambda: copy.deepcopy(out))
    rec.err("v2p", lambda: lib.nn.utils.vector_to_parameters(lib.zeros(3, dtype=dt),
                                                             model.parameters()))  # fmt: skip
    rec.err("p2v_type", lambda: lib.nn.utils.parameters_to_vector(lib.zeros(3)))
    rec.err("masked_fill_int", lambda: out.masked_fill(lib.zeros(4, 8, dtype=lib.long), 0.0))
    rec.err("masked_fill_shape", lambda: out.masked_fill(lib.zeros(3, 8, dtype=lib.bool), 0.0))
    rec.err("kl_mean", lambda: F.kl_div(F.log_softmax(out, 1), F.softmax(out, 1)))
    rec.err("kl_shape", lambda: F.kl_div(lib.zeros(4, 8, dtype=dt), lib.zeros(4, 7, dtype=dt)))
    allinf = lib.full((2, 3), float("-inf"), dtype=dt)
    rec("allinf", F.cross_entropy(allinf, lib.tensor([0, 1])))
    rec("allinf_none", F.cross_entropy(allinf, lib.tensor([0, 1]), reduction="none"))
    rec.err("ce_target", lambda: F.cross_entropy(out, lib.tensor([0, 1, 2, 8])))
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1]), 1))
    rec.err("multinomial_many", lambda: lib.multinomial(lib.tensor([0.5, 0.5]), 3))
    rec.err("randperm_gen", lambda: lib.randint(0, 0, (1,)))
    rec.err("load_type", lambda: model.load_state_dict({"0.weight": 1.0}, strict=False))
    rec.err("inplace_leaf", lambda: model[0].weight.mul_(2))
    bnm = _mlp(lib, dt, bn=True).eval()
    rec("vmap_bn_eval", lib.func.vmap(lambda xi: bnm(xi.unsqueeze(0)))(x))
    rec.err("vmap_rand", lambda: lib.func.vmap(lambda xi: xi + lib.randn(()))(x))
    rec.err("bn_batch1", lambda: _mlp(lib, dt, bn=True)(x[:1]))
    rec.err("register_buffer_dot", lambda: model.register_buffer("a.b", lib.zeros(1)))
    rec.err("register_buffer_param", lambda: model.register_buffer("x", lib.nn.Parameter(
        lib.zeros(1))))  # fmt: skip
    rec.err("grad_no_req", lambda: lib.autograd.grad(x.sum(), [x]))


def p_task_optim(lib, dt, rec):
    # per-task optimiser handling: add_param_group for a new head, a reset per task, schedulers
    F = lib.nn.functional
    lib.manual_seed(39)
    trunk = lib.nn.Linear(6, 8).to(dt)
    heads = lib.nn.ModuleDict()
    opt = None
    sched = None
    for t in range(3):
        heads[f"task{t}"] = lib.nn.Linear(8, 4).to(dt)
        if opt is None:
            opt = lib.optim.Adam(list(trunk.parameters()) + list(heads[f"task{t}"].parameters()),
                                 lr=0.01)  # fmt: skip
        else:
            opt.add_param_group({"params": heads[f"task{t}"].parameters(), "lr": 0.05})
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        x, y = _task(lib, dt, t, seed=40)
        for _ in range(3):
            opt.zero_grad(set_to_none=(t != 1))
            loss = F.cross_entropy(heads[f"task{t}"](F.relu(trunk(x[:16]))), y[:16] - 4 * t)
            loss.backward()
            opt.step()
            sched.step()
        rec(f"t{t}.loss", loss)
        rec(f"t{t}.lrs", [g["lr"] for g in opt.param_groups])
        rec(f"t{t}.ngroups", len(opt.param_groups))
        rec(f"t{t}.last_lr", sched.get_last_lr())
        rec(f"t{t}.grads_none", str([p.grad is None for p in heads.parameters()]))
    rec("keys", str(list(heads.keys())))
    rec("sd_keys", str(list(heads.state_dict().keys())))
    # resetting Adam state between tasks
    opt.state.clear()
    rec("state_len", len(opt.state))
    sd = opt.state_dict()
    rec("sd_groups", str([g["params"] for g in sd["param_groups"]]))
    # a second optimiser on the trunk only with weight decay (L2 towards zero vs towards anchor)
    anchor = trunk.weight.detach().clone()
    sgd = lib.optim.SGD(trunk.parameters(), lr=0.1, weight_decay=0.01)
    for _ in range(2):
        sgd.zero_grad()
        ((trunk.weight - anchor) ** 2).sum().backward()
        sgd.step()
    rec("trunk", trunk.weight)
    rec("adamw", _adamw_step(lib, dt))


def _adamw_step(lib, dt):
    p = lib.nn.Parameter(lib.linspace(-1, 1, 6, dtype=dt))
    o = lib.optim.AdamW([p], lr=0.1, weight_decay=0.1, amsgrad=True)
    for _ in range(3):
        o.zero_grad()
        (p**3).sum().backward()
        o.step()
    return p


def p_ensemble_func(lib, dt, rec):
    # per-task expert models stacked with torch.func.stack_module_state and evaluated by vmap
    models = [_mlp(lib, dt, seed=41 + i) for i in range(3)]
    params, buffers = lib.func.stack_module_state(models)
    rec("keys", str(list(params.keys())))
    rec("shape", str(params["0.weight"].shape))
    rec("req", params["0.weight"].requires_grad)
    base = copy.deepcopy(models[0]).to("meta")
    rec("meta", str(base[0].weight.device))

    def fmodel(p, b, x):
        return lib.func.functional_call(base, (p, b), (x,))

    x, y = _task(lib, dt, 0, n=5, seed=42)
    out = lib.func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    for i, m in enumerate(models):
        rec(f"same{i}", lib.allclose(out[i], m(x)))
    # task-specific experts: each sample routed to its task's expert
    task = lib.tensor([0, 2, 1, 0, 2])
    routed = lib.func.vmap(fmodel, in_dims=(0, 0, 0))(
        {k: v[task] for k, v in params.items()},
        {k: v[task] for k, v in buffers.items()},
        x.unsqueeze(1),
    )
    rec("routed", routed.squeeze(1))
    # gradients flow to the stacked parameters
    loss = lib.nn.functional.cross_entropy(out.mean(0), y % 8)
    loss.backward()
    rec("g", params["2.bias"].grad)

    # the per-model loss and its gradient by vmap(grad)
    def lossf(p, b):
        return lib.nn.functional.cross_entropy(fmodel(p, b, x), y % 8)

    det = {k: v.detach() for k, v in params.items()}
    grads = lib.func.vmap(lib.func.grad(lossf))(det, buffers)
    rec("vg", grads["2.bias"])
    # mean of experts (a merged model by weight averaging), loaded into a fresh copy
    merged = copy.deepcopy(models[0])
    merged.load_state_dict({k: v.mean(0) for k, v in det.items()})
    rec("merged", merged(x))
    rec("math", math.isfinite(float(merged(x).sum())))


def p_si_hooks(lib, dt, rec):
    # SI accumulated by post-accumulate-grad hooks: the path integral sums -g * delta per step
    model = _mlp(lib, dt, seed=43)
    state = {}
    for n, p in model.named_parameters():
        state[n] = {"prev": p.detach().clone(), "w": lib.zeros_like(p), "g": None}

    def hook(p, n):
        state[n]["g"] = p.grad.detach().clone()

    handles = [p.register_post_accumulate_grad_hook(lambda p, n=n: hook(p, n))
               for n, p in model.named_parameters()]  # fmt: skip
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    x, y = _task(lib, dt, 0, seed=44)
    for step in range(4):
        opt.zero_grad()
        xb, yb = x[step * 8 : step * 8 + 8], y[step * 8 : step * 8 + 8]
        lib.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
        for n, p in model.named_parameters():
            s = state[n]
            s["w"] -= s["g"] * (p.detach() - s["prev"])
            s["prev"].copy_(p.detach())
    for n in state:
        rec("w." + n, state[n]["w"])
    for h in handles:
        h.remove()
    opt.zero_grad()
    model(x).sum().backward()
    rec("after_remove", str(state["0.bias"]["g"].shape))
    rec("momentum", opt.state[model[0].weight]["momentum_buffer"])
    # the accumulated grad hook fires once per backward, after accumulation
    calls = []
    p = model[2].bias
    h = p.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.clone()))
    model.zero_grad(set_to_none=False)
    out = model(x[:3])
    out.sum().backward(retain_graph=True)
    out.pow(2).sum().backward()
    h.remove()
    rec("calls", len(calls))
    rec("acc", calls[1] - calls[0])
    rec.err("nonleaf_hook", lambda: out.register_post_accumulate_grad_hook(lambda t: None))


def p_replay_loader(lib, dt, rec):
    # experience replay through the data API: ConcatDataset of the current task and a memory
    # Subset, WeightedRandomSampler to balance them, DataLoader under a generator
    data = lib.utils.data
    tasks = [data.TensorDataset(*_task(lib, dt, t, n=20, seed=45)) for t in range(3)]
    g = lib.Generator().manual_seed(46)
    mem = []
    for t in range(2):
        idx = lib.randperm(len(tasks[t]), generator=g)[:5].tolist()
        mem.append(data.Subset(tasks[t], idx))
        rec(f"mem{t}", idx)
    cur = tasks[2]
    full = data.ConcatDataset([cur, *mem])
    rec("len", len(full))
    rec("cum", full.cumulative_sizes)
    w = lib.cat([lib.full((len(cur),), 1.0 / len(cur)), lib.full((10,), 1.0 / 10)]).double()
    sampler = data.WeightedRandomSampler(w, num_samples=16, replacement=True,
                                         generator=lib.Generator().manual_seed(47))  # fmt: skip
    loader = data.DataLoader(full, batch_size=4, sampler=sampler)
    model = _mlp(lib, dt, out=12, seed=48)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for i, (xb, yb) in enumerate(loader):
        rec(f"b{i}.y", yb)
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        rec(f"b{i}.loss", loss)
    rec("nbatches", len(loader))
    # random_split with fractions for a validation slice per task
    tr, va = data.random_split(cur, [0.75, 0.25], generator=lib.Generator().manual_seed(49))
    rec("split", [len(tr), len(va)])
    rec("va_idx", va.indices)

    # a shuffled loader over the memory with drop_last and a collate_fn adding the task id
    def collate(batch):
        xs, ys = zip(*batch, strict=True)
        return lib.stack(xs), lib.stack(ys), lib.stack(ys) // 4

    ml = data.DataLoader(data.ConcatDataset(mem), batch_size=3, shuffle=True, drop_last=True,
                         collate_fn=collate, generator=lib.Generator().manual_seed(50))  # fmt: skip
    rec("mem_batches", [b[2].tolist() for b in ml])
    rec("mem_len", len(ml))
    # a sequential sampler over a BatchSampler
    bs = data.BatchSampler(data.SequentialSampler(range(7)), batch_size=3, drop_last=False)
    rec("bs", str(list(bs)))
    rs = data.RandomSampler(range(10), num_samples=4, generator=lib.Generator().manual_seed(51))
    rec("rs", list(rs))


def p_bn_conv(lib, dt, rec):
    # a small conv net with BatchNorm2d: per-task BN statistics stored and swapped in
    F = lib.nn.functional
    lib.manual_seed(52)
    net = lib.nn.Sequential(
        lib.nn.Conv2d(1, 3, 3, padding=1), lib.nn.BatchNorm2d(3), lib.nn.ReLU(),
        lib.nn.AdaptiveAvgPool2d(1), lib.nn.Flatten(), lib.nn.Linear(3, 4),
    ).to(dt)  # fmt: skip
    g = lib.Generator().manual_seed(53)
    bn_states = {}
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    for t in range(2):
        x = lib.randn(8, 1, 6, 6, generator=g, dtype=dt) * (1 + t) + t
        y = lib.randint(0, 4, (8,), generator=g)
        net.train()
        for _ in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
        rec(f"t{t}.loss", loss)
        bn_states[t] = {k: v.clone() for k, v in net[1].state_dict().items()}
        rec(f"t{t}.keys", str(list(bn_states[t].keys())))
        rec(f"t{t}.rv", bn_states[t]["running_var"])
    net.eval()
    x = lib.randn(4, 1, 6, 6, generator=g, dtype=dt)
    outs = []
    for t in range(2):
        net[1].load_state_dict(bn_states[t])
        with lib.no_grad():
            outs.append(net(x))
    rec("outs", lib.stack(outs))
    # fuse conv and bn for deployment
    fused = lib.nn.utils.fusion.fuse_conv_bn_eval(net[0], net[1])
    with lib.no_grad():
        rec("fused", fused(x) - net[1](net[0](x)))
    # replace_all_batch_norm_modules_ for per-sample grads by vmap
    lib.func.replace_all_batch_norm_modules_(net)
    rec("rm_after", str(net[1].running_mean))
    rec("track", net[1].track_running_stats)
    net.train()
    params = {k: v.detach() for k, v in net.named_parameters()}

    def lf(p, xi, yi):
        return F.cross_entropy(lib.func.functional_call(net, p, (xi.unsqueeze(0),)), yi.view(1))

    ys = lib.tensor([0, 1, 2, 3])
    per = lib.func.vmap(lib.func.grad(lf), in_dims=(None, 0, 0))(params, x, ys)
    rec("per_bias", per["5.bias"])
    rec("per_conv", per["0.weight"].flatten(1).norm(dim=1))


def p_kd_dist(lib, dt, rec):
    # distillation written with torch.distributions: KL between Categorical teacher and student
    D = lib.distributions
    F = lib.nn.functional
    g = lib.Generator().manual_seed(54)
    s_logits = lib.randn(6, 5, generator=g, dtype=dt, requires_grad=True)
    t_logits = lib.randn(6, 5, generator=g, dtype=dt)
    for T in (1.0, 3.0):
        p_s = D.Categorical(logits=s_logits / T)
        p_t = D.Categorical(logits=t_logits / T)
        kl = D.kl_divergence(p_t, p_s)
        rec(f"T{T}.kl", kl)
        ref = F.kl_div(F.log_softmax(s_logits / T, -1), F.log_softmax(t_logits / T, -1),
                       reduction="none", log_target=True).sum(-1)  # fmt: skip
        rec(f"T{T}.same", lib.allclose(kl, ref))
        rec(f"T{T}.ent", p_t.entropy())
        rec(f"T{T}.probs", p_s.probs)
        (g_,) = lib.autograd.grad(kl.mean() * T * T, s_logits)
        rec(f"T{T}.g", g_)
    # the closed form of the distillation gradient: (softmax(s/T) - softmax(t/T)) / T
    T = 3.0
    kd = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1),
                  reduction="batchmean")  # fmt: skip
    (gk,) = lib.autograd.grad(kd, s_logits)
    closed = (lib.softmax(s_logits / T, 1) - lib.softmax(t_logits / T, 1)) / T / 6
    rec("closed", lib.allclose(gk, closed))
    rec("kd", kd)
    # a zero teacher probability contributes 0 (xlogy), not nan
    tgt = lib.tensor([[0.0, 0.5, 0.5, 0.0, 0.0]], dtype=dt)
    rec("zero_t", F.kl_div(F.log_softmax(s_logits[:1], 1), tgt, reduction="sum"))
    rec("xlogy", lib.special.xlogy(tgt, tgt))
    rec("entr", lib.special.entr(tgt))
    # the Hinton loss with mixed hard labels and smoothing
    y = lib.tensor([0, 1, 2, 3, 4, 0])
    hard = F.cross_entropy(s_logits, y, label_smoothing=0.2, reduction="sum")
    rec("hard", hard)
    rec("one_hot_ce", -(F.one_hot(y, 5).to(dt) * F.log_softmax(s_logits, 1)).sum())
    # the JS divergence between two students
    m = 0.5 * (lib.softmax(s_logits, 1) + lib.softmax(t_logits, 1))
    js = 0.5 * (F.kl_div(m.log(), lib.softmax(s_logits, 1), reduction="batchmean")
                + F.kl_div(m.log(), lib.softmax(t_logits, 1), reduction="batchmean"))  # fmt: skip
    rec("js", js)
    rec("log_softmax_dtype", F.log_softmax(s_logits, 1, dtype=lib.float64).dtype)
    rec("softmax_dtype", str(F.softmax(t_logits.float(), 1, dtype=lib.float64).dtype))


def p_module_api(lib, dt, rec):
    # the nn.Module surface continual-learning code walks over
    model = _mlp(lib, dt, bn=True, seed=55)
    model.register_buffer("task_id", lib.tensor(0), persistent=False)
    rec("sd_keys", str(list(model.state_dict().keys())))
    rec("buf_keys", str([n for n, _ in model.named_buffers()]))
    rec("prefixed", str([n for n, _ in model.named_parameters(prefix="net")]))
    rec("nonrec", str([n for n, _ in model.named_parameters(recurse=False)]))
    rec("sub", repr(model.get_submodule("1")))
    rec("getp", model.get_parameter("3.bias"))
    rec("getb", model.get_buffer("1.running_var"))
    rec.err("getp_bad", lambda: model.get_parameter("3.weights"))
    rec.err("getsub_bad", lambda: model.get_submodule("7"))
    keep = model.state_dict(keep_vars=True)
    rec("keep_vars", str([type(v).__name__ for v in keep.values()]))
    rec("keep_req", str([v.requires_grad for v in keep.values()]))
    plain = model.state_dict()
    rec("plain_req", str([v.requires_grad for v in plain.values()]))
    rec("prefix_sd", str(list(model.state_dict(prefix="m.").keys())[:3]))
    # a shared (tied) layer counted once
    lin = lib.nn.Linear(3, 3).to(dt)
    tied = lib.nn.Sequential(lin, lib.nn.ReLU(), lin)
    rec("tied_n", len(list(tied.parameters())))
    rec("tied_dups", str([n for n, _ in tied.named_parameters(remove_duplicate=False)]))
    rec("tied_sd", str(list(tied.state_dict().keys())))
    rec("mods", str([n for n, _ in tied.named_modules()]))
    rec("mods_dup", str([n for n, _ in tied.named_modules(remove_duplicate=False)]))
    # requires_grad_ on a submodule, counting trainable parameters
    model[0].requires_grad_(False)
    rec("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
    rec("frozen", str([n for n, p in model.named_parameters() if not p.requires_grad]))
    # forward pre-hooks injecting a task mask, removable handles
    mask = lib.tensor([1.0, 0, 1, 1, 0, 1], dtype=dt)

    def pre(mod, args):
        return (args[0] * mask,)

    h = model.register_forward_pre_hook(pre)
    x = _task(lib, dt, 0, n=4, seed=56)[0]
    model.eval()
    a = model(x)
    h.remove()
    b = model(x * mask)
    rec("prehook", lib.equal(a, b))

    def post(mod, args, out):
        return out - out.mean(1, keepdim=True)

    h = model[3].register_forward_hook(post)
    rec("posthook", model(x).sum(1))
    h.remove()
    rec("children", len(list(model.children())))
    rec("extra", model[1].extra_repr())
    rec("repr", repr(model))
    rec("half_dtype", str(copy.deepcopy(model).half()[0].weight.dtype))
    rec("train_ret", model.train() is model)
    rec("training", model.training)


def p_gem_legacy(lib, dt, rec):
    # GEM as the original research code writes it: legacy constructors, .data writes on the
    # logits for the other tasks' outputs, a gradient matrix filled column by column
    F = lib.nn.functional
    model = _mlp(lib, dt, out=8, seed=57)
    params = list(model.parameters())
    grad_dims = [p.data.numel() for p in params]
    grads = lib.Tensor(sum(grad_dims), 2).to(dt)
    rec("grads_shape", list(grads.shape))

    def store_grad(tid):
        grads[:, tid].fill_(0.0)
        cnt = 0
        for p in params:
            if p.grad is not None:
                beg = 0 if cnt == 0 else sum(grad_dims[:cnt])
                en = sum(grad_dims[: cnt + 1])
                grads[beg:en, tid].copy_(p.grad.data.view(-1))
            cnt += 1

    def overwrite_grad(newgrad):
        cnt = 0
        for p in params:
            beg = 0 if cnt == 0 else sum(grad_dims[:cnt])
            en = sum(grad_dims[: cnt + 1])
            p.grad.data.copy_(newgrad[beg:en].contiguous().view(p.grad.data.size()))
            cnt += 1

    x0, y0 = _task(lib, dt, 0, seed=58)
    x1, y1 = _task(lib, dt, 1, seed=58)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        model.zero_grad()
        out = model(x0[:8])
        out[:, 4:].data.fill_(-10e10)
        rec(f"s{step}.ver", out._version)
        F.cross_entropy(out, y0[:8]).backward()
        store_grad(0)
        model.zero_grad()
        out = model(x1[step * 8 : step * 8 + 8])
        out[:, :4].data.fill_(-10e10)
        loss = F.cross_entropy(out, y1[step * 8 : step * 8 + 8])
        loss.backward()
        rec(f"s{step}.loss", loss)
        store_grad(1)
        dotp = lib.mm(grads[:, 1].unsqueeze(0), lib.index_select(grads, 1, lib.LongTensor([0])))
        rec(f"s{step}.dotp", dotp)
        if (dotp < 0).sum() != 0:
            g, r = grads[:, 1], grads[:, 0]
            newg = g - (lib.dot(g, r) / lib.dot(r, r)) * r
            overwrite_grad(newg)
        opt.step()
    rec.params("p", model)
    mem = grads.cpu().t().double().numpy()
    rec.err("np_view", lambda: lib.Tensor(mem).view(-1, 1))
    rec("np_strides", lib.Tensor(mem).stride())
    rec("np", lib.Tensor(mem).reshape(-1, 1)[:5])
    rec("np_dtype", str(lib.Tensor(mem).dtype))
    rec("long", lib.LongTensor([1, 3]) + 1)
    rec("type", grads.type())
    rec("is_float", isinstance(grads.float(), lib.FloatTensor))
    rec("new", grads.new(3).zero_())
    rec("new_zeros", grads.new_zeros(2, 3).dtype)


def p_kfac(lib, dt, rec):
    # a Kronecker-factored EWC: activations and output gradients collected by module hooks,
    # factors' eigendecompositions, the penalty in the eigenbasis
    F = lib.nn.functional
    lib.manual_seed(59)
    net = lib.nn.Sequential(lib.nn.Linear(4, 5, bias=False), lib.nn.Tanh(),
                            lib.nn.Linear(5, 3, bias=False)).to(dt)  # fmt: skip
    acts, gouts = {}, {}
    handles = []
    for name, m in net.named_modules():
        if isinstance(m, lib.nn.Linear):

            def fwd(mod, i, o, name=name):
                acts[name] = i[0].detach()

            def bwd(mod, gi, go, name=name):
                gouts[name] = go[0].detach()

            handles.append(m.register_forward_hook(fwd))
            handles.append(m.register_full_backward_hook(bwd))
    g = lib.Generator().manual_seed(60)
    x = lib.randn(12, 4, generator=g, dtype=dt)
    y = lib.randint(0, 3, (12,), generator=g)
    out = net(x)
    F.cross_entropy(out, y, reduction="sum").backward()
    factors = {}
    for name in acts:
        A = acts[name].T @ acts[name] / x.shape[0]
        G = gouts[name].T @ gouts[name] / x.shape[0]
        factors[name] = (A, G)
        rec(f"A.{name}", A)
        rec(f"G.{name}", G)
        ev = lib.linalg.eigh(A)
        rec(f"eigA.{name}", ev.eigenvalues)
        recon = ev.eigenvectors @ lib.diag(ev.eigenvalues) @ ev.eigenvectors.T
        rec(f"recon.{name}", lib.allclose(recon, A, atol=1e-5))
        # the Kronecker product against the empirical per-sample outer products
        kron = lib.kron(G, A)
        rec(f"kron.{name}", kron.shape)
        per = lib.einsum("ni,nj->nij", gouts[name], acts[name]).reshape(x.shape[0], -1)
        rec(f"grad_match.{name}", lib.allclose(per.sum(0).view_as(net.get_submodule(name).weight),
                                               net.get_submodule(name).weight.grad))  # fmt: skip
    for h in handles:
        h.remove()
    anchor = {n: p.detach().clone() for n, p in net.named_parameters()}
    with lib.no_grad():
        for p in net.parameters():
            p.add_(0.01 * lib.ones_like(p))
    pen = 0.0
    for name, (A, G) in factors.items():
        d = net.get_submodule(name).weight - anchor[name + ".weight"]
        pen = pen + (d * (G @ d @ A)).sum()
    rec("pen", pen)
    (gp,) = lib.autograd.grad(pen, [net[0].weight])
    rec("gpen", gp)
    rec("hooks_left", len(net[0]._forward_hooks) + len(net[0]._backward_hooks))


def p_mean_teacher(lib, dt, rec):
    # an EMA teacher (swa_utils.AveragedModel with the EMA multi-avg fn, or by foreach/lerp),
    # consistency loss on the replay buffer, update_bn on a loader
    F = lib.nn.functional
    swa = lib.optim.swa_utils
    student = _mlp(lib, dt, bn=True, seed=61)
    ema = swa.AveragedModel(student, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9), use_buffers=True)
    manual = [p.detach().clone() for p in student.parameters()]
    lerped = [p.detach().clone() for p in student.parameters()]
    x, y = _task(lib, dt, 0, seed=62)
    opt = lib.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        opt.zero_grad()
        out = student(x[step * 8 : step * 8 + 8])
        with lib.no_grad():
            t_out = ema(x[step * 8 : step * 8 + 8])
        loss = F.cross_entropy(out, y[step * 8 : step * 8 + 8] % 8) + F.mse_loss(
            lib.softmax(out, 1), lib.softmax(t_out, 1)
        )
        loss.backward()
        opt.step()
        ema.update_parameters(student)
        cur = [p.detach() for p in student.parameters()]
        lib._foreach_mul_(manual, 0.9)
        lib._foreach_add_(manual, cur, alpha=0.1)
        lib._foreach_lerp_(lerped, cur, 0.1)
        rec(f"s{step}.loss", loss)
    rec("n_avg", ema.n_averaged)
    for (n, p), m, q in zip(ema.module.named_parameters(), manual, lerped, strict=True):
        rec("ema." + n, p)
        rec("man." + n, lib.allclose(p, m) and lib.allclose(p, q))
    rec("ema_rm", ema.module[1].running_mean)
    rec("keys", str(list(ema.state_dict().keys())))
    avg = swa.AveragedModel(student)
    avg.update_parameters(student)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=16)
    swa.update_bn(loader, avg)
    rec("upd_rm", avg.module[1].running_mean)
    rec("upd_rv", avg.module[1].running_var)
    rec("upd_mom", str(avg.module[1].momentum))
    rec("norms", lib.stack(lib._foreach_norm(manual)))
    sl = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    lrs = []
    for _ in range(4):
        opt.step()
        sl.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("swalr", lrs)


class _Binarize:
    """A straight-through threshold (Piggyback's mask binarizer), as a custom Function."""

    @staticmethod
    def make(lib):
        class Binarize(lib.autograd.Function):
            @staticmethod
            def forward(ctx, scores, thr):
                return (scores > thr).to(scores.dtype)

            @staticmethod
            def backward(ctx, g):
                return g, None

        return Binarize


def p_piggyback(lib, dt, rec):
    # per-task binary masks over frozen weights learned by a straight-through estimator, applied
    # by a registered parametrization (state_dict keys, repr, caching, removal)
    P = lib.nn.utils.parametrize
    Binarize = _Binarize.make(lib)

    class TaskMask(lib.nn.Module):
        def __init__(self, shape, ntasks):
            super().__init__()
            self.scores = lib.nn.Parameter(lib.full((ntasks, *shape), 0.01, dtype=dt))
            self.task = 0

        def forward(self, w):
            return w * Binarize.apply(self.scores[self.task], 0.005)

    model = _mlp(lib, dt, seed=63)
    for m in (model[0], model[2]):
        m.weight.requires_grad_(False)
        P.register_parametrization(m, "weight", TaskMask(m.weight.shape, 2))
    rec("keys", str(list(model.state_dict().keys())))
    rec("params", str([n for n, p in model.named_parameters() if p.requires_grad]))
    rec("repr", repr(model[0]))
    rec("is_pz", P.is_parametrized(model[0], "weight"))
    for t in range(2):
        for m in (model[0], model[2]):
            m.parametrizations.weight[0].task = t
        x, y = _task(lib, dt, t, seed=64)
        opt = lib.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
        for _ in range(3):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x[:16]), y[:16] % 8)
            loss.backward()
            opt.step()
            rec(f"t{t}.loss", loss)
        sc = model[0].parametrizations.weight[0].scores
        rec(f"t{t}.g", sc.grad[t])
        rec(f"t{t}.kept", (sc[t] > 0.005).sum())
        rec(f"t{t}.other", sc.grad[1 - t].abs().sum())
    with P.cached():
        a = model[0].weight
        rec("cached_same", a is model[0].weight)
    rec("uncached_same", model[0].weight is model[0].weight)
    snap = copy.deepcopy(model)
    rec("copy_w", snap[2].weight)
    P.remove_parametrizations(model[0], "weight", leave_parametrized=True)
    rec("removed", str([n for n, _ in model[0].named_parameters()]))
    rec("w_req", model[0].weight.requires_grad)
    rec("w", model[0].weight)


def p_buffer_module(lib, dt, rec):
    # a replay memory kept as module buffers that grow; a state_dict pre-hook resizes them
    # before loading, so a checkpoint of a full memory loads into an empty one
    class Memory(lib.nn.Module):
        def __init__(self, cap):
            super().__init__()
            self.cap = cap
            self.register_buffer("xs", lib.empty(0, 6, dtype=dt))
            self.register_buffer("ys", lib.empty(0, dtype=lib.long))
            self.register_buffer("n_seen", lib.tensor(0))
            self._register_load_state_dict_pre_hook(self._resize)

        def _resize(self, state_dict, prefix, *args):
            for k in ("xs", "ys"):
                if prefix + k in state_dict:
                    setattr(self, k, lib.empty_like(state_dict[prefix + k]))

        def add(self, x, y):
            room = self.cap - self.xs.shape[0]
            self.xs = lib.cat([self.xs, x[:room]])
            self.ys = lib.cat([self.ys, y[:room]])
            self.n_seen += x.shape[0]

    mem = Memory(10)
    rec("empty_keys", str(list(mem.state_dict().keys())))
    for t in range(2):
        x, y = _task(lib, dt, t, n=7, seed=65)
        mem.add(x, y)
        rec(f"t{t}.shape", list(mem.xs.shape))
    rec("ys", mem.ys)
    rec("n_seen", mem.n_seen)
    buf = io.BytesIO()
    lib.save(mem.state_dict(), buf)
    buf.seek(0)
    fresh = Memory(10)
    rec("load", str(fresh.load_state_dict(lib.load(buf))))
    rec("fresh_xs", fresh.xs)
    rec("fresh_n", fresh.n_seen)
    plain = Memory(10)
    plain._load_state_dict_pre_hooks.clear()
    rec.err("mismatch", lambda: plain.load_state_dict(mem.state_dict()))
    # in a parent module, prefixed
    parent = lib.nn.Module()
    parent.mem = Memory(10)
    parent.net = _mlp(lib, dt, seed=66)
    state = {"mem." + k: v for k, v in mem.state_dict().items()}
    state.update({"net." + k: v for k, v in parent.net.state_dict().items()})
    rec("parent_load", str(parent.load_state_dict(state)))
    rec("parent_ys", parent.mem.ys)
    rec("parent_keys", str(list(parent.state_dict().keys())))
    # a post hook that reports, and the incompatible-keys object it can edit
    seen = []
    h = parent.register_load_state_dict_post_hook(
        lambda mod, inc: seen.append((list(inc.missing_keys), list(inc.unexpected_keys)))
    )
    state["extra"] = lib.zeros(1)
    parent.load_state_dict(state, strict=False)
    h.remove()
    rec("post", str(seen))
    rec("to_dt", str(parent.to(lib.float64).mem.ys.dtype))


def p_laplace(lib, dt, rec):
    # curvature for the quadratic penalty: the Hessian diagonal by vmap(jvp(grad)), the full
    # Hessian by torch.func.hessian and autograd.functional, hvp and vhp
    F = lib.nn.functional
    lib.manual_seed(67)
    lin = lib.nn.Linear(3, 2).to(dt)
    x, y = _task(lib, dt, 0, n=10, d=3, c=2, seed=68)
    names = [n for n, _ in lin.named_parameters()]
    shapes = [p.shape for p in lin.parameters()]
    flat0 = lib.nn.utils.parameters_to_vector(lin.parameters()).detach()

    def loss_flat(v):
        ps, i = {}, 0
        for n, s in zip(names, shapes, strict=True):
            k = math.prod(s)
            ps[n] = v[i : i + k].view(s)
            i += k
        return F.cross_entropy(lib.func.functional_call(lin, ps, (x,)), y)

    H = lib.func.hessian(loss_flat)(flat0)
    rec("H", H)
    rec("sym", lib.allclose(H, H.T))
    H2 = lib.autograd.functional.hessian(loss_flat, flat0)
    rec("H_same", lib.allclose(H, H2))
    diag = lib.func.vmap(lambda v: lib.func.jvp(lib.func.grad(loss_flat), (flat0,), (v,))[1])(
        lib.eye(flat0.numel(), dtype=dt)
    ).diagonal()
    rec("diag", diag)
    v = lib.linspace(-1, 1, flat0.numel(), dtype=dt)
    rec("hvp", lib.autograd.functional.hvp(loss_flat, flat0, v)[1])
    rec("vhp", lib.autograd.functional.vhp(loss_flat, flat0, v)[1])
    rec("Hv", H @ v)
    ev = lib.linalg.eigvalsh(H)
    rec("eig", ev)
    # the Laplace posterior precision and a sample from it
    prec = H + 0.1 * lib.eye(flat0.numel(), dtype=dt)
    L = lib.linalg.cholesky(prec)
    rec("L", L)
    g = lib.Generator().manual_seed(69)
    z = lib.randn(flat0.numel(), generator=g, dtype=dt)
    sample = flat0 + lib.linalg.solve_triangular(L.T, z.unsqueeze(1), upper=True).squeeze(1)
    rec("sample", sample)
    mvn = lib.distributions.MultivariateNormal(flat0, precision_matrix=prec)
    rec("logp", mvn.log_prob(sample))
    rec("ent", mvn.entropy())


def p_gpm(lib, dt, rec):
    # gradient projection memory: bases of each task's representation space by SVD with an
    # energy threshold; later gradients are projected out of the stored spans
    F = lib.nn.functional
    lib.manual_seed(70)
    net = lib.nn.Sequential(lib.nn.Linear(6, 8, bias=False), lib.nn.ReLU(),
                            lib.nn.Linear(8, 12, bias=False)).to(dt)  # fmt: skip
    feats = {}
    net[2].register_forward_pre_hook(lambda m, a: feats.__setitem__("2", a[0].detach()))
    bases = {"0": None, "2": None}
    for t in range(3):
        x, y = _task(lib, dt, t, n=24, seed=71)
        opt = lib.optim.SGD(net.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(net(x), y).backward()
            if t:
                for name, layer in (("0", net[0]), ("2", net[2])):
                    U = bases[name]
                    layer.weight.grad.sub_(layer.weight.grad @ U @ U.T)
            opt.step()
        with lib.no_grad():
            net(x)
        reps = {"0": x.T, "2": feats["2"].T}
        for name, R in reps.items():
            if bases[name] is not None:
                U = bases[name]
                total = (R**2).sum()
                R = R - U @ (U.T @ R)
                u, s, _ = lib.linalg.svd(R, full_matrices=False)
                acc = (s**2).cumsum(0) / total
                k = int((acc < 0.97 - (1 - (s**2).sum() / total)).sum())
                bases[name] = lib.cat([U, u[:, :k]], dim=1)[:, : R.shape[0]]
            else:
                u, s, _ = lib.linalg.svd(R, full_matrices=False)
                ratio = (s**2).cumsum(0) / (s**2).sum()
                k = int((ratio < 0.97).sum()) + 1
                rec(f"t{t}.{name}.ratio", ratio)
                bases[name] = u[:, :k]
            rec(f"t{t}.{name}.k", bases[name].shape[1])
            P = bases[name] @ bases[name].T
            rec(f"t{t}.{name}.P", P)
            rec(f"t{t}.{name}.idem", lib.allclose(P @ P, P, atol=1e-5))
    rec.params("p", net)
    # the span's orthonormality and the QR of the stacked basis
    U = bases["2"]
    rec("orth", lib.allclose(U.T @ U, lib.eye(U.shape[1], dtype=dt), atol=1e-6))
    q, r = lib.linalg.qr(U)
    rec("qr_r", r.abs())
    rec("rank", lib.linalg.matrix_rank(U))


def p_prototypes(lib, dt, rec):
    # nearest-class-mean classification with class means kept by scatter_reduce / index_add,
    # a running update as new tasks arrive, and prototype drift compensation
    F = lib.nn.functional
    lib.manual_seed(72)
    enc = lib.nn.Sequential(lib.nn.Linear(6, 5), lib.nn.GELU()).to(dt)
    sums = lib.zeros(12, 5, dtype=dt)
    counts = lib.zeros(12, dtype=dt)
    for t in range(3):
        x, y = _task(lib, dt, t, n=20, seed=73)
        with lib.no_grad():
            z = F.normalize(enc(x), dim=1)
        sums.index_add_(0, y, z)
        counts.index_add_(0, y, lib.ones_like(y, dtype=dt))
        means = lib.zeros(12, 5, dtype=dt).scatter_reduce(
            0, y.unsqueeze(1).expand(-1, 5), z, reduce="mean", include_self=False
        )
        rec(f"t{t}.means", means)
        amax = lib.zeros(12, 5, dtype=dt).scatter_reduce(
            0, y.unsqueeze(1).expand(-1, 5), z, reduce="amax", include_self=False
        )
        rec(f"t{t}.amax", amax)
        seen = counts > 0
        protos = sums[seen] / counts[seen].unsqueeze(1)
        labels = lib.arange(12)[seen]
        d = lib.cdist(z, protos)
        rec(f"t{t}.pred", labels[d.argmin(1)])
        rec(f"t{t}.acc", (labels[d.argmin(1)] == y).to(dt).mean())
        logits = -(lib.cdist(z, protos) ** 2)
        tgt = lib.searchsorted(labels, y)
        rec(f"t{t}.tgt", tgt)
        rec(f"t{t}.ce", F.cross_entropy(logits, tgt))
    rec("counts", counts)
    # drift compensation: move each old prototype by a Gaussian-kernel-weighted mean drift
    x, _ = _task(lib, dt, 2, n=20, seed=74)
    with lib.no_grad():
        z_old = enc(x)
        enc[0].weight.mul_(1.1)
        z_new = enc(x)
    drift = z_new - z_old
    protos = sums[:8] / counts[:8].clamp(min=1).unsqueeze(1)
    w = lib.exp(-(lib.cdist(protos, z_old) ** 2) / (2 * 0.5**2))
    comp = (w @ drift) / w.sum(1, keepdim=True).clamp(min=1e-12)
    rec("comp", comp)
    rec("pdist", lib.pdist(protos[:4]))
    rec("cos", F.cosine_similarity(protos[:, None], protos[None], dim=-1)[:3])
    # gradients through the prototype loss flow into the encoder
    z = enc(x)
    protos_t = lib.stack([z[:5].mean(0), z[5:10].mean(0)])
    loss = F.cross_entropy(-lib.cdist(z[10:], protos_t), lib.tensor([0, 1] * 5))
    loss.backward()
    rec("g", enc[0].weight.grad)


def p_ogd(lib, dt, rec):
    # orthogonal gradient descent: stored gradient directions orthonormalised by Gram-Schmidt
    # (and by QR); new gradients are projected onto their orthogonal complement
    F = lib.nn.functional
    model = _mlp(lib, dt, out=8, seed=75)
    basis = []
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for t in range(2):
        x, y = _task(lib, dt, t, n=16, seed=76)
        for step in range(3):
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            g = lib.nn.utils.parameters_to_vector([p.grad for p in model.parameters()])
            for b in basis:
                g = g - lib.dot(g, b) * b
            if basis:
                rec(f"t{t}.s{step}.ortho", lib.stack([lib.dot(g, b) for b in basis]).abs().max())
            i = 0
            for p in model.parameters():
                n = p.numel()
                p.grad.copy_(g[i : i + n].view_as(p))
                i += n
            opt.step()
        # store the logit gradients of a few samples, orthonormalised
        for j in range(3):
            model.zero_grad()
            model(x[j : j + 1])[0, y[j]].backward()
            v = lib.nn.utils.parameters_to_vector([p.grad for p in model.parameters()]).clone()
            for b in basis:
                v -= lib.dot(v, b) * b
            if v.norm() > 1e-8:
                basis.append(v / v.norm())
        rec(f"t{t}.nbasis", len(basis))
    B = lib.stack(basis, 1)
    rec("gram", B.T @ B)
    q, r = lib.linalg.qr(B)
    rec("qr_diag", r.diagonal().abs())
    rec("proj_eq", lib.allclose(q @ q.T, B @ B.T, atol=1e-6))
    rec.params("p", model)


def p_errors2(lib, dt, rec):
    # the mistakes continual-learning scripts make, and torch's answers
    F = lib.nn.functional
    model = _mlp(lib, dt, seed=77)
    x, y = _task(lib, dt, 0, n=5, seed=78)
    out = model(x)
    rec.err("mf_float_mask", lambda: out.masked_fill(lib.ones(5, 8, dtype=dt), 0.0))
    rec.err("mf_value_vec", lambda: out.masked_fill(out > 0, lib.ones(8, dtype=dt)))
    sd = {k: v[:1] for k, v in model.state_dict().items()}
    sd["extra.weight"] = lib.zeros(1, dtype=dt)
    del sd["2.bias"]
    rec.err("lsd_many", lambda: model.load_state_dict(sd))
    rec.err("lsd_nonstrict_shapes", lambda: model.load_state_dict(sd, strict=False))
    rec.err("stack_shapes", lambda: lib.stack([lib.ones(3, dtype=dt), lib.ones(4, dtype=dt)]))
    rec.err("cat_shapes", lambda: lib.cat([lib.ones(3, 2, dtype=dt), lib.ones(3, 4, dtype=dt)]))
    rec.err("index_copy_bad", lambda: lib.zeros(4, 3, dtype=dt).index_copy_(
        0, lib.tensor([0, 1]), lib.ones(3, 3, dtype=dt)))  # fmt: skip
    rec.err("multinomial_norepl", lambda: lib.multinomial(lib.ones(3, dtype=dt), 4))
    rec.err("view_noncontig", lambda: x.t().view(-1))
    loss = F.cross_entropy(out, y % 8)
    loss.backward()
    rec.err("backward_twice", lambda: loss.backward())

    def snapshot_then_step():
        lin = lib.nn.Linear(2, 2).to(dt)
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        l1 = lin(lib.ones(1, 2, dtype=dt)).sum()
        l2 = lin(lib.ones(1, 2, dtype=dt)).pow(2).sum()
        l1.backward(retain_graph=True)
        opt.step()
        l2.backward()

    rec.err("step_then_backward", snapshot_then_step)

    def data_write():
        p = lib.nn.Parameter(lib.ones(3, dtype=dt))
        s = (p * p).sum()
        p.data.add_(1)
        s.backward()
        return p.grad

    rec("data_write", data_write())
    rec.err("fc_shape", lambda: lib.func.functional_call(model, {"0.weight": lib.ones(10, 5,
                                                         dtype=dt)}, (x,)))  # fmt: skip
    rec.err("ce_range", lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.tensor([5, -100])))
    rec.err("ce_neg", lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.tensor([-1, 0])))
    rec.err("ce_batch", lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.zeros(3).long()))
    rec.err("ce_float_1d", lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.tensor([1.0, 0])))
    rec.err("onehot_small", lambda: F.one_hot(lib.tensor([3]), 2))
    rec.err("onehot_float", lambda: F.one_hot(lib.tensor([1.0]), 2))
    heads = lib.nn.ModuleList([lib.nn.Linear(1, 1)])
    rec.err("ml_oob", lambda: heads[3])
    md = lib.nn.ModuleDict()
    rec.err("md_dot", lambda: md.__setitem__("a.b", lib.nn.Linear(1, 1)))
    rec.err("md_missing", lambda: md["task3"])
    rec.err("emb_oob", lambda: lib.nn.Embedding(3, 2)(lib.tensor([3])))
    rec.err("kl_shape", lambda: F.kl_div(lib.zeros(2, 3, dtype=dt), lib.zeros(3, 2, dtype=dt),
                                         log_target=True))  # fmt: skip
    rec.err("bce_range", lambda: F.binary_cross_entropy(lib.tensor([1.5], dtype=dt),
                                                        lib.tensor([1.0], dtype=dt)))  # fmt: skip
    rec.err("bcel_shape", lambda: F.binary_cross_entropy_with_logits(
        lib.tensor([0.5, 0.5], dtype=dt), lib.tensor([1.0], dtype=dt)))  # fmt: skip
    rec.err("opt_empty", lambda: lib.optim.SGD([], lr=0.1))
    rec.err("opt_tensor", lambda: lib.optim.SGD(lib.ones(2), lr=0.1))
    rec.err("opt_nonleaf", lambda: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1))
    o1 = lib.optim.Adam([lib.nn.Parameter(lib.ones(2, dtype=dt))])
    o2 = lib.optim.Adam([lib.nn.Parameter(lib.ones(2, dtype=dt))])
    o2.add_param_group({"params": [lib.nn.Parameter(lib.ones(1, dtype=dt))]})
    rec.err("osd_groups", lambda: o1.load_state_dict(o2.state_dict()))
    rec.err("apg_dup", lambda: o2.add_param_group({"params": o2.param_groups[0]["params"]}))
    rec.err("apg_set", lambda: o2.add_param_group({"params": {lib.nn.Parameter(lib.ones(1))}}))
    rec.err("param_int", lambda: lib.nn.Parameter(lib.ones(2, dtype=lib.long)))
    rec.err("grad_shape", lambda: setattr(lib.nn.Parameter(lib.ones(2, dtype=dt)), "grad",
                                          lib.ones(3, dtype=dt)))  # fmt: skip
    rec.err("grad_aux", lambda: lib.func.grad(lambda w: (w**2).sum(), argnums=2)(lib.ones(2)))
    rec.err("grad_nonscalar", lambda: lib.func.grad(lambda w: w**2)(lib.ones(2, dtype=dt)))
    rec.err("post_acc_nonleaf", lambda: out.register_post_accumulate_grad_hook(lambda t: None))
    rec.err("kthvalue", lambda: lib.tensor([1.0, 2.0], dtype=dt).kthvalue(3))
    rec.err("topk", lambda: lib.tensor([1.0, 2.0], dtype=dt).topk(3))
    rec.err("clip_nonfinite", lambda: _nonfinite_clip(lib, dt))
    # a replay buffer written without detach() joins the graph: the next step's backward
    # walks the freed graph of the step that wrote it
    lin = lib.nn.Linear(6, 3).to(dt)
    buf = lib.zeros(4, 3, dtype=dt)
    o = lin(x[:4])
    buf[0] = o[0]
    rec("buf_graph", str((buf.requires_grad, buf.grad_fn.name(), buf.is_leaf)))
    rec.err("step1", lambda: (buf.sum() + o.sum()).backward())
    rec.err("step2", lambda: buf.sum().backward())
    rec.err("leaf_setitem", lambda: lib.zeros(3, requires_grad=True).__setitem__(0, 1.0))
    vals = lib.tensor([1.0, 2.0, 3.0], dtype=dt, requires_grad=True)
    acc = lib.zeros(5, dtype=dt).index_put((lib.tensor([0, 0, 2]),), vals, accumulate=True)
    rec("index_put_grad", lib.autograd.grad(acc.pow(2).sum(), vals)[0])


def _nonfinite_clip(lib, dt):
    q = lib.nn.Parameter(lib.ones(2, dtype=dt))
    q.grad = lib.full((2,), float("nan"), dtype=dt)
    return lib.nn.utils.clip_grad_norm_([q], 1.0, error_if_nonfinite=True)


def p_rng_bookkeeping(lib, dt, rec):
    # seeds and generator states saved per task so a run resumes with the same replay draws
    lib.manual_seed(79)
    st = lib.get_rng_state()
    a = lib.rand(3, dtype=dt)
    lib.set_rng_state(st)
    rec("global_replay", lib.equal(a, lib.rand(3, dtype=dt)))
    g = lib.Generator().manual_seed(80)
    rec("seed", g.initial_seed())
    draws = []
    states = []
    for _ in range(3):
        states.append(g.get_state().clone())
        draws.append(lib.randint(0, 100, (4,), generator=g))
    rec("draws", lib.stack(draws))
    g2 = lib.Generator()
    g2.set_state(states[1])
    rec("resume", lib.randint(0, 100, (4,), generator=g2))
    buf = io.BytesIO()
    lib.save({"rng": states[2], "torch_rng": lib.get_rng_state()}, buf)
    buf.seek(0)
    saved = lib.load(buf, weights_only=True)
    g3 = lib.Generator()
    g3.set_state(saved["rng"])
    rec("loaded", lib.randint(0, 100, (4,), generator=g3))
    rec("state_dtype", str(saved["rng"].dtype))
    with lib.random.fork_rng():
        lib.manual_seed(0)
        inner = lib.rand(2, dtype=dt)
    rec("inner", inner)
    rec("outer", lib.rand(2, dtype=dt))
    # draws with various samplers used by replay code
    g = lib.Generator().manual_seed(81)
    rec("randint_big", lib.randint(0, 2**33, (4,), generator=g))
    rec("randperm_big", lib.randperm(70000, generator=g)[:6])
    rec("mn_zero", lib.multinomial(lib.tensor([0.0, 1.0, 0.0, 2.0], dtype=dt), 2, generator=g))
    rec("mn_2d", lib.multinomial(lib.rand(3, 40, generator=g, dtype=dt), 6, generator=g))
    rec("mn_repl", lib.multinomial(lib.tensor([0.2, 0.8], dtype=dt), 12, replacement=True,
                                   generator=g))  # fmt: skip
    rec("bern", lib.bernoulli(lib.rand(7, generator=g, dtype=dt), generator=g))
    rec("random_", lib.empty(4, dtype=lib.long).random_(0, 100, generator=g))
    rec("perm_f", lib.randperm(6, generator=g, dtype=dt))
    rec("sort_stable", lib.tensor([1, 0, 1, 0, 1]).sort(stable=True).indices)
    rec("argmax_ties", lib.tensor([[1.0, 3, 3], [2, 2, 0]], dtype=dt).argmax(1))


def p_lamaml(lib, dt, rec):
    # meta-continual learning (La-MAML / OML style): an inner loop of functional SGD steps with
    # learnable per-parameter learning rates, the outer loss differentiated through it
    F = lib.nn.functional
    model = _mlp(lib, dt, out=8, seed=82)
    names = [n for n, _ in model.named_parameters()]
    alphas = [lib.nn.Parameter(lib.full_like(p, 0.05)) for p in model.parameters()]
    meta_opt = lib.optim.SGD(model.parameters(), lr=0.1)
    alpha_opt = lib.optim.SGD(alphas, lr=0.05)
    for t in range(2):
        x, y = _task(lib, dt, t, n=24, seed=83)
        mem_x, mem_y = _task(lib, dt, 0, n=8, seed=84)
        fast = dict(model.named_parameters())
        for k in range(3):
            xb, yb = x[k * 8 : k * 8 + 8], y[k * 8 : k * 8 + 8]
            loss = F.cross_entropy(lib.func.functional_call(model, fast, (xb,)), yb)
            grads = lib.autograd.grad(loss, list(fast.values()), create_graph=True)
            fast = {n: w - a.relu() * g for (n, w), a, g in
                    zip(fast.items(), alphas, grads, strict=True)}  # fmt: skip
            rec(f"t{t}.k{k}.inner", loss)
        xm = lib.cat([x, mem_x])
        ym = lib.cat([y, mem_y])
        meta = F.cross_entropy(lib.func.functional_call(model, fast, (xm,)), ym)
        meta_opt.zero_grad()
        alpha_opt.zero_grad()
        meta.backward()
        rec(f"t{t}.meta", meta)
        rec(f"t{t}.ga0", alphas[0].grad)
        rec(f"t{t}.gw2", model[2].weight.grad)
        # La-MAML: the weights move with the clipped learned rates, then the rates step
        with lib.no_grad():
            for p, a in zip(model.parameters(), alphas, strict=True):
                p.sub_(a.relu() * p.grad)
        alpha_opt.step()
    rec.params("p", model)
    rec("alpha_min", lib.stack([a.min() for a in alphas]))
    rec("names", str(names))
    # the same inner step by torch.func.grad (nested transforms)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = _task(lib, dt, 1, n=8, seed=85)

    def inner(p):
        g = lib.func.grad(lambda q: F.cross_entropy(lib.func.functional_call(model, q, (x,)), y))(p)
        return {k: p[k] - 0.1 * g[k] for k in p}

    def outer(p):
        return F.cross_entropy(lib.func.functional_call(model, inner(p), (x,)), y)

    meta_g = lib.func.grad(outer)(params)
    rec("func_meta_g", meta_g["0.weight"])
    # second-order against first-order MAML
    p2 = {k: v.clone().requires_grad_() for k, v in params.items()}
    lo = outer(p2)
    fo = lib.autograd.grad(lo, list(p2.values()))
    rec("same_second_order", lib.allclose(fo[0], meta_g["0.weight"]))
