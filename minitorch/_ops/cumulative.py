"""Cumulative ops along a dim: cumsum, cumprod, cummax/cummin, logcumsumexp; and diff."""

from __future__ import annotations

from minitorch import _dtype, return_types
from minitorch._arg_errors import REQUIRED, missing_positional, too_many_positional
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    _called_as_method,
    cast,
    check_int,
    is_floating,
    not_tensor,
    row_major,
    wrap_dim,
    wrong_type,
)
from minitorch._ops.indexing import saved_watched
from minitorch._ops.reduction import _accumulate_dtype, _const, _out, no_integral_grad
from minitorch._ops.reduction_more import TakeAlong, _watched_pair
from minitorch._ops.scatter_gather import FLAT_PLAN_MAX, flat_along_plan
from minitorch._subclass import dispatching, run_converted
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function, name_node, saved_uint64, watch_index

_CPU_XP = _CPU.backend.xp  # the host's kernels (NOTE [ The no-grad fast path ])

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "diff"]

_MISSING = object()


# --- scans built from whole-array kernels (CuPy has no maximum.accumulate) ---


def _part(ndim, dim, sl):
    return tuple(sl if k == dim else slice(None) for k in range(ndim))


def scan(xp, x, dim, combine):
    """Inclusive scan of an associative `combine(earlier, later)` along dim, in log2(n) steps of
    whole-array kernels (Hillis-Steele). `x` is a tuple of arrays scanned together."""
    n = x[0].shape[dim]
    nd = x[0].ndim
    s = 1
    while s < n:
        head = _part(nd, dim, slice(None, s))  # the first s entries are final already
        left = _part(nd, dim, slice(None, -s))
        right = _part(nd, dim, slice(s, None))
        merged = combine(tuple(a[left] for a in x), tuple(a[right] for a in x))
        x = tuple(xp.concatenate([a[head], m], axis=dim) for a, m in zip(x, merged, strict=True))
        s *= 2
    return x


def running_extreme(xp, x, dim, kind):
    """(running max or min, its index) along dim; a later equal value takes the index, and nan
    wins from where it appears (as torch's cummax/cummin)."""
    n = x.shape[dim]
    pos = xp.arange(n).reshape(tuple(-1 if k == dim else 1 for k in range(x.ndim)))
    idx = xp.broadcast_to(pos, x.shape).astype(_dtype.int64.np)
    floating = is_floating(x.dtype)

    def combine(earlier, later):
        (v0, i0), (v1, i1) = earlier, later
        wins = (v1 >= v0) if kind == "max" else (v1 <= v0)
        if floating:
            wins = wins | xp.isnan(v1)
        return xp.where(wins, v1, v0), xp.where(wins, i1, i0)

    return scan(xp, (x, idx), dim, combine)


def running_extreme_index(xp, x, dim, kind, host):
    """The index of running_extreme(xp, x, dim, kind), the same one (later equals and nans
    take it). On the host, from NumPy's sequential accumulate (cummax along dim 1 of a
    (1000, 1000) float32: 170 -> 32 ms, torch 0.6; CuPy's maximum has no accumulate): the
    index at i is the last j <= i where x_j equals the running extreme there (or is nan), as
    the running value only moves to a later equal or more extreme element."""
    if not host:
        return running_extreme(xp, x, dim, kind)[1]
    ufunc = xp.maximum if kind == "max" else xp.minimum
    n = x.shape[dim]
    if x.size <= _ACCUMULATE_MAX:
        # few elements: NumPy's accumulate along dim itself, no moved axes, float positions or
        # doubling passes ((32, 32) float32 along dim 1: 25 -> 11 us); the same running values
        # (maximum and minimum are exact), so the same hits and indices
        hit = x == ufunc.accumulate(x, axis=dim)
        if is_floating(x.dtype):
            hit |= xp.isnan(x)  # the running value is nan from the first nan on
        pos = xp.arange(n).reshape(tuple(-1 if k == dim else 1 for k in range(x.ndim)))
        idx = xp.maximum.accumulate(hit * pos, axis=dim)
        return idx if idx.flags.c_contiguous else xp.ascontiguousarray(idx)
    # NumPy's accumulate is sequential (~4 ns an element along any axis); float32/float64 data
    # and the positions (as floats, exact below 2**24) take the doubling scan of _host_scan
    # instead: (316, 316) float32 along dim 1, 780 -> 330 us; along dim 0, 790 -> 230 us
    x = xp.moveaxis(x, dim, 0)
    if x.dtype.kind == "f" and x.dtype.itemsize >= 4:
        run = _host_scan(xp, ufunc, xp.array(x, copy=True, order="C"))
    else:
        run = ufunc.accumulate(x, axis=0)
    hit = x == run
    if is_floating(x.dtype):
        hit |= xp.isnan(x)  # the running value is nan from the first nan on
    pos = xp.arange(n, dtype="float32" if n < 1 << 24 else "float64")
    idx = _host_scan(xp, xp.maximum, hit * pos.reshape((-1,) + (1,) * (x.ndim - 1)))
    return xp.moveaxis(idx, 0, dim).astype(_dtype.int64.np, order="C")


