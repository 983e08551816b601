"""Session 37 (helper vq): vector-quantised models (VQ-VAE and its descendants) written the way
users write them in torch, run under torch and minitorch with the same seeds and compared record
by record: codebook lookups by torch.cdist (every p, both compute modes, batched, at distance
exactly 0 after a dead-code reset) and by the expanded ||x||^2 - 2 x e^T + ||e||^2 (matmul,
addmm, baddbmm, einsum) with argmin; codes gathered by F.embedding (max_norm, padding_idx,
scale_grad_by_freq, from_pretrained), index_select, gather and one-hot matmuls; the
straight-through estimator z + (q - z).detach() with commitment and codebook losses, seen by
hooks, and as the common port's custom autograd Functions (mark_non_differentiable, index_add_
in backward, gradcheck's failure message); EMA codebook updates (one_hot counts, bincount,
index_add_/scatter_add_/index_put_/scatter_reduce of the encodings, Laplace smoothing, in-place
lerp_/mul_/add_/copy_ under no_grad, on .data and under inference_mode); the notebook's
VectorQuantizerEMA module and a buffer-based EuclideanCodebook with state_dict round trips;
perplexity and codebook usage; dead-code resets with torch.where, randint, randperm and masked
writes; k-means initialisation; residual VQ; product quantisation with view/permute; soft,
Gumbel and RelaxedOneHotCategorical relaxations; cosine-similarity codebooks; finite scalar,
lookup-free and bucketize scalar quantisers; top-k soft assignment; autocast; torch.func (vmap,
grad, jacobian); an einops multi-head codebook; tiny conv VQ-VAEs trained a few Adam/SGD steps;
and the errors users hit (out-of-range codes, mismatched widths, dtype mixing, in-place updates
of a codebook saved for backward, loss broadcasting warnings) plus an argument-error sweep of
the ops VQ code calls. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
texts exactly. Every argmin/argmax/round is checked to be decided by a clear margin (the
codebooks are well separated), so no record depends on rounding.

Found and fixed:
- x.add_(other, alpha=0.5j) / x.sub_(..., alpha=0.5j) on a float tensor raised a TypeError
  from float() in the in-place fast path; torch: "RuntimeError: For non-complex input tensors,
  argument alpha must not be a complex number." (the fast path now leaves a complex alpha to
  add's checks).

Known and left (documented):
- torch.func.jacrev of a function through torch.cdist gives torch a wrong Jacobian (torch's
  batching of cdist's backward; torch.autograd.functional.jacobian disagrees with it);
  minitorch's jacrev agrees with the Jacobian. Only autograd.functional.jacobian is recorded.
- An in-place op on an inference tensor outside inference_mode: torch writes the result and
  then raises; minitorch raises before writing. The error is recorded, not the values after.
- A misspelt keyword that replaces a required argument (x.index_add_(0, i, src=s)) gets
  Python's "Tensor.index_add_() got an unexpected keyword argument 'src'" (torch:
  'index_add_() missing 1 required positional arguments: "source"'); the generic difference of
  methods documented since s32.
- torch.min(x, 1, out=tensor) (a Tensor, not a tuple, without keepdim): torch's "invalid
  combination of arguments" listing; minitorch's "argument 'out' must be tuple of Tensors" (the
  message torch gives once keepdim is passed).
- x.add_(t, alpha=2j) on an integer tensor: torch reports the integral-alpha error first,
  minitorch the complex-alpha one (minitorch has no complex dtypes).
- Under autocast the bfloat16 conv may round an ulp differently from torch's kernel: the
  float32 autocast program records dtypes, codes and a loose closeness only.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "cdist_lookup", "expanded_dist", "vq_layer", "vq_ema_module", "ema_inplace",
    "counts_scatter", "perplexity", "dead_code_reset", "residual_vq", "product_quant",
    "soft_relax", "gumbel", "cosine_vq", "fsq", "lfq", "kmeans_init", "conv_vqvae",
    "errors", "version_errors", "dtype_mixing", "ema_state_dict", "custom_function",
    "embedding_modules", "loss_warnings", "relaxed", "scalar_quant", "topk_codes", "hooks_st",
    "zero_distance", "autocast_vq", "func_vq", "inference_mode", "module_buffers",
    "einops_codebook", "dvae", "balanced",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _codebook(lib, dt, seed, k, d, spread=3.0):
    """A well-separated codebook (K, D)."""
    return _randn(lib, dt, seed, k, d) * spread


def _clustered(lib, dt, seed, n, codebook, noise=0.3):
    """n points, each a codebook entry (drawn by a seeded randint) plus small noise."""
    k, d = codebook.shape
    pick = lib.randint(0, k, (n,), generator=_gen(lib, seed))
    return codebook[pick] + noise * _randn(lib, dt, seed + 1, n, d)


def _argmin(lib, dist, dim=-1, margin=1e-3):
    """argmin over dim, after checking the best and second best differ by a clear margin."""
    two = lib.topk(dist.detach(), 2, dim=dim, largest=False).values
    gap = (two.narrow(dim, 1, 1) - two.narrow(dim, 0, 1)).min()
    assert float(gap) > margin, f"argmin decided by a near tie (gap {float(gap):.3g})"
    return dist.argmin(dim=dim)


def _argmax(lib, score, dim=-1, margin=1e-3):
    return _argmin(lib, -score, dim=dim, margin=margin)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_cdist_lookup(lib, dt, rec):
    F = lib.nn.functional
    cb0 = _codebook(lib, dt, 1, 6, 4)
    z0 = _clustered(lib, dt, 2, 10, cb0)
    cb = cb0.clone().requires_grad_(True)
    z = z0.clone().requires_grad_(True)
    d = lib.cdist(z, cb)
    rec("d", d)
    idx = _argmin(lib, d, dim=1)
    rec("idx", idx)
    q1 = F.embedding(idx, cb)
    q2 = cb.index_select(0, idx)
    q3 = cb[idx]
    rec("q1", q1)
    rec("same23", lib.equal(q2, q3))
    rec("same12", lib.equal(q1, q3))
    w = _randn(lib, dt, 3, 10, 6)
    (d * w).sum().backward(retain_graph=True)
    rec("gz", z.grad)
    rec("gcb", cb.grad)
    cb.grad = None
    (q1 * _randn(lib, dt, 4, 10, 4)).sum().backward()
    rec("gcb_emb", cb.grad)
    # batched cdist (B, N, D) x (B, K, D) and the p=1 / p=inf distances
    zb = z0.view(2, 5, 4)
    cbb = lib.stack([cb0, cb0.flip(0)])
    db = lib.cdist(zb, cbb)
    rec("db", db)
    rec("idxb", _argmin(lib, db))
    rec("d1", lib.cdist(z0, cb0, p=1))
    rec("dinf", lib.cdist(z0, cb0, p=float("inf")))
    rec("dmm", lib.cdist(z0, cb0, compute_mode="use_mm_for_euclid_dist"))
    rec("dnomm", lib.cdist(z0, cb0, compute_mode="donot_use_mm_for_euclid_dist"))
    rec("grad_fn", type(d.grad_fn).__name__)
    # argmin with keepdim, min with indices
    vals, ids = d.detach().min(dim=1, keepdim=True)
    rec("minvals", vals)
    rec("minids", ids)
    rec("argmin_kd", d.detach().argmin(1, keepdim=True))


def p_expanded_dist(lib, dt, rec):
    cb0 = _codebook(lib, dt, 5, 8, 3)
    z0 = _clustered(lib, dt, 6, 12, cb0)
    z = z0.clone().requires_grad_(True)
    cb = cb0.clone().requires_grad_(True)
    d1 = lib.sum(z**2, dim=1, keepdim=True) + lib.sum(cb**2, dim=1) - 2 * lib.matmul(z, cb.t())
    d2 = z.pow(2).sum(1, keepdim=True) - 2 * z @ cb.T + cb.pow(2).sum(1)[None, :]
    d3 = lib.addmm(
        lib.sum(cb**2, dim=1) + lib.sum(z**2, dim=1, keepdim=True), z, cb.t(), beta=1.0, alpha=-2.0
    )
    d4 = (
        lib.einsum("nd,nd->n", z, z)[:, None]
        - 2 * lib.einsum("nd,kd->nk", z, cb)
        + lib.einsum("kd,kd->k", cb, cb)
    )
    d5 = ((z.unsqueeze(1) - cb.unsqueeze(0)) ** 2).sum(-1)
    for i, d in enumerate((d1, d2, d3, d4, d5)):
        rec(f"d{i}", d)
        rec(f"idx{i}", _argmin(lib, d, dim=1))
    w = _randn(lib, dt, 7, 12, 8)
    for i, d in enumerate((d1, d3, d4, d5)):
        gz, gcb = lib.autograd.grad((d * w).sum(), (z, cb), retain_graph=True)
        rec(f"gz{i}", gz)
        rec(f"gcb{i}", gcb)
    rec("neg_max", _argmax(lib, -d1, dim=1))
    rec("sqrt", d5.clamp_min(0).sqrt())


def _vq_forward(lib, inputs, weight, beta=0.25):
    """The VectorQuantizer of the classic VQ-VAE notebook: BCHW in, BCHW out."""
    F = lib.nn.functional
    x = inputs.permute(0, 2, 3, 1).contiguous()
    shape = x.shape
    flat = x.view(-1, weight.shape[1])
    dist = (
        lib.sum(flat**2, dim=1, keepdim=True)
        + lib.sum(weight**2, dim=1)
        - 2 * lib.matmul(flat, weight.t())
    )
    idx = _argmin(lib, dist, dim=1).unsqueeze(1)
    enc = lib.zeros(idx.shape[0], weight.shape[0], dtype=inputs.dtype, device=inputs.device)
    enc.scatter_(1, idx, 1)
    q = lib.matmul(enc, weight).view(shape)
    e_loss = F.mse_loss(q.detach(), x)
    q_loss = F.mse_loss(q, x.detach())
    loss = q_loss + beta * e_loss
    q = x + (q - x).detach()
    avg = lib.mean(enc, dim=0)
    perplexity = lib.exp(-lib.sum(avg * lib.log(avg + 1e-10)))
    return loss, q.permute(0, 3, 1, 2).contiguous(), perplexity, enc, idx


def _bchw(lib, dt, seed, b, h, w, cb):
    flat = _clustered(lib, dt, seed, b * h * w, cb)
    return flat.view(b, h, w, cb.shape[1]).permute(0, 3, 1, 2).contiguous()


def p_vq_layer(lib, dt, rec):
    emb = lib.nn.Embedding(5, 3).to(dt)
    with lib.no_grad():
        emb.weight.copy_(_codebook(lib, dt, 8, 5, 3))
    x = _bchw(lib, dt, 9, 2, 3, 4, emb.weight.detach()).requires_grad_(True)
    loss, q, ppl, enc, idx = _vq_forward(lib, x, emb.weight)
    rec("loss", loss)
    rec("q", q)
    rec("ppl", ppl)
    rec("enc", enc)
    rec("idx", idx)
    w = _randn(lib, dt, 10, *q.shape)
    (loss + (q * w).sum()).backward()
    rec("gx", x.grad)
    rec("gw", emb.weight.grad)
    # the straight-through gradient is the upstream gradient plus the commitment term
    rec("q_is_x", (q - x).abs().max())
    rec("q_grad_fn", type(q.grad_fn).__name__)
    rec("loss_grad_fn", type(loss.grad_fn).__name__)
    rec("requires", str((q.requires_grad, enc.requires_grad, idx.requires_grad)))


def p_vq_ema_module(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class VectorQuantizerEMA(nn.Module):
        def __init__(self, num, dim, beta, decay, eps=1e-5):
            super().__init__()
            self.num, self.dim, self.beta, self.decay, self.eps = num, dim, beta, decay, eps
            self.embedding = nn.Embedding(num, dim)
            self.embedding.weight.data.normal_()
            self.register_buffer("ema_cluster_size", lib.zeros(num))
            self.ema_w = nn.Parameter(lib.Tensor(num, dim))
            self.ema_w.data.normal_()

        def forward(self, inputs):
            x = inputs.permute(0, 2, 3, 1).contiguous()
            flat = x.view(-1, self.dim)
            w = self.embedding.weight
            dist = (
                lib.sum(flat**2, dim=1, keepdim=True)
                + lib.sum(w**2, dim=1)
                - 2 * lib.matmul(flat, w.t())
            )
            idx = _argmin(lib, dist, dim=1).unsqueeze(1)
            enc = lib.zeros(idx.shape[0], self.num, device=inputs.device)
            enc.scatter_(1, idx, 1)
            q = lib.matmul(enc, w).view(x.shape)
            if self.training:
                self.ema_cluster_size = self.ema_cluster_size * self.decay + (
                    1 - self.decay
                ) * lib.sum(enc, 0)
                n = lib.sum(self.ema_cluster_size.data)
                self.ema_cluster_size = (
                    (self.ema_cluster_size + self.eps) / (n + self.num * self.eps) * n
                )
                dw = lib.matmul(enc.t(), flat)
                self.ema_w = nn.Parameter(self.ema_w * self.decay + (1 - self.decay) * dw)
                self.embedding.weight = nn.Parameter(
                    self.ema_w / self.ema_cluster_size.unsqueeze(1)
                )
            e_loss = F.mse_loss(q.detach(), x)
            loss = self.beta * e_loss
            q = x + (q - x).detach()
            avg = lib.mean(enc, dim=0)
            ppl = lib.exp(-lib.sum(avg * lib.log(avg + 1e-10)))
            return loss, q.permute(0, 3, 1, 2).contiguous(), ppl, idx

    lib.manual_seed(11)
    lib.set_default_dtype(dt)
    try:
        vq = VectorQuantizerEMA(4, 3, 0.25, 0.9)
        with lib.no_grad():
            vq.embedding.weight.mul_(3.0)
        cb = vq.embedding.weight.detach().clone()
        for step in range(3):
            x = _bchw(lib, dt, 12 + step, 2, 2, 3, cb).requires_grad_(True)
            loss, q, ppl, idx = vq(x)
            loss.backward()
            rec(f"loss{step}", loss)
            rec(f"ppl{step}", ppl)
            rec(f"idx{step}", idx)
            rec(f"gx{step}", x.grad)
            rec(f"cs{step}", vq.ema_cluster_size)
            rec(f"emaw{step}", vq.ema_w)
            rec(f"w{step}", vq.embedding.weight)
        rec("names", str([n for n, _ in vq.named_parameters()]))
        rec("buffers", str([n for n, _ in vq.named_buffers()]))
        rec("dtype", str(vq.ema_cluster_size.dtype))
        vq.eval()
        loss, q, ppl, idx = vq(_bchw(lib, dt, 20, 1, 2, 2, cb))
        rec("eval_loss", loss)
        rec("eval_idx", idx)
    finally:
        lib.set_default_dtype(lib.float32)


def _laplace(cs, n_codes, eps):
    return (cs + eps) / (cs.sum() + n_codes * eps) * cs.sum()


def p_ema_inplace(lib, dt, rec):
    F = lib.nn.functional
    k, d, decay, eps = 5, 4, 0.8, 1e-5
    embed = _codebook(lib, dt, 21, k, d)
    cluster_size = lib.ones(k, dtype=dt)
    embed_avg = embed.clone()
    for step in range(4):
        flat = _clustered(lib, dt, 22 + 2 * step, 16, embed)
        dist = -(flat.pow(2).sum(1, keepdim=True) - 2 * flat @ embed.t() + embed.pow(2).sum(1))
        ind = _argmax(lib, dist, dim=-1)
        onehot = F.one_hot(ind, k).type(dt)
        with lib.no_grad():
            cluster_size.data.lerp_(onehot.sum(0), 1 - decay)
            embed_sum = flat.t() @ onehot
            embed_avg.data.lerp_(embed_sum.t(), 1 - decay)
            cs = _laplace(cluster_size, k, eps)
            embed.data.copy_(embed_avg / cs.unsqueeze(1))
        rec(f"ind{step}", ind)
        rec(f"cs{step}", cluster_size)
        rec(f"avg{step}", embed_avg)
        rec(f"embed{step}", embed)
    # the mul_/add_ spelling of the same update, with a Tensor and a Python weight
    cs2 = lib.ones(k, dtype=dt)
    avg2 = embed.clone()
    flat = _clustered(lib, dt, 40, 16, embed)
    ind = _argmin(lib, lib.cdist(flat, embed), dim=1)
    onehot = F.one_hot(ind, num_classes=k).to(flat)
    cs2.mul_(decay).add_(onehot.sum(0), alpha=1 - decay)
    avg2.mul_(decay).add_(onehot.t() @ flat, alpha=1 - decay)
    rec("cs2", cs2)
    rec("avg2", avg2)
    a = lib.ones(k, dtype=dt)
    a.lerp_(onehot.sum(0), lib.full((k,), 0.3, dtype=dt))
    rec("lerp_t", a)
    rec("lerp", lib.lerp(lib.zeros(k, dtype=dt), onehot.sum(0), 0.25))
    # an EMA of a parameter's data, outside no_grad
    p = lib.nn.Parameter(embed.clone())
    p.data.mul_(decay).add_((1 - decay) * avg2)
    rec("pdata", p)
    rec("pver", p.requires_grad)
    rec.err("leaf_inplace", lambda: p.mul_(decay))
    rec.err("leaf_lerp", lambda: p.lerp_(avg2, 0.5))


def p_counts_scatter(lib, dt, rec):
    F = lib.nn.functional
    k, d = 6, 3
    embed = _codebook(lib, dt, 41, k, d)
    flat = _clustered(lib, dt, 42, 20, embed)
    ind = _argmin(lib, lib.cdist(flat, embed), dim=1)
    rec("ind", ind)
    counts1 = F.one_hot(ind, k).sum(0)
    counts2 = lib.bincount(ind, minlength=k)
    counts3 = lib.zeros(k, dtype=lib.long).index_add_(0, ind, lib.ones_like(ind))
    counts4 = lib.zeros(k, dtype=dt).scatter_add_(0, ind, lib.ones(ind.shape[0], dtype=dt))
    counts5 = lib.zeros(k, dtype=dt).index_put_((ind,), lib.ones(20, dtype=dt), accumulate=True)
    rec("c1", counts1)
    rec("c2", counts2)
    rec("c3", counts3)
    rec("c4", counts4)
    rec("c5", counts5)
    sum1 = lib.zeros(k, d, dtype=dt).index_add_(0, ind, flat)
    sum2 = lib.zeros(k, d, dtype=dt).scatter_add_(0, ind[:, None].expand(-1, d), flat)
    sum3 = F.one_hot(ind, k).to(dt).t() @ flat
    sum4 = lib.zeros(k, d, dtype=dt).index_add(0, ind, flat, alpha=0.5)
    sum5 = lib.zeros(k, d, dtype=dt).scatter_reduce(
        0, ind[:, None].expand(-1, d), flat, reduce="mean", include_self=False
    )
    rec("s1", sum1)
    rec("s2", sum2)
    rec("s3", sum3)
    rec("s4", sum4)
    rec("s5", sum5)
    means = sum1 / counts2.clamp(min=1).unsqueeze(1)
    rec("means", means)
    # differentiable scatter sums (gradient for the data)
    f = flat.clone().requires_grad_(True)
    s = lib.zeros(k, d, dtype=dt).index_add(0, ind, f)
    t = lib.zeros(k, d, dtype=dt).scatter_add(0, ind[:, None].expand(-1, d), f)
    w = _randn(lib, dt, 43, k, d)
    ((s + 2 * t) * w).sum().backward()
    rec("gf", f.grad)
    rec("bincount_w", lib.bincount(ind, weights=flat[:, 0], minlength=k))
    rec("unique", lib.unique(ind))
    u, inv, cnt = lib.unique(ind, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)
    rec("used", (counts2 > 0).sum())
    rec("hist", lib.histc(ind.to(dt), bins=k, min=0, max=k - 1))


def p_perplexity(lib, dt, rec):
    F = lib.nn.functional
    k = 7
    embed = _codebook(lib, dt, 44, k, 4)
    flat = _clustered(lib, dt, 45, 30, embed)
    ind = _argmin(lib, lib.cdist(flat, embed), dim=1)
    onehot = F.one_hot(ind, k).to(dt)
    avg = onehot.mean(0)
    rec("avg", avg)
    rec("ppl1", lib.exp(-lib.sum(avg * lib.log(avg + 1e-10))))
    rec("ppl2", (-(avg * (avg + 1e-10).log()).sum()).exp())
    rec("ppl3", lib.exp(-lib.sum(lib.special.xlogy(avg, avg))))
    rec("ppl4", lib.exp(lib.distributions.Categorical(probs=avg + 1e-10).entropy()))
    rec("usage", (avg > 0).to(dt).mean())
    # batched perplexity (B, N) codes and a soft (probabilistic) assignment entropy
    ind2 = ind.view(3, 10)
    oh2 = F.one_hot(ind2, k).to(dt)
    p2 = oh2.mean(1)
    rec("ppl_b", lib.exp(-(p2 * lib.log(p2.clamp(min=1e-10))).sum(-1)))
    d = lib.cdist(flat, embed).pow(2)
    probs = lib.softmax(-d / 5.0, dim=-1)
    logp = lib.log_softmax(-d / 5.0, dim=-1)
    rec("ent", -(probs * logp).sum(-1).mean())
    avgp = probs.mean(0)
    rec("avg_ent", -(avgp * lib.log(avgp + 1e-5)).sum())
    rec("one_hot_dtype", str(F.one_hot(ind, k).dtype))
    rec("one_hot_infer", F.one_hot(ind))


def p_dead_code_reset(lib, dt, rec):
    F = lib.nn.functional
    k, d = 6, 3
    embed = _codebook(lib, dt, 46, k, d)
    # data that uses only codes 0..3
    pick = lib.randint(0, 4, (24,), generator=_gen(lib, 47))
    flat = embed[pick] + 0.2 * _randn(lib, dt, 48, 24, d)
    ind = _argmin(lib, lib.cdist(flat, embed), dim=1)
    cluster_size = F.one_hot(ind, k).sum(0).to(dt)
    expired = cluster_size < 1.0
    rec("expired", expired)
    rec("n_expired", expired.sum())
    g = _gen(lib, 49)
    rand_idx = lib.randint(0, flat.shape[0], (k,), generator=g)
    sampled = flat[rand_idx]
    new = lib.where(expired[..., None], sampled, embed)
    rec("new", new)
    # the in-place spelling: data[mask] = samples, with randperm
    e2 = embed.clone()
    perm = lib.randperm(flat.shape[0], generator=g)[: int(expired.sum())]
    e2[expired] = flat[perm].to(dt)
    rec("e2", e2)
    rec("perm", perm)
    e3 = embed.clone()
    e3.data[expired] = 0.0
    rec("e3", e3)
    e4 = embed.clone()
    e4.masked_scatter_(expired[:, None].expand(-1, d), flat[:2])
    rec("e4", e4)
    cs = cluster_size.clone()
    cs.masked_fill_(expired, 1.0)
    rec("cs", cs)
    # a module with a buffer reset under no_grad
    lib.manual_seed(50)
    emb = lib.nn.Embedding(k, d).to(dt)
    with lib.no_grad():
        emb.weight.copy_(embed)
        idx = lib.nonzero(expired).squeeze(1)
        emb.weight[idx] = flat[lib.randint(0, 24, (idx.numel(),))]
        emb.weight.data.index_copy_(0, idx, flat[:2] * 2)
    rec("emb", emb.weight)
    rec("idx", idx)


def p_residual_vq(lib, dt, rec):
    F = lib.nn.functional
    n_q, k, d = 3, 5, 4
    books0 = [_codebook(lib, dt, 60 + i, k, d, spread=3.0 / (4**i)) for i in range(n_q)]
    # build data as sums of one code per stage plus noise, so every stage is decisive
    picks = [lib.randint(0, k, (14,), generator=_gen(lib, 70 + i)) for i in range(n_q)]
    x0 = sum(b[p] for b, p in zip(books0, picks, strict=True))
    x0 = x0 + 0.005 * _randn(lib, dt, 73, 14, d)
    books = [b.clone().requires_grad_(True) for b in books0]
    x = x0.clone().requires_grad_(True)
    residual = x
    quantized_out = 0.0
    losses, indices = [], []
    for i, book in enumerate(books):
        dist = lib.cdist(residual, book)
        ind = _argmin(lib, dist, dim=-1)
        q = F.embedding(ind, book)
        commit = F.mse_loss(q.detach(), residual)
        cbl = F.mse_loss(q, residual.detach())
        losses.append(commit * 0.25 + cbl)
        q_st = residual + (q - residual).detach()
        residual = residual - q.detach()
        quantized_out = quantized_out + q_st
        indices.append(ind)
        rec(f"res{i}", residual)
    all_idx = lib.stack(indices, dim=-1)
    all_loss = lib.stack(losses)
    rec("idx", all_idx)
    rec("losses", all_loss)
    rec("q", quantized_out)
    w = _randn(lib, dt, 74, 14, d)
    ((quantized_out * w).sum() + all_loss.sum()).backward()
    rec("gx", x.grad)
    for i, b in enumerate(books):
        rec(f"gb{i}", b.grad)
    # decode indices back: sum of per-stage lookups via gather on a stacked codebook
    stacked = lib.stack(books0)  # (Q, K, D)
    codes = lib.gather(stacked, 1, all_idx.t().unsqueeze(-1).expand(-1, -1, d))
    rec("decoded", codes.sum(0))
    rec("recon_err", (codes.sum(0) - x0).abs().max())


def p_product_quant(lib, dt, rec):
    g, k, sub = 3, 4, 2
    books0 = _randn(lib, dt, 80, g, k, sub) * 3.0
    picks = lib.randint(0, k, (9, g), generator=_gen(lib, 81))
    x0 = lib.stack([books0[j][picks[:, j]] for j in range(g)], dim=1)  # (N, G, sub)
    x0 = (x0 + 0.2 * _randn(lib, dt, 82, 9, g, sub)).reshape(9, g * sub)
    books = books0.clone().requires_grad_(True)
    x = x0.clone().requires_grad_(True)
    xs = x.view(9, g, sub).permute(1, 0, 2)  # (G, N, sub)
    dist = lib.cdist(xs, books)  # (G, N, K)
    rec("dist", dist)
    ind = _argmin(lib, dist, dim=-1)  # (G, N)
    rec("ind", ind)
    q = lib.gather(books, 1, ind.unsqueeze(-1).expand(-1, -1, sub))  # (G, N, sub)
    q2 = books[lib.arange(g)[:, None], ind]
    rec("same", lib.equal(q, q2))
    q_flat = q.permute(1, 0, 2).reshape(9, g * sub)
    rec("q", q_flat)
    st = x + (q_flat - x).detach()
    loss = (st * _randn(lib, dt, 83, 9, g * sub)).sum() + (q_flat - x.detach()).pow(2).mean()
    loss.backward()
    rec("gx", x.grad)
    rec("gb", books.grad)
    # the einsum spelling of the distances, and codes packed into one integer
    d2 = (
        xs.pow(2).sum(-1, keepdim=True)
        - 2 * lib.einsum("gnd,gkd->gnk", xs, books)
        + books.pow(2).sum(-1).unsqueeze(1)
    )
    rec("d2", d2)
    code = (ind.t() * (k ** lib.arange(g))).sum(-1)
    rec("code", code)
    unpacked = (code.unsqueeze(-1) // (k ** lib.arange(g))) % k
    rec("unpacked", unpacked)
    # bmm spelling
    d3 = lib.baddbmm(
        books.pow(2).sum(-1).unsqueeze(1) + xs.pow(2).sum(-1, keepdim=True),
        xs,
        books.transpose(1, 2),
        alpha=-2,
    )
    rec("d3", d3)


def p_soft_relax(lib, dt, rec):
    F = lib.nn.functional
    k, d = 6, 3
    cb0 = _codebook(lib, dt, 90, k, d)
    z0 = _clustered(lib, dt, 91, 8, cb0, noise=0.5)
    cb = cb0.clone().requires_grad_(True)
    z = z0.clone().requires_grad_(True)
    dist = lib.cdist(z, cb) ** 2
    for tau in (0.5, 2.0, 10.0):
        soft = F.softmax(-dist / tau, dim=-1)
        rec(f"soft{tau}", soft)
        q = soft @ cb
        rec(f"q{tau}", q)
    soft = F.softmax(-dist / 2.0, dim=-1)
    idx = _argmax(lib, soft, dim=-1, margin=1e-6)
    hard = F.one_hot(idx, k).to(dt)
    st = hard - soft.detach() + soft
    q = st @ cb
    rec("q_st", q)
    w = _randn(lib, dt, 92, 8, d)
    (q * w).sum().backward()
    rec("gz", z.grad)
    rec("gcb", cb.grad)
    # the log-space version with a learnt temperature
    z.grad = None
    cb.grad = None
    logtau = lib.tensor(0.3, dtype=dt, requires_grad=True)
    logits = -lib.cdist(z, cb).pow(2) / logtau.exp()
    logp = F.log_softmax(logits, dim=-1)
    q2 = logp.exp() @ cb
    kl = (logp.exp() * (logp + lib.log(lib.tensor(float(k), dtype=dt)))).sum(-1).mean()
    ((q2 * w).sum() + kl).backward()
    rec("gtau", logtau.grad)
    rec("gz2", z.grad)
    rec("gcb2", cb.grad)
    rec("kl", kl)


def p_gumbel(lib, dt, rec):
    F = lib.nn.functional
    k, d = 5, 3
    cb0 = _codebook(lib, dt, 93, k, d)
    z0 = _clustered(lib, dt, 94, 6, cb0, noise=0.5)
    z = z0.clone().requires_grad_(True)
    logits = -lib.cdist(z, cb0).pow(2)
    lib.manual_seed(95)
    soft = F.gumbel_softmax(logits, tau=1.0, hard=False, dim=-1)
    rec("soft", soft)
    lib.manual_seed(96)
    hard = F.gumbel_softmax(logits, tau=0.7, hard=True, dim=-1)
    rec("hard", hard)
    q = hard @ cb0
    rec("q", q)
    (q * _randn(lib, dt, 97, 6, d)).sum().backward()
    rec("gz", z.grad)
    # the hand-written Gumbel trick (seeded noise from a generator)
    u = lib.rand(6, k, generator=_gen(lib, 98), dtype=dt)
    gumb = -lib.log(-lib.log(u + 1e-10) + 1e-10)
    y = F.softmax((logits.detach() + gumb) / 0.5, dim=-1)
    rec("y", y)
    rec("y_idx", _argmax(lib, y, dim=-1, margin=1e-6))


def p_cosine_vq(lib, dt, rec):
    F = lib.nn.functional
    k, d = 6, 4
    cb0 = F.normalize(_codebook(lib, dt, 100, k, d), dim=-1)
    z0 = _clustered(lib, dt, 101, 10, cb0 * 2.0, noise=0.1)
    cb = cb0.clone().requires_grad_(True)
    z = z0.clone().requires_grad_(True)
    zn = F.normalize(z, p=2, dim=-1)
    en = F.normalize(cb, p=2, dim=-1)
    sim = zn @ en.t()
    rec("sim", sim)
    ind = _argmax(lib, sim, dim=-1)
    rec("ind", ind)
    q = en[ind]
    loss = (1 - (zn * q.detach()).sum(-1)).mean() + F.mse_loss(q, zn.detach())
    st = zn + (q - zn).detach()
    ((st * _randn(lib, dt, 102, 10, d)).sum() + loss).backward()
    rec("gz", z.grad)
    rec("gcb", cb.grad)
    rec("cos", F.cosine_similarity(z0.unsqueeze(1), cb0.unsqueeze(0), dim=-1))
    # EMA on the sphere: renormalise after the update
    with lib.no_grad():
        onehot = F.one_hot(ind, k).to(dt)
        upd = onehot.t() @ zn
        cb.mul_(0.9).add_(upd, alpha=0.1)
        cb.copy_(F.normalize(cb, dim=-1))
    rec("cb", cb)
    rec("norms", cb.norm(dim=-1))
    rec("lnorm", lib.linalg.vector_norm(z0, dim=-1, keepdim=True))


def p_fsq(lib, dt, rec):
    """Finite scalar quantisation: bounded tanh, round with a straight-through estimator."""
    levels = lib.tensor([8, 5, 5, 5])
    basis = lib.cumprod(lib.tensor([1] + [8, 5, 5]), dim=0)
    rec("basis", basis)
    z0 = _randn(lib, dt, 110, 7, 4) * 1.3
    z = z0.clone().requires_grad_(True)
    eps = 1e-3
    half_l = (levels - 1) * (1 + eps) / 2
    offset = lib.where(levels % 2 == 0, 0.5, 0.0)
    shift = (offset / half_l).atanh()
    bounded = (z + shift).tanh() * half_l - offset
    rec("bounded", bounded)
    rounded = bounded.round()
    frac = (bounded - bounded.floor() - 0.5).abs().min()
    assert float(frac) > 1e-3, "rounding decided by a near tie"
    quant = bounded + (rounded - bounded).detach()
    half_w = levels // 2
    codes = quant / half_w
    rec("codes", codes)
    idx = ((codes * half_w + half_w) * basis).sum(dim=-1).to(lib.int32)
    rec("idx", idx)
    back = (idx.unsqueeze(-1) // basis) % levels
    rec("back", back)
    (codes * _randn(lib, dt, 111, 7, 4)).sum().backward()
    rec("gz", z.grad)
    rec("levels_dtype", str(half_l.dtype) + str(offset.dtype) + str(codes.dtype))


def p_lfq(lib, dt, rec):
    """Lookup-free quantisation: sign codes, integer indices, entropy penalty."""
    F = lib.nn.functional
    d = 4
    z0 = _randn(lib, dt, 120, 9, d)
    assert float(z0.abs().min()) > 1e-3
    z = z0.clone().requires_grad_(True)
    ones = lib.ones_like(z)
    q = lib.where(z > 0, ones, -ones)
    q = z + (q - z).detach()
    mask = 2 ** lib.arange(d - 1, -1, -1)
    idx = ((q > 0).int() * mask.int()).sum(-1)
    rec("idx", idx)
    rec("idx_dtype", str(idx.dtype))
    all_codes = ((lib.arange(2**d)[..., None].int() & mask) != 0).to(dt) * 2 - 1
    rec("all_codes", all_codes)
    dist = -2 * lib.einsum("nd,kd->nk", z, all_codes)
    prob = (-dist * 10).softmax(dim=-1)
    per_sample = (-prob * lib.log(prob.clamp(min=1e-5))).sum(-1).mean()
    avg = prob.mean(0)
    codebook_ent = (-avg * lib.log(avg.clamp(min=1e-5))).sum()
    ent_loss = per_sample - codebook_ent
    commit = F.mse_loss(z, q.detach(), reduction="none").mean()
    loss = ent_loss + 0.25 * commit + (q * _randn(lib, dt, 121, 9, d)).sum()
    loss.backward()
    rec("ent", ent_loss)
    rec("commit", commit)
    rec("gz", z.grad)
    rec("sign", lib.sign(z0))
    rec("bits", idx.unsqueeze(-1).bitwise_and(mask).ne(0))


def p_kmeans_init(lib, dt, rec):
    k, d = 4, 3
    centers = _codebook(lib, dt, 130, k, d, spread=4.0)
    data = _clustered(lib, dt, 131, 40, centers, noise=0.4)
    g = _gen(lib, 132)
    # initialise from distinct samples: the first sample of each true cluster
    pick = lib.randint(0, k, (40,), generator=_gen(lib, 131))
    first = lib.stack([lib.nonzero(pick == c)[0, 0] for c in range(k)])
    means = data[first]
    rec("init", means)
    for it in range(4):
        dists = -(data.pow(2).sum(1, keepdim=True) - 2 * data @ means.t() + means.pow(2).sum(1))
        buckets = _argmax(lib, dists, dim=-1)
        bins = lib.bincount(buckets, minlength=k)
        zero_mask = bins == 0
        bins_min_clamped = bins.masked_fill(zero_mask, 1)
        new_means = buckets.new_zeros(k, d, dtype=dt)
        new_means.scatter_add_(0, buckets.unsqueeze(-1).repeat(1, d), data)
        new_means = new_means / bins_min_clamped[..., None]
        means = lib.where(zero_mask[..., None], means, new_means)
        rec(f"means{it}", means)
        rec(f"bins{it}", bins)
    rec("perm", lib.randperm(40, generator=g)[:k])
    # sample-based init (vector-quantize-pytorch's sample_vectors)
    rand = lib.randint(0, 40, (k,), generator=g)
    rec("sampled", data[rand])
    rec("multinomial", lib.multinomial(lib.ones(40, dtype=dt), k, generator=g))


def p_conv_vqvae(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class VQ(nn.Module):
        def __init__(self, k, d, beta=0.25):
            super().__init__()
            self.embedding = nn.Embedding(k, d)
            self.embedding.weight.data.uniform_(-1.0 / k, 1.0 / k)
            self.beta = beta

        def forward(self, z):
            z = z.permute(0, 2, 3, 1).contiguous()
            flat = z.view(-1, z.shape[-1])
            d = lib.cdist(flat, self.embedding.weight)
            ind = _argmin(lib, d, dim=1, margin=1e-5)
            q = self.embedding(ind).view(z.shape)
            loss = F.mse_loss(q, z.detach()) + self.beta * F.mse_loss(z, q.detach())
            q = z + (q - z).detach()
            return q.permute(0, 3, 1, 2).contiguous(), loss, ind

    class VQVAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(
                nn.Conv2d(1, 4, 4, stride=2, padding=1), nn.ReLU(), nn.Conv2d(4, 3, 1)
            )
            self.vq = VQ(6, 3)
            self.dec = nn.Sequential(
                nn.Conv2d(3, 4, 3, padding=1),
                nn.ReLU(),
                nn.ConvTranspose2d(4, 1, 4, stride=2, padding=1),
            )

        def forward(self, x):
            z = self.enc(x)
            q, vq_loss, ind = self.vq(z)
            return self.dec(q), vq_loss, ind

    lib.manual_seed(140)
    model = VQVAE().to(dt)
    # spread the codebook over the encoder's output range so picks are decisive
    with lib.no_grad():
        model.vq.embedding.weight.copy_(_codebook(lib, dt, 141, 6, 3, spread=0.6))
    x = lib.rand(4, 1, 8, 8, generator=_gen(lib, 142), dtype=dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(4):
        opt.zero_grad()
        recon, vq_loss, ind = model(x)
        rl = F.mse_loss(recon, x)
        loss = rl + vq_loss
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"ind{step}", ind)
        if step == 0:
            rec.params("g0", model, grads=True)
        opt.step()
    rec.params("p", model)
    sgd = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(2):
        sgd.zero_grad()
        recon, vq_loss, ind = model(x)
        loss = F.mse_loss(recon, x) + vq_loss
        loss.backward()
        sgd.step()
        rec(f"sgd_loss{step}", loss)
    rec.params("p2", model)
    model.eval()
    with lib.no_grad():
        recon, _, ind = model(x)
    rec("recon", recon)
    rec("codes", ind.view(4, 4, 4))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    cb = _codebook(lib, dt, 150, 4, 3)
    z = _randn(lib, dt, 151, 5, 3)
    rec.err("emb_oob", lambda: F.embedding(lib.tensor([0, 4]), cb))
    rec.err("emb_neg", lambda: F.embedding(lib.tensor([-1, 2]), cb))
    rec.err("emb_float", lambda: F.embedding(lib.tensor([0.0, 1.0]), cb))
    rec.err("isel_oob", lambda: cb.index_select(0, lib.tensor([5])))
    rec.err("isel_float", lambda: cb.index_select(0, lib.tensor([0.0])))
    rec.err("cdist_cols", lambda: lib.cdist(z, _randn(lib, dt, 152, 4, 2)))
    rec.err("cdist_int", lambda: lib.cdist(lib.ones(2, 3, dtype=lib.long), lib.ones(2, 3)))
    rec.err("cdist_1d", lambda: lib.cdist(z[0], cb))
    rec.err("cdist_p", lambda: lib.cdist(z, cb, p=-1))
    rec.err("cdist_batch", lambda: lib.cdist(z.expand(2, 5, 3), cb.expand(3, 4, 3)))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([0, -1]), 3))
    rec.err("one_hot_big", lambda: F.one_hot(lib.tensor([0, 3]), 3))
    rec.err("one_hot_float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("argmin_empty", lambda: lib.empty(0, 3, dtype=dt).argmin(0))
    rec.err("argmin_dim", lambda: z.argmin(dim=2))
    rec.err("index_add_dtype", lambda: lib.zeros(4, 3).index_add_(0, lib.tensor([0]), z[:1]))
    rec.err(
        "index_add_shape", lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, lib.tensor([0, 1]), z)
    )
    rec.err(
        "index_add_idx_float",
        lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, lib.tensor([0.0]), z[:1]),
    )
    rec.err(
        "scatter_add_idx",
        lambda: lib.zeros(4, 3, dtype=dt).scatter_add_(0, lib.tensor([[0, 7, 0]]), z[:1]),
    )
    rec.err(
        "scatter_add_dtype",
        lambda: lib.zeros(4, 3, dtype=dt).scatter_add_(0, lib.tensor([[0, 1, 0]]), z[:1].int()),
    )
    rec.err("lerp_dtype", lambda: lib.zeros(3, dtype=dt).lerp_(lib.ones(3, dtype=lib.half), 0.5))
    rec.err("bincount_neg", lambda: lib.bincount(lib.tensor([0, -1])))
    rec.err("bincount_float", lambda: lib.bincount(lib.tensor([0.5])))
    rec.err("matmul_shape", lambda: F.one_hot(lib.tensor([0, 1]), 3).to(dt) @ cb)
    rec.err("gather_rank", lambda: lib.gather(cb, 1, lib.tensor([0, 1])))
    rec.err("where_shape", lambda: lib.where(lib.tensor([True, False]), cb, z))
    rec.err("emb_2d_weight", lambda: F.embedding(lib.tensor([0]), cb[0]))


def p_version_errors(lib, dt, rec):
    F = lib.nn.functional
    cb = _codebook(lib, dt, 160, 4, 3).requires_grad_(True)
    z = _clustered(lib, dt, 161, 6, cb.detach())

    def codebook_updated_inplace():
        d = lib.cdist(z, cb)
        ind = _argmin(lib, d, dim=1)
        q = F.embedding(ind, cb)
        loss = (q - z).pow(2).sum()
        with lib.no_grad():
            cb.mul_(0.99)
        loss.backward()

    rec.err("emb_inplace", codebook_updated_inplace)

    def cdist_then_update():
        d = lib.cdist(z, cb)
        with lib.no_grad():
            cb.add_(1.0)
        d.sum().backward()

    rec.err("cdist_inplace", cdist_then_update)

    def data_update_ok():
        q = F.embedding(lib.tensor([0, 1]), cb)
        cb.data.mul_(0.5)
        q.sum().backward()
        return cb.grad

    cb.grad = None
    rec.err("data_update", data_update_ok)
    rec("grad", cb.grad)

    def matmul_update():
        enc = F.one_hot(lib.tensor([0, 2]), 4).to(dt)
        q = enc @ cb
        with lib.no_grad():
            cb.lerp_(lib.zeros_like(cb), 0.1)
        (q * q).sum().backward()

    rec.err("mm_inplace", matmul_update)
    rec.err("leaf_lerp", lambda: cb.lerp_(lib.zeros_like(cb), 0.1))
    rec.err("leaf_index_add", lambda: cb.index_add_(0, lib.tensor([0]), cb[:1].detach()))
    rec.err("leaf_copy", lambda: cb.copy_(lib.zeros_like(cb)))
    rec("version", cb._version)


def p_dtype_mixing(lib, dt, rec):
    F = lib.nn.functional
    other = lib.float32 if dt == lib.float64 else lib.float64
    cb = _codebook(lib, dt, 170, 4, 3)
    ind = lib.tensor([0, 3, 1])
    oh = F.one_hot(ind, 4)
    rec.err("long_mm", lambda: oh @ cb)
    rec.err("float_mm", lambda: oh.float() @ cb.to(other))
    rec.err("cdist_mixed", lambda: lib.cdist(cb.to(other), cb))
    rec("sum_mixed", (oh.to(other).sum(0) * 0.5 + cb[:, 0]))
    rec("sum_mixed_dtype", str((oh.to(other).sum(0) * 0.5 + cb[:, 0]).dtype))
    rec("oh_mean", oh.float().mean(0))
    rec.err("oh_mean_long", lambda: oh.mean(0))
    rec("lerp_cast", lib.zeros(4, dtype=dt).lerp_(oh.sum(0).to(dt), 0.5))
    rec.err("lerp_long", lambda: lib.zeros(4, dtype=dt).lerp_(oh.sum(0), 0.5))
    c = lib.zeros(4, dtype=dt)
    c.add_(oh.sum(0), alpha=0.5)
    rec("add_long", c)
    c.mul_(oh.sum(0))
    rec("mul_long", c)
    rec.err("add_long_into_long", lambda: oh.sum(0).add_(cb[:, 0]))
    rec.err("index_add_long", lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, ind, oh[:, :3]))
    rec("emb_long_w", F.embedding(ind, lib.arange(12).view(4, 3)))
    rec("argmin_dtype", str(cb.argmin(0).dtype))


def p_ema_state_dict(lib, dt, rec):
    nn = lib.nn

    class EuclideanCodebook(nn.Module):
        def __init__(self, dim, size, decay=0.8, eps=1e-5):
            super().__init__()
            self.decay, self.eps = decay, eps
            embed = lib.randn(size, dim, dtype=dt) * 3
            self.register_buffer("initted", lib.tensor([True]))
            self.register_buffer("cluster_size", lib.zeros(size, dtype=dt))
            self.register_buffer("embed", embed)
            self.register_buffer("embed_avg", embed.clone())

        @lib.no_grad()
        def ema(self, flat, onehot):
            self.cluster_size.data.lerp_(onehot.sum(0), 1 - self.decay)
            self.embed_avg.data.lerp_((flat.t() @ onehot).t(), 1 - self.decay)
            n = self.cluster_size.sum()
            cs = (self.cluster_size + self.eps) / (n + self.embed.shape[0] * self.eps) * n
            self.embed.data.copy_(self.embed_avg / cs.unsqueeze(1))

        def forward(self, x):
            flat = x.reshape(-1, x.shape[-1])
            dist = -lib.cdist(flat, self.embed)
            ind = _argmax(lib, dist, dim=-1)
            onehot = nn.functional.one_hot(ind, self.embed.shape[0]).type(x.dtype)
            q = nn.functional.embedding(ind, self.embed).view_as(x)
            if self.training:
                self.ema(flat, onehot)
            return q, ind.view(*x.shape[:-1])

        def extra_repr(self):
            return f"decay={self.decay}, eps={self.eps}"

    lib.manual_seed(180)
    book = EuclideanCodebook(3, 5)
    rec("repr", repr(book))
    cb = book.embed.clone()
    for step in range(3):
        x = _clustered(lib, dt, 181 + 2 * step, 12, cb).view(2, 6, 3).requires_grad_(True)
        q, ind = book(x)
        st = x + (q - x).detach()
        st.pow(2).sum().backward()
        rec(f"ind{step}", ind)
        rec(f"gx{step}", x.grad)
        rec(f"embed{step}", book.embed)
    sd = book.state_dict()
    rec("keys", str(list(sd.keys())))
    for key, v in sd.items():
        rec("sd." + key, v)
    lib.manual_seed(190)
    book2 = EuclideanCodebook(3, 5)
    rec("load", str(book2.load_state_dict(sd)))
    rec("loaded", book2.embed)
    rec("buf_names", str([n for n, _ in book2.named_buffers()]))
    rec("params", str(list(book2.parameters())))
    rec.err("load_bad", lambda: book2.load_state_dict({"embed": lib.zeros(2, 3)}))


def p_custom_function(lib, dt, rec):
    """The VectorQuantization / VectorQuantizationStraightThrough Functions of the common
    PyTorch VQ-VAE port: indices marked non-differentiable, the codebook gradient accumulated
    with index_add_ in backward."""
    Function = lib.autograd.Function

    class VectorQuantization(Function):
        @staticmethod
        def forward(ctx, inputs, codebook):
            with lib.no_grad():
                embedding_size = codebook.size(1)
                inputs_size = inputs.size()
                inputs_flatten = inputs.view(-1, embedding_size)
                codebook_sqr = lib.sum(codebook**2, dim=1)
                inputs_sqr = lib.sum(inputs_flatten**2, dim=1, keepdim=True)
                distances = lib.addmm(
                    codebook_sqr + inputs_sqr, inputs_flatten, codebook.t(), alpha=-2.0, beta=1.0
                )
                _argmin(lib, distances, dim=1)
                _, indices_flatten = lib.min(distances, dim=1)
                indices = indices_flatten.view(*inputs_size[:-1])
                ctx.mark_non_differentiable(indices)
                return indices

        @staticmethod
        def backward(ctx, grad_output):
            raise RuntimeError(
                "Trying to call `.grad()` on graph containing "
                "`VectorQuantization`. The function `VectorQuantization` "
                "is not differentiable. Use `VectorQuantizationStraightThrough` "
                "if you want a straight-through estimator of the gradient."
            )

    class VectorQuantizationStraightThrough(Function):
        @staticmethod
        def forward(ctx, inputs, codebook):
            indices = VectorQuantization.apply(inputs, codebook)
            indices_flatten = indices.view(-1)
            ctx.save_for_backward(indices_flatten, codebook)
            ctx.mark_non_differentiable(indices_flatten)
            codes_flatten = lib.index_select(codebook, dim=0, index=indices_flatten)
            codes = codes_flatten.view_as(inputs)
            return (codes, indices_flatten)

        @staticmethod
        def backward(ctx, grad_output, grad_indices):
            grad_inputs, grad_codebook = None, None
            if ctx.needs_input_grad[0]:
                grad_inputs = grad_output.clone()
            if ctx.needs_input_grad[1]:
                indices, codebook = ctx.saved_tensors
                embedding_size = codebook.size(1)
                grad_output_flatten = grad_output.contiguous().view(-1, embedding_size)
                grad_codebook = lib.zeros_like(codebook)
                grad_codebook.index_add_(0, indices, grad_output_flatten)
            return (grad_inputs, grad_codebook)

    vq = VectorQuantization.apply
    vq_st = VectorQuantizationStraightThrough.apply
    cb0 = _codebook(lib, dt, 200, 5, 3)
    z0 = _clustered(lib, dt, 201, 12, cb0).view(2, 2, 3, 3)
    cb = cb0.clone().requires_grad_(True)
    z = z0.clone().requires_grad_(True)
    ind = vq(z, cb)
    rec("ind", ind)
    rec("ind_req", str((ind.requires_grad, ind.grad_fn, ind.is_leaf)))
    q, ind_flat = vq_st(z, cb)
    rec("q", q)
    rec("ind_flat_req", str((ind_flat.requires_grad, q.requires_grad)))
    rec("q_fn", type(q.grad_fn).__name__)
    w = _randn(lib, dt, 202, 2, 2, 3, 3)
    (q * w).sum().backward()
    rec("gz", z.grad)
    rec("gcb", cb.grad)
    # the codebook-only path: q_bar from index_select of the indices (embedding loss)
    z.grad, cb.grad = None, None
    q_bar = lib.index_select(cb, dim=0, index=ind_flat).view_as(z)
    loss = lib.nn.functional.mse_loss(q_bar, z.detach()) + 0.25 * lib.nn.functional.mse_loss(
        z, q_bar.detach()
    )
    loss.backward()
    rec("gz2", z.grad)
    rec("gcb2", cb.grad)
    rec.err("grad_through_vq", lambda: lib.autograd.grad(vq(z, cb).sum(), z))
    rec.err("bwd_int", lambda: ind_flat.to(dt).sum().backward())
    # gradcheck of the straight-through Function fails: its gradient is no derivative
    if dt == lib.float64:
        st = lambda a, b: vq_st(a, b)[0]  # noqa: E731
        rec("gradcheck", lib.autograd.gradcheck(st, (z[:1, 1:], cb), raise_exception=False))
        rec.err("gradcheck_err", lambda: lib.autograd.gradcheck(st, (z[:1, :1], cb)))


def p_embedding_modules(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    cb = _codebook(lib, dt, 210, 6, 4)
    emb = nn.Embedding.from_pretrained(cb)
    rec("repr", repr(emb))
    rec("frozen", emb.weight.requires_grad)
    ind = lib.tensor([[0, 5, 2], [2, 2, 1]])
    rec("lookup", emb(ind))
    emb2 = nn.Embedding.from_pretrained(cb, freeze=False, padding_idx=2)
    out = emb2(ind)
    (out * _randn(lib, dt, 211, 2, 3, 4)).sum().backward()
    rec("g_pad", emb2.weight.grad)
    rec("repr2", repr(emb2))
    # max_norm renormalises the looked-up rows of the weight in place
    w = cb.clone()
    out = F.embedding(ind, w, max_norm=2.0)
    rec("maxnorm_out", out)
    rec("maxnorm_w", w)
    w2 = cb.clone().requires_grad_(True)
    emb3 = nn.Embedding(6, 4, max_norm=1.5, norm_type=1.0).to(dt)
    with lib.no_grad():
        emb3.weight.copy_(cb)
    out3 = emb3(ind)
    rec("maxnorm1", out3)
    rec("maxnorm1_w", emb3.weight)
    out3.pow(2).sum().backward()
    rec("maxnorm1_g", emb3.weight.grad)
    rec("w2_untouched", w2)
    # scale_grad_by_freq
    w4 = cb.clone().requires_grad_(True)
    F.embedding(ind, w4, scale_grad_by_freq=True).sum().backward()
    rec("freq_g", w4.grad)
    # an embedding whose weight is reassigned (the EMA notebook style)
    emb4 = nn.Embedding(3, 2).to(dt)
    emb4.weight = nn.Parameter(lib.ones(3, 2, dtype=dt))
    rec("reassigned", emb4(lib.tensor([1])))
    rec.err("assign_tensor", lambda: setattr(emb4, "weight", lib.zeros(3, 2, dtype=dt)))
    rec("repr4", repr(emb4))
    rec.err("from_pretrained_1d", lambda: nn.Embedding.from_pretrained(cb[0]))
    rec.err("bad_pad", lambda: nn.Embedding(3, 2, padding_idx=5))
    rec.err("bad_pad_neg", lambda: nn.Embedding(3, 2, padding_idx=-4))
    rec("neg_pad", str(nn.Embedding(3, 2, padding_idx=-1).padding_idx))


def p_loss_warnings(lib, dt, rec):
    """The classic VQ bug: a (N, 1) against (N,) loss broadcasts, with torch's UserWarning."""
    F = lib.nn.functional
    z = _randn(lib, dt, 220, 6, 1)
    q = _randn(lib, dt, 221, 6)
    out = rec.warns("mse_bcast", lambda: F.mse_loss(z, q))
    rec("mse_val", out)
    out = rec.warns("l1_bcast", lambda: F.l1_loss(q, z))
    rec("l1_val", out)
    out = rec.warns("smooth_bcast", lambda: F.smooth_l1_loss(z, q, beta=0.5))
    rec("smooth_val", out)
    rec.warns("mse_same", lambda: F.mse_loss(z, q.view(6, 1)))
    rec.err("mse_bad", lambda: F.mse_loss(_randn(lib, dt, 222, 6, 2), _randn(lib, dt, 223, 6, 3)))
    rec.warns(
        "scatter_reduce",
        lambda: lib.zeros(3, dtype=dt).scatter_(
            0, lib.tensor([0, 2, 0]), lib.ones(3, dtype=dt), reduce="add"
        ),
    )
    rec(
        "scatter_reduce_val",
        lib.zeros(3, dtype=dt).scatter_(
            0, lib.tensor([0, 2, 0]), lib.ones(3, dtype=dt), reduce="add"
        ),
    )
    rec(
        "scatter_mul",
        lib.full((3,), 2.0, dtype=dt).scatter_(
            0, lib.tensor([0, 2, 0]), lib.full((3,), 3.0, dtype=dt), reduce="multiply"
        ),
    )
    rec(
        "scatter_value",
        lib.zeros(3, 4, dtype=dt).scatter_(1, lib.tensor([[1], [3], [0]]), 1.0),
    )
    rec(
        "scatter_value_add",
        lib.zeros(3, 4, dtype=dt).scatter_(
            1, lib.tensor([[1, 1], [3, 0], [0, 0]]), 2.0, reduce="add"
        ),
    )


