"""Shape ops and views: view, reshape, expand, permute, transpose, squeeze, cat, stack, split..."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.autograd.function import Function

__all__ = ["view", "reshape", "expand"]


def _infer_shape(shape, numel, op):
    shape = tuple(int(s) for s in shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    if neg:
        rest = 1
        for s in shape:
            if s != -1:
                rest *= s
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[: neg[0]] + (numel // rest,) + shape[neg[0] + 1:]
    total = 1
    for s in shape:
        total *= s
    if total != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class View(Function):
    """out = a seen with another shape (shares memory);  grad_a = grad reshaped back"""

    _is_view = True

    @staticmethod
    def forward(ctx, a, *, shape):
        x = a._data
        ctx.in_shape = x.shape
        out = x.view()
        try:
            out.shape = shape  # refuses (instead of copying) when strides do not allow a view
        except AttributeError:
            raise RuntimeError(
                f"view size is not compatible with input tensor's size and stride (at least one "
                f"dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)


class Reshape(Function):
    """out = a copied into another shape (when a view is impossible);  grad_a = grad reshaped"""

    _node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.in_shape = a._data.shape
        return a._data.reshape(shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape)


def view(input: Tensor, shape) -> Tensor:
    """Mirrors torch.Tensor.view (shares memory; an error when strides forbid it)."""
    x = input._data
    shape = _infer_shape(shape, x.size, "view")
    if shape == x.shape and not input._requires_grad:
        return View.apply(input, shape=shape)
    return View.apply(input, shape=shape)


def reshape(input: Tensor, shape) -> Tensor:
    """A view when strides allow, else a copy. Mirrors torch.reshape."""
    x = input._data
    shape = _infer_shape(shape, x.size, "reshape")
    if _viewable(x, shape):
        return View.apply(input, shape=shape)
    return Reshape.apply(input, shape=shape)


def _viewable(x, shape) -> bool:
    if x.flags.c_contiguous:
        return True
    try:
        v = x.view()
        v.shape = shape
        return True
    except AttributeError:
        return False


class Expand(Function):
    """out = a broadcast to a bigger shape (a view);  grad_a = grad summed over expanded dims"""

    _is_view = True

    @staticmethod
    def forward(ctx, a, *, shape):
        return ctx.xp.broadcast_to(a._data, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad  # the engine sums the broadcast dims back to a's shape


def expand(input: Tensor, sizes) -> Tensor:
    """Broadcasts to `sizes` (-1 keeps a dim) without copying. Mirrors torch.Tensor.expand."""
    x = input._data
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < x.ndim:
        raise RuntimeError(
            f"expand(torch.{input.dtype.name.capitalize()}Tensor{{{list(x.shape)}}}, "
            f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) must be greater or "
            f"equal to the number of dimensions in the tensor ({x.ndim})"
        )
    lead = len(sizes) - x.ndim
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(
                    f"expand: the expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            shape.append(s)
            continue
        have = x.shape[i - lead]
        if s == -1:
            s = have
        elif have != s and have != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({have}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(x.shape)}"
            )
        shape.append(s)
    shape = tuple(shape)
    if shape == x.shape:
        return View.apply(input, shape=shape)
    return Expand.apply(input, shape=shape)
