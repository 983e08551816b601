"""Session 34 (helper gflownet): generative flow network and discrete policy-learning programs
written the way such code is written in torch (torchgfn / GFlowNet tutorials), run under torch
and minitorch with the same seeds and compared record by record: a hypergrid environment (one-hot
states, forward/backward action masks by masked_fill(-inf) and where, log_softmax, gather and
Categorical log_prob/entropy, actions drawn by multinomial with a generator); trajectory balance
with a learned logZ Parameter in its own Adam param group, detailed balance with a state-flow
head, modified DB over all edges, sub-trajectory balance (cumsum, triu_indices pairs, lambda
weights, unfold windows, logcumsumexp), flow matching (index_add / scatter_add /
scatter_reduce amax), VarGrad; backward sampling and local search with Metropolis acceptance;
the exact terminal distribution by dynamic programming (L1, JSD, KL); replay buffers (index_copy_,
randperm, unique, index_put_ accumulate, bincount, DataLoader/WeightedRandomSampler/random_split
with generators); reward tempering (log, clamp_min, beta conditioning, Dirichlet preferences);
sequence GFlowNets (GRU autoregressive, prepend/append with a transformer, a transformer policy
sampled in eval mode under no_grad and trained in train mode); a set environment (scatter,
index_put_ of terminal states); REINFORCE and PPO with Categorical; epsilon/Gumbel/temperature
exploration (bernoulli, exponential_, searchsorted); per-step losses by nll_loss/cross_entropy;
gradient penalties (create_graph) and per-sample gradients (torch.func); checkpoints through
save/load; and the errors users hit (Categorical validation of -inf rows and NaN probs, gather's
index dtype/shape, one_hot, masked_fill masks, multinomial, optimizer groups, in-place/saved
tensors). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- nll_loss/cross_entropy with reduction='none' wrote +0. for a counted row whose log-probability
  is 0 (a state with one valid action); torch's kernel writes -(logp * w), -0. (its repr prints
  "-0."); an ignored row stays +0. and the reduced losses (0 - 0) +0.
- The gradient of a broadcast input built with create_graph had the node SumBackward1 where
  torch's at::sum_to gives ViewBackward0 (a keepdim sum viewed to drop the leading dims: a bias
  of shape (3,) over (4, 3)) or SumBackward0 (a 0-d input); a Linear bias's gradient likewise
  (torch: ViewBackward0 over SumBackward1, from addmm's sum_to).
- TransformerEncoderLayer in eval mode without gradients (torch's native kernel) added a float
  src_key_padding_mask/src_mask to the scores; torch's kernel converts the (merged) float mask to
  bool, so any nonzero value masks: a 0/1 float padding mask acts as the bool one. The
  TransformerEncoder's nested-tensor path likewise keeps only the positions a float mask leaves
  at 0.

Known and left (documented):
- index_put_ whose values alias self (x.index_put_(idx, x[0])) with a float index: torch
  reports the memory overlap first, minitorch the index dtype (its overlap check comes after the
  index and value checks); the programs write a clone.
- vmap of torch.func.grad over a function indexing with the batched action (logp[a]): torch
  refuses (".item() ... data-dependent control flow"), minitorch computes it; the programs index
  with a fixed action.
- Under a user's warnings filter ("always"/"error"), NumPy's RuntimeWarnings of inf/NaN
  arithmetic (an Adam step on an infinite gradient, logcumsumexp of -inf rows) escape the
  kernel-module filter of minitorch/__init__.py (documented there); the programs ignore
  warnings.
- A state without any valid action gives NaN log-probabilities and NaN gradients in both
  libraries; the programs give such states (the source's backward policy) an all-valid mask, as
  GFlowNet code does, and record the NaNs in all_inf_rows only.
- Samples come from multinomial over computed probabilities: a float32 draw could in principle
  land within rounding of a cumulative boundary; the seeds used keep every draw clear of one.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches, seeded_gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "grid_env", "grid_masks", "tb_train", "db_train", "subtb", "replay", "tempering",
    "categorical_api", "categorical_grads", "gumbel", "all_inf_rows", "seq_tb",
    "seq_prepend_append", "flow_matching", "exact_dist", "backward_sampling", "nll_masked",
    "reinforce_ppo", "param_groups", "grad_graph", "errors", "set_env", "conditional", "vargrad",
    "exploration", "local_search", "replay_loader", "modified_db", "subtb_windows", "checkpoint",
    "seq_transformer_eval", "exact_expectation", "logz_schedule",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- a hypergrid environment (D dimensions of side H; actions: +1 along a dim, or stop) ---

D, H = 2, 5
NEG_INF = float("-inf")


def _grid_reward(lib, s, r0=1e-3, r1=0.5, r2=2.0):
    """The hypergrid reward of Bengio et al. (2021) at integer states s (B, D)."""
    ax = (s.to(lib.float64) / (H - 1) - 0.5).abs()
    return (
        r0
        + r1 * (ax > 0.25).all(-1).to(lib.float64)
        + r2 * ((ax > 0.3) & (ax < 0.4)).all(-1).to(lib.float64)
    )


def _encode(lib, dt, s):
    """One-hot encoding (B, D * H) of integer states (B, D)."""
    return lib.nn.functional.one_hot(s, H).view(s.shape[0], -1).to(dt)


def _fwd_mask(lib, s):
    """Valid forward actions (B, D + 1): +1 along dim i while below the edge; stop always."""
    stop = lib.ones(s.shape[0], 1, dtype=lib.bool)
    return lib.cat([s < H - 1, stop], dim=1)


def _bwd_mask(lib, s):
    """Valid backward actions (B, D): -1 along dim i while above 0 (at the origin, which has no
    parent, all of them, so that its log_softmax row stays finite and its gradient NaN-free)."""
    m = s > 0
    return m | ~m.any(1, keepdim=True)


def _mlp(lib, dt, n_out, seed, hidden=16):
    nn = lib.nn
    lib.manual_seed(seed)
    return nn.Sequential(
        nn.Linear(D * H, hidden),
        nn.LeakyReLU(),
        nn.Linear(hidden, hidden),
        nn.LeakyReLU(),
        nn.Linear(hidden, n_out),
    ).to(dt)


def _sample_trajs(lib, dt, model, n, gen, eps=0.0, temp=1.0):
    """Rolls out n trajectories with the forward policy (the first D + 1 outputs of model) and a
    learned backward policy (the next D); returns the terminal states, the summed forward and
    backward log-probabilities, the per-step ones (n, T) and the visited states (n, T + 1, D)."""
    s = lib.zeros(n, D, dtype=lib.long)
    done = lib.zeros(n, dtype=lib.bool)
    step_pf, step_pb, states = [], [], [s]
    while not bool(done.all()):
        out = model(_encode(lib, dt, s))
        fmask = _fwd_mask(lib, s)
        logits = out[:, : D + 1].masked_fill(~fmask, NEG_INF)
        logp = logits.log_softmax(-1)
        with lib.no_grad():
            probs = (logits.detach() / temp).softmax(-1)
            if eps > 0:
                unif = fmask.to(dt) / fmask.sum(1, keepdim=True)
                probs = (1 - eps) * probs + eps * unif
            a = lib.multinomial(probs, 1, generator=gen).squeeze(1)
        a = lib.where(done, lib.full_like(a, D), a)
        lpf = logp.gather(1, a.unsqueeze(1)).squeeze(1)
        step_pf.append(lpf.masked_fill(done, 0.0))
        moving = (a != D) & ~done
        inc = lib.nn.functional.one_hot(a.clamp(max=D - 1), D) * moving.unsqueeze(1).long()
        s_next = s + inc
        # the backward log-prob of the move into s_next, from s_next's backward logits
        out_next = model(_encode(lib, dt, s_next))
        blogits = out_next[:, D + 1 : 2 * D + 1].masked_fill(~_bwd_mask(lib, s_next), NEG_INF)
        blogp = blogits.log_softmax(-1)
        safe_b = blogp.masked_fill(~moving.unsqueeze(1), 0.0)
        lpb = safe_b.gather(1, a.clamp(max=D - 1).unsqueeze(1)).squeeze(1)
        step_pb.append(lpb)
        done = done | (a == D)
        s = s_next
        states.append(s)
    step_pf = lib.stack(step_pf, 1)
    step_pb = lib.stack(step_pb, 1)
    return s, step_pf.sum(1), step_pb.sum(1), step_pf, step_pb, lib.stack(states, 1)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_grid_env(lib, dt, rec):
    F = lib.nn.functional
    coords = lib.cartesian_prod(lib.arange(H), lib.arange(H))
    rec("coords", coords)
    r = _grid_reward(lib, coords).to(dt)
    rec("reward", r)
    rec("logZ_true", r.log().logsumexp(0))
    rec("target", (r / r.sum()).view(H, H))
    enc = _encode(lib, dt, coords)
    rec("enc", enc)
    rec("enc.sum", enc.sum(0))
    rec("one_hot.default", F.one_hot(coords[:, 0]))
    rec("one_hot.dtype", str(F.one_hot(coords[:, 0], 7).dtype))
    rec("flat_index", coords[:, 0] * H + coords[:, 1])
    rec("unravel", lib.stack(lib.unravel_index(lib.arange(H * H), (H, H)), 1))
    rec("fmask", _fwd_mask(lib, coords))
    rec("bwd", _bwd_mask(lib, coords))
    rec("n_parents", _bwd_mask(lib, coords).sum(1))


def p_grid_masks(lib, dt, rec):
    coords = lib.cartesian_prod(lib.arange(H), lib.arange(H))
    logits = _randn(lib, dt, 1, H * H, D + 1)
    mask = _fwd_mask(lib, coords)
    a = logits.masked_fill(~mask, NEG_INF)
    b = lib.where(mask, logits, lib.tensor(NEG_INF, dtype=dt))
    c = lib.where(mask, logits, NEG_INF)
    rec("masked_fill", a)
    rec("where_t", b)
    rec("where_s", c)
    lp = a.log_softmax(-1)
    rec("log_softmax", lp)
    rec("softmax", a.softmax(-1))
    rec("probs.sum", lp.exp().sum(-1))
    cat = lib.distributions.Categorical(logits=a)
    rec("cat.logits", cat.logits)
    rec("cat.probs", cat.probs)
    rec("cat.entropy", cat.entropy())
    acts = lib.multinomial(cat.probs, 1, generator=seeded_gen(lib, 2)).squeeze(1)
    rec("acts", acts)
    rec("cat.log_prob", cat.log_prob(acts))
    rec("gather", lp.gather(1, acts[:, None]).squeeze(1))
    rec("take_along_dim", lib.take_along_dim(lp, acts[:, None], dim=1))
    rec("index", lp[lib.arange(H * H), acts])
    # gradients flow only through the valid logits
    x = logits.clone().requires_grad_(True)
    y = x.masked_fill(~mask, NEG_INF)
    d = lib.distributions.Categorical(logits=y)
    (d.log_prob(acts).sum() + 0.1 * d.entropy().sum()).backward()
    rec("grad", x.grad)
    x.grad = None
    z = lib.where(mask, x, NEG_INF).log_softmax(-1)
    z.gather(1, acts[:, None]).sum().backward()
    rec("grad.where", x.grad)


def _tb_setup(lib, dt, seed, hidden=16):
    model = _mlp(lib, dt, 2 * D + 1, seed, hidden)
    logZ = lib.nn.Parameter(lib.zeros((), dtype=dt))
    opt = lib.optim.Adam(
        [{"params": model.parameters(), "lr": 1e-3}, {"params": [logZ], "lr": 1e-1}]
    )
    return model, logZ, opt


def p_tb_train(lib, dt, rec):
    model, logZ, opt = _tb_setup(lib, dt, 0)
    gen = seeded_gen(lib, 11)
    for step in range(4):
        x, lpf, lpb, _, _, _ = _sample_trajs(lib, dt, model, 8, gen, eps=0.1)
        logr = _grid_reward(lib, x).log().to(dt).clamp_min(-20.0)
        loss = ((logZ + lpf - logr - lpb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        rec(f"{step}.x", x)
        rec(f"{step}.lpf", lpf)
        rec(f"{step}.lpb", lpb)
        rec(f"{step}.loss", loss)
        rec(f"{step}.logZ.grad", logZ.grad)
        rec(f"{step}.g0", model[0].weight.grad)
        opt.step()
        rec(f"{step}.logZ", logZ)
    rec.params("model", model)
    st = opt.state_dict()
    rec("groups", str([(g["lr"], g["params"]) for g in st["param_groups"]]))
    rec("state.logZ", st["state"][6]["exp_avg_sq"])


def p_db_train(lib, dt, rec):
    """Detailed balance with a state-flow head: log F(s) + log PF(s'|s) = log F(s') + log PB(s|s'),
    with log F(x) = log R(x) at the terminal step."""
    model = _mlp(lib, dt, 2 * D + 2, 1)
    opt = lib.optim.Adam(model.parameters(), lr=3e-3)
    gen = seeded_gen(lib, 5)
    for step in range(3):
        s = lib.zeros(6, D, dtype=lib.long)
        done = lib.zeros(6, dtype=lib.bool)
        losses = []
        while not bool(done.all()):
            out = model(_encode(lib, dt, s))
            logits = out[:, : D + 1].masked_fill(~_fwd_mask(lib, s), NEG_INF)
            logF = out[:, -1]
            cat = lib.distributions.Categorical(logits=logits)
            a = lib.multinomial(cat.probs.detach(), 1, generator=gen).squeeze(1)
            lpf = cat.log_prob(a)
            stop = a == D
            s_next = s.clone()
            rows = lib.nonzero(~stop & ~done).squeeze(1)
            s_next[rows, a[rows]] += 1
            out_n = model(_encode(lib, dt, s_next))
            blog = out_n[:, D + 1 : 2 * D + 1].masked_fill(~_bwd_mask(lib, s_next), NEG_INF)
            lpb = blog.log_softmax(-1).gather(1, a.clamp(max=D - 1)[:, None]).squeeze(1)
            logr = _grid_reward(lib, s).log().to(dt)
            lhs = logF + lpf
            rhs = lib.where(stop, logr, out_n[:, -1] + lpb.masked_fill(stop | done, 0.0))
            losses.append(((lhs - rhs) ** 2).masked_fill(done, 0.0))
            done = done | stop
            s = lib.where(done.unsqueeze(1), s, s_next)
        loss = lib.stack(losses, 0).sum(0).mean()
        opt.zero_grad()
        loss.backward()
        rec(f"{step}.s", s)
        rec(f"{step}.loss", loss)
        rec(f"{step}.n_steps", len(losses))
        rec(f"{step}.gw", model[4].weight.grad)
        opt.step()
    rec.params("model", model)


def _subtb_loss(lib, logF, step_pf, step_pb, lengths, lam):
    """Sub-trajectory balance (Madan et al. 2023) over padded trajectories: logF (n, T + 1) with
    log R at each trajectory's last state, step log-probs (n, T); every pair i < j <= length
    weighted by lam ** (j - i)."""
    n, t = step_pf.shape
    F = lib.nn.functional
    cpf = F.pad(step_pf.cumsum(1), (1, 0))
    cpb = F.pad(step_pb.cumsum(1), (1, 0))
    i, j = lib.triu_indices(t + 1, t + 1, offset=1)
    diff = logF[:, i] + cpf[:, j] - cpf[:, i] - logF[:, j] - cpb[:, j] + cpb[:, i]
    valid = j.unsqueeze(0) <= lengths.unsqueeze(1)
    w = (lam ** (j - i).to(logF.dtype)).unsqueeze(0) * valid
    return (w * diff.pow(2)).sum(1) / w.sum(1), diff, valid


def p_subtb(lib, dt, rec):
    model = _mlp(lib, dt, 2 * D + 2, 2)
    gen = seeded_gen(lib, 8)
    x, lpf, lpb, step_pf, step_pb, states = _sample_trajs(lib, dt, model, 7, gen, eps=0.2)
    n, t = step_pf.shape
    rec("states", states)
    lengths = (states != states[:, -1:]).any(-1).sum(1)
    rec("lengths", lengths)
    logF = model(_encode(lib, dt, states.view(-1, D))).view(n, t + 1, -1)[..., -1]
    logr = _grid_reward(lib, x).log().to(dt)
    # the flow of each trajectory's terminal state is log R; past it the padding repeats it
    logF = logF.scatter(1, lengths.unsqueeze(1), logr.unsqueeze(1))
    pos = lib.arange(t + 1).unsqueeze(0)
    logF = lib.where(pos > lengths.unsqueeze(1), logr.unsqueeze(1), logF)
    rec("logF", logF)
    for lam in (0.9, 1.0):
        loss, diff, valid = _subtb_loss(lib, logF, step_pf, step_pb, lengths, lam)
        rec(f"{lam}.loss", loss)
        rec(f"{lam}.valid", valid)
        rec(f"{lam}.diff", diff.masked_fill(~valid, 0.0))
    # the full-trajectory term of subTB is trajectory balance with logZ = logF[:, 0]
    rec("tb_term", logF[:, 0] + lpf - logr - lpb)
    loss.mean().backward()
    rec("grad", model[0].weight.grad)
    rec("grad.b", model[4].bias.grad)


def p_replay(lib, dt, rec):
    """A replay buffer of terminal states and log rewards sampled with randperm."""
    gen = seeded_gen(lib, 3)
    cap = 12
    buf_x = lib.zeros(cap, D, dtype=lib.long)
    buf_r = lib.full((cap,), NEG_INF, dtype=dt)
    n = 0
    for it in range(4):
        x = lib.randint(0, H, (5, D), generator=gen)
        logr = _grid_reward(lib, x).log().to(dt)
        k = min(5, cap - n)
        if k > 0:
            idx = lib.arange(n, n + k)
            buf_x.index_copy_(0, idx, x[:k])
            buf_r[idx] = logr[:k]
            n += k
        else:
            # replace the lowest rewards by the better new ones
            worst = buf_r.argsort()[:5]
            better = logr > buf_r[worst]
            buf_x[worst[better]] = x[better]
            buf_r[worst[better]] = logr[better]
        rec(f"{it}.n", n)
        perm = lib.randperm(n, generator=gen)[:4]
        rec(f"{it}.perm", perm)
        rec(f"{it}.batch", buf_x[perm])
        rec(f"{it}.batch_r", buf_r[perm])
    uniq, inv, counts = lib.unique(buf_x, dim=0, return_inverse=True, return_counts=True)
    rec("uniq", uniq)
    rec("inv", inv)
    rec("counts", counts)
    visits = lib.zeros(H, H, dtype=dt)
    visits.index_put_((buf_x[:, 0], buf_x[:, 1]), lib.ones(cap, dtype=dt), accumulate=True)
    rec("visits", visits)
    flat = buf_x[:, 0] * H + buf_x[:, 1]
    rec("bincount", lib.bincount(flat, minlength=H * H))
    emp = lib.bincount(flat, minlength=H * H).to(dt) / cap
    target = _grid_reward(lib, lib.cartesian_prod(lib.arange(H), lib.arange(H))).to(dt)
    target = target / target.sum()
    rec("l1", (emp - target).abs().sum())
    rec("kl", lib.nn.functional.kl_div(target.log(), emp, reduction="sum"))
    rec("priority_sample", lib.multinomial(buf_r.softmax(0), 6, replacement=True, generator=gen))


def p_tempering(lib, dt, rec):
    x = lib.cartesian_prod(lib.arange(H), lib.arange(H))
    r = _grid_reward(lib, x, r0=0.0).to(dt)
    rec("r", r)
    logr = r.log()
    rec("logr", logr)
    rec("clamped", logr.clamp_min(-10.0))
    rec("clamp", lib.clamp(logr, min=-10.0))
    rec("clamp_t", logr.clamp(min=lib.tensor(-10.0, dtype=dt)))
    rec("maximum", lib.maximum(logr, lib.tensor(-10.0, dtype=dt)))
    rec("r_min", r.clamp_min(1e-8).log())
    for beta in (0.5, 1.0, 4.0):
        lr = beta * logr.clamp_min(-10.0)
        rec(f"{beta}.p", (lr - lr.logsumexp(0)).exp())
        rec(f"{beta}.logZ", lr.logsumexp(0))
    # the gradient of the clamp at and beyond the clamp point
    v = lib.tensor([-12.0, -10.0, -3.0, NEG_INF], dtype=dt, requires_grad=True)
    v.clamp_min(-10.0).sum().backward()
    rec("clamp.grad", v.grad)
    w = lib.tensor([0.0, 1e-9, 0.5], dtype=dt, requires_grad=True)
    w.log().clamp_min(-10.0).sum().backward()
    rec("log.clamp.grad", w.grad)
    # a beta-conditioned policy input
    beta = lib.tensor([1.0, 2.0, 4.0], dtype=dt)
    enc = _encode(lib, dt, x[:3])
    cond = lib.cat([enc, beta.log().unsqueeze(1)], 1)
    rec("cond", cond)
    rec("logaddexp", lib.logaddexp(logr.clamp_min(-10.0), lib.tensor(math.log(1e-3), dtype=dt)))


def p_categorical_api(lib, dt, rec):
    Cat = lib.distributions.Categorical
    logits = _randn(lib, dt, 4, 3, 5)
    logits[0, 1] = NEG_INF
    logits[2, 0] = NEG_INF
    logits[2, 3] = NEG_INF
    d = Cat(logits=logits)
    rec("repr", repr(d))
    rec("batch_shape", str(d.batch_shape))
    rec("event_shape", str(d.event_shape))
    rec("param_shape", str(d.param_shape))
    rec("support", repr(d.support))
    rec("logits", d.logits)
    rec("probs", d.probs)
    rec("mode", d.mode)
    rec("mean", d.mean)
    rec("variance", d.variance)
    rec("entropy", d.entropy())
    rec("perplexity", d.perplexity())
    rec("enum", d.enumerate_support())
    rec("enum.noexpand", d.enumerate_support(expand=False))
    rec("lp.enum", d.log_prob(d.enumerate_support()))
    rec("lp.bcast", d.log_prob(lib.tensor([[0], [4]])))
    e = d.expand((2, 3))
    rec("expand.repr", repr(e))
    rec("expand.lp", e.log_prob(lib.tensor([[1], [3]])))
    lib.manual_seed(4)
    rec("sample", d.sample())
    rec("sample.shape", d.sample((2, 4)))
    rec("rsample", rec.err("rsample", lambda: d.rsample()) or "-")
    rec.err("cdf", lambda: d.cdf(lib.tensor(1)))
    p = Cat(probs=lib.tensor([[2.0, 0.0, 6.0], [1.0, 1.0, 2.0]], dtype=dt))
    rec("p.probs", p.probs)
    rec("p.logits", p.logits)
    rec("p.entropy", p.entropy())
    rec("p.repr", repr(p))
    q = Cat(logits=lib.tensor([[0.0, NEG_INF, 1.0], [0.5, 0.5, NEG_INF]], dtype=dt))
    kl = lib.distributions.kl_divergence
    rec("kl.pq", kl(p, q))
    rec("kl.qp", kl(q, p))
    rec("has_enum", str((d.has_enumerate_support, d.has_rsample)))
    U = lib.distributions.utils
    rec("logits_to_probs", U.logits_to_probs(logits))
    rec("probs_to_logits", U.probs_to_logits(p.probs))
    rec("probs_to_logits.bin", U.probs_to_logits(lib.tensor([0.0, 0.3, 1.0], dtype=dt), True))
    rec("clamp_probs", U.clamp_probs(lib.tensor([0.0, 0.5, 1.0], dtype=dt)))


def p_categorical_grads(lib, dt, rec):
    Cat = lib.distributions.Categorical
    logits = _randn(lib, dt, 1, 6, 4).requires_grad_(True)
    mask = _rand(lib, dt, 2, 6, 4) > 0.3
    mask[:, 0] = True
    acts = lib.multinomial(mask.to(dt), 1, generator=seeded_gen(lib, 3)).squeeze(1)
    rec("acts", acts)
    masked = logits.masked_fill(~mask, NEG_INF)
    d = Cat(logits=masked)
    lp = d.log_prob(acts)
    ent = d.entropy()
    rec("lp", lp)
    rec("ent", ent)
    (lp * _randn(lib, dt, 3, 6)).sum().backward(retain_graph=True)
    rec("g.lp", logits.grad)
    logits.grad = None
    ent.sum().backward()
    rec("g.ent", logits.grad)
    # probs= with gradients: the normalisation is differentiated
    w = _rand(lib, dt, 4, 6, 4).add(0.1).requires_grad_(True)
    dp = Cat(probs=w)
    (dp.log_prob(acts).sum() - dp.entropy().sum()).backward()
    rec("g.probs", w.grad)
    # OneHotCategorical and the straight-through estimator
    oh = lib.distributions.OneHotCategorical(logits=masked)
    lib.manual_seed(7)
    smp = oh.sample()
    rec("oh.sample", smp)
    rec("oh.lp", oh.log_prob(smp))
    rec("oh.entropy", oh.entropy())
    st = lib.distributions.OneHotCategoricalStraightThrough(logits=logits)
    lib.manual_seed(7)
    y = st.rsample()
    rec("st.y", y)
    logits.grad = None
    (y * _randn(lib, dt, 5, 6, 4)).sum().backward()
    rec("st.grad", logits.grad)


def p_gumbel(lib, dt, rec):
    F = lib.nn.functional
    logits = _randn(lib, dt, 1, 5, 4).requires_grad_(True)
    mask = lib.tensor([[1, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 1, 1], [1, 1, 1, 0]]).bool()
    ml = logits.masked_fill(~mask, NEG_INF)
    # Gumbel-max sampling with an explicit generator
    u = _rand(lib, dt, 2, 5, 4)
    g = -(-u.log()).log()
    rec("gumbel", g)
    a = (ml.detach() + g).argmax(-1)
    rec("argmax", a)
    rec("lp", ml.log_softmax(-1).gather(-1, a[:, None]))
    lib.manual_seed(3)
    soft = F.gumbel_softmax(ml, tau=0.5)
    rec("soft", soft)
    lib.manual_seed(3)
    hard = F.gumbel_softmax(ml, tau=0.5, hard=True)
    rec("hard", hard)
    (hard * _randn(lib, dt, 4, 5, 4)).sum().backward()
    rec("hard.grad", logits.grad)
    lib.manual_seed(5)
    rel = lib.distributions.RelaxedOneHotCategorical(lib.tensor(0.7, dtype=dt), logits=ml)
    smp = rel.rsample()
    rec("relaxed", smp)
    rec("relaxed.lp", rel.log_prob(smp))


def p_all_inf_rows(lib, dt, rec):
    """A state with no valid action: log_softmax/softmax of an all -inf row, and what it does to
    losses and gradients."""
    x0 = _randn(lib, dt, 1, 3, 4)
    mask = lib.tensor([[True, False, True, False], [False] * 4, [True] * 4])
    x = x0.clone().requires_grad_(True)
    m = x.masked_fill(~mask, NEG_INF)
    lp = m.log_softmax(-1)
    rec("log_softmax", lp)
    rec("softmax", m.softmax(-1))
    rec("logsumexp", m.logsumexp(-1))
    rec("amax", m.amax(-1))
    rec("nan_to_num", lp.nan_to_num(nan=0.0, neginf=-100.0))
    lp.gather(1, lib.tensor([[0], [1], [2]])).sum().backward()
    rec("grad", x.grad)
    x.grad = None
    m = x.masked_fill(~mask, NEG_INF)
    m.logsumexp(-1).sum().backward()
    rec("lse.grad", x.grad)
    x.grad = None
    m = x.masked_fill(~mask, NEG_INF)
    (m.softmax(-1) * _randn(lib, dt, 2, 3, 4)).sum().backward()
    rec("softmax.grad", x.grad)
    # the safe pattern: -inf only where a row keeps a valid action
    safe = mask | ~mask.any(-1, keepdim=True)
    x.grad = None
    lps = x.masked_fill(~safe, NEG_INF).log_softmax(-1)
    ent = -(lps.exp() * lps.nan_to_num(neginf=0.0)).sum(-1)
    rec("safe.ent", ent)
    ent.sum().backward()
    rec("safe.grad", x.grad)
    # entropy by special.entr / xlogy, zero at the masked zero probabilities
    p = x0.masked_fill(~safe, NEG_INF).softmax(-1)
    rec("entr", lib.special.entr(p).sum(-1))
    rec("xlogy", -lib.xlogy(p, p).sum(-1))
    rec("finfo.min", lib.finfo(dt).min)
    rec("clamped", x0.masked_fill(~mask, lib.finfo(dt).min).log_softmax(-1))
    rec.err("cat", lambda: lib.distributions.Categorical(logits=x0.masked_fill(~mask, NEG_INF)))


# --- a sequence environment: strings of L tokens from a vocabulary of V, built left to right ---

L, V = 4, 3
PAD = V  # the token id of an unfilled position (embedding row V)


def _seq_reward(lib, x):
    """exp(-min Hamming distance to two modes) plus a floor."""
    modes = lib.tensor([[0, 1, 2, 0], [2, 2, 1, 1]])
    dist = (x.unsqueeze(1) != modes.unsqueeze(0)).sum(-1).min(1).values
    return (-dist.to(lib.float64)).exp() + 1e-2


class _SeqPolicy:
    """An embedding + GRU forward policy over the prefix, built for either library."""

    def __init__(self, lib, dt, seed):
        nn = lib.nn
        lib.manual_seed(seed)
        self.emb = nn.Embedding(V + 1, 6, padding_idx=PAD).to(dt)
        self.gru = nn.GRU(6, 8, batch_first=True).to(dt)
        self.head = nn.Linear(8, V).to(dt)
        self.params = [*self.emb.parameters(), *self.gru.parameters(), *self.head.parameters()]

    def __call__(self, lib, x, t):
        """Logits (n, V) for position t given the prefix x[:, :t] (a BOS of PAD first)."""
        bos = lib.full((x.shape[0], 1), PAD, dtype=lib.long)
        h, _ = self.gru(self.emb(lib.cat([bos, x[:, :t]], 1)))
        return self.head(h[:, -1])


def p_seq_tb(lib, dt, rec):
    pol = _SeqPolicy(lib, dt, 3)
    logZ = lib.nn.Parameter(lib.tensor(0.5, dtype=dt))
    opt = lib.optim.Adam([{"params": pol.params, "lr": 1e-2}, {"params": [logZ], "lr": 0.1}])
    gen = seeded_gen(lib, 17)
    n = 6
    for step in range(3):
        x = lib.full((n, L), PAD, dtype=lib.long)
        lpf = lib.zeros(n, dtype=dt)
        for t in range(L):
            logits = pol(lib, x, t)
            logp = logits.log_softmax(-1)
            a = lib.multinomial(logp.detach().exp(), 1, generator=gen)
            lpf = lpf + logp.gather(1, a).squeeze(1)
            x = x.scatter(1, lib.full((n, 1), t, dtype=lib.long), a)
        logr = _seq_reward(lib, x).log().to(dt)
        loss = (logZ + lpf - logr).pow(2).mean()  # PB = 1: a tree
        opt.zero_grad()
        loss.backward()
        rec(f"{step}.x", x)
        rec(f"{step}.lpf", lpf)
        rec(f"{step}.loss", loss)
        rec(f"{step}.g.emb", pol.emb.weight.grad)
        rec(f"{step}.g.hh", pol.gru.weight_hh_l0.grad)
        opt.step()
    rec("logZ", logZ)
    rec("emb", pol.emb.weight)
    # the exact terminal distribution of the policy: log P(x) for every string
    with lib.no_grad():
        allx = lib.cartesian_prod(*[lib.arange(V)] * L)
        lp = lib.zeros(allx.shape[0], dtype=dt)
        for t in range(L):
            lp += pol(lib, allx, t).log_softmax(-1).gather(1, allx[:, t : t + 1]).squeeze(1)
        rec("sum_p", lp.logsumexp(0))
        logr = _seq_reward(lib, allx).log().to(dt)
        target = logr - logr.logsumexp(0)
        rec("l1", (lp.exp() - target.exp()).abs().sum())
        rec("kl", lib.nn.functional.kl_div(lp, target, log_target=True, reduction="sum"))
        rec("top", lp.topk(3).values)


def p_seq_prepend_append(lib, dt, rec):
    """A non-autoregressive sequence environment: tokens are prepended or appended (2V actions),
    so a string of length > 1 has two parents and PB is 1/2."""
    lib.manual_seed(6)
    nn = lib.nn
    emb = nn.Embedding(V + 1, 5, padding_idx=PAD).to(dt)
    enc = nn.TransformerEncoderLayer(5, 1, 12, dropout=0.0, batch_first=True).to(dt)
    head = nn.Linear(5, 2 * V).to(dt)
    gen = seeded_gen(lib, 4)
    n = 5
    x = lib.full((n, L), PAD, dtype=lib.long)
    length = lib.zeros(n, dtype=lib.long)
    lpf = lib.zeros(n, dtype=dt)
    lpb = lib.zeros(n, dtype=dt)
    for t in range(L):
        pad_mask = x == PAD
        h = enc(emb(x), src_key_padding_mask=pad_mask if t > 0 else None)
        valid = (~pad_mask).unsqueeze(-1).to(dt)
        pooled = (h * valid).sum(1) / valid.sum(1).clamp_min(1.0) if t > 0 else h.mean(1)
        logp = head(pooled).log_softmax(-1)
        a = lib.multinomial(logp.detach().exp(), 1, generator=gen).squeeze(1)
        lpf = lpf + logp.gather(1, a[:, None]).squeeze(1)
        tok = a % V
        prepend = a >= V
        # append: write at position length; prepend: shift right by one and write at 0
        shifted = lib.roll(x, 1, dims=1)
        shifted[:, 0] = tok
        appended = x.clone()
        appended[lib.arange(n), length] = tok
        x = lib.where(prepend.unsqueeze(1), shifted, appended)
        length = length + 1
        lpb = lpb + lib.where(length > 1, math.log(0.5), 0.0).to(dt)
        rec(f"{t}.x", x)
    rec("lpf", lpf)
    rec("lpb", lpb)
    logr = _seq_reward(lib, x).log().to(dt)
    loss = (lpf - lpb - logr).pow(2).mean()
    loss.backward()
    rec("loss", loss)
    rec("g.emb", emb.weight.grad)
    rec("g.head", head.weight.grad)
    rec("g.qkv", enc.self_attn.in_proj_weight.grad)


def _all_states(lib):
    return lib.cartesian_prod(lib.arange(H), lib.arange(H))


def p_flow_matching(lib, dt, rec):
    """Flow matching over the whole grid: edge flows from a network, incoming flows summed with
    index_add / scatter_add and logsumexp'd against outgoing flows plus the reward."""
    model = _mlp(lib, dt, D + 1, 9)
    s = _all_states(lib)
    n = s.shape[0]
    out = model(_encode(lib, dt, s))
    fmask = _fwd_mask(lib, s)
    log_edge = out.masked_fill(~fmask, NEG_INF)  # log F(s -> s + e_i), log F(s -> stop)
    rec("log_edge", log_edge)
    # the child of each move, and its flat index (moves off the grid point to the state itself)
    child = s.unsqueeze(1) + lib.eye(D, dtype=lib.long).unsqueeze(0)
    child = child.clamp(max=H - 1)
    cidx = child[..., 0] * H + child[..., 1]
    rec("cidx", cidx)
    edge_flow = log_edge[:, :D].exp()
    inflow = lib.zeros(n, dtype=dt).index_add(0, cidx.flatten(), edge_flow.flatten())
    inflow2 = lib.zeros(n, dtype=dt).scatter_add(0, cidx.flatten(), edge_flow.flatten())
    inflow3 = lib.zeros(n, dtype=dt).scatter_reduce(
        0, cidx.flatten(), edge_flow.flatten(), reduce="sum"
    )
    rec("inflow", inflow)
    rec("inflow2", inflow2)
    rec("inflow3", inflow3)
    # in log space: a scatter of maxima, then the shifted sum
    lmax = lib.full((n,), NEG_INF, dtype=dt).scatter_reduce(
        0, cidx.flatten(), log_edge[:, :D].flatten(), reduce="amax", include_self=True
    )
    rec("lmax", lmax)
    safe = lmax.masked_fill(lmax == NEG_INF, 0.0)
    shifted = (log_edge[:, :D] - safe[cidx]).exp()
    log_in = lib.zeros(n, dtype=dt).index_add(0, cidx.flatten(), shifted.flatten()).log() + safe
    rec("log_in", log_in)
    logr = _grid_reward(lib, s).log().to(dt)
    log_out = lib.logsumexp(log_edge, 1)
    rec("log_out", log_out)
    # the source has no inflow; every other state matches in and out (+ reward via stop)
    loss = (log_in - lib.logaddexp(lib.logsumexp(log_edge[:, :D], 1), logr))[1:].pow(2).mean()
    rec("loss", loss)
    loss.backward()
    rec("g0", model[0].weight.grad)
    rec("g4", model[4].bias.grad)


def p_exact_dist(lib, dt, rec):
    """The exact terminal distribution of a forward policy on the grid by dynamic programming
    over the states in order of their coordinate sum, against the reward's distribution."""
    model = _mlp(lib, dt, 2 * D + 1, 12)
    s = _all_states(lib)
    idx = s[:, 0] * H + s[:, 1]
    with lib.no_grad():
        logits = model(_encode(lib, dt, s))[:, : D + 1].masked_fill(~_fwd_mask(lib, s), NEG_INF)
        pf = logits.softmax(-1)
    order = s.sum(1).argsort(stable=True)
    rec("order", order)
    reach = lib.zeros(H * H, dtype=dt)
    reach[0] = 1.0
    for k in order.tolist():
        for i in range(D):
            if int(s[k, i]) < H - 1:
                c = int(idx[k]) + (H if i == 0 else 1)
                reach[c] += reach[k] * pf[k, i]
    term = reach * pf[:, D]
    rec("reach", reach)
    rec("term", term.view(H, H))
    rec("total", term.sum())
    r = _grid_reward(lib, s).to(dt)
    target = r / r.sum()
    rec("l1", (term - target).abs().sum())
    m = 0.5 * (term + target)
    jsd = 0.5 * (lib.xlogy(term, term / m).sum() + lib.xlogy(target, target / m).sum())
    rec("jsd", jsd)
    rec("kl", lib.nn.functional.kl_div(term.log(), target, reduction="sum"))
    rec(
        "kl.batchmean",
        lib.nn.functional.kl_div(term.log().view(H, H), target.view(H, H), reduction="batchmean"),
    )
    rec("modes", (term.view(H, H) > 2 * target.view(H, H).mean()).nonzero())
    rec("entropy", lib.distributions.Categorical(probs=term).entropy())


def p_backward_sampling(lib, dt, rec):
    """Trajectories sampled backwards from given terminal states with a masked backward policy
    (the source of an offline / local-search GFlowNet), scored by trajectory balance."""
    model = _mlp(lib, dt, 2 * D + 1, 13)
    logZ = lib.nn.Parameter(lib.tensor(1.0, dtype=dt))
    gen = seeded_gen(lib, 21)
    x = lib.randint(0, H, (6, D), generator=gen)
    rec("x", x)
    s = x.clone()
    # the stop action from x itself
    lpf = model(_encode(lib, dt, x))[:, : D + 1].masked_fill(~_fwd_mask(lib, x), NEG_INF)
    lpf = lpf.log_softmax(-1)[:, D]
    lpb = lib.zeros(6, dtype=dt)
    steps = 0
    while bool((s > 0).any()):
        at_src = ~(s > 0).any(1)
        bl = model(_encode(lib, dt, s))[:, D + 1 :]
        bmask = _bwd_mask(lib, s)
        blogp = bl.masked_fill(~bmask, NEG_INF).log_softmax(-1)
        with lib.no_grad():
            a = lib.multinomial(blogp.exp(), 1, generator=gen).squeeze(1)
        lpb = lpb + blogp.gather(1, a[:, None]).squeeze(1).masked_fill(at_src, 0.0)
        parent = s - lib.nn.functional.one_hot(a, D) * (~at_src).long().unsqueeze(1)
        fl = model(_encode(lib, dt, parent))[:, : D + 1]
        flogp = fl.masked_fill(~_fwd_mask(lib, parent), NEG_INF).log_softmax(-1)
        lpf = lpf + flogp.gather(1, a[:, None]).squeeze(1).masked_fill(at_src, 0.0)
        s = parent
        steps += 1
        rec(f"s{steps}", s)
    logr = _grid_reward(lib, x).log().to(dt)
    loss = (logZ + lpf - logr - lpb).pow(2)
    rec("lpf", lpf)
    rec("lpb", lpb)
    rec("loss", loss)
    loss.mean().backward()
    rec("g.logZ", logZ.grad)
    rec("g", model[2].weight.grad)


def p_nll_masked(lib, dt, rec):
    """Per-step negative log-likelihoods of chosen actions under masked logits by nll_loss and
    cross_entropy (reduction='none'): a state with one valid action has log-probability 0, whose
    loss torch writes as -0. (recorded by signbit)."""
    F = lib.nn.functional
    logits = _randn(lib, dt, 3, 5, 4).requires_grad_(True)
    mask = lib.tensor(
        [[1, 1, 1, 1], [0, 0, 0, 1], [1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 1]], dtype=lib.bool
    )
    acts = lib.tensor([2, 3, 0, 1, 3])
    ml = logits.masked_fill(~mask, NEG_INF)
    nll = F.nll_loss(ml.log_softmax(-1), acts, reduction="none")
    ce = F.cross_entropy(ml, acts, reduction="none")
    rec("nll", nll)
    rec("nll.signbit", lib.signbit(nll))
    rec("ce", ce)
    rec("ce.signbit", lib.signbit(ce))
    rec("ce.str", str(ce.detach()))
    w = lib.tensor([1.0, 0.0, 2.0, 0.5], dtype=dt)
    nw = F.nll_loss(ml.log_softmax(-1), acts, weight=w, reduction="none")
    rec("nll.w", nw)
    rec("nll.w.signbit", lib.signbit(nw))
    ig = F.nll_loss(ml.log_softmax(-1), lib.tensor([2, -100, 0, -100, 3]), reduction="none")
    rec("nll.ignored", ig)
    rec("nll.ignored.signbit", lib.signbit(ig))
    for red in ("sum", "mean"):
        v = F.cross_entropy(ml[1:2], acts[1:2], reduction=red)
        rec(f"ce.{red}", v)
        rec(f"ce.{red}.signbit", lib.signbit(v))
    # a trajectory's log-probability as minus the summed per-step losses, and its gradient
    lp = -F.cross_entropy(ml, acts, reduction="none").view(-1)
    rec("lp", lp)
    rec("lp.signbit", lib.signbit(lp))
    (lp.sum() * 2.0).backward()
    rec("grad", logits.grad)
    # 3-d logits (n, C, T): the per-step losses of a padded batch of trajectories
    seq = _randn(lib, dt, 4, 2, 4, 3).masked_fill(~mask[:2].unsqueeze(-1), NEG_INF)
    tgt = lib.tensor([[0, 1, 2], [3, 3, -100]])
    l3 = F.cross_entropy(seq, tgt, reduction="none")
    rec("ce3", l3)
    rec("ce3.signbit", lib.signbit(l3))
    rec("ce3.mean", F.cross_entropy(seq, tgt))


def p_reinforce_ppo(lib, dt, rec):
    """A discrete policy trained by REINFORCE with a mean baseline and by PPO's clipped
    objective on the grid's one-step bandit (which coordinate to bump), both with Categorical."""
    lib.manual_seed(14)
    nn = lib.nn
    pol = nn.Sequential(nn.Linear(D * H, 12), nn.Tanh(), nn.Linear(12, D + 1)).to(dt)
    opt = lib.optim.Adam(pol.parameters(), lr=1e-2)
    gen = seeded_gen(lib, 33)
    s = lib.randint(0, H, (8, D), generator=gen)
    obs = _encode(lib, dt, s)
    fmask = _fwd_mask(lib, s)
    for it in range(3):
        d = lib.distributions.Categorical(logits=pol(obs).masked_fill(~fmask, NEG_INF))
        a = lib.multinomial(d.probs.detach(), 1, generator=gen).squeeze(1)
        nxt = s + lib.nn.functional.one_hot(a.clamp(max=D - 1), D) * (a < D).long()[:, None]
        r = _grid_reward(lib, nxt.clamp(max=H - 1)).to(dt)
        adv = r - r.mean()
        adv = adv / (adv.std() + 1e-8)
        loss = -(d.log_prob(a) * adv).mean() - 0.01 * d.entropy().mean()
        opt.zero_grad()
        loss.backward()
        rec(f"pg{it}.a", a)
        rec(f"pg{it}.loss", loss)
        rec(f"pg{it}.g", pol[2].weight.grad)
        opt.step()
    # PPO: old log-probs fixed, four epochs of the clipped surrogate
    with lib.no_grad():
        old = lib.distributions.Categorical(logits=pol(obs).masked_fill(~fmask, NEG_INF))
        a = lib.multinomial(old.probs, 1, generator=gen).squeeze(1)
        old_lp = old.log_prob(a)
    adv = _randn(lib, dt, 34, 8)
    for ep in range(4):
        d = lib.distributions.Categorical(logits=pol(obs).masked_fill(~fmask, NEG_INF))
        ratio = (d.log_prob(a) - old_lp).exp()
        surr = lib.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
        approx_kl = (old_lp - d.log_prob(a)).mean()
        loss = -surr.mean()
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(pol.parameters(), 0.5)
        opt.step()
        rec(f"ppo{ep}.ratio", ratio)
        rec(f"ppo{ep}.kl", approx_kl)
        rec(f"ppo{ep}.clipfrac", ((ratio - 1).abs() > 0.2).to(dt).mean())
    rec.params("pol", pol)


def p_param_groups(lib, dt, rec):
    """Adam with the policy and logZ in separate parameter groups (logZ's learning rate 100x),
    weight decay on the policy only, a per-group LambdaLR, state_dict round trip."""
    model, logZ, _ = _tb_setup(lib, dt, 4, hidden=8)
    opt = lib.optim.Adam(
        [
            {"params": model.parameters(), "lr": 1e-3, "weight_decay": 1e-4},
            {"params": [logZ], "lr": 1e-1, "weight_decay": 0.0},
        ],
        betas=(0.9, 0.99),
    )
    rec("repr", repr(opt))
    sched = lib.optim.lr_scheduler.LambdaLR(opt, [lambda t: 0.9**t, lambda t: 1.0 / (1 + t)])
    gen = seeded_gen(lib, 40)
    for step in range(3):
        x, lpf, lpb, _, _, _ = _sample_trajs(lib, dt, model, 5, gen)
        logr = _grid_reward(lib, x).log().to(dt)
        loss = (logZ + lpf - logr - lpb).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"{step}.lr", str(sched.get_last_lr()))
        rec(f"{step}.logZ", logZ)
    sd = opt.state_dict()
    rec(
        "sd.groups",
        str([{k: v for k, v in g.items() if k != "initial_lr"} for g in sd["param_groups"]]),
    )
    rec("sd.logZ.step", sd["state"][6]["step"])
    rec("sd.logZ.exp_avg", sd["state"][6]["exp_avg"])
    model2, logZ2, _ = _tb_setup(lib, dt, 5, hidden=8)
    opt2 = lib.optim.Adam([{"params": model2.parameters()}, {"params": [logZ2]}], lr=5.0)
    opt2.load_state_dict(sd)
    rec("loaded.lrs", str([g["lr"] for g in opt2.param_groups]))
    rec("loaded.state", opt2.state[logZ2]["exp_avg_sq"])
    rec.err("dup", lambda: lib.optim.Adam([{"params": [logZ]}, {"params": [logZ], "lr": 1.0}]))
    rec.err("nonleaf", lambda: lib.optim.Adam([{"params": [logZ * 1.0]}]))
    rec.err("add_dup", lambda: opt.add_param_group({"params": logZ}))
    rec.err("bad_load", lambda: lib.optim.Adam([logZ2]).load_state_dict(sd))
    rec.err("lambdas", lambda: lib.optim.lr_scheduler.LambdaLR(opt2, [lambda t: 1.0]))


