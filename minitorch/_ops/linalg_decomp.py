"""Matrix decompositions and solvers: inv, det, solve, cholesky, qr, eigh, svd, matrix_exp, lu."""

from __future__ import annotations

from minitorch import return_types
from minitorch._ops.linalg import _short
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function

# fmt: off
__all__ = [
    "inverse", "det", "slogdet", "logdet", "cholesky", "cholesky_solve", "cholesky_inverse",
    "qr", "svd", "pinverse", "matrix_power", "matrix_exp", "triangular_solve", "lu_unpack",
]
# fmt: on


class LinAlgError(RuntimeError):
    """A matrix that the algorithm cannot handle (singular, not positive-definite). Mirrors
    torch.linalg.LinAlgError (torch._C._LinAlgError), a RuntimeError."""


# --- checks and helpers ---


def _check_matrix(a, op: str, square: bool = True):
    if not isinstance(a, Tensor):
        raise TypeError(f"{op}(): argument 'A' (position 1) must be Tensor, not {type(a).__name__}")
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {_short(a.dtype)}"
        )
    m, n = a._data.shape[-2:]
    if square and m != n:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )


def _mT(x: Tensor) -> Tensor:
    return x.transpose(-2, -1)


def _eye_like(x: Tensor, n: int) -> Tensor:
    return _make(x._device.backend.xp.eye(n, dtype=x._data.dtype), x._device, False, None)


def _is_linalg_error(e: Exception) -> bool:
    return type(e).__name__ == "LinAlgError"


def _batch_prefix(shape, index) -> str:
    return f"(Batch element {index}): " if len(shape) > 2 else ""


def _lu_raw(xp, a):
    """LU with partial pivoting of a batch of (m, n) arrays, as LAPACK's getrf: (LU, pivots
    (1-based, int32), info: per matrix the 1-based index of the first zero pivot, else 0)."""
    shape = a.shape
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    lu = a.reshape((-1, m, n)).copy()
    nb = lu.shape[0]
    rows = xp.arange(nb)
    piv = xp.zeros((nb, k), dtype=xp.int32)
    info = xp.zeros((nb,), dtype=xp.int64)
    for j in range(k):
        p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1)
        piv[:, j] = (p + 1).astype(xp.int32)
        row_j = lu[rows, j, :].copy()
        lu[rows, j, :] = lu[rows, p, :]
        lu[rows, p, :] = row_j
        d = lu[:, j, j]
        zero = d == 0
        info = xp.where((info == 0) & zero, j + 1, info)
        col = lu[:, j + 1 :, j] / xp.where(zero, 1, d)[:, None]
        lu[:, j + 1 :, j] = col
        lu[:, j + 1 :, j + 1 :] -= col[:, :, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(shape), piv.reshape(batch + (k,)), info.reshape(batch)


def _first_failure(info):
    """(flat batch index, value) of the first nonzero info (an error path: reads the host)."""
    flat = info.reshape(-1)
    bad = [i for i, v in enumerate(flat.tolist()) if v != 0]
    return (bad[0], int(flat.tolist()[bad[0]])) if bad else (None, 0)


def _raise_singular_inv(xp, x, op="linalg.inv"):
    _, _, info = _lu_raw(xp, x)
    index, element = _first_failure(info)
    raise LinAlgError(
        f"{op}: {_batch_prefix(x.shape, index or 0)}The diagonal element {element} is zero, the "
        "inversion could not be completed because the input matrix is singular."
    ) from None


# --- inverse, determinants, solves ---


class Inv(Function):
    """out = A^-1;  grad_A = -out^T @ grad @ out^T"""

    _node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = ctx.xp
        try:
            out = xp.linalg.inv(a._data)
        except Exception as e:
            if _is_linalg_error(e):
                _raise_singular_inv(xp, a._data)
            raise
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        t = _mT(out)
        return -(t @ grad @ t)


class Det(Function):
    """out = det(A);  grad_A = grad * out * A^-T"""

    _node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, a):
        out = ctx.xp.asarray(ctx.xp.linalg.det(a._data))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        scale = (grad * out).unsqueeze(-1).unsqueeze(-1)
        return scale * _mT(Inv.apply(a))


