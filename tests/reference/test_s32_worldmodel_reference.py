"""Session 32 (helper worldmodel): world models and model-based RL written the way such code is
written in torch, run under torch and minitorch with the same seeds and compared record by record:
World Models' ConvVAE (stride-2 Conv2d encoder, flatten, mu/logvar, reparameterisation,
ConvTranspose2d decoder, KL with free nats), the MDN-RNN (nn.LSTM batch_first with initial
states, a GMM head by logsumexp and by MixtureSameFamily, temperature sampling), controllers by
CMA-ES in torch (seeded randn populations, argsort, weighted recombination, rank-one and rank-mu
covariance updates with outer/einsum, eigh and cholesky, solve_triangular) and antithetic ES,
Dreamer's RSSM (GRUCell, categorical latents with straight-through one_hot + softmax, OneHot-
CategoricalStraightThrough, KL balancing with kl_divergence and detach, free bits by clamp,
unimix), DreamerV2's LayerNorm GRU cell, lambda-returns, GAE and discount weights computed
backwards in Python loops with stack/flip/cumprod, imagination rollouts with a frozen world model
and under no_grad, tanh-Normal actors, slow target critics (lerp_, _foreach, deepcopy), symlog/
symexp, two-hot encodings (comparisons, bucketize, scatter_add_), percentile return scaling by
quantile, replay buffers (uint8 frames, randint windows), PlaNet's CEM and TD-MPC's MPPI
planners, MBPO ensembles (baddbmm, softplus log-variance bounds, vmap over stacked modules),
MuZero's value transform and support, DrQ's random-shift augmentation (grid_sample),
dynamics Jacobians (jacrev/jacfwd/hessian) and gradient-based planning, Adam with eps (amsgrad,
foreach, fused, param groups), gradient clipping by norm and value, autocast/GradScaler, seeds
and Generators, reprs, and the errors and warnings users hit (wrong hidden states, dtype and
shape mismatches, bad distribution parameters, in-place and no-grad autograd errors, empty
batches). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed: none: the 49 programs found no difference from torch 2.13 in the library
(also checked: with argument validation off, none of these training steps reads device data
back on the strict test device).

Known and left (documented):
- An LSTM given a single Tensor or a tuple of three as hx, or a float16 hidden state with a
  float32/float64 LSTM: these record the exception type only (the messages now are torch's too:
  "index 1 is out of bounds for dimension 0 with size 1", "lstm expects two hidden states", and
  oneDNN's or the matmul's words).
- pack_padded_sequence with a length above the padded length raises here; torch 2.13 reads past
  the tensor without an error. Not recorded.
- Records chosen for robustness: a float32 softmax can differ from torch's in the last bit, so
  (one_hot + p - p.detach()) is not compared for being exactly one-hot; eigenvectors of close
  eigenvalues are compared through B^T C B, not elementwise."""

from __future__ import annotations

import copy
import io
import math

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "vae_encoder", "vae_train", "mdn_rnn", "mdn_rnn_train", "mdn_sample", "cmaes_step",
    "cmaes_loop", "rssm_step", "rssm_observe", "kl_balance", "lambda_returns",
    "imagine", "symlog", "twohot", "free_bits", "clip_adam", "errors", "tanh_actor",
    "layernorm_gru", "return_norm", "replay", "decoder_nll", "conv_encoder", "cem_planner",
    "mvn_cmaes", "sep_cmaes_grad", "errors_args", "sampling", "grads", "ensembles",
    "errors_dtypes", "optim_dists", "errors_ops", "packed_rnn", "grad_modes", "loss_warnings",
    "cmaes_linalg", "errors_mixed", "reprs", "states_layouts", "init_hooks_groups",
    "autocast_halfs", "masked_actions", "drq_augment", "target_critic", "errors_shapes",
    "model_jacobians", "seeds", "empty_batches",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _vae_cls(lib):
    nn = lib.nn

    class ConvVAE(nn.Module):
        def __init__(self, z=8, ch=3):
            super().__init__()
            self.enc = nn.Sequential(
                nn.Conv2d(ch, 8, 4, stride=2), nn.ReLU(),
                nn.Conv2d(8, 16, 4, stride=2), nn.ReLU(),
            )  # fmt: skip
            self.fc_mu = nn.Linear(16 * 2 * 2, z)
            self.fc_logvar = nn.Linear(16 * 2 * 2, z)
            self.fc_dec = nn.Linear(z, 16 * 2 * 2)
            self.dec = nn.Sequential(
                nn.ConvTranspose2d(16, 8, 5, stride=2), nn.ReLU(),
                nn.ConvTranspose2d(8, ch, 4, stride=2), nn.Sigmoid(),
            )  # fmt: skip

        def encode(self, x):
            h = self.enc(x)
            h = h.view(h.size(0), -1)
            return self.fc_mu(h), self.fc_logvar(h)

        def decode(self, z):
            h = self.fc_dec(z).view(-1, 16, 2, 2)
            return self.dec(h)

        def forward(self, x, eps):
            mu, logvar = self.encode(x)
            sigma = (0.5 * logvar).exp()
            z = mu + sigma * eps
            return self.decode(z), mu, logvar

    return ConvVAE


def _vae_loss(lib, recon, x, mu, logvar):
    F = lib.nn.functional
    rl = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kld = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp()) / x.size(0)
    return rl, kld


def _mdn_rnn_cls(lib):
    nn = lib.nn

    class MDNRNN(nn.Module):
        def __init__(self, z=4, a=2, hidden=12, k=3):
            super().__init__()
            self.z, self.k = z, k
            self.rnn = nn.LSTM(z + a, hidden, batch_first=True)
            self.gmm = nn.Linear(hidden, (2 * z + 1) * k + 2)

        def forward(self, z, a, state=None):
            out, state = self.rnn(lib.cat([z, a], dim=-1), state)
            p = self.gmm(out)
            b, t = out.shape[:2]
            stride = self.k * self.z
            mus = p[..., :stride].view(b, t, self.k, self.z)
            sigmas = p[..., stride : 2 * stride].view(b, t, self.k, self.z).exp()
            logpi = lib.log_softmax(p[..., 2 * stride : 2 * stride + self.k], dim=-1)
            reward = p[..., -2]
            done = p[..., -1]
            return mus, sigmas, logpi, reward, done, state

    return MDNRNN


def _gmm_loss(lib, target, mus, sigmas, logpi):
    target = target.unsqueeze(-2)
    normal = lib.distributions.Normal(mus, sigmas)
    g_log_probs = normal.log_prob(target).sum(dim=-1)
    g_log_probs = logpi + g_log_probs
    max_log = g_log_probs.max(dim=-1, keepdim=True)[0]
    g_log_probs = g_log_probs - max_log
    probs = lib.sum(lib.exp(g_log_probs), dim=-1)
    log_prob = max_log.squeeze() + lib.log(probs)
    return -lib.mean(log_prob)


def _gmm_loss_lse(lib, target, mus, sigmas, logpi):
    t = target.unsqueeze(-2)
    lp = -0.5 * ((t - mus) / sigmas) ** 2 - sigmas.log() - 0.5 * math.log(2 * math.pi)
    return -lib.logsumexp(logpi + lp.sum(-1), dim=-1).mean()


def _frames(lib, dt, n=4, seed=1, ch=3, size=16):
    g = lib.Generator().manual_seed(seed)
    return lib.rand(n, ch, size, size, generator=g, dtype=dt)


def _rssm_cls(lib):
    nn = lib.nn
    F = nn.functional

    class RSSM(nn.Module):
        def __init__(self, action=2, embed=6, deter=10, stoch=3, classes=4, hidden=8):
            super().__init__()
            self.stoch, self.classes = stoch, classes
            self.img_in = nn.Linear(stoch * classes + action, hidden)
            self.cell = nn.GRUCell(hidden, deter)
            self.img_out = nn.Linear(deter, stoch * classes)
            self.obs_out = nn.Linear(deter + embed, stoch * classes)

        def initial(self, batch, dtype):
            return {
                "deter": lib.zeros(batch, self.cell.hidden_size, dtype=dtype),
                "stoch": lib.zeros(batch, self.stoch, self.classes, dtype=dtype),
                "logit": lib.zeros(batch, self.stoch, self.classes, dtype=dtype),
            }

        def sample(self, logit, u):
            # straight-through categorical: a sample from fixed uniforms (Gumbel-max), the
            # gradient of the softmax
            probs = F.softmax(logit, -1)
            gumbel = -lib.log(-lib.log(u))
            idx = (logit + gumbel).argmax(-1)
            onehot = F.one_hot(idx, self.classes).to(logit.dtype)
            return onehot + probs - probs.detach()

        def img_step(self, prev, action, u):
            x = lib.cat([prev["stoch"].flatten(1), action], -1)
            x = F.elu(self.img_in(x))
            deter = self.cell(x, prev["deter"])
            logit = self.img_out(deter).view(-1, self.stoch, self.classes)
            return {"deter": deter, "stoch": self.sample(logit, u), "logit": logit}

        def obs_step(self, prev, action, embed, u):
            prior = self.img_step(prev, action, u)
            x = lib.cat([prior["deter"], embed], -1)
            logit = self.obs_out(x).view(-1, self.stoch, self.classes)
            post = {"deter": prior["deter"], "stoch": self.sample(logit, u), "logit": logit}
            return post, prior

    return RSSM


def _uniforms(lib, dt, *shape, seed=3):
    g = lib.Generator().manual_seed(seed)
    return lib.rand(*shape, generator=g, dtype=dt).clamp(1e-6, 1 - 1e-6)


def _lambda_return(lib, reward, value, discount, bootstrap, lambda_):
    """Dreamer's lambda-return, backwards over time (time first)."""
    next_values = lib.cat([value[1:], bootstrap[None]], 0)
    inputs = reward + discount * next_values * (1 - lambda_)
    outputs = []
    last = bootstrap
    for t in reversed(range(reward.shape[0])):
        last = inputs[t] + discount[t] * lambda_ * last
        outputs.append(last)
    return lib.stack(outputs).flip(0)


def symlog(lib, x):
    return lib.sign(x) * lib.log1p(lib.abs(x))


def symexp(lib, x):
    return lib.sign(x) * (lib.exp(lib.abs(x)) - 1)


def _twohot(lib, x, bins):
    below = (bins <= x[..., None]).to(lib.int32).sum(-1) - 1
    above = len(bins) - (bins > x[..., None]).to(lib.int32).sum(-1)
    below = lib.clip(below, 0, len(bins) - 1)
    above = lib.clip(above, 0, len(bins) - 1)
    equal = below == above
    dist_to_below = lib.where(equal, 1, lib.abs(bins[below] - x))
    dist_to_above = lib.where(equal, 1, lib.abs(bins[above] - x))
    total = dist_to_below + dist_to_above
    w_below = dist_to_above / total
    w_above = dist_to_below / total
    F = lib.nn.functional
    return (
        F.one_hot(below.long(), len(bins)) * w_below[..., None]
        + F.one_hot(above.long(), len(bins)) * w_above[..., None]
    )


# --- the programs: each takes the library, a dtype and a recorder ---


def p_vae_encoder(lib, dt, rec):
    lib.manual_seed(0)
    vae = _vae_cls(lib)().to(dt)
    x = _frames(lib, dt)
    h = vae.enc(x)
    rec("h_shape", str(tuple(h.shape)))
    rec("h", h)
    mu, logvar = vae.encode(x)
    rec("mu", mu)
    rec("logvar", logvar)
    eps = lib.randn(mu.shape, generator=lib.Generator().manual_seed(2), dtype=dt)
    recon, mu, logvar = vae(x, eps)
    rec("recon_shape", str(tuple(recon.shape)))
    rec("recon", recon)
    rl, kld = _vae_loss(lib, recon, x, mu, logvar)
    rec("rl", rl)
    rec("kld", kld)
    (rl + kld).backward()
    rec.params("g", vae, grads=True, view=lambda n, p: p)
    # the KL by distributions agrees with the closed form
    q = lib.distributions.Normal(mu, (0.5 * logvar).exp())
    p = lib.distributions.Normal(lib.zeros_like(mu), lib.ones_like(mu))
    rec("kl_dist", lib.distributions.kl_divergence(q, p).sum(-1).mean())
    rec("rsample_shape", str(tuple(q.rsample((2,)).shape)))
    rec("flatten", lib.flatten(h, 1).shape[1])
    rec("bce", lib.nn.functional.binary_cross_entropy(recon, x, reduction="sum"))


def p_vae_train(lib, dt, rec):
    lib.manual_seed(1)
    vae = _vae_cls(lib)(z=4).to(dt)
    x = _frames(lib, dt, n=6, seed=5)
    opt = lib.optim.Adam(vae.parameters(), lr=1e-3, eps=1e-5)
    g = lib.Generator().manual_seed(6)
    for it in range(4):
        eps = lib.randn(6, 4, generator=g, dtype=dt)
        recon, mu, logvar = vae(x, eps)
        rl, kld = _vae_loss(lib, recon, x, mu, logvar)
        # free nats on the KL as in World Models
        kld = lib.max(kld, lib.tensor(0.5, dtype=dt))
        loss = rl + kld
        opt.zero_grad()
        loss.backward()
        norm = lib.nn.utils.clip_grad_norm_(vae.parameters(), 10.0)
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"norm{it}", norm)
    rec.params("w", vae)
    rec("state", str(sorted(opt.state_dict()["state"][0].keys())))
    vae.eval()
    with lib.no_grad():
        mu, _ = vae.encode(x)
        rec("mu_eval", mu)
        rec("decoded", vae.decode(mu))
        rec("no_grad", vae.decode(mu).requires_grad)


def p_mdn_rnn(lib, dt, rec):
    lib.manual_seed(2)
    m = _mdn_rnn_cls(lib)().to(dt)
    g = lib.Generator().manual_seed(7)
    z = lib.randn(3, 5, 4, generator=g, dtype=dt)
    a = lib.rand(3, 5, 2, generator=g, dtype=dt) * 2 - 1
    h0 = lib.zeros(1, 3, 12, dtype=dt)
    c0 = lib.randn(1, 3, 12, generator=g, dtype=dt) * 0.1
    mus, sigmas, logpi, r, d, (hn, cn) = m(z, a, (h0, c0))
    rec("mus", mus)
    rec("sigmas", sigmas)
    rec("logpi", logpi)
    rec("hn", hn)
    rec("cn", cn)
    target = lib.randn(3, 5, 4, generator=g, dtype=dt)
    l1 = _gmm_loss(lib, target, mus, sigmas, logpi)
    l2 = _gmm_loss_lse(lib, target, mus, sigmas, logpi)
    rec("gmm", l1)
    rec("gmm_lse", l2)
    rewards = lib.randn(3, 5, generator=g, dtype=dt)
    dones = (lib.rand(3, 5, generator=g, dtype=dt) > 0.8).to(dt)
    F = lib.nn.functional
    bce = F.binary_cross_entropy_with_logits(d, dones, pos_weight=lib.tensor(3.0, dtype=dt))
    mse = F.mse_loss(r, rewards)
    loss = (l2 + bce + mse) / (4 + 2)
    loss.backward()
    rec("loss", loss)
    rec.params("g", m, grads=True, view=lambda n, p: p)
    # stepping one frame at a time with the carried state gives the same outputs
    state = (h0, c0)
    outs = []
    with lib.no_grad():
        for t in range(5):
            mu_t, _, _, _, _, state = m(z[:, t : t + 1], a[:, t : t + 1], state)
            outs.append(mu_t)
    rec("stepwise", lib.cat(outs, 1))
    rec("same", lib.allclose(lib.cat(outs, 1), mus.detach()))
    # the mixture as a MixtureSameFamily gives the same log-likelihood
    D = lib.distributions
    mix = D.MixtureSameFamily(D.Categorical(logits=logpi), D.Independent(D.Normal(mus, sigmas), 1))
    rec("msf", -mix.log_prob(target).mean())


def p_mdn_rnn_train(lib, dt, rec):
    lib.manual_seed(3)
    m = _mdn_rnn_cls(lib)(hidden=8, k=2).to(dt)
    g = lib.Generator().manual_seed(8)
    z = lib.randn(4, 6, 4, generator=g, dtype=dt)
    a = lib.randn(4, 6, 2, generator=g, dtype=dt).tanh()
    opt = lib.optim.RMSprop(m.parameters(), lr=1e-3, alpha=0.9)
    for it in range(4):
        mus, sigmas, logpi, _, _, _ = m(z[:, :-1], a[:, :-1])
        loss = _gmm_loss_lse(lib, z[:, 1:], mus, sigmas, logpi)
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_value_(m.parameters(), 1.0)
        opt.step()
        rec(f"loss{it}", loss)
    rec.params("w", m)
    rec("names", str([n for n, _ in m.rnn.named_parameters()]))
    sd = m.state_dict()
    buf = io.BytesIO()
    lib.save(sd, buf)
    buf.seek(0)
    m2 = _mdn_rnn_cls(lib)(hidden=8, k=2).to(dt)
    m2.load_state_dict(lib.load(buf))
    with lib.no_grad():
        rec("reload", m2(z, a)[0])


def p_mdn_sample(lib, dt, rec):
    lib.manual_seed(4)
    m = _mdn_rnn_cls(lib)(k=4).to(dt)
    g = lib.Generator().manual_seed(9)
    z = lib.randn(2, 1, 4, generator=g, dtype=dt)
    a = lib.zeros(2, 1, 2, dtype=dt)
    with lib.no_grad():
        mus, sigmas, logpi, _, _, state = m(z, a)
        temperature = 1.15
        logits = logpi[:, -1] / temperature
        probs = lib.softmax(logits, -1)
        rec("probs", probs)
        u = lib.rand(2, 1, generator=g, dtype=dt)
        # inverse-CDF choice of the component
        cdf = probs.cumsum(-1)
        k = lib.searchsorted(cdf, u).clamp(max=3).squeeze(-1)
        rec("k", k)
        mu_k = mus[:, -1][lib.arange(2), k]
        sig_k = sigmas[:, -1][lib.arange(2), k]
        noise = lib.randn(2, 4, generator=g, dtype=dt)
        zn = mu_k + sig_k * noise * math.sqrt(temperature)
        rec("z_next", zn)
        rec("gather", mus[:, -1].gather(1, k.view(2, 1, 1).expand(2, 1, 4)).squeeze(1))
        rec("state_shapes", str([tuple(s.shape) for s in state]))


