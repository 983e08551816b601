"""nn.functional: pooling (max, average, adaptive, unpooling) and interpolation (argument checks
in torch's words; the window kernels are in minitorch/_ops/pool.py)."""

from __future__ import annotations

import functools
import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch import _memory_format as _mf
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._factories import tensor, zeros
from minitorch._ops import gather, where
from minitorch._ops._common import (
    index,
    int_list,
    is_index,
    not_tensor,
    opmath_dtype,
    wrong_type,
    zeros_of,
)
from minitorch._ops.inplace import check_out, write_out
from minitorch._ops.pool import AdaptiveAvg, avg_pool, empty_grad_message, max_pool
from minitorch._ops.reduction import MeanDim
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import (
    Function,
    RefusedBackward,
    fast_path,
    name_node,
    plain_result,
)
from minitorch.autograd.grad_mode import state as _grad_state
from minitorch.nn import _argcheck as _arg
from minitorch.nn._functional_conv import ntuple
from minitorch.nn._functional_pad import _tie

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "lp_pool1d", "lp_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices", "max_unpool1d", "max_unpool2d", "lp_pool3d",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d",
]  # fmt: skip


def _x(sizes) -> str:
    return "x".join(str(s) for s in sizes)


# NOTE [ Pooling argument plans ]
# A pool's argument checks (torch's, in its order) and its geometry depend only on the input's
# shape and dtype and on the arguments: where these are plain ints (or tuples of ints) and
# bools, what the checks gave is kept per (op, shape, dtype, arguments) once a call passed them
# (at most _ARG_PLANS_MAX, then the table starts afresh), and a repeated call goes straight to
# the kernel with it. An error is never kept: a call that fails takes the checks every time.
# Exact classes only, since 2 == 2.0 == True would share a key with the arguments torch
# refuses. An array of divisors (count_include_pad=False with padding, ceil_mode) is kept for
# a CPU input only, read-only. Timings: NOTE [ Pool plans ] in minitorch/_ops/pool.py.
_CPU_NULL_CTX = _CPU.backend.null_ctx  # the ctx Function.apply gives a forward recording nothing
_ARG_PLANS: dict = {}
_ARG_PLANS_MAX = 512


def _plain(v) -> bool:
    """Whether v is an int or a tuple of ints (exact classes)."""
    if v.__class__ is int:
        return True
    if v.__class__ is not tuple:
        return False
    for e in v:
        if e.__class__ is not int:
            return False
    return True


def _keep_plan(key, plan) -> None:
    if len(_ARG_PLANS) >= _ARG_PLANS_MAX:
        _ARG_PLANS.clear()
    _ARG_PLANS[key] = plan


def pool_out_size(size, k, s, p, d, ceil_mode) -> int:
    """torch's pooling output length (ceil_mode: the last window must start inside the input
    or its left padding)."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


_POOL_POSITIONS = {"kernel_size": 2, "stride": 3, "padding": 4, "dilation": 5, "ceil_mode": 6}
_AVG_POOL_POSITIONS = {"kernel_size": 2, "stride": 3, "padding": 4, "ceil_mode": 5,
                       "count_include_pad": 6, "divisor_override": 7}  # fmt: skip


def _check_pool_args(parser, args: dict) -> None:
    """torch's argument parser on a pool's int[] and bool arguments, in its order: parser is
    (op, whether it is a max pool, else an average pool: the arguments' positions). A keyword
    argument's position is left out where the user's call passed it so (NOTE [ Keyword
    arguments in argument errors ]). The slow path only."""
    op, is_max = parser
    positions = _POOL_POSITIONS if is_max else _AVG_POOL_POSITIONS
    for name, v in args.items():
        pos = positions.get(name)
        if name in ("ceil_mode", "count_include_pad"):
            _arg.boolean(v, op, name, pos)
        elif name == "divisor_override":
            if v is not None and v.__class__ is not int:
                index(v, op, name, pos)
        elif v is not None or name != "stride":
            _arg.int_tuple(v, op, name, pos)
            if not is_index(v) and v.__class__ is not int:
                int_list(v, op, name, pos)


def _pool_words(err: RuntimeError, n: int, op: str) -> RuntimeError:
    """torch's 2-d/3-d pools' words for ntuple's error (a sequence of the wrong length)."""
    if n == 1 or not str(err).startswith("expected "):
        return err
    name = str(err).split()[1]  # ntuple's "expected <name> to be ..."
    # torch's avg_pool3d says "must be", the others "must either be" (dilation: "must be either")
    must = "must either be"
    if name == "dilation":
        must = "must be either"
    elif op == "avg_pool3d":
        must = "must be"
    omitted = " omitted, a" if name == "stride" else " a"
    count = "two" if n == 2 else "three"
    return RuntimeError(f"{op}: {name} {must}{omitted} single int, or a tuple of {count} ints")


def _pool_geometry(
    x, n, kernel_size, stride, padding, dilation, ceil_mode, op, check=None, parser=None
):
    """(kernel, stride, (lo, hi) pads incl. ceil_mode's extra right padding, dilation, out).
    check(x, k) runs between the argument checks and the output size's, where torch checks the
    input's shape. parser: _check_pool_args's, for torch's TypeErrors (slow path only)."""
    try:
        k = ntuple(kernel_size, n, "kernel_size", op)
        no_stride = stride is None or (
            not isinstance(stride, int) and not is_index(stride) and len(stride) == 0
        )
        s = k if no_stride else ntuple(stride, n, "stride", op)
        p = ntuple(padding, n, "padding", op)
        d = ntuple(dilation, n, "dilation", op)
    except RuntimeError as e:  # (a sequence of the wrong length; no cost on the common path)
        raise _pool_words(e, n, op) from None
    except TypeError:
        if parser is not None:  # torch's words for a wrong-typed argument; anything else as it was
            args = {"kernel_size": kernel_size, "stride": stride, "padding": padding}
            if op.startswith("max"):
                args["dilation"] = dilation
            _check_pool_args(parser, args)
        raise
    # torch sizes the output dim by dim first (the stride, the padding, the padding against
    # the dilated kernel, halved as C++ does: towards zero), then checks the signs of all
    for kk, ss, pp, dd in zip(k, s, p, d, strict=False):
        if ss == 0:
            raise RuntimeError("stride should not be zero")
        if pp < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pp}")
        extent = dd * (kk - 1) + 1
        if pp > (extent // 2 if extent >= 0 else -(-extent // 2)):
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pp}, "
                f"kernel_size={kk} and dilation={dd}"
            )
    if min(k) <= 0 or min(s) <= 0 or min(d) <= 0:
        names = ("T", "H", "W")[3 - n :]
        for what, label, vs in (("kernel size", "k", k), ("stride", "d", s),
                                ("dilation", "dilation", d)):  # fmt: skip
            if min(vs) <= 0:
                got = " ".join(f"{label}{a}: {v}" for a, v in zip(names, vs, strict=False))
                raise RuntimeError(f"{what} should be greater than zero, but got {got}")
    if check is not None:
        check(x, k)
    if op in ("max_pool2d", "max_pool3d") and any(
        pp > kk // 2 for kk, pp in zip(k, p, strict=True)
    ):
        # torch's kernels then check the pad against the kernel itself, whatever the dilation
        if n == 2:
            got = f"padW = {p[1]}, padH = {p[0]}, kW = {k[1]}, kH = {k[0]}"
        else:
            got = f"kT: {k[0]} kW: {k[2]} kH: {k[1]} padT: {p[0]} padW: {p[2]} padH: {p[1]}"
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got {got}"
        )
    size = x.shape[x.ndim - n :]
    out = tuple(
        pool_out_size(L, kk, ss, pp, dd, ceil_mode)
        for L, kk, ss, pp, dd in zip(size, k, s, p, d, strict=False)
    )
    if any(o <= 0 for o in out):
        c = x.shape[x.ndim - n - 1]
        raise RuntimeError(
            f"Given input size: ({_x((c, *size))}). Calculated output size: "
            f"({_x((c, *out))}). Output size is too small"
        )
    pads = tuple(
        (pp, max(pp, (o - 1) * ss + dd * (kk - 1) + 1 - L - pp))
        for L, kk, ss, pp, dd, o in zip(size, k, s, p, d, out, strict=False)
    )
    return k, s, pads, d, out


def _check_tensor(x, op):
    """torch's TypeError for a non-Tensor input (a NumPy array would fail later with an
    AttributeError)."""
    if not isinstance(x, Tensor):
        raise wrong_type(op, x, "input", 1, "Tensor")