class Slogdet(Function):
    """(sign, logabsdet) = slogdet(A);  grad_A = grad_logabsdet * A^-T (sign is constant)"""

    _node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, a):
        sign, logabs = ctx.xp.linalg.slogdet(a._data)
        ctx.save_for_backward(a)
        ctx.set_materialize_grads(False)
        return ctx.xp.asarray(sign), ctx.xp.asarray(logabs)

    @staticmethod
    def backward(ctx, grad_sign, grad_logabs):
        (a,) = ctx.saved_tensors
        if grad_logabs is None:
            return None
        return grad_logabs.unsqueeze(-1).unsqueeze(-1) * _mT(Inv.apply(a))


class Solve(Function):
    """X = A^-1 B (B a batch of matrices);  grad_B = A^-T grad,  grad_A = -grad_B X^T"""

    _node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, a, b):
        xp = ctx.xp
        x, y = a._data, b._data
        batch = xp.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        if x.shape[:-2] != batch or y.shape[:-2] != batch:  # (not every xp broadcasts solve)
            x = xp.broadcast_to(x, batch + x.shape[-2:])
            y = xp.broadcast_to(y, batch + y.shape[-2:])
        try:
            out = xp.linalg.solve(x, y)
        except Exception as e:
            if _is_linalg_error(e):
                raise LinAlgError(
                    "torch.linalg.solve: The solver failed because the input matrix is singular."
                ) from None
            raise
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        gb = Solve.apply(_mT(a), grad)
        ga = -(gb @ _mT(out)) if ctx.needs_input_grad[0] else None
        return ga, gb if ctx.needs_input_grad[1] else None


def _triangle(x, upper: bool, unit: bool):
    """The triangle of x a triangular solve reads (strict when the diagonal is taken as ones)."""
    if upper:
        return x.triu(1) if unit else x.triu()
    return x.tril(-1) if unit else x.tril()


class SolveTriangular(Function):
    """X = T^-1 B, T the upper or lower triangle of A (unit diagonal if unitriangular);
    grad_B = T^-T grad,  grad_A = the same triangle of -grad_B X^T"""

    _node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, a, b, *, upper, unitriangular=False):
        xp = ctx.xp
        x = a._data
        t = xp.triu(x) if upper else xp.tril(x)
        if unitriangular:
            n = x.shape[-1]
            eye = xp.eye(n, dtype=bool)
            t = xp.where(eye, xp.asarray(1, dtype=x.dtype), t)
        try:
            out = xp.linalg.solve(t, b._data)
        except Exception as e:
            if not _is_linalg_error(e):
                raise
            out = _substitute(xp, t, b._data, upper)
        ctx.save_for_backward(a, out)
        ctx.upper, ctx.unit = upper, unitriangular
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx.saved_tensors
        upper, unit = ctx.upper, ctx.unit
        gb = SolveTriangular.apply(_mT(a), grad, upper=not upper, unitriangular=unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = _triangle(-(gb @ _mT(out)), upper, unit)
        return ga, gb if ctx.needs_input_grad[1] else None


def _substitute(xp, t, b, upper):
    """Back (or forward) substitution without a pivot check: a zero on the diagonal gives
    inf/nan as in torch, where the LAPACK solve refuses."""
    n = t.shape[-1]
    batch = xp.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = xp.broadcast_to(t, batch + t.shape[-2:])
    x = xp.broadcast_to(b, batch + b.shape[-2:]).copy()
    for i in range(n - 1, -1, -1) if upper else range(n):
        rest = slice(i + 1, n) if upper else slice(0, i)
        acc = xp.matmul(t[..., i : i + 1, rest], x[..., rest, :])
        x[..., i : i + 1, :] = (x[..., i : i + 1, :] - acc) / t[..., i : i + 1, i : i + 1]
    return x


# --- Cholesky ---


def _not_pd(xp, x, op):
    """Raises torch's error naming the first leading minor that is not positive-definite."""
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    for index in range(flat.shape[0]):
        for order in range(1, n + 1):
            try:
                xp.linalg.cholesky(flat[index, :order, :order])
            except Exception as e:
                if not _is_linalg_error(e):
                    raise
                raise LinAlgError(
                    f"{op}: {_batch_prefix(x.shape, index)}The factorization could not be "
                    "completed because the input is not positive-definite (the leading minor of "
                    f"order {order} is not positive-definite)."
                ) from None


class Cholesky(Function):
    """L = cholesky(A) (lower triangle of A read);
    grad_A = sym(L^-T Phi(L^T grad) L^-1), Phi: the lower triangle with the diagonal halved"""

    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, a):
        xp = ctx.xp
        try:
            out = xp.linalg.cholesky(a._data)
        except Exception as e:
            if _is_linalg_error(e):
                _not_pd(xp, a._data, "linalg.cholesky")
            raise
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (lo,) = ctx.saved_tensors
        p = _mT(lo) @ grad.tril()
        p = p.tril() - 0.5 * p.diagonal(0, -2, -1).diag_embed()
        lt = _mT(lo)
        w = SolveTriangular.apply(lt, p, upper=True)  # L^-T P
        s = _mT(SolveTriangular.apply(lt, _mT(w), upper=True))  # L^-T P L^-1
        return 0.5 * (s + _mT(s))