def p_cmaes_step(lib, dt, rec):
    n, lam = 5, 8
    mu = lam // 2
    weights = math.log(mu + 0.5) - lib.log(lib.arange(1, mu + 1, dtype=dt))
    weights = weights / weights.sum()
    mueff = (weights.sum() ** 2 / (weights**2).sum()).item()
    rec("weights", weights)
    rec("mueff", mueff)
    mean = lib.zeros(n, dtype=dt)
    sigma = 0.5
    C = lib.eye(n, dtype=dt)
    g = lib.Generator().manual_seed(10)
    z = lib.randn(lam, n, generator=g, dtype=dt)
    evals, B = lib.linalg.eigh(C)
    D = evals.clamp(min=0).sqrt()
    y = z @ (B * D).T
    x = mean + sigma * y
    target = lib.linspace(-1, 1, n, dtype=dt)
    fitness = ((x - target) ** 2).sum(1)
    order = lib.argsort(fitness)
    rec("fitness", fitness)
    rec("order", order)
    y_sel = y[order[:mu]]
    y_w = (weights[:, None] * y_sel).sum(0)
    new_mean = mean + sigma * y_w
    rec("mean", new_mean)
    c1 = 2 / ((n + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) ** 2 + mueff))
    pc = math.sqrt(c1 * (2 - c1) * mueff) * y_w
    rank_one = lib.outer(pc, pc)
    rank_mu = (weights[:, None, None] * (y_sel[:, :, None] * y_sel[:, None, :])).sum(0)
    C = (1 - c1 - cmu) * C + c1 * rank_one + cmu * rank_mu
    rec("C", C)
    C = lib.triu(C) + lib.triu(C, 1).T
    evals, B = lib.linalg.eigh(C)
    rec("evals", evals)
    rec("orth", (B.T @ B - lib.eye(n, dtype=dt)).abs().max() < 1e-5)
    rec("B_diag", (B.T @ C @ B).diagonal())
    L = lib.linalg.cholesky(C)
    rec("chol", L)
    rec("recon", L @ L.mT)
    invsqrt = B @ lib.diag(evals.rsqrt()) @ B.T
    rec("invsqrt", invsqrt)
    rec("ps", invsqrt @ y_w)
    rec("einsum_rank_mu", lib.einsum("i,ij,ik->jk", weights, y_sel, y_sel))
    rec("topk", lib.topk(-fitness, mu).indices)
    rec("sort", lib.sort(fitness, descending=True).values)


def p_cmaes_loop(lib, dt, rec):
    n, lam = 4, 10
    mu = lam // 2
    w = math.log(mu + 0.5) - lib.arange(1, mu + 1, dtype=dt).log()
    w = w / w.sum()
    mueff = 1 / (w**2).sum().item()
    cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n)
    cs = (mueff + 2) / (n + mueff + 5)
    c1 = 2 / ((n + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) ** 2 + mueff))
    damps = 1 + 2 * max(0, math.sqrt((mueff - 1) / (n + 1)) - 1) + cs
    chi_n = n**0.5 * (1 - 1 / (4 * n) + 1 / (21 * n**2))
    mean = lib.full((n,), 0.5, dtype=dt)
    sigma = 0.3
    C = lib.eye(n, dtype=dt)
    pc = lib.zeros(n, dtype=dt)
    ps = lib.zeros(n, dtype=dt)
    g = lib.Generator().manual_seed(11)

    def rosen(x):
        return (100 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1 - x[:, :-1]) ** 2).sum(1)

    for gen in range(6):
        L = lib.linalg.cholesky(C)
        z = lib.randn(lam, n, generator=g, dtype=dt)
        y = z @ L.T
        x = mean + sigma * y
        f = rosen(x)
        idx = f.argsort()
        y_w = w @ y[idx[:mu]]
        mean = mean + sigma * y_w
        z_w = lib.linalg.solve_triangular(L, y_w[:, None], upper=False).squeeze(1)
        ps = (1 - cs) * ps + math.sqrt(cs * (2 - cs) * mueff) * z_w
        hsig = float(
            ps.norm() / math.sqrt(1 - (1 - cs) ** (2 * (gen + 1))) / chi_n < 1.4 + 2 / (n + 1)
        )
        pc = (1 - cc) * pc + hsig * math.sqrt(cc * (2 - cc) * mueff) * y_w
        ys = y[idx[:mu]]
        C = (1 - c1 - cmu) * C + c1 * lib.outer(pc, pc) + cmu * (ys.T * w) @ ys
        sigma = sigma * math.exp((cs / damps) * (ps.norm().item() / chi_n - 1))
        rec(f"best{gen}", f.min())
        rec(f"sigma{gen}", sigma)
    rec("mean", mean)
    rec("C", C)
    rec("cond", lib.linalg.cond(C))


def p_rssm_step(lib, dt, rec):
    lib.manual_seed(5)
    rssm = _rssm_cls(lib)().to(dt)
    state = rssm.initial(3, dt)
    g = lib.Generator().manual_seed(12)
    action = lib.randn(3, 2, generator=g, dtype=dt)
    embed = lib.randn(3, 6, generator=g, dtype=dt)
    u = _uniforms(lib, dt, 3, 3, 4)
    post, prior = rssm.obs_step(state, action, embed, u)
    rec("deter", post["deter"])
    rec("post_stoch", post["stoch"])
    rec("prior_logit", prior["logit"])
    rec("post_logit", post["logit"])
    # the straight-through sample is one-hot in value, softmax in gradient
    w = lib.linspace(-1, 1, 12, dtype=dt).view(3, 4)
    (post["stoch"] * w).sum().backward()
    rec.params("g", rssm, grads=True, view=lambda n, p: p)
    D = lib.distributions
    dist = D.Independent(D.OneHotCategoricalStraightThrough(logits=post["logit"]), 1)
    rec("entropy", dist.entropy())
    hard = lib.nn.functional.one_hot(post["stoch"].argmax(-1), 4).to(dt)
    rec("log_prob", dist.log_prob(hard))
    rec("mode", dist.base_dist.mode)
    lib.manual_seed(6)
    s = dist.rsample()
    rec("rsample", s)
    rec("rs_grad", s.requires_grad)


def p_rssm_observe(lib, dt, rec):
    lib.manual_seed(7)
    rssm = _rssm_cls(lib)().to(dt)
    T, B = 5, 2
    g = lib.Generator().manual_seed(13)
    actions = lib.randn(T, B, 2, generator=g, dtype=dt)
    embeds = lib.randn(T, B, 6, generator=g, dtype=dt)
    firsts = lib.tensor([1, 0, 0, 1, 0], dtype=dt)
    u = _uniforms(lib, dt, T, B, 3, 4, seed=14)
    state = rssm.initial(B, dt)
    posts, priors = [], []
    for t in range(T):
        # reset at episode starts, by a mask
        mask = (1 - firsts[t]).view(1, 1)
        state = {k: v * mask.view(-1, *[1] * (v.dim() - 1)) for k, v in state.items()}
        post, prior = rssm.obs_step(state, actions[t] * mask, embeds[t], u[t])
        posts.append(post)
        priors.append(prior)
        state = post
    post = {k: lib.stack([p[k] for p in posts], 1) for k in posts[0]}
    prior = {k: lib.stack([p[k] for p in priors], 1) for k in priors[0]}
    rec("post_deter", post["deter"])
    rec("prior_logit", prior["logit"])
    feat = lib.cat([post["stoch"].flatten(-2), post["deter"]], -1)
    rec("feat_shape", str(tuple(feat.shape)))
    head = lib.nn.Linear(feat.shape[-1], 1).to(dt)
    pred = head(feat).squeeze(-1)
    loss = pred.pow(2).mean()
    loss.backward()
    rec("loss", loss)
    rec.params("g", rssm, grads=True, view=lambda n, p: p)
    rec("swap", post["deter"].transpose(0, 1).shape[0])


def p_kl_balance(lib, dt, rec):
    D = lib.distributions
    g = lib.Generator().manual_seed(15)
    post_logit = lib.randn(4, 3, 5, generator=g, dtype=dt).requires_grad_(True)
    prior_logit = lib.randn(4, 3, 5, generator=g, dtype=dt).requires_grad_(True)

    def dist(logit):
        return D.Independent(D.OneHotCategoricalStraightThrough(logits=logit), 1)

    # DreamerV2's balancing: alpha on the prior's side, 1 - alpha on the posterior's
    alpha, free = 0.8, 1.0
    kl_lhs = D.kl_divergence(dist(post_logit.detach()), dist(prior_logit))
    kl_rhs = D.kl_divergence(dist(post_logit), dist(prior_logit.detach()))
    rec("kl_lhs", kl_lhs)
    rec("kl_rhs", kl_rhs)
    loss_lhs = lib.maximum(kl_lhs.mean(), lib.tensor(free, dtype=dt))
    loss_rhs = lib.maximum(kl_rhs.mean(), lib.tensor(free, dtype=dt))
    loss = alpha * loss_lhs + (1 - alpha) * loss_rhs
    loss.backward()
    rec("loss", loss)
    rec("g_post", post_logit.grad)
    rec("g_prior", prior_logit.grad)
    # DreamerV3: dyn and rep losses, free bits per step by clip
    post_logit.grad = None
    prior_logit.grad = None
    rep = D.kl_divergence(dist(post_logit), dist(prior_logit.detach()))
    dyn = D.kl_divergence(dist(post_logit.detach()), dist(prior_logit))
    rep = lib.clip(rep, min=free)
    dyn = dyn.clamp(min=free)
    (0.5 * dyn + 0.1 * rep).mean().backward()
    rec("v3_post", post_logit.grad)
    rec("v3_prior", prior_logit.grad)
    # the KL by hand
    lp = lib.log_softmax(post_logit, -1)
    lq = lib.log_softmax(prior_logit, -1)
    rec("kl_hand", (lp.exp() * (lp - lq)).sum((-1, -2)))
    # Categorical's KL over the last dim
    rec(
        "kl_cat",
        D.kl_divergence(D.Categorical(logits=post_logit), D.Categorical(logits=prior_logit)),
    )
    # unimix: 1% uniform mixed into the probabilities
    probs = lib.softmax(post_logit, -1)
    probs = 0.99 * probs + 0.01 / probs.shape[-1]
    uni = D.OneHotCategorical(probs=probs)
    rec("unimix_logits", uni.logits)
    rec("unimix_entropy", uni.entropy())


def p_lambda_returns(lib, dt, rec):
    T, B = 6, 3
    g = lib.Generator().manual_seed(16)
    reward = lib.randn(T, B, generator=g, dtype=dt)
    value = lib.randn(T, B, generator=g, dtype=dt).requires_grad_(True)
    cont = (lib.rand(T, B, generator=g, dtype=dt) > 0.15).to(dt)
    discount = 0.99 * cont
    bootstrap = value[-1].detach()
    ret = _lambda_return(lib, reward, value, discount, bootstrap, 0.95)
    rec("ret", ret)
    ret.sum().backward()
    rec("g_value", value.grad)
    # DreamerV3 form: batch first, interpolating the bootstrap
    rets = [value[:, -1].detach()] if False else [bootstrap]
    disc = 1 - 1 / 333
    interm = reward + disc * cont * lib.cat([value[1:], bootstrap[None]]).detach() * 0.05
    for t in reversed(range(T)):
        rets.append(interm[t] + disc * cont[t] * 0.95 * rets[-1])
    rec("v3", lib.stack(list(reversed(rets))[:-1]))
    # discount weights by cumprod, to weight the actor loss
    weight = lib.cumprod(lib.cat([lib.ones_like(discount[:1]), discount[:-1]], 0), 0).detach()
    rec("weight", weight)
    # TD(0) and the Monte-Carlo return with a flip/cumsum
    td = reward + 0.99 * lib.cat([value[1:], bootstrap[None]]).detach()
    rec("td", td)
    rec("mc", lib.flip(lib.cumsum(lib.flip(reward, [0]), 0), [0]))
    # GAE
    nv = lib.cat([value[1:], bootstrap[None]]).detach()
    deltas = reward + discount * nv - value.detach()
    adv = lib.zeros_like(deltas)
    last = lib.zeros(B, dtype=dt)
    for t in range(T - 1, -1, -1):
        last = deltas[t] + discount[t] * 0.95 * last
        adv[t] = last
    rec("gae", adv)
    rec("adv_norm", (adv - adv.mean()) / (adv.std() + 1e-8))


def p_imagine(lib, dt, rec):
    lib.manual_seed(8)
    rssm = _rssm_cls(lib)().to(dt)
    nn = lib.nn
    actor = nn.Sequential(nn.Linear(10 + 12, 16), nn.ELU(), nn.Linear(16, 2), nn.Tanh()).to(dt)
    critic = nn.Sequential(nn.Linear(10 + 12, 16), nn.SiLU(), nn.Linear(16, 1)).to(dt)
    g = lib.Generator().manual_seed(17)
    start = {
        "deter": lib.randn(4, 10, generator=g, dtype=dt),
        "stoch": lib.nn.functional.one_hot(lib.randint(0, 4, (4, 3), generator=g), 4).to(dt),
        "logit": lib.zeros(4, 3, 4, dtype=dt),
    }
    u = _uniforms(lib, dt, 5, 4, 3, 4, seed=18)

    def feat(s):
        return lib.cat([s["stoch"].flatten(1), s["deter"]], -1)

    # rollouts for the actor keep the graph through the dynamics; the world model is frozen
    for p in rssm.parameters():
        p.requires_grad_(False)
    state = {k: v.detach() for k, v in start.items()}
    feats, acts = [feat(state)], []
    for t in range(5):
        a = actor(feat(state).detach())
        state = rssm.img_step(state, a, u[t])
        feats.append(feat(state))
        acts.append(a)
    feats = lib.stack(feats)
    rec("feats", feats)
    values = critic(feats).squeeze(-1)
    reward = feats[1:, :, 0]
    ret = _lambda_return(lib, reward, values[:-1], lib.full_like(reward, 0.99), values[-1], 0.95)
    actor_loss = -ret.mean()
    actor_loss.backward()
    rec("actor_loss", actor_loss)
    rec.params("ga", actor, grads=True, view=lambda n, p: p)
    rec("wm_grad", all(p.grad is None for p in rssm.parameters()))
    # the critic learns the detached returns; a rollout under no_grad makes no graph
    critic.zero_grad()
    v = critic(feats.detach()).squeeze(-1)[:-1]
    closs = 0.5 * (v - ret.detach()).pow(2).mean()
    closs.backward()
    rec("critic_loss", closs)
    rec.params("gc", critic, grads=True, view=lambda n, p: p)
    with lib.no_grad():
        s = {k: v.clone() for k, v in start.items()}
        for t in range(5):
            s = rssm.img_step(s, actor(feat(s)), u[t])
        rec("ng_feat", feat(s))
        rec("ng_grad", feat(s).requires_grad)
    # a slow target critic by lerp_ / Polyak
    target = nn.Sequential(nn.Linear(22, 16), nn.SiLU(), nn.Linear(16, 1)).to(dt)
    target.load_state_dict(critic.state_dict())
    with lib.no_grad():
        for p in critic.parameters():
            p.add_(0.1)
        for tp, p in zip(target.parameters(), critic.parameters(), strict=True):
            tp.data.lerp_(p.data, 0.02)
    rec.params("target", target)


