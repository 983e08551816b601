"""Session 28 (helper automl): AutoML, NAS and training-loop programs in torch, run under torch and
minitorch with the same seeds and compared record by record (float64 to 1e-10 of each record's
scale, float32 to 1e-4; texts exactly): DARTS mixed operations (softmax over architecture
parameters, pooling/identity/zero/sep-conv candidates) with first-order and unrolled second-order
bilevel steps (a virtual step through functional_call, the finite-difference Hessian-vector
product by in-place perturbation under no_grad), PC-DARTS channel shuffle, ProxylessNAS binary
gates and an ENAS LSTM controller, Gumbel-softmax / straight-through / relaxed categorical
sampling, hypernetworks (functional_call vs F.conv2d / F.linear), weight-sharing supernets with
channel slicing, zero-cost proxies (NASWOT, SNIP, synflow, jacob_cov, fisher), population-based
training (deepcopy of model and optimizer, state_dict round trips through BytesIO and files,
perturbed param groups under every scheduler), LR range tests, early stopping with best-
checkpoint restore, SWA / EMA (AveragedModel, SWALR, update_bn, _foreach EMA), model soups and
task vectors, gradient accumulation with loss scaling, GradScaler and bfloat16 autocast, fp16 /
bf16 master weights, layer-wise lr decay for a transformer, freezing with add_param_group,
chained / sequential / one-cycle / plateau / cyclic / custom schedulers and their state_dicts,
pruning during search (global, structured, custom methods), random / grid / successive-halving
search with saved RNG states and Sobol points, random_split / samplers / DataLoader generators,
torch.func (grad, hessian, jacrev/jacfwd, vmap per-sample grads and model ensembles), optimizer
hooks, errors and a zoo of optimizers over several steps, module mutation and reprs,
parametrizations, activation checkpointing, reduction cells (FactorizedReduce, in-place
version-counter errors), deployment (conv/linear-BN fusion, a pruned LSTM, pruned state_dict
round trips), checkpoint files (weights_only, mmap, extra state), DistributedSampler shards and
the grad_fn names of the ops these programs use.

Known and left: topk's order among tied values is the implementation's (minitorch keeps input
order; torch's CPU kernel does not): no tied topk indices are compared. A bias right before a
BatchNorm, and the key part of attention's in_proj_bias, have gradients that are zero up to
rounding, which Adam blows up to +-lr steps in float32: such parameters are left out. float32
exp can be an ulp off torch's (a log-uniform sample is drawn in float64 here). NumPy's
floating-point RuntimeWarnings (inf * 0 in clip_grad_norm_'s in-place scaling on a GradScaler
overflow step; a zero Gumbel-softmax temperature) show under an "always" filter; no warnings
are compared. vmap runs a BatchNorm in training mode
per sample where torch refuses it (documented in minitorch.func.vmap)."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import argparse
import collections
import copy
import importlib
import io
import math
import os
import pathlib
import tempfile

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401  (autouse)
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "darts_mixed", "darts_unrolled", "gumbel_nas", "hypernet", "supernet_slice", "pbt",
    "lr_range", "early_stop", "swa", "soup", "grad_accum", "layer_decay", "freeze_unfreeze",
    "sched_chain", "onecycle_plateau", "prune_search", "hparam_search", "data_split",
    "ensemble", "hypergrad", "prune_more", "opt_hooks", "module_mut", "sched_custom", "optim_zoo",
    "clip", "rng", "sobol", "relaxed", "counts", "parametrize", "data_more", "deepcopy", "select",
    "opt_repr", "sched_errors", "swa_misc", "zero_cost", "pcdarts_enas", "ema_foreach",
    "amp_accum", "checkpointing", "opt_errors", "optim_long", "module_reprs", "pbt_schedulers",
    "func_transforms", "ckpt_files", "master_weights", "sched_more", "worker_samplers",
    "reduction_cell", "deploy", "grad_fn_names",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _fit_tiny(lib, dt, x, y, name, kw, steps):
    """(model, optimizer, last loss) after `steps` steps of optimizer `name` (options kw) on a
    seeded 4-3-1 tanh network fitting y from x by mean squared error."""
    nn = lib.nn
    lib.manual_seed(4)
    m = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1)).to(dt)
    opt = getattr(lib.optim, name)(m.parameters(), **kw)
    for _ in range(steps):
        opt.zero_grad()
        loss = (m(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
    return m, opt, loss


def _data(lib, dt, n=32, d=6, k=3, seed=0):
    g = lib.Generator().manual_seed(seed)
    x = lib.randn(n, d, generator=g, dtype=dt)
    w = lib.randn(d, k, generator=g, dtype=dt)
    y = (x @ w).argmax(-1)
    return x, y


def _img(lib, dt, n=4, c=3, hw=8, seed=0):
    g = lib.Generator().manual_seed(seed)
    x = lib.randn(n, c, hw, hw, generator=g, dtype=dt)
    y = lib.randint(0, 4, (n,), generator=g)
    return x, y


def _err_head(rec, name, fn, sep):
    """Records fn's error as 'Type: message' cut before sep (where torch's message goes on to
    name torch's own files or classes)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, f"{type(e).__name__}: {str(e).split(sep)[0]}")
    else:
        rec(name, "no error")


# --- the programs: each takes the library, a dtype and a recorder ---


def _darts_ops(lib, C):
    nn = lib.nn

    class Zero(nn.Module):
        def forward(self, x):
            return x.mul(0.0)

    class SepConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.op = nn.Sequential(
                nn.ReLU(inplace=False),
                nn.Conv2d(C, C, 3, padding=1, groups=C, bias=False),
                nn.Conv2d(C, C, 1, bias=False),
                nn.BatchNorm2d(C, affine=False),
            )

        def forward(self, x):
            return self.op(x)

    return nn.ModuleList(
        [
            Zero(),
            nn.Identity(),
            nn.MaxPool2d(3, stride=1, padding=1),
            nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False),
            SepConv(),
            nn.Sequential(nn.ReLU(), nn.Conv2d(C, C, 3, padding=2, dilation=2, bias=False)),
        ]
    )


class _Cells:
    """A tiny DARTS network built for a given library."""

    @staticmethod
    def build(lib, dt, C=4, n_edges=3, n_cls=4):
        nn, F = lib.nn, lib.nn.functional

        class MixedOp(nn.Module):
            def __init__(self):
                super().__init__()
                self._ops = _darts_ops(lib, C)

            def forward(self, x, weights):
                return sum(w * op(x) for w, op in zip(weights, self._ops, strict=True))

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = nn.Sequential(
                    nn.Conv2d(3, C, 3, padding=1, bias=False), nn.BatchNorm2d(C)
                )
                self.edges = nn.ModuleList([MixedOp() for _ in range(n_edges)])
                self.head = nn.Linear(C, n_cls)
                self.alphas = nn.Parameter(1e-3 * lib.randn(n_edges, 6))

            def arch_parameters(self):
                return [self.alphas]

            def weights(self):
                return [p for n, p in self.named_parameters() if n != "alphas"]

            def forward(self, x, alphas=None):
                a = self.alphas if alphas is None else alphas
                w = F.softmax(a, dim=-1)
                h = self.stem(x)
                for i, e in enumerate(self.edges):
                    h = e(h, w[i])
                h = F.adaptive_avg_pool2d(h, 1).flatten(1)
                return self.head(h)

        return Net().to(dt)