# --- QR ---


def _qr_square_grad(q, r, gq, gr):
    """grad_A of A = QR with R square (m >= n): (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q."""
    m_ = None
    if gr is not None:
        m_ = r @ _mT(gr)
    if gq is not None:
        m_ = -(_mT(gq) @ q) if m_ is None else m_ - _mT(gq) @ q
    b = q @ (m_.tril() + _mT(m_.tril(-1)))
    if gq is not None:
        b = b + gq
    return _mT(SolveTriangular.apply(r, _mT(b), upper=True))


class Qr(Function):
    """(Q, R) = qr(A);  grad_A by the reduced-QR formula (m >= n), the square block plus
    Q grad_R[:, m:] for wide matrices"""

    _node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, a, *, mode="reduced"):
        xp = ctx.xp
        x = a._data
        if mode == "r":
            r = xp.linalg.qr(x, mode="r")
            q = xp.zeros((0,), dtype=x.dtype)
        else:
            q, r = xp.linalg.qr(x, mode=mode)
        ctx.mode = mode
        ctx.shape = x.shape
        ctx.save_for_backward(q, r)
        ctx.set_materialize_grads(False)
        return q, r

    @staticmethod
    def backward(ctx, gq, gr):
        m, n = ctx.shape[-2:]
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                "through linalg.qr."
            )
        if ctx.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        q, r = ctx.saved_tensors
        if gq is None and gr is None:
            return None
        if m >= n:
            return _qr_square_grad(q, r, gq, gr)
        # A = [X | Y] with X = Q R[:, :m] square and Y = Q R[:, m:]
        u, v = r.narrow(-1, 0, m), r.narrow(-1, m, n - m)
        gu = gr.narrow(-1, 0, m) if gr is not None else None
        gy = None
        if gr is not None:
            gv = gr.narrow(-1, m, n - m)
            y = q @ v
            gq = y @ _mT(gv) if gq is None else gq + y @ _mT(gv)
            gy = q @ gv
        gx = _qr_square_grad(q, u, gq, gu)
        if gy is None:
            gy = gx.new_zeros(gx.shape[:-1] + (n - m,))
        return _cat(gx, gy)


def _cat(a, b):
    from minitorch._ops.shape_join import cat

    return cat([a, b], -1)


# --- symmetric eigendecomposition and SVD ---


