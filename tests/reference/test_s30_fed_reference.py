"""Session 30 (helper fed): federated-learning and differential-privacy programs written the way
research code writes them, run under torch and minitorch with the same seeds and compared record
by record: FedAvg over deep-copied client models trained on random_split shards (DataLoader
shuffling under a generator, weighted state_dict averaging by torch.stack/sum), BatchNorm buffers
averaged or kept local (FedBN, load_state_dict strict/non-strict/assign, keep_vars, pre/post
state_dict hooks), FedProx proximal terms by parameters_to_vector, FedAdam/FedAvgM/FedYogi server
steps on hand-set pseudo-gradients, SCAFFOLD control variates, client sampling (randperm,
multinomial, bernoulli, Dirichlet non-iid partitions), personalised heads, pairwise cancelling
secure-aggregation masks (float and modular integer), robust aggregation (coordinate median,
trimmed mean, Krum by cdist, Weiszfeld, FLTrust cosine screening, adaptive clipping), DP-SGD by
torch.func.vmap(grad) over functional_call (MLP and Embedding/Conv1d/GroupNorm), by
micro-batches with clip_grad_norm_, by Opacus-style hooks, by is_grads_batched and ghost norms,
noise from generators (normal_, bernoulli_, exponential_, poisson, Laplace), RDP/GDP accounting
(lgamma, xlogy, logsumexp, ndtr, log_ndtr, ndtri), top-k/rand-k sparsification with error
feedback, PowerSGD, sign-SGD majority vote, QSGD/min-max/int8 quantisation with a
straight-through estimator, pruning masks, an LSTM FedAvg with schedulers, checkpoint round
trips, bit packing and bf16 stochastic rounding, MOON/FedDF/FedDyn losses, torch.func
edges (randomness, strict, vjp/jvp), samplers (DistributedSampler shards), autocast and
GradScaler, logging reprs and f-strings, RNG state bookkeeping, and errors. float64 must agree to
1e-10 of each record's scale, float32 to 1e-4; texts exactly. No difference from torch was found.

Known and left:
- float32 sums may differ in the last bits (summation order); a bias followed by BatchNorm gets
  ~0 gradients whose Adam steps amplify that noise, so state_roundtrip leaves it out.
- torch.quantize_per_tensor and quantized tensors (qint8, int_repr, dequantize) do not exist in
  minitorch (a new tensor kind, out of this helper's slot); the programs quantise by hand."""

from __future__ import annotations

import copy
import math
from collections import OrderedDict

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "fedavg", "fedavg_bn", "fedprox", "fedadam", "fedyogi", "fedavgm", "scaffold", "sampling",
    "personal", "secagg", "dpsgd_vmap", "dpsgd_loop", "dp_hooks", "topk", "signsgd", "quantize",
    "errors", "state_roundtrip", "fed_func", "dp_mechanisms", "state_api", "prune_sparse",
    "dp_conv", "robust", "powersgd_lstm", "hooks_batched", "logging", "accountant", "errors2",
    "bits", "moon_feddf", "func_edges", "loaders", "lowprec",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers and programs: each program takes the library, a dtype and a recorder ---


def _data(lib, dt, n=96, d=6, c=3, seed=0):
    g = lib.Generator().manual_seed(seed)
    x = lib.randn(n, d, generator=g, dtype=dt)
    w = lib.randn(d, c, generator=g, dtype=dt)
    y = (x @ w).argmax(1)
    return x, y


def _mlp(lib, dt, d=6, h=8, c=3, bn=False, seed=0):
    lib.manual_seed(seed)
    layers = [lib.nn.Linear(d, h)]
    if bn:
        layers.append(lib.nn.BatchNorm1d(h))
    layers += [lib.nn.ReLU(), lib.nn.Linear(h, c)]
    return lib.nn.Sequential(*layers).to(dt)


def _shards(lib, x, y, k, seed=1):
    ds = lib.utils.data.TensorDataset(x, y)
    n = len(ds)
    sizes = [n // k] * k
    sizes[-1] += n - sum(sizes)
    return lib.utils.data.random_split(ds, sizes, generator=lib.Generator().manual_seed(seed))


def _local(lib, model, shard, epochs=1, lr=0.1, bs=8, seed=0, prox=None, mu=0.0):
    opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=0.5)
    dl = lib.utils.data.DataLoader(
        shard, batch_size=bs, shuffle=True, generator=lib.Generator().manual_seed(seed)
    )
    model.train()
    losses = []
    for _ in range(epochs):
        for xb, yb in dl:
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(xb), yb)
            if prox is not None:
                v = lib.nn.utils.parameters_to_vector(model.parameters())
                loss = loss + mu / 2 * (v - prox).pow(2).sum()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    return lib.stack(losses)


def _avg(lib, states, weights):
    tot = sum(weights)
    out = {}
    for k in states[0]:
        if states[0][k].dtype.is_floating_point:
            stk = lib.stack([s[k] * (w / tot) for s, w in zip(states, weights, strict=False)])
            out[k] = stk.sum(0)
        else:
            out[k] = states[0][k].clone()
    return out


def p_fedavg(lib, dt, rec):
    x, y = _data(lib, dt)
    shards = _shards(lib, x, y, 3)
    rec("sizes", [len(s) for s in shards])
    glob = _mlp(lib, dt)
    for rnd in range(3):
        states, ws = [], []
        for i, sh in enumerate(shards):
            m = copy.deepcopy(glob)
            losses = _local(lib, m, sh, seed=rnd * 10 + i)
            rec(f"r{rnd}.c{i}.loss", losses)
            states.append(m.state_dict())
            ws.append(len(sh))
        glob.load_state_dict(_avg(lib, states, ws))
        rec(f"r{rnd}.keys", str(list(glob.state_dict().keys())))
        with lib.no_grad():
            rec(f"r{rnd}.acc", (glob(x).argmax(1) == y).to(dt).mean())
    rec.params("glob", glob)


def p_fedavg_bn(lib, dt, rec):
    x, y = _data(lib, dt, seed=2)
    shards = _shards(lib, x, y, 2, seed=3)
    glob = _mlp(lib, dt, bn=True)
    for rnd in range(2):
        states = []
        for i, sh in enumerate(shards):
            m = copy.deepcopy(glob)
            _local(lib, m, sh, seed=i)
            states.append(m.state_dict())
        new = {}
        for k, v in states[0].items():
            if k.endswith("num_batches_tracked"):
                new[k] = lib.stack([s[k] for s in states]).max()
            else:
                new[k] = lib.stack([s[k].float() for s in states]).mean(0).to(v.dtype)
        missing = glob.load_state_dict(new, strict=True)
        rec(f"r{rnd}.missing", str(missing))
        sd = glob.state_dict()
        rec(f"r{rnd}.rm", sd["1.running_mean"])
        rec(f"r{rnd}.rv", sd["1.running_var"])
        rec(f"r{rnd}.nbt", sd["1.num_batches_tracked"])
        rec(f"r{rnd}.nbt.dtype", str(sd["1.num_batches_tracked"].dtype))
    glob.eval()
    with lib.no_grad():
        rec("eval", glob(x[:5]))
    # FedBN: keep BN local, average the rest
    local = copy.deepcopy(glob)
    keep = {k: v for k, v in local.state_dict().items() if not k.startswith("1.")}
    res = local.load_state_dict(keep, strict=False)
    rec("fedbn.missing", str(res.missing_keys))
    rec("fedbn.unexpected", str(res.unexpected_keys))
    rec.err("strict", lambda: local.load_state_dict(keep))


def p_fedprox(lib, dt, rec):
    x, y = _data(lib, dt, seed=4)
    shards = _shards(lib, x, y, 3, seed=5)
    glob = _mlp(lib, dt)
    for rnd in range(2):
        gvec = lib.nn.utils.parameters_to_vector(glob.parameters()).detach()
        rec(f"r{rnd}.gvec", gvec)
        vecs, ws = [], []
        for i, sh in enumerate(shards):
            m = copy.deepcopy(glob)
            losses = _local(lib, m, sh, seed=i, prox=gvec, mu=0.1)
            rec(f"r{rnd}.c{i}.loss", losses)
            v = lib.nn.utils.parameters_to_vector(m.parameters()).detach()
            rec(f"r{rnd}.c{i}.dist", (v - gvec).norm())
            vecs.append(v)
            ws.append(float(len(sh)))
        w = lib.tensor(ws, dtype=dt)
        w = w / w.sum()
        new = (lib.stack(vecs) * w[:, None]).sum(0)
        lib.nn.utils.vector_to_parameters(new, glob.parameters())
    rec.params("glob", glob)


