"""Activation kernels (hardtanh, leaky_relu, elu/selu/celu, gelu, silu, mish, softplus, ...).

Each is a primitive for numerical stability (no overflowing exp) and one kernel per call;
nn.functional calls them by torch's F signature, `inplace=` included. Only selu and celu (and
their in-place forms) are torch.* names, so only they are exported into minitorch.
"""

from __future__ import annotations

import math
import numbers
import struct
import warnings

from minitorch import _dtype
from minitorch import _memory_format as _mf
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    expm1_array,
    log1p_array,
    maximum_array,
    minimum_array,
    opmath_array,
    opmath_dtype,
    type_name,
    zeros_of,
)
from minitorch._ops.inplace import write_out
from minitorch._ops.pointwise import (
    Sigmoid,
    _check_float_bound,
    _out_exact,
    exp,
    sigmoid,
    tanh,
    where,
)
from minitorch._ops.pointwise_more import _arr, _check_tensor, _not_implemented, _short
from minitorch._tensor import Tensor
from minitorch._tensor_methods import _at
from minitorch._tensor_methods import _number_arg as number_arg
from minitorch.autograd.function import Function, _DelayedError, fast_path, name_node, plain_result
from minitorch.autograd.grad_mode import state as _grad_state

# fmt: off
__all__ = ["selu", "celu", "selu_", "celu_"]
# fmt: on

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_K = math.sqrt(2.0 / math.pi)
_TANH_C = 0.044715


def _number(x, op: str, name: str, pos: int | None = None):
    """number_arg (NOTE [ Number-like arguments ]) that also refuses what is no number (None,
    a string) with torch's TypeError, rather than failing later inside the kernel's arithmetic."""
    x = number_arg(x, op, name, pos)
    if x.__class__ is not float and not isinstance(x, numbers.Number):
        where = _at(pos, name, op)
        raise TypeError(f"{op}(): argument '{name}'{where} must be Number, not {type_name(x)}")
    return x


def _float_only(x, kernel: str, op: str):
    _check_tensor(x, op)
    if not x.dtype.is_floating_point:
        raise _not_implemented(kernel, x.dtype)


def _check_out_first(input, out) -> None:
    """torch's structured kernels (gelu, softplus, hardshrink) check out=`s dtype (it must be
    the input's) before the input's own dtype: gelu(int64 tensor, out=float32 tensor) raises
    the out mismatch, not the missing int64 kernel."""
    if isinstance(out, Tensor) and isinstance(input, Tensor) and out.dtype is not input.dtype:
        _out_exact(input, out)


# torch's own in-place kernels for these have their own node (NOTE [ Composite node names ])
_INPLACE_NODE = {
    "elu": "EluBackward1",
    "selu": "EluBackward1",
    "celu": "CeluBackward1",
    "leaky_relu": "LeakyReluBackward1",
    "threshold": "ThresholdBackward1",
}


def _result(input: Tensor, inplace: bool, compute, op: str) -> Tensor:
    """compute(input), or written into input when inplace (F's `inplace=True`)."""
    if not inplace:
        return compute(input)
    from minitorch._ops.inplace import apply_inplace

    out = apply_inplace(input, compute, op + "_")
    name = _INPLACE_NODE.get(op)
    # threshold_'s last op is a where(cond, value, x): torch's node lists the input alone
    shown = (2,) if op == "threshold" else None
    return out if name is None else name_node(out, name, shown=shown)


class _InplaceNegativeSlope(_DelayedError):
    """out = a; its backward raises `msg`. torch's in-place leaky_relu_ / elu_ / celu_ save
    their result, not their input, and read the input's sign off it in backward, which a
    negative slope (alpha) makes impossible: torch refuses at backward, not at the forward, and
    so does this node at the end of such an in-place op. (minitorch keeps the input, so it could
    compute the gradient; it refuses to match torch.)"""


_INPLACE_NEGATIVE_SLOPE = (
    "In-place {} backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead."
)


def _refuse_backward(compute, op: str):
    """compute, whose result's backward raises torch's error for in-place `op` with a negative
    slope (see _InplaceNegativeSlope); only on that rare path."""
    message = _INPLACE_NEGATIVE_SLOPE.format(op)
    if op == "leakyReLu":  # torch's leaky_relu_ message goes on (elu_'s and celu_'s stop)
        message += (
            " File an issue at https://github.com/pytorch/pytorch if you do require supporting "
            "in-place leakRelu backward calculation with negative slope"
        )
    return lambda x: _InplaceNegativeSlope.apply(compute(x), msg=message)


def _wide(grad, *saved):
    """(half dtype or None, grad, *saved): a half grad and the saved tensors widened to float32
    for the Tensor backward formulas below, whose result the caller rounds once (`_narrow`), as
    torch's fused backward kernels compute in float32."""
    if grad.dtype in _dtype.HALF_FLOATS:
        return (grad.dtype, grad.float(), *(t.float() for t in saved))
    return (None, grad, *saved)


def _narrow(dt, r):
    return r if dt is None else r.to(dt)


def _one(c) -> bool:
    """Whether the number c is the int or float 1, whose product with an array (or quotient)
    a kernel may skip: x * 1 is x, bit for bit (a signaling NaN aside, which no kernel's result
    is). Not for other number types, a complex 1 included, which change the product's dtype."""
    return (c.__class__ is float or c.__class__ is int) and c == 1


def _softplus1(xp, z):
    """log(1 + exp(z)) as max(z, 0) + log1p(exp(-|z|)) (softplus for beta 1, no threshold),
    in a new array, in Softplus's passes (max by maximum_array: NumPy's clip loop on the host;
    a backend whose clip and maximum differ in a zero's sign gives the same sum)."""
    out = _arr(xp, xp.abs(z))
    xp.negative(out, out=out)
    xp.exp(out, out=out)
    log1p_array(xp, out, out=out)
    return xp.add(out, maximum_array(xp, 0, z), out=out)


# The kernels below select with the backend's select/keep, which on the CPU avoid NumPy's
# branching where (NOTE [ Branch-free selects ] in _backend/numpy_backend.py).
_INT_OF_SIZE = {2: "int16", 4: "int32", 8: "int64"}
_SIGN_OF_SIZE = {4: -(2**31), 8: -(2**63)}  # the sign bit of float32 and float64, as integers

# NOTE [ Gradient layout ]
# A Tensor backward formula over a gradient and an input laid out differently (a transposed
# input, a contiguous gradient) gives a row-major result (NumPy's choice where its operands
# disagree; torch's too when the gradient is row-major). The data-level backwards that write
# into buffers laid out as the input leave that case to the formula, so both paths agree.


# --- piecewise linear ---


