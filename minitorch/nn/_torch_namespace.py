"""The torch.* spellings of nn ops (torch.conv2d, torch.batch_norm, torch.dropout, ...).

They are ATen's signatures, which differ from nn.functional's for some ops: torch.dropout(input,
p, train) has no defaults, torch.batch_norm puts weight and bias before the running stats, the
losses take `reduction` as an int (0 none, 1 mean, 2 sum) whose default, as torch's Python
bindings behave, is 0 (no reduction); the pools have no return_indices.
`minitorch/__init__.py` reaches these lazily (see NOTE [ Lazy submodules ]), so `import
minitorch` does not import nn.
"""

from __future__ import annotations

from minitorch import _dtype, _ops
from minitorch._arg_errors import REQUIRED, arity_error, missing_positional, too_many_positional
from minitorch._factories import empty, ones_like, zeros, zeros_like
from minitorch._ops._common import (
    index,
    int_list,
    is_index,
    not_tensor,
    not_tensor_element,
    wrong_type,
)
from minitorch._ops.inplace import check_out, write_out
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, show_saved
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn import _argcheck as _arg
from minitorch.nn import _functional_rnn
from minitorch.nn import functional as F
from minitorch.nn._functional_dropout import _alpha_dropout, _dropout, _keep_mask
from minitorch.nn._functional_norm import (
    _batch_norm,
    _norm_args,
    _normalized_shape,
    _stats_norm_args,
)
from minitorch.nn._functional_sparse import _embedding_bag, embedding_renorm_
from minitorch.nn.utils.parametrizations import _norm_except_dim
from minitorch.nn.utils.parametrizations import _weight_norm as _weight_norm_impl

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "convolution", "conv_tbc", "avg_pool1d", "max_pool1d", "max_pool2d", "max_pool3d",
    "max_pool1d_with_indices", "adaptive_avg_pool1d", "adaptive_max_pool1d", "batch_norm",
    "layer_norm", "group_norm", "instance_norm", "rms_norm", "dropout", "dropout_",
    "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_",
    "feature_alpha_dropout", "feature_alpha_dropout_", "embedding", "embedding_bag",
    "embedding_renorm_", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "native_channel_shuffle", "cosine_similarity", "pairwise_distance", "pdist", "kl_div",
    "hinge_embedding_loss", "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "poisson_nll_loss", "binary_cross_entropy_with_logits", "ctc_loss", "prelu", "rrelu",
    "rrelu_", "hardshrink", "threshold", "threshold_", "constant_pad_nd", "rnn_tanh_cell",
    "rnn_relu_cell", "lstm_cell", "gru_cell", "bilinear", "affine_grid_generator", "grid_sampler",
    "grid_sampler_2d", "grid_sampler_3d", "native_dropout", "native_layer_norm",
    "native_batch_norm", "native_group_norm", "rnn_tanh", "rnn_relu", "lstm", "gru",
    "norm_except_dim", "_weight_norm", "_softmax_backward_data",
]  # fmt: skip

# the same functions as nn.functional's
conv1d = F.conv1d
conv2d = F.conv2d
conv3d = F.conv3d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
adaptive_avg_pool1d = F.adaptive_avg_pool1d
rms_norm = F.rms_norm
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
native_channel_shuffle = F.native_channel_shuffle
cosine_similarity = F.cosine_similarity
pairwise_distance = F.pairwise_distance
pdist = F.pdist
prelu = F.prelu
hardshrink = F.hardshrink
bilinear = F.bilinear
conv_tbc = F.conv_tbc
rnn_tanh_cell = _functional_rnn.rnn_tanh_cell
rnn_relu_cell = _functional_rnn.rnn_relu_cell
lstm_cell = _functional_rnn.lstm_cell
gru_cell = _functional_rnn.gru_cell

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction, op: str, pos: int) -> str:
    """ATen's reduction enum (an int) as nn.functional's string: 1 mean, 2 sum, any other int
    the loss unreduced (as torch's apply_loss_reduction); anything but an int (a bool, a str) is
    torch's parser's TypeError for argument `pos` of `op`."""
    if reduction.__class__ is not int:
        reduction = index(reduction, op, "reduction", pos)
    return _REDUCTIONS.get(reduction, "none")


def _stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride


# --- convolution ---