# Up to this many elements running_extreme_index takes NumPy's accumulate as it is
_ACCUMULATE_MAX = 2048


def _host_scan(xp, ufunc, r):
    """The running ufunc (maximum or minimum: associative, exact) along dim 0 of r, which it
    consumes: log2(n) whole-array passes, each combining every row with the one s rows before
    (the first s rows are final)."""
    t = xp.empty_like(r)
    s = 1
    while s < r.shape[0]:
        ufunc(r[s:], r[:-s], out=t[s:])
        t[:s] = r[:s]
        r, t = t, r
        s *= 2
    return r


# --- cumsum, cumprod ---


def _flip(xp, x, dim):
    return xp.flip(x, axis=dim)


def _scan_dtype(x):
    """The running sum's or product's dtype: torch's CPU scans accumulate float32 in float64 (a
    float32 running sum of a million 0.1s ends near 100958, torch's at 100000) and half
    precision in float32; the result is rounded to x's dtype."""
    return "float64" if x.dtype == "float32" else _accumulate_dtype(x)


class Cumsum(Function):
    """out_i = sum_{j<=i} a_j (j >= i when reverse);  grad_a = the reverse cumsum of grad"""

    _saved_attrs = {  # grad_fn._saved_dim (as torch's): the dim as given, read back unsigned
        "dim": lambda node: saved_uint64(node.__dict__.get("given_dim", node.dim)),
    }

    @staticmethod
    def forward(ctx, a, *, dim, reverse):
        x = a._data
        xp = ctx.xp
        ctx.dim, ctx.reverse = dim, reverse
        acc = _scan_dtype(x)
        if xp is _CPU_XP and x.dtype == "float32" and x.ndim:
            # float32 on the host: widened once, summed in place and rounded back once, with
            # torch's +0 start in that rounding pass: the same float64 running sums (a scan is
            # sequential along dim, whatever the layout) without NumPy's buffered cast inside
            # the scan, the float64 pass for the +0 and the reversed copy ((2048, 512) along
            # dim 0: 16.6 -> 7.8 ms; torch 14)
            s = (_flip(xp, x, dim) if reverse else x).astype(acc)
            xp.add.accumulate(s, axis=dim, out=s)
            out = xp.empty(x.shape, x.dtype)  # row-major, as below
            return xp.add(_flip(xp, s, dim) if reverse else s, 0.0, out=out)
        if reverse:
            # flipped back, the sums would be a negative-stride view, which a torch tensor never
            # is (x.grad.numpy() would then be refused by from_numpy): own row-major memory
            out = xp.ascontiguousarray(
                _flip(xp, _flip(xp, x, dim).cumsum(axis=dim, dtype=acc), dim)
            )
        else:  # the array's method: C all the way (xp.cumsum's Python wrapper would own its
            # RuntimeWarnings; NOTE [ Reductions call the ufunc ])
            out = row_major(xp, x.cumsum(axis=dim, dtype=acc))
        if out.dtype.kind == "f":  # torch's running sum starts from +0: a leading -0.0 sums to 0.0
            xp.add(out, 0.0, out=out)
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return Cumsum.apply(grad, dim=ctx.dim, reverse=not ctx.reverse)


