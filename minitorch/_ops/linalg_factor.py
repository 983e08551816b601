"""Matrix factorizations: cholesky, qr, eigh, svd, Householder products (geqrf/orgqr/ormqr)."""

from __future__ import annotations

import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, return_types
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    check_bool,
    check_tensors,
    on_host,
    quiet,
    type_name,
    wrong_type,
)
from minitorch._ops.linalg import _short
from minitorch._ops.linalg_solve import (
    _TRI_MASKED,
    LinAlgError,
    SolveTriangular,
    _batch_prefix,
    _check_castable,
    _check_matrix,
    _exact_out,
    _eye_like,
    _first_failure,
    _is_linalg_error,
    _mT,
    _out_tuple,
    _triangle_masks,
    _write,
    _write_castable,
    _write_exact,
)
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, fast_path, name_node
from minitorch.autograd.grad_mode import state as _grad_state

# fmt: off
__all__ = [
    "cholesky", "qr", "svd", "orgqr", "ormqr", "geqrf", "eig", "symeig", "solve", "lstsq",
    "matrix_rank",
]
# fmt: on


# --- Cholesky ---


def _not_pd(xp, x, op):
    """Raises torch's error naming the first leading minor that is not positive-definite."""
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    for index in range(flat.shape[0]):
        order = _failed_minor(xp, flat[index])
        if order:
            raise LinAlgError(
                f"{op}: {_batch_prefix(x.shape, index)}The factorization could not be "
                "completed because the input is not positive-definite (the leading minor of "
                f"order {order} is not positive-definite)."
            )


# NOTE [ Cholesky of an infinite pivot ]
# A +inf on the diagonal gives an infinite pivot, whose square root LAPACK accepts; what follows
# is IEEE arithmetic: the column below it divided by inf is 0, unless it holds an inf too
# (inf / inf: NaN, and the next pivot fails). NumPy's OpenBLAS factors past all of it (it even
# returns 0 for inf / inf), and an LU solve for the pivots would multiply 0 by inf, so such a
# matrix is factored here column by column (_unblocked_cholesky). torch's MKL (2.13, x86) also
# differs by kernel: its float32 routine for matrices up to 16 x 16 leaves NaN in the whole
# column below an infinite pivot (so the next pivot fails), while larger or float64 ones divide
# as IEEE does; followed here.
_MKL_SMALL_FLOAT32 = 16


def _inf_pivot(xp, m) -> bool:
    return bool(xp.isposinf(m.diagonal()).any())


def _unblocked_cholesky(xp, m):
    """(low, info) as LAPACK's unblocked lower Cholesky of the matrix m leaves them: on a pivot
    <= 0 or NaN it stops with the pivot on the diagonal and the columns after it as in m.
    See NOTE [ Cholesky of an infinite pivot ]. (An error path: reads the host.)"""
    n = m.shape[-1]
    low = xp.tril(m)
    poisons = str(m.dtype) == "float32" and n <= _MKL_SMALL_FLOAT32
    with quiet(xp, invalid="ignore"):  # inf - inf and inf / inf: NaN, as LAPACK computes
        for j in range(n):
            row = low[j, :j]
            pivot = low[j, j] - row @ row
            if not bool(pivot > 0):
                low[j, j] = pivot
                return low, j + 1
            low[j, j] = root = xp.sqrt(pivot)
            if poisons and bool(xp.isinf(root)):
                low[j + 1 :, j] = xp.nan
            else:
                low[j + 1 :, j] = (low[j + 1 :, j] - low[j + 1 :, :j] @ row) / root
    return low, 0


def _failed_minor(xp, m) -> int:
    """The order of the first leading minor of the matrix m that is not positive-definite (LAPACK's
    info), or 0. A NaN pivot fails as in LAPACK; OpenBLAS, under NumPy, only refuses pivots <= 0
    (and may even factor past a NaN), so the pivots are recomputed here: the Schur complement
    A_jj - |L_j,:j|^2 of the minor before. (An error path: reads the host.)"""
    if _inf_pivot(xp, m):
        return _unblocked_cholesky(xp, m)[1]
    prev = None
    for order in range(1, m.shape[-1] + 1):
        try:
            low = xp.linalg.cholesky(m[:order, :order])
        except Exception as e:
            if not _is_linalg_error(e):
                raise
            return order
        j = order - 1
        pivot = m[j, j]
        if j:
            row = xp.linalg.solve(prev, m[j, :j])
            pivot = pivot - (row * row).sum()
        if bool(xp.isnan(pivot)):
            return order
        prev = low
    return 0