def p_relaxed(lib, dt, rec):
    D = lib.distributions
    k = 5
    cb = _codebook(lib, dt, 230, k, 3)
    z = _clustered(lib, dt, 231, 4, cb, noise=0.8)
    logits = (-lib.cdist(z, cb).pow(2) / 4.0).requires_grad_(True)
    temp = lib.tensor(0.7, dtype=dt)
    dist = D.RelaxedOneHotCategorical(temp, logits=logits)
    lib.manual_seed(232)
    s = dist.rsample()
    rec("rsample", s)
    rec("log_prob", dist.log_prob(s))
    (s @ cb).pow(2).sum().backward()
    rec("glogits", logits.grad)
    cat = D.Categorical(logits=logits.detach())
    rec("probs", cat.probs)
    rec("entropy", cat.entropy())
    lib.manual_seed(233)
    rec("sample", cat.sample((3,)))
    oh = D.OneHotCategoricalStraightThrough(logits=logits.detach().requires_grad_(True))
    lib.manual_seed(234)
    h = oh.rsample()
    rec("st_sample", h)
    rec("st_lp", oh.log_prob(h))
    prior = D.Categorical(probs=lib.full((k,), 1.0 / k, dtype=dt))
    rec("kl", D.kl_divergence(cat, prior))
    rec.err("bad_temp", lambda: D.RelaxedOneHotCategorical(lib.tensor(-1.0), logits=logits))


