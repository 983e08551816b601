"""Linear algebra composed from the primitives: in-place add*mm_, addr, cross, dist, renorm,
cov/corrcoef, block_diag, vander, multi_dot, trapezoid, deprecated norms."""

from __future__ import annotations

import numbers
import operator
import warnings

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, arity_error, too_many_positional
from minitorch._autocast_state import uncast
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    arg_types,
    cast,
    check_bool,
    check_int,
    check_tensor_list,
    check_tensors,
    is_index,
    is_number,
    is_scalar_arg,
    no_overload,
    not_tensor,
    number,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops.inplace import apply_inplace, check_out_overlap
from minitorch._ops.linalg import (
    _BMM_NAMES,
    _MM_NAMES,
    _MV_NAMES,
    _deprecated_overload,
    _kept,
    _operand_attrs,
    _require_tensor,
    _require_tensors,
    _short,
    addbmm,
    addmm,
    addmv,
    baddbmm,
    check_baddbmm_input,
    check_scalars,
    mm,
    outer,
)
from minitorch._ops.pointwise import _plain_pair, _type_label
from minitorch._tensor import Tensor
from minitorch._tensor_methods import _at
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import (
    Function,
    name_node,
    plain_result,
    saved_uint64,
    scalar_node,
)

# fmt: off
__all__ = [
    "addmm_", "addbmm_", "addmv_", "baddbmm_", "addr", "addr_", "cross", "linalg_cross", "dist",
    "renorm", "renorm_", "cov", "corrcoef", "block_diag", "vander", "linalg_vander",
    "chain_matmul", "linalg_multi_dot", "trapezoid", "trapz", "cumulative_trapezoid",
    "nuclear_norm", "frobenius_norm",
]
# fmt: on


def _ops():
    from minitorch import _ops

    return _ops


def _write(result, out):
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def _write_exact(result, out):
    """out= for the kernels that refuse a dtype other than the result's (cross, renorm): torch's
    "Expected out tensor to have dtype ..." error."""
    if out is None:
        return result
    from minitorch._ops.inplace import write_out_exact

    return write_out_exact(out, result)


# --- in-place matrix products ---


def _same_shape(s, r):
    """r, the product computed for the in-place op on s; torch's refusal when s would have to
    broadcast to r's shape (its kernels check this before the generic in-place checks)."""
    if r._data.shape != s._data.shape:
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(s._data.shape)} and output tensor size "
            f"{list(r._data.shape)} should match"
        )
    return r


def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    """In-place addmm. Mirrors torch.Tensor.addmm_."""
    check_scalars("addmm_", beta, alpha)
    _require_tensors("addmm_", _MM_NAMES, (input, mat1, mat2))
    return apply_inplace(
        input,
        lambda s: _same_shape(s, uncast(addmm, s, mat1, mat2, beta=beta, alpha=alpha)),
        "addmm_",
        (mat1, mat2),
    )


def addmv_(input, mat, vec, *args, beta=1, alpha=1):
    """In-place addmv. Mirrors torch.addmv_ / torch.Tensor.addmv_."""
    if args:  # See NOTE [ Deprecated add*mm overloads ]
        tensors = (input, mat, vec, *args)
        (input, mat, vec), beta, alpha = _deprecated_overload("addmv_", tensors, beta, alpha)
    check_scalars("addmv_", beta, alpha)
    _require_tensors("addmv_", _MV_NAMES, (input, mat, vec))
    def compute(s):
        r = uncast(addmv, s, mat, vec, beta=beta, alpha=alpha)
        return _same_shape(s, r) if s.ndim <= 1 else r

    return apply_inplace(input, compute, "addmv_", (mat, vec))


def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place addbmm. Mirrors torch.Tensor.addbmm_."""
    check_scalars("addbmm_", beta, alpha)
    _require_tensors("addbmm_", _BMM_NAMES, (input, batch1, batch2))
    return apply_inplace(
        input,
        lambda s: uncast(addbmm, s, batch1, batch2, beta=beta, alpha=alpha),
        "addbmm_",
        (batch1, batch2),
    )


def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place baddbmm. Mirrors torch.Tensor.baddbmm_."""
    check_scalars("baddbmm_", beta, alpha)
    _require_tensors("baddbmm_", _BMM_NAMES, (input, batch1, batch2))
    check_baddbmm_input(input, batch1, batch2)  # (before the overlap check, as torch)
    return apply_inplace(
        input,
        lambda s: _same_shape(s, uncast(baddbmm, s, batch1, batch2, beta=beta, alpha=alpha)),
        "baddbmm_",
        (batch1, batch2),
    )


def _check_int_scalars(dt, op, **scalars):
    if dt.is_floating_point:
        return
    for name, value in scalars.items():
        if isinstance(value, float):
            raise RuntimeError(
                f"For integral input tensors, argument {name} must not be a floating point number."
            )


