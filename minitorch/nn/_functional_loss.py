"""nn.functional losses: regression (mse, l1, smooth l1, huber), likelihood (nll, cross entropy,
binary cross entropy, kl divergence, poisson and gaussian nll). Margin losses are in
_functional_loss_margin.py.

Every loss is composed from the ops; log_softmax, nll_loss and binary_cross_entropy are the
fused primitives (minitorch/_ops/nn_kernels.py says why), and the common calls of mse_loss and
binary_cross_entropy_with_logits are one node each (NOTE [ One-node mse_loss ], NOTE [ One-node
binary_cross_entropy_with_logits ]). Nothing here reads device values back
to the host:
the range checks torch makes on targets and probabilities (which need the values) run on CPU
tensors only; see NOTE [ Checks that read values ].
"""

from __future__ import annotations

import math
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._backend import cpu as _CPU
from minitorch._factories import full_like
from minitorch._ops._common import check_float, check_int, not_tensor, quiet, type_name
from minitorch._ops.activation import logsigmoid
from minitorch._ops.nn_kernels import (
    HalfLossMean,
    HuberLoss,
    MseLoss,
    SmoothL1Loss,
    bce_logits_grads_data,
    bce_logits_kernel,
    binary_cross_entropy_kernel,
    nll_loss_kernel,
    plain_nll,
    recorded_nll,
    saved_pair,
)
from minitorch._ops.nn_kernels import log_softmax as _log_softmax
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import (
    _FREED,
    Function,
    Node,
    RefusedBackward,
    _raise_modified,
    fast_path,
    scalar_node,
)
from minitorch.autograd.grad_mode import no_grad
from minitorch.autograd.grad_mode import state as _grad_mode
from minitorch.nn import _argcheck as _arg
from minitorch.nn import _reduction

__all__ = [
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
    "gaussian_nll_loss",
]  # fmt: skip

# NOTE [ Checks that read values ]
# torch raises on an out-of-range class index ("Target 5 is out of bounds."), on probabilities
# outside [0, 1] (binary_cross_entropy) and on negative variances (gaussian_nll_loss). Those checks
# need the values on the host. minitorch makes them for CPU tensors, where the data is already on
# the host, and skips them elsewhere: a loss must not synchronise a GPU. On a GPU an out-of-range
# class index gives an undefined loss instead of an error (torch's CUDA kernels assert instead).


def _on_host(t: Tensor) -> bool:
    return t._device.type == "cpu"


def _first_outside_unit(t: Tensor):
    """The flat index of t's first element outside [0, 1] (a NaN too), or None: none is, or t
    is on a device (NOTE [ Checks that read values ])."""
    if not _on_host(t) or not t.numel():
        return None
    d = t._data
    # the common case in two reductions and no temporary array; a NaN makes min/max NaN, whose
    # comparisons fail, and the element-wise search below finds it
    if d.min() >= 0 and d.max() <= 1:
        return None
    ok = (d >= 0) & (d <= 1)
    return None if bool(ok.all()) else int((~ok).reshape(-1).argmax())


def _errstate(t: Tensor):
    """A context in which t's backend computes 0 / 0, 1 / 0 and log(0) without NumPy's
    RuntimeWarning (torch computes them silently). The filter in minitorch/__init__.py covers
    the kernels in minitorch._ops only while no user filter (`simplefilter("error")`, pytest's
    `-W error`) comes before it; the few losses whose ordinary inputs give such values (an
    all-ignored batch, a zero in kl_div's target) compute them inside this context."""
    return quiet(t._device.backend.xp, divide="ignore", invalid="ignore", over="ignore")


# --- reductions ---


def legacy_reduction(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction named by the deprecated size_average/reduce pair, warning at the caller's
    caller (the user's loss call). Mirrors torch's _Reduction.legacy_get_string."""
    ret = _reduction.legacy_get_string(size_average, reduce, emit_warning=False)
    if emit_warning:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use reduction='"
            f"{ret}' instead.",
            UserWarning,
            stacklevel=3,
        )
    return ret


def resolve_reduction(size_average, reduce, reduction: str) -> str:
    """reduction (or the legacy pair when given), checked like torch's _Reduction.get_enum:
    the legacy 'elementwise_mean' is 'mean', with torch's deprecation warning."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        if reduction == "elementwise_mean":
            _reduction.warn_elementwise_mean(stacklevel=3)
            return "mean"
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _check_reduction_strict(reduction: str, message: str) -> None:
    """The losses whose torch code checks the name itself instead of calling get_enum
    (triplet_margin_with_distance_loss; poisson_nll_loss, gaussian_nll_loss and
    multilabel_soft_margin_loss check inline, concatenating the name): there
    'elementwise_mean' is no valid name either."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(message.format(reduction))


_HALF = (_dtype.float16, _dtype.bfloat16)


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def check_fits(shape: tuple, other: Tensor | None) -> None:
    """torch's error where `other` (a weight, or soft margin's target) would broadcast a loss
    beyond `shape`, the shape torch's kernel writes it into: (N, 1) weights on (N,) logits
    would silently give an (N, N) loss. Shapes that do not broadcast at all are left to the
    arithmetic's own error. Only reached when the shapes differ."""
    if other is None or other._data.shape == shape:
        return
    from minitorch._ops.shape_join import broadcast_shapes

    try:
        full = tuple(broadcast_shapes(shape, other._data.shape))
    except RuntimeError:
        return
    if full != shape:
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}"
        )


def refuse_hidden_grads(op: str, *pairs) -> None:
    """torch's error for a (name, tensor) argument its op does not differentiate (a loss's
    weight, a target) that requires grad. torch's autograd makes that check before its kernel
    checks shapes, dtypes and values, so a loss whose kernel check fails calls this first, on
    its error path; as_node makes the check for the calls that get past them."""
    if not _grad_mode.enabled:
        return
    for arg, a in pairs:
        if isinstance(a, Tensor) and a._requires_grad:
            raise RuntimeError(
                f"The function '{op}' is not differentiable with respect to argument '{arg}'. "
                "This input cannot have requires_grad True."
            )


