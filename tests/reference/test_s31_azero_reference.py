"""Session 31 (helper azero): AlphaZero / MuZero-style game-AI programs written the way such
projects write them in torch, run under torch and minitorch with the same seeds and compared
record by record: residual policy-value nets (Conv2d + BatchNorm2d towers, policy and tanh value
heads, train/eval, BN momentum None / no tracking / frozen BN, zero-init residual gammas, kaiming
and xavier init, 1x1-conv heads), alpha-zero-general's Othello net and muzero-general's
support helpers as those repos write them, legal-move masking with masked_fill(-inf) under
softmax / log_softmax / Categorical and soft-target cross-entropy, Dirichlet root noise (also
written by masked_scatter), PUCT and MuZero pb_c scores with ties, Gumbel MuZero's root
(Gumbel-top-k, completed Q, sequential halving), batched tensor trees (gather, index_put_ with
accumulate), a whole tic-tac-toe MCTS, visit-count temperatures (pow overflow, multinomial,
one-hot), the eight board symmetries (rot90, flip, transposes, permutation tables and their
inverses), connect-four rules by conv2d kernels and unfold, history planes by roll on uint8
boards, KataGo global pooling over masked boards, squeeze-excitation, Leela's attention policy
(einsum, unravel_index, take_along_dim) and WDL head, replay buffers (circular index_copy_,
DataLoader, WeightedRandomSampler) and prioritised sampling (searchsorted, bucketize,
importance weights), n-step and discounted value targets, SGD with momentum / Nesterov /
weight decay, MultiStepLR (repeated milestones), warm-up by SequentialLR, parameter groups,
checkpoints and a target network (load_state_dict, Polyak by _foreach ops and lerp_), MuZero
unrolls with scale_gradient and hooks, h(x) / h^-1 and two-hot support encodings, EfficientZero's
consistency loss and LSTM value prefix, Stochastic MuZero's straight-through chance codes,
conv dynamics with action planes and Embedding, transposition tables (unique, isin,
scatter_reduce mean), vmap'd ensembles and per-sample gradients, second derivatives through
the masked policy loss, arena statistics (Elo, Wilson interval, Beta posterior), NumPy game
engines feeding tensors, dtype rules of visit-count arithmetic, reprs, users' usual mistakes,
sampling ops under one seed, and CPU autocast inference. float64 must agree to 1e-10 of each
record's scale, float32 to 1e-4; texts exactly.

Found and fixed: masked_scatter's checks (source dtype first, worded as torch's; the mask's
dtype named "Long"/"Byte"; uint8 masks warn before the error) and the DeprecationWarning of
the device-specific autocast state functions (get_autocast_cpu_dtype, ...).

Known and left (documented):
- float32 sqrt can be an ulp off torch's and float32 sums differ in the last bits (summation
  order): MuZero's h^-1 (a 1 / (2 eps) = 500-fold cancellation) is only compared in float64,
  and a bias feeding BatchNorm (a zero gradient up to rounding noise, which Adam scales to
  +-lr) is frozen in the Othello program.
- Dirichlet rsample gradients are exact here (torch's are fitted approximations): no gradient
  through a Dirichlet sample is compared.
- torch.compile returns the module itself (no OptimizedModule, no `_orig_mod.` keys).
- NumPy's floating-point RuntimeWarnings show under an "always" filter (softmax of an all -inf
  row, xlogy at 0, pow overflow); they are ignored under the default filters."""

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
    "resnet_pv", "masked_policy", "dirichlet_root", "puct_select", "visit_temperature",
    "symmetries", "replay_buffer", "az_train", "muzero_unroll", "support_transform",
    "gumbel_root", "tree_arrays", "connect4", "history_planes", "value_targets", "prioritized",
    "bn_modes", "param_groups", "consistency", "numpy_game", "dtype_arith", "reprs",
    "user_mistakes", "sampling_ops", "katago_pool", "attention_policy", "init_schemes",
    "transposition", "vmap_ensemble", "double_backward", "sched_edges", "azg_othello",
    "muzero_general", "selfplay_batch", "stochastic_muzero", "arena_elo", "hooks_debug",
    "target_network", "tictactoe_mcts", "conv_dynamics", "mixed_precision",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers: the networks and game arithmetic the programs share ---


def _resblock(lib, ch):
    nn = lib.nn

    class ResBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(ch)
            self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(ch)

        def forward(self, x):
            y = lib.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return nn.functional.relu(x + y)

    return ResBlock()


def _pvnet(lib, dt, planes=3, ch=8, n=5, blocks=2, seed=0):
    """An AlphaZero policy-value net for an n x n board: a conv stem, residual blocks, a policy
    head (1x1 conv, BN, linear to n*n+1 moves incl. pass) and a tanh value head."""
    nn = lib.nn
    lib.manual_seed(seed)

    class PVNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(planes, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU()
            )
            self.tower = nn.Sequential(*[_resblock(lib, ch) for _ in range(blocks)])
            self.p_conv = nn.Conv2d(ch, 2, 1, bias=False)
            self.p_bn = nn.BatchNorm2d(2)
            self.p_fc = nn.Linear(2 * n * n, n * n + 1)
            self.v_conv = nn.Conv2d(ch, 1, 1, bias=False)
            self.v_bn = nn.BatchNorm2d(1)
            self.v_fc1 = nn.Linear(n * n, 16)
            self.v_fc2 = nn.Linear(16, 1)

        def forward(self, x):
            h = self.tower(self.stem(x))
            p = lib.relu(self.p_bn(self.p_conv(h))).flatten(1)
            logits = self.p_fc(p)
            v = lib.relu(self.v_bn(self.v_conv(h))).view(x.shape[0], -1)
            v = lib.tanh(self.v_fc2(lib.relu(self.v_fc1(v))))
            return logits, v.squeeze(-1)

    return PVNet().to(dt)


def _boards(lib, dt, b=4, n=5, seed=1):
    """Random positions as (own stones, opponent stones, side-to-move) planes plus the legal mask
    (empty points, and pass always legal)."""
    g = lib.Generator().manual_seed(seed)
    cells = lib.randint(0, 3, (b, n, n), generator=g)
    own = (cells == 1).to(dt)
    opp = (cells == 2).to(dt)
    side = lib.ones(b, n, n, dtype=dt) * (lib.arange(b) % 2).view(b, 1, 1).to(dt)
    x = lib.stack([own, opp, side], dim=1)
    legal = lib.cat([(cells == 0).flatten(1), lib.ones(b, 1, dtype=lib.bool)], dim=1)
    return x, legal


def _masked_softmax(lib, logits, legal):
    return lib.softmax(logits.masked_fill(~legal, float("-inf")), dim=-1)


def _h(lib, x, eps=0.001):
    """MuZero's invertible value transform h(x) = sign(x)(sqrt(|x|+1)-1) + eps x."""
    return lib.sign(x) * (lib.sqrt(lib.abs(x) + 1) - 1) + eps * x


def _h_inv(lib, x, eps=0.001):
    return lib.sign(x) * (
        ((lib.sqrt(1 + 4 * eps * (lib.abs(x) + 1 + eps)) - 1) / (2 * eps)) ** 2 - 1
    )


def _to_support(lib, x, support):
    """Two-hot categorical encoding of scalars x (already transformed) on [-support, support]."""
    x = x.clamp(-support, support)
    floor = x.floor()
    prob = x - floor
    out = lib.zeros(x.shape[0], x.shape[1], 2 * support + 1, dtype=x.dtype)
    idx = (floor + support).long().unsqueeze(-1)
    out.scatter_(2, idx, (1 - prob).unsqueeze(-1))
    idx_up = idx + 1
    prob_up = prob.masked_fill(2 * support < idx_up.squeeze(-1), 0.0)
    idx_up = idx_up.masked_fill(2 * support < idx_up, 0)
    out.scatter_(2, idx_up, prob_up.unsqueeze(-1))
    return out


def _from_support(lib, logits, support):
    probs = lib.softmax(logits, dim=-1)
    grid = lib.arange(-support, support + 1, dtype=logits.dtype).expand(probs.shape)
    return _h_inv(lib, (probs * grid).sum(-1, keepdim=True))


def _scale_gradient(x, scale):
    return x * scale + x.detach() * (1 - scale)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_resnet_pv(lib, dt, rec):
    net = _pvnet(lib, dt)
    x, legal = _boards(lib, dt)
    net.train()
    logits, v = net(x)
    rec("logits", logits)
    rec("v", v)
    rec("running_mean", net.stem[1].running_mean)
    rec("running_var", net.tower[1].bn2.running_var)
    rec("nbt", net.p_bn.num_batches_tracked)
    net.eval()
    with lib.no_grad():
        l2, v2 = net(x)
    rec("eval_logits", l2)
    rec("eval_v", v2)
    rec("n_params", sum(p.numel() for p in net.parameters()))
    rec("n_bufs", len(list(net.buffers())))
    rec("keys", str(list(net.state_dict().keys())[:8]))
    rec("repr", repr(net.tower[0]))
    # one sample (unbatched) through eval mode
    with lib.inference_mode():
        l1, v1 = net(x[:1])
    rec("single_v", v1)
    rec("single_argmax", l1.argmax(-1))


def p_masked_policy(lib, dt, rec):
    net = _pvnet(lib, dt, seed=3)
    x, legal = _boards(lib, dt, b=6, seed=4)
    logits, v = net(x)
    masked = logits.masked_fill(~legal, float("-inf"))
    p = lib.softmax(masked, dim=1)
    logp = lib.log_softmax(masked, dim=-1)
    rec("p", p)
    rec("logp_legal", logp[legal])
    rec("isinf", lib.isinf(logp))
    rec("rowsum", p.sum(1))
    # cross-entropy against a soft target that is zero on illegal moves: 0 * -inf must not NaN
    g = lib.Generator().manual_seed(5)
    raw = lib.rand(6, 26, generator=g, dtype=dt) * legal
    target = raw / raw.sum(1, keepdim=True)
    ce = -(target * logp.masked_fill(~legal, 0.0)).sum(1).mean()
    rec("ce", ce)
    ce2 = -(lib.where(legal, target * logp, lib.zeros_like(logp))).sum(-1).mean()
    rec("ce2", ce2)
    ce.backward()
    rec("g_fc", net.p_fc.weight.grad)
    rec("g_stem", net.stem[0].weight.grad)
    # F.cross_entropy with probabilities as target on masked (finite large negative) logits
    big = logits.detach().masked_fill(~legal, -1e9)
    rec("f_ce", lib.nn.functional.cross_entropy(big, target))
    rec("f_ce_none", lib.nn.functional.cross_entropy(big, target, reduction="none"))
    rec("f_ce_ls", lib.nn.functional.cross_entropy(big, target, label_smoothing=0.1))
    # entropy of the masked policy, with the nan-safe xlogy
    rec("entropy", -lib.special.xlogy(p, p).sum(-1))
    d = lib.distributions.Categorical(logits=masked)
    rec("cat_entropy", d.entropy())
    rec("cat_probs", d.probs)
    rec("cat_logp", d.log_prob(lib.tensor([25, 25, 25, 25, 25, 25])))


def p_dirichlet_root(lib, dt, rec):
    lib.manual_seed(7)
    x, legal = _boards(lib, dt, b=1, seed=8)
    legal = legal[0]
    n_legal = int(legal.sum())
    rec("n_legal", n_legal)
    alpha = 0.3
    conc = lib.full((n_legal,), alpha, dtype=dt)
    noise = lib.distributions.Dirichlet(conc).sample()
    rec("noise", noise)
    rec("noise_sum", noise.sum())
    prior = lib.softmax(lib.linspace(-1, 1, 26, dtype=dt).masked_fill(~legal, -math.inf), 0)
    eps = 0.25
    mixed = prior.clone()
    mixed[legal] = (1 - eps) * prior[legal] + eps * noise
    rec("mixed", mixed)
    rec("mixed_sum", mixed.sum())
    # a batch of roots with a Dirichlet over the full move set, per-root masking and renormalise
    d = lib.distributions.Dirichlet(lib.full((3, 26), 0.03, dtype=dt))
    s = d.sample()
    rec("batch_shape", str(tuple(d.batch_shape)) + str(tuple(d.event_shape)))
    rec("batch", s)
    rec("lp", d.log_prob(s.clamp_min(1e-30) / s.clamp_min(1e-30).sum(-1, keepdim=True)))
    rec("mean", d.mean)
    rec("var", d.variance)
    rec("ent", d.entropy())
    # gamma draws normalised by hand (the numpy-free way some repos do it)
    gam = lib.distributions.Gamma(lib.full((5,), 0.3, dtype=dt), lib.ones(5, dtype=dt))
    gs = gam.sample((2,))
    rec("gamma", gs / gs.sum(-1, keepdim=True))
    rec("sample_shape", str(d.sample((2,)).shape))
    rec.err("bad_conc", lambda: lib.distributions.Dirichlet(lib.tensor([0.3, -1.0], dtype=dt)))
    rec.err("scalar_conc", lambda: lib.distributions.Dirichlet(lib.tensor(0.3, dtype=dt)))


def _puct(lib, q, n, p, c_puct):
    total = n.sum(-1, keepdim=True)
    u = c_puct * p * lib.sqrt(total) / (1 + n)
    return q + u