def addr(input, vec1, vec2, *args, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2). Mirrors torch.addr."""
    if args:  # See NOTE [ Deprecated add*mm overloads ]
        tensors = (input, vec1, vec2, *args)
        (input, vec1, vec2), beta, alpha = _deprecated_overload("addr", tensors, beta, alpha)
    check_scalars("addr", beta, alpha)
    _require_tensor(input, "addr", "input", 1)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        _require_tensor(v, "addr", name, 2 if name == "vec1" else 3)
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    # the scalars are checked against (and cast to) the result's dtype, not input's
    # (all three promote as tensors: a 0-d input does not rank below the vectors)
    rt = _dtype.promote_types(_dtype.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    for name, value in (("beta", beta), ("alpha", alpha)):  # torch's order: bool, then float
        is_bool = value.__class__ is bool or (
            isinstance(value, Tensor) and value.dtype is _dtype.bool
        )
        if is_bool and rt != _dtype.bool:
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        _check_int_scalars(rt, "addr", **{name: value})
    if rt == _dtype.bool:  # torch casts the scalars to bool: a logical and / or
        beta, alpha = bool(beta), bool(alpha)
    given = (vec1, beta, alpha)  # (for the node's _saved_<name>: the half kernel scales vec1)
    dt = input.dtype
    if dt in _dtype.HALF_FLOATS and vec1.dtype is dt and vec2.dtype is dt:
        # torch's half kernel takes beta and alpha in the dtype (c10's checked conversion) and
        # rounds each step: beta * input + (alpha * vec1[i]) * vec2[j]
        beta, alpha = (_half_scalar(v, dt) for v in (beta, alpha))
        if alpha != 1:
            vec1, alpha = vec1 * alpha, 1
    product = outer(vec1, vec2)
    shape = product._data.shape
    if input._data.shape != shape:
        input.expand(shape)  # torch's broadcast error, naming both shapes
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        result = product
        if input.requires_grad:  # input's values are ignored, but it gets torch's zero gradient
            from minitorch._ops.pointwise import where

            result = where(input.new_zeros((), dtype=_dtype.bool), input, result)
        if result.dtype != rt:
            result = cast(result, rt)
    else:
        result = (input * beta if beta != 1 else input) + product
        if result.dtype != rt:
            result = cast(result, rt)
    attrs = None
    if result._requires_grad:
        attrs = _operand_attrs(("vec1", "vec2"), given[0], vec2, *given[1:])
    return _write(as_node(result, "AddrBackward0", (input, given[0], vec2), attrs=attrs), out)


def _half_scalar(v, dt) -> float:
    """The number v as the half dtype dt holds it; torch's overflow error beyond its range."""
    npdt = dt.np
    return float(npdt.type(_dtype.fill_number(v, npdt)))


def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    """In-place addr. Mirrors torch.Tensor.addr_."""
    check_scalars("addr_", beta, alpha)
    if isinstance(input, Tensor) and isinstance(vec1, Tensor) and isinstance(vec2, Tensor):
        # torch's addr_ kernel checks self before broadcasting anything
        if input.ndim != 2:
            raise RuntimeError(f"2D tensor expected, got {input.ndim}D tensor for input")
        if vec1.ndim == vec2.ndim == 1 and tuple(input.shape) != (vec1.shape[0], vec2.shape[0]):
            raise RuntimeError(
                f"size mismatch, input: {list(input.shape)}, v1: {list(vec1.shape)}, "
                f"v2: {list(vec2.shape)}"
            )
    return apply_inplace(
        input, lambda s: addr(s, vec1, vec2, beta=beta, alpha=alpha), "addr_", (vec1, vec2)
    )


# --- cross products, distances, norms ---


# NOTE [ Cross products without a node ]
# Where nothing is recorded (NOTE [ The no-grad fast path ] in minitorch/autograd/function.py),
# cross of two plain float32/float64 CPU tensors of one shape and dtype, dim an int in range
# with size 3, computes the composite's three differences of products at once: each operand
# gathered along dim in the orders (1, 2, 0) and (2, 0, 1), so that
# a[(1, 2, 0)] * b[(2, 0, 1)] - a[(2, 0, 1)] * b[(1, 2, 0)] is, slot by slot, the composite's
# a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0: the same products and differences rounded in
# the same dtype, into new row-major memory as cat gives (cross_f32 of (4, 3): 24 -> 2.7 us).
# Anything else (broadcasting, other dtypes, out=, a node to record) takes the composite.
_XP = _CPU.backend.xp
_ROT1 = _XP.array([1, 2, 0])
_ROT2 = _XP.array([2, 0, 1])