class Eigh(Function):
    """(w, V) = eigh(A);  grad_A = V (diag(grad_w) + skew(V^T grad_V) / E) V^T,
    E_ij = w_j - w_i (the diagonal set to one)"""

    _node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, a, *, uplo="L"):
        w, v = ctx.xp.linalg.eigh(a._data, UPLO=uplo)
        ctx.save_for_backward(w, v)
        ctx.set_materialize_grads(False)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        w, v = ctx.saved_tensors
        if gw is None and gv is None:
            return None
        n = w.shape[-1]
        inner = None
        if gv is not None:
            m = _mT(v) @ gv
            e = w.unsqueeze(-2) - w.unsqueeze(-1) + _eye_like(w, n)
            inner = 0.5 * (m - _mT(m)) / e
        if gw is not None:
            d = gw.diag_embed()
            inner = d if inner is None else inner + d
        return v @ inner @ _mT(v)


class Svd(Function):
    """(U, S, Vh) = svd(A);  grad_A by the standard formula (E_ij = S_j^2 - S_i^2), plus the
    terms for the complement of U (m > k) or of V (n > k)"""

    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, a, *, full_matrices=True):
        u, s, vh = ctx.xp.linalg.svd(a._data, full_matrices=full_matrices)
        ctx.save_for_backward(u, s, vh)
        ctx.set_materialize_grads(False)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        u, s, vh = ctx.saved_tensors
        m, n = u.shape[-2], vh.shape[-1]
        k = s.shape[-1]
        # full_matrices: the extra columns are arbitrary; only the first k enter (as torch).
        u, vh = u.narrow(-1, 0, k), vh.narrow(-2, 0, k)
        gu = gu.narrow(-1, 0, k) if gu is not None else None
        gvh = gvh.narrow(-2, 0, k) if gvh is not None else None
        if gu is None and gvh is None:
            if gs is None:
                return None
            return u @ (gs.unsqueeze(-1) * vh)
        s2 = s * s
        e = s2.unsqueeze(-2) - s2.unsqueeze(-1) + _eye_like(s, k)
        ret = None
        if gu is not None:
            uhgu = _mT(u) @ gu
            uhgu = uhgu - _mT(uhgu)
            ret = (uhgu / e) * s.unsqueeze(-2)
        if gvh is not None:
            vhgv = vh @ _mT(gvh)
            vhgv = vhgv - _mT(vhgv)
            term = s.unsqueeze(-1) * (vhgv / e)
            ret = term if ret is None else ret + term
        if gs is not None:
            ret = ret + gs.diag_embed()
        if m > k and gu is not None:
            gus = gu / s.unsqueeze(-2)
            ga = u @ ret + gus - u @ (_mT(u) @ gus)
            return ga @ vh
        if n > k and gvh is not None:
            sgvh = gvh / s.unsqueeze(-1)
            ga = ret @ vh + sgvh - (sgvh @ _mT(vh)) @ vh
            return u @ ga
        return u @ ret @ vh


# --- matrix exponential ---

_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip
_THETA13 = 5.371920351148152


def _expm_raw(xp, x):
    """exp of a batch of matrices: degree-13 Padé with scaling and squaring (Higham 2005)."""
    n = x.shape[-1]
    if x.size == 0:
        return x.copy()
    # One scaling for the whole batch, from its largest 1-norm (reads one number to the host).
    norm = float(xp.abs(x).sum(axis=-2).max())
    s = 0
    if norm > _THETA13 and norm != float("inf"):  # (nan and inf give nan, as in torch)
        s = int(xp.ceil(xp.log2(xp.asarray(norm / _THETA13))))
    a = x / (2.0**s)
    b = _PADE13
    eye = xp.eye(n, dtype=x.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)  # fmt: skip
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = xp.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r.astype(x.dtype, copy=False)