def _check_call(op, dim, extra, out, *tensors) -> None:
    """The checks torch makes before a scan's kernel runs: its parser's TypeError for more
    positional arguments than (input, dim) (a method's count leaves out self), then, for out=,
    its autograd check (an input or out itself requiring grad: named by op, which a result's
    node cannot tell when only out requires grad), before the kernel's checks of dim and dtypes.
    For calls that give extra positional arguments or out= only."""
    if extra:
        takes = 1 if _called_as_method(op) else 2
        raise too_many_positional(op, takes + len(extra), takes)
    if out is not None and dim is not _MISSING:
        from minitorch._ops.inplace import refuse_out_autograd

        refuse_out_autograd(op, *tensors)


def _along(input, dim, op):
    """(the input as at least 1-d, the wrapped dim, whether it was 0-d). torch's parser names
    every required argument from the first one left out (input REQUIRED: torch.cumsum(dim=0)
    misses "input", "dim")."""
    if dim is _MISSING:
        raise missing_positional(op, *(("input",) if input is REQUIRED else ()), "dim")
    try:
        nd = input._data.ndim
    except AttributeError:  # torch.cumsum(list_of_losses, 0): zero-cost when a tensor
        if input is REQUIRED:
            raise missing_positional(op, "input", "dim") from None
        raise not_tensor(op, input) from None
    d = wrap_dim(dim, nd, op, "dim", 2)  # torch's TypeError for a float, bool or None dim
    if nd == 0:
        return input.reshape((1,)), 0, True
    return input, d, False


def _scan_0d(input: Tensor, name: str) -> Tensor:
    """A scan of a 0-d tensor: a copy of its one element (the gradient passes straight
    through), in one node named as torch's (CumsumBackward0), not a view of a (1,)-shaped scan
    (ViewBackward0) as the reshaped general path would give. Only for a scan whose node saves
    nothing (cumsum): the others run their own op on the 0-d tensor, whose node saves what
    torch's does and so refuses a backward after an in-place change."""
    from minitorch._ops.convert import clone

    return name_node(clone(input), name, (input,))


def _scan_out_dtype(dtype, out, op):
    """The dtype a scan computes in when `out=` is given: torch casts the input to out's dtype
    before scanning (a float16 input into a float64 out accumulates in float64, a float one
    into an int64 out truncates each element first)."""
    if out is None:
        return dtype
    if not isinstance(out, Tensor):
        from minitorch._ops.inplace import out_type_error

        raise out_type_error(out, op)
    if dtype is None:  # (a bool out: _int_to_long's kernel error, or a copy where none runs)
        return out.dtype
    dtype = _dtype.to_dtype(dtype, op)
    if dtype is not out.dtype:
        raise _dtype.out_dtype_error(dtype, out.dtype)
    return dtype


def _int_to_long(input, dtype, op):
    if dtype is not None:
        dtype = _dtype.to_dtype(dtype, op)
        # torch has no bool scan kernel; a 0-d or empty input never reaches one (a copy), nor
        # autograd's dtype check, which comes after the kernel's
        if dtype is _dtype.bool and input._data.ndim and input._data.size:
            raise NotImplementedError(f"\"{op}_out_cpu\" not implemented for 'Bool'")
        no_integral_grad(input, dtype)
        return cast(input, dtype)
    if input.dtype.is_floating_point:
        return input
    return cast(input, _dtype.int64)