def _plain_cross(a, b, dim, out):
    """The no-node cross product of NOTE [ Cross products without a node ], or None."""
    if not (b.__class__ is Tensor and dim.__class__ is int and _plain_pair(a, b, out)):
        return None
    x, y = a._data, b._data
    shape = x.shape
    if x.dtype.char not in "fd" or y.shape != shape:
        return None
    nd = len(shape)
    if not -nd <= dim < nd or shape[dim] != 3:  # (a 0-d x fails the first test)
        return None
    return plain_result(
        x.take(_ROT1, dim) * y.take(_ROT2, dim) - x.take(_ROT2, dim) * y.take(_ROT1, dim), _CPU
    )


def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along dim, broadcasting the other dims. Mirrors
    torch.linalg.cross."""
    fast = _plain_cross(input, other, dim, out)  # NOTE [ Cross products without a node ]
    if fast is not None:
        return fast
    _require_tensor(input, "linalg_cross", "input", 1)
    _require_tensor(other, "linalg_cross", "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.ndim == 0:  # torch's dim check (wrap_dim would take a 0-d tensor as 1-d)
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim, "linalg_cross")
    na, nb = input.shape[d] if input.ndim else 0, other.shape[d] if other.ndim else 0
    if na != 3 or nb != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {na} and {nb}"
        )
    # torch's kernel dispatch speaks next: no bool kernel (input's dtype), then the mix
    if input.dtype == _dtype.bool:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    if input.dtype != other.dtype:
        raise RuntimeError(
            f"expected scalar type {_short(input.dtype)} but found {_short(other.dtype)}"
        )
    a = [input.narrow(d, i, 1) for i in range(3)]
    b = [other.narrow(d, i, 1) for i in range(3)]
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    # torch's node keeps each input only for the other's gradient (the inner products do too)
    saved = (input if other.requires_grad else None, other if input.requires_grad else None)
    attrs = {"self": saved[0], "other": saved[1], "dim": saved_uint64(operator.index(dim))}
    result = as_node(
        _ops().cat(parts, d), "LinalgCrossBackward0", (input, other), saved=saved, attrs=attrs
    )
    check_out_overlap(out, input, other)
    return _write_exact(result, out)


show_saved("LinalgCrossBackward0", {k: _kept(k) for k in ("self", "other", "dim")})


def cross(input, other=REQUIRED, dim=None, *, out=None):
    """Cross product along dim; dim=None takes the first dim of size 3 (deprecated in torch, as
    here: a warning). Mirrors torch.cross."""
    if dim is not None:
        fast = _plain_cross(input, other, dim, out)  # NOTE [ Cross products without a node ]
        if fast is not None:
            return fast
    # checked here, not only in linalg_cross: torch's message names cross
    _require_tensor(input, "cross", "input", 1)
    _require_tensor(other, "cross", "other", 2)
    if dim.__class__ is not int and dim is not None:  # torch's message names cross
        dim = check_int("cross", dim, "dim", 3)
    if dim is None:
        from minitorch._settings import warn_once  # torch: once per process

        warn_once(
            "cross_dim",
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass "
            "the dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will "
            "change to agree with that of linalg.cross in a future release.",
        )
        sizes = list(input.shape)
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    return linalg_cross(input, other, dim=dim, out=out)


def dist(input, other=REQUIRED, p=2):
    """The p-norm of input - other. Mirrors torch.dist."""
    from minitorch._ops.reduction_more import vector_norm

    # both operands must be tensors: input - other alone would broadcast a number `other`
    for pos, (name, t) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(t, Tensor):
            raise not_tensor("dist", t, name, pos)
    if p.__class__ is not int and p.__class__ is not float:  # ("Number p = 2": torch's parser)
        if not (is_number(p) or isinstance(p, Tensor)):
            raise wrong_type("dist", p, "p", 3, "Number")
        # a NumPy scalar order reads as the Python number, a bool as 0 or 1, as torch's parser
        shown = number(p)  # (grad_fn._saved_p: a bool stays one)
        p = int(p) if p.__class__ is bool else shown
    else:
        shown = p
    diff = input - other
    if not diff.dtype.is_floating_point:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_short(diff.dtype)} instead."
        )
    result = vector_norm(diff, p)
    if not result._requires_grad:
        return result
    # torch's one node, which saves both operands and the result (refused once changed in place)
    attrs = {"kept_device": result._device, "p": shown}
    saved = (input, other, result)
    return as_node(result, "DistBackward0", (input, other), saved=saved, attrs=attrs)


show_saved(  # grad_fn._saved_<name> (as torch's)
    "DistBackward0",
    {"self": saved_value(0), "other": saved_value(1), "result": saved_value(2), "p": "p"},
)


def renorm_scalar(x, op, name, pos=None):
    """renorm's p or maxnorm as torch's argument parser reads a Scalar: a Python or NumPy number,
    or a 0-d tensor that does not require grad (read on the host, as torch does); anything else
    is its TypeError (pos: the argument's position, None when passed by keyword)."""
    if not (isinstance(x, Tensor) or is_number(x)):  # (a 0-d NumPy array is no Number)
        at = _at(pos, name, op)
        raise TypeError(f"{op}(): argument '{name}'{at} must be Number, not {type_name(x)}")
    x = number(x)  # NumPy scalars read as Python numbers, as in torch
    if isinstance(x, Tensor) and x.ndim == 0 and not x.requires_grad:
        return x.item()
    if isinstance(x, numbers.Number) and not isinstance(x, Tensor):
        return float(x) if isinstance(x, bool) else x
    at = _at(pos, name, op)
    raise TypeError(f"{op}(): argument '{name}'{at} must be Number, not {type(x).__name__}")


_RENORM_PARAMS = (("p", False), ("dim", False), ("maxnorm", False))


def renorm_method_args(op, args, kwargs):
    """Tensor.renorm(_)'s p and maxnorm checked with the method's positions (1 and 3), or none
    for keywords, as torch's messages give them; renorm itself then finds them valid. Too many
    or too few arguments: torch's parser's words for the method."""
    if len(args) > 3:
        raise too_many_positional(op, len(args), 3)
    for i, name in ((0, "p"), (2, "maxnorm")):
        if i < len(args):
            renorm_scalar(args[i], op, name, i + 1)
        elif name in kwargs:
            renorm_scalar(kwargs[name], op, name)
    if len(args) < 3:  # (Python's own words would name Tensor.renorm)
        from minitorch._ops._parser_errors import missing_arguments

        missing = missing_arguments(op, _RENORM_PARAMS, args, kwargs)
        if missing is not None:
            if len(args) > 1:  # (the types come first)
                check_int(op, args[1], "dim", 3)
            elif "dim" in kwargs:
                check_int(op, kwargs["dim"], "dim")
            raise missing


def renorm(input=REQUIRED, p=REQUIRED, dim=REQUIRED, maxnorm=REQUIRED, *extra, out=None):
    """Each slice along dim rescaled to p-norm at most maxnorm. Mirrors torch.renorm."""
    if extra or input is REQUIRED or p is REQUIRED or dim is REQUIRED or maxnorm is REQUIRED:
        raise arity_error("renorm", extra, 4, input=input, p=p, dim=dim, maxnorm=maxnorm)
    from minitorch._ops.reduction_more import vector_norm

    _require_tensor(input, "renorm", "input", 1)
    p, maxnorm = renorm_scalar(p, "renorm", "p", 2), renorm_scalar(maxnorm, "renorm", "maxnorm", 4)
    if isinstance(p, complex):
        raise RuntimeError("renorm: p must be real-valued")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if isinstance(maxnorm, complex):
        raise RuntimeError("renorm: maxnorm must be real-valued")
    if maxnorm < 0:
        shown = int(maxnorm) if float(maxnorm).is_integer() else maxnorm  # torch's Scalar print
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {shown}")
    if input.ndim <= 1:
        if dim.__class__ is not int:  # torch's parser reads dim's type first
            check_int("renorm", dim, "dim", 3)
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions"
        )
    d = wrap_dim(dim, input.ndim, "renorm", "dim", 3)
    others = tuple(i for i in range(input.ndim) if i != d)
    # torch's kernel: the factor maxnorm / (norm + 1e-7) where the norm exceeds maxnorm, else 1;
    # a half tensor's norm and factor are computed in float32 (its accumulate type), the factor
    # rounded to the half dtype, then multiplied once
    half = input.dtype in _dtype.HALF_FLOATS
    norm = vector_norm(input, p, others, True, dtype=_dtype.float32 if half else None)
    factor = _ops().where(norm > maxnorm, maxnorm / (norm + 1e-7), norm.new_ones(()))
    if half:
        factor = cast(factor, input.dtype)
    attrs = {"self": input, "p": p, "dim": saved_uint64(operator.index(dim)), "maxnorm": maxnorm}
    result = as_node(input * factor, "RenormBackward0", (input,), saved=(input,), attrs=attrs)
    return _write_exact(result, out)