def p_symlog(lib, dt, rec):
    x = lib.tensor([-1e4, -20.0, -1.0, -1e-3, 0.0, 1e-3, 0.5, 1.0, 20.0, 1e4], dtype=dt)
    x.requires_grad_(True)
    y = symlog(lib, x)
    rec("symlog", y)
    rec("symexp", symexp(lib, y))
    rec("inverse", lib.allclose(symexp(lib, y), x, rtol=1e-5))
    (gx,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    rec("dsymlog", gx)
    (ggx,) = lib.autograd.grad(gx.sum(), x)
    rec("ddsymlog", ggx)
    z = lib.linspace(-5, 5, 11, dtype=dt).requires_grad_(True)
    e = symexp(lib, z)
    e.sum().backward()
    rec("dsymexp", z.grad)
    rec("expm1", lib.sign(z) * lib.expm1(z.abs()))
    rec("sgn", lib.sgn(z))
    # symlog MSE loss on a prediction
    pred = lib.linspace(-2, 2, 10, dtype=dt).requires_grad_(True)
    loss = 0.5 * (pred - symlog(lib, x.detach())).pow(2).sum()
    loss.backward()
    rec("loss", loss)
    rec("gpred", pred.grad)
    rec("inf", symlog(lib, lib.tensor([float("inf"), -float("inf")], dtype=dt)))
    rec("nan", symlog(lib, lib.tensor([float("nan")], dtype=dt)))


def p_twohot(lib, dt, rec):
    bins = symexp(lib, lib.linspace(-5, 5, 11, dtype=dt))
    x = lib.tensor([-200.0, -3.0, -0.25, 0.0, 0.7, 1.0, 42.0, 500.0], dtype=dt)
    th = _twohot(lib, x, bins)
    rec("twohot", th)
    rec("sums", th.sum(-1))
    rec("decode", (th * bins).sum(-1))
    # the bucketize form
    idx = lib.bucketize(x, bins)
    rec("bucket", idx)
    rec("bucket_r", lib.bucketize(x, bins, right=True))
    lo = (idx - 1).clamp(0, len(bins) - 1)
    hi = idx.clamp(0, len(bins) - 1)
    w_hi = ((x - bins[lo]) / (bins[hi] - bins[lo]).clamp(min=1e-8)).clamp(0, 1)
    th2 = lib.zeros(len(x), len(bins), dtype=dt)
    th2.scatter_add_(1, lo[:, None], (1 - w_hi)[:, None])
    th2.scatter_add_(1, hi[:, None], w_hi[:, None])
    rec("twohot_scatter", th2)
    # the critic's two-hot cross-entropy
    g = lib.Generator().manual_seed(19)
    logits = lib.randn(8, 11, generator=g, dtype=dt).requires_grad_(True)
    loss = -(th * lib.log_softmax(logits, -1)).sum(-1).mean()
    loss.backward()
    rec("ce", loss)
    rec("g", logits.grad)
    rec("ce_soft", lib.nn.functional.cross_entropy(logits, th))
    rec(
        "mean_pred",
        symexp(lib, (lib.softmax(logits, -1) * lib.linspace(-5, 5, 11, dtype=dt)).sum(-1)),
    )


def p_free_bits(lib, dt, rec):
    g = lib.Generator().manual_seed(20)
    mu = lib.randn(6, 4, generator=g, dtype=dt).mul(0.3).requires_grad_(True)
    logvar = lib.randn(6, 4, generator=g, dtype=dt).mul(0.2).requires_grad_(True)
    kl = 0.5 * (mu.pow(2) + logvar.exp() - 1 - logvar)
    rec("kl", kl)
    # per-dimension free bits averaged over the batch
    kl_dim = kl.mean(0)
    fb = lib.clamp(kl_dim, min=0.05).sum()
    fb.backward()
    rec("fb", fb)
    rec("g_mu", mu.grad)
    rec("g_logvar", logvar.grad)
    # the clamp's gradient at exactly the bound flows (torch: the bound counts as inside)
    t = lib.tensor([0.5, 1.0, 1.5], dtype=dt, requires_grad=True)
    t.clamp(min=1.0).sum().backward()
    rec("g_at_bound", t.grad)
    t.grad = None
    lib.clamp(t, max=1.0).sum().backward()
    rec("g_at_max", t.grad)
    t.grad = None
    lib.maximum(t, lib.tensor(1.0, dtype=dt)).sum().backward()
    rec("g_maximum", t.grad)
    t.grad = None
    t.clamp(lib.tensor(0.75, dtype=dt), lib.tensor([1.0, 1.0, 1.2], dtype=dt)).sum().backward()
    rec("g_tensor_bounds", t.grad)
    rec("clamp_min_", kl.detach().clone().clamp_min_(0.1))
    rec("relu_form", lib.relu(kl.detach() - 0.1) + 0.1)


def p_clip_adam(lib, dt, rec):
    lib.manual_seed(9)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(5, 8), nn.LayerNorm(8), nn.ELU(), nn.Linear(8, 3)).to(dt)
    g = lib.Generator().manual_seed(21)
    x = lib.randn(10, 5, generator=g, dtype=dt) * 10
    y = lib.randn(10, 3, generator=g, dtype=dt)
    opt = lib.optim.Adam(model.parameters(), lr=3e-4, eps=1e-8, weight_decay=0.0)
    opt2 = lib.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-5, weight_decay=1e-6)
    for it in range(3):
        loss = (model(x) - y).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        total = lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=100.0, norm_type=2)
        rec(f"norm{it}", total)
        rec(f"clipped{it}", lib.linalg.vector_norm(
            lib.stack([p.grad.norm() for p in model.parameters()])))  # fmt: skip
        (opt if it < 2 else opt2).step()
    rec.params("w", model)
    rec("inf_norm", lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type="inf"))
    rec("get_total", lib.nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    rec("pg", str(sorted(k for k in opt.param_groups[0] if k != "params")))
    # a non-finite gradient: error_if_nonfinite raises, otherwise NaN grads
    model[0].weight.grad[0, 0] = float("nan")
    rec.err("nonfinite", lambda: lib.nn.utils.clip_grad_norm_(
        model.parameters(), 1.0, error_if_nonfinite=True))  # fmt: skip
    rec("nan_norm", lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
    rec("nan_grad", model[3].weight.grad)


def p_errors(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(10)
    conv = nn.Conv2d(3, 4, 4, stride=2).to(dt)
    rec.err("conv_ch", lambda: conv(lib.zeros(1, 1, 8, 8, dtype=dt)))
    rec.err("conv_small", lambda: conv(lib.zeros(1, 3, 2, 2, dtype=dt)))
    rec.err("conv_dtype", lambda: conv(lib.zeros(1, 3, 8, 8, dtype=lib.float16)))
    lstm = nn.LSTM(3, 5, batch_first=True).to(dt)
    x = lib.zeros(2, 4, 3, dtype=dt)
    h = lib.zeros(1, 2, 5, dtype=dt)
    rec.err("lstm_h_shape", lambda: lstm(x, (lib.zeros(1, 3, 5, dtype=dt), h)))
    rec.err("lstm_c_shape", lambda: lstm(x, (h, lib.zeros(2, 2, 5, dtype=dt))))
    _err_type(rec, "lstm_tuple", lambda: lstm(x, h))
    rec.err("lstm_in", lambda: lstm(lib.zeros(2, 4, 6, dtype=dt)))
    rec.err("lstm_4d", lambda: lstm(lib.zeros(2, 4, 3, 1, dtype=dt)))
    cell = nn.GRUCell(3, 5).to(dt)
    rec.err("gru_in", lambda: cell(lib.zeros(2, 4, dtype=dt)))
    rec.err("gru_h", lambda: cell(lib.zeros(2, 3, dtype=dt), lib.zeros(3, 5, dtype=dt)))
    rec.err("gru_3d", lambda: cell(lib.zeros(2, 2, 3, dtype=dt)))
    rec.err("one_hot_small", lambda: F.one_hot(lib.tensor([0, 3]), 3))
    rec.err("one_hot_float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([-1, 1]), 3))
    rec.err("chol_npd", lambda: lib.linalg.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dt)))
    rec.err("chol_rect", lambda: lib.linalg.cholesky(lib.ones(2, 3, dtype=dt)))
    rec.err("eigh_rect", lambda: lib.linalg.eigh(lib.ones(2, 3, dtype=dt)))
    rec.err("eigh_uplo", lambda: lib.linalg.eigh(lib.eye(2, dtype=dt), UPLO="X"))
    rec.err("eigh_int", lambda: lib.linalg.eigh(lib.eye(2, dtype=lib.int64)))
    rec.err("argsort_dim", lambda: lib.argsort(lib.ones(3, dtype=dt), dim=1))
    rec.err("outer_2d", lambda: lib.outer(lib.ones(2, 2, dtype=dt), lib.ones(2, dtype=dt)))
    rec.err("logsumexp_int", lambda: lib.logsumexp(lib.tensor([1, 2]), 0))
    rec.err("bucketize_2d", lambda: lib.bucketize(lib.ones(3, dtype=dt), lib.ones(2, 2, dtype=dt)))
    rec.err("adam_eps", lambda: lib.optim.Adam(conv.parameters(), eps=-1.0))
    rec.err("adam_lr", lambda: lib.optim.Adam(conv.parameters(), lr=-1e-3))
    rec.err("adam_betas", lambda: lib.optim.Adam(conv.parameters(), betas=(1.0, 0.9)))
    D = lib.distributions
    rec.err("normal_scale", lambda: D.Normal(lib.zeros(2, dtype=dt), -lib.ones(2, dtype=dt)))
    rec.err("cat_probs", lambda: D.OneHotCategorical(probs=-lib.ones(3, dtype=dt)))
    rec.err(
        "kl_missing",
        lambda: D.kl_divergence(
            D.Normal(lib.zeros(3, dtype=dt), 1.0), D.Categorical(logits=lib.zeros(3, dtype=dt))
        ),
    )
    rec.err("msf_shape", lambda: D.MixtureSameFamily(
        D.Categorical(logits=lib.zeros(2, 3, dtype=dt)),
        D.Normal(lib.zeros(2, 4, dtype=dt), 1.0)))  # fmt: skip
    rec.err("log_prob_support", lambda: D.OneHotCategorical(logits=lib.zeros(3, dtype=dt))
            .log_prob(lib.tensor([0.5, 0.5, 0.0], dtype=dt)))  # fmt: skip
    rec.err("stack_shapes", lambda: lib.stack([lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)]))
    rec.err("flip_dim", lambda: lib.flip(lib.ones(2, dtype=dt), [1]))
    rec.err("clamp_none", lambda: lib.clamp(lib.ones(2, dtype=dt)))
    rec.err("randn_gen", lambda: lib.randn(2, generator=lib.Generator(device="meta")))
    ll = lib.zeros(2, dtype=dt, requires_grad=True)
    rec.err("inplace_leaf", lambda: ll.clamp_(min=0))
    rec.err("backward_twice", lambda: [(ll * 2).exp().sum().backward() for _ in range(1)]
            and _twice(ll))  # fmt: skip
    rec.err("clip_grad_empty", lambda: lib.nn.utils.clip_grad_norm_([], 1.0))


def _twice(t):
    y = (t * 2).exp().sum()
    y.backward()
    y.backward()


def p_errors_args(lib, dt, rec):
    F = lib.nn.functional
    D = lib.distributions
    rec.err("oh_empty", lambda: F.one_hot(lib.zeros(0, dtype=lib.long)))
    rec.err("oh_empty_n", lambda: F.one_hot(lib.zeros(0, dtype=lib.long), 3).shape)
    rec.err("oh_int32", lambda: F.one_hot(lib.tensor([1], dtype=lib.int32), 3))
    rec.err("oh_0d", lambda: F.one_hot(lib.tensor(2), 3))
    rec.err("oh_bool", lambda: F.one_hot(lib.tensor([True]), 3))
    rec.err("bk_int", lambda: lib.bucketize(lib.tensor([1, 5]), lib.tensor([0.5, 2.0], dtype=dt)))
    rec.err("bk_scalar", lambda: lib.bucketize(2.0, lib.tensor([0.5, 2.0, 3.0], dtype=dt)))
    rec.err(
        "bk_i32",
        lambda: (
            lib.bucketize(
                lib.tensor([1.0], dtype=dt), lib.tensor([0.5, 2.0], dtype=dt), out_int32=True
            ).dtype
        ),
    )
    rec.err("clamp_minmax", lambda: lib.clamp(lib.tensor([1.0, 2.0], dtype=dt), 3, 1))
    rec.err("lse_empty", lambda: lib.logsumexp(lib.zeros(0, 3, dtype=dt), 0))
    rec.err("lse_ninf", lambda: lib.logsumexp(lib.full((3,), -math.inf, dtype=dt), 0))
    rec.err("lse_inf", lambda: lib.logsumexp(lib.tensor([math.inf, 1.0], dtype=dt), 0))
    rec.err("lse_nodim", lambda: lib.logsumexp(lib.ones(3, dtype=dt)))
    rec.err("lse_tuple", lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), (0, 1)))
    rec.err("lse_int", lambda: lib.logsumexp(lib.tensor([1, 2]), 0))
    rec.err("lse_bool", lambda: lib.logsumexp(lib.tensor([True]), 0))
    cell = lib.nn.GRUCell(3, 4).to(dt)
    rec.err("gru_dt", lambda: cell(lib.zeros(2, 3, dtype=lib.float16)))
    rec.err("gru_hdt", lambda: cell(lib.zeros(2, 3, dtype=dt), lib.zeros(2, 4, dtype=lib.float16)))
    lstm = lib.nn.LSTM(3, 4, batch_first=True).to(dt)
    _err_type(
        rec,
        "lstm_hdt",
        lambda: lstm(
            lib.zeros(2, 5, 3, dtype=dt),
            (lib.zeros(1, 2, 4, dtype=lib.float16), lib.zeros(1, 2, 4, dtype=dt)),
        ),
    )
    rec.err("lstm_xdt", lambda: lstm(lib.zeros(2, 5, 3, dtype=lib.float16)))
    _err_type(
        rec,
        "lstm_3states",
        lambda: lstm(lib.zeros(2, 5, 3, dtype=dt), (lib.zeros(1, 2, 4, dtype=dt),) * 3),
    )
    rec.err(
        "lstm_unb_h3d", lambda: lstm(lib.zeros(5, 3, dtype=dt), (lib.zeros(1, 2, 4, dtype=dt),) * 2)
    )
    rec.err(
        "lstm_batched_h2d",
        lambda: lstm(lib.zeros(2, 5, 3, dtype=dt), (lib.zeros(2, 4, dtype=dt),) * 2),
    )
    lp = lib.nn.LSTM(3, 4, proj_size=2, batch_first=True).to(dt)
    rec.err(
        "proj_hshape", lambda: lp(lib.zeros(2, 5, 3, dtype=dt), (lib.zeros(1, 2, 4, dtype=dt),) * 2)
    )
    rec.err("proj_bad", lambda: lib.nn.LSTM(3, 4, proj_size=4))
    rec.err("proj_neg", lambda: lib.nn.LSTM(3, 4, proj_size=-1))
    rec.err("gru_proj", lambda: lib.nn.GRU(3, 4, proj_size=2))
    rec.err(
        "kl_indep",
        lambda: D.kl_divergence(
            D.Independent(D.Normal(lib.zeros(2, 3, dtype=dt), 1.0), 1),
            D.Independent(D.Normal(lib.zeros(2, 3, dtype=dt), 1.0), 2),
        ),
    )
    rec.err(
        "kl_indep_base",
        lambda: D.kl_divergence(
            D.Independent(D.Normal(lib.zeros(2, 3, dtype=dt), 1.0), 1),
            D.Normal(lib.zeros(2, 3, dtype=dt), 1.0),
        ),
    )
    rec.err(
        "st_sample_shape",
        lambda: (
            D.OneHotCategoricalStraightThrough(logits=lib.zeros(2, 3, dtype=dt)).rsample((4,)).shape
        ),
    )
    rec.err("indep_neg", lambda: D.Independent(D.Normal(lib.zeros(2, 3, dtype=dt), 1.0), 3))
    rec.err("cat_logits_0d", lambda: D.Categorical(logits=lib.tensor(1.0, dtype=dt)))
    rec.err(
        "cat_both", lambda: D.Categorical(probs=lib.ones(3, dtype=dt), logits=lib.ones(3, dtype=dt))
    )
    rec.err("cat_none", lambda: D.OneHotCategorical())
    rec.err("eigh_nan", lambda: lib.linalg.eigh(lib.full((2, 2), math.nan, dtype=dt)))
    rec.err("chol_nan", lambda: lib.linalg.cholesky(lib.full((2, 2), math.nan, dtype=dt)))
    rec.err(
        "chol_batch",
        lambda: lib.linalg.cholesky(lib.stack([lib.eye(2, dtype=dt), -lib.eye(2, dtype=dt)])),
    )
    rec.err("chol_ex_err", lambda: lib.linalg.cholesky_ex(-lib.eye(2, dtype=dt), check_errors=True))
    rec.err(
        "solve_tri",
        lambda: lib.linalg.solve_triangular(
            lib.eye(2, dtype=dt), lib.ones(2, dtype=dt), upper=False
        ),
    )
    rec.err(
        "solve_tri_kw",
        lambda: lib.linalg.solve_triangular(lib.eye(2, dtype=dt), lib.ones(2, 1, dtype=dt)),
    )
    rec.err("outer_int_f", lambda: lib.outer(lib.tensor([1, 2]), lib.ones(2, dtype=dt)))
    rec.err(
        "argsort_stable", lambda: lib.argsort(lib.tensor([1.0, 1.0, 0.0], dtype=dt), stable=True)
    )
    rec.err(
        "argsort_stable_desc",
        lambda: lib.argsort(lib.tensor([1.0, 1.0, 0.0], dtype=dt), stable=True, descending=True),
    )
    rec.err("adam_eps0", lambda: lib.optim.Adam([lib.zeros(2, requires_grad=True)], eps=0.0))
    rec.err("adam_wd", lambda: lib.optim.Adam([lib.zeros(2, requires_grad=True)], weight_decay=-1))
    rec.err(
        "adam_beta2", lambda: lib.optim.Adam([lib.zeros(2, requires_grad=True)], betas=(0.9, 1.5))
    )
    rec.err("adam_nonleaf", lambda: lib.optim.Adam([lib.zeros(2, requires_grad=True) * 2]))
    rec.err("adam_tensor", lambda: lib.optim.Adam(lib.zeros(2, requires_grad=True)))
    rec.err("adam_empty", lambda: lib.optim.Adam([]))
    rec.err("adam_dup", lambda: lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))] * 2))
    rec.err(
        "clip_neg", lambda: lib.nn.utils.clip_grad_norm_([lib.nn.Parameter(lib.zeros(2))], -1.0)
    )
    rec.err(
        "clip_p0",
        lambda: lib.nn.utils.clip_grad_norm_([lib.nn.Parameter(lib.zeros(2))], 1.0, norm_type=0),
    )
    rec.err("flip_dup", lambda: lib.flip(lib.ones(2, 2, dtype=dt), [0, 0]))
    rec.err("stack_empty", lambda: lib.stack([]))
    rec.err(
        "stack_dt", lambda: lib.stack([lib.ones(2, dtype=dt), lib.ones(2, dtype=lib.int64)]).dtype
    )
    rec.err("cat_dim", lambda: lib.cat([lib.ones(2, dtype=dt)], dim=2))
    rec.err("gen_seed", lambda: lib.Generator().manual_seed(-1))
    rec.err("gen_seedf", lambda: lib.Generator().manual_seed(1.5))
    rec.err("randn_neg", lambda: lib.randn(-1, 2))
    rec.err("gen_state", lambda: lib.Generator().set_state(lib.zeros(3, dtype=lib.uint8)))


def p_sampling(lib, dt, rec):
    D = lib.distributions
    nn = lib.nn
    lib.manual_seed(0)
    rec("cat_sample", D.Categorical(logits=lib.randn(4, 5, dtype=dt)).sample((3,)))
    rec("ohc_sample", D.OneHotCategorical(logits=lib.randn(4, 5, dtype=dt)).sample())
    rec("st_sample", D.OneHotCategoricalStraightThrough(logits=lib.randn(4, 5, dtype=dt)).rsample())
    rec("bern", D.Bernoulli(probs=lib.rand(6, dtype=dt)).sample())
    rec("normal", D.Normal(lib.zeros(3, dtype=dt), 2.0).sample((2,)))
    rec("mult", lib.multinomial(lib.rand(3, 6, dtype=dt), 4))
    rec("mult_r", lib.multinomial(lib.rand(3, 6, dtype=dt), 8, replacement=True))
    g = lib.Generator().manual_seed(5)
    st = g.get_state()
    a1 = lib.randn(3, generator=g, dtype=dt)
    g.set_state(st)
    rec("replay", lib.equal(a1, lib.randn(3, generator=g, dtype=dt)))
    rec("initial_seed", g.initial_seed())
    with lib.random.fork_rng():
        lib.manual_seed(3)
        rec("fork", lib.rand(2, dtype=dt))
    rec("after_fork", lib.rand(2, dtype=dt))
    rec("repr_st", repr(D.OneHotCategoricalStraightThrough(logits=lib.zeros(2, 3, dtype=dt))))
    rec("repr_ind", repr(D.Independent(D.Normal(lib.zeros(2, 3, dtype=dt), 1.0), 1)))
    rec("repr_cell", repr(nn.GRUCell(3, 4, bias=False)))
    rec("repr_lstm", repr(nn.LSTM(3, 4, batch_first=True, num_layers=2, dropout=0.1)))
    rec("repr_adam", repr(lib.optim.Adam([nn.Parameter(lib.zeros(2))], eps=1e-5)))
    rec("repr_convt", repr(nn.ConvTranspose2d(4, 3, 5, stride=2, output_padding=1)))
    rec("repr_ln", repr(nn.LayerNorm(8, eps=1e-3, elementwise_affine=False)))
    rec("randn_like", lib.randn_like(lib.zeros(3, dtype=dt)))
    rec("rand_int", lib.randint(0, 5, (3,), dtype=lib.int32))
    rec("normal_", lib.empty(4, dtype=dt).normal_(0, 0.1, generator=lib.Generator().manual_seed(2)))
    rec(
        "uniform_", lib.empty(4, dtype=dt).uniform_(-1, 1, generator=lib.Generator().manual_seed(2))
    )
    rec("mvn_rs", D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt)).rsample((2,)))
    rec("normal_fn", lib.normal(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt)))
    rec("gumbel", D.Gumbel(lib.zeros(3, dtype=dt), 1.0).sample())
    rec(
        "relaxed",
        D.RelaxedOneHotCategorical(
            lib.tensor(0.5, dtype=dt), logits=lib.zeros(2, 3, dtype=dt)
        ).rsample(),
    )
    rec(
        "gumbel_softmax",
        nn.functional.gumbel_softmax(lib.zeros(2, 3, dtype=dt), tau=0.5, hard=True),
    )
    rec("bern_fn", lib.bernoulli(lib.full((5,), 0.5, dtype=dt)))
    rec("exp_", lib.empty(3, dtype=dt).exponential_())


