"""Memory formats: the order in which a tensor's elements are laid out (torch.channels_last...)."""

from __future__ import annotations

from minitorch._backend import cpu as _CPU
from minitorch._backend import strided_view

__all__ = [
    "memory_format",
    "contiguous_format",
    "channels_last",
    "channels_last_3d",
    "preserve_format",
    "legacy_contiguous_format",
]

# NOTE [ Memory formats ]
# A tensor's shape is its logical layout; its strides say where each element lives. A memory
# format names a stride order: contiguous_format is row-major, channels_last stores an (N, C, H, W)
# tensor as (N, H, W, C) in memory (and channels_last_3d an (N, C, D, H, W) one as
# (N, D, H, W, C)), preserve_format keeps the input's order. NumPy arrays carry any strides, so a
# format is a copy through a transpose: the values and every op's result are the same in any
# format (NumPy's elementwise kernels keep their input's order, as torch's do); only stride(),
# is_contiguous() and the speed of some kernels differ.


class memory_format:
    """A memory layout for tensors. Mirrors torch.memory_format."""

    __slots__ = ("_name",)
    __module__ = "minitorch"  # See NOTE [ Public module of core classes ] in minitorch/_dtype.py

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # pickled as the module attribute: one object per format


contiguous_format = memory_format("contiguous_format")
legacy_contiguous_format = contiguous_format  # torch's alias (torch's own gumbel_softmax uses it)
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# the axis order in memory, slowest first, of the formats that need a given rank
_ORDERS = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check(fmt, op: str, default=preserve_format):
    """fmt as a memory_format (None: the default); torch's TypeError for anything else."""
    if fmt is None:
        return default
    if fmt.__class__ is not memory_format:
        raise TypeError(
            f"{op}(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(fmt).__name__}"
        )
    return fmt


def _rank_error(fmt, ndim: int) -> RuntimeError:
    need, _ = _ORDERS[fmt]
    return RuntimeError(f"required rank {need} tensor to use {fmt._name} format")


def _overlapping(x) -> bool:
    return any(st == 0 and n > 1 for st, n in zip(x.strides, x.shape, strict=True))


# NOTE [ Blocked transposing copies ]
# NumPy copies an array whose last axis is strided (a transpose: x.t().contiguous(), a reshape of
# x.t()) in the result's row-major order, reading the source down its columns: each row of the
# result touches one cache line per element, and for long rows those lines are gone from the
# cache before the next row reads its neighbours in them (rows of a power-of-two length of bytes
# also map onto the same few cache sets): (2048, 512).t() in float32 took 7.2 ms to copy, 4096 x
# 4096 127 ms. Copied in slabs of _SLAB columns of the result, the lines one slab reads stay in
# the first-level cache for its next rows: 0.63 ms and 48 ms. A copy: the same values either way.
# Host arrays only (a GPU copy kernel does its own tiling), big enough for the slab loop's Python
# (~1 us a slab) to pay, and only where the last axis is not already the source's shortest step
# (a stepped slice x[:, ::2] copies fast as it is).
_SLAB = 32
_SLAB_MIN = 1 << 15


def _transposed(xp, x) -> bool:
    """Whether x is a big host array whose last axis steps farther than another axis
    (NOTE [ Blocked transposing copies ])."""
    if x.ndim < 2 or x.size < _SLAB_MIN or x.shape[-1] <= _SLAB or xp is not _CPU.backend.xp:
        return False
    strides = x.strides
    last = abs(strides[-1])
    return 0 not in strides and any(abs(st) < last for st in strides[:-1])


def _slab_copy(xp, x):
    out = xp.empty(x.shape, x.dtype)
    for i in range(0, x.shape[-1], _SLAB):
        out[..., i : i + _SLAB] = x[..., i : i + _SLAB]
    return out


def dense_copy(xp, x):
    """A row-major copy of the array x (NOTE [ Blocked transposing copies ])."""
    if _transposed(xp, x):
        return _slab_copy(xp, x)
    return xp.array(x, order="C", copy=True)


