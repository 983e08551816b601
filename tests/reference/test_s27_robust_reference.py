"""Session 27 (robust): adversarial-robustness, certified-defence and uncertainty programs, each
written once against a `torch`-like module and run under torch and minitorch after the same
manual_seed: attacks (FGSM, PGD with a random start, targeted, L2 PGD, Carlini-Wagner in tanh
space, DeepFool, MI-FGSM, TRADES, adversarial training switching eval/train), certified defences
(interval bound propagation, randomized smoothing with counts and a binomial bound), and
uncertainty (deep ensembles, temperature scaling with LBFGS, ECE/MCE and reliability data, Brier,
SWAG, Laplace, evidential losses, conformal prediction, OOD scores).
Every recorded value must agree: float64 to 1e-9 of its scale, float32 to 1e-4."""

from __future__ import annotations

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _mlp(lib, dt, i=4, h=8, o=3):
    nn = lib.nn
    return nn.Sequential(nn.Linear(i, h), nn.ReLU(), nn.Linear(h, o)).to(dt)


def _cnn(lib, dt):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
        nn.Linear(3 * 4 * 4, 3),
    ).to(dt)  # fmt: skip


def _err_type(rec, name, fn):
    """Records only the type of the exception fn raises (torch's parser lists the arguments in
    an order a Python signature cannot see)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, type(e).__name__)
    else:
        rec(name, "no error")


# --- attacks ---


def p_fgsm(lib, dt, rec):
    """FGSM on an MLP: requires_grad_, backward, grad.sign, clamp to [0, 1]; targeted variant."""
    F = lib.nn.functional
    lib.manual_seed(0)
    m = _mlp(lib, dt)
    x = lib.rand(6, 4, dtype=dt)
    y = lib.randint(0, 3, (6,))
    xa = x.clone().requires_grad_()
    loss = F.cross_entropy(m(xa), y)
    loss.backward()
    rec("loss", loss)
    rec("grad", xa.grad)
    adv = (xa + 0.1 * xa.grad.sign()).clamp(0, 1).detach()
    rec("adv", adv)
    rec("adv.req", str(adv.requires_grad))
    rec("flip", (m(adv).argmax(1) != m(x).argmax(1)).sum())
    t = (y + 1) % 3
    xt = x.clone().requires_grad_(True)
    g = lib.autograd.grad(F.cross_entropy(m(xt), t), xt)[0]
    advt = lib.clamp(xt - 0.1 * g.sign(), min=0.0, max=1.0)
    rec("adv.t", advt)
    rec("adv.t.gradfn", type(advt.grad_fn).__name__)
    rec("hit", (m(advt).argmax(-1) == t).float().mean())
    rec("sign0", lib.sign(lib.tensor([0.0, -0.0, 2.0, -3.0], dtype=dt)))


def p_pgd(lib, dt, rec):
    """PGD with a random start: uniform_ on empty_like, projection with max/min against tensors,
    clamp with tensor bounds."""
    F = lib.nn.functional
    lib.manual_seed(1)
    m = _mlp(lib, dt)
    x = lib.rand(5, 4, dtype=dt)
    y = lib.randint(0, 3, (5,))
    eps, alpha = 0.2, 0.05
    delta = lib.empty_like(x).uniform_(-eps, eps)
    rec("delta0", delta)
    xa = (x + delta).clamp(0, 1)
    lo, hi = x - eps, x + eps
    for i in range(5):
        xa.requires_grad_(True)
        loss = F.cross_entropy(m(xa), y, reduction="sum")
        (g,) = lib.autograd.grad(loss, [xa])
        with lib.no_grad():
            xa = xa + alpha * g.sign()
            xa = lib.max(lib.min(xa, hi), lo)
            xa = lib.clamp(xa, min=lib.zeros_like(x), max=lib.ones_like(x))
        rec(f"loss{i}", loss)
    rec("adv", xa)
    rec("linf", (xa - x).abs().amax(dim=1))
    rec("max.bcast", lib.max(x, lib.tensor(0.5, dtype=dt)))
    rec("clamp.t", x.clamp(lib.full((4,), 0.3, dtype=dt), lib.full((4,), 0.6, dtype=dt)))
    rec("clamp.t_", x.clone().clamp_(min=lo, max=hi))
    rec("clip.t", lib.clip(x, max=lib.tensor([0.5, 0.6, 0.7, 0.8], dtype=dt)))
    rec.err("clamp.none", lambda: x.clamp())
    _err_type(rec, "clamp.mix", lambda: x.clamp(min=0.1, max=lib.ones_like(x)))


def p_l2_pgd(lib, dt, rec):
    """L2 PGD: per-sample norms, normalised steps with clamp_min, projection by renorm."""
    F = lib.nn.functional
    lib.manual_seed(2)
    m = _cnn(lib, dt)
    m.eval()
    x = lib.rand(4, 1, 4, 4, dtype=dt)
    y = lib.tensor([0, 1, 2, 1])
    n = x.shape[0]
    eps, alpha = 0.5, 0.2
    delta = lib.randn_like(x)
    d = delta.view(n, -1).norm(dim=1).view(n, 1, 1, 1)
    delta = delta / d * eps * lib.rand(n, 1, 1, 1, dtype=dt)
    rec("delta0", delta)
    for i in range(3):
        delta.requires_grad_()
        loss = F.cross_entropy(m(x + delta), y)
        loss.backward()
        g = delta.grad.detach()
        gn = g.view(n, -1).norm(p=2, dim=1).clamp_min(1e-12).view(-1, 1, 1, 1)
        delta = delta.detach() + alpha * g / gn
        delta = delta.renorm(p=2, dim=0, maxnorm=eps)
        delta = (x + delta).clamp(0, 1) - x
        rec(f"loss{i}", loss)
        rec(f"norm{i}", delta.flatten(1).norm(dim=1))
    rec("renorm.small", lib.tensor([[0.1, 0.1], [3.0, 4.0]], dtype=dt).renorm(2, 0, 1.0))
    rec("renorm.inf", lib.tensor([[0.1, -2.0], [3.0, 4.0]], dtype=dt).renorm(float("inf"), 1, 1.0))
    rec("lnorm", lib.linalg.vector_norm(x.view(n, -1), ord=2, dim=-1))
    rec("fnorm", F.normalize(x.view(n, -1), p=2, dim=1)[:, :3])
    rec.err("renorm.bad", lambda: x.view(n, -1).renorm(2, 0, -1.0))


def p_cw(lib, dt, rec):
    """Carlini-Wagner L2 in tanh space with Adam over w and a binary search on c with where."""
    lib.manual_seed(3)
    m = _mlp(lib, dt)
    for p in m.parameters():
        p.requires_grad_(False)
    x = lib.rand(4, 4, dtype=dt) * 0.98 + 0.01
    y = lib.tensor([0, 1, 2, 0])
    onehot = lib.nn.functional.one_hot(y, 3).to(dt)
    c = lib.full((4,), 1.0, dtype=dt)
    lo = lib.zeros(4, dtype=dt)
    hi = lib.full((4,), 1e10, dtype=dt)
    best = lib.full((4,), float("inf"), dtype=dt)
    best_adv = x.clone()
    for step in range(3):
        # a start off x itself: at x the L2 term's gradient is rounding noise (tanh's last bit
        # differs between libms) which Adam would blow up to full steps
        w0 = lib.atanh(x * 2 - 1) + 0.05 * lib.randn(4, 4, dtype=dt)
        w = w0.detach().requires_grad_(True)
        opt = lib.optim.Adam([w], lr=0.05)
        for _ in range(6):
            adv = (lib.tanh(w) + 1) / 2
            z = m(adv)
            real = (z * onehot).sum(1)
            other = (z - 1e4 * onehot).max(1)[0]
            f = lib.clamp(real - other, min=0)
            l2 = ((adv - x) ** 2).sum(1)
            loss = (l2 + c * f).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        succ = f == 0
        better = succ & (l2 < best)
        best = lib.where(better, l2, best)
        best_adv = lib.where(better.unsqueeze(1), adv.detach(), best_adv)
        hi = lib.where(succ, lib.minimum(hi, c), hi)
        lo = lib.where(succ, lo, lib.maximum(lo, c))
        c = lib.where(hi < 1e9, (lo + hi) / 2, c * 10)
        rec(f"c{step}", c)
        rec(f"loss{step}", loss)
        rec(f"w{step}", w)
    rec("best", best)
    rec("best_adv", best_adv)
    rec("state", str(sorted(opt.state[w].keys())))
    rec("atanh.edge", lib.atanh(lib.tensor([-1.0, 1.0, 0.5, 1.5], dtype=dt)))


def p_deepfool(lib, dt, rec):
    """DeepFool: jacobian rows via autograd.grad per class (retain_graph), minimal step."""
    lib.manual_seed(4)
    m = _mlp(lib, dt, 4, 6, 3)
    x0 = lib.rand(1, 4, dtype=dt)
    x = x0.clone().requires_grad_(True)
    k0 = int(m(x0).argmax())
    r_tot = lib.zeros_like(x0)
    for it in range(4):
        out = m(x)[0]
        if int(out.argmax()) != k0:
            break
        g0 = lib.autograd.grad(out[k0], x, retain_graph=True)[0]
        best, wbest = None, None
        for k in range(3):
            if k == k0:
                continue
            gk = lib.autograd.grad(out[k], x, retain_graph=True)[0]
            wk = gk - g0
            fk = (out[k] - out[k0]).detach()
            pk = fk.abs() / (wk.flatten().norm() + 1e-8)
            if best is None or pk < best:
                best, wbest = pk, wk
        r = (best + 1e-4) * wbest / wbest.norm()
        r_tot = r_tot + r
        x = (x0 + 1.02 * r_tot).detach().requires_grad_(True)
        rec(f"r{it}", r_tot)
    rec("iters", it)
    rec("pred", m(x).argmax(1))
    J = lib.autograd.functional.jacobian(lambda v: m(v), x0)
    rec("jac", J)
    rec("jac.shape", str(tuple(J.shape)))


def p_mifgsm(lib, dt, rec):
    """MI-FGSM: momentum with per-sample L1 normalisation of the gradient."""
    F = lib.nn.functional
    lib.manual_seed(5)
    m = _cnn(lib, dt).eval()
    x = lib.rand(3, 1, 4, 4, dtype=dt)
    y = lib.tensor([2, 0, 1])
    g = lib.zeros_like(x)
    adv = x.clone()
    for i in range(4):
        adv.requires_grad = True
        loss = F.nll_loss(F.log_softmax(m(adv), dim=1), y)
        grad = lib.autograd.grad(loss, adv)[0]
        l1 = lib.mean(lib.abs(grad), dim=(1, 2, 3), keepdim=True)
        g = 1.0 * g + grad / l1
        adv = adv.detach() + 0.03 * g.sign()
        adv = lib.min(lib.max(adv, x - 0.1), x + 0.1).clamp(0.0, 1.0)
        rec(f"loss{i}", loss)
    rec("g", g)
    rec("adv", adv)
    rec("l1norm", grad.abs().sum(dim=[1, 2, 3]))
    rec("norm1", lib.norm(grad.view(3, -1), p=1, dim=1))


def p_trades(lib, dt, rec):
    """TRADES: KL between clean and adversarial softmax (batchmean), inner maximisation under
    eval() with enable_grad inside no_grad, then the outer step in train()."""
    F = lib.nn.functional
    lib.manual_seed(6)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3),
                      nn.Linear(8, 3)).to(dt)  # fmt: skip
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    x = lib.rand(8, 4, dtype=dt)
    y = lib.randint(0, 3, (8,))
    for epoch in range(2):
        m.eval()
        with lib.no_grad():
            p_nat = F.softmax(m(x), dim=1)
            xa = x + 0.001 * lib.randn_like(x)
            for _ in range(3):
                with lib.enable_grad():
                    xa.requires_grad_(True)
                    kl = F.kl_div(F.log_softmax(m(xa), dim=1), p_nat, reduction="sum")
                    g = lib.autograd.grad(kl, [xa])[0]
                xa = lib.min(lib.max(xa.detach() + 0.01 * lib.sign(g), x - 0.03), x + 0.03)
                xa = lib.clamp(xa, 0.0, 1.0)
            rec(f"kl.req{epoch}", str(kl.requires_grad))
        m.train()
        opt.zero_grad()
        logits = m(x)
        nat = F.cross_entropy(logits, y)
        rob = F.kl_div(F.log_softmax(m(xa), dim=1), F.softmax(logits, dim=1),
                       reduction="batchmean")  # fmt: skip
        loss = nat + 6.0 * rob
        loss.backward()
        opt.step()
        rec(f"nat{epoch}", nat)
        rec(f"rob{epoch}", rob)
        rec(f"xa{epoch}", xa)
    rec("rm", m[1].running_mean)
    rec("nbt", m[1].num_batches_tracked)
    p = F.softmax(lib.randn(3, 4, dtype=dt), 1)
    q = F.log_softmax(lib.randn(3, 4, dtype=dt), 1)
    for red in ("none", "mean", "sum", "batchmean"):
        rec("kl." + red, F.kl_div(q, p, reduction=red))
    rec("kl.logt", F.kl_div(q, p.log(), reduction="batchmean", log_target=True))
    rec("kl.mod", lib.nn.KLDivLoss(reduction="batchmean")(q, p))
    rec.err("kl.warn", lambda: F.kl_div(q, p))


def p_advtrain(lib, dt, rec):
    """Adversarial training: an FGSM inner step under eval() with requires_grad on the batch,
    the outer step under train() on a mix of clean and adversarial inputs, a StepLR schedule,
    no_grad evaluation of clean and robust accuracy."""
    F = lib.nn.functional
    lib.manual_seed(7)
    m = _cnn(lib, dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4, nesterov=True)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    X = lib.rand(12, 1, 4, 4, dtype=dt)
    Y = lib.randint(0, 3, (12,))
    for epoch in range(3):
        for xb, yb in zip(X.split(6), Y.split(6), strict=True):
            m.eval()
            xb_adv = xb.clone().detach().requires_grad_(True)
            F.cross_entropy(m(xb_adv), yb).backward()
            xb_adv = (xb_adv + 0.05 * xb_adv.grad.sign()).clamp(0, 1).detach()
            m.train()
            opt.zero_grad(set_to_none=True)
            out = m(lib.cat([xb, xb_adv]))
            loss = F.cross_entropy(out, lib.cat([yb, yb]), label_smoothing=0.1)
            loss.backward()
            opt.step()
        sched.step()
        rec(f"loss{epoch}", loss)
        rec(f"lr{epoch}", sched.get_last_lr()[0])
    m.eval()
    with lib.no_grad():
        rec("clean_acc", (m(X).argmax(1) == Y).to(dt).mean())
        rec("logits", m(X[:3]))
    rec("bn.rv", m[1].running_var)
    rec("grad.none", str([p.grad is None for p in m.parameters()][:2]))
    rec.params("p", m)


# --- certified defences ---


def p_ibp(lib, dt, rec):
    """Interval bound propagation through Conv/ReLU/Linear in both the (lower, upper) form with
    W.clamp(min=0)/W.clamp(max=0) and the (center, radius) form with W.abs(); the IBP loss on
    the worst-case logits."""
    F = lib.nn.functional
    lib.manual_seed(8)
    conv = lib.nn.Conv2d(1, 2, 3, stride=1, padding=1).to(dt)
    fc = lib.nn.Linear(2 * 4 * 4, 3).to(dt)
    x = lib.rand(2, 1, 4, 4, dtype=dt)
    y = lib.tensor([1, 2])
    eps = 0.05
    lo, hi = (x - eps).clamp(min=0), (x + eps).clamp(max=1)
    wp, wn = conv.weight.clamp(min=0), conv.weight.clamp(max=0)
    l1 = F.conv2d(lo, wp, conv.bias, padding=1) + F.conv2d(hi, wn, None, padding=1)
    u1 = F.conv2d(hi, wp, conv.bias, padding=1) + F.conv2d(lo, wn, None, padding=1)
    l1, u1 = F.relu(l1).flatten(1), F.relu(u1).flatten(1)
    c, r = (u1 + l1) / 2, (u1 - l1) / 2
    mu = fc(c)
    rad = r @ fc.weight.abs().t()
    lz, uz = mu - rad, mu + rad
    rec("lz", lz)
    rec("uz", uz)
    rec("ok", str(bool((lz <= uz).all())))
    onehot = F.one_hot(y, 3).bool()
    worst = lib.where(onehot, lz, uz)
    loss = F.cross_entropy(worst, y)
    loss.backward()
    rec("loss", loss)
    rec("g.conv", conv.weight.grad)
    rec("g.fc", fc.bias.grad)
    with lib.no_grad():
        z = fc(F.relu(conv(x)).flatten(1))
    rec("inside", str(bool(((z >= lz) & (z <= uz)).all())))
    margin = lz.gather(1, y[:, None]) - uz.masked_fill(onehot, float("-inf")).amax(1, True)
    rec("margin", margin)
    rec("certified", (margin > 0).squeeze(1))
    rec("clamp.both", conv.weight.clamp(min=0, max=0.1).sum())


def p_smoothing(lib, dt, rec):
    """Randomized smoothing: Gaussian noise in batches, class counts with bincount, one_hot sums
    and mode, a Clopper-Pearson lower bound with Beta.icdf when available (else a normal
    approximation), certified radius with the normal quantile."""
    F = lib.nn.functional
    lib.manual_seed(9)
    m = _mlp(lib, dt)
    x = lib.rand(4, dtype=dt)
    sigma, n, bs = 1.0, 200, 64
    counts = lib.zeros(3, dtype=lib.long)
    counts2 = lib.zeros(3, dtype=lib.long)
    left = n
    with lib.no_grad():
        while left > 0:
            b = min(bs, left)
            batch = x.repeat(b, 1)
            noise = lib.randn_like(batch) * sigma
            pred = m(batch + noise).argmax(1)
            counts += lib.bincount(pred, minlength=3)
            counts2 += F.one_hot(pred, num_classes=3).sum(0)
            left -= b
    rec("counts", counts)
    rec("counts2", counts2)
    rec("mode", lib.mode(pred).values)
    top2 = counts.topk(2)
    rec("top2", top2.indices)
    nA = counts[top2.indices[0]].to(dt)
    alpha = 0.001
    d = lib.distributions
    beta = d.Beta(nA, lib.tensor(n, dtype=dt) - nA + 1)
    rec.err("beta.icdf", lambda: beta.icdf(lib.tensor(alpha, dtype=dt)))
    normal = d.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt))
    phat = nA / n
    pA2 = phat - normal.icdf(lib.tensor(1 - alpha, dtype=dt)) * lib.sqrt(phat * (1 - phat) / n)
    rec("pA.normal", pA2)
    rec("radius", sigma * normal.icdf(pA2.clamp(max=1 - 1e-6)))
    rec("abstain", str(bool(pA2 < 0.5)))
    rec("cdf", normal.cdf(lib.tensor([-1.0, 0.0, 2.0], dtype=dt)))
    rec("erfinv", lib.special.erfinv(lib.tensor([0.5, -0.9, 0.999], dtype=dt)))
    rec("ndtri", lib.special.ndtri(lib.tensor([0.001, 0.5, 0.975], dtype=dt)))
    rec("betainc?", str(hasattr(lib.special, "betainc")))
    bc = lib.bincount(lib.tensor([0, 2, 2]), weights=lib.tensor([0.5, 1.0, 2.0], dtype=dt))
    rec("bincount.w", bc)
    rec("binom.lp", d.Binomial(n, probs=lib.tensor(0.7, dtype=dt)).log_prob(nA))


# --- uncertainty ---


def p_ensemble(lib, dt, rec):
    """Deep ensemble: stacked softmax predictions, mean/var, predictive entropy with xlogy and
    special.entr, expected entropy, mutual information, disagreement."""
    F = lib.nn.functional
    lib.manual_seed(10)
    models = [_mlp(lib, dt) for _ in range(4)]
    x = lib.randn(5, 4, dtype=dt)
    with lib.no_grad():
        probs = lib.stack([F.softmax(mm(x), dim=-1) for mm in models])
    rec("probs.shape", str(tuple(probs.shape)))
    mean = probs.mean(0)
    rec("mean", mean)
    rec("var", probs.var(0, unbiased=False))
    rec("std", probs.std(dim=0))
    H = -lib.xlogy(mean, mean).sum(-1)
    H2 = lib.special.entr(mean).sum(-1)
    rec("H", H)
    rec("H2", H2)
    EH = lib.special.entr(probs).sum(-1).mean(0)
    rec("MI", H - EH)
    votes = probs.argmax(-1)
    rec("votes", votes)
    rec("agree", (votes == votes.mode(0).values).float().mean(0))
    z = lib.tensor([0.0, 1.0, 0.5], dtype=dt)
    rec("xlogy0", lib.xlogy(z, z))
    rec(
        "xlogy.nan",
        lib.xlogy(lib.tensor([0.0, float("nan")], dtype=dt), lib.tensor(float("nan"), dtype=dt)),
    )
    rec("entr.edge", lib.special.entr(lib.tensor([-1.0, 0.0, float("inf")], dtype=dt)))
    rec("xlog1py", lib.special.xlog1py(z, z - 1))
    rec(
        "logmeanexp",
        (
            lib.stack([F.log_softmax(mm(x), -1) for mm in models]).logsumexp(0)
            - 2 * lib.log(lib.tensor(2.0, dtype=dt))
        )[0],
    )
    zz = z.clone().requires_grad_()
    lib.special.entr(zz + 0.1).sum().backward()
    rec("entr.grad", zz.grad)
    zz.grad = None
    lib.xlogy(zz, zz + 1).sum().backward()
    rec("xlogy.grad", zz.grad)


def p_tempscale(lib, dt, rec):
    """Temperature scaling fitted by LBFGS with a closure (strong Wolfe and not), on the log
    temperature; NLL before and after."""
    F = lib.nn.functional
    lib.manual_seed(11)
    logits = lib.randn(40, 5, dtype=dt) * 3
    labels = lib.randint(0, 5, (40,))
    for ls in (None, "strong_wolfe"):
        t = lib.nn.Parameter(lib.ones(1, dtype=dt) * 1.5)
        opt = lib.optim.LBFGS([t], lr=0.1, max_iter=30, line_search_fn=ls)
        calls = []

        def closure(opt=opt, t=t, calls=calls):
            opt.zero_grad()
            loss = F.cross_entropy(logits / t, labels)
            loss.backward()
            calls.append(1)
            return loss

        out = opt.step(closure)
        rec(f"{ls}.first", out)
        rec(f"{ls}.T", t)
        rec(f"{ls}.calls", len(calls))
        rec(f"{ls}.nll", F.cross_entropy(logits / t, labels))
        rec(f"{ls}.n_iter", opt.state[t]["n_iter"])
        rec(f"{ls}.func_evals", opt.state[t]["func_evals"])
    logT = lib.zeros(1, dtype=dt, requires_grad=True)
    opt = lib.optim.LBFGS([logT], lr=1, max_iter=50, history_size=5, tolerance_grad=1e-9)
    opt.step(lambda: _nll_closure(lib, opt, logits, labels, logT))
    rec("logT", logT)


def _nll_closure(lib, opt, logits, labels, logT):
    opt.zero_grad()
    loss = lib.nn.functional.cross_entropy(logits * lib.exp(-logT), labels)
    loss.backward()
    return loss


def p_calibration(lib, dt, rec):
    """ECE/MCE with bucketize and with histc, per-bin means via scatter_add/index_add, reliability
    diagram data, Brier score, classwise ECE with one_hot."""
    F = lib.nn.functional
    lib.manual_seed(12)
    logits = lib.randn(50, 4, dtype=dt) * 2
    labels = lib.randint(0, 4, (50,))
    probs = F.softmax(logits, 1)
    conf, pred = probs.max(1)
    acc = (pred == labels).to(dt)
    nb = 10
    edges = lib.linspace(0, 1, nb + 1, dtype=dt)
    idx = lib.bucketize(conf, edges[1:-1], right=True)
    rec("idx", idx)
    rec("idx.left", lib.bucketize(conf, edges, right=False))
    cnt = lib.zeros(nb, dtype=dt).scatter_add_(0, idx, lib.ones_like(conf))
    s_conf = lib.zeros(nb, dtype=dt).index_add_(0, idx, conf)
    s_acc = lib.zeros(nb, dtype=dt).index_add(0, idx, acc)
    rec("cnt", cnt)
    nz = cnt > 0
    gap = (s_conf[nz] / cnt[nz] - s_acc[nz] / cnt[nz]).abs()
    rec("ece", (gap * cnt[nz]).sum() / conf.numel())
    rec("mce", gap.max())
    rec("rel.acc", lib.where(nz, s_acc / cnt.clamp_min(1), lib.tensor(float("nan"), dtype=dt)))
    h = lib.histc(conf, bins=nb, min=0, max=1)
    rec("histc", h)
    rec("histc.auto", lib.histc(conf, bins=4))
    hh = lib.histogram(conf, bins=nb, range=(0.0, 1.0))
    rec("histogram", hh.hist)
    rec("histogram.edges", hh.bin_edges)
    rec("brier", ((probs - F.one_hot(labels, 4)) ** 2).sum(1).mean())
    rec("nll", F.nll_loss(probs.log(), labels))
    rec("sa.mean", lib.zeros(nb, dtype=dt).scatter_reduce(0, idx, conf, "mean", include_self=False))
    rec("sa.amax", lib.zeros(nb, dtype=dt).scatter_reduce(0, idx, conf, reduce="amax"))
    cw = []
    oh = F.one_hot(labels, 4).to(dt)
    for k in range(4):
        b = lib.bucketize(probs[:, k].contiguous(), edges[1:-1])
        c = lib.bincount(b, minlength=nb).to(dt)
        sc = lib.bincount(b, weights=probs[:, k], minlength=nb)
        sy = lib.bincount(b, weights=oh[:, k], minlength=nb)
        cw.append(((sc - sy).abs()).sum() / 50)
        rec(f"cw.c{k}", c)
    rec("classwise", lib.stack(cw))
    rec("searchsorted", lib.searchsorted(edges, conf[:5], side="right"))


def p_swag(lib, dt, rec):
    """SWAG: running first/second moments of the flattened parameters (parameters_to_vector), a
    low-rank deviation matrix, sampling with randn and vector_to_parameters, BatchNorm refresh
    with swa_utils.update_bn, Bayesian model averaging of the samples."""
    F = lib.nn.functional
    from_vec = lib.nn.utils.vector_to_parameters
    to_vec = lib.nn.utils.parameters_to_vector
    lib.manual_seed(13)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)).to(dt)
    X = lib.randn(16, 3, dtype=dt)
    Y = lib.randint(0, 2, (16,))
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    n_p = to_vec(m.parameters()).numel()
    rec("n_p", n_p)
    mean = lib.zeros(n_p, dtype=dt)
    sq = lib.zeros(n_p, dtype=dt)
    devs = []
    for k in range(1, 6):
        opt.zero_grad()
        F.cross_entropy(m(X), Y).backward()
        opt.step()
        w = to_vec(m.parameters()).detach()
        mean = mean * (k - 1) / k + w / k
        sq = sq * (k - 1) / k + w**2 / k
        devs.append(w - mean)
    var = lib.clamp(sq - mean**2, min=1e-30)
    D = lib.stack(devs[-3:], dim=1)
    rec("mean", mean)
    rec("var", var)
    rec("D", D)
    loader = [(X[i : i + 4], Y[i : i + 4]) for i in range(0, 16, 4)]
    outs = []
    for s in range(3):
        z1 = lib.randn(n_p, dtype=dt)
        z2 = lib.randn(D.shape[1], dtype=dt)
        sample = mean + 0.5**0.5 * var.sqrt() * z1 + D @ z2 / (2 * (D.shape[1] - 1)) ** 0.5
        from_vec(sample, m.parameters())
        lib.optim.swa_utils.update_bn(loader, m)
        rec(f"rm{s}", m[1].running_mean)
        rec(f"rv{s}", m[1].running_var)
        rec(f"mom{s}", str(m[1].momentum))
        m.eval()
        with lib.no_grad():
            outs.append(F.softmax(m(X[:4]), -1))
    rec("bma", lib.stack(outs).mean(0))
    rec("train", str(m.training))
    rec.err("from_vec.bad", lambda: from_vec(mean, lib.ones(3, dtype=dt)))
    rec.err("to_vec.bad", lambda: to_vec(mean))


def p_laplace(lib, dt, rec):
    """Last-layer Laplace: the Hessian of the NLL in the last layer's weights via
    autograd.functional.hessian, a prior precision, the posterior covariance by cholesky_inverse,
    the linearised predictive variance and the probit approximation; a GGN check."""
    F = lib.nn.functional
    lib.manual_seed(14)
    feat = lib.randn(12, 3, dtype=dt)
    y = lib.randint(0, 2, (12,))
    W = lib.randn(2, 3, dtype=dt) * 0.5

    def nll(w):
        return F.cross_entropy(feat @ w.view(2, 3).t(), y, reduction="sum")

    H = lib.autograd.functional.hessian(nll, W.flatten())
    rec("H", H)
    P = H + lib.eye(6, dtype=dt)
    L = lib.linalg.cholesky(P)
    S = lib.cholesky_inverse(L)
    rec("S", S)
    rec("S.inv", lib.dist(S, lib.linalg.inv(P)) < 1e-4)
    rec("logdet", 2 * L.diagonal().log().sum())
    rec("slogdet", lib.linalg.slogdet(P).logabsdet)
    x = lib.randn(4, 3, dtype=dt)
    Jx = lib.stack([lib.kron(lib.eye(2, dtype=dt), xi.unsqueeze(0)) for xi in x])
    rec("Jx.shape", str(tuple(Jx.shape)))
    f_var = Jx @ S @ Jx.transpose(1, 2)
    rec("f_var", f_var)
    mu = x @ W.t()
    kappa = 1 / lib.sqrt(1 + lib.pi / 8 * f_var.diagonal(dim1=1, dim2=2))
    rec("probit", F.softmax(kappa * mu, -1))
    p = F.softmax(feat @ W.t(), -1)
    G = sum(
        lib.kron(lib.diag(pi) - lib.outer(pi, pi), lib.outer(fi, fi))
        for pi, fi in zip(p, feat, strict=True)
    )
    rec("ggn", G)
    rec("Lu", lib.cholesky_inverse(L.t().contiguous(), upper=True))
    rec("cho_solve", lib.cholesky_solve(lib.ones(6, 1, dtype=dt), L))
    rec.err("chol.bad", lambda: lib.linalg.cholesky(-P))
    rec("ex.info", lib.linalg.cholesky_ex(-P).info)
    Hb = lib.autograd.functional.hessian(lambda a, b: (a * b).sum() ** 2, (W[0], W[1]))
    rec("Hb.01", Hb[0][1])
    rec("Hb.type", type(Hb).__name__ + type(Hb[0]).__name__)


def p_evidential(lib, dt, rec):
    """Evidential deep learning: softplus evidence, Dirichlet alpha, the expected MSE and the
    digamma (cross-entropy) losses, the KL to the uniform Dirichlet with lgamma/digamma, an
    annealing coefficient, gradients; Dirichlet distribution entropy and KL."""
    F = lib.nn.functional
    lib.manual_seed(15)
    m = _mlp(lib, dt, 4, 6, 3)
    x = lib.randn(6, 4, dtype=dt)
    y = F.one_hot(lib.randint(0, 3, (6,)), 3).to(dt)
    ev = F.softplus(m(x))
    alpha = ev + 1
    S = alpha.sum(1, keepdim=True)
    p = alpha / S
    mse = ((y - p) ** 2 + p * (1 - p) / (S + 1)).sum(1)
    ce = (y * (lib.digamma(S) - lib.digamma(alpha))).sum(1)
    at = y + (1 - y) * alpha
    St = at.sum(1, keepdim=True)
    K = 3
    kl = (
        lib.lgamma(St).squeeze(1) - lib.lgamma(lib.tensor(float(K), dtype=dt))
        - lib.lgamma(at).sum(1)
        + ((at - 1) * (lib.digamma(at) - lib.digamma(St))).sum(1)
    )  # fmt: skip
    ann = min(1.0, 3 / 10)
    loss = (mse + ann * kl).mean() + ce.mean()
    loss.backward()
    rec("mse", mse)
    rec("ce", ce)
    rec("kl", kl)
    rec("u", K / S.squeeze(1))
    rec("g", m[0].weight.grad)
    D = lib.distributions.Dirichlet(alpha.detach())
    rec("D.entropy", D.entropy())
    rec("D.mean", D.mean)
    rec("D.var", D.variance)
    U = lib.distributions.Dirichlet(lib.ones(3, dtype=dt))
    rec("D.kl", lib.distributions.kl_divergence(D, U))
    rec("D.lp", D.log_prob(F.softmax(x[:, :3], 1)))
    rec("mvlgamma", lib.special.multigammaln(alpha.detach() + 1, 2))
    rec("polygamma", lib.polygamma(1, alpha.detach()))
    rec("lgamma.edge", lib.lgamma(lib.tensor([0.0, -1.0, -0.5, 1e-8], dtype=dt)))
    rec("digamma.edge", lib.digamma(lib.tensor([0.0, -1.0, -0.5, 1e-8], dtype=dt)))


def p_conformal(lib, dt, rec):
    """Split conformal prediction: gather of true-class scores, quantile with
    interpolation='higher' at the corrected level, prediction sets; APS with sort/cumsum and
    randomised scores; RAPS-style penalty; coverage and set sizes."""
    F = lib.nn.functional
    lib.manual_seed(16)
    cal = F.softmax(lib.randn(30, 5, dtype=dt) * 2, 1)
    ycal = lib.randint(0, 5, (30,))
    test = F.softmax(lib.randn(8, 5, dtype=dt) * 2, 1)
    ytest = lib.randint(0, 5, (8,))
    alpha = 0.1
    n = cal.shape[0]
    s = 1 - cal.gather(1, ycal.unsqueeze(1)).squeeze(1)
    level = min(1.0, (1 - alpha) * (n + 1) / n)
    qhat = lib.quantile(s, level, interpolation="higher")
    rec("qhat", qhat)
    for how in ("linear", "lower", "nearest", "midpoint"):
        rec("q." + how, s.quantile(lib.tensor([0.5, level], dtype=dt), interpolation=how))
    sets = (1 - test) <= qhat
    rec("sets", sets)
    rec("size", sets.sum(1))
    rec("cover", sets[lib.arange(8), ytest].to(dt).mean())
    srt, order = cal.sort(dim=1, descending=True)
    cs = srt.cumsum(1)
    rank = order.argsort(1).gather(1, ycal[:, None]).squeeze(1)
    u = lib.rand(n, dtype=dt)
    aps = cs.gather(1, rank[:, None]).squeeze(1) - u * srt.gather(1, rank[:, None]).squeeze(1)
    rec("aps", aps)
    qa = lib.quantile(aps, level, interpolation="higher")
    rec("qa", qa)
    ts, to = test.sort(1, descending=True)
    tcs = ts.cumsum(dim=1)
    incl = (tcs - ts) <= qa
    sets2 = lib.zeros_like(incl).scatter(1, to, incl)
    rec("sets2", sets2)
    pen = 0.01 * (lib.arange(5, dtype=dt) - 1).clamp(min=0)
    rec("raps", (tcs + pen.cumsum(0))[:2])
    rec("msort", lib.msort(cal[:3].t())[:, 0])
    rec("sort.stable", lib.sort(lib.tensor([1.0, 0.5, 1.0, 0.5], dtype=dt), stable=True,
                                descending=True).indices)  # fmt: skip
    rec.err("q.bad", lambda: s.quantile(1.5))
    rec.err("q.interp", lambda: s.quantile(0.5, interpolation="up"))
    rec.err("q.int", lambda: lib.arange(5).quantile(0.5))
    rec("nanq", lib.nanquantile(lib.tensor([1.0, float("nan"), 3.0], dtype=dt), 0.5))


def p_ood(lib, dt, rec):
    """OOD scores: max softmax, energy via logsumexp/T, ODIN input preprocessing, Mahalanobis
    with class means, a tied covariance, pinv and cholesky_solve; AUROC by ranks."""
    F = lib.nn.functional
    lib.manual_seed(17)
    m = _mlp(lib, dt, 4, 8, 3)
    xin = lib.randn(10, 4, dtype=dt)
    xout = lib.randn(6, 4, dtype=dt) * 3 + 2
    T = 2.0
    with lib.no_grad():
        lin, lout = m(xin), m(xout)
    rec("msp", F.softmax(lin, 1).amax(1))
    rec("energy", -T * lib.logsumexp(lout / T, dim=1))
    rec("maxlogit", lout.max(dim=-1).values)
    x = xout.clone().requires_grad_()
    sc = F.log_softmax(m(x) / 1000.0, 1).max(1).values.sum()
    sc.backward()
    xo = x.detach() + 0.002 * x.grad.sign()
    rec("odin", F.softmax(m(xo) / 1000.0, 1).max(1)[0])
    feats = lib.randn(30, 4, dtype=dt)
    lab = lib.arange(30) % 3
    mus = lib.stack([feats[lab == c].mean(0) for c in range(3)])
    cen = feats - mus[lab]
    cov = cen.t() @ cen / 30
    prec = lib.linalg.pinv(cov)
    rec("prec", prec)
    rec("pinv.h", lib.linalg.pinv(cov, hermitian=True))
    d = xout.unsqueeze(1) - mus.unsqueeze(0)
    maha = lib.einsum("nci,ij,ncj->nc", d, prec, d)
    rec("maha", maha.min(1).values)
    L = lib.linalg.cholesky(cov)
    sol = lib.cholesky_solve(d.reshape(-1, 4).t(), L)
    rec("maha2", (d.reshape(-1, 4) * sol.t()).sum(1).view(6, 3))
    rec("cdist", lib.cdist(xin[:3], mus))
    rec("pinv.rank", lib.linalg.pinv(lib.ones(3, 3, dtype=dt), rtol=1e-6))
    rec("pinv.atol", lib.linalg.pinv(lib.diag(lib.tensor([1.0, 1e-9, 2.0], dtype=dt)), atol=1e-5))
    s_in = -lib.logsumexp(lin, 1)
    s_out = -lib.logsumexp(lout, 1)
    allsc = lib.cat([s_in, s_out])
    ranks = allsc.argsort().argsort().to(dt) + 1
    auroc = (ranks[10:].sum() - 6 * 7 / 2) / (6 * 10)
    rec("auroc", auroc)
    rec("fpr95", (s_in >= lib.quantile(s_out, 0.05)).to(dt).mean())
    rec(
        "lse.inf",
        lib.logsumexp(lib.tensor([[float("-inf")] * 2, [float("inf"), 1.0]], dtype=dt), 1),
    )


def p_pgd_data(lib, dt, rec):
    """The older PGD style: a leaf delta (zeros_like with requires_grad) updated through .data,
    grads zeroed with grad.data.zero_(), a per-sample loss backward with a ones_like gradient,
    accumulation when a step forgets to zero, early stop by a mask."""
    F = lib.nn.functional
    lib.manual_seed(18)
    m = _mlp(lib, dt)
    x = lib.rand(5, 4, dtype=dt)
    y = lib.randint(0, 3, (5,))
    eps, alpha = 0.1, 0.03
    delta = lib.zeros_like(x, requires_grad=True)
    delta.data.uniform_(-eps, eps)
    delta.data = lib.clamp(x + delta.data, 0, 1) - x
    rec("is_leaf", str(delta.is_leaf))
    for i in range(4):
        out = m(x + delta)
        loss = F.cross_entropy(out, y, reduction="none")
        loss.backward(lib.ones_like(loss))
        active = (out.argmax(1) == y).to(dt).unsqueeze(1)
        d = delta.data + alpha * active * delta.grad.detach().sign()
        delta.data = d.clamp(-eps, eps)
        delta.data = lib.min(lib.max(delta.detach(), -x), 1 - x)
        if i != 1:
            delta.grad.data.zero_()
        rec(f"loss{i}", loss)
        rec(f"grad{i}", delta.grad)
    rec("delta", delta)
    rec("version.ok", str(delta.requires_grad and delta.grad_fn is None))
    t = lib.ones(3, dtype=dt, requires_grad=True)
    u = t * 2
    lib.autograd.backward([u.sum(), (t**2).sum()], [lib.tensor(2.0, dtype=dt), None])
    rec("backward.multi", t.grad)
    lm = [lib.zeros(2, dtype=dt, requires_grad=True)]
    z = lm[0] + 1
    rec.err("inplace.leaf", lambda: lm[0].add_(1))
    rec.err("bwd.twice", lambda: [z.exp().sum().backward(), None][1])
    ez = z.exp()
    ez.sum().backward(retain_graph=False)
    rec.err("bwd.freed", lambda: ez.sum().backward())


class _ECELoss:
    """Guo et al.'s ECE written as the paper's code does: a loop over bins with gt/le masks and
    .item() on the proportions."""

    def __init__(self, lib, n_bins=8):
        b = lib.linspace(0, 1, n_bins + 1)
        self.lowers, self.uppers = b[:-1], b[1:]
        self.lib = lib

    def __call__(self, logits, labels):
        sm = self.lib.nn.functional.softmax(logits, dim=1)
        conf, pred = self.lib.max(sm, 1)
        accs = pred.eq(labels)
        ece = self.lib.zeros(1, device=logits.device)
        for lo, hi in zip(self.lowers, self.uppers, strict=True):
            in_bin = conf.gt(lo.item()) * conf.le(hi.item())
            prop = in_bin.float().mean()
            if prop.item() > 0:
                acc_in = accs[in_bin].float().mean()
                conf_in = conf[in_bin].mean()
                ece += lib_abs(self.lib, conf_in - acc_in) * prop
        return ece


def lib_abs(lib, v):
    return lib.abs(v)


def p_ece_module(lib, dt, rec):
    """ModelWithTemperature as in the temperature-scaling repository: a Parameter of 1.5 expanded
    to the logits' shape, LBFGS(lr=0.01, max_iter=50) with an `eval` closure, ECE before and
    after, the paper's bin loop with bool products and boolean indexing."""
    nn = lib.nn
    lib.manual_seed(19)
    logits = lib.randn(60, 4, dtype=dt) * 2.5
    labels = lib.randint(0, 4, (60,))

    class WithT(nn.Module):
        def __init__(self):
            super().__init__()
            self.temperature = nn.Parameter(lib.ones(1) * 1.5)

        def forward(self, lg):
            t = self.temperature.unsqueeze(1).expand(lg.size(0), lg.size(1))
            return lg / t

    mt = WithT().to(dt)
    nll = nn.CrossEntropyLoss()
    ece = _ECELoss(lib)
    rec("nll.before", nll(logits, labels))
    rec("ece.before", ece(logits, labels))
    opt = lib.optim.LBFGS([mt.temperature], lr=0.01, max_iter=50)

    def eval_():
        opt.zero_grad()
        loss = nll(mt(logits), labels)
        loss.backward()
        return loss

    opt.step(eval_)
    rec("T", mt.temperature)
    rec("nll.after", nll(mt(logits), labels))
    rec("ece.after", ece(mt(logits).detach(), labels))
    rec("state", str(sorted(opt.state_dict()["state"][0].keys())))
    rec("bool.mul", (logits[:, 0].gt(0) * logits[:, 1].le(0))[:8])
    rec("bool.mul.dtype", str((logits[:, 0].gt(0) * logits[:, 1].le(0)).dtype))
    rec("bool.sum", (logits > 0).sum(0))
    rec("bool.mean.err", str(rec.err("bm", lambda: (logits > 0).mean())))