def p_scalar_quant(lib, dt, rec):
    """Uniform scalar quantisation by bucketize/searchsorted with a straight-through round."""
    x0 = _randn(lib, dt, 240, 3, 5)
    bounds = lib.linspace(-2, 2, 9, dtype=dt)
    mids = (bounds[1:] + bounds[:-1]) / 2
    gap = (x0.unsqueeze(-1) - bounds).abs().min()
    assert float(gap) > 1e-4
    b1 = lib.bucketize(x0, bounds)
    b2 = lib.searchsorted(bounds, x0.flatten())
    b3 = lib.bucketize(x0, bounds, right=True)
    rec("b1", b1)
    rec("b2", b2)
    rec("b3", b3)
    rec("b1i32", lib.bucketize(x0, bounds, out_int32=True))
    levels = mids[b1.clamp(1, 8) - 1]
    rec("levels", levels)
    x = x0.clone().requires_grad_(True)
    step = 0.5
    q = (x / step).round() * step
    frac = (x0 / step - (x0 / step).floor() - 0.5).abs().min()
    assert float(frac) > 1e-4
    st = x + (q - x).detach()
    (st.clamp(-1.5, 1.5) * _randn(lib, dt, 241, 3, 5)).sum().backward()
    rec("q", q)
    rec("g", x.grad)
    # a noise-substitute quantiser (training with uniform noise)
    u = lib.rand(3, 5, generator=_gen(lib, 242), dtype=dt) - 0.5
    rec("noisy", x0 + u * step)
    rec("fake_quant", lib.fake_quantize_per_tensor_affine(x0.float(), 0.25, 0, -8, 7))


