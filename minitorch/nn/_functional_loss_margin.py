"""nn.functional margin and embedding losses: margin ranking, hinge embedding, cosine embedding,
triplet margin, soft margin, multi-label soft margin, multi-class margin, multi-label margin.

All composed from the ops; see minitorch/nn/_functional_loss.py for the reductions."""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import arange, full_like, zeros_like
from minitorch._ops.activation import logsigmoid
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import _FREED, Node, _raise_modified, name_node, scalar_node
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn import _argcheck as _arg
from minitorch.nn._functional_distance import pairwise_distance

__all__ = [
    "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "triplet_margin_with_distance_loss", "soft_margin_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
]  # fmt: skip


# NOTE [ Margin loss nodes' saved values ]
# As NOTE [ Loss nodes' saved values ] (minitorch/nn/_functional_loss.py): the three margin
# losses whose torch node is their kernel's answer grad_fn._saved_<name> as torch's do.
# SoftMarginLossBackward0: self, target (as given), reduction. MultiMarginLossBackward0: self,
# target, weight (None where not given), margin and p (the Python numbers as given: an int
# margin reads as an int), reduction. MultilabelMarginLossBackward0: self, target, reduction,
# and is_target, the kernel's second result: input's shape and dtype, 1 at each listed target
# class. It is made at its first read from the bool mask of the other classes the forward
# computes anyway (the node keeps that mask: nothing made at forward), then kept: the same
# Tensor at each read, refused once changed in place, at a read and (added to the node's checks
# then) at backward. The tensors torch saves are version-checked at backward (as_node(saved=)),
# the weight included, and refused where made in inference mode, as torch's; none of them is
# the loss, so no node holds its own output (no reference cycle).

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}
_SELF_TARGET = {"self": saved_value(0), "target": saved_value(1), "reduction": "reduction"}


def _number(value):
    """A Scalar argument as torch's node shows it: a Python bool, int or float as given, a
    NumPy or 0-d Tensor number as the Python number it holds (read at the attribute only)."""
    if value.__class__ in (int, float, bool):
        return value
    return value.item()


def _saved_mm_weight(node):
    if node.__dict__["weight"] is None:  # (torch's undefined saved tensor: None, even freed)
        return None
    return saved_value(2)(node)


def _saved_is_target(node):
    if node._saved is _FREED:
        return Node.saved_tensors.fget(node)  # raises torch's freed-graph error
    kept = node.__dict__["is_target"]
    if kept.__class__ is tuple:  # made at the first read (NOTE [ Margin loss nodes' ... ])
        other, shape, dtype = kept
        with no_grad():
            t = (~other).to(dtype).reshape(shape).contiguous()
        kept = node.__dict__["is_target"] = [t, t._vc, t._vc[0]]
        # torch's backward reads it too: from now on backward checks its version as well
        *head, checks = node._saved
        node._saved = node._saved.__class__((*head, (*checks, ("in", t, t._vc, t._vc[0], 0))))
    t, vc, version = kept
    if vc[0] != version:
        _raise_modified(node, "in", t, vc[0], version, 0)  # (torch names no node for it)
    return t


show_saved("SoftMarginLossBackward0", _SELF_TARGET)
show_saved(
    "MultiMarginLossBackward0",
    {
        **_SELF_TARGET,
        "weight": _saved_mm_weight,
        "margin": lambda node: _number(node.__dict__["margin"]),
        "p": lambda node: _number(node.__dict__["p"]),
    },
)
show_saved("MultilabelMarginLossBackward0", {**_SELF_TARGET, "is_target": _saved_is_target})


def _reduction(size_average, reduce, reduction):
    from minitorch.nn._functional_loss import resolve_reduction

    return resolve_reduction(size_average, reduce, reduction)


def _strict(reduction, message):
    from minitorch.nn._functional_loss import _check_reduction_strict

    _check_reduction_strict(reduction, message)