def p_lipschitz(lib, dt, rec):
    """Lipschitz certificates: spectral norms by power iteration and linalg.matrix_norm(ord=2),
    the product bound, a margin certificate, spectral_norm parametrization, svdvals,
    Parseval-style orthogonality penalty with its gradient."""
    F = lib.nn.functional
    lib.manual_seed(20)
    m = _mlp(lib, dt, 4, 6, 3)
    Ws = [m[0].weight, m[2].weight]
    sig = []
    for W in Ws:
        u = F.normalize(lib.randn(W.shape[0], dtype=dt), dim=0)
        with lib.no_grad():
            for _ in range(30):
                v = F.normalize(W.t() @ u, dim=0, eps=1e-12)
                u = F.normalize(W @ v, dim=0, eps=1e-12)
        sig.append(lib.dot(u, W @ v))
    rec("sig.pi", lib.stack(sig))
    rec("sig.mn", lib.stack([lib.linalg.matrix_norm(W, ord=2) for W in Ws]))
    rec("svdvals", lib.linalg.svdvals(Ws[0]))
    rec("fro", lib.linalg.matrix_norm(Ws[0]))
    rec("nuc", lib.linalg.norm(Ws[1], ord="nuc"))
    K = sig[0] * sig[1]
    x = lib.randn(5, 4, dtype=dt)
    z = m(x)
    top2 = z.topk(2, dim=1).values
    radius = (top2[:, 0] - top2[:, 1]) / (2**0.5 * K)
    rec("radius", radius)
    W = Ws[0]
    pen = lib.linalg.matrix_norm(W @ W.t() - lib.eye(6, dtype=dt)) ** 2
    pen.backward()
    rec("pen", pen)
    rec("pen.g", W.grad)
    lin = lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(4, 5).to(dt))
    lin(x)
    lin(x)
    rec("sn.weight", lin.weight)
    rec("sn.u", lin.parametrizations.weight[0]._u)
    lin.eval()
    rec("sn.eval", lin(x))
    rec("sn.sv", lib.linalg.matrix_norm(lin.weight.detach(), ord=2))