def _server_opt(lib, dt, rec, kind):
    x, y = _data(lib, dt, seed=6)
    shards = _shards(lib, x, y, 2, seed=7)
    glob = _mlp(lib, dt)
    if kind == "adam":
        sopt = lib.optim.Adam(glob.parameters(), lr=0.05, betas=(0.9, 0.99), eps=1e-3)
    elif kind == "yogi":
        sopt = None
        m_ = [lib.zeros_like(p) for p in glob.parameters()]
        v_ = [lib.full_like(p, 1e-6) for p in glob.parameters()]
    else:
        sopt = lib.optim.SGD(glob.parameters(), lr=1.0, momentum=0.9, nesterov=True)
    for rnd in range(3):
        deltas = [lib.zeros_like(p) for p in glob.parameters()]
        tot = sum(len(s) for s in shards)
        for i, sh in enumerate(shards):
            m = copy.deepcopy(glob)
            _local(lib, m, sh, seed=rnd + i)
            for d, pg, pl in zip(deltas, glob.parameters(), m.parameters(), strict=False):
                d.add_((pg.detach() - pl.detach()) * (len(sh) / tot))
        if sopt is not None:
            sopt.zero_grad()
            for p, d in zip(glob.parameters(), deltas, strict=False):
                p.grad = d.clone()
            sopt.step()
        else:
            with lib.no_grad():
                for p, d, mm, vv in zip(glob.parameters(), deltas, m_, v_, strict=False):
                    mm.mul_(0.9).add_(d, alpha=0.1)
                    d2 = d * d
                    vv.sub_(0.01 * d2 * lib.sign(vv - d2))
                    p.sub_(0.05 * mm / (vv.sqrt() + 1e-3))
        rec(f"r{rnd}.delta_norm", lib.stack([d.norm() for d in deltas]))
    rec.params("glob", glob)
    if sopt is not None:
        st = sopt.state_dict()
        rec("state_keys", str(sorted(st["state"].keys())))
        rec("pg", str({k: v for k, v in st["param_groups"][0].items() if k != "params"}))
        for k, v in st["state"][0].items():
            rec("state0." + k, v)


def p_fedadam(lib, dt, rec):
    _server_opt(lib, dt, rec, "adam")


def p_fedyogi(lib, dt, rec):
    _server_opt(lib, dt, rec, "yogi")


def p_fedavgm(lib, dt, rec):
    _server_opt(lib, dt, rec, "sgdm")


def p_scaffold(lib, dt, rec):
    x, y = _data(lib, dt, seed=8)
    shards = _shards(lib, x, y, 3, seed=9)
    glob = _mlp(lib, dt)
    c_glob = [lib.zeros_like(p) for p in glob.parameters()]
    c_loc = [[lib.zeros_like(p) for p in glob.parameters()] for _ in shards]
    lr, K = 0.1, 0
    for rnd in range(2):
        dys, dcs = [], []
        for i, sh in enumerate(shards):
            m = copy.deepcopy(glob)
            opt = lib.optim.SGD(m.parameters(), lr=lr)
            dl = lib.utils.data.DataLoader(
                sh, batch_size=16, shuffle=True, generator=lib.Generator().manual_seed(rnd * 7 + i)
            )
            K = 0
            for xb, yb in dl:
                opt.zero_grad()
                lib.nn.functional.cross_entropy(m(xb), yb).backward()
                for p, cg, cl in zip(m.parameters(), c_glob, c_loc[i], strict=False):
                    p.grad.add_(cg - cl)
                opt.step()
                K += 1
            dy = [
                pl.detach() - pg.detach()
                for pl, pg in zip(m.parameters(), glob.parameters(), strict=False)
            ]
            new_c = [
                cl - cg - d / (K * lr) for cl, cg, d in zip(c_loc[i], c_glob, dy, strict=False)
            ]
            dcs.append([n - o for n, o in zip(new_c, c_loc[i], strict=False)])
            c_loc[i] = new_c
            dys.append(dy)
        with lib.no_grad():
            for j, p in enumerate(glob.parameters()):
                p.add_(lib.stack([d[j] for d in dys]).mean(0))
                c_glob[j] += lib.stack([d[j] for d in dcs]).mean(0) * (len(shards) / len(shards))
        rec(f"r{rnd}.c", lib.cat([c.flatten() for c in c_glob]))
    rec.params("glob", glob)


def p_sampling(lib, dt, rec):
    g = lib.Generator().manual_seed(42)
    n_clients, per = 20, 5
    sizes = lib.randint(10, 100, (n_clients,), generator=g)
    rec("sizes", sizes)
    for r in range(3):
        idx = lib.randperm(n_clients, generator=g)[:per]
        rec(f"r{r}.idx", idx)
        rec(f"r{r}.sorted", idx.sort().values)
        probs = sizes.to(dt) / sizes.sum()
        pick = lib.multinomial(probs, per, replacement=False, generator=g)
        rec(f"r{r}.mult", pick)
        w = sizes[pick].to(dt)
        rec(f"r{r}.w", w / w.sum())
    mask = lib.rand(n_clients, generator=g) < 0.3
    rec("bern", mask)
    rec("nonzero", mask.nonzero().squeeze(1))
    rec("bern2", lib.bernoulli(lib.full((n_clients,), 0.25, dtype=dt), generator=g))
    # Dirichlet non-iid label partition
    lib.manual_seed(3)
    labels = lib.randint(0, 4, (200,))
    alpha = lib.full((3,), 0.5, dtype=dt)
    parts = [[] for _ in range(3)]
    for c in range(4):
        ids = (labels == c).nonzero().flatten()
        ids = ids[lib.randperm(len(ids))]
        prop = lib.distributions.Dirichlet(alpha).sample()
        cuts = (lib.cumsum(prop, 0) * len(ids)).long()[:-1]
        for k, chunk in enumerate(lib.tensor_split(ids, cuts)):
            parts[k].append(chunk)
    for k in range(3):
        p = lib.cat(parts[k])
        rec(f"part{k}", p)
        rec(f"hist{k}", lib.bincount(labels[p], minlength=4))


def p_personal(lib, dt, rec):
    x, y = _data(lib, dt, seed=10)
    shards = _shards(lib, x, y, 2, seed=11)
    glob = _mlp(lib, dt)
    heads = [copy.deepcopy(glob[2].state_dict()) for _ in shards]
    for rnd in range(2):
        bodies, ws = [], []
        for i, sh in enumerate(shards):
            m = copy.deepcopy(glob)
            m[2].load_state_dict(heads[i])
            _local(lib, m, sh, seed=rnd + 3 * i)
            heads[i] = {k: v.clone() for k, v in m[2].state_dict().items()}
            bodies.append({k: v for k, v in m.state_dict().items() if k.startswith("0.")})
            ws.append(len(sh))
        glob.load_state_dict(_avg(lib, bodies, ws), strict=False)
        rec(f"r{rnd}.body", glob[0].weight)
        for i in range(2):
            rec(f"r{rnd}.head{i}", heads[i]["weight"])
    named = [n for n, p in glob.named_parameters() if not n.startswith("2.")]
    rec("shared", str(named))
    for p in glob[2].parameters():
        p.requires_grad_(False)
    rec("trainable", sum(p.numel() for p in glob.parameters() if p.requires_grad))


def p_secagg(lib, dt, rec):
    n, d = 4, 10
    g = lib.Generator().manual_seed(0)
    updates = [lib.randn(d, generator=g, dtype=dt) for _ in range(n)]
    masked = []
    for i in range(n):
        m = updates[i].clone()
        for j in range(n):
            if i == j:
                continue
            a, b = min(i, j), max(i, j)
            gg = lib.Generator().manual_seed(1000 * a + b)
            mask = lib.randn(d, generator=gg, dtype=dt) * 10
            m = m + mask if i < j else m - mask
        masked.append(m)
        rec(f"masked{i}", m)
    total = lib.stack(masked).sum(0)
    rec("total", total)
    rec("true", lib.stack(updates).sum(0))
    rec("close", lib.allclose(total, lib.stack(updates).sum(0), atol=1e-4))
    # integer masking in a finite ring
    q = 2**16
    ints = [(u * 100).round().long() % q for u in updates]
    gi = lib.Generator().manual_seed(5)
    r = lib.randint(0, q, (n - 1, d), generator=gi)
    last = (-r.sum(0)) % q
    masks = lib.cat([r, last[None]])
    enc = [(a + mk) % q for a, mk in zip(ints, masks, strict=False)]
    dec = lib.stack(enc).sum(0) % q
    rec("dec", dec)
    rec("dec_ok", lib.equal(dec, lib.stack(ints).sum(0) % q))
    signed = lib.where(dec >= q // 2, dec - q, dec).to(dt) / 100
    rec("signed", signed)


def _dp_model(lib, dt):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(5, 7), lib.nn.Tanh(), lib.nn.Linear(7, 3)).to(dt)


