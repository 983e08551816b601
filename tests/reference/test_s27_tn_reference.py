"""Session 27 (tn): tensor-network, tensor-decomposition and numerical-linear-algebra programs
written the way tensor-methods researchers write them, each written once against a `torch`-like
module and run under torch and minitorch after the same manual_seed: MPS/TT construction by
sequential truncated SVD, MPS/MPO contraction with einsum (many operands, ellipsis, repeated
indices) and tensordot, QR canonicalisation sweeps, DMRG-lite with eigh, TEBD gates with kron and
matrix_exp, PEPS-lite boundary contraction, CP-ALS, Tucker/HOSVD, TT-cross with maxvol, NMF,
randomized SVD, CUR with multinomial leverage sampling, Nystrom, Kronecker-factored and
Sylvester solves, matrix functions, CG and Lanczos, Householder QR against geqrf/ormqr/
householder_product, LU with pivots, condition numbers, norms, multi_dot and chain_matmul.
SVD/QR/eigh factors are compared through sign-invariant quantities (singular values, products,
projectors, |u|) since LAPACK builds may choose other signs.
Every recorded value (dtype, values, exception type and message) must agree: float64 to 1e-9 of
its scale, float32 to 1e-4."""

from __future__ import annotations

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


# --- shared helpers: written against the library module ---


def _tt_svd(lib, t, eps, max_rank):
    """TT-SVD: sequential reshape + SVD with truncation by the relative tail of singular values."""
    shape = t.shape
    cores, r = [], 1
    c = t
    for k in range(len(shape) - 1):
        c = c.reshape(r * shape[k], -1)
        u, s, vh = lib.linalg.svd(c, full_matrices=False)
        tail = lib.flip(lib.cumsum(lib.flip(s**2, [0]), 0), [0]).sqrt()
        keep = int(lib.searchsorted(-tail, -eps * s.norm()).item())
        rk = max(1, min(keep, max_rank))
        cores.append(u[:, :rk].reshape(r, shape[k], rk))
        c = s[:rk, None] * vh[:rk]
        r = rk
    cores.append(c.reshape(r, shape[-1], 1))
    return cores


def _tt_full(lib, cores):
    out = cores[0]
    for g in cores[1:]:
        out = lib.tensordot(out, g, dims=([out.dim() - 1], [0]))
    return out.squeeze(0).squeeze(-1)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_tt_svd(lib, dt, rec):
    """TT-SVD of a smooth function tensor and of a random one; reconstruction and ranks."""
    lib.manual_seed(0)
    g = lib.linspace(0, 1, 6, dtype=dt)
    t = lib.sin(g[:, None, None, None] + 2 * g[None, :, None, None] + g[None, None, :, None] ** 2)
    t = t + 0.3 * g[None, None, None, :]
    for eps, mr in [(1e-10, 10), (1e-3, 3), (0.2, 2)]:
        cores = _tt_svd(lib, t, eps, mr)
        rec(f"ranks{eps}", [c.shape[2] for c in cores])
        full = _tt_full(lib, cores)
        rec(f"err{eps}", (full - t).norm() / t.norm())
    r = lib.randn(4, 5, 3, 4, dtype=dt)
    cores = _tt_svd(lib, r, 0.1, 6)
    rec("rranks", [c.shape[2] for c in cores])
    rec("rerr", (_tt_full(lib, cores) - r).norm())
    s = lib.linalg.svdvals(r.reshape(20, 12))
    ts, ti = lib.topk(s, 3)
    rec("topk", ts)
    rec("topk_i", ti)
    rec("energy", lib.cumsum(s**2, 0) / (s**2).sum())
    u, s2, vh = lib.svd(r.reshape(20, 12))
    rec("svd_shapes", [list(u.shape), list(s2.shape), list(vh.shape)])
    rec("svd_recon", u @ lib.diag(s2) @ vh.T)
    u, s3, vh = lib.svd(r.reshape(20, 12), some=False)
    rec("svd_full_shapes", [list(u.shape), list(vh.shape)])


def p_mps_contract(lib, dt, rec):
    """Random MPS: norm by transfer matrices (einsum, several spellings), expectation of an MPO,
    overlaps with tensordot (int and list dims), ellipsis and repeated-index einsums."""
    lib.manual_seed(1)
    n, d, D = 5, 2, 3
    dims = [1] + [D] * (n - 1) + [1]
    A = [lib.randn(dims[i], d, dims[i + 1], dtype=dt) for i in range(n)]
    E = lib.ones(1, 1, dtype=dt)
    for a in A:
        E = lib.einsum("ab,asc,bsd->cd", E, a, a)
    rec("norm2", E)
    E2 = lib.ones(1, 1, dtype=dt)
    for a in A:
        E2 = lib.einsum("ab,asc,bsd", E2, a, a)
    rec("norm2_implicit", E2)
    E3 = lib.ones(1, 1, dtype=dt)
    for a in A:
        tmp = lib.tensordot(E3, a, dims=1)
        E3 = lib.tensordot(tmp, a, dims=([0, 1], [0, 1]))
    rec("norm2_tdot", E3)
    # MPO for sum_i Z_i
    Z = lib.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=dt)
    I2 = lib.eye(2, dtype=dt)
    W = lib.zeros(2, 2, d, d, dtype=dt)
    W[0, 0] = I2
    W[1, 1] = I2
    W[1, 0] = Z
    L = lib.zeros(1, 2, 1, dtype=dt)
    L[0, 1, 0] = 1.0
    for a in A:
        L = lib.einsum("awb,asc,wvst,btd->cvd", L, a, W, a)
    rec("mpo_exp", L[0, 0, 0] / E[0, 0])
    # sublist format and ellipsis
    x = lib.randn(2, 3, 4, dtype=dt)
    y = lib.randn(2, 4, 5, dtype=dt)
    rec("ellipsis", lib.einsum("...ij,...jk->...ik", x, y))
    rec("ellipsis_mid", lib.einsum("i...j->j...i", x))
    rec("sublist", lib.einsum(x, [0, 1, 2], y, [0, 2, 3], [0, 1, 3]))
    sq = lib.randn(3, 4, 4, dtype=dt)
    rec("diag", lib.einsum("bii->bi", sq))
    rec("trace", lib.einsum("bii", sq))
    rec("trace_all", lib.einsum("bii->", sq))
    rec("outer", lib.einsum("i,j,k->ijk", x[0, 0], y[0, 0], sq[0, 0]))
    rec("list_arg", lib.einsum("ij,jk", [x[0], y[0]]))
    rec("tdot0", lib.tensordot(x[0, 0], y[0, 0], dims=0).shape)
    rec("tdot2", lib.tensordot(x, lib.randn(3, 4, 2, dtype=dt), dims=2))
    rec.err("einsum_bad", lambda: lib.einsum("ij,jk->ik", x[0], x[0]))
    rec.err("einsum_nargs", lambda: lib.einsum("ij,jk->ik", x[0]))
    rec.err("einsum_out", lambda: lib.einsum("ij->ik", x[0]))
    rec.err("tdot_bad", lambda: lib.tensordot(x, y, dims=([2], [2])))
    rec.err("tdot_neg", lambda: lib.tensordot(x, y, dims=-1))


