"""Pointwise ops: arithmetic, exp/log family, activations' kernels, comparisons, where, clamp."""

from __future__ import annotations

import functools
import math
import numbers
import operator as _operator
import sys

from minitorch import _dtype, _memory_format
from minitorch._arg_errors import NOT_GIVEN, REQUIRED, arity_error, too_many_positional
from minitorch._backend import cpu as _CPU
from minitorch._backend import host_blas
from minitorch._backend.numpy_backend import maximum_number
from minitorch._ops._common import (
    LazyImport,
    _fma64,
    _OperandTypeError,
    called_by_operator,
    cast,
    fused_multiply_add,
    is_floating,
    is_number,
    is_scalar_arg,
    not_tensor,
    number,
    opmath_dtype,
    promote,
    promote_float,
    same_device,
    scalar_like,
    type_name,
    uint64_bounds,
    weak_scalar,
    wrap_int,
    wrapped_big_ints,
    wrong_type,
    zero_of,
    zeros_of,
)
from minitorch._subclass import any_dispatching, run_converted
from minitorch._tensor import Tensor, _make
from minitorch._tensor_methods import _NO_OPERAND
from minitorch.autograd.function import (
    Function,
    _Kept,
    _raise_broadcast_error,
    fast_path,
    name_node,
    plain_result,
    record_pair,
    record_unary,
)
from minitorch.autograd.grad_mode import state as _grad_state

# the parser's error messages, loaded at the first error (not with `import minitorch`)
_errors = LazyImport("minitorch._ops._parser_errors")
_CPU_XP = _CPU.backend.xp  # the no-grad fast paths' kernels (NOTE [ The no-grad fast path ])

__all__ = [
    "add",
    "sub",
    "rsub",
    "mul",
    "div",
    "neg",
    "pow",
    "exp",
    "log",
    "sqrt",
    "abs",
    "tanh",
    "sigmoid",
    "relu",
    "maximum",
    "minimum",
    "clamp",
    "where",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "sign",
    "floor_divide",
    "remainder",
]


def _d(x):
    """The raw array of a tensor operand, or the Python scalar itself."""
    return x._data if isinstance(x, Tensor) else x


# --- arithmetic ---


def _saved_alpha(node):
    """grad_fn._saved_alpha of add/sub (as torch's): the alpha given, 1 by default."""
    return node.__dict__.get("saved_alpha", 1)


class Add(Function):
    """out = a + b;  grad_a = grad,  grad_b = grad   (the engine un-broadcasts)"""

    _saved_attrs = {"alpha": _saved_alpha}

    @staticmethod
    def forward(ctx, a, b):
        return getattr(a, "_data", a) + getattr(b, "_data", b)  # a number as it is

    @staticmethod
    def backward(ctx, grad):
        return grad, grad

    _backward_data = backward  # operators only: arrays pass as well (NOTE [ Data-level backward ])


class Sub(Function):
    """out = a - b;  grad_a = grad,  grad_b = -grad"""

    _saved_attrs = {"alpha": _saved_alpha}

    @staticmethod
    def forward(ctx, a, b):
        return getattr(a, "_data", a) - getattr(b, "_data", b)  # a number as it is

    @staticmethod
    def backward(ctx, grad):
        return grad, (-grad if ctx.needs_input_grad[1] else None)

    _backward_data = backward  # operators only: arrays pass as well


class Mul(Function):
    """out = a * b;  grad_a = grad * b,  grad_b = grad * a"""

    _saved_names = ("self", "other")  # grad_fn._saved_self, _saved_other (as torch)

    @staticmethod
    def forward(ctx, a, b):
        # Each input is saved only for the other's gradient (so in-place changes to an input
        # that needs no gradient do not invalidate this node).
        needs = ctx.needs_input_grad
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        return getattr(a, "_data", a) * getattr(b, "_data", b)  # a number as it is

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        return (
            grad * b if ctx.needs_input_grad[0] else None,
            grad * a if ctx.needs_input_grad[1] else None,
        )

    @staticmethod
    def _backward_data(ctx, grad):
        a, b = ctx._stored_arrays()
        if grad.itemsize == 2 and _has_number(a, b):  # widened: NOTE [ Half-precision arithmetic ]
            return NotImplemented
        return (
            grad * b if ctx.needs_input_grad[0] else None,
            grad * a if ctx.needs_input_grad[1] else None,
        )


class HalfMul(Mul):
    """Mul of a half tensor and a number, or a 0-d tensor of another float dtype as its second
    operand: computed in float32 from the operands' own values and rounded once (NOTE
    [ Half-precision arithmetic ]); torch's node is MulBackward0 as for any mul."""

    _node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        needs = ctx.needs_input_grad
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        return _opmath_binary(a, b, _operator.mul)


def _opmath_binary(a, b, op):
    """op of two operands (one a half tensor), in float32, rounded to the half tensor's dtype."""
    x, y = (t._data if isinstance(t, Tensor) else t for t in (a, b))
    dt = x.dtype if isinstance(a, Tensor) and x.itemsize == 2 else y.dtype
    wide = (t.astype("float32") if hasattr(t, "dtype") else t for t in (x, y))
    return op(*wide).astype(dt)


class Div(Function):
    """out = a / b;  grad_a = grad / b,  grad_b = -grad * (a / b) / b (torch's order: a / b**2
    underflows or overflows where a / b does not)"""

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        return getattr(a, "_data", a) / getattr(b, "_data", b)  # a number as it is

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        ga = grad / b if ctx.needs_input_grad[0] else None
        gb = -grad * ((a / b) / b) if ctx.needs_input_grad[1] else None
        return ga, gb

    @staticmethod
    def _backward_data(ctx, grad):
        a, b = ctx._stored_arrays()
        if grad.itemsize == 2 and _has_number(a, b):  # widened: NOTE [ Half-precision arithmetic ]
            return NotImplemented
        ga = grad / b if ctx.needs_input_grad[0] else None
        gb = -grad * ((a / b) / b) if ctx.needs_input_grad[1] else None
        return ga, gb


class HalfDiv(Div):
    """Div of a half tensor and a number (or a 0-d float32/float64/integer divisor): in float32
    from the operands' own values, rounded once; torch's node is DivBackward0."""

    _node_name = "DivBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        return _opmath_binary(a, b, _operator.truediv)


class Neg(Function):
    """out = -a;  grad_a = -grad"""

    @staticmethod
    def forward(ctx, a):
        return -a._data

    @staticmethod
    def backward(ctx, grad):
        return -grad

    _backward_data = backward  # operators only: arrays pass as well


# NOTE [ Same-dtype fast path ]
# add/sub/mul/div run on every step of every model; with two tensors of one dtype (the common case)
# there is nothing to promote, so promote() is skipped.

# NOTE [ Default alpha ]
# add/sub test `alpha is _ONE` (the default 1, and any int 1: CPython has one such object), not
# `alpha == 1`, which True, 1.0 and np.int64(1) pass too: those still go through _alpha, whose
# checks torch makes (alpha=True refused for a non-bool result, 1.0 for an integral one), and
# then skip the scaling when alpha == 1. The same number of opcodes as the comparison.
_ONE = 1

# NOTE [ Deprecated number-first add/sub ]
# Old code calls torch.add(x, alpha, y) / torch.sub(x, alpha, y), torch's deprecated overloads
# (warned about once per process). add and sub are also Tensor.__add__/__sub__ (NOTE [ Direct
# operator binding ]), so they take *args: an operator call passes none, and an empty *args
# costs no bytecode. torch.subtract has no such overload.


def _number_first(op, number, rest, alpha):
    """(other, alpha) of the deprecated op(input, Number alpha, Tensor other), or torch's
    error."""
    from minitorch._tensor_methods import _scalar_first

    return _scalar_first(op, number, rest, 1, alpha, method=False)


def add(input, other, *args, alpha=1, out=None):
    """input + alpha * other. Mirrors torch.add (and its deprecated add(input, alpha, other))."""
    # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Add.forward's sum
    path = _fast_pair(input, other, out) if other.__class__ is Tensor else _fast_number(
        input, other, out
    )
    if path and not args:
        if alpha is _ONE:
            try:
                total = input._data + getattr(other, "_data", other)
            except Exception:  # (free unless raised) the full path raises torch's error
                pass
            else:
                if path is _PLAIN:
                    return plain_result(total, _CPU)
                return record_pair(Add, total, input, other, False, False)
        elif path is _PLAIN and other.__class__ is Tensor:
            fused = _plain_fused(input, other, alpha, False)
            if fused is not None:
                return plain_result(fused, _CPU)
    if args:  # NOTE [ Deprecated number-first add/sub ]
        other, alpha = _number_first("add", other, args, alpha)
    if not (
        isinstance(other, Tensor)
        and isinstance(input, Tensor)
        and input._data.dtype is other._data.dtype
    ):
        try:
            input, other, dt = promote(input, other, "add")
        except _OperandTypeError:  # NOTE [ Operators with foreign operands ]
            if called_by_operator():
                return NotImplemented
            raise
        if dt in _HALF:
            return _half_add_sub(add, input, other, alpha, dt, out)
    elif alpha is _ONE:  # NOTE [ Same-dtype fast path ] (two arrays: no OverflowError)
        return Add.apply(input, other) if out is None else _out(Add.apply(input, other), out)
    elif _dtype.from_numpy(input._data.dtype) in _HALF:
        return _half_add_sub(add, input, other, alpha, input.dtype, out)
    if alpha is not _ONE:  # NOTE [ Default alpha ]
        return _with_alpha(Add, input, other, alpha, out, False)
    try:
        result = Add.apply(input, other)
    except OverflowError:  # x + 0xFFFFFFFFFFFFFFFF: NOTE [ Unsigned 64-bit numbers ]
        result = Add.apply(*wrapped_big_ints(input, other))
    return result if out is None else _out(result, out)


def _with_alpha(cls, input, other, alpha, out, negate):
    """add (cls Add) or sub (cls Sub, negate) with an alpha: input +- alpha * other, its value
    rounded once where torch's kernel fuses the product (NOTE [ Fused multiply-adds ])."""
    try:
        scaled = _scaled(other, alpha, input, "sub" if negate else "add")
    except RuntimeError as e:  # an alpha refused: NOTE [ Shapes before dtypes ]
        raise_in_order((input, other), _alpha_error(e, input, other, alpha, out))
    try:
        result = cls.apply(input, scaled)
    except OverflowError:  # NOTE [ Unsigned 64-bit numbers ]
        result = cls.apply(*wrapped_big_ints(input, scaled))
    fused = _fused_alpha(input, other, alpha, negate)
    if fused is not None:
        # (the graph is the same; a 0-d float32 sum is computed in float64 and rounded, which
        # gives NumPy's scalar: an array, as every result's)
        result._data = result._device.backend.xp.asarray(fused)
    if scaled is not other and result._grad_fn is not None and isinstance(other, Tensor):
        # torch's add/sub take alpha into their one node, with edges to both operands
        from minitorch.autograd.composite import as_node

        name = "SubBackward0" if negate else "AddBackward0"
        attrs = {"saved_alpha": alpha}
        result = as_node(result, name, (input, other), keep=True, attrs=attrs)
    elif result._grad_fn is not None:
        result._grad_fn.saved_alpha = alpha  # (for grad_fn._saved_alpha)
    return result if out is None else _out(result, out)


_BOOL_SUB = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)


def sub(input, other, *args, alpha=1, out=None):
    """input - alpha * other. Mirrors torch.sub (and its deprecated sub(input, alpha, other))."""
    # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Sub.forward's difference
    # (of floats: two bool tensors raise torch's error)
    path = _fast_pair(input, other, out) if other.__class__ is Tensor else _fast_number(
        input, other, out
    )
    if path and not args and input._data.dtype.kind == "f":
        if alpha is _ONE:
            try:
                diff = input._data - getattr(other, "_data", other)
            except Exception:  # (free unless raised) the full path raises torch's error
                pass
            else:
                if path is _PLAIN:
                    return plain_result(diff, _CPU)
                return record_pair(Sub, diff, input, other, False, False)
        elif path is _PLAIN and other.__class__ is Tensor:
            fused = _plain_fused(input, other, alpha, True)
            if fused is not None:
                return plain_result(fused, _CPU)
    if args:  # NOTE [ Deprecated number-first add/sub ]
        other, alpha = _number_first("sub", other, args, alpha)
    if (
        isinstance(other, Tensor)
        and isinstance(input, Tensor)
        and input._data.dtype is other._data.dtype
        and (input._data.dtype.kind == "f" or is_floating(input._data.dtype))
    ):
        if alpha is _ONE:  # NOTE [ Same-dtype fast path ], NOTE [ Default alpha ]
            return Sub.apply(input, other) if out is None else _out(Sub.apply(input, other), out)
    try:
        a, b, dt = promote(input, other, "sub")
    except _OperandTypeError:  # NOTE [ Operators with foreign operands ]
        if called_by_operator():
            return NotImplemented
        raise
    except RuntimeError:  # a bool tensor with a uint64 number: the bool operand's error first
        if _bool_operand(input):
            raise RuntimeError(_BOOL_SUB) from None
        raise
    if dt in _HALF and not (_bool_operand(input) or _bool_operand(other)):
        return _half_add_sub(sub, a, b, alpha, dt, out)
    if dt is _dtype.bool:
        if not isinstance(alpha, complex):  # (a complex one: the bool operands' error first)
            check_alpha(alpha, "sub")  # torch's parser refuses a tensor alpha first
        if _array_operand(input, other, a, b):  # NumPy's subtract refuses two bools
            raise TypeError(
                "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
                "the `^` operator, or the logical_xor function instead."
            )
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    # torch refuses any bool operand. Only look when one may be there: something was cast, a
    # number is a bool, or two tensors differ in dtype (promote leaves a bool tensor uncast).
    maybe = a is not input or b is not other or type(other) is bool or type(input) is bool
    if not maybe and isinstance(b, Tensor) and isinstance(a, Tensor):
        maybe = a._data.dtype is not b._data.dtype
    if (
        maybe
        and (_bool_operand(input) or _bool_operand(other))
        and not _array_operand(input, other, a, b)  # `bool_t - float_array`: NumPy's float64
    ):
        if not isinstance(alpha, complex):  # (a complex one: the bool operand's error first)
            check_alpha(alpha, "sub")
        raise RuntimeError(_BOOL_SUB)
    if alpha is not _ONE:  # NOTE [ Default alpha ]
        return _with_alpha(Sub, a, b, alpha, out, True)
    try:
        return _out(Sub.apply(a, b), out)
    except OverflowError:  # NOTE [ Unsigned 64-bit numbers ]
        return _out(Sub.apply(*wrapped_big_ints(a, b)), out)