class MatrixExp(Function):
    """out = exp(A);  grad_A = the top-right block of exp([[A^T, grad], [0, A^T]])"""

    _node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _expm_raw(ctx.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        n = a.shape[-1]
        at = _mT(a)
        top = _cat(at, grad)
        bottom = _cat(at.new_zeros(at.shape), at)
        from minitorch._ops.shape_join import cat

        big = MatrixExp.apply(cat([top, bottom], -2))
        return big.narrow(-2, 0, n).narrow(-1, n, n)


# --- public functions (torch.linalg names live in minitorch.linalg) ---


def linalg_inv(A, *, out=None):
    """Inverse of a batch of square matrices. Mirrors torch.linalg.inv."""
    _check_matrix(A, "linalg.inv")
    return _write(Inv.apply(A), out)


def inverse(input, *, out=None):
    """Mirrors torch.inverse (linalg.inv)."""
    return linalg_inv(input, out=out)


def linalg_inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info). Mirrors torch.linalg.inv_ex. Differences from torch: a singular matrix
    raises whatever check_errors says."""
    _no_out(out, "linalg.inv_ex")
    inv = linalg_inv(A)
    info = _make(
        A._device.backend.xp.zeros(A._data.shape[:-2], dtype="int32"), A._device, False, None
    )
    return return_types.linalg_inv_ex((inv, info))


def linalg_det(A, *, out=None):
    """Determinant of a batch of square matrices. Mirrors torch.linalg.det."""
    _check_matrix(A, "linalg.det")
    return _write(Det.apply(A), out)


def det(input):
    """Mirrors torch.det (linalg.det)."""
    return linalg_det(input)


def _slogdet(A, op):
    _check_matrix(A, op)
    # sign requires grad as in torch, but its gradient is zero (backward ignores it)
    return Slogdet.apply(A)


def linalg_slogdet(A, *, out=None):
    """(sign, logabsdet) of the determinant. Mirrors torch.linalg.slogdet."""
    _no_out(out, "linalg.slogdet")
    return return_types.linalg_slogdet(_slogdet(A, "linalg.slogdet"))


def slogdet(input):
    """Mirrors torch.slogdet."""
    return return_types.slogdet(_slogdet(input, "linalg.slogdet"))


def logdet(input):
    """log(det(A)): nan for a negative determinant, -inf for zero. Mirrors torch.logdet."""
    from minitorch._ops.pointwise import where

    sign, logabs = _slogdet(input, "logdet")
    return where(sign.detach() < 0, logabs.new_full((), float("nan")), logabs)


def _solve_vector_case(A, B) -> bool:
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def linalg_solve(A, B, *, left=True, out=None):
    """X with A X = B (or X A = B when left=False). Mirrors torch.linalg.solve."""
    _check_matrix(A, "linalg.solve")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg_solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{_short(A.dtype)} and B of type {_short(B.dtype)} instead"
        )
    vector = _solve_vector_case(A, B)
    b = B.unsqueeze(-1) if vector else B
    n = A.shape[-1]
    if b.shape[-2] != n and left or (not left and b.shape[-1] != n):
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})"
        )
    if left:
        x = Solve.apply(A, b)
    else:
        x = _mT(Solve.apply(_mT(A), _mT(b)))
    return _write(x.squeeze(-1) if vector else x, out)


def linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with T X = B (X T = B if not left), T the upper or lower triangle of A. Mirrors
    torch.linalg.solve_triangular."""
    _check_matrix(A, "linalg.solve_triangular")
    if B.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    if left:
        x = SolveTriangular.apply(A, B, upper=upper, unitriangular=unitriangular)
    else:
        x = _mT(SolveTriangular.apply(_mT(A), _mT(B), upper=not upper, unitriangular=unitriangular))
    return _write(x, out)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(solution, cloned_coefficient) of op(A) X = b. Mirrors torch.triangular_solve."""
    _no_out(out, "triangular_solve")
    a = _mT(A) if transpose else A
    x = linalg_solve_triangular(a, b, upper=upper != transpose, unitriangular=unitriangular)
    return return_types.triangular_solve((x, A.clone()))


def linalg_cholesky(A, *, upper=False, out=None):
    """The Cholesky factor of a symmetric positive-definite matrix (its lower triangle read).
    Mirrors torch.linalg.cholesky."""
    _check_matrix(A, "linalg.cholesky")
    low = Cholesky.apply(A)
    return _write(_mT(low) if upper else low, out)


def linalg_cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info). Mirrors torch.linalg.cholesky_ex. Differences from torch: a matrix that is not
    positive-definite raises whatever check_errors says."""
    _no_out(out, "linalg.cholesky_ex")
    low = linalg_cholesky(A, upper=upper)
    xp = A._device.backend.xp
    info = _make(xp.zeros(A._data.shape[:-2], dtype="int32"), A._device, False, None)
    return return_types.linalg_cholesky_ex((low, info))


