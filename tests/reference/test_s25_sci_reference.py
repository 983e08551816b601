"""Session 25 (sci): scientific-computing programs ("NumPy-style experiments that want
gradients"), each written once against a `torch`-like module and run under torch and minitorch
after the same manual_seed: Gaussian-process regression, a physics-informed network, an RK4
Lotka-Volterra fit, Newton's method with autograd.functional, LBFGS curve fitting, torch.func
per-example Jacobians, log-space Sinkhorn, Langevin/HMC with distributions, Monte-Carlo option
Greeks, least squares with lstsq/pinv/qr/eigh/svd, a spring-mass rollout with roll/cumsum and
conv1d stencils, trapezoid integrals with a vander fit, bisection with where, count likelihoods
with special functions, a linear ODE with matrix_exp, and the errors of typical mistakes.
Every recorded value (values, gradients, dtypes, shapes, exception type and message) must agree:
float64 to 1e-10 of its scale, float32 to 1e-4."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


# --- the programs: each takes the library, a dtype and a recorder ---


def p_gp_regression(lib, dt, rec):
    """GP regression: RBF kernel by cdist, Cholesky marginal likelihood, Adam on log params."""
    lib.manual_seed(0)
    x = lib.linspace(-3, 3, 25, dtype=dt).unsqueeze(1)
    y = lib.sin(x).squeeze(1) + 0.1 * lib.randn(25, dtype=dt)
    log_ls = lib.zeros((), dtype=dt, requires_grad=True)
    log_sf = lib.zeros((), dtype=dt, requires_grad=True)
    log_sn = lib.tensor(-1.0, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)

    def kern(a, b):
        d2 = lib.cdist(a, b).pow(2)
        return log_sf.exp().pow(2) * lib.exp(-0.5 * d2 / log_ls.exp().pow(2))

    for it in range(15):
        opt.zero_grad()
        K = kern(x, x) + (log_sn.exp().pow(2) + 1e-6) * lib.eye(25, dtype=dt)
        L = lib.linalg.cholesky(K)
        alpha = lib.cholesky_solve(y.unsqueeze(1), L)
        nll = 0.5 * (y.unsqueeze(1) * alpha).sum() + L.diagonal().log().sum()
        nll = nll + 0.5 * 25 * math.log(2 * math.pi)
        nll.backward()
        rec(f"nll{it}", nll)
        rec(f"g{it}", lib.stack([log_ls.grad, log_sf.grad, log_sn.grad]))
        opt.step()
    with lib.no_grad():
        xs = lib.linspace(-4, 4, 9, dtype=dt).unsqueeze(1)
        K = kern(x, x) + (log_sn.exp().pow(2) + 1e-6) * lib.eye(25, dtype=dt)
        L = lib.linalg.cholesky(K)
        Ks = kern(x, xs)
        v = lib.linalg.solve_triangular(L, Ks, upper=False)
        a = lib.linalg.solve_triangular(L, y.unsqueeze(1), upper=False)
        rec("mean", (v.T @ a).squeeze(1))
        rec("var", kern(xs, xs).diagonal() - v.pow(2).sum(0))
        rec("logdet", lib.logdet(K))
        sign, lad = lib.linalg.slogdet(K)
        rec("slogdet", lib.stack([sign, lad]))
    rec("params", lib.stack([log_ls, log_sf, log_sn]))


def p_pinn(lib, dt, rec):
    """Physics-informed net for u'' = -pi^2 sin(pi x), u(0) = u(1) = 0."""
    nn = lib.nn
    lib.manual_seed(1)
    net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    net = net.to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    for it in range(8):
        opt.zero_grad()
        x = lib.rand(32, 1, dtype=dt).requires_grad_(True)
        u = net(x)
        (u_x,) = lib.autograd.grad(u.sum(), x, create_graph=True)
        (u_xx,) = lib.autograd.grad(u_x.sum(), x, create_graph=True)
        res = u_xx + math.pi**2 * lib.sin(math.pi * x)
        xb = lib.tensor([[0.0], [1.0]], dtype=dt)
        loss = res.pow(2).mean() + 10 * net(xb).pow(2).mean()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"u_xx{it}", u_xx[:4])
        rec(f"g{it}", net[0].weight.grad)
        opt.step()
    for n, p in net.named_parameters():
        rec(n, p)


def p_lotka_volterra(lib, dt, rec):
    """RK4 unrolled through 40 steps; fit (alpha, beta, gamma, delta) by Adam."""
    lib.manual_seed(2)
    true = lib.tensor([1.0, 0.4, 0.8, 0.2], dtype=dt)

    def f(z, p):
        x, y = z[..., 0], z[..., 1]
        return lib.stack([p[0] * x - p[1] * x * y, p[3] * x * y - p[2] * y], dim=-1)

    def rollout(p, z0, h=0.1, n=40):
        zs = [z0]
        z = z0
        for _ in range(n):
            k1 = f(z, p)
            k2 = f(z + h / 2 * k1, p)
            k3 = f(z + h / 2 * k2, p)
            k4 = f(z + h * k3, p)
            z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            zs.append(z)
        return lib.stack(zs)

    z0 = lib.tensor([2.0, 1.0], dtype=dt)
    with lib.no_grad():
        obs = rollout(true, z0) + 0.02 * lib.randn(41, 2, dtype=dt)
    p = lib.tensor([0.8, 0.5, 0.6, 0.3], dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([p], lr=0.02)
    for it in range(6):
        opt.zero_grad()
        traj = rollout(p, z0)
        loss = lib.nn.functional.mse_loss(traj, obs)
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"grad{it}", p.grad)
        opt.step()
    rec("p", p)
    rec("traj_end", traj[-1])


def p_newton(lib, dt, rec):
    """Newton's method on a Rosenbrock-like function with autograd.functional."""
    AF = lib.autograd.functional

    def f(z):
        return (1 - z[0]) ** 2 + 5 * (z[1] - z[0] ** 2) ** 2 + 0.1 * z[2] ** 4 + z[2] ** 2

    z = lib.tensor([-1.2, 1.0, 0.5], dtype=dt)
    for it in range(6):
        g = AF.jacobian(f, z)
        H = AF.hessian(f, z)
        step = lib.linalg.solve(H, g)
        z = z - step
        rec(f"g{it}", g)
        rec(f"H{it}", H)
        rec(f"z{it}", z)

    # vector-valued: Newton on a system F(z) = 0 with the full Jacobian
    def F(z):
        return lib.stack([z[0] ** 2 + z[1] ** 2 - 4, lib.exp(z[0]) + z[1] - 1])

    w = lib.tensor([1.0, -1.5], dtype=dt)
    for it in range(5):
        J = AF.jacobian(F, w)
        w = w - lib.linalg.solve(J, F(w))
        rec(f"w{it}", w)
    v = lib.tensor([1.0, 0.0, -1.0], dtype=dt)
    _, hvp = AF.hvp(f, z, v)
    rec("hvp", hvp)
    _, vhp = AF.vhp(f, z, v)
    rec("vhp", vhp)


