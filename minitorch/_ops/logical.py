"""Logical and bitwise ops, closeness tests, float predicates (never differentiable), and the
in-place comparisons (eq_, lt_, ...) with the comparison aliases (greater, less, ...)."""

from __future__ import annotations

import numbers

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    broadcast_pair,
    promote,
    same_device,
    wrapped_big_ints,
    wrong_type,
)
from minitorch._ops._parser_errors import BINARY_FORMS, binary_overload_error, overload_error
from minitorch._ops.pointwise import _d, _out, _out_exact, eq, ge, gt, le, lt, ne
from minitorch._ops.pointwise_more import _arr, _check_tensor, _not_implemented, _short
from minitorch._subclass import any_dispatching, dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch._tensor_methods import _number_arg as number_arg
from minitorch.autograd.function import Function, _raise_broadcast_error, fast_path, name_node
from minitorch.autograd.grad_mode import no_grad

# fmt: off
__all__ = [
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "isclose",
    "allclose", "equal", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit",
    "logical_and_", "logical_or_", "logical_xor_", "logical_not_", "bitwise_and_", "bitwise_or_",
    "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_", "bitwise_right_shift_",
    "greater", "greater_equal", "less", "less_equal", "not_equal",
]
# eq_, ne_, lt_, le_, gt_, ge_ and the aliases' `_` forms are Tensor methods only, as in torch.
# fmt: on


def _new(array, ref: Tensor) -> Tensor:
    return _make(_arr(ref._device.backend.xp, array), ref._device, False, None)


def _binary_inputs(input, other, op: str):
    _check_tensor(input, op, "input", 1)
    _check_tensor(other, op, "other", 2)
    return same_device(input, other, op)


# --- logical: any dtype in, bool out ---