def cholesky(input, upper=False, *, out=None):
    """Mirrors torch.cholesky (deprecated in torch for linalg.cholesky)."""
    return linalg_cholesky(input, upper=upper, out=out)


def _factor_product(L, upper):
    """L L^T (U^T U when upper) from the factor's triangle. torch differentiates cholesky_solve
    and cholesky_inverse as if the whole factor entered; the other triangle gets that gradient
    here too, through a term of value zero."""
    t = L.triu() if upper else L.tril()
    if L.requires_grad:
        rest = L - L.detach()
        t = t + (rest.tril(-1) if upper else rest.triu(1))
    return _mT(t) @ t if upper else t @ _mT(t)


def cholesky_solve(B, L, upper=False, *, out=None):
    """X with (L L^T) X = B given the Cholesky factor L (U^T U when upper). Mirrors
    torch.cholesky_solve."""
    a = _factor_product(L, upper)
    return _write(Solve.apply(a, B), out)


def cholesky_inverse(L, upper=False, *, out=None):
    """(L L^T)^-1 from the Cholesky factor. Mirrors torch.cholesky_inverse."""
    return _write(Inv.apply(_factor_product(L, upper)), out)


def linalg_qr(A, mode="reduced", *, out=None):
    """(Q, R) with A = QR. Mirrors torch.linalg.qr."""
    _no_out(out, "linalg.qr")
    _check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    return return_types.linalg_qr(Qr.apply(A, mode=mode))


def qr(input, some=True, *, out=None):
    """Mirrors torch.qr (some=False: the complete factorisation)."""
    _no_out(out, "qr")
    q, r = Qr.apply(input, mode="reduced" if some else "complete")
    return return_types.qr((q, r))


def linalg_eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix, reading the UPLO
    triangle. Mirrors torch.linalg.eigh."""
    _no_out(out, "linalg.eigh")
    _check_matrix(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return return_types.linalg_eigh(Eigh.apply(A, uplo=UPLO))


def linalg_eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues of a symmetric matrix. Mirrors torch.linalg.eigvalsh."""
    _check_matrix(A, "linalg.eigvalsh")
    return _write(linalg_eigh(A, UPLO).eigenvalues, out)