def p_darts_mixed(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(0)
    net = _Cells.build(lib, dt)
    x, y = _img(lib, dt)
    xv, yv = _img(lib, dt, seed=1)
    w_opt = lib.optim.SGD(net.weights(), lr=0.025, momentum=0.9, weight_decay=3e-4)
    a_opt = lib.optim.Adam(net.arch_parameters(), lr=3e-2, betas=(0.5, 0.999), weight_decay=1e-3)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(w_opt, T_max=4, eta_min=1e-3)
    for step in range(3):
        a_opt.zero_grad()
        la = F.cross_entropy(net(xv), yv)
        la.backward()
        a_opt.step()
        w_opt.zero_grad()
        lw = F.cross_entropy(net(x), y)
        lw.backward()
        lib.nn.utils.clip_grad_norm_(net.weights(), 5.0)
        w_opt.step()
        sched.step()
        rec(f"la{step}", la)
        rec(f"lw{step}", lw)
        rec(f"lr{step}", sched.get_last_lr())
    rec("alphas", net.alphas)
    rec("alphas.grad", net.alphas.grad)
    names = ["none", "skip", "max", "avg", "sep", "dil"]
    probs = F.softmax(net.alphas, dim=-1)
    rec("probs", probs)
    best = probs[:, 1:].argmax(-1) + 1
    rec("genotype", str([names[i] for i in best.tolist()]))
    rec("n_params", sum(p.numel() for p in net.weights()))
    rec("n_mod", len(list(net.modules())))
    rec("bn_rm", net.stem[1].running_mean)
    net.eval()
    with lib.no_grad():
        rec("eval", net(x))


def p_darts_unrolled(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(1)
    net = _Cells.build(lib, dt, C=3, n_edges=2)
    x, y = _img(lib, dt, c=3, hw=6)
    xv, yv = _img(lib, dt, c=3, hw=6, seed=2)
    eta, wd, mom = 0.05, 3e-4, 0.9
    w_opt = lib.optim.SGD(net.weights(), lr=eta, momentum=mom, weight_decay=wd)
    a_opt = lib.optim.Adam(net.arch_parameters(), lr=3e-3, betas=(0.5, 0.999))
    names = [n for n, _ in net.named_parameters() if n != "alphas"]
    for step in range(2):
        # virtual step w' = w - eta * (momentum + dL_train/dw + wd*w)
        weights = net.weights()
        loss = F.cross_entropy(net(x), y)
        grads = lib.autograd.grad(loss, weights)
        moms = []
        for w in weights:
            st = w_opt.state.get(w, {})
            buf = st.get("momentum_buffer")
            moms.append(lib.zeros_like(w) if buf is None else buf * mom)
        virt = {
            n: (w - eta * (m + g + wd * w)).detach()
            for n, w, m, g in zip(names, weights, moms, grads, strict=True)
        }
        virt = {n: v.requires_grad_() for n, v in virt.items()}
        params = dict(virt)
        params["alphas"] = net.alphas
        bufs = dict(net.named_buffers())
        lv = F.cross_entropy(lib.func.functional_call(net, (params, bufs), (xv,)), yv)
        glist = lib.autograd.grad(lv, [net.alphas] + list(virt.values()))
        d_alpha, dw = glist[0], glist[1:]
        # finite-difference Hessian-vector product
        R = 0.01 / lib.cat([g.flatten() for g in dw]).norm()
        with lib.no_grad():
            for p, v in zip(weights, dw, strict=True):
                p.add_(v, alpha=R)
        gp = lib.autograd.grad(F.cross_entropy(net(x), y), net.alphas)[0]
        with lib.no_grad():
            for p, v in zip(weights, dw, strict=True):
                p.sub_(v, alpha=2 * R)
        gn = lib.autograd.grad(F.cross_entropy(net(x), y), net.alphas)[0]
        with lib.no_grad():
            for p, v in zip(weights, dw, strict=True):
                p.add_(v, alpha=R)
        hvp = (gp - gn).div_(2 * R)
        a_opt.zero_grad()
        net.alphas.grad = d_alpha - eta * hvp
        a_opt.step()
        w_opt.zero_grad()
        lt = F.cross_entropy(net(x), y)
        lt.backward()
        w_opt.step()
        rec(f"lv{step}", lv)
        rec(f"R{step}", R)
        rec(f"hvp{step}", hvp)
        rec(f"lt{step}", lt)
    rec("alphas", net.alphas)
    rec.params("w", net)
    # exact second order by double backward on a small check
    a = net.alphas.detach().clone().requires_grad_()
    out = net(x, a)
    g = lib.autograd.grad(out.pow(2).sum(), a, create_graph=True)[0]
    h = lib.autograd.grad(g.sum(), a)[0]
    rec("hess_row", h)


def p_gumbel_nas(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(2)
    x, y = _data(lib, dt, n=16, d=5, k=3)
    cands = nn.ModuleList(
        [nn.Linear(5, 3), nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)), nn.Identity()]
    ).to(dt)
    proj = nn.Linear(5, 3).to(dt)
    logits = nn.Parameter(lib.zeros(3, dtype=dt))
    opt = lib.optim.Adam(list(cands.parameters()) + list(proj.parameters()) + [logits], lr=0.05)
    taus = [1.0 * (0.7**i) for i in range(4)]
    for i, tau in enumerate(taus):
        lib.manual_seed(100 + i)
        soft = F.gumbel_softmax(logits, tau=tau, hard=False)
        lib.manual_seed(100 + i)
        hard = F.gumbel_softmax(logits, tau=tau, hard=True)
        rec(f"soft{i}", soft)
        rec(f"hard{i}", hard)
        outs = lib.stack([cands[0](x), cands[1](x), proj(cands[2](x))])
        mix = (hard.view(-1, 1, 1) * outs).sum(0)
        loss = F.cross_entropy(mix, y)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{i}", loss)
        rec(f"g_logits{i}", logits.grad)
        opt.step()
    # straight-through by hand
    lib.manual_seed(7)
    u = lib.rand(4, 3, dtype=dt)
    g = -lib.log(-lib.log(u + 1e-20) + 1e-20)
    z = (logits + g) / 0.5
    ysoft = z.softmax(-1)
    idx = ysoft.max(-1, keepdim=True)[1]
    yhard = lib.zeros_like(ysoft).scatter_(-1, idx, 1.0)
    st = yhard - ysoft.detach() + ysoft
    rec("st", st)
    (st * lib.arange(3, dtype=dt)).sum().backward()
    rec("st.grad", logits.grad)
    # a Generator-driven categorical sample of architectures
    gen = lib.Generator().manual_seed(3)
    archs = lib.multinomial(F.softmax(logits.detach(), -1), 6, replacement=True, generator=gen)
    rec("archs", archs)
    rec("entropy", lib.distributions.Categorical(logits=logits).entropy())
    rec("dim0", F.gumbel_softmax(lib.zeros(2, 3, dtype=dt), dim=0, hard=True).sum(0))


def p_hypernet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(3)

    class Target(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, padding=1)
            self.fc = nn.Linear(3, 2)

        def forward(self, x):
            h = F.relu(self.conv(x))
            return self.fc(h.mean((2, 3)))

    target = Target().to(dt)
    shapes = {n: p.shape for n, p in target.named_parameters()}
    total = sum(p.numel() for p in target.parameters())

    class Hyper(nn.Module):
        def __init__(self, zdim=4):
            super().__init__()
            self.embed = nn.Embedding(3, zdim)
            self.net = nn.Sequential(nn.Linear(zdim, 16), nn.ReLU(), nn.Linear(16, total))

        def forward(self, task):
            flat = self.net(self.embed(task)) * 0.1
            out, i = {}, 0
            for n, s in shapes.items():
                k = math.prod(s)
                out[n] = flat[i : i + k].view(s)
                i += k
            return out

    hyper = Hyper().to(dt)
    opt = lib.optim.AdamW(hyper.parameters(), lr=1e-2, weight_decay=0.01)
    x = lib.randn(5, 2, 6, 6, dtype=dt)
    ys = [lib.randint(0, 2, (5,)) for _ in range(3)]
    for it in range(3):
        tot = 0
        for t in range(3):
            params = hyper(lib.tensor(t))
            out = lib.func.functional_call(target, params, (x,))
            # the same by hand with F.conv2d / F.linear
            h = F.relu(F.conv2d(x, params["conv.weight"], params["conv.bias"], padding=1))
            out2 = F.linear(h.mean((2, 3)), params["fc.weight"], params["fc.bias"])
            rec(f"same{it}{t}", (out - out2).abs().max())
            tot = tot + F.cross_entropy(out, ys[t])
        opt.zero_grad()
        tot.backward()
        opt.step()
        rec(f"loss{it}", tot)
    rec.params("h", hyper, grads=True)
    rec("total", total)
    # functional_call with strict and tied weights
    p = dict(target.named_parameters())
    p2 = {k: v * 2 for k, v in p.items()}
    rec("fc2", lib.func.functional_call(target, p2, (x[:1],), strict=True))
    rec.err(
        "strict_missing",
        lambda: lib.func.functional_call(target, {"fc.bias": p["fc.bias"]}, (x,), strict=True),
    )
    rec("target_unchanged", target.fc.weight)


def p_supernet_slice(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(4)

    class SlimLinear(nn.Linear):
        def forward(self, x, c_out):
            c_in = x.shape[-1]
            return F.linear(x, self.weight[:c_out, :c_in], self.bias[:c_out])

    class SlimConv(nn.Conv2d):
        def forward(self, x, c_out):
            c_in = x.shape[1]
            return self._conv_forward(x, self.weight[:c_out, :c_in], self.bias[:c_out])

    class Super(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = SlimConv(3, 8, 3, padding=1)
            self.bns = nn.ModuleList([nn.BatchNorm2d(c) for c in (4, 6, 8)])
            self.fc1 = SlimLinear(8, 8)
            self.fc2 = SlimLinear(8, 3)

        def forward(self, x, w):
            i = (4, 6, 8).index(w)
            h = F.relu(self.bns[i](self.conv(x, w)))
            h = h.mean((2, 3))
            h = F.relu(self.fc1(h, w))
            return self.fc2(h, 3)

    net = Super().to(dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    x = lib.randn(6, 3, 5, 5, dtype=dt)
    y = lib.randint(0, 3, (6,))
    gen = lib.Generator().manual_seed(11)
    for step in range(3):
        opt.zero_grad()
        # sandwich rule: largest, smallest, one random
        widths = [8, 4, (4, 6, 8)[int(lib.randint(0, 3, (1,), generator=gen))]]
        for w in widths:
            loss = F.cross_entropy(net(x, w), y)
            loss.backward()
            rec(f"l{step}w{w}", loss)
        rec(f"gconv{step}", net.conv.weight.grad.abs().sum((1, 2, 3)))
        opt.step()
    rec.params("p", net)
    # sub-network extraction
    sub = nn.Conv2d(3, 4, 3, padding=1).to(dt)
    with lib.no_grad():
        sub.weight.copy_(net.conv.weight[:4])
        sub.bias.copy_(net.conv.bias[:4])
    net.eval()
    with lib.no_grad():
        rec("sub_eq", (sub(x) - net.conv(x, 4)).abs().max())
    rec("shared", net.conv.weight[:4].data_ptr() == net.conv.weight.data_ptr())
    rec("slice_base", net.conv.weight[:4, :2]._base is net.conv.weight)
    rec("numel", [p.numel() for p in net.parameters()])
    rec("bn_tracked", [int(b.num_batches_tracked) for b in net.bns])


def _make_member(lib, dt, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    m = nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Dropout(0.0), nn.Linear(12, 3)).to(dt)
    opt = lib.optim.Adam(m.parameters(), lr=1e-2 * (1 + seed), weight_decay=1e-4 * seed)
    return m, opt


def p_pbt(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt)
    xv, yv = _data(lib, dt, seed=5)
    pop = [_make_member(lib, dt, s) for s in range(4)]
    rng = np.random.RandomState(0)
    for gen_i in range(3):
        scores = []
        for m, opt in pop:
            for _ in range(2):
                opt.zero_grad()
                F.cross_entropy(m(x), y).backward()
                opt.step()
            with lib.no_grad():
                scores.append(float(F.cross_entropy(m(xv), yv)))
        rec(f"scores{gen_i}", scores)
        order = np.argsort(scores)
        best, worst = int(order[0]), int(order[-1])
        # exploit: copy through a state_dict round trip; explore: perturb hyperparameters
        buf = io.BytesIO()
        lib.save({"model": pop[best][0].state_dict(), "opt": pop[best][1].state_dict()}, buf)
        buf.seek(0)
        ck = lib.load(buf, weights_only=True)
        m, opt = pop[worst]
        m.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        for g in opt.param_groups:
            g["lr"] = g["lr"] * float(rng.choice([0.8, 1.2]))
            g["weight_decay"] = g["weight_decay"] * 1.5
        rec(f"lr{gen_i}", [g["lr"] for g in opt.param_groups])
        rec(f"step{gen_i}", [float(s["step"]) for s in opt.state.values()])
        # a deepcopy clone of model + optimizer that keeps parameters and state linked
        m2 = copy.deepcopy(pop[best][0])
        o2 = type(pop[best][1])(m2.parameters(), **pop[best][1].defaults)
        o2.load_state_dict(copy.deepcopy(pop[best][1].state_dict()))
        o2.zero_grad()
        F.cross_entropy(m2(x), y).backward()
        o2.step()
        rec(f"clone{gen_i}", list(m2.parameters())[0])
        rec(f"orig_unchanged{gen_i}", list(pop[best][0].parameters())[0])
    sd = pop[0][1].state_dict()
    rec("sd_keys", str(sorted(sd["param_groups"][0].keys())))
    rec("sd_state", str(sorted(sd["state"].keys())))
    rec("exp_avg", sd["state"][0]["exp_avg"])
    rec("step_dtype", str(sd["state"][0]["step"].dtype).split(".")[-1])
    for i, (m, _) in enumerate(pop):
        rec.params(f"m{i}", m)


def p_lr_range(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)
    x, y = _data(lib, dt, n=64)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)).to(dt)
    init = copy.deepcopy(model.state_dict())
    opt = lib.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    init_opt = copy.deepcopy(opt.state_dict())
    n_steps = 30
    gamma = (10.0 / 1e-4) ** (1 / n_steps)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=gamma)
    lrs, losses = [], []
    avg, beta, best = 0.0, 0.9, float("inf")
    gen = lib.Generator().manual_seed(0)
    for i in range(n_steps):
        idx = lib.randperm(64, generator=gen)[:16]
        opt.zero_grad()
        loss = F.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        avg = beta * avg + (1 - beta) * loss.item()
        smooth = avg / (1 - beta ** (i + 1))
        lrs.append(sched.get_last_lr()[0])
        losses.append(smooth)
        if smooth < best:
            best = smooth
        if smooth > 4 * best or math.isnan(smooth):
            break
        sched.step()
    rec("n", len(lrs))
    rec("lrs", lrs)
    rec("losses", losses)
    grads = np.gradient(np.array(losses))
    rec("suggest", lrs[int(np.argmin(grads))])
    model.load_state_dict(init)
    opt.load_state_dict(init_opt)
    rec("restored", list(model.parameters())[0])
    rec("opt_lr", opt.param_groups[0]["lr"])
    rec("initial_lr", opt.param_groups[0].get("initial_lr", -1.0))
    # LambdaLR variant on a fresh optimizer
    opt2 = lib.optim.Adam(model.parameters(), lr=1.0)
    sch2 = lib.optim.lr_scheduler.LambdaLR(opt2, lambda s: 1e-4 * (1e5 ** (s / 10)))
    vals = []
    for _ in range(5):
        opt2.step()
        sch2.step()
        vals.append(opt2.param_groups[0]["lr"])
    rec("lambda_lrs", vals)
    rec("lambda_sd", str(sorted(sch2.state_dict().keys())))


def p_early_stop(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)
    x, y = _data(lib, dt, n=48)
    xv, yv = _data(lib, dt, n=24, seed=9)
    model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3)).to(dt)
    opt = lib.optim.RMSprop(model.parameters(), lr=0.05, alpha=0.9, centered=True)
    best, best_state, best_ep, patience, bad = float("inf"), None, -1, 3, 0
    hist = []
    for ep in range(12):
        model.train()
        opt.zero_grad()
        F.cross_entropy(model(x), y, label_smoothing=0.1).backward()
        opt.step()
        model.eval()
        with lib.inference_mode():
            v = F.cross_entropy(model(xv), yv).item()
            acc = (model(xv).argmax(1) == yv).float().mean().item()
        hist.append((v, acc))
        if v < best - 1e-4:
            best, best_ep, bad = v, ep, 0
            best_state = {k: t.detach().clone() for k, t in model.state_dict().items()}
        else:
            bad += 1
            if bad >= patience:
                break
    rec("hist", hist)
    rec("best_ep", best_ep)
    rec("stopped", ep)
    res = model.load_state_dict(best_state)
    rec("missing", str(res))
    model.eval()
    with lib.no_grad():
        rec("best_val", F.cross_entropy(model(xv), yv))
    rec.params("best", model)
    # checkpoint through BytesIO with extra metadata
    buf = io.BytesIO()
    lib.save({"epoch": best_ep, "state": best_state, "opt": opt.state_dict(), "hist": hist}, buf)
    buf.seek(0)
    ck = lib.load(buf)
    rec("ck_epoch", ck["epoch"])
    rec("ck_sq", ck["opt"]["state"][0]["square_avg"])
    rec("ck_ga", ck["opt"]["state"][0]["grad_avg"])
    rec.err("bad_key", lambda: model.load_state_dict({"0.weight": best_state["0.weight"]}))


def p_swa(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    swa_utils = lib.optim.swa_utils
    lib.manual_seed(7)
    x, y = _data(lib, dt, n=40)
    model = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3)).to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    swa_model = swa_utils.AveragedModel(model)
    ema_model = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    ema2 = swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.8), use_buffers=True)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    swa_sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=10)
    lrs = []
    for ep in range(6):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        ema_model.update_parameters(model)
        ema2.update_parameters(model)
        if ep >= 3:
            swa_model.update_parameters(model)
            swa_sched.step()
        else:
            sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("lrs", lrs)
    rec("n_avg", swa_model.n_averaged)
    rec("ema_n", ema_model.n_averaged)
    rec.params("swa", swa_model.module)
    rec.params("ema", ema_model.module)
    rec.params("ema2", ema2.module)
    rec("ema2_rm", ema2.module[1].running_mean)
    swa_utils.update_bn(loader, swa_model)
    rec("swa_rm", swa_model.module[1].running_mean)
    rec("swa_rv", swa_model.module[1].running_var)
    rec("swa_nbt", swa_model.module[1].num_batches_tracked)
    swa_model.eval()
    with lib.no_grad():
        rec("swa_out", swa_model(x[:5]))
    rec("sd_keys", str(list(swa_model.state_dict().keys())))
    rec("sched_sd", str(sorted(swa_sched.state_dict().keys())))
    rec("swa_repr", repr(swa_sched.__class__.__name__))


def p_soup(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    x, y = _data(lib, dt, n=40)
    xv, yv = _data(lib, dt, n=20, seed=3)
    lib.manual_seed(8)
    base = nn.Sequential(nn.Linear(6, 16), nn.LayerNorm(16), nn.SiLU(), nn.Linear(16, 3)).to(dt)
    base_sd = copy.deepcopy(base.state_dict())
    ingredients = []
    for i, lr in enumerate([0.01, 0.03, 0.1]):
        m = copy.deepcopy(base)
        opt = lib.optim.AdamW(m.parameters(), lr=lr, weight_decay=0.05)
        lib.manual_seed(50 + i)
        for _ in range(4):
            idx = lib.randint(0, 40, (16,))
            opt.zero_grad()
            F.cross_entropy(m(x[idx]), y[idx]).backward()
            opt.step()
        ingredients.append(m.state_dict())

    def val(sd):
        m = copy.deepcopy(base)
        m.load_state_dict(sd)
        with lib.no_grad():
            return F.cross_entropy(m(xv), yv).item()

    scores = [val(sd) for sd in ingredients]
    rec("scores", scores)
    uniform = {k: lib.stack([sd[k] for sd in ingredients]).mean(0) for k in base_sd}
    rec("uniform", val(uniform))
    order = sorted(range(3), key=lambda i: scores[i])
    greedy = [order[0]]
    for i in order[1:]:
        cand = greedy + [i]
        sd = {k: sum(ingredients[j][k] for j in cand) / len(cand) for k in base_sd}
        if val(sd) <= val(
            {k: sum(ingredients[j][k] for j in greedy) / len(greedy) for k in base_sd}
        ):
            greedy = cand
    rec("greedy", greedy)
    # task arithmetic / interpolation with torch.lerp and a parameters_to_vector round trip
    vecs = [
        nn.utils.parameters_to_vector(
            [ingredients[i][k] for k in base_sd if k.endswith(("weight", "bias"))]
        )
        for i in range(3)
    ]
    v0 = nn.utils.parameters_to_vector(list(base.parameters())).detach()
    tv = sum(v - v0 for v in vecs)
    m = copy.deepcopy(base)
    nn.utils.vector_to_parameters(v0 + 0.3 * tv, m.parameters())
    rec("ta", m[0].weight)
    for a in (0.25, 0.5):
        sd = {k: lib.lerp(ingredients[0][k], ingredients[1][k], a) for k in base_sd}
        rec(f"lerp{a}", val(sd))
    rec("tv_norm", tv.norm())


def p_grad_accum(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    x, y = _data(lib, dt, n=32)
    m1 = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 3)).to(dt)
    m2 = copy.deepcopy(m1)
    o1 = lib.optim.SGD(m1.parameters(), lr=0.1)
    o2 = lib.optim.SGD(m2.parameters(), lr=0.1)
    accum = 4
    for step in range(2):
        o1.zero_grad()
        F.cross_entropy(m1(x), y).backward()
        o1.step()
        o2.zero_grad(set_to_none=False)
        for i, (xb, yb) in enumerate(zip(x.chunk(accum), y.chunk(accum), strict=True)):
            loss = F.cross_entropy(m2(xb), yb) / accum
            loss.backward()
            rec(f"micro{step}{i}", loss)
        gn = nn.utils.clip_grad_norm_(m2.parameters(), max_norm=1e9, norm_type=2.0)
        rec(f"gn{step}", gn)
        o2.step()
    for (n, a), b in zip(m1.named_parameters(), m2.parameters(), strict=True):
        rec("diff." + n, (a - b).abs().max())
    # loss-scaled accumulation with an unscale step (fp16-style by hand) and a GradScaler on CPU
    scale = 2.0**10
    o2.zero_grad()
    for xb, yb in zip(x.chunk(2), y.chunk(2), strict=True):
        (F.cross_entropy(m2(xb), yb) * scale / 2).backward()
    grads = [p.grad for p in m2.parameters()]
    found_inf = any(not lib.isfinite(g).all() for g in grads)
    for g in grads:
        g.div_(scale)
    rec("found_inf", found_inf)
    rec("unscaled", grads[0])
    total = nn.utils.clip_grad_norm_(m2.parameters(), 0.5)
    rec("clipped_total", total)
    rec("after_clip", lib.linalg.vector_norm(lib.stack([g.norm() for g in grads])))
    nn.utils.clip_grad_value_(m2.parameters(), 0.01)
    rec("clip_value", grads[-1])
    rec("no_sync_grad_none", str([p.grad is None for p in m2.parameters()]))
    o2.zero_grad()
    rec("zeroed_none", str([p.grad is None for p in m2.parameters()]))
    nn.utils.clip_grad_norm_(m2.parameters(), 1.0)
    rec("empty_clip", nn.utils.clip_grad_norm_([], 1.0))