def p_puct_select(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    b, a = 4, 10
    p = lib.softmax(lib.randn(b, a, generator=g, dtype=dt), -1)
    n = lib.randint(0, 6, (b, a), generator=g).to(dt)
    w = lib.randn(b, a, generator=g, dtype=dt) * n
    q = lib.where(n > 0, w / n.clamp(min=1), lib.zeros_like(w))
    rec("q", q)
    score = _puct(lib, q, n, p, 1.25)
    rec("score", score)
    rec("best", score.argmax(-1))
    rec("best_keep", score.argmax(dim=1, keepdim=True))
    # ties: all-zero visits, uniform prior, torch picks the first maximum
    tie = _puct(
        lib,
        lib.zeros(2, 5, dtype=dt),
        lib.zeros(2, 5, dtype=dt),
        lib.full((2, 5), 0.2, dtype=dt),
        1.0,
    )
    rec("tie_score", tie)
    rec("tie_argmax", tie.argmax(-1))
    rec("tie_max", str(tie.max(dim=-1)))
    # MuZero's pb_c with a log term and min-max normalised Q
    c1, c2 = 1.25, 19652
    total = n.sum(-1, keepdim=True)
    pb_c = (lib.log((total + c2 + 1) / c2) + c1) * total.sqrt() / (n + 1)
    qmin = q.min(dim=-1, keepdim=True).values
    qmax = q.amax(-1, keepdim=True)
    qn = lib.where(qmax > qmin, (q - qmin) / (qmax - qmin), q)
    rec("qn", qn)
    s2 = qn + pb_c * p
    rec("s2", s2)
    rec("best2", lib.argmax(s2, 1))
    rec("topk", s2.topk(3, dim=-1).indices)
    # backups along a path: negate the value each ply, add to W and N with index_add_
    path = lib.tensor([3, 7, 1, 7])
    vals = lib.tensor([0.5, -0.5, 0.5, -0.5], dtype=dt)
    W = lib.zeros(a, dtype=dt)
    N = lib.zeros(a, dtype=dt)
    W.index_add_(0, path, vals)
    N.index_add_(0, path, lib.ones(4, dtype=dt))
    rec("W", W)
    rec("N", N)
    N2 = lib.zeros(a, dtype=lib.long).scatter_add_(0, path, lib.ones(4, dtype=lib.long))
    rec("N2", N2)
    rec("bincount", lib.bincount(path, minlength=a))
    # virtual loss added and removed in place
    W[path] -= 1.0
    rec("W_vl", W)
    W[path] += 1.0
    rec("W_back", W)


def p_visit_temperature(lib, dt, rec):
    visits = lib.tensor([[0, 12, 30, 5, 3, 0, 50], [1, 1, 1, 1, 1, 1, 94]], dtype=dt)
    for tau in (1.0, 0.5, 0.25):
        pi = visits.pow(1.0 / tau)
        pi = pi / pi.sum(-1, keepdim=True)
        rec(f"pi_{tau}", pi)
    # a low temperature overflows N ** (1 / tau) in float32 (inf / inf = nan); float64 holds
    big = lib.tensor([300.0, 120.0, 1.0], dtype=dt).pow(1 / 0.05)
    rec("pi_overflow", big / big.sum())
    rec("pi_overflow_half", lib.tensor([30.0, 1.0], dtype=lib.float16).pow(4))
    # log-space version: log-softmax of log(N)/tau handles big exponents without overflow
    logn = lib.log(visits)
    rec("logn", logn)
    pi_small = lib.softmax(logn / 0.01, dim=-1)
    rec("pi_small", pi_small)
    lib.manual_seed(10)
    pi1 = visits / visits.sum(-1, keepdim=True)
    draws = lib.multinomial(pi1, 20, replacement=True)
    rec("draws", draws)
    g = lib.Generator().manual_seed(11)
    rec("draws_g", lib.multinomial(pi1, 3, replacement=False, generator=g))
    rec("draw1", lib.multinomial(pi1[0], 1, generator=g))
    # tau -> 0: argmax, one-hot policy target
    best = visits.argmax(-1)
    rec("one_hot", lib.nn.functional.one_hot(best, visits.shape[-1]).to(dt))
    rec("cat_sample", lib.distributions.Categorical(probs=pi1).sample((4,)))
    rec.err("mn_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("mn_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("mn_toomany", lambda: lib.multinomial(lib.tensor([0.5, 0.5, 0.0], dtype=dt), 3))
    rec.err("mn_inf", lambda: lib.multinomial(lib.tensor([1.0, math.inf], dtype=dt), 1))


def _sym_planes(lib, x, k, flip):
    y = lib.rot90(x, k, dims=(-2, -1))
    return lib.flip(y, dims=(-1,)) if flip else y


def p_symmetries(lib, dt, rec):
    n = 4
    x, legal = _boards(lib, dt, b=2, n=n, seed=12)
    g = lib.Generator().manual_seed(13)
    pol = lib.softmax(lib.randn(2, n * n + 1, generator=g, dtype=dt), -1)
    outs_x, outs_p = [], []
    for k in range(4):
        for flip in (False, True):
            xs = _sym_planes(lib, x, k, flip)
            board = pol[:, :-1].reshape(2, n, n)
            ps = _sym_planes(lib, board, k, flip).reshape(2, -1)
            ps = lib.cat([ps, pol[:, -1:]], dim=1)
            outs_x.append(xs)
            outs_p.append(ps)
    X = lib.cat(outs_x)
    P = lib.cat(outs_p)
    rec("X", X)
    rec("P", P)
    rec("X_contig", X.is_contiguous())
    # transposes and flips agree with rot90 compositions
    rec("t_eq", lib.equal(x.transpose(-1, -2), lib.flip(lib.rot90(x, 1, (-2, -1)), (-2,))))
    rec("rot_neg", lib.equal(lib.rot90(x, -1, [2, 3]), lib.rot90(x, 3, [2, 3])))
    rec("rot_other", lib.rot90(x, 1, [3, 2])[0, 0])
    rec("fliplr", lib.fliplr(x[0, 0]))
    rec("flipud", lib.flipud(x[0, 0]))
    rec("mT", x.mT[1, 2])
    rec("perm", x.permute(0, 1, 3, 2).contiguous().stride())
    # a permutation index table of the moves, applied by gather
    idx = lib.arange(n * n).view(n, n)
    perms = lib.stack([_sym_planes(lib, idx, k, f).flatten() for k in range(4) for f in (0, 1)])
    rec("perms", perms)
    gathered = (
        pol[:, :-1].unsqueeze(0).expand(8, -1, -1).gather(2, perms.unsqueeze(1).expand(8, 2, -1))
    )
    rec("gathered", gathered)
    inv = lib.argsort(perms, dim=1)
    rec("inv", inv)
    back = gathered.gather(2, inv.unsqueeze(1).expand(8, 2, -1))
    rec("roundtrip", lib.allclose(back, pol[:, :-1].expand(8, -1, -1)))
    rec.err("rot_dims", lambda: lib.rot90(x, 1, (2, 2)))
    rec.err("rot_ndims", lambda: lib.rot90(x, 1, (1,)))
    rec.err("flip_dup", lambda: lib.flip(x, (1, 1)))


def p_replay_buffer(lib, dt, rec):
    cap, n = 12, 3
    states = lib.zeros(cap, 3, n, n, dtype=dt)
    pis = lib.zeros(cap, n * n + 1, dtype=dt)
    zs = lib.zeros(cap, dtype=dt)
    ptr, size = 0, 0
    g = lib.Generator().manual_seed(14)
    for game in range(5):
        length = 3 + game % 2
        s = lib.randn(length, 3, n, n, generator=g, dtype=dt)
        p = lib.softmax(lib.randn(length, n * n + 1, generator=g, dtype=dt), 1)
        winner = 1.0 if game % 3 else -1.0
        z = winner * (-1.0) ** lib.arange(length, dtype=dt)
        idx = (ptr + lib.arange(length)) % cap
        states[idx] = s
        pis.index_copy_(0, idx, p)
        zs[idx] = z
        ptr = (ptr + length) % cap
        size = min(size + length, cap)
    rec("ptr_size", [ptr, size])
    rec("zs", zs)
    rec("pis_sum", pis.sum(1))
    lib.manual_seed(15)
    batch = lib.randint(0, size, (6,))
    rec("batch", batch)
    rec("bs", states[batch].sum((1, 2, 3)))
    rec("bp", pis[batch])
    perm = lib.randperm(size, generator=g)
    rec("perm", perm)
    # a TensorDataset + DataLoader over the buffer with a seeded shuffle
    ds = lib.utils.data.TensorDataset(states[:size], pis[:size], zs[:size])
    dl = lib.utils.data.DataLoader(
        ds, batch_size=5, shuffle=True, generator=lib.Generator().manual_seed(16)
    )
    for i, (bs_, _bp, bz_) in enumerate(dl):
        rec(f"dl{i}", bz_)
        rec(f"dl{i}.shape", str(bs_.shape))
    # weighted sampling towards recent games
    w = lib.linspace(0.1, 1.0, size, dtype=dt)
    ws = lib.utils.data.WeightedRandomSampler(w, 8, generator=lib.Generator().manual_seed(17))
    rec("ws", list(ws))
    rec("mn_w", lib.multinomial(w, 4, generator=lib.Generator().manual_seed(18)))


def _az_loss(lib, net, x, pi, z):
    logits, v = net(x)
    policy_loss = -(pi * lib.log_softmax(logits, dim=1)).sum(1).mean()
    value_loss = lib.nn.functional.mse_loss(v, z)
    return policy_loss + value_loss, policy_loss, value_loss


def p_az_train(lib, dt, rec):
    net = _pvnet(lib, dt, seed=19)
    x, legal = _boards(lib, dt, b=8, seed=20)
    g = lib.Generator().manual_seed(21)
    raw = lib.rand(8, 26, generator=g, dtype=dt) * legal
    pi = raw / raw.sum(1, keepdim=True)
    z = lib.randint(-1, 2, (8,), generator=g).to(dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
    for step in range(5):
        opt.zero_grad()
        loss, pl, vl = _az_loss(lib, net, x, pi, z)
        loss.backward()
        gn = lib.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"pl{step}", pl)
        rec(f"vl{step}", vl)
        rec(f"gn{step}", gn)
        rec(f"lr{step}", sched.get_last_lr())
    rec.params("p", net)
    rec("mom", opt.state[net.p_fc.weight]["momentum_buffer"])
    rec("bn_mean", net.stem[1].running_mean)
    # L2 by hand (some repos add c * ||theta||^2 instead of weight_decay)
    l2 = sum((p**2).sum() for n_, p in net.named_parameters() if "weight" in n_)
    rec("l2", l2)
    # a checkpoint round trip restores identical outputs
    buf = io.BytesIO()
    lib.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    net2 = _pvnet(lib, dt, seed=99)
    net2.load_state_dict(ck["net"])
    net.eval()
    net2.eval()
    with lib.no_grad():
        rec("same_out", lib.equal(net(x)[0], net2(x)[0]))
    rec("sched_state", str(ck["sched"]["milestones"]) + str(ck["sched"]["last_epoch"]))
    rec("opt_groups", str({k: v for k, v in ck["opt"]["param_groups"][0].items() if k != "params"}))
    # the best-net copy used for evaluation games
    best = copy.deepcopy(net)
    rec(
        "deep_eq",
        all(lib.equal(a, b) for a, b in zip(best.parameters(), net.parameters(), strict=True)),
    )


def _muzero(lib, dt, obs_dim=6, hid=8, actions=4, support=5, seed=22):
    nn = lib.nn
    lib.manual_seed(seed)

    class MuZero(nn.Module):
        def __init__(self):
            super().__init__()
            self.repr = nn.Sequential(nn.Linear(obs_dim, hid), nn.ELU(), nn.Linear(hid, hid))
            self.dyn = nn.Sequential(nn.Linear(hid + actions, hid), nn.ELU(), nn.Linear(hid, hid))
            self.rew = nn.Linear(hid, 2 * support + 1)
            self.pol = nn.Linear(hid, actions)
            self.val = nn.Linear(hid, 2 * support + 1)

        @staticmethod
        def norm(h):
            lo = h.min(1, keepdim=True)[0]
            hi = h.max(1, keepdim=True)[0]
            scale = hi - lo
            scale[scale < 1e-5] += 1e-5
            return (h - lo) / scale

        def initial(self, obs):
            h = self.norm(self.repr(obs))
            return h, self.pol(h), self.val(h)

        def recurrent(self, h, a):
            onehot = nn.functional.one_hot(a, actions).to(h.dtype)
            nh = self.norm(self.dyn(lib.cat([h, onehot], dim=1)))
            return nh, self.rew(nh), self.pol(nh), self.val(nh)

    return MuZero().to(dt)


def p_muzero_unroll(lib, dt, rec):
    S, K, B, A = 5, 3, 4, 4
    net = _muzero(lib, dt, support=S)
    g = lib.Generator().manual_seed(23)
    obs = lib.randn(B, 6, generator=g, dtype=dt)
    acts = lib.randint(0, A, (B, K), generator=g)
    tgt_v = lib.randn(B, K + 1, generator=g, dtype=dt) * 3
    tgt_r = lib.randn(B, K, generator=g, dtype=dt) * 2
    tgt_p = lib.softmax(lib.randn(B, K + 1, A, generator=g, dtype=dt), -1)
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    for it in range(2):
        h, p, v = net.initial(obs)
        vt = _to_support(lib, _h(lib, tgt_v), S)
        rt = _to_support(lib, _h(lib, tgt_r), S)
        ls = lib.log_softmax
        loss_v = -(vt[:, 0] * ls(v, 1)).sum(1)
        loss_p = -(tgt_p[:, 0] * ls(p, 1)).sum(1)
        loss_r = lib.zeros(B, dtype=dt)
        for k in range(K):
            h, r, p, v = net.recurrent(h, acts[:, k])
            h = _scale_gradient(h, 0.5)
            lv = -(vt[:, k + 1] * ls(v, 1)).sum(1)
            lp = -(tgt_p[:, k + 1] * ls(p, 1)).sum(1)
            lr_ = -(rt[:, k] * ls(r, 1)).sum(1)
            loss_v = loss_v + _scale_gradient(lv, 1 / K)
            loss_p = loss_p + _scale_gradient(lp, 1 / K)
            loss_r = loss_r + _scale_gradient(lr_, 1 / K)
        loss = (0.25 * loss_v + loss_p + loss_r).mean()
        opt.zero_grad()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"g_repr{it}", net.repr[0].weight.grad)
        rec(f"g_dyn{it}", net.dyn[2].bias.grad)
        opt.step()
    grid = lib.arange(-S, S + 1, dtype=dt)
    rec("value_h", (lib.softmax(v.detach(), 1) * grid).sum(1))
    if dt == lib.float64:  # h_inv amplifies float32 summation-order bits 500-fold (1 / 2 eps)
        rec("value", _from_support(lib, v.detach(), S))
        rec("reward", _from_support(lib, r.detach(), S))
    rec("h", h)
    rec("exp_avg_sq", opt.state[net.val.weight]["exp_avg_sq"])
    # gradient of the scale trick itself
    x = lib.tensor([1.0, -2.0], dtype=dt, requires_grad=True)
    y = _scale_gradient(x * 3, 0.25)
    (gx,) = lib.autograd.grad(y.sum(), x)
    rec("scale_y", y)
    rec("scale_g", gx)
    # and via a hook on the hidden state
    x2 = lib.tensor([1.0, -2.0], dtype=dt, requires_grad=True)
    y2 = x2 * 3
    y2.register_hook(lambda gr: gr * 0.5)
    (y2**2).sum().backward()
    rec("hook_g", x2.grad)


def p_support_transform(lib, dt, rec):
    S = 10
    x = lib.tensor([[-120.0, -3.5, -1.0, 0.0], [0.2, 2.5, 9.0, 300.0]], dtype=dt)
    hx = _h(lib, x)
    rec("h", hx)
    rec("h_inv", _h_inv(lib, hx))
    rec("roundtrip", (_h_inv(lib, hx) - x).abs().max() < 1e-3)
    enc = _to_support(lib, hx, S)
    rec("enc", enc)
    rec("enc_sum", enc.sum(-1))
    grid = lib.arange(-S, S + 1, dtype=dt)
    rec("decode", (enc * grid).sum(-1))
    rec("decode_inv", _h_inv(lib, (enc * grid).sum(-1)))
    # logits whose softmax is the encoding decode back
    logits = lib.log(enc.clamp_min(1e-12))
    rec("from_support", _from_support(lib, logits, S).squeeze(-1))
    # gradient through h and h_inv (sign is flat, sqrt is not at 0 thanks to +1)
    xr = x.clone().requires_grad_()
    y = _h_inv(lib, _h(lib, xr))
    y.sum().backward()
    rec("g_roundtrip", xr.grad)
    xg = x.clone().requires_grad_()
    _h(lib, xg).sum().backward()
    rec("g_h", xg.grad)
    # floor/ceil/frac/trunc and long casts of negative values
    v = lib.tensor([-2.5, -0.5, 0.0, 0.5, 2.5, 9.99], dtype=dt)
    rec("floor", v.floor())
    rec("ceil", v.ceil())
    rec("frac", v.frac())
    rec("trunc", v.trunc())
    rec("long", v.long())
    rec("round", v.round())
    rec("floor_div", lib.floor_divide(v, 1.0))
    rec("div_floor", lib.div(v, 2, rounding_mode="floor"))
    # scatter (non-in-place), scatter with reduce, scatter_reduce
    idx = lib.tensor([[0, 1], [2, 2]])
    src = lib.tensor([[0.25, 0.75], [0.5, 0.5]], dtype=dt)
    rec("scatter", lib.zeros(2, 4, dtype=dt).scatter(1, idx, src))
    rec("scatter_add", lib.zeros(2, 4, dtype=dt).scatter_add(1, idx, src))
    rec("scatter_red", lib.zeros(2, 4, dtype=dt).scatter_reduce(1, idx, src, "sum"))
    rec("scatter_val", lib.zeros(2, 4, dtype=dt).scatter_(1, idx, 1.0))
    rec(
        "scatter_amax",
        lib.full((2, 4), -1.0, dtype=dt).scatter_reduce(1, idx, src, "amax", include_self=False),
    )
    rec.err("scatter_oob", lambda: lib.zeros(2, 4, dtype=dt).scatter_(1, idx + 3, src))
    rec.err("scatter_dtype", lambda: lib.zeros(2, 4, dtype=dt).scatter_(1, idx.int(), src))
    rec.err("scatter_srcdt", lambda: lib.zeros(2, 4, dtype=dt).scatter_(1, idx, src.half()))


def p_gumbel_root(lib, dt, rec):
    """Gumbel MuZero's root: Gumbel-top-k without replacement, sequential halving on
    logits + g + sigma(completed Q)."""
    A, m = 8, 4
    g = lib.Generator().manual_seed(24)
    logits = lib.randn(A, generator=g, dtype=dt)
    u = lib.rand(A, generator=g, dtype=dt)
    gumbel = -lib.log(-lib.log(u))
    rec("gumbel", gumbel)
    lib.manual_seed(25)
    gd = lib.distributions.Gumbel(lib.zeros(A, dtype=dt), lib.ones(A, dtype=dt))
    gs = gd.sample()
    rec("gumbel_dist", gs)
    rec("gumbel_lp", gd.log_prob(gs))
    rec("gumbel_mean", gd.mean)
    top = lib.topk(logits + gumbel, m)
    rec("top_vals", top.values)
    rec("top_idx", top.indices)
    visits = lib.tensor([3, 1, 0, 2, 0, 0, 5, 1], dtype=dt)
    qvals = lib.randn(A, generator=g, dtype=dt).tanh()
    prior = lib.softmax(logits, 0)
    # completed Q: unvisited actions get the mixed value estimate
    v_net = lib.tensor(0.1, dtype=dt)
    visited = visits > 0
    sum_p = prior[visited].sum()
    mixed = (v_net + visits.sum() / sum_p * (prior * qvals * visited).sum()) / (1 + visits.sum())
    completed = lib.where(visited, qvals, mixed)
    rec("mixed", mixed)
    rec("completed", completed)
    c_visit, c_scale = 50.0, 0.1
    sigma = (c_visit + visits.max()) * c_scale * completed
    rec("sigma", sigma)
    improved = lib.softmax(logits + sigma, dim=0)
    rec("improved", improved)
    cand = top.indices
    for phase in range(2):
        score = (logits + gumbel + sigma)[cand]
        keep = score.argsort(descending=True)[: max(1, cand.numel() // 2)]
        cand = cand[keep]
        rec(f"cand{phase}", cand)
    rec("kl", lib.nn.functional.kl_div(lib.log_softmax(logits, 0), improved, reduction="sum"))
    rec(
        "kl_log",
        lib.nn.functional.kl_div(
            lib.log_softmax(logits, 0), improved.log(), reduction="batchmean", log_target=True
        ),
    )
    s, i = lib.sort(qvals, descending=True, stable=True)
    rec("sorted", s)
    rec("sort_idx", i)


def p_tree_arrays(lib, dt, rec):
    """A batched MCTS tree kept in tensors: child indices (-1 = none), N, W, P per node; selection
    by gather along the path, expansion with index_put_, backup with accumulate=True."""
    B, M, A = 2, 16, 3
    children = lib.full((B, M, A), -1, dtype=lib.long)
    N = lib.zeros(B, M, dtype=dt)
    W = lib.zeros(B, M, dtype=dt)
    P = lib.zeros(B, M, A, dtype=dt)
    nxt = lib.ones(B, dtype=lib.long)
    g = lib.Generator().manual_seed(26)
    ar = lib.arange(B)
    for _sim in range(6):
        node = lib.zeros(B, dtype=lib.long)
        path = [node]
        for _depth in range(4):
            kids = children[ar, node]
            expanded = (kids >= 0).all(-1)
            if not bool(expanded.any()):
                break
            nk = N[ar.unsqueeze(1), kids.clamp(min=0)]
            q = lib.where(nk > 0, W[ar.unsqueeze(1), kids.clamp(min=0)] / nk.clamp(min=1), 0.0)
            u = P[ar, node] * lib.sqrt(N[ar, node]).unsqueeze(1) / (1 + nk)
            a = (q + 1.5 * u).argmax(1)
            child = kids.gather(1, a.unsqueeze(1)).squeeze(1)
            node = lib.where(expanded, child, node)
            path.append(node)
        leaf_p = lib.softmax(lib.randn(B, A, generator=g, dtype=dt), -1)
        leaf_v = lib.rand(B, generator=g, dtype=dt) * 2 - 1
        new_ids = nxt.unsqueeze(1) + lib.arange(A)
        fresh = (children[ar, node] < 0).all(-1) & (nxt + A <= M)
        children[ar[fresh], node[fresh]] = new_ids[fresh]
        P[ar[fresh], node[fresh]] = leaf_p[fresh]
        nxt = nxt + fresh.long() * A
        sign = lib.ones(B, dtype=dt)
        for nd in reversed(path):
            N.index_put_((ar, nd), lib.ones(B, dtype=dt), accumulate=True)
            W.index_put_((ar, nd), leaf_v * sign, accumulate=True)
            sign = -sign
    rec("children", children)
    rec("N", N)
    rec("W", W)
    rec("P", P)
    rec("nxt", nxt)
    root_kids = children[:, 0]
    rec("root_visits", N.gather(1, root_kids.clamp(min=0)))
    rec("nonzero", lib.nonzero(N > 0))
    rec("nonzero_tuple", str([t.tolist() for t in lib.nonzero(N[0] > 1, as_tuple=True)]))
    rec("count_nz", lib.count_nonzero(children >= 0, dim=(1, 2)))
    # duplicates with accumulate=True sum; without, last write wins for equal values
    t = lib.zeros(5, dtype=dt)
    t.index_put_((lib.tensor([1, 1, 3]),), lib.tensor([1.0, 2.0, 3.0], dtype=dt), accumulate=True)
    rec("acc", t)
    rec.err("ip_shape", lambda: t.index_put_((lib.tensor([0, 1]),), lib.ones(3, dtype=dt)))
    rec.err("ip_oob", lambda: t.index_put_((lib.tensor([7]),), lib.ones(1, dtype=dt)))


def _c4_wins(lib, board, dt):
    """Four-in-a-row detection by conv2d with fixed kernels (horizontal, vertical, diagonals)."""
    k = lib.zeros(4, 1, 4, 4, dtype=dt)
    k[0, 0, 0, :] = 1
    k[1, 0, :, 0] = 1
    k[2, 0] = lib.eye(4, dtype=dt)
    k[3, 0] = lib.eye(4, dtype=dt).flip(1)
    out = lib.nn.functional.conv2d(board.unsqueeze(1), k)
    return out, (out >= 4).flatten(1).any(1)


def p_connect4(lib, dt, rec):
    rows, cols = 6, 7
    g = lib.Generator().manual_seed(27)
    B = 3
    board = lib.zeros(B, rows, cols, dtype=lib.int8)
    player = lib.ones(B, dtype=lib.int8)
    ar = lib.arange(B)
    for _move in range(14):
        legal = board[:, 0] == 0
        logits = lib.randn(B, cols, generator=g, dtype=dt).masked_fill(~legal, -math.inf)
        col = lib.multinomial(lib.softmax(logits, -1), 1, generator=g).squeeze(1)
        column = board[ar, :, col]
        empty = (column == 0).to(lib.int64)
        # the lowest empty row: last index of a 1 in `empty` (flip, argmax)
        row = rows - 1 - empty.flip(1).argmax(1)
        board[ar, row, col] = player
        player = -player
    rec("board", board)
    rec("heights", (board != 0).sum(1))
    for p in (1, -1):
        conv, won = _c4_wins(lib, (board == p).to(dt), dt)
        rec(f"conv{p}", conv)
        rec(f"won{p}", won)
    # unfold-based windows give the same horizontal counts
    win = (board == 1).to(dt).unfold(2, 4, 1).sum(-1)
    rec("unfold_h", win)
    rec("padded", lib.nn.functional.pad(board.to(dt), (1, 1, 0, 0), value=-2.0)[0])
    rec("canon", (board * player.view(B, 1, 1)).to(lib.float32))
    rec("as_planes", lib.stack([board == 1, board == -1], 1).to(dt).sum((2, 3)))
    rec("dtype_mix", str((board + 1.5).dtype) + str((board * 2).dtype) + str(board.sum().dtype))
    rec("hash", (((board + 1).long() * 3 ** lib.arange(7)).sum((1, 2))))


def p_history_planes(lib, dt, rec):
    """AlphaGo Zero's input: the last T positions of each player stacked as planes, rolled in
    each move with torch.roll / cat; plus colour plane; uint8 storage, float compute."""
    T, n = 3, 5
    hist = lib.zeros(2 * T, n, n, dtype=lib.uint8)
    g = lib.Generator().manual_seed(28)
    for _move in range(4):
        own = (lib.rand(n, n, generator=g) < 0.3).to(lib.uint8)
        opp = (lib.rand(n, n, generator=g) < 0.3).to(lib.uint8) & ~own.bool()
        hist = lib.roll(hist, shifts=2, dims=0)
        hist[0], hist[1] = own, opp.to(lib.uint8)
    rec("hist", hist)
    colour = lib.full((1, n, n), 1, dtype=lib.uint8)
    x = lib.cat([hist, colour]).unsqueeze(0).to(dt)
    rec("x_sum", x.sum((2, 3)))
    rec("roll2", lib.roll(hist[:2], shifts=(1, -1), dims=(1, 2)))
    rec("roll_flat", lib.roll(lib.arange(6).view(2, 3), 1))
    rec("bitwise", (hist[0] | hist[1]) ^ hist[2])
    rec("logical", lib.logical_and(hist[0].bool(), lib.logical_not(hist[1].bool())))
    rec("uint8_sub", hist[1] - hist[0])
    rec("uint8_neg", str((hist[0] == 1).sum().dtype))
    # liberties by a 3x3 cross kernel on the empty plane
    empty = (1 - (hist[0] | hist[1])).to(dt)
    cross = lib.tensor([[0.0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=dt).view(1, 1, 3, 3)
    libs = lib.nn.functional.conv2d(empty.view(1, 1, n, n), cross, padding=1)
    rec("libs", libs)
    rec("libs_own", libs[0, 0] * hist[0])
    rec("maxpool", lib.nn.functional.max_pool2d(x[:, :2], 3, stride=1, padding=1))
    rec("repeat", x[:, -1:].repeat(2, 3, 1, 1).shape)
    rec("expand_str", x[:, -1:].expand(2, 3, -1, -1).stride())
    rec.err("roll_bad", lambda: lib.roll(hist, shifts=(1, 2), dims=0))


def p_value_targets(lib, dt, rec):
    """n-step bootstrapped value targets (MuZero) and discounted returns with flip/cumsum."""
    gamma, td = 0.997, 5
    g = lib.Generator().manual_seed(29)
    T = 12
    rewards = lib.randn(T, generator=g, dtype=dt).round()
    root_values = lib.randn(T, generator=g, dtype=dt)
    disc = gamma ** lib.arange(td, dtype=dt)
    rec("disc", disc)
    padded = lib.nn.functional.pad(rewards, (0, td))
    windows = padded.unfold(0, td, 1)[:T]
    rec("windows", windows)
    boot_idx = lib.arange(T) + td
    boot = lib.where(boot_idx < T, root_values[boot_idx.clamp(max=T - 1)], 0.0)
    targets = (windows * disc).sum(1) + gamma**td * boot
    rec("targets", targets)
    # full discounted return by a reversed cumulative product trick
    powers = lib.pow(lib.tensor(gamma, dtype=dt), lib.arange(T, dtype=dt))
    ret = (rewards * powers).flip(0).cumsum(0).flip(0) / powers
    rec("returns", ret)
    # a loop version agrees
    acc = lib.zeros((), dtype=dt)
    out = []
    for r in rewards.flip(0):
        acc = r + gamma * acc
        out.append(acc)
    rec("returns_loop", lib.stack(out[::-1]))
    rec("cumprod", lib.cumprod(lib.full((4,), gamma, dtype=dt), 0))
    # two-player zero-sum: outcome z from the mover's perspective
    winner = 1
    to_play = lib.tensor([1, -1, 1, -1, 1])
    z = (to_play == winner).to(dt) * 2 - 1
    rec("z", z)
    rec("z_mul", (to_play * winner).to(dt))
    rec("logspace", lib.logspace(0, td - 1, td, base=gamma, dtype=dt))
    rec("tensor_pow", lib.tensor([2.0, 3.0], dtype=dt) ** lib.tensor([3, 2]))


def p_prioritized(lib, dt, rec):
    """Prioritised replay for MuZero: p = |v - z|^alpha, sampling by a cumsum + searchsorted
    'sum tree', importance weights (N P)^-beta / max."""
    alpha, beta = 0.6, 0.4
    g = lib.Generator().manual_seed(30)
    N = 10
    v = lib.randn(N, generator=g, dtype=dt).tanh()
    z = lib.randint(-1, 2, (N,), generator=g).to(dt)
    pri = (v - z).abs().add(1e-6).pow(alpha)
    probs = pri / pri.sum()
    rec("probs", probs)
    cs = lib.cumsum(pri, 0)
    u = lib.rand(6, generator=g, dtype=dt) * cs[-1]
    idx = lib.searchsorted(cs, u)
    rec("idx", idx)
    rec("idx_right", lib.searchsorted(cs, cs[:3], right=True))
    rec("bucket", lib.bucketize(u, cs))
    weights = (N * probs[idx]).pow(-beta)
    weights = weights / weights.max()
    rec("weights", weights)
    # weighted loss and priority update in place
    pred = lib.zeros(N, dtype=dt, requires_grad=True)
    loss = (weights * (pred[idx] - z[idx]) ** 2).mean()
    loss.backward()
    rec("grad", pred.grad)
    new = (pred.detach()[idx] - z[idx]).abs() ** alpha
    pri[idx] = new
    rec("pri", pri)
    # stratified sampling: one draw per segment
    seg = cs[-1] / 4
    us = (lib.arange(4, dtype=dt) + lib.rand(4, generator=g, dtype=dt)) * seg
    rec("strata", lib.searchsorted(cs, us))
    rec.err("ss_unsorted_dt", lambda: lib.searchsorted(cs, u.long()))
    rec.err("ss_side", lambda: lib.searchsorted(cs, u, side="middle"))


def p_bn_modes(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(31)
    x = lib.randn(4, 3, 5, 5, dtype=dt)
    bn_cum = nn.BatchNorm2d(3, momentum=None).to(dt)
    for i in range(3):
        bn_cum(x * (i + 1))
    rec("cum_mean", bn_cum.running_mean)
    rec("cum_var", bn_cum.running_var)
    rec("cum_nbt", bn_cum.num_batches_tracked)
    bn_nt = nn.BatchNorm2d(3, track_running_stats=False, affine=False).to(dt)
    bn_nt.eval()
    rec("no_track_eval", bn_nt(x)[0, 0, 0])
    rec("no_track_bufs", str(bn_nt.running_mean) + str(list(bn_nt.state_dict())))
    bn = nn.BatchNorm2d(3, eps=1e-3, momentum=0.01).to(dt)
    y = bn(x)
    rec("y", y.mean((0, 2, 3)))
    rec("rm", bn.running_mean)
    rec("rv", bn.running_var)
    bn.eval()
    rec("eval1", bn(x[:1])[0, :, 0])
    bn.train()
    rec.err("one_value", lambda: nn.BatchNorm1d(3).to(dt)(lib.randn(1, 3, dtype=dt)))
    rec.err("bn_dims", lambda: bn(lib.randn(3, 5, 5, dtype=dt)))
    rec.err("bn_ch", lambda: bn(lib.randn(2, 4, 5, 5, dtype=dt)))
    # freezing BN: eval() on BN modules only, requires_grad_(False) on their params
    net = _pvnet(lib, dt, seed=32)
    net.train()
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
            m.requires_grad_(False)
    xb, _ = _boards(lib, dt, b=2, seed=33)
    logits, v = net(xb)
    (logits.logsumexp(1).sum() + v.sum()).backward()
    rec("frozen_grad", str([n for n, p in net.named_parameters() if p.grad is not None][:5]))
    rec("frozen_nbt", net.stem[1].num_batches_tracked)
    rec("n_trainable", sum(p.numel() for p in net.parameters() if p.requires_grad))
    # functional batch_norm with running stats updated in place
    rm = lib.zeros(3, dtype=dt)
    rv = lib.ones(3, dtype=dt)
    out = nn.functional.batch_norm(x, rm, rv, training=True, momentum=0.2)
    rec("fbn", out[1, :, 1, 1])
    rec("fbn_rm", rm)
    rec("fbn_rv", rv)


def p_param_groups(lib, dt, rec):
    """No weight decay on BN and biases; warm-up then MultiStepLR via SequentialLR; Nesterov."""
    net = _pvnet(lib, dt, seed=34, blocks=1)
    decay, no_decay = [], []
    for _name, p in net.named_parameters():
        (no_decay if p.ndim == 1 else decay).append(p)
    rec("groups", [len(decay), len(no_decay)])
    opt = lib.optim.SGD(
        [{"params": decay, "weight_decay": 1e-4}, {"params": no_decay}],
        lr=0.1,
        momentum=0.9,
        nesterov=True,
    )
    warm = lib.optim.lr_scheduler.LambdaLR(opt, lambda e: (e + 1) / 3)
    steps = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 3], gamma=0.5)
    sched = lib.optim.lr_scheduler.SequentialLR(opt, [warm, steps], milestones=[3])
    x, legal = _boards(lib, dt, b=4, seed=35)
    z = lib.tensor([1.0, -1.0, 0.0, 1.0], dtype=dt)
    for step in range(7):
        logits, v = net(x)
        loss = lib.nn.functional.mse_loss(v, z) - lib.log_softmax(logits, 1)[:, -1].mean()
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"lr{step}", [gr["lr"] for gr in opt.param_groups])
        rec(f"loss{step}", loss)
    rec.params("p", net)
    sd = sched.state_dict()
    rec("sd_keys", str(sorted(sd)))
    rec("last_lr", sched.get_last_lr())
    rec.err("nesterov_bad", lambda: lib.optim.SGD(decay, lr=0.1, nesterov=True))
    rec.err("neg_wd", lambda: lib.optim.SGD(decay, lr=0.1, weight_decay=-1))
    rec.err(
        "milestone_bad",
        lambda: lib.optim.lr_scheduler.SequentialLR(opt, [warm, steps], milestones=[1, 2]),
    )


def p_consistency(lib, dt, rec):
    """EfficientZero's self-supervised consistency: projection + BN1d + predictor, negative
    cosine similarity against a detached target branch; an LSTM value prefix."""
    nn = lib.nn
    lib.manual_seed(36)
    hid = 8
    proj = nn.Sequential(nn.Linear(hid, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 16))
    pred = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 16))
    lstm = nn.LSTM(hid, 6, batch_first=True)
    head = nn.Linear(6, 11)
    nn.ModuleList([proj, pred, lstm, head]).to(dt)
    g = lib.Generator().manual_seed(37)
    h_dyn = lib.randn(5, 3, hid, generator=g, dtype=dt, requires_grad=True)
    h_obs = lib.randn(5, 3, hid, generator=g, dtype=dt)
    online = pred(proj(h_dyn.reshape(-1, hid)))
    with lib.no_grad():
        target = proj(h_obs.reshape(-1, hid))
    cos = nn.functional.cosine_similarity(online, target, dim=-1)
    loss_c = -cos.mean()
    rec("cos", cos)
    out, (hn, cn) = lstm(h_dyn)
    prefix = head(out)
    rec("prefix", prefix.sum(-1))
    rec("hn", hn)
    tgt = lib.randint(0, 11, (5, 3), generator=g)
    loss_r = nn.functional.cross_entropy(prefix.transpose(1, 2), tgt)
    rec("loss_r", loss_r)
    (loss_c + loss_r).backward()
    rec("g_h", h_dyn.grad)
    rec("g_lstm", lstm.weight_hh_l0.grad)
    rec("g_proj", proj[0].weight.grad)
    unit = nn.functional.normalize
    rec("norm_cos", (unit(online, dim=1) * unit(target, dim=1)).sum(1))
    rec("pdist", lib.cdist(online.detach()[:3], target[:3]))
    rec("lstm_repr", repr(lstm))
    # value prefix reset every horizon: hidden state zeroed with masked multiply
    reset = lib.tensor([1, 0, 1, 1, 0], dtype=dt).view(1, 5, 1)
    rec("reset", (hn * reset).sum(-1))


def p_numpy_game(lib, dt, rec):
    """Game logic in NumPy, networks in torch: the conversions AlphaZero repos make
    (from_numpy, as_tensor of a list of arrays, legacy typed constructors, .numpy() back)."""
    rng = np.random.default_rng(38)
    boards = [rng.integers(-1, 2, (3, 3)).astype(np.int64) for _ in range(4)]
    t1 = lib.as_tensor(np.array(boards), dtype=dt)
    rec("as_tensor", t1)
    t2 = lib.FloatTensor(np.array(boards).astype(np.float32))
    rec("FloatTensor", t2)
    t3 = lib.LongTensor([[1, 2], [3, 4]])
    rec("LongTensor", t3)
    rec("DoubleTensor", lib.DoubleTensor([0.5, 1.5]))
    t4 = lib.from_numpy(boards[0]).to(dt)
    rec("from_numpy", t4)
    rec("stack_np", lib.stack([lib.from_numpy(b) for b in boards]).sum(0))
    pi = np.array([0.1, 0.2, 0.7])
    rec("tensor_np64", lib.tensor(pi))
    rec("tensor_np64_f", lib.tensor(pi, dtype=lib.float32))
    rec("np_scalar_mul", lib.ones(2, dtype=dt) * np.float64(0.5))
    rec("np_int_index", lib.arange(5)[np.int64(2)])
    rec("np_arr_index", lib.arange(10)[np.array([1, 3, 5])])
    v = lib.tensor([0.25], dtype=dt)
    rec("item", v.item())
    rec("float", float(v))
    rec("tolist", lib.tensor([[0.5, 0.25]], dtype=dt).tolist())
    back = lib.softmax(lib.tensor([1.0, 2.0, 3.0], dtype=dt), 0).detach().cpu().numpy()
    rec("numpy", back)
    rec("np_choice", str(np.random.default_rng(39).choice(3, p=back / back.sum())))
    rec("from_list_of_0d", lib.tensor([lib.tensor(1.5), lib.tensor(2.5)]))
    rec.err("list_of_1d", lambda: lib.tensor([lib.ones(2), lib.ones(2)]))
    rec.err("numpy_grad", lambda: lib.ones(2, requires_grad=True).numpy())
    rec.err("float_multi", lambda: float(lib.ones(2)))
    rec.err("long_from_float", lambda: lib.LongTensor([0.5, 1.5]))
    rec.err("ft_str", lambda: lib.FloatTensor("abc"))


def p_dtype_arith(lib, dt, rec):
    """The dtype rules visit-count arithmetic leans on: long ** float, long / long, int8 boards
    times floats, sums of bools."""
    visits = lib.tensor([0, 3, 9, 1])
    rec("pow_f", visits ** (1 / 0.5))
    rec("pow_i", visits**2)
    rec("pow_t", visits.pow(lib.tensor(0.5, dtype=dt)))
    rec("div", visits / visits.sum())
    rec("floordiv", visits // 2)
    rec("true_div_int", lib.true_divide(visits, 4))
    rec("mul_f", visits * 0.5)
    rec("add_t", visits + lib.tensor([0.5], dtype=dt))
    rec("bool_sum", (visits > 0).sum())
    rec("bool_mean", (visits > 0).to(dt).mean())
    rec("bool_add", (visits > 0) + (visits > 2))
    rec("bool_mul_f", (visits > 0) * 0.5)
    rec("int8_f", lib.tensor([1, -1], dtype=lib.int8) * lib.tensor(0.5, dtype=dt))
    rec("int8_long", lib.tensor([1, -1], dtype=lib.int8) + lib.tensor([100, 200]))
    rec("uint8_over", lib.tensor([250], dtype=lib.uint8) + 10)
    rec("where_scal", lib.where(visits > 2, 1.0, 0.0))
    rec("where_mixed", lib.where(visits > 2, visits, 0.5))
    rec("clamp_int", visits.clamp(min=0.5))
    rec("max_int_f", lib.maximum(visits, lib.tensor(2.5, dtype=dt)))
    rec("argmax_bool", (visits > 2).int().argmax())
    rec("sqrt_int", lib.sqrt(visits))
    rec("log_int", lib.log1p(visits))
    rec("softmax_int_dtype", lib.softmax(visits, 0, dtype=dt))
    rec.err("softmax_int", lambda: lib.softmax(visits, 0))
    rec.err("log_softmax_int", lambda: lib.log_softmax(visits, 0))
    rec.err("mn_int", lambda: lib.multinomial(visits, 1))
    rec.err("mean_int", lambda: visits.mean())
    rec.err("div_", lambda: visits.div_(2))
    rec.err("pow_neg", lambda: visits**-1)
    rec("nan_argmax", lib.tensor([0.1, math.nan, 0.3], dtype=dt).argmax())
    rec("nan_max", lib.tensor([0.1, math.nan, 0.3], dtype=dt).max())
    rec("nan_maxdim", lib.tensor([[0.1, math.nan, 0.3]], dtype=dt).max(1).indices)
    rec("inf_argmax", lib.tensor([-math.inf, -math.inf], dtype=dt).argmax())


def p_reprs(lib, dt, rec):
    """What people print while debugging self-play: policies, masked logits, values with their
    grad_fn, boards of small ints, masks."""
    lib.manual_seed(40)
    logits = lib.randn(2, 5, dtype=dt, requires_grad=True)
    legal = lib.tensor([[True, False, True, True, False], [False, False, True, False, True]])
    masked = logits.masked_fill(~legal, float("-inf"))
    rec("masked", repr(masked))
    p = lib.softmax(masked, -1)
    rec("p", repr(p))
    rec("p_detached", str(p.detach()))
    v = lib.tanh(logits.sum(1))
    rec("v", repr(v))
    rec("v0", repr(v[0]))
    rec("sq", repr(v.unsqueeze(1).squeeze(1)))
    board = lib.tensor([[1, 0, -1], [0, 1, 0], [-1, 0, 0]], dtype=lib.int8)
    rec("board", repr(board))
    rec("legal", repr(legal))
    rec("uint8", repr(board.to(lib.uint8)))
    rec("tiny", repr(lib.tensor([1e-8, 0.5, 1.0], dtype=dt)))
    rec("big", repr(lib.tensor([12345.678, 0.001], dtype=dt)))
    rec("visits", repr(lib.tensor([0.0, 12.0, 30.0], dtype=dt)))
    rec("pi", repr(lib.tensor([0.0, 12.0, 30.0], dtype=dt) / 42))
    rec("nan", repr(lib.tensor([math.nan, -math.inf, 1.0], dtype=dt)))
    rec("half", repr(lib.tensor([0.1, 0.2], dtype=lib.float16)))
    rec("scal", repr(lib.tensor(0.125, dtype=dt)))
    rec("empty", repr(lib.zeros(0, 3, dtype=dt)))
    rec("topk", repr(lib.topk(lib.tensor([0.1, 0.5, 0.3], dtype=dt), 2)))
    rec("max", repr(lib.tensor([[0.1, 0.5, 0.3]], dtype=dt).max(1)))
    rec("dist", repr(lib.distributions.Categorical(logits=masked.detach())))
    rec("dirichlet", repr(lib.distributions.Dirichlet(lib.full((3,), 0.3, dtype=dt))))
    rec("size", repr(board.shape))
    rec("dtype", repr(board.dtype))
    rec("param", repr(lib.nn.Parameter(lib.ones(2, dtype=dt))))
    with lib.no_grad():
        rec("nograd", repr(logits * 2))


def p_user_mistakes(lib, dt, rec):
    """Mistakes AlphaZero code makes: value of shape (B, 1) against targets (B,), uint8 masks,
    BatchNorm on one position in train mode, forgetting the batch dimension, wrong target
    dtypes."""
    nn = lib.nn
    F = nn.functional
    net = _pvnet(lib, dt, seed=41, blocks=1)
    x, legal = _boards(lib, dt, b=4, seed=42)
    logits, v = net(x)
    z = lib.tensor([1.0, -1.0, 0.0, 1.0], dtype=dt)
    loss = rec.warns("mse_bcast", lambda: F.mse_loss(v.unsqueeze(1), z))
    rec("mse_bcast_val", loss)
    rec("mse_ok", F.mse_loss(v, z))
    rec.err("mse_bad", lambda: F.mse_loss(v[:3].unsqueeze(1), z.unsqueeze(0)[:, :2]))
    rec.err("uint8_mask", lambda: logits.masked_fill(legal.to(lib.uint8), 0.0))
    rec.err("mask_shape", lambda: logits.masked_fill(legal[:, :5], 0.0))
    rec.err("bn_single", lambda: net(x[:1]))
    rec.err("no_batch", lambda: net(x[0]))
    rec.err("ce_long_target_f", lambda: F.cross_entropy(logits, z))
    rec.err("ce_target_oob", lambda: F.cross_entropy(logits, lib.tensor([0, 1, 30, 2])))
    rec.err("ce_int_target", lambda: F.cross_entropy(logits, lib.tensor([0, 1, 3, 2]).int()))
    rec.err("nll_shape", lambda: F.nll_loss(logits, lib.tensor([0, 1])))
    rec.err("one_hot_small", lambda: F.one_hot(lib.tensor([0, 5]), 4))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([0, -1]), 4))
    rec.err("one_hot_float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 4))
    rec.err("stale_backward", lambda: _backward_twice(lib, net, x))
    rec.err("inplace_leaf", lambda: next(net.parameters()).add_(1.0))
    rec.err("cat_dtype", lambda: lib.cat([x, legal.view(4, 1, 1, 26)], 3))
    rec.err("stack_shapes", lambda: lib.stack([x[0], x[1, :2]]))
    rec.err("view_noncontig", lambda: x.transpose(2, 3).view(4, -1))
    rec.err("load_strict", lambda: net.load_state_dict({"p_fc.weight": lib.zeros(3)}))
    res = net.load_state_dict(
        {"p_fc.bias": lib.zeros(26, dtype=dt), "junk": lib.ones(1)}, strict=False
    )
    rec("incompat", str(res.unexpected_keys) + str(len(res.missing_keys)))
    rec.err("load_shape", lambda: net.load_state_dict({"p_fc.bias": lib.zeros(3)}, strict=False))


def _backward_twice(lib, net, x):
    logits, v = net(x)
    loss = v.sum() + logits.sum()
    loss.backward()
    loss.backward()


def p_sampling_ops(lib, dt, rec):
    """The random ops behind exploration: gumbel_softmax (hard and soft), exponential_ Gumbel
    noise, Bernoulli resign checks, uniform_, random_ and normal_ under one seed."""
    F = lib.nn.functional
    lib.manual_seed(43)
    logits = lib.randn(3, 6, dtype=dt)
    soft = F.gumbel_softmax(logits, tau=0.5)
    rec("soft", soft)
    hard = F.gumbel_softmax(logits, tau=1.0, hard=True)
    rec("hard", hard)
    w = lib.ones(3, 6, dtype=dt, requires_grad=True)
    F.gumbel_softmax(logits * w, hard=True).mul(lib.arange(6, dtype=dt)).sum().backward()
    rec("hard_grad_shape", str(w.grad.shape))
    e = lib.empty(3, 6, dtype=dt).exponential_()
    rec("exp", e)
    rec("gumbel_exp", (logits - e.log()).argmax(-1))
    u = lib.empty(4, dtype=dt).uniform_(-1, 1)
    rec("uniform", u)
    r = lib.empty(5, dtype=lib.long).random_(0, 9)
    rec("random", r)
    nrm = lib.empty(3, dtype=dt).normal_(0.0, 0.5)
    rec("normal", nrm)
    resign = lib.bernoulli(lib.full((8,), 0.1, dtype=dt))
    rec("bern", resign)
    rec("bern_p", lib.empty(4, dtype=dt).bernoulli_(0.7))
    rec("rand_like", lib.rand_like(logits[0]))
    rec("randn_like", lib.randn_like(logits[0]))
    rec("randint_like", lib.randint_like(logits[0], 10))
    rec("randint_dtype", lib.randint(3, 9, (4,), dtype=lib.int32))
    rec("normal_fn", lib.normal(lib.zeros(3, dtype=dt), lib.tensor([1.0, 2.0, 3.0], dtype=dt)))
    rec("rng_state", lib.equal(lib.get_rng_state(), lib.get_rng_state()))
    st = lib.get_rng_state()
    a = lib.rand(3, dtype=dt)
    lib.set_rng_state(st)
    rec("replay", lib.equal(a, lib.rand(3, dtype=dt)))
    gen = lib.Generator()
    rec("gen_seed", gen.manual_seed(5).initial_seed())
    rec("fork", lib.rand(2, generator=gen, dtype=dt))
    rec.err("gumbel_dim", lambda: F.gumbel_softmax(logits, dim=3))
    rec.err("exp_neg", lambda: lib.empty(2, dtype=dt).exponential_(-1.0))
    rec.err("uniform_bad", lambda: lib.empty(2, dtype=dt).uniform_(1, 0))
    rec.err("bern_bad", lambda: lib.bernoulli(lib.tensor([1.5], dtype=dt)))


def p_katago_pool(lib, dt, rec):
    """KataGo's global pooling over boards of mixed sizes (a mask plane): masked mean, mean
    scaled by (sqrt(area) - 14) / 10, masked max; a squeeze-excitation block (Leela Zero)."""
    nn = lib.nn
    lib.manual_seed(44)
    B, C, n = 3, 4, 7
    x = lib.randn(B, C, n, n, dtype=dt, requires_grad=True)
    sizes = lib.tensor([7, 5, 6])
    r = lib.arange(n)
    mask = (r.view(1, n, 1) < sizes.view(B, 1, 1)) & (r.view(1, 1, n) < sizes.view(B, 1, 1))
    mask = mask.unsqueeze(1).to(dt)
    area = mask.sum((2, 3), keepdim=True)
    mean = (x * mask).sum((2, 3), keepdim=True) / area
    scaled = mean * (area.sqrt() - 14.0) / 10.0
    mx = (x + (mask - 1.0) * 1e4).amax(dim=(2, 3), keepdim=True)
    pooled = lib.cat([mean, scaled, mx], dim=1).flatten(1)
    rec("area", area.flatten())
    rec("pooled", pooled)
    (pooled**2).sum().backward()
    rec("g_x", x.grad)
    # squeeze-excitation: global average pool, FC, ReLU, FC to 2C, chunk into scale and bias
    fc1 = nn.Linear(C, 2).to(dt)
    fc2 = nn.Linear(2, 2 * C).to(dt)
    s = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
    gamma, beta = fc2(lib.relu(fc1(s))).chunk(2, dim=1)
    y = x * lib.sigmoid(gamma)[..., None, None] + beta[:, :, None, None]
    rec("se", y.sum((2, 3)))
    rec("avgpool", nn.AdaptiveAvgPool2d((1, 1))(x).squeeze())
    rec("maxpool_g", nn.functional.adaptive_max_pool2d(x, 1, return_indices=True)[1].flatten(1))
    rec("avg_eq", lib.allclose(s, x.mean((-1, -2))))
    y.sum().backward()
    rec("g_fc1", fc1.weight.grad)


def p_attention_policy(lib, dt, rec):
    """Leela Chess's attention policy head: per-square queries and keys, logits by einsum over
    64 x 64 from-to pairs, gathered into the legal-move list; a WDL value head."""
    nn = lib.nn
    lib.manual_seed(45)
    B, S, E = 2, 16, 8
    tokens = lib.randn(B, S, 12, dtype=dt)
    emb = nn.Linear(12, E).to(dt)
    q_proj = nn.Linear(E, E).to(dt)
    k_proj = nn.Linear(E, E).to(dt)
    h = lib.nn.functional.gelu(emb(tokens))
    q, k = q_proj(h), k_proj(h)
    logits = lib.einsum("bie,bje->bij", q, k) / math.sqrt(E)
    rec("att", logits)
    rec("att_mm", lib.allclose(logits, q @ k.transpose(1, 2) / math.sqrt(E)))
    moves = lib.tensor([[0, 5], [3, 3], [15, 0], [7, 8]])
    flat = moves[:, 0] * S + moves[:, 1]
    move_logits = logits.flatten(1)[:, flat]
    rec("move_logits", move_logits)
    rec("take_along", lib.take_along_dim(logits.flatten(1), flat.expand(B, -1), dim=1))
    rec("unravel", str(lib.unravel_index(flat, (S, S))))
    pol = lib.log_softmax(move_logits, -1)
    rec("pol", pol)
    wdl_head = nn.Sequential(nn.Flatten(), nn.Linear(S * E, 3)).to(dt)
    wdl = lib.softmax(wdl_head(h), -1)
    rec("wdl", wdl)
    rec("q_value", wdl[:, 0] - wdl[:, 2])
    tgt = lib.tensor([[0.7, 0.2, 0.1], [0.0, 1.0, 0.0]], dtype=dt)
    loss = (
        nn.functional.cross_entropy(wdl_head(h), tgt) - (lib.softmax(move_logits, -1)[:, 0]).mean()
    )
    loss.backward()
    rec("loss", loss)
    rec("g_q", q_proj.weight.grad)
    rec("g_emb", emb.bias.grad)
    rec("ein_trace", lib.einsum("bii->b", logits))
    rec("ein_outer", lib.einsum("i,j->ij", lib.arange(3.0, dtype=dt), lib.arange(2.0, dtype=dt)))
    rec.err("ein_bad", lambda: lib.einsum("bij,bjk->bik", q, k))


def p_init_schemes(lib, dt, rec):
    """Initialisation as game nets do it: kaiming for convs (fan_out, relu), zero-init of each
    residual block's last BN gamma, xavier for heads, net.apply; parameters_to_vector."""
    nn = lib.nn
    lib.manual_seed(46)
    net = _pvnet(lib, dt, seed=46, blocks=2)

    def init(m):
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.constant_(m.weight, 1.0)
            nn.init.constant_(m.bias, 0.0)

    lib.manual_seed(47)
    net.apply(init)
    for blk in net.tower:
        nn.init.zeros_(blk.bn2.weight)
    rec.params("p", net)
    vec = nn.utils.parameters_to_vector(net.parameters())
    rec("vec_norm", vec.norm())
    rec("vec_len", vec.numel())
    nn.utils.vector_to_parameters(vec * 0.5, net.parameters())
    rec("halved", net.p_fc.weight)
    rec("gain", [nn.init.calculate_gain(n) for n in ("relu", "tanh", "linear", "sigmoid")])
    rec("leaky", nn.init.calculate_gain("leaky_relu", 0.2))
    w = lib.empty(4, 3, 3, 3, dtype=dt)
    nn.init.trunc_normal_(w, std=0.02)
    rec("trunc", w)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    rec("ku", w)
    nn.init.orthogonal_(w)
    rec("orth_gram", w.flatten(1) @ w.flatten(1).T)
    x, _ = _boards(lib, dt, b=2, seed=48)
    net.eval()
    with lib.no_grad():
        logits, v = net(x)
    rec("out", logits)
    rec("v", v)
    rec.err("gain_bad", lambda: nn.init.calculate_gain("swish"))
    rec.err("kaiming_1d", lambda: nn.init.kaiming_normal_(lib.empty(3, dtype=dt)))


def p_transposition(lib, dt, rec):
    """A transposition table over position hashes: unique with inverse and counts, isin lookups,
    scatter_reduce mean of duplicate values, argwhere, index_fill_, masked_scatter_."""
    g = lib.Generator().manual_seed(49)
    boards = lib.randint(0, 3, (12, 3, 3), generator=g)
    boards[6:9] = boards[0:3]
    hashes = (boards.flatten(1) * 3 ** lib.arange(9)).sum(1)
    rec("hashes", hashes)
    uniq, inv, cnt = lib.unique(hashes, return_inverse=True, return_counts=True)
    rec("uniq", uniq)
    rec("inv", inv)
    rec("cnt", cnt)
    ub, binv = lib.unique(boards, dim=0, return_inverse=True)
    rec("ub_n", ub.shape[0])
    rec("binv", binv)
    uc, ucnt = lib.unique_consecutive(lib.sort(hashes).values, return_counts=True)
    rec("ucnt", ucnt)
    values = lib.linspace(-1, 1, 12, dtype=dt)
    mean_v = lib.zeros(uniq.numel(), dtype=dt).scatter_reduce(
        0, inv, values, "mean", include_self=False
    )
    rec("mean_v", mean_v)
    rec("sum_v", lib.zeros(uniq.numel(), dtype=dt).index_add(0, inv, values))
    seen = hashes[:4]
    rec("isin", lib.isin(hashes, seen))
    rec("isin_inv", lib.isin(hashes, seen, invert=True))
    rec("argwhere", lib.argwhere(cnt > 1))
    t = lib.zeros(6, dtype=dt)
    t.index_fill_(0, lib.tensor([1, 4]), -1.0)
    rec("index_fill", t)
    m = lib.tensor([True, False, True, False, False, True])
    t.masked_scatter_(m, lib.tensor([7.0, 8.0, 9.0, 10.0], dtype=dt))
    rec("masked_scatter", t)
    rec("put", lib.zeros(2, 3, dtype=dt).put_(lib.tensor([0, 5]), lib.tensor([1.0, 2.0], dtype=dt)))
    rec("take", lib.take(boards[0], lib.tensor([0, 4, 8])))
    rec("sorted_h", lib.sort(hashes, stable=True).indices)
    rec("mode", str(lib.mode(lib.tensor([3, 1, 3, 2, 1]))))
    rec.err("masked_scatter_few", lambda: t.masked_scatter_(m, lib.ones(2, dtype=dt)))
    rec.err("sr_bad", lambda: t.scatter_reduce(0, lib.tensor([0]), t[:1], "avg"))


def p_vmap_ensemble(lib, dt, rec):
    """An ensemble of value heads run with torch.func: stack_module_state + functional_call
    under vmap, and per-sample gradients of the AlphaZero loss with vmap(grad)."""
    nn = lib.nn
    fn = lib.func
    lib.manual_seed(50)
    heads = [nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1)).to(dt) for _ in range(3)]
    params, buffers = fn.stack_module_state(heads)
    base = copy.deepcopy(heads[0]).to("meta")
    x = lib.randn(5, 6, dtype=dt)

    def one(p, b, xx):
        return fn.functional_call(base, (p, b), (xx,))

    out = fn.vmap(one, in_dims=(0, 0, None))(params, buffers, x)
    rec("ens", out.squeeze(-1))
    rec("ens_ref", lib.stack([h(x) for h in heads]).squeeze(-1))
    rec("ens_std", out.std(0).squeeze(-1))
    model = heads[0]
    p0 = {k: v.detach() for k, v in model.named_parameters()}
    z = lib.tensor([1.0, -1.0, 0.0, 1.0, -1.0], dtype=dt)

    def loss_fn(p, xx, zz):
        v = fn.functional_call(model, p, (xx.unsqueeze(0),)).squeeze()
        return (lib.tanh(v) - zz) ** 2

    per = fn.vmap(fn.grad(loss_fn), in_dims=(None, 0, 0))(p0, x, z)
    rec("per_sample_w", per["0.weight"].sum((1, 2)))
    rec("per_sample_b", per["2.bias"])
    pg = {k: v.clone().requires_grad_() for k, v in p0.items()}
    total = lib.stack([loss_fn(pg, x[i], z[i]) for i in range(5)]).sum()
    full = lib.autograd.grad(total, list(pg.values()))
    rec("sum_eq", lib.allclose(per["2.bias"].sum(0), full[3]))
    jac = fn.jacrev(lambda xx: lib.tanh(model(xx)).squeeze(-1))(x[:2])
    rec("jac", jac)


