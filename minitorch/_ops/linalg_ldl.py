"""LDL^T factorizations (Bunch-Kaufman diagonal pivoting, LAPACK's sytf2/sytrs): linalg.ldl_factor,
ldl_factor_ex and ldl_solve."""

from __future__ import annotations

import math

from minitorch import _dtype, return_types
from minitorch._ops._common import broadcast_pair, quiet
from minitorch._ops.linalg import _short
from minitorch._ops.linalg_solve import (
    _check_matrix,
    _exact_out,
    _write_exact,
)
from minitorch._ops.sorting import no_derivative
from minitorch._tensor import Tensor, _make

_LDL_ALPHA = (1 + math.sqrt(17)) / 8  # Bunch-Kaufman's growth bound


def _first_max(xp, v) -> int:
    """BLAS idamax: the first index of the largest |v|, NaN never larger (a NaN first wins)."""
    a = xp.abs(v)
    if xp.isnan(a[0]):
        return 0
    return int(xp.argmax(xp.where(xp.isnan(a), -1, a)))


def _nan_max(a, b):
    # LAPACK's MAX(ABSAKK, COLMAX) as compiled (x86 maxsd): the second operand when either is NaN
    return b if (a != a or b != b) else max(a, b)


def _sytf2(xp, a):
    """(LD, pivots, info) of one symmetric matrix (its lower triangle) as LAPACK's unblocked
    lower Bunch-Kaufman (dsytf2, UPLO='L') leaves them: the pivot choice, the interchanges
    within the trailing matrix only, the 1x1 and 2x2 updates. A host loop over the columns."""
    n = a.shape[-1]
    w = xp.tril(a).copy()
    piv = xp.zeros(n, dtype=xp.int32)
    info = 0
    alpha = w.dtype.type(_LDL_ALPHA)
    k = 0
    with quiet(xp, all="ignore"):  # IEEE arithmetic as LAPACK's on inf/NaN/singular input
        while k < n:
            step = 1
            absakk = abs(w[k, k])
            imax, colmax = k, w.dtype.type(0)
            if k + 1 < n:
                imax = k + 1 + _first_max(xp, w[k + 1 :, k])
                colmax = abs(w[imax, k])
            if _nan_max(absakk, colmax) == 0:
                info = info or k + 1
                kp = k
            else:
                kp, step = _ldl_pivot(xp, w, k, imax, absakk, colmax, alpha)
                _ldl_swap(w, k, k + step - 1, kp, step)
                if step == 1:
                    _ldl_update1(xp, w, k)
                else:
                    _ldl_update2(xp, w, k)
            if step == 1:
                piv[k] = kp + 1
            else:
                piv[k] = piv[k + 1] = -(kp + 1)
            k += step
    return xp.tril(w), piv, info


def _ldl_pivot(xp, w, k, imax, absakk, colmax, alpha):
    """(kp, step): the row brought to k (or k + 1 for a 2x2 block) and the block size."""
    if absakk >= alpha * colmax:
        return k, 1
    jmax = k + _first_max(xp, w[imax, k:imax])  # largest off-diagonal entry of row imax
    rowmax = abs(w[imax, jmax])
    if imax + 1 < w.shape[-1]:
        jmax = imax + 1 + _first_max(xp, w[imax + 1 :, imax])
        rowmax = max(rowmax, abs(w[jmax, imax]))
    if absakk >= alpha * colmax * (colmax / rowmax):
        return k, 1
    if abs(w[imax, imax]) >= alpha * rowmax:
        return imax, 1
    return imax, 2


def _ldl_swap(w, k, kk, kp, step):
    """Interchanges rows and columns kk and kp of the trailing matrix w[k:, k:] (lower part)."""
    if kp == kk:
        return
    w[kp + 1 :, [kk, kp]] = w[kp + 1 :, [kp, kk]]
    col = w[kk + 1 : kp, kk].copy()
    w[kk + 1 : kp, kk] = w[kp, kk + 1 : kp]
    w[kp, kk + 1 : kp] = col
    w[kk, kk], w[kp, kp] = w[kp, kp], w[kk, kk]
    if step == 2:
        w[k + 1, k], w[kp, k] = w[kp, k], w[k + 1, k]


