"""Shape ops that are views: view, reshape, flatten, squeeze, permute, transpose, expand, narrow."""

from __future__ import annotations

from math import prod as _prod
from operator import index as _int

from minitorch import _dtype, _memory_format
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._backend import strided_view
from minitorch._ops._common import check_int, index, int_list, is_index, not_tensor, type_name
from minitorch._ops._common import wrap_dim as _wrap_dim
from minitorch._tensor import Tensor, _make, _storage_root
from minitorch.autograd import function as _function
from minitorch.autograd.function import (
    Function,
    _mark_view,
    fast_path,
    name_node,
    record_view_apply,
    saved_uint64,
)
from minitorch.autograd.grad_mode import state as _grad_state

_CPU_XP = _CPU.backend.xp  # the view fast paths' module (NOTE [ The view fast path ])
_WHOLE = slice(None)

__all__ = [
    "view",
    "view_dtype",
    "reshape",
    "ravel",
    "flatten",
    "unflatten",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "t",
    "movedim",
    "moveaxis",
    "swapaxes",
    "swapdims",
    "adjoint",
    "numpy_T",
    "matrix_T",
    "expand",
    "broadcast_to",
    "narrow",
]

# NOTE [ Shape views ]
# A view op's forward returns an array sharing memory with its input (never a copy): the core
# shares the version counter and records (cls, kwargs) so that `cls.apply(base, **kwargs)` replays
# the view (see _mark_view). So every view op takes its parameters normalised (dims wrapped, shapes
# inferred) as keyword arguments, and the public function validates and raises torch's errors.


# NOTE [ Empty views ]
# NumPy (2.4) leaves an empty slice's data pointer where the sliced dim starts (a[3:3] starts at
# a's first element) and does not multiply its stride by the step; torch moves the offset by the
# start and scales the stride whatever the size (a[3:3] is at storage_offset 3, a[0:0:2] has
# stride 2). So an empty result of a basic key (slices, ints, None: indexing, select, narrow,
# the splits, unbind) is rebuilt from its input with torch's offset and strides: a view of the
# input's memory, at_strides below, that reads nothing. Only a result NumPy already made empty
# pays for this. Such a view may start at or past the end of its base's memory (x[3:] of 3
# elements): it still shares the base's storage (storage_offset, untyped_storage, is_set_to,
# save/load), since _lies_in in minitorch/_tensor.py places an empty view by the memory it
# views, not by its address.


def at_strides(xp, x, offset: int, shape, strides):
    """An empty view of x's memory starting `offset` elements past x's first element, with the
    given shape and element strides (the memory is never read: offset may be x's end)."""
    item = x.itemsize
    # A one-element window there moves the data pointer. CuPy refuses to move the null pointer
    # of an array with no memory, and its empty views all sit at their base's first element
    # anyway (their storage_offset() is 0 on a GPU).
    if offset > 0 and (x.size or getattr(xp, "__name__", "") != "cupy"):
        x = strided_view(xp, x, (offset + 1,), (item,))[offset:]
    return strided_view(xp, x, shape, [s * item for s in strides])


def empty_view(xp, a: Tensor, key: tuple):
    """a[key] for a basic key (ints in range, slices of positive step, None, one Ellipsis) whose
    result is empty, with torch's storage offset and strides (NOTE [ Empty views ])."""
    shape = a._data.shape
    strides = a.stride()
    n = len(shape)
    rest = n - sum(1 for k in key if k is not None and k is not Ellipsis)  # Ellipsis's dims
    offset, d = 0, 0
    out_shape, out_strides = [], []
    for k in key:
        if k is None:  # as torch's unsqueeze there, before the dims after it are indexed
            out_shape.append(1)
            out_strides.append(shape[d] * strides[d] if d < n else 1)
        elif k is Ellipsis:
            out_shape += shape[d : d + rest]
            out_strides += strides[d : d + rest]
            d += rest
        elif k.__class__ is slice:
            start, stop, step = k.indices(shape[d])
            out_shape.append(len(range(start, stop, step)))
            out_strides.append(strides[d] * step)
            offset += start * strides[d]
            d += 1
        else:
            offset += (k + shape[d] if k < 0 else k) * strides[d]
            d += 1
    out_shape += shape[d:]
    out_strides += strides[d:]
    return at_strides(xp, a._data, offset, out_shape, out_strides)


# NOTE [ The view fast path ]
# Views run everywhere in model code (a flatten before a Linear, the reshapes of attention), and
# most of their cost was Function.apply's. Where no node is recorded (NOTE [ The no-grad fast
# path ] in minitorch/autograd/function.py: a plain CPU tensor, nothing to record, no profile
# open), a view op computes its forward's array itself, once its arguments are checked, and
# plain_view wraps it as apply would: a new tensor with no history that _mark_view makes a view
# of its input (same base, version counter and replay chain, the same registration of NOTE
# [ Views and grad mode ]). The keyword arguments it records are those the op's apply call
# passes, so a replay of the chain runs the same forward. Anything else (a node to record, a
# subclass, another device, an empty result some forwards rebuild) takes the full path.
def plain_view(a: Tensor, out, cls, kwargs: dict) -> Tensor:
    """Function.apply's result for the view op `cls`, called on the plain CPU tensor `a` with
    keyword arguments `kwargs`, when no node is recorded: `out` is the array its forward
    returns (NOTE [ The view fast path ])."""
    result = _function._new_object(Tensor)  # (read here: NOTE [ Inference tensors ])
    result._vc = [0]  # first, as in apply (the store that marks an inference tensor)
    result._data = out
    result._device = _CPU
    result._requires_grad = False
    result._grad_fn = None
    result._grad = None
    _mark_view(result, a, cls, (), kwargs)  # (which sets _base)
    return result


def view_apply(cls, a: Tensor, kwargs: dict) -> Tensor:
    """cls.apply(a, **kwargs) for the view op `cls` where its no-grad fast path declined: where
    a is a plain CPU tensor whose node is recorded (no saved-tensor hooks, no profile), without
    apply's general tests (record_view_apply: NOTE [ The recorded fast path ])."""
    if (
        a.__class__ is Tensor
        and a._requires_grad
        and _grad_state.enabled
        and a._device is _CPU
        and fast_path[0]
    ):
        return record_view_apply(cls, a, kwargs)
    return cls.apply(a, **kwargs)


# NOTE [ Saved values under another node name ]
# A node may be given another op's name after it was recorded (name_node): a view whose base
# changed in place is regenerated as torch regenerates it, one as_strided of its base, named
# AsStridedBackward0 (_regenerate_view_grad_fn in minitorch/autograd/function.py), and a
# composite names its result's node after itself (LinalgSolveExBackward0 of a squeeze). The op's
# own grad_fn._saved_<name> are not torch's there: such a node shows none of them (torch's
# AsStridedBackward0 shows its size, stride and storage offset). The views' _saved_shown say so.
SHOWN_UNLESS_REGENERATED = {"AsStridedBackward0": ()}  # (the views whose names were kept)


