"""Session 27 (gp): Gaussian-process, kernel-method, Bayesian-optimisation and optimal-transport
programs written by hand the way researchers write them without GPyTorch/POT, each written once
against a `torch`-like module and run under torch and minitorch after the same manual_seed:
exact GPs (RBF/Matern/periodic/RQ kernels through cdist with each compute_mode or expanded
squared distances, softplus lengthscales, Cholesky with a jitter loop, cholesky_solve,
solve_triangular variants, marginal likelihood trained by Adam and LBFGS, batched and multi-output
GPs, sparse GPs, random Fourier features), Bayesian optimisation (EI/UCB with Normal and
special.ndtr/log_ndtr, multistart gradient ascent), kernel methods (kernel ridge, MMD with the
median heuristic, kernel PCA, projected-gradient SVM, Nystrom) and optimal transport (Sinkhorn in
both domains, sliced and 1-D Wasserstein, Gromov-style cost tensors).
Every recorded value (dtype, values, exception type and message) must agree: float64 to 1e-9 of
its scale, float32 to 1e-4."""

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _softplus_inv(lib, x):
    return x + lib.log(-lib.expm1(-x))


def _kernels(lib, x1, x2, ls, var, kind, mode="use_mm_for_euclid_dist_if_necessary"):
    d = lib.cdist(x1 / ls, x2 / ls, p=2, compute_mode=mode)
    if kind == "rbf":
        return var * lib.exp(-0.5 * d.pow(2))
    if kind == "m12":
        return var * lib.exp(-d)
    if kind == "m32":
        s = math.sqrt(3) * d
        return var * (1 + s) * lib.exp(-s)
    if kind == "m52":
        s = math.sqrt(5) * d
        return var * (1 + s + s.pow(2) / 3) * lib.exp(-s)
    raise ValueError(kind)


# --- exact GPs ---


def p_kernels(lib, dt, rec):
    """Kernels via cdist with each compute_mode, expanded squared distances with clamp_min(0),
    periodic and RQ kernels; gradients of the hyperparameters through each."""
    lib.manual_seed(0)
    x = lib.randn(12, 3, dtype=dt)
    z = lib.randn(7, 3, dtype=dt)
    raw = lib.tensor([0.3, -0.2, 0.5], dtype=dt, requires_grad=True)
    ls = lib.nn.functional.softplus(raw)
    var = lib.tensor(1.5, dtype=dt, requires_grad=True)
    for kind in ("rbf", "m12", "m32", "m52"):
        for mode in (
            "use_mm_for_euclid_dist_if_necessary",
            "use_mm_for_euclid_dist",
            "donot_use_mm_for_euclid_dist",
        ):
            K = _kernels(lib, x, z, ls, var, kind, mode)
            rec(f"{kind}.{mode}", K)
        g = lib.autograd.grad(K.sum(), [raw, var], retain_graph=True)
        rec(f"{kind}.graw", g[0])
        rec(f"{kind}.gvar", g[1])
    # self-distance: zero diagonal, gradient of Matern12 at d=0
    D = lib.cdist(x, x)
    rec("cdist.self.diag", D.diagonal())
    xs = (x / ls).unsqueeze(0)
    D2 = (
        xs.pow(2).sum(-1, keepdim=True)
        - 2 * xs @ xs.transpose(-1, -2)
        + xs.pow(2).sum(-1).unsqueeze(-2)
    ).clamp_min(0)
    rec("expanded.min", D2.min())
    rec("expanded.diff", (D2.squeeze(0) - lib.cdist(x / ls, x / ls).pow(2)).abs().max() < 1e-5)
    Kse = var * lib.exp(-0.5 * D2)
    rec("expanded.g", lib.autograd.grad(Kse.sum(), raw, retain_graph=True)[0])
    # periodic
    period = lib.tensor(1.3, dtype=dt, requires_grad=True)
    d1 = lib.cdist(x[:, :1], z[:, :1], p=1)
    Kp = var * lib.exp(-2 * lib.sin(math.pi * d1 / period).pow(2) / ls[0].pow(2))
    rec("periodic", Kp)
    gp = lib.autograd.grad(Kp.sum(), [period, raw], retain_graph=True)
    rec("periodic.gp", gp[0])
    rec("periodic.graw", gp[1])
    # rational quadratic
    alpha = lib.tensor(0.7, dtype=dt, requires_grad=True)
    d2 = lib.cdist(x, z).pow(2)
    Krq = var * (1 + d2 / (2 * alpha * ls[1].pow(2))).pow(-alpha)
    rec("rq", Krq)
    ga = lib.autograd.grad(Krq.sum(), [alpha, raw])
    rec("rq.galpha", ga[0])
    rec("rq.graw", ga[1])
    rec("cdist.p1", lib.cdist(x, z, p=1))
    rec("cdist.pinf", lib.cdist(x, z, p=float("inf")))
    rec("cdist.p0", lib.cdist(x, z, p=0))
    rec("cdist.p3", lib.cdist(x, z, p=3))
    rec("cdist.batch", lib.cdist(x.view(3, 4, 3), z[:6].view(3, 2, 3)))
    rec.err("cdist.badmode", lambda: lib.cdist(x, z, compute_mode="fast"))
    rec.err("cdist.neg", lambda: lib.cdist(x, z, p=-1.0))
    rec.err("cdist.dims", lambda: lib.cdist(x, z[:, :2]))
    rec.err("cdist.1d", lambda: lib.cdist(x[0], z[0]))


def _chol_jitter(lib, K, rec, name, tries=5):
    jitter = 1e-2
    eye = lib.eye(K.shape[-1], dtype=K.dtype)
    for i in range(tries):
        try:
            L = lib.linalg.cholesky(K + jitter * eye if i else K)
            rec(f"{name}.tries", i)
            return L
        except lib.linalg.LinAlgError as e:
            rec(f"{name}.err{i}", f"{type(e).__name__}: {e}")
            jitter *= 4
    raise RuntimeError("not PD")


