"""Pooling kernels: N-d max pooling (with indices) and average pooling, and their adjoints.

Why fused (Principle 1): a pool reads each input element once per kernel tap through strided
slices of the padded input (see NOTE [ Convolution as im2col ] in conv.py), prod(kernel) array
operations in all, and routes max pooling's gradient to torch's arg-max (first maximum, last NaN)
without a scatter. On the CNN step's first pool (x (64, 16, 28, 28), kernel 2), forward+backward
took 12 ms fused against 48 ms composed from unfold + max (avg_pool2d: 5 ms against 47 ms with
unfold + mean; process time, one BLAS thread).

Every Function here is linear in its tensor input or selects from it, so the pairs close:
MaxPool's backward is MaxPoolGrad (add grad at each window's arg-max tap), whose backward is
TapGather (read at those taps), whose backward is MaxPoolGrad; AvgPool and AvgPoolGrad are each
other's adjoint.
"""

from __future__ import annotations

import math

from minitorch import _memory_format as _mf
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import is_floating, on_host, opmath_dtype, zeros_of
from minitorch._ops.conv import crop_array, pad_array, prod, taps
from minitorch._ops.pointwise import mask_gradient
from minitorch._ops.reduction import _accumulate_dtype
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import (
    Function,
    check_watched,
    fast_path,
    plain_result,
    watch_index,
)
from minitorch.autograd.grad_mode import state as _grad_state

__all__: list[str] = []

_CPU_NULL_CTX = _CPU.backend.null_ctx  # the ctx Function.apply gives a forward recording nothing


def _padded(size, pads):
    return tuple(s + lo + hi for s, (lo, hi) in zip(size, pads, strict=False))


def _split(shape, n):
    """(the leading dims, the n pooled dims) of a shape; the pools accept any leading dims."""
    return tuple(shape[: len(shape) - n]), tuple(shape[len(shape) - n :])


def _lowest(xp, dtype):
    if is_floating(dtype):
        return -float("inf")
    if dtype.kind == "b":
        return False
    return int(xp.iinfo(dtype).min)


def _flat_indices(xp, tap, geom, in_size):
    """Each output's arg-max as a flat index into its (unpadded) input plane, as torch returns."""
    kernel, stride, pads, dilation, out_size = geom
    n = len(kernel)
    flat = None
    rem = tap.astype(xp.int64)
    for i in range(n - 1, -1, -1):  # the tap's multi-index, last dim first
        k_i = rem % kernel[i]
        rem = rem // kernel[i]
        start = xp.arange(out_size[i], dtype=xp.int64) * stride[i] - pads[i][0]
        pos = k_i * dilation[i] + start.reshape((-1,) + (1,) * (n - 1 - i))
        scale = 1
        for s in in_size[i + 1 :]:
            scale *= s
        flat = pos * scale if flat is None else flat + pos * scale
    return flat


# NOTE [ Pool plans ]
# A pool's output size and the index of the padded input each kernel tap reads depend only on
# its geometry and its input's pooled size, and a training loop or a notebook repeats the same
# few: they are worked out once per (size, kernel, stride, pads, dilation) and kept (at most
# _PLANS_MAX, then the table starts afresh), for the pools' forward and backward alike. The
# same slices in the same order as taps() gives, so the same array operations. With NOTE
# [ Pooling argument plans ] (minitorch/nn/_functional_pool.py) and the no-grad fast path
# (_no_node), no-grad avg_pool2d of (2, 3, 8, 8) by 2 took 24 -> 7 us, max_pool2d 22 -> 8 us;
# forward + backward of float64 avg_pool2d 83 -> 49 us (best of 2000, interleaved).
_PLANS: dict = {}
_PLANS_MAX = 512


def _plan(size, kernel, stride, pads, dilation):
    """(the output size, each tap's index of the padded (..., *size) input in tap order, whether
    any dim is padded, whether the windows tile the input: stride = kernel, no dilation or
    padding) for pooling the trailing dims `size`; kernel, stride, pads and dilation tuples."""
    key = (size, kernel, stride, pads, dilation)
    plan = _PLANS.get(key)
    if plan is None:
        out = tuple(
            (s + lo + hi - d * (k - 1) - 1) // st + 1
            for s, k, st, (lo, hi), d in zip(size, kernel, stride, pads, dilation, strict=False)
        )
        index = tuple((Ellipsis, *sl) for _, sl in taps(kernel, stride, dilation, out))
        padded = any(lo or hi for lo, hi in pads)
        tile = kernel == stride and all(d == 1 for d in dilation) and not padded
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        plan = _PLANS[key] = (out, index, padded, tile)
    return plan