def _not_tensors(op: str, input, target) -> Exception:
    """The error for a non-tensor input or target of a loss that torch writes in Python (mse,
    l1, smooth l1, huber, binary cross entropy): its first call, `target.size()`, fails on a
    NumPy array (whose size is an int) with a TypeError, and on a list or a number with
    AttributeError. Only called once reading `._data` has failed."""
    for x, name, pos in ((input, "input", 1), (target, "target", 2)):
        if not isinstance(x, Tensor):
            if hasattr(x, "size"):
                return not_tensor(op, x, name, pos)
            return AttributeError(f"'{type(x).__name__}' object has no attribute 'size'")
    raise AssertionError(f"{op}: no non-tensor argument")  # (unreachable: a caller's mistake)


def _warn_size(input: Tensor, target: Tensor, op: str) -> None:
    try:  # (free when both are tensors, as `isinstance` checks would not be)
        same = target._data.shape == input._data.shape
    except AttributeError:
        raise _not_tensors(op, input, target) from None
    if not same:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _expanded(input: Tensor, target: Tensor):
    """(input, target) broadcast to one shape, as torch's regression losses take them before
    any other step: a shape error comes before the reduction's check, and a 0-d float64
    target against a (1,) half input promotes the loss to float64 once expanded."""
    if input._data.shape == target._data.shape:
        return input, target
    return _ops.broadcast_tensors(input, target)


def _weighted(kind: str, input: Tensor, target: Tensor, weight, reduction: str, delta=1.0):
    """mse/l1/huber with a per-element `weight`, the way torch's Python code computes it: on
    the broadcast pair with plain ops (a bool target fails at the subtraction; huber's
    unweighted kernel), then scaled; the reduction name is checked last, against
    'none'/'mean'/'sum' only (no 'elementwise_mean'). 'mean' divides by the weights' sum
    (mse, l1) or by the count (huber)."""
    x, t = _expanded(input, target)
    if weight.shape != input.shape:  # (the input's own shape, not the expanded one)
        raise ValueError("Weights and input must have the same size.")
    if kind == "mse":
        loss = _ops.pow(x - t, 2)
    elif kind == "l1":
        loss = _ops.abs(x - t)
    else:
        loss = huber_loss(x, t, "none", delta)
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if kind != "huber" else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# --- the nodes' saved values ---

# NOTE [ Loss nodes' saved values ]
# torch's loss nodes show what they saved: grad_fn._saved_self and _saved_target (the tensors
# its kernel got: the broadcast pair of mse, smooth l1 and huber), _saved_weight and
# _saved_pos_weight (None where not given), _saved_reduction (0, 1, 2 for 'none', 'mean', 'sum')
# and the kernel's numbers (_saved_beta, _saved_delta). The composite nodes answer them
# (show_saved): the tensors from as_node(saved=...) (saved_value), the weights and numbers from
# what as_node(attrs=...) kept on the node. Each tensor reads as torch's do: the same object,
# torch's error once a backward freed the graph or once it changed in place; a weight torch did
# not get reads None even then. The node's edges lead to the tensors as given too (a target of
# another dtype is converted inside the node). Not given: _raw_saved_<name> (composite nodes
# keep no SavedTensor entries).

_ENUM = {name: {"reduction": i} for i, name in enumerate(("none", "mean", "sum"))}
_UNWEIGHTED = {r: {**v, "weight": None, "pos_weight": None} for r, v in _ENUM.items()}


def _weights(reduction: str, weight, pos_weight=None) -> dict:
    """as_node's attrs for a node that shows weights (NOTE [ Loss nodes' saved values ]): the
    reduction's number, and each weight (a Tensor or None) with its version at the call."""
    if weight is None and pos_weight is None:
        return _UNWEIGHTED[reduction]  # (the common case: no dict made)
    attrs = {"reduction": _ENUM[reduction]["reduction"]}
    for key, w in (("weight", weight), ("pos_weight", pos_weight)):
        attrs[key] = None if w is None else (w, w._vc, w._vc[0])
    return attrs


def _saved_weight(key: str):
    """A show_saved entry: the weight kept as `key` by _weights, read as torch's saved tensors
    (NOTE [ Loss nodes' saved values ])."""

    def read(node):
        kept = node.__dict__[key]
        if kept is None:  # (torch's undefined saved tensor reads None, after a backward too)
            return None
        if node._saved is _FREED:
            return Node.saved_tensors.fget(node)  # raises torch's freed-graph error
        w, vc, version = kept
        if vc[0] != version:
            _raise_modified(node, "in", w, vc[0], version, 0)
        return w

    return read


_PAIR = {"self": saved_value(0), "target": saved_value(1), "reduction": "reduction"}
show_saved("MseLossBackward0", _PAIR)
show_saved("SmoothL1LossBackward0", {**_PAIR, "beta": "beta"})
show_saved("HuberLossBackward0", {**_PAIR, "delta": "delta"})
show_saved("BinaryCrossEntropyBackward0", {**_PAIR, "weight": _saved_weight("weight")})
show_saved(
    "BinaryCrossEntropyWithLogitsBackward0",
    {**_PAIR, "weight": _saved_weight("weight"), "pos_weight": _saved_weight("pos_weight")},
)


# --- regression ---


def _like_input(target, input):
    """target in input's float dtype: the losses whose torch kernel writes into a tensor shaped
    like the input (huber, soft margin) return the input's dtype, not the promoted one."""
    if (
        isinstance(target, Tensor)
        and target.dtype is not input.dtype
        and target.dtype.is_floating_point
        and input.dtype.is_floating_point
    ):
        return target.to(input.dtype)
    return target


