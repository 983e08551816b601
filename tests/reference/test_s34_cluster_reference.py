"""Session 34 (helper cluster): clustering and mixture-model programs written the way such code
is written in torch, run under torch and minitorch with the same seeds and compared record by
record: Lloyd's k-means (cdist + argmin, centroid updates by scatter_add_ + bincount, index_add_,
one_hot matmuls, einsum, boolean-mask means; empty clusters kept by where, re-seeded, or NaN
and nan_to_num), k-means++ seeding by multinomial with a generator and best-of-restarts,
mini-batch k-means (randperm/randint with a generator, per-centre learning rates), batched
k-means, k-medoids, an elbow curve, single-linkage merging and DBSCAN on an exact grid; cdist in
every compute mode and p (forward and gradients, zero distances in the direct form, batched,
broadcast, non-contiguous), pdist, pairwise_distance, cosine_similarity; Gaussian-mixture EM
with diagonal and full covariances (logsumexp responsibilities, einsum weighted moments,
cholesky with jitter, solve_triangular Mahalanobis terms, log-likelihood monitoring),
MultivariateNormal (covariance, scale_tril, precision; log_prob, entropy, samples, gradients),
MixtureSameFamily fitted by Adam, 1-d EM with Normal densities, logaddexp, a BIC and the
mixture's cdf, torch.cov with fweights/aweights, cholesky_solve /
cholesky_inverse Mahalanobis distances and their gradients; soft k-means with a temperature
(SGD, the temperature's gradient, a straight-through hard assignment, gradcheck and
gradgradcheck); spectral clustering (RBF affinity, normalized and unnormalized Laplacians,
eigh / eigvalsh, sign- and rotation-free records: projectors, row Gram matrices, labels,
eigengap, kNN affinity by topk) and eigvalsh gradients; a VQ-VAE quantizer (cdist codes,
straight-through, commitment loss, Adam, codebook perplexity); silhouette, Davies-Bouldin,
Calinski-Harabasz, Dunn, contingency and purity by hand; deterministic ties on exact data
(argmin, min, stable sort/argsort, topk, kthvalue, unique, mode); reprs of the results; and the
errors users hit (cdist's dimension, p, dtype, batch and mode errors; bincount of negative,
float, 2-d and bool input and of mismatched weights; eigh/eigvalsh/eig of non-square or 1-d
input and a bad UPLO; cholesky of non-PD and non-square input, cholesky_ex infos;
MultivariateNormal's argument and batch errors; multinomial's weight and size errors;
scatter_add/index_add/one_hot/gather index errors; sort's positional `stable`).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- multinomial over more than 2**24 categories sampled; torch raises "number of categories
  cannot exceed 2^24" (after the without-replacement check, before reading any weight).
- MultivariateNormal (covariance_matrix, scale_tril, precision_matrix), Wishart, and
  AffineTransform / PowerTransform's forward_shape / inverse_shape reported a batch mismatch
  with the shape as a tuple ("had (3,)"); torch passes torch.Size to broadcast_shapes, so its
  message reads "had torch.Size([3])".

Known and left (documented):
- CdistBackward0 has no _saved_x1/_saved_x2/_saved_p/_saved_result (a composite node, as the
  other composite nodes, see test_s32_optflow_reference.py).
- cdist's backward is differentiable here (create_graph works); torch raises
  NotImplementedError ("the derivative for '_cdist_backward' is not implemented"). Not recorded.
- linalg.eigvals / eig of a general matrix (the random-walk Laplacian) needs complex tensors,
  which minitorch does not have; the programs use the similar symmetric matrix and eigvalsh.
- torch.sparse_coo_tensor (sparse assignment matrices) does not exist here: no sparse tensors.
- cholesky_inverse of a diagonal matrix prints -0. off the diagonal in torch (LAPACK's potri),
  0. here: only the zero's sign differs.
- A Tensor method given one positional argument too many (x.index_add(0, i, src, 2),
  x.scatter_add(..., 2), x.gather(0, i, False, 1)) raises Python's own TypeError
  ("Tensor.index_add() takes 4 positional arguments but 5 were given"); torch's parser counts
  without self ("index_add() takes 3 positional arguments but 4 were given") or gives its
  invalid-combination message (index_fill, masked_fill). A method-wide matter, not recorded.
- The matrix-product form of cdist (more than 25 rows) gives a rounding-noise distance, and
  gradient, for a point equal to a centroid: those are not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches, seeded_gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "kmeans_lloyd", "kmeans_pp", "kmeans_index_add", "kmeans_empty", "minibatch_kmeans",
    "kmeans_batched", "cdist_modes", "cdist_grad", "gmm_diag", "gmm_full", "gmm_mvn",
    "mixture_family", "soft_kmeans", "soft_kmeans_gradcheck", "spectral", "silhouette",
    "davies_bouldin", "ties", "kmedoids", "elbow", "single_linkage", "dbscan_grid",
    "cdist_errors", "bincount_errors", "eigh_errors", "cholesky_errors", "multinomial_errors",
    "scatter_errors", "logsumexp_resp", "onehot_update", "weighted_cov", "cholesky_solve",
    "eigh_grad", "reprs", "assign_tools", "cdist_mm_grad", "vq_codebook", "gmm_normal_dist",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _blobs(lib, dt, seed, n_per=12, d=2, k=3, spread=0.4):
    """k well-separated Gaussian blobs of n_per points each in d dimensions, and their labels."""
    centers = lib.arange(k * d, dtype=dt).reshape(k, d) * 2.5 - 3.0
    centers = centers * lib.tensor([1.0, -1.0] * (d // 2) + [1.0] * (d % 2), dtype=dt)
    noise = _randn(lib, dt, seed, k, n_per, d) * spread
    x = (centers[:, None, :] + noise).reshape(k * n_per, d)
    y = lib.arange(k).repeat_interleave(n_per)
    return x, y


def _assign(lib, x, c):
    d = lib.cdist(x, c)
    return d.argmin(dim=1), d


def _update(lib, x, labels, c):
    """Centroid update by scatter_add + bincount; empty clusters keep their old centroid."""
    k, d = c.shape
    sums = lib.zeros(k, d, dtype=x.dtype).scatter_add_(0, labels[:, None].expand(-1, d), x)
    counts = lib.bincount(labels, minlength=k)
    new = sums / counts.clamp(min=1)[:, None].to(x.dtype)
    return lib.where((counts > 0)[:, None], new, c), counts


def _lloyd(lib, x, c, iters):
    for _ in range(iters):
        labels, _ = _assign(lib, x, c)
        c, _ = _update(lib, x, labels, c)
    labels, d = _assign(lib, x, c)
    inertia = d.gather(1, labels[:, None]).pow(2).sum()
    return c, labels, inertia


def _kmeans_pp(lib, x, k, gen):
    n = x.shape[0]
    first = lib.randint(0, n, (1,), generator=gen)
    idx = [first]
    c = x[first]
    for _ in range(1, k):
        d2 = lib.cdist(x, c).min(dim=1).values.pow(2)
        nxt = lib.multinomial(d2 / d2.sum(), 1, generator=gen)
        idx.append(nxt)
        c = lib.cat([c, x[nxt]], dim=0)
    return c, lib.cat(idx)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_kmeans_lloyd(lib, dt, rec):
    x, _ = _blobs(lib, dt, 1)
    c0 = x[lib.tensor([0, 1, 2])].clone()
    c, labels, inertia = _lloyd(lib, x, c0, 8)
    rec("centroids", c)
    rec("labels", labels)
    rec("inertia", inertia)
    rec("counts", lib.bincount(labels))
    # the same with the mean of each cluster by boolean masks
    means = lib.stack([x[labels == j].mean(dim=0) for j in range(3)])
    rec("mask_means", means)


def p_kmeans_pp(lib, dt, rec):
    x, _ = _blobs(lib, dt, 2, n_per=10, d=3, k=4)
    gen = seeded_gen(lib, 7)
    c, idx = _kmeans_pp(lib, x, 4, gen)
    rec("idx", idx)
    rec("init", c)
    c, labels, inertia = _lloyd(lib, x, c, 6)
    rec("centroids", c)
    rec("labels", labels)
    rec("inertia", inertia)
    # best of several restarts
    best = None
    for _ in range(3):
        ci, _ = _kmeans_pp(lib, x, 4, gen)
        ci, li, ii = _lloyd(lib, x, ci, 5)
        if best is None or ii < best[2]:
            best = (ci, li, ii)
    rec("best_inertia", best[2])


def p_kmeans_index_add(lib, dt, rec):
    x, _ = _blobs(lib, dt, 3, n_per=8, d=4, k=3)
    c = x[lib.tensor([0, 8, 16])].clone()
    for it in range(5):
        labels = lib.cdist(x, c).argmin(dim=1)
        sums = lib.zeros_like(c).index_add_(0, labels, x)
        counts = lib.zeros(3, dtype=dt).index_add_(0, labels, lib.ones(x.shape[0], dtype=dt))
        c = sums / counts.unsqueeze(1)
        rec(f"c{it}", c)
    rec("counts", counts)
    rec("labels", labels)
    rec("sq_dists", ((x[:, None, :] - c[None]) ** 2).sum(-1))


def p_kmeans_empty(lib, dt, rec):
    x, _ = _blobs(lib, dt, 4, n_per=6, d=2, k=2)
    c = lib.cat([x[:2], lib.tensor([[100.0, 100.0]], dtype=dt)])  # the third never wins
    labels, d = _assign(lib, x, c)
    new, counts = _update(lib, x, labels, c)
    rec("counts", counts)
    rec("new", new)
    # re-seed the empty cluster with the farthest point
    far = d.gather(1, labels[:, None]).squeeze(1).argmax()
    empty = counts == 0
    rec("empty", empty)
    new[empty] = x[far]
    rec("reseeded", new)
    # NaN from an unguarded mean of an empty cluster
    sums = lib.zeros(3, 2, dtype=dt).scatter_add(0, labels[:, None].expand(-1, 2), x)
    rec("nan_means", sums / counts[:, None])
    rec("nan_fixed", lib.nan_to_num(sums / counts[:, None], nan=0.0))


def p_minibatch_kmeans(lib, dt, rec):
    x, _ = _blobs(lib, dt, 5, n_per=20, d=2, k=3)
    gen = seeded_gen(lib, 11)
    c = x[lib.randperm(x.shape[0], generator=gen)[:3]].clone()
    counts = lib.zeros(3, dtype=dt)
    for step in range(6):
        batch = x[lib.randint(0, x.shape[0], (16,), generator=gen)]
        labels = lib.cdist(batch, c).argmin(1)
        for j in range(3):
            m = labels == j
            nj = m.sum()
            if nj > 0:
                counts[j] += nj
                eta = nj / counts[j]
                c[j] = (1 - eta) * c[j] + eta * batch[m].mean(0)
        rec(f"c{step}", c)
    rec("counts", counts)


def p_kmeans_batched(lib, dt, rec):
    x = _randn(lib, dt, 6, 3, 15, 2)
    x = x + lib.tensor([[0.0, 0.0]] * 5 + [[4.0, 4.0]] * 5 + [[-4.0, 4.0]] * 5, dtype=dt)
    c = x[:, [0, 5, 10]].clone()
    for _ in range(4):
        d = lib.cdist(x, c)  # (B, N, K)
        labels = d.argmin(-1)
        onehot = lib.nn.functional.one_hot(labels, 3).to(dt)  # (B, N, K)
        c = lib.einsum("bnk,bnd->bkd", onehot, x) / onehot.sum(1).unsqueeze(-1)
    rec("c", c)
    rec("labels", labels)
    rec("mind", lib.gather(d, 2, labels.unsqueeze(-1)).squeeze(-1))
    rec("topk", d.topk(2, dim=-1, largest=False).values)


def p_cdist_modes(lib, dt, rec):
    a = _randn(lib, dt, 8, 30, 5)
    b = _randn(lib, dt, 9, 27, 5)
    for mode in (
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    ):
        rec(mode, lib.cdist(a, b, compute_mode=mode))
    for p in (0.0, 1.0, 1.5, 3.0, float("inf")):
        rec(f"p{p}", lib.cdist(a[:6], b[:5], p=p))
    rec("batched", lib.cdist(a.reshape(2, 15, 5), b[:14].reshape(2, 7, 5)))
    rec("broadcast", lib.cdist(a.reshape(2, 1, 15, 5), b[:14].reshape(1, 2, 7, 5)))
    rec("pdist", lib.nn.functional.pdist(a[:7]))
    rec("pdist1", lib.nn.functional.pdist(a[:7], p=1))
    rec("pairwise", lib.nn.functional.pairwise_distance(a[:4], b[:4]))
    rec("cos", lib.nn.functional.cosine_similarity(a[:, None], b[None, :6], dim=-1))
    rec("empty", lib.cdist(a[:0], b).shape)
    rec("self_diag", lib.cdist(a[:5], a[:5]).diagonal())


def p_cdist_grad(lib, dt, rec):
    a0 = _randn(lib, dt, 10, 6, 3)
    b0 = _randn(lib, dt, 11, 4, 3)
    w = _randn(lib, dt, 12, 6, 4)
    for p in (1.0, 2.0, 3.0, float("inf")):
        a = a0.clone().requires_grad_(True)
        b = b0.clone().requires_grad_(True)
        (lib.cdist(a, b, p=p) * w).sum().backward()
        rec(f"ga{p}", a.grad)
        rec(f"gb{p}", b.grad)
    # a point equal to a centroid: zero distance, zero gradient
    a = a0.clone().requires_grad_(True)
    b = lib.cat([a0[:1], b0[1:]]).requires_grad_(True)
    (lib.cdist(a, b) * w).sum().backward()
    rec("ga_zero", a.grad)
    rec("gb_zero", b.grad)
    rec("grad_fn", type(lib.cdist(a, b).grad_fn).__name__)


def _gmm_estep(lib, x, pi, mu, var):
    """Diagonal Gaussians: log N(x | mu_k, diag var_k) + log pi_k, responsibilities, loglik."""
    d = x.shape[1]
    diff = x[:, None, :] - mu[None]
    logp = -0.5 * ((diff**2 / var[None]).sum(-1) + var.log().sum(-1) + d * 1.8378770664093453)
    joint = logp + pi.log()
    ll = lib.logsumexp(joint, dim=1)
    return (joint - ll[:, None]).exp(), ll.mean()


def p_gmm_diag(lib, dt, rec):
    x, _ = _blobs(lib, dt, 13, n_per=15, d=2, k=3, spread=0.6)
    n = x.shape[0]
    mu = x[lib.tensor([0, 15, 30])].clone()
    var = lib.ones(3, 2, dtype=dt)
    pi = lib.full((3,), 1.0 / 3, dtype=dt)
    hist = []
    for _ in range(8):
        resp, ll = _gmm_estep(lib, x, pi, mu, var)
        hist.append(ll)
        nk = resp.sum(0) + 1e-10
        mu = resp.t() @ x / nk[:, None]
        var = lib.einsum("nk,nkd->kd", resp, (x[:, None] - mu[None]) ** 2) / nk[:, None] + 1e-6
        pi = nk / n
    rec("resp", resp)
    rec("mu", mu)
    rec("var", var)
    rec("pi", pi)
    rec("ll", lib.stack(hist))
    rec("monotone", bool((lib.stack(hist).diff() >= -1e-6).all()))
    rec("hard", resp.argmax(1))


def p_gmm_full(lib, dt, rec):
    x, _ = _blobs(lib, dt, 14, n_per=12, d=3, k=2, spread=0.7)
    n, d = x.shape
    mu = x[lib.tensor([0, 12])].clone()
    cov = lib.eye(d, dtype=dt).expand(2, d, d).clone()
    pi = lib.tensor([0.5, 0.5], dtype=dt)
    eye = lib.eye(d, dtype=dt)
    for it in range(5):
        L = lib.linalg.cholesky(cov + 1e-6 * eye)
        diff = x[:, None, :] - mu[None]  # (n, k, d)
        z = lib.linalg.solve_triangular(
            L[None].expand(n, -1, -1, -1), diff.unsqueeze(-1), upper=False
        ).squeeze(-1)
        logdet = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        logp = -0.5 * (z.pow(2).sum(-1) + logdet + d * 1.8378770664093453)
        joint = logp + pi.log()
        resp = lib.softmax(joint, dim=1)
        rec(f"ll{it}", lib.logsumexp(joint, 1).sum())
        nk = resp.sum(0)
        mu = lib.einsum("nk,nd->kd", resp, x) / nk[:, None]
        diff = x[:, None, :] - mu[None]
        cov = lib.einsum("nk,nki,nkj->kij", resp, diff, diff) / nk[:, None, None]
        pi = nk / n
    rec("mu", mu)
    rec("cov", cov)
    rec("pi", pi)
    rec("L", L)
    rec("logdet", lib.logdet(cov))
    rec("slogdet", lib.linalg.slogdet(cov).logabsdet)
    rec("cholesky_ex_info", lib.linalg.cholesky_ex(cov).info)


def p_gmm_mvn(lib, dt, rec):
    D = lib.distributions
    x, _ = _blobs(lib, dt, 15, n_per=10, d=2, k=2, spread=0.5)
    mu = lib.tensor([[-3.0, 3.0], [2.0, -5.5]], dtype=dt)
    a = _randn(lib, dt, 16, 2, 2, 2)
    cov = a @ a.transpose(-1, -2) + 0.5 * lib.eye(2, dtype=dt)
    mvn = D.MultivariateNormal(mu, covariance_matrix=cov)
    logp = mvn.log_prob(x[:, None, :])  # (n, k)
    rec("logp", logp)
    rec("scale_tril", mvn.scale_tril)
    rec("precision", mvn.precision_matrix)
    rec("entropy", mvn.entropy())
    rec("batch_shape", str(tuple(mvn.batch_shape)))
    mvn2 = D.MultivariateNormal(mu, scale_tril=lib.linalg.cholesky(cov))
    rec("logp_tril", mvn2.log_prob(x[:, None, :]))
    mvn3 = D.MultivariateNormal(mu, precision_matrix=lib.linalg.inv(cov))
    rec("logp_prec", mvn3.log_prob(x[:, None, :]))
    logw = lib.log(lib.tensor([0.3, 0.7], dtype=dt))
    resp = (logp + logw).log_softmax(dim=1).exp()
    rec("resp", resp)
    lib.manual_seed(3)
    rec("sample", mvn.sample((4,)))
    rec("rsample", mvn2.rsample((2,)))
    # gradient of the mixture log-likelihood wrt the means (direct optimisation)
    m = mu.clone().requires_grad_(True)
    ll = lib.logsumexp(D.MultivariateNormal(m, cov).log_prob(x[:, None]) + logw, 1).mean()
    ll.backward()
    rec("ll", ll)
    rec("grad_mu", m.grad)


def p_mixture_family(lib, dt, rec):
    D = lib.distributions
    logits = lib.tensor([0.2, -0.4, 1.0], dtype=dt)
    loc = lib.tensor([[0.0, 1.0], [3.0, -1.0], [-2.0, 2.0]], dtype=dt)
    scale = lib.tensor([[1.0, 0.5], [0.7, 1.2], [0.4, 0.9]], dtype=dt)
    comp = D.Independent(D.Normal(loc, scale), 1)
    gmm = D.MixtureSameFamily(D.Categorical(logits=logits), comp)
    x = _randn(lib, dt, 17, 7, 2) * 2
    rec("log_prob", gmm.log_prob(x))
    rec("mean", gmm.mean)
    rec("variance", gmm.variance)
    lib.manual_seed(5)
    s = gmm.sample((6,))
    rec("sample", s)
    rec("batch", str((tuple(gmm.batch_shape), tuple(gmm.event_shape))))
    # fit by gradient ascent
    lg = logits.clone().requires_grad_(True)
    lo = loc.clone().requires_grad_(True)
    ls = scale.log().clone().requires_grad_(True)
    opt = lib.optim.Adam([lg, lo, ls], lr=0.05)
    for _ in range(5):
        opt.zero_grad()
        m = D.MixtureSameFamily(D.Categorical(logits=lg), D.Independent(D.Normal(lo, ls.exp()), 1))
        loss = -m.log_prob(x).mean()
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("lo", lo)
    rec("ls", ls)
    rec("lg_grad", lg.grad)


def p_soft_kmeans(lib, dt, rec):
    x, _ = _blobs(lib, dt, 18, n_per=10, d=2, k=3)
    c = (x[lib.tensor([0, 10, 20])] + 0.3).clone().requires_grad_(True)
    opt = lib.optim.SGD([c], lr=0.1, momentum=0.5)
    for temp in (1.0, 0.5, 0.1):
        opt.zero_grad()
        d2 = lib.cdist(x, c).pow(2)
        r = lib.softmax(-d2 / temp, dim=1)
        loss = (r * d2).sum(1).mean()
        loss.backward()
        rec(f"loss{temp}", loss)
        rec(f"grad{temp}", c.grad)
        opt.step()
    rec("c", c)
    # responsibilities as a function of the temperature, and their entropy
    t = lib.tensor(0.7, dtype=dt, requires_grad=True)
    r = lib.softmax(-lib.cdist(x, c.detach()).pow(2) / t, dim=1)
    ent = -(r * lib.log(r.clamp_min(1e-12))).sum(1).mean()
    ent.backward()
    rec("entropy", ent)
    rec("grad_t", t.grad)
    rec("hard", r.argmax(1))
    # straight-through hard assignment
    x2 = x.clone().requires_grad_(True)
    soft = lib.softmax(-lib.cdist(x2, c.detach()), dim=1)
    hard = lib.nn.functional.one_hot(soft.argmax(1), 3).to(dt)
    st = hard - soft.detach() + soft
    (st @ c.detach()).pow(2).sum().backward()
    rec("st_grad", x2.grad)


def p_soft_kmeans_gradcheck(lib, dt, rec):
    x = _randn(lib, lib.float64, 19, 5, 2)
    c = _randn(lib, lib.float64, 20, 3, 2).requires_grad_(True)
    t = lib.tensor(0.8, dtype=lib.float64, requires_grad=True)

    def f(c, t):
        d2 = ((x[:, None] - c[None]) ** 2).sum(-1)
        r = lib.softmax(-d2 / t, dim=1)
        return (r * d2).sum()

    def g(c):
        return lib.cdist(x, c)

    ag = lib.autograd
    rec("gc", ag.gradcheck(f, (c, t)))
    rec("ggc", ag.gradgradcheck(f, (c, t)))
    rec("gc_cdist", ag.gradcheck(g, (c,)))
    rec("gc_lse", ag.gradgradcheck(lambda c: lib.logsumexp(-c * 2, dim=1), (c,)))
    rec("dtype", str(dt).split(".")[-1])


def p_spectral(lib, dt, rec):
    x, _ = _blobs(lib, dt, 21, n_per=8, d=2, k=3, spread=0.3)
    d2 = lib.cdist(x, x).pow(2)
    W = lib.exp(-d2 / (2 * 0.8**2))
    W = W - lib.diag(W.diagonal())
    deg = W.sum(1)
    dinv = deg.rsqrt()
    Lsym = lib.eye(x.shape[0], dtype=dt) - dinv[:, None] * W * dinv[None, :]
    evals, evecs = lib.linalg.eigh(Lsym)
    rec("evals", evals)
    rec("eigvalsh", lib.linalg.eigvalsh(Lsym))
    U = evecs[:, :3]
    rec("projector", U @ U.t())
    rows = lib.nn.functional.normalize(U, dim=1)
    rec("rows_gram", rows @ rows.t())
    c, labels, inertia = _lloyd(lib, rows, rows[lib.tensor([0, 8, 16])].clone(), 5)
    rec("labels", labels)
    rec("inertia", inertia)
    # eigengap heuristic and the unnormalized Laplacian
    gaps = evals[1:6] - evals[:5]
    rec("k_gap", gaps.argmax() + 1)
    L = lib.diag(deg) - W
    rec("L_evals", lib.linalg.eigvalsh(L))
    # random-walk Laplacian D^-1 L: same spectrum as Lsym, via the similar symmetric matrix
    rec("rw_evals", lib.linalg.eigvalsh(dinv[:, None] * L * dinv[None, :]))
    rec("rw_solve", lib.linalg.solve(lib.diag(deg), L).diagonal())
    # mutual kNN affinity by topk
    knn = d2.topk(4, dim=1, largest=False).indices
    A = lib.zeros_like(W).scatter_(1, knn, 1.0)
    rec("knn_sym", ((A + A.t()) > 0).sum())


def _silhouette(lib, x, labels, k):
    d = lib.cdist(x, x)
    onehot = lib.nn.functional.one_hot(labels, k).to(x.dtype)  # (n, k)
    sums = d @ onehot  # (n, k)
    counts = onehot.sum(0)
    own = onehot.bool()
    a = (sums * onehot).sum(1) / (counts[labels] - 1).clamp(min=1)
    mean_other = sums / counts
    b = mean_other.masked_fill(own, float("inf")).min(1).values
    s = (b - a) / lib.maximum(a, b)
    s = lib.where(counts[labels] > 1, s, lib.zeros_like(s))
    return s


def p_silhouette(lib, dt, rec):
    x, y = _blobs(lib, dt, 22, n_per=7, d=3, k=3, spread=0.8)
    s = _silhouette(lib, x, y, 3)
    rec("samples", s)
    rec("score", s.mean())
    # a bad labelling scores lower
    bad = lib.arange(21) % 3
    rec("bad", _silhouette(lib, x, bad, 3).mean())
    # per-cluster means by scatter_reduce and index_reduce
    per = lib.zeros(3, dtype=dt).scatter_reduce(0, y, s, reduce="mean", include_self=False)
    rec("per_cluster", per)
    rec("per_amax", lib.zeros(3, dtype=dt).scatter_reduce(0, y, s, "amax", include_self=False))
    rec("index_reduce", lib.ones(3, dtype=dt).index_reduce(0, y, s, "prod"))
    # a singleton cluster has silhouette 0
    y2 = y.clone()
    y2[0] = 2
    y2[1:7] = 0
    y2[0] = 1
    rec("singleton", _silhouette(lib, x, y2, 3))


def p_davies_bouldin(lib, dt, rec):
    x, y = _blobs(lib, dt, 23, n_per=9, d=2, k=4, spread=0.5)
    k = 4
    cent = lib.stack([x[y == j].mean(0) for j in range(k)])
    scatter = lib.stack([(x[y == j] - cent[j]).norm(dim=1).mean() for j in range(k)])
    M = lib.cdist(cent, cent)
    R = (scatter[:, None] + scatter[None, :]) / M
    R = R.masked_fill(lib.eye(k, dtype=lib.bool), float("-inf"))
    rec("R", R)
    rec("db", R.max(1).values.mean())
    # Calinski-Harabasz
    n = x.shape[0]
    overall = x.mean(0)
    counts = lib.bincount(y).to(dt)
    between = (counts * (cent - overall).pow(2).sum(1)).sum()
    within = (x - cent[y]).pow(2).sum()
    rec("ch", between / within * (n - k) / (k - 1))
    # Dunn index
    d = lib.cdist(x, x)
    same = y[:, None] == y[None, :]
    rec("dunn", d.masked_fill(same, float("inf")).min() / d.masked_fill(~same, 0).max())
    # adjusted-rand-style contingency by bincount of pairs
    pred = (y + 1) % k
    cont = lib.bincount(y * k + pred, minlength=k * k).reshape(k, k)
    rec("contingency", cont)
    rec("purity", cont.max(1).values.sum() / n)


def p_ties(lib, dt, rec):
    # integer points: distances are exact, so ties are real ties (first index wins)
    x = lib.tensor([[0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 1.0], [3.0, 3.0]], dtype=dt)
    c = lib.tensor([[0.0, 0.0], [2.0, 0.0], [0.0, 0.0]], dtype=dt)
    d = lib.cdist(x, c, compute_mode="donot_use_mm_for_euclid_dist")
    rec("d", d)
    rec("argmin", d.argmin(1))
    rec("min", d.min(1))
    rec("min_idx", d.min(1).indices)
    rec.err("sort_pos_stable", lambda: d.sort(1, stable=True))
    rec("sort_stable", d.sort(dim=1, stable=True).indices)
    rec("argsort_stable", d.argsort(dim=1, stable=True))
    rec.err("sort_fn_pos_stable", lambda: lib.sort(d, 1, descending=True, stable=True))
    rec("sort_desc", lib.sort(d, dim=1, descending=True, stable=True).indices)
    rec.err("argsort_pos_stable", lambda: lib.argsort(d, 1, stable=True))
    rec.err("argsort_pos_desc_stable", lambda: d.argsort(1, True, stable=True))
    rec("topk_vals", d.topk(2, 1, largest=False).values)
    rec("argmax", d.argmax(1))
    rec("max_all", d.max())
    rec("argmin_flat", d.argmin())
    rec("unique", lib.unique(d.argmin(1), return_counts=True))
    sq = (x[:, None] - c[None]).pow(2).sum(-1)
    rec("sq_argmin", sq.argmin(1))
    rec("kthvalue", sq.kthvalue(1, dim=1).indices)
    rec("mode", lib.mode(lib.tensor([2, 1, 1, 2, 0])))


def p_kmedoids(lib, dt, rec):
    x, _ = _blobs(lib, dt, 24, n_per=8, d=2, k=3)
    D = lib.cdist(x, x, p=1)
    med = lib.tensor([0, 1, 2])
    for _ in range(4):
        labels = D[:, med].argmin(1)
        new = []
        for j in range(3):
            members = (labels == j).nonzero().squeeze(1)
            cost = D[members][:, members].sum(1)
            new.append(members[cost.argmin()])
        med = lib.stack(new)
    rec("medoids", med)
    rec("labels", labels)
    rec("cost", D[:, med].min(1).values.sum())


def p_elbow(lib, dt, rec):
    x, _ = _blobs(lib, dt, 25, n_per=10, d=2, k=4, spread=0.3)
    gen = seeded_gen(lib, 13)
    inertias = []
    for k in range(1, 6):
        c, _ = _kmeans_pp(lib, x, k, gen)
        _, _, inertia = _lloyd(lib, x, c, 6)
        inertias.append(inertia)
    curve = lib.stack(inertias)
    rec("curve", curve)
    rec("second_diff", curve[:-2] - 2 * curve[1:-1] + curve[2:])


def p_single_linkage(lib, dt, rec):
    x = _rand(lib, dt, 26, 9, 2) * 10
    n = x.shape[0]
    D = lib.cdist(x, x).fill_diagonal_(float("inf"))
    labels = lib.arange(n)
    heights = []
    for _ in range(n - 3):
        i, j = divmod(int(D.argmin()), n)
        heights.append(D[i, j].clone())
        D[i] = lib.minimum(D[i], D[j])
        D[:, i] = D[i]
        D[i, i] = float("inf")
        D[j] = float("inf")
        D[:, j] = float("inf")
        labels[labels == labels[j]] = labels[i]
    rec("heights", lib.stack(heights))
    rec("labels", labels)
    rec("n_clusters", labels.unique().numel())


def p_dbscan_grid(lib, dt, rec):
    # points on an integer grid: the eps comparisons are exact
    pts = [[0, 0], [0, 1], [1, 0], [1, 1], [5, 5], [5, 6], [6, 5], [10, 0], [0, 10], [6, 6]]
    x = lib.tensor(pts, dtype=dt)
    d = lib.cdist(x, x, p=1)
    adj = d <= 1.5
    deg = adj.sum(1)
    core = deg >= 3
    rec("deg", deg)
    rec("core", core)
    labels = lib.full((x.shape[0],), -1)
    cid = 0
    for i in range(x.shape[0]):
        if not core[i] or labels[i] >= 0:
            continue
        frontier = lib.zeros(x.shape[0], dtype=lib.bool)
        frontier[i] = True
        while True:
            grow = (adj[frontier & core].any(0)) | frontier
            if bool((grow == frontier).all()):
                break
            frontier = grow
        labels[frontier & (labels < 0)] = cid
        cid += 1
    rec("labels", labels)
    rec("noise", (labels < 0).nonzero().flatten())


def p_cdist_errors(lib, dt, rec):
    a = _randn(lib, dt, 27, 4, 3)
    b = _randn(lib, dt, 28, 5, 2)
    rec.err("dim", lambda: lib.cdist(a, b))
    rec.err("p_neg", lambda: lib.cdist(a, a, p=-1.0))
    rec.err("1d", lambda: lib.cdist(a[0], a))
    rec.err("int", lambda: lib.cdist(a.long(), a.long()))
    rec.err("mode", lambda: lib.cdist(a, a, compute_mode="fast"))
    rec.err("batch", lambda: lib.cdist(a.expand(2, 4, 3), a.expand(3, 4, 3)))
    rec.err("mixed", lambda: lib.cdist(a, a.float() if dt == lib.float64 else a.double()))
    rec.err("pdist2d", lambda: lib.nn.functional.pdist(a[None]))
    rec.err("pdist_p", lambda: lib.nn.functional.pdist(a, p=-2))
    rec.err("pairwise", lambda: lib.nn.functional.pairwise_distance(a, b))


def p_bincount_errors(lib, dt, rec):
    rec.err("neg", lambda: lib.bincount(lib.tensor([0, -1, 2])))
    rec.err("float", lambda: lib.bincount(lib.tensor([0.0, 1.0], dtype=dt)))
    rec.err("2d", lambda: lib.bincount(lib.tensor([[0, 1]])))
    rec.err("weights", lambda: lib.bincount(lib.tensor([0, 1]), weights=lib.ones(3, dtype=dt)))
    rec.err("minlength", lambda: lib.bincount(lib.tensor([0, 1]), minlength=-1))
    rec("empty", lib.bincount(lib.tensor([], dtype=lib.long)))
    rec("empty_min", lib.bincount(lib.tensor([], dtype=lib.long), minlength=3))
    w = lib.tensor([0.5, 1.5, 2.0], dtype=dt)
    rec("weighted", lib.bincount(lib.tensor([2, 0, 2]), weights=w, minlength=4))
    rec("weighted_f32", lib.bincount(lib.tensor([1, 1]), weights=lib.tensor([1.0, 2.0])))
    rec("int_weights", lib.bincount(lib.tensor([1, 1]), weights=lib.tensor([1, 2])))
    rec("uint8", lib.bincount(lib.tensor([3, 1], dtype=lib.uint8)))
    rec.err("bool", lambda: lib.bincount(lib.tensor([True, False])))
    rec.err("histc_int", lambda: lib.histc(lib.tensor([1, 2]), bins=3))
    rec("histc", lib.histc(lib.tensor([0.1, 0.5, 0.9, 0.5], dtype=dt), bins=4, min=0, max=1))


def p_eigh_errors(lib, dt, rec):
    a = _randn(lib, dt, 29, 3, 4)
    rec.err("eigh_nonsquare", lambda: lib.linalg.eigh(a))
    rec.err("eigh_1d", lambda: lib.linalg.eigh(a[0]))
    rec.err("eigh_uplo", lambda: lib.linalg.eigh(a[:, :3], UPLO="X"))
    rec.err("eigvalsh_nonsquare", lambda: lib.linalg.eigvalsh(a))
    rec.err("eigh_int", lambda: lib.linalg.eigh(lib.eye(3, dtype=lib.long)))
    rec.err("eig_nonsquare", lambda: lib.linalg.eig(a))
    s = a[:, :3] + a[:, :3].t()
    rec("lower", lib.linalg.eigvalsh(s, UPLO="L"))
    rec("upper", lib.linalg.eigvalsh(lib.tril(s), UPLO="U"))
    rec("from_lower", lib.linalg.eigvalsh(lib.tril(s)))
    rec("batched", lib.linalg.eigvalsh(s.expand(2, 3, 3)))
    rec("empty", lib.linalg.eigh(lib.zeros(0, 0, dtype=dt)).eigenvalues.shape)


def p_cholesky_errors(lib, dt, rec):
    a = lib.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dt)
    rec.err("not_pd", lambda: lib.linalg.cholesky(a))
    rec.err("batch_not_pd", lambda: lib.linalg.cholesky(lib.stack([lib.eye(2, dtype=dt), a])))
    rec.err("nonsquare", lambda: lib.linalg.cholesky(lib.ones(2, 3, dtype=dt)))
    rec("ex_info", lib.linalg.cholesky_ex(a).info)
    rec("ex_batch", lib.linalg.cholesky_ex(lib.stack([lib.eye(2, dtype=dt), a, -a])).info)
    # jitter until it works, as GMM code does
    cov = lib.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=dt)
    jitter = 1e-6
    for _ in range(5):
        L, info = lib.linalg.cholesky_ex(cov + jitter * lib.eye(2, dtype=dt))
        if info == 0:
            break
        jitter *= 10
    rec("L", L)
    D = lib.distributions
    rec.err("mvn_cov", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), a))
    rec.err("mvn_none", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt)))
    rec.err("mvn_shape", lambda: D.MultivariateNormal(lib.zeros(3, dtype=dt), lib.eye(2, dtype=dt)))
    rec.err("mvn_0d", lambda: D.MultivariateNormal(lib.zeros((), dtype=dt), lib.eye(2, dtype=dt)))
    rec.err(
        "mvn_two",
        lambda: D.MultivariateNormal(
            lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt), scale_tril=lib.eye(2, dtype=dt)
        ),
    )
    eye = lib.eye(2, dtype=dt)
    loc3 = lib.zeros(3, 2, dtype=dt)
    rec.err("mvn_batch", lambda: D.MultivariateNormal(loc3, eye.expand(2, 2, 2)))
    rec.err(
        "mvn_batch_tril",
        lambda: D.MultivariateNormal(lib.zeros(3, 2, dtype=dt), scale_tril=eye.expand(2, 2, 2)),
    )
    rec.err(
        "mvn_batch_prec",
        lambda: D.MultivariateNormal(
            lib.zeros(3, 2, dtype=dt), precision_matrix=eye.expand(2, 2, 2)
        ),
    )
    rec.err(
        "wishart_batch",
        lambda: D.Wishart(lib.tensor([3.0, 4.0, 5.0], dtype=dt), eye.expand(2, 2, 2)),
    )
    rec.err(
        "affine_shape", lambda: D.AffineTransform(lib.zeros(3, dtype=dt), 1.0).forward_shape((2,))
    )
    rec.err(
        "power_shape", lambda: D.PowerTransform(lib.ones(3, dtype=dt)).inverse_shape(lib.Size([2]))
    )
    m = D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))
    rec.err("logp_shape", lambda: m.log_prob(lib.zeros(3, dtype=dt)))


def p_multinomial_errors(lib, dt, rec):
    g = seeded_gen(lib, 1)
    rec.err("neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1, generator=g))
    rec.err("zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1, generator=g))
    rec.err("too_many", lambda: lib.multinomial(lib.ones(3, dtype=dt), 4, generator=g))
    rec.err("nan", lambda: lib.multinomial(lib.tensor([float("nan"), 1.0], dtype=dt), 1))
    rec.err("inf", lambda: lib.multinomial(lib.tensor([float("inf"), 1.0], dtype=dt), 1))
    rec.err("zero_samples", lambda: lib.multinomial(lib.ones(3, dtype=dt), 0))
    rec.err("3d", lambda: lib.multinomial(lib.ones(1, 2, 3, dtype=dt), 1))
    rec.err("int", lambda: lib.multinomial(lib.ones(3, dtype=lib.long), 1))
    big = lib.ones(1, dtype=dt).expand(2**24 + 1)  # no memory: the check comes first
    rec.err("categories", lambda: lib.multinomial(big, 1))
    rec.err("categories_repl", lambda: lib.multinomial(big[None].expand(2, -1), 3, True))
    rec.err("categories_first", lambda: lib.multinomial(big, 2**24 + 2))
    rec.err("few_nonzero", lambda: lib.multinomial(lib.tensor([0.0, 1.0, 0.0], dtype=dt), 2))
    rec("rows", lib.multinomial(lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=dt), 1, generator=g))
    rec("with_repl", lib.multinomial(lib.tensor([1.0, 3.0], dtype=dt), 8, True, generator=g))
    rec("unnormalized", lib.multinomial(lib.tensor([10.0, 0.0, 5.0], dtype=dt), 2, generator=g))


def p_scatter_errors(lib, dt, rec):
    x = _randn(lib, dt, 30, 5, 2)
    labels = lib.tensor([0, 1, 1, 2, 0])
    z = lib.zeros(3, 2, dtype=dt)
    rec.err("index_dtype", lambda: z.scatter_add(0, labels.int()[:, None].expand(-1, 2), x))
    rec.err("out_of_range", lambda: z.scatter_add(0, (labels + 2)[:, None].expand(-1, 2), x))
    rec.err("dims", lambda: z.scatter_add(0, labels, x))
    rec.err("src_dtype", lambda: z.scatter_add(0, labels[:, None].expand(-1, 2), x.long()))
    rec.err("index_add_oob", lambda: z.index_add(0, labels + 1, x))
    rec.err("index_add_len", lambda: z.index_add(0, labels[:3], x))
    rec.err("index_add_2d", lambda: z.index_add(0, labels[None], x))
    rec.err("index_add_float", lambda: z.index_add(0, labels.to(dt), x))
    rec.err("one_hot_neg", lambda: lib.nn.functional.one_hot(lib.tensor([0, -1]), 3))
    rec.err("one_hot_big", lambda: lib.nn.functional.one_hot(lib.tensor([0, 3]), 3))
    rec.err("one_hot_float", lambda: lib.nn.functional.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("gather", lambda: x.gather(1, lib.tensor([[2], [0], [0], [0], [0]])))
    rec.err("reduce", lambda: z.scatter_reduce(0, labels[:, None].expand(-1, 2), x, "median"))


def p_logsumexp_resp(lib, dt, rec):
    logits = _randn(lib, dt, 31, 6, 4) * 30  # large: the naive way overflows in float32
    rec("lse", lib.logsumexp(logits, 1))
    rec("lse_keep", lib.logsumexp(logits, 1, keepdim=True))
    rec("lse_all", lib.logsumexp(logits, (0, 1)))
    rec("resp", (logits - lib.logsumexp(logits, 1, keepdim=True)).exp())
    rec("softmax", lib.softmax(logits, 1))
    rec("naive", lib.log(lib.exp(logits).sum(1)))
    inf = logits.clone()
    inf[0] = float("-inf")
    inf[1, 0] = float("inf")
    rec("lse_inf", lib.logsumexp(inf, 1))
    lg = logits.clone().requires_grad_(True)
    lib.logsumexp(lg, 1).sum().backward()
    rec("grad", lg.grad)
    li = inf.clone().requires_grad_(True)
    lib.logsumexp(li, 1).sum().backward()
    rec("grad_inf", li.grad)
    rec("lse_int", lib.logsumexp(lib.tensor([[1, 2], [3, 4]]), 1))
    rec("lse_empty", lib.logsumexp(lib.zeros(2, 0, dtype=dt), 1))
    rec("log_softmax", lib.log_softmax(logits, 1))
    rec("special_lse", lib.special.logsumexp(logits, 0))


def p_onehot_update(lib, dt, rec):
    x, _ = _blobs(lib, dt, 32, n_per=6, d=3, k=3)
    c = x[lib.tensor([0, 6, 12])].clone()
    labels = lib.cdist(x, c).argmin(1)
    M = lib.nn.functional.one_hot(labels, 3).t().to(dt)
    rec("via_mm", (M @ x) / M.sum(1, keepdim=True))
    rec("via_mm_normalized", lib.nn.functional.normalize(M, p=1, dim=1) @ x)
    rec(
        "segment",
        lib.stack(
            [t.mean(0) for t in x[labels.argsort(stable=True)].split(lib.bincount(labels).tolist())]
        ),
    )
    # EMA codebook update (VQ-VAE style)
    ema_n = lib.ones(3, dtype=dt)
    ema_w = c.clone()
    for _ in range(3):
        labels = lib.cdist(x, ema_w / ema_n[:, None]).argmin(1)
        oh = lib.nn.functional.one_hot(labels, 3).to(dt)
        ema_n.mul_(0.9).add_(oh.sum(0), alpha=0.1)
        ema_w.mul_(0.9).add_(oh.t() @ x, alpha=0.1)
        n = ema_n.sum()
        ema_n = (ema_n + 1e-5) / (n + 3e-5) * n
    rec("codebook", ema_w / ema_n[:, None])


def p_weighted_cov(lib, dt, rec):
    x, _ = _blobs(lib, dt, 33, n_per=8, d=3, k=2, spread=0.6)
    resp = lib.softmax(_randn(lib, dt, 34, 16, 2), dim=1)
    for k in range(2):
        rec(f"cov_aw{k}", lib.cov(x.t(), aweights=resp[:, k]))
        rec(f"cov_aw_c0{k}", lib.cov(x.t(), correction=0, aweights=resp[:, k]))
    fw = lib.tensor([1, 2, 0, 3] * 4)
    rec("cov_fw", lib.cov(x.t(), fweights=fw))
    rec("cov_both", lib.cov(x.t(), fweights=fw, aweights=resp[:, 0]))
    rec("cov", lib.cov(x.t()))
    rec("corrcoef", lib.corrcoef(x.t()))
    rec("cov_1d", lib.cov(x[:, 0]))
    xr = x.clone().requires_grad_(True)
    lib.cov(xr.t(), aweights=resp[:, 1]).trace().backward()
    rec("cov_grad", xr.grad)
    rec.err("fw_float", lambda: lib.cov(x.t(), fweights=resp[:, 0]))
    rec.err("fw_neg", lambda: lib.cov(x.t(), fweights=-fw))
    rec.err("aw_neg", lambda: lib.cov(x.t(), aweights=-resp[:, 0]))
    rec.err("aw_len", lambda: lib.cov(x.t(), aweights=resp[:5, 0]))
    rec.err("aw_2d", lambda: lib.cov(x.t(), aweights=resp))
    rec.err("cov_3d", lambda: lib.cov(x[None]))
    rec.err("aw_int", lambda: lib.cov(x.t(), aweights=fw))
    rec("cov_one_obs", lib.cov(x[:1].t()))


def p_cholesky_solve(lib, dt, rec):
    a = _randn(lib, dt, 35, 2, 3, 3)
    cov = a @ a.mT + lib.eye(3, dtype=dt)
    x = _randn(lib, dt, 36, 5, 3)
    L = lib.linalg.cholesky(cov)
    U = lib.linalg.cholesky(cov, upper=True)
    rec("U", U)
    diff = x[None] - lib.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, -1.0]], dtype=dt)[:, None]
    sol = lib.cholesky_solve(diff.mT, L)
    rec("maha_solve", (diff.mT * sol).sum(-2))
    z = lib.linalg.solve_triangular(L, diff.mT, upper=False)
    rec("maha_tri", z.pow(2).sum(-2))
    rec("maha_inv", lib.einsum("kni,kij,knj->kn", diff, lib.cholesky_inverse(L), diff))
    rec("chol_inv_upper", lib.cholesky_inverse(U, upper=True))
    rec("solve_upper", lib.cholesky_solve(diff.mT, U, upper=True))
    Lr = L.clone().requires_grad_(True)
    lib.cholesky_solve(diff.mT, Lr).sum().backward()
    rec("grad_L", Lr.grad)
    cr = cov.clone().requires_grad_(True)
    lib.linalg.cholesky(cr).diagonal(dim1=-2, dim2=-1).log().sum().backward()
    rec("grad_cov", cr.grad)
    rec("inv_ex", lib.linalg.inv_ex(cov).info)
    rec.err("solve_shape", lambda: lib.cholesky_solve(x, L))


def p_eigh_grad(lib, dt, rec):
    a = _randn(lib, dt, 37, 5, 5)
    s0 = a + a.t()
    s = s0.clone().requires_grad_(True)
    lib.linalg.eigvalsh(s)[:2].sum().backward()
    rec("grad_evals", s.grad)
    s = s0.clone().requires_grad_(True)
    ev, U = lib.linalg.eigh(s)
    P = U[:, :2] @ U[:, :2].t()  # invariant to the eigenvectors' signs
    w = _randn(lib, dt, 38, 5, 5)
    ((P * w).sum() + ev.sum()).backward()
    rec("grad_proj", s.grad)
    # the spectral-clustering objective trace(U^T L U) through the affinity
    x = _randn(lib, dt, 39, 6, 2).requires_grad_(True)
    W = lib.exp(-lib.cdist(x, x).pow(2))
    Lap = lib.diag(W.sum(1)) - W
    lib.linalg.eigvalsh(Lap)[1:3].sum().backward()
    rec("grad_x", x.grad)


def p_reprs(lib, dt, rec):
    D = lib.distributions
    x = lib.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=dt)
    rec("cdist", repr(lib.cdist(x, x)))
    rec("bincount", repr(lib.bincount(lib.tensor([0, 2, 2]))))
    rec("eigh", repr(lib.linalg.eigh(lib.eye(2, dtype=dt))))
    rec("min", repr(lib.cdist(x, x).min(1)))
    rec("mvn", repr(D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))))
    tril = D.MultivariateNormal(lib.zeros(2, dtype=dt), scale_tril=lib.eye(2, dtype=dt))
    rec("mvn_tril", repr(tril))
    rec(
        "msf",
        repr(
            D.MixtureSameFamily(
                D.Categorical(probs=lib.ones(2, dtype=dt) / 2),
                D.Normal(lib.zeros(2, dtype=dt), lib.ones(2, dtype=dt)),
            )
        ),
    )
    rec("cat", repr(D.Categorical(logits=lib.zeros(3, dtype=dt))))
    rec("chol_ex", repr(lib.linalg.cholesky_ex(lib.eye(2, dtype=dt))))
    rec("unique", repr(lib.unique(lib.tensor([2, 0, 2]), return_inverse=True, return_counts=True)))
    rec("cdist_grad_fn", repr(lib.cdist(x.requires_grad_(), x).grad_fn)[:22])


def p_assign_tools(lib, dt, rec):
    x, _ = _blobs(lib, dt, 40, n_per=5, d=2, k=3)
    c = x[lib.tensor([0, 5, 10])]
    d = lib.cdist(x, c)
    labels = d.argmin(1)
    vals, inv, counts = lib.unique(labels, return_inverse=True, return_counts=True)
    rec("vals", vals)
    rec("inv", inv)
    rec("counts", counts)
    rec("uc", lib.unique_consecutive(labels, return_counts=True))
    order = labels.argsort(stable=True)
    rec("order", order)
    rec("searchsorted", lib.searchsorted(labels[order], lib.arange(4)))
    rec("bucketize", lib.bucketize(x[:, 0], lib.tensor([-2.0, 0.0, 2.0], dtype=dt)))
    rec("hist", lib.histogram(x[:, 0], bins=4).hist)
    rec("histogramdd", lib.histogramdd(x, bins=[2, 3]).hist)
    rec("mode", lib.mode(labels).values)
    rec("median_idx", x[:, 1].median(0).values)
    rec("kth", d.kthvalue(2, dim=1).values)
    rec("nearest_pt", d.argmin(0))
    rec("gumbel", lib.nn.functional.gumbel_softmax(-d, tau=0.5, hard=True).shape)
    rec("count_nonzero", lib.count_nonzero(d < 1.0, dim=0))
    rec(
        "scatter_mean_self",
        lib.ones(3, 2, dtype=dt).scatter_reduce(
            0, labels[:, None].expand(-1, 2), x, "mean", include_self=True
        ),
    )
    rec("index_add_alpha", lib.zeros(3, 2, dtype=dt).index_add(0, labels, x, alpha=0.5))
    rec.err("index_add_neg", lambda: lib.zeros(3, 2, dtype=dt).index_add(0, labels - 3, x))
    rec("bincount_w", lib.bincount(labels, weights=x[:, 0]))
    rec("bincount_w_dtype", str(lib.bincount(labels, weights=x[:, 0]).dtype))
    rec("bincount_w32", str(lib.bincount(labels, weights=x[:, 0].float()).dtype))


def p_cdist_mm_grad(lib, dt, rec):
    x = _randn(lib, dt, 41, 30, 4)
    c0 = lib.cat([x[:3], _randn(lib, dt, 42, 2, 4)])  # three centroids on data points
    w = _randn(lib, dt, 43, 30, 5)
    # the matrix-product form's distance of a point to itself is rounding noise (sqrt of a
    # tiny difference), and so is its gradient there: that form gets centroids off the data
    c_off = _randn(lib, dt, 44, 5, 4)
    for mode in ("use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"):
        xr = x.clone().requires_grad_(True)
        c = (c0 if mode.startswith("donot") else c_off).clone().requires_grad_(True)
        d = lib.cdist(xr, c, compute_mode=mode)
        (d * w).sum().backward()
        rec(mode + ".d", d)
        rec(mode + ".gx", xr.grad)
        rec(mode + ".gc", c.grad)
        rec(mode + ".fn", type(d.grad_fn).__name__)
    # non-contiguous and expanded inputs
    xt = x.t().contiguous().t()
    rec("noncontig", lib.cdist(xt[::2], c0.expand(2, 5, 4)))
    rec("expanded", lib.cdist(x[:1].expand(3, 4), c0))
    rec("no_grad_fn", lib.cdist(x, c0).requires_grad)
    with lib.no_grad():
        rec("no_grad", lib.cdist(x.requires_grad_(True), c0).requires_grad)


def p_vq_codebook(lib, dt, rec):
    """A VQ-VAE quantizer: nearest code by cdist, straight-through gradients, commitment loss."""
    nn = lib.nn
    lib.manual_seed(0)
    enc = nn.Linear(3, 2).to(dt)
    codebook = nn.Embedding(4, 2).to(dt)
    opt = lib.optim.Adam([*enc.parameters(), *codebook.parameters()], lr=0.02)
    x = _randn(lib, dt, 45, 10, 3)
    for step in range(4):
        opt.zero_grad()
        z = enc(x)
        idx = lib.cdist(z, codebook.weight).argmin(1)
        q = codebook(idx)
        commit = nn.functional.mse_loss(z, q.detach())
        embed = nn.functional.mse_loss(q, z.detach())
        zq = z + (q - z).detach()
        loss = zq.pow(2).mean() + embed + 0.25 * commit
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"idx{step}", idx)
        opt.step()
    rec.params("p", enc, grads=True)
    rec("codebook", codebook.weight)
    usage = lib.bincount(idx, minlength=4).to(dt) / idx.numel()
    rec("perplexity", lib.exp(-(usage * lib.log(usage + 1e-10)).sum()))


def p_gmm_normal_dist(lib, dt, rec):
    """EM with torch.distributions.Normal for the component densities, 1-d data."""
    D = lib.distributions
    x = lib.cat([_randn(lib, dt, 46, 20) - 2.0, _randn(lib, dt, 47, 15) * 0.5 + 1.5])
    mu = lib.tensor([-1.0, 1.0], dtype=dt)
    sd = lib.tensor([1.0, 1.0], dtype=dt)
    logw = lib.log(lib.tensor([0.5, 0.5], dtype=dt))
    lls = []
    for _ in range(6):
        logp = D.Normal(mu, sd).log_prob(x[:, None]) + logw
        lls.append(lib.logsumexp(logp, 1).sum())
        r = lib.softmax(logp, 1)
        nk = r.sum(0)
        mu = (r * x[:, None]).sum(0) / nk
        sd = ((r * (x[:, None] - mu) ** 2).sum(0) / nk).sqrt()
        logw = (nk / x.numel()).log()
    rec("ll", lib.stack(lls))
    rec("mu", mu)
    rec("sd", sd)
    rec("w", logw.exp())
    rec("logaddexp", lib.logaddexp(logp[:, 0], logp[:, 1]))
    rec("bic", -2 * lls[-1] + 5 * lib.log(lib.tensor(float(x.numel()), dtype=dt)))
    mix = D.MixtureSameFamily(D.Categorical(logits=logw), D.Normal(mu, sd))
    rec("mix_ll", mix.log_prob(x).sum())
    rec("cdf", mix.cdf(lib.tensor([-2.0, 0.0, 1.5], dtype=dt)))