def _logical(name: str):
    kernel = name.removeprefix("logical_")

    def op(input, other, *, out=None):
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(op, (input, other), {"out": out})
        input, other = _binary_inputs(input, other, name)
        if input._data.dtype != other._data.dtype:
            # torch tests the operands in their common dtype: a 0-d int16 -32768 beside an int8
            # tensor is 0 there, a 0-d float64 1e-8 beside a float16 one too
            input, other, _ = promote(input, other, name)
        xp = input._device.backend.xp
        try:
            r = getattr(xp, name)(input._data, other._data)
        except ValueError as e:
            _raise_broadcast_error(op, (input, other), e)
        return _out(_new(r, input), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise logical {kernel.upper()} (nonzero is True). Mirrors torch.{name}."
    return op


logical_and = _logical("logical_and")
logical_or = _logical("logical_or")
logical_xor = _logical("logical_xor")


def logical_not(input, *, out=None):
    """Elementwise logical NOT (nonzero is True). Mirrors torch.logical_not."""
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(logical_not, (input,), {"out": out})
    _check_tensor(input, "logical_not")
    return _out(_new(input._device.backend.xp.logical_not(input._data), input), out)


# --- bitwise: integral and bool tensors ---


def _integral(a, b, op: str, kernel: str, shift: bool = False, out=None):
    """(a, b, dtype) promoted, refusing floating results (and, for shifts, bool and the shell
    unsigned dtypes, for which torch builds no shift kernels) after out='s checks, which torch
    makes first: its parser's (out a Tensor, and input one: the Number-self form takes no out),
    then the cast of the result type into out."""
    if out is not None and not (isinstance(out, Tensor) and isinstance(a, Tensor)):
        named = (("input", a), ("other", b), ("out", out))
        raise overload_error(op, *BINARY_FORMS[op], named)
    a, b = same_device(a, b, op)
    a, b, dt = promote(a, b, op)
    if dt.is_floating_point or (shift and (dt.name == "bool" or dt in _dtype.SHELL_UINTS)):
        if isinstance(a, Tensor) and isinstance(b, Tensor):  # the shapes are checked first
            broadcast_pair(a._data.shape, b._data.shape)
        if out is not None and not _dtype.can_cast(dt, out.dtype):
            raise RuntimeError(
                f"result type {_short(dt)} can't be cast to the desired output type "
                f"{_short(out.dtype)}"
            )
        raise _not_implemented(kernel, dt)
    return a, b, dt


def _bitwise(name: str):
    def op(input=REQUIRED, other=REQUIRED, *extra, out=None):
        if extra:  # (a left-out operand is REQUIRED: promote's overload error names the call)
            raise binary_overload_error(name, input, other, extra)
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(op, (input, other), {"out": out})
        a, b, dt = _integral(input, other, name, f"{name}_cpu", out=out)
        ref = a if isinstance(a, Tensor) else b
        kernel = getattr(ref._device.backend.xp, name)
        try:
            r = kernel(_d(a), _d(b))
        except ValueError as e:
            _raise_broadcast_error(op, (a, b), e)
        except OverflowError:  # x ^ 0x9E3779B97F4A7C15: NOTE [ Unsigned 64-bit numbers ]
            a, b = wrapped_big_ints(a, b)
            r = kernel(_d(a), _d(b))
        return _out(_new(r.astype(dt.np, copy=False), ref), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"Elementwise {name.replace('_', ' ')} of integral or bool tensors. Mirrors torch.{name}."
    )
    return op


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")


def bitwise_not(input=REQUIRED, *extra, out=None):
    """Bitwise NOT (logical NOT for bool). Mirrors torch.bitwise_not."""
    if extra:
        raise arity_error("bitwise_not", extra, 1, input=input)
    if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
        return run_converted(bitwise_not, (input,), {"out": out})
    _check_tensor(input, "bitwise_not")
    if input.dtype.is_floating_point or input.dtype in _dtype.SHELL_UINTS:
        if isinstance(out, Tensor) and out.dtype is not input.dtype:
            _out_exact(input, out)  # (raises torch's dtype error, checked before the kernel's)
        raise _not_implemented("bitwise_not_cpu", input.dtype)
    return _out_exact(_new(input._device.backend.xp.invert(input._data), input), out)


def _shift(name: str, left: bool):
    def op(input=REQUIRED, other=REQUIRED, *extra, out=None):
        if extra:  # (a left-out operand is REQUIRED: promote's overload error names the call)
            raise binary_overload_error(name, input, other, extra)
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(op, (input, other), {"out": out})
        kernel = "lshift_cpu" if left else "rshift_cpu"
        a, b, dt = _integral(input, other, name, kernel, shift=True, out=out)
        ref = a if isinstance(a, Tensor) else b
        xp = ref._device.backend.xp
        x, s = _d(a), _d(b)
        if isinstance(x, int):  # 2**63 << t wraps: NOTE [ Unsigned 64-bit numbers ]
            x = xp.asarray(_dtype.wrap_int(x, dt.np), dtype=dt.np)
        nbits = dt.itemsize * 8
        # A shift by a negative count or by the width or more is defined in torch (0, or -1 for
        # a negative number shifted right). NumPy's kernels test the count and give the same
        # (clipping and selecting took 9x torch's time); CuPy's leave it to the hardware.
        if isinstance(s, int):
            over, s_ok = not 0 <= s < nbits, min(max(s, 0), nbits - 1)
            if over and not _dtype.SCALAR_INT_MIN <= s < _dtype.SCALAR_INT_END:
                raise _dtype.scalar_int_overflow(s)  # NOTE [ Ints beyond a Scalar ]
        elif x.dtype == s.dtype == dt.np and getattr(xp, "__name__", "") == "numpy":
            over, s_ok = False, s
        else:
            over, s_ok = (s < 0) | (s >= nbits), xp.clip(s, 0, nbits - 1)
        try:
            r = xp.left_shift(x, s_ok) if left else xp.right_shift(x, s_ok)
        except ValueError as e:
            _raise_broadcast_error(op, (a, b), e)
        if over is not False:  # (an array for CuPy's where, which takes no Python bool)
            r = xp.where(xp.asarray(over), 0 if left else xp.where(x < 0, -1, 0), r)
        return _out(_new(r.astype(dt.np, copy=False), ref), out)

    op.__name__ = op.__qualname__ = name
    side = "left" if left else "right (arithmetic)"
    op.__doc__ = f"Elementwise {side} shift of integral tensors. Mirrors torch.{name}."
    return op


bitwise_left_shift = _shift("bitwise_left_shift", left=True)
bitwise_right_shift = _shift("bitwise_right_shift", left=False)


# --- closeness ---


def _tolerance(x, op: str, name: str, pos: int):
    """isclose's float arguments as torch's parser reads them: a real number (bools and NumPy
    numbers too) or a 0-d tensor's value (NOTE [ Number-like arguments ]); anything else is
    torch's TypeError."""
    if isinstance(x, Tensor):
        return number_arg(x, op, name, kind="float")
    if isinstance(x, numbers.Real):
        return x
    raise wrong_type(op, x, name, pos, "float")


def _close_args(rtol, atol, equal_nan, op: str):
    """(rtol, atol, equal_nan) of isclose/allclose, checked as torch's parser does."""
    if rtol.__class__ is not float:
        rtol = _tolerance(rtol, op, "rtol", 3)
    if atol.__class__ is not float:
        atol = _tolerance(atol, op, "atol", 4)
    if equal_nan.__class__ is not bool:  # torch takes nothing else, not even an int
        raise wrong_type(op, equal_nan, "equal_nan", 5, "bool")
    return rtol, atol, equal_nan


def isclose(input=REQUIRED, other=REQUIRED, rtol=1e-05, atol=1e-08, equal_nan=False, *extra):
    """|input - other| <= atol + rtol * |other|, elementwise. Mirrors torch.isclose."""
    if extra or input is REQUIRED or other is REQUIRED:
        raise arity_error("isclose", extra, 5, input=input, other=other)
    if (  # a plain tensor and a number pay two class tests
        input.__class__ is not Tensor
        or (other.__class__ is not Tensor and isinstance(other, Tensor))
    ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
        args = (input, other, rtol, atol, equal_nan)
        return run_converted(isclose, args)
    return _isclose(input, other, *_close_args(rtol, atol, equal_nan, "isclose"))


def check_tolerances(rtol, atol) -> None:
    """isclose's RuntimeError for a negative rtol or atol (also gradcheck's, through allclose)."""
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")


def _isclose(input, other, rtol, atol, equal_nan, op="isclose"):
    """isclose of checked tolerances (op: the name a wrong argument type is reported under)."""
    input, other = _binary_inputs(input, other, op)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_short(input.dtype)} did not match {_short(other.dtype)}")
    check_tolerances(rtol, atol)
    xp = input._device.backend.xp
    x, y = input._data, other._data
    try:
        xp.broadcast_shapes(x.shape, y.shape)
    except ValueError as e:
        _raise_broadcast_error(isclose, (input, other), e)
    if input.dtype.is_floating_point or input.dtype.is_complex:
        return _new(xp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan), input)
    return _new(_isclose_integral(xp, x, y, rtol, atol), input)