def p_double_backward(lib, dt, rec):
    """Second derivatives through the masked policy loss (a gradient penalty / Hessian-vector
    product as used in sharpness checks): log_softmax of -inf-masked logits, tanh values."""
    g = lib.Generator().manual_seed(51)
    logits = lib.randn(3, 6, generator=g, dtype=dt, requires_grad=True)
    legal = lib.tensor([[1, 1, 0, 1, 0, 1], [0, 1, 1, 1, 1, 1], [1, 0, 0, 0, 0, 1]]).bool()
    pi = lib.softmax(lib.rand(3, 6, generator=g, dtype=dt).masked_fill(~legal, -math.inf), -1)
    logp = lib.log_softmax(logits.masked_fill(~legal, -math.inf), -1)
    loss = -(pi * logp.masked_fill(~legal, 0)).sum()
    (gr,) = lib.autograd.grad(loss, logits, create_graph=True)
    rec("g", gr)
    pen = (gr**2).sum()
    (gg,) = lib.autograd.grad(pen, logits)
    rec("gg", gg)
    v = lib.tensor([0.3, -0.2, 0.9], dtype=dt, requires_grad=True)
    val = lib.tanh(v * 2)
    (dv,) = lib.autograd.grad(val.sum(), v, create_graph=True)
    (d2v,) = lib.autograd.grad(dv.sum(), v)
    rec("dv", dv)
    rec("d2v", d2v)
    # hvp via autograd.functional on the softmax cross-entropy
    f = lambda z: -(pi * lib.log_softmax(z.masked_fill(~legal, -1e4), -1)).sum()  # noqa: E731
    _, hv = lib.autograd.functional.hvp(f, logits.detach(), lib.ones(3, 6, dtype=dt))
    rec("hvp", hv)
    if dt == lib.float64:
        ok = lib.autograd.gradcheck(
            lambda z: lib.softmax(z.masked_fill(~legal, -math.inf), -1),
            (logits.detach().clone().requires_grad_(),),
        )
        rec("gradcheck", ok)
        ok2 = lib.autograd.gradgradcheck(
            lambda z: _h(lib, z), (lib.tensor([0.5, -2.0, 3.0], dtype=dt, requires_grad=True),)
        )
        rec("gradgradcheck", ok2)


