"""nn.functional: fractional max pooling (Graham, 2014), a max over windows whose starts follow a
pseudo-random sequence drawn per sample and channel."""

from __future__ import annotations

import itertools
import math
import numbers

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._factories import arange, full, tensor
from minitorch._ops import cat, gather
from minitorch._ops._common import index, int_list
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node
from minitorch.nn import _argcheck as _arg

__all__ = [
    "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices",
]  # fmt: skip

_DIM_NAMES = ("time", "height", "width")


def _sizes(v, n: int, what: str, op: str) -> tuple:
    if isinstance(v, numbers.Integral):
        return (int(v),) * n
    pos = 2 if what == "kernel_size" else 3
    _arg.int_tuple(v, op, what, pos)  # torch's parser: a str, float, None or tensor is refused
    v = (index(v, op, what, pos),) if isinstance(v, Tensor) else int_list(v, op, what, pos)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(f"{op}: {what} must either be a single Int or tuple of Ints")
    return tuple(int(s) for s in v)


def _interval_starts(u: Tensor, size: int, out: int, k: int) -> Tensor:
    """(N, C, out) int64 window starts along one dim, from u (N, C) in [0, 1): torch's sequence
    trunc((i + u) * alpha) - trunc(u * alpha) for i < out - 1, alpha = (size - k) / (out - 1),
    with the last window ending at the input's end. The arithmetic is in the input's float type
    (float32 for half, whose alpha is rounded to half first), as torch's CPU kernel does, so a
    given u gives torch's windows exactly."""
    last = full((*u.shape, 1), size - k, dtype=_dtype.int64, device=u.device)
    if out == 1:
        return last
    dt = u.dtype
    # the division in dt itself (a host scalar): a float64 quotient rounded to float32 can differ
    alpha = (tensor(float(size - k), dtype=dt) / (out - 1)).item()
    work = _dtype.float32 if dt in _dtype.HALF_FLOATS else dt
    u = u.to(work).unsqueeze(-1)
    i = arange(out - 1, dtype=work, device=u.device)
    starts = ((i + u) * alpha).long() - (u * alpha).long()
    return cat([starts, last], -1)