def _nan_pivot(xp, x, low) -> bool:
    """Whether LAPACK would meet a NaN pivot factoring x, which NumPy's factor `low` may hide:
    a NaN in the triangle read, or a NaN or an inf on the factor's diagonal (the pivots' roots;
    see NOTE [ Cholesky of an infinite pivot ]). Reads the host: the CPU only (CuPy does not
    check pivots either)."""
    n = x.shape[-1]
    if n <= _TRI_MASKED and on_host(xp):  # the lower triangle's mask, kept (tril builds its own)
        nan = (xp.isnan(x) & _triangle_masks(n, False, False, x.dtype)[0]).any()
    else:
        nan = xp.isnan(xp.tril(x)).any()
    return bool(nan) or not bool(xp.isfinite(low.diagonal(0, -2, -1)).all())


def _partial_cholesky(xp, m, order: int):
    """What LAPACK's unblocked lower Cholesky leaves when it stops at the leading minor of `order`:
    the first order - 1 columns factored, the failing pivot (A_jj - |L_j,:j|^2) on the diagonal,
    the rest of the lower triangle as in m."""
    if _inf_pivot(xp, m):
        return _unblocked_cholesky(xp, m)[0]
    j = order - 1
    low = xp.tril(m)
    if j:
        lj = xp.linalg.cholesky(m[:j, :j])
        low[:j, :j] = lj
        low[j:, :j] = xp.linalg.solve(lj, m[j:, :j].T).T
    low[j, j] = m[j, j] - (low[j, :j] * low[j, :j]).sum()
    return low


def _cholesky_with_info(a: Tensor, upper: bool = False):
    """(L, info) for a batch where some matrix is not positive-definite: L in the graph as
    torch's, whose gradient is right for the factored matrices (for the others, the formula
    applied to LAPACK's partial factor: inf and nan)."""
    xp = a._device.backend.xp
    x = a._data
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    lows = xp.zeros_like(flat)
    infos = []
    for index in range(flat.shape[0]):
        order = _failed_minor(xp, flat[index])
        if order:
            lows[index] = _partial_cholesky(xp, flat[index], order)
        else:
            lows[index] = xp.linalg.cholesky(flat[index])
        infos.append(order)
    info = xp.asarray(infos, dtype="int32").reshape(x.shape[:-2])
    low = Cholesky.apply(a, low=lows.reshape(x.shape), upper=upper)
    return low, _make(info, a._device, False, None)


class Cholesky(Function):
    """L = cholesky(A) (lower triangle of A read; upper: L^T, one node as torch's);
    grad_A = sym(L^-T Phi(L^T grad) L^-1), Phi: the lower triangle with the diagonal halved"""

    _node_name = "LinalgCholeskyExBackward0"
    _saved_names = ("L",)  # grad_fn._saved_<name> (as torch's): the factor returned
    _saved_attrs = {"upper": "upper"}

    @staticmethod
    def forward(ctx, a, *, low=None, upper=False):
        xp = ctx.xp
        ctx.upper = upper
        if low is not None:  # cholesky_ex's factor of a batch with a failure: the graph only
            out = xp.swapaxes(low, -1, -2) if upper else low
            ctx.save_for_backward(out)
            return out
        try:
            out = xp.linalg.cholesky(a._data)
        except Exception as e:
            if _is_linalg_error(e):
                _not_pd(xp, a._data, "linalg.cholesky")
            raise
        if a._device.type == "cpu" and out.size and _nan_pivot(xp, a._data, out):  # no device read
            _not_pd(xp, a._data, "linalg.cholesky")
        if upper:
            out = xp.swapaxes(out, -1, -2)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (lo,) = ctx._stored_tensors
        if ctx.upper:
            lo, grad = _mT(lo), _mT(grad)
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
    _saved_names = ("Q", "R")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"mode": "mode"}

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
        q, r = ctx._stored_tensors
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