def _geometry(x, kernel, stride, pads, dilation):
    """kernel, stride, (lo, hi) pads per dim, dilation and the output size, as one tuple."""
    kernel, stride, pads, dilation = tuple(kernel), tuple(stride), tuple(pads), tuple(dilation)
    out = _plan(x.shape[x.ndim - len(kernel) :], kernel, stride, pads, dilation)[0]
    return (kernel, stride, pads, dilation, out)


# The N-d kernels are mixins; the Functions (one per spatial rank, for torch's node names) list
# them before Function.


def _argmax_tap(xp, views, best, floating):
    """Which tap holds each window's max: the first equal to it, or, where the max is NaN, the
    last NaN (torch's choice). Small-integer arithmetic on whole arrays, one pass per tap:
    a third of the cost of a `where` per tap on the CNN step's first pool. floating: False
    (no NaN possible), True (fix NaN windows), or 'host' (host arrays: fix them only when
    `best` has a NaN, one check instead of five passes per tap)."""
    dt = xp.uint8 if len(views) < 256 else xp.int32
    tap = xp.zeros(best.shape, dtype=dt)
    found = views[0] == best
    for t, v in enumerate(views[1:], 1):
        eq = v == best
        eq &= ~found
        found |= eq
        step = eq.astype(dt)
        step *= t
        tap += step
    if floating == "host":
        floating = bool(xp.isnan(best).any())  # host data: no device synchronisation
    if floating:
        for t, v in enumerate(views):
            nan = xp.isnan(v).astype(dt)
            tap -= tap * nan
            nan *= t
            tap += nan
    return tap


def _skip_padding(xp, tap, best, geom, fill):
    """tap, with windows whose max equals the padding's fill (-inf, or the integer minimum)
    sent to their first real tap: the first tap equal to the max may be padding there, where
    torch returns (and routes the gradient to) the first real element. Every real element of
    such a window equals the max, so the first real one is the answer. One comparison and one
    `where` over the output, on padded pools only."""
    kernel, stride, pads, dilation, out_size = geom
    n = len(kernel)
    first = 0
    for i in range(n):  # per dim, the first tap inside the input: ceil((lo - o*s) / d), >= 0
        start = xp.arange(out_size[i], dtype=xp.int64) * stride[i] - pads[i][0]
        k_i = xp.maximum(-(start // dilation[i]), 0)
        first = first + k_i.reshape((-1,) + (1,) * (n - 1 - i)) * prod(kernel[i + 1 :])
    return xp.where(best == fill, first.astype(tap.dtype), tap)


def _disjoint(geom) -> bool:
    """Whether no input position is read by two windows (each gets at most one tap)."""
    kernel, stride, _, dilation, _ = geom
    return all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel, stride, dilation, strict=True))


# NOTE [ Tiling max pools ]
# A max pool whose windows tile its input (stride = kernel, no padding or dilation) with many taps
# each (the global max_pool1d(x, x.size(-1)) of text CNNs, adaptive_max_pool1d(x, 1)) reads the
# windows as the last dim of one (..., *out, K) array: one argmax, one gather, instead of several
# passes per tap (adaptive_max_pool1d of (1, 316, 316) to 1 took 1.9 ms, torch 0.1 ms). The taps
# are the per-tap passes' (the first maximum, the last NaN); the values are those at the taps (a
# tie of -0.0 and 0.0 gives the first one's sign, as torch, where NumPy's maximum kept the last).
# On a device every window tiling its input is read so, whatever its taps: the per-tap passes
# are ~12 kernel launches per tap there (NOTE [ Fewer kernel launches on a device ]).
_TILE_MIN = 16


def _tiling(geom, xp) -> bool:
    """Whether the windows of geom tile their input and hold _TILE_MIN taps or more (any number
    on a device)."""
    kernel, stride, pads, dilation, _ = geom
    return (
        (math.prod(kernel) >= _TILE_MIN or not on_host(xp))
        and tuple(kernel) == tuple(stride)
        and all(d == 1 for d in dilation)
        and not any(lo or hi for lo, hi in pads)
    )


