"""Matrix functions built on the factorizations: matrix_exp, matrix_power, pinv, matrix_rank,
cond, lstsq."""

from __future__ import annotations

import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, return_types
from minitorch._arg_errors import missing_positional, too_many_positional
from minitorch._ops._common import (
    broadcast_pair,
    check_float,
    check_int,
    check_tensors,
    not_tensor,
    opmath_dtype,
    wrong_type,
)
from minitorch._ops.linalg import _short
from minitorch._ops.linalg_factor import Svd, _cat, linalg_svdvals
from minitorch._ops.linalg_solve import (
    LinAlgError,
    _batch_prefix,
    _check_castable,
    _check_matrix,
    _eye_like,
    _lu_raw,
    _mT,
    _out_tuple,
    _write,
    _write_castable,
    _write_exact,
    linalg_inv,
)
from minitorch._ops.reduction import _MISSING
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import Function, name_node

__all__ = ["pinverse", "matrix_power", "matrix_exp"]


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
    if opmath_dtype(x.dtype) or x.dtype == xp.float32:
        # float32 (and half: NumPy's solve refuses float16, and the Padé terms overflow it) in
        # float64, rounded once: nearer torch's float32 result than a float32 Padé on about 2
        # elements in 3 where they differ (random and OpInfo-like samples), and within 6e-8 of
        # the exact result where the float32 Padé strayed 1.5e-5
        return _expm_raw(xp, x.astype("float64")).astype(x.dtype)
    # One scaling for the whole batch, from its largest 1-norm (reads one number to the host).
    norm = float(xp.abs(x).sum(axis=-2).max())
    s = 0
    if norm > _THETA13 and norm != float("inf"):  # (nan and inf give nan, as in torch)
        s = math.ceil(math.log2(norm / _THETA13))  # on the host: no second device round trip
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
        (a,) = ctx._stored_tensors
        n = a.shape[-1]
        at = _mT(a)
        top = _cat(at, grad)
        bottom = _cat(at.new_zeros(at.shape), at)
        from minitorch._ops.shape_join import cat

        big = MatrixExp.apply(cat([top, bottom], -2))
        return big.narrow(-2, 0, n).narrow(-1, n, n)


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
    # a tensor tolerance holds one value per matrix of the batch: line it up with smax's (..., 1)
    tol = smax * (rtol.unsqueeze(-1) if isinstance(rtol, Tensor) else rtol)
    if atol is not None:
        from minitorch._ops.pointwise import maximum

        a = atol if isinstance(atol, Tensor) else tol.new_full((), float(atol))
        tol = maximum(tol, a.unsqueeze(-1) if isinstance(atol, Tensor) else a)
    return tol


class Pinv(Function):
    """P = pinv(A) (computed by the caller, passed in as an array);  grad_A by the derivative of
    the pseudo-inverse itself (Golub & Pereyra 1973), the adjoint of
    dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P:
    grad_A = -P^H G P^H + (I - A P) G^H P P^H + P^H P G^H (I - P A).
    Unlike a backward through the SVD it has no 1 / (s_i^2 - s_j^2) terms, so it stays finite
    where singular values repeat (identity, orthogonal matrices, [[1, 0, 0], [0, 1, 0]])."""

    _node_name = "LinalgPinvBackward0"
    _saved_names = ("self", "result")  # grad_fn._saved_self, _saved_result (as torch's)

    @staticmethod
    def forward(ctx, a, *, pinv):
        ctx.save_for_backward(a, pinv)
        return pinv

    @staticmethod
    def backward(ctx, grad):
        a, p = ctx._stored_tensors
        ph, gh = p.mH, grad.mH
        # the products grouped so that no m x m or n x n identity is formed
        x = gh @ (p @ ph)  # G^H P P^H  (m x n)
        y = (ph @ p) @ gh  # P^H P G^H  (m x n)
        return -(ph @ grad @ ph) + (x - a @ (p @ x)) + (y - (y @ p) @ a)


