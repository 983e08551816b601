"""Inverse, determinants and linear solves: inv, det, slogdet, solve, solve_triangular,
cholesky_solve, LU factorization and lu_solve; the shared checks of the linalg families."""

from __future__ import annotations

import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, return_types
from minitorch._arg_errors import REQUIRED, missing_positional, too_many_positional
from minitorch._ops._common import (
    broadcast_pair,
    check_bool,
    check_tensors,
    not_tensor,
    on_host,
    quiet,
    type_name,
    wrong_type,
)
from minitorch._ops.inplace import with_out
from minitorch._ops.linalg import _short
from minitorch._ops.pointwise import where
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import Function, fast_path, name_node
from minitorch.autograd.grad_mode import is_grad_enabled

# fmt: off
__all__ = [
    "inverse", "det", "slogdet", "logdet", "cholesky_solve", "cholesky_inverse",
    "triangular_solve", "lu_unpack", "lu", "lu_solve",
]
# fmt: on


class LinAlgError(RuntimeError):
    """A matrix that the algorithm cannot handle (singular, not positive-definite). Mirrors
    torch.linalg.LinAlgError (torch._C._LinAlgError), a RuntimeError."""


# named as torch's class is (type(e).__name__ is "_LinAlgError"; a traceback ends in
# "minitorch._C._LinAlgError: ..."), where minitorch._C serves it, so an error still pickles
LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "minitorch._C"


# --- checks and helpers ---


def _write(result, out):
    """out= that casts (cholesky_solve, cholesky_inverse, householder_product, ...)."""
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def _check_castable(dtype, out, op: str, name: str = "result") -> None:
    """torch's own refusal of an out= that a result of `dtype` cannot safely be cast into (float
    into an integer, an integer into bool), in the linalg kernels that otherwise cast: it names
    the op and the output."""
    if isinstance(out, Tensor) and not _dtype.can_cast(dtype, out.dtype):
        raise RuntimeError(
            f"{op}: Expected {name} to be safely castable from {_short(dtype)} dtype, but got "
            f"{name} with dtype {_short(out.dtype)}"
        )


def _out_tuple(out, n: int, op: str) -> None:
    """torch's argument-parser checks of a tuple out= of n tensors."""
    if isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be tuple of Tensors, not Tensor")
    if len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out)}")


def _write_castable(result, out, op: str):
    """_write with torch's op-named refusal of an unsafe cast (cholesky_solve, pinv, cond, ...)."""
    if out is not None:
        _check_castable(result.dtype, out, op)
    return _write(result, out)


# NOTE [ linalg out= dtypes ]
# torch's linalg kernels (solve, inv, det, cholesky, eigh, svd, lu, qr, slogdet, the *_ex
# variants, ...) refuse an out= tensor whose dtype is not the result's, integer pivots and info
# included, where most ops cast into it. The exceptions that cast are listed by torch's own
# behaviour: cholesky_solve, cholesky_inverse, householder_product/orgqr, geqrf, torch.lu,
# torch.cholesky, tensorinv/tensorsolve, pinv, cond. `_write_exact` (one result) and
# `_exact_out` (with_out(exact=True), for tuple results) implement the refusal.


def _write_exact(result, out):
    """out= for a linalg kernel that refuses a dtype other than the result's. See NOTE [ linalg
    out= dtypes ]."""
    if out is None:
        return result
    from minitorch._ops.inplace import write_out_exact

    return write_out_exact(out, result)


_exact_out = with_out(exact=True)  # a with_out for tuple results that refuses other dtypes


# torch's parser's name of the matrix argument where it is not A (as its linalg docs call it)
_ARG_NAMES = {
    **dict.fromkeys(("linalg.eigh", "linalg.eigvalsh", "linalg.matrix_exp", "linalg.matrix_power",
                     "linalg.cond", "linalg.solve_triangular", "linalg.cholesky", "linalg.lstsq",
                     "cholesky", "geqrf", "logdet", "linalg.eig", "linalg.eigvals"), "input"),
    "linalg.lu_solve": "LU",
}  # fmt: skip


def _check_matrix(a, op: str, square: bool = True, floating: bool = True):
    if not isinstance(a, Tensor):
        arg = _ARG_NAMES.get(op, "A")
        op = op.replace(".", "_")  # linalg_solve(): torch's parser names the native function
        raise wrong_type(op, a, arg, 1, "Tensor")
    name = _MESSAGE_NAME.get(op, op)  # the op torch's checks run in (svdvals: svd's)
    if a.ndim < 2:
        if op == "linalg.pinv":
            _low_precision(a, op)
        raise RuntimeError(
            _FEW_DIMS.get(op, "{}: The input tensor A must have at least 2 dimensions.").format(
                name, list(a.shape)
            )
        )
    m, n = a._data.shape[-2:]
    if square and m != n and op not in _DTYPE_FIRST:  # (most check the shape first)
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    if floating and not a.dtype.is_floating_point:
        if op in _KERNEL_DISPATCH_FIRST:  # torch's kernel dispatch refuses it before any check
            raise NotImplementedError(
                f"\"{_LOW_PRECISION[op]}\" not implemented for '{_short(a.dtype)}'"
            )
        if op in ("linalg.pinv", "linalg.matrix_rank"):
            _low_precision(a, op)
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {_short(a.dtype)}"
        )
    if square and m != n:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    if floating and a.dtype in _dtype.HALF_FLOATS:
        _low_precision(a, op)


# torch's LAPACK-backed ops refuse half-precision matrices, each in its own words: a kernel name
# ("lu_cpu" not implemented for 'Half', a NotImplementedError), or a RuntimeError's text.
# (NumPy's linalg refuses float16 with a TypeError of its own.) Ops absent here take halves.
_LOW_PRECISION = {
    "linalg.det": "lu_cpu",
    "linalg.solve": "lu_cpu",
    "linalg.lu": "lu_cpu",
    "linalg.lu_factor": "lu_cpu",
    "linalg.lu_factor_ex": "lu_cpu",
    "linalg.cholesky": "cholesky_cpu",
    "linalg.cholesky_ex": "cholesky_cpu",
    "linalg.eigh": "linalg_eigh_cpu",
    "linalg.eigvalsh": "linalg_eigh_cpu",
    "linalg.svd": "linalg_svd_cpu",
    "linalg.svdvals": "linalg_svd_cpu",
    "linalg.qr": "geqrf_cpu",
    "geqrf": "geqrf_cpu",
    "linalg.solve_triangular": "triangular_solve_cpu",
}
# the ops whose integer and bool matrices torch refuses in the kernel's words too
_KERNEL_DISPATCH_FIRST = frozenset(
    (
        "linalg.eigh",
        "linalg.eigvalsh",
        "linalg.lu",
        "linalg.lu_factor",
        "linalg.lu_factor_ex",
        "linalg.solve_triangular",
    )
)
_ONLY_FLOAT_DOUBLE = "This function doesn't handle types other than float and double"
# ops whose dtype torch checks before the matrices' shape
_DTYPE_FIRST = frozenset(("linalg.solve", "linalg.solve_ex"))
# ops whose checks torch runs inside another op, naming that one
_MESSAGE_NAME = {
    "linalg.svdvals": "linalg.svd",
    "linalg.eigvalsh": "linalg.eigh",
    "linalg.cond": "linalg.svd",
    "linalg.lu_solve": "torch.linalg.lu_solve",
}
# torch's own words for a tensor of fewer than 2 dims ({0}: the op's name, {1}: the shape)
_FEW_DIMS = {
    "linalg.matrix_rank": "torch.linalg.matrix_rank: The input tensor input must have at least 2 "
    "dimensions.",
    "linalg.cond": "linalg.cond: The input tensor must have at least 2 dimensions.",
    "linalg.lu": "linalg.lu: Expected tensor with 2 or more dimensions. Got size: {1} instead",
    "linalg.lu_factor": "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {1} "
    "instead",
    "linalg.lu_factor_ex": "torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
    "size: {1} instead",
}