def p_dpsgd_vmap(lib, dt, rec):
    from_func = lib.func
    model = _dp_model(lib, dt)
    g = lib.Generator().manual_seed(1)
    x = lib.randn(16, 5, generator=g, dtype=dt)
    y = lib.randint(0, 3, (16,), generator=g)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(p, xb, yb):
        out = from_func.functional_call(model, p, (xb.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, yb.unsqueeze(0))

    ps = from_func.vmap(from_func.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
    rec("keys", str(list(ps.keys())))
    for k, v in ps.items():
        rec("ps." + k, v)
    # compare with the batch gradient
    model.zero_grad()
    lib.nn.functional.cross_entropy(model(x), y, reduction="sum").backward()
    for k, p in model.named_parameters():
        rec("sum_match." + k, lib.allclose(ps[k].sum(0), p.grad, atol=1e-5))
    C, sigma = 0.5, 1.1
    norms = lib.stack([v.flatten(1).norm(2, dim=1) for v in ps.values()], 1).norm(2, dim=1)
    rec("norms", norms)
    factor = (C / (norms + 1e-6)).clamp(max=1.0)
    rec("factor", factor)
    gn = lib.Generator().manual_seed(2)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    for k, p in model.named_parameters():
        clipped = lib.einsum("i,i...->...", factor, ps[k])
        noise = lib.normal(0.0, sigma * C, size=p.shape, generator=gn, dtype=dt)
        p.grad = (clipped + noise) / x.shape[0]
        rec("g." + k, p.grad)
    opt.step()
    rec.params("after", model)


def p_dpsgd_loop(lib, dt, rec):
    # microbatch DP-SGD (per-sample grads by a loop), clip_grad_norm_, noise accounting
    model = _dp_model(lib, dt)
    g = lib.Generator().manual_seed(3)
    x = lib.randn(12, 5, generator=g, dtype=dt)
    y = lib.randint(0, 3, (12,), generator=g)
    C, sigma, q, steps = 1.0, 0.8, 12 / 600, 3
    opt = lib.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
    gn = lib.Generator().manual_seed(4)
    for step in range(steps):
        acc = [lib.zeros_like(p) for p in model.parameters()]
        tn = []
        for i in range(x.shape[0]):
            model.zero_grad()
            lib.nn.functional.cross_entropy(model(x[i : i + 1]), y[i : i + 1]).backward()
            tn.append(lib.nn.utils.clip_grad_norm_(model.parameters(), C))
            for a, p in zip(acc, model.parameters(), strict=False):
                a += p.grad
        rec(f"s{step}.norms", lib.stack(tn))
        for a, p in zip(acc, model.parameters(), strict=False):
            p.grad = (a + lib.randn(a.shape, generator=gn, dtype=dt) * sigma * C) / x.shape[0]
        opt.step()
    rec.params("after", model)
    eps_rdp = [
        steps * q * q * a / (2 * sigma**2) + math.log(1 / 1e-5) / (a - 1) for a in (2, 4, 8, 16, 32)
    ]
    rec("eps", lib.tensor(eps_rdp, dtype=dt).min())


def p_dp_hooks(lib, dt, rec):
    # per-sample grads of a Linear layer by forward/backward hooks (Opacus style)
    lib.manual_seed(1)
    lin = lib.nn.Linear(4, 3).to(dt)
    acts, grads = {}, {}
    h1 = lin.register_forward_hook(lambda m, i, o: acts.__setitem__("a", i[0].detach()))
    h2 = lin.register_full_backward_hook(lambda m, gi, go: grads.__setitem__("g", go[0].detach()))
    g = lib.Generator().manual_seed(0)
    x = lib.randn(6, 4, generator=g, dtype=dt)
    t = lib.randn(6, 3, generator=g, dtype=dt)
    loss = lib.nn.functional.mse_loss(lin(x), t, reduction="sum")
    loss.backward()
    psw = lib.einsum("ni,nj->nij", grads["g"], acts["a"])
    psb = grads["g"]
    rec("psw", psw)
    rec("sum_ok", lib.allclose(psw.sum(0), lin.weight.grad))
    rec("psb_ok", lib.allclose(psb.sum(0), lin.bias.grad))
    n = (psw.pow(2).sum((1, 2)) + psb.pow(2).sum(1)).sqrt()
    rec("norm", n)
    h1.remove()
    h2.remove()
    rec("hooks", str((len(lin._forward_hooks), len(lin._backward_hooks))))
    # a Linear with bmm-based per-sample grads and grad_sample attached
    lin.weight.grad_sample = psw
    rec("gs_shape", str(tuple(lin.weight.grad_sample.shape)))


def p_topk(lib, dt, rec):
    g = lib.Generator().manual_seed(0)
    d, k = 50, 5
    err = lib.zeros(d, dtype=dt)
    acc = lib.zeros(d, dtype=dt)
    for step in range(4):
        grad = lib.randn(d, generator=g, dtype=dt) * (step + 1)
        corrected = grad + err
        vals, idx = corrected.abs().topk(k)
        sparse = lib.zeros_like(corrected).scatter(0, idx, corrected.gather(0, idx))
        err = corrected - sparse
        acc += sparse
        rec(f"s{step}.idx", idx.sort().values)
        rec(f"s{step}.vals", vals)
        rec(f"s{step}.err", err.norm())
    rec("acc", acc)
    # 2-d: top-k per row via scatter_ and a threshold variant
    m = lib.randn(4, 10, generator=g, dtype=dt)
    v, i = m.abs().topk(3, dim=1)
    out = lib.zeros_like(m)
    out.scatter_(1, i, m.gather(1, i))
    rec("rows", out)
    thr = m.abs().flatten().kthvalue(m.numel() - 6).values
    rec("thr", thr)
    rec("masked", m * (m.abs() > thr))
    rec("nnz", (m.abs() > thr).sum())
    # randomized sparsification (rand-k) with rescale
    ridx = lib.randperm(m.numel(), generator=g)[:8]
    flat = lib.zeros(m.numel(), dtype=dt).index_put_((ridx,), m.flatten()[ridx] * (m.numel() / 8))
    rec("randk", flat)
    # sparse index/value communication and reassembly with index_add
    agg = lib.zeros(d, dtype=dt)
    for _c in range(3):
        gr = lib.randn(d, generator=g, dtype=dt)
        _, ix = gr.abs().topk(k)
        agg.index_add_(0, ix, gr[ix])
    rec("agg", agg)


def p_signsgd(lib, dt, rec):
    lib.manual_seed(2)
    models = [lib.nn.Linear(4, 2).to(dt) for _ in range(3)]
    g = lib.Generator().manual_seed(0)
    x = lib.randn(10, 4, generator=g, dtype=dt)
    y = lib.randn(10, 2, generator=g, dtype=dt)
    glob = copy.deepcopy(models[0])
    for step in range(3):
        signs = []
        for i, m in enumerate(models):
            m.load_state_dict(glob.state_dict())
            m.zero_grad()
            lib.nn.functional.mse_loss(m(x[i::3]), y[i::3]).backward()
            signs.append(lib.cat([p.grad.sign().flatten() for p in m.parameters()]))
        vote = lib.stack(signs).sum(0).sign()
        rec(f"s{step}.vote", vote)
        with lib.no_grad():
            vec = lib.nn.utils.parameters_to_vector(glob.parameters())
            lib.nn.utils.vector_to_parameters(vec - 0.01 * vote, glob.parameters())
    rec.params("glob", glob)
    # EF-signSGD: scaled sign with error memory
    e = lib.zeros(6, dtype=dt)
    for step in range(3):
        gr = lib.randn(6, generator=g, dtype=dt)
        p = gr + e
        delta = p.abs().mean() * p.sign()
        e = p - delta
        rec(f"ef{step}", delta)


def p_quantize(lib, dt, rec):
    g = lib.Generator().manual_seed(0)
    v = lib.randn(20, generator=g, dtype=dt)
    # QSGD stochastic quantisation with s levels
    s = 4
    norm = v.norm()
    level = v.abs() / norm * s
    low = level.floor()
    u = lib.rand(v.shape, generator=g, dtype=dt)
    q = low + (u < (level - low)).to(dt)
    deq = norm * v.sign() * q / s
    rec("q", q)
    rec("deq", deq)
    # 8-bit min-max quantisation
    lo, hi = v.min(), v.max()
    scale = (hi - lo) / 255
    codes = ((v - lo) / scale).round().clamp(0, 255).to(lib.uint8)
    rec("codes", codes)
    back = codes.to(dt) * scale + lo
    rec("back", back)
    rec("maxerr", (back - v).abs().max())
    # int8 symmetric per-channel
    w = lib.randn(3, 8, generator=g, dtype=dt)
    sc = w.abs().amax(dim=1, keepdim=True) / 127
    qi = lib.round(w / sc).clamp(-128, 127).to(lib.int8)
    rec("qi", qi)
    rec("dq", qi.to(dt) * sc)
    # fake quant with straight-through estimator
    x = lib.randn(6, generator=g, dtype=dt, requires_grad=True)
    xq = x + (lib.round(x * 4) / 4 - x).detach()
    (xq * lib.arange(6, dtype=dt)).sum().backward()
    rec("ste", x.grad)
    rec("fq", lib.fake_quantize_per_tensor_affine(x.detach().float(), 0.1, 0, -128, 127))
    # half-precision transmission
    rec("half", v.half().to(dt))
    rec("bf16", v.to(lib.bfloat16).to(dt))


def p_errors(lib, dt, rec):
    glob = _mlp(lib, dt)
    sd = glob.state_dict()
    bad = dict(sd)
    bad["0.weight"] = bad["0.weight"][:, :3]
    rec.err("shape", lambda: glob.load_state_dict(bad))
    extra = dict(sd)
    extra["foo"] = lib.zeros(1)
    rec.err("extra", lambda: glob.load_state_dict(extra))
    rec.err("vec", lambda: lib.nn.utils.vector_to_parameters(lib.zeros(5), glob.parameters()))
    rec.err("ptv", lambda: lib.nn.utils.parameters_to_vector([lib.zeros(2)]))
    rec.err("stack", lambda: lib.stack([lib.zeros(2, dtype=dt), lib.zeros(3, dtype=dt)]))
    rec.err("split", lambda: lib.utils.data.random_split(range(10), [3, 3]))
    rec(
        "split_frac",
        [
            len(s)
            for s in lib.utils.data.random_split(
                range(10), [0.5, 0.3, 0.2], generator=lib.Generator().manual_seed(0)
            )
        ],
    )
    rec(
        "split_idx",
        lib.utils.data.random_split(
            range(10), [0.34, 0.33, 0.33], generator=lib.Generator().manual_seed(0)
        )[0].indices,
    )
    rec.err("topk", lambda: lib.zeros(3, dtype=dt).topk(5))
    rec.err("multinom", lambda: lib.multinomial(lib.ones(3, dtype=dt), 5))
    rec.err("randperm", lambda: lib.randperm(-1))
    rec.err(
        "scatter",
        lambda: lib.zeros(3, dtype=dt).scatter(0, lib.tensor([0, 1]), lib.ones(2, dtype=lib.int64)),
    )
    rec.err(
        "clip",
        lambda: lib.nn.utils.clip_grad_norm_(
            [lib.ones(2, dtype=dt, requires_grad=True)], 1.0, error_if_nonfinite=True
        ),
    )


def p_state_roundtrip(lib, dt, rec):
    import io

    glob = _mlp(lib, dt, bn=True)
    opt = lib.optim.Adam(glob.parameters(), lr=1e-2)
    x, y = _data(lib, dt, seed=12)
    for _ in range(2):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(glob(x), y).backward()
        opt.step()
    buf = io.BytesIO()
    lib.save({"model": glob.state_dict(), "opt": opt.state_dict(), "round": 3}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    rec("round", ck["round"])
    rec("keys", str(list(ck["model"].keys())))
    m2 = _mlp(lib, dt, bn=True, seed=5)
    m2.load_state_dict(ck["model"])
    o2 = lib.optim.Adam(m2.parameters(), lr=1e-2)
    o2.load_state_dict(ck["opt"])
    rec("step", o2.state_dict()["state"][0]["step"])
    for mm, oo in ((glob, opt), (m2, o2)):
        oo.zero_grad()
        lib.nn.functional.cross_entropy(mm(x), y).backward()
        oo.step()
    for (n, a), (_, b) in zip(glob.named_parameters(), m2.named_parameters(), strict=False):
        rec("eq." + n, lib.equal(a, b))
    # delta compression of the state_dict, sorted keys and summary
    base = {k: v.clone() for k, v in glob.state_dict().items()}
    with lib.no_grad():
        for p in glob.parameters():
            p.mul_(1.01)
    # 0.bias is skipped: BatchNorm cancels it, so its Adam steps amplify float32 rounding noise
    diff = {
        k: glob.state_dict()[k] - base[k]
        for k in base
        if base[k].is_floating_point() and k != "0.bias"
    }
    rec("diffnorm", lib.stack([d.norm() for d in diff.values()]))
    rec("numel", sum(v.numel() for v in diff.values()))
    rec("repr", repr(glob))
    rec("sdrepr", repr(base["1.num_batches_tracked"]))


def p_fed_func(lib, dt, rec):
    # fedavg with torch.func: stacked client params, vmap over clients
    model = _dp_model(lib, dt)
    params = {k: v.detach() for k, v in model.named_parameters()}
    n = 3
    stacked = {k: v.unsqueeze(0).expand(n, *v.shape).clone() for k, v in params.items()}
    g = lib.Generator().manual_seed(7)
    xs = lib.randn(n, 8, 5, generator=g, dtype=dt)
    ys = lib.randint(0, 3, (n, 8), generator=g)

    def loss(p, x, y):
        return lib.nn.functional.cross_entropy(lib.func.functional_call(model, p, (x,)), y)

    step = lib.func.vmap(lib.func.grad_and_value(loss))
    for it in range(3):
        grads, vals = step(stacked, xs, ys)
        rec(f"it{it}.loss", vals)
        stacked = {k: stacked[k] - 0.3 * grads[k] for k in stacked}
    avg = {k: v.mean(0) for k, v in stacked.items()}
    for k, v in avg.items():
        rec("avg." + k, v)
    rec("div", lib.stack([(stacked[k] - avg[k]).flatten(1).norm(dim=1) for k in avg]))
    # stack_module_state
    models = [_dp_model(lib, dt) for _ in range(2)]
    ps, bs = lib.func.stack_module_state(models)
    rec("stack_keys", str(sorted(ps)))
    rec("stack_shape", str(tuple(ps["0.weight"].shape)))


def p_dp_mechanisms(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    x = lib.rand(50, generator=g, dtype=dt)
    sens, eps = 1.0 / 50, 0.5
    lap = lib.distributions.Laplace(lib.tensor(0.0, dtype=dt), lib.tensor(sens / eps, dtype=dt))
    lib.manual_seed(4)
    noisy = x.mean() + lap.sample()
    rec("lap", noisy)
    rec("lap_lp", lap.log_prob(lib.tensor([0.0, 0.1], dtype=dt)))
    sigma = math.sqrt(2 * math.log(1.25 / 1e-5)) * sens / eps
    rec("gauss", lib.normal(x, sigma, generator=g))
    rec("gauss2", lib.normal(lib.zeros(3, dtype=dt), lib.full((3,), sigma, dtype=dt), generator=g))
    # total norm and clipping as separate steps, plus value clipping
    lib.manual_seed(2)
    m = lib.nn.Linear(4, 3).to(dt)
    lib.nn.functional.mse_loss(m(x[:8].view(2, 4)), lib.ones(2, 3, dtype=dt)).backward()
    grads = [p.grad for p in m.parameters()]
    total = lib.nn.utils.get_total_norm(grads, norm_type=2.0)
    rec("total", total)
    lib.nn.utils.clip_grads_with_norm_(m.parameters(), 0.1, total)
    rec.params("clipped", m, grads=True)
    lib.nn.utils.clip_grad_value_(m.parameters(), 0.01)
    rec.params("cv", m, grads=True)
    rec("inf", lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type="inf"))
    # per-sample clipping through a tensor hook on the batch output
    w = lib.randn(4, generator=g, dtype=dt, requires_grad=True)
    xb = lib.randn(5, 4, generator=g, dtype=dt)
    out = xb * w
    out.register_hook(lambda gr: gr / gr.norm(dim=1, keepdim=True).clamp(min=1.0))
    (out.sum(1) ** 2).sum().backward()
    rec("hook_grad", w.grad)
    # exponential-mechanism client choice and randomized response
    scores = lib.tensor([1.0, 3.0, 2.0, 0.5], dtype=dt)
    probs = lib.softmax(eps * scores / (2 * 1.0), 0)
    rec("probs", probs)
    rec("choice", lib.multinomial(probs, 6, replacement=True, generator=g))
    bits = lib.randint(0, 2, (12,), generator=g).bool()
    flip = lib.rand(12, generator=g) < 1 / (1 + math.exp(eps))
    rec("rr", bits ^ flip)
    rec(
        "rr_est",
        ((bits ^ flip).to(dt).mean() - 1 / (1 + math.exp(eps))) / (1 - 2 / (1 + math.exp(eps))),
    )


def p_state_api(lib, dt, rec):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2)).to(dt)
    sd = m.state_dict(keep_vars=True)
    rec("kv", str([type(v).__name__ for v in sd.values()]))
    rec("req", str([v.requires_grad for v in sd.values()]))
    rec("meta", str(m.state_dict()._metadata))
    rec("od", str(type(m.state_dict()).__name__))
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    new = OrderedDict((k, v.detach() * 2) for k, v in m.state_dict().items())
    m2 = copy.deepcopy(m)
    r = m2.load_state_dict(new, assign=True)
    rec("assign", str(r))
    rec("assign_w", m2[0].weight)
    rec("isparam", str(type(m2[0].weight).__name__))
    rec("prefix", str(list(m.state_dict(prefix="client.").keys())[:3]))

    # vmap with randomness='different' for per-client noise
    def noisy(v):
        return v + lib.randn(v.shape, dtype=dt)

    lib.manual_seed(1)
    out = lib.func.vmap(noisy, randomness="same")(lib.zeros(3, 4, dtype=dt))
    rec("same_rows", lib.allclose(out[0], out[1]))
    out = lib.func.vmap(noisy, randomness="different")(lib.zeros(3, 4, dtype=dt))
    rec("diff_rows", lib.allclose(out[0], out[1]))
    rec.err("err_rand", lambda: lib.func.vmap(noisy)(lib.zeros(3, 4, dtype=dt)))
    # grad with has_aux
    params = {k: v.detach() for k, v in m.named_parameters()}
    bufs = {k: v for k, v in m.named_buffers()}
    x = lib.randn(5, 3, dtype=dt)
    m.eval()

    def f(p):
        o = lib.func.functional_call(m, (p, bufs), (x,))
        return o.pow(2).mean(), o

    gr, aux = lib.func.grad(f, has_aux=True)(params)
    rec("aux", aux)
    for k, v in gr.items():
        rec("gr." + k, v)
    rec("bufs_after", bufs["1.running_mean"])
    # torch.distributions.Binomial noise and chunked aggregation
    b = lib.distributions.Binomial(10, probs=lib.tensor([0.5, 0.2], dtype=dt))
    lib.manual_seed(3)
    rec("binom", b.sample((3,)))
    v = lib.arange(10, dtype=dt)
    rec("chunks", str([c.tolist() for c in v.chunk(3)]))
    rec("agg", lib.stack(list(v.split(5))).sum(0))
    # torch.nn.utils.parameters_to_vector on non-contiguous / transposed
    lin = lib.nn.Linear(3, 2).to(dt)
    with lib.no_grad():
        lin.weight.set_(lin.weight.t().contiguous().t())
    rec.err("ptv", lambda: lib.nn.utils.parameters_to_vector(lin.parameters()))
    rec("nbt", m.state_dict()["1.num_batches_tracked"])
    m.train()
    m(lib.randn(4, 3, dtype=dt))
    rec("nbt2", m.state_dict()["1.num_batches_tracked"])
    avg = lib.stack([m.state_dict()["1.num_batches_tracked"]] * 2).float().mean().long()
    rec("nbt_avg", avg)
    rec.err("mean_long", lambda: lib.stack([m.state_dict()["1.num_batches_tracked"]] * 2).mean())


def p_prune_sparse(lib, dt, rec):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.ReLU(), lib.nn.Linear(6, 2)).to(dt)
    import importlib

    P = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    P.l1_unstructured(m[0], "weight", amount=0.5)
    P.random_unstructured(m[2], "weight", amount=3)
    rec("keys", str(list(m.state_dict().keys())))
    rec("mask0", m[0].weight_mask)
    rec("w0", m[0].weight)
    rec.err("deepcopy", lambda: copy.deepcopy(m))
    c = m
    g = lib.Generator().manual_seed(1)
    x = lib.randn(8, 4, generator=g, dtype=dt)
    opt = lib.optim.SGD(c.parameters(), lr=0.1)
    lib.nn.functional.mse_loss(c(x), lib.zeros(8, 2, dtype=dt)).backward()
    rec("g_orig", c[0].weight_orig.grad)
    opt.step()
    rec("w0c", c[0].weight)
    P.remove(c[0], "weight")
    rec("keys_rm", str(list(c.state_dict().keys())))
    P.l1_unstructured(c[0], "weight", amount=0.25)
    P.global_unstructured(
        [(m[0], "weight"), (m[2], "weight")], pruning_method=P.L1Unstructured, amount=0.6
    )
    rec("gmask", m[0].weight_mask.sum() + m[2].weight_mask.sum())
    rec("is_pruned", P.is_pruned(m))
    # weight_norm parametrization under deepcopy + averaging
    lib.manual_seed(2)
    wn = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2).to(dt))
    rec("wn_keys", str(list(wn.state_dict().keys())))
    a = copy.deepcopy(wn)
    with lib.no_grad():
        a.parametrizations.weight.original1.mul_(2)
    sds = [wn.state_dict(), a.state_dict()]
    avg = {k: (sds[0][k] + sds[1][k]) / 2 for k in sds[0]}
    wn.load_state_dict(avg)
    rec("wn_w", wn.weight)
    # index_put_ accumulate for sparse aggregation
    agg = lib.zeros(6, dtype=dt)
    idx = lib.tensor([0, 2, 2, 5, 0])
    agg.index_put_((idx,), lib.arange(5, dtype=dt), accumulate=True)
    rec("acc", agg)
    rec("sc_add", lib.zeros(6, dtype=dt).scatter_add(0, idx, lib.ones(5, dtype=dt)))
    rec(
        "sc_red",
        lib.zeros(6, dtype=dt).scatter_reduce(
            0, idx, lib.arange(5, dtype=dt), "amax", include_self=False
        ),
    )
    rec("sc_mean", lib.zeros(6, dtype=dt).scatter_reduce(0, idx, lib.arange(5, dtype=dt), "mean"))