def p_lbfgs_fit(lib, dt, rec):
    """Curve fit y = a exp(-b t) cos(w t + phi) with LBFGS and a strong-Wolfe line search."""
    lib.manual_seed(3)
    t = lib.linspace(0, 6, 60, dtype=dt)
    y = 1.5 * lib.exp(-0.3 * t) * lib.cos(2.0 * t + 0.4) + 0.01 * lib.randn(60, dtype=dt)
    theta = lib.tensor([1.0, 0.1, 1.8, 0.0], dtype=dt, requires_grad=True)
    opt = lib.optim.LBFGS([theta], lr=1, max_iter=20, history_size=5,
                          line_search_fn="strong_wolfe")  # fmt: skip
    calls = []

    def closure():
        opt.zero_grad()
        a, b, w, phi = theta.unbind()
        pred = a * lib.exp(-b * t) * lib.cos(w * t + phi)
        loss = (pred - y).pow(2).sum()
        loss.backward()
        calls.append(float(loss))
        return loss

    for it in range(2):
        loss = opt.step(closure)
        rec(f"loss{it}", loss)
        rec(f"theta{it}", theta)
    rec("n_calls", np.asarray(len(calls)))
    rec("calls", calls[:8])
    st = opt.state[theta]
    rec("n_iter", np.asarray(st["n_iter"]))
    rec("func_evals", np.asarray(st["func_evals"]))