def p_cholesky_jitter(lib, dt, rec):
    """Jitter loop catching LinAlgError, cholesky_ex info, errors of singular/non-square input."""
    lib.manual_seed(1)
    x = lib.linspace(0, 1, 30, dtype=dt).unsqueeze(1)
    x = lib.cat([x, x[:5]])
    K = lib.exp(-0.5 * lib.cdist(x, x).pow(2) / 0.5**2)
    # numerically singular: which minor fails first is decided by rounding (not compared)
    Lx, info = lib.linalg.cholesky_ex(K)
    rec("ex.info.singular>0", info > 0)
    xw = lib.linspace(0, 3, 8, dtype=dt).unsqueeze(1)
    Kw = lib.exp(-0.5 * lib.cdist(xw, xw).pow(2)) - 0.05 * lib.eye(8, dtype=dt)
    Kw[5, 5] -= 0.1
    L = _chol_jitter(lib, Kw, rec, "rbf")
    rec("L", L)
    Lx, info = lib.linalg.cholesky_ex(Kw)
    rec("ex.info", info)
    rec("ex.L", Lx)
    rec("ex.info.dtype", str(info.dtype))
    A = lib.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=dt)
    Lx, info = lib.linalg.cholesky_ex(A)
    rec("ex.info.indef", info)
    rec("ex.L.indef", Lx)
    Ab = lib.stack([lib.eye(2, dtype=dt), A, -lib.eye(2, dtype=dt)])
    Lb, infob = lib.linalg.cholesky_ex(Ab)
    rec("ex.info.batch", infob)
    rec.err("chol.indef", lambda: lib.linalg.cholesky(A))
    rec.err("chol.batch", lambda: lib.linalg.cholesky(Ab))
    rec.err("chol.nonsq", lambda: lib.linalg.cholesky(lib.ones(2, 3, dtype=dt)))
    rec.err("chol.int", lambda: lib.linalg.cholesky(lib.eye(2, dtype=lib.int64)))
    rec.err("chol.1d", lambda: lib.linalg.cholesky(lib.ones(3, dtype=dt)))
    rec.err("chol.ex.check", lambda: lib.linalg.cholesky_ex(A, check_errors=True))
    rec.err("torch.cholesky", lambda: lib.cholesky(A))
    rec("issubclass", issubclass(lib.linalg.LinAlgError, RuntimeError))
    rec("upper", lib.linalg.cholesky(K[:10, :10] + 1e-3 * lib.eye(10, dtype=dt), upper=True))
    Kn = K.clone()
    Kn[3, 3] = float("nan")
    rec.err("chol.nan", lambda: lib.linalg.cholesky(Kn))
    _, infon = lib.linalg.cholesky_ex(Kn)
    rec("ex.info.nan", infon)


def p_exact_gp_adam(lib, dt, rec):
    """Exact GP with softplus hyperparameters: LML via cholesky_solve and 2*log(diag(L)).sum(),
    Adam steps, predictive mean/variance via einsum and (A*B).sum."""
    lib.manual_seed(2)
    n = 20
    x = lib.rand(n, 2, dtype=dt) * 4 - 2
    y = lib.sin(x[:, 0]) * lib.cos(x[:, 1]) + 0.05 * lib.randn(n, dtype=dt)
    raw_ls = lib.nn.Parameter(_softplus_inv(lib, lib.full((2,), 0.8, dtype=dt)))
    raw_var = lib.nn.Parameter(lib.tensor(0.0, dtype=dt))
    raw_noise = lib.nn.Parameter(lib.tensor(-2.0, dtype=dt))
    params = [raw_ls, raw_var, raw_noise]
    opt = lib.optim.Adam(params, lr=0.05)
    sp = lib.nn.functional.softplus

    def lml():
        K = _kernels(lib, x, x, sp(raw_ls), sp(raw_var), "m52")
        K = K + (sp(raw_noise) + 1e-6) * lib.eye(n, dtype=dt)
        L = lib.linalg.cholesky(K)
        alpha = lib.cholesky_solve(y.unsqueeze(-1), L).squeeze(-1)
        logdet = 2 * lib.log(lib.diagonal(L)).sum()
        return -0.5 * (y @ alpha) - 0.5 * logdet - 0.5 * n * math.log(2 * math.pi), L

    for it in range(12):
        opt.zero_grad()
        val, _ = lml()
        (-val).backward()
        rec(f"lml{it}", val)
        rec(f"g{it}", lib.cat([p.grad.reshape(-1) for p in params]))
        opt.step()
    with lib.no_grad():
        val, L = lml()
        xs = lib.rand(6, 2, dtype=dt)
        Ks = _kernels(lib, x, xs, sp(raw_ls), sp(raw_var), "m52")
        alpha = lib.cholesky_solve(y.unsqueeze(-1), L)
        mean = (Ks.transpose(-1, -2) @ alpha).squeeze(-1)
        v = lib.linalg.solve_triangular(L, Ks, upper=False)
        var1 = sp(raw_var) - lib.einsum("ij,ij->j", v, v)
        var2 = sp(raw_var) - (v * v).sum(0)
        Kinv = lib.cholesky_inverse(L)
        var3 = sp(raw_var) - lib.einsum("ij,jk,ki->i", Ks.T, Kinv, Ks)
        rec("mean", mean)
        rec("var1", var1)
        rec("var2", var2)
        rec("var3", var3)
        rec("std", var1.clamp_min(1e-9).sqrt())
        rec("params", lib.cat([sp(p).reshape(-1) for p in params]))


def _lbfgs_fit(lib, dt, rec, ls_kind):
    lib.manual_seed(3)
    x = lib.linspace(0, 5, 15, dtype=dt).unsqueeze(-1)
    y = lib.sin(2 * x).squeeze(-1) + 0.1 * lib.randn(15, dtype=dt)
    p = lib.nn.Parameter(lib.tensor([0.0, 0.0, -1.0], dtype=dt))
    opt = lib.optim.LBFGS([p], lr=0.1, max_iter=6, line_search_fn=ls_kind)

    def closure():
        opt.zero_grad()
        ls, sf, sn = lib.nn.functional.softplus(p).unbind()
        K = sf * lib.exp(-0.5 * lib.cdist(x, x).pow(2) / ls.pow(2))
        K = K + (sn + 1e-6) * lib.eye(15, dtype=dt)
        L = lib.linalg.cholesky(K)
        a = lib.cholesky_solve(y.unsqueeze(-1), L)
        loss = 0.5 * (y.unsqueeze(-1) * a).sum() + L.diagonal().log().sum()
        loss.backward()
        return loss

    for i in range(3):
        loss = opt.step(closure)
        rec(f"{ls_kind}.loss{i}", loss)
    rec(f"{ls_kind}.p", p)
    rec(f"{ls_kind}.n_iter", opt.state[p]["n_iter"])
    rec(f"{ls_kind}.func_evals", opt.state[p]["func_evals"])


