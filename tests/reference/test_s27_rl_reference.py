"""Session 27 (helper rl): reinforcement-learning programs beyond session 22's REINFORCE/PPO/DQN,
written in the CleanRL / Spinning Up style with small MLPs and synthetic environments in torch,
run under torch and minitorch with the same seeds and compared record by record: SAC (tanh-squashed
Normal by hand and by TransformedDistribution, automatic entropy tuning, twin Q, polyak updates by
mul_/add_, lerp_ and _foreach_lerp_), TD3, DDPG, C51 projection, QR-DQN, double/dueling DQN with
n-step returns, PPO details (GAE, clipped value loss, approx KL, lr annealing, clip_grad_norm_),
masked and multi-discrete Categorical policies, Beta and Independent(Normal) policies, MCTS-lite
and AlphaZero losses, a world model with straight-through categorical latents, CEM planning, CQL,
running normalisers and replay buffers (circular, prioritised), a vmap'd Q ensemble and TRPO's
conjugate gradient, a recurrent conv agent with a checkpoint round trip, RL users' usual mistakes
(stale graphs after an optimiser step, numpy float64 observations), QMIX and RND, gradcheck of
the losses, tabular value/policy iteration. float64 must agree to 1e-10 of each record's scale,
float32 to 1e-4; texts exactly.

Known and left (documented): Beta/Dirichlet/Gamma rsample gradients are exact implicit ones
where torch's are fitted approximations (so no rsample gradient is compared), trigamma (Beta's
entropy gradient) is ~5e-10 off in torch,
NumPy's floating-point RuntimeWarnings show under an "always" filter (logsumexp of an all -inf
row), float32 sqrt can be an ulp off torch's (NoisyNet's factorised noise in float32 cast up)."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import copy
import io
import math

import numpy as np
import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


PROGRAMS = [
    "sac", "sac_transformed", "td3", "ddpg", "c51", "qrdqn", "dueling_nstep", "ppo_details",
    "masked_cat", "multi_discrete", "beta_indep", "mcts_az", "world_model", "cem", "cql",
    "running_norm", "replay", "per", "trpo_ensemble", "recurrent_atari", "mistakes", "qmix_rnd",
    "gradchecks", "tabular", "torch_env",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True))
    assert_records_match(want, got, 1e-10 if dt == "float64" else 1e-4, rename=True)


# --- helpers ---


def _mlp(lib, dt, i, o, h=16, act=None):
    nn = lib.nn
    act = nn.ReLU if act is None else act
    return nn.Sequential(nn.Linear(i, h), act(), nn.Linear(h, h), act(), nn.Linear(h, o)).to(dt)


def _env_step(lib, s, a):
    """A synthetic continuous environment: next state and reward of state s, action a."""
    k = min(s.shape[-1], a.shape[-1])
    ns = (0.9 * s + 0.1 * lib.cat([a, a, a], -1)[..., : s.shape[-1]]).tanh()
    r = -(s[..., :k] - a[..., :k]).pow(2).sum(-1) + 0.1 * s.sum(-1)
    return ns, r


def _polyak(lib, net, targ, rho):
    with lib.no_grad():
        for p, pt in zip(net.parameters(), targ.parameters(), strict=True):
            pt.data.mul_(rho)
            pt.data.add_((1 - rho) * p.data)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_sac(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    Normal = lib.distributions.Normal
    lib.manual_seed(0)
    od, ad, B = 3, 2, 8

    class Actor(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(od, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
            self.mu = nn.Linear(16, ad)
            self.log_std = nn.Linear(16, ad)

        def forward(self, s, deterministic=False):
            h = self.net(s)
            mu, log_std = self.mu(h), self.log_std(h).clamp(-20, 2)
            std = log_std.exp()
            d = Normal(mu, std)
            u = mu if deterministic else d.rsample()
            a = lib.tanh(u)
            logp = d.log_prob(u).sum(-1)
            logp = logp - (2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)
            logp2 = (d.log_prob(u) - lib.log(1 - a.pow(2) + 1e-6)).sum(-1, keepdim=True)
            return a * 2.0, logp, logp2

    actor = Actor().to(dt)
    q1, q2 = _mlp(lib, dt, od + ad, 1), _mlp(lib, dt, od + ad, 1)
    q1_t, q2_t = copy.deepcopy(q1), copy.deepcopy(q2)
    for p in list(q1_t.parameters()) + list(q2_t.parameters()):
        p.requires_grad = False
    q_params = list(q1.parameters()) + list(q2.parameters())
    pi_opt = lib.optim.Adam(actor.parameters(), lr=3e-3)
    q_opt = lib.optim.Adam(q_params, lr=3e-3)
    log_alpha = lib.zeros(1, requires_grad=True, dtype=dt)
    a_opt = lib.optim.Adam([log_alpha], lr=3e-3)
    target_ent = -float(ad)
    gamma, rho = 0.99, 0.995
    S = lib.randn(32, od, dtype=dt)
    A = lib.rand(32, ad, dtype=dt) * 4 - 2
    S2, R = _env_step(lib, S, A)
    D = (lib.rand(32, dtype=dt) < 0.1).to(dt)
    for it in range(4):
        idx = lib.randint(0, 32, (B,))
        s, a, r, s2, d = S[idx], A[idx], R[idx], S2[idx], D[idx]
        alpha = log_alpha.exp().detach()
        with lib.no_grad():
            a2, logp2, _ = actor(s2)
            sa2 = lib.cat([s2, a2], -1)
            qt = lib.min(q1_t(sa2), q2_t(sa2)).squeeze(-1)
            backup = r + gamma * (1 - d) * (qt - alpha * logp2)
        sa = lib.cat([s, a], -1)
        lq = ((q1(sa).squeeze(-1) - backup) ** 2).mean() + F.mse_loss(q2(sa).squeeze(-1), backup)
        q_opt.zero_grad()
        lq.backward()
        q_opt.step()
        for p in q_params:
            p.requires_grad = False
        pi, logp, logp_b = actor(s)
        spi = lib.cat([s, pi], -1)
        qpi = lib.minimum(q1(spi), q2(spi)).squeeze(-1)
        lpi = (alpha * logp - qpi).mean()
        pi_opt.zero_grad()
        lpi.backward()
        pi_opt.step()
        for p in q_params:
            p.requires_grad = True
        la = -(log_alpha * (logp.detach() + target_ent)).mean()
        a_opt.zero_grad()
        la.backward()
        a_opt.step()
        if it % 2 == 0:
            _polyak(lib, q1, q1_t, rho)
            _polyak(lib, q2, q2_t, rho)
        else:
            with lib.no_grad():
                for p, pt in zip(q1.parameters(), q1_t.parameters(), strict=True):
                    pt.lerp_(p, 1 - rho)
                lib._foreach_lerp_(list(q2_t.parameters()), list(q2.parameters()), 1 - rho)
        rec("idx", idx)
        rec("lq", lq)
        rec("lpi", lpi)
        rec("la", la)
        rec("logp", logp)
        rec("logp_b", logp_b)
        rec("alpha", log_alpha.exp())
        rec("gla", log_alpha.grad)
    with lib.no_grad():
        det, _, _ = actor(S[:4], deterministic=True)
    rec("det", det)
    rec.params("pi", actor, grads=True)
    rec.params("q1t", q1_t)
    rec.params("q2t", q2_t)
    rec("q1t.rg", str([p.requires_grad for p in q1_t.parameters()]))


def p_sac_transformed(lib, dt, rec):
    D = lib.distributions
    T = D.transforms
    lib.manual_seed(1)
    mu = (lib.randn(5, 2, dtype=dt) * 0.5).requires_grad_()
    log_std = (lib.randn(5, 2, dtype=dt) * 0.3 - 0.5).requires_grad_()
    base = D.Normal(mu, log_std.exp())
    td = D.TransformedDistribution(base, [T.TanhTransform(cache_size=1)])
    a = td.rsample()
    lp = td.log_prob(a).sum(-1)
    rec("a", a)
    rec("lp", lp)
    rec("bs", str((tuple(td.batch_shape), tuple(td.event_shape))))
    loss = (lp + a.pow(2).sum(-1)).mean()
    gm, gs = lib.autograd.grad(loss, [mu, log_std])
    rec("gm", gm)
    rec("gs", gs)
    # without cache the inverse is atanh of a clipped value
    td0 = D.TransformedDistribution(base, [T.TanhTransform()])
    rec("lp0", td0.log_prob(a.detach()).sum(-1))
    ind = D.Independent(D.TransformedDistribution(base, [T.TanhTransform(cache_size=1)]), 1)
    a2 = ind.rsample((3,))
    rec("ind_lp", ind.log_prob(a2))
    rec("ind_shape", str((tuple(ind.batch_shape), tuple(ind.event_shape), tuple(a2.shape))))
    sc = D.TransformedDistribution(
        base, [T.TanhTransform(cache_size=1), T.AffineTransform(loc=1.0, scale=2.0)]
    )
    a3 = sc.rsample()
    rec("sc_a", a3)
    rec("sc_lp", sc.log_prob(a3))
    rec("mean_sample", td.sample((4,)).mean(0))
    rec.err("entropy", lambda: td.entropy())
    rec("tanh_sign", str(T.TanhTransform().sign))
    rec("tanh_repr", repr(T.TanhTransform(cache_size=1)))


def p_td3(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(2)
    od, ad, B, max_a = 3, 2, 8, 1.0
    actor = nn.Sequential(nn.Linear(od, 16), nn.ReLU(), nn.Linear(16, ad), nn.Tanh()).to(dt)
    q1, q2 = _mlp(lib, dt, od + ad, 1), _mlp(lib, dt, od + ad, 1)
    actor_t, q1_t, q2_t = copy.deepcopy(actor), copy.deepcopy(q1), copy.deepcopy(q2)
    pi_opt = lib.optim.Adam(actor.parameters(), lr=1e-3)
    q_opt = lib.optim.Adam(list(q1.parameters()) + list(q2.parameters()), lr=1e-3)
    S = lib.randn(32, od, dtype=dt)
    A = (lib.randn(32, ad, dtype=dt) * 0.5).clamp(-max_a, max_a)
    S2, R = _env_step(lib, S, A)
    Dn = lib.zeros(32, dtype=dt)
    Dn[::5] = 1.0
    tau, gamma, pn, nc = 0.005, 0.99, 0.2, 0.5
    for it in range(6):
        idx = lib.randint(32, (B,))
        s, a, r, s2, d = S[idx], A[idx], R[idx], S2[idx], Dn[idx]
        with lib.no_grad():
            noise = (lib.randn_like(a) * pn).clamp(-nc, nc)
            a2 = (actor_t(s2) + noise).clamp(-max_a, max_a)
            sa2 = lib.cat([s2, a2], 1)
            tq = lib.min(q1_t(sa2), q2_t(sa2))
            y = r.unsqueeze(1) + gamma * (1 - d.unsqueeze(1)) * tq
        sa = lib.cat([s, a], 1)
        lq = F.mse_loss(q1(sa), y) + F.mse_loss(q2(sa), y)
        q_opt.zero_grad()
        lq.backward()
        q_opt.step()
        rec("lq", lq)
        rec("noise", noise)
        if it % 2 == 1:
            lpi = -q1(lib.cat([s, actor(s)], 1)).mean()
            pi_opt.zero_grad()
            lpi.backward()
            pi_opt.step()
            rec("lpi", lpi)
            with lib.no_grad():
                for net, tn in ((actor, actor_t), (q1, q1_t), (q2, q2_t)):
                    for p, pt in zip(net.parameters(), tn.parameters(), strict=True):
                        pt.data.copy_(tau * p.data + (1 - tau) * pt.data)
    rec.params("at", actor_t)
    rec.params("q2", q2, grads=True)
    rec("rg", str(actor_t[0].weight.requires_grad))


def p_ddpg(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(3)
    od, ad = 3, 1
    actor = nn.Sequential(nn.Linear(od, 16), nn.ReLU(), nn.Linear(16, ad), nn.Tanh()).to(dt)
    critic = _mlp(lib, dt, od + ad, 1)
    actor_t, critic_t = copy.deepcopy(actor), copy.deepcopy(critic)
    pi_opt = lib.optim.Adam(actor.parameters(), lr=1e-3)
    q_opt = lib.optim.Adam(critic.parameters(), lr=1e-3, weight_decay=1e-2)
    # Ornstein-Uhlenbeck exploration noise
    x = lib.zeros(ad, dtype=dt)
    theta, sigma = 0.15, 0.2
    s = lib.randn(od, dtype=dt)
    buf = []
    for _t in range(12):
        x = x + theta * (0 - x) + sigma * lib.randn(ad, dtype=dt)
        with lib.no_grad():
            a = (actor(s) + x).clamp(-1, 1)
        s2, r = _env_step(lib, s, a)
        buf.append((s, a, r, s2))
        s = s2
        rec("a", a)
    S, A, R, S2 = (lib.stack(z) for z in zip(*buf, strict=True))
    for _it in range(3):
        with lib.no_grad():
            y = R.unsqueeze(-1) + 0.99 * critic_t(lib.cat([S2, actor_t(S2)], -1))
        lq = F.mse_loss(critic(lib.cat([S, A], -1)), y)
        q_opt.zero_grad()
        lq.backward()
        gn = nn.utils.clip_grad_norm_(critic.parameters(), 1.0)
        q_opt.step()
        lpi = -critic(lib.cat([S, actor(S)], -1)).mean()
        pi_opt.zero_grad()
        lpi.backward()
        pi_opt.step()
        with lib.no_grad():
            for p, pt in zip(actor.parameters(), actor_t.parameters(), strict=True):
                pt.mul_(0.95).add_(p, alpha=0.05)
            for p, pt in zip(critic.parameters(), critic_t.parameters(), strict=True):
                pt.lerp_(p, 0.05)
        rec("lq", lq)
        rec("gn", gn)
        rec("lpi", lpi)
    rec.params("at", actor_t)
    rec.params("ct", critic_t)


def p_c51(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(4)
    na, N, vmin, vmax, B, gamma = 3, 11, -5.0, 5.0, 6, 0.9
    net = _mlp(lib, dt, 4, na * N)
    tnet = copy.deepcopy(net)
    opt = lib.optim.Adam(net.parameters(), lr=1e-3, eps=0.01 / 32)
    support = lib.linspace(vmin, vmax, N, dtype=dt)
    dz = (vmax - vmin) / (N - 1)
    for it in range(3):
        s, s2 = lib.randn(B, 4, dtype=dt), lib.randn(B, 4, dtype=dt)
        a = lib.randint(0, na, (B,))
        r = lib.randn(B, dtype=dt) * 3
        done = lib.tensor([0, 0, 1, 0, 0, 1], dtype=dt)
        with lib.no_grad():
            pn = F.softmax(tnet(s2).view(B, na, N), -1)
            qn = (pn * support).sum(-1)
            an = qn.argmax(1)
            pa = pn[lib.arange(B), an]
            tz = (r.unsqueeze(1) + gamma * (1 - done.unsqueeze(1)) * support).clamp(vmin, vmax)
            b = (tz - vmin) / dz
            lo, up = b.floor().long(), b.ceil().long()
            lo[(up > 0) & (lo == up)] -= 1
            up[(lo < (N - 1)) & (lo == up)] += 1
            m = lib.zeros(B, N, dtype=dt)
            off = (lib.arange(B) * N).unsqueeze(1).expand(B, N)
            if it % 2 == 0:
                m.view(-1).index_add_(0, (lo + off).view(-1), (pa * (up.to(dt) - b)).view(-1))
                m.view(-1).index_add_(0, (up + off).view(-1), (pa * (b - lo.to(dt))).view(-1))
            else:
                m.scatter_add_(1, lo, pa * (up.to(dt) - b))
                m.scatter_add_(1, up, pa * (b - lo.to(dt)))
        logp = F.log_softmax(net(s).view(B, na, N), -1)
        loss = -(m * logp[lib.arange(B), a]).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("an", an)
        rec("lo", lo)
        rec("up", up)
        rec("m", m)
        rec("msum", m.sum(-1))
        rec("loss", loss)
    rec.params("n", net, grads=True)


def p_qrdqn(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(5)
    na, Nq, B, kappa = 2, 8, 5, 1.0
    net = _mlp(lib, dt, 4, na * Nq)
    opt = lib.optim.Adam(net.parameters(), lr=5e-4, eps=0.01 / 32)
    tau = (lib.arange(Nq, dtype=dt) + 0.5) / Nq
    for _it in range(3):
        s, s2 = lib.randn(B, 4, dtype=dt), lib.randn(B, 4, dtype=dt)
        a = lib.randint(0, na, (B, 1))
        r = lib.randn(B, 1, dtype=dt)
        with lib.no_grad():
            qn = net(s2).view(B, na, Nq)
            an = qn.mean(2).argmax(1)
            tgt = r + 0.99 * qn[lib.arange(B), an]
        q = net(s).view(B, na, Nq).gather(1, a.unsqueeze(-1).expand(B, 1, Nq)).squeeze(1)
        u = tgt.unsqueeze(1) - q.unsqueeze(2)
        hub = lib.where(u.abs() <= kappa, 0.5 * u.pow(2), kappa * (u.abs() - 0.5 * kappa))
        hub2 = F.huber_loss(
            q.unsqueeze(2).expand_as(u),
            tgt.unsqueeze(1).expand_as(u),
            reduction="none",
            delta=kappa,
        )
        w = (tau.view(1, -1, 1) - (u.detach() < 0).float()).abs()
        rec("w.dtype", str(w.dtype))
        loss = (w * hub / kappa).sum(1).mean(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("u", u)
        rec("hub_eq", (hub - hub2).abs().max())
        rec("loss", loss)
    rec.params("n", net, grads=True)


def p_dueling_nstep(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)

    class Duel(nn.Module):
        def __init__(self, na=3):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
            self.v = nn.Linear(16, 1)
            self.adv = nn.Linear(16, na)

        def forward(self, x):
            h = self.body(x)
            adv = self.adv(h)
            return self.v(h) + adv - adv.mean(dim=1, keepdim=True)

    net = Duel().to(dt)
    tnet = Duel().to(dt)
    tnet.load_state_dict(net.state_dict())
    opt = lib.optim.RMSprop(net.parameters(), lr=1e-3, alpha=0.95, eps=0.01)
    n, gamma, T = 3, 0.9, 10
    rews = lib.randn(T, dtype=dt)
    dones = lib.zeros(T, dtype=lib.bool)
    dones[4] = True
    # n-step returns with episode cut
    G = lib.zeros(T - n + 1, dtype=dt)
    alive = lib.ones(T - n + 1, dtype=dt)
    for k in range(n):
        G += alive * (gamma**k) * rews[k : T - n + 1 + k]
        alive = alive * (~dones[k : T - n + 1 + k]).to(dt)
    rec("G", G)
    rec("alive", alive)
    disc = gamma ** lib.arange(n, dtype=dt)
    G2 = rews.unfold(0, n, 1) @ disc
    rec("G2", G2)
    obs = lib.randn(T + 1, 4, dtype=dt)
    M = T - n + 1
    acts = lib.randint(0, 3, (M,))
    for _it in range(3):
        with lib.no_grad():
            an = net(obs[n : n + M]).argmax(1, keepdim=True)
            qn = tnet(obs[n : n + M]).gather(1, an).squeeze(1)
            y = G + (gamma**n) * alive * qn
        q = net(obs[:M]).gather(1, acts.unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("an", an)
        rec("loss", loss)
        rec("qm", net(obs[:M]).mean(1) - net.v(net.body(obs[:M])).squeeze(1))
    rec.params("n", net, grads=True)


def p_ppo_details(lib, dt, rec):
    nn = lib.nn
    Categorical = lib.distributions.Categorical
    lib.manual_seed(7)
    T, E, od, na = 8, 3, 4, 3
    agent_pi = _mlp(lib, dt, od, na, act=nn.Tanh)
    agent_v = _mlp(lib, dt, od, 1, act=nn.Tanh)
    params = list(agent_pi.parameters()) + list(agent_v.parameters())
    opt = lib.optim.Adam(params, lr=2.5e-3, eps=1e-5)
    gamma, lam, clip, n_updates = 0.99, 0.95, 0.2, 3
    obs = lib.zeros((T, E, od), dtype=dt)
    actions = lib.zeros((T, E), dtype=lib.long)
    logprobs = lib.zeros((T, E), dtype=dt)
    rewards = lib.zeros((T, E), dtype=dt)
    dones = lib.zeros((T, E), dtype=dt)
    values = lib.zeros((T, E), dtype=dt)
    next_obs = lib.randn(E, od, dtype=dt)
    next_done = lib.zeros(E, dtype=dt)
    for update in range(1, n_updates + 1):
        frac = 1.0 - (update - 1.0) / n_updates
        opt.param_groups[0]["lr"] = frac * 2.5e-3
        for t in range(T):
            obs[t] = next_obs
            dones[t] = next_done
            with lib.no_grad():
                logits = agent_pi(next_obs)
                d = Categorical(logits=logits)
                act = d.sample()
                values[t] = agent_v(next_obs).flatten()
            actions[t] = act
            logprobs[t] = d.log_prob(act)
            rewards[t] = (act == 1).to(dt) - 0.1 * next_obs[:, 0]
            next_obs = (next_obs.roll(1, 1) + 0.2 * act.unsqueeze(1).to(dt)).tanh()
            next_done = ((t + lib.arange(E)) % 5 == 4).to(dt)
        with lib.no_grad():
            next_value = agent_v(next_obs).reshape(1, -1)
            advantages = lib.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(T)):
                if t == T - 1:
                    nnt = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nnt = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nnt - values[t]
                advantages[t] = lastgaelam = delta + gamma * lam * nnt * lastgaelam
            returns = advantages + values
        rec("adv", advantages)
        rec("lr", lib.tensor(opt.param_groups[0]["lr"]))
        b_obs, b_lp = obs.reshape((-1, od)), logprobs.reshape(-1)
        b_act, b_adv = actions.reshape(-1), advantages.reshape(-1)
        b_ret, b_val = returns.reshape(-1), values.reshape(-1)
        inds = lib.randperm(T * E)
        for mb in inds.split(12):
            d = Categorical(logits=agent_pi(b_obs[mb]))
            newlp = d.log_prob(b_act[mb])
            ent = d.entropy()
            newv = agent_v(b_obs[mb]).view(-1)
            logratio = newlp - b_lp[mb]
            ratio = logratio.exp()
            with lib.no_grad():
                old_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfrac = ((ratio - 1.0).abs() > clip).float().mean().item()
            madv = b_adv[mb]
            madv = (madv - madv.mean()) / (madv.std() + 1e-8)
            pg1 = -madv * ratio
            pg2 = -madv * lib.clamp(ratio, 1 - clip, 1 + clip)
            pg_loss = lib.max(pg1, pg2).mean()
            v_unc = (newv - b_ret[mb]) ** 2
            v_clip = b_val[mb] + lib.clamp(newv - b_val[mb], -clip, clip)
            v_loss = 0.5 * lib.max(v_unc, (v_clip - b_ret[mb]) ** 2).mean()
            loss = pg_loss - 0.01 * ent.mean() + v_loss * 0.5
            opt.zero_grad()
            loss.backward()
            gn = nn.utils.clip_grad_norm_(params, 0.5)
            opt.step()
            rec("gn", gn)
            rec("loss", loss)
            rec("kl", lib.stack([old_kl, approx_kl]))
            rec("clipfrac", clipfrac)
        y_pred, y_true = b_val.numpy(), b_ret.numpy()
        var_y = y_true.var()
        rec("ev", 1 - (y_true - y_pred).var() / var_y)
    gn_inf = nn.utils.clip_grad_norm_(params, 0.1, norm_type="inf")
    rec("gn_inf", gn_inf)
    rec("g_after", params[0].grad)
    rec.params("pi", agent_pi)
    rec.params("v", agent_v)


def p_masked_cat(lib, dt, rec):
    Categorical = lib.distributions.Categorical
    lib.manual_seed(8)
    logits = lib.randn(4, 5, dtype=dt, requires_grad=True)
    mask = lib.tensor(
        [[1, 1, 0, 1, 0], [0, 0, 0, 0, 1], [1, 1, 1, 1, 1], [0, 1, 1, 0, 0]], dtype=lib.bool
    )
    for name, fill in (("m1e8", -1e8), ("finfo", lib.finfo(dt).min), ("ninf", float("-inf"))):
        ml = lib.where(mask, logits, lib.tensor(fill, dtype=dt))
        d = Categorical(logits=ml)
        rec(name + ".logits", d.logits)
        rec(name + ".probs", d.probs)
        ent = d.entropy()
        rec(name + ".ent", ent)
        a = d.sample()
        rec(name + ".a", a)
        lp = d.log_prob(a)
        rec(name + ".lp", lp)
        g = lib.autograd.grad((lp + ent).sum(), logits)[0]
        rec(name + ".g", g)
    # CleanRL's CategoricalMasked: entropy with masked terms zeroed
    ml = logits.masked_fill(~mask, -1e8)
    d = Categorical(logits=ml)
    p_log_p = d.logits * d.probs
    p_log_p = lib.where(mask, p_log_p, lib.tensor(0.0, dtype=dt))
    rec("cm_ent", -p_log_p.sum(-1))
    rec("mf.dtype", str(logits.masked_fill(~mask, float("-inf")).dtype))
    d2 = Categorical(logits=logits.masked_fill(~mask, float("-inf")))
    rec("ninf_ent", d2.entropy())
    rec("argmax", d2.probs.argmax(-1))
    rec("mode", d2.mode)
    rec.err("lp_invalid", lambda: d2.log_prob(lib.tensor([5, 0, 0, 0])))
    rec.err("probs_neg", lambda: Categorical(probs=lib.tensor([0.5, -0.1, 0.6], dtype=dt)))
    rec.err("logits_nan", lambda: Categorical(logits=lib.tensor([0.0, float("nan")], dtype=dt)))
    rec("enum", d.enumerate_support())
    rec("sample_shape", str(tuple(d.sample((2, 3)).shape)))
    rec("probs_norm", Categorical(probs=lib.tensor([[2.0, 6.0], [1.0, 1.0]], dtype=dt)).probs)


def p_multi_discrete(lib, dt, rec):
    Categorical = lib.distributions.Categorical
    lib.manual_seed(9)
    nvec = [3, 2, 4]
    net = _mlp(lib, dt, 5, sum(nvec))
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    x = lib.randn(6, 5, dtype=dt)
    for _it in range(3):
        logits = net(x)
        split = lib.split(logits, nvec, dim=1)
        cats = [Categorical(logits=lg) for lg in split]
        acts = lib.stack([c.sample() for c in cats])
        lp = lib.stack([c.log_prob(a) for a, c in zip(acts, cats, strict=True)])
        ent = lib.stack([c.entropy() for c in cats])
        adv = lib.randn(6, dtype=dt)
        loss = -(lp.sum(0) * adv).mean() - 0.01 * ent.sum(0).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("acts", acts.T)
        rec("lp", lp)
        rec("ent", ent)
        rec("loss", loss)
        sizes = [t.shape[1] for t in logits.tensor_split([3, 5], dim=1)]
        rec("tsplit", lib.tensor(sizes))
    rec.params("n", net, grads=True)


def p_beta_indep(lib, dt, rec):
    F = lib.nn.functional
    D = lib.distributions
    lib.manual_seed(10)
    net = _mlp(lib, dt, 3, 4)
    opt = lib.optim.Adam(net.parameters(), lr=3e-3)
    low, high = lib.tensor([-1.0, 0.0], dtype=dt), lib.tensor([1.0, 2.0], dtype=dt)
    x = lib.randn(5, 3, dtype=dt)
    for _it in range(3):
        out = net(x)
        alpha, beta = (F.softplus(out) + 1.0).chunk(2, dim=-1)
        d = D.Beta(alpha, beta)
        u = d.sample()
        a = low + (high - low) * u
        lp = d.log_prob(u).sum(-1)
        ent = d.entropy().sum(-1)
        rec("a", a)
        rec("lp", lp)
        rec("ent", ent)
        loss = -(lp * (a.sum(-1) - 0.5)).mean() - 0.01 * ent.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("beta.mean", d.mean)
    rec("beta.var", d.variance)
    rec("beta.mode", d.mode)
    rec("beta.rsample.shape", str(tuple(d.rsample((2,)).shape)))
    rec.err("beta_oob", lambda: d.log_prob(lib.full((5, 2), 1.5, dtype=dt)))
    rec.params("n", net, grads=True)
    mu = lib.randn(4, 3, dtype=dt, requires_grad=True)
    log_std = lib.zeros(3, dtype=dt, requires_grad=True)
    ind = D.Independent(D.Normal(mu, log_std.exp()), 1)
    rec("ind.shapes", str((tuple(ind.batch_shape), tuple(ind.event_shape))))
    a = ind.sample()
    lp = ind.log_prob(a)
    ent = ind.entropy()
    rec("ind.lp", lp)
    rec("ind.ent", ent)
    g = lib.autograd.grad(lp.sum() + ent.sum(), [mu, log_std])
    rec("ind.gmu", g[0])
    rec("ind.gls", g[1])
    base = D.Normal(mu.detach(), log_std.exp().detach())
    other = D.Independent(D.Normal(lib.zeros(4, 3, dtype=dt), lib.ones(4, 3, dtype=dt)), 1)
    rec("kl_ind", D.kl_divergence(D.Independent(base, 1), other))
    rec("ind2.shapes", str(tuple(D.Independent(base, 2).log_prob(a).shape)))
    rec.err("ind_too_many", lambda: D.Independent(base, 3))
    rec("ind.repr", repr(D.Independent(base, 1)))
    mvn = D.MultivariateNormal(mu.detach(), scale_tril=lib.diag_embed(log_std.exp().detach()))
    rec("mvn_lp", mvn.log_prob(a))


def p_mcts_az(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    na, c_puct = 4, 1.5
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, na + 1)).to(dt)
    root = lib.randn(6, dtype=dt)
    with lib.no_grad():
        out = net(root)
        prior = F.softmax(out[:na], -1)
    noise = lib.distributions.Dirichlet(lib.full((na,), 0.3, dtype=dt)).sample()
    prior = 0.75 * prior + 0.25 * noise
    N = lib.zeros(na, dtype=dt)
    W = lib.zeros(na, dtype=dt)
    for _sim in range(12):
        Q = lib.where(N > 0, W / N.clamp(min=1), lib.zeros_like(W))
        U = c_puct * prior * math.sqrt(float(N.sum()) + 1) / (1 + N)
        score = Q + U
        a = int(score.argmax())
        child = (root + 0.1 * a).roll(a)
        with lib.no_grad():
            v = net(child)[na].tanh()
        N[a] += 1
        W[a] += v
        rec("a", a)
        rec("score", score)
    ties = lib.tensor([1.0, 3.0, 3.0, 2.0], dtype=dt)
    rec("tie_argmax", ties.argmax())
    rec("tie_max", lib.max(ties, 0).indices)
    rec("tie_topk", ties.topk(2).indices)
    rec("tie_sort", ties.sort(descending=True, stable=True).indices)
    temp = 0.5
    pi = N ** (1 / temp)
    pi = pi / pi.sum()
    rec("pi", pi)
    rec("visit_sample", lib.multinomial(pi, 5, replacement=True))
    # AlphaZero loss with soft targets on a batch
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    X = lib.randn(8, 6, dtype=dt)
    P = F.softmax(lib.randn(8, na, dtype=dt), -1)
    Z = lib.randint(0, 3, (8,)).to(dt) - 1
    for _it in range(3):
        out = net(X)
        logp, v = F.log_softmax(out[:, :na], -1), out[:, na].tanh()
        lpol = -(P * logp).sum(-1).mean()
        lpol2 = F.cross_entropy(out[:, :na], P)
        lval = F.mse_loss(v, Z)
        loss = lpol + lval
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("lpol", lpol)
        rec("lpol2", lpol2)
        rec("lval", lval)
    rec("ce_ls", F.cross_entropy(out[:, :na], P, label_smoothing=0.1))
    rec("kl", F.kl_div(logp, P, reduction="batchmean"))
    rec.params("n", net, grads=True)


def p_world_model(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    D = lib.distributions
    lib.manual_seed(12)
    B, T, od, ad, H, S, K = 3, 4, 5, 2, 8, 3, 4

    class WM(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRUCell(S * K + ad, H)
            self.prior = nn.Linear(H, S * K)
            self.post = nn.Linear(H + od, S * K)
            self.dec = nn.Linear(H + S * K, od)
            self.rew = nn.Linear(H + S * K, 1)

    wm = WM().to(dt)
    actor = nn.Sequential(nn.Linear(H + S * K, 16), nn.ELU(), nn.Linear(16, ad), nn.Tanh()).to(dt)
    opt = lib.optim.Adam(wm.parameters(), lr=1e-3)
    a_opt = lib.optim.Adam(actor.parameters(), lr=1e-3)
    obs = lib.randn(T, B, od, dtype=dt)
    act = lib.rand(T, B, ad, dtype=dt) * 2 - 1
    rew = lib.randn(T, B, dtype=dt)
    h = lib.zeros(B, H, dtype=dt)
    z = lib.zeros(B, S * K, dtype=dt)
    kl_total, rec_total, feats = 0, 0, []
    for t in range(T):
        h = wm.rnn(lib.cat([z, act[t]], -1), h)
        pl = wm.prior(h).view(B, S, K)
        ql = wm.post(lib.cat([h, obs[t]], -1)).view(B, S, K)
        post = D.OneHotCategoricalStraightThrough(logits=ql)
        zs = post.rsample()
        z = zs.view(B, S * K)
        rec("z", z)
        prior_d = D.Independent(D.OneHotCategoricalStraightThrough(logits=pl), 1)
        post_d = D.Independent(post, 1)
        sg_post = D.Independent(D.OneHotCategoricalStraightThrough(logits=ql.detach()), 1)
        sg_prior = D.Independent(D.OneHotCategoricalStraightThrough(logits=pl.detach()), 1)
        kl = 0.8 * D.kl_divergence(sg_post, prior_d) + 0.2 * D.kl_divergence(post_d, sg_prior)
        kl_total = kl_total + lib.clamp(kl, min=1.0).mean()
        f = lib.cat([h, z], -1)
        feats.append(f)
        rec_total = (
            rec_total + F.mse_loss(wm.dec(f), obs[t]) + F.mse_loss(wm.rew(f).squeeze(-1), rew[t])
        )
        rec("kl", kl)
    loss = rec_total + kl_total
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(wm.parameters(), 100.0)
    opt.step()
    rec("loss", loss)
    rec("gn", gn)
    rec.params("wm", wm, grads=True)
    # imagination rollout from detached start states
    for p in wm.parameters():
        p.requires_grad_(False)
    h = feats[-1][:, :H].detach()
    z = feats[-1][:, H:].detach()
    ret = 0
    for k in range(3):
        f = lib.cat([h, z], -1)
        a = actor(f)
        h = wm.rnn(lib.cat([z, a], -1), h)
        z = D.OneHotCategoricalStraightThrough(logits=wm.prior(h).view(B, S, K)).rsample()
        z = z.flatten(1)
        ret = ret + (0.99**k) * wm.rew(lib.cat([h, z], -1)).squeeze(-1)
    a_loss = -ret.mean()
    a_opt.zero_grad()
    a_loss.backward()
    a_opt.step()
    rec("a_loss", a_loss)
    rec.params("actor", actor, grads=True)
    rec("wm_grad_none", str(all(p.grad is None or True for p in wm.parameters())))
    oh = D.OneHotCategorical(logits=lib.zeros(2, 3, dtype=dt))
    rec("oh_ent", oh.entropy())
    rec("oh_sample", oh.sample((2,)))
    rec("oh_shapes", str((tuple(oh.batch_shape), tuple(oh.event_shape))))


def p_cem(lib, dt, rec):
    lib.manual_seed(13)
    H, ad, pop, n_elite = 5, 2, 20, 4
    s0 = lib.randn(3, dtype=dt)
    mean = lib.zeros(H, ad, dtype=dt)
    std = lib.ones(H, ad, dtype=dt)
    for _it in range(4):
        acts = (mean + std * lib.randn(pop, H, ad, dtype=dt)).clamp(-1, 1)
        s = s0.expand(pop, 3)
        ret = lib.zeros(pop, dtype=dt)
        for t in range(H):
            s, r = _env_step(lib, s, acts[:, t])
            ret += r
        vals, elite_idx = ret.topk(n_elite)
        elites = acts[elite_idx]
        mean = 0.1 * mean + 0.9 * elites.mean(0)
        std = 0.1 * std + 0.9 * elites.std(0, unbiased=False)
        rec("vals", vals)
        rec("idx", elite_idx)
        rec("mean", mean)
        rec("std", std)
    rec("sorted", lib.sort(ret, descending=True).indices[:n_elite])
    rec("kth", lib.kthvalue(ret, 3))
    rec("argsort", lib.argsort(-ret)[:3])


def p_cql(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(14)
    od, ad, B, Ns = 3, 2, 6, 5
    q = _mlp(lib, dt, od + ad, 1)
    pi = nn.Sequential(nn.Linear(od, 16), nn.ReLU(), nn.Linear(16, ad), nn.Tanh()).to(dt)
    q_opt = lib.optim.Adam(q.parameters(), lr=1e-3)
    pi_opt = lib.optim.Adam(pi.parameters(), lr=1e-3)
    S = lib.randn(B, od, dtype=dt)
    A = lib.rand(B, ad, dtype=dt) * 2 - 1
    S2, R = _env_step(lib, S, A)
    for _it in range(3):
        rand_a = lib.empty(B, Ns, ad, dtype=dt).uniform_(-1, 1)
        s_rep = S.unsqueeze(1).repeat(1, Ns, 1)
        with lib.no_grad():
            pi_a = pi(s_rep) + 0.1 * lib.randn(B, Ns, ad, dtype=dt)
        cat_a = lib.cat([rand_a, pi_a], 1)
        cat_s = lib.cat([s_rep, s_rep], 1)
        q_rand = q(lib.cat([cat_s, cat_a], -1)).squeeze(-1)
        q_rand = q_rand - math.log(0.5**ad)
        lse = lib.logsumexp(q_rand, dim=1)
        q_data = q(lib.cat([S, A], -1)).squeeze(-1)
        with lib.no_grad():
            y = R + 0.9 * q(lib.cat([S2, pi(S2)], -1)).squeeze(-1)
        cql = (lse - q_data).mean()
        loss = F.mse_loss(q_data, y) + 2.0 * cql
        q_opt.zero_grad()
        loss.backward()
        q_opt.step()
        # TD3+BC actor: normalised Q plus behaviour cloning
        pa = pi(S)
        qv = q(lib.cat([S, pa], -1))
        lmbda = 2.5 / qv.abs().mean().detach()
        a_loss = -lmbda * qv.mean() + F.mse_loss(pa, A)
        pi_opt.zero_grad()
        a_loss.backward()
        pi_opt.step()
        rec("rand_a", rand_a)
        rec("lse", lse)
        rec("cql", cql)
        rec("loss", loss)
        rec("a_loss", a_loss)
    rec(
        "lse_inf",
        lib.logsumexp(
            lib.tensor([[float("-inf"), float("-inf")], [1.0, float("inf")]], dtype=dt), 1
        ),
    )
    rec("lse_empty", lib.logsumexp(lib.zeros(2, 0, dtype=dt), 1))
    rec.params("q", q, grads=True)
    rec.params("pi", pi, grads=True)


def p_running_norm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(15)

    class RunningMeanStd(nn.Module):
        def __init__(self, shape, eps=1e-4):
            super().__init__()
            self.register_buffer("mean", lib.zeros(shape, dtype=dt))
            self.register_buffer("var", lib.ones(shape, dtype=dt))
            self.register_buffer("count", lib.tensor(eps, dtype=dt))

        @lib.no_grad()
        def update(self, x):
            bm, bv, bc = x.mean(0), x.var(0, unbiased=False), x.shape[0]
            delta = bm - self.mean
            tot = self.count + bc
            new_mean = self.mean + delta * bc / tot
            m2 = self.var * self.count + bv * bc + delta.pow(2) * self.count * bc / tot
            self.mean.copy_(new_mean)
            self.var.copy_(m2 / tot)
            self.count.fill_(tot)

        def forward(self, x, clip=5.0):
            return ((x - self.mean) / lib.sqrt(self.var + 1e-8)).clamp(-clip, clip)

    rms = RunningMeanStd((3,))
    for _i in range(4):
        x = lib.randn(7, 3, dtype=dt) * 3 + 1
        rms.update(x)
        rec("norm", rms(x))
        rec("mean", rms.mean)
        rec("var", rms.var)
        rec("count", rms.count)
    rec("sd_keys", str(list(rms.state_dict().keys())))
    rec("buf_dtypes", str([str(b.dtype) for b in rms.buffers()]))
    # Welford one sample at a time
    n, mean, m2 = 0, lib.zeros(3, dtype=dt), lib.zeros(3, dtype=dt)
    xs = lib.randn(10, 3, dtype=dt)
    for x in xs:
        n += 1
        d = x - mean
        mean += d / n
        m2 += d * (x - mean)
    rec("w_mean", mean)
    rec("w_var", m2 / (n - 1))
    rec("ref_var", xs.var(0))
    rec("var_mean", lib.var_mean(xs, 0, correction=0))
    rec("std_mean", lib.std_mean(xs, dim=0))
    # reward scaling by the std of a discounted return
    ret_rms = RunningMeanStd(())
    rets = lib.zeros(4, dtype=dt)
    for _t in range(5):
        r = lib.randn(4, dtype=dt)
        done = lib.rand(4, dtype=dt) < 0.3
        rets = rets * 0.99 + r
        ret_rms.update(rets)
        rets[done] = 0
        rec("scaled_r", r / lib.sqrt(ret_rms.var + 1e-8))
    rec("ret_var.shape", str(tuple(ret_rms.var.shape)))
    rec("obs_clip", lib.clip(lib.tensor([-9.0, 0.3, 12.0], dtype=dt), -10, 10))
    rec("nan_to_num", lib.nan_to_num(lib.tensor([float("nan"), float("inf"), -1.0], dtype=dt)))


def p_replay(lib, dt, rec):
    lib.manual_seed(16)
    cap, od = 10, 3

    class Buffer:
        def __init__(self):
            self.obs = lib.zeros((cap, od), dtype=dt)
            self.act = lib.zeros(cap, dtype=lib.int64)
            self.rew = lib.zeros(cap, dtype=dt)
            self.done = lib.zeros(cap, dtype=lib.bool)
            self.ptr, self.size = 0, 0

        def add(self, o, a, r, d):
            self.obs[self.ptr] = o
            self.act[self.ptr] = a
            self.rew[self.ptr] = r
            self.done[self.ptr] = d
            self.ptr = (self.ptr + 1) % cap
            self.size = min(self.size + 1, cap)

        def add_batch(self, o, a, r, d):
            n = o.shape[0]
            idx = (self.ptr + lib.arange(n)) % cap
            self.obs[idx] = o
            self.act.index_copy_(0, idx, a)
            self.rew.index_put_((idx,), r)
            self.done[idx] = d
            self.ptr = (self.ptr + n) % cap
            self.size = min(self.size + n, cap)

        def sample(self, b):
            i = lib.randint(0, self.size, size=(b,))
            return i, self.obs[i], self.act[i], self.rew[i], self.done[i]

    buf = Buffer()
    for t in range(7):
        buf.add(lib.randn(od, dtype=dt), t % 3, float(t) * 0.5, t % 4 == 3)
    buf.add_batch(
        lib.randn(6, od, dtype=dt),
        lib.tensor([5, 4, 3, 2, 1, 0]),
        lib.linspace(0, 1, 6, dtype=dt),
        lib.tensor([True, False] * 3),
    )
    rec("ptr", buf.ptr)
    rec("obs", buf.obs)
    rec("act", buf.act)
    rec("rew", buf.rew)
    rec("done", buf.done)
    for _k in range(3):
        i, o, a, r, d = buf.sample(4)
        rec("i", i)
        rec("o", o)
        rec("a", a)
        rec("r", r)
        rec("d", d)
    rec("rem", lib.remainder(lib.tensor([-3, 7, 12]), cap))
    rec("fmod", lib.fmod(lib.tensor([-3, 7, 12]), cap))
    rec("rand_perm", lib.randperm(buf.size)[:5])
    g = lib.Generator().manual_seed(3)
    rec("gen_randint", lib.randint(0, 10, (5,), generator=g))
    rec("randint_dtype", str(lib.randint(0, 10, (2,), dtype=lib.int32).dtype))
    rec.err("randint_empty", lambda: lib.randint(0, 0, (2,)))
    # frame stacking with roll and in-place shifts
    stack = lib.zeros(4, od, dtype=dt)
    for _t in range(3):
        stack = stack.roll(-1, 0)
        stack[-1] = lib.randn(od, dtype=dt)
    rec("stack", stack)
    st2 = lib.zeros(4, od, dtype=dt)
    st2[:-1] = st2[1:].clone()
    rec("st2", st2)


def p_per(lib, dt, rec):
    lib.manual_seed(17)
    cap, alpha, beta, eps = 12, 0.6, 0.4, 1e-6
    prios = lib.rand(cap, dtype=dt) + 0.1
    prios[3] = 0.0
    for it in range(3):
        p = prios.pow(alpha)
        probs = p / p.sum()
        idx = lib.multinomial(probs, 5, replacement=True)
        idx_nr = lib.multinomial(probs, 5, replacement=False)
        cdf = lib.cumsum(probs, 0)
        u = lib.rand(5, dtype=dt) * cdf[-1]
        idx2 = lib.searchsorted(cdf, u).clamp(max=cap - 1)
        idx3 = lib.searchsorted(cdf, u, right=True)
        w = (cap * probs[idx]).pow(-beta)
        w = w / w.max()
        td = lib.randn(5, dtype=dt)
        prios[idx] = td.abs() + eps
        rec("probs", probs)
        rec("idx", idx)
        rec("idx_nr", idx_nr)
        rec("idx2", idx2)
        rec("idx3", idx3)
        rec("w", w)
        rec("prios", prios)
        beta = min(1.0, beta + 0.2 * (it + 1))
    # segment sampling as in the sum-tree implementations
    seg = cdf[-1] / 5
    us = (lib.arange(5, dtype=dt) + lib.rand(5, dtype=dt)) * seg
    rec("seg_idx", lib.searchsorted(cdf, us))
    rec(
        "ss_sorter",
        lib.searchsorted(
            lib.tensor([3.0, 1.0, 2.0], dtype=dt),
            lib.tensor([1.5, 2.5], dtype=dt),
            sorter=lib.tensor([1, 2, 0]),
        ),
    )
    rec("ss_int32", str(lib.searchsorted(cdf, us, out_int32=True).dtype))
    rec("ss_side", lib.searchsorted(cdf, cdf[:3], side="right"))
    rec.err("mn_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("mn_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("mn_toomany", lambda: lib.multinomial(lib.tensor([0.5, 0.0, 0.5], dtype=dt), 3))
    rec("mn_2d", lib.multinomial(lib.rand(3, 4, dtype=dt), 2))
    rec("mn_dtype", str(lib.multinomial(probs, 2).dtype))
    rec.err("ss_unsorted_dim", lambda: lib.searchsorted(lib.rand(2, 3), lib.rand(3, 2)))


def p_trpo_ensemble(lib, dt, rec):
    nn, D = lib.nn, lib.distributions
    lib.manual_seed(18)
    # an ensemble of Q networks (REDQ style) evaluated by vmap over stacked parameters
    nets = [nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1)).to(dt) for _ in range(4)]
    params, bufs = lib.func.stack_module_state(nets)
    base = copy.deepcopy(nets[0])

    def f(p, b, x):
        return lib.func.functional_call(base, (p, b), (x,))

    x = lib.randn(5, 3, dtype=dt)
    qs = lib.vmap(f, in_dims=(0, 0, None))(params, bufs, x)
    rec("qs", qs)
    rec("qs_min", qs.min(0).values)
    idx = lib.randperm(4)[:2]
    rec("redq_min", qs[idx].min(0).values)
    g = lib.autograd.grad(qs.pow(2).mean(), list(params.values()))
    for i, gg in enumerate(g):
        rec(f"g{i}", gg)
    rec("keys", str(list(params.keys())))
    # TRPO: Fisher-vector products by double backward, conjugate gradient, line search
    pol = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).to(dt)
    s = lib.randn(6, 3, dtype=dt)
    with lib.no_grad():
        old = D.Categorical(logits=pol(s))
    a = old.sample()
    adv = lib.randn(6, dtype=dt)

    def surr():
        d = D.Categorical(logits=pol(s))
        return (lib.exp(d.log_prob(a) - old.log_prob(a)) * adv).mean()

    gl = lib.autograd.grad(surr(), pol.parameters())
    gflat = lib.cat([gg.view(-1) for gg in gl])

    def fvp(v):
        kl = D.kl_divergence(old, D.Categorical(logits=pol(s))).mean()
        gk = lib.autograd.grad(kl, pol.parameters(), create_graph=True)
        fk = lib.cat([gg.view(-1) for gg in gk])
        hv = lib.autograd.grad((fk * v).sum(), pol.parameters())
        return lib.cat([gg.contiguous().view(-1) for gg in hv]) + 0.1 * v

    xv = lib.zeros_like(gflat)
    r, p = gflat.clone(), gflat.clone()
    rr = r @ r
    for _ in range(5):
        Ap = fvp(p)
        alpha = rr / (p @ Ap)
        xv += alpha * p
        r -= alpha * Ap
        nrr = r @ r
        p = r + nrr / rr * p
        rr = nrr
    rec("cg_x", xv)
    step = lib.sqrt(2 * 0.01 / (xv @ fvp(xv))) * xv
    old_params = nn.utils.parameters_to_vector(pol.parameters())
    for k in range(4):
        nn.utils.vector_to_parameters(old_params + (0.5**k) * step, pol.parameters())
        with lib.no_grad():
            kl = D.kl_divergence(old, D.Categorical(logits=pol(s))).mean()
            rec(f"ls{k}", lib.stack([surr(), kl]))
    rec("nparams", sum(p.numel() for p in pol.parameters()))


def p_recurrent_atari(lib, dt, rec):
    nn, D = lib.nn, lib.distributions
    old_dt = lib.get_default_dtype()
    lib.set_default_dtype(dt)  # orthogonal_ runs in dt (a float32 QR cast up differs)
    try:
        _recurrent_atari(lib, dt, rec, nn, D)
    finally:
        lib.set_default_dtype(old_dt)


def _recurrent_atari(lib, dt, rec, nn, D):
    lib.manual_seed(19)

    class Agent(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(
                nn.Conv2d(2, 8, 8, stride=4), nn.ReLU(), nn.Conv2d(8, 8, 4, stride=2), nn.ReLU(),
                nn.Conv2d(8, 8, 3, stride=1), nn.ReLU(), nn.Flatten(), nn.Linear(8, 16), nn.ReLU(),
            )  # fmt: skip
            self.lstm = nn.LSTM(16, 8)
            for name, p in self.lstm.named_parameters():
                if "bias" in name:
                    nn.init.constant_(p, 0)
                elif "weight" in name:
                    nn.init.orthogonal_(p, 1.0)
            self.actor = nn.Linear(8, 3)
            self.critic = nn.Linear(8, 1)

        def states(self, x, st, done):
            h = self.net(x / 255.0)
            B = st[0].shape[1]
            h = h.reshape((-1, B, self.lstm.input_size))
            done = done.reshape((-1, B))
            out = []
            for hh, d in zip(h, done, strict=True):
                keep = (1.0 - d).view(1, -1, 1)
                hh, st = self.lstm(hh.unsqueeze(0), (keep * st[0], keep * st[1]))
                out += [hh]
            return lib.flatten(lib.cat(out), 0, 1), st

    ag = Agent()
    opt = lib.optim.Adam(ag.parameters(), lr=1e-3, eps=1e-5)
    T, B = 4, 2
    frames = lib.randint(0, 256, (T * B, 2, 36, 36), dtype=lib.uint8)
    rec("div.dtype", str((frames / 255.0).dtype))
    done = lib.tensor([0, 0, 0, 1, 1, 0, 0, 0], dtype=dt)
    st = (lib.zeros(1, B, 8), lib.zeros(1, B, 8))
    for _it in range(2):
        hid, st2 = ag.states(frames.to(dt), st, done)
        d = D.Categorical(logits=ag.actor(hid))
        a = d.sample()
        v = ag.critic(hid)
        pg = -(d.log_prob(a) * v.detach().squeeze(-1)).mean()
        loss = pg + v.pow(2).mean() - 0.01 * d.entropy().mean()
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(ag.parameters(), 0.5)
        opt.step()
        rec("a", a)
        rec("loss", loss)
        rec("gn", gn)
        rec("h", st2[0])
    rec.params("ag", ag, grads=True)
    buf = io.BytesIO()
    lib.save({"model": ag.state_dict(), "opt": opt.state_dict(), "step": 3}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    ag2 = Agent()
    ag2.load_state_dict(ck["model"])
    opt2 = lib.optim.Adam(ag2.parameters(), lr=1e-3, eps=1e-5)
    opt2.load_state_dict(ck["opt"])
    rec("opt_state_keys", str(sorted(ck["opt"]["state"][0].keys())))
    rec("opt_step", ck["opt"]["state"][0]["step"])
    rec("pg", str({k: v for k, v in ck["opt"]["param_groups"][0].items() if k != "params"}))
    rec("same", ag2.actor(hid.detach()) - ag.actor(hid))


def p_mistakes(lib, dt, rec):
    nn, F, D = lib.nn, lib.nn.functional, lib.distributions
    lib.manual_seed(20)
    actor = nn.Linear(3, 2).to(dt)
    critic = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 1)).to(dt)
    c_opt = lib.optim.SGD(critic.parameters(), lr=0.1)
    s = lib.randn(4, 3, dtype=dt)
    q = critic(lib.cat([s, actor(s)], 1))
    a_loss = -q.mean()
    c_loss = (q - 1).pow(2).mean()
    c_opt.zero_grad()
    c_loss.backward(retain_graph=True)
    c_opt.step()  # the actor's loss is stale now: its backward must refuse
    rec.err("inplace_version", lambda: a_loss.backward())
    v_loss = actor(s).pow(2).sum()
    v_loss.backward()
    rec.err("second_time", lambda: v_loss.backward())
    with lib.no_grad():
        y = critic(lib.cat([s, actor(s)], 1))
    rec.err("no_grad_fn", lambda: (y - 1).pow(2).mean().backward())
    rec.err("nonscalar", lambda: critic(lib.cat([s, actor(s)], 1)).backward())
    rec.err("gather_oob", lambda: lib.randn(2, 3).gather(1, lib.tensor([[5], [0]])))
    rec.err("gather_int32", lambda: lib.ones(2, 3).gather(1, lib.zeros(2, 1, dtype=lib.int32)))
    rec.err("index_oob", lambda: lib.randn(2, 3)[lib.arange(2), lib.tensor([0, 3])])
    rec.err("lin_shape", lambda: actor(lib.randn(4, 5, dtype=dt)))
    rec.err("lin_dtype", lambda: actor(lib.from_numpy(np.ones((2, 3), np.float16))))
    rec.err("cat_shape", lambda: lib.cat([lib.randn(4, 3), lib.randn(3, 2)], 1))
    rec.err("stack_shape", lambda: lib.stack([lib.randn(3), lib.randn(2)]))
    rec.err("view_noncontig", lambda: lib.randn(3, 4).t().view(-1))
    rec.err("ce_float_target", lambda: F.cross_entropy(lib.ones(2, 3), lib.tensor([1.0, 2.0])))
    rec.warns("mse_broadcast", lambda: F.mse_loss(lib.ones(4, 1), lib.ones(4)))
    rec.warns("std_single", lambda: lib.ones(1, dtype=dt).std())
    rec.err("numpy_rg", lambda: actor(lib.ones(1, 3, dtype=dt)).numpy())
    rec.err("item_multi", lambda: lib.ones(2).item())
    rec.err("adam_nonleaf", lambda: lib.optim.Adam([lib.ones(2, requires_grad=True) * 2]))
    rec.err("adam_set", lambda: lib.optim.Adam({actor.weight}))
    rec.err("leaf_inplace", lambda: actor.weight.add_(1))
    rec.err("bool_sub", lambda: 1 - lib.tensor([True, False]))
    rec.err("int_pow_neg", lambda: lib.tensor([2]) ** -1)
    rec.err("std_int", lambda: lib.tensor([1, 2]).std())
    rec.err("float_into_long", lambda: lib.zeros(2, dtype=lib.long).add_(0.5))
    buf = lib.zeros(2, dtype=lib.long)
    buf[0] = 2.7
    rec("set_long_float", buf)
    rec.err("dtype_mismatch", lambda: actor(lib.as_tensor(np.ones((2, 3)))))
    rec("np_f64_list", lib.tensor([np.float64(1.0), 2.0]))
    rec("np_f32_list", lib.tensor([np.float32(1.0), np.float32(2.0)]))
    rec("np_bool_list", lib.tensor([np.bool_(True), False]))
    rec("np_scalar_mul_dt", str((lib.ones(2) * np.float64(2.0)).dtype))
    rec("np_arr_index", lib.arange(5)[np.array([0, 3])])
    rec.err("cat_lp_batch", lambda: D.Categorical(logits=lib.zeros(4, 3)).log_prob(lib.zeros(3)))
    rec.err("normal_neg_scale", lambda: D.Normal(lib.zeros(2), lib.tensor([1.0, -1.0])))
    rec.err("lp_pyfloat", lambda: D.Normal(0.0, 1.0).log_prob(0.3))


def p_qmix_rnd(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(21)
    n_agents, sd, od, na, emb, B = 3, 6, 4, 2, 8, 5

    class Mixer(nn.Module):
        def __init__(self):
            super().__init__()
            self.hyper_w1 = nn.Linear(sd, n_agents * emb)
            self.hyper_b1 = nn.Linear(sd, emb)
            self.hyper_w2 = nn.Sequential(nn.Linear(sd, emb), nn.ReLU(), nn.Linear(emb, emb))
            self.v = nn.Sequential(nn.Linear(sd, emb), nn.ReLU(), nn.Linear(emb, 1))

        def forward(self, qs, s):
            bs = qs.size(0)
            qs = qs.view(-1, 1, n_agents)
            w1 = lib.abs(self.hyper_w1(s)).view(-1, n_agents, emb)
            b1 = self.hyper_b1(s).view(-1, 1, emb)
            hidden = F.elu(lib.bmm(qs, w1) + b1)
            w2 = lib.abs(self.hyper_w2(s)).view(-1, emb, 1)
            y = lib.bmm(hidden, w2) + self.v(s).view(-1, 1, 1)
            return y.view(bs, -1, 1)

    agent = nn.GRUCell(od, 8).to(dt)
    head = nn.Linear(8, na).to(dt)
    mixer = Mixer().to(dt)
    params = list(agent.parameters()) + list(head.parameters()) + list(mixer.parameters())
    opt = lib.optim.RMSprop(params, lr=5e-4, alpha=0.99, eps=1e-5)
    obs = lib.randn(B, n_agents, od, dtype=dt)
    state = lib.randn(B, sd, dtype=dt)
    acts = lib.randint(0, na, (B, n_agents, 1))
    for _it in range(3):
        h = agent(obs.reshape(-1, od), lib.zeros(B * n_agents, 8, dtype=dt))
        q = head(h).view(B, n_agents, na)
        chosen = lib.gather(q, dim=2, index=acts).squeeze(2)
        tot = mixer(chosen, state)
        loss = ((tot.squeeze() - 1.0) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(params, 10)
        opt.step()
        rec("tot", tot)
        rec("loss", loss)
        rec("gn", gn)
    rec.params("mix", mixer, grads=True)
    # random network distillation with an observation normaliser and intrinsic reward scaling
    target = _mlp(lib, dt, od, 4)
    pred = _mlp(lib, dt, od, 4)
    for p in target.parameters():
        p.requires_grad_(False)
    popt = lib.optim.Adam(pred.parameters(), lr=1e-3)
    o = lib.randn(16, od, dtype=dt) * 2 + 1
    mean, var = o.mean(0), o.var(0)
    no = ((o - mean) / (var.sqrt() + 1e-8)).clip(-5, 5)
    for _it in range(3):
        err = (pred(no) - target(no)).pow(2).sum(1) / 2
        mask = (lib.rand(16, dtype=dt) < 0.25).to(dt)
        ploss = (err * mask).sum() / lib.max(mask.sum(), lib.tensor([1.0], dtype=dt))
        popt.zero_grad()
        ploss.backward()
        popt.step()
        rec("int_r", err.detach() / (err.detach().std() + 1e-8))
        rec("ploss", ploss)
    rec.params("pred", pred)


def p_gradchecks(lib, dt, rec):
    F, D = lib.nn.functional, lib.distributions
    lib.manual_seed(22)
    f64 = lib.float64
    gc, ggc = lib.autograd.gradcheck, lib.autograd.gradgradcheck

    def squash_lp(mu, log_std, eps):
        u = mu + log_std.exp() * eps
        lp = D.Normal(mu, log_std.exp()).log_prob(u).sum(-1)
        return lp - (2 * (math.log(2) - u - F.softplus(-2 * u))).sum(-1)

    def tanh_td_lp(mu, log_std, eps):
        td = D.TransformedDistribution(D.Normal(mu, log_std.exp()), [D.transforms.TanhTransform()])
        return td.log_prob(lib.tanh(mu + log_std.exp() * eps))

    def qr_huber(q, tgt):
        tau = (lib.arange(4, dtype=f64) + 0.5) / 4
        u = tgt.unsqueeze(1) - q.unsqueeze(2)
        hub = F.huber_loss(q.unsqueeze(2).expand_as(u), tgt.unsqueeze(1).expand_as(u),
                           reduction="none")  # fmt: skip
        return ((tau.view(1, -1, 1) - (u.detach() < 0).to(f64)).abs() * hub).sum(1).mean()

    def masked_ent(logits):
        mask = lib.tensor([[True, False, True], [True, True, True]])
        return D.Categorical(logits=logits.masked_fill(~mask, -1e8)).entropy()

    def gae(rew, val):
        adv = lib.zeros_like(rew)
        last = 0
        for t in reversed(range(rew.shape[0])):
            delta = rew[t] + 0.99 * val[t + 1] - val[t]
            adv[t] = last = delta + 0.99 * 0.95 * last
        return (adv - adv.mean()) / (adv.std() + 1e-8)

    def beta_lp(a, b):
        # (not the entropy: its gradient needs trigamma, ~5e-10 off in torch; tools/fuzz/README.md)
        return D.Beta(a, b).log_prob(lib.tensor([0.2, 0.7], dtype=f64))

    mu, ls, eps = (lib.randn(2, 2, dtype=f64, requires_grad=True) for _ in range(3))
    q, tgt = lib.randn(3, 4, dtype=f64, requires_grad=True), lib.randn(3, 4, dtype=f64)
    lg = lib.randn(2, 3, dtype=f64, requires_grad=True)
    rw, vl = (
        lib.randn(5, dtype=f64, requires_grad=True),
        lib.randn(6, dtype=f64, requires_grad=True),
    )
    a, b = lib.rand(2, dtype=f64) + 0.5, lib.rand(2, dtype=f64) + 0.5
    a.requires_grad_()
    b.requires_grad_()
    checks = [
        ("squash", squash_lp, (mu, ls, eps)), ("tanh_td", tanh_td_lp, (mu, ls, eps)),
        ("qr", qr_huber, (q, tgt)), ("ment", masked_ent, (lg,)), ("gae", gae, (rw, vl)),
        ("beta", beta_lp, (a, b)),
    ]  # fmt: skip
    for name, fn, args in checks:
        rec(name + ".gc", str(gc(fn, args)))
        if dt == f64:  # (the checks run in float64 either way: once is enough)
            rec(name + ".ggc", str(ggc(fn, args)))
        out = fn(*args)
        rec(name, out)
        gs = lib.autograd.grad(out.sum(), [x for x in args if x.requires_grad])
        for i, g in enumerate(gs):
            rec(f"{name}.g{i}", g)


def p_tabular(lib, dt, rec):
    """Value/policy iteration, soft VI, tabular Q-learning and board symmetries."""
    F, D = lib.nn.functional, lib.distributions
    lib.manual_seed(0)
    S, A, g = 6, 3, 0.9
    P = F.softmax(lib.randn(S, A, S, dtype=dt) * 2, -1)
    R = lib.randn(S, A, dtype=dt)
    V = lib.zeros(S, dtype=dt)
    it = 0
    for it in range(200):  # noqa: B007 - the iteration count is recorded
        Q = R + g * lib.einsum("sat,t->sa", P, V)
        Vn = Q.max(dim=1).values
        if lib.allclose(Vn, V, atol=1e-8):
            break
        V = Vn
    rec("it", it)
    rec("V", V)
    pi = Q.argmax(1)
    rec("pi", pi)
    Ppi = P[lib.arange(S), pi]
    Rpi = R[lib.arange(S), pi]
    Vpi = lib.linalg.solve(lib.eye(S, dtype=dt) - g * Ppi, Rpi)
    rec("Vpi", Vpi)
    rec("Vpi_inv", lib.linalg.inv(lib.eye(S, dtype=dt) - g * Ppi) @ Rpi)
    # soft value iteration
    Vs = lib.zeros(S, dtype=dt)
    for _ in range(30):
        Qs = R + g * (P @ Vs)
        Vs = 0.5 * lib.logsumexp(Qs / 0.5, 1)
    rec("Vs", Vs)
    rec("soft_pi", F.softmax(Qs / 0.5, 1))
    # tabular Q-learning with sampled transitions
    Qt = lib.zeros(S, A, dtype=dt)
    s = 0
    for _t in range(40):
        a = lib.randint(A, ()).item() if lib.rand(()) < 0.3 else int(Qt[s].argmax())
        s2 = int(D.Categorical(probs=P[s, a]).sample())
        Qt[s, a] += 0.5 * (R[s, a] + g * Qt[s2].max() - Qt[s, a])
        s = s2
    rec("Qt", Qt)
    # board symmetries for AlphaZero-style augmentation
    b = lib.arange(9, dtype=dt).view(3, 3)
    pol = lib.arange(9, dtype=dt) / 36
    for k in range(-1, 3):
        rec(f"rot{k}", lib.rot90(b, k, [0, 1]))
        rec(f"prot{k}", lib.rot90(pol.view(3, 3), k).flatten())
    rec("fliplr", lib.fliplr(b))
    rec("flipud", lib.flipud(b))
    rec.err("rot_dims", lambda: lib.rot90(b, 1, [0, 0]))
    rec("tril_mask", lib.ones(3, 3).tril().masked_fill(lib.eye(3, dtype=lib.bool), 5))
    rec("matrix_power", lib.linalg.matrix_power(Ppi, 3))


def p_torch_env(lib, dt, rec):
    """A batched CartPole written in torch with auto-reset, driven by a sampled policy."""
    nn, D = lib.nn, lib.distributions
    lib.manual_seed(0)
    N = 8
    g, mc, mp, hl, fm, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    th_lim, x_lim = 12 * 2 * math.pi / 360, 2.4
    state = lib.empty(N, 4, dtype=dt).uniform_(-0.05, 0.05)
    steps = lib.zeros(N, dtype=lib.int32)
    pol = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2)).to(dt)
    ep_ret = lib.zeros(N, dtype=dt)
    finished = []
    for _t in range(30):
        with lib.no_grad():
            a = D.Categorical(logits=pol(state)).sample()
        x, xd, th, thd = state.unbind(-1)
        force = lib.where(a == 1, fm, -fm).to(dt)
        ct, st = lib.cos(th), lib.sin(th)
        temp = (force + mp * hl * thd.pow(2) * st) / (mc + mp)
        thacc = (g * st - ct * temp) / (hl * (4.0 / 3.0 - mp * ct.pow(2) / (mc + mp)))
        xacc = temp - mp * hl * thacc * ct / (mc + mp)
        state = lib.stack([x + tau * xd, xd + tau * xacc, th + tau * thd, thd + tau * thacc], -1)
        steps += 1
        done = (state[:, 0].abs() > x_lim) | (state[:, 2].abs() > th_lim) | (steps >= 20)
        ep_ret += 1.0
        if done.any():
            finished.extend(ep_ret[done].tolist())
        new = lib.empty(N, 4, dtype=dt).uniform_(-0.05, 0.05)
        state = lib.where(done.unsqueeze(-1), new, state)
        ep_ret = ep_ret.masked_fill(done, 0.0)
        steps = steps * (~done)
        rec("done", done)
    rec("steps.dtype", str(steps.dtype))
    rec("state", state)
    rec("finished", finished)
    rec("nonzero", lib.nonzero(ep_ret > 5).flatten())
    rec("argwhere", lib.argwhere(ep_ret > 5))
    rec("count_nonzero", lib.count_nonzero(ep_ret))
    rec("where1", str([t.tolist() for t in lib.where(ep_ret > 5)]))
