"""Op-test rows for the decompositions and solvers (minitorch/_ops/linalg_solve.py,
linalg_factor.py, linalg_matfn.py).

Inputs are drawn well conditioned: square matrices near 2I, symmetric ones with spread-out
eigenvalues, rectangular ones with distinct singular values. Ops that read one triangle of a
symmetric input (cholesky, eigh) are wrapped in a symmetrisation, so the gradient with respect to
the raw input is unique; eigenvector and singular-vector signs are normalised so that every
library's answer compares.
"""

from __future__ import annotations

import numpy as np

from tests.ops.specs_linalg import FLOATS, NOGRAD, row

# --- input domains ---


def well_conditioned(rng, shape, dt):
    """Uniform in [-1, 1] plus 2I on the last two dims (square): far from singular."""
    n = shape[-1]
    return rng.uniform(-1.0, 1.0, size=shape) + 2.0 * np.eye(n)


def negative_det(rng, shape, dt):
    a = well_conditioned(rng, shape, dt)
    a[..., 0, :] *= -1.0
    return a


def symmetric(rng, shape, dt):
    """Symmetric, eigenvalues spread over [-2.5, 3] (distinct: eigenvectors are smooth)."""
    n = shape[-1]
    q, _ = np.linalg.qr(rng.normal(size=shape))
    w = np.linspace(-2.5, 3.0, n) + rng.uniform(-0.1, 0.1, size=shape[:-1])
    return (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)


def spd(rng, shape, dt):
    """Symmetric positive-definite, eigenvalues in [1, 3]."""
    n = shape[-1]
    q, _ = np.linalg.qr(rng.normal(size=shape))
    w = np.linspace(1.0, 3.0, n) + rng.uniform(-0.1, 0.1, size=shape[:-1])
    return (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)


def rectangular(rng, shape, dt):
    """Singular values spread over [1, 3] (distinct, away from zero)."""
    m, n = shape[-2:]
    k = min(m, n)
    u, _ = np.linalg.qr(rng.normal(size=shape[:-2] + (m, k)))
    v, _ = np.linalg.qr(rng.normal(size=shape[:-2] + (n, k)))
    s = np.linspace(3.0, 1.0, k) + rng.uniform(-0.1, 0.1, size=shape[:-2] + (k,))
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


def lower_factor(rng, shape, dt):
    """A valid Cholesky factor: lower triangular with a positive diagonal."""
    return np.tril(rng.uniform(-0.5, 0.5, size=shape)) + 1.5 * np.eye(shape[-1])


def low_rank(rng, shape, dt):
    """Rank 2 with small integer entries (exactly low rank in every float dtype)."""
    m, n = shape[-2:]
    a = rng.integers(-3, 4, size=shape[:-2] + (m, 2))
    return (a @ rng.integers(-3, 4, size=shape[:-2] + (2, n))).astype(float)


# --- helpers shared by the minitorch/torch ops and the NumPy references ---


def _sym(x):
    return 0.5 * (x + x.transpose(-2, -1))


def _np_sym(x):
    return 0.5 * (x + np.swapaxes(x, -1, -2))


def _fix_columns(T, v):
    """Eigenvectors (columns) with a nonnegative first row: a unique choice of signs."""
    return v * T.sign(v.narrow(-2, 0, 1))


def _np_fix_columns(v):
    return v * np.sign(v[..., :1, :])


def _eigh(T):
    def op(a, **kw):
        w, v = T.linalg.eigh(_sym(a), **kw)
        return w, _fix_columns(T, v)

    return op


def _np_eigh(a, UPLO="L"):
    w, v = np.linalg.eigh(_np_sym(a), UPLO=UPLO)
    return w, _np_fix_columns(v)


def _svd(T, full_matrices=False):
    def op(a):
        u, s, vh = T.linalg.svd(a, full_matrices=full_matrices)
        k = s.shape[-1]
        sign = T.sign(u.narrow(-2, 0, 1).narrow(-1, 0, k))
        return u.narrow(-1, 0, k) * sign, s, vh.narrow(-2, 0, k) * sign.transpose(-2, -1)

    return op


def _np_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    sign = np.sign(u[..., :1, :])
    return u * sign, s, vh * np.swapaxes(sign, -1, -2)


def _torch_svd(T):
    def op(a):
        u, s, v = T.svd(a)
        sign = T.sign(u.narrow(-2, 0, 1))
        return u * sign, s, v * sign

    return op