def _no_convergence(xp, x, kind):
    """Raises torch's LinAlgError for an eigh or svd that did not converge (NumPy's own text
    names neither the op nor the matrix), naming the first matrix with a non-finite entry.
    eigh's error code is LAPACK's info, which NumPy does not pass on: n - 1, what syevd reports
    for a matrix of NaNs. (An error path: reads the host.)"""
    n = x.shape[-1]
    bad = ~xp.isfinite(x.reshape((-1,) + x.shape[-2:])).all(axis=(-2, -1))
    index, _ = _first_failure(bad)
    prefix = _batch_prefix(x.shape, index or 0)
    if kind == "svd":
        raise LinAlgError(
            f"linalg.svd: {prefix}The algorithm failed to converge because the input matrix "
            "contained non-finite values."
        ) from None
    raise LinAlgError(
        f"linalg.eigh: {prefix}The algorithm failed to converge because the input matrix is "
        f"ill-conditioned or has too many repeated eigenvalues (error code: {max(n - 1, 1)})."
    ) from None


class Eigh(Function):
    """(w, V) = eigh(A);  grad_A = V (diag(grad_w) + skew(V^T grad_V) / E) V^T,
    E_ij = w_j - w_i (the diagonal set to one)"""

    _node_name = "LinalgEighBackward0"
    _saved_names = ("eigenvalues", "eigenvectors")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, *, uplo="L"):
        try:
            w, v = ctx.xp.linalg.eigh(a._data, UPLO=uplo)
        except Exception as e:
            if _is_linalg_error(e):
                _no_convergence(ctx.xp, a._data, "eigh")
            raise
        ctx.save_for_backward(w, v)
        ctx.set_materialize_grads(False)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        w, v = ctx._stored_tensors
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


def _svd_infinite(ctx, x, full_matrices):
    """NOTE [ SVD of an infinite entry ]: OpenBLAS's gesdd never returns for a matrix with an
    inf. torch's LAPACK gives NaN singular values (and arbitrary vectors) there, and fails on a
    NaN: so does this, with identity singular vectors (a CPU host check: one cheap pass)."""
    xp = ctx.xp
    if xp.isnan(x).any():
        _no_convergence(xp, x, "svd")
    m, n = x.shape[-2:]
    bad = ~xp.isfinite(x).all(axis=(-2, -1))
    u, s, vh = xp.linalg.svd(xp.where(bad[..., None, None], 0, x), full_matrices=full_matrices)
    s[bad] = xp.nan
    u[bad] = xp.eye(m, u.shape[-1], dtype=u.dtype)
    vh[bad] = xp.eye(vh.shape[-2], n, dtype=vh.dtype)
    ctx.save_for_backward(u, s, vh)
    ctx.set_materialize_grads(False)
    return u, s, vh


class Svd(Function):
    """(U, S, Vh) = svd(A);  grad_A by the standard formula (E_ij = S_j^2 - S_i^2), plus the
    terms for the complement of U (m > k) or of V (n > k)"""

    _node_name = "LinalgSvdBackward0"
    _saved_names = ("U", "S", "Vh")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"full_matrices": "full_matrices", "S_sym_argsize_minus_1": "k"}

    @staticmethod
    def forward(ctx, a, *, full_matrices=True):
        x = a._data
        ctx.full_matrices, ctx.k = full_matrices, min(x.shape[-2:])
        if a._device.type == "cpu" and x.size and not ctx.xp.isfinite(x).all():
            return _svd_infinite(ctx, x, full_matrices)
        try:
            u, s, vh = ctx.xp.linalg.svd(x, full_matrices=full_matrices)
        except Exception as e:
            if _is_linalg_error(e):
                _no_convergence(ctx.xp, a._data, "svd")
            raise
        ctx.save_for_backward(u, s, vh)
        ctx.set_materialize_grads(False)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        u, s, vh = ctx._stored_tensors
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


def linalg_cholesky(input, *, upper=False, out=None):
    """The Cholesky factor of a symmetric positive-definite matrix (its lower triangle read).
    Mirrors torch.linalg.cholesky."""
    A = input  # torch's keyword name
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_cholesky, _autocast.FP32_CPU, (A,), {"upper": upper, "out": out}
        )
    _check_cholesky(A, "linalg_cholesky", upper)
    return _write_exact(Cholesky.apply(A, upper=upper), out)