def _check_rank(x, n, op):
    """torch's rank check, made before the pooling arguments' (avg_pool2d makes it after)."""
    _check_tensor(x, op)
    if x.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input")


def _empty_check(op):
    """The check(x, k) for _pool_geometry: only the batch may be empty (and, for avg_pool2d,
    whose rank is checked here, the rank must be 3 or 4)."""
    if op in ("max_pool3d", "avg_pool3d"):
        name = "avg_pool3d" if op == "avg_pool3d" else "max_pool3d_with_indices_out_cpu_template"

        def check(x, k):
            if 0 in x.shape[x.ndim - 4 :]:
                # torch names dimension 0 whichever is empty
                raise RuntimeError(
                    f"{name}(): Expected input's non-batch dimensions to have positive length, "
                    f"but input has a shape of {list(x.shape)} and non-batch dimension 0 has "
                    "length zero!"
                )

        return check

    def check(x, k):
        if x.ndim not in (3, 4) or 0 in x.shape[x.ndim - 3 :]:
            raise RuntimeError(
                "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                f"but got:{list(x.shape)}"
            )

    return check


def _check_rank1d(x, op):
    """torch's rank check for a 1-d pool. max_pool1d's values-only kernel also refuses an empty
    channel or length; max_pool1d_with_indices words its check as the other ops do."""
    _check_tensor(x, op)
    if op == "max_pool1d" and (x.ndim not in (2, 3) or 0 in x.shape[-2:]):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch "
            f"size for input, but got:{list(x.shape)}"
        )
    if x.ndim not in (2, 3):
        op = "max_pool1d" if op == "max_pool1d_with_indices" else op
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
            f"'self' (while checking arguments for {op})"
        )


_ARG_POSITIONS = {"kernel_size": 2, "stride": 3, "padding": 4, "dilation": 5}


def _single(v, op: str, name: str, size_error=None) -> int | None:
    """A 1-d pool's int argument (an int-like or a sequence of one; an empty stride is None),
    with torch's errors: its parser's TypeError, then `size_error(n)` (default: "should contain
    one int") for a sequence of another length."""
    if v.__class__ is int:
        return v
    if is_index(v):  # NumPy integers, 0-d integer tensors (NOTE [ Int-like arguments ])
        return index(v, op, name)
    if v is None and name == "stride":
        return None
    if isinstance(v, Tensor) and v.numel() == 1 and v.dtype._kind == 1:
        v = tuple(v)  # torch's parser reads a one-element integer tensor as one int
    if not isinstance(v, (tuple, list)):
        raise wrong_type(op, v, name, _ARG_POSITIONS[name], "tuple of ints")
    v = int_list(v, op, name, _ARG_POSITIONS[name])  # its elements first, as torch's parser
    if name == "stride" and not v:
        return None
    if len(v) != 1:
        if size_error is not None:
            raise size_error(len(v))
        op = "max_pool1d" if op == "max_pool1d_with_indices" else op
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(v)})")
    return index(v[0], op, name)


def _max_pool1d_size_error(name: str):
    """max_pool1d's (values only) words for a sequence argument of another length than 1."""
    allowed = {
        "kernel_size": "an int, list of ints or",
        "stride": "None, an int, list of ints, or",
        "padding": "an int, list of ints, or",
        "dilation": "an int, list of ints or",
    }[name]
    return lambda n: RuntimeError(
        f"max_pool1d() {name} must be {allowed} tuple of ints of size 1 but got size {n}"
    )


# --- max pooling ---


def _max_poolnd(
    n, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, key=None
):
    op = f"max_pool{n}d"
    if n == 3 and return_indices:  # torch's 3-d wrapper with indices reads input.is_cuda first
        _arg.wrapper_reads(input, "is_cuda", op)
    if ceil_mode.__class__ is not bool:  # torch's parser, before the rank check
        _check_tensor(input, op)
        _check_pool_args(
            (op + "_with_indices" if return_indices else op, True),
            {"kernel_size": kernel_size, "stride": stride, "padding": padding,
             "dilation": dilation, "ceil_mode": ceil_mode},
        )  # fmt: skip
    try:
        _check_rank(input, n, op)
    except RuntimeError:  # torch checks the sizes' lengths, then the layout, before the rank
        parser = (op + "_with_indices" if return_indices else op, True)
        _max_pool_lengths(n, input, kernel_size, stride, padding, dilation, op, parser)
        raise
    parser = (op + "_with_indices" if return_indices else op, True)
    k, s, pads, d, _ = _pool_geometry(
        input, n, kernel_size, stride, padding, dilation, ceil_mode, op, _empty_check(op), parser
    )
    # its grad_fn._saved_<name>: the arguments as torch's op takes them
    given = () if stride is None or isinstance(stride, (list, tuple)) and not stride else s
    given = (k, given, tuple(lo for lo, _ in pads), d, ceil_mode)
    if key is not None:  # NOTE [ Pooling argument plans ]
        _keep_plan(key, (k, s, pads, d, given))
    return _max_pool_run(input, k, s, pads, d, return_indices, given)


def _max_pool_run(input, k, s, pads, d, return_indices, given):
    out = max_pool(input, k, s, pads, d, return_indices)
    node = (out[0] if return_indices else out)._grad_fn
    if node is not None:
        node.given = given
    return out


def _max_pool_lengths(n, input, kernel_size, stride, padding, dilation, op, parser):
    """torch's max pools' first checks after its parser's: the lengths of kernel_size, stride,
    padding and dilation, then the input's layout (a 2-d pool refuses a channels-last-3d
    input). An error path: the input's rank is wrong."""
    try:
        _pool_lengths(n, op, kernel_size, stride, padding, dilation)
    except TypeError:  # torch's parser's words
        args = {"kernel_size": kernel_size, "stride": stride, "padding": padding,
                "dilation": dilation}  # fmt: skip
        _check_pool_args(parser, args)
        return
    if n == 2 and input.ndim == 5 and _mf.suggests_channels_last_3d(input._data):
        raise RuntimeError("Unsupported memory format. Supports only ChannelsLast, Contiguous")


