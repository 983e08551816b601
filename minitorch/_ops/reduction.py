"""Reductions: sum, mean, prod, max/min (with indices), amax/amin, argmax/argmin, logsumexp."""

from __future__ import annotations

import math
import operator

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, return_types
from minitorch._arg_errors import (
    REQUIRED,
    missing_positional,
    too_many_positional,
    unexpected_keyword,
)
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    LazyImport,
    cast,
    check_int,
    check_tensors,
    int_list,
    is_floating,
    is_index,
    no_overload,
    not_tensor,
    opmath_dtype,
    quiet,
    quiet_extreme,
    row_major,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops.indexing import saved_sizes, saved_watched
from minitorch._ops.shape import Expand
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch.autograd import engine
from minitorch.autograd.function import (
    Function,
    check_watched,
    fast_path,
    plain_result,
    record_unary,
    saved_uint64,
    scalar_node,
    watch_index,
)
from minitorch.autograd.grad_mode import state as _grad_state

# the parser's error messages, loaded at the first error (not with `import minitorch`)
_errors = LazyImport("minitorch._ops._parser_errors")
_CPU_XP = _CPU.backend.xp  # the no-grad fast paths' kernels (NOTE [ The no-grad fast path ])
_CPU_NULL_CTX = _CPU.backend.null_ctx  # the ctx Function.apply gives a forward recording nothing
_CPU_EXTREMES = {"max": _CPU_XP.maximum, "min": _CPU_XP.minimum}  # ndarray.max's and .min's

# fmt: off
__all__ = [
    "sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin",
    "logsumexp", "nansum", "nanmean",
]
# fmt: on

_MISSING = object()


# --- dims and shapes ---


def reduce_dims(
    dim, ndim: int, op: str, empty_means_all: bool = True, pos: int | None = 2, in_order=False
):
    """A reduction's dim argument (the op's argument `pos`) as a sorted tuple of axes, or None
    for every axis.

    torch reads `dim=[]` / `dim=()` as "every dim" for sum/mean-like ops; a 0-d tensor accepts
    dim 0 and -1 and reduces over nothing, which is also returned as None here. A dim listed
    twice is an error, found after wrapping them all, or (in_order: var, std, nansum, as
    torch's) dim by dim: (0, -2, -3) of a 2-d tensor is then the repeated 0, not the -3.
    """
    if dim is None:
        return None
    # The common spellings, already normalized: one int in range, an increasing tuple of them.
    if dim.__class__ is int:
        if -ndim <= dim < ndim:
            return (dim % ndim,)
    elif dim.__class__ is tuple and dim and ndim:
        prev = -1
        for d in dim:
            if d.__class__ is not int or d <= prev or d >= ndim:
                break
            prev = d
        else:
            return dim
    if isinstance(dim, (list, tuple)):
        # torch's int[] wording for a bad element: its type when the first, else "failed to
        # unpack" (an int-like one-element tensor is an int there)
        dims = int_list(dim, op, "dim", pos)
        if not dims:
            return None if empty_means_all else ()
        if not in_order:
            dims = tuple(wrap_dim(d, ndim, op) for d in dims)
        seen = set()
        for d in dims:
            if in_order:
                d = wrap_dim(d, ndim, op)
            if d in seen:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
            seen.add(d)
        dims = tuple(seen)
    else:
        dims = (wrap_dim(_as_int(dim, op, pos), ndim, op),)
    return None if ndim == 0 else tuple(sorted(dims))


def _as_int(d, op, pos=2):
    if isinstance(d, bool) or isinstance(d, float):
        raise wrong_type(op, d, "dim", pos, "tuple of ints")
    try:
        return operator.index(d)
    except TypeError:
        raise wrong_type(op, d, "dim", pos, "tuple of ints") from None


def keep_shape(shape, dims):
    """The reduced shape with the reduced dims kept as size 1 (to broadcast grads back)."""
    if dims is None:
        return (1,) * len(shape)
    if len(dims) == 1:  # (a loss's dim=1: no generator frame)
        d = dims[0]
        return shape[:d] + (1,) + shape[d + 1 :]
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _numel(shape, dims) -> int:
    """The number of elements reduce_dims' dims (None: all) take in."""
    if dims is None:
        return math.prod(shape)
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _drop(shape, dims):
    """The reduced shape without keepdim."""
    if dims is None:
        return ()
    if len(dims) == 1:
        d = dims[0]
        return shape[:d] + shape[d + 1 :]
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _unreduced(grad, ctx):
    """A reduction's output gradient (a Tensor or an array) with its reduced dims back as size 1,
    ready to broadcast against the input: reduced leading dims (or all dims) need no reshape,
    broadcasting puts them back."""
    dims = ctx.dims
    if ctx.keepdim or dims is None or dims == tuple(range(len(dims))):
        return grad
    return grad.reshape(keep_shape(ctx.shape, dims))


def expand_back(grad: Tensor, ctx) -> Tensor:
    """A reduction's output gradient broadcast back over the input shape `ctx.shape`."""
    return Expand.apply(_unreduced(grad, ctx), shape=ctx.shape)


def _expand_back_data(grad, ctx):
    """expand_back on arrays (NOTE [ Data-level backward ]): a read-only broadcast view."""
    return ctx._out_device.backend.broadcast_to(_unreduced(grad, ctx), ctx.shape)


def _keepdim_data(grad, ctx):
    """_keepdim on arrays."""
    if ctx.keepdim or grad.ndim == len(ctx.shape):
        return grad
    return grad.reshape(keep_shape(ctx.shape, ctx.dims))


def _keepdim(grad: Tensor, ctx) -> Tensor:
    """The gradient with reduced dims kept as size 1 (broadcastable against the input)."""
    if ctx.keepdim or grad._data.ndim == len(ctx.shape):
        return grad
    return grad.reshape(keep_shape(ctx.shape, ctx.dims))


def _const(arr, like: Tensor) -> Tensor:
    return _make(arr, like._device, False, None)


def _dim_aliases(dim, keepdim, axis, keepdims):
    """torch accepts NumPy's axis=/keepdims= spellings on its reductions."""
    if axis is not None:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return dim, keepdim


def _accumulate_dtype(x):
    """Half-precision floats (float16, bfloat16) are summed in float32, as torch accumulates
    them."""
    return opmath_dtype(x.dtype)


def no_integral_grad(input, dt) -> None:
    """torch refuses to record an integral or bool result of an input that requires grad (sum,
    prod, cumsum... with dtype=int64), where a cast (.long()) just leaves the graph."""
    if not (dt.is_floating_point or dt.is_complex) and input.requires_grad:
        from minitorch.autograd.grad_mode import state

        if state.enabled:
            raise RuntimeError(f"Autograd not support dtype: {_dtype.scalar_name(dt)}")


def _out(result, out):
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


# NOTE [ Reduction out= dtypes ]
# torch's reductions treat out='s dtype three ways: sum, prod and nansum compute in out's dtype
# (sum(float, 1, out=long) truncates each element; nansum refuses a non-float out), unless dtype=
# names another; max/min (with dim), argmax/argmin, amax/amin and aminmax want out's dtype
# exactly; mean and the rest take out= as any op (a cast that loses the kind, Float into Long, is
# refused).


def _out_cast(result, out, dtype):
    """out= for sum/prod/nansum: the result cast into out's dtype (see NOTE above)."""
    if out is None:
        return result
    if isinstance(out, Tensor) and out.dtype is not result.dtype:
        if dtype is not None:
            _out_exact(result, out)
        result = cast(result, out.dtype)
    return _out(result, out)


def _out_exact(result, out, amax_op=None):
    """out= for ops that want out's dtype exactly (see NOTE [ Reduction out= dtypes ])."""
    if isinstance(out, Tensor) and out.dtype is not result.dtype:
        if amax_op is not None:
            raise RuntimeError(
                f"Expected the dtype for input and out to match, but got "
                f"{_dtype.scalar_name(result.dtype)} for input's dtype and "
                f"{_dtype.scalar_name(out.dtype)} for out's dtype."
            )
        raise _dtype.out_dtype_error(result._data.dtype, out._data.dtype)
    return _out(result, out)


def _no_out_without_dim(op: str, input, dtype, out):
    """torch's arg parser's TypeError for out= given to the full sum/prod (dim left out; a
    dim=None given is the dim overload, which takes out=): their signature has no out=."""
    named = (("input", input), ("dtype", dtype), ("out", out))
    given = [(n, v) for n, v in named if v is not None]
    return _errors.overload_error(op, *_errors.OVERLOADS[op], given)


# NOTE [ keepdim without dim ]
# torch's full reductions are overloads of their own, with no keepdim: sum(x, keepdim=True) --
# or keepdims=, or even keepdim=False -- matches no overload and is its TypeError, where
# sum(x, None, True) reaches the dim overload (sum and mean take dim=None there; prod, max and
# min do not, and refuse it). Telling an omitted dim from a given None needs the _MISSING
# sentinel as dim's default. sum and mean, which every loss calls, keep keepdim's default False
# and refuse only keepdim=True (or keepdims=) without a dim, the call whose shape would differ:
# an explicit keepdim=False there is accepted (the full reduction torch's right call gives),
# which saves the common calls a second sentinel test; the others refuse it too.


def _dim_args(op: str, input, dim, keepdim, axis, keepdims, forms, dtype=None):
    """(dim, keepdim) of sum/mean called with NumPy's axis=/keepdims= spellings (axis=None
    names the dim overload, as torch's), or torch's TypeError for keepdim=True / keepdims= with
    no dim. Off the common calls (x.sum(), x.sum(1)); NOTE [ keepdim without dim ]."""
    if (axis is not _MISSING and dim is not _MISSING) or (
        keepdims is not None and keepdim is not False
    ):  # a dim (keepdim) given under both names: torch's parser takes the alias as unknown
        named = (("input", input), ("dim", dim), ("keepdim", keepdim), ("axis", axis))
        named += (("keepdims", keepdims), ("dtype", dtype))
        given = [(k, v) for k, v in named if v is not _MISSING and v is not None]
        raise _errors.parsed_error(op, given)
    if axis is not _MISSING:
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    if dim is _MISSING:
        given = _MISSING if keepdim is False or keepdims is not None else keepdim  # (None too)
        _keepdim_needs_dim(op, given, keepdims, None, forms, input, dtype)
    if keepdim.__class__ is not bool:
        if dim is None:  # a dim given as None fits the dim overload (its dim may be None)
            raise keepdim_error(op, dim, keepdim)
        if keepdims is None:  # NOTE [ Overloaded reductions ]
            raise _errors.parsed_error(op, (("input", input), ("dim", dim), ("keepdim", keepdim)))
        raise keepdim_error(op, dim, keepdim, None if op == "sum" else forms)
    return dim, keepdim