show_saved("RenormBackward0", {k: _kept(k) for k in ("self", "p", "dim", "maxnorm")})


def renorm_(input, p, dim, maxnorm):
    """In-place renorm. Mirrors torch.Tensor.renorm_."""
    if dim.__class__ is not int:
        dim = check_int("renorm_", dim, "dim", 3)  # (renorm's own error would name renorm)
    return apply_inplace(input, lambda s: renorm(s, p, dim, maxnorm), "renorm_")


def _check_weights(w, name, n, integral):
    # torch's order: dims, dtype, then numel
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.ndim} dimensions"
        )
    if integral and (w.dtype.is_floating_point or w.dtype == _dtype.bool):
        raise RuntimeError(
            f"cov(): expected fweights to have integral dtype but got fweights with "
            f"{_short(w.dtype)} dtype"
        )
    if not integral and not w.dtype.is_floating_point:
        raise RuntimeError(
            f"cov(): expected aweights to have floating point dtype but got aweights with "
            f"{_short(w.dtype)} dtype"
        )
    if w.numel() != n:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {n}"
        )
    if w._device.type == "cpu" and w.numel() and not bool((w._data >= 0).all()):  # NaN too
        raise RuntimeError(f"cov(): {name} cannot be negative")


def _warn_cov_dof():
    warnings.warn(
        "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
        "number of observations.",
        UserWarning,
        stacklevel=3,
    )


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) over the columns (observations). Mirrors torch.cov.
    Differences from torch: negative weights and weights summing to zero are refused, and the
    degrees-of-freedom warning with weights is given, on the CPU only (checking would read a
    device back)."""
    _require_tensor(input, "cov", "input", 1)
    if correction.__class__ is not int:  # NOTE [ Int-like arguments ]: a float is a TypeError
        from minitorch._tensor_methods import _index

        correction = _index(correction, "cov", "correction")
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is not None:
            _require_tensor(w, "cov", name, None)
    ops = _ops()
    if input.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    x = input if input.ndim == 2 else input.reshape(1, -1)
    if x.dtype == _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if not x.dtype.is_floating_point:  # integers take the aweights' dtype, else the default
        floating_w = aweights is not None and aweights.dtype.is_floating_point
        x = cast(x, aweights.dtype if floating_w else _dtype.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n, True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n, False)
        if aweights.dtype.itemsize > x.dtype.itemsize:  # torch computes in the wider dtype
            x = cast(x, aweights.dtype)
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.sum(1) / n  # torch's: a half sum is rounded before the division, as mean's not
        w_sum = None
        norm_factor = n - correction
        if norm_factor <= 0:
            _warn_cov_dof()
            norm_factor = 0
    else:
        # The weights keep their own dtype (torch's): their sum and the normalizing factor are
        # computed in it (float32 aweights give a float32 factor for a float64 input).
        w_sum = w.sum()
        if w._device.type == "cpu" and not w_sum._data:  # as the negative check: no device read
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm_factor = w_sum
        elif aweights is None:
            norm_factor = w_sum - correction
        else:
            norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
        if w._device.type == "cpu" and bool(norm_factor._data <= 0):  # as the zero-sum check
            _warn_cov_dof()
        norm_factor = ops.clamp(norm_factor, min=0)
    xm = x - avg.unsqueeze(1)
    c = mm(xm, xm.t() if w is None else (xm * w).t())
    c = c / norm_factor
    return c.squeeze()  # as torch: one variable gives a 0-d result


def corrcoef(input):
    """Pearson correlation coefficients of the rows. Mirrors torch.corrcoef."""
    _require_tensor(input, "corrcoef", "input", 1)
    if input.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return _ops().clamp(c, -1, 1)


def block_diag(*tensors):
    """The block-diagonal matrix of the given 0-, 1- or 2-D tensors. Mirrors torch.block_diag."""
    check_tensor_list(tensors)  # torch's argument parser refuses a non-tensor first
    ops = _ops()
    mats = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.ndim} dimensions"
            )
        mats.append(t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t)
    if not mats:
        from minitorch._factories import zeros

        return zeros((1, 0))
    # torch's result_type: a 0-d block counts only when it is of a higher category
    dt = _dtype.result_type(*((t.dtype, t.ndim) for t in tensors))
    total = sum(m.shape[1] for m in mats)
    dev = mats[0]._device
    if all(m._device == dev for m in mats):  # (else cat's error below names the devices)
        mats = [cast(m, dt) if m.dtype is not dt else m for m in mats]
        return as_node(BlockDiag.apply(*mats), "BlockDiagBackward0", tensors, keep=True)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        pad_l = m.new_zeros((r, left), dtype=dt)
        pad_r = m.new_zeros((r, total - left - c), dtype=dt)
        rows.append(ops.cat([pad_l, cast(m, dt), pad_r], 1))
        left += c
    return as_node(ops.cat(rows, 0), "BlockDiagBackward0", tensors, keep=True)


class BlockDiag(Function):
    """out = the 2-d inputs (of one dtype) along the diagonal, zeros elsewhere;  grad_i = its
    block of grad. One array kernel: the former cat of zero-padded rows took three ops a block
    (30 blocks of 10 x 10: 0.87 ms, torch 0.1 ms)."""

    @staticmethod
    def forward(ctx, *mats):
        arrays = [m._data for m in mats]
        ctx.shapes = [a.shape for a in arrays]
        rows = sum(a.shape[0] for a in arrays)
        cols = sum(a.shape[1] for a in arrays)
        out = ctx.xp.zeros((rows, cols), dtype=arrays[0].dtype)
        r0 = c0 = 0
        for a in arrays:
            r, c = a.shape
            out[r0 : r0 + r, c0 : c0 + c] = a
            r0, c0 = r0 + r, c0 + c
        return out

    @staticmethod
    def backward(ctx, grad):
        grads = []
        r0 = c0 = 0
        for needed, (r, c) in zip(ctx.needs_input_grad, ctx.shapes, strict=True):
            grads.append(grad[r0 : r0 + r, c0 : c0 + c] if needed else None)
            r0, c0 = r0 + r, c0 + c
        return tuple(grads)


def _powers(x, n):
    """[1, x, x^2, ..., x^(n-1)] along a new last dim (products, so differentiable at 0)."""
    ops = _ops()
    ones = x.new_ones(tuple(x.shape) + (1,))
    if n <= 1:
        return ones.narrow(-1, 0, n)
    rest = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)
    return ops.cat([ones, rest], -1)


def vander(x, N=None, increasing=False):
    """Columns x^(N-1), ..., x^0 (increasing: x^0 first). Mirrors torch.vander."""
    check_tensors("vander", ("x", x))
    if N is not None and N.__class__ is not int:
        N = check_int("vander", N, "N", 2)
    if increasing.__class__ is not bool:
        check_bool("vander", increasing, "increasing", 3)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x.dtype == _dtype.bool or not x.dtype.is_floating_point and x.dtype != _dtype.int64:
        x = cast(x, _dtype.int64)
    v = _powers(x, n)
    return v if increasing else v.flip(-1)


def linalg_vander(x, *, N=None):
    """x^0, x^1, ... along a new last dim (any batch). Mirrors torch.linalg.vander."""
    check_tensors("linalg_vander", ("x", x))
    if x.dtype == _dtype.bool or x.dtype in _dtype.HALF_FLOATS:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got "
            f"{_short(x.dtype)}"
        )
    if x.ndim == 0:  # torch reads a 0-d x as one point: a (1, N) result
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    return _powers(x, n)


def chain_matmul(*matrices, out=None):
    """The product of 2-D matrices, left to right. Mirrors torch.chain_matmul (deprecated)."""
    from minitorch._settings import warn_once  # torch: once per process

    check_tensor_list(matrices)  # (torch's parser: every element a Tensor, before the warning)
    warn_once(
        "chain_matmul",
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.",
    )
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return _write(matrices[0].clone(), out)
    return linalg_multi_dot(list(matrices), out=out)  # (torch's checks and messages too)


def _multiply(mats):
    """The chain product in torch's order: for three, the cheaper of (AB)C and A(BC) ((AB)C on
    a tie); for more, the order of least scalar multiplications (the first split on a tie)."""
    n = len(mats)
    if n == 2:
        return mm(mats[0], mats[1])
    if n == 3:
        a, b = mats[0].shape
        c, d = mats[2].shape
        if a * c * (b + d) > b * d * (a + c):
            return mm(mats[0], mm(mats[1], mats[2]))
        return mm(mm(mats[0], mats[1]), mats[2])
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return _product(mats, split, 0, n - 1)


def _product(mats, split, i, j):
    """mats[i] @ ... @ mats[j] in the order `split` gives (a module function: a nested one
    calling itself would be a reference cycle that keeps `mats` alive until the collector)."""
    if i == j:
        return mats[i]
    k = split[i][j]
    return mm(_product(mats, split, i, k), _product(mats, split, k + 1, j))


def linalg_multi_dot(tensors, *, out=None):
    """The product of matrices; the first may be a row and the last a column vector.
    Mirrors torch.linalg.multi_dot (in torch's order of the products)."""
    from minitorch._ops.shape_join import _tensor_list

    n = len(_tensor_list(tensors, "linalg_multi_dot"))
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(1)
    # torch's order: each middle tensor's rank, dtype, then its product with the one before;
    # the last tensor's dtype and product after them
    for i in range(1, n):
        t = tensors[i]
        if i < n - 1 and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
        if t.dtype != first.dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_ctype_name(first.dtype)} and tensor {i} {_ctype_name(t.dtype)}"
            )
        if mats[i - 1].shape[1] != mats[i].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i - 1} and {i} with shapes {list(tensors[i - 1].shape)} "
                f"and {list(t.shape)} cannot be multiplied"
            )
    # torch's out= kernel multiplies through mm's out=, which autocast leaves uncast
    r = _multiply(mats) if out is None else uncast(_multiply, mats)
    if first.ndim == 1:
        r = r.squeeze(0)
    if last.ndim == 1:
        r = r.squeeze(-1)
    # torch's result is a view of the product's (one ViewBackward0 node)
    return _write_multi_dot(name_node(r, "ViewBackward0", tensors), out)


