"""Session 25: tabular, time-series and recommender programs as data scientists write them
(categorical embeddings + BatchNorm, class imbalance with WeightedRandomSampler and weighted
losses, DeepFM, two-tower retrieval, BPR, implicit ALS, sliding windows with unfold/as_strided,
GRU seq2seq forecaster with teacher forcing, causal TCN, N-BEATS with pinball loss, masked losses
over padded sequences, k-fold DataLoaders, custom collate, early stopping with ReduceLROnPlateau,
metrics (AUC with tied ranks, PR curve, confusion matrices), missing values and scaling, a saved
pipeline under weights_only, TabTransformer, wide & deep). Each is written once against a
`torch`-like module and run under torch and minitorch after the same manual_seed; every recorded
value (losses, predictions, metrics, sampler orders, error texts, UserWarnings) must agree:
float64 to 1e-11 of its scale, float32 to 1e-4."""

from __future__ import annotations

import copy
import io
from importlib import import_module

import numpy as np
import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _data(lib):
    return import_module(lib.__name__ + ".utils.data")


def _rnn_utils(lib):
    return import_module(lib.__name__ + ".nn.utils.rnn")


def _user_warning(w):
    return issubclass(w.category, UserWarning)


PROGRAMS = [
    "cat_embed", "imbalance", "deepfm", "two_tower", "bpr", "als", "windows",
    "seq2seq_forecast", "tcn", "nbeats_quantile", "masked_seq", "loader_kfold",
    "collate_varlen", "early_stop", "metrics", "missing_scaling", "save_pipeline",
    "tab_transformer", "wide_deep",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, keep_warnings=_user_warning)
    got = run_program(prog, minitorch, dt, keep_warnings=_user_warning)
    assert_records_match(want, got, 1e-11 if dt == "float64" else 1e-4, dtypes=True)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_cat_embed(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    n = 48
    city = rng.choice(np.array(["paris", "rome", "oslo", "lima"], dtype=object), n)
    day = rng.integers(0, 7, n)
    num = np.stack([rng.normal(size=n), rng.uniform(size=n) * 100], 1)
    y = (num[:, 0] + (day > 3) > 0.5).astype(np.float64)
    mixed = np.concatenate([city[:, None], num.astype(object)], 1)  # like df.values
    try:  # torch lists complex and wider unsigned types minitorch lacks: compare the start
        lib.tensor(mixed)
    except TypeError as e:
        rec("obj", str(e).split(". The only")[0])
    _, city_codes = np.unique(city, return_inverse=True)
    uniq, day_codes = lib.unique(lib.tensor(day), return_inverse=True)
    rec("uniq", uniq)
    rec("codes", day_codes)
    cats = lib.stack([lib.from_numpy(city_codes), day_codes], 1)
    rec("cats_dtype", str(cats.dtype))
    xnum = lib.tensor(mixed[:, 1:].astype(np.float64), dtype=dt)
    cards = [int(c.max()) + 1 for c in cats.T]
    rec("cards", cards)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.embs = nn.ModuleList([nn.Embedding(c, min(50, (c + 1) // 2)) for c in cards])
            ne = sum(e.embedding_dim for e in self.embs)
            self.emb_drop = nn.Dropout(0.1)
            self.bn_num = nn.BatchNorm1d(2)
            self.head = nn.Sequential(
                nn.Linear(ne + 2, 8), nn.ReLU(), nn.BatchNorm1d(8), nn.Dropout(0.2), nn.Linear(8, 1)
            )

        def forward(self, xc, xn):
            e = [emb(xc[:, i]) for i, emb in enumerate(self.embs)]
            x = self.emb_drop(lib.cat(e, 1))
            return self.head(lib.cat([x, self.bn_num(xn)], 1)).squeeze(-1)

    model = Net().to(dt)
    opt = lib.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    yt = lib.tensor(y, dtype=dt)
    for ep in range(5):
        model.train()
        for i in range(0, n, 16):
            opt.zero_grad()
            out = model(cats[i : i + 16], xnum[i : i + 16])
            loss = lib.nn.functional.binary_cross_entropy_with_logits(out, yt[i : i + 16])
            loss.backward()
            opt.step()
            rec(f"loss{ep}", loss)
    model.eval()
    with lib.inference_mode():
        p = lib.sigmoid(model(cats, xnum))
    rec("pred", p)
    rec("bn_mean", model.bn_num.running_mean)
    rec("bn_var", model.bn_num.running_var)
    rec("nbt", model.bn_num.num_batches_tracked)
    rec("emb0", model.embs[0].weight)


def p_imbalance(lib, dt, rec):
    nn = lib.nn
    data = _data(lib)
    lib.manual_seed(1)
    n = 40
    y = (lib.rand(n) < 0.2).long()
    x = lib.randn(n, 3, dtype=dt) + y[:, None].to(dt)
    counts = lib.bincount(y)
    rec("counts", counts)
    cw = 1.0 / counts.double()
    sw = cw[y]
    g = lib.Generator().manual_seed(7)
    sampler = data.WeightedRandomSampler(sw, num_samples=n, replacement=True, generator=g)
    idx = list(sampler)
    rec("sampler", idx)
    rec("sampler2", list(sampler))
    ds = data.TensorDataset(x, y)
    dl = data.DataLoader(ds, batch_size=8, sampler=sampler)
    model = nn.Linear(3, 1).to(dt)
    model3 = nn.Linear(3, 3).to(dt)
    pw = (counts[0] / counts[1]).to(dt)
    crit = nn.BCEWithLogitsLoss(pos_weight=pw)
    crit3 = nn.CrossEntropyLoss(weight=lib.tensor([1.0, 2.0, 0.5], dtype=dt), label_smoothing=0.1)
    opt = lib.optim.SGD(
        list(model.parameters()) + list(model3.parameters()), lr=0.1, momentum=0.9, nesterov=True
    )
    for _ep in range(3):
        for xb, yb in dl:
            rec("yb", yb)
            opt.zero_grad()
            l1 = crit(model(xb).squeeze(1), yb.to(dt))
            y3 = (yb + (xb[:, 0] > 0).long()) % 3
            l2 = crit3(model3(xb), y3)
            (l1 + l2).backward()
            opt.step()
            rec("l1", l1)
            rec("l2", l2)
    crit3m = nn.CrossEntropyLoss(
        weight=lib.tensor([1.0, 2.0, 0.5], dtype=dt),
        ignore_index=1,
        label_smoothing=0.2,
        reduction="mean",
    )
    rec("ign", crit3m(model3(x), y))
    rec(
        "ignsum",
        nn.CrossEntropyLoss(label_smoothing=0.3, reduction="sum", ignore_index=0)(model3(x), y),
    )
    rec("w", model.weight)


def p_deepfm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(2)
    fields = [5, 4, 6]
    offs = lib.tensor([0] + list(np.cumsum(fields)[:-1]))
    nf, k = sum(fields), 4
    n = 32
    X = lib.stack([lib.randint(0, f, (n,)) for f in fields], 1)
    y = ((X[:, 0] + X[:, 1]) % 2).to(dt)

    class DeepFM(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Embedding(nf, 1)
            self.bias = nn.Parameter(lib.zeros(1))
            self.v = nn.Embedding(nf, k)
            nn.init.xavier_uniform_(self.v.weight)
            self.dnn = nn.Sequential(
                nn.Linear(len(fields) * k, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 1)
            )

        def forward(self, x):
            x = x + offs
            first = self.lin(x).sum(1) + self.bias
            e = self.v(x)
            sq_sum = e.sum(1).pow(2)
            sum_sq = (e * e).sum(1)
            second = 0.5 * (sq_sum - sum_sq).sum(1, keepdim=True)
            deep = self.dnn(e.flatten(1))
            return (first + second + deep).squeeze(1)

    m = DeepFM().to(dt)
    opt = lib.optim.Adagrad(m.parameters(), lr=0.05, initial_accumulator_value=0.1)
    for _step in range(8):
        opt.zero_grad()
        out = m(X)
        loss = nn.functional.binary_cross_entropy_with_logits(out, y)
        reg = 1e-3 * m.v.weight.norm(2).pow(2)
        (loss + reg).backward()
        opt.step()
        rec("loss", loss)
    rec.params("p", m)


def p_two_tower(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(3)
    nu, ni, d = 20, 30, 8
    users = lib.randint(0, nu, (64,))
    items = (users * 3 + lib.randint(0, 2, (64,))) % ni

    class Tower(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.emb = nn.Embedding(n, 16)
            self.mlp = nn.Sequential(nn.Linear(16, 16), nn.GELU(), nn.Linear(16, d))

        def forward(self, i):
            return F.normalize(self.mlp(self.emb(i)), dim=-1)

    qt, kt = Tower(nu).to(dt), Tower(ni).to(dt)
    tau = nn.Parameter(lib.tensor(0.07, dtype=dt).log())
    opt = lib.optim.Adam(list(qt.parameters()) + list(kt.parameters()) + [tau], lr=5e-3)
    for _step in range(6):
        perm = lib.randperm(64)[:16]
        q, k = qt(users[perm]), kt(items[perm])
        logits = q @ k.T / tau.exp()
        tgt = lib.arange(q.shape[0])
        loss = 0.5 * (F.cross_entropy(logits, tgt) + F.cross_entropy(logits.T, tgt))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(qt.parameters(), 1.0)
        opt.step()
        rec("loss", loss)
        rec("logits", logits)
    with lib.no_grad():
        allk = kt(lib.arange(ni))
        scores = qt(lib.arange(5)) @ allk.T
        top = scores.topk(3, dim=1)
        rec("topv", top.values)
        rec("topi", top.indices)
        r = (scores > scores[:, :1]).sum(1)
        rec("rank", r)
    rec("tau", tau)


def p_bpr(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(4)
    nu, ni, d = 12, 25, 6
    R = lib.rand(nu, ni) < 0.2
    pos = R.nonzero()
    rec("npos", pos.shape[0])
    P = nn.Embedding(nu, d).to(dt)
    Q = nn.Embedding(ni, d).to(dt)
    nn.init.normal_(P.weight, std=0.1)
    nn.init.normal_(Q.weight, std=0.1)
    opt = lib.optim.Adam(list(P.parameters()) + list(Q.parameters()), lr=0.05)
    for _ep in range(5):
        perm = lib.randperm(pos.shape[0])
        for b in perm.split(16):
            u, i = pos[b, 0], pos[b, 1]
            j = lib.randint(0, ni, (len(b),))
            xui = (P(u) * Q(i)).sum(-1)
            xuj = (P(u) * Q(j)).sum(-1)
            loss = -F.logsigmoid(xui - xuj).mean() + 1e-4 * (
                P(u).norm(dim=1).pow(2).sum() + Q(i).norm(dim=1).pow(2).sum()
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec("loss", loss)
    with lib.no_grad():
        S = P.weight @ Q.weight.T
        S = S.masked_fill(R, float("-inf"))
        rec("top", S.topk(4, dim=1).indices)
        hits = lib.gather(R.float(), 1, S.argsort(dim=1, descending=True)[:, :4])
        rec("hits", hits)


def p_als(lib, dt, rec):
    lib.manual_seed(5)
    nu, ni, d, lam, alpha = 10, 14, 4, 0.1, 10.0
    R = (lib.rand(nu, ni, dtype=dt) < 0.3).to(dt) * lib.randint(1, 5, (nu, ni)).to(dt)
    Pm = (R > 0).to(dt)
    C = 1 + alpha * R
    X = 0.1 * lib.randn(nu, d, dtype=dt)
    Y = 0.1 * lib.randn(ni, d, dtype=dt)
    eye = lib.eye(d, dtype=dt)
    for _it in range(3):
        YtY = Y.T @ Y
        for u in range(nu):
            Cu = C[u]
            A = YtY + Y.T @ ((Cu - 1)[:, None] * Y) + lam * eye
            b = Y.T @ (Cu * Pm[u])
            X[u] = lib.linalg.solve(A, b)
        XtX = X.T @ X
        A = XtX[None] + lib.einsum("ud,ui,ue->ide", X, C.T.T - 1, X) + lam * eye
        b = lib.einsum("ud,ui->id", X, C * Pm)
        Y = lib.linalg.solve(A, b.unsqueeze(-1)).squeeze(-1)
        loss = (C * (Pm - X @ Y.T) ** 2).sum() + lam * (X.pow(2).sum() + Y.pow(2).sum())
        rec("loss", loss)
    L = lib.linalg.cholesky(Y.T @ Y + lam * eye)
    rec("chol", L)
    rec("cs", lib.cholesky_solve((Y.T @ Pm.T), L))
    rec("X", X)


def _series(lib, dt, n=80):
    t = lib.arange(n, dtype=dt)
    return lib.sin(t * 0.3) + 0.1 * t / n + 0.05 * lib.randn(n, dtype=dt)


def p_windows(lib, dt, rec):
    lib.manual_seed(10)
    s = _series(lib, dt, 40)
    W, H = 8, 2
    win = s.unfold(0, W + H, 1)
    rec("win_shape", list(win.shape))
    rec("win_stride", list(win.stride()))
    st = lib.as_strided(s, (s.numel() - W - H + 1, W + H), (1, 1))
    rec("eq", lib.equal(win, st))
    X, Y = win[:, :W], win[:, W:]
    mu = X.mean(1, keepdim=True)
    sd = X.std(1, keepdim=True, unbiased=False) + 1e-5
    rec("mu", mu)
    rec("sd", sd)
    Xn = ((X - mu) / sd).unsqueeze(-1)
    multi = lib.stack([s, s.roll(1), s.cumsum(0)], 1)  # (T, 3)
    w2 = multi.unfold(0, 5, 2)  # (n, 3, 5)
    rec("w2", w2)
    rec("w2c", w2.transpose(1, 2).contiguous().is_contiguous())
    lstm = lib.nn.LSTM(1, 6, batch_first=True).to(dt)
    head = lib.nn.Linear(6, H).to(dt)
    opt = lib.optim.Adam(list(lstm.parameters()) + list(head.parameters()), lr=0.01)
    for _ep in range(4):
        out, (h, c) = lstm(Xn)
        pred = head(out[:, -1]) * sd + mu
        loss = lib.nn.functional.mse_loss(pred, Y)
        opt.zero_grad()
        loss.backward()
        gn = lib.nn.utils.clip_grad_norm_(lstm.parameters(), 0.5)
        opt.step()
        rec("loss", loss)
        rec("gn", gn)
    rec.err("unfold_big", lambda: s.unfold(0, 50, 1))
    rec.err("unfold_step0", lambda: s.unfold(0, 5, 0))


def p_seq2seq_forecast(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    s = _series(lib, dt, 60)
    W, H = 10, 4
    win = s.unfold(0, W + H, 2)
    X, Y = win[:, :W, None], win[:, W:, None]

    class F(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.GRU(1, 8, num_layers=2, batch_first=True, dropout=0.1)
            self.dec = nn.GRUCell(1, 8)
            self.out = nn.Linear(8, 1)

        def forward(self, x, y=None, tf=0.5):
            _, h = self.enc(x)
            h = h[-1]
            inp = x[:, -1]
            outs = []
            for t in range(H):
                h = self.dec(inp, h)
                o = self.out(h)
                outs.append(o)
                use_tf = y is not None and lib.rand(()) < tf
                inp = y[:, t] if use_tf else o
            return lib.stack(outs, 1)

    m = F().to(dt)
    opt = lib.optim.RMSprop(m.parameters(), lr=5e-3, alpha=0.9, centered=True)
    sched = lib.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    for _ep in range(5):
        m.train()
        pred = m(X, Y)
        loss = nn.functional.smooth_l1_loss(pred, Y, beta=0.5)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(m.parameters(), 0.1)
        opt.step()
        sched.step()
        rec("loss", loss)
        rec("lr", sched.get_last_lr()[0])
    m.eval()
    with lib.no_grad():
        hist = s[-W:].reshape(1, W, 1)
        roll = []
        for _k in range(3):
            p = m(hist)
            roll.append(p)
            hist = lib.cat([hist[:, H:], p], 1)
        rec("rollout", lib.cat(roll, 1))


def p_tcn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(12)
    x = lib.stack([_series(lib, dt, 32) for _ in range(4)])[:, None]

    class Block(nn.Module):
        def __init__(self, cin, cout, k, d):
            super().__init__()
            self.pad = (k - 1) * d
            self.c1 = nn.Conv1d(cin, cout, k, dilation=d)
            self.c2 = nn.Conv1d(cout, cout, k, dilation=d)
            self.down = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

        def forward(self, x):
            h = F.relu(self.c1(F.pad(x, (self.pad, 0))))
            h = F.dropout(h, 0.1, self.training)
            h = self.c2(F.pad(h, (self.pad, 0)))
            return F.relu(h + self.down(x))

    net = nn.Sequential(Block(1, 4, 3, 1), Block(4, 4, 3, 2), Block(4, 4, 3, 4), nn.Conv1d(4, 1, 1))
    net = net.to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=3e-3, amsgrad=True)
    for _ep in range(5):
        pred = net(x[..., :-1])
        loss = F.l1_loss(pred, x[..., 1:])
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    # causality: changing the future must not change earlier outputs
    net.eval()
    with lib.no_grad():
        y1 = net(x)
        x2 = x.clone()
        x2[..., 20:] = 0
        y2 = net(x2)
        rec("causal", (y1[..., :20] - y2[..., :20]).abs().max())
        rec("y1", y1)
    rec("rf", F.pad(lib.ones(1, 1, 3, dtype=dt), (2, 0), mode="replicate"))
    rec("reflect", F.pad(lib.arange(5, dtype=dt).view(1, 1, 5), (3, 1), mode="reflect"))
    rec("circ", F.pad(lib.arange(5, dtype=dt).view(1, 1, 5), (2, 2), mode="circular"))


def p_nbeats_quantile(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(13)
    s = _series(lib, dt, 70)
    L, H = 12, 4
    win = s.unfold(0, L + H, 1)
    X, Y = win[:, :L], win[:, L:]
    qs = lib.tensor([0.1, 0.5, 0.9], dtype=dt)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Sequential(nn.Linear(L, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
            self.theta_b = nn.Linear(16, 3, bias=False)
            self.theta_f = nn.Linear(16, 3, bias=False)
            tb = lib.linspace(0, 1, L, dtype=dt)
            tf = lib.linspace(0, 1, H, dtype=dt)
            self.register_buffer("Tb", lib.stack([tb**i for i in range(3)]))
            self.register_buffer("Tf", lib.stack([tf**i for i in range(3)]))

        def forward(self, x):
            h = self.fc(x)
            return self.theta_b(h) @ self.Tb, self.theta_f(h) @ self.Tf

    class NBeats(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([Block() for _ in range(3)])
            self.qhead = nn.Linear(H, H * 3)

        def forward(self, x):
            res, fc = x, 0
            for b in self.blocks:
                back, f = b(res)
                res = res - back
                fc = fc + f
            return self.qhead(fc).view(-1, H, 3)

    def pinball(pred, y):
        e = y.unsqueeze(-1) - pred
        return lib.max(qs * e, (qs - 1) * e).mean()

    m = NBeats().to(dt)
    opt = lib.optim.Adam(m.parameters(), lr=2e-3, betas=(0.9, 0.99), eps=1e-7)
    for _ep in range(6):
        pred = m(X)
        loss = pinball(pred, Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    with lib.no_grad():
        p = m(X)
        cover = ((Y >= p[..., 0]) & (Y <= p[..., 2])).float().mean()
        rec("cover", cover)
        rec("sorted", lib.sort(p, dim=-1).values)
        rec("qtile", lib.quantile(Y, qs, dim=0))
        rec(
            "nanq",
            lib.nanquantile(
                lib.where(Y > 0.5, Y, float("nan")), 0.5, dim=0, interpolation="midpoint"
            ),
        )


def p_masked_seq(lib, dt, rec):
    nn = lib.nn
    rnn_utils = _rnn_utils(lib)
    lib.manual_seed(14)
    lengths = lib.tensor([7, 3, 5, 1, 6])
    seqs = [lib.randn(int(n), 2, dtype=dt) for n in lengths]
    targets = [s.sum(1).cumsum(0) for s in seqs]
    X = rnn_utils.pad_sequence(seqs, batch_first=True)
    Yp = rnn_utils.pad_sequence(targets, batch_first=True, padding_value=-1.0)
    rec("X", X)
    rec("Y", Yp)
    mask = lib.arange(X.shape[1])[None, :] < lengths[:, None]
    rec("mask", mask)
    gru = nn.GRU(2, 5, batch_first=True, bidirectional=False).to(dt)
    head = nn.Linear(5, 1).to(dt)
    opt = lib.optim.Adam(list(gru.parameters()) + list(head.parameters()), lr=0.01)
    for _ep in range(4):
        packed = rnn_utils.pack_padded_sequence(X, lengths, batch_first=True, enforce_sorted=False)
        out, h = gru(packed)
        out, lens = rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=X.shape[1])
        pred = head(out).squeeze(-1)
        se = (pred - Yp) ** 2
        loss = (se * mask).sum() / mask.sum()
        loss2 = se.masked_select(mask).mean()
        loss3 = nn.functional.mse_loss(pred[mask], Yp[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("loss2", loss2)
        rec("loss3", loss3)
        rec("lens", lens)
        rec("h", h)
    last = out[lib.arange(5), lengths - 1]
    rec("last", last)
    rec("last_gather", out.gather(1, (lengths - 1).view(-1, 1, 1).expand(-1, 1, 5)).squeeze(1))
    ps = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    rec("bs", ps.batch_sizes)
    rec("sorted_idx", ps.sorted_indices)
    rec.err("unsorted", lambda: rnn_utils.pack_padded_sequence(X, lengths, batch_first=True))


def p_loader_kfold(lib, dt, rec):
    data = _data(lib)
    nn = lib.nn
    lib.manual_seed(20)
    n = 30
    X = lib.randn(n, 4, dtype=dt)
    y = (X[:, 0] * 2 - X[:, 1] > 0).long()
    ds = data.TensorDataset(X, y)
    rec("len", len(ds))
    perm = lib.randperm(n)
    folds = perm.chunk(3)
    for k in range(3):
        val_idx = folds[k]
        tr_idx = lib.cat([folds[j] for j in range(3) if j != k])
        tr = data.Subset(ds, tr_idx.tolist())
        va = data.Subset(ds, val_idx)
        g = lib.Generator()
        g.manual_seed(k)
        dl = data.DataLoader(tr, batch_size=6, shuffle=True, drop_last=True, generator=g)
        rec(f"nb{k}", len(dl))
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).to(dt)
        opt = lib.optim.SGD(model.parameters(), lr=0.2)
        for _ep in range(2):
            for xb, yb in dl:
                rec("yb", yb)
                loss = nn.functional.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
        vl = data.DataLoader(va, batch_size=4)
        correct = 0
        with lib.no_grad():
            for xb, yb in vl:
                correct += (model(xb).argmax(1) == yb).sum().item()
        rec(f"acc{k}", correct / len(va))
    a, b = data.random_split(ds, [0.7, 0.3], generator=lib.Generator().manual_seed(42))
    rec("split", a.indices)
    rec("split_b", b.indices)
    a, b, c = data.random_split(range(10), [3, 3, 4], generator=lib.Generator().manual_seed(1))
    rec("split3", list(c))
    rec.err("bad_split", lambda: data.random_split(ds, [10, 10]))
    rec.err("tds_mismatch", lambda: data.TensorDataset(X, y[:5]))


def p_collate_varlen(lib, dt, rec):
    data = _data(lib)
    rnn_utils = _rnn_utils(lib)
    lib.manual_seed(21)

    class Series(data.Dataset):
        def __init__(self):
            self.items = [lib.randn(int(lib.randint(2, 7, ())), dtype=dt) for _ in range(11)]

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            s = self.items[i]
            return {"x": s[:-1], "y": s[-1], "id": i}

    def collate(batch):
        xs = [b["x"] for b in batch]
        lens = lib.tensor([len(x) for x in xs])
        return {
            "x": rnn_utils.pad_sequence(xs, batch_first=True),
            "len": lens,
            "y": lib.stack([b["y"] for b in batch]),
            "id": [b["id"] for b in batch],
        }

    ds = Series()
    dl = data.DataLoader(ds, batch_size=4, shuffle=True, collate_fn=collate)
    for _ep in range(2):
        for b in dl:
            rec("x", b["x"])
            rec("len", b["len"])
            rec("y", b["y"])
            rec("id", b["id"])
    dd = data.DataLoader(ds, batch_size=3)
    try:
        next(iter(dd))
        rec("default", "no error")
    except Exception as e:  # noqa: BLE001
        rec("default", type(e).__name__)
    dl2 = data.DataLoader(
        [(lib.ones(2, dtype=dt) * i, i, float(i), {"k": i}) for i in range(5)],
        batch_size=2,
        drop_last=False,
    )
    for xb, ib, fb, db in dl2:
        rec("xb", xb)
        rec("ib", ib)
        rec("ib_dtype", str(ib.dtype))
        rec("fb_dtype", str(fb.dtype))
        rec("db", db["k"])
    bs = data.BatchSampler(
        data.RandomSampler(range(10), generator=lib.Generator().manual_seed(3)),
        batch_size=3,
        drop_last=True,
    )
    rec("bs", list(bs))


def p_early_stop(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(22)
    X = lib.randn(40, 3, dtype=dt)
    y = X @ lib.tensor([1.0, -2.0, 0.5], dtype=dt) + 0.3 * lib.randn(40, dtype=dt)
    Xtr, ytr, Xva, yva = X[:30], y[:30], X[30:], y[30:]
    model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1)).to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode="min", factor=0.5, patience=1, threshold=1e-2, cooldown=1, min_lr=1e-4
    )
    best, best_state, bad, patience = float("inf"), None, 0, 3
    for ep in range(25):
        model.train()
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(Xtr).squeeze(1), ytr)
        loss.backward()
        opt.step()
        model.eval()
        with lib.no_grad():
            vl = nn.functional.mse_loss(model(Xva).squeeze(1), yva).item()
        sched.step(vl)
        rec("vl", vl)
        rec("lr", opt.param_groups[0]["lr"])
        rec("bad", sched.num_bad_epochs)
        if vl < best - 1e-4:
            best, bad = vl, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            bad += 1
            if bad >= patience:
                rec("stop", ep)
                break
    model.load_state_dict(best_state)
    with lib.no_grad():
        rec("restored", nn.functional.mse_loss(model(Xva).squeeze(1), yva))
    rec("sd_keys", list(best_state.keys()))
    sd = sched.state_dict()
    rec("sched_best", sd["best"])
    rec("last_lr", sched.get_last_lr())
    rec("opt_sd", sorted(opt.state_dict()["param_groups"][0].keys()))


def p_metrics(lib, dt, rec):
    lib.manual_seed(23)
    n = 50
    y = (lib.rand(n) < 0.4).long()
    score = (lib.rand(n, dtype=dt) + 0.3 * y.to(dt)).mul(4).round().div(4)  # ties

    def ranks_avg(s):
        order = s.argsort()
        srt = s[order]
        r = lib.empty_like(s)
        r[order] = lib.arange(1, len(s) + 1, dtype=s.dtype)
        uniq, inv, cnt = lib.unique(srt, return_inverse=True, return_counts=True)
        csum = cnt.cumsum(0)
        avg = (csum - (cnt - 1) / 2.0).to(s.dtype)
        r[order] = avg[inv]
        return r

    r = ranks_avg(score)
    rec("ranks", r)
    npos = y.sum()
    nneg = n - npos
    auc = (r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)
    rec("auc", auc)
    order = score.argsort(descending=True, stable=True)
    ys = y[order]
    tps = ys.cumsum(0)
    fps = (1 - ys).cumsum(0)
    prec = tps / (tps + fps)
    recall = tps / npos
    rec("prec", prec)
    rec("recall", recall)
    ap = ((recall[1:] - recall[:-1]) * prec[1:]).sum() + recall[0] * prec[0]
    rec("ap", ap)
    pred = (score > 0.5).long()
    cm = lib.bincount(y * 2 + pred, minlength=4).reshape(2, 2)
    rec("cm", cm)
    y3 = lib.randint(0, 3, (n,))
    p3 = lib.randint(0, 3, (n,))
    cm3 = lib.zeros(3, 3, dtype=lib.long)
    cm3.index_put_((y3, p3), lib.ones(n, dtype=lib.long), accumulate=True)
    rec("cm3", cm3)
    rec("cm3b", lib.bincount(y3 * 3 + p3, minlength=9).view(3, 3))
    rec("per_class_recall", cm3.diag() / cm3.sum(1))
    f1 = 2 * cm3.diag() / (cm3.sum(0) + cm3.sum(1))
    rec("macro_f1", f1.mean())
    yt = lib.randn(n, dtype=dt)
    yp = yt + 0.1 * lib.randn(n, dtype=dt)
    rec("rmse", lib.sqrt(lib.mean((yt - yp) ** 2)))
    rec("mae", lib.mean(lib.abs(yt - yp)))
    rec("r2", 1 - ((yt - yp) ** 2).sum() / ((yt - yt.mean()) ** 2).sum())
    rec("mape", ((yt - yp).abs() / yt.abs().clamp_min(1e-8)).mean())
    rec("corr", lib.corrcoef(lib.stack([yt, yp])))
    rec("hist", lib.histc(yt, bins=5, min=-2, max=2))
    h, edges = lib.histogram(yt, bins=4)
    rec("histogram", h)
    rec("edges", edges)
    rec("bucket", lib.bucketize(yt, lib.tensor([-1.0, 0.0, 1.0], dtype=dt)))
    rec("ss", lib.searchsorted(lib.tensor([-1.0, 0.0, 1.0], dtype=dt), yt, right=True))
    rec("kth", lib.kthvalue(yt, 5).values)
    rec("mode", lib.mode(y3).values)
    rec("median", yt.median())


def p_missing_scaling(lib, dt, rec):
    lib.manual_seed(24)
    X = lib.randn(12, 4, dtype=dt) * lib.tensor([1.0, 10.0, 0.1, 5.0], dtype=dt) + 3
    mask = lib.rand(12, 4) < 0.2
    X[mask] = float("nan")
    rec("isnan", lib.isnan(X))
    rec("nmiss", lib.isnan(X).sum(0))
    col_mean = lib.nanmean(X, dim=0)
    rec("nanmean", col_mean)
    rec("nansum", X.nansum(0))
    rec("nanmedian", X.nanmedian(0).values)
    rec("nanmedian_i", X.nanmedian(0).indices)
    Xf = lib.where(lib.isnan(X), col_mean.expand_as(X), X)
    rec("Xf", Xf)
    Xf2 = X.clone()
    idx = lib.isnan(Xf2).nonzero(as_tuple=True)
    Xf2[idx] = col_mean[idx[1]]
    rec("same", lib.equal(Xf, Xf2))
    rec("ntn", lib.nan_to_num(X, nan=0.0, posinf=1e3))
    rec(
        "ntn_inf", lib.nan_to_num(lib.tensor([float("inf"), -float("inf"), float("nan")], dtype=dt))
    )
    rec("masked_fill", X.masked_fill(lib.isnan(X), -1))
    mu = Xf.mean(0, keepdim=True)
    sd = Xf.std(0, unbiased=False, keepdim=True)
    sd1 = Xf.std(0, correction=1, keepdim=True)
    rec("sd", sd)
    rec("sd1", sd1)
    rec("var_mean", lib.var_mean(Xf, dim=0, correction=0))
    rec("std_mean", lib.std_mean(Xf, dim=0))
    Z = (Xf - mu) / sd
    rec("Z", Z)
    mn, mx = Xf.aminmax(dim=0)
    rec("minmax", (Xf - mn) / (mx - mn))
    rec("robust", (Xf - Xf.median(0).values) / (Xf.quantile(0.75, 0) - Xf.quantile(0.25, 0)))
    rec("clip", Z.clamp(-1.5, 1.5))
    rec("clipt", lib.clamp(Z, min=lib.full((4,), -1.0, dtype=dt), max=lib.ones(4, dtype=dt)))
    rec("log1p", lib.log1p(Xf.abs()))
    rec("onehot", lib.nn.functional.one_hot(lib.tensor([0, 2, 1, 2]), num_classes=4))
    rec("nanmean_all", X.nanmean())
    rec("std_all_nan", lib.tensor([1.0], dtype=dt).std())
    rec("std_all_nan0", lib.tensor([1.0], dtype=dt).std(unbiased=False))
    rec("nanmean_empty", lib.nanmean(lib.full((3,), float("nan"), dtype=dt)))


def p_save_pipeline(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(30)
    X = np.random.default_rng(0).normal(size=(20, 3)) * [1, 5, 0.2] + [0, 2, 1]
    mean = X.mean(0)
    std = X.std(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1)).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=0.01)
    xt = lib.tensor((X - mean) / std, dtype=dt)
    for _ in range(3):
        loss = model(xt).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    ckpt = {
        "model": model.state_dict(),
        "opt": opt.state_dict(),
        "epoch": 3,
        "scaler": {"mean": mean, "std": std},
        "classes": ["a", "b"],
        "t_mean": lib.tensor(mean, dtype=dt),
        "loss": loss.item(),
    }
    buf = io.BytesIO()
    lib.save(ckpt, buf)
    buf.seek(0)
    try:
        lib.load(buf, weights_only=True)
        rec("wo", "no error")
    except Exception as e:  # noqa: BLE001
        rec("wo_type", type(e).__name__)
        msg = str(e)
        rec("wo_has_numpy", "numpy" in msg)
        rec("wo_first", msg.splitlines()[0])
    buf.seek(0)
    ck = lib.load(buf, weights_only=False)
    rec("keys", sorted(ck))
    rec("scaler_type", type(ck["scaler"]["mean"]).__name__)
    rec("scaler", ck["scaler"]["std"])
    rec("epoch", ck["epoch"])
    m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1)).to(dt)
    res = m2.load_state_dict(ck["model"])
    rec("res", repr(res))
    o2 = lib.optim.Adam(m2.parameters(), lr=0.5)
    o2.load_state_dict(ck["opt"])
    rec("lr", o2.param_groups[0]["lr"])
    m2.eval()
    model.eval()
    with lib.no_grad():
        rec("same", lib.equal(model(xt), m2(xt)))
    # safe: tensors-only checkpoint + plain containers
    buf2 = io.BytesIO()
    lib.save({"w": model.state_dict(), "mean": lib.from_numpy(mean), "n": 3, "names": ("a",)}, buf2)
    buf2.seek(0)
    ok = lib.load(buf2, weights_only=True)
    rec("ok_keys", sorted(ok))
    rec("ok_mean", ok["mean"])
    rec("ok_names", list(ok["names"]))
    # strict load errors
    bad = dict(ck["model"])
    bad.pop("1.running_mean")
    bad["extra"] = lib.zeros(1)
    rec.err("strict", lambda: m2.load_state_dict(bad))
    r = m2.load_state_dict(bad, strict=False)
    rec("missing", r.missing_keys)
    rec("unexpected", r.unexpected_keys)
    bad2 = dict(ck["model"])
    bad2["0.weight"] = lib.zeros(5, 3)
    rec.err("shape", lambda: m2.load_state_dict(bad2))
    # safe globals: allow numpy arrays explicitly
    buf.seek(0)
    with lib.serialization.safe_globals(
        [
            np.dtype,
            np.ndarray,
            np.core.multiarray._reconstruct if hasattr(np, "core") else np.ndarray,
            type(np.dtype("float64")),
        ]
    ):
        try:
            ck3 = lib.load(buf, weights_only=True)
            rec("safe_ok", sorted(ck3))
        except Exception as e:  # noqa: BLE001
            rec("safe_err", type(e).__name__)


def p_tab_transformer(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(31)
    n, ncat, card, d = 24, 3, 5, 8
    Xc = lib.randint(0, card, (n, ncat))
    Xn = lib.randn(n, 2, dtype=dt)
    y = ((Xc[:, 0] == Xc[:, 1]) | (Xn[:, 0] > 0)).long()

    class TabT(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(ncat * card, d)
            self.col = nn.Parameter(lib.randn(ncat, d) * 0.02)
            layer = nn.TransformerEncoderLayer(
                d, 2, dim_feedforward=16, dropout=0.1, batch_first=True, norm_first=True
            )
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.ln = nn.LayerNorm(2)
            self.mlp = nn.Sequential(nn.Linear(ncat * d + 2, 16), nn.SELU(), nn.Linear(16, 2))
            self.register_buffer("off", lib.arange(ncat) * card)

        def forward(self, xc, xn, mask=None):
            t = self.emb(xc + self.off) + self.col
            t = self.enc(t, src_key_padding_mask=mask)
            return self.mlp(lib.cat([t.flatten(1), self.ln(xn)], 1))

    m = TabT().to(dt)
    opt = lib.optim.AdamW(m.parameters(), lr=3e-3)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-4)
    for _ep in range(4):
        m.train()
        logits = m(Xc, Xn)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec("loss", loss)
        rec("lr", opt.param_groups[0]["lr"])
    m.eval()
    with lib.no_grad():
        mask = lib.zeros(n, ncat, dtype=lib.bool)
        mask[:, -1] = True
        out = m(Xc, Xn, mask)
        rec("masked", out)
        rec("prob", F.softmax(m(Xc, Xn), -1))
    mha = nn.MultiheadAttention(d, 2, batch_first=True).to(dt)
    q = lib.randn(2, ncat, d, dtype=dt)
    o, w = mha(q, q, q, need_weights=True, average_attn_weights=False)
    rec("mha_w", w)
    rec("mha_o", o)


def p_wide_deep(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(32)
    n = 32
    a = lib.randint(0, 4, (n,))
    b = lib.randint(0, 3, (n,))
    cross = a * 3 + b
    wide_x = lib.cat([nn.functional.one_hot(a, 4), nn.functional.one_hot(cross, 12)], 1).to(dt)
    dense = lib.randn(n, 3, dtype=dt)
    y = ((a + b) % 2).to(dt)

    class WD(nn.Module):
        def __init__(self):
            super().__init__()
            self.wide = nn.Linear(16, 1)
            self.ea = nn.Embedding(4, 3)
            self.eb = nn.Embedding(3, 3, padding_idx=0)
            self.deep = nn.Sequential(
                nn.Linear(9, 8), nn.LeakyReLU(0.1), nn.AlphaDropout(0.1), nn.Linear(8, 1)
            )

        def forward(self, w, a, b, d):
            return (self.wide(w) + self.deep(lib.cat([self.ea(a), self.eb(b), d], 1))).view(-1)

    m = WD().to(dt)
    opt_w = lib.optim.SGD(m.wide.parameters(), lr=0.1)
    rest = [p for n_, p in m.named_parameters() if not n_.startswith("wide")]
    opt_d = lib.optim.Adam(rest, lr=0.01)
    crit = nn.BCEWithLogitsLoss(reduction="none")
    for _ep in range(5):
        out = m(wide_x, a, b, dense)
        per = crit(out, y)
        w = lib.where(y > 0, 2.0, 1.0).to(dt)
        loss = (per * w).sum() / w.sum()
        opt_w.zero_grad()
        opt_d.zero_grad()
        loss.backward()
        opt_w.step()
        opt_d.step()
        rec("loss", loss)
    rec("eb_pad", m.eb.weight[0])
    rec("eb_grad0", m.eb.weight.grad[0])
    rec.params("p", m)
    rec("repr", repr(m))
