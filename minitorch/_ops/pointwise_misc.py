"""More pointwise math: angle, copysign, float_power, frexp, gcd/lcm, heaviside, ldexp,
nextafter, the degree/radian conversions, and the alias spellings of existing ops."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED
from minitorch._backend.numpy_backend import fast_nextafter
from minitorch._ops._common import (
    cast,
    check_tensors,
    is_number,
    operand_error,
    promote,
    promote_float,
    same_device,
    scalar_like,
)
from minitorch._ops._parser_errors import clamp_error
from minitorch._ops.inplace import apply_inplace, check_out_tuple, clamp_, fast_clamp_, neg_
from minitorch._ops.pointwise import (
    _out,
    abs,
    callers_out,
    clamp,
    div,
    mul,
    neg,
    pow,
    raise_in_order,
    sign,
    sub,
    where,
)
from minitorch._ops.pointwise_more import (
    _arr,
    _check_tensor,
    _inplace,
    _not_implemented,
    _to_float,
    _ZeroGradSaving,
    exp2,
)
from minitorch._subclass import any_dispatching, dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import Function, _raise_broadcast_error, name_node

# fmt: off
__all__ = [
    "angle", "deg2rad", "rad2deg", "copysign", "float_power", "frexp", "gcd", "lcm",
    "heaviside", "ldexp", "nextafter", "positive", "negative", "absolute", "clamp_min",
    "clamp_max", "clip", "multiply", "subtract", "divide",
    "deg2rad_", "rad2deg_", "gcd_", "lcm_", "ldexp_", "negative_", "clamp_min_", "clamp_max_",
    "clip_",
]
# copysign_, float_power_, heaviside_, nextafter_ and sign_ are Tensor methods only, as in torch.
# fmt: on


def _const(arr, like: Tensor) -> Tensor:
    return _make(arr, like._device, False, None)


# --- angle, deg2rad, rad2deg ---


class Angle(_ZeroGradSaving, Function):
    """out = pi where a < 0, else 0 (NaN stays NaN; real inputs only);  grad_a = 0"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's, whose complex formula reads it)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        # (x < 0) * pi in x's dtype: no float64 temporary, no where on a random mask (40x torch)
        out = xp.asarray((x < 0).astype(x.dtype))
        out *= xp.asarray(math.pi, dtype=x.dtype)
        xp.copyto(out, x, where=xp.isnan(x))
        return out


def angle(input, *, out=None):
    """The argument of each element: pi for negative numbers, 0 otherwise (real dtypes only).
    Mirrors torch.angle."""
    return _out(Angle.apply(_to_float(input, "angle")), out)


def deg2rad(input, *, out=None):
    """Degrees to radians. Mirrors torch.deg2rad."""
    return _out(_scaled(input, math.pi / 180.0, "deg2rad", "Deg2RadBackward0"), out)


def rad2deg(input, *, out=None):
    """Radians to degrees. Mirrors torch.rad2deg."""
    return _out(_scaled(input, 180.0 / math.pi, "rad2deg", "Rad2DegBackward0"), out)


def _scaled(input, factor: float, op: str, name: str) -> Tensor:
    """input * factor as mul computes it, its node torch's one `name`, which lists the input
    alone and saves nothing (NOTE [ Composite nodes ]; `keep`: a second backward runs it
    again, as torch's)."""
    x = _to_float(input, op)
    result = mul(x, factor)
    if result._grad_fn is None:  # (no graph: nothing to fold)
        return result
    return as_node(result, name, (x,), keep=True)


# --- copysign ---


class Copysign(Function):
    """out = |a| with b's sign;  grad_a = grad * (out / a, 0 where a = 0),  grad_b = 0"""

    # grad_fn._saved_self (None unless a's gradient is computed) and _saved_result, as torch's:
    # b is not saved (changing it in place afterwards is no error), but its shape and dtype, for
    # its zeros; out has b's signs, which the backward's recomputation of out takes from it
    _saved_names = ("self", "result")

    @staticmethod
    def forward(ctx, a, b):
        out = _arr(ctx.xp, ctx.xp.copysign(a._data, b._data))
        ctx.save_for_backward(a if ctx.needs_input_grad[0] else None, out)
        if ctx.needs_input_grad[1]:
            ctx.other_like = (b._data.shape, b._data.dtype, b._device)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, out = ctx._stored_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            # torch's ratio out / a: +-1, but NaN at a = +-inf or NaN, and it is masked to 0 at
            # a = 0 before the multiply, so a NaN upstream gradient stays NaN there; out is
            # recomputed from a (its derivative in a double backward)
            ratio = where(a == 0, 0.0, Copysign.apply(a, out.detach()) / a)
            ga = grad * ratio
        if ctx.needs_input_grad[1]:  # torch's zeros_like(other): 0 even where grad is NaN
            shape, dtype, device = ctx.other_like
            gb = _make(device.backend.xp.zeros(shape, dtype), device, False, None)
        return ga, gb