def _ldl_update1(xp, w, k):
    if k + 1 < w.shape[-1]:
        d11 = 1 / w[k, k]
        x = w[k + 1 :, k]
        w[k + 1 :, k + 1 :] -= xp.outer(x, d11 * x)  # the upper part is never read
        w[k + 1 :, k] = x * d11


def _ldl_update2(xp, w, k):
    if k + 2 < w.shape[-1]:
        d21 = w[k + 1, k]
        d11 = w[k + 1, k + 1] / d21
        d22 = w[k, k] / d21
        t = 1 / (d11 * d22 - 1)
        d21 = t / d21
        c0, c1 = w[k + 2 :, k].copy(), w[k + 2 :, k + 1].copy()
        wk = d21 * (d11 * c0 - c1)
        wkp1 = d21 * (d22 * c1 - c0)
        w[k + 2 :, k + 2 :] -= xp.outer(c0, wk) + xp.outer(c1, wkp1)
        w[k + 2 :, k] = wk
        w[k + 2 :, k + 1] = wkp1


def _cpu_only(t: Tensor, op: str) -> None:
    if t._device.type != "cpu":
        raise NotImplementedError(
            f"{op}: implemented for CPU tensors only (a host loop over the columns), got a "
            f"tensor on {t._device}"
        )


def _check_ldl(A: Tensor, op: str, kernel: str) -> None:
    """torch's checks of an LDL matrix, in its order: dimensions, shape, dtype."""
    _check_matrix(A, op, floating=False)
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {_short(A.dtype)}"
        )
    if A.dtype in _dtype.HALF_FLOATS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(A.dtype)}'")
    _cpu_only(A, op)


def _ldl_factor(A, hermitian, op):
    _check_ldl(A, "torch.linalg.ldl_factor_ex", "ldl_factor_kernel_cpu")
    xp = A._device.backend.xp
    a = A._data
    n = a.shape[-1]
    batch = a.shape[:-2]
    flat = a.reshape((-1, n, n)) if a.size else a.reshape((math.prod(batch), n, n))
    ld = xp.zeros(flat.shape, dtype=a.dtype)
    piv = xp.zeros(flat.shape[:-1], dtype=xp.int32)
    info = xp.zeros(flat.shape[0], dtype=xp.int32)
    for b in range(flat.shape[0]):
        ld[b], piv[b], info[b] = _sytf2(xp, flat[b])
    dev = A._device
    LD = _make(ld.reshape(a.shape), dev, False, None)
    LD = no_derivative(LD, (A,), "linalg_ldl_factor_ex")
    pivots = _make(piv.reshape(batch + (n,)), dev, False, None)
    return LD, pivots, _make(info.reshape(batch), dev, False, None)


def _raise_ldl_info(info, op) -> None:
    # torch (2.13) has no message for a singular D: its internal assert fires, naming the code
    # of the first failing matrix. (Reads info on the host: the factorization is CPU-only.)
    codes = info[info != 0]
    if codes.size:
        raise RuntimeError(
            'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/native/'
            'BatchLinearAlgebra.cpp":1642, please report a bug to PyTorch. '
            f"{op}: Unknown error code: {int(codes[0])}."
        )


@_exact_out
def linalg_ldl_factor(A, *, hermitian=False):
    """(LD, pivots): A = P L D L^T P^T by Bunch-Kaufman diagonal pivoting on the lower triangle of
    A, D with 1x1 and 2x2 blocks (a 2x2 block: the same negative pivot twice). A singular D
    raises (torch's internal-assert RuntimeError). Mirrors torch.linalg.ldl_factor.
    Differences from torch: CPU tensors only (NotImplementedError otherwise; the pivoting is a
    host loop); the pivots are LAPACK's unblocked dsytf2's, which torch's sytrf also uses up to
    64 x 64 (larger matrices may get other pivots, an equally valid factorization); no complex."""
    LD, pivots, info = _ldl_factor(A, hermitian, "torch.linalg.ldl_factor")
    _raise_ldl_info(info._data, "torch.linalg.ldl_factor")
    return return_types.linalg_ldl_factor((LD, pivots))