def _check_cholesky(A, parser: str, upper, check_errors=False) -> None:
    """torch's checks of linalg.cholesky's arguments, shared by cholesky_ex (its messages name
    linalg.cholesky too); `parser` names the op in the TypeError of a non-tensor or non-bool."""
    if not isinstance(A, Tensor):
        raise wrong_type(parser, A, "input", 1, "Tensor")
    if upper.__class__ is not bool or check_errors.__class__ is not bool:
        check_bool(parser, upper, "upper")
        check_bool(parser, check_errors, "check_errors")
    if not A.dtype.is_floating_point:  # its shape errors come before its dtype error
        _check_matrix(A, "linalg.cholesky", floating=False)
    _check_matrix(A, "linalg.cholesky")


@_exact_out
def linalg_cholesky_ex(input, *, upper=False, check_errors=False):
    """(L, info): info is 0, or the order of the first leading minor that is not
    positive-definite (then L holds LAPACK's partial factorization), unless check_errors
    raises. Mirrors torch.linalg.cholesky_ex."""
    A = input  # torch's keyword name
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_cholesky_ex,
            _autocast.FP32_CPU,
            (A,),
            {"upper": upper, "check_errors": check_errors},
        )
    _check_cholesky(A, "linalg_cholesky_ex", upper, check_errors)
    xp = A._device.backend.xp
    try:
        low = linalg_cholesky(A, upper=upper)
    except LinAlgError:
        if check_errors:
            _not_pd(xp, A._data, "linalg.cholesky_ex")
        return return_types.linalg_cholesky_ex(_cholesky_with_info(A, upper))
    info = _make(xp.zeros(A._data.shape[:-2], dtype="int32"), A._device, False, None)
    return return_types.linalg_cholesky_ex((low, info))


_QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
    "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\n"
    "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')"
)
_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs."
)


def _warn_deprecated(op: str, message: str) -> None:
    """torch's deprecation warning for torch.qr / torch.cholesky / torch.lu (and their methods):
    once per process per op, given before the input is checked, as torch's."""
    from minitorch._settings import warn_once

    warn_once(op, message)


