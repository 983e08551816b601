"""Reductions: sum, mean, max/min (with indices), argmax/argmin, logsumexp."""

from __future__ import annotations

from minitorch import _dtype
from minitorch._ops._common import dims_arg
from minitorch.autograd.function import Function

__all__ = ["sum"]


def _keep_shape(shape, dims):
    """The reduced shape with the reduced dims kept as size 1 (to broadcast grads back)."""
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


class Sum(Function):
    """out = sum of a over dims;  grad_a = grad broadcast back to a's shape"""

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, np_dtype):
        x = a._data
        ctx.shape = x.shape
        ctx.dims = dims
        ctx.keepdim = keepdim
        return ctx.xp.asarray(x.sum(axis=dims, keepdims=keepdim, dtype=np_dtype))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.keepdim and ctx.dims is not None:
            grad = grad.reshape(_keep_shape(ctx.shape, ctx.dims))
        return grad.expand(ctx.shape)


def _dim_aliases(dim, keepdim, axis, keepdims):
    """torch accepts NumPy's axis=/keepdims= spellings on its reductions."""
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, keepdim


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None, out=None):
    """Sum over dims (all by default). Mirrors torch.sum (ints and bools sum as int64)."""
    dim, keepdim = _dim_aliases(dim, keepdim, axis, keepdims)
    x = input._data
    dims = dims_arg(dim, x.ndim, "sum")
    if dims == () and dim is not None and not isinstance(dim, int):
        dims = None  # torch: an empty dim list means all dims
    if dtype is not None:
        np_dtype = _dtype.numpy_dtype(_dtype.to_dtype(dtype, "sum"))
    elif x.dtype.kind in "biu":
        np_dtype = _dtype.int64.np
    else:
        np_dtype = None
    if x.ndim == 0:
        dims = None
    return Sum.apply(input, dims=dims, keepdim=keepdim, np_dtype=np_dtype)

