"""Fake quantization (fake_quantize_per_tensor_affine, fake_quantize_per_channel_affine): the
quantize-then-dequantize round trip quantization-aware training puts in a float graph, with the
straight-through gradient.

Differences from torch: on a device other than the CPU the per-channel check that every zero point
lies in [quant_min, quant_max] is skipped: it would read the device's data back to the host.
"""

from __future__ import annotations

from minitorch import _dtype
from minitorch._ops.pointwise_more import _not_implemented, _short
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import is_grad_enabled

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]

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
#   then rounded to an integer (NaN and infinities to quant_min); dequantized in float64.
def _fake_quantize(xp, x, scale, zero_point, quant_min, quant_max, *, per_channel, float_zp=False):
    """(fake-quantized x, mask of the elements whose quantized value was in range) for arrays;
    scale and zero_point broadcast against x."""
    compute = xp.float64 if x.dtype == xp.float64 else xp.float32  # half computes in float
    scale = scale.astype(xp.float32, copy=False)
    with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = xp.float32(1) / scale
        if float_zp:
            zp = zero_point.astype(xp.float64)
            y = x.astype(xp.float64) * inv.astype(xp.float64) + zp
            q = xp.rint(y.astype(xp.float32))
        else:
            zp = zero_point.astype(compute)
            q = xp.rint(x.astype(compute, copy=False) * inv.astype(compute)) + zp
        mask = (q >= quant_min) & (q <= quant_max)
        if float_zp:
            # torch rounds this one with lrint, whose answer for NaN, infinities and values past
            # the int64 range is INT64_MIN: quant_min after the clamp
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
        raise RuntimeError("`quant_min` should be less than or equal to `quant_max`.")


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
    if value.__class__ is bool or not isinstance(value, int):
        raise TypeError(
            f"{op}(): argument '{name}' (position {pos}) must be int, not {type(value).__name__}"
        )
    return int(value)


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """Quantize input to integers in [quant_min, quant_max] with one scale and zero point, then
    dequantize. Mirrors torch.fake_quantize_per_tensor_affine (scale and zero_point as Python
    numbers, or as one-element tensors)."""
    op = _PER_TENSOR
    _check_input(input, op)
    quant_min = _int_arg(quant_min, op, "quant_min", 4)
    quant_max = _int_arg(quant_max, op, "quant_max", 5)
    xp = input._device.backend.xp
    if isinstance(scale, Tensor) or isinstance(zero_point, Tensor):
        if not (isinstance(scale, Tensor) and isinstance(zero_point, Tensor)):
            raise TypeError(
                f"{op}(): scale and zero_point must both be tensors or both be numbers, got "
                f"{type(scale).__name__} and {type(zero_point).__name__}"
            )
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
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(
                f"{op}(): argument 'scale' (position 2) must be float, not {type(scale).__name__}"
            )
        zero_point = _int_arg(zero_point, op, "zero_point", 3)
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
    along = (-1,) + (1,) * (n - 1 - axis)  # broadcasts the channel values along axis
    return FakeQuantizePerChannelAffineCachemask.apply(
        input,
        scale=scale.to(input.device)._data.reshape(along),
        zero_point=zero_point.to(input.device)._data.reshape(along),
        quant_min=quant_min,
        quant_max=quant_max,
        float_zero_point=float_zero_point,
    )