def _bool_operand(x) -> bool:
    return isinstance(x, bool) or (isinstance(x, Tensor) and x._data.dtype.kind == "b")


def _array_operand(input, other, a, b) -> bool:
    """Whether sub's input or other is an array (`tensor - array`), whose subtraction is
    NumPy's, not torch's; a, b are the promoted operands."""
    ref = a if isinstance(a, Tensor) else b
    cls = ref._device.backend.array_cls
    return input.__class__ is cls or other.__class__ is cls


def _scaled(x, alpha, ref, op="add"):
    """alpha * x for add/sub's alpha= (x a tensor or a number; ref the promoted other operand);
    x itself for an alpha equal to 1 that torch accepts."""
    check_alpha(alpha, op)
    alpha = _alpha(alpha, ref, x)
    if isinstance(alpha, Tensor):
        return _tensor_scaled(x, alpha, ref)
    if alpha == 1:
        return x
    if not isinstance(ref, Tensor):
        if not isinstance(x, Tensor):
            return x * alpha
        if x._data.dtype.kind == "f":  # (a number ref does not widen x's float dtype)
            _alpha_in_range(alpha, x._data.dtype)
        return mul(x, alpha)
    rdt = ref._data.dtype
    if rdt.kind == "b" and isinstance(x, Tensor):  # an uncast bool ref: the result is x's dtype
        rdt = x._data.dtype
    kind = rdt.kind
    if kind in "iu" and alpha.__class__ is int:  # c10's checked conversion of alpha into the
        _dtype.checked_int(alpha, rdt)  # dtype (int8: 200 raises, uint8: -1 wraps)
    elif kind == "f":
        _alpha_in_range(alpha, rdt)
    if isinstance(x, Tensor):
        if x._data.dtype.kind == "b":
            if kind == "b":  # torch casts alpha to bool: bool + bool stays bool (a logical or)
                return mul(x, bool(alpha))
            x = cast(x, _dtype.from_numpy(ref._data.dtype))  # a mask scaled: -1e4 * mask
        return _keep_number(mul(x, alpha))
    if kind == "b" and x.__class__ is bool:
        return x and bool(alpha)
    x = x * alpha
    if kind in "iu" and x.__class__ is int:  # wraps as the kernel does (uint8: 300 -> 44)
        x = wrap_int(x, ref._data.dtype, scalar=False)
    return x


def _alpha_in_range(alpha, npdt) -> None:
    """c10's checked conversion of a number alpha into the result's float dtype npdt: a finite
    alpha beyond its range is torch's overflow error (add(x, y, alpha=1e39) of float32 tensors,
    alpha=1e5 of float16 ones), where NumPy would make it inf; inf and NaN pass."""
    if alpha.__class__ is float or alpha.__class__ is int:
        top = _dtype._float_top(npdt)
        if top is not None and not -top <= alpha <= top and alpha - alpha == 0:
            raise _dtype.overflow_error(npdt.name)


def _tensor_scaled(x, alpha, ref):
    """alpha * x for a 0-d tensor alpha, which torch's parser reads as a number: it takes no part
    in type promotion (add(int8_t, int8_t, alpha=tensor(2)) is int8), so the product keeps the
    dtype x has beside ref (a number x: ref's, as promote cast it). Its value stays on the
    device: no host read of alpha."""
    if isinstance(x, Tensor):
        if x._data.dtype.kind == "b" and isinstance(ref, Tensor):
            x = cast(x, _dtype.from_numpy(ref._data.dtype))  # (bool + bool: bool, a logical or)
        dt = _dtype.from_numpy(x._data.dtype)
    elif isinstance(ref, Tensor):
        dt = _dtype.from_numpy(ref._data.dtype)
    else:
        dt = _dtype.scalar_dtype(_dtype.from_numpy(alpha._data.dtype), x)
    return cast(mul(x, alpha), dt)


def _plain_fused(input, other, alpha, negate):
    """add/sub's no-grad fast path with an alpha (NOTE [ The no-grad fast path ]): the array
    _with_alpha's result holds, _fused_alpha's input +- alpha * other rounded once, computed
    alone (the full path first makes the plain product and sum it then replaces: (784, 512)
    float32 0.57 -> 0.24 ms), for float32/float64 tensors of one dtype and a Python number
    alpha; None where the full path must run (its checks, an alpha out of the dtype's range,
    shapes that do not broadcast)."""
    cls = alpha.__class__
    if cls is not float and cls is not int:
        return None
    if not -_F32_TOP <= alpha <= _F32_TOP or (cls is int and not _INT_MIN <= alpha < _INT_END):
        return None  # (the full path's checks: NOTE [ Ints beyond a Scalar ], _alpha_in_range)
    char = input._data.dtype.char
    if char == "f" and other._data.size < _AXPY_MIN["f"]:
        # _fused_numpy's float32 sum, without its errstate (~1.3 us): a kernel warning of this
        # module is filtered (minitorch/__init__), one that raises (np.seterr, warnings made
        # errors) takes the route below, as quiet as before. (other's size: below it
        # fused_multiply_add takes no BLAS axpy)
        try:
            a = float(_F32(-alpha if negate else alpha))
            return (other._data.astype("float64") * a + input._data).astype("float32")
        except Exception:
            pass
    elif char == "d" and other._data.size < _AXPY_MIN["d"]:  # float64: the same for _fma64
        try:
            a = float(_F64(-alpha if negate else alpha))
            return _fma64(_CPU_XP, other._data, a, input._data)
        except Exception:
            pass
    if char in "fd":
        try:
            return _fused_alpha(input, other, alpha, negate)
        except Exception:  # the full path raises torch's error
            return None
    return None


_F32 = _CPU_XP.float32
_F64 = _CPU_XP.float64
_F32_TOP = _dtype.FLOAT_TOP["float32"]
_INT_MIN, _INT_END = _dtype.SCALAR_INT_MIN, _dtype.SCALAR_INT_END
_AXPY_MIN = host_blas.AXPY_MIN  # (the dict itself, as minitorch/_ops/_common.py reads it)


def _fused_alpha(input, other, alpha, negate):
    """The array of input + alpha * other (input - alpha * other where negate) rounded once, as
    torch's add kernel computes it (NOTE [ Fused multiply-adds ]), for float32 and float64
    operands of one dtype (other a tensor or a number, alpha a number, negated as a number and
    cast to the dtype as torch's); None elsewhere (integers are exact either way, the half
    dtypes have their own path). Called once the plain op has checked the shapes."""
    cls = alpha.__class__
    tensor_alpha = False
    if cls is not float and cls is not int:
        if isinstance(alpha, Tensor):  # 0-d (check_alpha): read as a number, on its device
            tensor_alpha = True
        elif cls is bool or not is_number(alpha):
            return None
        else:
            alpha = number(alpha)  # a NumPy number
    if not isinstance(input, Tensor):
        return None
    x = input._data
    dt = x.dtype
    if dt.kind != "f" or dt.itemsize < 4:
        return None
    if tensor_alpha:
        if alpha._device is not input._device or alpha._data.dtype.kind not in "fiu":
            return None  # (a bool alpha only scales bool results, which are exact)
        alpha = alpha._data.astype(dt)  # the number torch's kernel reads, in the dtype
    if isinstance(other, Tensor):
        if other._data.dtype is not dt or other._device is not input._device:
            return None
        b = other._data
    elif other.__class__ is float or other.__class__ is int:
        b = input._device.backend.xp.asarray(other, dtype=dt)  # a wrapped number, in the dtype
    else:
        return None
    xp = input._device.backend.xp
    if tensor_alpha:  # a 0-d array of dt: no host read (negated exactly, as the number)
        return fused_multiply_add(xp, b, xp.negative(alpha) if negate else alpha, x)
    return fused_multiply_add(xp, b, float(dt.type(-alpha if negate else alpha)), x)


def _keep_number(scaled):
    """x * alpha made for add/sub's alpha=: torch's AddBackward0 keeps alpha as a number, so a
    second backward runs it; the product node keeps its saved number likewise (NOTE [ Kept
    saved values ])."""
    fn = scaled._grad_fn
    if fn is not None and all(e is None or e[0] == "const" for e in fn._saved):
        fn._saved = _Kept(fn._saved)
    return scaled


# NOTE [ Half-precision arithmetic ]
# torch computes float16 and bfloat16 arithmetic in float32 ("opmath") and rounds each result once.
# A Python number operand is first rounded to the tensor's dtype by add and sub (and so is add's
# alpha), not by mul and div (nor by clamp's bounds; pow's exponent is rounded too, but by its own
# rule); a 0-d float32/float64 tensor as mul's or div's second operand is read in float32 too
# (torch's CPU-scalar path), as the first it is rounded like any operand. NumPy rounds a number to
# float16 in every op, and ml_dtypes computes bfloat16 with a Python float in float32 and returns
# float32. So: add/sub with a number make it a 0-d tensor of the tensor's dtype and compute
# same-dtype (per element: a float32 op and one rounding, in NumPy and ml_dtypes alike); mul/div
# with a number or such a scale run HalfMul/HalfDiv (float32 inside, torch's node names);
# alpha != 1 and bfloat16 clamp widen the tensors to float32 and round the result once (their
# grad_fn is therefore ToCopyBackward0; the values and gradients are torch's).
# A tensor ** a number: NOTE [ Half-precision pow ].
# a module global: read on every add/sub/mul/div; the float8 dtypes take the same branch to
# be refused there (NOTE [ Float8 dtypes ])
_HALF = frozenset(_dtype.HALF_FLOATS + _dtype.FLOAT8)


def _has_number(a, b) -> bool:
    """Whether a saved operand is a Python number (not an array)."""
    return a.__class__ in (int, float, bool) or b.__class__ in (int, float, bool)


def _half_add_sub(fn, a, b, alpha, dt, out):
    if dt.itemsize == 1:
        raise _dtype.float8_error("add_stub", dt)
    if alpha is _ONE and _number_operand(a, b):  # NOTE [ Default alpha ]
        ref = a if isinstance(a, Tensor) else b
        xp, dev = ref._device.backend.xp, ref._device
        a, b = (  # a number beyond the range is inf (its warning: filtered in minitorch/__init__)
            x
            if isinstance(x, Tensor)
            else _make(xp.asarray(_dtype.via_float32(x, dt.np), dt.np), dev, False, None)
            for x in (a, b)
        )
        return fn(a, b, out=out)
    check_alpha(alpha, fn.__name__)
    if alpha.__class__ is bool or isinstance(alpha, Tensor):
        error = out_cast_error(dt, out)  # (checked first, as torch)
        if error is not None:
            raise_in_order((a, b), error)  # (the shapes before: NOTE [ Shapes before dtypes ])
        _alpha(alpha, a, b)  # a bool (or a 0-d bool tensor) refused: the result is a half dtype
    # alpha (and a number operand) are rounded to the half dtype first, as torch's add kernel
    # (a 0-d tensor alpha too: torch reads it as a number, alpha=sigma in samplers)
    if isinstance(alpha, Tensor):
        alpha = cast(cast(alpha, dt), _dtype.float32)
    else:
        _alpha_in_range(alpha, dt.np)
    xp = (a if isinstance(a, Tensor) else b)._device.backend.xp
    a, b, alpha = (x if isinstance(x, Tensor) else _half_number(xp, x, dt) for x in (a, b, alpha))
    return _half_result(fn(_widen(a), _widen(b), alpha=alpha), dt, out)


def _half_number(xp, v, dt) -> float:
    """The Python number v as the half dtype dt holds it (inf beyond its range)."""
    return float(xp.asarray(_dtype.via_float32(v, dt.np), dt.np))


def _widen(x):
    return cast(x, _dtype.float32) if isinstance(x, Tensor) else x


def _half_result(result, dt, out):
    return _out(cast(result, dt), out)


def _number_operand(a, b) -> bool:
    return not (isinstance(a, Tensor) and isinstance(b, Tensor))


def check_alpha(alpha, op: str) -> None:
    """torch's argument parser on add/sub's alpha: a Number (a Python or NumPy number, or a 0-d
    tensor that does not require grad, which it reads as one); no complex alpha here."""
    if not is_scalar_arg(alpha):
        raise TypeError(f"{op}(): argument 'alpha' must be Number, not {type_name(alpha)}")
    if alpha.__class__ is int and not _INT_MIN <= alpha < _INT_END:
        raise _dtype.scalar_int_overflow(alpha)  # NOTE [ Ints beyond a Scalar ]
    if isinstance(alpha, complex):
        if op == "add_" or op == "sub_":  # (refused by add/sub, after self's checks, as torch)
            return
        raise RuntimeError(
            "For non-complex input tensors, argument alpha must not be a complex number."
        )