def p_grad_graph(lib, dt, rec):
    """A gradient penalty on the trajectory-balance loss (create_graph=True): the gradient graph
    has torch's nodes (a bias's gradient is a keepdim sum viewed to (out,), ViewBackward0; a 0-d
    parameter's a full sum), and its double backward agrees."""
    model, logZ, _ = _tb_setup(lib, dt, 6, hidden=6)
    shift = lib.nn.Parameter(lib.zeros(D + 1, dtype=dt))
    scale = lib.nn.Parameter(lib.tensor(1.0, dtype=dt))
    s = _all_states(lib)[::3]
    out = model(_encode(lib, dt, s))[:, : D + 1] * scale + shift
    lp = out.masked_fill(~_fwd_mask(lib, s), NEG_INF).log_softmax(-1)[:, D]
    logr = _grid_reward(lib, s).log().to(dt)
    loss = (logZ + lp - logr).pow(2).mean()
    params = [model[0].weight, model[0].bias, model[4].bias, shift, scale, logZ]
    grads = lib.autograd.grad(loss, params, create_graph=True)
    for name, g in zip(["w0", "b0", "b4", "shift", "scale", "logZ"], grads, strict=True):
        rec(f"g.{name}", g)
        rec(f"node.{name}", type(g.grad_fn).__name__)
        nxt = [type(f).__name__ if f is not None else "None" for f, _ in g.grad_fn.next_functions]
        rec(f"next.{name}", str(nxt))
    pen = sum(g.pow(2).sum() for g in grads)
    pen.backward()
    for name, p in zip(["w0", "b0", "b4", "shift", "scale", "logZ"], params, strict=True):
        rec(f"gg.{name}", p.grad)
    # per-sample gradients of the stop log-probability by torch.func
    func = lib.func
    pdict = {k: v.detach() for k, v in model.named_parameters()}

    def stop_lp(p, x, m):
        o = func.functional_call(model, p, (x.unsqueeze(0),))[0, : D + 1]
        return o.masked_fill(~m, NEG_INF).log_softmax(-1)[D]

    ps = func.vmap(func.grad(stop_lp), in_dims=(None, 0, 0))(
        pdict, _encode(lib, dt, s), _fwd_mask(lib, s)
    )
    rec("ps.w4", ps["4.weight"])
    rec("ps.b0", ps["0.bias"])