def p_layer_decay(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(10)
    enc = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
        num_layers=3,
        enable_nested_tensor=False,
    )
    model = nn.ModuleDict({"emb": nn.Embedding(11, 8), "enc": enc, "head": nn.Linear(8, 3)}).to(dt)
    n_layers, decay, base_lr = 3, 0.7, 1e-2

    def layer_id(name):
        if name.startswith("emb"):
            return 0
        if name.startswith("enc.layers."):
            return int(name.split(".")[2]) + 1
        return n_layers + 1

    groups = {}
    for n, p in model.named_parameters():
        lid = layer_id(n)
        no_decay = p.ndim == 1 or n.endswith(".bias")
        key = (lid, no_decay)
        if key not in groups:
            scale = decay ** (n_layers + 1 - lid)
            groups[key] = {
                "params": [], "names": [], "lr": base_lr * scale, "lr_scale": scale,
                "weight_decay": 0.0 if no_decay else 0.05,
            }  # fmt: skip
        groups[key]["params"].append(p)
        groups[key]["names"].append(n)
    opt = lib.optim.AdamW(list(groups.values()), lr=base_lr, betas=(0.9, 0.98), eps=1e-6)
    rec("n_groups", len(opt.param_groups))
    rec("lrs", [g["lr"] for g in opt.param_groups])
    rec("names", str([g["names"] for g in opt.param_groups]))
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
    tok = lib.randint(0, 11, (4, 5))
    y = lib.randint(0, 3, (4,))
    mask = lib.zeros(4, 5, dtype=lib.bool)
    mask[0, 3:] = True
    for step in range(3):
        h = model["enc"](model["emb"](tok), src_key_padding_mask=mask)
        loss = F.cross_entropy(model["head"](h[:, 0]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"lrs{step}", sched.get_last_lr())
    # the key part of in_proj_bias has a zero gradient up to rounding (softmax ignores a shift
    # of every key by the same vector), which Adam blows up to +-lr steps: not compared
    rec.params("p", model, view=lambda n, p: lib.cat([p[:8], p[16:]]) if "in_proj_b" in n else p)
    sd = opt.state_dict()
    rec("sd_names", str(sd["param_groups"][1]["names"]))
    rec("sd_params", str(sd["param_groups"][1]["params"]))
    opt2 = lib.optim.AdamW(list(groups.values()), lr=base_lr)
    opt2.load_state_dict(sd)
    rec("loaded_lr", [g["lr"] for g in opt2.param_groups])
    rec("loaded_scale", [g["lr_scale"] for g in opt2.param_groups])


def p_freeze_unfreeze(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    backbone = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
    )  # fmt: skip
    head = nn.Linear(4, 4)
    model = nn.Sequential(backbone, head).to(dt)
    backbone.requires_grad_(False)
    rec("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
    rec("frozen", sum(p.numel() for p in model.parameters() if not p.requires_grad))
    opt = lib.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
    x, y = _img(lib, dt, n=6, hw=6)
    for step in range(4):
        if step == 2:
            backbone.requires_grad_(True)
            opt.add_param_group({"params": backbone.parameters(), "lr": 0.01})
            rec("groups", [len(g["params"]) for g in opt.param_groups])
            rec("group_keys", str(sorted(opt.param_groups[1].keys())))
        backbone[1].eval() if step < 2 else backbone[1].train()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"bb_grad{step}", str(backbone[0].weight.grad is None))
    rec.params("p", model)
    rec("bn_rm", backbone[1].running_mean)
    rec.err("dup_group", lambda: opt.add_param_group({"params": head.parameters()}))
    rec.err("nonleaf", lambda: opt.add_param_group({"params": [head.weight * 2]}))
    rec.err("bad_set", lambda: lib.optim.SGD({head.weight, head.bias}, lr=0.1))
    rec.err("empty", lambda: lib.optim.SGD([], lr=0.1))
    rec.err("neg_lr", lambda: lib.optim.SGD(head.parameters(), lr=-0.1))
    with lib.no_grad():
        out = model(x)
    rec("ng_rg", str(out.requires_grad))
    rec("sd_rg", str([t.requires_grad for t in model.state_dict().values()]))


def p_sched_chain(lib, dt, rec):
    nn = lib.nn
    lr_s = lib.optim.lr_scheduler
    lib.manual_seed(12)
    m = nn.Linear(3, 2).to(dt)
    opt = lib.optim.SGD([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.2}], lr=0.1)
    warm = lr_s.LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=3)
    cos = lr_s.CosineAnnealingLR(opt, T_max=6, eta_min=1e-3)
    seq = lr_s.SequentialLR(opt, schedulers=[warm, cos], milestones=[3])
    lrs = []
    for _ in range(10):
        opt.step()
        seq.step()
        lrs.append(seq.get_last_lr())
    rec("seq", lrs)
    sd = seq.state_dict()
    rec("sd_keys", str(sorted(sd.keys())))
    rec("sd_ms", sd["_milestones"])
    # resume into fresh objects
    opt2 = lib.optim.SGD([{"params": [m.weight]}, {"params": [m.bias], "lr": 0.2}], lr=0.1)
    w2 = lr_s.LinearLR(opt2, start_factor=0.1, total_iters=3)
    c2 = lr_s.CosineAnnealingLR(opt2, T_max=6, eta_min=1e-3)
    s2 = lr_s.SequentialLR(opt2, schedulers=[w2, c2], milestones=[3])
    opt2.load_state_dict(opt.state_dict())
    s2.load_state_dict(sd)
    more = []
    for _ in range(3):
        opt2.step()
        s2.step()
        more.append(s2.get_last_lr())
    rec("resumed", more)
    # ChainedScheduler and MultiStep/Step/Poly/Constant
    opt3 = lib.optim.SGD(m.parameters(), lr=1.0)
    ch = lr_s.ChainedScheduler(
        [lr_s.ConstantLR(opt3, factor=0.5, total_iters=2), lr_s.ExponentialLR(opt3, gamma=0.9)]
    )
    v = []
    for _ in range(4):
        opt3.step()
        ch.step()
        v.append(opt3.param_groups[0]["lr"])
    rec("chained", v)
    opt4 = lib.optim.SGD(m.parameters(), lr=1.0)
    ms = lr_s.MultiStepLR(opt4, milestones=[2, 4], gamma=0.5)
    st = [ms.get_last_lr()[0]]
    for _ in range(5):
        opt4.step()
        ms.step()
        st.append(ms.get_last_lr()[0])
    rec("multistep", st)
    rec("ms_sd", str(ms.state_dict()["milestones"]))
    opt5 = lib.optim.SGD(m.parameters(), lr=1.0)
    poly = lr_s.PolynomialLR(opt5, total_iters=4, power=2.0)
    pv = []
    for _ in range(5):
        opt5.step()
        poly.step()
        pv.append(poly.get_last_lr()[0])
    rec("poly", pv)
    opt6 = lib.optim.SGD(m.parameters(), lr=1.0)
    cw = lr_s.CosineAnnealingWarmRestarts(opt6, T_0=2, T_mult=2, eta_min=0.01)
    cv = []
    for i in range(7):
        opt6.step()
        cw.step(i + 0.5 if i == 3 else None)
        cv.append(cw.get_last_lr()[0])
    rec("warm_restarts", cv)
    rec.err("bad_ms", lambda: lr_s.SequentialLR(opt, schedulers=[warm, cos], milestones=[3, 4]))


def p_onecycle_plateau(lib, dt, rec):
    nn = lib.nn
    lr_s = lib.optim.lr_scheduler
    lib.manual_seed(13)
    m = nn.Linear(3, 2).to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    oc = lr_s.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3, div_factor=10.0,
                         final_div_factor=100.0, three_phase=False)  # fmt: skip
    lrs, moms = [], []
    for _ in range(10):
        opt.step()
        oc.step()
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
    rec("oc_lr", lrs)
    rec("oc_mom", moms)
    rec.err("oc_over", lambda: (opt.step(), oc.step()))
    opt_a = lib.optim.Adam(m.parameters(), lr=0.1)
    oc2 = lr_s.OneCycleLR(opt_a, max_lr=0.5, epochs=2, steps_per_epoch=3, anneal_strategy="linear",
                          three_phase=True)  # fmt: skip
    v = []
    for _ in range(6):
        opt_a.step()
        oc2.step()
        v.append((opt_a.param_groups[0]["lr"], opt_a.param_groups[0]["betas"][0]))
    rec("oc2", v)
    opt2 = lib.optim.SGD([{"params": [m.weight]}, {"params": [m.bias]}], lr=1.0)
    pl = lr_s.ReduceLROnPlateau(opt2, mode="min", factor=0.5, patience=1, threshold=0.01,
                                cooldown=2, min_lr=[0.1, 0.05])  # fmt: skip
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0, 1.1, 1.2, 1.3, 1.4]
    hist = []
    for mt in metrics:
        pl.step(mt)
        hist.append([g["lr"] for g in opt2.param_groups])
    rec("plateau", hist)
    rec("pl_last", pl.get_last_lr())
    sd = pl.state_dict()
    rec("pl_sd", str(sorted(k for k in sd.keys())))
    rec("pl_best", sd["best"])
    rec("pl_bad", sd["num_bad_epochs"])
    rec("pl_cool", sd["cooldown_counter"])
    opt3 = lib.optim.SGD(m.parameters(), lr=1.0)
    pl2 = lr_s.ReduceLROnPlateau(opt3, mode="max", threshold_mode="abs", patience=0, factor=0.1,
                                 eps=1e-3)  # fmt: skip
    h2 = []
    for mt in [0.5, 0.5, 0.6, 0.55, 0.5, 0.4]:
        pl2.step(lib.tensor(mt))
        h2.append(opt3.param_groups[0]["lr"])
    rec("plateau_max", h2)
    rec.err("bad_mode", lambda: lr_s.ReduceLROnPlateau(opt3, mode="mid"))
    rec.err("bad_factor", lambda: lr_s.ReduceLROnPlateau(opt3, factor=1.0))
    rec.err("bad_minlr", lambda: lr_s.ReduceLROnPlateau(opt2, min_lr=[0.1]))