def copysign(input, other, *, out=None):
    """|input| with the sign of other (a tensor or a number). Mirrors torch.copysign."""
    if not isinstance(input, Tensor):  # no overload takes it (NOTE [ Overloaded binary ops ])
        raise TypeError(operand_error("copysign", input, other))
    a, b, _ = promote_float(input, other, "copysign")
    if not isinstance(b, Tensor):
        # torch's Scalar overload: CopysignBackward1, listing the tensor alone
        result = Copysign.apply(a, scalar_like(float(b), a))
        return _out(name_node(result, "CopysignBackward1", (a,), shown=(0,)), out)
    return _out(Copysign.apply(a, b), out)


# --- float_power, ldexp ---


def float_power(input, exponent, *, out=None):
    """input ** exponent computed in float64, whatever the operands' dtypes.
    Mirrors torch.float_power."""
    f64 = _dtype.float64
    numbers_only = not isinstance(input, Tensor) and not isinstance(exponent, Tensor)
    for v in (input, exponent):
        if numbers_only or not (isinstance(v, Tensor) or is_number(v)):  # (x, "a"), (2, 3)
            from minitorch._ops._parser_errors import BINARY_FORMS, overload_error

            named = (("input", input), ("exponent", exponent))
            raise overload_error("float_power", *BINARY_FORMS["float_power"], named)
    base = cast(input, f64) if isinstance(input, Tensor) else float(input)
    exp_ = cast(exponent, f64) if isinstance(exponent, Tensor) else float(exponent)
    if not isinstance(base, Tensor):
        base = scalar_like(base, exp_)
    if out is not None and out.dtype is not f64:
        raise RuntimeError(
            f"the output given to float_power has dtype {_dtype.scalar_name(out.dtype)} but the "
            "operation's result requires dtype Double"
        )
    return _out(pow(base, exp_), out)


def float_power_(self, exponent):
    """In-place float_power; self must already be float64. Mirrors torch.Tensor.float_power_."""
    if self.dtype is not _dtype.float64:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {_dtype.scalar_name(self.dtype)} but the "
            "operation's result requires dtype Double"
        )
    return apply_inplace(self, lambda s: float_power(s, exponent), "float_power_", (exponent,))