def convolution(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
) -> Tensor:
    """conv{1,2,3}d or conv_transpose{1,2,3}d, chosen by weight's rank and `transposed`. Mirrors
    torch.convolution."""
    try:
        n = weight.ndim - 2
        if n not in (1, 2, 3):
            raise RuntimeError(
                f"convolution: expected a 3-D, 4-D or 5-D weight, but got weight of shape "
                f"{list(weight.shape)}"
            )
        if transposed:
            conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
            return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
        conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
        return conv(input, weight, bias, stride, padding, dilation, groups)
    except Exception:  # whatever an argument of the wrong type breaks: torch's parser first
        _convolution_args(
            input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
        )
        raise


def _convolution_args(
    input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
) -> None:
    """torch.convolution's parser's TypeError for the first of its arguments of the wrong type;
    None when all are right. Its int[] arguments take a list or tuple only (not one int, as
    conv2d's do). An error path."""
    op = "convolution"
    _arg.tensor(input, op)
    _arg.tensor(weight, op, "weight", 2)
    _arg.opt_tensor(bias, op, "bias", 3)
    for name, x, pos in (("stride", stride, 4), ("padding", padding, 5), ("dilation", dilation, 6)):
        if not isinstance(x, (list, tuple)):
            raise wrong_type(op, x, name, pos, "tuple of ints")
        int_list(x, op, name, pos)
    _arg.boolean(transposed, op, "transposed", 7)
    if not isinstance(output_padding, (list, tuple)):
        raise wrong_type(op, output_padding, "output_padding", 8, "tuple of ints")
    int_list(output_padding, op, "output_padding", 8)
    _arg.integer(groups, op, "groups", 9)


# --- pooling (ATen's forms: no return_indices) ---


def avg_pool1d(
    input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True
) -> Tensor:
    """Mirrors torch.avg_pool1d."""
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def max_pool1d(
    input=REQUIRED, kernel_size=REQUIRED, stride=(), padding=0, dilation=1, ceil_mode=False, *extra
) -> Tensor:
    """Mirrors torch.max_pool1d."""
    if extra or input is REQUIRED or kernel_size is REQUIRED:
        raise arity_error("max_pool1d", extra, 6, input=input, kernel_size=kernel_size)
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(
    input=REQUIRED, kernel_size=REQUIRED, stride=(), padding=0, dilation=1, ceil_mode=False, *extra
) -> Tensor:
    """Mirrors torch.max_pool2d."""
    if extra or input is REQUIRED or kernel_size is REQUIRED:
        raise arity_error("max_pool2d", extra, 6, input=input, kernel_size=kernel_size)
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(
    input=REQUIRED, kernel_size=REQUIRED, stride=(), padding=0, dilation=1, ceil_mode=False, *extra
) -> Tensor:
    """Mirrors torch.max_pool3d."""
    if extra or input is REQUIRED or kernel_size is REQUIRED:
        raise arity_error("max_pool3d", extra, 6, input=input, kernel_size=kernel_size)
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(
    input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False
) -> tuple:
    """(values, indices). Mirrors torch.max_pool1d_with_indices."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)


def adaptive_max_pool1d(input, output_size) -> tuple:
    """(values, indices), always. Mirrors torch.adaptive_max_pool1d."""
    return F.adaptive_max_pool1d(input, output_size, True)


# --- normalization ---


_BATCH_NORM_ARGS = (
    "input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps",
    "cudnn_enabled",
)  # fmt: skip


def _given_batch_norm_args(args) -> None:
    """The TypeError of the first given argument of torch.batch_norm of the wrong type."""
    for pos, (name, value) in enumerate(zip(_BATCH_NORM_ARGS, args, strict=True), 1):
        if value is REQUIRED:
            continue
        if pos == 1:
            _arg.tensor(value, "batch_norm")
        elif pos <= 5:
            _arg.opt_tensor(value, "batch_norm", name, pos)
        elif name in ("training", "cudnn_enabled"):
            _arg.boolean(value, "batch_norm", name, pos)
        else:
            _arg.floating(value, "batch_norm", name, pos)


def batch_norm(
    input=REQUIRED,
    weight=REQUIRED,
    bias=REQUIRED,
    running_mean=REQUIRED,
    running_var=REQUIRED,
    training=REQUIRED,
    momentum=REQUIRED,
    eps=REQUIRED,
    cudnn_enabled=REQUIRED,
    *extra,
) -> Tensor:
    """Mirrors torch.batch_norm (weight and bias before the running stats; none of
    nn.functional.batch_norm's Python checks)."""
    args = (input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)
    if extra or any(a is REQUIRED for a in args):
        if not extra:  # torch's parser reads the given arguments' types before a missing one's
            _given_batch_norm_args(args)
        raise arity_error("batch_norm", extra, 9, **dict(zip(_BATCH_NORM_ARGS, args, strict=True)))
    if cudnn_enabled.__class__ is not bool:  # torch's parser reads the others first
        _stats_norm_args("batch_norm", "training", input, weight, bias, running_mean,
                         running_var, training, momentum, eps)  # fmt: skip
        _arg.boolean(cudnn_enabled, "batch_norm", "cudnn_enabled", 9)
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
) -> Tensor:
    """Mirrors torch.instance_norm (weight and bias before the running stats)."""
    try:
        return F.instance_norm(
            input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
        )
    except AttributeError:  # F's input.size() of a non-tensor: torch's parser refuses it first
        _arg.tensor(input, "instance_norm")
        raise