def p_sched_edges(lib, dt, rec):
    """MultiStepLR with repeated milestones (a Counter: gamma squared), an unsorted list, a
    step past the last milestone; chained and closed-form lr; state round trip."""
    w = lib.nn.Parameter(lib.ones(2, dtype=dt))
    opt = lib.optim.SGD([w], lr=1.0, momentum=0.9, dampening=0.1, weight_decay=0.01)
    s = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[4, 2, 2], gamma=0.5)
    rec("milestones", str(sorted(s.milestones.items())))
    lrs = []
    for _ in range(6):
        opt.zero_grad()
        (w**2).sum().backward()
        opt.step()
        s.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("lrs", lrs)
    rec("w", w)
    rec("closed", s._get_closed_form_lr())
    sd = s.state_dict()
    s2 = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[1], gamma=0.9)
    s2.load_state_dict(sd)
    rec("loaded", str(sorted(s2.milestones.items())) + str(s2.last_epoch))
    opt2 = lib.optim.SGD([w], lr=0.2, momentum=0.9, maximize=True)
    opt2.zero_grad()
    (w**2).sum().backward()
    opt2.step()
    rec("maximize", w)
    st = opt2.state_dict()
    rec("opt_sd", str(st["param_groups"]))
    rec.err("sched_bad_opt", lambda: lib.optim.lr_scheduler.MultiStepLR(object(), [1]))
    rec.err("step_lr_zero", lambda: lib.optim.lr_scheduler.StepLR(opt, step_size=0))


