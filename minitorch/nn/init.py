"""nn.init: fill a tensor in place, under no_grad, from a named distribution or structure."""

from __future__ import annotations

import math
import warnings

from minitorch import _dtype
from minitorch._factories import arange
from minitorch._factories import eye as _eye
from minitorch._ops import where
from minitorch._ops.inplace import _check_overlap
from minitorch._tensor import Tensor, _make
from minitorch.autograd.grad_mode import no_grad
from minitorch.random import _stream as _torch_stream
from minitorch.random import rand, randn, randperm, torch_floats, torch_trunc_normal

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

# NOTE [ Drawing init values ]
# Every function draws from minitorch's generator of the tensor's device (the default one, or
# `generator=`) under no_grad, on the tensor's device, nothing read back to the host; the tensor
# keeps its identity, dtype and device and its version counter is bumped. uniform_ / normal_
# (and the functions built on them) fill the tensor itself in place, as torch does, so the CPU
# stream picks torch's path for the tensor's layout (a strided tensor of 16 or more elements
# draws its normals one by one, a contiguous one in blocks of 16): torch's numbers, draw for draw.


def _draw_dtype(tensor: Tensor):
    return _dtype.float64 if tensor.dtype is _dtype.float64 else _dtype.float32


_TYPE_LABELS = {
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


def _check_floating(tensor: Tensor, kernel: str) -> None:
    if not tensor.dtype.is_floating_point:
        label = _TYPE_LABELS.get(tensor.dtype.name, tensor.dtype.name)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{label}'")


def _write(tensor: Tensor, values: Tensor) -> Tensor:
    with no_grad():
        tensor.copy_(values)
    return tensor


def _check_uniform_range(a: float, b: float) -> None:
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}"
        )


def _uniform(tensor, a, b, generator):
    with no_grad():  # uniform_'s own checks: the arguments' types, the dtype, the range
        return tensor.uniform_(a, b, generator=generator)


