"""Grouped matrix products for Mixture-of-Experts layers: torch._grouped_mm (F.grouped_mm)."""

from __future__ import annotations

from minitorch import _dtype
from minitorch._ops.linalg import _product, _require_tensor
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, name_node

__all__ = ["_grouped_mm"]


# NOTE [ Grouped GEMM layouts ]
# Four operand layouts, each a list of per-group products; a 2-d operand is cut into groups
# along one dim by `offs` (group g runs from offs[g-1], or 0, to offs[g], as a Python slice:
# out-of-range ends clamp, a decreasing pair is an empty group, as torch's CPU loop slices):
#   2d x 3d  a (M, K), b (G, K, N) -> (M, N):    out[s:e]    = a[s:e] @ b[g]   (tokens by expert)
#   3d x 2d  a (G, M, K), b (K, N) -> (M, N):    out[:, s:e] = a[g] @ b[:, s:e]
#   2d x 2d  a (M, K), b (K, N) -> (G, M, N):    out[g]      = a[:, s:e] @ b[s:e]  (weight grads)
#   3d x 3d  a (G, M, K), b (G, K, N) -> (G, M, N): a batched product, no offs
# Each layout's gradients are grouped products of another layout with the same cuts (2d x 3d's
# grad_b is a 2d x 2d product, ...), so backward calls GroupedMm again and stays differentiable.


def _cuts(bounds):
    """(group, start, end) for each group of the cut dim."""
    return [(g, 0 if g == 0 else bounds[g - 1], e) for g, e in enumerate(bounds)]


class GroupedMm(Function):
    """out = the grouped products of NOTE [ Grouped GEMM layouts ];  grad_a and grad_b are
    grouped products of grad with the other operand (transposed), over the same cuts"""

    @staticmethod
    def forward(ctx, a, b, *, bounds=None):
        needs = ctx.needs_input_grad
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        ctx.bounds = bounds
        xp, ad, bd = ctx.xp, a._data, b._data
        if bounds is None:  # 3d x 3d
            return _product(xp, ad, bd, False, False)
        if ad.ndim == 2 and bd.ndim == 3:
            out = xp.zeros((ad.shape[0], bd.shape[2]), dtype=ad.dtype)
            for g, s, e in _cuts(bounds):
                out[s:e] = _product(xp, ad[s:e], bd[g], False, False)
        elif ad.ndim == 3:  # 3d x 2d
            out = xp.zeros((ad.shape[1], bd.shape[1]), dtype=ad.dtype)
            for g, s, e in _cuts(bounds):
                out[:, s:e] = _product(xp, ad[g], bd[:, s:e], False, False)
        else:  # 2d x 2d
            out = xp.zeros((len(bounds), ad.shape[0], bd.shape[1]), dtype=ad.dtype)
            for g, s, e in _cuts(bounds):
                out[g] = _product(xp, ad[:, s:e], bd[s:e], False, False)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        bounds = ctx.bounds
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = GroupedMm.apply(grad, b.mT, bounds=bounds)
        if ctx.needs_input_grad[1]:
            gb = GroupedMm.apply(a.mT, grad, bounds=bounds)
        return ga, gb


_GROUPED_DTYPES = (_dtype.float32, _dtype.bfloat16, _dtype.float16)


