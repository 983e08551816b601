"""Binary and ternary pointwise math: atan2, fmod, fmax/fmin, lerp, addcmul/addcdiv, hypot,
logaddexp, and nan_to_num."""

from __future__ import annotations

import math
import warnings

from minitorch import _dtype, _memory_format
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    cast,
    check_float,
    fma_via_blas,
    fused_multiply_add,
    is_number,
    number,
    opmath_dtype,
    promote,
    promote_float,
    wrapped_big_ints,
    wrong_type,
)
from minitorch._ops._parser_errors import binary_overload_error
from minitorch._ops.convert import _cast_order
from minitorch._ops.pointwise import (
    _d,
    _out,
    _out_exact,
    _plain_pair,
    div,
    float_mod,
    found_dtype_error,
    out_cast_error,
    raise_in_order,
    sigmoid,
    where,
    zero_division,
    zero_divisor,
)
from minitorch._ops.pointwise_more import (
    _arr,
    _check_tensor,
    _copy,
    _inplace,
    _not_implemented,
)
from minitorch._subclass import any_dispatching, dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch._tensor_methods import _number_arg as number_arg
from minitorch.autograd.function import (
    Function,
    _raise_broadcast_error,
    plain_result,
)
from minitorch.autograd.grad_mode import state as _grad_state

# fmt: off
__all__ = [
    "atan2", "arctan2", "fmod", "fmax", "fmin", "lerp", "addcmul", "addcdiv", "hypot",
    "logaddexp", "logaddexp2", "nan_to_num",
    "atan2_", "arctan2_", "fmod_", "lerp_", "addcmul_", "addcdiv_", "hypot_", "nan_to_num_",
]
# fmt: on

_LN2 = math.log(2.0)

# torch's C++ names of dtypes, used in its dtype-mismatch messages
_CPP_NAMES = _dtype.CPP_NAMES  # torch's C++ dtype names in messages


def _tensors(a, b, op: str, extra=()):
    """Ops that take no Python numbers (torch's TypeError otherwise); torch's parser wording for
    an operand left out (REQUIRED) or `extra` positional arguments past the two."""
    if extra or a is REQUIRED or b is REQUIRED:
        raise arity_error(op, extra, 2, input=a, other=b)
    _check_tensor(a, op, "input", 1)
    _check_tensor(b, op, "other", 2)


def _device_of(a, b):
    return (a if isinstance(a, Tensor) else b)._device


# --- atan2, hypot ---


