"""Distances between rows: cdist (torch's direct and matrix-product forms) and the kernels of
pdist, in blocks of rows so that the (rows x rows x features) differences never exist at once."""

from __future__ import annotations

import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._ops._common import broadcast_pair, cast, check_float
from minitorch._ops.linalg import _require_tensor, _short
from minitorch._tensor import _make
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import Function

__all__ = ["cdist"]


def _ops():
    from minitorch import _ops

    return _ops


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of x1 and of x2 (batched). Mirrors torch.cdist,
    including its choice of the matrix-product form for p = 2 (compute_mode: by default when
    either input has more than 25 rows), whose digits and gradient differ from the direct
    form's. Differences from torch: the direct form for p other than 1 holds a P x R x M
    difference tensor per batch (for p = 2 only while its forward or backward runs)."""
    out = _cdist(x1, x2, p, compute_mode)
    if out.grad_fn is not None and out.grad_fn.__class__.__name__ == "ViewBackward0":
        return out  # the matrix-product form: torch's graph is a view of EuclideanDistBackward0
    if not _grad_enabled():
        return out
    # torch's node saves both inputs and the result: changing one in place refuses backward
    attrs = {"kept_device": out._device, "p": float(p)}  # (torch's double p)
    return as_node(out, "CdistBackward0", (x1, x2), saved=(x1, x2, out), attrs=attrs)


show_saved(  # grad_fn._saved_<name> (as torch's)
    "CdistBackward0",
    {"x1": saved_value(0), "x2": saved_value(1), "result": saved_value(2), "p": "p"},
)


def _grad_enabled() -> bool:
    from minitorch.autograd.grad_mode import state

    return state.enabled


def _cdist(x1, x2, p, compute_mode):
    _require_tensor(x1, "cdist", "x1", 1)
    _require_tensor(x2, "cdist", "x2", 2)
    if p.__class__ is not float:  # (an int p too; torch's Python passes it on by position)
        check_float("cdist", p, "p", 3)
    if _autocast.state.any_enabled:
        return _autocast.call(cdist, _autocast.FP32_CPU, (x1, x2, p, compute_mode))
    from minitorch._ops.reduction_more import vector_norm

    modes = (
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    )
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    # torch's order: both inputs' dims, the columns, then both dtypes
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {_short(x.dtype)}"
            )
    if not p >= 0:  # (a NaN p too)
        raise RuntimeError("cdist only supports non-negative p values")
    x2 = _cdist_kernel_dtypes(x1, x2, p, compute_mode)
    if _by_matmul(x1, x2, p, compute_mode):
        return _euclidean_dist(x1, x2)
    if p == 1 and 0 not in x1.shape and 0 not in x2.shape:
        return _cdist_p1(x1, x2)
    if p == 2:
        return _batched(DirectEuclideanDist, x1, x2)
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 0:
        # the count of differing coordinates, through sign so that the inputs get torch's zero
        # gradient (vector_norm's count is not differentiable: no gradient at all); a NaN
        # coordinate makes the count NaN, as torch's kernel (sign(nan) is 0)
        ops = _ops()
        return ops.where(diff.isnan(), math.nan, diff.sign().abs()).sum(-1)
    if p == math.inf:
        return LinfDistance.apply(diff, skip_nan=True)
    if p < 1:
        diff = zero_diffs_selected(diff)
    return vector_norm(diff, p, -1)


def zero_diffs_selected(diff):
    """diff with its zeros taken by a select, for 0 < p < 1: torch's cdist and pdist kernels give
    a coordinate whose difference is 0 a zero gradient (its |diff| ** (p - 1) is infinite), where
    vector_norm's backward makes it NaN once the distance is infinite or NaN."""
    return _ops().where(diff == 0, 0.0, diff)


