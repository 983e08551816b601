"""Session 32 (helper anomaly): anomaly and novelty detection programs written the way such code
is written in torch, run under torch and minitorch with the same seeds and compared record by
record: dense, denoising (Dropout, BatchNorm1d, DataLoader), convolutional (Conv2d encoders,
ConvTranspose2d decoders with output_padding/output_size) and LSTM autoencoders scored by
per-sample reconstruction errors (mse/l1/smooth_l1/huber/bce with reduction='none', then means
over dims); thresholds by quantile/nanquantile (every interpolation, tensor q, dims) and
kthvalue/topk; Deep SVDD (center under no_grad, bias-free layers, eps-clamped center, a
registered buffer, soft-boundary radius by quantile, saving and reloading); VAE scores (KL terms,
Independent Normal log_prob, IWAE logsumexp); Mahalanobis distances through cov/corrcoef
(aweights, fweights), inv, pinv (hermitian, rtol), solve, cholesky/cholesky_ex,
solve_triangular (left/right, unitriangular), cholesky_solve/inverse, slogdet/logdet,
MultivariateNormal (covariance, precision, scale_tril), LowRankMultivariateNormal and their
gradients; GMM scores by EM and MixtureSameFamily, KDE; kNN and LOF scores by cdist (p=1, 2,
inf, 0, mm mode, batched), topk, gather, PatchCore-style memory banks, cosine similarity;
isolation-style random projections, HBOS histograms (histc, histogram, histogramdd, bucketize,
searchsorted, bincount); one-class losses (softplus, logsigmoid, BCE with logits and
pos_weight, OC-SVM hinge with random Fourier features, margin losses); ROC AUC and average
precision by sort/argsort/cumsum/trapezoid/cumulative_trapezoid/cummax, Mann-Whitney ranks,
F1/F-beta/MCC at thresholds, confusion matrices; time-series scores by Tensor.unfold,
as_strided, F.unfold/fold, conv1d smoothing and TCNs, avg/max pooling, seasonal decomposition,
gradient/diff, LBFGS forecasters, EWMA and CUSUM; early stopping on a validation AUC
(ReduceLROnPlateau, CosineAnnealingLR, best state_dict and deepcopy); NaN scores, reprs, half
precision, and the errors users hit (linalg on singular or non-PD matrices, wrong shapes and
dtypes, argument slips). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
texts exactly.

Found and fixed (see tests/test_s32_anomaly.py):
- MultivariateNormal with a covariance or precision matrix that is not square fails torch's
  PositiveDefinite constraint (ValueError), or linalg.cholesky's error without validation (was a
  RuntimeError of minitorch's own).
- trapezoid/trapz/cumulative_trapezoid take dx as a 0-d tensor without grad (torch's Number);
  a complex dx is refused in torch's words; the invalid-combination error shows x= when x was a
  keyword.
- linalg.cholesky/cholesky_ex refuse a non-bool upper or check_errors (torch's TypeError).
- linalg.solve_triangular(A, B, False) raises torch's "takes from 3 to 2 positional arguments".
- cdist and pdist refuse a NaN p as torch does (was a NaN result).
- linalg.slogdet's sign is 0 where logabsdet is NaN, and slogdet/det of a NaN matrix no longer
  leak NumPy's "invalid value encountered" warning.
- huber_loss/smooth_l1_loss with a 0-d tensor delta/beta (was an internal TypeError);
  nn.functional's float/Number argument checks refuse a tensor that requires grad (margin
  losses, cosine_similarity eps, pad value...), pairwise_distance's eps, triplet_margin_loss's
  margin, dropout's p and histc's min/max refuse a one-element tensor, as torch's parser does.

Known and left (documented):
- torch.fft is absent from minitorch, so spectral-residual scores are not recorded.
- float32 sums and BLAS results differ in the last bits (summation order); a Linear bias
  before BatchNorm gets a gradient of rounding noise that RMSprop amplifies, so the denoising
  program's Linear has no bias, as such models are written.
- A wrong-typed keyword in sort(s, stable=True, dim=0, descending=1) is listed in another order
  than torch's (torch's parser keeps keywords in a hash map); nn.LSTM given a 1-tuple hx raises
  an IndexError with minitorch's message (torch's is "tuple index out of range").
- F.normalize with a tensor p names vector_norm's 'ord' without torch's "(position 2)";
  linalg.pinv with an atol that requires grad is not refused; trapezoid() with no arguments
  raises Python's missing-argument TypeError.
"""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "dense_ae", "conv_ae", "threshold_quantile", "deep_svdd", "vae_score", "mahalanobis",
    "mahalanobis_cholesky", "knn_score", "random_projection", "one_class_softplus", "roc_auc",
    "average_precision", "f1_thresholds", "unfold_windows", "conv1d_score", "early_stopping",
    "linalg_errors", "quantile_errors", "loss_reduction_errors", "cdist_errors",
    "conv_transpose_shapes", "svdd_radius", "ae_denoise", "lstm_ae", "gmm_score",
    "pinv_singular", "kthvalue_threshold", "trapz_variants", "ensemble_scores", "ocsvm_hinge",
    "seasonal_decomp", "mvn_forms", "batched_linalg_errors", "linalg_grads", "knn_batched",
    "histograms", "repr_scores", "nan_scores", "windows_as_strided", "ts_forecast_residual",
    "early_stop_deepcopy", "contrastive_anomaly", "user_slips", "scoring_misuse",
    "svdd_module_state", "tensor_hyperparams",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _data(lib, dt, n=64, d=6, seed=0, outliers=6):
    g = lib.Generator().manual_seed(seed)
    x = lib.randn(n, d, generator=g, dtype=dt)
    x[:outliers] = x[:outliers] * 4 + 3
    y = lib.zeros(n, dtype=lib.long)
    y[:outliers] = 1
    return x, y


def _roc_auc(lib, scores, labels):
    order = lib.argsort(scores, descending=True, stable=True)
    y = labels[order].to(scores.dtype)
    tps = lib.cumsum(y, 0)
    fps = lib.cumsum(1 - y, 0)
    tpr = lib.cat([lib.zeros(1, dtype=scores.dtype), tps / tps[-1]])
    fpr = lib.cat([lib.zeros(1, dtype=scores.dtype), fps / fps[-1]])
    return lib.trapezoid(tpr, fpr), tpr, fpr


def _mlp_ae(lib, d, h=4, z=2):
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(d, h), nn.ReLU(), nn.Linear(h, z), nn.Linear(z, h), nn.Tanh(), nn.Linear(h, d)
    )


# --- the programs: each takes the library, a dtype and a recorder ---


def p_dense_ae(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(0)
    x, y = _data(lib, dt)
    model = _mlp_ae(lib, 6).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    normal = x[y == 0]
    for _ in range(15):
        opt.zero_grad()
        loss = F.mse_loss(model(normal), normal)
        loss.backward()
        opt.step()
    rec("loss", loss)
    model.eval()
    with lib.no_grad():
        err = F.mse_loss(model(x), x, reduction="none")
        rec("err_shape", str(err.shape))
        score = err.mean(dim=1)
    rec("score", score)
    rec("score_rg", score.requires_grad)
    auc, _, _ = _roc_auc(lib, score, y)
    rec("auc", auc)
    l1 = F.l1_loss(model(x), x, reduction="none").sum(-1)
    rec("l1", l1)
    rec("l1_gradfn", type(l1.grad_fn).__name__)
    rec("smooth", F.smooth_l1_loss(model(x), x, reduction="none", beta=0.5).mean(1))
    rec("huber", F.huber_loss(model(x), x, reduction="none", delta=0.5).mean(1))


def p_conv_ae(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)
    enc = nn.Sequential(
        nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
        nn.Conv2d(4, 8, 3, stride=2, padding=1), nn.ReLU(),
    ).to(dt)  # fmt: skip
    dec = nn.Sequential(
        nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
        nn.ConvTranspose2d(4, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid(),
    ).to(dt)  # fmt: skip
    x = lib.rand(5, 1, 12, 12, dtype=dt)
    z = enc(x)
    rec("z_shape", str(z.shape))
    out = dec(z)
    rec("out_shape", str(tuple(out.shape)))
    err = F.mse_loss(out, x, reduction="none").mean(dim=(1, 2, 3))
    rec("err", err)
    err.sum().backward()
    rec("g_dec0", dec[0].weight.grad)
    rec("g_enc0", enc[0].weight.grad)
    rec("g_dec2b", dec[2].bias.grad)
    bce = F.binary_cross_entropy(out, x, reduction="none").flatten(1).mean(1)
    rec("bce", bce)
    # output_size instead of output_padding
    ct = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1).to(dt)
    rec("os", str(ct(z, output_size=[6, 6]).shape))
    rec("os_bad", lambda: None) if False else None
    rec.err("os_err", lambda: ct(z, output_size=[9, 9]))
    rec("pixel_map", F.mse_loss(out, x, reduction="none").squeeze(1).amax(dim=(-1, -2)))


def p_threshold_quantile(lib, dt, rec):
    g = lib.Generator().manual_seed(3)
    scores = lib.rand(200, generator=g, dtype=dt) ** 2
    for q in (0.9, 0.95, 0.99):
        rec(f"q{q}", lib.quantile(scores, q))
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        rec("i_" + interp, lib.quantile(scores, 0.95, interpolation=interp))
    qs = lib.tensor([0.5, 0.9, 0.99], dtype=dt)
    rec("qs", lib.quantile(scores, qs))
    m = scores.view(20, 10)
    rec("dim", lib.quantile(m, 0.9, dim=1))
    rec("dim_keep", lib.quantile(m, qs, dim=0, keepdim=True))
    t = lib.quantile(scores, 0.95)
    pred = (scores > t).long()
    rec("n_flag", pred.sum())
    rec("frac", pred.float().mean())
    s2 = scores.clone()
    s2[5] = float("nan")
    rec("nan_q", lib.quantile(s2, 0.5))
    rec("nanq", lib.nanquantile(s2, 0.5))
    rec("nanq_dim", lib.nanquantile(s2.view(20, 10), 0.5, dim=1))
    rec("kth", lib.kthvalue(scores, 190).values)
    rec("tensor_q", scores.quantile(0.75))


def p_deep_svdd(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(2)
    x, y = _data(lib, dt, n=48, d=5, seed=2)
    net = nn.Sequential(
        nn.Linear(5, 8, bias=False), nn.LeakyReLU(0.1), nn.Linear(8, 3, bias=False)
    ).to(dt)
    with lib.no_grad():
        c = net(x[y == 0]).mean(0)
        eps = 0.1
        c[(c.abs() < eps) & (c < 0)] = -eps
        c[(c.abs() < eps) & (c >= 0)] = eps
    rec("c", c)
    rec("c_rg", c.requires_grad)
    opt = lib.optim.Adam(net.parameters(), lr=1e-2, weight_decay=1e-6)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[5], gamma=0.1)
    for _ in range(8):
        opt.zero_grad()
        dist = lib.sum((net(x[y == 0]) - c) ** 2, dim=1)
        loss = lib.mean(dist)
        loss.backward()
        opt.step()
        sched.step()
    rec("loss", loss)
    rec("lr", opt.param_groups[0]["lr"])
    with lib.no_grad():
        scores = ((net(x) - c) ** 2).sum(1)
    rec("scores", scores)
    rec("auc", _roc_auc(lib, scores, y)[0])
    rec("bias", str([n for n, _ in net.named_parameters()]))


def p_vae_score(lib, dt, rec):
    nn, F, D = lib.nn, lib.nn.functional, lib.distributions
    lib.manual_seed(4)
    x, y = _data(lib, dt, n=32, d=6, seed=4)

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(6, 8)
            self.mu = nn.Linear(8, 2)
            self.logvar = nn.Linear(8, 2)
            self.dec = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 6))

        def forward(self, x):
            h = F.relu(self.enc(x))
            mu, logvar = self.mu(h), self.logvar(h)
            std = lib.exp(0.5 * logvar)
            z = mu + std * lib.randn_like(std)
            return self.dec(z), mu, logvar

    vae = VAE().to(dt)
    opt = lib.optim.Adam(vae.parameters(), lr=5e-3)
    for _ in range(6):
        opt.zero_grad()
        recon, mu, logvar = vae(x)
        rl = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
        kl = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.shape[0]
        (rl + kl).backward()
        opt.step()
    rec("rl", rl)
    rec("kl", kl)
    vae.eval()
    with lib.no_grad():
        h = F.relu(vae.enc(x))
        mu, logvar = vae.mu(h), vae.logvar(h)
        q = D.Normal(mu, (0.5 * logvar).exp())
        p = D.Normal(lib.zeros_like(mu), lib.ones_like(mu))
        kl_d = D.kl_divergence(q, p).sum(-1)
        rec("kl_d", kl_d)
        z = q.rsample((4,))
        rec("z_shape", str(z.shape))
        px = D.Independent(D.Normal(vae.dec(z), 1.0), 1)
        lp = px.log_prob(x)
        rec("lp_shape", str(lp.shape))
        rec("score", -lp.mean(0))
        iw = lib.logsumexp(lp + p.log_prob(z).sum(-1) - q.log_prob(z).sum(-1), 0) - math.log(4)
        rec("iwae", iw)
        rec("auc", _roc_auc(lib, -iw, y)[0])


