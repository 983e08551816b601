"""Session 36 (helper fewshot): few-shot learning written the way users write it in torch, run
under torch and minitorch with the same seeds and compared record by record (float64 to 1e-10 of
each record's scale, float32 to 1e-4, texts exactly).

Programs: prototypical networks (prototypes as means over support embeddings; squared
euclidean distances by torch.cdist in both compute modes, by broadcasting and by the
||q||^2 - 2q.p + ||p||^2 expansion; log_softmax/nll and cross_entropy; accuracy), prototypes of
unsorted supports by index_add_/scatter_add_/one-hot matmul/masks/scatter_reduce, batched
episodes with broadcast batch dims, cdist for every p with gradients past the 25-row switch and
at zero distances, F.normalize for every p and dim (with out=), matching networks (normalize +
bmm cosine attention over a scattered one-hot), relation networks (conv embeddings with
BatchNorm, channel-concatenated pairs, sigmoid + MSE; pairs by meshgrid, cartesian_prod,
expand and repeat), episodic sampling (randperm per class, unique with return_inverse and
counts, index_select, relabelling by lookup table, searchsorted and unique, multinomial),
unique/unique_consecutive with dims, one-hot by F.one_hot/scatter/index_put_ and label
smoothing three ways, an episodic batch sampler behind a DataLoader, the torch.utils.data
samplers episodes are made of, MAML (second order by autograd.grad(create_graph=True) and
torch.func.functional_call, with BatchNorm buffers passed in, a hand-run conv learner with
F.batch_norm, ANIL, Meta-SGD, ProtoMAML, MAML++ per-step learning rates with a cosine
schedule, CAVIA, Reptile with lerp_, learn2learn's clone_module/update_module writing
non-leaf tensors into _parameters), torch.func MAML (grad with has_aux, grad_and_value, vmap
over tasks, stack_module_state ensembles, tied weights), a cosine classifier with weight_norm,
TADAM-style metric scaling with FiLM, soft k-means prototype refinement, inner-loop gradient
hooks, retain_grad and backward(inputs=...), evaluation under inference_mode and no_grad with
torch's refusals, in-place changes that break a meta-gradient (torch's version messages),
gradcheck/gradgradcheck, hvp and jacobian of the prototypical loss,
bfloat16/float16 episode ops, and the argument errors of cdist, normalize, cosine_similarity,
pairwise_distance, one_hot, index_select, gather, scatter, index_add_, unique, randperm,
bincount and autograd.grad/functional_call/func.grad.

Found and fixed:
- Module.zero_grad and Module._apply (.to(), .double(), learn2learn re-running an RNN's
  _apply) read each parameter's gradient through the private slot: a non-leaf tensor in
  _parameters (a learn2learn / MAML clone) gave no warning; torch's read p.grad and warn
  "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed..." once per
  parameter.

Known and left (documented):
- scatter(..., reduce="add"/"multiply"): torch's result has no derivative (its node is
  NotImplemented, backward raises "derivative for aten::scatter is not implemented");
  minitorch differentiates it as scatter_reduce, and the op table tests that gradient
  (tests/ops/test_selection.py), so only values are recorded.
- cdist/pdist have no second derivative nor forward-mode AD in torch (NotImplementedError);
  minitorch gives both (every op is twice differentiable). The programs' double backward goes
  through broadcast distances.
- torch.func.jacrev of cdist is wrong in torch 2.13 (every row of the Jacobian is the first
  row's; autograd.functional.jacobian is right); minitorch gives the right Jacobian. Not
  recorded.
- vmap over a BatchNorm in training mode, and func.grad of a function that updates a
  captured buffer in place: torch refuses both (running stats not batched, a mutated captured
  Tensor); minitorch runs them (vmap's docstring and NOTE in func/_transforms.py).
- CdistBackward0 (a composite node) has no _saved_x1/_saved_x2/_saved_p/_saved_result.
- clip_grad_value_ over parameters without gradients: torch 2.13 raises an internal
  "Expected !nested_tensorlist[0].empty()" check; minitorch returns None.
- A conv bias before a BatchNorm gets a rounding-noise gradient that Adam turns into a full
  step: the relation network and the conv MAML learner have bias-free convs; the last bias of
  an encoder under a distance loss is recorded by shape only.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen

torch = pytest.importorskip("torch")


PROGRAMS = [
    "proto_cdist", "proto_broadcast", "proto_scatter", "cdist_modes", "cdist_batched",
    "cdist_zero", "normalize_grads", "matching_bmm", "relation_net", "episodes", "unique_relabel",
    "one_hot_scatter", "maml_second_order", "maml_bn", "anil", "meta_sgd", "protomaml",
    "func_maml", "vmap_tasks", "cosine_classifier", "soft_kmeans", "episode_loader",
    "maml_lslr", "cavia", "tadam_scale", "gather_select", "proto_gradcheck", "reptile",
    "l2l_clone", "scatter_reduce_arg", "meta_errors", "maml_conv4", "relation_pairs",
    "eval_episodes", "inner_hooks", "low_precision", "samplers", "tied_heads", "inplace_errors",
]  # fmt: skip


def _non_leaf_grad(w):
    """The warnings a program records: torch's for reading .grad of a non-leaf tensor."""
    return "not a leaf Tensor" in str(w.message)

CALL_SWEEPS = [
    "cdist_errors", "normalize_errors", "one_hot_errors", "index_errors", "index_dtypes",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt, keep_warnings=_non_leaf_grad)


@pytest.mark.parametrize("name", CALL_SWEEPS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["c_" + name], torch)


# --- helpers ---


def _encoder(lib, dt, d_in=6, d_hid=10, d_out=5, seed=0):
    nn = lib.nn
    lib.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(d_in, d_hid), nn.ReLU(), nn.Linear(d_hid, d_hid), nn.Tanh(),
        nn.Linear(d_hid, d_out),
    ).to(dt)  # fmt: skip


def _pool(lib, dt, seed, n_cls=8, n_per=6, d=6, spread=0.7):
    """A labelled pool: n_cls Gaussian blobs of n_per points each."""
    g = _gen(lib, seed)
    centers = lib.randn(n_cls, d, generator=g, dtype=dt) * 1.5
    data = centers.repeat_interleave(n_per, 0)
    data = data + spread * lib.randn(n_cls * n_per, d, generator=g, dtype=dt)
    labels = lib.arange(n_cls).repeat_interleave(n_per)
    return data, labels, g


def _episode(lib, data, labels, g, way, shot, query):
    """Samples an N-way K-shot episode: classes by randperm, examples by randperm per class."""
    classes = lib.unique(labels)
    chosen = classes[lib.randperm(len(classes), generator=g)[:way]]
    sup, qry = [], []
    for c in chosen:
        idx = lib.nonzero(labels == c).squeeze(1)
        idx = idx[lib.randperm(idx.numel(), generator=g)]
        sup.append(data.index_select(0, idx[:shot]))
        qry.append(data.index_select(0, idx[shot : shot + query]))
    xs = lib.cat(sup)
    xq = lib.cat(qry)
    ys = lib.arange(way).repeat_interleave(shot)
    yq = lib.arange(way).repeat_interleave(query)
    return xs, ys, xq, yq, chosen


def _proto_loss(lib, emb_s, ys, emb_q, yq, way):
    protos = emb_s.view(way, -1, emb_s.shape[-1]).mean(1)
    logits = -lib.cdist(emb_q, protos).pow(2)
    return lib.nn.functional.cross_entropy(logits, yq), logits


# --- the programs: each takes the library, a dtype and a recorder ---


def p_proto_cdist(lib, dt, rec):
    F = lib.nn.functional
    data, labels, g = _pool(lib, dt, 1)
    net = _encoder(lib, dt, seed=1)
    opt = lib.optim.Adam(net.parameters(), lr=0.01)
    way, shot, query = 4, 3, 2
    for ep in range(4):
        xs, ys, xq, yq, chosen = _episode(lib, data, labels, g, way, shot, query)
        emb_s, emb_q = net(xs), net(xq)
        protos = emb_s.view(way, shot, -1).mean(dim=1)
        dists = lib.cdist(emb_q, protos) ** 2
        log_p = F.log_softmax(-dists, dim=1)
        loss = F.nll_loss(log_p, yq)
        acc = (log_p.argmax(dim=1) == yq).float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"chosen{ep}", chosen)
        rec(f"dists{ep}", dists)
        rec(f"loss{ep}", loss)
        rec(f"acc{ep}", acc)
        rec(f"g{ep}", net[0].weight.grad)
    rec.params("net", net, view=lambda n, p: p if n != "4.bias" else p.shape)


def p_proto_broadcast(lib, dt, rec):
    """Distances by broadcasting, by the expansion ||q||^2 - 2 q.p + ||p||^2, and cdist."""
    F = lib.nn.functional
    g = _gen(lib, 2)
    way, shot, nq, d = 5, 4, 7, 6
    emb_s = lib.randn(way * shot, d, generator=g, dtype=dt).requires_grad_()
    emb_q = lib.randn(nq, d, generator=g, dtype=dt).requires_grad_()
    yq = lib.randint(0, way, (nq,), generator=g)
    protos = emb_s.reshape(way, shot, d).mean(1)
    d_bc = ((emb_q.unsqueeze(1) - protos.unsqueeze(0)) ** 2).sum(dim=2)
    d_exp = (emb_q.pow(2).sum(1, keepdim=True) - 2 * emb_q @ protos.t()
             + protos.pow(2).sum(1).unsqueeze(0))  # fmt: skip
    d_cd = lib.cdist(emb_q.unsqueeze(0), protos.unsqueeze(0)).squeeze(0).pow(2)
    for tag, dist in (("bc", d_bc), ("exp", d_exp), ("cd", d_cd)):
        loss = F.cross_entropy(-dist, yq)
        gs, gq = lib.autograd.grad(loss, (emb_s, emb_q))
        rec(tag, dist)
        rec(tag + ".loss", loss)
        rec(tag + ".gs", gs)
        rec(tag + ".gq", gq)
    rec("pairwise", F.pairwise_distance(emb_q[:, None], protos[None]))
    rec("euclid_mm", lib.cdist(emb_q, protos, compute_mode="use_mm_for_euclid_dist"))
    rec("log_softmax_dim0", F.log_softmax(-d_bc, dim=0))
    pred = (-d_bc).softmax(-1).max(-1)
    rec("conf", pred.values)
    rec("pred", pred.indices)


def p_proto_scatter(lib, dt, rec):
    """Prototypes of an unsorted support set by index_add_/scatter_add_/one-hot matmul."""
    g = _gen(lib, 3)
    way, d = 4, 5
    ys = lib.tensor([2, 0, 3, 1, 0, 2, 3, 1, 1, 0, 2, 3])
    emb = lib.randn(len(ys), d, generator=g, dtype=dt).requires_grad_()
    counts = lib.bincount(ys, minlength=way)
    rec("counts", counts)
    p1 = lib.zeros(way, d, dtype=dt).index_add_(0, ys, emb) / counts.unsqueeze(1)
    idx = ys.unsqueeze(1).expand(-1, d)
    p2 = lib.zeros(way, d, dtype=dt).scatter_add_(0, idx, emb) / counts[:, None].to(dt)
    oh = lib.nn.functional.one_hot(ys, way).to(dt)
    p3 = (oh.t() @ emb) / oh.sum(0, keepdim=True).t()
    p4 = lib.stack([emb[ys == c].mean(0) for c in range(way)])
    p5 = lib.zeros(way, d, dtype=dt).scatter_reduce(0, idx, emb, "mean", include_self=False)
    w = lib.randn(way, d, generator=g, dtype=dt)
    for tag, p in (("ia", p1), ("sa", p2), ("oh", p3), ("mask", p4), ("sr", p5)):
        rec(tag, p)
        rec(tag + ".dtype_p", str(p.dtype))
        rec(tag + ".g", lib.autograd.grad((p * w).sum(), emb)[0])