def p_azg_othello(lib, dt, rec):
    """alpha-zero-general's Othello net and training step as that repo writes it: unpadded
    convs, BatchNorm1d on the FC layers, dropout keyed on self.training, log_softmax policy,
    exp back to probabilities, losses by torch.sum / targets.size()[0], Adam."""
    nn = lib.nn
    F = nn.functional
    n, ch, A = 6, 16, 37

    class OthelloNNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, ch, 3, stride=1, padding=1)
            self.conv2 = nn.Conv2d(ch, ch, 3, stride=1, padding=1)
            self.conv3 = nn.Conv2d(ch, ch, 3, stride=1)
            self.bn1 = nn.BatchNorm2d(ch)
            self.bn2 = nn.BatchNorm2d(ch)
            self.bn3 = nn.BatchNorm2d(ch)
            self.fc1 = nn.Linear(ch * (n - 2) * (n - 2), 32)
            self.fc_bn1 = nn.BatchNorm1d(32)
            self.fc2 = nn.Linear(32, A)
            self.fc3 = nn.Linear(32, 1)

        def forward(self, s):
            s = s.view(-1, 1, n, n)
            s = F.relu(self.bn1(self.conv1(s)))
            s = F.relu(self.bn2(self.conv2(s)))
            s = F.relu(self.bn3(self.conv3(s)))
            s = s.view(-1, ch * (n - 2) * (n - 2))
            s = F.dropout(F.relu(self.fc_bn1(self.fc1(s))), p=0.3, training=self.training)
            pi = self.fc2(s)
            v = self.fc3(s)
            return F.log_softmax(pi, dim=1), lib.tanh(v)

    lib.manual_seed(52)
    net = OthelloNNet().to(dt)
    # a bias before BatchNorm has a zero gradient up to rounding noise, which Adam scales to
    # +-lr: the two libraries' noise differs, so those biases are frozen here
    for layer in (net.conv1, net.conv2, net.conv3, net.fc1):
        layer.bias.requires_grad_(False)
    opt = lib.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=1e-3)
    rng = np.random.default_rng(53)
    boards = rng.integers(-1, 2, (8, n, n)).astype(np.float64)
    pis = rng.dirichlet(np.ones(A), 8)
    vs = rng.choice([-1.0, 1.0], 8)
    for epoch in range(3):
        net.train()
        b = lib.tensor(boards, dtype=dt)
        target_pis = lib.tensor(np.array(pis), dtype=dt)
        target_vs = lib.tensor(np.array(vs).astype(np.float64), dtype=dt)
        out_pi, out_v = net(b)
        l_pi = -lib.sum(target_pis * out_pi) / target_pis.size()[0]
        l_v = lib.sum((target_vs - out_v.view(-1)) ** 2) / target_vs.size()[0]
        total = l_pi + l_v
        opt.zero_grad()
        total.backward()
        opt.step()
        rec(f"l_pi{epoch}", l_pi.item())
        rec(f"l_v{epoch}", l_v)
    net.eval()
    with lib.no_grad():
        pi, v = net(lib.tensor(boards[0], dtype=dt))
    probs = lib.exp(pi).data.cpu().numpy()[0]
    rec("probs", probs)
    rec("v", v.data.cpu().numpy()[0])
    rec("fc_bn1", net.fc_bn1.running_var)
    rec("adam_step", opt.state[net.fc2.weight]["step"])
    rec("adam_m", opt.state[net.fc2.weight]["exp_avg"])
    valids = np.zeros(A)
    valids[[0, 5, 36]] = 1
    masked = probs * valids
    rec("renorm", masked / np.sum(masked))