def _np_torch_svd(a):
    u, s, vh = _np_svd(a)
    return u, s, np.swapaxes(vh, -1, -2)


def _np_qr(a, mode="reduced"):
    if mode == "r":
        return np.zeros((0,)), np.linalg.qr(a, mode="r")
    return np.linalg.qr(a, mode=mode)


def _np_slogdet(a):
    return np.linalg.slogdet(a)


def _np_lstsq(a, b):
    return np.linalg.pinv(a) @ b


def _np_lstsq_gelsd(a, b):
    x, res, rank, _ = np.linalg.lstsq(a, b, rcond=None)
    return x, res, np.asarray(rank, dtype=np.int64)


def _lstsq_gelsd(T):
    def op(a, b):
        # singular_values is left out: not differentiable in torch either, yet it moves with A
        x, res, rank, _ = T.linalg.lstsq(a, b, driver="gelsd")
        return x, res, rank

    return op


def _np_lstsq_values(a, b):
    _, _, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.asarray(rank, dtype=np.int64), s


def _np_solve_tri(a, b, upper, left=True, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        np.fill_diagonal(t, 1.0)
    return np.linalg.solve(t, b) if left else np.linalg.solve(t.T, b.T).T


def _np_cholesky_solve(b, low):
    return np.linalg.solve(low @ low.T, b)


def _np_expm(a):
    """exp(A) through the eigen-decomposition, in complex: an independent reference."""
    w, v = np.linalg.eig(a)
    return (v * np.exp(w)[..., None, :] @ np.linalg.inv(v)).real


def _np_matrix_power(a, n):
    return np.linalg.matrix_power(a, n)


def _np_cond(a, p=None):
    return np.asarray(np.linalg.cond(a, p))


def _np_matrix_rank(a):
    return np.asarray(np.linalg.matrix_rank(a), dtype=np.int64)


def _np_cholesky(a):
    return np.linalg.cholesky(_np_sym(a))


def _cond_fro(T):
    if T.__name__ == "torch":
        # torch's own cond backward trips over an in-place op for p='fro': the same product
        return lambda a: T.linalg.matrix_norm(a) * T.linalg.matrix_norm(T.linalg.inv(a))
    return lambda a: T.linalg.cond(a, "fro")


SQ = {"domain": well_conditioned}
# NumPy and LAPACK in float32 differ at the 1e-5 level on 4x4 factorisations.
F32 = {"atol": 1e-4, "rtol": 1e-4}


SPECS = [
    # inverse and determinants
    row("linalg_inv", lambda T: T.linalg.inv, np.linalg.inv, [(3, 3)], **SQ, **F32),
    row("linalg_inv_batch", lambda T: T.linalg.inv, np.linalg.inv, [(2, 4, 4)], **SQ, **F32),
    row("inverse", lambda T: T.inverse, np.linalg.inv, [(3, 3)], **SQ, **F32),
    row("inverse_method", lambda T: lambda a: a.inverse(), np.linalg.inv, [(2, 2)], **SQ),
    row(
        "linalg_det",
        lambda T: T.linalg.det,
        lambda a: np.asarray(np.linalg.det(a)),
        [(3, 3)],
        **SQ,
        **F32,
    ),
    row("det_batch", lambda T: T.det, np.linalg.det, [(2, 3, 3)], **SQ, **F32),
    row("det_negative", lambda T: T.det, np.linalg.det, [(3, 3)], domain=negative_det, **F32),
    row("linalg_slogdet", lambda T: T.linalg.slogdet, _np_slogdet, [(3, 3)], **SQ, **F32),
    row(
        "slogdet_negative_batch",
        lambda T: T.slogdet,
        _np_slogdet,
        [(2, 3, 3)],
        domain=negative_det,
        **F32,
    ),
    row(
        "logdet",
        lambda T: T.logdet,
        lambda a: np.asarray(np.linalg.slogdet(a)[1]),
        [(3, 3)],
        domain=spd,
        **F32,
    ),
    row(
        "logdet_negative_nan",
        lambda T: T.logdet,
        lambda a: np.asarray(np.nan),
        [(3, 3)],
        domain=negative_det,
        **NOGRAD,
    ),
    # solves
    row(
        "linalg_solve",
        lambda T: T.linalg.solve,
        np.linalg.solve,
        [(3, 3), (3, 2)],
        **F32,
        domain=[well_conditioned, (-1, 1)],
    ),  # fmt: skip
    row(
        "linalg_solve_vector",
        lambda T: T.linalg.solve,
        np.linalg.solve,
        [(3, 3), (3,)],
        domain=[well_conditioned, (-1, 1)],
        **F32,
    ),
    row(
        "linalg_solve_broadcast",
        lambda T: T.linalg.solve,
        lambda a, b: np.linalg.solve(np.broadcast_to(a, (2, 3, 3)), b),
        [(3, 3), (2, 3, 2)],
        domain=[well_conditioned, (-1, 1)],
        **F32,
    ),
    row(
        "linalg_solve_right",
        lambda T: lambda a, b: T.linalg.solve(a, b, left=False),
        lambda a, b: np.linalg.solve(a.T, b.T).T,
        [(3, 3), (2, 3)],
        domain=[well_conditioned, (-1, 1)],
        **F32,
    ),
    row(
        "solve_triangular_upper",
        lambda T: lambda a, b: T.linalg.solve_triangular(a, b, upper=True),
        lambda a, b: _np_solve_tri(a, b, True),
        [(3, 3), (3, 2)],
        domain=[well_conditioned, (-1, 1)],
        **F32,
    ),
    row(
        "solve_triangular_lower_batch",
        lambda T: lambda a, b: T.linalg.solve_triangular(a, b, upper=False),
        lambda a, b: np.stack([_np_solve_tri(x, y, False) for x, y in zip(a, b, strict=True)]),
        [(2, 3, 3), (2, 3, 4)],
        domain=[well_conditioned, (-1, 1)],
        **F32,
    ),
    row(
        "solve_triangular_right_unit",
        lambda T: (
            lambda a, b: T.linalg.solve_triangular(a, b, upper=True, left=False, unitriangular=True)
        ),
        lambda a, b: _np_solve_tri(a, b, True, left=False, unitriangular=True),
        [(3, 3), (2, 3)],
        domain=[well_conditioned, (-1, 1)],
        **F32,
    ),
    row(
        "triangular_solve",
        lambda T: lambda b, a: T.triangular_solve(b, a, upper=False, transpose=True),
        lambda b, a: (_np_solve_tri(a.T, b, True), a),
        [(3, 2), (3, 3)],
        domain=[(-1, 1), well_conditioned],
        **F32,
    ),
    # Cholesky
    row(
        "linalg_cholesky",
        lambda T: lambda a: T.linalg.cholesky(_sym(a)),
        _np_cholesky,
        [(3, 3)],
        domain=spd,
        **F32,
    ),
    row(
        "linalg_cholesky_upper_batch",
        lambda T: lambda a: T.linalg.cholesky(_sym(a), upper=True),
        lambda a: np.swapaxes(_np_cholesky(a), -1, -2),
        [(2, 4, 4)],
        domain=spd,
        **F32,
    ),
    row(
        "cholesky",
        lambda T: lambda a: T.cholesky(_sym(a)),
        _np_cholesky,
        [(3, 3)],
        domain=spd,
        **F32,
    ),
    row(
        "cholesky_solve",
        # the factor's other triangle is not read, yet torch gives it a gradient: mask it
        lambda T: lambda b, low: T.cholesky_solve(b, low.tril()),
        _np_cholesky_solve,
        [(3, 2), (3, 3)],
        domain=[(-1, 1), lower_factor],
        **F32,
    ),
    row(
        "cholesky_inverse",
        lambda T: lambda low: T.cholesky_inverse(low.tril()),
        lambda low: np.linalg.inv(low @ low.T),
        [(3, 3)],
        domain=lower_factor,
        **F32,
    ),
    # QR
    row("linalg_qr_tall", lambda T: T.linalg.qr, np.linalg.qr, [(5, 3)], domain=rectangular, **F32),
    row("linalg_qr_square", lambda T: T.linalg.qr, np.linalg.qr, [(3, 3)], **SQ, **F32),
    row("linalg_qr_wide", lambda T: T.linalg.qr, np.linalg.qr, [(3, 5)], domain=rectangular, **F32),
    row(
        "linalg_qr_batch",
        lambda T: T.linalg.qr,
        np.linalg.qr,
        [(2, 4, 3)],
        domain=rectangular,
        **F32,
    ),
    row(
        "linalg_qr_complete_square",
        lambda T: lambda a: T.linalg.qr(a, mode="complete"),
        lambda a: np.linalg.qr(a, mode="complete"),
        [(3, 3)],
        **SQ,
        **F32,
    ),
    row(
        "linalg_qr_complete_tall",
        lambda T: lambda a: T.linalg.qr(a, mode="complete"),
        lambda a: np.linalg.qr(a, mode="complete"),
        [(4, 2)],
        domain=rectangular,
        **NOGRAD,
        **F32,
    ),
    row(
        "linalg_qr_r",
        lambda T: lambda a: T.linalg.qr(a, mode="r"),
        lambda a: _np_qr(a, "r"),
        [(4, 3)],
        domain=rectangular,
        **NOGRAD,
        **F32,
    ),
    row("qr", lambda T: T.qr, np.linalg.qr, [(4, 3)], domain=rectangular, **F32),
    # symmetric eigen-decomposition
    row("linalg_eigh", _eigh, _np_eigh, [(4, 4)], domain=symmetric, **F32),
    row("linalg_eigh_batch", _eigh, _np_eigh, [(2, 3, 3)], domain=symmetric, **F32),
    row(
        "linalg_eigvalsh",
        lambda T: lambda a: T.linalg.eigvalsh(_sym(a)),
        lambda a: np.linalg.eigvalsh(_np_sym(a)),
        [(4, 4)],
        domain=symmetric,
        **F32,
    ),
    row(
        "linalg_eigvalsh_upper",
        lambda T: lambda a: T.linalg.eigvalsh(a, UPLO="U"),
        lambda a: np.linalg.eigvalsh(a, UPLO="U"),
        [(3, 3)],
        **NOGRAD,
        **F32,
    ),
    # SVD
    row("linalg_svd_tall", _svd, _np_svd, [(5, 3)], domain=rectangular, **F32),
    row("linalg_svd_wide", _svd, _np_svd, [(3, 5)], domain=rectangular, **F32),
    row("linalg_svd_batch", _svd, _np_svd, [(2, 3, 3)], domain=rectangular, **F32),
    row(
        "linalg_svd_full",
        lambda T: _svd(T, full_matrices=True),
        _np_svd,
        [(4, 2)],
        domain=rectangular,
        **F32,
    ),
    row(
        "linalg_svdvals",
        lambda T: T.linalg.svdvals,
        lambda a: np.linalg.svd(a, compute_uv=False),
        [(4, 3)],
        domain=rectangular,
        **F32,
    ),
    row("svd", _torch_svd, _np_torch_svd, [(4, 3)], domain=rectangular, **F32),
    # built on the factorisations
    row(
        "linalg_pinv",
        lambda T: T.linalg.pinv,
        np.linalg.pinv,
        [(4, 3)],
        domain=rectangular,
        **F32,
    ),
    row(
        "pinverse_wide", lambda T: T.pinverse, np.linalg.pinv, [(2, 4)], domain=rectangular, **F32
    ),  # fmt: skip
    row(
        "linalg_matrix_rank",
        lambda T: T.linalg.matrix_rank,
        _np_matrix_rank,
        [(4, 5)],
        domain=low_rank,
        **NOGRAD,
    ),
    row("linalg_cond", lambda T: T.linalg.cond, _np_cond, [(3, 3)], **SQ, **F32),
    row(
        "linalg_cond_fro",
        _cond_fro,
        lambda a: _np_cond(a, "fro"),
        [(3, 3)],
        **SQ,
        **F32,
    ),
    row(
        "linalg_lstsq",
        lambda T: lambda a, b: T.linalg.lstsq(a, b).solution,
        _np_lstsq,
        [(5, 3), (5, 2)],
        domain=[rectangular, (-1, 1)],
        **F32,
    ),
    row(
        "linalg_lstsq_gelsd",
        _lstsq_gelsd,
        _np_lstsq_gelsd,
        [(5, 3), (5, 2)],
        domain=[rectangular, (-1, 1)],
        **F32,
    ),
    row(
        "linalg_lstsq_gelsd_values",
        lambda T: lambda a, b: tuple(T.linalg.lstsq(a, b, driver="gelsd"))[2:],
        _np_lstsq_values,
        [(5, 3), (5, 2)],
        domain=[rectangular, (-1, 1)],
        **NOGRAD,
        **F32,
    ),
    row(
        "linalg_matrix_power_3",
        lambda T: lambda a: T.linalg.matrix_power(a, 3),
        lambda a: _np_matrix_power(a, 3),
        [(3, 3)],
        **F32,
    ),
    row(
        "matrix_power_negative",
        lambda T: lambda a: T.matrix_power(a, -2),
        lambda a: _np_matrix_power(a, -2),
        [(2, 3, 3)],
        **SQ,
        **F32,
    ),
    row(
        "matrix_power_0",
        lambda T: lambda a: T.matrix_power(a, 0),
        lambda a: _np_matrix_power(a, 0),
        [(2, 3, 3)],
        **NOGRAD,
    ),
    row(
        "linalg_matrix_exp",
        lambda T: T.linalg.matrix_exp,
        _np_expm,
        [(3, 3)],
        domain=(-1, 1),
        **F32,
    ),  # fmt: skip
    row(
        "matrix_exp_scaled_batch",
        lambda T: T.matrix_exp,
        _np_expm,
        [(2, 3, 3)],
        domain=(-4, 4),
        atol=1e-3,
        rtol=1e-4,
    ),
]

_unused = FLOATS


# --- LU solves, Householder products, tensor solves, spectral norms ---

PIV = [3, 2, 3]  # LAPACK-style 1-based row swaps for a 3x3 LU


def _piv(x, values=PIV):
    mod = __import__("minitorch") if type(x).__module__.startswith("minitorch") else None
    mod = mod or __import__("torch")
    return mod.tensor(np.asarray(values, dtype=np.int32), device=x.device)


def _np_perm(piv, n):
    perm = np.arange(n)
    for j, p in enumerate(piv):
        perm[[j, p - 1]] = perm[[p - 1, j]]
    return np.eye(n)[:, perm]  # P with A = P L U


def _np_lu_matrix(lu, piv=PIV):
    n = lu.shape[-1]
    low = np.tril(lu, -1) + np.eye(n)
    return _np_perm(piv, n) @ low @ np.triu(lu)


def _np_lu_solve(lu, b, left=True, adjoint=False):
    a = _np_lu_matrix(lu)
    a = np.swapaxes(a, -1, -2) if adjoint else a
    if left:
        return np.linalg.solve(a, b)
    return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)


