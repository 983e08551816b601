"""More reductions: all/any, std/var, norms, and the order statistics (median, mode, quantile)."""

from __future__ import annotations

import functools
import math
import numbers
import operator
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, return_types
from minitorch._arg_errors import REQUIRED, missing_positional
from minitorch._backend import cpu
from minitorch._ops._common import (
    cast,
    is_floating,
    is_index,
    not_tensor,
    number,
    opmath_dtype,
    row_major,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops._parser_errors import (
    OVERLOADS,
    extra_positional_error,
    overload_error,
    parsed_error,
    positional_count,
)
from minitorch._ops.indexing import saved_arg, saved_sizes, saved_watched
from minitorch._ops.reduction import (
    _GEMV_MIN_SIZE,
    _accumulate_dtype,
    _argument_error,
    _check_nonempty,
    _const,
    _drop,
    _keepdim,
    _keepdim_data,
    _numel,
    _out,
    _saved_given_dims,
    _short,
    keep_row_major,
    keep_shape,
    mean,
    reduce_dims,
)
from minitorch._ops.shape import View
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor
from minitorch._tensor_methods import _at
from minitorch._tensor_methods import _number_arg as number_arg
from minitorch.autograd.composite import as_node, show_saved
from minitorch.autograd.function import (
    Function,
    check_watched,
    fast_path,
    plain_result,
    saved_uint64,
    watch_index,
)
from minitorch.autograd.grad_mode import state

# fmt: off
__all__ = [
    "all", "any", "count_nonzero", "std", "var", "std_mean", "var_mean", "norm", "median",
    "nanmedian", "mode", "quantile", "nanquantile",
]
# fmt: on


# --- boolean reductions (not differentiable) ---

_MISSING = object()  # median's dim when not given (None given is an error)


def _bool_reduce(kind, input, dim, keepdim, out):
    try:
        x = input._data
    except AttributeError as e:  # torch.all(list_of_flags): zero-cost when a tensor
        raise _argument_error(e, kind, input, dim, keepdim, out=out) from None
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ] (reduction.py)
        named = (("input", input), ("dim", dim), ("keepdim", keepdim), ("out", out))
        raise parsed_error(kind, named)
    # torch keeps uint8 for uint8 inputs; every other dtype gives bool. An out= may be either,
    # whatever the input (written as 0/1), and nothing else
    kept = _dtype.uint8 if x.dtype == _dtype.uint8.np else _dtype.bool
    if out is not None and isinstance(out, Tensor) and out.dtype is not kept:
        if out.dtype is not _dtype.bool and out.dtype is not _dtype.uint8:
            raise RuntimeError(
                f"{kind} only supports bool tensor for result, got: {_short(out.dtype)}"
            )
        kept = out.dtype
        if kept is _dtype.uint8:  # torch reduces the input cast to uint8: all(0.5) is False
            x = cast(input, kept)._data
    xp = input._device.backend.xp
    try:
        dims = reduce_dims(dim, x.ndim, kind, empty_means_all=False)
    except TypeError as e:  # x.all("a"): NOTE [ Overloaded reductions ]
        raise _argument_error(e, kind, input, dim, keepdim, out=out) from None
    r = x.all(axis=dims, keepdims=keepdim) if kind == "all" else x.any(axis=dims, keepdims=keepdim)
    r = xp.asarray(r, dtype=kept.np)
    r = keep_row_major(x, r) if keepdim else row_major(xp, r)
    return _out(_const(r, input), out)


def all(input, dim=None, keepdim=False, *, out=None):
    """True where every element (over dims) is non-zero. Mirrors torch.all."""
    return _bool_reduce("all", input, dim, keepdim, out)


def any(input, dim=None, keepdim=False, *, out=None):
    """True where some element (over dims) is non-zero. Mirrors torch.any."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(any, (input, dim, keepdim), {"out": out})
    return _bool_reduce("any", input, dim, keepdim, out)


def count_nonzero(input, dim=None, *extra, **unknown):
    """The number of non-zero elements over dims. Mirrors torch.count_nonzero."""
    if extra or unknown:  # (x, 0, True), keepdim=True: none of torch's overloads takes them
        raise _count_nonzero_error(input, dim, extra, unknown)
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(count_nonzero, (input, dim))
    try:
        x = input._data
        dims = reduce_dims(dim, x.ndim, "count_nonzero")  # (dim=() counts all, as torch)
    except (AttributeError, TypeError) as e:  # a list where a tensor belongs, a dim "a"
        raise _argument_error(e, "count_nonzero", input, dim, False) from None
    xp = input._device.backend.xp
    r = xp.asarray((x != 0).sum(axis=dims), dtype=_dtype.int64.np)
    if not x.flags.c_contiguous:  # (the comparison keeps x's order: torch's result is row-major)
        r = row_major(xp, r)
    return _const(r, input)


def _count_nonzero_error(input, dim, extra, unknown) -> TypeError:
    """torch's parser TypeError for count_nonzero given positional arguments past dim, or
    keywords it has not (keepdim=, as sum takes); a dim left at None counts as not given."""
    from minitorch._call_site import passed_by_keyword

    named = [("input", input)]
    if dim is not None or extra or passed_by_keyword("dim", "count_nonzero"):
        named.append(("dim", dim))
    named += [(f"#{i}", v) for i, v in enumerate(extra)]  # (names no call passes by keyword)
    named += list(unknown.items())
    forms = OVERLOADS["count_nonzero"]
    return overload_error("count_nonzero", *forms, named, unknown=tuple(unknown))


# --- variance and standard deviation ---

_CPU_NULL_CTX = cpu.backend.null_ctx  # the ctx Function.apply gives a forward recording nothing


def _moments(ctx, x, dims, keepdim, correction, welford=False):
    """(sum of squared deviations / dof) over dims, with torch's warning and inf/nan at dof <= 0;
    in the accumulation dtype (the caller rounds to x's dtype once, as torch does). welford:
    var_mean's and std_mean's kernel, which takes no two-pass path for one output."""
    xp = ctx.xp
    # float32 and half precision in float64 (torch's CPU kernels accumulate in double: a float32
    # two-pass variance of 200k points far from the origin was off by 4e-5; a bfloat16 std of
    # values near its max, whose squares overflow float32, is finite)
    xdt = x.dtype
    half = opmath_dtype(xdt) if xdt.itemsize < 4 else None  # (_accumulate_dtype, no call for 4+)
    acc = "float64" if xdt.kind == "f" and xdt.itemsize == 4 or half is not None else None
    dt = acc or xdt
    n = x.shape[dims[0]] if dims is not None and len(dims) == 1 else _numel(x.shape, dims)
    dof = n - correction
    ctx.dof = dof
    if n == 0:
        ss = xp.zeros(keep_shape(x.shape, dims), dtype=dt)
    elif dims is None and dof > 0 and not keepdim and half is None and not welford:
        # x.var(), x.std(): the two-pass kernel below on NumPy scalars (the same sums and
        # quotients, in the same dtypes: no (1, 1) arrays to divide, reshape and check)
        m = xp.add.reduce(x, axis=None) / n
        d = xp.subtract(x, m, dtype=acc) if acc is not None else x - m
        v = xp.add.reduce(xp.multiply(d, d, out=d) if d.ndim else d * d, axis=None) / dof
        return xp.asarray(v, dtype=dt)
    elif x.size == n and half is None and not welford:
        # one output in float32/64: torch's two-pass kernel (std_var_all_cpu): the mean in x's
        # own dtype, then the squared deviations from it in double. A float32 mean's rounding
        # error enters squared (torch's var of data at 1e4 with std 1e-2 is 2e-4 high; of
        # [3e38, 3e38], whose float32 sum overflows, inf); the variance of constant data can
        # come out a few ulps above 0
        m = xp.add.reduce(x, axis=dims, keepdims=True) / n  # NOTE [ Reductions call the ufunc ]
        # the deviations in one new array, squared in place: x - m in acc (x's values widened
        # exactly, as x.astype(acc) - m.astype(acc) gave them) without the widened copy, and no
        # array for the squares ((2048, 512) float32 var(): 3 new 8 MB arrays -> 1)
        d = xp.subtract(x, m.astype(acc), dtype=acc) if acc is not None else x - m
        ss = xp.add.reduce(xp.multiply(d, d, out=d) if d.ndim else d * d, axis=dims, keepdims=True)
    else:
        # Along a dim (and for half precision) torch runs Welford's update per slice, which keeps
        # a constant slice's mean equal to its value: its variance is exactly 0, and users rely
        # on that ((x - mean) / std is inf, std == 0 masks the constant features). Shifting
        # each slice by its first element gives the same exact 0 at two-pass cost (d is 0 for
        # a constant slice, whatever sum(x) / n rounds to) and the accuracy of a shifted
        # two-pass elsewhere
        if dims is not None and len(dims) == 1:  # (the dims after it: taken whole)
            first = (slice(None),) * dims[0] + (slice(0, 1),)
        else:
            first = tuple(
                slice(0, 1) if dims is None or i in dims else slice(None) for i in range(x.ndim)
            )
        if acc is not None and xdt.kind == "f":  # (x widened exactly in the subtraction)
            d = xp.subtract(x, x[first], dtype=acc)
        elif acc is not None:  # (bfloat16: widened first)
            d = x.astype(acc)
            d -= x[first]
        else:
            d = x - x[first]
        d -= xp.add.reduce(d, axis=dims, keepdims=True) / n
        # (a 0-d input's d is a NumPy scalar, which takes no out=)
        sq = xp.multiply(d, d, out=d) if d.ndim else d * d
        if dof > 0:  # the sums of squares in the result's shape: no reshape below
            v = xp.add.reduce(sq, axis=dims, keepdims=keepdim) / dof
            return row_major(xp, xp.asarray(v, dtype=dt))
        ss = xp.add.reduce(sq, axis=dims, keepdims=True)
    if dof <= 0:  # the public function warned
        v = xp.where(ss > 0, xp.asarray(math.inf, dtype=dt), xp.asarray(math.nan, dt))
    else:
        v = ss / dof
    if not keepdim:
        v = v.reshape(_drop(x.shape, dims))
    return row_major(xp, xp.asarray(v, dtype=dt))


# grad_fn._saved_<name> of var's and std's nodes (as torch's): the dims as given, the
# correction as the call gave it (see _saved_correction)
_VAR_SAVED = {
    "correction": lambda node: node.__dict__.get("given_correction"),
    "dim": lambda node: _saved_given_dims(node.__dict__.get("given_dim")),
    "keepdim": "keepdim",
}


class Var(Function):
    """out = sum((a - mean(a))**2) / (n - correction);  grad_a = grad * 2 (a - mean) / dof"""

    _saved_names = ("self",)
    _saved_attrs = _VAR_SAVED

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, correction, grad_dof, welford=False):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # (_setup, inlined)
        ctx.grad_dof = grad_dof
        ctx.save_for_backward(a)
        return _moments(ctx, x, dims, keepdim, correction, welford).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return _var_backward(_keepdim(grad, ctx), a, ctx)

    @staticmethod
    def _backward_data(ctx, grad):
        (x,) = ctx._stored_arrays()
        return _var_backward_data(_keepdim_data(grad, ctx), x, ctx)


def _var_backward(grad, a, ctx):
    """(2 / dof) * grad * (a - mean), multiplied in torch's order (it shows in half precision).

    At dof <= 0 torch's two formulas part: reducing everything (no dim, or a 0-d input) the
    gradient is grad * inf, nan where a equals the mean; with a dim it keeps 2 / (n - correction)
    as a number (inf at 0, a finite negative past it) - see _var_args' grad_dof."""
    m = mean(a, ctx.dims, True)
    if ctx.grad_dof is None:
        if ctx.dof > 0:
            return grad * (2.0 / ctx.dof) * (a - m)
        from minitorch._ops.pointwise import where

        return grad * where(a == m, math.nan, math.inf)
    scale = 2.0 / ctx.grad_dof if ctx.grad_dof != 0 else math.inf
    return grad * scale * (a - m)


def _var_backward_data(grad, x, ctx):
    """_var_backward on arrays (NOTE [ Data-level backward ]): the same products in the same
    order, with mean()'s kernel for the mean (its small-array route: a sum over n), for a
    float32/float64 input of fewer than _GEMV_MIN_SIZE elements reduced over all dims or one,
    at dof > 0 for a full reduction; NotImplemented for the rest (the Tensor formula)."""
    dims = ctx.dims
    if x.dtype.char not in "fd" or grad.dtype != x.dtype or x.size >= _GEMV_MIN_SIZE:
        return NotImplemented
    if dims is None:
        n = x.size
    elif len(dims) == 1:
        n = x.shape[dims[0]]
    else:
        return NotImplemented
    if ctx.grad_dof is None:
        if ctx.dof <= 0:
            return NotImplemented
        scale = 2.0 / ctx.dof
    elif n == 0:
        return NotImplemented
    else:
        scale = 2.0 / ctx.grad_dof if ctx.grad_dof != 0 else math.inf
    m = ctx.xp.add.reduce(x, axis=dims, keepdims=True) / n  # (Mean.forward's array, keepdim)
    return grad * scale * (x - m)


class Std(Function):
    """out = sqrt(var(a));  grad_a = grad * (a - mean) / (dof * out), 0 where out == 0"""

    _saved_names = ("self", "result")
    _saved_attrs = _VAR_SAVED

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, correction, grad_dof, welford=False):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # (_setup, inlined)
        ctx.grad_dof = grad_dof
        v = _moments(ctx, x, dims, keepdim, correction, welford)
        out = ctx.xp.sqrt(v).astype(x.dtype, copy=False)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import where

        a, out = ctx._stored_tensors
        out = _keepdim(out, ctx)
        zero = out == 0
        safe = where(zero, 1.0, out)  # no inf in the unused branch: its gradient would be nan
        return _var_backward(where(zero, 0.0, _keepdim(grad, ctx) / (safe * 2)), a, ctx)

    @staticmethod
    def _backward_data(ctx, grad):
        x, out = ctx._stored_arrays()
        if x.dtype.char not in "fd" or grad.dtype != x.dtype:  # (before the arithmetic below)
            return NotImplemented
        xp = ctx.xp
        out = _keepdim_data(out, ctx)
        zero = out == 0
        safe = xp.where(zero, 1.0, out)
        grad = xp.where(zero, 0.0, _keepdim_data(grad, ctx) / (safe * 2))
        return _var_backward_data(grad, x, ctx)