def p_cdist_modes(lib, dt, rec):
    """cdist for every p, both compute modes, past 25 rows (the matrix-product switch)."""
    g = _gen(lib, 4)
    x0 = lib.randn(30, 4, generator=g, dtype=dt)
    y0 = lib.randn(27, 4, generator=g, dtype=dt) + 0.5
    w = lib.randn(30, 27, generator=g, dtype=dt)
    for p in (0.5, 1.0, 1.5, 2.0, 3.0, float("inf")):
        for mode in ("use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"):
            x = x0.clone().requires_grad_()
            y = y0.clone().requires_grad_()
            out = lib.cdist(x, y, p=p, compute_mode=mode)
            (out * w).sum().backward()
            tag = f"p{p}.{mode[:6]}"
            rec(tag, out)
            rec(tag + ".gx", x.grad)
            rec(tag + ".gy", y.grad)
    d0 = lib.cdist(x0[:5], y0[:6], p=0)
    rec("p0", d0)
    x = x0[:26].clone().requires_grad_()
    out = lib.cdist(x, y0, compute_mode="use_mm_for_euclid_dist")
    rec("mm", out)
    rec("mm.g", lib.autograd.grad((out * w[:26]).sum(), x)[0])
    rec("grad_fn", type(out.grad_fn).__name__)


def p_cdist_batched(lib, dt, rec):
    """Batched episodes (B tasks): cdist with broadcast batch dims, non-contiguous inputs."""
    F = lib.nn.functional
    g = _gen(lib, 5)
    B, way, shot, q, d = 3, 4, 2, 5, 6
    sup = lib.randn(B, way, shot, d, generator=g, dtype=dt).requires_grad_()
    qry = lib.randn(B, way * q, d, generator=g, dtype=dt).requires_grad_()
    yq = lib.arange(way).repeat_interleave(q).expand(B, -1)
    protos = sup.mean(2)  # B, way, d
    logits = -lib.cdist(qry, protos) ** 2
    loss = F.cross_entropy(logits.reshape(-1, way), yq.reshape(-1))
    loss2 = F.cross_entropy(logits.transpose(1, 2), yq)
    rec("logits", logits)
    rec("loss", loss)
    rec("loss2", loss2)
    gs, gq = lib.autograd.grad(loss, (sup, qry))
    rec("gs", gs)
    rec("gq", gq)
    # broadcasting batch dims: one prototype set for every task
    shared = protos[:1]
    rec("bcast", lib.cdist(qry, shared, p=1.0))
    rec("bcast4", lib.cdist(qry.unsqueeze(0), protos.unsqueeze(1)).shape)
    # a transposed (non-contiguous) query tensor
    qt = qry.detach().transpose(1, 2).contiguous().transpose(1, 2)
    rec("noncontig", lib.cdist(qt, protos, p=3.0))
    acc = (logits.argmax(-1) == yq).float().mean(-1)
    rec("acc", acc)


def p_cdist_zero(lib, dt, rec):
    """cdist's gradient where distances are zero (a query equal to a prototype)."""
    g = _gen(lib, 6)
    a = lib.randn(4, 3, generator=g, dtype=dt)
    b = lib.cat([a[:2], lib.randn(2, 3, generator=g, dtype=dt)])
    w = lib.randn(4, 4, generator=g, dtype=dt)
    for p in (1.0, 2.0, 3.0, float("inf"), 0.5):
        x = a.clone().requires_grad_()
        y = b.clone().requires_grad_()
        out = lib.cdist(x, y, p=p, compute_mode="donot_use_mm_for_euclid_dist")
        (out * w).sum().backward()
        rec(f"p{p}", out)
        rec(f"p{p}.gx", x.grad)
        rec(f"p{p}.gy", y.grad)
    x = a.clone().requires_grad_()
    d2 = ((x[:, None] - b[None]) ** 2).sum(-1)
    rec("sq.g", lib.autograd.grad((d2 * w).sum(), x)[0])
    n = (x[:, None] - b[None]).norm(dim=-1)
    rec("norm.g", lib.autograd.grad((n * w).sum(), x)[0])


def p_normalize_grads(lib, dt, rec):
    F = lib.nn.functional
    g = _gen(lib, 7)
    x0 = lib.randn(4, 5, generator=g, dtype=dt)
    x0[2] = 0.0
    w = lib.randn(4, 5, generator=g, dtype=dt)
    for p in (2.0, 1.0, 3.0, float("inf")):
        for dim in (1, 0, -1):
            x = x0.clone().requires_grad_()
            out = F.normalize(x, p=p, dim=dim)
            (out * w).sum().backward()
            rec(f"p{p}.d{dim}", out)
            rec(f"p{p}.d{dim}.g", x.grad)
    x = x0.clone().requires_grad_()
    out = F.normalize(x, eps=0.5)
    rec("eps", out)
    rec("eps.g", lib.autograd.grad((out * w).sum(), x)[0])
    o = lib.empty(4, 5, dtype=dt)
    r = F.normalize(x0, out=o)
    rec("out_is", r is o)
    rec("out", o)
    x3 = lib.randn(2, 3, 4, generator=g, dtype=dt)
    rec("3d", F.normalize(x3, dim=1))
    rec("cos", F.cosine_similarity(x3[:, :, None], x3[:, None], dim=-1))
    rec("cos_eps", F.cosine_similarity(x0, lib.zeros_like(x0)))


def p_matching_bmm(lib, dt, rec):
    """Matching networks: cosine attention over the support set (F.normalize, bmm), attention
    weights times one-hot labels, a log of the mixture, trained a few SGD steps."""
    F = lib.nn.functional
    g = _gen(lib, 8)
    B, way, shot, q, d = 2, 3, 2, 4, 6
    xs = lib.randn(B, way * shot, d, generator=g, dtype=dt)
    ys = lib.arange(way).repeat(shot).expand(B, -1)  # interleaved labels
    xq = xs[:, [0, 1, 2, 3]] + 0.4 * lib.randn(B, q, d, generator=g, dtype=dt)
    yq = ys[:, :q]
    net = _encoder(lib, dt, d_out=7, seed=8)
    opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    for step in range(3):
        es = F.normalize(net(xs), dim=-1)
        eq = F.normalize(net(xq), dim=-1)
        sim = lib.bmm(eq, es.transpose(1, 2))  # B, q, way*shot
        att = sim.mul(5.0).softmax(dim=2)
        onehot = lib.zeros(B, way * shot, way, dtype=dt).scatter_(2, ys.unsqueeze(-1), 1.0)
        probs = lib.bmm(att, onehot)
        loss = F.nll_loss(probs.clamp(min=1e-8).log().view(-1, way), yq.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"sim{step}", sim)
        rec(f"probs{step}", probs)
        rec(f"loss{step}", loss)
    rec.params("net", net)
    rec("baddbmm", lib.baddbmm(lib.ones(1, 1, 1, dtype=dt), eq, es.transpose(1, 2), beta=0.5))
    rec("einsum", lib.einsum("bqd,bsd->bqs", eq, es))
    rec("matmul", (eq @ es.mT).detach())