def p_topk_codes(lib, dt, rec):
    k, d = 8, 3
    cb = _codebook(lib, dt, 250, k, d)
    z = _clustered(lib, dt, 251, 6, cb, noise=0.4)
    dist = lib.cdist(z, cb)
    vals, ids = dist.topk(3, dim=-1, largest=False)
    rec("vals", vals)
    s_ids = dist.argsort(dim=-1)[:, :3]
    gaps = dist.sort(dim=-1).values.diff(dim=-1)[:, :3].min()
    assert float(gaps) > 1e-3
    rec("ids", ids)
    rec("same", lib.equal(ids, s_ids))
    sv, si = lib.sort(dist, dim=-1)
    rec("sv", sv)
    rec("si", si)
    kth = lib.kthvalue(dist, 2, dim=-1)
    rec("kth", kth.values)
    rec("kthi", kth.indices)
    mn = lib.min(dist, dim=-1)
    rec("mn", mn.values)
    rec("mni", mn.indices)
    rec("mn_repr_type", type(mn).__name__)
    amin = lib.aminmax(dist, dim=-1)
    rec("amin", amin.min)
    rec("amax", amin.max)
    # soft k-NN over the 3 nearest codes
    cbr = cb.clone().requires_grad_(True)
    d2 = lib.cdist(z, cbr)
    v, i = d2.topk(3, dim=-1, largest=False)
    wts = lib.softmax(-v, dim=-1)
    q = (wts.unsqueeze(-1) * cbr[i]).sum(1)
    (q * _randn(lib, dt, 252, 6, d)).sum().backward()
    rec("q", q)
    rec("gcb", cbr.grad)