@_exact_out
def linalg_ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """(LD, pivots, info): ldl_factor with info per matrix, the 1-based index of the first zero
    pivot block (else 0). Mirrors torch.linalg.ldl_factor_ex (differences: ldl_factor's)."""
    LD, pivots, info = _ldl_factor(A, hermitian, "torch.linalg.ldl_factor_ex")
    if check_errors:
        _raise_ldl_info(info._data, "torch.linalg.ldl_factor_ex")
    return return_types.linalg_ldl_factor_ex((LD, pivots, info))


def _sytrs(xp, ld, piv, b):
    """X with A X = b for A = P L D L^T P^T packed in (ld, piv) (LAPACK's dsytrs, lower)."""
    n = ld.shape[-1]
    b = b.copy()
    k = 0
    while k < n:  # L D y = P^T b, block by block
        if piv[k] > 0:
            kp = int(piv[k]) - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1 :] -= xp.outer(ld[k + 1 :, k], b[k])
            b[k] = b[k] / ld[k, k]
            k += 1
        else:
            kp = -int(piv[k]) - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2 :] -= xp.outer(ld[k + 2 :, k], b[k]) + xp.outer(ld[k + 2 :, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / akm1k
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T x = y, then the interchanges back
        if piv[k] > 0:
            b[k] -= ld[k + 1 :, k] @ b[k + 1 :]
            kp = int(piv[k]) - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= ld[k + 1 :, k] @ b[k + 1 :]
            b[k - 1] -= ld[k + 1 :, k - 1] @ b[k + 1 :]
            kp = -int(piv[k]) - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _check_ldl_solve(LD, pivots, B, op):
    _check_ldl(LD, op, "ldl_solve_kernel_cpu")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
            f"shape {list(pivots.shape)} instead"
        )
    if pivots.dtype.is_floating_point or pivots.dtype is _dtype.bool:
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got {_short(pivots.dtype)}")
    if B.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(B.ndim, 1)}, "
            f"{max(B.ndim, 1) - 1}], but got -2)"
        )
    if B.dtype is not LD.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {_short(B.dtype)} "
            f"and A of type {_short(LD.dtype)} instead."
        )
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix "
            f"is {B.shape[-2]} by {B.shape[-1]}"
        )
    _cpu_only(B, op)


def linalg_ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B from ldl_factor's (LD, pivots), batches broadcast. Mirrors
    torch.linalg.ldl_solve. Differences from torch: CPU tensors only (NotImplementedError
    otherwise); no complex; no derivative (torch has none either: its backward raises)."""
    op = "torch.linalg.ldl_solve"
    _check_ldl_solve(LD, pivots, B, op)
    xp = LD._device.backend.xp
    batch = broadcast_pair(B.shape[:-2], LD.shape[:-2])  # torch's message: B is "a"
    n, m = LD.shape[-1], B.shape[-1]
    k = math.prod(batch)  # (not -1: an empty matrix leaves it undetermined)
    ld = xp.broadcast_to(LD._data, batch + (n, n)).reshape((k, n, n))
    piv = xp.broadcast_to(pivots._data, batch + (n,)).reshape((k, n))
    b = xp.broadcast_to(B._data, batch + (n, m)).reshape((k, n, m))
    x = xp.empty(b.shape, dtype=b.dtype)
    with quiet(xp, all="ignore"):
        for i in range(b.shape[0]):
            x[i] = _sytrs(xp, ld[i], piv[i], b[i])
    result = _make(x.reshape(batch + (n, m)), LD._device, False, None)
    result = no_derivative(result, (LD, B), "linalg_ldl_solve")
    return _write_exact(result, out)