def p_relation_net(lib, dt, rec):
    """Relation networks: conv embeddings, every (query, class) pair concatenated along the
    channels, a relation module with BatchNorm and max pooling, sigmoid scores and MSE against
    one-hot targets."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    emb = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                        nn.MaxPool2d(2)).to(dt)  # fmt: skip
    rel = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3), nn.ReLU(),
                        nn.Linear(3, 1), nn.Sigmoid()).to(dt)  # fmt: skip
    params = list(emb.parameters()) + list(rel.parameters())
    opt = lib.optim.Adam(params, lr=0.01)
    g = _gen(lib, 9)
    way, shot, q = 3, 2, 2
    for step in range(3):
        xs = lib.randn(way * shot, 1, 8, 8, generator=g, dtype=dt)
        noise = lib.randn(way, 1, 8, 8, generator=g, dtype=dt)
        xq = xs.view(way, shot, 1, 8, 8)[:, 0] + 0.3 * noise
        xq = xq.repeat_interleave(q, 0)
        yq = lib.arange(way).repeat_interleave(q)
        fs = emb(xs).view(way, shot, 4, 4, 4).sum(1)  # way, C, H, W
        fq = emb(xq)  # nq, C, H, W
        nq = fq.shape[0]
        fs_ext = fs.unsqueeze(0).repeat(nq, 1, 1, 1, 1)
        fq_ext = fq.unsqueeze(1).expand(-1, way, -1, -1, -1)
        pairs = lib.cat((fs_ext, fq_ext), dim=2).view(-1, 8, 4, 4)
        scores = rel(pairs).view(nq, way)
        target = lib.zeros(nq, way, dtype=dt).scatter_(1, yq.view(-1, 1), 1)
        loss = F.mse_loss(scores, target)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 0.5)
        opt.step()
        rec(f"scores{step}", scores)
        rec(f"loss{step}", loss)
    rec("running_mean", rel[1].running_mean)
    rec("running_var", emb[1].running_var)
    rec("nbt", emb[1].num_batches_tracked)
    rec.params("rel", rel)
    emb.eval()
    rel.eval()
    with lib.no_grad():
        rec("eval", rel(pairs).view(nq, way))


def p_episodes(lib, dt, rec):
    """Episodic sampling as users write it: randperm per class, torch.unique with
    return_inverse, index_select, a class relabelling through a lookup table, and the
    torch.multinomial / randint variants."""
    g = _gen(lib, 10)
    labels = lib.randint(0, 12, (60,), generator=g)
    data = lib.randn(60, 3, generator=g, dtype=dt)
    classes, inv, counts = lib.unique(labels, return_inverse=True, return_counts=True)
    rec("classes", classes)
    rec("inv", inv)
    rec("counts", counts)
    ok = classes[counts >= 4]
    rec("ok", ok)
    for ep in range(3):
        chosen = ok[lib.randperm(ok.numel(), generator=g)[:3]]
        idx = []
        for c in chosen.tolist():
            pos = (labels == c).nonzero().flatten()
            idx.append(pos[lib.randperm(pos.numel(), generator=g)[:4]])
        idx = lib.stack(idx)  # way, shot+query
        batch = data.index_select(0, idx.flatten()).view(3, 4, 3)
        # relabel: a lookup table, and searchsorted into the sorted chosen classes
        table = lib.full((12,), -1, dtype=lib.long)
        table[chosen] = lib.arange(3)
        y = table[labels[idx]]
        srt, order = chosen.sort()
        y2 = order[lib.searchsorted(srt, labels[idx])]
        _, y3 = lib.unique(labels[idx], return_inverse=True)
        rec(f"chosen{ep}", chosen)
        rec(f"idx{ep}", idx)
        rec(f"batch{ep}", batch)
        rec(f"y{ep}", y)
        rec(f"same{ep}", lib.equal(y, y2))
        rec(f"y3_{ep}", y3)
    w = counts.to(dt)
    rec("multinomial", lib.multinomial(w, 5, replacement=False, generator=g))
    rec("multinomial_r", lib.multinomial(w / w.sum(), 8, replacement=True, generator=g))
    rec("randint", lib.randint(3, 9, (2, 4), generator=g))
    rec("randperm_dt", lib.randperm(6, generator=g, dtype=lib.int32))


def p_unique_relabel(lib, dt, rec):
    g = _gen(lib, 11)
    lab2 = lib.randint(10, 15, (3, 5), generator=g)
    u, inv = lib.unique(lab2, return_inverse=True)
    rec("u", u)
    rec("inv", inv)
    u0, inv0, c0 = lib.unique(lab2, dim=0, return_inverse=True, return_counts=True)
    rec("u0", u0)
    rec("inv0", inv0)
    rec("c0", c0)
    rows = lib.tensor([[1, 2], [0, 1], [1, 2], [0, 1], [3, 3]])
    ur, ir, cr = lib.unique(rows, dim=0, return_inverse=True, return_counts=True)
    rec("ur", ur)
    rec("ir", ir)
    rec("cr", cr)
    uc, ic, cc = lib.unique_consecutive(
        lib.tensor([3, 3, 1, 1, 1, 3, 2, 2]), return_inverse=True, return_counts=True
    )
    rec("uc", uc)
    rec("ic", ic)
    rec("cc", cc)
    f = lib.tensor([0.5, -1.0, 0.5, 2.0, -1.0], dtype=dt)
    uf, inf_ = f.unique(return_inverse=True)
    rec("uf", uf)
    rec("inf", inf_)
    e = lib.tensor([], dtype=lib.long)
    ue, ie, ce = lib.unique(e, return_inverse=True, return_counts=True)
    rec("ue", ue)
    rec("ie", ie)
    rec("ce", ce)
    rec("ret_type", type(lib.unique(lab2, return_inverse=True)).__name__)
    ub = lib.unique(lab2 > 12)
    rec("ub", ub)


def p_one_hot_scatter(lib, dt, rec):
    F = lib.nn.functional
    g = _gen(lib, 12)
    y = lib.randint(0, 5, (3, 4), generator=g)
    oh = F.one_hot(y)
    rec("oh", oh)
    rec("oh5", F.one_hot(y, num_classes=7).shape)
    rec("oh_neg1", F.one_hot(y, -1).shape)
    rec("oh_0d", F.one_hot(lib.tensor(3), 5))
    rec("oh_empty", F.one_hot(lib.zeros(0, 2, dtype=lib.long), 4).shape)
    z = lib.zeros(3, 4, 5, dtype=dt)
    rec("scatter", z.scatter(2, y.unsqueeze(-1), 1.0))
    rec("scatter_t", z.scatter(2, y.unsqueeze(-1), lib.full((3, 4, 1), 0.9, dtype=dt)))
    smooth = lib.full((12, 5), 0.1 / 4, dtype=dt).scatter_(1, y.view(-1, 1), 0.9)
    rec("smooth", smooth)
    logits = lib.randn(12, 5, generator=g, dtype=dt).requires_grad_()
    l1 = -(smooth * logits.log_softmax(-1)).sum(-1).mean()
    l2 = F.cross_entropy(logits, y.view(-1), label_smoothing=0.125)
    l3 = F.cross_entropy(logits, smooth)
    for tag, loss in (("l1", l1), ("l2", l2), ("l3", l3)):
        rec(tag, loss)
        rec(tag + ".g", lib.autograd.grad(loss, logits)[0])
    acc = z.scatter_add(2, y.unsqueeze(-1), lib.ones(3, 4, 1, dtype=dt))
    rec("scatter_add", acc.sum((0, 1)))
    rec("idx_put", lib.zeros(12, 5, dtype=dt).index_put_((lib.arange(12), y.view(-1)),
                                                          lib.tensor(1.0, dtype=dt)))  # fmt: skip
    rec("scatter_mul", lib.ones(3, 4, 5, dtype=dt).scatter(2, y.unsqueeze(-1), 2.0,
                                                           reduce="multiply"))  # fmt: skip


def _sine_batch(lib, dt, g, n_tasks, k):
    amp = lib.rand(n_tasks, 1, 1, generator=g, dtype=dt) * 4.5 + 0.5
    phase = lib.rand(n_tasks, 1, 1, generator=g, dtype=dt) * 3.0
    x = lib.rand(n_tasks, 2 * k, 1, generator=g, dtype=dt) * 10 - 5
    y = amp * lib.sin(x + phase)
    return x[:, :k], y[:, :k], x[:, k:], y[:, k:]


def p_maml_second_order(lib, dt, rec):
    """MAML on sine regression: inner steps by autograd.grad(create_graph=True) and
    torch.func.functional_call, the meta-gradient through them, Adam on the meta-parameters."""
    nn, F = lib.nn, lib.nn.functional
    call = lib.func.functional_call
    lib.manual_seed(13)
    net = nn.Sequential(nn.Linear(1, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU(),
                        nn.Linear(12, 1)).to(dt)  # fmt: skip
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    g = _gen(lib, 13)
    for it in range(3):
        xs, ys, xq, yq = _sine_batch(lib, dt, g, 2, 5)
        opt.zero_grad()
        meta = 0.0
        for t in range(2):
            fast = dict(net.named_parameters())
            for _ in range(2):
                loss = F.mse_loss(call(net, fast, (xs[t],)), ys[t])
                grads = lib.autograd.grad(loss, fast.values(), create_graph=True)
                fast = {n: p - 0.01 * gr for (n, p), gr in zip(fast.items(), grads, strict=True)}
            qloss = F.mse_loss(call(net, fast, xq[t]), yq[t])
            qloss.backward()
            meta = meta + qloss.detach()
            rec(f"inner{it}.{t}", loss)
        rec(f"meta{it}", meta / 2)
        rec(f"g{it}", net[2].weight.grad)
        opt.step()
    rec.params("net", net)
    # the meta-gradient equals one autograd.grad of the query loss through the inner step
    fast = dict(net.named_parameters())
    loss = F.mse_loss(call(net, fast, (xs[0],)), ys[0])
    grads = lib.autograd.grad(loss, list(fast.values()), create_graph=True)
    fast = {n: p - 0.01 * gr for (n, p), gr in zip(fast.items(), grads, strict=True)}
    q = F.mse_loss(call(net, fast, (xq[0],)), yq[0])
    fo = lib.autograd.grad(q, list(fast.values()), retain_graph=True)
    rec("fo", fo[0])
    mg = lib.autograd.grad(q, list(net.parameters()))
    rec("mg", lib.cat([m.flatten() for m in mg]))
    rec("second", str(_try(lambda: lib.autograd.grad(q, list(net.parameters())))))
    rec("grads_req", [gr.requires_grad for gr in grads])


def p_maml_bn(lib, dt, rec):
    """MAML with a conv-BatchNorm learner: functional_call with parameters and buffers
    (running statistics updated in the passed buffers, train and eval), transductive BN."""
    nn, F = lib.nn, lib.nn.functional
    call = lib.func.functional_call
    lib.manual_seed(14)
    net = nn.Sequential(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                        nn.Linear(3 * 4 * 4, 3)).to(dt)  # fmt: skip
    g = _gen(lib, 14)
    xs = lib.randn(6, 1, 6, 6, generator=g, dtype=dt)
    ys = lib.tensor([0, 1, 2, 0, 1, 2])
    xq = xs + 0.2 * lib.randn(6, 1, 6, 6, generator=g, dtype=dt)
    params = dict(net.named_parameters())
    buffers = {n: b.clone() for n, b in net.named_buffers()}
    for step in range(2):
        out = call(net, (params, buffers), (xs,))
        loss = F.cross_entropy(out, ys)
        grads = lib.autograd.grad(loss, list(params.values()), create_graph=True)
        params = {n: p - 0.1 * gr for (n, p), gr in zip(params.items(), grads, strict=True)}
        rec(f"loss{step}", loss)
    rec("buf_mean", buffers["1.running_mean"])
    rec("buf_var", buffers["1.running_var"])
    rec("buf_nbt", buffers["1.num_batches_tracked"])
    rec("module_mean", net[1].running_mean)
    q = F.cross_entropy(call(net, {**params, **buffers}, (xq,)), ys)
    q.backward()
    rec("q", q)
    rec("g_conv", net[0].weight.grad)
    rec("g_bn", net[1].weight.grad)
    net.eval()
    out = call(net, {**params, **buffers}, (xq,))
    rec("eval_out", out)
    rec("strict_err", str(_try(lambda: call(net, {"0.weight": params["0.weight"]}, (xq,),
                                                  strict=True))))  # fmt: skip
    net.train()


def _try(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is the record
        return f"{type(e).__name__}: {e}"
    return "no error"


def p_anil(lib, dt, rec):
    """ANIL: the body runs once, only the head adapts in the inner loop (functional linear),
    first-order and second-order meta-gradients."""
    F = lib.nn.functional
    data, labels, g = _pool(lib, dt, 15)
    body = _encoder(lib, dt, d_out=8, seed=15)
    lib.manual_seed(16)
    head = lib.nn.Linear(8, 3).to(dt)
    opt = lib.optim.AdamW(list(body.parameters()) + list(head.parameters()), lr=0.01)
    for it in range(3):
        xs, ys, xq, yq, _ = _episode(lib, data, labels, g, 3, 2, 3)
        fs, fq = body(xs), body(xq)
        w, b = head.weight, head.bias
        for _ in range(3):
            loss = F.cross_entropy(F.linear(fs, w, b), ys)
            gw, gb = lib.autograd.grad(loss, (w, b), create_graph=(it != 1))
            w, b = w - 0.5 * gw, b - 0.5 * gb
        qloss = F.cross_entropy(F.linear(fq, w, b), yq)
        opt.zero_grad()
        qloss.backward()
        opt.step()
        rec(f"inner{it}", loss)
        rec(f"q{it}", qloss)
        rec(f"gh{it}", head.weight.grad)
        rec(f"gb{it}", body[0].bias.grad)
    rec.params("head", head)
    rec.params("body", body)


def p_meta_sgd(lib, dt, rec):
    """Meta-SGD: a learnable learning rate per parameter element (nn.ParameterList)."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(17)
    net = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 1)).to(dt)
    lrs = nn.ParameterList([nn.Parameter(lib.full_like(p, 0.02)) for p in net.parameters()])
    opt = lib.optim.Adam([{"params": net.parameters()}, {"params": lrs.parameters(), "lr": 1e-3}],
                         lr=1e-2)  # fmt: skip
    g = _gen(lib, 17)
    names = [n for n, _ in net.named_parameters()]
    for it in range(3):
        xs, ys, xq, yq = _sine_batch(lib, dt, g, 3, 4)
        opt.zero_grad()
        for t in range(3):
            ps = list(net.parameters())
            fast = dict(zip(names, ps, strict=True))
            loss = F.mse_loss(lib.func.functional_call(net, fast, (xs[t],)), ys[t])
            grads = lib.autograd.grad(loss, ps, create_graph=True)
            ps = [p - a * gr for p, a, gr in zip(ps, lrs, grads, strict=True)]
            fast = dict(zip(names, ps, strict=True))
            q = F.mse_loss(lib.func.functional_call(net, fast, (xq[t],)), yq[t])
            (q / 3).backward()
        rec(f"q{it}", q)
        rec(f"glr{it}", lrs[2].grad)
        opt.step()
    rec("lrs0", lrs[0])
    rec("lrs3", lrs[3])
    rec.params("net", net)
    rec("repr", repr(lrs).replace("minitorch", "torch"))