def _low_precision(a, op: str):
    short = _short(a.dtype)
    if op in ("linalg.inv", "linalg.slogdet", "logdet"):
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {short}")
    if op in ("linalg.matrix_rank", "linalg.lstsq"):
        raise RuntimeError(_ONLY_FLOAT_DOUBLE)
    if op == "linalg.pinv":
        raise RuntimeError(
            f"linalg.pinv({short}{{{list(a.shape)}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    kernel = _LOW_PRECISION.get(op)
    if kernel is not None:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short}'")


def _mT(x: Tensor) -> Tensor:
    return x.transpose(-2, -1)


def _eye_like(x: Tensor, n: int) -> Tensor:
    return _make(x._device.backend.xp.eye(n, dtype=x._data.dtype), x._device, False, None)


def _is_linalg_error(e: Exception) -> bool:
    return type(e).__name__ == "LinAlgError"


def _batch_prefix(shape, index) -> str:
    return f"(Batch element {index}): " if len(shape) > 2 else ""


def _check_batches(B: Tensor, A: Tensor) -> None:
    """torch's error when the batch dimensions of a solve's right-hand side B and matrix A do not
    broadcast: B is "tensor a", A "tensor b", and the dimension counts within the broadcast
    batch shape, compared from the right (Function.apply's generic message would name B's and
    A's full shapes the other way round)."""
    if B.shape[:-2] != A.shape[:-2]:
        broadcast_pair(B.shape[:-2], A.shape[:-2])


def _lu_raw(xp, a):
    """LU with partial pivoting of a batch of (m, n) arrays, as LAPACK's getrf: (LU, pivots
    (1-based, int32), info: per matrix the 1-based index of the first zero pivot, else 0)."""
    shape = a.shape
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    nb = math.prod(batch)
    if a.dtype.char == "d" and 0 < nb * (m * n * k + 64) <= k * _LU_BY_FLOATS and on_host(xp):
        done = _lu_floats(xp, a, nb, k)  # See NOTE [ Small LU factors in Python floats ]
        if done is not None:
            return done
    lu = a.reshape((nb, m, n)).copy()  # (-1 is ambiguous when m * n == 0)
    rows = xp.arange(nb)
    piv = xp.zeros((nb, k), dtype=xp.int32)
    info = xp.zeros((nb,), dtype=xp.int64)
    for j in range(k):
        p = j + _idamax(xp, lu[:, j:, j])
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


# NOTE [ Small LU factors in Python floats ]
# _lu_raw's batched loop costs a dozen NumPy calls per column (60 us for a (2, 3, 3) batch,
# torch's getrf 6 us). For a few float64 host matrices the same steps run on Python floats
# instead (_lu_floats): the same pivot choice (idamax: the first entry largest in magnitude,
# a NaN never chosen unless it comes first), the same row swaps, the same division by the pivot
# (by one where it is zero) and the same update, a - c * u with the product rounded first, each
# an IEEE double operation as NumPy's elementwise ones are: the same bits. NumPy warns where an
# update overflows or makes a NaN; Python floats do not, so where any entry of the factor is not
# finite (which every such step leaves behind: an inf or a NaN never turns finite again under
# these steps) the NumPy loop runs instead, with its warnings. float32 keeps the NumPy loop
# (its steps round to float32). Python's cost grows with the batch and the multiply-adds
# (m * n * min(m, n) a matrix, plus some 64 for its own steps), NumPy's with the columns
# (min(m, n)): the floats where the first is at most _LU_BY_FLOATS times the second, where they
# are the faster (3 x 3: 8 us against 60; (4, 6, 6): 210 against 310; (16, 3, 3): NumPy).
_LU_BY_FLOATS = 256


def _lu_floats(xp, a, nb, k):
    """_lu_raw's (LU, pivots, info) computed on Python floats, or None where an entry of the
    factor is not finite (NOTE [ Small LU factors in Python floats ])."""
    mats = a.reshape((nb,) + a.shape[-2:]).tolist()
    m = len(mats[0])
    pivs, infos = [], []
    total = 0.0
    for rows in mats:
        piv = []
        info = 0
        for j in range(k):
            p = j
            best = abs(rows[j][j])
            for i in range(j + 1, m):
                v = abs(rows[i][j])
                if v > best:  # (never true for a NaN, nor past a first NaN)
                    best, p = v, i
            piv.append(p + 1)
            rows[j], rows[p] = rows[p], rows[j]
            top = rows[j]
            d = top[j]
            if d == 0:
                if not info:
                    info = j + 1
                d = 1.0
            rest = top[j + 1 :]
            for i in range(j + 1, m):
                row = rows[i]
                c = row[j] / d
                row[j] = c
                row[j + 1 :] = [x - c * u for x, u in zip(row[j + 1 :], rest, strict=True)]
        for row in rows:
            total += sum(row)
        pivs.append(piv)
        infos.append(info)
    if not math.isfinite(total):  # some entry is inf or NaN (or the sum overflowed)
        return None
    shape = a.shape
    batch = shape[:-2]
    lu = xp.array(mats, dtype=a.dtype).reshape(shape)
    piv = xp.array(pivs, dtype=xp.int32).reshape(batch + (k,))
    return lu, piv, xp.array(infos, dtype=xp.int64).reshape(batch)


def _idamax(xp, col):
    """Per row of col, the index of the entry largest in magnitude, as BLAS's idamax that
    LAPACK's getrf pivots with: it compares with `>` from the first entry, so a NaN is never
    chosen unless it comes first (argmax would pick the first NaN)."""
    mag = xp.abs(col)
    nan = mag != mag
    p = xp.argmax(xp.where(nan, -1, mag), axis=1)  # (a magnitude is never below -1)
    return xp.where(nan[:, 0], 0, p)


def _nan_matrices(xp, a, out, device):
    """out with the results of the matrices whose A holds a NaN all NaN: out is per matrix (a
    determinant) or a matrix per matrix. LAPACK's getrf spreads a NaN through the trailing
    updates, into U's diagonal, and getrs/getri carry it into every entry (torch's solve and
    inv of diag(nan, 1) are all NaN, its det NaN); NumPy's kernels skip zeros and keep some
    entries finite, or refuse the matrix as singular."""
    if device.type == "cpu" and not xp.isnan(a).any():  # a host check only where it is free
        return out
    bad = xp.isnan(a).any(axis=(-2, -1))  # on a GPU: a per-matrix where, no host read
    bad = bad.reshape(bad.shape + (1,) * (out.ndim - bad.ndim))
    return xp.where(bad, xp.asarray(xp.nan, dtype=out.dtype), out)


def _without_nan_matrices(xp, a):
    """a with the matrices that hold a NaN replaced by the identity: what NumPy refuses as
    singular there (a NaN pivot), torch computes as all NaN (an error path; _nan_matrices puts
    the NaN back)."""
    bad = xp.isnan(a).any(axis=(-2, -1))[..., None, None]
    return xp.where(bad, xp.eye(a.shape[-1], dtype=a.dtype), a)


def _first_failure(info):
    """(flat batch index, value) of the first nonzero info (an error path: reads the host)."""
    flat = info.reshape(-1)
    bad = [i for i, v in enumerate(flat.tolist()) if v != 0]
    return (bad[0], int(flat.tolist()[bad[0]])) if bad else (None, 0)


def _raise_singular_inv(xp, x, op="linalg.inv"):
    """torch's error for the first singular matrix of x; returns where LAPACK finds no zero
    pivot (a NaN matrix NumPy refused)."""
    _, _, info = _lu_raw(xp, x)
    index, element = _first_failure(info)
    if index is None:
        return
    raise LinAlgError(
        f"{op}: {_batch_prefix(x.shape, index or 0)}The diagonal element {element} is zero, the "
        "inversion could not be completed because the input matrix is singular."
    ) from None


# --- inverse, determinants, solves ---


class Inv(Function):
    """out = A^-1;  grad_A = -out^T @ grad @ out^T"""

    _node_name = "LinalgInvExBackward0"
    _saved_names = ("inverse",)  # grad_fn._saved_inverse (as torch's)

    @staticmethod
    def forward(ctx, a, *, op="linalg.inv"):
        xp = ctx.xp
        try:
            out = _nan_matrices(xp, a._data, xp.linalg.inv(a._data), a._device)
        except Exception as e:
            if not _is_linalg_error(e):
                raise
            _raise_singular_inv(xp, a._data, op)
            out = xp.linalg.inv(_without_nan_matrices(xp, a._data))
            out = _nan_matrices(xp, a._data, out, a._device)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        t = _mT(out)
        return -(t @ grad @ t)