def p_qr_sweep(lib, dt, rec):
    """Left/right canonicalisation of an MPS with QR sweeps; isometry checks; QR modes."""
    lib.manual_seed(2)
    n, d = 4, 3
    dims = [1, 3, 4, 3, 1]
    A = [lib.randn(dims[i], d, dims[i + 1], dtype=dt) for i in range(n)]
    psi = _tt_full(lib, A)
    for i in range(n - 1):
        a, s, r = A[i].shape
        q, rr = lib.linalg.qr(A[i].reshape(a * s, r))
        A[i] = q.reshape(a, s, -1)
        A[i + 1] = lib.einsum("ab,bsc->asc", rr, A[i + 1])
        iso = lib.einsum("asb,asc->bc", A[i], A[i])
        rec(f"iso{i}", iso)
    rec("same_state~", (_tt_full(lib, A) - psi).abs().max())
    for i in range(n - 1, 0, -1):
        a, s, r = A[i].shape
        q, rr = lib.linalg.qr(A[i].reshape(a, s * r).T)
        A[i] = q.T.reshape(-1, s, r)
        A[i - 1] = lib.einsum("asb,cb->asc", A[i - 1], rr)
    rec("norm_last", A[0].norm())
    rec("psi_norm", psi.norm())
    m = lib.randn(6, 4, dtype=dt)
    for mode in ["reduced", "complete", "r"]:
        q, r = lib.linalg.qr(m, mode=mode)
        rec(f"q.{mode}", list(q.shape))
        rec(f"r.{mode}", r.abs())
        if mode != "r":
            rec(f"qr.{mode}", q @ r if mode == "reduced" else q[:, :4] @ r[:4])
    w = lib.randn(3, 4, 6, dtype=dt)
    q, r = lib.linalg.qr(w)
    rec("batched_qr", (q @ r - w).abs().max())
    rec("wide_r_shape", list(r.shape))
    rec.err("qr_bad_mode", lambda: lib.linalg.qr(m, mode="full"))
    rec.err("qr_1d", lambda: lib.linalg.qr(m[0]))
    q, r = lib.qr(m, some=False)
    rec("legacy_qr", [list(q.shape), list(r.shape)])


def p_dmrg_lite(lib, dt, rec):
    """Heisenberg chain: exact ground state by eigh of the full Hamiltonian built by kron,
    power iteration / Lanczos on the effective matrix, eigenvector overlaps."""
    lib.manual_seed(3)
    sx = lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=dt) / 2
    sz = lib.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=dt) / 2
    sp = lib.tensor([[0.0, 1.0], [0.0, 0.0]], dtype=dt)
    sm = sp.T.contiguous()  # torch 2.13 kron raises on a transposed operand
    n = 6
    H = lib.zeros(2**n, 2**n, dtype=dt)
    for i in range(n - 1):
        bond = lib.kron(sz, sz) + 0.5 * (lib.kron(sp, sm) + lib.kron(sm, sp))
        H = H + lib.kron(
            lib.kron(lib.eye(2**i, dtype=dt), bond), lib.eye(2 ** (n - i - 2), dtype=dt)
        )
    H = H + 0.1 * lib.kron(sx, lib.eye(2 ** (n - 1), dtype=dt))
    w, v = lib.linalg.eigh(H)
    rec("e0", w[:4])
    rec("proj0", lib.outer(v[:, 0], v[:, 0]))
    rec("eigvalsh", lib.linalg.eigvalsh(H, UPLO="U")[:3])
    x = lib.randn(2**n, dtype=dt)
    shift = 5.0
    for _ in range(30):
        x = shift * x - H @ x
        x = x / lib.linalg.vector_norm(x)
    rec("power_e", x @ H @ x)
    # effective two-site Hamiltonian of a random environment: symmetric by construction
    Lenv = lib.randn(3, 3, dtype=dt)
    Lenv = Lenv + Lenv.T
    h2 = lib.kron(Lenv, lib.eye(4, dtype=dt)) + lib.kron(lib.eye(3, dtype=dt), bond)
    w2, v2 = lib.linalg.eigh(h2, UPLO="L")
    rec("heff_w", w2)
    rec("heff_absv0", v2[:, 0].abs())