def p_grads(lib, dt, rec):
    A0 = lib.tensor([[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 0.5]], dtype=dt)
    A = A0.clone().requires_grad_(True)
    ev, V = lib.linalg.eigh(A)
    (ev.pow(2).sum() + (V.abs() * lib.arange(9, dtype=dt).view(3, 3)).sum()).backward()
    rec("eigh_g", A.grad)
    A.grad = None
    L = lib.linalg.cholesky(A)
    (L * lib.arange(9, dtype=dt).view(3, 3)).sum().backward()
    rec("chol_g", A.grad)
    x = lib.tensor([[0.1, 2.0, -1.0], [-math.inf, -math.inf, 0.0]], dtype=dt, requires_grad=True)
    y = lib.logsumexp(x, 1)
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    rec("lse", y)
    rec("lse_g", g)
    (gg,) = lib.autograd.grad((g * g).sum(), x)
    rec("lse_gg", gg)
    xa = lib.full((2,), -math.inf, dtype=dt, requires_grad=True)
    y2 = lib.logsumexp(xa, 0)
    y2.backward()
    rec("lse_allinf_g", xa.grad)
    q = lib.tensor([3.0, 1.0, 2.0, 5.0], dtype=dt, requires_grad=True)
    lib.quantile(q, 0.3).backward()
    rec("quantile_g", q.grad)
    lib.manual_seed(1)
    cell = lib.nn.GRUCell(2, 3).to(dt)
    xi = lib.randn(2, 2, dtype=dt, generator=lib.Generator().manual_seed(3), requires_grad=True)
    h = cell(xi)
    (gx,) = lib.autograd.grad(h.sum(), xi, create_graph=True)
    (ggx,) = lib.autograd.grad(gx.pow(2).sum(), xi)
    rec("gru_gg", ggx)
    t = lib.tensor([0.2, 0.5, 0.3], dtype=dt, requires_grad=True)
    lib.distributions.kl_divergence(
        lib.distributions.Categorical(probs=t),
        lib.distributions.Categorical(probs=lib.tensor([0.1, 0.1, 0.8], dtype=dt)),
    ).backward()
    rec("kl_probs_g", t.grad)
    z = lib.tensor([0.0, 0.0, 1.0], dtype=dt, requires_grad=True)
    lib.sign(z).sum().backward()
    rec("sign_g", z.grad)
    w = lib.tensor([-1.0, 0.0, 2.0], dtype=dt, requires_grad=True)
    lib.abs(w).sum().backward()
    rec("abs_g0", w.grad)
    lg = lib.tensor([1.0, 2.0, 0.5], dtype=dt, requires_grad=True)
    lib.distributions.OneHotCategorical(logits=lg).entropy().backward()
    rec("ent_g", lg.grad)
    cm = lib.tensor([1.0, 2.0, 3.0], dtype=dt, requires_grad=True)
    lib.cumprod(cm, 0).sum().backward()
    rec("cumprod_g", cm.grad)
    cz = lib.tensor([1.0, 0.0, 3.0], dtype=dt, requires_grad=True)
    lib.cumprod(cz, 0).sum().backward()
    rec("cumprod_g0", cz.grad)
    f = lib.arange(6, dtype=dt).view(2, 3).requires_grad_(True)
    (lib.flip(f, [0, 1]) * lib.arange(6, dtype=dt).view(2, 3)).sum().backward()
    rec("flip_g", f.grad)
    m = lib.tensor([1.0, 3.0, 3.0], dtype=dt, requires_grad=True)
    lib.max(m).backward()
    rec("max_tie_g", m.grad)
    m.grad = None
    m.max(0).values.backward()
    rec("maxdim_tie_g", m.grad)
    m.grad = None
    lib.maximum(m, lib.tensor(3.0, dtype=dt)).sum().backward()
    rec("maximum_tie_g", m.grad)


def p_ensembles(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(0)
    # MBPO ensemble layer
    E, B, i, o = 3, 4, 5, 2
    W = nn.Parameter(lib.randn(E, i, o, dtype=dt) * 0.1)
    b = nn.Parameter(lib.zeros(E, 1, o, dtype=dt))
    x = lib.randn(E, B, i, dtype=dt)
    y = lib.baddbmm(b, x, W)
    rec("baddbmm", y)
    y2 = lib.einsum("ebi,eio->ebo", x, W) + b
    rec("einsum", y2)
    mean, logvar = y.chunk(2, -1)
    max_lv = nn.Parameter(lib.ones(1, 1, dtype=dt) / 2)
    min_lv = nn.Parameter(-lib.ones(1, 1, dtype=dt) * 10)
    logvar = max_lv - F.softplus(max_lv - logvar)
    logvar = min_lv + F.softplus(logvar - min_lv)
    tgt = lib.randn(E, B, 1, dtype=dt)
    inv = lib.exp(-logvar)
    loss = (((mean - tgt) ** 2) * inv + logvar).mean() + 0.01 * (max_lv.sum() - min_lv.sum())
    loss.backward()
    rec("loss", loss)
    rec("gW", W.grad)
    rec("gb", b.grad)
    rec("gmax", max_lv.grad)
    rec("gnll", F.gaussian_nll_loss(mean, tgt, logvar.exp().detach(), full=True))
    # foreach polyak
    ps = [lib.ones(2, dtype=dt), lib.zeros(3, dtype=dt)]
    tps = [lib.full((2,), 5.0, dtype=dt), lib.full((3,), 2.0, dtype=dt)]
    lib._foreach_mul_(tps, 0.99)
    lib._foreach_add_(tps, ps, alpha=0.01)
    rec("foreach", lib.cat(tps))
    lib._foreach_lerp_(tps, ps, 0.5)
    rec("foreach_lerp", lib.cat(tps))
    # MuZero transforms
    eps = 0.001
    v = lib.tensor([-300.0, -3.5, 0.0, 0.2, 7.0, 1000.0], dtype=dt)
    h = lib.sign(v) * (lib.sqrt(lib.abs(v) + 1) - 1) + eps * v
    rec("h", h)
    hinv = lib.sign(h) * (
        ((lib.sqrt(1 + 4 * eps * (lib.abs(h) + 1 + eps)) - 1) / (2 * eps)) ** 2 - 1
    )
    rec("hinv", hinv)
    sup = 10
    hc = h.clamp(-sup, sup)
    floor = hc.floor()
    prob = hc - floor
    logits = lib.zeros(6, 2 * sup + 1, dtype=dt)
    logits.scatter_(1, (floor + sup).long().unsqueeze(-1), (1 - prob).unsqueeze(-1))
    idx = floor + sup + 1
    prob = prob.masked_fill_(2 * sup < idx, 0.0)
    idx = idx.masked_fill_(2 * sup < idx, 0.0)
    logits.scatter_(1, idx.long().unsqueeze(-1), prob.unsqueeze(-1))
    rec("support", logits)
    support = lib.arange(-sup, sup + 1, dtype=dt).expand(6, -1)
    rec("to_scalar", (logits * support).sum(1, keepdim=True))
    # TD-MPC2 simnorm
    z = lib.randn(4, 12, dtype=dt)
    shp = z.shape
    z = z.view(*shp[:-1], -1, 4)
    z = F.softmax(z / 1.0, dim=-1)
    rec("simnorm", z.view(*shp))
    rec("mish", F.mish(lib.linspace(-3, 3, 7, dtype=dt)))
    # MPPI
    N, H, A = 16, 3, 2
    actions = lib.randn(N, H, A, dtype=dt).clamp(-1, 1)
    value = -(actions**2).sum((1, 2))
    elite_idxs = lib.topk(value, 4, dim=0).indices
    elite_value, elite_actions = value[elite_idxs], actions[elite_idxs]
    max_value = elite_value.max(0).values
    score = lib.exp(0.5 * (elite_value - max_value))
    score = score / score.sum(0)
    m = (score.unsqueeze(1).unsqueeze(1) * elite_actions).sum(0) / (score.sum(0) + 1e-9)
    s = lib.sqrt(
        (score.unsqueeze(1).unsqueeze(1) * (elite_actions - m.unsqueeze(0)) ** 2).sum(0)
        / (score.sum(0) + 1e-9)
    ).clamp(0.05, 2)
    rec("mppi_m", m)
    rec("mppi_s", s)
    choice = lib.multinomial(score, 1)
    rec("choice", choice)
    rec("dropout", F.dropout(lib.ones(10, dtype=dt), 0.5))
    # stack_module_state / functional_call vmap ensemble
    from_torch = lib.func
    models = [nn.Linear(3, 2).to(dt) for _ in range(3)]
    params, buffers = from_torch.stack_module_state(models)
    base = models[0]

    def f(p, bu, xx):
        return from_torch.functional_call(base, (p, bu), (xx,))

    xx = lib.randn(4, 3, dtype=dt)
    out = lib.vmap(f, in_dims=(0, 0, None))(params, buffers, xx)
    rec("vmap_ens", out)
    rec("loop_ens", lib.stack([m(xx) for m in models]))


def p_errors_dtypes(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    other = lib.float64 if dt == lib.float32 else lib.float32
    conv = nn.Conv2d(3, 4, 3, stride=2)
    convt = nn.ConvTranspose2d(3, 4, 3, stride=2)
    lin = nn.Linear(3, 4)
    lstm = nn.LSTM(3, 4, batch_first=True)
    gru = nn.GRU(3, 4)
    cell = nn.GRUCell(3, 4)
    lcell = nn.LSTMCell(3, 4)
    x4 = lib.zeros(1, 3, 8, 8, dtype=other)
    rec.err("conv_mixed", lambda: conv(x4))
    rec.err("convt_mixed", lambda: convt(x4))
    rec.err("conv_nobias", lambda: nn.Conv2d(3, 4, 3, bias=False)(x4))
    rec.err("lin_mixed", lambda: lin(lib.zeros(2, 3, dtype=other)))
    rec.err("lstm_mixed", lambda: lstm(lib.zeros(2, 5, 3, dtype=other)))
    rec.err("gru_mixed", lambda: gru(lib.zeros(5, 2, 3, dtype=other)))
    rec.err("cell_mixed", lambda: cell(lib.zeros(2, 3, dtype=other)))
    rec.err("lcell_mixed", lambda: lcell(lib.zeros(2, 3, dtype=other)))
    rec.err("ln_mixed", lambda: nn.LayerNorm(3)(lib.zeros(2, 3, dtype=other)))
    rec.err("conv_3d", lambda: conv(lib.zeros(3, 8, 8, dtype=lib.float32)).shape)
    rec.err("conv_5d", lambda: conv(lib.zeros(1, 1, 3, 8, 8)))
    rec.err("conv_uint8", lambda: conv(lib.zeros(1, 3, 8, 8, dtype=lib.uint8)))
    rec.err(
        "convt_small",
        lambda: nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2)(lib.zeros(1, 3, 4, 4)),
    )
    rec.err("convt_outsize", lambda: convt(lib.zeros(1, 3, 4, 4), output_size=(12, 12)))
    rec.err("convt_outsize_ok", lambda: convt(lib.zeros(1, 3, 4, 4), output_size=(10, 10)).shape)
    rec.err("view_bad", lambda: lib.zeros(2, 4, 3, 3).view(2, 35))
    rec.err("view_nc", lambda: lib.zeros(2, 4, 3, 3).permute(0, 2, 3, 1).view(2, -1))
    with lib.no_grad():
        y = lin(lib.zeros(2, 3))
    rec.err("no_grad_bw", lambda: y.sum().backward())
    with lib.inference_mode():
        yi = lin(lib.zeros(2, 3))
    rec.err("inference_save", lambda: lin(yi[:, :3]).sum().backward())
    rec.err("inference_inplace", lambda: yi.add_(1))
    rec.err("numpy_grad", lambda: lin.weight.numpy())
    rec.err("item_many", lambda: lin.weight.item())
    # in-place on a tensor saved for backward
    v = lib.randn(3, 4, dtype=dt, requires_grad=True)
    h = v.exp()
    out = h.sum()
    h.add_(1)
    rec.err("version", lambda: out.backward())
    v2 = lib.randn(4, dtype=dt, requires_grad=True)
    buf = lib.zeros(4, dtype=dt)
    for t in range(4):
        buf[t] = v2[t] * 2
    rec.err("buf_ok", lambda: buf.sum().backward())
    rec("buf_g", v2.grad)
    s = lib.randn(4, dtype=dt, requires_grad=True)
    sig = lib.sigmoid(s)
    sig[0] = 0.0
    rec.err("sig_inplace", lambda: sig.sum().backward())
    a = lib.randn(3, dtype=dt, requires_grad=True)
    idx = a.argmax()
    rec.err("argmax_bw", lambda: idx.float().backward())
    rec.err("grad_nonscalar", lambda: a.exp().backward())
    rec.err(
        "grad_unused", lambda: lib.autograd.grad(a.sum(), [a, lib.zeros(1, requires_grad=True)])
    )
    rec.err("detach_inplace_view", lambda: a.detach().add_(1) is not None)


def p_optim_dists(lib, dt, rec):
    nn = lib.nn
    D = lib.distributions
    lib.manual_seed(0)
    for name, kw in [
        ("amsgrad", dict(amsgrad=True)),
        ("maximize", dict(maximize=True)),
        ("foreach", dict(foreach=True)),
        ("noforeach", dict(foreach=False)),
        ("lr_tensor", dict(lr=lib.tensor(0.01))),
        ("fused", dict(fused=True)),
        ("wd", dict(weight_decay=0.1, eps=1e-5)),
        ("decoupled", dict(weight_decay=0.1, decoupled_weight_decay=True)),
    ]:
        lib.manual_seed(1)
        m = nn.Linear(4, 3).to(dt)
        try:
            opt = lib.optim.Adam(m.parameters(), **kw)
        except Exception as ex:
            rec(name, f"{type(ex).__name__}: {ex}")
            continue
        x = lib.randn(5, 4, dtype=dt)
        for _ in range(3):
            opt.zero_grad()
            m(x).pow(2).sum().backward()
            opt.step()
        rec(name, m.weight)
        rec(name + ".step", opt.state[m.weight]["step"])
    sd = opt.state_dict()
    rec("sd_keys", str(sorted(sd["param_groups"][0].keys())))
    for name, cls, kw in [
        ("adamw", lib.optim.AdamW, dict(eps=1e-6)),
        ("rms", lib.optim.RMSprop, dict(lr=1e-3, eps=1e-5, centered=True)),
        ("adamax", lib.optim.Adamax, {}),
        ("nadam", lib.optim.NAdam, {}),
        ("radam", lib.optim.RAdam, {}),
    ]:
        lib.manual_seed(2)
        m = nn.Linear(4, 3).to(dt)
        opt = cls(m.parameters(), **kw)
        x = lib.randn(5, 4, dtype=dt)
        for _ in range(3):
            opt.zero_grad()
            m(x).pow(2).sum().backward()
            opt.step()
        rec(name, m.weight)
    g = lib.Generator().manual_seed(3)
    mu = lib.randn(3, 2, generator=g, dtype=dt)
    sd_ = lib.rand(3, 2, generator=g, dtype=dt) + 0.1
    p = D.Independent(D.Normal(mu, sd_), 1)
    q = D.Independent(D.Normal(mu * 0.5, sd_ * 2), 1)
    rec("kl_ind", D.kl_divergence(p, q))
    t = D.transforms
    tr = D.TransformedDistribution(D.Normal(mu, sd_), [t.TanhTransform()])
    x = lib.tensor([[0.3, -0.2]] * 3, dtype=dt)
    rec("tanh_lp", tr.log_prob(x))
    rec("tanh_ladj", t.TanhTransform().log_abs_det_jacobian(x, lib.tanh(x)))
    comp = t.ComposeTransform([t.AffineTransform(1.0, 2.0), t.SigmoidTransform()])
    rec("comp", comp(x))
    rec("comp_inv", comp.inv(comp(x)))
    rec("comp_ladj", comp.log_abs_det_jacobian(x, comp(x)))
    rec("p2l", D.utils.probs_to_logits(lib.tensor([0.2, 0.8], dtype=dt)))
    rec("p2l_bin", D.utils.probs_to_logits(lib.tensor([0.2, 0.8], dtype=dt), is_binary=True))
    rec("l2p", D.utils.logits_to_probs(lib.tensor([0.2, 0.8], dtype=dt)))
    rec("clampp", D.utils.clamp_probs(lib.tensor([0.0, 1.0], dtype=dt)))
    rec("cdf", D.Normal(mu, sd_).cdf(x))
    rec("icdf", D.Normal(mu, sd_).icdf(lib.full((3, 2), 0.3, dtype=dt)))
    st = D.OneHotCategoricalStraightThrough(probs=lib.tensor([0.2, 0.3, 0.5], dtype=dt))
    rec("st_probs_lp", st.log_prob(lib.tensor([0.0, 1.0, 0.0], dtype=dt)))
    rec.err("st_bad", lambda: st.log_prob(lib.tensor([0.0, 2.0, 0.0], dtype=dt)))
    rec("st_variance", st.variance)
    rec("st_enum", st.enumerate_support())
    ohc = D.OneHotCategorical(logits=lib.zeros(2, 3, dtype=dt))
    rec("expand", str(ohc.expand((4, 2)).batch_shape))
    rec("param_shape", str(ohc.param_shape))
    rec(
        "kl_ohc",
        D.kl_divergence(ohc, D.OneHotCategorical(probs=lib.tensor([0.1, 0.2, 0.7], dtype=dt))),
    )
    lib.manual_seed(4)
    rec(
        "ind_sample",
        D.Independent(D.OneHotCategoricalStraightThrough(logits=lib.zeros(2, 3, 4, dtype=dt)), 1)
        .rsample((2,))
        .shape[0],
    )


def p_errors_ops(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    m = nn.Linear(2, 2).to(dt)
    m(lib.ones(1, 2, dtype=dt)).sum().backward()
    for kw in [
        dict(capturable=True),
        dict(capturable=True, foreach=True),
        dict(fused=True, foreach=True),
        dict(differentiable=True, fused=True),
    ]:

        def go(kw=kw):
            o = lib.optim.Adam(m.parameters(), **kw)
            o.step()

        rec.err(str(kw), go)
    rec.err("adamw_cap", lambda: lib.optim.AdamW(m.parameters(), capturable=True).step())
    rec.err("rms_cap", lambda: lib.optim.RMSprop(m.parameters(), capturable=True).step())
    rec.err("oh_nc0", lambda: F.one_hot(lib.tensor([0]), 0))
    rec.err("oh_nc_neg2", lambda: F.one_hot(lib.tensor([0]), -2))
    rec.err("chol_1d", lambda: lib.linalg.cholesky(lib.ones(3, dtype=dt)))
    rec.err("chol_half", lambda: lib.linalg.cholesky(lib.eye(2, dtype=lib.float16)))
    rec.err("chol_int", lambda: lib.linalg.cholesky(lib.eye(2, dtype=lib.int64)))
    rec.err("eigh_1d", lambda: lib.linalg.eigh(lib.ones(3, dtype=dt)))
    rec.err("eigh_half", lambda: lib.linalg.eigh(lib.eye(2, dtype=lib.float16)))
    rec.err("eigh_empty", lambda: [t.shape for t in lib.linalg.eigh(lib.zeros(0, 0, dtype=dt))])
    rec.err("chol_empty", lambda: lib.linalg.cholesky(lib.zeros(2, 0, 0, dtype=dt)).shape)
    rec.err(
        "bk_nonmono",
        lambda: lib.bucketize(lib.tensor([1.5], dtype=dt), lib.tensor([3.0, 1.0, 2.0], dtype=dt)),
    )
    rec.err(
        "bk_empty_b", lambda: lib.bucketize(lib.tensor([1.5], dtype=dt), lib.zeros(0, dtype=dt))
    )
    rec.err(
        "bk_0d", lambda: lib.bucketize(lib.tensor(1.5, dtype=dt), lib.tensor([1.0, 2.0], dtype=dt))
    )
    rec.err("bk_bool", lambda: lib.bucketize(lib.tensor([True]), lib.tensor([1.0, 2.0], dtype=dt)))
    rec.err(
        "bk_grad",
        lambda: (
            lib.bucketize(
                lib.tensor([1.5], dtype=dt, requires_grad=True), lib.tensor([1.0, 2.0], dtype=dt)
            ).requires_grad
        ),
    )
    rec.err(
        "bk_nan",
        lambda: lib.bucketize(
            lib.tensor([math.nan, 1.0], dtype=dt), lib.tensor([1.0, 2.0], dtype=dt)
        ),
    )
    rec.err(
        "bk_kw",
        lambda: lib.bucketize(
            lib.tensor([1.5], dtype=dt),
            boundaries=lib.tensor([1.0, 2.0], dtype=dt),
            right=True,
            out_int32=True,
        ),
    )
    rec.err("argsort_0d", lambda: lib.argsort(lib.tensor(1.0, dtype=dt)))
    rec.err("argsort_bool", lambda: lib.argsort(lib.tensor([True, False])))
    rec.err("argsort_nan", lambda: lib.argsort(lib.tensor([2.0, math.nan, 1.0], dtype=dt)))
    rec.err(
        "argsort_nan_d",
        lambda: lib.argsort(lib.tensor([2.0, math.nan, 1.0], dtype=dt), descending=True),
    )
    rec.err("outer_0d", lambda: lib.outer(lib.tensor(1.0, dtype=dt), lib.ones(2, dtype=dt)))
    rec.err("outer_bool", lambda: lib.outer(lib.tensor([True, False]), lib.tensor([True])))
    rec.err("ger", lambda: lib.ger(lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)))
    rec.err("lse_keep", lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), -1, keepdim=True))
    rec.err("lse_dim_bad", lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), 2))
    rec.err("lse_0d", lambda: lib.logsumexp(lib.tensor(2.0, dtype=dt), 0))
    rec.err("lse_list", lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), [0, 1]))
    rec.err("lse_empty_tuple", lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), ()))
    rec.err("lse_half", lambda: lib.logsumexp(lib.tensor([1.0, 2.0], dtype=lib.float16), 0))
    rec.err(
        "lse_out", lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), 1, out=lib.empty(2, dtype=dt))
    )
    rec.err(
        "lse_out_int",
        lambda: lib.logsumexp(lib.ones(2, 3, dtype=dt), 1, out=lib.empty(2, dtype=lib.int64)),
    )
    rec.err("clamp_t_int", lambda: lib.clamp(lib.tensor([1, 5]), min=lib.tensor(2.5, dtype=dt)))
    rec.err("clamp_int_f", lambda: lib.clamp(lib.tensor([1, 5]), min=2.5))
    rec.err("clamp_bool", lambda: lib.clamp(lib.tensor([True]), min=0))
    rec.err(
        "clamp_nan", lambda: lib.clamp(lib.tensor([1.0, math.nan], dtype=dt), min=0, max=math.nan)
    )
    rec.err("clip_", lambda: lib.ones(2, dtype=dt).clip_(max=0.5))
    rec.err("flip_empty", lambda: lib.flip(lib.ones(2, dtype=dt), []))
    rec.err("flip_neg", lambda: lib.flip(lib.ones(2, 3, dtype=dt), (-1,)))
    rec.err("flip_int", lambda: lib.flip(lib.ones(2, 3, dtype=dt), 0))
    rec.err("flipud", lambda: lib.flipud(lib.ones(2, dtype=dt)))
    rec.err("flipud0", lambda: lib.flipud(lib.tensor(1.0, dtype=dt)))
    rec.err("fliplr1", lambda: lib.fliplr(lib.ones(2, dtype=dt)))