def p_func_jacobians(lib, dt, rec):
    """torch.func: per-example Jacobians and gradients of a small model."""
    nn, F = lib.nn, lib.func
    lib.manual_seed(4)
    model = nn.Sequential(nn.Linear(3, 5), nn.Softplus(), nn.Linear(5, 2)).to(dt)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = lib.randn(6, 3, dtype=dt)
    y = lib.randn(6, 2, dtype=dt)

    def fx(xi):
        return F.functional_call(model, params, (xi.unsqueeze(0),)).squeeze(0)

    jac = F.vmap(F.jacrev(fx))(x)
    rec("jac_x", jac)
    jf = F.vmap(F.jacfwd(fx))(x)
    rec("jacfwd_x", jf)

    def loss_p(p, xi, yi):
        out = F.functional_call(model, p, (xi.unsqueeze(0),)).squeeze(0)
        return ((out - yi) ** 2).sum()

    g = F.vmap(F.grad(loss_p), in_dims=(None, 0, 0))(params, x, y)
    for k in sorted(g):
        rec("g." + k, g[k])
    hx = F.vmap(F.hessian(lambda xi: fx(xi).sum()))(x)
    rec("hess_x", hx)
    gr, val = F.grad_and_value(lambda p: loss_p(p, x[0], y[0]))(params)
    rec("g0.weight", gr["0.weight"])
    rec("val", val)


def p_sinkhorn(lib, dt, rec):
    """Entropic optimal transport in log space, gradient of the cost wrt the points."""
    lib.manual_seed(5)
    a_pts = lib.randn(7, 2, dtype=dt, requires_grad=True)
    b_pts = lib.randn(9, 2, dtype=dt) + 1.0
    a = lib.full((7,), 1 / 7, dtype=dt)
    b = lib.softmax(lib.randn(9, dtype=dt), 0)
    eps = 0.1
    C = (a_pts.unsqueeze(1) - b_pts.unsqueeze(0)).pow(2).sum(-1)
    f = lib.zeros(7, dtype=dt)
    g = lib.zeros(9, dtype=dt)
    for _ in range(30):
        f = -eps * lib.logsumexp((g.unsqueeze(0) - C) / eps + b.log().unsqueeze(0), dim=1)
        g = -eps * lib.logsumexp((f.unsqueeze(1) - C) / eps + a.log().unsqueeze(1), dim=0)
    P = lib.exp((f.unsqueeze(1) + g.unsqueeze(0) - C) / eps) * a.unsqueeze(1) * b.unsqueeze(0)
    cost = (P * C).sum()
    cost.backward()
    rec("P", P)
    rec("marg_a", P.sum(1))
    rec("cost", cost)
    rec("grad", a_pts.grad)
    rec("f", f)


def p_langevin_hmc(lib, dt, rec):
    """Unadjusted Langevin and one HMC chain on a 2-D target built from distributions."""
    D = lib.distributions
    lib.manual_seed(6)
    loc = lib.tensor([1.0, -1.0], dtype=dt)
    cov = lib.tensor([[1.0, 0.6], [0.6, 0.5]], dtype=dt)
    target = D.MultivariateNormal(loc, covariance_matrix=cov)
    prior = D.Normal(lib.zeros(2, dtype=dt), 3 * lib.ones(2, dtype=dt))

    def logp(z):
        return target.log_prob(z) + prior.log_prob(z).sum(-1)

    z = lib.zeros(4, 2, dtype=dt)
    step = 0.05
    for _ in range(10):
        z = z.detach().requires_grad_(True)
        (g,) = lib.autograd.grad(logp(z).sum(), z)
        z = z + step * g + math.sqrt(2 * step) * lib.randn_like(z)
    rec("ula", z)
    # HMC with leapfrog and a Metropolis step
    q = lib.zeros(2, dtype=dt)
    accepts = []
    for it in range(5):
        p0 = lib.randn(2, dtype=dt)
        qn, pn = q.clone().requires_grad_(True), p0.clone()
        for _ in range(5):
            (g,) = lib.autograd.grad(logp(qn), qn)
            pn = pn + 0.1 * g / 2
            qn = (qn + 0.1 * pn).detach().requires_grad_(True)
            (g,) = lib.autograd.grad(logp(qn), qn)
            pn = pn + 0.1 * g / 2
        h0 = -logp(q) + 0.5 * p0.pow(2).sum()
        h1 = -logp(qn) + 0.5 * pn.pow(2).sum()
        u = lib.rand((), dtype=dt)
        acc = bool(lib.log(u) < (h0 - h1).detach())
        accepts.append(float(acc))
        if acc:
            q = qn.detach()
        rec(f"h{it}", lib.stack([h0.detach(), h1.detach()]))
    rec("q", q)
    rec("accepts", accepts)
    rec("mvn_entropy", target.entropy())
    rec("mvn_sample", target.rsample((3,)))
    # (gamma sampling draws another stream than torch's: README "Differences from PyTorch")
    conc = lib.tensor([2.0, 0.5], dtype=dt, requires_grad=True)
    gam = D.Gamma(conc, lib.tensor([1.0, 3.0], dtype=dt))
    s = lib.tensor([[0.5, 0.1], [2.0, 0.7], [4.0, 0.02]], dtype=dt)
    lp = gam.log_prob(s)
    lp.sum().backward()
    rec("gamma_lp", lp)
    rec("gamma_dconc", conc.grad)
    rec("gamma_cdf", gam.cdf(s))
    rec("gamma_mean_var", lib.stack([gam.mean, gam.variance]).detach())