def _tiles(xp, a, geom):
    """The (..., *out, K) array of each window's elements in tap order when the windows of geom
    tile `a` (an input or a gradient of its shape) and hold _TILE_MIN taps or more (any number
    on a device), else None."""
    kernel, _, _, _, out_size = geom
    if not _tiling(geom, xp):
        return None
    n = len(kernel)
    head = a.shape[: a.ndim - n]
    a = a[(Ellipsis,) + tuple(slice(0, o * k) for o, k in zip(out_size, kernel, strict=True))]
    a = a.reshape(head + tuple(v for ok in zip(out_size, kernel, strict=True) for v in ok))
    h = len(head)
    order = (*range(h), *range(h, h + 2 * n, 2), *range(h + 1, h + 2 * n, 2))
    return a.transpose(order).reshape(head + tuple(out_size) + (math.prod(kernel),))


_TIE_TAKES_SECOND = {}


def _tie_takes_second(xp, dtype) -> bool:
    """Whether NumPy's maximum returns its second operand where the two are equal (float32 and
    float64 do, float16 returns the first), read once per dtype: the per-tap max runs over the
    taps last to first there, so that a tie of -0. and 0. keeps the first tap's sign, as torch's.
    False on a device (asking would read device data; its tiling windows take _tile_argmax)."""
    if dtype.kind not in "fV" or not on_host(xp):
        return False
    second = _TIE_TAKES_SECOND.get(dtype)
    if second is None:
        r = xp.maximum(xp.array([-0.0], dtype), xp.array([0.0], dtype))
        second = _TIE_TAKES_SECOND[dtype] = not bool(xp.signbit(r.astype("float32"))[0])
    return second


def _at_taps(xp, w, tap):
    """take_along_axis(w, tap, axis=-1): the (..., 1) elements of the (..., K) array w at the
    (..., 1) taps. A device's as one take from the flat array (its take_along_axis makes an
    index array per leading dim: NOTE [ Fewer kernel launches on a device ])."""
    if on_host(xp):
        return xp.take_along_axis(w, tap, axis=-1)
    k = w.shape[-1]
    return xp.take(w.reshape(-1), xp.arange(0, tap.size * k, k).reshape(tap.shape) + tap)


def _tile_argmax(xp, w, floating):
    """(each window's max, its tap) over the last dim of _tiles' array (NOTE [ Tiling max
    pools ]); floating as _argmax_tap's."""
    k = w.shape[-1]
    tap = w.argmax(axis=-1)[..., None]  # the first maximum, or the first NaN
    best = _at_taps(xp, w, tap)
    if floating == "host":
        floating = bool(xp.isnan(best).any())
    if floating:  # a NaN window: its last NaN
        last = (k - 1) - xp.isnan(w[..., ::-1]).argmax(axis=-1)[..., None]
        tap = xp.where(best != best, last, tap)
    return best[..., 0], tap[..., 0].astype(xp.uint8 if k < 256 else xp.int32)


# NOTE [ Max pooling on contiguous taps ]
# The max and the arg-max read each tap's strided view of the input: NumPy runs its SIMD loops
# only on contiguous operands, and a comparison through a view with a stride of 2 elements costs
# 4-5 times one over contiguous memory. Where the arg-max is wanted (the input requires grad, or
# with indices) the taps are first copied into one contiguous (taps, *out) array on the host, so
# each tap is read through its view once instead of twice: the CNN step's pools, (64, 16, 28, 28)
# and (64, 32, 14, 14) with kernel 2, forward 1.40 -> 1.04 ms and 0.72 -> 0.48 ms (process time,
# best of 40, interleaved). The same comparisons on the same values. Only where the copy is no
# larger than the (padded) input, as for windows that do not overlap: overlapping ones (3x3 at
# stride 1) would copy each input element up to prod(kernel) times.


def _copy_taps(xp, views, xpad) -> bool:
    """Whether the max pool copies its taps: NOTE [ Max pooling on contiguous taps ]."""
    return len(views) > 1 and len(views) * views[0].size <= xpad.size and on_host(xp)