class Det(Function):
    """out = det(A);  grad_A = grad * adj(A)^T = grad * out * A^-T. For a singular matrix (where
    the backend reports one: NumPy's pivot check), as torch: zero in a plain backward, the
    adjugate through the SVD under create_graph"""

    _node_name = "LinalgDetBackward0"
    _saved_names = ("A", "result")  # grad_fn._saved_<name> (as torch's; LU, pivots: A^T's)
    _saved_attrs = {
        "LU": lambda node: _saved_lu(node, 0, True),
        "pivots": lambda node: _saved_lu(node, 1, True),
    }

    @staticmethod
    def forward(ctx, a):
        with quiet(ctx.xp):  # (NumPy's det warns of a NaN matrix in its own module)
            out = ctx.xp.asarray(ctx.xp.linalg.det(a._data))
        out = _nan_matrices(ctx.xp, a._data, out, a._device)  # (NumPy's can be 0)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        scale = (grad * out).unsqueeze(-1).unsqueeze(-1)
        try:
            return scale * _mT(Inv.apply(a))
        except LinAlgError:  # an error path (the pivots were read): some matrix is singular
            pass
        if is_grad_enabled():  # create_graph: torch's SVD formula, differentiable again
            return grad.unsqueeze(-1).unsqueeze(-1) * _adjugate_t(a)
        # torch's LU formula gives the singular matrices a zero gradient: invert the others
        xp = a._device.backend.xp
        singular = _lu_raw(xp, a._data)[2] > 0
        n = a.shape[-1]
        mask = _make(singular[..., None, None], a._device, False, None)
        safe = where(mask, _eye_like(a, n), a)
        return where(mask, scale.new_zeros(()), scale * _mT(Inv.apply(safe)))


def _adjugate_t(a: Tensor) -> Tensor:
    """adj(A)^T, the derivative of det(A), for any square A (singular too) through the SVD:
    adj(A)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh (U and Vh orthogonal, so their
    determinants are +-1 and their adjugates their transposes times that sign)."""
    from minitorch._ops.linalg_factor import Svd

    u, s, vh = Svd.apply(a, full_matrices=False)
    xp = a._device.backend.xp
    signs = xp.linalg.det(u._data) * xp.linalg.det(vh._data)  # +-1, constants
    n = s.shape[-1]
    eye = _make(xp.eye(n, dtype=bool), a._device, False, None)
    others = where(eye, s.new_ones(()), s.unsqueeze(-2).expand(s.shape + (n,)))
    cofactors = others.prod(-1) * _make(xp.asarray(signs), a._device, False, None).unsqueeze(-1)
    return (u * cofactors.unsqueeze(-2)) @ vh


class Slogdet(Function):
    """(sign, logabsdet) = slogdet(A);  grad_A = grad_logabsdet * A^-T (sign is constant)"""

    _node_name = "LinalgSlogdetBackward0"
    _saved_names = ("A", "sign")  # grad_fn._saved_<name> (as torch's; LU, pivots: A^T's)
    _saved_attrs = {
        "LU": lambda node: _saved_lu(node, 0, True),
        "pivots": lambda node: _saved_lu(node, 1, True),
    }

    @staticmethod
    def forward(ctx, a):
        xp = ctx.xp
        with quiet(xp):
            sign, logabs = xp.linalg.slogdet(a._data)
        logabs = _nan_matrices(xp, a._data, xp.asarray(logabs), a._device)  # (NumPy's: -inf)
        sign = xp.asarray(xp.where(xp.isnan(logabs), sign * 0, sign))  # torch's sign(nan): 0
        ctx.save_for_backward(a, sign)
        ctx.set_materialize_grads(False)
        return sign, xp.asarray(logabs)

    @staticmethod
    def backward(ctx, grad_sign, grad_logabs):
        a = ctx._stored_tensors[0]
        if grad_logabs is None:
            return None
        g = grad_logabs.unsqueeze(-1).unsqueeze(-1)
        try:
            return g * _mT(Inv.apply(a))
        except LinAlgError:  # an error path: some matrix is singular
            if is_grad_enabled():  # create_graph: torch's linalg.solve refuses it, in its words
                index, _ = _first_failure(_lu_raw(a._device.backend.xp, a._data)[2])
                raise LinAlgError(
                    f"torch.linalg.solve: {_batch_prefix(a.shape, index or 0)}The solver failed "
                    "because the input matrix is singular."
                ) from None
        # torch solves A^T X = g I by a fresh LU of A^T (solve_ex), unchecked: inf/nan, not an
        # error (the pivots of A^T, not A's, decide where inf and where nan)
        xp = a._device.backend.xp
        n = a.shape[-1]
        rhs = xp.broadcast_to(g._data * xp.eye(n, dtype=a._data.dtype), a.shape)
        at = xp.ascontiguousarray(a._data.swapaxes(-1, -2))
        return _make(_lu_solve_unchecked(xp, at, rhs), a._device, False, None)


def _saved_lu(node, k: int, transposed: bool = False) -> Tensor:
    """Slogdet's, Det's and Solve's grad_fn._saved_LU (k=0) or _saved_pivots (k=1): the LU
    factorization of the saved A, which torch's kernel keeps and this one recomputes when
    asked (torch's det and slogdet factor A^T: the row-major A LAPACK reads)."""
    return _lu_of(node._stored_tensors[0], k, transposed)


def _lu_of(a: Tensor, k: int, transposed: bool = False) -> Tensor:
    """The LU factors (k=0) or pivots (k=1) of a (or of a^T), as a tensor that requires no
    grad."""
    x = a._data.swapaxes(-1, -2) if transposed else a._data
    return _make(_lu_raw(a._device.backend.xp, x)[k], a._device, False, None)


def _lu_solve_t_unchecked(xp, a, b):
    """X with A^T X = B through A's LU (getrf), as LAPACK's getrs with trans: a zero pivot gives
    inf/nan instead of an error. As the optimised BLAS torch links, the substitutions skip no
    zero entries (0 * inf is nan) and multiply by the reciprocal of each pivot, which decides
    where torch's result is inf and where nan."""
    lu, piv, _ = _lu_raw(xp, a)
    n = a.shape[-1]
    batch = a.shape[:-2]
    lu = lu.reshape((-1, n, n))
    x = b.reshape((-1, n, b.shape[-1])).copy()
    with quiet(xp, divide="ignore", invalid="ignore"):
        for k in range(n):  # U^T (lower triangular) forward
            x[:, k, :] = x[:, k, :] * (1 / lu[:, k, k, None])
            x[:, k + 1 :, :] -= lu[:, k, k + 1 :, None] * x[:, k, None, :]
        for k in range(n - 1, 0, -1):  # L^T (unit upper triangular) backward
            x[:, :k, :] -= lu[:, k, :k, None] * x[:, k, None, :]
    rows = xp.arange(x.shape[0])
    piv = piv.reshape((-1, n)) - 1
    for j in range(n - 1, -1, -1):  # undo the row interchanges, last first
        p = piv[:, j]
        xj = x[rows, j, :].copy()
        x[rows, j, :] = x[rows, p, :]
        x[rows, p, :] = xj
    return x.reshape(batch + (n, b.shape[-1]))


def _lu_solve_unchecked(xp, a, b):
    """X with A X = B through A's LU (getrf), as LAPACK's getrs: the row interchanges, then the
    unit lower and the upper substitutions, which (as the optimised BLAS torch links) skip no
    zero entries and multiply by each pivot's reciprocal, so a zero pivot gives torch's inf/nan
    rather than an error."""
    lu, piv, _ = _lu_raw(xp, a)
    n = a.shape[-1]
    batch = a.shape[:-2]
    lu = lu.reshape((-1, n, n))
    x = b.reshape((-1, n, b.shape[-1])).copy()
    rows = xp.arange(x.shape[0])
    piv = piv.reshape((-1, n)) - 1
    for j in range(n):  # the row interchanges, first first
        p = piv[:, j]
        xj = x[rows, j, :].copy()
        x[rows, j, :] = x[rows, p, :]
        x[rows, p, :] = xj
    with quiet(xp, divide="ignore", invalid="ignore"):
        for k in range(n - 1):  # L (unit lower triangular) forward
            x[:, k + 1 :, :] -= lu[:, k + 1 :, k, None] * x[:, k, None, :]
        for k in range(n - 1, -1, -1):  # U backward
            x[:, k, :] = x[:, k, :] * (1 / lu[:, k, k, None])
            x[:, :k, :] -= lu[:, :k, k, None] * x[:, k, None, :]
    return x.reshape(batch + (n, b.shape[-1]))


