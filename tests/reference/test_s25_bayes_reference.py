"""Session 25 (bayes): probabilistic-modelling programs in plain torch (no Pyro), each written
once against a `torch`-like module and run under torch and minitorch after the same manual_seed:
Bayes-by-backprop, full-covariance VI for logistic regression, flows from transforms, mixtures
fitted by gradient, Independent/event shapes, Beta-binomial and Dirichlet-multinomial models,
Poisson/NegativeBinomial GLMs, Stein variational gradient descent, a Laplace approximation,
SWA statistics, ensemble entropy with conformal quantiles, VAE ELBOs with discrete and relaxed
likelihoods, LKJ/Wishart priors, scalar priors (log_prob/cdf/icdf/moments/support), KL between
families with register_kl, and a user-written Distribution subclass.
Every recorded value (samples, log-probs, gradients, reprs, exception type and message) must
agree: float64 to 1e-10 of its scale, float32 to 1e-4."""

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


# --- the programs: each takes the library, a dtype and a recorder ---


def p_bayes_by_backprop(lib, dt, rec):
    """A Bayes-by-backprop linear layer: softplus std, rsample, KL to a N(0, 1) prior, and the
    local reparametrisation trick; three Adam steps on a regression ELBO."""
    D = lib.distributions
    F = lib.nn.functional
    lib.manual_seed(0)
    x = lib.randn(16, 3, dtype=dt)
    y = x @ lib.tensor([1.0, -2.0, 0.5], dtype=dt) + 0.1 * lib.randn(16, dtype=dt)
    mu = lib.zeros(3, dtype=dt, requires_grad=True)
    rho = lib.full((3,), -3.0, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([mu, rho], lr=0.1)
    prior = D.Normal(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt))
    for it in range(3):
        opt.zero_grad()
        q = D.Normal(mu, F.softplus(rho))
        w = q.rsample()
        nll = -D.Normal(x @ w, 0.1).log_prob(y).sum()
        kl = D.kl_divergence(q, prior).sum()
        loss = nll + kl
        loss.backward()
        rec(f"w{it}", w)
        rec(f"kl{it}", kl)
        rec(f"loss{it}", loss)
        rec(f"gmu{it}", mu.grad)
        rec(f"grho{it}", rho.grad)
        opt.step()
    # local reparametrisation: sample the pre-activations instead of the weights
    with lib.no_grad():
        std = F.softplus(rho)
        act_mu = x @ mu
        act_std = (x.pow(2) @ std.pow(2)).sqrt()
        eps = lib.randn_like(act_mu)
        rec("local", act_mu + act_std * eps)
    q = D.Normal(mu, F.softplus(rho))
    rec("repr", repr(D.Normal(lib.zeros(2, dtype=dt), 1.0)))
    rec("q.sample(2)", q.sample((2,)))
    rec("q.entropy", q.entropy())
    rec("q.cdf", q.cdf(lib.zeros(3, dtype=dt)))
    rec("q.icdf", q.icdf(lib.full((3,), 0.25, dtype=dt)))