def p_dp_conv(lib, dt, rec):
    lib.manual_seed(0)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = lib.nn.Embedding(10, 4)
            self.conv = lib.nn.Conv1d(4, 6, 3, padding=1)
            self.gn = lib.nn.GroupNorm(2, 6)
            self.fc = lib.nn.Linear(6, 2)

        def forward(self, t):
            h = self.emb(t).transpose(1, 2)
            h = lib.nn.functional.gelu(self.gn(self.conv(h)))
            return self.fc(h.mean(-1))

    net = Net().to(dt)
    g = lib.Generator().manual_seed(1)
    toks = lib.randint(0, 10, (6, 7), generator=g)
    ys = lib.randint(0, 2, (6,), generator=g)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def loss(p, t, y):
        out = lib.func.functional_call(net, p, (t.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, y.unsqueeze(0), label_smoothing=0.1)

    ps = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, toks, ys)
    for k, v in ps.items():
        rec("ps." + k, v)
    flat = lib.cat([v.reshape(v.shape[0], -1) for v in ps.values()], 1)
    n = lib.linalg.vector_norm(flat, dim=1)
    rec("n", n)
    clipped = flat * (1.0 / (n / 0.5)).clamp(max=1.0).unsqueeze(1)
    rec("clipped_n", lib.linalg.norm(clipped, dim=1))
    rec("sum", clipped.sum(0))
    # jacrev-based per-sample gradient via vmap over a batch
    j = lib.func.vmap(lib.func.jacrev(loss), in_dims=(None, 0, 0))(params, toks, ys)
    rec("jac_eq", lib.allclose(j["fc.weight"], ps["fc.weight"]))
    # ghost norm for a linear layer: ||a||*||g|| for per-sample grads of fc
    net.zero_grad()
    feats = {}
    hk = net.fc.register_forward_pre_hook(lambda m, a: feats.__setitem__("a", a[0].detach()))
    out = net(toks)
    out.retain_grad()
    lib.nn.functional.cross_entropy(out, ys, reduction="sum", label_smoothing=0.1).backward()
    hk.remove()
    ghost = feats["a"].norm(dim=1) * out.grad.norm(dim=1)
    rec("ghost", ghost)
    rec("ghost_ok", lib.allclose(ghost, ps["fc.weight"].flatten(1).norm(dim=1)))