def _common_dims(x, dim, keepdim):
    """(dims, keepdim, grad_dof) of the common calls, which skip _var_args' parse: x.var(),
    x.var(d[, keepdim]) with an int d in range and a bool keepdim, of a float16/32/64 array x
    with more than one element to reduce (unbiased and correction not given); None for the
    others."""
    if x.dtype.kind != "f":
        return None
    if dim is _MISSING:
        if keepdim is _MISSING and x.size > 1:
            return None, False, None
    elif dim.__class__ is int and (keepdim is _MISSING or keepdim.__class__ is bool):
        if -x.ndim <= dim < x.ndim and x.shape[dim] > 1:
            return (dim % x.ndim,), keepdim is True, x.shape[dim] - 1
    return None


def _plain_stat(fn, input, dim, unbiased, keepdim, correction, **welford):
    """(fn.forward's result as a plain tensor, its dims, its keepdim) for a common call that
    records nothing (NOTE [ The no-grad fast path ]): fn Var or Std, with apply's ctx for no
    node; None where the general route runs."""
    if (
        input.__class__ is Tensor
        and input._device is cpu
        and not (input._requires_grad and state.enabled)
        and unbiased is _MISSING
        and correction is None
        and fast_path[0]
    ):
        plan = _common_dims(input._data, dim, keepdim)
        if plan is not None:
            dims, keepdim, g = plan
            args = {"dims": dims, "keepdim": keepdim, "correction": 1, "grad_dof": g}
            out = fn.forward(_CPU_NULL_CTX, input, **args, **welford)
            return plain_result(out, cpu), dims, keepdim
    return None