def _alpha(alpha, a, b):
    """add/sub's alpha, refused as torch does when it is a float and the result is integral
    (either operand may be an uncast bool tensor: bool + float32 with alpha=0.5 is float32)."""
    alpha = number(alpha)
    if isinstance(alpha, Tensor):  # a 0-d tensor, classed by its dtype (no host read)
        kind = "f" if is_floating(alpha._data.dtype) else alpha._data.dtype.kind
    else:
        kind = "f" if isinstance(alpha, float) else "b" if alpha.__class__ is bool else "i"
    if kind == "f":
        if not (_floating(a) or _floating(b)):  # (shapes first: NOTE [ Shapes before dtypes ])
            error = "For integral input tensors, argument alpha must not be a floating point "
            raise_in_order((a, b), RuntimeError(error + "number."))
    elif kind == "b" and not (_bool_operand(a) and _bool_operand(b)):
        raise_in_order((a, b), RuntimeError("Boolean alpha only supported for Boolean results."))
    return alpha


def _floating(x) -> bool:
    return is_floating(x._data.dtype) if isinstance(x, Tensor) else x.__class__ is float


def _alpha_error(error, input, other, alpha, out) -> RuntimeError:
    """The error torch gives for add/sub's alpha refused with `error` where the shapes broadcast:
    out='s dtype is checked first, and a complex alpha of integral operands is refused as a
    float one. An error path."""
    dt = promote(input, other, "add")[2]
    if out is not None and out_cast_error(dt, out) is not None:
        return out_cast_error(dt, out)
    if isinstance(alpha, complex) and not dt.is_floating_point:
        return RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    return error


def _rsub_error(input, other, alpha) -> TypeError:
    """torch's TypeError for rsub's arguments, as the user's call gave them (NOTE [ Overloaded
    reductions ]); an alpha of 1 counts as not given."""
    from minitorch._ops._parser_errors import parsed_error

    given = alpha.__class__ is not int or alpha != 1
    return parsed_error("rsub", [("input", input), ("other", other)] + [("alpha", alpha)] * given)


def rsub(input, other, *args, alpha=1):
    """other - alpha * input. Mirrors torch.rsub (whose overload with a Number other takes
    alpha positionally too: torch.rsub(x, 2, 5) is 2 - 5 * x)."""
    # torch's node lists input (and a tensor other): sub's edges are (other, input)
    if args:
        keyword = alpha.__class__ is not int or alpha != 1
        if len(args) == 1 and not keyword and not isinstance(other, Tensor):
            alpha = args[0]
        else:
            got = ", ".join(_type_label(a) for a in (input, other, *args))
            raise TypeError(
                f"rsub() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * "
                "(Tensor input, Number other, Number alpha = 1)\n"
            )
    if not isinstance(input, Tensor):  # torch has no overload taking a number first
        raise _rsub_error(input, other, alpha)
    given = other
    if isinstance(other, Tensor):
        name, shown = "RsubBackward0", (1, 0)
    elif other.__class__ is bool:  # sub refuses a bool operand, as torch (True - x)
        return sub(other, input, alpha=alpha)
    else:
        name, shown = "RsubBackward1", (1,)
        try:
            other = weak_scalar(other, input, "rsub")
        except _OperandTypeError:  # `"a" - x`: NOTE [ Operators with foreign operands ]
            raise _OperandTypeError(str(_rsub_error(input, other, alpha))) from None
    try:
        out = sub(other, input, alpha=alpha)
    except TypeError:  # (free when nothing is raised)
        if not is_scalar_arg(alpha):
            raise _rsub_error(input, given, alpha) from None
        raise
    return name_node(out, name, (input, other), shown=shown)


# What _fast_pair and _fast_number answer: the no-grad fast path (NOTE [ The no-grad fast path ]
# in minitorch/autograd/function.py), the recorded one (NOTE [ The recorded fast path ]), or
# (0) the full path.
_PLAIN, _RECORD = 1, 2


def _fast_pair(a, b, out) -> int:
    """The fast path the op of the tensors a and b may take (_PLAIN, _RECORD or 0): plain CPU
    tensors of one dtype, no out=, fast paths on; b is known to be a plain Tensor."""
    if (
        a.__class__ is Tensor
        and a._device is _CPU
        and b._device is _CPU
        and a._data.dtype is b._data.dtype
        and out is None
        and fast_path[0]
    ):
        if not ((a._requires_grad or b._requires_grad) and _grad_state.enabled):
            return _PLAIN
        return _RECORD
    return 0


def _plain_pair(a, b, out) -> bool:
    """Whether the op of the tensors a and b may take the no-grad fast path (NOTE [ The no-grad
    fast path ] in minitorch/autograd/function.py): b is known to be a plain Tensor."""
    return _fast_pair(a, b, out) is _PLAIN


def _fast_number(a, b, out) -> int:
    """The fast path the op of the tensor a and the Python number b may take (as _fast_pair): a
    float32 or float64 a, whose dtype a number keeps (a half one rounds the number first)."""
    if (
        (b.__class__ is float or (b.__class__ is int and -(1 << 63) <= b < 1 << 64))
        and a.__class__ is Tensor
        and a._device is _CPU
        and out is None
        and a._data.dtype.kind == "f"
        and a._data.dtype.itemsize >= 4
        and fast_path[0]
    ):
        if not (a._requires_grad and _grad_state.enabled):
            return _PLAIN
        return _RECORD
    return 0


def mul(input, other, *, out=None):
    """input * other. Mirrors torch.mul."""
    # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Mul.forward's product,
    # each input saved for the other's gradient
    path = _fast_pair(input, other, out) if other.__class__ is Tensor else _fast_number(
        input, other, out
    )
    if path:
        try:
            prod = input._data * getattr(other, "_data", other)
        except Exception:  # (free unless raised) the full path raises torch's error
            pass
        else:
            if path is _PLAIN:
                return plain_result(prod, _CPU)
            return record_pair(
                Mul, prod, input, other, getattr(other, "_requires_grad", False),
                input._requires_grad,
            )
    if not (
        isinstance(other, Tensor)
        and isinstance(input, Tensor)
        and input._data.dtype is other._data.dtype
    ):
        if other.__class__ is Tensor and _scalar_scale(input, other):
            _refuse_float8(input, "mul_cpu_reduced_float")
            return _out(HalfMul.apply(input, other), out)
        try:
            input, other, dt = promote(input, other, "mul")
        except _OperandTypeError:  # NOTE [ Operators with foreign operands ]
            if called_by_operator():
                return NotImplemented
            raise
        if dt in _HALF:
            if dt.itemsize == 1:  # float8 times a number: NOTE [ Float8 dtypes ]
                raise _dtype.float8_error("mul_cpu_reduced_float", dt)
            if _number_operand(input, other):  # NOTE [ Half-precision arithmetic ]
                return _out(HalfMul.apply(*_first_number_rounded(input, other, dt)), out)
    try:
        result = Mul.apply(input, other)
    except OverflowError:  # x * 0x9E3779B97F4A7C15: NOTE [ Unsigned 64-bit numbers ]
        result = Mul.apply(*wrapped_big_ints(input, other))
    return result if out is None else _out(result, out)


def _first_number_rounded(input, other, dt):
    """(input, other) of mul/div's half-dtype path, a number input (torch.mul(2.3, x_half))
    rounded to the half dtype dt first: torch wraps it into a tensor cast to dt like any
    operand, where a number other is read in float32 (its CPU-scalar path; 1e5 * x is
    x.mul(1e5)). NOTE [ Half-precision arithmetic ]"""
    if isinstance(input, Tensor):
        return input, other
    return _half_number(other._device.backend.xp, input, dt), other


def _refuse_float8(x, kernel: str) -> None:
    """torch's error where a float8 tensor x takes a half dtype's path (NOTE [ Float8 dtypes ])."""
    if x._data.itemsize == 1:
        raise _dtype.float8_error(kernel, x.dtype)


def _scalar_scale(input, other) -> bool:
    """Whether other is a 0-d float32/float64 or integer tensor scaling a half tensor input:
    torch's CPU-scalar path reads its value in float32 (a second operand only: as the first it is
    rounded to the half dtype like any operand; x / tensor(70000) is not x / inf in float16).
    NOTE [ Half-precision arithmetic ]"""
    return (
        isinstance(other, Tensor)
        and isinstance(input, Tensor)
        and other._data.ndim == 0
        and input._data.ndim > 0
        and (
            other._data.dtype.kind in "iu"
            or (other._data.dtype.itemsize >= 4 and other._data.dtype.kind == "f")
        )
        and opmath_dtype(input._data.dtype) is not None
    )


def div(input, other, *, rounding_mode=None, out=None):
    """input / other (true division; 'trunc' or 'floor' rounding). Mirrors torch.div."""
    # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Div.forward's quotient
    # (of floats: integers divide into the default float dtype), input saved for other's
    # gradient and other for both
    path = _fast_pair(input, other, out) if other.__class__ is Tensor else _fast_number(
        input, other, out
    )
    if path and rounding_mode is None and input._data.dtype.kind == "f":
        try:
            quot = input._data / getattr(other, "_data", other)
        except Exception:  # (free unless raised) the full path raises torch's error
            pass
        else:
            if path is _PLAIN:
                return plain_result(quot, _CPU)
            return record_pair(
                Div, quot, input, other, getattr(other, "_requires_grad", False), True
            )
    if rounding_mode is None:
        if not (
            isinstance(other, Tensor)
            and isinstance(input, Tensor)
            and input._data.dtype is other._data.dtype
            and (input._data.dtype.kind == "f" or is_floating(input._data.dtype))
        ):
            if other.__class__ is Tensor and _scalar_scale(input, other):
                _refuse_float8(input, "div_cpu_reduced_float")
                return _out(HalfDiv.apply(input, other), out)
            try:
                input, other, dt = promote_float(input, other, "div")
            except _OperandTypeError:  # NOTE [ Operators with foreign operands ]
                if called_by_operator():
                    return NotImplemented
                raise
            if dt in _HALF:
                if dt.itemsize == 1:  # NOTE [ Float8 dtypes ]
                    scalar = _number_operand(input, other) or other._data.ndim == 0
                    raise _dtype.float8_error("div_cpu_reduced_float" if scalar else "div_cpu", dt)
                if _number_operand(input, other):  # NOTE [ Half-precision arithmetic ]
                    return _out(HalfDiv.apply(*_first_number_rounded(input, other, dt)), out)
        result = Div.apply(input, other)
        return result if out is None else _out(result, out)
    if rounding_mode == "floor" or rounding_mode == "trunc":
        if other.__class__ is Tensor and _scalar_scale(input, other):
            a, b, dt = input, other, input.dtype  # read in float32: _rounded_quotient
        else:
            a, b, dt = promote(input, other, "div")
        if dt.is_floating_point:
            return _out(DivRounded.apply(a, b, mode=rounding_mode, dtype=dt.np), out)
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(div, (input, other), {"rounding_mode": rounding_mode, "out": out})
        return _out(_integer_div(a, b, rounding_mode, dt, out), out)
    if not isinstance(rounding_mode, str):  # NOTE [ Overloaded reductions ]: its overloads
        from minitorch._ops._parser_errors import parsed_error

        named = (("input", input), ("other", other), ("rounding_mode", rounding_mode))
        raise parsed_error("div", (*named, ("out", out)))
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
        f"'{rounding_mode}'"
    )