class LinfDistance(Function):
    """out = max |diff| over the last dim;  grad_diff = grad * sign(diff) where |diff| == out.
    cdist's and pdist's own backward: every coordinate tied for the max gets the whole gradient
    (torch's kernels do so), where linalg.vector_norm's shares it among the ties. skip_nan:
    cdist's kernel passes over NaN coordinates (their max starts at 0 and a NaN never compares
    greater), pdist's gives NaN."""

    @staticmethod
    def forward(ctx, diff, *, skip_nan=False):
        x = diff._data
        xp = ctx.xp
        if x.shape[-1] == 0:  # no coordinates: distance 0, as torch (max has no identity)
            out = xp.zeros(x.shape[:-1], dtype=x.dtype)
        else:
            a = xp.abs(x)
            if skip_nan:
                a = xp.where(xp.isnan(a), 0, a)
            out = a.max(axis=-1)
        ctx.save_for_backward(diff, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        diff, out = ctx._stored_tensors
        d = diff._data
        xp = ctx.xp
        # the ties as a constant 0/1 factor (a product, not a where: a NaN sign stays NaN), NaN
        # where |diff| - out is (a NaN coordinate or distance, or an infinite tie), as torch's
        gap = xp.abs(d) - out._data[..., None]
        w = xp.where(xp.isnan(gap), xp.nan, gap == 0).astype(d.dtype, copy=False)
        return grad.unsqueeze(-1) * diff.sign() * _make(w, diff._device, False, None)


# NOTE [ pdist by row blocks ]
# pdist's N (N - 1) / 2 pairs used to be gathered into one (pairs, M) difference tensor: 2000 rows
# of 64 took 9.3 s forward (torch: 47 ms) and its backward ran past 30 s. p = 2 now runs as three
# array kernels over blocks of rows, each holding at most _BLOCK elements of differences at a time:
# the distances, PairCombine (the gradient's sum of weighted differences) and PairDot (PairCombine's
# gradient with respect to its weights). Each one's backward is made of the others, so the double
# backward stays in the same kernels. The distances keep the gathered form's digits (the same
# differences and sums); the gradients differ from it in the order of their sums only.
_BLOCK = 1 << 20


def _row_blocks(n: int, others: int, m: int):
    """(start, stop) of the blocks of n rows whose differences with `others` rows (m columns
    each) hold about _BLOCK elements."""
    step = max(1, _BLOCK // max(1, others * m))
    return ((i, min(i + step, n)) for i in range(0, n, step))


def _upper_pairs(xp, a, i0, i1):
    """The values of a, the rows i0..i1 and columns i0 + 1.. of an n x n matrix, at the pairs
    i < j in pdist's order (integer indices: a boolean mask would read its count back from a
    GPU)."""
    r, c = xp.triu_indices(i1 - i0, 0, a.shape[1])
    return a[r, c]


def _pair_matrix(xp, w, n):
    """The symmetric n x n matrix with pdist-ordered pair values w above and below the diagonal."""
    full = xp.zeros((n, n), dtype=w.dtype)
    i, j = xp.triu_indices(n, 1)
    full[i, j] = w
    full[j, i] = w
    return full


def _by_row_blocks(xp, a, reduce):
    """pdist's values of the rows of a: reduce(diff) for each block of rows i0:i1, diff the
    differences a_i - a_j for the columns j > i0 (half in float32: vector_norm's rule), its
    upper pairs kept in pdist's order (NOTE [ pdist by row blocks ])."""
    n, m = a.shape
    parts = []
    for i0, i1 in _row_blocks(n, n, m):
        diff = a[i0:i1, None, :] - a[None, i0 + 1 :, :]
        if diff.dtype.itemsize == 2:
            diff = diff.astype("float32")
        parts.append(_upper_pairs(xp, reduce(diff), i0, i1))
    return xp.concatenate(parts).astype(a.dtype, copy=False)


class PairwiseDistance2(Function):
    """out = ||x_i - x_j||_2 for the rows i < j of x (pdist's order);  grad_x = PairCombine(
    grad / out (0 where out is 0, torch's subgradient), x)  (NOTE [ pdist by row blocks ])"""

    @staticmethod
    def forward(ctx, x):
        xp = ctx.xp

        def norms(diff):
            if diff.shape[-1] == 1:  # one coordinate: |diff| itself (vector_norm's rule)
                return xp.abs(diff[..., 0])
            diff *= diff
            return xp.sqrt(xp.add.reduce(diff, axis=-1))

        out = _by_row_blocks(xp, x._data, norms)
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx._stored_tensors
        # grad / out at a zero distance is masked before the product with the differences, as
        # vector_norm's gradient (a NaN upstream gradient stays NaN there)
        w = _ops().where(out == 0, grad * 0.0, grad / out)
        return PairCombine.apply(w, x)


def _combine_rows(xp, w, a, of_diff):
    """out_i = sum over j != i of w_ij f(a_i - a_j) (f = of_diff, or the difference itself for
    None), w the pdist-ordered pair weights (symmetric), by blocks of rows."""
    n, m = a.shape
    full = _pair_matrix(xp, w.astype(a.dtype, copy=False), n)
    out = xp.empty_like(a)
    for i0, i1 in _row_blocks(n, n, m):
        diff = a[i0:i1, None, :] - a[None, :, :]
        k = xp.arange(i1 - i0)
        diff[k, k + i0] = 0  # a row's pair with itself adds nothing (not w_ii times inf - inf)
        if of_diff is not None:
            diff = of_diff(diff)
        out[i0:i1] = xp.matmul(full[i0:i1, None, :], diff)[:, 0, :]
    return out


class PairCombine(Function):
    """out_i = sum over j != i of w_ij (x_i - x_j), w the pdist-ordered pair weights (symmetric);
    bilinear: grad_w = PairDot(grad, x), grad_x = PairCombine(w, grad)"""

    @staticmethod
    def forward(ctx, w, x):
        ctx.save_for_backward(w, x)
        return _combine_rows(ctx.xp, w._data, x._data, None)

    @staticmethod
    def backward(ctx, grad):
        w, x = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            PairDot.apply(grad, x) if needs[0] else None,
            PairCombine.apply(w, grad) if needs[1] else None,
        )


class PairDot(Function):
    """out_ij = <a_i - a_j, b_i - b_j> for the rows i < j (pdist's order);  grad_a =
    PairCombine(grad, b), grad_b = PairCombine(grad, a)"""

    @staticmethod
    def forward(ctx, a, b):
        xp = ctx.xp
        x, y = a._data, b._data
        n, m = x.shape
        parts = []
        for i0, i1 in _row_blocks(n, n, m):
            dx = x[i0:i1, None, :] - x[None, i0 + 1 :, :]
            dx *= y[i0:i1, None, :] - y[None, i0 + 1 :, :]
            parts.append(_upper_pairs(xp, xp.add.reduce(dx, axis=-1), i0, i1))
        ctx.save_for_backward(a, b)
        return xp.concatenate(parts)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            PairCombine.apply(grad, b) if needs[0] else None,
            PairCombine.apply(grad, a) if needs[1] else None,
        )