def _var_args(op, input, dim, unbiased, keepdim, correction):
    if unbiased is _MISSING and correction is None and input.__class__ is Tensor:
        plan = _common_dims(input._data, dim, keepdim)
        if plan is not None:
            return plan[0], plan[1], 1, plan[2]
    # (unbiased is _MISSING where not given: a None given is refused below, as torch's
    # overloads take a bool only: var(x, 0, None))
    if keepdim is _MISSING:
        keepdim = False
    elif isinstance(dim, bool) or (unbiased is not _MISSING and dim is _MISSING):
        # std(x, unbiased=False, keepdim=True): the unbiased-only form takes no keepdim, the one
        # with keepdim wants a dim
        raise _var_error(op, input, None if dim is _MISSING else dim, unbiased, keepdim, correction)
    if isinstance(dim, bool):  # std(input, unbiased): no dim given
        if unbiased is not _MISSING:  # var(x, True, 1): no overload takes a bool dim
            raise _var_error(op, input, dim, unbiased, keepdim, correction)
        dim, unbiased = _MISSING, dim
    if unbiased is not _MISSING and correction is not None:
        # torch has no signature taking both: its parser's message
        raise _var_error(op, input, dim, unbiased, keepdim, correction)
    if (unbiased is not _MISSING and unbiased.__class__ is not bool) or (
        keepdim.__class__ is not bool
    ):
        # var(x, 0, 0): torch takes no int for unbiased (nor keepdim), where Python's bool
        # test would read it as one
        raise _var_error(op, input, dim, unbiased, keepdim, correction)
    if dim is _MISSING:
        dim = None
    try:
        floating = input.dtype.is_floating_point
    except AttributeError:  # torch.std(list_of_predictions, 0): the forgotten stack
        raise _var_error(op, input, dim, unbiased, keepdim, correction) from None
    if not floating:
        what = op if op.endswith("_mean") else "std and var"
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    x = input._data
    try:
        dims = reduce_dims(dim, x.ndim, op, in_order=True)
    except TypeError:  # x.std("a"): NOTE [ Overloaded reductions ]
        if isinstance(dim, (list, tuple)) and is_index(dim[0]):  # a later element's unpacking
            raise
        raise _var_error(op, input, dim, unbiased, keepdim, correction) from None
    if correction is None:
        correction = 0 if unbiased is False else 1
    try:
        no_dof = _numel(x.shape, dims) - correction <= 0
    except TypeError:  # std(x, 1, correction="a"): NOTE [ Overloaded reductions ]
        raise _var_error(op, input, dim, unbiased, keepdim, correction) from None
    if no_dof:
        warnings.warn(
            f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    # The dof of the backward formula: None when torch reduces everything (no dim, or a 0-d
    # input); else the reduced dims' element count less the correction, where torch counts a
    # dim=[] (a full reduction forward) as 1 element (var(x, [], correction=3) of [[1., 2.]]
    # has the gradient [[0.5, -0.5]])
    if dim is None or x.ndim == 0:
        grad_dof = None
    else:
        grad_dof = (_numel(x.shape, dims) if dims is not None else 1) - correction
    return dims, keepdim, correction, grad_dof


def _var_error(op, input, dim, unbiased, keepdim, correction) -> TypeError:
    """parsed_error for var's arguments; dim or unbiased _MISSING where not given (a bool dim
    is std(input, unbiased))."""
    unbiased = None if unbiased is _MISSING else unbiased  # (None: not given, for parsed_error)
    named = (("input", input), ("dim", dim), ("unbiased", unbiased), ("keepdim", keepdim))
    named = [(n, v) for n, v in named if v is not _MISSING]
    return parsed_error(op, (*named, ("correction", correction)))


def var(
    input=REQUIRED, dim=_MISSING, unbiased=_MISSING, keepdim=_MISSING, *extra, correction=None,
    out=None,
):  # fmt: skip
    """Variance over dims with Bessel's correction by default. Mirrors torch.var."""
    if out is None and not extra:  # NOTE [ The no-grad fast path ]
        plain = _plain_stat(Var, input, dim, unbiased, keepdim, correction)
        if plain is not None:
            return plain[0]
    if extra:  # (input REQUIRED, extra: torch's parser wording, as sum's)
        args = (input, dim, unbiased, keepdim, *extra)
        raise extra_positional_error("var", args, correction=correction, out=out)
    dims, keepdim, c, g = _var_args("var", input, dim, unbiased, keepdim, correction)
    if isinstance(out, Tensor) and out.dtype is not input.dtype and out.dtype.is_floating_point:
        input = cast(input, out.dtype)  # torch computes in out's dtype
    result = Var.apply(input, dims=dims, keepdim=keepdim, correction=c, grad_dof=g)
    _keep_given(result, dim, unbiased, correction)
    return _out(result, out)


def std(
    input=REQUIRED, dim=_MISSING, unbiased=_MISSING, keepdim=_MISSING, *extra, correction=None,
    out=None,
):  # fmt: skip
    """Standard deviation over dims with Bessel's correction by default. Mirrors torch.std."""
    if out is None and not extra:  # NOTE [ The no-grad fast path ]
        plain = _plain_stat(Std, input, dim, unbiased, keepdim, correction)
        if plain is not None:
            return plain[0]
    if extra:  # (input REQUIRED, extra: torch's parser wording, as sum's)
        args = (input, dim, unbiased, keepdim, *extra)
        raise extra_positional_error("std", args, correction=correction, out=out)
    dims, keepdim, c, g = _var_args("std", input, dim, unbiased, keepdim, correction)
    if isinstance(out, Tensor) and out.dtype is not input.dtype and out.dtype.is_floating_point:
        input = cast(input, out.dtype)  # torch computes in out's dtype
    result = Std.apply(input, dims=dims, keepdim=keepdim, correction=c, grad_dof=g)
    _keep_given(result, dim, unbiased, correction)
    return _out(result, out)


def _keep_given(result, dim, unbiased, correction):
    """Keeps var's/std's arguments as given on result's node, for its grad_fn._saved_dim and
    _saved_correction: torch's dim overload turns unbiased (True by default) into a correction
    of 1 or 0; the one-argument call (no dim, no correction) saves None."""
    node = result._grad_fn
    if node is None:
        return
    node.given_dim = None if dim is _MISSING or dim.__class__ is bool else dim  # (_mean_dim)
    if correction is None:
        if isinstance(dim, bool):  # var(x, unbiased)
            correction = int(dim)
        elif unbiased.__class__ is bool:  # (not _MISSING: not given)
            correction = int(unbiased)
        elif dim is not _MISSING:
            correction = 1
    node.given_correction = correction


def _no_overload(op, input, dim, unbiased, keepdim, correction, unknown):
    """torch's parser TypeError for var_mean/std_mean given a keyword none of their overloads
    has (out=, which their docs list)."""
    named = (("input", input), ("dim", dim), ("unbiased", unbiased), ("keepdim", keepdim))
    named = (*named, ("correction", correction), *unknown.items())
    given = [(n, v) for n, v in named if v is not _MISSING and (v is not None or n == "dim")]
    return overload_error(op, *OVERLOADS[op], given, unknown=tuple(unknown))


def var_mean(
    input, dim=_MISSING, unbiased=_MISSING, keepdim=_MISSING, *, correction=None, **unknown
):  # fmt: skip
    """(var, mean) over dims. Mirrors torch.var_mean (which takes no out=, though its docs list
    one: a TypeError there too)."""
    if not unknown:  # NOTE [ The no-grad fast path ]: the general route's kernels, no nodes
        plain = _plain_stat(Var, input, dim, unbiased, keepdim, correction, welford=True)
        if plain is not None:
            first, dims, keepdim = plain
            m = mean(input, None if dim is _MISSING else dim, keepdim)
            _welford_mean(input, m, dims)
            return first, m
    if unknown:
        raise _no_overload("var_mean", input, dim, unbiased, keepdim, correction, unknown)
    # var's work under this op's name (its list-input TypeError and dof warning say var_mean)
    dims, keepdim, c, g = _var_args("var_mean", input, dim, unbiased, keepdim, correction)
    v = Var.apply(input, dims=dims, keepdim=keepdim, correction=c, grad_dof=g, welford=True)
    m = mean(input, _mean_dim(dim), keepdim)
    _welford_mean(input, m, dims)
    # torch computes both in one kernel: one node (VarMeanBackward0) with two outputs
    _keep_given(v, dim, unbiased, correction)
    inner = {"inner": v._grad_fn}  # its grad_fn._saved_<name>: var's node's
    return as_node((v, m), "VarMeanBackward0", (input,), saved=(input,), attrs=inner)


def _welford_mean(input, m, dims) -> None:
    """var_mean's and std_mean's mean m of input over dims (None: all) made torch's where it is
    not finite. torch's kernel keeps Welford's running mean, m += (x - m) / k: it does not
    overflow where the sum does (the mean of [1e308, 1e308] is 1e308), and an infinite mean
    turns to nan at the next element (inf + (x - inf) / k): the mean is +-inf only where a
    slice's last element is its one infinity, else nan. Finite means are left as mean() gave
    them. On the CPU only: elsewhere the check would read device data back (the plain mean's
    inf stays)."""
    if input._device is not cpu:
        return
    xp = input._device.backend.xp
    out = m._data
    if xp.isfinite(out).all():  # (the common case: one pass over the outputs)
        return
    x = input._data
    red = tuple(range(x.ndim)) if dims is None else tuple(dims)
    n = _numel(x.shape, dims)
    if n == 0:  # (an empty slice's nan is torch's too)
        return
    x = x.astype(_accumulate_dtype(x) or "float64")  # (float32: in double, as torch's)
    scaled = xp.add.reduce(x / n, axis=red, keepdims=True)  # (each term below max / n)
    infs = xp.isinf(x)
    count = xp.add.reduce(infs, axis=red, keepdims=True)
    last = x[tuple(slice(-1, None) if i in red else slice(None) for i in range(x.ndim))]
    has_nan = xp.isnan(x).any(axis=red, keepdims=True)
    welford = xp.where(count == 0, scaled, xp.where((count == 1) & xp.isinf(last), last, xp.nan))
    welford = xp.where(has_nan, xp.nan, welford).reshape(out.shape).astype(out.dtype)
    m._data = xp.where(xp.isfinite(out), out, welford)


def _inner_saved(key: str, inner: str | None = None):
    """A show_saved entry: grad_fn._saved_<inner> of the inner node var_mean/std_mean kept."""
    return lambda node: getattr(node.inner, f"_saved_{inner or key}")


_VAR_MEAN_SAVED = ("correction", "dim", "keepdim", "self")
show_saved("VarMeanBackward0", {k: _inner_saved(k) for k in _VAR_MEAN_SAVED})
show_saved(
    "StdMeanBackward0",
    {**{k: _inner_saved(k) for k in _VAR_MEAN_SAVED}, "result0": _inner_saved("result0", "result")},
)


def _mean_dim(dim):
    """The dim var_mean/std_mean hand to mean (None for none given or std_mean(x, unbiased))."""
    return None if dim is _MISSING or isinstance(dim, bool) else dim


def std_mean(
    input, dim=_MISSING, unbiased=_MISSING, keepdim=_MISSING, *, correction=None, **unknown
):  # fmt: skip
    """(std, mean) over dims. Mirrors torch.std_mean (no out=, as var_mean)."""
    if not unknown:  # NOTE [ The no-grad fast path ]: the general route's kernels, no nodes
        plain = _plain_stat(Std, input, dim, unbiased, keepdim, correction, welford=True)
        if plain is not None:
            first, dims, keepdim = plain
            m = mean(input, None if dim is _MISSING else dim, keepdim)
            _welford_mean(input, m, dims)
            return first, m
    if unknown:
        raise _no_overload("std_mean", input, dim, unbiased, keepdim, correction, unknown)
    dims, keepdim, c, g = _var_args("std_mean", input, dim, unbiased, keepdim, correction)
    s = Std.apply(input, dims=dims, keepdim=keepdim, correction=c, grad_dof=g, welford=True)
    # one node with two outputs, as torch's kernel; it saves the input and the std
    out = (s, mean(input, _mean_dim(dim), keepdim))
    _welford_mean(input, out[1], dims)
    _keep_given(s, dim, unbiased, correction)
    inner = {"inner": s._grad_fn}  # its grad_fn._saved_<name>: std's node's
    return as_node(out, "StdMeanBackward0", (input,), saved=(input, s), attrs=inner)


# --- norms ---


def _saved_norm_dim(node):
    """LinalgVectorNormBackward0's _saved_dim: the dims as given (None for all), read back
    unsigned as torch's binding does."""
    dim = node.__dict__.get("given_dim")
    if dim is None:
        return None
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    return tuple(saved_uint64(operator.index(d)) for d in dims)


class LinalgVectorNorm(Function):
    """out = (sum |a|**p)**(1/p) over dims (max |a| for inf, count of non-zeros for 0);
    grad_a = grad * sign(a) |a|**(p-1) / out**(p-1), 0 where a or out is 0 (ties share inf)"""

    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {
        "dim": _saved_norm_dim,
        "keepdim": "keepdim",
        "ord": lambda node: node.__dict__.get("given_ord", node.ord),  # (an int one stays int)
    }

    @staticmethod
    def forward(ctx, a, *, ord, dims, keepdim):
        x = a._data
        xp = ctx.xp
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # (_setup, inlined)
        ctx.ord = ord
        dt = x.dtype
        if dt.itemsize < 4 and opmath_dtype(dt):  # half: in float32, rounded once, as torch
            x = x.astype("float32")
        # |x| only for the orders that use it (the 2-norm of a (1000, 1000) float32 spent a
        # third of its time there); the common order first
        if ord == 2 or ord not in (math.inf, -math.inf, 0, 1):
            if ord == 2:
                out = xp.sqrt(xp.add.reduce(x * x, axis=dims, keepdims=keepdim))
            else:
                out = xp.add.reduce(xp.abs(x) ** ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)
            if out.size == x.size:
                # one element per output: torch's norm is |x| itself, where the power above
                # overflows or underflows (float32 |x| = 1e30 would give inf, 1e-30 gives 0)
                out = xp.abs(x).reshape(out.shape)
        elif ord == math.inf:
            out = xp.abs(x).max(axis=dims, keepdims=keepdim)
        elif ord == -math.inf:
            out = xp.abs(x).min(axis=dims, keepdims=keepdim)
        elif ord == 0:
            out = (x != 0).sum(axis=dims, keepdims=keepdim)
        else:  # 1: the ufunc's reduce, overflow stays silent (NOTE [ Reductions call the ufunc ]
            # in reduction.py)
            out = xp.add.reduce(xp.abs(x), axis=dims, keepdims=keepdim)
        out = row_major(xp, xp.asarray(out, dtype=dt))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import abs, sign, where

        a, out = ctx._stored_tensors
        p = ctx.ord
        g = _keepdim(grad, ctx)
        if p == 0:
            return None
        if p == 1:
            return g * sign(a)
        if p in (math.inf, -math.inf):
            from minitorch._ops.reduction import _tie_weights

            out_k = out._data.reshape(keep_shape(ctx.shape, ctx.dims))
            w = _tie_weights(ctx.xp, ctx.xp.abs(a._data), out_k, ctx.dims, nan_ties=True)
            return g * sign(a) * _const(w, a)
        # NOTE [ Norm gradient at zero ]: torch masks the 0/0 of a zero norm (or of a zero
        # element) to 0 and only then multiplies by the upstream gradient, so a NaN or inf
        # upstream gradient still comes out NaN there (a hand-normalised zero vector
        # x / x.norm() gets NaN, not inf) -- except for p > 1, p != 2, where torch zeroes the
        # scaled gradient itself at a zero norm. The masks below act on the reduced-size
        # gradient (g * 0.0 keeps its NaN) so the full-size work stays what it was.
        out = _keepdim(out, ctx)
        zero_out = out == 0
        if p == 2:
            if opmath_dtype(out._data.dtype):
                # half: torch's masked a / out, each op rounded once; 1 / out would overflow to
                # inf for a norm under 2**-16 (float16) and lose a rounding against torch's
                return g * where(zero_out, 0.0, a / out)
            # g times a masked 1 / out, not g / out masked: a double backward in a at a zero
            # norm still meets the reciprocal's 0 * inf (NaN as torch's), and one in g is the
            # mask's 0 as torch's (so forward mode's tangent of a zero vector's norm is 0)
            return g * where(zero_out, 0.0, 1.0 / out) * a
        # torch's own composition, no safe divisors: a double backward at a zero (element or
        # norm) then meets the same 0 * inf as torch's and gives its NaN (p = 0.5, 1.5, 2.5, -1)
        # or its 0 (p = 3, 4)
        if p < 1:
            scaled = sign(a) * where(a == 0, 0.0, abs(a) ** (p - 1))
            return scaled * g * out ** (1 - p)
        scale = where(zero_out, 0.0, g / out ** (p - 1))
        if p < 2:
            return sign(a) * abs(a) ** (p - 1) * scale
        return a * abs(a) ** (p - 2) * scale


def _ord(ord, op):
    if ord.__class__ is float or ord.__class__ is int:  # the common orders: what follows gives
        return float(ord)
    ord = number(ord)  # a NumPy scalar order (for p in np.arange(1, 4)) as its Python number
    if isinstance(ord, Tensor):  # NOTE [ Number-like arguments ] (a bool one reads as 1.0)
        return float(number_arg(ord, op, "ord"))
    if ord.__class__ is complex:  # torch's Scalar ord takes it; vector_norm then refuses it
        return ord
    if isinstance(ord, str) or isinstance(ord, bool) or not isinstance(ord, (int, float)):
        where = f"argument 'ord'{_at(2, 'ord', op)}"
        raise TypeError(f"{op}(): {where} must be Number, not {type(ord).__name__}")
    return float(ord)


def _check_norm_identity(p, dim, dims, shape):
    """Raise as torch for an inf or negative-order norm over an empty dim (max/min and the sum of
    negative powers have no identity; the other orders give 0)."""
    where = "on an empty tensor because"
    if dims is not None:
        # torch names the first empty dim in the caller's order, as the caller spelled it
        given = (dim,) if isinstance(dim, int) else tuple(dim)
        empty = [g for g in given if shape[operator.index(g) % len(shape)] == 0]
        if not empty:
            return
        where = f"on the dimension {empty[0]}because this dimension is empty and"  # (sic) torch
    raise RuntimeError(
        f"linalg.vector_norm cannot compute the {p:g} norm {where} the operation does not have "
        "an identity"
    )


def _norm_input(x, dtype, op: str):
    """x checked for a norm `op` and cast to `dtype=`: torch takes a floating input and a
    floating dtype it widens to (float16 -> float32 is fine; float64 -> float32 and
    float16 -> bfloat16 narrow, and raise, rather than round the input silently)."""
    try:
        floating = x.dtype.is_floating_point
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor(op.replace(".", "_"), x) from None
    if not floating:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got {_short(x.dtype)}"
        )
    if dtype is None:
        return x
    dt = _dtype.to_dtype(dtype, op.replace(".", "_"))
    if not dt.is_floating_point:
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got {_short(dt)}")
    if _dtype.promote_types(x.dtype, dt) is not dt:
        raise RuntimeError(
            f"{op}: the dtype of the input ({_short(x.dtype)}) should be convertible without "
            f"narrowing to the specified dtype ({_short(dt)})"
        )
    return cast(x, dt)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector p-norm over dims (all by default). Mirrors torch.linalg.vector_norm."""
    p = _ord(ord, "linalg_vector_norm")
    if keepdim.__class__ is not bool:  # (the parser's error: before any other)
        raise flag_error("linalg_vector_norm", "keepdim", keepdim, 4)
    if dtype is not None:  # (its TypeError is the parser's too; its value is checked below)
        _dtype.to_dtype(dtype, "linalg_vector_norm")
    x = _norm_input(x, None, "linalg.vector_norm")
    if p.__class__ is complex:
        raise RuntimeError(
            "linalg.vector_norm: Expected a non-complex scalar as the order of norm."
        )
    data = x._data
    dims = reduce_dims(dim, data.ndim, "linalg_vector_norm", pos=3)
    if data.size == 0 and (p < 0 or p == math.inf):
        _check_norm_identity(p, dim, dims, data.shape)
    if dtype is not None:  # (checked after the dims and the identity, as torch)
        x = _norm_input(x, dtype, "linalg.vector_norm")
    result = LinalgVectorNorm.apply(x, ord=p, dims=dims, keepdim=keepdim)
    if result._grad_fn is not None and ord.__class__ is int:  # (for grad_fn._saved_<name>)
        result._grad_fn.__dict__.update(given_dim=dim, given_ord=ord)
    elif result._grad_fn is not None:
        result._grad_fn.given_dim = dim
    return _norm_out(result, out)


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix norm ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) over two dims. Mirrors
    torch.linalg.matrix_norm."""
    from minitorch._ops.reduction import amax, amin, sum

    A = input  # torch's keyword is `input` (matrix_norm(input=A)); its docs and messages say A
    try:
        nd = A._data.ndim
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("linalg_matrix_norm", input) from None
    if not isinstance(ord, (str, numbers.Number, Tensor)) or not isinstance(dim, (tuple, list)):
        raise _matrix_norm_parse_error(input, ord, dim, keepdim)  # None, a list, an int dim
    if nd < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if ord in ("nuc", 2, -2) and A.dtype in (_dtype.float16, _dtype.bfloat16):
        # the SVD-based orders: refused in half precision even with dtype=float32, as torch
        raise RuntimeError(
            "linalg.matrix_norm: Low precision dtypes not supported. Got "
            f"{_dtype.scalar_name(A.dtype)}"
        )
    A = _norm_input(A, dtype, "linalg.matrix_norm")
    dim = tuple(dim)
    if len(dim) != 2:
        got = " ".join(str(d) for d in dim)
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {got}")
    d0, d1 = (wrap_dim(operator.index(d), A.ndim, "linalg.matrix_norm") for d in dim)
    if ord not in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return _norm_out(vector_norm(A, 2, (d0, d1), keepdim), out, _MATRIX_NORM)
    if ord in ("nuc", 2, -2):
        return _norm_out(_spectral_norm(A, ord, d0, d1, keepdim), out, _MATRIX_NORM)
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    from minitorch._ops.pointwise import abs

    # 1 / -1: the max / min over columns of the column sums; inf / -inf: over rows.
    summed, other = (d0, d1) if ord in (1, -1) else (d1, d0)
    s = sum(abs(A), summed, keepdim)
    if not keepdim and summed < other:
        other -= 1
    # max over an empty dim of non-negative sums is torch's 0 (min has no identity: it raises)
    top = amax if s.shape[other] else sum
    r = (top if ord > 0 else amin)(s, other, keepdim)  # (torch's last node: the amax / amin)
    return _norm_out(r, out, _MATRIX_NORM)