class OwnNodeNames(dict):
    """A Function's _saved_shown listing the node names under which its nodes show their
    _saved_<name> attributes (a name -> None: all of them); under any other name, none (NOTE
    [ Saved values under another node name ])."""

    def get(self, name, default=None):
        return super().get(name, ())


def own_node_names(*names: str) -> OwnNodeNames:
    return OwnNodeNames(dict.fromkeys(names))


def keep_given(out: Tensor, given) -> None:
    """Keeps an argument as the call gave it (`given`: a negative dim, a key) on the node of
    `out`, where one was recorded, for its grad_fn._saved_<name>: set after apply, since one
    more keyword argument through Function.apply costs a recorded op ~400 instructions."""
    fn = out._grad_fn
    if fn is not None:
        fn.given = given


def saved_ints(v):
    """An int or a sequence of ints (int-likes) as torch's grad_fn._saved_<name> shows int64
    arguments: ints read back unsigned (-1: 2**64 - 1), a sequence as a tuple."""
    if v.__class__ is int:
        return saved_uint64(v)
    if is_index(v):
        return saved_uint64(_int(v))
    return tuple([saved_uint64(_int(d)) for d in v])


def given_dims(node, wrapped):
    """A node's dims as its call gave them (keep_given kept them where one was negative), else
    `wrapped`, as torch shows them (saved_ints): grad_fn._saved_dim of unsqueeze, _dim0/_dim1
    of transpose, _dims of permute, flip and roll."""
    return saved_ints(node.__dict__.get("given", wrapped))


def as_view_array(x, shape):
    """A new array object sharing x's memory, with `shape` (the strides must allow it)."""
    shape = tuple(shape)
    return x.view() if x.shape == shape else x.reshape(shape)


