"""Repeats and combinations: repeat, tile, repeat_interleave, combinations."""

from __future__ import annotations

import itertools

from minitorch import _dtype, _memory_format
from minitorch._backend import cpu
from minitorch._ops._common import (
    check_bool,
    check_int,
    check_tensors,
    index,
    ints,
    is_index,
    not_tensor,
)
from minitorch._ops.convert import clone
from minitorch._ops.shape import expand, flatten, reshape, unsqueeze
from minitorch._ops.shape_join import stack
from minitorch._tensor import Tensor, _make, _wrap_dim
from minitorch.autograd.function import Function

__all__ = ["repeat", "tile", "repeat_interleave", "combinations"]


class Repeat(Function):
    """out = a tiled `repeats` times along each dim;  grad_a = grad summed over the tiles"""

    _saved_attrs = {"repeats": "repeats", "self_sym_sizes": "in_shape"}  # (as torch)

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
        # (a negative repeat of a size-0 dim raises here, as in torch's backward)
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
    if any(r < 0 for r in repeats):
        # torch makes the result's sizes (r * s) first: only a negative one is refused (the
        # first, by name), so a negative repeat of a size-0 dim leaves that dim empty
        padded = (1,) * (len(repeats) - len(shape)) + tuple(shape)
        sizes = [r * s for r, s in zip(repeats, padded, strict=True)]
        for n in sizes:
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {sizes}")
    return Repeat.apply(input, repeats=repeats)


def tile(input: Tensor, dims) -> Tensor:
    """Mirrors torch.tile (repeat, with missing leading repeats taken as 1)."""
    if not isinstance(input, Tensor):
        raise not_tensor("tile", input)
    dims = ints(dims, "tile", "dims", 2)
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


def _host_counts(t: Tensor, output_size):
    """An integer tensor's values as a 1-d host array (a shape-defining read, as torch's),
    checked for negative counts here unless output_size is given (torch then checks the size
    first: _repeat_index). Checked and repeated as an array: a Python list of 100k counts made
    repeat_interleave 12x slower than torch."""
    if t._device.type == "meta":  # NOTE [ The meta device ]
        raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
    counts = t._device.backend.to_host(t._data).reshape(-1)
    if output_size is None:
        _check_counts(counts)
    return counts


def _check_counts(counts) -> None:
    if counts.size and (counts < 0).any():
        raise RuntimeError("repeats can not be negative")


def _device_repeat_index(reps: Tensor, output_size: int, n: int | None, np_dtype):
    """The repeated indices of a device tensor of counts (one for all n, or n of them) when
    output_size is given, as torch's device kernel: nothing is read back and nothing checked.
    Each output position finds its index by a search in the running counts (a wrong output_size
    gives wrong indices, kept in range here)."""
    xp = reps._device.backend.xp
    counts = reps._data.reshape(-1)
    if n is not None and counts.size == 1:
        counts = xp.broadcast_to(counts, (n,))
    ends = xp.cumsum(counts)
    idx = xp.searchsorted(ends, xp.arange(output_size, dtype=ends.dtype), side="right")
    return xp.minimum(idx, counts.size - 1).astype(np_dtype)


def _total(counts, n: int = 1) -> int:
    """The sum of counts (each taken n times) as a Python int (exact, before torch's int64
    check in _repeat_index)."""
    if not counts.size:
        return 0
    if int(counts.max()) * counts.size * n < 2**62:  # the int64 sum cannot overflow
        return int(counts.sum(dtype="int64")) * n
    return sum(counts.tolist()) * n


def _index_array(ref: Tensor, values):
    xp = ref._device.backend.xp
    return xp.asarray(values, dtype=xp.int64)


def _repeat_interleave_error(input, repeats, dim, output_size, extra=()) -> TypeError:
    from minitorch._ops._parser_errors import parsed_error, with_extra

    named = with_extra([("input", input), ("repeats", repeats), ("dim", dim)], extra)
    return parsed_error("repeat_interleave", (*named, ("output_size", output_size)))