def _matrix_norm_parse_error(input, ord, dim, keepdim):
    """torch's parser error for matrix_norm's arguments that none of its two overloads takes
    (ord None or a list; dim a single int), naming the arguments the call gave."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import overload_error

    rest = "tuple of ints dim = {-2,-1}, bool keepdim = False, *, torch.dtype dtype = None, "
    rest += "Tensor out = None"
    forms = (f"Tensor input, Number ord, {rest}", f'Tensor input, str ord = "fro", {rest}')
    call = call_arguments("linalg_matrix_norm")  # (n positional, keywords), None if unknown
    named = [("input", input)]
    for i, (name, value, default) in enumerate(
        (("ord", ord, "fro"), ("dim", dim, (-2, -1)), ("keepdim", keepdim, False)), 1
    ):
        if call is None:  # told by the value: one at its default was not given
            if not (type(value) is type(default) and value == default):
                named.append((name, value))
        elif call[0] > i or name in call[1]:
            named.append((name, value))
    return overload_error("linalg_matrix_norm", forms, forms, named)


def _spectral_norm(A, ord, d0, d1, keepdim):
    """'nuc' (sum), 2 (largest) or -2 (smallest) of the singular values over dims d0, d1."""
    from minitorch._ops.linalg_factor import linalg_svdvals

    if not A.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
            f"{_short(A.dtype)}"
        )
    s = linalg_svdvals(A.movedim((d0, d1), (-2, -1)))
    # the largest of no singular values is torch's 0, like their sum
    largest = s.amax(-1) if s.shape[-1] else s.sum(-1)
    r = s.sum(-1) if ord == "nuc" else largest if ord == 2 else s.amin(-1)
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.unsqueeze(d)
    return r


def linalg_norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector or matrix norm, chosen by ord and dim. Mirrors torch.linalg.norm."""
    A = input  # as matrix_norm: torch's keyword is `input`
    try:
        nd = A._data.ndim
    except AttributeError:  # a list where a tensor belongs
        raise not_tensor("linalg_norm", input) from None
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        got = ", ".join(str(d) for d in dim)
        raise RuntimeError(
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got [{got}]"
        )
    if dim is None and ord is not None and nd not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{nd}D."
        )
    if isinstance(ord, str) and ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # a string ord is a matrix norm whatever the input or dim: matrix_norm rejects a 1-D input or
    # a 1-tuple dim with torch's messages (rather than vector_norm's TypeError for the ord)
    if isinstance(ord, str) or dim is not None and len(dim) == 2 or dim is None and nd == 2:
        if ord is not None:  # (ord None: torch's vector 2-norm over the dims, and its errors)
            r = matrix_norm(A, ord, dim or (-2, -1), keepdim, dtype=dtype)
            return _norm_out(r, out, "linalg.norm")
    r = vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)  # (torch's 2.0)
    return _norm_out(r, out, "linalg.norm")