def layer_norm(
    input=REQUIRED,
    normalized_shape=REQUIRED,
    weight=None,
    bias=None,
    eps=1e-5,
    cudnn_enable=True,
    *extra,
) -> Tensor:
    """Mirrors torch.layer_norm."""
    if extra or input is REQUIRED or normalized_shape is REQUIRED:
        raise arity_error("layer_norm", extra, 6, input=input, normalized_shape=normalized_shape)
    if eps.__class__ is not float or cudnn_enable.__class__ is not bool:
        # torch's parser reads every argument, in order (F.layer_norm's error path: the first)
        _arg.tensor(input, "layer_norm")
        _normalized_shape(normalized_shape, "layer_norm")
        _norm_args("layer_norm", input, weight, bias, eps)
        _arg.boolean(cudnn_enable, "layer_norm", "cudnn_enable", 6)
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True) -> Tensor:
    """Mirrors torch.group_norm (no one-value-per-group check: that is F.group_norm's)."""
    from minitorch.nn._functional_norm import _group_norm

    try:
        return _group_norm(input, num_groups, weight, bias, eps)
    except (AttributeError, RuntimeError):  # torch's parser reads the arguments' types first
        _arg.tensor(input, "group_norm")
        _arg.integer(num_groups, "group_norm", "num_groups", 2)
        _arg.opt_tensor(weight, "group_norm", "weight", 3)
        _arg.opt_tensor(bias, "group_norm", "bias", 4)
        _arg.floating(eps, "group_norm", "eps", 5)
        _arg.boolean(cudnn_enabled, "group_norm", "cudnn_enabled", 6)
        raise


# --- weight normalization (what hand-written WeightNorm modules call) ---


def _int_arg(x, op: str, name: str) -> int:
    return x if x.__class__ is int else index(x, op, name)


def norm_except_dim(v, pow=2, dim=0) -> Tensor:
    """The `pow`-norm of v over every dim but `dim` (all dims when dim is -1, a 0-d result),
    keeping the dims for broadcasting. Mirrors torch.norm_except_dim."""
    _arg.tensor(v, "norm_except_dim", "v", 1)
    pow = pow if pow.__class__ is int else index(pow, "norm_except_dim", "pow", 2)
    dim = dim if dim.__class__ is int else index(dim, "norm_except_dim", "dim", 3)
    return _norm_except_dim(v, dim, pow)


def _softmax_backward_data(grad_output, output, dim, input_dtype) -> Tensor:
    """softmax's gradient from its output y: y (grad - sum(grad y)) along dim, in input_dtype
    (the dtype softmax's input had). Mirrors torch._softmax_backward_data (custom attention
    Functions call it, EDM's among them); differentiable again."""
    from minitorch._ops.nn_kernels import SoftmaxBackward

    d = _ops._common.wrap_dim(_int_arg(dim, "_softmax_backward_data", "dim"), output.ndim)
    out = SoftmaxBackward.apply(grad_output, output, dim=d)
    dt = _dtype.to_dtype(input_dtype, "_softmax_backward_data")
    return out if out.dtype is dt else out.to(dt)


def _weight_norm(v, g, dim=0) -> Tensor:
    """v * (g / norm_except_dim(v, 2, dim)), differentiable in v and g. Mirrors
    torch._weight_norm."""
    return _weight_norm_impl(v, g, _int_arg(dim, "_weight_norm", "dim"))


# --- dropout: (input, p, train), no defaults ---


_MISSING = object()  # an argument the call left out


def _aten_p(op, input, p, train, extra):
    """torch.dropout & co check p in the kernel: a RuntimeError with p printed as C++ does
    (F.dropout's Python check raises ValueError)."""
    _check_arguments(op, input, p, train, extra)
    if isinstance(p, (int, float)):
        if not 0.0 <= p <= 1.0:
            _arg.tensor(input, op)  # (the parser's check, before the kernel's)
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    else:  # torch's parser: a float (a 0-d tensor reads as one), after the input
        _arg.tensor(input, op)
        _arg.floating(p, op, "p", 2)
    return p