def p_robust(lib, dt, rec):
    g = lib.Generator().manual_seed(0)
    n, d, f = 7, 9, 2
    ups = lib.randn(n, d, generator=g, dtype=dt)
    ups[-f:] = ups[-f:] * 20 + 5
    # coordinate-wise median and trimmed mean
    rec("median", ups.median(dim=0).values)
    rec("median_i", ups.median(dim=0).indices)
    rec("median_all", ups.median())
    rec("nanmedian", lib.nanmedian(lib.where(ups > 3, float("nan"), ups), dim=0).values)
    s = ups.sort(dim=0).values
    rec("trimmed", s[f : n - f].mean(0))
    rec("quant", lib.quantile(ups, lib.tensor([0.1, 0.5, 0.9], dtype=dt), dim=0))
    # Krum
    dist = lib.cdist(ups, ups) ** 2
    rec("dist", dist)
    rec("pdist", lib.nn.functional.pdist(ups))
    scores = dist.sort(dim=1).values[:, 1 : n - f - 1].sum(1)
    rec("scores", scores)
    rec("krum", scores.argmin())
    sel = scores.topk(3, largest=False).indices
    rec("multikrum", ups[sel].mean(0))
    # geometric median (Weiszfeld)
    z = ups.mean(0)
    for _ in range(5):
        w = 1.0 / lib.linalg.vector_norm(ups - z, dim=1).clamp_min(1e-8)
        z = (w[:, None] * ups).sum(0) / w.sum()
    rec("geomed", z)
    # norm-bounding and cosine screening (FLTrust-like)
    ref = ups[0]
    cos = lib.nn.functional.cosine_similarity(ups, ref.unsqueeze(0), dim=1)
    rec("cos", cos)
    ts = lib.relu(cos)
    normed = ups / ups.norm(dim=1, keepdim=True) * ref.norm()
    rec("fltrust", (ts[:, None] * normed).sum(0) / ts.sum())
    rec("normalize", lib.nn.functional.normalize(ups, dim=1)[:2])
    # adaptive clipping: quantile of norms, geometric update
    norms = ups.norm(dim=1)
    C = lib.tensor(1.0, dtype=dt)
    for _ in range(3):
        frac = (norms <= C).to(dt).mean()
        C = C * lib.exp(-0.2 * (frac - 0.5))
    rec("C", C)
    rec("hist", lib.histc(norms.float(), bins=4, min=0, max=float(norms.max())))
    rec("bucket", lib.bucketize(norms, lib.tensor([1.0, 3.0, 10.0], dtype=dt)))
    # in-place random fills with generators
    gg = lib.Generator().manual_seed(3)
    e = lib.empty(5, dtype=dt)
    rec("normal_", e.normal_(0, 2, generator=gg))
    rec("uniform_", e.uniform_(-1, 1, generator=gg))
    rec("bern_", lib.empty(6, dtype=dt).bernoulli_(0.3, generator=gg))
    rec("exp_", lib.empty(4, dtype=dt).exponential_(2.0, generator=gg))
    rec("poisson", lib.poisson(lib.full((4,), 3.0, dtype=dt), generator=gg))
    lib.manual_seed(5)
    rec("randn_like", lib.randn_like(e))
    rec("lap_rs", lib.distributions.Laplace(lib.zeros(3, dtype=dt), 0.5).rsample())
    rec("sgn", lib.sgn(lib.tensor([-2.0, 0.0, 3.0], dtype=dt)))


