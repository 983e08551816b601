"""Convolution kernels: N-d convolution, its transpose and weight gradient, im2col/col2im.

NOTE [ Convolution as im2col ]
A convolution reads, for every output position, a window of the (zero-padded) input. The windows
are one strided view of the padded input, laid out (N, C, *kernel, *out) so that reshaping it to
the column matrix (N, groups, C/groups * prod(kernel), prod(out)) is one contiguous copy; the
output is then one batched matmul of the weight (groups, C_out/groups, C/groups * prod(kernel))
with those columns, already in (N, C_out, *out) order. Its adjoint, col2im, adds the columns back
where they were read: one strided slice-add per kernel tap (prod(kernel) array operations, never a
loop over batch, channels or pixels, and no scatter). Three Functions close over each other's
backward, so every derivative of every order is again one of them:

    y  = Conv(x, w)              dy/dx^T g = ConvTranspose(g, w)      dy/dw^T g = ConvWeight(x, g)
    y  = ConvTranspose(x, w)     dx = Conv(g, w)                      dw = ConvWeight(g, x)
    gw = ConvWeight(x, gy)       dx = ConvTranspose(gy, gg)           dgy = Conv(x, gg)

Why fused (Principle 1): composed from pad + unfold + einsum ops, conv2d forward+backward on the
second layer of the CNN step (x (64, 16, 14, 14), w (32, 16, 3, 3), padding 1) took 58 ms against
15 ms fused (process time, one BLAS thread); the fused forward also keeps its column matrix for
the weight gradient.
"""

from __future__ import annotations

import itertools

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function

__all__: list[str] = []

# Conv keeps its column matrix for the weight gradient when it is at most this large.
CACHED_COLUMNS_MAX_BYTES = 16 << 20


def prod(xs) -> int:
    n = 1
    for v in xs:
        n *= v
    return n


def conv_out_size(size: int, k: int, s: int, pads: tuple, d: int) -> int:
    """Output length of a window of k taps (dilation d) every s steps over size + pads."""
    return (size + pads[0] + pads[1] - d * (k - 1) - 1) // s + 1


# --- array kernels (raw arrays, xp from the caller) ---


def pad_array(xp, x, pads, fill=0):
    """x with its trailing len(pads) dims padded by (lo, hi) pairs of `fill` (lo, hi >= 0)."""
    if not any(lo or hi for lo, hi in pads):
        return x
    lead = x.ndim - len(pads)
    shape = x.shape[:lead] + tuple(
        s + lo + hi for s, (lo, hi) in zip(x.shape[lead:], pads, strict=False)
    )
    if fill == 0:
        out = xp.zeros(shape, dtype=x.dtype)
    else:
        out = xp.full(shape, fill, dtype=x.dtype)
    out[
        (slice(None),) * lead
        + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[lead:], pads, strict=False))
    ] = x
    return out


def crop_array(xp, x, pads, size):
    """The inverse of pad_array: x[..., lo:lo+size] on the trailing dims, made contiguous."""
    if not any(lo or hi for lo, hi in pads):
        return x
    lead = x.ndim - len(pads)
    key = (slice(None),) * lead + tuple(
        slice(lo, lo + s) for (lo, _), s in zip(pads, size, strict=False)
    )
    return xp.ascontiguousarray(x[key])


def windows(xp, xpad, kernel, stride, dilation, out_size):
    """The (N, C, *kernel, *out) strided view of the windows of a padded (N, C, *S) array."""
    st = xpad.strides
    n = len(kernel)
    shape = xpad.shape[:2] + tuple(kernel) + tuple(out_size)
    strides = (
        st[:2]
        + tuple(st[2 + i] * dilation[i] for i in range(n))
        + tuple(st[2 + i] * stride[i] for i in range(n))
    )
    return xp.lib.stride_tricks.as_strided(xpad, shape=shape, strides=strides)


def taps(kernel, stride, dilation, out_size):
    """(flat tap number, the slices of the padded input that tap reads) for each kernel tap."""
    ranges = [range(k) for k in kernel]
    for t, ks in enumerate(itertools.product(*ranges)):
        yield (
            t,
            tuple(
                slice(k * d, k * d + s * (o - 1) + 1, s)
                for k, s, d, o in zip(ks, stride, dilation, out_size, strict=False)
            ),
        )