def _write_multi_dot(result, out):
    # multi_dot's kernel refuses an out= of another dtype (chain_matmul's one-matrix clone casts)
    if out is not None and isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise RuntimeError(
            f"multi_dot(): expected out tensor to have dtype {_ctype_name(result.dtype)} but got "
            f"{_ctype_name(out.dtype)}"
        )
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    # torch's kernel writes through mm's out=: its refusal of autograd names mm
    return write_out(out, result, "mm")


def _ctype_name(dt) -> str:
    from minitorch._ops.linalg import _ctype

    return _ctype(dt)


# --- integration ---


def _trapezoid_y(y, x, dim, op):
    """dim wrapped, after torch's checks of y and x."""
    if y.ndim == 0:  # torch's messages: its sum along dim, and cumulative's slice of y
        if op == "cumulative_trapezoid":
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, y.ndim, op)
    if y.dtype == _dtype.bool or (x is not None and x.dtype == _dtype.bool):
        which = "`y`" if x is None else "`x` or `y`"
        raise RuntimeError(f"{op}: received a bool input for {which}, but bool is not supported")
    return d


# NOTE [ Integer trapezoids ]
# torch integrates integer samples in their own arithmetic: the pair sums y[i+1] + y[i] (and, at
# points x, the widths x[i+1] - x[i] and their products with the sums) are computed in the
# integer dtype and wrap around as it does; only the halving (a true division or a * 0.5) makes
# the result floating. Floating inputs give the same numbers either way (halving is exact).