def _float_pair(input: Tensor, target: Tensor, kernel: str, like_input: bool = False):
    """(input, target) in their promoted dtype, for the regression losses whose torch kernel
    promotes them first (a bool or integer target against a float input is fine there, while
    the `-` operator refuses bool) and then runs float kernels only. like_input: the kernel
    writes into input's dtype (huber), which the promoted dtype must be castable to. Only
    called off the common float/float path."""
    dt = _dtype.binary_dtype(input.dtype, input.ndim, target.dtype, target.ndim)
    if like_input and not _dtype.can_cast(dt, input.dtype):
        raise RuntimeError(
            f"result type {_dtype.scalar_name(dt)} can't be cast to the desired output type "
            f"{_dtype.scalar_name(input.dtype)}"
        )
    if not dt.is_floating_point:
        name = _dtype.scalar_name(dt)
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{name}'")
    out = input.dtype if like_input else dt
    return input.to(out), target.to(out)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """mean((input - target)^2). Mirrors torch.nn.functional.mse_loss."""
    if _autocast.state.any_enabled:
        args = (input, target, size_average, reduce, reduction, weight)
        return _autocast.call(mse_loss, _autocast.FP32, args)
    _warn_size(input, target, "mse_loss")
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if weight is not None:
        return _weighted("mse", input, target, weight, reduction)
    input, target = _expanded(input, target)
    shown = (input, target)  # what torch's kernel gets, and its node saves
    reduction = resolve_reduction(None, None, reduction)
    x = input._data
    if (  # See NOTE [ One-node mse_loss ] in minitorch/_ops/nn_kernels.py
        input.__class__ is Tensor
        and target.__class__ is Tensor
        and x.dtype.char in "fd"
        and target._data.dtype == x.dtype
        and x.ndim
        and x.size
        and fast_path[0]
    ):
        return MseLoss.apply(input, target, reduction=reduction)
    if input.dtype is not target.dtype or not input.dtype.is_floating_point:
        input, target = _float_pair(input, target, "mse")
    # See NOTE [ Regression losses' target gradient ]
    if reduction == "mean" and input.dtype in _HALF and input._device.type == "cpu":
        # NOTE [ Half-precision loss means ]
        loss = MseLoss.apply(input, target, half_mean=True)
        out = HalfLossMean.apply(loss, dims=tuple(range(loss.ndim)), keepdim=False)
    else:
        loss = MseLoss.apply(input, target, mean=reduction == "mean")
        out = reduce_loss(loss, reduction)
    return as_node(out, "MseLossBackward0", shown, saved=shown, attrs=_ENUM[reduction])


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """mean(|input - target|). Mirrors torch.nn.functional.l1_loss."""
    if _autocast.state.any_enabled:
        args = (input, target, size_average, reduce, reduction, weight)
        return _autocast.call(l1_loss, _autocast.FP32, args)
    _warn_size(input, target, "l1_loss")
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if weight is not None:
        return _weighted("l1", input, target, weight, reduction)
    input, target = _expanded(input, target)
    reduction = resolve_reduction(None, None, reduction)
    loss = _ops.abs(input - target)
    return reduce_loss(loss, reduction)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, |d| - beta / 2 elsewhere (d = input - target). Mirrors
    torch.nn.functional.smooth_l1_loss."""
    if _autocast.state.any_enabled:
        args = (input, target, size_average, reduce, reduction, beta)
        return _autocast.call(smooth_l1_loss, _autocast.FP32, args)
    _warn_size(input, target, "smooth_l1_loss")
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    input, target = _expanded(input, target)
    shown = (input, target)  # what torch's kernel gets, and its node saves
    reduction = resolve_reduction(None, None, reduction)
    if beta.__class__ is not float:
        beta = check_float("smooth_l1_loss", beta, "beta", 4)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:  # torch's l1_loss: a bool target fails at the subtraction
        return reduce_loss(_ops.abs(input - target), reduction)
    if input.dtype is not target.dtype or not input.dtype.is_floating_point:
        input, target = _float_pair(input, target, "smooth_l1")
    # See NOTE [ Regression losses' target gradient ]
    out = reduce_loss(SmoothL1Loss.apply(input, target, beta=beta), reduction)
    attrs = {"reduction": _ENUM[reduction]["reduction"], "beta": float(beta)}
    return as_node(out, "SmoothL1LossBackward0", shown, saved=shown, attrs=attrs)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """0.5 d^2 where |d| < delta, delta (|d| - delta / 2) elsewhere. Mirrors
    torch.nn.functional.huber_loss."""
    if delta.__class__ is not float:
        delta = check_float("huber_loss", delta, "delta", 4)
    if _autocast.state.any_enabled:
        return _autocast.call(huber_loss, _autocast.FP32, (input, target, reduction, delta, weight))
    _warn_size(input, target, "huber_loss")
    if weight is not None:
        return _weighted("huber", input, target, weight, reduction, delta)
    input, target = _expanded(input, target)
    shown = (input, target)  # what torch's kernel gets, and its node saves
    reduction = resolve_reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        input, target = _float_pair(input, target, "huber", like_input=True)
    target = _like_input(target, input)
    attrs = {"reduction": _ENUM[reduction]["reduction"], "delta": float(delta)}
    if shown[0]._data.dtype is not shown[1]._data.dtype and _grad_mode.enabled:
        refused = _huber_refused(shown)
        if refused is not None:
            with no_grad():
                out = reduce_loss(HuberLoss.apply(input, target, delta=delta), reduction)
            out = RefusedBackward.apply(*shown, result=out._data, message=refused)
            return as_node(out, "HuberLossBackward0", shown, saved=shown, attrs=attrs)
    # See NOTE [ Regression losses' target gradient ]
    loss = HuberLoss.apply(input, target, delta=delta)
    out = reduce_loss(loss, reduction)
    return as_node(out, "HuberLossBackward0", shown, saved=shown, attrs=attrs)


def _huber_refused(shown):
    """torch's huber_loss_backward takes the input and the target in one dtype: its message
    for the first gradient it computes (the input's, else the target's), None when neither
    requires grad."""
    x, t = shown
    if not x._requires_grad:
        if not t._requires_grad:
            return None
        x, t = t, x
    return f"Found dtype {_short(t.dtype)} but expected {_short(x.dtype)}"


# --- negative log likelihood and cross entropy ---

_short = _dtype.scalar_name  # torch's dtype spelling in messages ("Float")
_REDUCTIONS = ("none", "mean", "sum")
_HOST_XP = _CPU.backend.xp  # (the targets' range check reads CPU tensors only)
_INT64 = _HOST_XP.dtype("int64")  # (what minitorch.int64 tensors hold on the host)
_UINT64 = _HOST_XP.dtype("uint64")


def _check_nll(input: Tensor, target: Tensor, weight) -> None:
    """torch's shape, dtype and weight checks of nll_loss (nll_loss_nd / nll_loss2d)."""
    try:
        shape, t_shape = input._data.shape, target._data.shape  # tuples: no Size objects made
    except AttributeError:  # torch's argument parser: a NumPy array, a list of class ids, ...
        raise _not_tensor_args("nll_loss_nd", input, target) from None
    dim, t_dim = len(shape), len(t_shape)
    if (  # the common case, (N, C) float scores and (N,) int64 targets, passes every check below
        dim == 2
        and t_dim == 1
        and shape[0] == t_shape[0]
        and weight is None
        and target._data.dtype is _INT64
        and input._data.dtype.char in "fd"
    ):
        return
    if dim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {dim})")
    got = t_shape[0] if t_dim else 0  # (torch counts a 0-d target as a batch of 0)
    if dim != 1 and shape[0] != got:
        raise ValueError(
            f"Expected input batch_size ({shape[0]}) to match target batch_size ({got})."
        )
    if dim > 2 and dim != 4 and t_shape != (shape[0],) + shape[2:]:
        raise RuntimeError(f"Expected target size {[shape[0], *shape[2:]]}, got {list(t_shape)}")
    # torch's order: the checks above (nll_loss_nd's), then its autograd's refusal of learnable
    # class weights, then the kernel's checks below
    if weight is not None and isinstance(weight, Tensor) and weight._requires_grad:
        # torch's kernel does not differentiate the class weights: learnable ones raise
        # instead of silently getting no gradient (as_node's `hidden` check, for a primitive)
        op = "nll_loss2d_forward" if dim > 2 else "nll_loss_forward"
        refuse_hidden_grads(op, ("weight", weight))
    if dim <= 2 and t_dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 4 and t_dim != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {t_dim}"
        )
    # torch's order: the checks above, then the target's dtype, then the rest
    if target._data.dtype.char not in "qlB":  # int64 (long or long long) or uint8
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_short(target.dtype)}"
        )
    if dim == 2 and t_dim == 0:  # an empty batch against a 0-d target: torch reads its size
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if dim == 1 and t_dim == 1 and t_shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {t_shape[0]}"
        )
    n_classes = shape[0] if dim == 1 else shape[1]
    if weight is not None:  # torch: the weight's size before the spatial and dtype checks
        if not isinstance(weight, Tensor):
            raise not_tensor("nll_loss_nd", weight, "weight", 3)
        if dim > 2:  # torch's spatial kernels count the weight's elements only
            if weight.numel() != n_classes:
                raise RuntimeError("weight tensor should be defined either for all or no classes")
        elif weight.ndim != 1 or weight.shape[0] != n_classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no "
                f"classes but got weight tensor of shape: {list(weight.shape)}"
            )
    if dim == 4 and t_shape[1:] != shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: {list(t_shape)}")
    if not input.dtype.is_floating_point:
        # torch's CPU kernels: nll_loss2d's for the inputs it reshapes to 4-D
        kernel = "nll_loss2d_forward_out_frame" if input.ndim > 2 else "nll_loss_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(
            f"expected scalar type {_short(input.dtype)} but found {_short(weight.dtype)}"
        )
    if dim > 2 and target._data.dtype.char == "B":  # torch's spatial kernel takes int64 only
        raise RuntimeError("expected scalar type Long but found Byte")