def p_errors(lib, dt, rec):
    """The errors GFlowNet code runs into, with torch's types and messages."""
    F = lib.nn.functional
    Cat = lib.distributions.Categorical
    x = _randn(lib, dt, 50, 3, 4)
    mask = lib.tensor([[1, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 0]], dtype=lib.bool)
    ml = x.masked_fill(~mask, NEG_INF)
    rec.err("cat.all_inf", lambda: Cat(logits=ml))
    rec.err("cat.nan_probs", lambda: Cat(probs=ml.softmax(-1)))
    rec.err("cat.neg_probs", lambda: Cat(probs=x))
    rec.err("cat.zero_probs", lambda: Cat(probs=lib.zeros(2, 3, dtype=dt)))
    rec.err("cat.both", lambda: Cat(probs=x.softmax(-1), logits=x))
    rec.err("cat.none", lambda: Cat())
    rec.err("cat.0d", lambda: Cat(logits=lib.tensor(1.0, dtype=dt)))
    d = Cat(logits=x)
    rec.err("lp.oob", lambda: d.log_prob(lib.tensor([0, 4, 1])))
    rec.err("lp.neg", lambda: d.log_prob(lib.tensor([0, -1, 1])))
    rec.err("lp.frac", lambda: d.log_prob(lib.tensor([0.5, 1.0, 1.0], dtype=dt)))
    rec.err("lp.shape", lambda: d.log_prob(lib.tensor([0, 1])))
    rec.err("lp.list", lambda: d.log_prob([0, 1, 2]))
    rec.err("sample.kw", lambda: d.sample(generator=seeded_gen(lib, 0)))
    rec.err("rsample", lambda: d.rsample())
    a = lib.tensor([[0], [1], [2]])
    rec.err("gather.float", lambda: x.gather(1, a.to(dt)))
    rec.err("gather.int16", lambda: x.gather(1, a.to(lib.int16)))
    rec("gather.int32", x.gather(1, a.int()))
    rec.err("gather.ndim", lambda: x.gather(1, a.squeeze(1)))
    rec.err("gather.size", lambda: x.gather(1, lib.zeros(4, 1, dtype=lib.long)))
    rec.err("gather.oob", lambda: x.gather(1, a + 2))
    rec.err("gather.dim", lambda: x.gather(2, a))
    rec.err("gather.swapped", lambda: x.gather(a, 1))
    rec.err("take_along_dim", lambda: lib.take_along_dim(x, a.squeeze(1), dim=1))
    rec.err("lsm.int", lambda: F.log_softmax(a, -1))
    rec.err("one_hot.neg", lambda: F.one_hot(lib.tensor([0, -1]), 3))
    rec.err("one_hot.big", lambda: F.one_hot(lib.tensor([0, 3]), 3))
    rec.err("one_hot.float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("one_hot.int32", lambda: F.one_hot(lib.tensor([0, 1], dtype=lib.int32), 3))
    rec.err("mf.long_mask", lambda: x.masked_fill(mask.long(), NEG_INF))
    rec.err("mf.uint8_mask", lambda: x.masked_fill(mask.to(lib.uint8), NEG_INF))
    rec.err("mf.float_mask", lambda: x.masked_fill(mask.to(dt), NEG_INF))
    rec.err("mf.shape", lambda: x.masked_fill(mask[:, :3], NEG_INF))
    rec.err("mf.value", lambda: x.masked_fill(mask, lib.tensor([1.0, 2.0])))
    rec.err("mf_.bcast", lambda: x[0].clone().masked_fill_(mask, NEG_INF))
    rec.err("where.int_cond", lambda: lib.where(mask.long(), x, NEG_INF))
    rec.err("multinomial.zero", lambda: lib.multinomial(lib.zeros(2, 3, dtype=dt), 1))
    rec.err("multinomial.nan", lambda: lib.multinomial(ml.softmax(-1), 1))
    rec.err("multinomial.neg", lambda: lib.multinomial(x, 1))
    rec.err("multinomial.n", lambda: lib.multinomial(mask.to(dt)[0], 4))
    rec.err("multinomial.3d", lambda: lib.multinomial(mask.to(dt).unsqueeze(0), 1))
    rec.err("multinomial.int", lambda: lib.multinomial(mask.long(), 1))
    rec.err("randperm.neg", lambda: lib.randperm(-1))
    rec.err("stack.ragged", lambda: lib.stack([lib.zeros(3), lib.zeros(2)]))
    rec.err("cat.ragged", lambda: lib.cat([lib.zeros(3, 2), lib.zeros(2, 3)], 1))
    buf = lib.zeros(4, D, dtype=lib.long)
    rec.err("index_copy.dtype", lambda: buf.index_copy_(0, lib.tensor([0]), lib.ones(1, D)))
    rec.err("index_copy.count", lambda: buf.index_copy_(0, lib.tensor([0, 1]), buf[:1]))
    rec.err("index_put.dtype", lambda: x.index_put_((a.squeeze(1),), lib.ones(4)))
    rec.err("index_put.shape", lambda: x.index_put_((a.squeeze(1),), lib.ones(3, dtype=dt)))
    rec.err("index_put.float_idx", lambda: x.index_put_((a.squeeze(1).to(dt),), x[0].clone()))
    rec.err("scatter.dtype", lambda: buf.scatter(1, a[:2].clamp(max=1), lib.ones(2, 1)))
    rec.err("scatter.oob", lambda: buf.scatter(1, a[:2] + 1, 1))
    rec.err("requires_grad.int", lambda: buf.requires_grad_())
    z = x.clone().requires_grad_(True)
    y = z * 2
    lp = y.log_softmax(-1)
    y.mul_(2)
    rec.err("inplace.saved", lambda: lp.sum().backward())
    lp2 = z.log_softmax(-1)
    lp2.sum().backward()
    rec.err("backward.twice", lambda: lp2.sum().backward())
    lz = lib.nn.Parameter(lib.tensor(0.0, dtype=dt))
    rec.err("leaf.inplace", lambda: lz.add_(1.0))
    rec.err("item.multi", lambda: x.item())
    rec.err("bool.ambiguous", lambda: bool(mask.any(1)))
    rec.err("adam.nonleaf", lambda: lib.optim.Adam([lz * 2]))
    rec.err("adam.tensor", lambda: lib.optim.Adam(lz))


# --- a set environment: choose K of N elements one at a time (state: a 0/1 mask) ---

N_SET, K_SET = 6, 3


def p_set_env(lib, dt, rec):
    """Sets built element by element: the state a float mask written with scatter, the chosen
    elements gathered, invalid (already chosen) actions masked, PB uniform over the chosen
    elements (1/k), terminal states by index_put and their rewards from per-element weights."""
    lib.manual_seed(8)
    nn = lib.nn
    pol = nn.Sequential(nn.Linear(N_SET, 16), nn.GELU(), nn.Linear(16, N_SET)).to(dt)
    logZ = nn.Parameter(lib.zeros((), dtype=dt))
    opt = lib.optim.Adam([{"params": pol.parameters()}, {"params": [logZ], "lr": 0.05}], lr=5e-3)
    weights = _rand(lib, dt, 9, N_SET) * 2
    gen = seeded_gen(lib, 10)
    n = 6
    for it in range(3):
        state = lib.zeros(n, N_SET, dtype=dt)
        order = lib.zeros(n, K_SET, dtype=lib.long)
        lpf = lib.zeros(n, dtype=dt)
        lpb = lib.zeros(n, dtype=dt)
        for k in range(K_SET):
            logits = pol(state).masked_fill(state.bool(), NEG_INF)
            logp = logits.log_softmax(-1)
            a = lib.multinomial(logp.detach().exp(), 1, generator=gen)
            lpf = lpf + logp.gather(1, a).squeeze(1)
            state = state.scatter(1, a, 1.0)
            order[:, k] = a.squeeze(1)
            lpb = lpb - math.log(k + 1)
        terminal = lib.zeros(n, N_SET, dtype=lib.bool)
        rows = lib.arange(n).repeat_interleave(K_SET)
        terminal.index_put_((rows, order.flatten()), lib.tensor(True))
        logr = (weights * state).sum(1) - 0.5 * (weights[order].std(1, correction=0))
        loss = (logZ + lpf - lpb - logr).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"{it}.order", order)
        rec(f"{it}.state", state)
        rec(f"{it}.same", (terminal == state.bool()).all())
        rec(f"{it}.logr", logr)
        rec(f"{it}.loss", loss)
        rec(f"{it}.sorted", order.sort(1).values)
    rec.params("pol", pol)
    rec("logZ", logZ)
    # an unordered set's canonical key and duplicates among sampled sets
    keys = (state.long() * (2 ** lib.arange(N_SET))).sum(1)
    rec("keys", keys)
    rec("unique", lib.unique(keys, return_counts=True)[1])