def cumsum(input=REQUIRED, dim=_MISSING, *extra, dtype=None, out=None):
    """Cumulative sum along dim (ints and bools as int64). Mirrors torch.cumsum."""
    if extra or out is not None:
        _check_call("cumsum", dim, extra, out, input, out)
    x, d, was_0d = _along(input, dim, "cumsum")
    if out is not None:
        dtype = _scan_out_dtype(dtype, out, "cumsum")
    if was_0d:
        return _out(_scan_0d(_int_to_long(input, dtype, "cumsum"), "CumsumBackward0"), out)
    r = Cumsum.apply(_int_to_long(x, dtype, "cumsum"), dim=d, reverse=False)
    if r._grad_fn is not None and dim.__class__ is int and dim < 0:
        r._grad_fn.given_dim = dim
    return _out(r, out)


def _pairs(t: Tensor, dim: int, role: str) -> Tensor:
    """t with a size-1 axis inserted so its `dim` plays index i (at dim) or j (at dim + 1) of an
    (n, n) pairing of positions along dim."""
    shape = t._data.shape
    at = dim + 1 if role == "i" else dim
    return t.reshape(shape[:at] + (1,) + shape[at:])


def _pair_mask(xp, like: Tensor, dim: int, test) -> Tensor:
    """A bool (n, n) mask test(i, j), placed at (dim, dim + 1) and broadcastable."""
    shape = like._data.shape
    n = shape[dim]
    i = xp.arange(n).reshape(n, 1)
    j = xp.arange(n).reshape(1, n)
    mask = test(i, j).reshape((1,) * dim + (n, n) + (1,) * (len(shape) - dim - 1))
    return _const(mask, like)


# NOTE [ Cumprod backward ]
# grad_a_i = sum_{j>=i} grad_j prod_{k<=j, k!=i} a_k. torch computes it three ways, and its
# numbers differ where a holds nan or inf (a 0 * inf or inf / inf in one but not another), so
# minitorch takes the same three:
# - no zero anywhere in a: reversed_cumsum(out * grad) / a, O(n). [1, nan, 2] gives nan at
#   every i (the division spreads it), [1, inf, 2] gives [inf, nan, inf].
# - a zero somewhere, first-order backward: per slice along dim, the same division before the
#   slice's first zero z1; at z1, out_{z1-1} * sum_{z1<=k<z2} grad_k prod_{z1<k'<=k} a_k' (z2 the
#   next zero; torch multiplies the masked-out grad_k after z2 by the running product too, so an
#   inf there makes nan); 0 after z1. Zero-free slices get the division formula unchanged.
# - a zero somewhere, backward under create_graph: the exact O(n^2) sum of products, since
#   the formula above is not differentiable into the second derivative.
# The "zero somewhere" test is over the whole tensor, as torch's. Reading it would sync a GPU,
# so off the host the first-order case always takes the zero formula (equal to the division one
# on zero-free slices) and create_graph selects between the two formulas on a 0-d device flag.


def _cumprod_grad_divided(a: Tensor, out: Tensor, grad: Tensor, dim: int, keep=None) -> Tensor:
    """sum_{j>=i} grad_j out_j / a_i, over the positions `keep` (a bool Tensor; all if None)."""
    from minitorch._ops.pointwise import where

    w = out * grad
    if keep is None:
        return Cumsum.apply(w, dim=dim, reverse=True) / a
    return Cumsum.apply(where(keep, w, 0.0), dim=dim, reverse=True) / where(keep, a, 1.0)


def _cumprod_grad_first_zero(xp, a: Tensor, out: Tensor, grad: Tensor, dim: int) -> Tensor:
    """torch's first-order gradient for a tensor with zeros (see NOTE [ Cumprod backward ])."""
    from minitorch._ops.pointwise import where
    from minitorch._ops.reduction import sum
    from minitorch._ops.shape_join import cat

    zero = a._data == 0
    seen = zero.cumsum(axis=dim)  # zeros at or before each position
    before = _const(seen == 0, a)
    run = seen == 1  # [z1, z2)
    first = _const(run & zero, a)
    # prod_{z1<k'<=k} a_k' over [z1, z2), and the a's product before z1 (1 where z1 is 0)
    after_first = Cumprod.apply(where(_const(run & ~zero, a), a, 1.0), dim=dim)
    at_first = sum(after_first * where(_const(run, a), grad, 0.0), dim, keepdim=True)
    ones = _const(xp.ones_like(out._data[_part(a.ndim, dim, slice(0, 1))]), a)
    out_before = cat([ones, out.narrow(dim, 0, a._data.shape[dim] - 1)], dim)  # out_{i-1}
    return where(
        before,
        _cumprod_grad_divided(a, out, grad, dim, before),
        where(first, at_first * out_before, 0.0),
    )