def _isclose_integral(xp, x, y, rtol, atol):
    """isclose of integral/bool arrays as torch computes it: equal values are always close (exact,
    even past 2**53), zero tolerances mean plain equality, and otherwise the error test runs in
    the default float dtype (so float32 rounding of large integers shows, as in torch); the cast
    also keeps x - y from wrapping around."""
    close = x == y
    if rtol == 0 and atol == 0:
        return close
    fdt = _dtype.get_default_dtype().np
    xf, yf = x.astype(fdt), y.astype(fdt)
    err = xp.abs(xf - yf)
    return close | (xp.isfinite(err) & (err <= atol + xp.abs(rtol * yf)))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """Whether isclose holds everywhere (a Python bool: reads the device). Mirrors
    torch.allclose."""
    if (
        input.__class__ is Tensor
        and other.__class__ is Tensor
        and input._device is _CPU
        and other._device is _CPU
        and rtol.__class__ is float
        and atol.__class__ is float
        and equal_nan.__class__ is bool
        and rtol >= 0
        and atol >= 0
        and fast_path[0]
    ):  # two plain float CPU tensors of one dtype and shape with valid tolerances: _isclose's
        # kernel without its checks, which pass (allclose of two (3, 4): 14.4 -> 12.4 us)
        x, y = input._data, other._data
        if x.dtype is y.dtype and x.dtype.kind == "f" and x.shape == y.shape:
            close = _CPU.backend.xp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)
            return bool(close.all())
    close = _isclose(input, other, *_close_args(rtol, atol, equal_nan, "allclose"), "allclose")
    if close._device.type == "meta":  # torch's reads the answer with item()
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return bool(close._device.backend.to_host(close._data.all()))