def p_option_greeks(lib, dt, rec):
    """Monte-Carlo European/Asian call with pathwise delta and vega."""
    lib.manual_seed(7)
    S0 = lib.tensor(100.0, dtype=dt, requires_grad=True)
    sigma = lib.tensor(0.2, dtype=dt, requires_grad=True)
    r, T, n_steps, n_paths, K = 0.03, 1.0, 12, 2000, 105.0
    dt_ = T / n_steps
    Z = lib.randn(n_paths, n_steps, dtype=dt)
    incr = (r - 0.5 * sigma**2) * dt_ + sigma * math.sqrt(dt_) * Z
    logS = lib.log(S0) + lib.cumsum(incr, dim=1)
    S = lib.exp(logS)
    disc = math.exp(-r * T)
    euro = disc * lib.relu(S[:, -1] - K).mean()
    asian = disc * lib.clamp(S.mean(1) - K, min=0).mean()
    delta, vega = lib.autograd.grad(euro, (S0, sigma), retain_graph=True)
    rec("euro", euro)
    rec("asian", asian)
    rec("delta", delta)
    rec("vega", vega)
    ga = lib.autograd.grad(asian, (S0, sigma))
    rec("asian_greeks", lib.stack(ga))
    with lib.no_grad():
        q = lib.quantile(S[:, -1], lib.tensor([0.05, 0.5, 0.95], dtype=dt))
        rec("quantiles", q)
        rec("var95", S0 - lib.quantile(S[:, -1], 0.05, interpolation="lower"))
        rec("std", S[:, -1].std())
        rec("nanmedian", S[:, -1].median())


