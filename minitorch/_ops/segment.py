"""torch.segment_reduce: reductions over runs of consecutive elements along one axis."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._ops._common import is_floating, quiet, type_name, wrap_dim
from minitorch._ops.pointwise import where
from minitorch._ops.shape_join import cat
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import state

__all__ = ["segment_reduce"]

# torch's reduce names (its error lists them so) and the reduction each one runs
_REDUCES = {"sum": "sum", "mean": "mean", "max": "max", "amax": "max", "min": "min",
            "amin": "min", "prod": "prod"}  # fmt: skip
_IMPROVE = (
    "  (Could this error message be improved?  If so, please report an enhancement request to "
    "PyTorch.)"
)

# NOTE [ Segment layout ]
# data is read as (B, L, I): B = the dims before axis, L = data.size(axis), I = the dims after.
# The segments are given per row b as offsets (B, S + 1) (lengths become their running sums from
# 0), segment i covering l in [offs[b, i], offs[b, i + 1]). Each element gets the flat id
# b * (S + 1) + i of its segment, or b * (S + 1) + S (a spare slot, dropped from the result) when
# it lies in no segment (before the first offset or past the last: offsets need not span the
# axis, nor lengths with unsafe=True). The reduction scatters the rows of data (B * L, I) onto
# (B * (S + 1), I) slots filled with the initial value, in order (ufunc.at), so a sum adds the
# elements one after another in the data's dtype as torch's kernel does (NumPy's reduce would
# add pairwise, and float16 in float32: 0.1 added 5000 times in float16 is 256 in torch).


def _segment_ids(xp, offs, L):
    """The flat segment id of each element of the (B, L) rows (see NOTE [ Segment layout ])."""
    B, S1 = offs.shape
    shift = xp.arange(B, dtype=xp.int64).reshape(B, 1)
    keys = (offs + shift * (L + 1)).reshape(-1)  # sorted: each row's offsets lie in [0, L]
    pos = (xp.arange(L, dtype=xp.int64).reshape(1, L) + shift * (L + 1)).reshape(-1)
    seg = (xp.searchsorted(keys, pos, side="right") - 1).reshape(B, L) - shift * S1
    seg = xp.where((seg < 0) | (seg >= S1 - 1), S1 - 1, seg)
    return (seg + shift * S1).reshape(-1)


def _scatter(dev, ufunc, fill, ids, values, slots):
    """(slots, I) rows filled with `fill`, values' rows combined into rows ids by ufunc in order."""
    xp = dev.backend.xp
    out = xp.full((slots,) + values.shape[1:], fill, dtype=values.dtype)
    if values.shape[0]:
        with quiet(xp, all="ignore"):
            dev.backend.ufunc_at(ufunc, out, ids, values)
    return out


def _counts(dev, ids, slots, dtype):
    """How many elements each slot holds, as a (slots, 1) array of dtype."""
    xp = dev.backend.xp
    return _scatter(dev, xp.add, 0, ids, xp.ones((ids.shape[0], 1), dtype), slots)