def p_prune_search(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(14)
    x, y = _data(lib, dt, n=32)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))
    model = model.to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for amount in (0.2, 0.3):
        prune.global_unstructured(
            [(model[0], "weight"), (model[2], "weight"), (model[4], "weight")],
            pruning_method=prune.L1Unstructured, amount=amount,
        )  # fmt: skip
        for _ in range(2):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        rec(f"loss{amount}", loss)
        rec(
            f"sparsity{amount}",
            [float((m.weight == 0).sum()) / m.weight.numel() for m in model[::2]],
        )
    rec("names", str([n for n, _ in model.named_parameters()]))
    rec("bufs", str([n for n, _ in model.named_buffers()]))
    rec("is_pruned", str(prune.is_pruned(model)))
    rec("orig_grad", model[0].weight_orig.grad)
    prune.ln_structured(model[2], "weight", amount=0.25, n=2, dim=0)
    rec("mask2", model[2].weight_mask)
    prune.random_unstructured(model[4], "bias", amount=0.34)
    rec("hooks", len(model[2]._forward_pre_hooks))
    for m in model[::2]:
        prune.remove(m, "weight")
    rec("after_remove", str([n for n, _ in model.named_parameters()]))
    rec("w0", model[0].weight)
    rec("bias_mask", model[4].bias_mask.sum())
    rec.err("remove_twice", lambda: prune.remove(model[0], "weight"))

    # custom pruning method
    class Thresh(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            return default_mask * (t.abs() > 0.2)

    Thresh.apply(model[0], "weight")
    rec("custom_mask", model[0].weight_mask.sum())
    rec("sd_keys", str(list(model.state_dict().keys())))


def p_hparam_search(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    x, y = _data(lib, dt, n=40)
    xv, yv = _data(lib, dt, n=20, seed=4)

    def train(cfg, budget, seed):
        lib.manual_seed(seed)
        m = nn.Sequential(nn.Linear(6, cfg["h"]), nn.ReLU(), nn.Dropout(cfg["p"]),
                          nn.Linear(cfg["h"], 3)).to(dt)  # fmt: skip
        opt = lib.optim.SGD(m.parameters(), lr=cfg["lr"], momentum=0.9)
        for _ in range(budget):
            opt.zero_grad()
            F.cross_entropy(m(x), y).backward()
            opt.step()
        m.eval()
        with lib.no_grad():
            return F.cross_entropy(m(xv), yv).item()

    # random search with a saved/restored global RNG state
    lib.manual_seed(0)
    state = lib.get_rng_state()
    rec("state_len", state.numel())
    rec("state_dtype", str(state.dtype).split(".")[-1])
    cfgs = []
    for _ in range(4):
        lr = 10 ** (lib.empty(1, dtype=lib.float64).uniform_(-3, -0.5).item())
        h = int(lib.randint(4, 17, (1,)).item())
        p = float(lib.rand(1, dtype=lib.float64).item()) * 0.5
        cfgs.append({"lr": lr, "h": h, "p": p})
    lib.set_rng_state(state)
    again = 10 ** (lib.empty(1, dtype=lib.float64).uniform_(-3, -0.5).item())
    rec("same_first", again == cfgs[0]["lr"])
    rec("cfgs", str([(round(c["lr"], 12), c["h"], round(c["p"], 12)) for c in cfgs]))
    # successive halving
    alive = list(range(4))
    budget = 1
    while len(alive) > 1:
        scores = {i: train(cfgs[i], budget, seed=i) for i in alive}
        rec(f"sh{budget}", [scores[i] for i in alive])
        alive = sorted(alive, key=lambda i: scores[i])[: len(alive) // 2]
        budget *= 2
    rec("winner", alive)
    # grid search with a Generator whose state is saved and restored
    g = lib.Generator().manual_seed(42)
    gs = g.get_state()
    grid = [(lr, h) for lr in (0.01, 0.1) for h in (4, 8)]
    perm = lib.randperm(len(grid), generator=g)
    g.set_state(gs)
    perm2 = lib.randperm(len(grid), generator=g)
    rec("perm", perm)
    rec("perm_eq", lib.equal(perm, perm2))
    rec("grid", [train({"lr": grid[i][0], "h": grid[i][1], "p": 0.0}, 2, 0) for i in perm.tolist()])
    rec("initial_seed", g.initial_seed())
    with lib.random.fork_rng():
        lib.manual_seed(123)
        inner = lib.rand(2, dtype=dt)
    rec("inner", inner)
    rec("outer_after_fork", lib.rand(2, dtype=dt))


def p_data_split(lib, dt, rec):
    data = lib.utils.data
    x, y = _data(lib, dt, n=20)
    ds = data.TensorDataset(x, y)
    g = lib.Generator().manual_seed(0)
    tr, va, te = data.random_split(ds, [0.6, 0.2, 0.2], generator=g)
    rec("lens", [len(tr), len(va), len(te)])
    rec("idx", [list(tr.indices), list(va.indices), list(te.indices)])
    a, b = data.random_split(range(7), [3, 4], generator=lib.Generator().manual_seed(1))
    rec("range_split", [list(a), list(b)])
    rec.err("bad_split", lambda: data.random_split(ds, [5, 5]))
    g2 = lib.Generator().manual_seed(2)
    rec(
        "frac_rem", [len(s) for s in data.random_split(range(10), [0.33, 0.33, 0.34], generator=g2)]
    )
    sampler = data.SubsetRandomSampler(tr.indices, generator=lib.Generator().manual_seed(3))
    rec("sampler", list(sampler))
    rec("sampler2", list(sampler))
    loader = data.DataLoader(ds, batch_size=4, sampler=sampler)
    tot = 0
    for xb, yb in loader:
        tot = tot + xb.sum() + yb.sum()
    rec("tot", tot)
    wrs = data.WeightedRandomSampler([0.1, 0.2, 0.7], 8, generator=lib.Generator().manual_seed(4))
    rec("wrs", list(wrs))
    rs = data.RandomSampler(ds, replacement=True, num_samples=5,
                            generator=lib.Generator().manual_seed(5))  # fmt: skip
    rec("rs", list(rs))
    lib.manual_seed(6)
    dl = data.DataLoader(ds, batch_size=6, shuffle=True, drop_last=True)
    rec("shuffled", [yb for _, yb in dl])
    rec("n_batches", len(dl))
    sub = data.Subset(ds, [3, 1, 4])
    rec("sub", sub[1][0])
    cat = data.ConcatDataset([tr, va])
    rec("cat_len", len(cat))
    rec("cat_item", cat[len(tr)][1])
    kf = []
    perm = lib.randperm(20, generator=lib.Generator().manual_seed(7))
    for fold in perm.chunk(4):
        mask = lib.ones(20, dtype=lib.bool)
        mask[fold] = False
        kf.append((int(mask.sum()), fold.tolist()))
    rec("kfold", str(kf))
    bs = data.BatchSampler(data.SequentialSampler(range(7)), batch_size=3, drop_last=False)
    rec("bs", str(list(bs)))


def p_ensemble(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    models = [nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2)).to(dt) for _ in range(4)]
    params, bufs = lib.func.stack_module_state(models)
    rec("keys", str(list(params.keys())))
    rec("rg", str([p.requires_grad for p in params.values()]))
    base = copy.deepcopy(models[0]).to("meta")

    def f(p, b, x):
        return lib.func.functional_call(base, (p, b), (x,))

    x = lib.randn(6, 3, dtype=dt)
    out = lib.vmap(f, in_dims=(0, 0, None))(params, bufs, x)
    rec("out", out)
    loss = out.pow(2).mean()
    loss.backward()
    rec("g", params["0.weight"].grad)
    opt = lib.optim.Adam(params.values(), lr=0.1)
    opt.step()
    rec("p", params["2.bias"])
    # per-model hyperparameters via vmap over lr
    lrs = lib.tensor([0.01, 0.1, 0.5, 1.0], dtype=dt)

    def sgd_step(p, b, lr, x, y):
        def loss_fn(p):
            return F.mse_loss(lib.func.functional_call(base, (p, b), (x,)), y)

        g = lib.func.grad(loss_fn)(p)
        return {k: p[k] - lr * g[k] for k in p}, loss_fn(p)

    y = lib.randn(6, 2, dtype=dt)
    detached = {k: v.detach() for k, v in params.items()}
    newp, loss = lib.vmap(sgd_step, in_dims=(0, 0, 0, None, None))(detached, bufs, lrs, x, y)
    rec("l", loss)
    rec("newp", newp["0.weight"])


def p_hypergrad(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)
    m = nn.Linear(4, 1).to(dt)
    x = lib.randn(8, 4, dtype=dt)
    y = lib.randn(8, 1, dtype=dt)
    xv = lib.randn(8, 4, dtype=dt)
    yv = lib.randn(8, 1, dtype=dt)
    log_lr = lib.tensor(-2.0, dtype=dt, requires_grad=True)
    hopt = lib.optim.Adam([log_lr], lr=0.1)
    for it in range(3):
        params = {k: v.detach().clone().requires_grad_() for k, v in m.named_parameters()}
        p = params
        for _ in range(3):
            loss = F.mse_loss(lib.func.functional_call(m, p, (x,)), y)
            g = lib.autograd.grad(loss, list(p.values()), create_graph=True)
            p = {k: v - log_lr.exp() * gi for (k, v), gi in zip(p.items(), g, strict=True)}
        lv = F.mse_loss(lib.func.functional_call(m, p, (xv,)), yv)
        hopt.zero_grad()
        lv.backward()
        rec(f"hg{it}", log_lr.grad)
        hopt.step()
        rec(f"lv{it}", lv)
    rec("log_lr", log_lr)
    # differentiable optimizer
    w = lib.randn(4, 1, dtype=dt, requires_grad=True)
    lr = lib.tensor(0.1, dtype=dt, requires_grad=True)
    w1 = w.clone()
    opt = lib.optim.SGD([w1], lr=lr, momentum=0.5, differentiable=True)
    for _ in range(2):
        loss = (x @ w1 - y).pow(2).mean()
        w1.grad = lib.autograd.grad(loss, w1, create_graph=True)[0]
        opt.step()
    rec("w1", w1)
    rec.err("w1_back", lambda: (x @ w1).sum().backward())


def p_prune_more(lib, dt, rec):
    nn = lib.nn
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(2)
    m = nn.Linear(5, 4).to(dt)
    imp = lib.arange(20, dtype=dt).view(4, 5)
    prune.l1_unstructured(m, "weight", amount=3, importance_scores=imp)
    rec("mask", m.weight_mask)
    prune.l1_unstructured(m, "weight", amount=0.5)
    rec("mask2", m.weight_mask)
    hook = list(m._forward_pre_hooks.values())[0]
    rec("hook", type(hook).__name__)
    rec("hook_n", len(hook))
    rec("hook_names", str([type(h).__name__ for h in hook]))
    rec.err("too_many", lambda: prune.l1_unstructured(m, "weight", amount=100))
    rec.err("neg", lambda: prune.l1_unstructured(m, "weight", amount=-0.1))
    rec.err("bad_type", lambda: prune.l1_unstructured(m, "weight", amount="a"))
    rec.err("bad_name", lambda: prune.l1_unstructured(m, "foo", amount=1))
    c = nn.Conv2d(2, 4, 3).to(dt)
    prune.ln_structured(c, "weight", amount=2, n=1, dim=0)
    rec("cmask", c.weight_mask.sum((1, 2, 3)))
    prune.random_structured(c, "weight", amount=0.5, dim=1)
    rec("cmask2", c.weight_mask.sum((0, 2, 3)))
    prune.identity(c, "bias")
    rec("bias_mask", c.bias_mask)
    prune.custom_from_mask(c, "bias", mask=lib.tensor([1, 0, 1, 1]))
    rec("bias_mask2", c.bias_mask)
    rec("w_after", c.weight)
    sd = c.state_dict()
    rec("sd", str(list(sd)))
    c2 = nn.Conv2d(2, 4, 3).to(dt)
    rec.err("load_unpruned", lambda: c2.load_state_dict(sd))
    rec.err("deepcopy", lambda: copy.deepcopy(c))

    rec.err(
        "ln_bad_dim", lambda: prune.ln_structured(nn.Linear(2, 2), "weight", amount=1, n=2, dim=3)
    )
    g = [(nn.Linear(3, 3).to(dt), "weight") for _ in range(2)]
    rec.err(
        "global_bad",
        lambda: prune.global_unstructured(g, pruning_method=prune.LnStructured, amount=1),
    )
    prune.global_unstructured(
        g,
        pruning_method=prune.L1Unstructured,
        importance_scores={g[0]: lib.ones(3, 3, dtype=dt)},
        amount=4,
    )
    rec("gm", lib.stack([mod.weight_mask for mod, _ in g]))


def p_opt_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(3, 2).to(dt)
    opt = lib.optim.Adam(m.parameters(), lr=0.1)
    log = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", len(a), sorted(k))))
    opt.register_step_post_hook(lambda o, a, k: log.append(("post",)))
    opt.register_state_dict_pre_hook(lambda o: log.append("sdpre"))
    opt.register_state_dict_post_hook(lambda o, sd: sd.__setitem__("extra", 1) or sd)
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(("ldpre", sorted(sd))))
    opt.register_load_state_dict_post_hook(lambda o: log.append("ldpost"))
    m(lib.ones(1, 3, dtype=dt)).sum().backward()
    opt.step()
    h1.remove()
    opt.step()
    sd = opt.state_dict()
    rec("sd_keys", str(sorted(sd)))
    opt.load_state_dict(sd)
    rec("log", str(log))
    gh = importlib.import_module(
        lib.__name__ + ".optim.optimizer"
    ).register_optimizer_step_pre_hook(lambda o, a, k: log.append("global"))
    opt.step()
    gh.remove()
    opt.step()
    rec("log2", str(log[-3:]))
    # load_state_dict errors
    opt2 = lib.optim.Adam([{"params": [m.weight]}, {"params": [m.bias]}], lr=0.1)
    rec.err("ngroups", lambda: opt2.load_state_dict(sd))
    opt3 = lib.optim.Adam([m.weight], lr=0.1)
    rec.err("size", lambda: opt3.load_state_dict(sd))
    # dtype cast on load
    m64 = nn.Linear(3, 2).double()
    o64 = lib.optim.Adam(m64.parameters(), lr=0.1)
    m64(lib.ones(1, 3, dtype=lib.float64)).sum().backward()
    o64.step()
    m32 = nn.Linear(3, 2).float()
    o32 = lib.optim.Adam(m32.parameters(), lr=0.1)
    o32.load_state_dict(o64.state_dict())
    st = o32.state[m32.weight]
    rec("cast", str((st["exp_avg"].dtype, st["step"].dtype)))
    rec("st_repr", repr(st["step"]))
    # sgd momentum buffers and zero_grad(set_to_none=False)
    o4 = lib.optim.SGD(
        m.parameters(), lr=0.1, momentum=0.9, dampening=0.1, nesterov=False, maximize=True
    )
    m.zero_grad()
    m(lib.ones(2, 3, dtype=dt)).sum().backward()
    o4.step()
    o4.step()
    rec("mb", o4.state[m.weight]["momentum_buffer"])
    rec("w", m.weight)
    rec.err("nesterov_bad", lambda: lib.optim.SGD(m.parameters(), lr=0.1, nesterov=True))
    rec("defaults", str(sorted(o4.defaults.items())))
    o4.zero_grad(set_to_none=False)
    rec("zg", m.weight.grad)


def p_module_mut(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    ml.insert(1, nn.ReLU())
    ml.extend([nn.Tanh()])
    rec("ml", repr(ml))
    p = ml.pop(0)
    rec("pop", repr(p))
    del ml[1]
    rec("ml2", repr(ml))
    rec("ml_keys", str([n for n, _ in ml.named_children()]))
    ml[0] = nn.Identity()
    rec("ml3", repr(ml[-2:]))
    md = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    md.update([("c", nn.Tanh())])
    rec("md", repr(md))
    rec("mdpop", repr(md.pop("a")))
    rec("mdkeys", str(list(md.keys())))
    rec.err("md_bad", lambda: md["zz"])
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))
    seq.append(nn.Softmax(-1))
    seq.insert(0, nn.Identity())
    rec("seq", repr(seq))
    rec("seq_slice", repr(seq[1:3]))
    del seq[0]
    rec("seq_del", str([n for n, _ in seq.named_children()]))
    rec("get_sub", repr(seq.get_submodule("2")))
    seq.set_submodule("1", nn.GELU())
    rec("set_sub", repr(seq))
    rec.err("get_sub_bad", lambda: seq.get_submodule("9"))
    rec.err("get_sub_bad2", lambda: seq.get_submodule("0.weight"))
    rec("get_param", seq.get_parameter("0.bias").shape)
    # weight sharing
    a, b = nn.Linear(3, 3, bias=False), nn.Linear(3, 3, bias=False)
    b.weight = a.weight
    net = nn.Sequential(a, b)
    rec("n_params", sum(p.numel() for p in net.parameters()))
    rec("n_named_dup", len(list(net.named_parameters(remove_duplicate=False))))
    rec("sd_keys", str(list(net.state_dict().keys())))
    rec("mods_dup", len(list(nn.Sequential(a, a).named_modules(remove_duplicate=False))))
    rec("mods", len(list(nn.Sequential(a, a).modules())))
    r = net.load_state_dict({"0.weight": lib.eye(3)}, strict=False)
    rec("ik", repr(r))
    rec("shared_after", b.weight)
    rec.err("strict", lambda: net.load_state_dict({"0.weight": lib.eye(3), "x": lib.eye(3)}))
    rec.err("shape", lambda: net.load_state_dict({"0.weight": lib.eye(2), "1.weight": lib.eye(3)}))
    net.load_state_dict({"0.weight": lib.eye(3) * 2, "1.weight": lib.eye(3) * 3}, assign=True)
    rec("assign", net[0].weight)
    rec("assign_shared", str(net[0].weight is net[1].weight))
    rec("params_recurse", len(list(net.parameters(recurse=False))))
    rec("repr_net", repr(net))
    rec("extra", repr(nn.Linear(3, 3, bias=False)))