def p_packed_rnn(lib, dt, rec):
    nn = lib.nn
    U = nn.utils.rnn
    lib.manual_seed(0)
    lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True, proj_size=2, bidirectional=True).to(dt)
    x = lib.randn(2, 4, 3, dtype=dt)
    h0 = (lib.randn(4, 2, 2, dtype=dt) * 0.1).requires_grad_(True)
    c0 = (lib.randn(4, 2, 5, dtype=dt) * 0.1).requires_grad_(True)
    out, (hn, cn) = lstm(x, (h0, c0))
    rec("out", out)
    rec("hn", hn)
    rec("cn", cn)
    (out.sum() + cn.pow(2).sum()).backward()
    rec("gh0", h0.grad)
    rec("gc0", c0.grad)
    rec.params("g", lstm, grads=True, view=lambda n, p: p)
    lstm.flatten_parameters()
    seqs = [lib.randn(n, 3, dtype=dt) for n in (4, 2, 3)]
    padded = U.pad_sequence(seqs, batch_first=True)
    rec("padded", padded)
    rec("padded_left", U.pad_sequence(seqs, batch_first=True, padding_side="left"))
    packed = U.pack_padded_sequence(
        padded, lib.tensor([4, 2, 3]), batch_first=True, enforce_sorted=False
    )
    l2 = nn.LSTM(3, 4, batch_first=True).to(dt)
    po, (ph, pc) = l2(packed)
    unp, lens = U.pad_packed_sequence(po, batch_first=True, total_length=5)
    rec("unp", unp)
    rec("lens", lens)
    rec("ph", ph)
    rec("sorted_idx", packed.sorted_indices)
    rec("batch_sizes", packed.batch_sizes)
    rnn = nn.RNN(3, 4, nonlinearity="relu", bias=False).to(dt)
    o, hh = rnn(lib.randn(5, 3, dtype=dt))
    rec("rnn_unbatched", o)
    rec("rnn_h", hh)
    gru = nn.GRU(3, 4, num_layers=2, dropout=0.5, batch_first=True).to(dt)
    gru.train()
    go, gh = gru(lib.randn(2, 4, 3, dtype=dt))
    rec("gru_drop", go)
    lc = nn.LSTMCell(3, 4).to(dt)
    hx, cx = lc(lib.randn(3, dtype=dt))
    rec("lcell_unb", hx)
    rec.err("lcell_bad", lambda: lc(lib.randn(2, 3, dtype=dt), (lib.zeros(2, 4, dtype=dt),)))
    rec.err("pack_unsorted", lambda: U.pack_padded_sequence(padded, [4, 2, 3], batch_first=True))
    rec.err(
        "pack_zero",
        lambda: U.pack_padded_sequence(padded, [4, 0, 3], batch_first=True, enforce_sorted=False),
    )
    rec.err("pad_total", lambda: U.pad_packed_sequence(po, batch_first=True, total_length=2))
    rec.err(
        "lstm_proj_h", lambda: lstm(x, (lib.zeros(4, 2, 5, dtype=dt), lib.zeros(4, 2, 5, dtype=dt)))
    )
    rec.err("lstm_dropout_warn", lambda: nn.LSTM(3, 4, dropout=0.5))
    rec.warns("lstm_dropout_warns", lambda: nn.LSTM(3, 4, dropout=0.5))
    rec.err("lstm_dropout_bad", lambda: nn.LSTM(3, 4, dropout=1.5))
    rec.err("lstm_hidden0", lambda: nn.LSTM(3, 0))
    rec.err("lstm_layers0", lambda: nn.LSTM(3, 4, num_layers=0))
    rec.err("lstm_float_hidden", lambda: nn.LSTM(3, 4.0))
    rec.err("gru_cell_bad_h", lambda: nn.GRUCell(3, 4)(lib.zeros(2, 3), lib.zeros(2, 5)))
    rec.err("rnn_nonlin", lambda: nn.RNN(3, 4, nonlinearity="gelu"))
    rec.err("lstm_empty_batch", lambda: lstm(lib.zeros(0, 4, 3, dtype=dt))[0].shape)
    rec.err(
        "lstm_empty_seq",
        lambda: nn.LSTM(3, 4, batch_first=True).to(dt)(lib.zeros(2, 0, 3, dtype=dt))[0].shape,
    )


def p_grad_modes(lib, dt, rec):
    nn = lib.nn
    lin = nn.Linear(2, 2).to(dt)

    @lib.no_grad()
    def rollout(x, n):
        for _ in range(n):
            x = lin(x)
            yield x, lib.is_grad_enabled()

    out = []
    for y, en in rollout(lib.ones(1, 2, dtype=dt), 3):
        out.append((y.requires_grad, en, lib.is_grad_enabled()))
    rec("gen", str(out))

    @lib.inference_mode()
    def inf(x):
        return lin(x), lib.is_inference_mode_enabled()

    y, e = inf(lib.ones(1, 2, dtype=dt))
    rec("inf", str((y.requires_grad, e, y.is_inference())))
    with lib.no_grad():
        with lib.enable_grad():
            z = lin(lib.ones(1, 2, dtype=dt))
        w = lin(lib.ones(1, 2, dtype=dt))
    rec("nested", str((z.requires_grad, w.requires_grad)))
    with lib.set_grad_enabled(False):
        rec("sge", lib.is_grad_enabled())
    lib.set_grad_enabled(True)
    with lib.no_grad():
        t = lib.ones(2, dtype=dt).requires_grad_()
        u = t * 2
    rec("rg_in_nograd", str((t.requires_grad, u.requires_grad, u.grad_fn is None)))
    with lib.inference_mode(False):
        rec("inf_false", lib.is_inference_mode_enabled())

    class M(nn.Module):
        @lib.no_grad()
        def act(self, x):
            return x * 2

    rec("method", M().act(lib.ones(1, requires_grad=True)).requires_grad)
    rec("repr_ng", repr(lib.no_grad()).split(" object")[0])
    x = lib.ones(2, dtype=dt, requires_grad=True)
    with lib.autograd.set_detect_anomaly(True):
        y = (x * 2).sum()
        y.backward()
    rec("anomaly", x.grad)
    # requires_grad_(False) on world-model params and the errors around it
    for p in lin.parameters():
        p.requires_grad_(False)
    rec.err("frozen_bw", lambda: lin(lib.ones(1, 2, dtype=dt)).sum().backward())
    rec.err("rg_nonleaf", lambda: (x * 2).requires_grad_(False))
    rec.err("rg_int", lambda: lib.ones(2, dtype=lib.int64).requires_grad_())
    rec.err("param_int", lambda: nn.Parameter(lib.ones(2, dtype=lib.int64)))
    rec.err("detach_", lambda: (x * 2).detach_().requires_grad)
    v = x * 2
    vv = v[:1]
    rec.err("detach_view", lambda: vv.detach_())