def _check_strides(x: Tensor):
    """torch's grouped GEMM layout rule, checked on CPU too: one of the last two dims is
    unit-stride, the other steps at least a row, by a multiple of 16 bytes."""
    arr = x._data
    item = arr.itemsize
    rows, cols = arr.shape[-2:]
    s_row, s_col = (s // item for s in arr.strides[-2:])
    if s_col == 1 and s_row >= max(1, cols):
        step = s_row
    elif s_row == 1 and s_col >= max(1, rows):
        step = s_col
    else:
        strides = [s // item for s in arr.strides]
        raise RuntimeError(
            f"Invalid strides/sizes, got {strides} for strides and {list(arr.shape)} for sizes"
        )
    if (step * item) % 16:
        raise RuntimeError("strides should be multiple of 16 bytes")


def _check(a: Tensor, b: Tensor, offs, bias, out_dtype):
    """torch's checks, in torch's order."""
    for name, x in (("mat_a", a), ("mat_b", b)):
        if x.dtype not in _GROUPED_DTYPES:
            raise RuntimeError(
                f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                f"{_dtype.scalar_name(x.dtype)}"
            )
    for name, x in (("mat_a", a), ("mat_b", b)):
        if x.ndim not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    if (a.ndim == 3 or b.ndim == 3) and a.shape[-1] != b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    _check_strides(a)
    _check_strides(b)
    if (offs is None) != (a.ndim == 3 and b.ndim == 3):
        raise RuntimeError(
            "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d"
        )
    if offs is not None:
        if offs.ndim != 1:
            raise RuntimeError("offs has to be 1D")
        if offs.dtype is not _dtype.int32:
            raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and out_dtype is not a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if offs is None:
        if a.shape[0] != b.shape[0]:
            raise RuntimeError("batched dimension has to match")
    elif a.ndim == 3 or b.ndim == 3:
        if offs.shape[0] != (a if a.ndim == 3 else b).shape[0]:
            raise RuntimeError("matrix batch sizes have to match")


def _check_groups(a: Tensor, b: Tensor, bounds):
    """The per-group product errors torch's CPU loop raises (mixed dtypes, 2d x 2d cuts that
    leave a and b different lengths), once the layout checks passed."""
    groups = a.shape[0] if bounds is None else len(bounds)
    if a.dtype is not b.dtype and groups:
        want, got = _dtype.CPP_NAMES[b.dtype.name], _dtype.CPP_NAMES[a.dtype.name]
        if bounds is None:  # torch's bmm into an out tensor of a's dtype
            raise RuntimeError(f"Expected out tensor to have dtype {want}, but got {got} instead")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {got} != {want}")
    if bounds is not None and a.ndim == 2 and b.ndim == 2:
        m, k = a.shape
        n = b.shape[1]
        for _, s, e in _cuts(bounds):
            ka, kb = len(range(k)[s:e]), len(range(b.shape[0])[s:e])
            if ka != kb:
                raise RuntimeError(
                    f"mat1 and mat2 shapes cannot be multiplied ({m}x{ka} and {kb}x{n})"
                )


def _grouped_mm(input, mat2, offs=None, bias=None, out_dtype=None):
    """The grouped products of `input` (mat_a) and `mat2` (mat_b), cut by the int32 `offs`
    (NOTE [ Grouped GEMM layouts ]). Mirrors torch._grouped_mm (and F.grouped_mm).

    Differences from torch: rows or columns of the output that no group covers (past offs[-1])
    are zeros, where torch leaves them uninitialized. Off the CPU, offs stays on the device
    (reading it would wait for the device): each group's product is taken over the whole
    operand and masked to the group's rows (G times the work of torch's kernel), offs must be
    non-decreasing there, and the dtype/length errors of torch's per-group loop are not raised."""
    _require_tensor(input, "_grouped_mm", "input", 1)
    _require_tensor(mat2, "_grouped_mm", "mat2", 2)
    if offs is not None:
        _require_tensor(offs, "_grouped_mm", "offs", 3)
    _check(input, mat2, offs, bias, out_dtype)
    if offs is not None and offs._device.type != "cpu":
        return name_node(_masked_groups(input, mat2, offs), "GroupedMmBackward0", (input, mat2))
    bounds = None
    if offs is not None:  # on the CPU: the group slices, as torch's CPU loop takes them
        bounds = [int(v) for v in offs._data.tolist()]
    _check_groups(input, mat2, bounds)
    return GroupedMm.apply(input, mat2, bounds=bounds)


def _masked_groups(a: Tensor, b: Tensor, offs: Tensor) -> Tensor:
    """The grouped products of a 2-d operand cut by offs, with offs left on the device: each
    group's product over the whole operand, masked to the group's part of the cut dim (a
    composite of Tensor ops, so differentiable as they are)."""
    import minitorch as _mt

    groups = offs.shape[0]
    cut = a.shape[0] if b.ndim == 3 else (b.shape[1] if a.ndim == 3 else a.shape[1])
    pos = _mt.arange(cut, device=offs.device, dtype=offs.dtype)
    group = _mt.searchsorted(offs, pos, right=True)  # the group of each row (column, k)
    if a.ndim == 2 and b.ndim == 3:  # rows of a by expert
        out = None
        for g in range(groups):
            part = (a @ b[g]) * (group == g).unsqueeze(1)
            out = part if out is None else out + part
        return out
    if a.ndim == 3:  # columns of b by group
        out = None
        for g in range(groups):
            part = (a[g] @ b) * (group == g).unsqueeze(0)
            out = part if out is None else out + part
        return out
    return _mt.stack([(a * (group == g)) @ b for g in range(groups)])  # the shared k cut


def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """torch.nn.functional.grouped_mm: torch._grouped_mm with keyword-only options. Mirrors
    torch.nn.functional.grouped_mm."""
    return _grouped_mm(mat_a, mat_b, offs, bias, out_dtype)
