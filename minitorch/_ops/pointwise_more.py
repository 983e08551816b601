"""Unary pointwise math: rounding, the exp/log family, trigonometric and hyperbolic functions."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._arg_errors import DEFAULT_ZERO, REQUIRED, too_many_positional
from minitorch._ops._common import (
    cast,
    expm1_array,
    index,
    is_floating,
    log1p_array,
    operand_error,
    opmath_array,
    wrong_type,
    zeros_of,
)
from minitorch._ops.pointwise import (
    _out,
    _out_exact,
    _sign_kernel,
    div,
    found_dtype_error,
    pow,
    sign,
    sqrt,
)
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function

# fmt: off
__all__ = [
    "floor", "ceil", "trunc", "fix", "round", "frac", "sgn", "true_divide", "exp2", "expm1",
    "log2", "log10", "log1p", "rsqrt", "square", "reciprocal", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan",
    "arcsinh", "arccosh", "arctanh",
    "floor_", "ceil_", "trunc_", "fix_", "round_", "frac_", "sgn_", "exp2_", "expm1_", "log2_",
    "log10_", "log1p_", "rsqrt_", "square_", "reciprocal_", "sin_", "cos_", "tan_", "asin_",
    "acos_", "atan_", "sinh_", "cosh_", "asinh_", "acosh_", "atanh_", "arcsin_", "arccos_",
    "arctan_", "arcsinh_", "arccosh_", "arctanh_",
]
# fmt: on

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


# --- helpers shared with pointwise_binary, special, activation and logical ---


def _arr(xp, r):
    """A kernel's result as an array (NumPy answers a 0-d input with a scalar)."""
    return xp.asarray(r)


def _short(dt) -> str:
    from minitorch._ops.inplace import _short as short

    return short(dt)


def _not_implemented(kernel: str, dt) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{_short(dt)}'")


def _check_tensor(x, op: str, arg: str = "input", pos: int = 1):
    if not isinstance(x, Tensor):
        raise wrong_type(op, x, arg, pos, "Tensor")


def _to_float(x, op: str) -> Tensor:
    """x, with integral and bool tensors cast to the default float dtype (sin of an int)."""
    _check_tensor(x, op)
    if is_floating(x._data.dtype):
        return x
    return cast(x, _dtype.default_float())


def _copy(x: Tensor) -> Tensor:
    return _make(x._data.copy(), x._device, False, None)