def linalg_eig(A, *, out=None):
    """Eigen-decomposition of a general matrix. Differences from torch: complex tensors do not
    exist here, so this raises (torch returns complex eigenvalues)."""
    raise NotImplementedError(
        "linalg.eig: complex tensors are not supported by minitorch; use linalg.eigh for "
        "symmetric matrices"
    )


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh. Mirrors torch.linalg.svd."""
    _no_out(out, "linalg.svd")
    _check_matrix(A, "linalg.svd", square=False)
    return return_types.linalg_svd(Svd.apply(A, full_matrices=full_matrices))


def linalg_svdvals(A, *, driver=None, out=None):
    """Singular values, descending. Mirrors torch.linalg.svdvals."""
    _check_matrix(A, "linalg.svdvals", square=False)
    return _write(Svd.apply(A, full_matrices=False)[1], out)


def svd(input, some=True, compute_uv=True, *, out=None):
    """(U, S, V) (V, not V^T). Mirrors torch.svd."""
    _no_out(out, "svd")
    _check_matrix(input, "linalg.svd", square=False)
    if not compute_uv:
        s = linalg_svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        zeros = input.new_zeros
        return return_types.svd((zeros(batch + (m, m)), s, zeros(batch + (n, n))))
    u, s, vh = Svd.apply(input, full_matrices=not some)
    return return_types.svd((u, s, _mT(vh)))


def _eps(A) -> float:
    return float(A._device.backend.xp.finfo(A._data.dtype).eps)


def _default_rtol(A, atol, rtol):
    if rtol is not None:
        return rtol
    if atol is not None and not (isinstance(atol, (int, float)) and atol == 0):
        return 0.0
    return _eps(A) * max(A.shape[-2:])


def _tolerance(A, s, atol, rtol):
    """max(atol, rtol * largest singular value) per matrix (a Tensor, no gradient)."""
    rtol = _default_rtol(A, atol, rtol)
    smax = s.detach().amax(-1, keepdim=True) if s.shape[-1] else s.detach().sum(-1, keepdim=True)
    tol = smax * rtol
    if atol is not None:
        from minitorch._ops.pointwise import maximum

        a = atol if isinstance(atol, Tensor) else tol.new_full((), float(atol))
        tol = maximum(tol, a.unsqueeze(-1) if isinstance(atol, Tensor) else a)
    return tol


def linalg_pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse through the SVD. Mirrors torch.linalg.pinv."""
    from minitorch._ops.pointwise import where

    _check_matrix(A, "linalg.pinv", square=False)
    u, s, vh = Svd.apply(A, full_matrices=False)
    keep = s > _tolerance(A, s, atol, rtol)
    sinv = where(keep, 1 / where(keep, s, s.new_ones(())), s.new_zeros(()))
    return _write(_mT(vh) @ (sinv.unsqueeze(-1) * _mT(u)), out)


def pinverse(input, rcond=1e-15):
    """Mirrors torch.pinverse."""
    return linalg_pinv(input, rtol=rcond)


def linalg_matrix_power(A, n, *, out=None):
    """A to an integer power (negative: of the inverse). Mirrors torch.linalg.matrix_power."""
    _check_matrix(A, "linalg.matrix_power")
    if n == 0:
        return _write(_eye_like(A, A.shape[-1]).expand(A.shape).clone(), out)
    if n < 0:
        A, n = linalg_inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return _write(result, out)


def matrix_power(input, n):
    """Mirrors torch.matrix_power."""
    return linalg_matrix_power(input, n)


def linalg_matrix_exp(A):
    """exp of a batch of square matrices. Mirrors torch.linalg.matrix_exp. Differences from
    torch: one scaling for the whole batch, from its largest 1-norm, read to the host (on the
    GPU, one synchronisation)."""
    _check_matrix(A, "linalg.matrix_exp")
    return MatrixExp.apply(A)


def matrix_exp(input):
    """Mirrors torch.matrix_exp."""
    return linalg_matrix_exp(input)