def _reduce(loss, reduction):
    from minitorch.nn._functional_loss import reduce_loss

    return reduce_loss(loss, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, -target (input1 - input2) + margin). Mirrors
    torch.nn.functional.margin_ranking_loss."""
    if _autocast.state.any_enabled:  # on torch's float32 lists (CPU and CUDA)
        return _autocast.call(
            margin_ranking_loss,
            _autocast.FP32,
            (input1, input2, target, margin, size_average, reduce, reduction),
        )
    reduction = _reduction(size_average, reduce, reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    _arg.floating(margin, "margin_ranking_loss", "margin", 4)  # (torch's kernel call)
    # a float margin, as torch's (a double): integer inputs give a float loss, which 'mean' takes
    shifted = scalar_node(-target * (input1 - input2) + float(margin))
    loss = name_node(_ops.clamp(shifted, min=0), "ClampMinBackward0")
    return _reduce(loss, reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """input where target == 1, max(0, margin - input) where target == -1. Mirrors
    torch.nn.functional.hinge_embedding_loss."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            hinge_embedding_loss,
            _autocast.FP32,
            (input, target, margin, size_average, reduce, reduction),
        )
    # torch's Python reads the reduction (its warnings and errors) before its kernel's call
    # parses the arguments
    reduction = _reduction(size_average, reduce, reduction)
    _arg.tensor(input, "hinge_embedding_loss")
    _arg.tensor(target, "hinge_embedding_loss", "target", 2)
    _arg.floating(margin, "hinge_embedding_loss", "margin", 3)
    if input.dtype.is_floating_point:
        shifted, zero = margin - input, 0.0
    else:
        # torch fills margin into a tensor of input's dtype and subtracts input from it: an
        # integer input keeps its dtype (margin truncated, unsigned values wrapping; a 'mean'
        # reduction then refuses it) and a bool input is refused as bool - bool
        shifted, zero = full_like(input, margin) - input, 0
    margin_part = _ops.where(target != 1, _clamp_min(shifted), zero)
    self_part = _ops.where(target != -1, input, zero)
    return _reduce(margin_part + self_part, reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1.
    Mirrors torch.nn.functional.cosine_embedding_loss."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            cosine_embedding_loss,
            _autocast.FP32,
            (input1, input2, target, margin, size_average, reduce, reduction),
        )
    reduction = _reduction(size_average, reduce, reduction)  # (before the kernel's parser)
    _arg.tensor(input1, "cosine_embedding_loss", "input1")
    _arg.tensor(input2, "cosine_embedding_loss", "input2", 2)
    _arg.tensor(target, "cosine_embedding_loss", "target", 3)
    _arg.floating(margin, "cosine_embedding_loss", "margin", 4)
    tdim = target.ndim
    if tdim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    if tdim == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    eps = 1e-12  # torch's EPSILON, added to the squared magnitudes
    prod = (input1 * input2).sum(-1)
    mag1 = (input1 * input1).sum(-1) + eps
    mag2 = (input2 * input2).sum(-1) + eps
    cos = prod / _ops.sqrt(mag1 * mag2)
    pos = _ops.where(target == 1, 1 - cos, 0.0)
    neg = _ops.where(target == -1, _clamp_min(cos - margin), 0.0)
    return _reduce(pos + neg, reduction)


def _clamp_min(x):
    """max(x, 0) shown as torch's clamp_min node (the gradient passes where x >= 0)."""
    return name_node(_ops.clamp(x, min=0), "ClampMinBackward0")


