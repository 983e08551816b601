"""torch.linalg: the norms and products implemented so far. Mirrors torch.linalg."""

from __future__ import annotations

from minitorch._ops.linalg import matmul, vdot
from minitorch._ops.linalg_decomp import LinAlgError
from minitorch._ops.linalg_decomp import linalg_cholesky as cholesky
from minitorch._ops.linalg_decomp import linalg_cholesky_ex as cholesky_ex
from minitorch._ops.linalg_decomp import linalg_cond as cond
from minitorch._ops.linalg_decomp import linalg_det as det
from minitorch._ops.linalg_decomp import linalg_eig as eig
from minitorch._ops.linalg_decomp import linalg_eigh as eigh
from minitorch._ops.linalg_decomp import linalg_eigvalsh as eigvalsh
from minitorch._ops.linalg_decomp import linalg_inv as inv
from minitorch._ops.linalg_decomp import linalg_inv_ex as inv_ex
from minitorch._ops.linalg_decomp import linalg_lstsq as lstsq
from minitorch._ops.linalg_decomp import linalg_lu as lu
from minitorch._ops.linalg_decomp import linalg_lu_factor as lu_factor
from minitorch._ops.linalg_decomp import linalg_matrix_exp as matrix_exp
from minitorch._ops.linalg_decomp import linalg_matrix_power as matrix_power
from minitorch._ops.linalg_decomp import linalg_matrix_rank as matrix_rank
from minitorch._ops.linalg_decomp import linalg_pinv as pinv
from minitorch._ops.linalg_decomp import linalg_qr as qr
from minitorch._ops.linalg_decomp import linalg_slogdet as slogdet
from minitorch._ops.linalg_decomp import linalg_solve as solve
from minitorch._ops.linalg_decomp import linalg_solve_triangular as solve_triangular
from minitorch._ops.linalg_decomp import linalg_svd as svd
from minitorch._ops.linalg_decomp import linalg_svdvals as svdvals
from minitorch._ops.reduction_more import linalg_norm as norm
from minitorch._ops.reduction_more import matrix_norm, vector_norm

__all__ = ["vector_norm", "matrix_norm", "norm", "matmul", "vecdot", "vdot"]
# decompositions and solvers (minitorch/_ops/linalg_decomp.py)
# fmt: off
__all__ += [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "det", "eig", "eigh", "eigvalsh", "inv",
    "inv_ex", "lstsq", "lu", "lu_factor", "matrix_exp", "matrix_power", "matrix_rank", "pinv", "qr",
    "slogdet", "solve", "solve_triangular", "svd", "svdvals",
]
# fmt: on


def vecdot(x, y, *, dim=-1):
    """Dot product of vectors along dim, broadcasting the rest. Mirrors torch.linalg.vecdot."""
    from minitorch._ops.reduction import sum

    return sum(x * y, dim)


