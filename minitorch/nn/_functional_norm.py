"""nn.functional normalisation: batch_norm, instance_norm, layer_norm, group_norm, rms_norm,
local_response_norm (composed from mean, rsqrt and friends; twice differentiable).

Running statistics are updated in place under no_grad with device ops only: nothing is read
back to the host.
"""

from __future__ import annotations

import math
import numbers

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch import _memory_format as _mf
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import int_list, same_device
from minitorch._ops.activation import _float_only
from minitorch._ops.nn_kernels import (
    GROUP_NORM_SAVED,
    batch_norm_kernel,
    group_norm_kernel,
    layer_norm_kernel,
    plain_batch_norm,
    plain_layer_norm,
    stats_outputs,
)
from minitorch._ops.pointwise_more import rsqrt
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import fast_path, name_node, plain_result, scalar_node
from minitorch.autograd.grad_mode import no_grad
from minitorch.autograd.grad_mode import state as _grad_state
from minitorch.nn import _argcheck as _arg
from minitorch.nn.parameter import Parameter

__all__ = [
    "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
    "local_response_norm",
]  # fmt: skip


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _normalized(x: Tensor, dims, eps: float):
    """((x - mean) / sqrt(biased var + eps), mean, biased var) over dims (kept as size 1)."""
    mean = x.mean(dims, keepdim=True)
    d = x - mean
    var = (d * d).mean(dims, keepdim=True)
    return d * rsqrt(var + eps), mean, var


def _channel_shape(x: Tensor):
    """The shape that broadcasts a per-channel (dim 1) vector against x."""
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _affine(out: Tensor, weight, bias, shape, dt=None) -> Tensor:
    dt = dt or out.dtype
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    # float32 parameters with a half input: the output keeps the input's dtype, as in torch
    return out if out.dtype is dt else out.to(dt)


def _check_channels(name: str, t, c: int) -> None:
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def _check_batch_channels(input, training, running_mean, running_var, weight, bias) -> None:
    """batch_norm's checks of its parameters, in torch's order: each one's size (the input's
    channels), the running statistics both needed in evaluation, every one on the input's
    device (the statistics are no inputs of the kernel's node, whose device check would miss
    them; a meta one: torch's "Tensor on device meta is not on the expected device cpu!"), then
    both statistics or neither while training."""
    c = input.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        name = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{name} must be defined in evaluation mode")
    for t in (weight, bias, running_mean, running_var):
        if t is not None and t._device is not input._device:
            same_device(input, t, "batch_norm")
    if running_mean is not running_var and (running_mean is None or running_var is None):
        raise ValueError(_ONE_STAT)


_ONE_STAT = "running_mean and running_var must either both be None or neither be None"


def _check_param_dtypes(
    input: Tensor, weight, bias, running_mean=None, running_var=None, training=True
) -> None:
    """torch's CPU rule: parameters and statistics share the input's dtype, except float32 ones
    with a half input (no silent promotion of the output to the parameters' dtype). torch calls
    the call mixed when the first parameter given (weight, bias, running_mean, running_var) has
    another dtype than the input, and then words it as _check_instance_param_dtypes; otherwise
    its kernel names the input's scalar type and the first parameter that differs (the running
    statistics before the bias while training, after it in evaluation)."""
    params = (weight, bias, running_mean, running_var)
    first = next((t for t in params if t is not None), None)
    if first is None or first.dtype is not input.dtype:
        _check_instance_param_dtypes(input, *params)
        return
    order = (running_mean, running_var, bias) if training else (bias, running_mean, running_var)
    for t in order:
        if t is not None and t.dtype is not input.dtype:
            raise RuntimeError(
                f"expected scalar type {_dtype.scalar_name(input.dtype)} but found "
                f"{_dtype.scalar_name(t.dtype)}"
            )