def p_least_squares(lib, dt, rec):
    """Kernel ridge and least squares with lstsq, pinv, qr, eigh, svd (gauge-invariant)."""
    lib.manual_seed(8)
    A = lib.randn(20, 4, dtype=dt, requires_grad=True)
    b = lib.randn(20, 2, dtype=dt)
    sol = lib.linalg.lstsq(A, b).solution
    rec("lstsq", sol)
    rec("pinv_sol", lib.linalg.pinv(A) @ b)
    Q, R = lib.linalg.qr(A)
    x_qr = lib.linalg.solve_triangular(R, Q.T @ b, upper=True)
    rec("qr_sol", x_qr)
    rec("QQt", Q @ Q.T)
    (sol.pow(2).sum() + x_qr.pow(2).sum()).backward()
    rec("gradA", A.grad)
    G = A.detach().T @ A.detach()
    G.requires_grad_(True)
    evals, evecs = lib.linalg.eigh(G)
    proj = evecs[:, -1:] @ evecs[:, -1:].T
    loss = evals.sum() + evals[-1] * 0.5 + proj.pow(3).sum()
    loss.backward()
    rec("evals", evals)
    rec("proj", proj)
    rec("gradG", G.grad)
    X = lib.randn(6, 5, dtype=dt, requires_grad=True)
    S = lib.linalg.svdvals(X)
    U, S2, Vh = lib.linalg.svd(X, full_matrices=False)
    recon = U @ lib.diag(S2) @ Vh
    (S.sum() + recon.pow(2).sum() + S2[0] * 2).backward()
    rec("svdvals", S)
    rec("recon", recon)
    rec("gradX", X.grad)
    rec("nuc", lib.linalg.matrix_norm(X.detach(), ord="nuc"))
    rec("cond", lib.linalg.cond(X.detach()[:5]))
    rec("rank", lib.linalg.matrix_rank(X.detach()).to(lib.float64))
    # kernel ridge
    Xk = lib.randn(15, 3, dtype=dt)
    yk = lib.randn(15, dtype=dt)
    lam = lib.tensor(0.1, dtype=dt, requires_grad=True)
    Kk = lib.exp(-(lib.cdist(Xk, Xk) ** 2))
    alpha = lib.linalg.solve(Kk + lam * lib.eye(15, dtype=dt), yk)
    loo = (alpha / lib.linalg.inv(Kk + lam * lib.eye(15, dtype=dt)).diagonal()).pow(2).mean()
    loo.backward()
    rec("loo", loo)
    rec("dlam", lam.grad)


def p_spring_mass(lib, dt, rec):
    """Periodic chain of springs by roll; symplectic Euler; finite differences by conv1d."""
    F = lib.nn.functional
    lib.manual_seed(9)
    n = 16
    k = lib.tensor(2.0, dtype=dt, requires_grad=True)
    damp = lib.tensor(0.05, dtype=dt, requires_grad=True)
    x = 0.1 * lib.randn(n, dtype=dt)
    v = lib.zeros(n, dtype=dt)
    energies = []
    for _ in range(30):
        force = k * (lib.roll(x, 1) + lib.roll(x, -1) - 2 * x) - damp * v
        v = v + 0.1 * force
        x = x + 0.1 * v
        energies.append(0.5 * v.pow(2).sum() + 0.5 * k * (lib.roll(x, -1) - x).pow(2).sum())
    E = lib.stack(energies)
    com = lib.cumsum(x, 0) / lib.arange(1, n + 1, dtype=dt)
    loss = E[-1] + com.pow(2).sum()
    loss.backward()
    rec("E", E)
    rec("com", com)
    rec("dk", k.grad)
    rec("ddamp", damp.grad)
    # Laplacian stencil on a 1-D field with different boundary conditions
    u = lib.sin(lib.linspace(0, 2 * math.pi, 33, dtype=dt))[:-1].requires_grad_(True)
    stencil = lib.tensor([[[1.0, -2.0, 1.0]]], dtype=dt)
    h = 2 * math.pi / 32
    for mode in ("circular", "reflect", "replicate", "constant"):
        up = F.pad(u.view(1, 1, -1), (1, 1), mode=mode)
        lap = F.conv1d(up, stencil) / h**2
        rec("lap_" + mode, lap[0, 0, :5])
        rec("lap_sh_" + mode, str(tuple(lap.shape)))
    lap = F.conv1d(F.pad(u.view(1, 1, -1), (1, 1), mode="circular"), stencil) / h**2
    (lap.pow(2).mean()).backward()
    rec("du", u.grad)
    rec("diff", lib.diff(u.detach(), n=2, prepend=u.detach()[-1:], append=u.detach()[:1]) / h**2)
    rec("gradient", lib.gradient(u.detach(), spacing=h)[0])