def _trapezoid_terms(y, x, dim, op):
    """(twice the areas of the trapezoids along dim, not yet summed; dim), at points x."""
    d = _trapezoid_y(y, x, dim, op)
    n = y.shape[d]
    pair = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1) if n else y.narrow(d, 0, 0)
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[d] = n
        widths = x.reshape(shape).diff(dim=d) if n else x.reshape(shape)  # torch's graph
    else:
        if x.ndim < y.ndim:  # torch views x with leading 1s; it slices x at y's dim either way
            x = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
        widths = x.diff(dim=d) if n else x.narrow(d, 0, 0)
    return pair * widths, d  # torch's operand order (its MulBackward0's edges)


_TRAPEZOID_FORMS = (
    "Tensor y, Tensor x, *, int dim = -1",
    "Tensor y, *, Number dx = 1, int dim = -1",
)
_TRAPZ_FORMS = ("Tensor y, *, float dx = 1, int dim = -1", "Tensor y, Tensor x, *, int dim = -1")


def _trapezoid_args(op, y, x, dx, dim=-1):
    """(x, dx) after torch's argument checks: y a Tensor, x a Tensor (or, here, a real number
    taken as dx), not both x and dx, dx a number and dim an int.

    Differences from torch: a positional number is read as dx (torch wants dx=)."""
    if not isinstance(y, Tensor):
        raise not_tensor(op, y, "y")
    if dim.__class__ is not int and not is_index(dim):
        raise _trapezoid_error(op, x, dx, dim)
    if x is None or (isinstance(x, Tensor) and dx is None):
        if isinstance(dx, Tensor) and is_scalar_arg(dx):
            dx = dx.item()  # a Number to torch's parser (see NOTE [ Number-like arguments ])
        elif dx is not None and not is_number(dx):
            raise _trapezoid_error(op, x, dx, dim)
        if dx.__class__ is complex and op == "trapz":  # (trapz's dx is a float)
            raise _trapezoid_error(op, x, dx, dim)
        if (dx.__class__ is bool and op != "trapz") or dx.__class__ is complex:
            raise RuntimeError(f"{op}: Currently, we only support dx as a real number.")
        return x, dx
    if dx is None and isinstance(x, numbers.Real) and not isinstance(x, bool):
        return None, x  # trapezoid(y, dx) with a number
    raise _trapezoid_error(op, x, dx, dim)