def _check_arguments(op, input, p, train, extra):
    """torch's parser's TypeErrors for a call of an (input, p, train) function with more than
    three positional arguments or missing some (it names the first one missing and all after
    it)."""
    if extra:
        raise too_many_positional(op, 3 + len(extra), 3)
    if input is _MISSING or p is _MISSING or train is _MISSING:
        first = next(i for i, a in enumerate((input, p, train)) if a is _MISSING)
        raise missing_positional(op, *("input", "p", "train")[first:])


def _aten_dropout(name: str, kernel, inplace: bool, feature: bool):
    """torch.<name>(input, p, train): `kernel` (_dropout or _alpha_dropout) in place or not, of
    single elements or (feature) whole channels of dim 1, after torch's argument checks."""

    def fn(input=_MISSING, p=_MISSING, train=_MISSING, *extra) -> Tensor:
        p = _aten_p(name, input, p, train, extra)
        return kernel(input, p, train, inplace, feature)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Mirrors torch.{name}."
    return fn


dropout = _aten_dropout("dropout", _dropout, False, False)
dropout_ = _aten_dropout("dropout_", _dropout, True, False)
feature_dropout = _aten_dropout("feature_dropout", _dropout, False, True)
feature_dropout_ = _aten_dropout("feature_dropout_", _dropout, True, True)
alpha_dropout = _aten_dropout("alpha_dropout", _alpha_dropout, False, False)
alpha_dropout_ = _aten_dropout("alpha_dropout_", _alpha_dropout, True, False)
feature_alpha_dropout = _aten_dropout("feature_alpha_dropout", _alpha_dropout, False, True)
feature_alpha_dropout_ = _aten_dropout("feature_alpha_dropout_", _alpha_dropout, True, True)


def native_dropout(input=_MISSING, p=_MISSING, train=_MISSING, *extra) -> tuple:
    """(output, keep mask as bool). Mirrors torch.native_dropout (train=None means training;
    p is unchecked, as in torch: one outside [0, 1] fails in bernoulli_)."""
    _check_arguments("native_dropout", input, p, train, extra)
    try:
        if train is False:
            out, mask = input.clone(), ones_like(input, dtype=_dtype.bool)
        elif p == 1:
            out, mask = input * 0, zeros_like(input, dtype=_dtype.bool)
        else:
            keep = _keep_mask(input, p, False)
            out, mask = input * (keep * (1.0 / (1 - p))), keep.bool()
    except (AttributeError, TypeError):  # torch's parser refuses a non-tensor input first
        _arg.tensor(input, "native_dropout")
        raise
    # torch's one node, listing the input alone (the mask is not differentiable)
    as_node(out, "NativeDropoutBackward0", (input,), attrs={"p": p, "mask": mask})
    return out, mask


show_saved("NativeDropoutBackward0", {"p": "p", "result1": "mask"})  # as torch's node


# --- normalization with its statistics: (output, mean, 1 / std) ---


def _mean_rstd(x, dims, eps):
    with no_grad():
        mean = x.mean(dims, keepdim=True)
        rstd = ((x - mean).square().mean(dims, keepdim=True) + eps).rsqrt()
    return mean, rstd


def native_layer_norm(input, normalized_shape, weight, bias, eps) -> tuple:
    """Mirrors torch.native_layer_norm (mean and rstd keep the normalized dims as size 1)."""
    out = F.layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    return (out, *_mean_rstd(input, dims, eps))


