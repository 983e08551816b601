"""Fake quantization (fake_quantize_per_tensor_affine, fake_quantize_per_channel_affine): the
quantize-then-dequantize round trip quantization-aware training puts in a float graph, with the
straight-through gradient.

Differences from torch: on a device other than the CPU the per-channel check that every zero point
lies in [quant_min, quant_max] is skipped: it would read the device's data back to the host.
"""

from __future__ import annotations

from minitorch import _dtype
from minitorch._ops._common import check_float, check_int, quiet
from minitorch._ops._parser_errors import overload_error
from minitorch._ops.pointwise_more import _not_implemented, _short
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import is_grad_enabled

__all__ = [
    "fake_quantize_per_tensor_affine",
    "fake_quantize_per_channel_affine",
    "_fake_quantize_learnable_per_tensor_affine",
    "_fake_quantize_learnable_per_channel_affine",
]

_PER_TENSOR = "fake_quantize_per_tensor_affine"
_PER_CHANNEL = "fake_quantize_per_channel_affine"


# NOTE [ Fake quantization arithmetic ]
# torch's kernels multiply by the float32 reciprocal of the float32 scale (not divide by the
# scale), round half to even, clamp with fmin/fmax (so NaN lands on quant_min) and dequantize as
# (q - zero_point) * scale. Which precision each step runs in differs between the kernels, and
# reproducing it is what makes the results bit-equal to torch's (dividing, or dequantizing in the
# other precision, changes ~1 in 20 float32 results and most float64 ones):
# - an integer zero point is added after rounding x * inv_scale, in the input's precision (float32
#   for half); the per-tensor kernel dequantizes in float32 even for float64 input, the
#   per-channel one in float64;
# - a floating zero point (per-channel only) is added before rounding: x * inv_scale + zero_point
#   is computed in float64 and rounded once to float32 (a fused multiply-add for float32 input),
#   then rounded to an integer; dequantized in float64;
# - the per-channel kernels turn q into an int64 before clamping: NaN, infinities and values past
#   the int64 range land on quant_min (the per-tensor one clamps the float: +inf on quant_max).
def _fake_quantize(xp, x, scale, zero_point, quant_min, quant_max, *, per_channel, float_zp=False):
    """(fake-quantized x, mask of the elements whose quantized value was in range) for arrays;
    scale and zero_point broadcast against x."""
    compute = xp.float64 if x.dtype == xp.float64 else xp.float32  # half computes in float
    scale = scale.astype(xp.float32, copy=False)
    with quiet(xp, divide="ignore", invalid="ignore", over="ignore"):
        inv = xp.float32(1) / scale
        if float_zp:
            zp = zero_point.astype(xp.float64)
            y = x.astype(xp.float64) * inv.astype(xp.float64) + zp
            q = xp.rint(y.astype(xp.float32))
        else:
            zp = zero_point.astype(compute)
            q = xp.rint(x.astype(compute, copy=False) * inv.astype(compute)) + zp
        mask = (q >= quant_min) & (q <= quant_max)
        if per_channel:
            # torch's per-channel CPU kernels convert q to int64 before clamping (lrint, or a cast
            # for an integer zero point), whose answer for NaN, infinities and values past the
            # int64 range is INT64_MIN: quant_min after the clamp (+inf too, unlike per-tensor)
            q = xp.where(xp.abs(q) < 2.0**63, q, q.dtype.type(quant_min))
        q = xp.fmin(xp.fmax(q, q.dtype.type(quant_min)), q.dtype.type(quant_max))
        if per_channel:
            out = (q.astype(xp.float64) - zp.astype(xp.float64)) * scale.astype(xp.float64)
        else:
            out = (q.astype(xp.float32) - zp.astype(xp.float32)) * scale
    return xp.asarray(out.astype(x.dtype, copy=False)), mask


def _grad_through(ctx, grad):
    # straight-through estimator: the gradient passes where the value was not clamped (torch's
    # backward is grad * mask, a product with a constant, so it is itself differentiable in grad)
    mask = _make(ctx.mask, ctx.device, False, None)
    return grad * mask