def _scalar_to_support(lib, x, support_size):
    """muzero-general's scalar_to_support, as that repo writes it."""
    x = lib.sign(x) * (lib.sqrt(lib.abs(x) + 1) - 1) + 0.001 * x
    x = lib.clamp(x, -support_size, support_size)
    floor = x.floor()
    prob = x - floor
    logits = lib.zeros(x.shape[0], x.shape[1], 2 * support_size + 1, dtype=x.dtype)
    logits.scatter_(2, (floor + support_size).long().unsqueeze(-1), (1 - prob).unsqueeze(-1))
    indexes = floor + support_size + 1
    prob = prob.masked_fill_(2 * support_size < indexes, 0.0)
    indexes = indexes.masked_fill_(2 * support_size < indexes, 0.0)
    logits.scatter_(2, indexes.long().unsqueeze(-1), prob.unsqueeze(-1))
    return logits


def _support_to_scalar(lib, logits, support_size):
    probabilities = lib.softmax(logits, dim=1)
    support = (
        lib.tensor([x for x in range(-support_size, support_size + 1)])
        .expand(probabilities.shape)
        .float()
        .to(device=probabilities.device)
    )
    x = lib.sum(support * probabilities, dim=1, keepdim=True)
    x = lib.sign(x) * (
        ((lib.sqrt(1 + 4 * 0.001 * (lib.abs(x) + 1 + 0.001)) - 1) / (2 * 0.001)) ** 2 - 1
    )
    return x


