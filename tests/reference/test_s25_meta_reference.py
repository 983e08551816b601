"""Session 25: meta-learning and higher-order autograd programs (MAML with functional_call, first-
order MAML, Reptile, hypergradients through unrolled SGD, implicit differentiation by a Neumann
series, a DEQ layer whose custom backward solves a linear system, gradient penalties through
conv/batch norm/layer norm/interpolate/pooling/GRU/attention, Hessian-vector products and
Hutchinson's trace estimator, Gauss-Newton and Fisher products with jvp/jacfwd/vmap, vmap(grad)
over tasks, influence functions by conjugate gradient, a learned LSTM optimiser, DARTS, Meta-SGD,
differentiable augmentation, TRPO's natural gradient, a ridge-regression head (R2D2), model
ensembling with stack_module_state, and the graph behaviours these rely on: retain_graph, version
errors, allow_unused/materialize_grads, is_grads_batched, non-leaf inputs, hooks in double backward,
custom Functions, torch.func), each written once against a `torch`-like module and run under torch
and minitorch after the same manual_seed. Every recorded value must agree: float64 to 1e-11 of its
scale, float32 to 1e-4; exception types and messages exactly."""

from __future__ import annotations

import copy
import math

import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")


PROGRAMS = [
    "maml", "fomaml", "reptile", "hyper_lr", "implicit_neumann", "deq", "gradpen",
    "gradpen_embed", "hvp", "gn_fvp", "vmap_tasks", "influence", "l2o", "darts", "meta_sgd",
    "diff_aug", "graph_errors", "hooks_double", "custom_fn", "func_api", "maml_conv", "trpo",
    "r2d2", "ensemble", "penalties", "graph_edges",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt)
    got = run_program(prog, minitorch, dt)
    assert_records_match(want, got, 1e-11 if dt == "float64" else 1e-4)


# --- the programs: each takes the library, a dtype and a recorder ---


def _sine_tasks(lib, dt, n_tasks, k):
    amp = lib.rand(n_tasks, 1, 1, dtype=dt) * 4.9 + 0.1
    phase = lib.rand(n_tasks, 1, 1, dtype=dt) * math.pi
    x = lib.rand(n_tasks, 2 * k, 1, dtype=dt) * 10 - 5
    y = amp * lib.sin(x + phase)
    return x[:, :k], y[:, :k], x[:, k:], y[:, k:]


def p_maml(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    from_func = lib.func.functional_call
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
    ).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        xs, ys, xq, yq = _sine_tasks(lib, dt, 4, 5)
        opt.zero_grad()
        meta_loss = 0.0
        for t in range(4):
            fast = dict(model.named_parameters())
            for _ in range(2):
                loss = F.mse_loss(from_func(model, fast, (xs[t],)), ys[t])
                grads = lib.autograd.grad(loss, list(fast.values()), create_graph=True)
                fast = {n: p - 0.01 * g for (n, p), g in zip(fast.items(), grads, strict=True)}
            q = F.mse_loss(from_func(model, fast, (xq[t],)), yq[t])
            meta_loss = meta_loss + q
            rec(f"q{step}.{t}", q)
        (meta_loss / 4).backward()
        for n, p in model.named_parameters():
            rec(f"g{step}.{n}", p.grad)
        opt.step()
    for n, p in model.named_parameters():
        rec("p." + n, p)


def p_fomaml(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)
    model = nn.Sequential(nn.Linear(1, 12), nn.ReLU(), nn.Linear(12, 1)).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(3):
        xs, ys, xq, yq = _sine_tasks(lib, dt, 3, 6)
        opt.zero_grad()
        for t in range(3):
            fast = [p.detach().clone().requires_grad_() for p in model.parameters()]
            for _ in range(3):
                h = F.relu(F.linear(xs[t], fast[0], fast[1]))
                loss = F.mse_loss(F.linear(h, fast[2], fast[3]), ys[t])
                gs = lib.autograd.grad(loss, fast)
                fast = [
                    (w - 0.02 * g).detach().requires_grad_() for w, g in zip(fast, gs, strict=True)
                ]
            h = F.relu(F.linear(xq[t], fast[0], fast[1]))
            q = F.mse_loss(F.linear(h, fast[2], fast[3]), yq[t])
            gs = lib.autograd.grad(q, fast)
            for p, g in zip(model.parameters(), gs, strict=True):
                p.grad = g / 3 if p.grad is None else p.grad + g / 3
            rec(f"q{step}.{t}", q)
        opt.step()
    for n, p in model.named_parameters():
        rec("p." + n, p)


def p_reptile(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    import copy

    lib.manual_seed(2)
    model = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 1)).to(dt)
    for it in range(4):
        xs, ys, _, _ = _sine_tasks(lib, dt, 1, 10)
        inner = copy.deepcopy(model)
        iopt = lib.optim.SGD(inner.parameters(), lr=0.02)
        for _ in range(3):
            iopt.zero_grad()
            loss = F.mse_loss(inner(xs[0]), ys[0])
            loss.backward()
            iopt.step()
        rec(f"loss{it}", loss)
        eps = 0.1 * (1 - it / 4)
        with lib.no_grad():
            for p, q in zip(model.parameters(), inner.parameters(), strict=True):
                p.add_(q - p, alpha=eps)
    sd = model.state_dict()
    for k in sd:
        rec(k, sd[k])


