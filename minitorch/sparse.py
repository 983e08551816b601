"""torch.sparse: its matrix products, for the dense tensors minitorch has (it has no sparse
layouts), so code written for torch.sparse runs on dense adjacency matrices."""

from __future__ import annotations

import minitorch as torch  # noqa: F401 (torch.sparse.torch is torch: CapsNet code's one-hot idiom)
from minitorch import _ops
from minitorch._tensor import Tensor

__all__ = ["mm", "addmm"]


def mm(mat1: Tensor, mat2: Tensor, reduce: str | None = None) -> Tensor:
    """mat1 @ mat2. Mirrors torch.sparse.mm on strided (dense) inputs.

    Differences from torch: no sparse inputs exist here; the output's grad_fn is MmBackward0
    (torch's dense path shows a TransposeBackward0 over the same product)."""
    if reduce is not None:
        # torch's reduce= runs only on a sparse CSR mat1: on dense ones it has no kernel
        raise NotImplementedError(
            f"sparse.mm: reduce={reduce!r} needs a sparse CSR mat1, which minitorch does not have"
        )
    return _ops.mm(mat1, mat2)


def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1.0, alpha=1.0) -> Tensor:
    """beta * mat + alpha * (mat1 @ mat2). Mirrors torch.sparse.addmm on strided inputs.

    Differences from torch: no sparse inputs exist here; the output's grad_fn is AddmmBackward0
    (torch's is SparseAddmmBackward0)."""
    return _ops.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)