def p_conditional(lib, dt, rec):
    """Temperature- and preference-conditioned GFlowNets: logZ from a small network of the
    condition, the reward tempered by beta, preferences from a Dirichlet for two objectives."""
    lib.manual_seed(19)
    nn = lib.nn
    policy = _mlp(lib, dt, 2 * D + 1, 19)
    logz_net = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1)).to(dt)
    opt = lib.optim.Adam(
        [{"params": policy.parameters(), "lr": 1e-3}, {"params": logz_net.parameters(), "lr": 1e-2}]
    )
    gen = seeded_gen(lib, 23)
    n = 6
    lib.manual_seed(5)
    prefs = lib.distributions.Dirichlet(lib.full((2,), 1.5, dtype=dt)).sample((n,))
    rec("prefs", prefs)
    beta = lib.tensor([1.0, 2.0, 4.0], dtype=dt).repeat(2)
    cond = lib.cat([prefs, beta.log().unsqueeze(1)], 1)
    rec("cond", cond)
    x, lpf, lpb, _, _, _ = _sample_trajs(lib, dt, policy, n, gen, temp=2.0)
    r1 = _grid_reward(lib, x).to(dt)
    r2 = (x.to(dt) / (H - 1)).sum(1) / D + 0.1
    objs = lib.stack([r1, r2], 1)
    logr = beta * (prefs * objs).sum(1).log()
    # the Chebyshev scalarisation as an alternative
    cheb = (prefs * objs).min(1).values.log()
    rec("objs", objs)
    rec("logr", logr)
    rec("cheb", cheb)
    logZ = logz_net(cond).squeeze(-1)
    loss = (logZ + lpf - logr - lpb).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    rec("loss", loss)
    rec("g.logz", logz_net[0].weight.grad)
    rec("g.pol", policy[4].weight.grad)
    opt.step()
    rec.params("logz_net", logz_net)
    # a Pareto mask of the sampled objectives
    dom = (objs.unsqueeze(1) >= objs.unsqueeze(0)).all(-1) & (
        objs.unsqueeze(1) > objs.unsqueeze(0)
    ).any(-1)
    rec("pareto", ~dom.any(0))