def native_batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps
) -> tuple:
    """Mirrors torch.native_batch_norm (the batch statistics per channel when training, empty
    tensors otherwise)."""
    try:
        out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    except Exception:  # whatever an argument of the wrong type breaks: torch's parser first
        op = "native_batch_norm"
        _arg.tensor(input, op)
        for pos, (name, t) in enumerate(
            (("weight", weight), ("bias", bias), ("running_mean", running_mean),
             ("running_var", running_var)), 2
        ):  # fmt: skip
            _arg.opt_tensor(t, op, name, pos)
        _arg.boolean(training, op, "training", 6)
        _arg.floating(momentum, op, "momentum", 7)
        _arg.floating(eps, op, "eps", 8)
        raise
    if not training:
        none = input.new_empty(0)
        return out, none, none.clone()
    mean, rstd = _mean_rstd(input, tuple(d for d in range(input.ndim) if d != 1), eps)
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> tuple:
    """Mirrors torch.native_group_norm (mean and rstd of shape (N, group), outputs of the same
    node). The input is read as (N, C, HxW), whatever its shape."""
    from minitorch.nn._functional_norm import _group_norm

    try:
        x = input.reshape(N, C, HxW)
        out = _group_norm(x, group, weight, bias, eps).reshape(input.shape)
    except Exception:  # whatever an argument of the wrong type breaks: torch's parser first
        op = "native_group_norm"
        _arg.tensor(input, op)
        _arg.opt_tensor(weight, op, "weight", 2)
        _arg.opt_tensor(bias, op, "bias", 3)
        for pos, (name, n) in enumerate((("N", N), ("C", C), ("HxW", HxW), ("group", group)), 4):
            _arg.integer(n, op, name, pos)
        _arg.floating(eps, op, "eps", 8)
        raise
    size = C // group * HxW
    if size:
        # differentiable: torch's backward takes the statistics' gradients too
        groups = input.reshape(N, group, size)
        if input.dtype in _dtype.HALF_FLOATS:  # accumulated in float32, as torch's kernel
            groups = groups.float()
        mean = groups.mean(2)
        rstd = ((groups - mean.unsqueeze(2)).square().mean(2) + eps).rsqrt()
        mean, rstd = mean.to(input.dtype), rstd.to(input.dtype)
    else:  # empty groups: torch's kernel gives a 0 mean (and NaN rstd)
        mean = zeros((N, group), dtype=input.dtype, device=input.device)
        rstd = mean + float("nan")
    if out.requires_grad:
        attrs = {"weight": weight, "groups": group, "eps": eps}  # (its _saved_<name>)
        edges = (input, weight, bias)
        out, mean, rstd = as_node(
            (out, mean, rstd), "NativeGroupNormBackward0", edges, saved=(input,), attrs=attrs
        )
    return out, mean, rstd


# --- embedding ---


def embedding(
    weight=REQUIRED,
    indices=REQUIRED,
    padding_idx=-1,
    scale_grad_by_freq=False,
    sparse=False,
    *extra,
) -> Tensor:
    """Mirrors torch.embedding (weight first; padding_idx=-1 means none)."""
    if extra or weight is REQUIRED or indices is REQUIRED:
        raise arity_error("embedding", extra, 5, weight=weight, indices=indices)
    if padding_idx.__class__ is not int:  # torch's parser: an int (read after the tensors)
        _arg.tensor(weight, "embedding", "weight", 1)
        _arg.tensor(indices, "embedding", "indices", 2)
        padding_idx = index(padding_idx, "embedding", "padding_idx", 3)
    pad = None if padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, None, 2.0, scale_grad_by_freq, sparse)


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def _bag_arguments(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample, last,
                   pad) -> None:  # fmt: skip
    """torch.embedding_bag's parser's TypeError for the first of its arguments of the wrong
    type; None when all are right (the slow path: it runs when a check fails)."""
    op = "embedding_bag"
    _arg.tensor(weight, op, "weight", 1)
    _arg.tensor(indices, op, "indices", 2)
    if not isinstance(offsets, Tensor):
        raise not_tensor(op, offsets, "offsets", 3)
    _arg.boolean(scale_grad_by_freq, op, "scale_grad_by_freq", 4)
    index(mode, op, "mode", 5)
    _arg.boolean(sparse, op, "sparse", 6)
    _arg.opt_tensor(per_sample, op, "per_sample_weights", 7)
    _arg.boolean(last, op, "include_last_offset", 8)
    if pad is not None:
        _arg.integer(pad, op, "padding_idx", 9)