def max_pool2d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Max over 2-d windows of (N, C, H, W) or (C, H, W). Mirrors
    torch.nn.functional.max_pool2d."""
    key = None
    if (
        input.__class__ is Tensor
        and ceil_mode.__class__ is bool
        and return_indices.__class__ is bool
        and _plain(kernel_size)
        and (stride is None or _plain(stride))
        and _plain(padding)
        and _plain(dilation)
    ):  # NOTE [ Pooling argument plans ]
        xd = input._data
        key = ("max_pool2d", xd.shape, xd.dtype, kernel_size, stride, padding, dilation, ceil_mode)
        plan = _ARG_PLANS.get(key)
        if plan is not None:
            return _max_pool_run(input, *plan[:4], return_indices, plan[4])
    return _max_poolnd(
        2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, key
    )


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Mirrors torch.nn.functional.max_pool3d."""
    if isinstance(input, Tensor) and input.ndim == 4 and _mf.suggests_channels_last(input._data):
        _refuse_channels_last(input, kernel_size, stride, padding, dilation, ceil_mode)
    if _autocast.state.any_enabled and not return_indices:
        return _autocast.call(
            max_pool3d,
            _autocast.FP32_CPU,
            (input, kernel_size, stride, padding, dilation, ceil_mode, return_indices),
        )
    return _max_poolnd(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _refuse_channels_last(input, kernel_size, stride, padding, dilation, ceil_mode):
    """torch's max_pool3d kernel takes a row-major or channels-last-3d input only: an unbatched
    (4-d) one laid out channels-last is refused, after its parser's checks."""
    args = {"kernel_size": kernel_size, "stride": stride, "padding": padding,
            "dilation": dilation, "ceil_mode": ceil_mode}  # fmt: skip
    _check_pool_args(("max_pool3d", True), args)
    raise RuntimeError("Unsupported memory format. Supports only ChannelsLast3d, Contiguous")


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """Max over 1-d windows of (N, C, L) or (C, L): a 2-d pool over (1, L), as torch does.
    Mirrors torch.nn.functional.max_pool1d."""
    op = "max_pool1d_with_indices" if return_indices else "max_pool1d"
    if ceil_mode.__class__ is not bool:  # torch's parser, before the rank check
        _check_tensor(input, op)
        _check_pool_args((op, True), {"kernel_size": kernel_size, "stride": stride,
                                      "padding": padding, "dilation": dilation,
                                      "ceil_mode": ceil_mode})  # fmt: skip
    try:
        _check_rank1d(input, op)
    except RuntimeError:  # torch's parser reads the int[] arguments before the rank check
        _check_pool_args((op, True), {"kernel_size": kernel_size, "stride": stride,
                                      "padding": padding, "dilation": dilation})  # fmt: skip
        raise
    args = {"kernel_size": kernel_size, "stride": stride, "padding": padding}
    args["dilation"] = dilation
    for name, v in args.items():
        error = None if return_indices else _max_pool1d_size_error(name)
        args[name] = _single(v, op, name, error)
    k, stride, p, dilation = args.values()
    if return_indices:  # torch's max_pool1d_with_indices: its rank check, then the 2-d pool's
        s = k if stride is None else stride
        x = input.unsqueeze(-2)
        out = max_pool2d(x, (1, k), (1, s), (0, p), (1, dilation), ceil_mode, True)
        return out[0].squeeze(-2), out[1].squeeze(-2)
    for name, v in (("kernel_size", k), ("stride", stride), ("dilation", dilation)):
        if v is not None and v <= 0:
            raise RuntimeError(f"max_pool1d() {name} must be greater than zero, but got {v}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={p} and kernel_size={k}"
        )
    s = k if stride is None else stride
    out_len = pool_out_size(input.shape[-1], k, s, p, dilation, ceil_mode)
    if out_len <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out_len}")
    if not return_indices and not input.dtype.is_floating_point and input.device.type == "cpu":
        # torch's CPU kernel for the values-only pool is float-only (its indices path and its
        # CUDA path are not, and an integer tensor never requires grad to be sent there)
        name = _dtype.scalar_name(input.dtype)
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{name}'")
    x = input.unsqueeze(-2)
    return max_pool2d(x, (1, k), (1, s), (0, p), (1, dilation), ceil_mode).squeeze(-2)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """(values, indices) of max_pool1d, whatever return_indices says (torch's default False).
    Mirrors torch.nn.functional.max_pool1d_with_indices."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """(values, indices) of max_pool2d, whatever return_indices says (torch's default False).
    Mirrors torch.nn.functional.max_pool2d_with_indices."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
):
    """(values, indices) of max_pool3d, whatever return_indices says (torch's default False).
    Mirrors torch.nn.functional.max_pool3d_with_indices."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# --- average pooling ---


def _avg_divisor(x, size, k, s, pads, out, count_include_pad, divisor_override):
    """A number when every window has the same divisor, else a (*out) array on x's device."""
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        return divisor_override
    per_dim = []
    for L, kk, ss, (p, _), o in zip(size, k, s, pads, out, strict=False):
        counts = []
        for i in range(o):
            start = i * ss - p
            end = min(start + kk, L + p)
            if not count_include_pad:
                start, end = max(start, 0), min(end, L)
            counts.append(end - start)
        per_dim.append(counts)
    if all(len(set(c)) == 1 for c in per_dim):
        return math.prod(c[0] for c in per_dim)
    dt = x.dtype if x.dtype.is_floating_point else _dtype.float64
    div = None
    for i, counts in enumerate(per_dim):
        shape = [1] * len(per_dim)
        shape[i] = len(counts)
        c = tensor(counts, dtype=dt, device=x.device).reshape(shape)
        div = c if div is None else div * c
    return div._data


# the dtypes torch's CPU average-pooling kernels take (1-d pools run the 2-d kernel)
_AVG_DTYPES = {
    2: (_dtype.float32, _dtype.float64, _dtype.float16, _dtype.bfloat16, _dtype.int64),
    3: (_dtype.float32, _dtype.float64, _dtype.int64),
}
_AVG_KERNELS = {2: "avg_pool2d", 3: "avg_pool3d_out_frame"}


def _check_avg_dtype(input, n):
    if input.dtype not in _AVG_DTYPES[n]:
        name = _dtype.scalar_name(input.dtype)
        raise NotImplementedError(f"\"{_AVG_KERNELS[n]}\" not implemented for '{name}'")


def _avg_pool_args(n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor, op):
    """torch's first checks of avg_pool2d/3d's arguments, before any of the input's: its
    parser's TypeErrors, then the lengths of kernel_size, stride and padding. An error path (a
    wrong rank, a zero divisor_override)."""
    args = {"kernel_size": kernel_size, "stride": stride, "padding": padding,
            "ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
            "divisor_override": divisor}  # fmt: skip
    _check_pool_args((op, False), args)
    _pool_lengths(n, op, kernel_size, stride, padding)


_AVG = object()  # _pool_lengths's dilation for the average pools, which have none


def _pool_lengths(n, op, kernel_size, stride, padding, dilation=_AVG):
    """torch's checks of the lengths of a pool's kernel_size, stride (an empty one stands for
    the kernel's), padding and dilation (max pools), as its RuntimeErrors word them."""
    try:
        ntuple(kernel_size, n, "kernel_size", op)
        if not (stride is None or not is_index(stride) and not isinstance(stride, int)
                and len(stride) == 0):  # fmt: skip
            ntuple(stride, n, "stride", op)
        ntuple(padding, n, "padding", op)
        if dilation is not _AVG:
            ntuple(dilation, n, "dilation", op)
    except RuntimeError as e:
        raise _pool_words(e, n, op) from None


def _avg_poolnd(
    n, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, op,
    out=None, key=None,
):
    if out is not None:
        check_out(out, op, input)
    check = _empty_check(op)
    if n == 3:

        def check(x, k, empty=check):
            empty(x, k)
            have = x.shape[-3:]
            if any(h < kk for h, kk in zip(have, k, strict=True)):  # padding aside, as torch
                raise RuntimeError(
                    f"input image (T: {have[0]} H: {have[1]} W: {have[2]}) smaller than kernel "
                    f"size (kT: {k[0]} kH: {k[1]} kW: {k[2]})"
                )

    if (
        ceil_mode.__class__ is not bool
        or count_include_pad.__class__ is not bool
        or (divisor_override is not None and divisor_override.__class__ is not int)
    ):
        _check_pool_args(
            (op, False),
            {"kernel_size": kernel_size, "stride": stride, "padding": padding,
             "ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
             "divisor_override": divisor_override},
        )  # fmt: skip
    if divisor_override is not None and not divisor_override:
        _avg_pool_args(n, kernel_size, stride, padding, ceil_mode, count_include_pad, 0, op)
        raise RuntimeError("divisor must be not zero")  # before torch's checks of the input
    k, s, pads, d, out_size = _pool_geometry(
        input, n, kernel_size, stride, padding, 1, ceil_mode, op, check, (op, False)
    )
    if out is not None and out.dtype is not input.dtype:  # before the kernel's dtype check
        raise _dtype.out_dtype_error(input.dtype, out.dtype)
    _check_avg_dtype(input, n)
    size = input.shape[input.ndim - n :]
    divisor = _avg_divisor(input, size, k, s, pads, out_size, count_include_pad, divisor_override)
    # its grad_fn._saved_<name>: the arguments as torch's op takes them
    given = () if stride is None or isinstance(stride, (list, tuple)) and not stride else s
    pads_lo = tuple(lo for lo, _ in pads)
    given = (k, given, pads_lo, ceil_mode, count_include_pad, divisor_override)
    if key is not None:  # NOTE [ Pooling argument plans ]
        if divisor.__class__ is int:
            _keep_plan(key, (k, s, pads, divisor, given))
        elif input._device is _CPU:  # an array of divisors (the key names the device), which
            divisor.flags.writeable = False  # the pools only read
            _keep_plan(key, (k, s, pads, divisor, given))
    result = avg_pool(input, k, s, pads, divisor, given)
    return result if out is None else write_out(out, result)