def _check(input, n, k, out, samples, kernel_op):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"{kernel_op}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}"
        )
    for d in range(input.ndim - n - 1, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{kernel_op}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but got{list(input.shape)} with dimension {d} being empty."
            )
    have = input.shape[input.ndim - n :]
    # torch's kernels differ here: the 2-d one lets the last window end at the input's end and
    # checks (height, width); the 3-d one wants it to end before and checks (time, width, height)
    order = (0, 1) if n == 2 else (0, 2, 1)
    strict = n == 3
    for d in order:
        name, size, kk, o = _DIM_NAMES[3 - n + d], have[d], k[d], out[d]
        if o + kk - 1 > size - strict:
            raise RuntimeError(
                f"{kernel_op}(): pool {name} {kk} too large relative to input {name} {size}"
            )
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    batch = input.shape[0] if input.ndim == n + 2 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[input.ndim - n - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got {samples.shape[2]}.")


def _window_max(x: Tensor, starts: list, k: tuple):
    """(values, indices) of x (N, C, *have) over the windows starts[d][n, c, o_d] + [0, k_d):
    the first maximum of each window, or its last NaN (torch's kernel takes a NaN over any
    value and each later NaN over it). indices are flat within a plane, as max_pool's."""
    n = len(k)
    N, C = x.shape[:2]
    have = x.shape[2:]
    out = tuple(s.shape[-1] for s in starts)
    # Each tap of every window read in turn (row-major over the window), keeping the running
    # max and the tap it came from by arithmetic (a masked copy is branchy on random data):
    # a gather of every tap at once and argmaxes took 5.5x torch's time.
    xp = x._device.backend.xp
    a = x._data.reshape(-1)
    floating = a.dtype.kind not in "biu"  # (bfloat16 is kind "V")
    stride = [math.prod(have[d + 1 :]) for d in range(n)]
    # offs[d]: each window's start along dim d as a flat offset, (N * C, 1.., out_d, 1..)
    offs = []
    for d in range(n):
        shape = [N * C] + [1] * n
        shape[1 + d] = out[d]
        offs.append(starts[d]._data.reshape(shape) * stride[d])
    base = (xp.arange(N * C) * math.prod(have)).reshape([N * C] + [1] * n)
    if min(k) <= 0:
        return _empty_windows(x, offs, out)
    best = tap = None
    for t, js in enumerate(itertools.product(*(range(kd) for kd in k))):
        idx = base + (offs[0] + js[0] * stride[0])
        for d in range(1, n):
            idx = idx + (offs[d] + js[d] * stride[d])
        v = xp.take(a, idx)
        if best is None:
            best, tap = v, xp.zeros(v.shape, dtype=xp.uint8 if math.prod(k) <= 256 else xp.int64)
            continue
        # strictly greater: a later equal value leaves the first; a NaN takes over any value
        newer = v > best
        if floating:
            newer |= v != v
        xp.maximum(tap, xp.multiply(newer, t, dtype=tap.dtype), out=tap)  # t > earlier taps
        xp.maximum(best, v, out=best)  # (a NaN max stays NaN: best serves the comparisons)
    tap, pos = tap.astype(xp.int64), 0
    for d in range(n):  # the plane position of each window's chosen tap
        pos = pos + (offs[d] + (tap // math.prod(k[d + 1 :])) % k[d] * stride[d])
    best = _make(pos.reshape((N, C, math.prod(out))), x._device, False, None)
    xf = x.reshape(N, C, math.prod(have))
    values = gather(xf, 2, best).reshape((N, C, *out))
    return values, best.reshape((N, C, *out))


def _empty_windows(x: Tensor, offs: list, out: tuple):
    """torch's result for windows of no element (a kernel size <= 0): -inf, each index its
    window's start (the flat plane offset its kernel starts from). The values stay on x's graph
    with a zero gradient."""
    N, C = x.shape[:2]
    pos = sum(offs)
    indices = _make(pos.reshape((N, C, *out)), x._device, False, None)
    zero = x.reshape(-1)[:0].sum()
    values = full((N, C, *out), -math.inf, dtype=x.dtype, device=x.device) + zero
    return values, indices


def _fractional_max_pool(n, input, kernel_size, output_size, output_ratio, samples, op, kop):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if n == 2 and len(output_ratio) > 2:  # torch's test (a bare number has no len here)
            raise ValueError(
                f"{op} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = (output_ratio,) * n if isinstance(output_ratio, numbers.Number) else output_ratio
        # size(-n + d) raises torch's IndexError on an input of too few dims
        output_size = [int(input.size(d - n) * ratio[d]) for d in range(n)]
    if samples is None:
        # torch's calls (a non-tensor's AttributeError names dim; size()'s IndexErrors)
        batch = 1 if input.dim() == n + 1 else input.size(0)
        from minitorch.random import rand

        samples = rand(batch, input.size(-n - 1), n, dtype=input.dtype, device=input.device)
    k = _sizes(kernel_size, n, "kernel_size", op)
    out = _sizes(output_size, n, "output_size", op)
    _check(input, n, k, out, samples, kop)
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    if 0 in out or x.shape[0] == 0:  # an empty output, as torch's
        shape = (*x.shape[:2], *out)
        values = x.reshape(-1)[:0].reshape(shape)  # still on the graph, as torch's result
        indices = x.new_empty(shape, dtype=_dtype.int64)
    else:
        u = samples[: x.shape[0]]
        # which sample drives which dim, as torch's kernels: 2-d (width, height), 3-d (time,
        # height, width)
        col = (1, 0) if n == 2 else (0, 1, 2)
        starts = [_interval_starts(u[:, :, col[d]], x.shape[2 + d], out[d], k[d]) for d in range(n)]
        values, indices = _window_max(x, starts, k)
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    as_node(values, f"FractionalMaxPool{n}DBackward0", (input,), saved=(input,))
    return values, indices


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
):
    """(values, indices) of fractional max pooling over (N, C, H, W) or (C, H, W). Mirrors
    torch.nn.functional.fractional_max_pool2d_with_indices.

    Differences from torch: without _random_samples the window sequence is drawn from
    minitorch's generator (other numbers); given them, the windows are torch's.
    """
    if _autocast.state.any_enabled:  # on torch's CPU float32 list
        args = (input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
        return _autocast.call(fractional_max_pool2d_with_indices, _autocast.FP32_CPU, args)
    return _fractional_max_pool(
        2,
        input,
        kernel_size,
        output_size,
        output_ratio,
        _random_samples,
        "fractional_max_pool2d",
        "fractional_max_pool2d",
    )


def fractional_max_pool2d(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
):
    """Mirrors torch.nn.functional.fractional_max_pool2d; see
    fractional_max_pool2d_with_indices."""
    res = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
    return res if return_indices else res[0]


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
):
    """(values, indices) of fractional max pooling over (N, C, T, H, W) or (C, T, H, W). Mirrors
    torch.nn.functional.fractional_max_pool3d_with_indices (random draws as the 2-d one's)."""
    if _autocast.state.any_enabled:  # on torch's CPU float32 list
        args = (input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
        return _autocast.call(fractional_max_pool3d_with_indices, _autocast.FP32_CPU, args)
    return _fractional_max_pool(
        3,
        input,
        kernel_size,
        output_size,
        output_ratio,
        _random_samples,
        "fractional_max_pool3d",
        "fractional_max_pool3d_out",
    )


def fractional_max_pool3d(
    input: Tensor,
    kernel_size,
    output_size=None,
    output_ratio=None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
):
    """Mirrors torch.nn.functional.fractional_max_pool3d; see
    fractional_max_pool3d_with_indices."""
    res = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, True, _random_samples
    )
    return res if return_indices else res[0]


for _f in (fractional_max_pool2d, fractional_max_pool3d):  # See NOTE [ Boolean-dispatch names ]
    _f.__qualname__ = "_" + _f.__name__
    globals()[_f.__qualname__] = _f
del _f