def _argument_error(error, op: str, input, dim, keepdim, **keywords):
    """torch's TypeError for the overloaded reduction `op` given an input that is no tensor or a
    dim that is neither an int nor a sequence of them (NOTE [ Overloaded reductions ]); error,
    the one raised here, for any other (an element of a dim tuple: torch's message names it)."""
    if isinstance(input, Tensor) and (
        isinstance(error, AttributeError)
        # a dim sequence whose first element is int-like fits the dim overload: torch names
        # the element it fails to unpack (one that is not makes no overload fit)
        or isinstance(dim, (list, tuple)) and (not dim or is_index(dim[0]))
    ):
        return error
    named = (("input", input), ("dim", dim), ("keepdim", keepdim), *keywords.items())
    return _errors.parsed_error(op, named)


# NOTE [ keepdim must be a bool ]
# torch's parser takes only a Python bool for keepdim: sum(x, 1, 2), x.amax(1, keepdim=1) and
# keepdim=None are TypeErrors (NumPy would read them as truthy). An op whose dim overload is
# its only one names the argument ("sum(): argument 'keepdim' must be bool, not int"); one
# with several (max, min, mean, all, any) says no overload matched. The check is one class
# test where a dim was given, which the full reductions (x.sum()) never reach.


def keepdim_error(op: str, dim, keepdim, forms=None, pos: int | None = 3) -> TypeError:
    """torch's TypeError for a keepdim (the op's argument `pos`) that is not a bool. See NOTE
    [ keepdim must be a bool ].

    Differences from torch: with several overloads (forms), the message cannot tell a
    positional keepdim from a keyword one; it is worded as torch's for the keyword."""
    if forms is None:
        return wrong_type(op, keepdim, "keepdim", pos, "bool")
    return no_overload(op, f"Tensor, {type_name(dim)}, keepdim={type_name(keepdim)}", forms)


def _keepdim_needs_dim(op: str, keepdim, keepdims, axis, forms, input=None, dtype=None):
    """torch's TypeError for keepdim (or keepdims) given without a dim -- unless NumPy's axis=
    spelling gave the dim. See NOTE [ keepdim without dim ]. With input (sum, mean, prod), a
    call of the Tensor method gets its own wording (no input among the overloads); a dtype=
    given too fits the dim overload only: torch's 'missing "dim"' (sum, prod; mean lists)."""
    if axis is not None:
        return
    if input is not None:
        spelled = ("keepdim", keepdim) if keepdims is None else ("keepdims", keepdims)
        named = (("input", input), spelled, ("dtype", dtype))
        unknown = () if keepdims is None else ("keepdims",)  # (a keyword, however it reads)
        given = named[: 2 + (dtype is not None)]
        raise _errors.overload_error(op, *_errors.OVERLOADS[op], given, unknown=unknown)
    got = "Tensor"
    if keepdim is not _MISSING:
        got += f", keepdim={type_name(keepdim)}"
    if keepdims is not None:
        got += f", keepdims={type_name(keepdims)}"
    raise no_overload(op, got, forms)


_SUM_FORMS = (
    "Tensor input, *, torch.dtype dtype = None",
    "Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None",
)
_MEAN_FORMS = (
    "Tensor input, *, torch.dtype dtype = None, Tensor out = None",
    _SUM_FORMS[1],
)
_PROD_FORMS = (
    "Tensor input, *, torch.dtype dtype = None",
    "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None",
)


def _setup(ctx, x, dims, keepdim):
    ctx.shape = x.shape
    ctx.dims = dims
    ctx.keepdim = keepdim


# NumPy's max along contiguous rows is slow next to its argmax (float32, least of 200: (2048, 10)
# 156 us, (2048, 128) 254 us, against 45 and 111 us for argmax plus the gather of the values).
# So the row max is taken one of three ways: rows of at most 16 (at most 64 while the array
# stays within 2^17 elements) as a max down the columns of a transposed copy, which NumPy
# vectorises across them ((2048, 10) 13 us, (100000, 4) 5.4 -> 0.48 ms, (32, 64, 64) 255 ->
# 156 us; for longer rows of bigger arrays the strided copy costs more than it saves);
# otherwise, from 64 rows of up to 512, argmax and a gather ((8192, 64) 0.94 -> 0.52 ms,
# (256, 512) 41 -> 21 us); else NumPy's max. All three give the same values: max is exact and
# argmax takes the first nan, which max propagates.
_ROW_MAX_SIZE = 1 << 17


def max_last(xp, x, kind="max"):
    """x's max (kind "min": min) over its last axis, keepdims: the shift of softmax,
    log_softmax and logsumexp, and amax/amin over the last dim."""
    cols = x.shape[-1]
    rows = x.size // cols if cols else 0
    host = xp is _CPU_XP and x.dtype.kind in "fiub"  # ndarray.max's ufunc, called directly
    if rows >= 32 and 1 < cols and (cols <= 16 or cols <= 64 and x.size <= _ROW_MAX_SIZE):
        m = xp.ascontiguousarray(x.reshape(rows, cols).T)
        if host:  # (NOTE [ Reductions call the ufunc ])
            m = _CPU_EXTREMES[kind].reduce(m, axis=0)
        else:
            m = m.max(axis=0) if kind == "max" else m.min(axis=0)
        return m.reshape(x.shape[:-1] + (1,))
    if rows >= 64 and 16 < cols <= 512:
        i = x.argmax(axis=-1, keepdims=True) if kind == "max" else x.argmin(axis=-1, keepdims=True)
        return take_at(xp, x, i, x.ndim - 1)
    if host:
        return _CPU_EXTREMES[kind].reduce(x, axis=-1, keepdims=True)
    return x.max(axis=-1, keepdims=True) if kind == "max" else x.min(axis=-1, keepdims=True)


# --- sum, mean, prod ---


def keep_row_major(x, out):
    """out, a keepdim reduction of the array x, laid out as torch lays it: row-major, the strides
    of its size-1 dims included (each the product of the sizes after it). NumPy keeps x's order
    there, and its row-major flag ignores size-1 dims, so row_major leaves such a result as it is:
    sum(1, keepdim=True) of a channels_last (2, 4, 6, 6) x had strides (36, 1, 6, 1), torch's
    (36, 36, 6, 1); prod(1, keepdim=True) of a (3, 4) transpose (1, 3), torch's (1, 1). NumPy
    lays out the reduction of a row-major x so already: that result is returned as it is."""
    return out if x.flags.c_contiguous else out.copy()


_GEMV_MIN_SIZE = 1 << 14  # below this NumPy's own reduction is as fast (it has less to set up)


def _gemv_sum(xp, x, dims, keepdim):
    """x summed over dims as matrix-vector products with ones vectors, or None where that does
    not apply: the dims must be leading dims, trailing dims, or both (a conv bias gradient sums
    (N, C, H, W) over (0, 2, 3): the trailing block, then the leading one). NumPy's reductions
    pay per output row or column; BLAS does not (float32, best of 200: (2048, 512) over dim 0
    249 -> 177 us, over dim 1 385 -> 118 us; (256, 10) over dim 0 6.8 -> 2.6 us). That covers
    the bias gradients of Linear and conv layers and most un-broadcasting in the backward pass.
    Long trailing rows keep NumPy's pairwise summation (more accurate than a dot product over
    thousands of terms)."""
    nd = x.ndim
    if x.size < _GEMV_MIN_SIZE or not dims or len(dims) == nd:
        return None
    if x.dtype.kind != "f" or x.dtype.itemsize < 4 or not x.flags.c_contiguous:
        return None
    lead = 0
    while lead < len(dims) and dims[lead] == lead:
        lead += 1
    trail = len(dims) - lead
    if dims[lead:] != tuple(range(nd - trail, nd)):
        return None
    shape = x.shape
    m_lead = 1
    for s in shape[:lead]:
        m_lead *= s
    m_trail = 1
    for s in shape[nd - trail :]:
        m_trail *= s
    if m_trail > 4096:
        return None
    out = x
    # Trailing dims of size 1 (batch norm's (N, C, 1) of a 2-d input) have nothing to sum: a
    # product with ones(1) only copied x, at 2-8 ms for (10000, 100) (batch_norm 22x torch's)
    if m_trail > 1:
        out = xp.matmul(out.reshape(-1, m_trail), xp.ones(m_trail, dtype=x.dtype))
    elif not lead:  # nothing to sum at all: NumPy's reduction makes the copy
        return None
    if lead:
        out = xp.matmul(xp.ones(m_lead, dtype=x.dtype), out.reshape(m_lead, -1))
    return out.reshape(keep_shape(shape, dims) if keepdim else _drop(shape, dims))


class Sum(Function):
    """out = sum of a over dims;  grad_a = grad broadcast back to a's shape"""

    _saved_attrs = {"self_sym_sizes": "shape"}  # grad_fn._saved_self_sym_sizes (as torch)

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, np_dtype):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # _setup, inlined (hot: losses)
        out = sum_array(ctx.xp, x, dims, keepdim, np_dtype)
        if dims is None:  # (a sum of all: one element)
            return out
        return keep_row_major(x, out) if keepdim else row_major(ctx.xp, out)

    @staticmethod
    def backward(ctx, grad):
        return expand_back(grad, ctx)

    @staticmethod
    def _backward_data(ctx, grad):
        return _expand_back_data(grad, ctx)


def sum_array(xp, x, dims, keepdim, np_dtype=None):
    """The array x summed over dims (None: all) into np_dtype (None: x's); half-precision
    floats accumulate in float32 (torch's rule)."""
    if x.size >= _GEMV_MIN_SIZE and (np_dtype is None or np_dtype == x.dtype):
        out = _gemv_sum(xp, x, dims, keepdim)
        if out is not None:
            return out
    target = x.dtype if np_dtype is None else np_dtype
    acc = opmath_dtype(target) if target.itemsize < 4 else None  # (no call for 4+ bytes)
    # NOTE [ Reductions call the ufunc ]
    # xp.add.reduce is what ndarray.sum runs, minus a Python frame in numpy/_core/_methods.py:
    # called from here, NumPy's RuntimeWarning for inf + -inf is attributed to this module and
    # silenced by minitorch's filter (torch sums to nan without a word), and the call is cheaper.
    if acc:
        if x.dtype != target:  # torch rounds each element to dtype= first (1e5 to inf)
            x = x.astype(target)
        return xp.asarray(xp.add.reduce(x, axis=dims, dtype=acc, keepdims=keepdim), dtype=target)
    return xp.asarray(xp.add.reduce(x, axis=dims, dtype=np_dtype, keepdims=keepdim))