def p_hyper_lr(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(3)
    X = lib.randn(32, 5, dtype=dt)
    y = X @ lib.randn(5, 1, dtype=dt) + 0.1 * lib.randn(32, 1, dtype=dt)
    Xv, yv = X[:16], y[:16]
    log_lr = lib.tensor(math.log(0.05), dtype=dt, requires_grad=True)
    log_wd = lib.tensor(math.log(1e-2), dtype=dt, requires_grad=True)
    hopt = lib.optim.Adam([log_lr, log_wd], lr=0.05)
    for outer in range(3):
        w = lib.zeros(5, 1, dtype=dt, requires_grad=True)
        for _ in range(5):
            loss = F.mse_loss(X[16:] @ w, y[16:]) + log_wd.exp() * (w**2).sum()
            (g,) = lib.autograd.grad(loss, w, create_graph=True)
            w = w - log_lr.exp() * g
        val = F.mse_loss(Xv @ w, yv)
        hopt.zero_grad()
        val.backward()
        rec(f"val{outer}", val)
        rec(f"glr{outer}", log_lr.grad)
        rec(f"gwd{outer}", log_wd.grad)
        hopt.step()
    rec("lr", log_lr)
    rec("wd", log_wd)


def p_implicit_neumann(lib, dt, rec):
    lib.manual_seed(4)
    n = 6
    W = (0.3 * lib.randn(n, n, dtype=dt) / math.sqrt(n)).requires_grad_()
    x = lib.randn(n, dtype=dt, requires_grad=True)

    def f(z):
        return lib.tanh(W @ z + x)

    with lib.no_grad():
        z = lib.zeros(n, dtype=dt)
        for _ in range(60):
            z = f(z)
    z = z.requires_grad_()
    fz = f(z)
    target = lib.linspace(-1, 1, n, dtype=dt)
    L = ((z - target) ** 2).sum()
    (v,) = lib.autograd.grad(L, z)
    p = v.clone()
    acc = v.clone()
    for _i in range(25):
        (p,) = lib.autograd.grad(fz, z, grad_outputs=p, retain_graph=True)
        acc = acc + p
    rec("z", z)
    gW, gx = lib.autograd.grad(fz, (W, x), grad_outputs=acc)
    rec("gW", gW)
    rec("gx", gx)
    # exact: (I - J^T)^{-1} v
    J = lib.autograd.functional.jacobian(lambda zz: f(zz), z.detach())
    exact = lib.linalg.solve(lib.eye(n, dtype=dt) - J.T, v)
    rec("exact", exact)
    rec("acc", acc)


class _DEQ:
    @staticmethod
    def build(lib):
        class FixedPoint(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, W):
                z = lib.zeros_like(x)
                for _ in range(80):
                    z = lib.tanh(z @ W.T + x)
                ctx.save_for_backward(z, W)
                return z

            @staticmethod
            def backward(ctx, g):
                z, W = ctx.saved_tensors
                d = 1 - z**2  # (B, n)
                # J = diag(d) W ; solve (I - J)^T u = g per row
                n = W.shape[0]
                eye = lib.eye(n, dtype=g.dtype)
                J = d.unsqueeze(-1) * W.unsqueeze(0)
                u = lib.linalg.solve(eye - J.transpose(-1, -2), g.unsqueeze(-1)).squeeze(-1)
                gx = u * d
                gW = gx.T @ z
                return gx, gW

        return FixedPoint


def p_deq(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    FP = _DEQ.build(lib)
    lib.manual_seed(5)
    enc = nn.Linear(4, 8).to(dt)
    W = nn.Parameter(0.2 * lib.randn(8, 8, dtype=dt) / math.sqrt(8))
    head = nn.Linear(8, 3).to(dt)
    opt = lib.optim.SGD(
        list(enc.parameters()) + [W] + list(head.parameters()), lr=0.1, momentum=0.9
    )
    x = lib.randn(10, 4, dtype=dt)
    t = lib.randint(0, 3, (10,))
    for it in range(3):
        opt.zero_grad()
        z = FP.apply(enc(x), W)
        loss = F.cross_entropy(head(z), t)
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"gW{it}", W.grad)
        rec(f"genc{it}", enc.weight.grad)
        opt.step()
    rec("fn", type(z.grad_fn).__name__)
    # gradcheck of the custom function
    xx = lib.randn(2, 3, dtype=lib.float64, requires_grad=True)
    WW = (0.2 * lib.randn(3, 3, dtype=lib.float64)).requires_grad_()
    rec("gc", lib.autograd.gradcheck(FP.apply, (xx, WW), eps=1e-6, atol=1e-5))


def p_gradpen(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)

    class D(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(4)
            self.ln = nn.LayerNorm([4, 4, 4])
            self.conv2 = nn.Conv2d(4, 3, 3, stride=2, padding=1)
            self.fc = nn.Linear(12, 1)

        def forward(self, x):
            h = F.gelu(self.bn(self.conv(x)))
            h = F.interpolate(h, scale_factor=0.5, mode="bilinear", align_corners=False)
            h = F.softplus(self.ln(h), beta=2.0)
            h = F.max_pool2d(F.interpolate(h, size=(8, 8), mode="nearest"), 2)
            h = F.elu(self.conv2(h))
            h = F.silu(h.flatten(1))
            return self.fc(h)

    d = D().to(dt)
    opt = lib.optim.Adam(d.parameters(), lr=1e-3, betas=(0.5, 0.9))
    for it in range(3):
        x = lib.randn(5, 2, 8, 8, dtype=dt).requires_grad_()
        out = d(x)
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        r1 = g.pow(2).reshape(5, -1).sum(1).mean()
        gp = ((g.reshape(5, -1).norm(2, dim=1) - 1) ** 2).mean()
        loss = F.softplus(-out).mean() + 5.0 * r1 + gp
        opt.zero_grad()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"r1{it}", r1)
        for n, p in d.named_parameters():
            rec(f"g{it}.{n}", p.grad)
        opt.step()
    rec("rm", d.bn.running_mean)
    rec("rv", d.bn.running_var)


def p_gradpen_embed(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(7)
    emb = nn.Embedding(20, 8).to(dt)
    rnn = nn.GRU(8, 6, batch_first=True).to(dt)
    head = nn.Linear(6, 2).to(dt)
    tok = lib.randint(0, 20, (3, 5))
    e = emb(tok)
    e.retain_grad()
    h, _ = rnn(e)
    logits = head(F.layer_norm(h[:, -1], (6,)))
    ce = F.cross_entropy(logits, lib.tensor([0, 1, 1]))
    (ge,) = lib.autograd.grad(ce, e, create_graph=True)
    pen = ge.pow(2).sum()
    (ce + 0.5 * pen).backward()
    rec("ce", ce)
    rec("pen", pen)
    rec("gemb", emb.weight.grad)
    rec("ghead", head.weight.grad)
    for n, p in rnn.named_parameters():
        rec("g." + n, p.grad)
    rec("e.grad", e.grad)


def p_hvp(lib, dt, rec):
    AF = lib.autograd.functional
    lib.manual_seed(8)
    A = lib.randn(5, 5, dtype=dt)
    b = lib.randn(5, dtype=dt)

    def f(w):
        return (lib.log1p(lib.exp(A @ w)) - b * (A @ w)).sum() + 0.1 * (w**4).sum()

    w = lib.randn(5, dtype=dt)
    v = lib.randn(5, dtype=dt)
    val, hv = AF.hvp(f, w, v)
    rec("val", val)
    rec("hvp", hv)
    val2, vh = AF.vhp(f, w, v)
    rec("vhp", vh)
    H = AF.hessian(f, w)
    rec("H", H)
    rec("Hv", H @ v)
    # double-grad trick
    w2 = w.clone().requires_grad_()
    (g,) = lib.autograd.grad(f(w2), w2, create_graph=True)
    (hv2,) = lib.autograd.grad(g, w2, grad_outputs=v)
    rec("hv2", hv2)
    rec.err("second", lambda: lib.autograd.grad(g @ v, w2))
    (g,) = lib.autograd.grad(f(w2), w2, create_graph=True)
    (hv3,) = lib.autograd.grad(g @ v, w2, retain_graph=True)
    rec("hv3", hv3)
    (hv3,) = lib.autograd.grad(g @ v, w2)
    rec("hv3b", hv3)
    # Hutchinson
    (g,) = lib.autograd.grad(f(w2), w2, create_graph=True)
    est = 0.0
    for i in range(8):
        z = (lib.randint(0, 2, (5,)) * 2 - 1).to(dt)
        (hz,) = lib.autograd.grad(g, w2, grad_outputs=z, retain_graph=True)
        est = est + (z * hz).sum()
        rec(f"z{i}", z)
    rec("trace_est", est / 8)
    rec("trace", lib.trace(H))
    # func hessian / jacfwd(jacrev)
    rec("fH", lib.func.hessian(f)(w))
    rec("fH2", lib.func.jacfwd(lib.func.jacrev(f))(w))
    # create_graph hvp
    w3 = w.clone().requires_grad_()
    _, hv4 = AF.hvp(f, w3, v, create_graph=True)
    (gg,) = lib.autograd.grad(hv4.sum(), w3)
    rec("third", gg)


def p_gn_fvp(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2)).to(dt)
    x = lib.randn(7, 3, dtype=dt)
    params = {k: v.detach() for k, v in net.named_parameters()}
    names = list(params)
    v = {k: lib.randn_like(p) for k, p in params.items()}

    def out_fn(*ps):
        return lib.func.functional_call(net, dict(zip(names, ps, strict=True)), (x,))

    ps = tuple(params.values())
    vs = tuple(v.values())
    # jvp via func
    o, jv = lib.func.jvp(out_fn, ps, vs)
    rec("jv", jv)
    # jvp via double-vjp trick
    ps_r = [p.clone().requires_grad_() for p in ps]
    o2 = out_fn(*ps_r)
    u = lib.zeros_like(o2, requires_grad=True)
    gs = lib.autograd.grad(o2, ps_r, grad_outputs=u, create_graph=True)
    (jv2,) = lib.autograd.grad(gs, u, grad_outputs=vs)
    rec("jv2", jv2)
    # autograd.functional.jvp
    _, jv3 = lib.autograd.functional.jvp(out_fn, ps, vs)
    rec("jv3", jv3)
    # GN product: J^T H_out J v, with softmax-CE output hessian
    p = F.softmax(o, -1)
    Hjv = p * jv - p * (p * jv).sum(-1, keepdim=True)
    gn = lib.autograd.grad(o2, ps_r, grad_outputs=Hjv)
    for i, gi in enumerate(gn):
        rec(f"gn{i}", gi)
    # jacfwd vs jacrev
    jf = lib.func.jacfwd(out_fn, argnums=0)(*ps)
    jr = lib.func.jacrev(out_fn, argnums=0)(*ps)
    rec("jf", jf)
    rec("jr", jr)

    # empirical Fisher via vmap(grad)
    def lossf(pd, xi, ti):
        return F.cross_entropy(
            lib.func.functional_call(net, pd, (xi.unsqueeze(0),)), ti.unsqueeze(0)
        )

    t = lib.randint(0, 2, (7,))
    per = lib.func.vmap(lib.func.grad(lossf), in_dims=(None, 0, 0))(params, x, t)
    for k in names:
        rec("per." + k, per[k])
    fl = lib.cat([per[k].reshape(7, -1) for k in names], 1)
    rec("fisher", fl.T @ fl / 7)


def p_vmap_tasks(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(10)
    T, k = 4, 6
    xs = lib.randn(T, k, 3, dtype=dt)
    ys = lib.randn(T, k, dtype=dt)
    W = lib.randn(T, 3, dtype=dt)
    b = lib.zeros(T, dtype=dt)

    def loss(w, bb, x, y):
        return F.mse_loss(x @ w + bb, y)

    g = lib.func.vmap(lib.func.grad(loss, argnums=(0, 1)))(W, b, xs, ys)
    rec("gw", g[0])
    rec("gb", g[1])
    gv = lib.func.vmap(lib.func.grad_and_value(loss))(W, b, xs, ys)
    rec("gv.g", gv[0])
    rec("gv.v", gv[1])

    def adapt(w, bb, x, y):
        for _ in range(3):
            gw, gb = lib.func.grad(loss, argnums=(0, 1))(w, bb, x, y)
            w, bb = w - 0.1 * gw, bb - 0.1 * gb
        return loss(w, bb, x, y)

    meta = lib.func.grad(
        lambda w0: lib.func.vmap(adapt, in_dims=(None, None, 0, 0))(
            w0, lib.tensor(0.0, dtype=dt), xs, ys
        ).mean()
    )(W[0])
    rec("meta", meta)
    H = lib.func.vmap(lib.func.hessian(loss))(W, b, xs, ys)
    rec("H", H)


def p_influence(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    X = lib.randn(40, 4, dtype=dt)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
    model = nn.Linear(4, 2).to(dt)
    opt = lib.optim.LBFGS(model.parameters(), lr=1, max_iter=30)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss = loss + 0.01 * sum((p**2).sum() for p in model.parameters())
        loss.backward()
        return loss

    opt.step(closure)
    params = list(model.parameters())

    def train_loss():
        return F.cross_entropy(model(X), y) + 0.01 * sum((p**2).sum() for p in params)

    def hvp(v):
        g = lib.autograd.grad(train_loss(), params, create_graph=True)
        return lib.autograd.grad(g, params, grad_outputs=v)

    xt, yt = X[:3], y[:3]
    vt = lib.autograd.grad(F.cross_entropy(model(xt), yt), params)
    # conjugate gradient
    xcg = [lib.zeros_like(p) for p in params]
    r = [v.clone() for v in vt]
    pcg = [v.clone() for v in vt]
    rs = sum((ri * ri).sum() for ri in r)
    for it in range(10):
        Ap = hvp(pcg)
        alpha = rs / sum((a * b).sum() for a, b in zip(pcg, Ap, strict=True))
        xcg = [a + alpha * b for a, b in zip(xcg, pcg, strict=True)]
        r = [a - alpha * b for a, b in zip(r, Ap, strict=True)]
        rs_new = sum((ri * ri).sum() for ri in r)
        rec(f"rs{it}", rs_new)
        # (float32: a residual near 1e-20 crosses the stop on the CPU's last bits)
        if rs_new < (1e-20 if dt == lib.float64 else 1e-8):
            break
        pcg = [a + (rs_new / rs) * b for a, b in zip(r, pcg, strict=True)]
        rs = rs_new
    infl = []
    for i in range(5):
        gi = lib.autograd.grad(F.cross_entropy(model(X[i : i + 1]), y[i : i + 1]), params)
        infl.append(-sum((a * b).sum() for a, b in zip(gi, xcg, strict=True)))
    rec("infl", lib.stack(infl))


def p_l2o(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(12)

    class L2O(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.LSTMCell(2, 8)
            self.out = nn.Linear(8, 1)

        def forward(self, g, state):
            inp = lib.stack([g, g.abs().add(1e-8).log() / 10], -1)
            h, c = self.cell(inp, state)
            return self.out(h).squeeze(-1) * 0.1, (h, c)

    opt_net = L2O().to(dt)
    meta_opt = lib.optim.Adam(opt_net.parameters(), lr=3e-3)
    for ep in range(3):
        A = lib.randn(6, 4, dtype=dt)
        b = lib.randn(6, dtype=dt)
        theta = lib.zeros(4, dtype=dt, requires_grad=True)
        state = (lib.zeros(4, 8, dtype=dt), lib.zeros(4, 8, dtype=dt))
        total = 0
        for _t in range(10):
            loss = ((A @ theta - b) ** 2).mean()
            (g,) = lib.autograd.grad(loss, theta, retain_graph=True)
            upd, state = opt_net(g.detach(), state)
            theta = theta + upd
            total = total + loss
        meta_opt.zero_grad()
        total.backward()
        nn.utils.clip_grad_norm_(opt_net.parameters(), 1.0)
        meta_opt.step()
        rec(f"total{ep}", total)
        rec(f"theta{ep}", theta)
    for n, p in opt_net.named_parameters():
        rec(n, p)


def p_darts(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(13)

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.ops = nn.ModuleList(
                [nn.Linear(6, 6), nn.Sequential(nn.Linear(6, 6), nn.ReLU()), nn.Identity()]
            )

        def forward(self, x, a):
            w = F.softmax(a, -1)
            return sum(wi * op(x) for wi, op in zip(w, self.ops, strict=True))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.m1, self.m2 = Mixed(), Mixed()
            self.head = nn.Linear(6, 3)
            self.alpha = nn.Parameter(1e-3 * lib.randn(2, 3))

        def weights(self):
            return [p for n, p in self.named_parameters() if n != "alpha"]

        def forward(self, x):
            return self.head(self.m2(F.relu(self.m1(x, self.alpha[0])), self.alpha[1]))

    net = Net().to(dt)
    wopt = lib.optim.SGD(net.weights(), lr=0.05, momentum=0.9, weight_decay=3e-4)
    aopt = lib.optim.Adam([net.alpha], lr=3e-3, betas=(0.5, 0.999), weight_decay=1e-3)
    xi = 0.05
    for it in range(3):
        xt, yt = lib.randn(8, 6, dtype=dt), lib.randint(0, 3, (8,))
        xv, yv = lib.randn(8, 6, dtype=dt), lib.randint(0, 3, (8,))
        W = net.weights()
        # unrolled weights w' = w - xi * dL_train/dw
        gt = lib.autograd.grad(F.cross_entropy(net(xt), yt), W)
        backup = [w.detach().clone() for w in W]
        with lib.no_grad():
            for w, g in zip(W, gt, strict=True):
                w.sub_(xi * g)
        lv = F.cross_entropy(net(xv), yv)
        grads = lib.autograd.grad(lv, W + [net.alpha])
        dw, da = grads[:-1], grads[-1]
        eps = 0.01 / lib.cat([g.reshape(-1) for g in dw]).norm()
        with lib.no_grad():
            for w, b0, d in zip(W, backup, dw, strict=True):
                w.copy_(b0 + eps * d)
        (ap,) = lib.autograd.grad(F.cross_entropy(net(xt), yt), net.alpha)
        with lib.no_grad():
            for w, b0, d in zip(W, backup, dw, strict=True):
                w.copy_(b0 - eps * d)
        (an,) = lib.autograd.grad(F.cross_entropy(net(xt), yt), net.alpha)
        with lib.no_grad():
            for w, b0 in zip(W, backup, strict=True):
                w.copy_(b0)
        aopt.zero_grad()
        net.alpha.grad = da - xi * (ap - an) / (2 * eps)
        aopt.step()
        wopt.zero_grad()
        lt = F.cross_entropy(net(xt), yt)
        lt.backward()
        wopt.step()
        rec(f"lv{it}", lv)
        rec(f"lt{it}", lt)
        rec(f"alpha{it}", net.alpha)
    rec("genotype", F.softmax(net.alpha, -1).argmax(-1))


def p_meta_sgd(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(14)
    model = nn.Sequential(nn.Linear(2, 8), nn.Softplus(), nn.Linear(8, 1)).to(dt)
    lrs = nn.ParameterList([nn.Parameter(lib.full_like(p, 0.01)) for p in model.parameters()])
    opt = lib.optim.Adam(list(model.parameters()) + list(lrs), lr=1e-3)
    for it in range(3):
        xs, xq = lib.randn(5, 2, dtype=dt), lib.randn(5, 2, dtype=dt)
        w = lib.randn(2, 1, dtype=dt)
        ys, yq = xs @ w, xq @ w
        params = dict(model.named_parameters())
        loss = F.mse_loss(lib.func.functional_call(model, params, xs), ys)
        gs = lib.autograd.grad(loss, params.values(), create_graph=True)
        fast = {n: p - a * g for (n, p), a, g in zip(params.items(), lrs, gs, strict=True)}
        q = F.mse_loss(lib.func.functional_call(model, fast, xq), yq)
        opt.zero_grad()
        q.backward()
        rec(f"q{it}", q)
        for i, a in enumerate(lrs):
            rec(f"ga{it}.{i}", a.grad)
        opt.step()
    for i, a in enumerate(lrs):
        rec(f"a{i}", a)


def p_diff_aug(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(15)
    net = nn.Sequential(
        nn.Conv2d(1, 3, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(3, 2)
    ).to(dt)
    ang = lib.zeros(1, dtype=dt, requires_grad=True)
    bright = lib.zeros(1, dtype=dt, requires_grad=True)
    scale = lib.ones(1, dtype=dt, requires_grad=True)
    aopt = lib.optim.Adam([ang, bright, scale], lr=0.05)
    x = lib.randn(4, 1, 8, 8, dtype=dt)
    y = lib.tensor([0, 1, 0, 1])
    for it in range(3):
        c, s = lib.cos(ang), lib.sin(ang)
        theta = lib.stack(
            [
                lib.cat([scale * c, -s, lib.zeros_like(c)]),
                lib.cat([s, scale * c, lib.zeros_like(c)]),
            ]
        ).unsqueeze(0)
        grid = F.affine_grid(theta.expand(4, 2, 3), (4, 1, 8, 8), align_corners=False)
        xa = F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
        xa = xa + bright.view(1, 1, 1, 1)
        loss = F.cross_entropy(net(xa), y)
        (gx,) = lib.autograd.grad(loss, xa, create_graph=True)
        obj = -loss + 0.1 * gx.pow(2).sum()
        aopt.zero_grad()
        obj.backward()
        rec(f"loss{it}", loss)
        rec(f"gang{it}", ang.grad)
        rec(f"gscale{it}", scale.grad)
        rec(f"gbright{it}", bright.grad)
        aopt.step()


def p_graph_errors(lib, dt, rec):
    ag = lib.autograd
    lib.manual_seed(16)
    w = lib.randn(3, dtype=dt, requires_grad=True)
    x = lib.randn(3, dtype=dt)
    y = (w.exp() * x).sum()
    rec("g1", ag.grad(y, w, retain_graph=True)[0])
    rec("g2", ag.grad(y, w, retain_graph=True)[0])
    rec("g3", ag.grad(y, w)[0])
    rec.err("g4", lambda: ag.grad(y, w))
    # version error
    h = w * 2
    z = (h.sin()).sum()
    h.add_(1)
    rec.err("ver", lambda: ag.grad(z, w))
    # version error in double backward
    a = w * 3
    cube = (a**3).sum()
    (g,) = ag.grad(cube, w, create_graph=True)
    a.mul_(2)
    rec.err("ver2", lambda: ag.grad(g.sum(), w))
    # unused
    u = lib.randn(2, dtype=dt, requires_grad=True)
    y = (w**2).sum()
    rec.err("unused", lambda: ag.grad(y, [w, u], retain_graph=True))
    r = ag.grad(y, [w, u], allow_unused=True, retain_graph=True)
    rec("unused_none", str(r[1]))
    r = ag.grad(y, [w, u], materialize_grads=True, retain_graph=True)
    rec("mat", r[1])
    rec.err(
        "mat_err",
        lambda: ag.grad(y, [w, u], allow_unused=False, materialize_grads=True, retain_graph=True),
    )
    # non-scalar without grad_outputs
    v = w * w
    rec.err("nonscalar", lambda: ag.grad(v, w, retain_graph=True))
    rec.err("shape", lambda: ag.grad(v, w, grad_outputs=lib.ones(2, dtype=dt), retain_graph=True))
    rec.err("noreq", lambda: ag.grad(x.sum(), w))
    rec.err("noreq_in", lambda: ag.grad(v.sum(), x))
    # linear: second grad has no graph
    (gl,) = ag.grad((w * x).sum(), w, create_graph=True)
    rec("gl_req", str(gl.requires_grad))
    rec.err("lin2", lambda: ag.grad(gl.sum(), w))
    # is_grads_batched jacobian
    v = w.exp() * x
    (J,) = ag.grad(v, w, grad_outputs=lib.eye(3, dtype=dt), is_grads_batched=True)
    rec("J", J)
    # non-leaf inputs
    h = w.tanh()
    out = (h**3).sum() + w.sum()
    gh, gw = ag.grad(out, [h, w])
    rec("gh", gh)
    rec("gw", gw)
    # backward with inputs=
    w.grad = None
    q = lib.randn(3, dtype=dt, requires_grad=True)
    (w * q).sum().backward(inputs=[q])
    rec("w.grad", str(w.grad))
    rec("q.grad", q.grad)
    # grad of output w.r.t. itself
    o = w * 2
    rec("self", ag.grad(o, o, grad_outputs=lib.ones_like(o))[0])


def p_hooks_double(lib, dt, rec):
    ag = lib.autograd
    lib.manual_seed(17)
    w = lib.randn(4, dtype=dt, requires_grad=True)
    log = []
    h = w.sin()
    h.register_hook(lambda g: log.append(("h", g.detach().clone())))
    w.register_hook(lambda g: log.append(("w", g.detach().clone())))
    loss = (h**2).sum()
    (g,) = ag.grad(loss, w, create_graph=True)
    rec("nlog1", len(log))
    (g2,) = ag.grad((g**2).sum(), w)
    rec("nlog2", len(log))
    for i, (n, t) in enumerate(log):
        rec(f"log{i}.{n}", t)
    rec("g2", g2)
    # node hooks
    calls = []
    x = lib.randn(3, dtype=dt, requires_grad=True)
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: calls.append(("post", gi[0].clone(), go[0].clone())))
    y.grad_fn.register_prehook(lambda go: calls.append(("pre", go[0].clone())))
    s = (y * y).sum()
    (gx,) = ag.grad(s, x, create_graph=True)
    gx.sum().backward()
    rec("ncalls", len(calls))
    for i, c in enumerate(calls):
        rec(f"c{i}", c[0])
        for j, t in enumerate(c[1:]):
            rec(f"c{i}.{j}", t)
    rec("x.grad", x.grad)
    # hook that modifies grad, in a double-backward
    z = lib.randn(3, dtype=dt, requires_grad=True)
    m = z * z
    m.register_hook(lambda g: g * 2)
    (gz,) = ag.grad(m.sum(), z, create_graph=True)
    rec("gz", gz)
    (gzz,) = ag.grad(gz.sum(), z)
    rec("gzz", gzz)
    # retain_grad through create_graph backward
    p = lib.randn(3, dtype=dt, requires_grad=True)
    q = p.cos()
    q.retain_grad()
    (q**2).sum().backward(create_graph=True)
    rec("q.grad", q.grad)
    rec("q.grad.req", str(q.grad.requires_grad))
    rec("p.grad.req", str(p.grad.requires_grad))
    gsum = p.grad.sum()
    p.grad = None
    gsum.backward()
    rec("p.grad2", p.grad)


def p_custom_fn(lib, dt, rec):
    ag = lib.autograd
    from_od = ag.function.once_differentiable

    class Cube(ag.Function):
        @staticmethod
        def forward(ctx, x):
            out = x**3
            ctx.save_for_backward(x, out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, out = ctx.saved_tensors
            return g * 3 * out / x

    class OD(ag.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        @from_od
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp()

    lib.manual_seed(18)
    x = (lib.rand(4, dtype=dt) + 0.5).requires_grad_()
    y = Cube.apply(x)
    (g,) = ag.grad(y.sum(), x, create_graph=True)
    rec("g", g)
    (gg,) = ag.grad(g.sum(), x)
    rec("gg", gg)
    rec("gn", type(y.grad_fn).__name__)
    y = OD.apply(x)
    (g,) = ag.grad(y.sum(), x, create_graph=True)
    rec("od_g", g)
    rec("od_req", str(g.requires_grad))
    rec.err("od2", lambda: ag.grad(g.sum(), x))
    if dt == lib.float64:
        rec("gc", str(ag.gradgradcheck(Cube.apply, (x.detach().requires_grad_(),))))

    class Pair(ag.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(a, b)
            idx = a.argmax()
            ctx.mark_non_differentiable(idx)
            return a * b, a + b, idx

        @staticmethod
        def backward(ctx, g1, g2, gi):
            a, b = ctx.saved_tensors
            ga = gb = None
            if g1 is not None:
                ga, gb = g1 * b, g1 * a
            if g2 is not None:
                ga = g2 if ga is None else ga + g2
                gb = g2 if gb is None else gb + g2
            return ga, gb

    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = lib.randn(3, dtype=dt, requires_grad=True)
    p1, p2, idx = Pair.apply(a, b)
    rec("idx_req", str(idx.requires_grad))
    ga, gb = ag.grad(p1.sum(), (a, b), create_graph=True)
    rec("ga", ga)
    (gab,) = ag.grad(ga.sum(), b)
    rec("gab", gab)
    ga, gb = ag.grad(p2.sum(), (a, b))
    rec("ga2", ga)


def p_func_api(lib, dt, rec):
    fn = lib.func
    lib.manual_seed(19)
    x = lib.randn(3, dtype=dt)

    def f(x):
        return (x.sin() * x).sum(), x.cos()

    g, aux = fn.grad(f, has_aux=True)(x)
    rec("g", g)
    rec("aux", aux)
    rec.err("nonscalar", lambda: fn.grad(lambda x: x * 2)(x))
    rec.err("aux_err", lambda: fn.grad(lambda x: (x.sum(), x, x), has_aux=True)(x))
    rec.err("int", lambda: fn.grad(lambda x: x.sum())(lib.arange(3)))
    out, vjp_fn = fn.vjp(lambda x: x.exp() * x, x)
    rec("vjp", vjp_fn(lib.ones(3, dtype=dt))[0])
    o, jvp_out = fn.jvp(lambda x: x.exp() * x, (x,), (lib.ones(3, dtype=dt),))
    rec("jvp", jvp_out)
    ylin, jfn = fn.linearize(lambda x: x.sin() ** 2, x)
    rec("lin", jfn(lib.ones(3, dtype=dt)))
    # grad of grad
    d2 = fn.grad(fn.grad(lambda x: x.sin().sum() if x.dim() == 0 else x.sin().sum()))
    rec("d2", fn.vmap(d2)(x))
    # forward AD
    import importlib

    fwAD = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
    with fwAD.dual_level():
        dx = fwAD.make_dual(x, lib.ones_like(x))
        yy = (dx.tanh() * dx).sum()
        rec("fw", fwAD.unpack_dual(yy).tangent)
    # jacobian / hessian strategies
    AF = lib.autograd.functional
    h = lambda x: x.exp().cumsum(0) * x  # noqa: E731
    rec("jac_vec", AF.jacobian(h, x, vectorize=True))
    rec("jac_fwd", AF.jacobian(h, x, vectorize=True, strategy="forward-mode"))
    rec(
        "hess_fwd",
        AF.hessian(lambda x: h(x).sum(), x, outer_jacobian_strategy="forward-mode", vectorize=True),
    )
    rec.err("strict", lambda: AF.jacobian(lambda x: lib.ones(2, dtype=dt), x, strict=True))
    rec("nonstrict", AF.jacobian(lambda x: lib.ones(2, dtype=dt), x))
    rec.err("fwd_novec", lambda: AF.jacobian(h, x, strategy="forward-mode"))


def p_maml_conv(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)

    def init():
        ps = []
        for cin, cout in [(1, 4), (4, 4)]:
            w = lib.empty(cout, cin, 3, 3, dtype=dt)
            nn.init.kaiming_normal_(w, nonlinearity="relu")
            ps += [
                w,
                lib.zeros(cout, dtype=dt),
                lib.ones(cout, dtype=dt),
                lib.zeros(cout, dtype=dt),
            ]
        w = lib.empty(3, 4 * 2 * 2, dtype=dt)
        nn.init.xavier_uniform_(w)
        ps += [w, lib.zeros(3, dtype=dt)]
        return [p.requires_grad_() for p in ps]

    def fwd(x, ps):
        for i in range(2):
            w, b, g, be = ps[4 * i : 4 * i + 4]
            x = F.conv2d(x, w, b, padding=1)
            x = F.batch_norm(x, None, None, weight=g, bias=be, training=True)
            x = F.max_pool2d(F.relu(x), 2)
        return F.linear(x.flatten(1), ps[8], ps[9])

    ps = init()
    opt = lib.optim.Adam(ps, lr=1e-3)
    for it in range(2):
        opt.zero_grad()
        tot = 0
        for t in range(2):
            xs = lib.randn(6, 1, 8, 8, dtype=dt)
            ys = lib.arange(3).repeat(2)
            xq = lib.randn(6, 1, 8, 8, dtype=dt)
            fast = ps
            for _ in range(2):
                ls = F.cross_entropy(fwd(xs, fast), ys, label_smoothing=0.1)
                gs = lib.autograd.grad(ls, fast, create_graph=True)
                fast = [p - 0.4 * g for p, g in zip(fast, gs, strict=True)]
            lq = F.cross_entropy(fwd(xq, fast), ys)
            acc = (fwd(xq, fast).argmax(1) == ys).float().mean()
            rec(f"lq{it}.{t}", lq)
            rec(f"acc{it}.{t}", acc)
            tot = tot + lq
        tot.backward()
        for i, p in enumerate(ps):
            rec(f"g{it}.{i}", p.grad)
        opt.step()


def p_trpo(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    from_vec = nn.utils.vector_to_parameters
    to_vec = nn.utils.parameters_to_vector
    lib.manual_seed(21)
    pi = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).to(dt)
    obs = lib.randn(32, 4, dtype=dt)
    with lib.no_grad():
        old_logp_all = F.log_softmax(pi(obs), -1)
    act = lib.distributions.Categorical(logits=old_logp_all).sample()
    adv = lib.randn(32, dtype=dt)
    old_logp = old_logp_all.gather(1, act[:, None]).squeeze(1)

    def surr():
        logp = F.log_softmax(pi(obs), -1).gather(1, act[:, None]).squeeze(1)
        return (lib.exp(logp - old_logp) * adv).mean()

    def kl():
        logp = F.log_softmax(pi(obs), -1)
        return F.kl_div(logp, old_logp_all, log_target=True, reduction="batchmean")

    params = list(pi.parameters())
    g = to_vec(lib.autograd.grad(surr(), params))
    rec("g", g)

    def fvp(v):
        gk = lib.autograd.grad(kl(), params, create_graph=True)
        flat = lib.cat([t.reshape(-1) for t in gk])
        hv = lib.autograd.grad(flat @ v, params)
        return to_vec(hv) + 0.1 * v

    x = lib.zeros_like(g)
    r, p = g.clone(), g.clone()
    rr = r @ r
    for _i in range(10):
        Ap = fvp(p)
        a = rr / (p @ Ap)
        x += a * p
        r -= a * Ap
        nr = r @ r
        p = r + nr / rr * p
        rr = nr
    rec("x", x)
    step = lib.sqrt(2 * 0.01 / (x @ fvp(x))) * x
    old = to_vec(params).detach().clone()
    base = surr().item()
    for k in range(5):
        from_vec(old + 0.5**k * step, params)
        with lib.no_grad():
            imp, d = surr().item() - base, kl().item()
        rec(f"ls{k}", [imp, d])
        if d < 0.015 and imp > 0:
            break
    rec("params", to_vec(params))


def p_r2d2(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(22)
    emb = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 6)).to(dt)
    log_lam = nn.Parameter(lib.zeros(1, dtype=dt))
    scale = nn.Parameter(lib.ones(1, dtype=dt))
    opt = lib.optim.SGD(
        list(emb.parameters()) + [log_lam, scale], lr=0.1, nesterov=True, momentum=0.9
    )
    for it in range(3):
        xs, xq = lib.randn(9, 5, dtype=dt), lib.randn(9, 5, dtype=dt)
        ys = lib.arange(3).repeat_interleave(3)
        Y = F.one_hot(ys, 3).to(dt)
        Z = emb(xs)
        # W = Z^T (Z Z^T + lam I)^-1 Y  (Woodbury form)
        K = Z @ Z.T + log_lam.exp() * lib.eye(9, dtype=dt)
        W = Z.T @ lib.linalg.solve(K, Y)
        W2 = Z.T @ lib.cholesky_solve(Y, lib.linalg.cholesky(K))
        W3 = Z.T @ lib.linalg.inv(K) @ Y
        logits = scale * emb(xq) @ W
        loss = F.cross_entropy(logits, ys)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"W2{it}", W2)
        rec(f"W3{it}", W3)
        rec(f"glam{it}", log_lam.grad)
        rec(f"gscale{it}", scale.grad)
        opt.step()
    # second order through solve
    A = lib.randn(4, 4, dtype=dt) + 4 * lib.eye(4, dtype=dt)
    A.requires_grad_()
    b = lib.randn(4, 2, dtype=dt)
    s = lib.linalg.solve(A, b).pow(2).sum()
    (gA,) = lib.autograd.grad(s, A, create_graph=True)
    (ggA,) = lib.autograd.grad(gA.pow(2).sum(), A)
    rec("ggA", ggA)


def p_ensemble(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    fn = lib.func
    lib.manual_seed(23)
    models = [nn.Sequential(nn.Linear(3, 8), nn.GELU(), nn.Linear(8, 2)).to(dt) for _ in range(4)]
    params, buffers = fn.stack_module_state(models)
    rec("keys", ",".join(params))
    base = copy.deepcopy(models[0])
    x = lib.randn(5, 3, dtype=dt)

    def f(p, b, x):
        return fn.functional_call(base, (p, b), (x,))

    out = fn.vmap(f, in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    rec("ref", lib.stack([m(x) for m in models]))
    y = lib.randint(0, 2, (5,))

    def loss(p, b, x, y):
        return F.cross_entropy(f(p, b, x), y)

    grads = fn.vmap(fn.grad(loss), in_dims=(0, 0, None, None))(params, buffers, x, y)
    for k in grads:
        rec("g." + k, grads[k])
    # randomness
    drop = nn.Dropout(0.5)
    rec.err("rand_err", lambda: fn.vmap(lambda t: drop(t))(lib.ones(3, 4, dtype=dt)))
    lib.manual_seed(0)
    rec("rand_same", fn.vmap(lambda t: drop(t), randomness="same")(lib.ones(3, 4, dtype=dt)))
    rec(
        "rand_same_pat",
        fn.vmap(lambda t: lib.rand(2, dtype=dt), randomness="same")(lib.ones(3, 4, dtype=dt)),
    )
    # grad under no_grad
    with lib.no_grad():
        gg = fn.grad(lambda t: (t**3).sum())(x)
    rec("g_nograd", gg)

    def inner(t):
        with lib.no_grad():
            c = t * 2
        return (c * t).sum()

    rec("g_inner_nograd", fn.grad(inner)(x))
    rec("jac_aux", fn.jacrev(lambda t: (t.sin(), t.cos().sum()), has_aux=True)(x[0])[0])
    rec("jac_chunk", fn.jacrev(lambda t: t.exp() * t.sum(), chunk_size=2)(x[0]))


def p_penalties(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(24)
    att = nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
    x = lib.randn(2, 5, 8, dtype=dt, requires_grad=True)
    out, w = att(x, x, x)
    (gx,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
    pen = gx.pow(2).sum()
    pen.backward()
    rec("pen", pen)
    for n, p in att.named_parameters():
        rec("g." + n, p.grad)
    q = lib.randn(2, 2, 4, 3, dtype=dt, requires_grad=True)
    k = lib.randn(2, 2, 6, 3, dtype=dt, requires_grad=True)
    v = lib.randn(2, 2, 6, 3, dtype=dt, requires_grad=True)
    o = F.scaled_dot_product_attention(q, k, v)
    gg = lib.autograd.grad(o.pow(2).sum(), (q, k, v))
    for i, t in enumerate(gg):
        rec(f"sdpa{i}", t)
    # MMD with cdist
    a = lib.randn(6, 3, dtype=dt, requires_grad=True)
    b = lib.randn(5, 3, dtype=dt)
    d = (a[:, None] - b[None]).pow(2).sum(-1).add(1e-12).sqrt()
    rec("cdist", lib.cdist(a, b))
    mmd = lib.exp(-(d**2)).mean()
    (ga,) = lib.autograd.grad(mmd, a, create_graph=True)
    (gga,) = lib.autograd.grad(ga.norm(), a)
    rec("cdist_gg", gga)
    # norm at zero gradient penalty
    z = lib.zeros(3, 4, dtype=dt, requires_grad=True)
    lin = nn.Linear(4, 1).to(dt)
    y = (z.sum(1, keepdim=True) * 0).sum() + lin(z).relu().sum() * 0
    (gz,) = lib.autograd.grad(y, z, create_graph=True)
    gp = ((gz.norm(2, dim=1) - 1) ** 2).mean()
    gp.backward()
    rec("gp0", gp)
    rec("lin.g", str(lin.weight.grad))
    # kinks: relu / leaky / hardtanh / abs second derivative
    t = lib.tensor([-1.5, -0.5, 0.0, 0.5, 1.5], dtype=dt, requires_grad=True)
    for name in [
        "relu",
        "leaky_relu",
        "hardtanh",
        "elu",
        "selu",
        "celu",
        "mish",
        "hardswish",
        "logsigmoid",
        "softsign",
        "tanhshrink",
        "silu",
        "relu6",
    ]:
        fnc = getattr(F, name)
        (g1,) = lib.autograd.grad(fnc(t).sum(), t, create_graph=True)
        if g1.requires_grad:
            (g2,) = lib.autograd.grad(g1.sum(), t, allow_unused=True, materialize_grads=True)
        else:
            g2 = "nograd"
        rec(f"{name}.1", g1)
        rec(f"{name}.req", str(g1.requires_grad))
        rec(f"{name}.2", g2 if isinstance(g2, str) else g2)
    (g1,) = lib.autograd.grad(t.abs().sum(), t, create_graph=True)
    rec("abs.req", str(g1.requires_grad))
    (g1,) = lib.autograd.grad(lib.where(t > 0, t.sqrt(), t).sum(), t, create_graph=True)
    rec("where_g", g1)


def p_graph_edges(lib, dt, rec):
    ag = lib.autograd
    lib.manual_seed(25)
    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = lib.randn(3, dtype=dt, requires_grad=True)
    # a grad w.r.t. one input runs (and frees) only the nodes that reach it
    ll = (a.exp() + b.sin()).sum()
    rec("pf.a", ag.grad(ll, a)[0])
    rec("pf.b", ag.grad(ll, b)[0])
    ll = (a.exp() * b.sin()).sum()
    rec("pf2.a", ag.grad(ll, a)[0])
    rec.err("pf2.b", lambda: ag.grad(ll, b))
    # create_graph with retain_graph=False; second-order calls freeing the first-order graph
    ll = (a**3).sum()
    (g,) = ag.grad(ll, a, create_graph=True, retain_graph=False)
    rec.err("noretain", lambda: ag.grad(ll, a))
    rec("noretain.gg", ag.grad(g.sum(), a)[0])
    ll = (a**3).sum()
    (g,) = ag.grad(ll, a, create_graph=True)
    ag.grad(g.sum(), a)
    rec.err("gg_twice", lambda: ag.grad(g.sum(), a))
    rec("first_again", ag.grad(ll, a)[0])
    rec("out_is_leaf", ag.grad([a, a.sum()], a, grad_outputs=[lib.ones_like(a), None])[0])
    rec.err("view_input", lambda: ag.grad((a * 2).sum(), a[0]))

    def inplace(kind):
        h = a * 2
        if kind == "wrt":
            y = (h**2).sum()
            h.mul_(3)
            return ag.grad(y, h)
        if kind == "nosave":
            y = (h * 1).sum()
            h.mul_(3)
            return ag.grad(y, a)
        if kind == "exp_input":
            y = h.exp().sum()
            h.add_(1)
            return ag.grad(y, a)
        if kind == "exp_output":
            e = h.exp()
            y = e.sum()
            e.add_(1)
            return ag.grad(y, a)
        if kind == "base_of_view":
            y = (h[:2] ** 2).sum()
            h.mul_(2)
            return ag.grad(y, a)
        if kind == "setitem":
            c = a.clone()
            y = (c**2).sum()
            c[0] = 0
            return ag.grad(y, a)
        if kind == "view_of_output":
            s = h.sigmoid()
            y = s.sum()
            s.view(3).mul_(2)
            return ag.grad(y, a)
        x = a.detach().clone().requires_grad_()
        y = (x**3).sum()
        if kind == "data":
            x.data.mul_(2)
        elif kind == "detach":
            x.detach().mul_(2)
        else:
            (y,) = ag.grad(y, x, create_graph=True)
            y = y.sum()
            with lib.no_grad():
                x.mul_(2)
        return ag.grad(y, x)

    for kind in [
        "wrt",
        "nosave",
        "exp_input",
        "exp_output",
        "base_of_view",
        "setitem",
        "view_of_output",
        "data",
        "detach",
        "leaf_nograd",
    ]:
        try:
            rec("inplace." + kind, inplace(kind)[0])
        except RuntimeError as e:
            rec("inplace." + kind, f"RuntimeError: {e}")
    # grad_outputs that require grad, and batched grads with create_graph
    x = a.detach().requires_grad_()
    v = lib.tensor(2.0, dtype=dt, requires_grad=True)
    (g,) = ag.grad(x.sum(), x, grad_outputs=v, create_graph=True)
    rec("gv", ag.grad(g.sum(), v)[0])
    eye = lib.eye(3, dtype=dt).requires_grad_()
    (J,) = ag.grad(x**3, x, grad_outputs=eye, is_grads_batched=True, create_graph=True)
    rec("J", J)
    rec("trJ", ag.grad(J.trace(), x)[0])
    # vmap over autograd.grad of a graph made outside (the jacobian trick)
    y = x.exp() * x.sum()
    rec("vmapJ", lib.func.vmap(lambda u: ag.grad(y, x, u)[0])(lib.eye(3, dtype=dt)))
    rec.err("vmapJ.again", lambda: ag.grad(y.sum(), x))
    # post-accumulate-grad hooks fire for .backward only
    w = lib.ones(3, dtype=dt, requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.detach().clone()))
    ag.grad((w**3).sum(), w, create_graph=True)
    rec("pah.n0", len(seen))
    (w**3).sum().backward(create_graph=True)
    rec("pah.n1", len(seen))
    rec("pah.g", seen[-1])
    rec("pah.req", str(w.grad.requires_grad))