class Atan2(Function):
    """out = atan2(a, b);  grad_a = grad * b * r,  grad_b = grad * -a * r,  r = 1 / (a² + b²)
    (0 where a² + b² is 0)"""

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _arr(ctx.xp, ctx.xp.arctan2(a._data, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        d = a * a + b * b
        # the origin: 0, not 0/0, as torch (an angle of 0); its second derivatives there are
        # NaN, as torch's (the masked-off 1/0 meets a zero gradient). The products in torch's
        # order, (grad * b) * r: the same bits, and the sign of a zero gradient at the origin
        r = where(d == 0, 0.0, 1 / d)
        return (
            grad * b * r if ctx.needs_input_grad[0] else None,
            grad * -a * r if ctx.needs_input_grad[1] else None,
        )


def _atan2_named(op: str):
    """atan2 under the name `op` (atan2, or its alias arctan2), which its argument errors carry,
    as torch's do (x.arctan2("a"), x.arctan2_("a"))."""

    def atan2(input=REQUIRED, other=REQUIRED, *extra, out=None):
        if extra or input is REQUIRED or other is REQUIRED:
            raise arity_error(op, extra, 2, input=input, other=other)
        _tensors(input, other, op)
        a, b, _ = promote_float(input, other, op)
        return _out(Atan2.apply(a, b), out)

    atan2.__name__ = atan2.__qualname__ = op
    atan2.__doc__ = f"The angle of the point (other, input), in (-pi, pi]. Mirrors torch.{op}."
    return atan2


atan2 = _atan2_named("atan2")
arctan2 = _atan2_named("arctan2")


class Hypot(Function):
    """out = sqrt(a² + b²);  grad_a = grad * a / out,  grad_b = grad * b / out"""

    _saved_names = ("self", "other", "result")  # (as torch's: an input None unless its own
    # gradient, the one that reads it, is computed)

    @staticmethod
    def forward(ctx, a, b):
        out = _hypot_kernel(ctx.xp, a._data, b._data)
        needs = ctx.needs_input_grad
        ctx.save_for_backward(a if needs[0] else None, b if needs[1] else None, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx._stored_tensors
        # (grad * a) / out, in torch's order: grad / out first overflows where out is
        # subnormal (float32 out = 1.4e-40: 1 / out is inf, where a / out is 0.707)
        return (
            grad * a / out if ctx.needs_input_grad[0] else None,
            grad * b / out if ctx.needs_input_grad[1] else None,
        )


def _hypot_kernel(xp, x, y):
    """hypot(x, y). float16 on NumPy: sqrt(x² + y²) in float64 (libm's hypotf), rounded, which
    equals torch's on 6M random pairs, where NumPy's float16 kernel gives NaN for a signalling
    NaN and an infinity (torch: inf). (For float32 this is NumPy's bits, but no faster.)"""
    dt = x.dtype
    if not (dt.kind == "f" and dt.itemsize == 2 and getattr(xp, "__name__", "") == "numpy"):
        return _arr(xp, xp.hypot(x, y))
    x, y = x.astype("float64"), y.astype("float64")  # squares exact, no overflow
    out = xp.asarray(xp.sqrt(x * x + y * y).astype("float32"))
    xp.copyto(out, xp.inf, where=xp.isinf(x) | xp.isinf(y))  # hypot(inf, nan) is inf
    return out.astype(dt, copy=False)


def hypot(input, other, *, out=None):
    """sqrt(input² + other²) without overflow. Mirrors torch.hypot."""
    _tensors(input, other, "hypot")
    a, b, dt = promote(input, other, "hypot")
    if not dt.is_floating_point:
        # torch reports shapes that do not broadcast before the dtype it has no kernel for
        error = out_cast_error(dt, out) or _not_implemented("hypot_cpu", dt)  # (out= first)
        _raise_broadcast_error(None, (input, other), error)
    return _out(Hypot.apply(a, b), out)


# --- fmod ---


class FmodScalar(Function):
    """out = fmod(a, s) (s a number: sign of a);  grad_a = grad"""

    _node_name = "FmodBackward0"

    @staticmethod
    def forward(ctx, a, *, other):
        x = a._data
        # the number in a's dtype, as torch rounds it (float16/bfloat16 then compute in float32)
        return _arr(ctx.xp, float_mod(ctx.xp, x, ctx.xp.asarray(other, dtype=x.dtype), "fmod"))

    @staticmethod
    def backward(ctx, grad):
        return grad


class Fmod(Function):
    """out = a - trunc(a / b) * b;  grad_a = grad,  grad_b = -grad * trunc(a / b)"""

    _node_name = "FmodBackward1"
    _saved_names = ("self", "other")  # None both where other needs no gradient (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*((a, b) if ctx.needs_input_grad[1] else (None, None)))
        return _arr(ctx.xp, float_mod(ctx.xp, a._data, b._data, "fmod"))

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:  # (nothing was saved)
            return grad, None
        a, b = ctx._stored_tensors
        # the quotient with zero gradients (as torch's formula: a / b is not differentiated
        # through, so the second derivative is 0, not 0 * inf = nan at b = 0)
        return grad, -grad * div(a, b, rounding_mode="trunc")


def fmod(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """C-style remainder: the sign of the dividend. Mirrors torch.fmod."""
    if extra or not isinstance(input, Tensor):  # NOTE [ Overloaded binary ops ]
        raise binary_overload_error("fmod", input, other, extra)
    a, b, dt = promote(input, other, "fmod")
    if dt is _dtype.bool:  # (after the shapes: NOTE [ Shapes before dtypes ])
        raise_in_order((a, b), _not_implemented("fmod_cpu", dt))
    if not dt.is_floating_point:
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(fmod, (input, other), {"out": out})
        dev = _device_of(a, b)
        if zero_divisor(_d(b), dev, _d(a)):
            raise zero_division(dt, out)
        xp = dev.backend.xp
        try:
            r = xp.fmod(_d(a), _d(b))
        except ValueError as e:
            _raise_broadcast_error(fmod, (a, b), e)
        except OverflowError:  # fmod(x, 0x9E3779B97F4A7C15): NOTE [ Unsigned 64-bit numbers ]
            a, b = wrapped_big_ints(a, b)
            r = xp.fmod(_d(a), _d(b))
        return _out(_make(_arr(xp, r), dev, False, None), out)
    if not isinstance(b, Tensor):
        return _out(FmodScalar.apply(a, other=b), out)
    return _out(Fmod.apply(a, b), out)


# --- fmax, fmin: maximum/minimum that ignore NaN ---


def _first_on_tie(xp, cpu, pick, pick_number, x, y):
    """fmax(x, y) (pick maximum, pick_number fmax) or fmin with x on a tie (0. against -0.), as
    torch's. NumPy's float32/float64 fmax and fmin return either operand on a tie, by the
    element's place in the array (their SIMD and remainder loops differ); maximum and minimum
    return their second operand. So: pick(y, x), and where that is NaN (x or y is), fmax/fmin's
    choice of the number, where no tie can be (on the CPU in place, through the ufunc's mask:
    as fast as fmax alone). NumPy's float16 and bfloat16 ones tie consistently (float16 on x,
    bfloat16 on y, as torch's)."""
    if x.dtype.char not in "fd":
        return pick_number(x, y)
    r = pick(y, x)
    nan = r != r
    if cpu and r.ndim:
        return pick_number(x, y, out=r, where=nan)
    return xp.where(nan, pick_number(x, y), r)


class Fmax(Function):
    """out = fmax(a, b);  grad to a where a >= b or b is NaN, else to b"""

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp, cpu = ctx.xp, a._device.type == "cpu"
        return _arr(xp, _first_on_tie(xp, cpu, xp.maximum, xp.fmax, a._data, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        to_a = (a >= b) | (b != b)
        return (
            where(to_a, grad, 0.0) if ctx.needs_input_grad[0] else None,
            where(to_a, 0.0, grad) if ctx.needs_input_grad[1] else None,
        )


class Fmin(Function):
    """out = fmin(a, b);  grad to a where a <= b or b is NaN, else to b"""

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        xp, cpu = ctx.xp, a._device.type == "cpu"
        return _arr(xp, _first_on_tie(xp, cpu, xp.minimum, xp.fmin, a._data, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        to_a = (a <= b) | (b != b)
        return (
            where(to_a, grad, 0.0) if ctx.needs_input_grad[0] else None,
            where(to_a, 0.0, grad) if ctx.needs_input_grad[1] else None,
        )


def fmax(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Elementwise maximum, taking the number where one side is NaN. Mirrors torch.fmax."""
    _tensors(input, other, "fmax", extra)
    a, b, _ = promote(input, other, "fmax")
    return _out(Fmax.apply(a, b), out)


def fmin(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Elementwise minimum, taking the number where one side is NaN. Mirrors torch.fmin."""
    _tensors(input, other, "fmin", extra)
    a, b, _ = promote(input, other, "fmin")
    return _out(Fmin.apply(a, b), out)


# --- lerp ---


def _lerp_kernel(device, x, y, w):
    return _arr(device.backend.xp, _lerp_array(device.backend, x, y, w))


def _fma_reusing(xp, d, w, x, out=None):
    """fused_multiply_add(xp, d, w, x) for w a number or an array of x's shape: float32 the same
    float64 computation with its temporary reused (twice as fast on large arrays), rounded
    straight into `out` where given (an in-place update's own array, of x's shape: NOTE
    [ Rounded into self ])."""
    if w.__class__ is float and (out is None or out is x):  # a number weight (lerp_'s)
        r = fma_via_blas(xp, d, w, x, in_place=out is not None)
        if r is not None:
            return r
    if d.dtype.itemsize != 4 or d.shape != x.shape or getattr(w, "shape", x.shape) != x.shape:
        return fused_multiply_add(xp, d, w, x)
    t = xp.multiply(d, w, dtype="float64")  # d widened exactly: one pass, no copy first
    if out is not None:
        xp.add(t, x, out=out, casting="same_kind")
        return out
    t += x
    return t.astype(d.dtype)


# NOTE [ Rounded into self ]
# An optimizer's lerp_/addcmul_ of float32 tensors computes its fused multiply-add in float64
# (NOTE [ Fused multiply-adds ]) and, when every operand has self's shape, rounds the float64
# sum straight into self's memory (`add(t, x, out=self, casting="same_kind")`: the same
# round-to-nearest as astype), where a float32 result and a copy into self took two more passes
# over the parameter (Adam's moments). NumPy's ufuncs buffer operands that overlap the output,
# so an `end` that aliases self still reads the values from before the write.


def _lerp_array(backend, x, y, w, into=None):
    """torch's two-sided formula, exact at w = 0 and at w = 1: x + w * (y - x) for |w| < 0.5,
    else y - (y - x) * (1 - w), each a fused multiply-add rounded once as torch's CPU kernel
    computes (NOTE [ Fused multiply-adds ] in minitorch/_ops/_common.py), with w and 1 - w in
    the computing precision; float dtypes (integers are refused before). `into`: x itself, of
    y's shape, for lerp_ with a number weight (NOTE [ Rounded into self ])."""
    dt = x.dtype
    if opmath_dtype(dt):  # half: computed in float32 and rounded once, as torch does
        x, y = x.astype("float32"), y.astype("float32")
        w = w if isinstance(w, (int, float)) else w.astype("float32")
        into = None
    xp = backend.xp
    d = y - x
    if isinstance(w, (int, float)):
        if x.dtype.kind == "c":
            out = x + w * d if abs(w) < 0.5 else y - d * (1 - w)
        elif abs(w) < 0.5:
            out = _fma_reusing(xp, d, float(x.dtype.type(w)), x, into)
        else:
            out = _fma_reusing(xp, d, -float(x.dtype.type(1) - x.dtype.type(w)), y, into)
    elif x.dtype.kind == "c":
        out = backend.select(xp.abs(w) < 0.5, x + w * d, y - d * (1 - w))
    else:
        small = fused_multiply_add(xp, d, w, x)
        out = backend.select(xp.abs(w) < 0.5, small, fused_multiply_add(xp, d, -(1 - w), y))
    return out.astype(dt, copy=False)


class LerpScalar(Function):
    """out = a + w (b - a) (w a number);  grad_a = grad (1 - w),  grad_b = grad w"""

    _node_name = "LerpBackward0"
    _saved_attrs = {"weight": "weight"}  # grad_fn._saved_weight (as torch's)

    @staticmethod
    def forward(ctx, a, b, *, weight):
        ctx.weight = weight
        return _lerp_kernel(a._device, a._data, b._data, weight)

    @staticmethod
    def backward(ctx, grad):
        w = ctx.weight
        return (
            grad * (1 - w) if ctx.needs_input_grad[0] else None,
            grad * w if ctx.needs_input_grad[1] else None,
        )


class Lerp(Function):
    """out = a + w (b - a);  grad_a = grad (1 - w),  grad_b = grad w,  grad_w = grad (b - a)"""

    _node_name = "LerpBackward1"
    _saved_names = ("self", "end", "weight")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, b, w):
        # a and b are kept only for w's gradient; w always, as torch keeps it (changing w in
        # place before backward raises there even when only w's gradient is asked for)
        needs2 = ctx.needs_input_grad[2]
        ctx.save_for_backward(a if needs2 else None, b if needs2 else None, w)
        return _lerp_kernel(a._device, a._data, b._data, w._data)

    @staticmethod
    def backward(ctx, grad):
        a, b, w = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            grad * (1 - w) if needs[0] else None,
            grad * w if needs[1] else None,
            grad * (b - a) if needs[2] else None,
        )


def check_lerp_dtypes(input, end, weight) -> None:
    """torch's RuntimeError when `end`, or a weight tensor that is not 0-d, has another dtype
    than `input`: lerp does not promote them. Also read by the optimizers whose torch update is
    m.lerp_(g, w) but whose minitorch update is spelt without lerp_ (NOTE [ Updates through the
    in-place fast path ] in minitorch/optim/optimizer.py), so they refuse what torch refuses."""
    dt = input.dtype
    named = [("end", end)] + ([("weight", weight)] if isinstance(weight, Tensor) else [])
    for name, t in named:
        if t.dtype is not dt and (name == "end" or t.ndim > 0):
            raise RuntimeError(
                f"expected dtype {_CPP_NAMES[dt.name]} for `{name}` but got dtype "
                f"{_CPP_NAMES[t.dtype.name]}"
            )


def _lerp_overloads(op, args, extra=()) -> TypeError:
    """torch's TypeError for lerp's arguments (input, end, weight) of types no overload takes
    (NOTE [ Overloaded binary ops ]), left out (REQUIRED) or followed by `extra` ones."""
    from minitorch._ops._parser_errors import TERNARY_FORMS, overload_error, with_extra

    forms, method_forms = TERNARY_FORMS["lerp"]
    if len(args) == 2:  # lerp_'s (end, weight): a method's
        forms = method_forms
    named = tuple(zip(("input", "end", "weight")[-len(args) :], args, strict=True))
    return overload_error(op, forms, method_forms, with_extra(named, extra))


# NOTE [ lerp and addcmul without a node ]
# Where nothing is recorded (NOTE [ The no-grad fast path ] in minitorch/autograd/function.py),
# lerp with a Python number weight and addcmul with a Python number value, of plain float32 or
# float64 CPU tensors of one dtype without out=, call their forward's kernel (_lerp_array;
# value * tensor1, then _fused_multiply_add) on the arrays and wrap the result: the same
# fused multiply-adds, the same bits (lerp_f32 of (3, 4): 6.0 -> 4.3 us). A kernel's ValueError
# (shapes that do not broadcast) goes on to the full path, which raises torch's error.
_CPU_BACKEND = _CPU.backend


def lerp(input=REQUIRED, end=REQUIRED, weight=REQUIRED, *extra, out=None):
    """input + weight * (end - input); weight a number or a tensor. Mirrors torch.lerp."""
    if (
        (weight.__class__ is float or weight.__class__ is int)
        and end.__class__ is Tensor
        and not extra
        and _plain_pair(input, end, out)
        and input._data.dtype.char in "fd"
    ):  # NOTE [ lerp and addcmul without a node ]: LerpScalar.forward's kernel
        try:
            return plain_result(_lerp_array(_CPU_BACKEND, input._data, end._data, weight), _CPU)
        except ValueError:
            pass
    if extra or not (isinstance(input, Tensor) and isinstance(end, Tensor)):
        raise _lerp_overloads("lerp", (input, end, weight), extra)
    dt = input.dtype
    if isinstance(weight, Tensor):
        kernel = "lerp_kernel_tensor"
    else:
        if not is_number(weight):  # a str, a list: no overload takes it (np.bool_ is a Number)
            raise _lerp_overloads("lerp", (input, end, weight))
        weight = number(weight)
        kernel = "lerp_kernel_scalar"
    check_lerp_dtypes(input, end, weight)  # torch checks the dtypes first, then the kernel's
    if isinstance(weight, Tensor) and weight.ndim == 0 and weight.dtype is not dt:
        # a 0-d weight takes part in type promotion (int start/end with a float weight is float;
        # all 0-d, a float64 weight makes the result float64)
        common = _dtype.result_type((dt, input.ndim), (end.dtype, end.ndim), (weight.dtype, 0))
        if common is not dt:
            input, end, dt = cast(input, common), cast(end, common), common
    if not dt.is_floating_point:  # (after the shapes and out=: NOTE [ Shapes before dtypes ])
        error = _not_implemented(kernel, dt)
        if isinstance(weight, Tensor) and weight.ndim and isinstance(out, Tensor):
            if out.dtype is not dt:  # (a weight of dims: out= must have the result's dtype)
                error = found_dtype_error(out.dtype, dt)
            out = None
        raise_in_order((input, end, weight), error, dt, out)  # (else cast into out)
    if not isinstance(weight, Tensor):
        return _out(LerpScalar.apply(input, end, weight=weight), out)
    # a tensor weight: torch's out= must have the result's dtype (a number weight casts, and a
    # 0-d one, which takes part in type promotion)
    result = Lerp.apply(input, end, cast(weight, dt))
    return _out(result, out) if weight.ndim == 0 else _out_exact(result, out)


# --- addcmul, addcdiv ---


def _three(input, t1, t2, op: str):
    """The three tensors cast to their common dtype, with that dtype."""
    if input.__class__ is Tensor and t1.__class__ is Tensor and t2.__class__ is Tensor:
        d = input._data.dtype
        if t1._data.dtype is d and t2._data.dtype is d:  # one dtype: no promotion, no cast
            return input, t1, t2, input.dtype
    for pos, (name, t) in enumerate((("input", input), ("tensor1", t1), ("tensor2", t2)), 1):
        _check_tensor(t, op, name, pos)
    dt = _dtype.result_type(*[(t.dtype, t.ndim) for t in (input, t1, t2)])
    return cast(input, dt), cast(t1, dt), cast(t2, dt), dt


def _fused_multiply_add(xp, p, b, x):
    """p * b + x as torch's addcmul kernel computes (value * tensor1) * tensor2 + input: a fused
    multiply-add, rounded once (NOTE [ Fused multiply-adds ] in minitorch/_ops/_common.py; half
    dtypes arrive widened to float32); integers as they are."""
    return fused_multiply_add(xp, p, b, x)


def _addcmul_array(backend, x, a, b, value):
    """x + (value * a) * b for float32/float64 arrays of one dtype, rounded once as torch's
    addcmul kernel (the in-place fast path of addcmul_); float32 operands of x's shape are
    rounded into x itself (NOTE [ Rounded into self ])."""
    p = a if value == 1 else value * a  # (value * a rounded first, as torch's kernel)
    return _fma_reusing(backend.xp, p, b, x, out=x)


class Addcmul(Function):
    """out = x + v * a * b;  grad_x = grad,  grad_a = grad * v * b,  grad_b = grad * v * a"""

    _saved_names = ("tensor1", "tensor2")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"value": "value"}

    @staticmethod
    def forward(ctx, x, a, b, *, value):
        needs = ctx.needs_input_grad  # each kept only for the other's gradient, as torch
        ctx.save_for_backward(a if needs[2] else None, b if needs[1] else None)
        ctx.value = value
        xd, ad, bd = x._data, a._data, b._data
        dt = xd.dtype
        if opmath_dtype(dt):  # half: computed in float32 and rounded once, as torch does
            # (a float16 product of two gradients above 256 would overflow: Adam's exp_avg_sq)
            xd, ad, bd = xd.astype("float32"), ad.astype("float32"), bd.astype("float32")
        if value != 1:
            if value.__class__ is int and dt.kind in "iu":  # c10's checked conversion, as
                value = _dtype.checked_int(value, dt)  # torch's (uint8: -1 is 255)
            ad = value * ad
        return _arr(ctx.xp, _fused_multiply_add(ctx.xp, ad, bd, xd).astype(dt, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        gv = grad * ctx.value
        needs = ctx.needs_input_grad
        return (grad, gv * b if needs[1] else None, gv * a if needs[2] else None)


class Addcdiv(Function):
    """out = x + v * a / b;  grad_x = grad,  grad_a = grad * v / b,  grad_b = -grad * v * a / b²"""

    _saved_names = ("tensor1", "tensor2")  # grad_fn._saved_<name> (as torch's)
    _saved_attrs = {"value": "value"}

    @staticmethod
    def forward(ctx, x, a, b, *, value):
        # a is kept only for b's gradient; b always, as torch keeps it (changing b in place
        # before backward raises there even when only x's gradient is asked for)
        ctx.save_for_backward(a if ctx.needs_input_grad[2] else None, b)
        ctx.value = value
        xd, ad, bd = x._data, a._data, b._data
        dt = xd.dtype
        if opmath_dtype(dt):  # half: computed in float32 and rounded once, as torch does
            xd, ad, bd = xd.astype("float32"), ad.astype("float32"), bd.astype("float32")
        # torch's order: (value * a) / b, then + x (value * (a / b) differs by an ulp in a
        # third of the elements, and overflows or underflows elsewhere)
        out = xd + ((ad if value == 1 else value * ad) / bd)
        return _arr(ctx.xp, out.astype(dt, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        gv = grad * ctx.value
        needs = ctx.needs_input_grad
        return (grad, gv / b if needs[1] else None, -gv * a / (b * b) if needs[2] else None)


def _value_arg(value, op: str):
    """addcmul's or addcdiv's value, which is not a Python int or float: a Number, or the number
    a 0-d tensor holds (NOTE [ Number-like arguments ]); torch's TypeError for anything else."""
    if isinstance(value, Tensor):
        return number_arg(value, op, "value")
    if not is_number(value):
        raise wrong_type(op, value, "value", None, "Number")
    return value


def addcmul(input, tensor1, tensor2, *args, value=1, out=None):
    """input + value * tensor1 * tensor2. Mirrors torch.addcmul (and its deprecated
    addcmul(input, value, tensor1, tensor2))."""
    if (
        (value.__class__ is float or value.__class__ is int)
        and tensor2.__class__ is Tensor
        and tensor1.__class__ is Tensor
        and not args
        and _plain_pair(input, tensor1, out)
        and tensor2._device is _CPU
        and tensor2._data.dtype is input._data.dtype
        and not (tensor2._requires_grad and _grad_state.enabled)
        and input._data.dtype.char in "fd"
    ):  # NOTE [ lerp and addcmul without a node ]: Addcmul.forward's kernel
        x, a = input._data, tensor1._data
        try:
            p = a if value == 1 else value * a  # (value * tensor1 rounded first, as forward)
            r = _fused_multiply_add(_CPU_BACKEND.xp, p, tensor2._data, x)
            return plain_result(r.astype(x.dtype, copy=False), _CPU)
        except ValueError:
            pass
    if args:
        from minitorch._tensor_methods import _scalar_first

        (tensor1, tensor2), value = _scalar_first(
            "addcmul", tensor1, (tensor2, *args), 2, value, method=False
        )
    x, a, b, dt = _three(input, tensor1, tensor2, "addcmul")
    if value.__class__ is not int and value.__class__ is not float:
        value = _value_arg(value, "addcmul")
    if dt is _dtype.bool:
        raise _not_implemented("addcmul_cpu_out", dt)
    if not dt.is_floating_point:
        value = int(value)  # torch casts the scalar to the integral result type
    return _out(Addcmul.apply(x, a, b, value=value), out)


def addcdiv(input, tensor1, tensor2, *args, value=1, out=None):
    """input + value * tensor1 / tensor2. Mirrors torch.addcdiv (and its deprecated
    addcdiv(input, value, tensor1, tensor2))."""
    if args:
        from minitorch._tensor_methods import _scalar_first

        (tensor1, tensor2), value = _scalar_first(
            "addcdiv", tensor1, (tensor2, *args), 2, value, method=False
        )
    for pos, (name, t) in enumerate(
        (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)), 1
    ):
        _check_tensor(t, "addcdiv", name, pos)
    if value.__class__ is not int and value.__class__ is not float:  # torch's parser: first
        value = _value_arg(value, "addcdiv")
    if not tensor1.dtype.is_floating_point and not tensor2.dtype.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    x, a, b, _ = _three(input, tensor1, tensor2, "addcdiv")
    return _out(Addcdiv.apply(x, a, b, value=value), out)


# --- logaddexp ---

# NOTE [ logaddexp in float32 ]
# NumPy's float32 logaddexp calls libm per element (26 ms for 1M, torch 1.3 ms). torch computes
# max(a, b) + log1p(exp(-|a - b|)) (logaddexp2: log1p(exp2(..)) * (1 / ln 2), fused into the add)
# in float32, returning a where a == b is infinite. Here the same formula, with exp and log1p
# taken in float64 and rounded to float32 (as accurate float32 functions would give them): equal
# to torch's in 99.5% (logaddexp2 99.7%) of random pairs, where NumPy's kernel is 99.0% (91.4%);
# torch's vectorised exp and log1p themselves are not exact, so no kernel here equals it always.
# float16 (NumPy computes it in float32 too) takes the float32 path; float64, bfloat16 and CuPy
# keep their library kernels (NumPy's float64 kernel is the closer to torch's).
_INV_LN2_F32 = float.fromhex("0x1.715476p+0")  # float32(1 / ln 2), torch's constant


def _logaddexp_kernel(xp, x, y, base2: bool):
    dt = x.dtype
    if not (dt.kind == "f" and dt.itemsize <= 4 and getattr(xp, "__name__", "") == "numpy"):
        return _arr(xp, (xp.logaddexp2 if base2 else xp.logaddexp)(x, y))
    x, y = x.astype("float32", copy=False), y.astype("float32", copy=False)
    e = xp.asarray(xp.abs(x - y), dtype="float64")  # (0-d operands give a NumPy scalar)
    xp.negative(e, out=e)
    (xp.exp2 if base2 else xp.exp)(e, out=e)
    e = e.astype("float32").astype("float64")  # exp rounded to float32
    xp.log1p(e, out=e)
    out = e.astype("float32")  # log1p rounded to float32
    if base2:  # fma(log1p, 1 / ln 2, m): the product is exact in float64, the sum rounded
        e = out.astype("float64")
        e *= _INV_LN2_F32
        e += xp.maximum(x, y)
        out = e.astype("float32")
    else:
        out += xp.maximum(x, y)
    same_inf = (x == y) & xp.isinf(x)  # +inf and +inf (or -inf and -inf): the formula's NaN
    if same_inf.any():
        xp.copyto(out, x, where=same_inf)
    return out.astype(dt, copy=False)


def _logaddexp_grads(ctx, grad, d):
    """(grad * sigmoid(d), grad * sigmoid(-d)): logaddexp's gradients, d = a - b (times ln 2 for
    logaddexp2). Both weights come from the one sigmoid of -|d|, the small weight as it is and
    the large one as 1 minus it, so that the large one's derivative keeps its tiny value (as
    torch's 1 / (1 + exp(-d)) does; sigmoid(d)'s out * (1 - out) rounds it to 0 near 1).
    Differences from torch: where exp(|d|) overflows (|d| > 88 in float32, 709 in float64, or
    one side -inf, a masked identity) the double backward is 0 here, NaN (inf / inf) in torch."""
    neg = d < 0
    small = sigmoid(where(neg, d, -d))
    large = 1 - small
    return (
        grad * where(neg, small, large) if ctx.needs_input_grad[0] else None,
        grad * where(neg, large, small) if ctx.needs_input_grad[1] else None,
    )


class Logaddexp(Function):
    """out = log(exp(a) + exp(b));  grad_a = grad sigmoid(a - b),  grad_b = grad sigmoid(b - a)"""

    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _logaddexp_kernel(ctx.xp, a._data, b._data, False)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        return _logaddexp_grads(ctx, grad, a - b)


class Logaddexp2(Function):
    """out = log2(2**a + 2**b);  grad_a = grad * sigmoid((a - b) ln 2),  grad_b symmetric"""

    _saved_names = ("self", "other")  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _logaddexp_kernel(ctx.xp, a._data, b._data, True)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        return _logaddexp_grads(ctx, grad, (a - b) * _LN2)


def logaddexp(input, other, *, out=None):
    """log(exp(input) + exp(other)) without overflow. Mirrors torch.logaddexp."""
    _tensors(input, other, "logaddexp")
    a, b, dt = promote(input, other, "logaddexp")
    if not dt.is_floating_point:
        raise_in_order((input, other), _not_implemented("logaddexp_cpu", dt), dt, out)
    return _out(Logaddexp.apply(a, b), out)


def logaddexp2(input, other, *, out=None):
    """log2(2**input + 2**other) without overflow. Mirrors torch.logaddexp2."""
    _tensors(input, other, "logaddexp2")
    a, b, dt = promote(input, other, "logaddexp2")
    if not dt.is_floating_point:
        raise_in_order((input, other), _not_implemented("logaddexp2_cpu", dt), dt, out)
    return _out(Logaddexp2.apply(a, b), out)


# --- nan_to_num ---


class NanToNum(Function):
    """out = a with NaN, +inf, -inf replaced;  grad_a = grad where a is finite, else 0"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's, which version-checks it)

    @staticmethod
    def forward(ctx, a, *, nan, posinf, neginf):
        xp = ctx.xp
        x = a._data
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(a)
        # ml_dtypes' bfloat16 (kind 'V') goes through float32, rounded back once at the end
        bf16 = x.dtype.kind == "V" and x.dtype.name == "bfloat16"
        src = x.astype("float32") if bf16 else x
        if _cast_order(src) == "C":  # expanded: NOTE [ Preserved layouts ]
            src = _memory_format.into_layout_of(xp, src, src)
        top = _dtype.finfo(a.dtype).max
        out = NanToNum.kernel(a._device.backend, xp, src, top, nan, posinf, neginf)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def kernel(backend, xp, x, top, nan, posinf, neginf):
        """x's copy with NaN -> nan, inf -> posinf, -inf -> neginf (x's finite values lie in
        [-top, top]). Few passes and no branching where (NOTE [ Branch-free selects ] in
        _backend/numpy_backend.py): NumPy's nan_to_num makes six masks and masked copies
        ((1000, 1000) float32: 0.8 ms without a NaN, 8 ms with random NaN and inf; this
        kernel 0.4-0.5 ms either way; torch 0.1 ms). With fills outside the finite range for the
        infinities (the dtype's extremes by default) one clip does both (it passes NaN and
        keeps every finite value, -0 too); a NaN replaced by +0 is a keep."""
        nan, posinf, neginf = (_fill(x.dtype, v) for v in (nan, posinf, neginf))
        if posinf >= top and neginf <= -top:
            out = xp.clip(x, neginf, posinf)
        else:
            out = backend.select(x == math.inf, xp.asarray(posinf), x)
            out = backend.select(x == -math.inf, xp.asarray(neginf), out)
        if nan == 0 and math.copysign(1.0, nan) > 0:
            return backend.keep(x == x, out)  # (NaN is the one value unequal to itself)
        return backend.select(x != x, xp.asarray(nan), out)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * a.isfinite()  # a product, as torch's: an inf upstream gradient gives NaN


def _fill(dt, value):
    """A replacement value as a host scalar of the NumPy dtype dt, rounded as a cast rounds
    it: one beyond the dtype's range is an infinity, as in torch (without NumPy's warning)."""
    if -65504.0 <= value <= 65504.0 or value != value:  # in every float dtype's range
        return dt.type(value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return dt.type(value)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """NaN -> nan, +inf -> posinf, -inf -> neginf (default: the dtype's extremes). Mirrors
    torch.nan_to_num."""
    _check_tensor(input, "nan_to_num")
    if nan is None:  # torch's default, passed through by wrappers
        nan = 0.0
    elif nan.__class__ is not float:  # torch's parser reads floats; its TypeError for the rest
        nan = check_float("nan_to_num", nan, "nan", 2)
    if posinf is not None and posinf.__class__ is not float:
        posinf = check_float("nan_to_num", posinf, "posinf", 3)
    if neginf is not None and neginf.__class__ is not float:
        neginf = check_float("nan_to_num", neginf, "neginf", 4)
    if isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(
            f"nan_to_num: dtype of out: {_dtype.scalar_name(out.dtype)} should be same as input: "
            f"{_dtype.scalar_name(input.dtype)}"
        )
    if not input.dtype.is_floating_point:
        if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
            return run_converted(nan_to_num, (input, nan, posinf, neginf), {"out": out})
        return _out(_copy(input), out)
    fi = _dtype.finfo(input.dtype)
    posinf = fi.max if posinf is None else posinf
    neginf = fi.min if neginf is None else neginf
    return _out(NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf), out)


# --- in-place forms ---

atan2_ = _inplace(atan2)
arctan2_ = _inplace(arctan2)
fmod_ = _inplace(fmod)


def lerp_(self, end, weight):
    """In-place lerp. Mirrors torch.Tensor.lerp_."""
    from minitorch._ops.inplace import apply_inplace, fast_ternary

    # A number weight is no type-promotion operand in torch: an integer self refused by the kernel
    # is its NotImplementedError, not "result type Float can't be cast" (a 0-d float tensor
    # weight does promote, and gets that error)
    if isinstance(weight, Tensor):
        others = (end, weight)
    else:
        if not is_number(weight):
            raise _lerp_overloads("lerp_", (end, weight))
        others = (end,)
        if weight.__class__ in (int, float) and fast_ternary(
            self, others, lambda backend, x, e: _lerp_array(backend, x, e, weight, into=x)
        ):
            return self
    return apply_inplace(self, lambda s: lerp(s, end, weight), "lerp_", others)


hypot_ = _inplace(hypot)


def addcmul_(self, tensor1, tensor2, *, value=1):
    """In-place addcmul. Mirrors torch.Tensor.addcmul_."""
    from minitorch._ops.inplace import apply_inplace, fast_ternary

    if value.__class__ in (int, float) and fast_ternary(
        self, (tensor1, tensor2), lambda backend, x, a, b: _addcmul_array(backend, x, a, b, value)
    ):
        return self
    if value.__class__ is not int and value.__class__ is not float:
        value = _value_arg(value, "addcmul_")
    return apply_inplace(
        self, lambda s: addcmul(s, tensor1, tensor2, value=value), "addcmul_", (tensor1, tensor2)
    )


def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place addcdiv. Mirrors torch.Tensor.addcdiv_."""
    from minitorch._ops.inplace import apply_inplace, fast_ternary

    if value.__class__ in (int, float) and fast_ternary(
        self, (tensor1, tensor2), lambda backend, x, a, b: x + (a if value == 1 else value * a) / b
    ):
        return self
    if value.__class__ is not int and value.__class__ is not float:
        value = _value_arg(value, "addcdiv_")
    return apply_inplace(
        self, lambda s: addcdiv(s, tensor1, tensor2, value=value), "addcdiv_", (tensor1, tensor2)
    )


def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    """In-place nan_to_num. Mirrors torch.nan_to_num_."""
    from minitorch._ops.inplace import apply_inplace

    try:
        return apply_inplace(input, lambda s: nan_to_num(s, nan, posinf, neginf), "nan_to_num_")
    except TypeError as e:  # an argument's error names the in-place op, as torch's
        if not str(e).startswith("nan_to_num(): "):
            raise
        raise TypeError("nan_to_num_" + str(e)[len("nan_to_num") :]) from None