def p_protomaml(lib, dt, rec):
    """ProtoMAML: the head initialised from prototypes (W = 2c, b = -|c|^2), adapted with
    functional_call over a detached-then-grad head, output layer merged back."""
    F = lib.nn.functional
    data, labels, g = _pool(lib, dt, 18)
    enc = _encoder(lib, dt, d_out=6, seed=18)
    opt = lib.optim.SGD(enc.parameters(), lr=0.05)
    for it in range(2):
        xs, ys, xq, yq, _ = _episode(lib, data, labels, g, 4, 2, 2)
        es = enc(xs)
        protos = es.view(4, 2, -1).mean(1)
        w0, b0 = 2 * protos, -protos.norm(dim=1) ** 2
        w = w0.detach().requires_grad_()
        b = b0.detach().requires_grad_()
        fast = dict(enc.named_parameters())
        for _ in range(2):
            logits = F.linear(lib.func.functional_call(enc, fast, (xs,)), w, b)
            loss = F.cross_entropy(logits, ys)
            gr = lib.autograd.grad(loss, [*fast.values(), w, b])
            fast = {n: p - 0.1 * d for (n, p), d in zip(fast.items(), gr[:-2], strict=True)}
            w, b = w - 0.1 * gr[-2], b - 0.1 * gr[-1]
        # first-order: re-attach the head to its prototype initialisation
        w = w0 + (w - w0).detach()
        b = b0 + (b - b0).detach()
        logits = F.linear(lib.func.functional_call(enc, fast, (xq,)), w, b)
        q = F.cross_entropy(logits, yq)
        opt.zero_grad()
        q.backward()
        rec(f"loss{it}", loss)
        rec(f"q{it}", q)
        rec(f"g{it}", enc[0].weight.grad)
        opt.step()
    rec.params("enc", enc)


def p_func_maml(lib, dt, rec):
    """MAML with torch.func: grad of a functional loss (has_aux), the inner loop composed,
    the meta-gradient by func.grad of the whole adaptation (second order)."""
    nn, F = lib.nn, lib.nn.functional
    fc = lib.func.functional_call
    lib.manual_seed(19)
    net = nn.Sequential(nn.Linear(1, 8), nn.SiLU(), nn.Linear(8, 1)).to(dt)
    params = {k: v.detach() for k, v in net.named_parameters()}
    g = _gen(lib, 19)
    xs, ys, xq, yq = _sine_batch(lib, dt, g, 2, 5)

    def inner_loss(p, x, y):
        out = fc(net, p, (x,))
        return F.mse_loss(out, y), out.mean()

    def adapt(p, x, y, steps=2):
        for _ in range(steps):
            gr, _ = lib.func.grad(inner_loss, has_aux=True)(p, x, y)
            p = {k: p[k] - 0.05 * gr[k] for k in p}
        return p

    def meta_loss(p, xs, ys, xq, yq):
        return inner_loss(adapt(p, xs, ys), xq, yq)[0]

    loss, aux = inner_loss(params, xs[0], ys[0])
    rec("loss", loss)
    rec("aux", aux)
    gr, aux2 = lib.func.grad(inner_loss, has_aux=True)(params, xs[0], ys[0])
    for k in gr:
        rec("g." + k, gr[k])
    mg = lib.func.grad(meta_loss)(params, xs[0], ys[0], xq[0], yq[0])
    for k in mg:
        rec("mg." + k, mg[k])
    mg2, val = lib.func.grad_and_value(meta_loss)(params, xs[1], ys[1], xq[1], yq[1])
    rec("val", val)
    rec("mg2", mg2["2.weight"])
    # the same with autograd.grad(create_graph=True)
    p = {k: v.clone().requires_grad_() for k, v in params.items()}
    fast = p
    for _ in range(2):
        lo = F.mse_loss(fc(net, fast, (xs[0],)), ys[0])
        gs = lib.autograd.grad(lo, list(fast.values()), create_graph=True)
        fast = {k: v - 0.05 * d for (k, v), d in zip(fast.items(), gs, strict=True)}
    q = F.mse_loss(fc(net, fast, (xq[0],)), yq[0])
    ag = lib.autograd.grad(q, list(p.values()))
    rec("same", all(lib.allclose(a, mg[k]) for a, k in zip(ag, mg, strict=True)))


def p_vmap_tasks(lib, dt, rec):
    """Batched MAML over tasks: vmap of a per-task adaptation (func.grad inside), the
    meta-loss averaged and differentiated."""
    nn, F = lib.nn, lib.nn.functional
    fc = lib.func.functional_call
    lib.manual_seed(20)
    net = nn.Sequential(nn.Linear(1, 6), nn.Tanh(), nn.Linear(6, 1)).to(dt)
    params = {k: v.detach() for k, v in net.named_parameters()}
    g = _gen(lib, 20)
    xs, ys, xq, yq = _sine_batch(lib, dt, g, 4, 5)

    def loss_fn(p, x, y):
        return F.mse_loss(fc(net, p, (x,)), y)

    def task(p, xs, ys, xq, yq):
        gr = lib.func.grad(loss_fn)(p, xs, ys)
        fast = {k: p[k] - 0.1 * gr[k] for k in p}
        return loss_fn(fast, xq, yq)

    losses = lib.func.vmap(task, in_dims=(None, 0, 0, 0, 0))(params, xs, ys, xq, yq)
    rec("losses", losses)
    mg = lib.func.grad(lambda p: lib.func.vmap(task, in_dims=(None, 0, 0, 0, 0))(
        p, xs, ys, xq, yq).mean())(params)  # fmt: skip
    for k in mg:
        rec("mg." + k, mg[k])
    per_task = lib.func.vmap(lib.func.grad(loss_fn), in_dims=(None, 0, 0))(params, xs, ys)
    rec("per_task", per_task["0.weight"])
    rec("per_task.shape", per_task["2.bias"].shape)


def p_cosine_classifier(lib, dt, rec):
    """Baseline++: a cosine classifier (normalised weights and features, a learnable scale),
    fine-tuned on a support set, with weight_norm'd head."""
    nn, F = lib.nn, lib.nn.functional
    data, labels, g = _pool(lib, dt, 21)
    body = _encoder(lib, dt, d_out=6, seed=21)
    lib.manual_seed(22)
    weight = nn.Parameter(lib.randn(5, 6, dtype=dt) * 0.1)
    scale = nn.Parameter(lib.tensor(10.0, dtype=dt))
    opt = lib.optim.SGD([*body.parameters(), weight, scale], lr=0.05, weight_decay=1e-3)
    for step in range(3):
        xs, ys, xq, yq, _ = _episode(lib, data, labels, g, 5, 2, 1)
        f = F.normalize(body(xs), p=2, dim=1, eps=1e-12)
        wn = F.normalize(weight, dim=1)
        logits = scale * f @ wn.t()
        loss = F.cross_entropy(logits, ys)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"logits{step}", logits)
        rec(f"gscale{step}", scale.grad)
    rec("weight", weight)
    rec("scale", scale)
    lib.manual_seed(23)
    head = nn.utils.parametrizations.weight_norm(nn.Linear(6, 5, bias=False).to(dt), dim=0)
    out = head(F.normalize(body(xq), dim=1))
    out.sum().backward()
    rec("wn_out", out)
    rec("wn_g", head.parametrizations.weight.original0.grad)
    rec("wn_v", head.parametrizations.weight.original1.grad)


def p_soft_kmeans(lib, dt, rec):
    """Transductive refinement: prototypes updated by a soft k-means step over unlabelled
    queries (softmax over negative distances, weighted means), gradients through two steps."""
    g = _gen(lib, 24)
    way, shot, nu, d = 3, 2, 6, 4
    es = lib.randn(way, shot, d, generator=g, dtype=dt).requires_grad_()
    eu = lib.randn(nu, d, generator=g, dtype=dt).requires_grad_()
    protos = es.mean(1)
    for _ in range(2):
        dist = lib.cdist(eu, protos) ** 2
        z = lib.softmax(-dist, dim=1)  # nu, way
        num = es.sum(1) + z.t() @ eu
        den = shot + z.sum(0).unsqueeze(1)
        protos = num / den
        rec("z", z)
    rec("protos", protos)
    ent = -(z * z.clamp_min(1e-12).log()).sum(1).mean()
    rec("ent", ent)
    ges, geu = lib.autograd.grad(ent + protos.pow(2).sum(), (es, eu))
    rec("ges", ges)
    rec("geu", geu)
    # hard assignments and a masked mean
    hard = z.argmax(1)
    mask = lib.nn.functional.one_hot(hard, way).bool()
    counts = mask.sum(0)
    rec("counts", counts)
    sums = lib.where(mask.unsqueeze(-1), eu.unsqueeze(1), lib.zeros((), dtype=dt)).sum(0)
    rec("hard_means", sums / counts.clamp_min(1).unsqueeze(1))


def p_episode_loader(lib, dt, rec):
    """An episodic batch sampler (a Sampler yielding the indices of one N-way K-shot episode)
    behind a DataLoader over a TensorDataset, episodes reshaped into support and query."""
    data, labels, _ = _pool(lib, dt, 25, n_cls=6, n_per=5, d=3)
    ds = lib.utils.data.TensorDataset(data, labels)

    class EpisodicSampler(lib.utils.data.Sampler):
        def __init__(self, labels, way, shot, episodes, seed):
            self.labels = labels
            self.way, self.shot, self.episodes = way, shot, episodes
            self.classes = lib.unique(labels)
            self.g = lib.Generator().manual_seed(seed)

        def __len__(self):
            return self.episodes

        def __iter__(self):
            for _ in range(self.episodes):
                batch = []
                for c in self.classes[lib.randperm(len(self.classes), generator=self.g)[:self.way]]:
                    pos = lib.where(self.labels == c)[0]
                    batch.append(pos[lib.randperm(len(pos), generator=self.g)[: self.shot]])
                yield lib.stack(batch).t().reshape(-1).tolist()

    sampler = EpisodicSampler(labels, 3, 3, 4, seed=25)
    loader = lib.utils.data.DataLoader(ds, batch_sampler=sampler)
    rec("len", len(loader))
    for i, (x, y) in enumerate(loader):
        x = x.view(3, 3, -1)  # shot, way, d
        y = y.view(3, 3)
        rec(f"x{i}", x)
        rec(f"y{i}", y)
        support, query = x[:2], x[2]
        protos = support.mean(0)
        rec(f"d{i}", lib.cdist(query, protos))
    # a plain random sampler with a generator, drop_last
    loader2 = lib.utils.data.DataLoader(
        ds, batch_size=7, shuffle=True, drop_last=True, generator=lib.Generator().manual_seed(3)
    )
    rec("len2", len(loader2))
    rec("ys2", lib.stack([y for _, y in loader2]))