def _unary(cls, name: str, summary: str):
    """The public function of a float-only unary op: ints promote to the default float."""

    # input REQUIRED, extra: torch's parser wording of torch.sin() and torch.sin(x, 1)
    def op(input=REQUIRED, *extra, out=None):
        x = _to_float(input, name)
        if extra:
            raise too_many_positional(name, 1 + len(extra), 1)
        return _out(cls.apply(x), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{summary}. Mirrors torch.{name}."
    return op


def _inplace(fn, node=None):
    """x.fn_(...): the out-of-place op written into x (an int x refuses a float result).
    `node`: torch's name for the in-place op's node where it has its own (AcoshBackward1)."""
    name = fn.__name__
    compute = fn
    if node is not None:

        def compute(s, *args, **kwargs):
            from minitorch.autograd.function import name_node

            return name_node(fn(s, *args, **kwargs), node)

    # `input`, not `self`: these are torch.sin_(input=x) and friends as well as x.sin_()
    def op(input, *args, **kwargs):
        from minitorch._ops.inplace import apply_inplace

        return apply_inplace(input, lambda s: compute(s, *args, **kwargs), name + "_", args)

    op.__name__ = op.__qualname__ = name + "_"
    op.__doc__ = f"In-place {name}. Mirrors torch.Tensor.{name}_."
    return op


class _ZeroGrad:
    """Mixed into piecewise-constant ops: the gradient is zero wherever it exists."""

    @staticmethod
    def backward(ctx, grad):
        return zeros_of(grad)  # torch's zeros_like(grad): +0 (grad * 0 gave -0 for negatives)


class _ZeroGradSaving(_ZeroGrad):
    """_ZeroGrad of an op whose torch node saves tensors all the same (sgn, angle: for their
    complex formulas): its backward unpacks them, so that a second backward, or one after a
    saved tensor changed in place, raises as torch's."""

    @staticmethod
    def backward(ctx, grad):
        ctx._stored_tensors  # noqa: B018 - the unpacking checks
        return zeros_of(grad)


# --- rounding ---


class Floor(_ZeroGrad, Function):
    """out = floor(a);  grad_a = 0"""

    @staticmethod
    def forward(ctx, a):
        return _arr(ctx.xp, ctx.xp.floor(a._data))


class Ceil(_ZeroGrad, Function):
    """out = ceil(a);  grad_a = 0"""

    @staticmethod
    def forward(ctx, a):
        return _arr(ctx.xp, ctx.xp.ceil(a._data))


class Trunc(_ZeroGrad, Function):
    """out = trunc(a);  grad_a = 0"""

    @staticmethod
    def forward(ctx, a):
        return _arr(ctx.xp, ctx.xp.trunc(a._data))


class Round(_ZeroGrad, Function):
    """out = a rounded half to even;  grad_a = 0"""

    @staticmethod
    def forward(ctx, a):
        return _arr(ctx.xp, ctx.xp.rint(a._data))


class RoundDecimals(_ZeroGrad, Function):
    """out = rint(a * 10**d) / 10**d;  grad_a = 0"""

    _node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, a, *, decimals):
        xp = ctx.xp
        x = a._data
        if decimals == 0:  # rint(a * 1) / 1: Round's values (half's too: its rint is exact)
            return _arr(xp, xp.rint(x))
        # half: scaled, rounded and scaled back in float32, then rounded once, as torch does
        y = opmath_array(x)
        try:
            s = 10.0 ** abs(decimals)
        except OverflowError:  # torch's scale overflows to inf too: every result is NaN
            s = float("inf")
        if decimals >= 0:
            return _arr(xp, (xp.rint(y * s) / s).astype(x.dtype, copy=False))
        return _arr(xp, (xp.rint(y / s) * s).astype(x.dtype, copy=False))


class Sgn(_ZeroGradSaving, Function):
    """out = sign(a) (a real);  grad_a = 0"""

    _saved_names = ("self", "result")  # grad_fn._saved_<name> (as torch's, whose complex
    # formula reads them)

    @staticmethod
    def forward(ctx, a):
        if a._data.dtype.char in "fd":
            out = _sign_kernel(ctx.xp, a._data)  # NaN and -0. give +0. there
        else:
            out = _arr(ctx.xp, ctx.xp.sign(a._data))
            # sgn(nan) is 0 in torch, and sgn(-0) +0 (bfloat16's sign keeps the -0)
            ctx.xp.copyto(out, 0, where=(out != out) | (out == 0))
        ctx.save_for_backward(a, out)
        return out


class Frac(Function):
    """out = a - trunc(a);  grad_a = grad"""

    @staticmethod
    def forward(ctx, a):
        x = a._data
        return _arr(ctx.xp, x - ctx.xp.trunc(x))

    @staticmethod
    def backward(ctx, grad):
        return grad