def _infer_shape(shape, numel, op):
    """`shape` as a tuple of ints for `numel` elements, its one -1 inferred; torch's errors
    (_infer_shape_checked) for anything else. The common shapes (ints, at most one -1) are
    read in one loop."""
    if shape.__class__ is not tuple:
        return _infer_shape_checked(shape, numel, op)
    inferred = False
    for s in shape:
        if s.__class__ is not int or s < 0:
            if s.__class__ is not int or s != -1 or inferred:
                return _infer_shape_checked(shape, numel, op)
            inferred = True
    if not inferred:
        if _prod(shape) == numel:
            return shape
    else:
        rest = -_prod(shape)
        if rest and not numel % rest:
            if shape[-1] == -1:  # (x.view(-1), x.view(n, -1))
                return shape[:-1] + (numel // rest,)
            i = shape.index(-1)
            return shape[:i] + (numel // rest,) + shape[i + 1 :]
    return _infer_shape_checked(shape, numel, op)  # raises torch's error


def _infer_shape_checked(shape, numel, op):
    given = shape
    try:
        shape = tuple(shape)
    except TypeError:  # torch.reshape(x, 4.0): int_list raises torch's text below
        shape = (None,)
    for s in shape:
        if s.__class__ is not int:  # See NOTE [ Int-like arguments ]
            # torch.reshape's own wording (its `shape`, 2nd); the methods reword it for how
            # their size was passed (NOTE [ Size argument forms ])
            if op == "reshape":
                if isinstance(given, Tensor):  # (torch's int[] takes no tensor for the shape)
                    from minitorch._call_site import passed_by_keyword

                    at = "" if passed_by_keyword("shape", op) else " (position 2)"
                    raise TypeError(
                        f"reshape(): argument 'shape'{at} must be tuple of ints, not Tensor"
                    )
                shape = int_list(given, op, "shape", 2)
            else:
                shape = int_list(given, op, "size")
            break
    neg = -1
    for i, s in enumerate(shape):
        if s == -1:
            if neg >= 0:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    rest = 1
    for s in shape:
        if s != -1:
            rest *= s
    if neg >= 0:
        if rest == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return shape[:neg] + (numel // rest,) + shape[neg + 1 :]
    if rest != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _viewable(x, shape) -> bool:
    """Whether x can be seen with `shape` without a copy (torch's computeStride, on strides)."""
    old = x.shape
    if not old or x.size == 0 or x.flags.c_contiguous:
        return True
    strides = x.strides
    view_d = len(shape) - 1
    base_stride = strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and strides[d - 1] != tensor_numel * base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if d > 0:
                base_stride = strides[d - 1]
                tensor_numel = view_numel = 1
    return view_d == -1


# --- view / reshape / flatten ---


def _reshape_back(ctx, grad):
    """grad reshaped to the input's shape: the backward of view, reshape, squeeze and unsqueeze,
    for a Tensor (backward) and an array (_backward_data, NOTE [ Data-level backward ]) alike."""
    return grad.reshape(ctx.in_shape)


class View(Function):
    """out = a seen with another shape (shares memory);  grad_a = grad reshaped back"""

    _is_view = True
    _saved_shown = SHOWN_UNLESS_REGENERATED
    _saved_attrs = {"self_sym_sizes": "in_shape"}  # grad_fn._saved_self_sym_sizes (as torch)

    @staticmethod
    def forward(ctx, a, *, shape):
        x = a._data
        ctx.in_shape = x.shape
        return x.view() if x.shape == shape else x.reshape(shape)  # (as_view_array, inlined)

    backward = _backward_data = staticmethod(_reshape_back)


class ReshapeAlias(View):
    """reshape's view of a non-contiguous input (torch's _reshape_alias): View under its name"""

    _node_name = "ReshapeAliasBackward0"


class Reshape(Function):
    """out = a copied into another shape (when a view is impossible);  grad_a = grad reshaped"""

    _node_name = "UnsafeViewBackward0"
    _saved_attrs = View._saved_attrs

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.in_shape = a._data.shape
        return _memory_format.dense(ctx.xp, a._data).reshape(shape)

    backward = _backward_data = staticmethod(_reshape_back)


def view(input: Tensor, shape) -> Tensor:
    """Mirrors torch.Tensor.view (shares memory; an error when the strides forbid it)."""
    x = input._data
    shape = _infer_shape(shape, x.size, "view")
    if not (x.flags.c_contiguous or _viewable(x, shape)):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    if (  # NOTE [ The view fast path ]: View.forward's array
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        out = x.view() if x.shape == shape else x.reshape(shape)
        return plain_view(input, out, View, {"shape": shape})
    return view_apply(View, input, {"shape": shape})


# NOTE [ Dtype views ]
# view(dtype) reinterprets the memory, as torch's view(dtype): like detach() it is not an autograd
# view (no `_base`, `_is_view()` False, never differentiable) but it shares the input's version
# counter, so a write through it (bits ^= 1 << 31) makes a tensor saved for backward stale, and
# backward raises as in torch. It remembers the tensor starting its storage (`_storage_root`,
# read only by storage_offset()), so that offsets count from the storage in the new element
# size, as torch's do (an int32 x[1:, 2:] at offset 6 viewed as int64 is at offset 3).
def view_dtype(input: Tensor, dtype) -> Tensor:
    """The same memory read as another dtype. Mirrors torch.Tensor.view(dtype), whose result
    is a non-differentiable alias even for the input's own dtype. See NOTE [ Dtype views ].
    """
    from minitorch import _dtype

    dt = _dtype.to_dtype(dtype, "view")
    np_dtype = _dtype.numpy_dtype(dt)
    x = input._data
    old, new = x.itemsize, np_dtype.itemsize
    if old != new:
        _check_dtype_view(input, dt, old, new)
    out = _make(x.view(np_dtype), input._device, False, None)
    out._vc = input._vc
    root = _storage_root(input)
    if root is not input:
        out._storage_root = root
    return out


def _check_dtype_view(input: Tensor, dt, old: int, new: int) -> None:
    """torch's checks (in its order) for viewing input as dtype dt of another element size."""
    x = input._data
    what = f"to view {_short(input.dtype)} as {_short(dt)} (different element sizes)"
    if x.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    ratio = new // old
    if new > old and x.shape[-1] % ratio:
        raise RuntimeError(
            f"self.size(-1) must be divisible by {ratio} {what}, but got {x.shape[-1]}"
        )
    step = input.stride()[-1]  # torch's, a size-1 last dim's included
    if new > old:
        # the larger elements must start on their own boundaries in the storage (checked before
        # the last stride, as torch)
        offset = input.storage_offset()
        if offset % ratio:
            raise RuntimeError(
                f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}"
            )
    if step != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {step}")
    if new > old:
        strides = input.stride()
        for d in range(x.ndim - 1):
            # an empty slice keeps NumPy's strides, where stride() reads torch's contiguous ones
            s = x.strides[d] // old if x.size == 0 and x.strides[d] else strides[d]
            if s % ratio:
                raise RuntimeError(
                    f"self.stride({d}) must be divisible by {ratio} {what}, but got {s}"
                )


_short = _dtype.scalar_name  # torch's dtype spelling in messages ("Float")


def reshape(input: Tensor, shape) -> Tensor:
    """A view when the strides allow, else a copy. Mirrors torch.reshape."""
    try:
        x = input._data
    except AttributeError:  # torch.reshape(ndarray, ...): zero-cost when a tensor
        raise not_tensor("reshape", input) from None
    return _reshaped(input, x, _infer_shape(shape, x.size, "reshape"))


def _reshaped(input: Tensor, x, shape: tuple) -> Tensor:
    """reshape of input (whose array is x) to `shape`, a tuple of ints of its number of
    elements: a view when the strides allow, else a copy."""
    contiguous = x.flags.c_contiguous
    if contiguous or _viewable(x, shape):
        if (  # NOTE [ The view fast path ]: View.forward's (ReshapeAlias's) array
            not (input._requires_grad and _grad_state.enabled)
            and input.__class__ is Tensor
            and input._device is _CPU
            and fast_path[0]
        ):
            out = x.view() if x.shape == shape else x.reshape(shape)
            return plain_view(input, out, View if contiguous else ReshapeAlias, {"shape": shape})
        return view_apply(View if contiguous else ReshapeAlias, input, {"shape": shape})
    if not input._requires_grad:  # no graph to show: one copy
        return Reshape.apply(input, shape=shape)
    # torch copies as clone(contiguous) and then _unsafe_view: a graph walker sees
    # UnsafeViewBackward0 over CloneBackward0, as here
    from minitorch._ops.convert import contiguous_as

    return Reshape.apply(contiguous_as(input, None), shape=shape)


def ravel(input: Tensor) -> Tensor:
    """The elements as a 1-d tensor: a view of a contiguous input, else a contiguous copy (torch's
    contiguous().view(-1), where reshape would return a strided view when the strides allow).
    Mirrors torch.ravel."""
    try:
        contiguous = input._data.flags.c_contiguous
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("ravel", input) from None
    if not contiguous:
        from minitorch._ops.convert import contiguous_as

        input = contiguous_as(input, None)
    return reshape(input, (-1,))


def flatten(input: Tensor = REQUIRED, start_dim: int = 0, end_dim: int = -1, *extra) -> Tensor:
    """Merges dims start_dim..end_dim into one. Mirrors torch.flatten."""
    if extra:  # (input REQUIRED: not_tensor words torch.flatten())
        raise arity_error("flatten", extra, 3, input=input)
    try:
        shape = input._data.shape
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("flatten", input) from None
    n = len(shape)
    if not n:
        # a 0-d tensor takes dims 0 and -1 only (torch's IndexError otherwise); it becomes 1-d
        _wrap_dim(start_dim, 0, "flatten", "start_dim", 2)
        _wrap_dim(end_dim, 0, "flatten", "end_dim", 3)
        return reshape(input, (1,))
    # (_wrap_dim's result, inlined for int dims in range)
    if start_dim.__class__ is int and -n <= start_dim < n:
        start = start_dim % n
    else:
        start = _wrap_dim(start_dim, n, "flatten", "start_dim", 2)
    if end_dim.__class__ is int and -n <= end_dim < n:
        end = end_dim % n
    else:
        end = _wrap_dim(end_dim, n, "flatten", "end_dim", 3)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    return _reshaped(
        input, input._data, shape[:start] + (_prod(shape[start : end + 1]),) + shape[end + 1 :]
    )


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Splits dim `dim` into `sizes` (one may be -1). Mirrors torch.unflatten."""
    try:
        shape = input._data.shape
    except AttributeError:  # zero-cost when a tensor
        raise not_tensor("unflatten", input) from None
    # torch's order: the parser's types (dim's, then sizes'), dim's range, empty sizes, 0-d
    if dim.__class__ is not int:
        dim = check_int("unflatten", dim, "dim", 2)
    if sizes.__class__ is tuple or sizes.__class__ is list:
        given = sizes
        sizes = tuple(sizes)
        for s in sizes:
            if s.__class__ is not int:  # (int_list's result where all are ints)
                sizes = int_list(given, "unflatten", "sizes", 3)
                break
    else:
        sizes = int_list(sizes, "unflatten", "sizes", 3)
    d = _wrap_dim(dim, len(shape), "unflatten", "dim", 2)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not shape:  # (wrap_dim lets a 0-d tensor take dim 0 or -1; torch names it wrapped: 0)
        raise RuntimeError(
            f"unflatten got an unexpected error:\nDimension specified as {d} but tensor has no "
            "dimensions"
        )
    try:
        sizes = _infer_shape(sizes, shape[d], "unflatten")
    except RuntimeError as e:
        # torch wraps infer_size's errors, all but the one of sizes that do not multiply up
        if str(e).startswith(("only one", "cannot reshape", "invalid shape")):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({shape[d]}) in the input tensor"  # the wrapped dim, as torch names it
        ) from None
    return view(input, shape[:d] + sizes + shape[d + 1 :])


# --- squeeze / unsqueeze ---


class Squeeze(Function):
    """out = a without its size-1 dims (a view);  grad_a = grad reshaped back"""

    _is_view = True
    _saved_shown = own_node_names("SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2")
    _saved_attrs = {"self_sym_sizes": "in_shape"}  # grad_fn._saved_<name> (as torch's)

    @staticmethod
    def forward(ctx, a, *, dims):
        x = a._data
        ctx.in_shape = x.shape
        shape = _squeezed_shape(x.shape, dims)
        out = x.view() if x.shape == shape else x.reshape(shape)  # (as_view_array, inlined)
        if out.size:
            return out
        # NumPy's reshape gives an empty array zero strides: keep torch's (NOTE [ Empty views ])
        strides = [st for i, st in enumerate(a.stride()) if i not in dims]
        return at_strides(ctx.xp, x, 0, out.shape, strides)

    _backward_data = staticmethod(_reshape_back)

    @staticmethod
    def backward(ctx, grad):
        # torch's unsqueeze_to: one unsqueeze per squeezed dim (UnsqueezeBackward0 under
        # create_graph), the gradient itself where nothing was squeezed
        shape = ctx.in_shape
        have = grad._data.shape
        if have == shape:
            return grad
        j = 0
        for i, n in enumerate(shape):
            if j < len(have) and have[j] == n:
                j += 1
            else:  # (a size-1 dim squeezed; of two equal runs of 1s the same tensor either way)
                grad = unsqueeze(grad, i)
        return grad


def _squeezed_shape(shape: tuple, dims: tuple) -> tuple:
    """shape without the dims `dims` (distinct, in range)."""
    if not dims:
        return shape
    if len(dims) == 1:
        d = dims[0]
        return shape[:d] + shape[d + 1 :]
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _squeeze(input: Tensor, cls, dims: tuple, given=None) -> Tensor:
    """cls.apply(input, dims=dims) for a squeeze node class (NOTE [ The view fast path ]:
    Squeeze.forward's array where it is not empty); `given`: the dim argument as the call gave
    it, for the node's grad_fn._saved_dim."""
    if (
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        x = input._data
        out = x.view() if not dims else x.reshape(_squeezed_shape(x.shape, dims))
        if out.size:  # (as_view_array's; an empty one is rebuilt by the forward)
            return plain_view(input, out, cls, {"dims": dims})
    out = view_apply(cls, input, {"dims": dims})
    if given is not None:  # squeeze's dim argument, for grad_fn._saved_dim
        fn = out._grad_fn
        if fn is not None:
            fn.given = given
    return out


def _squeeze_dim(node):
    """grad_fn._saved_dim of a squeeze node: the dim argument as given (of size 1 or not), a
    negative one read back unsigned, as torch's."""
    given = node.__dict__.get("given")
    if given is None:  # (a node squeeze() did not record: a replayed view's)
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '_saved_dim'")
    if isinstance(given, (tuple, list)):
        return tuple(saved_uint64(_int(d)) for d in given)
    return saved_uint64(_int(given))


class SqueezeDim(Squeeze):
    """out = a without dim `dim` when it has size 1 (a view);  grad_a = grad reshaped back"""

    _node_name = "SqueezeBackward1"
    _saved_attrs = {"dim": _squeeze_dim, "self_sym_sizes": "in_shape"}  # (as torch's)


class SqueezeDims(Squeeze):
    """out = a without the listed dims that have size 1 (a view);  grad_a = grad reshaped back"""

    _node_name = "SqueezeBackward2"
    _saved_attrs = SqueezeDim._saved_attrs


def squeeze_overloads(out: bool) -> list:
    """torch.squeeze's (and squeeze_copy's, with out=) overloads, as its parser lists them."""
    tail = ", *, Tensor out = None" if out else ""
    return [f"Tensor input{d}{tail}" for d in ("", ", int dim", ", tuple of ints dim")]


def _squeeze_error(input, dim, extra=()) -> TypeError:
    from minitorch._ops._parser_errors import parsed_error, with_extra

    return parsed_error("squeeze", with_extra((("input", input), ("dim", dim)), extra))


def squeeze(input: Tensor = REQUIRED, dim=None, *extra) -> Tensor:
    """Removes size-1 dims (all, one, or a tuple; other dims are left). Mirrors torch.squeeze."""
    if extra:  # torch.squeeze(x, 0, 0): no overload takes three
        raise _squeeze_error(input, dim, extra)
    try:
        shape = input._data.shape
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise _squeeze_error(input, dim) from None
    n = len(shape)
    if dim is None:
        ones = shape.count(1)
        if ones < 2:  # (the dims of size 1, found by C calls where there are fewer than two)
            return _squeeze(input, Squeeze, (shape.index(1),) if ones else ())
        return _squeeze(input, Squeeze, tuple(i for i, s in enumerate(shape) if s == 1))
    if dim.__class__ is int and -n <= dim < n:  # (_wrap_dim's result, inlined)
        d = dim % n
        return _squeeze(input, SqueezeDim, (d,) if shape[d] == 1 else (), dim)
    if isinstance(dim, int) or is_index(dim):
        d = _wrap_dim(dim, n)
        return _squeeze(input, SqueezeDim, (d,) if n and shape[d] == 1 else (), dim)
    if not isinstance(dim, (tuple, list)):  # a 9-element tensor, a str: no overload takes it
        raise _squeeze_error(input, dim)
    wrapped = []
    for d in dim:  # wrapped one by one, as torch: a repeat is found before a later bad dim
        try:
            d = _wrap_dim(d, n)
        except TypeError:  # torch's parser: an int[] whose first element is no int fits no
            if not wrapped:  # overload; a later one fails to unpack
                raise _squeeze_error(input, dim) from None
            at = len(wrapped) + 1  # (a repeat raised before: every earlier dim is in wrapped)
            raise TypeError(
                f"squeeze(): argument 'dim' failed to unpack the object at pos {at} with error "
                f'"type must be tuple of ints,but got {type_name(d)}"'
            ) from None
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return _squeeze(input, SqueezeDims, tuple(d for d in wrapped if n and shape[d] == 1), dim)


class Unsqueeze(Function):
    """out = a with a new size-1 dim at `dim` (a view);  grad_a = grad with that dim removed"""

    _is_view = True
    _saved_shown = SHOWN_UNLESS_REGENERATED
    _saved_attrs = {"dim": lambda node: given_dims(node, node.dim)}  # (as torch's: as given)

    @staticmethod
    def forward(ctx, a, *, dim):
        ctx.in_shape = a._data.shape
        ctx.dim = dim
        return _unsqueezed(ctx.xp, a, dim)

    _backward_data = staticmethod(_reshape_back)

    @staticmethod
    def backward(ctx, grad):
        return squeeze(grad, ctx.dim)  # (torch's SqueezeBackward1 under create_graph)


def _unsqueezed(xp, a: Tensor, dim: int):
    """a's array with a new size-1 dim at `dim` (in range), strided as torch's."""
    x = a._data
    shape = x.shape
    out = x.reshape(shape[:dim] + (1,) + shape[dim:])  # (as_view_array: never x's own shape)
    # torch's new dim strides like a contiguous dim over the one it precedes (1 at the end);
    # NumPy's reshape may give another (and an empty array 0 strides throughout)
    have = x.strides if x.size else tuple(st * x.itemsize for st in a.stride())
    new = have[dim] * shape[dim] if dim < len(shape) else x.itemsize
    strides = have[:dim] + (new,) + have[dim:]
    if out.strides != strides:
        out = strided_view(xp, out, out.shape, strides)
    return out


def unsqueeze(input: Tensor = REQUIRED, dim: int = REQUIRED, *extra) -> Tensor:
    """Inserts a size-1 dim. Mirrors torch.unsqueeze."""
    if extra or input is REQUIRED or dim is REQUIRED:
        raise arity_error("unsqueeze", extra, 2, input=input, dim=dim)
    try:
        n = input._data.ndim + 1
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("unsqueeze", input) from None
    if dim.__class__ is int and -n <= dim < n:  # (_wrap_dim's result, inlined)
        d = dim % n
    else:
        d = _wrap_dim(dim, n, "unsqueeze", "dim", 2)
    if (  # NOTE [ The view fast path ]: Unsqueeze.forward's array
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        return plain_view(input, _unsqueezed(_CPU_XP, input, d), Unsqueeze, {"dim": d})
    if dim is d:  # (a dim in range: the same int; else kept as given for grad_fn._saved_dim)
        return view_apply(Unsqueeze, input, {"dim": d})
    out = view_apply(Unsqueeze, input, {"dim": d})
    fn = out._grad_fn  # (keep_given, inlined)
    if fn is not None:
        fn.given = dim
    return out


# --- permutations of dims ---


class Permute(Function):
    """out = a with its dims reordered (a view);  grad_a = grad with the inverse order"""

    _is_view = True
    _saved_shown = SHOWN_UNLESS_REGENERATED
    _saved_attrs = {"dims": lambda node: given_dims(node, node.dims)}  # (as torch's: as given)

    @staticmethod
    def forward(ctx, a, *, dims):
        ctx.dims = dims
        return a._data.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(_inverse(ctx.dims))

    @staticmethod
    def _backward_data(ctx, grad):
        return grad.transpose(_inverse(ctx.dims))


def _inverse(dims) -> tuple:
    """The permutation undoing `dims`."""
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return tuple(inverse)


class Transpose(Function):
    """out = a with dims dim0 and dim1 swapped (a view);  grad_a = grad swapped back"""

    _is_view = True
    _saved_shown = SHOWN_UNLESS_REGENERATED
    _saved_attrs = {  # (as torch's: as given)
        "dim0": lambda node: given_dims(node, node.dims)[0],
        "dim1": lambda node: given_dims(node, node.dims)[1],
    }

    @staticmethod
    def forward(ctx, a, *, dim0, dim1):
        ctx.dims = (dim0, dim1)
        if dim0 == dim1:  # also the only pair a 0-d tensor has (dim 0 or -1), NumPy's AxisError
            return a._data.view()
        return a._data.swapaxes(dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims)

    @staticmethod
    def _backward_data(ctx, grad):
        d0, d1 = ctx.dims
        return grad if d0 == d1 else grad.swapaxes(d0, d1)


class TransposeT(Function):
    """out = a.t() for a of <= 2 dims (a view);  grad_a = grad.t()"""

    _is_view = True
    _node_name = "TBackward0"

    @staticmethod
    def forward(ctx, a):
        return a._data.T if a._data.ndim == 2 else a._data.view()

    @staticmethod
    def backward(ctx, grad):
        return grad.t()

    @staticmethod
    def _backward_data(ctx, grad):
        # A plain transposed array, not a tracked view, so a weight gradient coming through
        # F.linear's w.t() can become .grad without a copy (the engine steals an array nothing
        # else sees; see Backend.owns_data)
        return grad.T if grad.ndim == 2 else grad


def _permuted(input, dims):
    """input with its dims in the order `dims` (wrapped, a permutation): a view, through the
    view fast path where nothing is recorded (NOTE [ The view fast path ]), else Permute."""
    if (
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        return plain_view(input, input._data.transpose(dims), Permute, {"dims": dims})
    return view_apply(Permute, input, {"dims": dims})


def permute(input: Tensor, dims) -> Tensor:
    """Reorders the dims. Mirrors torch.permute."""
    try:
        n = input._data.ndim
    except AttributeError:  # torch.permute(None, ...): zero-cost when a tensor
        raise not_tensor("permute", input) from None
    if dims.__class__ is not tuple:
        if not isinstance(dims, (tuple, list)):  # torch.permute(x, 0): no int[] (a method's is)
            from minitorch._ops._common import wrong_type

            raise wrong_type("permute", dims, "dims", 2, "tuple of ints")
        dims = tuple(dims)
    if len(dims) != n:
        int_list(dims, "permute", "dims", 2)  # torch's parser refuses a non-int element first
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    for d in dims:
        if d.__class__ is not int or not 0 <= d < n:  # (else _wrap_dim leaves each as it is)
            given = dims
            dims = _wrapped_dims(dims, n)
            break
    else:  # (the dims as given)
        if len(set(dims)) != n:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return _permuted(input, dims)
    out = _permuted(input, dims)
    keep_given(out, given)  # for grad_fn._saved_dims
    return out


def _wrapped_dims(dims: tuple, n: int) -> tuple:
    """permute's dims (n of them) read as ints (the parser's types first), then wrapped and
    checked for repeats one at a time, as torch does: permute(2, 2, -5) of a 4-d tensor is the
    repeat's error, not the range's."""
    try:
        ints = [d if d.__class__ is int else index(d, None, "dim") for d in dims]
    except TypeError:  # an int-like tensor, or torch's wording for what is not int-like
        ints = int_list(dims, "permute", "dims", 2)
    seen = [False] * n
    out = []
    for d in ints:
        d = _wrap_dim(d, n)
        if seen[d]:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        seen[d] = True
        out.append(d)
    return tuple(out)


def _wrap_first(dim, other, n: int, op: str, names: tuple) -> int:
    """_wrap_dim of the first of two dims (arguments 2 and 3 of `op`, named `names`): one out of
    range is torch's IndexError only when the second has the right type (its parser reads both
    first: torch.transpose(v, 1, 1.0) names dim1). Off the fast path: a dim to wrap."""
    try:
        return _wrap_dim(dim, n, op, names[0], 2)
    except IndexError:
        if other.__class__ is not int:
            check_int(op, other, names[1], 3)
        raise


def transpose(
    input: Tensor = REQUIRED, dim0: int = REQUIRED, dim1: int = REQUIRED, *extra
) -> Tensor:
    """Swaps two dims. Mirrors torch.transpose."""
    if extra or input is REQUIRED or dim0 is REQUIRED or dim1 is REQUIRED:
        raise arity_error("transpose", extra, 3, input=input, dim0=dim0, dim1=dim1)
    try:
        x = input._data
    except AttributeError:  # torch.transpose(None, 0, 1): zero-cost when a tensor
        raise not_tensor("transpose", input) from None
    n = x.ndim or 1  # (a 0-d tensor takes dims 0 and -1, as _wrap_dim)
    # (_wrap_dim's results, inlined for int dims in range)
    if dim0.__class__ is int and -n <= dim0 < n:
        d0 = dim0 % n
    else:
        d0 = _wrap_first(dim0, dim1, x.ndim, "transpose", ("dim0", "dim1"))
    if dim1.__class__ is int and -n <= dim1 < n:
        d1 = dim1 % n
    else:
        d1 = _wrap_dim(dim1, x.ndim, "transpose", "dim1", 3)
    if (  # NOTE [ The view fast path ]: Transpose.forward's array
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        out = x.view() if d0 == d1 else x.swapaxes(d0, d1)
        return plain_view(input, out, Transpose, {"dim0": d0, "dim1": d1})
    if dim0 is d0 and dim1 is d1:  # (else kept as given, for grad_fn._saved_dim0/1)
        return view_apply(Transpose, input, {"dim0": d0, "dim1": d1})
    out = view_apply(Transpose, input, {"dim0": d0, "dim1": d1})
    fn = out._grad_fn  # (keep_given, inlined: x.transpose(-2, -1) is common)
    if fn is not None:
        fn.given = (dim0, dim1)
    return out


swapdims = transpose


def swapaxes(
    input: Tensor = REQUIRED, axis0: int = REQUIRED, axis1: int = REQUIRED, *extra
) -> Tensor:
    """transpose with NumPy's argument names. Mirrors torch.swapaxes."""
    if extra or input is REQUIRED or axis0 is REQUIRED or axis1 is REQUIRED:
        raise arity_error("swapaxes", extra, 3, input=input, axis0=axis0, axis1=axis1)
    try:
        n = input._data.ndim
        d0 = _wrap_dim(axis0, n, "swapaxes", "axis0", 2)
        d1 = _wrap_dim(axis1, n, "swapaxes", "axis1", 3)
    except AttributeError:  # zero-cost when a tensor
        raise not_tensor("swapaxes", input) from None
    except IndexError:  # axis0 out of range: torch's parser reads axis1's type first
        if axis1.__class__ is not int:
            check_int("swapaxes", axis1, "axis1", 3)
        raise
    out = Transpose.apply(input, dim0=d0, dim1=d1)
    if axis0 is not d0 or axis1 is not d1:
        keep_given(out, (axis0, axis1))  # as given, for grad_fn._saved_dim0/1
    return out


def t(input: Tensor = REQUIRED, *extra) -> Tensor:
    """Transposes a 2-d tensor; 0-d and 1-d tensors are returned as they are. Mirrors torch.t."""
    if extra:  # (input REQUIRED: not_tensor words torch.t())
        raise arity_error("t", extra, 1, input=input)
    try:
        n = input._data.ndim
    except AttributeError:  # torch.t(None): zero-cost when a tensor
        raise not_tensor("t", input) from None
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    if (  # NOTE [ The view fast path ]: TransposeT.forward's array
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        x = input._data
        return plain_view(input, x.T if n == 2 else x.view(), TransposeT, {})
    return view_apply(TransposeT, input, {})


def adjoint(input: Tensor) -> Tensor:
    """The transpose of the last two dims (real tensors). Mirrors torch.adjoint."""
    if not isinstance(input, Tensor):
        raise not_tensor("adjoint", input)
    if input._data.ndim == 0:  # torch: deprecated, the tensor itself (real: nothing to conjugate)
        from minitorch._settings import warn_once  # torch: once per process

        warn_once("adjoint_0d", "adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        return input
    if input._data.ndim < 2:
        raise RuntimeError(
            "tensor.adjoint() is only supported on matrices or batches of matrices. "
            f"Got {input._data.ndim}-D tensor."
        )
    return transpose(input, -2, -1)


def numpy_T(input: Tensor) -> Tensor:
    """Tensor.T: all dims reversed (deprecated by torch for other than 2 dims)."""
    n = input._data.ndim
    if n == 0:
        from minitorch._settings import warn_once  # torch: once per process

        warn_once(
            "T_0d",
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
        )
    elif n != 2:
        from minitorch._settings import warn_once  # torch: once per process

        warn_once(
            "T_not_2d",
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor.",
        )
    dims = (1, 0) if n == 2 else tuple(range(n - 1, -1, -1))
    return _permuted(input, dims)


def matrix_T(input: Tensor, op: str = "mT") -> Tensor:
    """Tensor.mT / mH (the transpose of the last two dims) and Tensor.H (of a matrix)."""
    if input._data.ndim == 0:  # torch: deprecated, the tensor itself (no complex: no conj)
        hint = (
            "This function is the identity in these cases."
            if op == "mT"
            else ("Consider using x.conj().")
        )
        from minitorch._settings import warn_once  # torch: once per process (one per op)

        warn_once(f"{op}_0d", f"Tensor.{op} is deprecated on 0-D tensors. {hint}")
        return input
    if op == "H" and input._data.ndim != 2:
        raise RuntimeError(
            "tensor.H is only supported on matrices (2-D tensors). Got "
            f"{input._data.ndim}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if input._data.ndim > 2 else "")
        )
    if input._data.ndim < 2:
        raise RuntimeError(
            f"tensor.{op} is only supported on matrices or batches of matrices. Got "
            f"{input._data.ndim}-D tensor."
        )
    return transpose(input, -2, -1)


def _dims_list(dims, n, op, *whats):
    """Each of the dim lists `dims` wrapped, with torch's order of errors: every dim's range
    (all lists), then a repeated dim (list by list, named by `whats`)."""
    out = [tuple(_wrap_dim(d, n) for d in ds) for ds in dims]
    for ds, wrapped, what in zip(dims, out, whats, strict=True):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"{op}: repeated dim in `{what}` ({list(ds)})")
    return out


def _movedim_error(input, source, destination, op: str = "movedim", extra=()) -> TypeError:
    from minitorch._ops._parser_errors import parsed_error, with_extra

    named = (("input", input), ("source", source), ("destination", destination))
    return parsed_error(op, with_extra(named, extra))


def movedim(
    input: Tensor = REQUIRED,
    source=REQUIRED,
    destination=REQUIRED,
    *extra,
    _op: str = "movedim",
) -> Tensor:
    """Moves dims `source` to positions `destination`. Mirrors torch.movedim."""
    if extra:  # movedim(x, 0, 1, 2): no overload takes four
        raise _movedim_error(input, source, destination, _op, extra)
    try:
        n = input._data.ndim
    except AttributeError:  # torch.movedim(None, 0, 1): zero-cost when a tensor
        raise _movedim_error(input, source, destination, _op) from None
    for arg in (source, destination):
        if isinstance(arg, str) or arg is None or arg is REQUIRED:  # (ints or int[]s)
            raise _movedim_error(input, source, destination, _op)
    one_src = isinstance(source, int) or is_index(source)
    one_dst = isinstance(destination, int) or is_index(destination)
    if one_src != one_dst:  # torch's overloads: two ints or two int[]s
        raise _movedim_error(input, source, destination, _op)
    src_list = [source] if one_src else list(source)
    dst_list = [destination] if one_dst else list(destination)
    if len(src_list) != len(dst_list):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src_list} dims) should contain "
            f"the same number of dims as destination ({dst_list} dims)"
        )
    src, dst = _dims_list((src_list, dst_list), n, "movedim", "source", "destination")
    if n == 0:  # dim 0 of a 0-d tensor: torch's identity view, an alias (AliasBackward0)
        return name_node(Permute.apply(input, dims=()), "AliasBackward0")
    order = [-1] * n
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = tuple(o if o >= 0 else next(rest) for o in order)
    return Permute.apply(input, dims=order)


def moveaxis(input: Tensor = REQUIRED, source=REQUIRED, destination=REQUIRED, *extra) -> Tensor:
    """Mirrors torch.moveaxis (movedim, under its own name in errors)."""
    return movedim(input, source, destination, *extra, _op="moveaxis")


# --- broadcasting ---


class Expand(Function):
    """out = a broadcast to a bigger shape (a view);  grad_a = grad summed over expanded dims"""

    _is_view = True
    _saved_shown = SHOWN_UNLESS_REGENERATED
    _saved_attrs = {"self_sym_sizes": "in_shape"}

    @staticmethod
    def forward(ctx, a, *, shape):
        ctx.in_shape = a._data.shape
        return _expanded(a._device.backend, a, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad  # the engine sums the broadcast dims back to a's shape

    _backward_data = backward  # an array passes as well (NOTE [ Data-level backward ])


def _expanded(backend, a: Tensor, shape: tuple):
    """a's array broadcast to `shape` (checked), strided as torch's."""
    x = a._data
    if (
        backend is _CPU.backend
        and 1 not in shape
        and x.base is None
        and x.size
        and 0 not in shape
        and x.flags.c_contiguous
    ):
        # np.broadcast_to's view of an array that owns its memory (x as its base, x's strides
        # where a dim is kept, 0 where broadcast, read-only), made directly: its Python-level
        # argument handling cost ~1 us of the ~1.5 of x.expand(...)
        lead = len(shape) - x.ndim  # (_expand_strides, where no size is 1)
        strides = [
            st if n == s else 0 for st, n, s in zip(x.strides, x.shape, shape[lead:], strict=True)
        ]
        if lead:
            strides[:0] = (0,) * lead
        out = _CPU_XP.ndarray(shape, x.dtype, x, 0, strides)
        if lead or 0 in strides:  # (x.expand(x.shape) repeats nothing: writable, as torch's)
            out.flags.writeable = False
        return out
    out = backend.broadcast_to(x, shape)
    if 1 in shape or not out.size:  # NumPy gives size-1 dims and empty arrays 0 strides
        out = strided_view(backend.xp, out, shape, _expand_strides(a, shape))
    return out


def _expand_shape(shape: tuple, sizes: tuple):
    """The shape an expand of a tensor of `shape` to `sizes` makes, where sizes is all ints
    that expand() accepts (-1 keeps a dim); None for anything else (expand words the error)."""
    lead = len(sizes) - len(shape)
    if lead < 0:
        return None
    for s in sizes:
        if s.__class__ is not int:
            return None
    if lead:
        if min(sizes[:lead]) < 0:
            return None
        kept = sizes[lead:]
    else:
        kept = sizes
    if -1 in kept:
        kept = tuple([have if s == -1 else s for s, have in zip(kept, shape, strict=True)])
        sizes = sizes[:lead] + kept
    for s, have in zip(kept, shape, strict=True):
        if s != have and (have != 1 or s < 0):
            return None
    return sizes


def _expand_strides(a, shape) -> tuple:
    """torch's strides (in bytes) of tensor a expanded to shape: a kept dim keeps its stride, a
    broadcast one gets 0, and a new leading dim of size 1 that of a contiguous dim before the
    next one (the next stride times the next size)."""
    x = a._data
    out = [0] * len(shape)
    lead = len(shape) - x.ndim
    have = x.strides if x.size else tuple(s * x.itemsize for s in a.stride())
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            d = i - lead
            out[i] = have[d] if x.shape[d] == shape[i] else 0
        elif shape[i] == 1:
            out[i] = out[i + 1] * shape[i + 1] if i + 1 < len(shape) else x.itemsize
    return tuple(out)


def expand(input: Tensor, sizes) -> Tensor:
    """Broadcasts to `sizes` (-1 keeps a dim) without copying. Mirrors torch.Tensor.expand.

    Differences from torch: on the CPU the result is a read-only NumPy view, so writing into it
    raises (torch raises too, with another message). A negative size for a size-1 or new dim
    raises torch's numel overflow error even beside a zero size, where torch 2.13 returns a
    tensor of no elements with a negative size (x.expand(0, -2): size (0, -2), whose .numpy()
    raises NumPy's ValueError), which a NumPy array cannot be.
    """
    x = input._data
    sizes = tuple(sizes)
    shape = _expand_shape(x.shape, sizes)  # (the common sizes; the checks below word errors)
    if shape is not None:
        if (  # NOTE [ The view fast path ]: Expand.forward's array
            not (input._requires_grad and _grad_state.enabled)
            and input.__class__ is Tensor
            and input._device is _CPU
            and fast_path[0]
        ):
            out = _expanded(_CPU.backend, input, shape)
            return plain_view(input, out, Expand, {"shape": shape})
        return view_apply(Expand, input, {"shape": shape})
    for s in sizes:
        if s.__class__ is not int:  # See NOTE [ Int-like arguments ]
            sizes = int_list(sizes, "expand", "size")
            break
    if len(sizes) < x.ndim:
        raise RuntimeError(
            f"expand({_dtype.checked_type_name(input)}{{{list(x.shape)}}}, size={list(sizes)}): "
            f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number "
            f"of dimensions in the tensor ({x.ndim})"
        )
    lead = len(sizes) - x.ndim
    shape = [0] * len(sizes)
    negative = False
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as torch (whose error it names)
        s = sizes[i]
        if i < lead:
            if s == -1 and x.ndim:  # (a 0-d tensor's new dims take -1 as any negative size)
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            negative = negative or s < 0  # a new leading dim of -2: torch's numel check
            shape[i] = s
            continue
        have = x.shape[i - lead]
        if s == -1:
            s = have
        elif have != s:
            if have != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size ({have}) "
                    f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor "
                    f"sizes: {list(x.shape)}"
                )
            negative = negative or s < 0  # a size-1 dim "expanded" to -2
        shape[i] = s
    if negative:  # torch takes the sizes and its numel check refuses them
        raise RuntimeError("numel: integer multiplication overflow")
    return Expand.apply(input, shape=tuple(shape))


def broadcast_to(input: Tensor, size) -> Tensor:
    """Mirrors torch.broadcast_to."""
    if not isinstance(input, Tensor):
        raise not_tensor("broadcast_to", input)
    try:
        return expand(input, size)
    except TypeError:  # torch's words for a size that is no int[]: broadcast_to's own
        if isinstance(size, (tuple, list)) or is_index(size):
            raise
        int_list(size, "broadcast_to", "size", 2)
        raise


# --- narrow ---


class Narrow(Function):
    """out = a[start:start+length] along dim (a view);  grad_a = grad padded with zeros"""

    _is_view = True
    _saved_shown = own_node_names("SliceBackward0")
    _node_name = "SliceBackward0"

    @staticmethod
    def forward(ctx, a, *, dim, start, length):
        ctx.in_shape = a._data.shape
        ctx.dim, ctx.start, ctx.length = dim, start, length
        key = (_WHOLE,) * dim + (slice(start, start + length),)
        out = a._data[key]
        if out.size:
            return out
        return empty_view(ctx.xp, a, key)  # torch's offset and strides: NOTE [ Empty views ]

    @staticmethod
    def backward(ctx, grad):
        return NarrowPad.apply(grad, shape=ctx.in_shape, dim=ctx.dim, start=ctx.start)

    @staticmethod
    def _backward_data(ctx, grad):
        return _narrow_pad(ctx.xp, grad, ctx.in_shape, ctx.dim, ctx.start)


Narrow._saved_attrs = {  # grad_fn._saved_<name> (as torch's SliceBackward0 of narrow)
    "dim": lambda node: saved_uint64(_int(node.__dict__.get("given", node.dim))),
    "start": "start",
    "end": lambda node: node.start + node.length,
    "step": lambda node: 1,
    "self_sym_sizes": "in_shape",
}


def _narrow_pad(xp, x, shape, dim: int, start: int):
    """zeros(shape) with the array x written at [start:start+n] along dim."""
    out = xp.zeros(shape, dtype=x.dtype)
    out[(slice(None),) * dim + (slice(start, start + x.shape[dim]),)] = x
    return out


class NarrowPad(Function):
    """out = zeros(shape) with grad written at [start:start+n] along dim;  grad_a = narrow(grad)"""

    _node_name = "SliceBackwardBackward0"

    @staticmethod
    def forward(ctx, a, *, shape, dim, start):
        x = a._data
        ctx.dim, ctx.start, ctx.length = dim, start, x.shape[dim]
        return _narrow_pad(ctx.xp, x, shape, dim, start)

    @staticmethod
    def backward(ctx, grad):
        return Narrow.apply(grad, dim=ctx.dim, start=ctx.start, length=ctx.length)


def sym_int(x, op: str, name: str, pos: int | None = None) -> int:
    """A size-like int argument (torch's SymInt: narrow's length, narrow_copy's start): an
    int-like, or an integer tensor of one element, whatever its rank, read as its value."""
    if isinstance(x, Tensor) and x._data.size == 1 and x._data.dtype.kind in "iu":
        return int(x)  # (a shape-defining read, as torch's)
    return index(x, op, name, pos)


NARROW_FORMS = ("int dim, Tensor start, int length", "int dim, int start, int length")


def narrow_arity_error(given: tuple, method: bool) -> TypeError:
    """torch's TypeError for narrow given too few or too many positional arguments (`given`,
    left to right): two overloads, so its parser lists both (the method's without input)."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments

    forms = NARROW_FORMS if method else tuple("Tensor input, " + f for f in NARROW_FORMS)
    call = call_arguments("narrow")
    if call is None:  # (keywords unknown: the arguments given, as positional ones)
        return invalid_arguments("narrow", forms, tuple(v for v in given if v is not REQUIRED), {})
    n, names = call
    names_ = ("dim", "start", "length") if method else ("input", "dim", "start", "length")
    values = dict(zip(names_, given, strict=False))
    kwargs = {k: values[k] for k in reversed(names) if k in values}
    return invalid_arguments("narrow", forms, given[:n], kwargs)


def narrow(
    input: Tensor = REQUIRED,
    dim: int = REQUIRED,
    start=REQUIRED,
    length: int = REQUIRED,
    *extra,
) -> Tensor:
    """input[start:start+length] along dim, sharing memory. Mirrors torch.narrow."""
    if extra or input is REQUIRED or dim is REQUIRED or start is REQUIRED or length is REQUIRED:
        raise narrow_arity_error((input, dim, start, length, *extra), False)
    if (
        start.__class__ is not int
        and isinstance(start, Tensor)
        and (start._data.ndim or start._data.dtype.kind not in "iu")
    ):
        # torch's overload for a Tensor start takes a 0-d integer one only
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    try:
        shape = input._data.shape
        n = len(shape)
        if not n:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        if length.__class__ is not int:
            length = sym_int(length, "narrow", "length")
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        # (_wrap_dim's result, inlined for an int dim in range)
        d = dim % n if dim.__class__ is int and -n <= dim < n else _wrap_dim(dim, n)
        size = shape[d]
        if start.__class__ is not int:  # a 0-d integer tensor too: NOTE [ Int-like arguments ]
            start = index(start, "narrow", "start")
    except (AttributeError, TypeError):  # an argument of a type neither overload takes
        from minitorch._ops._parser_errors import parsed_error

        named = (("input", input), ("dim", dim), ("start", start), ("length", length))
        raise parsed_error("narrow", named) from None
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    if (  # NOTE [ The view fast path ]: Narrow.forward's array where it is not empty
        not (input._requires_grad and _grad_state.enabled)
        and input.__class__ is Tensor
        and input._device is _CPU
        and fast_path[0]
    ):
        out = input._data[(_WHOLE,) * d + (slice(start, start + length),)]
        if out.size:
            return plain_view(input, out, Narrow, {"dim": d, "start": start, "length": length})
    out = view_apply(Narrow, input, {"dim": d, "start": start, "length": length})
    if dim != d:  # a negative dim: kept as given, for grad_fn._saved_dim (keep_given)
        keep_given(out, dim)
    return out