def p_mahalanobis(lib, dt, rec):
    x, y = _data(lib, dt, n=80, d=4, seed=5)
    normal = x[y == 0]
    mu = normal.mean(0)
    cov = lib.cov(normal.T)
    rec("cov", cov)
    rec("cov_np", lib.cov(normal.T, correction=0))
    rec("corr", lib.corrcoef(normal.T))
    prec = lib.linalg.inv(cov)
    diff = x - mu
    m2 = lib.einsum("nd,de,ne->n", diff, prec, diff)
    rec("m2", m2)
    m2b = ((diff @ prec) * diff).sum(-1)
    rec("m2b", m2b)
    rec("m", m2.sqrt())
    prec2 = lib.linalg.pinv(cov, hermitian=True)
    rec("pinv_gap", (prec2 - prec).abs().max() < 1e-3)
    sol = lib.linalg.solve(cov, diff.T).T
    rec("solve", (diff * sol).sum(1))
    sign, logdet = lib.linalg.slogdet(cov)
    rec("slogdet", lib.stack([sign, logdet]))
    rec("logdet", lib.logdet(cov))
    d = x.shape[1]
    ll = -0.5 * (m2 + logdet + d * math.log(2 * math.pi))
    rec("ll", ll)
    mvn = lib.distributions.MultivariateNormal(mu, covariance_matrix=cov)
    rec("mvn_lp", mvn.log_prob(x))
    rec("chi2_thresh", (m2 > lib.quantile(m2[y == 0], 0.975)).sum())
    w = lib.rand(normal.shape[0], dtype=dt, generator=lib.Generator().manual_seed(1))
    rec("wcov", lib.cov(normal.T, aweights=w))
    rec("fcov", lib.cov(normal.T, fweights=lib.arange(normal.shape[0]) % 3 + 1))


def p_mahalanobis_cholesky(lib, dt, rec):
    x, y = _data(lib, dt, n=60, d=5, seed=6)
    normal = x[y == 0]
    mu = normal.mean(0, keepdim=True)
    c = normal - mu
    cov = c.T @ c / (normal.shape[0] - 1) + 1e-3 * lib.eye(5, dtype=dt)
    L = lib.linalg.cholesky(cov)
    rec("L", L)
    z = lib.linalg.solve_triangular(L, (x - mu).T, upper=False)
    rec("m2", (z**2).sum(0))
    z2 = lib.linalg.solve_triangular(L.T, (x - mu), upper=True, left=False)
    rec("m2_right", (z2**2).sum(1))
    Lx, info = lib.linalg.cholesky_ex(cov)
    rec("info", info)
    rec("chol_solve", lib.cholesky_solve((x - mu).T, L).T)
    rec("logdet", 2 * L.diagonal().log().sum())
    rec("cholinv", lib.cholesky_inverse(L))
    bad = cov.clone()
    bad[0, 0] = -1.0
    rec.err("chol_err", lambda: lib.linalg.cholesky(bad))
    rec("info_bad", lib.linalg.cholesky_ex(bad).info)
    rec.err("tri_err", lambda: lib.linalg.solve_triangular(L, x - mu, upper=False))
    # gradient through Mahalanobis
    xx = x[:4].clone().requires_grad_(True)
    zz = lib.linalg.solve_triangular(L, (xx - mu).T, upper=False)
    (zz**2).sum().backward()
    rec("g", xx.grad)
    batch = lib.stack([cov, 2 * cov])
    rec("batch_chol", lib.linalg.cholesky(batch)[1])


def p_knn_score(lib, dt, rec):
    x, y = _data(lib, dt, n=50, d=3, seed=7)
    train = x[10:40]
    test = lib.cat([x[:10], x[40:]])
    d = lib.cdist(test, train)
    rec("d", d)
    k = 5
    vals, idx = d.topk(k, dim=1, largest=False)
    rec("vals", vals)
    rec("kth", vals[:, -1])
    rec("mean_k", vals.mean(1))
    dself = lib.cdist(train, train)
    dself.fill_diagonal_(float("inf"))
    rec("self_knn", dself.topk(k, largest=False).values[:, -1])
    rec("p1", lib.cdist(test, train, p=1.0)[:3])
    rec("pinf", lib.cdist(test, train, p=float("inf"))[:3])
    rec("cm", lib.cdist(test, train, compute_mode="use_mm_for_euclid_dist")[:2])
    sq = (test.unsqueeze(1) - train.unsqueeze(0)).pow(2).sum(-1)
    rec("sq_min", sq.min(1).values)
    rec("sorted", lib.sort(d, dim=1).values[:, :k])
    # LOF-ish: reachability distances
    kd = dself.topk(k, largest=False)
    kdist = kd.values[:, -1]
    reach = lib.maximum(kd.values, kdist[kd.indices])
    lrd = 1.0 / (reach.mean(1) + 1e-10)
    lof = (lrd[kd.indices].mean(1)) / lrd
    rec("lof", lof)
    rec("pdist", lib.pdist(train[:6]))
    xr = test[:3].clone().requires_grad_(True)
    lib.cdist(xr, train).topk(3, largest=False).values.sum().backward()
    rec("g", xr.grad)


def p_random_projection(lib, dt, rec):
    g = lib.Generator().manual_seed(8)
    x, y = _data(lib, dt, n=40, d=5, seed=8)
    n_proj = 16
    W = lib.randn(5, n_proj, generator=g, dtype=dt)
    W = W / W.norm(dim=0, keepdim=True)
    p = x @ W
    lo, hi = p.min(0).values, p.max(0).values
    cut = lo + (hi - lo) * lib.rand(n_proj, generator=g, dtype=dt)
    side = p > cut
    rec("side", side.sum(0))
    frac = side.to(dt).mean(0)
    iso = lib.where(side, 1 - frac, frac)
    rec("iso", iso.mean(1))
    rec("perm", lib.randperm(10, generator=g))
    sub = lib.randint(0, 40, (8,), generator=g)
    rec("sub", sub)
    rec("median", p.median(0).values)
    rec("median_idx", p[:, :3].median(0).indices)
    z = (p - p.mean(0)) / p.std(0)
    rec("zmax", z.abs().amax(1))
    c = 2 * (math.log(39) + 0.5772156649) - 2 * 39 / 40
    depth = lib.rand(40, n_proj, generator=g, dtype=dt) * 6
    rec("iforest", 2 ** (-depth.mean(1) / c))
    rec("histc", lib.histc(p[:, 0], bins=5))
    edges = lib.linspace(float(lo[0]), float(hi[0]), 6, dtype=dt)
    rec("bucket", lib.bucketize(p[:, 0], edges))
    rec("ss", lib.searchsorted(edges, p[:5, 0], right=True))
    cnt = lib.bincount(lib.bucketize(p[:, 0], edges[1:-1]), minlength=5)
    rec("cnt", cnt)
    hbos = -lib.log(cnt[lib.bucketize(p[:, 0], edges[1:-1])].to(dt) / 40)
    rec("hbos", hbos)


