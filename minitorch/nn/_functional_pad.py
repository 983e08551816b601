"""nn.functional.pad: constant (any number of dims; negative pads crop), reflect, replicate and
circular padding.

Constant padding is narrow + cat per padded dim; the other modes gather along each padded dim with
an index computed from the shape alone (index_select, whose backward adds the gradient of every
copy back to its source), so no value is read back to the host.
"""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import full, tensor
from minitorch._ops._common import is_index, zeros_of
from minitorch._tensor import Tensor
from minitorch._tensor_methods import _type_name
from minitorch.autograd.composite import as_node
from minitorch.autograd.function import Function, name_node
from minitorch.autograd.grad_mode import state

__all__ = ["pad"]

_SUPPORTED = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last len(pad) // 2 dims: pad = (last_left, last_right, 2nd_last_left, ...).
    Mirrors torch.nn.functional.pad."""
    if pad.__class__ not in (tuple, list) or any(p.__class__ is not int for p in pad):
        pad = _pad_ints(pad)
    if _autocast.state.any_enabled and (mode == "replicate" or mode == "reflect" and len(pad) < 6):
        # torch's CPU float32 list: replication_pad1d-3d, reflection_pad1d-2d ('pad' is the list)
        return _autocast.call(globals()["pad"], _autocast.FP32_CPU, (input, pad, mode, value))
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    ndim = input.ndim
    if len(pad) > 2 * ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {ndim}"
        )
    pairs = [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    if mode == "constant":
        out = _constant(input, pairs, 0 if value is None else value)
        return as_node(out, "ConstantPadNdBackward0", (input,), keep=True)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pairs)
    if k not in (1, 2, 3) or ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor.\n{_SUPPORTED}"
        )
    if mode != "circular":
        _check_nonempty(input, k)
    elif any(input.shape[dim] + left + right < 0 for dim, left, right in pairs):
        # torch's circular padding is copies into slices, empty ones too (no check above): only
        # a negative output size raises, after every dim's wrap-around check
        for dim, left, right in pairs:
            _check_mode_pads(mode, dim, input.shape[dim], left, right, input)
        raise RuntimeError("Negative padding value is resulting in an empty dimension")
    if input.dtype is _dtype.bool and mode != "circular":  # torch's kernels take numbers only
        kernel = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kernel}_pad{k}d\" not implemented for 'Bool'")
    # torch's reflection/replication backward reads the input: See NOTE [ Zero-gradient edges ]
    out = input if mode == "circular" else _tie(input)
    for dim, left, right in pairs:
        size = input.shape[dim]
        _check_mode_pads(mode, dim, size, left, right, input)
        if mode == "circular":  # torch crops negative pads first, then wraps around what is left
            start, n = max(-left, 0), size - max(-left, 0) - max(-right, 0)
            index = [start + p % n for p in range(-max(left, 0), n + max(right, 0))]
        else:
            index = [_source(mode, p, size) for p in range(-left, size + right)]
        out = _ops.index_select(out, dim, tensor(index, dtype=_dtype.int64, device=input.device))
    if mode == "circular":  # torch's is copies into slices too
        return name_node(out, _PAD_NODES[mode].format(k), (input,))
    return as_node(out, _PAD_NODES[mode].format(k), (input,))


def _pad_ints(pad) -> tuple:
    """pad's elements as Python ints, or torch's TypeError: a float ((k - 1) / 2 written with /)
    must not be truncated into a silently different shape. The slow path of pad: plain int tuples
    and lists never come here. See NOTE [ Int-like arguments ]"""
    if not isinstance(pad, (tuple, list)):  # torch's pad takes no int, Tensor or ndarray either
        raise TypeError(
            f"pad(): argument 'pad' (position 2) must be tuple of ints, not {_type_name(pad)}"
        )
    out = []
    for i, p in enumerate(pad):
        if not is_index(p):
            raise TypeError(
                "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                f"type {_type_name(p)} at pos {i}"
            )
        out.append(p.__index__())
    return tuple(out)


# NOTE [ Zero-gradient edges ]
# torch's backward kernels of reflection and replication padding and of prelu take the op's
# input as an argument whose own gradient is zero, as those of the piecewise-linear activations
# (NOTE [ Zero gradients of piecewise-linear backward ]): a double backward (a gradient
# penalty) reaches the input and gives the parameters behind it a zero .grad, not None.
# minitorch composes these ops from index_select and where, whose backward reads only the
# input's shape or a comparison, so the graph of their gradient stops short of the input.
# _tie(input) puts an identity in front: a view of the input whose backward, _TieBackward(grad,
# input), passes the gradient through unchanged and gives the input a zero gradient. It saves
# the input, so changing that in place before backward raises, as it does in torch (whose node
# saves it too). Only where a graph is recorded: otherwise _tie returns the input itself.


class _Tie(Function):
    """out = a (a view);  grad_a = _TieBackward(grad, a). See NOTE [ Zero-gradient edges ]"""

    _is_view = True

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a._data.view()

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        return _TieBackward.apply(grad, a)

    @staticmethod
    def _backward_data(ctx, grad):
        ctx._stored_arrays()  # the version check
        return grad


class _TieBackward(Function):
    """out = grad;  grad_grad = _TieBackward(g, a),  grad_a = 0. See NOTE [ Zero-gradient edges ]"""

    @staticmethod
    def forward(ctx, grad, a):
        ctx.save_for_backward(a)
        return grad._data.copy()  # a new gradient, not an alias of the incoming one

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx._stored_tensors
        needs = ctx.needs_input_grad
        return (
            _TieBackward.apply(g, a) if needs[0] else None,
            zeros_of(a) if needs[1] else None,
        )


def _tie(input: Tensor) -> Tensor:
    """input, tied to its gradient's graph by a zero-gradient edge when a graph is recorded.
    See NOTE [ Zero-gradient edges ]"""
    if input._requires_grad and state.enabled and input.dtype.is_floating_point:
        return _Tie.apply(input)
    return input


# torch's node names for the padding kernels (circular padding is copies into slices there)
_PAD_NODES = {
    "reflect": "ReflectionPad{}DBackward0",
    "replicate": "ReplicationPad{}DBackward0",
    "circular": "CopySlices",
}


def _check_nonempty(input: Tensor, k: int) -> None:
    batched = input.ndim == k + 2
    dims = input.shape[1:] if batched else input.shape
    if any(s == 0 for s in dims):
        kinds = {1: "2D or 3D", 2: "3D or 4D", 3: "4D or 5D"}[k]
        raise RuntimeError(
            f"Expected {kinds} (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )


def _check_mode_pads(mode: str, dim: int, size: int, left: int, right: int, input) -> None:
    if mode == "reflect" and (left >= size or right >= size):
        raise RuntimeError(
            "Argument #4: Padding size should be less than the corresponding input dimension, "
            f"but got: padding ({left}, {right}) at dimension {dim} of input "
            f"{list(input.shape)}"
        )
    if mode == "circular" and (left > size or right > size):
        raise RuntimeError("Padding value causes wrapping around more than once.")


def _source(mode: str, p: int, size: int) -> int:
    """The input position that output position p (counted from the input's start) copies."""
    if mode == "replicate":
        return min(max(p, 0), size - 1)
    if p < 0:  # reflect about the first and the last element (which are not repeated)
        return -p
    if p >= size:
        return 2 * (size - 1) - p
    return p


def _constant(input: Tensor, pairs, value) -> Tensor:
    if any(left > 0 or right > 0 for _, left, right in pairs):  # checked only when written
        # torch's pad takes the value as a double, so c10's float check applies to every dtype:
        # into uint8, -1 raises (where full and fill_ take the int -1 as 255) and 255.5 raises
        value = _dtype.fill_number(float(value), input._data.dtype)
        if not input.dtype.is_floating_point and input.dtype is not _dtype.bool:
            value = int(value)
    out = input
    copied = False
    for dim, left, right in pairs:
        size = out.shape[dim]
        start = -left if left < 0 else 0
        stop = size + right if right < 0 else size
        if start or stop != size:
            out = out.narrow(dim, start, stop - start)
        pieces = []
        for n in (max(left, 0), max(right, 0)):
            shape = list(out.shape)
            shape[dim] = n
            pieces.append(full(shape, value, dtype=input.dtype, device=input.device) if n else None)
        if pieces[0] is not None or pieces[1] is not None:
            parts = [p for p in (pieces[0], out, pieces[1]) if p is not None]
            out = _ops.cat(parts, dim)
            copied = True
    return out if copied else out.clone()  # a new tensor, as torch's, even when only cropping