def _np_householder(a, tau, full=False):
    m, n = a.shape[-2:]
    q = np.eye(m)
    for i in range(tau.shape[-1]):
        v = np.zeros(m)
        v[i] = 1.0
        v[i + 1 :] = a[i + 1 :, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q if full else q[:, :n]


def _tensor_well_conditioned(rng, shape, dt):
    n = int(np.prod(shape)) if shape else 1
    k = int(round(n**0.5))
    return (rng.uniform(-1.0, 1.0, size=(k, k)) + 2.0 * np.eye(k)).reshape(shape)


def _plu(plu):
    p, low, up = plu
    return p @ low @ up


def _square_first(rng, shape, dt):
    """Square inputs well conditioned, the others uniform in [-1, 1]."""
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        return well_conditioned(rng, shape, dt)
    return rng.uniform(-1.0, 1.0, size=shape)


SQ1 = {"domain": _square_first}


def _tensor_well_conditioned_first(rng, shape, dt):
    """The first input (the tensor operator) well conditioned; the others uniform."""
    if len(shape) == 3:
        return _tensor_well_conditioned(rng, shape, dt)
    return rng.uniform(-1.0, 1.0, size=shape)


def _np_spectral(a, ord):
    s = np.linalg.svd(a, compute_uv=False)
    return {"nuc": s.sum(-1), 2: s.max(-1), -2: s.min(-1)}[ord]


SPECS += [
    row("linalg_lu_solve", lambda T: lambda lu, b: T.linalg.lu_solve(lu, _piv(lu), b),
        _np_lu_solve, [(3, 3), (3, 2)], **SQ1, **F32),
    row("linalg_lu_solve_left_false", lambda T: lambda lu, b: T.linalg.lu_solve(
        lu, _piv(lu), b, left=False), lambda lu, b: _np_lu_solve(lu, b, left=False),
        [(3, 3), (2, 3)], **SQ1, **F32),
    row("linalg_lu_solve_adjoint", lambda T: lambda lu, b: T.linalg.lu_solve(
        lu, _piv(lu), b, adjoint=True), lambda lu, b: _np_lu_solve(lu, b, adjoint=True),
        [(3, 3), (3, 2)], **SQ1, **F32),
    row("linalg_lu_solve_adjoint_right", lambda T: lambda lu, b: T.linalg.lu_solve(
        lu, _piv(lu), b, left=False, adjoint=True),
        lambda lu, b: _np_lu_solve(lu, b, left=False, adjoint=True), [(3, 3), (4, 3)],
        **SQ1, **F32),
    row("lu_solve_factored", lambda T: lambda a, b: T.lu_solve(b, *T.linalg.lu_factor(a)),
        lambda a, b: np.linalg.solve(a, b), [(2, 3, 3), (2, 3, 1)], **SQ1, **F32),
    row("linalg_lu_factor_grad", lambda T: lambda a: T.linalg.lu_factor(a).LU, None,
        [(2, 3, 3)], **SQ, **F32),
    row("linalg_lu_reconstructs", lambda T: lambda a: _plu(T.linalg.lu(a)),
        lambda a: a, [(3, 3)], **SQ, **F32),
    row("linalg_lu_factors", lambda T: lambda a: T.linalg.lu(a)[1:], None, [(2, 3, 3)], **SQ,
        **F32),
    row("linalg_lu_tall_forward", lambda T: lambda a: _plu(T.linalg.lu(a)), lambda a: a,
        [(4, 3)], **NOGRAD),
    row("lu_unpack_grad", lambda T: lambda a: T.lu_unpack(*T.linalg.lu_factor(a))[1:], None,
        [(3, 3)], **SQ, **F32),
    row("linalg_solve_ex", lambda T: lambda a, b: T.linalg.solve_ex(a, b).result,
        lambda a, b: np.linalg.solve(a, b[..., None])[..., 0], [(3, 3), (3,)], **SQ1, **F32),
    row("linalg_lu_factor_ex", lambda T: lambda a: T.linalg.lu_factor_ex(a)[0],
        None, [(2, 3, 3)], **SQ, **NOGRAD),
    row("linalg_householder_product", lambda T: T.linalg.householder_product,
        _np_householder, [(4, 3), (3,)], domain=(-1, 1)),
    row("orgqr_fewer_tau", lambda T: T.orgqr, _np_householder, [(4, 3), (2,)], domain=(-1, 1)),
    row("ormqr", lambda T: T.ormqr, lambda a, t, c: _np_householder(a, t, True) @ c,
        [(4, 3), (3,), (4, 2)], domain=(-1, 1)),
    row("ormqr_right_transpose", lambda T: lambda a, t, c: T.ormqr(a, t, c, left=False,
        transpose=True), lambda a, t, c: c @ _np_householder(a, t, True).T,
        [(4, 3), (3,), (2, 4)], domain=(-1, 1)),
    row("linalg_tensorinv", lambda T: lambda a: T.linalg.tensorinv(a, ind=2),
        lambda a: np.linalg.tensorinv(a, ind=2), [(2, 3, 6)], domain=_tensor_well_conditioned,
        **F32),
    row("linalg_tensorsolve", lambda T: T.linalg.tensorsolve,
        lambda a, b: np.linalg.tensorsolve(a, b), [(2, 3, 6), (2, 3)],
        domain=_tensor_well_conditioned_first, **F32),
    row("linalg_tensorsolve_dims", lambda T: lambda a, b: T.linalg.tensorsolve(a, b, dims=(0,)),
        lambda a, b: np.linalg.tensorsolve(a, b, axes=(0,)), [(6, 2, 3), (2, 3)],
        domain=_tensor_well_conditioned_first, **F32),
    row("matrix_norm_nuc", lambda T: lambda a: T.linalg.matrix_norm(a, "nuc"),
        lambda a: _np_spectral(a, "nuc"), [(2, 4, 3)], domain=rectangular, **F32),
    row("matrix_norm_2_keepdim", lambda T: lambda a: T.linalg.matrix_norm(a, 2, (0, 2), True),
        lambda a: np.linalg.norm(np.moveaxis(a, 1, 0), 2, (1, 2))[None, :, None],
        [(4, 3, 3)], domain=(-1, 1), **F32),
    row("matrix_norm_neg2", lambda T: lambda a: T.linalg.matrix_norm(a, -2),
        lambda a: _np_spectral(a, -2), [(3, 3)], domain=rectangular, **F32),
    row("nuclear_norm", lambda T: T.nuclear_norm, lambda a: np.asarray(_np_spectral(a, "nuc")),
        [(4, 3)], domain=rectangular, **F32),
]  # fmt: skip