def cholesky(input, upper=False, *, out=None):
    """Mirrors torch.cholesky (deprecated in torch for linalg.cholesky)."""
    check_tensors("cholesky", ("input", input))
    check_bool("cholesky", upper, "upper", 2)
    _warn_deprecated("cholesky", _CHOLESKY_DEPRECATED)
    if not isinstance(input, Tensor):
        raise TypeError(
            f"cholesky(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    _check_matrix(input, "cholesky", floating=False)
    if not input.dtype.is_floating_point:  # torch's kernel refuses it, unless it has no element
        if input._data.size == 0:
            return _write_castable(input.clone(), out, "cholesky")
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{_short(input.dtype)}'")
    try:
        low = linalg_cholesky(input, upper=upper)
    except LinAlgError as e:  # an error path: torch names this op in the message
        raise LinAlgError(str(e).replace("linalg.cholesky:", "cholesky:", 1)) from None
    # unlike linalg.cholesky, torch.cholesky casts into an out= of another dtype
    return _write_castable(low, out, "cholesky")


@_exact_out
def linalg_qr(A, mode="reduced"):
    """(Q, R) with A = QR. Mirrors torch.linalg.qr."""
    if mode.__class__ is not str:
        raise wrong_type("linalg_qr", mode, "mode", 2, "str")
    if _autocast.state.any_enabled:
        return _autocast.call(linalg_qr, _autocast.FP32_CPU, (A, mode), {})
    _check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    return return_types.linalg_qr(Qr.apply(A, mode=mode))


@_exact_out
def qr(input, some=True):
    """Mirrors torch.qr (some=False: the complete factorisation)."""
    check_tensors("qr", ("input", input))
    check_bool("qr", some, "some", 2)
    if _autocast.state.any_enabled:
        return _autocast.call(qr, _autocast.FP32_CPU, (input, some), {})
    _warn_deprecated("qr", _QR_DEPRECATED)
    _check_matrix(input, "linalg.qr", square=False)
    q, r = Qr.apply(input, mode="reduced" if some else "complete")
    return return_types.qr((q, r))


@_exact_out
def linalg_eigh(input, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix, reading the UPLO
    triangle. Mirrors torch.linalg.eigh.

    Differences from torch: each eigenvector's sign is the one NumPy's LAPACK returns, which may
    be the opposite of torch's (another LAPACK build) for the same matrix; numbers made from the
    vectors themselves (CMA-ES's samples z @ (B * D).T) differ in sign with them, while sign-free
    results (B @ diag(w) @ B.T, projections' squares) agree."""
    A = input  # torch's keyword name
    if UPLO.__class__ is not str:
        raise wrong_type("linalg_eigh", UPLO, "UPLO", 2, "str")
    if _autocast.state.any_enabled:
        return _autocast.call(linalg_eigh, _autocast.FP32_CPU, (A, UPLO), {})
    _check_matrix(A, "linalg.eigh")
    uplo = UPLO.upper()  # torch reads one letter in either case
    if uplo not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return return_types.linalg_eigh(Eigh.apply(A, uplo=uplo))


def linalg_eigvalsh(input, UPLO="L", *, out=None):
    """Eigenvalues of a symmetric matrix. Mirrors torch.linalg.eigvalsh."""
    A = input  # torch's keyword name
    if UPLO.__class__ is not str:
        raise wrong_type("linalg_eigvalsh", UPLO, "UPLO", 2, "str")
    if _autocast.state.any_enabled:  # (before the checks: half inputs are cast to float32)
        return _autocast.call(linalg_eigvalsh, _autocast.FP32_CPU, (A, UPLO), {"out": out})
    _check_matrix(A, "linalg.eigvalsh")
    return _write_exact(linalg_eigh(A, UPLO).eigenvalues, out)


def _check_eig(A, op):
    """torch's checks of linalg.eig's and linalg.eigvals's input, in its order (the complex
    dtype of the result, the rank, the shape), before minitorch refuses the complex result."""
    if isinstance(A, Tensor) and not A.dtype.is_floating_point:
        raise RuntimeError(f"Unknown Complex ScalarType for {_short(A.dtype)}")
    _check_matrix(A, op, floating=False)
    if A.dtype in _dtype.HALF_FLOATS:  # torch's LAPACK kernel has no half-precision variant
        raise NotImplementedError(
            f"\"linalg_eig_out_cpu\" not implemented for '{_short(A.dtype)}'"
        )


def linalg_eig(input, *, out=None):
    """Eigen-decomposition of a general matrix. Differences from torch: complex tensors do not
    exist here, so this raises (torch returns complex eigenvalues)."""
    _check_eig(input, "linalg.eig")
    raise NotImplementedError(
        "linalg.eig: complex tensors are not supported by minitorch; use linalg.eigh for "
        "symmetric matrices"
    )


@_exact_out
def linalg_svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) with A = U diag(S) Vh. Mirrors torch.linalg.svd.

    Differences from torch: each pair of singular vectors (a column of U with the row of Vh)
    has the sign NumPy's LAPACK gives, which may be the opposite of torch's (another LAPACK
    build: MKL in torch's CPU wheels). It differs most often for a wide A (m < n, factored
    through A = LQ first): on random matrices, most wide ones with n >= 11m/6 and about one in
    six tall ones had a flipped pair. S and sign-free results (U diag(S) Vh, U U^H, projections'
    squares) agree. A matrix with an infinite entry (no NaN) has NaN singular values, as in
    torch, and identity singular vectors (torch's are arbitrary there): NOTE [ SVD of an
    infinite entry ]."""
    check_tensors("linalg_svd", ("A", A))
    check_bool("linalg_svd", full_matrices, "full_matrices", 2)
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_svd, _autocast.FP32_CPU, (A, full_matrices), {"driver": driver}
        )
    _check_matrix(A, "linalg.svd", square=False)
    _check_svd_driver(A, driver)
    return return_types.linalg_svd(Svd.apply(A, full_matrices=full_matrices))


def _check_svd_driver(A, driver) -> None:
    """torch takes driver= (a cuSOLVER routine) on CUDA only, and checks it after the matrix
    checks and after an empty input has returned."""
    if driver is not None and A._device.type == "cpu" and A.numel() != 0:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
            "cuSOLVER backend."
        )


def linalg_svdvals(A, *, driver=None, out=None):
    """Singular values, descending. Mirrors torch.linalg.svdvals."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_svdvals, _autocast.FP32_CPU, (A,), {"driver": driver, "out": out}
        )
    _check_matrix(A, "linalg.svdvals", square=False)
    _check_svd_driver(A, driver)
    return _write_exact(Svd.apply(A, full_matrices=False)[1], out)


@_exact_out
def svd(input, some=True, compute_uv=True):
    """(U, S, V) (V, not V^T). Mirrors torch.svd.

    Differences from torch: the singular vectors' signs, as linalg_svd's."""
    check_tensors("svd", ("input", input))
    check_bool("svd", some, "some", 2)
    check_bool("svd", compute_uv, "compute_uv", 3)
    if _autocast.state.any_enabled:
        return _autocast.call(svd, _autocast.FP32_CPU, (input, some, compute_uv), {})
    if input.ndim < 2:  # torch.svd's own check, before linalg.svd's (and its dtype's)
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {input.ndim} "
            "dimensions instead"
        )
    _check_matrix(input, "linalg.svd", square=False)
    if not compute_uv:
        s = linalg_svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        zeros = input.new_zeros
        return return_types.svd((zeros(batch + (m, m)), s, zeros(batch + (n, n))))
    u, s, vh = Svd.apply(input, full_matrices=not some)
    return return_types.svd((u, s, _mT(vh)))


# --- Householder products, geqrf, removed functions ---


# NOTE [ Householder products without views ]
# _householder_q applies k reflectors with Tensor ops, three views of v and tau a reflector
# (narrow, unsqueeze, a transpose: a microsecond each), after two narrowed identities. Where
# nothing is recorded (plain CPU tensors, no gradient wanted, no profiler), those views are made
# as arrays (the same slices, strides and values) and wrapped without a node; the products and
# differences are the same Tensor ops on them, so the same kernels and bits. (No-grad
# householder_product of (4, 3): 83 -> 45 us.)


def _householder_q(V, tau, ncols):
    """The first ncols columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i the i-th column of
    V below the diagonal with a one on it (composed from Tensor ops, so differentiable)."""
    shape = V._data.shape
    m, n = shape[-2:]
    k = tau._data.shape[-1]
    if (  # nothing recorded: NOTE [ Householder products without views ]
        V.__class__ is Tensor
        and tau.__class__ is Tensor
        and V._device is _CPU
        and tau._device is _CPU
        and fast_path[0]
        and not ((V._requires_grad or tau._requires_grad) and _grad_state.enabled)
        and V._data.size
        and m * ncols
    ):
        xp = _CPU.backend.xp
        dt = V._data.dtype
        # the identities' narrowed views, as narrow's slices of them
        v = V.tril(-1) + _make(xp.eye(max(m, n), dtype=dt)[:m, :n], _CPU, False, None)
        q = _make(xp.eye(m, dtype=dt)[:, :ncols], _CPU, False, None)
        if len(shape) > 2:
            q = q.expand(shape[:-2] + (m, ncols))
        vd = v._data
        tcol = tau.unsqueeze(-1)._data  # (column i: narrow(-1, i, 1).unsqueeze(-1)'s strides)
        for i in reversed(range(k)):
            col = vd[..., i : i + 1]
            vi = _make(col, _CPU, False, None)
            t = _make(tcol[..., i : i + 1, :], _CPU, False, None)
            vit = _make(col.swapaxes(-1, -2), _CPU, False, None)
            q = q - (t * vi) @ (vit @ q)
        return q
    v = V.tril(-1) + _eye_like(V, max(m, n)).narrow(-2, 0, m).narrow(-1, 0, n)
    q = _eye_like(V, m).narrow(-1, 0, ncols)
    if len(shape) > 2:  # (the identity broadcast over the batch; a matrix's own shape: as it is)
        q = q.expand(shape[:-2] + (m, ncols))
    for i in reversed(range(k)):  # Q = H_1 (H_2 (... (H_k I)))
        vi = v.narrow(-1, i, 1)
        t = tau.narrow(-1, i, 1).unsqueeze(-1)
        q = q - (t * vi) @ (_mT(vi) @ q)
    return q


class _NoReflectors(Function):
    """out = a householder product nothing in which depends on A or tau (no reflector to apply,
    or no element);  grad_A = grad_tau = None. torch keeps such a product in the graph (it
    requires grad, backward runs) with a backward that gives no gradient: so does this node,
    where the composed product would be a constant (or give empty gradients)."""

    @staticmethod
    def forward(ctx, A, tau, *, q):
        return ctx.xp.array(q._data)  # a fresh array: q may be an expanded identity

    @staticmethod
    def backward(ctx, grad):
        return None, None


def _householder_product(A, tau):
    q = _householder_q(A, tau, A._data.shape[-1])
    if tau._data.shape[-1] == 0 or q._data.size == 0:
        q = _NoReflectors.apply(A, tau, q=q)
    return name_node(q, "LinalgHouseholderProductBackward0")


def _not_floating(x, kernel):
    """torch's LAPACK kernels take float32 and float64 (and complex) only: not half, not ints."""
    if not x.dtype.is_floating_point or x.dtype in _dtype.HALF_FLOATS:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_dtype.scalar_name(x.dtype)}'"
        )