def p_loss_warnings(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    rec.warns("mse_bcast", lambda: F.mse_loss(lib.ones(4, 1, dtype=dt), lib.zeros(4, dtype=dt)))
    rec.warns(
        "l1_bcast", lambda: F.smooth_l1_loss(lib.ones(4, 1, dtype=dt), lib.zeros(4, dtype=dt))
    )
    rec.warns("huber_bcast", lambda: F.huber_loss(lib.ones(4, 1, dtype=dt), lib.zeros(4, dtype=dt)))
    rec.warns("tensor_copy", lambda: lib.tensor(lib.ones(2, dtype=dt)))
    rec.warns("softmax_nodim", lambda: F.softmax(lib.ones(2, 3, dtype=dt)))
    rec.warns("log_softmax_nodim", lambda: F.log_softmax(lib.ones(2, 3, dtype=dt)))
    rec.warns("clip_old", lambda: nn.utils.clip_grad_norm(nn.Linear(2, 2).parameters(), 1.0))
    rec.err("T3d", lambda: lib.ones(2, 3, 4, dtype=dt).T.shape)
    rec.warns("mT", lambda: lib.ones(2, 3, 4, dtype=dt).mT.shape)
    m = nn.Linear(2, 2)
    opt = lib.optim.Adam(m.parameters())
    sch = lib.optim.lr_scheduler.StepLR(opt, 1)
    rec.warns("sched_order", lambda: sch.step())
    rec.err(
        "bce_bcast_err",
        lambda: F.binary_cross_entropy(lib.full((4, 1), 0.5, dtype=dt), lib.zeros(4, dtype=dt)),
    )
    rec.err(
        "bcel_bcast_err",
        lambda: F.binary_cross_entropy_with_logits(
            lib.full((4, 1), 0.5, dtype=dt), lib.zeros(4, dtype=dt)
        ),
    )
    rec.err(
        "bce_range",
        lambda: F.binary_cross_entropy(lib.full((4,), 1.5, dtype=dt), lib.zeros(4, dtype=dt)),
    )
    rec.err(
        "bce_target_range",
        lambda: F.binary_cross_entropy(
            lib.full((4,), 0.5, dtype=dt), lib.full((4,), 2.0, dtype=dt)
        ),
    )
    rec.err(
        "ce_soft_shape",
        lambda: F.cross_entropy(lib.zeros(4, 5, dtype=dt), lib.zeros(4, 6, dtype=dt)),
    )
    rec.err(
        "ce_long_oob", lambda: F.cross_entropy(lib.zeros(4, 5, dtype=dt), lib.tensor([0, 1, 2, 5]))
    )
    rec.err(
        "ce_int_target",
        lambda: F.cross_entropy(
            lib.zeros(4, 5, dtype=dt), lib.tensor([0, 1, 2, 3], dtype=lib.int32)
        ),
    )
    rec.err(
        "ce_float_hard",
        lambda: F.cross_entropy(lib.zeros(4, 5, dtype=dt), lib.tensor([0.0, 1, 2, 3], dtype=dt)),
    )
    rec.err("nll_shape", lambda: F.nll_loss(lib.zeros(4, 5, dtype=dt), lib.tensor([0, 1, 2])))
    rec.err("kl_div_warn", lambda: F.kl_div(lib.zeros(4, 5, dtype=dt), lib.zeros(4, 5, dtype=dt)))
    rec.warns(
        "kl_div_warns",
        lambda: F.kl_div(lib.zeros(4, 5, dtype=dt), lib.zeros(4, 5, dtype=dt), reduction="mean"),
    )
    rec.err(
        "gnll_var_neg",
        lambda: F.gaussian_nll_loss(
            lib.zeros(3, dtype=dt), lib.zeros(3, dtype=dt), -lib.ones(3, dtype=dt)
        ),
    )
    rec.err(
        "gnll_var_shape",
        lambda: F.gaussian_nll_loss(
            lib.zeros(3, 2, dtype=dt), lib.zeros(3, 2, dtype=dt), lib.ones(3, 3, dtype=dt)
        ),
    )


def p_cmaes_linalg(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    rec("normal_size", lib.normal(0.0, 0.5, size=(2, 3), generator=g, dtype=dt))
    rec("normal_t", lib.normal(lib.zeros(3, dtype=dt), 0.5, generator=g))
    rec("normal_tt", lib.normal(lib.zeros(3, dtype=dt), lib.full((3,), 2.0, dtype=dt), generator=g))
    out = lib.empty(2, 2, dtype=dt)
    lib.randn(2, 2, generator=g, out=out)
    rec("randn_out", out)
    lib.manual_seed(8)
    rec("rand_like", lib.rand_like(out))
    rec("randint_gen", lib.randint(3, 9, (4,), generator=g))
    rec("randperm_gen", lib.randperm(6, generator=g, dtype=lib.int32))
    C = lib.eye(3, dtype=dt)
    C.fill_diagonal_(2.0)
    rec("fill_diag", C)
    rec("diag_embed", lib.diag_embed(lib.tensor([[1.0, 2.0]], dtype=dt), offset=1))
    idx = lib.tril_indices(3, 3)
    rec("tril_idx", idx)
    v = lib.arange(6, dtype=dt)
    M = lib.zeros(3, 3, dtype=dt)
    M[idx[0], idx[1]] = v
    rec("tril_fill", M)
    rec("sym", M + M.T - lib.diag(M.diagonal()))
    fit = lib.tensor([3.0, 1.0, 3.0, 1.0, 2.0], dtype=dt)
    rec("argsort_stable", lib.argsort(fit, stable=True))
    rec("sort_stable_desc", lib.sort(fit, descending=True, stable=True).indices)
    rec("ranks", lib.argsort(lib.argsort(fit, stable=True), stable=True))
    rec("kth", lib.kthvalue(lib.tensor([5.0, 1.0, 4.0], dtype=dt), 2).values)
    ws = lib.tensor([0.5, 0.3, 0.2], dtype=dt)
    Y = lib.randn(3, 4, generator=g, dtype=dt)
    rec("addr", lib.addr(lib.eye(4, dtype=dt), Y[0], Y[1], beta=0.9, alpha=0.1))
    rec("addmm_w", lib.addmm(lib.eye(4, dtype=dt), Y.T * ws, Y, beta=0.5, alpha=0.2))
    rec("chain", lib.linalg.multi_dot([Y.T, lib.diag(ws), Y]))
    rec("mp", lib.linalg.matrix_power(lib.eye(3, dtype=dt) * 2, 3))
    rec("norm_fro", lib.linalg.matrix_norm(Y))
    rec("norm_ps", lib.linalg.norm(Y[0]))
    rec("expm", lib.linalg.matrix_exp(0.1 * (Y[:, :3] - Y[:, :3].T)))
    rec("det", lib.linalg.det(Y[:, :3]))
    rec("dist", lib.dist(Y[0], Y[1]))
    ev = lib.linalg.eigvalsh(Y.T @ Y + lib.eye(4, dtype=dt))
    rec("ev", ev)
    rec("cond_eig", ev.max() / ev.min())
    rec("max_min", str(lib.max(ev).item() > lib.min(ev).item()))
    rec("clamp_sqrt", lib.sqrt(lib.clamp(lib.tensor([-1e-12, 4.0], dtype=dt), min=0)))


def p_errors_mixed(lib, dt, rec):
    F = lib.nn.functional
    D = lib.distributions
    other = lib.float64 if dt == lib.float32 else lib.float32
    i = lib.tensor([-3, 0, 5])
    rec("symlog_int", lib.sign(i) * lib.log1p(lib.abs(i)))
    rec("expm1_int", lib.expm1(i))
    rec.err(
        "bk_mixed",
        lambda: lib.bucketize(lib.ones(2, dtype=dt), lib.tensor([0.5, 2.0], dtype=other)),
    )
    rec.err(
        "ss_mixed",
        lambda: lib.searchsorted(lib.tensor([0.5, 2.0], dtype=other), lib.ones(2, dtype=dt)),
    )
    rec.err("bk_int_b", lambda: lib.bucketize(lib.ones(2, dtype=dt), lib.tensor([0, 2])))
    rec.err(
        "cat_lp_i32",
        lambda: D.Categorical(logits=lib.zeros(3, dtype=dt)).log_prob(
            lib.tensor([1, 2], dtype=lib.int32)
        ),
    )
    rec.err(
        "cat_lp_float",
        lambda: D.Categorical(logits=lib.zeros(3, dtype=dt)).log_prob(
            lib.tensor([1.0, 2.0], dtype=dt)
        ),
    )
    rec.err(
        "cat_lp_oob", lambda: D.Categorical(logits=lib.zeros(3, dtype=dt)).log_prob(lib.tensor([3]))
    )
    rec.err(
        "norm_lp_bcast",
        lambda: D.Normal(lib.zeros(3, dtype=dt), 1.0).log_prob(lib.zeros(2, dtype=dt)),
    )
    rec.err(
        "norm_lp_other",
        lambda: D.Normal(lib.zeros(3, dtype=dt), 1.0).log_prob(lib.zeros(3, dtype=other)),
    )
    rec.err(
        "indep_lp_shape",
        lambda: D.Independent(D.Normal(lib.zeros(2, 3, dtype=dt), 1.0), 1).log_prob(
            lib.zeros(3, 2, dtype=dt)
        ),
    )
    rec.err(
        "ohc_lp_shape",
        lambda: D.OneHotCategorical(logits=lib.zeros(2, 3, dtype=dt)).log_prob(
            lib.tensor([0.0, 1.0], dtype=dt)
        ),
    )
    rec.err(
        "kl_shape",
        lambda: D.kl_divergence(
            D.Normal(lib.zeros(2, dtype=dt), 1.0), D.Normal(lib.zeros(3, dtype=dt), 1.0)
        ),
    )
    rec.err(
        "kl_ohc_shape",
        lambda: D.kl_divergence(
            D.OneHotCategorical(logits=lib.zeros(3, dtype=dt)),
            D.OneHotCategorical(logits=lib.zeros(4, dtype=dt)),
        ),
    )
    rec.err(
        "where_mixed",
        lambda: (
            lib.where(
                lib.tensor([True, False]), lib.ones(2, dtype=dt), lib.zeros(2, dtype=other)
            ).dtype
        ),
    )
    rec.err(
        "where_scalar",
        lambda: lib.where(lib.tensor([True, False]), 1.5, lib.zeros(2, dtype=lib.int64)).dtype,
    )
    rec.err("where_nonbool", lambda: lib.where(lib.tensor([1, 0]), lib.ones(2, dtype=dt), 0.0))
    rec.err(
        "st_grad",
        lambda: (
            (F.one_hot(lib.tensor([1]), 3).float() + lib.zeros(3, requires_grad=True)).requires_grad
        ),
    )
    rec.err("lerp_mixed", lambda: lib.lerp(lib.ones(2, dtype=dt), lib.zeros(2, dtype=other), 0.5))
    rec.err(
        "lerp_int",
        lambda: lib.lerp(lib.ones(2, dtype=lib.int64), lib.zeros(2, dtype=lib.int64), 0.5),
    )
    rec.err(
        "lerp_w_t",
        lambda: lib.lerp(
            lib.ones(2, dtype=dt), lib.zeros(2, dtype=dt), lib.tensor(0.5, dtype=other)
        ),
    )
    rec.err("lerp__shape", lambda: lib.ones(2, dtype=dt).lerp_(lib.zeros(3, 2, dtype=dt), 0.5))
    rec.err(
        "maximum_mixed",
        lambda: lib.maximum(lib.ones(2, dtype=dt), lib.tensor(0.5, dtype=other)).dtype,
    )
    rec.err("maximum_scalar", lambda: lib.maximum(lib.ones(2, dtype=dt), 0.5))
    rec.err(
        "max_two_mixed", lambda: lib.max(lib.ones(2, dtype=dt), lib.tensor(0.5, dtype=other)).dtype
    )
    rec.err(
        "clamp_t_mixed",
        lambda: lib.clamp(lib.ones(2, dtype=dt), min=lib.tensor(0.5, dtype=other)).dtype,
    )
    rec.err("clamp_t_shape", lambda: lib.clamp(lib.ones(2, dtype=dt), min=lib.ones(3, dtype=dt)))
    rec.err("clamp_min_t_", lambda: lib.ones(2, dtype=dt).clamp_(min=lib.ones(2, 2, dtype=dt)))
    rec.err("outer_mixed", lambda: lib.outer(lib.ones(2, dtype=dt), lib.ones(2, dtype=other)).dtype)
    rec.err("matmul_mixed", lambda: lib.ones(2, 2, dtype=dt) @ lib.ones(2, 2, dtype=other))
    rec.err(
        "cholsolve_mixed",
        lambda: lib.cholesky_solve(lib.ones(2, 1, dtype=dt), lib.eye(2, dtype=other)),
    )
    rec.err(
        "solve_tri_mixed",
        lambda: lib.linalg.solve_triangular(
            lib.eye(2, dtype=dt), lib.ones(2, 1, dtype=other), upper=True
        ),
    )
    rec.err("cumprod_int", lambda: lib.cumprod(lib.tensor([1, 2, 3], dtype=lib.int32), 0).dtype)
    rec.err("cumprod_bool", lambda: lib.cumprod(lib.tensor([True, False]), 0).dtype)
    rec.err("cumsum_dt", lambda: lib.cumsum(lib.tensor([1, 2]), 0, dtype=dt).dtype)
    rec.err(
        "flip_grad", lambda: lib.flip(lib.ones(2, dtype=dt, requires_grad=True), [0]).grad_fn.name()
    )
    rec.err(
        "stack_grad", lambda: lib.stack([lib.ones(2, dtype=dt, requires_grad=True)]).grad_fn.name()
    )
    rec.err(
        "lse_grad",
        lambda: lib.logsumexp(lib.ones(2, dtype=dt, requires_grad=True), 0).grad_fn.name(),
    )
    rec.err(
        "clamp_gfn", lambda: lib.ones(2, dtype=dt, requires_grad=True).clamp(min=0).grad_fn.name()
    )
    rec.err(
        "clampt_gfn",
        lambda: (
            lib.ones(2, dtype=dt, requires_grad=True)
            .clamp(min=lib.zeros(2, dtype=dt))
            .grad_fn.name()
        ),
    )
    rec.err(
        "eigh_gfn",
        lambda: lib.linalg.eigh(lib.eye(2, dtype=dt, requires_grad=True))[0].grad_fn.name(),
    )
    rec.err(
        "chol_gfn",
        lambda: lib.linalg.cholesky(lib.eye(2, dtype=dt, requires_grad=True)).grad_fn.name(),
    )
    rec.err(
        "oh_st_gfn",
        lambda: (
            D.OneHotCategoricalStraightThrough(logits=lib.zeros(3, dtype=dt, requires_grad=True))
            .rsample()
            .grad_fn.name()
        ),
    )
    rec.err("gru_gfn", lambda: lib.nn.GRUCell(2, 2).to(dt)(lib.ones(1, 2, dtype=dt)).grad_fn.name())
    rec.err(
        "lstm_gfn", lambda: lib.nn.LSTM(2, 2).to(dt)(lib.ones(1, 2, dtype=dt))[0].grad_fn.name()
    )
    rec.err(
        "conv_gfn",
        lambda: (
            lib.nn.Conv2d(1, 1, 2, stride=2).to(dt)(lib.ones(1, 1, 4, 4, dtype=dt)).grad_fn.name()
        ),
    )
    rec.err(
        "convt_gfn",
        lambda: (
            lib.nn.ConvTranspose2d(1, 1, 2, stride=2)
            .to(dt)(lib.ones(1, 1, 4, 4, dtype=dt))
            .grad_fn.name()
        ),
    )
    rec.err(
        "outer_gfn",
        lambda: lib.outer(
            lib.ones(2, dtype=dt, requires_grad=True), lib.ones(2, dtype=dt)
        ).grad_fn.name(),
    )
    rec.err(
        "symlog_gfn",
        lambda: lib.log1p(lib.ones(2, dtype=dt, requires_grad=True).abs()).grad_fn.name(),
    )
    rec.err("sign_gfn", lambda: lib.ones(2, dtype=dt, requires_grad=True).sign().grad_fn.name())


def p_reprs(lib, dt, rec):
    D = lib.distributions
    bins = lib.sign(lib.linspace(-5, 5, 11, dtype=dt)) * (
        lib.exp(lib.linspace(-5, 5, 11, dtype=dt).abs()) - 1
    )
    rec("bins", repr(bins))
    rec("bins_f", f"{bins}")
    x = lib.tensor([1e-8, 1.0, 1e8], dtype=dt)
    rec("sci", repr(x))
    rec("neg0", repr(lib.tensor([-0.0, 0.0, float("inf"), float("nan")], dtype=dt)))
    w = lib.tensor([0.1, 0.2], dtype=dt, requires_grad=True)
    rec("grad_fn", repr((w * 2).sum()))
    rec("param", repr(lib.nn.Parameter(lib.tensor([0.5, -1.25], dtype=dt))))
    rec("oh", repr(lib.nn.functional.one_hot(lib.tensor([0, 2]), 3)))
    rec("bool", repr(lib.tensor([True, False])))
    rec("u8", repr(lib.tensor([0, 255], dtype=lib.uint8)))
    rec("big", repr(lib.arange(2000, dtype=dt).view(40, 50)))
    rec("i32", repr(lib.tensor([1, 2], dtype=lib.int32)))
    rec("empty", repr(lib.zeros(0, 3, dtype=dt)))
    rec("0d_int", repr(lib.tensor(3)))
    rec("ints_as_float", repr(lib.tensor([1.0, 2.0, 300.0], dtype=dt)))
    rec("mixed_small", repr(lib.tensor([1.23456789, 1e-5], dtype=dt)))
    rec("dist_cat", repr(D.Categorical(logits=lib.zeros(2, 3, dtype=dt))))
    rec("dist_normal", repr(D.Normal(lib.zeros(2, dtype=dt), 1.0)))
    rec(
        "dist_tr",
        repr(D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.TanhTransform()])),
    )
    rec(
        "dist_msf",
        repr(
            D.MixtureSameFamily(
                D.Categorical(logits=lib.zeros(3, dtype=dt)), D.Normal(lib.zeros(3, dtype=dt), 1.0)
            )
        ),
    )
    rec("dist_mvn", repr(D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))))
    rec("item", str(lib.tensor(0.1, dtype=dt).item()))
    rec("tolist", str(lib.tensor([0.1, 1 / 3], dtype=dt).tolist()))
    rec("fmt", f"{lib.tensor(1 / 3, dtype=dt):.4f}")
    rec(
        "opt_sd",
        repr(lib.optim.Adam([lib.nn.Parameter(lib.zeros(1, dtype=dt))], eps=1e-5).state_dict()),
    )
    rec("gen_repr", repr(lib.Generator().manual_seed(3)).split(" object")[0])
    rec("size", repr(lib.zeros(2, 3).shape))
    rec("dtype", repr(dt))


def p_states_layouts(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    lstm = nn.LSTM(3, 4, batch_first=True).to(dt)
    h_init = nn.Parameter(lib.randn(1, 1, 4, dtype=dt) * 0.1)
    c_init = nn.Parameter(lib.zeros(1, 1, 4, dtype=dt))
    x = lib.randn(5, 6, 3, dtype=dt)
    out, (h, c) = lstm(x, (h_init.expand(1, 5, 4), c_init.expand(-1, 5, -1)))
    rec("out", out)
    out.sum().backward()
    rec("g_hinit", h_init.grad)
    rec("g_cinit", c_init.grad)
    cell = nn.GRUCell(3, 4).to(dt)
    hh = h_init[0].expand(5, 4)
    rec("cell_exp", cell(x[:, 0], hh))
    rec("cell_nc", cell(x.transpose(0, 1)[0], lib.zeros(4, 5, dtype=dt).T))
    conv = nn.Conv2d(3, 4, 3, stride=2).to(dt)
    img = lib.randn(2, 3, 9, 9, dtype=dt)
    cl = img.contiguous(memory_format=lib.channels_last)
    rec("cl", conv(cl))
    rec("cl_contig", conv(cl).is_contiguous(memory_format=lib.channels_last))
    rec("permuted_in", conv(img.permute(0, 1, 3, 2)))
    rec("stride", str(cl.stride()))
    convt = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1).to(dt)
    y = convt(conv(img))
    rec("convt", y)
    rec("convt_shape", str(tuple(y.shape)))
    ups = nn.Sequential(
        nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(4, 3, 3, padding=1)
    ).to(dt)
    rec("ups", ups(conv(img)))
    rec("pixel_shuffle", nn.PixelShuffle(2)(conv(img)).shape[1])


def p_init_hooks_groups(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(5)
    w = lib.empty(6, 4, dtype=dt)
    nn.init.orthogonal_(w, gain=math.sqrt(2))
    rec("orth", w)
    w2 = lib.empty(3, 5, dtype=dt)
    nn.init.orthogonal_(w2)
    rec("orth_wide", w2)
    rec(
        "xavier",
        nn.init.xavier_uniform_(lib.empty(3, 4, dtype=dt), gain=nn.init.calculate_gain("relu")),
    )
    rec("xavier_n", nn.init.xavier_normal_(lib.empty(3, 4, dtype=dt)))
    rec("trunc", nn.init.trunc_normal_(lib.empty(5, dtype=dt), std=0.02, a=-0.04, b=0.04))
    rec(
        "kaiming_conv",
        nn.init.kaiming_normal_(
            lib.empty(2, 3, 3, 3, dtype=dt), mode="fan_out", nonlinearity="relu"
        ),
    )
    rec("gain_lrelu", nn.init.calculate_gain("leaky_relu", 0.2))
    rec("gain_selu", nn.init.calculate_gain("selu"))
    rec.err("gain_bad", lambda: nn.init.calculate_gain("swish"))
    rec.err("orth_1d", lambda: nn.init.orthogonal_(lib.empty(3, dtype=dt)))
    rec.err("xavier_1d", lambda: nn.init.xavier_uniform_(lib.empty(3, dtype=dt)))
    rec("zeros_", nn.init.zeros_(lib.empty(2, dtype=dt)))

    # custom straight-through Function
    class ST(lib.autograd.Function):
        @staticmethod
        def forward(ctx, logits):
            idx = logits.argmax(-1)
            out = lib.nn.functional.one_hot(idx, logits.shape[-1]).to(logits.dtype)
            ctx.save_for_backward(logits)
            return out

        @staticmethod
        def backward(ctx, g):
            (logits,) = ctx.saved_tensors
            p = lib.softmax(logits, -1)
            return p * (g - (g * p).sum(-1, keepdim=True))

    lg = lib.randn(3, 4, dtype=dt, requires_grad=True)
    y = ST.apply(lg)
    (y * lib.arange(4, dtype=dt)).sum().backward()
    rec("st_fn", y)
    rec("st_fn_g", lg.grad)
    rec("st_name", type(y.grad_fn).__name__)
    # gradient hooks scale a branch
    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = a * 2
    h = b.register_hook(lambda g: g * 0.1)
    (b**2).sum().backward()
    rec("hook", a.grad)
    h.remove()
    # param groups with their own eps and lr
    m1, m2 = nn.Linear(2, 2).to(dt), nn.Linear(2, 1).to(dt)
    opt = lib.optim.Adam(
        [{"params": m1.parameters(), "eps": 1e-5}, {"params": m2.parameters(), "lr": 1e-2}], lr=1e-3
    )
    for _ in range(2):
        opt.zero_grad()
        m2(m1(lib.ones(3, 2, dtype=dt))).sum().backward()
        opt.step()
    rec.params("pg1", m1)
    rec.params("pg2", m2)
    sd = opt.state_dict()
    rec("groups", str([(g["lr"], g["eps"], g["params"]) for g in sd["param_groups"]]))
    opt2 = lib.optim.Adam(m1.parameters())
    rec.err("load_mismatch", lambda: opt2.load_state_dict(sd))
    m3 = nn.Linear(2, 3).to(dt)
    rec.err("add_dup", lambda: opt.add_param_group({"params": m1.weight}))
    opt.add_param_group({"params": m3.parameters(), "eps": 1e-3})
    rec("n_groups", len(opt.param_groups))
    rec(
        "g3",
        str(sorted((k, v) for k, v in opt.param_groups[2].items() if k in ("lr", "eps", "betas"))),
    )
    # mixed-dtype params in one clip
    pa = nn.Parameter(lib.ones(3, dtype=lib.float32))
    pb = nn.Parameter(lib.ones(2, dtype=lib.float64))
    pa.grad = lib.full((3,), 2.0)
    pb.grad = lib.full((2,), 3.0, dtype=lib.float64)
    n = nn.utils.clip_grad_norm_([pa, pb], 1.0)
    rec("mixed_norm", n)
    rec("mixed_ga", pa.grad)
    rec("mixed_gb", pb.grad)
    n2 = nn.utils.clip_grad_norm_([pb, pa], 1.0, foreach=True)
    rec("mixed_norm2", n2)


def p_autocast_halfs(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(6)
    enc = nn.Sequential(
        nn.Conv2d(3, 4, 4, stride=2), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 7 * 7, 6)
    ).to(dt)
    cell = nn.GRUCell(6, 5).to(dt)
    lstm = nn.LSTM(6, 5, batch_first=True).to(dt)
    x = lib.rand(2, 3, 16, 16, dtype=dt)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        e = enc(x)
        h = cell(e)
        o, _ = lstm(e.unsqueeze(1))
        lse = lib.logsumexp(e, -1)
        sm = lib.softmax(e, -1)
        ls = lib.log_softmax(e, -1)
        mse = nn.functional.mse_loss(e, lib.zeros_like(e))
        kl = lib.distributions.Normal(e.float(), 1.0).log_prob(lib.zeros(2, 6))
    rec("dtypes", str([str(t.dtype) for t in (e, h, o, lse, sm, ls, mse, kl)]))
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**4)
    opt = lib.optim.Adam(enc.parameters(), eps=1e-5)
    loss = e.float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    n = nn.utils.clip_grad_norm_(enc.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    rec("scale", scaler.get_scale())
    rec("norm_finite", bool(lib.isfinite(n)))
    rec.err("h_half_lstm", lambda: nn.LSTM(2, 3).half()(lib.ones(1, 2, dtype=lib.half))[0].dtype)
    rec.err("h_half_gru", lambda: nn.GRUCell(2, 3).half()(lib.ones(1, 2, dtype=lib.half)).dtype)
    rec.err(
        "bf16_conv",
        lambda: nn.Conv2d(1, 1, 2).bfloat16()(lib.ones(1, 1, 3, 3, dtype=lib.bfloat16)).dtype,
    )
    rec.err("bf16_eigh", lambda: lib.linalg.eigh(lib.eye(2, dtype=lib.bfloat16)))
    rec.err("bf16_chol", lambda: lib.linalg.cholesky(lib.eye(2, dtype=lib.bfloat16)))
    rec.err("half_lse", lambda: lib.logsumexp(lib.ones(2, dtype=lib.half), 0).dtype)
    rec.err(
        "bf16_bucketize",
        lambda: lib.bucketize(
            lib.ones(2, dtype=lib.bfloat16), lib.tensor([0.5, 2.0], dtype=lib.bfloat16)
        ),
    )
    rec.err(
        "half_oh", lambda: lib.nn.functional.one_hot(lib.ones(2, dtype=lib.half).long(), 3).dtype
    )
    rec.err("bf16_argsort", lambda: lib.argsort(lib.tensor([2.0, 1.0], dtype=lib.bfloat16)))
    rec.err(
        "half_outer",
        lambda: lib.outer(lib.ones(2, dtype=lib.half), lib.ones(2, dtype=lib.half)).dtype,
    )
    rec.err("half_cumprod", lambda: lib.cumprod(lib.ones(2, dtype=lib.half), 0).dtype)
    rec.err("half_quantile", lambda: lib.quantile(lib.ones(2, dtype=lib.half), 0.5))
    rec.err(
        "half_kl",
        lambda: (
            lib.distributions.kl_divergence(
                lib.distributions.Categorical(logits=lib.zeros(3, dtype=lib.half)),
                lib.distributions.Categorical(logits=lib.zeros(3, dtype=lib.half)),
            ).dtype
        ),
    )
    rec.err(
        "bf16_gumbel",
        lambda: (
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3, dtype=lib.bfloat16), hard=True).dtype
        ),
    )