def p_muzero_general(lib, dt, rec):
    """muzero-general's support helpers, normalised hidden state, gradient scaling by a hook and
    the prioritised loss weighting, as that repo writes them."""
    S = 20
    g = lib.Generator().manual_seed(54)
    target_value = lib.randn(4, 6, generator=g, dtype=dt) * 30
    target_value[0, 0] = 500.0
    enc = _scalar_to_support(lib, target_value, S)
    rec("enc_sum", enc.sum(-1))
    rec("enc_nz", lib.count_nonzero(enc, -1))
    rec("enc_argmax", enc.argmax(-1))
    logits = lib.randn(4, 2 * S + 1, generator=g, dtype=dt)
    x = _support_to_scalar(lib, logits, S)
    rec("scalar.dtype_from_float_support", str(x.dtype))
    rec("scalar", x.double() if dt == lib.float64 else (lib.softmax(logits, 1).sum(1)))
    hidden = lib.randn(4, 8, generator=g, dtype=dt, requires_grad=True)
    min_enc = hidden.min(1, keepdim=True)[0]
    max_enc = hidden.max(1, keepdim=True)[0]
    scale = max_enc - min_enc
    scale[scale < 1e-5] += 1e-5
    norm = (hidden - min_enc) / scale
    rec("norm", norm)
    norm.register_hook(lambda grad: grad * 0.5)
    value_loss = -(enc[:, 0, :8] * lib.nn.LogSoftmax(dim=1)(norm)).sum(1)
    weight_batch = lib.tensor([1.0, 0.5, 0.25, 0.125], dtype=dt)
    loss = (value_loss * weight_batch).mean()
    loss.backward()
    rec("loss", loss)
    rec("g_hidden", hidden.grad)
    priorities = (lib.abs(x.detach().squeeze(1) - target_value[:, 0].float()) ** 1.0).cpu()
    rec("priorities", priorities.numpy().astype(np.float64) if dt == lib.float64 else "f32")
    rec("dict_to_cpu", str({k: type(v).__name__ for k, v in {"a": lib.ones(1).cpu()}.items()}))


def p_selfplay_batch(lib, dt, rec):
    """Several self-play games evaluated together: moves per game split back by lengths,
    outcomes spread over positions by repeat_interleave, padded histories, masked_scatter of
    noise into the legal points of the priors."""
    rnn = lib.nn.utils.rnn
    lengths = lib.tensor([3, 1, 4])
    g = lib.Generator().manual_seed(55)
    values = lib.randn(int(lengths.sum()), generator=g, dtype=dt).tanh()
    per_game = lib.split(values, lengths.tolist())
    rec("split", str([tuple(t.shape) for t in per_game]))
    rec("split_last", per_game[-1])
    outcome = lib.tensor([1.0, -1.0, 0.0], dtype=dt)
    z = lib.repeat_interleave(outcome, lengths)
    rec("z", z)
    rec("ri_int", lib.repeat_interleave(lib.tensor([2, 1])))
    rec("game_id", lib.arange(3).repeat_interleave(lengths))
    moves = [lib.tensor([4, 2, 7]), lib.tensor([1]), lib.tensor([0, 3, 5, 8])]
    padded = rnn.pad_sequence(moves, batch_first=True, padding_value=-1)
    rec("padded", padded)
    rec("padded_tm", rnn.pad_sequence(moves))
    packed = rnn.pack_sequence(moves, enforce_sorted=False)
    rec("packed_data", packed.data)
    rec("packed_bs", packed.batch_sizes)
    unpacked, lens = rnn.pad_packed_sequence(packed, batch_first=True)
    rec("unpacked", unpacked)
    rec("lens", lens)
    legal = lib.rand(3, 9, generator=g) < 0.6
    prior = lib.softmax(lib.randn(3, 9, generator=g, dtype=dt).masked_fill(~legal, -math.inf), 1)
    noise = lib.distributions.Dirichlet(lib.full((int(legal.sum()),), 0.3, dtype=dt))
    lib.manual_seed(56)
    eta = noise.sample()
    mixed = prior.masked_scatter(legal, 0.75 * prior[legal] + 0.25 * eta)
    rec("mixed", mixed)
    rec("mixed_sum", mixed.sum(1))
    buf = lib.zeros(3, 9, dtype=dt)
    buf.masked_scatter_(legal, eta)
    rec("scattered", buf)
    rec.err("ms_dtype", lambda: prior.masked_scatter(legal, eta.to(lib.float16)))
    rec.err("ms_long_mask", lambda: prior.masked_scatter(legal.long(), eta))
    rec.err("ms_int_mask", lambda: buf.masked_scatter_(legal.int(), eta))
    rec.err("ms_short", lambda: buf.masked_scatter_(legal, eta[:2]))
    old_mask = legal.to(lib.uint8)  # pre-1.2 code kept masks as uint8
    rec.warns(
        "ms_uint8_warns",
        lambda: rec.err("ms_uint8", lambda: buf.masked_scatter_(old_mask, eta)),
    )
    rec.warns(
        "ms_uint8_dtype",
        lambda: rec.err("ms_uint8_dt", lambda: prior.masked_scatter(old_mask, eta.long())),
    )
    rec("chunk", str([t.shape for t in values.chunk(3)]))
    rec("tensor_split", str([t.tolist() for t in lib.tensor_split(lib.arange(8), [3, 4])]))