def p_tebd(lib, dt, rec):
    """TEBD: two-site gates exp(-i dt h) replaced by imaginary-time exp(-tau h) with matrix_exp,
    applied to an MPS by einsum + truncated SVD; energy decreases."""
    lib.manual_seed(4)
    sz = lib.tensor([[1.0, 0.0], [0.0, -1.0]], dtype=dt)
    sx = lib.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=dt)
    h = -lib.kron(sz, sz) - 0.5 * (
        lib.kron(sx, lib.eye(2, dtype=dt)) + lib.kron(lib.eye(2, dtype=dt), sx)
    )
    G = lib.linalg.matrix_exp(-0.1 * h).reshape(2, 2, 2, 2)
    rec("gate", G)
    rec("gate_fn", lib.matrix_exp(-0.1 * h))
    n, chi = 6, 4
    A = [lib.randn(1 if i == 0 else 2, 2, 1 if i == n - 1 else 2, dtype=dt) for i in range(n)]
    for sweep in range(3):
        for i in list(range(0, n - 1, 2)) + list(range(1, n - 1, 2)):
            th = lib.einsum("asb,btc,stuv->auvc", A[i], A[i + 1], G)
            a, _, _, r = th.shape
            u, s, vh = lib.linalg.svd(th.reshape(a * 2, 2 * r), full_matrices=False)
            k = min(chi, int((s > 1e-12 * s[0]).sum()))
            s = s[:k] / s[:k].norm()
            A[i] = u[:, :k].reshape(a, 2, k)
            A[i + 1] = (s[:, None] * vh[:k]).reshape(k, 2, r)
            rec(f"s{sweep}_{i}", s)
    psi = _tt_full(lib, A).reshape(-1)
    rec("psi_abs", psi.abs())
    Hfull = lib.zeros(2**n, 2**n, dtype=dt)
    for i in range(n - 1):
        Hfull += lib.kron(lib.kron(lib.eye(2**i, dtype=dt), h), lib.eye(2 ** (n - i - 2), dtype=dt))
    rec("energy", psi @ Hfull @ psi / (psi @ psi))
    rec("kron_shape", list(lib.kron(lib.ones(2, 3, dtype=dt), lib.ones(4, dtype=dt)).shape))
    rec("kron_3d", lib.kron(lib.arange(4.0, dtype=dt).reshape(2, 2, 1), sx))


def p_peps_boundary(lib, dt, rec):
    """PEPS-lite: a 3x3 network of rank-4 site tensors, contracted row by row into a boundary MPS
    (einsum with 5 operands) and compared with a single-shot contraction."""
    lib.manual_seed(5)
    D = 2
    T = [[lib.rand(D, D, D, D, dtype=dt) for _ in range(3)] for _ in range(3)]  # l, u, r, d
    ones = lib.ones(D, dtype=dt)
    # first row: contract left/right/up boundary indices with ones
    row0 = lib.einsum(
        "a,b,abcd,c,e,cefg,h,ehij,i->dgj",
        ones,
        ones,
        T[0][0],
        ones,
        ones,
        T[0][1],
        ones,
        T[0][2],
        ones,
    )
    row1 = lib.einsum("dgj,a,adcx,cgfy,fjiz,i->xyz", row0, ones, T[1][0], T[1][1], T[1][2], ones)
    Z = lib.einsum(
        "xyz,a,axcp,cyfq,fziw,i,p,q,w->",
        row1,
        ones,
        T[2][0],
        T[2][1],
        T[2][2],
        ones,
        ones,
        ones,
        ones,
    )
    rec("Z", Z)
    full = lib.einsum(
        "abcd,cefg,ehij,kdlm,lgno,njpq,rmst,sotu,tqvw->",
        T[0][0],
        T[0][1],
        T[0][2],
        T[1][0],
        T[1][1],
        T[1][2],
        T[2][0],
        T[2][1],
        T[2][2],
    )
    rec("Z_no_boundary", full)
    rec("row0", row0)
    # gradient of log Z w.r.t. a site tensor
    t11 = T[1][1].clone().requires_grad_(True)
    row1g = lib.einsum("dgj,a,adcx,cgfy,fjiz,i->xyz", row0, ones, T[1][0], t11, T[1][2], ones)
    Zg = lib.einsum(
        "xyz,a,axcp,cyfq,fziw,i,p,q,w->",
        row1g,
        ones,
        T[2][0],
        T[2][1],
        T[2][2],
        ones,
        ones,
        ones,
        ones,
    )
    Zg.log().backward()
    rec("dlogZ", t11.grad)