_MATRIX_NORM = "linalg.matrix_norm"


def _norm_out(result, out, op=None):
    """out= of the norms, which refuse another dtype: the structured kernels (vector_norm) with
    the usual message, linalg.matrix_norm and linalg.norm with their own."""
    if out is not None and not isinstance(out, Tensor):
        from minitorch._ops.inplace import out_type_error

        # (torch lists linalg.norm's and matrix_norm's overloads here)
        raise out_type_error(out, (op or "linalg.vector_norm").replace(".", "_"))
    if out is not None and out.dtype is not result.dtype:
        if op is None:
            raise _dtype.out_dtype_error(result.dtype, out.dtype)
        raise RuntimeError(
            f"{op} expected out tensor dtype {_dtype.scalar_name(result.dtype)} but got: "
            f"{_dtype.scalar_name(out.dtype)}"
        )
    return _out(result, out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The Frobenius/p-norm of input over dims. Mirrors torch.norm (deprecated in torch)."""
    if (
        p.__class__ is str
        and p == "fro"
        and dim is None
        and keepdim is False
        and out is None
        and dtype is None
        and input.__class__ is Tensor
        and input._data.dtype.kind == "f"
    ):  # the common call, x.norm() of a float16/32/64 x: what vector_norm(x, 2) computes
        result = LinalgVectorNorm.apply(input, ord=2.0, dims=None, keepdim=False)
        if result._grad_fn is not None:  # (for grad_fn._saved_<name>, as vector_norm's)
            result._grad_fn.__dict__.update(given_dim=None, given_ord=2)
        return result
    if isinstance(p, Tensor):  # before the string comparisons: NOTE [ Number-like arguments ]
        p = _ord(p, "linalg_vector_norm")
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc" or (p == "fro" and dim is not None and len(dim) > 2):
        # torch: a matrix norm over the given dims (all of them by default), which must be two
        dims = tuple(range(input.ndim)) if dim is None else dim
        return _norm_out(matrix_norm(input, p, dims, keepdim, dtype=dtype), out)
    if p == "fro" or p is None:
        p = 2
    elif isinstance(p, str):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    try:
        return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)
    except TypeError:
        if isinstance(input, Tensor):
            raise
        # torch.norm is Python code that reads input.layout first: a list gives AttributeError
        raise AttributeError(f"'{type_name(input)}' object has no attribute 'layout'") from None


# --- gathering along a dim (the gradient path of the order statistics) ---


def _full_index(xp, idx, dim, shape):
    """An index tuple that addresses, for each entry of idx, position idx along `dim` of an array
    of `shape` (size-1 axes of shape broadcast against idx)."""
    nd = idx.ndim
    index = []
    for ax in range(nd):
        if ax == dim:
            index.append(idx)
        elif shape[ax] == 1:
            index.append(xp.zeros((1,) * nd, dtype=idx.dtype))
        else:
            index.append(
                xp.arange(shape[ax]).reshape(tuple(-1 if k == ax else 1 for k in range(nd)))
            )
    return tuple(index)


class TakeAlong(Function):
    """out = a gathered along dim at idx (reshaped to out_shape);  grad_a = grad scatter-added
    back at idx"""

    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, a, *, idx, dim, out_shape):
        ctx.idx, ctx.dim, ctx.shape = idx, dim, a._data.shape
        return ctx.xp.take_along_axis(a._data, idx, axis=dim).reshape(out_shape)

    @staticmethod
    def backward(ctx, grad):
        check_watched(ctx)  # idx may be the memory of returned indices (median, mode, cummax)
        return PutAlong.apply(
            grad.reshape(ctx.idx.shape), idx=ctx.idx, dim=ctx.dim, shape=ctx.shape
        )


class PutAlong(Function):
    """out = zeros(shape) with g added along dim at idx (duplicates accumulate);  grad_g = grad
    gathered at idx"""

    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, g, *, idx, dim, shape):
        ctx.idx, ctx.dim, ctx.shape = idx, dim, g._data.shape
        xp = ctx.xp
        out = xp.zeros(shape, dtype=g._data.dtype)
        g._device.backend.scatter_add(out, _full_index(xp, idx, dim, shape), g._data)
        return out

    @staticmethod
    def backward(ctx, grad):
        return TakeAlong.apply(grad, idx=ctx.idx, dim=ctx.dim, out_shape=ctx.shape)


class _EvenlyDistributed:
    """out = the flat a at idx (its median);  grad_a = grad split evenly among the elements equal
    to out (among the NaNs when out is NaN), as torch's median() and nanmedian() do. a is taken
    as it is (not a flattened view), so the node's next function is a's own, as torch's"""

    _saved_names = ("self", "result")  # grad_fn._saved_self, _saved_result (as torch's)

    @staticmethod
    def forward(ctx, a, *, idx, dim, out_shape):
        xp = ctx.xp
        x = a._data
        out = xp.take_along_axis(x.reshape(-1), idx, axis=dim).reshape(out_shape)
        if ctx.needs_input_grad[0]:
            ties = x == out
            if is_floating(x.dtype):
                ties |= xp.isnan(x) & xp.isnan(out)
            ctx.ties = ties
            ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import where

        ctx._stored_tensors  # noqa: B018 - torch's error for a self changed in place since
        ties = ctx.ties
        # a where, not a product with the mask: the unselected entries are +0 as torch's
        # (a negative grad times a 0 mask would give -0)
        return where(_const(ties, grad), grad / _const(ties.sum(), grad), 0.0)


class MedianAll(_EvenlyDistributed, TakeAlong):
    _node_name = "MedianBackward0"


class MedianDim(TakeAlong):
    _node_name = "MedianBackward1"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's): the dim as given, the indices returned
        "dim": saved_arg("saved_dim", wrap=True),
        "indices": saved_watched(0),
        "keepdim": saved_arg("saved_keepdim"),
        "self_sym_sizes": saved_sizes,
    }