def _cumprod_grad_exact(xp, a: Tensor, grad: Tensor, dim: int) -> Tensor:
    """sum_{j>=i} grad_j prod_{k<=j, k!=i} a_k, as products (O(n^2) memory along dim)."""
    from minitorch._ops.pointwise import where
    from minitorch._ops.reduction import sum

    others = where(_pair_mask(xp, a, dim, lambda i, j: i == j), 1.0, _pairs(a, dim, "j"))
    prods = Cumprod.apply(others, dim=dim + 1)  # [i, j] = prod_{k<=j, k!=i} a_k
    upper = _pair_mask(xp, a, dim, lambda i, j: j >= i)
    return sum(where(upper, prods * _pairs(grad, dim, "j"), 0.0), dim + 1)


class Cumprod(Function):
    """out_i = prod_{j<=i} a_j;  grad_a_i = sum_{j>=i} grad_j prod_{k<=j, k!=i} a_k, computed
    as torch does (NOTE [ Cumprod backward ])"""

    _saved_names = ("self", "result")
    _saved_attrs = {  # grad_fn._saved_dim (as torch's): the dim as given, read back unsigned
        "dim": lambda node: saved_uint64(node.__dict__.get("given_dim", node.dim)),
    }

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.dim = dim
        x = a._data
        if x.ndim == 0:  # its one element (backward passes grad through)
            out = x.copy()
        else:
            # the array's method, as cumsum's: NumPy's RuntimeWarning for inf * 0 is then
            # attributed here and silenced (NOTE [ Reductions call the ufunc ]); torch gives nan
            # without a word
            out = x.cumprod(axis=dim, dtype=_scan_dtype(x))
            out = row_major(ctx.xp, out).astype(x.dtype, copy=False)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import where
        from minitorch.autograd.grad_mode import is_grad_enabled

        a, out = ctx._stored_tensors
        d = ctx.dim
        x = a._data
        if x.size <= 1 or x.shape[d] == 1:
            return grad  # out is a: torch passes grad through (an inf a would give inf / inf)
        xp = ctx.xp
        if a._device.type == "cpu":  # no device read
            if not (x == 0).any():
                return _cumprod_grad_divided(a, out, grad, d)
            if is_grad_enabled():
                return _cumprod_grad_exact(xp, a, grad, d)
            return _cumprod_grad_first_zero(xp, a, out, grad, d)
        if not is_grad_enabled():
            return _cumprod_grad_first_zero(xp, a, out, grad, d)
        any_zero = (x == 0).any()
        # the division's zeros replaced by 1: its unused branch must not send 0 / 0 into the
        # second derivative through where's zero gradient
        safe = where(_const(x == 0, a), 1.0, a)
        return where(
            _const(any_zero, a),
            _cumprod_grad_exact(xp, a, grad, d),
            Cumsum.apply(out * grad, dim=d, reverse=True) / safe,
        )


def cumprod(input=REQUIRED, dim=_MISSING, *extra, dtype=None, out=None):
    """Cumulative product along dim (ints and bools as int64). Mirrors torch.cumprod."""
    if extra or out is not None:
        _check_call("cumprod", dim, extra, out, input, out)
    x, d, was_0d = _along(input, dim, "cumprod")
    if out is not None:
        dtype = _scan_out_dtype(dtype, out, "cumprod")
    if was_0d:
        x = input  # Cumprod itself: its node saves self and result, as torch's
    r = Cumprod.apply(_int_to_long(x, dtype, "cumprod"), dim=d)
    if r._grad_fn is not None and dim.__class__ is int and dim < 0:
        r._grad_fn.given_dim = dim
    return _out(r, out)