# NOTE [ pdist p = 1 by row blocks ]
# p = 1 went through the gathered (pairs, M) differences and vector_norm: 500 rows of 64 took
# 17 ms forward (torch: 0.5 ms). It now walks the same row blocks as p = 2 (NOTE [ pdist by row
# blocks ]): the distances are vector_norm's sums of the same differences (the same digits), the
# gradient is PairSignSum (the sum of the weighted signs of the differences) and PairSignDot its
# adjoint; both are linear in their weights, with the zero derivative of the signs in x.


class PairwiseDistance1(Function):
    """out = sum |x_i - x_j| for the rows i < j of x (pdist's order);  grad_x =
    PairSignSum(grad, x)  (NOTE [ pdist p = 1 by row blocks ])"""

    @staticmethod
    def forward(ctx, x):
        xp = ctx.xp
        ctx.save_for_backward(x)
        return _by_row_blocks(xp, x._data, lambda d: xp.add.reduce(xp.abs(d, out=d), axis=-1))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        return PairSignSum.apply(grad, x)


class PairSignSum(Function):
    """out_i = sum over j != i of w_ij sign(x_i - x_j), w the pdist-ordered pair weights
    (symmetric);  linear in w: grad_w = PairSignDot(grad, x); zero for x"""

    @staticmethod
    def forward(ctx, w, x):
        ctx.save_for_backward(x)
        return _combine_rows(ctx.xp, w._data, x._data, ctx.xp.sign)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            PairSignDot.apply(grad, x) if needs[0] else None,
            x.new_zeros(x.shape) if needs[1] else None,
        )