class NanmedianAll(_EvenlyDistributed, TakeAlong):
    _node_name = "NanmedianBackward0"


class NanmedianDim(TakeAlong):
    _node_name = "NanmedianBackward1"
    _saved_attrs = MedianDim._saved_attrs


class Mode(TakeAlong):
    _node_name = "ModeBackward0"
    _saved_attrs = MedianDim._saved_attrs


class Quantile(TakeAlong):
    # torch composes quantile from sort, gather and lerp; its node is the final squeeze.
    _node_name = "SqueezeBackward4"


_LAST_DIM = (1 << 64) - 1  # dim -1, as torch's grad_fn._saved_dim reads it back (unsigned)


class QuantileSqueeze(View):
    """quantile's last view, the result seen in its shape: torch's squeeze of the trailing size-1
    dim its composite keeps to the end (SqueezeBackward4 of dim -1, from the result's shape with
    that dim)"""

    _node_name = "SqueezeBackward4"
    _saved_attrs = {
        "dim": lambda node: _LAST_DIM,
        "self_sym_sizes": lambda node: node.out_shape + (1,),
    }

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.out_shape = shape
        return View.forward(ctx, a, shape=shape)


# --- median, mode ---


def stable_argsort(xp, x, dim):
    """argsort keeping equal values in input order (CuPy's only sort, NumPy's kind="stable")."""
    if x.dtype.kind == "V":  # bfloat16 (not dtype.name, microseconds a call)
        x = x.astype("float32")  # exact; NumPy's bfloat16 sort misplaces NaN (it must go last)
    try:
        return xp.argsort(x, axis=dim, kind="stable")
    except (TypeError, ValueError, NotImplementedError):  # CuPy: kind must be None (stable)
        return xp.argsort(x, axis=dim)


def real_kernel(x) -> bool:
    """Whether rank_index takes x: a real or integer dtype (bool and complex go to the sort)."""
    return x.dtype.kind in "fiuV"  # (V: bfloat16)


def rank_index(xp, x, dim, k):
    """The index (keepdim shape) along dim of the element stable_argsort puts at position k:
    equal values in input order, nan last. A host kernel (NumPy's partition, O(n)) giving the
    same answer as the sort (median of a (1000, 1000) float32: 126 ms by the stable sort,
    7 ms so, torch 18; kthvalue and median along a dim alike): the value v at position k, then the
    (k - #(elements sorting before v))-th element equal to v, counted in input order."""
    if x.dtype.kind == "V":  # bfloat16
        x = x.astype("float32")  # exact; NumPy's bfloat16 sort misplaces NaN (as stable_argsort)
    at = tuple(slice(k, k + 1) if i == dim else slice(None) for i in range(x.ndim))
    v = xp.partition(x, k, axis=dim)[at]
    if is_floating(x.dtype):
        # a nan v: the nans are the equal ones, and every other value sorts before them
        v_nan = xp.isnan(v)
        x_nan = xp.isnan(x)
        equal = xp.where(v_nan, x_nan, x == v)
        before = (x < v) | (v_nan & ~x_nan)
    else:
        equal = x == v
        before = x < v
    rank = k - before.sum(axis=dim, keepdims=True)
    if not rank.any():  # (a host read: this kernel is for NumPy) the first equal one
        return xp.argmax(equal, axis=dim, keepdims=True)
    return xp.argmax(equal & (equal.cumsum(axis=dim) == rank + 1), axis=dim, keepdims=True)


@functools.lru_cache(maxsize=64)
def _all_nan_pick(n: int) -> int:
    """The index torch's nanmedian reports for an all-NaN slice of length n.

    torch selects with std::nth_element for position 0 ((0 non-NaN - 1) / 2 in C++), and NaNs
    all compare equivalent, so the answer is wherever libstdc++'s introselect moves elements
    that never compare less: each round swaps the middle element to the front, then its
    partition swaps inward from both ends until they cross; slices of 3 or fewer are
    insertion-sorted, which moves nothing (n = 4 gives 2, 7 gives 5)."""
    order = list(range(n))
    last = n
    while last > 3:
        mid = last // 2
        order[0], order[mid] = order[mid], order[0]
        lo, hi = 1, last
        while True:
            hi -= 1
            if lo >= hi:
                break
            order[lo], order[hi] = order[hi], order[lo]
            lo += 1
        last = lo  # the cut is past position 0: the search goes on below it
    return order[0]