def embedding_bag(
    weight,
    indices,
    offsets,
    scale_grad_by_freq=False,
    mode=0,
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
) -> tuple:
    """(output, offset2bag, bag_size, max_indices). Mirrors torch.embedding_bag for 1-D indices
    with offsets (mode 0 sum, 1 mean, 2 max).

    Differences from torch: in max mode, a bag whose maximum is reached by several rows reports
    the smallest row index."""
    if not isinstance(offsets, Tensor) or mode.__class__ is not int:
        _bag_arguments(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                       per_sample_weights, include_last_offset, padding_idx)  # fmt: skip
    try:
        if per_sample_weights is not None and mode != 0:
            raise RuntimeError("embedding_bag: per_sample_weights only supported with mode='sum'")
        name = _BAG_MODES.get(mode)
        if name is None:
            raise RuntimeError("`mode` must be sum, mean, or max.")
        # the kernel's order only: F.embedding_bag would swap a legacy (weight, input) pair
        out = _embedding_bag(
            indices,
            weight,
            offsets,
            None,
            2,
            scale_grad_by_freq,
            name,
            sparse,
            per_sample_weights,
            include_last_offset,
            padding_idx,
        )
    except Exception:  # whatever an argument of the wrong type breaks: torch's parser first
        _bag_arguments(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
                       per_sample_weights, include_last_offset, padding_idx)  # fmt: skip
        raise
    bags = out.shape[0]
    long = _dtype.int64
    flat = indices.reshape(-1)
    starts = zeros(flat.shape[0] + 1, dtype=long, device=weight.device)
    later = offsets[1:bags].to(long)
    bag_of = _ops.cumsum(starts.index_add(0, later, later.new_ones(later.shape)), 0)
    bag_of = bag_of[: flat.shape[0]]
    if name == "sum":
        # torch's sum path reports no bag sizes (a zero per offset, include_last_offset's last
        # too), and no offset2bag either for the float types its fast kernel takes (which it
        # does not with a padding_idx)
        if weight.dtype is not _dtype.float64 and padding_idx is None:
            bag_of = empty(0, dtype=long, device=weight.device)
        none = zeros(offsets.shape[0], dtype=long, device=weight.device)
        return out, bag_of, none, none.clone()
    if padding_idx is None:
        counted = ones_like(bag_of)
    else:  # a bag's size leaves its padding out (a negative padding_idx counts from the end)
        pad = padding_idx + weight.shape[0] if padding_idx < 0 else padding_idx
        counted = (flat != pad).to(long)
    size = zeros(bags, dtype=long, device=weight.device).index_add(0, bag_of, counted)
    if name == "mean":
        return out, bag_of, size, size
    d = weight.shape[1]
    vals = _ops.index_select(weight.detach(), 0, flat)
    hit = vals == _ops.index_select(out.detach(), 0, bag_of)
    rows = _ops.where(hit, flat.unsqueeze(1), weight.shape[0])
    best = zeros((bags, d), dtype=long, device=weight.device).scatter_reduce(
        0, bag_of.unsqueeze(1).expand(flat.shape[0], d), rows, "amin", include_self=False
    )
    return out, bag_of, size, best


# --- losses: reduction is ATen's int ---


def kl_div(input, target, reduction=0, *, log_target=False) -> Tensor:
    """Mirrors torch.kl_div (reduction=1 is the element-wise mean, without F's warning)."""
    name = _reduction(reduction, "kl_div", 3)
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    return loss if name == "none" else (loss.mean() if name == "mean" else loss.sum())


def hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor:
    """Mirrors torch.hinge_embedding_loss."""
    red = _reduction(reduction, "hinge_embedding_loss", 4)
    return F.hinge_embedding_loss(input, target, margin, reduction=red)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor:
    """Mirrors torch.margin_ranking_loss."""
    red = _reduction(reduction, "margin_ranking_loss", 5)
    try:
        return F.margin_ranking_loss(input1, input2, target, margin, reduction=red)
    except AttributeError:  # F's input1.dim() of a non-tensor: torch's parser refuses it first
        _arg.tensor(input1, "margin_ranking_loss", "input1", 1)
        _arg.tensor(input2, "margin_ranking_loss", "input2", 2)
        _arg.tensor(target, "margin_ranking_loss", "target", 3)
        raise


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor:
    """Mirrors torch.cosine_embedding_loss."""
    red = _reduction(reduction, "cosine_embedding_loss", 5)
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=red)


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=0
) -> Tensor:
    """Mirrors torch.triplet_margin_loss."""
    red = _reduction(reduction, "triplet_margin_loss", 8)
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=red)


def poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor:
    """Mirrors torch.poisson_nll_loss (every argument positional and required)."""
    red = _reduction(reduction, "poisson_nll_loss", 6)
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=red)