def p_maml_lslr(lib, dt, rec):
    """MAML++: learned per-layer per-step learning rates (ParameterDict), multi-step loss
    weighting (importance over the inner steps), cosine-annealed meta-lr."""
    nn, F = lib.nn, lib.nn.functional
    data, labels, g = _pool(lib, dt, 26)
    net = _encoder(lib, dt, d_out=3, seed=26)
    steps = 3
    lslr = nn.ParameterDict({n.replace(".", "-"): nn.Parameter(lib.full((steps,), 0.1, dtype=dt))
                             for n, _ in net.named_parameters()})  # fmt: skip
    opt = lib.optim.Adam([*net.parameters(), *lslr.parameters()], lr=0.01)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-4)
    importance = lib.tensor([0.2, 0.3, 0.5], dtype=dt)
    for it in range(3):
        xs, ys, xq, yq, _ = _episode(lib, data, labels, g, 3, 2, 2)
        fast = dict(net.named_parameters())
        total = 0
        for s in range(steps):
            loss = F.cross_entropy(lib.func.functional_call(net, fast, (xs,)), ys)
            grads = lib.autograd.grad(loss, list(fast.values()), create_graph=True)
            fast = {n: p - lslr[n.replace(".", "-")][s] * gr
                    for (n, p), gr in zip(fast.items(), grads, strict=True)}  # fmt: skip
            q = F.cross_entropy(lib.func.functional_call(net, fast, (xq,)), yq)
            total = total + importance[s] * q
        opt.zero_grad()
        total.backward()
        opt.step()
        sched.step()
        rec(f"total{it}", total)
        rec(f"lr{it}", sched.get_last_lr()[0])
        rec(f"glslr{it}", lslr["0-weight"].grad)
    rec("lslr", lib.stack(list(lslr.values())))
    rec("keys", str(list(lslr.keys())))


def p_cavia(lib, dt, rec):
    """CAVIA: context parameters concatenated to the input adapt in the inner loop; the shared
    network gets the meta-gradient."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(27)
    net = nn.Sequential(nn.Linear(1 + 2, 10), nn.ReLU(), nn.Linear(10, 1)).to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    g = _gen(lib, 27)
    for it in range(2):
        xs, ys, xq, yq = _sine_batch(lib, dt, g, 2, 6)
        opt.zero_grad()
        for t in range(2):
            ctx = lib.zeros(2, dtype=dt, requires_grad=True)
            for _ in range(2):
                inp = lib.cat([xs[t], ctx.expand(xs.shape[1], -1)], dim=1)
                loss = F.mse_loss(net(inp), ys[t])
                (gc,) = lib.autograd.grad(loss, ctx, create_graph=True)
                ctx = ctx - 1.0 * gc
            q = F.mse_loss(net(lib.cat([xq[t], ctx.expand(xq.shape[1], -1)], 1)), yq[t])
            q.backward()
            rec(f"ctx{it}.{t}", ctx)
        rec(f"g{it}", net[0].weight.grad)
        opt.step()
    rec.params("net", net)


def p_tadam_scale(lib, dt, rec):
    """TADAM-style metric scaling and task conditioning: a learnable temperature on the
    distances, FiLM parameters from the mean prototype, euclidean vs cosine metrics."""
    nn, F = lib.nn, lib.nn.functional
    data, labels, g = _pool(lib, dt, 28)
    enc = _encoder(lib, dt, d_out=6, seed=28)
    lib.manual_seed(29)
    film = nn.Linear(6, 12).to(dt)
    alpha = nn.Parameter(lib.tensor(1.0, dtype=dt))
    opt = lib.optim.Adam([*enc.parameters(), *film.parameters(), alpha], lr=0.01)
    for it in range(3):
        xs, ys, xq, yq, _ = _episode(lib, data, labels, g, 4, 2, 2)
        es, eq = enc(xs), enc(xq)
        task = es.view(4, 2, -1).mean((0, 1))
        gamma, beta = film(task).chunk(2)
        es = es * (1 + gamma) + beta
        eq = eq * (1 + gamma) + beta
        protos = es.view(4, 2, -1).mean(1)
        logits = -alpha * lib.cdist(eq, protos).square()
        cos = F.cosine_similarity(eq.unsqueeze(1), protos.unsqueeze(0), dim=2)
        loss = F.cross_entropy(logits, yq) + 0.1 * F.cross_entropy(cos * 10, yq)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"galpha{it}", alpha.grad)
        rec(f"cos{it}", cos)
    rec("alpha", alpha)
    rec.params("film", film)


def p_gather_select(lib, dt, rec):
    """Indexing patterns of episodes: gather of the true-class logit, take_along_dim,
    index_select on a non-contiguous tensor, masked_select, and their gradients."""
    g = _gen(lib, 30)
    logits = lib.randn(6, 4, generator=g, dtype=dt).requires_grad_()
    y = lib.tensor([3, 0, 2, 1, 1, 3])
    true = logits.gather(1, y.unsqueeze(1)).squeeze(1)
    others = logits.masked_fill(lib.nn.functional.one_hot(y, 4).bool(), float("-inf"))
    margin = true - others.amax(1)
    rec("true", true)
    rec("margin", margin)
    rec("g", lib.autograd.grad(margin.sum(), logits)[0])
    rec("tad", lib.take_along_dim(logits, y[:, None], dim=1))
    t = logits.detach().t()  # non-contiguous
    rec("isel", t.index_select(1, lib.tensor([5, 0, 0, 2])))
    rec("neg_index", t[[-1, 0]])
    rec.err("isel_neg", lambda: t.index_select(0, lib.tensor([-1, 0])))
    emb = lib.randn(10, 3, generator=g, dtype=dt).requires_grad_()
    idx = lib.tensor([[1, 4], [7, 1], [9, 0]])
    sel = emb.index_select(0, idx.flatten()).view(3, 2, 3)
    rec("sel", sel)
    rec("sel.g", lib.autograd.grad((sel * sel).sum(), emb)[0])
    ms = lib.masked_select(logits, logits > 0)
    rec("ms", ms)
    rec("ms.g", lib.autograd.grad(ms.sum(), logits)[0])
    src = lib.randn(6, 4, generator=g, dtype=dt).requires_grad_()
    z = lib.zeros(6, 4, dtype=dt).scatter(1, y.unsqueeze(1).expand(-1, 2), src[:, :2])
    rec("scatter_src", z)
    rec("scatter_src.g", lib.autograd.grad((z * logits.detach()).sum(), src)[0])
    topv, topi = logits.topk(2, dim=1)
    rec("topv", topv)
    rec("topi", topi)
    rec("hit", (topi == y[:, None]).any(1))


def p_proto_gradcheck(lib, dt, rec):
    """gradcheck and gradgradcheck of the prototypical loss (float64 only), a Hessian-vector
    product through it, and the Jacobian of the distances."""
    F = lib.nn.functional
    g = _gen(lib, 31)
    es = lib.randn(3, 2, 4, generator=g, dtype=lib.float64).requires_grad_()
    eq = lib.randn(4, 4, generator=g, dtype=lib.float64).requires_grad_()
    yq = lib.tensor([0, 1, 2, 1])

    def loss(es, eq):
        # (torch's cdist has no second derivative: distances by broadcasting)
        return F.cross_entropy(-(eq[:, None] - es.mean(1)[None]).pow(2).sum(-1), yq)

    def cos_att(es, eq):
        att = (F.normalize(eq, dim=-1) @ F.normalize(es.flatten(0, 1), dim=-1).t()).softmax(1)
        return att @ F.one_hot(lib.arange(3).repeat_interleave(2), 3).double()

    rec("gc", lib.autograd.gradcheck(loss, (es, eq)))
    rec("ggc", lib.autograd.gradgradcheck(loss, (es, eq)))
    rec("gc_cos", lib.autograd.gradcheck(cos_att, (es, eq)))
    rec("ggc_cos", lib.autograd.gradgradcheck(cos_att, (es, eq)))
    v = (lib.randn(3, 2, 4, generator=g, dtype=lib.float64),
         lib.randn(4, 4, generator=g, dtype=lib.float64))  # fmt: skip
    _, hvp = lib.autograd.functional.hvp(loss, (es.detach().to(dt), eq.detach().to(dt)),
                                         tuple(t.to(dt) for t in v))  # fmt: skip
    rec("hvp0", hvp[0])
    rec("hvp1", hvp[1])
    jac = lib.autograd.functional.jacobian(lambda q: lib.cdist(q, es.detach().mean(1).to(dt)),
                                           eq.detach().to(dt))  # fmt: skip
    rec("jac", jac)


def p_reptile(lib, dt, rec):
    """Reptile: SGD inner loop on a deep copy, the meta-update by interpolating the weights
    (torch.no_grad, lerp_ / add_), parameters_to_vector to measure the move."""
    import copy

    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(32)
    net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1)).to(dt)
    g = _gen(lib, 32)
    for it in range(3):
        xs, ys, _, _ = _sine_batch(lib, dt, g, 1, 8)
        learner = copy.deepcopy(net)
        inner = lib.optim.SGD(learner.parameters(), lr=0.02)
        for _ in range(4):
            inner.zero_grad()
            F.mse_loss(learner(xs[0]), ys[0]).backward()
            inner.step()
        before = nn.utils.parameters_to_vector(net.parameters())
        with lib.no_grad():
            for p, q in zip(net.parameters(), learner.parameters(), strict=True):
                if it % 2:
                    p.lerp_(q, 0.5)
                else:
                    p.add_(q - p, alpha=0.5)
        after = nn.utils.parameters_to_vector(net.parameters())
        rec(f"move{it}", (after - before).norm())
        rec(f"learner{it}", learner[0].weight)
    rec.params("net", net)
    vec = nn.utils.parameters_to_vector(net.parameters())
    nn.utils.vector_to_parameters(vec * 2, net.parameters())
    rec("doubled", net[2].bias)


# --- argument-error sweeps: each records every call's error text ---


def c_cdist_errors(lib, rec):
    g = _gen(lib, 40)
    env = dict(
        lib=lib,
        x=lib.randn(4, 5, generator=g), y=lib.randn(3, 5, generator=g),
        x3=lib.randn(2, 4, 5, generator=g), y3=lib.randn(3, 3, 5, generator=g),
        xi=lib.arange(20).view(4, 5), xd=lib.randn(3, 5, generator=g, dtype=lib.float64),
    )  # fmt: skip
    cases = [
        "lib.cdist(x[0], y)", "lib.cdist(x, y[0])", "lib.cdist(x, y[:, :4])", "lib.cdist(x, xd)",
        "lib.cdist(xi, xi)", "lib.cdist(x, y, p=-2.0)", "lib.cdist(x, y, compute_mode='mm')",
        "lib.cdist(x3, y3)", "lib.cdist(x, y, p=None)", "lib.cdist(x, y, 2.0, 'x')",
        "lib.cdist(x.half(), y.half())", "lib.cdist(x, [[1.0] * 5])", "lib.cdist(x.bool(), y)",
        "lib.cdist(x, xi[:3].float().double())", "lib.cdist(x3, y)", "lib.cdist(x, y, p=2)",
        "lib.cdist(x, y, p=float('nan'))",
        "lib.cdist(x, y, bad=1)", "lib.cdist(lib.randn(0, 5), y).shape",
        "lib.cdist(lib.randn(4, 0), lib.randn(3, 0))", "lib.cdist(x, y.double(), p=1.0)",
    ]  # fmt: skip
    run_calls(cases, env, rec)


def c_normalize_errors(lib, rec):
    g = _gen(lib, 41)
    env = dict(
        F=lib.nn.functional, lib=lib, x=lib.randn(4, 5, generator=g), xi=lib.arange(20).view(4, 5)
    )
    cases = [
        "F.normalize(xi)", "F.normalize(x, dim=2)", "F.normalize(x, dim=-3)", "F.normalize(x, p=0)",
        "F.normalize(x, p='fro')", "F.normalize(x, p='nuc')", "F.normalize([1.0, 2.0])",
        "F.normalize(x, dim=(0, 1))", "F.normalize(x, dim=None)", "F.normalize(x.bool())",
        "F.normalize(x, out=lib.empty(3))", "F.normalize(x, out=lib.empty(4, 5).long())",
        "F.normalize(x, dim=1.0)", "F.normalize(x, eps='a')", "F.normalize(x, p=None)",
        "F.normalize(x.half())", "F.normalize(x, 2, 1, 1e-12, None, 5)",
        "F.cosine_similarity(x, x[:3])", "F.cosine_similarity(x, xi)",
        "F.cosine_similarity(x, x, dim=3)",
        "F.cosine_similarity(x, x, eps=-1.0)", "F.cosine_similarity(x[0, 0], x[0, 1])",
        "F.pairwise_distance(x, x[:3])", "F.pairwise_distance(xi, xi)",
    ]  # fmt: skip
    run_calls(cases, env, rec)


def c_one_hot_errors(lib, rec):
    env = dict(F=lib.nn.functional, lib=lib, y=lib.tensor([0, 2, 1, 2]))
    cases = [
        "F.one_hot(y, 2)", "F.one_hot(y - 1)", "F.one_hot(y.float())", "F.one_hot(y.int(), 3)",
        "F.one_hot(y, -3)", "F.one_hot(y, 0)", "F.one_hot(lib.tensor([], dtype=lib.long))",
        "F.one_hot(y, 3.0)", "F.one_hot(y, '3')", "F.one_hot([0, 1], 3)", "F.one_hot(y, None)",
        "F.one_hot(y, num_classes=lib.tensor(3))", "F.one_hot(y, classes=3)",
        "F.one_hot(lib.zeros(0, dtype=lib.long), -1)", "F.one_hot(y.view(2, 2), 2)",
        "F.one_hot(y, 3, 4)", "F.one_hot(y.to(lib.uint8), 3)", "F.one_hot(y + 100, 3)",
    ]  # fmt: skip
    run_calls(cases, env, rec)


def c_index_errors(lib, rec):
    g = _gen(lib, 42)
    env = dict(lib=lib, x=lib.randn(4, 5, generator=g), y=lib.tensor([0, 2, 1, 2]))
    cases = [
        "x.index_select(0, y.float())", "x.index_select(0, y + 4)", "x.index_select(1, y - 6)",
        "x.index_select(0, y.view(2, 2))", "x.index_select(2, y)", "x.index_select(0, [0, 1])",
        "x.gather(1, y)", "x.gather(1, y.view(4, 1) + 5)", "x.gather(1, y.view(4, 1).int())",
        "x.gather(1, y.view(4, 1).float())", "x.gather(1, lib.zeros(5, 1, dtype=lib.long))",
        "x.gather(0, y.view(1, 4) - 5)",
        "lib.zeros(4, 3).scatter_(1, y.view(4, 1), 1.0, reduce='max')",
        "lib.zeros(4, 3).scatter_(1, y.view(4, 1) + 3, 1.0)",
        "lib.zeros(4, 3).scatter_(1, y.view(4, 1), lib.ones(4, 1).double())",
        "lib.zeros(4, 3).scatter_(1, y.view(4, 1).float(), 1.0)",
        "lib.zeros(4, 3).scatter(1, y, 1.0)", "lib.zeros(2, 3).scatter(1, y.view(4, 1), 1.0)",
        "lib.zeros(4, 3).scatter_add_(1, y.view(4, 1), lib.ones(4))",
        "lib.zeros(4, 3).index_add_(0, y, lib.ones(4, 2))",
        "lib.zeros(4, 3).index_add_(0, y.float(), lib.ones(4, 3))",
        "lib.zeros(4, 3).index_add_(0, y + 5, lib.ones(4, 3))",
        "lib.unique(y, dim=2)", "lib.unique(y, return_inverse=1)",
        "lib.randperm(3, generator=1)", "lib.randperm(-2)", "lib.randperm(2.0)",
        "lib.bincount(y.float())", "lib.bincount(y - 1)", "lib.bincount(y.view(2, 2))",
        "lib.take_along_dim(x, y.view(4, 1).float(), dim=1)",
    ]  # fmt: skip
    run_calls(cases, env, rec)


def _clone_module(lib, module, memo=None):
    """learn2learn's clone_module: a shallow copy of the module tree whose parameters are
    clone()s (differentiable back to the originals); RNNs re-run _apply."""
    memo = {} if memo is None else memo
    if not isinstance(module, lib.nn.Module):
        return module
    clone = module.__new__(type(module))
    clone.__dict__ = module.__dict__.copy()
    clone._parameters = clone._parameters.copy()
    clone._buffers = clone._buffers.copy()
    clone._modules = clone._modules.copy()
    for key, param in module._parameters.items():
        if param is not None:
            if param.data_ptr in memo:
                clone._parameters[key] = memo[param.data_ptr]
            else:
                clone._parameters[key] = memo[param.data_ptr] = param.clone()
    for key in clone._modules:
        clone._modules[key] = _clone_module(lib, module._modules[key], memo)
    if hasattr(clone, "flatten_parameters"):
        clone = clone._apply(lambda x: x)
    return clone


def _update_module(lib, module, updates=None, memo=None):
    """learn2learn's update_module: p + update written into _parameters (non-leaf tensors)."""
    memo = {} if memo is None else memo
    if updates is not None:
        for p, u in zip(list(module.parameters()), updates, strict=True):
            p.update = u
    for key, p in module._parameters.items():
        if p in memo:
            module._parameters[key] = memo[p]
        elif p is not None and getattr(p, "update", None) is not None:
            memo[p] = module._parameters[key] = p + p.update
            p.update = None
    for key in module._modules:
        module._modules[key] = _update_module(lib, module._modules[key], None, memo)
    if hasattr(module, "flatten_parameters"):
        module._apply(lambda x: x)
    return module