_TRANSPOSED = {"N": "T", "T": "N"}


class Solve(Function):
    """X = A^-1 B (B a batch of matrices);  grad_B = A^-T grad,  grad_A = -grad_B X^T.
    unchecked (solve_ex): a singular matrix gives LAPACK's inf/nan instead of an error, through
    the LU of A ("N") or, as torch's left=False, of the A^T given here ("T")."""

    _node_name = "LinalgSolveExBackward0"
    _saved_names = ("A", "result")  # grad_fn._saved_<name> (as torch's; its LU and pivots: A's)
    _saved_attrs = {
        "LU": lambda node: _saved_lu(node, 0),
        "pivots": lambda node: _saved_lu(node, 1),
        "left": lambda node: True,
    }
    _saved_shown = {"LinalgInvExBackward0": ()}  # (inv_ex's fallback: torch's node saves other)

    @staticmethod
    def forward(ctx, a, b, *, unchecked=None):
        xp = ctx.xp
        x, y = a._data, b._data
        batch = xp.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        if x.shape[:-2] != batch or y.shape[:-2] != batch:  # (not every xp broadcasts solve)
            x = xp.broadcast_to(x, batch + x.shape[-2:])
            y = xp.broadcast_to(y, batch + y.shape[-2:])
        try:
            out = _nan_matrices(xp, x, xp.linalg.solve(x, y), a._device)
        except Exception as e:
            if unchecked == "N" and _is_linalg_error(e):
                out = _lu_solve_unchecked(xp, x, y)
            elif unchecked == "T" and _is_linalg_error(e):
                out = _lu_solve_t_unchecked(xp, x.swapaxes(-1, -2), y)
            elif _is_linalg_error(e):
                # an error path (reads the host); torch counts within A's own batch, unbroadcast
                index, _ = _first_failure(_lu_raw(xp, a._data)[2])
                if index is None:  # no zero pivot: NumPy refused a NaN matrix
                    out = xp.linalg.solve(_without_nan_matrices(xp, x), y)
                    out = _nan_matrices(xp, x, out, a._device)
                    ctx.save_for_backward(a, out)
                    ctx.unchecked = unchecked
                    return out
                raise LinAlgError(
                    f"torch.linalg.solve: {_batch_prefix(a.shape, index or 0)}The solver failed "
                    "because the input matrix is singular."
                ) from None
            else:
                raise
        ctx.save_for_backward(a, out)
        ctx.unchecked = unchecked
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        # torch reuses the forward's LU, unchecked, for solve_ex's backward (A^T through the
        # same factors: "N" <-> "T"); under create_graph it calls linalg.solve, which checks
        unchecked = None if is_grad_enabled() else _TRANSPOSED.get(ctx.unchecked)
        gb = Solve.apply(_mT(a), grad, unchecked=unchecked)
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
    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"left": lambda node: True, "unitriangular": "unit", "upper": "upper"}

    @staticmethod
    def forward(ctx, a, b, *, upper, unitriangular=False):
        xp = ctx.xp
        x = a._data
        n = x.shape[-1]
        try:
            if n <= _TRI_MASKED and on_host(xp):  # See NOTE [ Small triangles by one where ]
                keep, fill = _triangle_masks(n, upper, unitriangular, x.dtype)
                out = xp.linalg.solve(xp.where(keep, x, fill), b._data)
            elif n > 2 * _TRI_BLOCK:
                t = _triangle_raw(xp, x, upper, unitriangular)
                out = _blocked_substitute(xp, t, b._data, upper)
            else:
                out = xp.linalg.solve(_triangle_raw(xp, x, upper, unitriangular), b._data)
        except Exception as e:
            if not _is_linalg_error(e):
                raise
            out = _substitute(xp, _triangle_raw(xp, x, upper, unitriangular), b._data, upper)
        ctx.save_for_backward(a, out)
        ctx.upper, ctx.unit = upper, unitriangular
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        upper, unit = ctx.upper, ctx.unit
        gb = SolveTriangular.apply(_mT(a), grad, upper=not upper, unitriangular=unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = _triangle(-(gb @ _mT(out)), upper, unit)
        return ga, gb if ctx.needs_input_grad[1] else None


show_saved(  # grad_fn._saved_<name> of left=False's node (as torch's)
    "LinalgSolveTriangularBackward0",
    {
        "self": saved_value(0),
        "result": saved_value(1),
        "left": lambda node: False,
        "unitriangular": "unitriangular",
        "upper": "upper",
    },
)


def _triangle_raw(xp, x, upper: bool, unit: bool):
    """The triangle of the array x that a triangular solve reads, with ones on the diagonal if
    unit."""
    t = xp.triu(x) if upper else xp.tril(x)
    if unit:
        eye = xp.eye(x.shape[-1], dtype=bool)
        t = xp.where(eye, xp.asarray(1, dtype=x.dtype), t)
    return t


# NOTE [ Small triangles by one where ]
# NumPy's triu and tril build their mask anew on every call (tri: 4-8 us for a 3 x 3 matrix,
# more than the solve that follows), then select with where(mask, zeros(1), x). For host
# matrices up to _TRI_MASKED rows, SolveTriangular's forward selects once from a mask and a fill
# kept per (n, upper, unit, dtype): x inside the triangle, the fill (0, or 1 on a unit
# diagonal) outside it; the same values as triu/tril and where. Only the solve reads that
# triangle (which copies it into LAPACK's buffer: its layout does not matter); the rare error
# path takes _triangle_raw's.
_TRI_MASKED = 16
_TRI_MASKS: dict = {}


def _triangle_masks(n: int, upper: bool, unit: bool, dtype):
    """(keep, fill) for a triangular solve's where: NOTE [ Small triangles by one where ]."""
    key = (n, upper, unit, dtype)
    masks = _TRI_MASKS.get(key)
    if masks is None:
        xp = _host_xp()
        rows = xp.arange(n)[:, None]
        cols = xp.arange(n)[None, :]
        keep = cols >= rows if upper else cols <= rows
        fill = xp.zeros((n, n), dtype=dtype)
        if unit:
            keep = keep & (cols != rows)
            fill[rows[:, 0], rows[:, 0]] = 1
        keep.flags.writeable = fill.flags.writeable = False  # (shared by every call)
        masks = _TRI_MASKS[key] = (keep, fill)
    return masks


def _host_xp():
    from minitorch._backend import backend_of, cpu

    return backend_of(cpu).xp


# NOTE [ Triangular solves by blocks ]
# The general solve factors its matrix first: n^3 / 3 multiply-adds to find the LU of a matrix
# that is already triangular (a 300 x 300 upper triangle with 10 right-hand sides took 0.87 ms,
# torch's triangular solve 0.05 ms). Past 2 * _TRI_BLOCK rows, the substitution runs by diagonal
# blocks instead, as LAPACK's blocked triangular solve does: a general solve of each diagonal
# block (no fill: its LU is the block itself, up to row swaps in a lower one) and one matrix
# product to take the block's solution out of the rows still to solve (0.25 ms). The digits are
# those of a triangular solve, not the general solve's (float32: within torch's own error).
_TRI_BLOCK = 64


def _blocked_substitute(xp, t, b, upper):
    """T^-1 b by blocks of _TRI_BLOCK rows (NOTE [ Triangular solves by blocks ]); a singular
    diagonal block raises the general solve's error."""
    n = t.shape[-1]
    batch = xp.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = xp.broadcast_to(b, batch + b.shape[-2:]).astype(xp.result_type(t, b))  # (a copy)
    starts = range(0, n, _TRI_BLOCK)
    for i0 in reversed(starts) if upper else starts:
        i1 = min(i0 + _TRI_BLOCK, n)
        part = xp.linalg.solve(t[..., i0:i1, i0:i1], x[..., i0:i1, :])
        x[..., i0:i1, :] = part
        rest = slice(0, i0) if upper else slice(i1, n)
        x[..., rest, :] -= xp.matmul(t[..., rest, i0:i1], part)
    return x


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


# --- public functions (torch.linalg names live in minitorch.linalg) ---


def linalg_inv(A, *, out=None):
    """Inverse of a batch of square matrices. Mirrors torch.linalg.inv."""
    if _autocast.state.any_enabled:
        return _autocast.call(linalg_inv, _autocast.FP32_CPU, (A,), {"out": out})
    _check_matrix(A, "linalg.inv")
    if isinstance(out, Tensor) and out.dtype is not A.dtype:
        # torch refuses the out dtype before it factors (a singular A: this error, not LinAlgError)
        raise _dtype.out_dtype_error(A.dtype, out.dtype)
    return _write_exact(Inv.apply(A), out)


def inverse(input, *, out=None):
    """Mirrors torch.inverse (linalg.inv)."""
    if not isinstance(input, Tensor):
        raise not_tensor("inverse", input)
    return linalg_inv(input, out=out)


@_exact_out
def linalg_inv_ex(A, *, check_errors=False):
    """(inverse, info). Mirrors torch.linalg.inv_ex: for a singular matrix info holds the
    1-based index of LU's first zero pivot (an error only with check_errors). Differences from
    torch: the inverse of a singular matrix is the LU solve against the identity, whose inf/nan
    pattern is not that of torch's getri."""
    if not isinstance(A, Tensor):
        raise wrong_type("linalg_inv_ex", A, "A", 1, "Tensor")
    try:
        inv = linalg_inv(A)
    except LinAlgError as e:  # an error path (the pivots were read): some matrix is singular
        if check_errors:
            raise LinAlgError(str(e).replace("linalg.inv:", "linalg.inv_ex:", 1)) from None
        xp = A._device.backend.xp
        eye = _eye_like(A, A.shape[-1]).expand(A.shape)
        inv = name_node(Solve.apply(A, eye, unchecked="N"), "LinalgInvExBackward0")
        info = _lu_raw(xp, A._data)[2].astype(xp.int32)
        return return_types.linalg_inv_ex((inv, _make(info, A._device, False, None)))
    info = _make(
        A._device.backend.xp.zeros(A._data.shape[:-2], dtype="int32"), A._device, False, None
    )
    return return_types.linalg_inv_ex((inv, info))


def linalg_det(A, *, out=None):
    """Determinant of a batch of square matrices. Mirrors torch.linalg.det."""
    _check_matrix(A, "linalg.det")
    return _write_exact(Det.apply(A), out)


def det(input):
    """Mirrors torch.det (linalg.det)."""
    if not isinstance(input, Tensor):
        raise not_tensor("det", input)
    return linalg_det(input)


def _slogdet(A, op):
    _check_matrix(A, op)
    # sign requires grad as in torch, but its gradient is zero (backward ignores it)
    return Slogdet.apply(A)


@_exact_out
def linalg_slogdet(A):
    """(sign, logabsdet) of the determinant. Mirrors torch.linalg.slogdet."""
    return return_types.linalg_slogdet(_slogdet(A, "linalg.slogdet"))


@_exact_out
def slogdet(input):
    """Mirrors torch.slogdet."""
    if not isinstance(input, Tensor):
        raise not_tensor("slogdet", input)
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
    if left.__class__ is not bool and isinstance(A, Tensor) and isinstance(B, Tensor):
        check_bool("linalg_solve", left, "left")  # (torch's parser: after the tensors)
    if _autocast.state.any_enabled:
        return _autocast.call(linalg_solve, _autocast.FP32_CPU, (A, B), {"left": left, "out": out})
    if isinstance(A, Tensor) and not A.dtype.is_floating_point:
        # torch checks A's dtype before its dims (a half A: after the shapes', in its kernel)
        raise RuntimeError(
            "linalg.solve: Expected a floating point or complex tensor as input. Got "
            f"{_short(A.dtype)}"
        )
    _check_matrix(A, "linalg.solve", floating=False)
    if not isinstance(B, Tensor):
        raise wrong_type("linalg_solve", B, "B", 2, "Tensor")
    if A.dtype != B.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{_short(A.dtype)} and B of type {_short(B.dtype)} instead"
        )
    if B.ndim == 0:  # (torch's message: a 1-d B is the vector case)
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    vector = _solve_vector_case(A, B)
    b = B.unsqueeze(-1) if vector else B
    n = A.shape[-1]
    if b.shape[-2] != n and left or (not left and b.shape[-1] != n):
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})"
        )
    _check_batches(b, A)
    if A.dtype in _dtype.HALF_FLOATS:
        _low_precision(A, "linalg.solve")
    x = Solve.apply(A, b) if left else _mT(Solve.apply(_mT(A), _mT(b)))  # (X A = B: A^T X^T = B^T)
    if vector or not left:
        x = _solve_node(x.squeeze(-1) if vector else x, A, B, left)
    return _write_exact(x, out)


