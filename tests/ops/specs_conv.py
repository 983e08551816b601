"""Op-test rows for the convolution and pooling kernels (minitorch/_ops/conv.py, pool.py), driven
through nn.functional; NumPy references written as loops over kernel taps."""

from __future__ import annotations

import itertools

import numpy as np

import minitorch as mt
from minitorch.nn import _functional_conv as FC
from minitorch.nn import _functional_pool as FP
from tests.ops.spec import OpSpec

FLOATS = ("float32", "float64")


def _torch_f(name, **bound):
    def op(*args):
        import torch.nn.functional as F

        return getattr(F, name)(*args, **bound)

    return op


def row(name, fn, mod, ref, shapes, tf=None, **kw) -> OpSpec:
    """A row calling <mod>.<fn>(*tensors, **bound) and torch.nn.functional.<fn> alike."""
    bound = kw.pop("bound", {})
    return OpSpec(
        name=name,
        op=lambda *xs: getattr(mod, fn)(*xs, **bound),
        ref=(lambda *xs: ref(*xs, **bound)) if ref is not None else None,
        shapes=list(shapes),
        torch_op=tf or _torch_f(fn, **bound),
        **kw,
    )


# --- NumPy references ---


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def _tap_slices(kernel, stride, dilation, out):
    for ks in itertools.product(*(range(k) for k in kernel)):
        yield (
            ks,
            tuple(
                slice(k * d, k * d + s * (o - 1) + 1, s)
                for k, s, d, o in zip(ks, stride, dilation, out, strict=False)
            ),
        )