def dense(xp, x):
    """x itself where it is row-major, else a row-major copy (xp.ascontiguousarray, with NOTE
    [ Blocked transposing copies ])."""
    if x.flags.c_contiguous:
        return x
    if _transposed(xp, x):
        return _slab_copy(xp, x)
    return xp.ascontiguousarray(x)


def copy_as(xp, x, fmt):
    """A copy of the array x laid out in fmt (preserve_format: as torch lays out a copy of x,
    NOTE [ Preserved layouts ])."""
    if fmt is contiguous_format:
        return dense_copy(xp, x)
    if fmt is preserve_format:
        if x.flags.c_contiguous or not x.size:
            return x.copy(order="K")
        return into_layout_of(xp, x, x)
    need, order = _ORDERS[fmt]
    if x.ndim != need:
        raise _rank_error(fmt, x.ndim)
    if not x.size:  # NumPy gives an empty array zero strides: torch's, sizes 0 and all
        strides, n = [0] * need, x.itemsize
        for a in reversed(order):
            strides[a] = n
            n *= x.shape[a]
        return strided_view(xp, xp.empty(0, x.dtype), x.shape, strides)
    back = [0] * need
    for i, a in enumerate(order):
        back[a] = i
    # a copy even where x is already laid out so (ascontiguousarray would return x itself)
    return xp.array(x.transpose(order), order="C", copy=True).transpose(back)


def is_in(x, fmt) -> bool:
    """Whether the array x is laid out densely in fmt (dims of size 1 may have any stride)."""
    if fmt is contiguous_format or fmt is preserve_format:
        return bool(x.flags.c_contiguous)
    need, order = _ORDERS[fmt]
    if x.ndim != need:
        return False
    expected = x.itemsize
    for a in reversed(order):
        if x.shape[a] != 1 and x.strides[a] != expected:
            return False
        expected *= x.shape[a]
    return True


def suggests_channels_last(x) -> bool:
    """Whether a 4-d array x is laid out channels-last (torch's suggest_memory_format): the
    layout a convolution, pooling, cat, pad, ... keeps in its output. torch's test of the
    strides' order: channels, then width, then height, then batch, each stride at least the
    extent of the ones before (a size-1 dim adds no extent), so a slice of a channels-last
    tensor still is one; a batch stride equal to the channels' (N x 1 x 1 x 1) is not."""
    return x.ndim == 4 and _strides_in_order(x, (1, 3, 2, 0))


def suggests_channels_last_3d(x) -> bool:
    """Whether a 5-d array x is laid out channels-last-3d: suggests_channels_last's test with the
    strides' order channels, width, height, depth, batch (torch's 3-d one)."""
    return x.ndim == 5 and _strides_in_order(x, (1, 4, 3, 2, 0))


def _strides_in_order(x, dims) -> bool:
    """torch's test of a channels-last layout: x's strides along dims (channels first, batch
    last) each at least the extent of the ones before (a size-1 dim adds none); an empty array,
    one with a zero channel stride, or a batch stride equal to the channels' is not one."""
    strides, sizes = x.strides, x.shape
    if strides[1] == 0 or 0 in sizes:  # an empty tensor is never channels-last to torch
        return False
    least = 0
    for d in dims:
        if strides[d] < least:
            return False
        if d == 0 and least == strides[1]:
            return False
        least = strides[d] * sizes[d] if sizes[d] > 1 else strides[d]
    return True


def suggested_last(x):
    """channels_last for a 4-d array x laid out so, channels_last_3d for a 5-d one, else None."""
    if x.ndim == 4:
        return channels_last if suggests_channels_last(x) else None
    return channels_last_3d if suggests_channels_last_3d(x) else None


def last_orders(ndim: int) -> tuple:
    """(to, back, axis) for a channels-last 4-d or 5-d array x: x.transpose(to) is its row-major
    (N, *spatial, C) view, .transpose(back) of such an array is channels-last, and axis[d] is
    where x's axis d sits in the view."""
    if ndim == 4:
        return NHWC, NCHW, NHWC_AXIS
    return (0, 2, 3, 4, 1), (0, 4, 1, 2, 3), (0, 4, 1, 2, 3)