def p_ensemble_func(lib, dt, rec):
    """A vectorised deep ensemble: func.stack_module_state, vmap over functional_call (eval-mode
    BatchNorm, chunk_size), per-member per-sample input gradients with vmap(grad), SWA members
    with AveragedModel(use_buffers=True) and an annealing SWALR."""
    import copy

    F = lib.nn.functional
    lib.manual_seed(21)
    nn = lib.nn
    members = [
        nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2)).to(dt)
        for _ in range(3)
    ]
    X = lib.randn(8, 3, dtype=dt)
    Y = lib.randint(0, 2, (8,))
    for mm in members:
        mm(X)
        mm.eval()
    params, bufs = lib.func.stack_module_state(members)
    rec("keys", str(sorted(params)) + str(sorted(bufs)))
    base = copy.deepcopy(members[0])

    def f(p, b, x):
        return lib.func.functional_call(base, (p, b), (x,))

    out = lib.vmap(f, in_dims=(0, 0, None))(params, bufs, X)
    rec("out", out)
    rec("out.chunk", lib.vmap(f, in_dims=(0, 0, None), chunk_size=2)(params, bufs, X))
    probs = out.softmax(-1)
    rec("bald", lib.special.entr(probs.mean(0)).sum(-1) - lib.special.entr(probs).sum(-1).mean(0))

    def loss(p, b, x, y):
        return F.cross_entropy(f(p, b, x.unsqueeze(0)), y.unsqueeze(0))

    gx = lib.vmap(lib.vmap(lib.func.grad(loss, argnums=2), in_dims=(None, None, 0, 0)),
                  in_dims=(0, 0, None, None))(params, bufs, X, Y)  # fmt: skip
    rec("gx", gx)
    m = members[1].train()
    opt = lib.optim.SGD(m.parameters(), lr=0.5, momentum=0.5)
    swa = lib.optim.swa_utils.AveragedModel(m, use_buffers=True)
    sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    lrs = []
    for _ in range(5):
        opt.zero_grad()
        F.cross_entropy(m(X), Y).backward()
        opt.step()
        swa.update_parameters(m)
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("lrs", lrs)
    rec.params("swa", swa)
    rec("swa.rm", swa.module[1].running_mean)
    rec("swa.n", swa.n_averaged)
    swa.eval()
    with lib.no_grad():
        rec("swa.out", swa(X[:3]))