engine.sum_kernel = sum_array  # for un-broadcasting gradients (NOTE [ Data-level backward ])


def _dims_as_given(node):
    """grad_fn._saved_dim of sum/mean over dims: the dims as the call gave them (a negative one
    read back unsigned, their order kept: mean((-1, -2)) shows (2**64 - 1, 2**64 - 2), as
    torch's), kept on the node only where they differ from a dim >= 0 (keep_given_dim)."""
    given = node.__dict__.get("given_dim", _MISSING)
    return node.dims if given is _MISSING else _saved_given_dims(given)


def keep_given_dim(result, dim) -> None:
    """Keeps the dim argument as given on result's node, if it has one (_dims_as_given)."""
    node = result._grad_fn
    if node is not None:
        node.given_dim = dim


class SumDim(Sum):
    _node_name = "SumBackward1"
    _saved_attrs = {"dim": _dims_as_given, "keepdim": "keepdim", "self_sym_sizes": "shape"}


def sum(
    input=REQUIRED, dim=_MISSING, keepdim=False, *extra, dtype=None, axis=_MISSING,
    keepdims=None, out=None,
):  # fmt: skip
    """Sum over dims (all by default). Mirrors torch.sum (ints and bools sum as int64)."""
    if (  # NOTE [ The no-grad fast path ] in minitorch/autograd/function.py: Sum.forward's sum
        input.__class__ is Tensor
        and input._device is _CPU
        and (
            dim is _MISSING and keepdim is False
            or dim.__class__ is int and keepdim.__class__ is bool
        )
        and dtype is None
        and out is None
        and not extra
        and axis is _MISSING
        and keepdims is None
        and input._data.dtype.kind == "f"
        and fast_path[0]
    ):
        x = input._data
        if not (input._requires_grad and _grad_state.enabled):
            if dim is _MISSING:
                return plain_result(sum_array(_CPU_XP, x, None, False), _CPU)
            nd = x.ndim
            if -nd <= dim < nd:  # (else the full path's error; a 0-d x, which sums over nothing)
                out = sum_array(_CPU_XP, x, (dim % nd,), keepdim)
                if keepdim:
                    return plain_result(keep_row_major(x, out), _CPU)
                return plain_result(row_major(_CPU_XP, out), _CPU)
        elif dim is _MISSING:
            # NOTE [ The recorded fast path ]: Sum.forward's sum of all, and what it keeps
            result = record_unary(Sum, sum_array(_CPU_XP, x, None, False), input, None)
            node = result._grad_fn
            node.shape, node.dims, node.keepdim = x.shape, None, False
            return result
    if extra:  # (input REQUIRED, extra: torch's parser wording of sum() and sum(x, 0, True, 0))
        given = (input, dim, keepdim, *extra)
        raise _errors.extra_positional_error("sum", given, dtype=dtype, out=out)
    omitted = dim is _MISSING
    if omitted:  # NOTE [ keepdim without dim ]
        if keepdim is not False or keepdims is not None or axis is not _MISSING:
            dim, keepdim = _dim_args(
                "sum", input, dim, keepdim, axis, keepdims, _SUM_FORMS, dtype
            )
            omitted = False
        elif out is not None:
            raise _no_out_without_dim("sum", input, dtype, out)
        else:
            dim = None
    elif keepdim.__class__ is not bool or axis is not _MISSING or keepdims is not None:
        dim, keepdim = _dim_args("sum", input, dim, keepdim, axis, keepdims, _SUM_FORMS)
    try:
        x = input._data
        dims = None if dim is None else reduce_dims(dim, x.ndim, "sum")  # None: every dim
    except (AttributeError, TypeError) as e:  # torch.sum(list_of_losses), x.sum("a")
        raise _argument_error(e, "sum", input, dim, keepdim, dtype=dtype, out=out) from None
    if dtype is not None:
        try:
            dt = _dtype.to_dtype(dtype, "sum")
        except TypeError:  # (with no dim, the call fits both overloads: torch lists them)
            named = (("input", input), ("dim", dim), ("keepdim", keepdim), ("dtype", dtype))
            raise _errors.parsed_error("sum", (*named, ("out", out))) from None
        no_integral_grad(input, dt)
        np_dtype = _dtype.numpy_dtype(dt)
    elif out is not None and isinstance(out, Tensor) and out._data.dtype != x.dtype:
        # torch sums in out's dtype: each float into an int64 out truncates first, float32 into
        # a float64 out accumulates in float64 (NOTE [ Reduction out= dtypes ])
        input = cast(input, out.dtype)
        np_dtype = out._data.dtype
    elif x.dtype.kind in "biu":
        np_dtype = _dtype.int64.np
    else:
        np_dtype = None
    if dims is None and omitted:
        if out is None:
            return Sum.apply(input, dims=dims, keepdim=keepdim, np_dtype=np_dtype)
        result = Sum.apply(input, dims=dims, keepdim=keepdim, np_dtype=np_dtype)
        return _out_cast(result, out, dtype)
    # dims given (dim=None among them: torch's dim overload, SumBackward1 showing _saved_dim None)
    result = SumDim.apply(input, dims=dims, keepdim=keepdim, np_dtype=np_dtype)
    if dim.__class__ is not int or dim < 0:  # (a dim >= 0 is its own grad_fn._saved_dim)
        keep_given_dim(result, dim)
    return _out_cast(result, out, dtype)


def _input_numel(node) -> int:
    """The number of elements of a reduction's input (torch's grad_fn._saved_self_sym_numel)."""
    return math.prod(node.shape)


class Mean(Function):
    """out = mean of a over dims;  grad_a = grad / n broadcast back"""

    _saved_attrs = {"self_sym_numel": _input_numel, "self_sym_sizes": "shape"}

    @staticmethod
    def forward(ctx, a, *, dims, keepdim):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # _setup, inlined (hot: losses)
        if dims is None:
            n = x.size
        elif len(dims) == 1:
            n = x.shape[dims[0]]
        else:
            n = _numel(x.shape, dims)
        ctx.n = n
        return Mean.kernel(ctx.xp, x, dims, keepdim, n)

    @staticmethod
    def kernel(xp, x, dims, keepdim, n):
        """The mean of the array x over dims (None: all), which take in n elements."""
        if n == 0:  # torch: the mean of nothing is nan (without NumPy's warning)
            s = x.sum(axis=dims, keepdims=keepdim)
            return xp.asarray(s * float("nan"), dtype=x.dtype)
        out = _gemv_sum(xp, x, dims, keepdim) if x.size >= _GEMV_MIN_SIZE else None
        if out is not None:
            out /= n
            return row_major(xp, out)
        # the sum over n, as NumPy's mean (whose wrapper costs more; NOTE [ Reductions call the
        # ufunc ]); half-precision floats summed in float32
        dt = x.dtype
        acc = opmath_dtype(dt) if dt.itemsize < 4 else None  # (no call for 4+ bytes)
        s = xp.add.reduce(x, axis=dims, dtype=acc, keepdims=keepdim)
        out = xp.asarray(s / n, dtype=dt)
        return out if dims is None else row_major(xp, out)  # (a mean of all: one element)

    @staticmethod
    def backward(ctx, grad):
        # (torch divides by the count as a Scalar: DivBackward1 under create_graph)
        return scalar_node(expand_back(grad, ctx) / ctx.n)

    @staticmethod
    def _backward_data(ctx, grad):
        # Divided into fresh memory of the input's shape, as torch's mean backward (grad
        # expanded, then divided): the gradient is a real tensor (autograd.grad(w.mean(),
        # w)[0].mul_(2) works; Sum's, like torch's, stays a stride-0 expand), and AccumulateGrad
        # keeps this array instead of copying a view. The ufunc broadcasts the gradient into
        # `out` itself (a full mean's backward on 16 elements: 3.0 -> 1.5 us).
        dt = grad.dtype
        xp = ctx.xp
        if dt.itemsize < 4 and opmath_dtype(dt):  # as div: in float32, rounded once
            grad = _expand_back_data(grad, ctx)
            return xp.asarray((grad.astype("float32") / ctx.n).astype(dt))
        return xp.divide(_unreduced(grad, ctx), ctx.n, out=xp.empty(ctx.shape, dt))


class MeanDim(Mean):
    _node_name = "MeanBackward1"
    _saved_attrs = {"dim": _dims_as_given, "keepdim": "keepdim", **Mean._saved_attrs}


class MeanInto(Mean):
    """out = mean of a into a float16/bfloat16 dtype=, as torch: a summed in float32 and the mean
    rounded once (mean(float64 [1e5, -1e5, 3.], dtype=float16) is 1., not inf - inf);
    grad_a = grad / n in out's dtype, cast to a's"""

    _node_name = "MeanBackward0"
    _backward_data = None  # (Mean's would keep out's dtype)

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, out_dtype):
        x = a._data.astype("float32")
        xp = ctx.xp
        _setup(ctx, x, dims, keepdim)
        ctx.n = n = _numel(x.shape, dims)
        ctx.in_dtype = a.dtype
        s = xp.add.reduce(x, axis=dims, keepdims=keepdim)
        out = s / n if n else s * float("nan")
        return row_major(xp, xp.asarray(out, dtype=out_dtype.np))

    @staticmethod
    def backward(ctx, grad):
        return cast(expand_back(grad, ctx) / ctx.n, ctx.in_dtype)


class MeanDimInto(MeanInto):
    _node_name = "MeanBackward1"
    _saved_attrs = {"dim": _dims_as_given, "keepdim": "keepdim", **Mean._saved_attrs}