def p_sched_custom(lib, dt, rec):
    nn = lib.nn
    lr_s = lib.optim.lr_scheduler
    m = nn.Linear(3, 2).to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    cy = lr_s.CyclicLR(
        opt, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3, mode="exp_range", gamma=0.9
    )
    v = []
    for _ in range(8):
        opt.step()
        cy.step()
        v.append((opt.param_groups[0]["lr"], opt.param_groups[0]["momentum"]))
    rec("cyc", v)
    sd = cy.state_dict()
    rec("cy_sd", str(sorted(sd)))
    opt2 = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    cy2 = lr_s.CyclicLR(
        opt2,
        base_lr=0.01,
        max_lr=0.1,
        step_size_up=2,
        scale_fn=lambda x: 0.5 ** (x - 1),
        scale_mode="cycle",
    )
    v = []
    for _ in range(8):
        opt2.step()
        cy2.step()
        v.append(cy2.get_last_lr()[0])
    rec("cyc2", v)
    rec.err("cy_adam", lambda: lr_s.CyclicLR(lib.optim.Adam(m.parameters()), 0.01, 0.1))
    rec(
        "cy_adam_ok",
        lr_s.CyclicLR(
            lib.optim.Adam(m.parameters()), 0.01, 0.1, cycle_momentum=False
        ).get_last_lr(),
    )

    class WarmupInvSqrt(lr_s.LRScheduler):
        def __init__(self, optimizer, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            s = max(self.last_epoch, 1)
            f = min(s**-0.5, s * self.warmup**-1.5)
            return [base * f for base in self.base_lrs]

    opt3 = lib.optim.AdamW(m.parameters(), lr=1.0)
    ws = WarmupInvSqrt(opt3, 4)
    v = [ws.get_last_lr()[0]]
    for _ in range(7):
        opt3.step()
        ws.step()
        v.append(ws.get_last_lr()[0])
    rec("custom", v)
    rec("custom_sd", str(sorted(ws.state_dict())))
    opt4 = lib.optim.AdamW(m.parameters(), lr=1.0)
    ws2 = WarmupInvSqrt(opt4, 4)
    ws2.load_state_dict(ws.state_dict())
    rec("custom_loaded", ws2.last_epoch)
    rec("custom_lr_after_load", opt4.param_groups[0]["lr"])
    lam = lr_s.MultiplicativeLR(opt4, lambda e: 0.95)
    v = []
    for _ in range(3):
        opt4.step()
        lam.step()
        v.append(lam.get_last_lr()[0])
    rec("mult", v)
    opt5 = lib.optim.SGD(m.parameters(), lr=lib.tensor(0.5))
    st = lr_s.StepLR(opt5, 1, 0.5)
    opt5.step()
    st.step()
    rec("tensor_lr", str(type(opt5.param_groups[0]["lr"]).__name__))
    rec("tensor_lr_v", opt5.param_groups[0]["lr"])
    rec("tensor_last", str(st.get_last_lr()))


def p_optim_zoo(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    x = lib.randn(8, 4, dtype=dt)
    y = lib.randn(8, 1, dtype=dt)
    cfgs = [
        ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
        (
            "NAdam",
            dict(lr=0.05, decoupled_weight_decay=True, weight_decay=0.1, momentum_decay=0.004),
        ),
        ("RAdam", dict(lr=0.05, decoupled_weight_decay=True, weight_decay=0.1)),
        ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
        ("Adamax", dict(lr=0.05, weight_decay=0.01)),
        ("Adadelta", dict(lr=1.0, rho=0.8)),
        ("ASGD", dict(lr=0.05, t0=2)),
        ("Rprop", dict(lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 1))),
        ("Adafactor", dict(lr=0.05)),
    ]
    for name, kw in cfgs:
        m, opt, loss = _fit_tiny(lib, dt, x, y, name, kw, 4)
        rec(name + ".l", loss)
        rec.params(name, m)
        sd = opt.state_dict()
        rec(name + ".sk", str(sorted(sd["state"][0].keys())))
        rec(name + ".pg", str(sorted(sd["param_groups"][0].keys())))
    lib.manual_seed(4)
    m = nn.Linear(4, 1).to(dt)
    opt = lib.optim.LBFGS(
        m.parameters(), lr=1, max_iter=5, history_size=3, line_search_fn="strong_wolfe"
    )

    def closure():
        opt.zero_grad()
        loss = (m(x) - y).pow(2).mean()
        loss.backward()
        return loss

    for _ in range(2):
        rec("lbfgs", opt.step(closure))
    rec.params("lbfgs", m)
    rec("lbfgs_state", str(sorted(opt.state_dict()["state"][0].keys())))


def p_clip(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(5)
    m = nn.Linear(4, 3).to(dt)
    m(lib.randn(2, 4, dtype=dt)).sum().backward()
    ps = list(m.parameters())
    tn = nn.utils.get_total_norm([p.grad for p in ps], norm_type=3.0)
    rec("tn", tn)
    nn.utils.clip_grads_with_norm_(ps, 0.5, tn)
    rec("g", ps[0].grad)
    rec("inf_norm", nn.utils.clip_grad_norm_(ps, 0.1, norm_type="inf"))
    ps[1].grad[0] = float("nan")
    rec.err("nonfinite", lambda: nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True))
    rec("nan_norm", nn.utils.clip_grad_norm_(ps, 1.0))
    rec.err("vec_bad", lambda: nn.utils.parameters_to_vector([1, 2]))
    rec.err("v2p_bad", lambda: nn.utils.vector_to_parameters(lib.zeros(3), ps))
    rec.err("v2p_bad2", lambda: nn.utils.vector_to_parameters([1.0], ps))


def p_rng(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    g = lib.Generator().manual_seed(10)
    t = lib.empty(3, 4, dtype=dt)
    nn.init.normal_(t, 0, 2, generator=g)
    rec("normal", t)
    nn.init.uniform_(t, -1, 1, generator=g)
    rec("uniform", t)
    nn.init.kaiming_uniform_(t, a=math.sqrt(5), generator=g)
    rec("ku", t)
    nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu", generator=g)
    rec("kn", t)
    nn.init.xavier_uniform_(t, gain=2.0, generator=g)
    rec("xu", t)
    nn.init.xavier_normal_(t, generator=g)
    rec("xn", t)
    nn.init.trunc_normal_(t, std=0.02, a=-0.04, b=0.04, generator=g)
    rec("tn", t)
    nn.init.orthogonal_(t, generator=g)
    rec("orth", t)
    nn.init.sparse_(t, 0.5, generator=g)
    rec("sparse", t)
    rec("g_state_eq", str(g.get_state().shape))
    t.random_(0, 10, generator=g)
    rec("random", t)
    t.exponential_(2.0, generator=g)
    rec("exp", t)
    t.geometric_(0.3, generator=g)
    rec("geo", t)
    t.cauchy_(generator=g)
    rec("cauchy", t)
    t.log_normal_(0, 0.5, generator=g)
    rec("lognormal", t)
    t.bernoulli_(0.3, generator=g)
    rec("bern", t)
    rec("normal_fn", lib.normal(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt), generator=g))
    rec("normal_fn2", lib.normal(2.0, 3.0, size=(2,), generator=g, dtype=dt))
    rec("bern_fn", lib.bernoulli(lib.full((4,), 0.5, dtype=dt), generator=g))
    rec("mn", lib.multinomial(lib.tensor([0.1, 0.5, 0.2, 0.2], dtype=dt), 3, generator=g))
    rec("rp32", lib.randperm(6, generator=g, dtype=lib.int32))
    rec("poisson", lib.poisson(lib.full((4,), 3.0, dtype=dt), generator=g))
    gc = g.clone_state()
    a = lib.rand(3, generator=g, dtype=dt)
    b = lib.rand(3, generator=gc, dtype=dt)
    rec("clone_eq", lib.equal(a, b))
    rec("seed_of", g.initial_seed())
    lib.manual_seed(5)
    rec("rand_like", lib.rand_like(t))
    rec("randn_like", lib.randn_like(t))
    rec("randint_like", lib.randint_like(t, 3, 9))
    rec("init_seed", lib.initial_seed())
    st = lib.random.get_rng_state()
    x1 = lib.randn(2, dtype=dt)
    lib.random.set_rng_state(st)
    rec("restore", lib.randn(2, dtype=dt) - x1)
    rec.err("set_bad", lambda: lib.set_rng_state(lib.zeros(3)))
    rec.err("set_bad2", lambda: g.set_state(lib.zeros(3, dtype=lib.uint8)))
    rec.err("gen_float", lambda: lib.Generator().manual_seed(1.5))
    rec("neg_seed", lib.Generator().manual_seed(-1).initial_seed())
    rec("big_seed", lib.rand(2, generator=lib.Generator().manual_seed(2**63 + 5), dtype=dt))


def p_sobol(lib, dt, rec):
    se = lib.quasirandom.SobolEngine(3, scramble=True, seed=7)
    rec("d1", se.draw(4, dtype=dt))
    se.fast_forward(3)
    rec("d2", se.draw(2))
    rec.err("nb", lambda: se.draw_base2(2))
    se.reset()
    rec("nb2", se.draw_base2(2))
    se.reset()
    rec("reset", se.draw(1))
    rec("repr", repr(se))
    se2 = lib.quasirandom.SobolEngine(2)
    rec("unscr", se2.draw(5))
    rec.err("too_big", lambda: lib.quasirandom.SobolEngine(30000))
    # hyperparameter search from sobol points
    pts = lib.quasirandom.SobolEngine(2, scramble=True, seed=1).draw(4, dtype=lib.float64)
    lr = 10 ** (-4 + 3 * pts[:, 0])
    rec("lr", lr)
    D = lib.distributions
    bounds = lib.tensor([math.log(1e-4), math.log(1e-1)], dtype=lib.float64)
    lu = D.TransformedDistribution(D.Uniform(bounds[0], bounds[1]), [D.ExpTransform()])
    lib.manual_seed(0)
    s = lu.sample((3,))
    rec("lu", s)
    rec("lu_lp", lu.log_prob(s))


def p_relaxed(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(1)
    lg = lib.randn(2, 3, 4, dtype=dt, requires_grad=True)
    y = F.gumbel_softmax(lg, tau=0.5, hard=True, dim=1)
    rec("y", y)
    (y * lib.arange(4, dtype=dt)).sum().backward()
    rec("g", lg.grad)
    rec.warns("eps", lambda: F.gumbel_softmax(lg, eps=1e-5))
    y2 = F.gumbel_softmax(lg.detach(), tau=1e-3)
    rec("y2", y2)
    rec("gf", lib.nn.functional.softmax(lg, dim=-1, dtype=lib.float64))
    ent = -(F.softmax(lg, -1) * F.log_softmax(lg, -1)).sum(-1)
    rec("ent", ent)
    # relaxed categorical / one-hot categorical straight-through
    D = lib.distributions
    rc = D.RelaxedOneHotCategorical(lib.tensor(0.5, dtype=dt), logits=lg)
    s = rc.rsample()
    rec("rc", s)
    rec("rc_lp", rc.log_prob(s))
    st = D.OneHotCategoricalStraightThrough(logits=lg)
    ss = st.rsample((2,))
    rec("st", ss)
    rb = D.RelaxedBernoulli(lib.tensor(0.3, dtype=dt), logits=lg[0, 0])
    rec("rb", rb.rsample())


def p_counts(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Conv2d(8, 8, 3, stride=2, groups=2),
        nn.Flatten(),
        nn.LazyLinear(5),
    ).to(dt)
    x = lib.randn(2, 3, 8, 8, dtype=dt)
    # (the rest of torch's message names torch's own classes, so is not compared)
    _err_head(rec, "lazy_count", lambda: sum(p.numel() for p in net.parameters()), " objects>")
    net(x)
    rec("count", sum(p.numel() for p in net.parameters()))
    rec("lazy_repr", repr(net[5]))
    macs = []

    def hook(mod, inp, out):
        if isinstance(mod, nn.Conv2d):
            k = mod.weight[0].numel()
            macs.append(out.numel() * k)
        elif isinstance(mod, nn.Linear):
            macs.append(out.numel() * mod.in_features)

    hs = [m.register_forward_hook(hook) for m in net.modules() if len(list(m.children())) == 0]
    net(x)
    for h in hs:
        h.remove()
    rec("macs", macs)
    kw = []
    h = net[0].register_forward_pre_hook(
        lambda mod, args, kwargs: kw.append(sorted(kwargs)), with_kwargs=True
    )
    net(x)
    h.remove()
    rec("kw", str(kw))
    bn = nn.BatchNorm1d(3, momentum=None).to(dt)
    for i in range(3):
        bn(lib.randn(4, 3, dtype=dt) + i)
    rec("cum_rm", bn.running_mean)
    rec("cum_rv", bn.running_var)
    rec("cum_n", bn.num_batches_tracked)
    rec("bn_repr", repr(bn))
    rec("nz", lib.count_nonzero(F.relu(lib.randn(4, 5, dtype=dt)), dim=1))


def p_parametrize(lib, dt, rec):
    nn = lib.nn
    P = importlib.import_module(lib.__name__ + ".nn.utils.parametrize")
    lib.manual_seed(1)

    class ChannelMask(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.register_buffer("mask", lib.ones(n, 1))

        def forward(self, w):
            return w * self.mask

    class Sym(nn.Module):
        def forward(self, w):
            return w.triu() + w.triu(1).T

    m = nn.Linear(4, 4).to(dt)
    P.register_parametrization(m, "weight", ChannelMask(4).to(dt))
    P.register_parametrization(m, "weight", Sym())
    m.parametrizations.weight[0].mask[1] = 0
    rec("w", m.weight)
    rec("names", str([n for n, _ in m.named_parameters()]))
    rec("sd", str(list(m.state_dict().keys())))
    rec("repr", repr(m))
    rec("is_p", str((P.is_parametrized(m), P.is_parametrized(m, "bias"))))
    x = lib.randn(3, 4, dtype=dt)
    m(x).pow(2).sum().backward()
    rec("g", m.parametrizations.weight.original.grad)
    with P.cached():
        a = m.weight
        b = m.weight
        rec("cached_same", str(a is b))
    P.remove_parametrizations(m, "weight", leave_parametrized=True)
    rec("after", str([n for n, _ in m.named_parameters()]))
    rec("w_after", m.weight)
    rec.err("remove_again", lambda: P.remove_parametrizations(m, "weight"))
    o = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3).to(dt))
    rec("orth", o.weight @ o.weight.T)
    wn = nn.utils.parametrizations.weight_norm(nn.Linear(3, 2).to(dt))
    rec("wn_names", str([n for n, _ in wn.named_parameters()]))
    rec("wn_g", wn.parametrizations.weight.original0)
    sn = nn.utils.parametrizations.spectral_norm(nn.Linear(3, 2).to(dt))
    sn(lib.randn(2, 3, dtype=dt))
    rec("sn", sn.weight)


def p_data_more(lib, dt, rec):
    data = lib.utils.data
    rec.warns(
        "zero_len",
        lambda: data.random_split(
            range(3), [0.5, 0.5, 0.0], generator=lib.Generator().manual_seed(0)
        ),
    )
    rec.err("frac_bad", lambda: data.random_split(range(3), [0.5, 0.6]))
    rec.err("neg", lambda: data.random_split(range(3), [-1, 4]))
    s = data.random_split(range(10), [0.5, 0.5], generator=lib.Generator().manual_seed(0))
    ss = data.Subset(s[0], [0, 2])
    rec("subsub", list(ss))
    rec("ss_ind", str(type(s[0].indices).__name__))
    g = lib.Generator().manual_seed(1)
    dl = data.DataLoader(
        data.TensorDataset(lib.arange(10)), batch_size=3, shuffle=True, generator=g
    )
    rec("ep1", [b[0] for b in dl])
    rec("ep2", [b[0] for b in dl])
    rec("len", len(dl))
    st = g.get_state()
    it = iter(dl)
    a = next(it)[0]
    g.set_state(st)
    b = next(iter(dl))[0]
    rec("resume_eq", lib.equal(a, b))
    srs = data.SubsetRandomSampler([5, 6, 7, 8])
    rec("srs_len", len(srs))
    lib.manual_seed(3)
    rec("srs", list(srs))
    rec.err("wrs_bad", lambda: data.WeightedRandomSampler([0.1], 3, replacement=False))
    rec.err("wrs_bad2", lambda: data.WeightedRandomSampler([[0.1, 0.2]], 3))
    rec.err("rs_bad", lambda: data.RandomSampler(range(3), num_samples=0))
    rec.err("bs_bad", lambda: data.BatchSampler(range(3), 0, False))
    lib.manual_seed(4)
    dl2 = data.DataLoader(range(6), batch_size=2, shuffle=True)
    rec("dl2", [b for b in dl2])
    dl3 = data.DataLoader(list(zip(range(4), [0.5, 1.5, 2.5, 3.5], strict=True)), batch_size=2)
    rec("dl3", str([tuple(t.dtype for t in b) for b in dl3]))
    rec("dl3v", [b[1] for b in dl3])
    dl4 = data.DataLoader([{"x": lib.ones(2, dtype=dt), "y": 1}], batch_size=1)
    b = next(iter(dl4))
    rec("dict", str((sorted(b), b["x"].shape, b["y"].dtype)))


def p_deepcopy(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(3, 2).to(dt)
    opt = lib.optim.Adam(m.parameters(), lr=0.1)
    m(lib.ones(1, 3, dtype=dt)).sum().backward()
    opt.step()
    o2 = copy.deepcopy(opt)
    rec("o2_linked", str(o2.param_groups[0]["params"][0] is m.weight))
    rec("o2_state", str(list(o2.state.keys())[0] is m.weight))
    m2, o3 = copy.deepcopy([m, opt])
    rec("o3", str(o3.param_groups[0]["params"][0] is m2.weight))
    m2.zero_grad()
    m2(lib.ones(1, 3, dtype=dt)).sum().backward()
    o3.step()
    rec("w2", m2.weight)
    rec("w", m.weight)
    rec("st", o3.state[m2.weight]["step"])
    rec("st_orig", opt.state[m.weight]["step"])
    buf = io.BytesIO()
    lib.save({"m": m, "opt": opt}, buf)
    buf.seek(0)
    obj = lib.load(buf, weights_only=False)
    rec("loaded_linked", str(obj["opt"].param_groups[0]["params"][0] is obj["m"].weight))
    buf.seek(0)
    _err_head(rec, "wo", lambda: lib.load(buf, weights_only=True), ". This file")
    # gradient accumulation with no_sync-like detach and retain_graph
    x = lib.randn(4, 3, dtype=dt)
    h = m(x)
    l1 = h.sum()
    l1.backward(retain_graph=True)
    (h**2).sum().backward()
    rec("acc", m.weight.grad)
    rec.err("again", lambda: l1.backward())


def p_select(lib, dt, rec):
    s = lib.tensor([0.5, 0.2, 0.5, 0.9, 0.2, 0.1, 0.5], dtype=dt)
    rec("q", lib.quantile(s, lib.tensor([0.25, 0.75], dtype=dt)))
    rec("q_lower", lib.quantile(s, 0.3, interpolation="lower"))
    rec("q_mid", lib.quantile(s, 0.3, interpolation="midpoint"))
    rec("q_near", lib.quantile(s, 0.3, interpolation="nearest"))
    rec("nq", lib.nanquantile(lib.tensor([1.0, float("nan"), 3.0], dtype=dt), 0.5))
    rec("topk", lib.topk(s, 3, largest=False))
    # (the order of tied indices is left to the implementation: not compared)
    rec("topk_i", lib.topk(s.unique(), 3).indices)
    rec("sort_stable", lib.sort(s, stable=True, descending=True).indices)
    rec("argsort", lib.argsort(s, stable=True))
    rec("kth", lib.kthvalue(s, 2))
    rec("median", lib.median(s))
    rec("mode", lib.mode(s))
    rec("rank", s.argsort().argsort())
    rec("uniq", lib.unique(s, return_counts=True, return_inverse=True))
    rec("bucket", lib.bucketize(s, lib.tensor([0.2, 0.5], dtype=dt), right=True))
    rec("ss", lib.searchsorted(lib.tensor([0.1, 0.2, 0.5], dtype=dt), s, side="right"))
    rec("hist", lib.histc(s, bins=4, min=0, max=1))
    rec("cummax", lib.cummax(s, 0))
    rec("ema", lib.tensor([1.0, 2, 3], dtype=dt).lerp(lib.tensor([2.0, 2, 2], dtype=dt), 0.1))
    rec.err("q_bad", lambda: lib.quantile(s, 1.5))
    rec.err("q_int", lambda: lib.quantile(lib.tensor([1, 2]), 0.5))
    rec.err("topk_bad", lambda: lib.topk(s, 10))
    rec("amax", lib.amax(lib.stack([s, s * 2]), dim=0))
    rec("nanmean", lib.nanmean(lib.tensor([1.0, float("nan")], dtype=dt)))
    rec("log_space", lib.logspace(-4, -1, 4, dtype=dt))
    rec("log_space2", lib.logspace(0, 3, 4, base=2, dtype=dt))
    rec("linspace", lib.linspace(1e-4, 1e-1, 5, dtype=dt))
    rec(
        "mesh",
        lib.meshgrid(
            lib.tensor([1.0, 2.0], dtype=dt), lib.tensor([3.0, 4.0, 5.0], dtype=dt), indexing="xy"
        ),
    )
    rec("cart", lib.cartesian_prod(lib.tensor([1, 2]), lib.tensor([3, 4])))
    rec("comb", lib.combinations(lib.tensor([1, 2, 3]), 2))


def p_opt_repr(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2)).to(dt)
    opt = lib.optim.AdamW(
        [{"params": m[0].parameters()}, {"params": m[1].parameters(), "lr": 0.1}], lr=1e-3
    )
    rec("repr", repr(opt))
    opt2 = lib.optim.SGD(m.named_parameters(), lr=0.1, momentum=0.9)
    m(lib.randn(2, 3, dtype=dt)).sum().backward()
    opt2.step()
    sd = opt2.state_dict()
    rec("sd", str(sd["param_groups"]))
    rec("state_keys", str(list(sd["state"].keys())))
    rec("repr2", repr(opt2))
    o3 = copy.deepcopy((m, opt2))
    mm, oo = o3
    rec("linked", str(oo.param_groups[0]["params"][0] is mm[0].weight))
    rec("state_linked", str(list(oo.state.keys())[0] is mm[0].weight))


def p_sched_errors(lib, dt, rec):
    nn = lib.nn
    m = nn.Linear(3, 2)
    opt = lib.optim.SGD(m.parameters(), lr=1.0)
    s = lib.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    rec.warns("before_opt", lambda: s.step())
    opt.step()
    rec.warns("epoch", lambda: s.step(3))
    rec("lr", s.get_last_lr())
    rec.warns("get_lr", lambda: s.get_lr())
    rec("repr", repr(s.state_dict()))
    opt2 = lib.optim.SGD(m.parameters(), lr=1.0)
    rec.err("linear_bad", lambda: lib.optim.lr_scheduler.LinearLR(opt2, start_factor=0))
    rec.err("linear_bad2", lambda: lib.optim.lr_scheduler.LinearLR(opt2, end_factor=2))
    rec.err("const_bad", lambda: lib.optim.lr_scheduler.ConstantLR(opt2, factor=2))
    rec.err(
        "no_initial",
        lambda: lib.optim.lr_scheduler.StepLR(
            lib.optim.SGD(m.parameters(), lr=1.0), 2, last_epoch=3
        ),
    )
    rec.err(
        "seq_bad_opt",
        lambda: lib.optim.lr_scheduler.SequentialLR(
            opt2, [lib.optim.lr_scheduler.StepLR(opt, 2)], milestones=[]
        ),
    )
    rec.err("oc_nototal", lambda: lib.optim.lr_scheduler.OneCycleLR(opt2, max_lr=1.0))
    rec.err(
        "oc_pct",
        lambda: lib.optim.lr_scheduler.OneCycleLR(opt2, max_lr=1.0, total_steps=10, pct_start=2),
    )
    rec.err(
        "oc_anneal",
        lambda: lib.optim.lr_scheduler.OneCycleLR(
            opt2, max_lr=1.0, total_steps=10, anneal_strategy="x"
        ),
    )
    rec.err("cawr", lambda: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=0))
    rec.err(
        "cawr2", lambda: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt2, T_0=2, T_mult=0)
    )
    rec.err("lambda_n", lambda: lib.optim.lr_scheduler.LambdaLR(opt2, [lambda e: 1, lambda e: 2]))
    pl = lib.optim.lr_scheduler.ReduceLROnPlateau(opt2)
    rec("pl_last", pl.get_last_lr())
    rec.warns("pl_epoch", lambda: pl.step(1.0, epoch=3))
    rec("pl_last_epoch", pl.last_epoch)