def _not_tensor_args(op: str, input, target) -> TypeError:
    """torch's TypeError for a non-tensor input or target of a loss its argument parser reads
    (nll_loss, cross_entropy)."""
    if not isinstance(input, Tensor):
        return not_tensor(op, input, "input", 1)
    return not_tensor(op, target, "target", 2)


def _check_targets(target: Tensor, ignore_index: int, n_classes: int, byte=False) -> None:
    """torch's IndexError for a class index outside [0, n_classes). See NOTE [ Checks that read
    values ]. byte: the index came from a uint8 target of a batched reduction='none' loss, whose
    kernel puts it into the message as a character (a byte past 127 fails UTF-8 decoding)."""
    t = target._data
    if not _on_host(target) or t.size == 0:
        return
    if t.dtype is _INT64:  # the common case, in one reduction: negative ids are huge as uint64
        if _HOST_XP.maximum.reduce(t.view(_UINT64), axis=None) < n_classes:
            return
    elif t.min() >= 0 and t.max() < n_classes:  # the common case, in two reductions
        return
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        v = int(t[bad].reshape(-1)[0])
        if byte:
            raise IndexError((b"Target " + bytes([v]) + b" is out of bounds.").decode())
        raise IndexError(f"Target {v} is out of bounds.")


def _int_arg(v, op: str) -> int:
    """ignore_index given as a 0-d integer tensor (a pad id kept as a tensor) or another
    integer-like object, converted as torch's int arguments are (through __index__); the
    TypeError of torch's kernel `op` for anything else (torch's Python passes it at position
    5)."""
    return check_int(op, v, "ignore_index", 5)