def mean(
    input=REQUIRED, dim=_MISSING, keepdim=False, *extra, dtype=None, axis=_MISSING,
    keepdims=None, out=None,
):  # fmt: skip
    """Mean over dims (all by default); floating inputs only. Mirrors torch.mean."""
    if (
        input.__class__ is Tensor
        and dtype is None
        and out is None
        and not extra
        and axis is _MISSING
        and keepdims is None
        and input._data.dtype.kind == "f"
    ):  # The common calls skip the parse below: x.mean(), x.mean(d[, keepdim]) with an int d in
        # range and a bool keepdim (a float16, float32 or float64 x)
        nd = input._data.ndim
        if dim is _MISSING and keepdim is False:
            fn, dims = Mean, None
        elif dim.__class__ is int and keepdim.__class__ is bool and -nd <= dim < nd:
            fn, dims = MeanDim, (dim % nd,)
        else:
            fn = None
        if fn is not None:
            if input._device is _CPU and fast_path[0]:
                # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Mean.forward's
                # kernel, and what it keeps on its node
                x = input._data
                n = x.size if dims is None else x.shape[dims[0]]
                if not (input._requires_grad and _grad_state.enabled):
                    return plain_result(Mean.kernel(_CPU_XP, x, dims, keepdim, n), _CPU)
                avg = Mean.kernel(_CPU_XP, x, dims, keepdim, n)
                result = record_unary(fn, avg, input, None)
                node = result._grad_fn
                node.shape, node.dims, node.keepdim, node.n = x.shape, dims, keepdim, n
                if dims is not None and dim < 0:  # grad_fn._saved_dim: the dim as given
                    node.given_dim = dim
                return result
            result = fn.apply(input, dims=dims, keepdim=keepdim)
            if dims is not None and dim < 0:  # grad_fn._saved_dim: the dim as given
                keep_given_dim(result, dim)
            return result
    if extra:  # (input REQUIRED, extra: torch's parser wording of sum() and sum(x, 0, True, 0))
        given = (input, dim, keepdim, *extra)
        raise _errors.extra_positional_error("mean", given, dtype=dtype, out=out)
    omitted = dim is _MISSING  # (out='s errors: the full mean's or the dim overload's)
    if omitted:  # NOTE [ keepdim without dim ]
        if keepdim is not False or keepdims is not None or axis is not _MISSING:
            dim, keepdim = _dim_args(
                "mean", input, dim, keepdim, axis, keepdims, _MEAN_FORMS, dtype
            )
            omitted = False  # (axis= given: the dim overload, as torch's parser)
        else:
            dim = None
    elif keepdim.__class__ is not bool or axis is not _MISSING or keepdims is not None:
        dim, keepdim = _dim_args("mean", input, dim, keepdim, axis, keepdims, _MEAN_FORMS)
    if not isinstance(input, Tensor):  # torch.mean(list_of_losses)
        raise _argument_error(None, "mean", input, dim, keepdim, dtype=dtype, out=out)
    if dtype is not None:
        try:
            dt = _dtype.to_dtype(dtype, "mean")
        except TypeError:  # (with no dim, the call fits both overloads: torch lists them)
            named = (("input", input), ("dim", dim), ("keepdim", keepdim), ("dtype", dtype))
            raise _errors.parsed_error("mean", (*named, ("out", out))) from None
        if not dt.is_floating_point:
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                f"point or complex dtype. Got: {_short(dt)}"
            )
        if out is None and dt.itemsize < 4 and input.dtype is not dt:
            dims = reduce_dims(dim, input._data.ndim, "mean")
            if dim is None and omitted:
                return MeanInto.apply(input, dims=dims, keepdim=keepdim, out_dtype=dt)
            result = MeanDimInto.apply(input, dims=dims, keepdim=keepdim, out_dtype=dt)
            keep_given_dim(result, dim)
            return result
        input = cast(input, dt)
    elif not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {_short(input.dtype)}"
        )
    try:
        dims = reduce_dims(dim, input._data.ndim, "mean")
    except TypeError as e:  # x.mean("a")
        raise _argument_error(e, "mean", input, dim, keepdim, dtype=dtype, out=out) from None
    # dim=None given: torch's dim overload (MeanBackward1, showing _saved_dim None)
    fn = Mean if dim is None and omitted else MeanDim
    if out is None:
        result = fn.apply(input, dims=dims, keepdim=keepdim)
        if fn is MeanDim:  # grad_fn._saved_dim: the dims as given
            keep_given_dim(result, dim)
        return result
    return _mean_out(fn, input, dims, keepdim, dtype, out, omitted)


def _mean_out(fn, input, dims, keepdim, dtype, out, omitted):
    """mean into out=: computed in out's dtype, which must be a float (torch's two messages: the
    full mean's and, with dims -- dim=None given among them -- its division's), and dtype= if
    given."""
    if isinstance(out, Tensor) and out.dtype is not input.dtype:  # (input: cast to dtype= here)
        full = fn is Mean and omitted
        if not out.dtype.is_floating_point and (full or dtype is None):
            if full:
                raise RuntimeError(
                    "mean.dtype_out(): input types can't be cast to the desired output type "
                    f"{_short(out.dtype)}"
                )
            raise RuntimeError(
                f"result type {_short(_dtype.default_float())} can't be cast to the desired "
                f"output type {_short(out.dtype)}"
            )
        if dtype is not None:
            raise _dtype.out_dtype_error(input.dtype, out.dtype)
        target = out.dtype
        if target is _dtype.float16 or target is _dtype.bfloat16:
            # torch's CPU mean_out: a half-precision result is the float32 mean rounded once
            target = _dtype.float32
        input = cast(input, target)
    return _out(fn.apply(input, dims=dims, keepdim=keepdim), out)


_short = _dtype.scalar_name  # torch's dtype spelling in messages ("Float")


def _half_prod(xp, x, dims, keepdim):
    """The float16 product as torch's CPU kernel takes it: a running product kept in float16,
    rounded at every step, so [300, 300, 1/300, 2] overflows to inf where NumPy's product (a
    float32 running value) gives 600. bfloat16 already runs in its own dtype in NumPy; torch's
    CUDA kernel runs half in float32, which NumPy's product is. Along a long dim torch's
    vectorised loop multiplies in a different order, so its roundings differ there."""
    if dims is None or len(dims) == x.ndim:
        out = xp.multiply.accumulate(x.reshape(-1))[-1]
        return xp.asarray(out).reshape((1,) * x.ndim if keepdim else ())
    (d,) = dims
    out = xp.multiply.accumulate(x, axis=d).take([-1], axis=d)
    return keep_row_major(x, out) if keepdim else row_major(xp, out.squeeze(d))


class Prod(Function):
    """out = product of a over dims;  grad_a = grad * (product of the other elements)"""

    _saved_names = ("self", "result")  # grad_fn._saved_self, _saved_result (as torch's)

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, np_dtype):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # (_setup, inlined)
        dt = x.dtype
        half = dt.kind == "f" and dt.itemsize == 2  # float16 (cheaper than x.dtype == "float16")
        if half and np_dtype is None and a._device.type == "cpu" and x.size:
            out = _half_prod(ctx.xp, x, dims, keepdim)
        else:
            # NumPy multiplies bool and int32 in int64; torch keeps the dtype it was given
            dt = x.dtype if np_dtype is None else np_dtype
            # the ufunc, not x.prod: NumPy's overflow and 0 * inf warnings (torch has none) then
            # come from this module, which minitorch's filter silences (NOTE [ Reductions call
            # the ufunc ])
            out = ctx.xp.asarray(ctx.xp.multiply.reduce(x, axis=dims, dtype=dt, keepdims=keepdim))
            out = keep_row_major(x, out) if keepdim else row_major(ctx.xp, out)
        # the result too, as torch's node: unused here, but changing it in place refuses backward
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, _ = ctx._stored_tensors
        dims, shape = ctx.dims, ctx.shape
        if not shape:  # a 0-d input is its own product: the gradient passes through, as torch's
            return grad
        g = _keepdim(grad, ctx).expand(shape)
        on_host = a._device.type == "cpu"
        if on_host and not (a._data == 0).any():  # (no device read)
            # No zero anywhere: the others' product is p / a_i, torch's formula and values (an
            # inf or nan factor makes the slice's gradient nan, as torch's), in 3 full-size
            # passes. Its own derivative is right without zeros.
            p = Prod.apply(a, dims=dims, keepdim=True, np_dtype=None)
            return g * (p / a)
        if dims is None or len(dims) != 1 or len(shape) == 1:
            from minitorch.autograd.grad_mode import state

            if on_host and not state.enabled and (a._data == 0).sum() > 1:
                # torch's shortcut for a full product with two zeros or more: a zero gradient
                # (the product of the others would be nan where an inf sits beside them)
                return _const(a._device.backend.xp.zeros(shape, dtype=a._data.dtype), a)
            if math.prod(shape) == 1:  # (torch's prod_safe_zeros_backward: grad as it is)
                return g
            return g * _exclusive_products(a.reshape(-1), 0).reshape(shape)
        if shape[dims[0]] == 1:  # a product of one factor: the gradient passes through
            return g
        return g * _exclusive_products(a, dims[0])


def _exclusive_products(a: Tensor, d: int) -> Tensor:
    """Each element's product of the others along d, as the product of those before it times
    the product of those after it (two cumprods of shifted copies): no division, so right at
    zeros (and beside an inf) and twice differentiable. torch's formula once a zero is present."""
    from minitorch._ops.cumulative import cumprod
    from minitorch._ops.shape_join import cat

    n = a.shape[d]
    if n == 0:  # nothing to multiply: an empty gradient
        return _const(a._device.backend.xp.zeros(a.shape, dtype=a._data.dtype), a)
    ones_shape = a.shape[:d] + (1,) + a.shape[d + 1 :]
    one = _const(a._device.backend.xp.ones(ones_shape, dtype=a._data.dtype), a)
    before = cumprod(cat([one, a.narrow(d, 0, n - 1)], d), d)
    after = cumprod(cat([one, a.narrow(d, 1, n - 1).flip(d)], d), d).flip(d)
    return before * after


class ProdDim(Prod):
    _node_name = "ProdBackward1"
    _saved_attrs = {  # grad_fn._saved_dim (as given, read back unsigned), _saved_keepdim
        "dim": lambda node: saved_uint64(node.__dict__.get("given_dim", node.dims[0])),
        "keepdim": "keepdim",
    }