def p_transfer(lib, dt, rec):
    """Transfer attacks: DI-FGSM's random resize and pad (interpolate, pad), TI-FGSM's Gaussian
    smoothing of the gradient (depthwise conv2d), a spatial attack through affine_grid and
    grid_sample in every mode, and a BPDA straight-through quantiser as a custom Function."""
    F = lib.nn.functional
    lib.manual_seed(22)
    m = _cnn(lib, dt).eval()
    x = lib.rand(2, 1, 4, 4, dtype=dt)
    y = lib.tensor([1, 0])
    xa = x.clone().requires_grad_()
    rnd = int(lib.randint(4, 7, ()))
    r = F.interpolate(xa, size=(rnd, rnd), mode="nearest")
    pt, pl = int(lib.randint(0, 7 - rnd, ())), int(lib.randint(0, 7 - rnd, ()))
    big = F.pad(r, (pl, 6 - rnd - pl, pt, 6 - rnd - pt), value=0)
    back = F.interpolate(big, size=(4, 4), mode="bilinear", align_corners=False)
    loss = F.cross_entropy(m(back), y)
    (g,) = lib.autograd.grad(loss, xa)
    rec("di.size", rnd)
    rec("di.g", g)
    k = 3
    ax = lib.arange(k, dtype=dt) - (k - 1) / 2
    g1 = lib.exp(-(ax**2) / 2)
    kern = lib.outer(g1, g1)
    kern = (kern / kern.sum()).expand(1, 1, k, k)
    gs = F.conv2d(g, kern, padding=k // 2, groups=1)
    rec("ti.g", gs)
    rec("ti.reflect", F.conv2d(F.pad(g, (1, 1, 1, 1), mode="reflect"), kern))
    ang = lib.tensor([0.2, -0.3], dtype=dt, requires_grad=True)
    c, s_ = ang.cos(), ang.sin()
    zero = lib.zeros_like(c)
    theta = lib.stack([lib.stack([c, -s_, zero + 0.1], 1), lib.stack([s_, c, zero], 1)], 1)
    total = 0
    for ac in (False, True):
        grid = F.affine_grid(theta, list(x.shape), align_corners=ac)
        for mode in ("bilinear", "nearest", "bicubic"):
            for pm in ("zeros", "border", "reflection"):
                xs = F.grid_sample(x, grid, mode=mode, padding_mode=pm, align_corners=ac)
                rec(f"gs.{ac}.{mode}.{pm}", xs.sum((1, 2, 3)))
                total = total + F.cross_entropy(m(xs), y)
    total.backward()
    rec("ang.grad", ang.grad)

    class Quant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v, levels):
            return (v * levels).round() / levels

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    xq = x.clone().requires_grad_()
    q = Quant.apply(xq, 4)
    F.cross_entropy(m(q), y).backward()
    rec("bpda.q", q)
    rec("bpda.g", xq.grad)
    rec("bpda.fn", type(q.grad_fn).__name__)