def p_quadrature_vander(lib, dt, rec):
    """Trapezoid integrals and a polynomial fit through vander."""
    lib.manual_seed(10)
    w = lib.tensor(1.3, dtype=dt, requires_grad=True)
    x = lib.linspace(0, 2, 41, dtype=dt)
    f = lib.exp(-w * x) * lib.sin(3 * x)
    integral = lib.trapezoid(f, x)
    C = lib.cumulative_trapezoid(f, x)
    I2 = lib.trapezoid(f, dx=0.05)
    (integral + C.sum() + I2).backward()
    rec("I", integral)
    rec("C", C[::8])
    rec("dw", w.grad)
    rec("simpson_like", lib.trapezoid(lib.stack([f, 2 * f]).detach(), x, dim=1))
    xs = lib.linspace(-1, 1, 30, dtype=dt)
    ys = 1 - 2 * xs + 0.5 * xs**3 + 0.01 * lib.randn(30, dtype=dt)
    V = lib.vander(xs, N=4)
    rec("V", V[:3])
    coef = lib.linalg.lstsq(V, ys.unsqueeze(1)).solution.squeeze(1)
    rec("coef", coef)
    Vi = lib.vander(xs, N=4, increasing=True)
    c2 = lib.linalg.solve(Vi.T @ Vi, Vi.T @ ys)
    rec("coef_inc", c2)
    rec("polyval", lib.linalg.vander(xs[:3], N=4) @ c2)


def p_bisection(lib, dt, rec):
    """Vectorised bisection with where for implied volatility and the Kepler equation."""
    s = lib.linspace(0.5, 2.5, 9, dtype=dt)
    lo, hi = lib.zeros_like(s), lib.full_like(s, 10.0)
    for _ in range(40):
        mid = (lo + hi) / 2
        fm = mid - 0.5 * lib.sin(mid) - s  # Kepler: E - e sin E = M
        lo = lib.where(fm < 0, mid, lo)
        hi = lib.where(fm < 0, hi, mid)
    E = (lo + hi) / 2
    rec("kepler", E)
    rec("resid", E - 0.5 * lib.sin(E) - s)
    # implicit gradient dE/dM = 1 / (1 - e cos E) through one Newton correction
    M = s.clone().requires_grad_(True)
    E1 = E - (E - 0.5 * lib.sin(E) - M) / (1 - 0.5 * lib.cos(E))
    E1.sum().backward()
    rec("dEdM", M.grad)
    norm = lib.distributions.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt))

    def bs(vol, K):
        d1 = (math.log(100.0) - lib.log(K) + 0.5 * vol**2) / vol
        return 100.0 * norm.cdf(d1) - K * norm.cdf(d1 - vol)

    K = lib.tensor([80.0, 100.0, 120.0], dtype=dt)
    target = lib.tensor([22.0, 8.0, 2.5], dtype=dt)
    lo, hi = lib.full_like(K, 1e-3), lib.full_like(K, 3.0)
    for _ in range(45):
        mid = 0.5 * (lo + hi)
        too_low = bs(mid, K) < target
        lo, hi = lib.where(too_low, mid, lo), lib.where(too_low, hi, mid)
    rec("iv", 0.5 * (lo + hi))
    rec("isin", lib.isin(lib.tensor([1, 5, 7]), lib.tensor([5, 6, 7])).to(lib.int64))


def p_count_likelihood(lib, dt, rec):
    """Poisson / negative-binomial / beta likelihoods with special functions."""
    lib.manual_seed(11)
    k = lib.tensor([0.0, 1.0, 3.0, 2.0, 7.0, 0.0, 4.0], dtype=dt)
    log_mu = lib.tensor(0.5, dtype=dt, requires_grad=True)
    log_r = lib.tensor(1.0, dtype=dt, requires_grad=True)
    mu, r = log_mu.exp(), log_r.exp()
    pois = (lib.xlogy(k, mu) - mu - lib.lgamma(k + 1)).sum()
    nb = (lib.lgamma(k + r) - lib.lgamma(r) - lib.lgamma(k + 1) + r * lib.log(r / (r + mu))
          + lib.special.xlogy(k, mu / (r + mu))).sum()  # fmt: skip
    (pois + nb).backward()
    rec("pois", pois)
    rec("nb", nb)
    rec("dmu", log_mu.grad)
    rec("dr", log_r.grad)
    rec("pois_dist", lib.distributions.Poisson(mu.detach()).log_prob(k).sum())
    rec("nb_dist", lib.distributions.NegativeBinomial(
        total_count=r.detach(), logits=(mu / r).log().detach()).log_prob(k).sum())  # fmt: skip
    a = lib.tensor(2.5, dtype=dt, requires_grad=True)
    dg = lib.digamma(a) - lib.lgamma(a)
    dg.backward()
    rec("digamma", dg)
    rec("da~", a.grad)
    # torch's trigamma is less accurate (~5e-10): tools/fuzz/README.md
    rec("trigamma~", lib.special.polygamma(1, a.detach()))
    z = lib.linspace(-2, 2, 7, dtype=dt, requires_grad=True)
    phi = 0.5 * (1 + lib.erf(z / math.sqrt(2)))
    back = lib.erfinv(2 * phi - 1) * math.sqrt(2)
    tail = lib.special.log_ndtr(z) + lib.special.ndtri(lib.sigmoid(z))
    (back.sum() + phi.sum() + tail.sum() + lib.erfc(z).sum()).backward()
    rec("back", back)
    rec("tail", tail)
    rec("dz", z.grad)
    kappa = lib.tensor([0.5, 2.0, 8.0], dtype=dt, requires_grad=True)
    vm = lib.log(2 * math.pi * lib.i0(kappa)) - lib.special.i1e(kappa) / lib.special.i0e(kappa)
    vm.sum().backward()
    rec("vm", vm)
    rec("dkappa", kappa.grad)
    rec(
        "lbeta",
        lib.special.gammaln(kappa.detach()) + lib.special.multigammaln(kappa.detach() + 2, 2),
    )
    rec("entr", lib.special.entr(lib.softmax(kappa.detach(), 0)))