def avg_pool2d(
    input=REQUIRED,
    kernel_size=REQUIRED,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
    *extra,
    out=None,
):
    """Mean over 2-d windows. Mirrors torch.nn.functional.avg_pool2d."""
    key = None
    if (
        input.__class__ is Tensor
        and out is None
        and not extra
        and ceil_mode.__class__ is bool
        and count_include_pad.__class__ is bool
        and (divisor_override is None or divisor_override.__class__ is int)
        and _plain(kernel_size)
        and (stride is None or _plain(stride))
        and _plain(padding)
    ):  # NOTE [ Pooling argument plans ]
        xd = input._data
        key = ("avg_pool2d", xd.shape, xd.dtype, input._device, kernel_size, stride, padding,
               ceil_mode, count_include_pad, divisor_override)  # fmt: skip
        plan = _ARG_PLANS.get(key)
        if plan is not None:
            return avg_pool(input, *plan)
    if extra or input is REQUIRED or kernel_size is REQUIRED:
        raise arity_error("avg_pool2d", extra, 7, input=input, kernel_size=kernel_size)
    _check_tensor(input, "avg_pool2d")
    if input.ndim < 3:  # torch reads size(-3) first; a larger rank is refused later
        args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        _avg_pool_args(2, *args, "avg_pool2d")
        if divisor_override is not None and not divisor_override:
            raise RuntimeError("divisor must be not zero")
        if input.ndim == 0:
            raise IndexError("Dimension specified as -3 but tensor has no dimensions")
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, "
            f"{input.ndim - 1}], but got -3)"
        )
    return _avg_poolnd(
        2,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        "avg_pool2d",
        out,
        key,
    )


def avg_pool3d(
    input=REQUIRED,
    kernel_size=REQUIRED,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
    *extra,
    out=None,
):
    """Mean over 3-d windows. Mirrors torch.nn.functional.avg_pool3d."""
    if extra or input is REQUIRED or kernel_size is REQUIRED:
        raise arity_error("avg_pool3d", extra, 7, input=input, kernel_size=kernel_size)
    if _autocast.state.any_enabled and out is None:  # an out= variant runs uncast, as in torch
        return _autocast.call(
            avg_pool3d,
            _autocast.FP32_CPU,
            (input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
        )
    _check_tensor(input, "avg_pool3d")
    if input.ndim not in (4, 5):
        args = (kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
        _avg_pool_args(3, *args, "avg_pool3d")
        _check_rank(input, 3, "avg_pool3d")
    return _avg_poolnd(
        3,
        input,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
        "avg_pool3d",
        out,
    )


def avg_pool1d(
    input=REQUIRED,
    kernel_size=REQUIRED,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    *extra,
):
    """Mean over 1-d windows (a 2-d pool over (1, L), as torch does). Mirrors
    torch.nn.functional.avg_pool1d."""
    if extra or input is REQUIRED or kernel_size is REQUIRED:
        raise arity_error("avg_pool1d", extra, 6, input=input, kernel_size=kernel_size)
    if ceil_mode.__class__ is not bool or count_include_pad.__class__ is not bool:
        _check_tensor(input, "avg_pool1d")
        args = {"kernel_size": kernel_size, "stride": stride, "padding": padding}
        args.update(ceil_mode=ceil_mode, count_include_pad=count_include_pad)
        _check_pool_args(("avg_pool1d", False), args)
    _check_rank1d(input, "avg_pool1d")
    k = _single(kernel_size, "avg_pool1d", "kernel_size")
    stride = _single(stride, "avg_pool1d", "stride")
    out = avg_pool2d(
        input.unsqueeze(-2),
        (1, k),
        (1, k if stride is None else stride),
        (0, _single(padding, "avg_pool1d", "padding")),
        ceil_mode,
        count_include_pad,
    )
    return out.squeeze(-2)


def _no_zero_grad(out: Tensor) -> Tensor:
    """out, with no gradient where it is 0: there pow(out, 1/p)'s derivative is inf, which
    torch's sign(out) * relu(|out|) stops (its relu backward selects), so an all-zero window
    (after a ReLU) gets a zero gradient, not nan."""
    return where(out == 0, 0.0, out)


def _lp_pool_inf(max_poolnd, input, norm_type, kernel_size, stride, ceil_mode):
    """The p = +-inf limits, which pow(1/p) cannot reach (x^inf is inf or 0, and its 1/inf-th
    power 1): the max of |x| over each window for +inf, the min for -inf, as torch. None for a
    finite p."""
    if not isinstance(norm_type, (int, float)) or not math.isinf(norm_type):
        return None
    if norm_type > 0:
        return max_poolnd(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    return -max_poolnd(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)


def _lp_sizes(kernel_size, n: int) -> tuple:
    """torch's lp_pool2d/3d unpack their kernel_size into n names before anything else: an int
    counts n times, a sequence of another length fails there with Python's ValueError (and a 0-d
    tensor with "iteration over a 0-d tensor")."""
    sizes = tuple(kernel_size) if hasattr(kernel_size, "__iter__") else (kernel_size,) * n
    if n == 2:
        kh, kw = sizes
        return kh, kw
    kd, kh, kw = sizes
    return kd, kh, kw


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """(sum of x^p over each window)^(1/p). Mirrors torch.nn.functional.lp_pool2d."""
    kh, kw = _lp_sizes(kernel_size, 2)
    inf = _lp_pool_inf(max_pool2d, input, norm_type, kernel_size, stride, ceil_mode)
    if inf is not None:
        return inf
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _no_zero_grad(out).mul(kh * kw).pow(1.0 / norm_type)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """Mirrors torch.nn.functional.lp_pool3d."""
    kd, kh, kw = _lp_sizes(kernel_size, 3)
    inf = _lp_pool_inf(max_pool3d, input, norm_type, kernel_size, stride, ceil_mode)
    if inf is not None:
        return inf
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _no_zero_grad(out).mul(kd * kh * kw).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor:
    """Mirrors torch.nn.functional.lp_pool1d."""
    inf = _lp_pool_inf(max_pool1d, input, norm_type, kernel_size, stride, ceil_mode)
    if inf is not None:
        return inf
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # torch multiplies by kernel_size itself: a sequence (which avg_pool1d took) fails there
    return _no_zero_grad(out).mul(kernel_size).pow(1.0 / norm_type)


# --- adaptive pooling ---


def _check_adaptive_input(input, n, output_size, op, colon=""):
    """torch's checks, in its order: a sequence output_size needs more input dims than entries
    (ValueError, from torch's _list_with_default); then the rank; then non-empty pooled dims."""
    if n > 1:  # torch's 2-d/3-d wrappers read input.size() first
        _arg.wrapper_reads(input, "size", op)
    _check_tensor(input, op)
    if n > 1 and not (isinstance(output_size, int) or is_index(output_size)):
        # torch's _list_with_default: len() of anything but an int (a float's TypeError)
        if input.ndim <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if n == 1:  # torch's parser reads output_size first, its length is checked after the rank
        output_size = _adaptive_size1d(output_size, op)
    if input.ndim not in (n + 1, n + 2):
        if n == 1:
            _check_rank1d(input, op)
        raise RuntimeError(
            f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got{colon} {list(input.shape)}"
        )
    if n == 1 and len(output_size) != 1:
        raise RuntimeError(
            f"{op}() argument 'output_size' should contain one int (got {len(output_size)})"
        )
    if not input.dtype.is_floating_point:
        sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,)
        if op.startswith("adaptive_avg") and all(v == 1 for v in sizes):
            # torch computes a global average as a mean
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {_dtype.scalar_name(input.dtype)}"
            )
    if op.startswith("adaptive_max"):  # (the average pools check output_size first)
        _check_adaptive_nonempty(input, n, op)


def _check_adaptive_nonempty(input, n, op):
    """torch's refusal of an empty dim to pool (a 1-d average pool: its 2-d run's check)."""
    # torch's adaptive max pools and adaptive_avg_pool3d check every dim after the first (the
    # channels too: (1, 0, 3, 3) is refused), adaptive_avg_pool1d/2d only the pooled ones
    first = 1 if n == 3 or op.startswith("adaptive_max") else input.ndim - n
    for d in range(first, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {d} being empty"
            )


def _adaptive_size1d(output_size, op):
    """A 1-d pool's output_size as torch's parser reads an int[1]: a tuple of ints (its length
    checked later) or torch's TypeError."""
    if output_size is None:
        raise TypeError(
            f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not NoneType"
        )
    if isinstance(output_size, int) or is_index(output_size):
        return (index(output_size, op, "output_size", 2),)
    _arg.int_tuple(output_size, op, "output_size", 2)
    if isinstance(output_size, Tensor):
        return (index(output_size, op, "output_size", 2),)
    return int_list(output_size, op, "output_size", 2)


def _check_adaptive_dtype(input, n, out, op):
    """torch's refusal of an input that is not floating, after its size checks: its kernel's
    name (the 1-d pools run the 2-d ones, the 3-d ones name the device). torch's 1-d/2-d
    average pools return an empty result before their kernel is chosen: it is returned."""
    if op.startswith("adaptive_avg") and n < 3:
        if 0 in input.shape[: input.ndim - n] or 0 in out:
            shape = (*input.shape[: input.ndim - n], *out)
            return zeros(shape, dtype=input.dtype, device=input.device)
    name = _dtype.scalar_name(input.dtype)
    kernel = op.replace("1d", "2d") if n == 1 else f"{op}_cpu" if n == 3 else op
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _adaptive_sizes(input, n, output_size, op):
    """The output size per pooled dim (None: the input's size there), with torch's errors: the
    1-d pools run as 2-d ones over (1, L), the max pools meet a negative size when they allocate
    their output."""
    if output_size is None:  # torch takes None for one entry of a 2-d/3-d size, not the whole
        if n == 1:
            raise TypeError(
                f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not NoneType"
            )
        raise TypeError("object of type 'NoneType' has no len()")
    if isinstance(output_size, int) or is_index(output_size):
        size = (output_size,) * n
    elif n == 1:  # (_check_adaptive_input read it: an int tuple of one element)
        size = _adaptive_size1d(output_size, op)
    else:
        # torch's _list_with_default fills a None entry with the input's size there, then its
        # parser reads the list (a str's characters, a tensor's elements)
        size = list(output_size)
        have = input.shape[input.ndim - len(size) :] if size else ()
        size = [h if v is None else v for v, h in zip(size, have, strict=False)]
        size = int_list(size, op, "output_size", 2)
        if len(size) != n:
            if op.startswith("adaptive_max"):
                raise RuntimeError(f"{op}(): internal error: output_size.size() must be {n}")
            raise RuntimeError(f"{op}: output_size must be {n}")
    have = input.shape[input.ndim - n :]
    out = tuple(
        h if o is None else index(o, op, "output_size") for o, h in zip(size, have, strict=False)
    )
    if any(o < 0 for o in out):
        shown = (1, *out) if n == 1 else out
        if op.startswith("adaptive_max"):
            lead = (*input.shape[: input.ndim - n], *shown[: len(shown) - n])
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {next(o for o in out if o < 0)}"
                f": {[*lead, *out]}"
            )
        # torch's list: ", " between the elements, but "," before a 3-d pool's last
        text = ", ".join(map(str, shown[:2])) + ("," + str(shown[2]) if n == 3 else "")
        name = "adaptive_avg_pool2d" if n == 1 else op
        raise RuntimeError(
            f"{name}: elements of output_size must be greater than or equal to 0 but received "
            f"{{{text}}}"
        )
    return out