def ref_conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    n = x.ndim - 2
    kernel = w.shape[2:]
    s, d = _tup(stride, n), _tup(dilation, n)
    if padding == "same":
        pads = [
            (dd * (k - 1) // 2, dd * (k - 1) - dd * (k - 1) // 2)
            for k, dd in zip(kernel, d, strict=False)
        ]
    else:
        pads = [(p, p) for p in _tup(0 if padding == "valid" else padding, n)]
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    out_size = [
        (L - dd * (k - 1) - 1) // ss + 1
        for L, k, ss, dd in zip(xp.shape[2:], kernel, s, d, strict=False)
    ]
    N, C = x.shape[:2]
    F = w.shape[0]
    xg = xp.reshape((N, groups, C // groups) + xp.shape[2:])
    wg = w.reshape((groups, F // groups) + w.shape[1:])
    out = np.zeros((N, groups, F // groups, *out_size))
    for ks, sl in _tap_slices(kernel, s, d, out_size):
        patch = xg[(slice(None),) * 3 + sl]  # (N, g, Cg, *out)
        out += np.einsum("ngc...,gfc->ngf...", patch, wg[(slice(None),) * 3 + ks])
    out = out.reshape((N, F, *out_size))
    if b is not None:
        out += b.reshape((1, -1) + (1,) * n)
    return out


def ref_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """out_pad[n, f, i*s + k*d] += x[n, c, i] w[c, f, k], then the padding cropped."""
    n = x.ndim - 2
    kernel = w.shape[2:]
    s, p, op, d = (_tup(v, n) for v in (stride, padding, output_padding, dilation))
    N, C = x.shape[:2]
    Fg = w.shape[1]
    L = x.shape[2:]
    full = [
        (li - 1) * ss + dd * (k - 1) + 1 + o
        for li, ss, dd, k, o in zip(L, s, d, kernel, op, strict=False)
    ]
    out = np.zeros((N, groups, Fg, *full))
    xg = x.reshape((N, groups, C // groups) + L)
    wg = w.reshape((groups, C // groups, Fg) + kernel)
    for ks, sl in _tap_slices(kernel, s, d, L):
        out[(slice(None),) * 3 + sl] += np.einsum(
            "ngc...,gcf->ngf...", xg, wg[(slice(None),) * 3 + ks]
        )
    out = out.reshape((N, groups * Fg, *full))
    out = out[
        (slice(None), slice(None))
        + tuple(slice(pp, f - pp) for pp, f in zip(p, full, strict=False))
    ]
    if b is not None:
        out = out + b.reshape((1, -1) + (1,) * n)
    return out


def _pool_windows(x, n, kernel, stride, padding, dilation, ceil_mode, fill):
    k = _tup(kernel, n)
    s = k if stride is None else _tup(stride, n)
    p, d = _tup(padding, n), _tup(dilation, n)
    size = x.shape[-n:]
    out = []
    for L, kk, ss, pp, dd in zip(size, k, s, p, d, strict=False):
        o = (L + 2 * pp - dd * (kk - 1) - 1 + (ss - 1 if ceil_mode else 0)) // ss + 1
        if ceil_mode and (o - 1) * ss >= L + pp:
            o -= 1
        out.append(o)
    extra = [
        max(0, (o - 1) * ss + dd * (kk - 1) + 1 - L - 2 * pp)
        for o, ss, dd, kk, L, pp in zip(out, s, d, k, size, p, strict=False)
    ]
    pads = [(0, 0)] * (x.ndim - n) + [(pp, pp + e) for pp, e in zip(p, extra, strict=False)]
    xp = np.pad(x, pads, constant_values=fill)
    lead = (slice(None),) * (x.ndim - n)
    return [(ks, xp[lead + sl]) for ks, sl in _tap_slices(k, s, d, out)], out, k, s, p


def ref_max_pool(
    x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False, n=2
):
    wins, *_ = _pool_windows(x, n, kernel_size, stride, padding, dilation, ceil_mode, -np.inf)
    return np.max(np.stack([v for _, v in wins]), axis=0)


def ref_avg_pool(
    x,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
    n=2,
):
    wins, out, k, s, p = _pool_windows(x, n, kernel_size, stride, padding, 1, ceil_mode, 0.0)
    total = np.sum(np.stack([v for _, v in wins]), axis=0)
    if divisor_override:
        return total / divisor_override
    size = x.shape[-n:]
    div = np.ones(out)
    for i, (L, kk, ss, pp, o) in enumerate(zip(size, k, s, p, out, strict=False)):
        start = np.arange(o) * ss - pp
        end = np.minimum(start + kk, L + pp)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, L)
        shape = [1] * n
        shape[i] = o
        div = div * (end - start).reshape(shape)
    return total / div


def ref_unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    k, d, p, s = (_tup(v, 2) for v in (kernel_size, dilation, padding, stride))
    xp = np.pad(x, [(0, 0), (0, 0)] + [(v, v) for v in p])
    out = [
        (L - dd * (kk - 1) - 1) // ss + 1
        for L, kk, ss, dd in zip(xp.shape[2:], k, s, d, strict=False)
    ]
    cols = np.stack(
        [v for _, v in ((ks, xp[:, :, sl[0], sl[1]]) for ks, sl in _tap_slices(k, s, d, out))],
        axis=2,
    )
    return cols.reshape(x.shape[0], -1, out[0] * out[1])


def _pool_grad_op(x_shape, **bound):
    """g -> the gradient of pool(x0) at a fixed x0 for upstream g (create_graph=True), so the
    pool's backward Function is itself differentiated."""

    def make(T, fn):
        def op(g):
            vals = np.random.default_rng(7).permutation(int(np.prod(x_shape))).reshape(x_shape)
            x = T.tensor(
                vals.astype(np.float64), dtype=g.dtype, device=g.device, requires_grad=True
            )
            return T.autograd.grad(fn(x, **bound), x, g, create_graph=True)[0]

        return op

    return make


def _max_pool_grad_row(name, x_shape, out_shape, **bound):
    make = _pool_grad_op(x_shape, **bound)

    def torch_op(g):
        import torch
        import torch.nn.functional as F

        return make(torch, F.max_pool2d)(g)

    return OpSpec(
        name=name, op=make(mt, FP.max_pool2d), ref=None, shapes=[out_shape], torch_op=torch_op
    )


def _avg_pool_grad_row(name, x_shape, out_shape, **bound):
    make = _pool_grad_op(x_shape, **bound)

    def torch_op(g):
        import torch
        import torch.nn.functional as F

        return make(torch, F.avg_pool2d)(g)

    return OpSpec(
        name=name, op=make(mt, FP.avg_pool2d), ref=None, shapes=[out_shape], torch_op=torch_op
    )


SPECS = [
    # convolutions
    row(
        "conv1d_stride_pad_bias",
        "conv1d",
        FC,
        ref_conv,
        [(2, 4, 7), (3, 4, 3), (3,)],
        bound=dict(stride=2, padding=1),
    ),
    row("conv2d_basic", "conv2d", FC, ref_conv, [(2, 3, 5, 6), (4, 3, 3, 3), (4,)]),
    row(
        "conv2d_groups_dilation_same",
        "conv2d",
        FC,
        ref_conv,
        [(2, 4, 6, 5), (6, 2, 2, 3)],
        bound=dict(padding="same", dilation=(1, 2), groups=2),
    ),
    row(
        "conv2d_stride_no_bias",
        "conv2d",
        FC,
        ref_conv,
        [(1, 2, 7, 6), (3, 2, 3, 2)],
        bound=dict(stride=(2, 1), padding=(1, 0)),
    ),
    row(
        "conv3d_basic",
        "conv3d",
        FC,
        ref_conv,
        [(1, 2, 4, 3, 4), (2, 2, 2, 2, 2), (2,)],
        bound=dict(padding=1, stride=2),
    ),
    row(
        "conv_transpose1d_basic",
        "conv_transpose1d",
        FC,
        ref_conv_transpose,
        [(2, 3, 4), (3, 2, 3), (2,)],
        bound=dict(stride=2, padding=1, output_padding=1),
    ),
    row(
        "conv_transpose2d_groups_dilation",
        "conv_transpose2d",
        FC,
        ref_conv_transpose,
        [(1, 4, 3, 4), (4, 1, 2, 3), (2,)],
        bound=dict(stride=(2, 1), padding=(0, 1), groups=2, dilation=(2, 1)),
    ),
    row(
        "conv_transpose2d_output_padding",
        "conv_transpose2d",
        FC,
        ref_conv_transpose,
        [(2, 2, 3, 3), (2, 3, 3, 3)],
        bound=dict(stride=3, padding=1, output_padding=(2, 1)),
    ),
    row(
        "conv_transpose3d_basic",
        "conv_transpose3d",
        FC,
        ref_conv_transpose,
        [(1, 2, 2, 3, 2), (2, 2, 2, 2, 2)],
        bound=dict(stride=2),
    ),
    # sliding blocks and padding
    row(
        "unfold_basic",
        "unfold",
        FC,
        ref_unfold,
        [(2, 3, 5, 4)],
        bound=dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
    ),
    row(
        "fold_basic", "fold", FC, None, [(2, 12, 12)], bound=dict(output_size=(4, 5), kernel_size=2)
    ),
    # pooling
    row(
        "max_pool2d_basic",
        "max_pool2d",
        FP,
        ref_max_pool,
        [(2, 3, 4, 6)],
        bound=dict(kernel_size=2),
    ),
    row(
        "max_pool2d_overlap_ceil",
        "max_pool2d",
        FP,
        ref_max_pool,
        [(1, 2, 5, 6)],
        bound=dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    ),
    row(
        "max_pool2d_dilation",
        "max_pool2d",
        FP,
        ref_max_pool,
        [(1, 2, 6, 5)],
        bound=dict(kernel_size=(2, 3), stride=1, padding=(1, 1), dilation=(2, 1)),
    ),
    row(
        "max_pool3d_basic",
        "max_pool3d",
        FP,
        lambda x, **k: ref_max_pool(x, n=3, **k),
        [(1, 2, 4, 4, 3)],
        bound=dict(kernel_size=2, stride=(2, 2, 1)),
    ),
    # windows of unequal sizes (5 -> 3, 7 -> 4): the averaging-matrix kernel, not avg_pool
    row(
        "adaptive_avg_pool2d_uneven",
        "adaptive_avg_pool2d",
        FP,
        None,
        [(1, 2, 5, 7)],
        bound=dict(output_size=(3, 4)),
    ),
    row(
        "avg_pool2d_basic",
        "avg_pool2d",
        FP,
        ref_avg_pool,
        [(2, 3, 4, 6)],
        bound=dict(kernel_size=2),
    ),
    row(
        "avg_pool2d_pad_ceil_nocount",
        "avg_pool2d",
        FP,
        ref_avg_pool,
        [(1, 2, 5, 6)],
        bound=dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    ),
    row(
        "avg_pool2d_divisor_override",
        "avg_pool2d",
        FP,
        ref_avg_pool,
        [(1, 2, 5, 4)],
        bound=dict(kernel_size=(3, 2), stride=1, padding=1, divisor_override=4),
    ),
    row(
        "avg_pool3d_basic",
        "avg_pool3d",
        FP,
        lambda x, **k: ref_avg_pool(x, n=3, **k),
        [(1, 2, 4, 4, 3)],
        bound=dict(kernel_size=2, stride=1, padding=1),
    ),
    _max_pool_grad_row("max_pool2d_backward", (1, 2, 4, 5), (1, 2, 3, 4), kernel_size=2, stride=1),
    _avg_pool_grad_row(
        "avg_pool2d_backward",
        (1, 2, 4, 5),
        (1, 2, 3, 3),
        kernel_size=2,
        stride=(2, 2),
        padding=(1, 0),
        ceil_mode=True,
    ),
]


def _max_pool3d_grad_row():
    make = _pool_grad_op((1, 1, 3, 3, 3), kernel_size=2, stride=1)

    def torch_op(g):
        import torch
        import torch.nn.functional as F

        return make(torch, F.max_pool3d)(g)

    return OpSpec(
        name="max_pool3d_backward",
        op=make(mt, FP.max_pool3d),
        ref=None,
        shapes=[(1, 1, 2, 2, 2)],
        torch_op=torch_op,
    )


def _avg_pool3d_grad_row():
    make = _pool_grad_op((1, 1, 3, 3, 3), kernel_size=2, stride=1)

    def torch_op(g):
        import torch
        import torch.nn.functional as F

        return make(torch, F.avg_pool3d)(g)

    return OpSpec(
        name="avg_pool3d_backward",
        op=make(mt, FP.avg_pool3d),
        ref=None,
        shapes=[(1, 1, 2, 2, 2)],
        torch_op=torch_op,
    )


def _tap_gather_row():
    """(g, v) -> d/dg <vjp(g), v>: max_pool2d's double backward (the gather at each window's
    arg-max) applied to v."""
    vjp = _pool_grad_op((1, 2, 4, 5), kernel_size=2, stride=1)

    def make(T, fn):
        def op(g, v):
            if not g.requires_grad:
                g = g.detach().requires_grad_()
            return T.autograd.grad(vjp(T, fn)(g), g, v, create_graph=True)[0]

        return op

    def torch_op(g, v):
        import torch
        import torch.nn.functional as F

        return make(torch, F.max_pool2d)(g, v)

    return OpSpec(
        name="max_pool2d_double_backward",
        op=make(mt, FP.max_pool2d),
        ref=None,
        shapes=[(1, 2, 3, 4), (1, 2, 4, 5)],
        torch_op=torch_op,
        grad=(1,),
    )


SPECS += [_max_pool3d_grad_row(), _avg_pool3d_grad_row(), _tap_gather_row()]
