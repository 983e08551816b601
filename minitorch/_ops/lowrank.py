"""Randomized low-rank SVD and PCA: svd_lowrank, pca_lowrank (Halko, Martinsson and Tropp,
"Finding structure with randomness", 2009), composed from matmul, QR and SVD."""

from __future__ import annotations

from minitorch import _dtype
from minitorch._ops.linalg import matmul
from minitorch._ops.linalg_factor import linalg_qr, linalg_svd
from minitorch._tensor import Tensor

__all__ = ["svd_lowrank", "pca_lowrank"]


def _approximate_basis(A: Tensor, q: int, niter: int) -> Tensor:
    """Q with orthonormal columns whose span approximates A's range (Halko et al., Algorithm
    4.4): A times a Gaussian test matrix, then niter power iterations through A^T and A, each
    product re-orthonormalized by QR so small singular directions survive rounding."""
    from minitorch.random import randn

    dt = A.dtype if A.dtype.is_floating_point else _dtype.float32  # as torch: float32 for ints
    omega = randn(A.shape[-1], q, dtype=dt, device=A.device)  # minitorch's generator
    Q = linalg_qr(matmul(A, omega)).Q
    At = A.mH
    for _ in range(niter):
        Q = linalg_qr(matmul(At, Q)).Q
        Q = linalg_qr(matmul(A, Q)).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """(U, S, V), an approximate SVD of A - M (M broadcast to A) of rank at most q, with
    A - M ~ U diag(S) V^H: U is (*, m, k), S (*, k), V (*, n, k). Mirrors torch.svd_lowrank.

    As torch (2.4 on), a wide A is transposed to a tall one (m >= n), the basis Q (m x q, after
    niter power iterations) is found for its column space from an n x q Gaussian test matrix
    drawn from the global generator, and Q^H A is decomposed: the same draws, so the same S and
    U diag(S) V^H as torch's for the same seed. Differences from torch: M is subtracted from A
    first (torch multiplies by A and M separately, which keeps a sparse A sparse: no sparse
    tensors here); the signs of U's and V's columns are linalg_svd's of the q x n matrix Q^H A,
    which is wide when q < n, so a pair of them is often flipped against torch's."""
    if A.ndim < 2:  # torch unpacks A.shape[-2:]: Python's own message, no op name
        raise ValueError(f"not enough values to unpack (expected 2, got {A.ndim})")
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    if M is not None:
        A = A - M.broadcast_to(A.shape)
    wide = A.shape[-2] < A.shape[-1]
    if wide:
        A = A.mH
    Q = _approximate_basis(A, q, niter)  # (*, m, k): A's column space
    U, S, Vh = linalg_svd(matmul(Q.mH, A), full_matrices=False)
    U, V = matmul(Q, U), Vh.mH
    if wide:
        U, V = V, U
    return U, S, V


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """(U, S, V), the approximate SVD of A less its column means (when center), of rank q
    (default min(6, m, n)): the principal directions are V's columns, the variances S**2 / (m - 1).
    Mirrors torch.pca_lowrank; differences from torch: those of svd_lowrank."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter=niter)