def p_gp_lbfgs(lib, dt, rec):
    """RBF GP trained by LBFGS with a closure (strong Wolfe and without); float64 only (in
    float32 the steps amplify rounding)."""
    for ls_kind in (None, "strong_wolfe"):
        _lbfgs_fit(lib, lib.float64, rec, ls_kind)


def p_solve_triangular(lib, dt, rec):
    """solve_triangular upper/left/unitriangular, batched; cholesky_solve upper; errors."""
    lib.manual_seed(4)
    A = lib.randn(5, 5, dtype=dt)
    K = A @ A.T + 5 * lib.eye(5, dtype=dt)
    L = lib.linalg.cholesky(K)
    U = L.T
    B = lib.randn(5, 3, dtype=dt)
    Bt = lib.randn(3, 5, dtype=dt)
    st = lib.linalg.solve_triangular
    rec("lower", st(L, B, upper=False))
    rec("upper", st(U, B, upper=True))
    rec("right", st(L, Bt, upper=False, left=False))
    rec("right.upper", st(U, Bt, upper=True, left=False))
    rec("unit", st(L, B, upper=False, unitriangular=True))
    rec("unit.upper.right", st(U, Bt, upper=True, left=False, unitriangular=True))
    rec("full.ignored", st(K, B, upper=True))
    Lb = lib.stack([L, 2 * L])
    rec("batch", st(Lb, B, upper=False))
    rec("batch.bcast", st(L, lib.randn(4, 1, 5, 2, dtype=dt), upper=False))
    rec("cs.lower", lib.cholesky_solve(B, L))
    rec("cs.upper", lib.cholesky_solve(B, U, upper=True))
    rec("cs.batch", lib.cholesky_solve(lib.randn(2, 5, 1, dtype=dt), Lb))
    Lr = L.clone().requires_grad_()
    Br = B.clone().requires_grad_()
    out = st(Lr, Br, upper=False, left=True)
    g = lib.autograd.grad((out.pow(2)).sum(), [Lr, Br])
    rec("g.L", g[0])
    rec("g.B", g[1])
    Ur = U.clone().requires_grad_()
    out = st(Ur, Bt, upper=True, left=False, unitriangular=True)
    rec("g.U.unit", lib.autograd.grad(out.sum(), Ur)[0])
    Lr2 = L.clone().requires_grad_()
    out = lib.cholesky_solve(B, Lr2)
    rec("g.cs", lib.autograd.grad(out.sum(), Lr2)[0])
    rec.err("err.upper.kw", lambda: st(L, B))
    rec.err("err.shape", lambda: st(L, Bt, upper=False))
    rec.err("err.nonsq", lambda: st(L[:, :4], B, upper=False))
    rec.err("err.dtype", lambda: st(L, B.float() if dt == lib.float64 else B.double(), upper=False))
    rec.err("cs.shape", lambda: lib.cholesky_solve(Bt, L))
    Ls = L.clone()
    Ls[2, 2] = 0
    rec("singular", st(Ls, B, upper=False))


def p_batched_gp(lib, dt, rec):
    """Batch of independent GPs: batch dims in cholesky, cholesky_solve, solve_triangular,
    logdet; gradient of the summed LML w.r.t. per-batch lengthscales."""
    lib.manual_seed(5)
    b, n = 3, 10
    x = lib.randn(b, n, 1, dtype=dt)
    y = lib.randn(b, n, dtype=dt)
    raw = lib.zeros(b, 1, 1, dtype=dt, requires_grad=True)
    ls = lib.nn.functional.softplus(raw)
    K = lib.exp(-0.5 * lib.cdist(x, x).pow(2) / ls.pow(2)) + 0.1 * lib.eye(n, dtype=dt)
    L = lib.linalg.cholesky(K)
    alpha = lib.cholesky_solve(y.unsqueeze(-1), L)
    logdet = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    quad = (y.unsqueeze(-1) * alpha).sum((-1, -2))
    lml = -0.5 * quad - 0.5 * logdet - 0.5 * n * math.log(2 * math.pi)
    rec("lml", lml)
    rec("logdet.cmp", lib.logdet(K))
    rec("slogdet", lib.linalg.slogdet(K).logabsdet)
    rec("g", lib.autograd.grad(lml.sum(), raw)[0])
    v = lib.linalg.solve_triangular(L, y.unsqueeze(-1), upper=False)
    rec("v", v)
    rec("solve", lib.linalg.solve(K, y))
    rec("solve.ex.info", lib.linalg.solve_ex(K, y).info)
    rec("inv_ex.info", lib.linalg.inv_ex(K).info)
    rec("einsum.bij", lib.einsum("bij,bj->bi", K, y))
    mvn = lib.distributions.MultivariateNormal(lib.zeros(b, n, dtype=dt), scale_tril=L)
    rec("mvn.lp", mvn.log_prob(y))
    mvn2 = lib.distributions.MultivariateNormal(lib.zeros(n, dtype=dt), covariance_matrix=K)
    rec("mvn2.lp", mvn2.log_prob(y))
    rec("mvn2.entropy", mvn2.entropy())
    lib.manual_seed(6)
    rec("mvn2.sample", mvn2.rsample((2,)))