# where each axis of an (N, C, H, W) array sits in its (N, H, W, C) view x.transpose(NHWC): an op
# along NCHW axis d of a channels-last x runs along NHWC_AXIS[d] of that (row-major) view, and
# .transpose(NCHW) of its row-major result is channels-last with torch's strides, size-1 dims
# included, with no copy
NHWC, NCHW, NHWC_AXIS = (0, 2, 3, 1), (0, 3, 1, 2), (0, 3, 1, 2)


def keep_channels_last(xp, out, *inputs, three_d=False, on_meta=True):
    """out (a fresh 4-d result) laid out channels-last when one of the input arrays is, as
    torch's convolutions and poolings keep their input's layout; out itself otherwise.
    three_d: a 5-d result likewise channels-last-3d (the kernels of torch's that keep it).
    on_meta=False: row-major on the meta device (torch's meta convolutions pick no layout)."""
    if out.ndim == 4 and any(suggests_channels_last(a) for a in inputs):
        return out if not on_meta and _is_meta(xp) else copy_as(xp, out, channels_last)
    if three_d and out.ndim == 5 and any(suggests_channels_last_3d(a) for a in inputs):
        return out if not on_meta and _is_meta(xp) else copy_as(xp, out, channels_last_3d)
    return out


def _is_meta(xp) -> bool:
    from minitorch._backend import meta

    return xp is meta.xp


def like(xp, x, out):
    """`out`, a fresh row-major array of x's shape, laid out in x's axis order (*_like's
    preserve_format); out itself when x is row-major (the common case: no copy)."""
    if x.flags.c_contiguous or x.ndim < 2 or not x.size:
        return out
    return into_layout_of(xp, x, out)


# NOTE [ Preserved layouts ]
# torch gives a new tensor made "like" x (clone, empty_like and the other *_like, a conversion
# .to(dtype)) x's own strides where x is dense without overlaps, and otherwise (a stepped slice,
# an expanded tensor) dense strides in x's order: dims ranked by stride, fastest first, by an
# insertion sort from the row-major order in which a zero stride compares with nothing (so an
# expanded dim stays where a row-major tensor has it) and equal strides put the smaller size
# first (the rule its pointwise kernels lay their outputs out by). NumPy's order="K" ranks a
# zero stride and the strides of size-1 dims otherwise; these helpers run off the row-major path.


def preserved_copy(xp, x, dtype):
    """A copy of the array x cast to dtype, laid out as torch lays out a copy of x (NOTE
    [ Preserved layouts ]): for a conversion of an array NumPy's order="K" would misplace."""
    return into_layout_of(xp, x, x, xp.dtype(dtype))


def into_layout_of(xp, x, values, dtype=None):
    """A new array of x's shape and the dtype of `values` (or dtype), laid out in x's layout
    (NOTE [ Preserved layouts ]), holding `values`."""
    dtype = values.dtype if dtype is None else dtype
    item = dtype.itemsize
    if _dense(x):
        strides = [s // x.itemsize * item for s in x.strides]
    else:
        strides, step = [0] * x.ndim, item
        for a in _torch_order(x.shape, x.strides):
            strides[a] = step
            step *= max(x.shape[a], 1)
    out = strided_view(xp, xp.empty(x.size, dtype), x.shape, strides)
    out[...] = values
    return out


def _dense(x) -> bool:
    """Whether x's elements fill its memory span exactly once (torch's non-overlapping and
    dense): its strides, size-1 dims aside, are a row-major layout's in some order."""
    dims = sorted((a for a in range(x.ndim) if x.shape[a] > 1), key=lambda a: x.strides[a])
    expected = x.itemsize
    for a in dims:
        if x.strides[a] != expected:
            return False
        expected *= x.shape[a]
    return True


def _torch_order(shape, strides) -> list:
    """x's dims, fastest first, as torch ranks them (NOTE [ Preserved layouts ])."""
    order = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(order)):
        at = i
        for j in range(i - 1, -1, -1):
            a, b = order[j], order[at]
            sa, sb = strides[a], strides[b]
            if sa == 0 or sb == 0 or (sa == sb and shape[a] <= shape[b]):
                continue  # no say: look further back
            if sa < sb:
                break
            order[j], order[at] = b, a
            at = j
    return order
