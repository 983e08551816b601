"""Session 29 (helper opt): numerical optimisation written by hand in torch, the way optimisation
courses and research code write it, run under torch and minitorch with the same seeds and compared
record by record: proximal gradient for the lasso (soft-thresholding, softshrink, matrix 2-norm
step sizes), projections onto boxes, l2/l-inf balls (clamp/clamp_ with tensor bounds) and the
simplex (sort/cumsum/gather, against bisection, its gradient), FISTA with adaptive restarts and a
backtracking ISTA, ADMM for the lasso (cholesky, cholesky_solve, solve_triangular,
lu_factor/lu_solve, cholesky_ex info) and total-variation denoising (diff matrices, conv2d
differences under Nesterov SGD), Frank-Wolfe with exact line search, one_hot vertices, away steps
and an l1-ball LMO, mirror descent / exponentiated gradient for matrix games (softmax, log_softmax,
logsumexp, kl_div, xlogy, entr), conjugate gradient and Newton-CG with Hessian-vector products
(autograd.grad with create_graph, autograd.functional hvp/vhp/hessian, func jvp-of-grad and
vjp-of-grad, func.hessian), Steihaug-CG trust regions and the exact More-Sorensen subproblem
(eigh, eigvalsh gradients, cond, slogdet, ldl_factor), L-BFGS by the two-loop recursion and
torch.optim.LBFGS with strong Wolfe (its state: n_iter, func_evals, d, t, old_dirs, old_stps, ro,
al, H_diag, prev_flat_grad; state_dict round trip; a small network), Gauss-Newton and
Levenberg-Marquardt with autograd.functional.jacobian (vectorize, forward-mode), lstsq, pinv and
parameter covariances, a primal-dual interior-point LP (cholesky_ex normal equations, fraction to
the boundary) and a log-barrier QP (solve, solve_ex, inv_ex), log-domain and kernel Sinkhorn with
gradients through unrolled iterations and an unbalanced variant, bilevel ridge tuning by implicit
differentiation against unrolled and closed-form hypergradients, zeroth-order estimators
(antithetic Gaussian, sphere, SPSA, coordinate differences; Generator streams), SVRG and SAG with
per-sample gradients by vmap(grad) and gradient clipping, coordinate descent for the elastic net,
IRLS, NNLS by masked writes, Nelder-Mead, Dykstra's projections, every torch.optim class on a
quadratic (SGD nesterov/dampening/maximize, Adagrad lr_decay, Rprop etas and step sizes, ASGD,
NAdam momentum_decay, RAdam/NAdam decoupled weight decay, Adamax, Adadelta, centered RMSprop,
AMSGrad) with their states, LR schedulers (ReduceLROnPlateau min/max with cooldown and min_lr,
LinearLR+CosineAnnealingLR in SequentialLR, PolynomialLR, OneCycleLR, CyclicLR exp_range, SWALR,
AveragedModel and EMA), optimizer hooks and errors/reprs, a hand-written Adam with _foreach ops,
lerp_ and addcdiv_ against torch.optim.Adam, meta-learned step sizes, the subgradients torch picks
at kinks (abs, relu, clamp, max/amax/median ties, norms at zero, cdist/pdist of equal points,
prod with zeros), the batched solvers' right-hand-side shapes, and the autograd mistakes
optimisation loops make. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
texts exactly. No library difference was found in this domain.

Known and left (documented):
- float32 sqrt can be an ulp off torch's (a 0-d tensor's too: Adam's bias correction from float32
  tensor betas differs by that ulp) and float32 sums differ in the last bits (summation order).
- torch's CPU add/sub with alpha (p.add_(d, alpha=t), as LBFGS and most optimizers step) is one
  fused multiply-add on its vectorised path, rounded once; minitorch's rounds t * d first, so the
  two can be an ulp apart. Ill-conditioned iterations (Rosenbrock's valley, L-BFGS curvature pairs
  near convergence, accept/reject tests at rounding level) amplify that ulp: the programs use a
  shallow valley, stop before convergence noise, and take wide finite-difference steps in float32.
- The index kthvalue reports among tied values is torch's quickselect's (unspecified): the
  programs avoid ties there.
- vmap runs its function once per sample (documented in minitorch.func.vmap), so .item() and
  data-dependent `if` inside a vmapped step run here where torch's vmap raises: not recorded."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "prox_lasso", "fista_restart", "simplex_proj", "admm_lasso", "admm_tv", "frank_wolfe",
    "mirror_descent", "cg_newton", "steihaug", "lbfgs_hand", "lbfgs_torch", "gauss_newton_lm",
    "interior_lp", "interior_qp", "sinkhorn", "bilevel", "zeroth_order", "svrg_sag",
    "optim_classes", "schedulers", "optim_errors", "subgradients", "differentiable_optim",
    "trust_exact", "coord_descent", "nelder_mead", "dykstra", "lbfgs_module",
    "functional_tools", "swa_cycles", "solve_shapes", "autograd_mistakes",
]  # fmt: skip


# float32 programs whose last bits follow the CPU's kernels (AVX2 or AVX-512 summation orders,
# iterated): compared to 1e-3 of scale in float32
_WIDE_FLOAT32 = {"lbfgs_hand"}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-3 if dt == "float32" and name in _WIDE_FLOAT32 else None
    assert_program_matches(globals()["p_" + name], torch, dt, tol)


# --- helpers ---


def _lsq(lib, dt, m=30, n=12, seed=0):
    g = lib.Generator().manual_seed(seed)
    A = lib.randn(m, n, generator=g, dtype=dt)
    x0 = lib.zeros(n, dtype=dt)
    x0[::3] = lib.randn(len(range(0, n, 3)), generator=g, dtype=dt)
    b = A @ x0 + 0.01 * lib.randn(m, generator=g, dtype=dt)
    return A, b, x0


def _soft(lib, x, t):
    return lib.sign(x) * lib.clamp(x.abs() - t, min=0)


def _proj_simplex(lib, v, z=1.0):
    """Euclidean projection onto {x >= 0, sum x = z} along the last dim (sort / cumsum)."""
    u, _ = lib.sort(v, dim=-1, descending=True)
    css = lib.cumsum(u, dim=-1) - z
    ind = lib.arange(1, v.shape[-1] + 1, dtype=v.dtype, device=v.device)
    cond = u - css / ind > 0
    rho = (cond * ind).argmax(dim=-1, keepdim=True)
    theta = css.gather(-1, rho) / (rho + 1).to(v.dtype)
    return lib.clamp(v - theta, min=0)


def _rosen(x, a=100.0):
    return (a * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def _mild(x):
    """A Rosenbrock valley shallow enough that float32 rounding is not amplified into other
    accept/reject decisions."""
    return _rosen(x, 5.0) + 0.1 * (x**4).sum()


# --- the programs: each takes the library, a dtype and a recorder ---


def p_prox_lasso(lib, dt, rec):
    A, b, x0 = _lsq(lib, dt)
    L = lib.linalg.matrix_norm(A, ord=2) ** 2
    rec("L", L)
    lam = 0.5
    x = lib.zeros(A.shape[1], dtype=dt)
    hist = []
    for _ in range(60):
        g = A.T @ (A @ x - b)
        x = _soft(lib, x - g / L, lam / L)
        hist.append(0.5 * (A @ x - b).pow(2).sum() + lam * x.norm(p=1))
    rec("hist", lib.stack(hist))
    rec("x", x)
    rec("nnz", (x != 0).sum())
    rec("support", lib.nonzero(x).flatten())
    rec("F.softshrink", lib.nn.functional.softshrink(x - A.T @ (A @ x - b) / L, lam / L.item()))
    # box-constrained least squares by projected gradient with clamp and a tensor bound
    lo = -0.3 * lib.ones(A.shape[1], dtype=dt)
    hi = lib.full((A.shape[1],), 0.4, dtype=dt)
    y = lib.zeros_like(x)
    for _ in range(40):
        y = lib.clamp(y - A.T @ (A @ y - b) / L, lo, hi)
    rec("box", y)
    rec("active", ((y == lo) | (y == hi)).nonzero().squeeze(1))
    # l2-ball projection
    r = 0.5
    z = lib.zeros_like(x)
    for _ in range(40):
        z = z - A.T @ (A @ z - b) / L
        z = z * lib.clamp(r / z.norm(), max=1.0)
    rec("ball", z)
    rec("ball_norm", z.norm())
    # l-inf ball via clamp_ in place under no_grad
    w = lib.zeros_like(x, requires_grad=True)
    for _ in range(30):
        loss = 0.5 * (A @ w - b).square().sum()
        (gw,) = lib.autograd.grad(loss, w)
        with lib.no_grad():
            w.sub_(gw / L).clamp_(-0.2, 0.2)
    rec("linf", w)


def p_fista_restart(lib, dt, rec):
    A, b, x0 = _lsq(lib, dt, m=40, n=20, seed=1)
    lam = 0.3
    L = (lib.linalg.svdvals(A)[0]) ** 2
    rec("L", L)

    def F(x):
        return 0.5 * lib.sum((A @ x - b) ** 2) + lam * lib.linalg.vector_norm(x, 1)

    x = lib.zeros(A.shape[1], dtype=dt)
    y = x.clone()
    t = 1.0
    hist, restarts = [], []
    for k in range(80):
        g = A.T @ (A @ y - b)
        x_new = _soft(lib, y - g / L, lam / L)
        # gradient-based adaptive restart (O'Donoghue & Candes)
        if lib.dot(y - x_new, x_new - x) > 0:
            t = 1.0
            restarts.append(k)
        t_new = (1 + math.sqrt(1 + 4 * t * t)) / 2
        y = x_new + ((t - 1) / t_new) * (x_new - x)
        x, t = x_new, t_new
        hist.append(F(x))
    rec("hist", lib.stack(hist))
    rec("restarts", str(restarts[:5]))
    rec("x", x)
    # ISTA reference and a backtracking line search
    xi = lib.zeros_like(x)
    Lk = 1.0
    evals = 0
    for _ in range(30):
        g = A.T @ (A @ xi - b)
        f0 = 0.5 * (A @ xi - b).pow(2).sum()
        while True:
            evals += 1
            z = _soft(lib, xi - g / Lk, lam / Lk)
            d = z - xi
            if 0.5 * (A @ z - b).pow(2).sum() <= f0 + g @ d + Lk / 2 * d @ d:
                break
            Lk *= 2.0
        xi = z
    rec("ista", xi)
    rec("Lk", Lk)
    rec("evals", evals)
    rec("gap", F(xi) - F(x))


def p_simplex_proj(lib, dt, rec):
    g = lib.Generator().manual_seed(3)
    V = lib.randn(5, 7, generator=g, dtype=dt) * 2
    P = _proj_simplex(lib, V)
    rec("P", P)
    rec("sums", P.sum(-1))
    rec("min", P.min())
    # against a bisection on the threshold
    lo = V.min(-1, keepdim=True).values - 1
    hi = V.max(-1, keepdim=True).values
    for _ in range(60):
        mid = (lo + hi) / 2
        s = (V - mid).clamp(min=0).sum(-1, keepdim=True)
        lo = lib.where(s > 1, mid, lo)
        hi = lib.where(s > 1, hi, mid)
    Q = (V - (lo + hi) / 2).clamp_min(0)
    rec("bisect_err", (P - Q).abs().max() < 1e-6)
    # projection onto a scaled simplex and the l1 ball
    v = lib.randn(9, generator=g, dtype=dt)
    rec("scaled", _proj_simplex(lib, v, z=3.0))
    u = _proj_simplex(lib, v.abs(), z=1.0)
    l1 = lib.sign(v) * u if v.abs().sum() > 1 else v
    rec("l1ball", l1)
    # gradient through the projection (piecewise linear)
    w = v.clone().requires_grad_()
    p = _proj_simplex(lib, w)
    (p * lib.arange(9, dtype=dt)).sum().backward()
    rec("grad", w.grad)
    # projected gradient on the simplex for a quadratic
    M = lib.randn(6, 6, generator=g, dtype=dt)
    Q2 = M @ M.T + lib.eye(6, dtype=dt)
    c = lib.randn(6, generator=g, dtype=dt)
    x = lib.full((6,), 1 / 6, dtype=dt)
    step = 1 / lib.linalg.eigvalsh(Q2).max()
    for _ in range(100):
        x = _proj_simplex(lib, x - step * (Q2 @ x + c))
    rec("qp", x)
    rec("obj", 0.5 * x @ Q2 @ x + c @ x)
    rec("eigvalsh", lib.linalg.eigvalsh(Q2))


def p_admm_lasso(lib, dt, rec):
    A, b, _ = _lsq(lib, dt, m=25, n=10, seed=2)
    lam, rho = 0.4, 1.0
    n = A.shape[1]
    AtA = A.T @ A
    Atb = A.T @ b
    Lc = lib.linalg.cholesky(AtA + rho * lib.eye(n, dtype=dt))
    x = lib.zeros(n, dtype=dt)
    z = lib.zeros(n, dtype=dt)
    u = lib.zeros(n, dtype=dt)
    rs, ss = [], []
    for _ in range(50):
        q = Atb + rho * (z - u)
        x = lib.cholesky_solve(q.unsqueeze(1), Lc).squeeze(1)
        z_old = z
        z = _soft(lib, x + u, lam / rho)
        u = u + x - z
        rs.append(lib.linalg.norm(x - z))
        ss.append(lib.linalg.norm(-rho * (z - z_old)))
    rec("r", lib.stack(rs))
    rec("s", lib.stack(ss))
    rec("z", z)
    # the same x-update through solve_triangular and lu_factor/lu_solve
    q = (Atb + rho * (z - u)).unsqueeze(1)
    y = lib.linalg.solve_triangular(Lc, q, upper=False)
    x2 = lib.linalg.solve_triangular(Lc.mT, y, upper=True)
    LU, piv = lib.linalg.lu_factor(AtA + rho * lib.eye(n, dtype=dt))
    x3 = lib.linalg.lu_solve(LU, piv, q)
    rec("x2", x2)
    rec("x3", x3)
    rec("piv", piv)
    # cholesky_ex reports success; an indefinite matrix gives info > 0
    _, info = lib.linalg.cholesky_ex(AtA)
    rec("info", info)
    _, info2 = lib.linalg.cholesky_ex(AtA - 100 * lib.eye(n, dtype=dt))
    rec("info2", info2)
    rec("err", rec.err("chol", lambda: lib.linalg.cholesky(-lib.eye(3, dtype=dt))))


def p_admm_tv(lib, dt, rec):
    g = lib.Generator().manual_seed(4)
    n = 40
    t = lib.linspace(0, 1, n, dtype=dt)
    clean = (t > 0.3).to(dt) - 0.5 * (t > 0.7).to(dt)
    y = clean + 0.1 * lib.randn(n, generator=g, dtype=dt)
    D = lib.diff(lib.eye(n, dtype=dt), dim=0)
    rec("D", D[:3, :5])
    lam, rho = 0.3, 2.0
    M = lib.eye(n, dtype=dt) + rho * D.T @ D
    x = y.clone()
    z = D @ x
    u = lib.zeros_like(z)
    hist = []
    for _ in range(60):
        x = lib.linalg.solve(M, y + rho * D.T @ (z - u))
        z = _soft(lib, D @ x + u, lam / rho)
        u += D @ x - z
        hist.append(0.5 * (x - y).pow(2).sum() + lam * lib.diff(x).abs().sum())
    rec("hist", lib.stack(hist))
    rec("x", x)
    rec("jumps", (lib.diff(x).abs() > 0.05).sum())
    # 2-D anisotropic TV by a few gradient steps on a smoothed TV with conv2d differences
    img = lib.zeros(1, 1, 12, 12, dtype=dt)
    img[..., 3:8, 4:9] = 1.0
    noisy = img + 0.2 * lib.randn(img.shape, generator=g, dtype=dt)
    kx = lib.tensor([[[[-1.0, 1.0]]]], dtype=dt)
    ky = kx.transpose(-1, -2)
    u2 = noisy.clone().requires_grad_()
    opt = lib.optim.SGD([u2], lr=0.05, momentum=0.9, nesterov=True)
    eps = 1e-2
    for _ in range(25):
        opt.zero_grad()
        gx = lib.nn.functional.conv2d(u2, kx)
        gy = lib.nn.functional.conv2d(u2, ky)
        tv = lib.sqrt(gx**2 + eps).sum() + lib.sqrt(gy**2 + eps).sum()
        loss = 0.5 * (u2 - noisy).pow(2).sum() + 0.2 * tv
        loss.backward()
        opt.step()
    rec("tv_loss", loss)
    rec("u2", u2[0, 0, 2:6, 2:6])
    rec("mom", opt.state[u2]["momentum_buffer"].abs().sum())


def p_frank_wolfe(lib, dt, rec):
    g = lib.Generator().manual_seed(5)
    n = 8
    M = lib.randn(n, n, generator=g, dtype=dt)
    Q = M.T @ M / n + 0.1 * lib.eye(n, dtype=dt)
    c = lib.randn(n, generator=g, dtype=dt)
    x = lib.zeros(n, dtype=dt)
    x[0] = 1.0
    gaps = []
    for _ in range(50):
        grad = Q @ x + c
        i = lib.argmin(grad)
        s = lib.nn.functional.one_hot(i, n).to(dt)
        d = s - x
        gap = -(grad @ d)
        gaps.append(gap)
        # exact line search for a quadratic, clipped to [0, 1]
        gamma = lib.clamp(gap / (d @ Q @ d), 0.0, 1.0)
        x = x + gamma * d
    rec("gaps", lib.stack(gaps))
    rec("x", x)
    rec("f", 0.5 * x @ Q @ x + c @ x)
    # away-step variant bookkeeping with scatter_add and where
    active = lib.zeros(n, dtype=dt).scatter_add(
        0, lib.tensor([0, 2, 2, 5]), lib.tensor([0.25, 0.25, 0.25, 0.25], dtype=dt)
    )
    grad = Q @ active + c
    away = lib.where(active > 0, grad, lib.full_like(grad, -math.inf)).argmax()
    rec("away", away)
    rec("active", active)
    # l1-ball LMO (sparse vertices) via topk on |grad|
    y = lib.zeros(n, dtype=dt)
    for k in range(30):
        gr = Q @ y + c
        val, idx = gr.abs().topk(1)
        s = lib.zeros(n, dtype=dt).index_fill(0, idx, 1.0) * -lib.sign(gr[idx]) * 2.0
        y = y + 2.0 / (k + 2.0) * (s - y)
    rec("l1", y)


def p_mirror_descent(lib, dt, rec):
    g = lib.Generator().manual_seed(6)
    m, n = 6, 5
    C = lib.rand(m, n, generator=g, dtype=dt)
    # exponentiated gradient for a zero-sum matrix game (both players on the simplex)
    x = lib.full((m,), 1.0 / m, dtype=dt)
    y = lib.full((n,), 1.0 / n, dtype=dt)
    xs = lib.zeros_like(x)
    ys = lib.zeros_like(y)
    eta = 0.5
    for _ in range(100):
        gx = C @ y
        gy = -(C.T @ x)
        x = lib.softmax(lib.log(x) - eta * gx, dim=0)
        y = y * lib.exp(-eta * gy)
        y = y / y.sum()
        xs += x
        ys += y
    xs /= 100
    ys /= 100
    rec("x", xs)
    rec("y", ys)
    rec("duality_gap", (C.T @ xs).max() - (C @ ys).min())
    rec("entropy", -(xs * xs.log()).sum())
    rec("kl", lib.nn.functional.kl_div(xs.log(), x, reduction="sum"))
    # log-domain mirror step via log_softmax and logsumexp
    w = lib.zeros(n, dtype=dt)
    for _ in range(20):
        p = lib.log_softmax(w, 0).exp()
        w = w - 0.3 * (C.T @ lib.ones(m, dtype=dt) / m - (C.T.mean(1) @ p))
    rec("w", w - lib.logsumexp(w, 0))
    rec("xlogy", lib.special.xlogy(xs, xs).sum())
    rec("entr", lib.special.entr(ys).sum())


def p_cg_newton(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    n = 10
    M = lib.randn(n, n, generator=g, dtype=dt)
    A = M @ M.T + n * lib.eye(n, dtype=dt)
    b = lib.randn(n, generator=g, dtype=dt)

    def cg(mv, b, iters, tol=1e-12):
        x = lib.zeros_like(b)
        r = b.clone()
        p = r.clone()
        rs = r @ r
        res = []
        for _ in range(iters):
            Ap = mv(p)
            alpha = rs / (p @ Ap)
            x = x + alpha * p
            r = r - alpha * Ap
            rs_new = r @ r
            res.append(rs_new.sqrt())
            if rs_new.sqrt() < tol:
                break
            p = r + (rs_new / rs) * p
            rs = rs_new
        return x, res

    x, res = cg(lambda v: A @ v, b, 25, tol=1e-12 if dt == lib.float64 else 1e-3)
    rec("cg", x)
    rec("cg_iters", len(res))
    rec("cg_res", lib.stack(res[:6]))
    rec("solve", lib.linalg.solve(A, b))

    # Newton-CG on a logistic regression with Hessian-vector products
    X = lib.randn(40, 4, generator=g, dtype=dt)
    yl = (X @ lib.tensor([1.0, -2.0, 0.5, 0.0], dtype=dt) > 0).to(dt)
    w = lib.zeros(4, dtype=dt, requires_grad=True)

    def loss_fn(w):
        return lib.nn.functional.binary_cross_entropy_with_logits(X @ w, yl) + 0.01 * w @ w

    for it in range(5):
        loss = loss_fn(w)
        (gw,) = lib.autograd.grad(loss, w, create_graph=True)

        def hv(v, gw=gw, w=w):
            return lib.autograd.grad(gw, w, v, retain_graph=True)[0]

        step, _ = cg(hv, -gw.detach(), 10, tol=1e-10)
        with lib.no_grad():
            w += step
        rec(f"loss{it}", loss)
    rec("w", w)
    # the same Hessian-vector product by torch.autograd.functional and torch.func
    v = lib.linspace(-1, 1, 4, dtype=dt)
    _, hvp1 = lib.autograd.functional.hvp(loss_fn, w.detach(), v)
    _, vhp1 = lib.autograd.functional.vhp(loss_fn, w.detach(), v)
    rec("hvp", hvp1)
    rec("vhp", vhp1)
    _, hvp2 = lib.func.jvp(lib.func.grad(loss_fn), (w.detach(),), (v,))
    rec("fwd_over_rev", hvp2)
    _, vjp_fn = lib.func.vjp(lib.func.grad(loss_fn), w.detach())
    rec("rev_over_rev", vjp_fn(v)[0])
    H = lib.autograd.functional.hessian(loss_fn, w.detach())
    rec("H", H)
    rec("Hv", H @ v)
    rec("func_hessian", lib.func.hessian(loss_fn)(w.detach()))


def p_steihaug(lib, dt, rec):
    x = lib.tensor([-1.2, 1.0, -0.5, 0.8], dtype=dt)

    def f(x):
        return _mild(x)

    def steihaug(g, hv, delta, tol=1e-10, maxit=20):
        z = lib.zeros_like(g)
        r = g.clone()
        d = -r
        if r.norm() < tol:
            return z, "small"
        for _ in range(maxit):
            Bd = hv(d)
            dBd = d @ Bd
            if dBd <= 0:
                a, b_, c = d @ d, 2 * z @ d, z @ z - delta**2
                tau = (-b_ + lib.sqrt(b_**2 - 4 * a * c)) / (2 * a)
                return z + tau * d, "neg"
            alpha = (r @ r) / dBd
            z_new = z + alpha * d
            if z_new.norm() >= delta:
                a, b_, c = d @ d, 2 * z @ d, z @ z - delta**2
                tau = (-b_ + lib.sqrt(b_**2 - 4 * a * c)) / (2 * a)
                return z + tau * d, "boundary"
            r_new = r + alpha * Bd
            if r_new.norm() < tol:
                return z_new, "conv"
            d = -r_new + (r_new @ r_new) / (r @ r) * d
            z, r = z_new, r_new
        return z, "maxit"

    delta = 1.0
    hist, reasons, deltas = [], [], []
    for _ in range(25):
        xg = x.clone().requires_grad_()
        fx = f(xg)
        (g,) = lib.autograd.grad(fx, xg, create_graph=True)

        def hv(v, g=g, xg=xg):
            return lib.autograd.grad(g @ v, xg, retain_graph=True)[0]

        p, why = steihaug(g.detach(), hv, delta)
        reasons.append(why)
        pred = -(g.detach() @ p + 0.5 * p @ hv(p))
        actual = fx.detach() - f(x + p)
        ratio = actual / pred
        if ratio < 0.25:
            delta = 0.25 * delta
        elif ratio > 0.75 and abs(p.norm().item() - delta) < 1e-8:
            delta = min(2 * delta, 10.0)
        if ratio > 0.1:
            x = x + p
        hist.append(fx.detach())
        deltas.append(delta)
    rec("hist", lib.stack(hist))
    rec("reasons", " ".join(reasons))
    rec("deltas", deltas)
    rec("x", x)


def p_lbfgs_hand(lib, dt, rec):
    x = lib.tensor([-1.5, 2.0, 0.5, -0.3, 1.1, 0.0], dtype=dt)
    m = 5
    S, Y = [], []

    def fg(x):
        x = x.detach().requires_grad_()
        fx = _mild(x)
        fx.backward()
        return fx.detach(), x.grad

    fx, gx = fg(x)
    hist = [fx]
    for _ in range(22):  # then the valley floor is flat to rounding
        q = gx.clone()
        alphas = []
        for s, y in zip(reversed(S), reversed(Y), strict=True):
            a = (s @ q) / (y @ s)
            alphas.append(a)
            q = q - a * y
        gamma = (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1]) if S else lib.tensor(1e-3, dtype=dt)
        r = gamma * q
        for (s, y), a in zip(zip(S, Y, strict=True), reversed(alphas), strict=True):
            beta = (y @ r) / (y @ s)
            r = r + s * (a - beta)
        d = -r
        # Armijo backtracking
        t = 1.0
        while True:
            fn, gn = fg(x + t * d)
            if fn <= fx + 1e-4 * t * (gx @ d) or t < 1e-10:
                break
            t *= 0.5
        s, y = t * d, gn - gx
        if s @ y > 1e-12:
            S.append(s)
            Y.append(y)
            if len(S) > m:
                S.pop(0)
                Y.pop(0)
        x, fx, gx = x + s, fn, gn
        hist.append(fx)
        if gx.norm() < 1e-9:
            break
    rec("hist", lib.stack(hist))
    rec("x", x)
    rec("gnorm", gx.norm())
    rec("iters", len(hist))


def p_lbfgs_torch(lib, dt, rec):
    x = lib.tensor([-1.2, 1.0, -0.5, 0.3], dtype=dt, requires_grad=True)
    opt = lib.optim.LBFGS([x], lr=1, max_iter=6, history_size=4, line_search_fn="strong_wolfe")
    calls = []

    def closure():
        opt.zero_grad()
        loss = _mild(x)
        loss.backward()
        calls.append(loss.detach())
        return loss

    loss = opt.step(closure)
    rec("loss0", loss)
    st = opt.state[opt.param_groups[0]["params"][0]]
    rec("n_iter", st["n_iter"])
    rec("func_evals", st["func_evals"])
    rec("d", st["d"])
    rec("t", st["t"])
    rec("n_old", len(st["old_dirs"]))
    rec("old_dirs0", st["old_dirs"][0])
    rec("old_stps0", st["old_stps"][-1])
    rec("ro", lib.stack(list(st["ro"])))
    rec("H_diag", st["H_diag"])
    rec("prev_flat_grad", st["prev_flat_grad"])
    rec("prev_loss", st["prev_loss"])
    rec("al", lib.stack([a for a in st["al"] if a is not None]))
    rec("calls", lib.stack(calls))
    for i in (1, 2):  # converged to rounding: the state's curvature pairs are noise now
        rec(f"loss{i}", opt.step(closure))
    rec("x", x)
    rec("n_iter_end", st["n_iter"] >= 20)
    rec("keys", str(sorted(st.keys())))
    # plain LBFGS (no line search) on a least-squares model with two parameters
    A, b, _ = _lsq(lib, dt, m=20, n=5, seed=8)
    w = lib.zeros(5, dtype=dt, requires_grad=True)
    c = lib.zeros(1, dtype=dt, requires_grad=True)
    opt2 = lib.optim.LBFGS([w, c], lr=0.5, max_iter=8, tolerance_change=1e-12)

    def closure2():
        opt2.zero_grad()
        loss = (A @ w + c - b).pow(2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        opt2.step(closure2)
    rec("w", w)
    rec("c", c)
    st2 = opt2.state[w]
    rec("n_iter2", st2["n_iter"])
    rec("func_evals2", st2["func_evals"])
    sd = opt2.state_dict()
    rec("sd_keys", str(sorted(sd["state"][0].keys())))
    rec("pg", str({k: v for k, v in sd["param_groups"][0].items()}))


def p_gauss_newton_lm(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    t = lib.linspace(0, 4, 25, dtype=dt)
    true = lib.tensor([2.0, -1.3, 0.5], dtype=dt)

    def model(p, t=t):
        return p[0] * lib.exp(p[1] * t) + p[2]

    y = model(true) + 0.01 * lib.randn(t.shape, generator=g, dtype=dt)

    def resid(p):
        return model(p) - y

    J1 = lib.autograd.functional.jacobian(resid, lib.tensor([1.0, -1.0, 0.0], dtype=dt))
    J2 = lib.autograd.functional.jacobian(
        resid, lib.tensor([1.0, -1.0, 0.0], dtype=dt), vectorize=True
    )
    J3 = lib.autograd.functional.jacobian(
        resid, lib.tensor([1.0, -1.0, 0.0], dtype=dt), vectorize=True, strategy="forward-mode"
    )
    rec("J1", J1)
    rec("J2-J1", (J2 - J1).abs().max())
    rec("J3-J1", (J3 - J1).abs().max())
    rec("jacrev", lib.func.jacrev(resid)(lib.tensor([1.0, -1.0, 0.0], dtype=dt)))
    # Gauss-Newton
    p = lib.tensor([1.0, -1.0, 0.0], dtype=dt)
    for i in range(8):
        J = lib.autograd.functional.jacobian(resid, p)
        r = resid(p)
        step = lib.linalg.lstsq(J, -r.unsqueeze(1)).solution.squeeze(1)
        p = p + step
        rec(f"gn{i}", r.pow(2).sum())
    rec("p_gn", p)
    # Levenberg-Marquardt with a damping schedule
    p = lib.tensor([0.5, -0.2, 1.0], dtype=dt)
    mu = 1e-2
    mus = []
    for _ in range(7):  # later steps are at rounding level: accept/reject is noise
        J = lib.autograd.functional.jacobian(resid, p, vectorize=True)
        r = resid(p)
        JtJ = J.T @ J
        A = JtJ + mu * lib.diag(lib.diagonal(JtJ))
        step = lib.linalg.solve(A, -(J.T @ r))
        new = p + step
        if resid(new).pow(2).sum() < r.pow(2).sum():
            p, mu = new, mu / 3
        else:
            mu = mu * 2
        mus.append(mu)
    rec("p_lm", p)
    rec("mus", mus)
    rec("cost", resid(p).pow(2).sum())
    # covariance of the estimate
    J = lib.autograd.functional.jacobian(resid, p)
    s2 = resid(p).pow(2).sum() / (t.numel() - 3)
    cov = s2 * lib.linalg.inv(J.T @ J)
    rec("se", cov.diagonal().sqrt())
    rec("corr", lib.corrcoef(lib.randn(3, 50, generator=g, dtype=dt)))
    rec("pinv", lib.linalg.pinv(J)[:, :4])


def p_interior_lp(lib, dt, rec):
    # min c^T x  s.t. A x = b, x >= 0 by a primal-dual path-following method
    g = lib.Generator().manual_seed(10)
    m, n = 4, 8
    A = lib.rand(m, n, generator=g, dtype=dt)
    x_feas = lib.rand(n, generator=g, dtype=dt) + 0.1
    b = A @ x_feas
    c = lib.rand(n, generator=g, dtype=dt) + 0.05
    x = lib.ones(n, dtype=dt)
    s = lib.ones(n, dtype=dt)
    y = lib.zeros(m, dtype=dt)
    gaps = []
    for _ in range(12):
        rp = b - A @ x
        rd = c - A.T @ y - s
        mu = (x @ s) / n
        sigma = 0.2
        D = x / s
        # normal equations A D A^T dy = rhs, solved by cholesky_ex
        Mn = (A * D) @ A.T
        rhs = rp + A @ (D * rd - (sigma * mu - x * s) / s)
        L, info = lib.linalg.cholesky_ex(Mn)
        dy = lib.cholesky_solve(rhs[:, None], L)[:, 0]
        ds = rd - A.T @ dy
        dx = (sigma * mu - x * s - x * ds) / s
        # fraction to the boundary
        ratios = lib.cat([-x[dx < 0] / dx[dx < 0], -s[ds < 0] / ds[ds < 0], lib.ones(1, dtype=dt)])
        alpha = lib.clamp(0.99 * ratios.min(), max=1.0)
        x, y, s = x + alpha * dx, y + alpha * dy, s + alpha * ds
        gaps.append(x @ s)
    rec("info", info)
    rec("gaps", lib.stack(gaps))
    rec("x", x)
    rec("obj", c @ x)
    rec("feas", (A @ x - b).abs().max() < 1e-3)
    rec("basis", lib.argsort(x, descending=True)[:m])


def p_interior_qp(lib, dt, rec):
    # min 1/2 x^T Q x + q^T x  s.t. G x <= h via a log-barrier Newton method
    g = lib.Generator().manual_seed(11)
    n = 5
    M = lib.randn(n, n, generator=g, dtype=dt)
    Q = M @ M.mT + lib.eye(n, dtype=dt)
    q = lib.randn(n, generator=g, dtype=dt)
    G = lib.cat([lib.eye(n, dtype=dt), -lib.eye(n, dtype=dt)])
    h = lib.full((2 * n,), 0.5, dtype=dt)
    x = lib.zeros(n, dtype=dt)
    tb = 1.0
    newton_steps = 0
    for outer in range(6):
        for _ in range(15):
            slack = h - G @ x
            grad = tb * (Q @ x + q) + G.T @ (1 / slack)
            H = tb * Q + G.T @ lib.diag(1 / slack**2) @ G
            dx = -lib.linalg.solve(H, grad)
            lam2 = -(grad @ dx)
            newton_steps += 1
            if lam2 / 2 < 1e-9:
                break
            step = 1.0
            while ((h - G @ (x + step * dx)) <= 0).any():
                step *= 0.5
            x = x + step * dx
        rec(f"x{outer}", x)
        tb *= 8
    rec("newton_steps", newton_steps)
    rec("active", (h - G @ x) < 1e-3)
    # KKT check with the multipliers 1 / (t * slack)
    lam = 1 / (tb / 8 * (h - G @ x))
    rec("kkt", lib.linalg.vector_norm(Q @ x + q + G.T @ lam, ord=math.inf) < 1e-3)
    # the same box QP by projected Newton on the free variables and by torch.linalg.solve_ex
    Hx, info = lib.linalg.solve_ex(Q, -q)
    rec("unconstrained", Hx)
    rec("solve_info", info)
    rec("inv_ex", lib.linalg.inv_ex(Q).inverse @ Q)


def p_sinkhorn(lib, dt, rec):
    g = lib.Generator().manual_seed(12)
    n, m = 7, 6
    xs = lib.randn(n, 2, generator=g, dtype=dt)
    ys = lib.randn(m, 2, generator=g, dtype=dt) + 1.0
    a = lib.softmax(lib.randn(n, generator=g, dtype=dt), 0)
    b = lib.full((m,), 1.0 / m, dtype=dt)
    C = lib.cdist(xs, ys) ** 2
    rec("C", C)
    eps = 0.1
    # log-domain Sinkhorn
    f = lib.zeros(n, dtype=dt)
    gg = lib.zeros(m, dtype=dt)
    errs = []
    for _ in range(200):
        f = eps * lib.log(a) - eps * lib.logsumexp((gg[None, :] - C) / eps, dim=1)
        gg = eps * lib.log(b) - eps * lib.logsumexp((f[:, None] - C) / eps, dim=0)
        P = lib.exp((f[:, None] + gg[None, :] - C) / eps)
        errs.append((P.sum(1) - a).abs().sum())
    rec("errs", lib.stack(errs[::20]))
    rec("P", P)
    rec("cost", (P * C).sum())
    # kernel-domain Sinkhorn with scaling vectors
    K = lib.exp(-C / eps)
    u = lib.ones(n, dtype=dt)
    for _ in range(200):
        v = b / (K.T @ u)
        u = a / (K @ v)
    P2 = u[:, None] * K * v[None, :]
    rec("P2-P", (P2 - P).abs().max() < 1e-6)
    # gradient of the entropic cost w.r.t. the support points by unrolled iterations
    xr = xs.clone().requires_grad_()
    C3 = lib.cdist(xr, ys).pow(2)
    f3 = lib.zeros(n, dtype=dt)
    g3 = lib.zeros(m, dtype=dt)
    for _ in range(50):
        f3 = -eps * lib.logsumexp((g3 - C3) / eps + b.log(), dim=1)
        g3 = -eps * lib.logsumexp((f3[:, None] - C3) / eps + a.log()[:, None], dim=0)
    w = (f3 * a).sum() + (g3 * b).sum()
    w.backward()
    rec("w", w)
    rec("grad", xr.grad)
    # unbalanced variant with a KL penalty exponent
    rho = 1.0
    fi = eps / (eps + rho)
    u = lib.ones(n, dtype=dt)
    v = lib.ones(m, dtype=dt)
    for _ in range(100):
        u = (a / (K @ v)) ** fi
        v = (b / (K.T @ u)) ** fi
    rec("unbalanced", (u[:, None] * K * v).sum(0))


def p_bilevel(lib, dt, rec):
    # hyperparameter (ridge penalty) learning by implicit differentiation of the inner solution
    g = lib.Generator().manual_seed(13)
    Xtr = lib.randn(30, 6, generator=g, dtype=dt)
    wtrue = lib.randn(6, generator=g, dtype=dt)
    ytr = Xtr @ wtrue + 0.5 * lib.randn(30, generator=g, dtype=dt)
    Xva = lib.randn(20, 6, generator=g, dtype=dt)
    yva = Xva @ wtrue
    log_lam = lib.tensor(0.0, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([log_lam], lr=0.1)

    def inner_loss(w, lam):
        return 0.5 * (Xtr @ w - ytr).pow(2).mean() + 0.5 * lam * w @ w

    hist = []
    for _ in range(15):
        lam = log_lam.exp()
        # inner solve: gradient descent to high accuracy (no graph)
        w = lib.zeros(6, dtype=dt)
        with lib.no_grad():
            H = Xtr.T @ Xtr / 30 + lam * lib.eye(6, dtype=dt)
            w = lib.linalg.solve(H, Xtr.T @ ytr / 30)
        w = w.requires_grad_()
        outer = 0.5 * (Xva @ w - yva).pow(2).mean()
        (dLdw,) = lib.autograd.grad(outer, w)
        # implicit function theorem: dw/dlam = -H^{-1} d2L/dw dlam
        (gi,) = lib.autograd.grad(inner_loss(w, lam), w, create_graph=True)
        Hf = lib.autograd.functional.hessian(
            lambda w_, lam=lam: inner_loss(w_, lam.detach()), w.detach()
        )
        v = lib.linalg.solve(Hf, dLdw)
        (hyper,) = lib.autograd.grad(gi, log_lam, grad_outputs=-v)
        opt.zero_grad()
        log_lam.grad = hyper
        opt.step()
        hist.append(outer.detach())
    rec("hist", lib.stack(hist))
    rec("log_lam", log_lam)
    rec("state", opt.state[log_lam]["exp_avg_sq"])
    # the same hypergradient by unrolled differentiation through 80 GD steps
    lam = log_lam.detach().exp().requires_grad_()
    w = lib.zeros(6, dtype=dt, requires_grad=True)
    wk = w
    for _ in range(80):
        (gk,) = lib.autograd.grad(inner_loss(wk, lam), wk, create_graph=True)
        wk = wk - 0.3 * gk
    outer = 0.5 * (Xva @ wk - yva).pow(2).mean()
    (hl,) = lib.autograd.grad(outer, lam)
    rec("unrolled", hl)
    # by the implicit formula with the closed-form solution (linalg.solve is differentiable)
    H = Xtr.T @ Xtr / 30 + lam * lib.eye(6, dtype=dt)
    ws = lib.linalg.solve(H, Xtr.T @ ytr / 30)
    (hc,) = lib.autograd.grad(0.5 * (Xva @ ws - yva).pow(2).mean(), lam)
    rec("closed", hc)


def p_zeroth_order(lib, dt, rec):
    g = lib.Generator().manual_seed(14)
    A = lib.randn(8, 8, generator=g, dtype=dt)
    Q = A @ A.T / 8 + 0.5 * lib.eye(8, dtype=dt)

    def f(x):
        return 0.5 * (x * (x @ Q)).sum(-1) + lib.cos(x).sum(-1)

    x = lib.ones(8, dtype=dt)
    # differences of f cancel: float32 needs wide steps for its rounding not to dominate
    mu, h, nq = (1e-3, 1e-3, 20) if dt == lib.float64 else (0.1, 0.1, 20)
    hist = []
    gen = lib.Generator().manual_seed(15)
    for _ in range(30):
        U = lib.randn(nq, 8, generator=gen, dtype=dt)
        fp = f(x + mu * U)
        fm = f(x - mu * U)
        ghat = ((fp - fm) / (2 * mu))[:, None].mul(U).mean(0)
        x = x - 0.2 * ghat
        hist.append(f(x))
    rec("hist", lib.stack(hist))
    rec("x", x)
    xt = x.clone().requires_grad_()
    f(xt).backward()
    rec("true_grad", xt.grad)
    rec("state_len", gen.get_state().numel())
    # coordinate-wise finite differences and a sphere estimator
    E = lib.eye(8, dtype=dt)
    gfd = (f(x + h * E) - f(x - h * E)) / (2 * h)
    rec("fd", gfd if dt == lib.float64 else (gfd - xt.grad).abs().max() < 0.05)
    V = lib.nn.functional.normalize(lib.randn(16, 8, generator=gen, dtype=dt), dim=1)
    gs = 8 * ((f(x + mu * V) - f(x)) / mu)[:, None].mul(V).mean(0)
    rec("sphere", gs)
    # SPSA with Rademacher directions from bernoulli / randint
    delta = lib.randint(0, 2, (8,), generator=gen).to(dt) * 2 - 1
    rec("delta", delta)
    rec("spsa", (f(x + h * delta) - f(x - h * delta)) / (2 * h * delta))
    p = lib.full((8,), 0.5, dtype=dt)
    rec("bern", lib.bernoulli(p, generator=gen))


def p_svrg_sag(lib, dt, rec):
    g = lib.Generator().manual_seed(16)
    N, d = 32, 5
    X = lib.randn(N, d, generator=g, dtype=dt)
    y = X @ lib.randn(d, generator=g, dtype=dt) + 0.1 * lib.randn(N, generator=g, dtype=dt) > 0
    y = y.to(dt)

    def loss_i(w, xi, yi):
        return lib.nn.functional.binary_cross_entropy_with_logits(xi @ w, yi) + 0.05 * w @ w

    per_sample = lib.func.vmap(lib.func.grad(loss_i), in_dims=(None, 0, 0))

    def full_loss(w):
        return lib.nn.functional.binary_cross_entropy_with_logits(X @ w, y) + 0.05 * w @ w

    w0 = lib.zeros(d, dtype=dt)
    G = per_sample(w0, X, y)
    rec("G", G)
    rec("mean_vs_full", (G.mean(0) - lib.func.grad(full_loss)(w0)).abs().max() < 1e-6)
    # SVRG
    gen = lib.Generator().manual_seed(17)
    w = w0.clone()
    hist = []
    for _ in range(4):
        snap = w.clone()
        mu = per_sample(snap, X, y).mean(0)
        for _ in range(N):
            i = lib.randint(0, N, (1,), generator=gen)
            gi = per_sample(w, X[i], y[i])[0]
            gs = per_sample(snap, X[i], y[i])[0]
            w = w - 0.1 * (gi - gs + mu)
        hist.append(full_loss(w))
    rec("svrg", lib.stack(hist))
    rec("w_svrg", w)
    # SAG with a table of gradients
    w = w0.clone()
    table = lib.zeros(N, d, dtype=dt)
    seen = lib.zeros(N, dtype=lib.bool)
    perm = lib.randperm(N, generator=gen)
    for k in range(3 * N):
        i = perm[k % N]
        gi = lib.func.grad(loss_i)(w, X[i], y[i])
        table[i] = gi
        seen[i] = True
        w = w - 0.2 * table.sum(0) / seen.sum()
    rec("w_sag", w)
    rec("sag_loss", full_loss(w))
    # per-sample gradient norms (for clipping, as DP-SGD does)
    norms = per_sample(w, X, y).norm(dim=1)
    rec("norms", norms)
    clip = lib.clamp(1.0 / (norms + 1e-6), max=1.0)
    rec("clipped", (per_sample(w, X, y) * clip[:, None]).sum(0))
    # minibatch gradients by vmap over chunks
    rec("chunked", lib.func.vmap(lib.func.grad(full_loss))(lib.stack([w, w0])))


def _quad_problem(lib, dt, seed=18):
    g = lib.Generator().manual_seed(seed)
    M = lib.randn(6, 6, generator=g, dtype=dt)
    Q = M @ M.T / 6 + 0.2 * lib.eye(6, dtype=dt)
    c = lib.randn(6, generator=g, dtype=dt)
    return Q, c


def p_optim_classes(lib, dt, rec):
    Q, c = _quad_problem(lib, dt)
    O = lib.optim  # noqa: E741 - torch.optim's short name
    makers = {
        "sgd_nesterov": lambda p: O.SGD(p, lr=0.05, momentum=0.9, nesterov=True, dampening=0),
        "sgd_wd": lambda p: O.SGD(p, lr=0.05, momentum=0.5, dampening=0.1, weight_decay=0.01),
        "adagrad": lambda p: O.Adagrad(p, lr=0.5, lr_decay=0.01, initial_accumulator_value=0.1),
        "rprop": lambda p: O.Rprop(p, lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-5, 0.5)),
        "asgd": lambda p: O.ASGD(p, lr=0.05, lambd=1e-3, alpha=0.75, t0=5, weight_decay=1e-3),
        "nadam": lambda p: O.NAdam(p, lr=0.05, momentum_decay=0.01),
        "nadam_dwd": lambda p: O.NAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
        "radam": lambda p: O.RAdam(p, lr=0.05, weight_decay=0.1, decoupled_weight_decay=True),
        "radam_l2": lambda p: O.RAdam(p, lr=0.05, weight_decay=0.1),
        "adamax": lambda p: O.Adamax(p, lr=0.05, weight_decay=0.01),
        "adadelta": lambda p: O.Adadelta(p, lr=1.0, rho=0.8),
        "rmsprop_c": lambda p: O.RMSprop(p, lr=0.01, centered=True, momentum=0.5),
        "adamw_ams": lambda p: O.AdamW(p, lr=0.05, amsgrad=True),
        "adam_max": lambda p: O.Adam(p, lr=0.05, maximize=True),
        "sgd_max": lambda p: O.SGD(p, lr=0.05, momentum=0.9, maximize=True),
    }
    for name, make in makers.items():
        x = lib.zeros(6, dtype=dt, requires_grad=True)
        opt = make([x])
        sign = -1.0 if "max" in name else 1.0
        hist = []
        for _ in range(25):
            opt.zero_grad()
            f = 0.5 * x @ Q @ x + c @ x
            (sign * f).backward()
            opt.step()
            hist.append(f.detach())
        rec(name + ".hist", lib.stack(hist))
        rec(name + ".x", x)
        st = opt.state[x]
        for k in sorted(st):
            v = st[k]
            rec(f"{name}.state.{k}", v if hasattr(v, "shape") else lib.tensor(float(v)))


def p_schedulers(lib, dt, rec):
    Q, c = _quad_problem(lib, dt, seed=19)
    x = lib.zeros(6, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([x], lr=0.3, momentum=0.8)
    plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode="min", factor=0.5, patience=2, threshold=1e-3, cooldown=1, min_lr=1e-3
    )
    lrs, losses = [], []
    for _ in range(40):
        opt.zero_grad()
        f = 0.5 * x @ Q @ x + c @ x
        f.backward()
        opt.step()
        plateau.step(f.item())
        lrs.append(opt.param_groups[0]["lr"])
        losses.append(f.item())
    rec("lrs", lrs)
    rec("losses", losses)
    rec("best", plateau.best)
    rec("bad", plateau.num_bad_epochs)
    rec("last_lr", plateau.get_last_lr())
    sd = plateau.state_dict()
    rec("sd", str(sorted(k for k in sd if k != "optimizer")))
    # a max-mode plateau with a relative threshold on a tensor metric
    y = lib.zeros(6, dtype=dt, requires_grad=True)
    opt2 = lib.optim.Adam([y], lr=0.2)
    pl2 = lib.optim.lr_scheduler.ReduceLROnPlateau(opt2, mode="max", patience=1, factor=0.3)
    for _ in range(20):
        opt2.zero_grad()
        f = -(0.5 * y @ Q @ y + c @ y)
        (-f).backward()
        opt2.step()
        pl2.step(f.detach())
    rec("lr2", opt2.param_groups[0]["lr"])
    # chained step schedules on a Nesterov SGD
    z = lib.zeros(6, dtype=dt, requires_grad=True)
    opt3 = lib.optim.SGD([z], lr=0.2, momentum=0.9, nesterov=True)
    warm = lib.optim.lr_scheduler.LinearLR(opt3, start_factor=0.1, total_iters=5)
    cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt3, T_max=15, eta_min=1e-3)
    seq = lib.optim.lr_scheduler.SequentialLR(opt3, [warm, cos], milestones=[5])
    lr3 = []
    for _ in range(20):
        opt3.zero_grad()
        (0.5 * z @ Q @ z + c @ z).backward()
        opt3.step()
        seq.step()
        lr3.append(seq.get_last_lr()[0])
    rec("lr3", lr3)
    rec("z", z)
    # polynomial decay and exponential decay on Adagrad
    w = lib.zeros(6, dtype=dt, requires_grad=True)
    opt4 = lib.optim.Adagrad([w], lr=0.5, lr_decay=0.05)
    poly = lib.optim.lr_scheduler.PolynomialLR(opt4, total_iters=8, power=2.0)
    lr4 = []
    for _ in range(10):
        opt4.zero_grad()
        (0.5 * w @ Q @ w + c @ w).backward()
        opt4.step()
        poly.step()
        lr4.append(opt4.param_groups[0]["lr"])
    rec("lr4", lr4)
    rec("w", w)
    rec("step", opt4.state[w]["step"])


def p_optim_errors(lib, dt, rec):
    x = lib.zeros(3, dtype=dt, requires_grad=True)
    O = lib.optim  # noqa: E741 - torch.optim's short name
    rec.err("nesterov0", lambda: O.SGD([x], lr=0.1, nesterov=True))
    rec.err("nesterov_damp", lambda: O.SGD([x], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True))
    rec.err("neg_lr", lambda: O.SGD([x], lr=-0.1))
    rec.err("neg_mom", lambda: O.SGD([x], lr=0.1, momentum=-0.5))
    rec.err("rprop_etas", lambda: O.Rprop([x], etas=(1.2, 0.5)))
    rec.err("adagrad_decay", lambda: O.Adagrad([x], lr_decay=-1.0))
    rec.err("adam_beta", lambda: O.Adam([x], betas=(1.0, 0.999)))
    rec.err("nadam_md", lambda: O.NAdam([x], momentum_decay=-0.1))
    rec.err("radam_eps", lambda: O.RAdam([x], eps=-1e-8))
    rec.err("adadelta_rho", lambda: O.Adadelta([x], rho=1.5))
    rec.err("empty", lambda: O.SGD([], lr=0.1))
    rec.err("dup", lambda: O.SGD([x, x], lr=0.1))
    rec.err("tensor_params", lambda: O.SGD(x, lr=0.1))
    y = lib.zeros(2, dtype=dt, requires_grad=True)
    rec.err("lbfgs_groups", lambda: O.LBFGS([{"params": [x]}, {"params": [y]}]))
    opt = O.LBFGS([x])
    rec.err("lbfgs_noclosure", lambda: opt.step())
    rec.err("lbfgs_ls", lambda: O.LBFGS([x], line_search_fn="armijo").step(lambda: x.sum()))
    opt2 = O.SGD([x], lr=0.1)
    rec.err("plateau_mode", lambda: O.lr_scheduler.ReduceLROnPlateau(opt2, mode="avg"))
    rec.err("plateau_factor", lambda: O.lr_scheduler.ReduceLROnPlateau(opt2, factor=1.0))
    rec.err("add_group_dup", lambda: opt2.add_param_group({"params": x}))
    rec.err("sd_mismatch", lambda: opt2.load_state_dict({"state": {}, "param_groups": []}))
    rec("repr_sgd", repr(O.SGD([x], lr=0.1, momentum=0.9, nesterov=True)))
    rec("repr_lbfgs", repr(O.LBFGS([x], line_search_fn="strong_wolfe")))
    rec("repr_rprop", repr(O.Rprop([x], etas=(0.4, 1.3))))
    rec("repr_asgd", repr(O.ASGD([x])))
    rec("repr_nadam", repr(O.NAdam([x], momentum_decay=0.01)))
    rec("repr_radam", repr(O.RAdam([x], decoupled_weight_decay=True)))
    rec("repr_adagrad", repr(O.Adagrad([x], lr_decay=0.01)))
    rec("defaults", str(O.LBFGS([x]).defaults))


def p_subgradients(lib, dt, rec):
    # the subgradient conventions at kinks that nonsmooth optimisation relies on
    x = lib.tensor([-1.0, 0.0, 0.0, 2.0, 2.0, 0.5], dtype=dt, requires_grad=True)
    parts = {
        "abs": lambda x: x.abs().sum(),
        "relu": lambda x: lib.relu(x).sum(),
        "clamp": lambda x: x.clamp(0.0, 2.0).sum(),
        "clamp_t": lambda x: lib.clamp(x, lib.zeros_like(x), lib.full_like(x, 2.0)).sum(),
        "clamp_min": lambda x: x.clamp_min(0.0).sum(),
        "max": lambda x: x.max(),
        "amax": lambda x: x.amax(),
        "max_dim": lambda x: x.view(2, 3).max(dim=1).values.sum(),
        "maximum": lambda x: lib.maximum(x, lib.zeros_like(x)).sum(),
        "fmax": lambda x: lib.fmax(x, lib.full_like(x, 2.0)).sum(),
        "norm": lambda x: (x * lib.tensor([0, 1, 1, 0, 0, 0], dtype=dt)).norm(),
        "vnorm_inf": lambda x: lib.linalg.vector_norm(x, ord=math.inf),
        "vnorm_1": lambda x: lib.linalg.vector_norm(x, ord=1),
        "sign": lambda x: (lib.sign(x) * x).sum(),
        "hinge": lambda x: lib.nn.functional.relu(1 - x).sum(),
        "huber": lambda x: lib.nn.functional.huber_loss(x, lib.zeros_like(x), delta=1.0),
        "smooth_l1": lambda x: lib.nn.functional.smooth_l1_loss(x, x.new_ones(6), beta=1.0),
        "l1_loss": lambda x: lib.nn.functional.l1_loss(x, lib.zeros_like(x)),
        "softshrink": lambda x: lib.nn.functional.softshrink(x, 0.5).sum(),
        "hardtanh": lambda x: lib.nn.functional.hardtanh(x, -1.0, 2.0).sum(),
        "where": lambda x: lib.where(x > 0, x, 0.1 * x).sum(),
        "topk": lambda x: x.topk(2).values.sum(),
        "sort": lambda x: (x.sort().values * lib.arange(6, dtype=dt)).sum(),
        "cdist0": lambda x: lib.cdist(x.view(3, 2), x.view(3, 2)).sum(),
        "pdist": lambda x: lib.nn.functional.pdist(x.view(3, 2)).sum(),
        "logsumexp": lambda x: lib.logsumexp(x * 50, 0),
        "kthvalue": lambda x: (x + lib.arange(6, dtype=dt) / 64).kthvalue(2).values,  # no ties
        "median": lambda x: x.median(),
        "min": lambda x: x.min(),
        "dist": lambda x: lib.dist(x, lib.zeros_like(x), p=1),
        "minimum": lambda x: lib.minimum(x, x.flip(0)).sum(),
    }
    for name, fn in parts.items():
        x.grad = None
        out = fn(x)
        out.backward()
        rec(name, out)
        rec(name + ".grad", x.grad)
    # second-order behaviour at kinks: Hessians of piecewise quadratics
    y = lib.tensor([0.0, 1.0, -1.0], dtype=dt)
    H = lib.autograd.functional.hessian(lambda v: (lib.relu(v) ** 2).sum(), y)
    rec("H_relu2", H)
    H2 = lib.autograd.functional.hessian(
        lambda v: lib.nn.functional.huber_loss(v, lib.zeros_like(v), reduction="sum", delta=1.0), y
    )
    rec("H_huber", H2)


def p_differentiable_optim(lib, dt, rec):
    # meta-learning the step size of an inner SGD by differentiating through its updates
    Q, c = _quad_problem(lib, dt, seed=20)
    log_lr = lib.tensor(math.log(0.05), dtype=dt, requires_grad=True)
    meta = lib.optim.Adam([log_lr], lr=0.05)
    hist = []
    for _ in range(8):
        w = lib.zeros(6, dtype=dt, requires_grad=True)
        wk = w
        lr = log_lr.exp()
        for _ in range(10):
            loss = 0.5 * wk @ Q @ wk + c @ wk
            (gk,) = lib.autograd.grad(loss, wk, create_graph=True)
            wk = wk - lr * gk
        outer = 0.5 * wk @ Q @ wk + c @ wk
        meta.zero_grad()
        outer.backward()
        meta.step()
        hist.append(outer.detach())
    rec("hist", lib.stack(hist))
    rec("log_lr", log_lr)
    # an optimizer's flags for such use
    p = lib.zeros(6, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1, differentiable=True)
    rec.err("non_leaf", lambda: lib.optim.SGD([p.clone()], lr=0.1))
    rec("differentiable", opt.defaults["differentiable"])
    rec("foreach", str(opt.defaults["foreach"]))
    # hand-written Adam with foreach ops and addcdiv/lerp, against torch.optim.Adam
    params = [lib.zeros(6, dtype=dt, requires_grad=True), lib.ones(3, dtype=dt, requires_grad=True)]
    ref = [t.detach().clone().requires_grad_() for t in params]
    opt_ref = lib.optim.Adam(ref, lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.01)
    m = [lib.zeros_like(t) for t in params]
    v = [lib.zeros_like(t) for t in params]
    b1, b2 = 0.8, 0.95

    def loss_of(ps):
        return 0.5 * ps[0] @ Q @ ps[0] + c @ ps[0] + (ps[1] ** 4).sum() + (ps[0][:3] * ps[1]).sum()

    for k in range(1, 16):
        for t in params:
            t.grad = None
        loss_of(params).backward()
        grads = [t.grad for t in params]
        with lib.no_grad():
            grads = lib._foreach_add(grads, params, alpha=0.01)
            for mi, gi in zip(m, grads, strict=True):
                mi.lerp_(gi, 1 - b1)
            lib._foreach_mul_(v, b2)
            lib._foreach_addcmul_(v, grads, grads, 1 - b2)
            bc1, bc2 = 1 - b1**k, 1 - b2**k
            denom = lib._foreach_sqrt(v)
            lib._foreach_div_(denom, math.sqrt(bc2))
            lib._foreach_add_(denom, 1e-6)
            for t, mi, di in zip(params, m, denom, strict=True):
                t.addcdiv_(mi, di, value=-0.05 / bc1)
        opt_ref.zero_grad()
        loss_of(ref).backward()
        opt_ref.step()
    rec("hand0", params[0])
    rec("hand1", params[1])
    rec("ref0", ref[0])
    rec("ref1", ref[1])
    rec("max_diff", max((a - b).abs().max() for a, b in zip(params, ref, strict=True)))
    rec("norms", lib.stack(lib._foreach_norm(params)))
    # parameters_to_vector / vector_to_parameters for a flat optimiser step
    vec = lib.nn.utils.parameters_to_vector(params)
    rec("vec", vec)
    lib.nn.utils.vector_to_parameters(vec * 2, params)
    rec("p1", params[1])


def p_trust_exact(lib, dt, rec):
    # the trust-region subproblem solved exactly (More-Sorensen) through eigh and a secular equation
    g = lib.Generator().manual_seed(21)
    n = 6
    M = lib.randn(n, n, generator=g, dtype=dt)
    B = (M + M.T) / 2  # indefinite
    gv = lib.randn(n, generator=g, dtype=dt)
    evals, evecs = lib.linalg.eigh(B)
    rec("evals", evals)
    gt = evecs.T @ gv
    for delta in (0.1, 1.0, 5.0):
        lam_lo = lib.clamp(-evals[0], min=0.0) + 1e-12
        lo, hi = lam_lo, lam_lo + gv.norm() / delta + evals.abs().max()
        for _ in range(100):
            mid = (lo + hi) / 2
            pn = (gt / (evals + mid)).norm()
            lo, hi = (mid, hi) if pn > delta else (lo, mid)
        lam = (lo + hi) / 2
        p = -lib.linalg.solve(B + lam * lib.eye(n, dtype=dt), gv)
        rec(f"lam{delta}", lam)
        rec(f"pn{delta}", p.norm())
        rec(f"m{delta}", gv @ p + 0.5 * p @ B @ p)
        L, info = lib.linalg.cholesky_ex(B + lam * lib.eye(n, dtype=dt))
        rec(f"info{delta}", info)
    # eigh gradients (distinct eigenvalues) and eigvalsh for a smallest-eigenvalue objective
    S = (M @ M.T).requires_grad_()
    lam_min = lib.linalg.eigvalsh(S)[0]
    lam_min.backward()
    rec("dlam", S.grad)
    rec("cond", lib.linalg.cond(M @ M.T + lib.eye(n, dtype=dt)))
    rec("matrix_rank", lib.linalg.matrix_rank(B))
    rec("slogdet", lib.linalg.slogdet(B + 4 * lib.eye(n, dtype=dt)))
    rec("ldl", lib.linalg.ldl_factor(B + 4 * lib.eye(n, dtype=dt)).pivots)


def p_coord_descent(lib, dt, rec):
    # cyclic coordinate descent for the elastic net with in-place coordinate writes
    A, b, _ = _lsq(lib, dt, m=30, n=8, seed=22)
    lam, alpha = 0.5, 0.7
    col_sq = (A**2).sum(0)
    x = lib.zeros(8, dtype=dt)
    r = b.clone()
    hist = []
    for _ in range(15):
        for j in range(8):
            r += A[:, j] * x[j]
            rho = A[:, j] @ r
            x[j] = _soft(lib, rho, lam * alpha) / (col_sq[j] + lam * (1 - alpha))
            r -= A[:, j] * x[j]
        hist.append(0.5 * r @ r + lam * (alpha * x.abs().sum() + 0.5 * (1 - alpha) * x @ x))
    rec("hist", lib.stack(hist))
    rec("x", x)
    rec("r_check", (r - (b - A @ x)).abs().max() < 1e-4)
    # iteratively reweighted least squares for an l1 regression, batched lstsq
    w = lib.ones(30, dtype=dt)
    beta = lib.zeros(8, dtype=dt)
    for _ in range(10):
        sw = w.sqrt()[:, None]
        beta = lib.linalg.lstsq(A * sw, (b * sw[:, 0])[:, None]).solution[:, 0]
        w = 1 / lib.clamp((b - A @ beta).abs(), min=1e-6)
    rec("irls", beta)
    rec("l1_resid", (b - A @ beta).abs().sum())
    # nonnegative least squares by projected gradient with index_put_ of a mask
    xn = lib.zeros(8, dtype=dt)
    L = lib.linalg.matrix_norm(A, 2) ** 2
    for _ in range(80):
        xn = xn - A.T @ (A @ xn - b) / L
        xn[xn < 0] = 0
    rec("nnls", xn)
    rec("nnls_kkt", lib.where(xn > 0, A.T @ (A @ xn - b), lib.zeros_like(xn)).abs().max())


def p_nelder_mead(lib, dt, rec):
    def f(p):
        return _mild(p)

    n = 3
    simplex = lib.stack([lib.tensor([-1.0, 1.0, 0.5], dtype=dt)] * (n + 1))
    simplex[1:] += 0.5 * lib.eye(n, dtype=dt)
    vals = lib.stack([f(p) for p in simplex])
    moves = []
    for _ in range(60):
        order = lib.argsort(vals)
        simplex, vals = simplex[order], vals[order]
        centroid = simplex[:-1].mean(0)
        xr = centroid + (centroid - simplex[-1])
        fr = f(xr)
        if fr < vals[0]:
            xe = centroid + 2 * (xr - centroid)
            fe = f(xe)
            new, fnew, mv = (xe, fe, "e") if fe < fr else (xr, fr, "r")
        elif fr < vals[-2]:
            new, fnew, mv = xr, fr, "r"
        else:
            xc = centroid + 0.5 * (simplex[-1] - centroid)
            fc = f(xc)
            if fc < vals[-1]:
                new, fnew, mv = xc, fc, "c"
            else:
                simplex = simplex[0] + 0.5 * (simplex - simplex[0])
                vals = lib.stack([f(p) for p in simplex])
                moves.append("s")
                continue
        simplex[-1] = new
        vals[-1] = fnew
        moves.append(mv)
    rec("moves", "".join(moves))
    rec("best", simplex[vals.argmin()])
    rec("fbest", vals.min())
    rec("spread", (simplex - simplex.mean(0)).norm(dim=1))


def p_dykstra(lib, dt, rec):
    # Dykstra's alternating projections onto a box and a halfspace, and POCS for comparison
    g = lib.Generator().manual_seed(23)
    z = lib.randn(5, generator=g, dtype=dt) * 2
    a = lib.tensor([1.0, 1.0, 1.0, 1.0, 1.0], dtype=dt)
    beta = 1.0

    def proj_box(v):
        return v.clamp(-0.5, 0.8)

    def proj_half(v):
        return v - lib.clamp_min(a @ v - beta, 0.0) / (a @ a) * a

    x = z.clone()
    p = lib.zeros_like(z)
    q = lib.zeros_like(z)
    for _ in range(100):
        y = proj_box(x + p)
        p = x + p - y
        x = proj_half(y + q)
        q = y + q - x
    rec("dykstra", x)
    y = z.clone()
    for _ in range(100):
        y = proj_half(proj_box(y))
    rec("pocs", y)
    rec("dist", ((x - z).norm(), (y - z).norm()))
    # the same projection as a QP solved by Adam on a penalty, with ExponentialLR
    w = z.clone().requires_grad_()
    opt = lib.optim.Adam([w], lr=0.1)
    sch = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.97)
    for _ in range(150):
        opt.zero_grad()
        pen = lib.relu(w - 0.8).pow(2).sum() + lib.relu(-0.5 - w).pow(2).sum()
        pen = pen + lib.relu(a @ w - beta).pow(2)
        loss = 0.5 * (w - z).pow(2).sum() + 100 * pen
        loss.backward()
        opt.step()
        sch.step()
    rec("penalty", w)
    rec("lr", sch.get_last_lr())


def p_lbfgs_module(lib, dt, rec):
    # a small regression network fitted by full-batch LBFGS, then fine-tuned with ASGD averaging
    lib.manual_seed(24)
    net = lib.nn.Sequential(lib.nn.Linear(2, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).to(dt)
    g = lib.Generator().manual_seed(25)
    X = lib.rand(40, 2, generator=g, dtype=dt) * 2 - 1
    y = lib.sin(3 * X[:, :1]) * X[:, 1:] ** 2
    opt = lib.optim.LBFGS(net.parameters(), lr=1.0, max_iter=6, history_size=5,
                          line_search_fn="strong_wolfe")  # fmt: skip
    crit = lib.nn.MSELoss()

    def closure():
        opt.zero_grad()
        loss = crit(net(X), y)
        loss.backward()
        return loss

    losses = [opt.step(closure).detach() for _ in range(2)]
    rec("losses", lib.stack(losses))
    p0 = next(iter(net.parameters()))
    rec("n_iter", opt.state[p0]["n_iter"])
    rec("final", crit(net(X), y))
    asgd = lib.optim.ASGD(net.parameters(), lr=0.05, t0=3)
    for _ in range(10):
        asgd.zero_grad()
        crit(net(X), y).backward()
        asgd.step()
    st = asgd.state[p0]
    rec("ax", st["ax"])
    rec("eta", st["eta"])
    rec("mu", st["mu"])
    rec("step", st["step"])
    rec("w", p0)


def p_functional_tools(lib, dt, rec):
    g = lib.Generator().manual_seed(26)
    A = lib.randn(5, 5, generator=g, dtype=dt)
    x = lib.randn(5, generator=g, dtype=dt)

    def f(x):
        return (lib.tanh(A @ x) ** 2).sum() + (x**3).sum()

    F = lib.autograd.functional
    rec("H", F.hessian(f, x))
    rec("H_fwd", F.hessian(f, x, vectorize=True, outer_jacobian_strategy="forward-mode"))
    rec("H_cg", F.hessian(f, x, create_graph=True).requires_grad)
    rec.err("H_strict", lambda: F.hessian(lambda v: v.sum() * 0 + 1.0, x, strict=True))
    rec.err("J_strict", lambda: F.jacobian(lambda v: lib.ones(2, dtype=dt), x, strict=True))
    rec("J_fwd", F.jacobian(lambda v: A @ lib.sin(v), x, strategy="forward-mode", vectorize=True))
    rec("J_tuple", F.jacobian(lambda a, b: (a * b, a + b), (x, x * 2))[0][1])
    rec("lin", lib.func.linearize(f, x)[1](lib.ones(5, dtype=dt)))
    jac, aux = lib.func.jacfwd(lambda v: (lib.sin(v) * v.sum(), v.sum()), has_aux=True)(x)
    rec("jacfwd", jac)
    rec("aux", aux)
    gv, (val, aux2) = lib.func.grad_and_value(lambda v: (f(v), v.sum()), has_aux=True)(x)
    rec("grad_and_value", (gv, val, aux2))
    xr = x.clone().requires_grad_()
    (gx,) = lib.autograd.grad(f(xr), xr, create_graph=True)
    rows = lib.autograd.grad(gx, xr, lib.eye(5, dtype=dt), is_grads_batched=True)[0]
    rec("batched_rows", rows)
    rec("jvp", F.jvp(f, x, lib.ones(5, dtype=dt)))
    rec("vjp", F.vjp(lambda v: A @ v, x, lib.ones(5, dtype=dt)))
    rec.err("hvp_vector_out", lambda: F.hvp(lambda v: A @ v, x, lib.ones(5, dtype=dt)))
    rec.err("vhp_bad_v", lambda: F.vhp(f, x, lib.ones(4, dtype=dt)))
    rec("jacrev_chunk", lib.func.jacrev(lambda v: A @ v * v.sum(), chunk_size=2)(x))
    rec("vmap_chunk", lib.func.vmap(lambda v: (A @ v).sum(), chunk_size=2)(lib.stack([x, 2 * x])))
    rec("fwd_rev", lib.func.jacfwd(lib.func.jacrev(lambda v: (v**3).sum() * v[0]))(x))


def p_swa_cycles(lib, dt, rec):
    lib.manual_seed(27)
    lin = lib.nn.Linear(3, 1).to(dt)
    sgd = lib.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    sch = lib.optim.lr_scheduler.OneCycleLR(sgd, max_lr=0.5, total_steps=12)
    lrs, moms = [], []
    for _ in range(12):
        sgd.step()
        sch.step()
        lrs.append(sgd.param_groups[0]["lr"])
        moms.append(sgd.param_groups[0]["momentum"])
    rec("onecycle", (lrs, moms))
    sgd2 = lib.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
    cyc = lib.optim.lr_scheduler.CyclicLR(sgd2, 0.01, 0.1, step_size_up=3, mode="exp_range",
                                          gamma=0.9)  # fmt: skip
    cl = []
    for _ in range(10):
        sgd2.step()
        cyc.step()
        cl.append((sgd2.param_groups[0]["lr"], sgd2.param_groups[0]["momentum"]))
    rec("cyclic", cl)
    swa = lib.optim.swa_utils.AveragedModel(lin)
    swalr = lib.optim.swa_utils.SWALR(sgd2, swa_lr=0.05, anneal_epochs=3, anneal_strategy="cos")
    sl = []
    for _ in range(5):
        with lib.no_grad():
            for p in lin.parameters():
                p.add_(0.1)
        swa.update_parameters(lin)
        swalr.step()
        sl.append(sgd2.param_groups[0]["lr"])
    rec("swalr", sl)
    rec.params("swa", swa)
    rec("n_averaged", swa.n_averaged)
    ema = lib.optim.swa_utils.AveragedModel(
        lin, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    )
    for _ in range(3):
        with lib.no_grad():
            for p in lin.parameters():
                p.mul_(1.1)
        ema.update_parameters(lin)
    rec.params("ema", ema)
    calls = []
    h = sgd.register_step_pre_hook(lambda opt, a, k: calls.append("pre"))
    sgd.register_step_post_hook(lambda opt, a, k: calls.append("post"))
    sgd.step()
    h.remove()
    sgd.step()
    rec("hooks", str(calls))
    # an LBFGS state_dict round trip resumes where it stopped
    w = lib.tensor([3.0, -2.0], dtype=dt, requires_grad=True)
    o = lib.optim.LBFGS([w], tolerance_grad=1e-3, max_iter=4, line_search_fn="strong_wolfe")

    def closure():
        o.zero_grad()
        loss = ((w - 1) ** 2).sum() + (w[0] * w[1]) ** 2
        loss.backward()
        return loss

    rec("lbfgs0", o.step(closure))
    o2 = lib.optim.LBFGS([w], tolerance_grad=1e-3, max_iter=4, line_search_fn="strong_wolfe")
    o2.load_state_dict(o.state_dict())
    o = o2
    rec("lbfgs1", o.step(closure))
    rec("lbfgs_state", (o.state[w]["n_iter"], o.state[w]["func_evals"]))
    rec("w", w)


def p_solve_shapes(lib, dt, rec):
    # the right-hand-side shapes interior-point and Newton codes pass to the batched solvers
    g = lib.Generator().manual_seed(28)
    M = lib.randn(2, 3, 3, generator=g, dtype=dt)
    A = M @ M.mT + lib.eye(3, dtype=dt)
    L = lib.linalg.cholesky(A)
    LU, piv = lib.linalg.lu_factor(A)
    for shp in [(3,), (2, 3), (3, 1), (2, 3, 1), (4, 2, 3), (1, 3), (2, 3, 2), (5, 2, 3, 2)]:
        b = lib.ones(*shp, dtype=dt) * lib.arange(1, shp[-1] + 1, dtype=dt)
        rec(f"solve{shp}", rec.err("e", lambda b=b: lib.linalg.solve(A, b)))
        rec(f"solve_right{shp}", rec.err("e", lambda b=b: lib.linalg.solve(A, b, left=False)))
        rec(f"cholesky_solve{shp}", rec.err("e", lambda b=b: lib.cholesky_solve(b, L)))
        rec(f"lu_solve{shp}", rec.err("e", lambda b=b: lib.linalg.lu_solve(LU, piv, b)))
        rec(f"tri{shp}", rec.err("e", lambda b=b: lib.linalg.solve_triangular(L, b, upper=False)))
        rec(f"lstsq{shp}", rec.err("e", lambda b=b: lib.linalg.lstsq(A, b).solution))
    rec.err("solve_dtype", lambda: lib.linalg.solve(A, lib.ones(3, dtype=lib.float16)))
    rec.err("solve_int", lambda: lib.linalg.solve(lib.eye(3, dtype=lib.int64), lib.ones(3)))
    rec.err(
        "solve_nonsq", lambda: lib.linalg.solve(lib.ones(3, 2, dtype=dt), lib.ones(3, dtype=dt))
    )
    rec.err("chol_nonsq", lambda: lib.linalg.cholesky(lib.ones(3, 2, dtype=dt)))
    sing = lib.stack([A[0], lib.zeros(3, 3, dtype=dt)])
    rec.err("inv_batch_sing", lambda: lib.linalg.inv(sing))
    rec.err("solve_batch_sing", lambda: lib.linalg.solve(sing, lib.ones(3, dtype=dt)))
    rec.err("chol_batch", lambda: lib.linalg.cholesky(lib.stack([A[0], -A[1]])))
    bad = lib.stack([A[0], -A[1], A[1] - 100 * lib.eye(3, dtype=dt)])
    rec("chol_ex_info", lib.linalg.cholesky_ex(bad).info)
    rec("lu_ex_info", lib.linalg.lu_factor_ex(lib.zeros(3, 3, dtype=dt)).info)
    rec("inv_ex_info", lib.linalg.inv_ex(lib.zeros(2, 3, 3, dtype=dt)).info)
    for drv in ("gels", "gelsy", "gelsd", "gelss"):
        r = lib.linalg.lstsq(M[0, :, :2], lib.ones(3, 1, dtype=dt), driver=drv)
        rec("lstsq_" + drv, r.solution)
        rec("lstsq_rank_" + drv, r.rank)
    rec.err("lstsq_bad", lambda: lib.linalg.lstsq(A, A, driver="foo"))


def p_autograd_mistakes(lib, dt, rec):
    # what hand-written optimisation loops run into, and the values at degenerate points
    w = lib.ones(3, dtype=dt, requires_grad=True)
    (w**2).sum().backward()

    def step_outside_no_grad():
        w.sub_(0.1 * w.grad)

    rec.err("leaf_inplace", step_outside_no_grad)
    rec.err("nonscalar", lambda: lib.autograd.grad(w * 2, w))
    loss = (w**2).sum()
    loss.backward()
    rec.err("twice", lambda: loss.backward())
    v = lib.ones(3, dtype=dt, requires_grad=True)
    rec.err("unused", lambda: lib.autograd.grad((w * 2).sum(), [w, v]))
    rec("materialize", lib.autograd.grad((w * 2).sum(), [w, v], allow_unused=True,
                                         materialize_grads=True)[1])  # fmt: skip
    (gw,) = lib.autograd.grad((w**3).sum(), w)
    rec.err("no_create_graph", lambda: lib.autograd.grad(gw.sum(), w))
    x = lib.tensor([-2.0, 0.5, 3.0], dtype=dt)
    rec("clamp_min_gt_max", x.clamp(min=1.0, max=0.0))
    rec.err("clamp_none", lambda: lib.clamp(x))
    rec("clamp_int", lib.clamp(lib.tensor([1, 5, 9]), min=2.5))
    xr = x.clone().requires_grad_()
    rec("clamp_grad_min_gt_max", lib.autograd.grad(lib.clamp(xr, 1.0, 0.0).sum(), xr)[0])
    lo = lib.tensor([0.0, 1.0, 2.0], dtype=dt, requires_grad=True)
    hi = lib.tensor([1.0, 0.0, 2.5], dtype=dt, requires_grad=True)
    rec("clamp_grad_t", lib.autograd.grad(lib.clamp(xr, lo, hi).sum(), [xr, lo, hi]))
    rec.err("softshrink_neg", lambda: lib.nn.functional.softshrink(x, -0.5))
    z = lib.zeros(3, dtype=dt, requires_grad=True)
    for name, fn in {
        "norm0": lambda z: z.norm(),
        "vnorm3": lambda z: lib.linalg.vector_norm(z, 3),
        "normalize0": lambda z: lib.nn.functional.normalize(z, dim=0).sum(),
        "sqrt0": lambda z: z.sqrt().sum(),
        "pow_half0": lambda z: (z**0.5).sum(),
        "xlogy0": lambda z: lib.special.xlogy(z, z).sum(),
        "entr0": lambda z: lib.special.entr(z).sum(),
    }.items():
        rec(name, lib.autograd.grad(fn(z), z)[0])
    ninf = lib.full((3,), -math.inf, dtype=dt, requires_grad=True)
    rec("lse_ninf", lib.logsumexp(ninf, 0))
    rec("lse_ninf_grad", lib.autograd.grad(lib.logsumexp(ninf, 0), ninf)[0])
    p0 = lib.tensor([0.0, 2.0, 0.0, 3.0], dtype=dt, requires_grad=True)
    p1 = lib.tensor([0.0, 2.0, 1.0, 3.0], dtype=dt, requires_grad=True)
    rec("prod_two_zeros", lib.autograd.grad(p0.prod(), p0)[0])
    (gp1,) = lib.autograd.grad(p1.prod(), p1, create_graph=True)
    rec("prod_one_zero", gp1)
    rec("prod_hess_row", lib.autograd.grad(gp1[0], p1)[0])
    rec("cumprod_zero", lib.autograd.grad(p0.cumprod(0).sum(), p0)[0])
    t3 = lib.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], dtype=dt, requires_grad=True)
    rec("amax_dim_ties", lib.autograd.grad(t3.amax(dim=1).sum(), t3)[0])
    rec("min_ties", lib.autograd.grad(t3.min(), t3)[0])
    o3 = lib.ones(3, dtype=dt, requires_grad=True)
    rec("std_const", lib.autograd.grad(o3.std(), o3)[0])
    rec.err("no_inputs", lambda: lib.autograd.grad(o3.std(), []))
    rec("var_one", lib.ones(1, dtype=dt).var())
    rec("cdist_self", lib.autograd.grad(lib.cdist(t3, t3).sum(), t3)[0])
    rec("cdist_p1", lib.autograd.grad(lib.cdist(t3, t3, p=1).sum(), t3)[0])
    rec("cdist_pinf", lib.autograd.grad(lib.cdist(t3, t3 * 2, p=math.inf).sum(), t3)[0])
    rec("pdist_dup", lib.autograd.grad(lib.nn.functional.pdist(lib.cat([t3, t3])).sum(), t3)[0])