def equal(input=REQUIRED, other=REQUIRED, *extra) -> bool:
    """Same shape and equal values (a Python bool: reads the device). Mirrors torch.equal."""
    if (
        input.__class__ is Tensor
        and other.__class__ is Tensor
        and input._device is _CPU
        and other._device is _CPU
        and input._data.dtype is other._data.dtype
        and not extra
        and fast_path[0]
    ):  # two plain CPU tensors of one dtype: the checks and the promotion below pass them as
        # they are (equal of two (3, 4): 1.8 -> 1.3 us)
        x, y = input._data, other._data
        return x.shape == y.shape and bool((x == y).all())
    if extra or input is REQUIRED or other is REQUIRED:
        raise arity_error("equal", extra, 2, input=input, other=other)
    if getattr(input, "is_meta", False) or getattr(other, "is_meta", False):
        from minitorch._backend.meta import no_kernel

        raise no_kernel("equal")  # (before the devices are compared)
    input, other = _binary_inputs(input, other, "equal")
    if input._data.shape != other._data.shape:
        return False
    a, b, _ = promote(input, other, "equal")
    return bool(a._device.backend.to_host((a._data == b._data).all()))


# --- float predicates ---


def _predicate(name: str, kernel, integral, summary: str, with_out: bool = False):
    """`kernel(xp, x)` for floating tensors; `integral` (False/True/None: x < 0) for the rest."""

    def compute(input):
        _check_tensor(input, name)
        xp = input._device.backend.xp
        x = input._data
        if input.dtype.is_floating_point:
            return _new(kernel(xp, x), input)
        if integral is None:
            return _new(x < 0, input)
        return _new(xp.full(x.shape, integral, dtype=bool), input)

    if with_out:

        def op(input, *, out=None):
            if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
                return run_converted(op, (input,), {"out": out})
            if isinstance(out, Tensor) and out.dtype.name != "bool":  # no cast from bool
                raise RuntimeError(f"{name} does not support non-boolean outputs.")
            return _out(compute(input), out)

    else:

        def op(input):
            if input.__class__ is not Tensor and dispatching(input):  # NOTE [ Tensor subclasses ]
                return run_converted(op, (input,))
            return compute(input)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{summary}, elementwise (a bool tensor). Mirrors torch.{name}."
    return op


isnan = _predicate("isnan", lambda xp, x: xp.isnan(x), False, "Whether NaN")
isinf = _predicate("isinf", lambda xp, x: xp.isinf(x), False, "Whether +inf or -inf")
isposinf = _predicate("isposinf", lambda xp, x: x == float("inf"), False, "Whether +inf", True)
isneginf = _predicate("isneginf", lambda xp, x: x == float("-inf"), False, "Whether -inf", True)
isfinite = _predicate("isfinite", lambda xp, x: xp.isfinite(x), True, "Whether finite")
signbit = _predicate(
    "signbit",
    lambda xp, x: xp.signbit(x),
    None,
    "Whether the sign bit is set (-0.0 included)",
    True,
)


# --- in-place forms: the result cast back to self's dtype ---