class Hardtanh(Function):
    """out = clamp(a, lo, hi);  grad_a = 0 where a <= lo or a >= hi, else grad (a NaN a passes
    the gradient, as torch's hardtanh_backward)"""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_min_val, _saved_max_val (as torch)
    _saved_attrs = {"min_val": lambda node: node.bounds[0], "max_val": lambda node: node.bounds[1]}

    @staticmethod
    def forward(ctx, a, *, min_val, max_val):
        ctx.save_for_backward(a)
        ctx.bounds = (min_val, max_val)
        x = a._data
        return _arr(ctx.xp, ctx.xp.clip(x, min_val, max_val).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        lo, hi = ctx.bounds
        return HardtanhBackward.apply(grad, a, min_val=lo, max_val=hi)

    @staticmethod
    def _backward_data(ctx, grad):
        if grad.itemsize == 2:  # number bounds against half: the Tensor comparisons
            return NotImplemented
        (a,) = ctx._stored_arrays()
        lo, hi = ctx.bounds
        return ctx._out_device.backend.keep(~((a <= lo) | (a >= hi)), grad)  # NaN a: kept


class HardtanhBackward(Function):
    """out = 0 where a <= lo or a >= hi, else grad (NaN a: grad);  grad_grad =
    HardtanhBackward(g, a),  grad_a = 0
    (NOTE [ Zero gradients of piecewise-linear backward ])"""

    _node_name = "HardtanhBackwardBackward0"
    _saved_names = Hardtanh._saved_names  # (as torch's double-backward node)
    _saved_attrs = Hardtanh._saved_attrs

    @staticmethod
    def forward(ctx, grad, a, *, min_val, max_val):
        ctx.save_for_backward(a)
        ctx.bounds = (min_val, max_val)
        # outside, not inside: a NaN a is neither
        if a.dtype in _dtype.HALF_FLOATS:
            # torch's kernel compares in float32 with the float32 bounds, not with the bounds
            # rounded to half (an input equal to the rounded bound may lie inside the bound).
            # See NOTE [ Half-precision arithmetic ]
            x, f32 = opmath_array(a._data), ctx.xp.float32
            outside = (x <= f32(min_val)) | (x >= f32(max_val))
        else:
            outside = ((a <= min_val) | (a >= max_val))._data
        return grad._device.backend.keep(~outside, grad._data)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx._stored_tensors
        lo, hi = ctx.bounds
        needs = ctx.needs_input_grad
        return (
            HardtanhBackward.apply(g, a, min_val=lo, max_val=hi) if needs[0] else None,
            zeros_of(a) if needs[1] else None,
        )


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(input, min_val, max_val). Mirrors torch.nn.functional.hardtanh."""
    _check_tensor(input, "hardtanh")
    if input._data.dtype.kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    try:
        min_val = _number(min_val, "hardtanh", "min_val", 2)  # NOTE [ Number-like arguments ]
        max_val = _number(max_val, "hardtanh", "max_val", 3)
    except TypeError:
        # torch's Python wrapper compares the bounds before its parser reads them: that
        # comparison's own error (a list, None, a tensor of several elements) comes first
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val") from None
        raise
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not -65504.0 <= min_val <= max_val <= 65504.0:  # rare: See _check_float_bound
        for bound in (min_val, max_val):
            if bound.__class__ in (float, int):
                _check_float_bound(bound, input.dtype)
    if input._data.dtype.kind == "u" and (min_val < 0 or max_val < 0):
        # torch refuses rather than wrap the limit (clamp's uint8 reading of -1 is 255)
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _result(
        input, inplace, lambda x: Hardtanh.apply(x, min_val=min_val, max_val=max_val), "hardtanh"
    )


def relu6(input, inplace=False):
    """min(max(input, 0), 6). Mirrors torch.nn.functional.relu6."""
    _check_tensor(input, "relu6")  # torch's own parser (relu6 calls hardtanh in its kernel)
    return hardtanh(input, 0, 6, inplace)  # int bounds, as torch's (grad_fn._saved_max_val: 6)


_SCALE_MIN = 1 << 11  # below this, the select is as cheap


def _slope_factor(f, slope):
    """1 - slope in the float type f, where (a > 0) * (1 - slope) + slope gives exactly 1 and
    the slope rounded to f (as grad * slope reads it), else None. True for a slope in [0, 1]
    (1 - slope is exact from 1/2 up, and its rounding below is less than half of 1's ulp); a
    check, not that proof, decides. grad * 1 is grad bit for bit, but for a signaling NaN."""
    if slope.__class__ is not float and slope.__class__ is not int or not 0 <= slope <= 1:
        return None
    s, one = f(slope), f(1)
    factor = one - s
    return factor if one * factor + s == one and f(0) * factor + s == s else None


class LeakyRelu(Function):
    """out = a if a > 0 else slope * a;  grad_a = grad if a > 0 else slope * grad"""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_negative_slope (as torch)
    _saved_attrs = {"negative_slope": "slope"}
    _saved_shown = {"LeakyReluBackward1": ("negative_slope",)}  # leaky_relu_'s saves its result

    @staticmethod
    def forward(ctx, a, *, negative_slope):
        ctx.save_for_backward(a)
        ctx.slope = negative_slope
        x = a._data
        y = opmath_array(x)
        scaled = y * negative_slope
        if not y.ndim:
            out = ctx.xp.where(y > 0, y, scaled)
        elif 0 < negative_slope <= 1 and y.dtype.type(negative_slope) > 0:
            # where(y > 0, y, y * slope) is the larger of the two (bit for bit) for a slope in
            # (0, 1], the smaller for one above 1: two passes, no select (NOTE [ Branch-free
            # selects ]). (A slope rounding to 0 would pick inf * 0 = NaN over an inf y.)
            out = ctx.xp.maximum(y, scaled, out=scaled)
        elif negative_slope > 1:
            out = ctx.xp.minimum(y, scaled, out=scaled)
        else:
            out = a._device.backend.select(y > 0, y, scaled)
        return _arr(ctx.xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return LeakyReluBackward.apply(grad, a, negative_slope=ctx.slope)

    @staticmethod
    def _backward_data(ctx, grad):
        if grad.itemsize == 2:  # a number operand: widened (NOTE [ Half-precision arithmetic ])
            return NotImplemented
        (a,) = ctx._stored_arrays()
        slope = ctx.slope
        if (
            ctx._out_device.type == "cpu"
            and grad.size >= _SCALE_MIN
            and grad.strides == a.strides
            and grad.flags.forc
        ):
            factor = _slope_factor(grad.dtype.type, slope)
            if factor is not None:
                # grad times 1 (a > 0) or the slope (else): the select's bits, in three
                # passes, not seven ((2048, 512) float32: 3.5 -> 1.1 ms)
                f = (a > 0).astype(grad.dtype)
                f *= factor
                f += grad.dtype.type(slope)
                return ctx.xp.multiply(grad, f, out=f)
        return ctx._out_device.backend.select(a > 0, grad, grad * slope)


class LeakyReluBackward(Function):
    """out = grad if a > 0 else slope * grad;  grad_grad = LeakyReluBackward(g, a),  grad_a = 0
    (NOTE [ Zero gradients of piecewise-linear backward ])"""

    _node_name = "LeakyReluBackwardBackward0"
    _saved_names = ("self",)  # grad_fn._saved_self, _saved_negative_slope (as torch)
    _saved_attrs = {"negative_slope": "slope"}

    @staticmethod
    def forward(ctx, grad, a, *, negative_slope):
        ctx.save_for_backward(a)
        ctx.slope = negative_slope
        g = grad._data
        if opmath_dtype(g.dtype):  # half: the product in float32, rounded once, as torch
            scaled = (g.astype("float32") * negative_slope).astype(g.dtype)
        else:
            scaled = g * negative_slope
        return grad._device.backend.select(a._data > 0, g, scaled)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            LeakyReluBackward.apply(g, a, negative_slope=ctx.slope) if needs[0] else None,
            zeros_of(a) if needs[1] else None,
        )


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """max(0, input) + negative_slope * min(0, input). Mirrors torch.nn.functional.leaky_relu."""
    _float_only(input, "leaky_relu_cpu", "leaky_relu")
    # NOTE [ Number-like arguments ]
    negative_slope = _number(negative_slope, "leaky_relu", "negative_slope", 2)
    if isinstance(negative_slope, complex):
        raise RuntimeError("value cannot be converted to type float without overflow")

    def compute(x):
        return LeakyRelu.apply(x, negative_slope=negative_slope)

    if inplace and negative_slope < 0:
        compute = _refuse_backward(compute, "leakyReLu")  # (torch's spelling)
    return _result(input, inplace, compute, "leaky_relu")


_PRELU_MAX_MIN = 1 << 11  # below this, checking the weights costs more than the select


class Prelu(Function):
    """out = a if a > 0 else w * a (w broadcast against a);  grad_a = grad if a > 0 else
    grad * w,  grad_w = 0 if a > 0 else grad * a: selected, not summed, so an infinite w leaves
    the positive branch's gradient as it is (a mask times w would make it NaN)"""

    _node_name = "PreluKernelBackward0"
    _saved_names = ("self", "weight")  # grad_fn._saved_self, _saved_weight (as torch)

    @staticmethod
    def forward(ctx, a, w):
        ctx.save_for_backward(a, w)
        x = a._data
        scaled = x * w._data
        if x.size >= _PRELU_MAX_MIN and x.itemsize >= 4 and a._device.type == "cpu":
            wd = w._data
            if ((wd > 0) & (wd <= 1)).all():  # (CPU data: no device synchronisation)
                # LeakyRelu's maximum: the select's result, bit for bit, where every weight is
                # in (0, 1] (the usual 0.25 included); two passes, not seven ((2048, 512)
                # float32: 2.0 -> 0.8 ms)
                return ctx.xp.maximum(x, scaled, out=scaled)
        return _arr(ctx.xp, a._device.backend.select(x > 0, x, scaled))

    @staticmethod
    def backward(ctx, grad):
        a, w = ctx._stored_tensors
        return PreluBackward.apply(grad, a, w)  # the engine sums grad_w to w's shape


class PreluBackward(Function):
    """(grad_a, grad_w) of Prelu, both of a's shape. Its own gradients, for upstream (ga, gw):
    grad_grad = ga if a >= 0 else ga * w + gw * a,  grad_a = 0 if a >= 0 else grad * gw,
    grad_w = 0 if a >= 0 else grad * ga. (As torch's double backward, a = 0 takes the positive
    branch here, though the forward's gradient there is grad * w.)"""

    _node_name = "PreluKernelBackwardBackward0"
    _saved_names = ("grad_output", "self", "weight")

    @staticmethod
    def forward(ctx, grad, a, w):
        ctx.save_for_backward(grad, a, w)
        xp = ctx.xp
        g, x = grad._data, a._data
        pos = x > 0
        backend = a._device.backend  # branch-free selects (NOTE [ Branch-free selects ])
        grad_a = backend.select(pos, g, g * w._data)
        grad_w = backend.keep(~pos, g * x)
        return _arr(xp, grad_a), _arr(xp, grad_w)

    @staticmethod
    def backward(ctx, ga, gw):
        grad, a, w = ctx._stored_tensors
        needs = ctx.needs_input_grad
        pos = a >= 0
        return (
            where(pos, ga, ga * w + gw * a) if needs[0] else None,
            where(pos, 0.0, grad * gw) if needs[1] else None,
            where(pos, 0.0, grad * ga) if needs[2] else None,
        )


def prelu_kernel(input, w):
    """Prelu for torch's checked input and its weight shaped to broadcast over the channels."""
    return Prelu.apply(input, w)


class Hardsigmoid(Function):
    """out = clamp(a + 3, 0, 6) / 6;  grad_a = grad / 6 where -3 < a < 3, else 0"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        # clip(y + 3, 0, 6) / 6 over one buffer: each fresh temporary of a big array costs its
        # page faults ((2048, 512) float32: 0.91 -> 0.66 ms)
        out = _arr(xp, y + 3)
        xp.clip(out, 0, 6, out=out)
        xp.divide(out, 6, out=out)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return HardsigmoidBackward.apply(grad, a)


# 1/6 rounded to float32: torch's hardsigmoid backward multiplies by it in every dtype (float64
# too), which is not dividing by 6 (float32: 1 ulp apart for about a third of the gradients)
_ONE_SIXTH_F32 = 0.1666666716337204


class HardsigmoidBackward(Function):
    """out = grad * float32(1/6) where -3 < a < 3, else 0;  grad_grad = HardsigmoidBackward(g,
    a),  grad_a = 0 (NOTE [ Zero gradients of piecewise-linear backward ])"""

    _node_name = "HardsigmoidBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, a):
        ctx.save_for_backward(a)
        x, g = a._data, grad._data
        if opmath_dtype(g.dtype):  # half: the product in float32, rounded once, as torch
            scaled = (g.astype("float32") * _ONE_SIXTH_F32).astype(g.dtype)
        else:
            scaled = g * _ONE_SIXTH_F32
        return grad._device.backend.keep((x > -3) & (x < 3), scaled)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            HardsigmoidBackward.apply(g, a) if needs[0] else None,
            zeros_of(a) if needs[1] else None,
        )


def hardsigmoid(input, inplace=False):
    """relu6(input + 3) / 6. Mirrors torch.nn.functional.hardsigmoid."""
    _float_only(input, "hardsigmoid_cpu", "hardsigmoid")
    return _result(input, inplace, Hardsigmoid.apply, "hardsigmoid")


class Hardswish(Function):
    """out = a * clamp(a + 3, 0, 6) / 6;  grad_a = 0 up to -3, grad (a/3 + 1/2) between, grad
    from 3 on"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        # y * clip(y + 3, 0, 6) / 6 over one buffer
        out = _arr(xp, y + 3)
        xp.clip(out, 0, 6, out=out)
        xp.multiply(y, out, out=out)
        xp.divide(out, 6, out=out)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        dt, grad, a = _wide(grad, *ctx._stored_tensors)
        # torch's boundaries: 0 at a = -3 and grad at a = 3 (the slopes of the outer pieces)
        return _narrow(dt, where(a <= -3, 0.0, where(a < 3, grad * (a / 3 + 0.5), grad)))

    @staticmethod
    def _backward_data(ctx, grad):
        """backward's formula, bit for bit, with the backend's select/keep for its two where's
        ((1000, 1000) float32 in [-5, 5], the backward alone: 2.2 ms -> 1.7 ms; torch 0.2 ms,
        the selects' masks are most of the rest)."""
        (a,) = ctx._stored_arrays()
        if grad.itemsize == 2 or grad.strides != a.strides:
            return NotImplemented  # half: widened; NOTE [ Gradient layout ]
        xp = ctx.xp
        backend = ctx._out_device.backend
        mid = _arr(xp, a / 3)
        mid += 0.5
        xp.multiply(grad, mid, out=mid)
        out = backend.select(a < 3, mid, grad)
        return backend.keep(~(a <= -3), out)  # NaN a: grad, as torch


def hardswish(input, inplace=False):
    """input * relu6(input + 3) / 6. Mirrors torch.nn.functional.hardswish."""
    _float_only(input, "hardswish_cpu", "hardswish")
    return _result(input, inplace, Hardswish.apply, "hardswish")


# --- shrinkage and threshold ---
# NOTE [ Shrink and threshold comparisons ]
# torch's kernels compare these ops' inputs with their number arguments in different precisions,
# which shows for half inputs and arguments that are not representable: hardshrink and the
# backward of both shrinks compare in the input's dtype with lambd rounded to it (so a half input
# equal to half(lambd) is zeroed); softshrink's forward, threshold and its backward compare (and
# compute) in the opmath dtype (float32 for half), and an integer input's threshold and value are
# truncated to integers. A NaN input passes through every forward and lets its gradient through.


def _outside(x, lambd):
    """Where |x| > lambd (and at NaN), with lambd rounded to x's dtype: where the shrinks'
    backward passes the gradient (NOTE [ Shrink and threshold comparisons ])."""
    lam = x.dtype.type(lambd)
    return ~((x >= -lam) & (x <= lam))


class Hardshrink(Function):
    """out = a where |a| > lambd, else 0;  grad_a = grad where |a| > lambd, else 0"""

    _saved_names = ("self",)  # grad_fn._saved_self and _saved_lambd (as torch's)
    _saved_attrs = {"lambd": "lambd"}

    @staticmethod
    def forward(ctx, a, *, lambd):
        ctx.save_for_backward(a)
        ctx.lambd = lambd
        x = a._data
        return _arr(ctx.xp, a._device.backend.keep(_outside(x, lambd), x))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return HardshrinkBackward.apply(grad, a, lambd=ctx.lambd)


class HardshrinkBackward(Function):
    """out = grad where |a| > lambd, else 0;  grad_grad = HardshrinkBackward(g, a),  grad_a = 0
    (NOTE [ Zero gradients of piecewise-linear backward ]). softshrink's backward is the same."""

    _node_name = "HardshrinkBackwardBackward0"
    _saved_names = ("self",)  # grad_fn._saved_self, _saved_lambd (as torch)
    _saved_attrs = {"lambd": "lambd"}

    @staticmethod
    def forward(ctx, grad, a, *, lambd):
        ctx.save_for_backward(a)
        ctx.lambd = lambd
        return grad._device.backend.keep(_outside(a._data, lambd), grad._data)

    @classmethod
    def backward(cls, ctx, g):
        (a,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            cls.apply(g, a, lambd=ctx.lambd) if needs[0] else None,
            zeros_of(a) if needs[1] else None,
        )


class SoftshrinkBackward(HardshrinkBackward):
    """out = grad where |a| > lambd, else 0 (HardshrinkBackward under softshrink's node name)"""

    _node_name = "SoftshrinkBackwardBackward0"


def hardshrink(input, lambd=0.5, *, out=None):
    """input where |input| > lambd, else 0. Mirrors torch.nn.functional.hardshrink."""
    _check_tensor(input, "hardshrink")
    if out is not None:
        _check_out_first(input, out)
    if not input.dtype.is_floating_point:
        raise _not_implemented("hardshrink_cpu", input.dtype)
    lambd = _number(lambd, "hardshrink", "lambd", 2)  # NOTE [ Number-like arguments ]
    result = Hardshrink.apply(input, lambd=lambd)
    return result if out is None else _out_exact(result, out)  # (a structured kernel: same dtype)


class Softshrink(Function):
    """out = a - lambd above lambd, a + lambd below -lambd, else 0;  grad_a = grad where
    |a| > lambd, else 0"""

    _saved_names = Hardshrink._saved_names
    _saved_attrs = Hardshrink._saved_attrs

    @staticmethod
    def forward(ctx, a, *, lambd):
        ctx.save_for_backward(a)
        ctx.lambd = lambd
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        lam = y.dtype.type(lambd)
        if a._device.type != "cpu" or not y.ndim:
            # the middle piece is y * 0, so a NaN passes through as in torch
            out = xp.where(y > lam, y - lam, xp.where(y < -lam, y + lam, y * 0))
        else:
            out = Softshrink.kernel(xp, y, lam)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def kernel(xp, y, lam):
        """The where's above without a select (NOTE [ Branch-free selects ]), bit for bit:
        y - clip(y, -lam, lam) is y - lam above lam, y + lam below -lam and +0 between, and y's
        sign bit, or'ed in, makes the last y * 0 (-0 for a negative y), as the other two
        already have y's sign. A NaN y stays NaN (clip passes it). Four passes: (1000, 1000)
        float32, 20 ms with the where's, 0.35 ms (torch: 0.11 ms)."""
        out = xp.clip(y, -lam, lam)
        xp.subtract(y, out, out=out)
        size = y.dtype.itemsize
        bits = out.view(_INT_OF_SIZE[size])
        sign = xp.bitwise_and(y.view(bits.dtype), _SIGN_OF_SIZE[size])
        xp.bitwise_or(bits, sign, out=bits)
        return out

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return SoftshrinkBackward.apply(grad, a, lambd=ctx.lambd)


def softshrink(input, lambd=0.5, *, out=None):
    """input -+ lambd outside [-lambd, lambd], else 0. Mirrors torch.nn.functional.softshrink."""
    _check_tensor(input, "softshrink")
    if not input.dtype.is_floating_point:
        raise _not_implemented("softshrink_check", input.dtype)
    lambd = _number(lambd, "softshrink", "lambd", 2)  # NOTE [ Number-like arguments ]
    top = _dtype.finfo(input.dtype).max
    if not 0 <= lambd <= top:  # a NaN lambd too
        raise RuntimeError(
            f"lambda must be in range [0, {top:g}] for input dtype "
            f"{_short(input.dtype)}, but found {lambd:g}"
        )
    result = Softshrink.apply(input, lambd=lambd)
    return result if out is None else _out_exact(result, out)  # (checked after lambd, as torch)


def _threshold_args(y, threshold, value):
    """threshold and value as torch's kernel compares and writes them, for y, the input array in
    its opmath dtype: in that dtype, truncated for integers (NOTE [ Shrink and threshold
    comparisons ])."""
    if y.dtype.kind in "iu":
        return int(threshold), int(value)
    return y.dtype.type(threshold), y.dtype.type(value)


class Threshold(Function):
    """out = a where a > threshold, else value;  grad_a = grad where a > threshold, else 0"""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_threshold (as torch)
    _saved_attrs = {"threshold": "threshold"}

    @staticmethod
    def forward(ctx, a, *, threshold, value):
        ctx.save_for_backward(a)
        ctx.threshold = threshold
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        th, v = _threshold_args(y, threshold, value)
        if y.dtype.kind == "f" and y.ndim:
            out = a._device.backend.select(y <= th, xp.asarray(v), y)
        else:  # integers: the value in y's dtype as where gives it
            out = xp.where(y <= th, v, y)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return ThresholdBackward.apply(grad, a, threshold=ctx.threshold)


class ThresholdBackward(Function):
    """out = grad where a > threshold, else 0;  grad_grad = ThresholdBackward(g, a),  grad_a = 0
    (NOTE [ Zero gradients of piecewise-linear backward ])"""

    _node_name = "ThresholdBackwardBackward0"
    _saved_names = ("self",)  # grad_fn._saved_self, _saved_threshold (as torch)
    _saved_attrs = {"threshold": "threshold"}

    @staticmethod
    def forward(ctx, grad, a, *, threshold):
        ctx.save_for_backward(a)
        ctx.threshold = threshold
        y = opmath_array(a._data)
        g = grad._data
        th, _ = _threshold_args(y, threshold, 0)
        return grad._device.backend.keep(~(y <= th), g)  # NaN a: kept

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            ThresholdBackward.apply(g, a, threshold=ctx.threshold) if needs[0] else None,
            zeros_of(a) if needs[1] else None,
        )


def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, else value. Mirrors torch.nn.functional.threshold."""
    return _threshold(input, threshold, value, inplace)


# torch's F.threshold is its F._threshold (the name in its errors and repr; pickle finds it
# there): nn.functional binds that name
threshold.__name__ = threshold.__qualname__ = "_threshold"
threshold.__module__ = "minitorch.nn.functional"


def threshold_(input, threshold, value):
    """In-place threshold. Mirrors torch.nn.functional.threshold_."""
    return _threshold(input, threshold, value, True)


def _checked(v, name: str, kind: str, itemsize: int):
    """The number v as c10's checked conversion to the dtype `name` (of NumPy kind `kind`)
    takes it: RuntimeError beyond the dtype's range (a NaN or infinite one into an integer
    dtype; a finite one beyond a narrow float's largest), and a negative int wrapped into an
    unsigned dtype, which accepts down to -max (uint8 reads -1 as 255)."""
    if isinstance(v, complex):  # (a real dtype holds no imaginary part)
        if v.imag:
            raise _dtype.overflow_error(name)
        v = v.real
    if kind in "iu":
        bits = 8 * itemsize
        top = (1 << bits) - 1 if kind == "u" else (1 << (bits - 1)) - 1
        low = -top - 1 if kind == "i" else -top if v.__class__ is int else 0
        if low <= v <= top:  # (False for NaN)
            return v % (top + 1) if kind == "u" and v < 0 else v
    elif name not in _dtype.FLOAT_TOP or not abs(v) > _dtype.FLOAT_TOP[name] or v - v != 0:
        return v  # float64, or within range, or inf / NaN
    raise _dtype.overflow_error(name)


def _threshold(input, th, value, inplace):
    _check_tensor(input, "threshold")
    if input._data.dtype.kind == "b":
        raise _not_implemented("threshold_cpu", input.dtype)
    th = _number(th, "threshold", "threshold", 2)  # NOTE [ Number-like arguments ]
    value = _number(value, "threshold", "value", 3)
    dt = input._data.dtype
    # torch converts both with c10's checked conversion: the threshold to the opmath dtype
    # (float32 for the half dtypes), the value to the input's
    th = _checked(th, "float32" if opmath_dtype(dt) else dt.name, dt.kind, dt.itemsize)
    value = _checked(value, dt.name, dt.kind, dt.itemsize)

    def compute(x):
        return Threshold.apply(x, threshold=th, value=value)

    if not inplace:
        return compute(input)
    from minitorch._ops.inplace import apply_inplace

    # torch's in-place kernel has its own node (NOTE [ Composite node names ])
    return name_node(apply_inplace(input, compute, "threshold_"), "ThresholdBackward1")


# --- exponential family ---


class Elu(Function):
    """out = s a if a > 0 else s α (exp(i a) - 1);  grad_a = grad s α i exp(i a) if a <= 0
    else grad s   (s: scale, i: input_scale; selu and celu are special cases). As torch's
    elu_backward, a NaN a takes the linear branch (grad s), and the second derivative is zero
    at a = 0 (its double backward masks with a strict a < 0). `from_result` marks torch's
    in-place forms, whose backward reads the saved result instead: see backward."""

    # grad_fn._saved_self, _saved_alpha, _saved_scale, _saved_input_scale (as torch; its
    # in-place EluBackward1 saves its result instead of self, which is not kept here)
    _saved_names = ("self",)
    _saved_attrs = {
        "alpha": lambda node: node.coefs[0],
        "scale": lambda node: node.coefs[1],
        "input_scale": lambda node: node.coefs[2],
    }
    _saved_shown = {"EluBackward1": ("alpha", "scale", "input_scale")}

    @staticmethod
    def forward(ctx, a, *, alpha, scale, input_scale, from_result=False):
        ctx.save_for_backward(a)
        ctx.coefs = (alpha, scale, input_scale)
        ctx.from_result = from_result
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        # the negative branch everywhere, in place: the select ignores it where y >= 0, so an
        # overflow to inf there is harmless (no minimum(y, 0) pass; NOTE [ Branch-free selects ]).
        # A product with a coefficient of 1 is skipped (elu's default, selu's input_scale): it
        # would give the same bits in a pass and a temporary of its own
        if _one(input_scale):
            neg = _arr(xp, expm1_array(xp, y))
        else:
            neg = _arr(xp, y * input_scale)
            expm1_array(xp, neg, out=neg)
        if not _one(alpha * scale):
            xp.multiply(neg, alpha * scale, out=neg)
        # zeros take the linear branch: torch's elu(±0) is ±0 for every alpha (y * 1 is y where
        # y >= 0, where the select reads it)
        pos = y if _one(scale) else _arr(xp, y * scale)
        out = a._device.backend.select(y >= 0, pos, neg)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        if ctx.from_result:
            return Elu._backward_from_result(ctx, grad)
        dt, grad, a = _wide(grad, *ctx._stored_tensors)
        alpha, scale, input_scale = ctx.coefs
        # exp of the negative part only: the unused branch of where must stay finite. A strict
        # a < 0 (not clamp, whose gradient passes at 0) gives torch's zero second derivative at 0.
        neg_a = where(a < 0, a, 0.0)
        neg = grad * exp(neg_a * input_scale) * (scale * alpha * input_scale)
        r = name_node(where(a <= 0, neg, grad * scale), "EluBackwardBackward0")  # (torch's)
        return _narrow(dt, r)

    @staticmethod
    def _backward_from_result(ctx, grad, neg_scale=None):
        """torch's in-place elu_ / selu_ / celu_ keep their result, not their input, and take
        the negative branch's gradient as grad i (out + s α) from it: out is already rounded,
        so this differs from grad s α i exp(i a) by a few ulps, and is 0 where out rounds to
        -s α (a below about -17 in float32, -37 in float64, for i = 1). minitorch keeps the
        input, so it recomputes the rounded out here (rare path: in-place forms only).
        `neg_scale` replaces i in the formula (celu_'s)."""
        (a,) = ctx._stored_tensors
        alpha, scale, input_scale = ctx.coefs
        out = Elu.apply(a, alpha=alpha, scale=scale, input_scale=input_scale)
        half = grad.dtype in _dtype.HALF_FLOATS  # half: in float32, rounded once
        g = grad.float() if half else grad
        out = out.float() if half else out
        neg = g * (input_scale if neg_scale is None else neg_scale) * (out + alpha * scale)
        # a's sign, not out's: the same but for NaN, which takes the linear branch either way
        r = name_node(where(a <= 0, neg, g * scale), "EluBackwardBackward0")  # (torch's)
        return r.to(grad.dtype) if half else r

    @staticmethod
    def _backward_data(ctx, grad):
        if ctx.from_result:
            return NotImplemented  # see _backward_from_result
        if grad.itemsize == 2:  # number operands: widened (NOTE [ Half-precision arithmetic ])
            return NotImplemented
        (a,) = ctx._stored_arrays()
        alpha, scale, input_scale = ctx.coefs
        xp = ctx.xp
        # a > 0 takes the linear branch below: exp(a * i) may overflow there (harmlessly), so
        # a need not be clipped to 0 (NOTE [ Branch-free selects ]); products with a coefficient
        # of 1 are skipped, as in forward
        if _one(input_scale):
            neg = _arr(xp, xp.exp(a))
        else:
            neg = _arr(xp, a * input_scale)
            xp.exp(neg, out=neg)
        xp.multiply(grad, neg, out=neg)
        if not _one(scale * alpha * input_scale):
            xp.multiply(neg, scale * alpha * input_scale, out=neg)
        # NaN a: the linear branch, as torch
        return ctx._out_device.backend.select(a <= 0, neg, grad * scale)


class Celu(Elu):
    """out = max(0, a) + min(0, α (exp(a / α) - 1));  as Elu with input_scale = 1 / α, but the
    backward's input_scale is 1 / α with α rounded to float32 first, as torch's derivative
    formula for celu takes it (alpha.toFloat()): its float64 gradients are ~1e-8 relative off
    exp(a / α) for an α that float32 does not hold, and so are these."""

    _saved_attrs = {"alpha": lambda node: node.coefs[0]}  # and _saved_self (as torch)
    _saved_shown = {"CeluBackward1": ("alpha",)}

    @staticmethod
    def backward(ctx, grad):
        if ctx.from_result:  # the result at the forward's 1 / α, the formula at float32's
            return Elu._backward_from_result(ctx, grad, 1.0 / _float32(ctx.coefs[0]))
        Celu._backward_scale(ctx)
        return Elu.backward(ctx, grad)

    @staticmethod
    def _backward_data(ctx, grad):
        if ctx.from_result:
            return NotImplemented  # see Elu._backward_from_result
        Celu._backward_scale(ctx)
        return Elu._backward_data(ctx, grad)

    @staticmethod
    def _backward_scale(ctx):
        alpha, scale, _ = ctx.coefs
        ctx.coefs = (alpha, scale, 1.0 / _float32(alpha))


def _float32(v: float) -> float:
    """v rounded to float32, as torch's Scalar.toFloat() (which refuses a v past its range)."""
    f = struct.unpack("f", struct.pack("f", v))[0]
    if math.isinf(f) and not math.isinf(v):
        raise RuntimeError("value cannot be converted to type float without overflow")
    return f


def elu(input, alpha=1.0, inplace=False):
    """input if > 0, else alpha * (exp(input) - 1). Mirrors torch.nn.functional.elu."""
    _float_only(input, "elu_cpu", "elu")
    alpha = _number(alpha, "elu", "alpha", 2)  # NOTE [ Number-like arguments ]

    def compute(x):
        # (ints: torch's scale and input_scale, as grad_fn shows them)
        return Elu.apply(x, alpha=alpha, scale=1, input_scale=1, from_result=inplace)

    if inplace and alpha < 0:
        compute = _refuse_backward(compute, "elu")
    return _result(input, inplace, compute, "elu")


def selu(input, inplace=False):
    """scale * elu(input, alpha) with the self-normalizing constants. Mirrors torch.selu."""
    _float_only(input, "elu_cpu", "selu")
    return _result(
        input,
        inplace,
        lambda x: Elu.apply(
            x, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1, from_result=inplace
        ),
        "selu",
    )


def celu(input, alpha=1.0, inplace=False):
    """max(0, input) + min(0, alpha * (exp(input / alpha) - 1)). Mirrors torch.celu."""
    _float_only(input, "elu_cpu", "celu")
    alpha = _number(alpha, "celu", "alpha", 2)  # NOTE [ Number-like arguments ]
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    def compute(x):
        return Celu.apply(
            x, alpha=alpha, scale=1, input_scale=1.0 / alpha, from_result=inplace
        )

    if inplace and alpha < 0:
        compute = _refuse_backward(compute, "elu")  # (torch's celu_ is its elu_)
    return _result(input, inplace, compute, "celu")


def selu_(input):
    """In-place selu. Mirrors torch.selu_."""
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    """In-place celu. Mirrors torch.celu_."""
    return celu(input, alpha, inplace=True)


# --- smooth ---


# Abramowitz & Stegun 7.1.26: erfc(z) ~ t P(t) exp(-z^2), t = 1 / (1 + p z), for z >= 0, with an
# absolute error below 1.5e-7, about float32's resolution near 1. Float32 GELU forward and
# backward on 200k points in [-9, 9] differ from torch 2.13's by at most 1.3e-6 (outputs up to 9),
# and from float64 erf by at most 5e-7 (torch: 1e-6). The forward also writes GELU's derivative
# when a backward will need it (it shares exp(-x²/2) with Φ), so that backward is one multiply.
# Forward + backward of gelu(x).sum() on the attention block's (32, 64, 512) float32
# activations: 49 ms through SciPy's erf (float64 inside, and erf again in backward), 13 ms with
# the first version of these kernels, 9 ms with these (process time, best of 20).
_AS_P = 0.3275911
_AS_COEFFS = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
_AS_INV_K = 1.0 / (_AS_P * _SQRT_HALF)  # 1 / (1 + k|x|) = c / (c + |x|) with c = 1 / k


# NOTE [ GELU's polynomial in two squares ]
# NumPy runs one pass over the block per ufunc call, so _gelu32's cost is its pass count, and a
# pass reading two arrays costs ~1.7x one reading an array and a scalar. Horner's rule for
# t P(t) / 2 takes a multiply by the leading coefficient and four (add, multiply by t) pairs.
# Scaling t by alpha makes the quartic monic (alpha is folded into the division making t), and
# the quartic is the product of two real quadratics (its roots are two complex pairs), each
# written as (s + p)² + q with q > 0 (a sum of positives: no cancellation): three one-array
# passes each, then two two-array multiplies. With the block's scratch arrays allocated once
# and relu(x) as one maximum (not (x + |x|) / 2), the (2048, 512) float32 forward with its
# derivative went from 3.58 to 3.28 ms (best of 150, interleaved); the results moved by at
# most 2.4e-7 (float32 rounding), their distance to torch's is unchanged (1.2e-6).
# alpha = (a5 / 2)^(1/5) for A&S's leading coefficient a5; the quadratics' constants solve
# s^4 + b4 s^3 + b3 s^2 + b2 s + b1 = ((s + p1)² + q1) ((s + p2)² + q2), b_k = a_k / (2 alpha^k)
# (a test multiplies them out)
_GELU_ALPHA = (0.5 * _AS_COEFFS[0]) ** 0.2
_GELU_P1, _GELU_Q1 = -0.610715013748991, 0.5238157583527666
_GELU_P2, _GELU_Q2 = 0.007641835647017009, 0.16121380930432117

_SIGN_BIT = -(2**31)  # float32's sign bit, as an int32
# _gelu32's constants as float32 scalars (NumPy's, as x.dtype.type made them on every device),
# made once: ten scalar constructions a call fewer
_GELU32_CONSTANTS = tuple(
    _CPU.backend.xp.float32(v)
    for v in (_AS_INV_K, _AS_INV_K * _GELU_ALPHA, _GELU_P1, _GELU_Q1, _GELU_P2, _GELU_Q2,
              0.5, -0.0, -0.5, _INV_SQRT_2PI)
)  # fmt: skip
_GELU32_BOUNDS = (_CPU.backend.xp.float32(-math.inf), _CPU.backend.xp.finfo("float32").max)
# elements per pass of the float32 GELU kernel on the CPU: its seven arrays' blocks (1.3 MB) stay
# in the L2 cache; 3.28 ms for (2048, 512) against 3.32 ms with 32768 (interleaved, best of 150)
_BLOCK = 3 << 14


def _gelu32(xp, x, out, deriv, block):
    """x Φ(x) into out and, if given, Φ(x) + x φ(x) into deriv; all 1-D float32, in blocks of
    `block` elements (on the CPU, cache-sized; elsewhere the whole array: a GPU would pay a
    launch per block and op).

    x Φ(x) is even minus odd: x Φ(x) = relu(x) - |x| h with h = Φ(-|x|) = erfc(|x|/√2) / 2, so
    no branch on the sign is needed and the result keeps its relative precision far out on the
    negative side; h comes from A&S 7.1.26 (√2 and the 1/2 folded into the constants; the
    polynomial as NOTE [ GELU's polynomial in two squares ]). Each line is one pass: NumPy has
    no fused kernels, so the pass count is the cost (where, sign and copysign cost several
    passes each; abs, maximum, arithmetic and bitwise ops one)."""
    n = x.shape[0]
    if not n:
        return
    m = min(block, n)
    dt = x.dtype
    z, t, h, e = xp.empty(m, dt), xp.empty(m, dt), xp.empty(m, dt), xp.empty(m, dt)
    inv_k, s_num, p1, q1, p2, q2, half, neg_zero, neg_half, inv_sqrt_2pi = _GELU32_CONSTANTS
    neg_inf, top = _GELU32_BOUNDS
    host = xp is _CPU.backend.xp
    clip = _CPU.backend.clip_ufunc if host else xp.clip  # (np.clip: ~2.5 us more a call)
    for i in range(0, n, m):
        xb, ob = x[i : i + m], out[i : i + m]
        if xb.shape[0] != m:  # the last, shorter block
            k = xb.shape[0]
            z, t, h, e = z[:k], t[:k], h[:k], e[:k]
        # z = |x|, with a +inf x taken as the largest float: h (below) is 0 there, and |x| h
        # would be inf * 0, gelu(inf) NaN (torch: inf); a -inf x still gives NaN, as torch's
        # x Φ(x) does. One pass more than abs alone
        clip(xb, neg_inf, top, out=z)
        xp.abs(z, out=z)
        xp.add(z, inv_k, out=t)
        xp.divide(s_num, t, out=t)  # s = alpha / (1 + k|x|)
        xp.add(t, p1, out=h)
        xp.square(h, out=h)
        h += q1
        xp.add(t, p2, out=e)
        xp.square(e, out=e)
        e += q2
        h *= e
        h *= t
        xp.square(xb, out=e)
        e *= neg_half
        xp.exp(e, out=e)  # e = exp(-x²/2) = √(2π) φ(x)
        h *= e  # h = Φ(-|x|)
        # relu(x), but -0. for x <= -0.: x Φ(x) keeps x's sign where it underflows (at -0.,
        # and below -14), as torch's; maximum returns its second operand on a tie, so +0. stays.
        # On the host the same bits by clip for a big block (NOTE [ Maximum with a number ])
        maximum_array(xp, neg_zero, xb, out=ob)
        xp.multiply(z, h, out=t)
        ob -= t
        if deriv is not None:  # Φ(x) + x φ(x) = 1/2 + (sign(x) (1/2 - h) + x φ(x))
            e *= xb  # (x, not z: NaN at both infinities, 0 * inf, as torch's derivative)
            e *= inv_sqrt_2pi
            xp.subtract(half, h, out=h)  # >= 0; now give it x's sign bit (NumPy's sign and
            xp.bitwise_and(xb.view("int32"), _SIGN_BIT, out=t.view("int32"))  # copysign are
            xp.bitwise_xor(h.view("int32"), t.view("int32"), out=h.view("int32"))  # slow)
            e += h
            xp.add(e, half, out=deriv[i : i + m])


def _flat32(xp, x):
    return xp.ascontiguousarray(x, dtype="float32").reshape(-1)


class Gelu(Function):
    """out = a Φ(a) (or its tanh approximation);  grad_a = GeluBackward(grad, a) =
    grad (Φ(a) + a φ(a)) (resp. the derivative of the approximation)"""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_approximate (as torch)
    _saved_attrs = {"approximate": "approximate"}

    @staticmethod
    def forward(ctx, a, *, approximate):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        xp = ctx.xp
        x = a._data
        if approximate == "tanh":
            # half: computed in float32 and rounded once, as torch does
            y = opmath_array(x)
            if not y.ndim:
                out = 0.5 * y * (1 + xp.tanh(_TANH_K * (y + _TANH_C * y * y * y)))
                return _arr(xp, out.astype(x.dtype, copy=False))
            # 0.5 y (1 + tanh(k (y + c y y y))), the same products in the same order over two
            # buffers, not nine fresh temporaries ((2048, 512) float32: 3.6 -> 2.6 ms)
            out = _arr(xp, y * _TANH_C)
            out *= y
            out *= y
            xp.add(y, out, out=out)
            out *= _TANH_K
            xp.tanh(out, out=out)
            out += 1
            half = _arr(xp, y * 0.5)
            xp.multiply(half, out, out=out)
            return _arr(xp, out.astype(x.dtype, copy=False))
        if x.dtype.itemsize > 4:  # float64: the backend's erf
            erf = a._device.backend.special("erf")
            cdf = (xp.asarray(erf(x * _SQRT_HALF)) + 1) * 0.5
            out = x * cdf
            deriv = xp.exp(x * x * -0.5)
            deriv *= x
            deriv *= _INV_SQRT_2PI
            deriv += cdf
        else:  # float32 (half computes in float32): see _gelu32
            flat = _flat32(xp, x)
            out = xp.empty_like(flat)
            block = _BLOCK if a._device.type == "cpu" else max(flat.shape[0], 1)
            if ctx.needs_input_grad[0]:
                deriv = xp.empty_like(flat)
                _gelu32(xp, flat, out, deriv, block)
                deriv = deriv.reshape(x.shape)
            else:
                deriv = None
                _gelu32(xp, flat, out, None, block)
            # computed row-major: laid out as x again (a channels-last x stays so, as torch's)
            out = _mf.like(xp, x, out.astype(x.dtype, copy=False).reshape(x.shape))
        ctx.deriv = deriv  # Φ + x φ, for the backward (one multiply per step, not an erf)
        return _arr(xp, out)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        if ctx.approximate == "tanh":
            dt, grad, a = _wide(grad, a)
            t = tanh((a + a * a * a * _TANH_C) * _TANH_K)
            d_inner = (a * a * (3 * _TANH_C) + 1) * _TANH_K
            return _narrow(dt, grad * ((t + 1) * 0.5 + a * 0.5 * (1 - t * t) * d_inner))
        return GeluBackward.apply(grad, a, deriv=ctx.deriv)

    @staticmethod
    def _backward_data(ctx, grad):
        if ctx.approximate == "tanh":
            return Gelu._backward_tanh(ctx, grad)
        ctx._stored_arrays()  # the version check of `a`
        return GeluBackward.kernel(ctx.xp, grad, ctx.deriv)

    @staticmethod
    def _backward_tanh(ctx, grad):
        """backward's tanh formula, bit for bit: its products in its order over three buffers,
        not seventeen Tensor ops ((2048, 512) float32, forward and backward: 11 -> 6 ms)."""
        (a,) = ctx._stored_arrays()
        if grad.itemsize == 2 or grad.strides != a.strides or not a.ndim:
            return NotImplemented  # half: widened; NOTE [ Gradient layout ]
        xp = ctx.xp
        t = _arr(xp, a * a)  # t = tanh((a + a a a c) k)
        t *= a
        t *= _TANH_C
        xp.add(a, t, out=t)
        t *= _TANH_K
        xp.tanh(t, out=t)
        d = _arr(xp, a * a)  # d_inner = (a a (3 c) + 1) k
        d *= 3 * _TANH_C
        d += 1
        d *= _TANH_K
        u = _arr(xp, t * t)  # a 0.5 (1 - t t) d_inner
        xp.subtract(1, u, out=u)
        v = _arr(xp, a * 0.5)
        v *= u
        v *= d
        t += 1  # (t + 1) 0.5 + that
        t *= 0.5
        t += v
        return xp.multiply(grad, t, out=t)

    @staticmethod
    def _backward_data_owned(ctx, grad):
        if ctx.approximate == "tanh" or ctx.deriv.dtype != grad.dtype:
            return Gelu._backward_data(ctx, grad)
        ctx._stored_arrays()  # the version check of `a`
        return GeluBackward.kernel(ctx.xp, grad, ctx.deriv, out=grad)


class GeluBackward(Function):
    """out = grad (Φ(a) + a φ(a));  grad_grad = g (Φ(a) + a φ(a)),
    grad_a = g grad φ(a) (2 - a²)

    Fused (one multiply by the derivative Gelu's forward computed, instead of eight Tensor ops
    and a second erf): GELU's backward is on the per-step path of every transformer MLP; bench/
    attention_block measures it. Its own backward is in Tensor ops, so GELU stays
    differentiable to every order."""

    # grad_fn._saved_grad_output, _saved_self and _saved_approximate (as torch): the exact
    # GELU's only (the tanh form's backward is composed)
    _saved_names = ("grad_output", "self")
    _saved_attrs = {"approximate": lambda node: "none"}

    @staticmethod
    def forward(ctx, grad, a, *, deriv):
        # deriv = Φ(a) + a φ(a), computed by Gelu's forward (float32 for half inputs)
        ctx.save_for_backward(grad, a)
        return GeluBackward.kernel(ctx.xp, grad._data, deriv)

    @staticmethod
    def kernel(xp, g, deriv, out=None):
        # out: g itself, where its dtype is deriv's (NOTE [ Reused gradients ])
        out = xp.multiply(g, deriv, dtype=deriv.dtype, out=out)
        return out.astype(g.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        from minitorch._ops.special import erf

        grad, a = ctx._stored_tensors
        pdf = exp(a * a * -0.5) * _INV_SQRT_2PI
        g_grad = g_a = None
        if ctx.needs_input_grad[0]:
            g_grad = g * ((erf(a * _SQRT_HALF) + 1) * 0.5 + a * pdf)
        if ctx.needs_input_grad[1]:
            g_a = g * grad * pdf * (2 - a * a)
        return g_grad, g_a


def gelu(input=REQUIRED, *extra, approximate="none", out=None):
    """input * Φ(input), Φ the standard normal CDF ('tanh': its tanh approximation). Mirrors
    torch.nn.functional.gelu."""
    if (  # NOTE [ The no-grad fast path ]: Gelu.forward's result, no node recorded
        input.__class__ is Tensor
        and input._device is _CPU
        and out is None
        and not extra
        and not (input._requires_grad and _grad_state.enabled)
        and fast_path[0]
        and input._data.dtype.char in "fd"
        and approximate.__class__ is str
        and (approximate == "none" or approximate == "tanh")
    ):
        null = _CPU.backend.null_ctx  # (Function.apply's ctx where nothing is recorded)
        return plain_result(Gelu.forward(null, input, approximate=approximate), _CPU)
    if extra or input is REQUIRED:  # (approximate is keyword-only in torch)
        raise arity_error("gelu", extra, 1, input=input)
    if approximate not in ("none", "tanh"):
        if not isinstance(approximate, str):  # a config's True / None
            raise TypeError(
                f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}"
            )
        raise RuntimeError("approximate argument must be either none or tanh.")
    if out is not None:
        _check_out_first(input, out)
    _float_only(input, "GeluKernelImpl", "gelu")
    result = Gelu.apply(input, approximate=approximate)
    return result if out is None else _out_exact(result, out)


class Silu(Function):
    """out = a sigmoid(a);  grad_a = grad s (1 + a (1 - s)),  s = sigmoid(a)"""

    _saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        # torch's formula, y / (1 + exp(-y)), in four passes over one buffer (the audit's
        # (1000, 1000) float32: 10.4 ms for y * sigmoid(y) by a where, 0.5 ms): exp(-y)
        # overflowing to inf below about -88 (float32) gives torch's -0
        out = _arr(xp, -y)
        xp.exp(out, out=out)
        xp.add(out, 1, out=out)
        xp.divide(y, out, out=out)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        dt, grad, a = _wide(grad, *ctx._stored_tensors)
        s = sigmoid(a)
        return _narrow(dt, grad * s * (a * (1 - s) + 1))

    @staticmethod
    def _backward_data(ctx, grad):
        if grad.itemsize == 2:  # number operands: widened (NOTE [ Half-precision arithmetic ])
            return NotImplemented
        (a,) = ctx._stored_arrays()
        xp = ctx.xp
        s = Sigmoid.kernel(xp, a)
        # the Tensor formula's products in its order, over two buffers
        t = _arr(xp, 1 - s)
        xp.multiply(t, a, out=t)
        xp.add(t, 1, out=t)
        xp.multiply(s, grad, out=s)
        return xp.multiply(s, t, out=s)


def silu(input, inplace=False):
    """input * sigmoid(input). Mirrors torch.nn.functional.silu."""
    _float_only(input, "silu_cpu", "silu")
    return _result(input, inplace, Silu.apply, "silu")


class Mish(Function):
    """out = a tanh(sp(a));  grad_a = grad (t + a sigmoid(a) (1 - t²)),  t = tanh(sp(a)),
    sp = softplus"""

    _saved_names = ("self",)  # grad_fn._saved_self (as torch)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        out = _softplus1(xp, y)
        xp.tanh(out, out=out)
        xp.multiply(y, out, out=out)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        dt, grad, a = _wide(grad, *ctx._stored_tensors)
        t = tanh(Softplus.apply(a, beta=1.0, threshold=math.inf))
        return _narrow(dt, grad * (t + a * sigmoid(a) * (1 - t * t)))

    @staticmethod
    def _backward_data(ctx, grad):
        """backward's formula, bit for bit, over two buffers instead of the Tensor formula's
        eleven ops ((1000, 1000) float32, forward and backward: 6.5 ms -> 4.4 ms; torch 7.7)."""
        (a,) = ctx._stored_arrays()
        if grad.itemsize == 2 or grad.strides != a.strides:
            return NotImplemented  # half: widened; NOTE [ Gradient layout ]
        xp = ctx.xp
        t = _arr(xp, xp.exp(a))  # Softplus's forward for beta 1, threshold inf: log1p(exp(a))
        log1p_array(xp, t, out=t)
        xp.tanh(t, out=t)
        s = Sigmoid.kernel(xp, a)
        xp.multiply(a, s, out=s)
        u = _arr(xp, t * t)
        xp.subtract(1, u, out=u)
        xp.multiply(s, u, out=s)
        xp.add(t, s, out=s)
        return xp.multiply(grad, s, out=s)
def mish(input, inplace=False):
    """input * tanh(softplus(input)). Mirrors torch.nn.functional.mish."""
    _float_only(input, "mish_cpu", "mish")
    return _result(input, inplace, Mish.apply, "mish")


def _none_true(mask, like, device) -> bool:
    """Whether a select on `mask` may be skipped, its second operand being its result bit for
    bit: on the CPU only (no device synchronisation), where no element of the mask holds and
    the operands are laid out as `like`, a C- or F-contiguous array (so the select's result
    would be laid out as they are). softplus' threshold (20) is rarely passed: the select's
    five passes cost more than this check's one ((2048, 512) float32 forward: 2.7 -> 1.6 ms)."""
    return (
        device.type == "cpu" and mask.size >= _SCALE_MIN and like.flags.forc and not mask.any()
    )


class Softplus(Function):
    """out = log(1 + exp(β a)) / β (a where β a > threshold);  grad_a = grad e / (e + 1),
    e = exp(β a) (grad where β a > threshold; as grad sigmoid(β a) under create_graph). As
    torch's softplus double backward, the second derivative is zero from β a = threshold up (a
    strict β a < threshold there)."""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_beta, _saved_threshold (as torch)
    _saved_attrs = {"beta": lambda node: node.params[0], "threshold": lambda node: node.params[1]}

    @staticmethod
    def forward(ctx, a, *, beta, threshold):
        ctx.save_for_backward(a)
        ctx.params = (beta, threshold)
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        z = y if _one(beta) else _arr(xp, y * beta)  # (y * 1 would be y: a pass saved)
        # log1p(exp(z)) / beta, torch's formula over one buffer (the select ignores it above the
        # threshold): exact enough up to any threshold below 88 (float32; 709 float64), and inf
        # past that where a threshold lets it through, as torch's (3 passes, not 7)
        out = _arr(xp, xp.exp(z))
        log1p_array(xp, out, out=out)
        if not _one(beta):
            xp.divide(out, beta, out=out)
        above = z > threshold
        if not _none_true(above, y, a._device):
            out = a._device.backend.select(above, y, out)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        dt, grad, a = _wide(grad, *ctx._stored_tensors)
        beta, threshold = ctx.params
        z = a * beta
        # sigmoid(z) has no gradient where z >= threshold (its value is kept at z == threshold)
        z_in = where(z < threshold, z, z.detach())
        r = where(z > threshold, grad, grad * sigmoid(z_in))
        return _narrow(dt, name_node(r, "SoftplusBackwardBackward0"))  # (torch's node)

    @staticmethod
    def _backward_data(ctx, grad):
        if grad.itemsize == 2:  # number operands: widened (NOTE [ Half-precision arithmetic ])
            return NotImplemented
        (a,) = ctx._stored_arrays()
        beta, threshold = ctx.params
        # sigmoid(z) as (grad e) / (e + 1), e = exp(z), torch's formula and order: its bits, a
        # subnormal gradient where e is (z below about -88 in float32; 1 / (1 + exp(-z)) gives
        # 0 there), and NaN where e overflows below a threshold past 88; one pass fewer. (The
        # Tensor formula keeps sigmoid: its double backward is what second-order programs
        # compared with torch's in float32 were fitted to.)
        xp = ctx.xp
        z = a if _one(beta) else a * beta  # (a * 1 would be a, in a pass of its own)
        e = _arr(xp, xp.exp(z))
        s = _arr(xp, xp.multiply(grad, e))
        e += 1
        xp.divide(s, e, out=s)
        above = z > threshold
        if grad.strides == a.strides and _none_true(above, a, ctx._out_device):
            return s
        return ctx._out_device.backend.select(above, grad, s)


def softplus(input, beta=1, threshold=20, *, out=None):
    """log(1 + exp(beta * input)) / beta, linear above threshold. Mirrors
    torch.nn.functional.softplus."""
    if out is not None:
        _check_out_first(input, out)
    _float_only(input, "softplus_cpu", "softplus")
    beta = _number(beta, "softplus", "beta", 2)  # NOTE [ Number-like arguments ]
    threshold = _number(threshold, "softplus", "threshold", 3)
    result = Softplus.apply(input, beta=beta, threshold=threshold)
    return result if out is None else _out_exact(result, out)


def _saved_buffer(node):
    """grad_fn._saved_buffer of logsigmoid's node: the buffer torch's CPU kernel saves for its
    backward, exp(-|a|) in a's dtype, made from the saved input when asked (minitorch's
    backward does not read it)."""
    a = node._stored_tensors[0].detach()
    return exp(-a.abs())


class LogSigmoid(Function):
    """out = log(sigmoid(a)) = min(a, 0) - log(1 + exp(-|a|));  grad_a = grad sigmoid(-a)"""

    _saved_names = ("self",)  # grad_fn._saved_self, _saved_buffer (as torch's)
    _saved_attrs = {"buffer": _saved_buffer}

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        xp = ctx.xp
        x = a._data
        y = opmath_array(x)
        # over one buffer; min(a, 0) by minimum_array (NumPy's clip loop on the host; a zero's
        # sign there could change nothing but a difference with log1p(1))
        out = _arr(xp, xp.abs(y))
        if not out.flags.c_contiguous and a._device.type == "cpu":
            out = xp.ascontiguousarray(out)  # torch's CPU kernel writes a row-major result
        xp.negative(out, out=out)
        xp.exp(out, out=out)
        log1p_array(xp, out, out=out)
        xp.subtract(minimum_array(xp, 0, y), out, out=out)
        return _arr(xp, out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        dt, grad, a = _wide(grad, *ctx._stored_tensors)
        if dt is None:  # See NOTE [ logsigmoid's gradient ]: the data path's formula, bitwise
            e = exp((-a).clamp(max=80.0))
            return grad * (e / (1 + e))
        # half: torch's forward keeps z = exp(-|a|) in the input's dtype for its backward, which
        # takes z / (1 + z) for a >= 0 and 1 minus it below. -|a| as a select of ±a, not abs,
        # whose zero gradient at 0 would lose the second derivative there.
        neg = a < 0
        z = exp(where(neg, a, -a)).to(dt).float()
        s = z / (1 + z)
        return _narrow(dt, grad * where(neg, 1 - s, s))

    @staticmethod
    def _backward_data(ctx, grad):
        (a,) = ctx._stored_arrays()
        if grad.itemsize == 2 or grad.strides != a.strides:
            return NotImplemented  # half: widened; NOTE [ Gradient layout ]
        xp = ctx.xp
        # NOTE [ logsigmoid's gradient ]
        # sigmoid(-a) = e / (1 + e), e = exp(-a) with -a capped at 80 (past which the quotient
        # rounds to 1 in float32 and float64): no select, one pass more than 1 / (1 + exp(a)),
        # whose overflow past a = 88.7 (float32) loses the subnormal gradients there (float32,
        # least of 9: 1M elements 1.51 -> 1.77 ms, 1000 2.4 -> 3.3 us; the cap is minimum's
        # bits, by clip's ufunc on the host from 2048 float32 elements, where NumPy's minimum
        # with a number has no vector loop). backward computes the same in Tensor ops
        # (float32, float64), so both paths give the same bits. torch's kernel takes z =
        # exp(-|a|), z / (1 + z) for a >= 0 and 1 minus it below: equal for a >= 0, within 2
        # ulps below; its select costs 2-4x here (a masked ufunc or where on mixed signs: 1M
        # float32 1.8 -> 8 ms). The cap zeroes the second derivative below a = -80 (-exp(a)
        # there, under 2e-35).
        e = _arr(xp, xp.negative(a))
        minimum_array(xp, 80.0, e, out=e)
        xp.exp(e, out=e)
        r = xp.add(e, 1)
        xp.divide(e, r, out=e)
        return xp.multiply(grad, e, out=e)


def logsigmoid(input, *, out=None):
    """log(sigmoid(input)), without overflow. Mirrors torch.nn.functional.logsigmoid."""
    _float_only(input, "log_sigmoid_cpu", "log_sigmoid")  # (torch's aten name in errors)
    result = LogSigmoid.apply(input)
    if out is None:
        return result
    # torch's out= kernel is log_sigmoid_forward, with an older message than the structured ones
    if isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype.scalar_name(result.dtype)} but found "
            f"{_dtype.scalar_name(out.dtype)}"
        )
    if isinstance(out, Tensor) and out.shape != result.shape:
        with warnings.catch_warnings():  # torch's older kernel resizes out without the warning
            warnings.simplefilter("ignore", UserWarning)
            return write_out(out, result, "log_sigmoid_forward")
    return write_out(out, result, "log_sigmoid_forward")