def p_vargrad(lib, dt, rec):
    """The log-partition variance loss (VarGrad): logZ estimated per batch as the mean of
    log R + log PB - log PF, the loss its variance; and the importance-weighted logZ bound."""
    model = _mlp(lib, dt, 2 * D + 1, 24)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    gen = seeded_gen(lib, 25)
    for it in range(3):
        x, lpf, lpb, _, _, _ = _sample_trajs(lib, dt, model, 8, gen, eps=0.05)
        logr = _grid_reward(lib, x).log().to(dt)
        est = logr + lpb - lpf
        loss = (est - est.mean().detach()).pow(2).mean()
        loss2 = est.var()
        opt.zero_grad()
        loss.backward()
        rec(f"{it}.est", est)
        rec(f"{it}.loss", loss)
        rec(f"{it}.var", loss2)
        rec(f"{it}.iw_logZ", est.logsumexp(0) - math.log(est.numel()))
        std, mean = lib.std_mean(est.detach())
        rec(f"{it}.std", std)
        rec(f"{it}.mean", mean)
        rec(f"{it}.g", model[2].weight.grad)
        opt.step()
    rec.params("model", model)


def p_exploration(lib, dt, rec):
    """Exploration as it is written: epsilon-uniform mixing chosen per row by bernoulli, Gumbel
    noise from exponential_, temperature-scaled Categorical logits, and sampling by inverse CDF
    (searchsorted) with a generator."""
    s = _all_states(lib)[::2]
    n = s.shape[0]
    logits = _randn(lib, dt, 26, n, D + 1)
    fmask = _fwd_mask(lib, s)
    ml = logits.masked_fill(~fmask, NEG_INF)
    gen = seeded_gen(lib, 27)
    explore = lib.bernoulli(lib.full((n,), 0.3, dtype=dt), generator=gen).bool()
    rec("explore", explore)
    uniform = lib.where(fmask, 0.0, NEG_INF).to(dt)
    mixed = lib.where(explore.unsqueeze(1), uniform, ml)
    rec("mixed", mixed)
    a = lib.multinomial(mixed.softmax(-1), 1, generator=gen).squeeze(1)
    rec("a", a)
    # off-policy: the log-probability under the policy, and the importance weight
    lp = ml.log_softmax(-1).gather(1, a[:, None]).squeeze(1)
    behav = 0.7 * ml.softmax(-1) + 0.3 * fmask.to(dt) / fmask.sum(1, keepdim=True)
    rec("iw", (lp - behav.gather(1, a[:, None]).squeeze(1).log()).exp())
    # Gumbel-max with exponential_ noise: argmax(logits - log(E))
    e = lib.empty(n, D + 1, dtype=dt).exponential_(generator=seeded_gen(lib, 28))
    rec("exp", e)
    g = (ml - e.log()).argmax(-1)
    rec("gumbel_max", g)
    # temperatures
    for t in (0.5, 1.0, 2.0):
        d = lib.distributions.Categorical(logits=ml / t)
        rec(f"T{t}.entropy", d.entropy())
        rec(f"T{t}.probs", d.probs)
    # inverse-CDF sampling
    cdf = ml.softmax(-1).cumsum(-1)
    u = lib.rand(n, 1, generator=seeded_gen(lib, 29), dtype=dt)
    rec("cdf", cdf)
    inv = lib.searchsorted(cdf, u * cdf[:, -1:]).squeeze(1).clamp(max=D)
    rec("inv_cdf", inv)
    rec("inv.valid", fmask.gather(1, inv[:, None]).all())