def prod(input=REQUIRED, dim=_MISSING, keepdim=_MISSING, *extra, dtype=None, out=None):
    """Product over one dim (all by default). Mirrors torch.prod (ints and bools as int64).

    Differences from torch: on a GPU the gradient is always the product of the other factors
    (torch looks for a zero on the host first), so an inf factor in a tensor without zeros
    gives that product where torch's result / input gives nan."""
    if extra:  # (as sum's)
        given = (input, dim, keepdim, *extra)
        raise _errors.extra_positional_error("prod", given, dtype=dtype, out=out)
    if _autocast.state.any_enabled:  # (the sentinels travel on: the call below resolves them)
        return _autocast.call(
            prod, _autocast.FP32_CPU, (input, dim, keepdim), {"dtype": dtype, "out": out}
        )
    if (
        dim is _MISSING
        and keepdim is _MISSING
        and dtype is None
        and out is None
        and input.__class__ is Tensor
        and input._data.dtype.kind in "fc"
    ):  # the common call (x.prod() of a float or complex x) skips the parse below
        return Prod.apply(input, dims=None, keepdim=False, np_dtype=None)
    if dim is _MISSING:  # NOTE [ keepdim without dim ]
        if keepdim is not _MISSING:
            _keepdim_needs_dim("prod", keepdim, None, None, _PROD_FORMS, input, dtype)
        if out is not None:
            raise _no_out_without_dim("prod", input, dtype, out)
        dim = None
    elif dim is None:  # prod's dim overload takes an int only
        named = (("input", input), ("dim", dim), ("keepdim", keepdim))
        given = named[: 2 + (keepdim is not _MISSING)]
        raise _errors.overload_error("prod", *_errors.OVERLOADS["prod"], given)
    if keepdim is _MISSING:
        keepdim = False
    elif keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error("prod", dim, keepdim)
    try:
        x = input._data
        if isinstance(dim, (list, tuple)):  # its dim overload takes one int
            raise TypeError
        dims = reduce_dims(dim, x.ndim, "prod")
    except (AttributeError, TypeError):  # torch.prod(list_of_probs), x.prod("a")
        named = (("input", input), ("dim", dim), ("keepdim", keepdim), ("dtype", dtype))
        raise _errors.parsed_error("prod", (*named, ("out", out))) from None
    if dtype is None and isinstance(out, Tensor) and out.dtype is not input.dtype:
        # torch multiplies in out's dtype: a float16 input into a float32 out does not
        # overflow, a float one into an int64 out truncates each factor first
        dtype = out.dtype
    if dtype is not None:
        try:
            dt = _dtype.to_dtype(dtype, "prod")
        except TypeError:  # (with no dim, the call fits both overloads: torch lists them)
            named = (("input", input), ("dim", dim), ("keepdim", keepdim), ("dtype", dtype))
            raise _errors.parsed_error("prod", (*named, ("out", out))) from None
        no_integral_grad(input, dt)
        input = cast(input, dt)
    elif x.dtype.kind in "biu":
        input = cast(input, _dtype.int64)
    if dim is None:
        return Prod.apply(input, dims=dims, keepdim=keepdim, np_dtype=None)
    result = ProdDim.apply(input, dims=dims, keepdim=keepdim, np_dtype=None)
    if result._grad_fn is not None and dim.__class__ is int and dim < 0:
        result._grad_fn.given_dim = dim  # grad_fn._saved_dim: the dim as given
    return _out_cast(result, out, dtype)


class Nansum(Function):
    """out = sum of a over dims, nan counted as 0;  grad_a = grad where a is not nan, else 0"""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_dim, _saved_keepdim (as torch's)
    _saved_attrs = {
        "dim": lambda node: _saved_given_dims(node.__dict__.get("given_dim")),
        "keepdim": "keepdim",
    }

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, np_dtype):
        x = a._data
        xp = ctx.xp
        _setup(ctx, x, dims, keepdim)
        ctx.save_for_backward(a)
        if is_floating(x.dtype) and not (
            a._device.type == "cpu" and x.flags.c_contiguous and not xp.isnan(x).any()
        ):  # (a host read only on the host) a row-major x without nan is summed as it is: the
            # copy's very sums, at half the cost (nansum of (1000, 1000) float32: 0.8 -> 0.3 ms)
            x = xp.where(xp.isnan(x), 0, x)
        target = x.dtype if np_dtype is None else np_dtype
        acc = opmath_dtype(target)
        if acc and x.dtype != target:  # each element rounded to dtype= first, as sum
            x = x.astype(target)
        out = xp.asarray(
            xp.add.reduce(x, axis=dims, dtype=acc or np_dtype, keepdims=keepdim),
            dtype=target if acc else None,
        )
        if dims is None or x.flags.c_contiguous:  # (laid out as torch's: keep_row_major)
            return out
        return out.copy() if keepdim else row_major(xp, out)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return expand_back(grad, ctx) * (a == a)


def _nansum_out_input(input, dtype, out):
    """nansum's input for an out=: cast to out's dtype when no dtype= is given (as sum: see
    NOTE [ Reduction out= dtypes ]), which must then be a float for a floating input (an
    integral one has no nan: torch sums it as sum does); torch's refusals."""
    floating = input.dtype.is_floating_point
    if dtype is not None:
        dt = _dtype.to_dtype(dtype, "nansum")
        if floating and dt.is_floating_point and dt is not out.dtype:
            raise RuntimeError(
                f"nansum: provided dtype must match dtype of result. Got {_short(out.dtype)} and "
                f"{_short(dt)}."
            )
        return input
    if out.dtype is input.dtype:
        return input
    if floating and not out.dtype.is_floating_point and input._data.size:
        # (an empty input reaches no kernel: its sum of nothing is a 0 of out's dtype)
        raise NotImplementedError(
            f"\"nansum_cpu\" not implemented for '{_dtype.scalar_name(out.dtype)}'"
        )
    return cast(input, out.dtype)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating nan as zero. Mirrors torch.nansum."""
    try:
        x = input._data
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("nansum", input) from None
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error("nansum", dim, keepdim)
    dims = reduce_dims(dim, x.ndim, "nansum", in_order=True)
    if out is not None and isinstance(out, Tensor):
        input = _nansum_out_input(input, dtype, out)
        x = input._data
    if dtype is not None:
        dt = _dtype.to_dtype(dtype, "nansum")
        no_integral_grad(input, dt)
        np_dtype = _dtype.numpy_dtype(dt)
    elif x.dtype.kind in "biu":
        np_dtype = _dtype.int64.np
    else:
        np_dtype = None
    result = Nansum.apply(input, dims=dims, keepdim=keepdim, np_dtype=np_dtype)
    if result._grad_fn is not None:  # grad_fn._saved_dim: the dims as given
        result._grad_fn.given_dim = dim
    return _out_cast(result, out, dtype)


def _saved_given_dims(dim):
    """grad_fn._saved_dim of a reduction over an optional list of dims as torch's shows it: None
    without one, else a tuple of the dims as given (a negative one read back unsigned)."""
    if dim is None:
        return None
    dims = dim if isinstance(dim, (list, tuple)) else (dim,)
    return tuple(saved_uint64(operator.index(d)) for d in dims)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-nan elements. Mirrors torch.nanmean."""
    try:
        floating = input.dtype.is_floating_point
    except AttributeError:  # a list (or ndarray) where a tensor belongs: zero-cost when a tensor
        raise not_tensor("nanmean", input) from None
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error("nanmean", dim, keepdim)
    if out is not None:
        return _nanmean_out(input, dim, keepdim, dtype, out, floating)
    if dtype is not None and not floating:  # torch checks the input first
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_short(input.dtype)}"
        )
    if dtype is not None:
        dt = _dtype.to_dtype(dtype, "nanmean")
        if not dt.is_floating_point:  # (the input is floating here: checked above)
            raise RuntimeError(
                "nanmean(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {_short(dt)}"
            )
        input = cast(input, dt)
    elif not floating:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_short(input.dtype)}"
        )
    x = input._data
    dims = reduce_dims(dim, x.ndim, "nanmean")
    xp = input._device.backend.xp
    count = xp.asarray((x == x).sum(axis=dims, keepdims=keepdim), dtype=x.dtype)
    if keepdim:  # (the quotient follows its operands' layout: both torch's)
        count = keep_row_major(x, count)
    return nansum(input, dim, keepdim) / _const(count, input)


def _nanmean_out(input, dim, keepdim, dtype, out, floating):
    """nanmean with out=: torch's nansum into out (its dtype rules and errors: NOTE [ Reduction
    out= dtypes ]), then out divided by the count of non-nan elements."""
    if not floating:
        raise RuntimeError(
            "nanmean(): integral types and 'Bool' are not supported for nanmean, even for empty "
            "tensors."
        )
    if dtype is not None and not _dtype.to_dtype(dtype, "nanmean").is_floating_point:
        raise RuntimeError(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {_short(_dtype.to_dtype(dtype, 'nanmean'))}"
        )
    total = nansum(input, dim, keepdim, dtype=dtype, out=out)
    x = input._data
    dims = reduce_dims(dim, x.ndim, "nanmean")
    xp = input._device.backend.xp
    count = xp.asarray((x == x).sum(axis=dims, keepdims=keepdim), dtype=total._data.dtype)
    return _out(total / _const(count, input), out)


# --- max, min, amax, amin ---


def _tie_weights(xp, x, out_keep, dims, *, nan_ties=False):
    """1/k on each of the k elements equal to their slice's extreme. A NaN extreme equals
    nothing (amax's formula in torch, mask / mask.sum()): 0 / 0 puts NaN across its whole slice;
    with nan_ties, a NaN extreme's k are the slice's NaNs (the inf-norms' gradient)."""
    mask = x == out_keep
    if nan_ties:
        mask |= xp.isnan(x) & xp.isnan(out_keep)
    count = mask.sum(axis=dims, keepdims=True)
    with quiet(xp, invalid="ignore"):  # 0 / 0: the NaN slices
        return xp.asarray(mask / count, dtype=x.dtype)


def extreme(xp, x, kind, dims, keepdim):
    """The array x's max (kind "min": min) over dims (None: all). On the host, for NumPy's own
    dtypes, the ufunc that ndarray.max runs, minus NumPy's two Python frames (NOTE [ Reductions
    call the ufunc ]): the same values, NaN propagation and (no) warnings. Elsewhere (CuPy,
    whose maximum has no reduce; bfloat16, whose NaN comparisons warn) the array's method."""
    if xp is _CPU_XP and x.dtype.kind in "fiub":
        return _CPU_EXTREMES[kind].reduce(x, axis=dims, keepdims=keepdim)
    return quiet_extreme(xp, x, x.max if kind == "max" else x.min, axis=dims, keepdims=keepdim)


class Amax(Function):
    """out = max (or min, by `kind`) of a over dims;  the gradient is split evenly among ties"""

    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {
        "dim": lambda node: tuple(saved_uint64(d) for d in node.__dict__.get("given_dims", ())),
        "keepdim": "keepdim",
    }

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, kind):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # (_setup, inlined)
        if dims == (x.ndim - 1,) and x.dtype.kind in "fiu":  # NumPy's own dtypes: see max_last
            out = max_last(ctx.xp, x, kind)
            out = out if keepdim else out.reshape(x.shape[:-1])
        else:
            out = ctx.xp.asarray(extreme(ctx.xp, x, kind, dims, keepdim))
        out = keep_row_major(x, out) if keepdim else row_major(ctx.xp, out)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        out_keep = out._data.reshape(keep_shape(ctx.shape, ctx.dims))
        w = _tie_weights(ctx.xp, a._data, out_keep, ctx.dims)
        return _keepdim(grad, ctx) * _const(w, grad)

    @staticmethod
    def _backward_data(ctx, grad):
        # backward's product, slice by slice: its weights are one value per slice where x
        # equals the extreme (1 / k, rounded to x's dtype as _tie_weights rounds it) and one
        # elsewhere (0 / k: 0, or NaN for a NaN slice, k = 0), so the gradient times each is
        # taken on the reduced shape and one `where` writes the result: 3 full-size passes
        # instead of 5 and no float64 array of weights ((256, 512) amax(1): ~3x faster)
        x, out = ctx._stored_arrays()
        xp = ctx.xp
        g = _keepdim_data(grad, ctx)
        if g.dtype != x.dtype:
            return NotImplemented
        mask = x == out.reshape(keep_shape(ctx.shape, ctx.dims))
        count = mask.sum(axis=ctx.dims, keepdims=True)
        with quiet(xp, invalid="ignore", divide="ignore"):  # 0 / 0 and 1 / 0: NaN slices
            hit = xp.asarray(1.0 / count, dtype=x.dtype)
            miss = xp.asarray(0.0 / count, dtype=x.dtype)
        return xp.where(mask, g * hit, g * miss)