def _check_instance_param_dtypes(input: Tensor, *params) -> None:
    """torch's mixed-dtype texts, in its order: a parameter that is not float32 first, then an
    input that is not half; they name no op or dtypes."""
    if all(t is None or t.dtype is input.dtype for t in params):
        return
    if any(t is not None and t.dtype is not _dtype.float32 for t in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in _dtype.HALF_FLOATS:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _stats_dtype(input: Tensor, weight):
    """The dtype torch's instance_norm gives the running statistics it hands batch_norm where
    the running mean has another: the weight's, else the input's."""
    return input.dtype if weight is None else weight.dtype


def _check_instance_dtypes(input: Tensor, weight, bias, stats, training) -> None:
    """batch_norm's dtype rule (_check_param_dtypes) on what instance_norm hands it: weight,
    bias and, when given, the running statistics (stats: their dtypes), both of _stats_dtype
    where the running mean has another dtype, else as given (a running variance of another
    dtype is refused)."""
    sdt = _stats_dtype(input, weight)
    if stats is None:
        mean_dt = var_dt = None
    else:
        mean_dt, var_dt = stats
        if mean_dt is not sdt or var_dt is None:
            mean_dt = var_dt = sdt
    bias_dt = None if bias is None else bias.dtype
    dts = [None if weight is None else weight.dtype, bias_dt, mean_dt, var_dt]
    first = next((d for d in dts if d is not None), None)
    if first is None:
        return
    if first is not input.dtype:
        if any(d is not None and d is not _dtype.float32 for d in dts):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype not in _dtype.HALF_FLOATS:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    # (the kernel's order: the running statistics before the bias while training)
    for d in (mean_dt, var_dt, bias_dt) if training else (bias_dt, mean_dt, var_dt):
        if d is not None and d is not input.dtype:
            raise RuntimeError(
                f"expected scalar type {_dtype.scalar_name(input.dtype)} but found "
                f"{_dtype.scalar_name(d)}"
            )


def _check_momentum(momentum, op: str) -> None:
    """torch's TypeError for a momentum that is no number: its functional form takes a float,
    never None (the modules' cumulative average, momentum=None, passes them a number). A 0-d
    tensor is read as its value there, so tensors pass."""
    if not isinstance(momentum, (numbers.Real, Tensor)):
        raise TypeError(
            f"{op}(): argument 'momentum' (position 7) must be float, not {type(momentum).__name__}"
        )


def _check_eps(eps, training) -> None:
    """torch's ValueError for a batch_norm eps that would divide by zero: it must be positive
    while training (batch statistics can have zero variance) and non-negative otherwise. A NaN
    passes both, as in torch. A tensor eps is not read here (no host read of its value)."""
    if isinstance(eps, Tensor):
        if eps.numel() > 1:  # torch's comparison of it (one element is read as its value)
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return
    if training:
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")


def _update_running(running: Tensor, batch_stat: Tensor, momentum: float) -> None:
    """running = (1 - momentum) running + momentum batch_stat, in place, out of the graph."""
    with no_grad():
        running.mul_(1 - momentum).add_(batch_stat.detach().to(running.dtype) * momentum)


_FUSED_FLOATS = (_dtype.float32, _dtype.float64)
_DENSE_FORMATS = (_mf.contiguous_format, _mf.channels_last, _mf.channels_last_3d)

# NOTE [ Half inputs of the norms are one node ]
# A float16/bfloat16 input (float32 norms kept in a half model, or all-half layers) is normalized
# in float32 and rounded once, as torch's kernels compute it: minitorch composes that from a
# cast, the float32 kernel (or Tensor ops) and a cast back, which would show as ToCopyBackward0.
# torch's graph has its one kernel node there (NativeLayerNormBackward0, NativeBatchNormBackward0,
# NativeGroupNormBackward0, edges input, weight, bias), so the half paths fold theirs into it
# with as_node; the float32/float64 paths are one node already.


def _half_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """batch_norm of a half input computed in float32 and rounded once, as torch's kernel; half
    running statistics are updated through float32 copies. One node, torch's (NOTE [ Half
    inputs of the norms are one node ])."""

    def wide(t):
        return None if t is None else t.float()

    params = (weight, bias, running_mean, running_var)
    # torch keeps the batch's mean and 1 / std in its parameters' dtype: float32 when any
    # parameter or statistic is float32 (its "mixed type" kernel, where the output is then
    # rounded once), else the input's half dtype (rounded there before normalizing)
    mixed = any(t is not None and t.dtype is _dtype.float32 for t in params)
    stats = None if mixed else _dtype.numpy_dtype(input.dtype)
    # torch's bfloat16 kernel for a contiguous (or channels-last) input rounds its statistics
    # as it goes (its float16 one, measured, updates them in float32 as the others here)
    dense = input.dtype is _dtype.bfloat16 and any(
        _mf.is_in(input._data, f) for f in _DENSE_FORMATS
    )
    rm, rv = wide(running_mean), wide(running_var)
    out = batch_norm_kernel(
        input.float(), wide(weight), wide(bias), rm, rv, training, momentum, eps, stats, dense
    )
    if training:
        with no_grad():
            for running, new in ((running_mean, rm), (running_var, rv)):
                if running is not None and running is not new:
                    running.copy_(new)
    return as_node(
        out.to(input.dtype), "NativeBatchNormBackward0", (input, weight, bias), saved=(input,)
    )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1): batch statistics while
    training (running stats updated with the unbiased variance), running stats otherwise.
    Mirrors torch.nn.functional.batch_norm."""
    if (
        input.__class__ is Tensor
        and training.__class__ is bool
        and momentum.__class__ is float
        and eps.__class__ is float
        and _plain_batch_args(input, running_mean, running_var, weight, bias, training, eps)
    ):  # every check below passes: straight to the kernel
        if (  # NOTE [ The no-grad fast path ]: BatchNorm.forward's result, no node recorded
            input._device is _CPU
            and not (_grad_state.enabled and _records(input, weight, bias))
            and fast_path[0]
            and (running_mean is None or running_mean._vc.__class__ is list)
            and (running_var is None or running_var._vc.__class__ is list)
        ):  # (not inference statistics: BatchNorm.forward's test)
            return plain_batch_norm(
                input, weight, bias, running_mean, running_var, training, momentum, eps
            )
        return batch_norm_kernel(
            input, weight, bias, running_mean, running_var, training, momentum, eps
        )
    if training:
        if input.ndim == 0:  # torch's Python check reads the size's first entry
            raise IndexError("tuple index out of range")
        size = input.shape[0] * _numel(input.shape[2:])
        if size == 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
    _check_eps(eps, training)
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    """batch_norm without nn.functional's Python checks (values per channel, eps): the entry of
    torch.batch_norm, which has neither."""
    _stats_norm_args("batch_norm", "training", input, weight, bias, running_mean, running_var,
                     training, momentum, eps)  # fmt: skip
    if momentum.__class__ is not float:
        _check_momentum(momentum, "batch_norm")
    if input.numel() == 0:
        # torch's kernel reads nothing of an empty input (no check of the statistics, their
        # shapes or dtypes): a copy, scaled by weight[0] and shifted by bias[0] when given
        out = input.clone()
        if weight is not None:
            out = out * weight.select(0, 0)
        if bias is not None:
            out = out + bias.select(0, 0)
        return out
    if input.ndim < 2:  # torch's kernel counts no channels there, then reads dim 1
        if not training and running_mean is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            _check_channels(name, t, 0)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    c = input.shape[1]
    _check_batch_channels(input, training, running_mean, running_var, weight, bias)
    # torch refuses an integer input before it compares the parameters' dtypes with it
    _float_only(input, "batch_norm", "batch_norm")
    _check_param_dtypes(input, weight, bias, running_mean, running_var, training)
    for t in (running_mean, running_var, weight, bias):
        if t is not None and t._data.ndim != 1:  # C elements in another shape
            _check_param_dims(input, weight, bias, running_mean, running_var, training)
            if input._device.type == "meta" and not training:  # (read flat: the values alone)
                running_mean, running_var = running_mean.reshape(-1), running_var.reshape(-1)
            break
    if (training or (running_mean is not None and running_var is not None)) and input.numel():
        if input.dtype in _FUSED_FLOATS:  # one node (NativeBatchNormBackward0), see the kernel
            return batch_norm_kernel(
                input, weight, bias, running_mean, running_var, training, momentum, eps
            )
        if input.dtype in _dtype.HALF_FLOATS:
            return _half_batch_norm(
                input, running_mean, running_var, weight, bias, training, momentum, eps
            )
    shape = _channel_shape(input)
    if training or running_mean is None or running_var is None:
        if not training and running_mean is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        dims = (0,) + tuple(range(2, input.ndim))
        out, mean, var = _normalized(input, dims, eps)
        # an empty batch has no statistics (its mean is NaN): torch leaves the running ones
        if training and running_mean is not None and input.numel():
            n = input.numel() // c
            _update_running(running_mean, mean.reshape(c), momentum)
            if running_var is not None:
                unbiased = var.reshape(c) * (n / (n - 1))
                _update_running(running_var, unbiased, momentum)
    else:
        out = (input - running_mean.reshape(shape)) * rsqrt(running_var.reshape(shape) + eps)
    return _affine(out, weight, bias, shape, input.dtype)


# torch's CPU kernel refusing a weight or bias that is not 1-D on its strided path
_NOT_ONE_DIM = (
    't.defined() && t.dim() == 1 INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/aten/src/ATen/'
    'native/Normalization.cpp":162, please report a bug to PyTorch. '
)


def _check_param_dims(input, weight, bias, running_mean, running_var, training) -> None:
    """torch's CPU kernel with a weight, bias or running statistic of C elements that is not
    1-D (their numbers of elements checked). Where every operand is dense (the input contiguous
    or channels-last, the others contiguous) it reads a weight and bias flat (as (C,)) and
    refuses such statistics (1-D accessors); otherwise an internal assert refuses any of them,
    after the statistics' accessors while training (the batch statistics come first there).
    Its backward refuses such a weight too (BatchNorm._backward_data). The meta device
    broadcasts them instead, as torch's decomposition does (_check_meta_param_dims)."""
    if input._device.type == "meta":
        _check_meta_param_dims(input, running_mean, running_var, training)
        return
    x = input._data
    params = (weight, bias, running_mean, running_var)
    dense = (
        x.flags.c_contiguous
        or _mf.is_in(x, _mf.channels_last)
        or _mf.is_in(x, _mf.channels_last_3d)
    ) and all(t is None or t._data.flags.c_contiguous for t in params)
    if dense or training:
        for t in (running_mean, running_var):
            if t is not None and t._data.ndim != 1:
                raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t._data.ndim}")
    if not dense and any(t is not None and t._data.ndim != 1 for t in params):
        raise RuntimeError(_NOT_ONE_DIM)


