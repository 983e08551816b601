"""torch.linalg: the norms and products implemented so far. Mirrors torch.linalg."""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch._ops._common import check_tensors
from minitorch._ops.linalg import _short, matmul, vdot
from minitorch._ops.linalg_factor import linalg_cholesky as cholesky
from minitorch._ops.linalg_factor import linalg_cholesky_ex as cholesky_ex
from minitorch._ops.linalg_factor import linalg_eig as eig
from minitorch._ops.linalg_factor import linalg_eigh as eigh
from minitorch._ops.linalg_factor import linalg_eigvals as eigvals
from minitorch._ops.linalg_factor import linalg_eigvalsh as eigvalsh
from minitorch._ops.linalg_factor import linalg_householder_product as householder_product
from minitorch._ops.linalg_factor import linalg_qr as qr
from minitorch._ops.linalg_factor import linalg_svd as svd
from minitorch._ops.linalg_factor import linalg_svdvals as svdvals
from minitorch._ops.linalg_ldl import linalg_ldl_factor as ldl_factor
from minitorch._ops.linalg_ldl import linalg_ldl_factor_ex as ldl_factor_ex
from minitorch._ops.linalg_ldl import linalg_ldl_solve as ldl_solve
from minitorch._ops.linalg_matfn import linalg_cond as cond
from minitorch._ops.linalg_matfn import linalg_lstsq as lstsq
from minitorch._ops.linalg_matfn import linalg_matrix_exp as matrix_exp
from minitorch._ops.linalg_matfn import linalg_matrix_power as matrix_power
from minitorch._ops.linalg_matfn import linalg_matrix_rank as matrix_rank
from minitorch._ops.linalg_matfn import linalg_pinv as pinv
from minitorch._ops.linalg_more import linalg_cross as cross
from minitorch._ops.linalg_more import linalg_multi_dot as multi_dot
from minitorch._ops.linalg_more import linalg_vander as vander
from minitorch._ops.linalg_solve import LinAlgError
from minitorch._ops.linalg_solve import linalg_det as det
from minitorch._ops.linalg_solve import linalg_inv as inv
from minitorch._ops.linalg_solve import linalg_inv_ex as inv_ex
from minitorch._ops.linalg_solve import linalg_lu as lu
from minitorch._ops.linalg_solve import linalg_lu_factor as lu_factor
from minitorch._ops.linalg_solve import linalg_lu_factor_ex as lu_factor_ex
from minitorch._ops.linalg_solve import linalg_lu_solve as lu_solve
from minitorch._ops.linalg_solve import linalg_slogdet as slogdet
from minitorch._ops.linalg_solve import linalg_solve as solve
from minitorch._ops.linalg_solve import linalg_solve_ex as solve_ex
from minitorch._ops.linalg_solve import linalg_solve_triangular as solve_triangular
from minitorch._ops.reduction_more import linalg_norm as norm
from minitorch._ops.reduction_more import matrix_norm, vector_norm
from minitorch._tensor import Tensor

__all__ = ["vector_norm", "matrix_norm", "norm", "matmul", "vecdot", "vdot"]
# decompositions and solvers (minitorch/_ops/linalg_solve.py, linalg_factor.py, linalg_matfn.py)
# fmt: off
__all__ += [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "det", "eig", "eigh", "eigvalsh", "inv",
    "inv_ex", "lstsq", "lu", "lu_factor", "matrix_exp", "matrix_power", "matrix_rank", "pinv", "qr",
    "slogdet", "solve", "solve_triangular", "svd", "svdvals", "eigvals", "householder_product",
    "lu_factor_ex", "lu_solve", "solve_ex", "cross", "multi_dot", "vander", "diagonal",
    "tensorinv", "tensorsolve", "ldl_factor", "ldl_factor_ex", "ldl_solve",
]
# fmt: on


def vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along dim, broadcasting the rest. Mirrors torch.linalg.vecdot."""
    check_tensors("linalg_vecdot", ("x", x), ("y", y))
    if _autocast.state.any_enabled:
        return _autocast.call(vecdot, _autocast.LOWER, (x, y), {"dim": dim, "out": out})
    from minitorch._ops.reduction import sum

    _check_vecdot(x, y)
    if out is not None and isinstance(out, Tensor) and out.dtype is not x.dtype:
        # refused, not cast (torch's message lacks the space after "dtype")
        raise RuntimeError(
            f"linalg.vecdot: Expected out of dtype{_short(x.dtype)} but found {_short(out.dtype)}"
        )
    if x.ndim == 1 and y.ndim == 1:  # torch's kernel: vdot (dim unread, no broadcasting)
        return vdot(x, y, out=out)
    return sum(x * y, dim, out=out)


def _check_vecdot(x, y):
    """torch's vecdot takes floating operands of one dtype (no promotion)."""
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
            f"{_short(x.dtype)}"
        )
    if y.dtype is not x.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{_short(x.dtype)} and y of type {_short(y.dtype)} instead"
        )


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of a batch of matrices (a view). Mirrors torch.linalg.diagonal."""
    check_tensors("linalg_diagonal", ("A", A))
    return A.diagonal(offset, dim1, dim2)


def _prod(shape) -> int:
    r = 1
    for s in shape:
        r *= s
    return r


def tensorinv(input, ind=2, *, out=None):
    """The inverse of A = input for tensordot over ind dims: shape A.shape[ind:] +
    A.shape[:ind]. Mirrors torch.linalg.tensorinv."""
    A = input  # torch's keyword name
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {cols} != {rows}"
        )
    try:
        r = inv(A.reshape(rows, cols)).reshape(shape[ind:] + shape[:ind])
    except LinAlgError as e:  # an error path: torch checks inv_ex's info under the name "inv"
        raise LinAlgError(str(e).replace("linalg.inv:", "inv:", 1)) from None
    return r if out is None else _copy_out(out, r, "tensorinv")


def tensorsolve(input, other, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B (A = input, B = other: torch's keyword names).
    Mirrors torch.linalg.tensorsolve."""
    A, B = input, other
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = A.movedim(moved, list(range(A.ndim - len(moved), A.ndim)))
    rest = tuple(A.shape)[B.ndim :]
    # torch compares the product of the result's shape with B's size (not A's leading dims')
    cols, rows = _prod(rest), _prod(B.shape)
    if rows != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {cols} != {rows}"
        )
    r = solve(A.reshape(cols, rows), B.reshape(rows)).reshape(rest)
    return r if out is None else _copy_out(out, r, "tensorsolve")


def _copy_out(out, result, op):
    from minitorch._ops.linalg_solve import _write_castable

    return _write_castable(result, out, op)


def _numpy_aliases():
    # torch.linalg's functions go through torch's argument parser, which takes NumPy's axis= and
    # keepdims= (NOTE [ NumPy argument aliases ] in minitorch/_ops)
    from minitorch._ops import _with_numpy_aliases

    g = globals()
    for name in ("norm", "vector_norm", "matrix_norm", "cross", "vecdot"):
        fn = g[name] = _with_numpy_aliases(g[name])
        fn.__module__, fn.__qualname__ = __name__, name  # pickled by reference, as torch's


_numpy_aliases()
