"""Session 25: classic machine learning written from scratch with tensor ops, as course
notebooks write it (gradient-descent and closed-form regression, logistic/softmax regression,
k-means and k-means++, kNN, Gaussian naive Bayes, PCA by SVD/eigh/pca_lowrank, linear SVM and
perceptron, EM for a Gaussian mixture, matrix factorisation, Karpathy's bigram and makemore MLP
with the manual-backprop exercise, decision stump and tree, t-SNE steps, a micrograd graph,
Newton's method with autograd Hessians, HMM forward/Viterbi, an RBM, Thompson-sampling bandits,
GP regression, metrics, PageRank, SVD compression, and the errors of common student mistakes),
each run under torch and minitorch after the same seed. Every recorded value must agree
(float32 to 1e-4 of its scale, float64 to 1e-8; integers, strings and errors exactly).
Printed text is not compared: float32 reductions may differ in the last bit (README)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")


# documented differences (README): sparse gradients
_SKIP = {"sp_grad_is_sparse"}


WORDS = [
    "emma",
    "olivia",
    "ava",
    "isabella",
    "sophia",
    "charlotte",
    "mia",
    "amelia",
    "harper",
    "evelyn",
    "abigail",
    "emily",
    "elizabeth",
    "mila",
    "ella",
    "avery",
    "sofia",
    "camila",
]


def linreg(torch, rec):
    torch.manual_seed(0)
    X = torch.randn(50, 3)
    true_w = torch.tensor([[2.0], [-1.0], [0.5]])
    y = X @ true_w + 0.3 + 0.1 * torch.randn(50, 1)
    w = torch.zeros(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr = 0.1
    for epoch in range(30):
        pred = X @ w + b
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            w.grad.zero_()
            b.grad.zero_()
        if epoch % 10 == 0:
            print(f"epoch {epoch} loss {loss.item():.6f}")
    rec("w", w)
    rec("b", b)
    print(w)
    print(b)
    Xb = torch.cat([X, torch.ones(50, 1)], dim=1)
    sol = torch.linalg.lstsq(Xb, y).solution
    rec("lstsq", sol)
    rec("normal", torch.inverse(Xb.T @ Xb) @ Xb.T @ y)
    rec("pinv", torch.linalg.pinv(Xb) @ y)
    rec("solve", torch.linalg.solve(Xb.T @ Xb, Xb.T @ y))
    print(torch.linalg.lstsq(Xb, y))
    r = torch.linalg.lstsq(Xb.double(), y.double(), driver="gelsd")
    rec("gelsd", r.solution)
    rec("rank", r.rank)
    rec("sv", r.singular_values)
    print(r.rank, r.residuals.shape)


def logreg(torch, rec):
    F = torch.nn.functional
    torch.manual_seed(1)
    X = torch.randn(100, 2)
    y = (X[:, 0] + X[:, 1] > 0).float()
    w = torch.randn(2, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=0.5)
    for _i in range(50):
        z = X @ w + b
        p = torch.sigmoid(z)
        loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()
        loss2 = F.binary_cross_entropy_with_logits(z, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("loss2", loss2)
    rec("w", w)
    rec("b", b)
    acc = ((torch.sigmoid(X @ w + b) > 0.5).float() == y).float().mean()
    rec("acc", acc)
    print(f"acc={acc.item():.3f} loss={loss.item()}")
    print(acc, loss)


def softmax_reg(torch, rec):
    F = torch.nn.functional
    torch.manual_seed(2)
    N, D, C = 60, 4, 3
    X = torch.randn(N, D)
    y = torch.randint(0, C, (N,))
    W = torch.zeros(D, C, requires_grad=True)
    for _it in range(20):
        logits = X @ W
        logp = logits.log_softmax(dim=1)
        nll = -logp.gather(1, y.unsqueeze(1)).mean()
        nll2 = -(F.one_hot(y, C) * logp).sum(1).mean()
        nll3 = -logp[torch.arange(N), y].mean()
        W.grad = None
        nll.backward()
        W.data -= 0.5 * W.grad
    rec("nll", nll)
    rec("nll2", nll2)
    rec("nll3", nll3)
    rec("W", W)
    oh = F.one_hot(y)
    rec("oh", oh)
    print(oh[:3])
    print(oh.dtype, oh.shape)
    probs = F.softmax(X @ W, dim=-1)
    rec("pred", probs.argmax(1))
    print(probs[:2])
    print(logp.gather(1, y[:, None])[:3])


def kmeans(torch, rec):
    torch.manual_seed(3)
    X = torch.cat([torch.randn(20, 2) + torch.tensor([3.0, 0]), torch.randn(20, 2) - 3])
    k = 3
    C = X[torch.randperm(X.shape[0])[:k]].clone()
    for it in range(10):
        d = torch.cdist(X, C)
        d2 = ((X[:, None, :] - C[None]) ** 2).sum(-1)
        assign = d.argmin(dim=1)
        rec(f"assign{it}", assign)
        rec(f"d2{it}", d2)
        counts = torch.bincount(assign, minlength=k)
        sums = torch.zeros(k, 2).index_add_(0, assign, X)
        sums2 = torch.zeros(k, 2).scatter_add_(0, assign[:, None].expand(-1, 2), X)
        rec("sums2", sums2)
        newC = sums / counts.clamp(min=1).unsqueeze(1)
        empty = counts == 0
        C = torch.where(empty[:, None], C, newC)
    rec("C", C)
    rec("counts", counts)
    print(C)
    print(counts)
    inertia = d.min(dim=1).values.pow(2).sum()
    print(inertia.item())
    rec("inertia", inertia)
    u, inv, cnt = torch.unique(assign, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)


def knn(torch, rec):
    torch.manual_seed(4)
    Xtr = torch.randn(40, 3)
    ytr = torch.randint(0, 3, (40,))
    Xte = torch.randn(10, 3)
    d = torch.cdist(Xte, Xtr)
    vals, idx = d.topk(5, dim=1, largest=False)
    rec("vals", vals)
    rec("idx", idx)
    nb = ytr[idx]
    rec("mode", nb.mode(dim=1).values)
    rec("modei", nb.mode(dim=1).indices)
    votes = torch.stack([torch.bincount(r, minlength=3) for r in nb])
    rec("votes", votes)
    rec("pred", votes.argmax(1))
    print(nb.mode(1))
    print(torch.topk(d[0], 3, largest=False))
    s, si = torch.sort(d, dim=1)
    rec("si", si[:, :5])
    oh = torch.nn.functional.one_hot(nb, 3).sum(1)
    rec("oh", oh)
    w = 1.0 / (vals + 1e-8)
    score = torch.zeros(10, 3).scatter_add_(1, nb, w)
    rec("score", score)


def gnb(torch, rec):
    torch.manual_seed(5)
    X = torch.randn(90, 2) + torch.repeat_interleave(
        torch.tensor([[0.0, 0], [2, 2], [-2, 1]]), 30, dim=0
    )
    y = torch.arange(3).repeat_interleave(30)
    classes = y.unique()
    mu = torch.stack([X[y == c].mean(0) for c in classes])
    var = torch.stack([X[y == c].var(0, unbiased=False) for c in classes])
    prior = torch.bincount(y).float() / len(y)
    rec("mu", mu)
    rec("var", var)
    rec("prior", prior)
    ll = -0.5 * (
        torch.log(2 * torch.pi * var)[None] + (X[:, None] - mu[None]) ** 2 / var[None]
    ).sum(-1)
    logpost = ll + prior.log()
    rec("logpost", logpost)
    post = torch.softmax(logpost, 1)
    rec("post", post)
    pred = logpost.argmax(1)
    print((pred == y).float().mean())
    print(mu, var.std(0, correction=1))
    dist = torch.distributions.Normal(mu, var.sqrt())
    lp = dist.log_prob(X[:, None]).sum(-1)
    rec("lp", lp)


def pca(torch, rec):
    torch.manual_seed(6)
    X = torch.randn(30, 5, dtype=torch.float64) @ torch.randn(5, 5, dtype=torch.float64)
    Xc = X - X.mean(0, keepdim=True)
    U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
    rec("S", S)
    proj = Xc @ Vh[:2].T
    rec("absproj", proj.abs())
    cov = Xc.T @ Xc / (X.shape[0] - 1)
    rec("cov", cov)
    rec("cov2", torch.cov(X.T))
    evals, evecs = torch.linalg.eigh(cov)
    rec("evals", evals)
    rec("evecs_abs", evecs.abs())
    rec("ratio", S**2 / (S**2).sum())
    ev = evals.flip(0)
    rec("flip", ev)
    U2, S2, V2 = torch.svd(Xc)
    rec("S2", S2)
    print(S)
    rec("explained", torch.cumsum(ev, 0) / ev.sum())
    rec("recon", (U[:, :2] * S[:2]) @ Vh[:2])
    if hasattr(torch, "pca_lowrank"):
        U3, S3, V3 = torch.pca_lowrank(X, q=3, center=True)
        rec("S3", S3)
    U4, S4, V4 = torch.svd_lowrank(Xc, q=5)
    rec("S4", S4)


def svm(torch, rec):
    torch.manual_seed(7)
    X = torch.randn(80, 2)
    y = torch.where(X[:, 0] - X[:, 1] > 0, 1.0, -1.0)
    w = torch.zeros(2, requires_grad=True)
    b = torch.zeros((), requires_grad=True)
    C = 1.0
    opt = torch.optim.SGD([w, b], lr=0.05, momentum=0.9)
    for _ep in range(40):
        margins = y * (X @ w + b)
        hinge = torch.clamp(1 - margins, min=0).mean()
        loss = 0.5 * w.dot(w) + C * hinge
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("w", w)
    rec("b", b)
    rec("loss", loss)
    rec("hinge2", torch.nn.functional.relu(1 - margins).mean())
    rec("mm", torch.nn.functional.hinge_embedding_loss(X @ w, y))
    rec(
        "mml",
        torch.nn.functional.multi_margin_loss(torch.stack([X @ w, -(X @ w)], 1), (y > 0).long()),
    )
    print(f"{loss.item():.4f}", b)
    # perceptron
    w = torch.zeros(3)
    Xa = torch.cat([X, torch.ones(80, 1)], 1)
    for ep in range(5):
        errors = 0
        for i in range(len(X)):
            if y[i] * (w @ Xa[i]) <= 0:
                w += y[i] * Xa[i]
                errors += 1
        rec(f"errs{ep}", errors)
    rec("percw", w)
    print(w, torch.sign(Xa @ w)[:5])


def gmm_em(torch, rec):
    torch.manual_seed(8)
    X = torch.cat([torch.randn(30, 2) * 0.5 + 2, torch.randn(30, 2) * 0.8 - 1]).double()
    K = 2
    mu = X[torch.randperm(60)[:K]]
    var = torch.ones(K, 2, dtype=torch.float64)
    pi = torch.full((K,), 1.0 / K, dtype=torch.float64)
    for it in range(15):
        logp = -0.5 * (((X[:, None] - mu) ** 2) / var + torch.log(2 * torch.pi * var)).sum(-1)
        logr = logp + pi.log()
        ll = torch.logsumexp(logr, dim=1)
        resp = (logr - ll[:, None]).exp()
        Nk = resp.sum(0)
        mu = (resp.T @ X) / Nk[:, None]
        var = (resp.T @ X.pow(2)) / Nk[:, None] - mu**2 + 1e-6
        pi = Nk / Nk.sum()
        rec(f"ll{it}", ll.sum())
    rec("mu", mu)
    rec("var", var)
    rec("pi", pi)
    print(f"log-likelihood: {ll.sum().item():.6f}")
    print(pi)
    mvn = torch.distributions.MultivariateNormal(mu, torch.diag_embed(var))
    mix = torch.distributions.MixtureSameFamily(torch.distributions.Categorical(pi), mvn)
    rec("mixlp", mix.log_prob(X))
    rec("samp", mix.sample((5,)))


def mf(torch, rec):
    nn = torch.nn
    torch.manual_seed(9)
    nu, ni, k = 10, 12, 3
    users = torch.randint(0, nu, (64,))
    items = torch.randint(0, ni, (64,))
    ratings = torch.randint(1, 6, (64,)).float()

    class MF(nn.Module):
        def __init__(self):
            super().__init__()
            self.U = nn.Embedding(nu, k)
            self.V = nn.Embedding(ni, k)
            self.ub = nn.Embedding(nu, 1)
            self.ib = nn.Embedding(ni, 1)
            nn.init.normal_(self.U.weight, std=0.1)
            nn.init.normal_(self.V.weight, std=0.1)
            nn.init.zeros_(self.ub.weight)
            nn.init.zeros_(self.ib.weight)

        def forward(self, u, i):
            return (self.U(u) * self.V(i)).sum(1) + self.ub(u).squeeze() + self.ib(i).squeeze()

    model = MF()
    print(model)
    opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=1e-4)
    for ep in range(30):
        pred = model(users, items)
        loss = nn.functional.mse_loss(pred, ratings)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if ep % 10 == 0:
            print(ep, round(loss.item(), 4))
    rec("loss", loss)
    rec("U", model.U.weight)
    rec("ib", model.ib.weight)
    sp = nn.Embedding(nu, k, sparse=True)
    o2 = torch.optim.SparseAdam(list(sp.parameters()), lr=0.1)
    for _ep in range(3):
        ls = sp(users).pow(2).sum()
        o2.zero_grad()
        ls.backward()
        o2.step()
    rec("sp", sp.weight)
    rec("sp_grad_is_sparse", sp.weight.grad.is_sparse)
    R = torch.zeros(nu, ni)
    R[users, items] = ratings
    mask = R > 0
    rec("R", R)
    rec("nnz", mask.sum())
    # ALS step
    lam = 0.1
    V = model.V.weight.detach()
    Unew = torch.linalg.solve(V.T @ V + lam * torch.eye(k), V.T @ R.T).T
    rec("als", Unew)


def bigram(torch, rec):
    chars = sorted(set("".join(WORDS)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    V = len(stoi)
    N = torch.zeros((V, V), dtype=torch.int32)
    for w in WORDS:
        chs = ["."] + list(w) + ["."]
        for c1, c2 in zip(chs, chs[1:], strict=False):
            N[stoi[c1], stoi[c2]] += 1
    rec("N", N)
    print(N[0, :8])
    P = (N + 1).float()
    P /= P.sum(1, keepdim=True)
    rec("P", P)
    g = torch.Generator().manual_seed(2147483647)
    rec("rand", torch.rand(3, generator=g))
    p = N[0].float()
    p = p / p.sum()
    s = torch.multinomial(p, num_samples=20, replacement=True, generator=g)
    rec("s", s)
    out_all = []
    for _i in range(5):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0:
                break
        out_all.append("".join(out))
    print(out_all)
    log_likelihood = 0.0
    n = 0
    for w in WORDS[:3]:
        chs = ["."] + list(w) + ["."]
        for c1, c2 in zip(chs, chs[1:], strict=False):
            prob = P[stoi[c1], stoi[c2]]
            logprob = torch.log(prob)
            log_likelihood += logprob
            n += 1
    print(f"{log_likelihood=}")
    nll = -log_likelihood
    print(f"{nll / n}")
    rec("nll", nll / n)
    print(P.sum(1)[:3], P[0].sum())
    # neural version
    xs, ys = [], []
    for w in WORDS:
        chs = ["."] + list(w) + ["."]
        for c1, c2 in zip(chs, chs[1:], strict=False):
            xs.append(stoi[c1])
            ys.append(stoi[c2])
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()
    print("number of examples:", num)
    g = torch.Generator().manual_seed(2147483647)
    W = torch.randn((V, V), generator=g, requires_grad=True)
    F = torch.nn.functional
    for _k in range(20):
        xenc = F.one_hot(xs, num_classes=V).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        W.data += -50 * W.grad
    print(loss.item())
    rec("loss", loss)
    rec("W", W)
    for _i in range(3):
        out = []
        ix = 0
        while True:
            xenc = F.one_hot(torch.tensor([ix]), num_classes=V).float()
            p = (xenc @ W).softmax(1)
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0 or len(out) > 20:
                break
        print("".join(out))


def makemore_mlp(torch, rec):
    F = torch.nn.functional
    chars = sorted(set("".join(WORDS)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    block = 3
    X, Y = [], []
    for w in WORDS:
        context = [0] * block
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, X.dtype, Y.shape, Y.dtype)
    g = torch.Generator().manual_seed(2147483647)
    V = len(stoi)
    C = torch.randn((V, 2), generator=g)
    W1 = torch.randn((6, 50), generator=g) * (5 / 3) / (6**0.5)
    b1 = torch.randn(50, generator=g) * 0.01
    W2 = torch.randn((50, V), generator=g) * 0.01
    b2 = torch.randn(V, generator=g) * 0
    parameters = [C, W1, b1, W2, b2]
    print(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True
    lre = torch.linspace(-3, 0, 30)
    lrs = 10**lre
    rec("lrs", lrs)
    for i in range(30):
        ix = torch.randint(0, X.shape[0], (32,), generator=g)
        emb = C[X[ix]]
        h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < 20 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        rec(f"ix{i}", ix)
    rec("loss", loss)
    print(loss.item())
    for p in parameters:
        rec("p", p)
    emb = C[X]
    print(emb.shape)
    rec("unbind", torch.cat(torch.unbind(emb, 1), 1))
    h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
    full = F.cross_entropy(h @ W2 + b2, Y)
    print(f"{full.item():.4f}")
    print(full)


def manual_backprop(torch, rec):
    F = torch.nn.functional
    g = torch.Generator().manual_seed(2147483647)
    n, V, E, block, H = 32, 27, 10, 3, 64
    C = torch.randn((V, E), generator=g)
    W1 = torch.randn((E * block, H), generator=g) * (5 / 3) / ((E * block) ** 0.5)
    b1 = torch.randn(H, generator=g) * 0.1
    W2 = torch.randn((H, V), generator=g) * 0.1
    b2 = torch.randn(V, generator=g) * 0.1
    bngain = torch.randn((1, H), generator=g) * 0.1 + 1.0
    bnbias = torch.randn((1, H), generator=g) * 0.1
    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    for p in parameters:
        p.requires_grad = True
    Xb = torch.randint(0, V, (n, block), generator=g)
    Yb = torch.randint(0, V, (n,), generator=g)
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()
    for p in parameters:
        p.grad = None
    for t in [
        logprobs,
        probs,
        counts,
        counts_sum,
        counts_sum_inv,
        norm_logits,
        logit_maxes,
        logits,
        h,
        hpreact,
        bnraw,
        bnvar_inv,
        bnvar,
        bndiff2,
        bndiff,
        hprebn,
        bnmeani,
        embcat,
        emb,
    ]:
        t.retain_grad()
    loss.backward()
    rec("loss", loss)
    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0 / n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h**2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dembcat = dhpreact @ W1.T

    def cmp(s, dt, t):
        ex = torch.all(dt == t.grad).item()
        app = torch.allclose(dt, t.grad)
        print(f"{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s}")
        rec(s, dt)
        rec(s + "_g", t.grad)
        rec(s + "_app", app)

    cmp("logprobs", dlogprobs, logprobs)
    cmp("probs", dprobs, probs)
    cmp("counts_sum_inv", dcounts_sum_inv, counts_sum_inv)
    cmp("logits", dlogits, logits)
    cmp("h", dh, h)
    cmp("W2", dW2, W2)
    cmp("b2", db2, b2)
    cmp("bngain", dbngain, bngain)
    # fast version
    loss_fast = F.cross_entropy(logits, Yb)
    print(loss_fast.item(), "diff:", (loss_fast - loss).item())
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n
    cmp("logits_fast", dlogits, logits)
    dhprebn = (
        bngain
        * bnvar_inv
        / n
        * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
    )
    cmp("hprebn", dhprebn, hprebn)
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            dC[Xb[k, j]] += demb[k, j]
    cmp("C", dC, C)
    dC2 = torch.zeros_like(C).index_add_(0, Xb.view(-1), demb.view(-1, E))
    rec("dC2", dC2)


def stump(torch, rec):
    torch.manual_seed(10)
    X = torch.randn(40, 3)
    y = (X[:, 1] > 0.2).long() ^ (torch.rand(40) < 0.1).long()
    best = (float("inf"), None, None)
    for f in range(3):
        xs, order = torch.sort(X[:, f])
        ys = y[order]
        left_pos = torch.cumsum(ys, 0)
        left_n = torch.arange(1, 41)
        right_pos = ys.sum() - left_pos
        right_n = 40 - left_n

        def gini(pos, n):
            p = pos / n.clamp(min=1)
            return 1 - p**2 - (1 - p) ** 2

        score = (left_n * gini(left_pos, left_n) + right_n * gini(right_pos, right_n)) / 40
        rec(f"score{f}", score)
        i = torch.argmin(score[:-1])
        if score[i] < best[0]:
            best = (score[i].item(), f, ((xs[i] + xs[i + 1]) / 2).item())
    rec("best", list(best))
    print(best)
    f, thr = best[1], best[2]
    pred = (X[:, f] > thr).long()
    print(f"acc {(pred == y).float().mean():.3f}")
    # adaboost weights
    w = torch.full((40,), 1 / 40)
    err = (w * (pred != y)).sum()
    alpha = 0.5 * torch.log((1 - err) / err)
    w = w * torch.exp(-alpha * (2 * (pred == y).float() - 1))
    w /= w.sum()
    rec("w", w)
    rec("alpha", alpha)
    ent = -(w * w.log()).sum()
    rec("ent", ent)
    rec("searchsorted", torch.searchsorted(xs, torch.tensor([-1.0, 0.0, 1.0])))
    rec("bucketize", torch.bucketize(X[:, 0], torch.tensor([-0.5, 0.5])))
    rec("hist", torch.histc(X[:, 0], bins=5, min=-2, max=2))
    h = torch.histogram(X[:, 0], bins=4)
    rec("hist2", h.hist)
    rec("edges", h.bin_edges)


def tsne(torch, rec):
    torch.manual_seed(11)
    X = torch.randn(20, 5, dtype=torch.float64)
    D = torch.cdist(X, X) ** 2
    beta = torch.ones(20, 1, dtype=torch.float64)
    P = torch.exp(-D * beta)
    P.fill_diagonal_(0)
    P = P / P.sum(1, keepdim=True)
    P = (P + P.T) / (2 * 20)
    rec("P", P)
    Y = 1e-2 * torch.randn(20, 2, dtype=torch.float64)
    Y.requires_grad_(True)
    opt = torch.optim.SGD([Y], lr=100.0, momentum=0.5)
    for it in range(20):
        num = 1 / (1 + torch.cdist(Y, Y) ** 2)
        num = num * (1 - torch.eye(20, dtype=torch.float64))
        Q = num / num.sum()
        kl = (P * torch.log((P + 1e-12) / (Q + 1e-12))).sum()
        opt.zero_grad()
        kl.backward()
        # analytic gradient
        PQ = (P - Q) * num
        dY = 4 * (PQ.sum(1, keepdim=True) * Y - PQ @ Y)
        rec(f"g{it}", Y.grad)
        rec(f"an{it}", dY)
        opt.step()
    rec("Y", Y)
    rec("kl", kl)
    print(f"KL {kl.item():.8f}")
    print(torch.pdist(Y.detach())[:4])
    rec("pdist", torch.pdist(Y.detach()))


def micrograd(torch, rec):
    a = torch.tensor(-4.0, requires_grad=True, dtype=torch.double)
    b = torch.tensor(2.0, requires_grad=True, dtype=torch.double)
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    print(f"{g.data.item():.4f}")
    print(f"{a.grad.item():.4f}")
    print(f"{b.grad.item():.4f}")
    print(g, a.grad)
    rec("g", g)
    rec("ag", a.grad)
    rec("bg", b.grad)
    x1 = torch.Tensor([2.0]).double()
    x1.requires_grad = True
    x2 = torch.Tensor([0.0]).double()
    x2.requires_grad = True
    w1 = torch.Tensor([-3.0]).double()
    w1.requires_grad = True
    w2 = torch.Tensor([1.0]).double()
    w2.requires_grad = True
    bb = torch.Tensor([6.8813735870195432]).double()
    bb.requires_grad = True
    n = x1 * w1 + x2 * w2 + bb
    o = torch.tanh(n)
    print(o.data.item())
    o.backward()
    print("---")
    print("x2", x2.grad.item())
    print("w2", w2.grad.item())
    print("x1", x1.grad.item())
    print("w1", w1.grad.item())
    print(o, x1.grad, torch.Tensor([2.0]), torch.Tensor([2.0]).dtype)
    print(o.grad_fn, o.grad_fn.next_functions)
    print(a.grad_fn, c.grad_fn, g.grad_fn.next_functions[0][0].name())
    rec("o", o)


def mistakes(torch, rec):
    F = torch.nn.functional
    torch.manual_seed(0)
    logits = torch.randn(4, 3, requires_grad=True)
    cases = {
        "ce_float_targets": lambda: F.cross_entropy(logits, torch.tensor([0.0, 1.0, 2.0, 1.0])),
        "ce_int32": lambda: F.cross_entropy(logits, torch.tensor([0, 1, 2, 1], dtype=torch.int32)),
        "ce_N1": lambda: F.cross_entropy(logits, torch.tensor([[0], [1], [2], [1]])),
        "ce_oob": lambda: F.cross_entropy(logits, torch.tensor([0, 1, 3, 1])),
        "nll_oob": lambda: F.nll_loss(logits.log_softmax(1), torch.tensor([0, 1, -2, 1])),
        "bce_long": lambda: F.binary_cross_entropy(
            torch.sigmoid(logits[:, 0]), torch.tensor([0, 1, 1, 0])
        ),
        "bcel_long": lambda: F.binary_cross_entropy_with_logits(
            logits[:, 0], torch.tensor([0, 1, 1, 0])
        ),
        "bce_shape": lambda: F.binary_cross_entropy(
            torch.sigmoid(logits[:, :1]), torch.tensor([0.0, 1, 1, 0])
        ),
        "bce_range": lambda: F.binary_cross_entropy(logits[:, 0], torch.tensor([0.0, 1, 1, 0])),
        "int_rg": lambda: torch.tensor([1, 2, 3], requires_grad=True),
        "int_rg2": lambda: torch.arange(3).requires_grad_(),
        "int_rg3": lambda: setattr(torch.zeros(3, dtype=torch.long), "requires_grad", True),
        "long_matmul": lambda: torch.tensor([[1, 2]]) @ torch.randn(2, 2),
        "one_hot_float": lambda: F.one_hot(torch.tensor([0.0, 1.0])),
        "one_hot_neg": lambda: F.one_hot(torch.tensor([0, -1])),
        "one_hot_small": lambda: F.one_hot(torch.tensor([0, 3]), num_classes=3),
        "view_nc": lambda: torch.randn(3, 4).t().view(-1),
        "item_multi": lambda: torch.randn(3).item(),
        "numpy_rg": lambda: logits.numpy(),
        "leaf_inplace": lambda: logits.add_(1),
        "mm_shape": lambda: torch.randn(3, 4) @ torch.randn(3, 4),
        "mv_shape": lambda: torch.randn(3, 4).mv(torch.randn(3)),
        "multinomial_neg": lambda: torch.multinomial(torch.tensor([0.5, -0.1, 0.6]), 1),
        "multinomial_zero": lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1),
        "multinomial_norepl": lambda: torch.multinomial(torch.tensor([0.5, 0.5, 0.0]), 3),
        "randint_bad": lambda: torch.randint(5, 5, (3,)),
        "gather_int32": lambda: logits.gather(
            1, torch.tensor([[0], [1], [2], [1]], dtype=torch.int32)
        ),
        "gather_dim": lambda: logits.gather(1, torch.tensor([0, 1, 2, 1])),
        "index_float": lambda: logits[torch.tensor([0.0, 1.0])],
        "embed_oob": lambda: torch.nn.Embedding(5, 2)(torch.tensor([5])),
        "embed_float": lambda: torch.nn.Embedding(5, 2)(torch.tensor([1.0])),
        "linear_dtype": lambda: torch.nn.Linear(2, 2)(torch.tensor([[1, 2]])),
        "linear_double": lambda: torch.nn.Linear(2, 2)(
            torch.tensor([[1.0, 2.0]], dtype=torch.float64)
        ),
        "linear_shape": lambda: torch.nn.Linear(3, 2)(torch.randn(4, 2)),
        "backward_twice": lambda: [t.backward() for t in [(logits**2).sum()] for _ in range(2)],
        "backward_nonscalar": lambda: (logits * 2).backward(),
        "no_grad_backward": lambda: torch.randn(3).sum().backward(),
        "cat_dtype": lambda: torch.cat([torch.tensor([1]), torch.tensor([1.5])]),
        "stack_shape": lambda: torch.stack([torch.randn(2), torch.randn(3)]),
        "cdist_int": lambda: torch.cdist(torch.tensor([[1, 2]]), torch.tensor([[1, 2]])),
        "argmax_float": lambda: torch.tensor([1, 2]).float().argmax(dim=2),
        "mean_int": lambda: torch.tensor([1, 2, 3]).mean(),
        "std_int": lambda: torch.tensor([1, 2, 3]).std(),
        "topk_big": lambda: torch.randn(3).topk(5),
        "bincount_neg": lambda: torch.bincount(torch.tensor([1, -1])),
        "bincount_float": lambda: torch.bincount(torch.tensor([1.0])),
        "bincount_2d": lambda: torch.bincount(torch.tensor([[1]])),
        "lstsq_shape": lambda: torch.linalg.lstsq(torch.randn(5, 2), torch.randn(4, 1)),
        "inverse_sing": lambda: torch.inverse(torch.zeros(2, 2)),
        "cholesky_np": lambda: torch.linalg.cholesky(-torch.eye(2)),
        "eigh_nonsq": lambda: torch.linalg.eigh(torch.randn(2, 3)),
        "kl_div_args": lambda: F.kl_div(torch.tensor([0.2, 0.8]), torch.tensor([0.5, 0.5])),
        "sgd_nonleaf": lambda: torch.optim.SGD([logits * 2], lr=0.1),
        "sgd_tensor": lambda: torch.optim.SGD(logits, lr=0.1),
        "grad_int_zero": lambda: torch.tensor(3).grad.zero_(),
    }
    for name, fn in cases.items():
        with __import__("warnings").catch_warnings(record=True) as w:
            __import__("warnings").simplefilter("always")
            try:
                r = fn()
                if hasattr(r, "shape"):
                    rec(name, f"ok {tuple(r.shape)} {r.dtype}")
                else:
                    rec(name, f"ok {type(r).__name__}")
            except Exception as e:
                rec(name, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        rec(
            name + ".w",
            [str(x.message)[:200] for x in w if "Triggered" not in str(x.message) or True],
        )


def mse_shapes(torch, rec):
    F = torch.nn.functional
    torch.manual_seed(0)
    pred = torch.randn(5, 1, requires_grad=True)
    y = torch.randn(5)
    import warnings

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        l1 = F.mse_loss(pred, y)
        l2 = torch.nn.MSELoss()(pred, y)
        l3 = F.l1_loss(pred, y)
        l4 = F.smooth_l1_loss(pred, y)
        l5 = F.huber_loss(pred, y)
    rec("l", l1)
    rec("l2", l2)
    rec("l3", l3)
    rec("l4", l4)
    rec("l5", l5)
    rec("w", [str(x.message) for x in w])
    rec("wfile", [x.filename.endswith(".py") and "test_s25_ml" in x.filename for x in w])
    print(l1, l1.shape)
    l1.backward()
    rec("g", pred.grad)
    rec("bc", (pred - y).shape)
    print((pred - y).shape)


def dataloader_linreg(torch, rec):
    from importlib import import_module

    data = import_module(torch.__name__ + ".utils.data")
    torch.manual_seed(12)
    X = torch.rand(64, 1) * 10
    y = 3 * X.squeeze() - 2 + torch.randn(64)
    ds = data.TensorDataset(X, y)
    g = torch.Generator().manual_seed(0)
    dl = data.DataLoader(ds, batch_size=16, shuffle=True, generator=g)
    train, val = data.random_split(ds, [48, 16], generator=torch.Generator().manual_seed(1))
    rec("split", list(train.indices))
    model = torch.nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    crit = torch.nn.MSELoss()
    for ep in range(6):
        tot = 0.0
        for xb, yb in dl:
            loss = crit(model(xb).squeeze(1), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb)
            rec("xb", xb)
        sched.step()
        print(f"epoch {ep}: {tot / len(ds):.5f} lr={sched.get_last_lr()[0]}")
    rec("w", model.weight)
    rec("b", model.bias)
    print(model.state_dict())


def poly_ridge(torch, rec):
    torch.manual_seed(13)
    x = torch.linspace(-1, 1, 25, dtype=torch.float64)
    y = torch.sin(3 * x) + 0.1 * torch.randn(25, dtype=torch.float64)
    Phi = torch.vander(x, N=6, increasing=True)
    rec("Phi", Phi)
    lam = 1e-3
    A = Phi.T @ Phi + lam * torch.eye(6, dtype=torch.float64)
    w1 = torch.linalg.solve(A, Phi.T @ y)
    L = torch.linalg.cholesky(A)
    w2 = torch.cholesky_solve((Phi.T @ y).unsqueeze(1), L).squeeze(1)
    w3 = torch.linalg.lstsq(
        torch.cat([Phi, lam**0.5 * torch.eye(6, dtype=torch.float64)]),
        torch.cat([y, torch.zeros(6, dtype=torch.float64)]),
    ).solution
    Q, R = torch.linalg.qr(Phi)
    w4 = torch.linalg.solve_triangular(R, (Q.T @ y).unsqueeze(1), upper=True).squeeze(1)
    rec("w1", w1)
    rec("w2", w2)
    rec("w3", w3)
    rec("w4", w4)
    rec("cond", torch.linalg.cond(Phi))
    rec("rank", torch.linalg.matrix_rank(Phi))
    rec("norm", torch.linalg.norm(Phi @ w1 - y))
    rec("fro", torch.norm(Phi))
    rec("polyval", torch.stack([x**i for i in range(6)], 1) @ w1)
    rec("det", torch.linalg.det(A))
    rec("slogdet", torch.linalg.slogdet(A).logabsdet)
    print(w1)
    # gradient descent with closure on the same
    w = torch.zeros(6, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], lr=1, max_iter=50, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        obj = ((Phi @ w - y) ** 2).sum() + lam * w.pow(2).sum()
        obj.backward()
        return obj

    opt.step(closure)
    rec("lbfgs", w)


def gp_krr(torch, rec):
    torch.manual_seed(14)
    X = torch.rand(15, 1, dtype=torch.float64) * 6
    y = torch.sin(X).squeeze() + 0.05 * torch.randn(15, dtype=torch.float64)
    Xs = torch.linspace(0, 6, 7, dtype=torch.float64).unsqueeze(1)

    def rbf(a, b, ls=1.0):
        return torch.exp(-0.5 * torch.cdist(a, b).pow(2) / ls**2)

    K = rbf(X, X) + 1e-2 * torch.eye(15, dtype=torch.float64)
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(1), L)
    Ks = rbf(Xs, X)
    mu = (Ks @ alpha).squeeze()
    v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
    var = 1.0 - (v**2).sum(0)
    rec("mu", mu)
    rec("var", var)
    nll = (
        0.5 * y @ alpha.squeeze()
        + L.diagonal().log().sum()
        + 7.5 * torch.log(torch.tensor(2 * torch.pi, dtype=torch.float64))
    )
    rec("nll", nll)
    print(mu, var.clamp_min(0).sqrt())
    # hyperparameter fit by autograd
    log_ls = torch.zeros((), dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([log_ls], lr=0.1)
    for _ in range(10):
        K = rbf(X, X, log_ls.exp()) + 1e-2 * torch.eye(15, dtype=torch.float64)
        mvn = torch.distributions.MultivariateNormal(
            torch.zeros(15, dtype=torch.float64), covariance_matrix=K
        )
        loss = -mvn.log_prob(y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("ls", log_ls)
    rec("loss", loss)
    rec("K_inv", torch.cholesky_inverse(L))
    rec("logdet", torch.logdet(K))


def metrics(torch, rec):
    torch.manual_seed(15)
    y = torch.randint(0, 3, (50,))
    p = torch.randint(0, 3, (50,))
    cm = torch.bincount(y * 3 + p, minlength=9).reshape(3, 3)
    cm2 = torch.zeros(3, 3, dtype=torch.long)
    cm2.index_put_((y, p), torch.ones(50, dtype=torch.long), accumulate=True)
    rec("cm", cm)
    rec("cm2", cm2)
    tp = cm.diag()
    prec = tp / cm.sum(0)
    recall = tp / cm.sum(1)
    f1 = 2 * prec * recall / (prec + recall)
    rec("prec", prec)
    rec("rec", recall)
    rec("f1", f1)
    print(cm)
    print(f1, f1.mean())
    scores = torch.rand(50)
    labels = (torch.rand(50) < 0.4).long()
    order = torch.argsort(scores, descending=True)
    tps = torch.cumsum(labels[order], 0).float()
    fps = torch.cumsum(1 - labels[order], 0).float()
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    auc = torch.trapezoid(tpr, fpr)
    rec("auc", auc)
    rec("auc2", torch.trapz(tpr, fpr))
    print(f"AUC = {auc:.4f}")
    acc = (p == y).sum().item() / len(y)
    print(acc, (p == y).float().mean(), (p == y).sum(), (p == y).double().mean().item())
    mn, mx = torch.aminmax(scores)
    rec("mm", torch.stack([mn, mx]))
    z = (scores - scores.mean()) / scores.std()
    rec("z", z)
    rec("norm", torch.nn.functional.normalize(torch.stack([scores, 1 - scores]), dim=0))
    rec("quant", torch.quantile(scores, torch.tensor([0.25, 0.5, 0.75])))
    rec("median", scores.median())
    rec("nanmean", torch.nanmean(scores))
    rec("corr", torch.corrcoef(torch.stack([scores, labels.float()])))
    perm = torch.randperm(50)
    folds = torch.chunk(perm, 5)
    rec("folds", torch.stack(folds))
    parts = torch.split(perm, [20, 30])
    rec("p0", parts[0])
    rec("kthvalue", torch.kthvalue(scores, 10).values)
    rec("count_nonzero", torch.count_nonzero(labels))
    rec("unique_consec", torch.unique_consecutive(torch.sort(y).values, return_counts=True)[1])


def xor_mlp(torch, rec):
    nn = torch.nn
    torch.manual_seed(16)
    X = torch.tensor([[0.0, 0], [0, 1], [1, 0], [1, 1]])
    y = torch.tensor([[0.0], [1], [1], [0]])
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    lossf = nn.BCEWithLogitsLoss()
    for ep in range(100):
        out = model(X)
        loss = lossf(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if ep % 25 == 0:
            print(f"Epoch {ep:3d} | Loss: {loss.item():.4f}")
    with torch.no_grad():
        probs = torch.sigmoid(model(X))
    print(probs.round(decimals=3))
    print(probs.squeeze().round().int())
    rec("probs", probs)
    for n, p in model.named_parameters():
        rec(n, p)
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))


def kmeanspp(torch, rec):
    torch.manual_seed(17)
    X = torch.randn(60, 2) + torch.randint(0, 3, (60, 1)) * 4.0
    g = torch.Generator().manual_seed(42)
    idx = [torch.randint(0, 60, (1,), generator=g).item()]
    for _ in range(2):
        d = torch.cdist(X, X[idx]).min(1).values ** 2
        idx.append(torch.multinomial(d / d.sum(), 1, generator=g).item())
    rec("idx", idx)
    C = X[idx]
    for _ in range(5):
        a = torch.argmin(((X.unsqueeze(1) - C.unsqueeze(0)) ** 2).sum(2), 1)
        C = torch.stack([X[a == k].mean(0) for k in range(3)])
    rec("C", C)
    rec("a", a)
    M = torch.nn.functional.one_hot(a, 3).float()
    C2 = (M.T @ X) / M.sum(0, keepdim=True).T
    rec("C2", C2)
    # mean shift step
    W = torch.exp(-(torch.cdist(X, X) ** 2) / 2)
    Xs = (W @ X) / W.sum(1, keepdim=True)
    rec("ms", Xs)
    # silhouette
    D = torch.cdist(X, X)
    same = a[:, None] == a[None, :]
    aa = (D * same).sum(1) / (same.sum(1) - 1)
    other = torch.stack([(D * (a == k)).sum(1) / (a == k).sum() for k in range(3)], 1)
    other[torch.arange(60), a] = float("inf")
    bb = other.min(1).values
    sil = ((bb - aa) / torch.maximum(aa, bb)).mean()
    rec("sil", sil)
    print(sil)


def pagerank_labelprop(torch, rec):
    torch.manual_seed(18)
    A = (torch.rand(8, 8) < 0.3).float()
    A.fill_diagonal_(0)
    out_deg = A.sum(1, keepdim=True)
    P = torch.where(out_deg > 0, A / out_deg.clamp(min=1), torch.full_like(A, 1 / 8))
    r = torch.full((8,), 1 / 8)
    for _ in range(30):
        r = 0.15 / 8 + 0.85 * (P.T @ r)
    rec("r", r)
    rec("rank", torch.argsort(r, descending=True))
    print(r.sum(), r.argmax())
    Deg = torch.diag(A.sum(1) + A.sum(0))
    Lap = Deg - (A + A.T)
    ev = torch.linalg.eigvalsh(Lap)
    rec("ev", ev)
    Y = torch.zeros(8, 2)
    Y[0, 0] = 1
    Y[7, 1] = 1
    S = (A + A.T) / (A + A.T).sum(1, keepdim=True).clamp(min=1)
    F_ = Y.clone()
    for _ in range(10):
        F_ = 0.9 * S @ F_ + 0.1 * Y
    rec("F", F_)
    rec("mpow", torch.linalg.matrix_power(P, 5))
    rec("mexp", torch.linalg.matrix_exp(P * 0.1))
    rec("nz", A.nonzero())
    rec("nzt", torch.nonzero(A, as_tuple=True)[1])


def newton_logreg(torch, rec):
    torch.manual_seed(19)
    X = torch.cat([torch.ones(40, 1), torch.randn(40, 2)], 1).double()
    y = (torch.rand(40) < torch.sigmoid(X @ torch.tensor([0.5, 2.0, -1.0]).double())).double()
    w = torch.zeros(3, dtype=torch.float64)

    def nll(w):
        z = X @ w
        return -(y * z - torch.nn.functional.softplus(z)).sum()

    for it in range(6):
        p = torch.sigmoid(X @ w)
        g = X.T @ (p - y)
        H = X.T @ (X * (p * (1 - p)).unsqueeze(1))
        Ha = torch.autograd.functional.hessian(nll, w)
        ga = torch.autograd.functional.jacobian(nll, w)
        rec(f"H{it}", H)
        rec(f"Ha{it}", Ha)
        rec(f"ga{it}", ga)
        rec(f"g{it}", g)
        w = w - torch.linalg.solve(H, g)
    rec("w", w)
    rec("nll", nll(w))
    print(w, nll(w).item())
    wt = w.clone().requires_grad_()
    (gg,) = torch.autograd.grad(nll(wt), wt, create_graph=True)
    hv = torch.autograd.grad(gg @ torch.ones(3, dtype=torch.float64), wt)[0]
    rec("hv", hv)
    fg = torch.func.grad(nll)(0.5 * w)
    rec("fg", fg)
    fh = torch.func.hessian(nll)(0.5 * w)
    rec("fh", fh)
    se = torch.sqrt(torch.diag(torch.linalg.inv(H)))
    rec("se", se)
    cov = torch.cholesky_inverse(torch.linalg.cholesky(H))
    rec("cov", cov)


def hmm(torch, rec):
    torch.manual_seed(20)
    S, n_obs, T_ = 3, 4, 12
    A = torch.softmax(torch.randn(S, S), 1)
    B = torch.softmax(torch.randn(S, n_obs), 1)
    pi = torch.softmax(torch.randn(S), 0)
    obs = torch.randint(0, n_obs, (T_,))
    logA, logB, logpi = A.log(), B.log(), pi.log()
    alpha = logpi + logB[:, obs[0]]
    for t in range(1, T_):
        alpha = torch.logsumexp(alpha.unsqueeze(1) + logA, dim=0) + logB[:, obs[t]]
    rec("loglik", torch.logsumexp(alpha, 0))
    delta = logpi + logB[:, obs[0]]
    back = []
    for t in range(1, T_):
        scores = delta.unsqueeze(1) + logA
        best, arg = scores.max(0)
        back.append(arg)
        delta = best + logB[:, obs[t]]
    path = [delta.argmax().item()]
    for arg in reversed(back):
        path.append(arg[path[-1]].item())
    path.reverse()
    rec("path", path)
    print(path, delta.max())
    # sampling a sequence
    g = torch.Generator().manual_seed(5)
    s = torch.multinomial(pi, 1, generator=g).item()
    seq = []
    for _t in range(8):
        seq.append(torch.multinomial(B[s], 1, generator=g).item())
        s = torch.multinomial(A[s], 1, generator=g).item()
    rec("seq", seq)
    rec("cat", torch.distributions.Categorical(probs=A).sample((4,)))
    rec("cat_lp", torch.distributions.Categorical(logits=logA).log_prob(torch.tensor([0, 1, 2])))
    rec("ent", torch.distributions.Categorical(probs=A).entropy())


def rbm(torch, rec):
    F = torch.nn.functional
    torch.manual_seed(21)
    V, H = 12, 5
    data = (torch.rand(32, V) < 0.3).float()
    W = torch.randn(H, V) * 0.01
    bv = torch.zeros(V)
    bh = torch.zeros(H)
    for ep in range(5):
        ph = torch.sigmoid(F.linear(data, W, bh))
        h = torch.bernoulli(ph)
        pv = torch.sigmoid(F.linear(h, W.t(), bv))
        v = pv.bernoulli()
        ph2 = torch.sigmoid(F.linear(v, W, bh))
        W += 0.1 * (ph.t() @ data - ph2.t() @ v) / 32
        bv += 0.1 * (data - v).mean(0)
        bh += 0.1 * (ph - ph2).mean(0)
        err = ((data - pv) ** 2).mean()
        print(f"ep {ep} recon {err:.6f}")
        rec(f"h{ep}", h)
        rec(f"v{ep}", v)
    rec("W", W)
    fe = -(data @ bv) - F.softplus(F.linear(data, W, bh)).sum(1)
    rec("fe", fe)
    x = torch.empty(3, 4).bernoulli_(0.3)
    rec("b_", x)
    x = torch.zeros(3, 4).bernoulli_(torch.full((3, 4), 0.7))
    rec("b2_", x)
    rec("dropmask", F.dropout(torch.ones(10), 0.5))


def bandits(torch, rec):
    torch.manual_seed(22)
    true_p = torch.tensor([0.2, 0.5, 0.7])
    a = torch.ones(3)
    b = torch.ones(3)
    picks = []
    for _t in range(30):
        theta = torch.distributions.Beta(a, b).sample()
        k = theta.argmax()
        r = torch.bernoulli(true_p[k])
        a[k] += r
        b[k] += 1 - r
        picks.append(k.item())
    rec("picks", picks)
    rec("a", a)
    rec("b", b)
    Q = torch.zeros(3)
    Nn = torch.zeros(3)
    eps = 0.1
    rs = []
    for _t in range(30):
        if torch.rand(1).item() < eps:
            k = torch.randint(3, (1,)).item()
        else:
            k = torch.argmax(Q).item()
        r = (torch.rand(()) < true_p[k]).float()
        Nn[k] += 1
        Q[k] += (r - Q[k]) / Nn[k]
        rs.append(r.item())
    rec("Q", Q)
    rec("rs", rs)
    ucb = Q + torch.sqrt(2 * torch.log(torch.tensor(30.0)) / Nn.clamp(min=1))
    rec("ucb", ucb)
    pts = torch.rand(10000, 2)
    pi = 4 * (pts.norm(dim=1) <= 1).float().mean()
    print(f"pi ~ {pi.item():.4f}", pi)
    rec("pi", pi)
    rec("normal", torch.normal(torch.zeros(5), torch.ones(5) * 2))
    rec("normal2", torch.normal(2.0, 3.0, size=(4,)))
    rec("dir", torch.distributions.Dirichlet(torch.tensor([1.0, 2.0, 3.0])).sample())
    rec("gamma", torch.distributions.Gamma(2.0, 1.0).sample((3,)))
    rec("exp", torch.empty(4).exponential_())
    rec("geo", torch.empty(4).geometric_(0.3))
    rec("cauchy", torch.empty(3).cauchy_())
    rec("lognorm", torch.empty(3).log_normal_())
    rec("randn_like", torch.randn_like(Q))
    rec("rand_like", torch.rand_like(Q))
    rec("randint_like", torch.randint_like(Q, 10))


def tree(torch, rec):
    torch.manual_seed(23)
    X = torch.randn(60, 2)
    y = ((X[:, 0] > 0) & (X[:, 1] > -0.5)).long()

    def entropy(lbl):
        if lbl.numel() == 0:
            return torch.tensor(0.0)
        p = torch.bincount(lbl, minlength=2).float() / lbl.numel()
        return -(torch.xlogy(p, p)).sum() / torch.log(torch.tensor(2.0))

    def entropy2(lbl):
        p = torch.bincount(lbl, minlength=2).float() / max(lbl.numel(), 1)
        return torch.special.entr(p).sum()

    def build(idx, depth):
        lbl = y[idx]
        vals, cnts = torch.unique(lbl, return_counts=True)
        if depth == 2 or len(vals) == 1:
            return vals[cnts.argmax()].item()
        best = None
        for f in range(2):
            for thr in torch.quantile(X[idx, f], torch.linspace(0.1, 0.9, 9)):
                m = X[idx, f] <= thr
                lft, r = lbl[m], lbl[~m]
                gain = entropy(lbl) - (len(lft) * entropy(lft) + len(r) * entropy(r)) / len(lbl)
                if best is None or gain > best[0]:
                    best = (gain.item(), f, thr.item())
        rec(f"best{depth}", list(best))
        m = X[idx, best[1]] <= best[2]
        return (best[1], best[2], build(idx[m], depth + 1), build(idx[~m], depth + 1))

    t = build(torch.arange(60), 0)
    print(t)
    rec("e2", entropy2(y))
    rec("masked", X.masked_select(y.bool().unsqueeze(1)))
    rec("mf", X.masked_fill(X < 0, 0.0))
    rec("eye_oh", torch.eye(2)[y])
    rec("scatter_oh", torch.zeros(60, 2).scatter_(1, y.unsqueeze(1), 1.0))
    rec("where1", torch.where(y == 1)[0])


def svd_compress(torch, rec):
    torch.manual_seed(24)
    img = torch.outer(torch.linspace(0, 1, 32), torch.linspace(1, 0, 24)) + 0.05 * torch.rand(
        32, 24
    )
    U, S, Vh = torch.linalg.svd(img)
    rec("S", S)
    print(U.shape, S.shape, Vh.shape)
    for k in [1, 3, 8]:
        approx = U[:, :k] @ torch.diag(S[:k]) @ Vh[:k, :]
        err = torch.linalg.norm(img - approx) / torch.linalg.norm(img)
        rec(f"err{k}", err)
        print(f"k={k} rel err={err:.4f} energy={(S[:k] ** 2).sum() / (S**2).sum():.4f}")
    rec("svdvals", torch.linalg.svdvals(img))
    rec("nuc", torch.linalg.matrix_norm(img, ord="nuc"))
    rec("spec", torch.linalg.matrix_norm(img, ord=2))
    q = (img * 255).round().to(torch.uint8)
    rec("q", q)
    print(q[:2, :5])
    rec("cos", torch.nn.functional.cosine_similarity(img[:5], img[5:10]))
    rec("pair", torch.nn.functional.pairwise_distance(img[:5], img[5:10]))
    sims = torch.nn.functional.normalize(img, dim=1) @ torch.nn.functional.normalize(img, dim=1).T
    rec("nn", sims.fill_diagonal_(-1).argmax(1))


PROGRAMS = [
    linreg,
    logreg,
    softmax_reg,
    kmeans,
    knn,
    gnb,
    pca,
    svm,
    gmm_em,
    mf,
    bigram,
    makemore_mlp,
    manual_backprop,
    stump,
    tsne,
    micrograd,
    mistakes,
    mse_shapes,
    dataloader_linreg,
    poly_ridge,
    gp_krr,
    metrics,
    xor_mlp,
    kmeanspp,
    pagerank_labelprop,
    newton_logreg,
    hmm,
    rbm,
    bandits,
    tree,
    svd_compress,
]


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_program_agrees_with_torch(prog):
    want = run_program(prog, torch, quiet=True)
    got = run_program(prog, minitorch, quiet=True)
    assert_records_match(
        want,
        got,
        lambda n, a: 1e-8 if a.dtype == np.float64 else 1e-4,
        floor=0.0,
        dtypes=True,
        rel=True,
        skip=_SKIP,
    )