def p_stochastic_muzero(lib, dt, rec):
    """Stochastic MuZero's chance outcomes: an encoder with a straight-through one-hot code,
    afterstate dynamics conditioned on the code, a Categorical chance distribution trained to
    predict the code."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(57)
    C = 5
    enc = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, C)).to(dt)
    chance_head = nn.Linear(8, C).to(dt)
    dyn = nn.Linear(8 + C, 8).to(dt)
    obs = lib.randn(4, 6, dtype=dt)
    after = lib.randn(4, 8, dtype=dt, requires_grad=True)
    logits = enc(obs)
    probs = lib.softmax(logits, -1)
    hard = F.one_hot(probs.argmax(-1), C).to(dt)
    code = hard + probs - probs.detach()
    rec("code", code)
    nxt = lib.tanh(dyn(lib.cat([after, code], -1)))
    dist = lib.distributions.Categorical(logits=chance_head(after))
    chance_loss = -dist.log_prob(code.argmax(-1)).mean()
    commit = F.mse_loss(probs, hard.detach())
    loss = nxt.pow(2).mean() + chance_loss + 0.1 * commit
    loss.backward()
    rec("loss", loss)
    rec("g_enc", enc[2].weight.grad)
    rec("g_after", after.grad)
    rec("ent", dist.entropy())
    rec("mode", dist.mode)
    # sampling a chance outcome during search
    lib.manual_seed(58)
    rec("outcome", lib.distributions.OneHotCategorical(logits=chance_head(after)).sample())
    st = lib.distributions.OneHotCategoricalStraightThrough(logits=enc(obs))
    rs = st.rsample()
    rec("st_rsample", rs)
    (rs * lib.arange(C, dtype=dt)).sum().backward()
    rec("st_grad", enc[0].bias.grad)


def p_arena_elo(lib, dt, rec):
    """Arena evaluation of a new net against the best: win/draw/loss counts, the update threshold,
    Elo from the score, a Wilson interval by Normal.icdf, a Beta posterior on the win rate."""
    g = lib.Generator().manual_seed(59)
    results = lib.randint(-1, 2, (40,), generator=g)
    counts = lib.bincount(results + 1, minlength=3)
    rec("counts", counts)
    wins, draws, losses = counts.flip(0).tolist()
    score = (wins + 0.5 * draws) / len(results)
    rec("score", score)
    rec("accept", (wins / max(1, wins + losses)) >= 0.55)
    s = lib.tensor(score, dtype=dt)
    elo = -400 * lib.log10(1 / s - 1)
    rec("elo", elo)
    ra, rb = lib.tensor([1500.0, 1620.0], dtype=dt)
    expect = 1 / (1 + 10 ** ((rb - ra) / 400))
    rec("expect", expect)
    rec("expect_pow", 1 / (1 + lib.pow(10.0, (rb - ra) / 400)))
    rec("float_power", lib.float_power(lib.tensor([10], dtype=lib.int32), lib.tensor([0.5])))
    k = 32
    rec("new_ra", ra + k * (s - expect))
    zq = lib.distributions.Normal(lib.tensor(0.0, dtype=dt), 1.0).icdf(lib.tensor(0.975, dtype=dt))
    rec("z", zq)
    n = len(results)
    center = (s + zq**2 / (2 * n)) / (1 + zq**2 / n)
    half = zq * lib.sqrt(s * (1 - s) / n + zq**2 / (4 * n**2)) / (1 + zq**2 / n)
    rec("wilson", lib.stack([center - half, center + half]))
    post = lib.distributions.Beta(
        lib.tensor(1.0 + wins, dtype=dt), lib.tensor(1.0 + losses, dtype=dt)
    )
    rec("beta_mean", post.mean)
    rec("beta_lp", post.log_prob(lib.tensor(0.55, dtype=dt)))
    rec(
        "binom_lp",
        lib.distributions.Binomial(n, lib.tensor(0.5, dtype=dt)).log_prob(
            lib.tensor(float(wins), dtype=dt)
        ),
    )
    streak = (results == 1).int()
    runs = lib.cumsum(streak, 0) - lib.cummax(lib.cumsum(streak, 0) * (1 - streak), 0).values
    rec("longest_streak", runs.max())


def p_hooks_debug(lib, dt, rec):
    """What people attach while debugging a policy-value net: forward hooks collecting activation
    statistics, full backward hooks on the heads, retain_grad on the logits, anomaly mode,
    named_modules filtering, a dead-ReLU count."""
    net = _pvnet(lib, dt, seed=60)
    x, legal = _boards(lib, dt, b=4, seed=61)
    stats = {}

    def fwd_hook(name):
        def hook(module, inputs, output):
            stats[name] = (output.mean().item(), (output <= 0).to(dt).mean().item())

        return hook

    handles = [
        m.register_forward_hook(fwd_hook(n))
        for n, m in net.named_modules()
        if isinstance(m, lib.nn.ReLU | lib.nn.BatchNorm2d)
    ]
    grads = {}
    net.p_fc.register_full_backward_hook(
        lambda mod, gin, gout: grads.__setitem__("p_fc", (gin[0].norm(), gout[0].norm()))
    )
    net.v_fc2.register_full_backward_pre_hook(
        lambda mod, gout: grads.__setitem__("v_pre", gout[0].clone())
    )
    with lib.autograd.detect_anomaly():
        logits, v = net(x)
        logits.retain_grad()
        loss = -lib.log_softmax(logits.masked_fill(~legal, -1e9), 1)[:, -1].mean() + v.pow(2).mean()
        loss.backward()
    rec("stats", str(sorted(stats)))
    rec("stat_vals", [v for k in sorted(stats) for v in stats[k]])
    rec("p_fc_gin", grads["p_fc"][0])
    rec("p_fc_gout", grads["p_fc"][1])
    rec("v_pre", grads["v_pre"])
    rec("logits_grad", logits.grad)
    rec("is_leaf", [logits.is_leaf, net.p_fc.weight.is_leaf, x.is_leaf])
    for h in handles:
        h.remove()
    stats.clear()
    net(x)
    rec("after_remove", len(stats))
    rec("grad_fn", str(type(logits.grad_fn).__name__) + " " + str(type(v.grad_fn).__name__))
    rec("next_fns", str([type(f[0]).__name__ for f in v.grad_fn.next_functions]))
    rec("n_modules", len(list(net.named_modules())))
    rec("children", str([n for n, _ in net.named_children()]))
    rec("get_sub", str(net.get_submodule("tower.1.bn2")))
    rec.err("get_sub_bad", lambda: net.get_submodule("tower.5"))
    rec("get_param", net.get_parameter("v_fc2.bias"))


def p_target_network(lib, dt, rec):
    """MuZero Reanalyse / a target network: a deep copy refreshed every N steps with
    load_state_dict, or by a Polyak average with _foreach ops and lerp_; the target computed
    under a no_grad-decorated function."""
    net = _muzero(lib, dt, seed=62)
    target = copy.deepcopy(net)
    for p in target.parameters():
        p.requires_grad_(False)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    g = lib.Generator().manual_seed(63)
    obs = lib.randn(6, 6, generator=g, dtype=dt)

    @lib.no_grad()
    def reanalyse(model, o):
        h, p, v = model.initial(o)
        return lib.softmax(p, -1), v

    for step in range(4):
        tp, tv = reanalyse(target, obs)
        h, p, v = net.initial(obs)
        loss = -(tp * lib.log_softmax(p, -1)).sum(-1).mean() + (v - tv).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"tv_grad{step}", tv.requires_grad)
        if step % 2 == 1:
            target.load_state_dict(net.state_dict())
    rec(
        "synced",
        all(lib.equal(a, b) for a, b in zip(target.parameters(), net.parameters(), strict=True)),
    )
    # Polyak averaging three ways
    tau = 0.05
    t1 = copy.deepcopy(target)
    t2 = copy.deepcopy(target)
    with lib.no_grad():
        opt.zero_grad()
        for p in net.parameters():
            p.add_(0.1)
        for tp_, p in zip(t1.parameters(), net.parameters(), strict=True):
            tp_.mul_(1 - tau).add_(p, alpha=tau)
        tparams = list(t2.parameters())
        lib._foreach_mul_(tparams, 1 - tau)
        lib._foreach_add_(tparams, list(net.parameters()), alpha=tau)
        for tp_, p in zip(target.parameters(), net.parameters(), strict=True):
            tp_.lerp_(p, tau)
    rec("polyak", t1.pol.weight)
    rec("foreach_eq", lib.allclose(t1.pol.weight, t2.pol.weight))
    rec("lerp_eq", lib.allclose(t1.val.bias, target.val.bias))
    rec("requires_grad", [p.requires_grad for p in target.parameters()][:2])
    rec("no_grad_deco", reanalyse(net, obs)[1].requires_grad)
    rec.err("load_missing", lambda: target.load_state_dict({}))


def p_tictactoe_mcts(lib, dt, rec):
    """A whole MCTS for tic-tac-toe on tensors with a uniform-prior evaluator: win detection by
    index lines and all(), PUCT selection, expansion, random rollouts with multinomial,
    backups with alternating signs, and the visit distribution at the root."""
    lines = lib.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8],
                        [0, 4, 8], [2, 4, 6]])  # fmt: skip

    def winner(board):
        v = board[lines]
        return int(((v == 1).all(1)).any()) - int(((v == -1).all(1)).any())

    g = lib.Generator().manual_seed(64)
    tree = {}

    def key(board):
        return tuple(board.tolist())

    def rollout(board, player):
        board = board.clone()
        while True:
            w = winner(board)
            if w != 0 or not bool((board == 0).any()):
                return w
            empty = (board == 0).to(dt)
            mv = lib.multinomial(empty, 1, generator=g).item()
            board[mv] = player
            player = -player

    def simulate(board, player):
        k = key(board)
        w = winner(board)
        if w != 0 or not bool((board == 0).any()):
            return -w * player * -1
        if k not in tree:
            legal = board == 0
            tree[k] = [lib.zeros(9, dtype=dt), lib.zeros(9, dtype=dt), legal.to(dt) / legal.sum()]
            return rollout(board, player) * player
        N, W, P = tree[k]
        q = lib.where(N > 0, W / N.clamp(min=1), lib.zeros_like(W))
        u = 1.4 * P * math.sqrt(float(N.sum()) + 1) / (1 + N)
        score = (q + u).masked_fill(board != 0, -math.inf)
        a = int(score.argmax())
        child = board.clone()
        child[a] = player
        value = -simulate(child, -player)
        N[a] += 1
        W[a] += value
        return value

    root = lib.tensor([1, -1, 0, 0, 1, 0, 0, 0, -1])
    for _ in range(60):
        simulate(root, 1)
    N, W, P = tree[key(root)]
    rec("N", N)
    rec("W", W)
    rec("P", P)
    rec("best", N.argmax())
    rec("pi", N / N.sum())
    rec("n_nodes", len(tree))
    rec("winner_row", winner(lib.tensor([1, 1, 1, 0, -1, -1, 0, 0, 0])))
    rec("winner_diag", winner(lib.tensor([-1, 1, 0, 1, -1, 0, 0, 0, -1])))


def p_conv_dynamics(lib, dt, rec):
    """MuZero's convolutional dynamics on board games: the action encoded as a plane (one-hot
    on the board for placement games, a constant a / A plane for Atari), concatenated to the
    hidden state, a residual conv step, min-max normalised per sample; an Embedding for moves."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(65)
    B, C, n, A = 3, 4, 5, 26
    conv = nn.Conv2d(C + 1, C, 3, padding=1, bias=False).to(dt)
    bn = nn.BatchNorm2d(C).to(dt)
    h = lib.randn(B, C, n, n, dtype=dt, requires_grad=True)
    actions = lib.tensor([3, 25, 12])
    on_board = actions < n * n
    plane = F.one_hot(actions.clamp(max=n * n - 1), n * n).view(B, 1, n, n).to(dt)
    plane = plane * on_board.view(B, 1, 1, 1)
    rec("plane", plane.sum((1, 2, 3)))
    atari = lib.ones_like(h[:, :1]) * actions[:, None, None, None] / A
    rec("atari.dtype", str(atari.dtype))
    rec("atari", atari[:, 0, 0, 0])
    x = lib.cat([h, plane], dim=1)
    nh = F.relu(bn(conv(x)) + h)
    flat = nh.view(B, -1)
    lo = flat.min(1, keepdim=True).values
    hi = flat.max(1, keepdim=True).values
    nh = ((flat - lo) / (hi - lo).clamp(min=1e-5)).view_as(nh)
    rec("nh", nh.sum((2, 3)))
    nh.pow(2).sum().backward()
    rec("g_h", h.grad.sum((2, 3)))
    rec("g_conv", conv.weight.grad.sum((2, 3)))
    emb = nn.Embedding(A, 6, padding_idx=A - 1).to(dt)
    e = emb(lib.tensor([[1, 25], [3, 3]]))
    rec("emb", e)
    (e.sum() * 2).backward()
    rec("emb_grad_rows", emb.weight.grad.abs().sum(1))
    rec("emb_repr", repr(emb))
    bag = nn.EmbeddingBag(A, 4, mode="mean").to(dt)
    rec("bag", bag(lib.tensor([1, 2, 4, 5, 4]), lib.tensor([0, 2])))
    rec.err("emb_oob", lambda: emb(lib.tensor([26])))
    rec.err("emb_float", lambda: emb(lib.tensor([1.0])))
    up = F.interpolate(nh.detach(), size=(7, 7), mode="nearest")
    rec("interp", up.sum((2, 3)))
    rec(
        "interp_bilinear",
        F.interpolate(nh.detach(), scale_factor=2, mode="bilinear", align_corners=False).mean(
            (2, 3)
        ),
    )


def p_mixed_precision(lib, dt, rec):
    """Self-play inference under CPU autocast (bfloat16), written against both the current and
    the deprecated state functions, and a GradScaler that CUDA's absence disables; bfloat16
    outputs are compared loosely (an ulp there is 2**-8)."""
    net = _pvnet(lib, dt, seed=66)
    x, legal = _boards(lib, dt, b=4, seed=67)
    net.eval()
    with lib.no_grad():
        ref_logits, ref_v = net(x)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            logits, v = net(x)
            rec("enabled", lib.is_autocast_enabled("cpu"))
            rec("old_enabled", rec.warns("old_enabled_warns", lib.is_autocast_cpu_enabled))
            rec("old_dtype", str(rec.warns("old_dtype_warns", lib.get_autocast_cpu_dtype)))
            rec("dtypes", str(logits.dtype) + " " + str(v.dtype))
            p = _masked_softmax(lib, logits, legal)
            rec("p_dtype", str(p.dtype))
    rec("close_logits", lib.allclose(logits.to(dt), ref_logits, atol=0.05, rtol=0.05))
    rec("close_v", lib.allclose(v.to(dt), ref_v, atol=0.05, rtol=0.05))
    rec("same_move", lib.equal(p.argmax(-1), _masked_softmax(lib, ref_logits, legal).argmax(-1)))
    rec("after", lib.is_autocast_enabled("cpu"))
    rec.warns("set_old", lambda: lib.set_autocast_cpu_dtype(lib.bfloat16))
    rec("gpu_dtype", str(rec.warns("gpu_dtype_warns", lib.get_autocast_gpu_dtype)))
    scaler = rec.warns("scaler_warns", lambda: lib.cuda.amp.GradScaler())
    rec("scaler_enabled", scaler.is_enabled())
    scaler2 = lib.amp.GradScaler("cpu", enabled=False)
    net.train()
    logits, v = net(x)
    loss = v.pow(2).mean() - lib.log_softmax(logits, 1)[:, -1].mean()
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    scaler2.scale(loss).backward()
    scaler2.step(opt)
    scaler2.update()
    rec("scaled_step", net.p_fc.bias)
    rec("scale", scaler2.get_scale())
