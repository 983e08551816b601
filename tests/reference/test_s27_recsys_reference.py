"""Session 27: recommender, time-series and audio programs as practitioners write them (matrix
factorisation with sparse embeddings and SparseAdam, BPR over a factorisation machine, DCN cross
layers and DLRM dot interactions, two-tower retrieval with logQ correction and frequency^0.75
negative sampling, EmbeddingBag with offsets / weights / max and the hashing trick, ranking
metrics, RevIN + PatchTST patching, N-BEATS bases and DLinear decomposition, TCN with chomp and
pinball losses, teacher forcing with cells vs whole sequences, NaN-masked losses and MASE/sMAPE,
mu-law companding, a hand-made log-mel / MFCC front end, a WaveNet stack, resampling with
interpolate and SpecAugment masks). Each is written once against a `torch`-like module and run
under torch and minitorch after the same manual_seed; every recorded value must agree: float64 to
1e-11 of its scale, float32 to 1e-4."""

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _user_warning(w):
    return issubclass(w.category, UserWarning)


PROGRAMS = [
    "mf_sparse", "bpr_fm", "dcn_dlrm", "two_tower_logq", "neg_sampling", "bag_hash",
    "rank_metrics", "revin_patch", "nbeats_dlinear", "tcn_quantile", "teacher_forcing",
    "nan_metrics", "mulaw", "logmel_mfcc", "wavenet", "resample_specaug", "deepar", "gru4rec",
    "overlap_add",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, keep_warnings=_user_warning)
    got = run_program(prog, minitorch, dt, keep_warnings=_user_warning)
    assert_records_match(want, got, 1e-11 if dt == "float64" else 1e-4, dtypes=True)


# --- recommenders ---