def _check_meta_param_dims(input, running_mean, running_var, training) -> None:
    """torch's errors for running statistics of C elements that are not 1-D on the meta device,
    where its Python decomposition of batch_norm runs: while training, the update (C,) * m +
    running * (1 - m) broadcasts, and copying it back into a statistic of another shape fails
    (the mean's first); in evaluation, the statistics, unsqueezed to input.dim() - 1 dims, are
    broadcast against the input ((input - mean) * invstd), which may fail. The weight and bias
    are read flat there."""
    if training:
        for t in (running_mean, running_var):
            if t is None:
                continue
            shape = list(t.shape)
            common = _refs_broadcast([input.shape[1]], shape)
            if common != shape:
                raise RuntimeError(
                    f"output with shape {list(shape)} doesn't match the broadcast shape "
                    f"{list(common)}"
                )
        return
    if running_mean is None or running_var is None:
        return
    dims = input.ndim - 1
    common = list(input.shape)
    for t in (running_mean, running_var):
        shape = tuple(t.shape) + (1,) * (dims - t.ndim)  # (torch's _unsqueeze_to_dim)
        common = _refs_broadcast(common, shape)


def _refs_broadcast(common: list, shape: tuple) -> list:
    """The shape of a `common`-shaped tensor combined with a `shape`-shaped one (argument 1), as
    torch's Python references broadcast them, with their error (which shows the common shape
    as far as it was filled)."""
    common = [1] * (len(shape) - len(common)) + list(common)
    for i in range(-1, -1 - len(shape), -1):
        if shape[i] == common[i]:
            continue
        if common[i] == 1:
            common[i] = shape[i]
        if shape[i] != 1 and shape[i] != common[i]:
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                f"argument at index 1 had torch.Size({list(shape)}); but expected shape should "
                f"be broadcastable to {common}"
            )
    return common


