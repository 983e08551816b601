"""Session 36 (helper prox): proximal and sparse-coding algorithms written the way they are
written in torch, run under torch and minitorch with the same seeds and compared record by record:
ISTA and FISTA for the lasso (soft-thresholding as sign * relu(|x| - l), F.softshrink and
F.hardshrink, their modules and gradients), Euclidean projections onto the simplex (sort
descending, cumsum, arange, where, argmax and gather of the threshold; sparsemax as a custom
autograd Function), onto L1 and L2 balls (renorm, clamp_max of norms, vector_norm of every
order), dictionary learning with columns renormalised by F.normalize(dim=0) and by a
parametrization, the nuclear-norm prox and singular-value thresholding through
linalg.svd(full_matrices=False) (singular values and reconstructions only, never the
sign-ambiguous vectors) and their gradients, total-variation denoising (Chambolle's dual
algorithm with torch.diff and F.pad, and a smoothed TV by autograd), NMF multiplicative updates
(Frobenius and KL, with clamp_min(eps), in place too), power iteration for Lipschitz constants
against linalg.matrix_norm(ord=2) and every other order, iterative hard thresholding (topk +
scatter, kthvalue), group lasso and elastic-net proxes, ADMM for the lasso (cholesky_solve),
proximal SGD with in-place projections under no_grad and through .data, unrolled LISTA networks
with learned thresholds as Parameters (trained by Adam, second-order gradients, gradcheck and
gradgradcheck in float64), the autograd graphs these build (node names and their _saved_*
attributes, as a graph walk reads them), out= variants, half-precision inputs, and argument
sweeps of the shrinks, norms, renorm, svd, sort/gather/where, clamp, pad and diff.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- x.hardshrink("a") (the method) named lambd's position 2, as F.hardshrink does; torch's method
  says "argument 'lambd' (position 1) must be Number, not str".
- SoftshrinkBackward0 / HardshrinkBackward0 had no _saved_* attributes: now _saved_self and
  _saved_lambd (the number given) as torch's.
- LinalgVectorNormBackward0 (vector_norm, Tensor.norm, torch.norm, linalg.norm, F.normalize,
  matrix_norm 'fro') had none: now _saved_self, _saved_result, _saved_keepdim, _saved_dim (as
  given, None for all dims, a negative dim read back unsigned) and _saved_ord (as given: 2 for an
  int, 2.0 where linalg.norm and F.normalize pass a float, as torch's).
- RenormBackward0 had none: now _saved_self, _saved_p, _saved_dim (as given) and
  _saved_maxnorm.
- CumsumBackward0 had no _saved_dim (torch: the dim as given, -1 read back as 2**64 - 1).
- LinalgSvdBackward0 (linalg.svd, svdvals, torch.svd, the spectral and nuclear matrix norms) had
  none: now _saved_U, _saved_S, _saved_Vh, _saved_full_matrices and
  _saved_S_sym_argsize_minus_1.
- DiagEmbedBackward0 (diag_embed, diag of a vector, diagflat) had none: now _saved_offset,
  _saved_dim1 and _saved_dim2 as given (diag and diagflat pass -2, -1 as torch's do).
- KthvalueBackward0 had none (IndexBackward0's were hidden there): now _saved_dim (as given),
  _saved_indices (the returned indices), _saved_keepdim and _saved_self_sym_sizes.
- ConstantPadNdBackward0 (F.pad constant, negative pads too) had no _saved_pad, and the
  ReflectionPad*/ReplicationPad* nodes no _saved_padding / _saved_self (their double-backward
  nodes no _saved_padding): now as torch's.
- torch.gradient's keywords as torch's argument parser reads them: a spacing that is a str, a
  dict or a range, a dim that is a str, a float or a bool (or a sequence starting with a float),
  and an edge_order that is no int (1.5, None, True, "a") raised other errors or were taken;
  now the parser's overload list (the keywords in torch's order), or, where a number leads a
  spacing tuple, torch's "expected Tensor as element 0 in argument 1"; NumPy ints as spacing,
  dim or edge_order raised "object is not iterable" and are now read as ints.

Known and left (documented):
- torch's linalg.svd returns U and Vh column-major (strides (1, m), not contiguous; batched:
  each matrix column-major), as its other LAPACK results (s35 puzzles, s33 kalman); minitorch's
  are row-major, so U.view(-1) works here and MmBackward0's _saved_*_sym_strides of them differ.
  The programs record no strides.
- SliceBackward0 (x[:, 1:], narrow, the slices torch.diff takes) has no _saved_* attributes and
  SumBackward1 records a negative dim wrapped (matrix_norm 'nuc' sums over -1): hot paths (s36
  saved leaves them too); the graph walk records those nodes' names only.
- A missing required argument gives Python's message for most functions (torch.renorm(x, 2, 0):
  torch's parser says 'missing 1 required positional arguments: "maxnorm"'), as for clamp,
  diff, gather, matrix_norm, svd and the shrinks; an extra positional argument or an unknown
  keyword of a method names Tensor.<method>. Not recorded.
- torch.gradient with a coordinates tensor of the wrong length: torch does not check it and
  computes a result of another shape; minitorch raises (gradient's docstring). F.threshold(x,
  1.0) names "threshold()" in Python's missing-argument message (torch: "_threshold()").
- Complex tensors (softshrink of a complex input, torch.complex) are not supported by
  minitorch; the programs use real dtypes.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ista_lasso", "fista_softshrink", "shrink_ops", "simplex_proj", "ball_proj", "l1_ball",
    "dict_learning", "nuclear_prox", "nuclear_grad", "tv_denoise", "tv_grad", "nmf",
    "power_iteration", "lista_train", "lista_softshrink_grad", "lista_gradcheck",
    "lista_module_api", "lista_f32_vs_f64", "nodes", "out_variants", "half_dtypes", "iht_topk",
    "group_lasso", "admm_lasso", "prox_sgd_train", "dict_parametrize", "simplex_sparsemax",
    "graph_walk", "svd_grads", "shrink_edges", "func_prox", "gradient_threshold",
]  # fmt: skip
SWEEPS = ["sweep_shrink", "sweep_norms", "sweep_pg", "sweep_norm_dtypes", "sweep_gradient"]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


@pytest.mark.parametrize("name", SWEEPS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["p_" + name], torch)


# --- the programs: each takes the library, a dtype and a recorder (the sweeps: no dtype) ---


def _soft(lib, x, lam):
    return lib.sign(x) * lib.relu(x.abs() - lam)


def p_ista_lasso(lib, dt, rec):
    A = _randn(lib, dt, 1, 20, 30)
    x_true = _randn(lib, dt, 2, 30) * (_rand(lib, dt, 3, 30) > 0.7).to(dt)
    b = A @ x_true + 0.01 * _randn(lib, dt, 4, 20)
    L = lib.linalg.matrix_norm(A, ord=2) ** 2
    rec("L", L)
    lam = 0.1
    x = lib.zeros(30, dtype=dt)
    for _ in range(40):
        g = A.T @ (A @ x - b)
        x = _soft(lib, x - g / L, lam / L)
    rec("x", x)
    obj = 0.5 * (A @ x - b).pow(2).sum() + lam * x.abs().sum()
    rec("obj", obj)
    if dt == lib.float64:  # (counts of exact zeros: float32 iterates may cross a threshold)
        rec("nnz", (x != 0).sum())


def p_fista_softshrink(lib, dt, rec):
    F = lib.nn.functional
    A = _randn(lib, dt, 5, 15, 25)
    b = _randn(lib, dt, 6, 15)
    L = lib.linalg.matrix_norm(A, ord=2).pow(2)
    lam = 0.5
    x = lib.zeros(25, dtype=dt)
    y = x.clone()
    t = 1.0
    objs = []
    for _ in range(30):
        x_new = F.softshrink(y - A.T @ (A @ y - b) / L, lambd=float(lam / L))
        t_new = (1 + math.sqrt(1 + 4 * t * t)) / 2
        y = x_new + ((t - 1) / t_new) * (x_new - x)
        x, t = x_new, t_new
        objs.append(0.5 * (A @ x - b).pow(2).sum() + lam * lib.linalg.vector_norm(x, ord=1))
    rec("x", x)
    rec("objs", lib.stack(objs))
    rec("y", y)


def p_shrink_ops(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 7, 4, 6) * 2
    x.requires_grad_(True)
    for lam in (0.0, 0.5, 1.5):
        s = F.softshrink(x, lam)
        h = F.hardshrink(x, lam)
        rec(f"soft{lam}", s)
        rec(f"hard{lam}", h)
        g = lib.autograd.grad((s * s + h).sum(), x)[0]
        rec(f"g{lam}", g)
        rec(f"fn{lam}", type(s.grad_fn).__name__ + type(h.grad_fn).__name__)
    m = lib.nn.Softshrink(0.3)
    rec("mod", m(x.detach()))
    rec("mod_repr", repr(m) + repr(lib.nn.Hardshrink(0.7)))
    rec("tens", x.detach().hardshrink(0.2) - lib.hardshrink(x.detach(), lambd=0.3))
    rec.err("no_soft", lambda: x.softshrink(0.2))
    rec.err("neg", lambda: F.softshrink(x, -1.0))
    rec.err("int", lambda: F.softshrink(lib.tensor([1, 2, 3]), 0.5))
    rec.err("hard_int", lambda: F.hardshrink(lib.tensor([1, 2, 3]), 0.5))
    mine = _soft(lib, x, 0.5)
    rec("mine_vs", mine - F.softshrink(x, 0.5))


def _proj_simplex(lib, v, z=1.0):
    n = v.shape[-1]
    u, _ = lib.sort(v, dim=-1, descending=True)
    css = u.cumsum(-1) - z
    ind = lib.arange(1, n + 1, dtype=v.dtype, device=v.device)
    cond = u - css / ind > 0
    rho = lib.where(cond, ind, lib.zeros_like(ind)).argmax(-1, keepdim=True)
    theta = css.gather(-1, rho) / (rho + 1).to(v.dtype)
    return lib.clamp(v - theta, min=0)


def p_simplex_proj(lib, dt, rec):
    v = _randn(lib, dt, 8, 6, 9) * 2
    w = _proj_simplex(lib, v)
    rec("w", w)
    rec("sums", w.sum(-1))
    rec("nnz", (w > 0).sum(-1))
    w2 = _proj_simplex(lib, v, z=3.0)
    rec("w2", w2)
    # projected gradient on the simplex: min ||Aw - b||^2
    A = _randn(lib, dt, 9, 12, 9)
    b = _randn(lib, dt, 10, 12)
    L = lib.linalg.matrix_norm(A, ord=2) ** 2
    w = lib.full((9,), 1 / 9, dtype=dt)
    for _ in range(25):
        w = _proj_simplex(lib, w - A.T @ (A @ w - b) / L)
    rec("pg", w)
    vv = v.clone().requires_grad_(True)
    out = _proj_simplex(lib, vv)
    (out * _randn(lib, dt, 11, 6, 9)).sum().backward()
    rec("grad", vv.grad)


def p_ball_proj(lib, dt, rec):
    x = _randn(lib, dt, 12, 5, 7) * 3
    rec("renorm0", x.renorm(p=2, dim=0, maxnorm=1.0))
    rec("renorm1", lib.renorm(x, 2, 1, 0.5))
    rec("renorm_l1", x.renorm(1, 0, 2.0))
    rec("renorm_inf", x.renorm(float("inf"), 0, 1.0))
    n = lib.linalg.vector_norm(x, dim=1, keepdim=True)
    rec("l2ball", x / n.clamp_min(1.0))
    rec("l2ball_b", x * (1.0 / n).clamp_max(1.0))
    rec("scale", n.clamp_max(2.0))
    y = x.clone()
    y.renorm_(2, 0, 1.5)
    rec("renorm_", y)
    xr = x.clone().requires_grad_(True)
    out = xr.renorm(2, 0, 1.0)
    (out * _randn(lib, dt, 13, 5, 7)).sum().backward()
    rec("renorm_grad", xr.grad)
    rec.err("renorm_p0", lambda: x.renorm(0, 0, 1.0))
    rec.err("renorm_neg", lambda: x.renorm(2, 0, -1.0))
    rec.err("renorm_dim", lambda: x.renorm(2, 3, 1.0))
    rec.err("renorm_int", lambda: lib.ones(3, 3, dtype=lib.int64).renorm(2, 0, 1.0))
    rec.err("renorm_1d", lambda: lib.ones(3, dtype=dt).renorm(2, 0, 1.0))


def _proj_l1(lib, v, z):
    """Duchi et al.: project onto the L1 ball of radius z, row by row."""
    w = _proj_simplex(lib, v.abs(), z)
    return lib.sign(v) * w


def p_l1_ball(lib, dt, rec):
    v = _randn(lib, dt, 14, 4, 10)
    p = _proj_l1(lib, v, 1.5)
    rec("p", p)
    rec("l1", lib.linalg.vector_norm(p, ord=1, dim=-1))
    rec("norms", lib.linalg.norm(p, ord=1, dim=-1))
    rec("inf", lib.linalg.vector_norm(p, ord=float("inf"), dim=-1))
    rec("ninf", lib.linalg.vector_norm(v, ord=-float("inf"), dim=-1))
    rec("l0", lib.linalg.vector_norm(p, ord=0, dim=-1))


def p_dict_learning(lib, dt, rec):
    F = lib.nn.functional
    X = _randn(lib, dt, 20, 16, 40)
    D = F.normalize(_randn(lib, dt, 21, 16, 8), dim=0)
    rec("D0", D)
    rec("colnorm", D.norm(dim=0))
    lam = 0.2
    for it in range(6):
        L = lib.linalg.matrix_norm(D, ord=2) ** 2
        Z = lib.zeros(8, 40, dtype=dt)
        for _ in range(15):
            Z = F.softshrink(Z - D.T @ (D @ Z - X) / L, float(lam / L))
        # dictionary update: gradient step then renormalise columns
        G = (D @ Z - X) @ Z.T
        D = F.normalize(D - G / (lib.linalg.matrix_norm(Z @ Z.T, ord=2) + 1e-8), p=2, dim=0)
        rec(f"loss{it}", 0.5 * (D @ Z - X).pow(2).sum() + lam * Z.abs().sum())
    rec("D", D)
    rec("Z", Z)
    if dt == lib.float64:  # (counts of exact zeros: float32 iterates may cross a threshold)
        rec("sparsity", (Z == 0).to(dt).mean())
    rec("eps", F.normalize(lib.zeros(3, 2, dtype=dt), dim=0))
    rec("normalize_l1", F.normalize(X[:, :4], p=1, dim=0, eps=1e-6))
    out = lib.empty(16, 4, dtype=dt)
    r = F.normalize(X[:, :4], dim=0, out=out)
    rec("out_same", str(r is out))
    rec("out", out)


def p_nuclear_prox(lib, dt, rec):
    M = _randn(lib, dt, 22, 10, 6) @ _randn(lib, dt, 23, 6, 12) + 0.1 * _randn(lib, dt, 24, 10, 12)
    U, S, Vh = lib.linalg.svd(M, full_matrices=False)
    rec("shapes", str((tuple(U.shape), tuple(S.shape), tuple(Vh.shape))))
    rec("S", S)
    tau = 2.0
    S_t = lib.clamp(S - tau, min=0)
    X = U @ lib.diag(S_t) @ Vh
    rec("X", X)
    rec("rank", lib.linalg.matrix_rank(X, atol=1e-6 if dt == lib.float64 else 1e-3))
    rec("nuc", lib.linalg.matrix_norm(X, ord="nuc"))
    rec("fro", lib.linalg.matrix_norm(M - X))
    rec("recon", U @ (S.unsqueeze(-1) * Vh))
    rec("svdvals", lib.linalg.svdvals(X))
    rec("norm_nuc", lib.norm(M, p="nuc"))
    # batched with broadcasting (U * S[..., None, :])
    B = _randn(lib, dt, 25, 3, 5, 4)
    Ub, Sb, Vhb = lib.linalg.svd(B, full_matrices=False)
    Xb = (Ub * _relu_shift(lib, Sb, 0.5).unsqueeze(-2)) @ Vhb
    rec("Xb", Xb)
    rec("Sb", Sb)
    # matrix completion by singular value thresholding
    mask = (_rand(lib, dt, 26, 10, 12) > 0.4).to(dt)
    Y = lib.zeros_like(M)
    for _ in range(10):
        U, S, Vh = lib.linalg.svd(Y, full_matrices=False)
        Z = U @ lib.diag_embed(lib.clamp(S - 3.0, min=0)) @ Vh
        Y = Y + 1.2 * mask * (M - Z)
    rec("svt", Z)
    rec("svt_err", ((Z - M) * mask).norm() / (M * mask).norm())


def _relu_shift(lib, s, tau):
    return lib.nn.functional.relu(s - tau)


def p_nuclear_grad(lib, dt, rec):
    M0 = _randn(lib, dt, 27, 6, 4)
    M = M0.clone().requires_grad_(True)
    S = lib.linalg.svdvals(M)
    nuc = S.sum()
    nuc.backward()
    rec("nuc", nuc)
    rec("g_nuc", M.grad)  # = U Vh
    M.grad = None
    U, S, Vh = lib.linalg.svd(M, full_matrices=False)
    X = U @ lib.diag(lib.clamp(S - 0.7, min=0)) @ Vh
    (X * _randn(lib, dt, 28, 6, 4)).sum().backward()
    rec("g_prox", M.grad)
    M2 = M0.clone().requires_grad_(True)
    lib.linalg.matrix_norm(M2, ord="nuc").backward()
    rec("g_mn", M2.grad)
    M3 = M0.clone().requires_grad_(True)
    lib.linalg.matrix_norm(M3, ord=2).backward()
    rec("g_spec", M3.grad)
    M4 = M0.clone().requires_grad_(True)
    lib.linalg.matrix_norm(M4, ord=-2).backward()
    rec("g_minspec", M4.grad)


def _tv(lib, x):
    dh = lib.diff(x, dim=-2)
    dw = lib.diff(x, dim=-1)
    return dh.abs().sum() + dw.abs().sum()


def p_tv_denoise(lib, dt, rec):
    F = lib.nn.functional
    clean = lib.zeros(1, 1, 12, 12, dtype=dt)
    clean[..., 3:9, 4:10] = 1.0
    noisy = clean + 0.2 * _randn(lib, dt, 30, 1, 1, 12, 12)
    # Chambolle's dual projection algorithm, gradient via forward differences padded with F.pad
    lam = 0.15
    px = lib.zeros_like(noisy)
    py = lib.zeros_like(noisy)
    tau = 0.125
    for _ in range(30):
        div = (px - F.pad(px[..., :, :-1], (1, 0))) + (py - F.pad(py[..., :-1, :], (0, 0, 1, 0)))
        u = div - noisy / lam
        gx = F.pad(lib.diff(u, dim=-1), (0, 1))
        gy = F.pad(lib.diff(u, dim=-2), (0, 0, 0, 1))
        nrm = lib.sqrt(gx * gx + gy * gy)
        px = (px + tau * gx) / (1 + tau * nrm)
        py = (py + tau * gy) / (1 + tau * nrm)
    div = (px - F.pad(px[..., :, :-1], (1, 0))) + (py - F.pad(py[..., :-1, :], (0, 0, 1, 0)))
    den = noisy - lam * div
    rec("den", den)
    rec("tv_noisy", _tv(lib, noisy))
    rec("tv_den", _tv(lib, den))
    rec("mse", F.mse_loss(den, clean))
    # diff options
    v = _randn(lib, dt, 31, 3, 7)
    rec("diff2", lib.diff(v, n=2, dim=1))
    rec("diff_pre", lib.diff(v, dim=1, prepend=v[:, :1], append=v[:, -1:]))
    rec("diff0", lib.diff(v, dim=0))
    rec("diff_n0", lib.diff(v, n=0))
    rec("diff_big", lib.diff(v, n=9))
    rec("diff_bool", lib.diff(v > 0))
    rec.err("diff_neg", lambda: lib.diff(v, n=-1))
    rec.err("diff_0d", lambda: lib.diff(lib.tensor(1.0)))
    rec.err("diff_pre_shape", lambda: lib.diff(v, prepend=lib.zeros(2, 1, dtype=dt)))
    rec("pad_reflect", F.pad(v.unsqueeze(0), (2, 1), mode="reflect"))
    rec("pad_rep", F.pad(v.unsqueeze(0), (2, 3), mode="replicate"))
    rec("pad_circ", F.pad(v.unsqueeze(0), (2, 3), mode="circular"))


def p_tv_grad(lib, dt, rec):
    """TV-regularised denoising by gradient descent on a smoothed TV (autograd)."""
    noisy = _randn(lib, dt, 32, 2, 10, 10)
    u = noisy.clone().requires_grad_(True)
    opt = lib.optim.SGD([u], lr=0.05, momentum=0.5)
    eps = 1e-3
    for it in range(15):
        opt.zero_grad()
        dx = lib.diff(u, dim=-1, append=u[..., -1:])
        dy = lib.diff(u, dim=-2, append=u[..., -1:, :])
        tv = lib.sqrt(dx**2 + dy**2 + eps).sum()
        loss = 0.5 * (u - noisy).pow(2).sum() + 0.3 * tv
        loss.backward()
        opt.step()
        if it % 5 == 0:
            rec(f"loss{it}", loss)
    rec("u", u)
    rec("g", u.grad)
    x = _randn(lib, dt, 33, 4, 5).requires_grad_(True)
    y = lib.diff(x, n=2, dim=0, prepend=x[:1] * 2)
    gy = lib.autograd.grad(y.pow(3).sum(), x, create_graph=True)[0]
    gg = lib.autograd.grad(gy.sum(), x)[0]
    rec("gy", gy)
    rec("gg", gg)


def p_nmf(lib, dt, rec):
    V = _rand(lib, dt, 40, 12, 15) + 0.1
    W = _rand(lib, dt, 41, 12, 4) + 0.1
    H = _rand(lib, dt, 42, 4, 15) + 0.1
    eps = 1e-10
    for it in range(30):
        H = H * (W.T @ V) / (W.T @ W @ H).clamp_min(eps)
        W = W * (V @ H.T) / (W @ H @ H.T).clamp_min(eps)
        if it % 10 == 9:
            rec(f"fro{it}", lib.linalg.norm(V - W @ H, "fro"))
    rec("W", W)
    rec("H", H)
    # KL-divergence updates, in place
    W2 = _rand(lib, dt, 43, 12, 4) + 0.1
    H2 = _rand(lib, dt, 44, 4, 15) + 0.1
    ones = lib.ones_like(V)
    for _ in range(20):
        WH = (W2 @ H2).clamp_min(eps)
        H2.mul_((W2.T @ (V / WH)) / W2.sum(0).unsqueeze(1).clamp_min(eps))
        WH = (W2 @ H2).clamp_min_(eps)
        W2.mul_(((V / WH) @ H2.T).div_((ones @ H2.T).clamp(min=eps)))
    WH = W2 @ H2
    rec("kl", (V * lib.log(V / WH) - V + WH).sum())
    rec("W2", W2)
    rec("H2", H2)
    rec("clamp_min_t", V.clamp_min(lib.full((15,), 0.5, dtype=dt)))
    rec("clamp_max_t", lib.clamp_max(V, lib.tensor(0.6, dtype=dt)))
    rec.err("clamp_none", lambda: lib.clamp(V))


def p_power_iteration(lib, dt, rec):
    A = _randn(lib, dt, 50, 20, 14)
    v = _randn(lib, dt, 51, 14)
    v = v / lib.linalg.vector_norm(v)
    for _ in range(60):
        w = A.T @ (A @ v)
        lam = lib.linalg.vector_norm(w)
        v = w / lam
    rec("lam", lam)
    rec("exact", lib.linalg.matrix_norm(A, ord=2) ** 2)
    rec("eig", lib.linalg.eigvalsh(A.T @ A)[-1])
    rec("opnorm", lib.linalg.norm(A, 2))
    rec("fro", lib.linalg.matrix_norm(A))
    rec("ord1", lib.linalg.matrix_norm(A, ord=1))
    rec("ordinf", lib.linalg.matrix_norm(A, ord=float("inf")))
    rec("ordm1", lib.linalg.matrix_norm(A, ord=-1))
    rec("ordm2", lib.linalg.matrix_norm(A, ord=-2))
    rec("batch", lib.linalg.matrix_norm(A.reshape(4, 5, 14), ord=2, keepdim=True))
    rec("dims", lib.linalg.matrix_norm(A.reshape(4, 5, 14), dim=(0, 2)))
    rec("vn_dims", lib.linalg.vector_norm(A.reshape(4, 5, 14), ord=3, dim=(0, 2)))
    rec("vn_dtype", lib.linalg.vector_norm(A, dtype=lib.float64))
    rec.err("mn_ord", lambda: lib.linalg.matrix_norm(A, ord=3))
    rec.err("mn_1d", lambda: lib.linalg.matrix_norm(v, ord=2))
    rec.err("mn_dim", lambda: lib.linalg.matrix_norm(A, dim=(0, 0)))
    rec.err("mn_int", lambda: lib.linalg.matrix_norm(lib.ones(3, 3, dtype=lib.int64)))
    rec.err("vn_int", lambda: lib.linalg.vector_norm(lib.ones(3, dtype=lib.int64)))
    rec.err("vn_dtype_bad", lambda: lib.linalg.vector_norm(A, dtype=lib.int64))
    rec.err("vn_str", lambda: lib.linalg.vector_norm(A, ord="fro"))
    rec.err("mn_str", lambda: lib.linalg.matrix_norm(A, ord="xyz"))
    # batched power iteration with per-problem step sizes
    Ab = _randn(lib, dt, 52, 3, 8, 6)
    vb = lib.ones(3, 6, 1, dtype=dt)
    for _ in range(80):
        vb = Ab.mT @ (Ab @ vb)
        vb = vb / lib.linalg.vector_norm(vb, dim=-2, keepdim=True)
    Lb = lib.linalg.vector_norm(Ab @ vb, dim=(-2, -1)) ** 2
    rec("Lb", Lb)
    rec("Lb_exact", lib.linalg.matrix_norm(Ab, ord=2) ** 2)


def _lista(lib):
    nn = lib.nn
    F = nn.functional

    class LISTA(nn.Module):
        def __init__(self, A, n_layers, lam):
            super().__init__()
            m, n = A.shape
            L = float(lib.linalg.matrix_norm(A, ord=2) ** 2)
            self.W_e = nn.Linear(m, n, bias=False)
            self.S = nn.Linear(n, n, bias=False)
            with lib.no_grad():
                self.W_e.weight.copy_(A.T / L)
                self.S.weight.copy_(lib.eye(n, dtype=A.dtype) - A.T @ A / L)
            self.theta = nn.Parameter(lib.full((n_layers,), lam / L, dtype=A.dtype))
            self.n_layers = n_layers

        def forward(self, y):
            b = self.W_e(y)
            z = lib.sign(b) * F.relu(b.abs() - self.theta[0])
            for k in range(1, self.n_layers):
                c = b + self.S(z)
                z = lib.sign(c) * F.relu(c.abs() - self.theta[k])
            return z

    return LISTA


def p_lista_train(lib, dt, rec):
    A = _randn(lib, dt, 60, 10, 16) / math.sqrt(10)
    X = _randn(lib, dt, 61, 32, 16) * (_rand(lib, dt, 62, 32, 16) > 0.75).to(dt)
    Y = X @ A.T
    lib.manual_seed(0)
    model = _lista(lib)(A, 4, 0.05).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    for it in range(5):
        opt.zero_grad()
        Z = model(Y)
        loss = lib.nn.functional.mse_loss(Z, X)
        loss.backward()
        rec(f"loss{it}", loss)
        if it == 0:
            rec.params("g0", model, grads=True)
        opt.step()
    rec.params("p", model)
    rec("names", str([n for n, _ in model.named_parameters()]))


def p_lista_softshrink_grad(lib, dt, rec):
    """Learned thresholds as Parameters through a softshrink written as sign*relu and as
    x - clamp(x, -t, t) (tensor bounds)."""
    nn = lib.nn
    x = _randn(lib, dt, 63, 5, 8)
    theta = nn.Parameter(lib.full((8,), 0.3, dtype=dt))
    t2 = nn.Parameter(lib.tensor(0.4, dtype=dt))
    y1 = lib.sign(x) * lib.relu(x.abs() - theta)
    y2 = x - lib.clamp(x, min=-t2, max=t2)
    y3 = x - lib.maximum(lib.minimum(x, t2), -t2)
    w = _randn(lib, dt, 64, 5, 8)
    g1, g2 = lib.autograd.grad(((y1 + y2 + y3) * w).sum(), (theta, t2))
    rec("y1", y1)
    rec("y2", y2)
    rec("g1", g1)
    rec("g2", g2)
    # second order: hessian-vector product through the unrolled layer
    xx = x.clone().requires_grad_(True)
    z = lib.sign(xx) * lib.relu(xx.abs() - theta)
    loss = (z.pow(2) * w).sum() + (lib.tanh(z) * theta).sum()
    gx, gt = lib.autograd.grad(loss, (xx, theta), create_graph=True)
    hv = lib.autograd.grad((gx * w).sum() + gt.sum(), (xx, theta))
    rec("gx", gx)
    rec("gt", gt)
    rec("hv0", hv[0])
    rec("hv1", hv[1])


def p_lista_gradcheck(lib, dt, rec):
    if dt != lib.float64:
        rec("skip", "float32")
        return
    F = lib.nn.functional
    A = _randn(lib, dt, 65, 4, 6)
    y = _randn(lib, dt, 66, 3, 4)

    # thresholds away from kinks
    def layer(W, S, theta):
        b = y @ W.T
        z = lib.sign(b) * F.relu(b.abs() - theta)
        for _ in range(2):
            c = b + z @ S.T
            z = lib.sign(c) * F.relu(c.abs() - theta)
        return z

    W = (A.T * 0.3).clone().requires_grad_(True)
    S = (lib.eye(6, dtype=dt) - 0.1 * A.T @ A).requires_grad_(True)
    theta = lib.full((6,), 0.01, dtype=dt, requires_grad=True)
    rec("gc", str(lib.autograd.gradcheck(layer, (W, S, theta))))
    rec("ggc", str(lib.autograd.gradgradcheck(layer, (W, S, theta))))
    xs = _randn(lib, dt, 67, 7).requires_grad_(True)
    rec("gc_soft", str(lib.autograd.gradcheck(lambda t: F.softshrink(t, 0.3), (xs,))))
    rec("ggc_soft", str(lib.autograd.gradgradcheck(lambda t: F.softshrink(t, 0.3), (xs,))))
    rec("gc_hard", str(lib.autograd.gradcheck(lambda t: F.hardshrink(t, 0.3), (xs,))))
    rec("ggc_hard", str(lib.autograd.gradgradcheck(lambda t: F.hardshrink(t, 0.3) ** 2, (xs,))))
    M = _randn(lib, dt, 68, 5, 4).requires_grad_(True)
    rec("gc_svd", str(lib.autograd.gradcheck(lambda m: lib.linalg.svdvals(m), (M,))))
    rec(
        "ggc_nuc",
        str(lib.autograd.gradgradcheck(lambda m: lib.linalg.matrix_norm(m, ord="nuc"), (M,))),
    )
    rec("gc_renorm", str(lib.autograd.gradcheck(lambda m: m.renorm(2, 1, 1.0), (M,))))
    rec("ggc_renorm", str(lib.autograd.gradgradcheck(lambda m: m.renorm(2, 1, 1.0), (M,))))
    rec("ggc_norm", str(lib.autograd.gradgradcheck(lambda m: F.normalize(m, dim=0), (M,))))
    rec(
        "ggc_diff",
        str(
            lib.autograd.gradgradcheck(lambda m: lib.diff(m, n=2, dim=0, append=m[:1]).pow(2), (M,))
        ),
    )


def p_lista_module_api(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    m = _lista(lib)(_randn(lib, dt, 69, 6, 9), 3, 0.1)
    rec("repr", repr(m))
    sd = m.state_dict()
    rec("keys", str(list(sd.keys())))
    rec("theta", sd["theta"])
    m2 = _lista(lib)(_randn(lib, dt, 70, 6, 9), 3, 0.2)
    rec("load", str(m2.load_state_dict(sd)))
    rec("theta2", m2.theta)
    rec("nparams", sum(p.numel() for p in m.parameters()))
    rec("pr", repr(m.theta)[:30])
    # weight tying: thresholds shared across layers and a ParameterList
    pl = nn.ParameterList([nn.Parameter(lib.full((9,), 0.1 * k, dtype=dt)) for k in range(3)])
    rec("pl_repr", repr(pl))
    rec("pl_sum", sum(p.sum() for p in pl))


def p_lista_f32_vs_f64(lib, dt, rec):
    """Unrolled ISTA where thresholds are clamped positive after each step (projected Adam)."""
    A = _randn(lib, dt, 71, 8, 12) / math.sqrt(8)
    X = _randn(lib, dt, 72, 20, 12) * (_rand(lib, dt, 73, 20, 12) > 0.7).to(dt)
    Y = X @ A.T
    L = lib.linalg.matrix_norm(A, ord=2).pow(2).item()
    theta = lib.nn.Parameter(lib.full((5, 1), 0.1 / L, dtype=dt))
    step = lib.nn.Parameter(lib.full((5, 1), 1 / L, dtype=dt))
    opt = lib.optim.SGD([theta, step], lr=1e-3)
    for it in range(4):
        opt.zero_grad()
        z = lib.zeros(20, 12, dtype=dt)
        for k in range(5):
            z = lib.nn.functional.softshrink(z - step[k] * ((z @ A.T - Y) @ A), 0.0)
            z = lib.sign(z) * (z.abs() - theta[k]).clamp_min(0)
        loss = (z - X).pow(2).sum(1).mean()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"gt{it}", theta.grad)
        rec(f"gs{it}", step.grad)
        opt.step()
        with lib.no_grad():
            theta.clamp_(min=0)
            step.clamp_(1e-3, 2 / L)
    rec("theta", theta)


def p_sweep_shrink(lib, rec):
    F = lib.nn.functional
    x = lib.linspace(-2, 2, 9)
    env = dict(
        lib=lib,
        F=F,
        x=x,
        xi=lib.arange(5),
        xb=lib.tensor([True, False]),
        xh=x.half(),
        xbf=x.bfloat16(),
        nn=lib.nn,
    )
    cases = [
        "F.softshrink(x, 'a')", "F.softshrink(x, None)", "F.softshrink(x, lambd=-0.5)",
        "F.softshrink(x, 1)", "F.softshrink(x, True)", "F.softshrink(xi)", "F.softshrink(xb)",
        "F.softshrink(xh, 0.5)", "F.softshrink(xbf, 0.5)",
        "F.softshrink([1.0, 2.0])", "F.softshrink(x, lam=0.5)", "F.softshrink(x, 0.5, 1)",
        "F.hardshrink(x, 'a')", "F.hardshrink(x, -1.0)", "F.hardshrink(xi)", "F.hardshrink(xb)",
        "F.hardshrink(xh, 0.5)", "F.hardshrink([1.0])",
        "F.hardshrink(x, lam=0.5)", "lib.hardshrink(x, 0.5, 1)", "x.hardshrink('a')",
        "x.hardshrink(lambd=None)", "nn.Softshrink(-1.0)(x)", "nn.Softshrink('a')",
        "nn.Hardshrink(lambd=2)(x)", "nn.Softshrink(lambd=0.5, inplace=True)",
        "F.softshrink(x, float('nan'))", "F.softshrink(x, float('inf'))",
        "F.hardshrink(x, float('nan'))", "F.softshrink(x, lib.tensor(0.5))",
        "F.tanhshrink(xi)", "F.tanhshrink(x)", "F.softshrink(x.new_empty(0), 0.5)",
    ]  # fmt: skip
    run_calls(cases, env, rec)
    rec("half", F.softshrink(x.half(), 0.5))
    rec("bf16", F.hardshrink(x.bfloat16(), 0.5))
    rec("nan", F.softshrink(lib.tensor([float("nan"), 1.0, -3.0]), 0.5))
    rec("hnan", F.hardshrink(lib.tensor([float("nan"), 0.5, -0.5, 0.6]), 0.5))
    rec("soft_edge", F.softshrink(lib.tensor([0.5, -0.5, 0.50001]), 0.5))
    rec("hard_inf", F.hardshrink(x, float("inf")))
    rec("hard_lam_nan", F.hardshrink(x, float("nan")))


def p_sweep_norms(lib, rec):
    F = lib.nn.functional
    L = lib.linalg
    A = lib.arange(12.0).reshape(3, 4)
    env = dict(
        lib=lib,
        F=F,
        L=L,
        A=A,
        v=A[0],
        Ai=lib.arange(12).reshape(3, 4),
        A3=lib.arange(24.0).reshape(2, 3, 4),
        e=lib.zeros(0, 3),
    )
    cases = [
        "F.normalize(A, p='fro')", "F.normalize(A, dim=2)", "F.normalize(Ai)",
        "F.normalize(A, p=0)", "F.normalize(A, p=-1)", "F.normalize(A, dim=(0, 1))",
        "F.normalize(A, eps='a')", "F.normalize(A, p=float('inf'))", "F.normalize(e)",
        "F.normalize(A, dim=None)", "F.normalize(v, dim=1)",
        "L.vector_norm(A, dim=2)", "L.vector_norm(A, dim=(0, 0))", "L.vector_norm(A, ord=None)",
        "L.vector_norm(A, ord=lib.tensor(2.0))", "L.vector_norm(Ai)",
        "L.vector_norm(e, ord=float('inf'))",
        "L.vector_norm(e, ord=-1)", "L.vector_norm(e, ord=2)", "L.vector_norm(e, ord=2, dim=1)",
        "L.vector_norm(e, ord=float('inf'), dim=0)",
        "L.matrix_norm(A, ord=2, dim=(0,))", "L.matrix_norm(A, ord='fro', dim=(0, 2))",
        "L.matrix_norm(Ai, ord=2)", "L.matrix_norm(e, ord=2)", "L.matrix_norm(e, ord=1)",
        "L.matrix_norm(e, ord='nuc')", "L.matrix_norm(e)", "L.matrix_norm(e, ord=float('inf'))",
        "L.matrix_norm(A, ord=None)", "L.matrix_norm(A, ord=2.5)", "L.matrix_norm(A, 'fro', dim=1)",
        "L.norm(A, ord='nuc', dim=1)", "L.norm(A3, ord=2)", "L.norm(A3, ord='fro')",
        "L.norm(A, ord=3)", "L.norm(v, ord='fro')", "L.norm(A, ord=2, dim=(0, 1, 2))",
        "L.norm(A, dim=(0, 1, 1))", "lib.norm(A, p='nuc', dim=0)", "lib.norm(A, p=2, dim=(0, 1))",
        "lib.norm(A3, p='nuc')", "lib.norm(Ai)", "lib.norm(A, p='abc')",
        "L.svd(Ai)", "L.svd(v)", "L.svd(A, full_matrices=None)", "L.svdvals(Ai)", "L.svdvals(v)",
        "L.svd(A, driver='gesvd')", "lib.svd(A, some=False)[0].shape",
        "lib.svd(A, compute_uv=False)[0].shape",
        "L.matrix_rank(Ai)", "L.matrix_rank(A, tol=1.0)", "L.matrix_rank(v)",
        "L.svd(e, full_matrices=False)[1].shape", "L.svdvals(e).shape",
        "A.renorm(2, -1, 1.0)", "A.renorm(2.5, 0, 1.0)", "A.renorm(-1, 0, 1.0)",
        "A.renorm(2, 0, lib.tensor(1.0))",
        "lib.renorm(A, p=2, dim=0, maxnorm='a')", "Ai.renorm_(2, 0, 1.0)",
        "e.renorm(2, 0, 1.0).shape", "e.renorm(2, 1, 1.0).shape",
    ]  # fmt: skip
    run_calls(cases, env, rec)


def p_sweep_pg(lib, rec):
    F = lib.nn.functional
    v = lib.tensor([[0.3, -1.2, 2.0, 0.1], [1.0, 1.5, -0.5, 0.2]])
    env = dict(lib=lib, F=F, v=v, i=lib.tensor([[0], [2]]), e=lib.zeros(0, 4))
    cases = [
        "lib.sort(v, dim=2)",
        "lib.sort(v, descending=1)",
        "lib.sort(v, stable=None)",
        "v.sort(-1, True, True)",
        "lib.sort(v, dim=-1, descending=True, stable=True)[1]",
        "v.cumsum()",
        "v.cumsum(dim=2)",
        "v.cumsum(-1, dtype=lib.int32)",
        "v.gather(1, i.float())",
        "v.gather(1, lib.tensor([[4], [0]]))",
        "v.gather(2, i)",
        "v.gather(1, lib.tensor([0, 1]))",
        "lib.gather(v, 0, lib.tensor([[0, 1, 2, 0]]))",
        "lib.where(v > 0, v, 0)",
        "lib.where(v > 0, 1, 0)",
        "lib.where(v, v, v)",
        "lib.where(v > 0, v, lib.zeros(3))",
        "lib.where(v > 0)",
        "lib.where(v > 0, v)",
        "lib.arange(1, 5, dtype=lib.float32)",
        "lib.arange(0, 5, 0)",
        "lib.arange(5, 0, 1)",
        "lib.arange(1, 5, 0.5, dtype=lib.int64)",
        "lib.arange(float('nan'))",
        "v.clamp_min('a')",
        "v.clamp_max(None)",
        "v.clamp(min=lib.tensor([0.0, 1.0, 2.0]))",
        "lib.clamp(v, min=1.0, max=0.0)",
        "lib.clamp_min(v, lib.tensor(0.5)).dtype",
        "lib.clamp_min(lib.arange(4), 0.5)",
        "lib.clamp_max(lib.arange(4), 1.5).dtype",
        "lib.clamp(lib.arange(4), min=lib.tensor(0.5))",
        "v.clamp_min_(lib.tensor([1.0, 2.0]))",
        "lib.arange(4).clamp_min_(0.5)",
        "lib.argmax(e, -1)",
        "lib.argmax(e)",
        "e.sort(-1)[0].shape",
        "F.pad(v, (1, 1), mode='reflect')",
        "F.pad(v, (4, 0), mode='reflect')",
        "F.pad(v, (1,))",
        "F.pad(v, (1, 1, 1, 1, 1, 1))",
        "F.pad(v, (1, 1), value='a')",
        "F.pad(v, (-3, -2))",
        "F.pad(v, (1, 1), mode='replicate')",
        "F.pad(v, (1, 1), mode='foo')",
        "F.pad(v.unsqueeze(0), (5, 0), mode='circular')",
        "F.pad(v, [1.5, 1])",
        "lib.diff(v, dim=2)",
        "lib.diff(v, n=1.5)",
        "lib.diff(v, append=lib.zeros(2))",
        "lib.diff(v, prepend=1.0)",
        "lib.diff(v, prepend=lib.zeros(2, 1, dtype=lib.int64))",
        "lib.diff(v.bool(), n=2)",
        "lib.diff(lib.arange(5), n=2)",
        "lib.sign(lib.tensor([True, False]))",
        "lib.sgn(v)",
    ]
    run_calls(cases, env, rec)


def _node(rec, name, t):
    fn = t.grad_fn
    rec(name, type(fn).__name__)
    saved = sorted(k for k in dir(fn) if k.startswith("_saved_"))
    rec(name + ".saved", str(saved))
    for k in saved:
        v = getattr(fn, k)
        if hasattr(v, "shape"):
            rec(name + "." + k, v)
        elif isinstance(v, (int, float, bool, str, tuple, type(None))):
            rec(name + "." + k, repr(v))


def p_nodes(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 80, 5, 4).requires_grad_(True)
    _node(rec, "soft", F.softshrink(x, 0.3))
    _node(rec, "hard", F.hardshrink(x, 0.3))
    _node(rec, "norm", F.normalize(x, dim=0))
    _node(rec, "renorm", x.renorm(2, 0, 1.0))
    _node(rec, "diff", lib.diff(x, dim=0))
    _node(rec, "cmin", x.clamp_min(0.1))
    _node(rec, "cmax", x.clamp_max(0.1))
    _node(rec, "cmin_t", x.clamp_min(lib.zeros(4, dtype=dt)))
    _node(rec, "clamp", x.clamp(-0.5, 0.5))
    _node(rec, "sign", lib.sign(x))
    _node(rec, "relu", lib.relu(x))
    _node(rec, "abs", x.abs())
    _node(rec, "vn", lib.linalg.vector_norm(x, ord=1, dim=1))
    _node(rec, "vn2", lib.linalg.vector_norm(x))
    _node(rec, "mn", lib.linalg.matrix_norm(x, ord=2))
    rec("mn_nuc", type(lib.linalg.matrix_norm(x, ord="nuc").grad_fn).__name__)  # (sum's dim)
    _node(rec, "mn_fro", lib.linalg.matrix_norm(x))
    _node(rec, "svdvals", lib.linalg.svdvals(x))
    U, S, Vh = lib.linalg.svd(x, full_matrices=False)
    _node(rec, "svdS", S)
    s, i = lib.sort(x, dim=-1, descending=True)
    _node(rec, "sort", s)
    _node(rec, "cumsum", s.cumsum(-1))
    _node(rec, "gather", x.gather(1, i[:, :1]))
    _node(rec, "where", lib.where(x > 0, x, lib.zeros_like(x)))
    _node(rec, "pad", F.pad(x, (1, 2)))
    _node(rec, "pad_r", F.pad(x.unsqueeze(0), (1, 2), mode="reflect"))
    _node(rec, "norm_t", x.norm(p=1, dim=0))
    _node(rec, "diag", lib.diag(S))
    _node(rec, "diag_embed", lib.diag_embed(S))


def p_out_variants(lib, dt, rec):
    x = _randn(lib, dt, 81, 5, 4)
    o2 = lib.empty(0, dtype=dt)
    lib.hardshrink(x, 0.3, out=o2)
    rec("hard_out", o2)
    o3 = lib.empty(0, dtype=dt)
    lib.linalg.vector_norm(x, dim=0, out=o3)
    rec("vn_out", o3)
    o4 = lib.empty(0, dtype=dt)
    lib.linalg.matrix_norm(x, ord=2, out=o4)
    rec("mn_out", o4)
    o5 = lib.empty(0, dtype=dt)
    lib.diff(x, dim=1, out=o5)
    rec("diff_out", o5)
    o6 = lib.empty(0, dtype=dt)
    lib.clamp_min(x, 0.0, out=o6)
    rec("cmin_out", o6)
    o7 = lib.empty(0, dtype=dt)
    lib.renorm(x, 2, 0, 1.0, out=o7)
    rec("renorm_out", o7)
    U, S, Vh = lib.empty(0, dtype=dt), lib.empty(0, dtype=dt), lib.empty(0, dtype=dt)
    r = lib.linalg.svd(x, full_matrices=False, out=(U, S, Vh))
    rec("svd_out_S", S)
    rec("svd_out_recon", U @ lib.diag(S) @ Vh)
    rec("svd_ret", str(type(r).__name__))
    o8 = lib.empty(0, dtype=dt)
    lib.linalg.svdvals(x, out=o8)
    rec("svdvals_out", o8)
    rec.err("vn_out_int", lambda: lib.linalg.vector_norm(x, out=lib.empty(0, dtype=lib.int64)))
    rec.err("hard_out_int", lambda: lib.hardshrink(x, out=lib.empty(0, dtype=lib.int64)))
    rec.err("diff_out_int", lambda: lib.diff(x, out=lib.empty(0, dtype=lib.int64)))
    rec.err("mn_out_int", lambda: lib.linalg.matrix_norm(x, out=lib.empty(0, dtype=lib.int64)))
    rec.err("svdvals_out_int", lambda: lib.linalg.svdvals(x, out=lib.empty(0, dtype=lib.int64)))
    other = lib.float32 if dt == lib.float64 else lib.float64
    rec.err("vn_out_other", lambda: lib.linalg.vector_norm(x, out=lib.empty(0, dtype=other)))
    rec.err("renorm_out_other", lambda: lib.renorm(x, 2, 0, 1.0, out=lib.empty(0, dtype=other)))
    rec.err("cmin_out_other", lambda: lib.clamp_min(x, 0.0, out=lib.empty(0, dtype=other)))
    rec.err("sort_out", lambda: lib.sort(x, out=(lib.empty(0, dtype=dt), lib.empty(0))))


def p_half_dtypes(lib, dt, rec):
    F = lib.nn.functional
    for hd in (lib.float16, lib.bfloat16):
        x = _randn(lib, dt, 82, 6, 5).to(hd)
        tag = str(hd).split(".")[-1]
        rec(tag + ".norm", F.normalize(x, dim=0).float())
        rec(tag + ".renorm", x.renorm(2, 1, 0.8).float())
        rec(tag + ".soft", F.softshrink(x, 0.4).float())
        rec(tag + ".vn", lib.linalg.vector_norm(x, dim=0).float())
        rec(tag + ".vn_dt", lib.linalg.vector_norm(x, dim=0, dtype=lib.float32))
        rec(tag + ".diff", lib.diff(x, dim=0).float())
        rec(tag + ".cmin", x.clamp_min(0.3).float())
        rec(tag + ".cumsum", x.cumsum(0).float())
        rec.err(tag + ".svd", lambda x=x: lib.linalg.svd(x))
        rec.err(tag + ".mn2", lambda x=x: lib.linalg.matrix_norm(x, ord=2))
        rec(tag + ".fro", lib.linalg.matrix_norm(x).float())
        rec.err(tag + ".nuc", lambda x=x: lib.linalg.matrix_norm(x, ord="nuc"))
        rec(tag + ".mn1", lib.linalg.matrix_norm(x, ord=1).float())


def p_iht_topk(lib, dt, rec):
    """Iterative hard thresholding: keep the k largest magnitudes (topk + scatter)."""
    A = _randn(lib, dt, 90, 25, 40) / 5
    x0 = lib.zeros(40, dtype=dt)
    x0[lib.tensor([3, 11, 17, 29, 33])] = lib.tensor([1.5, -2.0, 0.7, 1.1, -0.9], dtype=dt)
    b = A @ x0
    x = lib.zeros(40, dtype=dt)
    k = 5
    for _ in range(30):
        z = x + 0.6 * A.T @ (b - A @ x)
        _, idx = z.abs().topk(k)
        x = lib.zeros_like(z).scatter(0, idx, z.gather(0, idx))
    rec("x", x)
    rec("support", lib.sort(idx).values)
    rec("err", lib.linalg.vector_norm(x - x0))
    # batched hard threshold by kthvalue
    Z = _randn(lib, dt, 91, 6, 12)
    kth = Z.abs().kthvalue(12 - 3, dim=1, keepdim=True).values
    rec("kth", kth)
    rec("hard", lib.where(Z.abs() > kth, Z, lib.zeros((), dtype=dt)))
    rec("hard_mask", (Z.abs() > kth).sum(1))
    rec("hs", lib.nn.functional.hardshrink(Z, 1.0))


def p_group_lasso(lib, dt, rec):
    """Block soft-thresholding: the prox of sum_g ||x_g||_2."""
    A = _randn(lib, dt, 92, 30, 24)
    b = _randn(lib, dt, 93, 30)
    L = lib.linalg.matrix_norm(A, ord=2) ** 2
    lam = 2.0
    x = lib.zeros(6, 4, dtype=dt)
    for _ in range(40):
        v = x - (A.T @ (A @ x.reshape(-1) - b)).reshape(6, 4) / L
        n = lib.linalg.vector_norm(v, dim=1, keepdim=True)
        x = v * (1 - (lam / L) / n.clamp_min(1e-12)).clamp_min(0)
    rec("x", x)
    rec("group_norms", x.norm(dim=1))
    if dt == lib.float64:  # (counts of exact zeros: float32 iterates may cross a threshold)
        rec("active", (x.norm(dim=1) > 0).sum())
    # elastic net prox: soft-threshold then shrink
    v = _randn(lib, dt, 94, 10)
    rec("enet", lib.nn.functional.softshrink(v, 0.3) / (1 + 0.5))
    # prox of the l-inf norm via Moreau: v - proj_{l1 ball}(v)
    u, _ = v.abs().sort(descending=True)
    css = u.cumsum(0)
    ks = lib.arange(1, 11, dtype=dt)
    rho = (u * ks > css - 1.0).nonzero().max()
    theta = (css[rho] - 1.0) / (rho + 1)
    rec("linf_prox", v - lib.sign(v) * (v.abs() - theta).clamp(min=0))
    rec("rho", rho)


def p_admm_lasso(lib, dt, rec):
    A = _randn(lib, dt, 95, 20, 12)
    b = _randn(lib, dt, 96, 20)
    rho, lam = 1.0, 0.5
    n = A.shape[1]
    M = A.T @ A + rho * lib.eye(n, dtype=dt)
    Lc = lib.linalg.cholesky(M)
    Atb = A.T @ b
    x = z = u = lib.zeros(n, dtype=dt)
    hist = []
    for _ in range(40):
        x = lib.cholesky_solve((Atb + rho * (z - u)).unsqueeze(1), Lc).squeeze(1)
        z_old = z
        z = lib.nn.functional.softshrink(x + u, lam / rho)
        u = u + x - z
        r, s = lib.linalg.vector_norm(x - z), rho * lib.linalg.vector_norm(z - z_old)
        hist.append(lib.stack([r, s]))
    rec("z", z)
    rec("x", x)
    rec("hist", lib.stack(hist))
    rec("solve", lib.linalg.solve(M, Atb))
    rec("lstsq", lib.linalg.lstsq(A, b.unsqueeze(1)).solution)
    rec("pinv", lib.linalg.pinv(A) @ b)


def p_prox_sgd_train(lib, dt, rec):
    """A linear model trained by SGD with a proximal (soft-threshold) step on the weights and
    a projection of the bias onto [-1, 1], applied in place under no_grad."""
    nn = lib.nn
    lib.manual_seed(7)
    model = nn.Linear(12, 3).to(dt)
    X = _randn(lib, dt, 97, 64, 12)
    y = (_rand(lib, dt, 98, 64) * 3).long()
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    lam = 0.02
    for it in range(10):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
        opt.step()
        with lib.no_grad():
            w = model.weight
            w.copy_(w.sign() * (w.abs() - 0.1 * lam).clamp_min(0))
            model.bias.clamp_(-1.0, 1.0)
        rec(f"loss{it}", loss)
    rec.params("p", model)
    if dt == lib.float64:  # (counts of exact zeros: float32 iterates may cross a threshold)
        rec("zeros", (model.weight == 0).sum())
    # the same with .data and softshrink_ written as in many repositories
    model.weight.data = nn.functional.softshrink(model.weight.data, 0.05)
    rec("w2", model.weight)
    model.weight.data.renorm_(2, 0, 0.5)
    rec("w3", model.weight)
    rec("w3n", model.weight.norm(dim=1))


def p_dict_parametrize(lib, dt, rec):
    """Dictionary atoms constrained to the unit sphere by a parametrization, trained by Adam."""
    nn = lib.nn
    F = nn.functional
    P = nn.utils.parametrize

    class UnitCols(nn.Module):
        def forward(self, W):
            return F.normalize(W, dim=0)

    class Coder(nn.Module):
        def __init__(self):
            super().__init__()
            self.D = nn.Linear(6, 10, bias=False)

        def forward(self, z):
            return self.D(z)

    lib.manual_seed(11)
    m = Coder().to(dt)
    P.register_parametrization(m.D, "weight", UnitCols())
    rec("norms0", m.D.weight.norm(dim=0))
    X = _randn(lib, dt, 99, 16, 10)
    Z = lib.zeros(16, 6, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([*m.parameters(), Z], lr=0.05)
    for it in range(8):
        opt.zero_grad()
        loss = 0.5 * (m(Z) - X).pow(2).sum(1).mean() + 0.1 * Z.abs().sum(1).mean()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec("W", m.D.weight)
    rec("orig", m.D.parametrizations.weight.original)
    rec("norms", m.D.weight.norm(dim=0))
    rec("keys", str(list(m.state_dict().keys())))
    rec("Z", Z)


def p_simplex_sparsemax(lib, dt, rec):
    """sparsemax (Martins & Astudillo) = the simplex projection, with its custom backward."""

    class Sparsemax(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            zs, _ = lib.sort(z, dim=-1, descending=True)
            rng = lib.arange(1, z.shape[-1] + 1, dtype=z.dtype)
            bound = 1 + rng * zs > zs.cumsum(-1)
            k = bound.sum(-1, keepdim=True)
            tau = (zs.cumsum(-1).gather(-1, k - 1) - 1) / k.to(z.dtype)
            out = lib.clamp(z - tau, min=0)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            nz = (out > 0).to(g.dtype)
            v = (g * nz).sum(-1, keepdim=True) / nz.sum(-1, keepdim=True)
            return nz * (g - v)

    z = (_randn(lib, dt, 100, 5, 7) * 2).requires_grad_(True)
    p = Sparsemax.apply(z)
    rec("p", p)
    rec("sum", p.sum(-1))
    w = _randn(lib, dt, 101, 5, 7)
    (p * w).sum().backward()
    rec("g", z.grad)
    rec("fn", type(p.grad_fn).__name__)
    if dt == lib.float64:
        zz = z.detach().clone().requires_grad_(True)
        rec("gc", str(lib.autograd.gradcheck(Sparsemax.apply, (zz,))))


# nodes whose _saved_* attributes differ (module docstring, Known and left): names only
_WALK_NAMES_ONLY = {"SliceBackward0", "SumBackward1", "MmBackward0"}


def _walk(rec, tag, t):
    """Records every node of t's graph (breadth first, by next_functions): its name and the
    names of its _saved_ attributes, with the non-tensor values."""
    seen, order, todo = set(), [], [t.grad_fn]
    while todo:
        fn = todo.pop(0)
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        todo.extend(f for f, _ in fn.next_functions)
    for i, fn in enumerate(order):
        name = type(fn).__name__
        if name in _WALK_NAMES_ONLY:
            rec(f"{tag}.{i}", name)
            continue
        saved = sorted(k for k in dir(fn) if k.startswith("_saved_"))
        vals = []
        for k in saved:
            try:
                v = getattr(fn, k)
            except Exception as e:  # noqa: BLE001
                vals.append(f"{k}=!{type(e).__name__}")
                continue
            if hasattr(v, "shape"):
                vals.append(f"{k}:{tuple(v.shape)}")
            elif isinstance(v, (int, float, bool, str, tuple, type(None))):
                vals.append(f"{k}={v!r}")
            else:
                vals.append(k)
        rec(f"{tag}.{i}", name + " " + " ".join(vals))


def p_graph_walk(lib, dt, rec):
    F = lib.nn.functional
    v = _randn(lib, dt, 110, 3, 6).requires_grad_(True)
    _walk(rec, "simplex", _proj_simplex(lib, v).sum())
    x = _randn(lib, dt, 111, 4, 5).requires_grad_(True)
    lam = lib.nn.Parameter(lib.tensor(0.2, dtype=dt))
    y = lib.sign(x) * F.relu(x.abs() - lam) + x.clamp_min(lam) - x.clamp_max(0.1)
    _walk(rec, "soft", (y * y).mean())
    _walk(rec, "normalize", F.normalize(x, dim=0, p=1).sum() + F.normalize(x).sum())
    z = x.abs().topk(2, dim=1)
    k = x.kthvalue(2, dim=1, keepdim=True)
    s = lib.zeros_like(x).scatter(1, z.indices, x.gather(1, z.indices))
    _walk(rec, "topk", s.sum() + z.values.sum() + k.values.sum())
    U, S, Vh = lib.linalg.svd(x, full_matrices=False)
    _walk(rec, "svt", (U @ lib.diag_embed(F.relu(S - 0.5)) @ Vh).sum())
    d = lib.diff(x, dim=1, prepend=x[:, :1]) + F.pad(lib.diff(x, n=2), (1, 1))
    _walk(rec, "tv", d.abs().sum())
    W = _rand(lib, dt, 112, 4, 2).requires_grad_(True)
    H = _rand(lib, dt, 113, 2, 5)
    r = W * (x.abs() @ H.T) / (W @ H @ H.T).clamp_min(1e-9)
    _walk(rec, "nmf", r.sum())
    m = lib.linalg.matrix_norm(x, ord=2) + lib.linalg.matrix_norm(x, "nuc")
    m = m + x.renorm(1, 1, 0.5).sum()
    _walk(rec, "norms", m)
    h = F.hardshrink(x, 0.3).sum() + F.softshrink(x, 0.3).sum() + F.tanhshrink(x).sum()
    _walk(rec, "shrinks", h)


def p_svd_grads(lib, dt, rec):
    """Sign-invariant functions of the SVD: the polar factor U Vh (orthogonal Procrustes), the
    projector onto the top-k left singular space, and the errors of gauge-dependent losses."""
    A0 = _randn(lib, dt, 120, 6, 4)
    A = A0.clone().requires_grad_(True)
    U, S, Vh = lib.linalg.svd(A, full_matrices=False)
    Q = U @ Vh
    W = _randn(lib, dt, 121, 6, 4)
    (Q * W).sum().backward()
    rec("polar", Q)
    rec("g_polar", A.grad)
    A.grad = None
    U, S, Vh = lib.linalg.svd(A, full_matrices=False)
    P = U[:, :2] @ U[:, :2].T
    (P * _randn(lib, dt, 122, 6, 6)).sum().backward()
    rec("proj", P)
    rec("g_proj", A.grad)
    # batched, wide and tall
    B = _randn(lib, dt, 123, 3, 4, 7).requires_grad_(True)
    U, S, Vh = lib.linalg.svd(B, full_matrices=False)
    loss = (U @ lib.diag_embed(S.sqrt()) @ Vh).pow(2).sum() + S.log().sum()
    loss.backward()
    rec("g_b", B.grad)
    # full_matrices=True and a loss that reads U: torch's error
    C = A0.clone().requires_grad_(True)
    U, S, Vh = lib.linalg.svd(C, full_matrices=True)
    rec.err("full_U", lambda: (U[:, :4] @ lib.diag(S) @ Vh).abs().sum().backward())
    C2 = A0.clone().requires_grad_(True)
    U, S, Vh = lib.linalg.svd(C2, full_matrices=True)
    rec.err("full_S_only", lambda: S.sum().backward())
    rec("g_full_S", C2.grad)
    # a gauge-dependent loss: torch refuses it (a sum of U is not sign-invariant)
    D = A0.clone().requires_grad_(True)
    U, S, Vh = lib.linalg.svd(D, full_matrices=False)
    rec.err("gauge", lambda: U.sum().backward())
    # repeated singular values: the identity has S = 1, 1, 1
    E = lib.eye(3, dtype=dt).requires_grad_(True)
    U, S, Vh = lib.linalg.svd(E)
    rec.err("repeated", lambda: (U @ Vh).sum().backward())
    rec("g_rep", E.grad if E.grad is not None else lib.zeros(1, dtype=dt))
    E2 = lib.eye(3, dtype=dt).requires_grad_(True)
    lib.linalg.svdvals(E2).sum().backward()
    rec("g_rep_S", E2.grad)
    F2 = (lib.eye(3, dtype=dt) * 2).requires_grad_(True)
    lib.linalg.matrix_norm(F2, ord=2).backward()
    rec("g_rep_spec", F2.grad)


def p_shrink_edges(lib, dt, rec):
    F = lib.nn.functional
    x = lib.tensor([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0], dtype=dt, requires_grad=True)
    for lam in (0.0, 0.5):
        for fn in (F.softshrink, F.hardshrink):
            y = fn(x, lam)
            (g,) = lib.autograd.grad(y.sum(), x)
            rec(f"{fn.__name__}{lam}", y)
            rec(f"{fn.__name__}{lam}.g", g)
    y = lib.sign(x) * lib.relu(x.abs() - 0.5)
    (g,) = lib.autograd.grad(y.sum(), x)
    rec("mine.g", g)
    y = x.clamp(min=-0.5, max=0.5)
    (g,) = lib.autograd.grad(y.sum(), x)
    rec("clamp.g", g)
    t = lib.tensor([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], dtype=dt, requires_grad=True)
    y = x.detach().clamp(min=-t, max=t)
    (g,) = lib.autograd.grad(y.sum(), t)
    rec("clamp_t.g", g)
    y = lib.maximum(x, lib.zeros_like(x)) + lib.minimum(x, lib.zeros_like(x))
    (g,) = lib.autograd.grad(y.sum(), x)
    rec("maxmin.g", g)
    y = x.abs()
    (g,) = lib.autograd.grad(y.sum(), x)
    rec("abs.g", g)
    r = lib.stack([x, x]).detach().renorm(2, 0, 0.0)
    rec("renorm0", r)
    w = lib.stack([x, 2 * x]).detach().requires_grad_(True)
    (g,) = lib.autograd.grad(w.renorm(1, 0, 2.0).pow(2).sum(), w)
    rec("renorm1.g", g)
    (g,) = lib.autograd.grad(w.renorm(float("inf"), 0, 0.6).pow(2).sum(), w)
    rec("renorminf.g", g)
    (g,) = lib.autograd.grad(lib.linalg.vector_norm(w, ord=0.5, dim=1).sum(), w)
    rec("vn05.g", g)
    (g,) = lib.autograd.grad(lib.linalg.vector_norm(w, ord=float("inf")).sum(), w)
    rec("vninf.g", g)
    (g,) = lib.autograd.grad(lib.linalg.vector_norm(w, ord=-1, dim=1).sum(), w)
    rec("vnm1.g", g)
    (g,) = lib.autograd.grad(F.normalize(w, dim=1).pow(3).sum(), w)
    rec("normalize.g", g)
    z = lib.zeros(2, 3, dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(F.normalize(z, dim=1).sum() + lib.linalg.vector_norm(z), z)
    rec("normalize0.g", g)


def p_sweep_norm_dtypes(lib, rec):
    A = lib.arange(12.0).reshape(3, 4) / 7
    env = dict(lib=lib, L=lib.linalg, A=A, Ah=A.half(), Ad=A.double(), F=lib.nn.functional)
    cases = [
        "L.matrix_norm(A, dtype=lib.float64).dtype",
        "L.matrix_norm(A, 2, dtype=lib.float64).dtype",
        "L.matrix_norm(A, 'nuc', dtype=lib.float64).dtype",
        "L.matrix_norm(A, 1, dtype=lib.float64).dtype",
        "L.matrix_norm(Ad, dtype=lib.float32)",
        "L.vector_norm(Ad, dtype=lib.float32)",
        "L.vector_norm(Ah, dtype=lib.float32).dtype",
        "L.vector_norm(A, dtype=lib.float16)",
        "L.norm(A, dtype=lib.float64).dtype",
        "L.norm(A, 'fro', dtype=lib.float64).dtype",
        "L.norm(Ad, 2, dtype=lib.float32)",
        "lib.norm(A, dtype=lib.float64).dtype",
        "lib.norm(A, p=1, dim=1, dtype=lib.float64).dtype",
        "lib.norm(Ad, dtype=lib.float32)",
        "A.norm(dtype=lib.float64).dtype",
        "A.norm(2, 1, True, dtype=lib.float64).shape",
        "L.matrix_norm(Ah)",
        "L.matrix_norm(Ah, 1).dtype",
        "L.matrix_norm(Ah, 2)",
        "L.svdvals(Ah)",
        "L.vector_norm(Ah, 3).dtype",
        "F.normalize(Ah).dtype",
        "Ah.renorm(2, 0, 1.0).dtype",
        "L.vector_norm(A, out=lib.empty(0, dtype=lib.float64))",
        "L.vector_norm(A, dtype=lib.float64, out=lib.empty(0, dtype=lib.float64)).dtype",
        "L.matrix_norm(A, out=lib.empty(0, dtype=lib.float64))",
        "L.norm(A, out=lib.empty(0, dtype=lib.float64))",
        "lib.norm(A, out=lib.empty(0, dtype=lib.float64))",
        "lib.norm(A, dim=1, out=lib.empty(0, dtype=lib.float64))",
        "F.normalize(A, out=lib.empty(0, dtype=lib.float64))",
        "F.normalize(A, out=lib.empty(3, 4))",
        "L.svd(A, out=(lib.empty(0), lib.empty(0)))",
        "L.svd(A, out=(lib.empty(0), lib.empty(0), lib.empty(0, dtype=lib.float64)))",
        "L.svdvals(A, out=lib.empty(0, dtype=lib.float64))",
        "lib.diff(A, out=lib.empty(0, dtype=lib.float64))",
        "lib.cumsum(A, 0, out=lib.empty(0, dtype=lib.float64)).dtype",
        "lib.renorm(A, 2, 0, 1.0, out=lib.empty(0, dtype=lib.float64))",
        "lib.clamp_min(A, 0.5, out=lib.empty(0, dtype=lib.float64))",
        "lib.clamp_min(A, 0.5, out=lib.empty(0, dtype=lib.int64))",
    ]
    run_calls(cases, env, rec)


def p_func_prox(lib, dt, rec):
    F = lib.nn.functional
    fn = lib.func
    V = _randn(lib, dt, 130, 4, 6)
    rec("vmap_simplex", fn.vmap(lambda v: _proj_simplex(lib, v))(V))
    rec("vmap_soft", fn.vmap(lambda v, t: F.softshrink(v, 0.3) * t)(V, V[:, 0]))
    rec("jac_simplex", fn.jacrev(lambda v: _proj_simplex(lib, v))(V[0]))
    rec("jac_soft", fn.jacrev(lambda v: lib.sign(v) * F.relu(v.abs() - 0.2))(V[0]))
    rec("jacfwd_soft", fn.jacfwd(lambda v: F.softshrink(v, 0.2))(V[0]))
    rec("jacfwd_hard", fn.jacfwd(lambda v: F.hardshrink(v, 0.2))(V[0]))
    M = _randn(lib, dt, 131, 3, 5, 4)
    rec("vmap_svdvals", fn.vmap(lib.linalg.svdvals)(M))
    rec("vmap_nuc", fn.vmap(lambda m: lib.linalg.matrix_norm(m, "nuc"))(M))
    rec("grad_nuc", fn.vmap(fn.grad(lambda m: lib.linalg.matrix_norm(m, "nuc")))(M))
    rec("vmap_renorm", fn.vmap(lambda m: m.renorm(2, 0, 1.0))(M))
    rec("vmap_normalize", fn.vmap(lambda m: F.normalize(m, dim=0))(M))
    rec("vmap_diff", fn.vmap(lambda m: lib.diff(m, dim=1))(M))
    rec("vmap_pad", fn.vmap(lambda m: F.pad(m, (1, 1)))(M))
    rec("vmap_vn", fn.vmap(lambda m: lib.linalg.vector_norm(m, ord=1, dim=0))(M))
    rec("vmap_cumsum", fn.vmap(lambda m: m.cumsum(-1))(M))
    rec("hess_tv", fn.hessian(lambda v: lib.sqrt(lib.diff(v) ** 2 + 1e-2).sum())(V[0]))
    x = V[0]
    rec("jvp", fn.jvp(lambda v: F.normalize(v, dim=0), (x,), (V[1],))[1])
    rec("vjp", fn.vjp(lambda v: v.renorm(2, 0, 0.5), x.reshape(2, 3))[1](V[1].reshape(2, 3))[0])


def p_gradient_threshold(lib, dt, rec):
    F = lib.nn.functional
    u = _randn(lib, dt, 140, 6, 7)
    gy, gx = lib.gradient(u)
    rec("gy", gy)
    rec("gx", gx)
    rec("g_sp", lib.gradient(u, spacing=2.0, dim=1)[0])
    rec("g_sp2", lib.gradient(u, spacing=(0.5, 2.0))[1])
    coords = lib.linspace(0, 1, 7, dtype=dt) ** 2
    rec("g_coord", lib.gradient(u, spacing=(coords,), dim=1)[0])
    rec("g_edge2", lib.gradient(u, edge_order=2)[0])
    rec("tv_iso", lib.sqrt(gx**2 + gy**2 + 1e-8).sum())
    uu = u.clone().requires_grad_(True)
    gy, gx = lib.gradient(uu, edge_order=2)
    (g,) = lib.autograd.grad((gx.abs() + gy.abs()).sum(), uu)
    rec("g_tv", g)
    # soft-thresholding via F.threshold of |x|
    x = _randn(lib, dt, 141, 10)
    rec("thr", lib.sign(x) * F.threshold(x.abs() - 0.4, 0.0, 0.0))
    rec("thr_mod", lib.nn.Threshold(0.5, -1.0)(x))
    rec("clip", x.clip(-0.5, 0.5))
    rec("heav", lib.heaviside(x, lib.tensor(0.5, dtype=dt)))
    # isotonic / sorted projections: cummax, searchsorted, bucketize
    rec("cummax", x.cummax(0).values)
    rec("cummax_i", x.cummax(0).indices)
    s, _ = x.sort()
    q = _randn(lib, dt, 142, 5)
    rec("ss", lib.searchsorted(s, q))
    rec("ss_r", lib.searchsorted(s, q, right=True))
    rec("bucket", lib.bucketize(q, s))


def p_sweep_gradient(lib, rec):
    u = lib.arange(12.0).reshape(3, 4)
    env = dict(lib=lib, u=u, v=lib.arange(3.0), np=np)
    cases = [
        "lib.gradient(u, edge_order=3)",
        "lib.gradient(u, dim=2)",
        "lib.gradient(v[:1])",
        "lib.gradient(u, spacing=(1.0, 2.0, 3.0))",
        "lib.gradient(u, dim=(0, 0))",
        "lib.gradient(lib.arange(4))",
        "lib.gradient(u[:, :2], edge_order=2)",
        "lib.gradient(u, spacing='a')",
        "lib.gradient(u, spacing=0.0)[0]",
        "lib.gradient(lib.tensor(1.0))",
        "lib.nn.functional.threshold(u, 'a', 0)",
        "lib.searchsorted(v, u)",
        "lib.searchsorted(v, 1.5)",
        "lib.searchsorted(v, v, side='foo')",
        "lib.searchsorted(v, v, right=False, side='right')",
        "lib.bucketize(u, u)",
        "u.cummax(2)",
        "lib.heaviside(u, 1.0)",
        "lib.gradient(u, spacing={1: 2})",
        "lib.gradient(u, spacing=np.float64(2.0))[0]",
        "lib.gradient(u, spacing=np.int64(2))[1]",
        "lib.gradient(u, spacing=True)[0]",
        "lib.gradient(u, spacing=range(2))",
        "lib.gradient(u, spacing=(1, 2.0))[1]",
        "lib.gradient(u, spacing=[lib.tensor(1.0), 2.0])",
        "lib.gradient(u, spacing=lib.tensor(2.0))",
        "lib.gradient(u, dim='a')",
        "lib.gradient(u, dim=1.5)",
        "lib.gradient(u, dim=(0, 'a'))",
        "lib.gradient(u, dim=[0, 1])",
        "lib.gradient(u, dim=np.int64(1))",
        "lib.gradient(u, dim=True)",
        "lib.gradient(u, dim=(0.0,))",
        "lib.gradient(u, edge_order=1.5)",
        "lib.gradient(u, edge_order=None)",
        "lib.gradient(u, edge_order=True)",
        "lib.gradient(u, edge_order=np.int64(2))",
        "lib.gradient(u, edge_order='a')",
        "lib.gradient(u, spacing='a', dim=0)",
        "lib.gradient(u, spacing=1.0, dim='a')",
        "lib.gradient(u, dim='a', edge_order=1.5)",
        "lib.gradient(u, spacing=(1,), dim=1.5)",
        "lib.gradient(u, spacing=(1.0, 2.0), edge_order=1.5)",
        "lib.gradient(u, spacing=[lib.arange(3.0)], dim=1.5)",
        "lib.gradient(u, spacing=(), dim=1.5)",
        "lib.gradient(u, spacing=(lib.arange(3.0), 1.0), dim=1.5)",
        "lib.gradient(u, spacing=[lib.arange(3.0)], edge_order=None)",
        "lib.gradient(u, spacing=(1, 2), dim=(0, 'a'))",
        "lib.gradient(u, spacing=None, dim=None)",
    ]
    run_calls(cases, env, rec)