# --- cummax, cummin ---


class Cummax(TakeAlong):
    _node_name = "CummaxBackward0"
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's): the dim as given, input, indices
        "dim": lambda node: saved_uint64(node.__dict__.get("given_dim", node.dim)),
        "indices": saved_watched(1),
        "self": saved_watched(0),
    }

    @staticmethod
    def forward(ctx, a, *, idx, dim, out_shape):
        x = a._data
        if a._device is not _CPU or not 0 < idx.size < FLAT_PLAN_MAX:
            return TakeAlong.forward(ctx, a, idx=idx, dim=dim, out_shape=out_shape)
        # a small host gather through one flat index (idx: x's shape, within bounds), 3x
        # quicker than take_along_axis's key of aranges: the same elements
        ctx.idx, ctx.dim, ctx.shape = idx, dim, x.shape
        return x.reshape(-1)[flat_along_plan(idx, dim, x.shape).adv[0]].reshape(out_shape)


class Cummin(Cummax):
    _node_name = "CumminBackward0"


def _extreme_0d(input: Tensor, idx, kind: str) -> Tensor:
    """cummax/cummin of a 0-d input: its element, read through gather's node (whose backward
    checks the watched input and indices, as torch's node, which saves both), named as torch's
    (CummaxBackward0), with the gradient passing straight through."""
    from minitorch._ops._index_key import IndexPlan
    from minitorch._ops.scatter_gather import Gather

    plan = IndexPlan((None, Ellipsis), (idx,), None, "Alias", (1,), (), True)
    name = "CummaxBackward0" if kind == "cummax" else "CumminBackward0"
    return name_node(Gather.apply(input, plan=plan), name, (input,))