def _stats_norm_args(op, flag_name, input, weight, bias, running_mean, running_var, flag,
                     momentum, eps):
    """torch's TypeErrors for wrong-typed arguments of batch_norm / instance_norm (whose bool is
    `flag_name`: training, use_input_stats), in their schema's order."""
    _arg.tensor(input, op)
    for pos, name, t in (
        (2, "weight", weight),
        (3, "bias", bias),
        (4, "running_mean", running_mean),
        (5, "running_var", running_var),
    ):
        _arg.opt_tensor(t, op, name, pos)
    _arg.boolean(flag, op, flag_name, 6)
    _arg.floating(momentum, op, "momentum", 7)
    _arg.floating(eps, op, "eps", 8)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """batch_norm of each sample and channel over its spatial dims; running stats (when given)
    track the batch average of the per-instance statistics. Mirrors
    torch.nn.functional.instance_norm."""
    if use_input_stats:  # torch's wrapper reads input.size() then
        _arg.wrapper_reads(input, "size", "instance_norm")
    _stats_norm_args("instance_norm", "use_input_stats", input, weight, bias, running_mean,
                     running_var, use_input_stats, momentum, eps)  # fmt: skip
    if momentum.__class__ is not float:
        _check_momentum(momentum, "instance_norm")
    if use_input_stats and _numel(input.shape[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {input.shape}"
        )
    _float_only(input, "batch_norm", "instance_norm")  # torch runs it as a batch_norm
    n, c = input.shape[0], input.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() * n != n * c:  # torch checks them repeated per sample
            raise RuntimeError(f"{name} should contain {n * c} elements not {t.numel() * n}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    stats = None
    if running_mean is not None:
        stats = (running_mean.dtype, None if running_var is None else running_var.dtype)
    if n * c:  # (no kernel runs for no instance: only the select below can refuse)
        _check_instance_dtypes(input, weight, bias, stats, use_input_stats)
    if (running_mean is None) is not (running_var is None):
        raise ValueError(_ONE_STAT)
    if n * c == 0 and (weight is not None or bias is not None):
        # torch's batch_norm of the empty (1, N*C, ...) view reads weight[0] (bias[0]) of the
        # parameters repeated per sample: none
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    if input.numel() and (input.dtype in _FUSED_FLOATS or input.dtype in _dtype.HALF_FLOATS):
        return _instance_as_batch_norm(
            input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
        )
    return name_node(
        _instance_norm(
            input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
        ),
        "ViewBackward0",
    )


def _instance_as_batch_norm(
    input, running_mean, running_var, weight, bias, use_stats, momentum, eps
):
    """instance_norm as torch computes it: batch_norm of the (1, N*C, ...) view, the weight, bias
    and running statistics repeated per sample (the statistics then averaged back in place), so
    the graph is torch's (a view of NativeBatchNormBackward0) and the kernel the fused one."""
    n, c = input.shape[0], input.shape[1]
    # torch views a contiguous copy (a channels-last input of one sample gives a row-major out)
    x = input.contiguous().view((1, n * c) + tuple(input.shape[2:]))
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    with no_grad():
        # torch hands batch_norm the statistics in the weight's dtype, else the input's (a half
        # input's output is then rounded as with half statistics, and so are their updates)
        sdt = _stats_dtype(input, weight)
        rm = running_mean.repeat(n).to(sdt) if running_mean is not None else None
        rv = running_var.repeat(n).to(sdt) if running_var is not None else None
    if input.dtype in _FUSED_FLOATS:
        out = batch_norm_kernel(x, w, b, rm, rv, use_stats, momentum, eps)
    else:  # half: torch's batch_norm kernel for half, through the same view
        out = _half_batch_norm(x, rm, rv, w, b, use_stats, momentum, eps)
    if use_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.view(input.shape)


def _instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps):
    """instance_norm composed of Tensor ops (empty inputs)."""
    n, c = input.shape[0], input.shape[1]
    shape = _channel_shape(input)
    if not use_input_stats:  # running statistics checked by instance_norm
        sdt = _stats_dtype(input, weight)
        mean, var = running_mean.to(sdt).reshape(shape), running_var.to(sdt).reshape(shape)
        out = (input - mean) * rsqrt(var + eps)
        return _affine(out, weight, bias, shape, input.dtype)
    dims = tuple(range(2, input.ndim))
    out, mean, var = _normalized(input, dims, eps)
    # torch: empty instances leave the running statistics (as an empty batch_norm); an empty
    # batch averages no instances, which writes NaN
    if n and not _numel(input.shape[2:]):
        return _affine(out, weight, bias, shape, input.dtype)
    if running_mean is not None:
        _update_running(running_mean, mean.reshape(n, c).mean(0), momentum)
    if running_var is not None:
        m = _numel(input.shape[2:])
        _update_running(running_var, var.reshape(n, c).mean(0) * (m / (m - 1)), momentum)
    return _affine(out, weight, bias, shape, input.dtype)


def _normalized_shape(normalized_shape, op: str) -> tuple:
    if not isinstance(normalized_shape, (tuple, list)):  # the modules take an int; F does not
        raise TypeError(
            f"{op}(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    for s in normalized_shape:
        if s.__class__ is not int:  # torch's parser reads int-likes, refuses floats and bools
            return int_list(normalized_shape, op, "normalized_shape", 2)
    return tuple(normalized_shape)


def _check_normalized(input: Tensor, shape: tuple, weight, bias, star: str = "*, ") -> None:
    """layer_norm's (star "*, ") or rms_norm's (star "*") shape checks, with torch's texts."""
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k :]) != shape:
        if k and star == "*, " and input._device.type == "meta":
            # torch's meta layer_norm is its Python decomposition: the weight and bias first,
            # shapes shown as torch.Size
            _check_param_shapes(shape, weight, bias, True)
            raise RuntimeError(
                f"Given normalized_shape={list(shape)}, expected input with shape "
                f"{list(shape)}, but got input of size {input.shape}"
            )
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[{star}{', '.join(str(s) for s in shape)}], but got input of size{list(input.shape)}"
            if k
            else f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
            f"least one element, but got normalized_shape = {list(shape)}"
        )
    for t in (weight, bias):
        if t is not None and tuple(t.shape) != shape:
            _check_param_shapes(shape, weight, bias, star == "*, " and input._device.type == "meta")