def _bounds(L, o):
    """torch's adaptive windows: [floor(i*L/o), ceil((i+1)*L/o)) for each output i."""
    return [((i * L) // o, -((-(i + 1) * L) // o)) for i in range(o)]


def _averaging_matrix(L, o, x):
    """(o, L): row i averages window i of a length-L axis."""
    rows = []
    for lo, hi in _bounds(L, o):
        rows.append([1.0 / (hi - lo) if lo <= j < hi else 0.0 for j in range(L)])
    return tensor(rows, dtype=x.dtype, device=x.device).reshape(o, L)  # (0, L) when o = 0


def _adaptive_avg(input, n, output_size, op):
    if n > 1 and _global_average(input, n, output_size):
        # torch's 2-d/3-d pools take a mean for a single output position before any check of
        # the input's rank or sizes: (1, 1, 3, 4, 4, 4) pools its last three dims, an empty
        # window gives NaN, an integer input meets mean's dtype error
        pooled = _global_mean(input, n)
        return _mean_layout(name_node(pooled, "MeanBackward1", (input,)), input)
    _check_adaptive_input(input, n, output_size, op)
    out = _adaptive_sizes(input, n, output_size, op)
    if n > 1:  # (a 1-d pool: its 2-d run's checks)
        _check_adaptive_nonempty(input, n, op)
        if not input.dtype.is_floating_point:
            return _check_adaptive_dtype(input, n, out, op)
    if n == 1:  # torch's graph: the 2-d pool of the unsqueezed input, squeezed
        pooled = _adaptive_avg(input.unsqueeze(-2), 2, (1, out[0]), "adaptive_avg_pool2d")
        return name_node(pooled.squeeze(-2), "SqueezeBackward1")
    if not all(o == 1 for o in out):  # one kernel in torch
        name = f"AdaptiveAvgPool{n}DBackward0"
        return as_node(_adaptive_avg_values(input, n, out), name, (input,), saved=(input,))
    # torch takes a mean for a single output position: its backward expands the gradient, with
    # no edge to input (a create_graph gradient does not require grad), where a pool's has one
    pooled = _global_mean(input, n)
    return _mean_layout(name_node(pooled, "MeanBackward1", (input,)), input)


def _global_mean(input, n):
    """input.mean over its last n dims with keepdim, as torch's shortcut takes it: given as
    (-1, -2, ..), which a short input refuses in mean's words. A NumPy-float input of
    n dims or more goes straight to the MeanDim that mean's own route ends in (its dims
    normalized the same way): the parse of a dim tuple and of the method's keyword is most of
    a small pool's cost. NOTE [ The no-grad fast path ] where nothing is recorded."""
    xd = input._data
    nd = xd.ndim
    if nd >= n and xd.dtype.kind == "f":
        dims = tuple(range(nd - n, nd))
        if (
            input._device is _CPU
            and not (input._requires_grad and _grad_state.enabled)
            and fast_path[0]
        ):
            out = MeanDim.forward(_CPU_NULL_CTX, input, dims=dims, keepdim=True)
            return plain_result(out, _CPU)
        pooled = MeanDim.apply(input, dims=dims, keepdim=True)
        if pooled._grad_fn is not None:  # grad_fn._saved_dim: torch's dims, as given
            pooled._grad_fn.given_dim = _GLOBAL_DIMS[n]
        return pooled
    # torch's dims, (-1, -2, ..): a short input is refused in mean's words
    return input.mean(_GLOBAL_DIMS[n], keepdim=True)


_GLOBAL_DIMS = {1: (-1,), 2: (-1, -2), 3: (-1, -2, -3)}  # the dims torch's shortcut gives mean


def _mean_layout(pooled, input):
    """The mean shortcut's (N, C, 1, 1) result with channels-last strides when the input is
    channels-last: torch restrides it in place (as_strided_, an AsStridedBackward1 node)."""
    if pooled.ndim in (4, 5) and _mf.suggested_last(input._data) is not None:  # 4-d or 5-d
        c = pooled.shape[1]
        pooled.as_strided_(pooled.shape, (c, 1) + (c,) * (pooled.ndim - 2))
    return pooled


def _global_average(input, n, output_size) -> bool:
    """Whether torch's adaptive_avg_pool2d/3d takes its mean shortcut: every output size 1 (a
    None entry reads the input's size there), after its Python wrapper's own checks."""
    if input.__class__ is not Tensor:
        return False
    if output_size.__class__ is int:
        return output_size == 1
    if output_size.__class__ not in (tuple, list) or len(output_size) != n or input.ndim <= n:
        return False  # (the wrapper's ValueError for a short input: _check_adaptive_input's)
    have = input.shape[input.ndim - n :]
    return all(
        (v.__class__ is int and v == 1) or (v is None and h == 1)
        for v, h in zip(output_size, have, strict=False)
    )


def _adaptive_avg_values(input, n, out):
    have = input.shape[input.ndim - n :]
    if 0 in input._data.shape[1:]:  # no channel: AdaptiveAvg, whose backward refuses (torch's)
        mats = tuple(_averaging_matrix(L, o, input)._data for L, o in zip(have, out, strict=False))
        return AdaptiveAvg.apply(input, mats=mats)
    if all(o and L % o == 0 for L, o in zip(have, out, strict=False)):  # o = 0: empty output
        k = tuple(L // o for L, o in zip(have, out, strict=False))
        if n == 1:
            return avg_pool(
                input.unsqueeze(-2), (1, *k), (1, *k), ((0, 0),) * 2, math.prod(k)
            ).squeeze(-2)
        return avg_pool(input, k, k, ((0, 0),) * n, math.prod(k))
    if 0 not in out:  # NOTE [ Adaptive average windows ]
        return AdaptiveAvgWindows.apply(input, have=tuple(have), out=tuple(out))
    # an empty output (no window to read): the averaging matrices, (0, L) where o = 0
    mats = tuple(_averaging_matrix(L, o, input)._data for L, o in zip(have, out, strict=False))
    return AdaptiveAvg.apply(input, mats=mats)


# NOTE [ Adaptive average windows ]
# torch's adaptive windows have unequal sizes where L % o != 0, so avg_pool cannot take them.
# Each window is summed on its own, its taps in order, then divided by each dim's window size
# (the bits of torch's kernel): a shared formulation - an averaging matrix (0 * inf = nan), a
# cumulative sum (inf - inf) - spreads an inf or nan into windows that do not hold it, forward
# and backward. A sum gathers, per output, a fixed number of taps per dim from the input with one
# -0.0 appended to each dim (adding it changes nothing, -0.0 included), the taps past a window's
# end pointing at it; the backward is the same gather-sum over the windows holding each input
# position, from the gradient divided by the window sizes.


@functools.lru_cache(maxsize=256)
def _adaptive_tables(L, o):
    """((kmax, o) forward taps: window i's positions, then L; (m, L) backward taps: the windows
    holding position p in order, then o; the (o,) window sizes)."""
    b = _bounds(L, o)
    kmax = max(hi - lo for lo, hi in b)
    fwd = tuple(tuple(lo + j if lo + j < hi else L for lo, hi in b) for j in range(kmax))
    holding = [[i for i, (lo, hi) in enumerate(b) if lo <= p < hi] for p in range(L)]
    m = max(len(w) for w in holding)
    bwd = tuple(tuple(w[j] if j < len(w) else o for w in holding) for j in range(m))
    return fwd, bwd, tuple(hi - lo for lo, hi in b)


def _tap_sums(xp, a, tables):
    """out[..., r_1, .., r_n] = sum over taps j (row-major, in order) of a[..., t_1[j_1, r_1],
    .., t_n[j_n, r_n]] with a's last n dims padded by one -0.0 (the index S_d) where a table
    reads it; returned as (B, R_1, .., R_n) with B the flattened leading dims. See NOTE
    [ Adaptive average windows ]"""
    n = len(tables)
    size = a.shape[a.ndim - n :]
    batch = math.prod(a.shape[: a.ndim - n])
    out = tuple(len(t[0]) for t in tables)
    # a dim of one position read once (the row a 1-d pool is unsqueezed to) is left out
    keep = [d for d in range(n) if size[d] != 1 or tables[d] != ((0,),)]
    if keep and len(keep) < n:
        size, tables = tuple(size[d] for d in keep), [tables[d] for d in keep]
        n = len(keep)
    # (a window or position short of the most taps reads the pad at its last one)
    padded = tuple(s + (s in t[-1]) for s, t in zip(size, tables, strict=False))
    flat = 0
    for d, t in enumerate(tables):
        shape = [1] * (2 * n)
        shape[d], shape[n + d] = len(t), len(t[0])
        flat = flat + xp.asarray(t).reshape(shape) * math.prod(padded[d + 1 :])
    flat = flat.reshape(-1)
    count, S, R, P = len(flat) // math.prod(out), math.prod(size), math.prod(out), math.prod(padded)
    a = a.reshape((batch, S))  # (explicit sizes: -1 is ambiguous for an empty batch)
    # The taps are read with the batch last (each a row of B values) or first (B single values,
    # summed along a middle axis in runs of R: slow for few outputs). The batch goes last,
    # in chunks of >= 64 whose transposes stay in cache (NumPy's transpose of a (4096, 1024)
    # array takes ~40x a copy's time), unless the taps are few per input and output position.
    # Measured over 1-d/2-d/3-d pools of 1..16384 rows, forward and backward: 2-5x faster
    # than batch first for most, within ~1.3x where batch first wins.
    if batch >= 2 and count * (R + 32) > 2 * (S + R):
        res = xp.empty((batch, R), dtype=a.dtype)
        chunks = -(-batch // max(64, (1 << 18) // (S + count * R)))
        step = -(-batch // chunks)
        for b0 in range(0, batch, step):
            b1 = min(batch, b0 + step)
            src = xp.full((*padded, b1 - b0), -0.0, dtype=a.dtype)
            src[tuple(slice(0, s) for s in size)] = a[b0:b1].T.reshape((*size, b1 - b0))
            taps = xp.take(src.reshape(P, b1 - b0), flat, axis=0)
            # a sum over the leading axis adds the taps one at a time, in order
            res[b0:b1] = xp.add.reduce(taps.reshape((count, R, b1 - b0)), axis=0).T
        return res.reshape((batch, *out))
    if padded == size:
        src = a
    else:
        src = xp.full((batch, *padded), -0.0, dtype=a.dtype)
        src[(slice(None), *(slice(0, s) for s in size))] = a.reshape((batch, *size))
    taps = xp.take(src.reshape(batch, P), flat, axis=1)
    # a sum over a middle axis adds the taps one at a time, in order (the windows' axes after
    # it hold >= 2 positions: unequal windows)
    return xp.add.reduce(taps.reshape((batch, count, R)), axis=1).reshape((batch, *out))


def _adaptive_avg_kernel(xp, a, have, out, adjoint):
    """AdaptiveAvgWindows' forward (adjoint: its backward) on arrays: a is (..., *have) (adjoint:
    (..., *out)); half precision computed in float32 and rounded once."""
    n = len(have)
    dt = a.dtype
    half = opmath_dtype(dt)
    if half:
        a = a.astype(half)
    tabs = [_adaptive_tables(L, o) for L, o in zip(have, out, strict=False)]
    sizes = []
    for d, t in enumerate(tabs):
        shape = [1] * (n + 1)
        shape[d + 1] = len(t[2])
        sizes.append(xp.asarray(t[2], dtype=a.dtype).reshape(shape))
    lead = a.shape[: a.ndim - n]
    if adjoint:  # torch's backward: the gradient / kh / kw, added into each window's positions
        a = a.reshape((math.prod(lead), *out))
        for s in sizes:
            a = a / s
        r = _tap_sums(xp, a, [t[1] for t in tabs])
    else:
        r = _tap_sums(xp, a, [t[0] for t in tabs])
        for s in sizes:
            r = r / s
    shape = have if adjoint else out
    return xp.ascontiguousarray(r.reshape((*lead, *shape)).astype(dt, copy=False))


class AdaptiveAvgWindows(Function):
    """out = x with its last len(have) dims averaged over torch's adaptive windows (NOTE
    [ Adaptive average windows ]);  grad_x = AdaptiveAvgWindowsGrad(grad, x), linear."""

    @staticmethod
    def forward(ctx, x, *, have, out):
        ctx.have, ctx.out = have, out
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x)  # for AdaptiveAvgWindowsGrad's zero edge only
        res = _adaptive_avg_kernel(ctx.xp, x._data, have, out, False)
        if len(have) == 3:  # a 4-d input is unbatched: torch's result is row-major
            return res
        return _mf.keep_channels_last(ctx.xp, res, x._data)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        g = AdaptiveAvgWindowsGrad.apply(grad, x, have=ctx.have, out=ctx.out)
        # torch's node under create_graph (its 1-d pool runs the 2-d kernel)
        return name_node(g, f"AdaptiveAvgPool{max(len(ctx.have), 2)}DBackwardBackward0")


class AdaptiveAvgWindowsGrad(Function):
    """out = AdaptiveAvgWindows' adjoint of a;  grad_a = AdaptiveAvgWindows(grad), grad_x = 0
    for the pooled input x (torch's double backward reaches it with zeros)"""

    @staticmethod
    def forward(ctx, a, x, *, have, out):
        ctx.have, ctx.out = have, out
        ctx.save_for_backward(x)
        return _adaptive_avg_kernel(ctx.xp, a._data, have, out, True)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        g_a = AdaptiveAvgWindows.apply(grad, have=ctx.have, out=ctx.out) if needs[0] else None
        return g_a, (zeros_of(x) if needs[1] else None)


_ADAPTIVE_SAVED = {"self": saved_value(0), "result1": lambda node: node.indices}
show_saved("AdaptiveMaxPool2DBackward0", _ADAPTIVE_SAVED)  # grad_fn._saved_<name> (as torch's)
show_saved("AdaptiveMaxPool3DBackward0", _ADAPTIVE_SAVED)
show_saved("AdaptiveAvgPool2DBackward0", {"self": saved_value(0)})
show_saved("AdaptiveAvgPool3DBackward0", {"self": saved_value(0)})


def _unpool_indices(node):
    """A max unpool's grad_fn._saved_indices: its indices (a 1-d unpool's as torch's 2-d run of
    (..., L, 1) saves them, unsqueezed)."""
    idx = node.indices
    return idx.unsqueeze(-1) if node.unpool_1d else idx


show_saved("MaxUnpool2DBackward0", {"indices": _unpool_indices})
show_saved("MaxUnpool3DBackward0", {"indices": _unpool_indices})


def adaptive_avg_pool1d(input, output_size) -> Tensor:
    """Mirrors torch.nn.functional.adaptive_avg_pool1d."""
    return _adaptive_avg(input, 1, output_size, "adaptive_avg_pool1d")


def adaptive_avg_pool2d(input, output_size) -> Tensor:
    """Mirrors torch.nn.functional.adaptive_avg_pool2d (output_size entries may be None)."""
    return _adaptive_avg(input, 2, output_size, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size) -> Tensor:
    """Mirrors torch.nn.functional.adaptive_avg_pool3d."""
    if _autocast.state.any_enabled:
        return _autocast.call(adaptive_avg_pool3d, _autocast.FP32_CPU, (input, output_size))
    return _adaptive_avg(input, 3, output_size, "adaptive_avg_pool3d")


def _adaptive_max(input, n, output_size, return_indices, op):
    res = _adaptive_max_values(input, n, output_size, op)
    if n > 1:  # torch's one node, saving the input and the indices
        attrs = {"kept_device": input._device, "indices": res[1]}
        as_node(res, f"AdaptiveMaxPool{n}DBackward0", (input,), saved=(input,), attrs=attrs)
    return res if return_indices else res[0]


def _adaptive_max_values(input, n, output_size, op):
    """(values, indices) of an adaptive max pool."""
    _check_adaptive_input(input, n, output_size, op, colon=":")
    out = _adaptive_sizes(input, n, output_size, op)
    if not input.dtype.is_floating_point:
        _check_adaptive_dtype(input, n, out, op)
    if 0 in out:  # an empty output, as torch's, whose backward refuses the empty gradient
        x = input.unsqueeze(-2) if n == 1 else input  # (a 1-d pool: its 2-d run's)
        shape = (*x.shape[: x.ndim - max(n, 2)], *((1, *out) if n == 1 else out))
        xp = x._device.backend.xp
        values = _make(xp.empty(shape, dtype=x._data.dtype), x._device, False, None)
        if x._requires_grad and _grad_state.enabled:
            message = empty_grad_message(shape, f"adaptive_max_pool{max(n, 2)}d")
            values = RefusedBackward.apply(x, result=values._data, message=message)
        res = (values, zeros(shape, dtype=_dtype.int64, device=input.device))
        if n == 1:  # torch's 2-d pool of (..., 1, L), squeezed: row-major strides, as its own
            attrs = {"kept_device": x._device, "indices": res[1]}
            as_node(res, "AdaptiveMaxPool2DBackward0", (x,), saved=(x,), attrs=attrs)
            res = (name_node(res[0].squeeze(-2), "SqueezeBackward1"), res[1].squeeze(-2))
        return res
    if n == 3:
        have = input.shape[-3:]
        if all(L % o == 0 for L, o in zip(have, out, strict=False)):
            k = tuple(L // o for L, o in zip(have, out, strict=False))
            res = max_pool(input, k, k, ((0, 0),) * 3, (1, 1, 1), True)
            if not res[0].is_contiguous():  # torch's kernel gives row-major results
                res = tuple(r.contiguous() for r in res)
        else:
            res = _adaptive_max_gather(input, have, out)
        return res
    x = input.unsqueeze(-2) if n == 1 else input
    have = x.shape[-2:]
    out2 = (1, *out) if n == 1 else out
    if all(L % o == 0 for L, o in zip(have, out2, strict=False)):
        k = tuple(L // o for L, o in zip(have, out2, strict=False))
        res = max_pool(x, k, k, ((0, 0),) * 2, (1, 1), True)
    else:
        res = _adaptive_max_gather(x, have, out2)
        if n == 2 and _mf.suggests_channels_last(x._data):  # torch's kernel keeps the layout
            res = tuple(r.contiguous(memory_format=_mf.channels_last) for r in res)
    if n == 1:  # torch's graph: the 2-d pool of the unsqueezed input, squeezed
        attrs = {"kept_device": x._device, "indices": res[1]}
        as_node(res, "AdaptiveMaxPool2DBackward0", (x,), saved=(x,), attrs=attrs)
        res = (name_node(res[0].squeeze(-2), "SqueezeBackward1"), res[1].squeeze(-2))
    return res


def _adaptive_max_gather(x, have, out):
    """Windows of unequal sizes: the arg-max found without grad (_adaptive_argmax), and the
    values gathered (differentiable) at it."""
    n = len(have)
    lead = x.shape[: x.ndim - n]
    # _tie: gather's backward reads only the index, so without it a create_graph gradient
    # would not reach x, where torch's (AdaptiveMaxPool{n}DBackward) does with a zero
    # gradient (NOTE [ Zero-gradient edges ])
    xf = _tie(x).reshape((*lead, math.prod(have)))
    best = _make(_adaptive_argmax(x._device.backend.xp, x._data, have, out), x._device, False, None)
    vals = gather(xf, -1, best.reshape((*lead, math.prod(out)))).reshape((*lead, *out))
    return vals, best


def _adaptive_argmax(xp, a, have, out):
    """The flat input position (over the last n dims) of each adaptive window's max: the first
    in the window's row-major order, the last NaN where it holds one (torch's rule: a NaN
    replaces the running max, a value replaces it when greater). Taken one dim at a time,
    the last dim first (so the first of the row-major order wins ties), each window's taps read
    in order, keeping the running max and the tap it came from, then the positions carried
    along: a gather of every tap of every window at once read 4M values for a (4, 16, 32, 32,
    32) -> 5 pool and took 5-9x torch's time. The batch goes last (each tap a take of
    contiguous rows) and the tap is kept by arithmetic, not a masked copy (branchy on random
    data): a (32, 64, 13, 13) -> 5 pool's arg-max 3.7 -> 0.9 ms."""
    n = len(have)
    lead = a.shape[: a.ndim - n]
    batch = math.prod(lead)
    floating = a.dtype.kind not in "biu"  # (bfloat16 is kind "V")
    val = xp.ascontiguousarray(a.reshape((batch, math.prod(have))).T).reshape((*have, batch))
    pos = None
    for d in reversed(range(n)):
        b = _bounds(have[d], out[d])
        kmax = max(hi - lo for lo, hi in b)
        table = xp.asarray([[min(lo + j, hi - 1) for j in range(kmax)] for lo, hi in b])
        best = xp.take(val, table[:, 0], axis=d)
        tap = xp.zeros(best.shape, dtype=xp.uint8 if kmax < 256 else xp.int64)
        for j in range(1, kmax):
            v = xp.take(val, table[:, j], axis=d)
            # strictly greater: a repeated tap or a later equal value leaves the first
            newer = v > best
            if floating:
                newer |= v != v
            # j exceeds every earlier tap: the max keeps tap where not newer
            xp.maximum(tap, xp.multiply(newer, j, dtype=tap.dtype), out=tap)
            # (a NaN max stays NaN: best only serves the comparisons, -0.0 == 0.0 there)
            xp.maximum(best, v, out=best)
        shape = [1] * (n + 1)
        shape[d] = out[d]
        lo = xp.asarray([lo for lo, _ in b]).reshape(shape)
        last = xp.asarray([hi - 1 for _, hi in b]).reshape(shape)
        rows = xp.minimum(tap + lo, last)  # the input row each max came from (table[i, tap])
        p = rows * math.prod(have[d + 1 :])
        if pos is not None:
            p += xp.take_along_axis(pos, rows, axis=d)
        val, pos = best, p
    return xp.ascontiguousarray(pos.reshape((math.prod(out), batch)).T).reshape((*lead, *out))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Mirrors torch.nn.functional.adaptive_max_pool2d."""
    return _adaptive_max(input, 2, output_size, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Mirrors torch.nn.functional.adaptive_max_pool1d."""
    return _adaptive_max(input, 1, output_size, return_indices, "adaptive_max_pool1d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Mirrors torch.nn.functional.adaptive_max_pool3d."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            adaptive_max_pool3d, _autocast.FP32_CPU, (input, output_size, return_indices)
        )
    return _adaptive_max(input, 3, output_size, return_indices, "adaptive_max_pool3d")


# NOTE [ Boolean-dispatch names ]
# torch's F.max_pool2d & co. are boolean_dispatch wrappers calling its _max_pool2d (or
# max_pool2d_with_indices), so Python's TypeError for a missing or extra argument names
# "_max_pool2d()"; the qualified name (which Python's message uses) says the same here, at no
# cost per call, and the module binds that name too, so that pickle finds the function by it.
# (torch's F.threshold is its _threshold outright.)
for _f in (
    max_pool1d,
    max_pool2d,
    max_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
):
    _f.__qualname__ = "_" + _f.__name__
    globals()[_f.__qualname__] = _f
del _f


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """(values, indices) of adaptive_max_pool3d, whatever return_indices says (torch's default
    False). Mirrors torch.nn.functional.adaptive_max_pool3d_with_indices."""
    return adaptive_max_pool3d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """(values, indices) of adaptive_max_pool2d, whatever return_indices says (torch's default
    False). Mirrors torch.nn.functional.adaptive_max_pool2d_with_indices."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """(values, indices) of adaptive_max_pool1d, whatever return_indices says (torch's default
    False). Mirrors torch.nn.functional.adaptive_max_pool1d_with_indices."""
    return adaptive_max_pool1d(input, output_size, True)


# --- unpooling ---


def _raise_invalid_unpool_index(indices: Tensor, size: tuple) -> None:
    """torch's error for an index outside the output (read on the host: this is the error path
    of the scatter, which checks bounds on the CPU). torch's kernel keeps the last bad index it
    meets, so this names the last one in memory order (what torch reports on one thread)."""
    bad = (indices < 0) | (indices >= math.prod(size))
    if bad.any():
        value = int(indices[bad][-1])
        volume = "x".join(str(d) for d in size)
        raise RuntimeError(
            f"Found an invalid max index: {value} (output volumes are of size {volume})"
        ) from None


def _unpool_tuple(v, n: int) -> tuple:
    """torch's _single/_pair/_triple: an iterable as its tuple, anything else n times."""
    return tuple(v) if hasattr(v, "__iter__") else (v,) * n


def _max_unpoolnd(n, input, indices, kernel_size, stride, padding, output_size):
    if not isinstance(input, Tensor):
        input.size  # noqa: B018  (torch's wrapper reads input.size(): Python's AttributeError)
    # torch's Python: _single/_pair/_triple (an iterable as its tuple, anything else repeated),
    # then _unpool_output_size's arithmetic on whatever they hold (its own errors for a str,
    # None or a short tuple), over as many dims as kernel_size has
    k = _unpool_tuple(kernel_size, n)
    s = k if stride is None else _unpool_tuple(stride, n)
    p = _unpool_tuple(padding, n)
    have = tuple(input.shape)
    m = len(k)
    default = [(have[-m + d] - 1) * s[d] + k[d] - 2 * p[d] for d in range(m)]
    if output_size is None:
        size = default
    else:
        # torch drops a leading (N, C) only when all m + 2 sizes are given, refuses other
        # lengths, and names the trimmed sequence as given (a list, tuple or Size)
        if len(output_size) == m + 2:
            output_size = output_size[2:]
        if len(output_size) != m:
            raise ValueError(
                f"output_size should be a sequence containing {m} or {m + 2} elements, but it "
                f"has a length of '{len(output_size)}'"
            )
        for d in range(m):
            lo, hi = default[d] - s[d], default[d] + s[d]
            if not (lo < output_size[d] < hi):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})'
                )
        size = output_size
    for d in range(m):
        ok = size[d] >= 0
        if ok.__class__ is not bool:  # torch._check_value's
            raise TypeError(
                "cond must be a bool, but got a Tensor. For tensor conditions, use "
                "torch._check_tensor_all() to assert that all elements are true."
                if isinstance(ok, Tensor)
                else f"cond must be a bool, but got {type(ok)}"
            )
        if not ok:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={size[d]}"
            )
    op = f"max_unpool{max(n, 2)}d"  # torch's 1-d unpool is the 2-d one of (..., L, 1)
    if not isinstance(indices, Tensor):  # torch's parser, after its Python size checks
        if n == 1:
            indices.unsqueeze  # noqa: B018  (torch's 1-d wrapper calls indices.unsqueeze(-1))
        raise not_tensor(op, indices, "indices", 2)
    if n == 3:
        # torch's parser checks each int[]'s first element in order, and its kernel unpacks the
        # rest in the reverse order
        for pos, name, v in ((3, "output_size", size), (4, "stride", s), (5, "padding", p)):
            int_list(v[:1], op, name, pos)
        p, s = int_list(p, op, "padding", 5), int_list(s, op, "stride", 4)
    size = int_list([*size, 1] if n == 1 else size, op, "output_size", 3)
    if indices.dtype is not _dtype.int64:  # torch's kernel reads int64 only (no int32 path)
        got = "" if n == 3 else f" but got: {_dtype.scalar_name(indices.dtype)}"
        raise RuntimeError(f"elements in indices should be type int64{got}")
    if n < 3 and len(size) != 2:
        raise RuntimeError(
            "There should be exactly two elements (height, width) in output_size, but got "
            f"{len(size)} elements."
        )
    if input.ndim not in (n + 1, n + 2):
        kn = max(n, 2)
        raise RuntimeError(
            f"Input to max_unpooling{kn}d should be a {kn + 1}d or {kn + 2}d Tensor, but got a "
            f"tensor with {input.ndim + (n == 1)} dimensions."
        )
    if n == 3:
        for name, v in (("output_size", size), ("stride", s), ("padding", p)):
            if len(v) != 3:
                colon = ":" if name != "output_size" else ""
                raise RuntimeError(
                    f"There should be exactly three elements (depth, height, width) in {name}, "
                    f"but got{colon} {len(v)} elements."
                )
    if n == 1:
        size = size[:1]
    if indices.shape != input.shape:
        extra = [1] if n == 1 else []  # torch's 1-d unpool is the 2-d one of (..., L, 1)
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape) + extra}) but got indices tensor with shape: "
            f"{list(indices.shape) + extra}"
        )
    if not input.dtype.is_floating_point:
        name = _dtype.scalar_name(input.dtype)
        raise NotImplementedError(f"\"max_unpool{max(n, 2)}d\" not implemented for '{name}'")
    # torch unpools 1-d as 2-d over (..., L, 1), so its graph reads SqueezeBackward1 ->
    # MaxUnpool2DBackward0 -> UnsqueezeBackward0; 2-d and 3-d are one node each
    x = input.unsqueeze(-1) if n == 1 else input
    kept = {"indices": indices, "unpool_1d": n == 1}  # for grad_fn._saved_indices
    lead = input.shape[: input.ndim - n]
    # the plane size spelled out: an empty batch cannot infer a -1
    plane = math.prod(input.shape[input.ndim - n :])
    flat_in = x.reshape((*lead, plane))
    if math.prod(size) == 0:
        # an empty output: torch checks no index (nothing is written) and returns it
        out = flat_in.narrow(-1, 0, 0)
        if n == 1:
            out = as_node(out.reshape((*lead, *size, 1)), "MaxUnpool2DBackward0", (x,), attrs=kept)
            return out.squeeze(-1)
        name = f"MaxUnpool{n}DBackward0"
        return as_node(out.reshape((*lead, *size)), name, (input,), attrs=kept)
    out = zeros((*lead, math.prod(size)), dtype=input.dtype, device=input.device)
    try:
        out = out.scatter(-1, indices.reshape((*lead, plane)), flat_in)
    except RuntimeError:
        _raise_invalid_unpool_index(indices, size if n > 1 else (*size, 1))
        raise
    if n == 1:
        out = as_node(out.reshape((*lead, *size, 1)), "MaxUnpool2DBackward0", (x,), attrs=kept)
        return out.squeeze(-1)
    return as_node(out.reshape((*lead, *size)), f"MaxUnpool{n}DBackward0", (input,), attrs=kept)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Mirrors torch.nn.functional.max_unpool1d."""
    if _autocast.state.any_enabled:  # torch's runs max_unpool2d, on its CPU float32 list
        return _autocast.call(
            max_unpool1d,
            _autocast.FP32_CPU,
            (input, indices, kernel_size, stride, padding, output_size),
        )
    return _max_unpoolnd(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value back at its max_pool2d index, zeros elsewhere. Mirrors
    torch.nn.functional.max_unpool2d."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            max_unpool2d,
            _autocast.FP32_CPU,
            (input, indices, kernel_size, stride, padding, output_size),
        )
    return _max_unpoolnd(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Mirrors torch.nn.functional.max_unpool3d."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            max_unpool3d,
            _autocast.FP32_CPU,
            (input, indices, kernel_size, stride, padding, output_size),
        )
    return _max_unpoolnd(3, input, indices, kernel_size, stride, padding, output_size)