class PairSignDot(Function):
    """out_ij = <g_i - g_j, sign(x_i - x_j)> for the rows i < j (pdist's order);  linear in g:
    grad_g = PairSignSum(grad, x); zero for x"""

    @staticmethod
    def forward(ctx, g, x):
        xp = ctx.xp
        gd, a = g._data, x._data
        n, m = a.shape
        parts = []
        for i0, i1 in _row_blocks(n, n, m):
            dg = gd[i0:i1, None, :] - gd[None, i0 + 1 :, :]
            dg *= xp.sign(a[i0:i1, None, :] - a[None, i0 + 1 :, :])
            parts.append(_upper_pairs(xp, xp.add.reduce(dg, axis=-1), i0, i1))
        ctx.save_for_backward(x)
        return xp.concatenate(parts)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            PairSignSum.apply(grad, x) if needs[0] else None,
            x.new_zeros(x.shape) if needs[1] else None,
        )


def _by_matmul(x1, x2, p, compute_mode) -> bool:
    """torch's rule for cdist's matrix-product form: p = 2, with use_mm_for_euclid_dist or (the
    default) more than 25 rows in x1 or x2; never for an empty input."""
    if p != 2 or compute_mode == "donot_use_mm_for_euclid_dist":
        return False
    if 0 in x1.shape or 0 in x2.shape:
        return False
    return compute_mode == "use_mm_for_euclid_dist" or x1.shape[-2] > 25 or x2.shape[-2] > 25


def _euclidean_dist(x1, x2):
    """cdist's matrix-product form on inputs of one dtype, batch dims broadcast as torch's (a
    view of EuclideanDist, as torch's graph)."""
    p_rows, r_rows, m = x1.shape[-2], x2.shape[-2], x1.shape[-1]
    if x1.ndim == 2 and x2.ndim == 2:
        return EuclideanDist.apply(x1, x2).view(p_rows, r_rows)
    batch = broadcast_pair(x1.shape[:-2], x2.shape[:-2])
    a = x1.expand(*batch, p_rows, m).reshape(-1, p_rows, m)
    b = x2.expand(*batch, r_rows, m).reshape(-1, r_rows, m)
    return EuclideanDist.apply(a, b).view(*batch, p_rows, r_rows)


class EuclideanDist(Function):
    """out = sqrt(max(|a_i|^2 - 2 a_i . b_j + |b_j|^2, 0)) by one matrix product, torch's cdist
    for p = 2 on more than 25 rows: 2000 x 2000 rows of 64 took 1.6 s through the P x R x M
    difference tensor (torch: 54 ms);  with r = grad / out (0 where out is 0, torch's
    subgradient): grad_a = a * sum_j r - r @ b,  grad_b = b * sum_i r - r^T @ a"""

    _saved_names = ("x1", "x2", "result")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        from minitorch._ops.linalg import _product

        xp = ctx.xp
        x, y = a._data, b._data
        # torch's augmented operands [-2a, |a|^2, 1] and [b, 1, |b|^2]: the norms go through the
        # same product (its rounding), the clamp takes off the negative rounding errors
        aug_x = xp.concatenate([-2 * x, _sq_norms(xp, x), xp.ones_like(x[..., :1])], axis=-1)
        aug_y = xp.concatenate([y, xp.ones_like(y[..., :1]), _sq_norms(xp, y)], axis=-1)
        out = _product(xp, aug_x, aug_y, False, True)
        out = xp.sqrt(xp.maximum(out, 0, out=out), out=out)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, r = _grad_ratio(ctx, grad)
        needs = ctx.needs_input_grad
        ga = a * r.sum(-1, keepdim=True) - r @ b if needs[0] else None
        gb = b * r.sum(-2).unsqueeze(-1) - r.mT @ a if needs[1] else None
        return ga, gb