def repeat_interleave(input=None, repeats=None, dim=None, *extra, output_size=None) -> Tensor:
    """Repeats each element (or slice along dim) `repeats` times. Mirrors torch.repeat_interleave.

    A tensor of repeats is read on the host (the output's shape depends on it), as in torch.
    """
    if extra:  # (x, 2, 0, 5): no overload takes a fourth positional argument
        raise _repeat_interleave_error(input, repeats, dim, output_size, extra)
    if input is None and isinstance(repeats, Tensor):  # the one-tensor form by keyword
        input, repeats = repeats, None
    if repeats is None:  # repeat_interleave(repeats): the indices repeated
        if dim is not None:  # (x, None, 0): the one-tensor form takes no dim
            raise _repeat_interleave_error(input, repeats, dim, output_size)
        check_tensors("repeat_interleave", ("repeats", input))
        reps = input
        if reps._data.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if reps.dtype is not _dtype.int64 and reps.dtype is not _dtype.int32:
            raise NotImplementedError(
                f"\"repeat_interleave_cpu\" not implemented for '{_dtype.scalar_name(reps.dtype)}'"
            )
        if output_size is not None and reps._device.type != "cpu" and reps._data.size:
            idx = _device_repeat_index(reps, output_size, None, reps._data.dtype)
            return _make(idx, reps._device, False, None)
        counts = _host_counts(reps, output_size)
        total = _total(counts)
        if counts.size:  # torch returns no repeats at once, whatever output_size says
            _check_output_size(total, output_size)
        # the indices come in repeats' dtype, as torch
        idx = _repeat_index(reps, counts, total, reps._data.dtype)
        return _make(idx, reps._device, False, None)
    try:
        if not isinstance(repeats, Tensor) and not is_index(repeats):  # a float count, a str
            raise TypeError
        if output_size is not None and not is_index(output_size):
            raise TypeError
        if dim is None:
            input = flatten(input)  # (not rebound when it raises: the error shows the input)
            d = 0
        elif input._data.ndim or not isinstance(repeats, Tensor):
            d = _wrap_dim(dim, input._data.ndim)
        else:  # a 0-d input: torch sizes it at the dim as given (an IndexError below)
            d = dim if dim.__class__ is int else _wrap_dim(dim, 0)
    except (AttributeError, TypeError):  # arguments of types no overload takes
        raise _repeat_interleave_error(input, repeats, dim, output_size) from None
    n = input._data.shape[d] if input._data.ndim else 1
    if not isinstance(repeats, Tensor):
        repeats = index(repeats, "repeat_interleave", "repeats")
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        if dim is not None and not input._data.ndim:  # torch unsqueezes the input at dim + 1
            raise IndexError(
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
            )
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
        x = clone(expand(x, shape), memory_format=_memory_format.contiguous_format)
        return flatten(x, d, d + 1)
    if repeats._data.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if dim is not None and not input._data.ndim:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    m = repeats._data.size
    if m != 1 and m != n:  # checked before the dtype, as torch
        raise RuntimeError(
            f"repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{m} and input.size({d if dim is None else dim}) = {n}"
        )
    if repeats.dtype is not _dtype.int64 and repeats.dtype is not _dtype.int32:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{_dtype.scalar_name(repeats.dtype)}'"
        )
    if output_size is not None and repeats._device.type != "cpu" and n:
        if input._data.ndim == 0:
            input = reshape(input, (1,))
        idx = _device_repeat_index(repeats, output_size, n, "int64")
        return Take.apply(input, index=idx, dim=d)
    counts = _host_counts(repeats, output_size)
    if m == 1:  # one count for every slice (NumPy's repeat broadcasts it)
        total = _total(counts, n)
    else:
        total = _total(counts)
    if n:  # torch checks output_size only when there is something to repeat
        _check_output_size(total, output_size)
    if input._data.ndim == 0:
        input = reshape(input, (1,))
    idx = _repeat_index(input, counts, total, repeats._data.dtype, n)
    return Take.apply(input, index=idx.astype("int64", copy=False), dim=d)


def _check_output_size(total: int, output_size):
    if output_size is not None and output_size != total:
        if output_size < 0:  # torch allocates the output_size first
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {output_size}: [{output_size}]"
            )
        raise RuntimeError("allocated size does not match required size")


def _repeat_index(ref: Tensor, counts, total: int, np_dtype, n: int | None = None):
    """arange(n) (n: len(counts)) with i repeated counts[i] times (counts: a host array, of
    one count for all or of n; total: their sum), on ref's device, in np_dtype. Built on the
    host by NumPy's repeat (a Python list of 2**40 indices would run for hours), after torch's
    checks of the size: the counts add up in int64, and the byte count must fit in int64."""
    total = (total + 2**63) % 2**64 - 2**63
    if total < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {total}: [{total}]")
    nbytes = total * np_dtype.itemsize
    if nbytes >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{total}]")
    _check_counts(counts)  # (again, where output_size was given: a pass over host ints)
    host = cpu.backend.xp
    try:
        idx = host.repeat(host.arange(counts.size if n is None else n, dtype=np_dtype), counts)
    except MemoryError:  # NumPy's own text names neither the op nor torch's wording
        raise RuntimeError(
            f"repeat_interleave: can't allocate memory: you tried to allocate {nbytes} bytes"
        ) from None
    return ref._device.backend.from_host(idx, ref._device)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a 1-d tensor's elements, as rows. Mirrors
    torch.combinations."""
    check_tensors("combinations", ("input", input))
    if r.__class__ is not int:
        r = check_int("combinations", r, "r", 2)
    if with_replacement.__class__ is not bool:
        check_bool("combinations", with_replacement, "with_replacement", 3)
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
    n = input._data.shape[0]
    if r == 2:  # the pairs i < j (i <= j) in itertools' order: row-major upper-triangle indices
        xp = input._device.backend.xp
        pairs = xp.triu_indices(n, int(not with_replacement))
        cols = [c.astype(xp.int64, copy=False) for c in pairs]
    else:
        pick = (
            itertools.combinations_with_replacement if with_replacement else itertools.combinations
        )
        rows = list(pick(range(n), r))
        cols = [_index_array(input, [row[j] for row in rows]) for j in range(r)]
    return stack([Take.apply(input, index=c, dim=0) for c in cols], 1)