def binary_cross_entropy_with_logits(
    input, target, weight=None, pos_weight=None, reduction=0
) -> Tensor:
    """Mirrors torch.binary_cross_entropy_with_logits (pos_weight before reduction)."""
    op = "binary_cross_entropy_with_logits"
    _arg.tensor(input, op, "input", 1)
    _arg.tensor(target, op, "target", 2)
    _arg.opt_tensor(weight, op, "weight", 3)
    _arg.opt_tensor(pos_weight, op, "pos_weight", 4)
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction, op, 5), pos_weight=pos_weight
    )


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False
) -> Tensor:
    """Mirrors torch.ctc_loss (see _reduction for its reduction)."""
    args = (log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    if not is_index(reduction):
        raise _ctc_parser_error(args)
    try:
        return F.ctc_loss(*args[:5], _reduction(reduction, "ctc_loss", 6), zero_infinity)
    except TypeError as e:
        if not str(e).startswith("ctc_loss() received an invalid combination"):
            raise
        raise _ctc_parser_error(args) from None


def _ctc_parser_error(args) -> TypeError:
    """torch's TypeError for torch.ctc_loss's arguments, showing those the call gave (F.ctc_loss
    shows all seven)."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments
    from minitorch.nn._functional_ctc import _OVERLOADS

    names = ("log_probs", "targets", "input_lengths", "target_lengths", "blank", "reduction",
             "zero_infinity")  # fmt: skip
    given = call_arguments("ctc_loss")
    if given is None:
        return invalid_arguments("ctc_loss", _OVERLOADS, args, {})
    n, keywords = given
    kwargs = {k: v for k, v in zip(names, args, strict=True) if k in keywords}
    return invalid_arguments("ctc_loss", _OVERLOADS, args[:n], kwargs)


# --- activations and padding ---


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None) -> Tensor:
    """Mirrors torch.rrelu."""
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None) -> Tensor:
    """Mirrors torch.rrelu_."""
    return F.rrelu_(input, lower, upper, training)


def threshold(input, threshold, value, *, out=None) -> Tensor:
    """Mirrors torch.threshold."""
    result = F.threshold(input, threshold, value)
    if out is None:
        return result
    check_out(out, "threshold", result)
    return write_out(out, result)


def threshold_(input, threshold, value) -> Tensor:
    """Mirrors torch.threshold_."""
    return F.threshold_(input, threshold, value)


def constant_pad_nd(input, pad, value=0) -> Tensor:
    """Mirrors torch.constant_pad_nd."""
    return F.pad(input, pad, "constant", value)


# --- spatial transformers: ATen's enums (mode 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
# 1 border, 2 reflection) ---

_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDINGS = ("zeros", "border", "reflection")


def affine_grid_generator(theta, size, align_corners=None) -> Tensor:
    """Mirrors torch.affine_grid_generator: F.affine_grid, but a parsed function (a non-tensor
    theta is torch's TypeError, where F.affine_grid's theta.is_floating_point() fails)."""
    try:
        return F.affine_grid(theta, size, align_corners)
    except AttributeError:
        _arg.tensor(theta, "affine_grid_generator", "theta", 1)
        raise


def _grid_sampler(op, ndim, input, grid, interpolation_mode, padding_mode, align_corners):
    """F.grid_sample with ATen's enums, of an `ndim`-d input (any: 0), after `op`'s checks."""
    try:
        if ndim and input.ndim != ndim:
            raise RuntimeError(f"{op}(): expected {ndim}D input, but got {list(input.shape)}")
        return F.grid_sample(
            input,
            grid,
            _GRID_MODES[interpolation_mode],
            _GRID_PADDINGS[padding_mode],
            align_corners,
        )
    except Exception:  # whatever an argument of the wrong type breaks: torch's parser first
        _arg.tensor(input, op)
        _arg.tensor(grid, op, "grid", 2)
        _arg.integer(interpolation_mode, op, "interpolation_mode", 3)
        _arg.integer(padding_mode, op, "padding_mode", 4)
        _arg.boolean(align_corners, op, "align_corners", 5)
        raise


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """Mirrors torch.grid_sampler (F.grid_sample with ATen's enums)."""
    return _grid_sampler(
        "grid_sampler", 0, input, grid, interpolation_mode, padding_mode, align_corners
    )


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """Mirrors torch.grid_sampler_2d."""
    return _grid_sampler(
        "grid_sampler_2d", 4, input, grid, interpolation_mode, padding_mode, align_corners
    )


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners) -> Tensor:
    """Mirrors torch.grid_sampler_3d."""
    return _grid_sampler(
        "grid_sampler_3d", 5, input, grid, interpolation_mode, padding_mode, align_corners
    )


# --- whole recurrent layers: ATen's flat parameter lists ---


def _rnn_accepts(kind: str, x, at: int) -> bool:
    """Whether torch's parser takes x for a parameter of that kind; a sequence of tensors with
    another element is its own TypeError (argument `at`, counted from 0)."""
    if kind == "Tensor":
        return isinstance(x, Tensor)
    if kind == "tuple of Tensors":
        if not isinstance(x, (list, tuple)):
            return False
        for i, t in enumerate(x):
            if not isinstance(t, Tensor):
                raise not_tensor_element(i, t, at)
        return True
    if kind == "bool":
        return x.__class__ is bool
    if x.__class__ is bool:
        return False
    return is_index(x) or (kind == "float" and isinstance(x, (int, float)))


def _rnn_shown(x) -> str:
    """An argument as torch's invalid-combination message describes it."""
    if isinstance(x, list):
        return f"list of [{', '.join(_rnn_shown(t) for t in x)}]"
    if isinstance(x, tuple):
        return f"tuple of ({', '.join(_rnn_shown(t) for t in x)})"
    return type(x).__name__


_RNN_TAIL = (("bool", "has_biases"), ("int", "num_layers"), ("float", "dropout"), ("bool", "train"))


def _check_recurrent_args(name: str, args, with_cell: bool) -> None:
    """torch's parser on torch.lstm / gru / rnn_*'s two signatures: the first that takes every
    argument is used; none: its "invalid combination of arguments" TypeError, each argument
    that a signature refuses marked (a tensor sequence always is, as in torch's message)."""
    hx = ("tuple of Tensors" if with_cell else "Tensor", "hx")
    params = ("tuple of Tensors", "params")
    sigs = (
        (("Tensor", "data"), ("Tensor", "batch_sizes"), hx, params, *_RNN_TAIL,
         ("bool", "bidirectional")),
        (("Tensor", "input"), hx, params, *_RNN_TAIL, ("bool", "bidirectional"),
         ("bool", "batch_first")),
    )  # fmt: skip
    for sig in sigs:
        if len(args) == len(sig) and all(
            _rnn_accepts(k, x, i) for i, ((k, _), x) in enumerate(zip(sig, args, strict=True))
        ):
            return
    lines = [
        f"{name}() received an invalid combination of arguments - got "
        f"({', '.join(type(x).__name__ for x in args)}), but expected one of:"
    ]
    for sig in sigs:
        lines.append(f" * ({', '.join(f'{k} {n}' for k, n in sig)})")
        if len(args) == len(sig):
            marked = (
                _rnn_shown(x)
                if k != "tuple of Tensors" and _rnn_accepts(k, x, i)
                else f"!{_rnn_shown(x)}!"
                for i, ((k, _), x) in enumerate(zip(sig, args, strict=True))
            )
            lines.append(
                "      didn't match because some of the arguments have invalid types: "
                f"({', '.join(marked)})"
            )
    raise TypeError("\n".join(lines) + "\n")


def _recurrent(mode, args, with_cell: bool):
    """torch.lstm / gru / rnn_* in their two overloads, told apart as ATen does: (input, hx,
    params, has_biases, num_layers, dropout, train, bidirectional, batch_first) or the packed
    (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)."""
    _check_recurrent_args(mode.lower(), args, with_cell)
    # the packed form has a Tensor (batch_sizes) where the other has hx (LSTM: a list) or
    # params (the others: a list)
    packed = isinstance(args[1] if with_cell else args[2], Tensor)
    if packed:
        data, batch_sizes, hx, params, has_biases, num_layers, p, train, bidirectional = args
        batch_first = False
        batch_sizes = [int(b) for b in batch_sizes.tolist()]
    else:
        data, hx, params, has_biases, num_layers, p, train, bidirectional, batch_first = args
        batch_sizes = None
    h0, c0 = (hx[0], hx[1]) if with_cell else (hx, None)
    has_proj = c0 is not None and h0.shape[-1] != c0.shape[-1]
    per = 2 + 2 * bool(has_biases) + bool(has_proj)
    dirs = 2 if bidirectional else 1
    if len(params) != per * num_layers * dirs:
        raise RuntimeError(
            f"{mode.lower()}: expected {per * num_layers * dirs} parameter tensors, got "
            f"{len(params)}"
        )
    weights = []
    for k in range(num_layers * dirs):
        w = list(params[k * per : (k + 1) * per])
        b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
        weights.append((w[0], w[1], b_ih, b_hh, w[-1] if has_proj else None))
    x = data.transpose(0, 1) if batch_first else data
    out, h, c = _functional_rnn.rnn_layers(
        mode, x, h0, c0, weights, num_layers, dirs, p, train, batch_sizes
    )
    if batch_first:
        out = out.transpose(0, 1)
    return (out, h, c) if with_cell else (out, h)


def lstm(*args) -> tuple:
    """(output, h_n, c_n). Mirrors torch.lstm (both overloads; projections when hx's sizes
    differ)."""
    return _recurrent("LSTM", args, True)


def gru(*args) -> tuple:
    """(output, h_n). Mirrors torch.gru (both overloads)."""
    return _recurrent("GRU", args, False)


def rnn_tanh(*args) -> tuple:
    """(output, h_n). Mirrors torch.rnn_tanh (both overloads)."""
    return _recurrent("RNN_TANH", args, False)


def rnn_relu(*args) -> tuple:
    """(output, h_n). Mirrors torch.rnn_relu (both overloads)."""
    return _recurrent("RNN_RELU", args, False)