def p_regression_uq(lib, dt, rec):
    """Regression uncertainty: a mean/variance network trained with GaussianNLLLoss (per-sample,
    shared and scalar variances, full), pinball loss for quantile heads, conformalised quantile
    regression, Gaussian CRPS with Normal.cdf/log_prob, the deep evidential (NIG) loss."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(23)
    net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 5)).to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=0.02)
    X = lib.randn(20, 2, dtype=dt)
    y = X[:, :1] * 2 + 0.3 * lib.randn(20, 1, dtype=dt)
    qs = lib.tensor([0.1, 0.5, 0.9], dtype=dt)
    crit = nn.GaussianNLLLoss(full=True)
    for step in range(4):
        out = net(X)
        mu, var = out[:, :1], F.softplus(out[:, 1:2]) + 1e-3
        e = y - out[:, 2:]
        pin = lib.max(qs * e, (qs - 1) * e).mean()
        loss = crit(mu, y, var) + pin
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("gnll.shared", F.gaussian_nll_loss(mu, y, var[:, 0]))
    rec("gnll.scalar", F.gaussian_nll_loss(mu, y, 0.5, reduction="sum"))
    rec("gnll.bcast", F.gaussian_nll_loss(out[:, :2], y.expand(20, 2), var, reduction="none")[:3])
    rec.err("gnll.size", lambda: F.gaussian_nll_loss(out[:, :2], y, var[:3]))
    rec.err("gnll.int", lambda: F.gaussian_nll_loss(mu, y, 1))
    rec.err("gnll.neg", lambda: F.gaussian_nll_loss(mu, y, -var))
    lo, hi = out[:, 2:3].detach(), out[:, 4:5].detach()
    sc = lib.maximum(lo - y, y - hi).squeeze(1)
    qhat = lib.quantile(sc, min(1.0, 0.9 * 21 / 20), interpolation="higher")
    rec("cqr.q", qhat)
    rec("cqr.cover", ((y >= lo - qhat) & (y <= hi + qhat)).to(dt).mean())
    sig = var.sqrt().detach().squeeze(1)
    z = (y.squeeze(1) - mu.detach().squeeze(1)) / sig
    n = lib.distributions.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt))
    crps = sig * (z * (2 * n.cdf(z) - 1) + 2 * n.log_prob(z).exp() - 1 / lib.pi**0.5)
    rec("crps", crps.mean())
    raw = lib.randn(20, 4, dtype=dt, requires_grad=True)
    g, nu, al, be = raw.unbind(1)
    nu, al, be = F.softplus(nu), F.softplus(al) + 1, F.softplus(be)
    t = y.squeeze(1)
    om = 2 * be * (1 + nu)
    nll = (
        0.5 * lib.log(lib.pi / nu) - al * lib.log(om)
        + (al + 0.5) * lib.log(nu * (t - g) ** 2 + om) + lib.lgamma(al) - lib.lgamma(al + 0.5)
    )  # fmt: skip
    (nll + 0.01 * (t - g).abs() * (2 * nu + al)).mean().backward()
    rec("nig", nll[:5])
    rec("nig.g", raw.grad[:3])


PROGRAMS = [
    "fgsm", "pgd", "l2_pgd", "cw", "deepfool", "mifgsm", "trades", "advtrain", "pgd_data",
    "transfer",
    "ibp", "smoothing", "lipschitz",
    "ensemble", "ensemble_func", "tempscale", "ece_module", "calibration", "swag", "laplace",
    "evidential", "conformal", "ood", "regression_uq",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    rec_w = Rec(dtypes=True, first_line=True)
    rec_g = Rec(dtypes=True, first_line=True)
    want = run_program(prog, torch, dt, rec=rec_w, keep_warnings=_user_warning)
    got = run_program(prog, minitorch, dt, rec=rec_g, keep_warnings=_user_warning)
    assert_records_match(want, got, _tol, rename=True)


def _user_warning(w):
    return issubclass(w.category, UserWarning)


def _tol(name, value):
    """float64 to 1e-9 of the scale, float32 (also a float32 result of a float64 program) to
    1e-4."""
    return 1e-9 if value.dtype == "float64" else 1e-4