def _median_index(xp, x, dim, ignore_nan, host):
    """The index (keepdim shape) of the lower median along dim, torch's choice among equals."""
    n = x.shape[dim]
    nan = xp.isnan(x) if is_floating(x.dtype) else None
    if host and real_kernel(x) and not (ignore_nan and nan is not None and nan.any()):
        # (host reads: NumPy only) without nans nanmedian's k is median's for every slice
        idx = rank_index(xp, x, dim, (n - 1) // 2)
        if nan is not None and not ignore_nan:  # median propagates nan: the first nan
            idx = xp.where(
                nan.any(axis=dim, keepdims=True), xp.argmax(nan, axis=dim, keepdims=True), idx
            )
        return idx
    perm = stable_argsort(xp, x, dim)  # nan sorts last
    if ignore_nan and nan is not None:
        k = xp.maximum(((~nan).sum(axis=dim, keepdims=True) - 1) // 2, 0)
        idx = xp.take_along_axis(perm, k, axis=dim)
        if n > 3:  # shorter slices are insertion-sorted, which keeps position 0 first
            idx = xp.where(nan.all(axis=dim, keepdims=True), _all_nan_pick(n), idx)
        return idx
    k = (n - 1) // 2
    idx = perm[tuple(slice(k, k + 1) if i == dim else slice(None) for i in range(x.ndim))]
    if nan is not None:  # median propagates nan: the first nan is the answer
        idx = xp.where(
            nan.any(axis=dim, keepdims=True), xp.argmax(nan, axis=dim, keepdims=True), idx
        )
    return idx


def _order_stat(op, input, dim, keepdim, index_fn, all_fn, dim_fn, ret):
    try:
        x = input._data
    except AttributeError:  # torch.median(list_of_predictions): zero-cost when a tensor
        raise not_tensor(op, input) from None
    xp = input._device.backend.xp
    if x.dtype.kind == "b" and op != "mode" and (x.size != 0 or dim is not None):
        # torch's dim and empty checks come first: an empty bool tensor's median is True (NaN
        # cast), along an empty dim it is the IndexError
        if dim is not None:
            wrap_dim(dim, x.ndim, op, "dim", 2)
        if x.size == 0:
            _check_nonempty(x, (wrap_dim(dim, x.ndim, op, "dim", 2),), "median")
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if dim is None:
        if x.size == 0:
            if input._requires_grad and is_floating(x.dtype):
                # torch's NaN, still attached to the graph by its own node (MedianBackward0)
                return as_node(input.sum() * math.nan, all_fn._node_name, (input,))
            if is_floating(x.dtype):
                return _const(xp.asarray(math.nan, dtype=x.dtype), input)
            # torch's NaN cast to an integer dtype, as its CPU cast gives it (int32's and
            # int64's minimum, 0 for the narrower types, True)
            value = xp.asarray([math.nan], dtype="float32").astype(x.dtype)
            return _const(value.reshape(()), input)
        idx = index_fn(xp, x.reshape(-1), 0, input._device.type == "cpu")
        return all_fn.apply(input, idx=idx, dim=0, out_shape=())
    d = wrap_dim(dim, x.ndim, op, "dim", 2)  # torch's TypeError for a float or bool dim
    if keepdim.__class__ is not bool:
        raise flag_error(op, "keepdim", keepdim, 3)
    if x.ndim == 0:
        one = input.reshape((1,))
        idx = xp.zeros((1,), dtype=_dtype.int64.np)
        values = dim_fn.apply(one, idx=idx, dim=0, out_shape=())
        indices = _const(xp.zeros((), dtype=_dtype.int64.np), input)
        return ret(_watched_pair(values, indices, saved_dim=d, saved_keepdim=keepdim))
    # nanmedian's message names median, as torch's shared check does
    _check_nonempty(x, (d,), "median" if op == "nanmedian" else op)
    idx = index_fn(xp, x, d, input._device.type == "cpu")
    out_shape = idx.shape if keepdim else tuple(s for i, s in enumerate(idx.shape) if i != d)
    values = dim_fn.apply(input, idx=idx, dim=d, out_shape=out_shape)
    indices = _const(xp.asarray(idx.reshape(out_shape), dtype=_dtype.int64.np), input)
    # (grad_fn._saved_dim: the dim as given, negative too)
    saved = {"saved_dim": operator.index(dim), "saved_keepdim": keepdim}
    return ret(_watched_pair(values, indices, **saved))


def flag_error(op: str, name: str, value, pos: int | None = None) -> TypeError:
    """torch's TypeError for a bool argument (at position `pos` of the function) given something
    else (an int, None, numpy.bool): its parser takes only a Python bool there."""
    return wrong_type(op, value, name, pos, "bool")


def _all_or_dim(op: str, dim, keepdim):
    """median's (dim, keepdim): no dim (the default, spelled _MISSING) reduces all elements; an
    explicit None, or a keepdim without a dim, is torch's TypeError, as its overloads are (input)
    and (input, int dim, bool keepdim=False, ...) (NOTE [ keepdim without dim ] in reduction.py)."""
    if dim is _MISSING:
        if keepdim is not _MISSING:
            raise missing_positional(op, "dim")
        return None, False
    if dim is None:
        raise wrong_type(op, dim, "dim", 2, "int")
    return dim, False if keepdim is _MISSING else keepdim


def _watched_pair(values: Tensor, indices: Tensor, **saved) -> tuple:
    """(values, indices), values' node refusing a backward once the returned indices changed in
    place, as torch's, which saves them (NOTE [ Watched index tensors ]); `saved`: the
    arguments its grad_fn._saved_<name> shows (see saved_arg)."""
    if values._grad_fn is not None:
        watch_index(values._grad_fn, indices)
        values._grad_fn.__dict__.update(saved)
    return values, indices


def median(input, dim=_MISSING, keepdim=_MISSING, *, out=None):
    """The lower median (of all elements, or along dim with its index). Mirrors torch.median."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(median, (input, dim, keepdim), {"out": out})
    dim, keepdim = _all_or_dim("median", dim, keepdim)
    if out is not None:
        _check_median_out("median", input, dim, out)
        outs_apart(input, out)
    r = _order_stat(
        "median",
        input,
        dim,
        keepdim,
        lambda xp, x, d, host: _median_index(xp, x, d, False, host),
        MedianAll,
        MedianDim,
        return_types.median,
    )
    return _out_pair(r, out)


def nanmedian(input, dim=_MISSING, keepdim=_MISSING, *, out=None):
    """median ignoring nan (nan only where a slice is all nan). Mirrors torch.nanmedian."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(nanmedian, (input, dim, keepdim), {"out": out})
    dim, keepdim = _all_or_dim("nanmedian", dim, keepdim)
    if out is not None:
        _check_median_out("nanmedian", input, dim, out)
        outs_apart(input, out)
    r = _order_stat(
        "nanmedian",
        input,
        dim,
        keepdim,
        lambda xp, x, d, host: _median_index(xp, x, d, True, host),
        NanmedianAll,
        NanmedianDim,
        return_types.nanmedian,
    )
    return _out_pair(r, out)


def _check_median_out(op, input, dim, out):
    """torch's checks of median's and nanmedian's out=: only the dim form takes one; the indices
    must be int64 (checked first), the values of input's dtype (both messages say median);
    the dim before either."""
    if dim is None:  # torch's argument parser: the all-elements form has no out=
        raise missing_positional(op, "dim")
    from minitorch._ops.inplace import check_out_tuple

    check_out_tuple(out, 2, op, 3)
    if isinstance(input, Tensor):  # (and an empty dim's IndexError)
        x = input._data
        d = wrap_dim(dim, x.ndim, op, "dim", 2)
        if not x.size:
            _check_nonempty(x, (d,), "median")
    values, indices = out
    if indices.dtype is not _dtype.int64:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
            f"{_dtype.checked_type_name(indices)} instead (while checking arguments for median)"
        )
    if values.dtype is not input.dtype:
        raise RuntimeError(
            "Expected tensor for 'values' to have the same type as tensor for argument #2 "
            f"'self'; but type {_dtype.checked_type_name(values)} does not equal "
            f"{_dtype.checked_type_name(input)} (while checking arguments for median)"
        )


def _check_mode_out(input, out):
    """torch's checks of mode's out=: the values of input's dtype (checked first), int64
    indices."""
    from minitorch._ops.inplace import check_out_tuple

    check_out_tuple(out, 2, "mode", 3)
    for t, want, what in ((out[0], input.dtype, "values"), (out[1], _dtype.int64, "indices")):
        if t.dtype is not want:
            raise RuntimeError(
                f"expected scalar type '{_short(want)}' but got '{_short(t.dtype)}' for {what} "
                "output"
            )


def resize_index_outs(outs, input, dim, keepdim: bool, unsqueeze) -> None:
    """The checked out= pair of kthvalue or mode resized as torch's kernels resize it before
    they write: with keepdim False, an out for which unsqueeze(out.ndim, dim) holds is
    unsqueezed at dim first, each is resized to the keepdim shape (the deprecation warning
    names those two shapes, not out's and the result's) and squeezed back. kthvalue unsqueezes
    an out of one dim fewer than input, mode any out of at least dim dims."""
    from minitorch._ops.inplace import warn_resized

    shape = list(input.shape)
    dim = wrap_dim(dim, len(shape))
    if shape:
        shape[dim] = 1
    final = shape if keepdim or not shape else shape[:dim] + shape[dim + 1 :]
    for o in outs:
        had = list(o.shape)
        if shape and not keepdim and unsqueeze(len(had), dim):
            had.insert(dim, 1)
        if had != shape:
            warn_resized(o, shape, had)
        if list(o.shape) != final:
            o.resize_(final)


def outs_apart(input, outs) -> None:
    """torch's RuntimeError for out= tensors sharing any memory with input (mode, median,
    topk: values and indices; kthvalue: its values). Skipped where an operand requires grad:
    torch's refusal of out= with autograd comes first (write_out raises it)."""
    from minitorch._ops.inplace import check_partial_overlap

    if not isinstance(input, Tensor) or not isinstance(outs, (tuple, list)):
        return
    outs = [o for o in outs if isinstance(o, Tensor)]  # (`any` is this module's op)
    if state.enabled and (input._requires_grad or [o for o in outs if o._requires_grad]):
        return
    for o in outs:
        check_partial_overlap(o, input, same_ok=False)


def _out_pair(r, out):
    if out is None:
        return r
    if isinstance(r, Tensor):
        return _out(r, out)
    _out(r[0], out[0])
    _out(r[1], out[1])
    if isinstance(r, return_types._StructSeq):  # torch.return_types.median_out & co
        return return_types.out_type(type(r))(tuple(out))
    return type(r)(out)


def _mode_index(xp, x, dim, host):
    """The index (keepdim shape) of the most frequent value along dim: the smallest such value,
    at its last occurrence (as torch)."""
    n = x.shape[dim]
    perm = stable_argsort(xp, x, dim)
    s = xp.take_along_axis(x, perm, axis=dim)

    def part(sl):
        return tuple(sl if k == dim else slice(None) for k in range(x.ndim))

    change = s[part(slice(1, None))] != s[part(slice(None, -1))]
    edge = xp.ones(tuple(1 if k == dim else m for k, m in enumerate(x.shape)), dtype=bool)
    starts = xp.concatenate([edge, change], axis=dim)
    ends = xp.concatenate([change, edge], axis=dim)
    pos = xp.arange(n).reshape(tuple(-1 if k == dim else 1 for k in range(x.ndim)))
    from minitorch._ops.cumulative import running_extreme

    run_start = xp.broadcast_to(xp.where(starts, pos, 0), x.shape)
    if host:  # NumPy's sequential running max (CuPy's maximum has no accumulate)
        run_start = xp.maximum.accumulate(run_start, axis=dim)
    else:
        run_start, _ = running_extreme(xp, run_start, dim, "max")
    count = xp.where(ends, pos - run_start + 1, 0)
    best = xp.argmax(count, axis=dim, keepdims=True)  # first maximum: the smallest value
    return xp.take_along_axis(perm, best, axis=dim)


def mode(input, dim=-1, keepdim=False, *, out=None):
    """The most frequent value along dim and its index. Mirrors torch.mode.

    Differences from torch: the index is the tied value's last occurrence. torch's CPU kernel
    takes the last of its run after an unstable sort, which is the last occurrence only up to
    16 elements along dim; with NaNs its value and index are whatever that sort leaves."""
    if dim is None:  # (None would read as all elements below, an overload mode lacks)
        raise wrong_type("mode", dim, "dim", 2, "int")
    if out is not None:
        _check_mode_out(input, out)
        outs_apart(input, out)
    r = _order_stat("mode", input, dim, keepdim, _mode_index, Mode, Mode, return_types.mode)
    if out is not None and input.numel():
        if input.ndim:  # (its kernel's resizing; a 0-d input's outs are resized silently)
            resize_index_outs(out, input, dim, keepdim, lambda n, d: n >= d)
        else:
            for o in out:
                o.resize_(())
    return _out_pair(r, out)


# --- quantiles ---

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_overload_error(
    op, input, q, dim, keepdim, interpolation, out, unknown=None, extra=()
) -> TypeError:
    """torch's TypeError for quantile arguments none of its overloads take, as the call was
    written (function or method, keywords); an argument left at its default counts as not
    given unless the call passed it (by keyword or by position). unknown: the keywords quantile
    has not (NumPy's method="higher"); extra: positional arguments past keepdim (interpolation
    given by position)."""
    from minitorch._call_site import passed_by_keyword

    count = positional_count(op) or 0

    def given(name, value, default, position=None):  # (position: None for keyword-only)
        by_position = position is not None and position < count
        return value is not default or by_position or passed_by_keyword(name, op)

    named = [(n, v) for n, v in (("input", input), ("q", q)) if v is not REQUIRED]
    named += [("dim", dim)] if extra or given("dim", dim, None, 2) else []
    named += [("keepdim", keepdim)] if extra or given("keepdim", keepdim, False, 3) else []
    named += [(f"#{i}", v) for i, v in enumerate(extra)]  # (names no call passes by keyword)
    interpolated = interpolation != "linear" or passed_by_keyword("interpolation", op)
    named += [("interpolation", interpolation)] if interpolated else []
    named += [("out", out)] if given("out", out, None) else []
    named += list((unknown or {}).items())
    return overload_error(op, *OVERLOADS["quantile"], named, unknown=unknown or ())


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan, out):
    """quantile's and nanquantile's work; `op` names them in the TypeErrors only: torch's
    RuntimeErrors say quantile() for both."""
    from minitorch._ops.pointwise import where
    from minitorch._ops.pointwise_binary import Lerp

    try:
        x = input._data
    except AttributeError:  # torch.quantile(list_of_scores, 0.9): the forgotten stack
        raise _quantile_overload_error(op, input, q, dim, keepdim, interpolation, out) from None
    xp = input._device.backend.xp
    if (
        keepdim.__class__ is not bool
        or (dim is not None and not hasattr(dim, "__index__"))
        or not isinstance(interpolation, str)  # (a str subclass too: numpy.str_)
        or not (out is None or isinstance(out, Tensor))
    ):
        # (dim=(1, 2) as for mean: torch's parser takes one int only; interpolation=None; a
        # tuple out=)
        raise _quantile_overload_error(op, input, q, dim, keepdim, interpolation, out)
    scalar_q = not isinstance(q, Tensor)
    if scalar_q and not isinstance(q, numbers.Real):
        # q as a NumPy array or a list of levels: torch takes only a number or a tensor (checked
        # before the input's dtype, as torch's argument parser does)
        raise _quantile_overload_error(op, input, q, dim, keepdim, interpolation, out)
    # torch's order: a number q's range (its own overload), the interpolation, then the input's
    # size, q's dims, the input's dtype and q's
    if scalar_q and not 0 <= q <= 1:
        # (torch's message says quantile() for nanquantile too)
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {float(q):g}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    if x.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if not scalar_q and q.ndim > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if x.dtype.kind != "f" or x.dtype.itemsize < 4:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if scalar_q:
        qv = xp.asarray([q], dtype=x.dtype)
    else:
        if q._data.dtype != x.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q._device is not input._device:
            raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")
        qv = q._data.reshape(-1)
    if isinstance(out, Tensor):
        # torch refuses to cast into out or copy across devices (checked before the dim, after
        # the checks above)
        if out.dtype is not input.dtype:
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        if out._device is not input._device:
            raise RuntimeError(
                "quantile() out tensor must be on the same device as the input tensor"
            )
    nd = x.ndim
    if dim is not None:
        d = wrap_dim(operator.index(dim), nd, op)
    # reading q's values is a device read on a GPU: checked on the CPU only (see Differences);
    # last, as torch checks them
    if not scalar_q and q._device.type == "cpu" and not ((qv >= 0) & (qv <= 1)).all():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    # torch's sort-based kernel refuses more than 2**24 values along the reduced dim (the whole
    # tensor when dim is None); checked before the flattening reshape, which may copy
    if (x.size if dim is None or nd == 0 else x.shape[d]) > 2**24:
        raise RuntimeError("quantile() input tensor is too large")  # (sic) for nanquantile too
    if dim is None:
        a, d = input.reshape((-1,)), 0
    else:
        a = input.reshape((1,)) if nd == 0 else input
    data = a._data
    perm = stable_argsort(xp, data, d)[None]  # a leading axis for the q values
    nan = xp.isnan(data)[None]
    n_valid = (~nan).sum(axis=d + 1, keepdims=True) if ignore_nan else data.shape[d]
    qs = qv.reshape((-1,) + (1,) * data.ndim)
    scale = xp.asarray(n_valid, dtype=x.dtype) - 1
    rank = qs * scale
    # torch's ranks: quantile takes a slice holding NaN at its last sorted place (a NaN, which
    # takes the gradient as median's does); nanquantile's all-NaN slices (rank < 0) at place 0.
    # Those ranks are constants, so q's gradient there is 0 (NaN from a rank of -0.)
    fixed = nan.any(axis=d + 1, keepdims=True) if not ignore_nan else rank < 0
    rank = xp.where(fixed, data.shape[d] - 1 if not ignore_nan else 0, rank)
    if interpolation == "nearest":
        rank = xp.round(rank)  # half to even, as torch
    lo = xp.floor(rank)
    hi = xp.ceil(rank) if interpolation != "lower" else lo
    if interpolation == "higher":
        lo = hi
    lo_i, hi_i = lo.astype(_dtype.int64.np), hi.astype(_dtype.int64.np)
    expanded = a.reshape((1,) + data.shape)
    keep = tuple(qs.shape[:1]) + tuple(1 if k == d else s for k, s in enumerate(data.shape))
    v_lo = Quantile.apply(
        expanded, idx=xp.take_along_axis(perm, lo_i, axis=d + 1), dim=d + 1, out_shape=keep
    )
    if interpolation in ("linear", "midpoint"):
        v_hi = Quantile.apply(
            expanded, idx=xp.take_along_axis(perm, hi_i, axis=d + 1), dim=d + 1, out_shape=keep
        )
        w = rank - lo if interpolation == "linear" else xp.full_like(rank, 0.5)
        w = xp.asarray(w, dtype=x.dtype)
        w_t = _const(w, input)
        if interpolation == "linear" and not scalar_q and q._requires_grad:
            # linear is the one mode whose weight is q's: torch's (q * scale - floor) under the
            # fixed ranks' mask (the other modes round the rank, cutting q off the graph)
            w_t = where(
                _const(fixed, input),
                w_t,
                q.reshape(qs.shape) * _const(scale, input) - _const(lo, input),
            )
        # torch's lerp, as torch composes quantile: its two-sided formula (from the nearer end)
        # decides the last bit for finite data and nan / inf for infinite ends, and its backward
        # gives grad * (1 - w) and grad * w as single products, so an infinite upstream
        # gradient reaches both neighbours as inf (a sum grad - w * grad would give nan)
        result = Lerp.apply(v_lo, v_hi, w_t)
    else:
        result = v_lo
    shape = list(result.shape)
    if dim is None:
        shape = shape[:1] + ([1] * nd if keepdim else [])
    elif not keepdim or nd == 0:
        del shape[d + 1]
    if scalar_q or q.ndim == 0:  # a 0-d q tensor gives a result without a q dim, as a number
        shape = shape[1:]
    # torch's last step squeezes a trailing dim: SqueezeBackward4 always
    return QuantileSqueeze.apply(result, shape=tuple(shape))


