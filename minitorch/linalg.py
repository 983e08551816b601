"""torch.linalg: the norms and products implemented so far. Mirrors torch.linalg."""

from __future__ import annotations

from minitorch._ops.linalg import matmul, vdot
from minitorch._ops.reduction_more import linalg_norm as norm
from minitorch._ops.reduction_more import matrix_norm, vector_norm

__all__ = ["vector_norm", "matrix_norm", "norm", "matmul", "vecdot", "vdot"]


def vecdot(x, y, *, dim=-1):
    """Dot product of vectors along dim, broadcasting the rest. Mirrors torch.linalg.vecdot."""
    from minitorch._ops.reduction import sum

    return sum(x * y, dim)


_unused = (matmul, vdot, norm, matrix_norm, vector_norm)