class FakeQuantizePerTensorAffineCachemask(Function):
    """out = (clamp(round(x / scale) + zp, qmin, qmax) - zp) * scale;  grad_x = grad where the
    quantized value was in [qmin, qmax], else 0"""

    @staticmethod
    def forward(ctx, x, *, scale, zero_point, quant_min, quant_max):
        out, ctx.mask = _fake_quantize(
            ctx.xp, x._data, scale, zero_point, quant_min, quant_max, per_channel=False
        )
        ctx.device = x._device
        return out

    backward = staticmethod(_grad_through)


class FakeQuantizePerTensorAffineCachemaskTensorQparams(FakeQuantizePerTensorAffineCachemask):
    """The per-tensor op with scale and zero point given as tensors (torch names its node apart)."""


class FakeQuantizePerChannelAffineCachemask(Function):
    """out = (clamp(round(x / scale[c]) + zp[c], qmin, qmax) - zp[c]) * scale[c] along axis;
    grad_x = grad where the quantized value was in [qmin, qmax], else 0"""

    @staticmethod
    def forward(ctx, x, *, scale, zero_point, quant_min, quant_max, float_zero_point):
        out, ctx.mask = _fake_quantize(
            ctx.xp,
            x._data,
            scale,
            zero_point,
            quant_min,
            quant_max,
            per_channel=True,
            float_zp=float_zero_point,
        )
        ctx.device = x._device
        return out

    backward = staticmethod(_grad_through)


def _check_input(x, op):
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        # torch's message carries the indentation of its source's line break
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _check_kernel_dtype(x, kernel):
    if not x.dtype.is_floating_point:
        raise _not_implemented(kernel, x.dtype)


def _no_grad_qparam(t, function, name):
    if t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True."
        )


def _int_arg(value, op, name, pos):
    # (an int-like: NumPy ints and 0-d integer tensors too; no position for a keyword)
    return value if value.__class__ is int else check_int(op, value, name, pos)


_PER_TENSOR_FORMS = (
    "Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max",
    "Tensor input, float scale, int zero_point, int quant_min, int quant_max",
)