def col2im(xp, cols, padded, stride, dilation):
    """Adds the (N, C, *kernel, *out) columns back into a zero (N, C, *padded) array."""
    n = len(stride)
    kernel, out_size = cols.shape[2 : 2 + n], cols.shape[2 + n :]
    out = xp.zeros(cols.shape[:2] + tuple(padded), dtype=cols.dtype)
    lead = (slice(None), slice(None))
    ranges = [range(k) for k in kernel]
    for (_, sl), ks in zip(
        taps(kernel, stride, dilation, out_size), itertools.product(*ranges), strict=False
    ):
        out[lead + sl] += cols[lead + ks]
    return out


def _columns(xp, x, kernel, stride, pads, dilation, groups, out_size=None):
    """The column matrix (N, groups, C/groups * prod(kernel), prod(out)) and the out size."""
    xpad = pad_array(xp, x, pads)
    if out_size is None:
        out_size = tuple(
            conv_out_size(s, k, st, (0, 0), d)
            for s, k, st, d in zip(xpad.shape[2:], kernel, stride, dilation, strict=False)
        )
    win = windows(xp, xpad, kernel, stride, dilation, out_size)
    n, c = x.shape[:2]
    cols = win.reshape(n, groups, (c // groups) * prod(kernel), prod(out_size))
    return cols, tuple(out_size)


def _add_bias(out, b):
    if b is not None:
        out += b._data.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def _sum_bias_grad(grad: Tensor) -> Tensor:
    return grad.sum((0, *range(2, grad.ndim)))


def _fit(t: Tensor, size) -> Tensor:
    """t cut to `size` on its spatial dims (an output_padding wider than the stride leaves the
    adjoint conv one position longer than the input it differentiates)."""
    if tuple(t.shape[2:]) == tuple(size):
        return t
    return t[(slice(None), slice(None)) + tuple(slice(0, s) for s in size)]


# --- the Functions ---


class Conv(Function):
    """out = sum_{c,k} x_pad[n, c, o*s + k*d] w[f, c, k] (+ b[f]), per group;
    grad_x = ConvTranspose(grad, w),  grad_w = ConvWeight(x, grad),  grad_b = grad summed.
    See NOTE [ Convolution as im2col ]."""

    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, w, b, *, stride, padding, dilation, groups):
        xp = ctx.xp
        wd = w._data
        cols, out_size = _columns(xp, x._data, wd.shape[2:], stride, padding, dilation, groups)
        wm = wd.reshape(groups, wd.shape[0] // groups, -1)
        out = xp.matmul(wm, cols).reshape((x._data.shape[0], wd.shape[0]) + out_size)
        ctx.geom = (stride, padding, dilation, groups)
        # Small column matrices serve the weight gradient again (freed after backward; 2-3 ms of
        # the CNN step's ~50); large ones (prod(kernel) times the input) are recomputed there.
        keep = ctx.needs_input_grad[1] and cols.nbytes <= CACHED_COLUMNS_MAX_BYTES
        ctx.save_for_backward(x, w, cols if keep else None)
        return _add_bias(out, b)

    @staticmethod
    def backward(ctx, grad):
        x, w, cols = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = ConvTranspose.apply(grad, w, None, out_size=x.shape[2:], **geom)
        if ctx.needs_input_grad[1]:
            gw = ConvWeight.apply(
                x, grad, kernel=w.shape[2:], cols=None if cols is None else cols._data, **geom
            )
        if ctx.needs_input_grad[2]:
            gb = _sum_bias_grad(grad)
        return gx, gw, gb


class ConvTranspose(Function):
    """out = the adjoint of Conv in x: x's channels mapped through w (C_in, C_out/groups, *k),
    the columns added back by col2im and the padding cropped (+ b);
    grad_x = Conv(grad, w),  grad_w = ConvWeight(grad, x),  grad_b = grad summed"""

    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, w, b, *, stride, padding, dilation, groups, out_size):
        xp = ctx.xp
        xd, wd = x._data, w._data
        n, c_in = xd.shape[:2]
        in_size = xd.shape[2:]
        kernel = wd.shape[2:]
        c_out_g = wd.shape[1]
        wm = xp.swapaxes(wd.reshape(groups, c_in // groups, c_out_g * prod(kernel)), -1, -2)
        xm = xd.reshape(n, groups, c_in // groups, prod(in_size))
        cols = xp.matmul(wm, xm).reshape((n, groups * c_out_g) + tuple(kernel) + in_size)
        padded = tuple(o + lo + hi for o, (lo, hi) in zip(out_size, padding, strict=False))
        out = crop_array(xp, col2im(xp, cols, padded, stride, dilation), padding, out_size)
        ctx.geom = (stride, padding, dilation, groups)
        ctx.save_for_backward(x, w)
        return _add_bias(out, b)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = _fit(Conv.apply(grad, w, None, **geom), x.shape[2:])
        if ctx.needs_input_grad[1]:
            gw = ConvWeight.apply(grad, x, kernel=w.shape[2:], cols=None, **geom)
        if ctx.needs_input_grad[2]:
            gb = _sum_bias_grad(grad)
        return gx, gw, gb


class ConvWeight(Function):
    """out[f, c, k] = sum_{n,o} gy[n, f, o] x_pad[n, c, o*s + k*d] (per group): the weight
    gradient of Conv(x, w) = y;  bilinear: grad_x = ConvTranspose(gy, grad),
    grad_gy = Conv(x, grad)"""

    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, gy, *, kernel, stride, padding, dilation, groups, cols=None):
        xp = ctx.xp
        g = gy._data
        n, c_out = g.shape[:2]
        if cols is None:
            cols, _ = _columns(
                xp, x._data, kernel, stride, padding, dilation, groups, out_size=g.shape[2:]
            )
        gm = g.reshape(n, groups, c_out // groups, -1)
        out = xp.matmul(gm, xp.swapaxes(cols, -1, -2)).sum(0)
        ctx.geom = (stride, padding, dilation, groups)
        ctx.save_for_backward(x, gy)
        return out.reshape((c_out, x._data.shape[1] // groups) + tuple(kernel))

    @staticmethod
    def backward(ctx, grad):
        x, gy = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        g_x = g_gy = None
        if ctx.needs_input_grad[0]:
            g_x = ConvTranspose.apply(gy, grad, None, out_size=x.shape[2:], **geom)
        if ctx.needs_input_grad[1]:
            g_gy = _fit(Conv.apply(x, grad, None, **geom), gy.shape[2:])
        return g_x, g_gy


class Im2Col(Function):
    """out[n, c*k, o] = x_pad[n, c, o*s + k*d] (torch's unfold of sliding blocks);
    grad_x = Col2Im(grad).  See NOTE [ Convolution as im2col ]."""

    @staticmethod
    def forward(ctx, x, *, kernel, stride, padding, dilation):
        xd = x._data
        cols, out_size = _columns(ctx.xp, xd, kernel, stride, padding, dilation, 1)
        ctx.geom = (kernel, stride, padding, dilation, xd.shape[2:])
        return cols.reshape(cols.shape[0], cols.shape[2], cols.shape[3])

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, dilation, size = ctx.geom
        return Col2Im.apply(
            grad,
            output_size=size,
            kernel=kernel,
            stride=stride,
            padding=padding,
            dilation=dilation,
        )


class Col2Im(Function):
    """out = zeros(N, C, *output_size) with each column entry added where Im2Col read it
    (torch's fold);  grad_cols = Im2Col(grad)"""

    @staticmethod
    def forward(ctx, a, *, output_size, kernel, stride, padding, dilation):
        xp = ctx.xp
        d = a._data
        padded = tuple(s + lo + hi for s, (lo, hi) in zip(output_size, padding, strict=False))
        out_size = tuple(
            conv_out_size(s, k, st, (0, 0), dl)
            for s, k, st, dl in zip(padded, kernel, stride, dilation, strict=False)
        )
        n = d.shape[0]
        c = d.shape[1] // prod(kernel)
        cols = d.reshape((n, c) + tuple(kernel) + out_size)
        ctx.geom = (kernel, stride, padding, dilation)
        return crop_array(xp, col2im(xp, cols, padded, stride, dilation), padding, output_size)

    @staticmethod
    def backward(ctx, grad):
        kernel, stride, padding, dilation = ctx.geom
        return Im2Col.apply(grad, kernel=kernel, stride=stride, padding=padding, dilation=dilation)