def p_hooks_st(lib, dt, rec):
    """Gradients of the straight-through estimator observed with hooks."""
    F = lib.nn.functional
    cb = _codebook(lib, dt, 260, 4, 2).requires_grad_(True)
    z = _clustered(lib, dt, 261, 5, cb.detach()).requires_grad_(True)
    seen = []
    z.register_hook(lambda g: seen.append(g.clone()))
    ind = _argmin(lib, lib.cdist(z, cb), dim=1)
    q = F.embedding(ind, cb)
    q.register_hook(lambda g: seen.append(g * 1))
    st = z + (q - z).detach()
    st.retain_grad()
    loss = (st**3).sum() + F.mse_loss(q, z.detach()) + 0.25 * F.mse_loss(z, q.detach())
    loss.backward()
    rec("n_seen", len(seen))
    for i, g in enumerate(seen):
        rec(f"seen{i}", g)
    rec("st_grad", st.grad)
    rec("z_grad", z.grad)
    rec("cb_grad", cb.grad)
    rec("st_fn", type(st.grad_fn).__name__)
    rec("st_next", str([type(f[0]).__name__ for f in st.grad_fn.next_functions]))
    rec("detach_req", (q - z).detach().requires_grad)


def p_zero_distance(lib, dt, rec):
    """Codes reset to data points (dead-code replacement), then looked up: cdist at distance
    exactly 0 (its gradient there is 0 for every p), a zero-norm commitment loss."""
    F = lib.nn.functional
    data = _randn(lib, dt, 270, 12, 3)
    cb = data[lib.tensor([0, 4, 9])].clone().requires_grad_(True)
    x = data.clone().requires_grad_(True)
    d = lib.cdist(x, cb)
    rec("d", d)
    rec("zeros", (d == 0).sum())
    w = _randn(lib, dt, 271, 12, 3)
    gx, gcb = lib.autograd.grad((d * w).sum(), (x, cb))
    rec("gx", gx)
    rec("gcb", gcb)
    for p in (1.0, 3.0, 0.5, float("inf"), 0.0):
        gx, gcb = lib.autograd.grad((lib.cdist(x, cb, p=p) * w).sum(), (x, cb))
        rec(f"gx{p}", gx)
        rec(f"gcb{p}", gcb)
    ind = _argmin(lib, d[lib.tensor([0, 4, 9])], dim=1, margin=1e-3)
    q = F.embedding(ind, cb)
    loss = F.mse_loss(q, x[lib.tensor([0, 4, 9])])
    rec("loss", loss)
    loss.backward()
    rec("lgx", x.grad)
    rec("lgcb", cb.grad)
    # the norm of a zero residual (residual VQ's last stage) and its gradient
    r = (x[lib.tensor([0, 4, 9])] - cb).detach().requires_grad_(True)
    n = r.norm(dim=-1)
    n.sum().backward()
    rec("rnorm", n)
    rec("rgrad", r.grad)
    rec("vnorm", lib.linalg.vector_norm(r.detach(), dim=-1))
    rec("pdist", F.pairwise_distance(x[:3], cb))