def _contiguous_taps(xp, views):
    """The equal-shaped tap views, copied into one contiguous (taps, *out) array, as a list."""
    out = xp.empty((len(views),) + views[0].shape, dtype=views[0].dtype)
    for t, v in enumerate(views):
        out[t] = v
    return list(out)


class _MaxPool:
    """out = the max of each window (NaN propagates), and with with_indices the flat position in
    the input plane of the first maximum (the last NaN);  grad_x = MaxPoolGrad(grad)"""

    _saved_names = ("self",)  # grad_fn._saved_<name> (as torch's), arguments as F's call gave
    _saved_attrs = {
        "kernel_size": lambda node: _given(node, 0),
        "stride": lambda node: _given(node, 1),
        "padding": lambda node: _given(node, 2),
        "dilation": lambda node: _given(node, 3),
        "ceil_mode": lambda node: _given(node, 4),
        "result1": lambda node: _saved_indices(node),
    }

    @staticmethod
    def forward(ctx, x, *, kernel, stride, padding, dilation, with_indices=False):
        xp = ctx.xp
        xd = x._data
        kernel, stride, padding = tuple(kernel), tuple(stride), tuple(padding)
        dilation = tuple(dilation)
        out_size, index, padded, tile = _plan(
            xd.shape[xd.ndim - len(kernel) :], kernel, stride, padding, dilation
        )
        geom = (kernel, stride, padding, dilation, out_size)
        xpad = pad_array(xp, xd, padding, fill=_lowest(xp, xd.dtype)) if padded else xd
        tiles = _tiles(xp, xd, geom) if tile else None
        if tiles is not None:  # NOTE [ Tiling max pools ]
            floating = is_floating(xd.dtype) and ("host" if x._device.type == "cpu" else True)
            best, tap = _tile_argmax(xp, tiles, floating)
        else:
            views = [xpad[i] for i in index]
            if _copy_taps(xp, views, xpad) and (with_indices or ctx.needs_input_grad[0]):
                views = _contiguous_taps(xp, views)  # NOTE [ Max pooling on contiguous taps ]
            order = views[::-1] if _tie_takes_second(xp, xd.dtype) else views
            best = order[0].copy()
            for v in order[1:]:  # a tie of -0. and 0. keeps the first tap's sign, as torch's
                xp.maximum(best, v, out=best)
            tap = None
        if tiles is None and (with_indices or ctx.needs_input_grad[0]):
            floating = is_floating(xd.dtype) and ("host" if x._device.type == "cpu" else True)
            tap = _argmax_tap(xp, views, best, floating)
            if xpad is not xd:
                tap = _skip_padding(xp, tap, best, geom, _lowest(xp, xd.dtype))
        if ctx.needs_input_grad[0]:
            ctx.geom, ctx.in_shape, ctx.tap = geom, xd.shape, tap
            ctx.save_for_backward(x)  # for MaxPoolGrad's zero edge only (not read on arrays)
        best = _mf.keep_channels_last(xp, best, xd, three_d=True)
        if with_indices:
            idx = _flat_indices(xp, tap, geom, _split(xd.shape, len(kernel))[1])
            return best, _mf.keep_channels_last(xp, idx, xd, three_d=True)
        return best

    @staticmethod
    def backward(ctx, grad, *rest):
        (x,) = ctx._stored_tensors
        check_watched(ctx)  # the returned indices, which torch saves
        return _grad_cls(ctx.geom).apply(grad, x, tap=ctx.tap, geom=ctx.geom, in_shape=ctx.in_shape)

    @staticmethod
    def _backward_data(ctx, grad, *rest):
        # reads no saved array, but torch saves the input and the indices: their version
        # checks (and a freed node's error) as torch's
        ctx._stored_arrays()
        check_watched(ctx)
        return MaxPoolGrad.kernel(ctx.xp, grad, ctx.tap, ctx.geom, ctx.in_shape)


def _given(node, k: int):
    """A max pool's k-th argument as its grad_fn._saved_<name> shows it: as F.max_pool*d kept
    it on the node (kernel_size, stride, padding, dilation, ceil_mode)."""
    given = node.__dict__.get("given")
    if given is None:  # a pool run by another function (adaptive, unpool's inverse): from its
        kernel, stride, pads, dilation, _ = node.geom  # geometry
        given = (kernel, stride, tuple(lo for lo, _ in pads), dilation, False)
    return given[k]