def _check_triplet_dims(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not a == p == n:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise p-distance;
    `swap` uses min(d(a, n), d(p, n)). Mirrors torch.nn.functional.triplet_margin_loss."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            triplet_margin_loss,
            _autocast.FP32,
            (anchor, positive, negative, margin, p, eps, swap, size_average, reduce, reduction),
        )
    reduction = _reduction(size_average, reduce, reduction)  # (before the kernel's parser)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _arg.tensor(anchor, "triplet_margin_loss", "anchor")
    _arg.tensor(positive, "triplet_margin_loss", "positive", 2)
    _arg.tensor(negative, "triplet_margin_loss", "negative", 3)
    if margin.__class__ is not float:  # (torch's kernel call parses margin after that check)
        _arg.floating(margin, "triplet_margin_loss", "margin", 4)
    _check_triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _ops.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    # torch's kernel adds margin as a Scalar (AddBackward1); its Python-level cousin below
    # adds a Python number (AddBackward0)
    return _reduce(_clamp_min(scalar_node(margin + d_pos) - d_neg), reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """triplet_margin_loss with any distance function (pairwise_distance by default). Mirrors
    torch.nn.functional.triplet_margin_with_distance_loss."""
    _strict(reduction, "{} is not a valid value for reduction")
    if margin <= 0:  # the module's own check (at construction) words it differently
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _ops.minimum(d_neg, dist(positive, negative))
    return _reduce(_clamp_min(margin + d_pos - d_neg), reduction)


def _soft_margin_int_input(input: Tensor, target: Tensor) -> None:
    """torch's error for a bool or integer input: its kernel negates the input, then writes the
    floating result into a tensor of input's dtype."""
    if input.dtype == _dtype.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if input.shape != target.shape:
        input * target  # shapes that do not broadcast: the arithmetic's error comes first
    dt = _dtype.binary_dtype(input.dtype, input.ndim, target.dtype, target.ndim)
    if not dt.is_floating_point:
        dt = _dtype.get_default_dtype()
    raise RuntimeError(
        f"result type {_dtype.scalar_name(dt)} can't be cast to the desired output type "
        f"{_dtype.scalar_name(input.dtype)}"
    )


def soft_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """log(1 + exp(-target input)), computed stably. Mirrors
    torch.nn.functional.soft_margin_loss.

    Differences from torch: finite where target input is far below 0 (past -88 in float32,
    -11 in float16), where torch's log1p(exp(-target input)) overflows to inf and its gradient
    to NaN."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            soft_margin_loss, _autocast.FP32, (input, target, size_average, reduce, reduction)
        )
    reduction = _reduction(size_average, reduce, reduction)  # (before the kernel's parser)
    _arg.tensor(input, "soft_margin_loss")
    _arg.tensor(target, "soft_margin_loss", "target", 2)
    from minitorch.nn._functional_loss import _like_input, check_fits, refuse_hidden_grads

    if target._data.shape != input._data.shape:
        refuse_hidden_grads("soft_margin_loss", ("target", target))  # torch's autograd first
        if input.dtype is _dtype.bool:  # then its kernel's -input, before any shape error
            _soft_margin_int_input(input, target)
        check_fits(input._data.shape, target)  # torch writes the loss into input's shape
    if not input.dtype.is_floating_point:
        refuse_hidden_grads("soft_margin_loss", ("target", target))
        _soft_margin_int_input(input, target)
    original = target
    target = _like_input(target, input)
    # input first: shapes that do not broadcast name input as tensor a, as torch does
    # 0 - logsigmoid, not its negation: log1p(exp(-inf)) is +0. in torch, where negating
    # logsigmoid(inf) = +0. would give -0. (1 / loss flips sign)
    loss = _reduce(0.0 - logsigmoid(input * target), reduction)
    hidden = (("target", target),)
    name = "SoftMarginLossBackward0"
    attrs = {"reduction": _REDUCTIONS[reduction]}
    saved = (input, original)
    return as_node(loss, name, (input,), hidden, "soft_margin_loss", saved=saved, attrs=attrs)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """-mean over classes of (t logsigmoid(x) + (1 - t) logsigmoid(-x)), weighted per class.
    Mirrors torch.nn.functional.multilabel_soft_margin_loss."""
    if size_average is not None or reduce is not None:
        from minitorch.nn._functional_loss import legacy_reduction

        reduction = legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    if class_dim < 0:  # torch reads input.size(-1)
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    n_classes = input.shape[class_dim]
    if n_classes == 0:  # torch's 0 / 0 = NaN per sample, without NumPy's warning
        loss = loss.sum(class_dim) * float("nan")
    else:
        loss = loss.sum(class_dim) / n_classes
    if reduction not in ("none", "mean", "sum"):
        # checked last, as in torch (the loss's own errors come first); torch concatenates
        # the name: a reduction that is no str raises that TypeError
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def _check_long(target: Tensor) -> None:
    # torch's text names no op
    if target.dtype is not _dtype.int64:
        name = _dtype.scalar_name(target.dtype)
        raise RuntimeError(f"expected scalar type Long but found {name}")


def _check_vector_or_matrix(input: Tensor) -> None:
    """torch's input check of the multi-class margin losses: a scalar, a non-empty vector, or
    a matrix with at least one column (its batch may be empty)."""
    shape = input.shape
    if len(shape) > 2 or (len(shape) >= 1 and shape[-1] == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(shape)}"
        )


_CPU_FLOATS = (_dtype.float32, _dtype.float64)


def _check_multi_margin(input: Tensor, target: Tensor, p, weight) -> None:
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _arg.tensor(input, "multi_margin_loss")  # torch's Python checks, then its kernel's parser
    _arg.tensor(target, "multi_margin_loss", "target", 2)
    try:
        _check_multi_margin_kernel(input, target, weight)
    except (RuntimeError, NotImplementedError):
        from minitorch.nn._functional_loss import refuse_hidden_grads

        refuse_hidden_grads("multi_margin_loss", ("weight", weight))  # torch's autograd first
        raise


def _check_multi_margin_kernel(input: Tensor, target: Tensor, weight) -> None:
    """torch's shape, dtype and range checks of multi_margin_loss's kernel."""
    _check_vector_or_matrix(input)
    n = input.shape[0] if input.ndim == 2 else 1
    c = input.shape[-1] if input.ndim else 1  # torch takes a 0-d input as one class
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{n}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if input.numel() and input.device.type == "cpu" and input.dtype not in _CPU_FLOATS:
        # torch's CPU kernel exists for float and double only (its CUDA one has half too); an
        # empty batch never reaches it
        name = _dtype.scalar_name(input.dtype)
        raise NotImplementedError(f"\"multi_margin_loss_cpu_kernel\" not implemented for '{name}'")
    _check_long(target)
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype.scalar_name(input.dtype)} but "
            f"found {_dtype.scalar_name(weight.dtype)}"
        )
    if target._device.type == "cpu" and target.numel():  # see NOTE [ Checks that read values ]
        t = target._data
        if bool(((t < 0) | (t >= c)).any()):
            raise RuntimeError("target out of range")


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """sum over i != y of max(0, margin - x[y] + x[i])^p / C (times weight[y]). Mirrors
    torch.nn.functional.multi_margin_loss."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            multi_margin_loss,
            _autocast.FP32,
            (input, target, p, margin, weight, size_average, reduce, reduction),
        )
    reduction = _reduction(size_average, reduce, reduction)
    _check_multi_margin(input, target, p, weight)
    one = input.ndim <= 1
    x = input.reshape(1, -1) if one else input
    y = target.reshape(-1).to(_dtype.int64)
    c = x.shape[1]
    y_col = y.unsqueeze(1)
    x_y = x.gather(1, y_col)
    # torch's kernel adds a term only where z > 0: an exact tie (x[y] - x[i] == margin) gets
    # subgradient 0, and a NaN score's term is skipped (NaN > 0 is false), leaving the loss
    # and the other gradients finite. where, not a product with the mask, and before the
    # square, so a skipped term's NaN reaches neither. (margin - x[y]) + x[i]: torch's order
    shown_margin = margin
    if margin.__class__ is bool:  # torch's kernel takes it as a number (1.0), not a bool tensor
        margin = int(margin)
    z = (margin - x_y) + x
    classes = arange(c, device=x.device)
    z = _ops.where((z > 0) & (classes != y_col), z, 0.0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[y_col]  # (the weight takes no gradient: torch's schema refuses one)
    loss = z.sum(1) / c
    if reduction == "none":  # torch's per-sample losses take the target's shape: a 0-d
        loss = loss.reshape(target.shape)  # target gives a 0-d loss, even for a (1, C) input
    else:
        loss = _reduce(loss, reduction)
    hidden = (("weight", weight),)
    attrs = {"reduction": _REDUCTIONS[reduction], "weight": weight, "margin": shown_margin, "p": p}
    return as_node(
        loss,
        "MultiMarginLossBackward0",
        (input,),
        hidden,
        "multi_margin_loss",
        saved=(input, target, weight),
        attrs=attrs,
    )


def multilabel_margin_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """sum over target classes j (up to the first -1) and non-target classes i of
    max(0, 1 - (x[j] - x[i])) / C. Mirrors torch.nn.functional.multilabel_margin_loss."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            multilabel_margin_loss, _autocast.FP32, (input, target, size_average, reduce, reduction)
        )
    reduction = _reduction(size_average, reduce, reduction)  # (before the kernel's parser)
    _arg.tensor(input, "multilabel_margin_loss")
    _arg.tensor(target, "multilabel_margin_loss", "target", 2)
    _check_vector_or_matrix(input)
    one = input.ndim <= 1
    x = input.reshape(1, -1) if one else input
    t = target.reshape(1, -1) if one else target
    # a vector's (or a scalar's) target has at most one dim: (1, C) is refused, as in torch
    if tuple(t.shape) != tuple(x.shape) or (one and target.ndim > 1):
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    c = x.shape[1]
    # torch's order: the range check (any target dtype), then its CPU kernel's float/double
    # dispatch, then the Long check
    if t._device.type == "cpu" and t.numel():  # see NOTE [ Checks that read values ]
        td = t._data
        if t.dtype.is_floating_point and not bool((abs(td) < 2.0**63).all()):
            # torch reads the target's values as int64 first: NaN, inf or too large fail
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        if bool(((td < -1) | (td >= c)).any()):
            raise RuntimeError("argument #2 'target' is out of range")
    if x.numel() and x._device.type == "cpu" and x.dtype not in _CPU_FLOATS:
        name = _dtype.scalar_name(x.dtype)
        raise NotImplementedError(
            f"\"multilabel_margin_loss_forward_out_frame\" not implemented for '{name}'"
        )
    _check_long(target)
    # the targets are the entries before the first -1 of each row
    valid = _ops.cumprod((t != -1).to(_dtype.int64), 1) > 0
    safe = _ops.where(valid, t, 0).to(_dtype.int64)
    hits = zeros_like(x, dtype=_dtype.int64).scatter_add(1, safe, valid.to(_dtype.int64))
    other = hits == 0  # the classes no listed target names (is_target's complement)
    x_t = x.gather(1, safe)  # (N, C): x at each listed target
    # (N, target, class); only terms with a margin > 0 count, as in torch's kernel: a tie
    # gets subgradient 0 and a NaN score's term is skipped (see multi_margin_loss)
    margins = (1 - x_t.unsqueeze(2)) + x.unsqueeze(1)
    keep = valid.unsqueeze(2) & other.unsqueeze(1) & (margins > 0)
    loss = _ops.where(keep, margins, 0.0).sum((1, 2)) / c
    if one:
        loss = loss.reshape(())
    out = _reduce(loss, reduction)
    shown = (other, input.shape, input.dtype)  # is_target's Tensor is made at its first read
    attrs = {"reduction": _REDUCTIONS[reduction], "is_target": shown}
    name = "MultilabelMarginLossBackward0"
    return as_node(out, name, (input,), saved=(input, target), attrs=attrs)