def p_autocast_vq(lib, dt, rec):
    """A VQ layer inside CPU autocast (bfloat16): which ops run in float32 (float64 tensors
    are left alone)."""
    F = lib.nn.functional
    lib.manual_seed(280)
    conv = lib.nn.Conv2d(2, 3, 1).to(dt)
    cb = _codebook(lib, dt, 281, 4, 3)
    x = lib.randn(1, 2, 3, 3, generator=_gen(lib, 282), dtype=dt)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        z = conv(x)
        flat = z.permute(0, 2, 3, 1).reshape(-1, 3)
        d = lib.cdist(flat, cb)
        d2 = flat.pow(2).sum(1, keepdim=True) - 2 * flat @ cb.t() + cb.pow(2).sum(1)
        ind = _argmin(lib, d, dim=1, margin=0.05)
        oh = F.one_hot(ind, 4)
        q = oh.to(dt) @ cb
        e = F.embedding(ind, cb)
        loss = F.mse_loss(e, flat)
        sm = F.softmax(-d, -1)
        nrm = F.normalize(flat, dim=-1)
        cs = F.cosine_similarity(flat[:, None], cb[None], dim=-1)
    for n, t in (("z", z), ("d", d), ("d2", d2), ("q", q), ("e", e), ("loss", loss)):
        rec(n + ".dtype", str(t.dtype))
    rec("sm.dtype", str(sm.dtype))
    rec("nrm.dtype", str(nrm.dtype))
    rec("cs.dtype", str(cs.dtype))
    rec("ind", ind)
    if dt == lib.float64:
        rec("d", d)
        rec("e", e)
        rec("loss", loss)
    else:  # bfloat16 roundings of the conv may differ by an ulp: values compared loosely
        d_ref = lib.cdist(conv(x).permute(0, 2, 3, 1).reshape(-1, 3), cb)
        rec("d_close", bool((d - d_ref).abs().max() < 0.1))


def p_func_vq(lib, dt, rec):
    """torch.func over a codebook lookup: vmap, grad, vmap of grad, jacobian."""
    F = lib.nn.functional
    cb = _codebook(lib, dt, 290, 4, 3)
    z = _clustered(lib, dt, 291, 10, cb, noise=0.5).view(2, 5, 3)

    _argmin(lib, lib.cdist(z, cb), dim=-1)  # every pick below is clear

    def lookup(x, c):
        return c[lib.cdist(x, c).argmin(-1)]

    rec("vmap", lib.vmap(lookup, in_dims=(0, None))(z, cb))

    def loss(c, x):
        d = (x.unsqueeze(-2) - c).pow(2).sum(-1)
        return F.mse_loss(c[d.argmin(-1)], x)

    rec("grad", lib.func.grad(loss)(cb, z[0]))
    rec("vmap_grad", lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(cb, z))

    def st(x, c):
        q = F.embedding(lib.cdist(x, c).argmin(-1), c)
        return (x + (q - x).detach()).pow(2).sum() + F.mse_loss(q, x.detach())

    gx, gc = lib.func.grad(st, argnums=(0, 1))(z[0], cb)
    rec("st_gx", gx)
    rec("st_gc", gc)
    rec("vmap_oh", lib.func.vmap(lambda x: F.one_hot(x.argmin(-1), 4))(lib.cdist(z, cb)))
    jac = lib.autograd.functional.jacobian(lambda c: lib.cdist(z[0], c).min(-1).values, cb)
    rec("jacobian", jac)
    jac2 = lib.func.jacrev(lambda c: ((z[0][:, None] - c).pow(2).sum(-1)).min(-1).values)(cb)
    rec("jacrev_sq", jac2)


# --- argument-error sweeps of the ops VQ code calls (each call compiled as a user's line) ---