def p_local_search(lib, dt, rec):
    """Local search (Kim et al. 2024): from sampled terminal states, destroy by K backward steps
    with the backward policy, reconstruct forward, accept by a Metropolis test."""
    model = _mlp(lib, dt, 2 * D + 1, 31)
    gen = seeded_gen(lib, 32)
    with lib.no_grad():
        x, _, _, _, _, _ = _sample_trajs(lib, dt, model, 8, gen)
        rec("x", x)
        s = x.clone()
        for _ in range(2):  # destroy
            bl = model(_encode(lib, dt, s))[:, D + 1 :]
            bmask = _bwd_mask(lib, s)
            a = lib.multinomial(bl.masked_fill(~bmask, NEG_INF).softmax(-1), 1, generator=gen)
            can = (s > 0).any(1, keepdim=True).long()
            s = s - lib.nn.functional.one_hot(a.squeeze(1), D) * can
        rec("partial", s)
        done = lib.zeros(8, dtype=lib.bool)
        while not bool(done.all()):  # reconstruct
            fl = model(_encode(lib, dt, s))[:, : D + 1].masked_fill(~_fwd_mask(lib, s), NEG_INF)
            a = lib.multinomial(fl.softmax(-1), 1, generator=gen).squeeze(1)
            a = a.masked_fill(done, D)
            move = (a < D) & ~done
            s = s + lib.nn.functional.one_hot(a.clamp(max=D - 1), D) * move.long()[:, None]
            done = done | (a == D)
        rec("proposal", s)
        lr_old = _grid_reward(lib, x).log().to(dt)
        lr_new = _grid_reward(lib, s).log().to(dt)
        u = lib.rand(8, generator=gen, dtype=dt)
        accept = u.log() < (lr_new - lr_old).clamp(max=0.0)
        rec("accept", accept)
        out = lib.where(accept.unsqueeze(1), s, x)
        rec("out", out)
        rec("improved", (lr_new > lr_old).sum())