def _check_param_shapes(shape: tuple, weight, bias, meta: bool) -> None:
    """torch's error for a layer_norm (rms_norm) weight or bias not of the normalized shape;
    meta: its meta decomposition's text."""
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            shown = t.shape if meta else list(t.shape)
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {shown} and normalized_shape = {list(shape)}"
            )


def _fused_args(input, shape: tuple, weight, bias) -> bool:
    """Whether layer_norm's checks (_check_normalized) pass and the fused kernel applies
    (_fusable) for a plain case, tested on the arrays (the recorded path's cost): a non-empty
    float32/float64 input whose last dims are shape (non-empty), weight and bias None or plain
    tensors (or Parameters) of that shape, the input's dtype and device. False leaves the
    decision to those checks."""
    x = input._data
    k = len(shape)
    if not k or x.ndim < k or x.shape[x.ndim - k :] != shape or x.dtype.char not in "fd":
        return False
    if not x.size:
        return False
    for t in (weight, bias):
        if t is not None and not (
            t.__class__ in _PLAIN
            and t._device is input._device
            and t._data.dtype is x.dtype
            and t._data.shape == shape
        ):
            return False
    return True


def _fusable(input: Tensor, weight, bias) -> bool:
    """Whether the fused LayerNorm kernel applies: a non-empty floating input, and weight and
    bias absent or Tensors of its dtype on its device."""
    if not input.dtype.is_floating_point or input.numel() == 0:
        return False
    for t in (weight, bias):
        if t is not None and (
            not isinstance(t, Tensor) or t.dtype is not input.dtype or t.device != input.device
        ):
            return False
    return True


_SHAPE_CLASSES = (tuple, list)  # a module's normalized_shape, F's usual one
_PLAIN = (Tensor, Parameter)  # (a Parameter opts out of subclass dispatch)


def _records(input, weight, bias) -> bool:
    """Whether input or a plain weight or bias requires grad (the fast paths' first test of
    layer_norm and batch_norm, where grad mode is on: a training step's call declines at once)."""
    return (
        input._requires_grad
        or (weight.__class__ in _PLAIN and weight._requires_grad)
        or (bias.__class__ in _PLAIN and bias._requires_grad)
    )


def _plain_param(p, x) -> bool:
    """Whether p (a weight or bias) suits a no-grad fast path beside the array x: None, or a
    plain CPU tensor or Parameter of x's dtype (_records said that nothing is recorded)."""
    return p is None or (p.__class__ in _PLAIN and p._device is _CPU and p._data.dtype is x.dtype)