def p_powersgd_lstm(lib, dt, rec):
    g = lib.Generator().manual_seed(0)
    # PowerSGD rank-2 compression with error feedback
    M = lib.randn(8, 6, generator=g, dtype=dt)
    Q = lib.randn(6, 2, generator=g, dtype=dt)
    err = lib.zeros_like(M)
    for it in range(3):
        Mc = M + err
        P = Mc @ Q
        P, _ = lib.linalg.qr(P)
        Q = Mc.t() @ P
        approx = P @ Q.t()
        err = Mc - approx
        rec(f"it{it}.approx", approx)
        rec(f"it{it}.err", err.norm())

    # Gram-Schmidt orthogonalization as in the reference implementation
    def orth(m):
        m = m.clone()
        for i in range(m.shape[1]):
            col = m[:, i : i + 1]
            col /= col.norm()
            if i + 1 < m.shape[1]:
                rest = m[:, i + 1 :]
                rest -= (col * rest).sum(0) * col
        return m

    o = orth(lib.randn(5, 3, generator=g, dtype=dt))
    rec("orth", o.t() @ o)
    # FedAvg of an LSTM model with per-client lr schedulers
    lib.manual_seed(1)

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = lib.nn.LSTM(3, 5, num_layers=2, batch_first=True)
            self.head = lib.nn.Linear(5, 1)

        def forward(self, x):
            o, (h, c) = self.lstm(x)
            return self.head(o[:, -1])

    glob = Net().to(dt)
    rec("keys", str(list(glob.state_dict().keys())))
    xs = lib.randn(2, 4, 6, 3, generator=g, dtype=dt)
    ys = xs.sum((2, 3)).unsqueeze(-1) * 0.1
    for rnd in range(2):
        sds = []
        for i in range(2):
            m = copy.deepcopy(glob)
            opt = lib.optim.Adam(m.parameters(), lr=0.01)
            sch = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
            for _ep in range(3):
                opt.zero_grad()
                loss = lib.nn.functional.smooth_l1_loss(m(xs[i]), ys[i])
                loss.backward()
                lib.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
                opt.step()
                sch.step()
            rec(f"r{rnd}.c{i}.loss", loss)
            rec(f"r{rnd}.c{i}.lr", sch.get_last_lr())
            sds.append(m.state_dict())
        glob.load_state_dict({k: lib.stack([s[k] for s in sds]).mean(0) for k in sds[0]})
    rec.params("glob", glob)


def p_hooks_batched(lib, dt, rec):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 2).to(dt)
    g = lib.Generator().manual_seed(1)
    x = lib.randn(4, 3, generator=g, dtype=dt)
    out = lin(x)
    # per-sample losses' gradients by is_grads_batched
    losses = out.pow(2).sum(1)
    eye = lib.eye(4, dtype=dt)
    gw, gb = lib.autograd.grad(losses, (lin.weight, lin.bias), eye, is_grads_batched=True)
    rec("gw", gw)
    rec("gb", gb)
    # noise injected after accumulation
    gn = lib.Generator().manual_seed(2)
    seen = []

    def inject(p):
        seen.append(tuple(p.shape))
        with lib.no_grad():
            p.grad.add_(lib.randn(p.grad.shape, generator=gn, dtype=dt) * 0.01)

    hs = [p.register_post_accumulate_grad_hook(inject) for p in lin.parameters()]
    lin(x).sum().backward()
    rec("seen", str(sorted(seen)))
    rec.params("p", lin, grads=True)
    for h in hs:
        h.remove()
    # state_dict hooks: strip a prefix on load, count saves
    calls = []
    lin.register_state_dict_post_hook(lambda m, sd, prefix, local: calls.append(len(sd)))
    sd = lin.state_dict()
    rec("calls", str(calls))
    renamed = {"client0." + k: v for k, v in sd.items()}

    def pre(state_dict, prefix, *args):
        for k in list(state_dict):
            if k.startswith("client0."):
                state_dict[prefix + k[len("client0.") :]] = state_dict.pop(k)

    lin._register_load_state_dict_pre_hook(pre)
    rec.err("load", lambda: rec("loaded", str(lin.load_state_dict(renamed))))
    # jacobian of a model wrt inputs, vectorized
    jac = lib.autograd.functional.jacobian(lambda t: lin(t).tanh(), x[:2], vectorize=True)
    rec("jac", jac)
    # fuse conv-bn for deployment after federated training
    conv = lib.nn.Conv2d(2, 3, 3).to(dt).eval()
    bn = lib.nn.BatchNorm2d(3).to(dt).eval()
    with lib.no_grad():
        bn.running_mean.uniform_(-1, 1, generator=g)
        bn.running_var.uniform_(0.5, 2, generator=g)
    fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn)
    img = lib.randn(1, 2, 5, 5, generator=g, dtype=dt)
    rec("fused", fused(img))
    rec("ref", bn(conv(img)))


def p_logging(lib, dt, rec):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)).to(dt)
    rec("sd", repr(m.state_dict()))
    g = lib.Generator().manual_seed(1)
    loss = lib.rand((), generator=g, dtype=dt)
    rec("fmt", f"round 3 | loss {loss:.4f} | acc {lib.tensor(0.8125, dtype=dt):.2%}")
    rec("fmt2", f"{loss.item():.6f} {lib.tensor(7):d} {lib.tensor([1.5, 2.25], dtype=dt)}")
    rec("codes", repr(lib.tensor([0, 17, 255], dtype=lib.uint8)))
    rec("i8", repr(lib.tensor([-128, 3, 127], dtype=lib.int8)))
    rec("mask", repr(lib.rand(3, 4, generator=g, dtype=dt) > 0.5))
    rec("small", repr(lib.tensor([1e-9, 3.0, -2.5e5], dtype=dt)))
    rec("vec", repr(lib.nn.utils.parameters_to_vector(m.parameters()).detach()))
    rec("grad", repr(m[0].weight * 2))
    rec("count", f"{sum(p.numel() for p in m.parameters()):,} params")
    # rng state bookkeeping around client training
    lib.manual_seed(3)
    st = lib.get_rng_state()
    a = lib.rand(3, dtype=dt)
    with lib.random.fork_rng():
        lib.manual_seed(99)
        lib.rand(5)
    b = lib.rand(3, dtype=dt)
    lib.set_rng_state(st)
    rec("replay", lib.equal(lib.rand(3, dtype=dt), a))
    rec("b", b)
    rec("state", str((st.dtype, tuple(st.shape))))
    lib.set_printoptions(precision=2)
    try:
        rec("p2", repr(lib.tensor([1.23456, 2.5], dtype=dt)))
    finally:
        lib.set_printoptions(profile="default")
    rec("long", repr(lib.arange(2000, dtype=dt)))


