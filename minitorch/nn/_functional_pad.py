"""nn.functional.pad: constant (any number of dims; negative pads crop), reflect, replicate and
circular padding.

Constant padding is one fill and one copy (ConstantPadNd; narrow + cat per dim where a pad is
negative); the other modes are one Function (_ModePad) that copies slices of the input
(reflected, repeated or wrapped) along each padded dim, planned from the shape alone, so no
value is read back to the host.
"""

from __future__ import annotations

import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch import _memory_format as _mf
from minitorch._backend import cpu as _CPU
from minitorch._factories import full
from minitorch._ops._common import is_index, not_tensor, zeros_of
from minitorch._tensor import Tensor
from minitorch._tensor_methods import _int_list, _type_name
from minitorch.autograd.composite import as_node, show_saved
from minitorch.autograd.function import Function, fast_path, name_node, plain_result, saved_uint64
from minitorch.autograd.grad_mode import state
from minitorch.nn import _argcheck as _arg

__all__ = ["pad"]

_CPU_NULL_CTX = _CPU.backend.null_ctx  # the ctx Function.apply gives a forward recording nothing

_SUPPORTED = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last len(pad) // 2 dims: pad = (last_left, last_right, 2nd_last_left, ...).
    Mirrors torch.nn.functional.pad.

    Differences from torch: circular padding that wraps around more than its negative pad on
    the other side left of a dim always raises torch's overlap error; torch raises it only
    where the overlapping slices are contiguous, and otherwise returns overlapping copies or
    uninitialised memory (or, for some such pads, a shape mismatch error)."""
    if not isinstance(input, Tensor):
        raise not_tensor("pad", input, "input", 1)
    if pad.__class__ not in (tuple, list) or any(p.__class__ is not int for p in pad):
        pad = _pad_ints(pad)
    if mode.__class__ is not str:
        _arg.string(mode, "pad", "mode", 3)
    if value is not None and value.__class__ is not float and value.__class__ is not int:
        _arg.floating(value, "pad", "value", 4)
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
        if out._grad_fn is None or out._grad_fn._fn is ConstantPadNd:
            return out
        attrs = {"pairs": tuple(pairs)}  # (for grad_fn._saved_pad)
        return as_node(out, "ConstantPadNdBackward0", (input,), keep=True, attrs=attrs)
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
    else:
        # torch's circular padding is copies into slices, empty ones too (no check above): it
        # checks each dim, outermost first, for wrapping around and a negative output size
        for dim, left, right in reversed(pairs):
            _check_mode_pads(mode, dim, input.shape[dim], left, right, input)
            if input.shape[dim] + left + right < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
    plan = []
    for i, (dim, left, right) in enumerate(pairs):
        size = input.shape[dim]
        if mode == "circular":
            _check_circular_overlap(size, left, right)
        else:
            _check_mode_pads(mode, dim, size, left, right, input, arg=4 + 2 * i)
        runs = _runs(mode, size, left, right)
        plan.append((dim, runs, sum(r[2] for r in runs), left if left >= 0 <= right else None))
    if mode != "circular":
        _check_output_size(mode, input, pairs)
        if input.dtype is _dtype.bool:  # torch's kernels take numbers only (after the sizes)
            kernel = "reflection" if mode == "reflect" else "replication"
            raise NotImplementedError(f"\"{kernel}_pad{k}d\" not implemented for 'Bool'")
    name = _PAD_NODES[mode].format(k)
    # torch's reflection/replication backward reads the input: See NOTE [ Zero-gradient edges ]
    keep = mode != "circular" and input.dtype.is_floating_point
    out = _ModePad.apply(input, plan=tuple(plan), name=name, keep=keep, pad=tuple(pad))
    return name_node(out, name, (input,))


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
            if i:  # torch's parser checks the first element, then unpacks the rest (int[]'s way)
                return _int_list(pad, "pad", "pad")
            raise TypeError(
                "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                f"type {_type_name(p)} at pos 0"
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


def _check_mode_pads(mode: str, dim: int, size: int, left: int, right: int, input, arg=4) -> None:
    """`arg`: the number torch's reflect message gives the pair (4 for W, 6 for H, 8 for D)."""
    if mode == "reflect" and (left >= size or right >= size):
        raise RuntimeError(
            f"Argument #{arg}: Padding size should be less than the corresponding input dimension, "
            f"but got: padding ({left}, {right}) at dimension {dim} of input "
            f"{list(input.shape)}"
        )
    if mode == "circular" and (left > size or right > size):
        raise RuntimeError("Padding value causes wrapping around more than once.")