def p_matrix_exp_ode(lib, dt, rec):
    """Linear ODE x' = A x solved by matrix_exp; fit A's damping by gradient descent."""
    lib.manual_seed(12)
    c = lib.tensor(0.3, dtype=dt, requires_grad=True)
    om = lib.tensor(1.5, dtype=dt, requires_grad=True)
    x0 = lib.tensor([1.0, 0.0], dtype=dt)
    ts = lib.linspace(0, 4, 9, dtype=dt)
    obs = lib.randn(9, 2, dtype=dt) * 0.05
    opt = lib.optim.SGD([c, om], lr=0.05, momentum=0.9)
    for it in range(5):
        opt.zero_grad()
        zero = lib.zeros((), dtype=dt)
        one = lib.ones((), dtype=dt)
        A = lib.stack([lib.stack([zero, one]), lib.stack([-(om**2), -2 * c * om])])
        Phi = lib.linalg.matrix_exp(ts.view(-1, 1, 1) * A)
        traj = Phi @ x0
        loss = (traj - obs).pow(2).sum()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"grads{it}", lib.stack([c.grad, om.grad]))
        opt.step()
    rec("traj", traj)
    rec("trace", lib.trace(A.detach()))
    rec("det", lib.linalg.det(Phi.detach()))
    rec("kron", lib.kron(A.detach(), lib.eye(2, dtype=dt)))