def _rounding(cls, name: str, summary: str):
    def op(input=REQUIRED, *extra, out=None):  # (as _unary's)
        _check_tensor(input, name)
        if extra:
            raise too_many_positional(name, 1 + len(extra), 1)
        if input._data.dtype.kind == "b":
            raise _not_implemented(f"{name}_vml_cpu", input.dtype)
        if input._data.dtype.kind in "iu":
            return _out_exact(_copy(input), out)  # integers are already whole
        return _out_exact(cls.apply(input), out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{summary}; integer tensors are returned as they are. Mirrors torch.{name}."
    return op


floor = _rounding(Floor, "floor", "Rounds down to an integral value")
ceil = _rounding(Ceil, "ceil", "Rounds up to an integral value")
trunc = _rounding(Trunc, "trunc", "Rounds toward zero to an integral value")
fix = trunc


def _round_args_error(op: str, input, args: tuple, decimals, out=None) -> TypeError:
    """torch's TypeError for round (round_) given positional arguments past the input (its
    decimals is keyword-only): torch.round(x, 2), x.round(2). For error paths only."""
    from minitorch._ops._common import _called_as_method
    from minitorch._ops._parser_errors import OVERLOADS, _shown_order, invalid_arguments

    method = _called_as_method(op)
    forms = OVERLOADS[op][1 if method else 0]
    positional = args if method else (input, *args)
    kwargs = {} if out is None else {"out": out}
    if decimals is not DEFAULT_ZERO:  # (given, 0 too)
        kwargs["decimals"] = decimals
    return invalid_arguments(op, forms, positional, _shown_order(kwargs, op))


# NOTE [ round's decimals ]
# torch's round has two overloads, round(input) and round(input, *, decimals), and a call
# naming decimals takes the second even for decimals=0: its node is RoundBackward1 (not
# RoundBackward0) and its kernel refuses integer and bool tensors ("round_vml_cpu" not
# implemented), which the first returns as they are. So round's and round_'s decimals (and the
# Tensor methods') default to DEFAULT_ZERO, the number 0 that `is` tells from a given 0.


def round(input, *args, decimals=DEFAULT_ZERO, out=None):
    """Rounds half to even, to `decimals` decimal places. Mirrors torch.round."""
    if args:
        raise _round_args_error("round", input, args, decimals, out)
    if decimals is DEFAULT_ZERO:  # round(input): NOTE [ round's decimals ]
        return _round0(input, out=out)
    if decimals.__class__ is not int or not isinstance(input, Tensor):
        try:  # an int-like decimals, not a float or bool (torch's parser)
            decimals = index(decimals, "round", "decimals")
            _check_tensor(input, "round")
        except TypeError:  # neither overload takes the call (NOTE [ Overloaded reductions ])
            from minitorch._ops._parser_errors import parsed_error

            named = (("input", input), ("decimals", decimals), ("out", out))
            raise parsed_error("round", named) from None
    if not input.dtype.is_floating_point:
        if isinstance(out, Tensor) and out.dtype is not input.dtype:
            raise found_dtype_error(out.dtype, input.dtype)  # (checked before the kernel's)
        raise _not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", input.dtype)
    return _out_exact(RoundDecimals.apply(input, decimals=int(decimals)), out)


_round0 = _rounding(Round, "round", "Rounds half to even")


def frac(input, *, out=None):
    """The fractional part, a - trunc(a) (sign of a). Mirrors torch.frac."""
    _check_tensor(input, "frac")
    if not input.dtype.is_floating_point:
        raise _not_implemented("frac_cpu", input.dtype)
    return _out_exact(Frac.apply(input), out)


def sgn(input, *, out=None):
    """sign(input) (for real tensors the same as torch.sign). Mirrors torch.sgn."""
    _check_tensor(input, "sgn")
    # torch's sgn keeps the input's dtype and refuses an out= of another (sign casts)
    if input.dtype.is_floating_point:
        return _out_exact(Sgn.apply(input), out)
    if input._data.dtype.kind == "b":
        return _out_exact(_copy(input), out)
    return _out_exact(sign(input), out)


def true_divide(input, other, *, out=None):
    """input / other (true division). Mirrors torch.true_divide (whose keywords are `input`
    and `other`, though its docstring says dividend and divisor)."""
    try:
        return div(input, other, out=out)
    except TypeError as e:  # an operand of no type it takes: under its own name and overloads
        if not str(e).startswith("div(): argument"):
            raise
        raise TypeError(operand_error("true_divide", input, other)) from None


def square(input=REQUIRED, *extra, out=None):
    """input ** 2 (bool promotes to int64, as in torch). Mirrors torch.square."""
    _check_tensor(input, "square")
    if extra:  # (as _unary's)
        raise too_many_positional("square", 1 + len(extra), 1)
    return pow(input, 2, out=out)


# --- exp / log family ---


class Exp2(Function):
    """out = 2**a;  grad_a = grad * out * ln 2"""

    _saved_names = ("result",)  # grad_fn._saved_result (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _arr(ctx.xp, ctx.xp.exp2(a._data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad * out * _LN2


class Expm1(Function):
    """out = exp(a) - 1;  grad_a = grad * (out + 1)"""

    _saved_names = ("result",)  # grad_fn._saved_result (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _arr(ctx.xp, expm1_array(ctx.xp, a._data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad * (out + 1)


class Log2(Function):
    """out = log2(a);  grad_a = grad / (a ln 2)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.log2(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / (a * _LN2)


class Log10(Function):
    """out = log10(a);  grad_a = grad / (a ln 10)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.log10(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / (a * _LN10)


class Log1p(Function):
    """out = log(1 + a);  grad_a = grad / (1 + a)"""

    _node_name = "Log1PBackward0"
    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, log1p_array(ctx.xp, a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / (a + 1)


class Rsqrt(Function):
    """out = 1 / sqrt(a);  grad_a = -grad * out**3 / 2"""

    _saved_names = ("result",)  # grad_fn._saved_result (as torch's)

    @staticmethod
    def forward(ctx, a):
        x = a._data
        y = opmath_array(x)  # half: rounded once, as torch
        xp = ctx.xp
        if y.ndim:  # 1 / sqrt(y) in one buffer, not two: the same bits
            r = xp.sqrt(y)
            xp.divide(1, r, out=r)
        else:
            r = 1 / xp.sqrt(y)
        out = _arr(xp, r.astype(x.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad * (out * out * out) * -0.5


class Reciprocal(Function):
    """out = 1 / a;  grad_a = -grad * out**2"""

    _saved_names = ("result",)  # grad_fn._saved_result (as torch's)

    @staticmethod
    def forward(ctx, a):
        x = a._data
        out = _arr(ctx.xp, (1 / x).astype(x.dtype, copy=False))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return -grad * (out * out)


exp2 = _unary(Exp2, "exp2", "2 to the power input")
expm1 = _unary(Expm1, "expm1", "exp(input) - 1, accurate near 0")
log2 = _unary(Log2, "log2", "The base-2 logarithm")
log10 = _unary(Log10, "log10", "The base-10 logarithm")
log1p = _unary(Log1p, "log1p", "log(1 + input), accurate near 0")
rsqrt = _unary(Rsqrt, "rsqrt", "1 / sqrt(input)")
reciprocal = _unary(Reciprocal, "reciprocal", "1 / input")


# --- trigonometric and hyperbolic ---


class Sin(Function):
    """out = sin(a);  grad_a = grad * cos(a)"""

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.sin(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * cos(a)


class Cos(Function):
    """out = cos(a);  grad_a = -grad * sin(a)"""

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.cos(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * -sin(a)


class Tan(Function):
    """out = tan(a);  grad_a = grad * (1 + out**2)"""

    _saved_names = ("result",)  # grad_fn._saved_result (as torch's)

    @staticmethod
    def forward(ctx, a):
        out = _arr(ctx.xp, ctx.xp.tan(a._data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx._stored_tensors
        return grad * (out * out + 1)


class Asin(Function):
    """out = asin(a);  grad_a = grad / sqrt(1 - a**2)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.arcsin(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / sqrt(1 - a * a)


class Acos(Function):
    """out = acos(a);  grad_a = -grad / sqrt(1 - a**2)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.arccos(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return -grad / sqrt(1 - a * a)


class Atan(Function):
    """out = atan(a);  grad_a = grad / (1 + a**2)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.arctan(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / (a * a + 1)


class Sinh(Function):
    """out = sinh(a);  grad_a = grad * cosh(a)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.sinh(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * cosh(a)


class Cosh(Function):
    """out = cosh(a);  grad_a = grad * sinh(a)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.cosh(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * sinh(a)


class Asinh(Function):
    """out = asinh(a);  grad_a = grad / sqrt(a**2 + 1)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)
    _saved_shown = {"AsinhBackward1": ()}  # asinh_'s node saves nothing (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.arcsinh(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / sqrt(a * a + 1)


class Acosh(Function):
    """out = acosh(a);  grad_a = grad * rsqrt(a * a - 1) (torch's form: +inf at a = -1 and a
    -inf second derivative at a = 1, where (a - 1)(a + 1) gives -inf and nan)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)
    _saved_shown = {"AcoshBackward1": ()}  # acosh_'s node saves nothing (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.arccosh(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad * rsqrt(a * a - 1)


class Atanh(Function):
    """out = atanh(a);  grad_a = grad / (1 - a**2)"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch's)
    _saved_shown = {"AtanhBackward1": ()}  # atanh_'s node saves nothing (as torch's)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _arr(ctx.xp, ctx.xp.arctanh(a._data))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return grad / (1 - a * a)


sin = _unary(Sin, "sin", "The sine")
cos = _unary(Cos, "cos", "The cosine")
tan = _unary(Tan, "tan", "The tangent")
asin = _unary(Asin, "asin", "The arcsine")
acos = _unary(Acos, "acos", "The arccosine")
atan = _unary(Atan, "atan", "The arctangent")
sinh = _unary(Sinh, "sinh", "The hyperbolic sine")
cosh = _unary(Cosh, "cosh", "The hyperbolic cosine")
asinh = _unary(Asinh, "asinh", "The inverse hyperbolic sine")
acosh = _unary(Acosh, "acosh", "The inverse hyperbolic cosine")
atanh = _unary(Atanh, "atanh", "The inverse hyperbolic tangent")
arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh

# --- in-place forms ---

floor_ = _inplace(floor)
ceil_ = _inplace(ceil)
trunc_ = _inplace(trunc)
fix_ = trunc_
frac_ = _inplace(frac)
sgn_ = _inplace(sgn)
exp2_ = _inplace(exp2)
expm1_ = _inplace(expm1)
log2_ = _inplace(log2)
log10_ = _inplace(log10)
log1p_ = _inplace(log1p)
rsqrt_ = _inplace(rsqrt)
square_ = _inplace(square)
reciprocal_ = _inplace(reciprocal)


def _fast(op, kernel):
    """op (an in-place op from _inplace) with a first try of fast_unary_(input, kernel): the
    kernel writes into a float32/float64 root's memory when no graph is recorded."""

    def fast(input):
        from minitorch._ops.inplace import fast_unary_

        return input if fast_unary_(input, kernel) else op(input)

    fast.__name__ = fast.__qualname__ = op.__name__
    fast.__doc__ = op.__doc__
    return fast


# (x ** 2 and 1 / x are NumPy's square and reciprocal, bit for bit)
square_ = _fast(square_, lambda xp, x: xp.square(x, out=x))
reciprocal_ = _fast(reciprocal_, lambda xp, x: xp.reciprocal(x, out=x))
sin_ = _inplace(sin)
cos_ = _inplace(cos)
tan_ = _inplace(tan)
asin_ = _inplace(asin)
acos_ = _inplace(acos)
atan_ = _inplace(atan)
sinh_ = _inplace(sinh)
cosh_ = _inplace(cosh)
# torch's nodes for these three are AcoshBackward1 & co, whose backward raises "the derivative
# for 'inplace version of acosh' is not implemented"; minitorch's compute the gradient (below).
asinh_ = _inplace(asinh, "AsinhBackward1")
acosh_ = _inplace(acosh, "AcoshBackward1")
atanh_ = _inplace(atanh, "AtanhBackward1")
for _op in (asinh_, acosh_, atanh_):
    _op.__doc__ += (
        "\n\n    Differences from torch: backward through it gives the gradient, where torch's "
        "node\n    raises NotImplementedError (\"the derivative for 'inplace version of ...' is "
        "not\n    implemented\")."
    )
del _op
arcsin_, arccos_, arctan_ = asin_, acos_, atan_
arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_


def round_(input, *args, decimals=DEFAULT_ZERO):
    """In-place round. Mirrors torch.Tensor.round_ and torch.round_."""
    from minitorch._ops.inplace import apply_inplace, fast_unary_

    if args:
        raise _round_args_error("round_", input, args, decimals)
    if decimals is DEFAULT_ZERO:  # NOTE [ round's decimals ]
        if fast_unary_(input, _rint_kernel):
            return input
        return apply_inplace(input, _round0, "round_")
    if decimals.__class__ is not int:
        try:
            decimals = index(decimals, "round_", "decimals")
        except TypeError:
            from minitorch._ops._parser_errors import parsed_error

            raise parsed_error("round_", (("input", input), ("decimals", decimals))) from None

    if decimals == 0:  # (given: round_vml_cpu's error for an integer or bool tensor)
        if fast_unary_(input, _rint_kernel):  # (float32/float64, no graph: no node to name)
            return input
        if isinstance(input, Tensor) and not input.dtype.is_floating_point:
            raise _not_implemented("round_vml_cpu", input.dtype)
    return apply_inplace(input, lambda s: round(s, decimals=decimals), "round_")


def _rint_kernel(xp, x):
    xp.rint(x, out=x)  # Round's kernel