def _trapezoid_error(op, x, dx, dim, absent=None) -> TypeError:
    """torch's "invalid combination" TypeError of trapezoid, trapz or cumulative_trapezoid,
    showing the keywords in the reverse of the call's order; x or dx `absent` was not given.
    For error paths only."""
    from minitorch._call_site import passed_by_keyword
    from minitorch._ops._parser_errors import _shown_order

    kwargs = {} if dx is absent else {"dx": dx}
    if dim != -1 or passed_by_keyword("dim", op):
        kwargs["dim"] = dim
    if x is not absent and passed_by_keyword("x", op):
        kwargs["x"], x = x, absent
    got = ["Tensor"] + ([] if x is absent else [_type_label(x)])
    got += [f"{k}={_type_label(v)}" for k, v in _shown_order(kwargs, op).items()]
    listed = "".join(f" * ({f})\n" for f in (_TRAPZ_FORMS if op == "trapz" else _TRAPEZOID_FORMS))
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({', '.join(got)}), but "
        f"expected one of:\n{listed}"
    )


_NOT_GIVEN = object()  # trapezoid's x and dx left out (torch's parser refuses None for both)


def _trapezoid_given(op, x, dx, dim):
    """(x, dx) with None for one left out, after refusing a None given (torch's TypeError)."""
    if x is None or dx is None:
        raise _trapezoid_error(op, x, dx, dim, absent=_NOT_GIVEN)
    return (None if x is _NOT_GIVEN else x), (None if dx is _NOT_GIVEN else dx)