def _check_householder(A, tau, op):
    sa, st = A._data.shape, tau._data.shape  # (tuples: read once)
    if len(sa) < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if sa[-2] < sa[-1]:
        raise RuntimeError(
            f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if not st:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if sa[-1] < st[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if len(st) != len(sa) - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {len(st)} and input.ndim is equal to {len(sa)}"
        )
    if st[:-1] != sa[:-2]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(st[:-1])}"
        )
    if tau.dtype is not A.dtype:
        raise RuntimeError(
            f"{op}: tau dtype {_short(tau.dtype)} does not match input dtype {_short(A.dtype)}"
        )
    _not_floating(A, "orgqr_cpu")  # (torch's kernel, after every shape check)


def linalg_householder_product(input, tau, *, out=None):
    """The first n columns of the product of Householder reflectors stored as in geqrf.
    Mirrors torch.linalg.householder_product."""
    A = input  # torch's keyword name
    check_tensors("linalg_householder_product", ("input", A), ("tau", tau))
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_householder_product, _autocast.FP32_CPU, (A, tau), {"out": out}
        )
    _check_householder(A, tau, "torch.linalg.householder_product")
    return _write_castable(_householder_product(A, tau), out, "torch.linalg.householder_product")


def orgqr(input, input2, *, out=None):
    """Mirrors torch.orgqr (linalg.householder_product)."""
    tau = input2  # torch's keyword name for the reflector scales
    check_tensors("orgqr", ("input", input), ("input2", tau))  # (a slow op: checked up front)
    if _autocast.state.any_enabled:
        return _autocast.call(orgqr, _autocast.FP32_CPU, (input, tau), {"out": out})
    _check_householder(input, tau, "torch.linalg.householder_product")  # (torch's words)
    # (an out= refused in linalg.householder_product's name: torch's one kernel)
    q = _householder_product(input, tau)
    return _write_castable(q, out, "torch.linalg.householder_product")