def p_grads_factorizations(lib, dt, rec):
    """Gradients through svd/svdvals/qr/eigh/eigvalsh/einsum with broadcasting (non-degenerate)."""
    lib.manual_seed(6)
    a = lib.randn(5, 4, dtype=dt, requires_grad=True)
    u, s, vh = lib.linalg.svd(a, full_matrices=False)
    loss = s.pow(3).sum() + (u @ lib.diag(s) @ vh).pow(2).sum() + (u[:, :2] @ vh[:2]).sum() ** 2
    (g,) = lib.autograd.grad(loss, a)
    rec("svd_grad", g)
    (g,) = lib.autograd.grad(lib.linalg.svdvals(a).log().sum(), a)
    rec("svdvals_grad", g)
    (g,) = lib.autograd.grad(lib.linalg.matrix_norm(a, "nuc"), a)
    rec("nuc_grad", g)
    (g,) = lib.autograd.grad(lib.linalg.matrix_norm(a, 2), a)
    rec("spec_grad", g)
    q, r = lib.linalg.qr(a)
    (g,) = lib.autograd.grad((q @ r.triu()).sin().sum() + r.diagonal().abs().log().sum(), a)
    rec("qr_grad", g)
    sym = lib.randn(4, 4, dtype=dt)
    sym = (sym + sym.T).requires_grad_(True)
    w, v = lib.linalg.eigh(sym)
    loss = (w * lib.arange(1, 5, dtype=dt)).sum() + (v[:, 0].outer(v[:, 0]) * sym).sum()
    (g,) = lib.autograd.grad(loss, sym)
    rec("eigh_grad", g)
    (g,) = lib.autograd.grad(lib.linalg.eigvalsh(sym).exp().sum(), sym)
    rec("eigvalsh_grad", g)
    x = lib.randn(1, 3, 4, dtype=dt, requires_grad=True)
    y = lib.randn(6, 4, 2, dtype=dt, requires_grad=True)
    out = lib.einsum("bij,bjk->bik", x, y)
    rec("bcast_shape", list(out.shape))
    gx, gy = lib.autograd.grad((out**2).sum(), [x, y])
    rec("bcast_gx", gx)
    rec("bcast_gy", gy)
    z = lib.randn(4, 4, dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(lib.einsum("ii->i", z).pow(2).sum() + lib.einsum("ii", z) ** 2, z)
    rec("diag_grad", g)
    (g,) = lib.autograd.grad(lib.einsum("...ii->...", z[None].expand(3, 4, 4)).sum(), z)
    rec("trace_ellipsis_grad", g)


def p_cp_als(lib, dt, rec):
    """CP-ALS on a rank-3 tensor: Khatri-Rao by einsum, Hadamard of Grams, pinv/lstsq/solve."""
    lib.manual_seed(7)
    I, J, K, R = 5, 4, 6, 3  # noqa: E741
    A0, B0, C0 = (lib.randn(n, R, dtype=dt) for n in (I, J, K))
    X = lib.einsum("ir,jr,kr->ijk", A0, B0, C0) + 0.01 * lib.randn(I, J, K, dtype=dt)
    A, B, C = (lib.randn(n, R, dtype=dt) for n in (I, J, K))

    def kr(U, V):
        return lib.einsum("ir,jr->ijr", U, V).reshape(-1, U.shape[1])

    for it in range(8):
        X1 = X.reshape(I, -1)
        A = X1 @ kr(B, C) @ lib.linalg.pinv((B.T @ B) * (C.T @ C))
        X2 = X.movedim(1, 0).reshape(J, -1)
        G = (A.T @ A) * (C.T @ C)
        B = lib.linalg.solve(G, (X2 @ kr(A, C)).T).T
        X3 = X.movedim(2, 0).reshape(K, -1)
        C = lib.linalg.lstsq(kr(A, B), X3.T).solution.T
        fit = (lib.einsum("ir,jr,kr->ijk", A, B, C) - X).norm() / X.norm()
        rec(f"fit{it}", fit)
    rec("recon", lib.einsum("ir,jr,kr->ijk", A, B, C))
    rec("pinv_hermitian", lib.linalg.pinv(G, hermitian=True))
    rec("pinv_rtol", lib.linalg.pinv(kr(A, B), rtol=1e-2))
    rec("pinv_atol", lib.linalg.pinv(kr(A, B), atol=0.5))
    sol = lib.linalg.lstsq(kr(A, B), X3.T, driver="gelsd")
    rec("lstsq_rank", sol.rank)
    rec("lstsq_sv", sol.singular_values)
    rec("lstsq_res", sol.residuals)
    sol = lib.linalg.lstsq(kr(A, B), X3.T)
    rec("lstsq_default_rank", sol.rank)
    rec("lstsq_default_res", sol.residuals)
    rec("lstsq_default_sv", sol.singular_values)


def p_tucker_hosvd(lib, dt, rec):
    """HOSVD: unfoldings by movedim+reshape, leading left singular subspaces, core by mode-n
    products with tensordot; projector comparisons (sign-invariant)."""
    lib.manual_seed(8)
    X = lib.randn(6, 5, 4, dtype=dt)
    ranks = (3, 3, 2)

    def unfold(T, n):
        return T.movedim(n, 0).reshape(T.shape[n], -1)

    def mode_n(T, M, n):
        return lib.tensordot(T, M, dims=([n], [1])).movedim(-1, n)

    Us = []
    for n, r in enumerate(ranks):
        u, _, _ = lib.linalg.svd(unfold(X, n), full_matrices=False)
        Us.append(u[:, :r])
        rec(f"proj{n}", u[:, :r] @ u[:, :r].T)
    G = X
    for n, U in enumerate(Us):
        G = mode_n(G, U.T, n)
    rec("core_shape", list(G.shape))
    rec("core_norm", G.norm())
    Xh = G
    for n, U in enumerate(Us):
        Xh = mode_n(Xh, U, n)
    rec("recon_err", (X - Xh).norm())
    rec("recon", Xh)
    # HOOI refinement with eigh of Gram matrices
    for it in range(2):
        for n in range(3):
            Y = X
            for m in range(3):
                if m != n:
                    Y = mode_n(Y, Us[m].T, m)
            Yn = unfold(Y, n)
            w, v = lib.linalg.eigh(Yn @ Yn.T)
            Us[n] = v[:, -ranks[n] :]
        G = X
        for n, U in enumerate(Us):
            G = mode_n(G, U.T, n)
        rec(f"hooi{it}", G.norm())
    rec("unfold1", unfold(lib.arange(24, dtype=dt).reshape(2, 3, 4), 1))


def p_tt_cross(lib, dt, rec):
    """Maxvol on a tall matrix (argmax, index updates by rank-1 corrections) and a skeleton
    (cross) approximation of a smooth function matrix."""
    lib.manual_seed(9)
    x = lib.linspace(0, 1, 40, dtype=dt)
    M = 1.0 / (1.0 + x[:, None] + x[None, :] ** 2)
    r = 4
    cols = lib.randperm(40)[:r]
    rec("cols0", cols)
    for it in range(3):
        Q, _ = lib.linalg.qr(M[:, cols])
        # maxvol on Q (40 x r)
        idx = lib.arange(r)
        for _ in range(20):
            B = Q @ lib.linalg.inv(Q[idx])
            flat = B.abs().argmax()
            i, j = divmod(int(flat.item()), r)
            if B[i, j].abs() <= 1.0 + 1e-2:
                break
            idx = idx.clone()
            idx[j] = i
        rows = idx
        Q2, _ = lib.linalg.qr(M[rows].T)
        idx = lib.arange(r)
        for _ in range(20):
            B = Q2 @ lib.linalg.inv(Q2[idx])
            flat = B.abs().argmax()
            i, j = divmod(int(flat.item()), r)
            if B[i, j].abs() <= 1.0 + 1e-2:
                break
            idx = idx.clone()
            idx[j] = i
        cols = idx
        rec(f"rows{it}?", lib.sort(rows).values)
        rec(f"cols{it}?", lib.sort(cols).values)
        approx = M[:, cols] @ lib.linalg.solve(M[rows][:, cols], M[rows])
        rec(f"err{it}", (approx - M).abs().max())
    rec("argmax_dim", M.argmax(dim=1))
    rec("argmax_keep", M.abs().argmax(dim=0, keepdim=True))


def p_nmf(lib, dt, rec):
    """NMF with Lee-Seung multiplicative updates and clamp_min; KL variant."""
    lib.manual_seed(10)
    V = lib.rand(8, 6, dtype=dt) @ lib.rand(6, 7, dtype=dt)
    W = lib.rand(8, 3, dtype=dt)
    H = lib.rand(3, 7, dtype=dt)
    eps = 1e-9
    for it in range(20):
        H = H * (W.T @ V) / (W.T @ W @ H).clamp_min(eps)
        W = W * (V @ H.T) / (W @ H @ H.T).clamp_min(eps)
        if it % 5 == 4:
            rec(f"fro{it}", lib.linalg.matrix_norm(V - W @ H))
    W2, H2 = W.clone(), H.clone()
    for _ in range(5):
        WH = (W2 @ H2).clamp_min(eps)
        H2 = H2 * (W2.T @ (V / WH)) / W2.sum(0)[:, None]
        WH = (W2 @ H2).clamp_min(eps)
        W2 = W2 * ((V / WH) @ H2.T) / H2.sum(1)[None, :]
    kl = (V * lib.log(V / (W2 @ H2)) - V + W2 @ H2).sum()
    rec("kl", kl)
    rec("W", W)
    rec("clamp_min_int", lib.arange(-3, 3).clamp_min(0))
    rec("clamp_min_t", lib.arange(-3.0, 3.0, dtype=dt).clamp_min(lib.tensor(0.5, dtype=dt)))


def p_randomized_svd(lib, dt, rec):
    """Halko randomized SVD: randn sketch, QR, power iterations, small SVD; svd_lowrank/
    pca_lowrank singular values."""
    lib.manual_seed(11)
    U0, _ = lib.linalg.qr(lib.randn(30, 8, dtype=dt))
    V0, _ = lib.linalg.qr(lib.randn(20, 8, dtype=dt))
    sv = 2.0 ** -lib.arange(8, dtype=dt)
    A = (U0 * sv) @ V0.T + 1e-6 * lib.randn(30, 20, dtype=dt)
    k, p = 4, 4
    Om = lib.randn(20, k + p, dtype=dt)
    Y = A @ Om
    for _ in range(2):
        Q, _ = lib.linalg.qr(Y)
        Q, _ = lib.linalg.qr(A.T @ Q)
        Y = A @ Q
    Q, _ = lib.linalg.qr(Y)
    Bm = Q.T @ A
    ub, s, vh = lib.linalg.svd(Bm, full_matrices=False)
    rec("s", s[:k])
    Uk = Q @ ub[:, :k]
    rec("proj", Uk @ Uk.T)
    rec("err", (A - Uk @ lib.diag(s[:k]) @ vh[:k]).norm())
    u, s2, v = lib.svd_lowrank(A, q=6, niter=3)
    rec("lowrank_s", s2[:4])
    rec("lowrank_shapes", [list(u.shape), list(s2.shape), list(v.shape)])
    u, s3, v = lib.pca_lowrank(A, q=5)
    rec("pca_s", s3[:3])


def p_cur_nystrom(lib, dt, rec):
    """CUR with leverage-score sampling (multinomial with and without replacement) and a
    Nystrom approximation of an RBF Gram matrix with eigh-based pseudo-inverse square root."""
    lib.manual_seed(12)
    A = lib.randn(12, 4, dtype=dt) @ lib.randn(4, 10, dtype=dt)
    u, s, vh = lib.linalg.svd(A, full_matrices=False)
    lev_c = (vh[:4] ** 2).sum(0) / 4
    lev_r = (u[:, :4] ** 2).sum(1) / 4
    rec("lev_c", lev_c)
    c = lib.multinomial(lev_c, 5, replacement=False)
    r = lib.multinomial(lev_r, 6, replacement=True)
    rec("c", c)
    rec("r", r)
    C, R = A[:, c], A[r]
    Um = lib.linalg.pinv(C) @ A @ lib.linalg.pinv(R)
    rec("cur_err", (C @ Um @ R - A).norm() / A.norm())
    x = lib.randn(50, 2, dtype=dt)
    K = lib.exp(-(lib.cdist(x, x) ** 2) / 2)
    idx = lib.randperm(50)[:10]
    rec("idx", idx)
    W = K[idx][:, idx]
    w, v = lib.linalg.eigh(W)
    w = w.clamp_min(1e-10)
    Wisqrt = v @ lib.diag(w.rsqrt()) @ v.T
    F = K[:, idx] @ Wisqrt
    rec("nys_err", (F @ F.T - K).norm() / K.norm())
    rec("nys_diag", (F**2).sum(1)[:5])
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("multinomial_toomany", lambda: lib.multinomial(lev_c, 20))


def p_kron_sylvester(lib, dt, rec):
    """Kronecker-factored solves (vec trick vs kron), batched solve, Sylvester and Lyapunov by
    eigendecomposition."""
    lib.manual_seed(13)
    A = lib.randn(3, 3, dtype=dt) + 3 * lib.eye(3, dtype=dt)
    B = lib.randn(4, 4, dtype=dt) + 3 * lib.eye(4, dtype=dt)
    X = lib.randn(3, 4, dtype=dt)
    # (B^T kron A) vec(X) = vec(A X B) with column-major vec
    K = lib.kron(B.T.contiguous(), A)  # torch 2.13 kron raises on a transposed operand
    vecX = X.T.reshape(-1)
    rec("kron_mv", (K @ vecX).reshape(4, 3).T)
    rec("direct", A @ X @ B)
    Y = A @ X @ B
    Xs = lib.linalg.solve(A, lib.linalg.solve(B.T, Y.T).T)
    rec("kron_solve", Xs)
    Xk = lib.linalg.solve(K, Y.T.reshape(-1)).reshape(4, 3).T
    rec("kron_solve_full", Xk)
    # batched solve with broadcasting
    As = lib.randn(2, 1, 3, 3, dtype=dt) + 3 * lib.eye(3, dtype=dt)
    bs = lib.randn(5, 3, 2, dtype=dt)
    rec("batched", lib.linalg.solve(As, bs))
    rec("batched_vec", lib.linalg.solve(As[:, 0], lib.randn(2, 3, dtype=dt)))
    rec("left_false", lib.linalg.solve(A, lib.randn(2, 3, dtype=dt), left=False))
    # Sylvester A X + X B = C with symmetric A, B
    S1 = A + A.T
    S2 = B + B.T
    Cm = lib.randn(3, 4, dtype=dt)
    w1, v1 = lib.linalg.eigh(S1)
    w2, v2 = lib.linalg.eigh(S2)
    Ct = v1.T @ Cm @ v2
    Xsyl = v1 @ (Ct / (w1[:, None] + w2[None, :])) @ v2.T
    rec("sylvester_res", S1 @ Xsyl + Xsyl @ S2 - Cm)
    rec("sylvester", Xsyl)
    # Lyapunov A X + X A^T + Q = 0 for a stable A (general eig, real parts)
    Ast = -lib.eye(3, dtype=dt) * 2 + 0.3 * lib.randn(3, 3, dtype=dt)
    Qm = lib.eye(3, dtype=dt)
    Xl = lib.linalg.solve(
        lib.kron(lib.eye(3, dtype=dt), Ast) + lib.kron(Ast, lib.eye(3, dtype=dt)),
        -Qm.reshape(-1),
    ).reshape(3, 3)
    rec("lyap", Xl)
    rec.err("solve_singular", lambda: lib.linalg.solve(lib.zeros(3, 3, dtype=dt), X))
    rec.err("solve_shape", lambda: lib.linalg.solve(A, lib.randn(4, 2, dtype=dt)))
    rec.err("solve_ex", lambda: lib.linalg.solve_ex(lib.zeros(2, 2, dtype=dt), X[:2]).info)
    rec("solve_ex_info", lib.linalg.solve_ex(lib.zeros(2, 2, dtype=dt), X[:2]).info)


def p_matrix_functions(lib, dt, rec):
    """matrix_exp, matrix_power incl. negative powers, sqrtm via eigh, logm-lite by inverse
    scaling-and-squaring with a Pade-free Taylor log, and their gradients."""
    lib.manual_seed(14)
    M = lib.randn(4, 4, dtype=dt)
    S = M @ M.T + 4 * lib.eye(4, dtype=dt)
    rec("exp", lib.linalg.matrix_exp(0.3 * M))
    rec("exp_batched", lib.matrix_exp(lib.stack([0.1 * M, -0.2 * M, lib.zeros(4, 4, dtype=dt)])))
    for k in [0, 1, 3, -1, -2]:
        rec(f"pow{k}", lib.linalg.matrix_power(S, k))
    rec("pow_method", S.matrix_power(2))
    rec.err("pow_neg_singular", lambda: lib.linalg.matrix_power(lib.zeros(2, 2, dtype=dt), -1))
    rec.err("pow_nonsquare", lambda: lib.linalg.matrix_power(lib.zeros(2, 3, dtype=dt), 2))
    rec.err("exp_nonsquare", lambda: lib.linalg.matrix_exp(lib.zeros(2, 3, dtype=dt)))
    w, v = lib.linalg.eigh(S)
    sq = v @ lib.diag(w.sqrt()) @ v.T
    rec("sqrtm", sq)
    rec("sqrtm_sq~", sq @ sq - S)
    # logm: log(S) = V log(w) V^T, compare with series on S / ||S||
    logS = v @ lib.diag(w.log()) @ v.T
    rec("logm", logS)
    rec("exp_logm", lib.linalg.matrix_exp(logS))
    Mg = (0.2 * M).requires_grad_(True)
    (g,) = lib.autograd.grad(
        lib.linalg.matrix_exp(Mg).sum() + lib.linalg.matrix_exp(Mg).trace(), Mg
    )
    rec("exp_grad", g)
    Sg = S.clone().requires_grad_(True)
    (g,) = lib.autograd.grad(lib.linalg.matrix_power(Sg, -2).sum(), Sg)
    rec("pow_neg_grad", g)
    (g,) = lib.autograd.grad(lib.linalg.matrix_power(Sg, 3).diagonal().sum(), Sg)
    rec("pow3_grad", g)


def p_cg_lanczos(lib, dt, rec):
    """Conjugate gradient on an SPD system and Lanczos with full reorthogonalisation; Ritz values
    against eigvalsh."""
    lib.manual_seed(15)
    n = 20
    Q, _ = lib.linalg.qr(lib.randn(n, n, dtype=dt))
    ev = lib.linspace(1, 10, n, dtype=dt)
    A = (Q * ev) @ Q.T
    b = lib.randn(n, dtype=dt)
    x = lib.zeros(n, dtype=dt)
    r = b - A @ x
    p = r.clone()
    rs = r.dot(r)
    for it in range(12):
        Ap = A @ p
        alpha = rs / p.dot(Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r.dot(r)
        p = r + (rs_new / rs) * p
        rs = rs_new
        if it % 3 == 2:
            rec(f"res{it}", rs.sqrt())
    rec("cg_x_err", (x - lib.linalg.solve(A, b)).norm())
    m = 8
    V = lib.zeros(n, m + 1, dtype=dt)
    alphas = lib.zeros(m, dtype=dt)
    betas = lib.zeros(m, dtype=dt)
    V[:, 0] = b / b.norm()
    for j in range(m):
        w = A @ V[:, j]
        alphas[j] = w.dot(V[:, j])
        w = w - V[:, : j + 1] @ (V[:, : j + 1].T @ w)
        w = w - V[:, : j + 1] @ (V[:, : j + 1].T @ w)
        betas[j] = w.norm()
        V[:, j + 1] = w / betas[j]
    T = lib.diag(alphas) + lib.diag(betas[:-1], 1) + lib.diag(betas[:-1], -1)
    ritz = lib.linalg.eigvalsh(T)
    rec("ritz", ritz)
    rec("ortho", (V.T @ V - lib.eye(m + 1, dtype=dt)).abs().max())
    rec("ritz_extremes", lib.stack([ritz.min(), ritz.max()]))


def p_householder(lib, dt, rec):
    """Householder QR by hand vs geqrf + householder_product / ormqr; orgqr alias."""
    lib.manual_seed(16)
    A = lib.randn(6, 4, dtype=dt)
    R = A.clone()
    m, n = A.shape
    Qh = lib.eye(m, dtype=dt)
    for k in range(n):
        x = R[k:, k]
        alpha = -lib.sign(x[0]) * x.norm()
        v = x.clone()
        v[0] = v[0] - alpha
        v = v / v.norm()
        R[k:, :] = R[k:, :] - 2 * lib.outer(v, v @ R[k:, :])
        Qh[:, k:] = Qh[:, k:] - 2 * lib.outer(Qh[:, k:] @ v, v)
    rec("R_hand_abs", R[:n].abs())
    rec("QR_hand", Qh[:, :n] @ R[:n])
    a, tau = lib.geqrf(A)
    rec("geqrf_R_abs", a.triu()[:n].abs())
    rec("tau", tau)
    Q = lib.linalg.householder_product(a, tau)
    rec("hp_QR", Q @ a.triu()[:n])
    rec("orgqr", lib.orgqr(a, tau) - Q)
    C = lib.randn(6, 3, dtype=dt)
    rec("ormqr", lib.ormqr(a, tau, C) @ lib.ones(3, dtype=dt))
    rec("ormqr_T", lib.ormqr(a, tau, C, transpose=True))
    rec("ormqr_right", lib.ormqr(a, tau, C.T, left=False))
    Qf = lib.linalg.householder_product(a, tau[:2])
    rec("hp_partial", Qf)
    rec.err("hp_bad", lambda: lib.linalg.householder_product(a[:, :3].T, tau))


def p_lu(lib, dt, rec):
    """LU with partial pivoting: lu_factor, lu_solve (adjoint, left), lu_unpack, linalg.lu,
    det/slogdet via LU, legacy lu."""
    lib.manual_seed(17)
    A = lib.randn(5, 5, dtype=dt)
    LU, piv = lib.linalg.lu_factor(A)
    rec("LU", LU)
    rec("piv", piv)
    rec("piv_dtype", str(piv.dtype))
    P, L, U = lib.lu_unpack(LU, piv)
    rec("P", P)
    rec("PLU", P @ L @ U - A)
    B = lib.randn(5, 2, dtype=dt)
    rec("lu_solve", lib.linalg.lu_solve(LU, piv, B))
    rec("lu_solve_adj", lib.linalg.lu_solve(LU, piv, B, adjoint=True))
    rec("lu_solve_right", lib.linalg.lu_solve(LU, piv, B.T, left=False))
    rec("legacy_lu_solve", lib.lu_solve(B, LU, piv))
    P2, L2, U2 = lib.linalg.lu(A)
    rec("linalg_lu", [P2, L2, U2])
    det = lib.prod(LU.diagonal()) * (-1) ** (piv != lib.arange(1, 6, dtype=piv.dtype)).sum()
    rec("det_lu", det)
    rec("det", lib.linalg.det(A))
    LU2, piv2, info = lib.linalg.lu_factor_ex(A)
    rec("info", info)
    out = lib.lu(A, get_infos=True)
    rec("legacy_lu_len", len(out))
    Ab = lib.randn(3, 4, 4, dtype=dt)
    LUb, pivb = lib.linalg.lu_factor(Ab)
    rec("batched_piv", pivb)
    Pb, Lb, Ub = lib.lu_unpack(LUb, pivb, unpack_data=False)
    rec("unpack_nodata", [Pb, str(Lb.shape), str(Ub.shape)])
    rect = lib.randn(3, 5, dtype=dt)
    P3, L3, U3 = lib.linalg.lu(rect)
    rec("rect_lu", [list(L3.shape), list(U3.shape)])
    rec("rect_plu", P3 @ L3 @ U3 - rect)
    Ag = A.clone().requires_grad_(True)
    LUg, pivg = lib.linalg.lu_factor(Ag)
    (g,) = lib.autograd.grad(lib.linalg.lu_solve(LUg, pivg, B).sum(), Ag)
    rec("lu_grad", g)
    rec.err("lu_factor_singular", lambda: lib.linalg.lu_factor(lib.zeros(2, 2, dtype=dt)))


def p_norms_cond(lib, dt, rec):
    """matrix_norm / vector_norm / norm variants, cond with every p, multi_dot and chain_matmul
    (its deprecation warning), opt_einsum flags."""
    lib.manual_seed(18)
    A = lib.randn(4, 4, dtype=dt)
    Ab = lib.randn(2, 3, 4, dtype=dt)
    for o in ["fro", "nuc", 2, -2, float("inf"), float("-inf"), 1, -1]:
        rec(f"mn{o}", lib.linalg.matrix_norm(A, o))
        rec(f"mnb{o}", lib.linalg.matrix_norm(Ab, o))
        rec(f"cond{o}", lib.linalg.cond(A, o))
    rec("cond_none", lib.linalg.cond(Ab))
    rec("cond_rect", lib.linalg.cond(Ab, 2))
    rec.err("cond_rect_fro", lambda: lib.linalg.cond(Ab, "fro"))
    rec("cond_singular", lib.linalg.cond(lib.ones(3, 3, dtype=dt), 1))
    v = lib.randn(7, dtype=dt)
    for o in [0, 1, 2, 3.5, float("inf"), float("-inf"), -1, -2]:
        rec(f"vn{o}", lib.linalg.vector_norm(v, o))
    rec("vn_dim", lib.linalg.vector_norm(Ab, 1, dim=(0, 2), keepdim=True))
    rec("vn_dtype", lib.linalg.vector_norm(v.float(), dtype=lib.float64))
    rec("norm_fro", lib.linalg.norm(A))
    rec("norm_2d_ord", lib.linalg.norm(A, 2))
    rec("norm_1d", lib.linalg.norm(v, 3))
    rec("norm_dim", lib.linalg.norm(Ab, dim=(1, 2)))
    rec("torch_norm", lib.norm(A, p="nuc"))
    rec("torch_norm_p", lib.norm(Ab, p=1, dim=1))
    rec.err("mn_bad", lambda: lib.linalg.matrix_norm(A, 3))
    rec.err("vn_str", lambda: lib.linalg.vector_norm(v, "fro"))
    rec.err("mn_1d", lambda: lib.linalg.matrix_norm(v))
    mats = [
        lib.randn(3, 5, dtype=dt),
        lib.randn(5, 2, dtype=dt),
        lib.randn(2, 6, dtype=dt),
        lib.randn(6, 4, dtype=dt),
    ]
    rec("multi_dot", lib.linalg.multi_dot(mats))
    rec("multi_dot_vec", lib.linalg.multi_dot([v[:3], mats[0], mats[1]]))
    rec.err("multi_dot_one", lambda: lib.linalg.multi_dot([A]))
    rec.err("multi_dot_shape", lambda: lib.linalg.multi_dot([A, mats[0]]))
    rec("chain_matmul", rec.warns("chain_warn", lambda: lib.chain_matmul(*mats)))
    be = lib.backends.opt_einsum
    rec("opt_einsum", [be.is_available(), be.enabled, be.strategy])
    before = be.strategy
    try:
        be.strategy = "optimal"
        rec("opt_strategy", be.strategy)
        rec("einsum_opt", lib.einsum("ij,jk,kl,lm->im", *mats))
        be.strategy = "auto"
        rec.err("opt_strategy_bad", lambda: setattr(be, "strategy", "fastest"))
    finally:
        be.strategy = before  # (process-wide state: left as found)


def p_mps_grad_fit(lib, dt, rec):
    """Fit a small MPS to a target vector by gradient descent through einsum contractions;
    gradient of a truncated-SVD compression loss; svd on wide/tall batches."""
    lib.manual_seed(19)
    target = lib.randn(2, 2, 2, 2, dtype=dt)
    target = target / target.norm()
    cores = [
        lib.nn.Parameter(0.5 * lib.randn(a, 2, b, dtype=dt))
        for a, b in [(1, 2), (2, 3), (3, 2), (2, 1)]
    ]
    opt = lib.optim.Adam(cores, lr=0.05)
    for it in range(10):
        opt.zero_grad()
        psi = lib.einsum("asb,btc,cud,dve->stuv", *cores)
        loss = 1 - lib.einsum("stuv,stuv->", psi, target) ** 2 / (psi**2).sum()
        loss.backward()
        rec(f"loss{it}", loss)
    rec("g0", cores[0].grad)
    M = lib.randn(3, 6, 4, dtype=dt, requires_grad=True)
    u, s, vh = lib.linalg.svd(M, full_matrices=False)
    comp = (u[..., :2] * s[..., None, :2]) @ vh[..., :2, :]
    loss = (comp - M).pow(2).sum()
    (g,) = lib.autograd.grad(loss, M)
    rec("trunc_grad", g)
    rec("s_batched", s)
    W = lib.randn(2, 3, 5, dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(lib.linalg.svdvals(W).sum(), W)
    rec("wide_svdvals_grad", g)
    rec.err(
        "svd_full_grad",
        lambda: lib.autograd.grad(lib.linalg.svd(W, full_matrices=True)[0].sum(), W),
    )


def p_edge_cases(lib, dt, rec):
    """The mistakes and edge cases of these programs: wrong orders, dims, pivots, reflector
    batches and vector right-hand sides; an infinite entry in an SVD; multi_dot's order."""
    lib.manual_seed(20)
    A = lib.randn(3, 3, dtype=dt)
    rec.err("cond_p3", lambda: lib.linalg.cond(A, 3))
    rec.err("mn_same", lambda: lib.linalg.matrix_norm(A, "nuc", dim=(0, -2)))
    rec.err("norm_same", lambda: lib.linalg.norm(A, dim=(1, 1)))
    LU, piv = lib.linalg.lu_factor(A)
    rec.err("lus_piv", lambda: lib.linalg.lu_solve(LU, piv[:2], A))
    rec.err("lus_rect", lambda: lib.linalg.lu_solve(A[:2], piv, A))
    rec.err("unpack_piv", lambda: lib.lu_unpack(LU, piv.long()))
    rec("unpack_more", lib.lu_unpack(LU, lib.cat([piv, piv]))[0])
    a, tau = lib.geqrf(lib.randn(2, 4, 3, dtype=dt))
    rec.err("hp_batch", lambda: lib.linalg.householder_product(a, tau[:1]))
    rec.err("orgqr_wide", lambda: lib.orgqr(a.mT, tau))
    rec.err("geqrf_1d", lambda: lib.geqrf(tau[0]))
    rec.err("lstsq_bc", lambda: lib.linalg.lstsq(a, lib.randn(4, 3, dtype=dt)))
    rec("lstsq_b1", lib.linalg.lstsq(a[:1], lib.randn(4, 2, dtype=dt)).solution)
    m1 = lib.linalg.matrix_power(A, 1)
    m1.mul_(2)
    rec("mpow1_copy", A)
    mats = [lib.full((1, 1), v, dtype=lib.float32) for v in [1e30, 1e30, 1e-30, 1e-30]]
    rec("multi_dot_order", lib.linalg.multi_dot(mats))
    B = A.clone()
    B[0, 1] = float("inf")
    rec("svdvals_inf", lib.linalg.svdvals(B))
    rec("rank_inf", lib.linalg.matrix_rank(B))


PROGRAMS = [
    "tt_svd", "mps_contract", "qr_sweep", "dmrg_lite", "tebd", "peps_boundary",
    "grads_factorizations", "cp_als", "tucker_hosvd", "tt_cross", "nmf", "randomized_svd",
    "cur_nystrom", "kron_sylvester", "matrix_functions", "cg_lanczos", "householder", "lu",
    "norms_cond", "mps_grad_fit", "edge_cases",
]  # fmt: skip

SKIP = {}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    if (name, dt) in SKIP:
        pytest.skip(SKIP[(name, dt)])
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True, first_line=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True, first_line=True))
    tol0 = 1e-9 if dt == "float64" else 1e-4

    def tol(n, a):
        # a name ending in "~" is a round-off-level residual: float32 compares it loosely
        return 1e-2 if dt == "float32" and n.endswith("~") else tol0

    # a name ending in "?" is an index chosen by argmax among float32 near-ties
    skip = [n for n, _ in want if n.endswith("?")] if dt == "float32" else []
    assert_records_match(want, got, tol, skip=skip)
