"""nn.functional: fractional max pooling (Graham, 2014), a max over windows whose starts follow a
pseudo-random sequence drawn per sample and channel."""

from __future__ import annotations

import math
import numbers

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._factories import arange, full, tensor
from minitorch._ops import cat, gather, where
from minitorch._ops._common import index, int_list
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node
from minitorch.autograd.grad_mode import no_grad
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
    # flat[n, c, o_1.., o_n, j_1.., j_n]: the plane position of tap j of window o
    flat = 0
    for d in range(n):
        shape = [N, C] + [1] * (2 * n)
        shape[2 + d] = out[d]
        pos = starts[d].reshape(shape)
        tap_shape = [1] * (2 + 2 * n)
        tap_shape[2 + n + d] = k[d]
        pos = pos + arange(k[d], device=x.device).reshape(tap_shape)
        flat = flat + pos * math.prod(have[d + 1 :])
    taps = math.prod(k)
    flat = flat.reshape(N, C, math.prod(out), taps)
    xf = x.reshape(N, C, math.prod(have))
    with no_grad():
        cand = gather(xf, 2, flat.reshape(N, C, -1)).reshape(N, C, -1, taps)
        nan = cand != cand
        order = arange(1, taps + 1, device=x.device)
        last_nan = (nan.long() * order).argmax(-1)
        pick = where(nan.any(-1), last_nan, cand.argmax(-1))
        best = gather(flat, 3, pick.unsqueeze(-1)).squeeze(-1)
    values = gather(xf, 2, best).reshape((N, C, *out))
    return values, best.reshape((N, C, *out))


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