def _check_ormqr(input, tau, other, left):
    """torch.ormqr's checks, in its order: dims, the sizes, the batches, the dtypes."""
    op = "torch.ormqr"
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{op}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(
            f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal "
            f"to {tau.ndim} and input.ndim is equal to {input.ndim}"
        )
    if other.ndim != input.ndim:
        raise RuntimeError(
            f"{op}: Expected other to have the same number of dimensions as input, but got "
            f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}"
        )
    batch = tuple(input.shape[:-2])
    for name, t in (("tau", tau), ("other", other)):
        got = tuple(t.shape[: input.ndim - 2])
        if got != batch:
            raise RuntimeError(
                f"{op}: Expected batch dimensions of {name} to be equal to input.shape[:-2], "
                f"but got {list(got)}"
            )
    for name, t in (("tau", tau), ("other", other)):
        if t.dtype is not input.dtype:
            raise RuntimeError(
                f"{op}: Expected input and {name} to have the same dtype, but input has dtype"
                f"{_dtype.scalar_name(input.dtype)} and {name} has dtype "
                f"{_dtype.scalar_name(t.dtype)}"
            )
    _not_floating(input, "ormqr_cpu")


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    """op(Q) @ other (other @ op(Q) if not left), Q the full product of the reflectors of
    geqrf (tau = input2, other = input3: torch's keyword names). Mirrors torch.ormqr."""
    tau, other = input2, input3
    check_tensors("ormqr", ("input", input), ("input2", tau), ("input3", other))
    if _autocast.state.any_enabled:
        return _autocast.call(
            ormqr, _autocast.FP32_CPU, (input, tau, other, left, transpose), {"out": out}
        )
    _check_ormqr(input, tau, other, left)
    q = _householder_q(input, tau, input.shape[-2])
    if transpose:
        q = _mT(q)
    if isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(
            "torch.ormqr: Expected input and result to have the same dtype, but input has dtype"
            f"{_dtype.scalar_name(input.dtype)} and result has dtype "
            f"{_dtype.scalar_name(out.dtype)}"
        )
    return _write(name_node(q @ other if left else other @ q, "OrmqrBackward0"), out)