def _nll(logp: Tensor, target: Tensor, weight, ignore_index: int, reduction: str):
    """(the reduced loss, logp, target as int64), logp being (C,) (one sample, its target 0-d
    or (1,)) or (N, C, d1, ...) (targets (N, d1, ...)); checked like torch's nll_loss."""
    _check_nll(logp, target, weight)
    if weight is not None and weight.ndim != 1:  # (C, 1), (1, C), ... for a spatial input
        weight = weight.reshape(-1)
    one = logp._data.ndim == 1  # one sample of C classes (NllLoss takes it as it is)
    # the tensors torch saves (and checks at backward), a uint8 target as given
    watch = (logp, target) if one or target.dtype is _dtype.uint8 else None
    n_classes = logp._data.shape[0 if one else 1]
    if target.dtype is not _dtype.int64:
        byte = target.dtype is _dtype.uint8 and reduction == "none" and not one
        target = target.to(_dtype.int64)
        if byte:
            _check_targets(target, ignore_index, n_classes, byte=True)
    _check_targets(target, ignore_index, n_classes)
    out = nll_loss_kernel(logp, target, weight, ignore_index, reduction, watch)
    return out, logp, target


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """-input[n, target[n]] weighted by weight[target[n]], ignoring ignore_index; 'mean' divides
    by the total weight of the counted targets. Mirrors torch.nn.functional.nll_loss.

    Differences from torch: an out-of-range target raises only on CPU (see NOTE [ Checks that
    read values ]).
    """
    if _autocast.state.any_enabled:
        args = (input, target, weight, size_average, ignore_index, reduce, reduction)
        return _autocast.call(nll_loss, _autocast.FP32, args)
    reduction = resolve_reduction(size_average, reduce, reduction)
    if ignore_index.__class__ is not int:
        ignore_index = _int_arg(ignore_index, "nll_loss_nd")
    elif weight is None:
        if _grad_mode.enabled and input.__class__ is Tensor and input._requires_grad:
            out = recorded_nll(input, target, ignore_index, reduction, False)  # (its nodes only)
        else:  # See NOTE [ The common nll_loss without a node ] in minitorch/_ops/nn_kernels.py
            out = plain_nll(input, target, ignore_index, reduction, False)
        if out is not None:
            return out
    return _nll(input, target, weight, ignore_index, reduction)[0]


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """nll_loss(log_softmax(input, class dim), target) for class indices, or
    -sum(target * log_softmax(input)) for class probabilities (target shaped like input), with
    optional label smoothing. Mirrors torch.nn.functional.cross_entropy.

    Differences from torch: see nll_loss.
    """
    if _autocast.state.any_enabled:
        args = (input, target, weight, size_average, ignore_index, reduce, reduction)
        args += (label_smoothing,)
        return _autocast.call(cross_entropy, _autocast.FP32, args)
    if size_average is not None or reduce is not None or reduction not in _REDUCTIONS:
        reduction = resolve_reduction(size_average, reduce, reduction)
    if ignore_index.__class__ is not int:
        ignore_index = _int_arg(ignore_index, "cross_entropy_loss")
    elif weight is None and label_smoothing.__class__ is float and label_smoothing <= 0.0:
        if _grad_mode.enabled and input.__class__ is Tensor and input._requires_grad:
            out = recorded_nll(input, target, ignore_index, reduction, True)  # (its nodes only)
        else:  # See NOTE [ The common nll_loss without a node ] in minitorch/_ops/nn_kernels.py
            out = plain_nll(input, target, ignore_index, reduction, True)
        if out is not None:
            return out
    if label_smoothing.__class__ is not float:
        check_float("cross_entropy_loss", label_smoothing, "label_smoothing", 6)
    try:
        shape, t_shape = input._data.shape, target._data.shape
    except AttributeError:  # (free when both are tensors)
        raise _not_tensor_args("cross_entropy_loss", input, target) from None
    if weight is not None and not isinstance(weight, Tensor):
        raise not_tensor("cross_entropy_loss", weight, "weight", 3)
    if len(shape) < 1:  # torch: the probabilities' dtype check, then reading dim 1 fails
        if t_shape == shape and not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class "
                f"probabilities, got {_short(target.dtype)}"
            )
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    class_dim = 0 if len(shape) == 1 else 1
    n_classes = shape[class_dim]
    if shape == t_shape:  # class probabilities: torch checks the target's dtype first
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{_short(target.dtype)}"
            )
        if ignore_index >= 0:  # torch refuses a class index only; a negative one passes
            raise RuntimeError("ignore_index is not supported for floating point target")
    if shape == t_shape:
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 1.0:  # (a negative one means no smoothing, as in torch)
        _bad_label_smoothing(label_smoothing)
    logp = _log_softmax(input, class_dim)  # (torch.log_softmax without its alias wrapper)
    nll, logp, index = _nll(logp, target, weight, ignore_index, reduction)
    if label_smoothing <= 0:
        return nll
    if len(shape) == 1 and len(t_shape) == 1:
        # an unbatched input with a (1,) target: nll_loss takes it, torch's smoothing term (0-d)
        # then refuses the target's mask in its in-place masked_fill_
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{t_shape[0]}]")
    if logp.ndim == 1:  # one sample: the smoothing term of a batch of one
        logp, index = logp.unsqueeze(0), index.reshape(1)
    # the smoothing term: -sum_c weight_c logp_c per target, 0 where the target is ignored;
    # 'mean' divides by the total weight of the counted targets, as nll_loss does
    mask = index != ignore_index
    if weight is None:
        w = mask.to(logp.dtype)
    else:
        if weight.ndim != 1:  # (the spatial nll_loss takes it; torch's smoothing term not)
            if weight.shape[0] != weight.numel():
                view = [1, weight.shape[0]] + [1] * (logp.ndim - 2)
                raise RuntimeError(f"shape '{view}' is invalid for input of size {weight.numel()}")
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        if reduction == "mean" and target.dtype is _dtype.uint8:
            # torch's 'mean' gathers the weights of the uint8 targets, which gather refuses
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        w = weight[_ops.where(mask, index, 0)] * mask
        logp = logp * weight.reshape((n_classes,) + (1,) * (logp.ndim - 2))
    smooth = (-logp.sum(1)).masked_fill(~mask, 0.0)
    if reduction == "none":
        if smooth.shape != nll.shape:
            smooth = smooth.reshape(nll.shape)
    elif reduction == "sum":
        smooth = smooth.sum()
    else:
        # NaN where no target counts (all ignored, an empty batch), as nll_loss's mean, but by
        # dividing by NaN instead of 0 / 0: no NumPy warning, here or in the division's
        # backward (whose NaN gradient the mask turns into torch's 0 for ignored targets)
        total = w.sum()
        smooth = smooth.sum() / _ops.where(total == 0, math.nan, total)
    nll = scalar_node(nll * (1 - label_smoothing))
    smooth = scalar_node(smooth * (label_smoothing / n_classes))
    return nll + smooth