class Ldexp(Function):
    """out = a * 2**e for an integer exponent e, rounded once (no 2**e in a's dtype to overflow
    or flush to 0 on the way: ldexp(1e-3, 130) is 1.3611e+36 in float32);
    grad_a = ldexp(grad, e)"""

    _node_name = "LdexpBackward0"
    _saved_names = ("other", "result")  # grad_fn._saved_<name> (as torch's: e as given)

    @staticmethod
    def forward(ctx, a, e):
        x = a._data
        work = x if x.dtype.itemsize >= 4 else x.astype("float32")  # exact for half's range
        n = e._data.astype("int32", copy=False)  # C's ldexp takes an int: wrapped as torch's
        out = _arr(ctx.xp, ctx.xp.ldexp(work, n)).astype(x.dtype, copy=False)
        ctx.save_for_backward(e, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        e, _ = ctx._stored_tensors
        return (Ldexp.apply(grad, e) if ctx.needs_input_grad[0] else None), None


def ldexp(input, other, *, out=None):
    """input * 2 ** other. Mirrors torch.ldexp: an integer exponent is exact over the whole range
    (torch's kernel is C's ldexp, exponents wrapped to int32 as there); a float one goes through
    2 ** other in other's dtype, as torch computes it.

    Differences from torch: the gradient for input is ldexp(grad, other) for integer exponents
    (torch 2.13 computes 2 ** other in the integer dtype there, giving 0 for negative or large
    exponents)."""
    _check_tensor(input, "ldexp")
    _check_tensor(other, "ldexp", "other", 2)
    if isinstance(out, Tensor) and not out.dtype.is_floating_point:
        raise _ldexp_cast_error(out)
    if other.dtype is _dtype.bool and input.dtype.is_floating_point:  # torch's kernels: an
        # integer/bool input multiplies (the shapes first: NOTE [ Shapes before dtypes ])
        raise_in_order((input, other), _not_implemented("ldexp_cpu_exp", other.dtype))
    a, b, dt = promote_float(input, other, "ldexp")
    _, other = same_device(a, other, "ldexp")
    if not other.dtype.is_floating_point:
        if not input.dtype.is_floating_point:
            # torch has no ldexp kernel for an integer or bool input: it computes
            # input * 2 ** other in the default float dtype, so 0 * 2 ** 255 is nan in float32
            # and 3 * 2 ** -150 is 0 (the power flushed first; no grad: inputs are integers)
            return _out(mul(a, _const(_power_of_two(other, dt), a)), out)
        return _out(Ldexp.apply(a, other), out)
    # torch's input * 2 ** other: the power in other's own dtype (a float16 exponent's 2 ** 16
    # is inf, a float32 one rounds to float32 beside a float64 input), then mul's promotion,
    # in torch's one node (NOTE [ Composite nodes ]), which saves other (when input's gradient
    # is computed) and its result
    result = mul(a, exp2(other))
    if result._grad_fn is None:  # (no graph: nothing to fold)
        return _out(result, out)
    saves_other = a._requires_grad
    attrs = {"kept_device": a._device, "saves_other": saves_other}
    saved = (other if saves_other else None, result)
    return _out(as_node(result, "LdexpBackward0", (a, other), saved=saved, attrs=attrs), out)


def _ldexp_saved_other(node):
    """grad_fn._saved_other of ldexp's node for a float exponent (None where not saved)."""
    return saved_value(0)(node) if node.saves_other else None


def _ldexp_saved_result(node):
    """grad_fn._saved_result of ldexp's node for a float exponent."""
    return saved_value(1 if node.saves_other else 0)(node)


show_saved("LdexpBackward0", {"other": _ldexp_saved_other, "result": _ldexp_saved_result})


def _ldexp_cast_error(out: Tensor) -> RuntimeError:
    """torch's error for an integer or bool destination of ldexp (out= or self of ldexp_): its
    result is always floating, and its message names the op, not the result type."""
    return RuntimeError(
        f"ldexp can't be cast to the desired output type {_dtype.scalar_name(out.dtype)}"
    )


def ldexp_(input, other):
    """In-place ldexp. Mirrors torch.Tensor.ldexp_."""
    check_tensors("ldexp_", ("input", input))
    _check_tensor(other, "ldexp_", "other", 1)
    if not input.dtype.is_floating_point:
        raise _ldexp_cast_error(input)
    return _ldexp_inplace(input, other)


def _power_of_two(e: Tensor, dt):
    """2 ** e for an integer tensor e, exactly, as an array of the float dtype dt (inf or 0 out
    of its range). The exponents are clipped first: past +-1100 every float dtype is inf or 0
    already, and C's ldexp takes an int32 exponent."""
    xp = e._device.backend.xp
    work = dt.np if dt.itemsize >= 4 else "float32"  # a 2-byte power rounds once from float32
    n = xp.clip(e._data, -1100, 1100) if e.dtype is not _dtype.bool else e._data
    power = xp.ldexp(xp.ones((), dtype=work), n.astype("int32"))
    return _arr(xp, power).astype(dt.np)


# --- frexp ---


class FrexpMantissa(Function):
    """mantissa = a / 2**e with |mantissa| in [0.5, 1), e = frexp's exponent (not an input),
    exact for every finite a;  grad_a = grad / 2**e, 2**e in float32 as torch's formula has it
    (0 where that overflows, inf where it flushes to 0)"""

    _node_name = "FrexpBackward0"
    _edges = (0,)  # torch's node lists the input alone (the exponent is one of its outputs)
    _saved_names = ("exponent",)

    @staticmethod
    def forward(ctx, a, e, *, mantissa):
        ctx.save_for_backward(e)
        return mantissa

    @staticmethod
    def backward(ctx, grad):
        (e,) = ctx._stored_tensors
        # 2**e in float32, exactly (NumPy's float32 exp2 is 1 ulp off at 2**127)
        scale = Ldexp.apply(cast(scalar_like(1.0, e), _dtype.float32), e)
        return cast(div(grad, scale), grad.dtype), None


def frexp(input, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent and |mantissa| in [0.5, 1).
    Mirrors torch.frexp (the mantissa is differentiable)."""
    from minitorch.return_types import frexp as result
    from minitorch.return_types import out_type

    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(frexp, (input,), {"out": out})
    if out is not None:
        check_out_tuple(out, 2, "frexp", 1)
    _check_tensor(input, "frexp")
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = input._device.backend.xp
    x = input._data
    # NumPy's frexp, not input / 2**exponent: 2**exponent overflows the dtype near its top
    # (half 40000 has exponent 16) and the mantissa would be 0
    m, e = xp.frexp(x if x.dtype.kind == "f" else x.astype("float32"))
    exponent = _const(_arr(xp, e.astype("int32")), input)
    mantissa = FrexpMantissa.apply(input, exponent, mantissa=_arr(xp, m).astype(x.dtype))
    if out is not None:
        _check_frexp_out(input, out)
        _out(mantissa, out[0])
        _out(exponent, out[1])
        return out_type(result)((out[0], out[1]))  # torch.return_types.frexp_out
    return result((mantissa, exponent))


def _check_frexp_out(input, out) -> None:
    """torch's frexp out=: the mantissa in input's dtype, the exponent int32 (no casts)."""
    names = _dtype.CPP_NAMES
    mantissa, exponent = out[0], out[1]
    if isinstance(mantissa, Tensor) and mantissa.dtype is not input.dtype:
        raise RuntimeError(
            f"torch.frexp() expects mantissa to have dtype {names[input.dtype.name]} but got "
            f"{names[mantissa.dtype.name]}"
        )
    if isinstance(exponent, Tensor) and exponent.dtype is not _dtype.int32:
        raise RuntimeError(
            f"torch.frexp() expects exponent to have int dtype but got {names[exponent.dtype.name]}"
        )


# --- integer-only and non-differentiable binary ops ---


def _integral(input, other, op: str):
    _check_tensor(input, op)
    _check_tensor(other, op, "other", 2)
    a, b, dt = promote(input, other, op)
    if dt.is_floating_point or dt is _dtype.bool:  # NOTE [ Shapes before dtypes ] (the op's
        # out=, read from its frame: gcd's and lcm's success paths pass none here)
        raise_in_order((a, b), _not_implemented(f"{op}_cpu", dt), dt, callers_out())
    return a, b, dt


def gcd(input, other, *, out=None):
    """Greatest common divisor of integer tensors. Mirrors torch.gcd."""
    if (  # a plain tensor and a number pay two class tests
        input.__class__ is not Tensor
        or (other.__class__ is not Tensor and isinstance(other, Tensor))
    ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
        return run_converted(gcd, (input, other), {"out": out})
    a, b, dt = _integral(input, other, "gcd")
    xp = a._device.backend.xp
    try:
        r = xp.gcd(a._data, b._data)
    except ValueError as e:  # NumPy's broadcasting error as torch's size mismatch
        _raise_broadcast_error(gcd, (a, b), e)
    r = _arr(xp, r).astype(dt.np, copy=False)
    if dt.np.kind == "i" and a._device.type == "cpu":
        r = _gcd_of_minimum(xp, a._data, b._data, r)
    return _out(_const(r, a), out)


def _gcd_of_minimum(xp, x, y, r):
    """r (NumPy's gcd of the host arrays x and y) where neither is its dtype's minimum; there,
    torch's: its Euclid on |x| and |y| in the dtype, where |minimum| wraps to the minimum, gives
    a result signed by the number of steps (int8 gcd(-128, 6) is -2, NumPy's 2)."""
    bits = 8 * r.dtype.itemsize
    low = -(1 << (bits - 1))
    at = (x == low) | (y == low)
    if not at.any():
        return r

    def wrap(v):  # the dtype's wrap-around
        return (v - low) % (1 << bits) + low

    xs, ys = xp.broadcast_arrays(x, y)
    r = r.copy()
    for i in zip(*at.nonzero(), strict=True):
        p, q = int(xs[i]), int(ys[i])
        p, q = wrap(-p if p < 0 else p), wrap(-q if q < 0 else q)
        while p:  # C's remainder takes the dividend's sign
            m = (-q if q < 0 else q) % (-p if p < 0 else p)
            p, q = wrap(-m if q < 0 else m), p
        r[i] = q
    return r


def lcm(input, other, *, out=None):
    """Least common multiple of integer tensors. Mirrors torch.lcm."""
    if (  # a plain tensor and a number pay two class tests
        input.__class__ is not Tensor
        or (other.__class__ is not Tensor and isinstance(other, Tensor))
    ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
        return run_converted(lcm, (input, other), {"out": out})
    a, b, dt = _integral(input, other, "lcm")
    xp = a._device.backend.xp
    try:
        if dt.itemsize < 4:
            r = xp.lcm(a._data, b._data)
        else:
            # torch's |a / gcd * b| takes the absolute value after the product wrapped around
            # (int32 lcm(130, 2**31 - 1) is 130), NumPy's |a| / gcd * |b| before it (-130);
            # narrower types compute in C int, where the two agree
            x, y = a._data, b._data
            g = xp.gcd(x, y)
            r = xp.abs(x // xp.where(g == 0, 1, g) * y)
    except ValueError as e:  # NumPy's broadcasting error as torch's size mismatch
        _raise_broadcast_error(lcm, (a, b), e)
    return _out(_const(_arr(xp, r).astype(dt.np, copy=False), a), out)


class Heaviside(Function):
    """out = 0 where a < 0, b where a == 0, 1 where a > 0 (NaN counts as < 0);  no derivative:
    a result that requires grad, whose backward raises, as torch's"""

    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, a, b):
        xp = ctx.xp
        x = a._data
        r = xp.where(x == 0, b._data, (x > 0).astype(x.dtype))
        return _arr(xp, r.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


def heaviside(input, values, *, out=None):
    """0 where input < 0, values where input == 0, 1 where input > 0 (NaN counts as < 0).
    Mirrors torch.heaviside (not differentiable: backward raises, as torch's)."""
    _check_tensor(input, "heaviside")
    _check_tensor(values, "heaviside", "values", 2)
    input, values = same_device(input, values, "heaviside")
    # torch refuses an out= of another dtype with the same words
    mixed = isinstance(out, Tensor) and out.dtype is not input.dtype
    if input.dtype is not values.dtype or mixed:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _out(Heaviside.apply(input, values), out)


class Nextafter(Function):
    """out = the float after a towards b;  grad_a = grad where a != b, else 0 (the output is b
    there),  grad_b = 0 (as torch)"""

    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's: None unless a's
    # gradient is computed, the one that reads them)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*((a, b) if ctx.needs_input_grad[0] else (None, None)))
        if a._device.type == "cpu":
            out = fast_nextafter(a._data, b._data)
            if out is not None:
                return out
        xp, x, y = ctx.xp, a._data, b._data
        out = xp.nextafter(x, y)
        if x.dtype == xp.float16:  # NumPy's half nextafter returns x where x == y (-0. towards
            out = xp.where(x == y, y, out)  # +0. gave -0.), torch's (and C's) y
        return _arr(xp, out)

    @staticmethod
    def backward(ctx, grad):
        ga = None
        if ctx.needs_input_grad[0]:
            a, b = ctx._stored_tensors
            ga = where(a != b, grad, 0.0)
        return ga, (grad * 0 if ctx.needs_input_grad[1] else None)


def nextafter(input, other, *, out=None):
    """The next floating-point value after input towards other. Mirrors torch.nextafter."""
    _check_tensor(input, "nextafter")
    _check_tensor(other, "nextafter", "other", 2)
    a, b, dt = promote(input, other, "nextafter")
    if not dt.is_floating_point:  # (torch reports mismatched shapes first)
        raise_in_order((a, b), _not_implemented("nextafter_cpu", dt), dt, out)
    return _out(Nextafter.apply(a, b), out)


# --- aliases and small wrappers ---


def positive(input):
    """input itself. Mirrors torch.positive."""
    _check_tensor(input, "positive")
    if input.dtype is _dtype.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def negative(input, *, out=None):
    """-input. Mirrors torch.negative (alias of neg)."""
    return neg(input, out=out)


def negative_(input):
    """In-place neg. Mirrors torch.negative_."""
    return neg_(input)


def absolute(input, *, out=None):
    """|input|. Mirrors torch.absolute (alias of abs)."""
    return abs(input, out=out)


def _clamp_out(input, min, max, out, op):
    """clamp(..., out=out) whose refusal to record a graph names `op` (clamp_min), as torch's."""
    try:
        return clamp(input, min, max, out=out)
    except RuntimeError as e:
        if not str(e).startswith("clamp(): functions with out="):
            raise
        raise RuntimeError(op + str(e)[len("clamp") :]) from None


def clamp_min(input=REQUIRED, min=REQUIRED, *extra, out=None):
    """max(input, min); min a number or a tensor. Mirrors torch.clamp_min."""
    if min is None or extra:  # (one REQUIRED: clamp's TypeError, caught below)
        raise _one_bound_error("clamp_min", input, min, "min", out=True, extra=extra)
    if out is not None:
        return _clamp_out(input, min, None, out, "clamp_min")
    try:
        result = clamp(input, min, None)
    except TypeError as e:  # (clamp's overloads are not clamp_min's)
        if not str(e).startswith("clamp() received"):
            raise
        raise _one_bound_error("clamp_min", input, min, "min", out=True) from None
    shown = (0, 1) if isinstance(min, Tensor) else None
    return name_node(result, _clamp_node("Min", min), (input,), shown=shown)


def clamp_max(input=REQUIRED, max=REQUIRED, *extra, out=None):
    """min(input, max); max a number or a tensor. Mirrors torch.clamp_max."""
    if max is None or extra:  # (one REQUIRED: clamp's TypeError, caught below)
        raise _one_bound_error("clamp_max", input, max, "max", out=True, extra=extra)
    if out is not None:
        return _clamp_out(input, None, max, out, "clamp_max")
    try:
        result = clamp(input, None, max)
    except TypeError as e:  # (clamp's overloads are not clamp_max's)
        if not str(e).startswith("clamp() received"):
            raise
        raise _one_bound_error("clamp_max", input, max, "max", out=True) from None
    shown = (0, 2) if isinstance(max, Tensor) else None
    return name_node(result, _clamp_node("Max", max), (input,), shown=shown)


def _one_bound_error(op, input, bound, name, out=False, extra=()) -> TypeError:
    """torch's TypeError for a bound of clamp_min/clamp_max of no type they take (None, a str:
    their bound is a Number or a Tensor, never optional, unlike clamp's), or a non-tensor input;
    worded for the call as it was made (NOTE [ Keyword arguments in argument errors ]), with
    the `extra` positional arguments past the bound."""
    from minitorch._ops._parser_errors import overload_error, with_extra

    tail = ", *, Tensor out = None" if out else ""
    sigs = [f"Tensor input, {k} {name}{tail}" for k in ("Tensor", "Number")]
    method_sigs = [f"{k} {name}" for k in ("Tensor", "Number")]
    named = with_extra((("input", input), (name, bound)), extra)
    return overload_error(op, sigs, method_sigs, named)


def _clamp_node(kind, bound):
    # torch's one-sided clamp kernels: ...Backward0 for a number, ...Backward1 for a tensor
    return f"Clamp{kind}Backward{1 if isinstance(bound, Tensor) else 0}"


def clamp_min_(input, min):
    """In-place clamp_min. Mirrors torch.clamp_min_."""
    # through clamp_min, so the node is torch's ClampMinBackward0/1 (not clamp_'s)
    if min is None:
        raise _one_bound_error("clamp_min_", input, min, "min")
    if fast_clamp_(input, min, None):
        return input
    return apply_inplace(input, lambda s: clamp_min(s, min), "clamp_min_", (min,))


def clamp_max_(input, max):
    """In-place clamp_max. Mirrors torch.clamp_max_."""
    if max is None:
        raise _one_bound_error("clamp_max_", input, max, "max")
    if fast_clamp_(input, None, max):
        return input
    return apply_inplace(input, lambda s: clamp_max(s, max), "clamp_max_", (max,))


def clip(input=REQUIRED, min=None, max=None, *extra, out=None):
    """Alias of clamp. Mirrors torch.clip."""
    try:
        return clamp(input, min, max, *extra, out=out)
    except TypeError as e:  # NOTE [ Argument parser errors ]: under its own name
        if not str(e).startswith("clamp() received an invalid combination"):
            raise
        raise clamp_error("clip", input, min, max, out, extra) from None


def clip_(input, min=None, max=None):
    """Alias of clamp_. Mirrors torch.clip_."""
    return clamp_(input, min, max)


def multiply(input, other, *, out=None):
    """Alias of mul. Mirrors torch.multiply."""
    return mul(input, other, out=out)


def subtract(input, other, *, alpha=1, out=None):
    """Alias of sub. Mirrors torch.subtract."""
    return sub(input, other, alpha=alpha, out=out)


def divide(input, other, *, rounding_mode=None, out=None):
    """Alias of div. Mirrors torch.divide."""
    return div(input, other, rounding_mode=rounding_mode, out=out)


deg2rad_ = _inplace(deg2rad)
rad2deg_ = _inplace(rad2deg)
copysign_ = _inplace(copysign)
gcd_ = _inplace(gcd)
lcm_ = _inplace(lcm)
heaviside_ = _inplace(heaviside)
_ldexp_inplace = _inplace(ldexp)
nextafter_ = _inplace(nextafter)
sign_ = _inplace(sign)