def _plain_layer_norm(input, normalized_shape, weight, bias, eps):
    """layer_norm on the no-grad fast path (F.layer_norm tested the argument classes and that
    nothing is recorded), or None where the case is not plain: a non-empty float32/float64
    input whose last dims are the normalized shape, weight and bias of that shape
    (_plain_param)."""
    x = input._data
    k = len(normalized_shape)
    n = x.ndim
    if not k or n < k or x.dtype.char not in "fd" or not x.size:
        return None
    d = 1
    for size, want in zip(x.shape[n - k :], normalized_shape, strict=True):
        if want.__class__ is not int or size != want:  # (torch's parser refuses a bool)
            return None
        d *= size
    if not (_plain_param(weight, x) and _plain_param(bias, x)):
        return None
    w = b = None
    if weight is not None:
        w = weight._data
        if w.shape != x.shape[n - k :]:
            return None
    if bias is not None:
        b = bias._data
        if b.shape != x.shape[n - k :]:
            return None
    return plain_result(plain_layer_norm(x, d, w, b, eps), _CPU)


def _plain_batch_args(input, running_mean, running_var, weight, bias, training, eps) -> bool:
    """Whether batch_norm's checks all pass and its fused kernel applies, tested on the arrays
    (F.batch_norm tested the argument classes; the recorded path's cost): a non-empty
    float32/float64 input of at least two dims (more than one value per channel while
    training), an eps its checks pass, weight and bias None or plain tensors or Parameters,
    running statistics None or plain tensors, all of the input's dtype, device and (C,) shape,
    both statistics given or (training) neither. False leaves the decision to the checks."""
    x = input._data
    shape = x.shape
    if len(shape) < 2 or not x.size or x.dtype.char not in "fd":
        return False
    if training:
        if eps <= 0.0 or x.size == shape[1] or (running_mean is None) is not (running_var is None):
            return False
    elif eps < 0.0 or running_mean is None or running_var is None:  # (a NaN eps passes)
        return False
    c = shape[1:2]
    dev = input._device
    dt = x.dtype
    for p in (weight, bias):
        if p is not None and not (
            p.__class__ in _PLAIN
            and p._device is dev
            and p._data.dtype is dt
            and p._data.shape == c
        ):
            return False
    for r in (running_mean, running_var):
        if r is not None and not (
            r.__class__ is Tensor
            and r._device is dev
            and r._data.dtype is dt
            and r._data.shape == c
        ):
            return False
    return True


def _norm_args(op: str, input, weight, bias, eps) -> None:
    """torch's TypeErrors for wrong-typed arguments of layer_norm/rms_norm (schema order)."""
    _arg.tensor(input, op)
    _arg.opt_tensor(weight, op, "weight", 3)
    if op == "layer_norm":
        _arg.opt_tensor(bias, op, "bias", 4)
        _arg.floating(eps, op, "eps", 5)
    elif eps is not None:
        _arg.floating(eps, op, "eps", 4)


def layer_norm(
    input: Tensor,
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) dims.
    Mirrors torch.nn.functional.layer_norm.

    Differences from torch: a row whose variance overflows its dtype gives NaN at every row
    length (torch's float32 CPU kernel gives NaN at most, 0 at some; see NOTE [ Overflowed
    variance ])."""
    if (  # NOTE [ The no-grad fast path ]: LayerNorm.forward's result, no node recorded
        input.__class__ is Tensor
        and not (_grad_state.enabled and _records(input, weight, bias))
        and input._device is _CPU
        and normalized_shape.__class__ in _SHAPE_CLASSES
        and eps.__class__ is float
        and fast_path[0]
        and not _autocast.state.any_enabled
    ):
        out = _plain_layer_norm(input, normalized_shape, weight, bias, eps)
        if out is not None:
            return out
    try:
        if _autocast.state.any_enabled:
            args = (input, normalized_shape, weight, bias, eps)
            return _autocast.call(layer_norm, _autocast.FP32_CUDA, args)
        shape = _normalized_shape(normalized_shape, "layer_norm")
        if _fused_args(input, shape, weight, bias):  # every check below would pass
            return layer_norm_kernel(input, len(shape), weight, bias, eps)
        try:
            _check_normalized(input, shape, weight, bias)
        except RuntimeError:  # torch refuses mixed dtypes before it compares shapes
            first = weight if weight is not None else bias
            if isinstance(first, Tensor) and first.dtype is not input.dtype:
                _check_instance_param_dtypes(input, weight, bias)
            raise
        if _fusable(input, weight, bias):  # the hot path: one node (see LayerNorm's docstring)
            return layer_norm_kernel(input, len(shape), weight, bias, eps)
        # torch compares the parameters' dtypes with the input's first: an integer input with float
        # parameters is a mixed-dtype RuntimeError, without them the kernel's NotImplementedError
        _check_param_dtypes(input, weight, bias)
        if not input.dtype.is_floating_point:
            name = _dtype.scalar_name(input.dtype)
            raise NotImplementedError(
                f"\"LayerNormKernelImpl\" not implemented for '{name}'"
            )
        dims = tuple(range(input.ndim - len(shape), input.ndim))
        x = input
        if input.dtype in _dtype.HALF_FLOATS and any(
            p is not None and p.dtype is _dtype.float32 for p in (weight, bias)
        ):  # float32 parameters of a half model: torch computes in float32 and rounds once
            x = input.float()
        out = _normalized(x, dims, eps)[0]
        if weight is not None:
            out = out * weight
        if bias is not None:
            out = out + bias
        out = out if out.dtype is input.dtype else out.to(input.dtype)  # see _affine
        # See NOTE [ Half inputs of the norms are one node ]
        return as_node(out, "NativeLayerNormBackward0", (input, weight, bias), saved=(input,))

    except Exception:  # a wrong-typed argument: torch's TypeError (no cost when none)
        _norm_args("layer_norm", input, weight, bias, eps)
        raise


show_saved(  # grad_fn._saved_<name> of a half input's node (as torch's)
    "NativeGroupNormBackward0",
    {**GROUP_NORM_SAVED, "input": saved_value(0), "weight": lambda node: node.weight},
)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """layer_norm over each group of num_groups channels (and the spatial dims), then a
    per-channel affine. Mirrors torch.nn.functional.group_norm.

    Differences from torch: as layer_norm's, for a group whose variance overflows."""
    if input.__class__ is not Tensor:
        _group_norm_args(input, num_groups, weight, bias, eps)
    if input.ndim >= 2:  # fewer dims: _group_norm raises torch's RuntimeError
        # only the functional form checks (torch.group_norm and native_group_norm return zeros),
        # in eval mode too, before divisibility, on the list its message shows
        size = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
        if size[0] * _numel(size[2:]) == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {size}"
            )
        if eps.__class__ is not float:  # (after F's own checks; num_groups: _group_norm's)
            _group_norm_args(input, num_groups, weight, bias, eps)
    try:
        return _group_norm(input, num_groups, weight, bias, eps)
    except AttributeError:  # a non-tensor weight or bias (no cost when none)
        _group_norm_args(input, num_groups, weight, bias, eps)
        raise