def p_l2l_clone(lib, dt, rec):
    """learn2learn-style MAML: clone_module / update_module write non-leaf tensors into
    _parameters (an MLP with BatchNorm, an LSTM whose _apply re-runs); zero_grad and _apply
    read the clones' .grad (torch warns for a non-leaf tensor); the meta-gradient reaches the
    original parameters; an optimizer or deepcopy of the clone is refused."""
    import copy

    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(33)
    mlp = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2)).to(dt)
    rnn = nn.LSTM(3, 4, batch_first=True).to(dt)
    g = _gen(lib, 33)
    x = lib.randn(5, 3, generator=g, dtype=dt)
    y = lib.tensor([0, 1, 1, 0, 1])
    sign = lib.tensor([1.0, -1.0], dtype=dt)

    def forward(model, learner):
        if model is rnn:
            return learner(x.view(1, 5, 3))[0].sum(-1).view(5, 1) * sign
        return learner(x)

    for tag, model in (("mlp", mlp), ("rnn", rnn)):
        learner = _clone_module(lib, model)
        for step in range(2):
            loss = F.cross_entropy(forward(model, learner), y)
            grads = lib.autograd.grad(loss, list(learner.parameters()), create_graph=True)
            _update_module(lib, learner, [-0.1 * gr for gr in grads])
            rec(f"{tag}.loss{step}", loss)
        learner.zero_grad()
        q = F.cross_entropy(forward(model, learner), y)
        q.backward()
        rec(f"{tag}.q", q)
        rec.params(tag, model, grads=True)
        rec(f"{tag}.leaf", str([p.is_leaf for p in learner.parameters()]))
        rec(f"{tag}.types", str([type(p).__name__ for p in learner.parameters()]))
        rec(f"{tag}.bufs", str([a is b for a, b in zip(learner.buffers(), model.buffers(),
                                                       strict=True)]))  # fmt: skip
    rec("sd", str(list(learner.state_dict().keys())))
    rec.err("opt", lambda: lib.optim.SGD(learner.parameters(), lr=0.1))
    rec.err("deepcopy", lambda: copy.deepcopy(learner))
    rec("mlp_mean", mlp[1].running_mean)


def p_scatter_reduce_arg(lib, dt, rec):
    """scatter's reduce= (the one-hot/count idiom) and scatter_reduce, with its gradient."""
    g = _gen(lib, 34)
    y = lib.tensor([0, 2, 1, 2, 2])
    src = lib.randn(5, 1, generator=g, dtype=dt).requires_grad_()
    base = lib.ones(5, 3, dtype=dt).requires_grad_()
    out = lib.zeros(5, 3, dtype=dt).scatter(1, y[:, None], src, reduce="add")
    rec("add", out)
    rec("req", out.requires_grad)
    rec("mul", base.scatter(1, y[:, None], 2.0, reduce="multiply"))
    t = base.clone()
    t.scatter_(1, y[:, None], src, reduce="multiply")
    rec("inplace", t)
    rec("version", t._version)
    with lib.no_grad():
        rec("nograd", base.scatter(1, y[:, None], src, reduce="add").requires_grad)
    r = lib.zeros(3, dtype=dt).scatter_reduce(0, y, src.squeeze(1), "sum")
    rec("sr", r)
    rec("sr.g", lib.autograd.grad((r * lib.arange(3, dtype=dt)).sum(), src)[0])
    m = lib.full((3,), 5.0, dtype=dt).scatter_reduce(0, y, src.squeeze(1), "amax",
                                                      include_self=False)  # fmt: skip
    rec("amax", m)
    rec("amax.g", lib.autograd.grad(m.sum(), src)[0])
    cnt = lib.zeros(3, dtype=dt).scatter_(0, y, 1.0, reduce="add")
    rec("counts", cnt)


def p_meta_errors(lib, dt, rec):
    """The errors MAML code meets: autograd.grad of unused, non-scalar, non-grad tensors,
    materialize_grads, grad_outputs shapes; functional_call's strict and duplicate keys;
    torch.func.grad's argument checks."""
    nn = lib.nn
    lib.manual_seed(35)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(dt)
    x = lib.randn(5, 3, generator=_gen(lib, 35), dtype=dt)
    a = lib.randn(3, generator=_gen(lib, 36), dtype=dt).requires_grad_()
    b = lib.randn(3, generator=_gen(lib, 37), dtype=dt).requires_grad_()
    grad = lib.autograd.grad
    rec.err("unused", lambda: grad((a * 2).sum(), [a, b]))
    rec("unused_ok", str(grad((a * 2).sum(), [a, b], allow_unused=True)[1]))
    rec("materialize", grad((a * 2).sum(), [a, b], materialize_grads=True)[1])
    rec.err("nonscalar", lambda: grad(a * 2, a))
    rec.err("noreq", lambda: grad((a * 2).sum(), a.detach()))
    rec.err("noreq_out", lambda: grad(a.detach().sum(), a))
    rec.err("mat_allow", lambda: grad((a * 2).sum(), [a, b], materialize_grads=True,
                                      allow_unused=False))  # fmt: skip
    rec.err("go_shape", lambda: grad(a * 2, a, grad_outputs=lib.ones(2, dtype=dt)))
    rec.err("int_req", lambda: lib.arange(3).requires_grad_())
    fc = lib.func.functional_call
    p = dict(net.named_parameters())
    rec.err("fc_strict", lambda: fc(net, {"0.weight": p["0.weight"]}, (x,), strict=True))
    rec.err("fc_unexp", lambda: fc(net, {**p, "zz": p["0.weight"]}, (x,), strict=True))
    rec.err("fc_dup", lambda: fc(net, (p, {"0.weight": p["0.weight"]}), (x,)))
    rec.err("fc_shape", lambda: fc(net, {"0.weight": lib.randn(4, 2, dtype=dt)}, (x,)))
    rec("fc_tensor_arg", fc(net, p, x))
    rec("fc_kwargs", fc(net, p, (), {"input": x}))
    fg = lib.func.grad
    rec.err("fg_nonscalar", lambda: fg(lambda t: t * 2)(a))
    rec.err("fg_int", lambda: fg(lambda t: t.sum())(lib.arange(3)))
    rec.err("fg_aux", lambda: fg(lambda t: t.sum(), has_aux=True)(a))
    rec.err("fg_argnums", lambda: fg(lambda t: t.sum(), argnums=1)(a))
    rec.err("opt_nonleaf", lambda: lib.optim.Adam([a * 2]))