def _bad_label_smoothing(label_smoothing) -> None:
    raise RuntimeError(
        f"label_smoothing must be between 0.0 and 1.0. Got: {float(label_smoothing):g}"
    )


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim):
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{_short(target.dtype)}"
        )
    n_classes = input.shape[class_dim]
    # torch's order: the weight's size, the log_softmax (an integer input's error), then the
    # label smoothing's range
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} "
            f"classes or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    logp = _ops.log_softmax(input, class_dim)
    if label_smoothing > 1.0:
        _bad_label_smoothing(label_smoothing)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    terms = logp * target
    if weight is not None:
        terms = terms * weight.reshape((n_classes,) + (1,) * (input.ndim - class_dim - 1))
    if reduction == "none":
        return -terms.sum(class_dim)
    total = -terms.sum()  # torch's graph: one sum, negated, divided by a number
    if reduction == "sum":
        return total
    if input.numel() == 0:
        return total * math.nan
    return scalar_node(total / (input.numel() // n_classes))


# --- binary cross entropy ---


def _check_bce_size(input: Tensor, target: Tensor) -> None:
    try:
        same = target._data.shape == input._data.shape
    except AttributeError:
        raise _not_tensors("binary_cross_entropy", input, target) from None
    if not same:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )


def _check_bce_kernel(input: Tensor, target: Tensor) -> None:
    """torch's dtype and value checks of binary_cross_entropy's kernel."""
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_short(target.dtype)} but expected {_short(input.dtype)}")
    if not input.dtype.is_floating_point:  # torch's kernel has no integer or bool version
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{_short(input.dtype)}'"
        )
    # written as "not all inside [0, 1]" so that a NaN (a diverged model's output) fails too,
    # as in torch; its kernel checks element by element, the input's value before the
    # target's, so the first element outside [0, 1] in either (class ids 0/1/2 passed as
    # targets, say) names the tensor
    bad_x, bad_y = _first_outside_unit(input), _first_outside_unit(target)
    if bad_x is not None and (bad_y is None or bad_x <= bad_y):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if bad_y is not None:
        raise RuntimeError("all elements of target should be between 0 and 1")


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """-(target log(input) + (1 - target) log(1 - input)), each log clamped at -100. Mirrors
    torch.nn.functional.binary_cross_entropy.

    Differences from torch: inputs or targets outside [0, 1] raise only on CPU (see NOTE
    [ Checks that read values ]).
    """
    if _autocast.state.any_enabled:
        args = (input, target, weight, size_average, reduce, reduction)
        return _autocast.call(binary_cross_entropy, _autocast.FP32_BANNED_CUDA, args)
    reduction = resolve_reduction(size_average, reduce, reduction)
    _check_bce_size(input, target)
    if weight is not None and not isinstance(weight, Tensor):
        weight.size()  # torch's Python reads weight.size() next: a str's AttributeError, say
    if weight is not None and weight.shape != target.shape:
        from minitorch._ops.shape_join import broadcast_shapes

        # torch's Python broadcasts the weight to the target first: its error, before the
        # kernel's dtype and range checks
        broadcast_shapes(target.shape, weight.shape)
    try:
        _check_bce_kernel(input, target)
    except (RuntimeError, NotImplementedError):
        refuse_hidden_grads("binary_cross_entropy", ("weight", weight))
        raise
    shown = weight  # torch's node saves it broadcast, in its own dtype
    if weight is not None and weight.dtype != input.dtype:
        weight = weight.to(input.dtype)  # torch scales the loss in place: its dtype stays
    if weight is not None and weight.shape != input.shape:
        check_fits(input._data.shape, weight)
        weight = weight.expand(input.shape)  # (torch's error when it does not broadcast)
        shown = weight if shown.dtype is weight.dtype else shown.expand(input.shape)
    # the weight goes inside: its gradients round as torch's, which scale last
    loss = binary_cross_entropy_kernel(input, target, weight)
    loss = reduce_loss(loss, reduction)
    hidden = (("weight", weight),)
    return as_node(
        loss,
        "BinaryCrossEntropyBackward0",
        (input, target),
        hidden,
        "binary_cross_entropy",
        saved=(input, target),
        attrs=_weights(reduction, shown),
    )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits as
    (1 - t) x - (1 + (pos_weight - 1) t) logsigmoid(x). Mirrors
    torch.nn.functional.binary_cross_entropy_with_logits."""
    if _autocast.state.any_enabled:
        args = (input, target, weight, size_average, reduce, reduction, pos_weight)
        return _autocast.call(binary_cross_entropy_with_logits, _autocast.FP32, args)
    reduction = resolve_reduction(size_average, reduce, reduction)
    if (  # See NOTE [ One-node binary_cross_entropy_with_logits ]
        weight is None
        and pos_weight is None
        and input.__class__ is Tensor
        and target.__class__ is Tensor
        and input._device is _CPU
        and target._device is _CPU
        and fast_path[0]
    ):
        x, t = input._data, target._data
        if (
            x.dtype.char in "fd"
            and t.dtype == x.dtype
            and x.shape == t.shape
            and x.ndim
            and x.size
            and x.flags.c_contiguous
            and t.flags.c_contiguous
        ):
            return _BceWithLogits.apply(input, target, reduction=reduction)
    for name, pos, v in (("weight", 3, weight), ("pos_weight", 4, pos_weight)):
        if v is not None and not isinstance(v, Tensor):  # pos_weight=2.0: torch's parser
            raise TypeError(
                f"binary_cross_entropy_with_logits(): argument '{name}' (position {pos}) must "
                f"be Tensor, not {type_name(v)}"
            )
    if target.size() != input.size():  # (torch's calls: a non-tensor's error names size)
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    hidden = (("weight", weight), ("pos_weight", pos_weight))
    if not input.dtype.is_floating_point or not target.dtype.is_floating_point:
        refuse_hidden_grads("binary_cross_entropy_with_logits", *hidden)
    if not input.dtype.is_floating_point:
        logsigmoid(input)  # torch's kernel starts with log_sigmoid(input): its dtype error
    if target.dtype is _dtype.bool:  # then it computes (1 - target) in bool
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if not target.dtype.is_floating_point:  # torch writes the loss in the target's dtype
        raise RuntimeError(
            f"result type {_short(input.dtype)} can't be cast "
            f"to the desired output type {_short(target.dtype)}"
        )
    # torch's loss keeps the input's (or the target's) dtype, a float64 weight or pos_weight
    # does not promote it; its in-place steps round where they write (_bce_logits_mixed)
    mixed = target.dtype is not input.dtype
    if weight is not None and weight.dtype != input.dtype:
        weight, mixed = weight.to(input.dtype), True
    if pos_weight is not None and pos_weight.dtype != input.dtype:
        pos_weight, mixed = pos_weight.to(input.dtype), True
    shape = input._data.shape
    if pos_weight is not None and pos_weight._data.shape != shape:
        refuse_hidden_grads("binary_cross_entropy_with_logits", *hidden)  # (before any error)
        check_fits(shape, pos_weight)
    if weight is not None and weight._data.shape != shape:
        refuse_hidden_grads("binary_cross_entropy_with_logits", *hidden)
        check_fits(shape, weight)
    # the gradients come from torch's formulas (_BceLogitsLearnedTarget), the loss from detached
    # inputs: differentiating the composed loss gives (1 - t) - sigmoid(-x) for the logits,
    # which cancels to 0 (or loses its relative accuracy) where sigmoid(x) - t is tiny
    learned = (input._requires_grad or target._requires_grad) and _grad_mode.enabled
    x, t = (input.detach(), target.detach()) if learned else (input, target)
    if mixed:  # the weights in their own dtypes (hidden holds them as given)
        loss = _bce_logits_mixed(x, t, hidden[0][1], hidden[1][1])
    else:
        log_sig = logsigmoid(x)
        if pos_weight is None:
            loss = (1 - t) * x - log_sig
        else:
            loss = (1 - t) * x - ((pos_weight - 1) * t + 1) * log_sig
        if weight is not None:
            loss = loss * weight
    out = reduce_loss(loss, reduction)
    if learned:
        out = _BceLogitsLearnedTarget.apply(
            input, target, weight, pos_weight, value=out, reduction=reduction
        )
    return as_node(
        out,
        "BinaryCrossEntropyWithLogitsBackward0",
        (input, target),
        hidden,
        "binary_cross_entropy_with_logits",
        saved=(input, target),
        attrs=_weights(reduction, hidden[0][1], hidden[1][1]),
    )


def _bce_logits_mixed(x: Tensor, t: Tensor, weight, pos_weight) -> Tensor:
    """The unreduced loss for logits and targets (or weights) of different dtypes, rounded
    where torch's kernel rounds: it builds the loss in place on (1 - target), so every step
    after the pos_weight scaling of logsigmoid(x) (kept in the logits' dtype) is rounded to the
    target's dtype. float64 logits with float32 labels give a float32 loss (reduced in float32); the
    logits' gradient comes from torch's formula, in the logits' dtype (_BceLogitsLearnedTarget),
    not through these roundings."""
    log_sig = logsigmoid(x)
    if pos_weight is not None:
        log_sig = (log_sig * ((pos_weight - 1) * t + 1)).to(x.dtype)
    loss = ((1 - t) * x).to(t.dtype)
    loss = (loss - log_sig).to(t.dtype)
    if weight is not None:
        loss = (loss * weight).to(t.dtype)
    return loss


class _BceLogitsLearnedTarget(Function):
    """out = value, binary_cross_entropy_with_logits(x, t, w, p) computed from detached
    inputs;  grad_x = g ((p t + 1 - t) sigmoid(x) - p t) w,  grad_t = g (ls(-x) - p ls(x)) w
    (ls = logsigmoid; p = 1 and grad_t = -g x w without pos_weight), divided by numel for
    'mean': torch's formulas, in its order (the reduction last).

    Differentiating the composed forward gives the logits (1 - t) - sigmoid(-x), which cancels
    where sigmoid(x) - t is tiny (x = -30, t = 0 keeps 3 digits), and the target, which enters
    twice, grad_t = -x - (p - 1) ls(x): inf - inf = nan at x = -inf for p < 1, 0
    where ls(x) rounds into x (p = 0), and a finite value where torch's weighted gradient
    overflows before the mean's division. Both gradients are written here so that the graph
    of each (create_graph) reaches both x and t."""

    @staticmethod
    def forward(ctx, x, t, w, pw, *, value, reduction):
        ctx.save_for_backward(x, t, w, pw)
        ctx.n = x._data.size if reduction == "mean" else 0
        return value._data.copy()

    @staticmethod
    def backward(ctx, grad):
        x, t, w, pw = ctx._stored_tensors
        needs = ctx.needs_input_grad
        gx = gt = None
        if needs[0]:
            s = _ops.sigmoid(x)
            if pw is not None:
                gx = ((pw * t + 1 - t) * s - pw * t) * grad
            elif _grad_mode.enabled:
                gx = (s - t) * grad
            else:
                # outside create_graph torch's kernel works in place on sigmoid(x): half logits
                # with float32 targets round s - t, then its product with grad, to half
                gx = ((s - t).to(x.dtype) * grad).to(x.dtype)
        if needs[1]:
            g_t = -x if pw is None else logsigmoid(-x) - pw * logsigmoid(x)
            gt = g_t * grad
        out = []
        for g, a in ((gx, x), (gt, t)):
            if g is not None:
                if w is not None:
                    g = g * w
                if ctx.n:
                    g = g / ctx.n
                if g.dtype is not a.dtype:
                    g = g.to(a.dtype)
            out.append(g)
        return out[0], out[1], None, None

    @staticmethod
    def _backward_data(ctx, grad):
        # backward's first-order formulas without pos_weight on arrays (NOTE [ Data-level
        # backward ]): each step in place on sigmoid(x)'s (or -x's) new array, the same ufuncs on
        # the same operands, so the same bits; the layouts and dtypes NOTE [ Regression losses'
        # data-level backward ] allows, the rest (pos_weight, mixed or half dtypes) as backward
        x, t, w, pw = ctx._stored_arrays()
        dt = x.dtype
        if (
            pw is not None
            or dt.char not in "fd"
            or t.dtype != dt
            or grad.dtype != dt
            or not x.ndim
            or not (x.flags.c_contiguous and t.flags.c_contiguous)
            or t.shape != x.shape
            or (grad.ndim and grad.shape != x.shape)
            or not (grad.flags.c_contiguous or not any(grad.strides))
            or (w is not None and w.dtype != dt)
        ):
            return NotImplemented
        gx, gt = bce_logits_grads_data(ctx.xp, x, t, w, grad, ctx.n, ctx.needs_input_grad)
        return gx, gt, None, None


# NOTE [ One-node binary_cross_entropy_with_logits ]
# binary_cross_entropy_with_logits computes its loss from detached inputs with Tensor ops, then
# records _BceLogitsLearnedTarget (torch's gradient formulas), which as_node folds into torch's
# one node. For the common call (plain CPU tensors of one float32/float64 dtype and shape, laid
# out row-major, not empty, no weight or pos_weight) _BceWithLogits is that node itself: its
# forward takes the Tensor ops' kernels on the arrays (logsigmoid's, then (1 - t) x - ls in
# the same order, then Mean's or Sum's reduction), so the same bits, and its backward is
# _BceLogitsLearnedTarget's. The fast paths' switch turns it off (a profile sees the
# composite).


class _BceWithLogits(_BceLogitsLearnedTarget):
    """out = reduce((1 - t) x - logsigmoid(x));  grad_x = g (sigmoid(x) - t),  grad_t = -g x,
    divided by numel for 'mean' (_BceLogitsLearnedTarget's backward without weights).
    NOTE [ One-node binary_cross_entropy_with_logits ]"""

    _node_name = "BinaryCrossEntropyWithLogitsBackward0"
    _saved_attrs = {
        "self": lambda node: saved_pair(node, 0),
        "target": lambda node: saved_pair(node, 1),
        "weight": lambda node: None,  # (torch's undefined tensors read None)
        "pos_weight": lambda node: None,
        "reduction": lambda node: _ENUM[node.reduction]["reduction"],
    }

    @staticmethod
    def forward(ctx, x, t, *, reduction):
        ctx.save_for_backward(x, t, None, None)
        ctx.reduction = reduction
        ctx.n = x._data.size if reduction == "mean" else 0
        return bce_logits_kernel(ctx.xp, x, t._data, reduction)

    @staticmethod
    def backward(ctx, grad):
        return _BceLogitsLearnedTarget.backward(ctx, grad)[:2]

    @staticmethod
    def _backward_data(ctx, grad):
        out = _BceLogitsLearnedTarget._backward_data(ctx, grad)
        return out if out is NotImplemented else out[:2]


# --- divergences and likelihoods ---


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """target (log target - input) pointwise, input being log-probabilities (target too when
    log_target). Mirrors torch.nn.functional.kl_div ('batchmean' divides by the batch size)."""
    if _autocast.state.any_enabled:
        args = (input, target, size_average, reduce, reduction, log_target)
        return _autocast.call(kl_div, _autocast.FP32, args)
    legacy_batchmean = False
    if size_average is not None or reduce is not None:
        # torch reduces by the legacy pair, then still divides by the batch size when
        # reduction='batchmean' was passed too
        legacy_batchmean = reduction == "batchmean"
        reduction = legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("none", "mean", "sum", "batchmean"):
        reduction = resolve_reduction(None, None, reduction)  # 'elementwise_mean', or raises
    _arg.tensor(input, "kl_div")  # (torch's kernel call parses them after the reduction)
    _arg.tensor(target, "kl_div", "target", 2)
    _arg.boolean(log_target, "kl_div", "log_target")
    if not (input.dtype.is_floating_point or input.dtype.is_complex) or not (
        target.dtype.is_floating_point or target.dtype.is_complex
    ):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    # the right operand first, as torch's compiled kl_div evaluates them: its node is then the
    # older one and runs last in backward, so its part of a target's gradient is added last
    # (an ulp apart from the other order in half precision)
    if log_target:
        diff = target - input
        loss = _ops.exp(target) * diff
    else:
        prod = target * input
        with _errstate(target):  # 0 log 0 := 0: a one-hot target is the common case
            loss = _ops.xlogy(target, target) - prod
    if reduction == "batchmean":
        if input.ndim == 0:
            return loss.sum()
        if input.shape[0] == 0:
            return loss.sum() * math.nan  # torch's 0 / 0, without NumPy's warning
        return loss.sum() / input.shape[0]
    if legacy_batchmean and input.ndim != 0:
        with _errstate(loss):  # (an empty batch: torch's 0 / 0)
            return reduce_loss(loss, reduction) / input.shape[0]
    return reduce_loss(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """exp(input) - target input (log_input), else input - target log(input + eps); `full`
    adds Stirling's approximation of log(target!). Mirrors torch.nn.functional.poisson_nll_loss."""
    if _autocast.state.any_enabled:
        args = (input, target, log_input, full, size_average, eps, reduce, reduction)
        return _autocast.call(poisson_nll_loss, _autocast.FP32, args)
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        # torch concatenates the name: a reduction that is no str raises that TypeError
        raise ValueError(reduction + " is not a valid value for reduction")
    _arg.tensor(input, "poisson_nll_loss")  # (torch's kernel call parses them after that)
    _arg.tensor(target, "poisson_nll_loss", "target", 2)
    _arg.boolean(log_input, "poisson_nll_loss", "log_input", 3)
    _arg.boolean(full, "poisson_nll_loss", "full", 4)
    _arg.floating(eps, "poisson_nll_loss", "eps", 5)
    if log_input:
        loss = _ops.exp(input) - target * input
    else:
        with _errstate(input):  # a negative rate gives torch's NaN, without NumPy's warning
            loss = input - target * _ops.log(input + eps)
    if full:
        t = target
        # target log target - target + log(2 pi target) / 2, counted where target > 1 only,
        # but computed everywhere and masked, as torch: a target's gradient is then nan at a
        # count of 0 (0 log 0), not 0. Zero counts are common: computed quietly
        with _errstate(t):
            stirling = t * _ops.log(t) - t + _ops.log(t * (2 * math.pi)) * 0.5
            dt = loss.dtype
            loss = loss + stirling.masked_fill(t <= 1, 0.0)
            if loss.dtype is not dt:  # torch adds in place: a half loss with integer
                loss = loss.to(dt)  # counts (a float32 term) stays half
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when
    full). Mirrors torch.nn.functional.gaussian_nll_loss.

    Differences from torch: negative variances raise only on CPU (see NOTE [ Checks that read
    values ]).
    """
    if not isinstance(var, Tensor):
        if not isinstance(var, float):
            # torch takes only a Python float as a scalar variance; anything else (an int, a
            # bool, a NumPy scalar or array) reaches torch.any(var < 0), whose TypeError it gives
            _ops.any(var < 0)
        if var < 0:
            raise ValueError("var has negative entry/entries")
        # torch's var * ones_like(input): the default float dtype for an integer or bool input
        dt = input.dtype
        if not (dt.is_floating_point or dt.is_complex):
            dt = _dtype.get_default_dtype()
        var = full_like(input, float(var), dtype=dt)
    if _on_host(var) and var.numel() and bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")  # (torch: before the size check)
    if var.size() != input.size():  # (torch's calls: a non-tensor's error names size)
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)  # one variance per sample (homoscedastic)
        elif input.ndim == var.ndim and (
            sum(v for i, v in zip(input.shape, var.shape, strict=True) if i != v) == 1
        ):
            pass  # one variance shared along one dim, e.g. (N, 1, H, W) for (N, C, H, W):
            # torch's test is that var's sizes at the dims that differ add up to 1
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if not var.dtype.is_floating_point:  # torch clamps a copy in place with a float eps
        raise RuntimeError(
            f"result type {_short(_dtype.get_default_dtype())} can't be cast to the desired "
            f"output type {_dtype.CPP_NAMES[var.dtype.name]}"
        )
    # torch clamps a copy of var in place under no_grad: the values are clamped, the gradient
    # passes as if unclamped
    var = var + (_ops.clamp(var, min=eps) - var).detach()
    d = input - target
    loss = (_ops.log(var) + d * d / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


from minitorch.nn._functional_loss_margin import *  # noqa: E402,F403
from minitorch.nn._functional_loss_margin import __all__ as _margin_all  # noqa: E402

__all__ += _margin_all