def _group_norm_args(input, num_groups, weight, bias, eps) -> None:
    """torch's TypeErrors for wrong-typed arguments of group_norm (F's own .dim() first)."""
    if not isinstance(input, Tensor):
        input.dim()  # torch's Python code reads input.dim(): Python's AttributeError
    _arg.integer(num_groups, "group_norm", "num_groups", 2)
    _arg.opt_tensor(weight, "group_norm", "weight", 3)
    _arg.opt_tensor(bias, "group_norm", "bias", 4)
    _arg.floating(eps, "group_norm", "eps", 5)


def _group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """group_norm without the one-value-per-group check: torch.group_norm's form."""
    if _autocast.state.any_enabled:
        args = (input, num_groups, weight, bias, eps)
        return _autocast.call(_group_norm, _autocast.FP32_CUDA, args)
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    n, c = input.shape[0], input.shape[1]
    if num_groups.__class__ is not int or num_groups <= 0:
        if num_groups.__class__ is not int:  # (the parser's error, after F's own checks)
            _group_norm_args(input, num_groups, weight, bias, eps)
        if num_groups <= 0:
            raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            # (torch's text for the bias shows the weight's shape, [0] where there is none)
            shown = [0] if weight is None else list(weight.shape)
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {shown} and input of shape "
                f"{list(input.shape)}"
            )
    _check_param_dtypes(input, weight, bias)  # before the dtype, as layer_norm
    _float_only(input, "GroupNormKernelImpl", "group_norm")
    if input.dtype in _dtype.HALF_FLOATS:
        # half: normalized and scaled in float32 and rounded once, as torch's kernel (rounding
        # x - mean first cost up to 128 ulps near 0)
        w = None if weight is None else weight.float()
        b = None if bias is None else bias.float()
        out = _group_norm(input.float(), num_groups, w, b, eps).to(input.dtype)
        # See NOTE [ Half inputs of the norms are one node ]
        attrs = {"weight": weight, "groups": num_groups, "eps": eps}
        edges = (input, weight, bias)
        out = as_node(out, "NativeGroupNormBackward0", edges, saved=(input,), attrs=attrs)
        if out._grad_fn is not None:
            stats_outputs(out._grad_fn, 2)
        return out
    if input.dtype in _FUSED_FLOATS and input.numel():  # one node, see the kernel
        return group_norm_kernel(input, num_groups, weight, bias, eps)
    # an explicit group size: -1 is ambiguous when the batch is empty
    grouped = input.reshape(n, num_groups, c // num_groups * math.prod(input.shape[2:]))
    out = _normalized(grouped, (2,), eps)[0].reshape(input.shape)
    return _affine(out, weight, bias, _channel_shape(input))


def rms_norm(
    input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """x / sqrt(mean(x^2) + eps) * weight over the last len(normalized_shape) dims; eps defaults
    to the dtype's machine epsilon. Mirrors torch.nn.functional.rms_norm."""
    _norm_args("rms_norm", input, weight, None, eps)
    shape = _normalized_shape(normalized_shape, "rms_norm")
    if input.ndim < len(shape):
        raise ValueError(
            f"Input tensor must have at least {len(shape)} dimensions, but got "
            f"{input.ndim}"
        )
    _check_normalized(input, shape, weight, None, star="*")
    _float_only(input, "rms_norm", "rms_norm")
    dt = input.dtype
    # half: normalized and scaled by the weight in float32 and rounded once, and the default eps
    # is float32's, as torch's kernel does (bfloat16's eps, 2**-7, swamped small rows)
    x = input.float() if dt in _dtype.HALF_FLOATS else input
    if eps is None:
        eps = _dtype.finfo(x.dtype).eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    ms = scalar_node(x.pow(2).mean(dims, keepdim=True) + eps)
    out = x * rsqrt(ms)
    # torch makes the scaled result contiguous (a clone) before the cast back: a transposed or
    # sliced input gives a contiguous output, on which .view works
    if x is not input:
        if weight is not None:  # a half weight too (a float32 one: kept so for a half model)
            out = out * (weight if weight.dtype is _dtype.float32 else weight.float())
        return out.contiguous().to(dt)
    if weight is not None:
        out = out * weight
    out = out.contiguous()
    return out if out.dtype is dt else out.to(dt)  # see _affine


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """input / (k + alpha * mean of squares over `size` neighbouring channels)^beta. Mirrors
    torch.nn.functional.local_response_norm."""
    dim = input.dim()  # (torch's call: a non-tensor's AttributeError names dim)
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} "
            "dimensions)"
        )
    if input.numel() == 0:
        return input
    if size.__class__ is not int:
        size // 2  # noqa: B018  (torch's Python pads by size // 2 first: a str's TypeError)
    if size <= 0:  # torch averages with avg_pool, which refuses the window (C++ size / 2)
        if input.shape[1] + size // 2 + (size - 1) // 2 < 0:  # (padded first, by narrowing)
            raise RuntimeError("narrow(): length must be non-negative.")
        if input._device.type == "meta":
            _meta_window_error(size, dim)
        if size <= -2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got pad=0, "
                f"kernel_size={size} and dilation=1"
            )
        got = f"kH: {size} kW: 1" if dim == 3 else f"kT: {size} kH: 1 kW: 1"
        raise RuntimeError(f"kernel size should be greater than zero, but got {got}")
    dt = input.dtype
    # torch's avg_pool3d (4-D+ input) is on CPU autocast's float32 list: a half input's window
    # means, and so the result, are then float32
    pool_fp32 = (
        dim > 3
        and dt in _dtype.HALF_FLOATS
        and input.device.type == "cpu"
        and _autocast.state.any_enabled
        and _autocast.state.enabled.get("cpu", False)
    )
    if input.device.type == "cpu" and (
        (dt is not _dtype.int64 and not dt.is_floating_point)
        or (dim > 3 and dt in _dtype.HALF_FLOATS and not pool_fp32)
    ):  # torch's CPU avg_pool2d (3-D input) / avg_pool3d (4-D+) kernels: floats and int64,
        # avg_pool3d without the half types
        kernel = "avg_pool2d" if dim == 3 else "avg_pool3d_out_frame"
        name = _dtype.scalar_name(dt)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")
    from minitorch.nn._functional_pad import pad

    sq = input * input
    if input.dtype in _dtype.HALF_FLOATS:
        sq = sq.float()  # half: the window sums accumulate in float32, as torch's avg_pool does
    # zero-pad the channel dim (size // 2 before, (size - 1) // 2 after), then average windows
    pads = [0, 0] * (dim - 2) + [size // 2, (size - 1) // 2]
    padded = pad(sq, pads)
    c = input.shape[1]
    total = padded.narrow(1, 0, c)
    for i in range(1, size):
        total = total + padded.narrow(1, i, c)
    if input.dtype.is_floating_point:
        mean = total / size  # a half input's in float32, rounded once below (as avg_pool's)
    else:  # torch averages with avg_pool, whose integer kernel truncates the mean
        mean = _ops.div(total, size, rounding_mode="trunc")
    if not pool_fp32:
        mean = mean.to(input.dtype)
    try:
        div = _ops.pow(mean * alpha + k, beta)
    except TypeError:  # (no cost when none)
        _factor_errors(alpha, beta, k)
        raise
    return input / div


def _meta_window_error(size: int, dim: int) -> None:
    """local_response_norm's error for a window of `size` <= 0 on the meta device, whose
    avg_pool kernel is torch's Python one (Python's floor division: a negative size's padding
    is refused before the size)."""
    if size == 0:
        got = "kH: 0, kW: 1" if dim == 3 else "kT: 0, kH: 1, kW: 1"
        raise RuntimeError(f"kernel size should be greater than zero, but got {got}")
    raise RuntimeError(
        "pad should be at most half of effective kernel size, but got pad=0, "
        f"kernel_size={size} and dilation=1"
    )


def _factor_errors(alpha, beta, k) -> None:
    """torch's TypeErrors for local_response_norm's alpha, k or beta of no type its Tensor ops
    take, in its order: div.mul(alpha).add(k).pow(beta)."""
    from minitorch._ops._common import is_number, type_name

    for op, v in (("mul", alpha), ("add", k)):
        if not (isinstance(v, Tensor) or is_number(v)):
            raise TypeError(
                f"{op}(): argument 'other' (position 1) must be Tensor, not {type_name(v)}"
            )
    if not (isinstance(beta, Tensor) or is_number(beta)):
        from minitorch._ops._parser_errors import invalid_arguments

        raise invalid_arguments("pow", ("Tensor exponent", "Number exponent"), (beta,), {})