def _solve_node(x: Tensor, A: Tensor, B: Tensor, left: bool) -> Tensor:
    """x as torch's one LinalgSolveExBackward0 records it where Solve's node is not that one:
    for a vector B (torch's kernel takes the vector itself, not a column) and for left=False (a
    solve of the transposes). Its edges are A and B; it saves A and the result."""
    if not x._requires_grad:
        return x
    attrs = {"kept_device": x._device, "left": left}
    return as_node(x, "LinalgSolveExBackward0", (A, B), saved=(A, x), attrs=attrs)


show_saved(  # grad_fn._saved_<name> (as torch's: the LU and pivots of A, recomputed when asked)
    "LinalgSolveExBackward0",
    {
        "A": saved_value(0),
        "LU": lambda node: _lu_of(saved_value(0)(node), 0),
        "pivots": lambda node: _lu_of(saved_value(0)(node), 1),
        "left": "left",
        "result": saved_value(1),
    },
)


_REQUIRED = object()  # upper has no default: torch's parser words its absence its own way


def linalg_solve_triangular(
    input, B, *args, upper=_REQUIRED, left=True, unitriangular=False, out=None
):
    """X with T X = B (X T = B if not left), T the upper or lower triangle of A = input (torch's
    keyword name). Mirrors torch.linalg.solve_triangular."""
    if args:  # solve_triangular(A, B, False): upper is keyword-only (torch's words)
        raise too_many_positional("linalg_solve_triangular", 2 + len(args), 2, 3)
    if upper is _REQUIRED:  # scipy's solve_triangular defaults to lower=False; torch has none
        raise missing_positional("linalg_solve_triangular", "upper")
    for name, flag in (("upper", upper), ("left", left), ("unitriangular", unitriangular)):
        check_bool("linalg_solve_triangular", flag, name)
    A = input
    # torch checks the shapes (A's, B's, then their batches) before A's dtype
    _check_matrix(A, "linalg.solve_triangular", floating=False)
    if not isinstance(B, Tensor):
        raise wrong_type("linalg_solve_triangular", B, "B", 2, "Tensor")
    if B.ndim < 2:
        raise RuntimeError(
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."
        )
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    _check_batches(B, A)
    _check_matrix(A, "linalg.solve_triangular")
    if B.dtype is not A.dtype:  # torch solves in A's dtype (B float64, A float32: float32)
        B = B.to(A.dtype)
    if left:
        x = SolveTriangular.apply(A, B, upper=upper, unitriangular=unitriangular)
    else:
        x = _mT(SolveTriangular.apply(_mT(A), _mT(B), upper=not upper, unitriangular=unitriangular))
        if x._requires_grad:  # torch's one node (the solve of the transposes folded into it)
            attrs = {"kept_device": x._device, "upper": upper, "unitriangular": unitriangular}
            x = as_node(x, "LinalgSolveTriangularBackward0", (A, B), saved=(A, x), attrs=attrs)
    if out is not None and isinstance(out, Tensor) and out.dtype is not x.dtype:
        # See NOTE [ linalg out= dtypes ]; this kernel words the refusal its own way
        raise RuntimeError(f"expected scalar type {_short(x.dtype)} but found {_short(out.dtype)}")
    return _write(x, out)