def linalg_matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Number of singular values above the tolerance (int64). Mirrors torch.linalg.matrix_rank."""
    _check_matrix(A, "linalg.matrix_rank", square=False)
    s = linalg_svdvals(A.detach())
    return _write((s > _tolerance(A, s, atol, rtol)).sum(-1), out)


def linalg_cond(A, p=None, *, out=None):
    """Condition number in norm p (2 by default: the ratio of extreme singular values). Mirrors
    torch.linalg.cond."""
    from minitorch._ops.reduction_more import matrix_norm

    _check_matrix(A, "linalg.cond", square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = linalg_svdvals(A)
        big, small = s.narrow(-1, 0, 1).squeeze(-1), s.narrow(-1, -1, 1).squeeze(-1)
        return _write(big / small if p != -2 else small / big, out)
    return _write(matrix_norm(A, p) * matrix_norm(linalg_inv(A), p), out)


def linalg_lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of A X = B. Mirrors torch.linalg.lstsq (CPU drivers: residuals
    only with gelsd/gelss/gelsy... as torch: computed for m > n at full rank by every driver but
    the default gelsy; singular_values with gelsd/gelss). Differences from torch: the solution
    is computed through the pseudo-inverse."""
    _check_matrix(A, "linalg.lstsq", square=False)
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(
            "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    vector = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2:]
    rtol = rcond if rcond is not None and rcond > 0 else None
    if rtol is None:
        rtol = _eps(A) * max(m, n)
    x = linalg_pinv(A, rtol=rtol) @ b
    s = linalg_svdvals(A.detach())
    rank = (s > _tolerance(A, s, None, rtol)).sum(-1)
    empty = A.new_zeros((0,))
    residuals = empty
    full_rank = bool((rank == min(m, n)).all()) if rank.numel() else True
    if driver != "gelsy" and m > n and full_rank:
        residuals = ((A @ x - b) ** 2).sum(-2)
    if driver == "gels":
        rank = rank.new_zeros((0,))
    svals = s if driver in ("gelsd", "gelss") else empty
    x = x.squeeze(-1) if vector else x
    if vector and residuals.numel():
        residuals = residuals.squeeze(-1)
    return return_types.linalg_lstsq((x, residuals, rank, svals))


def linalg_lu_factor(A, *, pivot=True, out=None):
    """(LU, pivots) by partial pivoting. Mirrors torch.linalg.lu_factor. Differences from torch:
    forward only (the result never requires grad)."""
    _no_out(out, "linalg.lu_factor")
    _check_matrix(A, "linalg.lu_factor", square=False)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    xp = A._device.backend.xp
    lu, piv, _ = _lu_raw(xp, A._data)
    return return_types.linalg_lu_factor(
        (_make(lu, A._device, False, None), _make(piv, A._device, False, None))
    )


def _unpack_raw(xp, lu, piv):
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
    up = xp.triu(lu[..., :k, :])
    batch = lu.shape[:-2]
    perm = xp.broadcast_to(xp.arange(m), batch + (m,)).copy()
    flat_perm = perm.reshape((-1, m))
    flat_piv = piv.reshape((-1, k)).astype(xp.int64) - 1
    rows = xp.arange(flat_perm.shape[0])
    for j in range(k):
        p = flat_piv[:, j]
        pj = flat_perm[rows, j].copy()
        flat_perm[rows, j] = flat_perm[rows, p]
        flat_perm[rows, p] = pj
    # P with A = P L U: column j of P^T... P[perm[i], i] = 1
    eye = xp.eye(m, dtype=lu.dtype)
    pmat = xp.swapaxes(eye[flat_perm.reshape(batch + (m,))], -1, -2)
    return pmat, low, up


def linalg_lu(A, *, pivot=True, out=None):
    """(P, L, U) with A = P L U. Mirrors torch.linalg.lu. Differences from torch: forward only."""
    _no_out(out, "linalg.lu")
    _check_matrix(A, "linalg.lu", square=False)
    xp = A._device.backend.xp
    lu, piv, _ = _lu_raw(xp, A._data)
    p, low, up = _unpack_raw(xp, lu, piv)
    d = A._device
    return return_types.linalg_lu(
        (_make(p, d, False, None), _make(low, d, False, None), _make(up, d, False, None))
    )


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from lu_factor's output. Mirrors torch.lu_unpack (forward only)."""
    _no_out(out, "lu_unpack")
    xp = LU_data._device.backend.xp
    p, low, up = _unpack_raw(xp, LU_data._data, LU_pivots._data)
    d = LU_data._device
    return return_types.lu_unpack(
        (_make(p, d, False, None), _make(low, d, False, None), _make(up, d, False, None))
    )


def _no_out(out, op: str):
    if out is not None:
        raise NotImplementedError(f"{op}: out= is not supported for this multi-output op")


def _write(result, out):
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    return write_out(out, result)