def _conv4_vars(lib, dt, seed, c_in=1, hid=4, way=3):
    """dragen1860-style MAML learner: a flat list of weights (kaiming conv kernels, BN affine
    pairs, a linear head) run by hand with F.conv2d / F.batch_norm / F.max_pool2d. The convs
    have no bias: before a batch norm its gradient is rounding noise, which Adam would turn
    into a full step in either library."""
    lib.manual_seed(seed)
    vs = []
    for c in (c_in, hid):
        w = lib.empty(hid, c, 3, 3, dtype=dt)
        lib.nn.init.kaiming_normal_(w)
        vs += [w, lib.ones(hid, dtype=dt), lib.zeros(hid, dtype=dt)]
    w = lib.empty(way, hid * 2 * 2, dtype=dt)
    lib.nn.init.xavier_uniform_(w)
    vs += [w, lib.zeros(way, dtype=dt)]
    return [lib.nn.Parameter(v) for v in vs]


def _conv4_forward(lib, x, vs, bn_stats=None):
    F = lib.nn.functional
    for i in range(2):
        w, gamma, beta = vs[3 * i : 3 * i + 3]
        x = F.conv2d(x, w, padding=1)
        rm, rv = (None, None) if bn_stats is None else bn_stats[i]
        x = F.batch_norm(x, rm, rv, weight=gamma, bias=beta, training=True)
        x = F.max_pool2d(F.relu(x), 2)
    return F.linear(x.flatten(1), vs[6], vs[7])


def p_maml_conv4(lib, dt, rec):
    """Second-order MAML of a hand-run conv learner (omniglot-style): conv2d, batch_norm with
    batch statistics (running ones updated in buffers), max_pool2d, cross_entropy; the
    meta-gradient through two inner steps; accuracy before and after adaptation."""
    F = lib.nn.functional
    vs = _conv4_vars(lib, dt, 37)
    opt = lib.optim.Adam(vs, lr=1e-3)
    stats = [(lib.zeros(4, dtype=dt), lib.ones(4, dtype=dt)) for _ in range(2)]
    g = _gen(lib, 37)
    for it in range(2):
        xs = lib.randn(6, 1, 8, 8, generator=g, dtype=dt)
        ys = lib.tensor([0, 0, 1, 1, 2, 2])
        xq = xs + 0.3 * lib.randn(6, 1, 8, 8, generator=g, dtype=dt)
        fast = list(vs)
        accs = []
        for _ in range(2):
            logits = _conv4_forward(lib, xs, fast, stats)
            loss = F.cross_entropy(logits, ys)
            grads = lib.autograd.grad(loss, fast, create_graph=True)
            fast = [w - 0.4 * gr for w, gr in zip(fast, grads, strict=True)]
            with lib.no_grad():
                accs.append(_conv4_forward(lib, xq, fast).argmax(1).eq(ys).sum().item() / 6)
        q = F.cross_entropy(_conv4_forward(lib, xq, fast), ys)
        opt.zero_grad()
        q.backward()
        rec(f"loss{it}", loss)
        rec(f"q{it}", q)
        rec(f"accs{it}", accs)
        rec(f"g{it}.conv", vs[0].grad)
        rec(f"g{it}.bn", vs[1].grad)
        rec(f"g{it}.fc", vs[6].grad)
        opt.step()
    rec("stats", lib.stack([s for pair in stats for s in pair]))
    rec("v3", vs[3])


def p_relation_pairs(lib, dt, rec):
    """Relation-network pair construction variants: meshgrid indices, cartesian_prod,
    expand + cat vs repeat + cat, and the relation scores' gradient to the embeddings."""
    nn, F = lib.nn, lib.nn.functional
    g = _gen(lib, 38)
    way, nq, d = 3, 4, 5
    protos = lib.randn(way, d, generator=g, dtype=dt).requires_grad_()
    q = lib.randn(nq, d, generator=g, dtype=dt).requires_grad_()
    iq, ip = lib.meshgrid(lib.arange(nq), lib.arange(way), indexing="ij")
    pairs1 = lib.cat([q[iq.reshape(-1)], protos[ip.reshape(-1)]], dim=1)
    cp = lib.cartesian_prod(lib.arange(nq), lib.arange(way))
    pairs2 = lib.cat([q.index_select(0, cp[:, 0]), protos.index_select(0, cp[:, 1])], 1)
    pairs3 = lib.cat([q.unsqueeze(1).expand(nq, way, d),
                      protos.unsqueeze(0).repeat(nq, 1, 1)], -1).view(-1, 2 * d)  # fmt: skip
    rec("same12", lib.equal(pairs1, pairs2))
    rec("same13", lib.equal(pairs1, pairs3))
    lib.manual_seed(38)
    rel = nn.Sequential(nn.Linear(2 * d, 6), nn.ReLU(), nn.Linear(6, 1), nn.Sigmoid()).to(dt)
    scores = rel(pairs3).view(nq, way)
    y = lib.tensor([0, 2, 1, 1])
    loss = F.mse_loss(scores, F.one_hot(y, way).to(dt))
    gp, gq = lib.autograd.grad(loss, (protos, q))
    rec("scores", scores)
    rec("gp", gp)
    rec("gq", gq)
    bce = F.binary_cross_entropy(scores, F.one_hot(y, way).to(dt))
    rec("bce", bce)
    pos = lib.full((way,), 2.0, dtype=dt)
    target = F.one_hot(y, way).to(dt)
    rec("bce_logits", F.binary_cross_entropy_with_logits(scores.logit(), target, pos_weight=pos))
    rec("cp_shape", cp.shape)


def p_eval_episodes(lib, dt, rec):
    """Few-shot evaluation: prototypes under inference_mode (and torch's refusals when they
    meet autograd later), under no_grad, an EMA prototype memory, accuracies over episodes with
    a 95% interval, Categorical over negative distances."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(39)
    net = nn.Linear(3, 4).to(dt)
    g = _gen(lib, 39)
    x = lib.randn(6, 3, generator=g, dtype=dt)
    y = lib.tensor([0, 0, 1, 1, 2, 2])
    with lib.inference_mode():
        protos = net(x).view(3, 2, 4).mean(1)
        feats = net(x)
    rec("inf", protos.is_inference())
    head = nn.Linear(4, 3).to(dt)
    rec.err("inf_save", lambda: F.cross_entropy(head(feats), y).backward())
    rec.err("inf_cdist", lambda: lib.cdist(net(x), protos).sum().backward())
    rec.err("inf_inplace", lambda: protos.add_(1))
    rec.err("inf_view_inplace", lambda: protos.view(-1).add_(1))
    rec.err("inf_req", lambda: protos.requires_grad_())
    rec.err("inf_clone", lambda: (protos.clone().requires_grad_() * 2).sum().backward())
    with lib.no_grad():
        p2 = net(x).view(3, 2, 4).mean(1)
    rec("ng_leaf", p2.is_leaf)
    lib.cdist(net(x), p2).sum().backward()
    rec("ng_grad", net.weight.grad)
    mem = lib.zeros(3, 4, dtype=dt)
    with lib.no_grad():
        for _ in range(3):
            mem.mul_(0.9).add_(net(x).view(3, 2, 4).mean(1), alpha=0.1)
    rec("mem", mem)
    accs = []
    for _ in range(5):
        q = lib.randn(6, 4, generator=g, dtype=dt)
        pred = lib.cdist(q, mem).argmin(1)
        accs.append((pred == y).float().mean().item())
    a = lib.tensor(accs, dtype=dt)
    rec("accs", a)
    rec("ci", 1.96 * a.std() / a.numel() ** 0.5)
    rec("std_mean", lib.std_mean(a, correction=0))
    cat = lib.distributions.Categorical(logits=-lib.cdist(q, mem) ** 2)
    rec("lp", cat.log_prob(y))
    rec("ent", cat.entropy())
    rec.err("cat_bad", lambda: cat.log_prob(lib.tensor([3, 0, 1, 1, 2, 2])))


def p_inner_hooks(lib, dt, rec):
    """Inner-loop gradient clipping by tensor hooks under create_graph, retain_grad on the fast
    weights, backward(inputs=...) for the head only, clip_grad_norm_'s non-finite refusal."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(40)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dt)
    g = _gen(lib, 40)
    x = lib.randn(6, 3, generator=g, dtype=dt)
    y = lib.tensor([0, 1, 0, 1, 1, 0])
    params = list(net.parameters())
    calls = []
    hooks = [p.register_hook(lambda gr, i=i: calls.append(i) or gr.clamp(-0.05, 0.05))
             for i, p in enumerate(params)]  # fmt: skip
    loss = F.cross_entropy(net(x), y)
    grads = lib.autograd.grad(loss, params, create_graph=True)
    rec("clamped", grads[0])
    rec("calls", str(calls))
    for h in hooks:
        h.remove()
    fast = [p - 0.5 * gr for p, gr in zip(params, grads, strict=True)]
    for f in fast:
        f.retain_grad()
    out = F.linear(lib.tanh(F.linear(x, fast[0], fast[1])), fast[2], fast[3])
    q = F.cross_entropy(out, y)
    q.backward(inputs=params[2:], retain_graph=True)
    rec("inputs_g", params[2].grad)
    rec("inputs_none", str(params[0].grad))
    rec("fast_grad", fast[0].grad)
    q.backward()
    rec("fast_grad2", fast[0].grad)
    rec("p0", params[0].grad)
    rec.err("inputs_empty", lambda: q.backward(inputs=[]))
    params[0].grad = lib.full_like(params[0], float("nan"))
    clip = nn.utils.clip_grad_norm_
    rec.err("clip_nonfinite", lambda: clip(params, 1.0, error_if_nonfinite=True))
    rec("clip_inf", nn.utils.clip_grad_norm_(params[1:], 1.0, norm_type="inf"))
    nn.utils.clip_grad_value_(params[1:], 0.01)
    rec("clip_value", params[2].grad)