def p_replay_loader(lib, dt, rec):
    """A replay buffer served by TensorDataset + DataLoader (shuffle with a generator) and a
    prioritised WeightedRandomSampler over the log rewards."""
    data = lib.utils.data
    gen = seeded_gen(lib, 35)
    xs = lib.randint(0, H, (10, D), generator=gen)
    logr = _grid_reward(lib, xs).log().to(dt)
    ds = data.TensorDataset(xs, logr)
    loader = data.DataLoader(ds, batch_size=4, shuffle=True, generator=seeded_gen(lib, 36))
    for i, (bx, br) in enumerate(loader):
        rec(f"b{i}.x", bx)
        rec(f"b{i}.r", br)
    w = logr.softmax(0)
    sampler = data.WeightedRandomSampler(w, 6, replacement=True, generator=seeded_gen(lib, 37))
    rec("prioritised", lib.tensor(list(sampler)))
    sampler = data.WeightedRandomSampler(w, 4, replacement=False, generator=seeded_gen(lib, 38))
    rec("prioritised.norep", lib.tensor(list(sampler)))
    loader = data.DataLoader(
        ds,
        batch_size=3,
        sampler=data.RandomSampler(
            ds, replacement=True, num_samples=5, generator=seeded_gen(lib, 39)
        ),
    )
    rec("random.rep", lib.cat([b[0] for b in loader]))
    sub = data.Subset(ds, lib.randperm(10, generator=seeded_gen(lib, 40))[:4].tolist())
    rec("subset", lib.stack([sub[i][0] for i in range(len(sub))]))
    tr, va = data.random_split(ds, [0.7, 0.3], generator=seeded_gen(lib, 41))
    rec("split", str((len(tr), len(va), list(tr.indices))))


def p_modified_db(lib, dt, rec):
    """Modified detailed balance (Deleu et al. 2022), every state terminal: log R(s) + log
    PF(s'|s) + log PF(stop|s') = log R(s') + log PB(s|s') + log PF(stop|s), over all grid
    edges at once (edges enumerated with nonzero, children by index arithmetic)."""
    model = _mlp(lib, dt, 2 * D + 1, 42)
    s = _all_states(lib)
    fmask = _fwd_mask(lib, s)
    out = model(_encode(lib, dt, s))
    flogp = out[:, : D + 1].masked_fill(~fmask, NEG_INF).log_softmax(-1)
    blogp = out[:, D + 1 :].masked_fill(~_bwd_mask(lib, s), NEG_INF).log_softmax(-1)
    logr = _grid_reward(lib, s).log().to(dt)
    src, act = fmask[:, :D].nonzero(as_tuple=True)
    rec("src", src)
    rec("act", act)
    dst = src + lib.tensor([H, 1])[act]
    rec("dst", dst)
    lhs = logr[src] + flogp[src, act] + flogp[dst, D]
    rhs = logr[dst] + blogp[dst, act] + flogp[src, D]
    delta = lhs - rhs
    rec("delta", delta)
    loss = delta.pow(2).mean()
    rec("loss", loss)
    loss.backward()
    rec("g0", model[0].weight.grad)
    rec("g4b", model[4].bias.grad)
    # the same through index_select and a per-source scatter of the squared residuals
    d2 = lib.zeros(H * H, dtype=dt).index_add(0, src, delta.detach().pow(2))
    rec("per_state", d2.view(H, H))
    rec("index_select", flogp.detach().index_select(0, dst)[:, D])