def _saved_indices(node):
    """A max pool's grad_fn._saved_result1: the indices it returned, or, where it returned
    none, the same computed from the taps its backward reads (torch's pool always makes them)."""
    (x,) = node._stored_tensors  # raises once the saved values are freed
    if node._watched:
        check_watched(node)  # (the in-place error of changed indices)
        return node._watched[0][1]
    xd = x._data
    idx = _flat_indices(node.xp, node.tap, node.geom, _split(xd.shape, len(node.geom[0]))[1])
    idx = _mf.keep_channels_last(node.xp, idx, xd, three_d=True)
    return _make(idx, x._device, False, None)


class MaxPoolGrad(Function):
    """out = zeros(in_shape) with a[o] added at the input position of window o's tap[o];
    grad_a = TapGather(grad),  grad_x = 0 for the pooled input x when given (NOTE [ Zero
    gradients of piecewise-linear backward ])"""

    # torch's name for the gradient of a 2-d (or 1-d, run as 2-d) max pool; MaxPool3DGrad below
    _node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, a, x, *, tap, geom, in_shape):
        ctx.tap, ctx.geom, ctx.in_shape = tap, geom, in_shape
        ctx.save_for_backward(x)
        return MaxPoolGrad.kernel(ctx.xp, a._data, tap, geom, in_shape)

    @staticmethod
    def kernel(xp, g, tap, geom, in_shape):
        kernel, stride, pads, dilation, out_size = geom
        head, size = _split(in_shape, len(kernel))
        if _tiling(geom, xp):  # NOTE [ Tiling max pools ]
            k = math.prod(kernel)
            tiles = mask_gradient(xp, g[..., None], tap[..., None] == xp.arange(k))
            n = len(kernel)
            h = len(head)
            tiles = tiles.reshape(head + tuple(out_size) + tuple(kernel))
            order = [*range(h)]
            for i in range(n):
                order += [h + i, h + n + i]
            tiles = tiles.transpose(order).reshape(
                head + tuple(o * k for o, k in zip(out_size, kernel, strict=True))
            )
            out = xp.zeros(in_shape, dtype=g.dtype)
            out[(Ellipsis,) + tuple(slice(0, s) for s in tiles.shape[h:])] = tiles
            return out
        padded = _padded(size, pads)
        disjoint = _disjoint(geom)
        # windows that tile the input exactly write every position: no zero fill needed
        tiled = disjoint and all(
            k == s and d == 1 and o * s == p
            for k, s, d, o, p in zip(kernel, stride, dilation, out_size, padded, strict=True)
        )
        out = (xp.empty if tiled else xp.zeros)(head + padded, dtype=g.dtype)
        # overlapping windows: each tap's masked gradient goes through one buffer, then adds
        # (where(tap == t, g, 0) made a new array of the same values at 4x the cost: a ResNet
        # stem's max_pool2d(x, 3, 2, 1) on (16, 64, 32, 32), this kernel 7.0 -> 4.8 ms, process
        # time, best of 5)
        buf = None if disjoint else xp.empty_like(g)
        for t, i in enumerate(_plan(size, kernel, stride, pads, dilation)[1]):
            if disjoint:  # a write, not an add (2x faster than copyto(where=); see below)
                mask_gradient(xp, g, tap == t, out=out[i])  # +0. off the arg-max
            else:
                out[i] += mask_gradient(xp, g, tap == t, out=buf)
        return crop_array(xp, out, pads, size)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        g_a = None
        if needs[0]:
            g_a = TapGather.apply(grad, tap=ctx.tap, geom=ctx.geom, in_shape=ctx.in_shape)
        return g_a, (zeros_of(x) if needs[1] else None)


class MaxPool3DGrad(MaxPoolGrad):
    """MaxPoolGrad of a 3-d pool, named as torch's node."""

    _node_name = "MaxPool3DWithIndicesBackwardBackward0"


def _grad_cls(geom) -> type:
    """The MaxPoolGrad class whose node has torch's name for a pool of this geometry."""
    return MaxPool3DGrad if len(geom[0]) == 3 else MaxPoolGrad