class SegmentReduce(Function):
    """out[b, i] = reduce(x[b, offs[b, i]:offs[b, i + 1]]) (with initial); gradients: sum ->
    grad, mean -> grad / length, max/min -> grad split evenly among the elements equal to the
    result (NaN counting as equal to NaN), prod -> grad * result / x, or grad * the product of
    the others for a zero or NaN x (as torch)."""

    @staticmethod
    def forward(ctx, x, *, ids, shape, out_shape, reduce, initial):
        xp = ctx.xp
        dev = x._device
        B, S, L, inner = shape
        slots = B * (S + 1)
        values = x._data.reshape(B * L, inner)
        dt = values.dtype
        if initial is not None:
            fill = initial
        else:
            fill = {"sum": 0, "mean": 0, "prod": 1, "max": -math.inf, "min": math.inf}[reduce]
        ufunc = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply, "max": xp.maximum,
                 "min": xp.minimum}[reduce]  # fmt: skip
        out = _scatter(dev, ufunc, fill, ids, values, slots)
        if reduce == "mean":
            n = _counts(dev, ids, slots, xp.float64 if dt == xp.float64 else xp.float32)
            mean = (out.astype(n.dtype) / xp.maximum(n, 1)).astype(dt)
            empty = xp.nan if initial is None else out
            out = xp.where(n == 0, xp.asarray(empty, dtype=dt), mean)
        ctx.ids, ctx.shape, ctx.reduce, ctx.initial = ids, shape, reduce, initial
        out = out.reshape(B, S + 1, inner)[:, :S]
        ctx.save_for_backward(x, out)
        return out.reshape(out_shape)

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx._stored_tensors
        B, S, L, inner = ctx.shape
        reduce, ids = ctx.reduce, ctx.ids
        dev = grad._device
        xp = dev.backend.xp
        slots = B * (S + 1)
        data = x._data.reshape(B * L, inner)

        def spread(t):
            # each element's segment value (0 for an element in no segment), shaped as x
            zero = _make(xp.zeros((B, 1, inner), t._data.dtype), dev, False, None)
            padded = cat([t.reshape(B, S, inner), zero], 1)
            rows = padded.reshape(slots, inner).index_select(0, _make(ids, dev, False, None))
            return rows.reshape(x.shape)

        def const(a):
            return _make(a.reshape(x.shape), dev, False, None)

        if reduce == "sum":
            gx = spread(grad)
        elif reduce == "mean":
            n = _counts(dev, ids, slots, data.dtype).reshape(B, S + 1, 1)[:, :S]
            gx = spread(grad.reshape(B, S, inner) / _make(xp.maximum(n, 1), dev, False, None))
        elif reduce in ("max", "min"):
            full = xp.concatenate([out._data.reshape(B, S, inner),
                                   xp.zeros((B, 1, inner), data.dtype)], axis=1)  # fmt: skip
            at = full.reshape(slots, inner)[ids]
            eq = (data == at) | (xp.isnan(data) & xp.isnan(at))
            eq &= (ids % (S + 1) != S).reshape(-1, 1)
            n = _scatter(dev, xp.add, 0, ids, eq.astype(data.dtype), slots)
            share = spread(grad) / const(xp.maximum(n[ids], 1))
            gx = where(const(eq), share, 0.0)
        else:
            gx = _prod_grad(ctx, x, out, grad, spread, const)
        return gx


def _prod_grad(ctx, x, out, grad, spread, const):
    """grad * prod / x, and for a zero or NaN x grad * the product of the other elements (with
    initial): the segment's product with those elements taken as 1, times the product of the
    segment's other zeros and NaNs (1 when there are none)."""
    B, S, L, inner = ctx.shape
    dev = grad._device
    xp = dev.backend.xp
    ids = ctx.ids
    slots = B * (S + 1)
    data = x._data.reshape(B * L, inner)
    special = (data == 0) | xp.isnan(data)
    nan = xp.isnan(data)
    n_special = _scatter(dev, xp.add, 0, ids, special.astype(xp.int64), slots)[ids]
    n_nan = _scatter(dev, xp.add, 0, ids, nan.astype(xp.int64), slots)[ids]
    others = xp.where(n_special == 1, 1.0, xp.where(n_nan - nan > 0, xp.nan, 0.0))
    special_t = const(special)
    x1 = where(special_t, 1.0, x)

    def product(t):
        return SegmentReduce.apply(
            t, ids=ids, shape=ctx.shape, out_shape=out.shape, reduce="prod", initial=ctx.initial
        )

    building = state.enabled  # create_graph: the products as functions of x
    whole = product(x) if building else out
    g = spread(grad)
    return where(
        special_t,
        g * spread(product(x1)) * const(others.astype(data.dtype)),
        g * spread(whole) / x1,
    )