def p_subtb_windows(lib, dt, rec):
    """Sub-trajectory balance over fixed windows of a padded batch: unfold of the cumulated
    log-probabilities, logcumsumexp of log-flows, and lambda-weighted means per length."""
    model = _mlp(lib, dt, 2 * D + 2, 43)
    gen = seeded_gen(lib, 44)
    x, _, _, step_pf, step_pb, states = _sample_trajs(lib, dt, model, 5, gen, eps=0.3)
    n, t = step_pf.shape
    rec("t", t)
    logF = model(_encode(lib, dt, states.reshape(-1, D))).view(n, t + 1, -1)[..., -1]
    F = lib.nn.functional
    cpf = F.pad(step_pf.cumsum(1), (1, 0))
    cpb = F.pad(step_pb.cumsum(1), (1, 0))
    for w in (1, 2, 3):
        if w > t:
            continue
        start = logF[:, : t + 1 - w]
        end = logF[:, w:]
        pf = cpf.unfold(1, w + 1, 1)
        pb = cpb.unfold(1, w + 1, 1)
        res = start + (pf[..., -1] - pf[..., 0]) - end - (pb[..., -1] - pb[..., 0])
        rec(f"w{w}.res", res)
        rec(f"w{w}.unfold.shape", str(tuple(pf.shape)))
    rec("lcse", logF.logcumsumexp(1))
    rec("lcse.rev", logF.flip(1).logcumsumexp(1).flip(1))
    lam = 0.9
    weights = lam ** lib.arange(1, t + 1, dtype=dt)
    rec("weights", weights / weights.sum())
    total = sum(
        (lam**w)
        * (
            logF[:, : t + 1 - w]
            + cpf[:, w:]
            - cpf[:, : t + 1 - w]
            - logF[:, w:]
            - cpb[:, w:]
            + cpb[:, : t + 1 - w]
        )
        .pow(2)
        .mean()
        for w in range(1, t + 1)
    )
    rec("total", total)
    total.backward()
    rec("g", model[2].weight.grad)


def p_checkpoint(lib, dt, rec):
    """Saving and restoring a GFlowNet (policy, logZ, optimizer with two groups) through
    save/load into memory, then greedy decoding in eval mode under inference_mode."""
    import io

    model, logZ, opt = _tb_setup(lib, dt, 45, hidden=8)
    gen = seeded_gen(lib, 46)
    x, lpf, lpb, _, _, _ = _sample_trajs(lib, dt, model, 4, gen)
    logr = _grid_reward(lib, x).log().to(dt)
    (logZ + lpf - lpb - logr).pow(2).mean().backward()
    opt.step()
    buf = io.BytesIO()
    lib.save({"model": model.state_dict(), "logZ": logZ, "opt": opt.state_dict()}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    rec("keys", str(sorted(ck)))
    rec("logZ", ck["logZ"])
    rec("logZ.type", type(ck["logZ"]).__name__)
    model2, logZ2, opt2 = _tb_setup(lib, dt, 47, hidden=8)
    rec("load", str(model2.load_state_dict(ck["model"])))
    with lib.no_grad():
        logZ2.copy_(ck["logZ"])
    opt2.load_state_dict(ck["opt"])
    rec("opt2.state", opt2.state[logZ2]["exp_avg"])
    rec(
        "same",
        all(
            bool((a == b).all())
            for a, b in zip(model.parameters(), model2.parameters(), strict=True)
        ),
    )
    model2.eval()
    with lib.inference_mode():
        s = lib.zeros(3, D, dtype=lib.long)
        path = [s]
        for _ in range(2 * (H - 1) + 1):
            logits = model2(_encode(lib, dt, s))[:, : D + 1].masked_fill(
                ~_fwd_mask(lib, s), NEG_INF
            )
            a = logits.argmax(-1)
            s = s + lib.nn.functional.one_hot(a.clamp(max=D - 1), D) * (a < D).long()[:, None]
            path.append(s)
        rec("greedy", lib.stack(path, 1))
        rec("inference", s.is_inference())
    rec.err("strict", lambda: model2.load_state_dict({"0.weight": ck["model"]["0.weight"]}))


def p_seq_transformer_eval(lib, dt, rec):
    """A transformer policy over padded prefixes sampled in eval mode without gradients (torch's
    native encoder-layer kernel and nested-tensor encoder path) and trained in train mode, with
    bool padding masks, float 0/1 ones (read as bool by the native kernel, added by the
    composed path) and a causal float mask."""
    nn = lib.nn
    lib.manual_seed(48)
    emb = nn.Embedding(V + 1, 8, padding_idx=PAD).to(dt)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).to(dt)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True).to(dt)
    head = nn.Linear(8, V).to(dt)
    gen = seeded_gen(lib, 49)
    x = lib.randint(0, V, (4, L), generator=gen)
    lengths = lib.tensor([4, 3, 1, 2])
    pad = lib.arange(L).unsqueeze(0) >= lengths.unsqueeze(1)
    x = x.masked_fill(pad, PAD)
    rec("x", x)
    h0 = emb(x)
    causal = nn.Transformer.generate_square_subsequent_mask(L, dtype=dt)
    enc.eval()
    layer.eval()
    with lib.no_grad():
        rec("layer.bool", layer(h0, src_key_padding_mask=pad))
        rec("layer.float01", layer(h0, src_key_padding_mask=pad.to(dt)))
        rec("layer.causal", layer(h0, src_mask=causal, src_key_padding_mask=pad))
        rec("layer.both_float", layer(h0, src_mask=causal, src_key_padding_mask=pad.to(dt)))
        rec("enc.bool", enc(h0, src_key_padding_mask=pad))
        rec("enc.float01", enc(h0, src_key_padding_mask=pad.to(dt)))
        rec("enc.causal", enc(h0, mask=causal, src_key_padding_mask=pad))
        last = (lengths - 1).clamp(min=0)
        logits = head(enc(h0, src_key_padding_mask=pad)[lib.arange(4), last])
        a = lib.multinomial(logits.softmax(-1), 1, generator=gen)
        rec("logits", logits)
        rec("a", a)
    enc.train()
    out = enc(h0, src_key_padding_mask=pad.to(dt))
    rec("train.float01", out)
    out = enc(h0, mask=causal, src_key_padding_mask=pad)
    logp = head(out[lib.arange(4), (lengths - 1)]).log_softmax(-1)
    loss = -logp.gather(1, a).mean()
    loss.backward()
    rec("loss", loss)
    rec("g.emb", emb.weight.grad)
    rec("g.qkv", enc.layers[0].self_attn.in_proj_weight.grad)


def p_exact_expectation(lib, dt, rec):
    """The expected reward of a one-step masked policy exactly (enumerate_support, probs) and by
    the score-function estimator over Categorical samples drawn under manual_seed, with their
    gradients; one-hot encodings of whole sequences with the padding column dropped."""
    F = lib.nn.functional
    s = _all_states(lib)[1::3]
    n = s.shape[0]
    logits = _randn(lib, dt, 50, n, D + 1).requires_grad_(True)
    fmask = _fwd_mask(lib, s)
    d = lib.distributions.Categorical(logits=logits.masked_fill(~fmask, NEG_INF))
    support = d.enumerate_support()  # (D + 1, n)
    nxt = s.unsqueeze(0) + F.one_hot(support.clamp(max=D - 1), D) * (support < D).long()[..., None]
    r = _grid_reward(lib, nxt.clamp(max=H - 1)).to(dt)  # (D + 1, n)
    exact = (d.probs * r.t()).sum(-1)
    rec("exact", exact)
    (g_exact,) = lib.autograd.grad(exact.sum(), logits, retain_graph=True)
    rec("g.exact", g_exact)
    lib.manual_seed(51)
    a = d.sample((64,))
    rec("a.counts", F.one_hot(a, D + 1).sum(0))
    ra = r.gather(0, a)
    rec("mc", ra.mean(0))
    surrogate = (d.log_prob(a) * (ra - ra.mean(0))).mean(0)
    (g_sf,) = lib.autograd.grad(surrogate.sum(), logits)
    rec("g.sf", g_sf)
    # sequences: one_hot with the PAD column dropped, flattened per string
    x = lib.tensor([[0, 2, PAD, PAD], [1, 1, 0, PAD], [2, 0, 1, 2]])
    oh = F.one_hot(x, V + 1)[..., :V]
    rec("seq.onehot", oh.flatten(1))
    rec("seq.len", (x != PAD).sum(1))
    rec("seq.hamming", (oh.unsqueeze(1) != oh.unsqueeze(0)).any(-1).sum(-1))


def p_logz_schedule(lib, dt, rec):
    """logZ in its own group with its own schedule: per-group StepLR and a manual lr change in
    param_groups, per-group gradient clipping, zero_grad(set_to_none=False), and logZ read back
    as a float each step."""
    model, logZ, _ = _tb_setup(lib, dt, 52, hidden=8)
    opt = lib.optim.Adam(
        [{"params": model.parameters(), "lr": 2e-3}, {"params": [logZ], "lr": 0.3}]
    )
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    gen = seeded_gen(lib, 53)
    for step in range(4):
        x, lpf, lpb, _, _, _ = _sample_trajs(lib, dt, model, 4, gen)
        logr = _grid_reward(lib, x).log().to(dt) * 2.0
        loss = (logZ + lpf - logr - lpb).pow(2).mean()
        opt.zero_grad(set_to_none=False)
        loss.backward()
        n1 = lib.nn.utils.clip_grad_norm_(opt.param_groups[0]["params"], 1.0)
        n2 = lib.nn.utils.clip_grad_norm_(opt.param_groups[1]["params"], 5.0)
        rec(f"{step}.norms", lib.stack([n1, n2]))
        opt.step()
        sched.step()
        if step == 1:
            opt.param_groups[1]["lr"] = 0.05
        rec(f"{step}.lrs", lib.tensor([g["lr"] for g in opt.param_groups], dtype=lib.float64))
        rec(f"{step}.logZ", logZ.item())
    rec("last_lr", lib.tensor(sched.get_last_lr(), dtype=lib.float64))
    rec.params("model", model)