def _plain_tolerances(A, legacy, hermitian, atol, rtol) -> bool:
    """Whether pinv's / matrix_rank's arguments are the common well-typed call (a tensor, a bool
    hermitian, number-or-None tolerances, the legacy rcond/tol float alone); else
    _check_tolerance_args looks closer and raises torch's listing where one is wrong."""
    return (
        hermitian.__class__ is bool
        and (legacy is None or (legacy.__class__ is float and atol is None and rtol is None))
        and isinstance(A, Tensor)
        and atol.__class__ in _PLAIN_TOLERANCES
        and rtol.__class__ in _PLAIN_TOLERANCES
    )


def linalg_pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Moore-Penrose pseudo-inverse through the SVD. Mirrors torch.linalg.pinv (rcond: torch's
    older overload, rtol with atol = 0). hermitian=True reads A's lower triangle, as torch;
    the SVD of that Hermitian matrix serves as its eigendecomposition."""
    A = input
    if not _plain_tolerances(A, rcond, hermitian, atol, rtol):
        _check_tolerance_args("linalg_pinv", "rcond", A, rcond, hermitian, atol, rtol)
    if rcond is not None:
        atol, rtol = 0.0, rcond
    _check_matrix(A, "linalg.pinv", square=False)
    if hermitian:
        _check_matrix(A, "linalg.eigh")
    return _write_castable(_pinv(A, atol, rtol, hermitian)[0], out, "linalg.pinv")


def _pinv(A, atol, rtol, hermitian=False):
    """(pinv(A), A's singular values, which of them are kept): the value through the SVD, the
    gradient through Pinv's own formula (see Pinv). lstsq reads its rank from the same SVD."""
    from minitorch._ops.pointwise import where
    from minitorch.autograd.grad_mode import no_grad

    with no_grad():
        a = _from_lower(A.detach()) if hermitian else A.detach()
        u, s, vh = Svd.apply(a, full_matrices=False)
        keep = s > _tolerance(A, s, atol, rtol)
        sinv = where(keep, 1 / where(keep, s, s.new_ones(())), s.new_zeros(()))
        if not hermitian:  # NaN singular values (an inf entry) give NaN, as torch's
            sinv = where(s.isnan(), s, sinv)
        p = _mT(vh) @ (sinv.unsqueeze(-1) * _mT(u))
    return Pinv.apply(A, pinv=p._data), s, keep


def _from_lower(A):
    """The symmetric matrix A's lower triangle describes: torch's hermitian=True paths go
    through eigh, which reads only that triangle."""
    return A.tril() + A.tril(-1).mT


_PLAIN_TOLERANCES = (type(None), float)  # an atol/rtol of another class is checked


def _check_tolerance_args(op, name, A, tol, hermitian, atol=None, rtol=None):
    """torch's TypeError when no overload of pinv/matrix_rank takes the arguments: A not a
    tensor, a tolerance neither a float nor a tensor, a hermitian not a bool, or the old
    tolerance (rcond/tol) given with atol/rtol."""
    from minitorch._ops._common import check_float

    try:
        if not isinstance(A, Tensor):
            raise TypeError
        if tol is not None and not isinstance(tol, Tensor):
            check_float(op, tol, name)
        for v, n in ((atol, "atol"), (rtol, "rtol")):
            if v is not None and not isinstance(v, Tensor):
                check_float(op, v, n)
        legacy_and_new = tol is not None and (atol is not None or rtol is not None)
        if hermitian.__class__ is not bool or legacy_and_new:
            raise TypeError
    except TypeError:
        from minitorch._call_site import call_arguments, passed_by_keyword
        from minitorch._ops._parser_errors import overload_error

        kw = "atol = None, {0} rtol = None, bool hermitian = False, Tensor out = None"
        sigs = [f"Tensor input, *, {k} " + kw.format(k) for k in ("Tensor", "float")]
        sigs += [
            f"Tensor input, {k} {name}, bool hermitian = False, *, Tensor out = None"
            for k in ("Tensor", "float")
        ]
        named = [("input", A)] + [(name, tol)] * (tol is not None)
        called = call_arguments(op)
        if hermitian is not False or passed_by_keyword("hermitian", op) or (called or [0])[0] > 2:
            named.append(("hermitian", hermitian))
        named += [(k, v) for k, v in (("atol", atol), ("rtol", rtol)) if v is not None]
        raise overload_error(op, sigs, sigs, named) from None


def pinverse(input, rcond=1e-15):
    """Mirrors torch.pinverse."""
    if not isinstance(input, Tensor):
        raise not_tensor("pinverse", input)
    if rcond.__class__ is not float:
        rcond = check_float("pinverse", rcond, "rcond", 2)
    if _autocast.state.any_enabled:
        return _autocast.call(pinverse, _autocast.FP32_CPU, (input, rcond))
    return linalg_pinv(input, rtol=rcond)


def linalg_matrix_power(input=_MISSING, n=_MISSING, *extra, out=None):
    """A = input (torch's keyword name) to an integer power (negative: of the inverse). Mirrors
    torch.linalg.matrix_power."""
    A = input
    if n.__class__ is not int or A is _MISSING or extra or not _I64_MIN <= n <= _I64_MAX:
        _check_power_args("linalg_matrix_power", A, n, extra)
        n = check_int("linalg_matrix_power", n, "n", 2)
        if not _I64_MIN <= n <= _I64_MAX:  # torch reads n as an int64
            raise ValueError("Overflow when unpacking long long")
    # integer and bool matrices are fine for n >= 0 (matmul decides which dtypes it takes)
    _check_matrix(A, "linalg.matrix_power", floating=False)
    if n < 0:  # (torch's inv refuses the dtype, in its own words)
        _check_matrix(A, "linalg.inv")
    if out is not None:  # (an unsafe cast refused by name; a product also refuses other floats)
        _check_castable(A.dtype, out, "matrix_power")
        if n in (0, 1):  # torch's kernel copies the identity or A into out (a graph for A)
            from minitorch._ops.inplace import copy_out

            value = A if n == 1 else _eye_like(A, A.shape[-1]).expand(A.shape)
            return copy_out(out, value, "linalg_matrix_power")
    if n == 0:
        # written over a copy of A, as torch: the identity stays in A's graph with a zero gradient
        eye = _eye_like(A, A.shape[-1]).expand(A.shape)
        if not A.requires_grad:
            if A.__class__ is not Tensor and dispatching(A):  # NOTE [ Tensor subclasses ]
                return run_converted(linalg_matrix_power, (A, n), {"out": out})
            return _write(eye.clone(), out)
        return _write(A.clone().copy_(eye), out)
    if n == -1:  # torch's linalg.inv into out (its dtype refused before the factorization)
        return linalg_inv(A, out=out)
    write = _write if n == 1 else _write_exact  # a product refuses another out dtype; A casts
    if n < 0:
        A, n = linalg_inv(A), -n
    if out is not None:  # torch multiplies by matmul(out=), which names itself
        from minitorch._ops.inplace import refuse_out_autograd

        refuse_out_autograd("matmul", A, out)
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    if result is input:  # n == 1: a copy, as torch (never the input itself)
        result = A.clone()
    return write(result, out)


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _check_power_args(op, A, n, extra):
    """torch's parser errors for a matrix power called with too many positional arguments, or
    without its input or n (it names the first one left out and every one after it)."""
    if extra:
        raise too_many_positional(op, 2 + len(extra), 2)
    if A is _MISSING:
        raise missing_positional(op, "input", "n")
    if n is _MISSING:
        raise missing_positional(op, "n")


def matrix_power(input=_MISSING, n=_MISSING, *extra, out=None):
    """Mirrors torch.matrix_power."""
    if input is _MISSING or n is _MISSING or extra:
        _check_power_args("matrix_power", input, n, extra)
    if not isinstance(input, Tensor):
        raise not_tensor("matrix_power", input)
    if n.__class__ is not int:
        n = check_int("matrix_power", n, "n", 2)
    return linalg_matrix_power(input, n, out=out)


def linalg_matrix_exp(input=_MISSING, *extra):
    """exp of a batch of square matrices. Mirrors torch.linalg.matrix_exp. Differences from
    torch: one scaling for the whole batch, from its largest 1-norm, read to the host (on the
    GPU, one synchronisation)."""
    A = input  # torch's keyword name
    if A is _MISSING or extra:  # torch's parser errors
        if extra:
            raise too_many_positional("linalg_matrix_exp", 1 + len(extra), 1)
        raise missing_positional("linalg_matrix_exp", "input")
    _check_matrix(A, "linalg.matrix_exp")
    return MatrixExp.apply(A)


def matrix_exp(input=_MISSING, *extra):
    """Mirrors torch.matrix_exp."""
    if input is _MISSING or extra:  # torch's parser errors
        if extra:
            raise too_many_positional("matrix_exp", 1 + len(extra), 1)
        raise missing_positional("matrix_exp", "input")
    if not isinstance(input, Tensor):
        raise not_tensor("matrix_exp", input)
    return linalg_matrix_exp(input)


def linalg_matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Number of singular values above the tolerance (int64). Mirrors torch.linalg.matrix_rank
    (tol: torch's older overload, atol with rtol = 0)."""
    A = input
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_matrix_rank,
            _autocast.FP32_CPU,
            (A, tol, hermitian),
            {"atol": atol, "rtol": rtol, "out": out},
        )
    if not _plain_tolerances(A, tol, hermitian, atol, rtol):
        _check_tolerance_args("linalg_matrix_rank", "tol", A, tol, hermitian, atol, rtol)
    if tol is not None:
        atol, rtol = tol, 0.0
    _check_matrix(A, "linalg.matrix_rank", square=False)
    if hermitian:
        _check_matrix(A, "linalg.eigh")
    s = linalg_svdvals(_from_lower(A.detach()) if hermitian else A.detach())
    rank = (s > _tolerance(A, s, atol, rtol)).sum(-1)
    return _write_castable(rank, out, "torch.linalg.matrix_rank")


def linalg_cond(input, p=None, *, out=None):
    """Condition number in norm p (2 by default: the ratio of extreme singular values). Mirrors
    torch.linalg.cond. Differences from torch: with p = 'nuc' a singular matrix gives inf (torch
    gives whatever its SVD makes of the non-finite inverse: a huge number or nan)."""
    A = input  # torch's keyword name
    if _autocast.state.any_enabled:
        return _autocast.call(linalg_cond, _autocast.FP32_CPU, (A, p), {"out": out})
    from minitorch._ops.reduction_more import matrix_norm

    if p in (None, 2, -2):
        _check_matrix(A, "linalg.cond", square=False)  # (svd's words for the dtype)
    else:  # torch names the order in the shape checks, and inv in the dtype's
        if not isinstance(p, str):
            _check_matrix(A, "linalg.cond", square=False, floating=False)
            _check_cond_order(p)
        _check_matrix(A, f"linalg.cond(ord={p})", floating=False)
        _check_cond_order(p)
        _check_matrix(A, "linalg.inv")
    if p in (None, 2, -2):
        s = linalg_svdvals(A)
        if not s.shape[-1]:  # empty matrices: torch's 0
            return _write_castable(s.sum(-1), out, "linalg.cond")
        big, small = s.narrow(-1, 0, 1), s.narrow(-1, -1, 1)  # (torch's nodes: a squeezed ratio)
        r = (big / small if p != -2 else small / big).squeeze(-1)
        return _write_castable(r, out, "linalg.cond")
    try:
        r = matrix_norm(A, p) * matrix_norm(linalg_inv(A), p)
        if p != "nuc":  # torch's last op: a NaN (a NaN matrix's, 0 * inf) reads as inf
            r = _cond_nan_to_inf(r)
        return _write_castable(r, out, "linalg.cond")
    except LinAlgError:  # an error path (NumPy read the pivots): some matrix is singular
        pass
    # torch's cond of a singular matrix is inf: invert the others, with identities in its place
    from minitorch._ops.pointwise import where

    xp = A._device.backend.xp
    singular = _make(_lu_raw(xp, A._data)[2] > 0, A._device, False, None)
    safe = where(singular.unsqueeze(-1).unsqueeze(-1), _eye_like(A, A.shape[-1]), A)
    r = matrix_norm(A, p) * matrix_norm(linalg_inv(safe), p)
    r = where(singular, r.new_full((), float("inf")), r)
    r = name_node(r, "MulBackward0") if p == "nuc" else _cond_nan_to_inf(r)
    return _write_castable(r, out, "linalg.cond")


def _cond_nan_to_inf(r):
    """torch's cond in the orders it computes through the inverse ends in nan_to_num(nan=inf,
    posinf=inf, neginf=-inf)."""
    from minitorch._ops.pointwise_binary import nan_to_num

    inf = float("inf")
    return nan_to_num(r, nan=inf, posinf=inf, neginf=-inf)


def _check_cond_order(p):
    """torch's error for an order linalg.cond does not know (printed as C++ prints a double)."""
    if p not in (1, -1, float("inf"), float("-inf"), "fro", "nuc"):
        shown = f"{p:g}" if isinstance(p, float) else p
        raise RuntimeError(f"linalg.cond got an invalid norm type: {shown}")


def _gels(A, b):
    """(X, residuals) as LAPACK's gels: a plain QR solve (LQ where m < n, the minimum-norm
    solution) that assumes full rank (no rank detection, no rcond). Residuals for m > n: the
    squares of Q^T b's trailing m - n rows (gels's own), with the gradient of |A X - b|^2.
    On the CPU, as LAPACK's: a zero on R's diagonal raises, an all-zero A gives X = 0."""
    from minitorch._ops.linalg_factor import linalg_qr
    from minitorch._ops.linalg_solve import linalg_solve_triangular
    from minitorch.autograd.grad_mode import is_grad_enabled

    m, n = A.shape[-2:]
    grad = is_grad_enabled() and (A.requires_grad or b.requires_grad)
    batch = _common_batch(A.shape[:-2], b.shape[:-2])
    if m > n and batch is not None:
        # R of [A | b] (NOTE [ lstsq by QR ]): R and Q^T b above, b's part outside A's column
        # space below it, in norm (Householder reflections keep it): no m x m Q
        xp = A._device.backend.xp
        a = xp.broadcast_to(A._data, batch + (m, n))
        ab = xp.concatenate([a, xp.broadcast_to(b._data, batch + b.shape[-2:])], -1)
        rc = xp.linalg.qr(ab, mode="r")
        tail = rc[..., n:, n:]
        # (torch's gels leaves them 0 for an A without columns)
        value = _make((tail * tail).sum(-2) if n else tail.sum(-2) * 0, A._device, False, None)
        null = _gels_rank_check(A, rc[..., :n, :n])
        if null is not None:
            value = value.masked_fill(null.unsqueeze(-1), 0.0)
        elif not grad:
            r, c = (_make(v, A._device, False, None) for v in (rc[..., :n, :n], rc[..., :n, n:]))
            return linalg_solve_triangular(r, c, upper=True), value
    else:
        null = None
    q, r = linalg_qr(A if m >= n else _mT(A))
    if null is None:
        null = _gels_rank_check(A, r._data)
    if null is not None:
        # an all-zero A is solved as the identity (finite gradients), its X then set to 0
        A = _gels_identity(A, null)
        q, r = linalg_qr(A if m >= n else _mT(A))
    if m >= n:
        x = linalg_solve_triangular(r, _mT(q) @ b, upper=True)
    else:  # A^T = Q R: A = R^T Q^T, X = Q R^-T b
        x = q @ linalg_solve_triangular(_mT(r), b, upper=False)
    if null is not None:
        x = x.masked_fill(null.unsqueeze(-1).unsqueeze(-1), 0.0)
    if m <= n or batch is None:  # (a batch mismatch: the product above raised torch's error)
        return x, A.new_zeros((0,))
    if not grad:
        return x, value
    fit = ((A @ x - b) ** 2).sum(-2)
    return x, fit + (value - fit).detach()


def _gels_rank_check(A, r):
    """LAPACK's gels (torch's CPU driver) on R, A's triangular factor (raw): it raises naming the
    first zero on R's diagonal, except for an all-zero A, which it answers with X = 0; returns
    the mask of those (a Tensor), or None where there is none. An error path read on the host,
    so on the CPU only (torch's CUDA gels checks nothing)."""
    if A._device.type != "cpu":
        return None
    xp = A._device.backend.xp
    zero = xp.diagonal(r, axis1=-2, axis2=-1) == 0
    if not zero.any():
        return None
    null = xp.broadcast_to((A._data == 0).all(axis=(-2, -1)), zero.shape[:-1])
    bad = (zero.any(-1) & ~null).reshape(-1)
    if bad.any():
        index = int(xp.argmax(bad))
        code = int(xp.argmax(zero.reshape(-1, zero.shape[-1])[index])) + 1
        raise LinAlgError(
            f"torch.linalg.lstsq: {_batch_prefix(r.shape, index)}The least squares solution "
            "could not be computed because the input matrix does not have full rank (error "
            f"code: {code})."
        )
    return _make(xp.array(null), A._device, False, None)


def _gels_identity(A, null):
    """A with its matrices under the mask null replaced by the (rectangular) identity."""
    from minitorch._ops.pointwise import where

    m, n = A.shape[-2:]
    eye = _make(A._device.backend.xp.eye(m, n, dtype=A._data.dtype), A._device, False, None)
    return where(null.unsqueeze(-1).unsqueeze(-1), eye, A)


def _common_batch(a, b):
    """The batch shape a and b broadcast to, or None where they do not."""
    if len(a) != len(b) or any(i != j and 1 not in (i, j) for i, j in zip(a, b, strict=True)):
        return None
    return tuple(i if j == 1 else j for i, j in zip(a, b, strict=True))


def _lstsq_vector(A, B):
    """torch's test for a B of vectors: one dim, or exactly A's shape without its last dim."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


def _check_lstsq(A, B, driver):
    """torch's lstsq checks, in its order (B a vector when it has one dim fewer than A; the
    driver's name before the dtype's support)."""
    op = "torch.linalg.lstsq"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{op}: other must have at least 1 dimension.")
    if A.dtype is not B.dtype:
        raise RuntimeError(
            f"{op}: Expected input and other to have the same dtype, but got input's dtype "
            f"{_short(A.dtype)} and other's dtype {_short(B.dtype)}"
        )
    if B.ndim > A.ndim or A.ndim - B.ndim > 1:
        raise RuntimeError(
            f"{op}: input.dim() must be greater or equal to other.dim() and (input.dim() - "
            "other.dim()) <= 1"
        )
    vector = _lstsq_vector(A, B)
    if A.shape[-2] != B.shape[-1 if vector else -2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size({-1 if vector else -2})")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")


def linalg_lstsq(input, b, rcond=None, *, driver=None, out=None):
    """Least-squares solution of A X = B (A = input, B = b: torch's keyword names). Mirrors
    torch.linalg.lstsq (CPU drivers: residuals only with gelsd/gelss/gelsy... as torch: computed
    for m > n at full rank by every driver but the default gelsy; singular_values with
    gelsd/gelss; gels a plain QR solve). Differences from torch: gelsy's QR has no column
    pivoting, so it serves only an A it shows to be of full rank (NOTE [ lstsq by QR ]; on the
    CPU); the rank and the solution of any other A, and gelsd/gelss's solution, come from the
    SVD (through the pseudo-inverse)."""
    check_tensors("linalg_lstsq", ("input", input), ("b", b))
    if rcond is not None:  # torch's parser: a float (a number, a 0-d tensor)
        rcond = check_float("linalg_lstsq", rcond, "rcond", 3)
    if driver is not None and driver.__class__ is not str:
        raise wrong_type("linalg_lstsq", driver, "driver", None, "str")
    A, B = input, b
    if _autocast.state.any_enabled:
        return _autocast.call(
            linalg_lstsq, _autocast.FP32_CPU, (A, B, rcond), {"driver": driver, "out": out}
        )
    if out is not None:
        _check_lstsq_out(A, B, out)
    result = _lstsq(A, B, rcond, driver, out)
    if out is None:
        return result
    for o, r in zip(out, result, strict=True):
        _write(r, o)
    return return_types.linalg_lstsq_out(tuple(out))


def _check_lstsq_out(A, B, out):
    """torch's checks of lstsq's out= that come before the inputs' own."""
    from minitorch._ops.inplace import refuse_out_autograd

    _out_tuple(out, 4, "linalg_lstsq")
    refuse_out_autograd("linalg_lstsq", A, B)


def _lstsq(A, B, rcond, driver, out):
    """linalg.lstsq's result (out= only checked here: written by the caller)."""
    _check_lstsq(A, B, driver)
    _check_matrix(A, "linalg.lstsq", square=False)
    if out is not None:
        # (torch's message names the residuals "solution" too)
        wants = (A.dtype, A.dtype, _dtype.int64, A.dtype)
        names = ("solution", "solution", "rank", "singular_values")
        for o, want, name in zip(out, wants, names, strict=True):
            _check_castable(want, o, "torch.linalg.lstsq", name)
    driver = driver or "gelsy"
    vector = _lstsq_vector(A, B)
    given = B  # (the node's second edge: B may be expanded below)
    if B.ndim == A.ndim - 1 and not vector:
        # torch: a matrix B one dim short is expanded over A's batch broadcast with B.shape[:-1]
        batch = broadcast_pair(A.shape[:-2], B.shape[:-1])
        B = B.expand(batch + tuple(B.shape[-2:]))
    b = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2:]
    rtol = rcond if rcond is not None and rcond > 0 else None
    if driver == "gelsd" and rtol is not None and rtol >= 1:
        rtol = None  # LAPACK's gelsd reads an rcond of 1 or more as its default, as one <= 0
    if rtol is None:
        rtol = _eps(A) * max(m, n)
    if driver == "gels":
        x, residuals = _gels(A, b)
        empty = A.new_zeros((0,))
        x = x.squeeze(-1) if vector else x
        return _lstsq_result(x, residuals, empty.long(), empty, A, given)
    if driver == "gelsy":
        fast = _gelsy_qr(A, b, rtol)
        if fast is not None:
            x, rank = fast
            empty = A.new_zeros((0,))
            x = x.squeeze(-1) if vector else x
            return _lstsq_result(x, empty, rank, empty, A, given)
    # one SVD for the solution and the rank (svdvals' own made gelsy 9x torch's time)
    p, s, keep = _pinv(A, None, rtol)
    x = p @ b
    rank = keep.sum(-1)
    if driver == "gelsy" and not b.shape[-1]:  # (torch's gelsy leaves it 0 for an empty B)
        rank = rank.zero_()
    empty = A.new_zeros((0,))
    residuals = empty
    # (read on the host only where the result depends on it: torch's gelsd/gelss/gels)
    if driver != "gelsy" and m > n and (not rank.numel() or bool((rank == min(m, n)).all())):
        residuals = ((A @ x - b) ** 2).sum(-2)
    svals = s if driver in ("gelsd", "gelss") else empty
    x = x.squeeze(-1) if vector else x
    # (a vector b keeps its residuals' trailing dim of one, as torch)
    return _lstsq_result(x, residuals, rank, svals, A, given)