def p_icm_multioutput(lib, dt, rec):
    """Intrinsic coregionalisation: B = W W^T + diag(kappa), K = kron(B, Kx); LML and gradients."""
    lib.manual_seed(7)
    n, t = 8, 3
    x = lib.rand(n, 1, dtype=dt)
    Y = lib.randn(t, n, dtype=dt)
    W = lib.randn(t, 2, dtype=dt, requires_grad=True)
    raw_kappa = lib.zeros(t, dtype=dt, requires_grad=True)
    B = W @ W.T + lib.diag(lib.nn.functional.softplus(raw_kappa))
    Kx = lib.exp(-0.5 * lib.cdist(x, x).pow(2) / 0.3**2)
    K = lib.kron(B, Kx) + 0.05 * lib.eye(n * t, dtype=dt)
    L = lib.linalg.cholesky(K)
    y = Y.reshape(-1)
    a = lib.cholesky_solve(y.unsqueeze(-1), L).squeeze(-1)
    lml = -0.5 * y.dot(a) - L.diagonal().log().sum()
    rec("lml", lml)
    g = lib.autograd.grad(lml, [W, raw_kappa])
    rec("gW", g[0])
    rec("gk", g[1])
    rec("kron.shape", str(tuple(K.shape)))
    rec("kron.batch", lib.kron(B.unsqueeze(0).expand(2, -1, -1), lib.eye(2, dtype=dt)))
    rec("kron.mixed", lib.kron(lib.ones(2, dtype=dt), Kx[:2, :2]))
    eB, VB = lib.linalg.eigh(B.detach())
    eK, VK = lib.linalg.eigh(Kx)
    rec("eig.kron", lib.sort(lib.kron(eB, eK)).values)
    rec("eig.direct", lib.linalg.eigvalsh(lib.kron(B.detach(), Kx)))


def p_sgpr(lib, dt, rec):
    """Titsias SGPR bound with inducing points; Woodbury predictive; gradient w.r.t. Z."""
    lib.manual_seed(8)
    n, m = 40, 6
    x = lib.linspace(-3, 3, n, dtype=dt).unsqueeze(-1)
    y = lib.sin(x).squeeze(-1) + 0.1 * lib.randn(n, dtype=dt)
    Z = lib.nn.Parameter(lib.linspace(-2.5, 2.5, m, dtype=dt).unsqueeze(-1))
    raw = lib.nn.Parameter(lib.tensor([0.0, 0.0, -2.0], dtype=dt))
    opt = lib.optim.Adam([Z, raw], lr=0.02)

    def k(a, b, ls, sf):
        return sf * lib.exp(-0.5 * lib.cdist(a, b).pow(2) / ls.pow(2))

    for it in range(6):
        opt.zero_grad()
        ls, sf, sn = lib.nn.functional.softplus(raw).unbind()
        Kuu = k(Z, Z, ls, sf) + 1e-6 * lib.eye(m, dtype=dt)
        Kuf = k(Z, x, ls, sf)
        Lu = lib.linalg.cholesky(Kuu)
        A = lib.linalg.solve_triangular(Lu, Kuf, upper=False) / sn.sqrt()
        AAT = A @ A.T
        Bm = AAT + lib.eye(m, dtype=dt)
        LB = lib.linalg.cholesky(Bm)
        c = lib.linalg.solve_triangular(LB, A @ y.unsqueeze(-1), upper=False) / sn.sqrt()
        bound = -0.5 * n * math.log(2 * math.pi) - LB.diagonal().log().sum()
        bound = bound - 0.5 * n * sn.log() - 0.5 * y.dot(y) / sn + 0.5 * c.pow(2).sum()
        bound = bound - 0.5 * n * sf / sn + 0.5 * AAT.trace()
        (-bound).backward()
        rec(f"bound{it}", bound)
        rec(f"gZ{it}", Z.grad)
        rec(f"graw{it}", raw.grad)
        opt.step()
    with lib.no_grad():
        ls, sf, sn = lib.nn.functional.softplus(raw).unbind()
        Kuu = k(Z, Z, ls, sf) + 1e-6 * lib.eye(m, dtype=dt)
        Kuf = k(Z, x, ls, sf)
        Sigma = Kuu + Kuf @ Kuf.T / sn
        xs = lib.linspace(-4, 4, 5, dtype=dt).unsqueeze(-1)
        Ksu = k(xs, Z, ls, sf)
        mean = Ksu @ lib.linalg.solve(Sigma, Kuf @ y) / sn
        rec("mean", mean)
        # Woodbury: (sn I + Kfu Kuu^-1 Kuf)^-1 y
        Qinv_y = y / sn - Kuf.T @ lib.linalg.solve(Sigma, Kuf @ y) / sn**2
        Q = Kuf.T @ lib.linalg.solve(Kuu, Kuf) + sn * lib.eye(n, dtype=dt)
        rec("woodbury.err", (Q @ Qinv_y - y).abs().max() < 1e-4)
        rec("woodbury", Qinv_y)


