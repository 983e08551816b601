"""Session 33 (helper numla): numerical linear algebra written by hand, as in teaching notebooks
and research code, run under torch and minitorch with the same seeds and compared record by
record: power iteration, Rayleigh quotient iteration and deflation; Lanczos and Arnoldi with
reorthogonalisation; conjugate gradient and preconditioned CG with autograd through the
iterations; classical and modified Gram-Schmidt; Householder QR by hand against linalg.qr's
modes, geqrf/householder_product/ormqr; Givens rotations; Jacobi eigenvalue sweeps against eigh;
randomized SVD against svd/svdvals, svd_lowrank, pca_lowrank, lobpcg; Cholesky, cholesky_solve,
cholesky_inverse, solve_triangular and triangular_solve in every flavour; lu_factor/lu_solve/
lu_unpack/linalg.lu; lstsq with each driver; pinv, matrix_rank, matrix_norm/vector_norm/norm
orders, cond, slogdet/det/logdet, matrix_exp (with its Frechet derivative), matrix_power; kron
(Sylvester and Lyapunov equations through Kronecker sums); tensorinv/tensorsolve; Thomas,
Jacobi, Gauss-Seidel, SOR, GMRES, Newton-Schulz and Muon iterations; Procrustes/Kabsch;
gradients through eigh/svd/qr/cholesky/solve/det with float64 gradcheck and gradgradcheck,
func.jacrev/hessian/vmap; GP-style cholesky_ex jitter loops; NaN matrices; in-place updates
under autograd; and the errors users hit (singular matrices, non-square, batch-shape mismatch,
wrong dtypes, bad pivots, argument types). float64 must agree to 1e-10 of each record's scale,
float32 to 1e-4; texts exactly.

Found and fixed:
- triangular_solve checked its arguments as linalg.solve_triangular and accepted mixed dtypes;
  now torch's order and words: each rank ("torch.triangular_solve: Expected b to have at least
  2 dimensions, ..."), "Expected b and A to have the same dtype, ...", A square before any
  transpose, "Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each b
  matrix is 4 by 2", then the batch dims.
- lu_solve and lu_unpack with pivots out of 1..m (a zero, a negative, too large) read outside
  the matrix (IndexError) or wrapped silently; now torch's CPU checks ("Pivots given to lu_solve
  must all be greater or equal to 1. ...", "... smaller or equal to LU.size(-2). ...", "pivots
  passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you ..."), unchecked on a
  device as torch's CUDA kernels; lu_unpack's int32 message gained torch's "Note: ..." line.
- linalg.eig/eigvals refused every input as complex; now torch's checks come first ("Unknown
  Complex ScalarType for Long", the rank, "A must be batches of square matrices").
- linalg.vecdot of two 1-d tensors broadcast them (ones(3) with ones(1) worked) and read dim;
  torch's kernel is vdot there: its "inconsistent tensor size" error, dim unread, VdotBackward0.
- linalg.eigh/eigvalsh refused UPLO='u' / 'l'; torch reads the letter in either case.
- linalg.lstsq: rcond='a' raised a comparison TypeError and driver=3 the driver-name
  RuntimeError; now torch's parser TypeErrors. gelsd with rcond >= 1 gave rank 0; LAPACK reads
  such an rcond as its default (full rank there).
- A singular solve of an unbatched A against a batched B named "(Batch element 0)"; torch
  counts within A's own batch (no prefix for one matrix, A's index when A broadcasts).
- tensorinv of a singular matrix said "linalg.inv:" (torch: "inv:"); tensorsolve compared
  prod(A.shape[:B.ndim]) where torch compares B's size ("6 != 4"), and reshaped accordingly.
- matrix_norm(A, dim=0) raised "'int' object is not iterable"; now torch's parser error listing
  both overloads with the arguments the call gave (keywords in torch's order).
- A backward meeting several saved tensors changed in place named the first one minitorch
  saved; torch's nodes check their saved inputs in the alphabetical order of their names (mul,
  div, atan2, maximum, hypot: other before self; pow: exponent first; dot: self first), so the
  version error names another tensor (the textbook in-place MGS loop); pow, maximum, minimum,
  atan2, hypot, fmax and fmin nodes now also expose torch's _saved_self/_saved_other/
  _saved_exponent/_saved_result.
- linalg.cholesky_ex of a batch in which some matrix is not positive-definite returned L
  without a graph, so the factored matrices got no gradient (a GP jitter loop); L is now in the
  graph as torch's LinalgCholeskyExBackward0.
- A NaN in a matrix (a diverged iterate) made inv/solve raise "singular" (NumPy refuses a NaN
  pivot) and det 0 / slogdet -inf; torch's LAPACK spreads the NaN: inv/solve all NaN, det NaN,
  slogdet (0, NaN), info 0; other matrices of the batch as usual. cond in the orders computed
  through the inverse reads the resulting NaN as inf (torch's nan_to_num).
- torch.svd / Tensor.svd of a 1-d tensor gave linalg.svd's message; torch.svd's own is "linalg.svd:
  input should have at least 2 dimensions, but has 1 dimensions instead" (before the dtype's).
- Forward mode (func.jvp, jacfwd, hessian, linearize, dual tensors) through an op without a
  derivative (ldl_factor, ldl_solve, geqrf, bincount's weights, unique) raised the reverse-mode
  error; now torch's NotImplementedError "Trying to use forward AD with aten::X that does not
  support it." (or "... because it has not been implemented yet.\nPlease file an issue ...").

Known and left (documented):
- minitorch has no complex dtypes: linalg.eig/eigvals raise NotImplementedError after torch's
  argument checks, so the programs take Ritz values' traces and determinants instead.
- torch.kron of a transposed (non-contiguous) operand raises "view size is not compatible ..."
  (its product keeps the operand's layout, then .view()s it); minitorch's pointwise ops give
  other output layouts and kron works; the programs pass contiguous operands.
- torch's linalg.cond backward for p in (fro, 1, -1, inf, -inf) always raises (an in-place
  masked_fill_ on inv_ex's output); minitorch differentiates it (the op table's row relies on
  it); the programs differentiate p=2 and 'nuc' only.
- MmBackward0 (and bmm/addmm/cross) still check their saved tensors in save order: torch's
  mm checks mat2 before self, so with both operands changed in place the error names the other
  one; mm's nodes expose no _saved_* attributes (see s30_introspect).
- lstsq: gelsy's rank and solution of a rank-deficient A come from the SVD (no pivoted QR in
  NumPy; documented in linalg.lstsq); gels's rank check of an exactly rank-deficient A depends
  on LAPACK's rounding (torch's MKL finds an exact zero in R where NumPy's finds 1e-17).
- cholesky_ex's gradient for the matrices that failed (torch's formula on LAPACK's partial
  factor) can be NaN where torch's is inf, and cholesky_inverse of a NaN factor is all NaN where
  torch's potri keeps some entries; such values are not recorded.
- torch's forward-mode tangents of cholesky and eigh read the whole tangent while their
  backward symmetrises (torch's jacfwd and jacrev of cholesky disagree for a non-symmetric
  direction); minitorch's forward mode is its reverse mode transposed, so it agrees with
  torch's jvp along symmetric directions only; the programs use symmetric tangents.
- matrix_exp of float16 in torch returns garbage (-2e4 for exp(I)); minitorch's is right; the
  programs use float32/float64.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "power_iter", "lanczos", "arnoldi", "cg", "pcg", "gram_schmidt", "householder", "givens",
    "jacobi_eig", "rsvd", "cholesky", "lu", "lstsq", "pinv", "norms", "cond", "slogdet",
    "matrix_exp", "kron", "grad_decomp", "errors", "inv_ex", "sylvester", "thomas",
    "newton_schulz", "qr_algorithm", "inverse_iter", "gmres", "misc_ops", "batched",
    "gradgrad", "tri_errors", "norm_errors", "lu_pivots", "tri_solve_old", "eig_errors",
    "vecdot", "tensorsolve", "inplace_order", "solve_batch_msg", "arg_errors", "lowrank",
    "procrustes", "splitting", "frechet", "jac_func", "nan_matrices", "cholesky_ex_batch",
    "inplace_grads", "old_api", "forward_ad",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _spd(lib, dt, seed, n, shift=None):
    """A well-conditioned symmetric positive-definite matrix."""
    a = _randn(lib, dt, seed, n, n)
    return a @ a.mT / n + lib.eye(n, dtype=dt) * (1.0 if shift is None else shift)


def _fix_signs(lib, v):
    """Columns of v scaled by the sign of their entry of largest magnitude (eigen/singular vectors
    are defined up to sign; LAPACK builds may choose differently)."""
    idx = v.abs().argmax(dim=-2, keepdim=True)
    s = lib.sign(v.gather(-2, idx))
    return v * s


# --- the programs: each takes the library, a dtype and a recorder ---


def p_power_iter(lib, dt, rec):
    a = _spd(lib, dt, 1, 8)
    v = _randn(lib, dt, 2, 8)
    v = v / lib.linalg.vector_norm(v)
    lam = None
    for _ in range(60):
        w = a @ v
        v = w / lib.linalg.norm(w)
        lam = lib.dot(v, a @ v)
    rec("lam", lam)
    rec("top", lib.linalg.eigvalsh(a)[-1])
    rec("v", v * lib.sign(v[v.abs().argmax()]))
    # Rayleigh quotient iteration from the power iterate
    mu = lam.clone()
    x = v.clone()
    eye = lib.eye(8, dtype=dt)
    for _ in range(2):
        y = lib.linalg.solve(a - (mu + 1e-3) * eye, x)
        x = y / y.norm()
        mu = x @ a @ x
    rec("rqi", mu)
    # deflation: the second eigenvalue by power iteration on A - lam v v^T
    b = a - lam * lib.outer(v, v)
    u = _randn(lib, dt, 3, 8)
    for _ in range(80):
        u = b @ u
        u = u / u.norm(p=2)
    rec("second", u @ b @ u)
    rec("second_ref", lib.linalg.eigvalsh(a)[-2])
    # batched power iteration with a per-matrix norm
    ab = lib.stack([_spd(lib, dt, 4 + i, 5) for i in range(3)])
    vb = _randn(lib, dt, 9, 3, 5, 1)
    for _ in range(50):
        vb = ab @ vb
        vb = vb / lib.linalg.vector_norm(vb, dim=-2, keepdim=True)
    rq = (vb.mT @ ab @ vb).squeeze(-1).squeeze(-1)
    rec("batched", rq)
    rec("batched_ref", lib.linalg.eigvalsh(ab)[..., -1])


def p_lanczos(lib, dt, rec):
    n, m = 12, 6
    a = _spd(lib, dt, 10, n)
    q = _randn(lib, dt, 11, n)
    q = q / q.norm()
    Q = lib.zeros(n, m + 1, dtype=dt)
    Q[:, 0] = q
    alpha = lib.zeros(m, dtype=dt)
    beta = lib.zeros(m, dtype=dt)
    for j in range(m):
        w = a @ Q[:, j]
        alpha[j] = lib.dot(Q[:, j], w)
        w = w - alpha[j] * Q[:, j] - (beta[j - 1] * Q[:, j - 1] if j > 0 else 0)
        # full reorthogonalisation, twice ("twice is enough")
        for _ in range(2):
            w = w - Q[:, : j + 1] @ (Q[:, : j + 1].T @ w)
        beta[j] = lib.linalg.vector_norm(w)
        Q[:, j + 1] = w / beta[j]
    T = lib.diag(alpha) + lib.diag(beta[:-1], 1) + lib.diag(beta[:-1], -1)
    rec("T", T)
    rec("ritz", lib.linalg.eigvalsh(T))
    rec("eig", lib.linalg.eigvalsh(a))
    Qm = Q[:, :m]
    rec("orth", (Qm.T @ Qm - lib.eye(m, dtype=dt)).abs().max() < 1e-4)
    rec("proj", Qm.T @ a @ Qm)
    rec("tridiag", lib.triu(T, 2).abs().sum())
    ev, evec = lib.linalg.eigh(T)
    rec("ritz_vec", _fix_signs(lib, Qm @ evec))


def p_arnoldi(lib, dt, rec):
    n, m = 9, 5
    a = _randn(lib, dt, 12, n, n) / 3 + lib.eye(n, dtype=dt) * 2
    b = _randn(lib, dt, 13, n)
    Q = lib.zeros(n, m + 1, dtype=dt)
    H = lib.zeros(m + 1, m, dtype=dt)
    Q[:, 0] = b / lib.linalg.norm(b)
    for k in range(m):
        v = a @ Q[:, k]
        for j in range(k + 1):  # modified Gram-Schmidt
            H[j, k] = Q[:, j] @ v
            v = v - H[j, k] * Q[:, j]
        h = Q[:, : k + 1].T @ v  # one reorthogonalisation pass
        H[: k + 1, k] += h
        v -= Q[:, : k + 1] @ h
        H[k + 1, k] = v.norm()
        Q[:, k + 1] = v / H[k + 1, k]
    rec("H", H)
    rec("Q", Q)
    rec("relation", (a @ Q[:, :m] - Q @ H).abs().max() < 1e-4)
    # the Ritz values' sum and product against the Hessenberg matrix's own
    rec("ritz_trace", lib.trace(H[:m, :m]))
    rec("ritz_det", lib.linalg.det(H[:m, :m]))
    rec("trace", lib.trace(a))


def _cg(lib, a, b, iters, x0=None):
    x = lib.zeros_like(b) if x0 is None else x0
    r = b - a @ x
    p = r
    rs = r @ r
    res = []
    for _ in range(iters):
        ap = a @ p
        alpha = rs / (p @ ap)
        x = x + alpha * p
        r = r - alpha * ap
        rs_new = r @ r
        res.append(lib.sqrt(rs_new))
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, lib.stack(res)


def p_cg(lib, dt, rec):
    n = 10
    a0 = _spd(lib, dt, 20, n, shift=2.0)
    b0 = _randn(lib, dt, 21, n)
    a = a0.clone().requires_grad_(True)
    b = b0.clone().requires_grad_(True)
    x, res = _cg(lib, a, b, 6)
    rec("x", x)
    rec("res", res)
    exact = lib.linalg.solve(a0, b0)
    rec("exact", exact)
    target = _randn(lib, dt, 22, n)
    loss = ((x - target) ** 2).sum()
    loss.backward()
    rec("ga", a.grad)
    rec("gb", b.grad)
    # implicit differentiation: d/db of ||A^{-1} b - t||^2 is 2 A^{-1}(x - t)
    bb = b0.clone().requires_grad_(True)
    xs = lib.linalg.solve(a0, bb)
    ((xs - target) ** 2).sum().backward()
    rec("gb_exact", bb.grad)
    rec("gb_formula", 2 * lib.linalg.solve(a0, xs.detach() - target))
    # a batch of right-hand sides as columns
    B = _randn(lib, dt, 23, n, 3)
    X = lib.zeros_like(B)
    R = B - a0 @ X
    P = R.clone()
    rs = (R * R).sum(0)
    for _ in range(n):
        AP = a0 @ P
        alpha = rs / (P * AP).sum(0)
        X = X + alpha * P
        R = R - alpha * AP
        rs_new = (R * R).sum(0)
        P = R + (rs_new / rs) * P
        rs = rs_new
    rec("X", X)
    rec("X_ref", lib.linalg.solve(a0, B))


def p_pcg(lib, dt, rec):
    n = 10
    d = lib.linspace(1.0, 50.0, n, dtype=dt)
    a0 = _spd(lib, dt, 30, n) * 0.5 + lib.diag(d)
    b0 = _randn(lib, dt, 31, n)
    minv = 1.0 / lib.diagonal(a0)
    theta = lib.tensor(1.0, dtype=dt, requires_grad=True)
    a = a0 * theta
    x = lib.zeros(n, dtype=dt)
    r = b0 - a @ x
    z = minv * r
    p = z.clone()
    rz = lib.dot(r, z)
    norms = []
    for _ in range(5):
        ap = a @ p
        alpha = rz / lib.dot(p, ap)
        x = x + alpha * p
        r = r - alpha * ap
        z = minv * r
        rz_new = lib.dot(r, z)
        p = z + rz_new / rz * p
        rz = rz_new
        norms.append(lib.linalg.vector_norm(r))
    rec("x", x)
    rec("norms", lib.stack(norms))
    x.sum().backward()
    rec("gtheta", theta.grad)
    rec("x_ref", lib.linalg.solve(a0, b0))
    # incomplete-Cholesky-like preconditioner: the exact Cholesky factor, solves by triangle
    L = lib.linalg.cholesky(a0)
    y = lib.linalg.solve_triangular(L, b0.unsqueeze(-1), upper=False)
    xc = lib.linalg.solve_triangular(L.mT, y, upper=True)
    rec("xc", xc.squeeze(-1))
    rec("cs", lib.cholesky_solve(b0.unsqueeze(-1), L).squeeze(-1))


def _cgs(lib, a):
    m, n = a.shape
    q = lib.zeros(m, n, dtype=a.dtype)
    r = lib.zeros(n, n, dtype=a.dtype)
    for j in range(n):
        v = a[:, j]
        if j > 0:
            r[:j, j] = q[:, :j].T @ a[:, j]
            v = v - q[:, :j] @ r[:j, j]
        r[j, j] = lib.linalg.norm(v)
        q[:, j] = v / r[j, j]
    return q, r


def _mgs(lib, a, inplace=False):
    """Modified Gram-Schmidt. inplace: the textbook loop on one matrix (its in-place updates
    trip autograd's version check); otherwise the columns are kept in a list."""
    m, n = a.shape
    if inplace:
        v = a.clone()
        q = lib.empty(m, n, dtype=a.dtype)
        r = lib.zeros(n, n, dtype=a.dtype)
        for i in range(n):
            r[i, i] = v[:, i].norm()
            q[:, i] = v[:, i] / r[i, i]
            for j in range(i + 1, n):
                r[i, j] = q[:, i].dot(v[:, j])
                v[:, j] -= r[i, j] * q[:, i]
        return q, r
    v = list(a.unbind(1))
    qs, rows = [], []
    for i in range(n):
        rii = v[i].norm()
        qi = v[i] / rii
        row = [lib.zeros((), dtype=a.dtype)] * i + [rii]
        for j in range(i + 1, n):
            rij = lib.dot(qi, v[j])
            v[j] = v[j] - rij * qi
            row.append(rij)
        qs.append(qi)
        rows.append(lib.stack(row))
    return lib.stack(qs, 1), lib.stack(rows)


def p_gram_schmidt(lib, dt, rec):
    a = _randn(lib, dt, 40, 8, 5)
    for name, fn in (("cgs", _cgs), ("mgs", _mgs)):
        q, r = fn(lib, a)
        rec(name + ".q", q)
        rec(name + ".r", r)
        rec(name + ".recon", (q @ r - a).abs().max() < 1e-4)
    qr_q, qr_r = lib.linalg.qr(a)
    s = lib.sign(lib.diagonal(qr_r))
    rec("qr.q", qr_q * s)
    rec("qr.r", qr_r * s.unsqueeze(-1))
    # ill-conditioned columns: MGS keeps orthogonality better than CGS
    base = _randn(lib, dt, 41, 8, 1)
    cols = base + 1e-3 * _randn(lib, dt, 42, 8, 4)
    q1, _ = _cgs(lib, cols)
    q2, _ = _mgs(lib, cols)
    eye = lib.eye(4, dtype=dt)
    rec(
        "loss_order",
        lib.linalg.matrix_norm(q2.T @ q2 - eye)
        <= 10 * (lib.linalg.matrix_norm(q1.T @ q1 - eye) + 1e-12),
    )
    # gradient through modified Gram-Schmidt
    x = a.clone().requires_grad_(True)
    q, r = _mgs(lib, x)
    (q.sum() + r.diagonal().log().sum()).backward()
    rec("grad", x.grad)
    # the textbook in-place loop: values agree, its backward trips the version check
    x = a.clone().requires_grad_(True)
    q, r = _mgs(lib, x, inplace=True)
    rec("inplace.q", q)
    rec.err("inplace.backward", lambda: (q.sum() + r.diagonal().log().sum()).backward())


def _householder_qr(lib, a):
    m, n = a.shape
    r = a.clone()
    q = lib.eye(m, dtype=a.dtype)
    for k in range(min(m - 1, n)):
        x = r[k:, k]
        e = lib.zeros_like(x)
        e[0] = 1.0
        alpha = -lib.sign(x[0]) * lib.linalg.vector_norm(x)
        v = x - alpha * e
        v = v / v.norm()
        hk = lib.eye(m - k, dtype=a.dtype) - 2.0 * lib.outer(v, v)
        r[k:, :] = hk @ r[k:, :]
        q[:, k:] = q[:, k:] @ hk
    return q, r


def p_householder(lib, dt, rec):
    for shape in ((6, 4), (4, 4), (4, 6)):
        a = _randn(lib, dt, 50 + shape[1], *shape)
        q, r = _householder_qr(lib, a)
        tag = "x".join(map(str, shape))
        rec(tag + ".recon", (q @ r - a).abs().max() < 1e-4)
        rec(tag + ".lower", lib.tril(r, -1).abs().max() < 1e-4)
        # LAPACK's Householder makes the same choice of signs up to a sign per column
        k = min(shape)
        s = lib.sign(lib.diagonal(r)[:k])
        for mode in ("reduced", "complete", "r"):
            Q, R = lib.linalg.qr(a, mode=mode)
            rec(f"{tag}.{mode}.Qshape", str(tuple(Q.shape)))
            rec(f"{tag}.{mode}.R", R[:k] * lib.sign(lib.diagonal(R)).unsqueeze(-1)[:k])
            rec(f"{tag}.{mode}.Rhand", r[:k] * s.unsqueeze(-1))
            if mode != "r":
                qs = Q[:, :k] * lib.sign(lib.diagonal(R))[:k]
                rec(f"{tag}.{mode}.Q", qs)
                rec(f"{tag}.{mode}.Qhand", q[:, :k] * s)
        rec(tag + ".qr_old", lib.qr(a)[1].abs())
        rec(tag + ".qr_some", str(tuple(lib.qr(a, some=False)[0].shape)))
    # geqrf + householder_product reproduce Q
    a = _randn(lib, dt, 59, 5, 3)
    h, tau = lib.geqrf(a)
    rec("geqrf.h", h.abs())
    rec("tau", tau)
    q = lib.linalg.householder_product(h, tau)
    rec("orgqr", q)
    rec("orgqr_old", lib.orgqr(h, tau))
    rec("qr_match", (q - lib.linalg.qr(a).Q).abs().max() < 1e-4)
    c = _randn(lib, dt, 60, 5, 2)
    rec("ormqr", lib.ormqr(h, tau, c))
    rec("ormqr_t", lib.ormqr(h, tau, c, left=True, transpose=True))


def _givens(lib, a, b):
    r = lib.hypot(a, b)
    return a / r, -b / r


def p_givens(lib, dt, rec):
    a = _randn(lib, dt, 70, 5, 4)
    m, n = a.shape
    r = a.clone()
    q = lib.eye(m, dtype=dt)
    for j in range(n):
        for i in range(m - 1, j, -1):
            c, s = _givens(lib, r[i - 1, j], r[i, j])
            g = lib.stack([lib.stack([c, -s]), lib.stack([s, c])])
            r[[i - 1, i], :] = g @ r[[i - 1, i], :]
            q[:, [i - 1, i]] = q[:, [i - 1, i]] @ g.T
    rec("r", r)
    rec("q", q)
    rec("recon", (q @ r - a).abs().max() < 1e-4)
    rec("below", lib.tril(r, -1).abs().max() < 1e-4)
    # a rotation built with index_put and the gradient through it
    theta = lib.tensor([0.3, -0.7, 1.1], dtype=dt, requires_grad=True)
    rot = lib.eye(4, dtype=dt).repeat(3, 1, 1)
    rot = rot.index_put(
        (lib.arange(3), lib.tensor([0, 1, 2]), lib.tensor([0, 1, 2])), lib.cos(theta)
    )
    rot = rot.index_put(
        (lib.arange(3), lib.tensor([1, 2, 3]), lib.tensor([1, 2, 3])), lib.cos(theta)
    )
    rot = rot.index_put(
        (lib.arange(3), lib.tensor([0, 1, 2]), lib.tensor([1, 2, 3])), -lib.sin(theta)
    )
    rot = rot.index_put(
        (lib.arange(3), lib.tensor([1, 2, 3]), lib.tensor([0, 1, 2])), lib.sin(theta)
    )
    prod = rot[0] @ rot[1] @ rot[2]
    rec("prod", prod)
    rec("det", lib.linalg.det(prod))
    prod.trace().backward()
    rec("gtheta", theta.grad)


def p_jacobi_eig(lib, dt, rec):
    n = 6
    a0 = _randn(lib, dt, 80, n, n)
    a = (a0 + a0.T) / 2
    d = a.clone()
    v = lib.eye(n, dtype=dt)
    offs = []
    for _sweep in range(6):
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = d[p, q]
                if apq.abs() < 1e-15:
                    continue
                tau = (d[q, q] - d[p, p]) / (2 * apq)
                t = lib.sign(tau) / (tau.abs() + lib.sqrt(1 + tau * tau))
                t = lib.where(tau == 0, lib.ones_like(t), t)
                c = 1 / lib.sqrt(1 + t * t)
                s = t * c
                j = lib.eye(n, dtype=dt)
                j[p, p] = c
                j[q, q] = c
                j[p, q] = s
                j[q, p] = -s
                d = j.T @ d @ j
                v = v @ j
        offs.append((d - lib.diag(lib.diagonal(d))).norm())
    rec("converged", offs[-1] < 1e-4)
    ev, order = lib.sort(lib.diagonal(d))
    rec("ev", ev)
    w, u = lib.linalg.eigh(a)
    rec("eigh", w)
    rec("vec", _fix_signs(lib, v[:, order]))
    rec("eigh_vec", _fix_signs(lib, u))
    rec("eigh_U", lib.linalg.eigh(lib.triu(a), UPLO="U").eigenvalues)
    rec("eigvalsh_L", lib.linalg.eigvalsh(lib.tril(a), UPLO="L"))
    rec("symeig_recon", (u @ lib.diag_embed(w) @ u.mT - a).abs().max() < 1e-4)


def p_rsvd(lib, dt, rec):
    m, n, k = 30, 20, 5
    u0, _ = lib.linalg.qr(_randn(lib, dt, 90, m, k))
    v0, _ = lib.linalg.qr(_randn(lib, dt, 91, n, k))
    s0 = lib.tensor([10.0, 6.0, 3.0, 1.5, 0.7], dtype=dt)
    a = u0 @ lib.diag(s0) @ v0.T + 1e-3 * _randn(lib, dt, 92, m, n)
    omega = _randn(lib, dt, 93, n, k + 5)
    y = a @ omega
    for _ in range(2):  # power iterations with re-orthonormalisation
        y, _ = lib.linalg.qr(y)
        y, _ = lib.linalg.qr(a.T @ y)
        y = a @ y
    qm, _ = lib.linalg.qr(y)
    b = qm.T @ a
    ub, s, vh = lib.linalg.svd(b, full_matrices=False)
    u = qm @ ub
    rec("s", s[:k])
    rec("svdvals", lib.linalg.svdvals(a)[:k])
    U, S, Vh = lib.linalg.svd(a, full_matrices=False)
    rec("U", _fix_signs(lib, U[:, :k]))
    rec("u_rand", _fix_signs(lib, u[:, :k]))
    rec("shapes_full", str([tuple(t.shape) for t in lib.linalg.svd(a)]))
    rec("recon", (U @ lib.diag(S) @ Vh - a).abs().max() < 1e-4)
    ak = u[:, :k] @ lib.diag(s[:k]) @ vh[:k]
    rec("err2", lib.linalg.matrix_norm(a - ak, ord=2))
    rec("eckart_young", S[k])
    rec("svd_old", lib.svd(a)[1])
    rec("svd_old_shape", str(tuple(lib.svd(a, some=False)[2].shape)))
    # the rank by a tolerance
    rec("rank", lib.linalg.matrix_rank(a, atol=1e-2))
    rec("rank_rtol", lib.linalg.matrix_rank(a, rtol=0.2))
    rec("rank_default", lib.linalg.matrix_rank(a))


def p_cholesky(lib, dt, rec):
    a = _spd(lib, dt, 100, 6)
    L = lib.linalg.cholesky(a)
    U = lib.linalg.cholesky(a, upper=True)
    rec("L", L)
    rec("U", U)
    rec("LLt", L @ L.mT)
    b = _randn(lib, dt, 101, 6, 3)
    rec("cs_lower", lib.cholesky_solve(b, L))
    rec("cs_upper", lib.cholesky_solve(b, U, upper=True))
    rec("ci", lib.cholesky_inverse(L))
    rec("ci_upper", lib.cholesky_inverse(U, upper=True))
    rec("inv", lib.linalg.inv(a))
    # solve_triangular in all its flavours
    rec("st_lower", lib.linalg.solve_triangular(L, b, upper=False))
    rec("st_upper", lib.linalg.solve_triangular(U, b, upper=True))
    rec("st_right", lib.linalg.solve_triangular(L, b.mT, upper=False, left=False))
    rec("st_unit", lib.linalg.solve_triangular(L, b, upper=False, unitriangular=True))
    rec("st_unit_up", lib.linalg.solve_triangular(U, b, upper=True, unitriangular=True))
    rec("tts", lib.triangular_solve(b, U)[0])
    rec("tts_t", lib.triangular_solve(b, L, upper=False, transpose=True)[0])
    rec("tts_unit", lib.triangular_solve(b, L, upper=False, unitriangular=True).solution)
    # Cholesky of a covariance, sampling, log-density
    ch, info = lib.linalg.cholesky_ex(a)
    rec("info", info)
    rec("logdet", 2 * lib.log(lib.diagonal(ch)).sum())
    rec("logdet_ref", lib.logdet(a))
    rec("cholesky_old", lib.cholesky(a))
    rec("cholesky_old_upper", lib.cholesky(a, upper=True))
    # batched with broadcasting of the right-hand side
    ab = lib.stack([_spd(lib, dt, 102 + i, 4) for i in range(3)])
    Lb = lib.linalg.cholesky(ab)
    bb = _randn(lib, dt, 106, 4, 2)
    rec("batch_cs", lib.cholesky_solve(bb, Lb))
    rec("batch_st", lib.linalg.solve_triangular(Lb, bb, upper=False))
    # gradients
    x = a.clone().requires_grad_(True)
    y = b.clone().requires_grad_(True)
    Lx = lib.linalg.cholesky(x)
    out = lib.cholesky_solve(y, Lx)
    (out.sin().sum() + Lx.diagonal().log().sum()).backward()
    rec("gx", x.grad)
    rec("gy", y.grad)
    # not positive definite
    bad = a.clone()
    bad[2, 2] = -1.0
    rec("ex_info", lib.linalg.cholesky_ex(bad).info)


def p_lu(lib, dt, rec):
    a = _randn(lib, dt, 110, 5, 5)
    LU, piv = lib.linalg.lu_factor(a)
    rec("LU", LU)
    rec("piv", piv)
    rec("piv_dtype", str(piv.dtype))
    b = _randn(lib, dt, 111, 5, 2)
    rec("solve", lib.linalg.lu_solve(LU, piv, b))
    rec("solve_adj", lib.linalg.lu_solve(LU, piv, b, adjoint=True))
    rec("solve_right", lib.linalg.lu_solve(LU, piv, b.mT, left=False))
    rec("solve_ref", lib.linalg.solve(a, b))
    P, L, U = lib.linalg.lu(a)
    rec("P", P)
    rec("L", L)
    rec("U", U)
    rec("recon", (P @ L @ U - a).abs().max() < 1e-4)
    P2, L2, U2 = lib.lu_unpack(LU, piv)
    rec("unpack_same", (P2 - P).abs().max() + (L2 - L).abs().max() + (U2 - U).abs().max())
    lu_old, piv_old = lib.lu(a)
    rec("lu_old", lu_old)
    rec("lu_solve_old", lib.lu_solve(b, lu_old, piv_old))
    LU3, piv3, info = lib.linalg.lu_factor_ex(a)
    rec("info", info)
    # rectangular
    for shape in ((4, 6), (6, 4)):
        r = _randn(lib, dt, 112, *shape)
        P, L, U = lib.linalg.lu(r)
        rec(f"rect{shape}", str([tuple(t.shape) for t in (P, L, U)]))
        rec(f"rect{shape}.U", U)
    # determinant from the LU factors and the permutation parity
    sign = (-1.0) ** (piv != lib.arange(1, 6, dtype=piv.dtype)).sum()
    rec("det_lu", sign * lib.diagonal(LU).prod())
    rec("det", lib.linalg.det(a))
    # gradient through lu_factor + lu_solve
    x = a.clone().requires_grad_(True)
    LUx, pv = lib.linalg.lu_factor(x)
    lib.linalg.lu_solve(LUx, pv, b).pow(2).sum().backward()
    rec("gx", x.grad)
    x2 = a.clone().requires_grad_(True)
    P, L, U = lib.linalg.lu(x2)
    (L.sum() + U.pow(2).sum()).backward()
    rec("glu", x2.grad)


def p_lstsq(lib, dt, rec):
    a = _randn(lib, dt, 120, 8, 3)
    b = _randn(lib, dt, 121, 8, 2)
    for driver in ("gels", "gelsy", "gelsd", "gelss"):
        res = lib.linalg.lstsq(a, b, driver=driver)
        rec(driver + ".x", res.solution)
        rec(driver + ".res", res.residuals)
        rec(driver + ".rank", res.rank)
        rec(driver + ".sv", res.singular_values)
    rec("default", lib.linalg.lstsq(a, b).solution)
    rec("normal_eq", lib.linalg.solve(a.T @ a, a.T @ b))
    rec("pinv_sol", lib.linalg.pinv(a) @ b)
    # a vector right-hand side as a column
    y = _randn(lib, dt, 122, 8)
    rec("vec", lib.linalg.lstsq(a, y.unsqueeze(-1)).solution.squeeze(-1))
    # polynomial fit with vander
    t = lib.linspace(-1, 1, 10, dtype=dt)
    yv = 1 + 2 * t - 3 * t**2 + 0.01 * _randn(lib, dt, 123, 10)
    V = lib.linalg.vander(t, N=3)
    rec("vander", V)
    rec("coef", lib.linalg.lstsq(V, yv.unsqueeze(-1)).solution.squeeze(-1))
    rec("vander_old", lib.vander(t, N=3))
    rec("vander_inc", lib.vander(t, N=3, increasing=True))
    # rank deficient with gelsd
    d = lib.cat([a, a[:, :1] * 2], dim=1)
    res = lib.linalg.lstsq(d, b, driver="gelsd")
    rec("def.rank", res.rank)
    rec("def.x", res.solution)
    rec("def.sv", res.singular_values)
    res = lib.linalg.lstsq(d, b, rcond=1e-1, driver="gelsy")
    rec("def_gelsy.rank", res.rank)
    # batched and gradient (gels)
    ab = _randn(lib, dt, 124, 2, 6, 3).requires_grad_(True)
    bb = _randn(lib, dt, 125, 2, 6, 1).requires_grad_(True)
    sol = lib.linalg.lstsq(ab, bb).solution
    rec("batch", sol)
    sol.sum().backward()
    rec("gab", ab.grad)
    rec("gbb", bb.grad)
    # wide (underdetermined) system: minimum-norm solution
    w = _randn(lib, dt, 126, 3, 6)
    yw = _randn(lib, dt, 127, 3, 1)
    rec("wide_gelsd", lib.linalg.lstsq(w, yw, driver="gelsd").solution)
    rec("wide_pinv", lib.linalg.pinv(w) @ yw)


def p_pinv(lib, dt, rec):
    a = _randn(lib, dt, 130, 6, 4)
    p = lib.linalg.pinv(a)
    rec("pinv", p)
    rec("penrose1", (a @ p @ a - a).abs().max() < 1e-4)
    rec("pinverse", lib.pinverse(a))
    rec("pinv_rcond", lib.pinverse(a, rcond=0.5))
    r = _randn(lib, dt, 131, 6, 2) @ _randn(lib, dt, 132, 2, 5)
    rec("lowrank", lib.linalg.pinv(r))
    rec("atol", lib.linalg.pinv(r, atol=1.0))
    rec("rtol", lib.linalg.pinv(r, rtol=0.3))
    s = _spd(lib, dt, 133, 5)
    rec("herm", lib.linalg.pinv(s, hermitian=True))
    rec("herm_ref", lib.linalg.inv(s))
    rec("tensor_rtol", lib.linalg.pinv(r, rtol=lib.tensor(0.3, dtype=dt)))
    x = a.clone().requires_grad_(True)
    lib.linalg.pinv(x).pow(2).sum().backward()
    rec("grad", x.grad)
    rec("batch", lib.linalg.pinv(_randn(lib, dt, 134, 2, 3, 4)))
    rec("tinv", lib.linalg.tensorinv(_spd(lib, dt, 135, 6).reshape(2, 3, 2, 3), ind=2))
    rec(
        "tsolve",
        lib.linalg.tensorsolve(_spd(lib, dt, 136, 6).reshape(2, 3, 6), _randn(lib, dt, 137, 2, 3)),
    )


def p_norms(lib, dt, rec):
    a = _randn(lib, dt, 140, 4, 5)
    for o in ("fro", "nuc", float("inf"), -float("inf"), 1, -1, 2, -2):
        rec(f"mn.{o}", lib.linalg.matrix_norm(a, ord=o))
        rec(f"n.{o}", lib.linalg.norm(a, ord=o))
    v = _randn(lib, dt, 141, 7)
    v[3] = 0.0
    for o in (0, 1, 2, float("inf"), -float("inf"), 3.5, -1, 0.5):
        rec(f"vn.{o}", lib.linalg.vector_norm(v, ord=o))
        rec(f"vnm.{o}", lib.linalg.vector_norm(a, ord=o, dim=(0, 1)))
    rec("vn_dim", lib.linalg.vector_norm(a, ord=3, dim=1, keepdim=True))
    rec("norm_vec_default", lib.linalg.norm(v))
    rec("norm_mat_default", lib.linalg.norm(a))
    rec("norm_dim", lib.linalg.norm(a, dim=0))
    rec("torch_norm", lib.norm(a))
    rec("torch_norm_p", lib.norm(a, p=1, dim=1))
    rec("torch_norm_fro", lib.norm(a, p="fro"))
    rec("torch_norm_nuc", lib.norm(a, p="nuc"))
    rec("tensor_norm", a.norm(p=float("inf")))
    rec("vn_dtype", lib.linalg.vector_norm(a.to(lib.float32), dtype=lib.float64))
    rec("mn_batch", lib.linalg.matrix_norm(_randn(lib, dt, 142, 2, 3, 3), ord=2))
    rec("mn_dim", lib.linalg.matrix_norm(_randn(lib, dt, 143, 3, 2, 4), dim=(0, 2), ord=1))
    rec("mn_keep", lib.linalg.matrix_norm(a, ord="nuc", keepdim=True))
    rec("vn_int", lib.linalg.vector_norm(lib.arange(4, dtype=dt)))
    rec("vn_empty", lib.linalg.vector_norm(lib.zeros(0, dtype=dt)))
    rec(
        "vn_empty_inf",
        str(_err(lambda: lib.linalg.vector_norm(lib.zeros(0, dtype=dt), ord=float("inf")))),
    )
    # gradients of norms at a zero entry and through the spectral norm
    x = v.clone().requires_grad_(True)
    (
        lib.linalg.vector_norm(x, 1)
        + lib.linalg.vector_norm(x, float("inf"))
        + lib.linalg.vector_norm(x, 3)
    ).backward()
    rec("gv", x.grad)
    y = a.clone().requires_grad_(True)
    (
        lib.linalg.matrix_norm(y, 2)
        + lib.linalg.matrix_norm(y, "nuc")
        + lib.linalg.matrix_norm(y, 1)
    ).backward()
    rec("gm", y.grad)


def _err(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the value
        return f"{type(e).__name__}: {e}"


def p_cond(lib, dt, rec):
    a = _randn(lib, dt, 150, 5, 5)
    for p in (None, "fro", "nuc", float("inf"), -float("inf"), 1, -1, 2, -2):
        rec(f"cond.{p}", lib.linalg.cond(a, p=p))
    rec("ratio", lib.linalg.svdvals(a)[0] / lib.linalg.svdvals(a)[-1])
    r = _randn(lib, dt, 151, 4, 6)
    rec("rect", lib.linalg.cond(r))
    rec("rect_m2", lib.linalg.cond(r, -2))
    sing = lib.ones(3, 3, dtype=dt)
    rec("sing2", lib.linalg.cond(sing) > 1e6)
    rec("sing_fro", lib.linalg.cond(sing, "fro"))
    rec("sing_1", lib.linalg.cond(sing, 1))
    rec(
        "hilbert",
        lib.linalg.cond(
            1.0 / (lib.arange(5, dtype=dt)[:, None] + lib.arange(5, dtype=dt) + 1)
        ).log10(),
    )
    rec("batch", lib.linalg.cond(_randn(lib, dt, 152, 3, 4, 4), "fro"))
    rec.err("rect_fro", lambda: lib.linalg.cond(r, "fro"))
    rec.err("bad_p", lambda: lib.linalg.cond(a, 3))
    x = a.clone().requires_grad_(True)
    lib.linalg.cond(x).backward()
    rec("grad2", x.grad)
    x = a.clone().requires_grad_(True)
    lib.linalg.cond(x, "nuc").backward()
    rec("grad_nuc", x.grad)


def p_slogdet(lib, dt, rec):
    a = _randn(lib, dt, 160, 3, 5, 5)
    s, ld = lib.linalg.slogdet(a)
    rec("sign", s)
    rec("logabs", ld)
    rec("det", lib.linalg.det(a))
    rec("old", lib.slogdet(a).logabsdet)
    rec("logdet", lib.logdet(a))
    rec("det_t", lib.det(a))
    sing = lib.ones(4, 4, dtype=dt)
    rec("sing", lib.linalg.slogdet(sing).logabsdet)
    rec("sing_sign", lib.linalg.slogdet(sing).sign)
    rec("sing_det", lib.linalg.det(sing))
    rec("sing_logdet", lib.logdet(sing))
    x = a.clone().requires_grad_(True)
    lib.linalg.slogdet(x).logabsdet.sum().backward()
    rec("g", x.grad)
    rec("g_ref", lib.linalg.inv(a).mT)
    y = a.clone().requires_grad_(True)
    lib.linalg.det(y).sum().backward()
    rec("gdet", y.grad)
    z = _spd(lib, dt, 161, 4).requires_grad_(True)
    lib.logdet(z).backward()
    rec("glogdet", z.grad)
    rec("empty", lib.linalg.slogdet(lib.zeros(0, 0, dtype=dt)))
    rec("det_empty", lib.linalg.det(lib.zeros(2, 0, 0, dtype=dt)))


def p_matrix_exp(lib, dt, rec):
    a = _randn(lib, dt, 170, 4, 4) * 0.5
    e = lib.linalg.matrix_exp(a)
    rec("exp", e)
    term = lib.eye(4, dtype=dt)
    s = term.clone()
    for k in range(1, 25):
        term = term @ a / k
        s = s + term
    rec("series", s)
    rec("old", lib.matrix_exp(a))
    rec("method", a.matrix_exp())
    # rotation generator: exp of a skew matrix is orthogonal
    w = a - a.T
    r = lib.linalg.matrix_exp(w)
    rec("orth", r @ r.T)
    rec("det", lib.linalg.det(r))
    # large norm (scaling and squaring)
    rec("big", lib.linalg.matrix_exp(a * 8))
    rec("batch", lib.linalg.matrix_exp(_randn(lib, dt, 171, 2, 3, 3)))
    rec("zero", lib.linalg.matrix_exp(lib.zeros(3, 3, dtype=dt)))
    rec("scalar", lib.linalg.matrix_exp(lib.full((1, 1), 2.0, dtype=dt)))
    x = a.clone().requires_grad_(True)
    lib.linalg.matrix_exp(x).sum().backward()
    rec("grad", x.grad)
    # matrix_power
    rec("pow3", lib.linalg.matrix_power(a, 3))
    rec("pow0", lib.linalg.matrix_power(a, 0))
    rec("pow_neg", lib.linalg.matrix_power(a + 2 * lib.eye(4, dtype=dt), -2))
    rec("pow_method", a.matrix_power(5))
    y = a.clone().requires_grad_(True)
    lib.linalg.matrix_power(y, 4).sum().backward()
    rec("gpow", y.grad)


def p_kron(lib, dt, rec):
    a = _randn(lib, dt, 180, 2, 3)
    b = _randn(lib, dt, 181, 3, 2)
    c = _randn(lib, dt, 182, 3, 4)
    d = _randn(lib, dt, 183, 2, 2)
    k = lib.kron(a, b)
    rec("k", k)
    rec("shape", str(tuple(k.shape)))
    rec("mixed", (lib.kron(a, b) @ lib.kron(c, d) - lib.kron(a @ c, b @ d)).abs().max() < 1e-4)
    # the vec trick: (B^T kron A) vec(X) = vec(A X B)
    A = _randn(lib, dt, 184, 3, 3)
    X = _randn(lib, dt, 185, 3, 4)
    B = _randn(lib, dt, 186, 4, 2)
    vec = lambda m: m.T.reshape(-1)  # noqa: E731 - column-major vec
    # (torch's kron of a transposed B raises a view error: its product keeps B's layout)
    rec("vec_lhs", lib.kron(B.T.contiguous(), A) @ vec(X))
    rec("vec_rhs", vec(A @ X @ B))
    rec("kron_1d", lib.kron(lib.arange(3, dtype=dt), lib.ones(2, dtype=dt)))
    rec("kron_mixed_dim", lib.kron(a, lib.ones(2, 2, 2, dtype=dt)))
    rec("kron_int", lib.kron(lib.tensor([[1, 2], [3, 4]]), lib.eye(2, dtype=lib.int64)))
    rec("kron_promote", lib.kron(lib.tensor([[1, 2]]), a).dtype.__repr__())
    rec("kron_scalar", lib.kron(lib.tensor(2.0, dtype=dt), a))
    rec("kron_eye", lib.kron(lib.eye(2, dtype=dt), b))
    x = a.clone().requires_grad_(True)
    y = b.clone().requires_grad_(True)
    lib.kron(x, y).pow(2).sum().backward()
    rec("gx", x.grad)
    rec("gy", y.grad)
    rec("block_diag", lib.block_diag(a, b, d))
    rec("cartesian", lib.cartesian_prod(lib.arange(2, dtype=dt), lib.arange(3, dtype=dt)))


def p_grad_decomp(lib, dt, rec):
    a0 = _randn(lib, dt, 190, 4, 4)
    sym = a0 + a0.T
    # eigh: a gauge-invariant loss (eigenvalues and |v|^2)
    x = sym.clone().requires_grad_(True)
    w, v = lib.linalg.eigh(x)
    (w.pow(2).sum() + (v.pow(2) * lib.arange(4, dtype=dt)).sum()).backward()
    rec("eigh", x.grad)
    x = sym.clone().requires_grad_(True)
    lib.linalg.eigvalsh(x).exp().sum().backward()
    rec("eigvalsh", x.grad)
    # svd: singular values and the projector U U^T
    m = _randn(lib, dt, 191, 5, 3)
    x = m.clone().requires_grad_(True)
    u, s, vh = lib.linalg.svd(x, full_matrices=False)
    (
        s.sum()
        + (u[:, :2] @ u[:, :2].T).pow(2).sum() * 0
        + (u * u).sum(0)[0]
        + (vh.abs() ** 2).sum()
    ).backward()
    rec("svd", x.grad)
    x = m.clone().requires_grad_(True)
    lib.linalg.svdvals(x).prod().backward()
    rec("svdvals", x.grad)
    # qr
    x = m.clone().requires_grad_(True)
    q, r = lib.linalg.qr(x)
    (q.sin().sum() + r.cos().sum()).backward()
    rec("qr", x.grad)
    # cholesky
    spd = _spd(lib, dt, 192, 4)
    x = spd.clone().requires_grad_(True)
    lib.linalg.cholesky(x).tanh().sum().backward()
    rec("cholesky", x.grad)
    # solve
    x = a0.clone().requires_grad_(True)
    bvec = _randn(lib, dt, 193, 4, 2).requires_grad_(True)
    lib.linalg.solve(x, bvec).sum().backward()
    rec("solve_a", x.grad)
    rec("solve_b", bvec.grad)
    x = a0.clone().requires_grad_(True)
    lib.linalg.inv(x).trace().backward()
    rec("inv", x.grad)
    # gradcheck in float64 (the float32 run records the same call's verdict on a float64 copy)
    f64 = lib.float64
    for name, fn, inp in (
        ("gc_eigh", lambda t: lib.linalg.eigvalsh(t + t.mT), a0),
        ("gc_svd", lambda t: lib.linalg.svdvals(t), m),
        ("gc_qr", lambda t: lib.linalg.qr(t)[1], m),
        ("gc_chol", lambda t: lib.linalg.cholesky(t @ t.mT + lib.eye(4, dtype=f64)), a0),
        ("gc_solve", lambda t: lib.linalg.solve(t + 4 * lib.eye(4, dtype=f64), t[:, :1]), a0),
        ("gc_exp", lambda t: lib.linalg.matrix_exp(t * 0.3), a0),
        ("gc_pinv", lambda t: lib.linalg.pinv(t), m),
        ("gc_det", lambda t: lib.linalg.det(t), a0),
    ):
        t = inp.detach().to(f64).requires_grad_(True)
        rec(name, lib.autograd.gradcheck(fn, (t,)))


def p_gradgrad(lib, dt, rec):
    a0 = _randn(lib, dt, 200, 3, 3)
    f64 = lib.float64
    for name, fn in (
        ("eigvalsh", lambda t: lib.linalg.eigvalsh(t + t.mT)),
        ("svdvals", lambda t: lib.linalg.svdvals(t)),
        ("cholesky", lambda t: lib.linalg.cholesky(t @ t.mT + lib.eye(3, dtype=f64))),
        ("solve", lambda t: lib.linalg.solve(t + 4 * lib.eye(3, dtype=f64), t)),
        ("slogdet", lambda t: lib.linalg.slogdet(t + 3 * lib.eye(3, dtype=f64)).logabsdet),
        ("lu_solve", lambda t: lib.linalg.lu_solve(*lib.linalg.lu_factor(t), t.mT)),
        (
            "solve_tri",
            lambda t: lib.linalg.solve_triangular(
                lib.triu(t) + 3 * lib.eye(3, dtype=f64), t, upper=True
            ),
        ),
    ):
        t = a0.detach().to(f64).requires_grad_(True)
        rec(name, lib.autograd.gradgradcheck(fn, (t,)))
    # Hessian-vector product through an eigen-decomposition
    x = (a0 + a0.T).clone().requires_grad_(True)
    w = lib.linalg.eigvalsh(x)
    (g,) = lib.autograd.grad(w[-1], x, create_graph=True)
    (h,) = lib.autograd.grad((g * a0).sum(), x)
    rec("hvp", h)
    y = a0.clone().requires_grad_(True)
    (g,) = lib.autograd.grad(lib.linalg.det(y), y, create_graph=True)
    (h,) = lib.autograd.grad(g.pow(2).sum(), y)
    rec("det_hess", h)


def p_errors(lib, dt, rec):
    sing = lib.ones(3, 3, dtype=dt)
    rec.err("inv_sing", lambda: lib.linalg.inv(sing))
    rec.err("solve_sing", lambda: lib.linalg.solve(sing, lib.ones(3, dtype=dt)))
    rec.err("chol_npd", lambda: lib.linalg.cholesky(-lib.eye(3, dtype=dt)))
    rec.err(
        "chol_npd_batch",
        lambda: lib.linalg.cholesky(lib.stack([lib.eye(2, dtype=dt), -lib.eye(2, dtype=dt)])),
    )
    rec.err("chol_old", lambda: lib.cholesky(-lib.eye(3, dtype=dt)))
    rec.err(
        "inv_batch_sing",
        lambda: lib.linalg.inv(lib.stack([lib.eye(2, dtype=dt), lib.zeros(2, 2, dtype=dt)])),
    )
    rec.err(
        "lu_solve_sing",
        lambda: lib.linalg.lu_solve(*lib.linalg.lu_factor(sing), lib.ones(3, 1, dtype=dt)),
    )
    rec.err("lu_factor_sing", lambda: lib.linalg.lu_factor(sing))
    rec.err("inv_rect", lambda: lib.linalg.inv(lib.ones(2, 3, dtype=dt)))
    rec.err("det_rect", lambda: lib.linalg.det(lib.ones(2, 3, dtype=dt)))
    rec.err("eigh_rect", lambda: lib.linalg.eigh(lib.ones(2, 3, dtype=dt)))
    rec.err("chol_rect", lambda: lib.linalg.cholesky(lib.ones(2, 3, dtype=dt)))
    rec.err("solve_rect", lambda: lib.linalg.solve(lib.ones(2, 3, dtype=dt), lib.ones(2, dtype=dt)))
    rec.err("exp_rect", lambda: lib.linalg.matrix_exp(lib.ones(2, 3, dtype=dt)))
    rec.err("slogdet_rect", lambda: lib.linalg.slogdet(lib.ones(2, 3, dtype=dt)))
    rec.err("inv_1d", lambda: lib.linalg.inv(lib.ones(3, dtype=dt)))
    rec.err("svd_1d", lambda: lib.linalg.svd(lib.ones(3, dtype=dt)))
    rec.err("qr_1d", lambda: lib.linalg.qr(lib.ones(3, dtype=dt)))
    rec.err(
        "solve_batch",
        lambda: lib.linalg.solve(lib.ones(2, 3, 3, dtype=dt), lib.ones(4, 3, 1, dtype=dt)),
    )
    rec.err("solve_rhs", lambda: lib.linalg.solve(lib.eye(3, dtype=dt), lib.ones(4, 2, dtype=dt)))
    rec.err(
        "cs_batch",
        lambda: lib.cholesky_solve(
            lib.ones(2, 3, 1, dtype=dt), lib.eye(3, dtype=dt).expand(4, 3, 3)
        ),
    )
    rec.err(
        "lu_solve_shape",
        lambda: lib.linalg.lu_solve(
            *lib.linalg.lu_factor(lib.eye(3, dtype=dt)), lib.ones(2, 1, dtype=dt)
        ),
    )
    rec.err("matmul_shape", lambda: lib.ones(2, 3, dtype=dt) @ lib.ones(2, 3, dtype=dt))
    rec.err("inv_int", lambda: lib.linalg.inv(lib.eye(3, dtype=lib.int64)))
    rec.err("det_int", lambda: lib.linalg.det(lib.eye(3, dtype=lib.int64)))
    rec.err("eigh_int", lambda: lib.linalg.eigh(lib.eye(3, dtype=lib.int64)))
    rec.err("svd_int", lambda: lib.linalg.svd(lib.eye(3, dtype=lib.int64)))
    rec.err("qr_int", lambda: lib.linalg.qr(lib.eye(3, dtype=lib.int64)))
    rec.err("chol_int", lambda: lib.linalg.cholesky(lib.eye(3, dtype=lib.int64)))
    rec.err("exp_int", lambda: lib.linalg.matrix_exp(lib.eye(3, dtype=lib.int64)))
    rec.err(
        "solve_mixed",
        lambda: lib.linalg.solve(lib.eye(3, dtype=lib.float64), lib.ones(3, dtype=lib.float32)),
    )
    rec.err(
        "lstsq_mixed",
        lambda: lib.linalg.lstsq(lib.eye(3, dtype=lib.float64), lib.ones(3, 1, dtype=lib.float32)),
    )
    rec.err(
        "lstsq_driver",
        lambda: lib.linalg.lstsq(lib.eye(3, dtype=dt), lib.ones(3, 1, dtype=dt), driver="svd"),
    )
    rec.err("lstsq_rows", lambda: lib.linalg.lstsq(lib.eye(3, dtype=dt), lib.ones(4, 1, dtype=dt)))
    rec.err("qr_mode", lambda: lib.linalg.qr(lib.eye(3, dtype=dt), mode="full"))
    rec.err("eigh_uplo", lambda: lib.linalg.eigh(lib.eye(3, dtype=dt), UPLO="X"))
    rec.err("kron_int_float", lambda: lib.kron(lib.ones(2, dtype=lib.int64), lib.ones(2)).dtype)
    rec.err("matrix_power_rect", lambda: lib.linalg.matrix_power(lib.ones(2, 3, dtype=dt), 2))
    rec.err("matrix_power_sing", lambda: lib.linalg.matrix_power(sing, -1))
    rec.err("ex_check", lambda: lib.linalg.inv_ex(sing, check_errors=True))
    rec.err(
        "cholesky_ex_check",
        lambda: lib.linalg.cholesky_ex(-lib.eye(2, dtype=dt), check_errors=True),
    )
    rec.err(
        "solve_ex_check",
        lambda: lib.linalg.solve_ex(sing, lib.ones(3, dtype=dt), check_errors=True),
    )
    rec.err("pinv_1d", lambda: lib.linalg.pinv(lib.ones(3, dtype=dt)))
    rec.err("eigvals_rect", lambda: lib.linalg.eigvals(lib.ones(2, 3, dtype=dt)))
    rec.err("matrix_rank_1d", lambda: lib.linalg.matrix_rank(lib.ones(3, dtype=dt)))
    rec.err("cond_sing", lambda: lib.linalg.cond(sing, 1))
    rec.err(
        "lu_unpack_int", lambda: lib.lu_unpack(lib.eye(3, dtype=dt), lib.ones(3, dtype=lib.int64))
    )
    rec.err(
        "lu_solve_piv",
        lambda: lib.linalg.lu_solve(
            lib.eye(3, dtype=dt), lib.ones(3, dtype=lib.int64) * 0, lib.ones(3, 1, dtype=dt)
        ),
    )


def p_tri_errors(lib, dt, rec):
    a = lib.eye(3, dtype=dt)
    b = lib.ones(3, 2, dtype=dt)
    rec.err("no_upper", lambda: lib.linalg.solve_triangular(a, b))
    rec.err("1d_b", lambda: lib.linalg.solve_triangular(a, lib.ones(3, dtype=dt), upper=True))
    rec.err("rect_a", lambda: lib.linalg.solve_triangular(lib.ones(3, 2, dtype=dt), b, upper=True))
    rec.err(
        "mismatch", lambda: lib.linalg.solve_triangular(a, lib.ones(4, 2, dtype=dt), upper=True)
    )
    rec.err("right_mismatch", lambda: lib.linalg.solve_triangular(a, b, upper=True, left=False))
    rec.err("dtype", lambda: lib.linalg.solve_triangular(a, b.int(), upper=True))
    rec.err("int_both", lambda: lib.linalg.solve_triangular(a.long(), b.long(), upper=True))
    rec.err("tts_shape", lambda: lib.triangular_solve(lib.ones(4, 2, dtype=dt), a))
    rec.err("cs_shape", lambda: lib.cholesky_solve(lib.ones(4, 2, dtype=dt), a))
    rec.err("ci_rect", lambda: lib.cholesky_inverse(lib.ones(3, 2, dtype=dt)))
    rec.err(
        "cs_dtype", lambda: lib.cholesky_solve(b.float() if dt == lib.float64 else b.double(), a)
    )
    rec(
        "sing_tri",
        lib.linalg.solve_triangular(
            lib.zeros(2, 2, dtype=dt) + lib.triu(lib.ones(2, 2, dtype=dt)) - lib.eye(2, dtype=dt),
            lib.ones(2, 1, dtype=dt),
            upper=True,
        ),
    )
    rec(
        "batch_bcast",
        lib.linalg.solve_triangular(
            lib.triu(_randn(lib, dt, 210, 2, 1, 3, 3)) + 3 * lib.eye(3, dtype=dt),
            _randn(lib, dt, 211, 4, 3, 2),
            upper=True,
        ),
    )


def p_norm_errors(lib, dt, rec):
    a = lib.ones(3, 4, dtype=dt)
    rec.err("mn_ord", lambda: lib.linalg.matrix_norm(a, ord=3))
    rec.err("mn_1d", lambda: lib.linalg.matrix_norm(lib.ones(3, dtype=dt)))
    rec.err("mn_dim", lambda: lib.linalg.matrix_norm(a, dim=(0, 0)))
    rec.err("mn_int", lambda: lib.linalg.matrix_norm(a.long()))
    rec.err("vn_int", lambda: lib.linalg.vector_norm(a.long()))
    rec.err("vn_dtype", lambda: lib.linalg.vector_norm(a, dtype=lib.int64))
    rec.err("vn_dtype_down", lambda: lib.linalg.vector_norm(a.double(), dtype=lib.float32))
    rec.err("norm_ord_str_vec", lambda: lib.linalg.norm(lib.ones(3, dtype=dt), ord="fro"))
    rec.err("norm_ord_3d", lambda: lib.linalg.norm(lib.ones(2, 2, 2, dtype=dt), ord=2))
    rec.err("norm_dim3", lambda: lib.linalg.norm(a, dim=(0, 1, 1)))
    rec.err("vn_dim_range", lambda: lib.linalg.vector_norm(a, dim=2))
    rec.err("mn_nuc_empty", lambda: lib.linalg.matrix_norm(lib.ones(0, 3, dtype=dt), ord="nuc"))
    rec.err(
        "mn_inf_empty", lambda: lib.linalg.matrix_norm(lib.ones(0, 3, dtype=dt), ord=float("inf"))
    )
    rec.err("mn_fro_empty", lambda: lib.linalg.matrix_norm(lib.ones(0, 3, dtype=dt)).shape)
    rec.err("cond_1d", lambda: lib.linalg.cond(lib.ones(3, dtype=dt)))
    rec.err("cond_ord", lambda: lib.linalg.cond(a, "abc"))
    rec.err("torch_norm_str", lambda: lib.norm(a, p="abc"))
    rec.err("kron_none", lambda: lib.kron(a, None))


def p_inv_ex(lib, dt, rec):
    a = _randn(lib, dt, 220, 3, 4, 4)
    a[1] = 0.0
    inv, info = lib.linalg.inv_ex(a)
    rec("info", info)
    rec("inv0", inv[0])
    LU, piv, info = lib.linalg.lu_factor_ex(a)
    rec("lu_info", info)
    rec("lu_piv", piv)
    L, info = lib.linalg.cholesky_ex(a @ a.mT)
    rec("ch_info", info)
    res, info = lib.linalg.solve_ex(a[0], _randn(lib, dt, 221, 4))
    rec("solve_ex", res)
    rec("solve_info", info)
    rec("solve_ex_left", lib.linalg.solve_ex(a[0], _randn(lib, dt, 222, 2, 4), left=False)[0])
    rec("solve_left", lib.linalg.solve(a[0], _randn(lib, dt, 222, 2, 4), left=False))
    rec("ldl", lib.linalg.ldl_factor(_spd(lib, dt, 223, 4))[0])
    LD, piv = lib.linalg.ldl_factor(_spd(lib, dt, 223, 4))
    rec("ldl_solve", lib.linalg.ldl_solve(LD, piv, _randn(lib, dt, 224, 4, 1)))


def p_sylvester(lib, dt, rec):
    # solve A X + X B = C through the Kronecker sum
    n, m = 3, 4
    A = _randn(lib, dt, 230, n, n) + 3 * lib.eye(n, dtype=dt)
    B = _randn(lib, dt, 231, m, m) + 3 * lib.eye(m, dtype=dt)
    C = _randn(lib, dt, 232, n, m)
    K = lib.kron(lib.eye(m, dtype=dt), A) + lib.kron(B.T.contiguous(), lib.eye(n, dtype=dt))
    x = lib.linalg.solve(K, C.T.reshape(-1))
    X = x.reshape(m, n).T
    rec("X", X)
    rec("residual", (A @ X + X @ B - C).abs().max() < 1e-4)
    # continuous Lyapunov A P + P A^T = -Q for a stable A
    S = -_spd(lib, dt, 233, n)
    Q = lib.eye(n, dtype=dt)
    K = lib.kron(lib.eye(n, dtype=dt), S) + lib.kron(S, lib.eye(n, dtype=dt))
    P = lib.linalg.solve(K, -Q.reshape(-1)).reshape(n, n)
    rec("P", P)
    rec("P_sym", (P - P.T).abs().max() < 1e-4)
    rec("P_pd", lib.linalg.eigvalsh(P))
    # Stein / discrete Lyapunov by the series
    Ad = _randn(lib, dt, 234, n, n) * 0.2
    Pd = lib.zeros(n, n, dtype=dt)
    term = Q.clone()
    for _ in range(60):
        Pd = Pd + term
        term = Ad @ term @ Ad.T
    Kd = lib.eye(n * n, dtype=dt) - lib.kron(Ad, Ad)
    rec("Pd", Pd)
    rec("Pd_kron", lib.linalg.solve(Kd, Q.reshape(-1)).reshape(n, n))


def p_thomas(lib, dt, rec):
    n = 8
    lower = _randn(lib, dt, 240, n - 1) * 0.3
    upper = _randn(lib, dt, 241, n - 1) * 0.3
    diag = 2.0 + _randn(lib, dt, 242, n).abs()
    d = _randn(lib, dt, 243, n)
    c = upper.clone()
    dd = d.clone()
    b = diag.clone()
    cp = lib.zeros(n - 1, dtype=dt)
    dp = lib.zeros(n, dtype=dt)
    cp[0] = c[0] / b[0]
    dp[0] = dd[0] / b[0]
    for i in range(1, n):
        m = b[i] - lower[i - 1] * (cp[i - 1] if i - 1 < n - 1 else 0)
        if i < n - 1:
            cp[i] = c[i] / m
        dp[i] = (dd[i] - lower[i - 1] * dp[i - 1]) / m
    x = lib.zeros(n, dtype=dt)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    T = lib.diag(diag) + lib.diag(upper, 1) + lib.diag(lower, -1)
    rec("x", x)
    rec("ref", lib.linalg.solve(T, d))
    rec("diag_embed", lib.diag_embed(upper, offset=1)[:3])
    # 1-d Poisson matrix: eigenvalues known in closed form
    k = 10
    L = (
        2 * lib.eye(k, dtype=dt)
        - lib.diag(lib.ones(k - 1, dtype=dt), 1)
        - lib.diag(lib.ones(k - 1, dtype=dt), -1)
    )
    j = lib.arange(1, k + 1, dtype=dt)
    rec("poisson", lib.linalg.eigvalsh(L))
    rec("poisson_exact", lib.sort(2 - 2 * lib.cos(j * lib.pi / (k + 1))).values)


def p_newton_schulz(lib, dt, rec):
    a = _spd(lib, dt, 250, 5)
    # Newton-Schulz inverse
    x = a.T / (lib.linalg.matrix_norm(a, 1) * lib.linalg.matrix_norm(a, float("inf")))
    eye = lib.eye(5, dtype=dt)
    for _ in range(30):
        x = x @ (2 * eye - a @ x)
    rec("inv", x)
    rec("inv_ref", lib.linalg.inv(a))
    # Denman-Beavers / Newton-Schulz square root
    nrm = lib.linalg.matrix_norm(a)
    y = a / nrm
    z = eye.clone()
    for _ in range(25):
        t = 0.5 * (3 * eye - z @ y)
        y, z = y @ t, t @ z
    sqrt_ns = y * lib.sqrt(nrm)
    rec("sqrt", sqrt_ns)
    w, v = lib.linalg.eigh(a)
    rec("sqrt_eigh", v @ lib.diag(w.sqrt()) @ v.T)
    # polar decomposition by Newton iteration vs the SVD
    m = _randn(lib, dt, 251, 4, 4)
    u = m.clone()
    for _ in range(20):
        u = 0.5 * (u + lib.linalg.inv(u).mT)
    U, S, Vh = lib.linalg.svd(m)
    rec("polar", u)
    rec("polar_svd", U @ Vh)
    # the orthogonalisation used by Muon (quintic Newton-Schulz, a fixed number of steps)
    g = _randn(lib, dt, 252, 4, 6)
    xg = g / (g.norm() + 1e-7)
    ca, cb, cc = 3.4445, -4.7750, 2.0315
    for _ in range(5):
        A = xg @ xg.T
        B = cb * A + cc * A @ A
        xg = ca * xg + B @ xg
    rec("muon", xg)


def p_qr_algorithm(lib, dt, rec):
    a0 = _randn(lib, dt, 260, 5, 5)
    a = (a0 + a0.T) / 2
    t = a.clone()
    n = 5
    for _ in range(80):
        mu = t[-1, -1]
        q, r = lib.linalg.qr(t - mu * lib.eye(n, dtype=dt))
        t = r @ q + mu * lib.eye(n, dtype=dt)
    rec("diag", lib.sort(lib.diagonal(t)).values)
    rec("eig", lib.linalg.eigvalsh(a))
    # Hessenberg reduction by Householder, then unshifted QR
    h = a0.clone()
    for k in range(n - 2):
        x = h[k + 1 :, k]
        v = x.clone()
        v[0] = v[0] + lib.sign(x[0]) * x.norm()
        v = v / v.norm()
        h[k + 1 :, :] -= 2 * lib.outer(v, v @ h[k + 1 :, :])
        h[:, k + 1 :] -= 2 * lib.outer(h[:, k + 1 :] @ v, v)
    rec("hess", lib.tril(h, -2).abs().max() < 1e-4)
    rec("hess_trace", lib.trace(h))
    rec("hess_det", lib.linalg.det(h))
    rec("orig_det", lib.linalg.det(a0))


def p_inverse_iter(lib, dt, rec):
    a = _spd(lib, dt, 270, 6)
    w = lib.linalg.eigvalsh(a)
    sigma = w[2] + 0.05
    x = _randn(lib, dt, 271, 6, 1)
    LU, piv = lib.linalg.lu_factor(a - sigma * lib.eye(6, dtype=dt))
    for _ in range(15):
        x = lib.linalg.lu_solve(LU, piv, x)
        x = x / lib.linalg.vector_norm(x)
    rec("lam", (x.mT @ a @ x).squeeze())
    rec("ref", w[2])
    rec("vec", _fix_signs(lib, x))
    rec("ref_vec", _fix_signs(lib, lib.linalg.eigh(a).eigenvectors[:, 2:3]))
    # smallest singular value by inverse iteration on A^T A, using Cholesky
    m = _randn(lib, dt, 272, 7, 4)
    L = lib.linalg.cholesky(m.T @ m)
    y = _randn(lib, dt, 273, 4, 1)
    for _ in range(40):
        y = lib.cholesky_solve(y, L)
        y = y / y.norm()
    rec("smin", (m @ y).norm())
    rec("smin_ref", lib.linalg.svdvals(m)[-1])


def p_gmres(lib, dt, rec):
    n, m = 8, 8
    a = _randn(lib, dt, 280, n, n) * 0.3 + 2 * lib.eye(n, dtype=dt)
    b = _randn(lib, dt, 281, n)
    beta = lib.linalg.vector_norm(b)
    Q = [b / beta]
    H = lib.zeros(m + 1, m, dtype=dt)
    res = []
    for k in range(m):
        v = a @ Q[k]
        for j in range(k + 1):
            H[j, k] = lib.dot(Q[j], v)
            v = v - H[j, k] * Q[j]
        H[k + 1, k] = lib.linalg.vector_norm(v)
        Q.append(v / H[k + 1, k])
        e1 = lib.zeros(k + 2, dtype=dt)
        e1[0] = beta
        y = lib.linalg.lstsq(H[: k + 2, : k + 1], e1.unsqueeze(-1)).solution
        res.append(lib.linalg.vector_norm(H[: k + 2, : k + 1] @ y - e1.unsqueeze(-1)))
    x = lib.stack(Q[:m], dim=1) @ y.squeeze(-1)
    rec("x", x)
    rec("ref", lib.linalg.solve(a, b))
    rec("res", lib.stack(res)[:4])
    rec("monotone", bool((lib.diff(lib.stack(res)) <= 1e-6).all()))


def p_misc_ops(lib, dt, rec):
    a = _randn(lib, dt, 290, 3, 4)
    b = _randn(lib, dt, 291, 4, 5)
    c = _randn(lib, dt, 292, 5, 2)
    rec("multi_dot", lib.linalg.multi_dot([a, b, c]))
    rec("multi_dot_vec", lib.linalg.multi_dot([a[0], b, c[:, 0]]))
    rec("chain", lib.chain_matmul(a, b, c))
    rec("vecdot", lib.linalg.vecdot(a, a.flip(0), dim=-1))
    rec("cross", lib.linalg.cross(a[:, :3], b[:3, :3]))
    rec("cross_old", lib.cross(a[:, :3], b[:3, :3], dim=1))
    rec("diagonal", lib.linalg.diagonal(a, offset=1))
    rec("outer", lib.outer(a[0], b[0]))
    rec("ger", lib.ger(a[0], b[0]))
    rec("addmm", lib.addmm(c[:3], a, b[:, :2], beta=0.5, alpha=2))
    rec("baddbmm", lib.baddbmm(lib.zeros(2, 3, 5, dtype=dt), a.expand(2, 3, 4), b.expand(2, 4, 5)))
    rec("addr", lib.addr(lib.eye(3, 4, dtype=dt), a[:, 0], b[:, 0]))
    rec("tensordot", lib.tensordot(a, b, dims=1))
    rec("tensordot2", lib.tensordot(a, a, dims=([0, 1], [0, 1])))
    rec("einsum_trace", lib.einsum("ii->", b[:, :4]))
    rec("trace", lib.trace(b[:, :4]))
    rec(
        "householder_reflect",
        lib.eye(4, dtype=dt) - 2 * lib.outer(b[:, 0], b[:, 0]) / (b[:, 0] @ b[:, 0]),
    )
    rec(
        "solve_vec_batch",
        lib.linalg.solve(_spd(lib, dt, 293, 3).expand(2, 3, 3), _randn(lib, dt, 294, 2, 3)),
    )
    rec("matrix_rank_herm", lib.linalg.matrix_rank(_spd(lib, dt, 295, 4), hermitian=True))
    rec("inv_empty", str(lib.linalg.inv(lib.zeros(0, 0, dtype=dt)).shape))
    rec("inv_out", _inv_out(lib, dt))


def _inv_out(lib, dt):
    out = lib.empty(3, 3, dtype=dt)
    lib.linalg.inv(_spd(lib, dt, 296, 3), out=out)
    return out


def p_batched(lib, dt, rec):
    a = lib.stack([_spd(lib, dt, 300 + i, 4) for i in range(6)]).reshape(2, 3, 4, 4)
    b = _randn(lib, dt, 310, 3, 4, 2)
    rec("solve", lib.linalg.solve(a, b))
    rec("inv", lib.linalg.inv(a))
    rec("det", lib.linalg.det(a))
    rec("eigvalsh", lib.linalg.eigvalsh(a))
    rec("chol", lib.linalg.cholesky(a))
    rec("svdvals", lib.linalg.svdvals(a))
    q, r = lib.linalg.qr(a)
    rec("r_diag_abs", lib.diagonal(r, dim1=-2, dim2=-1).abs())
    rec("mn", lib.linalg.matrix_norm(a, ord=-2))
    rec("exp", lib.linalg.matrix_exp(a * 0.1))
    rec("bmm", lib.bmm(a[0], a[1]))
    rec("matmul_bcast", a @ b)
    rec("noncontig", lib.linalg.inv(a.transpose(0, 1)))
    rec("noncontig_mT", lib.linalg.solve(a.mT, b))
    rec("expand", lib.linalg.det(a[0, 0].expand(5, 4, 4)))
    rec("empty_batch", str(lib.linalg.inv(a[:0]).shape))
    rec("empty_solve", str(lib.linalg.solve(a[:, :0], b[:0]).shape))
    x = a.clone().requires_grad_(True)
    lib.linalg.solve(x, b).sum().backward()
    rec("grad_bcast", x.grad)
    y = b.clone().requires_grad_(True)
    lib.linalg.solve(a, y).sum().backward()
    rec("grad_b_reduced", y.grad)


def p_lu_pivots(lib, dt, rec):
    eye = lib.eye(3, dtype=dt)
    b = lib.ones(3, 2, dtype=dt)
    i32 = lib.int32
    for name, piv in (
        ("zero", [0, 2, 3]),
        ("big", [4, 2, 3]),
        ("both", [4, 0, 3]),
        ("neg", [-1, 2, 3]),
        ("ok", [3, 3, 3]),
    ):
        p = lib.tensor(piv, dtype=i32)
        rec.err("solve." + name, lambda p=p: lib.linalg.lu_solve(eye, p, b))
        rec.err("unpack." + name, lambda p=p: lib.lu_unpack(eye, p))
        rec.err("unpack_p." + name, lambda p=p: lib.lu_unpack(eye, p, unpack_data=False))
        rec.err("old." + name, lambda p=p: lib.lu_solve(b, eye, p))
    rec(
        "unpack_no_piv",
        lib.lu_unpack(eye * 2, lib.tensor([0, 9, 9], dtype=i32), unpack_pivots=False)[2],
    )
    rec.err(
        "wide", lambda: lib.lu_unpack(lib.eye(3, 4, dtype=dt), lib.tensor([4, 4, 4], dtype=i32))
    )
    rec("tall", lib.lu_unpack(lib.eye(4, 3, dtype=dt), lib.tensor([4, 4, 4], dtype=i32))[0])
    batch = lib.tensor([[1, 2, 3], [1, 2, 5]], dtype=i32)
    rec.err("batch", lambda: lib.linalg.lu_solve(eye.expand(2, 3, 3), batch, b))
    rec.err("batch_unpack", lambda: lib.lu_unpack(eye.expand(2, 3, 3), batch))
    rec.err("int64", lambda: lib.lu_unpack(eye, lib.ones(3, dtype=lib.int64)))
    rec.err("float", lambda: lib.lu_unpack(eye, lib.ones(3, dtype=dt)))
    rec.err("lu_solve_int64", lambda: lib.linalg.lu_solve(eye, lib.ones(3, dtype=lib.int64), b))
    # a permutation recovered from real pivots round-trips
    a = _randn(lib, dt, 320, 4, 4)
    LU, piv = lib.linalg.lu_factor(a)
    P, L, U = lib.lu_unpack(LU, piv)
    rec("perm", P)
    rec("perm_vec", P.argmax(0))
    rec("recon", (P @ L @ U - a).abs().max() < 1e-4)


def p_tri_solve_old(lib, dt, rec):
    other = lib.float32 if dt == lib.float64 else lib.float64
    a = lib.triu(_randn(lib, dt, 330, 3, 3)) + 2 * lib.eye(3, dtype=dt)
    b = _randn(lib, dt, 331, 3, 2)
    rec("upper", lib.triangular_solve(b, a).solution)
    rec("lower_t", lib.triangular_solve(b, a.mT, upper=False, transpose=True).solution)
    rec("clone", lib.triangular_solve(b, a).cloned_coefficient)
    rec.err("b_1d", lambda: lib.triangular_solve(b[:, 0], a))
    rec.err("a_1d", lambda: lib.triangular_solve(b, a[0]))
    rec.err("rect", lambda: lib.triangular_solve(b, a[:, :2]))
    rec.err("rect_t", lambda: lib.triangular_solve(b, a[:2], transpose=True))
    rec.err("rows", lambda: lib.triangular_solve(lib.ones(4, 2, dtype=dt), a))
    rec.err("dtype", lambda: lib.triangular_solve(b.to(other), a))
    rec.err("dtype_first", lambda: lib.triangular_solve(lib.ones(4, 2, dtype=other), a))
    rec.err("int", lambda: lib.triangular_solve(b.long(), a.long()))
    rec.err("batch", lambda: lib.triangular_solve(lib.ones(2, 3, 2, dtype=dt), a.expand(4, 3, 3)))
    rec("bcast", lib.triangular_solve(lib.ones(2, 1, 3, 2, dtype=dt), a.expand(4, 3, 3))[0])
    rec(
        "empty",
        str(lib.triangular_solve(lib.ones(0, 2, dtype=dt), lib.ones(0, 0, dtype=dt))[0].shape),
    )
    x = b.clone().requires_grad_(True)
    y = a.clone().requires_grad_(True)
    sol, cl = lib.triangular_solve(x, y, upper=True)
    (sol.sum() + cl.sum()).backward()
    rec("gx", x.grad)
    rec("gy", y.grad)
    rec("node", type(sol.grad_fn).__name__)


def p_eig_errors(lib, dt, rec):
    for fn in ("eigvals", "eig"):
        f = getattr(lib.linalg, fn)
        rec.err(fn + ".1d", lambda f=f: f(lib.ones(3, dtype=dt)))
        rec.err(fn + ".rect", lambda f=f: f(lib.ones(2, 3, dtype=dt)))
        rec.err(fn + ".long", lambda f=f: f(lib.ones(2, 3, dtype=lib.int64)))
        rec.err(fn + ".long_1d", lambda f=f: f(lib.ones(3, dtype=lib.int64)))
        rec.err(fn + ".bool", lambda f=f: f(lib.ones(3, 3, dtype=lib.bool)))
        rec.err(fn + ".list", lambda f=f: f([[1.0]]))
    # the symmetric solvers take UPLO in either case
    a = lib.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=dt)
    for u in ("U", "u", "L", "l"):
        rec("eigvalsh." + u, lib.linalg.eigvalsh(a, UPLO=u))
        rec("eigh." + u, lib.linalg.eigh(a, UPLO=u).eigenvalues)
    rec.err("uplo_uu", lambda: lib.linalg.eigh(a, UPLO="uu"))
    rec.err("uplo_empty", lambda: lib.linalg.eigvalsh(a, UPLO=""))
    rec.err("uplo_int", lambda: lib.linalg.eigh(a, UPLO=1))


def p_vecdot(lib, dt, rec):
    x = _randn(lib, dt, 340, 5)
    y = _randn(lib, dt, 341, 5)
    rec("1d", lib.linalg.vecdot(x, y))
    rec("1d_dim_ignored", lib.linalg.vecdot(x, y, dim=3))
    rec("1d_dim0", lib.linalg.vecdot(x, y, dim=0))
    m = _randn(lib, dt, 342, 3, 5)
    rec("bcast", lib.linalg.vecdot(m, y))
    rec("dim0", lib.linalg.vecdot(m, m, dim=0))
    rec.err("mismatch", lambda: lib.linalg.vecdot(x, y[:4]))
    rec.err("one", lambda: lib.linalg.vecdot(x, y[:1]))
    rec.err("one_rev", lambda: lib.linalg.vecdot(y[:1], x))
    rec.err("2d_mismatch", lambda: lib.linalg.vecdot(m, m[:, :4]))
    rec.err("dtype", lambda: lib.linalg.vecdot(x, y.long()))
    rec.err("int", lambda: lib.linalg.vecdot(x.long(), y.long()))
    out = lib.empty(3, dtype=dt)
    rec.err("out_resize", lambda: lib.linalg.vecdot(x, y, out=out))
    rec("out", out)
    a = x.clone().requires_grad_(True)
    r = lib.linalg.vecdot(a, y)
    rec("node", type(r.grad_fn).__name__)
    r.backward()
    rec("grad", a.grad)
    b = m.clone().requires_grad_(True)
    r = lib.linalg.vecdot(b, y)
    rec("node2", type(r.grad_fn).__name__)
    # cosine similarity by hand
    cos = lib.linalg.vecdot(m, y) / (lib.linalg.vector_norm(m, dim=-1) * y.norm())
    rec("cos", cos)
    rec("cos_ref", lib.nn.functional.cosine_similarity(m, y.expand(3, 5), dim=-1))


def p_tensorsolve(lib, dt, rec):
    a = _spd(lib, dt, 350, 6).reshape(2, 3, 6)
    b = _randn(lib, dt, 351, 2, 3)
    x = lib.linalg.tensorsolve(a, b)
    rec("x", x)
    rec("check", lib.tensordot(a, x, dims=x.ndim))
    a4 = _spd(lib, dt, 352, 6).reshape(2, 3, 2, 3)
    rec("dims", lib.linalg.tensorsolve(a4, b, dims=(0, 1)))
    rec("dims0", lib.linalg.tensorsolve(a4.permute(2, 3, 0, 1).reshape(2, 3, 6), b.mT, dims=None))
    inv = lib.linalg.tensorinv(a4, ind=2)
    rec("inv", inv)
    rec("inv_check", lib.tensordot(a4, inv, dims=2))
    rec("inv_ind1", lib.linalg.tensorinv(_spd(lib, dt, 353, 6).reshape(6, 2, 3), ind=1))
    rec.err("solve_shape", lambda: lib.linalg.tensorsolve(a, lib.ones(2, 2, dtype=dt)))
    rec.err("solve_dims", lambda: lib.linalg.tensorsolve(a, b, dims=(0,)))
    rec.err(
        "solve_ok_reshape",
        lambda: (
            lib.linalg.tensorsolve(_spd(lib, dt, 354, 6).reshape(6, 6), lib.ones(6, dtype=dt)).shape
        ),
    )
    rec.err("solve_sing", lambda: lib.linalg.tensorsolve(lib.ones(2, 3, 6, dtype=dt), b))
    rec.err("inv_sing", lambda: lib.linalg.tensorinv(lib.ones(2, 3, 6, dtype=dt), ind=2))
    rec.err("inv_shape", lambda: lib.linalg.tensorinv(lib.ones(2, 3, 2, 4, dtype=dt), ind=2))
    rec.err("inv_ind0", lambda: lib.linalg.tensorinv(a4, ind=0))
    y = a4.clone().requires_grad_(True)
    lib.linalg.tensorinv(y, ind=2).sum().backward()
    rec("ginv", y.grad)


def p_inplace_order(lib, dt, rec):
    """A saved input changed in place: backward names the one torch's node checks first."""
    x = _randn(lib, dt, 360, 4).abs() + 1
    y = _randn(lib, dt, 361, 4).abs() + 1
    ops = {
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "pow": lambda a, b: a**b,
        "atan2": lib.atan2,
        "maximum": lib.maximum,
        "minimum": lib.minimum,
        "hypot": lib.hypot,
        "fmax": lib.fmax,
        "fmin": lib.fmin,
        "dot": lib.dot,
        "mul_view": lambda a, b: a[0] * b,
    }
    for name, fn in ops.items():
        xs = x.clone().requires_grad_(True)
        ys = y.clone().requires_grad_(True)
        a, b = xs * 1, ys * 2
        out = fn(a, b)
        a.add_(1)
        b.mul_(2)
        b.mul_(2)
        rec.err(name, lambda out=out: out.sum().backward())
        # only one of them changed: that one is named, whichever it is
        a, b = xs * 1, ys * 2
        out = fn(a, b)
        a.add_(1)
        rec.err(name + ".a", lambda out=out: out.sum().backward())
    # the textbook Householder update, in place on a matrix autograd saved
    a = _randn(lib, dt, 362, 4, 3).requires_grad_(True)
    r = a * 1
    v = r[:, 0] / r[:, 0].norm()
    r -= 2 * lib.outer(v, v @ r)
    rec.err("householder", lambda: r.sum().backward())
    names = [
        k for k in dir(lib.maximum(x.requires_grad_(True), y).grad_fn) if k.startswith("_saved_")
    ]
    rec("saved_names", str(names))
    node = (x**y).grad_fn
    rec("saved_exponent", node._saved_exponent)
    rec("saved_result", node._saved_result)
    rec("hypot_result", lib.hypot(x, y).grad_fn._saved_result)


def p_solve_batch_msg(lib, dt, rec):
    ones = lib.ones(3, 3, dtype=dt)
    two = lib.stack([lib.eye(3, dtype=dt), ones])
    rec.err("unbatched_A", lambda: lib.linalg.solve(ones, lib.ones(2, 3, 3, dtype=dt)))
    rec.err("A_batch1", lambda: lib.linalg.solve(ones.expand(1, 3, 3), lib.ones(2, 3, 3, dtype=dt)))
    rec.err("A_bcast", lambda: lib.linalg.solve(two.unsqueeze(1), lib.ones(2, 4, 3, 1, dtype=dt)))
    rec.err("B_bcast", lambda: lib.linalg.solve(two, lib.ones(4, 2, 3, 1, dtype=dt)))
    rec.err("vec", lambda: lib.linalg.solve(two, lib.ones(3, dtype=dt)))
    rec.err("right", lambda: lib.linalg.solve(ones, lib.ones(2, 3, 3, dtype=dt), left=False))
    rec.err("ex", lambda: lib.linalg.solve_ex(ones, lib.ones(2, 3, 3, dtype=dt), check_errors=True))
    res = lib.linalg.solve_ex(two, lib.ones(4, 2, 3, 3, dtype=dt))
    rec("ex_info", res.info)
    rec.err("inv", lambda: lib.linalg.inv(two))
    rec.err("inv_unbatched", lambda: lib.linalg.inv(ones))
    rec.err("lu_factor", lambda: lib.linalg.lu_factor(two))
    if dt == lib.float64:  # (float32 rounding decides which minor of the singular `ones` fails)
        rec.err("cholesky", lambda: lib.linalg.cholesky(two))


def p_arg_errors(lib, dt, rec):
    a = _randn(lib, dt, 370, 4, 3)
    b = _randn(lib, dt, 371, 4, 2)
    rec.err("rcond_str", lambda: lib.linalg.lstsq(a, b, rcond="a"))
    rec.err("rcond_str_pos", lambda: lib.linalg.lstsq(a, b, "a"))
    rec.err("rcond_driver", lambda: lib.linalg.lstsq(a, b, rcond="a", driver=3))
    rec.err("driver_int", lambda: lib.linalg.lstsq(a, b, driver=3))
    rec.err("driver_name", lambda: lib.linalg.lstsq(a, b, driver="svd"))
    rec.err("rcond_list", lambda: lib.linalg.lstsq(a, b, rcond=[0.1]))
    rec("rcond_tensor", lib.linalg.lstsq(a, b, rcond=lib.tensor(0.1), driver="gelsd").rank)
    rec("rcond_int", lib.linalg.lstsq(a, b, rcond=1, driver="gelsd").rank)
    m = lib.ones(3, 3, dtype=dt)
    rec.err("mn_dim_int", lambda: lib.linalg.matrix_norm(m, ord="nuc", dim=0))
    rec.err("mn_dim_first", lambda: lib.linalg.matrix_norm(m, dim=0, ord="nuc"))
    rec.err("mn_dim_only", lambda: lib.linalg.matrix_norm(m, dim=0))
    rec.err("mn_pos", lambda: lib.linalg.matrix_norm(m, "fro", 0))
    rec.err("mn_pos_keep", lambda: lib.linalg.matrix_norm(m, 2, 1, True))
    rec.err("mn_ord_none", lambda: lib.linalg.matrix_norm(m, ord=None))
    rec.err("mn_ord_none_pos", lambda: lib.linalg.matrix_norm(m, None))
    rec.err("mn_dim_none", lambda: lib.linalg.matrix_norm(m, dim=None))
    rec.err("mn_dim_str", lambda: lib.linalg.matrix_norm(m, ord="fro", dim="ab"))
    rec("mn_dim_list", lib.linalg.matrix_norm(m, dim=[0, 1]))
    rec.err("norm_dim_int", lambda: lib.linalg.norm(m, ord="fro", dim=0))


def p_lowrank(lib, dt, rec):
    lib.manual_seed(0)
    a = lib.randn(20, 6, dtype=dt) @ lib.randn(6, 15, dtype=dt)
    lib.manual_seed(1)
    U, S, V = lib.svd_lowrank(a, q=8, niter=2)
    rec("S", S)
    rec("recon", (U @ lib.diag(S) @ V.mT - a).abs().max() < 1e-3)
    rec("svdvals", lib.linalg.svdvals(a)[:8])
    lib.manual_seed(1)
    U, S, V = lib.pca_lowrank(a, q=4)
    rec("pca_S", S)
    centered = a - a.mean(0)
    rec("pca_ref", lib.linalg.svdvals(centered)[:4])
    lib.manual_seed(2)
    x = _spd(lib, dt, 380, 10)
    e, v = lib.lobpcg(x, k=2, niter=40)
    rec("lobpcg", e)
    rec("lobpcg_ref", lib.linalg.eigvalsh(x).flip(0)[:2])
    rec("lobpcg_vec", _fix_signs(lib, v))


def p_procrustes(lib, dt, rec):
    # Kabsch: the rotation that best maps P onto Q, with the reflection fix
    p = _randn(lib, dt, 390, 10, 3)
    ang = lib.tensor(0.7, dtype=dt)
    c, s = lib.cos(ang), lib.sin(ang)
    zero, one = lib.zeros((), dtype=dt), lib.ones((), dtype=dt)
    rot = lib.stack(
        [lib.stack([c, -s, zero]), lib.stack([s, c, zero]), lib.stack([zero, zero, one])]
    )
    q = p @ rot.T + 0.01 * _randn(lib, dt, 391, 10, 3)
    pc, qc = p - p.mean(0), q - q.mean(0)
    h = pc.T @ qc
    u, sv, vh = lib.linalg.svd(h)
    d = lib.sign(lib.linalg.det(vh.T @ u.T))
    fix = lib.diag(lib.stack([one, one, d]))
    r = vh.T @ fix @ u.T
    rec("R", r)
    rec("det", lib.linalg.det(r))
    rec("rmsd", ((pc @ r.T - qc) ** 2).sum(1).mean().sqrt())
    # orthogonal Procrustes through the polar factor, with a gradient
    x = _randn(lib, dt, 392, 4, 4).requires_grad_(True)
    u, _, vh = lib.linalg.svd(x)
    w = u @ vh
    (w * _randn(lib, dt, 393, 4, 4)).sum().backward()
    rec("polar", w)
    rec("gpolar", x.grad)


def p_splitting(lib, dt, rec):
    # Jacobi, Gauss-Seidel and SOR sweeps on a diagonally dominant system
    n = 6
    a = _randn(lib, dt, 400, n, n) * 0.3 + 4 * lib.eye(n, dtype=dt)
    b = _randn(lib, dt, 401, n)
    d = lib.diagonal(a)
    x = lib.zeros(n, dtype=dt)
    for _ in range(40):
        x = (b - (a - lib.diag(d)) @ x) / d
    rec("jacobi", x)
    L = lib.tril(a)
    U = a - L
    x = lib.zeros(n, 1, dtype=dt)
    for _ in range(25):
        x = lib.linalg.solve_triangular(L, b.unsqueeze(-1) - U @ x, upper=False)
    rec("gauss_seidel", x.squeeze(-1))
    omega = 1.2
    D = lib.diag(d)
    M = D / omega + lib.tril(a, -1)
    x = lib.zeros(n, 1, dtype=dt)
    for _ in range(25):
        x = x + lib.linalg.solve_triangular(M, b.unsqueeze(-1) - a @ x, upper=False)
    rec("sor", x.squeeze(-1))
    rec("exact", lib.linalg.solve(a, b))
    # the iteration matrix's spectral radius governs the convergence
    G = lib.eye(n, dtype=dt) - lib.linalg.solve(L, a)
    rec("rho_gs", lib.linalg.matrix_norm(lib.linalg.matrix_power(G, 20), 2) < 1e-3)
    # iterative refinement in float32 with a float64 residual
    a32, b32 = a.float(), b.float()
    x32 = lib.linalg.solve(a32, b32)
    r = b.double() - a.double() @ x32.double()
    x_ref = x32.double() + lib.linalg.solve(a32, r.float()).double()
    rec("refined", x_ref)


def p_frechet(lib, dt, rec):
    # the Frechet derivative of expm by the block-triangular trick, against autograd's vjp
    n = 3
    a = _randn(lib, dt, 410, n, n) * 0.4
    e = _randn(lib, dt, 411, n, n)
    big = lib.zeros(2 * n, 2 * n, dtype=dt)
    big[:n, :n] = a
    big[n:, n:] = a
    big[:n, n:] = e
    frechet = lib.linalg.matrix_exp(big)[:n, n:]
    rec("frechet", frechet)
    x = a.clone().requires_grad_(True)
    out = lib.linalg.matrix_exp(x)
    (g,) = lib.autograd.grad(out, x, grad_outputs=e)
    # the vjp of expm at A with cotangent E is the Frechet derivative at A^T in direction E
    big[:n, :n] = a.T
    big[n:, n:] = a.T
    rec("vjp", g)
    rec("vjp_block", lib.linalg.matrix_exp(big)[:n, n:])
    # matrix square root and logarithm of an SPD matrix by eigh, with gradients
    s = _spd(lib, dt, 412, 4).requires_grad_(True)
    w, v = lib.linalg.eigh(s)
    sqrt = v @ lib.diag_embed(w.sqrt()) @ v.mT
    logm = v @ lib.diag_embed(w.log()) @ v.mT
    rec("sqrt2", sqrt @ sqrt)
    rec("exp_log", lib.linalg.matrix_exp(logm))
    (sqrt.trace() + logm.pow(2).sum()).backward()
    rec("gs", s.grad)


def p_jac_func(lib, dt, rec):
    f = lib.func
    a = _spd(lib, dt, 420, 3)
    b = _randn(lib, dt, 421, 3)
    rec("jac_solve", f.jacrev(lambda m: lib.linalg.solve(m, b))(a))
    rec("jac_eig", f.jacrev(lambda m: lib.linalg.eigvalsh(m))(a))
    rec("jac_det", f.jacrev(lib.linalg.det)(a))
    rec("hess_logdet", f.hessian(lambda m: lib.logdet(m))(a).reshape(9, 9)[:3])
    batch = lib.stack([_spd(lib, dt, 422 + i, 3) for i in range(4)])
    rec("vmap_inv", f.vmap(lib.linalg.inv)(batch))
    rec("vmap_chol", f.vmap(lib.linalg.cholesky)(batch))
    rec("vmap_norm", f.vmap(lambda m: lib.linalg.matrix_norm(m, ord=2))(batch))
    rec("vmap_solve", f.vmap(lib.linalg.solve, in_dims=(0, None))(batch, b))
    rec("grad_vmap", f.vmap(f.grad(lambda m: lib.linalg.slogdet(m).logabsdet))(batch))


def p_nan_matrices(lib, dt, rec):
    """A diverged iterate (a NaN) reaching a factorisation: NaN out, as torch's LAPACK."""
    nan = float("nan")
    a = _spd(lib, dt, 430, 3)
    bad = a.clone()
    bad[1, 2] = nan
    batch = lib.stack([a, bad, 2 * a])
    rec("det", lib.linalg.det(batch))
    s, ld = lib.linalg.slogdet(batch)
    rec("sign", s)
    rec("logabsdet", ld)
    rec("logdet", lib.logdet(batch))
    rec("inv", lib.linalg.inv(batch))
    rec("inv_ex", lib.linalg.inv_ex(batch).info)
    rhs = _randn(lib, dt, 431, 3, 2)
    rec("solve", lib.linalg.solve(batch, rhs))
    rec("solve_left", lib.linalg.solve(batch, rhs.mT, left=False))
    rec("solve_vec", lib.linalg.solve(bad, rhs[:, 0]))
    rec("solve_ex", lib.linalg.solve_ex(batch, rhs).result)
    rec("pow_neg", lib.linalg.matrix_power(batch, -1))
    for p in (1, "fro", float("inf"), -1):
        rec(f"cond.{p}", lib.linalg.cond(batch, p))
    rec.err("cond_nuc", lambda: lib.linalg.cond(batch, "nuc"))
    first = bad.clone()
    first[0, 0] = nan
    rec("first", lib.linalg.det(first))
    rec("first_inv", lib.linalg.inv(first))
    rec.err("with_singular", lambda: lib.linalg.inv(lib.stack([bad, lib.zeros(3, 3, dtype=dt)])))
    x = batch.clone().requires_grad_(True)
    lib.linalg.det(x[0]).backward()
    rec("grad_ok", x.grad[0])


def p_cholesky_ex_batch(lib, dt, rec):
    """GP-style jitter loop over a batch where a kernel matrix is not positive-definite."""
    pts = _randn(lib, dt, 440, 3, 5, 2)
    ls = lib.tensor([0.7, 1.1, 0.9], dtype=dt).requires_grad_(True)
    d2 = (pts.unsqueeze(-2) - pts.unsqueeze(-3)).pow(2).sum(-1)

    def kernel():
        return lib.exp(-0.5 * d2 / ls.view(3, 1, 1) ** 2) - shift

    shift = lib.stack(
        [lib.zeros(5, 5, dtype=dt), 2 * lib.eye(5, dtype=dt), lib.zeros(5, 5, dtype=dt)]
    )
    L, info = lib.linalg.cholesky_ex(kernel() + 1e-6 * lib.eye(5, dtype=dt))
    rec("info", info)
    rec("L_ok", L[info == 0])
    rec("requires_grad", L.requires_grad)
    rec("node", type(L.grad_fn).__name__)
    ok = info == 0
    logdet = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    loss = logdet[ok].sum()
    loss.backward()
    rec("gls", ls.grad[ok])
    # the usual fallback: more jitter for the matrices that failed
    ls.grad = None
    jitter = lib.where(ok, 1e-6, 3.0).view(3, 1, 1) * lib.eye(5, dtype=dt)
    L2, info2 = lib.linalg.cholesky_ex(kernel() + jitter)
    rec("info2", info2)
    (2 * L2.diagonal(dim1=-2, dim2=-1).log().sum()).backward()
    rec("gls2", ls.grad)
    Lu, infou = lib.linalg.cholesky_ex(kernel() + 1e-6 * lib.eye(5, dtype=dt), upper=True)
    rec("upper_ok", Lu[infou == 0])


def p_inplace_grads(lib, dt, rec):
    """Gradients through the hand-written algorithms' in-place slice updates (CopySlices)."""
    # Householder QR written in place on a clone of the input
    a0 = _randn(lib, dt, 450, 5, 3)
    a = a0.clone().requires_grad_(True)
    q, r = _householder_qr(lib, a)
    loss = (q[:, :3].sum(0) * r.diagonal()).sum()
    rec.err("householder_inplace", loss.backward)  # its matmul saved the slice it overwrote
    # the same reflections as full matrices, no slice written
    a = a0.clone().requires_grad_(True)
    r, q = a, lib.eye(5, dtype=dt)
    for k in range(3):
        x = r[k:, k]
        v = x + lib.sign(x[0]) * x.norm() * (lib.arange(5 - k) == 0).to(dt)
        v = lib.cat([lib.zeros(k, dtype=dt), v / v.norm()])
        h = lib.eye(5, dtype=dt) - 2 * lib.outer(v, v)
        r, q = h @ r, q @ h
    (q[:, :3].sum(0) * r.diagonal()).sum().backward()
    rec("householder_r", r)
    rec("householder", a.grad)
    # the Thomas algorithm with its right-hand side and diagonal as leaves
    n = 6
    diag = (3.0 + _randn(lib, dt, 451, n).abs()).requires_grad_(True)
    rhs = _randn(lib, dt, 452, n).requires_grad_(True)
    off = 0.5 * _randn(lib, dt, 453, n - 1)
    cp = lib.zeros(n - 1, dtype=dt)
    dp = lib.zeros(n, dtype=dt)
    cp[0] = off[0] / diag[0]
    dp[0] = rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - off[i - 1] * cp[i - 1]
        if i < n - 1:
            cp[i] = off[i] / m
        dp[i] = (rhs[i] - off[i - 1] * dp[i - 1]) / m
    x = lib.zeros(n, dtype=dt)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    rec.err("thomas_inplace", (x * lib.arange(1, n + 1, dtype=dt)).sum().backward)
    rec("thomas_x", x)
    # the sweeps over Python lists: nothing is overwritten
    cp, dp = [off[0] / diag[0]], [rhs[0] / diag[0]]
    for i in range(1, n):
        m = diag[i] - off[i - 1] * cp[i - 1]
        if i < n - 1:
            cp.append(off[i] / m)
        dp.append((rhs[i] - off[i - 1] * dp[i - 1]) / m)
    xs = [dp[-1]]
    for i in range(n - 2, -1, -1):
        xs.insert(0, dp[i] - cp[i] * xs[0])
    x = lib.stack(xs)
    (x * lib.arange(1, n + 1, dtype=dt)).sum().backward()
    rec("thomas_gdiag", diag.grad)
    rec("thomas_grhs", rhs.grad)
    T = lib.diag(diag.detach()) + lib.diag(off, 1) + lib.diag(off, -1)
    rec("thomas_ref", lib.linalg.solve(T, rhs.detach()))
    # Lanczos on a parameterised matrix, differentiated through the Ritz values
    theta = lib.tensor(0.3, dtype=dt, requires_grad=True)
    base = _spd(lib, dt, 454, 8)
    pert = _randn(lib, dt, 455, 8, 8)
    A = base + theta * (pert + pert.T)
    Q = lib.zeros(8, 5, dtype=dt)
    Q[:, 0] = lib.ones(8, dtype=dt) / 8**0.5
    alpha, beta = [], []
    for j in range(4):
        w = A @ Q[:, j]
        alpha.append(w @ Q[:, j])
        w = w - Q[:, : j + 1] @ (Q[:, : j + 1].T @ w)
        beta.append(w.norm())
        Q[:, j + 1] = w / beta[-1]
    Tm = lib.diag(lib.stack(alpha)) + lib.diag(lib.stack(beta[:-1]), 1)
    Tm = Tm + lib.diag(lib.stack(beta[:-1]), -1)
    ritz = lib.linalg.eigvalsh(Tm)
    rec.err("ritz_backward", ritz[-1].backward)
    rec("ritz", ritz)
    rec("gtheta", theta.grad)
    # Jacobi rotations applied in place to a symmetric matrix that requires grad
    s0 = _randn(lib, dt, 456, 4, 4)
    s = ((s0 + s0.T) / 2).requires_grad_(True)
    d = s * 1
    for p, qq in ((0, 1), (2, 3), (0, 2)):
        ang = 0.5 * lib.atan2(2 * d[p, qq], d[qq, qq] - d[p, p])
        c, sn = lib.cos(ang), lib.sin(ang)
        rows = d[[p, qq], :].clone()
        d[p, :] = c * rows[0] - sn * rows[1]
        d[qq, :] = sn * rows[0] + c * rows[1]
        cols = d[:, [p, qq]].clone()
        d[:, p] = c * cols[:, 0] - sn * cols[:, 1]
        d[:, qq] = sn * cols[:, 0] + c * cols[:, 1]
    rec("jacobi_d", d)
    rec.err("jacobi_backward", d.diagonal().pow(2).sum().backward)
    rec("jacobi_g", s.grad)


def p_old_api(lib, dt, rec):
    """The deprecated functions and the Tensor methods older notebooks call."""
    a = _spd(lib, dt, 460, 4)
    b = _randn(lib, dt, 461, 4, 2)
    rec("inverse", a.inverse())
    rec("det", a.det())
    rec("logdet", a.logdet())
    rec("slogdet", a.slogdet()[1])
    rec("pinverse", b.pinverse())
    rec("cholesky", a.cholesky())
    rec("cholesky_inverse", a.cholesky().cholesky_inverse())
    rec("cholesky_solve", b.cholesky_solve(a.cholesky()))
    rec("triangular_solve", b.triangular_solve(a.cholesky(), upper=False).solution)
    q, r = b.qr()
    rec("qr_r", r.abs())
    u, s, v = b.svd()
    rec("svd_s", s)
    rec("svd_shapes", str([tuple(t.shape) for t in b.svd(some=False)]))
    rec("svd_no_uv", str(b.svd(compute_uv=False)[0].abs().sum().item()))
    rec("matrix_exp", (a * 0.1).matrix_exp())
    rec("matrix_power", a.matrix_power(3))
    lu, piv = a.lu()
    rec("lu", lu)
    rec("lu_solve", b.lu_solve(lu, piv))
    rec("kron", a[:2, :2].kron(b[:2]))
    rec("norm_nuc", b.norm(p="nuc"))
    rec("norm_dim", b.norm(dim=0, p=3))
    rec.err("svd_1d", lambda: lib.svd(b[:, 0]))
    rec.err("svd_0d", lambda: lib.svd(b[0, 0]))
    rec.err("svd_1d_int", lambda: b[:, 0].long().svd())
    rec.err("svd_int", lambda: lib.svd(b.long()))
    rec.err("inverse_1d", lambda: b[:, 0].inverse())
    rec.err("cholesky_1d", lambda: b[:, 0].cholesky())
    rec.err("det_int", lambda: a.long().det())
    rec.err("mm_vec", lambda: a.mm(b[:, 0]))
    rec.err("mv_mat", lambda: a.mv(b))
    rec.err("dot_2d", lambda: b.dot(b))
    rec.err("dot_dtype", lambda: b[:, 0].dot(b[:, 1].long()))
    rec.err("trace_1d", lambda: b[:, 0].trace())


def p_forward_ad(lib, dt, rec):
    """Forward-mode derivatives (func.jvp, jacfwd, dual tensors) through the factorisations, and
    the factorisations forward mode refuses."""
    f = lib.func
    a = _spd(lib, dt, 470, 3)
    b = _randn(lib, dt, 471, 3)
    sym = _randn(lib, dt, 472, 3, 3)
    sym = sym + sym.T  # a symmetric tangent (torch's cholesky/eigh tangents read all of it)
    for name, fn in (
        ("solve", lambda m: lib.linalg.solve(m, b)),
        ("inv", lib.linalg.inv),
        ("det", lib.linalg.det),
        ("slogdet", lambda m: lib.linalg.slogdet(m).logabsdet),
        ("cholesky", lib.linalg.cholesky),
        ("eigvalsh", lib.linalg.eigvalsh),
        ("exp", lib.linalg.matrix_exp),
        ("svdvals", lib.linalg.svdvals),
        ("lu_solve", lambda m: lib.linalg.lu_solve(*lib.linalg.lu_factor(m), b[:, None])),
        ("pinv", lib.linalg.pinv),
        ("qr_r", lambda m: lib.linalg.qr(m).R),
    ):
        rec("jvp." + name, f.jvp(fn, (a,), (sym,))[1])
    rec("jacfwd_solve", f.jacfwd(lambda m: lib.linalg.solve(m, b))(a))
    rec("jacfwd_det", f.jacfwd(lib.linalg.det)(a))
    fa = lib.autograd.forward_ad
    with fa.dual_level():
        d = fa.make_dual(a, sym)
        rec("dual_inv", fa.unpack_dual(lib.linalg.inv(d)).tangent)
    idx = lib.tensor([0, 1, 1])
    for name, fn in (
        ("ldl", lambda m: lib.linalg.ldl_factor(m).LD),
        ("ldl_solve", lambda m: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(a), m)),
        ("geqrf", lambda m: lib.geqrf(m)[0]),
        ("bincount", lambda m: lib.bincount(idx, m[0])),
    ):
        rec.err("jacfwd." + name, lambda fn=fn: f.jacfwd(fn)(a))
        rec.err("jvp." + name, lambda fn=fn: f.jvp(fn, (a,), (sym,)))
        rec.err("hessian." + name, lambda fn=fn: f.hessian(lambda m: fn(m).sum())(a))
        rec.err("jacrev." + name, lambda fn=fn: f.jacrev(fn)(a))