def _inplace(fn, untracked=False):
    """x.fn_(...). `untracked`: as torch's in-place logical ops, autograd is not told (self keeps
    its grad_fn and requires_grad, a leaf that requires grad is allowed); only the version moves."""
    name = fn.__name__

    def op(self, *args):
        from minitorch._ops.inplace import apply_inplace

        if untracked:
            with no_grad():
                return apply_inplace(self, lambda s: fn(s, *args), name + "_", args)
        return apply_inplace(self, lambda s: fn(s, *args), name + "_", args)

    op.__name__ = op.__qualname__ = name + "_"
    op.__doc__ = f"In-place {name}. Mirrors torch.Tensor.{name}_."
    return op


logical_and_ = _inplace(logical_and, untracked=True)
logical_or_ = _inplace(logical_or, untracked=True)
logical_xor_ = _inplace(logical_xor, untracked=True)
logical_not_ = _inplace(logical_not, untracked=True)
for _op in (logical_and_, logical_or_, logical_xor_, logical_not_):
    _op.__doc__ += (
        " Like torch's, it records nothing: a gradient flows through self's earlier graph as if"
        " the op were not there."
    )
del _op
bitwise_and_ = _inplace(bitwise_and)
bitwise_or_ = _inplace(bitwise_or)
bitwise_xor_ = _inplace(bitwise_xor)
bitwise_not_ = _inplace(bitwise_not)
bitwise_left_shift_ = _inplace(bitwise_left_shift)
bitwise_right_shift_ = _inplace(bitwise_right_shift)


# --- comparisons: in-place forms and aliases ---


class _CompareInto:
    """Mixed into the in-place comparisons' Functions: out = the comparison's result (computed
    before) in a's dtype;  grad_a = 0, as torch's in-place comparisons have a zero gradient"""

    @staticmethod
    def forward(ctx, a, *other, result):
        # `other` (a tensor operand, when there is one) only links the node to its history
        return result._data.astype(a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        zero = grad * 0
        return tuple(zero if need else None for need in ctx.needs_input_grad)


class Eq(_CompareInto, Function):
    """self.eq_(other): see _CompareInto"""


class Ne(_CompareInto, Function):
    """self.ne_(other): see _CompareInto"""


class Lt(_CompareInto, Function):
    """self.lt_(other): see _CompareInto"""


class Le(_CompareInto, Function):
    """self.le_(other): see _CompareInto"""


class Gt(_CompareInto, Function):
    """self.gt_(other): see _CompareInto"""


class Ge(_CompareInto, Function):
    """self.ge_(other): see _CompareInto"""


def _compare_inplace(cls, fn):
    name = fn.__name__ + "_"
    backward1 = cls.__name__ + "Backward1"

    def op(self, other):
        from minitorch._ops.inplace import apply_inplace

        _check_tensor(self, name)
        operands = (other,) if isinstance(other, Tensor) else ()

        def compute(s):
            out = cls.apply(s, *operands, result=fn(s, other))
            # a Tensor other (0-d included) is torch's Tensor overload: EqBackward1, ...
            return name_node(out, backward1) if operands else out

        return apply_inplace(self, compute, name, operands)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"self <- {fn.__name__}(self, other) in self's dtype. Mirrors torch.Tensor.{name}."
    return op


eq_ = _compare_inplace(Eq, eq)
ne_ = _compare_inplace(Ne, ne)
lt_ = _compare_inplace(Lt, lt)
le_ = _compare_inplace(Le, le)
gt_ = _compare_inplace(Gt, gt)
ge_ = _compare_inplace(Ge, ge)


def greater(input, other, *, out=None):
    """Alias of gt. Mirrors torch.greater."""
    return gt(input, other, out=out)


def greater_equal(input, other, *, out=None):
    """Alias of ge. Mirrors torch.greater_equal."""
    return ge(input, other, out=out)


def less(input, other, *, out=None):
    """Alias of lt. Mirrors torch.less."""
    return lt(input, other, out=out)


def less_equal(input, other, *, out=None):
    """Alias of le. Mirrors torch.less_equal."""
    return le(input, other, out=out)


def not_equal(input, other, *, out=None):
    """Alias of ne. Mirrors torch.not_equal."""
    return ne(input, other, out=out)