def _integer_div(a, b, mode, dt, out=None):
    if dt is _dtype.bool:  # (after the shapes: NOTE [ Shapes before dtypes ])
        kernel = NotImplementedError(f"\"div_{mode}_cpu\" not implemented for 'Bool'")
        raise_in_order((a, b), kernel)
    xp = (a if isinstance(a, Tensor) else b)._device.backend.xp
    x, y = _d(a), _d(b)
    if zero_divisor(y, (a if isinstance(a, Tensor) else b)._device, x):
        raise zero_division(dt, out)
    try:
        q = xp.floor_divide(x, y)
    except ValueError as e:
        _raise_broadcast_error(_integer_div, (a, b), e)
    except OverflowError:  # NOTE [ Unsigned 64-bit numbers ]
        x, y = wrapped_big_ints(x, y)
        q = xp.floor_divide(x, y)
    if mode == "trunc":
        # floor and trunc differ where the exact quotient is negative and inexact
        q = q + ((xp.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    dev = (a if isinstance(a, Tensor) else b)._device
    return _make(xp.asarray(q, dtype=dt.np), dev, False, None)


def out_cast_error(dt, out) -> RuntimeError | None:
    """torch's error for an out= that a result of dtype dt cannot be cast into, or None; for the
    error paths torch checks it before (an integer division by zero, add's alpha)."""
    if isinstance(out, Tensor) and not _dtype.can_cast(dt, out.dtype):
        return RuntimeError(
            f"result type {_dtype.scalar_name(dt)} can't be cast to the desired output type "
            f"{_dtype.scalar_name(out.dtype)}"
        )
    return None


# NOTE [ Shapes before dtypes ]
# torch's binary pointwise ops build their TensorIterator before they look at the dtype: the
# operands' shapes are broadcast first ("The size of tensor a (2) must match the size of tensor b
# (3) at non-singleton dimension 0"), then the result type is checked against out= ("result type
# Float can't be cast to the desired output type Long"), and only then does the kernel refuse a
# dtype (its NotImplementedError) or add's alpha. minitorch looks at the dtype first, where that
# costs the success path nothing; a refusal goes through raise_in_order, which looks at the
# shapes and out= only once something is refused.


def raise_in_order(operands, error, dt=None, out=None):
    """Raise `error`, a pointwise op's refusal of its dtypes or arguments, in torch's order (NOTE
    [ Shapes before dtypes ]): the size error where the tensors among `operands` do not
    broadcast, else out='s cast error for a result of dtype dt, else `error`. An error path."""
    if out is not None and dt is not None:
        error = out_cast_error(dt, out) or error
    _raise_broadcast_error(None, operands, error)


def callers_out():
    """The out= of the op that called the helper calling this: the op's local `out`, read from
    its frame. For a helper that refuses dtypes without being passed out= (gcd's _integral), so
    that the op's success path passes it nothing more. An error path."""
    return sys._getframe(2).f_locals.get("out")


def zero_division(dt, out) -> RuntimeError:
    """torch's error for an integer division (of result type dt) by zero: its ZeroDivisionError,
    or before it, as torch checks out= before its kernel runs, out='s "can't be cast" error."""
    return out_cast_error(dt, out) or RuntimeError("ZeroDivisionError")


def zero_divisor(y, device, x=None) -> bool:
    """Whether an integer divisor (a number, or an array) holds a zero, where torch's CPU
    kernels raise ZeroDivisionError; on a GPU looking would read the divisor back to the host,
    so there it is not checked (torch's CUDA kernels do not raise either). x is the dividend:
    torch checks the shapes first and divides nothing for an empty result, so only a non-empty
    result of shapes that broadcast raises (the kernel then gives torch's size-mismatch error)."""
    if isinstance(y, int):  # bool is an int
        if y != 0:
            return False
    elif not (device.type == "cpu" and y.size > 0 and not y.all()):
        return False
    return _has_elements(getattr(x, "shape", ()), getattr(y, "shape", ()))


def _has_elements(sx, sy) -> bool:
    """Whether shapes sx and sy broadcast to a non-empty shape (False where they do not
    broadcast). Only on the rare path of a zero divisor."""
    n = max(len(sx), len(sy))
    sx, sy = (1,) * (n - len(sx)) + tuple(sx), (1,) * (n - len(sy)) + tuple(sy)
    size = 1
    for p, q in zip(sx, sy, strict=True):
        if p != q and p != 1 and q != 1:
            return False
        size *= q if p == 1 else p
    return size != 0


def floor_divide(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """floor(input / other). Mirrors torch.floor_divide (no derivative: the result requires grad
    when an input does, and its backward raises, as torch's)."""
    if extra:  # (a left-out operand is REQUIRED: promote's overload error names the call)
        raise _errors.binary_overload_error("floor_divide", input, other, extra)
    if other.__class__ is Tensor and _scalar_scale(input, other):
        a, b, dt = input, other, input.dtype  # read in float32: _rounded_quotient
    else:
        a, b, dt = promote(input, other, "floor_divide")
    if not dt.is_floating_point:
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(floor_divide, (input, other), {"out": out})
        return _out(_integer_div(a, b, "floor", dt, out), out)
    dev = (a if isinstance(a, Tensor) else b)._device
    try:
        q = _rounded_quotient(dev.backend.xp, _d(a), _d(b), "floor", dt.np)
    except ValueError as e:
        _raise_broadcast_error(floor_divide, (a, b), e)
    result = _make(q, dev, False, None)
    if (isinstance(a, Tensor) and a._requires_grad) or (isinstance(b, Tensor) and b._requires_grad):
        from minitorch._ops.sorting import no_derivative  # (sorting imports this module)

        result = no_derivative(result, (a, b), "floor_divide")
    return _out(result, out)


def _rounded_quotient(xp, x, y, mode, dt):
    """floor(x / y) or trunc(x / y) of arrays (or a number) of the float dtype dt. floor is
    NumPy's floor_divide, which is torch's (exact, like Python's //, not floor of the rounded
    x / y); trunc rounds the quotient x / y, as torch's kernel. Half dtypes: NOTE [ Half-precision
    rounded division ]."""
    if dt.itemsize == 2:
        if getattr(y, "ndim", 0):
            return _half_rounded_quotient(xp, x, y, mode, dt)
        # a number or 0-d divisor (torch's CPU scalar): float32 throughout, rounded once
        x, y = (v.astype("float32") if hasattr(v, "dtype") else v for v in (x, y))
    q = float_mod(xp, x, y, "floor_divide") if mode == "floor" else xp.trunc(x / y)
    return xp.asarray(q, dtype=dt)


# NOTE [ Half-precision rounded division ]
# torch's float16/bfloat16 div(rounding_mode=...) (and floor_divide, //) with a tensor divisor runs
# its float kernel in the half type itself: every step is a float32 op rounded to the half dtype.
# trunc: the quotient x / y is rounded to the half dtype first, then truncated (so 29.81 / 0.3467
# = 85.99 rounds to 86 in float16, 85.99 truncates to 85 in float32). floor: the fmod-based
# algorithm of Python's // (as NumPy's floor_divide), with x - fmod(x, y), its quotient by y and
# the -1 correction each rounded. A number dividend is rounded to the half dtype first; a number
# divisor is not: torch then computes in float32 and rounds once (_rounded_quotient's other path).
def _half_rounded_quotient(xp, x, y, mode, dt):
    def r(v):  # a float32 result, rounded to the half dtype (kept in float32)
        return v.astype(dt).astype("float32")

    if hasattr(x, "dtype"):
        x = x.astype("float32")
    else:
        x = xp.asarray(_dtype.via_float32(x, dt), dt).astype("float32")
    y = y.astype("float32")
    if mode == "trunc":
        return xp.trunc((x / y).astype(dt))
    mod = float_mod(xp, x, y, "fmod")
    q = r(r(x - mod) / y)
    q = r(q - ((mod != 0) & ((y < 0) != (mod < 0))))  # the correction: q - 1, rounded
    down = xp.floor(q)
    down += q - down > 0.5
    exact = x / y
    down = xp.where(q == 0, xp.copysign(xp.zeros((), "float32"), exact), down)
    return xp.where(y == 0, exact, down).astype(dt)


class DivRounded(Function):
    """out = floor(a / b) or trunc(a / b) (div's rounding_mode);  grad_a = 0,  grad_b = 0 (a step
    function: torch's DivBackward2 returns zeros, so even a NaN upstream gradient gives 0)"""

    _node_name = "DivBackward2"
    # grad_fn._saved_<name> as torch's, whose formulas read them (though each gives zeros):
    # other for either gradient, self for other's; _saved_rounding_mode
    _saved_names = ("self", "other")
    _saved_attrs = {"rounding_mode": "mode"}

    @staticmethod
    def forward(ctx, a, b, *, mode, dtype):
        needs = ctx.needs_input_grad
        ctx.save_for_backward(a if needs[1] else None, b)
        ctx.mode = mode
        return _rounded_quotient(ctx.xp, _d(a), _d(b), mode, dtype)

    @staticmethod
    def backward(ctx, grad):
        zero = zeros_of(grad)
        return tuple(zero if needed else None for needed in ctx.needs_input_grad)


def _remainder(xp, x, y):
    """x mod y with the divisor's sign, as torch: a zero result keeps the dividend's sign
    (-4. % 2 is -0.), where NumPy's remainder gives it the divisor's."""
    if x.dtype.kind not in "iub":  # (bfloat16's kind is "V")
        return float_mod(xp, x, y, "remainder")
    return xp.asarray(xp.remainder(x, y))  # (0-d operands give a NumPy scalar)


# NOTE [ Float32 modulus through float64 ]
# NumPy's float fmod, remainder and floor_divide call libm per element: 50-100 ms for 1M float32
# where torch takes 1-2 ms. For float32 (and the half dtypes, which NumPy computes in float32 and
# rounds once, as here; not bfloat16, whose NaNs' signs would change) the quotient is taken in
# float64 instead, with the same bits as a result:
# - where |x / y| < 2**24, trunc or floor of the float64 quotient is that of the exact x / y: for
#   an integer n other than x / y, x - n y is a nonzero multiple of the smaller last-bit value of
#   x and y, which keeps x / y at least 2**-49 (relative) away from n, beyond float64's rounding;
# - n y is exact (24 + 24 bits), so fmod's x - n y (a float32) is exact; remainder's x - n y
#   (fmod + y where the signs differ) rounds to float32 as NumPy's and torch's float32 fmod + y
#   (inexact in float64 only for |x| < 2**-28 |y|, too close to y to reach a float32 tie);
# - floor_divide's quotient (below 2**21) is the integer NumPy's fmod-based algorithm lands on.
# The rest (y = 0 or inf, inf or NaN operands, larger quotients) takes NumPy's kernel, masked.
# Checked bit for bit against NumPy on 10**7 random and near-integer-quotient pairs. float64 has
# no wider type and keeps libm; CuPy's kernels are fast already.
_EXACT_QUOTIENT = {"fmod": 2.0**24, "remainder": 2.0**24, "floor_divide": 2.0**21}


def float_mod(xp, x, y, op: str):
    """op(x, y) for float arrays (or a Python number) of one dtype: "fmod" (the sign of x),
    "remainder" (the sign of y; a zero keeps x's sign, as torch's) or "floor_divide"."""
    dt = (x if hasattr(x, "dtype") else y).dtype
    big = max(getattr(x, "size", 1), getattr(y, "size", 1)) >= 4096  # repays a dozen passes
    if not (big and dt.kind == "f" and dt.itemsize <= 4 and getattr(xp, "__name__", "") == "numpy"):
        r = xp.asarray(getattr(xp, op)(x, y))  # (0-d gives a NumPy scalar)
        if op == "remainder":
            xp.copyto(r, xp.copysign(xp.zeros((), dt), x), where=r == 0)  # x's sign
        return r
    x, y = (xp.asarray(v, dtype=dt).astype("float32", copy=False) for v in (x, y))
    x64, y64 = x.astype("float64"), y.astype("float64")
    n = x64 / y64
    (xp.trunc if op == "fmod" else xp.floor)(n, out=n)
    limit = _EXACT_QUOTIENT[op]
    exact = n < limit  # False for NaN
    exact &= n > -limit
    exact &= xp.isfinite(y)
    if op != "floor_divide":
        n *= y64
        n -= x64  # n y - x: exact, or for remainder rounded once; a zero is +0
        if op == "fmod":
            xp.copysign(n, x64, out=n)
        else:  # -(n y - x), with a zero signed as x: +0 - +0 is +0, -0 - +0 is -0
            xp.copysign(0.0, x64, out=x64)
            n = xp.subtract(x64, n, out=n)
    out = n.astype("float32")
    if not exact.all():
        inexact = ~exact
        getattr(xp, op)(x, y, out=out, where=inexact)
        if op == "remainder":
            xp.copysign(out, x, out=out, where=inexact & (out == 0))
    return out.astype(dt, copy=False)


class RemainderScalar(Function):
    """out = a mod s (s a number; the sign of s, exact like Python's %);  grad_a = grad"""

    _node_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx, a, *, other):
        x = a._data
        # the number in a's dtype, as torch rounds it (float16/bfloat16 then compute in float32)
        return _remainder(ctx.xp, x, ctx.xp.asarray(other, dtype=x.dtype))

    @staticmethod
    def backward(ctx, grad):
        return grad


class Remainder(Function):
    """out = a - floor(a / b) b (the sign of b; computed exactly, like Python's %);
    grad_a = grad,  grad_b = -grad floor(a / b)"""

    _node_name = "RemainderBackward1"
    _saved_names = ("self", "other")  # None both where other needs no gradient (as torch's)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*((a, b) if ctx.needs_input_grad[1] else (None, None)))
        return _remainder(ctx.xp, a._data, b._data)

    @staticmethod
    def backward(ctx, grad):
        if not ctx.needs_input_grad[1]:  # (nothing was saved)
            return grad, None
        a, b = ctx._stored_tensors
        return grad, -grad * div(a, b, rounding_mode="floor")  # zero gradients, as torch's


def remainder(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Python-style modulus (sign of the divisor). Mirrors torch.remainder."""
    if extra:  # (a left-out operand is REQUIRED: promote's overload error names the call)
        raise _errors.binary_overload_error("remainder", input, other, extra)
    if out is not None and not isinstance(input, Tensor):  # (its Number-self form has no out)
        from minitorch._ops._parser_errors import BINARY_FORMS, overload_error

        named = [("input", input), ("other", other), ("out", out)]
        raise overload_error("remainder", *BINARY_FORMS["remainder"], named)
    a, b, dt = promote(input, other, "remainder")
    if dt.is_floating_point:
        if not isinstance(b, Tensor):
            return _out(RemainderScalar.apply(a, other=b), out)
        if not isinstance(a, Tensor):
            # a number mod a tensor (7.5 % t): torch has no derivative for it (backward raises)
            from minitorch._ops.sorting import no_derivative

            a, xp = weak_scalar(a, b, "remainder"), b._device.backend.xp
            r = _make(xp.asarray(_remainder(xp, a._data, b._data)), b._device, False, None)
            return _out(no_derivative(r, (b,), "remainder"), out)
        return _out(Remainder.apply(a, b), out)
    if dt is _dtype.bool:  # (after the shapes: NOTE [ Shapes before dtypes ])
        kernel = NotImplementedError("\"remainder_cpu\" not implemented for 'Bool'")
        raise_in_order((a, b), kernel)
    if (  # a plain tensor and a number pay two class tests
        input.__class__ is not Tensor
        or (other.__class__ is not Tensor and isinstance(other, Tensor))
    ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
        return run_converted(remainder, (input, other), {"out": out})
    dev = (a if isinstance(a, Tensor) else b)._device
    xp = dev.backend.xp
    if zero_divisor(_d(b), dev, _d(a)):
        raise zero_division(dt, out)
    try:
        r = xp.remainder(_d(a), _d(b))
    except ValueError as e:
        _raise_broadcast_error(remainder, (a, b), e)
    except OverflowError:  # NOTE [ Unsigned 64-bit numbers ]
        r = xp.remainder(*(_d(v) for v in wrapped_big_ints(a, b)))
    return _out(_make(xp.asarray(r, dtype=dt.np), dev, False, None), out)


def neg(input=REQUIRED, *extra, out=None):
    """-input. Mirrors torch.neg."""
    if (  # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Neg.forward's
        input.__class__ is Tensor  # negation, nothing saved
        and input._device is _CPU
        and out is None
        and not extra
        and input._data.dtype.kind in "fiu"
        and fast_path[0]
    ):
        if not (input._requires_grad and _grad_state.enabled):
            return plain_result(-input._data, _CPU)
        return record_unary(Neg, -input._data, input, None)
    try:
        kind = input._data.dtype.kind
    except AttributeError:  # torch.neg(1)
        raise not_tensor("neg", input) from None
    if extra:  # (input REQUIRED, extra: as abs)
        raise too_many_positional("neg", 1 + len(extra), 1)
    if kind == "b":
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead."
        )
    result = Neg.apply(input)
    return result if out is None else _out_exact(result, out)


class PowScalar(Function):
    """out = a ** e (e a number);  grad_a = grad * e * a ** (e - 1)"""

    _saved_names = ("self",)
    _saved_attrs = {"exponent": "exponent"}

    _node_name = "PowBackward0"

    @staticmethod
    def forward(ctx, a, *, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return _pow_number(ctx.xp, a._data, exponent)

    @staticmethod
    def backward(ctx, grad):
        # torch's order, grad * (e * a ** (e - 1)): each product rounds (a half dtype rounds every
        # step, NOTE [ Half-precision pow ]); and e == 0 gives zeros even where grad is inf or nan
        (a,) = ctx._stored_tensors
        e = ctx.exponent
        if e == 0:
            return zeros_of(grad)
        return grad * (e * pow(a, e - 1))

    @staticmethod
    def _backward_data(ctx, grad):
        if grad.itemsize == 2:  # number operands: NOTE [ Half-precision arithmetic ]
            return NotImplemented
        (a,) = ctx._stored_arrays()
        e = ctx.exponent
        if e == 0:
            return ctx.xp.zeros_like(grad)
        p = _pow_number(ctx.xp, a, e - 1)
        if (
            (e.__class__ is float or e.__class__ is int)
            and p.__class__ is grad.__class__
            and p.dtype == grad.dtype
            and p.strides == grad.strides
            and p.flags.owndata
            and p is not a
        ):
            # the same products in p's buffer, a fresh one, laid out as grad: one temporary
            # fewer ((2048, 512) float32 x ** 3, forward and backward: 3.1 -> 2.8 ms)
            ctx.xp.multiply(e, p, out=p)
            return ctx.xp.multiply(grad, p, out=p)
        return grad * (e * p)


def _pow_number(xp, x, e):
    """x ** e for a number e, as torch's kernel: it computes a float x ** -0.5 as 1 / sqrt(x)
    (rsqrt), x ** 3 as x * x * x and x ** -2 as 1 / (x * x), which C's pow rounds differently
    (an ulp in a third of the values) and answers differently at -0 and -inf (x ** -0.5 there
    is -inf and nan, so the gradient of x ** 0.5 is too). NumPy's ** already computes 0.5, 2
    and -1 as sqrt, square and reciprocal, as torch does. float16 and bfloat16 have kernels of
    their own (NOTE [ Half-precision pow ]). One dict lookup on the common path."""
    if x.itemsize == 2 and x.dtype.kind != "i":  # (int16 is the other 2-byte dtype)
        return _pow_half(xp, x, e)
    special = _POW_AS_TORCH.get(e)
    if special is None:
        if x.dtype.char == "f" and x.size < 32 and e not in _POW_EXACT_IN_FLOAT32:
            # NOTE [ float32 pow ]
            return xp.power(x, e, dtype="float64").astype("float32")
        return x**e
    if x.dtype.kind != "f":
        return x**e
    return special(xp, x)


def _rsqrt(xp, y):
    if not y.ndim:
        return 1 / xp.sqrt(y)
    out = xp.sqrt(y)
    return xp.divide(1, out, out=out)  # one buffer, not two: the same bits


def _cube(xp, y):
    if not y.ndim:
        return y * y * y
    out = y * y
    out *= y  # (y * y) * y in one buffer ((2048, 512) float32: 0.6 -> 0.45 ms)
    return out


def _inverse_square(xp, y):
    if not y.ndim:
        return 1 / (y * y)
    out = y * y
    return xp.divide(1, out, out=out)


_POW_AS_TORCH = {-0.5: _rsqrt, 3: _cube, -2: _inverse_square}

# NOTE [ float32 pow ]
# torch's kernel for a float32 tensor ** a number computes C's pow(float, double): in double,
# rounded once to float32 (1.0000040531158447 ** 0.75 is 1.0000029802, the correctly rounded
# value). NumPy's float32 power is powf, which misses by an ulp in about a fifth of the values,
# so other exponents go through float64 here for short tensors (optimizer scalars, 0-d steps);
# so do short float32 results of a tensor exponent (number ** tensor, tensor ** tensor: a
# differentiable step's beta ** step_t), which torch computes the same way.
# NumPy's ** already computes the exponents below exactly (square, sqrt, reciprocal; 1 and 0 are
# exact anyway): they stay in float32. torch's vectorized loop over 32 and more elements has its
# own float32 pow, an ulp or so off in a few percent of the elements, like NumPy's; there the
# double route would cost 2.6x for no closer match, so long tensors keep NumPy's powf.
_POW_EXACT_IN_FLOAT32 = frozenset((2, 0.5, -1, 1, 0))


# NOTE [ Half-precision pow ]
# torch's CPU kernels for a half tensor ** a number first convert the number to the tensor's dtype
# (as c10 does: through float32, and a finite number beyond the dtype's range raises its overflow
# error; 1.7 is 1.703125 in bfloat16). float16 then computes C's pow in float32 for every
# exponent, 0.5 and -0.5 included (pow(-0, 0.5) is +0 and pow(-inf, 0.5) inf, where sqrt gives -0
# and nan). bfloat16 takes sqrt for 0.5, 1 / sqrt in float32 for -0.5 (both chosen by the number
# as given), and for the converted exponents 3 and -2 multiplies in bfloat16 step by step,
# rounding each product ((x * x) * x and 1 / (x * x)); every other exponent is C's pow in float32.
# Each float32 result is rounded once. The backward, grad * (e * x ** (e - 1)), reaches these
# kernels again through pow, in the half dtype (the exponent e - 1 of the number as given), so its
# gradient rounds every step as torch's does.


def _pow_half(xp, x, e):
    """x ** e for a float16 or bfloat16 array x: NOTE [ Half-precision pow ]."""
    r = x.dtype.type(_dtype.fill_number(e, x.dtype))  # e as the dtype holds it
    if x.dtype.kind == "f":  # float16: NumPy's float16 loop is C's powf, rounded once (its float32
        return xp.power(x, r)  # loop and `**` take sqrt for 0.5)
    r = float(r)
    if r == 3:
        return x * x * x
    if r == -2:
        return 1 / (x * x)
    y = x.astype("float32")
    if e == 0.5:
        y = xp.sqrt(y)
    elif e == -0.5:
        y = 1 / xp.sqrt(y)
    else:
        y = xp.power(y, r)
    return y.astype(x.dtype)


class Pow(Function):
    """out = a ** b;  grad_a = grad * (b * a ** (b - 1)),  grad_b = grad * (out * log(a))"""

    _node_name = "PowBackward1"
    _saved_names = ("self", "exponent", "result")

    @staticmethod
    def forward(ctx, a, b):
        x, y = a._data, b._data
        try:
            out = x**y
        except ValueError:  # NumPy refuses integers to negative integer powers; torch does not
            out = _int_pow(ctx.xp, x, y)
        if out.dtype.char == "f" and out.size < 32:  # NOTE [ float32 pow ] (0.9 ** step_t)
            out = ctx.xp.power(x, y, dtype="float64").astype("float32")
        broadcast = y.size == 1 or y.shape != out.shape or 0 in y.strides
        if broadcast and y.dtype.kind == "f" and y.itemsize >= 4:
            # NumPy's power loop takes sqrt for an exponent 0.5 it broadcasts (stride 0), which
            # answers -0 and nan at -0 and -inf, where torch's C pow gives +0 and +inf
            xp = ctx.xp
            fix = (y == 0.5) & ((x == 0) | (x == -xp.inf))
            out = xp.where(fix, xp.abs(x).astype(out.dtype, copy=False), out)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx._stored_tensors
        ga = gb = None
        if ctx.needs_input_grad[0]:
            # torch's order, grad * (b * a ** (b - 1)): its bits, and a -0. grad meets an
            # overflowing b * a ** (b - 1) as NaN
            ga = where(b == 0, 0.0, grad * (b * pow(a, b - 1)))
        if ctx.needs_input_grad[1]:
            # d/db a**b = a**b log a, taken as 0 where a == 0 and b >= 0 (as torch does); grad
            # multiplies the where, as in torch, so a nan or inf grad stays nan there, and the
            # second derivative there is 0 * log(0), nan
            gb = grad * where((a == 0) & (b >= 0), 0.0, out * log(a))
        return ga, gb


class PowNumberBase(Pow):
    """out = number ** b, Pow with a Python number base made a 0-d tensor: torch's PowBackward2,
    whose grad_fn._saved_self is the number itself (an int stays an int: 2 ** x saves 2), with no
    _raw_saved_self, and whose next_functions list the exponent's edge alone."""

    _node_name = "PowBackward2"
    _edges = (1,)
    _saved_names = ("base", "exponent", "result")  # (the base's tensor: not shown)
    _saved_attrs = {"self": lambda node: node.number_base}
    _saved_shown = {"PowBackward2": ("self", "exponent", "result")}

    @staticmethod
    def backward(ctx, grad):
        # torch's PowBackward2 takes the log of the number itself, in double precision, not of
        # the number rounded to the exponent's dtype: float16 65535 ** x (a base rounded to inf)
        # has the gradient out * 11.09 (0 where out is 0), not out * inf (nan)
        if not ctx.needs_input_grad[1]:
            return None, None
        _, b, out = ctx._stored_tensors
        number = float(ctx.number_base)
        log_base = math.log(number) if number > 0 else -math.inf if number == 0 else math.nan
        if number == 0:  # 0 ** b: a zero gradient where b >= 0 (torch's where)
            return None, grad * where(b >= 0, 0.0, out * log_base)
        return None, grad * (out * log_base)


def _saved_number(b):
    """A number base as torch's PowBackward2 saves it: its Scalar read back into Python (NumPy's
    integers as int, its other real numbers as float, np.True_ as 1.0)."""
    cls = b.__class__
    if cls is int or cls is float or cls is bool or cls is complex:
        return b
    if isinstance(b, numbers.Integral):
        return int(b)
    if isinstance(b, numbers.Complex) and not isinstance(b, numbers.Real):
        return complex(b)
    return float(b)


def _int_pow(xp, a, b):
    """a ** b for integers with some b < 0, as torch computes it: 1 ** b = 1, (-1) ** b = +-1 by
    b's parity, and 0 for every other base (the truncated 1 / a ** |b|)."""
    a, b = xp.broadcast_arrays(a, b)
    negative = b < 0
    out = a ** xp.where(negative, 0, b)
    small = xp.where(a == -1, 1 - 2 * (b & 1), (a == 1).astype(out.dtype))
    return xp.where(negative, small, out).astype(out.dtype)


def _pow_arguments(input, exponent, got=None) -> TypeError:
    """torch's TypeError for an array where pow takes a Tensor or a Number: its parser matches
    neither (unlike `tensor ** array`, which NumPy computes). `got`: the arguments as the
    message lists them, where not the two positional ones."""
    if got is None:
        from minitorch._ops._parser_errors import BINARY_FORMS, overload_error

        named = (("input", input), ("exponent", exponent))
        return overload_error("pow", *BINARY_FORMS["pow"], named)
    return TypeError(
        f"pow() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
        " * (Number self, Tensor exponent, *, Tensor out = None)\n"
        " * (Tensor input, Number exponent, *, Tensor out = None)\n"
    )


def _pow_self(input, exponent, self):
    """The number base of pow(self=2, exponent=t), torch's keyword for it: only a Number, with
    a Tensor exponent and no `input` beside it, as torch's parser matches."""
    number = self.__class__ in (int, float, bool) or isinstance(self, numbers.Number)
    if input is _NOT_GIVEN and number and isinstance(exponent, Tensor):
        return self
    named = {"input": input, "exponent": exponent, "self": self}
    got = "".join(
        f"{k}={'Tensor' if isinstance(v, Tensor) else type(v).__name__}, "
        for k, v in named.items()
        if v is not _NOT_GIVEN
    )
    raise _pow_arguments(input, exponent, got)


_NOT_GIVEN = object()  # (None is a value: `None ** t` reaches pow as its input)


def pow(input=_NOT_GIVEN, exponent=_NOT_GIVEN, *, out=None, self=_NOT_GIVEN):
    """input ** exponent (either may be a number; a number base may be passed as `self=`).
    Mirrors torch.pow."""
    if (  # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: PowScalar.forward's
        (  # power, its input saved and its exponent kept as given
            exponent.__class__ is float
            or (exponent.__class__ is int and -(1 << 63) <= exponent < 1 << 64)
        )
        and input.__class__ is Tensor
        and input._device is _CPU
        and out is None
        and self is _NOT_GIVEN
        and input._data.dtype.char in "fd"
        and fast_path[0]
    ):
        if not (input._requires_grad and _grad_state.enabled):
            return plain_result(_pow_number(_CPU_XP, input._data, exponent), _CPU)
        power = _pow_number(_CPU_XP, input._data, exponent)
        result = record_unary(PowScalar, power, input, "self")
        result._grad_fn.exponent = exponent
        return result
    if input is _NOT_GIVEN or self is not _NOT_GIVEN or exponent is _NOT_GIVEN:  # (rare)
        input = _pow_self(input, exponent, self)
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        if exponent.__class__ is input._device.backend.array_cls:
            raise _pow_arguments(input, exponent)  # (`tensor ** array` is Tensor.__pow__'s)
        a, e, dt = promote(input, exponent, "pow")
        if not dt.is_floating_point and exponent.__class__ is not bool and exponent < 0:
            # (the exponent as given: promote wraps -2 into a uint8's 254)
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if out is not None and out_cast_error(dt, out) is not None:  # (before the exponent's
            raise out_cast_error(dt, out)  # conversion into the dtype, as torch)
        if exponent.__class__ is int and dt.np.kind in "iu":
            _dtype.checked_int(exponent, dt.np)  # torch refuses an exponent its dtype cannot hold
        if dt is _dtype.bool:  # bool ** bool stays bool (NumPy's power gives int8)
            return _out(cast(PowScalar.apply(a, exponent=e), dt), out)
        return _out(PowScalar.apply(a, exponent=e), out)
    number_base = not isinstance(input, Tensor)
    if number_base:
        if not isinstance(exponent, Tensor):  # pow(2, 3): no overload takes two numbers
            raise _pow_arguments(input, exponent)
        if input.__class__ is exponent._device.backend.array_cls:
            raise _pow_arguments(input, exponent)
        base = input
        input = weak_scalar(input, exponent, "pow")
    a, b, dt = promote(input, exponent, "pow")
    if dt is _dtype.bool:  # (after the shapes: NOTE [ Shapes before dtypes ])
        kernel = NotImplementedError("\"pow\" not implemented for 'Bool'")
        raise_in_order((a, b), kernel)
    if number_base:  # torch's node for number ** tensor
        result = PowNumberBase.apply(a, b)
        if result._grad_fn is not None:
            result._grad_fn.number_base = _saved_number(base)
        return _out(result, out)
    return _out(Pow.apply(a, b), out)


# --- unary math ---


class Exp(Function):
    """out = exp(a);  grad_a = grad * out"""

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = ctx.xp.exp(a._data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad * out

    @staticmethod
    def _backward_data(ctx, grad):
        (out,) = ctx._stored_arrays()
        return grad * out


class Log(Function):
    """out = log(a);  grad_a = grad / a"""

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return ctx.xp.log(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / a

    @staticmethod
    def _backward_data(ctx, grad):
        (a,) = ctx._stored_arrays()
        return grad / a


class Sqrt(Function):
    """out = sqrt(a);  grad_a = grad / (2 * out)"""

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = ctx.xp.sqrt(a._data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad / (2 * out)

    @staticmethod
    def _backward_data(ctx, grad):
        (out,) = ctx._stored_arrays()
        return grad / (2 * out)


class Abs(Function):
    """out = |a|;  grad_a = grad * sign(a)"""

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return ctx.xp.abs(a._data)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * sign(a)

    @staticmethod
    def _backward_data(ctx, grad):
        (a,) = ctx._stored_arrays()
        # torch's sign(nan) is 0, so a NaN input gets a zero gradient: the masked-loss idiom
        # where(mask, (p - t).abs(), 0) with NaN (missing) targets keeps finite gradients
        return grad * _sign_kernel(ctx.xp, a)


def _sign_kernel(xp, x):
    if x.dtype.char in "fd" and x.ndim:
        # (x > 0) - (x < 0): two vectorised comparisons, where NumPy's float sign is a scalar
        # loop (3x slower); NaN and -0. give +0., as torch's
        i8 = xp.int8
        return xp.subtract((x > 0).view(i8), (x < 0).view(i8)).astype(x.dtype)
    out = xp.asarray(xp.sign(x))  # (a 0-d input gives a NumPy scalar)
    if out.dtype.kind == "f" or out.dtype.itemsize == 2 and out.dtype.kind != "i":
        xp.copyto(out, 0, where=out != out)  # sign(nan) is 0 in torch
        if out.dtype.kind == "V":  # bfloat16's sign keeps -0 (torch's, as NumPy's float: +0)
            xp.copyto(out, 0, where=out == 0)
    return out


class Sign(Function):
    """out = sign(a);  grad_a = 0"""

    @staticmethod
    def forward(ctx, a):
        return _sign_kernel(ctx.xp, a._data)

    @staticmethod
    def backward(ctx, grad):
        return zeros_of(grad)  # torch's zeros_like: +0 (grad * 0 gave -0 for negatives)


_OWN_BUFFER_MIN = 1 << 12  # below, out= calls cost more than the temporaries they save


def _same_dense_layout(grad, y) -> bool:
    """Whether a backward kernel may compute in a buffer of its own laid out as y and return it:
    grad and y of one dtype and one dense (C or F) layout, which NumPy's result of grad * (an
    expression of y) would take too, and big enough for it to pay ((32, 32) float32 tanh's
    backward: 1.5 us the plain way, 1.7 in one buffer; 4096 elements: 3.0 and 2.7)."""
    return (
        grad.size >= _OWN_BUFFER_MIN
        and grad.ndim > 0
        and grad.dtype == y.dtype
        and grad.strides == y.strides
        and (y.flags.c_contiguous or y.flags.f_contiguous)
    )


class Tanh(Function):
    """out = tanh(a);  grad_a = grad * (1 - out**2)"""

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = ctx.xp.tanh(a._data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return TanhBackward.apply(grad, out)

    @staticmethod
    def _backward_data(ctx, grad):
        (out,) = ctx._stored_arrays()
        return TanhBackward.kernel(grad, out, ctx.xp)


class TanhBackward(Function):
    """out = grad * (1 - y**2);  grad_grad = g * (1 - y**2),  grad_y = -2 * g * grad * y

    Fused (one kernel instead of three): tanh's backward is on the per-step path of every small
    model; bench/ pointwise_fwd_bwd measures it."""

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return TanhBackward.kernel(grad._data, y._data, ctx.xp)

    @staticmethod
    def kernel(grad, y, xp=None):
        if grad.itemsize == 2:  # half: in float32, rounded once, as torch's tanh_backward
            return (grad.astype("float32") * (1 - y.astype("float32") ** 2)).astype(grad.dtype)
        if xp is not None and _same_dense_layout(grad, y):
            # the same three steps in one buffer, laid out as both, not three fresh arrays
            # ((2048, 512) float32: 1.2 -> 0.9 ms)
            t = y * y
            xp.subtract(1, t, out=t)
            return xp.multiply(grad, t, out=t)
        return grad * (1 - y * y)

    @staticmethod
    def backward(ctx, g):
        grad, y = ctx._stored_tensors
        return (
            g * (1 - y * y) if ctx.needs_input_grad[0] else None,
            -2 * g * grad * y if ctx.needs_input_grad[1] else None,
        )


class Sigmoid(Function):
    """out = 1 / (1 + exp(-a));  grad_a = grad * out * (1 - out)"""

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = Sigmoid.kernel(ctx.xp, a._data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def kernel(xp, x):
        """sigmoid of the array x, in x's dtype."""
        dt = x.dtype
        if opmath_dtype(dt):  # half: computed in float32 and rounded once, as torch does
            x = x.astype("float32")
        # torch's formula, four passes over one buffer: exp(-x) overflowing to inf for x below
        # about -88 (float32) gives 1 / inf = 0, the right limit (the kernels' RuntimeWarnings
        # are silenced: see minitorch/__init__.py)
        if x.ndim:
            out = xp.negative(x)
            xp.exp(out, out=out)
            out += 1
            xp.reciprocal(out, out=out)
        else:
            out = xp.asarray(1 / (1 + xp.exp(-x)))
        return out.astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return SigmoidBackward.apply(grad, out)

    @staticmethod
    def _backward_data(ctx, grad):
        (out,) = ctx._stored_arrays()
        return SigmoidBackward.kernel(grad, out, ctx.xp)


class SigmoidBackward(Function):
    """out = grad * y * (1 - y);  grad_grad = g * y * (1 - y),  grad_y = g * grad * (1 - 2y)

    Fused like TanhBackward, for the same reason."""

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(grad, y)
        return SigmoidBackward.kernel(grad._data, y._data, ctx.xp)

    @staticmethod
    def kernel(grad, y, xp=None):
        if grad.itemsize == 2:  # torch's sigmoid_backward: float16 in its own arithmetic, in
            if grad.dtype == "float16":  # this order; bfloat16 in float32, rounded once
                return (grad * (1 - y)) * y
            y32 = y.astype("float32")
            return (grad.astype("float32") * (y32 * (1 - y32))).astype(grad.dtype)
        if xp is not None and _same_dense_layout(grad, y):
            t = xp.subtract(1, y)  # the same three steps in one buffer (as TanhBackward's)
            xp.multiply(y, t, out=t)
            return xp.multiply(grad, t, out=t)
        return grad * (y * (1 - y))

    @staticmethod
    def backward(ctx, g):
        grad, y = ctx._stored_tensors
        return (
            g * (y * (1 - y)) if ctx.needs_input_grad[0] else None,
            g * grad * (1 - 2 * y) if ctx.needs_input_grad[1] else None,
        )


class Relu(Function):
    """out = max(a, 0);  grad_a = grad * (out > 0)"""

    _saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        out = Relu.kernel(ctx.xp, a._data)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def kernel(xp, x):
        # against a zero of x's dtype (zero_of): an array of zeros costs a pass of its own. On a
        # tie NumPy returns the second operand, so relu(-0.) is -0. as torch's (float16's
        # maximum returns the first: _HalfRelu). On the host, big float32 arrays: the same by clip
        # (NOTE [ Maximum with a number ] in numpy_backend.py). The result is laid out as x, as
        # torch's.
        if xp is _CPU_XP:
            out = maximum_number(zero_of(x.dtype), x)
        else:
            out = xp.maximum(zero_of(x.dtype), x)
        if 0 in x.strides:  # expanded (rare): NOTE [ Preserved layouts ]
            return _memory_format.into_layout_of(xp, x, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return ReluBackward.apply(grad, out)

    @staticmethod
    def _backward_data(ctx, grad):
        (out,) = ctx._stored_arrays()
        return mask_gradient(ctx.xp, grad, out != 0)  # (ReluBackward.kernel, inlined)

    @staticmethod
    def _backward_data_owned(ctx, grad):
        (out,) = ctx._stored_arrays()
        # (ReluBackward.kernel, inlined) NOTE [ Reused gradients ]
        return mask_gradient(ctx.xp, grad, out != 0, grad)


class _HalfRelu(Relu):
    """Relu of float16, whose NumPy maximum returns its first operand on a tie (relu(-0.) is
    -0.)."""

    _node_name = "ReluBackward0"

    @staticmethod
    def forward(ctx, a):
        x = a._data
        xp = ctx.xp
        z = xp.zeros(x.shape, x.dtype) if x.flags.c_contiguous or 0 in x.strides else None
        out = xp.maximum(x, xp.zeros_like(x) if z is None else z)
        ctx.save_for_backward(out)
        return out


class ReluBackward(Function):
    """out = grad where y > 0 or y is NaN, else +0. (torch's threshold_backward: where(y <= 0, 0,
    grad));  grad_grad = the same of g,  grad_y = 0 (almost everywhere, and connected: NOTE
    [ Zero gradients of piecewise-linear backward ])

    Fused (one kernel instead of a comparison, a cast and a product): on every MLP step. A product
    with the mask, not `where`: on the CPU NumPy's `where` with a data-dependent mask is about 4x
    slower (2 ms of a 15 ms MLP step, bench/ mlp_step). The product is taken of the gradient's
    bits as integers (see NOTE [ Masking by an integer product ])."""

    _node_name = "ThresholdBackwardBackward0"
    # grad_fn._saved_self (relu's result y) and _saved_threshold, 0 (as torch)
    _saved_names = ("self",)
    _saved_attrs = {"threshold": lambda node: 0}

    @staticmethod
    def forward(ctx, grad, y):
        ctx.save_for_backward(y)
        return ReluBackward.kernel(ctx.xp, grad._data, y._data)

    @staticmethod
    def kernel(xp, grad, y, out=None):
        # y is relu's output: >= 0 or NaN, so y != 0 is torch's "not y <= 0" in one comparison
        # (y > 0 would stop the gradient at a NaN y, where torch passes it)
        return mask_gradient(xp, grad, y != 0, out)

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (ReluBackward.apply(g, y) if needs[0] else None), (zeros_of(y) if needs[1] else None)


# NOTE [ Masking by an integer product ]
# A backward that zeroes the gradient where a mask is False (relu, max/min, max pooling) must give
# torch's +0. there whatever the gradient holds: a float product grad * mask gives -0. for a
# negative gradient (visible when printing .grad) and NaN for a NaN or inf one, where torch's
# kernels select 0. `where` selects, but NumPy's `where` with a data-dependent mask is several
# times slower than a product; so the product is taken of the gradient's bit pattern read as
# integers of its width: a bit pattern times 1 is itself, times 0 is all zero bits, +0. -- as fast
# as the float product, and exact for every float dtype (float16/bfloat16 included).
_SAME_WIDTH_INT = {}  # a float dtype -> the integer dtype of its width (dtype objects: faster)


def mask_gradient(xp, grad, keep, out=None):
    """grad where the boolean array `keep` (broadcast against grad) is True, +0. elsewhere, into
    `out` when given (grad itself on the reused-gradient path). NOTE [ Masking by an integer
    product ]"""
    try:
        bits = _SAME_WIDTH_INT[grad.dtype]
    except KeyError:
        bits = _SAME_WIDTH_INT[grad.dtype] = xp.dtype(f"int{8 * grad.dtype.itemsize}")
    # (an integer of any width times a bool keeps its dtype: no dtype= to parse, 2.5 -> 2 us
    # on (16, 32))
    if out is not None:
        xp.multiply(grad.view(bits), keep, out=out.view(bits))
        return out
    return xp.multiply(grad.view(bits), keep).view(grad.dtype)


def _unary_float(fn, name, kernel):
    # input REQUIRED, extra: torch's parser wording of torch.exp() and torch.exp(x, 1);
    # kernel: what fn.forward computes, on a NumPy array (NOTE [ The no-grad fast path ], NOTE
    # [ The recorded fast path ]), which saves what fn's node shows: its input or its result
    (saves,) = fn._saved_names

    def op(input=REQUIRED, *extra, out=None):
        if (
            input.__class__ is Tensor
            and input._device is _CPU
            and out is None
            and not extra
            and input._data.dtype.kind == "f"
            and fast_path[0]
        ):
            if not (input._requires_grad and _grad_state.enabled):
                return plain_result(kernel(input._data), _CPU)
            return record_unary(fn, kernel(input._data), input, saves)
        try:
            dt = input._data.dtype
        except AttributeError:  # torch.exp(1.0), torch.sqrt(ndarray): zero-cost when a tensor
            raise not_tensor(name, input) from None
        if extra:
            raise too_many_positional(name, 1 + len(extra), 1)
        if dt.kind != "f" and not _dtype.from_numpy(dt).is_floating_point:  # bfloat16 is kind 'V'
            input = cast(input, _dtype.default_float())
        if out is None:
            return fn.apply(input)
        return _out(fn.apply(input), out)

    op.__name__ = name
    op.__qualname__ = name
    op.__doc__ = f"Elementwise {name}. Mirrors torch.{name}."
    return op


exp = _unary_float(Exp, "exp", _CPU_XP.exp)
log = _unary_float(Log, "log", _CPU_XP.log)
sqrt = _unary_float(Sqrt, "sqrt", _CPU_XP.sqrt)
tanh = _unary_float(Tanh, "tanh", _CPU_XP.tanh)
sigmoid = _unary_float(Sigmoid, "sigmoid", functools.partial(Sigmoid.kernel, _CPU_XP))


def abs(input=REQUIRED, *extra, out=None):
    """|input|. Mirrors torch.abs."""
    try:
        dt = input._data.dtype
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("abs", input) from None
    if extra:  # (input REQUIRED, extra: torch.abs() and torch.abs(x, 1) as torch words them)
        raise too_many_positional("abs", 1 + len(extra), 1)
    if dt.kind == "b":
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return _out_exact(Abs.apply(input), out)


def sign(input=REQUIRED, *extra, out=None):
    """-1, 0 or 1 by sign. Mirrors torch.sign."""
    try:
        dt = input._data.dtype
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("sign", input) from None
    if extra:  # (input REQUIRED, extra: as abs)
        raise too_many_positional("sign", 1 + len(extra), 1)
    if dt.kind == "b":
        return input.clone() if out is None else _out_exact(input, out)
    return _out_exact(Sign.apply(input), out)


def relu(input=REQUIRED, *extra):
    """max(input, 0). Mirrors torch.relu."""
    if (  # NOTE [ The no-grad fast path ], NOTE [ The recorded fast path ]: Relu.forward's
        # kernel, its result saved
        input.__class__ is Tensor
        and input._device is _CPU
        and not extra
        and input._data.dtype.char in "fd"
        and fast_path[0]
    ):
        if not (input._requires_grad and _grad_state.enabled):
            return plain_result(Relu.kernel(_CPU_XP, input._data), _CPU)
        return record_unary(Relu, Relu.kernel(_CPU_XP, input._data), input, "result")
    try:
        dt = input._data.dtype
    except AttributeError:  # torch.relu(None): zero-cost when a tensor
        raise not_tensor("relu", input) from None
    if extra:  # (input REQUIRED, extra: as abs)
        raise too_many_positional("relu", 1 + len(extra), 1)
    if dt.char in "?e":
        if dt.char == "?":
            raise RuntimeError("Boolean inputs not supported for relu")
        return _HalfRelu.apply(input)
    return Relu.apply(input)


# --- two-input selections ---


class Maximum(Function):
    """out = max(a, b);  the gradient goes to the larger input, split evenly on ties"""

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        # torch returns a on a tie (0. vs -0.), NumPy its second operand (its first for float16)
        if a._data.dtype.char == "e":
            return ctx.xp.maximum(a._data, b._data)
        return ctx.xp.maximum(b._data, a._data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        return _split_grad(where, 0.0, grad, a, b, _operator.lt, ctx.needs_input_grad)

    @staticmethod
    def _backward_data(ctx, grad):
        a, b = ctx._stored_arrays()
        zero = ctx.xp.zeros((), grad.dtype)
        return _split_grad(ctx.xp.where, zero, grad, a, b, _operator.lt, ctx.needs_input_grad)


class Minimum(Function):
    """out = min(a, b);  the gradient goes to the smaller input, split evenly on ties"""

    _saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        if a._data.dtype.char == "e":  # (a on a tie, as Maximum)
            return ctx.xp.minimum(a._data, b._data)
        return ctx.xp.minimum(b._data, a._data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        return _split_grad(where, 0.0, grad, a, b, _operator.gt, ctx.needs_input_grad)

    @staticmethod
    def _backward_data(ctx, grad):
        a, b = ctx._stored_arrays()
        zero = ctx.xp.zeros((), grad.dtype)
        return _split_grad(ctx.xp.where, zero, grad, a, b, _operator.gt, ctx.needs_input_grad)


def _split_grad(select, zero, grad, a, b, loses, needs):
    """maximum's and minimum's gradients, as torch's formula: grad (halved where a == b), put
    to zero where the input lost (`loses(a, b)`: a < b for maximum). A selection, not a product
    with a mask: an inf upstream gradient (sqrt or log of a clamped 0) leaves the loser +0.
    rather than inf * 0 = NaN. Where a or b is NaN neither lost: both get the gradient, as
    torch's. `select` (a where) and `zero` are minitorch's for Tensors (backward) or the
    backend's for arrays (_backward_data)."""
    g = select(a == b, grad / 2, grad)
    ga = select(loses(a, b), zero, g) if needs[0] else None
    gb = select(loses(b, a), zero, g) if needs[1] else None
    return ga, gb


def maximum(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Elementwise maximum of two tensors. Mirrors torch.maximum."""
    if other.__class__ is Tensor and not extra and out is None:
        result = _plain_extreme(_CPU_XP.maximum, input, other)  # Maximum.forward's kernel
        if result is not None:
            return result
    _require_tensors(input, other, "maximum", extra)
    a, b, _ = promote(input, other, "maximum")
    return _out(Maximum.apply(a, b), out)


def minimum(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Elementwise minimum of two tensors. Mirrors torch.minimum."""
    if other.__class__ is Tensor and not extra and out is None:
        result = _plain_extreme(_CPU_XP.minimum, input, other)  # Minimum.forward's kernel
        if result is not None:
            return result
    _require_tensors(input, other, "minimum", extra)
    a, b, _ = promote(input, other, "minimum")
    return _out(Minimum.apply(a, b), out)


def _plain_extreme(kernel, input, other):
    """maximum/minimum (kernel: NumPy's) of two tensors on the no-grad fast path (NOTE [ The
    no-grad fast path ] in minitorch/autograd/function.py), as their forwards compute it for
    float32/float64 (a tie gives input); None where the full path must run (it raises torch's
    error for shapes that do not broadcast)."""
    if _plain_pair(input, other, None) and input._data.dtype.char in "fd":
        try:
            return plain_result(kernel(other._data, input._data), _CPU)
        except Exception:  # (free unless raised)
            return None
    return None


def _require_tensors(a, b, op, extra=()):
    if extra or a is REQUIRED or b is REQUIRED:
        raise arity_error(op, extra, 2, input=a, other=b)
    for pos, name, x in ((1, "input", a), (2, "other", b)):
        if not isinstance(x, Tensor):
            raise wrong_type(op, x, name, pos, "Tensor")


_INF = math.inf


class Clamp(Function):
    """out = min(max(a, lo), hi);  grad_a = grad where lo <= a <= hi, else 0"""

    _node_name = "ClampBackward1"  # torch's numbers to clamp
    # grad_fn._saved_self, _saved_min, _saved_max (the numbers, None where not given), as torch;
    # clamp_min's and clamp_max's nodes show their own bound only
    _saved_names = ("self",)
    _saved_attrs = {"min": lambda node: node.bounds[0], "max": lambda node: node.bounds[1]}
    _saved_shown = {"ClampMinBackward0": ("self", "min"), "ClampMaxBackward0": ("self", "max")}

    @staticmethod
    def forward(ctx, a, *, min, max):
        ctx.save_for_backward(a)
        ctx.bounds = (min, max)
        xp = ctx.xp
        # one bound: a tie keeps a (-0. against 0, as torch's `a < min ? min : a`). NumPy's
        # clip with an infinite other bound does, and is ~2x faster than maximum with a number;
        # maximum returns its second operand on a tie, float16's its first (clip: slower)
        x = a._data
        if x.dtype.char == "E":  # bfloat16: clipped in float32 and rounded back, in one node
            # (NOTE [ Half-precision arithmetic ])
            lo, hi = -_INF if min is None else min, _INF if max is None else max
            return xp.clip(x.astype("float32"), lo, hi).astype(x.dtype)
        if min is None or max is None:
            c = x.dtype.char
            if c in "fd":
                return xp.clip(x, -_INF if min is None else min, _INF if max is None else max)
            bound = max if min is None else min
            pair = (x, bound) if c == "e" else (bound, x)  # a tie keeps x
            return xp.maximum(*pair) if max is None else xp.minimum(*pair)
        return xp.clip(x, min, max)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return where(_within(a, *ctx.bounds), grad, 0.0)  # a selection: +0 outside, as torch

    @staticmethod
    def _backward_data(ctx, grad):
        if grad.itemsize == 2:  # a half tensor against number bounds: the Tensor comparison
            return NotImplemented
        (a,) = ctx._stored_arrays()
        return ctx._out_device.backend.keep(_within(a, *ctx.bounds), grad)  # branch-free


def _within(a, lo, hi):
    """lo <= a <= hi (a bound may be None), with operators only: for Tensors and arrays."""
    keep = None
    if lo is not None:
        keep = a >= lo
    if hi is not None:
        keep = (a <= hi) if keep is None else keep & (a <= hi)
    return keep


class ClampTensor(Function):
    """out = min(max(a, lo), hi) with tensor bounds;  the gradient goes to whichever is selected"""

    _node_name = "ClampBackward0"  # torch's tensors to clamp
    _saved_names = ("self", "min", "max")  # grad_fn._saved_min/_max: None where not given
    _saved_shown = {"ClampMinBackward1": ("self", "min"), "ClampMaxBackward1": ("self", "max")}

    @staticmethod
    def forward(ctx, a, lo, hi):
        ctx.save_for_backward(a, lo, hi)
        x = a._data
        xp = ctx.xp
        # a tie keeps x, as torch (-0. against 0.): NumPy returns the second operand on a tie,
        # the first for float16
        f16 = x.dtype.char == "e"
        if lo is not None:
            x = xp.maximum(x, lo._data) if f16 else xp.maximum(lo._data, x)
        if hi is not None:
            x = xp.minimum(x, hi._data) if f16 else xp.minimum(hi._data, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        # torch's selection rule: a keeps it where lo <= a <= hi; lo where a < lo < hi; hi
        # where a > hi or hi < lo (bounds crossed: the output is hi everywhere). With lo == hi,
        # a below them gives nobody a gradient, as torch's.
        a, lo, hi = ctx._stored_tensors
        keep = None
        if lo is not None:
            keep = a >= lo
        if hi is not None:
            keep = (a <= hi) if keep is None else keep & (a <= hi)
        g_lo = g_hi = None
        if lo is not None and ctx.needs_input_grad[1]:
            g_lo = where((a < lo) & (lo < hi) if hi is not None else a < lo, grad, 0.0)
        if hi is not None and ctx.needs_input_grad[2]:
            g_hi = where((a > hi) | (hi < lo) if lo is not None else a > hi, grad, 0.0)
        return where(keep, grad, 0.0), g_lo, g_hi


def _check_float_bound(bound: float, dt) -> None:
    """torch converts a number bound (clamp's, hardtanh's) to the tensor's dtype with c10's
    checked conversion: a finite bound beyond a float16, bfloat16 or float32 range raises its
    overflow error (half clamp(min=-1e9)), where NumPy would turn it into -inf."""
    if dt.is_floating_point:
        _dtype.fill_number(bound, dt.np)


def _check_number_bound(bound, dt) -> None:
    """c10's checked conversion of a number bound into the result's dtype dt: an int beyond an
    integer dtype's range, a finite float beyond a float dtype's, raise torch's overflow
    error."""
    if bound.__class__ is int and not (dt.is_floating_point or dt is _dtype.bool):
        _dtype.checked_int(bound, dt.np)
    elif bound.__class__ in (float, int):
        _check_float_bound(bound, dt)


def _check_mixed_bounds(input, min, max) -> None:
    """clamp(x, tensor, number) and clamp(x, number, tensor): torch's overloads take both bounds
    as tensors or both as numbers, so the tensor must pass as a number (0-d, not requiring
    grad), else its TypeError. Here the tensor is used as it is, with no read to the host."""
    for t in (min, max):
        if isinstance(t, Tensor) and (t.ndim != 0 or t.requires_grad):
            raise _errors.clamp_error("clamp", input, min, max)


def _clamp_dtype(input, min, max, lo, hi, mixed):
    """result_type over the input and both tensor bounds together, as torch's (a 0-d int input
    with a float32 min and a float16 max is float32). Mixed bounds are torch's Number overload:
    the 0-d tensor counts as a Python number of its kind."""
    if lo is None or hi is None:
        bnd = hi if lo is None else lo
        return _dtype.binary_dtype(input.dtype, input.ndim, bnd.dtype, bnd.ndim)
    if mixed:
        return _dtype.result_type(
            (input.dtype, input.ndim),
            *(_as_number(b) if isinstance(b, Tensor) else b for b in (min, max)),
        )
    n, n_lo, n_hi = input._data.ndim, lo._data.ndim, hi._data.ndim
    if (n == 0) is (n_lo == 0) is (n_hi == 0):  # one level: pairwise is exact
        dt = _dtype.binary_dtype(input.dtype, n, lo.dtype, n_lo)
        return _dtype.binary_dtype(dt, n, hi.dtype, n_hi)
    return _dtype.result_type(*((t.dtype, t.ndim) for t in (input, lo, hi)))


def _as_number(t: Tensor):
    """A Python number of t's kind (its value is not read): how promotion sees a tensor passed
    where torch takes a Number."""
    dt = t.dtype
    return 0.0 if dt.is_floating_point else False if dt is _dtype.bool else 0


def clamp(input=REQUIRED, min=None, max=None, *extra, out=None):
    """Clamps into [min, max]; bounds may be numbers or tensors. Mirrors torch.clamp."""
    if (  # NOTE [ The no-grad fast path ]: Clamp.forward's clip, for float32/64 and number bounds
        input.__class__ is Tensor
        and input._device is _CPU
        and out is None
        and not extra
        and _plain_bound(min)
        and _plain_bound(max)
        and (min is not None or max is not None)
        and not (input._requires_grad and _grad_state.enabled)
        and input._data.dtype.char in "fd"
        and fast_path[0]
    ):
        lo, hi = -_INF if min is None else min, _INF if max is None else max
        return plain_result(_CPU.backend.clip_ufunc(input._data, lo, hi), _CPU)
    if extra or not isinstance(input, Tensor):  # (both overloads take the call: it lists them)
        raise _errors.clamp_error("clamp", input, min, max, out, extra)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if out is not None:
        if out is input:
            return _clamp_into_input(input, min, max)
        if isinstance(out, Tensor) and out._requires_grad:
            # (before any dtype check, as torch's autograd layer; named though no node is)
            from minitorch._ops.inplace import _out_autograd_error
            from minitorch.autograd.grad_mode import is_grad_enabled

            if is_grad_enabled():
                raise _out_autograd_error(None, "clamp")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        mixed = (
            min is not None
            and max is not None
            and not (isinstance(min, Tensor) and isinstance(max, Tensor))
        )
        if mixed:
            _check_mixed_bounds(input, min, max)  # (a NumPy bound named as given: numpy.float64)
        min, max = number(min), number(max)
        lo = min if min is None or isinstance(min, Tensor) else scalar_like(min, input)
        hi = max if max is None or isinstance(max, Tensor) else scalar_like(max, input)
        dt = _clamp_dtype(input, min, max, lo, hi, mixed)
        if mixed:  # the number bound, converted as the number overload's (uint8 min=300 raises)
            _check_number_bound(min if isinstance(max, Tensor) else max, dt)
        if dt is _dtype.bool and lo is not None and hi is not None:
            if mixed and isinstance(out, Tensor) and out.dtype is not dt:
                raise found_dtype_error(out.dtype, dt)  # (the number overload's out= first)
            kernel = "clamp_scalar_cpu" if mixed else "clamp_cpu"  # mixed: read as numbers
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        args = [cast(input, dt)] + [None if t is None else cast(t, dt) for t in (lo, hi)]
        result = ClampTensor.apply(*args)
        if mixed:  # torch reads the 0-d tensor as a number: its node for number bounds
            # (and its out= must have the result's dtype)
            return _out_exact(name_node(result, "ClampBackward1"), out)
        return _out(result, out)  # a wider out: torch casts (tensor bounds)
    min, max = number(min), number(max)
    dt = input.dtype
    for bnd in (min, max):
        if bnd is not None:
            try:
                dt = _dtype.scalar_dtype(dt, bnd)
            except TypeError:  # a str: no overload takes it
                raise _errors.clamp_error("clamp", input, min, max, out) from None
            if bnd.__class__ in (float, int) and not -65504.0 <= bnd <= 65504.0:
                # (rare: beyond float16's range, or NaN). A NaN bound makes every element NaN
                # in torch before the other bound is converted: clamp(half, 1e300, nan) is NaN
                if bnd.__class__ is int and not -(1 << 63) <= bnd < 1 << 64:
                    raise _dtype.scalar_int_overflow(bnd)  # NOTE [ Ints beyond a Scalar ]
                if bnd.__class__ is int and bnd >= 1 << 63:
                    uint64_bounds(input, min, max)  # (torch reads it as a uint64 number)
                if not any(b.__class__ is float and b != b for b in (min, max)):
                    _check_float_bound(bnd, dt)
    if not dt.is_floating_point:
        if dt is _dtype.bool:  # torch has no bool kernel for number bounds (even when empty)
            if isinstance(out, Tensor) and out.dtype is not dt:
                raise found_dtype_error(out.dtype, dt)  # (out='s dtype first)
            kernel = "clamp_min" if max is None else "clamp_max" if min is None else "clamp"
            raise NotImplementedError(f"\"{kernel}_scalar_cpu\" not implemented for 'Bool'")
        # c10's checked conversion, as torch converts the bounds: into uint8, -1 is 255 (so
        # clamp(min=-1) gives all 255) and 300 raises
        min, max = (
            b if b.__class__ is not int else _dtype.checked_int(b, dt.np) for b in (min, max)
        )
    if dt is not input.dtype:
        input = cast(input, dt)
    if dt.itemsize == 1 and dt.is_floating_point:  # NOTE [ Float8 dtypes ]
        kernel = "clamp_min" if max is None else "clamp_max" if min is None else "clamp"
        raise _dtype.float8_error(kernel + "_scalar_cpu", dt)
    return _out_exact(Clamp.apply(input, min=min, max=max), out)


def _plain_bound(b) -> bool:
    """Whether b is a bound clamp's fast path takes: None, or an int or float that needs no
    range check (NaN does not: it fails the comparison)."""
    return b is None or (
        (b.__class__ is float or b.__class__ is int) and -65504.0 <= b <= 65504.0
    )


def _clamp_into_input(input, min, max):
    """clamp(x, ..., out=x): torch checks a result written into its own input as clamp_'s (a
    float result of integer input and float bounds cannot be cast back)."""
    from minitorch._ops.inplace import _check_result

    try:
        result = clamp(input, min, max)
    except TypeError as e:  # (the call's listing shows its out=)
        if not str(e).startswith("clamp() received an invalid combination"):
            raise
        raise _errors.clamp_error("clamp", input, min, max, input) from None
    _check_result(input, result, "clamp_", (min, max))
    return _out(result, input)


class Where(Function):
    """out = cond ? a : b;  grad_a = grad where cond, grad_b = grad where not cond"""

    _edges = (1, 2)  # torch's node lists a and b, not the condition
    _saved_names = ("condition",)  # grad_fn._saved_condition (as torch)

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.save_for_backward(cond)
        return cond._device.backend.select(cond._data, _d(a), _d(b))  # NOTE [ Branch-free selects ]

    @staticmethod
    def backward(ctx, grad):
        (cond,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            None,
            where(cond, grad, 0.0) if needs[1] else None,
            where(cond, 0.0, grad) if needs[2] else None,
        )

    @staticmethod
    def _backward_data(ctx, grad):
        (cond,) = ctx._stored_arrays()
        needs = ctx.needs_input_grad
        backend = ctx._out_device.backend
        zero = backend.xp.zeros((), dtype=grad.dtype)
        return (
            None,
            backend.keep(cond, grad) if needs[1] else None,
            backend.select(cond, zero, grad) if needs[2] else None,
        )


# where's out= when the call gives none: torch's parser picks the out= overload for any out=,
# an explicit None too, and that overload takes tensors only (where(c, x, 0.0, out=None) raises)
_NO_OUT = NOT_GIVEN


def where(condition=REQUIRED, input=_NO_OPERAND, other=_NO_OPERAND, *extra, out=_NO_OUT):
    """Elementwise select; where(cond) alone is nonzero(cond, as_tuple=True).

    Mirrors torch.where."""
    if extra:  # (condition REQUIRED: _where_type_error below)
        raise _where_type_error(condition, input, other, out, extra)
    try:
        cdt = condition._data.dtype
    except AttributeError:  # not a tensor: found here, off the common path
        raise _where_type_error(condition, input, other, out) from None
    if input is _NO_OPERAND or other is _NO_OPERAND:
        if input is not other or out is not _NO_OUT:  # where(cond, x), or where(cond, out=)
            raise _where_type_error(condition, input, other, out)
        from minitorch._ops import nonzero

        return nonzero(condition, as_tuple=True)
    if out is not _NO_OUT:  # the out= overload takes tensors only: where(c, x, 0.0, out=o) raises
        for name, pos, v in (("input", 2, input), ("other", 3, other)):
            if not isinstance(v, Tensor):
                raise not_tensor("where", v, name, pos)
    if cdt.kind != "b":
        if cdt != "uint8":
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{_dtype.scalar_name(condition.dtype)}"
            )
        from minitorch._settings import warn_once

        warn_once(  # torch still takes a byte mask, with this warning (once per process)
            "where_uint8",
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
        )
        condition = condition.bool()
    try:
        x = input
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            if input.__class__ is float:  # checked before scalar_like makes 1e300 inf
                _where_number(input, _dtype.get_default_dtype())
            x = scalar_like(input, condition)
        a, b, dt = promote(x, other, "where", wrap=False)
    except _OperandTypeError:  # (free when nothing is raised)
        raise _where_type_error(condition, input, other, out) from None
    xp, dev = condition._device.backend.xp, condition._device
    a, b = (
        x
        if isinstance(x, Tensor)
        else _make(xp.asarray(_where_number(x, dt), dt.np), dev, False, None)
        for x in (a, b)
    )
    result = Where.apply(condition, a, b)
    if out is _NO_OUT or out is None:
        return result
    if isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise RuntimeError(
            f"Expected out type to be {_dtype.scalar_name(result.dtype)} but got "
            f"{_dtype.scalar_name(out.dtype)}"
        )
    return _out(result, out)


def _where_type_error(condition, input, other, out=_NO_OUT, extra=()) -> TypeError:
    """torch's argument-parser TypeError for where's arguments of types no overload takes
    (NOTE [ Overloaded binary ops ]), or of a count none takes (input or other not given, no
    condition (REQUIRED), `extra` positional arguments past other)."""
    from minitorch._ops._parser_errors import TERNARY_FORMS, overload_error, with_extra

    lone = input is _NO_OPERAND and other is _NO_OPERAND and out is _NO_OUT and not extra
    if lone and condition is not REQUIRED:
        return not_tensor("where", condition, "condition")
    named = (("condition", condition), ("input", input), ("other", other))
    named = [(n, v) for n, v in named if v is not _NO_OPERAND]
    named = with_extra(named, extra) + ([] if out is _NO_OUT else [("out", out)])
    return overload_error("where", *TERNARY_FORMS["where"], named)


def _type_label(x) -> str:
    """An argument's type as torch's argument parser names it ("Tensor", "numpy.ndarray", "NT"
    for a class defined in Python)."""
    from minitorch._ops._common import type_name

    return type_name(x)


def _where_number(v, dt):
    """A number operand of where as the result dtype takes it: c10's checked conversion (into
    uint8, -1 is 255 and 300 raises; a finite float beyond float32's range raises), not the
    wrap-around or inf of arithmetic (u8 + 300, f32 * 1e300). Only float32 is checked among
    floats: torch's where turns 1e300 into inf in float16 and bfloat16, as NumPy does."""
    if v.__class__ is int:
        if dt.np.kind in "iu":
            return _dtype.checked_int(v, dt.np)
        if not _dtype.SCALAR_INT_MIN <= v < _dtype.SCALAR_INT_END:
            raise _dtype.scalar_int_overflow(v)  # NOTE [ Ints beyond a Scalar ]
    if v.__class__ is float and dt is _dtype.float32:
        return _dtype.fill_number(v, dt.np)
    return v


# --- comparisons: bool results, never differentiable ---

_INT64_END = 1 << 63  # ints from here to 2**64 wrap (NOTE [ Unsigned 64-bit numbers ])


def _compare(kernel, name):
    def op(input, other, *, out=None):
        if (  # a plain tensor and a number pay two class tests
            input.__class__ is not Tensor
            or (other.__class__ is not Tensor and isinstance(other, Tensor))
        ) and any_dispatching((input, other)):  # NOTE [ Tensor subclasses ]
            return run_converted(op, (input, other), {"out": out})
        if not isinstance(input, Tensor):  # (Tensor, Tensor) and (Tensor, Number) only
            _compare_args_error(name, input, other)
        a, b, dt = promote(input, other, name)
        if b.__class__ is int and dt is _dtype.int64 and not -_INT64_END <= b < _INT64_END:
            a, b = wrapped_big_ints(a, b)  # x < 2**63 compares with -2**63, as torch
        a, b = same_device(a, b, name)
        t = a if isinstance(a, Tensor) else b
        try:
            r = kernel(_d(a), _d(b))  # NumPy answers 0-d operands with a NumPy bool, not an array
        except ValueError as e:
            _raise_broadcast_error(op, (a, b), e)
        if not r.ndim:
            r = t._device.backend.xp.asarray(r)
        return _out(_make(r, t._device, False, None), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} comparison (a bool tensor). Mirrors torch.{name}."
    return op


def _compare_args_error(name, input, other):
    from minitorch._ops._parser_errors import BINARY_FORMS, overload_error

    raise overload_error(name, *BINARY_FORMS[name], (("input", input), ("other", other)))


eq = _compare(lambda a, b: a == b, "eq")
ne = _compare(lambda a, b: a != b, "ne")
lt = _compare(lambda a, b: a < b, "lt")
le = _compare(lambda a, b: a <= b, "le")
gt = _compare(lambda a, b: a > b, "gt")
ge = _compare(lambda a, b: a >= b, "ge")


def _out_exact(result: Tensor, out):
    """_out for the ops torch computes in their input's dtype (neg, abs, sign, clamp): out must
    have the result's dtype (ops computing in float, exp or sigmoid, cast into any out)."""
    if isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise found_dtype_error(out.dtype, result.dtype)
    return _out(result, out)


def found_dtype_error(got, want) -> RuntimeError:
    """torch's error for an out= of dtype `got` where its kernel writes `want` only."""
    return RuntimeError(
        f"Found dtype {_dtype.scalar_name(got)} but expected {_dtype.scalar_name(want)}"
    )


def _out(result: Tensor, out):
    """Writes result into `out=` when given (torch's out= semantics: resized, same dtype)."""
    if out is None:
        return result
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def _show_alpha() -> None:
    from minitorch.autograd.composite import show_saved

    for name in ("AddBackward0", "SubBackward0"):  # add/sub's composite nodes for an alpha
        show_saved(name, {"alpha": _saved_alpha})


_show_alpha()