def _cum_extreme(kind, input, dim, out):
    if out is not None:
        from minitorch._ops.inplace import check_out_tuple

        check_out_tuple(out, 2, kind, 2)
        _check_call(kind, dim, (), out, input, *out)
        if dim.__class__ is int and isinstance(input, Tensor):  # out's dtypes before the dim
            _check_scan_out(input.dtype, out[0])
            _check_scan_out(_dtype.int64, out[1])
    shape = getattr(getattr(input, "_data", None), "shape", None)
    if dim.__class__ is int and shape is not None:
        if not shape and dim not in (-1, 0):
            raise IndexError(f"{kind}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        if 0 in shape and not -len(shape) <= dim < len(shape):
            dim = 0  # torch returns an empty input's empty result before it checks the dim
    x, d, was_0d = _along(input, dim, kind)
    xp = input._device.backend.xp
    if was_0d:
        idx = xp.zeros((), dtype=_dtype.int64.np)
        values = _extreme_0d(input, idx, kind)
    else:
        idx = running_extreme_index(xp, x._data, d, kind[3:], input._device.type == "cpu")
        fn = Cummax if kind == "cummax" else Cummin
        values = fn.apply(x, idx=idx, dim=d, out_shape=idx.shape)
    if values._grad_fn is not None:  # torch saves the input as well as the indices
        watch_index(values._grad_fn, input)
        if not was_0d and dim.__class__ is int and dim < 0:
            values._grad_fn.given_dim = dim
    values, indices = _watched_pair(values, _const(idx, input))
    result_type = getattr(return_types, kind)
    if out is not None:
        # torch wants out's dtypes exactly (no cast), and names the tuple cummax_out
        _check_scan_out(values.dtype, out[0])
        _check_scan_out(indices.dtype, out[1])
        _out(values, out[0])
        _out(indices, out[1])
        return return_types.out_type(result_type)((out[0], out[1]))
    return result_type((values, indices))


def _check_scan_out(dtype, out):
    """torch's dtype check of a cummax/cummin/logcumsumexp out= tensor: `dtype` exactly."""
    if isinstance(out, Tensor) and out.dtype is not dtype:
        raise RuntimeError(
            f"expected scalar_type {_dtype.scalar_name(dtype)} but found "
            f"{_dtype.scalar_name(out.dtype)}"
        )


def cummax(input, dim=_MISSING, *extra, out=None):
    """Running maximum along dim and where it was attained. Mirrors torch.cummax."""
    if extra:
        _check_call("cummax", dim, extra, None)
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(cummax, (input, dim), {"out": out})
    return _cum_extreme("cummax", input, dim, out)


def cummin(input, dim=_MISSING, *extra, out=None):
    """Running minimum along dim and where it was attained. Mirrors torch.cummin."""
    if extra:
        _check_call("cummin", dim, extra, None)
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(cummin, (input, dim), {"out": out})
    return _cum_extreme("cummin", input, dim, out)


# --- logcumsumexp ---


class Logcumsumexp(Function):
    """out_i = log(sum_{j<=i} exp(a_j)) (a logaddexp scan: stable at any range);
    grad_a_i = sum_{j>=i} grad_j exp(a_i - out_j), summed in logs as torch does (below)."""

    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = Cumsum._saved_attrs  # _saved_dim

    @staticmethod
    def forward(ctx, a, *, dim):
        xp = ctx.xp
        ctx.dim = dim
        x = a._data
        if x.ndim == 0:  # its one element (backward passes grad through, as torch's)
            out = x.copy()
        elif a._device.type == "cpu":
            # NumPy's sequential logaddexp, in torch's running dtype (float64 for float32, as
            # _scan_dtype): torch's values bit for bit, where the log-step scan below is off by
            # up to 22 ulp in float32; (1000, 1000) along 1: 270 -> 57 ms, torch 52
            acc = _scan_dtype(x)
            out = xp.logaddexp.accumulate(x if acc is None else x.astype(acc), axis=dim)
            out = row_major(xp, out.astype(x.dtype, copy=False))
        else:  # CuPy's logaddexp has no accumulate
            acc = _accumulate_dtype(x)  # half precision: a float32 running value, as torch's
            (out,) = scan(
                xp,
                (x if acc is None else x.astype(acc),),
                dim,
                lambda e, r: (xp.logaddexp(e[0], r[0]),),
            )
            out = row_major(xp, xp.asarray(out, dtype=x.dtype))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import abs, exp, log, where
        from minitorch._ops.shape_more import flip

        a, out = ctx._stored_tensors
        if a._data.ndim == 0:
            return grad
        d = ctx.dim
        # sum_{j>=i} grad_j exp(a_i - out_j) = exp(a_i + log sum_{j>=i} exp(log grad_j - out_j)):
        # a reversed logcumsumexp, O(n) (the (n, n) sum of products it replaces took 6 s and
        # 4 GB for a (1000, 1000) input; now 70 ms, torch 79). Logs need a positive grad: the
        # positive and negative grads are summed apart, each with the dtype's lowest value (exp
        # gives 0) where the other sign or a 0 is, as torch does; a NaN grad_j is in neither
        # and counts as 0, an inf one makes inf, and -inf's in a give torch's NaN (a_i - out_j
        # is -inf + inf).
        lowest = _dtype.finfo(a.dtype).min
        log_abs = log(abs(grad))

        def part(take):
            logs = where(take, log_abs, lowest) - out
            tail = flip(Logcumsumexp.apply(flip(logs, (d,)), dim=d), (d,))
            return exp(tail + a)

        return part(grad > 0) - part(grad < 0)


def logcumsumexp(input=REQUIRED, dim=_MISSING, *extra, out=None):
    """log(cumsum(exp(input))) along dim, computed stably. Mirrors torch.logcumsumexp."""
    if extra or out is not None:
        _check_call("logcumsumexp", dim, extra, out, input, out)
    if out is not None and dim.__class__ is int and isinstance(input, Tensor):
        _check_scan_out(input.dtype, out)  # torch checks out's dtype before the dim's range
    x, d, was_0d = _along(input, dim, "logcumsumexp")
    if out is not None:  # (then its kernel's dtype check)
        _check_scan_out(input.dtype, out)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{_type_short(input.dtype)}'"
        )
    if was_0d:
        x = input  # Logcumsumexp itself: its node saves self and result, as torch's
    r = Logcumsumexp.apply(x, dim=d)
    if r._grad_fn is not None and dim.__class__ is int and dim < 0:
        r._grad_fn.given_dim = dim
    return _out(r, out)