def segment_reduce(
    data: Tensor,
    reduce: str,
    *,
    lengths: Tensor | None = None,
    indices: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial=None,
) -> Tensor:
    """Reduce ('sum', 'mean', 'max', 'min', 'prod') the runs of consecutive elements along axis
    that lengths (or offsets) mark out. Mirrors torch.segment_reduce.

    Differences from torch: lengths or offsets whose leading dims differ from data's dims before
    axis, offsets outside [0, data.size(axis)] and lengths running past the axis with
    unsafe=True raise a RuntimeError (torch reads out of bounds or ignores the extra rows).
    Second derivatives exist (torch raises). On a GPU, unsafe=False reads lengths or offsets
    to the host to check them (torch reads lengths so too)."""
    if not isinstance(data, Tensor):
        raise TypeError(
            f"segment_reduce(): argument 'data' (position 1) must be Tensor, not {type_name(data)}"
        )
    if not isinstance(reduce, str):
        raise TypeError(
            f"segment_reduce(): argument 'reduce' (position 2) must be str, not {type_name(reduce)}"
        )
    for name, t in (("lengths", lengths), ("indices", indices), ("offsets", offsets)):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(
                f"segment_reduce(): argument '{name}' must be Tensor, not {type_name(t)}"
            )
    if axis.__class__ is not int:
        raise TypeError(f"segment_reduce(): argument 'axis' must be int, not {type_name(axis)}")
    if unsafe.__class__ is not bool:
        raise TypeError(
            f"segment_reduce(): argument 'unsafe' must be bool, not {type_name(unsafe)}"
        )
    if initial is not None and not isinstance(initial, (bool, int, float, complex)):
        raise TypeError(
            f"segment_reduce(): argument 'initial' must be Number, not {type_name(initial)}"
        )
    for name, t in (("lengths", lengths), ("offsets", offsets)):
        if t is not None and t.requires_grad:
            raise RuntimeError(
                f"The function 'segment_reduce' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )
    axis = wrap_dim(axis, data.ndim)
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if reduce not in _REDUCES:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    op = _REDUCES[reduce]
    dev = data._device
    xp = dev.backend.xp
    shape = tuple(data.shape)
    L = shape[axis] if shape else 1
    B, inner = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
    kind = "offsets" if offsets is not None else "lengths"
    seg = offsets if offsets is not None else lengths
    if seg._device != dev:  # (torch compares get_device(): -1 for the CPU)
        raise RuntimeError(
            f"Expected data.get_device() == {kind}_value.get_device() to be true, but got "
            f"false.{_IMPROVE}"
        )
    if data.ndim < seg.ndim:
        raise RuntimeError(
            f"Expected data.dim() >= {kind}_value.dim() to be true, but got false.{_IMPROVE}"
        )
    if axis != seg.ndim - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of {kind} but got {axis}."
        )
    check = dev.type == "cpu" or not unsafe  # (a host read; see the docstring)
    host = dev.backend.to_host
    if kind == "offsets":
        S = seg.shape[-1] - 1
        if S < 0:
            sizes = ", ".join(str(d) for d in shape[:axis] + (-1,) + shape[axis + 1 :])
            raise RuntimeError(f"Trying to create tensor with negative dimension -1: [{sizes}]")
    else:
        S = seg.shape[-1]
        if not unsafe:
            if not seg.numel():
                raise RuntimeError(
                    "min(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument."
                )
            if bool(host((seg._data < 0).any())):
                raise RuntimeError("lengths contains negative value!")
            if bool(host((seg._data.sum(axis=-1) != L).any())):
                raise RuntimeError(
                    "segment_reduce(): Expected all rows of lengths along axis to sum to "
                    "data.size(lengths.dim()-1) when !unsafe."
                )
    device_name = "cpu" if dev.type in ("cpu", "strict") else dev.type
    if seg.dtype not in (_dtype.int64, _dtype.int32):
        raise NotImplementedError(
            f'"_segment_reduce_{kind}_{device_name}_kernel1" not implemented for '
            f"'{_scalar_name(seg.dtype)}'"
        )
    if tuple(seg.shape[:-1]) != shape[:axis]:
        raise RuntimeError(
            f"segment_reduce(): Expected {kind} of shape {list(shape[:axis]) + [seg.shape[-1]]} "
            f"for data of shape {list(shape)} and axis {axis}, but got {list(seg.shape)}"
        )
    offs = seg._data.astype(xp.int64).reshape(B, -1)
    if kind == "lengths":
        offs = xp.concatenate([xp.zeros((B, 1), xp.int64), xp.cumsum(offs, axis=1)], axis=1)
    if check and S > 0:
        if bool(host((offs[:, 1:] < offs[:, :-1]).any())):
            raise RuntimeError(f"Expected segment_length >= 0 to be true, but got false.{_IMPROVE}")
        if bool(host(((offs < 0) | (offs > L)).any())):
            raise RuntimeError(f"segment_reduce(): {kind} reach outside data.size({axis}) = {L}")
    if not is_floating(data._data.dtype):
        raise NotImplementedError(
            f"\"_segment_reduce_{device_name}\" not implemented for '{_scalar_name(data.dtype)}'"
        )
    if initial is not None:
        if isinstance(initial, complex):
            raise _dtype.overflow_error(data._data.dtype.name)
        initial = _dtype.fill_number(initial, data._data.dtype, "segment_reduce")
    ids = _segment_ids(xp, offs, L)
    out_shape = shape[:axis] + (S,) + shape[axis + 1 :]
    return SegmentReduce.apply(
        data, ids=ids, shape=(B, S, L, inner), out_shape=out_shape, reduce=op, initial=initial
    )


def _scalar_name(dt) -> str:
    try:
        return _dtype.scalar_name(dt)
    except KeyError:
        return {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)
