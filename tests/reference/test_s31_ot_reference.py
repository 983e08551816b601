"""Session 31 (helper ot): optimal-transport programs written the way OT code is written in torch,
run under torch and minitorch with the same seeds and compared record by record: entropic
Sinkhorn in the standard and log domains (logsumexp over dims, underflow of the kernel at small
eps), cdist with p = 0, 1, 2, 3, inf and its three compute modes (batched, broadcast, gradients
at zero distances), pdist, unbalanced Sinkhorn (KL relaxations, kl_div, xlogy), fixed- and
free-support barycenters, sliced Wasserstein (seeded random projections, sort, quantile) with a
gradient flow, exact 1-D OT by sorted cumsum/searchsorted/bucketize and from histograms, gradients
through unrolled iterations (double backward, gradients to the marginals and eps), the envelope
theorem with detach and as a custom autograd.Function (once_differentiable, gradcheck), debiased
Sinkhorn divergences, soft sorting/ranking/top-k, Gromov-Wasserstein costs by einsum/matmul/
multi_dot/tensordot, DeepJDOT-style domain adaptation with an MLP, batched solvers (bmm, einsum,
vmap), marginal checks and the errors of misuse, Gaussian W2 (Bures) and Procrustes by SVD/eigh,
semi-dual SGD and LBFGS, Sinkhorn-Knopp scaling and Gumbel-Sinkhorn, OT flow matching, in-place
edits of saved costs and plans, torch.func/autograd.functional transforms, bfloat16/float16 and
CPU autocast, an OT loss module (buffers, state_dict), epsilon annealing, plan sampling
(Categorical, multinomial, gumbel_softmax), printing, non-finite costs, and minibatch OT over a
DataLoader. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Fixed here (see tests/test_s31_ot.py): cdist's p = inf passes over NaN coordinates as torch's
kernel (pdist's gives NaN) and both give torch's NaN gradient where |diff| - dist is NaN (an
infinite tie); pdist's p = 1 gradient took NaN from a row's pair with itself (inf - inf); for
0 < p < 1 cdist and pdist give a zero difference a zero gradient even at an infinite or NaN
distance; cdist's batch-dims mismatch is torch's "The size of tensor a ..." message for p = 1
and p = 2 too; cdist's direct p = 2 form is one node saving x1, x2 and the result, as torch's
(what saved_tensors_hooks see).

Known and left (documented):
- float32 sqrt can be an ulp off torch's and float32 sums differ in the last bits (summation
  order): float32 stopping tests that compare with tiny tolerances (Sinkhorn-Knopp to 1e-9, LBFGS's
  1e-9 tolerances) and float32 gradients that cancel to rounding noise (with respect to eps
  through 30 iterations) are recorded in float64 only.
- cdist is twice differentiable here; torch raises NotImplementedError ("the derivative for
  '_cdist_backward' is not implemented") on a double backward through it.
- torch.func.jacrev of cdist is wrong in torch 2.13 (rows past the first get another row's
  Jacobian); the programs take autograd.functional.jacobian. torch.func.jacfwd refuses cdist
  (no forward AD), minitorch's jacfwd runs in reverse mode."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "sinkhorn_std", "sinkhorn_log", "cdist_modes", "unbalanced", "barycenter", "sliced",
    "exact_1d", "unrolled_grad", "envelope_grad", "divergence", "soft_sort", "gromov",
    "domain_adapt", "batched_sinkhorn", "marginal_errors", "emd_1d_cdf", "cost_matrices",
    "semi_dual", "sinkhorn_knopp_scaling", "ot_flow_matching", "custom_function", "printing",
    "ranks_scatter", "plan_sampling", "inplace_saved", "func_transforms", "low_precision",
    "ot_module", "procrustes", "eps_scaling", "nonfinite_costs", "lbfgs_minibatch",
    "greenkhorn",
]  # fmt: skip


# float32 programs whose last bits follow the CPU's kernels (AVX2 or AVX-512 summation orders,
# iterated): their float32 tolerance
_WIDE_FLOAT32 = {"soft_sort": 0.001}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = _WIDE_FLOAT32.get(name) if dt == "float32" else None
    assert_program_matches(globals()["p_" + name], torch, dt, tol)


# --- helpers ---


def _clouds(lib, dt, n=12, m=9, d=2, seed=0):
    g = lib.Generator().manual_seed(seed)
    x = lib.randn(n, d, generator=g, dtype=dt)
    y = lib.randn(m, d, generator=g, dtype=dt) * 0.7 + 1.0
    a = lib.rand(n, generator=g, dtype=dt) + 0.5
    b = lib.rand(m, generator=g, dtype=dt) + 0.5
    return x, y, a / a.sum(), b / b.sum()


def _sinkhorn_log(lib, C, a, b, eps, iters):
    f = lib.zeros_like(a)
    g = lib.zeros_like(b)
    la, lb = a.log(), b.log()
    for _ in range(iters):
        f = -eps * lib.logsumexp((g.unsqueeze(-2) - C) / eps + lb.unsqueeze(-2), dim=-1)
        g = -eps * lib.logsumexp((f.unsqueeze(-1) - C) / eps + la.unsqueeze(-1), dim=-2)
    P = lib.exp((f.unsqueeze(-1) + g.unsqueeze(-2) - C) / eps) * a.unsqueeze(-1) * b.unsqueeze(-2)
    return f, g, P


# --- the programs: each takes the library, a dtype and a recorder ---


def p_sinkhorn_std(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt)
    C = lib.cdist(x, y) ** 2
    C = C / C.max()
    eps = 0.05
    K = lib.exp(-C / eps)
    u = lib.ones_like(a)
    v = lib.ones_like(b)
    errs = []
    for it in range(200):
        u = a / (K @ v)
        v = b / (K.T @ u)
        if it % 20 == 0:
            P = u[:, None] * K * v[None, :]
            errs.append(lib.norm(P.sum(1) - a, p=1))
    P = u.reshape(-1, 1) * K * v.reshape(1, -1)
    rec("P", P)
    rec("errs", lib.stack(errs))
    rec("cost", lib.sum(P * C))
    rec("entropy", -(P * lib.log(P + 1e-300)).sum())
    rec("rowsum", P.sum(dim=1))
    rec("colsum", P.sum(dim=0))
    rec("ok_a", lib.allclose(P.sum(1), a, atol=1e-6))
    rec("ok_b", lib.allclose(P.sum(0), b, atol=1e-3))
    rec("argmax", P.argmax(dim=1))
    rec("map", (P @ y) / P.sum(1, keepdim=True))
    rec("nnz", (P > 1e-8).sum())
    rec("trace_u", lib.einsum("i,ij,j->", u, K * C, v))


def p_sinkhorn_log(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, n=15, m=11, d=3, seed=1)
    C = lib.cdist(x, y, p=2).pow(2)
    for eps in (1.0, 0.1, 0.01):
        f, g, P = _sinkhorn_log(lib, C, a, b, eps, 100)
        rec(f"f{eps}", f - f.mean())
        rec(f"P{eps}", P)
        rec(f"w{eps}", (P * C).sum())
        rec(f"dual{eps}", (f * a).sum() + (g * b).sum())
        rec(f"err{eps}", (P.sum(0) - b).abs().max())
    # the standard domain underflows at small eps: K is all zeros
    K = (-C / 0.001).exp()
    rec("K_zero", (K == 0).float().mean())
    rec("K_min", K.min())
    u = a / (K @ lib.ones_like(b))
    rec("u_inf", lib.isinf(u).any())
    rec("u_nan", lib.isnan(a / (K @ (b / (K.t() @ u)))).sum())
    # stabilized kernel via logsumexp with keepdim and amax
    M = -C / 0.001
    lse = lib.logsumexp(M, dim=1, keepdim=True)
    rec("lse", lse)
    rec(
        "lse_manual",
        M.amax(1, keepdim=True) + (M - M.amax(1, keepdim=True)).exp().sum(1, True).log(),
    )
    rec("softmin", lib.softmax(M, dim=1))
    rec("log_softmax", lib.log_softmax(M, dim=-1)[:3])


def p_cdist_modes(lib, dt, rec):
    g = lib.Generator().manual_seed(5)
    x = lib.randn(40, 4, generator=g, dtype=dt) * 10
    y = lib.randn(30, 4, generator=g, dtype=dt) * 10 + 1
    d2 = lib.cdist(x, y, p=2.0)
    rec("d2", d2)
    rec("d2_mm", lib.cdist(x, y, compute_mode="use_mm_for_euclid_dist"))
    rec("d2_nomm", lib.cdist(x, y, compute_mode="donot_use_mm_for_euclid_dist"))
    rec("d2_if", lib.cdist(x, y, compute_mode="use_mm_for_euclid_dist_if_necessary"))
    rec("d1", lib.cdist(x, y, p=1))
    rec("dinf", lib.cdist(x, y, p=float("inf")))
    rec("d3", lib.cdist(x, y, p=3))
    rec("d0", lib.cdist(x, y, p=0))
    xx = (x**2).sum(-1, keepdim=True)
    yy = (y**2).sum(-1)
    sq = (xx + yy - 2 * x @ y.T).clamp_min(0)
    rec("sq", sq)
    rec("sq_vs_cdist", (sq - d2**2).abs().max() < 1e-2)
    rec("diff", ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1))
    # batched cdist
    xb = lib.randn(3, 7, 2, generator=g, dtype=dt)
    yb = lib.randn(3, 5, 2, generator=g, dtype=dt)
    rec("batched", lib.cdist(xb, yb))
    rec("batched_p1", lib.cdist(xb, yb, p=1.0))
    rec("bcast", lib.cdist(xb, yb[:1]))
    # gradients of p=1 and p=2 (a zero distance needs its subgradient)
    xr = x[:5].clone().requires_grad_()
    yr = lib.cat([x[:2], y[:3]]).clone().requires_grad_()
    for p in (1.0, 2.0, 3.0):
        D = lib.cdist(xr, yr, p=p)
        W = lib.arange(25, dtype=dt).reshape(5, 5) / 25
        gx, gy = lib.autograd.grad((D * W).sum(), [xr, yr])
        rec(f"gx{p}", gx)
        rec(f"gy{p}", gy)
    rec("pdist", lib.pdist(x[:6]))
    rec("pdist1", lib.nn.functional.pdist(x[:6], p=1))
    rec("cosine", lib.nn.functional.cosine_similarity(x[:, None], y[None], dim=-1)[:3])
    rec("pairwise", lib.nn.functional.pairwise_distance(x[:30], y))


def p_unbalanced(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, n=10, m=14, seed=2)
    a = a * 2.0
    C = lib.cdist(x, y) ** 2
    eps, rho = 0.1, 1.0
    lam = rho / (rho + eps)
    f = lib.zeros_like(a)
    g = lib.zeros_like(b)
    for _ in range(150):
        f = -lam * eps * lib.logsumexp((g[None, :] - C) / eps + b.log()[None, :], dim=1)
        g = -lam * eps * lib.logsumexp((f[:, None] - C) / eps + a.log()[:, None], dim=0)
    P = lib.exp((f[:, None] + g[None, :] - C) / eps) * a[:, None] * b[None, :]
    rec("P", P)
    rec("mass", P.sum())
    p1, p2 = P.sum(1), P.sum(0)

    def kl(p, q):
        return (p * lib.log(p / q) - p + q).sum()

    rec("kl1", kl(p1, a))
    rec("kl2", kl(p2, b))
    obj = (P * C).sum() + rho * (kl(p1, a) + kl(p2, b)) + eps * kl(P, a[:, None] * b[None, :])
    rec("obj", obj)
    # standard-domain scaling with the exponent
    K = lib.exp(-C / eps)
    u, v = lib.ones_like(a), lib.ones_like(b)
    for _ in range(150):
        u = (a / (K @ v)) ** lam
        v = (b / (K.t() @ u)) ** lam
    P2 = u[:, None] * K * v[None, :]
    rec("P2", P2)
    rec("same", lib.allclose(P, P2, rtol=1e-3, atol=1e-6))
    rec("xlogy", lib.xlogy(p1, p1 / a).sum())
    rec("kl_div", lib.nn.functional.kl_div(a.log(), p1, reduction="sum"))
    rec("kl_div_lt", lib.nn.functional.kl_div(a.log(), p1.log(), reduction="sum", log_target=True))
    rec("kl_div_none", lib.nn.functional.kl_div(a.log(), p1, reduction="none"))


def p_barycenter(lib, dt, rec):
    # fixed-support barycenter of 1-D histograms by iterative Bregman projections
    n = 40
    t = lib.linspace(0, 1, n, dtype=dt)
    h1 = lib.exp(-((t - 0.25) ** 2) / 0.005)
    h2 = lib.exp(-((t - 0.7) ** 2) / 0.01)
    h3 = lib.exp(-((t - 0.5) ** 2) / 0.002)
    A = lib.stack([h1, h2, h3], dim=1)
    A = A / A.sum(0, keepdim=True)
    M = (t[:, None] - t[None, :]) ** 2
    eps = 2e-3
    K = lib.exp(-M / eps)
    w = lib.tensor([0.5, 0.3, 0.2], dtype=dt)
    V = lib.ones_like(A)
    U = lib.ones_like(A)
    for _ in range(100):
        U = A / (K @ V)
        KtU = K.T @ U
        bary = lib.exp((w * lib.log(KtU)).sum(1))
        V = bary[:, None] / KtU
    rec("bary", bary)
    rec("mass", bary.sum())
    rec("mean", (bary * t).sum() / bary.sum())
    rec("argmax", bary.argmax())
    # log-domain barycenter with weights via logsumexp
    la = A.log()
    G = lib.zeros_like(A)
    for _ in range(60):
        F = eps * (la - lib.logsumexp((G.T[:, None, :] - M[None]) / eps, dim=-1).T)
        logKF = lib.logsumexp((F.T[:, :, None] - M[None]) / eps, dim=1).T
        logb = (logKF * w).sum(1)
        G = eps * (logb[:, None] - logKF)
    rec("log_bary", logb.exp())
    # free-support: Euclidean barycenter of point clouds with uniform weights is the mean
    g = lib.Generator().manual_seed(3)
    X = lib.randn(3, 8, 2, generator=g, dtype=dt)
    Y = X.mean(0)
    for _ in range(5):
        D = lib.cdist(Y.expand(3, 8, 2), X) ** 2
        Kb = lib.softmax(-D / 0.1, dim=-1)
        Y = (w[:, None, None] * (Kb @ X)).sum(0)
    rec("free", Y)


def p_sliced(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    x = lib.randn(64, 3, generator=g, dtype=dt)
    y = lib.randn(64, 3, generator=g, dtype=dt) * 1.5 + 0.5
    theta = lib.randn(50, 3, generator=g, dtype=dt)
    theta = lib.nn.functional.normalize(theta, dim=1)
    rec("theta_norm", theta.norm(dim=1))
    px = x @ theta.T
    py = y @ theta.T
    sx, ix = lib.sort(px, dim=0)
    sy, _ = py.sort(dim=0)
    rec("ix", ix[:5])
    sw2 = ((sx - sy) ** 2).mean(0)
    rec("sw2", sw2.mean())
    rec("sw1", (sx - sy).abs().mean())
    rec("max_sw", sw2.max().sqrt())
    # gradient flow on x
    xs = x.clone().requires_grad_(True)
    opt = lib.optim.SGD([xs], lr=1.0)
    for step in range(10):
        th = lib.randn(20, 3, generator=g, dtype=dt)
        th = th / th.norm(dim=1, keepdim=True)
        a, _ = (xs @ th.T).sort(0)
        b, _ = (y @ th.T).sort(0)
        loss = ((a - b) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("xs", xs)
    rec("mean_gap", (xs.mean(0) - y.mean(0)).norm())
    # unequal sizes via quantiles
    z = lib.randn(40, 3, generator=g, dtype=dt)
    q = lib.linspace(0, 1, 25, dtype=dt)
    qx = lib.quantile(x @ theta[:4].T, q, dim=0)
    qz = lib.quantile(z @ theta[:4].T, q, dim=0)
    rec("qsw", ((qx - qz) ** 2).mean())
    # random projections on the unit sphere by torch.randn with a generator then F.normalize p=2
    proj = lib.nn.functional.normalize(lib.randn(3, 5, generator=g, dtype=dt), p=2, dim=0)
    rec("proj", proj)


def p_exact_1d(lib, dt, rec):
    g = lib.Generator().manual_seed(11)
    u = lib.randn(30, generator=g, dtype=dt)
    v = lib.randn(20, generator=g, dtype=dt) + 0.5
    wu = lib.rand(30, generator=g, dtype=dt)
    wv = lib.rand(20, generator=g, dtype=dt)
    wu, wv = wu / wu.sum(), wv / wv.sum()
    su, iu = u.sort()
    sv, iv = v.sort()
    cu = lib.cumsum(wu[iu], 0)
    cv = lib.cumsum(wv[iv], 0)
    qs = lib.cat([cu, cv]).sort().values
    rec("qs", qs)
    qs = qs.clamp(max=1.0)
    ju = lib.searchsorted(cu, qs, right=False).clamp(max=29)
    jv = lib.searchsorted(cv, qs).clamp(max=19)
    rec("ju", ju)
    rec("jv", jv)
    dq = lib.diff(lib.cat([qs.new_zeros(1), qs]))
    w1 = (dq * (su[ju] - sv[jv]).abs()).sum()
    w2 = (dq * (su[ju] - sv[jv]) ** 2).sum()
    rec("w1", w1)
    rec("w2", w2)
    # W1 by integrating |F-G| over the merged support
    allv = lib.cat([u, v]).sort().values
    Fu = lib.searchsorted(su, allv, right=True)
    rec("Fu_idx", Fu)
    cdf_u = lib.cat([cu.new_zeros(1), cu])[Fu]
    cdf_v = lib.cat([cv.new_zeros(1), cv])[lib.searchsorted(sv, allv, right=True)]
    w1b = ((cdf_u - cdf_v).abs()[:-1] * allv.diff()).sum()
    rec("w1b", w1b)
    rec("agree", lib.isclose(w1, w1b, rtol=1e-4))
    # bucketize and uniform-weight equal-size case
    rec("bucket", lib.bucketize(v, su))
    rec("bucket_r", lib.bucketize(v, su, right=True, out_int32=True))
    rec("w2_eq", ((su[:20] - sv) ** 2).mean())
    rec("argsort_stable", lib.argsort(lib.tensor([2, 1, 2, 1, 0, 2]), stable=True))
    # monotone map: x -> quantile of the target
    ranks = u.argsort().argsort().to(dt) / 29
    tmap = lib.quantile(v, ranks)
    rec("tmap", tmap)


def p_unrolled_grad(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, n=8, m=6, seed=4)
    x = x.clone().requires_grad_()
    C = ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)
    f, g, P = _sinkhorn_log(lib, C, a, b, 0.1, 30)
    loss = (P * C).sum()
    (gx,) = lib.autograd.grad(loss, x, create_graph=True)
    rec("loss", loss)
    rec("gx", gx)
    (ggx,) = lib.autograd.grad(gx.pow(2).sum(), x)
    rec("ggx", ggx)
    # gradient w.r.t. the marginals and eps
    a2 = a.clone().requires_grad_()
    eps = lib.tensor(0.2, dtype=dt, requires_grad=True)
    f, g, P = _sinkhorn_log(lib, C.detach(), a2, b, eps, 30)
    val = (P * C.detach()).sum() + eps * (P * (P / (a2[:, None] * b[None, :])).log()).sum()
    ga, ge = lib.autograd.grad(val, [a2, eps])
    rec("val", val)
    rec("ga", ga - ga.mean())
    if dt == lib.float64:  # float32 loses this gradient to rounding (torch's too)
        rec("ge", ge)
    # standard domain unrolled with backward()
    xs = x.detach().clone().requires_grad_()
    Cs = lib.cdist(xs, y) ** 2
    K = lib.exp(-Cs / 0.5)
    v = lib.ones_like(b)
    for _ in range(20):
        u = a / (K @ v)
        v = b / (K.t() @ u)
    P = u[:, None] * K * v[None]
    (P * Cs).sum().backward()
    rec("gx_std", xs.grad)
    rec("grad_fn", type(P.grad_fn).__name__)


def p_envelope_grad(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, n=10, m=7, seed=6)
    eps = 0.1
    x = x.clone().requires_grad_()
    C = lib.cdist(x, y) ** 2
    with lib.no_grad():
        f, g, _ = _sinkhorn_log(lib, C, a, b, eps, 300)
    # envelope theorem: plan is optimal, so differentiate the dual/primal at fixed potentials
    P = lib.exp((f[:, None] + g[None, :] - C) / eps) * a[:, None] * b[None, :]
    rec("P_rg", P.requires_grad)
    loss = (P.detach() * C).sum()
    loss.backward()
    rec("gx_env", x.grad)
    x.grad = None
    C2 = lib.cdist(x, y) ** 2
    f2, g2, P2 = _sinkhorn_log(lib, C2, a, b, eps, 300)
    dual = (f2 * a).sum() + (g2 * b).sum()
    dual.backward()
    rec("gx_dual", x.grad)
    # analytic: 2 (x a - P y)
    rec("gx_an", 2 * (x.detach() * a[:, None] - P.detach() @ y))
    # detach of potentials and a closed form of the semi-dual
    x.grad = None
    C3 = lib.cdist(x, y) ** 2
    fd = -eps * lib.logsumexp((g.detach()[None] - C3) / eps + b.log()[None], dim=1)
    ((fd * a).sum() + (g.detach() * b).sum()).backward()
    rec("gx_semi", x.grad)
    rec("is_leaf", [P.detach().is_leaf, f.requires_grad, fd.grad_fn is not None])


def p_divergence(lib, dt, rec):
    g = lib.Generator().manual_seed(8)
    x = lib.randn(20, 2, generator=g, dtype=dt)
    y = lib.randn(25, 2, generator=g, dtype=dt) + lib.tensor([1.0, -0.5], dtype=dt)
    a = lib.full((20,), 1 / 20, dtype=dt)
    b = lib.full((25,), 1 / 25, dtype=dt)

    def ot_eps(X, Y, p, q, eps=0.5, iters=60):
        C = lib.cdist(X, Y) ** 2 / 2
        f, gg, P = _sinkhorn_log(lib, C, p, q, eps, iters)
        return (f * p).sum() + (gg * q).sum()

    x = x.requires_grad_()
    sd = ot_eps(x, y, a, b) - 0.5 * ot_eps(x, x, a, a) - 0.5 * ot_eps(y, y, b, b)
    rec("sd", sd)
    (gx,) = lib.autograd.grad(sd, x)
    rec("gx", gx)
    rec("self", ot_eps(y, y, b, b) - ot_eps(y, y, b, b))
    # symmetric updates with averaging (geomloss style)
    C = lib.cdist(y, y) ** 2 / 2
    f = lib.zeros_like(b)
    for _ in range(20):
        f = 0.5 * (f - 0.5 * lib.logsumexp((f[None] - C) / 0.5 + b.log()[None], dim=1))
    rec("sym_f", f)

    # MMD-like energy distance for comparison
    def energy(X, Y):
        return 2 * lib.cdist(X, Y).mean() - lib.cdist(X, X).mean() - lib.cdist(Y, Y).mean()

    rec("energy", energy(x.detach(), y))
    rec(
        "gauss_mmd",
        (
            lib.exp(-(lib.cdist(x, x) ** 2)).mean()
            + lib.exp(-(lib.cdist(y, y) ** 2)).mean()
            - 2 * lib.exp(-(lib.cdist(x, y) ** 2)).mean()
        ),
    )


def p_soft_sort(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    s = lib.randn(2, 7, generator=g, dtype=dt).requires_grad_()
    n = s.shape[-1]
    anchors = lib.linspace(0, 1, n, dtype=dt)
    z = lib.sigmoid(s)
    C = (z[..., :, None] - anchors[None, None, :]) ** 2
    a = lib.full((2, n), 1.0 / n, dtype=dt)
    f, gg, P = _sinkhorn_log(lib, C, a, a, 1e-2, 80)
    P = P * n
    ranks = (P * lib.arange(1, n + 1, dtype=dt)).sum(-1)
    rec("ranks", ranks)
    rec("hard", s.argsort(-1).argsort(-1) + 1)
    sorted_ = (P.transpose(-1, -2) @ s.unsqueeze(-1)).squeeze(-1)
    rec("soft_sorted", sorted_)
    rec("hard_sorted", s.sort(-1).values)
    (ranks * lib.tensor([1.0, -2.0], dtype=dt)[:, None]).pow(2).sum().backward(retain_graph=True)
    rec("g_ranks", s.grad)
    s.grad = None
    (sorted_ * lib.arange(n, dtype=dt)).sum().backward()
    rec("g_sorted", s.grad)
    # soft top-k via two-bin transport
    scores = lib.randn(10, generator=g, dtype=dt)
    Ck = (scores[:, None] - lib.tensor([scores.min().item(), scores.max().item()], dtype=dt)) ** 2
    mu = lib.full((10,), 0.1, dtype=dt)
    nu = lib.tensor([0.7, 0.3], dtype=dt)
    _, _, Pk = _sinkhorn_log(lib, Ck, mu, nu, 0.1, 100)
    rec("topk_soft", Pk[:, 1] * 10)
    rec("topk_hard", lib.topk(scores, 3).indices)
    rec("topk_sorted_false", lib.topk(scores, 3, sorted=True, largest=False).values)


def p_gromov(lib, dt, rec):
    g = lib.Generator().manual_seed(12)
    X = lib.randn(9, 3, generator=g, dtype=dt)
    R = lib.linalg.qr(lib.randn(3, 3, generator=g, dtype=dt)).Q
    Y = (X @ R)[lib.randperm(9, generator=g)][:7]
    C1 = lib.cdist(X, X) ** 2
    C2 = lib.cdist(Y, Y) ** 2
    C1, C2 = C1 / C1.max(), C2 / C2.max()
    p = lib.full((9,), 1 / 9, dtype=dt)
    q = lib.full((7,), 1 / 7, dtype=dt)
    constC = ((C1**2) @ p)[:, None] + ((C2**2) @ q)[None, :]
    T = p[:, None] * q[None, :]
    for it in range(10):
        L = constC - 2 * lib.einsum("ik,kl,jl->ij", C1, T, C2)
        rec(f"gw{it}", (L * T).sum())
        _, _, T = _sinkhorn_log(lib, L, p, q, 5e-3, 50)
    rec("T", T)
    rec("L_mm", constC - 2 * C1 @ T @ C2.T)
    rec("L_ein", constC - 2 * lib.einsum("ik,kl,jl->ij", C1, T, C2))
    rec("tens", lib.einsum("ik,jl,kl->ij", C1, C2, T))
    rec("bmm", lib.bmm(C1[None], (T @ C2.mT)[None])[0])
    rec("matmul_chain", lib.linalg.multi_dot([C1, T, C2]))
    # fused: alpha * GW + (1-alpha) * W
    M = lib.cdist(X, Y)
    alpha = 0.5
    Lf = (1 - alpha) * M + alpha * (constC - 2 * C1 @ T @ C2)
    rec("fgw", (Lf * T).sum())
    rec("tensordot", lib.tensordot(C1, T, dims=([1], [0])))


def p_domain_adapt(lib, dt, rec):
    lib.manual_seed(0)
    g = lib.Generator().manual_seed(13)
    Xs = lib.randn(32, 5, generator=g, dtype=dt)
    ys = (Xs[:, 0] > 0).long()
    Xt = lib.randn(24, 5, generator=g, dtype=dt) * 1.2 + 0.3
    feat = lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.ReLU(), lib.nn.Linear(8, 4)).to(dt)
    clf = lib.nn.Linear(4, 2).to(dt)
    opt = lib.optim.Adam(list(feat.parameters()) + list(clf.parameters()), lr=1e-2)
    a = lib.full((32,), 1 / 32, dtype=dt)
    b = lib.full((24,), 1 / 24, dtype=dt)
    for step in range(8):
        zs, zt = feat(Xs), feat(Xt)
        ce = lib.nn.functional.cross_entropy(clf(zs), ys)
        C = lib.cdist(zs, zt) ** 2
        with lib.no_grad():
            _, _, P = _sinkhorn_log(lib, C / C.max(), a, b, 0.05, 50)
        # DeepJDOT: feature cost plus label cost
        pt = lib.log_softmax(clf(zt), dim=1)
        Lc = -(lib.nn.functional.one_hot(ys, 2).to(dt) @ pt.T)
        loss = ce + 0.1 * (P * C).sum() + 0.1 * (P * Lc).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("params", lib.cat([p.detach().flatten() for p in feat.parameters()]))
    # barycentric mapping of source to target
    with lib.no_grad():
        Xmap = (P / P.sum(1, keepdim=True)) @ Xt
    rec("Xmap", Xmap)
    rec("acc", (clf(feat(Xs)).argmax(1) == ys).to(dt).mean())
    rec("nn_util", lib.nn.utils.clip_grad_norm_(feat.parameters(), 1.0))


def p_batched_sinkhorn(lib, dt, rec):
    g = lib.Generator().manual_seed(14)
    B, n, m = 4, 6, 5
    x = lib.randn(B, n, 2, generator=g, dtype=dt)
    y = lib.randn(B, m, 2, generator=g, dtype=dt)
    a = lib.softmax(lib.randn(B, n, generator=g, dtype=dt), -1)
    b = lib.softmax(lib.randn(B, m, generator=g, dtype=dt), -1)
    C = lib.cdist(x, y) ** 2
    f, gg, P = _sinkhorn_log(lib, C, a, b, 0.1, 50)
    rec("P", P)
    rec("costs", (P * C).sum((-1, -2)))
    rec("row_err", (P.sum(-1) - a).abs().amax(-1))
    # same by loop over batch (unbatched)
    rec("loop", lib.stack([_sinkhorn_log(lib, C[i], a[i], b[i], 0.1, 50)[2] for i in range(B)]))
    # standard domain batched with bmm
    K = lib.exp(-C / 0.5)
    v = lib.ones_like(b)
    for _ in range(40):
        u = a / lib.bmm(K, v.unsqueeze(-1)).squeeze(-1)
        v = b / lib.bmm(K.transpose(1, 2), u.unsqueeze(-1)).squeeze(-1)
    Pb = u.unsqueeze(-1) * K * v.unsqueeze(-2)
    rec("Pb", Pb)
    rec("Pb_ein", lib.einsum("bi,bij,bj->bij", u, K, v))
    rec("cost_b", lib.einsum("bij,bij->b", Pb, C))

    # vmap over a single-problem solver
    def solve(Ci, ai, bi):
        return _sinkhorn_log(lib, Ci, ai, bi, 0.1, 20)[2]

    rec("vmap", lib.func.vmap(solve)(C, a, b))


def p_marginal_errors(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, seed=15)
    C = lib.cdist(x, y)
    rec.err("bad_shape", lambda: lib.exp(-C / 0.1) @ lib.ones(5, dtype=dt))
    rec.err("cdist_dim", lambda: lib.cdist(x, y[:, :1]))
    rec.err("cdist_1d", lambda: lib.cdist(x[0], y[0]))
    rec.err("cdist_mode", lambda: lib.cdist(x, y, compute_mode="bad"))
    rec.err("cdist_neg", lambda: lib.cdist(x, y, p=-1))
    rec.err("cdist_int", lambda: lib.cdist(x.long(), y.long()))
    for s1, s2 in (((2, 4, 2), (3, 3, 2)), ((5, 2, 4, 2), (3, 3, 2)), ((2, 30, 2), (3, 3, 2))):
        for p in (1.0, 2.0, 3.0):
            rec.err(
                f"cdist_batch{s1}{p}",
                lambda s1=s1, s2=s2, p=p: lib.cdist(
                    lib.ones(s1, dtype=dt), lib.ones(s2, dtype=dt), p=p
                ),
            )
    rec.err("lse_int", lambda: lib.logsumexp(lib.arange(4), 0))
    rec.err("searchsorted_dim", lambda: lib.searchsorted(lib.ones(2, 3), lib.ones(3, 2)))
    rec.err("einsum_bad", lambda: lib.einsum("ij,jk->ik", C, C))
    rec.err(
        "allclose_dtype", lambda: lib.allclose(a, a.float() if dt == lib.float64 else a.double())
    )
    rec.err("assert_close", lambda: lib.testing.assert_close(a.sum(), lib.tensor(1.0, dtype=dt)))
    rec.err("mismatch", lambda: lib.testing.assert_close(a, b[:12] if b.numel() >= 12 else a + 1))
    # marginal violation checks as users write them
    P = a[:, None] * b[None, :]
    rec("marg_ok", lib.allclose(P.sum(1), a) and lib.allclose(P.sum(0), b))
    rec("isclose", lib.isclose(P.sum(0), b, rtol=0, atol=1e-12).all())
    rec("norm_inf", lib.linalg.vector_norm(P.sum(0) - b, ord=float("inf")))
    rec("norm_1", lib.linalg.norm(P.sum(1) - a, ord=1))
    rec("sum_check", (P.sum() - 1).abs() < 1e-6)


def p_emd_1d_cdf(lib, dt, rec):
    # histograms on a grid: W1 = sum |cdf diff| * dx; W2 via the inverse cdfs
    g = lib.Generator().manual_seed(16)
    bins = lib.linspace(-3, 3, 61, dtype=dt)
    h = lib.histc(lib.randn(500, generator=g, dtype=dt), bins=60, min=-3, max=3)
    k = lib.histc(lib.randn(500, generator=g, dtype=dt) * 0.8 + 0.4, bins=60, min=-3, max=3)
    h, k = h / h.sum(), k / k.sum()
    dx = bins[1] - bins[0]
    w1 = (lib.cumsum(h, 0) - lib.cumsum(k, 0)).abs().sum() * dx
    rec("w1", w1)
    ch = lib.cumsum(h, dim=0)
    ck = lib.cumsum(k, dim=0)
    levels = lib.linspace(0.01, 0.99, 50, dtype=dt)
    ih = bins[1:][lib.searchsorted(ch, levels)]
    ik = bins[1:][lib.searchsorted(ck, levels)]
    rec("inv_h", ih)
    rec("w2", ((ih - ik) ** 2).mean().sqrt())
    cnt, edges = lib.histogram(lib.randn(200, generator=g, dtype=dt), bins=10, range=(-2.0, 2.0))
    rec("hist", cnt)
    rec("edges", edges)
    rec(
        "bincount",
        lib.bincount(lib.searchsorted(bins, lib.randn(50, generator=g, dtype=dt)), minlength=62),
    )
    rec("cummax", lib.cummax(h, 0).values)
    rec("logcumsumexp", lib.logcumsumexp(h.log(), 0)[-5:])


def p_cost_matrices(lib, dt, rec):
    g = lib.Generator().manual_seed(17)
    x = lib.randn(6, 3, generator=g, dtype=dt)
    y = lib.randn(5, 3, generator=g, dtype=dt)
    rec("sqeuclid", lib.sum((x.unsqueeze(1) - y.unsqueeze(0)) ** 2, dim=-1))
    rec("addmm", lib.addmm((x * x).sum(1, keepdim=True) + (y * y).sum(1), x, y.T, alpha=-2))
    rec("baddbmm", lib.baddbmm(lib.zeros(1, 6, 5, dtype=dt), x[None], y.T[None], beta=0, alpha=-2))
    rec(
        "cos_cost",
        1 - lib.nn.functional.normalize(x, dim=-1) @ lib.nn.functional.normalize(y, dim=-1).T,
    )
    rec("l1", (x[:, None] - y[None]).abs().sum(-1))
    rec(
        "huber",
        lib.nn.functional.huber_loss(
            x[:, None].expand(6, 5, 3), y[None].expand(6, 5, 3), reduction="none"
        ).sum(-1),
    )
    rec("lp", lib.linalg.vector_norm(x[:, None] - y[None], ord=1.5, dim=-1))
    rec(
        "mahal",
        lib.einsum(
            "ijk,kl,ijl->ij", x[:, None] - y[None], lib.eye(3, dtype=dt) * 2, x[:, None] - y[None]
        ),
    )
    # circle costs on angles
    th1 = lib.rand(6, generator=g, dtype=dt) * 2 * math.pi
    th2 = lib.rand(5, generator=g, dtype=dt) * 2 * math.pi
    d = lib.remainder(th1[:, None] - th2[None] + math.pi, 2 * math.pi) - math.pi
    rec("circ", d.abs())
    rec("fmod", lib.fmod(th1[:, None] - th2[None], math.pi))
    rec("atan2", lib.atan2(lib.sin(th1[:, None] - th2[None]), lib.cos(th1[:, None] - th2[None])))
    # wasserstein between Gaussians (Bures)
    A = lib.randn(3, 3, generator=g, dtype=dt)
    S1 = A @ A.T + lib.eye(3, dtype=dt)
    B = lib.randn(3, 3, generator=g, dtype=dt)
    S2 = B @ B.T + lib.eye(3, dtype=dt)
    ev, V = lib.linalg.eigh(S1)
    r1 = V @ lib.diag(ev.sqrt()) @ V.T
    ev2, _ = lib.linalg.eigh(r1 @ S2 @ r1)
    bures = lib.trace(S1) + lib.trace(S2) - 2 * ev2.clamp_min(0).sqrt().sum()
    rec("bures", bures)
    rec("sqrtm_check", (r1 @ r1 - S1).abs().max() < 1e-3)
    # OT map between Gaussians
    ir1 = lib.linalg.inv(r1)
    e3, V3 = lib.linalg.eigh(r1 @ S2 @ r1)
    Tm = ir1 @ (V3 @ lib.diag(e3.sqrt()) @ V3.T) @ ir1
    rec("Tmap", Tm)
    rec("Tmap_sym", (Tm - Tm.T).abs().max() < 1e-3)


def p_semi_dual(lib, dt, rec):
    # stochastic semi-dual OT: learn g on target points by SGD over source samples
    gen = lib.Generator().manual_seed(18)
    y = lib.randn(10, 2, generator=gen, dtype=dt) + 1
    b = lib.full((10,), 0.1, dtype=dt)
    gpot = lib.zeros(10, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([gpot], lr=0.5, momentum=0.9)
    eps = 0.1
    for step in range(15):
        xs = lib.randn(16, 2, generator=gen, dtype=dt)
        C = lib.cdist(xs, y) ** 2
        f = -eps * lib.logsumexp((gpot[None] - C) / eps + b.log()[None], dim=1)
        obj = -(f.mean() + (gpot * b).sum())
        opt.zero_grad()
        obj.backward()
        opt.step()
        rec(f"obj{step}", obj)
    rec("g", gpot - gpot.mean())
    # hard semi-dual (c-transform) with min
    C = lib.cdist(lib.randn(16, 2, generator=gen, dtype=dt), y) ** 2
    ct = (C - gpot.detach()[None]).min(dim=1)
    rec("ct_vals", ct.values)
    rec("ct_idx", ct.indices)
    rec("amin", lib.amin(C, dim=1))
    rec("aminmax", lib.aminmax(C, dim=0).max)


def p_sinkhorn_knopp_scaling(lib, dt, rec):
    # scaling a positive matrix to doubly stochastic; in-place updates and convergence loop
    g = lib.Generator().manual_seed(19)
    A = lib.rand(6, 6, generator=g, dtype=dt) + 0.1
    M = A.clone()
    iters = 0
    while iters < 500:
        M.div_(M.sum(1, keepdim=True))
        M /= M.sum(0, keepdim=True)
        iters += 1
        if (M.sum(1) - 1).abs().max() < (1e-9 if dt == lib.float64 else 1e-5):
            break
    rec("iters", iters)
    rec("M", M)
    r = lib.ones(6, dtype=dt)
    c = lib.ones(6, dtype=dt)
    for _ in range(100):
        r = 1 / (A @ c)
        c = 1 / (A.T @ r)
    rec("D", lib.diag(r) @ A @ lib.diag(c))
    rec("perm_like", lib.linalg.matrix_norm(M - M.round(), ord="fro"))
    # Sinkhorn permutations (Gumbel-Sinkhorn)
    logits = lib.randn(5, 5, generator=g, dtype=dt)
    gum = -lib.log(-lib.log(lib.rand(5, 5, generator=g, dtype=dt)))
    la = (logits + gum) / 0.1
    for _ in range(30):
        la = la - lib.logsumexp(la, dim=1, keepdim=True)
        la = la - lib.logsumexp(la, dim=0, keepdim=True)
    Ps = la.exp()
    rec("Ps", Ps)
    rec("hard", Ps.argmax(1))
    rec("stoch", Ps.sum(1))


def p_ot_flow_matching(lib, dt, rec):
    # minibatch OT coupling for flow matching: pair samples by the plan, train a small MLP
    lib.manual_seed(1)
    gen = lib.Generator().manual_seed(20)
    net = lib.nn.Sequential(lib.nn.Linear(3, 16), lib.nn.SiLU(), lib.nn.Linear(16, 2)).to(dt)
    opt = lib.optim.AdamW(net.parameters(), lr=3e-3)
    for step in range(6):
        x0 = lib.randn(16, 2, generator=gen, dtype=dt)
        x1 = lib.randn(16, 2, generator=gen, dtype=dt) * 0.5 + lib.tensor([2.0, 0.0], dtype=dt)
        C = lib.cdist(x0, x1) ** 2
        a = lib.full((16,), 1 / 16, dtype=dt)
        with lib.no_grad():
            _, _, P = _sinkhorn_log(lib, C, a, a, 0.05, 60)
        idx = lib.multinomial(P.flatten() / P.sum(), 16, replacement=True, generator=gen)
        i, j = idx // 16, idx % 16
        rec(f"ij{step}", lib.stack([i, j]))
        t = lib.rand(16, 1, generator=gen, dtype=dt)
        xt = (1 - t) * x0[i] + t * x1[j]
        vt = x1[j] - x0[i]
        pred = net(lib.cat([xt, t], dim=1))
        loss = lib.nn.functional.mse_loss(pred, vt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("perm", P.argmax(1))
    rec("div", lib.div(idx, 16, rounding_mode="floor"))


def _sinkhorn_fn(lib):
    """Sinkhorn as a custom autograd.Function whose backward is the envelope theorem: the
    gradient of <P, C> + eps KL with respect to C is the plan, to a and b the potentials."""

    class SinkhornLoss(lib.autograd.Function):
        @staticmethod
        def forward(ctx, C, a, b, eps):
            f, g, P = _sinkhorn_log(lib, C, a, b, eps, 60)
            ctx.save_for_backward(P, f, g)
            ctx.mark_non_differentiable(P)
            return (f * a).sum() + (g * b).sum(), P

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, grad, _gP):
            P, f, g = ctx.saved_tensors
            return grad * P, grad * f, grad * g, None

    return SinkhornLoss


def p_custom_function(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, n=7, m=5, seed=21)
    Fn = _sinkhorn_fn(lib)
    xr = x.clone().requires_grad_()
    ar = a.clone().requires_grad_()
    C = lib.cdist(xr, y) ** 2
    val, P = Fn.apply(C, ar, b, 0.2)
    rec("val", val)
    rec("P", P)
    rec("P_rg", [P.requires_grad, val.requires_grad, type(val.grad_fn).__name__])
    val.backward()
    rec("gx", xr.grad)
    rec("ga", ar.grad - ar.grad.mean())
    # the unrolled gradient agrees with the envelope one at convergence
    xu = x.clone().requires_grad_()
    f, g, _ = _sinkhorn_log(lib, lib.cdist(xu, y) ** 2, a, b, 0.2, 60)
    ((f * a).sum() + (g * b).sum()).backward()
    rec("gx_unrolled", xu.grad)
    # a second derivative: once_differentiable's result is a constant, the cost's part remains
    xs = x.clone().requires_grad_()
    v2, _ = Fn.apply(((xs[:, None] - y[None]) ** 2).sum(-1), a, b, 0.2)
    (gx,) = lib.autograd.grad(v2, xs, create_graph=True)
    rec.err("double", lambda: gx.pow(2).sum().backward())
    rec("gxx", xs.grad)
    if dt == lib.float64:
        ok = lib.autograd.gradcheck(
            lambda c: Fn.apply(c, a, b, 0.5)[0], (C.detach().requires_grad_(),)
        )
        rec("gradcheck", ok)
    rec("repr_fn", type(val.grad_fn).__name__)


def p_printing(lib, dt, rec):
    x, y, a, b = _clouds(lib, dt, n=4, m=3, seed=22)
    C = lib.cdist(x, y) ** 2
    _, _, P = _sinkhorn_log(lib, C, a, b, 0.05, 50)
    rec("repr_P", repr(P))
    rec("str_C", str(C))
    rec("repr_tiny", repr(lib.exp(-C / 0.01)))
    lib.set_printoptions(precision=3, sci_mode=False)
    try:
        rec("repr_P3", repr(P))
        rec("repr_K3", repr(lib.exp(-C / 0.05)))
    finally:
        lib.set_printoptions(profile="default")
    rec("fmt", f"cost={float((P * C).sum()):.4f}")
    rec("fmt_t", f"{(P * C).sum():.4f}")
    rec("tolist", [[round(v, 6) for v in row] for row in P.tolist()])
    rec("repr_grad", repr(lib.logsumexp(C.clone().requires_grad_(), 1)))
    rec("repr_cdist", repr(lib.cdist(x.clone().requires_grad_(), y)).split("grad_fn")[1])
    rec("repr_sort", repr(lib.sort(C.clone().requires_grad_(), 1)))


def p_ranks_scatter(lib, dt, rec):
    # hard and soft ranks, assignments from plans with gather/scatter, and quantile gradients
    g = lib.Generator().manual_seed(23)
    K = lib.rand(4, 6, generator=g, dtype=dt)
    rec("median", K.median(dim=1))
    rec("kth", lib.kthvalue(K, 2, dim=0))
    rec("msort", lib.msort(K))
    rec("take", lib.take_along_dim(K, K.argsort(1), dim=1))
    rec("gather", K.gather(1, K.argsort(1, descending=True)))
    rec("scatter", lib.zeros(4, 6, dtype=dt).scatter_(1, K.argsort(1), K))
    idx = lib.tensor([0, 1, 1, 3, 2, 3])
    rec(
        "sreduce",
        lib.zeros(4, dtype=dt).scatter_reduce(0, idx, K[0], reduce="amax", include_self=False),
    )
    rec("iadd", lib.zeros(4, dtype=dt).index_add_(0, idx, K[1], alpha=2))
    rec("cummin", lib.cummin(K, 1))
    t = K[0].clone().requires_grad_()
    (gs,) = lib.autograd.grad((t.sort(0).values * lib.arange(6, dtype=dt)).sum(), t)
    rec("g_sort", gs)
    (gq,) = lib.autograd.grad(lib.quantile(t, lib.tensor([0.3, 0.8], dtype=dt)).sum(), t)
    rec("g_quantile", gq)
    (gm,) = lib.autograd.grad(t.median() + t.topk(2).values.sum(), t)
    rec("g_median_topk", gm)
    # assignment from a plan: argmax per row, one-hot, and the permutation's cost
    C = (K[:, :4] - K[:, 4:5]) ** 2
    _, _, P = _sinkhorn_log(
        lib, C, lib.full((4,), 0.25, dtype=dt), lib.full((4,), 0.25, dtype=dt), 1e-3, 200
    )
    perm = P.argmax(1)
    rec("perm", perm)
    rec("onehot", lib.nn.functional.one_hot(perm, 4))
    rec("perm_cost", C[lib.arange(4), perm].sum())
    rec("unique", lib.unique(perm, return_counts=True))
    rec("masked_inf", K.masked_fill(K > 0.5, float("inf")).logsumexp(1))
    rec("masked_ninf", (-K.masked_fill(K > 0.2, float("inf"))).logsumexp(1))
    rec("where_scalar", lib.where(K > 0.5, K, 0.0))


def p_plan_sampling(lib, dt, rec):
    # sampling pairs from a plan: Categorical over rows, multinomial, and Gumbel top-1
    x, y, a, b = _clouds(lib, dt, n=6, m=5, seed=24)
    C = lib.cdist(x, y) ** 2
    _, _, P = _sinkhorn_log(lib, C, a, b, 0.1, 80)
    cond = P / P.sum(1, keepdim=True)
    cat = lib.distributions.Categorical(probs=cond)
    rec("entropy", cat.entropy())
    rec("logp", cat.log_prob(lib.tensor([0, 1, 2, 3, 4, 0])))
    rec("cat_logits_probs", lib.distributions.Categorical(logits=cond.log()).probs)
    lib.manual_seed(5)
    rec("cat_sample", cat.sample((3,)))
    gen = lib.Generator().manual_seed(6)
    rec("multi", lib.multinomial(cond, 2, generator=gen))
    rec("multi_rep", lib.multinomial(P.flatten(), 12, replacement=True, generator=gen))
    lib.manual_seed(7)
    rec("gumbel", lib.nn.functional.gumbel_softmax(cond.log(), tau=0.5, hard=True))
    rec.err("bad_probs", lambda: lib.distributions.Categorical(probs=-cond))
    rec.err("multi_nr", lambda: lib.multinomial(lib.tensor([0.5, 0.5], dtype=dt), 3))
    rec.err("multi_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    joint = lib.distributions.Categorical(probs=P.flatten())
    rec("joint_H", joint.entropy())
    rec("mutual_info", (P * (P / (P.sum(1, keepdim=True) * P.sum(0, keepdim=True))).log()).sum())


def p_inplace_saved(lib, dt, rec):
    # in-place edits of costs and plans after the op that saved them: torch refuses backward
    g = lib.Generator().manual_seed(25)
    X = lib.randn(5, 2, generator=g, dtype=dt)
    Y = lib.randn(4, 2, generator=g, dtype=dt)
    X30 = lib.randn(30, 2, generator=g, dtype=dt)

    def out_edit(fn, edit):
        x = X.clone().requires_grad_()
        o = fn(x)
        edit(o)
        o.sum().backward()
        return x.grad

    def in_edit(fn):
        x = X.clone().requires_grad_()
        z = x * 1
        o = fn(z)
        z.mul_(2)
        o.sum().backward()
        return x.grad

    cases = {
        "cdist": lambda x: lib.cdist(x, Y),
        "cdist_mm": lambda x: lib.cdist(x, X30),
        "cdist_p1": lambda x: lib.cdist(x, Y, p=1),
        "cdist_pinf": lambda x: lib.cdist(x, Y, p=float("inf")),
        "cdist_p3": lambda x: lib.cdist(x, Y, p=3),
        "lse": lambda x: lib.logsumexp(x, 1),
        "exp": lib.exp,
        "softmax": lambda x: lib.softmax(x, 1),
        "log_softmax": lambda x: lib.log_softmax(x, 1),
        "sort": lambda x: lib.sort(x, 0).values,
        "normalize": lambda x: lib.nn.functional.normalize(x, dim=1),
    }
    for name, fn in cases.items():
        rec.err("out_" + name, lambda fn=fn: out_edit(fn, lambda o: o.mul_(2)))
        rec.err("in_" + name, lambda fn=fn: in_edit(fn))
    # the usual fix: square out of place
    x = X.clone().requires_grad_()
    C = lib.cdist(x, Y)
    C = C**2
    C.sum().backward()
    rec("g_ok", x.grad)
    rec(
        "names",
        [
            lib.cdist(X.clone().requires_grad_(), Z, p=p).grad_fn.name()
            for Z, p in ((Y, 2.0), (X30, 2.0), (Y, 1.0))
        ],
    )
    rec("next_mm", lib.cdist(X.clone().requires_grad_(), X30).grad_fn.next_functions[0][0].name())
    # what saved_tensors_hooks see of an unrolled log-domain solver (offloading code counts them)
    packed = []
    x = X.clone().requires_grad_()
    with lib.autograd.graph.saved_tensors_hooks(
        lambda t: packed.append(tuple(t.shape)) or t, lambda t: t
    ):
        C = lib.cdist(x, Y) ** 2
        f, g, P = _sinkhorn_log(
            lib, C, lib.full((5,), 0.2, dtype=dt), lib.full((4,), 0.25, dtype=dt), 0.1, 3
        )
    rec("packed", str(packed))
    (P * C).sum().backward()
    rec("g_hooked", x.grad)


def p_func_transforms(lib, dt, rec):
    g = lib.Generator().manual_seed(26)
    X = lib.randn(5, 2, generator=g, dtype=dt)
    Y = lib.randn(4, 2, generator=g, dtype=dt)
    a = lib.full((5,), 0.2, dtype=dt)
    b = lib.full((4,), 0.25, dtype=dt)
    C = lib.cdist(X, Y) ** 2

    def dual(f):
        gg = -0.1 * lib.logsumexp((f[:, None] - C) / 0.1 + a.log()[:, None], 0)
        return (f * a).sum() + (gg * b).sum()

    f0 = lib.randn(5, generator=g, dtype=dt) * 0.1
    # gradient ascent on the semi-dual with Newton steps from the Hessian
    f = f0.clone()
    for it in range(5):
        gr = lib.func.grad(dual)(f)
        H = lib.func.hessian(dual)(f) - 0.5 * lib.eye(5, dtype=dt)
        f = f - lib.linalg.solve(H, gr)
        rec(f"dual{it}", dual(f))
    rec("f", f - f.mean())
    rec("hvp", lib.autograd.functional.hvp(dual, f0, lib.arange(5, dtype=dt))[1])
    rec("hess", lib.autograd.functional.hessian(dual, f0))
    rec(
        "vjp", lib.autograd.functional.vjp(lambda f: lib.softmax(f, 0), f0, lib.arange(5, dtype=dt))
    )
    rec(
        "jvp", lib.autograd.functional.jvp(lambda f: lib.softmax(f, 0), f0, lib.arange(5, dtype=dt))
    )
    rec("jacfwd", lib.func.jacfwd(lambda f: lib.logsumexp(f[:, None] - C, 0))(f0))
    rec("vmap_grad", lib.func.vmap(lib.func.grad(dual))(lib.randn(3, 5, generator=g, dtype=dt)))
    rec("grad_value", lib.func.grad_and_value(dual)(f0))
    # (torch.func.jacrev of cdist is wrong in torch 2.13 beyond the first row: see Known and left)
    rec("jac_cdist", lib.autograd.functional.jacobian(lambda x: lib.cdist(x, Y), X)[1, 2])
    rec("jac_cdist_p1", lib.autograd.functional.jacobian(lambda x: lib.cdist(x, Y, p=1), X)[1, 2])
    rec("vmap_cdist", lib.func.vmap(lambda x: lib.cdist(x[None], Y))(X))
    rec("vmap_sort", lib.func.vmap(lambda x: lib.sort(x).values)(X))
    s = X.sort(1).values
    rec("vmap_ss", lib.func.vmap(lambda s, v: lib.searchsorted(s, v))(s, X[:, :1].contiguous()))
    rec("vmap_lse", lib.func.vmap(lambda s: lib.logsumexp(s, 0))(X))
    rec.err("vmap_randn", lambda: lib.func.vmap(lambda p: p + lib.randn(2, dtype=dt))(X))
    rec(
        "vmap_multi",
        lib.func.vmap(lambda p: lib.multinomial(p, 1), randomness="different")(
            lib.softmax(X, 1)
        ).shape,
    )


def p_low_precision(lib, dt, rec):
    # a log-domain Sinkhorn in bfloat16/float16 and under CPU autocast, as mixed-precision code
    # runs it; the float dtype of the program is the accumulation dtype
    g = lib.Generator().manual_seed(27)
    X = lib.randn(6, 3, generator=g, dtype=dt)
    Y = lib.randn(5, 3, generator=g, dtype=dt)
    for half in (lib.bfloat16, lib.float16):
        Xh, Yh = X.to(half), Y.to(half)
        C = ((Xh[:, None] - Yh[None]) ** 2).sum(-1)
        rec(f"C_{half}", C)
        rec(f"lse_{half}", lib.logsumexp(-C, 1))
        rec(f"softmax_{half}", lib.softmax(-C, 1))
        rec(f"sort_{half}", C.sort(1).values)
        rec(f"cumsum_{half}", lib.cumsum(C, 0))
        rec(f"norm_{half}", lib.nn.functional.normalize(Xh, dim=1))
        rec(f"mm_{half}", Xh @ Yh.T)
        rec(f"einsum_{half}", lib.einsum("ij,kj->ik", Xh, Yh))
        rec(f"xlogy_{half}", lib.xlogy(C, C))
        rec.err(f"quantile_{half}", lambda C=C: lib.quantile(C, 0.5))
        rec.err(f"cdist_{half}", lambda Xh=Xh, Yh=Yh: lib.cdist(Xh, Yh))
        f = lib.zeros(6, dtype=half)
        gg = lib.zeros(5, dtype=half)
        for _ in range(10):
            f = -0.5 * lib.logsumexp((gg[None] - C) / 0.5, dim=1) + 0.5 * math.log(5)
            gg = -0.5 * lib.logsumexp((f[:, None] - C) / 0.5, dim=0) + 0.5 * math.log(6)
        rec(f"f_{half}", f)
        rec(f"P_{half}", ((f[:, None] + gg[None] - C) / 0.5).exp() / 30)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        D = lib.cdist(X @ lib.eye(3, dtype=dt), Y)
        M = X @ Y.T
        rec("ac_cdist", D)
        rec("ac_mm", M)
        rec("ac_lse", lib.logsumexp(M, 1))
        rec("ac_softmax", lib.softmax(M, 1))
        rec("ac_exp", lib.exp(-M))


def p_ot_module(lib, dt, rec):
    # an OT loss packaged as an nn.Module with buffers, extra_repr and a state_dict round trip
    class SinkhornLoss(lib.nn.Module):
        def __init__(self, eps=0.1, iters=40, debias=True):
            super().__init__()
            self.eps, self.iters, self.debias = eps, iters, debias
            self.register_buffer("calls", lib.zeros((), dtype=lib.long))
            self.register_buffer("last_err", lib.zeros(()), persistent=False)

        def extra_repr(self):
            return f"eps={self.eps}, iters={self.iters}, debias={self.debias}"

        def _ot(self, x, y):
            a = x.new_full((x.shape[-2],), 1.0 / x.shape[-2])
            b = y.new_full((y.shape[-2],), 1.0 / y.shape[-2])
            C = lib.cdist(x, y) ** 2
            f, g, P = _sinkhorn_log(lib, C, a, b, self.eps, self.iters)
            self.last_err = (P.sum(-2) - b).abs().max().detach()
            return (f * a).sum(-1) + (g * b).sum(-1)

        def forward(self, x, y):
            self.calls += 1
            val = self._ot(x, y)
            if self.debias:
                val = val - 0.5 * (self._ot(x, x) + self._ot(y, y))
            return val

    loss_fn = SinkhornLoss(eps=0.2).to(dt)
    rec("repr", repr(loss_fn))
    gen = lib.Generator().manual_seed(28)
    x = lib.randn(2, 8, 2, generator=gen, dtype=dt).requires_grad_()
    y = lib.randn(2, 6, 2, generator=gen, dtype=dt) + 1
    opt = lib.optim.Adam([x], lr=0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    for step in range(6):
        loss = loss_fn(x, y).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    rec("x", x)
    rec("err_dtype", str(loss_fn.last_err.dtype))
    sd = loss_fn.state_dict()
    rec("sd_keys", list(sd))
    rec("calls", sd["calls"])
    other = SinkhornLoss()
    rec("load", str(other.load_state_dict(sd)))
    rec("buffers", [n for n, _ in other.named_buffers()])
    rec("lr", sched.get_last_lr())


def p_procrustes(lib, dt, rec):
    # Wasserstein-Procrustes: alternate a plan and an orthogonal map (SVD), then Gaussian W2
    gen = lib.Generator().manual_seed(29)
    X = lib.randn(12, 3, generator=gen, dtype=dt)
    Q = lib.linalg.qr(lib.randn(3, 3, generator=gen, dtype=dt)).Q
    Y = X[lib.randperm(12, generator=gen)] @ Q + 0.01 * lib.randn(12, 3, generator=gen, dtype=dt)
    a = lib.full((12,), 1 / 12, dtype=dt)
    R = lib.eye(3, dtype=dt)
    for it in range(6):
        C = lib.cdist(X @ R, Y) ** 2
        _, _, P = _sinkhorn_log(lib, C, a, a, 0.05, 60)
        U, S, Vh = lib.linalg.svd(X.T @ P @ Y)
        R = U @ Vh
        rec(f"cost{it}", (P * C).sum())
        rec(f"S{it}", S)
    rec("R", R)
    rec("orth", (R.T @ R - lib.eye(3, dtype=dt)).abs().max() < 1e-4)
    rec("det", lib.linalg.det(R).abs())
    rec("svdvals", lib.linalg.svdvals(X.T @ P @ Y))
    # Gaussian W2 (Bures) via eigh on batched covariances, and an MVN's scale_tril
    A = lib.randn(2, 3, 3, generator=gen, dtype=dt)
    S1 = A @ A.mT + lib.eye(3, dtype=dt)
    S2 = A.flip(0) @ A.flip(0).mT + 0.5 * lib.eye(3, dtype=dt)
    ev, V = lib.linalg.eigh(S1)
    r1 = V @ lib.diag_embed(ev.sqrt()) @ V.mT
    ev2 = lib.linalg.eigvalsh(r1 @ S2 @ r1)
    w2 = lib.diagonal(S1 + S2, dim1=-2, dim2=-1).sum(-1) - 2 * ev2.clamp_min(0).sqrt().sum(-1)
    rec("bures", w2)
    L = lib.linalg.cholesky(S1)
    rec("chol", L)
    mvn = lib.distributions.MultivariateNormal(lib.zeros(2, 3, dtype=dt), scale_tril=L)
    rec("mvn_cov", mvn.covariance_matrix)
    rec("mvn_entropy", mvn.entropy())
    other = lib.distributions.MultivariateNormal(lib.ones(2, 3, dtype=dt), covariance_matrix=S2)
    rec("kl", lib.distributions.kl_divergence(mvn, other))
    rec("chol_solve", lib.cholesky_solve(lib.ones(2, 3, 1, dtype=dt), L))
    rec("matrix_power", lib.linalg.matrix_power(r1, 2))


def p_eps_scaling(lib, dt, rec):
    # epsilon annealing with warm starts (geomloss style), decorated no_grad solvers
    x, y, a, b = _clouds(lib, dt, n=14, m=10, seed=30)
    C = lib.cdist(x, y) ** 2

    @lib.no_grad()
    def solve(C, eps_list):
        f = lib.zeros_like(a)
        g = lib.zeros_like(b)
        for eps in eps_list:
            for _ in range(10):
                f = -eps * lib.logsumexp((g[None] - C) / eps + b.log()[None], dim=1)
                g = -eps * lib.logsumexp((f[:, None] - C) / eps + a.log()[:, None], dim=0)
        return f, g

    diam = (x.max(0).values - x.min(0).values).norm().item()
    eps_list = [diam**2 * q for q in lib.logspace(0, -3, 8, dtype=dt).tolist()]
    rec("eps", eps_list)
    f, g = solve(C, eps_list)
    rec("f_rg", f.requires_grad)
    eps = eps_list[-1]
    P = lib.exp((f[:, None] + g[None] - C) / eps) * a[:, None] * b[None]
    rec("P", P)
    rec("cost", (P * C).sum())
    rec("marg", (P.sum(1) - a).abs().max() < 1e-3)

    @lib.enable_grad()
    def grad_of_cost(x):
        x = x.detach().requires_grad_()
        Cx = lib.cdist(x, y) ** 2
        fx = -eps * lib.logsumexp((g[None] - Cx) / eps + b.log()[None], dim=1)
        (gx,) = lib.autograd.grad((fx * a).sum(), x)
        return gx

    with lib.no_grad():
        gx = grad_of_cost(x)
    rec("gx", gx)
    rec("is_grad", lib.is_grad_enabled())
    with lib.set_grad_enabled(False):
        rec("no_grad_rg", (x.requires_grad_() * 2).requires_grad)


def p_nonfinite_costs(lib, dt, rec):
    # missing coordinates (NaN) and far-away points (inf) in cdist/pdist costs, with gradients:
    # cdist's p = inf kernel passes over a NaN coordinate, pdist's does not
    n, inf = math.nan, math.inf
    rows = [[inf, 0.0], [inf, inf], [-inf, 1.0], [n, 0.0], [0.0, n], [n, n], [2.0, -2.0]]
    for p in (0.0, 0.5, 1.0, 2.0, 3.0, inf):
        x = lib.tensor(rows, dtype=dt, requires_grad=True)
        y = lib.tensor([[0.0, 0.0], [1.0, 3.0]], dtype=dt)
        D = lib.cdist(x, y, p=p)
        (gx,) = lib.autograd.grad(D, x, lib.tensor([[0.0, 1.0]] * 7, dtype=dt))
        rec(f"cdist{p}", D)
        rec(f"cdist_g{p}", gx)
    for p in (0.5, 1.0, 2.0, 3.0, inf):
        for k, pts in enumerate(
            ([[inf, 0.0], [0.0, 0.0], [1.0, 2.0]], [[n, 1.0], [0.0, 0.0], [1.0, 2.0]])
        ):
            x = lib.tensor(pts, dtype=dt, requires_grad=True)
            d = lib.pdist(x, p=p)
            (gx,) = lib.autograd.grad(d, x, lib.tensor([1.0, 2.0, 3.0], dtype=dt))
            rec(f"pdist{p}_{k}", d)
            rec(f"pdist_g{p}_{k}", gx)
    # a robust cost: NaN-free distances by masking, then a plan
    X = lib.tensor([[0.0, 1.0], [n, 2.0], [3.0, 0.5]], dtype=dt)
    Y = lib.tensor([[0.5, 0.5], [2.0, 2.0]], dtype=dt)
    C = lib.cdist(X, Y, p=float("inf"))
    rec("C_inf", C)
    C = lib.nan_to_num(lib.cdist(X, Y), nan=10.0)
    _, _, P = _sinkhorn_log(
        lib, C, lib.full((3,), 1 / 3, dtype=dt), lib.full((2,), 0.5, dtype=dt), 0.5, 50
    )
    rec("P", P)


def p_lbfgs_minibatch(lib, dt, rec):
    # the semi-dual maximised by LBFGS (with and without a line search), then minibatch OT over
    # a DataLoader with a seeded shuffle and a weighted sampler
    g = lib.Generator().manual_seed(31)
    X = lib.randn(20, 2, generator=g, dtype=dt)
    Y = lib.randn(15, 2, generator=g, dtype=dt) + 1
    a = lib.full((20,), 1 / 20, dtype=dt)
    b = lib.full((15,), 1 / 15, dtype=dt)
    C = lib.cdist(X, Y) ** 2
    for ls in (None, "strong_wolfe"):
        gp = lib.zeros(15, dtype=dt, requires_grad=True)
        opt = lib.optim.LBFGS([gp], lr=1, max_iter=30, history_size=5, line_search_fn=ls)

        def closure(gp=gp, opt=opt):
            opt.zero_grad()
            f = -0.05 * lib.logsumexp((gp[None] - C) / 0.05 + b.log()[None], 1)
            obj = -((f * a).sum() + (gp * b).sum())
            obj.backward()
            return obj

        for k in range(3):
            rec(f"{ls}_obj{k}", opt.step(closure))
        if dt == lib.float64:  # float32's stopping tests (1e-9 tolerances) meet rounding noise
            rec(f"{ls}_g", gp - gp.mean())
            rec(f"{ls}_iters", [opt.state[gp]["n_iter"], opt.state[gp]["func_evals"]])
    ds = lib.utils.data.TensorDataset(X, lib.arange(20))
    gen = lib.Generator().manual_seed(0)
    dl = lib.utils.data.DataLoader(ds, batch_size=6, shuffle=True, generator=gen, drop_last=True)
    total = 0.0
    for k, (xb, ib) in enumerate(dl):
        rec(f"ids{k}", ib)
        Cb = lib.cdist(xb, Y) ** 2
        _, _, P = _sinkhorn_log(lib, Cb, xb.new_full((6,), 1 / 6), b, 0.1, 40)
        total = total + (P * Cb).sum()
    rec("mb_cost", total / len(dl))
    sampler = lib.utils.data.WeightedRandomSampler(
        a * 20, 8, generator=lib.Generator().manual_seed(1)
    )
    rec("wrs", list(sampler))


def p_greenkhorn(lib, dt, rec):
    # Greenkhorn: update the single most violated row or column in place (scalar indexing,
    # argmax of violations), and a stabilised Sinkhorn with absorption into the potentials
    x, y, a, b = _clouds(lib, dt, n=8, m=7, seed=32)
    C = lib.cdist(x, y, p=1)
    eps = 0.2
    K = lib.exp(-C / eps)
    u = lib.full_like(a, 1.0 / 8)
    v = lib.full_like(b, 1.0 / 7)
    G = u[:, None] * K * v[None, :]
    viol = G.sum(1) - a
    viol2 = G.sum(0) - b
    picks = []
    for _ in range(60):
        i1 = lib.argmax(lib.abs(viol))
        i2 = lib.argmax(lib.abs(viol2))
        m1, m2 = lib.abs(viol[i1]), lib.abs(viol2[i2])
        if (m1 > m2).item():
            i = int(i1)
            new_u = a[i] / (K[i, :] @ v)
            G[i, :] = new_u * K[i, :] * v
            viol[i] = new_u * (K[i, :] @ v) - a[i]
            viol2 += K[i, :].T * (new_u - u[i]) * v
            u[i] = new_u
            picks.append(i)
        else:
            j = int(i2)
            new_v = b[j] / (K[:, j] @ u)
            G[:, j] = u * K[:, j] * new_v
            viol += (-v[j] + new_v) * K[:, j] * u
            viol2[j] = new_v * (K[:, j] @ u) - b[j]
            v[j] = new_v
            picks.append(-1 - j)
    rec("picks", picks)
    rec("G", G)
    rec("viol", lib.stack([viol.abs().max(), viol2.abs().max()]))
    # absorption: move large scalings into the potentials and rebuild the kernel
    alpha = lib.zeros_like(a)
    beta = lib.zeros_like(b)
    u, v = lib.ones_like(a), lib.ones_like(b)
    eps = 0.01
    Kt = lib.exp(-(C - alpha[:, None] - beta[None, :]) / eps)
    n_abs = 0
    for _ in range(100):
        u = a / (Kt @ v + 1e-300)
        v = b / (Kt.T @ u + 1e-300)
        if lib.max(lib.abs(u)) > 1e3 or lib.max(lib.abs(v)) > 1e3:
            alpha, beta = alpha + eps * lib.log(u), beta + eps * lib.log(v)
            u, v = lib.ones_like(a), lib.ones_like(b)
            Kt = lib.exp(-(C - alpha[:, None] - beta[None, :]) / eps)
            n_abs += 1
    P = u[:, None] * Kt * v[None, :]
    rec("n_abs", n_abs)
    rec("P", P)
    rec("alpha", alpha - alpha.mean())