def p_accountant(lib, dt, rec):
    q, sigma, steps, delta = 0.01, 1.1, 1000, 1e-5
    orders = lib.tensor([2.0, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0], dtype=dt)
    rdps = []
    for a in orders.tolist():
        i = lib.arange(int(a) + 1, dtype=dt)
        log_binom = (
            lib.lgamma(lib.tensor(a + 1, dtype=dt)) - lib.lgamma(i + 1) - lib.lgamma(a - i + 1)
        )
        rec(f"binom{int(a)}", log_binom.exp().round())
        terms = (
            log_binom
            + lib.special.xlogy(i, lib.tensor(q, dtype=dt))
            + (a - i) * math.log1p(-q)
            + (i * i - i) / (2 * sigma**2)
        )
        log_a = lib.logsumexp(terms, 0)
        rdps.append(log_a / (a - 1))
    rdp = lib.stack(rdps) * steps
    rec("rdp", rdp)
    eps = rdp + math.log(1 / delta) / (orders - 1)
    rec("eps", eps)
    rec("best", eps.min())
    rec("order", orders[eps.argmin()])
    # improved conversion
    eps2 = rdp + lib.log1p(-1 / orders) - (math.log(delta) + lib.log(orders)) / (orders - 1)
    rec("eps2", eps2)
    # Gaussian DP / CLT: mu and delta(eps) via ndtr
    mu = q * math.sqrt(steps * (math.exp(sigma**-2) - 1))
    e = lib.linspace(0.5, 4, 5, dtype=dt)
    m = lib.tensor(mu, dtype=dt)
    dlt = lib.special.ndtr(-e / m + m / 2) - lib.exp(e) * lib.special.ndtr(-e / m - m / 2)
    rec("gdp_delta", dlt)
    rec("log_ndtr", lib.special.log_ndtr(-e * 3))
    rec("ndtri", lib.special.ndtri(lib.tensor([1e-5, 0.5, 0.975], dtype=dt)))
    # noise multiplier search by bisection
    lo, hi = lib.tensor(0.3, dtype=dt), lib.tensor(5.0, dtype=dt)
    for _ in range(20):
        mid = (lo + hi) / 2
        mu_ = q * lib.sqrt(steps * (lib.exp(mid**-2) - 1))
        d_ = lib.special.ndtr(-1.0 / mu_ + mu_ / 2) - math.exp(1.0) * lib.special.ndtr(
            -1.0 / mu_ - mu_ / 2
        )
        go_up = d_ > delta
        lo = lib.where(go_up, mid, lo)
        hi = lib.where(go_up, hi, mid)
    rec("sigma_star", hi)
    rec("erfcx", lib.special.erfcx(lib.tensor([0.5, 5.0, 30.0], dtype=dt)))
    rec("gammaln", lib.special.gammaln(lib.tensor([0.5, 10.0, 100.5], dtype=dt)))
    rec("i0e", lib.special.i0e(lib.tensor([0.1, 3.0], dtype=dt)))


def p_errors2(lib, dt, rec):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)).to(dt)
    sd = m.state_dict()
    nbt = sd["1.num_batches_tracked"].clone()
    rec.err("nbt_add_float", lambda: nbt.add_(0.5))
    rec.err("nbt_div", lambda: nbt.div_(2))
    rec("nbt_floor", nbt.div(2, rounding_mode="floor"))
    rec.err("nbt_mean", lambda: lib.stack([nbt, nbt]).mean())
    half = {k: (v.half() if v.is_floating_point() else v) for k, v in sd.items()}
    m2 = copy.deepcopy(m)
    rec("load_half", str(m2.load_state_dict(half)))
    rec("dtype_after", str(m2[0].weight.dtype))
    p = m[0].weight
    rec.err("grad_shape", lambda: setattr(p, "grad", lib.zeros(2, 2, dtype=dt)))
    rec.err("grad_dtype", lambda: setattr(p, "grad", lib.zeros(2, 3, dtype=lib.float16)))
    rec.err("grad_int", lambda: setattr(p, "grad", lib.zeros(2, 3, dtype=lib.int64)))
    y = p * 2
    rec.err("deepcopy_nonleaf", lambda: copy.deepcopy(y))
    rec.err("stack_empty", lambda: lib.stack([]))
    rec("stack_mixed", lib.stack([lib.zeros(2, dtype=dt), lib.ones(2, dtype=lib.int64)]))
    rec.err("split_frac", lambda: lib.utils.data.random_split(range(10), [0.5, 0.6]))
    rec.err("multinom_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1, 0.6], dtype=dt), 1))
    rec.err("multinom_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err(
        "clip_nan",
        lambda: lib.nn.utils.clip_grad_norm_(
            [lib.nn.Parameter(lib.ones(2, dtype=dt))], 1.0, error_if_nonfinite=True
        ),
    )
    q = lib.nn.Parameter(lib.ones(2, dtype=dt))
    q.grad = lib.tensor([float("inf"), 1.0], dtype=dt)
    rec.err("clip_inf", lambda: lib.nn.utils.clip_grad_norm_([q], 1.0, error_if_nonfinite=True))
    rec.err("inplace_leaf", lambda: p.add_(1))
    rec.err("vtp", lambda: lib.nn.utils.vector_to_parameters([1, 2], m.parameters()))
    rec.err("load_bad_type", lambda: m.load_state_dict({"0.weight": [1.0]}, strict=False))
    rec.err("topk_dim", lambda: lib.zeros(3, 4, dtype=dt).topk(2, dim=2))
    rec.err(
        "scatter_dtype",
        lambda: lib.zeros(3, dtype=dt).scatter_(0, lib.tensor([0]), lib.ones(1, dtype=lib.float16)),
    )
    rec.err("gather_idx", lambda: lib.zeros(3, dtype=dt).gather(0, lib.tensor([0.0])))
    rec.err("randint_gen", lambda: lib.randint(0, 5, (3,), generator=5))


def p_bits(lib, dt, rec):
    g = lib.Generator().manual_seed(0)
    v = lib.randn(16, generator=g, dtype=dt)
    bits = (v > 0).to(lib.uint8)
    packed = (bits.view(-1, 8) << lib.arange(8, dtype=lib.uint8)).sum(1, dtype=lib.uint8)
    rec("packed", packed)
    rec("packed_sum_dtype", str((bits.view(-1, 8) << lib.arange(8)).sum(1).dtype))
    unpacked = (packed.unsqueeze(1) >> lib.arange(8, dtype=lib.uint8)) & 1
    rec("unpacked", unpacked.flatten())
    rec("roundtrip", lib.equal(unpacked.flatten(), bits))
    # stochastic rounding float32 -> bfloat16 by integer bit tricks
    f = v.float()
    as_int = f.view(lib.int32)
    rec("as_int", as_int)
    noise = lib.randint(0, 1 << 16, f.shape, generator=g, dtype=lib.int32)
    rounded = ((as_int + noise) & -65536).view(lib.float32)
    rec("sr_bf16", rounded)
    rec("is_bf16", lib.equal(rounded.to(lib.bfloat16).float(), rounded))
    rec("bitwise", (as_int >> 23) & 0xFF)
    rec("xor", lib.bitwise_xor(as_int, 0x55555555))
    rec("not", lib.bitwise_not(packed))
    rec("lshift_i64", lib.tensor([1, 2], dtype=lib.int64) << 40)
    # unique / counts for vote tallies, searchsorted for systematic sampling
    votes = lib.randint(0, 5, (30,), generator=g)
    u, inv, cnt = votes.unique(return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)
    w = lib.rand(6, generator=g, dtype=dt)
    cdf = w.cumsum(0) / w.sum()
    u0 = lib.rand((), generator=g, dtype=dt) / 4
    pts = u0 + lib.arange(4, dtype=dt) / 4
    rec("sys", lib.searchsorted(cdf, pts))
    cat = lib.distributions.Categorical(probs=w / w.sum())
    lib.manual_seed(1)
    rec("cat", cat.sample((5,)))
    rec("cat_ent", cat.entropy())
    t = lib.zeros(8, dtype=dt)
    t.put_(lib.tensor([1, 6, 1]), lib.tensor([1.0, 2.0, 3.0], dtype=dt), accumulate=True)
    rec("put", t)
    rec("take", v.view(4, 4).take(lib.tensor([0, 5, 15])))
    ms = lib.zeros(6, dtype=dt).masked_scatter_(lib.tensor([1, 0, 1, 0, 0, 1]).bool(), v)
    rec("ms", ms)
    ir = lib.zeros(3, dtype=dt).index_reduce_(
        0, lib.tensor([0, 2, 0, 1]), v[:4], "prod", include_self=False
    )
    rec("ir", ir)


def p_moon_feddf(lib, dt, rec):
    lib.manual_seed(0)
    enc = lib.nn.Sequential(
        lib.nn.Linear(5, 8), lib.nn.ReLU(), lib.nn.Dropout(0.2), lib.nn.Linear(8, 4)
    ).to(dt)
    head = lib.nn.Linear(4, 3).to(dt)
    g = lib.Generator().manual_seed(1)
    x = lib.randn(10, 5, generator=g, dtype=dt)
    y = lib.randint(0, 3, (10,), generator=g)
    glob_enc, prev_enc = copy.deepcopy(enc), copy.deepcopy(enc)
    with lib.no_grad():
        for p in prev_enc.parameters():
            p.add_(0.05)
    opt = lib.optim.SGD(
        list(enc.parameters()) + list(head.parameters()), lr=0.05, weight_decay=1e-3
    )
    glob_enc.eval()
    prev_enc.eval()
    for step in range(3):
        lib.manual_seed(10 + step)
        z = enc(x)
        with lib.no_grad():
            zg, zp = glob_enc(x), prev_enc(x)
        pos = lib.nn.functional.cosine_similarity(z, zg, dim=-1)
        neg = lib.nn.functional.cosine_similarity(z, zp, dim=-1)
        logits = lib.stack([pos, neg], 1) / 0.5
        con = lib.nn.functional.cross_entropy(logits, lib.zeros(10, dtype=lib.long))
        loss = lib.nn.functional.cross_entropy(head(z), y) + 1.0 * con
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        rec(f"s{step}.con", con)
        rec(f"s{step}.loss", loss)
    rec.params("enc", enc)
    # FedDF: ensemble distillation on unlabeled data with KL(log_target)
    lib.manual_seed(2)
    teachers = [lib.nn.Linear(5, 3).to(dt) for _ in range(3)]
    student = lib.nn.Linear(5, 3).to(dt)
    u = lib.randn(12, 5, generator=g, dtype=dt)
    with lib.no_grad():
        t_logits = lib.stack([t(u) for t in teachers]).mean(0)
    T = 2.0
    sopt = lib.optim.Adam(student.parameters(), lr=0.05, amsgrad=True)
    for step in range(3):
        s_log = lib.log_softmax(student(u) / T, -1)
        t_log = lib.log_softmax(t_logits / T, -1)
        kl = lib.nn.functional.kl_div(s_log, t_log, reduction="batchmean", log_target=True) * T * T
        kl2 = lib.nn.KLDivLoss(reduction="batchmean")(s_log, t_log.exp())
        sopt.zero_grad()
        kl.backward()
        sopt.step()
        rec(f"kl{step}", kl)
        rec(f"kl2_{step}", kl2)
    rec.params("student", student)
    # FedDyn: linear + quadratic regularisers with a stored gradient state
    lib.manual_seed(3)
    m = lib.nn.Linear(5, 3).to(dt)
    gvec = lib.nn.utils.parameters_to_vector(m.parameters()).detach().clone()
    hstate = lib.zeros_like(gvec)
    alpha = 0.1
    o = lib.optim.SGD(m.parameters(), lr=0.1)
    for step in range(3):
        v = lib.nn.utils.parameters_to_vector(m.parameters())
        loss = (
            lib.nn.functional.cross_entropy(m(x), y)
            - lib.dot(v, hstate)
            + alpha / 2 * lib.sum((v - gvec) ** 2)
        )
        o.zero_grad()
        loss.backward()
        o.step()
        rec(f"dyn{step}", loss)
    hstate = hstate - alpha * (lib.nn.utils.parameters_to_vector(m.parameters()).detach() - gvec)
    rec("h", hstate)


def p_func_edges(lib, dt, rec):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.Dropout(0.5), lib.nn.Linear(4, 2)).to(dt)
    params = {k: v.detach() for k, v in m.named_parameters()}
    g = lib.Generator().manual_seed(1)
    x = lib.randn(3, 4, generator=g, dtype=dt)

    def f(p, xb):
        return lib.func.functional_call(m, p, (xb.unsqueeze(0),)).sum()

    rec.err("vmap_drop", lambda: lib.func.vmap(lib.func.grad(f), in_dims=(None, 0))(params, x))
    lib.manual_seed(2)
    gs = lib.func.vmap(lib.func.grad(f), in_dims=(None, 0), randomness="different")(params, x)
    rec("shape", str({k: tuple(v.shape) for k, v in gs.items()}))
    m.eval()
    gs = lib.func.vmap(lib.func.grad(f), in_dims=(None, 0))(params, x)
    rec("eval_g", gs["2.weight"])
    partial = {"0.weight": params["0.weight"] * 0}
    rec("partial", lib.func.functional_call(m, partial, (x,)))
    rec.err("strict", lambda: lib.func.functional_call(m, partial, (x,), strict=True))
    rec.err("bad_key", lambda: lib.func.functional_call(m, {"nope": x}, (x,)))
    rec(
        "two_dicts",
        lib.func.functional_call(
            m, ({"0.weight": params["0.weight"]}, {"2.bias": params["2.bias"] + 1}), (x,)
        ),
    )
    out, vjp = lib.func.vjp(lambda p: lib.func.functional_call(m, p, (x,)), params)
    (ct,) = vjp(lib.ones_like(out))
    rec("vjp", ct["0.bias"])
    tang = {k: lib.ones_like(v) for k, v in params.items()}
    _, jv = lib.func.jvp(lambda p: lib.func.functional_call(m, p, (x,)), (params,), (tang,))
    rec("jvp", jv)
    rec("m_params_unchanged", lib.equal(m[0].weight.detach(), params["0.weight"]))
    h = lib.func.hessian(lambda w: (lib.tanh(x @ w) ** 2).sum())(lib.ones(4, dtype=dt) * 0.1)
    rec("hess", h)