def _quantile_out(result, out):
    """torch's quantile is composite: its out= is resize_ and copy_, so out joins the graph."""
    if out is None:
        return result
    from minitorch._ops.inplace import copy_out

    return copy_out(out, result, "quantile")


def quantile(
    input=REQUIRED,
    q=REQUIRED,
    dim=None,
    keepdim=False,
    *extra,
    interpolation="linear",
    out=None,
    **kwargs,
):
    """The q-th quantiles (q a number or 1-d tensor) over dim or all. Mirrors torch.quantile.

    Differences from torch: on a GPU the range of a tensor q is not checked (that reads the
    device; out-of-range values give wrong results instead of torch's error).
    """
    if extra or kwargs or q is REQUIRED:  # (method="higher", q left out: overloads listed)
        args = (input, q, dim, keepdim, interpolation, out, kwargs, extra)
        raise _quantile_overload_error("quantile", *args)
    if _autocast.state.any_enabled:
        return _autocast.call(
            quantile,
            _autocast.FP32_CPU,
            (input, q, dim, keepdim),
            {"interpolation": interpolation, "out": out},
        )
    if q.__class__ is not Tensor and dispatching(q):  # a subclass q: NOTE [ Tensor subclasses ]
        kwargs = {"interpolation": interpolation, "out": out}
        return run_converted(quantile, (input, q, dim, keepdim), kwargs)
    r = _quantile("quantile", input, q, dim, keepdim, interpolation, False, out)
    return _quantile_out(r, out)


def nanquantile(
    input=REQUIRED,
    q=REQUIRED,
    dim=None,
    keepdim=False,
    *extra,
    interpolation="linear",
    out=None,
    **kwargs,
):
    """quantile ignoring nan values. Mirrors torch.nanquantile.

    Differences from torch: as quantile's (a tensor q's range is checked on the CPU only).
    """
    if extra or kwargs or q is REQUIRED:
        args = (input, q, dim, keepdim, interpolation, out, kwargs, extra)
        raise _quantile_overload_error("nanquantile", *args)
    if _autocast.state.any_enabled:
        return _autocast.call(
            nanquantile,
            _autocast.FP32_CPU,
            (input, q, dim, keepdim),
            {"interpolation": interpolation, "out": out},
        )
    if q.__class__ is not Tensor and dispatching(q):  # a subclass q: NOTE [ Tensor subclasses ]
        kwargs = {"interpolation": interpolation, "out": out}
        return run_converted(nanquantile, (input, q, dim, keepdim), kwargs)
    r = _quantile("nanquantile", input, q, dim, keepdim, interpolation, True, out)
    return _quantile_out(r, out)