def p_vi_logistic_fullcov(lib, dt, rec):
    """VI on a logistic regression with a full-covariance guide MultivariateNormal(scale_tril)."""
    D = lib.distributions
    F = lib.nn.functional
    lib.manual_seed(1)
    n, d = 40, 3
    X = lib.randn(n, d, dtype=dt)
    w_true = lib.tensor([1.5, -1.0, 0.5], dtype=dt)
    y = D.Bernoulli(logits=X @ w_true).sample()
    rec("y", y)
    loc = lib.zeros(d, dtype=dt, requires_grad=True)
    raw_diag = lib.zeros(d, dtype=dt, requires_grad=True)
    off = lib.zeros(d, d, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([loc, raw_diag, off], lr=0.05)
    prior = D.MultivariateNormal(lib.zeros(d, dtype=dt), scale_tril=lib.eye(d, dtype=dt))
    for it in range(4):
        opt.zero_grad()
        L = lib.tril(off, -1) + lib.diag_embed(F.softplus(raw_diag))
        q = D.MultivariateNormal(loc, scale_tril=L)
        ws = q.rsample((8,))
        logits = ws @ X.T
        ll = D.Bernoulli(logits=logits).log_prob(y).sum(-1)
        elbo = (ll + prior.log_prob(ws) - q.log_prob(ws)).mean()
        (-elbo).backward()
        rec(f"elbo{it}", elbo)
        rec(f"entropy{it}", q.entropy())
        rec(f"gL{it}", off.grad)
        rec(f"gd{it}", raw_diag.grad)
        opt.step()
    with lib.no_grad():
        L = lib.tril(off, -1) + lib.diag_embed(F.softplus(raw_diag))
        q = D.MultivariateNormal(loc, scale_tril=L)
        rec("cov", q.covariance_matrix)
        rec("prec", q.precision_matrix)
        rec("var", q.variance)
        rec("kl_prior", D.kl_divergence(q, prior))
        rec("bshape", str((q.batch_shape, q.event_shape)))
        q2 = D.MultivariateNormal(loc, covariance_matrix=q.covariance_matrix)
        rec("lp_cov", q2.log_prob(lib.ones(2, d, dtype=dt)))


def p_flows(lib, dt, rec):
    """Flows from transforms: affine/exp/sigmoid/tanh compositions, StickBreaking, biject_to."""
    D = lib.distributions
    T = D.transforms
    C = D.constraints
    lib.manual_seed(2)
    base = D.Normal(lib.zeros(4, dtype=dt), lib.ones(4, dtype=dt))
    scale = lib.full((4,), 0.5, dtype=dt, requires_grad=True)
    shift = lib.zeros(4, dtype=dt, requires_grad=True)
    for name, tail in [("exp", T.ExpTransform()), ("sig", T.SigmoidTransform()),
                       ("tanh", T.TanhTransform())]:  # fmt: skip
        t = T.ComposeTransform([T.AffineTransform(shift, scale), tail])
        flow = D.TransformedDistribution(base, [t])
        z = flow.rsample((3,))
        lp = flow.log_prob(z.detach().clamp(-0.999, 0.999) if name == "tanh" else z.detach())
        lp.sum().backward()
        rec(name + ".z", z)
        rec(name + ".lp", lp)
        rec(name + ".gscale", scale.grad)
        scale.grad = None
        shift.grad = None
        x = lib.linspace(-1, 1, 4, dtype=dt)
        rec(name + ".ladj", t.log_abs_det_jacobian(x, t(x)))
        rec(name + ".inv", t.inv(t(x)))
    sb = T.StickBreakingTransform()
    u = lib.randn(2, 3, dtype=dt)
    p = sb(u)
    rec("sb", p)
    rec("sb.inv", sb.inv(p))
    rec("sb.ladj", sb.log_abs_det_jacobian(u, p))
    rec("sb.shapes", str((sb.forward_shape((2, 3)), sb.inverse_shape((2, 4)))))
    for c in [C.positive, C.unit_interval, C.simplex, C.interval(-2.0, 3.0), C.greater_than(1.0),
              C.corr_cholesky, C.real]:  # fmt: skip
        t = D.biject_to(c)
        v = lib.randn(3, dtype=dt) if c is not C.corr_cholesky else lib.randn(6, dtype=dt)
        y = t(v)
        rec(f"biject.{c}", y)
        rec(f"biject.{c}.ok", c.check(y))
        rec(f"biject.{c}.repr", repr(t))
    td = D.TransformedDistribution(D.Uniform(lib.zeros((), dtype=dt), 1.0),
                                   [T.SigmoidTransform().inv])  # fmt: skip
    rec("logistic.sample", td.sample((5,)))
    rec("logistic.lp", td.log_prob(lib.linspace(-2, 2, 5, dtype=dt)))
    rec("logistic.cdf", td.cdf(lib.linspace(-2, 2, 5, dtype=dt)))


def p_mixture(lib, dt, rec):
    """MixtureSameFamily of Normals and of MultivariateNormals fitted by gradient."""
    D = lib.distributions
    lib.manual_seed(3)
    data = lib.cat([lib.randn(30, dtype=dt) - 2, lib.randn(30, dtype=dt) * 0.5 + 1.5])
    logits = lib.zeros(2, dtype=dt, requires_grad=True)
    locs = lib.tensor([-1.0, 1.0], dtype=dt, requires_grad=True)
    log_scales = lib.zeros(2, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([logits, locs, log_scales], lr=0.01)
    for it in range(5):
        opt.zero_grad()
        mix = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(locs, log_scales.exp()))
        nll = -mix.log_prob(data).mean()
        nll.backward()
        rec(f"nll{it}", nll)
        rec(f"glocs{it}", locs.grad)
        opt.step()
    rec("mean", mix.mean)
    rec("var", mix.variance)
    rec("cdf", mix.cdf(lib.tensor([-2.0, 0.0, 1.5], dtype=dt)))
    rec("sample", mix.sample((6,)))
    rec("repr", repr(mix).replace("\n", " "))
    comp = D.MultivariateNormal(
        lib.tensor([[0.0, 0.0], [2.0, 1.0], [-1.0, 2.0]], dtype=dt),
        scale_tril=lib.eye(2, dtype=dt).expand(3, 2, 2) * 0.7,
    )
    mix2 = D.MixtureSameFamily(D.Categorical(probs=lib.tensor([0.2, 0.5, 0.3], dtype=dt)), comp)
    pts = mix2.sample((4,))
    rec("mvn.sample", pts)
    rec("mvn.lp", mix2.log_prob(pts))
    rec("mvn.mean", mix2.mean)
    rec("mvn.shapes", str((mix2.batch_shape, mix2.event_shape)))
    rec.err("bad_mix", lambda: D.MixtureSameFamily(D.Categorical(logits=lib.zeros(3)),
                                                  D.Normal(lib.zeros(2), 1.0)))  # fmt: skip


def p_shapes(lib, dt, rec):
    """Independent and event shapes: batch_shape/event_shape, expand, sample shapes."""
    D = lib.distributions
    lib.manual_seed(4)
    n = D.Normal(lib.zeros(3, 2, dtype=dt), lib.ones(3, 2, dtype=dt))
    ind = D.Independent(n, 1)
    rec("ind.shapes", str((ind.batch_shape, ind.event_shape)))
    rec("ind.repr", repr(ind))
    s = ind.sample((4,))
    rec("ind.sample", s)
    rec("ind.lp", ind.log_prob(s))
    rec("ind.entropy", ind.entropy())
    e = ind.expand((5, 3))
    rec("exp.shapes", str((e.batch_shape, e.event_shape)))
    rec("exp.sample", e.sample().shape)
    rec("ind2.lp", D.Independent(n, 2).log_prob(lib.zeros(3, 2, dtype=dt)))
    rec.err("ind.bad", lambda: D.Independent(n, 3))
    rec("kl_ind", D.kl_divergence(ind, D.Independent(D.Normal(lib.ones(3, 2, dtype=dt), 2.0), 1)))
    cat = D.Categorical(logits=lib.randn(2, 4, dtype=dt))
    rec("cat.shapes", str((cat.batch_shape, cat.event_shape, cat.sample((3,)).shape)))
    rec("cat.enum", cat.enumerate_support())
    rec("cat.enum_noexp", cat.enumerate_support(expand=False).shape)
    rec("cat.lp", cat.log_prob(lib.tensor([[0], [3]])))
    b = D.Bernoulli(probs=lib.full((2, 1), 0.3, dtype=dt)).expand((2, 3))
    rec("bern.sample", b.sample((2,)))
    rec("bern.shapes", str(b.batch_shape))
    rec.err("bad_expand", lambda: b.expand((4, 3)))
    rec.err("shape_mismatch", lambda: ind.log_prob(lib.zeros(4, 3, dtype=dt)))
    d = D.Dirichlet(lib.ones(2, 3, dtype=dt) * 2)
    rec("dir.shapes", str((d.batch_shape, d.event_shape)))
    rec("dir.sample", d.sample((2,)))
    rec("dir.es", str(d.sample((2,)).shape))


def p_beta_binomial(lib, dt, rec):
    """Beta-binomial and Dirichlet-multinomial models: conjugate posteriors, marginals by lgamma."""
    D = lib.distributions
    lib.manual_seed(5)
    theta = D.Beta(lib.tensor(2.0, dtype=dt), lib.tensor(3.0, dtype=dt)).sample((6,))
    rec("theta", theta)
    k = D.Binomial(total_count=10, probs=theta).sample()
    rec("k", k)
    post = D.Beta(2.0 + k.sum(), 3.0 + (10 * 6 - k.sum()))
    rec("post.mean", post.mean)
    rec("post.var", post.variance)
    rec("post.mode", post.mode)
    rec("post.sample", post.sample((3,)))

    def lbeta(a, b):
        return lib.lgamma(a) + lib.lgamma(b) - lib.lgamma(a + b)

    a = lib.tensor(2.0, dtype=dt, requires_grad=True)
    b = lib.tensor(3.0, dtype=dt, requires_grad=True)
    n = lib.tensor(10.0, dtype=dt)
    logc = lib.lgamma(n + 1) - lib.lgamma(k + 1) - lib.lgamma(n - k + 1)
    marg = (logc + lbeta(k + a, n - k + b) - lbeta(a, b)).sum()
    marg.backward()
    rec("marg", marg)
    rec("ga", a.grad)
    rec("gb", b.grad)
    bin_ = D.Binomial(total_count=lib.tensor([5.0, 10.0], dtype=dt), logits=lib.tensor(
        [0.3, -0.7], dtype=dt))  # fmt: skip
    rec("bin.lp", bin_.log_prob(lib.tensor([2.0, 7.0], dtype=dt)))
    rec("bin.mean", bin_.mean)
    rec("bin.mode", bin_.mode)
    rec.err("bin.ent", lambda: bin_.entropy())
    rec("bin.ent5", D.Binomial(5, logits=bin_.logits).entropy())
    rec.err("bin.enum", lambda: bin_.enumerate_support())
    rec("bin.enum5", D.Binomial(3, logits=bin_.logits).enumerate_support())
    alpha = lib.tensor([1.0, 2.0, 3.0], dtype=dt)
    p = D.Dirichlet(alpha).sample()
    rec("dir.p", p)
    counts = D.Multinomial(20, probs=p).sample((2,))
    rec("counts", counts)
    m = D.Multinomial(20, probs=p)
    rec("mn.lp", m.log_prob(counts))
    rec("mn.mean", m.mean)
    rec("mn.var", m.variance)
    post = D.Dirichlet(alpha + counts.sum(0))
    rec("dpost.mean", post.mean)
    rec("dpost.lp", post.log_prob(p))
    rec("dpost.ent", post.entropy())
    dm = (lib.lgamma(alpha.sum()) - lib.lgamma(alpha.sum() + 20)
          + (lib.lgamma(alpha + counts[0]) - lib.lgamma(alpha)).sum())  # fmt: skip
    rec("dm", dm)
    rec.err("mn.bad", lambda: m.log_prob(lib.tensor([1.0, 2.0, 3.0], dtype=dt)))
    rec.err("bin.bad", lambda: bin_.log_prob(lib.tensor([2.5, 1.0], dtype=dt)))


def p_count_glm(lib, dt, rec):
    """Poisson and NegativeBinomial GLMs fitted by gradient descent."""
    D = lib.distributions
    F = lib.nn.functional
    lib.manual_seed(6)
    X = lib.randn(30, 2, dtype=dt)
    rate = (X @ lib.tensor([0.5, -0.3], dtype=dt) + 1.0).exp()
    y = D.Poisson(rate).sample()
    rec("y", y)
    w = lib.zeros(2, dtype=dt, requires_grad=True)
    b = lib.zeros((), dtype=dt, requires_grad=True)
    log_r = lib.zeros((), dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([w, b, log_r], lr=0.1)
    for it in range(4):
        opt.zero_grad()
        eta = X @ w + b
        pois = -D.Poisson(eta.exp()).log_prob(y).mean()
        nb = -D.NegativeBinomial(total_count=log_r.exp(), logits=eta - log_r).log_prob(y).mean()
        (pois + nb).backward()
        rec(f"pois{it}", pois)
        rec(f"nb{it}", nb)
        rec(f"gw{it}", w.grad)
        rec(f"gr{it}", log_r.grad)
        opt.step()
    nbd = D.NegativeBinomial(total_count=lib.tensor(3.0, dtype=dt), probs=lib.tensor(
        0.4, dtype=dt))  # fmt: skip
    rec("nb.mean", nbd.mean)
    rec("nb.var", nbd.variance)
    rec("nb.mode", nbd.mode)
    rec("nb.sample", nbd.sample((5,)))
    pd = D.Poisson(lib.tensor([0.5, 3.0], dtype=dt))
    rec("pois.sample", pd.sample((3,)))
    rec("pois.mode", pd.mode)
    rec("pois_loss", F.poisson_nll_loss(lib.log(rate), y))
    rec("pois_loss_full", F.poisson_nll_loss(rate, y, log_input=False, full=True))
    rec.err("pois.neg", lambda: pd.log_prob(lib.tensor([-1.0, 1.0], dtype=dt)))
    rec.err("pois.badrate", lambda: D.Poisson(lib.tensor([-1.0], dtype=dt)))


def p_svgd(lib, dt, rec):
    """Stein variational gradient descent on a 2-D Gaussian mixture; RBF kernel with the median
    heuristic via cdist/median, scores by autograd.grad of log_prob."""
    D = lib.distributions
    lib.manual_seed(7)
    target = D.MixtureSameFamily(
        D.Categorical(logits=lib.zeros(2, dtype=dt)),
        D.Independent(
            D.Normal(lib.tensor([[-2.0, 0.0], [2.0, 0.0]], dtype=dt), lib.ones(2, 2, dtype=dt)), 1
        ),  # fmt: skip
    )
    x = lib.randn(12, 2, dtype=dt)
    for it in range(5):
        x = x.detach().requires_grad_(True)
        (score,) = lib.autograd.grad(target.log_prob(x).sum(), x)
        d = lib.cdist(x.detach(), x.detach())
        h = d.pow(2).median() / math.log(x.shape[0] + 1)
        K = lib.exp(-d.pow(2) / h)
        gradK = -(2.0 / h) * (K.unsqueeze(-1) * (x.detach().unsqueeze(1) - x.detach()
                                                 .unsqueeze(0))).sum(0)  # fmt: skip
        phi = (K @ score + gradK) / x.shape[0]
        x = x.detach() + 0.5 * phi
        rec(f"h{it}", h)
        rec(f"x{it}", x)
    rec("median_dim", lib.median(d, dim=1).values)
    rec("median_idx", lib.median(d, dim=1).indices)
    rec("nanmedian", lib.tensor([1.0, float("nan"), 3.0, 2.0], dtype=dt).nanmedian())


def p_laplace(lib, dt, rec):
    """Laplace approximation of a logistic-regression posterior: MAP by LBFGS, hessian by
    autograd.functional.hessian, MultivariateNormal posterior predictive."""
    D = lib.distributions
    lib.manual_seed(8)
    X = lib.randn(25, 2, dtype=dt)
    y = (X @ lib.tensor([1.0, -1.0], dtype=dt) + 0.3 * lib.randn(25, dtype=dt) > 0).to(dt)

    def neg_log_post(w):
        lik = D.Bernoulli(logits=X @ w).log_prob(y).sum()
        pri = D.Normal(lib.zeros(2, dtype=dt), 2.0).log_prob(w).sum()
        return -(lik + pri)

    w = lib.zeros(2, dtype=dt, requires_grad=True)
    opt = lib.optim.LBFGS([w], lr=1.0, max_iter=20)

    def closure():
        opt.zero_grad()
        loss = neg_log_post(w)
        loss.backward()
        return loss

    opt.step(closure)
    rec("map", w)
    H = lib.autograd.functional.hessian(neg_log_post, w.detach())
    rec("H", H)
    cov = lib.linalg.inv(H)
    rec("cov", cov)
    post = D.MultivariateNormal(w.detach(), covariance_matrix=cov)
    ws = post.sample((200,))
    xs = lib.tensor([[0.5, 0.5], [1.0, -1.0]], dtype=dt)
    rec("pred_mc", lib.sigmoid(ws @ xs.T).mean(0))
    mu = xs @ w.detach()
    s2 = (xs @ cov * xs).sum(-1)
    rec("pred_probit", lib.sigmoid(mu / lib.sqrt(1 + math.pi * s2 / 8)))
    rec("post.lp", post.log_prob(w.detach()))
    rec("post.ent", post.entropy())
    rec("post.repr", repr(post))


def p_swag(lib, dt, rec):
    """SWA/SWAG statistics with optim.swa_utils: AveragedModel, SWALR, running second moments,
    and a diagonal SWAG posterior sample."""
    nn = lib.nn
    swa = lib.optim.swa_utils
    lib.manual_seed(9)
    X = lib.randn(32, 3, dtype=dt)
    y = X @ lib.tensor([[1.0], [-1.0], [0.5]], dtype=dt)
    model = nn.Linear(3, 1).to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    avg = swa.AveragedModel(model)
    sched = swa.SWALR(opt, swa_lr=0.02, anneal_epochs=2)
    first = lib.zeros(4, dtype=dt)
    second = lib.zeros(4, dtype=dt)
    for ep in range(5):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        opt.step()
        avg.update_parameters(model)
        sched.step()
        flat = lib.nn.utils.parameters_to_vector(model.parameters()).detach()
        first = (first * ep + flat) / (ep + 1)
        second = (second * ep + flat.pow(2)) / (ep + 1)
        rec(f"loss{ep}", loss)
        rec(f"lr{ep}", opt.param_groups[0]["lr"])
    rec("avg.n", avg.n_averaged)
    rec("avg.w", avg.module.weight)
    rec("first", first)
    var = (second - first.pow(2)).clamp_min(1e-30)
    rec("var", var)
    sample = first + var.sqrt() * lib.randn(4, dtype=dt)
    rec("sample", sample)
    ema = swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    ema.update_parameters(model)
    ema.update_parameters(model)
    rec("ema.w", ema.module.weight)


def p_ensemble_conformal(lib, dt, rec):
    """Deep-ensemble predictive entropy and mutual information; split conformal prediction with
    quantile interpolation modes."""
    nn = lib.nn
    lib.manual_seed(10)
    X = lib.randn(20, 4, dtype=dt)
    models = [nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt) for _ in range(3)]
    probs = lib.stack([m(X).softmax(-1) for m in models])
    mean_p = probs.mean(0)
    H = -(mean_p * mean_p.log()).sum(-1)
    EH = -(probs * probs.log()).sum(-1).mean(0)
    rec("H", H)
    rec("MI", H - EH)
    rec("cat_ent", lib.distributions.Categorical(probs=mean_p).entropy())
    labels = lib.randint(0, 3, (20,))
    scores = 1 - mean_p.gather(1, labels.unsqueeze(1)).squeeze(1)
    n = scores.numel()
    q_level = math.ceil((n + 1) * 0.9) / n
    for mode in ["linear", "lower", "higher", "midpoint", "nearest"]:
        rec(f"q.{mode}", lib.quantile(scores, q_level, interpolation=mode))
    qhat = lib.quantile(scores, q_level, interpolation="higher")
    rec("sets", (1 - mean_p) <= qhat)
    rec("qs", lib.quantile(scores, lib.tensor([0.1, 0.5, 0.9], dtype=dt)))
    rec("nanq", lib.nanquantile(lib.tensor([1.0, float("nan"), 2.0], dtype=dt), 0.5))
    rec.err("q.bad", lambda: lib.quantile(scores, 1.5))
    rec.err("q.mode", lambda: lib.quantile(scores, 0.5, interpolation="cubic"))


def p_vae_elbos(lib, dt, rec):
    """ELBO terms of a VAE with Bernoulli / ContinuousBernoulli / Categorical(logits) /
    OneHotCategorical / RelaxedOneHotCategorical likelihoods and latents."""
    D = lib.distributions
    nn = lib.nn
    lib.manual_seed(11)
    x = (lib.rand(6, 8, dtype=dt) > 0.5).to(dt)
    enc = nn.Linear(8, 4).to(dt)
    dec = nn.Linear(2, 8).to(dt)
    h = enc(x)
    q = D.Normal(h[:, :2], nn.functional.softplus(h[:, 2:]) + 1e-3)
    z = q.rsample()
    logits = dec(z)
    bern = D.Bernoulli(logits=logits).log_prob(x).sum(-1)
    cb = D.ContinuousBernoulli(logits=logits).log_prob(x * 0.8 + 0.1).sum(-1)
    kl = D.kl_divergence(q, D.Normal(lib.zeros_like(z), 1.0)).sum(-1)
    elbo = (bern - kl).mean()
    elbo.backward()
    rec("z", z)
    rec("bern", bern)
    rec("cb", cb)
    rec("elbo", elbo)
    rec("g.enc", enc.weight.grad)
    cbd = D.ContinuousBernoulli(probs=lib.tensor([0.2, 0.5, 0.9], dtype=dt))
    rec("cb.mean", cbd.mean)
    rec("cb.var", cbd.variance)
    rec("cb.rsample", cbd.rsample((2,)))
    rec("cb.cdf", cbd.cdf(lib.tensor([0.3, 0.5, 0.7], dtype=dt)))
    rec("cb.icdf", cbd.icdf(lib.tensor([0.3, 0.5, 0.7], dtype=dt)))
    rec("cb.ent", cbd.entropy())
    cl = lib.randn(6, 5, dtype=dt)
    cat = D.Categorical(logits=cl)
    rec("cat.sample", cat.sample())
    rec("cat.lp", cat.log_prob(lib.arange(6) % 5))
    oh = D.OneHotCategorical(logits=cl)
    s = oh.sample()
    rec("oh.sample", s)
    rec("oh.lp", oh.log_prob(s))
    rec("oh.ent", oh.entropy())
    rec("oh.enum", oh.enumerate_support().shape)
    temp = lib.tensor(0.5, dtype=dt)
    rl = cl.clone().requires_grad_(True)
    r = D.RelaxedOneHotCategorical(temp, logits=rl)
    y = r.rsample()
    rec("relaxed", y)
    rec("relaxed.lp", r.log_prob(y.detach()))
    (y * lib.arange(5, dtype=dt)).sum().backward()
    rec("relaxed.g", rl.grad)
    rb = D.RelaxedBernoulli(temp, logits=cl[:, 0])
    rec("rb", rb.rsample())
    rec("kl_cat", D.kl_divergence(cat, D.Categorical(logits=lib.zeros(6, 5, dtype=dt))))
    rec("kl_oh", D.kl_divergence(oh, D.OneHotCategorical(logits=lib.zeros(6, 5, dtype=dt))))
    rec(
        "kl_bern",
        D.kl_divergence(D.Bernoulli(logits=cl[:, 0]), D.Bernoulli(probs=lib.tensor(0.3, dtype=dt))),
    )


def p_lkj_wishart(lib, dt, rec):
    """LKJCholesky priors on correlation factors and Wishart priors on precision matrices."""
    D = lib.distributions
    lib.manual_seed(12)
    lkj = D.LKJCholesky(3, concentration=lib.tensor(2.0, dtype=dt))
    L = lkj.sample((2,))
    rec("lkj.sample", L)
    rec("lkj.lp", lkj.log_prob(L))
    rec("lkj.corr", L @ L.transpose(-1, -2))
    rec("lkj.shapes", str((lkj.batch_shape, lkj.event_shape)))
    rec("lkj.repr", repr(lkj))
    sd = lib.tensor([1.0, 2.0, 0.5], dtype=dt)
    cov_L = sd.unsqueeze(-1) * L[0]
    mvn = D.MultivariateNormal(lib.zeros(3, dtype=dt), scale_tril=cov_L)
    rec("mvn.lp", mvn.log_prob(lib.ones(3, dtype=dt)))
    rec.err("biject.lower_cholesky", lambda: D.biject_to(D.constraints.lower_cholesky))
    rec.err("lkj.dim", lambda: D.LKJCholesky(1))
    wis = D.Wishart(df=lib.tensor(5.0, dtype=dt), covariance_matrix=lib.eye(3, dtype=dt) * 0.5)
    W = rec.warns("wis.warn", lambda: wis.sample((2,)))
    rec("wis.sample", W)
    rec("wis.lp", wis.log_prob(W))
    rec("wis.mean", wis.mean)
    rec("wis.var", wis.variance)
    rec("wis.mode", wis.mode)
    rec("wis.ent", wis.entropy())
    wis2 = D.Wishart(df=lib.tensor(4.0, dtype=dt), scale_tril=lib.eye(2, dtype=dt))
    rec("wis2.rsample", wis2.rsample())
    rec.err("wis.df", lambda: D.Wishart(df=lib.tensor(1.0, dtype=dt),
                                       covariance_matrix=lib.eye(3, dtype=dt)))  # fmt: skip


def p_scalar_priors(lib, dt, rec):
    """Scalar priors: log_prob, cdf/icdf where defined, mean/variance/mode/entropy, support
    checks and validate_args errors."""
    D = lib.distributions
    lib.manual_seed(13)

    def t(*v):
        return lib.tensor(v, dtype=dt)

    dists = {
        "vonmises": D.VonMises(t(0.5), t(2.0)),
        "kumaraswamy": D.Kumaraswamy(t(2.0), t(3.0)),
        "weibull": D.Weibull(t(1.5), t(2.0)),
        "gumbel": D.Gumbel(t(0.0), t(1.5)),
        "laplace": D.Laplace(t(1.0), t(0.5)),
        "cauchy": D.Cauchy(t(0.0), t(1.0)),
        "halfnormal": D.HalfNormal(t(1.5)),
        "halfcauchy": D.HalfCauchy(t(1.0)),
        "lognormal": D.LogNormal(t(0.0), t(0.5)),
        "pareto": D.Pareto(t(1.0), t(3.0)),
        "uniform": D.Uniform(t(-1.0), t(2.0)),
        "studentt": D.StudentT(t(4.0), t(0.0), t(1.0)),
        "gamma": D.Gamma(t(2.0), t(1.5)),
        "exponential": D.Exponential(t(2.0)),
        "chi2": D.Chi2(t(3.0)),
        "invgamma": D.InverseGamma(t(3.0), t(2.0)),
    }
    pts = t(0.3, 0.9, 1.7)
    for name, d in dists.items():
        rec(name + ".repr", repr(d))
        rec(name + ".sample", d.sample((3,)))
        rec.err(name + ".lp", lambda d=d, name=name: rec(name + ".lpv", d.log_prob(pts)))
        for attr in ["mean", "variance", "stddev", "mode", "entropy"]:
            rec.err(
                name + "." + attr,
                lambda d=d, a=attr, name=name: rec(
                    name + "." + a + "v", getattr(d, a)() if a == "entropy" else getattr(d, a)
                ),
            )
        rec.err(name + ".cdf", lambda d=d, name=name: rec(name + ".cdfv", d.cdf(pts)))
        rec.err(
            name + ".icdf", lambda d=d, name=name: rec(name + ".icdfv", d.icdf(t(0.1, 0.5, 0.9)))
        )
        rec(name + ".support", str(d.support))
        rec(name + ".rsample", str(d.has_rsample))
    rec.err("laplace.badscale", lambda: D.Laplace(t(0.0), t(-1.0)))
    rec.err("uniform.order", lambda: D.Uniform(t(2.0), t(1.0)))
    rec.err("pareto.lp_out", lambda: D.Pareto(t(1.0), t(3.0)).log_prob(t(0.5)))
    rec.err("lognormal.neg", lambda: D.LogNormal(t(0.0), t(1.0)).log_prob(t(-1.0)))
    rec.err("uniform.out", lambda: D.Uniform(t(0.0), t(1.0)).log_prob(t(1.5)))
    rec("uniform.out_novalid", D.Uniform(t(0.0), t(1.0), validate_args=False).log_prob(t(1.5)))
    rec.err("vm.badconc", lambda: D.VonMises(t(0.0), t(-1.0)))
    rec.err("kumaraswamy.out", lambda: D.Kumaraswamy(t(2.0), t(3.0)).log_prob(t(1.5)))


def p_kl_families(lib, dt, rec):
    """kl_divergence between families, the NotImplementedError for an unregistered pair, and
    register_kl for a custom pair."""
    D = lib.distributions
    lib.manual_seed(14)

    def t(*v):
        return lib.tensor(v, dtype=dt)

    pairs = [
        ("normal_normal", D.Normal(t(0.0, 1.0), t(1.0, 2.0)), D.Normal(t(1.0), t(1.5))),
        ("gamma_gamma", D.Gamma(t(2.0), t(1.0)), D.Gamma(t(3.0), t(2.0))),
        ("beta_beta", D.Beta(t(2.0), t(3.0)), D.Beta(t(1.0), t(1.0))),
        ("exp_gamma", D.Exponential(t(2.0)), D.Gamma(t(2.0), t(1.0))),
        ("laplace_normal", D.Laplace(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0))),
        ("uniform_normal", D.Uniform(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0))),
        ("normal_laplace", D.Normal(t(0.0), t(1.0)), D.Laplace(t(0.0), t(1.0))),
        ("gumbel_normal", D.Gumbel(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0))),
        ("poisson_poisson", D.Poisson(t(2.0)), D.Poisson(t(3.0))),
        ("dirichlet", D.Dirichlet(t(1.0, 2.0, 3.0)), D.Dirichlet(t(2.0, 2.0, 2.0))),
        ("lognormal", D.LogNormal(t(0.0), t(1.0)), D.LogNormal(t(1.0), t(2.0))),
        ("halfnormal", D.HalfNormal(t(1.0)), D.HalfNormal(t(2.0))),
        ("pareto_exp", D.Pareto(t(1.0), t(2.0)), D.Exponential(t(1.0))),
        ("uniform_uniform", D.Uniform(t(0.0), t(2.0)), D.Uniform(t(-1.0), t(3.0))),
        ("uniform_inner", D.Uniform(t(-1.0), t(3.0)), D.Uniform(t(0.0), t(2.0))),
        ("geometric", D.Geometric(t(0.3)), D.Geometric(t(0.6))),
        ("binomial", D.Binomial(5, t(0.3)), D.Binomial(5, t(0.6))),
        ("cauchy", D.Cauchy(t(0.0), t(1.0)), D.Cauchy(t(1.0), t(2.0))),
        ("normal_gumbel", D.Normal(t(0.0), t(1.0)), D.Gumbel(t(0.0), t(1.0))),
        ("vm_normal", D.VonMises(t(0.0), t(1.0)), D.Normal(t(0.0), t(1.0))),
        ("chi2_chi2", D.Chi2(t(3.0)), D.Chi2(t(4.0))),
        (
            "mvn_mvn",
            D.MultivariateNormal(t(0.0, 0.0), lib.eye(2, dtype=dt)),
            D.MultivariateNormal(t(1.0, 0.0), 2 * lib.eye(2, dtype=dt)),
        ),  # fmt: skip
        (
            "lowrank",
            D.LowRankMultivariateNormal(t(0.0, 0.0), lib.ones(2, 1, dtype=dt), t(1.0, 1.0)),
            D.MultivariateNormal(t(0.0, 0.0), lib.eye(2, dtype=dt)),
        ),  # fmt: skip
    ]
    for name, p, q in pairs:
        rec.err(name, lambda p=p, q=q, name=name: rec(name + ".v", D.kl_divergence(p, q)))

    class Thing(D.Distribution):
        arg_constraints = {}

        def __init__(self, v):
            self.v = v
            super().__init__(validate_args=False)

    @D.register_kl(Thing, Thing)
    def _kl_thing(p, q):
        return (p.v - q.v).pow(2)

    rec("custom", D.kl_divergence(Thing(t(1.0)), Thing(t(3.0))))

    class SubNormal(D.Normal):
        pass

    rec("sub", D.kl_divergence(SubNormal(t(0.0), t(1.0)), D.Normal(t(1.0), t(1.0))))
    rec.err("thing_normal", lambda: D.kl_divergence(Thing(t(1.0)), D.Normal(t(0.0), t(1.0))))