def _lstsq_result(x, residuals, rank, svals, A, B):
    """linalg.lstsq's result: the solution and the residuals the two outputs of one node with
    edges A and B, as torch's LinalgLstsqBackward0 (the rank and the singular values are not
    differentiable); the residuals are in the graph whenever the solution is, the empty ones
    too (an empty slice of the solution, so a zero gradient)."""
    if not residuals.numel() and x.requires_grad:
        residuals = x.reshape(-1).narrow(0, 0, 0)
    attrs = {"kept_device": A._device}
    as_node((x, residuals), "LinalgLstsqBackward0", (A, B), saved=(A, B, x), attrs=attrs)
    return return_types.linalg_lstsq((x, residuals, rank, svals))


show_saved(  # grad_fn._saved_<name> (as torch's)
    "LinalgLstsqBackward0",
    {"self": saved_value(0), "b": saved_value(1), "solution": saved_value(2)},
)


# NOTE [ lstsq by QR ]
# torch's default CPU driver, gelsy, is a QR with column pivoting whose rank comes from a
# condition estimate of R. NumPy has no pivoted QR, so a plain QR serves where it can vouch for
# full rank: cond_2(A) = cond_2(R) <= |R|_F |R^-1|_F, and that bound below 1 / rcond says every
# singular value passes the SVD route's test (s > rcond * s_max). Past that (rank-deficient or
# ill-conditioned A: a plain QR's diagonal does not reveal the rank), on another device (the
# decision reads the bound on the host) and for gelsd/gelss the solution comes from the SVD.
#   m >= n: R of [A | B] (no Q formed) holds R and Q^T B side by side: X = R^-1 (Q^T B).
#   m < n: the minimum-norm solution, A^T = Q R, X = Q R^-T B = A^T R^-1 R^-T B (R only).
# With a gradient to record, the pseudo-inverse R^-1 Q^T (Q R^-T) goes through Pinv as on the
# SVD route, so the backward is the same.
_TRI_BLOCK = 64