class Amin(Amax):
    pass


class MaxAll(Amax):
    """out = max (or min) of all of a;  grad_a = grad / k at each of the k extremes (the NaNs when
    it is NaN), +0. elsewhere: torch's CPU backward (evenly_distribute_backward) writes into zeros,
    so a negative or NaN upstream gradient leaves the other elements +0. (amax's mask product
    gives -0. there, in torch too)"""

    _node_name = "MaxBackward1"
    _saved_attrs = {}  # (only _saved_self and _saved_result, as torch's)
    _backward_data = None  # (not Amax's: its own formula below)

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        xp = ctx.xp
        x, m = a._data, out._data
        hit = (x == m) | (xp.isnan(x) & xp.isnan(m))
        count = _const(xp.asarray(hit.sum(), dtype=x.dtype), grad)  # stays on the device
        from minitorch._ops.pointwise import where

        return where(_const(hit, grad), grad / count, 0.0)


class MinAll(MaxAll):
    _node_name = "MinBackward1"


class MaxDim(Function):
    """(values, indices) of the max (or min) along dim;  the gradient goes to the index taken"""

    _node_name = "MaxBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's): the dim as given, the indices returned
        "dim": lambda node: saved_uint64(node.__dict__.get("given_dim", node.dims[0])),
        "indices": saved_watched(0),
        "keepdim": "keepdim",
        "self_sym_sizes": saved_sizes,
    }

    @staticmethod
    def forward(ctx, a, *, dim, keepdim, kind):
        x = a._data
        xp = ctx.xp
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, (dim,), keepdim  # (_setup, inlined)
        if x.ndim == 0:
            ctx.idx = None
            return x.copy(), xp.zeros((), dtype=_dtype.int64.np)
        # the array methods (keepdims): xp.argmax and xp.expand_dims dispatch in Python
        idx = (x.argmax if kind == "max" else x.argmin)(axis=dim, keepdims=True)
        values = take_at(xp, x, idx, dim)
        ctx.idx = idx
        if not keepdim:
            values, idx = values.squeeze(dim), idx.squeeze(dim)
        return values, idx.astype(_dtype.int64.np, copy=False)

    @staticmethod
    def backward(ctx, grad, grad_indices=None):
        # (one gradient: See NOTE [ Outputs that are not differentiable ])
        if ctx.idx is None:
            return grad
        # ctx.idx is the returned indices' memory (NOTE [ Watched index tensors ])
        check_watched(ctx)
        from minitorch._ops.pointwise import where

        # a selection, as torch's scatter into zeros: an inf upstream gradient leaves the
        # other elements +0. (a product with the mask would make them inf * 0 = NaN)
        return where(_const(_one_hot(ctx), grad), _keepdim(grad, ctx), 0.0)

    @staticmethod
    def _backward_data(ctx, grad, grad_indices=None):
        # backward's selection as a scatter of the gradient into zeros (the mask's pass, the
        # where's pass and their two Tensor ops go): the same array, +0 elsewhere, on the host
        if ctx.idx is None or ctx.xp is not _CPU_XP:
            return NotImplemented
        check_watched(ctx)
        g = _keepdim_data(grad, ctx)
        out = _CPU_XP.zeros(ctx.shape, dtype=g.dtype)
        _CPU_XP.put_along_axis(out, ctx.idx, g, axis=ctx.dims[0])
        return out


def take_at(xp, x, idx, dim):
    """xp.take_along_axis(x, idx, axis=dim) for idx of argmax's keepdims shape: on the host, a
    1-d or 2-d x is indexed directly with the index arrays take_along_axis would build (the
    same gather: its Python-level setup cost more than the gather itself, 2.9 -> 1.1 us on a
    (32, 32) x)."""
    if xp is _CPU_XP and x.ndim <= 2:
        if x.ndim == 1:
            return x[idx]
        if dim:
            return x[_CPU_XP.arange(x.shape[0]).reshape(-1, 1), idx]
        return x[idx, _CPU_XP.arange(x.shape[1])]
    return xp.take_along_axis(x, idx, axis=dim)


def _one_hot(ctx):
    """A bool mask of the input's shape: True at the index taken along ctx.dims[0]."""
    dim = ctx.dims[0]
    n = ctx.shape[dim]
    pos = ctx.xp.arange(n).reshape(tuple(n if i == dim else 1 for i in range(len(ctx.shape))))
    return pos == ctx.idx


class MinDim(MaxDim):
    _node_name = "MinBackward0"


def _check_nonempty(x, dims, op):
    if x.size:
        return
    if dims is None:
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
            "reduction dim with the 'dim' argument."
        )
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


_MAX_MIN_FORMS = (
    "Tensor input, *, Tensor out = None",
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None",
)


def _max_min_invalid(kind, input, args, kwargs):
    """See NOTE [ Argument parser errors ]."""
    return _errors.invalid_arguments(kind, _MAX_MIN_FORMS, (input, *args), kwargs)


def _called(args, dim, keepdim, by_keyword, other=None):
    """The keyword arguments of a max/min call as torch lists them: in the reverse of the order
    they were passed, here taken to be dim, other, keepdim."""
    kwargs = {} if keepdim is _MISSING or len(args) == 2 else {"keepdim": keepdim}
    if other is not None:
        kwargs["other"] = other
    if by_keyword:
        kwargs["dim"] = dim
    return kwargs


# NOTE [ max/min overloads ]
# torch.max/min have three overloads: (input), (input, Tensor other) and (input, int dim,
# bool keepdim=False). A Tensor in the second slot is `other` only when it is passed
# positionally with no keepdim at all: max(x, t). Given as dim=t, or followed by a keepdim
# (positional or keyword), it must be the int dim, and torch's parser accepts a 0-d integer
# (non-bool) tensor as an int there (dim computed by tensor code); any other tensor is a
# TypeError. Telling max(x, t) from max(x, dim=t) needs the positional slot, hence *args.
def _max_min(kind, input, args, dim, keepdim, out, axis, keepdims, other):
    if input.__class__ is Tensor and out is None and other is None and axis is None and (
        keepdims is None
    ):  # The common calls skip the full parse below: x.max() here, x.max(d[, keepdim]) with an
        # int d and a bool keepdim (by keyword too) in _max_min_dim
        if args or dim is not _MISSING:
            result = _max_min_dim(kind, input, args, dim, keepdim)
            if result is not None:
                return result
        elif keepdim is _MISSING and input._data.size:
            if (  # NOTE [ The no-grad fast path ]: Amax.forward's full max (extreme)
                input._device is _CPU
                and not (input._requires_grad and _grad_state.enabled)
                and fast_path[0]
                and input._data.dtype.kind in "fiub"
            ):
                return plain_result(_CPU_EXTREMES[kind].reduce(input._data, axis=None), _CPU)
            fn = MaxAll if kind == "max" else MinAll
            return fn.apply(input, dims=None, keepdim=False, kind=kind)
    if not isinstance(input, Tensor):  # NOTE [ Overloaded reductions ]
        from minitorch._ops._parser_errors import overload_error

        given = (("dim", dim), ("keepdim", keepdim), ("other", other), ("out", out))
        named = [("input", input), *(("", a) for a in args)]
        named += [(k, v) for k, v in given if v is not _MISSING and v is not None]
        raise overload_error(kind, _MAX_MIN_FORMS, (), named)
    if len(args) > 2:
        raise too_many_positional(kind, len(args) + 1, 3, 2)
    if args and dim is not _MISSING:
        raise _max_min_invalid(kind, input, args, _called(args, dim, keepdim, True))
    if len(args) == 2 and keepdim is not _MISSING:
        raise TypeError(f"{kind}() got multiple values for argument 'keepdim'")
    by_keyword = dim is not _MISSING
    if args:
        dim = args[0]
        if len(args) == 2:
            keepdim = args[1]
    keepdim_given = keepdim is not _MISSING
    if other is not None:  # max(a, other=b): the binary form by keyword
        if dim is not _MISSING or keepdim_given or not isinstance(other, Tensor):
            kwargs = _called(args, dim, keepdim, by_keyword, other)
            raise _max_min_invalid(kind, input, args, kwargs)
        dim = other
    if isinstance(dim, Tensor):
        if not (by_keyword or keepdim_given):  # max(a, b): the elementwise binary form
            from minitorch._ops.pointwise import maximum, minimum

            return (maximum if kind == "max" else minimum)(input, dim, out=out)
        dt = dim.dtype
        if dim.ndim != 0 or dt.is_floating_point or dt.is_complex or dt == _dtype.bool:
            raise _max_min_invalid(kind, input, args, _called(args, dim, keepdim, by_keyword))
        dim = operator.index(dim)  # reads the value back, as torch's parser does
    if dim is _MISSING:  # NOTE [ keepdim without dim ]
        if keepdim_given or keepdims is not None:
            _keepdim_needs_dim(kind, keepdim, keepdims, axis, _MAX_MIN_FORMS)
        dim = None
    elif dim is None:  # the dim overload takes an int only; max(x) is the full reduction
        raise _max_min_invalid(kind, input, args, _called(args, dim, keepdim, by_keyword))
    if keepdim is _MISSING:
        keepdim = False
    dim, keepdim = _dim_aliases(dim, keepdim, axis, keepdims)
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        name = "keepdims" if keepdims is not None else "keepdim"
        kwargs = {} if out is None else {"out": out}
        if len(args) < 2:
            kwargs[name] = keepdim
        if by_keyword:
            kwargs["dim"] = dim  # (torch lists it after keepdim)
        raise _max_min_invalid(kind, input, args, kwargs)
    x = input._data
    if dim is None:
        _check_nonempty(x, None, kind)
        fn = MaxAll if kind == "max" else MinAll
        result = fn.apply(input, dims=None, keepdim=False, kind=kind)
        if isinstance(out, Tensor) and not _dtype.can_cast(result.dtype, out.dtype):
            from minitorch._ops.inplace import refuse_out_autograd

            refuse_out_autograd(kind, out, input)  # torch's autograd check comes first
            # torch's full max/min out= kernel states its cast check this way
            raise RuntimeError(
                "Expected canCast( typeMetaToScalarType(self.dtype()), "
                "typeMetaToScalarType(out.dtype())) to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement request to "
                "PyTorch.)"
            )
        return _out(result, out)
    if isinstance(dim, (float, bool)) or not hasattr(type(dim), "__index__"):
        kwargs = _called(args, dim, keepdim if keepdim_given else _MISSING, by_keyword)
        raise _max_min_invalid(kind, input, args, kwargs)
    d = wrap_dim(operator.index(dim), x.ndim, kind)
    if x.ndim:
        _check_nonempty(x, (d,), kind)
    fn = MaxDim if kind == "max" else MinDim
    values, indices = fn.apply(input, dim=d, keepdim=keepdim, kind=kind)
    if values._grad_fn is not None:
        watch_index(values._grad_fn, indices)
        values._grad_fn.given_dim = operator.index(dim)
    if out is not None:
        from minitorch._ops.inplace import check_out_tuple

        check_out_tuple(out, 2, kind, 3)
        _out_exact(values, out[0])
        _out_exact(indices, out[1])
        return getattr(return_types, kind + "_out")(tuple(out))  # torch's max_out / min_out
    return getattr(return_types, kind)((values, indices))