def p_swa_misc(lib, dt, rec):
    nn = lib.nn
    su = lib.optim.swa_utils
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).to(dt)
    am = su.AveragedModel(m)
    rec("repr", repr(am))
    rec("n_avg", am.n_averaged)
    rec("names", str([n for n, _ in am.named_buffers()]))
    am.update_parameters(m)
    rec("n_avg1", am.n_averaged)
    opt = lib.optim.SGD(m.parameters(), lr=0.5)
    rec.err("swalr_bad", lambda: su.SWALR(opt, swa_lr=0.1, anneal_strategy="x"))
    rec.err("swalr_bad2", lambda: su.SWALR(opt, swa_lr=0.1, anneal_epochs=-1))
    rec.err("swalr_bad3", lambda: su.SWALR(opt, swa_lr=[0.1, 0.2]))
    s = su.SWALR(opt, swa_lr=0.1, anneal_epochs=2, anneal_strategy="linear")
    v = [opt.param_groups[0]["lr"]]
    for _ in range(4):
        opt.step()
        s.step()
        v.append(opt.param_groups[0]["lr"])
    rec("lin", v)
    rec("ann", su.SWALR.cos_anneal(0.3) if hasattr(su.SWALR, "cos_anneal") else 0)
    am2 = su.AveragedModel(m, use_buffers=True)
    with lib.no_grad():
        m[0].weight.add_(1)
    m(lib.randn(5, 3, dtype=dt))
    am2.update_parameters(m)
    rec("nbt", am2.module[1].num_batches_tracked)
    rec("rm", am2.module[1].running_mean)
    rec("w", am2.module[0].weight)
    loader = [lib.randn(4, 3, dtype=dt) for _ in range(3)]
    m.train()
    su.update_bn(loader, m)
    rec("m_rm", m[1].running_mean)
    rec("m_mom", m[1].momentum)
    rec("m_training", str(m.training))


def p_zero_cost(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1),
        nn.BatchNorm2d(6),
        nn.ReLU(),
        nn.Conv2d(6, 6, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(6, 4),
    ).to(dt)
    x = lib.randn(5, 3, 6, 6, dtype=dt)
    y = lib.randint(0, 4, (5,))
    # NASWOT: binary activation codes through forward hooks
    codes = []

    def hook(mod, inp, out):
        codes.append((out.flatten(1) > 0).to(dt))

    hs = [m.register_forward_hook(hook) for m in net if isinstance(m, nn.ReLU)]
    with lib.no_grad():
        net(x)
    for h in hs:
        h.remove()
    c = lib.cat(codes, 1)
    K = c @ c.t() + (1 - c) @ (1 - c).t()
    sign, logdet = lib.linalg.slogdet(K)
    rec("naswot", logdet)
    rec("naswot_sign", sign)
    # SNIP and grad_norm
    net.zero_grad()
    F.cross_entropy(net(x), y).backward()
    snip = sum((p.grad * p).abs().sum() for p in net.parameters() if p.ndim > 1)
    gn = lib.stack([p.grad.norm() for p in net.parameters()]).sum()
    rec("snip", snip)
    rec("grad_norm", gn)
    rec("fe_norm", lib._foreach_norm([p.grad for p in net.parameters()]))
    # synflow: |params|, all-ones input, in float64
    signs = {}
    with lib.no_grad():
        for n, p in net.state_dict().items():
            signs[n] = lib.sign(p)
            p.abs_()
    net.double().eval()
    net.zero_grad()
    out = net(lib.ones(1, 3, 6, 6, dtype=lib.float64))
    out.sum().backward()
    syn = sum((p * p.grad).sum() for p in net.parameters() if p.grad is not None)
    rec("synflow", syn)
    with lib.no_grad():
        for n, p in net.state_dict().items():
            p.mul_(signs[n].to(p.dtype)) if p.is_floating_point() else None
    net.to(dt).train()
    # jacob_cov
    xi = x.clone().requires_grad_()
    out = net(xi)
    jac = lib.autograd.grad(out, xi, lib.ones_like(out))[0].flatten(1)
    cc = lib.corrcoef(jac)
    ev = lib.linalg.eigvalsh(cc)
    k = 1e-5
    rec("jacob_cov", -lib.sum(lib.log(ev + k) + 1.0 / (ev + k)))
    rec("cov", lib.cov(jac, correction=0))
    # fisher via retained activations
    acts = []

    def fh(mod, inp, out):
        out.retain_grad()
        acts.append(out)

    h = net[2].register_forward_hook(fh)
    F.cross_entropy(net(x), y).backward()
    h.remove()
    a = acts[0]
    fisher = (a * a.grad).sum((2, 3)).pow(2).mean(0).sum() * 0.5
    rec("fisher", fisher)


def p_pcdarts_enas(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)

    def channel_shuffle(x, groups):
        b, c, h, w = x.shape
        return x.view(b, groups, c // groups, h, w).transpose(1, 2).contiguous().view(b, c, h, w)

    C, k = 8, 4
    ops = nn.ModuleList(
        [
            nn.Identity(),
            nn.MaxPool2d(3, 1, 1),
            nn.AvgPool2d(3, 1, 1),
            nn.Conv2d(C // k, C // k, 3, padding=1, bias=False),
        ]
    ).to(dt)
    alpha = nn.Parameter(1e-3 * lib.randn(4, dtype=dt))
    beta = nn.Parameter(1e-3 * lib.randn(3, dtype=dt))
    x = lib.randn(2, C, 5, 5, dtype=dt)
    w = F.softmax(alpha, -1)
    xtemp, xtemp2 = x[:, : C // k], x[:, C // k :]
    temp1 = sum(wi * op(xtemp) for wi, op in zip(w, ops, strict=True))
    ans = lib.cat([temp1, xtemp2], 1)
    out = channel_shuffle(ans, k)
    rec("out", out)
    wb = F.softmax(beta, -1)
    edges = lib.stack([out, out * 2, out.flip(-1)])
    mixed = (wb.view(-1, 1, 1, 1, 1) * edges).sum(0)
    rec("mixed_stride", str(mixed.stride()))
    gh = []
    alpha.register_hook(lambda g: gh.append(g.clone()))
    mixed.pow(2).mean().backward()
    rec("ga", alpha.grad)
    rec("gb", beta.grad)
    rec("hook", gh[0])
    # ProxylessNAS binary gates
    probs = F.softmax(alpha.detach(), -1)
    g = lib.Generator().manual_seed(5)
    sample = lib.multinomial(probs, 2, replacement=False, generator=g)
    rec("sample", sample)
    gates = lib.zeros_like(probs)
    gates[sample[0]] = 1.0
    rec("gates", gates)
    sub = F.softmax(alpha[sample], -1)
    rec("sub", sub)
    # ENAS-style controller
    lib.manual_seed(2)
    cell = nn.LSTMCell(8, 8).to(dt)
    emb = nn.Embedding(5, 8).to(dt)
    head = nn.Linear(8, 4).to(dt)
    h = c = lib.zeros(1, 8, dtype=dt)
    inp = emb(lib.tensor([4]))
    logps, ents, acts = [], [], []
    for _ in range(4):
        h, c = cell(inp, (h, c))
        logits = 2.5 * lib.tanh(head(h) / 5.0)
        d = lib.distributions.Categorical(logits=logits)
        a = d.sample()
        acts.append(int(a))
        logps.append(d.log_prob(a))
        ents.append(d.entropy())
        inp = emb(a)
    rec("acts", acts)
    reward = 0.7
    baseline = 0.5
    baseline = 0.95 * baseline + 0.05 * reward
    loss = -(lib.cat(logps).sum() * (reward - baseline)) - 1e-4 * lib.cat(ents).sum()
    loss.backward()
    rec("ctrl_loss", loss)
    rec("ctrl_g", cell.weight_hh.grad)


def p_ema_foreach(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    su = lib.optim.swa_utils
    lib.manual_seed(3)
    m = nn.Sequential(
        nn.Linear(4, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2)
    ).to(dt)
    ema = copy.deepcopy(m).requires_grad_(False)
    swa = su.AveragedModel(m, multi_avg_fn=su.get_swa_multi_avg_fn())
    opt = lib.optim.Adam(m.parameters(), lr=0.05, foreach=True)
    x = lib.randn(16, 4, dtype=dt)
    y = lib.randn(16, 2, dtype=dt)
    for step in range(4):
        opt.zero_grad()
        F.mse_loss(m(x), y).backward()
        opt.step()
        d = min(0.99, (1 + step) / (10 + step))
        with lib.no_grad():
            ep, mp = list(ema.parameters()), list(m.parameters())
            lib._foreach_mul_(ep, d)
            lib._foreach_add_(ep, mp, alpha=1 - d)
            for b_e, b_m in zip(ema.buffers(), m.buffers(), strict=True):
                b_e.copy_(b_m)
        swa.update_parameters(m)
    rec.params("ema", ema)
    rec.params("swa", swa.module)
    rec("ema_rv", ema[1].running_var)
    rec("swa_n", swa.n_averaged)
    rec("fe_sub", lib._foreach_sub([lib.ones(2, dtype=dt)], [lib.full((2,), 3.0, dtype=dt)])[0])
    rec("fe_lerp", lib._foreach_lerp([lib.ones(2, dtype=dt)], [lib.zeros(2, dtype=dt)], 0.25)[0])
    rec(
        "fe_max",
        lib._foreach_maximum(
            [lib.tensor([1.0, 5.0], dtype=dt)], [lib.tensor([2.0, 3.0], dtype=dt)]
        )[0],
    )
    rec(
        "fe_addcdiv",
        lib._foreach_addcdiv(
            [lib.ones(2, dtype=dt)],
            [lib.ones(2, dtype=dt)],
            [lib.full((2,), 4.0, dtype=dt)],
            value=2.0,
        )[0],
    )
    rec("fe_sqrt", lib._foreach_sqrt([lib.tensor([4.0, 9.0], dtype=dt)])[0])
    rec("fe_norm_inf", lib._foreach_norm([lib.tensor([1.0, -5.0], dtype=dt)], ord=float("inf"))[0])
    rec.err("fe_bad", lambda: lib._foreach_add([lib.ones(2)], [lib.ones(2), lib.ones(2)]))
    # KD loss for supernet in-place distillation
    t = lib.randn(4, 5, dtype=dt)
    s = lib.randn(4, 5, dtype=dt, requires_grad=True)
    T = 2.0
    kd = F.kl_div(F.log_softmax(s / T, -1), F.softmax(t / T, -1), reduction="batchmean") * T * T
    kd2 = F.kl_div(
        F.log_softmax(s / T, -1), F.log_softmax(t / T, -1), reduction="batchmean", log_target=True
    )
    kd.backward()
    rec("kd", kd)
    rec("kd2", kd2)
    rec("kd_g", s.grad)
    rec.warns("kd_mean", lambda: F.kl_div(F.log_softmax(s, -1), F.softmax(t, -1)))


def p_amp_accum(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=2, backoff_factor=0.25)
    x = lib.randn(8, 4, dtype=dt)
    y = lib.randn(8, 2, dtype=dt)
    for step in range(5):
        opt.zero_grad()
        for xb, yb in zip(x.chunk(2), y.chunk(2), strict=True):
            with lib.autocast("cpu", dtype=lib.bfloat16):
                out = m(xb)
                loss = F.mse_loss(out.to(dt), yb) / 2  # (bfloat16 values, summed in dt)
            rec(f"ac_dtype{step}", str(out.dtype))
            scaler.scale(loss).backward()
        if step == 2:
            m[0].weight.grad[0, 0] = float("inf")
        scaler.unscale_(opt)
        gn = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        rec(f"gn{step}", gn)
        scaler.step(opt)
        scaler.update()
        rec(f"scale{step}", scaler.get_scale())
        rec(f"loss{step}", loss)
    rec.params("p", m)
    sd = scaler.state_dict()
    rec("sd", str(sorted(sd.items())))
    rec.err("unscale_twice", lambda: (scaler.unscale_(opt), scaler.unscale_(opt)))
    s2 = lib.amp.GradScaler("cpu")
    s2.load_state_dict(sd)
    rec("loaded", s2.get_scale())
    rec("growth", s2.get_growth_interval())
    rec("enabled", str(lib.amp.GradScaler("cpu", enabled=False).is_enabled()))
    rec("dis_scale", lib.amp.GradScaler("cpu", enabled=False).scale(lib.tensor(3.0)))


def p_checkpointing(lib, dt, rec):
    nn = lib.nn
    cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    lib.manual_seed(1)
    blocks = nn.Sequential(
        *[nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Dropout(0.2)) for _ in range(4)]
    ).to(dt)
    x = lib.randn(3, 6, dtype=dt, requires_grad=True)
    lib.manual_seed(2)
    out = cp.checkpoint_sequential(blocks, 2, x, use_reentrant=False)
    out.sum().backward()
    rec("out", out)
    rec("gx", x.grad)
    rec.params("b", blocks, grads=True)
    blocks.zero_grad()
    x.grad = None
    lib.manual_seed(2)
    h = x
    for b in blocks:
        h = cp.checkpoint(b, h, use_reentrant=False, preserve_rng_state=True)
    h.sum().backward()
    rec("out2", h)
    rec("gx2", x.grad)
    rec.warns("no_reentrant_flag", lambda: cp.checkpoint(blocks[0], x))
    sd = blocks.state_dict(keep_vars=True)
    rec("kv", str([t.requires_grad for t in sd.values()]))
    sd2 = blocks.state_dict(prefix="sup.")
    rec("prefix", str(list(sd2)[:2]))
    calls = []
    blocks.register_load_state_dict_post_hook(lambda mod, ik: calls.append(repr(ik)))
    blocks.load_state_dict(blocks.state_dict())
    rec("post", str(calls))
    blocks.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(prefix))
    blocks[0].state_dict()
    blocks.state_dict()
    rec("pre", str(calls))


def p_opt_errors(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Linear(3, 2).to(dt)
    rec.warns("dup", lambda: lib.optim.SGD([m.weight, m.weight], lr=0.1))
    rec.err(
        "tensor_lr_foreach",
        lambda: lib.optim.Adam(m.parameters(), lr=lib.tensor(0.1), foreach=True),
    )
    rec.err("bad_beta", lambda: lib.optim.Adam(m.parameters(), betas=(1.0, 0.9)))
    rec.err("bad_eps", lambda: lib.optim.Adam(m.parameters(), eps=-1))
    rec.err("bad_wd", lambda: lib.optim.AdamW(m.parameters(), weight_decay=-1))
    rec.err("bad_mom", lambda: lib.optim.SGD(m.parameters(), momentum=-0.1))
    rec.err("tensor_param", lambda: lib.optim.SGD(m.weight, lr=0.1))
    rec.err("dict_params", lambda: lib.optim.SGD([{"lr": 0.1}]))
    rec.err("int_param", lambda: lib.optim.SGD([lib.tensor([1, 2])], lr=0.1))
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    rec.warns(
        "added_extra",
        lambda: opt.add_param_group({"params": nn.Linear(2, 2).parameters(), "foo": 3}),
    )
    rec("extra_keys", str(sorted(opt.param_groups[1])))
    rec.err("overlap", lambda: opt.add_param_group({"params": [m.weight]}))
    rec.err("not_dict", lambda: opt.add_param_group([m.weight]))
    s = lib.optim.lr_scheduler.StepLR(opt, 1)
    rec("base_lrs", s.base_lrs)
    rec("initial", [g["initial_lr"] for g in opt.param_groups])
    orig = opt.step
    opt.step = lambda *a, **k: orig(*a, **k)
    rec.warns("overridden", lambda: s.step())
    rec.err("sd_bad", lambda: opt.load_state_dict({"state": {}}))
    opt2 = lib.optim.Adam(m.parameters(), lr=0.1)
    m(lib.ones(1, 3, dtype=dt)).sum().backward()
    opt2.step()
    sd = opt2.state_dict()
    sd["param_groups"][0]["lr"] = 0.5
    opt2.load_state_dict(sd)
    rec("loaded_lr", opt2.param_groups[0]["lr"])
    rec("step_t", opt2.state[m.weight]["step"])
    rec.err("closure_lbfgs", lambda: lib.optim.LBFGS(m.parameters()).step())
    rec.err("lbfgs_groups", lambda: lib.optim.LBFGS([{"params": [m.weight]}, {"params": [m.bias]}]))
    rec("zero_grad_none", str(m.weight.grad is None))
    opt2.zero_grad()
    rec("zero_grad_none2", str(m.weight.grad is None))


def p_optim_long(lib, dt, rec):
    lib.manual_seed(3)
    x = lib.randn(8, 4, dtype=dt)
    y = lib.randn(8, 1, dtype=dt)
    cfgs = [
        ("RAdam", dict(lr=0.05, weight_decay=0.1)),
        ("NAdam", dict(lr=0.05, weight_decay=0.1, maximize=False)),
        ("Adam", dict(lr=0.05, maximize=True, weight_decay=0.01)),
        ("AdamW", dict(lr=0.05, amsgrad=True)),
        ("RMSprop", dict(lr=0.01, momentum=0.5, weight_decay=0.1)),
        ("Adagrad", dict(lr=0.1, weight_decay=0.1)),
        ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, alpha=0.5, weight_decay=0.1)),
        ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.5, weight_decay=0.1)),
        ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, weight_decay=0.1)),
        ("Adamax", dict(lr=0.05, maximize=True)),
    ]
    for name, kw in cfgs:
        m, opt, loss = _fit_tiny(lib, dt, x, y, name, kw, 9)
        rec(name + ".l", loss)
        rec.params(name, m)
        st = opt.state[m[0].weight]
        for k, v in sorted(st.items()):
            rec(f"{name}.st.{k}", v)