@_exact_out
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """(solution, cloned_coefficient) of op(A) X = input. Mirrors torch.triangular_solve."""
    check_tensors("triangular_solve", ("input", input), ("A", A))
    for pos, (name, flag) in enumerate(
        (("upper", upper), ("transpose", transpose), ("unitriangular", unitriangular)), 3
    ):
        check_bool("triangular_solve", flag, name, pos)
    from minitorch._ops.linalg_factor import _warn_deprecated

    _warn_deprecated(
        "triangular_solve",
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
        "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has "
        "its arguments reversed and does not return a copy of one of the inputs.\n"
        "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).",
    )
    if _autocast.state.any_enabled:
        return _autocast.call(
            triangular_solve,
            _autocast.FP32_CPU,
            (input, A, upper, transpose, unitriangular),
            {},
        )
    _check_triangular_solve(input, A)
    a = _mT(A) if transpose else A
    x = linalg_solve_triangular(a, input, upper=upper != transpose, unitriangular=unitriangular)
    # one kernel in torch: one TriangularSolveBackward0 for both results, edges (input, A)
    attrs = {"kept_device": A._device, "upper": upper, "transpose": transpose}
    attrs["unitriangular"] = unitriangular
    res = as_node(
        (x, A.clone()), "TriangularSolveBackward0", (input, A), saved=(A, input, x), attrs=attrs
    )
    return return_types.triangular_solve(res)


show_saved(  # grad_fn._saved_<name> (as torch's)
    "TriangularSolveBackward0",
    {"A": saved_value(0), "self": saved_value(1), "solution": saved_value(2)}
    | {k: k for k in ("upper", "transpose", "unitriangular")},
)


def _check_triangular_solve(B, A):
    """torch.triangular_solve's argument checks, in its order: the ranks (b first), then its
    linearSolveCheckInputs (device, dtype, A square, A's size against b's rows), then the batch
    dims; A is checked before any transpose."""
    for name, x in (("b", B), ("A", A)):
        if x.ndim < 2:
            raise RuntimeError(
                f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it "
                f"has {x.ndim} dimensions instead"
            )
    if B.device != A.device:
        raise RuntimeError(
            f"Expected b and A to be on the same device, but found b on {B.device} and A on "
            f"{A.device} instead."
        )
    if B.dtype is not A.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_short(B.dtype)} and "
            f"A of type {_short(A.dtype)} instead."
        )
    m, n = A.shape[-2:]
    if m != n:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for triangular_solve: each A matrix is {n} by {n} but "
            f"each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    _check_batches(B, A)


def _factor_product(L, upper, op, kernel):
    """L L^T (U^T U when upper) from the factor's triangle. torch differentiates cholesky_solve
    and cholesky_inverse as if the whole factor entered (grad_L = (G + G^T) L, L all of input2,
    its other triangle too): the product's value is the triangle's, its derivatives (first and
    second) those of the whole factor's product, through a term of value zero."""
    if L.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    m, n = L.shape[-2:]
    if m != n:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {m} by {n} matrices"
        )
    if not L.dtype.is_floating_point or L.dtype in _dtype.HALF_FLOATS:  # (after the shapes)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(L.dtype)}'")
    t = L.triu() if upper else L.tril()
    if L.requires_grad:
        whole = _mT(L) @ L if upper else L @ _mT(L)
        t = t.detach()
        return (_mT(t) @ t if upper else t @ _mT(t)) + (whole - whole.detach())
    return _mT(t) @ t if upper else t @ _mT(t)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """X with (L L^T) X = B given the Cholesky factor L (U^T U when upper): B is input, L
    input2 (torch's names). Mirrors torch.cholesky_solve."""
    check_tensors("cholesky_solve", ("input", input), ("input2", input2))
    check_bool("cholesky_solve", upper, "upper", 3)
    B, L = input, input2
    if _autocast.state.any_enabled:
        return _autocast.call(cholesky_solve, _autocast.FP32_CPU, (B, L, upper), {"out": out})
    if isinstance(B, Tensor) and isinstance(L, Tensor) and B.dtype != L.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_short(B.dtype)} and "
            f"A of type {_short(L.dtype)} instead."
        )
    for x, name in ((B, "b"), (L, "u")):
        if x.ndim < 2:
            raise RuntimeError(
                f"{name} should have at least 2 dimensions, but has {x.ndim} dimensions instead"
            )
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {L.shape[-2]} by "
            f"{L.shape[-1]} matrices"
        )
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-1]} by "
            f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    _check_batches(B, L)
    a = _factor_product(L, upper, "cholesky_solve", "cholesky_solve_cpu")
    try:
        x = Solve.apply(a, B)
    except LinAlgError:  # an error path: NumPy refused a singular L L^T
        # torch's two triangular solves divide by the zero pivot: inf / nan, no error
        t = L.triu() if upper else L.tril()
        y = linalg_solve_triangular(_mT(t) if upper else t, B, upper=False)
        x = linalg_solve_triangular(t if upper else _mT(t), y, upper=True)
    # torch's one node, with edges to B and L (not to the product L L^T solved here)
    x = as_node(x, "CholeskySolveBackward0", (B, L), saved=(B, L, x))
    return _write_castable(x, out, "cholesky_solve")


def _check_factor_diagonal(L):
    """torch's cholesky_inverse (LAPACK's potri) refuses a factor with a zero on its diagonal,
    however L L^T rounds (in float32 it need not be singular to NumPy's inverse). A host check,
    so on the CPU only, where it is free."""
    if L._device.type != "cpu":
        return
    zero = L._device.backend.xp.diagonal(L._data, axis1=-2, axis2=-1) == 0
    if zero.any():
        index, element = _first_failure(zero.argmax(-1) + zero.any(-1))
        raise LinAlgError(
            f"cholesky_inverse: {_batch_prefix(L.shape, index or 0)}The diagonal element "
            f"{element} is zero, the inversion could not be completed because the input matrix "
            "is singular."
        )


def cholesky_inverse(input, upper=False, *, out=None):
    """(L L^T)^-1 from the Cholesky factor L = input. Mirrors torch.cholesky_inverse."""
    check_tensors("cholesky_inverse", ("input", input))
    check_bool("cholesky_inverse", upper, "upper", 2)
    if _autocast.state.any_enabled:
        return _autocast.call(cholesky_inverse, _autocast.FP32_CPU, (input, upper), {"out": out})
    a = _factor_product(input, upper, "cholesky_inverse", "cholesky_inverse_out_cpu")
    _check_factor_diagonal(input)
    x = Inv.apply(a, op="cholesky_inverse")
    x = as_node(x, "CholeskyInverseBackward0", (input,), saved=(input, x))
    return _write_castable(x, out, "cholesky_inverse")


# --- LU factorization and LU solves ---