def _type_short(dt) -> str:
    from minitorch._ops.reduction import _short

    return _short(dt)


# --- diff ---


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The n-th forward difference along dim, after joining prepend/append. Mirrors torch.diff."""
    for name, extra, pos in (("prepend", prepend, 4), ("append", append, 5)):
        if extra is not None and not isinstance(extra, Tensor):
            raise wrong_type("diff", extra, name, pos, "Tensor")
    try:
        nd = input._data.ndim
    except AttributeError:  # torch.diff(list_of_values)
        raise not_tensor("diff", input) from None
    if nd == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n.__class__ is not int:
        n = check_int("diff", n, "n", 2)
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0 and prepend is None and append is None:
        check_int("diff", dim, "dim", 3)  # torch checks dim's range only to join or subtract
        from minitorch._ops.convert import clone

        return _out(name_node(clone(input), "CopyBackwards"), out)
    d = wrap_dim(dim, input.ndim, "diff", "dim", 3)
    parts = []
    for extra in (prepend, input, append):
        if extra is None:
            continue
        if extra is not input:
            _check_diff_extra(input, extra, d)
        parts.append(extra)
    if n == 0:
        # torch copies input (its node is CopyBackwards), leaving prepend/append out once they
        # are checked; an empty dim later returns input itself
        from minitorch._ops.convert import clone

        return _out(name_node(clone(input), "CopyBackwards"), out)
    x = input
    if len(parts) > 1:
        from minitorch._ops import cat

        x = cat(parts, d)
    for _ in range(n):
        length = x._data.shape[d]
        if length == 0:
            break
        later, earlier = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = (later != earlier) if x.dtype is _dtype.bool else later - earlier
    return _out(x, out)


def _check_diff_extra(input, extra, d: int) -> None:
    """torch's checks of a prepend/append tensor: input's rank, and input's sizes off dim d."""
    if extra.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for i, (a, b) in enumerate(zip(input.shape, extra.shape, strict=True)):
        if i != d and a != b:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({i}) = {a}, but got "
                f"tensor.size({i}) = {b}"
            )


# --- in-place cumsum_, cumprod_ ---


def _cumulative_inplace(fn, name: str):
    def op(self, dim=_MISSING, *, dtype=None):
        from minitorch._ops.inplace import apply_inplace
        from minitorch._ops.pointwise_binary import _CPP_NAMES

        if dtype is not None and _dtype.to_dtype(dtype, name) is not self.dtype:
            if dim is not _MISSING and dim.__class__ is not int:  # torch's parser: this first
                check_int(name, dim, "dim", 1)
            have, want = self.dtype, _dtype.to_dtype(dtype, name)
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {_CPP_NAMES.get(str(have)[6:])} and "
                f"output tensor dtype {_CPP_NAMES.get(str(want)[6:])} should match"
            )
        if self.dtype is _dtype.bool:
            # torch scans in the tensor's own dtype and has no bool kernel; the dim is checked
            # first, and a 0-d or empty tensor returns before reaching the kernel
            _along(self, dim, name)
            if self.ndim == 0 or self._data.size == 0:
                return self
            kernel = f"{name[:-1]}_out_cpu" if self._device.type == "cpu" else name[:-1]
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        return apply_inplace(self, lambda s: fn(s, dim), name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"In-place {name[:-1]} along dim. Mirrors torch.Tensor.{name}."
    return op


cumsum_ = _cumulative_inplace(cumsum, "cumsum_")
cumprod_ = _cumulative_inplace(cumprod, "cumprod_")