def geqrf(input, *, out=None):
    """(a, tau): the Householder QR of LAPACK's geqrf (R above the diagonal, the reflectors
    below). Mirrors torch.geqrf (which has no derivative either)."""
    if out is not None and isinstance(input, Tensor) and input._requires_grad:
        from minitorch._ops.inplace import refuse_out_autograd

        refuse_out_autograd("geqrf", input)  # torch's out= check comes before the derivative's
    result = _geqrf(input)
    if out is None:
        return result
    _out_tuple(out, 2, "geqrf")
    for o, r, name in zip(out, result, ("a", "tau"), strict=True):
        _check_castable(r.dtype, o, "torch.geqrf", name)
    for o, r in zip(out, result, strict=True):
        _write(r, o)
    return return_types.geqrf_out(tuple(out))


def _geqrf(input):
    if _autocast.state.any_enabled:
        return _autocast.call(_geqrf, _autocast.FP32_CPU, (input,), {})
    if isinstance(input, Tensor) and input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if isinstance(input, Tensor):
        _not_floating(input, "geqrf_cpu")
    _check_matrix(input, "geqrf", square=False)
    xp = input._device.backend.xp
    x = input._data
    m, n = x.shape[-2:]
    flat = x.reshape((math.prod(x.shape[:-2]), m, n))  # (-1 is ambiguous when empty)
    hs, taus = [], []
    for mat in flat:  # numpy's raw QR is not batched
        h, tau = xp.linalg.qr(mat, mode="raw")
        hs.append(xp.swapaxes(h, -1, -2))
        taus.append(tau)
    k = min(m, n)
    a = xp.stack(hs).reshape(x.shape) if hs else x.copy()
    t = (
        xp.stack(taus).reshape(x.shape[:-2] + (k,))
        if taus
        else xp.zeros(x.shape[:-2] + (k,), dtype=x.dtype)
    )
    a, t = a.astype(x.dtype), t.astype(x.dtype)
    if input._requires_grad:
        from minitorch.autograd.grad_mode import is_grad_enabled

        if is_grad_enabled():  # torch records GeqrfBackward0, which raises when reached
            return return_types.geqrf(Geqrf.apply(input, a=a, tau=t))
    d = input._device
    return return_types.geqrf((_make(a, d, False, None), _make(t, d, False, None)))


class Geqrf(Function):
    """(a, tau) = geqrf(A), computed outside autograd;  no derivative: the outputs require grad
    as torch's do, and backward raises torch's NotImplementedError"""

    @staticmethod
    def forward(ctx, x, *, a, tau):
        return a, tau

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def linalg_eigvals(input, *, out=None):
    """Eigenvalues of a general matrix. Differences from torch: complex tensors do not exist
    here, so this raises (torch returns complex eigenvalues)."""
    _check_eig(input, "linalg.eigvals")
    raise NotImplementedError(
        "linalg.eigvals: complex tensors are not supported by minitorch; use linalg.eigvalsh "
        "for symmetric matrices"
    )


_REMOVED = {
    "eig": "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
    "than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced "
    "with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
    "eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)",
    "symeig": "The default behavior has changed from using the upper triangular portion of the "
    "matrix by default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, "
    "upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper "
    "else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` "
    "has its arguments reversed and does not return the LU factorization.\n\nTo get the LU "
    "factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
    "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX = "
    "torch.linalg.solve(A, B)",
    "lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` "
    "has reversed arguments and does not return the QR decomposition in the returned tuple "
    "(although it returns other information about the problem).\n\nTo get the QR "
    "decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` "
    "stored the residuals of the solution in the last m - n columns of the returned value "
    "whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the "
    "returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A)."
    "solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    "matrix_rank": "\nPlease use the `torch.linalg.matrix_rank` function instead. The "
    "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
}


def _removed(name):
    def fn(*args, **kwargs):
        raise RuntimeError(
            "This function was deprecated since version 1.9 and is now removed."
            + ("" if _REMOVED[name].startswith("\n") else " ")
            + _REMOVED[name]
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Removed from torch in 1.9: raises torch's RuntimeError. Mirrors torch.{name}."
    return fn


eig = _removed("eig")
symeig = _removed("symeig")
solve = _removed("solve")
lstsq = _removed("lstsq")
matrix_rank = _removed("matrix_rank")