class LuFactor(Function):
    """(LU, pivots, info) = getrf(A);  for square A, with gL / gU the strict lower / upper
    triangle of grad_LU: grad_A = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T.
    Wide A (m < n, U = [U1 U2]): U2 = L^-1 P^T A2 adds -gU2 U2^T to L^T gL, and
    grad_A2 = P L^-T gU2. Tall A (m > n, L = [L1; L2]): L2 = (P^T A)_2 U^-1 adds -L2^T gL2 to
    gU U^T, and grad_(P^T A)_2 = gL2 U^-T."""

    _node_name = "LinalgLuFactorExBackward0"
    _saved_names = ("LU",)  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {
        "pivot": lambda node: True,
        "pivots": lambda node: _make(node.piv, node._out_device, False, None),
    }

    @staticmethod
    def forward(ctx, a):
        xp = ctx.xp
        lu, piv, info = _lu_raw(xp, a._data)
        ctx.save_for_backward(lu)
        ctx.piv = piv
        ctx.set_materialize_grads(False)
        return lu, piv, info.astype(xp.int32)

    @staticmethod
    def backward(ctx, grad, grad_piv=None, grad_info=None):
        # (one gradient: See NOTE [ Outputs that are not differentiable ])
        if grad is None:
            return None
        (lu,) = ctx._stored_tensors
        m, n = lu.shape[-2:]
        if not m * n:
            return grad * 0  # empty matrices: an empty gradient, whatever their shape
        k = min(m, n)
        xp = lu._device.backend.xp
        p = _make(_perm_raw(xp, lu._data, ctx.piv), lu._device, False, None)
        square = lu.narrow(-2, 0, k).narrow(-1, 0, k)
        g = grad.narrow(-2, 0, k).narrow(-1, 0, k)
        low = square.tril(-1) + _eye_like(lu, k)
        up = square.triu()
        phi_l = _mT(low) @ g.tril(-1)
        phi_u = g.triu() @ _mT(up)
        if m < n:
            u2, g2 = lu.narrow(-1, k, n - k), grad.narrow(-1, k, n - k)
            phi_l = phi_l - g2 @ _mT(u2)
        elif m > n:
            l2, g2 = lu.narrow(-2, k, m - k), grad.narrow(-2, k, m - k)
            phi_u = phi_u - _mT(l2) @ g2
        phi = phi_l.tril(-1) + phi_u.triu()
        x = SolveTriangular.apply(_mT(low), phi, upper=True, unitriangular=True)  # L^-T phi
        y = _mT(SolveTriangular.apply(up, _mT(x), upper=True))  # (L^-T phi) U^-T
        if m < n:  # the columns right of U1: P L^-T gU2
            from minitorch._ops.shape_join import cat

            right = SolveTriangular.apply(_mT(low), g2, upper=True, unitriangular=True)
            y = cat([y, right], -1)
        elif m > n:  # the rows below L1: gL2 U^-T
            from minitorch._ops.shape_join import cat

            below = _mT(SolveTriangular.apply(up, _mT(g2), upper=True))
            y = cat([y, below], -2)
        return p @ y


def _lu_factor(A, pivot, op):
    if pivot.__class__ is not bool:  # torch's parser: a bool only (torch.lu(A, 1) is a mistake)
        name = {"lu": "_lu_with_info"}.get(op, op.replace(".", "_"))
        raise TypeError(f"{name}(): argument 'pivot' must be bool, not {_dtype._typename(pivot)}")
    _check_matrix(A, op, square=False)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    return LuFactor.apply(A)


@_exact_out
def linalg_lu_factor(A, *, pivot=True):
    """(LU, pivots) by partial pivoting; a singular matrix raises (torch's RuntimeError pointing
    to lu_factor_ex). Mirrors torch.linalg.lu_factor. Differences from torch: the singularity
    check reads info on the host, so it runs on the CPU only (on a GPU torch synchronises)."""
    lu, piv, info = _lu_factor(A, pivot, "linalg.lu_factor")
    if A._device.type == "cpu":  # no device read
        _raise_lu_info(info._data, A._data.shape, "linalg.lu_factor")
    return return_types.linalg_lu_factor((lu, piv))


def _pivots_out_of_range(pivots, m):
    """What torch's CPU kernels (lu_solve, lu_unpack) find wrong with 1-based pivots for m rows:
    "greater or equal to 1" or "smaller or equal to LU.size(-2)" (the bound they break), or None.
    Those checks read the pivots; torch's CUDA kernels make none, nor does a device here."""
    if pivots._device.type != "cpu" or not pivots.numel():
        return None
    piv = pivots._data
    if piv.size <= 64:  # a few pivots: Python's min and max, the same answer
        flat = piv.ravel().tolist()
        if min(flat) < 1:
            return "greater or equal to 1"
        return "smaller or equal to LU.size(-2)" if max(flat) > m else None
    if (piv < 1).any():
        return "greater or equal to 1"
    if (piv > m).any():
        return "smaller or equal to LU.size(-2)"
    return None


def _unpack(LU, pivots):
    """(P, L, U) from a packed LU (L and U differentiable in LU; P a constant)."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    p = _perm(LU, pivots)
    if not fast_path[0]:  # a profile sees every op, as it always did
        eye = _eye_like(LU, max(m, n)).narrow(-2, 0, m).narrow(-1, 0, k)
        return p, LU.narrow(-1, 0, k).tril(-1) + eye, LU.narrow(-2, 0, k).triu()
    xp = LU._device.backend.xp
    eye = _make(xp.eye(m, k, dtype=LU._data.dtype), LU._device, False, None)
    # (a narrow to the whole length is the tensor's own values, its gradient grad's: skipped)
    low = (LU.narrow(-1, 0, k) if k < n else LU).tril(-1) + eye
    up = (LU.narrow(-2, 0, k) if k < m else LU).triu()
    return p, low, up


def _perm(LU, pivots):
    """P with A = P L U, of LU's dtype and device, from the 1-based pivots (a constant)."""
    lu = LU._data
    return _make(_perm_raw(LU._device.backend.xp, lu, pivots._data), LU._device, False, None)


def _perm_raw(xp, lu, piv):
    """_perm's array: the rows of the identity that the row interchanges of piv put in place,
    as columns (a transposed view, as it always was)."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    nb = math.prod(batch)  # (a -1 in reshape is ambiguous for empty matrices)
    if nb * k <= _PERM_BY_INTS and on_host(xp):  # a few host pivots: Python ints (exact)
        perms = []
        for row in piv.reshape((nb, k)).tolist():
            perm = list(range(m))
            for j, p in enumerate(row):
                p -= 1
                perm[j], perm[p] = perm[p], perm[j]
            perms.append(perm)
        perm = xp.array(perms, dtype=xp.int64).reshape(batch + (m,))
    else:
        flat_perm = xp.broadcast_to(xp.arange(m), (nb, m)).copy()
        flat_piv = piv.reshape((nb, k)).astype(xp.int64) - 1
        rows = xp.arange(nb)
        for j in range(k):
            p = flat_piv[:, j]
            pj = flat_perm[rows, j].copy()
            flat_perm[rows, j] = flat_perm[rows, p]
            flat_perm[rows, p] = pj
        perm = flat_perm.reshape(batch + (m,))
    # P with A = P L U: column j of P^T... P[perm[i], i] = 1
    return xp.swapaxes(xp.eye(m, dtype=lu.dtype)[perm], -1, -2)


_PERM_BY_INTS = 256  # pivots swapped as Python ints up to this many (NumPy's loop past them)


@_exact_out
def linalg_lu(A, *, pivot=True):
    """(P, L, U) with A = P L U. Mirrors torch.linalg.lu."""
    lu, piv, _ = _lu_factor(A, pivot, "linalg.lu")
    p, low, up = _unpack(lu, piv)
    # one kernel in torch: L and U come from one LinalgLuBackward0 (outputs 0 and 1, P being a
    # constant), whose edge is A
    attrs = {"kept_device": A._device, "pivot": pivot}
    as_node((low, up), "LinalgLuBackward0", (A,), saved=(p, low, up), attrs=attrs)
    return return_types.linalg_lu((p, low, up))


show_saved(  # grad_fn._saved_<name> (as torch's)
    "LinalgLuBackward0",
    {"P": saved_value(0), "L": saved_value(1), "U": saved_value(2), "pivot": "pivot"},
)


@_exact_out
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from lu_factor's output (L and U differentiable in LU_data). Mirrors
    torch.lu_unpack."""
    if LU_data.ndim < 2:
        raise RuntimeError(
            "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(LU_data.shape)} instead"
        )
    k = min(LU_data.shape[-2:])
    if unpack_pivots:  # (torch reads the pivots only for P: then they must be lu_factor's)
        if LU_pivots.dtype is not _dtype.int32:
            raise RuntimeError(
                "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                "dtype.\nNote: this function is intended to be used with the output produced by "
                "torch.linalg.lu_factor"
            )
        if not LU_pivots.ndim or LU_pivots.shape[-1] < k:
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                "properly pass the result of lu_factor?"
            )
        # torch reads the first min(m, n) of them, broadcast over LU's batch (read only: where
        # they are of that shape already, as they are)
        want = LU_data._data.shape[:-2] + (k,)
        if LU_pivots._data.shape != want or not fast_path[0]:  # (a profile sees the views)
            LU_pivots = LU_pivots.narrow(-1, 0, k).expand(want)
        if _pivots_out_of_range(LU_pivots, LU_data.shape[-2]):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                "properly pass the result of lu_factor?"
            )
    else:
        LU_pivots = _make(
            LU_data._device.backend.xp.ones(LU_data.shape[:-2] + (k,), dtype="int32"),
            LU_data._device, False, None,
        )
    p, low, up = _unpack(LU_data, LU_pivots)
    # the parts not asked for come back empty, as torch (L and U still in LU_data's graph)
    if not unpack_pivots:
        p = LU_data.new_empty((0,))
    if not unpack_data:
        low, up = (LU_data.reshape(-1).narrow(0, 0, 0) for _ in "LU")
    m, n = LU_data.shape[-2:]  # torch's one node (outputs 0 and 1), saving LU_data's sizes
    attrs = {"LU_data_sym_argsize_minus_1": n, "LU_data_sym_argsize_minus_2": m}
    as_node((low, up), "LuUnpackBackward0", (LU_data,), attrs=attrs)
    return return_types.lu_unpack((p, low, up))