class TapGather(Function):
    """out[o] = a_pad at the input position of window o's tap[o];  grad_a = MaxPoolGrad(grad)"""

    # torch's max_pool_double_backward gathers, then views the result: its node is a view's
    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, *, tap, geom, in_shape):
        xp = ctx.xp
        kernel, stride, pads, dilation, out_size = geom
        ctx.tap, ctx.geom, ctx.in_shape = tap, geom, in_shape
        tiles = _tiles(xp, a._data, geom)
        if tiles is not None:  # NOTE [ Tiling max pools ]
            return _at_taps(xp, tiles, tap[..., None].astype(xp.intp))[..., 0]
        apad = pad_array(xp, a._data, pads)
        size = _split(a._data.shape, len(kernel))[1]
        out = None
        for t, i in enumerate(_plan(size, kernel, stride, pads, dilation)[1]):
            v = apad[i]
            out = v.copy() if out is None else xp.where(tap == t, v, out)
        ctx.tap, ctx.geom, ctx.in_shape = tap, geom, in_shape
        return out

    @staticmethod
    def backward(ctx, grad):
        return _grad_cls(ctx.geom).apply(
            grad, None, tap=ctx.tap, geom=ctx.geom, in_shape=ctx.in_shape
        )


class MaxPool2D(_MaxPool, Function):
    _node_name = "MaxPool2DWithIndicesBackward0"


class MaxPool3D(_MaxPool, Function):
    _node_name = "MaxPool3DWithIndicesBackward0"


def _avg_given(node, k: int):
    """An average pool's k-th argument as its grad_fn._saved_<name> shows it: as F.avg_pool*d
    kept it on the node (kernel_size, stride, padding, ceil_mode, count_include_pad,
    divisor_override); for a pool run by another function, from its geometry."""
    given = node.__dict__.get("given")
    if given is None:
        kernel, stride, pads, _, _ = node.geom
        given = (kernel, stride, tuple(lo for lo, _ in pads), False, True, None)
    return given[k]


_AVG_SAVED = {  # grad_fn._saved_<name> (as torch's), arguments as F's call gave them
    "kernel_size": lambda node: _avg_given(node, 0),
    "stride": lambda node: _avg_given(node, 1),
    "padding": lambda node: _avg_given(node, 2),
    "ceil_mode": lambda node: _avg_given(node, 3),
    "count_include_pad": lambda node: _avg_given(node, 4),
    "divisor_override": lambda node: _avg_given(node, 5),
}


def _keep_avg_given(ctx, out: Tensor) -> Tensor:
    """out, whose node (a pool's or its backward's, recorded under create_graph) is given the
    arguments ctx's node kept, for its grad_fn._saved_<name>."""
    given = ctx.__dict__.get("given")
    if given is not None and out._grad_fn is not None:
        out._grad_fn.given = given
    return out


class _AvgPool:
    """out = the sum of each zero-padded window / divisor (a number, or an array over the output
    positions);  grad_x = AvgPoolGrad(grad)"""

    _saved_names = ("self",)
    _saved_attrs = _AVG_SAVED

    @staticmethod
    def forward(ctx, x, *, kernel, stride, padding, dilation, divisor):
        xp = ctx.xp
        xd = x._data
        kernel, stride, padding = tuple(kernel), tuple(stride), tuple(padding)
        dilation = tuple(dilation)
        out_size, index, padded, _ = _plan(
            xd.shape[xd.ndim - len(kernel) :], kernel, stride, padding, dilation
        )
        xpad = pad_array(xp, xd, padding) if padded else xd
        acc = _accumulate_dtype(xd) or xd.dtype  # half precision: summed in float32, as torch
        # row-major, whatever x's strides (an expanded x: stride 0)
        out = xpad[index[0]].astype(acc, order="C", copy=True)
        for i in index[1:]:
            out += xpad[i]
        if ctx.needs_input_grad[0]:
            geom = (kernel, stride, padding, dilation, out_size)
            ctx.geom, ctx.in_shape, ctx.divisor = geom, xd.shape, divisor
            ctx.save_for_backward(x)  # for AvgPoolGrad's zero edge only (not read on arrays)
        if not is_floating(xd.dtype):  # torch truncates toward zero
            return xp.trunc(out / divisor).astype(xd.dtype)
        out /= divisor
        out = out.astype(xd.dtype, copy=False)
        # a 3-d pool's 4-d input is unbatched: torch's result is row-major whatever its layout
        return out if len(kernel) == 3 else _mf.keep_channels_last(xp, out, xd)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        g = ctx._fn.grad_cls.apply(
            grad, x, geom=ctx.geom, in_shape=ctx.in_shape, divisor=ctx.divisor
        )
        return _keep_avg_given(ctx, g)