def _per_tensor_overload(input, scale, zero_point, quant_min, quant_max):
    """(whether the tensor-qparams overload takes the call, scale, zero_point, quant_min,
    quant_max) as torch's parser reads them: the tensor overload when scale and zero_point are
    both tensors, else the number one (a float scale, an int zero point; 0-d tensors and NumPy
    scalars read as their numbers); torch's "invalid combination of arguments" when neither."""
    op = _PER_TENSOR
    if isinstance(input, Tensor):
        try:
            qmin = check_int(op, quant_min, "quant_min", 4)
            qmax = check_int(op, quant_max, "quant_max", 5)
            if isinstance(scale, Tensor) and isinstance(zero_point, Tensor):
                return True, scale, zero_point, qmin, qmax
            s = check_float(op, scale, "scale", 2)
            return False, s, check_int(op, zero_point, "zero_point", 3), qmin, qmax
        except TypeError:
            pass
    named = (("input", input), ("scale", scale), ("zero_point", zero_point),
             ("quant_min", quant_min), ("quant_max", quant_max))  # fmt: skip
    raise overload_error(op, _PER_TENSOR_FORMS, _PER_TENSOR_FORMS, named)


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """Quantize input to integers in [quant_min, quant_max] with one scale and zero point, then
    dequantize. Mirrors torch.fake_quantize_per_tensor_affine (scale and zero_point as Python
    numbers, or as one-element tensors)."""
    qparams_tensors, scale, zero_point, quant_min, quant_max = _per_tensor_overload(
        input, scale, zero_point, quant_min, quant_max
    )
    xp = input._device.backend.xp
    if qparams_tensors:
        name = "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams"
        _no_grad_qparam(scale, name, "scale")
        _no_grad_qparam(zero_point, name, "zero_point")
        for t in (scale, zero_point):
            if t.numel() != 1:
                raise RuntimeError(
                    f"a Tensor with {t.numel()} elements cannot be converted to Scalar"
                )
        _check_range(quant_min, quant_max)
        _check_kernel_dtype(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
        # torch reads both as numbers (a float zero point truncated to an integer) and, unlike
        # the number overload, does not range-check the zero point
        s = scale.to(input.device)._data.reshape(())
        zp = xp.trunc(zero_point.to(input.device)._data.reshape(()).astype(xp.float64))
        node = FakeQuantizePerTensorAffineCachemaskTensorQparams
    else:
        _check_range(quant_min, quant_max)
        if not quant_min <= zero_point <= quant_max:
            raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
        _check_kernel_dtype(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
        s = xp.asarray(scale, dtype=xp.float32)
        zp = xp.asarray(zero_point, dtype=xp.float64)
        node = FakeQuantizePerTensorAffineCachemask
    return node.apply(input, scale=s, zero_point=zp, quant_min=quant_min, quant_max=quant_max)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """Quantize input to integers in [quant_min, quant_max] with a scale and zero point per slice
    along axis, then dequantize. Mirrors torch.fake_quantize_per_channel_affine (scale: float32,
    zero_point: int32, float32 or float16, both 1-D with input.size(axis) elements)."""
    op = _PER_CHANNEL
    _check_input(input, op)
    for name, t, pos in (("scale", scale, 2), ("zero_point", zero_point, 3)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {type(t).__name__}"
            )
    axis = _int_arg(axis, op, "axis", 4)
    quant_min = _int_arg(quant_min, op, "quant_min", 5)
    quant_max = _int_arg(quant_max, op, "quant_max", 6)
    function = "fake_quantize_per_channel_affine_cachemask"
    _no_grad_qparam(scale, function, "scale")
    _no_grad_qparam(zero_point, function, "zero_point")
    float_zero_point, along = _check_per_channel(
        input, scale, zero_point, axis, quant_min, quant_max
    )
    return FakeQuantizePerChannelAffineCachemask.apply(
        input,
        scale=scale.to(input.device)._data.reshape(along),
        zero_point=zero_point.to(input.device)._data.reshape(along),
        quant_min=quant_min,
        quant_max=quant_max,
        float_zero_point=float_zero_point,
    )


def _check_per_channel(input, scale, zero_point, axis, quant_min, quant_max):
    """torch's checks of the per-channel qparams, in its order; (whether the zero point is a
    float, the shape that broadcasts the channel values along axis)."""
    if scale.dtype not in (_dtype.float32, _dtype.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {_short(scale.dtype)}")
    float_zero_point = zero_point.dtype in (_dtype.float32, _dtype.float16)
    if zero_point.dtype is not _dtype.int32 and not float_zero_point:
        raise RuntimeError(
            f"Zero-point must be Int32, Float or Half, found {_short(zero_point.dtype)}"
        )
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {axis} but tensor has no dimensions")
    n = input.dim()
    if not -n <= axis < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {axis})"
        )
    if scale.numel() != input.shape[axis]:
        raise RuntimeError(
            "dimensions of scale and zero-point are not consistent with input tensor"
        )
    _check_range(quant_min, quant_max)
    zp = zero_point._data
    if zero_point._device.type == "cpu" and zp.size:  # reads values: CPU only (module docstring)
        if zp.min() < quant_min or zp.max() > quant_max:
            raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    if axis < 0:
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    _check_kernel_dtype(input, "fake_quantize_channel_cachemask_cpu_type_handling")
    return float_zero_point, (-1,) + (1,) * (n - 1 - axis)


# NOTE [ Learnable fake quantization ]
# torch._fake_quantize_learnable_per_tensor_affine / _per_channel_affine are the fake quantizers
# whose scale and zero point are tensors that learn (LSQ / LSQ+; torch.ao's
# _LearnableFakeQuantize). The forward rounds the zero point half to even and clamps it to
# [quant_min, quant_max]; the per-tensor backward rounds it half up instead (it truncates
# zero_point + 0.5 after the clamp). The backward, elementwise in float32 as torch's kernels:
#   q = rint(zp + x * (1 / scale)),  grad_x = grad where q is in range;
#   grad_scale = sum((grad * (dequant(clamp(q)) - x)) * (1 / scale) * f) in range, else
#                sum((grad * (quant_min or quant_max - zp)) * f);
#   grad_zero_point = sum(grad * -1 * scale * f) outside the range (0 inside),  f = grad_factor;
# the sums run over all of x (per tensor) or over all dims but axis (per channel).
class FakeQuantizeLearnablePerTensorAffine(Function):
    """out = fake_quantize(x, scale, round(zero_point));  grad_x = grad in range, grad_scale and
    grad_zero_point LSQ+'s (see NOTE [ Learnable fake quantization ])"""

    _saved_names = ("self", "scale")

    @staticmethod
    def forward(ctx, x, scale, zero_point, *, quant_min, quant_max, grad_factor, axis=None):
        xp = ctx.xp
        per_channel = axis is not None
        if per_channel:
            along = (-1,) + (1,) * (x.dim() - 1 - axis)
            s = scale._data.reshape(along)
            z = zero_point._data.reshape(along).astype(xp.float32)
            zp = zp_b = xp.clip(xp.rint(z), quant_min, quant_max)
        else:
            s = scale._data.reshape(-1)[0].astype(xp.float32)
            z = zero_point._data.reshape(-1)[0].astype(xp.float32)
            zp = xp.clip(xp.rint(z), quant_min, quant_max).astype(xp.float64)
            zp_b = xp.trunc(xp.clip(z + xp.float32(0.5), quant_min, quant_max))
        out, _ = _fake_quantize(xp, x._data, s, zp, quant_min, quant_max, per_channel=per_channel)
        # the backward's constants, on arrays (x and scale are saved for its differentiable part)
        compute = xp.float64 if x.dtype == _dtype.float64 else xp.float32
        zp_b = xp.asarray(zp_b, compute)
        inv = xp.asarray(xp.float32(1) / s.astype(xp.float32), compute)
        with quiet(xp, invalid="ignore", over="ignore"):
            q = xp.rint(zp_b + x._data.astype(compute) * inv)
            # torch's backward kernels hold q as an int64: NaN, infinities and values past its
            # range become INT64_MIN, below the range (+inf too)
            q = xp.where(xp.abs(q) < 2.0**63, q, -(2.0**63))
        ctx.mask = (q >= quant_min) & (q <= quant_max)
        ctx.below = q < quant_min
        ctx.fq = (xp.clip(q, quant_min, quant_max) - zp_b) * s.astype(compute)
        ctx.consts = inv, zp_b, xp.asarray(grad_factor, compute)
        ctx.qrange = quant_min, quant_max
        ctx.sum_dims = tuple(d for d in range(x.dim()) if d != axis) if per_channel else None
        ctx.zp_shape, ctx.zp_dtype = zero_point.shape, zero_point.dtype
        ctx.device = x._device
        ctx.save_for_backward(x, scale)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, scale = ctx._stored_tensors
        quant_min, quant_max = ctx.qrange
        if not quant_min <= 0 <= quant_max:
            raise RuntimeError(
                "Expecting `quant_min` <= 0 and `quant_max` >= 0"
                if ctx.sum_dims is not None
                else "`quant_min` should be less than or         equal to `quant_max`, and the "
                "quantization range should include 0."
            )
        ops = _ops()
        inv, zp, factor = (_make(c, ctx.device, False, None) for c in ctx.consts)
        mask, below, fq = (_make(a, ctx.device, False, None) for a in (ctx.mask, ctx.below, ctx.fq))
        g = grad.to(factor.dtype)
        if ctx.sum_dims is None:
            s = scale.reshape(-1)[0].to(factor.dtype)
        else:
            s = scale.to(factor.dtype).reshape(inv.shape)

        def total(t, like):
            t = t.sum() if ctx.sum_dims is None else t.sum(ctx.sum_dims)
            return t.reshape(like.shape if ctx.sum_dims is None else (-1,))

        needs = ctx.needs_input_grad
        grad_x = grad * mask if needs[0] else None
        grad_scale = grad_zp = None
        if needs[1]:
            inside = ((g * (fq - x.to(factor.dtype))) * inv) * factor
            outside = (g * ops.where(below, quant_min - zp, quant_max - zp)) * factor
            grad_scale = total(ops.where(mask, inside, outside), scale).to(scale.dtype)
        if needs[2]:
            outside = ((g * -1) * s) * factor
            grad_zp = total(ops.where(mask, ops.zeros_like(outside), outside), scale)
            grad_zp = grad_zp.reshape(ctx.zp_shape).to(ctx.zp_dtype)
        return grad_x, grad_scale, grad_zp


class FakeQuantizeLearnablePerChannelAffine(FakeQuantizeLearnablePerTensorAffine):
    """The learnable fake quantizer with a scale and zero point per slice along axis."""


def _ops():
    import minitorch

    return minitorch


def _check_learnable(input, scale, zero_point, quant_min, quant_max, grad_factor, op, pos):
    _check_input(input, op)
    for name, t, p in (("scale", scale, 2), ("zero_point", zero_point, 3)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' (position {p}) must be Tensor, not {type(t).__name__}"
            )
    quant_min = _int_arg(quant_min, op, "quant_min", pos)
    quant_max = _int_arg(quant_max, op, "quant_max", pos + 1)
    grad_factor = check_float(op, grad_factor, "grad_factor", pos + 2)
    return quant_min, quant_max, grad_factor


def _fake_quantize_learnable_per_tensor_affine(
    input, scale, zero_point, quant_min, quant_max, grad_factor=1.0
):
    """Fake quantization whose scale and zero point (one-element tensors) learn: LSQ's gradients
    (LSQ+'s for the zero point), scaled by grad_factor. Mirrors
    torch._fake_quantize_learnable_per_tensor_affine.

    Differences from torch: its backward accepts float32 tensors only (input, scale, zero point)
    and gives an empty input's scale and zero point their own values as gradients; here any
    floating dtype works (computed in float32, float64 for float64 input) and an empty input's
    gradients are zeros."""
    op = "_fake_quantize_learnable_per_tensor_affine"
    quant_min, quant_max, grad_factor = _check_learnable(
        input, scale, zero_point, quant_min, quant_max, grad_factor, op, 4
    )
    for t in (scale, zero_point):
        if t.dim() == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
    _check_range(quant_min, quant_max)
    _check_kernel_dtype(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
    return FakeQuantizeLearnablePerTensorAffine.apply(
        input,
        scale.to(input.device),
        zero_point.to(input.device),
        quant_min=quant_min,
        quant_max=quant_max,
        grad_factor=float(grad_factor),
    )


def _fake_quantize_learnable_per_channel_affine(
    input, scale, zero_point, axis, quant_min, quant_max, grad_factor=1.0
):
    """Fake quantization with a learning scale and zero point per slice along axis (1-D tensors
    of input.size(axis) elements; the zero point rounded half to even and clamped). Mirrors
    torch._fake_quantize_learnable_per_channel_affine.

    Differences from torch: its backward accepts float32 tensors only; here any floating dtype
    works (computed in float32, float64 for float64 input)."""
    op = "_fake_quantize_learnable_per_channel_affine"
    quant_min, quant_max, grad_factor = _check_learnable(
        input, scale, zero_point, quant_min, quant_max, grad_factor, op, 5
    )
    axis = _int_arg(axis, op, "axis", 4)
    # torch checks the rounded, clamped zero point (an int32 tensor of the same shape)
    rounded = zero_point.detach().round().clamp(quant_min, quant_max).to(_dtype.int32)
    _check_per_channel(input, scale, rounded, axis, quant_min, quant_max)
    return FakeQuantizeLearnablePerChannelAffine.apply(
        input,
        scale.to(input.device),
        zero_point.to(input.device),
        quant_min=quant_min,
        quant_max=quant_max,
        grad_factor=float(grad_factor),
        axis=axis,
    )