SWEEP = [
    "torch.cdist(z, cb, p=float('nan'))",
    "torch.cdist(z, cb, compute_mode='foo')",
    'torch.cdist(z, cb, compute_mode=None)',
    "torch.cdist(z, cb, p='2')",
    "torch.cdist(z, cb, 2, 'use_mm_for_euclid_dist', 3)",
    'torch.cdist(z.int(), cb.int())',
    'torch.cdist(z.half(), cb.half())',
    'torch.cdist(z, cb.double())',
    'torch.cdist(z[None], cb[None, :, :2])',
    'torch.cdist(z.new_empty(0, 3), cb)',
    'torch.cdist(z.new_empty(5, 0), cb.new_empty(4, 0))',
    'torch.cdist(z, cb, p=0)',
    'torch.cdist(z.bool(), cb.bool())',
    'torch.cdist(x1=z, x2=cb)',
    'torch.cdist(z, x2=cb, p=1.)',
    'torch.cdist(z)',
    'torch.cdist(z, cb, foo=1)',
    'F.one_hot(i, -2)',
    'F.one_hot(i, 0)',
    'F.one_hot(i.int(), 3)',
    'F.one_hot(i[:0])',
    'F.one_hot(i[:0], 3)',
    'F.one_hot(i, num_classes=3.0)',
    'F.one_hot(i.view(3, 1), 4).shape',
    'F.one_hot(torch.tensor(2), 4)',
    'F.one_hot(i.byte(), 3)',
    'F.one_hot(b.long())',
    'F.one_hot(i, 3, 1)',
    'F.one_hot([0, 1], 3)',
    'F.embedding(i, cb[0])',
    'F.embedding(i.int(), cb).shape',
    'F.embedding(i.short(), cb)',
    'F.embedding(i.byte(), cb)',
    'F.embedding(i, cb, padding_idx=9)',
    'F.embedding(i, cb, padding_idx=-9)',
    'F.embedding(i, cb, padding_idx=-1).shape',
    'F.embedding(i, cb, max_norm=-1.0)',
    'F.embedding(i, cb.int())',
    'F.embedding(i, cb.long()).dtype',
    'F.embedding([0, 1], cb)',
    'F.embedding(i, [[1.0]])',
    'F.embedding(i, cb, sparse=1)',
    'nn.Embedding(0, 3)',
    'nn.Embedding(3, 0)(i[:1]).shape',
    'nn.Embedding(-1, 3)',
    'nn.Embedding(3.0, 3)',
    'nn.Embedding(3, 2, _weight=cb)',
    'nn.Embedding(4, 3, _weight=cb).weight.shape',
    'nn.Embedding(4, 3, _freeze=True).weight.requires_grad',
    'nn.Embedding.from_pretrained(cb, padding_idx=7)',
    'nn.Embedding.from_pretrained([[1.0]])',
    'nn.Embedding(4, 3)(torch.tensor([4]))',
    'nn.Embedding(4, 3)(torch.tensor([0.5]))',
    'nn.Embedding(4, 3)(torch.tensor([[1, 2]])).shape',
    'torch.bincount(i, minlength=-1)',
    'torch.bincount(i.view(3, 1))',
    'torch.bincount(i, weights=cb)',
    'torch.bincount(i, weights=torch.ones(2))',
    'torch.bincount(i[:0])',
    'torch.bincount(i[:0], minlength=3)',
    'torch.bincount(i, weights=torch.ones(3).int()).dtype',
    'torch.bincount(i, weights=torch.ones(3).double()).dtype',
    'torch.bincount(i, weights=torch.ones(3)).dtype',
    'torch.bincount(b)',
    'torch.bincount(i, minlength=2.5)',
    'torch.histc(i, bins=3)',
    'torch.histc(z, bins=0)',
    'torch.histc(z, bins=3, min=2, max=1)',
    'torch.histc(z, bins=3, min=1, max=1)',
    'torch.histc(z.double(), bins=2).dtype',
    'torch.zeros(4, 3).index_add_(0, i, z[:3], alpha=0.5).sum()',
    'torch.zeros(4, 3).index_add_(1, i, z[:3])',
    'torch.zeros(4, 3).index_add_(2, i, z[:3])',
    'torch.zeros(4, 3).index_add_(0, i.view(3, 1), z[:3])',
    'torch.zeros(4, 3).index_add_(0, i.int(), z[:3]).sum()',
    'torch.zeros(4, 3).index_add_(0, torch.tensor([9, 0, 0]), z[:3])',
    'torch.zeros(4, 3).index_add_(0, torch.tensor([-1, 0, 0]), z[:3]).sum()',
    'torch.zeros(4, 3).index_add_(0, torch.tensor([-5, 0, 0]), z[:3])',
    'torch.zeros(4, 3).index_add_(0, i, z[:3, :2])',
    'torch.zeros(4, 3).index_add_(0, i, z[:3].double())',
    'torch.zeros(4, 3).index_add_(0, i, z[:3], alpha=True)',
    'torch.zeros(4, 3).long().index_add_(0, i, z[:3].long(), alpha=0.5)',
    "torch.zeros(4, 3).index_add_(0, i, z[:3], alpha='a')",
    'torch.zeros(4, 3).index_add_(0, i, 1.0)',
    'torch.zeros(4, 3).index_add_(dim=0, index=i, source=z[:3]).sum()',
    'torch.zeros(4, 3).index_add(0, i, z[:4])',
    'torch.index_add(torch.zeros(4, 3), 0, i, z[:3]).sum()',
    'torch.zeros(4, 3).index_copy_(0, i, z[:3]).sum()',
    'torch.zeros(4, 3).index_copy_(0, i, z[:2])',
    'torch.zeros(4, 3).index_copy_(0, i.float(), z[:3])',
    'torch.zeros(4, 3).index_copy_(0, torch.tensor([7, 0, 1]), z[:3])',
    'torch.zeros(4, 3).index_copy_(0, i, z[:3].double())',
    'torch.zeros(4, 3).index_fill_(0, i, 2.0).sum()',
    'torch.zeros(4, 3).index_fill_(0, i, torch.tensor([1.0, 2.0]))',
    'torch.zeros(4, 3).index_fill_(0, torch.tensor([5]), 2.0)',
    'torch.zeros(4, 3).scatter_add_(0, i.view(3, 1).expand(3, 3), z[:3]).sum()',
    'torch.zeros(4, 3).scatter_add_(0, i.view(3, 1).expand(3, 3), z[:2])',
    'torch.zeros(4, 3).scatter_add_(0, i.view(3, 1).expand(3, 3).int(), z[:3])',
    'torch.zeros(4, 3).scatter_add_(0, i, z[:3])',
    'torch.zeros(4, 3).scatter_add_(0, i.view(3, 1), z[:3]).sum()',
    'torch.zeros(4, 3).scatter_add_(2, i.view(3, 1), z[:3])',
    'torch.zeros(4, 3).scatter_add_(0, torch.tensor([[4]]), z[:3])',
    'torch.zeros(4, 3).scatter_add_(0, torch.tensor([[-1]]), z[:3])',
    'torch.zeros(4, 3).scatter_add_(0, torch.tensor([[0, 0, 0, 0]]), z[:3])',
    'torch.zeros(4, 3).scatter_add_(0, torch.tensor([[0]]), 1.0)',
    'torch.zeros(4, 3).scatter_add(0, i.view(3, 1).expand(3, 3), z[:3].double())',
    "torch.zeros(4, 3).scatter_(0, i.view(3, 1), 1.0, reduce='mean')",
    "torch.zeros(4, 3).scatter_(0, i.view(3, 1), z[:3], reduce='sum')",
    "torch.zeros(4, 3).scatter_reduce_(0, i.view(3, 1), z[:3], reduce='add')",
    "torch.zeros(4, 3).scatter_reduce_(0, i.view(3, 1), z[:3], 'mean').sum()",
    "torch.zeros(4, 3).scatter_reduce_(0, i.view(3, 1), z[:3], 'amax', include_self=False).sum()",
    'torch.zeros(4, 3).scatter_reduce_(0, i.view(3, 1), z[:3])',
    'torch.zeros(3).lerp_(torch.ones(3), torch.ones(2))',
    'torch.zeros(3).lerp_(torch.ones(3), torch.ones(3).double())',
    'torch.zeros(3).lerp_(torch.ones(3, 1), 0.5)',
    'torch.zeros(3, 1).lerp_(torch.ones(3), 0.5)',
    'torch.zeros(3).lerp_(torch.ones(3).double(), 0.5)',
    "torch.zeros(3).lerp_(torch.ones(3), 'a')",
    'torch.zeros(3).lerp_(2.0, 0.5)',
    'torch.zeros(3).lerp_(torch.ones(3), True).sum()',
    'torch.zeros(3).long().lerp_(torch.ones(3).long(), 0.5)',
    'torch.zeros(3).lerp_(end=torch.ones(3), weight=0.3).sum()',
    'torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor(0.5)).sum()',
    'torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor(0.5).double())',
    'torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor([0.5]).double())',
    'torch.lerp(torch.zeros(3), torch.ones(3).double(), 0.5)',
    'torch.lerp(torch.zeros(3), torch.ones(3), 1)',
    'torch.zeros(3).mul_(torch.ones(3, 3))',
    'torch.zeros(3).add_(torch.ones(3), alpha=0.5j)',
    'torch.zeros(3).add_(torch.ones(3), 0.5)',
    'torch.zeros(3).long().add_(torch.ones(3).long(), alpha=0.5)',
    'torch.zeros(3).copy_(torch.ones(2))',
    'torch.zeros(3).copy_(torch.ones(1)).sum()',
    'torch.zeros(3).copy_([1.0, 2.0, 3.0])',
    'torch.zeros(3, requires_grad=True).data.copy_(torch.ones(3)).sum()',
    'torch.argmin(cb, dim=1, keepdim=True).shape',
    'torch.argmin(cb, 1, True, 3)',
    'torch.argmin(cb.bool(), 1)',
    'torch.argmin(torch.tensor([]))',
    'torch.argmin(torch.tensor([]), 0)',
    'torch.argmin(cb[:0], 1).shape',
    'torch.argmin(cb, dim=None, keepdim=True)',
    'torch.argmin(cb, dim=(0, 1))',
    'torch.argmin(cb, dim=1.0)',
    'torch.min(cb, dim=1, keepdim=True).indices.shape',
    'torch.min(cb[:0], 0)',
    'torch.min(cb[:0], 1).values.shape',
    'torch.min(cb, cb.double()).dtype',
    'torch.min(cb, 1, out=(torch.empty(0), torch.empty(0)))[0].sum()',
    'torch.min(cb, 1, out=(torch.empty(0), torch.empty(0).int()))',
    'torch.topk(cb, 5, dim=1)',
    'torch.topk(cb, -1)',
    'torch.topk(cb, 0).values.shape',
    'torch.topk(cb, 2, dim=3)',
    'torch.topk(cb.bool(), 1)',
    'torch.topk(cb, 2.0)',
    'torch.gather(cb, 1, i)',
    'torch.gather(cb, 1, i.view(3, 1).float())',
    'torch.gather(cb, 1, torch.tensor([[3]]))',
    'torch.gather(cb, 1, torch.tensor([[0, 1, 2, 0]]))',
    'torch.gather(cb, 1, torch.tensor([[0]] * 5))',
    'torch.gather(cb, 1, i.view(3, 1).int()).sum()',
    'torch.gather(cb, 2, i.view(3, 1))',
    'torch.where(b[:, None], cb, 0.0).sum()',
    'torch.where(b[:, None], cb, 0).dtype',
    'torch.where(b[:, None], cb, zd[:4]).dtype',
    'torch.where(b[:, None].int(), cb, cb)',
    'torch.where(b[:, None], cb, torch.tensor(1.0, dtype=torch.float64)).dtype',
    'torch.where(b)',
    'torch.where(b, 1, 0).dtype',
    'torch.where(b, 1.0, 0).dtype',
    'torch.zeros(4, 3).masked_scatter_(b[:, None].expand(4, 3), z).sum()',
    'torch.zeros(4, 3).masked_scatter_(b[:, None], z).sum()',
    'torch.zeros(4, 3).masked_scatter_(b[:, None].expand(4, 3), z[:1])',
    'torch.zeros(4, 3).masked_scatter_(b[:, None].expand(4, 3).int(), z)',
    'torch.zeros(4, 3).masked_scatter_(b[:, None].expand(4, 3), zd)',
    'torch.zeros(4, 3).masked_fill_(b[:, None], torch.tensor([1.0, 2.0]))',
    'torch.zeros(4, 3).masked_fill_(b, 1.0)',
    'torch.zeros(4, 3).masked_fill_(b[:, None].int(), 1.0)',
    'torch.zeros(4, 3).masked_fill_(b[:, None], 1.0 + 2j)',
    'torch.zeros(4, 3).index_put_((i,), torch.ones(3, 3), accumulate=True).sum()',
    'torch.zeros(4, 3).index_put_((i,), torch.ones(2, 3))',
    'torch.zeros(4, 3).index_put_((i.float(),), torch.ones(3, 3))',
    'torch.zeros(4, 3).index_put_([i], torch.ones(3, 3).double())',
    'torch.zeros(4, 3).index_put_((torch.tensor([4]),), torch.ones(3))',
    'torch.zeros(4, 3).index_put_(i, torch.ones(3))',
    'torch.multinomial(torch.ones(4), 5)',
    'torch.multinomial(torch.ones(4), 0).shape',
    'torch.multinomial(torch.tensor([1.0, -1.0]), 1)',
    'torch.multinomial(torch.zeros(4), 1)',
    'torch.multinomial(torch.ones(4).long(), 1)',
    'torch.multinomial(torch.ones(2, 2, 2), 1)',
    "torch.multinomial(torch.tensor([1.0, float('nan')]), 1)",
    'torch.randint(5, (3,), dtype=torch.float32).dtype',
    'torch.randint(0, 0, (3,))',
    'torch.randint(3, 1, (3,))',
    'torch.randint(0, 5, 3)',
    'torch.randint(0, 5)',
    'torch.randint(0, 5.5, (2,)).dtype',
    'torch.randint(-1, 5, (2,), dtype=torch.uint8)',
    'torch.randint(0, 5, (2,), generator=3)',
    'torch.randperm(-1)',
    'torch.randperm(3, dtype=torch.float32).dtype',
    'torch.randperm(300, dtype=torch.uint8)',
    'torch.nonzero(b, as_tuple=True)[0].sum()',
    'torch.nonzero(cb > 5).shape',
    'torch.nonzero(b, as_tuple=1)',
    'torch.argwhere(b).shape',
]  # fmt: skip