def trapezoid(y, x=_NOT_GIVEN, *, dx=_NOT_GIVEN, dim=-1):
    """Integral of y along dim by the trapezoid rule, at points x or spacing dx. Mirrors
    torch.trapezoid (see _trapezoid_args for a difference; NOTE [ Integer trapezoids ])."""
    return _trapezoid("trapezoid", y, x, dx, dim)


def _trapezoid(op, y, x, dx, dim):
    x, dx = _trapezoid_args(op, y, *_trapezoid_given(op, x, dx, dim), dim)
    if x is not None:
        terms, d = _trapezoid_terms(y, x, dim, op)
        if not y.shape[d]:
            return _trapezoid_zeros(y, d)
        return scalar_node(terms.sum(d) / 2)  # torch's DivBackward1
    # Evenly spaced: torch's sum(y) - (y_first + y_last) / 2, not the sum of the averages, so
    # its roundings and non-finite results follow: one NaN sample gives NaN, [1, 2, inf] gives
    # inf - inf = NaN.
    d = _trapezoid_y(y, None, dim, op)
    n = y.shape[d]
    if n == 0:
        return _trapezoid_zeros(y, d)
    # torch's nodes: the halving and dx (1 by default) are MulBackward1s
    r = y.sum(d) - scalar_node((y.select(d, 0) + y.select(d, n - 1)) * 0.5)
    return scalar_node(r * (1 if dx is None else dx))


def _trapezoid_zeros(y, d):
    """torch's result for no samples: zeros in y's own dtype (an integer y too), outside any
    graph (torch's requires no gradient even where y does)."""
    return y.new_zeros(tuple(s for i, s in enumerate(y.shape) if i != d))


def trapz(y, x=_NOT_GIVEN, *, dx=_NOT_GIVEN, dim=-1):
    """Mirrors torch.trapz (trapezoid)."""
    return _trapezoid("trapz", y, x, dx, dim)


def cumulative_trapezoid(y, x=_NOT_GIVEN, *, dx=_NOT_GIVEN, dim=-1):
    """Running trapezoid-rule integral of y along dim (one fewer element). Mirrors
    torch.cumulative_trapezoid (see _trapezoid_args for a difference; NOTE [ Integer
    trapezoids ])."""
    op = "cumulative_trapezoid"
    x, dx = _trapezoid_args(op, y, *_trapezoid_given(op, x, dx, dim), dim)
    if x is not None:
        terms, d = _trapezoid_terms(y, x, dim, "cumulative_trapezoid")
        return scalar_node(terms.cumsum(d) / 2)  # torch's DivBackward1 after the sum
    d = _trapezoid_y(y, None, dim, "cumulative_trapezoid")
    n = y.shape[d]
    pair = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1) if n else y.narrow(d, 0, 0)
    return scalar_node(pair * ((1 if dx is None else dx) / 2)).cumsum(d)


# --- deprecated norms ---


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Sum of singular values over two dims. Mirrors torch.nuclear_norm (deprecated)."""
    check_tensors("nuclear_norm", ("input", input))
    from minitorch._ops.reduction_more import matrix_norm

    if isinstance(dim, bool):  # nuclear_norm(input, keepdim) positional form
        dim, keepdim = None, dim
    elif dim is not None and (isinstance(dim, str) or not hasattr(dim, "__iter__")):
        sigs = [
            "Tensor input, tuple of ints dim, bool keepdim = False, *, Tensor out = None",
            "Tensor input, bool keepdim = False, *, Tensor out = None",
        ]
        raise no_overload("nuclear_norm", arg_types(input, dim), sigs)
    if dim is None:
        if input.ndim != 2:
            raise RuntimeError(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
                if input.ndim < 2
                else f"Expected a tensor with 2 dimensions, but got a tensor with {input.ndim} "
                f"dimensions instead."
            )
        dim = (-2, -1)
    result = matrix_norm(input, "nuc", tuple(dim), keepdim)
    if out is not None and isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise RuntimeError(  # refused, not cast, in matrix_norm's words
            f"linalg.matrix_norm expected out tensor dtype {_short(result.dtype)} but got: "
            f"{_short(out.dtype)}"
        )
    return _write(result, out)


def frobenius_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    """sqrt of the sum of squares over dims. Mirrors torch.frobenius_norm (deprecated)."""
    from minitorch._ops.reduction_more import vector_norm

    dims = (dim,) if isinstance(dim, int) else tuple(operator.index(d) for d in dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    return _write_exact(vector_norm(input, 2, dims, keepdim), out)