def _max_min_dim(kind, input, args, dim, keepdim):
    """(values, indices) of a plain non-empty tensor's max/min along an int dim in range, given
    as (d,), (d, keepdim) or dim=d, with a bool keepdim (by keyword too): what _max_min's full
    parse computes; None for any other call (the full parse reads those, and raises its errors)."""
    n = len(args)
    if n:
        if dim is not _MISSING or args[0].__class__ is not int or n > 2:
            return None
        dim = args[0]
        if n == 2:
            if keepdim is not _MISSING:
                return None
            keepdim = args[1]
    elif dim.__class__ is not int:
        return None
    if keepdim is _MISSING:
        keepdim = False
    elif keepdim.__class__ is not bool:
        return None
    x = input._data
    nd = x.ndim
    if not (-nd <= dim < nd and x.size):  # (a 0-d x too)
        return None
    fn = MaxDim if kind == "max" else MinDim
    if (  # NOTE [ The no-grad fast path ]: MaxDim.forward, with apply's ctx for no node
        input._device is _CPU
        and not (input._requires_grad and _grad_state.enabled)
        and fast_path[0]
        and x.dtype.kind in "fiub"
    ):
        values, indices = fn.forward(
            _CPU_NULL_CTX, input, dim=dim % nd, keepdim=keepdim, kind=kind
        )
        values, indices = plain_result(values, _CPU), plain_result(indices, _CPU)
    else:
        values, indices = fn.apply(input, dim=dim % nd, keepdim=keepdim, kind=kind)
        if values._grad_fn is not None:
            watch_index(values._grad_fn, indices)
            values._grad_fn.given_dim = dim
    # (return_types' constructor, past its check of the sequence's length)
    return tuple.__new__(return_types.max if kind == "max" else return_types.min, (values, indices))


def max(
    input, *args, dim=_MISSING, keepdim=_MISSING, out=None, axis=None, keepdims=None, other=None
):
    """The largest element; with `dim`, (values, indices); with a tensor (`other`), the
    elementwise maximum. Mirrors torch.max (ties of the full reduction share the gradient
    evenly); see NOTE [ max/min overloads ] for how a tensor second argument is read."""
    return _max_min("max", input, args, dim, keepdim, out, axis, keepdims, other)


def min(
    input, *args, dim=_MISSING, keepdim=_MISSING, out=None, axis=None, keepdims=None, other=None
):
    """The smallest element; with `dim`, (values, indices); with a tensor (`other`), the
    elementwise minimum. Mirrors torch.min; see NOTE [ max/min overloads ]."""
    return _max_min("min", input, args, dim, keepdim, out, axis, keepdims, other)


def _amax_amin(fn, op, input, dim, keepdim, out):
    try:
        x = input._data
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor(op, input) from None
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error(op, dim, keepdim)
    if dim.__class__ is int and out is None and x.size and -x.ndim <= dim < x.ndim:
        # the common call (x.amax(d), a non-empty x) skips the checks below
        result = fn.apply(input, dims=(dim % x.ndim,), keepdim=keepdim, kind=op[1:])
        if result._grad_fn is not None:  # grad_fn._saved_dim: the dims as given
            result._grad_fn.given_dims = (dim,)
        return result
    if out is not None and isinstance(out, Tensor) and out.dtype is not input.dtype:
        _out_exact(input, out, op)  # (its error: torch checks out's dtype before the dims)
    if not x.size and x.ndim and dim is not None:
        # torch checks each dim as given (its message keeps a negative one) before repeats
        for d in dim if isinstance(dim, (list, tuple)) else (dim,):
            if x.shape[wrap_dim(_as_int(d, op), x.ndim, op)] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    dims = reduce_dims(dim, x.ndim, op)
    _check_nonempty(x, dims, op)
    result = fn.apply(input, dims=dims, keepdim=keepdim, kind=op[1:])
    if result._grad_fn is not None:  # grad_fn._saved_dim: the dims as given
        given = dim if isinstance(dim, (list, tuple)) else () if dim is None else (dim,)
        result._grad_fn.given_dims = tuple(operator.index(d) for d in given)
    return _out_exact(result, out, op)


def amax(input, dim=(), keepdim=False, *, out=None):
    """Max over dims (all by default); ties share the gradient evenly. Mirrors torch.amax."""
    return _amax_amin(Amax, "amax", input, dim, keepdim, out)


def amin(input, dim=(), keepdim=False, *, out=None):
    """Min over dims (all by default); ties share the gradient evenly. Mirrors torch.amin."""
    return _amax_amin(Amin, "amin", input, dim, keepdim, out)


class Aminmax(Function):
    """(min, max) over dim (or all);  each gradient is split evenly among its ties"""

    _saved_names = ("self", "min", "max")  # grad_fn._saved_<name> (as torch's): dim as given
    _saved_attrs = {
        "dim": lambda node: None if node.dim is None else saved_uint64(node.dim),
        "keepdim": "keepdim",
    }

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, dim=None):
        x = a._data
        xp = ctx.xp
        _setup(ctx, x, dims, keepdim)
        ctx.dim = dim
        lo = xp.asarray(quiet_extreme(xp, x, x.min, axis=dims, keepdims=keepdim))
        hi = xp.asarray(quiet_extreme(xp, x, x.max, axis=dims, keepdims=keepdim))
        if dims is not None and not x.flags.c_contiguous:  # torch's layout (keep_row_major)
            if keepdim:
                lo, hi = lo.copy(), hi.copy()
            else:
                lo, hi = row_major(xp, lo), row_major(xp, hi)
        ctx.save_for_backward(a, lo, hi)
        return lo, hi

    @staticmethod
    def backward(ctx, grad_lo, grad_hi):
        a, lo, hi = ctx._stored_tensors
        ks = keep_shape(ctx.shape, ctx.dims)
        w_lo = _tie_weights(ctx.xp, a._data, lo._data.reshape(ks), ctx.dims)
        w_hi = _tie_weights(ctx.xp, a._data, hi._data.reshape(ks), ctx.dims)
        return _keepdim(grad_lo, ctx) * _const(w_lo, a) + _keepdim(grad_hi, ctx) * _const(w_hi, a)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """(min, max) in one call. Mirrors torch.aminmax."""
    check_tensors("aminmax", ("input", input))
    if out is not None:
        from minitorch._ops.inplace import check_out_tuple

        check_out_tuple(out, 2, "aminmax", 3)
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error("aminmax", dim, keepdim, pos=None)
    if dim is not None and dim.__class__ is not int:  # `int? dim`: no tuple of dims
        dim = check_int("aminmax", dim, "dim")
    x = input._data
    dims = reduce_dims(dim, x.ndim, "aminmax", pos=None)  # (keyword-only)
    if x.size == 0 and dims is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
            "identity."
        )
    if x.size == 0:
        for d in dims:
            if x.shape[d] == 0:  # torch: IndexError once a dim is named
                raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    lo, hi = Aminmax.apply(input, dims=dims, keepdim=keepdim, dim=dim)
    if out is not None:
        # torch's aminmax kernel casts into neither out (see NOTE [ Reduction out= dtypes ]);
        # both checked before either is written
        for o in out:
            if isinstance(o, Tensor) and o.dtype is not lo.dtype:
                raise _dtype.out_dtype_error(lo._data.dtype, o._data.dtype)
        _out(lo, out[0])
        _out(hi, out[1])
        return return_types.aminmax_out(tuple(out))
    return return_types.aminmax((lo, hi))