def p_mistakes(lib, dt, rec):
    """Errors users hit: non-PD cholesky, singular solve, shape mismatches."""
    bad = lib.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dt)
    rec.err("chol_nonpd", lambda: lib.linalg.cholesky(bad))
    rec.err(
        "chol_nonpd_batch", lambda: lib.linalg.cholesky(lib.stack([lib.eye(2, dtype=dt), bad]))
    )
    rec.err("chol_nonsq", lambda: lib.linalg.cholesky(lib.ones(2, 3, dtype=dt)))
    L, info = lib.linalg.cholesky_ex(bad)
    rec("chol_ex_info", info)
    sing = lib.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=dt)
    rec.err("solve_sing", lambda: lib.linalg.solve(sing, lib.ones(2, dtype=dt)))
    rec.err("inv_sing", lambda: lib.linalg.inv(sing))
    rec.err("solve_shape", lambda: lib.linalg.solve(lib.eye(3, dtype=dt), lib.ones(2, dtype=dt)))
    rec.err("matmul_shape", lambda: lib.ones(3, 4, dtype=dt) @ lib.ones(3, 4, dtype=dt))
    rec.err("cdist_dim", lambda: lib.cdist(lib.ones(3, 2, dtype=dt), lib.ones(4, 3, dtype=dt)))
    rec.err(
        "tri_shape",
        lambda: lib.linalg.solve_triangular(
            lib.eye(3, dtype=dt), lib.ones(3, dtype=dt), upper=True
        ),
    )
    rec.err(
        "tri_kw",
        lambda: lib.linalg.solve_triangular(lib.eye(3, dtype=dt), lib.ones(3, 1, dtype=dt)),
    )
    rec.err(
        "lstsq_rows", lambda: lib.linalg.lstsq(lib.ones(4, 2, dtype=dt), lib.ones(3, dtype=dt))
    )
    rec.err(
        "dtype_mix", lambda: lib.linalg.solve(lib.eye(2, dtype=dt), lib.ones(2, dtype=lib.int64))
    )
    rec.err("int_chol", lambda: lib.linalg.cholesky(lib.eye(2, dtype=lib.int64)))
    rec.err("det_nonsq", lambda: lib.linalg.det(lib.ones(2, 3, dtype=dt)))
    rec.err("eigh_1d", lambda: lib.linalg.eigh(lib.ones(3, dtype=dt)))
    rec.err("trapz_shape", lambda: lib.trapezoid(lib.ones(5, dtype=dt), lib.ones(4, dtype=dt)))
    rec.err("quantile_q", lambda: lib.quantile(lib.ones(5, dtype=dt), 1.5))
    rec.err("quantile_int", lambda: lib.quantile(lib.ones(5, dtype=lib.int64), 0.5))
    rec.err("vander_2d", lambda: lib.vander(lib.ones(2, 2, dtype=dt)))
    rec.err(
        "grad_nonscalar",
        lambda: lib.autograd.grad(
            lib.ones(3, dtype=dt, requires_grad=True) * 2, lib.ones(3, dtype=dt, requires_grad=True)
        ),  # fmt: skip
    )
    x = lib.ones(3, dtype=dt, requires_grad=True)
    rec.err(
        "grad_unused",
        lambda: lib.autograd.grad((x * 2).sum(), [x, lib.ones(2, dtype=dt, requires_grad=True)]),
    )
    rec.err(
        "cholesky_solve_shape",
        lambda: lib.cholesky_solve(lib.ones(3, dtype=dt), lib.eye(3, dtype=dt)),
    )
    rec.err(
        "mvn_not_pd", lambda: lib.distributions.MultivariateNormal(lib.zeros(2, dtype=dt), bad)
    )
    rec.err(
        "normal_neg",
        lambda: lib.distributions.Normal(lib.zeros(2, dtype=dt), -lib.ones(2, dtype=dt)),
    )
    rec.err("logsumexp_nodim", lambda: lib.logsumexp(lib.ones(3, dtype=dt)))


PROGRAMS = [
    "gp_regression", "pinn", "lotka_volterra", "newton", "lbfgs_fit", "func_jacobians",
    "sinkhorn", "langevin_hmc", "option_greeks", "least_squares", "spring_mass",
    "quadrature_vander", "bisection", "count_likelihood", "matrix_exp_ode", "mistakes",
]  # fmt: skip


# float32 L-BFGS with a strong-Wolfe search amplifies round-off (torch's own run moves as much
# when theta0 is perturbed by 1e-7; the float64 run agrees)
SKIP = {("lbfgs_fit", "float32")}
# float32 round-off amplified by the program itself: Sinkhorn's exp((f + g - C) / eps) with
# eps = 0.1, and a twice-applied Laplacian stencil divided by h**4 (torch's own float32 values
# are as far from its float64 run of the same data)
LOOSE32 = {("sinkhorn", "grad"): 1e-3, ("spring_mass", "du"): 1e-3}
# the GP's later marginal likelihoods are ~0.04, the sum of terms near 23 (0.5 y^T K^-1 y,
# log det L, 25/2 log 2 pi): float32's round-off of those terms (~5e-6) is ~1e-4 of the result
# whenever a gradient's last bit moves Adam's path (a division's, grouped as torch groups it)
LOOSE32.update({("gp_regression", f"nll{i}"): 1e-3 for i in range(15)})


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    if (name, dt) in SKIP:
        pytest.skip("float32 round-off amplified")
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True, first_line=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True, first_line=True))
    tol0 = 1e-10 if dt == "float64" else 1e-4

    def tol(n, a):
        # a name ending in "~" holds a value torch computes less accurately (see the program)
        t = max(tol0, 1e-8) if n.endswith("~") else tol0
        return LOOSE32.get((name, n), t) if dt == "float32" else t

    assert_records_match(want, got, tol)
