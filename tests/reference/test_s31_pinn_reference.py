"""Session 31 (helper pinn): physics-informed neural networks and scientific-ML programs written
the way PINN code is written in torch, run under torch and minitorch with the same seeds and
compared record by record: tanh/sin/SIREN MLPs on rand, linspace and meshgrid(indexing='ij')
collocation points; heat, Burgers, Poisson, wave, KdV, Allen-Cahn and Navier-Stokes residuals
from autograd.grad(create_graph=True) up to third derivatives (also positional-argument and
backward(create_graph=True) styles, NumPy grids); first to third derivatives through ~60
activations and ops; boundary/initial losses and hard-constrained outputs; Fourier features;
adaptive loss weights from gradient norms; causal weights by cumsum and exp; residual-based
resampling by multinomial, topk, Categorical, Sobol and Latin hypercube points; Adam, AdamW,
RMSprop, SGD and LBFGS (strong Wolfe, several outer steps) with schedulers and checkpoints;
torch.func (grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian, vmap,
functional_call, stack_module_state ensembles), autograd.functional, forward-mode dual numbers
and batched vjp; Gauss-Newton/Levenberg-Marquardt on Jacobians of residuals; DeepONet by
einsum; inverse problems with learnable coefficients; Hamiltonian networks with RK4 and
leapfrog; ELM by lstsq, finite-difference matrices and Gauss-Legendre quadrature; stencils by
conv1d/conv2d, torch.gradient, diff, roll and trapezoid; Chebyshev/Legendre bases; weight norm
and random weight factorisation; Bayesian PINNs with KL terms; domain decomposition with
masks; time marching with deepcopy; custom autograd Functions; autograd errors, anomaly mode
and hooks; scripts under set_default_dtype. float64 must agree to 1e-10 of each record's
scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- float32 sqrt can be an ulp off torch's and float32 sums differ in the last bits (summation
  order); float32 matmuls of different sizes round apart (compared with allclose).
- Line searches and normal equations amplify those last bits in float32 (torch against itself
  moves the same way under a 1e-7 perturbation): the float32 runs take LBFGS without a line
  search and one Levenberg-Marquardt step, the ELM least squares is solved in float64.
- torch's float64 trigamma (the derivative of digamma, the second of lgamma) is ~5e-10
  relative off the true value; minitorch's is within a few ulps: compared to 2e-9.
- torch's third derivative through layer_norm is wrong (finite differences agree with
  minitorch's): only two derivatives are compared.
- torch cannot differentiate cdist's backward (NotImplementedError); minitorch can: left out.
- torch.func.jacfwd runs in reverse mode here, and vmap runs its function once per sample, so
  .item() inside vmap gives the sample's value where torch raises (both documented)."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "heat_residual", "burgers_adam", "poisson_lbfgs", "wave_third", "allen_cahn",
    "func_derivs", "deeponet", "adaptive_weights", "rar_resample", "causal_training",
    "inverse_problem", "hamiltonian", "activation_derivs", "torch_func_extras", "forward_ad",
    "finite_difference_check", "hard_constraints", "siren", "autograd_errors", "old_style",
    "init_and_schedules", "higher_order_ops", "linalg_physics", "navier_stokes", "gauss_newton",
    "default_float64", "anomaly_and_hooks", "custom_function", "weight_norm_rwf", "spectral_basis",
    "bayesian_pinn", "xpinn_domains", "time_marching", "multi_physics_module", "lbfgs_outer",
    "pinn_mistakes", "func_api_edges", "checkpoint_stencils",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-10 if dt == "float64" else 1e-4
    loose = LOOSE.get(name, {}) if dt == "float64" else {}
    assert_program_matches(globals()["p_" + name], torch, dt, lambda n, v: loose.get(n, tol))


# torch's float64 trigamma (the derivative of digamma) is ~5e-10 relative off the true value;
# minitorch's is within a few ulps
# lbfgs_outer: 4 x 5 LBFGS iterations amplify BLAS dot products' last bits; its first bias lies
# 1.04e-10 of its scale from torch's since add_(alpha=<0-d tensor>) rounds once, as torch's
LOOSE = {
    "higher_order_ops": {"lgamma": 2e-9, "digamma": 2e-9},
    "lbfgs_outer": {"w.0.bias": 5e-10},
}


# --- helpers ---


def _mlp(lib, dt, sizes, act="tanh", seed=0):
    lib.manual_seed(seed)
    nn = lib.nn
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh() if act == "tanh" else _Sin(lib))
    net = nn.Sequential(*layers).to(dt)
    for m in net:
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight)
            nn.init.zeros_(m.bias)
    return net


def _Sin(lib):
    class Sin(lib.nn.Module):
        def forward(self, x):
            return lib.sin(x)

    return Sin()


def _d(lib, u, x):
    return lib.autograd.grad(u, x, grad_outputs=lib.ones_like(u), create_graph=True)[0]


# --- the programs: each takes the library, a dtype and a recorder ---


def p_heat_residual(lib, dt, rec):
    net = _mlp(lib, dt, [2, 16, 16, 1])
    g = lib.Generator().manual_seed(1)
    xt = lib.rand(64, 2, generator=g, dtype=dt).requires_grad_(True)
    u = net(xt)
    du = _d(lib, u, xt)
    u_x, u_t = du[:, 0:1], du[:, 1:2]
    u_xx = _d(lib, u_x, xt)[:, 0:1]
    alpha = 0.1
    res = u_t - alpha * u_xx
    rec("u", u)
    rec("u_x", u_x)
    rec("u_t", u_t)
    rec("u_xx", u_xx)
    rec("res", res)
    # boundary and initial conditions
    x0 = lib.linspace(0, 1, 21, dtype=dt)
    ic = lib.stack([x0, lib.zeros_like(x0)], dim=1)
    u_ic = net(ic).squeeze(-1) - lib.sin(math.pi * x0)
    tb = lib.linspace(0, 1, 11, dtype=dt)
    bc = lib.cat([lib.stack([lib.zeros_like(tb), tb], 1), lib.stack([lib.ones_like(tb), tb], 1)])
    loss = res.pow(2).mean() + u_ic.pow(2).mean() + net(bc).pow(2).mean()
    rec("loss", loss)
    loss.backward()
    rec.params("p", net, grads=True)
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(5):
        opt.zero_grad()
        u = net(xt)
        du = _d(lib, u, xt)
        u_xx = _d(lib, du[:, 0:1], xt)[:, 0:1]
        loss = (du[:, 1:2] - alpha * u_xx).pow(2).mean() + (
            net(ic).squeeze(-1) - lib.sin(math.pi * x0)
        ).pow(2).mean()
        loss.backward()
        opt.step()
        rec("step_loss", loss)
    rec.params("q", net)


def p_burgers_adam(lib, dt, rec):
    net = _mlp(lib, dt, [2, 20, 20, 20, 1])
    nu = 0.01 / math.pi
    lib.manual_seed(3)
    x = (lib.rand(100, 1, dtype=dt) * 2 - 1).requires_grad_()
    t = lib.rand(100, 1, dtype=dt).requires_grad_()
    xi = lib.linspace(-1, 1, 50, dtype=dt).unsqueeze(1)
    ti = lib.zeros_like(xi)
    ui = -lib.sin(math.pi * xi)
    tb = lib.rand(25, 1, dtype=dt)
    xb = lib.cat([-lib.ones_like(tb), lib.ones_like(tb)])
    tb = tb.repeat(2, 1)
    opt = lib.optim.Adam(net.parameters(), lr=5e-3, betas=(0.9, 0.99))
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    mse = lib.nn.MSELoss()
    for it in range(8):
        opt.zero_grad(set_to_none=True)
        u = net(lib.cat([x, t], dim=1))
        u_x, u_t = lib.autograd.grad(u.sum(), (x, t), create_graph=True)
        (u_xx,) = lib.autograd.grad(u_x.sum(), x, create_graph=True)
        f = u_t + u * u_x - nu * u_xx
        l_f = mse(f, lib.zeros_like(f))
        l_i = mse(net(lib.cat([xi, ti], 1)), ui)
        l_b = mse(net(lib.hstack([xb, tb])), lib.zeros(50, 1, dtype=dt))
        loss = l_f + 10 * l_i + l_b
        loss.backward()
        gn = lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        sched.step()
        rec(f"l{it}", lib.stack([l_f, l_i, l_b]).detach())
        rec(f"gn{it}", gn)
    rec("lr", sched.get_last_lr()[0])
    rec.params("w", net)


def p_poisson_lbfgs(lib, dt, rec):
    # -Δu = 2π² sin(πx) sin(πy) on [0,1]², u = 0 on the boundary; hard-constrained output
    net = _mlp(lib, dt, [2, 12, 12, 1], seed=5)
    n = 9
    xs = lib.linspace(0, 1, n, dtype=dt)[1:-1]
    X, Y = lib.meshgrid(xs, xs, indexing="ij")
    pts = lib.stack([X.reshape(-1), Y.reshape(-1)], -1).requires_grad_(True)
    f = 2 * math.pi**2 * lib.sin(math.pi * pts[:, 0]) * lib.sin(math.pi * pts[:, 1])
    f = f.detach()

    def u_fn(p):
        x, y = p[:, 0:1], p[:, 1:2]
        return (x * (1 - x) * y * (1 - y) * net(p)).squeeze(1)

    def residual():
        u = u_fn(pts)
        g = lib.autograd.grad(u, pts, lib.ones_like(u), create_graph=True)[0]
        lap = 0
        for i in range(2):
            lap = lap + lib.autograd.grad(g[:, i].sum(), pts, create_graph=True)[0][:, i]
        return -lap - f

    adam = lib.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(5):
        adam.zero_grad()
        loss = residual().pow(2).mean()
        loss.backward()
        adam.step()
    rec("adam_loss", loss)
    # float32 line searches amplify last-bit differences of the loss (torch against itself, too):
    # the cubic step through two losses an ulp apart moves by 1e-4
    ls, lr = ("strong_wolfe", 1) if dt == lib.float64 else (None, 0.05)
    lbfgs = lib.optim.LBFGS(
        net.parameters(), lr=lr, max_iter=15, history_size=10, line_search_fn=ls
    )
    calls = []

    def closure():
        lbfgs.zero_grad()
        loss = residual().pow(2).mean()
        loss.backward()
        calls.append(loss.detach())
        return loss

    out = lbfgs.step(closure)
    rec("lbfgs_out", out)
    rec("ncalls", len(calls))
    rec("calls", lib.stack(calls))
    st = lbfgs.state[lbfgs._params[0]]
    rec("n_iter", st["n_iter"])
    rec("func_evals", st["func_evals"])
    exact = lib.sin(math.pi * pts[:, 0]) * lib.sin(math.pi * pts[:, 1])
    with lib.no_grad():
        err = lib.linalg.norm(u_fn(pts) - exact) / lib.linalg.norm(exact)
    rec("rel_l2", err)
    rec.params("w", net)


def p_wave_third(lib, dt, rec):
    # KdV-like third derivatives and a wave residual u_tt - c² u_xx
    net = _mlp(lib, dt, [2, 10, 10, 1], act="sin", seed=7)
    x = lib.linspace(-1, 1, 17, dtype=dt).requires_grad_()
    t = lib.linspace(0, 0.5, 17, dtype=dt).requires_grad_()
    u = net(lib.stack([x, t], -1)).squeeze(-1)
    u_x = _d(lib, u, x)
    u_xx = _d(lib, u_x, x)
    u_xxx = _d(lib, u_xx, x)
    u_t = _d(lib, u, t)
    u_tt = _d(lib, u_t, t)
    rec("u_x", u_x)
    rec("u_xx", u_xx)
    rec("u_xxx", u_xxx)
    rec("u_tt", u_tt)
    kdv = u_t + 6 * u * u_x + u_xxx
    wave = u_tt - 4.0 * u_xx
    loss = kdv.square().mean() + wave.square().mean()
    rec("loss", loss)
    grads = lib.autograd.grad(loss, list(net.parameters()))
    for i, gr in enumerate(grads):
        rec(f"g{i}", gr)
    # the sin network's exact derivative of the first layer
    w0 = net[0].weight
    rec("w0", w0)


def p_allen_cahn(lib, dt, rec):
    # u_t - 1e-4 u_xx + 5u³ - 5u = 0, periodic in x through a Fourier feature input
    lib.manual_seed(11)
    B = lib.randn(2, 8, dtype=dt) * 2.0

    class FF(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("B", B)
            self.body = _mlp(lib, dt, [17, 16, 1], seed=12)

        def forward(self, x, t):
            z = lib.stack([lib.cos(math.pi * x), lib.sin(math.pi * x)], -1) @ self.B
            feats = lib.cat([lib.cos(z), lib.sin(z), t.unsqueeze(-1)], -1)
            return self.body(feats).squeeze(-1)

    m = FF()
    g = lib.Generator().manual_seed(13)
    x = (2 * lib.rand(40, generator=g, dtype=dt) - 1).requires_grad_()
    t = lib.rand(40, generator=g, dtype=dt).requires_grad_()
    u = m(x, t)
    u_t = _d(lib, u, t)
    u_x = _d(lib, u, x)
    u_xx = _d(lib, u_x, x)
    r = u_t - 1e-4 * u_xx + 5 * u**3 - 5 * u
    rec("r", r)
    # periodicity: u(-1, t) == u(1, t)
    tt = lib.linspace(0, 1, 5, dtype=dt)
    rec("periodic", m(-lib.ones_like(tt), tt) - m(lib.ones_like(tt), tt))
    # causal weights over time slabs
    nt = 4
    idx = lib.clamp((t.detach() * nt).long(), max=nt - 1)
    lt = lib.zeros(nt, dtype=dt).index_add(0, idx, r.pow(2))
    cnt = lib.bincount(idx, minlength=nt).to(dt)
    lt = lt / cnt.clamp(min=1)
    eps = 1.0
    w = lib.exp(-eps * lib.cumsum(lt, 0) + eps * lt).detach()
    rec("lt", lt)
    rec("w", w)
    loss = (w * lt).mean()
    loss.backward()
    rec.params("p", m, grads=True)
    rec("B", m.B)
    rec("keys", str(list(m.state_dict().keys())))


def p_func_derivs(lib, dt, rec):
    # per-point derivatives with torch.func: a functional MLP through functional_call
    net = _mlp(lib, dt, [2, 8, 8, 1], seed=21)
    params = {k: v.detach() for k, v in net.named_parameters()}
    F = lib.func

    def u(p, x):
        return F.functional_call(net, p, (x.unsqueeze(0),)).squeeze()

    g = lib.Generator().manual_seed(22)
    xs = lib.rand(6, 2, generator=g, dtype=dt)
    rec("u", F.vmap(u, in_dims=(None, 0))(params, xs))
    jr = F.vmap(F.jacrev(u, argnums=1), in_dims=(None, 0))(params, xs)
    jf = F.vmap(F.jacfwd(u, argnums=1), in_dims=(None, 0))(params, xs)
    rec("jacrev", jr)
    rec("jacfwd", jf)
    H = F.vmap(F.hessian(u, argnums=1), in_dims=(None, 0))(params, xs)
    rec("hess", H)
    rec("lap", H.diagonal(dim1=-2, dim2=-1).sum(-1))
    H2 = F.vmap(F.jacfwd(F.jacrev(u, argnums=1), argnums=1), in_dims=(None, 0))(params, xs)
    rec("hess_fwdrev", H2)
    # the same by autograd.grad, point by point
    x = xs.clone().requires_grad_()
    out = net(x).squeeze(-1)
    gx = _d(lib, out, x)
    rec("gx", gx)
    lap = sum(_d(lib, gx[:, i], x)[:, i] for i in range(2))
    rec("lap_ag", lap)

    # a loss on the vmapped Laplacian, differentiated w.r.t. the parameters
    def loss_fn(p):
        lap = F.vmap(lambda x: F.hessian(u, argnums=1)(p, x).trace())(xs)
        return (lap + 1.0).pow(2).mean(), lap

    (gp, lap_aux) = F.grad(loss_fn, has_aux=True)(params)
    rec("lap_aux", lap_aux)
    for k in sorted(gp):
        rec("gp." + k, gp[k])
    val, gp2 = F.grad_and_value(lambda p: loss_fn(p)[0])(params)
    rec("gv", gp2)
    rec("gp2", gp2 if isinstance(gp2, lib.Tensor) else val["0.weight"])


def p_deeponet(lib, dt, rec):
    # DeepONet: the branch net reads a sampled input function, the trunk net a query point
    m, p, q = 20, 12, 15
    lib.manual_seed(31)

    class DeepONet(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.branch = lib.nn.Sequential(
                lib.nn.Linear(m, 32), lib.nn.Tanh(), lib.nn.Linear(32, p)
            )
            self.trunk = lib.nn.Sequential(
                lib.nn.Linear(1, 32), lib.nn.Tanh(), lib.nn.Linear(32, p), lib.nn.Tanh()
            )
            self.b0 = lib.nn.Parameter(lib.zeros(1))

        def forward(self, f, y):
            b = self.branch(f)
            t = self.trunk(y)
            return lib.einsum("bp,nqp->bq", b, t.unsqueeze(0)) + self.b0

    net = DeepONet().to(dt)
    rec("repr", repr(net))
    rec("nparams", sum(pp.numel() for pp in net.parameters()))
    # input functions: random sums of sines; the target is their antiderivative
    s = lib.linspace(0, 1, m, dtype=dt)
    y = lib.linspace(0, 1, q, dtype=dt).unsqueeze(-1)
    coef = lib.randn(16, 3, dtype=dt)
    k = lib.arange(1, 4, dtype=dt)
    f = (coef[:, None, :] * lib.sin(math.pi * k * s[:, None])).sum(-1)
    G = (coef[:, None, :] * (1 - lib.cos(math.pi * k * y)) / (math.pi * k)).sum(-1)
    rec("f", f)
    rec("G", G)
    opt = lib.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    for i in range(6):
        perm = lib.randperm(16)
        for j in range(2):
            idx = perm[j * 8 : (j + 1) * 8]
            pred = net(f[idx], y)
            loss = lib.nn.functional.mse_loss(pred, G[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        rec(f"loss{i}", loss)
    pred = net(f, y)
    rec("rel", (lib.linalg.vector_norm(pred - G, dim=1) / lib.linalg.vector_norm(G, dim=1)))
    # the same contraction spelled three ways
    b = net.branch(f)
    t = net.trunk(y)
    rec("mm", b @ t.T)
    rec("ein", lib.einsum("bp,qp->bq", b, t))
    rec("bmm", lib.bmm(b.unsqueeze(0), t.T.unsqueeze(0)).squeeze(0))
    # derivative of the operator output w.r.t. the query point: should approximate f
    yq = y.clone().requires_grad_()
    out = net(f[:2], yq)
    dG = lib.stack(
        [lib.autograd.grad(out[i].sum(), yq, retain_graph=True)[0].squeeze(-1) for i in range(2)]
    )
    rec("dG", dG)


def p_adaptive_weights(lib, dt, rec):
    # learning-rate annealing (Wang et al.): weights from the ratio of gradient norms
    net = _mlp(lib, dt, [1, 16, 16, 1], seed=41)
    x = lib.linspace(0, 1, 32, dtype=dt).unsqueeze(1).requires_grad_()
    xb = lib.tensor([[0.0], [1.0]], dtype=dt)
    ub = lib.tensor([[0.0], [0.0]], dtype=dt)
    k = 4 * math.pi
    src = -(k**2) * lib.sin(k * x.detach())
    params = [pp for pp in net.parameters() if pp.requires_grad]
    lam = lib.tensor(1.0, dtype=dt)
    opt = lib.optim.SGD(params, lr=1e-4, momentum=0.9, nesterov=True)
    for it in range(5):
        u = net(x)
        u_xx = _d(lib, _d(lib, u, x), x)
        l_r = lib.mean((u_xx - src) ** 2)
        l_b = lib.mean((net(xb) - ub) ** 2)
        if it == 0:  # the last bias does not reach u_xx
            rec.err("unused", lambda l_r=l_r: lib.autograd.grad(l_r, params, retain_graph=True))
        g_r = lib.autograd.grad(l_r, params, retain_graph=True, materialize_grads=True)
        rec(f"g_r_last{it}", g_r[-1])
        g_b = lib.autograd.grad(l_b, params, retain_graph=True, allow_unused=True)
        max_r = lib.max(lib.stack([gg.abs().max() for gg in g_r]))
        mean_b = lib.cat([gg.abs().flatten() for gg in g_b]).mean()
        lam = 0.9 * lam + 0.1 * (max_r / mean_b).detach()
        rec(f"lam{it}", lam)
        norms = lib.stack(
            [lib.linalg.vector_norm(lib.cat([gg.flatten() for gg in gs])) for gs in (g_r, g_b)]
        )
        rec(f"norms{it}", norms)
        # NTK-style: trace estimates from the squared norms of per-sample gradients
        loss = l_r + lam * l_b
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    # GradNorm-like softmax weights
    w = lib.softmax(lib.log(norms.detach()) * -1.0, dim=0)
    rec("softw", w)
    rec.params("w", net)


def p_rar_resample(lib, dt, rec):
    # residual-based adaptive refinement: sample new points with probability ∝ |r|^k / mean + c
    net = _mlp(lib, dt, [2, 12, 1], seed=51)
    g = lib.Generator().manual_seed(52)
    pool = lib.rand(200, 2, generator=g, dtype=dt)
    pool.requires_grad_(True)
    u = net(pool)
    grads = _d(lib, u, pool)
    r = (grads[:, 0] + u.squeeze(-1) * grads[:, 1]).detach()
    rec("r", r)
    k, c = 2.0, 1.0
    err = r.abs().pow(k)
    prob = err / err.mean() + c
    prob = prob / prob.sum()
    rec("prob", prob)
    idx = lib.multinomial(prob, 30, replacement=False, generator=g)
    rec("idx", idx)
    idx2 = lib.multinomial(prob, 40, replacement=True, generator=g)
    rec("idx2", idx2)
    new = pool.detach()[idx]
    col = lib.rand(50, 2, generator=g, dtype=dt)
    col = lib.cat([col, new], dim=0)
    rec("col", col)
    # greedy: the top-k residual points
    top = lib.topk(r.abs(), 10)
    rec("top_v", top.values)
    rec("top_i", top.indices)
    rec("sorted", lib.argsort(r.abs(), descending=True, stable=True)[:10])
    # the distribution as torch.distributions.Categorical
    cat = lib.distributions.Categorical(probs=prob)
    s = cat.sample((25,))
    rec("cat_s", s)
    rec("cat_lp", cat.log_prob(s))
    rec("ent", cat.entropy())
    # resampling with torch.quasirandom points
    sob = lib.quasirandom.SobolEngine(2, scramble=True, seed=7)
    pts = sob.draw(16, dtype=dt)
    rec("sobol", pts)
    lhs = (
        lib.stack([lib.randperm(16, generator=g) for _ in range(2)], 1).to(dt)
        + lib.rand(16, 2, generator=g, dtype=dt)
    ) / 16
    rec("lhs", lhs)


def p_causal_training(lib, dt, rec):
    # causal weights w_i = exp(-eps * sum_{k<i} L_k) over an ordered time grid
    net = _mlp(lib, dt, [2, 16, 16, 1], seed=61)
    nt, nx = 8, 10
    t = lib.linspace(0, 1, nt, dtype=dt)
    x = lib.linspace(-1, 1, nx, dtype=dt)
    T, X = lib.meshgrid(t, x, indexing="ij")
    tx = lib.stack([T.flatten(), X.flatten()], 1).requires_grad_()
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    eps = 5.0
    for it in range(4):
        u = net(tx)
        d = _d(lib, u, tx)
        u_t, u_x = d[:, :1], d[:, 1:]
        u_xx = _d(lib, u_x, tx)[:, 1:]
        r = (u_t - 0.01 * u_xx + u * u_x).reshape(nt, nx)
        L = r.pow(2).mean(dim=1)
        with lib.no_grad():
            W = lib.exp(-eps * (lib.cumsum(L, 0) - L))
        loss = (W * L).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"L{it}", L)
        rec(f"W{it}", W)
        rec(f"min_w{it}", W.min())
    # eps annealing with a break on all weights above a threshold
    rec("all_above", bool((W > 0.99).all()))
    W2 = lib.exp(-eps * lib.cat([L.new_zeros(1), lib.cumsum(L, 0)[:-1]]))
    rec("W2", W2)
    rec("close", lib.allclose(W2, W))


def p_inverse_problem(lib, dt, rec):
    # identify the diffusivity of a 1-D heat equation from data: a learnable log-parameter
    class PINN(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = _mlp(lib, dt, [2, 16, 16, 1], seed=71)
            self.log_k = lib.nn.Parameter(lib.tensor(math.log(0.5), dtype=dt))

        def forward(self, xt):
            return self.net(xt)

    m = PINN()
    g = lib.Generator().manual_seed(72)
    xt = lib.rand(60, 2, generator=g, dtype=dt)
    k_true = 0.2
    u_data = lib.exp(-k_true * math.pi**2 * xt[:, 1:]) * lib.sin(math.pi * xt[:, :1])
    u_data = u_data + 0.01 * lib.randn(u_data.shape, generator=g, dtype=dt)
    opt = lib.optim.Adam(
        [
            {"params": m.net.parameters(), "lr": 1e-3},
            {"params": [m.log_k], "lr": 1e-2},
        ]
    )
    for it in range(6):
        xc = xt.clone().requires_grad_()
        u = m(xc)
        du = _d(lib, u, xc)
        u_xx = _d(lib, du[:, :1], xc)[:, :1]
        res = du[:, 1:] - m.log_k.exp() * u_xx
        loss = lib.nn.functional.mse_loss(u, u_data) + res.square().mean()
        opt.zero_grad()
        loss.backward()
        rec(f"gk{it}", m.log_k.grad)
        opt.step()
        rec(f"k{it}", m.log_k.exp())
    rec("groups", [len(gr["params"]) for gr in opt.param_groups])
    sd = opt.state_dict()
    rec("state_keys", str(sorted(sd["state"].keys())))
    rec("step", sd["state"][0]["step"])
    rec("exp_avg_k", sd["state"][len(sd["state"]) - 1]["exp_avg"])
    rec("softplus_k", lib.nn.functional.softplus(m.log_k, beta=2.0))


def p_hamiltonian(lib, dt, rec):
    # Hamiltonian NN: dq/dt = dH/dp, dp/dt = -dH/dq, trained on a pendulum
    net = _mlp(lib, dt, [2, 16, 16, 1], seed=81)
    g = lib.Generator().manual_seed(82)
    q = (lib.rand(40, generator=g, dtype=dt) * 2 - 1) * 2
    p = (lib.rand(40, generator=g, dtype=dt) * 2 - 1) * 2
    dq, dp = p, -lib.sin(q)

    def vector_field(z):
        z = z if z.requires_grad else z.requires_grad_()
        H = net(z)
        dH = lib.autograd.grad(H.sum(), z, create_graph=True)[0]
        return lib.stack([dH[:, 1], -dH[:, 0]], 1)

    z = lib.stack([q, p], 1)
    target = lib.stack([dq, dp], 1)
    opt = lib.optim.RMSprop(net.parameters(), lr=1e-3, alpha=0.9)
    for it in range(5):
        vf = vector_field(z.clone())
        loss = (vf - target).pow(2).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    # integrate with RK4 (needs grad inside even at inference)
    z0 = lib.tensor([[1.0, 0.0]], dtype=dt)
    h = 0.1
    traj = [z0]
    for _ in range(10):
        zc = traj[-1].detach()
        k1 = vector_field(zc.clone())
        k2 = vector_field(zc + h / 2 * k1)
        k3 = vector_field(zc + h / 2 * k2)
        k4 = vector_field(zc + h * k3)
        traj.append((zc + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)).detach())
    traj = lib.cat(traj)
    rec("traj", traj)
    with lib.no_grad():
        rec("H", net(traj).squeeze(-1))
    # symplectic leapfrog on the true system for comparison
    qq, pp = lib.tensor(1.0, dtype=dt), lib.tensor(0.0, dtype=dt)
    out = []
    for _ in range(10):
        pp = pp - h / 2 * lib.sin(qq)
        qq = qq + h * pp
        pp = pp - h / 2 * lib.sin(qq)
        out.append(lib.stack([qq, pp]))
    rec("leapfrog", lib.stack(out))


def p_activation_derivs(lib, dt, rec):
    # first to third derivatives through the activations PINN code uses
    F = lib.nn.functional
    acts = {
        "tanh": lib.tanh,
        "sin": lib.sin,
        "gelu": F.gelu,
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "silu": F.silu,
        "softplus": lambda x: F.softplus(x, beta=2.0),
        "elu": F.elu,
        "mish": F.mish,
        "sigmoid": lib.sigmoid,
        "logsigmoid": F.logsigmoid,
        "tanhshrink": F.tanhshrink,
        "selu": F.selu,
        "celu": lambda x: F.celu(x, alpha=0.5),
        "swish_b": lambda x: x * lib.sigmoid(1.5 * x),
        "softsign": F.softsign,
        "cos": lib.cos,
        "atan": lib.atan,
        "erf": lib.erf,
        "log1p_exp": lambda x: lib.log1p(lib.exp(x)),
        "sinc": lib.sinc,
        "rational": lambda x: x / (1 + x.abs()),
        "asinh": lib.asinh,
        "xsinx": lambda x: x + lib.sin(x).pow(2),
    }
    x = lib.linspace(-2.3, 2.1, 13, dtype=dt).requires_grad_()
    for name, f in acts.items():
        y = f(x)
        d1 = _d(lib, y, x)
        d2 = _d(lib, d1, x)
        d3 = _d(lib, d2, x)
        rec(name, lib.stack([y, d1, d2, d3]))
    mods = [
        lib.nn.Tanh(),
        lib.nn.GELU(),
        lib.nn.SiLU(),
        lib.nn.Softplus(beta=3, threshold=5),
        lib.nn.ELU(alpha=0.7),
        lib.nn.Mish(),
        lib.nn.Sigmoid(),
        lib.nn.Hardswish(),
    ]
    for m in mods:
        y = m(x)
        d1 = _d(lib, y, x)
        d2 = _d(lib, d1, x)
        rec(repr(m), lib.stack([y, d1, d2]))


def p_torch_func_extras(lib, dt, rec):
    F = lib.func
    net = _mlp(lib, dt, [3, 10, 2], seed=91)
    params = dict(net.named_parameters())
    buffers = dict(net.named_buffers())
    x = lib.linspace(-1, 1, 12, dtype=dt).reshape(4, 3)

    def f(p, xx):
        return F.functional_call(net, (p, buffers), (xx,))

    out, vjp_fn = F.vjp(lambda xx: f(params, xx), x)
    rec("out", out)
    (vx,) = vjp_fn(lib.ones_like(out))
    rec("vjp", vx)
    t = lib.ones_like(x) * 0.5
    o2, jvp = F.jvp(lambda xx: f(params, xx), (x,), (t,))
    rec("jvp", jvp)
    o3, jvp_fn = F.linearize(lambda xx: f(params, xx), x)
    rec("lin", jvp_fn(t))
    J = F.jacrev(lambda xx: f(params, xx), chunk_size=3)(x)
    rec("J", J)
    Jp = F.jacrev(f)(params, x)
    for k in sorted(Jp):
        rec("Jp." + k, Jp[k])

    # third derivative of a scalar function by nested jacfwd
    def s(z):
        return lib.sin(2 * z).sum() + (z**4).sum()

    z = lib.tensor([0.3, -0.7], dtype=dt)
    rec("d3", F.jacfwd(F.jacfwd(F.jacrev(s)))(z))
    # ensemble of PINNs: stack_module_state + vmap over models
    models = [_mlp(lib, dt, [2, 6, 1], seed=100 + i) for i in range(3)]
    ps, bs = F.stack_module_state(models)
    rec("stacked", ps["0.weight"])
    base = models[0]

    def fm(p, b, xx):
        return F.functional_call(base, (p, b), (xx,))

    xe = lib.rand(5, 2, dtype=dt, generator=lib.Generator().manual_seed(3))
    rec("ens", F.vmap(fm, in_dims=(0, 0, None))(ps, bs, xe))

    def lap_one(p, b, xx):
        return F.hessian(lambda q: fm(p, b, q).squeeze())(xx).trace()

    rec(
        "ens_lap",
        F.vmap(F.vmap(lap_one, in_dims=(None, None, 0)), in_dims=(0, 0, None))(ps, bs, xe),
    )
    # autograd.functional with vectorize and create_graph
    A = lib.autograd.functional
    rec("af_jac", A.jacobian(lambda xx: f(params, xx).sum(0), x[0], vectorize=True))
    rec(
        "af_jac_fwd",
        A.jacobian(lambda xx: f(params, xx).sum(0), x[0], vectorize=True, strategy="forward-mode"),
    )
    rec("af_hess", A.hessian(lambda xx: f(params, xx).pow(2).sum(), x[1]))
    v = lib.tensor([1.0, -1.0, 0.5], dtype=dt)
    rec("hvp", A.hvp(lambda xx: f(params, xx).pow(2).sum(), x[1], v)[1])
    rec("vhp", A.vhp(lambda xx: f(params, xx).pow(2).sum(), x[1], v)[1])
    H = A.hessian(lambda xx: f(params, xx).pow(2).sum(), x[1], create_graph=True)
    gH = lib.autograd.grad(H.trace(), net[0].weight)[0]
    rec("gH", gH)


def p_forward_ad(lib, dt, rec):
    # forward-mode derivatives with dual numbers
    fwAD = lib.autograd.forward_ad
    net = _mlp(lib, dt, [2, 8, 1], seed=111)
    x = lib.rand(5, 2, dtype=dt, generator=lib.Generator().manual_seed(112))
    tangent = lib.zeros_like(x)
    tangent[:, 0] = 1.0
    with fwAD.dual_level():
        dx = fwAD.make_dual(x, tangent)
        y = net(dx)
        pr, tn = fwAD.unpack_dual(y)
        rec("primal", pr)
        rec("u_x", tn)
        rec("is_none", fwAD.unpack_dual(x).tangent is None)
    xr = x.clone().requires_grad_()
    rec("u_x_rev", _d(lib, net(xr), xr)[:, 0])
    # batched vjp: rows of the Jacobian at once
    y = net(xr).squeeze(-1)
    eye = lib.eye(5, dtype=dt)
    (rows,) = lib.autograd.grad(y, xr, eye, is_grads_batched=True)
    rec("rows", rows)


def p_finite_difference_check(lib, dt, rec):
    # check autograd derivatives against stencils: conv1d, torch.gradient, diff and roll
    F = lib.nn.functional
    n = 64
    L = 2 * math.pi
    x = lib.arange(n, dtype=dt) * (L / n)
    h = L / n
    u = lib.sin(x) + 0.5 * lib.cos(3 * x)
    rec("grad_1", lib.gradient(u, spacing=h)[0])
    rec("grad_2", lib.gradient(u, spacing=(h,), edge_order=2)[0])
    rec("grad_coords", lib.gradient(u, spacing=(x,))[0])
    rec("diff", lib.diff(u, n=2) / h**2)
    rec("diff_pre", lib.diff(u, prepend=u[-1:], append=u[:1]))
    lap_roll = (lib.roll(u, -1) - 2 * u + lib.roll(u, 1)) / h**2
    rec("lap_roll", lap_roll)
    k = lib.tensor([[[1.0, -2.0, 1.0]]], dtype=dt) / h**2
    up = F.pad(u.view(1, 1, -1), (1, 1), mode="circular")
    lap_conv = F.conv1d(up, k).view(-1)
    rec("lap_conv", lap_conv)
    rec("match", lib.allclose(lap_roll, lap_conv))
    # 2-D five-point Laplacian with conv2d on a meshgrid
    g = lib.linspace(0, 1, 17, dtype=dt)
    X, Y = lib.meshgrid(g, g, indexing="ij")
    U = lib.sin(math.pi * X) * lib.sin(math.pi * Y)
    K = lib.tensor([[0.0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=dt).view(1, 1, 3, 3)
    lap2 = F.conv2d(U[None, None], K, padding=0)[0, 0] / (g[1] - g[0]) ** 2
    rec("lap2", lap2)
    rec("lap2_max", lap2.abs().max())
    gx, gy = lib.gradient(U, spacing=(g, g), dim=(0, 1))
    rec("gx", gx)
    rec("gy", gy)
    # spectral derivative by the trapezoid rule energy
    rec("trap", lib.trapezoid(u**2, x))
    rec("trap_dx", lib.trapezoid(u**2, dx=h))
    rec("ctrap", lib.cumulative_trapezoid(u, x)[::8])
    rec("simpson_like", (h / 3) * (u[0] + 4 * u[1:-1:2].sum() + 2 * u[2:-1:2].sum() + u[-1]))


def p_hard_constraints(lib, dt, rec):
    # outputs that satisfy boundary/initial conditions exactly
    class HardBC(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = _mlp(lib, dt, [2, 10, 10, 1], seed=121)
            self.register_buffer("lb", lib.tensor([-1.0, 0.0], dtype=dt))
            self.register_buffer("ub", lib.tensor([1.0, 1.0], dtype=dt))

        def forward(self, xt):
            z = 2.0 * (xt - self.lb) / (self.ub - self.lb) - 1.0
            x, t = xt[..., :1], xt[..., 1:]
            u0 = -lib.sin(math.pi * x)
            return u0 + t * (1 - x**2) * self.net(z)

    m = HardBC()
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    tt = lib.linspace(0, 1, 7, dtype=dt)
    left = lib.stack([-lib.ones_like(tt), tt], -1)
    right = lib.stack([lib.ones_like(tt), tt], -1)
    rec("bc_l", m(left))
    rec("bc_r", m(right))
    xx = lib.linspace(-1, 1, 7, dtype=dt)
    rec("ic", m(lib.stack([xx, lib.zeros_like(xx)], -1)).squeeze(-1) + lib.sin(math.pi * xx))
    g = lib.Generator().manual_seed(122)
    xt = lib.empty(30, 2, dtype=dt)
    xt[:, 0].uniform_(-1, 1, generator=g)
    xt[:, 1].uniform_(0, 1, generator=g)
    xt.requires_grad_(True)
    u = m(xt)
    d = _d(lib, u, xt)
    dxx = _d(lib, d[:, 0], xt)[:, 0]
    r = d[:, 1] + u.squeeze(-1) * d[:, 0] - (0.01 / math.pi) * dxx
    rec("r", r)
    loss = lib.linalg.vector_norm(r) ** 2 / r.numel()
    loss.backward()
    rec.params("p", m, grads=True)
    # distance-function constraint on a disk: u = (1 - |x|²) N(x)
    net2 = _mlp(lib, dt, [2, 8, 1], seed=123)
    th = lib.linspace(0, 2 * math.pi, 9, dtype=dt)[:-1]
    circ = lib.stack([lib.cos(th), lib.sin(th)], 1)
    phi = 1 - (circ**2).sum(-1, keepdim=True)
    rec("disk_bc", (phi * net2(circ)).abs().max() < 1e-6)
    rec("phi", phi)


def p_siren(lib, dt, rec):
    # SIREN: sine layers with omega_0 and the paper's uniform initialisation
    class SineLayer(lib.nn.Module):
        def __init__(self, fin, fout, first=False, w0=30.0):
            super().__init__()
            self.w0 = w0
            self.linear = lib.nn.Linear(fin, fout, dtype=dt)
            bound = 1 / fin if first else math.sqrt(6 / fin) / w0
            with lib.no_grad():
                self.linear.weight.uniform_(-bound, bound)

        def forward(self, x):
            return lib.sin(self.w0 * self.linear(x))

    lib.manual_seed(131)
    net = lib.nn.Sequential(
        SineLayer(1, 16, first=True), SineLayer(16, 16), lib.nn.Linear(16, 1, dtype=dt)
    )
    x = lib.linspace(-1, 1, 40, dtype=dt).unsqueeze(-1).requires_grad_()
    target = lib.where(x.detach() > 0, x.detach() ** 2, -x.detach())
    opt = lib.optim.Adam(net.parameters(), lr=1e-4)
    for it in range(5):
        y = net(x)
        loss = ((y - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    y = net(x)
    dy = _d(lib, y, x)
    rec("dy", dy)
    rec("d2y", _d(lib, dy, x))
    # Sobolev loss: values and derivatives
    dtarget = lib.where(x.detach() > 0, 2 * x.detach(), -lib.ones_like(x))
    sob = F_mse(lib, y, target) + 0.1 * F_mse(lib, dy, dtarget)
    sob.backward()
    rec("sob", sob)
    rec("g0", net[0].linear.weight.grad)
    rec("sd", str([(k, tuple(v.shape)) for k, v in net.state_dict().items()]))


def F_mse(lib, a, b):
    return lib.nn.functional.mse_loss(a, b, reduction="mean")


def p_autograd_errors(lib, dt, rec):
    x = lib.linspace(0, 1, 5, dtype=dt).requires_grad_()
    y = lib.sin(x)
    rec.err("no_grad_outputs", lambda: lib.autograd.grad(y, x))
    g = lib.autograd.grad(y.sum(), x)[0]
    rec.err("second_no_create", lambda: lib.autograd.grad(g.sum(), x))
    z = lib.tanh(x)
    z.sum().backward()
    rec.err("backward_twice", lambda: z.sum().backward())
    w = x.detach()
    rec.err("no_req", lambda: lib.autograd.grad((w * 2).sum(), w))
    u = x * 2
    v = x**2
    rec.err("unused", lambda: lib.autograd.grad(v.sum(), [x, u]))
    # the failed call ran backward first: v's graph is gone
    rec.err("after_unused", lambda: lib.autograd.grad(v.sum(), [x, u], allow_unused=True))
    v = x**2
    gg = lib.autograd.grad(v.sum(), [x, u], allow_unused=True)
    rec("unused_none", str(gg[1]))
    gm = lib.autograd.grad((x**3).sum(), [x, u], allow_unused=True, materialize_grads=True)
    rec("materialized", gm[1])
    rec.err(
        "mat_no_allow",
        lambda: lib.autograd.grad((x**3).sum(), [x], allow_unused=False, materialize_grads=True),
    )
    rec.err("shape", lambda: lib.autograd.grad(lib.sin(x), x, grad_outputs=lib.ones(4, dtype=dt)))
    rec.err(
        "dtype", lambda: lib.autograd.grad(lib.sin(x), x, grad_outputs=lib.ones(5, dtype=lib.int64))
    )
    with lib.no_grad():
        p = lib.sin(x)
    rec("no_grad_req", p.requires_grad)
    rec.err("in_nograd", lambda: lib.autograd.grad(p.sum(), x))
    with lib.no_grad(), lib.enable_grad():
        q = lib.sin(x)
    rec("enable_inside", q.requires_grad)
    with lib.inference_mode():
        xi = lib.linspace(0, 1, 5, dtype=dt)
        rec("inf_on", lib.is_inference_mode_enabled())
        with lib.enable_grad():
            rec("inf_rec", (x * 2).requires_grad)
    xc = xi.clone().requires_grad_()
    rec("clone_ok", lib.autograd.grad(xc.pow(2).sum(), xc)[0])
    nl = lib.sin(x)
    rec.warns("nonleaf_grad", lambda: nl.grad)
    rec.err("leaf_inplace", lambda: x.add_(1))
    rec.err("int_req", lambda: lib.arange(3).requires_grad_())
    rec.err(
        "lbfgs_groups",
        lambda: lib.optim.LBFGS([{"params": [x]}, {"params": [lib.zeros(1, requires_grad=True)]}]),
    )


def p_old_style(lib, dt, rec):
    # the style of the original PINN code: NumPy grids, torch.tensor copies, positional grad args
    import numpy as np

    x = np.linspace(-1, 1, 9)[:, None]
    t = np.linspace(0, 1, 5)[:, None]
    X, T = np.meshgrid(x, t)
    XT = np.hstack((X.flatten()[:, None], T.flatten()[:, None]))
    lb, ub = XT.min(0), XT.max(0)
    net = _mlp(lib, dt, [2, 10, 10, 1], seed=141)
    xt = lib.tensor(XT, dtype=dt)
    xs = rec.warns("copy_warn", lambda: lib.tensor(xt[:, 0:1], requires_grad=True))
    ts = xt[:, 1:2].clone().detach().requires_grad_(True)
    lbt, ubt = lib.from_numpy(lb).to(dt), lib.from_numpy(ub).to(dt)
    H = 2.0 * (lib.cat([xs, ts], 1) - lbt) / (ubt - lbt) - 1.0
    u = net(H)
    u_t = lib.autograd.grad(u, ts, lib.ones_like(u), True, True)[0]
    u_x = lib.autograd.grad(u, xs, lib.ones_like(u), retain_graph=True, create_graph=True)[0]
    u_xx = lib.autograd.grad(u_x, xs, lib.ones_like(u_x), True, True)[0]
    f = u_t + u * u_x - (0.01 / np.pi) * u_xx
    rec("f", f)
    rec("f_np", f.detach().cpu().numpy().astype(np.float64))
    rec("repr_u", repr(u[:2]))
    rec("repr_ux", repr(u_x[:2]))
    rec("repr_uxx", repr(u_xx[:2]))
    rec("repr_f", repr(f[:1]))
    rec("fmt", f"{f.pow(2).mean().item():.3e}")
    # derivatives by backward(create_graph=True) into .grad, then zeroed by hand
    xb = lib.tensor(XT[:, :1], dtype=dt, requires_grad=True)
    ub2 = net(lib.cat([xb, ts.detach()], 1))
    # (a once-per-process warning in both libraries: run_program's warn_always gives it here)
    rec.warns("cg_warn", lambda: ub2.backward(lib.ones_like(ub2), create_graph=True))
    rec("xgrad", xb.grad)
    rec("xgrad_req", xb.grad.requires_grad)
    g1 = xb.grad.clone()
    xb.grad.data.zero_()
    g1.sum().backward()
    rec("xgrad2", xb.grad)
    rec("w_grad_set", net[0].weight.grad is not None)


def p_init_and_schedules(lib, dt, rec):
    lib.manual_seed(151)
    gain = lib.nn.init.calculate_gain("tanh")
    rec("gain", gain)
    rec("gains", [lib.nn.init.calculate_gain(n) for n in ("linear", "sigmoid", "relu", "selu")])
    rec("gain_lrelu", lib.nn.init.calculate_gain("leaky_relu", 0.2))

    def init_weights(m):
        if isinstance(m, lib.nn.Linear):
            lib.nn.init.xavier_uniform_(m.weight, gain=gain)
            lib.nn.init.constant_(m.bias, 0.01)

    net = lib.nn.Sequential(
        lib.nn.Linear(2, 20),
        lib.nn.Tanh(),
        lib.nn.Linear(20, 20),
        lib.nn.Tanh(),
        lib.nn.Linear(20, 1),
    ).to(dt)
    net.apply(init_weights)
    rec.params("init", net)
    net2 = lib.nn.Sequential(lib.nn.Linear(2, 20), lib.nn.Tanh(), lib.nn.Linear(20, 1)).to(dt)
    lib.nn.init.kaiming_normal_(net2[0].weight, mode="fan_out", nonlinearity="tanh")
    lib.nn.init.trunc_normal_(net2[2].weight, std=0.1, a=-0.15, b=0.15)
    lib.nn.init.orthogonal_(net2[0].weight)
    rec.params("init2", net2)
    x = lib.rand(32, 2, dtype=dt)
    y = lib.sin(x.sum(1, keepdim=True))
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    sch = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    plateau_opt = lib.optim.SGD(net2.parameters(), lr=0.1)
    plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, factor=0.5, patience=1)
    lrs, lrs2 = [], []
    for it in range(6):
        loss = (net(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sch.step()
        lrs.append(sch.get_last_lr()[0])
        loss2 = (net2(x) - y).pow(2).mean()
        plateau_opt.zero_grad()
        loss2.backward()
        plateau_opt.step()
        plateau.step(1.0 if it < 4 else 0.5)
        lrs2.append(plateau_opt.param_groups[0]["lr"])
    rec("lrs", lrs)
    rec("lrs2", lrs2)
    rec("loss", loss)
    # checkpoint the model and optimiser, reload, continue identically
    import io

    buf = io.BytesIO()
    lib.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sch.state_dict()}, buf)
    buf.seek(0)
    ck = lib.load(buf)
    net_b = lib.nn.Sequential(
        lib.nn.Linear(2, 20),
        lib.nn.Tanh(),
        lib.nn.Linear(20, 20),
        lib.nn.Tanh(),
        lib.nn.Linear(20, 1),
    ).to(dt)
    net_b.load_state_dict(ck["model"])
    opt_b = lib.optim.Adam(net_b.parameters(), lr=1e-2)
    opt_b.load_state_dict(ck["opt"])
    sch_b = lib.optim.lr_scheduler.ExponentialLR(opt_b, gamma=0.9)
    sch_b.load_state_dict(ck["sched"])
    for model, o, s in ((net, opt, sch), (net_b, opt_b, sch_b)):
        loss = (model(x) - y).pow(2).mean()
        o.zero_grad()
        loss.backward()
        o.step()
        s.step()
    rec(
        "same",
        all(lib.equal(a, b) for a, b in zip(net.parameters(), net_b.parameters(), strict=True)),
    )
    rec("lr_b", sch_b.get_last_lr())


def p_higher_order_ops(lib, dt, rec):
    # second and third derivatives through the ops residuals are built from
    g = lib.Generator().manual_seed(161)
    x = (lib.rand(6, 3, generator=g, dtype=dt) + 0.2).requires_grad_()
    fns = {
        "logsumexp": lambda x: lib.logsumexp(x * 2, dim=1),
        "softmax": lambda x: lib.softmax(x, dim=1)[:, 0],
        "log_softmax": lambda x: lib.log_softmax(x, dim=1)[:, 1],
        "norm": lambda x: lib.linalg.vector_norm(x, dim=1),
        "norm3": lambda x: lib.norm(x, p=3, dim=1),
        "prod": lambda x: x.prod(dim=1),
        "cumprod": lambda x: x.cumprod(dim=1)[:, -1],
        "cumsum_sq": lambda x: x.cumsum(dim=1).pow(2).sum(1),
        "atan2": lambda x: lib.atan2(x[:, 0], x[:, 1] - 0.5),
        "hypot": lambda x: lib.hypot(x[:, 0], x[:, 2]),
        "pow_t": lambda x: x[:, 0] ** x[:, 1],
        "rsqrt": lambda x: lib.rsqrt(x).sum(1),
        "sqrt_sum": lambda x: (x.pow(2).sum(1) + 1).sqrt(),
        "reciprocal": lambda x: x.reciprocal().sum(1),
        "div": lambda x: x[:, 0] / (x[:, 1] + x[:, 2]),
        "exp_log": lambda x: lib.exp(-x).mul(lib.log(x)).sum(1),
        "lgamma": lambda x: lib.lgamma(x + 1).sum(1),
        "digamma": lambda x: lib.digamma(x + 1).sum(1),
        "erfc": lambda x: lib.erfc(x).sum(1),
        "xlogy": lambda x: lib.xlogy(x, x + 1).sum(1),
        "sinh_cosh": lambda x: (lib.sinh(x) * lib.cosh(x[:, :1])).sum(1),
        "layer_norm": lambda x: lib.nn.functional.layer_norm(x, (3,))[:, 0] * x[:, 1],
        "normalize": lambda x: lib.nn.functional.normalize(x, dim=1)[:, 2],
        "amax": lambda x: lib.amax(x * x, dim=1),
        "where": lambda x: lib.where(x > 0.6, x**3, lib.sin(x)).sum(1),
        "clamp": lambda x: lib.clamp(x, 0.3, 0.9).pow(3).sum(1),
        "max_min": lambda x: lib.maximum(x[:, 0], x[:, 1]) * lib.minimum(x[:, 1], x[:, 2]),
        "abs": lambda x: (x - 0.6).abs().pow(3).sum(1),
        "matmul": lambda x: (x @ x.T).diagonal() * x[:, 0],
        "einsum": lambda x: lib.einsum("ij,ij->i", x, x.sin()),
        "tanh_chain": lambda x: lib.tanh(lib.tanh(x) @ lib.ones(3, 2, dtype=dt)).sum(1),
        "sigmoid": lambda x: lib.sigmoid(x * 3).sum(1),
        "expm1_log1p": lambda x: (lib.expm1(x) * lib.log1p(x)).sum(1),
        "std": lambda x: x.std(dim=1),
        "var_mean": lambda x: lib.var_mean(x, dim=1)[0] * lib.var_mean(x, dim=1)[1],
    }
    for name, f in fns.items():
        y = f(x)
        d1 = _d(lib, y, x)
        d2 = _d(lib, d1[:, 0], x)
        rec(name + ".req", d2.requires_grad)  # False where d2 is constant
        # torch's third derivative through layer_norm is wrong (finite differences agree with
        # minitorch's): it is left out
        third = d2.requires_grad and name != "layer_norm"
        d3 = _d(lib, d2[:, 1], x) if third else lib.zeros_like(x)
        rec(name, lib.cat([y.reshape(-1), d1.reshape(-1), d2.reshape(-1), d3.reshape(-1)]))


def p_linalg_physics(lib, dt, rec):
    # extreme-learning-machine PINN: random tanh features, least squares for the output layer
    g = lib.Generator().manual_seed(171)
    nf = 40
    W = lib.randn(1, nf, generator=g, dtype=dt) * 3
    b = lib.randn(nf, generator=g, dtype=dt) * 2
    x = lib.linspace(0, 1, 30, dtype=dt).unsqueeze(1)
    z = x @ W + b
    phi = lib.tanh(z)
    phi_xx = -2 * phi * (1 - phi**2) * W**2  # analytic second derivative of the features
    # -u'' = π² sin(πx), u(0)=u(1)=0
    A = lib.cat([-phi_xx, lib.tanh(b).unsqueeze(0), lib.tanh(W + b)], 0)
    rhs = lib.cat([math.pi**2 * lib.sin(math.pi * x).squeeze(1), lib.zeros(2, dtype=dt)])
    # the features are nearly dependent: solved in float64 (float32 answers depend on the LAPACK
    # driver's rank decisions)
    sol = lib.linalg.lstsq(A.double(), rhs.double().unsqueeze(1), driver="gelsd")
    c = sol.solution.squeeze(1).to(dt)
    u = phi @ c
    rec("err", (u - lib.sin(math.pi * x.squeeze(1))).abs().max() < 1e-2)
    rec("rank", sol.rank)
    # the same features differentiated by autograd
    xr = x.clone().requires_grad_()
    ph = lib.tanh(xr @ W + b)
    cols = []
    for j in range(4):
        d1 = _d(lib, ph[:, j], xr)
        cols.append(_d(lib, d1, xr).squeeze(1))
    rec("phi_xx_ad", lib.stack(cols, 1))
    rec("phi_xx", phi_xx[:, :4])
    # finite-difference matrix of the 1-D Laplacian, solve and eigenvalues
    n = 20
    h = 1.0 / (n + 1)
    main = 2 * lib.ones(n, dtype=dt)
    off = -lib.ones(n - 1, dtype=dt)
    K = (lib.diag(main) + lib.diag(off, 1) + lib.diag(off, -1)) / h**2
    xi = lib.arange(1, n + 1, dtype=dt) * h
    f = math.pi**2 * lib.sin(math.pi * xi)
    uu = lib.linalg.solve(K, f)
    rec("fd_sol", uu)
    rec("fd_err", (uu - lib.sin(math.pi * xi)).abs().max())
    ev = lib.linalg.eigvalsh(K)
    rec("eig", ev[:4])
    exact = 4 / h**2 * lib.sin(math.pi * lib.arange(1, 5, dtype=dt) * h / 2) ** 2
    rec("eig_exact", exact)
    L = lib.linalg.cholesky(K)
    rec("chol_solve", lib.cholesky_solve(f.unsqueeze(1), L).squeeze(1))
    LU, piv = lib.linalg.lu_factor(K)
    rec("lu_solve", lib.linalg.lu_solve(LU, piv, f.unsqueeze(1)).squeeze(1))
    rec("cond", lib.linalg.cond(K))
    # Gauss-Legendre quadrature (variational PINN test functions)
    import numpy as np

    gx, gw = np.polynomial.legendre.leggauss(8)
    qx = lib.tensor(gx, dtype=dt)
    qw = lib.tensor(gw, dtype=dt)
    k = lib.arange(1, 4, dtype=dt)
    v = lib.sin(k[:, None] * math.pi * (qx[None] + 1) / 2)
    rec("quad", (v * v * qw).sum(1))
    rec("quad_ein", lib.einsum("q,kq,kq->k", qw, v, v))


def p_navier_stokes(lib, dt, rec):
    # 2-D incompressible flow from a stream function: u = ψ_y, v = -ψ_x, and the momentum residual
    lib.manual_seed(181)
    net = lib.nn.Sequential(
        lib.nn.Linear(3, 20),
        lib.nn.Tanh(),
        lib.nn.Linear(20, 20),
        lib.nn.Tanh(),
        lib.nn.Linear(20, 2),
    ).to(dt)
    lam1 = lib.nn.Parameter(lib.tensor([0.0], dtype=dt))
    lam2 = lib.nn.Parameter(lib.tensor([0.0], dtype=dt))
    g = lib.Generator().manual_seed(182)
    x, y, t = (lib.rand(25, 1, generator=g, dtype=dt).requires_grad_() for _ in range(3))
    out = net(lib.cat([x, y, t], dim=1))
    psi, p = out[:, 0:1], out[:, 1:2]
    u = _d(lib, psi, y)
    v = -_d(lib, psi, x)
    u_t, u_x, u_y = (_d(lib, u, z) for z in (t, x, y))
    v_t, v_x, v_y = (_d(lib, v, z) for z in (t, x, y))
    u_xx, u_yy = _d(lib, u_x, x), _d(lib, u_y, y)
    v_xx, v_yy = _d(lib, v_x, x), _d(lib, v_y, y)
    p_x, p_y = _d(lib, p, x), _d(lib, p, y)
    f_u = u_t + lam1 * (u * u_x + v * u_y) + p_x - lam2 * (u_xx + u_yy)
    f_v = v_t + lam1 * (u * v_x + v * v_y) + p_y - lam2 * (v_xx + v_yy)
    rec("div", u_x + v_y)
    rec("f_u", f_u)
    rec("f_v", f_v)
    u_data = lib.sin(x.detach()) * lib.cos(y.detach())
    loss = (u - u_data).pow(2).sum() + f_u.pow(2).sum() + f_v.pow(2).sum()
    params = list(net.parameters()) + [lam1, lam2]
    grads = lib.autograd.grad(loss, params, allow_unused=True)  # the last bias: constants
    rec("unused", str(grads[5]))
    rec("g_lam", lib.cat(grads[-2:]))
    rec("g_w0", grads[0])
    # vorticity by jacrev of the velocity field
    F = lib.func

    def vel(pt):
        def psi_fn(q):
            return net(q.unsqueeze(0))[0, 0]

        gpsi = F.grad(psi_fn)(pt)
        return lib.stack([gpsi[1], -gpsi[0]])

    pts = lib.cat([x, y, t], 1).detach()[:5]
    J = F.vmap(F.jacrev(vel))(pts)
    rec("J", J)
    rec("vort", J[:, 1, 0] - J[:, 0, 1])
    rec("div_func", J[:, 0, 0] + J[:, 1, 1])


def p_gauss_newton(lib, dt, rec):
    # Levenberg-Marquardt on the residual vector, Jacobians w.r.t. the parameters by torch.func
    F = lib.func
    net = _mlp(lib, dt, [1, 6, 1], seed=191)
    names = [n for n, _ in net.named_parameters()]
    shapes = [p.shape for p in net.parameters()]
    x = lib.linspace(0, 1, 10, dtype=dt).unsqueeze(1)
    target = lib.sin(2 * x).squeeze(1)

    def residual_vec(theta):
        ps, off = {}, 0
        for n, shp in zip(names, shapes, strict=True):
            k = math.prod(shp)
            ps[n] = theta[off : off + k].view(shp)
            off += k

        def u(xx):
            return F.functional_call(net, ps, (xx.unsqueeze(0),)).squeeze()

        u_x = F.vmap(F.grad(u))(x)
        return lib.cat(
            [F.vmap(u)(x) - target, 0.1 * (u_x.squeeze(1) - 2 * lib.cos(2 * x).squeeze(1))]
        )

    theta = lib.nn.utils.parameters_to_vector(net.parameters()).detach()
    rec("theta0", theta)
    mu = 1e-2
    # float32 normal equations lose the last digits: a single step there
    for it in range(4 if dt == lib.float64 else 1):
        r = residual_vec(theta)
        J = F.jacrev(residual_vec)(theta)
        A = J.T @ J + mu * lib.eye(J.shape[1], dtype=dt)
        step = lib.linalg.solve(A, J.T @ r)
        new = theta - step
        r_new = residual_vec(new)
        if r_new.pow(2).sum() < r.pow(2).sum():
            theta, mu = new, mu * 0.5
        else:
            mu = mu * 4
        rec(f"r{it}", r.pow(2).sum())
        rec(f"mu{it}", mu)
    rec("J", J)
    rec("J_req", J.requires_grad)
    lib.nn.utils.vector_to_parameters(theta, net.parameters())
    rec.params("w", net)
    # the same Jacobian by autograd.functional and by rows of autograd.grad
    J2 = lib.autograd.functional.jacobian(residual_vec, theta)
    rec("J2", J2)
    th = theta.clone().requires_grad_()
    rv = residual_vec(th)
    rows = lib.autograd.grad(rv, th, lib.eye(rv.numel(), dtype=dt), is_grads_batched=True)[0]
    rec("rows", rows)


def p_default_float64(lib, dt, rec):
    # whole scripts that start with torch.set_default_dtype(torch.float64)
    prev = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        lib.manual_seed(201)
        net = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
        rec("w_dtype", str(net[0].weight.dtype))
        x = lib.rand(10, 2, requires_grad=True)
        rec("x_dtype", str(x.dtype))
        u = net(x)
        ux = lib.autograd.grad(u.sum(), x, create_graph=True)[0]
        uxx = lib.autograd.grad(ux[:, 0].sum(), x)[0]
        rec("uxx", uxx)
        t = lib.tensor([1.0, 2.0])
        rec("t_dtype", str(t.dtype))
        rec("lin", str(lib.linspace(0, 1, 3).dtype))
        rec("arange", str(lib.arange(0.0, 1.0, 0.25).dtype))
        rec("pi", lib.tensor(math.pi))
        rec("full", str(lib.full((2,), 1.5).dtype))
        rec("int_div", lib.tensor(3) / 2)
        U = lib.distributions.Uniform(lib.tensor([-1.0, 0.0]), lib.tensor([1.0, 1.0]))
        s = U.sample((6,))
        rec("uniform", s)
        rec("uniform_lp", U.log_prob(s))
        rec("uniform_dtype", str(s.dtype))
        rec("randn", lib.randn(3))
        rec("empty_like_int", str(lib.empty_like(lib.arange(3)).dtype))
    finally:
        lib.set_default_dtype(prev)


def p_anomaly_and_hooks(lib, dt, rec):
    x = lib.linspace(0, 1, 5, dtype=dt).requires_grad_()
    with lib.autograd.detect_anomaly(check_nan=True):
        y = lib.sqrt(x)  # the derivative at 0 is inf, 0 * inf -> nan
        rec.err("nan", lambda: (y * 0).sum().backward())
    rec("anomaly_off", lib.is_anomaly_enabled())
    with lib.autograd.set_detect_anomaly(True):
        rec("anomaly_on", lib.is_anomaly_enabled())
        rec("check_nan", lib.is_anomaly_check_nan_enabled())
    x.grad = None
    # a hook that clips the gradient flowing into the PDE parameter
    lam = lib.tensor(0.5, dtype=dt, requires_grad=True)
    seen = []
    h = lam.register_hook(lambda g: (seen.append(g.clone()), g.clamp(-0.1, 0.1))[1])
    z = lib.tensor([1.0, 2.0, 3.0], dtype=dt, requires_grad=True)
    u = lib.sin(z) * lam
    v = u.retain_grad()
    rec("retain_none", v is None)
    u_z = lib.autograd.grad(u.sum(), z, create_graph=True)[0]
    loss = (u_z * u).sum()
    loss.backward()
    rec("lam_grad", lam.grad)
    rec("seen", seen[0])
    rec("u_grad", u.grad)
    rec("z_grad", z.grad)
    h.remove()
    lam.grad = None
    (lib.sin(z) * lam).sum().backward()
    rec("unhooked", lam.grad)
    rec.err("view_req", lambda: lib.sin(z)[:2].requires_grad_(False))
    X = lib.rand(4, 2, dtype=dt, generator=lib.Generator().manual_seed(1)).requires_grad_()
    rec.err("slice_leaf", lambda: X[:, 0:1].requires_grad_())
    xs, ts = X[:, 0:1], X[:, 1:2]
    u = lib.exp(-ts) * lib.sin(xs)
    rec("nonleaf_grads", lib.stack(lib.autograd.grad(u.sum(), [xs, ts])).squeeze(-1))
    rec("is_leaf", [X.is_leaf, xs.is_leaf, u.is_leaf])
    rec("grad_fn", str(xs.grad_fn.name()))


def p_custom_function(lib, dt, rec):
    # a custom autograd Function for a sine activation with its own (differentiable) backward
    class MySin(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return lib.sin(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * MyCos.apply(x)

        @staticmethod
        def vmap(info, in_dims, x):
            return MySin.apply(x), in_dims[0]

    class MyCos(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return lib.cos(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return -g * lib.sin(x)

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x**2

    x = lib.linspace(-1, 1, 7, dtype=dt).requires_grad_()
    y = MySin.apply(2 * x)
    d1 = _d(lib, y, x)
    d2 = _d(lib, d1, x)
    rec("y", y)
    rec("d1", d1)
    rec("d2", d2)
    rec("fn", type(y.grad_fn).__name__)
    F = lib.func
    rec("vmap", F.vmap(MySin.apply)(x.detach().view(7, 1)))
    rec("func_grad", F.vmap(F.grad(lambda s: MySin.apply(s)))(x.detach()))
    # hessian is jacfwd(jacrev): torch's forward mode wants a jvp staticmethod
    rec.err("func_hess", lambda: F.vmap(F.hessian(lambda s: MyCos.apply(s)))(x.detach()))
    rec("func_hess_rev", F.vmap(F.jacrev(F.jacrev(lambda s: MyCos.apply(s))))(x.detach()))
    o = Once.apply(x)
    g1 = lib.autograd.grad(o.sum(), x, create_graph=True)[0]
    rec("once_g1", g1)
    rec.err("once_twice", lambda: lib.autograd.grad(g1.sum(), x))
    rec.err(
        "gradcheck",
        lambda: lib.autograd.gradcheck(MySin.apply, (x.detach().double().requires_grad_(),)),
    )
    rec.err(
        "gradgradcheck",
        lambda: lib.autograd.gradgradcheck(MySin.apply, (x.detach().double().requires_grad_(),)),
    )


def p_weight_norm_rwf(lib, dt, rec):
    # weight-normalised layers and random weight factorisation W = diag(exp(s)) V
    lib.manual_seed(211)
    wn = lib.nn.utils.parametrizations.weight_norm
    net = lib.nn.Sequential(wn(lib.nn.Linear(2, 12)), lib.nn.Tanh(), wn(lib.nn.Linear(12, 1)))
    net = net.to(dt)
    rec("names", str([n for n, _ in net.named_parameters()]))
    rec("g0", net[0].parametrizations.weight.original0)
    x = lib.rand(20, 2, dtype=dt).requires_grad_()
    u = net(x)
    lap = _d(lib, _d(lib, u, x)[:, 0], x)[:, 0] + _d(lib, _d(lib, u, x)[:, 1], x)[:, 1]
    rec("lap", lap)
    lap.pow(2).mean().backward()
    rec.params("p", net, grads=True)

    class RWFLinear(lib.nn.Module):
        def __init__(self, fin, fout):
            super().__init__()
            w = lib.empty(fout, fin, dtype=dt)
            lib.nn.init.xavier_normal_(w)
            s = 1.0 + 0.1 * lib.randn(fout, 1, dtype=dt)
            self.s = lib.nn.Parameter(s)
            self.v = lib.nn.Parameter(w / lib.exp(s))
            self.b = lib.nn.Parameter(lib.zeros(fout, dtype=dt))

        def forward(self, x):
            return lib.nn.functional.linear(x, lib.exp(self.s) * self.v, self.b)

    rwf = lib.nn.Sequential(RWFLinear(2, 10), lib.nn.Tanh(), RWFLinear(10, 1))
    opt = lib.optim.Adam(rwf.parameters(), lr=1e-3)
    for it in range(4):
        u = rwf(x)
        u_x = _d(lib, u, x)
        loss = (u_x[:, 0] - lib.cos(x[:, 0])).pow(2).mean() + u.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec.params("rwf", rwf)
    rm = lib.nn.utils.parametrize.remove_parametrizations(net[0], "weight")
    rec("removed", str([n for n, _ in rm.named_parameters()]))


def p_spectral_basis(lib, dt, rec):
    # spectral / polynomial bases: Chebyshev and Legendre features, vander, cartesian_prod
    S = lib.special
    x = lib.linspace(-0.95, 0.95, 9, dtype=dt)
    for n in range(5):
        rec(f"T{n}", S.chebyshev_polynomial_t(x, n))
        rec(f"U{n}", S.chebyshev_polynomial_u(x, n))
        rec(f"P{n}", S.legendre_polynomial_p(x, n))
        rec(f"H{n}", S.hermite_polynomial_h(x, n))
    rec("T_tensor_n", S.chebyshev_polynomial_t(x, lib.arange(9, dtype=dt)))
    V = lib.vander(x, N=5, increasing=True)
    rec("vander", V)
    rec("lstsq_coef", lib.linalg.lstsq(V, lib.exp(x).unsqueeze(1)).solution)
    # Chebyshev derivative by the trig form T_n(cos θ) = cos(nθ), differentiated by autograd
    xr = x.clone().requires_grad_()
    th = lib.acos(xr)
    T3 = lib.cos(3 * th)
    rec("dT3", _d(lib, T3, xr))
    rec("dT3_exact", 12 * x**2 - 3)
    g = lib.cartesian_prod(lib.linspace(0, 1, 3, dtype=dt), lib.linspace(0, 2, 4, dtype=dt))
    rec("cart", g)
    Xm, Ym = lib.meshgrid(lib.arange(3, dtype=dt), lib.arange(4, dtype=dt), indexing="xy")
    rec("xy", Xm)
    rec("xy_shape", list(Ym.shape))
    rec("bucket", lib.bucketize(x, lib.tensor([-0.5, 0.0, 0.5], dtype=dt)))
    rec("search", lib.searchsorted(lib.tensor([-0.5, 0.0, 0.5], dtype=dt), x, right=True))
    rec(
        "polyval",
        lib.stack([S.chebyshev_polynomial_t(x, k) for k in range(4)], -1)
        @ lib.tensor([0.5, -1.0, 0.25, 2.0], dtype=dt),
    )


def p_bayesian_pinn(lib, dt, rec):
    # mean-field variational PINN: reparameterised weights, a KL term, a Gaussian likelihood
    D = lib.distributions
    lib.manual_seed(221)

    class BayesLinear(lib.nn.Module):
        def __init__(self, fin, fout):
            super().__init__()
            self.mu = lib.nn.Parameter(lib.randn(fout, fin, dtype=dt) * 0.3)
            self.rho = lib.nn.Parameter(lib.full((fout, fin), -3.0, dtype=dt))
            self.b = lib.nn.Parameter(lib.zeros(fout, dtype=dt))

        def forward(self, x, eps):
            sigma = lib.nn.functional.softplus(self.rho)
            w = self.mu + sigma * eps
            return lib.nn.functional.linear(x, w, self.b)

        def kl(self):
            q = D.Normal(self.mu, lib.nn.functional.softplus(self.rho))
            p = D.Normal(lib.zeros_like(self.mu), lib.ones_like(self.mu))
            return D.kl_divergence(q, p).sum()

    l1, l2 = BayesLinear(1, 10), BayesLinear(10, 1)
    g = lib.Generator().manual_seed(222)
    x = lib.linspace(-1, 1, 20, dtype=dt).unsqueeze(1).requires_grad_()
    y_obs = lib.sin(2 * x.detach()) + 0.05 * lib.randn(20, 1, generator=g, dtype=dt)
    opt = lib.optim.Adam(list(l1.parameters()) + list(l2.parameters()), lr=1e-2)
    lik = lib.nn.GaussianNLLLoss()
    for it in range(4):
        e1 = lib.randn(l1.mu.shape, generator=g, dtype=dt)
        e2 = lib.randn(l2.mu.shape, generator=g, dtype=dt)
        u = l2(lib.tanh(l1(x, e1)), e2)
        u_x = _d(lib, u, x)
        var = lib.full_like(u, 0.05**2)
        nll = lik(u, y_obs, var)
        phys = (u_x - 2 * lib.cos(2 * x)).pow(2).mean()
        kl = l1.kl() + l2.kl()
        loss = nll + phys + kl / 20
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"terms{it}", lib.stack([nll, phys, kl]).detach())
    rec("mu1", l1.mu)
    rec("rho1", l1.rho)
    N = D.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(0.05, dtype=dt))
    rec("lp", N.log_prob(u.detach() - y_obs).sum())
    rec("gnll_full", lib.nn.functional.gaussian_nll_loss(u.detach(), y_obs, var, full=True))
    ind = D.Independent(D.Normal(u.detach().squeeze(1), 0.05), 1)
    rec("ind_lp", ind.log_prob(y_obs.squeeze(1)))


def p_xpinn_domains(lib, dt, rec):
    # domain decomposition: two sub-networks, an interface condition, masks and boolean indexing
    n1 = _mlp(lib, dt, [1, 8, 1], seed=231)
    n2 = _mlp(lib, dt, [1, 8, 1], seed=232)
    g = lib.Generator().manual_seed(233)
    x = lib.rand(40, 1, generator=g, dtype=dt) * 2 - 1
    left = (x < 0).squeeze(1)
    rec("nleft", left.sum())
    rec("nz", lib.nonzero(left).squeeze(1)[:5])
    x1 = x[left].clone().requires_grad_()
    x2 = x[~left].clone().requires_grad_()
    rec("masked", lib.masked_select(x.squeeze(1), left)[:4])
    k1, k2 = 1.0, 4.0  # piecewise conductivity
    u1, u2 = n1(x1), n2(x2)
    r1 = k1 * _d(lib, _d(lib, u1, x1), x1) + 1.0
    r2 = k2 * _d(lib, _d(lib, u2, x2), x2) + 1.0
    xi = lib.zeros(1, 1, dtype=dt, requires_grad=True)
    ui1, ui2 = n1(xi), n2(xi)
    flux = k1 * _d(lib, ui1, xi) - k2 * _d(lib, ui2, xi)
    avg = (ui1 + ui2) / 2
    loss = r1.pow(2).mean() + r2.pow(2).mean() + (ui1 - ui2).pow(2).sum() + flux.pow(2).sum()
    loss = loss + (ui1 - avg).pow(2).sum()
    rec("loss", loss)
    loss.backward()
    rec.params("a", n1, grads=True)
    rec.params("b", n2, grads=True)
    # stitch the prediction back in place
    with lib.no_grad():
        u = lib.empty_like(x)
        u[left] = n1(x[left])
        u[~left] = n2(x[~left])
        rec("u", u)
        u2b = lib.where(left.unsqueeze(1), n1(x), n2(x))
        rec("same", lib.allclose(u, u2b))  # float32 matmuls of other sizes round apart
        rec(
            "index_put",
            lib.zeros(40, dtype=dt).index_put_(
                (lib.nonzero(left).squeeze(1),), lib.ones(int(left.sum()), dtype=dt)
            ),
        )


def p_time_marching(lib, dt, rec):
    # sequential windows: each window's network starts from a copy of the previous one, whose
    # frozen prediction at the window start is the next initial condition
    import copy

    net = _mlp(lib, dt, [2, 10, 1], seed=241)
    xs = lib.linspace(-1, 1, 12, dtype=dt)
    ic = -lib.sin(math.pi * xs)
    prev = None
    for w in range(3):
        t0, t1 = 0.1 * w, 0.1 * (w + 1)
        if prev is not None:
            net = copy.deepcopy(prev)
            with lib.no_grad():
                ic = prev(lib.stack([xs, lib.full_like(xs, t0)], 1)).squeeze(1)
            for p in prev.parameters():
                p.requires_grad_(False)
        opt = lib.optim.Adam(net.parameters(), lr=2e-3)
        tt = lib.linspace(t0, t1, 5, dtype=dt)
        X, T = lib.meshgrid(xs, tt, indexing="ij")
        pts = lib.stack([X.reshape(-1), T.reshape(-1)], 1).requires_grad_()
        for _ in range(3):
            u = net(pts)
            d = _d(lib, u, pts)
            r = d[:, 1:] + u * d[:, :1]
            u0 = net(lib.stack([xs, lib.full_like(xs, t0)], 1)).squeeze(1)
            loss = r.pow(2).mean() + 10 * (u0 - ic).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        rec(f"loss{w}", loss)
        rec(f"ic{w}", ic)
        prev = net
    rec("frozen", [p.requires_grad for p in net.parameters()])
    rec.params("final", net)


def p_multi_physics_module(lib, dt, rec):
    # heads per field in a ModuleDict, PDE coefficients in a ParameterDict
    nn = lib.nn
    lib.manual_seed(251)

    class Multi(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(2, 12), nn.Tanh())
            self.heads = nn.ModuleDict({"u": nn.Linear(12, 1), "p": nn.Linear(12, 1)})
            self.coef = nn.ParameterDict(
                {"nu": nn.Parameter(lib.tensor(0.1)), "rho": nn.Parameter(lib.tensor([1.0, 2.0]))}
            )

        def forward(self, x):
            h = self.trunk(x)
            return {k: m(h) for k, m in self.heads.items()}

    m = Multi().to(dt)
    rec("keys", str(list(m.state_dict().keys())))
    rec("repr", repr(m))
    rec("coef_repr", repr(m.coef))
    x = lib.rand(8, 2, dtype=dt, generator=lib.Generator().manual_seed(252)).requires_grad_()
    out = m(x)
    u, p = out["u"], out["p"]
    ones = [lib.ones_like(u), lib.ones_like(p)]
    gu = lib.autograd.grad([u, p], x, grad_outputs=ones, create_graph=True)[0]
    gp = lib.autograd.grad(p, x, grad_outputs=ones[1], create_graph=True)[0]
    rec("gu", gu)
    r = gu[:, 1] - m.coef["nu"] * gp[:, 0] * m.coef["rho"][1]
    loss = r.pow(2).mean()
    loss.backward()
    rec("g_nu", m.coef["nu"].grad)
    rec("g_rho", m.coef["rho"].grad)
    A = lib.autograd.functional
    f = lambda a, b: (a * 2, a.sum() + 0 * b)  # noqa: E731
    a, b = lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)
    rec.err("strict", lambda: A.jacobian(lambda a, b: (a * 2, a.sum()), (a, b), strict=True))
    J = A.jacobian(f, (a, b))
    rec("J", lib.cat([J[0][0].flatten(), J[0][1].flatten(), J[1][0].flatten(), J[1][1].flatten()]))
    J2 = A.jacobian(lambda a, b: (a * 2, a.sum()), (a, b))
    rec("J_zero", J2[1][1])
    F = lib.func
    jac, aux = F.jacrev(lambda a, b: ((a * b[:2]).sum(), a.mean()), argnums=(0, 1), has_aux=True)(
        a, b
    )
    rec("jac0", jac[0])
    rec("jac1", jac[1])
    rec("aux", aux)
    rec(
        "vm",
        F.vmap(lambda r, s: r * s, in_dims=(0, None), out_dims=1)(lib.ones(3, 2, dtype=dt), b[:2]),
    )
    rec(
        "vm_chunk",
        F.vmap(lambda r: r.sin().sum(), chunk_size=2)(lib.arange(6, dtype=dt).view(3, 2)),
    )


def p_lbfgs_outer(lib, dt, rec):
    # several LBFGS.step calls in an outer loop; the state carries over
    net = _mlp(lib, dt, [1, 8, 1], seed=261)
    x = lib.linspace(-1, 1, 24, dtype=dt).unsqueeze(1).requires_grad_()
    ls = "strong_wolfe" if dt == lib.float64 else None
    opt = lib.optim.LBFGS(
        net.parameters(),
        lr=1 if ls else 0.1,
        max_iter=5,
        history_size=4,
        tolerance_grad=1e-9,
        tolerance_change=1e-12,
        line_search_fn=ls,
    )

    def closure():
        opt.zero_grad()
        u = net(x)
        u_x = _d(lib, u, x)
        loss = (u_x - lib.cos(3 * x)).pow(2).mean() + net(lib.zeros(1, 1, dtype=dt)).pow(2).sum()
        loss.backward()
        return loss

    for k in range(4):
        rec(f"out{k}", opt.step(closure))
        st = opt.state[opt._params[0]]
        rec(f"n_iter{k}", st["n_iter"])
        rec(f"evals{k}", st["func_evals"])
        rec(f"hist{k}", len(st["old_dirs"]))
    rec("H_diag", st["H_diag"])
    sd = opt.state_dict()
    rec("sd_keys", str(sorted(sd["state"][0].keys())))
    rec("pg", str({k: v for k, v in sd["param_groups"][0].items() if k != "params"}))
    rec.params("w", net)


def p_pinn_mistakes(lib, dt, rec):
    # the errors and warnings PINN scripts commonly run into
    net = _mlp(lib, dt, [2, 6, 1], seed=271)
    x = lib.linspace(0, 1, 5, dtype=dt)
    t = lib.linspace(0, 1, 3, dtype=dt)
    G = rec.warns("meshgrid_warn", lambda: lib.meshgrid(x, t))
    rec("mesh_shape", list(G[0].shape))
    rec.err("dtype_mix", lambda: net(lib.rand(4, 2, dtype=lib.float16)))
    rec.err("shape", lambda: net(x))
    y = net(lib.stack([x, x], 1))
    rec.err("req_nonleaf", lambda: setattr(y, "requires_grad", False))
    rec.err("int_tensor_req", lambda: lib.tensor([1, 2], requires_grad=True))
    rec.err("grad_of_int", lambda: lib.autograd.grad(y.sum(), lib.arange(3)))
    rec.err("item_multi", lambda: y.item())
    rec.err("numpy_req", lambda: y.numpy())
    rec("detach_np", y.detach().numpy().shape)
    rec.err("ones_like_shape", lambda: lib.autograd.grad(y, net[0].weight, lib.ones(5)))
    rec.err("linspace_steps", lambda: lib.linspace(0, 1))
    rec.err("cat_dims", lambda: lib.cat([x.unsqueeze(1), t], 1))
    rec.err("mse_shape", lambda: lib.nn.functional.mse_loss(y, x, reduction="mean").backward())
    rec.warns("mse_bcast", lambda: lib.nn.functional.mse_loss(y, x))
    rec.err("opt_empty", lambda: lib.optim.Adam([]))
    rec.err("lbfgs_no_closure", lambda: lib.optim.LBFGS(net.parameters()).step())
    rec.err(
        "bad_ls",
        lambda: lib.optim.LBFGS(net.parameters(), line_search_fn="armijo").step(
            lambda: net(lib.stack([x, x], 1)).sum()
        ),
    )


def p_func_api_edges(lib, dt, rec):
    # Hessians w.r.t. several arguments, vmapped Jacobians of tuples, batched double backward
    F = lib.func
    a = lib.tensor([0.3, -0.2], dtype=dt)
    b = lib.tensor([1.5], dtype=dt)

    def f(a, b):
        return (lib.sin(a) * b).sum() + (a**2).sum() * b[0] ** 2

    H = F.hessian(f, argnums=(0, 1))(a, b)
    rec("H00", H[0][0])
    rec("H01", H[0][1])
    rec("H10", H[1][0])
    rec("H11", H[1][1])

    def g(x):
        return lib.sin(x), x.pow(3).sum()

    J = F.vmap(F.jacrev(g))(lib.ones(3, 2, dtype=dt))
    rec("J0", J[0])
    rec("J1", J[1])
    x = lib.linspace(0, 1, 4, dtype=dt).requires_grad_()
    y = lib.tanh(x) * x
    (rows,) = lib.autograd.grad(
        y, x, lib.eye(4, dtype=dt), is_grads_batched=True, create_graph=True
    )
    rec("rows", rows)
    (d,) = lib.autograd.grad(rows.diagonal().sum(), x)
    rec("d", d)
    jf = F.jacfwd(lambda x: x.cumsum(0) * x.flip(0))(x.detach())
    rec("jf", jf)
    rec("vh", F.vmap(F.hessian(lambda x: (x.outer(x) @ x).sum()))(lib.ones(2, 3, dtype=dt)))
    # functional_call with tied and strict
    net = lib.nn.Linear(2, 1).to(dt)
    p = {"weight": lib.ones(1, 2, dtype=dt)}
    rec("fc_partial", F.functional_call(net, p, (lib.ones(1, 2, dtype=dt),)) - net.bias)
    rec.err(
        "fc_strict", lambda: F.functional_call(net, p, (lib.ones(1, 2, dtype=dt),), strict=True)
    )
    rec.err(
        "fc_bad",
        lambda: F.functional_call(net, {"weightx": lib.ones(1)}, (lib.ones(1, 2, dtype=dt),)),
    )
    rec.err("vmap_dims", lambda: F.vmap(lambda r, s: r + s)(lib.ones(3, 2), lib.ones(4, 2)))
    rec.err("grad_nonscalar", lambda: F.grad(lambda r: r * 2)(lib.ones(3)))
    rec.err("jacrev_int", lambda: F.jacrev(lambda r: r.long())(lib.ones(3)))


def p_checkpoint_stencils(lib, dt, rec):
    # activation checkpointing under double backward, padded and interpolated stencils
    from_ck = lib.utils.checkpoint.checkpoint
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).to(dt)
    x = lib.rand(5, 2, dtype=dt).requires_grad_()
    u = from_ck(net, x, use_reentrant=False)
    ux = lib.autograd.grad(u.sum(), x, create_graph=True)[0]
    uxx = lib.autograd.grad(ux[:, 0].sum(), x, create_graph=True)[0]
    rec("uxx", uxx)
    uxx.sum().backward()
    rec.params("p", net, grads=True)
    rec.err(
        "reentrant",
        lambda: lib.autograd.grad(from_ck(net, x, use_reentrant=True).sum(), x, create_graph=True),
    )
    # nn.functional.pad replicate for FD boundary
    y = lib.nn.functional.pad(x.T.unsqueeze(0), (1, 1), mode="replicate")
    rec("pad", y)
    rec("pad_grad", lib.autograd.grad(y.pow(2).sum(), x)[0])
    z = lib.nn.functional.pad(x.T.unsqueeze(0), (2, 2), mode="reflect")
    rec(
        "reflect_gg",
        lib.autograd.grad(lib.autograd.grad(z.pow(3).sum(), x, create_graph=True)[0].sum(), x)[0],
    )
    w = lib.nn.functional.interpolate(
        x.T.unsqueeze(0), scale_factor=2, mode="linear", align_corners=True
    )
    rec("interp", w)
    rec("interp_g", lib.autograd.grad(w.pow(2).sum(), x)[0])