show_saved(
    "LuUnpackBackward0",
    {f"LU_data_sym_argsize_minus_{k}": f"LU_data_sym_argsize_minus_{k}" for k in (1, 2)},
)


def _solve_triangular(A, B, *, upper, unitriangular=False):
    """linalg_solve_triangular(A, B) (left) for square float32 or float64 A and a B that its
    checks pass, of A's dtype: its one node, without the checks."""
    return SolveTriangular.apply(A, B, upper=upper, unitriangular=unitriangular)


_SOLVE_DTYPES = (_dtype.float32, _dtype.float64)
_solve_ex_type = return_types.linalg_solve_ex
_lu_factor_ex_type = return_types.linalg_lu_factor_ex
_lu_with_info_type = return_types._lu_with_info


@_exact_out
def linalg_lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info): info per matrix the 1-based index of the first zero pivot, else 0.
    Mirrors torch.linalg.lu_factor_ex."""
    lu, piv, info = _lu_factor(A, pivot, "linalg.lu_factor_ex")
    if check_errors:
        _raise_lu_info(info._data, A._data.shape, "linalg.lu_factor_ex")
    return _lu_factor_ex_type((lu, piv, info))


def _raise_lu_info(info, shape, op):
    index, element = _first_failure(info)  # an error path: reads the host
    if index is not None:
        # torch raises a plain RuntimeError here (not LinAlgError)
        raise RuntimeError(
            f"torch.{op}: {_batch_prefix(shape, index)}U[{element},{element}] is zero and using "
            "it on lu_solve would result in a division by zero. If you still want to perform "
            "the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
            "pivot)"
        )


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots) or (LU, pivots, infos). Mirrors torch.lu (deprecated in torch)."""
    from minitorch._ops.linalg_factor import _warn_deprecated

    if not isinstance(A, Tensor):  # torch's Python passes A on by position, before any warning
        raise TypeError(
            f"_lu_with_info(): argument 'input' (position 1) must be Tensor, not {type_name(A)}"
        )
    # once per process, as torch's TORCH_WARN_ONCE (every call after set_warn_always(True))
    _warn_deprecated(
        "lu",
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)",
    )
    if pivot.__class__ is not bool:
        _lu_factor(A, pivot, "lu")  # torch's TypeError, named as its _lu_with_info
    r = linalg_lu_factor_ex(A, pivot=pivot)
    result = _lu_with_info_type(tuple(r)) if get_infos else (r[0], r[1])
    if out is None:
        return result
    # torch's Python wrapper: each given tensor resized as its result and copied into (a cast
    # of any dtype, recorded by autograd), and `out` itself returned
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for o, t in zip(out, result, strict=True):
        o.resize_as_(t).copy_(t)
    return out


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (X A = B if not left; A^T if adjoint) from lu_factor's output. Mirrors
    torch.linalg.lu_solve (differentiable in LU and B)."""
    if _autocast.state.any_enabled:  # one kernel in torch, on no autocast list: no cast inside
        return _autocast.call(
            linalg_lu_solve, "", (LU, pivots, B), {"left": left, "adjoint": adjoint, "out": out}
        )
    solve_tri = linalg_solve_triangular
    if not (isinstance(pivots, Tensor) and isinstance(B, Tensor)):
        check_tensors("linalg_lu_solve", ("LU", LU), ("pivots", pivots), ("B", B))
    check_bool("linalg_lu_solve", left, "left")
    check_bool("linalg_lu_solve", adjoint, "adjoint")
    _check_matrix(LU, "linalg.lu_solve")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if LU.dtype is not B.dtype:
        raise RuntimeError(
            f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{_short(LU.dtype)} and B of type {_short(B.dtype)} instead"
        )
    if pivots.dtype is not _dtype.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            "linalg.lu_solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    if not pivots.ndim:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if pivots.shape[-1] != n:
        raise RuntimeError(
            "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the "
            "matrix"
        )
    if pivots.shape != LU.shape[:-1]:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
            f"pivots with shape {list(pivots.shape)} instead"
        )
    _check_batches(B, LU)
    bad = _pivots_out_of_range(pivots, n)
    if bad:
        raise RuntimeError(
            f"Pivots given to lu_solve must all be {bad}. Did you properly pass the result of "
            "lu_factor?"
        )
    p = _perm(LU, pivots)
    # A = P L U. X A = B is A^T X^T = B^T; X A^T = B is A X^T = B^T.
    b = B if left else _mT(B)
    transposed = adjoint == left  # solve with A^T
    if LU.dtype in _SOLVE_DTYPES:  # solve_triangular's checks pass: its node at once
        solve_tri = _solve_triangular
    if not transposed:
        y = solve_tri(LU, _mT(p) @ b, upper=False, unitriangular=True)
        x = solve_tri(LU, y, upper=True)
    else:  # A^T = U^T L^T P^T
        y = solve_tri(_mT(LU), b, upper=False)
        x = p @ solve_tri(_mT(LU), y, upper=True, unitriangular=True)
    x = x if left else _mT(x)
    # one kernel in torch: one LinalgLuSolveBackward0 node, edges (LU, B)
    x = as_node(x, "LinalgLuSolveBackward0", (LU, B), saved=(LU, pivots, x))
    return _write_exact(x, out)


def lu_solve(input, LU_data=REQUIRED, LU_pivots=REQUIRED, *, out=None):
    """Mirrors torch.lu_solve (deprecated in torch for linalg.lu_solve)."""
    if all(isinstance(t, Tensor) for t in (input, LU_data, LU_pivots)):  # after torch's parser
        from minitorch._ops.linalg_factor import _warn_deprecated

        _warn_deprecated(
            "lu_solve",
            "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed "
            "in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments "
            "reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
            "X = torch.linalg.lu_solve(LU, pivots, B)",
        )
    else:
        check_tensors("lu_solve", ("input", input), ("LU_data", LU_data), ("LU_pivots", LU_pivots))
    return linalg_lu_solve(LU_data, LU_pivots, input, out=out)


@_exact_out
def linalg_solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info). Mirrors torch.linalg.solve_ex: for a singular matrix info holds the
    1-based index of LU's first zero pivot and the result LAPACK's inf/nan (an error only with
    check_errors)."""
    check_tensors("linalg_solve_ex", ("A", A), ("B", B))
    check_bool("linalg_solve_ex", left, "left")
    check_bool("linalg_solve_ex", check_errors, "check_errors")
    xp = A._device.backend.xp
    try:
        x = linalg_solve(A, B, left=left)
    except LinAlgError as e:  # an error path (the pivots were read): some matrix is singular
        if check_errors:
            raise LinAlgError(
                str(e).replace("torch.linalg.solve:", "torch.linalg.solve_ex:")
            ) from None
        vector = _solve_vector_case(A, B)
        b = B.unsqueeze(-1) if vector else B
        if left:
            x = Solve.apply(A, b, unchecked="N")
        else:  # torch solves A^T X^T = B^T through A's own LU
            x = _mT(Solve.apply(_mT(A), _mT(b), unchecked="T"))
        if vector or not left:
            x = _solve_node(x.squeeze(-1) if vector else x, A, B, left)
        info = _lu_raw(xp, A._data)[2].astype(xp.int32)  # per matrix of A, as torch
        return _solve_ex_type((x, _make(info, A._device, False, None)))
    info = _make(xp.zeros(A._data.shape[:-2], dtype=xp.int32), A._device, False, None)
    return _solve_ex_type((x, info))