def _check_circular_overlap(size: int, left: int, right: int) -> None:
    """torch wraps around what its negative pads leave of a dim by copying within the output:
    a positive pad longer than that part overlaps its own source, which copy_ refuses."""
    kept = size - max(-left, 0) - max(-right, 0)
    if size + left + right > 0 and (kept <= 0 or left > kept or right > kept):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def _check_output_size(mode: str, input: Tensor, pairs) -> None:
    """reflect/replicate: torch's kernels refuse an output size below 1 in every padded dim;
    one negative size among positive ones fails when the output is allocated."""
    sizes = [input.shape[dim] for dim, _, _ in reversed(pairs)]  # (D,) H, W
    outs = [input.shape[dim] + left + right for dim, left, right in reversed(pairs)]
    if all(o < 1 for o in outs):
        names = "DHW"[3 - len(outs) :]
        given = " ".join(f"{c}: {n}" for c, n in zip(names, sizes, strict=True))
        given = given.replace(" W:", ", W:") if len(outs) > 1 else given
        if len(outs) == 2 and mode == "replicate":
            given += " "  # (sic: torch's replication_pad2d message)
        got = " ".join(f"{c}: {o}" for c, o in zip(names, outs, strict=True))
        raise RuntimeError(f"input ({given}) is too small. Calculated output {got}")
    if any(o < 0 for o in outs):
        if len(outs) == 2 and mode == "reflect":
            raise RuntimeError("numel: integer multiplication overflow")
        shape = list(input.shape)
        for (dim, _, _), o in zip(reversed(pairs), outs, strict=True):
            shape[dim] = o
        first = next(o for o in shape if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {first}: {shape}")


def _runs(mode: str, size: int, left: int, right: int) -> tuple:
    """The copies that make one dim of the padded output, in output order: (out_start,
    src_start, length, step), step 1 a slice, -1 a reversed slice (from src_start down), 0
    the element at src_start repeated. Negative pads crop (circular: before wrapping)."""
    runs = []
    if mode == "circular":  # torch crops negative pads first, then wraps around what is left
        start, n = max(-left, 0), size - max(-left, 0) - max(-right, 0)
        p, end = -max(left, 0), n + max(right, 0)
        while p < end:
            q = p % n
            length = min(n - q, end - p)
            runs.append((p + max(left, 0), start + q, length, 1))
            p += length
        return tuple(runs)
    # output position p, counted from the input's start, copies p's reflection about the first
    # or the last element (which are not repeated), or the nearest edge element
    lo, hi = -left, size + right
    for a, b, where in ((lo, min(0, hi), "before"), (max(lo, 0), min(size, hi), "in")):
        if a < b:
            if where == "in":
                runs.append((a - lo, a, b - a, 1))
            elif mode == "reflect":
                runs.append((a - lo, -a, b - a, -1))
            else:
                runs.append((a - lo, 0, b - a, 0))
    a = max(lo, size)
    if a < hi:
        if mode == "reflect":
            runs.append((a - lo, 2 * (size - 1) - a, hi - a, -1))
        else:
            runs.append((a - lo, size - 1, hi - a, 0))
    return tuple(runs)


def _slice(dim: int, start: int, length: int, step: int = 1) -> tuple:
    """The key of `length` elements from `start` along dim (downwards when step is -1)."""
    if step == -1:
        stop = start - length
        return (slice(None),) * dim + (slice(start, stop if stop >= 0 else None, -1),)
    return (slice(None),) * dim + (slice(start, start + (length if step else 1)),)


def _empty_as(xp, x, shape, keep):
    """A new array of x's dtype and the given shape, channels-last when keep and x is (torch's
    reflection and replication kernels keep a channels-last input's layout, its circular
    padding does not)."""
    if keep and _mf.suggested_last(x) is not None:  # 4-d or 5-d
        to, back, _ = _mf.last_orders(x.ndim)
        return xp.empty([shape[a] for a in to], dtype=x.dtype).transpose(back)
    return xp.empty(shape, dtype=x.dtype)


def _pad_dim(xp, x, dim: int, runs, out_size: int, keep: bool):
    """x padded along dim: a new array, filled run by run (see _runs)."""
    shape = list(x.shape)
    shape[dim] = out_size
    out = _empty_as(xp, x, shape, keep)
    for o, s, n, step in runs:
        out[_slice(dim, o, n)] = x[_slice(dim, s, n, step)]
    return out


def _pad_in_place(xp, x, plan, keep: bool):
    """x padded along every dim of plan with no negative pad: x copied into the new array's
    center once, then each dim's edges copied from the center along it: one array, where
    _pad_dim per dim made (4, 16, 32, 32, 32) reflect padding's forward 3.7x torch's time,
    not 3.1x."""
    shape = list(x.shape)
    key = [slice(None)] * x.ndim
    for dim, _, out_size, center_at in plan:
        key[dim] = slice(center_at, center_at + x.shape[dim])
        shape[dim] = out_size
    out = _empty_as(xp, x, shape, keep)
    out[tuple(key)] = x
    # A row-major result is copied along each dim as a (before, dim[, after]) view, over the
    # whole of the dims before (their edges, not yet filled, are copies of junk that their own
    # dim's copies overwrite later, from the center), a one-element run by an integer index:
    # NumPy walks the (16, 64, 32, 32) -> (16, 64, 34, 34) last-dim edges as one strided loop,
    # not 1024 loops of 32 elements (nor 34816 loops of 1). The same copies.
    whole = out.flags.c_contiguous
    for dim, runs, _, center_at in plan:  # the dims after are padded already: all of them
        if whole:
            after = math.prod(shape[dim + 1 :])
            lead = math.prod(shape[:dim])
            view = out.reshape((lead, shape[dim]) + ((after,) if after != 1 else ()))
            head, tail = (slice(None),), ((slice(None),) if after != 1 else ())
        else:
            view = out
            head, tail = tuple(key[:dim]), tuple(key[dim + 1 :])
        for o, s, n, step in runs:
            if o == center_at:
                continue
            if whole and n == 1:
                view[(*head, o, *tail)] = view[(*head, center_at + s, *tail)]
            else:
                src = _slice(0, center_at + s, n, step)[0]
                view[(*head, slice(o, o + n), *tail)] = view[(*head, src, *tail)]
        key[dim] = slice(None)
    return out


def _fold_dim(xp, g, dim: int, runs, size: int, center_at):
    """The gradient of _pad_dim: each run's slice of g added back onto its source, a new array.
    Every input element sums its copies' gradients in output order, starting from zero, as
    torch's kernel and index_select's scatter-add did (so the sums round the same way)."""
    if center_at is None:  # a negative pad (cropping): from zeros, every run in order
        out = xp.zeros(g.shape[:dim] + (size,) + g.shape[dim + 1 :], dtype=g.dtype)
    else:  # the copy at center_at covers the input once: start from it (+ 0: -0.0 -> 0.0)
        out = g[_slice(dim, center_at, size)] + 0
    for o, s, n, step in runs:
        if o == center_at:
            continue
        if step:
            out[_slice(dim, s, n, step)] += g[_slice(dim, o, n)]
        elif center_at is not None and o < center_at and n > 1:
            # repeats before the center: summed first (from the first), then added to it
            acc = g[_slice(dim, o, 1)] + g[_slice(dim, o + 1, 1)]
            for i in range(o + 2, o + n):
                acc += g[_slice(dim, i, 1)]
            out[_slice(dim, s, 1)] += acc
        else:
            for i in range(o, o + n):
                out[_slice(dim, s, 1)] += g[_slice(dim, i, 1)]
    return out


def _saved_pad(node) -> tuple:
    """grad_fn._saved_pad / _saved_padding of the padding nodes: the pads as given, read back
    unsigned as torch's binding does."""
    return tuple(saved_uint64(p) for p in node.pad)


class _ModePad(Function):
    """out = a padded with copies of its own slices along each dim of plan ((dim, runs,
    out_size, center_at) each; see _runs);  grad_a = _ModePadBackward(grad), those copies'
    gradients added back onto their sources.

    One Function of slice copies and slice adds: an index_select per padded dim (a gather, and
    a scatter-add in backward) made reflect padding of (4, 16, 32, 32, 32) 15x slower than
    torch's forward and 19x its backward."""

    _saved_attrs = {  # grad_fn._saved_padding and _saved_self (as torch's; none for CopySlices)
        "padding": _saved_pad,
        "self": lambda node: node._stored_tensors[0],
    }
    _saved_shown = {"CopySlices": ()}

    @staticmethod
    def forward(ctx, a, *, plan, name, keep, pad=()):
        ctx.plan, ctx.pad_name, ctx.in_shape, ctx.pad = plan, name, a._data.shape, pad
        if keep:  # See NOTE [ Zero-gradient edges ]
            ctx.save_for_backward(a)
        x = a._data
        layout = name != "CopySlices"  # See _empty_as
        if any(center_at is None for *_, center_at in plan):  # a negative pad: dim by dim
            for dim, runs, out_size, _ in plan:
                x = _pad_dim(ctx.xp, x, dim, runs, out_size, layout)
            return x
        return _pad_in_place(ctx.xp, x, plan, layout)

    @staticmethod
    def backward(ctx, grad):
        inputs = (grad, *ctx._stored_tensors)
        out = _ModePadBackward.apply(
            *inputs, plan=ctx.plan, name=ctx.pad_name, shape=ctx.in_shape, pad=ctx.pad
        )
        name = ctx.pad_name.replace("Backward0", "BackwardBackward0")
        # torch's circular padding is copies into slices: its gradient's last op is a slice's
        return name_node(out, "SliceBackwardBackward0" if name == "CopySlices" else name, inputs)

    @staticmethod
    def _backward_data(ctx, grad):
        ctx._stored_arrays()  # the version check
        return _ModePadBackward.kernel(ctx.xp, grad, ctx.plan, ctx.in_shape)


class _ModePadBackward(Function):
    """out = grad folded back onto the input's shape (see _ModePad);  grad_grad = _ModePad(g),
    grad_a = 0 (the input, when given, is read for its version only: NOTE [ Zero-gradient
    edges ])"""

    _saved_attrs = {"padding": _saved_pad}  # grad_fn._saved_padding (as torch's)
    _saved_shown = _ModePad._saved_shown

    @staticmethod
    def forward(ctx, grad, *a, plan, name, shape, pad=()):
        ctx.plan, ctx.pad_name, ctx.pad = plan, name, pad
        if a:
            ctx.save_for_backward(*a)
        return _ModePadBackward.kernel(ctx.xp, grad._data, plan, shape)

    @staticmethod
    def kernel(xp, g, plan, shape):
        for dim, runs, _, center_at in reversed(plan):
            g = _fold_dim(xp, g, dim, runs, shape[dim], center_at)
        return g

    @staticmethod
    def backward(ctx, g):
        saved = ctx._stored_tensors
        needs = ctx.needs_input_grad
        gg = None
        if needs[0]:
            gg = _ModePad.apply(g, plan=ctx.plan, name=ctx.pad_name, keep=False, pad=ctx.pad)
            gg = name_node(gg, ctx.pad_name, (g,))
        return (gg, *(zeros_of(a) if n else None for a, n in zip(saved, needs[1:], strict=True)))


def _saved_pad_pairs(node) -> tuple:
    """ConstantPadNdBackward0's _saved_pad: the pads as given (from the node's (dim, left,
    right) pairs), read back unsigned as torch's binding does."""
    return tuple(saved_uint64(p) for _, left, right in node.pairs for p in (left, right))


show_saved("ConstantPadNdBackward0", {"pad": _saved_pad_pairs})


class ConstantPadNd(Function):
    """out = input inside a border of `value` (pads >= 0): one fill and one copy, instead of a
    cat per padded dim (perf11, session 27); grad_input = the interior of grad (torch's
    constant_pad_nd with the pads negated). A channels-last 4-d input gives a channels-last
    result, as torch's."""

    _saved_attrs = {"pad": _saved_pad_pairs}  # grad_fn._saved_pad (as torch's)

    @staticmethod
    def forward(ctx, input, *, pairs, value):
        x = input._data
        ctx.pairs = pairs
        shape = list(x.shape)
        inner = [slice(None)] * x.ndim
        for dim, left, right in pairs:
            shape[dim] += left + right
            inner[dim] = slice(left, left + x.shape[dim])
        ctx.inner = tuple(inner)
        if _mf.suggested_last(x) is not None:  # 4-d or 5-d
            to, back, _ = _mf.last_orders(x.ndim)
            out = ctx.xp.full([shape[a] for a in to], value, dtype=x.dtype).transpose(back)
        else:
            out = ctx.xp.full(shape, value, dtype=x.dtype)
        out[ctx.inner] = x
        return out

    @staticmethod
    def backward(ctx, grad):
        if grad.requires_grad:  # create_graph: the crop, differentiable (its backward pads)
            return _constant(grad, [(d, -lf, -rt) for d, lf, rt in ctx.pairs], 0)
        return grad[ctx.inner].clone(memory_format=_mf.preserve_format)


def _constant(input: Tensor, pairs, value) -> Tensor:
    grows = any(left > 0 or right > 0 for _, left, right in pairs)
    if grows:  # checked only when written
        # torch's pad takes the value as a double, so c10's float check applies to every dtype:
        # into uint8, -1 raises (where full and fill_ take the int -1 as 255) and 255.5 raises
        value = _dtype.fill_number(float(value), input._data.dtype)
        if not input.dtype.is_floating_point and input.dtype is not _dtype.bool:
            value = int(value)
    if grows and all(left >= 0 <= right for _, left, right in pairs):
        if (  # NOTE [ The no-grad fast path ]: ConstantPadNd.forward, after pad's checks
            input.__class__ is Tensor
            and input._device is _CPU
            and not (input._requires_grad and state.enabled)
            and fast_path[0]
        ):
            out = ConstantPadNd.forward(_CPU_NULL_CTX, input, pairs=tuple(pairs), value=value)
            return plain_result(out, _CPU)
        return ConstantPadNd.apply(input, pairs=tuple(pairs), value=value)
    out = input
    copied = False
    # torch keeps a channels-last layout: the pieces are made channels-last, and so is a cropped
    # input that is padded, so that cat keeps it
    cl = _mf.suggested_last(input._data)  # channels_last, channels_last_3d or None
    to, back, _ = _mf.last_orders(input.ndim) if cl is not None else (None, None, None)
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
            if n and cl is not None:
                shape = [shape[a] for a in to]
                piece = full(shape, value, dtype=input.dtype, device=input.device)
                pieces.append(piece.permute(back))
            else:
                piece = full(shape, value, dtype=input.dtype, device=input.device) if n else None
                pieces.append(piece)
        if pieces[0] is not None or pieces[1] is not None:
            if cl is not None and not _mf.is_in(out._data, cl):  # cropped
                out = out.contiguous(memory_format=cl)
            parts = [p for p in (pieces[0], out, pieces[1]) if p is not None]
            out = _ops.cat(parts, dim)
            copied = True
    return out if copied else out.clone()  # a new tensor, as torch's, even when only cropping