def p_low_precision(lib, dt, rec):
    """The episode's ops in bfloat16 and float16 (cdist refuses them on the CPU; the rest
    computes): normalize, cosine similarity, pairwise distances, bmm, log_softmax over
    broadcast distances, cross_entropy, one-hot prototypes. (dt only seeds the draw.)"""
    F = lib.nn.functional
    g = _gen(lib, 41)
    x = lib.randn(5, 4, generator=g, dtype=dt).float()
    y = lib.randn(3, 4, generator=g, dtype=dt).float()
    for low in (lib.bfloat16, lib.float16):
        xd, yd = x.to(low), y.to(low)
        tag = str(low).split(".")[-1]
        rec.err(tag + ".cdist", lambda xd=xd, yd=yd: lib.cdist(xd, yd))
        rec.err(tag + ".cdist1", lambda xd=xd, yd=yd: lib.cdist(xd, yd, p=1.0))
        rec(tag + ".cdist_mm", lib.cdist(xd, yd, compute_mode="use_mm_for_euclid_dist"))
        rec(tag + ".norm", F.normalize(xd, dim=1))
        rec(tag + ".cos", F.cosine_similarity(xd[:, None], yd[None], dim=-1))
        rec(tag + ".pd", F.pairwise_distance(xd[:3], yd))
        rec(tag + ".bmm", lib.bmm(xd[None], yd.t()[None]))
        rec(tag + ".ls", F.log_softmax(-(xd[:, None] - yd[None]).pow(2).sum(-1), 1))
        rec(tag + ".ce", F.cross_entropy(xd[:, :3], lib.tensor([0, 1, 2, 1, 0])))
        rec(tag + ".oh", F.one_hot(lib.tensor([0, 2, 1])).to(low) @ yd)


def p_samplers(lib, dt, rec):
    """The torch.utils.data pieces episodic loaders are built from: random_split by fractions,
    SubsetRandomSampler, WeightedRandomSampler (with and without replacement), BatchSampler
    over a RandomSampler, Subset, ConcatDataset, an IterableDataset of tasks, a collate_fn."""
    D = lib.utils.data
    g = _gen(lib, 42)
    data = lib.randn(30, 2, generator=g, dtype=dt)
    labels = lib.arange(6).repeat_interleave(5)
    ds = D.TensorDataset(data, labels)
    tr, va = D.random_split(ds, [0.8, 0.2], generator=_gen(lib, 1))
    rec("split", lib.tensor(tr.indices))
    rec("split_va", lib.tensor(va.indices))
    rec("srs", lib.tensor(list(D.SubsetRandomSampler(range(0, 30, 3), generator=_gen(lib, 2)))))
    w = [1.0] * 15 + [3.0] * 15
    rec("wrs", lib.tensor(list(D.WeightedRandomSampler(w, 10, generator=_gen(lib, 3)))))
    rec("wrs2", lib.tensor(list(D.WeightedRandomSampler(w, 10, replacement=False,
                                                        generator=_gen(lib, 3)))))  # fmt: skip
    bs = D.BatchSampler(D.RandomSampler(ds, generator=_gen(lib, 4)), 7, drop_last=False)
    rec("bs", str(list(bs)))
    rs = D.RandomSampler(ds, replacement=True, num_samples=12, generator=_gen(lib, 5))
    rec("rs", lib.tensor(list(rs)))
    sub = D.Subset(ds, [3, 1, 4])
    rec("sub", lib.stack([sub[i][0] for i in range(3)]))
    rec("sub_loader", str([b[1].tolist() for b in D.DataLoader(sub, batch_size=2)]))

    def collate(batch):
        xs, ys = zip(*batch, strict=True)
        return lib.stack(xs), lib.tensor(ys)

    loader = D.DataLoader(ds, batch_size=6, shuffle=True, collate_fn=collate,
                          generator=_gen(lib, 6))  # fmt: skip
    rec("collate", str([b[1].tolist() for b in loader]))
    rec.err("split_bad", lambda: D.random_split(ds, [10, 10]))
    rec.err("wrs_bad", lambda: list(D.WeightedRandomSampler([1.0, 2.0], 5, replacement=False)))
    rec.err("bs_bad", lambda: D.BatchSampler(range(5), 0, False))
    cd = D.ConcatDataset([sub, sub])
    rec("concat", len(cd))
    rec("concat_item", cd[4][0])

    class Tasks(D.IterableDataset):
        def __iter__(self):
            gg = _gen(lib, 7)
            for _ in range(3):
                yield lib.randperm(6, generator=gg)[:3]

    rec("iter", str([b.tolist() for b in D.DataLoader(Tasks(), batch_size=2)]))


def p_tied_heads(lib, dt, rec):
    """functional_call over tied weights (tie_weights on and off), a flat meta-parameter
    vector viewed into the parameters, a hypernetwork generating them, a vmap'd ensemble of
    task heads from stack_module_state, buffers updated in the passed dict."""
    nn = lib.nn
    fc = lib.func.functional_call
    lib.manual_seed(43)
    g = _gen(lib, 43)
    x = lib.randn(5, 3, generator=g, dtype=dt)
    tied = nn.Sequential(nn.Linear(3, 3, bias=False), nn.Linear(3, 3, bias=False)).to(dt)
    tied[1].weight = tied[0].weight
    w = lib.randn(3, 3, generator=g, dtype=dt)
    rec("tied", fc(tied, {"0.weight": w}, (x,)))
    rec("untied", fc(tied, {"0.weight": w}, (x,), tie_weights=False))
    rec.err("tied_both", lambda: fc(tied, {"0.weight": w, "1.weight": w * 2}, (x,)))
    rec("names", str([n for n, _ in tied.named_parameters()]))
    rec("names_all", str([n for n, _ in tied.named_parameters(remove_duplicate=False)]))
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(dt)
    shapes = [(n, p.shape) for n, p in net.named_parameters()]
    flat = lib.randn(sum(s.numel() for _, s in shapes), generator=g, dtype=dt).requires_grad_()

    def unflatten(vec):
        ps, i = {}, 0
        for n, s in shapes:
            ps[n] = vec[i : i + s.numel()].view(s)
            i += s.numel()
        return ps

    out = fc(net, unflatten(flat), (x,))
    rec("flat_g", lib.autograd.grad(out.pow(2).sum(), flat)[0])
    hyper = nn.Linear(2, flat.numel()).to(dt)
    out = fc(net, unflatten(hyper(lib.randn(2, generator=g, dtype=dt))), x)
    out.sum().backward()
    rec("hyper_g", hyper.weight.grad)
    rec("net_grad", str(net[0].weight.grad))
    heads = [nn.Linear(4, 2).to(dt) for _ in range(3)]
    params, bufs = lib.func.stack_module_state(heads)
    rec("stacked", params["weight"])
    z = lib.randn(5, 4, generator=g, dtype=dt)
    ens = lib.func.vmap(lambda p, b, t: fc(heads[0], (p, b), (t,)), in_dims=(0, 0, None))(
        params, bufs, z
    )
    rec("ens", ens)
    bn = nn.BatchNorm1d(3).to(dt)
    buf = {"running_mean": lib.zeros(3, dtype=dt), "running_var": lib.ones(3, dtype=dt),
           "num_batches_tracked": lib.tensor(0)}  # fmt: skip
    fc(bn, buf, (x,))
    rec("buf_mean", buf["running_mean"])
    rec("bn_mean", bn.running_mean)
    rec("buf_nbt", buf["num_batches_tracked"])


def c_index_dtypes(lib, rec):
    """Index dtypes other than int64 in the episode's indexing ops."""
    g = _gen(lib, 44)
    env = dict(lib=lib, F=lib.nn.functional, x=lib.randn(5, 4, generator=g))
    cases = []
    for it in ("int8", "int16", "int32", "uint8"):
        cases += [
            f"F.one_hot(lib.tensor([0, 2, 1], dtype=lib.{it}))",
            f"lib.unique(lib.tensor([3, 1, 3], dtype=lib.{it}), return_inverse=True)[1]",
            f"x.index_select(0, lib.tensor([0, 2], dtype=lib.{it})).shape",
            f"x.gather(1, lib.tensor([[0], [2]], dtype=lib.{it})).shape",
            f"lib.zeros(2, 3).scatter_(1, lib.tensor([[0], [2]], dtype=lib.{it}), 1.0).sum()",
            f"lib.bincount(lib.tensor([0, 2, 2], dtype=lib.{it}))",
            f"lib.zeros(3, 4).index_add_(0, lib.tensor([0, 2], dtype=lib.{it}), x[:2]).shape",
        ]
    cases += [
        "lib.unique(lib.tensor(3), return_inverse=True, return_counts=True)",
        "lib.unique(lib.tensor([True, False, True]), return_inverse=True, return_counts=True)",
        "lib.bincount(lib.tensor([0, 2]), weights=lib.ones(2, dtype=lib.float16)).dtype",
        "lib.bincount(lib.tensor([0, 2]), minlength=-1)",
        "lib.bincount(lib.tensor([0, 2]), weights=lib.ones(2)).dtype",
        "lib.bincount(lib.tensor([0, 2]), weights=lib.ones(2, dtype=lib.int32)).dtype",
    ]
    run_calls(cases, env, rec)


def p_inplace_errors(lib, dt, rec):
    """In-place updates that break a meta-gradient: fast weights updated with sub_ (views of
    clones), a changed activation, a prototype matrix changed after cdist, bmm's operand,
    softmax and log_softmax outputs; torch's version-counter messages."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(45)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dt)
    g = _gen(lib, 45)
    x = lib.randn(6, 3, generator=g, dtype=dt)
    y = lib.tensor([0, 1, 0, 1, 1, 0])
    params = [p.clone() for p in net.parameters()]

    def fwd(ps, inp):
        return F.linear(lib.tanh(F.linear(inp, ps[0], ps[1])), ps[2], ps[3])

    grads = lib.autograd.grad(F.cross_entropy(fwd(params, x), y), params, create_graph=True)

    def inplace_update():
        for p, gr in zip(params, grads, strict=True):
            p.sub_(0.1 * gr)
        F.cross_entropy(fwd(params, x), y).backward()

    rec.err("fast", inplace_update)
    xs = x.clone().requires_grad_()
    out = lib.tanh(xs * 2)
    z = (out * 3).sum()
    out.add_(1)
    rec.err("activation", lambda: z.backward())
    e = lib.randn(4, 3, generator=g, dtype=dt).requires_grad_()
    protos = lib.randn(2, 3, generator=g, dtype=dt)
    d = lib.cdist(e, protos)
    protos.add_(1)
    rec.err("cdist_protos", lambda: d.sum().backward())
    a = lib.randn(2, 3, 4, generator=g, dtype=dt).requires_grad_()
    b = lib.randn(2, 4, 5, generator=g, dtype=dt)
    o = lib.bmm(a, b)
    b.zero_()
    rec.err("bmm", lambda: o.sum().backward())
    w = lib.randn(4, 3, generator=g, dtype=dt).requires_grad_()
    s = w.softmax(1)
    s2 = s.log()
    s.add_(0.0)
    rec.err("softmax", lambda: s2.sum().backward())
    ls = F.log_softmax(w, 1)
    ls.mul_(1.0)
    rec.err("log_softmax", lambda: F.nll_loss(ls, lib.tensor([0, 1, 2, 0])).backward())
    n = F.normalize(w * 1, dim=1)
    n.mul_(2)
    n.sum().backward()
    rec("normalize_ok", w.grad)