class _AvgPoolGrad:
    """out = zeros(in_shape) with a / divisor added over each window;  grad_a = AvgPool(grad),
    grad_x = 0 for the pooled input x (torch's avg_pool backward takes it: a gradient penalty's
    double backward reaches x, NOTE [ Zero gradients of piecewise-linear backward ])"""

    _saved_attrs = _AVG_SAVED

    @staticmethod
    def forward(ctx, a, x, *, geom, in_shape, divisor):
        xp = ctx.xp
        kernel, stride, pads, dilation, out_size = geom
        # torch adds each window's grad / divisor, rounded to the dtype, into the input grad
        # window by window in output order (the last tap first, here): the same roundings for
        # float16 and bfloat16, where the order shows.
        dt = a._data.dtype
        g = (a._data / divisor).astype(dt, copy=False)
        head, size = _split(in_shape, len(kernel))
        out = xp.zeros(head + _padded(size, pads), dtype=dt)
        for i in reversed(_plan(size, kernel, stride, pads, dilation)[1]):
            out[i] += g
        ctx.geom, ctx.divisor = geom, divisor
        ctx.save_for_backward(x)
        return crop_array(xp, out, pads, size)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        kernel, stride, pads, dilation, _ = ctx.geom
        g_a = None
        if needs[0]:
            g_a = ctx._fn.pool_cls.apply(
                grad,
                kernel=kernel,
                stride=stride,
                padding=pads,
                dilation=dilation,
                divisor=ctx.divisor,
            )
            _keep_avg_given(ctx, g_a)
        return g_a, (zeros_of(x) if needs[1] else None)


class AvgPool2D(_AvgPool, Function):
    _node_name = "AvgPool2DBackward0"


class AvgPool2DGrad(_AvgPoolGrad, Function):
    _node_name = "AvgPool2DBackwardBackward0"


class AvgPool3D(_AvgPool, Function):
    _node_name = "AvgPool3DBackward0"


class AvgPool3DGrad(_AvgPoolGrad, Function):
    _node_name = "AvgPool3DBackwardBackward0"


AvgPool2D.grad_cls = AvgPool2DGrad
AvgPool3D.grad_cls = AvgPool3DGrad
AvgPool2DGrad.pool_cls = AvgPool2D
AvgPool3DGrad.pool_cls = AvgPool3D


def _by_mats(xp, a, mats, adjoint):
    """a with each of its last len(mats) dims mapped through its (o, L) matrix (adjoint: its
    transpose, (L, o)), as a row-major array; half precision is summed in float32."""
    dt = a.dtype
    half = opmath_dtype(dt)
    if half:
        a = a.astype(half)
    n = len(mats)
    for i, m in enumerate(mats):
        dim = a.ndim - n + i
        m = m.astype(a.dtype, copy=False)
        a = xp.moveaxis(xp.matmul(xp.moveaxis(a, dim, -1), m if adjoint else m.T), -1, dim)
    return xp.ascontiguousarray(a.astype(dt, copy=False))


class AdaptiveAvg(Function):
    """out = x with each pooled dim averaged over torch's adaptive windows, given as one (o, L)
    averaging matrix per dim (windows of unequal sizes, which AvgPool cannot take);
    grad_x = AdaptiveAvgGrad(grad, x). Linear, so the pair closes as AvgPool's."""

    @staticmethod
    def forward(ctx, x, *, mats):
        ctx.mats = mats
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x)  # for AdaptiveAvgGrad's zero edge only
        out = _by_mats(ctx.xp, x._data, mats, False)
        if len(mats) == 3:  # a 4-d input is unbatched: torch's result is row-major (as AvgPool)
            return out
        return _mf.keep_channels_last(ctx.xp, out, x._data)

    @staticmethod
    def backward(ctx, grad):
        # (AdaptiveAvg pools only to an empty output or from no channel: F's windows take the
        # others)
        check_grad_nonempty(grad._data.shape, f"adaptive_avg_pool{len(ctx.mats)}d")
        (x,) = ctx._stored_tensors
        return AdaptiveAvgGrad.apply(grad, x, mats=ctx.mats)