def _normal(tensor, mean, std, generator):
    with no_grad():  # normal_'s own checks: std first, no dtype check on an empty tensor
        return tensor.normal_(mean, std, generator=generator)


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity. Mirrors torch.nn.init.calculate_gain."""
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fills with U(a, b). Mirrors torch.nn.init.uniform_."""
    return _uniform(tensor, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fills with N(mean, std^2). Mirrors torch.nn.init.normal_."""
    return _normal(tensor, mean, std, generator)


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _erfinv(x: Tensor) -> Tensor:
    """Inverse error function on (-1, 1): Giles' single-precision polynomial approximation
    ("Approximating the erfinv function", 2010), relative error ~1e-7."""
    w = -((1 - x) * (1 + x)).log()
    central = w - 2.5
    p = 2.81022636e-08
    for c in (
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ):
        p = central * p + c
    tail = w.sqrt() - 3
    q = -0.000200214257
    for c in (
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ):
        q = tail * q + c
    return where(w < 5, p, q) * x


def _permuted_dense_order(tensor: Tensor):
    """The dims of a permuted but otherwise dense tensor (a transposed weight), largest stride
    first; None for any other layout."""
    data = tensor._data
    if data.ndim < 2 or data.flags.c_contiguous:
        return None
    step = data.itemsize
    order = sorted(range(data.ndim), key=lambda d: (-abs(data.strides[d]), d))
    expect = step
    for d in reversed(order):
        if data.shape[d] != 1 and data.strides[d] != expect:
            return None
        expect *= data.shape[d]
    return order


def _torch_trunc_normal_values(s, tensor: Tensor, mean, std, a, b):
    """torch's trunc_normal_ numbers for `tensor` from the CPU stream s (a host array of its
    shape). torch's empty_like keeps a permuted dense tensor's strides, so every draw of its
    sampler (the tensor's, its candidates', its acceptance uniforms') runs in the tensor's memory
    order, the normal ones one at a time; a strided tensor of any other layout draws its first
    normals one at a time in place and its redraws into contiguous buffers."""
    order = _permuted_dense_order(tensor)
    shape = tuple(tensor.shape)
    if order is not None:
        shape = tuple(shape[d] for d in order)
    dt = tensor.dtype
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        npdt = _dtype.numpy_dtype(dt)
        lo, hi = npdt.type(a), npdt.type(b)
        dense = tensor.is_contiguous()
        # host arrays of the stream (whatever backend the tensor lives on)
        out = torch_floats(s, "standard_normal", shape, dt, mean, std, dense=dense).copy()
        while True:
            bad = (out < lo) | (out > hi)
            if not bad.any():
                break
            redraw = torch_floats(s, "standard_normal", shape, dt, mean, std, dense=order is None)
            out[bad] = redraw[bad]
    else:
        out = torch_trunc_normal(s, shape, dt, mean, std, a, b)
    if order is None:
        return out
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    return out.transpose(back)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Fills with N(mean, std^2) truncated to [a, b]. Mirrors torch.nn.init.trunc_normal_.

    On the CPU torch's rejection samplers, number for number (NOTE [ torch's trunc_normal_ ] in
    minitorch/random.py).

    Differences from torch: a permuted tensor that is not dense either (a transposed slice)
    draws its numbers in another order than torch's (same law). On other devices samples by the
    inverse CDF (uniform in the CDF's
    range through erfinv), not by torch's rejection loop, so nothing is read back to the host;
    same law.
    """
    if tensor.is_meta:
        return tensor
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
            "values may be incorrect.",
            stacklevel=2,
        )
    # torch's sampler starts with normal_ (which lets an empty tensor of any dtype through) when
    # [a, b] holds more than 0.3 of the mass, with uniform_(a, b) otherwise (which rejects a
    # non-float dtype and the empty range; the clamp below would fill everything with b)
    if _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std) > 0.3:
        if tensor.numel():
            _check_floating(tensor, "normal_kernel_cpu")
        elif not tensor.dtype.is_floating_point:
            return tensor
    else:
        _check_floating(tensor, "check_uniform_bounds")
        _check_uniform_range(a, b)
    _check_overlap(tensor)  # torch's first fill refuses an expanded tensor before it draws
    s = _torch_stream(tensor._device, generator, "trunc_normal_")
    if s is not None:
        arr = _torch_trunc_normal_values(s, tensor, mean, std, a, b)
        return _write(tensor, _make(s.wrap(arr), tensor._device, False, None))
    lo = 2 * _norm_cdf((a - mean) / std) - 1
    hi = 2 * _norm_cdf((b - mean) / std) - 1
    dt = _draw_dtype(tensor)
    u = rand(tuple(tensor.shape), generator=generator, dtype=dt, device=tensor.device)
    with no_grad():
        eps = _dtype.finfo(dt).eps
        x = (u * (hi - lo) + lo).clamp(-1 + eps, 1 - eps)
        values = (_erfinv(x) * (std * math.sqrt(2.0)) + mean).clamp(a, b)
    return _write(tensor, values)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills with `val`. Mirrors torch.nn.init.constant_."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fills with ones. Mirrors torch.nn.init.ones_."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fills with zeros. Mirrors torch.nn.init.zeros_."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D tensor with the identity. Mirrors torch.nn.init.eye_."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, _eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fills a 3/4/5-D (conv weight) tensor with the Dirac delta: the conv is the identity on
    as many channels as possible (per group). Mirrors torch.nn.init.dirac_."""
    ndim = tensor.ndimension()
    if ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    if min_dim > 0 and 0 in sizes[2:]:  # torch indexes the centre of an empty dim
        dim = sizes.index(0, 2)
        raise IndexError(f"index 0 is out of bounds for dimension {dim} with size 0")
    xp = tensor.device.backend.xp
    values = xp.zeros(sizes, dtype=tensor._data.dtype)
    for g in range(groups):
        for d in range(min_dim):
            values[(g * out_per_group + d, d, *centre)] = 1
    return _write(tensor, _make(values, tensor.device, False, None))


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive_field = 1
    for s in tuple(tensor.shape)[2:]:
        receptive_field *= s
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)). Mirrors torch's."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _uniform(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)). Mirrors torch's."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _normal(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan). Mirrors torch's."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return _uniform(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan). Mirrors torch's."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return _normal(tensor, 0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix (trailing dims flattened), times gain. Mirrors torch's."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    # torch draws in the tensor's dtype, then its QR refuses the half types
    flat = randn((rows, cols), generator=generator, dtype=tensor.dtype, device=tensor.device)
    if tensor.dtype in (_dtype.float16, _dtype.bfloat16):
        label = "Half" if tensor.dtype is _dtype.float16 else "BFloat16"
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{label}'")
    flat = flat._data
    if rows < cols:
        flat = flat.T
    xp = tensor.device.backend.xp
    q, r = xp.linalg.qr(flat)
    q = q * xp.sign(xp.diagonal(r))  # makes the decomposition unique (a uniform distribution)
    if rows < cols:
        q = q.T
    q = xp.ascontiguousarray(q).reshape(tuple(tensor.shape))
    # torch copies through tensor.view_as(q) (the same error for a layout), then multiplies by
    # gain in place (its errors for a bad gain), both under no_grad: a view that may no longer
    # be used with grad enabled (a chunk of a weight whose sibling chunk was filled) still is
    with no_grad():
        tensor.view(rows, cols)
        tensor.copy_(_make(q, tensor.device, False, None))
        return tensor.mul_(gain)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std^2) with a fraction `sparsity` of each column set to zero. Mirrors torch's: the
    values come from `generator`, the zeroed rows (one randperm per column) from the default
    generator of the tensor's device, as torch does."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = int(math.ceil(sparsity * rows))
    _normal(tensor, 0.0, std, generator)
    stream = _torch_stream(tensor.device, None, "randperm")
    with no_grad():
        if stream is not None:  # every column's randperm from one draw, one write
            from minitorch._backend.torch_stream import randperms

            zero_rows = randperms(stream, rows, cols)[:, :num_zeros]
            at = _make(stream.wrap(zero_rows.reshape(-1)), tensor.device, False, None)
            cols_at = arange(cols, device=tensor.device).repeat_interleave(zero_rows.shape[1])
            tensor[at, cols_at] = 0
        else:
            for col in range(cols):
                zero_rows = randperm(rows, device=tensor.device)[:num_zeros]
                tensor[zero_rows, col] = 0
    return tensor


def _deprecated(new):
    old_name = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of {new.__name__}."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)


# torch.nn.init's private helpers under the public functions, which timm, DeiT and other model
# code import by name (`from torch.nn.init import _no_grad_trunc_normal_`); same positional order
def _no_grad_uniform_(tensor: Tensor, a: float, b: float, generator=None) -> Tensor:
    return _uniform(tensor, a, b, generator)


def _no_grad_normal_(tensor: Tensor, mean: float, std: float, generator=None) -> Tensor:
    return _normal(tensor, mean, std, generator)


def _no_grad_trunc_normal_(
    tensor: Tensor, mean: float, std: float, a: float, b: float, generator=None
) -> Tensor:
    return trunc_normal_(tensor, mean, std, a, b, generator)


def _no_grad_fill_(tensor: Tensor, val: float) -> Tensor:
    return constant_(tensor, val)


def _no_grad_zero_(tensor: Tensor) -> Tensor:
    return zeros_(tensor)