def _gelsy_qr(A, b, rtol):
    """(X, rank) of gelsy for a full-rank A through a QR (NOTE [ lstsq by QR ]), or None where
    the SVD route must decide."""
    from minitorch.autograd.grad_mode import is_grad_enabled

    m, n = A.shape[-2:]
    batch = A.shape[:-2]
    # (b's batch broadcast to A's: the other way round would repeat A's QR)
    if A._device.type != "cpu" or not A.numel() or _common_batch(batch, b.shape[:-2]) != batch:
        return None
    xp = A._device.backend.xp
    a = A._data
    bd = xp.broadcast_to(b._data, batch + b.shape[-2:])
    grad = is_grad_enabled() and (A.requires_grad or b.requires_grad)
    try:
        if grad:  # the pseudo-inverse, for Pinv's backward
            q, r = xp.linalg.qr(a if m >= n else xp.swapaxes(a, -1, -2))
            rinv = _tri_inv(xp, r)
        elif m >= n:
            rc = xp.linalg.qr(xp.concatenate([a, bd], -1), mode="r")
            r, c = rc[..., :n, :n], rc[..., :n, n:]
            rinv = _tri_inv(xp, r)
        else:
            r = xp.linalg.qr(xp.swapaxes(a, -1, -2), mode="r")
            rinv = _tri_inv(xp, r)
    except Exception as e:
        if type(e).__name__ != "LinAlgError":  # an exactly singular R
            raise
        return None
    bound = xp.sqrt((r * r).sum((-2, -1)) * (rinv * rinv).sum((-2, -1)))
    if not bool((bound * rtol < 1).all()):  # (nan: not vouched for either)
        return None
    full = min(m, n) if b.shape[-1] else 0  # (torch's gelsy leaves it 0 for an empty B)
    rank = _make(xp.full(batch, full, dtype=xp.int64), A._device, False, None)
    if grad:
        pinv = rinv @ xp.swapaxes(q, -1, -2) if m >= n else q @ xp.swapaxes(rinv, -1, -2)
        return Pinv.apply(A, pinv=pinv) @ b, rank
    if m >= n:
        x = rinv @ c
    else:
        x = xp.swapaxes(a, -1, -2) @ (rinv @ (xp.swapaxes(rinv, -1, -2) @ bd))
    return _make(x, A._device, False, None), rank


def _tri_inv(xp, r):
    """The inverse of a batch of upper-triangular matrices, by halves (NumPy has no trtri; a
    general inverse costs eight times the flops). Raises LinAlgError for an exact zero pivot."""
    n = r.shape[-1]
    if n <= _TRI_BLOCK:
        return xp.linalg.inv(r)
    h = n // 2
    top, bottom = _tri_inv(xp, r[..., :h, :h]), _tri_inv(xp, r[..., h:, h:])
    out = xp.zeros_like(r)
    out[..., :h, :h] = top
    out[..., h:, h:] = bottom
    out[..., :h, h:] = -(top @ r[..., :h, h:]) @ bottom
    return out