def _arg(kind, input, dim, keepdim, axis=None, keepdims=None):
    if axis is not None or keepdims is not None:
        if axis is not None and dim is not None:  # (torch's parser: the alias is unknown there)
            raise unexpected_keyword(kind, "axis")
        if keepdims is not None and keepdim is not False:
            raise unexpected_keyword(kind, "keepdims")
        dim, keepdim = _dim_aliases(dim, keepdim, axis, keepdims)
    if not isinstance(input, Tensor):
        raise not_tensor(kind, input)
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error(kind, dim, keepdim)
    x = input._data
    xp = input._device.backend.xp
    if dim is not None and dim.__class__ is not int:  # a parse error: before the dtype's
        dim = check_int(kind, dim, "dim", 2)  # NOTE [ Int-like arguments ]: not a bool
    if x.dtype == bool:
        raise RuntimeError(f"{kind}(): does not support bool input")
    fn = xp.argmax if kind == "argmax" else xp.argmin
    if dim is None:
        if x.size == 0:
            raise IndexError(
                f"{kind}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        idx = fn(x.reshape(-1))
        out = xp.asarray(idx, dtype=_dtype.int64.np)
        if keepdim:
            out = out.reshape((1,) * x.ndim)
        return _const(out, input)
    d = wrap_dim(dim, x.ndim, kind)
    if x.ndim == 0:
        return _const(xp.zeros((), dtype=_dtype.int64.np), input)
    _check_nonempty(x, (d,), kind)
    idx = xp.asarray(fn(x, axis=d), dtype=_dtype.int64.np)
    if keepdim:
        idx = xp.expand_dims(idx, d)
    return _const(idx, input)


def argmax(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Index of the largest element (of the flattened input when dim is None). Mirrors torch."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        kwargs = {"out": out, "axis": axis, "keepdims": keepdims}
        return run_converted(argmax, (input, dim, keepdim), kwargs)
    return _out_exact(_arg("argmax", input, dim, keepdim, axis, keepdims), out)


def argmin(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Index of the smallest element (of the flattened input when dim is None). Mirrors torch."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        kwargs = {"out": out, "axis": axis, "keepdims": keepdims}
        return run_converted(argmin, (input, dim, keepdim), kwargs)
    return _out_exact(_arg("argmin", input, dim, keepdim, axis, keepdims), out)


# --- logsumexp ---


class Logsumexp(Function):
    """out = log(sum(exp(a))) over dims, shifted by the max;  grad_a = grad * exp(a - out)"""

    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {
        "dim": lambda node: _saved_given_dims(node.__dict__.get("given_dim", node.dims)),
        "keepdim": "keepdim",
    }

    @staticmethod
    def forward(ctx, a, *, dims, keepdim, result_dtype=None):
        x = a._data
        ctx.shape, ctx.dims, ctx.keepdim = x.shape, dims, keepdim  # _setup, inlined (hot: losses)
        out = Logsumexp.kernel(ctx.xp, x, dims, keepdim, result_dtype)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def kernel(xp, x, dims, keepdim, result_dtype=None):
        """logsumexp of the array x over dims, in result_dtype (default: x's)."""
        dt = x.dtype
        rdt = dt if result_dtype is None else result_dtype  # out='s dtype may differ
        if x.size == 0:
            shape = keep_shape(x.shape, dims)
            if not keepdim:
                shape = _drop(x.shape, dims)
            out = xp.full(shape, -float("inf"), dtype=rdt)
        elif rdt is dt and (dt.itemsize >= 4 or not opmath_dtype(dt)):
            m = max_last(xp, x) if dims == (x.ndim - 1,) else extreme(xp, x, "max", dims, True)
            m = _finite_shift(xp, m)
            # all -inf: log(0) = -inf (NumPy's warning: to the kernel-module filter, as softmax's);
            # the sum is ndarray.sum's ufunc (NOTE [ Reductions call the ufunc ]: its terms, at
            # most 1 or inf, cannot overflow)
            out = xp.log(xp.add.reduce(xp.exp(x - m), axis=dims, keepdims=True)) + m
            if not keepdim:
                out = out.reshape(_drop(x.shape, dims))
            out = xp.asarray(out, dtype=dt)
        else:
            out = _logsumexp_rounded(xp, x, dims, keepdim, rdt)
        if out.ndim > 1 and not out.flags.c_contiguous:  # NumPy kept a permuted input's order
            out = xp.ascontiguousarray(out)  # torch's result is row-major
        return out

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import exp

        a, out = ctx._stored_tensors
        return _keepdim(grad, ctx) * exp(a - _keepdim(out, ctx))

    @staticmethod
    def _backward_data(ctx, grad):
        a, out = ctx._stored_arrays()
        kept = _keepdim_data(grad, ctx)
        if kept is not grad:  # (out has grad's shape: the same reshape)
            grad, out = kept, out.reshape(kept.shape)
        xp = ctx.xp
        e = xp.subtract(a, out)  # (a fresh array of a's shape: exp and the product in place)
        if not e.ndim:  # (0-d: NumPy's result is a scalar)
            return grad * xp.exp(e)
        xp.exp(e, out=e)
        return xp.multiply(grad, e, out=e)


def _finite_shift(xp, m):
    """logsumexp's shift m (the max), leaving no inf - inf where it is inf (a row all -inf, or
    one holding +inf): the nearest finite value there, one ufunc call where a `where` on isinf
    takes two. The results are a shift by 0's: such a row's -inf or inf whatever the shift; a NaN
    max stays NaN."""
    dt = m.dtype
    if dt.kind != "f":  # (a complex logsumexp: its own test)
        return xp.where(xp.isinf(m), 0, m)
    bounds = _FINITE_MAX.get(dt)
    if bounds is None:
        top = xp.finfo(dt).max
        bounds = _FINITE_MAX[dt] = (-top, top)
    lo, hi = bounds
    return _clip(xp)(m, lo, hi)


# a float dtype -> its finite range, as NumPy scalars of that dtype: clip takes them without
# converting Python floats (a (16, 1) float32 shift: 10.0k -> 7.5k instructions a call)
_FINITE_MAX = {}


def _clip(xp):
    """xp.clip, or on the CPU the ufunc it calls for a float array between two number bounds
    (the same values without np.clip's two Python frames)."""
    return _CPU.backend.clip_ufunc if xp is _CPU_XP else xp.clip


# NOTE [ logsumexp's roundings ]
# torch's logsumexp is a composite of ops, each rounding its result to its tensor's dtype:
# m = amax(x); e = exp(x - m) in x's dtype (x - m rounded first); s = the sum of e into the
# result's dtype (out='s: e cast to it element by element, then summed); log(s) in the result's
# dtype; then + m, computed in the wider of the two dtypes and rounded to the result's. A half
# step is computed in float32 and rounded once (opmath). With one float32/float64 dtype
# throughout none of this rounds anything, and Logsumexp.forward takes its short path.


def _logsumexp_rounded(xp, x, dims, keepdim, rdt):
    """logsumexp of the array x into dtype rdt, rounding as torch's composite (NOTE
    [ logsumexp's roundings ])."""
    dt = x.dtype
    xw = x.astype("float32") if opmath_dtype(dt) else x
    m = max_last(xp, xw) if dims == (x.ndim - 1,) else xw.max(axis=dims, keepdims=True)
    m = xp.where(xp.isinf(m), 0, m)
    e = xp.exp((xw - m).astype(dt).astype(xw.dtype)).astype(dt)
    acc = opmath_dtype(rdt) or rdt
    s = e.astype(rdt).astype(acc).sum(axis=dims, keepdims=True).astype(rdt)
    with quiet(xp, divide="ignore"):  # all -inf: log(0) = -inf
        log_s = xp.log(s.astype(acc)).astype(rdt)
    wide = xp.promote_types(rdt, dt) if rdt.itemsize != dt.itemsize else rdt
    if rdt is not dt and rdt.itemsize == dt.itemsize:  # float16 with bfloat16: float32
        wide = xp.dtype("float32")
    wide = opmath_dtype(wide) or wide
    out = (log_s.astype(wide) + m.astype(wide)).astype(rdt)
    if not keepdim:
        out = out.reshape(_drop(x.shape, dims))
    return out


def logsumexp(input, dim=_MISSING, keepdim=False, *args, out=None):
    """log(sum(exp(input))) over dims, computed stably. Mirrors torch.logsumexp."""
    return _logsumexp("logsumexp", input, dim, keepdim, out, args)


def _logsumexp(op, input, dim, keepdim, out, extra=()):
    """logsumexp under torch's name `op` (torch.special.logsumexp reports special_logsumexp);
    extra: positional arguments past keepdim (torch's parser counts dim as required)."""
    if extra:
        raise too_many_positional(op, 3 + len(extra), 3, 2)
    try:
        x = input._data
    except AttributeError:  # torch.logsumexp(list_of_logprobs, 0): the forgotten stack
        raise not_tensor(op, input) from None
    if keepdim.__class__ is not bool:  # NOTE [ keepdim must be a bool ]
        raise keepdim_error(op, dim, keepdim)
    if dim.__class__ is int and out is None and x.dtype.kind == "f" and -x.ndim <= dim < x.ndim:
        # the common call (x.logsumexp(d), a float16/32/64 x) skips the checks below
        dims = (dim % x.ndim,)
        if (  # NOTE [ The recorded fast path ] in minitorch/autograd/function.py
            input.__class__ is Tensor
            and input._device is _CPU
            and input._requires_grad
            and _grad_state.enabled
            and fast_path[0]
        ):
            return _recorded_logsumexp(input, x, dims, keepdim, dim)
        result = Logsumexp.apply(input, dims=dims, keepdim=keepdim)
        if result._grad_fn is not None:  # grad_fn._saved_dim: the dims as given
            result._grad_fn.given_dim = dim
        return result
    if out is not None and isinstance(out, Tensor) and dim is not _MISSING and dim is not None:
        # computed in out's dtype, which must be a float (the message names logsumexp either way;
        # checked before an empty dim tuple's kernel error, after the parser's of no dim)
        if not out.dtype.is_floating_point:
            raise RuntimeError(
                "logsumexp(): Expected floating point type for result tensor, but got: "
                f"{_short(out.dtype)}"
            )
    if dim is _MISSING or dim is None or (dim.__class__ in (tuple, list) and not dim):
        _logsumexp_dim_check(op, x, dim, keepdim)
    if not input.dtype.is_floating_point:
        input = cast(input, _dtype.default_float())
    dims = reduce_dims(dim, x.ndim, "logsumexp")
    if out is not None and isinstance(out, Tensor) and out.dtype is not input.dtype:
        # computed into out's dtype (NOTE [ logsumexp's roundings ])
        result = Logsumexp.apply(input, dims=dims, keepdim=keepdim, result_dtype=out._data.dtype)
    else:
        result = Logsumexp.apply(input, dims=dims, keepdim=keepdim)
    if result._grad_fn is not None:  # grad_fn._saved_dim: the dims as given
        result._grad_fn.given_dim = dim
    return _out(result, out)


def _recorded_logsumexp(input, x, dims, keepdim, dim):
    """Logsumexp.apply(input, dims=dims, keepdim=keepdim) of a plain CPU tensor requiring grad
    (its array x), grad mode on, no saved-tensor hooks, with its node's given dim: the kernel
    of Logsumexp.forward and what it keeps, input and result saved in that order."""
    out = Logsumexp.kernel(_CPU_XP, x, dims, keepdim)
    result = record_unary(Logsumexp, out, input, ("self", "result"))
    node = result._grad_fn
    node.shape, node.dims, node.keepdim = x.shape, dims, keepdim
    node.given_dim = dim
    return result


def _logsumexp_dim_check(op, x, dim, keepdim):
    """torch's logsumexp needs its dim: none at all, None, and (for a non-empty input of one or
    more dims, without keepdim) an empty tuple all raise, where the other reductions read them as
    every dim. The empty tuple fails in torch's kernel, which reduces over every dim with keepdim
    and then cannot write the [1, ..., 1] result into its [] output."""
    if dim is _MISSING:
        raise missing_positional(op, "dim")
    if dim is None:  # torch's parser names the position of a dim given by position
        from minitorch._call_site import passed_by_keyword
        from minitorch._ops._common import _called_as_method

        called = op.removeprefix("special_")
        at = "" if passed_by_keyword("dim", called) else 2 - _called_as_method(called)
        at = f" (position {at})" if at else ""
        raise TypeError(f"{op}(): argument 'dim'{at} must be tuple of ints, not NoneType")
    if x.ndim and x.size and not keepdim:
        ones = ", ".join(["1"] * x.ndim)
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{ones}]")