class AdaptiveAvgGrad(Function):
    """out = a mapped through each averaging matrix's transpose (AdaptiveAvg's adjoint);
    grad_a = AdaptiveAvg(grad),  grad_x = 0 for the pooled input x (as _AvgPoolGrad's)"""

    @staticmethod
    def forward(ctx, a, x, *, mats):
        ctx.mats = mats
        ctx.save_for_backward(x)
        return _by_mats(ctx.xp, a._data, mats, True)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        g_a = AdaptiveAvg.apply(grad, mats=ctx.mats) if needs[0] else None
        return g_a, (zeros_of(x) if needs[1] else None)


def empty_grad_message(shape, op: str) -> str | None:
    """torch's adaptive pools' backward kernels refuse a gradient with an empty dim after the
    first (an output size of 0, or no channel): their message, None where they accept it."""
    for d in range(1, len(shape)):
        if shape[d] == 0:
            return (
                f"{op}_backward(): Expected grad_output to have non-zero size for non-batch "
                f"dimensions, but grad_output has sizes {list(shape)} with dimension {d} "
                "being empty"
            )
    return None


def check_grad_nonempty(shape, op: str) -> None:
    """Raises empty_grad_message's refusal, if any."""
    message = empty_grad_message(shape, op)
    if message is not None:
        raise RuntimeError(message)


MAX_POOLS = {2: MaxPool2D, 3: MaxPool3D}
AVG_POOLS = {2: AvgPool2D, 3: AvgPool3D}


def _no_bool(x: Tensor, kernel_name: str) -> None:
    if x._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for 'Bool'")


def _no_node(x: Tensor) -> bool:
    """NOTE [ The no-grad fast path ]: x is a plain CPU tensor, nothing is recorded and no
    profile is open: the pool's forward runs with the ctx Function.apply would give it."""
    return (
        x.__class__ is Tensor
        and x._device is _CPU
        and not (x._requires_grad and _grad_state.enabled)
        and fast_path[0]
    )


def max_pool(x: Tensor, kernel, stride, pads, dilation, with_indices):
    """Pools the last len(kernel) dims of x (2 or 3) by windows; pads are (lo, hi) pairs."""
    _no_bool(x, f"max_pool{len(kernel)}d")
    if not with_indices and _no_node(x):  # (a pair of results: Function.apply's)
        out = MAX_POOLS[len(kernel)].forward(
            _CPU_NULL_CTX, x, kernel=kernel, stride=stride, padding=pads, dilation=dilation
        )
        return plain_result(out, _CPU)
    out = MAX_POOLS[len(kernel)].apply(
        x,
        kernel=kernel,
        stride=stride,
        padding=pads,
        dilation=dilation,
        with_indices=with_indices,
    )
    if with_indices and out[0]._grad_fn is not None:
        watch_index(out[0]._grad_fn, out[1])  # NOTE [ Watched index tensors ]
    return out


def avg_pool(x: Tensor, kernel, stride, pads, divisor, given=None):
    """Averages the last len(kernel) dims of x (2 or 3) by windows of zero-padded x. `given`:
    the arguments as F.avg_pool*d's call gave them, kept on a recorded node for its
    grad_fn._saved_<name>."""
    _no_bool(x, "avg_pool2d" if len(kernel) == 2 else "avg_pool3d_out_frame")
    if _no_node(x):
        out = AVG_POOLS[len(kernel)].forward(
            _CPU_NULL_CTX,
            x,
            kernel=kernel,
            stride=stride,
            padding=pads,
            dilation=(1,) * len(kernel),
            divisor=divisor,
        )
        return plain_result(out, _CPU)
    out = AVG_POOLS[len(kernel)].apply(
        x,
        kernel=kernel,
        stride=stride,
        padding=pads,
        dilation=(1,) * len(kernel),
        divisor=divisor,
    )
    if given is not None and out._grad_fn is not None:
        out._grad_fn.given = given
    return out