def _grad_ratio(ctx, grad):
    """(a, b, r) for a Euclidean distance's backward: its inputs and r = grad / out, 0 where out
    is 0, even for a NaN upstream gradient (torch fills the ratio there): a double backward's
    NaN at those places (its 0 / 0 of d(grad / out)) is dropped so."""
    a, b, out = ctx._stored_tensors
    return a, b, _ops().where(out == 0, 0.0, grad / out)


class DirectEuclideanDist(EuclideanDist):
    """out = sqrt(sum (a_i - b_j)^2) from the differences: torch's direct kernel for p = 2, which
    saves only the inputs and the result (what a saved_tensors_hooks pair sees);  with
    r = grad / out (0 where out is 0): grad_a = sum_j r (a_i - b_j), grad_b = -sum_i r (a_i - b_j),
    from the differences as torch's (EuclideanDist's a * sum r - r @ b cancels: float32 inputs
    near 100 lost three digits)."""

    @staticmethod
    def forward(ctx, a, b):
        xp = ctx.xp
        diff = a._data[..., :, None, :] - b._data[..., None, :, :]
        out = xp.sqrt(xp.add.reduce(xp.multiply(diff, diff, out=diff), axis=-1))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, r = _grad_ratio(ctx, grad)
        needs = ctx.needs_input_grad
        g = r.unsqueeze(-1) * (a.unsqueeze(-2) - b.unsqueeze(-3))
        return (g.sum(-2) if needs[0] else None, -g.sum(-3) if needs[1] else None)


def _sq_norms(xp, x):
    """|x|^2 over the last dim, kept (half: the squares rounded, summed in float32, as torch)."""
    sq = x * x
    if sq.dtype.itemsize == 2:
        return xp.add.reduce(sq.astype("float32"), axis=-1, keepdims=True).astype(x.dtype)
    return xp.add.reduce(sq, axis=-1, keepdims=True)


# NOTE [ cdist p = 1 by row blocks ]
# The direct form held the P x R x M differences (1 GB for 2000 x 2000 rows of 64 in float32) and
# its backward several more of that size: 19.6 s against torch's 1.5 s. For p = 1 three array
# kernels walk blocks of x1's rows instead: the distances (vector_norm's sums, the same digits),
# and SignSum / SignDot, the gradient's sum of grad times the differences' signs and its adjoint,
# which are each other's backward (the signs have a zero derivative, as vector_norm's p = 1).


def _cdist_p1(x1, x2):
    """cdist for p = 1 on non-empty inputs, batch dims broadcast."""
    return _batched(CityBlockDistance, x1, x2)


def _batched(fn, x1, x2):
    """fn (a distance Function of two row sets) of x1 and x2 with their batch dims broadcast."""
    batch = broadcast_pair(x1.shape[:-2], x2.shape[:-2])
    a = x1.expand(*batch, *x1.shape[-2:])
    b = x2.expand(*batch, *x2.shape[-2:])
    return fn.apply(a, b)


def _cdist_blocks(a, b):
    """_row_blocks of a's rows against all of b's (both batched alike)."""
    r, m = b.shape[-2:]
    return _row_blocks(a.shape[-2], max(1, r * math.prod(a.shape[:-2])), m)


def _sign_blocks(xp, a, b):
    """(start, stop, sign(a[..., i, None, :] - b[..., None, :, :]) for the rows start..stop of
    a) over blocks of about _BLOCK elements."""
    for i0, i1 in _cdist_blocks(a, b):
        yield i0, i1, xp.sign(a[..., i0:i1, None, :] - b[..., None, :, :])


class CityBlockDistance(Function):
    """out[..., i, j] = sum |a_i - b_j| (cdist, p = 1; NOTE [ cdist p = 1 by row blocks ]);
    grad_a = SignSum(grad, a, b),  grad_b = SignSum(grad^T, b, a)"""

    @staticmethod
    def forward(ctx, a, b):
        xp = ctx.xp
        x, y = a._data, b._data
        parts = []
        for i0, i1 in _cdist_blocks(x, y):
            diff = x[..., i0:i1, None, :] - y[..., None, :, :]
            if diff.dtype.itemsize == 2:  # half: summed in float32 (vector_norm's rule)
                diff = diff.astype("float32")
            parts.append(xp.add.reduce(xp.abs(diff), axis=-1))
        ctx.save_for_backward(a, b)
        return xp.concatenate(parts, axis=-2).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            SignSum.apply(grad, a, b) if needs[0] else None,
            SignSum.apply(grad.mT, b, a) if needs[1] else None,
        )