def p_rff(lib, dt, rec):
    """Random Fourier features for the RBF kernel; Bayesian linear regression in feature space."""
    lib.manual_seed(9)
    n, d, D = 30, 2, 200
    x = lib.randn(n, d, dtype=dt)
    y = x.pow(2).sum(1).sqrt() + 0.1 * lib.randn(n, dtype=dt)
    ls = 0.7
    Wf = lib.randn(d, D, dtype=dt) / ls
    bf = 2 * math.pi * lib.rand(D, dtype=dt)
    phi = math.sqrt(2.0 / D) * lib.cos(x @ Wf + bf)
    Kapprox = phi @ phi.T
    Kexact = lib.exp(-0.5 * lib.cdist(x, x).pow(2) / ls**2)
    rec("approx.err", (Kapprox - Kexact).abs().mean())
    A = phi.T @ phi + 0.1 * lib.eye(D, dtype=dt)
    w = lib.linalg.solve(A, phi.T @ y)
    rec("w", w)
    rec("pred", phi @ w)
    ws = lib.linalg.lstsq(phi, y.unsqueeze(-1)).solution
    rec("lstsq.shape", str(tuple(ws.shape)))
    Wsc = lib.randn(D // 2, d, dtype=dt) / ls
    proj = x @ Wsc.T
    phi2 = lib.cat([proj.cos(), proj.sin()], -1) / math.sqrt(D // 2)
    rec("sincos", (phi2 @ phi2.T - Kexact).abs().max())


# --- Bayesian optimisation ---


def p_bayesopt(lib, dt, rec):
    """EI / log-EI / UCB / PI with Normal cdf/log_prob and special.ndtr/log_ndtr; multistart
    gradient ascent over clamped inputs."""
    lib.manual_seed(10)
    X = lib.rand(8, 2, dtype=dt)
    Y = (X - 0.3).pow(2).sum(-1).neg()
    K = lib.exp(-0.5 * lib.cdist(X, X).pow(2) / 0.2**2) + 1e-4 * lib.eye(8, dtype=dt)
    L = lib.linalg.cholesky(K)
    alpha = lib.cholesky_solve((Y - Y.mean()).unsqueeze(-1), L)
    best = Y.max()
    N = lib.distributions.Normal(lib.zeros((), dtype=dt), lib.ones((), dtype=dt))

    def post(xq):
        ks = lib.exp(-0.5 * lib.cdist(xq, X).pow(2) / 0.2**2)
        mu = (ks @ alpha).squeeze(-1) + Y.mean()
        v = lib.linalg.solve_triangular(L, ks.T, upper=False)
        var = (1 - v.pow(2).sum(0)).clamp_min(1e-9)
        return mu, var.sqrt()

    def ei(xq):
        mu, s = post(xq)
        z = (mu - best) / s
        return s * (z * N.cdf(z) + N.log_prob(z).exp())

    def ei2(xq):
        mu, s = post(xq)
        z = (mu - best) / s
        pdf = lib.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        return s * (z * lib.special.ndtr(z) + pdf)

    cand = lib.rand(64, 2, dtype=dt)
    rec("ei", ei(cand))
    rec("ei2", ei2(cand))
    mu, s = post(cand)
    z = (mu - best) / s
    rec("pi.log", lib.special.log_ndtr(z))
    rec("pi.log.far", lib.special.log_ndtr(lib.tensor([-40.0, -10.0, 0.0, 5.0, 40.0], dtype=dt)))
    rec("ndtr.far", lib.special.ndtr(lib.tensor([-40.0, -10.0, 0.0, 5.0, 40.0], dtype=dt)))
    rec("ndtri", lib.special.ndtri(lib.tensor([0.01, 0.5, 0.975], dtype=dt)))
    rec("N.icdf", N.icdf(lib.tensor([0.01, 0.5, 0.975], dtype=dt)))
    rec("ucb", mu + 2.0 * s)
    top = ei(cand).topk(4).indices
    rec("top", top)
    x0 = cand[top].clone().requires_grad_(True)
    opt = lib.optim.Adam([x0], lr=0.05)
    for it in range(10):
        opt.zero_grad()
        loss = -ei(x0).sum()
        loss.backward()
        rec(f"gx{it}", x0.grad)
        opt.step()
        with lib.no_grad():
            x0.clamp_(0.0, 1.0)
    rec("x.final", x0)
    rec("best", ei(x0).argmax())
    # gradient of log_ndtr deep in the tail, ndtr gradient
    zz = lib.tensor([-30.0, -5.0, 0.5, 8.0], dtype=dt, requires_grad=True)
    rec("g.log_ndtr", lib.autograd.grad(lib.special.log_ndtr(zz).sum(), zz)[0])
    rec("g.ndtr", lib.autograd.grad(lib.special.ndtr(zz).sum(), zz)[0])
    rec("g.cdf", lib.autograd.grad(N.cdf(zz).sum(), zz)[0])
    rec("erfc", lib.special.erfc(zz.detach() / math.sqrt(2)))
    rec("erfcx", lib.special.erfcx(zz.detach().abs()))


# --- kernel methods ---


def p_krr_mmd(lib, dt, rec):
    """Kernel ridge regression by solve / lstsq drivers; MMD two-sample statistic with the median
    heuristic (pdist, cdist upper triangle via triu_indices) and a permutation test."""
    lib.manual_seed(11)
    x = lib.randn(25, 3, dtype=dt)
    y = lib.randn(25, dtype=dt)
    K = lib.exp(-lib.cdist(x, x).pow(2) / 2)
    lam = 0.1
    a1 = lib.linalg.solve(K + lam * lib.eye(25, dtype=dt), y)
    rec("krr.solve", a1)
    drivers = ["gelsd", "gelsy", "gelss", None]
    for drv in drivers:
        res = lib.linalg.lstsq(K + lam * lib.eye(25, dtype=dt), y.unsqueeze(-1), driver=drv)
        rec(f"krr.lstsq.{drv}", res.solution)
        rec(f"krr.lstsq.{drv}.rank", res.rank)
        rec(f"krr.lstsq.{drv}.sv", res.singular_values)
        rec(f"krr.lstsq.{drv}.res", res.residuals)
    rec.err("lstsq.gels.cpu", lambda: lib.linalg.lstsq(K, y.unsqueeze(-1), driver="gels").rank)
    rec.err("lstsq.bad", lambda: lib.linalg.lstsq(K, y.unsqueeze(-1), driver="qr"))
    tall = lib.randn(30, 4, dtype=dt)
    r = lib.linalg.lstsq(tall, y[:25].repeat(2)[:30].unsqueeze(-1), driver="gelsd")
    rec("tall.res", r.residuals)
    rec("tall.rank", r.rank)
    # MMD
    X = lib.randn(20, 2, dtype=dt)
    Y = lib.randn(15, 2, dtype=dt) * 1.3 + 0.4
    Z = lib.cat([X, Y])
    pd = lib.pdist(Z)
    rec("pdist", pd)
    iu = lib.triu_indices(35, 35, offset=1)
    rec("triu.same", lib.cdist(Z, Z)[iu[0], iu[1]])
    med = pd.median()
    rec("median", med)
    rec("median.nanmed", pd.nanmedian())
    rec("quantile.5", pd.quantile(0.5))
    bw = med.pow(2) / 2

    def mmd(A, B):
        kaa = lib.exp(-lib.cdist(A, A).pow(2) / (2 * bw))
        kbb = lib.exp(-lib.cdist(B, B).pow(2) / (2 * bw))
        kab = lib.exp(-lib.cdist(A, B).pow(2) / (2 * bw))
        m, n = A.shape[0], B.shape[0]
        return (
            (kaa.sum() - kaa.diagonal().sum()) / (m * (m - 1))
            + (kbb.sum() - kbb.trace()) / (n * (n - 1))
            - 2 * kab.mean()
        )

    stat = mmd(X, Y)
    rec("mmd", stat)
    null = []
    for _ in range(20):
        perm = lib.randperm(35)
        null.append(mmd(Z[perm[:20]], Z[perm[20:]]))
    null = lib.stack(null)
    rec("null", null)
    rec("pvalue", (null >= stat).to(dt).mean())
    rec("triu.off", lib.triu_indices(4, 5, offset=-1))
    rec("tril.off", lib.tril_indices(3, 3, offset=1))
    rec("pdist.p1", lib.nn.functional.pdist(Z[:6], p=1))
    rec("pdist.pinf", lib.nn.functional.pdist(Z[:6], p=float("inf")))
    Zr = Z[:6].clone().requires_grad_()
    rec("pdist.g", lib.autograd.grad(lib.pdist(Zr).sum(), Zr)[0])
    rec.err("pdist.3d", lambda: lib.pdist(Z.unsqueeze(0)))
    rec("pdist.one", lib.pdist(Z[:1]))


def p_kernel_pca(lib, dt, rec):
    """Kernel PCA: centering, eigh ascending order flipped, sign normalisation; Nystrom with pinv
    and rsqrt of clamped eigenvalues."""
    lib.manual_seed(12)
    x = lib.randn(30, 3, dtype=dt)
    K = lib.exp(-lib.cdist(x, x).pow(2) / 4)
    n = 30
    one = lib.full((n, n), 1.0 / n, dtype=dt)
    Kc = K - one @ K - K @ one + one @ K @ one
    evals, evecs = lib.linalg.eigh(Kc)
    rec("evals", evals)
    rec("ascending", (evals[1:] >= evals[:-1]).all())
    evals, evecs = evals.flip(0), evecs.flip(1)
    # sign convention: largest-|.| entry positive
    idx = evecs.abs().argmax(0)
    signs = evecs[idx, lib.arange(n)].sign()
    evecs = evecs * signs
    comps = evecs[:, :3] / evals[:3].sqrt()
    rec("proj", Kc @ comps)
    rec("eigvalsh", lib.linalg.eigvalsh(Kc, UPLO="U"))
    ev_u, _ = lib.linalg.eigh(Kc.triu(), UPLO="U")
    rec("eigh.U", ev_u)
    # Nystrom
    m = 8
    idx = lib.randperm(n)[:m]
    Kmm = K[idx][:, idx]
    Knm = K[:, idx]
    Kh1 = Knm @ lib.linalg.pinv(Kmm) @ Knm.T
    rec("nys.pinv.err", (Kh1 - K).abs().max())
    rec("pinv.herm", lib.linalg.pinv(Kmm, hermitian=True))
    rec("pinv.rtol", lib.linalg.pinv(Kmm, rtol=1e-3))
    rec("pinv.atol", lib.linalg.pinv(Kmm, atol=0.5, hermitian=True))
    e, V = lib.linalg.eigh(Kmm)
    feats = Knm @ V @ lib.diag(e.clamp_min(1e-10).rsqrt())
    rec("nys.feat.gram", feats @ feats.T)
    Kr = Kmm.clone().requires_grad_()
    e2, V2 = lib.linalg.eigh(Kr)
    g = lib.autograd.grad(e2.sum() + (V2.pow(2) * lib.arange(m, dtype=dt)).sum(), Kr)[0]
    rec("eigh.g", g)
    rec("matrix_rank", lib.linalg.matrix_rank(Kmm))
    rec("matrix_rank.h", lib.linalg.matrix_rank(Kmm, hermitian=True, rtol=1e-4))
    rec("svdvals", lib.linalg.svdvals(Knm))
    rec("cond", lib.linalg.cond(Kmm))


def p_svm_pg(lib, dt, rec):
    """Dual kernel SVM by projected gradient ascent (box clamp, equality by projection)."""
    lib.manual_seed(13)
    n = 24
    x = lib.cat([lib.randn(12, 2, dtype=dt) + 1.5, lib.randn(12, 2, dtype=dt) - 1.5])
    y = lib.cat([lib.ones(12, dtype=dt), -lib.ones(12, dtype=dt)])
    K = lib.exp(-lib.cdist(x, x).pow(2) / 2)
    Q = (y[:, None] * y[None, :]) * K
    a = lib.zeros(n, dtype=dt, requires_grad=True)
    C = 1.0
    for it in range(40):
        obj = a.sum() - 0.5 * a @ Q @ a
        (g,) = lib.autograd.grad(obj, a)
        with lib.no_grad():
            a += 0.05 * g
            a -= y * (a @ y) / n
            a.clamp_(min=0.0, max=C)
        if it % 10 == 9:
            rec(f"obj{it}", obj)
    sv = (a > 1e-6) & (a < C - 1e-6)
    rec("sv", sv)
    rec("nsv", sv.sum())
    b = (y - (a * y) @ K)[sv].mean()
    rec("b", b)
    xt = lib.randn(5, 2, dtype=dt)
    f = (a * y) @ lib.exp(-lib.cdist(x, xt).pow(2) / 2) + b
    rec("f", f)
    rec("pred", f.sign())
    rec("hinge", lib.nn.functional.relu(1 - y * ((a * y) @ K + b)).mean())
    rec(
        "clamp.t",
        lib.clamp(a.detach(), min=lib.zeros(n, dtype=dt), max=lib.full((n,), 0.5, dtype=dt)),
    )


# --- optimal transport ---


def p_sinkhorn_plain(lib, dt, rec):
    """Plain-domain Sinkhorn with u/v updates and a convergence check by allclose / max abs;
    autograd through the iterations."""
    lib.manual_seed(14)
    x = lib.randn(10, 2, dtype=dt, requires_grad=True)
    yb = lib.randn(12, 2, dtype=dt)
    a = lib.full((10,), 0.1, dtype=dt)
    b = lib.softmax(lib.randn(12, dtype=dt), 0)
    C = lib.cdist(x, yb).pow(2)
    eps = 0.5
    Kg = lib.exp(-C / eps)
    u = lib.ones_like(a)
    v = lib.ones_like(b)
    its = 0
    while its < 200:
        its += 1
        u_prev = u
        u = a / (Kg @ v)
        v = b / (Kg.T @ u)
        tol = 1e-9 if dt == lib.float64 else 1e-5
        if lib.allclose(u, u_prev, atol=tol, rtol=0):
            break
        if (u - u_prev).abs().max() < tol / 1000:
            break
    if dt == lib.float64:  # float32: where the check first passes is decided by rounding
        rec("its", its)
    P = u[:, None] * Kg * v[None, :]
    rec("P", P)
    rec("marg", lib.stack([P.sum(1) - a]).abs().max() < 1e-6)
    cost = (P * C).sum()
    rec("cost", cost)
    rec("grad", lib.autograd.grad(cost, x)[0])
    rec("isclose", lib.isclose(P.sum(0), b, rtol=1e-3, atol=1e-6))
    rec(
        "allclose.eqnan",
        lib.allclose(
            lib.tensor([float("nan")], dtype=dt),
            lib.tensor([float("nan")], dtype=dt),
            equal_nan=True,
        ),
    )
    rec.err(
        "allclose.dtype", lambda: lib.allclose(a, a.float() if dt == lib.float64 else a.double())
    )
    rec.err("allclose.shape", lambda: lib.allclose(a, b))


def p_sinkhorn_log(lib, dt, rec):
    """Log-domain Sinkhorn with batched problems (logsumexp over dims), debiased Sinkhorn
    divergence, gradients by autograd through the loop and by the envelope theorem."""
    lib.manual_seed(15)
    B, n, m = 2, 6, 7
    x = lib.randn(B, n, 3, dtype=dt, requires_grad=True)
    yb = lib.randn(B, m, 3, dtype=dt)
    loga = lib.full((B, n), -math.log(n), dtype=dt)
    logb = lib.log_softmax(lib.randn(B, m, dtype=dt), -1)
    eps = 0.2

    def ot(xa, xb, la, lb, iters=40):
        C = lib.cdist(xa, xb).pow(2) / 2
        f = lib.zeros_like(la)
        g = lib.zeros_like(lb)
        for _ in range(iters):
            f = -eps * lib.logsumexp(lb.unsqueeze(-2) + (g.unsqueeze(-2) - C) / eps, dim=-1)
            g = -eps * lib.logsumexp(la.unsqueeze(-1) + (f.unsqueeze(-1) - C) / eps, dim=-2)
        return (f * la.exp()).sum(-1) + (g * lb.exp()).sum(-1), f, g, C

    w, f, g, C = ot(x, yb, loga, logb)
    rec("w", w)
    rec("f", f)
    logP = (f.unsqueeze(-1) + g.unsqueeze(-2) - C) / eps + loga.unsqueeze(-1) + logb.unsqueeze(-2)
    rec("marg.b", logP.logsumexp(-2) - logb)
    rec("grad.unrolled", lib.autograd.grad(w.sum(), x, retain_graph=True)[0])
    waa = ot(x, x, loga, loga)[0]
    wbb = ot(yb, yb, logb, logb)[0]
    div = w - 0.5 * (waa + wbb)
    rec("div", div)
    rec("grad.div", lib.autograd.grad(div.sum(), x)[0])
    # envelope: detach potentials
    _, f2, g2, _ = ot(x.detach(), yb, loga, logb)
    C2 = lib.cdist(x, yb).pow(2) / 2
    lp = (f2.unsqueeze(-1) + g2.unsqueeze(-2) - C2) / eps + loga.unsqueeze(-1) + logb.unsqueeze(-2)
    rec("grad.env", lib.autograd.grad((lp.exp() * C2).sum(), x)[0])
    rec("lse.multi", lib.logsumexp(logP, dim=(-1, -2)))
    rec("lse.keep", lib.logsumexp(logP, dim=1, keepdim=True))
    rec(
        "lse.inf",
        lib.logsumexp(lib.tensor([[-float("inf"), -float("inf")], [0.0, 1.0]], dtype=dt), dim=1),
    )
    rec.err("lse.int", lambda: lib.logsumexp(lib.arange(4), 0))
    rec("lse.empty", lib.logsumexp(lib.zeros(2, 0, dtype=dt), dim=1))


def p_sliced_w1d(lib, dt, rec):
    """Sliced Wasserstein (normalised randn projections, sort along dims) and 1-D Wasserstein via
    searchsorted/cumsum quantile functions; Gromov-style cost tensors by einsum."""
    lib.manual_seed(16)
    X = lib.randn(50, 3, dtype=dt, requires_grad=True)
    Y = lib.randn(50, 3, dtype=dt) * 0.5 + 1
    th = lib.randn(3, 20, dtype=dt)
    th = th / th.norm(dim=0, keepdim=True)
    th2 = lib.nn.functional.normalize(lib.randn(20, 3, dtype=dt), dim=1)
    px = (X @ th).sort(dim=0).values
    py = (Y @ th).sort(dim=0).values
    sw = (px - py).pow(2).mean()
    rec("sw", sw)
    rec("sw.g", lib.autograd.grad(sw, X)[0])
    rec("th2", th2)
    P2 = X.detach() @ th2.T
    rec.err("sort.stable.pos", lambda: P2.sort(0, descending=True, stable=True))
    s2, i2 = P2.sort(dim=0, descending=True, stable=True)
    rec("sort.idx", i2[:5])
    # 1-D W1 with weights
    u = lib.randn(12, dtype=dt)
    v = lib.randn(9, dtype=dt) + 0.5
    uw = lib.softmax(lib.randn(12, dtype=dt), 0)
    vw = lib.full((9,), 1 / 9, dtype=dt)
    us, ui = u.sort()
    vs, vi = v.sort()
    allv = lib.cat([us, vs]).sort().values
    deltas = allv.diff()
    ucdf = lib.cumsum(uw[ui], 0)
    vcdf = lib.cumsum(vw[vi], 0)
    iu = lib.searchsorted(us, allv[:-1], right=True)
    iv = lib.searchsorted(vs, allv[:-1], side="right")
    Fu = lib.cat([lib.zeros(1, dtype=dt), ucdf])[iu]
    Fv = lib.cat([lib.zeros(1, dtype=dt), vcdf])[iv]
    rec("w1", (Fu - Fv).abs().mul(deltas).sum())
    # quantile-function W2
    qs = lib.linspace(0.01, 0.99, 15, dtype=dt)
    qi = lib.searchsorted(ucdf, qs).clamp_max(11)
    qj = lib.searchsorted(vcdf.contiguous(), qs.unsqueeze(0)).clamp(max=8)
    rec("w2q", (us[qi] - vs[qj.squeeze(0)]).pow(2).mean())
    rec("searchsorted.sorter", lib.searchsorted(u, lib.tensor([0.0, 1.0], dtype=dt), sorter=ui))
    rec("searchsorted.int32", lib.searchsorted(us, qs, out_int32=True))
    rec("bucketize", lib.bucketize(qs, us, right=True))
    rec.err("ss.unsorted", lambda: lib.searchsorted(us, qs, side="left", right=True))
    rec.err("ss.dims", lambda: lib.searchsorted(us.unsqueeze(0).expand(2, -1), qs))
    # Gromov-Wasserstein cost tensor
    Cx = lib.cdist(X.detach()[:6], X.detach()[:6])
    Cy = lib.cdist(Y[:5], Y[:5])
    T = lib.full((6, 5), 1 / 30, dtype=dt, requires_grad=True)
    L4 = (Cx[:, None, :, None] - Cy[None, :, None, :]).pow(2)
    gw = lib.einsum("ijkl,ij,kl->", L4, T, T)
    rec("gw", gw)
    p = T.sum(1)
    q = T.sum(0)
    const = lib.einsum("ik,k->i", Cx.pow(2), p)[:, None] + lib.einsum("jl,l->j", Cy.pow(2), q)[None]
    tens = const - 2 * lib.einsum("ik,kl,jl->ij", Cx, T, Cy)
    rec("gw.tens", tens)
    rec("gw.match", ((tens * T).sum() - gw).abs() < 1e-8)
    rec("gw.g", lib.autograd.grad(gw, T)[0])
    rec("einsum.ellipsis", lib.einsum("...ij,...jk", Cx[:5, :5], Cy))
    rec("einsum.sublist", lib.einsum(Cx[:5, :5], [0, 1], Cy, [1, 2], [0, 2]))


def p_distance_grads(lib, dt, rec):
    """Gradients of distances at coincident points (kernel Hessians, gradient penalties on
    kernels): cdist's matrix-product form twice differentiated, a NaN upstream gradient at zero
    distance, pdist; and sort-call mistakes in quantile code."""
    x = lib.tensor([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [1.0, 1.0]], dtype=dt)
    lib.manual_seed(17)
    x = lib.cat([x, lib.randn(5, 2, dtype=dt)])
    w = lib.rand(10, 10, dtype=dt)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        xr = x.clone().requires_grad_()
        D = lib.cdist(xr, xr, compute_mode=mode)
        (g1,) = lib.autograd.grad((D * w).sum(), xr, create_graph=True)
        rec(f"{mode}.g1", g1)
        if mode.startswith("use"):  # torch's direct form has no double backward
            rec(f"{mode}.gg", lib.autograd.grad(g1.pow(2).sum(), xr)[0])
        xr = x.clone().requires_grad_()
        g = lib.ones(10, 10, dtype=dt)
        g[0, 0] = float("nan")
        g[3, 0] = float("nan")
        lib.cdist(xr, xr, compute_mode=mode).backward(g)
        rec(f"{mode}.nan_upstream", xr.grad)
    xr = x.clone().requires_grad_()
    kern = lib.exp(-lib.cdist(xr, xr[:4], compute_mode="use_mm_for_euclid_dist"))
    (g1,) = lib.autograd.grad(kern.sum(), xr, create_graph=True)
    rec("matern12.gg", lib.autograd.grad(g1.norm(), xr)[0])
    xr = x.clone().requires_grad_()
    rec("pdist.g", lib.autograd.grad(lib.pdist(xr).sum(), xr)[0])
    v = x[:, 0]
    for name, call in (
        ("sort.pos.stable", lambda: v.sort(0, descending=True, stable=True)),
        ("sort.pos2.stable", lambda: v.sort(0, True, stable=True)),
        ("sort.3pos", lambda: v.sort(0, True, True)),
        ("argsort.pos.stable", lambda: v.argsort(0, stable=False, descending=True)),
        ("sort.stable.int", lambda: v.sort(stable=1, dim=0, descending=True)),
        ("sort.fn.pos.stable", lambda: lib.sort(v, 0, True, stable=True, descending=True)),
        ("argsort.fn", lambda: lib.argsort(v, 0, stable=True, descending=True)),
        ("argsort.two", lambda: v.argsort(0, stable=True)),
        ("sort.ints", lambda: v.sort(0, 1)),
    ):
        rec.err(name, call)
    rec("sort.kw", v.sort(dim=0, descending=True, stable=True).indices)


PROGRAMS = [
    "kernels", "cholesky_jitter", "exact_gp_adam", "gp_lbfgs", "solve_triangular", "batched_gp",
    "icm_multioutput", "sgpr", "rff", "bayesopt", "krr_mmd", "kernel_pca", "svm_pg",
    "sinkhorn_plain", "sinkhorn_log", "sliced_w1d", "distance_grads",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    rec_w = Rec(dtypes=True, first_line=True)
    rec_g = Rec(dtypes=True, first_line=True)
    want = run_program(prog, torch, dt, rec=rec_w)
    got = run_program(prog, minitorch, dt, rec=rec_g)
    assert_records_match(want, got, _tol, rename=True)


def _tol(name, value):
    """float64 to 1e-9 of the scale (1e-7 for gradients of cdist's matrix-product form, whose
    |a|^2 - 2 a.b + |b|^2 cancels: its rounding is the product's), float32 (also a float32
    result of a float64 program) to 1e-4 (torch's float32 matmul accumulates in float32; 1e-3
    where a float32 Cholesky or a tail probability amplifies it)."""
    if value.dtype == "float64":
        return 1e-7 if name.startswith("use_mm") else 1e-9
    return 1e-3 if name in ("gW", "pi.log") or name.startswith("gZ") else 1e-4  # (gZ: SGPR's
    # inducing points, through a float32 Cholesky)