def p_user_distribution(lib, dt, rec):
    """A user-written Distribution subclass: arg_constraints, support, rsample, has_rsample,
    _validate_sample, expand via _get_checked_instance, and use in a TransformedDistribution."""
    D = lib.distributions
    C = D.constraints
    lib.manual_seed(15)

    class Triangular(D.Distribution):
        arg_constraints = {"c": C.unit_interval}
        support = C.unit_interval
        has_rsample = True

        def __init__(self, c, validate_args=None):
            self.c = c
            super().__init__(c.shape, validate_args=validate_args)

        def expand(self, batch_shape, _instance=None):
            new = self._get_checked_instance(Triangular, _instance)
            new.c = self.c.expand(batch_shape)
            super(Triangular, new).__init__(batch_shape, validate_args=False)
            new._validate_args = self._validate_args
            return new

        def rsample(self, sample_shape=()):
            shape = self._extended_shape(sample_shape)
            u = lib.rand(shape, dtype=self.c.dtype)
            c = self.c.expand(shape)
            lo = (u * c).sqrt()
            hi = 1 - ((1 - u) * (1 - c)).sqrt()
            return lib.where(u < c, lo, hi)

        def log_prob(self, value):
            if self._validate_args:
                self._validate_sample(value)
            c = self.c
            return lib.where(value < c, lib.log(2 * value / c), lib.log(2 * (1 - value) / (1 - c)))

        @property
        def mean(self):
            return (1 + self.c) / 3

    c = lib.tensor([0.3, 0.6], dtype=dt, requires_grad=True)
    tri = Triangular(c)
    s = tri.rsample((3,))
    s.sum().backward()
    rec("s", s)
    rec("gc", c.grad)
    rec("lp", tri.log_prob(s.detach()))
    rec("shapes", str((tri.batch_shape, tri.event_shape)))
    rec("repr", repr(tri))
    rec("mean", tri.mean)
    rec.err("var", lambda: tri.variance)
    rec.err("ent", lambda: tri.entropy())
    rec.err("cdf", lambda: tri.cdf(s))
    rec.err("bad_arg", lambda: Triangular(lib.tensor([1.5], dtype=dt)))
    rec.err("bad_val", lambda: tri.log_prob(lib.tensor([0.5, 1.5], dtype=dt)))
    rec.err("bad_shape", lambda: tri.log_prob(lib.tensor([0.5, 0.5, 0.5], dtype=dt)))
    rec.err("not_tensor", lambda: tri.log_prob([0.5, 0.5]))
    ex = tri.expand((4, 2))
    rec("ex.shapes", str(tuple(ex.batch_shape)))
    rec("ex.sample", ex.sample())
    td = D.TransformedDistribution(tri, D.transforms.AffineTransform(1.0, 2.0))
    rec("td.sample", td.sample())
    rec("td.lp", td.log_prob(lib.tensor([1.5, 2.5], dtype=dt)))
    rec("td.support", str(td.support))
    rec.err("no_rsample", lambda: D.Poisson(lib.ones(2, dtype=dt)).rsample())


PROGRAMS = [
    "bayes_by_backprop", "vi_logistic_fullcov", "flows", "mixture", "shapes", "beta_binomial",
    "count_glm", "svgd", "laplace", "swag", "ensemble_conformal", "vae_elbos", "lkj_wishart",
    "scalar_priors", "kl_families", "user_distribution",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True, first_line=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True, first_line=True))
    tol = 1e-10 if dt == "float64" else 1e-4
    assert_records_match(want, got, tol, rename=True)