def p_module_reprs(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    mods = [
        nn.MaxPool2d(3, stride=1, padding=1),
        nn.AvgPool2d(3, 1, 1, count_include_pad=False),
        nn.Dropout(0.3, inplace=True),
        nn.BatchNorm2d(4, affine=False, track_running_stats=False),
        nn.LSTMCell(3, 4, bias=False),
        nn.Embedding(5, 3, padding_idx=0, max_norm=1.0),
        nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=4, bias=False, padding_mode="reflect"),
        nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1),
        nn.AdaptiveAvgPool2d((None, 2)),
        nn.GELU(approximate="tanh"),
        nn.LayerNorm([3, 4], elementwise_affine=False, bias=False),
        nn.GroupNorm(2, 4),
        nn.PReLU(3),
        nn.Softmax(dim=1),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Hardswish(),
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
        nn.Flatten(0, -1),
        nn.Unflatten(1, (2, 2)),
        nn.Identity(3, foo=1),
        nn.ZeroPad2d((1, 0, 1, 0)),
        nn.PixelShuffle(2),
        nn.ChannelShuffle(2),
        nn.MultiheadAttention(8, 2, kdim=4, vdim=4),
        nn.TransformerEncoderLayer(8, 2, 16, norm_first=True, activation="gelu"),
        nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True, dropout=0.1),
        nn.Bilinear(2, 3, 4),
        nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=2),
        nn.KLDivLoss(reduction="batchmean", log_target=True),
        nn.SyncBatchNorm(4),
        nn.InstanceNorm2d(3, affine=True),
        nn.RMSNorm(4, eps=1e-5),
        nn.Hardtanh(-2, 2),
        nn.Threshold(0.1, 20),
        nn.Softplus(beta=2, threshold=10),
        nn.ELU(alpha=0.5),
        nn.CELU(),
        nn.Mish(),
        nn.SiLU(inplace=True),
        nn.Tanhshrink(),
        nn.MaxUnpool2d(2),
        nn.LPPool2d(2, 3),
        nn.FractionalMaxPool2d(3, output_size=(4, 4)),
        nn.AlphaDropout(0.2),
        nn.Dropout2d(),
        nn.CosineSimilarity(dim=0),
        nn.PairwiseDistance(p=1.0),
        nn.EmbeddingBag(10, 3, mode="max"),
        nn.Fold((4, 4), 2),
        nn.Unfold(2, stride=2),
        nn.LazyConv2d(4, 3),
        nn.LazyBatchNorm1d(),
        nn.ReflectionPad1d(2),
        nn.CircularPad2d(1),
    ]
    for m in mods:
        rec(type(m).__name__, repr(m))
    net = nn.ModuleDict(
        {
            "cells": nn.ModuleList([nn.ModuleDict({"op": nn.ReLU()})]),
            "p": nn.ParameterList([nn.Parameter(lib.zeros(2, 3, dtype=dt))]),
            "pd": nn.ParameterDict({"alpha": nn.Parameter(lib.zeros(4, dtype=dt))}),
        }
    )
    rec("net", repr(net))
    rec("plist", repr(net["p"]))
    rec("pdict", repr(net["pd"]))
    rec("param", repr(nn.Parameter(lib.zeros(2, dtype=dt))))
    rec("buffer", repr(nn.Buffer(lib.ones(2, dtype=dt))))


def p_pbt_schedulers(lib, dt, rec):
    nn = lib.nn
    lr_s = lib.optim.lr_scheduler
    m = nn.Linear(2, 2).to(dt)
    for name, mk in [
        ("cos", lambda o: lr_s.CosineAnnealingLR(o, T_max=6, eta_min=0.01)),
        ("exp", lambda o: lr_s.ExponentialLR(o, 0.8)),
        ("step", lambda o: lr_s.StepLR(o, 2, 0.5)),
        ("multi", lambda o: lr_s.MultiStepLR(o, [2, 3], 0.5)),
        ("lin", lambda o: lr_s.LinearLR(o, 0.2, 1.0, total_iters=4)),
        ("poly", lambda o: lr_s.PolynomialLR(o, 5, 1.5)),
        ("const", lambda o: lr_s.ConstantLR(o, 0.5, 3)),
        ("cawr", lambda o: lr_s.CosineAnnealingWarmRestarts(o, 3, 1, 0.01)),
        ("oc", lambda o: lr_s.OneCycleLR(o, 1.0, total_steps=8, cycle_momentum=False)),
        ("cyc", lambda o: lr_s.CyclicLR(o, 0.1, 1.0, 2, cycle_momentum=False)),
        (
            "seq",
            lambda o: lr_s.SequentialLR(
                o, [lr_s.LinearLR(o, 0.5, total_iters=2), lr_s.ExponentialLR(o, 0.9)], [2]
            ),
        ),
    ]:
        opt = lib.optim.SGD(m.parameters(), lr=1.0)
        s = mk(opt)
        v = []
        for i in range(7):
            opt.step()
            s.step()
            if i == 2:  # PBT explore: perturb the lr in place
                for g in opt.param_groups:
                    g["lr"] *= 1.5
            v.append(opt.param_groups[0]["lr"])
        rec(name, v)
        rec(name + ".last", s.get_last_lr())
        rec(
            name + ".sd",
            str(
                sorted(
                    (k, repr(v))
                    for k, v in s.state_dict().items()
                    if not k.startswith("_schedulers") and k not in ("_scale_fn_ref",)
                )
            ),
        )


def p_func_transforms(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    fn = lib.func
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(dt)
    params = {k: v.detach() for k, v in m.named_parameters()}
    x = lib.randn(5, 3, dtype=dt)
    y = lib.randn(5, 1, dtype=dt)

    def loss(p, x, y):
        out = fn.functional_call(m, p, (x,))
        return F.mse_loss(out, y), out

    g, out = fn.grad(loss, has_aux=True)(params, x, y)
    rec("g", g["0.weight"])
    rec("aux", out)
    (gv, (lv, outv)) = fn.grad_and_value(loss, has_aux=True)(params, x, y)
    rec("lv", lv)
    H = fn.hessian(lambda b: loss({**params, "2.bias": b}, x, y)[0])(params["2.bias"])
    rec("H", H)
    J = fn.jacrev(lambda w: fn.functional_call(m, {**params, "0.bias": w}, (x,)))(params["0.bias"])
    rec("J", J)
    Jf = fn.jacfwd(lambda w: fn.functional_call(m, {**params, "0.bias": w}, (x,)))(params["0.bias"])
    rec("Jf", Jf)

    # per-sample grads
    def ps(p, xi, yi):
        return F.mse_loss(fn.functional_call(m, p, (xi[None],)), yi[None])

    psg = fn.vmap(fn.grad(ps), in_dims=(None, 0, 0))(params, x, y)
    rec("psg", psg["0.weight"])
    _, vjp_fn = fn.vjp(
        lambda b: fn.functional_call(m, {**params, "2.bias": b}, (x,)), params["2.bias"]
    )
    rec("vjp", vjp_fn(lib.ones(5, 1, dtype=dt))[0])
    _, jv = fn.jvp(
        lambda b: fn.functional_call(m, {**params, "2.bias": b}, (x,)),
        (params["2.bias"],),
        (lib.ones(1, dtype=dt),),
    )
    rec("jvp", jv)
    rec.err("fc_unexpected", lambda: fn.functional_call(m, {"zz": lib.ones(1)}, (x,), strict=True))
    rec.err("grad_nonscalar", lambda: fn.grad(lambda p: fn.functional_call(m, p, (x,)))(params))
    rec.err(
        "grad_aux_bad",
        lambda: fn.grad(lambda p: F.mse_loss(fn.functional_call(m, p, (x,)), y), has_aux=True)(
            params
        ),
    )
    models = [nn.Linear(3, 2).to(dt) for _ in range(2)]
    models.append(nn.Linear(3, 3).to(dt))
    rec.err("stack_bad", lambda: fn.stack_module_state(models))
    m.eval()
    rec.err("stack_mixed", lambda: fn.stack_module_state([nn.Linear(3, 2), nn.Linear(3, 2).eval()]))
    tied = nn.Linear(3, 3, bias=False).to(dt)
    tm = nn.Sequential(tied, tied)
    out1 = fn.functional_call(tm, {"0.weight": lib.eye(3, dtype=dt)}, (x,))
    out2 = fn.functional_call(tm, {"0.weight": lib.eye(3, dtype=dt)}, (x,), tie_weights=False)
    rec("tied", out1)
    rec("untied", out2)
    rec(
        "two_dicts",
        fn.functional_call(
            m, ({"0.weight": params["0.weight"] * 2}, {"0.bias": params["0.bias"]}), (x,)
        ),
    )
    rec.err(
        "two_dicts_dup",
        lambda: fn.functional_call(
            m, ({"0.bias": params["0.bias"]}, {"0.bias": params["0.bias"]}), (x,)
        ),
    )


def p_ckpt_files(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)).to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    sch = lib.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=5)
    m(lib.randn(2, 2, 5, 5, dtype=dt)).sum().backward()
    opt.step()
    sch.step()
    d = tempfile.mkdtemp()
    path = pathlib.Path(d) / "ck.pt"
    ck = {
        "model": m.state_dict(),
        "opt": opt.state_dict(),
        "sched": sch.state_dict(),
        "rng": lib.get_rng_state(),
        "np": np.random.get_state()[1][:3].tolist(),
        "epoch": 3,
        "hp": {"lr": 0.1, "arch": ("sep3", "max"), "tags": ["a"]},
        "od": collections.OrderedDict(a=1),
    }
    lib.save(ck, path)
    back = lib.load(path, weights_only=True)
    rec("keys", str(sorted(back)))
    rec("hp", str(back["hp"]))
    rec("od", str(type(back["od"]).__name__))
    rec("sched_keys", str(sorted(back["sched"])))
    rec("rng_eq", lib.equal(back["rng"], ck["rng"]))
    rec("mom", back["opt"]["state"][0]["momentum_buffer"])
    rec("bn_nbt", back["model"]["1.num_batches_tracked"])
    back2 = lib.load(str(path), map_location="cpu", mmap=True, weights_only=True)
    rec("mmap", back2["model"]["0.weight"])
    back3 = lib.load(path, map_location=lambda s, loc: s, weights_only=True)
    rec("lam", back3["model"]["0.bias"])
    rec("sd_meta", str(getattr(back["model"], "_metadata", {}).get("1", None)))
    lib.save({"cfg": argparse.Namespace(depth=3)}, path)
    try:
        lib.load(path, weights_only=True)
        rec("custom", "no error")
    except Exception as e:
        rec("custom", type(e).__name__)
    lib.save(m, path)
    m2 = lib.load(path, weights_only=False)
    rec("whole", m2[0].weight)
    rec("whole_type", type(m2).__name__)

    # state_dict of a model with a registered non-persistent buffer and an extra state
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.register_buffer("tmp", lib.zeros(2), persistent=False)
            self.arch = "cellA"

        def get_extra_state(self):
            return {"arch": self.arch}

        def set_extra_state(self, st):
            self.arch = st["arch"]

    w = WithExtra()
    sd = w.state_dict()
    rec("extra_keys", str(list(sd)))
    sd["_extra_state"] = {"arch": "cellB"}
    w.load_state_dict(sd)
    rec("arch", w.arch)
    lib.save(sd, path)
    rec("extra_back", str(lib.load(path, weights_only=True)["_extra_state"]))
    for p in pathlib.Path(d).iterdir():
        p.unlink()
    os.rmdir(d)