def p_mf_sparse(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    nu, ni, d = 15, 20, 5
    u = lib.randint(0, nu, (60,))
    i = lib.randint(0, ni, (60,))
    r = (lib.rand(60, dtype=dt) * 4 + 1).round()

    class MF(nn.Module):
        def __init__(self):
            super().__init__()
            self.P = nn.Embedding(nu, d, sparse=True)
            self.Q = nn.Embedding(ni, d, sparse=True)
            self.bu = nn.Embedding(nu, 1, sparse=True)
            self.bi = nn.Embedding(ni, 1, sparse=True)
            self.mu = nn.Parameter(r.mean().reshape(1))
            for e in (self.P, self.Q):
                nn.init.normal_(e.weight, std=0.1)
            nn.init.zeros_(self.bu.weight)
            nn.init.zeros_(self.bi.weight)

        def forward(self, u, i):
            dot = (self.P(u) * self.Q(i)).sum(-1)
            return dot + self.bu(u).squeeze(-1) + self.bi(i).squeeze(-1) + self.mu

    m = MF().to(dt)
    rec("repr", repr(m.P))
    sparse_p = [m.P.weight, m.Q.weight, m.bu.weight, m.bi.weight]
    opt_s = lib.optim.SparseAdam(sparse_p, lr=0.05)
    opt_d = lib.optim.Adam([m.mu], lr=0.05)
    for ep in range(4):
        for b in lib.randperm(60).split(20):
            pred = m(u[b], i[b])
            loss = F.mse_loss(pred, r[b])
            opt_s.zero_grad()
            opt_d.zero_grad()
            loss.backward()
            g = m.P.weight.grad
            rec(f"g{ep}", g.to_dense())
            opt_s.step()
            opt_d.step()
            rec(f"loss{ep}", loss)
    rec("P", m.P.weight)
    rec("bi", m.bi.weight)
    rec("mu", m.mu)
    st = opt_s.state[m.Q.weight]
    rec("step", str(int(st["step"])))
    rec("exp_avg_sq", st["exp_avg_sq"])
    with lib.no_grad():
        full = m.P.weight @ m.Q.weight.T + m.bu.weight + m.bi.weight.T + m.mu
    rec("full", full)
    rmse = F.mse_loss(full[u, i], r).sqrt()
    rec("rmse", rmse)


def p_bpr_fm(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)
    nu, ni, nf, k = 10, 16, 4, 6
    item_feat = lib.randint(0, nf, (ni,))
    pos_u = lib.randint(0, nu, (40,))
    pos_i = (pos_u * 5 + lib.randint(0, 3, (40,))) % ni

    class FM(nn.Module):
        """Fields: user, item, item category; one offset table."""

        def __init__(self):
            super().__init__()
            self.offsets = lib.tensor([0, nu, nu + ni])
            n = nu + ni + nf
            self.w = nn.Embedding(n, 1)
            self.v = nn.Embedding(n, k)
            nn.init.normal_(self.v.weight, std=0.05)
            nn.init.zeros_(self.w.weight)

        def forward(self, uu, ii):
            x = lib.stack([uu, ii, item_feat[ii]], 1) + self.offsets
            e = self.v(x)
            inter = 0.5 * (e.sum(1).square() - e.square().sum(1)).sum(1)
            return self.w(x).sum((1, 2)) + inter

    fm = FM().to(dt)
    # SGD: the user's linear weight cancels in s_pos - s_neg, so its gradient is rounding noise
    # that Adam would blow up to full steps
    opt = lib.optim.SGD(fm.parameters(), lr=0.3, momentum=0.9, weight_decay=1e-4)
    for _ep in range(3):
        for b in lib.randperm(40).split(10):
            neg = lib.randint(0, ni, (len(b), 3))
            s_pos = fm(pos_u[b], pos_i[b])
            s_neg = fm(pos_u[b].repeat_interleave(3), neg.flatten()).view(-1, 3)
            loss = -F.logsigmoid(s_pos[:, None] - s_neg).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec("loss", loss)
            rec("gv", fm.v.weight.grad)
    with lib.no_grad():
        allu = lib.arange(nu).repeat_interleave(ni)
        alli = lib.arange(ni).repeat(nu)
        S = fm(allu, alli).view(nu, ni)
    rec("S", S)
    rec("top", S.topk(3, dim=1).indices)


def p_dcn_dlrm(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(2)
    n, nd, card, ns, d = 24, 3, [7, 5, 9], 3, 4
    dense = lib.randn(n, nd, dtype=dt)
    sparse = lib.stack([lib.randint(0, c, (n,)) for c in card], 1)
    y = (dense[:, 0] + (sparse[:, 1] > 2).to(dt) > 0.5).to(dt)

    class Cross(nn.Module):
        def __init__(self, dim, layers):
            super().__init__()
            self.w = nn.ParameterList(
                [nn.Parameter(lib.randn(dim, 1) * 0.1) for _ in range(layers)]
            )
            self.b = nn.ParameterList([nn.Parameter(lib.zeros(dim)) for _ in range(layers)])

        def forward(self, x0):
            x = x0
            for w, b in zip(self.w, self.b, strict=True):
                x = x0 * (x @ w) + b + x
            return x

    class DLRM(nn.Module):
        def __init__(self):
            super().__init__()
            self.bot = nn.Sequential(nn.Linear(nd, 8), nn.ReLU(), nn.Linear(8, d), nn.ReLU())
            self.embs = nn.ModuleList([nn.Embedding(c, d) for c in card])
            nint = (ns + 1) * ns // 2
            self.cross = Cross(d * (ns + 1), 2)
            self.top = nn.Linear(d + nint + d * (ns + 1), 1)
            self.li, self.lj = lib.tril_indices(ns + 1, ns + 1, offset=-1)
            self.ti = lib.triu_indices(ns + 1, ns + 1, 1)

        def forward(self, xd, xs):
            z = self.bot(xd)
            T = lib.stack([z] + [e(xs[:, j]) for j, e in enumerate(self.embs)], 1)
            Z = lib.bmm(T, T.transpose(1, 2))
            low = Z[:, self.li, self.lj]
            up = Z[:, self.ti[0], self.ti[1]]
            c = self.cross(T.flatten(1))
            return self.top(lib.cat([z, low, c], 1)).squeeze(1), low, up

    m = DLRM().to(dt)
    rec("li", m.li)
    rec("ti", m.ti)
    opt = lib.optim.Adagrad(m.parameters(), lr=0.1)
    for _step in range(5):
        out, low, up = m(dense, sparse)
        loss = F.binary_cross_entropy_with_logits(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("sym", (low - up).abs().max())
    rec.params("p", m, grads=True)


def p_two_tower_logq(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(3)
    nu, ni, d, B = 12, 18, 6, 16
    freq = lib.arange(1, ni + 1, dtype=dt).pow(-1.1)
    probs = freq / freq.sum()
    items = lib.multinomial(probs, 64, replacement=True)
    users = (items * 7 + lib.randint(0, 2, (64,))) % nu
    counts = lib.bincount(items, minlength=ni)
    rec("counts", counts)
    logq = lib.log(counts.to(dt).clamp_min(1) / counts.sum())
    U, V = nn.Embedding(nu, d).to(dt), nn.Embedding(ni, d).to(dt)
    opt = lib.optim.Adam(list(U.parameters()) + list(V.parameters()), lr=0.02)
    for _step in range(4):
        idx = lib.randperm(64)[:B]
        q = F.normalize(U(users[idx]), dim=1)
        k = F.normalize(V(items[idx]), dim=1)
        logits = q @ k.T / 0.1 - logq[items[idx]][None, :]
        same = items[idx][None, :] == items[idx][:, None]
        eye = lib.eye(B, dtype=lib.bool)
        logits = logits.masked_fill(same & ~eye, float("-inf"))
        loss = F.cross_entropy(logits, lib.arange(B))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("lse", logits.logsumexp(1))
    rec("V", V.weight)
    with lib.no_grad():
        sc = F.normalize(U.weight, dim=1) @ F.normalize(V.weight, dim=1).T
        rec("top", sc.topk(3, dim=1, sorted=True).indices)


def p_neg_sampling(lib, dt, rec):
    lib.manual_seed(4)
    counts = lib.tensor([50, 20, 0, 7, 3, 1, 12, 30, 2, 9], dtype=dt)
    p = counts.pow(0.75)
    p = p / p.sum()
    rec("p", p)
    neg = lib.multinomial(p, 6, replacement=False)
    rec("neg", neg)
    neg2 = lib.multinomial(p.expand(4, -1), 5)
    rec("neg2", neg2)
    neg3 = p.multinomial(20, replacement=True)
    rec("neg3", neg3)
    g = lib.Generator().manual_seed(7)
    rec("gen", lib.multinomial(counts, 3, generator=g))
    rec.err("too_many", lambda: lib.multinomial(p, 11))
    rec.err("neg_w", lambda: lib.multinomial(lib.tensor([0.5, -0.1, 0.6], dtype=dt), 1))
    rec.err("zero_w", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    # a unigram table as word2vec builds it, then uniform draws into it
    table = lib.repeat_interleave(lib.arange(10), (p * 100).round().long())
    rec("table_len", len(table))
    rec("draw", table[lib.randint(0, len(table), (12,))])
    # negatives that hit the positive are resampled once
    pos = lib.tensor([0, 7, 1, 0])
    cand = lib.multinomial(p, 4 * 3, replacement=True).view(4, 3)
    clash = cand == pos[:, None]
    rec("clash", clash)
    cand[clash] = lib.multinomial(p, int(clash.sum()), replacement=True)
    rec("cand", cand)


def p_bag_hash(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)
    raw = lib.tensor([982451653, -17, 2**40 + 3, 7, -(2**35), 123456789012, 0, -1], dtype=lib.int64)
    buckets = 11
    rec("rem", lib.remainder(raw, buckets))
    rec("mod", raw % buckets)
    rec("fmod", lib.fmod(raw, buckets))
    rec("floordiv", raw // buckets)
    h = (raw * 2654435761) % (2**31 - 1) % buckets  # wraps in int64 like C
    rec("h", h)
    rec("mulwrap", raw * 2654435761)
    inp = h
    offsets = lib.tensor([0, 3, 3, 6])
    psw = lib.rand(len(inp), dtype=dt)
    bag = nn.EmbeddingBag(buckets, 4, mode="sum").to(dt)
    out = bag(inp, offsets, per_sample_weights=psw)
    rec("sum_w", out)
    bag_max = nn.EmbeddingBag(buckets, 4, mode="max").to(dt)
    outm = bag_max(inp, offsets)
    rec("max", outm)
    bag_mean = nn.EmbeddingBag(buckets, 4, mode="mean", padding_idx=0).to(dt)
    rec("mean_pad", bag_mean(inp, offsets))
    last = lib.tensor([0, 3, 3, 6, 8])
    rec("last", F.embedding_bag(inp, bag.weight, last, mode="sum", include_last_offset=True))
    rec("bag2d", bag_max(inp.view(2, 4)))
    (out.pow(2).sum() + outm.sum()).backward()
    rec("g_sum", bag.weight.grad)
    rec("g_max", bag_max.weight.grad)
    rec.err("psw_mean", lambda: bag_mean(inp, offsets, per_sample_weights=psw))
    rec.err("psw_max", lambda: bag_max(inp, offsets, per_sample_weights=psw))
    rec.err("off_2d", lambda: bag(inp.view(2, 4), offsets))
    rec("from_pre", repr(nn.EmbeddingBag.from_pretrained(bag.weight.detach(), mode="max")))


def p_rank_metrics(lib, dt, rec):
    lib.manual_seed(6)
    nu, ni, K = 6, 12, 4
    scores = lib.randn(nu, ni, dtype=dt)
    truth = lib.rand(nu, ni) < 0.25
    truth[0] = False
    topk = scores.topk(K, dim=1).indices
    hit = lib.gather(truth, 1, topk).to(dt)
    n_rel = truth.sum(1)
    recall = hit.sum(1) / n_rel.clamp(min=1)
    rec("recall", recall)
    disc = 1.0 / lib.log2(lib.arange(2, K + 2, dtype=dt))
    dcg = (hit * disc).sum(1)
    ideal = (lib.arange(K)[None, :] < n_rel[:, None]).to(dt)
    idcg = (ideal * disc).sum(1)
    ndcg = lib.where(idcg > 0, dcg / idcg, lib.zeros_like(idcg))
    rec("ndcg", ndcg)
    rec("ndcg_nan", dcg / idcg)
    prec_at = hit.cumsum(1) / lib.arange(1, K + 1, dtype=dt)
    ap = (prec_at * hit).sum(1) / n_rel.clamp(min=1).clamp(max=K)
    rec("map", ap.mean())
    rel_items = lib.tensor([3, 5, 7, 11])
    rec("isin", lib.isin(topk, rel_items))
    rec("isin_inv", lib.isin(topk, rel_items, invert=True).sum(1))
    rec("isin_scalar", lib.isin(topk, 5))
    first = lib.isin(topk, rel_items).to(dt).argmax(1)
    rec("mrr", (1.0 / (first + 1)) * lib.isin(topk, rel_items).any(1))
    # AUC from ranks, ties averaged via sort/argsort, per user
    s = lib.tensor([0.1, 0.4, 0.4, 0.8, 0.35, 0.8, 0.9, 0.2], dtype=dt)
    yb = lib.tensor([0, 0, 1, 1, 0, 1, 1, 0])
    order = s.argsort(stable=True)
    ranks = lib.empty_like(s)
    ranks[order] = lib.arange(1, len(s) + 1, dtype=dt)
    vals, inv, cnt = lib.unique(s, return_inverse=True, return_counts=True)
    cum = cnt.cumsum(0).to(dt)
    avg = cum - (cnt.to(dt) - 1) / 2
    ranks_t = avg[inv]
    npos = yb.sum()
    nneg = len(yb) - npos
    auc = (ranks_t[yb == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)
    rec("ranks", ranks)
    rec("ranks_t", ranks_t)
    rec("auc", auc)
    srt, idx = s.sort(descending=True, stable=True)
    rec("sorted_idx", idx)
    tps = yb[idx].cumsum(0)
    fps = (1 - yb[idx]).cumsum(0)
    rec("tpr", tps / npos)
    rec("fpr", fps / nneg)
    rec("trapz", lib.trapezoid(tps / npos, fps / nneg))
    rec("searchsorted", lib.searchsorted(srt.flip(0), lib.tensor([0.4, 0.5], dtype=dt)))


# --- time series ---


def _series(lib, dt, n, c=1):
    t = lib.arange(n, dtype=dt)
    base = lib.sin(t * 0.4)[:, None] * lib.arange(1, c + 1, dtype=dt) + 0.02 * t[:, None]
    return base + 0.1 * lib.randn(n, c, dtype=dt)


def p_revin_patch(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(10)
    L, H, P, S, C = 24, 6, 8, 4, 2
    s = _series(lib, dt, 80, C)  # (T, C)
    win = s.unfold(0, L + H, 3)  # (N, C, L+H)
    rec("win_shape", list(win.shape))
    rec("win_stride", list(win.stride()))
    x, y = win[..., :L], win[..., L:]

    class RevIN(nn.Module):
        def __init__(self, c, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.g = nn.Parameter(lib.ones(c, 1))
            self.b = nn.Parameter(lib.zeros(c, 1))

        def norm(self, x):
            self.mu = x.mean(-1, keepdim=True).detach()
            self.sd = lib.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps).detach()
            return (x - self.mu) / self.sd * self.g + self.b

        def denorm(self, x):
            return (x - self.b) / (self.g + self.eps * self.eps) * self.sd + self.mu

    class PatchTST(nn.Module):
        def __init__(self):
            super().__init__()
            self.rev = RevIN(C)
            self.np = (L - P) // S + 2
            self.emb = nn.Linear(P, 16)
            self.pos = nn.Parameter(lib.randn(self.np, 16) * 0.02)
            layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.head = nn.Linear(self.np * 16, H)

        def forward(self, x):
            B = x.shape[0]
            z = self.rev.norm(x)
            z = lib.cat([z, z[..., -1:].expand(-1, -1, S)], -1)  # ReplicationPad1d((0, S))
            p = z.unfold(-1, P, S)  # (B, C, np, P)
            h = self.emb(p).reshape(B * C, self.np, 16) + self.pos
            h = self.enc(h).reshape(B, C, -1)
            return self.rev.denorm(self.head(h)), p

    m = PatchTST().to(dt)
    opt = lib.optim.AdamW(m.parameters(), lr=1e-3)
    for _ in range(3):
        out, p = m(x)
        loss = F.l1_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("patches", p[0, 1])
    rec("pstride", list(p.permute(0, 2, 1, 3).shape))
    rec("mu", m.rev.mu[:3])
    rec("g_pos", m.pos.grad)
    rec("out", out[:2])


def p_nbeats_dlinear(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    L, H, K = 20, 5, 5
    s = _series(lib, dt, 70)[:, 0]
    win = s.unfold(0, L + H, 2)
    x, y = win[:, :L], win[:, L:]
    t_b = lib.linspace(0, 1, L, dtype=dt)
    t_f = lib.linspace(0, 1, H + 1, dtype=dt)[1:]
    rec("t_f", t_f)
    trend_b = lib.stack([t_b**i for i in range(3)])
    trend_f = lib.stack([t_f**i for i in range(3)])
    harm = lib.arange(1, 3, dtype=dt)[:, None]
    seas_f = lib.cat([lib.cos(2 * math.pi * harm * t_f), lib.sin(2 * math.pi * harm * t_f)])
    seas_b = lib.cat([lib.cos(2 * math.pi * harm * t_b), lib.sin(2 * math.pi * harm * t_b)])

    class Block(nn.Module):
        def __init__(self, Bb, Bf):
            super().__init__()
            self.register_buffer("Bb", Bb)
            self.register_buffer("Bf", Bf)
            self.fc = nn.Sequential(nn.Linear(L, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
            self.theta = nn.Linear(16, Bb.shape[0], bias=False)

        def forward(self, x):
            th = self.theta(self.fc(x))
            return th @ self.Bb, th @ self.Bf

    class DLinear(nn.Module):
        def __init__(self):
            super().__init__()
            self.avg = nn.AvgPool1d(K, stride=1)
            self.ls = nn.Linear(L, H)
            self.lt = nn.Linear(L, H)

        def forward(self, x):
            front = x[:, :1].repeat(1, (K - 1) // 2)
            end = x[:, -1:].repeat(1, (K - 1) // 2)
            xp = lib.cat([front, x, end], 1)
            trend = self.avg(xp.unsqueeze(1)).squeeze(1)
            seas = x - trend
            return self.ls(seas) + self.lt(trend), trend

    blocks = nn.ModuleList([Block(trend_b, trend_f), Block(seas_b, seas_f)]).to(dt)
    dl = DLinear().to(dt)
    opt = lib.optim.Adam(list(blocks.parameters()) + list(dl.parameters()), lr=2e-3)
    for _ in range(4):
        res, fc = x, 0
        for b in blocks:
            bb, ff = b(res)
            res = res - bb
            fc = fc + ff
        pd, trend = dl(x)
        loss = F.mse_loss(fc, y) + F.smooth_l1_loss(pd, y, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("trend", trend[:2])
    rec("fc", fc[:2])
    rec("rep", F.pad(x[:2, None], (2, 2), mode="replicate")[:, 0, :6])
    rec("g", blocks[1].theta.weight.grad)


def p_tcn_quantile(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(12)
    C, T, Q = 2, 30, lib.tensor([0.1, 0.5, 0.9], dtype=dt)
    s = _series(lib, dt, 90, C).T  # (C, T)
    xs = s.unfold(1, T + 1, 10).permute(1, 0, 2)  # (N, C, T+1)
    x, y = xs[..., :-1], xs[:, 0, 1:]

    class Chomp(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n

        def forward(self, x):
            return x[:, :, : -self.n].contiguous()

    class TBlock(nn.Module):
        def __init__(self, cin, cout, dil, k=3):
            super().__init__()
            pad = (k - 1) * dil
            self.net = nn.Sequential(
                nn.Conv1d(cin, cout, k, padding=pad, dilation=dil), Chomp(pad), nn.ReLU(),
                nn.Conv1d(cout, cout, k, padding=pad, dilation=dil), Chomp(pad), nn.ReLU(),
            )  # fmt: skip
            self.down = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

        def forward(self, x):
            return lib.relu(self.net(x) + self.down(x))

    net = nn.Sequential(TBlock(C, 8, 1), TBlock(8, 8, 2), TBlock(8, 8, 4), nn.Conv1d(8, 3, 1))
    net = net.to(dt)
    # causality: the output at t must not depend on inputs after t
    xx = x[:1].clone().requires_grad_()
    net(xx)[0, 1, 10].backward()
    rec("causal", (xx.grad[0, :, 11:] == 0).all())
    rec("rf", (xx.grad[0, 0] != 0).nonzero().flatten())
    opt = lib.optim.RMSprop(net.parameters(), lr=1e-3)
    for _ in range(4):
        pred = net(x).permute(0, 2, 1)  # (N, T, Q)
        e = y[..., None] - pred
        pinball = lib.maximum(Q * e, (Q - 1) * e).mean()
        opt.zero_grad()
        pinball.backward()
        opt.step()
        rec("pinball", pinball)
    cover = ((y[..., None] <= pred).to(dt)).mean((0, 1))
    rec("cover", cover)
    rec("crossing", (pred.diff(dim=-1) < 0).sum())
    rec("sorted_q", pred.sort(-1).values[0, :3])


def p_teacher_forcing(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(13)
    s = _series(lib, dt, 40)[:, 0]
    xs = s.unfold(0, 13, 4)[:, :, None]  # (N, 13, 1)
    x, y = xs[:, :-1], xs[:, 1:]
    for kind in ("LSTM", "GRU"):
        rnn = getattr(nn, kind)(1, 6, batch_first=True).to(dt)
        cell = getattr(nn, kind + "Cell")(1, 6).to(dt)
        with lib.no_grad():
            for a, b in zip(cell.parameters(), rnn.parameters(), strict=True):
                a.copy_(b)
        head = nn.Linear(6, 1).to(dt)
        whole, hN = rnn(x)
        rec(kind + "whole", head(whole))
        h = lib.zeros(x.shape[0], 6, dtype=dt)
        c = lib.zeros_like(h)
        outs = []
        for t in range(x.shape[1]):
            if kind == "LSTM":
                h, c = cell(x[:, t], (h, c))
            else:
                h = cell(x[:, t], h)
            outs.append(head(h))
        loop = lib.stack(outs, 1)
        rec(kind + "diff", (loop - head(whole)).abs().max())
        loss = F.mse_loss(loop, y)
        loss.backward()
        rec(kind + "g_cell", cell.weight_hh.grad)
        # free running: feed the prediction back in
        with lib.no_grad():
            inp = x[:, -1]
            hc = (h, c) if kind == "LSTM" else h
            preds = []
            for _ in range(4):
                hc = cell(inp, hc)
                inp = head(hc[0] if kind == "LSTM" else hc)
                preds.append(inp)
        rec(kind + "free", lib.cat(preds, 1))
        # scheduled sampling: mix truth and prediction with a Bernoulli mask
        mask = lib.bernoulli(lib.full((x.shape[0], 1), 0.5, dtype=dt))
        rec(kind + "mask", mask)
        h64 = lib.zeros(1, x.shape[0], 6, dtype=lib.float64 if dt == "float32" else lib.float32)
        if kind == "GRU":
            rec.err(kind + "h_dtype", lambda r=rnn, h=h64: r(x, h))
        else:
            rec.err(kind + "one_state", lambda c=cell, h=h: c(x[:, 0], (h,)))


def p_nan_metrics(lib, dt, rec):
    lib.manual_seed(14)
    T = 16
    s = _series(lib, dt, T, 2)
    y = s.clone()
    y[lib.tensor([2, 5, 9]), 0] = float("nan")
    y[7, 1] = float("nan")
    pred = s + 0.1 * lib.randn(T, 2, dtype=dt)
    pred.requires_grad_()
    mask = ~lib.isnan(y)
    rec("mask", mask)
    y0 = lib.nan_to_num(y, nan=0.0)
    err = (pred - y0) * mask
    loss = err.pow(2).sum() / mask.sum()
    loss.backward()
    rec("loss", loss)
    rec("g", pred.grad)
    rec("nanmean", (pred.detach() - y).abs().nanmean(0))
    rec("nanmean_all", (pred.detach() - y).abs().nanmean())
    rec("nansum", lib.nansum(y, 1))
    rec("nan_to_num", lib.nan_to_num(y / 0.0, nan=-1.0, posinf=9.0))
    rec("where_nan", lib.where(mask, y, pred.detach()))
    # MASE with a seasonal naive scale and sMAPE
    yt = y0[:, 1]
    m = 4
    naive = (yt[m:] - yt[:-m]).abs().mean()
    rec("mase", (pred.detach()[:, 1] - yt).abs().mean() / naive)
    p1 = pred.detach()[:, 1]
    smape = 200 * ((p1 - yt).abs() / (p1.abs() + yt.abs())).mean()
    rec("smape", smape)
    # lagged features: roll with explicit masking, narrow, diff with prepend
    lag1 = yt.roll(1)
    lag1[0] = float("nan")
    rec("lag1", lag1)
    rec("roll2d", s.roll(shifts=(1, -1), dims=(0, 1))[:3])
    rec("roll_flat", s.roll(3)[:2])
    rec("narrow", yt.narrow(0, 3, 5))
    rec("diff", yt.diff(prepend=yt[:1]))
    feats = lib.stack([yt.narrow(0, 4 - k, T - 4) for k in range(1, 5)], 1)
    rec("feats", feats[:3])
    rec("ema", lib.stack([yt[: i + 1].mean() for i in range(4)]))
    rec("cummax", yt.cummax(0).values)
    rec("nanmedian", lib.nanmedian(y, 0).values)
    rec("nanquant", lib.nanquantile(y[:, 0], lib.tensor([0.25, 0.75], dtype=dt)))


# --- audio ---


def p_mulaw(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)
    mu = 255
    t = lib.linspace(0, 1, 64, dtype=dt)
    x = 0.8 * lib.sin(2 * math.pi * 5 * t) * lib.exp(-2 * t) + 0.01 * lib.randn(64, dtype=dt)
    x = x.clamp(-1, 1)
    mu_t = lib.tensor(float(mu), dtype=dt)
    comp = lib.sign(x) * lib.log1p(mu_t * x.abs()) / lib.log1p(mu_t)
    q = ((comp + 1) / 2 * mu + 0.5).to(lib.int64)
    rec("comp", comp)
    rec("q", q)
    rec("q_round", lib.round((comp + 1) / 2 * mu).long())
    rec("round_half", lib.round(lib.tensor([0.5, 1.5, 2.5, -0.5, -1.5], dtype=dt)))
    rec("trunc_neg", lib.tensor([-0.7, -1.5, 2.9], dtype=dt).to(lib.int64))
    yq = 2 * (q.to(dt) / mu) - 1
    dec = lib.sign(yq) * (lib.pow(1 + mu_t, yq.abs()) - 1) / mu_t
    rec("dec", dec)
    rec("err", (dec - x).abs().max())
    rec("sign0", lib.sign(lib.tensor([0.0, -0.0, 3.0], dtype=dt)))
    oh = F.one_hot(q[:-1], mu + 1).to(dt)
    rec("oh_sum", oh.sum(0).nonzero().flatten())
    net = nn.Sequential(nn.Conv1d(mu + 1, 8, 2), nn.ReLU(), nn.Conv1d(8, mu + 1, 1)).to(dt)
    logits = net(oh.T[None])
    loss = F.cross_entropy(logits, q[None, 2:])
    loss.backward()
    rec("loss", loss)
    rec("g", net[0].bias.grad)
    samp = lib.distributions.Categorical(logits=logits[0, :, -1]).sample((3,))
    rec("samp", samp)


def p_logmel_mfcc(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(21)
    sr, n_fft, hop, n_mels, n_mfcc = 800, 32, 8, 6, 4
    t = lib.arange(400, dtype=dt) / sr
    wav = lib.sin(2 * math.pi * 100 * t) + 0.5 * lib.sin(2 * math.pi * 260 * t)
    wav = wav + 0.05 * lib.randn(400, dtype=dt)
    wav.requires_grad_()
    pre = F.conv1d(wav.view(1, 1, -1), lib.tensor([[[-0.97, 1.0]]], dtype=dt)).view(-1)
    pre = lib.cat([wav[:1], pre])
    rec("pre", pre[:5])
    for periodic in (True, False):
        rec(f"hann{periodic}", lib.hann_window(8, periodic=periodic, dtype=dt))
        rec(f"hamm{periodic}", lib.hamming_window(8, periodic, dtype=dt))
    rec("hamm_ab", lib.hamming_window(6, True, alpha=0.5, beta=0.4, dtype=dt))
    win = lib.hann_window(n_fft, dtype=dt)
    padded = F.pad(pre.view(1, 1, -1), (n_fft // 2, n_fft // 2), mode="reflect").view(-1)
    frames = padded.unfold(0, n_fft, hop) * win  # (F, n_fft)
    rec("nframes", frames.shape[0])
    n = lib.arange(n_fft, dtype=dt)
    kk = lib.arange(n_fft // 2 + 1, dtype=dt)[:, None]
    ang = 2 * math.pi * kk * n / n_fft
    re, im = frames @ lib.cos(ang).T, -(frames @ lib.sin(ang).T)
    power = re**2 + im**2
    # (torch.stft needs complex dtypes, which minitorch lacks: the DFT is a matmul here)
    rec("power", power[:3])

    def hz2mel(f):
        return 2595 * lib.log10(1 + f / 700)

    lo_mel = float(hz2mel(lib.tensor(0.0, dtype=dt)))  # (float32 log10 differs in the last bit)
    mels = lib.linspace(lo_mel, float(hz2mel(lib.tensor(sr / 2.0, dtype=dt))), n_mels + 2, dtype=dt)
    hz = 700 * (10 ** (mels / 2595) - 1)
    fftf = lib.linspace(0, sr / 2, n_fft // 2 + 1, dtype=dt)
    lo, ce, hi = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    up = (fftf - lo) / (ce - lo)
    down = (hi - fftf) / (hi - ce)
    fb = lib.clamp(lib.minimum(up, down), min=0)
    rec("fb", fb)
    mel = power @ fb.T
    logmel = 10 * lib.log10(mel.clamp_min(1e-10))
    logmel = lib.maximum(logmel, logmel.max() - 80)
    rec("logmel", logmel[:4])
    nn_ = lib.arange(n_mels, dtype=dt)
    kx = lib.arange(n_mfcc, dtype=dt)[:, None]
    dct = lib.cos(math.pi / n_mels * (nn_ + 0.5) * kx) * math.sqrt(2.0 / n_mels)
    dct[0] *= 1 / math.sqrt(2)
    mfcc = logmel @ dct.T
    rec("mfcc", mfcc[:4])
    delta = F.conv1d(
        F.pad(mfcc.T[:, None], (2, 2), mode="replicate"),
        lib.tensor([[[-2.0, -1.0, 0.0, 1.0, 2.0]]], dtype=dt) / 10,
    )
    rec("delta", delta[:, 0, :4])
    mfcc.pow(2).mean().backward()
    rec("g_wav", wav.grad[:40])
    # CMVN per utterance
    cmvn = (mfcc - mfcc.mean(0)) / mfcc.std(0).clamp_min(1e-5)
    rec("cmvn", cmvn[:3])


def p_wavenet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(22)
    C, S, T = 6, 5, 40
    x = lib.randn(3, 1, T, dtype=dt)

    class Layer(nn.Module):
        def __init__(self, dil):
            super().__init__()
            self.dil = dil
            self.conv = nn.Conv1d(C, 2 * C, 2, dilation=dil)
            self.res = nn.Conv1d(C, C, 1)
            self.skip = nn.Conv1d(C, S, 1)

        def forward(self, h):
            z = self.conv(F.pad(h, (self.dil, 0)))
            a, b = z.chunk(2, 1)
            g = lib.tanh(a) * lib.sigmoid(b)
            return h + self.res(g), self.skip(g)

    class WaveNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = nn.Conv1d(1, C, 1)
            self.layers = nn.ModuleList([Layer(d) for d in (1, 2, 4, 8, 1, 2)])
            self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(S, S, 1), nn.ReLU(), nn.Conv1d(S, 1, 1))

        def forward(self, x):
            h = self.inp(x)
            skips = 0
            for layer in self.layers:
                h, s = layer(h)
                skips = skips + s
            return self.out(skips)

    rec.err("pad_str", lambda: nn.Conv1d(C, C, 2, padding="causal"))
    net = WaveNet().to(dt)
    rf = 1 + sum(layer.dil for layer in net.layers)
    rec("rf", rf)
    opt = lib.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(3):
        out = net(x)
        loss = F.mse_loss(out[..., :-1], x[..., 1:])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(net.parameters(), 0.5)
        opt.step()
        rec("loss", loss)
    xx = x[:1].clone().requires_grad_()
    net(xx)[0, 0, 30].backward()
    nz = (xx.grad[0, 0] != 0).nonzero().flatten()
    rec("dep", nz)
    rec("g_conv", net.layers[3].conv.weight.grad)
    rec("out", out[0, 0, :8])


def p_resample_specaug(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(23)
    wav = lib.randn(2, 1, 30, dtype=dt).requires_grad_()
    up = F.interpolate(wav, scale_factor=1.5, mode="linear", align_corners=False)
    down = F.interpolate(wav, size=22, mode="linear", align_corners=False)
    ac = F.interpolate(wav, size=45, mode="linear", align_corners=True)
    odd = F.interpolate(wav, scale_factor=0.37, mode="linear", recompute_scale_factor=True)
    near = F.interpolate(wav, scale_factor=0.37, mode="nearest")
    rec("up", up[0, 0, :10])
    rec("down", down[1, 0])
    rec("ac", ac[0, 0, -5:])
    rec("odd", odd)
    rec("near", near)
    (up.sum() + (down**2).sum() + ac.mean() + odd.sum()).backward()
    rec("g", wav.grad)
    spec = lib.rand(3, 8, 20, dtype=dt)  # (B, mels, frames)
    B, nm, nt = spec.shape
    fw = lib.randint(0, 3, (B, 1))
    f0 = (lib.rand(B, 1) * (nm - fw)).long()
    mf = lib.arange(nm)[None, :]
    fmask = (mf >= f0) & (mf < f0 + fw)
    tw = lib.randint(0, 6, (B, 1))
    t0 = lib.randint(0, nt - 6, (B, 1))
    mt = lib.arange(nt)[None, :]
    tmask = (mt >= t0) & (mt < t0 + tw)
    rec("fmask", fmask)
    rec("tmask", tmask)
    masked = spec.masked_fill(fmask[:, :, None], 0.0).masked_fill(tmask[:, None, :], spec.mean())
    rec("masked", masked[0])
    rec("frac", (masked == 0).to(dt).mean())
    # time warp style: resample a spectrogram along time with bilinear interpolate
    warped = F.interpolate(spec[:, None], size=(8, 24), mode="bilinear", align_corners=False)
    rec("warp", warped[0, 0, :2])
    rec("area", F.interpolate(spec, size=7, mode="area")[0, :2])
    rec.err("bad_mode", lambda: F.interpolate(spec, size=7, mode="bilinear"))
    rec.err("both", lambda: F.interpolate(spec, size=7, scale_factor=2.0))
    codes = lib.randint(0, 256, (2, 1, 10))  # mu-law codes are int64: resample them as floats
    for mode in ("linear", "nearest", "area"):
        rec.err("int_" + mode, lambda m=mode: F.interpolate(codes, size=15, mode=m))
    rec.err("int_bilinear", lambda: F.interpolate(codes[None], size=(2, 5), mode="bilinear"))
    rec("codes_up", F.interpolate(codes.to(dt), size=15, mode="linear").round().long())


# --- probabilistic forecasting, session recommenders, resynthesis ---


def p_deepar(lib, dt, rec):
    nn, D = lib.nn, lib.distributions
    lib.manual_seed(30)
    T, B, H = 20, 4, 5
    t = lib.arange(T + H, dtype=dt)
    rate = 5 + 3 * lib.sin(t * 0.5) + lib.arange(B, dtype=dt)[:, None]
    y = lib.poisson(rate)  # (B, T+H) counts
    rec("y", y)
    scale = 1 + y[:, :T].mean(1, keepdim=True)
    z = y / scale

    class DeepAR(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(2, 8, batch_first=True)
            self.mu = nn.Linear(8, 1)
            self.alpha = nn.Linear(8, 1)
            self.df = nn.Linear(8, 1)

        def forward(self, inp, hc=None):
            h, hc = self.rnn(inp, hc)
            mu = nn.functional.softplus(self.mu(h)).squeeze(-1)
            alpha = nn.functional.softplus(self.alpha(h)).squeeze(-1) + 1e-3
            return mu, alpha, hc

    m = DeepAR().to(dt)
    opt = lib.optim.Adam(m.parameters(), lr=1e-2)
    feat = (t[:T] / T).expand(B, T)
    inp = lib.stack([lib.cat([lib.zeros(B, 1, dtype=dt), z[:, : T - 1]], 1), feat], -1)
    for _ in range(4):
        mu, alpha, _ = m(inp)
        # negative binomial with mean mu*scale and shape 1/alpha
        mean = mu * scale
        r = 1 / alpha
        nb = D.NegativeBinomial(total_count=r, logits=(mean / r).log())
        loss = -nb.log_prob(y[:, :T]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("nb_mean", nb.mean[:, :3])
    rec("nb_var", nb.variance[:, -3:])
    st = D.StudentT(df=3 + mu.detach(), loc=z[:, :T], scale=alpha.detach())
    rec("st_lp", st.log_prob(z[:, 1 : T + 1]))
    rec("st_entropy", st.entropy()[:, :3])
    # ancestral sampling of 3 paths over the horizon
    with lib.no_grad():
        _, _, hc = m(inp)
        last = z[:, T - 1 : T]
        paths = []
        for k in range(H):
            step_in = lib.stack([last, (t[T + k] / T).expand(B, 1)], -1)
            mu_k, a_k, hc = m(step_in, hc)
            r_k = 1 / a_k
            draw = D.NegativeBinomial(r_k, logits=(mu_k * scale / r_k).log()).sample()
            paths.append(draw)
            last = draw / scale
        paths = lib.cat(paths, 1)
    rec("paths", paths)
    q = lib.quantile(paths, lib.tensor([0.1, 0.5, 0.9], dtype=dt), dim=0)
    rec("q", q)
    crps_like = (paths - y[:, T:]).abs().mean()
    rec("crps_like", crps_like)
    pois = D.Poisson(rate[:, :T])
    rec("pois_lp", pois.log_prob(y[:, :T]).sum(1))
    rec("pois_sample", pois.sample((2,))[:, 0, :5])


def p_gru4rec(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    rnn_utils = __import__(lib.__name__ + ".nn.utils.rnn", fromlist=["x"])
    lib.manual_seed(31)
    ni, d = 15, 8
    lens = [5, 3, 6, 2]
    sess = [lib.randint(1, ni, (n,)) for n in lens]
    padded = rnn_utils.pad_sequence(sess, batch_first=True)  # 0 = padding item
    rec("padded", padded)
    emb = nn.Embedding(ni, d, padding_idx=0).to(dt)
    gru = nn.GRU(d, d, batch_first=True).to(dt)
    opt = lib.optim.Adagrad(list(emb.parameters()) + list(gru.parameters()), lr=0.1)
    inp, tgt = padded[:, :-1], padded[:, 1:]
    lengths = lib.tensor(lens) - 1
    for _ in range(3):
        packed = rnn_utils.pack_padded_sequence(
            emb(inp), lengths, batch_first=True, enforce_sorted=False
        )
        out, h = gru(packed)
        out, out_len = rnn_utils.pad_packed_sequence(out, batch_first=True)
        rec("out_len", out_len)
        logits = out @ emb.weight.T  # (B, L, ni): full softmax over items
        mask = tgt[:, : logits.shape[1]] != 0
        loss = F.cross_entropy(logits[mask], tgt[:, : logits.shape[1]][mask])
        # sampled softmax variant: in-batch targets as negatives
        pos = tgt[:, : logits.shape[1]][mask]
        sub = logits[mask][:, pos]
        loss2 = F.cross_entropy(sub, lib.arange(len(pos)))
        opt.zero_grad()
        (loss + 0.5 * loss2).backward()
        opt.step()
        rec("loss", loss)
        rec("loss2", loss2)
        rec("h", h)
    rec("pad_row", emb.weight[0])
    rec("g_emb", emb.weight.grad)
    with lib.no_grad():
        last = h[0] @ emb.weight.T
        last[:, 0] = float("-inf")
        top = last.topk(3).indices
    rec("top", top)
    packed = rnn_utils.pack_sequence(sess, enforce_sorted=False)
    rec("batch_sizes", packed.batch_sizes)
    rec("sorted_idx", packed.sorted_indices)


def p_overlap_add(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(32)
    n_fft, hop, L = 16, 4, 64
    x = lib.randn(2, L, dtype=dt)
    win = lib.hann_window(n_fft, dtype=dt)
    frames = F.pad(x[:, None], (n_fft // 2, n_fft // 2), mode="reflect")[:, 0]
    frames = frames.unfold(-1, n_fft, hop) * win  # (B, F, n_fft)
    nf = frames.shape[1]
    rec("nf", nf)
    # overlap-add with fold, normalised by the summed squared window
    out_len = n_fft + hop * (nf - 1)
    ola = F.fold(
        (frames * win).transpose(1, 2), output_size=(1, out_len), kernel_size=(1, n_fft),
        stride=(1, hop),
    )[:, 0, 0]  # fmt: skip
    wsq = F.fold(
        (win**2)[None, :, None].expand(1, n_fft, nf), output_size=(1, out_len),
        kernel_size=(1, n_fft), stride=(1, hop),
    )[0, 0, 0]  # fmt: skip
    rec("wsq", wsq)
    y = (ola / wsq.clamp_min(1e-8))[:, n_fft // 2 : n_fft // 2 + L]
    rec("recon_err", (y - x).abs().max())
    # the same with index_add_ (a scatter of every frame sample to its time)
    pos = (lib.arange(nf)[:, None] * hop + lib.arange(n_fft)).flatten()
    acc = lib.zeros(2, out_len, dtype=dt).index_add_(1, pos, (frames * win).flatten(1))
    rec("ola_vs_index_add", (acc - ola).abs().max())
    # and with scatter_add
    acc2 = lib.zeros(2, out_len, dtype=dt).scatter_add(
        1, pos.expand(2, -1), (frames * win).flatten(1)
    )
    rec("scatter_add", acc2[:, 10:20])
    # gradient of a spectral-magnitude loss back to the waveform through the DFT matrices
    xr = x.clone().requires_grad_()
    fr = F.pad(xr[:, None], (n_fft // 2, n_fft // 2), mode="reflect")[:, 0]
    fr = fr.unfold(-1, n_fft, hop) * win
    k = lib.arange(n_fft // 2 + 1, dtype=dt)[:, None]
    ang = 2 * math.pi * k * lib.arange(n_fft, dtype=dt) / n_fft
    mag = ((fr @ lib.cos(ang).T) ** 2 + (fr @ lib.sin(ang).T) ** 2 + 1e-9).sqrt()
    target = mag.detach().roll(1, -1)
    loss = (mag.log1p() - target.log1p()).abs().mean()
    loss.backward()
    rec("loss", loss)
    rec("g", xr.grad[:, :12])
    # a moving-average smoother with conv1d and a causal one with cumsum
    ma = F.conv1d(x[:, None], lib.full((1, 1, 5), 0.2, dtype=dt), padding=2)[:, 0]
    cs = x.cumsum(1)
    causal = (cs - F.pad(cs, (5, 0))[:, :-5]) / 5
    rec("ma", ma[:, :6])
    rec("causal", causal[:, 5:10])
