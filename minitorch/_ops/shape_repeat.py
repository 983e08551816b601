"""Repeats and combinations: repeat, tile, repeat_interleave, combinations."""

from __future__ import annotations

import itertools

from minitorch import _dtype
from minitorch._ops._common import index, ints, is_index
from minitorch._ops.convert import clone
from minitorch._ops.shape import expand, flatten, reshape, unsqueeze
from minitorch._ops.shape_join import stack
from minitorch._tensor import Tensor, _make, _wrap_dim
from minitorch.autograd.function import Function

__all__ = ["repeat", "tile", "repeat_interleave", "combinations"]


class Repeat(Function):
    """out = a tiled `repeats` times along each dim;  grad_a = grad summed over the tiles"""

    @staticmethod
    def forward(ctx, a, *, repeats):
        x = a._data
        ctx.in_shape = x.shape
        ctx.repeats = repeats
        x = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
        # new memory, row-major as torch's (NumPy's tile of all-1 repeats copies in x's layout;
        # ascontiguousarray would make a 0-d result 1-d: x.repeat([]) of a 0-d x stays 0-d)
        out = ctx.xp.tile(x, repeats)
        return out if not repeats else ctx.xp.ascontiguousarray(out)

    @staticmethod
    def backward(ctx, grad):
        repeats = ctx.repeats
        if not repeats:
            return grad
        shape = (1,) * (len(repeats) - len(ctx.in_shape)) + tuple(ctx.in_shape)
        split = []
        for r, s in zip(repeats, shape, strict=True):
            split += [r, s]
        g = grad.reshape(split).sum(dim=tuple(range(0, 2 * len(repeats), 2)))
        return g.reshape(ctx.in_shape)


def repeat(input: Tensor, repeats) -> Tensor:
    """Tensor.repeat: tiles the tensor along each dim. Mirrors torch.Tensor.repeat."""
    repeats = ints(repeats, "repeat", "repeats")
    shape = input._data.shape
    if len(repeats) < len(shape):
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
            "tensor"
        )
    padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    if any(r < 0 for r in repeats):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension "
            f"{min(r * s for r, s in zip(repeats, padded, strict=True))}: "
            f"{[r * s for r, s in zip(repeats, padded, strict=True)]}"
        )
    return Repeat.apply(input, repeats=repeats)


def tile(input: Tensor, dims) -> Tensor:
    """Mirrors torch.tile (repeat, with missing leading repeats taken as 1)."""
    dims = ints(dims, "tile", "dims")
    n = input._data.ndim
    if len(dims) < n:
        dims = (1,) * (n - len(dims)) + dims
    return repeat(input, dims)


class Take(Function):
    """out = a indexed by `index` along dim;  grad_a = grad scatter-added back along dim"""

    _node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, a, *, index, dim):
        ctx.args = (a._data.shape, index, dim)
        return ctx.xp.take(a._data, index, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        shape, index, dim = ctx.args
        return TakeBackward.apply(grad, shape=shape, index=index, dim=dim)


class TakeBackward(Function):
    """out = zeros(shape) with a added at `index` along dim;  grad_a = take(grad, index, dim)"""

    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, a, *, shape, index, dim):
        ctx.args = (index, dim)
        out = ctx.xp.zeros(shape, dtype=a._data.dtype)
        a._device.backend.scatter_add(out, (slice(None),) * dim + (index,), a._data)
        return out

    @staticmethod
    def backward(ctx, grad):
        index, dim = ctx.args
        return Take.apply(grad, index=index, dim=dim)


def _host_ints(t: Tensor) -> list:
    """An integer tensor's values on the host (a shape-defining read, as torch's)."""
    return t._device.backend.to_host(t._data).reshape(-1).tolist()


def _index_array(ref: Tensor, values):
    xp = ref._device.backend.xp
    return xp.asarray(values, dtype=xp.int64)