def p_master_weights(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    for low in ("bfloat16", "float16"):
        ldt = getattr(lib, low)
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        master = [p.detach().clone().to(dt) for p in m.parameters()]
        m = m.to(ldt)
        opt = lib.optim.SGD(master, lr=0.1, momentum=0.9)
        x = lib.randn(6, 4).to(ldt)
        y = lib.randn(6, 2).to(ldt)
        for _ in range(3):
            m.zero_grad()
            loss = F.mse_loss(m(x).to(dt), y.to(dt))
            (loss * 128).backward()
            for mp, p in zip(master, m.parameters(), strict=True):
                mp.grad = p.grad.to(dt) / 128
            opt.step()
            with lib.no_grad():
                for mp, p in zip(master, m.parameters(), strict=True):
                    p.copy_(mp)
            rec(low + ".loss", loss)
        rec.params(low, m)
        m2 = nn.Linear(3, 2).to(ldt)
        o2 = lib.optim.AdamW(m2.parameters(), lr=0.01)
        m2(lib.ones(2, 3, dtype=ldt)).sum().backward()
        o2.step()
        rec(low + ".adam_w", m2.weight)
        rec(low + ".adam_st", str({k: str(v.dtype) for k, v in o2.state[m2.weight].items()}))


class _Warm:
    """A picklable warm-up factor (a LambdaLR state_dict keeps a callable object's __dict__)."""

    def __init__(self, n):
        self.n = n

    def __call__(self, e):
        return min(1.0, (e + 1) / self.n)


def p_sched_more(lib, dt, rec):
    nn = lib.nn
    lr_s = lib.optim.lr_scheduler
    m = nn.Linear(2, 2)
    opt = lib.optim.SGD(m.parameters(), lr=1.0)
    rec.err(
        "seq_plateau",
        lambda: lr_s.SequentialLR(
            opt, [lr_s.LinearLR(opt, 0.5, total_iters=2), lr_s.ReduceLROnPlateau(opt)], [2]
        ),
    )
    opt = lib.optim.SGD(m.parameters(), lr=1.0)
    ch = lr_s.ChainedScheduler(
        [lr_s.LinearLR(opt, 0.5, total_iters=2), lr_s.StepLR(opt, 2)], optimizer=opt
    )
    rec("ch_last", ch.get_last_lr())
    rec("ch_sd", str(sorted(ch.state_dict())))
    opt = lib.optim.SGD(m.parameters(), lr=1.0)
    lam = lr_s.LambdaLR(opt, _Warm(4))
    for _ in range(2):
        opt.step()
        lam.step()
    sd = lam.state_dict()
    rec("lam_sd", repr(sd))
    opt2 = lib.optim.SGD(m.parameters(), lr=1.0)
    lam2 = lr_s.LambdaLR(opt2, _Warm(10))
    lam2.load_state_dict(sd)
    rec("lam_n", lam2.lr_lambdas[0].n)
    opt3 = lib.optim.SGD(m.parameters(), lr=1.0)
    l3 = lr_s.LambdaLR(opt3, lambda e: 0.5**e)
    rec("lam_sd_fn", repr(l3.state_dict()))
    opt4 = lib.optim.SGD(m.parameters(), lr=1.0)
    s4 = lr_s.StepLR(opt4, 1, 0.5)
    for i in range(3):
        opt4.step()
        rec.warns(f"epoch_arg{i}", lambda: s4.step(i + 1))
        rec(f"ep_lr{i}", s4.get_last_lr())
    rec("last_epoch", s4.last_epoch)
    opt5 = lib.optim.SGD(m.parameters(), lr=1.0)
    c5 = lr_s.CosineAnnealingLR(opt5, 4)
    v = []
    for _ in range(10):
        opt5.step()
        c5.step()
        v.append(c5.get_last_lr()[0])
    rec("cos_past_T", v)
    opt6 = lib.optim.SGD(m.parameters(), lr=1.0)
    e6 = lr_s.ExponentialLR(opt6, 0.5)
    rec("repr_like", str(type(e6).__mro__[1].__name__))
    rec("has_last", str(hasattr(e6, "_last_lr")))
    rec("last_epoch0", e6.last_epoch)
    rec("step_count", e6._step_count)


def p_worker_samplers(lib, dt, rec):
    data = lib.utils.data
    DS = data.distributed.DistributedSampler
    ds = data.TensorDataset(lib.arange(11))
    out = []
    for rank in range(3):
        s = DS(ds, num_replicas=3, rank=rank, shuffle=True, seed=7)
        s.set_epoch(2)
        out.append(list(s))
    rec("ranks", str(out))
    s = DS(ds, num_replicas=3, rank=1, shuffle=False, drop_last=True)
    rec("drop", str(list(s)))
    rec("len", len(s))
    rec.err("bad_rank", lambda: DS(ds, num_replicas=2, rank=2))
    dl = data.DataLoader(ds, batch_size=2, sampler=DS(ds, num_replicas=2, rank=0, seed=1))
    rec("dl", [b[0] for b in dl])
    g = lib.Generator().manual_seed(3)
    rbs = data.BatchSampler(data.RandomSampler(range(7), generator=g), 3, drop_last=True)
    rec("rbs", str(list(rbs)))
    rec("rbs_len", len(rbs))
    sts = data.StackDataset(a=lib.arange(3), b=lib.arange(3) * 2)
    rec("stack", str(sts[1]))
    rec("default_collate", str(data.default_collate([(1, 2.0), (3, 4.0)])))
    rec("default_convert", str(data.default_convert([np.ones(2)])))


def p_reduction_cell(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    C = 4

    class FactorizedReduce(nn.Module):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU(inplace=False)
            self.c1 = nn.Conv2d(C, C // 2, 1, stride=2, bias=False)
            self.c2 = nn.Conv2d(C, C // 2, 1, stride=2, bias=False)
            self.bn = nn.BatchNorm2d(C, affine=True)

        def forward(self, x):
            x = self.relu(x)
            return self.bn(lib.cat([self.c1(x), self.c2(x[:, :, 1:, 1:])], dim=1))

    ops = nn.ModuleList(
        [
            FactorizedReduce(),
            nn.MaxPool2d(3, stride=2, padding=1),
            nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
            nn.Sequential(
                nn.ReLU(),
                nn.Conv2d(C, C, 5, stride=2, padding=4, dilation=2, groups=C, bias=False),
                nn.Conv2d(C, C, 1, bias=False),
                nn.BatchNorm2d(C, affine=False),
            ),
            nn.Sequential(
                nn.ReLU(),
                nn.Conv2d(C, C, (1, 7), stride=(1, 2), padding=(0, 3), bias=False),
                nn.Conv2d(C, C, (7, 1), stride=(2, 1), padding=(3, 0), bias=False),
                nn.BatchNorm2d(C),
            ),
        ]
    ).to(dt)
    alpha = (1e-3 * lib.randn(6, dtype=dt)).requires_grad_()
    x = lib.randn(2, C, 8, 8, dtype=dt, requires_grad=True)
    w = F.softmax(alpha, 0)
    outs = [op(x) for op in ops] + [x[:, :, ::2, ::2].mul(0.0)]
    for o in outs:
        rec("shape", str(tuple(o.shape)))
    y = sum(wi * o for wi, o in zip(w, outs, strict=True))
    y.pow(2).sum().backward()
    rec("y", y)
    rec("ga", alpha.grad)
    rec("gx", x.grad)
    rec.err("odd_cat", lambda: ops[0](lib.randn(1, C, 7, 7, dtype=dt)))
    # in-place ReLU on a shared input: torch's version check
    x2 = lib.randn(2, C, 5, 5, dtype=dt, requires_grad=True)
    h = x2 * 1.0
    a = ops[1](h)
    b = F.relu(h, inplace=True)
    rec.err("inplace_shared", lambda: (a.sum() + b.sum()).backward())
    h2 = x2.sigmoid()
    c = h2 * 2
    F.relu_(h2)
    rec.err("inplace_saved", lambda: c.sum().backward())
    h3 = x2.exp()
    d = h3.sum()
    h3.add_(1)
    rec.err("inplace_exp", lambda: d.backward())
    rec("ver", h3._version)


def p_deploy(lib, dt, rec):
    nn = lib.nn
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    fusion = importlib.import_module(lib.__name__ + ".nn.utils.fusion")
    lib.manual_seed(0)
    conv = nn.Conv2d(3, 4, 3, padding=1).to(dt)
    bn = nn.BatchNorm2d(4).to(dt)
    x = lib.randn(2, 3, 5, 5, dtype=dt)
    for _ in range(2):
        bn(conv(x) + 1)
    conv.eval()
    bn.eval()
    fused = fusion.fuse_conv_bn_eval(conv, bn)
    with lib.no_grad():
        rec("fused_diff", (fused(x) - bn(conv(x))).abs().max())
    rec("fused_w", fused.weight)
    rec("fused_b", fused.bias)
    lin = nn.Linear(3, 4).to(dt)
    bn1 = nn.BatchNorm1d(4).to(dt)
    bn1(lin(lib.randn(6, 3, dtype=dt)))
    lin.eval()
    bn1.eval()
    fl = fusion.fuse_linear_bn_eval(lin, bn1)
    rec("fl_w", fl.weight)
    rec.err("fuse_train", lambda: fusion.fuse_conv_bn_eval(conv.train(), bn))
    lstm = nn.LSTM(3, 4).to(dt)
    prune.l1_unstructured(lstm, "weight_hh_l0", amount=0.5)
    rec("lstm_mask", lstm.weight_hh_l0_mask.sum())
    out, _ = lstm(lib.randn(5, 2, 3, dtype=dt))
    rec("lstm_out", out)
    rec("lstm_names", str([n for n, _ in lstm.named_parameters()]))
    c = nn.Conv2d(2, 2, 3).to(dt)
    rec.err(
        "imp_shape",
        lambda: prune.l1_unstructured(c, "weight", amount=1, importance_scores=lib.ones(3)),
    )
    prune.l1_unstructured(c, "weight", amount=0.5)
    prune.remove(c, "weight")
    c2 = copy.deepcopy(c)
    rec("deep_after_remove", c2.weight)
    rec("nz", lib.count_nonzero(c2.weight))
    m = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2)).to(dt)
    prune.global_unstructured(
        [(m[0], "weight"), (m[1], "weight")], pruning_method=prune.L1Unstructured, amount=5
    )
    sd = m.state_dict()
    m3 = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 2)).to(dt)
    prune.identity(m3[0], "weight")
    prune.identity(m3[1], "weight")
    m3.load_state_dict(sd)
    rec("load_pruned", m3[0].weight)
    rec("mask_sum", m3[0].weight_mask.sum() + m3[1].weight_mask.sum())


def p_grad_fn_names(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    x = lib.randn(2, 3, 6, 6, dtype=dt, requires_grad=True)
    a = nn.Parameter(lib.zeros(4, dtype=dt))
    outs = {
        "softmax": F.softmax(a, -1),
        "log_softmax": F.log_softmax(a, -1),
        "maxpool": F.max_pool2d(x, 3, 1, 1),
        "avgpool": F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
        "conv": F.conv2d(x, lib.randn(3, 1, 3, 3, dtype=dt), groups=3),
        "bn": F.batch_norm(x, None, None, training=True),
        "bn_run": nn.BatchNorm2d(3).to(dt)(x),
        "aap": F.adaptive_avg_pool2d(x, 1),
        "flat": x.flatten(1),
        "mean": x.mean((2, 3)),
        "cat": lib.cat([x, x], 1),
        "stack": lib.stack([a, a]),
        "slice": x[:, :2],
        "step": x[:, :, ::2],
        "relu": F.relu(x),
        "gelu": F.gelu(x),
        "linear": F.linear(x.flatten(1), lib.randn(2, 108, dtype=dt)),
        "ce": F.cross_entropy(lib.randn(2, 4, dtype=dt) + a, lib.tensor([0, 1])),
        "mse": F.mse_loss(a, lib.ones(4, dtype=dt)),
        "gumbel": F.gumbel_softmax(a, hard=True),
        "gumbel_soft": F.gumbel_softmax(a),
        "mul0": x.mul(0.0),
        "exp": a.exp(),
        "norm": a.norm(),
        "clamp": a.clamp(-1, 1),
        "where": lib.where(a > 0, a, a * 2),
        "lerp": lib.lerp(a, a * 2, 0.3),
        "view": x.view(2, -1),
        "transpose": x.transpose(1, 2),
        "permute": x.permute(0, 2, 3, 1),
        "contig": x.transpose(1, 2).contiguous(),
        "index": a[lib.tensor([0, 2])],
        "sum": a.sum(),
        "topk": a.topk(2).values,
        "argmax_sel": a.max(0).values,
        "sigmoid": a.sigmoid(),
        "div": a / 2,
        "sub": 1 - a,
        "pow": a.pow(2),
        "abs": a.abs(),
        "lse": a.logsumexp(0),
        "matmul": a @ a,
        "outer": lib.outer(a, a),
        "expand": a.expand(3, 4),
        "repeat": a.repeat(2),
        "scatter": lib.zeros(4, dtype=dt).scatter(0, lib.tensor([1]), a[:1]),
        "gather": a.gather(0, lib.tensor([1])),
        "dropout": F.dropout(a, 0.5),
        "layer_norm": F.layer_norm(a, (4,)),
        "tanh": a.tanh(),
        "interp": F.interpolate(x, scale_factor=2, mode="bilinear"),
        "pad": F.pad(x, (1, 1)),
        "unfold": F.unfold(x, 2),
        "kl": F.kl_div(F.log_softmax(a, 0), F.softmax(a, 0), reduction="batchmean"),
        "clone": a.clone(),
        "to": a.to(lib.float16),
        "detach_add": a.detach() + a,
        "rsub": 2 - a,
    }
    for k, v in outs.items():
        rec(k, repr(v.grad_fn).split(" object")[0])