def p_masked_actions(lib, dt, rec):
    D = lib.distributions
    F = lib.nn.functional
    logits = lib.tensor([[1.0, 2.0, 0.5, -1.0], [0.3, 0.1, 0.2, 0.0]], dtype=dt, requires_grad=True)
    m = lib.tensor([[True, False, True, True], [False, False, False, True]])
    ml = logits.masked_fill(~m, -math.inf)
    c = D.Categorical(logits=ml)
    rec("probs", c.probs)
    rec("ent", c.entropy())
    rec("lp", c.log_prob(lib.tensor([0, 3])))
    (c.entropy().sum() + c.log_prob(lib.tensor([0, 3])).sum()).backward()
    rec("g", logits.grad)
    oc = D.OneHotCategorical(logits=ml.detach())
    rec("oh_ent", oc.entropy())
    rec("oh_lp", oc.log_prob(F.one_hot(lib.tensor([2, 3]), 4).to(dt)))
    rec(
        "kl_inf",
        D.kl_divergence(D.Categorical(logits=ml.detach()), D.Categorical(logits=logits.detach())),
    )
    rec(
        "kl_inf_rev",
        D.kl_divergence(D.Categorical(logits=logits.detach()), D.Categorical(logits=ml.detach())),
    )
    rec("softmax_allinf", F.softmax(lib.full((2, 3), -math.inf, dtype=dt), -1))
    rec("lsm_allinf", F.log_softmax(lib.full((2, 3), -math.inf, dtype=dt), -1))
    rec("lse_mixed", lib.special.logsumexp(ml.detach(), -1))
    p = lib.tensor([0.0, 0.25, 0.75], dtype=dt)
    rec("xlogy", lib.special.xlogy(p, p))
    rec("entr", lib.special.entr(p))
    c0 = D.Categorical(probs=p)
    rec("ent0", c0.entropy())
    rec("lp0", c0.log_prob(lib.tensor(0)))
    rec("logits0", c0.logits)
    rec(
        "n2n",
        lib.nan_to_num(lib.tensor([math.nan, math.inf, -math.inf], dtype=dt), nan=0.0, posinf=1.0),
    )
    rec("n2n_def", lib.nan_to_num(lib.tensor([math.nan, math.inf, -math.inf], dtype=dt)))
    rec("bern_p01", D.Bernoulli(probs=lib.tensor([0.0, 1.0], dtype=dt)).entropy())
    rec(
        "bern_lp01",
        D.Bernoulli(probs=lib.tensor([0.0, 1.0], dtype=dt)).log_prob(
            lib.tensor([0.0, 1.0], dtype=dt)
        ),
    )
    rec(
        "bern_logits_inf",
        D.Bernoulli(logits=lib.tensor([math.inf, -math.inf], dtype=dt)).log_prob(
            lib.tensor([1.0, 0.0], dtype=dt)
        ),
    )
    rec(
        "normal_tiny",
        D.Normal(lib.zeros(2, dtype=dt), lib.tensor([1e-30, 1e30], dtype=dt)).log_prob(
            lib.zeros(2, dtype=dt)
        ),
    )
    rec(
        "tanh_edge",
        D.TransformedDistribution(
            D.Normal(lib.zeros(2, dtype=dt), 1.0), [D.transforms.TanhTransform()]
        ).log_prob(lib.tensor([0.9999999, -0.999], dtype=dt)),
    )


def p_drq_augment(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(3)
    x = lib.rand(2, 3, 12, 12, generator=g, dtype=dt)
    n, c, h, w = x.size()
    pad = 2
    xp = F.pad(x, tuple([pad] * 4), "replicate")
    rec("pad", xp)
    eps = 1.0 / (h + 2 * pad)
    arange = lib.linspace(-1.0 + eps, 1.0 - eps, h + 2 * pad, dtype=dt)[:h]
    arange = arange.unsqueeze(0).repeat(h, 1).unsqueeze(2)
    base_grid = lib.cat([arange, arange.transpose(1, 0)], dim=2)
    base_grid = base_grid.unsqueeze(0).repeat(n, 1, 1, 1)
    shift = lib.randint(0, 2 * pad + 1, size=(n, 1, 1, 2), generator=g, dtype=dt)
    shift *= 2.0 / (h + 2 * pad)
    grid = base_grid + shift
    xs = xp.clone().requires_grad_(True)
    out = F.grid_sample(xs, grid, padding_mode="zeros", align_corners=False)
    rec("shifted", out)
    (out * lib.arange(out.numel(), dtype=dt).view_as(out).sin()).sum().backward()
    rec("g", xs.grad)
    theta = lib.tensor([[[0.9, 0.1, 0.05], [-0.1, 0.95, 0.0]]], dtype=dt).repeat(2, 1, 1)
    ag = F.affine_grid(theta, (2, 3, 8, 8), align_corners=False)
    rec("affine", F.grid_sample(x, ag, mode="bilinear", padding_mode="border", align_corners=False))
    rec(
        "nearest",
        F.grid_sample(x, ag, mode="nearest", padding_mode="reflection", align_corners=True),
    )
    rec("interp_bil", F.interpolate(x, size=(8, 8), mode="bilinear", align_corners=False))
    rec(
        "interp_aa",
        F.interpolate(x, size=(8, 8), mode="bilinear", antialias=True, align_corners=False),
    )
    rec("interp_area", F.interpolate(x, size=(6, 6), mode="area"))
    rec("interp_ne", F.interpolate(x, scale_factor=0.75, mode="nearest-exact"))
    rec("interp_bicubic", F.interpolate(x, size=(9, 9), mode="bicubic", align_corners=True))
    gray = (x * lib.tensor([0.299, 0.587, 0.114], dtype=dt).view(1, 3, 1, 1)).sum(1, keepdim=True)
    rec("gray", gray)
    frames = x.unfold(0, 2, 1)
    rec("unfold", frames.shape)
    rec("avgpool", F.adaptive_avg_pool2d(x, 5))
    rec(
        "cutout",
        x.masked_fill(
            lib.zeros(12, 12, dtype=lib.bool).index_fill_(0, lib.tensor([3, 4]), True), 0.0
        ).sum(),
    )
    rec("color_jit", (x * 1.2 + 0.1).clamp(0, 1).mean((2, 3)))


def p_target_critic(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(9)
    critic = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.SiLU(), nn.Linear(8, 1)).to(dt)

    def init(m):
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=1.0)
            nn.init.zeros_(m.bias)

    critic.apply(init)
    target = copy.deepcopy(critic)
    target.requires_grad_(False)
    rec("rg", str([p.requires_grad for p in target.parameters()]))
    rec("shared", critic[0].weight.data_ptr() == target[0].weight.data_ptr())
    opt = lib.optim.Adam(critic.parameters(), lr=1e-2)
    x = lib.randn(6, 4, dtype=dt)
    for it in range(3):
        with lib.no_grad():
            y = target(x).squeeze(-1) * 0.9 + 1.0
        loss = lib.nn.functional.mse_loss(critic(x).squeeze(-1), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            for p, tp in zip(critic.parameters(), target.parameters(), strict=True):
                tp.mul_(0.95).add_(p, alpha=0.05)
        rec(f"loss{it}", loss)
    rec.params("t", target)
    sd = critic.state_dict(keep_vars=True)
    rec("keep_vars", str([type(v).__name__ for v in sd.values()][:2]))
    small = nn.Sequential(nn.Linear(4, 8)).to(dt)
    res = small.load_state_dict(critic.state_dict(), strict=False)
    rec("missing", repr(res))
    rec.err("strict", lambda: small.load_state_dict(critic.state_dict()))
    rec.err(
        "shape",
        lambda: nn.Linear(4, 9).load_state_dict({"weight": lib.zeros(8, 4), "bias": lib.zeros(8)}),
    )
    rec("modules", str([n for n, _ in critic.named_modules()]))
    rec("eval", str(critic.eval().training))
    sn = nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3).to(dt))
    rec("sn_w", sn(x))
    wn = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3).to(dt))
    rec("wn", wn(x))
    rec("wn_keys", str(sorted(wn.state_dict().keys())))