def repeat_interleave(input=None, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeats each element (or slice along dim) `repeats` times. Mirrors torch.repeat_interleave.

    A tensor of repeats is read on the host (the output's shape depends on it), as in torch.
    """
    if input is None and isinstance(repeats, Tensor):  # the one-tensor form by keyword
        input, repeats = repeats, None
    if repeats is None:  # repeat_interleave(repeats): the indices repeated
        reps = input
        if reps._data.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if reps.dtype is not _dtype.int64 and reps.dtype is not _dtype.int32:
            raise NotImplementedError(
                f"\"repeat_interleave_cpu\" not implemented for '{_dtype.scalar_name(reps.dtype)}'"
            )
        counts = _host_ints(reps)
        if any(c < 0 for c in counts):
            raise RuntimeError("repeats can not be negative")
        _check_output_size(sum(counts), output_size)
        # the indices come in repeats' dtype, as torch
        return _make(_repeat_index(reps, counts, reps._data.dtype), reps._device, False, None)
    if dim is None:
        input = flatten(input)
        d = 0
    else:
        d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d] if input._data.ndim else 1
    if not isinstance(repeats, Tensor):
        if not is_index(repeats):  # a float count: torch's argument parser refuses it
            raise TypeError(
                "repeat_interleave() received an invalid combination of arguments - got (Tensor, "
                f"{type(repeats).__name__}), but expected one of:\n"
                " * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n"
                " * (Tensor repeats, *, int output_size = None)\n"
                " * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n"
            )
        repeats = index(repeats, "repeat_interleave", "repeats")
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        if output_size is not None and output_size != n * repeats:
            raise RuntimeError(
                f"repeat_interleave: Invalid output_size, expected {n * repeats} but got "
                f"{output_size}"
            )
        if input._data.ndim == 0:
            input = reshape(input, (1,))
        # as torch: each slice expanded `repeats` times, copied, and the two dims merged
        x = unsqueeze(input, d + 1)
        shape = list(x._data.shape)
        shape[d + 1] = int(repeats)
        return flatten(clone(expand(x, shape)), d, d + 1)
    if repeats._data.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype is not _dtype.int64 and repeats.dtype is not _dtype.int32:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{_dtype.scalar_name(repeats.dtype)}'"
        )
    counts = _host_ints(repeats)
    if any(c < 0 for c in counts):
        raise RuntimeError("repeats can not be negative")
    if len(counts) == 1:
        counts = counts * n
    elif len(counts) != n:
        raise RuntimeError(
            f"repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{len(counts)} and input.size({d}) = {n}"
        )
    _check_output_size(sum(counts), output_size)
    if input._data.ndim == 0:
        input = reshape(input, (1,))
    idx = _repeat_index(input, counts, repeats._data.dtype)
    return Take.apply(input, index=idx.astype("int64", copy=False), dim=d)


def _check_output_size(total: int, output_size):
    if output_size is not None and output_size != total:
        raise RuntimeError("allocated size does not match required size")


def _repeat_index(ref: Tensor, counts: list, np_dtype):
    """arange(len(counts)) with i repeated counts[i] times, on ref's device, in np_dtype. Built
    by the backend (a Python list of 2**40 indices would run for hours), after torch's checks
    of the size: the counts add up in int64, and the byte count must fit in int64."""
    total = (sum(counts) + 2**63) % 2**64 - 2**63
    if total < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {total}: [{total}]")
    nbytes = total * np_dtype.itemsize
    if nbytes >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{total}]")
    xp = ref._device.backend.xp
    try:
        return xp.repeat(xp.arange(len(counts), dtype=np_dtype), counts)
    except MemoryError:  # NumPy's own text names neither the op nor torch's wording
        raise RuntimeError(
            f"repeat_interleave: can't allocate memory: you tried to allocate {nbytes} bytes"
        ) from None


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a 1-d tensor's elements, as rows. Mirrors
    torch.combinations."""
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make(
            input._device.backend.xp.zeros((0,), dtype=input._data.dtype),
            input._device,
            False,
            None,
        )
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input._data.shape[0]), r))
    cols = [_index_array(input, [row[j] for row in rows]) for j in range(r)]
    return stack([Take.apply(input, index=c, dim=0) for c in cols], 1)