def p_one_class_softplus(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    x, y = _data(lib, dt, n=40, d=4, seed=9)
    net = nn.Sequential(nn.Linear(4, 8), nn.SiLU(), nn.Linear(8, 1)).to(dt)
    r = nn.Parameter(lib.tensor(0.5, dtype=dt))
    opt = lib.optim.SGD([*net.parameters(), r], lr=0.05, momentum=0.9, nesterov=True)
    nu = 0.1
    for _ in range(6):
        opt.zero_grad()
        s = net(x[y == 0]).squeeze(-1)
        loss = 0.5 * r**2 + (1 / nu) * F.softplus(r - s).mean() - r
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("r", r)
    rec("r_grad", r.grad)
    s = net(x).squeeze(-1)
    rec("sp_beta", F.softplus(s, beta=2.0, threshold=5.0))
    rec("logsig", F.logsigmoid(s))
    rec("bce_logits", F.binary_cross_entropy_with_logits(s, y.to(dt), reduction="none"))
    rec(
        "bce_pw",
        F.binary_cross_entropy_with_logits(s, y.to(dt), pos_weight=lib.tensor([5.0], dtype=dt)),
    )
    rec("sp_big", F.softplus(lib.tensor([30.0, -30.0, 0.0, 100.0], dtype=dt)))
    rec("sp_mod", nn.Softplus(beta=0.5)(s[:5]))
    rec("hinge", F.relu(1 - s).mean())
    rec("margin", F.margin_ranking_loss(s[:6], s[6:12], lib.ones(6, dtype=dt), margin=0.5))


def p_roc_auc(lib, dt, rec):
    g = lib.Generator().manual_seed(10)
    labels = (lib.rand(100, generator=g) < 0.2).long()
    scores = lib.randn(100, generator=g, dtype=dt) + labels.to(dt) * 1.5
    auc, tpr, fpr = _roc_auc(lib, scores, labels)
    rec("auc", auc)
    rec("tpr", tpr)
    rec("fpr", fpr)
    rec("trapz", lib.trapz(tpr, fpr))
    rec("trapz_dx", lib.trapezoid(tpr, dx=0.01))
    rec("cumtrapz", lib.cumulative_trapezoid(tpr, fpr)[-5:])
    # rank-based (Mann-Whitney) AUC
    ranks = lib.empty_like(scores)
    ranks[scores.argsort()] = lib.arange(1, 101, dtype=dt)
    npos = labels.sum()
    nneg = 100 - npos
    mw = (ranks[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)
    rec("mw", mw)
    # pairwise AUC via broadcasting
    pos, neg = scores[labels == 1], scores[labels == 0]
    rec("pair", (pos[:, None] > neg[None, :]).to(dt).mean())
    # TPR at FPR 0.05
    rec("tpr_at", tpr[lib.searchsorted(fpr, lib.tensor(0.05, dtype=dt))])
    rec("trapz_2d", lib.trapezoid(lib.stack([tpr, tpr**2]), fpr, dim=-1))
    rec("argmax_j", (tpr - fpr).argmax())
    rec("unique", lib.unique(labels, return_counts=True)[1])


def p_average_precision(lib, dt, rec):
    g = lib.Generator().manual_seed(11)
    labels = (lib.rand(60, generator=g) < 0.25).to(dt)
    scores = lib.rand(60, generator=g, dtype=dt) + 0.4 * labels
    s, order = lib.sort(scores, descending=True)
    yl = labels[order]
    tp = yl.cumsum(0)
    fp = (1 - yl).cumsum(0)
    precision = tp / (tp + fp)
    recall = tp / yl.sum()
    rec("precision", precision)
    rec("recall", recall)
    ap = (precision * yl).sum() / yl.sum()
    rec("ap", ap)
    r_prev = lib.cat([recall.new_zeros(1), recall[:-1]])
    rec("ap_step", ((recall - r_prev) * precision).sum())
    # interpolated precision via cummax from the right
    interp = precision.flip(0).cummax(0).values.flip(0)
    rec("interp", interp)
    rec("cummax_idx", precision.cummax(0).indices)
    rec("pr_auc", lib.trapezoid(precision, recall))
    rec("diff", lib.diff(recall, prepend=recall.new_zeros(1)).sum())
    rec("p_at_k", yl[:10].mean())
    rec("r_at_k", yl[:10].sum() / yl.sum())
    rec("dcg", (yl[:10] / lib.log2(lib.arange(2, 12, dtype=dt))).sum())


def p_f1_thresholds(lib, dt, rec):
    g = lib.Generator().manual_seed(12)
    labels = (lib.rand(80, generator=g) < 0.3).long()
    scores = lib.rand(80, generator=g, dtype=dt) * 0.7 + 0.3 * labels.to(dt)
    th = lib.linspace(0, 1, 21, dtype=dt)
    pred = scores[None, :] >= th[:, None]
    tp = (pred & (labels[None] == 1)).sum(1)
    fp = (pred & (labels[None] == 0)).sum(1)
    fn = (~pred & (labels[None] == 1)).sum(1)
    rec("tp", tp)
    prec = tp / (tp + fp).clamp(min=1)
    rec_ = tp / (tp + fn)
    rec("prec_dtype", str(prec.dtype))
    f1 = 2 * prec * rec_ / (prec + rec_ + 1e-12)
    rec("f1", f1)
    rec("best", f1.argmax())
    rec("best_th", th[f1.argmax()])
    f1b = 2 * tp / (2 * tp + fp + fn)
    rec("f1b", f1b)
    rec("nan_div", lib.tensor([0]) / lib.tensor([0]))
    rec("nan_to_num", lib.nan_to_num(tp / (tp + fp), nan=0.0))
    yh = (scores > 0.5).long()
    cm = lib.bincount(labels * 2 + yh, minlength=4).view(2, 2)
    rec("cm", cm)
    rec("acc", (yh == labels).float().mean())
    rec("bal_acc", (cm.diag() / cm.sum(1)).mean())
    fb = (1 + 4) * prec * rec_ / (4 * prec + rec_).clamp_min(1e-12)
    rec("f2", fb)
    mcc_n = tp * (80 - tp - fp - fn) - fp * fn
    rec("mcc_n", mcc_n)


def p_unfold_windows(lib, dt, rec):
    F = lib.nn.functional
    t = lib.arange(60, dtype=dt)
    sig = lib.sin(t * 0.3)
    sig[40] += 4.0
    w = sig.unfold(0, 8, 2)
    rec("w_shape", str(w.shape))
    rec("w_stride", str(w.stride()))
    mu = w.mean(-1)
    sd = w.std(-1)
    rec("z", ((w - mu[:, None]) / sd[:, None]).abs().amax(-1))
    x = sig.view(1, 1, -1)
    u = F.unfold(x.unsqueeze(-1), kernel_size=(8, 1), stride=(2, 1))
    rec("Funfold", u.shape[-1])
    rec("Funfold_eq", lib.equal(u[0].T, w))
    mb = sig.view(3, 20)
    ww = mb.unfold(1, 5, 5)
    rec("ww", ww.shape)
    rec("roll_mean", F.avg_pool1d(x, 5, stride=1).squeeze())
    rec("roll_max", F.max_pool1d(x, 5, stride=1, padding=2).squeeze())
    pad = F.pad(x, (4, 0), mode="replicate")
    rec("causal", F.avg_pool1d(pad, 5, stride=1).squeeze()[-5:])
    resid = (sig - F.avg_pool1d(pad, 5, stride=1).squeeze()).abs()
    rec("resid_top", resid.topk(3).indices.sort().values)
    xx = sig.clone().requires_grad_(True)
    xx.unfold(0, 8, 2).var(-1).sum().backward()
    rec("g", xx.grad)
    rec.err("unfold_err", lambda: sig.unfold(0, 80, 1))
    rec.err("unfold_step", lambda: sig.unfold(0, 4, 0))


def p_conv1d_score(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(13)
    x = lib.randn(4, 2, 50, dtype=dt)
    x[1, :, 20:23] += 5
    k = lib.ones(1, 1, 7, dtype=dt) / 7
    sm = F.conv1d(x.reshape(-1, 1, 50), k, padding=3).view(4, 2, 50)
    rec("sm", sm)
    rec("same", F.conv1d(x.reshape(-1, 1, 50), k, padding="same").shape)
    dk = lib.tensor([[[-1.0, 0.0, 1.0]]], dtype=dt)
    rec("deriv", F.conv1d(x[:, :1], dk).abs().amax(-1))
    model = nn.Sequential(
        nn.Conv1d(2, 4, 5, padding=2), nn.ReLU(),
        nn.Conv1d(4, 4, 3, padding=2, dilation=2), nn.ReLU(),
        nn.Conv1d(4, 2, 1),
    ).to(dt)  # fmt: skip
    out = model(x)
    rec("out", out)
    score = (out - x).pow(2).mean(1)
    rec("score", score)
    score.mean().backward()
    rec("g0", model[0].weight.grad)
    rec("causal_pad", F.conv1d(F.pad(x, (4, 0)), model[0].weight).shape)
    tcn = nn.Conv1d(2, 2, 3, groups=2, padding=1, padding_mode="reflect").to(dt)
    rec("tcn", tcn(x))
    rec("circ", nn.Conv1d(2, 2, 3, padding=1, padding_mode="circular").to(dt)(x).shape)
    rec.err("c_err", lambda: F.conv1d(x, lib.ones(1, 3, 3, dtype=dt)))
    rec.err("pad_err", lambda: nn.Conv1d(2, 2, 3, padding="same", stride=2))


def p_early_stopping(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(14)
    x, y = _data(lib, dt, n=60, d=4, seed=14)
    tr, va = x[20:], x[:20]
    model = _mlp_ae(lib, 4, 6, 2).to(dt)
    opt = lib.optim.AdamW(model.parameters(), lr=2e-2)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    best, best_state, bad, patience = float("inf"), None, 0, 3
    hist = []
    for epoch in range(12):
        model.train()
        for xb in tr.split(16):
            opt.zero_grad()
            F.mse_loss(model(xb), xb).backward()
            opt.step()
        model.eval()
        with lib.no_grad():
            err = F.mse_loss(model(va), va, reduction="none").mean(1)
            val = _roc_auc(lib, err, y[:20])[0].item()
        sched.step(-val)
        hist.append(val)
        n_epochs = epoch + 1
        if -val < best - 1e-4:
            best = -val
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            bad = 0
        else:
            bad += 1
            if bad >= patience:
                break
    rec("hist", hist)
    rec("epochs", n_epochs)
    rec("lrs", opt.param_groups[0]["lr"])
    model.load_state_dict(best_state)
    rec("state", str(list(best_state)))
    with lib.no_grad():
        rec("final", F.mse_loss(model(va), va, reduction="none").mean(1))
    rec("sched_state", str(sorted(sched.state_dict())))


def p_linalg_errors(lib, dt, rec):
    a = lib.ones(3, 3, dtype=dt)
    rec.err("inv_sing", lambda: lib.linalg.inv(a))
    rec.err("inv_shape", lambda: lib.linalg.inv(lib.ones(3, 4, dtype=dt)))
    rec.err("inv_int", lambda: lib.linalg.inv(lib.eye(3, dtype=lib.long)))
    rec("inv_ex", lib.linalg.inv_ex(a).info)
    rec.err("chol_nonsq", lambda: lib.linalg.cholesky(lib.ones(2, 3, dtype=dt)))
    rec.err("chol_int", lambda: lib.linalg.cholesky(lib.eye(2, dtype=lib.long)))
    rec.err("chol_npd", lambda: lib.linalg.cholesky(-lib.eye(3, dtype=dt)))
    rec.err("slogdet_shape", lambda: lib.linalg.slogdet(lib.ones(2, 3, dtype=dt)))
    rec("slogdet_sing", lib.stack(list(lib.linalg.slogdet(a))))
    rec("det_sing", lib.linalg.det(a))
    rec.err("solve_shape", lambda: lib.linalg.solve(lib.eye(3, dtype=dt), lib.ones(4, dtype=dt)))
    rec.err("solve_sing", lambda: lib.linalg.solve(a, lib.ones(3, dtype=dt)))
    rec.err(
        "st_left",
        lambda: lib.linalg.solve_triangular(
            lib.eye(3, dtype=dt), lib.ones(3, dtype=dt), upper=True
        ),
    )
    rec.err(
        "st_kw", lambda: lib.linalg.solve_triangular(lib.eye(3, dtype=dt), lib.ones(3, 1, dtype=dt))
    )
    rec.err("cov_3d", lambda: lib.cov(lib.ones(2, 2, 2, dtype=dt)))
    rec.err("cov_fw", lambda: lib.cov(lib.ones(2, 4, dtype=dt), fweights=lib.ones(4, dtype=dt)))
    rec.err("cov_aw", lambda: lib.cov(lib.ones(2, 4, dtype=dt), aweights=-lib.ones(4, dtype=dt)))
    rec.err("cov_awlen", lambda: lib.cov(lib.ones(2, 4, dtype=dt), aweights=lib.ones(3, dtype=dt)))
    rec("cov_1", lib.cov(lib.ones(3, 1, dtype=dt)))
    rec("pinv_zero", lib.linalg.pinv(lib.zeros(2, 3, dtype=dt)))
    rec.err("pinv_int", lambda: lib.linalg.pinv(lib.ones(2, 2, dtype=lib.long)))
    if dt == lib.float64:  # (float32: whether the singular PSD passes follows LAPACK's rounding)
        bad, zero = a[:2, :2], lib.zeros(2, dtype=dt)
        rec.err("mvn_bad", lambda: lib.distributions.MultivariateNormal(zero, bad))
    rec.err("mix_dt", lambda: lib.linalg.solve(lib.eye(2), lib.ones(2, dtype=lib.float64)))


def p_quantile_errors(lib, dt, rec):
    lib.manual_seed(26)
    s = lib.rand(10, dtype=dt)
    rec.err("q_range", lambda: lib.quantile(s, 1.2))
    rec.err("q_int", lambda: lib.quantile(lib.arange(10), 0.5))
    rec.err("q_dt", lambda: lib.quantile(s, lib.tensor([0.5], dtype=lib.float16)))
    rec.err("q_2d", lambda: lib.quantile(s, lib.ones(2, 2, dtype=dt) * 0.5))
    rec.err("q_interp", lambda: lib.quantile(s, 0.5, interpolation="cubic"))
    rec.err("q_empty", lambda: lib.quantile(lib.ones(0, dtype=dt), 0.5))
    rec("q_empty_v", lib.quantile(lib.ones(0, dtype=dt), 0.5) if False else 0)
    rec.err("q_dim", lambda: lib.quantile(s, 0.5, dim=1))
    rec.err("kth_range", lambda: lib.kthvalue(s, 11))
    rec.err("kth_zero", lambda: lib.kthvalue(s, 0))
    rec.err("topk_big", lambda: s.topk(11))
    rec.err("q_tensor_range", lambda: lib.quantile(s, lib.tensor([0.1, 1.5], dtype=dt)))
    rec("q_0d", lib.quantile(lib.tensor(3.0, dtype=dt), 0.3))
    rec("q_0d_dim", lib.quantile(lib.tensor(3.0, dtype=dt), 0.3, dim=0))
    rec("kth_0d", lib.kthvalue(lib.tensor(2.0, dtype=dt), 1).values)


def p_loss_reduction_errors(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(24)
    a = lib.rand(4, 3, dtype=dt)
    rec.err("red_bad", lambda: F.mse_loss(a, a, reduction="avg"))
    rec.warns("shape_warn", lambda: F.mse_loss(a, a[:1]))
    rec.err("shape_err", lambda: F.mse_loss(a, a[:, :2]))
    rec.err("dt_err", lambda: F.mse_loss(a, a.float() if dt == lib.float64 else a.double()))
    rec.err("bce_range", lambda: F.binary_cross_entropy(a + 1, a))
    rec.err("bce_shape", lambda: F.binary_cross_entropy(a, a[0]))
    rec.err("l1_int", lambda: F.l1_loss(lib.ones(3, dtype=lib.long), lib.ones(3, dtype=lib.long)))
    rec("mse_empty", F.mse_loss(a[:0], a[:0]))
    rec("mse_empty_sum", F.mse_loss(a[:0], a[:0], reduction="sum"))
    rec("mse_none_empty", str(F.mse_loss(a[:0], a[:0], reduction="none").shape))
    rec.err("kl_red", lambda: F.kl_div(a.log(), a, reduction="mean"))
    rec.warns("kl_warn", lambda: F.kl_div(a.log(), a, reduction="mean"))
    rec("kl_bm", F.kl_div(a.log(), a.flip(0), reduction="batchmean"))
    rec("gnll", F.gaussian_nll_loss(a, a.flip(0), lib.ones(4, 1, dtype=dt), reduction="none"))
    rec.err("gnll_neg", lambda: F.gaussian_nll_loss(a, a, -lib.ones(4, 3, dtype=dt)))
    rec.err("gnll_shape", lambda: F.gaussian_nll_loss(a, a, lib.ones(2, 3, dtype=dt)))
    rec.err("size_avg", lambda: F.mse_loss(a, a, size_average=False))
    rec("legacy", F.mse_loss(a, a.flip(0), size_average=False))


def p_cdist_errors(lib, dt, rec):
    lib.manual_seed(25)
    a = lib.rand(4, 3, dtype=dt)
    rec.err("dim", lambda: lib.cdist(a, lib.rand(4, 2, dtype=dt)))
    rec.err("1d", lambda: lib.cdist(a[0], a))
    rec.err("neg_p", lambda: lib.cdist(a, a, p=-1.0))
    rec.err("int", lambda: lib.cdist(a.long(), a.long()))
    rec.err("mode", lambda: lib.cdist(a, a, compute_mode="fast"))
    rec("p0", lib.cdist(a, a.flip(0), p=0.0))
    rec("batch", lib.cdist(a.expand(2, 4, 3), a[:2]).shape)
    rec("empty", lib.cdist(a[:0], a).shape)
    rec.err("topk_dim", lambda: a.topk(2, dim=2))
    rec.err("topk_neg", lambda: a.topk(-1))
    rec("topk0", a.topk(0).values.shape)
    rec.err("pdist_2d", lambda: lib.pdist(a[0]))
    rec.err("pdist_p", lambda: lib.pdist(a, p=-2))
    ar = a.clone().requires_grad_(True)
    d = lib.cdist(ar, ar)
    d.sum().backward()
    rec("g_self", ar.grad)
    rec("gradfn", type(d.grad_fn).__name__)


def p_conv_transpose_shapes(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(15)
    x = lib.randn(2, 3, 5, 5, dtype=dt)
    for s, p, op, dil in [(1, 0, 0, 1), (2, 1, 1, 1), (3, 2, 2, 1), (2, 0, 0, 2)]:
        m = nn.ConvTranspose2d(3, 2, 3, stride=s, padding=p, output_padding=op, dilation=dil)
        rec(f"shape{s}{p}{op}{dil}", str(m.to(dt)(x).shape))
    m = nn.ConvTranspose2d(3, 4, (3, 2), stride=(2, 1), groups=1, bias=False).to(dt)
    rec("out", m(x))
    rec("w_shape", str(m.weight.shape))
    g = nn.ConvTranspose2d(4, 4, 3, groups=2).to(dt)
    rec("g_w", str(g.weight.shape))
    rec("grp", g(lib.randn(1, 4, 3, 3, dtype=dt)))
    rec.err("op_err", lambda: nn.ConvTranspose2d(3, 2, 3, stride=2, output_padding=2).to(dt)(x))
    rec.err("ch_err", lambda: nn.ConvTranspose2d(4, 2, 3).to(dt)(x))
    rec.err("pm_err", lambda: nn.ConvTranspose2d(3, 2, 3, padding_mode="reflect"))
    ct1 = nn.ConvTranspose1d(3, 2, 4, stride=2, padding=1).to(dt)
    rec("ct1", ct1(x[:, :, 0]))
    rec("unbatched", str(ct1(x[0, :, 0]).shape))
    up = nn.Upsample(scale_factor=2, mode="nearest")
    rec("ups", up(x).shape)
    rec("ct_repr", repr(m))
    rec("ct_repr2", repr(nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)))
    w = lib.randn(3, 2, 3, 3, dtype=dt)
    rec("F_ct", F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1))
    xr = x.clone().requires_grad_(True)
    F.conv_transpose2d(xr, w, stride=2).square().sum().backward()
    rec("g_x", xr.grad)


def p_svdd_radius(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(16)
    x, y = _data(lib, dt, n=40, d=4, seed=16)
    net = nn.Sequential(nn.Linear(4, 6, bias=False), nn.ELU(), nn.Linear(6, 2, bias=False)).to(dt)
    with lib.no_grad():
        c = net(x).mean(0)
    R = lib.tensor(0.0, dtype=dt)
    nu = 0.1
    opt = lib.optim.Adam(net.parameters(), lr=5e-3)
    rs = []
    for epoch in range(8):
        opt.zero_grad()
        dist = ((net(x) - c) ** 2).sum(1)
        scores = dist - R**2
        loss = R**2 + (1 / nu) * lib.mean(lib.clamp(scores, min=0))
        loss.backward()
        opt.step()
        if epoch >= 2:
            R = lib.tensor(float(lib.quantile(lib.sqrt(dist.detach()), 1 - nu)), dtype=dt)
            rs.append(R.item())
    rec("rs", rs)
    rec("loss", loss)
    with lib.no_grad():
        d = ((net(x) - c) ** 2).sum(1)
    rec("out", (d > R**2).long())
    rec("np_quantile", lib.quantile(d.sqrt(), 0.9, interpolation="nearest"))
    # soft-boundary with a Parameter radius
    Rp = nn.Parameter(lib.tensor(0.1, dtype=dt))
    l2 = Rp**2 + (1 / nu) * lib.relu(d - Rp**2).mean()
    l2.backward()
    rec("Rp_g", Rp.grad)


def p_ae_denoise(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(17)
    x, y = _data(lib, dt, n=32, d=8, seed=17)
    model = nn.Sequential(
        nn.Dropout(0.2), nn.Linear(8, 4, bias=False), nn.BatchNorm1d(4), nn.GELU(), nn.Linear(4, 8)
    ).to(dt)
    opt = lib.optim.RMSprop(model.parameters(), lr=1e-2)
    ds = lib.utils.data.TensorDataset(x, y)
    dl = lib.utils.data.DataLoader(
        ds, batch_size=8, shuffle=True, generator=lib.Generator().manual_seed(1)
    )
    for xb, _ in dl:
        noisy = xb + 0.1 * lib.randn_like(xb)
        opt.zero_grad()
        loss = F.mse_loss(model(noisy), xb)
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("bn_mean", model[2].running_mean)
    rec("bn_var", model[2].running_var)
    rec("nbt", model[2].num_batches_tracked)
    model.eval()
    with lib.no_grad():
        errs = [
            F.mse_loss(model(xb), xb, reduction="none").mean(1)
            for xb, _ in lib.utils.data.DataLoader(ds, batch_size=10)
        ]
    s = lib.cat(errs)
    rec("s", s)
    rec("zscore", (s - s.mean()) / s.std(unbiased=False))
    rec("mad", (s - s.median()).abs().median())
    rec.err("bn_one", lambda: model.train()(x[:1]))


def p_lstm_ae(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(18)

    class LSTMAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.LSTM(2, 4, batch_first=True)
            self.dec = nn.LSTM(4, 4, batch_first=True)
            self.out = nn.Linear(4, 2)

        def forward(self, x):
            _, (h, _) = self.enc(x)
            z = h[-1].unsqueeze(1).repeat(1, x.shape[1], 1)
            o, _ = self.dec(z)
            return self.out(o)

    m = LSTMAE().to(dt)
    t = lib.linspace(0, 6, 12, dtype=dt)
    x = lib.stack([lib.sin(t + i) for i in range(6)]).unsqueeze(-1).repeat(1, 1, 2)
    x[2, 5] += 3
    opt = lib.optim.Adam(m.parameters(), lr=1e-2)
    for _ in range(3):
        opt.zero_grad()
        loss = F.mse_loss(m(x), x)
        loss.backward()
        nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
    rec("loss", loss)
    with lib.no_grad():
        e = (m(x) - x).pow(2).mean(-1)
    rec("e", e)
    rec("point", e.argmax(1))
    gru = nn.GRU(2, 3, num_layers=2, batch_first=True, dropout=0.0).to(dt)
    o, h = gru(x)
    rec("gru_h", h)


def p_gmm_score(lib, dt, rec):
    D = lib.distributions
    x, y = _data(lib, dt, n=40, d=2, seed=19)
    K = 3
    g = lib.Generator().manual_seed(19)
    means = x[lib.randperm(40, generator=g)[:K]].clone()
    covs = lib.eye(2, dtype=dt).repeat(K, 1, 1)
    weights = lib.full((K,), 1.0 / K, dtype=dt)
    for _ in range(5):
        comp = D.MultivariateNormal(means, covariance_matrix=covs)
        lp = comp.log_prob(x[:, None, :]) + weights.log()
        resp = lp.softmax(-1)
        nk = resp.sum(0)
        weights = nk / 40
        means = resp.T @ x / nk[:, None]
        diff = x[:, None, :] - means[None]
        covs = lib.einsum("nk,nki,nkj->kij", resp, diff, diff) / nk[:, None, None]
        covs = covs + 1e-4 * lib.eye(2, dtype=dt)
    rec("weights", weights)
    rec("ll", lib.logsumexp(lp, -1).mean())
    mix = D.MixtureSameFamily(
        D.Categorical(probs=weights), D.MultivariateNormal(means, covariance_matrix=covs)
    )
    score = -mix.log_prob(x)
    rec("score", score)
    rec("auc", _roc_auc(lib, score, y)[0])
    kde = D.Normal(x[:, None, 0], 0.3)
    dens = lib.logsumexp(kde.log_prob(x[None, :, 0]), 0) - math.log(40)
    rec("kde", dens)


def p_pinv_singular(lib, dt, rec):
    g = lib.Generator().manual_seed(20)
    base = lib.randn(30, 2, generator=g, dtype=dt)
    x = lib.cat([base, base.sum(1, keepdim=True)], 1)
    cov = lib.cov(x.T)
    rec("rank", lib.linalg.matrix_rank(cov, hermitian=True))
    rec("cond_big", lib.linalg.cond(cov) > 1e6)
    P = lib.linalg.pinv(cov, hermitian=True)
    d = x - x.mean(0)
    rec("m2", ((d @ P) * d).sum(1))
    P2 = lib.linalg.pinv(cov, rtol=1e-6)
    rec("m2b", ((d @ P2) * d).sum(1))
    rec("ridge", lib.linalg.inv(cov + 1e-2 * lib.eye(3, dtype=dt)))
    ev, V = lib.linalg.eigh(cov)
    rec("ev", ev[1:])
    rec("ev0_small", ev[0].abs() < 1e-8)
    proj = d @ V[:, 1:]
    recon = proj @ V[:, 1:].T
    rec("pca_err", (d - recon).norm(dim=1) < 1e-6)
    U, S, Vh = lib.linalg.svd(d, full_matrices=False)
    rec("S", S[:2])
    rec("evals", lib.linalg.eigvalsh(cov)[1:])
    rec("lstsq", lib.linalg.lstsq(x[:, :2], x[:, 2:]).solution)


def p_kthvalue_threshold(lib, dt, rec):
    g = lib.Generator().manual_seed(21)
    s = lib.rand(5, 30, generator=g, dtype=dt)
    v, i = lib.kthvalue(s, 27, dim=1)
    rec("v", v)
    rec("i", i)
    v2, i2 = s.kthvalue(3, dim=0, keepdim=True)
    rec("v2", v2)
    rec("i2", i2)
    k = int(0.95 * s.numel())
    rec("k", k)
    rec("flat", s.flatten().kthvalue(k).values)
    rec("topk_thr", s.flatten().topk(s.numel() - k + 1).values[-1])
    sr = s.clone().requires_grad_(True)
    sr.kthvalue(10, dim=1).values.sum().backward()
    rec("g", sr.grad)
    mask = s > v[:, None]
    rec("mask", mask.sum(1))
    rec("msort", lib.msort(s[:, :4]))
    rec("named", str(type(v2).__name__))
    res = s.kthvalue(2)
    rec("res_repr_fields", str(res._fields) if hasattr(res, "_fields") else "")


def p_trapz_variants(lib, dt, rec):
    y = lib.tensor([[0.0, 0.5, 0.8, 1.0], [0.0, 0.2, 0.9, 1.0]], dtype=dt)
    x = lib.tensor([0.0, 0.1, 0.5, 1.0], dtype=dt)
    rec("t1", lib.trapezoid(y, x))
    rec("t2", lib.trapezoid(y, x, dim=1))
    rec("t3", lib.trapezoid(y, dim=0))
    rec("t4", lib.trapezoid(y, dx=0.5))
    rec("t5", lib.trapz(y, dx=2))
    rec("t6", lib.trapezoid(y, x.expand(2, 4)))
    rec("ct", lib.cumulative_trapezoid(y, x))
    rec("ct_dx", lib.cumulative_trapezoid(y, dx=0.1))
    rec("int_y", lib.trapezoid(lib.tensor([1, 2, 3])))
    rec("empty", lib.trapezoid(lib.ones(0, dtype=dt)))
    rec("one", lib.trapezoid(lib.ones(1, dtype=dt)))
    yr = y.clone().requires_grad_(True)
    xr = x.clone().requires_grad_(True)
    lib.trapezoid(yr, xr).sum().backward()
    rec("gy", yr.grad)
    rec("gx", xr.grad)
    rec.err("shape", lambda: lib.trapezoid(y, lib.ones(3, dtype=dt)))
    rec.err("both", lambda: lib.trapezoid(y, x, dx=0.1))
    rec.err("dim_bad", lambda: lib.trapezoid(y, dim=3))


def p_ensemble_scores(lib, dt, rec):
    g = lib.Generator().manual_seed(22)
    s = lib.rand(4, 50, generator=g, dtype=dt)
    s[1] *= 10
    mn, mx = s.aminmax(dim=1, keepdim=True)
    norm = (s - mn) / (mx - mn)
    rec("norm_mean", norm.mean(0))
    z = (s - s.mean(1, keepdim=True)) / s.std(1, keepdim=True)
    rec("z_max", z.max(0).values)
    ranks = s.argsort(1).argsort(1).to(dt) / 49
    rec("rank_avg", ranks.mean(0))
    rec("median", s.median(0).values)
    rec("nanmedian", s.nanmedian(dim=0).values)
    rec("std_mean", lib.std_mean(s, dim=0))
    rec("var_mean", lib.var_mean(s, dim=1, correction=0))
    rec("logit", lib.logit(norm.clamp(0.01, 0.99))[0, :5])
    w = lib.softmax(lib.tensor([1.0, 0.5, 0.2, 0.1], dtype=dt), 0)
    rec("weighted", (w[:, None] * norm).sum(0))
    rec("maxabs", norm.amax(0) - norm.amin(0))
    rec("erf", 0.5 * (1 + lib.erf(z / math.sqrt(2)))[2, :6])
    rec("cdf", lib.distributions.Normal(0.0, 1.0).cdf(z[2, :6]))


def p_ocsvm_hinge(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(23)
    x, y = _data(lib, dt, n=40, d=3, seed=23)
    W = lib.randn(3, 32, dtype=dt)
    b = lib.rand(32, dtype=dt) * 2 * math.pi
    phi = math.sqrt(2 / 32) * lib.cos(x @ W + b)
    w = nn.Parameter(lib.zeros(32, dtype=dt))
    rho = nn.Parameter(lib.zeros((), dtype=dt))
    opt = lib.optim.SGD([w, rho], lr=0.1, weight_decay=0.0)
    nu = 0.1
    for _ in range(10):
        opt.zero_grad()
        f = phi[y == 0] @ w
        loss = 0.5 * w.dot(w) + (1 / nu) * F.relu(rho - f).mean() - rho
        loss.backward()
        opt.step()
    rec("w", w)
    rec("rho", rho)
    dec = phi @ w - rho
    rec("dec", dec)
    rec("sign", dec.sign())
    rec("hinge_emb", F.hinge_embedding_loss(dec, 1 - 2 * y.to(dt), margin=1.0, reduction="none"))
    rec("soft_margin", F.soft_margin_loss(dec, 1 - 2 * y.to(dt)))
    rec("rbf", lib.exp(-(lib.cdist(x[:5], x[:5]) ** 2) / 2))
    rec("mm_loss", F.multi_margin_loss(lib.stack([dec, -dec], 1), y))


def p_seasonal_decomp(lib, dt, rec):
    F = lib.nn.functional
    t = lib.arange(64, dtype=dt)
    x = lib.sin(2 * math.pi * t / 8) + 0.02 * t + 0.1 * lib.cos(t)
    x[37] += 3.0
    trend = F.avg_pool1d(F.pad(x.view(1, 1, -1), (4, 4), mode="reflect"), 9, stride=1).view(-1)
    rec("trend", trend)
    detr = x - trend
    seasonal = detr.view(8, 8).mean(0).repeat(8)
    rec("seasonal", seasonal)
    resid = detr - seasonal
    rec("resid", resid)
    med = resid.median()
    mad = (resid - med).abs().median() * 1.4826
    rec("robust_z", ((resid - med) / mad).abs().topk(3).indices.sort().values)
    diff = lib.diff(x, n=2)
    rec("diff2", diff)
    rec("diff_app", lib.diff(x, append=x[-1:]).abs().argmax())
    rec("grad_", lib.gradient(x, spacing=0.5)[0])
    rec("grad_edge2", lib.gradient(x[:10], edge_order=2)[0])
    xr = x.clone().requires_grad_(True)
    F.avg_pool1d(F.pad(xr.view(1, 1, -1), (4, 4), mode="reflect"), 9, stride=1).sum().backward()
    rec("g", xr.grad)
    rec.err("pad_err", lambda: F.pad(x.view(1, 1, -1), (70, 0), mode="reflect"))


def p_mvn_forms(lib, dt, rec):
    D = lib.distributions
    g = lib.Generator().manual_seed(27)
    x = lib.randn(30, 3, generator=g, dtype=dt)
    mu = x.mean(0)
    cov = lib.cov(x.T)
    prec = lib.linalg.inv(cov)
    L = lib.linalg.cholesky(cov)
    m1 = D.MultivariateNormal(mu, covariance_matrix=cov)
    m2 = D.MultivariateNormal(mu, precision_matrix=prec)
    m3 = D.MultivariateNormal(mu, scale_tril=L)
    q = x[:5] * 2
    rec("lp1", m1.log_prob(q))
    rec("lp2", m2.log_prob(q))
    rec("lp3", m3.log_prob(q))
    rec("ent", m1.entropy())
    rec("st", m2.scale_tril)
    rec("var", m3.variance)
    rec("bshape", str(m1.batch_shape) + str(m1.event_shape))
    lr = D.LowRankMultivariateNormal(mu, lib.ones(3, 1, dtype=dt) * 0.3, lib.ones(3, dtype=dt))
    rec("lr", lr.log_prob(q))
    rec("lr_cov", lr.covariance_matrix)
    rec.err("bad_cov", lambda: D.MultivariateNormal(mu, covariance_matrix=-cov))
    rec.err("bad_shape", lambda: D.MultivariateNormal(mu, covariance_matrix=cov[:2]))
    rec.err("none", lambda: D.MultivariateNormal(mu))
    rec.err("two", lambda: D.MultivariateNormal(mu, covariance_matrix=cov, scale_tril=L))
    rec.err("lp_shape", lambda: m1.log_prob(lib.ones(4, dtype=dt)))
    rec(
        "kl",
        D.kl_divergence(m1, D.MultivariateNormal(lib.zeros(3, dtype=dt), lib.eye(3, dtype=dt))),
    )
    rec(
        "maha_chi2",
        D.Chi2(lib.tensor(3.0, dtype=dt)).log_prob(lib.tensor([0.5, 2.0, 7.8], dtype=dt)),
    )
    rec(
        "gamma_cdf",
        D.Gamma(lib.tensor(1.5, dtype=dt), 0.5).cdf(lib.tensor([0.5, 2.0, 7.8], dtype=dt)),
    )


def p_batched_linalg_errors(lib, dt, rec):
    a = lib.eye(3, dtype=dt).repeat(2, 1, 1)
    a[1, 2, 2] = 0
    rec.err("inv_b", lambda: lib.linalg.inv(a))
    rec.err("chol_b", lambda: lib.linalg.cholesky(a))
    rec("chol_ex_b", lib.linalg.cholesky_ex(a).info)
    rec("inv_ex_b", lib.linalg.inv_ex(a).info)
    rec.err("solve_b", lambda: lib.linalg.solve(a, lib.ones(2, 3, dtype=dt)))
    rec("slogdet_b", lib.linalg.slogdet(a).logabsdet)
    rec("sign_b", lib.linalg.slogdet(a).sign)
    rec.err("chol_up", lambda: lib.linalg.cholesky(a, upper=True))
    c = lib.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=dt)
    rec("chol_upper", lib.linalg.cholesky(c, upper=True))
    rec("cholesky_legacy", lib.cholesky(c, upper=False))
    rec(
        "unitri",
        lib.linalg.solve_triangular(
            c.tril(), lib.ones(2, 1, dtype=dt), upper=False, unitriangular=True
        ),
    )
    rec.err("empty_chol", lambda: lib.linalg.cholesky(lib.ones(0, 0, dtype=dt)))
    rec("empty_inv", lib.linalg.inv(lib.ones(0, 0, dtype=dt)).shape)
    rec("empty_slogdet", lib.stack(list(lib.linalg.slogdet(lib.ones(0, 0, dtype=dt)))))
    rec.err("herm", lambda: lib.linalg.eigh(lib.ones(2, 3, dtype=dt)))
    rec.err("half_inv", lambda: lib.linalg.inv(lib.eye(2, dtype=lib.float16)))
    rec.err("nan_chol", lambda: lib.linalg.cholesky(lib.full((2, 2), float("nan"), dtype=dt)))


def p_linalg_grads(lib, dt, rec):
    g = lib.Generator().manual_seed(28)
    A = lib.randn(4, 4, generator=g, dtype=dt)
    S = (A @ A.T + 4 * lib.eye(4, dtype=dt)).requires_grad_(True)
    v = lib.randn(4, generator=g, dtype=dt)
    m2 = v @ lib.linalg.inv(S) @ v
    sign, ld = lib.linalg.slogdet(S)
    nll = 0.5 * (m2 + ld)
    nll.backward()
    rec("gS", S.grad)
    S.grad = None
    L = lib.linalg.cholesky(S)
    z = lib.linalg.solve_triangular(L, v.unsqueeze(-1), upper=False)
    (z.square().sum() + 2 * L.diagonal().log().sum()).backward()
    rec("gS_chol", S.grad)
    S.grad = None
    lib.linalg.pinv(S).trace().backward()
    rec("g_pinv", S.grad)
    S.grad = None
    lib.logdet(S).backward()
    rec("g_logdet", S.grad)
    S.grad = None
    lib.linalg.solve(S, v).sum().backward()
    rec("g_solve", S.grad)
    x = lib.randn(10, 3, generator=g, dtype=dt).requires_grad_(True)
    lib.cov(x.T).sum().backward()
    rec("g_cov", x.grad)
    x.grad = None
    lib.corrcoef(x.T)[0, 1].backward()
    rec("g_corr", x.grad)
    x.grad = None
    lib.linalg.vector_norm(x, ord=2, dim=1).sum().backward()
    rec("g_norm", x.grad)
    rec("mnorm", lib.linalg.matrix_norm(x.detach(), ord="fro"))
    rec("mnorm_nuc", lib.linalg.matrix_norm(x.detach(), ord="nuc"))


def p_knn_batched(lib, dt, rec):
    g = lib.Generator().manual_seed(29)
    mem = lib.randn(2, 20, 4, generator=g, dtype=dt)
    q = lib.randn(2, 5, 4, generator=g, dtype=dt)
    d = lib.cdist(q, mem)
    rec("d", d)
    v, i = d.topk(3, dim=-1, largest=False, sorted=True)
    rec("v", v)
    nn_feats = lib.gather(mem, 1, i[..., :1].expand(-1, -1, 4))
    rec("nn", nn_feats)
    rec(
        "cos",
        lib.nn.functional.cosine_similarity(q.unsqueeze(2), mem.unsqueeze(1), dim=-1).amax(-1),
    )
    rec("pd", lib.nn.functional.pairwise_distance(q[0], mem[0, :5], p=2, eps=1e-6))
    rec("pd_mod", lib.nn.PairwiseDistance(p=1, keepdim=True)(q[0], mem[0, :5]))
    norm_mem = lib.nn.functional.normalize(mem, dim=-1)
    sim = q @ norm_mem.transpose(1, 2)
    rec("sim_topk", sim.topk(2, dim=-1).values)
    rec("cdist_bc", lib.cdist(q[:1], mem).shape)
    patch = lib.randn(3, 16, 4, generator=g, dtype=dt)
    bank = patch.reshape(-1, 4)
    score = lib.cdist(patch.reshape(-1, 4), bank).fill_diagonal_(float("inf")).min(1).values
    rec("patchcore", score.view(3, 16).amax(1))
    rec("min_idx", lib.cdist(q[0], mem[0]).argmin(1))


def p_histograms(lib, dt, rec):
    g = lib.Generator().manual_seed(30)
    x = lib.randn(100, generator=g, dtype=dt)
    h, edges = lib.histogram(x, bins=8)
    rec("h", h)
    rec("edges", edges)
    h2, _ = lib.histogram(x, bins=lib.linspace(-3, 3, 7, dtype=dt), density=True)
    rec("h2", h2)
    rec("hr", lib.histogram(x, bins=4, range=(-1.0, 1.0)).hist)
    w = lib.rand(100, generator=g, dtype=dt)
    rec("hw", lib.histogram(x, bins=4, weight=w).hist)
    rec("histc", lib.histc(x, bins=6, min=-2, max=2))
    rec("histc0", lib.histc(x, bins=6))
    rec.err("histc_int", lambda: lib.histc(lib.arange(5), bins=3))
    rec.err("histc_range", lambda: lib.histc(x, bins=3, min=2, max=1))
    rec.err("histc_bins", lambda: lib.histc(x, bins=-1))
    rec.err("hist_int", lambda: lib.histogram(lib.arange(5), bins=3))
    idx = lib.bucketize(x, edges[1:-1])
    prob = (h / 100)[idx]
    rec("hbos", -lib.log(prob + 1e-12))
    hdd = lib.histogramdd(lib.stack([x[:50], x[50:]], 1), bins=[3, 4])
    rec("hdd", hdd.hist)
    rec("hdd_e0", hdd.bin_edges[0])


def p_repr_scores(lib, dt, rec):
    g = lib.Generator().manual_seed(31)
    s = lib.rand(6, generator=g, dtype=dt) * 10
    rec("repr", repr(s))
    rec("repr_big", repr(s * 1e6))
    rec("repr_mix", repr(lib.tensor([1e-8, 1.0, 1e4], dtype=dt)))
    rec("repr_bool", repr(s > 5))
    rec("repr_long", repr((s > 5).long()))
    rec("repr_nan", repr(lib.tensor([float("nan"), float("inf"), 1.5], dtype=dt)))
    rec("repr_kth", repr(s.kthvalue(2)))
    rec("repr_topk", repr(s.topk(2)))
    rec("repr_slogdet", repr(lib.linalg.slogdet(lib.eye(2, dtype=dt) * 2)))
    rec("repr_hist", repr(lib.histogram(s, bins=2)))
    rec("repr_q", repr(lib.quantile(s, 0.5)))
    rec("str_auc", f"AUC={lib.tensor(0.87654, dtype=dt).item():.4f}")
    rec("repr_grad", repr(s.clone().requires_grad_(True) * 2))
    rec("repr_cummax", repr(s.cummax(0)))
    rec("repr_chol_ex", repr(lib.linalg.cholesky_ex(lib.eye(2, dtype=dt))))


def p_nan_scores(lib, dt, rec):
    s = lib.tensor([0.3, float("nan"), 0.9, 0.1, float("nan"), 0.5], dtype=dt)
    rec("sort", lib.sort(s).values)
    rec("sort_idx", lib.sort(s, stable=True).indices)
    rec("sort_desc", lib.sort(s, descending=True, stable=True).indices)
    rec("max", s.max())
    rec("argmax", s.argmax())
    rec("topk", s.topk(2).values)
    rec("nanmean", s.nanmean())
    rec("nansum", s.nansum())
    rec("nanmedian", s.nanmedian())
    rec("median", s.median())
    rec("isnan", s.isnan().sum())
    rec("clean", s[~s.isnan()])
    rec("amax_nan", s.amax())
    rec("cummax", s.cummax(0).values)
    rec("nan_to_num", lib.nan_to_num(s, nan=-1.0))
    rec("where", lib.where(s.isnan(), lib.zeros_like(s), s))
    rec("fmax", lib.fmax(s, lib.full_like(s, 0.4)))
    rec("gt", s > 0.2)
    rec("kth_nan", lib.kthvalue(s, 5).values)
    rec("q_nan", lib.quantile(s, 0.2))
    rec("nanq", lib.nanquantile(s, lib.tensor([0.2, 0.8], dtype=dt)))
    rec("allnan", lib.nanquantile(lib.full((3,), float("nan"), dtype=dt), 0.5))
    rec("nanmed_all", lib.full((3,), float("nan"), dtype=dt).nanmedian())


def p_windows_as_strided(lib, dt, rec):
    x = lib.arange(20, dtype=dt).view(2, 10)
    w = x.as_strided((2, 4, 4), (10, 2, 1))
    rec("w", w)
    u = x.unfold(1, 4, 2)
    rec("eq", lib.equal(u, w))
    rec("contig", u.is_contiguous())
    rec("mean", u.mean(-1))
    rec("unfold_2", x.unfold(0, 2, 1).shape)
    rec("unfold_0d", lib.tensor(3.0, dtype=dt).unfold(0, 1, 1))
    rec.err("unfold_0d_err", lambda: lib.tensor(3.0, dtype=dt).unfold(0, 2, 1))
    rec.err("unfold_dim", lambda: x.unfold(2, 2, 1))
    rec("empty_w", x[:, :3].unfold(1, 3, 1).shape)
    stacked = lib.stack([x[:, i : i + 4] for i in range(0, 7, 2)], 1)
    rec("stacked", lib.equal(stacked, u))
    y = lib.zeros(2, 10, dtype=dt)
    y.unfold(1, 4, 2).add_(1.0) if False else None
    ones = lib.ones_like(u)
    fold = lib.nn.functional.fold(
        ones.permute(0, 2, 1).reshape(1, 8, 4),
        output_size=(1, 10),
        kernel_size=(1, 4),
        stride=(1, 2),
    )
    rec("fold_counts", fold)
    rec("Unfold_mod", lib.nn.Unfold(kernel_size=(1, 3))(x.view(1, 1, 2, 10)).shape)
    rec.err("F_unfold_3d", lambda: lib.nn.functional.unfold(x.view(1, 2, 10), kernel_size=3))
    xr = x.clone().requires_grad_(True)
    xr.as_strided((2, 4, 4), (10, 2, 1)).sum().backward()
    rec("g_as", xr.grad)


def p_ts_forecast_residual(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(32)
    t = lib.arange(80, dtype=dt)
    series = lib.sin(t / 5) + 0.05 * lib.randn(80, dtype=dt)
    series[60] += 2.0
    win = 10
    X = series.unfold(0, win, 1)[:-1]
    Y = series[win:]
    model = nn.Sequential(nn.Linear(win, 8), nn.Tanh(), nn.Linear(8, 1)).to(dt)
    opt = lib.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=3)

    def closure():
        opt.zero_grad()
        loss = F.mse_loss(model(X[:40]).squeeze(-1), Y[:40])
        loss.backward()
        return loss

    for _ in range(2):
        loss = opt.step(closure)
    rec("loss", loss)
    with lib.no_grad():
        res = (model(X).squeeze(-1) - Y).abs()
    rec("res", res)
    mu = res[:40].mean()
    sd = res[:40].std()
    rec("flag", lib.nonzero(res > mu + 3 * sd).squeeze(-1))
    ewma = lib.zeros_like(res)
    alpha = 0.3
    for i in range(len(res)):
        ewma[i] = alpha * res[i] + (1 - alpha) * (ewma[i - 1] if i else res[0])
    rec("ewma", ewma)
    k = lib.tensor([alpha * (1 - alpha) ** j for j in range(10)], dtype=dt).flip(0)
    rec("ewma_conv", F.conv1d(F.pad(res.view(1, 1, -1), (9, 0)), k.view(1, 1, -1)).squeeze())
    cusum = lib.zeros_like(res)
    for i in range(1, len(res)):
        cusum[i] = lib.clamp(cusum[i - 1] + res[i] - mu - 0.5 * sd, min=0)
    rec("cusum", cusum)


def p_early_stop_deepcopy(lib, dt, rec):
    import copy

    F = lib.nn.functional
    lib.manual_seed(33)
    x, y = _data(lib, dt, n=40, d=5, seed=33)
    model = _mlp_ae(lib, 5).to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
    best_loss, best_model, best_epoch = float("inf"), None, -1
    log = []
    for epoch in range(6):
        opt.zero_grad()
        loss = F.mse_loss(model(x[10:]), x[10:])
        loss.backward()
        opt.step()
        sched.step()
        with lib.no_grad():
            val = F.mse_loss(model(x[:10]), x[:10]).item()
        log.append(round(val, 6))
        if val < best_loss:
            best_loss, best_epoch = val, epoch
            best_model = copy.deepcopy(model)
    rec("log", log)
    rec("best_epoch", best_epoch)
    rec("lr_hist", sched.get_last_lr())
    rec("same_obj", best_model is model)
    rec(
        "params_equal",
        all(
            lib.equal(a, b)
            for a, b in zip(best_model.parameters(), model.parameters(), strict=True)
        ),
    )
    sd = copy.deepcopy(opt.state_dict())
    rec("opt_keys", str(list(sd["state"].keys())))
    rec("mom", sd["state"][0]["momentum_buffer"])
    rec("pg", str({k: v for k, v in sd["param_groups"][0].items() if k != "params"}))


def p_contrastive_anomaly(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(34)
    x, y = _data(lib, dt, n=24, d=6, seed=34)
    enc = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4)).to(dt)
    a = x + 0.1 * lib.randn_like(x)
    b = x + 0.1 * lib.randn_like(x)
    za = F.normalize(enc(a), dim=1)
    zb = F.normalize(enc(b), dim=1)
    logits = za @ zb.T / 0.2
    loss = F.cross_entropy(logits, lib.arange(24))
    rec("loss", loss)
    loss.backward()
    rec("g", enc[0].weight.grad)
    with lib.no_grad():
        z = F.normalize(enc(x), dim=1)
        sim = z @ z[y == 0].T
        score = -sim.topk(2, dim=1).values[:, -1]
    rec("score", score)
    rec("triplet", F.triplet_margin_loss(za[:5], zb[:5], zb[5:10], margin=0.5))
    rec("cos_emb", F.cosine_embedding_loss(za, zb, lib.ones(24, dtype=dt)))
    rec("ls", F.cross_entropy(logits, lib.arange(24), label_smoothing=0.1))


def p_user_slips(lib, dt, rec):
    D = lib.distributions
    g = lib.Generator().manual_seed(35)
    x = lib.randn(20, 3, generator=g, dtype=dt)
    cov = lib.cov(x.T)
    mu = x.mean(0)
    # a covariance sliced to the wrong shape
    rec.err("mvn_cov", lambda: D.MultivariateNormal(mu, covariance_matrix=cov[:2]))
    rec.err("mvn_prec", lambda: D.MultivariateNormal(mu[:2], precision_matrix=cov[:2]))
    rec.err(
        "mvn_novalid",
        lambda: D.MultivariateNormal(mu, covariance_matrix=cov[:, :2], validate_args=False),
    )
    # the AUC's dx given as a tensor, or with x by keyword
    s = lib.linspace(0, 1, 11, dtype=dt) ** 2
    rec("dx_tensor", lib.trapezoid(s, dx=lib.tensor(0.1, dtype=dt)))
    rec("dx_tensor_int", lib.trapz(s, dx=lib.tensor(2)))
    rec("cum_dx_tensor", lib.cumulative_trapezoid(s, dx=lib.tensor(0.1)))
    rec.err("dx_vec", lambda: lib.trapezoid(s, dx=lib.tensor([0.1])))
    rec.err("dx_bool", lambda: lib.trapezoid(s, dx=lib.tensor(True)))
    rec.err("dx_complex", lambda: lib.trapezoid(s, dx=1j))
    rec.err("trapz_complex", lambda: lib.trapz(s, dx=1j))
    rec.err("x_and_dx", lambda: lib.trapezoid(s, dx=0.1, x=s))
    rec.err("cum_x_and_dx", lambda: lib.cumulative_trapezoid(s, dx=0.1, x=s))
    # cholesky's flags given as numbers
    rec.err("chol_upper_int", lambda: lib.linalg.cholesky(cov, upper=1))
    rec.err("chol_ex_check_int", lambda: lib.linalg.cholesky_ex(cov, check_errors=1))
    rec.err("chol_ex_upper_none", lambda: lib.linalg.cholesky_ex(cov, upper=None))
    L = lib.linalg.cholesky(cov)
    rec.err("st_positional", lambda: lib.linalg.solve_triangular(L, x.T, False))
    rec.err("st_positional4", lambda: lib.linalg.solve_triangular(L, x.T, False, True))
    # a p read from a config as NaN
    rec.err("cdist_nan_p", lambda: lib.cdist(x, x, p=float("nan")))
    rec.err("pdist_nan_p", lambda: lib.pdist(x, p=float("nan")))
    rec.err("cdist_neg_inf", lambda: lib.cdist(x, x, p=-math.inf))
    # a covariance with a missing value: slogdet's sign is 0 where logabsdet is NaN, silently
    bad = cov.clone()
    bad[0, 0] = float("nan")
    rec("slogdet_nan", lib.stack(list(lib.linalg.slogdet(bad))))
    rec("slogdet_nan_b", lib.linalg.slogdet(lib.stack([bad, -cov])).sign)
    rec.warns("slogdet_warns", lambda: lib.linalg.slogdet(bad))
    rec.warns("det_warns", lambda: lib.linalg.det(bad))
    rec("logdet_nan", lib.logdet(bad))


def p_scoring_misuse(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(36)
    model = _mlp_ae(lib, 4).to(dt)
    x = lib.randn(6, 4, dtype=dt)
    err = F.mse_loss(model(x), x, reduction="none").mean(1)
    rec.err("numpy_rg", lambda: err.numpy())
    rec.err("item_many", lambda: err.item())
    rec.err("bool_many", lambda: bool(err > 0.5))
    rec.err("float_many", lambda: float(err))
    rec("list", err.tolist())
    with lib.inference_mode():
        s = F.mse_loss(model(x), x, reduction="none").mean(1)
    rec("inf_flag", s.is_inference())
    rec("inf_rg", s.requires_grad)
    w = lib.ones(6, dtype=dt, requires_grad=True)
    rec.err("inf_backward", lambda: (w * s).sum().backward())
    rec.err("inf_inplace", lambda: s.add_(1))
    with lib.no_grad():
        s2 = F.mse_loss(model(x), x, reduction="none").mean(1)
    rec("nograd_rg", s2.requires_grad)
    thr = lib.quantile(s2, 0.5, keepdim=True)
    rec("thr_shape", str(thr.shape))
    rec("flag", (s2 > thr).long())
    rec("thr_item", thr.item())
    rec.err("tensor_of_tensors", lambda: lib.tensor([s2[0], s2[1]]))
    rec("stack", lib.stack([s2[0], s2[1]]))
    rec.err("cat_0d", lambda: lib.cat([s2[0], s2[1]]))
    vals, inv = lib.unique(lib.tensor([0.3, 0.1, 0.3, 0.2], dtype=dt), return_inverse=True)
    rec("uniq", vals)
    rec("inv", inv)
    rec("nz", lib.nonzero(lib.diff(vals) > 0).flatten())
    rec("where1", lib.where(s2 > thr)[0])
    rec("argwhere", lib.argwhere(s2 > thr).flatten())
    rec.err("grad_of_nonscalar", lambda: model(x).backward())
    rec.err("mse_grad_target", lambda: F.mse_loss(model(x), model(x)).backward())


def p_svdd_module_state(lib, dt, rec):
    import io

    nn = lib.nn
    lib.manual_seed(37)

    class DeepSVDD(nn.Module):
        def __init__(self, rep_dim=3):
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(5, 8, bias=False),
                nn.BatchNorm1d(8, eps=1e-4, affine=False),
                nn.LeakyReLU(),
                nn.Linear(8, rep_dim, bias=False),
            )
            self.register_buffer("c", lib.zeros(rep_dim))
            self.R = 0.0

        def forward(self, x):
            return self.net(x)

        @lib.no_grad()
        def init_center(self, x, eps=0.1):
            z = self(x)
            c = z.mean(0)
            c[(abs(c) < eps) & (c < 0)] = -eps
            c[(abs(c) < eps) & (c > 0)] = eps
            self.c.copy_(c)

        def score(self, x):
            return ((self(x) - self.c) ** 2).sum(1)

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("leaky_relu"))

    m = DeepSVDD().to(dt)
    m.apply(init)
    x = lib.randn(16, 5, dtype=dt)
    m.init_center(x)
    rec("c", m.c)
    rec("keys", str(list(m.state_dict())))
    rec("repr", repr(m))
    rec("n_params", sum(p.numel() for p in m.parameters()))
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    opt = lib.optim.Adam(m.parameters(), lr=1e-3, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        loss = m.score(x).mean()
        loss.backward()
        opt.step()
    rec("loss", loss)
    m.eval()
    rec("scores", m.score(x[:4]))
    buf = io.BytesIO()
    lib.save({"model": m.state_dict(), "R": m.R, "c": m.c, "opt": opt.state_dict()}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    m2 = DeepSVDD().to(dt)
    res = m2.load_state_dict(ck["model"])
    rec("res", repr(res))
    m2.eval()
    rec("same", lib.equal(m2.score(x[:4]), m.score(x[:4])))
    rec("ck_keys", str(sorted(ck)))
    rec.err("load_bad", lambda: DeepSVDD(4).to(dt).load_state_dict(ck["model"]))
    rec("amsgrad_state", str(sorted(opt.state_dict()["state"][0])))
    rec("max_exp", opt.state_dict()["state"][0]["max_exp_avg_sq"])


def p_tensor_hyperparams(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(38)
    x = lib.randn(8, 4, dtype=dt)
    y = x + 0.3 * lib.randn(8, 4, dtype=dt)
    # hyperparameters that arrive as tensors (from a config, a learned buffer or a schedule)
    delta = lib.tensor(0.5, dtype=dt)
    rec("huber", F.huber_loss(x, y, delta=delta, reduction="none").mean(1))
    rec("huber_int", F.huber_loss(x, y, delta=lib.tensor(2)))
    rec("smooth", F.smooth_l1_loss(x, y, beta=lib.tensor(0.25, dtype=dt)))
    learned = lib.tensor(0.5, dtype=dt, requires_grad=True)
    rec.err("huber_rg", lambda: F.huber_loss(x, y, delta=learned))
    rec.err("smooth_vec", lambda: F.smooth_l1_loss(x, y, beta=lib.tensor([0.5])))
    rec.err(
        "margin_rank_rg",
        lambda: F.margin_ranking_loss(x[:, 0], y[:, 0], x[:, 1].sign(), margin=learned),
    )
    rec.err("hinge_rg", lambda: F.hinge_embedding_loss(x, y.sign(), margin=learned))
    rec.err(
        "cos_emb_rg", lambda: F.cosine_embedding_loss(x, y, lib.ones(8, dtype=dt), margin=learned)
    )
    rec.err("triplet_vec", lambda: F.triplet_margin_loss(x, y, -x, margin=lib.tensor([0.5])))
    rec.err("triplet_rg", lambda: F.triplet_margin_loss(x, y, -x, margin=learned))
    rec("triplet_0d", F.triplet_margin_loss(x, y, -x, margin=lib.tensor(0.5)))
    rec.err("pd_eps_vec", lambda: F.pairwise_distance(x, y, eps=lib.tensor([1e-6])))
    rec.err("pd_eps_rg", lambda: F.pairwise_distance(x, y, eps=learned))
    rec.err("pd_p_rg", lambda: F.pairwise_distance(x, y, p=learned))
    rec.err("cos_eps_rg", lambda: F.cosine_similarity(x, y, eps=learned))
    rec.err("dropout_vec", lambda: F.dropout(x, p=lib.tensor([0.5]), training=False))
    rec.err("dropout_rg", lambda: F.dropout(x, p=learned, training=False))
    rec.err("dropout_vec_range", lambda: F.dropout(x, p=lib.tensor([1.5])))
    rec.err("pad_rg", lambda: F.pad(x, (1, 1), value=learned))
    rec("histc_0d", lib.histc(x, bins=4, min=lib.tensor(-1.0), max=1.0))
    rec.err("histc_vec", lambda: lib.histc(x, bins=4, min=lib.tensor([-1.0]), max=1.0))
    rec.err("histc_rg", lambda: lib.histc(x, bins=4, max=learned))