def p_sweep(lib, rec):
    from tests.reference._programs import run_calls

    env = {
        "torch": lib, "F": lib.nn.functional, "nn": lib.nn,
        "cb": lib.arange(12.0).view(4, 3), "z": lib.ones(5, 3), "i": lib.tensor([0, 2, 1]),
        "zd": lib.ones(5, 3, dtype=lib.float64), "b": lib.tensor([True, False, True, False]),
    }  # fmt: skip
    lib.manual_seed(300)
    run_calls(SWEEP, env, rec)


def test_argument_errors_match_torch():
    assert_calls_match(p_sweep, torch)


def p_inference_mode(lib, dt, rec):
    """An EMA codebook updated under inference_mode, then used in training: the pitfalls."""
    F = lib.nn.functional
    embed = _codebook(lib, dt, 310, 4, 3)
    x = _clustered(lib, dt, 311, 6, embed).requires_grad_(True)
    with lib.inference_mode():
        new = embed * 0.9
        embed.mul_(0.5)
        rec("flags", str((new.is_inference(), embed.is_inference())))

    def use(e):
        q = F.embedding(_argmin(lib, lib.cdist(x, e), dim=1), e)
        (q * x).sum().backward()
        return x.grad

    rec.err("use_inference", lambda: use(new))
    rec.err("use_updated", lambda: use(embed))
    rec("gx", x.grad)
    rec.err("inplace_outside", lambda: new.clone().add_(1).is_inference())
    rec.err("mm_saved", lambda: lib.matmul(x, new.t()).sum().backward())
    rec.err("sub_ok", lambda: (x[:4] - new).pow(2).sum().backward())
    rec.err("requires_grad", lambda: new.requires_grad_())
    rec.err("parameter", lambda: lib.nn.Parameter(new))
    rec.err("version", lambda: new._version)
    rec.err("cdist", lambda: lib.cdist(x, new).sum().backward())
    rec.err("clone_ok", lambda: use(new.clone()))

    @lib.inference_mode()
    def update():
        return embed + 1

    rec("decorated", str((update().is_inference(), lib.is_inference_mode_enabled())))
    with lib.no_grad():
        n2 = embed * 0.9
    rec("no_grad_ok", str((n2.is_inference(), n2.requires_grad)))


def p_module_buffers(lib, dt, rec):
    """A codebook module's buffers: persistence, dtype casts, state_dict round trips."""
    nn = lib.nn

    class Codebook(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("embed", lib.randn(4, 3))
            self.register_buffer("cluster_size", lib.zeros(4), persistent=False)
            self.register_buffer("initted", lib.tensor(False))
            self.register_buffer("none_buf", None)
            self.proj = nn.Linear(3, 3)

    lib.manual_seed(320)
    m = Codebook().to(dt)
    rec("keys", str(list(m.state_dict().keys())))
    rec("dtypes", str((m.embed.dtype, m.cluster_size.dtype, m.initted.dtype)))
    m.half()
    rec("half", str((m.embed.dtype, m.initted.dtype)))
    m.to(dt)
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    full = {
        "embed": lib.ones(4, 3),
        "initted": lib.tensor(True),
        "proj.weight": lib.ones(3, 3),
        "proj.bias": lib.ones(3),
    }
    rec("load", str(m.load_state_dict(full)))
    rec("loaded", m.embed)
    rec("loaded_dtype", str(m.embed.dtype))
    rec.err("missing", lambda: m.load_state_dict({"embed": lib.ones(4, 3)}))
    rec("nonstrict", str(m.load_state_dict({"embed": lib.ones(4, 3), "x": lib.ones(1)}, False)))
    rec.err("shape", lambda: m.load_state_dict({**full, "embed": lib.ones(5, 3)}))
    rec.err("exists", lambda: m.register_buffer("proj", lib.ones(1)))
    rec.err("dot", lambda: m.register_buffer("a.b", lib.ones(1)))
    rec.err("int", lambda: m.register_buffer("x", 3))
    rec.err("assign_int", lambda: setattr(m, "embed", 5))
    m.embed = lib.zeros(2, 2, dtype=dt)
    rec("reassigned", str((tuple(m.embed.shape), "embed" in m._buffers)))
    m.embed.data = lib.ones(5, 3, dtype=dt)
    rec("data_assigned", m.state_dict()["embed"])
    m.embed = None
    rec("none_keys", str(list(m.state_dict().keys())))
    rec("repr", repr(m))


def p_einops_codebook(lib, dt, rec):
    """vector-quantize-pytorch's EuclideanCodebook written with einops (rearrange, repeat,
    reduce, pack/unpack, einsum) over heads."""
    einops = pytest.importorskip("einops")
    rearrange, repeat, reduce = einops.rearrange, einops.repeat, einops.reduce
    F = lib.nn.functional
    heads, k, d = 2, 5, 3
    embed = _randn(lib, dt, 330, heads, k, d) * 3
    pick = lib.randint(0, k, (heads, 2 * 8), generator=_gen(lib, 331))
    flat0 = embed.gather(1, pick.unsqueeze(-1).expand(-1, -1, d))
    flat0 = flat0 + 0.3 * _randn(lib, dt, 332, heads, 16, d)
    x0 = rearrange(flat0, "h (b n) d -> b n h d", b=2)  # (b, n, heads, d)
    x = x0.clone().requires_grad_(True)
    _, ps = einops.pack([x], "b * d")
    flatten = rearrange(x, "b n h d -> h (b n) d")
    dist = -lib.cdist(flatten, embed, p=2)
    ind = _argmax(lib, dist, dim=-1)
    rec("ind", ind)
    onehot = F.one_hot(ind, k).type(dt)
    quantize = einops.einsum(onehot, embed, "h n c, h c d -> h n d")
    rec("quantize", quantize)

    def batched_embedding(indices, embeds):
        batch, dim = indices.shape[1], embeds.shape[-1]
        indices = repeat(indices, "h b n -> h b n d", d=dim)
        embeds = repeat(embeds, "h c d -> h b c d", b=batch)
        return embeds.gather(2, indices)

    q2 = batched_embedding(rearrange(ind, "h (b n) -> h b n", b=2), embed)
    rec("same", lib.equal(rearrange(q2, "h b n d -> h (b n) d"), quantize))
    cluster_size = reduce(onehot, "h n c -> h c", "sum")
    rec("cluster_size", cluster_size)
    embed_sum = einops.einsum(flatten.detach(), onehot, "h n d, h n c -> h c d")
    rec("embed_sum", embed_sum)
    q = rearrange(quantize, "h (b n) d -> b n h d", b=2)
    st = x + (q - x).detach()
    commit = F.mse_loss(st.detach(), x)
    out = einops.unpack(rearrange(st, "b n h d -> b (n h) d"), ps, "b * d")[0]
    ((out * _randn(lib, dt, 333, 2, 8, heads, d)).sum() + commit).backward()
    rec("gx", x.grad)
    rec("out_shape", str(tuple(out.shape)))
    rec.err("bad_pattern", lambda: rearrange(x, "b n h -> b h n"))


def p_dvae(lib, dt, rec):
    """DALL-E's discrete VAE: a conv encoder's logits over codes at each pixel, gumbel_softmax
    over dim=1, an einsum with the codebook, a KL to the uniform prior by kl_div(log_target)."""
    nn = lib.nn
    F = nn.functional
    k, d = 6, 4
    lib.manual_seed(340)
    enc = nn.Conv2d(1, k, 3, padding=1).to(dt)
    dec = nn.ConvTranspose2d(d, 1, 3, padding=1).to(dt)
    codebook = nn.Embedding(k, d).to(dt)
    x = lib.rand(2, 1, 4, 4, generator=_gen(lib, 341), dtype=dt)
    params = [*enc.parameters(), *dec.parameters(), *codebook.parameters()]
    opt = lib.optim.Adam(params, lr=1e-2)
    for step in range(3):
        opt.zero_grad()
        logits = enc(x) * 3
        lib.manual_seed(342 + step)
        soft = F.gumbel_softmax(logits, tau=0.9, dim=1, hard=False)
        sampled = lib.einsum("b n h w, n d -> b d h w", soft, codebook.weight)
        out = dec(sampled)
        recon = F.mse_loss(out, x)
        log_qy = F.log_softmax(logits, dim=1)
        log_uniform = lib.log(lib.tensor([1.0 / k], dtype=dt))
        kl = F.kl_div(log_uniform, log_qy, None, None, "batchmean", log_target=True)
        loss = recon + 0.1 * kl
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"kl{step}", kl)
        rec(f"soft{step}", soft)
        rec(f"genc{step}", enc.weight.grad)
        rec(f"gcb{step}", codebook.weight.grad)
        opt.step()
    with lib.no_grad():
        logits = enc(x)
        ind = _argmax(lib, logits, dim=1, margin=1e-4)
        oh = F.one_hot(ind, k).permute(0, 3, 1, 2).to(dt)
        oh2 = lib.zeros(2, k, 4, 4, dtype=dt).scatter_(1, ind.unsqueeze(1), 1)
        rec("same_oh", lib.equal(oh, oh2))
        img = dec(lib.einsum("b n h w, n d -> b d h w", oh, codebook.weight))
        rec("img", img)
        rec("ind", ind)
        lp = lib.distributions.Categorical(logits=logits.permute(0, 2, 3, 1)).log_prob(ind)
        rec("log_prob", lp)
    rec.warns("kl_mean", lambda: F.kl_div(log_uniform, log_qy.detach(), reduction="mean"))


def p_balanced(lib, dt, rec):
    """Balanced code assignment (SwAV-style Sinkhorn-Knopp) and a codebook orthogonality
    regulariser (vector-quantize-pytorch's orthogonal_loss_fn)."""
    F = lib.nn.functional
    k, d = 4, 3
    cb = _codebook(lib, dt, 350, k, d)
    z = _clustered(lib, dt, 351, 12, cb, noise=0.4)
    scores = F.normalize(z, dim=1) @ F.normalize(cb, dim=1).t()
    with lib.no_grad():
        q = lib.exp(scores / 0.3).t()
        q /= lib.sum(q)
        kk, b = q.shape
        for _ in range(3):
            q /= lib.sum(q, dim=1, keepdim=True)
            q /= kk
            q /= lib.sum(q, dim=0, keepdim=True)
            q /= b
        q *= b
    rec("q", q.t())
    rec("q_ind", _argmax(lib, q.t(), dim=1, margin=1e-4))
    # log-domain version with logsumexp
    logq = scores.t() / 0.3
    for _ in range(3):
        logq = logq - lib.logsumexp(logq, dim=1, keepdim=True) - lib.log(lib.tensor(float(kk)))
        logq = logq - lib.logsumexp(logq, dim=0, keepdim=True) - lib.log(lib.tensor(float(b)))
    rec("logq", (logq + lib.log(lib.tensor(float(b)))).exp().t())
    # swapped prediction loss with the Sinkhorn targets
    p = lib.log_softmax(scores / 0.1, dim=1)
    rec("swav", -(q.t() * p).sum(dim=1).mean())
    # orthogonal regulariser on the codebook
    w = cb.clone().requires_grad_(True)
    n = F.normalize(w, p=2, dim=-1)
    cosine = lib.einsum("i d, j d -> i j", n, n)
    ortho = (cosine**2).sum() / (k**2) - (1 / k)
    ortho.backward()
    rec("ortho", ortho)
    rec("gortho", w.grad)
    rec("self_dist", lib.cdist(cb, cb))
    rec("min_pair", (lib.cdist(cb, cb) + lib.eye(k, dtype=dt) * 1e9).min())
    # codes expired by low usage are resampled by multinomial over the batch
    usage = F.one_hot(_argmax(lib, scores, dim=1, margin=1e-4), k).sum(0).to(dt)
    probs = lib.ones(12, dtype=dt)
    pick = lib.multinomial(probs, int((usage < 2).sum()), generator=_gen(lib, 352))
    rec("usage", usage)
    rec("pick", pick)