def p_errors_shapes(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    a = lib.ones(3, 4, dtype=dt)
    rec.err("cat", lambda: lib.cat([a, lib.ones(2, 5, dtype=dt)], 1))
    rec.err("cat_rank", lambda: lib.cat([a, lib.ones(3, dtype=dt)], 0))
    rec.err("mm", lambda: nn.Linear(5, 2).to(dt)(a))
    rec.err("matmul", lambda: a @ lib.ones(5, 2, dtype=dt))
    rec.err("bmm", lambda: lib.bmm(lib.ones(2, 3, 4, dtype=dt), lib.ones(3, 4, 2, dtype=dt)))
    rec.err("expand", lambda: a.expand(2, 3, 5))
    rec.err("view", lambda: a.view(5, -1))
    rec.err("reshape", lambda: a.reshape(-1, -1))
    rec.err("gather", lambda: a.gather(1, lib.tensor([[4]])))
    rec.err("gather_dt", lambda: a.gather(1, lib.tensor([[1.0]])))
    rec.err("index", lambda: a[lib.tensor([3])])
    rec.err("emb", lambda: nn.Embedding(3, 2)(lib.tensor([3])))
    rec.err(
        "scatter_dt",
        lambda: lib.zeros(2, 3, dtype=dt).scatter_(
            1, lib.tensor([[0]]), lib.ones(1, 1, dtype=lib.float16)
        ),
    )
    rec.err(
        "scatter_add_idx",
        lambda: lib.zeros(2, 3, dtype=dt).scatter_add_(
            1, lib.tensor([[5]]), lib.ones(1, 1, dtype=dt)
        ),
    )
    rec.err("bcast", lambda: a + lib.ones(3, dtype=dt))
    rec.err("bcast_inplace", lambda: lib.ones(1, 4, dtype=dt).add_(a))
    rec.err("mse_shape", lambda: F.mse_loss(a, lib.ones(3, 5, dtype=dt)))
    rec.err("ln_shape", lambda: nn.LayerNorm(5).to(dt)(a))
    rec.err("chunk0", lambda: a.chunk(0))
    rec.err("split", lambda: lib.split(a, [2, 3], -1))
    rec.err("squeeze_dim", lambda: a.squeeze(3))
    rec.err("permute", lambda: a.permute(0, 0))
    rec.err("unflatten", lambda: nn.Unflatten(1, (3, 2))(a))
    rec.err("flatten_dims", lambda: lib.flatten(a, 1, 0))
    rec.err("softmax_dim", lambda: F.softmax(a, 2))
    rec.err("masked_fill_dt", lambda: a.masked_fill(lib.ones(3, 4), 0.0))
    rec.err("where_shape", lambda: lib.where(lib.ones(3, 5, dtype=lib.bool), a, 0.0))
    rec.err("stack_dim", lambda: lib.stack([a, a], 3))
    rec.err("tensor_ragged", lambda: lib.tensor([[1.0, 2.0], [3.0]]))
    rec.err("item_grad_float", lambda: float(lib.ones(2, dtype=dt)))
    rec.err("bool_ambig", lambda: bool(lib.ones(2, dtype=dt)))
    rec.err("len_0d", lambda: len(lib.tensor(1.0, dtype=dt)))
    rec.err("iter_0d", lambda: list(lib.tensor(1.0, dtype=dt)))


def p_model_jacobians(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(4)
    dyn = nn.Sequential(nn.Linear(3 + 2, 8), nn.Tanh(), nn.Linear(8, 3)).to(dt)
    s = lib.randn(3, dtype=dt)
    a = lib.randn(2, dtype=dt)

    def f(s, a):
        return s + dyn(lib.cat([s, a]))

    J = lib.autograd.functional.jacobian(f, (s, a))
    rec("Js", J[0])
    rec("Ja", J[1])
    Jf = lib.func.jacrev(f, argnums=(0, 1))(s, a)
    rec("jacrev", Jf[1])
    rec("jacfwd", lib.func.jacfwd(f)(s, a))
    S = lib.randn(4, 3, dtype=dt)
    A = lib.randn(4, 2, dtype=dt)
    rec("vmap_jac", lib.vmap(lib.func.jacrev(f, argnums=1))(S, A))
    H = lib.autograd.functional.hessian(lambda a: f(s, a).pow(2).sum(), a)
    rec("hess", H)
    params = dict(dyn.named_parameters())

    def loss(p, s, a):
        out = lib.func.functional_call(dyn, p, (lib.cat([s, a], -1),))
        return out.pow(2).mean()

    g = lib.func.grad(loss)(params, S, A)
    rec("fgrad", g["0.weight"])
    per = lib.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, S, A)
    rec("per_sample", per["2.bias"])
    cell = nn.GRUCell(2, 3).to(dt)
    hs = lib.vmap(lambda x, h: cell(x.unsqueeze(0), h.unsqueeze(0)).squeeze(0))(A, S)
    rec("vmap_gru", hs)
    D = lib.distributions
    lp = lib.vmap(lambda m: D.Normal(m, 1.0).log_prob(lib.zeros(3, dtype=dt)).sum())(S)
    rec("vmap_dist", lp)
    # planning by gradient on the action sequence
    acts = lib.zeros(4, 2, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([acts], lr=0.1, momentum=0.9, nesterov=True)
    for it in range(3):
        x = s
        cost = 0
        for t in range(4):
            x = f(x, lib.tanh(acts[t]))
            cost = cost + x.pow(2).sum()
        opt.zero_grad()
        cost.backward()
        opt.step()
        rec(f"cost{it}", cost)
    rec("acts", acts)


def p_seeds(lib, dt, rec):
    for seed in [
        0,
        2**32,
        2**32 + 7,
        2**63 - 1,
        2**63,
        2**64 - 1,
        -1,
        -(2**63),
        2**64,
        -(2**63) - 1,
    ]:

        def go(seed=seed):
            g = lib.Generator().manual_seed(seed)
            return (
                g.initial_seed(),
                lib.randn(3, generator=g, dtype=dt).tolist(),
                lib.rand(2, generator=g, dtype=dt).tolist(),
            )

        r = rec.err(f"seed{seed}", go)
        if r is not None:
            rec(f"seed{seed}.init", r[0])
            rec(f"seed{seed}.randn", r[1])
            rec(f"seed{seed}.rand", r[2])
    rec.err("seed_str", lambda: lib.Generator().manual_seed("3"))
    rec.err("seed_np", lambda: lib.Generator().manual_seed(np.int64(3)).initial_seed())
    rec.err("seed_t", lambda: lib.Generator().manual_seed(lib.tensor(3)).initial_seed())
    rec.err("global_big", lambda: lib.manual_seed(2**64))
    g = lib.Generator().manual_seed(11)
    big = lib.randn(20, generator=g, dtype=dt)
    rec("randn20", big)
    rec("randn_odd", lib.randn(7, generator=g, dtype=dt))
    rec("randn_2d", lib.randn(3, 17, generator=g, dtype=dt))
    rec("rand_big", lib.rand(33, generator=g, dtype=dt))
    rec("randint_big", lib.randint(0, 2**40, (5,), generator=g))
    rec("randint_neg", lib.randint(-5, 5, (5,), generator=g))


def p_empty_batches(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    D = lib.distributions
    lib.manual_seed(2)
    conv = nn.Conv2d(3, 4, 4, stride=2).to(dt)
    rec.err("conv0", lambda: conv(lib.zeros(0, 3, 16, 16, dtype=dt)).shape)
    convt = nn.ConvTranspose2d(4, 3, 4, stride=2).to(dt)
    rec.err("convt0", lambda: convt(lib.zeros(0, 4, 7, 7, dtype=dt)).shape)
    cell = nn.GRUCell(3, 4).to(dt)
    rec.err("gru0", lambda: cell(lib.zeros(0, 3, dtype=dt)).shape)
    rec.err("lstmcell0", lambda: nn.LSTMCell(3, 4).to(dt)(lib.zeros(0, 3, dtype=dt))[0].shape)
    rec.err("lse_empty_keep", lambda: lib.logsumexp(lib.zeros(2, 0, dtype=dt), 1, keepdim=True))
    rec.err("lse_empty_all", lambda: lib.logsumexp(lib.zeros(0, dtype=dt), 0))
    rec.err(
        "kl_empty",
        lambda: (
            D.kl_divergence(
                D.Categorical(logits=lib.zeros(0, 3, dtype=dt)),
                D.Categorical(logits=lib.zeros(0, 3, dtype=dt)),
            ).shape
        ),
    )
    rec.err(
        "normal_empty_lp",
        lambda: D.Normal(lib.zeros(0, dtype=dt), 1.0).log_prob(lib.zeros(0, dtype=dt)).shape,
    )
    rec.err("cat_empty_cls", lambda: D.Categorical(logits=lib.zeros(2, 0, dtype=dt)))
    m = nn.Linear(2, 2).to(dt)
    rec("clip_nograd", nn.utils.clip_grad_norm_(m.parameters(), 1.0))
    opt = lib.optim.Adam(m.parameters())
    opt.step()
    rec("no_state", len(opt.state))
    rec("w", m.weight)
    rec.err("ln0", lambda: nn.LayerNorm(4).to(dt)(lib.zeros(0, 4, dtype=dt)).shape)
    rec.err("mse0", lambda: F.mse_loss(lib.zeros(0, dtype=dt), lib.zeros(0, dtype=dt)))
    rec.err("ce0", lambda: F.cross_entropy(lib.zeros(0, 3, dtype=dt), lib.zeros(0, dtype=lib.long)))
    rec.err(
        "bce0",
        lambda: F.binary_cross_entropy_with_logits(lib.zeros(0, dtype=dt), lib.zeros(0, dtype=dt)),
    )
    rec.err("mean0", lambda: lib.zeros(0, dtype=dt).mean())
    rec.err("std1", lambda: lib.ones(1, dtype=dt).std())
    rec.err("max0", lambda: lib.zeros(0, dtype=dt).max())
    rec.err("argmax0", lambda: lib.zeros(0, dtype=dt).argmax())
    rec.err("argsort0", lambda: lib.argsort(lib.zeros(0, dtype=dt)))
    rec.err("topk_big", lambda: lib.topk(lib.zeros(3, dtype=dt), 4))
    rec.err("oh0", lambda: F.one_hot(lib.zeros(0, dtype=lib.long), 4).shape)
    rec.err(
        "bucket0", lambda: lib.bucketize(lib.zeros(0, dtype=dt), lib.tensor([1.0], dtype=dt)).shape
    )
    rec.err("eigh0b", lambda: lib.linalg.eigh(lib.zeros(0, 2, 2, dtype=dt))[0].shape)
    rec.err("cumprod0", lambda: lib.cumprod(lib.zeros(0, dtype=dt), 0).shape)
    rec.err("flip0", lambda: lib.flip(lib.zeros(0, 2, dtype=dt), [0]).shape)
    rec.err("stack0", lambda: lib.stack([lib.zeros(0, dtype=dt)] * 2).shape)
    rec.err("multinomial0", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("multinomial_many", lambda: lib.multinomial(lib.tensor([0.5, 0.5], dtype=dt), 3))
    rec.err("multinomial_inf", lambda: lib.multinomial(lib.tensor([0.5, math.inf], dtype=dt), 1))


def _err_type(rec, name, fn):
    """Records only the exception's type (where the message is a documented difference)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, type(e).__name__)
        return
    rec(name, "no error")


def p_tanh_actor(lib, dt, rec):
    lib.manual_seed(11)
    nn = lib.nn
    D = lib.distributions
    net = nn.Sequential(nn.Linear(6, 16), nn.ELU(), nn.Linear(16, 4)).to(dt)
    g = lib.Generator().manual_seed(22)
    feat = lib.randn(5, 6, generator=g, dtype=dt)
    mean, std = net(feat).chunk(2, -1)
    mean = 5 * lib.tanh(mean / 5)
    std = 2 * lib.sigmoid((std + 2.0) / 2) + 0.1
    base = D.Normal(mean, std)
    dist = D.TransformedDistribution(base, [D.transforms.TanhTransform(cache_size=1)])
    dist = D.Independent(dist, 1)
    eps = lib.randn(5, 2, generator=g, dtype=dt)
    pre = mean + std * eps
    a = lib.tanh(pre)
    rec("a", a)
    rec("log_prob", D.Independent(base, 1).log_prob(pre)
        - (2 * (math.log(2) - pre - lib.nn.functional.softplus(-2 * pre))).sum(-1))  # fmt: skip
    rec("tlp", dist.log_prob(a.clamp(-0.999, 0.999)))
    lib.manual_seed(12)
    s = dist.rsample()
    rec("rsample", s)
    lp = dist.log_prob(s)
    rec("lp_cached", lp)
    loss = -(lp.mean() + s.pow(2).sum(-1).mean())
    loss.backward()
    rec.params("g", net, grads=True, view=lambda n, p: p)
    rec("mean_mode", lib.tanh(base.mean))
    rec("entropy_base", base.entropy().sum(-1))
    rec("batch_shape", str((dist.batch_shape, dist.event_shape)))
    # a truncated/clipped Normal-like sample via clamp with straight-through
    clipped = pre.clamp(-1, 1)
    st = pre + (clipped - pre).detach()
    rec("st_clip", st)


def p_layernorm_gru(lib, dt, rec):
    nn = lib.nn

    class GRUCell(nn.Module):
        """DreamerV2's GRU cell: one Linear for the three gates, LayerNorm, update bias -1."""

        def __init__(self, inp_size, size, norm=True, act=lib.tanh, update_bias=-1):
            super().__init__()
            self._size, self._act, self._update_bias = size, act, update_bias
            self._layer = nn.Linear(inp_size + size, 3 * size, bias=norm is not True)
            self._norm = nn.LayerNorm(3 * size, eps=1e-3) if norm else None

        def forward(self, inputs, state):
            state = state[0]
            parts = self._layer(lib.cat([inputs, state], -1))
            if self._norm is not None:
                parts = self._norm(parts)
            reset, cand, update = lib.split(parts, [self._size] * 3, -1)
            reset = lib.sigmoid(reset)
            cand = self._act(reset * cand)
            update = lib.sigmoid(update + self._update_bias)
            output = update * cand + (1 - update) * state
            return output, [output]

    lib.manual_seed(13)
    cell = GRUCell(4, 6).to(dt)
    g = lib.Generator().manual_seed(23)
    xs = lib.randn(5, 3, 4, generator=g, dtype=dt)
    h = [lib.zeros(3, 6, dtype=dt)]
    outs = []
    for x in xs.unbind(0):
        o, h = cell(x, h)
        outs.append(o)
    out = lib.stack(outs)
    rec("out", out)
    out.pow(2).mean().backward()
    rec.params("g", cell, grads=True, view=lambda n, p: p)
    # nn.GRU batch_first and a GRUCell give the same sequence
    lib.manual_seed(14)
    gru = nn.GRU(4, 6, batch_first=True, num_layers=2).to(dt)
    h0 = lib.zeros(2, 3, 6, dtype=dt)
    seq, hn = gru(xs.transpose(0, 1), h0)
    rec("gru_seq", seq)
    rec("gru_hn", hn)
    c = nn.GRUCell(4, 6).to(dt)
    with lib.no_grad():
        c.weight_ih.copy_(gru.weight_ih_l0)
        c.weight_hh.copy_(gru.weight_hh_l0)
        c.bias_ih.copy_(gru.bias_ih_l0)
        c.bias_hh.copy_(gru.bias_hh_l0)
        hh = lib.zeros(3, 6, dtype=dt)
        for t in range(5):
            hh = c(xs[t], hh)
    rec("cell_vs_gru", hh)
    rec("unbatched", c(xs[0, 0], None))


def p_return_norm(lib, dt, rec):
    g = lib.Generator().manual_seed(24)
    ret = lib.randn(16, 8, generator=g, dtype=dt) * 3 + 1
    # DreamerV3's percentile scale with an EMA
    lo = lib.quantile(ret, 0.05)
    hi = lib.quantile(ret, 0.95)
    rec("lo", lo)
    rec("hi", hi)
    decay = 0.99
    low_ema = lib.zeros((), dtype=dt)
    high_ema = lib.zeros((), dtype=dt)
    for step in range(3):
        r = ret[step * 4 : (step + 1) * 4].flatten()
        q = lib.quantile(r, lib.tensor([0.05, 0.95], dtype=dt))
        low_ema = decay * low_ema + (1 - decay) * q[0]
        high_ema = decay * high_ema + (1 - decay) * q[1]
        rec(f"q{step}", q)
    scale = lib.max(lib.ones((), dtype=dt), high_ema - low_ema)
    rec("scale", scale)
    adv = (ret - ret.mean()) / scale
    rec("adv", adv)
    rec("nanq", lib.nanquantile(lib.where(ret > 4, float("nan"), ret), 0.5, dim=0))
    rec("q_dim", lib.quantile(ret, 0.5, dim=1, keepdim=True, interpolation="nearest"))
    # a running mean/std normaliser (Welford over batches)
    mean = lib.zeros(8, dtype=dt)
    var = lib.ones(8, dtype=dt)
    count = 1e-4
    for step in range(4):
        b = ret[step * 4 : (step + 1) * 4]
        bm, bv, bc = b.mean(0), b.var(0, unbiased=False), b.shape[0]
        delta = bm - mean
        tot = count + bc
        mean = mean + delta * bc / tot
        m2 = var * count + bv * bc + delta**2 * count * bc / tot
        var = m2 / tot
        count = tot
    rec("rms_mean", mean)
    rec("rms_var", var)
    rec("std_mean", lib.std_mean(ret, dim=0))
    rec("var_mean", lib.var_mean(ret, 0, correction=0)[0])


def p_replay(lib, dt, rec):
    cap, T = 20, 5
    obs = lib.zeros(cap, 3, 8, 8, dtype=lib.uint8)
    act = lib.zeros(cap, 2, dtype=dt)
    rew = lib.zeros(cap, dtype=dt)
    done = lib.zeros(cap, dtype=lib.bool)
    g = lib.Generator().manual_seed(25)
    ptr = 0
    for step in range(27):
        i = ptr % cap
        obs[i] = lib.randint(0, 256, (3, 8, 8), generator=g, dtype=lib.uint8)
        act[i] = lib.rand(2, generator=g, dtype=dt) * 2 - 1
        rew[i] = float(step)
        done[i] = step % 9 == 8
        ptr += 1
    starts = lib.randint(0, cap - T, (4,), generator=g)
    rec("starts", starts)
    idx = starts[:, None] + lib.arange(T)
    rec("idx", idx)
    batch_obs = obs[idx].to(dt) / 255.0 - 0.5
    rec("obs", batch_obs.mean((2, 3, 4)))
    rec("obs_shape", str(tuple(batch_obs.shape)))
    rec("rew", rew[idx])
    rec("done", done[idx])
    rec("cont", 1.0 - done[idx].to(dt))
    rec("act", act[idx])
    perm = lib.randperm(cap, generator=g)
    rec("perm", perm)
    rec("take", lib.index_select(rew, 0, perm[:5]))
    # uint8 arithmetic wraps; division promotes to float
    rec("u8_add", obs[0, 0, 0] + obs[1, 0, 0])
    rec("u8_div", (obs[0, 0, 0] / 2).dtype == lib.float32)
    g2 = lib.Generator().manual_seed(26)
    rec("multinomial", lib.multinomial(lib.ones(cap, dtype=dt), 6, generator=g2))


def p_decoder_nll(lib, dt, rec):
    lib.manual_seed(15)
    nn = lib.nn
    D = lib.distributions
    dec = nn.Sequential(
        nn.Linear(6, 32), nn.Unflatten(1, (32, 1, 1)),
        nn.ConvTranspose2d(32, 8, 5, stride=2), nn.ELU(),
        nn.ConvTranspose2d(8, 3, 6, stride=2),
    ).to(dt)  # fmt: skip
    g = lib.Generator().manual_seed(27)
    feat = lib.randn(2, 6, generator=g, dtype=dt)
    mean = dec(feat)
    rec("shape", str(tuple(mean.shape)))
    target = lib.rand(mean.shape, generator=g, dtype=dt) - 0.5
    dist = D.Independent(D.Normal(mean, 1.0), 3)
    lp = dist.log_prob(target)
    rec("lp", lp)
    (-lp.mean()).backward()
    rec.params("g", dec, grads=True, view=lambda n, p: p)
    # MSE form, the same up to a constant
    rec("mse_sum", ((mean - target) ** 2).sum((-3, -2, -1)))
    # a Bernoulli continue head and its BCE
    logits = lib.linspace(-3, 3, 6, dtype=dt)
    cont = lib.tensor([1, 1, 0, 1, 0, 1], dtype=dt)
    bern = D.Bernoulli(logits=logits)
    rec("bern_lp", bern.log_prob(cont))
    rec("bce", nn.functional.binary_cross_entropy_with_logits(logits, cont, reduction="none"))
    rec("bern_mean", bern.mean)
    rec("bern_mode", bern.mode)
    rec("bern_entropy", bern.entropy())
    # DreamerV3 discrete reward head: twohot over symlog bins
    bins = lib.linspace(-20, 20, 255, dtype=dt)
    rlogits = lib.randn(2, 255, generator=g, dtype=dt)
    rec("r_mean", symexp(lib, (lib.softmax(rlogits, -1) * bins).sum(-1)))


def p_conv_encoder(lib, dt, rec):
    lib.manual_seed(16)
    nn = lib.nn

    # DreamerV3-style encoder: stride-2 convs with channel-last LayerNorm and SiLU
    class ChLayerNorm(nn.LayerNorm):
        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            x = super().forward(x)
            return x.permute(0, 3, 1, 2)

    enc = nn.Sequential(
        nn.Conv2d(3, 4, 4, stride=2, padding=1, bias=False), ChLayerNorm(4), nn.SiLU(),
        nn.Conv2d(4, 8, 4, stride=2, padding=1, bias=False), ChLayerNorm(8), nn.SiLU(),
        nn.Flatten(),
    ).to(dt)  # fmt: skip
    x = _frames(lib, dt, n=3, seed=28) - 0.5
    e = enc(x)
    rec("e_shape", str(tuple(e.shape)))
    rec("e", e)
    e.pow(2).sum().backward()
    rec.params("g", enc, grads=True, view=lambda n, p: p)
    # a (B, T, C, H, W) batch through flatten/unflatten of the leading dims
    xs = x.unsqueeze(0).expand(2, 3, 3, 16, 16)
    flat = xs.reshape(-1, *xs.shape[2:])
    out = enc(flat).reshape(2, 3, -1)
    rec("bt", out)
    rec("bt_same", lib.allclose(out[0], out[1]))
    rec("repr", repr(enc[1]))
    rec("conv_out", str(nn.functional.conv2d(x, enc[0].weight, stride=2, padding=1).shape))


def p_cem_planner(lib, dt, rec):
    """PlaNet's cross-entropy planner over a fixed linear model."""
    H, N, K, A = 4, 30, 5, 2
    g = lib.Generator().manual_seed(29)
    Wm = lib.randn(3, 3, generator=g, dtype=dt) * 0.3
    Bm = lib.randn(A, 3, generator=g, dtype=dt)
    s0 = lib.randn(3, generator=g, dtype=dt)
    mean = lib.zeros(H, A, dtype=dt)
    std = lib.ones(H, A, dtype=dt)
    for it in range(3):
        acts = mean + std * lib.randn(N, H, A, generator=g, dtype=dt)
        acts = acts.clamp(-1, 1)
        s = s0.expand(N, 3)
        ret = lib.zeros(N, dtype=dt)
        for t in range(H):
            s = lib.tanh(s @ Wm + acts[:, t] @ Bm)
            ret = ret - (s**2).sum(-1)
        _, top = ret.topk(K, largest=True, sorted=False)
        best = acts[top]
        mean = best.mean(0)
        std = best.std(0, unbiased=False)
        rec(f"ret{it}", ret.max())
        rec(f"mean{it}", mean)
        rec(f"std{it}", std)
    rec("first_action", mean[0])


def p_mvn_cmaes(lib, dt, rec):
    D = lib.distributions
    n = 3
    A = lib.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]], dtype=dt)
    mvn = D.MultivariateNormal(lib.zeros(n, dtype=dt), covariance_matrix=A)
    rec("scale_tril", mvn.scale_tril)
    rec("entropy", mvn.entropy())
    x = lib.tensor([[0.1, -0.2, 0.3], [1.0, 1.0, 1.0]], dtype=dt)
    rec("lp", mvn.log_prob(x))
    lib.manual_seed(17)
    rec("sample", mvn.sample((4,)))
    g = lib.Generator().manual_seed(30)
    z = lib.randn(4, n, generator=g, dtype=dt)
    L = lib.linalg.cholesky(A)
    rec("by_chol", z @ L.mT)
    rec("chol_upper", lib.linalg.cholesky(A, upper=True))
    Lx, info = lib.linalg.cholesky_ex(A - 1.0 * lib.eye(n, dtype=dt))
    rec("info", info)
    rec("inv", lib.cholesky_inverse(L))
    rec("eigvalsh", lib.linalg.eigvalsh(A))
    ev, V = lib.linalg.eigh(lib.stack([A, 2 * A]))
    rec("batched_ev", ev)
    rec("recon", V @ lib.diag_embed(ev) @ V.mT)
    rec("sqrtm", (V * ev.sqrt().unsqueeze(-2)) @ V.mT)
    rec("uplo", lib.linalg.eigvalsh(lib.triu(A), UPLO="U"))
    rec("logdet", lib.logdet(A))
    rec("slogdet", lib.linalg.slogdet(A).logabsdet)


def p_sep_cmaes_grad(lib, dt, rec):
    """Evolution strategies with an antithetic Gaussian: the controller of World Models."""
    lib.manual_seed(18)
    nn = lib.nn
    ctrl = nn.Linear(4 + 6, 3).to(dt)
    theta = nn.utils.parameters_to_vector(ctrl.parameters())
    rec("n", theta.numel())
    g = lib.Generator().manual_seed(31)
    obs = lib.randn(8, 10, generator=g, dtype=dt)
    pop = 6
    sigma = 0.1
    for it in range(3):
        eps = lib.randn(pop // 2, theta.numel(), generator=g, dtype=dt)
        eps = lib.cat([eps, -eps])
        fit = []
        for k in range(pop):
            nn.utils.vector_to_parameters(theta + sigma * eps[k], ctrl.parameters())
            with lib.no_grad():
                a = lib.tanh(ctrl(obs))
                fit.append(-(a - 0.5).pow(2).sum())
        fit = lib.stack(fit)
        ranks = lib.empty_like(fit)
        ranks[fit.argsort()] = lib.arange(pop, dtype=dt)
        ranks = ranks / (pop - 1) - 0.5
        grad = (ranks[:, None] * eps).sum(0) / (pop * sigma)
        theta = theta + 0.05 * grad
        rec(f"fit{it}", fit)
        rec(f"ranks{it}", ranks)
    rec("theta", theta)
    nn.utils.vector_to_parameters(theta, ctrl.parameters())
    rec("w", ctrl.weight)