class SignSum(Function):
    """out[..., i, :] = sum_j g[..., i, j] sign(a_i - b_j);  linear in g: grad_g =
    SignDot(grad, a, b); zero for a and b (the signs are piecewise constant)"""

    @staticmethod
    def forward(ctx, g, a, b):
        xp = ctx.xp
        gd = g._data
        out = xp.empty(a._data.shape, dtype=gd.dtype)
        for i0, i1, sign in _sign_blocks(xp, a._data, b._data):
            rows = gd[..., i0:i1, None, :]  # (..., block, 1, R) @ (..., block, R, M)
            out[..., i0:i1, :] = xp.matmul(rows, sign.astype(gd.dtype, copy=False))[..., 0, :]
        ctx.save_for_backward(a, b)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            SignDot.apply(grad, a, b) if needs[0] else None,
            a.new_zeros(a.shape) if needs[1] else None,
            b.new_zeros(b.shape) if needs[2] else None,
        )


class SignDot(Function):
    """out[..., i, j] = sum_m h[..., i, m] sign(a_im - b_jm);  linear in h: grad_h =
    SignSum(grad, a, b); zero for a and b"""

    @staticmethod
    def forward(ctx, h, a, b):
        xp = ctx.xp
        hd = h._data
        parts = []
        for i0, i1, sign in _sign_blocks(xp, a._data, b._data):
            cols = hd[..., i0:i1, :, None]  # (..., block, R, M) @ (..., block, M, 1)
            parts.append(xp.matmul(sign.astype(hd.dtype, copy=False), cols)[..., 0])
        ctx.save_for_backward(a, b)
        return xp.concatenate(parts, axis=-2)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            SignSum.apply(grad, a, b) if needs[0] else None,
            a.new_zeros(a.shape) if needs[1] else None,
            b.new_zeros(b.shape) if needs[2] else None,
        )


def _cdist_kernel_dtypes(x1, x2, p, compute_mode):
    """x2, after the dtype checks of the kernel torch's cdist picks: no promotion. Empty inputs
    take no kernel (the result has x1's dtype); the matmul form (p=2 with more than 25 rows, or
    use_mm_for_euclid_dist) wants equal dtypes; the direct form is dispatched on x1's dtype,
    which must be float32 or float64, and then wants x2's to be the same."""
    if 0 in x1.shape or 0 in x2.shape:
        return cast(x2, x1.dtype) if x2.dtype != x1.dtype else x2
    by_mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or compute_mode == "use_mm_for_euclid_dist_if_necessary"
        and (x1.shape[-2] > 25 or x2.shape[-2] > 25)
    )
    if by_mm:
        if x1.dtype != x2.dtype:
            # torch's matmul of the augmented rows (M + 2 columns): mm for a single batch against
            # a matrix (unexpanded inputs), else bmm
            from minitorch._ops.linalg import _ctype, bmm_dtype_error

            if x2.ndim == 2 and math.prod(x1.shape[:-2]) == 1:
                raise RuntimeError(
                    "expected m1 and m2 to have the same dtype, but got: "
                    f"{_ctype(x1.dtype)} != {_ctype(x2.dtype)}"
                )
            macs = x1.shape[-2] * (x1.shape[-1] + 2) * x2.shape[-2]
            raise bmm_dtype_error(x1.dtype, x2.dtype, macs >= 400)
        return x2
    if x1.dtype in _dtype.HALF_FLOATS:
        raise NotImplementedError(f"\"cdist\" not implemented for '{_short(x1.dtype)}'")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {_short(x1.dtype)} but found {_short(x2.dtype)}")
    return x2