def p_loaders(lib, dt, rec):
    D = lib.utils.data
    g = lib.Generator().manual_seed(0)
    x = lib.arange(40, dtype=dt).view(20, 2)
    y = lib.arange(20) % 3
    ds = D.TensorDataset(x, y)
    shards = [
        D.DistributedSampler(ds, num_replicas=3, rank=r, shuffle=True, seed=7) for r in range(3)
    ]
    for r, s in enumerate(shards):
        s.set_epoch(1)
        rec(f"dist{r}", list(s))
        rec(f"dist_len{r}", len(s))
    nd = D.DistributedSampler(ds, num_replicas=3, rank=0, shuffle=False, drop_last=True)
    rec("nd", list(nd))
    sub = D.Subset(ds, [3, 1, 4, 1, 5])
    rec("sub", sub[2][0])
    cat = D.ConcatDataset([sub, D.Subset(ds, range(10, 13))])
    rec("cat_len", len(cat))
    rec("cat_item", cat[6][0])
    rec.err("cat_oob", lambda: cat[8])
    srs = D.SubsetRandomSampler([2, 4, 6, 8, 10], generator=g)
    rec("srs", list(srs))
    counts = lib.bincount(y).to(dt)
    wts = (1.0 / counts)[y]
    wrs = D.WeightedRandomSampler(wts, 10, replacement=True, generator=g)
    rec("wrs", list(wrs))
    dl = D.DataLoader(ds, batch_size=6, sampler=wrs, drop_last=True)
    rec("dl_len", len(dl))
    for i, (xb, _yb) in enumerate(dl):
        rec(f"b{i}", xb)
    bs = D.BatchSampler(D.SequentialSampler(range(7)), 3, drop_last=False)
    rec("bs", str(list(bs)))
    dl2 = D.DataLoader(ds, batch_size=None, shuffle=False)
    rec("nobatch", next(iter(dl2))[0])

    def coll(batch):
        xs, ys = zip(*batch, strict=False)
        return lib.stack(xs).sum(0), lib.tensor(ys)

    dl3 = D.DataLoader(
        ds, batch_size=4, shuffle=True, collate_fn=coll, generator=lib.Generator().manual_seed(3)
    )
    rec("coll", next(iter(dl3))[0])
    rec("coll_y", next(iter(dl3))[1])
    rec.err("bad_split", lambda: D.random_split(ds, [0.5, 0.5, 0.5]))


def p_lowprec(lib, dt, rec):
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 3).to(dt)
    g = lib.Generator().manual_seed(1)
    x = lib.randn(6, 4, generator=g, dtype=dt)
    y = lib.randint(0, 3, (6,), generator=g)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        out = m(x)
        rec("ac_dtype", str(out.dtype))
        loss = lib.nn.functional.cross_entropy(out, y)
        rec("loss_dtype", str(loss.dtype))
    loss.backward()
    rec("g_dtype", str(m.weight.grad.dtype))
    rec("g", m.weight.grad)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**8)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    for step in range(2):
        opt.zero_grad()
        l2 = lib.nn.functional.cross_entropy(m(x), y)
        scaler.scale(l2).backward()
        scaler.unscale_(opt)
        rec(f"s{step}.gnorm", lib.nn.utils.clip_grad_norm_(m.parameters(), 1.0))
        scaler.step(opt)
        scaler.update()
        rec(f"s{step}.scale", scaler.get_scale())
    rec.params("m", m)
    # transmit half-precision deltas, accumulate in float
    hm = lib.nn.Linear(4, 3).half()
    sd = {k: v.float() for k, v in hm.state_dict().items()}
    rec("half_w", sd["weight"])
    up = (m.weight.detach() - sd["weight"].to(dt)).half()
    rec("up", up)
    rec("up_repr", repr(up[0]))
    rec("f16_sum", lib.stack([up, up]).sum(0))
