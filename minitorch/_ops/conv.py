"""Convolution kernels: N-d convolution, its transpose and weight gradient, im2col/col2im.

NOTE [ Convolution as im2col ]
A convolution reads, for every output position, a window of the (zero-padded) input. The windows
are one strided view of the padded input, (N, C, *kernel, *out). The convolutions copy it once,
channel-major, into the column matrix (groups, C/groups * prod(kernel), N * prod(out)): the batch
joins the GEMM's long dimension, so each group is ONE matmul of the weight
(groups, C_out/groups, C/groups * prod(kernel)) with those columns, and one copy turns its
(C_out, N, *out) result into (N, C_out, *out). The weight gradient is likewise one matmul per
group (the upstream gradient copied channel-major, times the columns transposed), and the input
gradient one matmul giving (C, *kernel, N, *in) columns. NumPy runs a batched matmul as one BLAS
call per batch entry: with the batch there, the CNN step made 64 small GEMM calls per conv and
kernel, each waking BLAS's threads; profiled on the busy shared 2-core machine, the weight
gradient averaged 46 ms per call that way and 11 ms as one GEMM (about 2-3 ms either way when
the machine is quiet). Its adjoint, col2im, adds the columns back where they were read: one
strided slice-add per kernel tap (prod(kernel) array operations, never a loop over batch,
channels or pixels, and no scatter). unfold/fold (Im2Col, Col2Im) keep the batch-major layout
torch returns. Three Functions close over each other's backward, so every derivative of every
order is again one of them (a first backward's input gradient is ConvTranspose or Conv recorded
as ConvInputGrad: NOTE [ Convolution's double backward node ]):

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

from minitorch import _memory_format as _mf
from minitorch._ops._common import on_host, opmath_dtype
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function

__all__: list[str] = []

# Conv keeps its column matrix for the weight gradient when it is at most this large.
CACHED_COLUMNS_MAX_BYTES = 16 << 20
# ConvTranspose goes one kernel tap at a time when its column matrix would be larger than this.
# See NOTE [ Transposed convolution by taps ].
TAPS_MIN_BYTES = 8 << 20
# The most work the wide col2im may waste on junk columns in 3-d (padded / input positions).
WIDE_MAX_WASTE_3D = 1.2
# A convolution runs one GEMM per sample, batch-major, when each is at most this many
# multiply-adds. See NOTE [ Per-sample GEMMs for small convolutions ].
PER_SAMPLE_MAX_MACS = 1 << 18
# The wide col2im runs its GEMM and adds on this many bytes of columns at a time.
WIDE_CHUNK_BYTES = 2 << 20
# The depthwise taps' sum runs on this many bytes of its result at a time (whole samples).
DEPTHWISE_CHUNK_BYTES = 256 << 10


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


def col2im(xp, cols, padded, stride, dilation, channel_major=False):
    """Adds the (N, C, *kernel, *out) columns back into a zero (N, C, *padded) array; with
    channel_major, the (C, *kernel, N, *out) columns into a zero (C, N, *padded) array."""
    n = len(stride)
    if channel_major:
        kernel, out_size = cols.shape[1 : 1 + n], cols.shape[2 + n :]
        lead_shape = (cols.shape[0], cols.shape[1 + n])
    else:
        kernel, out_size = cols.shape[2 : 2 + n], cols.shape[2 + n :]
        lead_shape = cols.shape[:2]
    out = xp.zeros(lead_shape + tuple(padded), dtype=cols.dtype)
    lead = (slice(None), slice(None))
    ranges = [range(k) for k in kernel]
    for (_, sl), ks in zip(
        taps(kernel, stride, dilation, out_size), itertools.product(*ranges), strict=False
    ):
        out[lead + sl] += cols[(slice(None),) + ks] if channel_major else cols[lead + ks]
    return out


def _columns(xp, x, kernel, stride, pads, dilation, groups, out_size=None):
    """The column matrix (N, groups, C/groups * prod(kernel), prod(out)), new row-major memory,
    and the out size."""
    xpad = pad_array(xp, x, pads)
    if out_size is None:
        out_size = tuple(
            conv_out_size(s, k, st, (0, 0), d)
            for s, k, st, d in zip(xpad.shape[2:], kernel, stride, dilation, strict=False)
        )
    win = windows(xp, xpad, kernel, stride, dilation, out_size)
    n, c = x.shape[:2]
    # One row-major copy, then a reshape that cannot fail to be a view of it. A plain reshape
    # copies too where windows overlap, but where they do not (a kernel of 1 along a dim, or the
    # whole input) it returns a view of x: unfold's result would share x's memory (an in-place
    # op on it changing x) with odd strides, where torch's is new row-major memory.
    cols = win.copy().reshape(n, groups, (c // groups) * prod(kernel), prod(out_size))
    return cols, tuple(out_size)


def _columns_cm(xp, x, kernel, stride, pads, dilation, groups, out_size=None):
    """The channel-major column matrix (groups, C/groups * prod(kernel), N * prod(out)) and
    the out size: the batch joins the GEMM's long dimension, so each group is ONE matmul."""
    xpad = pad_array(xp, x, pads)
    if out_size is None:
        out_size = tuple(
            conv_out_size(s, k, st, (0, 0), d)
            for s, k, st, d in zip(xpad.shape[2:], kernel, stride, dilation, strict=False)
        )
    win = windows(xp, xpad, kernel, stride, dilation, out_size)  # (N, C, *kernel, *out)
    nd = len(kernel)
    win = win.transpose((1, *range(2, 2 + nd), 0, *range(2 + nd, 2 + 2 * nd)))
    n, c = x.shape[:2]
    cols = win.reshape(groups, (c // groups) * prod(kernel), n * prod(out_size))
    return cols, tuple(out_size)


# NOTE [ Per-sample GEMMs for small convolutions ]
# The channel-major GEMM of NOTE [ Convolution as im2col ] leaves (C_out, N, *out), one copy away
# from the batch-major result, and needs the upstream gradient copied channel-major for the
# weight gradient. Where each sample's GEMM is small (C_out/groups * C/groups * prod(kernel) *
# prod(out) at most PER_SAMPLE_MAX_MACS, under OpenBLAS's own threshold for waking its threads),
# the columns are instead batch-major, (N, groups, C/groups * prod(kernel), prod(out)), and the
# forward is one matmul with the batch as its broadcast dim, writing (N, C_out, *out) directly
# (the same sums: the same values on the CNN step, at most a BLAS kernel's other rounding
# elsewhere); the weight gradient is the per-sample products summed over the batch (other
# roundings than one long GEMM, as close to torch's: 3e-4 on entries of 650). The CNN step's conv1
# ((64, 1, 28, 28), 16 filters 3x3; process time, best of 40, one BLAS thread): forward
# 0.89 -> 0.53 ms, weight gradient 0.72 -> 0.24 ms. Larger GEMMs keep the channel-major route: one
# BLAS call each, which BLAS may split between its threads.


def _per_sample(xp, dtype, c_out_g, ck_g, out_size) -> bool:
    """Whether a convolution takes the per-sample GEMMs of NOTE [ Per-sample GEMMs for small
    convolutions ]: host float32/float64 arrays and a small GEMM per sample."""
    return (
        dtype.kind == "f"
        and dtype.itemsize >= 4
        and c_out_g * ck_g * prod(out_size) <= PER_SAMPLE_MAX_MACS
        and on_host(xp)
    )


def _channel_major(xp, a, groups):
    """(N, C, *S) -> (groups, C/groups, N * prod(S)), one copy."""
    n, c = a.shape[:2]
    size = prod(a.shape[2:])
    m = a.reshape(n, groups, c // groups, size).transpose(1, 2, 0, 3)
    return m.reshape(groups, c // groups, n * size)


def _batch_major(xp, m, n, c, size, b=None):
    """(C, N * prod(size)) (any leading split of C) -> a contiguous (N, C, *size) (+ b per
    channel), one pass."""
    m = m.reshape((c, n) + tuple(size))
    return _swap_plus_bias(xp, m, b)


def _wide_ok(x, w, stride, dilation, in_size, padded) -> bool:
    """Whether ConvTranspose may take the wide col2im: stride 1, windows spanning the padded
    size exactly, host arrays and a finite weight (its junk columns must be exact zeros)."""
    if x._device.type != "cpu" or any(s != 1 for s in stride) or len(in_size) < 2:
        return False
    kernel = w.shape[2:]
    if any(
        i + d * (k - 1) != p for i, d, k, p in zip(in_size, dilation, kernel, padded, strict=True)
    ):
        return False
    if len(in_size) >= 3 and prod(in_size[:1] + padded[1:]) > WIDE_MAX_WASTE_3D * prod(in_size):
        return False  # 3-d: its junk columns cost more than col2im's short rows save
    return bool(x._device.backend.xp.isfinite(w._data).all())


def _col2im_wide(xp, wm, xd, groups, kernel, dilation, padded):
    """ConvTranspose's matmul and col2im for stride 1, into (C_out, N, *padded).

    The input is copied channel-major with every spatial dim but the first widened to the
    padded size by zeros, so the columns come out on the padded grid: each kernel tap is then
    ONE add of a contiguous run of N-planes at a flat offset (rows of prod(padded[1:]) instead
    of rows of in_size[-1]): the CNN step's conv2 input gradient (64, 32, 14, 14) took 5.7 ms
    against 7.0 ms through col2im (process time, best of 30, one BLAS thread). The widened
    columns are exact zeros (a finite weight times 0) and land in the cropped border or add 0.

    Where two samples' columns or more fit in a chunk (WIDE_CHUNK_BYTES), the first dim is
    widened too, so the samples lie end to end on one flat grid of whole padded planes, and
    each tap is ONE add over the chunk's samples (rows of chunk * prod(padded)): the CNN step's
    conv2 2.95 -> 2.4 ms, (32, 32, 28, 28) into 16 channels 5.0 -> 3.7 ms (process time, best
    of 7, interleaved, one BLAS thread). The first dim's junk columns (exact zeros again) add
    into the next sample's plane; a sum there never holds -0. (it starts from +0.), so they
    change no bit. The same sums in the same order; only OpenBLAS's Haswell sgemm kernel (the
    test suite's pinned one) rounds a column by the GEMM's column count, which the chunks
    already changed: there ulps differ, as close to float64 (CNN step's conv2, mean error
    1.29e-6 either way). With one sample per chunk the extra junk rows cost more than they
    save."""
    n, c_in = xd.shape[:2]
    in_size = xd.shape[2:]
    c_out = wm.shape[0] * wm.shape[1] // prod(kernel)
    plane = prod(padded)
    whole = WIDE_CHUNK_BYTES // (wm.shape[0] * wm.shape[1] * plane * xd.itemsize) >= 2
    rows = padded[0] if whole else in_size[0]
    row = prod(padded[1:])  # S1: the flat stride of the first spatial dim on the padded grid
    wide = xp.zeros((groups, c_in // groups, n, rows) + tuple(padded[1:]), dtype=xd.dtype)
    src = xd.reshape((n, groups, c_in // groups) + tuple(in_size))
    key = (slice(None),) * 3 + tuple(slice(0, s) for s in in_size)
    wide[key] = src.transpose((1, 2, 0) + tuple(range(3, 3 + len(in_size))))
    length = rows * row  # one sample's columns
    wide = wide.reshape(groups, c_in // groups, n * length)
    strides = [prod(padded[i + 1 :]) for i in range(len(padded))]
    offsets = [
        sum(t * d * st for t, d, st in zip(ks, dilation, strides, strict=True))
        for ks in itertools.product(*(range(k) for k in kernel))
    ]
    if whole:  # the samples end to end: (C_out, 1, N * plane + the last taps' overhang)
        flat = xp.zeros((c_out, 1, n * plane + max(offsets)), dtype=xd.dtype)
    else:  # (C_out, N, padded[0] * S1 + the last row's overhang)
        flat = xp.zeros((c_out, n, length + max(offsets)), dtype=xd.dtype)
    # The GEMM and the adds go a few samples at a time, so the adds read columns the GEMM just
    # wrote while they are in cache: the CNN step's conv2 input gradient, 2.45 -> 2.2 ms
    # (process time, best of 40, one BLAS thread); the same products and sums.
    chunk = max(1, WIDE_CHUNK_BYTES // (wm.shape[0] * wm.shape[1] * length * xd.itemsize))
    buf = xp.empty(wm.shape[:2] + (min(chunk, n) * length,), dtype=xd.dtype)
    for n0 in range(0, n, chunk):
        n1 = min(n, n0 + chunk)
        part = buf[:, :, : (n1 - n0) * length]
        cols = xp.matmul(wm, wide[:, :, n0 * length : n1 * length], out=part)
        if whole:
            cols = cols.reshape((c_out, prod(kernel), 1, (n1 - n0) * length))
            for t, off in enumerate(offsets):
                flat[:, :, n0 * length + off : n1 * length + off] += cols[:, t]
        else:
            cols = cols.reshape((c_out, prod(kernel), n1 - n0, length))
            for t, off in enumerate(offsets):
                flat[:, n0:n1, off : off + length] += cols[:, t]
    if whole:
        return flat[:, 0, : n * plane].reshape((c_out, n) + tuple(padded))
    return flat[:, :, :plane].reshape((c_out, n) + tuple(padded))


# NOTE [ Transposed convolution by taps ]
# ConvTranspose (Conv's input gradient) maps each input position through the weight to
# prod(kernel) output positions. As one GEMM, its column matrix (C_out * prod(kernel), N * in) is
# prod(kernel) times the output: 27 times for a 3x3x3 kernel, 28 MB for (4, 32, 16, 16, 16)
# into 16 channels, written by the GEMM and read back by col2im from memory. Above
# TAPS_MIN_BYTES it is instead one GEMM per tap, (C_out, C_in) by the input, into one
# output-sized buffer that col2im's add for that tap reads while it is warm: the same products
# and the same sums in the same order (the same values), the GEMM's K still C_in. Process time,
# best of 15, interleaved, one BLAS thread, on a busy machine (+-15%): (4, 32, 16^3) into 16
# channels, 3x3x3, 15.3 ms wide -> 12.5 by taps; (8, 64, 8^3) into 64, 24.8 -> 21.8. The wide
# route keeps 1-d and 2-d (the CNN step's conv2: 5.9 ms against 6.7 by taps), and 3-d where its
# junk columns are at most WIDE_MAX_WASTE_3D of the work ((1, 16, 32^3): 9.6 either way).
# Each tap's GEMM reads the whole input again: with fewer than TAPS_FULL_CHANNELS output channels
# per group it buys too few multiply-adds per read, and the column matrix must be that many
# times larger before the taps pay: (16, 64, 32, 32) into 3 channels, 7x7 at stride 2 (a stem
# conv's input gradient, 9.2 MB of columns), 21 ms by taps against 5.6 through col2im; into 8,
# 4x4, 9.3 against 5.4 (process time, best of 5, one BLAS thread).
TAPS_FULL_CHANNELS = 16


def _taps_min_bytes(c_out_g: int) -> float:
    """The column matrix's size above which ConvTranspose goes by taps, for c_out_g output
    channels per group (NOTE [ Transposed convolution by taps ])."""
    return TAPS_MIN_BYTES * max(1.0, TAPS_FULL_CHANNELS / max(1, c_out_g))


def _col2im_taps(xp, wd, xd, groups, stride, dilation, padded):
    """ConvTranspose's matmul and col2im one kernel tap at a time, into (C_out, N, *padded).
    See NOTE [ Transposed convolution by taps ]."""
    n, c_in = xd.shape[:2]
    in_size = xd.shape[2:]
    kernel = wd.shape[2:]
    c_out_g = wd.shape[1]
    # (taps, groups, C_out/groups, C_in/groups): each tap's weight, transposed per group
    wt = wd.reshape((groups, c_in // groups, c_out_g, prod(kernel))).transpose(3, 0, 2, 1)
    wt = xp.ascontiguousarray(wt)
    xm = _channel_major(xp, xd, groups)  # (groups, C_in/groups, N * prod(in))
    out = xp.zeros((groups * c_out_g, n) + tuple(padded), dtype=xd.dtype)
    tmp = xp.empty((groups, c_out_g, xm.shape[2]), dtype=xd.dtype)
    term = tmp.reshape((groups * c_out_g, n) + tuple(in_size))
    lead = (slice(None), slice(None))
    for t, sl in taps(kernel, stride, dilation, in_size):
        xp.matmul(wt[t], xm, out=tmp)
        out[lead + sl] += term
    return out


def _transpose_by_columns(xp, xd, wd, groups, stride, dilation, padded):
    """ConvTranspose as ONE correlation, into (C_out, N, *padded): x spread out by the stride
    into zeros with a border of d * (k - 1) on each side, its im2col columns times the flipped
    weight. A device's route: five kernel launches where col2im adds one or two per tap (NOTE
    [ Fewer kernel launches on a device ]); its columns hold stride ** dims zeros per input."""
    n, c_in = xd.shape[:2]
    kernel = wd.shape[2:]
    nd = len(kernel)
    c_out_g = wd.shape[1]
    border = [d * (k - 1) for d, k in zip(dilation, kernel, strict=True)]
    size = tuple(p + b for p, b in zip(padded, border, strict=True))
    spread = xp.zeros((n, c_in) + size, dtype=xd.dtype)
    key = tuple(
        slice(b, b + (i - 1) * s + 1, s)
        for b, i, s in zip(border, xd.shape[2:], stride, strict=True)
    )
    spread[(slice(None), slice(None)) + key] = xd
    cols, _ = _columns_cm(
        xp, spread, kernel, (1,) * nd, ((0, 0),) * nd, dilation, groups, out_size=padded
    )
    # (groups, C_out/groups, C_in/groups * prod(kernel)): the weight flipped over its taps,
    # its two channel dims swapped per group, rows in the columns' (channel, tap) order
    flipped = wd[(slice(None), slice(None)) + (slice(None, None, -1),) * nd]
    wm = flipped.reshape((groups, c_in // groups, c_out_g) + tuple(kernel))
    wm = wm.transpose(0, 2, 1, *range(3, 3 + nd)).reshape(groups, c_out_g, -1)
    return xp.matmul(wm, cols).reshape((groups * c_out_g, n) + tuple(padded))


# NOTE [ Depthwise convolution by taps ]
# A depthwise convolution (groups == input channels, one input channel per group, any channel
# multiplier) has one tiny GEMM per channel on the im2col route: (8, 64, 56, 56) with a 3x3
# kernel took 13x torch's time forward and 6.5x backward, mostly copying the column matrix. It is
# instead a sum over the kernel taps of shifted views of the padded input times per-channel
# weights (prod(kernel) array operations of the output's size, no column matrix), for the
# convolution, its input gradient (ConvTranspose with one output channel per group) and its
# weight gradient (ConvWeight). The sums run over the taps in order: other roundings than the
# GEMM's, as close to torch's.


def _depthwise(x, groups) -> bool:
    """Whether Conv/ConvWeight on input x take the taps route: one input channel per group."""
    return groups > 1 and x.shape[1] == groups


def _per_channel(wk, ks, nd):
    """The (C, mult) weights of tap ks, shaped to broadcast over (N, C, mult, *S)."""
    return wk[(slice(None), slice(None)) + ks].reshape(wk.shape[:2] + (1,) * nd)


def _depthwise_conv(xp, x, w, b, stride, padding, dilation):
    """Conv of x (N, C, *S) with w (C * mult, 1, *k) in groups of one channel (+ b)."""
    n, c = x.shape[:2]
    kernel = w.shape[2:]
    nd = len(kernel)
    dt = x.dtype
    if opmath_dtype(dt):  # half: summed in float32 (the bias too) and rounded once, as torch
        x, w = x.astype("float32"), w.astype("float32")
    xpad = pad_array(xp, x, padding)[:, :, None]  # (N, C, 1, *P)
    out_size = tuple(
        conv_out_size(s, k, st, (0, 0), d)
        for s, k, st, d in zip(xpad.shape[3:], kernel, stride, dilation, strict=True)
    )
    wk = w.reshape((c, w.shape[0] // c) + tuple(kernel))
    if all(st == 1 for st in stride):
        out = _depthwise_flat(xp, xpad, wk, dilation, out_size)
    else:
        out = _depthwise_views(xp, xpad, wk, stride, dilation, out_size)
    if b is not None:
        out += b.reshape(wk.shape[:2] + (1,) * nd).astype(out.dtype)
    out = xp.ascontiguousarray(out).reshape((n, w.shape[0]) + out_size)
    return out.astype(dt, copy=False)


def _depthwise_views(xp, xpad, wk, stride, dilation, out_size):
    """The taps' sum on strided views of the padded input (N, C, 1, *P): (N, C, mult, *out)."""
    nd = len(out_size)
    kernel = wk.shape[2:]
    n = xpad.shape[0]
    out = xp.zeros(xpad.shape[:1] + wk.shape[:2] + out_size, dtype=xpad.dtype)
    lead = (slice(None),) * 3
    ranges = itertools.product(*(range(k) for k in kernel))
    terms = [
        (sl, _per_channel(wk, ks, nd))
        for (_, sl), ks in zip(taps(kernel, stride, dilation, out_size), ranges, strict=True)
    ]
    # a few samples at a time, as _depthwise_flat (the same products and sums): (16, 64, 32,
    # 32) 3x3 at stride 2, 3.6 -> 2.3 ms; (8, 32, 112, 112), 9.9 -> 7.4 ms
    chunk, tmp = _sample_chunk(xp, out, n)
    for n0 in range(0, n, chunk):
        part, src = out[n0 : n0 + chunk], xpad[n0 : n0 + chunk]
        prods = tmp[: part.shape[0]]
        for sl, wt in terms:
            part += xp.multiply(src[lead + sl], wt, out=prods)
    return out


def _sample_chunk(xp, out, n):
    """(samples per pass, the products' scratch array) for a depthwise taps' sum into out (n
    samples): DEPTHWISE_CHUNK_BYTES of out on the host, the whole batch on a device."""
    per_sample = max(1, out.nbytes // max(1, n))
    chunk = max(1, DEPTHWISE_CHUNK_BYTES // per_sample) if on_host(xp) else max(1, n)
    return chunk, xp.empty_like(out[:chunk])


def _depthwise_flat(xp, xpad, wk, dilation, out_size):
    """The taps' sum for stride 1, as _col2im_wide: computed on the padded grid flattened, each
    tap is one contiguous run at a flat offset (inner loops of out[0] * prod(P[1:]) elements
    instead of out[-1]: 2.5x faster on (8, 64, 56, 56)); the columns past out_size are cropped
    (the same products and sums as _depthwise_views)."""
    n, c = xpad.shape[:2]
    padded = xpad.shape[3:]
    kernel = wk.shape[2:]
    strides = [prod(padded[i + 1 :]) for i in range(len(padded))]
    length = out_size[0] * strides[0]
    offsets = [
        sum(t * d * st for t, d, st in zip(ks, dilation, strides, strict=True))
        for ks in itertools.product(*(range(k) for k in kernel))
    ]
    flat = xpad.reshape(n, c, 1, prod(padded))
    short = length + max(offsets) - flat.shape[-1]
    if short > 0:  # the last row's cropped columns read past the end
        flat = xp.concatenate([flat, xp.zeros((n, c, 1, short), dtype=flat.dtype)], axis=-1)
    out = xp.zeros((n,) + wk.shape[:2] + (length,), dtype=xpad.dtype)
    ranges = itertools.product(*(range(k) for k in kernel))
    weights = [_per_channel(wk, ks, 1) for ks in ranges]
    # A few samples at a time, so the sum and the products stay in cache between the taps (the
    # same products and sums): (16, 64, 32, 32) 3x3 8.3 -> 6.1 ms, (8, 64, 56, 56) 10 -> 5.6 ms
    # (process time, best of 5). A device takes the whole batch (fewer kernel launches).
    chunk, tmp = _sample_chunk(xp, out, n)
    for n0 in range(0, n, chunk):
        part, src = out[n0 : n0 + chunk], flat[n0 : n0 + chunk]
        prods = tmp[: part.shape[0]]
        for off, wt in zip(offsets, weights, strict=True):
            part += xp.multiply(src[..., off : off + length], wt, out=prods)
    out = out.reshape(out.shape[:3] + (out_size[0],) + tuple(padded[1:]))
    return out[(slice(None),) * 4 + tuple(slice(0, o) for o in out_size[1:])]


def _depthwise_transpose(xp, x, w, b, stride, padding, dilation, groups, out_size, flat_ok):
    """ConvTranspose of x (N, groups * mult, *S) with w (groups * mult, 1, *k): each group's mult
    channels summed into one output channel (+ b), cropped to out_size. `flat_ok`: a finite
    weight on the host (the stride-1 route multiplies it by padding zeros)."""
    n = x.shape[0]
    kernel = w.shape[2:]
    nd = len(kernel)
    dt = x.dtype
    if opmath_dtype(dt):
        x, w = x.astype("float32"), w.astype("float32")
    mult = x.shape[1] // groups
    # stride 1: the correlation of x, padded by each tap span less the padding, with the flipped
    # kernel, so the flat route of the forward applies (20 -> 8 ms on (8, 64, 56, 56), 3x3)
    pads = tuple(
        (d * (k - 1) - lo, o + lo - i) if d * (k - 1) >= lo else (-1, -1)
        for o, i, k, d, (lo, _) in zip(
            out_size, x.shape[2:], kernel, dilation, padding, strict=True
        )
    )
    if flat_ok and all(st == 1 for st in stride) and all(lo >= 0 and hi >= 0 for lo, hi in pads):
        flipped = w[(slice(None), 0) + (slice(None, None, -1),) * nd][:, None]
        xpad = pad_array(xp, x, pads)[:, :, None]  # (N, C, 1, *P)
        out = _depthwise_flat(xp, xpad, flipped, dilation, tuple(out_size))
        out = out.reshape((n, groups, mult) + tuple(out_size))
        out = out[:, :, 0] if mult == 1 else out.sum(2)
        if b is not None:
            out = out + b.reshape((groups,) + (1,) * nd).astype(out.dtype)
        return xp.ascontiguousarray(out).astype(dt, copy=False)
    xg = x.reshape((n, groups, mult) + x.shape[2:])
    wk = w.reshape((groups, mult) + tuple(kernel))
    padded = tuple(o + lo + hi for o, (lo, hi) in zip(out_size, padding, strict=True))
    out = xp.zeros((n, groups) + padded, dtype=x.dtype)
    lead = (slice(None),) * 2
    ranges = itertools.product(*(range(k) for k in kernel))
    for (_, sl), ks in zip(taps(kernel, stride, dilation, x.shape[2:]), ranges, strict=True):
        term = xg * _per_channel(wk, ks, nd)
        out[lead + sl] += term[:, :, 0] if mult == 1 else term.sum(2)
    crop = lead + tuple(slice(lo, lo + o) for o, (lo, _) in zip(out_size, padding, strict=True))
    out = out[crop]
    if b is not None:
        out = out + b.reshape((groups,) + (1,) * nd).astype(out.dtype)
    return xp.ascontiguousarray(out).astype(dt, copy=False)


def _depthwise_weight(xp, x, gy, kernel, stride, padding, dilation):
    """ConvWeight for one input channel per group: out[c * mult + m, 0, k] = sum over the batch
    and the output positions of gy[n, c * mult + m, o] x_pad[n, c, o * s + k * d]."""
    n, c = x.shape[:2]
    nd = len(kernel)
    dt = gy.dtype
    if opmath_dtype(dt):
        x, gy = x.astype("float32"), gy.astype("float32")
    out_size = gy.shape[2:]
    g = gy.reshape((n, c, gy.shape[1] // c) + out_size)
    xpad = pad_array(xp, x, padding)[:, :, None]
    out = xp.empty(g.shape[1:3] + tuple(kernel), dtype=g.dtype)
    axes = (0,) + tuple(range(3, 3 + nd))
    lead = (slice(None),) * 3
    tmp = xp.empty_like(g)
    ranges = itertools.product(*(range(k) for k in kernel))
    for (_, sl), ks in zip(taps(kernel, stride, dilation, out_size), ranges, strict=True):
        out[(slice(None), slice(None)) + ks] = xp.multiply(xpad[lead + sl], g, out=tmp).sum(axes)
    return out.reshape((gy.shape[1], 1) + tuple(kernel)).astype(dt, copy=False)


def _swap_plus_bias(xp, m, b):
    """A contiguous copy of m (C, N, *S) as (N, C, *S), + b per channel; m is a temporary of
    the caller's, so the bias is added into it first: NumPy's add through the transposed view
    with the bias broadcast walks it slowly (CNN step conv1, (16, 64, 784) float32: 0.9 ms
    fused, 0.15 + 0.3 ms as an add in place and a copy)."""
    if b is not None:
        xp.add(m, b._data.reshape((-1,) + (1,) * (m.ndim - 1)), out=m)
    return xp.ascontiguousarray(xp.swapaxes(m, 0, 1))


def _sum_bias_grad(grad: Tensor) -> Tensor:
    return grad.sum((0, *range(2, grad.ndim)))


def _fit(t: Tensor, size) -> Tensor:
    """t cut to `size` on its spatial dims (an output_padding wider than the stride leaves the
    adjoint conv one position longer than the input it differentiates)."""
    if tuple(t.shape[2:]) == tuple(size):
        return t
    return t[(slice(None), slice(None)) + tuple(slice(0, s) for s in size)]


def _keeps_3d(wd) -> bool:
    """Whether a 3-d convolution keeps a channels-last-3d input's (or weight's) layout: torch's
    CPU kernels for float32 and bfloat16 do (oneDNN), its float64 and float16 ones do not."""
    return wd.dtype.name in ("float32", "bfloat16")


# --- the Functions ---


def _saved_geometry(transposed: bool) -> dict:
    """grad_fn._saved_stride, _saved_padding, ... of ConvolutionBackward0, as torch's: its
    padding is the symmetric part (an uneven 'same' pad is applied to the input first there),
    its output_padding the transposed output's extra size (0 for a direct convolution)."""

    def output_padding(node):
        stride, padding, dilation, _ = node.geom
        if not transposed:
            return (0,) * len(stride)
        x, w = node._stored_tensors[:2]
        return tuple(
            o - ((i - 1) * s - lo - hi + d * (k - 1) + 1)
            for o, i, s, (lo, hi), d, k in zip(
                node.out_size, x.shape[2:], stride, padding, dilation, w.shape[2:], strict=True
            )
        )

    return {
        "stride": lambda node: node.geom[0],
        "padding": lambda node: tuple(min(pair) for pair in node.geom[1]),
        "dilation": lambda node: node.geom[2],
        "groups": lambda node: node.geom[3],
        "transposed": lambda node: transposed,
        "output_padding": output_padding,
        "bias_sym_sizes_opt": "bias_sizes",
    }


def _transpose_columns(grad, x, w, stride, padding, dilation, groups):
    """The column matrix of grad that both gradients of y = ConvTranspose(x, w) read, or None:
    its input gradient Conv(grad, w) and its weight gradient ConvWeight(grad, x) took the same
    im2col of grad each ((16, 16, 32, 32) into 8 channels, 4x4 at stride 2: 8 MB twice; forward
    and backward 10.8 -> 8.8 ms, process time, one BLAS thread). Batch-major on the per-sample
    route, channel-major else, as Conv's forward and ConvWeight would each make them; None where
    they make none (a depthwise one, an empty batch) or could differ (an output_padding that
    leaves Conv(grad, w) longer than x: ConvWeight reads x's size of windows)."""
    g, xd, wd = grad._data, x._data, w._data
    kernel = wd.shape[2:]
    if not g.shape[0] or _depthwise(g, groups):
        return None
    size = tuple(
        conv_out_size(s, k, st, p, d)
        for s, k, st, p, d in zip(g.shape[2:], kernel, stride, padding, dilation, strict=True)
    )
    if size != tuple(xd.shape[2:]):
        return None
    xp = grad._device.backend.xp
    ck_g = (g.shape[1] // groups) * prod(kernel)
    if _per_sample(xp, wd.dtype, wd.shape[0] // groups, ck_g, size):
        return _columns(xp, g, kernel, stride, padding, dilation, groups)[0]
    return _columns_cm(xp, g, kernel, stride, padding, dilation, groups)[0]


class Conv(Function):
    """out = sum_{c,k} x_pad[n, c, o*s + k*d] w[f, c, k] (+ b[f]), per group;
    grad_x = ConvTranspose(grad, w),  grad_w = ConvWeight(x, grad),  grad_b = grad summed.
    See NOTE [ Convolution as im2col ]."""

    _node_name = "ConvolutionBackward0"
    _saved_names = ("input", "weight")  # grad_fn._saved_input, ... (as torch)
    _saved_attrs = _saved_geometry(transposed=False)

    @staticmethod
    def forward(ctx, x, w, b, *, stride, padding, dilation, groups, cols=None):
        xp = ctx.xp
        wd = w._data
        ctx.geom = (stride, padding, dilation, groups)
        ctx.bias_sizes = (0,) if b is None else tuple(b.shape)
        if _depthwise(x._data, groups):  # NOTE [ Depthwise convolution by taps ]
            ctx.save_for_backward(x, w, None)
            bd = None if b is None else b._data
            out = _depthwise_conv(xp, x._data, wd, bd, stride, padding, dilation)
            return _mf.keep_channels_last(
                xp, out, x._data, wd, three_d=_keeps_3d(wd), on_meta=False
            )
        wm = wd.reshape(groups, wd.shape[0] // groups, -1)
        n = x._data.shape[0]
        out_size = tuple(
            conv_out_size(s, k, st, p, d)
            for s, k, st, p, d in zip(
                x._data.shape[2:], wd.shape[2:], stride, padding, dilation, strict=True
            )
        )
        if _per_sample(xp, wd.dtype, wm.shape[1], wm.shape[2], out_size):
            # NOTE [ Per-sample GEMMs for small convolutions ]
            if cols is None:  # (given: _transpose_columns')
                cols, _ = _columns(xp, x._data, wd.shape[2:], stride, padding, dilation, groups)
            out = xp.matmul(wm, cols).reshape((n, wd.shape[0]) + out_size)
            if b is not None:
                xp.add(out, b._data.reshape((-1,) + (1,) * len(out_size)), out=out)
            keep = ctx.needs_input_grad[1] and cols.nbytes <= CACHED_COLUMNS_MAX_BYTES
            ctx.save_for_backward(x, w, cols if keep else None)
            three_d = _keeps_3d(wd)
            return _mf.keep_channels_last(xp, out, x._data, wd, three_d=three_d, on_meta=False)
        if cols is None:
            cols, _ = _columns_cm(xp, x._data, wd.shape[2:], stride, padding, dilation, groups)
        if opmath_dtype(wd.dtype):
            # half: the products summed in float32 and the bias added there, rounded once (as
            # torch); NumPy's float16 matmul would round before the bias
            m = xp.matmul(wm.astype("float32"), cols.astype("float32"))
        else:
            m = xp.matmul(wm, cols)
        out = _batch_major(xp, m, n, wd.shape[0], out_size, b)
        if out.dtype != wd.dtype:  # NumPy's bfloat16 (ml_dtypes) matmul returns float32
            out = out.astype(wd.dtype)
        # Small column matrices serve the weight gradient again (freed after backward; 2-3 ms of
        # the CNN step's ~50); large ones (prod(kernel) times the input) are recomputed there.
        keep = ctx.needs_input_grad[1] and cols.nbytes <= CACHED_COLUMNS_MAX_BYTES
        ctx.save_for_backward(x, w, cols if keep else None)
        return _mf.keep_channels_last(xp, out, x._data, wd, three_d=_keeps_3d(wd), on_meta=False)

    @staticmethod
    def backward(ctx, grad):
        x, w, cols = ctx._stored_tensors
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        gx = gw = gb = None
        if ctx.needs_input_grad[0]:
            gx = ConvInputGrad.apply(grad, x, w, transposed=False, **geom)
        if ctx.needs_input_grad[1]:
            gw = ConvWeight.apply(
                x, grad, w, kernel=w.shape[2:], cols=None if cols is None else cols._data, **geom
            )
        if ctx.needs_input_grad[2]:
            gb = _sum_bias_grad(grad)
        return gx, gw, gb


class ConvTranspose(Function):
    """out = the adjoint of Conv in x: x's channels mapped through w (C_in, C_out/groups, *k),
    the columns added back by col2im and the padding cropped (+ b);
    grad_x = Conv(grad, w),  grad_w = ConvWeight(grad, x),  grad_b = grad summed"""

    _node_name = "ConvolutionBackward0"
    _saved_names = ("input", "weight")  # grad_fn._saved_input, ... (as torch)
    _saved_attrs = _saved_geometry(transposed=True)

    @staticmethod
    def forward(ctx, x, w, b, *, stride, padding, dilation, groups, out_size):
        xp = ctx.xp
        xd, wd = x._data, w._data
        ctx.bias_sizes = (0,) if b is None else tuple(b.shape)
        ctx.out_size = out_size
        if not xd.shape[0]:  # an empty batch: no kernel (torch checks no dilation or padding)
            ctx.geom = (stride, padding, dilation, groups)
            ctx.save_for_backward(x, w)
            out = xp.zeros((0, wd.shape[1] * groups, *out_size), dtype=xd.dtype)
            return _mf.keep_channels_last(xp, out, xd, wd, three_d=_keeps_3d(wd), on_meta=False)
        if groups > 1 and wd.shape[1] == 1:  # NOTE [ Depthwise convolution by taps ]
            ctx.geom = (stride, padding, dilation, groups)
            ctx.save_for_backward(x, w)
            bd = None if b is None else b._data
            # the flat route multiplies the weight by padding zeros: a finite one only (read
            # on the host, as _wide_ok)
            flat_ok = x._device.type == "cpu" and bool(xp.isfinite(wd).all())
            out = _depthwise_transpose(
                xp, xd, wd, bd, stride, padding, dilation, groups, tuple(out_size), flat_ok
            )
            return _mf.keep_channels_last(xp, out, xd, wd, three_d=_keeps_3d(wd), on_meta=False)
        dt = xd.dtype
        if opmath_dtype(dt):
            # half: the products and their sums over the taps in float32 (the bias added there
            # too), rounded once at the end, as torch does (NumPy's float16 adds round each tap)
            xd, wd = xd.astype("float32"), wd.astype("float32")
        n, c_in = xd.shape[:2]
        in_size = xd.shape[2:]
        kernel = wd.shape[2:]
        c_out_g = wd.shape[1]
        wm = xp.swapaxes(wd.reshape(groups, c_in // groups, c_out_g * prod(kernel)), -1, -2)
        padded = tuple(o + lo + hi for o, (lo, hi) in zip(out_size, padding, strict=False))
        if not on_host(xp):
            out = _transpose_by_columns(xp, xd, wd, groups, stride, dilation, padded)
        elif _wide_ok(x, w, stride, dilation, in_size, padded):
            out = _col2im_wide(xp, wm, xd, groups, kernel, dilation, padded)
        elif groups * c_out_g * prod(kernel) * n * prod(in_size) * xd.itemsize > _taps_min_bytes(
            c_out_g
        ):
            out = _col2im_taps(xp, wd, xd, groups, stride, dilation, padded)
        else:
            cols = xp.matmul(wm, _channel_major(xp, xd, groups))
            cols = cols.reshape((groups * c_out_g,) + tuple(kernel) + (n,) + in_size)
            out = col2im(xp, cols, padded, stride, dilation, channel_major=True)
        # out: (C_out, N, *padded)
        crop = (slice(None), slice(None)) + tuple(
            slice(lo, lo + o) for o, (lo, _) in zip(out_size, padding, strict=False)
        )
        out = _swap_plus_bias(xp, out[crop], b)
        if out.dtype != dt:  # half, computed in float32 above
            out = out.astype(dt)
        if out.shape[1] == 1:  # one output channel: row-major strides for it, as torch's
            out = out.reshape(-1).reshape(out.shape)
        ctx.geom = (stride, padding, dilation, groups)
        ctx.save_for_backward(x, w)
        three_d = _keeps_3d(w._data)
        return _mf.keep_channels_last(xp, out, x._data, w._data, three_d=three_d, on_meta=False)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx._stored_tensors
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        gx = gw = gb = None
        cols = None
        if ctx.needs_input_grad[0] and ctx.needs_input_grad[1]:
            cols = _transpose_columns(grad, x, w, stride, padding, dilation, groups)
        if ctx.needs_input_grad[0]:
            gx = ConvInputGrad.apply(grad, x, w, transposed=True, cols=cols, **geom)
        if ctx.needs_input_grad[1]:
            gw = ConvWeight.apply(grad, x, w, kernel=w.shape[2:], cols=cols, **geom)
        if ctx.needs_input_grad[2]:
            gb = _sum_bias_grad(grad)
        return gx, gw, gb


class ConvWeight(Function):
    """out[f, c, k] = sum_{n,o} gy[n, f, o] x_pad[n, c, o*s + k*d] (per group): the weight
    gradient of Conv(x, w) = y;  bilinear: grad_x = ConvTranspose(gy, grad),
    grad_gy = Conv(x, grad). w (or None) is read for nothing: see NOTE [ Convolution's double
    backward node ]."""

    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, gy, w, *, kernel, stride, padding, dilation, groups, cols=None):
        xp = ctx.xp
        g = gy._data
        c_out = g.shape[1]
        ctx.geom = (stride, padding, dilation, groups)
        ctx.save_for_backward(x, gy)
        if _depthwise(x._data, groups):  # NOTE [ Depthwise convolution by taps ]
            return _depthwise_weight(xp, x._data, g, tuple(kernel), stride, padding, dilation)
        ck_g = (x._data.shape[1] // groups) * prod(kernel)
        if _per_sample(xp, g.dtype, c_out // groups, ck_g, g.shape[2:]):
            # NOTE [ Per-sample GEMMs for small convolutions ]: cols, when given, are Conv's
            # batch-major ones (its forward took the same route)
            if cols is None:
                cols, _ = _columns(
                    xp, x._data, kernel, stride, padding, dilation, groups, out_size=g.shape[2:]
                )
            gs = g.reshape(g.shape[0], groups, c_out // groups, cols.shape[-1])
            out = xp.matmul(gs, xp.swapaxes(cols, -1, -2)).sum(0)
            return out.reshape((c_out, x._data.shape[1] // groups) + tuple(kernel))
        if cols is None:
            cols, _ = _columns_cm(
                xp, x._data, kernel, stride, padding, dilation, groups, out_size=g.shape[2:]
            )
        gm = _channel_major(xp, g, groups)  # (groups, C_out/groups, N * prod(out))
        if gm.shape[1] < cols.shape[1]:
            # computed transposed, so the longer side is the GEMM's rows: OpenBLAS splits the
            # rows between its threads (the CNN step's conv2, 32 x 144 over 12544 terms:
            # 2.0-2.5 ms as C_out rows, 1.4-1.8 ms as 144)
            out = xp.swapaxes(xp.matmul(cols, xp.swapaxes(gm, -1, -2)), -1, -2)
        else:
            out = xp.matmul(gm, xp.swapaxes(cols, -1, -2))
        if out.dtype != g.dtype:  # NumPy's bfloat16 (ml_dtypes) matmul returns float32
            out = out.astype(g.dtype, order="C")
        elif not out.flags.c_contiguous:
            # the transposed product: a weight-sized copy, so the gradient is row-major as
            # torch's (torch.cat([g.view(-1) for g in grads]) must work)
            out = xp.ascontiguousarray(out)
        return out.reshape((c_out, x._data.shape[1] // groups) + tuple(kernel))

    @staticmethod
    def backward(ctx, grad):
        x, gy = ctx._stored_tensors
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        g_x = g_gy = None
        if ctx.needs_input_grad[0]:
            g_x = ConvTranspose.apply(gy, grad, None, out_size=x.shape[2:], **geom)
        if ctx.needs_input_grad[1]:
            g_gy = _fit(Conv.apply(x, grad, None, **geom), gy.shape[2:])
        return g_x, g_gy, None


# NOTE [ Convolution's double backward node ]
# torch records a convolution's first backward as one node, ConvolutionBackwardBackward0, whose
# inputs are the output gradient, the input and the weight. So under create_graph the input
# gradient requires grad whenever the input does, and the weight gradient whenever the weight
# does, although neither depends on its own tensor (the convolution is linear in each): an R1
# penalty of a frozen conv critic (only the input requiring grad) can be backpropagated, and
# leaves the input's .grad None. ConvInputGrad and ConvWeight take that tensor as an input for
# this bookkeeping only; its gradient is None.


class ConvInputGrad(Function):
    """out = the input gradient of y = Conv(x, w) for gy = dL/dy: ConvTranspose(gy, w) at x's
    size (transposed: of y = ConvTranspose(x, w), Conv(gy, w) cut to x's size); x is read for
    its size only (NOTE [ Convolution's double backward node ]);  linear in gy and w:
    grad_gy = the adjoint of the same map applied to grad, grad_w = ConvWeight"""

    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, gy, x, w, *, transposed, stride, padding, dilation, groups, cols=None):
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        ctx.transposed = transposed
        size = tuple(x.shape[2:])
        if not transposed:
            return ConvTranspose.forward(ctx, gy, w, None, out_size=size, **geom)
        out = Conv.forward(ctx, gy, w, None, cols=cols, **geom)
        if tuple(out.shape[2:]) != size:  # see _fit
            out = out[(slice(None), slice(None)) + tuple(slice(0, s) for s in size)]
        return out

    @staticmethod
    def backward(ctx, grad):
        gy, w = ctx._stored_tensors[:2]
        stride, padding, dilation, groups = ctx.geom
        geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        g_gy = g_w = None
        if ctx.transposed:  # out = Conv(gy, w) (cut): its adjoints
            if ctx.needs_input_grad[0]:
                g_gy = ConvTranspose.apply(grad, w, None, out_size=gy.shape[2:], **geom)
            if ctx.needs_input_grad[2]:
                g_w = ConvWeight.apply(gy, grad, w, kernel=w.shape[2:], **geom)
        else:  # out = ConvTranspose(gy, w)
            if ctx.needs_input_grad[0]:
                g_gy = _fit(Conv.apply(grad, w, None, **geom), gy.shape[2:])
            if ctx.needs_input_grad[2]:
                g_w = ConvWeight.apply(grad, gy, w, kernel=w.shape[2:], **geom)
        return g_gy, None, g_w


def _saved_blocks(extra: dict) -> dict:
    """The _saved_attrs of Im2Col and Col2Im: the block geometry in ctx.geom, as torch's
    Im2ColBackward0 / Col2ImBackward0 show it (a pair per dim, symmetric padding as one number),
    and `extra`'s entries."""
    return {
        "dilation": lambda node: tuple(node.geom[3]),
        "kernel_size": lambda node: tuple(node.geom[0]),
        "padding": lambda node: tuple(lo for lo, _ in node.geom[2]),
        "stride": lambda node: tuple(node.geom[1]),
        **extra,
    }


class Im2Col(Function):
    """out[n, c*k, o] = x_pad[n, c, o*s + k*d] (torch's unfold of sliding blocks);
    grad_x = Col2Im(grad).  See NOTE [ Convolution as im2col ]."""

    _saved_attrs = _saved_blocks(  # grad_fn._saved_<name> (as torch's): geometry, input's size
        {
            "self_sym_argsize_minus_1": lambda node: node.geom[4][-1],
            "self_sym_argsize_minus_2": lambda node: node.geom[4][-2],
        }
    )

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

    _saved_attrs = _saved_blocks({})  # grad_fn._saved_<name> (as torch's)

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
