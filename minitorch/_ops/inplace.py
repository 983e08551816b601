"""In-place ops (add_, mul_, copy_, fill_, ...), `out=` writes, and autograd through views."""

from __future__ import annotations

import functools
import inspect
import math
import warnings
import weakref

from minitorch import _dtype, _memory_format, return_types
from minitorch._arg_errors import REQUIRED
from minitorch._backend import cpu as _CPU
from minitorch._backend import strided_view
from minitorch._backend.numpy_backend import maximum_number
from minitorch._dtype import fill_number, via_float32
from minitorch._ops._common import (
    _called_as_method,
    check_tensors,
    fma_into,
    fused_multiply_add,
    is_floating,
    is_number,
    not_tensor,
    number,
    scalar_like,
    type_name,
    uint64_bounds,
    wrap_int,
    wrong_type,
    zero_of,
    zeros_of,
)
from minitorch._subclass import as_subclass, dispatch, dispatching, overloaded_types, refuse_own
from minitorch._tensor import Tensor, _in_base_memory, _make, _writable_alias
from minitorch.autograd.function import (
    Function,
    _base_gained_history,
    _custom_view_error,
    _in_custom_function,
    _raise_broadcast_error,
    _replay_current,
    _replay_view,
    move_retained_grad,
    name_node,
    no_grad_view_message,
    rebase_view_history,
    reshaped_in_place,
    written_view_history,
)
from minitorch.autograd.grad_mode import (
    INFERENCE_INPLACE_MESSAGE,
    InferenceVersion,
    no_grad,
    state,
)

__all__ = [
    "apply_inplace",
    "check_shape_change",
    "add_",
    "sub_",
    "mul_",
    "div_",
    "pow_",
    "clamp_",
    "zero_",
    "fill_",
    "copy_",
    "neg_",
    "exp_",
    "log_",
    "sqrt_",
    "abs_",
    "tanh_",
    "sigmoid_",
    "relu_",
    "floor_divide_",
    "remainder_",
    "write_out",
    "set_shape_",
    "copy_slices",
]

# NOTE [ In-place through views ]
# An in-place op is computed out of place on a snapshot of `self` (so ops that need the old value,
# like mul_, keep it), then written into self's memory; the version counter is bumped, so any
# backward that saved the old value refuses to run. Autograd history:
# - self not a view: self takes the new node as its grad_fn (the old one becomes its input);
# - self a view of `base`: base takes a CopySlices node whose inputs are base's old history and the
#   new value of the view; the view (and every other view of base) regenerates its grad_fn from base
#   on next use, because the shared version counter moved (see _regenerate_view_grad_fn).
# With no grad recorded, the kernel writes straight into self's memory.


def has_overlap(self: Tensor) -> bool:
    """Whether several elements share one memory location (an expanded tensor)."""
    x = self._data
    # (an empty tensor has no elements to overlap; NumPy may give it zero strides)
    return any(
        stride == 0 and size > 1 for stride, size in zip(x.strides, x.shape, strict=True)
    ) and bool(x.size)


def _check_overlap(self: Tensor):
    # An expanded tensor has several elements on one memory location: torch refuses to write it.
    if has_overlap(self):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to "
            "a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def warn_expanded(op: str, example: str):
    """torch's deprecation warning for masked_fill_/index_put_ on an expanded tensor, which it
    still writes (only the selected elements: several may land on one memory location)."""
    warnings.warn(
        f"Use of {op} on expanded tensors is deprecated. Please clone() the tensor before "
        f"performing this operation. This also applies to advanced indexing e.g. {example}",
        UserWarning,
        stacklevel=3,
    )


def warn_expanded_put(mask_fill: bool = False):
    """torch's warning for index_put_ into an expanded tensor, and masked_fill_'s after it where
    index_put_ runs one (one value at one bool mask: `mask_fill`)."""
    warn_expanded("index_put_", "tensor[indices] = tensor")
    if mask_fill:
        warn_expanded("masked_fill_", "tensor[mask] = scalar")


def expanded_write(self: Tensor, op: str, others, mask_fill: bool = False) -> bool:
    """For a recorded write that torch allows into an expanded tensor (op masked_fill_ or
    index_put_, `mask_fill` as warn_expanded_put's): where self is expanded, apply_inplace's
    checks made (the overlap one left out) and torch's deprecation warnings given, and True
    (apply_inplace's `checked`). The backward then refuses the expanded region as torch's
    does (CopySlices)."""
    if not has_overlap(self):
        return False
    _check_leaf(self, op, overlap_ok=True)
    for o in others:
        check_partial_overlap(self, o)
    if op == "masked_fill_":
        warn_expanded(op, "tensor[mask] = scalar")
    else:
        warn_expanded_put(mask_fill)
    return True


def writable(t: Tensor):
    """t's array for an in-place write. A view of an expand()ed tensor is a NumPy broadcast view,
    read-only; torch writes through it into the memory it shares (fill_, zero_ and x[i] = v on
    an expanded tensor; any in-place op on a slice of one without repeated elements), so such a
    view is rebuilt, writable, over its root's memory with the same shape and strides. So is
    the gradient a full reduction's backward spreads over a shape (a read-only zero-strides
    array, not a view for autograd): a custom backward writing into its grad_output (sparsemax's
    `grad_output[out == 0] = 0`) or a hook's masked_fill_ writes its one element, as torch's."""
    d = t._data
    if getattr(d.flags, "writeable", True):  # (CuPy 13's flags have no writeable: always)
        return d
    if t._base is None:
        return _writable_alias(d) if t._device.type == "cpu" else d
    root = t._base._data
    if not (getattr(root.flags, "writeable", True) and root.flags.c_contiguous):
        # (a view of a spread gradient, whose root is read-only too: over its owner's memory)
        return _writable_alias(d) if t._device.type == "cpu" else d
    backend = t._device.backend
    start = (backend.data_ptr(d) - backend.data_ptr(root)) // d.itemsize
    return strided_view(backend.xp, root.reshape(-1)[start:], d.shape, d.strides)


def _check_leaf(self: Tensor, op: str, writes: bool = True, overlap_ok: bool = False):
    # torch's autograd checks come before the kernel's own (an expanded view of a leaf gets
    # the view-of-a-leaf error, not the overlap one)
    if state.enabled:
        _check_autograd_rules(self)
    if self._vc.__class__ is not list:
        check_inference_write(self)
    if writes and not overlap_ok and has_overlap(self):
        autograd_refusals(self, ())  # (a split output's refusal comes first)
        _check_overlap(self)


def check_shape_change(self: Tensor) -> None:
    """torch's refusals of an in-place shape change (of a leaf that requires grad, a view of one,
    an inference tensor outside inference mode), made before the op reads its arguments: t_() of
    a 3-d leaf or squeeze_ of a dim out of range names the leaf."""
    _check_leaf(self, "set_shape_", writes=False)


def check_inference_write(t: Tensor):
    """torch's refusal of an in-place change of an inference tensor outside inference mode,
    before the write (NOTE [ Inference tensors ] in minitorch/autograd/grad_mode.py)."""
    if t._vc.__class__ is InferenceVersion and not state.inference:
        raise RuntimeError(INFERENCE_INPLACE_MESSAGE)


def _check_autograd_rules(self: Tensor):
    """torch's refusals of an in-place change of a leaf that requires grad or of a view that
    autograd cannot rebase (of such a leaf, made under no_grad, made by a custom Function)."""
    if self._grad_fn is None and self._requires_grad:
        if self._base is None:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
    base = self._base
    # torch's test: a view that requires grad (or of a base that does) whose base is a leaf; the
    # view needs grad with its base not when it was made a leaf itself: x = a[4:];
    # x.requires_grad_(); x.mul_(2), or x[0] = 5 through it
    # torch checks how the view was made (custom Function, no_grad) before whether its base is
    # a leaf: a view of a parameter taken under no_grad gets the no_grad message
    mode = None if base is None else self.__dict__.get("_no_grad_view")
    if mode and self._requires_grad:  # (not once its base stopped requiring grad)
        # See NOTE [ Views and grad mode ] in minitorch/autograd/function.py
        if self._view_chain and _in_custom_function(self):  # made in a custom forward
            raise RuntimeError(
                "A view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled. This view was created inside a custom Function (or because an input was "
                "returned as-is) and the autograd logic to handle view+inplace would override the "
                "custom backward associated with the custom Function, leading to incorrect "
                "gradients. This behavior is forbidden. You can fix this by cloning the output of "
                "the custom Function."
            )
        raise RuntimeError(no_grad_view_message(mode, "is being modified inplace", self))
    if base is not None and base._grad_fn is None and (base._requires_grad or self._requires_grad):
        if self._view_chain and _in_custom_function(self):  # torch checks this first
            _custom_view_error(self, "is being modified inplace")
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation."
        )
    if (
        base is not None
        and self._grad_fn is None
        and self._requires_grad
        and not self.__dict__.get("_rebased")
    ):
        # torch's test reads the view's node as it stands: a view taken before its base gained
        # history has none until something looks it up (grad_fn, is_leaf, an op using it) or
        # it is itself written (rebase_view_history)
        if _in_custom_function(self):  # torch checks this first
            _custom_view_error(self, "is being modified inplace")
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def autograd_refusals(self: Tensor, others) -> None:
    """torch's refusals of an in-place change of self that would be recorded (a leaf, views it
    cannot rebase, outputs of split/unbind), which it makes before its kernel's own checks: for
    the kernels' error paths that minitorch takes first."""
    if state.enabled and (self._requires_grad or any(o._requires_grad for o in others)):
        _check_autograd_rules(self)
        if self._base is not None and _in_custom_function(self):
            _custom_view_error(self, "is being modified inplace")


def _check_no_grad_view(view: Tensor):
    """torch's refusal to record an in-place change (from an operand that requires grad) of a
    view taken under no_grad of a base that requires no grad. Such a view is the one the base
    has not registered (views taken with grad mode on are: NOTE [ Views and grad mode ]), so it
    is told here, on the rare path, rather than marked at every view op under no_grad."""
    base = view._base
    if base._grad_fn is not None:
        return
    mode = view.__dict__.get("_no_grad_view")  # (one taken of a base that required grad)
    views = base.__dict__.get("_grad_views")  # (weak references: GradViews)
    if mode or not any(r() is view for r in views or ()):
        raise RuntimeError(no_grad_view_message(mode or True, "is being modified inplace"))
    if view._view_version != view._vc[0] or not _in_base_memory(view):
        # the base changed since: a view whose chain no longer reaches its memory (the base was
        # resized, set_, given new .data) cannot take the write's history, refused before it
        with no_grad():
            _replay_current(view)


def _check_result(self: Tensor, r: Tensor, op: str, others=()):
    if r._data.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(r._data.shape)}"
        )
    if r._data.dtype != self._data.dtype and not _dtype.can_cast(r.dtype, self.dtype):
        into = _short(self.dtype)
        numbers = any(o is not None and not isinstance(o, Tensor) for o in others)
        if op in _NUMBER_CLAMPS and numbers:  # (its kernel reads a 0-d tensor beside one as one)
            into = _dtype.CPP_NAMES[self.dtype.name]  # these kernels spell it in C++ ("long int")
        raise RuntimeError(
            f"result type {_short(r.dtype)} can't be cast to the desired output type {into}"
        )


_NUMBER_CLAMPS = frozenset(("clamp_", "clamp_min_", "clamp_max_", "clip_"))


_short = _dtype.scalar_name  # torch's dtype spelling in messages ("Float")


_ALPHA_ERRORS = (  # add/sub's refusals of alpha (e.args), made after the in-place checks
    ("For integral input tensors, argument alpha must not be a floating point number.",),
    ("Boolean alpha only supported for Boolean results.",),
    ("For non-complex input tensors, argument alpha must not be a complex number.",),
)


def _compute(compute, x: Tensor, self: Tensor, others, op: str) -> Tensor:
    """compute(x) for the in-place op `op` on self, its errors in torch's order: the result type's
    cast check comes before the kernel's refusal (NotImplementedError) or an integer division by
    zero; a TypeError names the method."""
    try:
        return compute(x)
    except NotImplementedError:
        _check_promotion(self, others)
        raise
    except RuntimeError as e:  # an integer division by zero or add's alpha refused, found
        if e.args == ("ZeroDivisionError",) or e.args[:1] in _ALPHA_ERRORS:  # before the checks
            _check_promotion(self, others)
        raise
    except TypeError as e:
        raise _as_method_error(e, op) from None


def apply_inplace(self: Tensor, compute, op: str, others=(), checked: bool = False) -> Tensor:
    """self <- compute(self), in place. `compute` is the out-of-place op (Tensor -> Tensor);
    `others` are its other tensor operands (to know whether a graph must be recorded); checked:
    the caller made _check_leaf's and the partial-overlap checks already (copy_)."""
    if not checked:
        try:
            _check_leaf(self, op)
        except AttributeError:  # torch.exp_(None): zero-cost when a tensor
            check_tensors(op, ("input", self))
            raise
        for o in others:
            check_partial_overlap(self, o)
    record = state.enabled and (
        self._requires_grad
        or (  # (copy_ into an integer self takes the values, not the history, as torch's)
            any(isinstance(o, Tensor) and o._requires_grad for o in others)
            and (op != "copy_" or self.dtype.is_floating_point)
        )
    )
    if record and not self._requires_grad and self._base is not None:
        _check_no_grad_view(self)
    if not record:
        with no_grad():
            r = _compute(compute, self, self, others, op)
        _check_result(self, r, op, others)
        _write(self, r._data)
        self._vc[0] += 1
        if r.__class__ is not Tensor:  # NOTE [ In-place ops with a Tensor-subclass operand ]
            return self if isinstance(self, r.__class__) else as_subclass(self, r.__class__)
        return self
    # NOTE [ In-place ops with a Tensor-subclass operand ]
    if dispatching(self) or any(dispatching(t) for t in others):
        return _on_subclass(self, compute, op, others)
    r = _compute(compute, _snapshot(self), self, others, op)
    _check_result(self, r, op, others)
    if r._data.dtype != self._data.dtype:
        # cast as torch's kernel casts into self: the op's node is self's history (MulBackward0,
        # not a ToCopyBackward0 after it); the engine casts the gradients to the inputs' dtypes
        r = _make(r._data.astype(self._data.dtype), r._device, True, r._grad_fn, r._output_nr)
    _write(self, r._data)
    self._vc[0] += 1
    _take_history(self, r)
    _saved_result_is_self(self, r)
    return self


# NOTE [ In-place ops with a Tensor-subclass operand ]
# torch hands x.add_(sub) to the subclass's __torch_function__ even when x is a plain tensor; its
# default runs the op on plain tensors and returns x as the subclass: x.add_(sub) is a new MyT
# aliasing x (AliasBackward0 over x's own AddBackward0 when recording), not x. apply_inplace:
# - without a graph to record, computes as usual: the out-of-place op, given the subclass operand,
#   returns the subclass (Function.apply dispatches), which is the class x is returned as (a
#   class comparison for plain tensors; an operand outside `others`, masked_fill_'s mask, counts);
# - recording, looks for a subclass operand first and runs the op with dispatch off under the
#   subclass's __torch_function__, so that x records its own node rather than an alias's.
# A subclass's own __torch_function__ needs the method's arguments, which apply_inplace does not
# have: the methods that know them (add_, sub_, mul_, div_, copy_, fill_) dispatch themselves
# with torch's func (Tensor.add_, ...) on their general paths; the others refuse, as
# Function.apply does for torch.* functions. _fast_inplace sends a dispatching subclass to the
# general path at no cost to plain tensors.


def _on_subclass(self: Tensor, compute, op: str, others) -> Tensor:
    """apply_inplace with a Tensor-subclass operand (see the NOTE above)."""
    types = overloaded_types((self, *others))
    where = f"for {op} on a plain tensor or as torch.{op} (add_, sub_, mul_, div_, copy_, fill_ do)"
    refuse_own(types, where)

    def run(*args, **kwargs):
        return apply_inplace(self, compute, op, others)

    run.__name__ = op
    return dispatch(run, types, (self, *others), {}, name=f"torch.Tensor.{op}")


def dispatch_method(op: str, args, kwargs) -> Tensor:
    """torch.Tensor.<op>(*args, **kwargs) handed to the __torch_function__ of its Tensor-subclass
    operands, as torch's method does."""
    types = overloaded_types(args, kwargs)
    return dispatch(getattr(Tensor, op), types, args, kwargs, name=f"torch.Tensor.{op}")


def _as_method_error(e: TypeError, op: str) -> TypeError:
    """The out-of-place op's TypeError for a non-tensor second argument (or a first of the wrong
    type: x.scatter_add_(index, 1, src)), as the in-place method names it: torch's x.atan2_(1) is
    "atan2_(): argument 'other' (position 1) must be Tensor",
    where torch.atan2(x, 1) says "atan2()" and "position 2". Operands of unrelated Tensor
    subclasses name the method too ('torch.Tensor.lerp_', not 'torch.lerp'). Other errors pass
    unchanged."""
    msg = str(e)
    failed = "Multiple dispatch failed for '"
    if msg.startswith(failed):
        rest = msg[msg.index("'", len(failed)) :]
        return type(e)(f"{failed}torch.Tensor.{op}{rest}")
    listed = msg.startswith(f"{op[:-1]}() received an invalid combination")
    if listed and "(Tensor input" not in msg:  # the method's overloads listed (pow_, lerp_)
        return type(e)(op + msg[len(op) - 1 :])
    if msg.startswith(f"{op[:-1]}() missing "):  # (a method's REQUIRED operand: x.hypot_())
        return type(e)(op + msg[len(op) - 1 :])
    head = f"{op[:-1]}(): argument '"
    if not msg.startswith(head):
        return e
    if "' (position 2) must be Tensor" in msg:
        # wrong_type counted the method's arguments already where it saw the method's frame
        # (x.addcmul_(t, 2): tensor2 is position 2), not under an alias's (x.arctan2_(1))
        if not _called_as_method(op[:-1]):
            msg = msg.replace("(position 2)", "(position 1)", 1)
        return type(e)(op + msg[len(op) - 1 :])
    # passed by keyword (NOTE [ Keyword arguments in argument errors ]): no position to shift;
    # position 1: counted as the method's already (NOTE [ Argument positions of methods ])
    if "' must be " in msg or "' (position 1) must be " in msg:
        return type(e)(op + msg[len(op) - 1 :])
    return e


def _broadcast_shape(shapes):
    """The shape that `shapes` broadcast to, or None when they do not broadcast."""
    n = max(len(s) for s in shapes)
    out = []
    for dims in zip(*((1,) * (n - len(s)) + tuple(s) for s in shapes), strict=True):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            return None
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _check_promotion(self: Tensor, others):
    """torch checks that the result type casts into self before it looks for a kernel: x_long &=
    a float is its "can't be cast" RuntimeError, not the kernel's NotImplementedError for Float
    (nor, for x_bool //= an int tensor holding 0, its ZeroDivisionError). Called only once the
    kernel has refused. Before both, as torch, the shape: a 0-d self with a (2, 3) other is its
    "output with shape [] doesn't match the broadcast shape [2, 3]"."""
    shape = _broadcast_shape([self._data.shape] + [o._data.shape for o in others
                                                   if isinstance(o, Tensor)])  # fmt: skip
    if shape is not None and shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
            f"{list(shape)}"
        )
    operands = [(self.dtype, self._data.ndim)]
    for o in others:
        if isinstance(o, Tensor):
            operands.append((o.dtype, o._data.ndim))
        elif isinstance(number(o), (bool, int, float)):  # a NumPy scalar as torch reads it
            operands.append(number(o))
    result = _dtype.result_type(*operands)
    if not _dtype.can_cast(result, self.dtype):
        raise RuntimeError(
            f"result type {_short(result)} can't be cast to the desired output type "
            f"{_short(self.dtype)}"
        )


def _may_self_overlap(x) -> bool:
    """Whether an array's elements may share memory (overlapping unfold windows, as_strided);
    conservative: False only when each dim, by increasing stride, steps past all smaller ones."""
    if x.flags.c_contiguous or x.flags.f_contiguous:
        return False
    extent = x.itemsize
    for stride, size in sorted((abs(st), sz) for st, sz in zip(x.strides, x.shape, strict=True)):
        if size == 1:
            continue
        if stride < extent:
            return True
        extent = stride * (size - 1) + extent
    return False


def _write(self: Tensor, value):
    """self's memory <- value (self's shape), the whole view. A view whose elements share memory
    (out.unfold(0, 4, 2) after index_add_ into one window) gets only the elements the op changed:
    writing the unchanged windows back would restore the stale values over the update, where
    torch writes just the touched elements."""
    dst = writable(self)
    if self._base is None or not _may_self_overlap(dst) or not dst.size:
        dst[...] = value
        return
    xp = self._device.backend.xp
    value = xp.broadcast_to(value.astype(dst.dtype, copy=False), dst.shape)
    changed = value != dst
    if is_floating(dst.dtype):
        changed &= ~(xp.isnan(value) & xp.isnan(dst))
    # (putmask copies when its operands overlap, which is the point here; on CuPy the mask's
    # count is a device sync, paid on this rare path only)
    dst[changed] = value[changed]


# NOTE [ Saved result of an in-place op on a view ]
# A node that saved its result (sigmoid_, exp_, tanh_ on a view v) keeps, as torch's saved
# variable of an in-place op on a view does, the node v had then (AsStridedBackward0 on the
# base's CopySlices), weakly (v's node -> ... -> this node would be a cycle): a second derivative
# through the saved result reaches v's node, so autograd.grad(..., inputs=v) finds it (it was
# None), and the version error names v's node. Where that node is gone (v dropped, or v's grad_fn
# regenerated after a later write to its base, with nothing else holding the old node), the
# entry unpacks as this node's own output and the error names this node, as torch's. A later
# in-place op through v records a fresh replay of v, not that node (written_view_history): its
# CopySlices node keeps that node among its saved values instead, which a backward without
# retain_graph frees, as torch's CopySlices keeps the op's node (and through it the view's) until
# a backward releases it. So the error names v's node within a create_graph backward, and this
# node's after the write was backpropagated.


def _saved_result_is_self(self: Tensor, r: Tensor):
    """A node that saved its result (exp_, sigmoid_, tanh_, relu_) now keeps self's memory and
    version instead of r's copy: a later in-place op on self then fails the version check at
    backward, as in torch ("... is at version 2; expected version 1"), not silently passes."""
    fn = r._grad_fn
    saved = getattr(fn, "_saved", None)
    if saved.__class__ is not tuple:  # nothing saved, freed, or a user Function's list
        return
    nr = r.__dict__.get("_output_nr", 0)

    def is_result(e):
        # (a composite node's _saved holds other tuples: NOTE [ Composite nodes ])
        return (
            e.__class__ is tuple
            and len(e) == 5
            and e[0].__class__ is str
            and e[0] == "out"
            and e[4] == nr
        )

    if any(is_result(e) for e in saved):
        if self._base is None:
            entry = ("out", self._data, self._vc, self._vc[0], nr)
        else:  # NOTE [ Saved result of an in-place op on a view ]
            node = self.grad_fn  # regenerated from the base now, as torch's rebase_history does
            node._held_weakly = True
            entry = ("view_out", (self._data, weakref.ref(node)), self._vc, self._vc[0], nr)
        fn._saved = tuple(entry if is_result(e) else e for e in saved)


def _snapshot(self: Tensor) -> Tensor:
    """A copy of self's current value that carries self's autograd history."""
    if self._base is not None:  # a view's history, without the hooks of its node
        fn, nr = written_view_history(self)
    else:
        fn, nr = self._grad_fn, self._output_nr
    # A leaf requiring grad never gets here (_check_leaf), so fn is None means no history.
    return _make(self._data.copy(), self._device, self._requires_grad, fn, nr)


def _take_history(self: Tensor, r: Tensor):
    if self._base is None:
        gained = not self._requires_grad
        old = self._grad_fn
        self._grad_fn = r._grad_fn
        self._requires_grad = True
        if gained:
            _base_gained_history(self)
        if r._output_nr:
            self._output_nr = r._output_nr
        else:
            self.__dict__.pop("_output_nr", None)
        if self._retains_grad:
            move_retained_grad(self, old)
        return
    rebase_view_history(self, r)  # NOTE [ retain_grad follows the tensor ]


class CopySlices(Function):
    """base' = base with the view region replaced by src;  grad_base = grad with that region
    zeroed,  grad_src = the view region of grad"""

    _node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, src, *, chain):
        from minitorch._ops.shape_more import AsStrided

        ctx.chain = chain
        ctx.base_shape = base._data.shape
        # torch's node releases its view function in a backward: a second one raises its error
        # (it would count the gradient twice), so a None is saved, to be freed
        ctx.save_for_backward(None)
        # as_strided in the chain addresses memory: the backward replays it on arrays laid out
        # in the base's order of dims (a transposed base's region is not the row-major one)
        ctx.dim_order = None
        if any(cls is AsStrided for cls, _, _ in chain):
            strides = base._data.strides
            ctx.dim_order = sorted(range(len(strides)), key=lambda i: -abs(strides[i]))
        return base._data  # the memory was already written through the view

    @staticmethod
    def backward(ctx, grad):
        _ = ctx._stored_tensors  # (raises torch's error after a backward freed the graph)
        g_base = g_src = None
        order = ctx.dim_order
        if ctx.needs_input_grad[0]:
            hole = ctx.xp.zeros(ctx.base_shape, dtype=bool)
            hole = _laid_out(_make(hole, grad._device, False, None), order)
            with no_grad():
                region = _replay_view(hole, ctx.chain)
                # torch's backward copies the op's gradient for the view into a view of the
                # base's gradient: refused when that view is expanded (fill_ of x.expand(...))
                if 0 in region._data.strides:
                    _check_overlap(region)
                # (an expand in the chain gives a read-only view: written through the hole's
                # memory, as the forward wrote the base's; an empty region writes nothing)
                if region._data.size:
                    writable(region)[...] = True
            # zeros written, not grad * 0: torch's gradient there is +0, a product gives -0
            # where grad is negative
            g_base = grad.masked_fill(hole, 0)
        if ctx.needs_input_grad[1]:
            g_src = _replay_view(_own_memory(grad, order), ctx.chain)
        return g_base, g_src


def _laid_out(t: Tensor, order) -> Tensor:
    """t copied into new memory whose dims are laid out in `order` (outermost first), a root of
    its own (differentiable); t itself when order is None."""
    if order is None:
        return t
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    laid = t.permute(order).clone(memory_format=_memory_format.contiguous_format)
    return laid.permute(inverse).clone()  # a root: as_strided's replay reads a root's memory


def _own_memory(grad: Tensor, order) -> Tensor:
    """grad as a root of its own laid out as the base when the view chain indexes memory
    (as_strided reads its input's root storage, `order` is then the base's order of dims): a view
    or strided upstream gradient would otherwise be read through someone else's layout. Other
    chains take grad as is."""
    if order is None:
        return grad
    return _laid_out(grad, order)


def copy_slices(view: Tensor, src: Tensor):
    """Gives `view`'s base the history 'old base with the view region replaced by src'."""
    base = view._base
    alias = _make(base._data, base._device, base._requires_grad, base._grad_fn, base._output_nr)
    tmp = CopySlices.apply(alias, src, chain=view._view_chain)
    held = view.__dict__.pop("_written_node", None)
    held = None if held is None else held()
    if held is not None and held is view._grad_fn:
        # torch's CopySlices keeps the op's node, which keeps the view's node, until a backward
        # frees it (NOTE [ Saved result of an in-place op on a view ])
        tmp._grad_fn._saved = (("const", held, None, 0, 0),)
    gained = not base._requires_grad
    base._grad_fn = tmp._grad_fn
    base._requires_grad = True
    if gained:
        _base_gained_history(base)
    base.__dict__.pop("_output_nr", None)
    # The view's own grad_fn is regenerated from the base on next use (its version moved).


def set_shape_(self: Tensor, viewed: Tensor, node: str | None = None) -> Tensor:
    """squeeze_/unsqueeze_/transpose_/t_/as_strided_: self takes the shape (and history) of
    `viewed`. Like any in-place op it bumps the version (a saved self is stale: exp's output
    transposed in place then backpropagated raises, as in torch), and its node gets torch's
    in-place name (`node`: TBackward1, SqueezeBackward4, ...)."""
    _check_leaf(self, "set_shape_", writes=False)
    if state.enabled and self._requires_grad and self._view_chain and _in_custom_function(self):
        _custom_view_error(self, "is being modified inplace")  # as torch: its node would change
    old = self._data
    self._data = viewed._data
    self._vc[0] += 1
    if self._base is not None:
        # A view stays a view of its base, now through `viewed`'s chain: a later in-place op
        # writes (CopySlices) and a later base change regenerates its grad_fn through the new
        # shape. Its new grad_fn is current unless none was recorded (no_grad): then it is
        # regenerated from the base on next use.
        self._view_chain = viewed._view_chain
        self._view_version = self._vc[0] if viewed._grad_fn is not None else -1
    elif viewed._grad_fn is None and (self._grad_fn or self._grad_acc) is not None:  # no_grad
        reshaped_in_place(self, old.shape, old.dtype)
    if viewed._grad_fn is not None:
        self._grad_fn = viewed._grad_fn
        self._output_nr = viewed._output_nr  # an unbind/split output was not output 0
        if node is not None:
            name_node(self, node)
    return self


def with_out(fn=None, *, exact=False, resize=None):
    """fn with torch's keyword `out=`: the result (a tensor, or a tuple such as sort's
    (values, indices)) written into the given tensor(s), which are returned (a tuple in the
    result's type). For the functions whose body has no `out` of its own. `exact`: each out
    tensor must have its result's dtype (torch's linalg kernels: NOTE [ linalg out= dtypes ]),
    all checked before anything is written; otherwise results are cast into them. `resize`:
    called as resize(out, *args, **kwargs) once a tuple out= is checked, before anything is
    written: a kernel's own resizing of its outs (kthvalue's)."""
    if fn is None:  # @with_out(exact=True)
        return functools.partial(with_out, exact=exact, resize=resize)

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out.__class__ in (tuple, list):  # torch's parser reads out='s elements first
            check_out_elements(out, lambda: _out_position(fn, kwargs))
        result = fn(*args, **kwargs)
        if out is None:
            return result
        if isinstance(result, Tensor):
            if exact:
                return write_out_exact(out, result)
            return write_out(out, result, fn.__name__.lstrip("_"))
        check_out_tuple(
            out, len(result), fn.__name__.lstrip("_"), lambda: _out_position(fn, kwargs)
        )
        if exact:
            for o, r in zip(out, result, strict=True):
                if isinstance(o, Tensor) and o.dtype is not r.dtype:
                    raise _dtype.out_dtype_error(r.dtype, o.dtype)
        if resize is not None:
            resize(out, *args, **kwargs)
        for o, r in zip(out, result, strict=True):
            write_out(o, r)
        if isinstance(result, return_types._StructSeq):  # torch.return_types.max_out & co
            return return_types.out_type(type(result))(tuple(out))
        return type(result)(tuple(out))

    sig = inspect.signature(fn)
    out_param = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    wrapper.__signature__ = sig.replace(parameters=[*sig.parameters.values(), out_param])
    return wrapper


def write_out_exact(
    out: Tensor, result: Tensor, op: str | None = None, *, graph_op: str | None = None
) -> Tensor:
    """write_out for the kernels torch runs in the input's dtype that refuse an out of another
    (tril, gather, index_select, ...) rather than cast into it. Their messages come in two
    forms: the structured kernels' (no `op`) and the older "op(): self and result ...".
    graph_op: write_out's `op`."""
    if isinstance(out, Tensor) and out.dtype is not result.dtype:
        if op is not None:
            raise RuntimeError(f"{op}(): self and result must have the same scalar type")
        raise _dtype.out_dtype_error(result.dtype, out.dtype)
    return write_out(out, result, graph_op)


def write_out(out: Tensor, result: Tensor, op: str | None = None) -> Tensor:
    """torch's `out=` contract: resized to the result's shape, cast to out's dtype. `op`: the
    name torch's refusal to record a graph gives (by default read from result's node)."""
    if not isinstance(out, Tensor):
        raise out_type_error(out, op)
    if out._vc.__class__ is not list:
        check_inference_write(out)
    if state.enabled and (result._requires_grad or out._requires_grad):
        raise _out_autograd_error(result, op)
    if out._device is not result._device:
        raise RuntimeError(
            f"Expected out tensor to have device {result._device}, but got {out._device} instead"
        )
    if not _dtype.can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {_short(result.dtype)} can't be cast to the desired output type "
            f"{_short(out.dtype)}"
        )
    shape = result._data.shape
    if out._data.shape != shape:
        warn_resized(out, shape)
        if out._base is None:
            # torch keeps the storage where it is large enough, so tensors sharing it (a
            # detach() or .data alias, views of out) see the write; else out gets new memory
            if not restride_(out, shape):
                out._data = result._data.astype(out._data.dtype)
                out._vc[0] += 1
                return out
        # torch resizes a view in place, over the memory it shares: exp(x, out=x[::2]) writes x
        elif not restride_(out, shape, grow=False):
            raise RuntimeError(
                f"out=: cannot resize the view given as out (shape {list(out._data.shape)}) to "
                f"{list(shape)}: the memory it shares with its base ends before that; minitorch "
                "cannot grow shared memory"
            )
        _take_order(out, result._data)
    _check_overlap(out)
    writable(out)[...] = result._data
    out._vc[0] += 1
    return out


def _take_order(out: Tensor, x) -> None:
    """out, just resized row-major over its memory, re-viewed in the axis order of x, the
    result written into it: torch lays out an out= it resizes as the result would have been
    (exp(x.t(), out=empty(0)) is transposed, add(x_channels_last, 1, out=empty(0)) channels-last).
    A row-major or self-overlapping result leaves out row-major."""
    if x.flags.c_contiguous or not x.size or _memory_format._overlapping(x):
        return
    order = sorted(range(x.ndim), key=lambda a: -abs(x.strides[a]))  # slowest first
    back = [0] * x.ndim
    for i, a in enumerate(order):
        back[a] = i
    out._data = out._data.reshape([x.shape[a] for a in order]).transpose(back)


def copy_out(out: Tensor, value: Tensor, op: str) -> Tensor:
    """out= of torch's composite kernels that end in resize_output and copy_: out is resized to
    value's shape (with the resize warning) and copy_'d from value, so it joins value's graph
    where that requires grad (grad_fn CopyBackwards) instead of write_out's refusal; `op` names
    the function in the out type error."""
    if not isinstance(out, Tensor):
        raise out_type_error(out, op)
    if out.shape != value.shape:
        warn_resized(out, value._data.shape)
        out.resize_(value.shape)
    return out.copy_(value)


def _out_position(fn, kwargs) -> int:
    """out='s argument number in torch's schema of fn (for the parser's messages): the count of
    fn's named parameters. sort's and argsort's overload without `stable` has one fewer."""
    params = inspect.signature(fn).parameters.values()
    named = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    names = {p.name for p in named}
    return len(names - {"out"}) - ("stable" in names and "stable" not in kwargs)


def check_out_elements(out, pos) -> None:
    """torch's parser error for a tuple out= holding something other than a tensor; `pos` is
    out's argument number in the op's schema (or a function giving it, called on error only)."""
    for i, o in enumerate(out):
        if not isinstance(o, Tensor):
            pos = pos() if callable(pos) else pos
            raise TypeError(
                f"expected Tensor as element {i} in argument {pos}, but got {type_name(o)}"
            )


def check_out_tuple(out, n: int, op: str, pos: int) -> None:
    """torch's argument-parser checks of a tuple out= of n tensors (sort, topk, cummax, median,
    aminmax, frexp, ...): a tuple or list, of tensors, of n of them. `pos` is out's argument
    number in the op's schema, which torch's message names."""
    if not isinstance(out, (tuple, list)):
        raise out_type_error(out, op, "tuple of Tensors")
    check_out_elements(out, pos)
    if len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out)}")


def out_type_error(out, op: str | None = None, kind: str = "Tensor") -> TypeError:
    """torch's parser error for an `out=` that is not a `kind` ("Tensor" or "tuple of Tensors"),
    naming `op`, by default the function the user called. For error paths only."""
    if op is None:
        from minitorch._call_site import called_name

        op = called_name()
    head = "" if op is None else f"{op.lstrip('_')}(): "
    return TypeError(f"{head}argument 'out' must be {kind}, not {type_name(out)}")


def warn_resized(out: Tensor, shape, had=None) -> None:
    """torch's deprecation warning for an out= that had elements and is resized to `shape`,
    pointing at the user's line; `had`: the shape the kernel saw, where not out's own (an out
    it unsqueezed first: resize_index_outs)."""
    if out._data.size:
        from minitorch.autograd.anomaly_mode import _user_stacklevel

        had = list(out._data.shape) if had is None else list(had)
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{had}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )


def check_out(out, op: str, *inputs) -> None:
    """torch's checks of an `out=` made before its kernel runs: a Tensor, and no autograd through
    it (while grad mode is on, neither out nor any input may require grad)."""
    if not isinstance(out, Tensor):
        from minitorch._factories import _typename

        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {_typename(out)}")
    refuse_out_autograd(op, out, *inputs)


def refuse_out_autograd(op: str, *tensors) -> None:
    """torch's error for out= while grad mode is on and one of `tensors` (Tensors or None)
    requires grad."""
    if state.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in tensors):
        raise _out_autograd_error(None, op)


def _out_autograd_error(result: Tensor, op: str | None) -> RuntimeError:
    """torch's "op(): functions with out=... arguments don't support automatic differentiation"
    error. Without `op` the name is read from result's node (SinBackward0: sin, ClampMinBackward0:
    clamp_min), which is torch's op name but for composites; no node (only out requires grad):
    the message without the name."""
    if op is None:
        fn = result._grad_fn
        if fn is not None:
            op = _node_op_name(type(fn).__name__)
    text = (
        "functions with out=... arguments don't support automatic differentiation, but one of "
        "the arguments requires grad."
    )
    return RuntimeError(text if not op else f"{op}(): {text}")


# torch's out= kernels of these ops are the private ones the public functions call
_PRIVATE_OUT_KERNELS = frozenset(
    ("linalg_det", "linalg_eigh", "linalg_slogdet", "linalg_solve_ex", "linalg_svd")
)


def _node_op_name(node: str) -> str:
    """The aten op name of a node's class name: SinBackward0 -> sin, ClampMinBackward0 ->
    clamp_min, Log1PBackward0 -> log1p, SpecialI0EBackward0 -> special_i0e, MaxPool2DBackward0
    -> max_pool2d (a capital after a digit starts no new word), LinalgSvdBackward0 ->
    _linalg_svd."""
    name = node.rstrip("0123456789").removesuffix("Backward")
    op = ""
    for i, c in enumerate(name):
        if c.isupper():
            op += c.lower() if i == 0 or name[i - 1].isdigit() else "_" + c.lower()
        else:
            op += c
    return "_" + op if op in _PRIVATE_OUT_KERNELS else op


def restride_(t: Tensor, shape, grow: bool = True) -> bool:
    """t <- the row-major `shape` over its memory from where t starts, as torch's resize_ keeps
    the storage and offset (t's base sees the new layout's writes). Memory too short grows as
    torch's storage does: new memory of offset + numel elements holding the old bytes where they
    were (a transposed tensor grown reads its memory in order), t and its base moved onto it
    (views of the base taken earlier stay on the old memory). grow=False: False instead (t
    unchanged), for out= views, which minitorch refuses to grow."""
    from minitorch._tensor import _storage_root
    from minitorch.storage import _root_array

    x = t._data
    n = math.prod(shape)
    flat = _root_array(t).ravel(order="K")  # a view: the root is contiguous in some order
    backend = t._device.backend
    offset = (backend.data_ptr(x) - backend.data_ptr(flat)) // x.itemsize if flat.size else 0
    if offset + n > flat.size:
        return grow and _grow(t, flat, offset, n, shape)
    if not flat.size:
        return _set_data(t, flat.reshape(shape))
    if n < flat.size and _storage_root(t) is t:
        # a shrunk tensor keeps its whole memory as torch keeps the storage: untyped_storage()
        # still has every byte and a later resize_ back up reads the kept values
        t._storage_root = _make(flat, t._device, False, None)
    if n == 0:  # NumPy's empty slice would start at flat's start: torch keeps the offset
        from minitorch._ops.shape import at_strides

        strides, step = [], 1
        for size in reversed(shape):  # contiguous, a size-0 dim counting as 1 (as torch)
            strides.append(step)
            step *= max(size, 1)
        return _set_data(t, at_strides(backend.xp, flat, offset, shape, strides[::-1]))
    return _set_data(t, flat[offset : offset + n].reshape(shape))


def _grow(t: Tensor, flat, offset: int, n: int, shape) -> bool:
    """restride_ past the end of t's memory (see there)."""
    backend = t._device.backend
    xp = backend.xp
    memory = xp.zeros(offset + n, dtype=flat.dtype)
    memory[: flat.size] = flat
    holder = _make(memory, t._device, False, None)
    start = backend.data_ptr(flat)
    base = t._base
    if base is not None and flat.size:
        b = base._data
        at = backend.data_ptr(b) - start
        if 0 <= at < flat.nbytes and b.itemsize == flat.itemsize:
            base._data = strided_view(xp, memory[at // b.itemsize :], b.shape, b.strides)
            base._storage_root = holder
    t._storage_root = holder
    return _set_data(t, memory[offset : offset + n].reshape(shape))


def _set_data(t: Tensor, data) -> bool:
    t._data = data
    return True


# --- the in-place ops ---


def _ops():
    import minitorch._ops as ops

    return ops


_ONE = 1  # the default alpha (NOTE [ Default alpha ] in pointwise.py)
_CPU_UFUNCS = {
    name: getattr(_CPU.backend.xp, name) for name in ("add", "subtract", "multiply", "true_divide")
}  # _fast_inplace's kernels on the host


def _fast_inplace(self: Tensor, other, ufunc: str, alpha=1) -> bool:
    """self <- ufunc(self, alpha * other) straight into self's memory when no graph is recorded
    and no promotion is involved (the optimizer-update case). False when the general path is
    needed."""
    x = self._data
    if (  # the optimizer's update, p -= lr * p.grad: what the general test below decides for
        # two plain CPU float tensors of one dtype, neither a view, alpha 1
        alpha is _ONE
        and other.__class__ is Tensor
        and self._device is _CPU
        and other._device is _CPU
        and self._base is None
        and other._base is None
        and not (state.enabled and (self._requires_grad or other._requires_grad))
        and self._vc.__class__ is list  # (not an inference tensor)
        and x.dtype is other._data.dtype
        and x.dtype.kind == "f"
        and 0 not in x.strides
    ):
        try:
            _CPU_UFUNCS[ufunc](x, other._data, out=x)
        except (ValueError, TypeError, OverflowError):  # (as below)
            return False
        self._vc[0] += 1
        return True
    if (  # an optimizer's scalings, v.mul_(beta2), denom.add_(eps): what the general test
        # below decides for a plain CPU float32/float64 self and a Python number, alpha 1
        alpha is _ONE
        and (other.__class__ is float or (other.__class__ is int and -(1 << 63) <= other < 1 << 64))
        and self._device is _CPU
        and not (state.enabled and (self._requires_grad or self._base is not None))
        and self._vc.__class__ is list
        and x.dtype.char in "fd"
        and 0 not in x.strides
    ):
        try:
            _CPU_UFUNCS[ufunc](x, other, out=x)
        except (ValueError, TypeError, OverflowError):  # (as below)
            return False
        self._vc[0] += 1
        return True
    if state.enabled and (self._requires_grad or self._base is not None):
        return False  # a graph to record, or a view to check (_check_leaf)
    vc = self._vc
    if vc.__class__ is not list or 0 in x.strides:
        # an inference tensor (the general path's check_inference_write), or maybe expanded
        # (the general path checks)
        return False
    dt = x.dtype
    kind = dt.kind
    floating = kind == "f" or is_floating(dt)  # (no call for NumPy's floats)
    # (a dispatching subclass takes the general path: NOTE [ In-place ops with a Tensor-subclass
    # operand ]; a plain tensor's test costs what isinstance did)
    if other.__class__ is Tensor or (isinstance(other, Tensor) and not other._dispatches):
        o = other._data
        if other._requires_grad and state.enabled:
            return False  # a graph to record
        if other._device is not self._device or o.dtype != dt:
            return False
        if other._base is not None or self._base is not None:
            check_partial_overlap(self, other)
    elif isinstance(other, bool) or not isinstance(other, (int, float)):
        return False  # (a dispatching subclass too, whether or not it requires grad)
    elif dt.itemsize == 2 and floating:
        return False  # how the number is rounded is pointwise's: NOTE [ Half-precision arithmetic ]
    elif floating:
        if other.__class__ is not float and not -(1 << 63) <= other < 1 << 64:
            return False  # the general path's OverflowError: NOTE [ Ints beyond a Scalar ]
        o = other
    elif isinstance(other, int) and kind in "iu":
        o = wrap_int(other, dt)  # u8 += 300 wraps as torch's kernel
    else:
        return False
    if ufunc == "true_divide" and not floating:
        return False
    if alpha is not _ONE:  # NOTE [ Default alpha ]: a bool alpha, 1.0, ... take add's checks
        cls = alpha.__class__
        if cls is not float and cls is not int:
            if cls is bool or cls is complex or not is_number(alpha):
                return False  # a bool, a complex, a tensor, an array...: add's checks
            alpha = number(alpha)  # a NumPy number (a learning rate computed by NumPy)
        if alpha == 1 or (dt.itemsize == 2 and floating):
            return False  # where alpha * other is rounded is pointwise's decision, as above
        if not -(1 << 63) <= alpha < 1 << 64:  # inf, NaN, an int no Scalar holds, a float
            return False  # beyond float32's range: add's checks (pointwise._alpha_in_range)
        if kind == "f":  # one rounding, as torch: NOTE [ Fused multiply-adds ] in _common.py
            return _fast_fma(self, vc, x, o, float(dt.type(alpha if ufunc == "add" else -alpha)))
        if alpha.__class__ is float and not floating:
            return False
        try:
            o = o * alpha
        except OverflowError:  # a negative alpha, a uint8 other: the general path wraps it
            return False
    try:
        getattr(self._device.backend.xp, ufunc)(x, o, out=x)
    except (ValueError, TypeError, OverflowError):
        # not broadcastable into self, an alpha * number out of its range (the general path
        # wraps it), or a bool self NumPy will not add/subtract into (its
        # casting check runs before any write): the general path gives torch's result or error
        return False
    vc[0] += 1
    return True


def _fast_fma(self: Tensor, vc: list, x, o, al: float) -> bool:
    """_fast_inplace's x <- x + al * o for a float32/float64 self (its array x, version counter
    vc) and an array or number o, rounded once (sub's alpha is negated as a number, as torch's:
    alpha=0 stays +0)."""
    xp = self._device.backend.xp
    b = o if isinstance(o, xp.ndarray) else xp.asarray(o, dtype=x.dtype)
    if fma_into(xp, b, al, x):  # NOTE [ axpy through NumPy's BLAS ]
        vc[0] += 1
        return True
    if x.dtype.itemsize == 4 and b.shape == x.shape:
        # fused_multiply_add's float32 computation in two passes: the exact float64 product,
        # then the sum rounded and written into self (2 kernel launches on a device instead of
        # 4: NOTE [ Fewer kernel launches on a device ])
        try:
            xp.add(xp.multiply(b, al, dtype="float64"), x, out=x, casting="same_kind")
        except ValueError:  # a read-only array (an expanded tensor of its own shape): the
            return False  # general path writes through a writable alias
        vc[0] += 1
        return True
    try:
        fused = fused_multiply_add(xp, b, al, x)
    except ValueError:  # shapes that do not broadcast: the general path's error
        return False
    if fused.shape != x.shape:
        return False  # other does not broadcast into self: the general path's error
    try:
        xp.copyto(x, fused, casting="same_kind")
    except ValueError:  # a read-only array, as above
        return False
    vc[0] += 1
    return True


def fast_ternary(self: Tensor, others, kernel) -> bool:
    """self <- kernel(backend, self's array, *others' arrays), computed once and copied into self's
    memory, when no graph is recorded and self and `others` are plain float32/float64 tensors of
    one dtype and device, the result of self's shape (lerp_/addcmul_/addcdiv_ in an optimizer's
    update; NOTE [ Updates through the in-place fast path ] in minitorch/optim/optimizer.py).
    False when the general path is needed (its checks and errors)."""
    vc = self._vc
    if vc.__class__ is not list:
        return False  # an inference tensor: the general path's check (check_inference_write)
    grad = False
    for o in others:
        if o.__class__ is not Tensor:
            return False  # a number, a subclass (NOTE [ In-place ops with a Tensor-subclass
        if o._requires_grad:  # operand ]), ...: the general path
            grad = True
    if state.enabled and (grad or self._requires_grad or self._base is not None):
        return False
    x = self._data
    dt = x.dtype
    if dt.kind != "f" or dt.itemsize == 2 or 0 in x.strides:
        return False
    device = self._device
    view = self._base is not None
    arrays = []
    for o in others:
        a = o._data
        if o._device is not device or a.dtype != dt:
            return False
        if view or o._base is not None:
            check_partial_overlap(self, o)
        arrays.append(a)
    backend = device.backend
    try:
        out = kernel(backend, x, *arrays)
    except ValueError:
        return False  # shapes that do not broadcast: the general path's RuntimeError
    if out is not x:  # (a kernel may round into self itself: NOTE [ Rounded into self ])
        if out.shape != x.shape:
            return False  # broadcasts self: the general path's error
        try:
            backend.xp.copyto(x, out)
        except ValueError:  # a read-only array (a 0-d gradient broadcast from a number): the
            return False  # general path writes through a writable alias
    vc[0] += 1
    return True


def add_(self, other, *, alpha=1):
    if _fast_inplace(self, other, "add", alpha):
        return self
    if alpha is not _ONE:
        from minitorch._ops.pointwise import check_alpha

        check_alpha(alpha, "add_")
    if other.__class__ is not Tensor and dispatching(other):  # (see apply_inplace's NOTE)
        return dispatch_method("add_", (self, other), {} if alpha is _ONE else {"alpha": alpha})
    return apply_inplace(self, lambda s: _ops().add(s, other, alpha=alpha), "add_", (other,))


def sub_(self, other, *, alpha=1):
    if _fast_inplace(self, other, "subtract", alpha):
        return self
    if alpha is not _ONE:
        from minitorch._ops.pointwise import check_alpha

        check_alpha(alpha, "sub_")
    if other.__class__ is not Tensor and dispatching(other):  # (see apply_inplace's NOTE)
        return dispatch_method("sub_", (self, other), {} if alpha is _ONE else {"alpha": alpha})
    return apply_inplace(self, lambda s: _ops().sub(s, other, alpha=alpha), "sub_", (other,))


def mul_(self, other):
    if _fast_inplace(self, other, "multiply"):
        return self
    if other.__class__ is not Tensor and dispatching(other):  # (see apply_inplace's NOTE)
        return dispatch_method("mul_", (self, other), {})
    return apply_inplace(self, lambda s: _ops().mul(s, other), "mul_", (other,))


def div_(self, other, *, rounding_mode=None):
    if rounding_mode is None and _fast_inplace(self, other, "true_divide"):
        return self
    if other.__class__ is not Tensor and dispatching(other):  # (see apply_inplace's NOTE)
        kwargs = {} if rounding_mode is None else {"rounding_mode": rounding_mode}
        return dispatch_method("div_", (self, other), kwargs)
    return apply_inplace(
        self, lambda s: _ops().div(s, other, rounding_mode=rounding_mode), "div_", (other,)
    )


def floor_divide_(self, other=REQUIRED, *extra):
    return apply_inplace(
        self, lambda s: _ops().floor_divide(s, other, *extra), "floor_divide_", (other,)
    )


def remainder_(self, other=REQUIRED, *extra):
    return apply_inplace(
        self, lambda s: _ops().remainder(s, other, *extra), "remainder_", (other,)
    )


def pow_(self, exponent):
    return apply_inplace(self, lambda s: _ops().pow(s, exponent), "pow_", (exponent,))


def clamp_(input, min=None, max=None):
    if fast_clamp_(input, min, max):
        return input
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        _number_bounds_cast(input, (min, max))
    return apply_inplace(input, lambda s: _ops().clamp(s, min, max), "clamp_", (min, max))


def _number_bounds_cast(self, bounds) -> None:
    """clamp_'s first check, as torch's: number bounds that make the result a dtype self cannot
    hold refuse the call before either bound is converted (int16 clamp_(1e39): the cast error,
    not the float overflow)."""
    if any(isinstance(b, Tensor) for b in bounds):
        return  # (tensor bounds: the general path's checks)
    dt = self.dtype
    try:
        for b in bounds:
            if b.__class__ is int and not _dtype.SCALAR_INT_MIN <= b < _dtype.SCALAR_INT_END:
                return  # (its OverflowError comes first: NOTE [ Ints beyond a Scalar ])
        if any(b.__class__ is int and b >= 1 << 63 for b in bounds):
            uint64_bounds(self, *bounds)  # (torch's promotion of a uint64 number first)
        for b in bounds:
            if b is not None:
                dt = _dtype.scalar_dtype(dt, number(b))
    except TypeError:  # a bound of no type clamp takes: its own error
        return
    if dt is not self.dtype and not _dtype.can_cast(dt, self.dtype):
        raise RuntimeError(
            f"result type {_short(dt)} can't be cast to the desired output type "
            f"{_dtype.CPP_NAMES[self.dtype.name]}"
        )


def fast_clamp_(self, lo, hi) -> bool:
    """clamp_ of a float32/float64 tensor with Python number bounds (at least one), in place
    when fast_unary_ allows: clip into the tensor itself, the out-of-place Clamp's kernel (an
    infinite other bound for one; on the CPU NumPy's clip ufunc itself, without np.clip's two
    Python frames, as clamp's no-grad fast path). Bounds beyond float16's range or NaN (checks,
    conversions) go the general way; False then."""
    if lo is None:
        if hi is None:
            return False
        lo = -math.inf
    elif not ((lo.__class__ is float or lo.__class__ is int) and -65504.0 <= lo <= 65504.0):
        return False
    if hi is None:
        hi = math.inf
    elif not ((hi.__class__ is float or hi.__class__ is int) and -65504.0 <= hi <= 65504.0):
        return False
    x = _unary_target(self)
    if x is None:
        return False
    if self._device is _CPU and min(x.strides, default=0) >= 0:  # (see _write_back)
        _CPU.backend.clip_ufunc(x, lo, hi, out=x)
    else:
        xp = self._device.backend.xp
        _write_back(x, lambda a, out=None: xp.clip(a, lo, hi, out=out))
    self._vc[0] += 1
    return True


def fast_unary_(self: Tensor, kernel) -> bool:
    """self <- kernel(xp, x), the kernel writing into self's array x itself, for a float32/float64
    plain tensor that is no view, with no graph to record (no_grad code, optimizer updates): no
    snapshot, no temporary result, no copy back. The kernel must give the out-of-place op's
    values bit for bit. False when the general path (apply_inplace) is needed."""
    # (_unary_target's tests, written out here: one call fewer for exp_, neg_, relu_, ...)
    if self.__class__ is not Tensor or self._base is not None or self._vc.__class__ is not list:
        return False  # (an inference tensor: the general path's check_inference_write)
    if state.enabled and self._requires_grad:
        return False  # a graph to record, or a leaf's error
    x = self._data
    if x.dtype.char not in "fd" or 0 in x.strides or not getattr(x.flags, "writeable", True):
        return False  # maybe expanded (the general path refuses it), or read-only memory
    kernel(self._device.backend.xp, x)
    self._vc[0] += 1
    return True


def _unary_target(self: Tensor):
    """self's array where fast_unary_ may write into it (its tests); None where the general
    path is needed."""
    if self.__class__ is not Tensor or self._base is not None or self._vc.__class__ is not list:
        return None
    if state.enabled and self._requires_grad:
        return None
    x = self._data
    if x.dtype.char not in "fd" or 0 in x.strides or not getattr(x.flags, "writeable", True):
        return None
    return x


def _unary_inplace(name, kernel=None):
    def op(input):
        if kernel is not None and fast_unary_(input, kernel):
            return input
        return apply_inplace(input, getattr(_ops(), name), name + "_")

    op.__name__ = op.__qualname__ = name + "_"
    op.__doc__ = f"In-place {name}. Mirrors torch.Tensor.{name}_."
    return op


def _relu_kernel(xp, x):
    # as Relu.kernel: against a zero of x's dtype; NumPy returns the second operand on a tie;
    # big host float32 arrays by clip (NOTE [ Maximum with a number ] in numpy_backend.py)
    if xp is _CPU.backend.xp:
        maximum_number(zero_of(x.dtype), x, x)
    else:
        xp.maximum(zero_of(x.dtype), x, out=x)


def _write_back(x, compute):
    """x <- compute(x) (called as compute(a) or compute(a, out=a)) with the out-of-place op's
    bits: into x itself, except for an array with a negative stride (a flip's result), where
    NumPy's in-place loop differs (float64 exp and log: 1 ulp apart): computed apart and copied
    back."""
    if min(x.strides, default=0) < 0:
        x[...] = compute(x)
    else:
        compute(x, out=x)


def _ufunc_kernel(name):
    """x <- xp.<name>(x) in place, as the out-of-place op's bits (see _write_back)."""

    def kernel(xp, x):
        _write_back(x, getattr(xp, name))

    return kernel


neg_ = _unary_inplace("neg", lambda xp, x: xp.negative(x, out=x))
exp_ = _unary_inplace("exp", _ufunc_kernel("exp"))
log_ = _unary_inplace("log", _ufunc_kernel("log"))
sqrt_ = _unary_inplace("sqrt", _ufunc_kernel("sqrt"))
abs_ = _unary_inplace("abs", _ufunc_kernel("abs"))
tanh_ = _unary_inplace("tanh", _ufunc_kernel("tanh"))
sigmoid_ = _unary_inplace("sigmoid")
relu_ = _unary_inplace("relu", _relu_kernel)


class Fill(Function):
    """out = value everywhere;  grad_a = 0,  grad_value = sum(grad) (for a 0-d tensor value)"""

    @staticmethod
    def forward(ctx, a, value):
        v = value._data if isinstance(value, Tensor) else fill_number(value, a._data.dtype)
        return ctx.xp.full(a._data.shape, v, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, grad):
        return (
            zeros_of(grad) if ctx.needs_input_grad[0] else None,  # +0 as torch (grad * 0: -0)
            grad.sum() if ctx.needs_input_grad[1] else None,
        )


def fill_(input, value):
    """Fills with a number or a 0-d tensor. Mirrors torch.Tensor.fill_."""
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
            "dimensions."
        )
    if not isinstance(input, Tensor):  # torch.fill_(None, 1)
        raise not_tensor("fill_", input)
    # torch's nodes: FillBackward2 (a number: input alone), FillBackward3 (input and the tensor)
    if isinstance(value, Tensor):
        if value.__class__ is not Tensor and dispatching(value):  # NOTE [ In-place ops with a
            return dispatch_method("fill_", (input, value), {})  # Tensor-subclass operand ]
        return _fill(input, value, "FillBackward3", None)
    try:
        return _fill(input, value, "FillBackward2", (0,))
    except TypeError as e:  # a value of no type it takes (NOTE [ Overloaded reductions ])
        from minitorch._ops._parser_errors import argument_error

        raise argument_error(e, "fill_", (("input", input), ("value", value))) from None


def _fill_value(value, data):
    """The number fill_ writes into the array data, checked as torch's fill_ checks it: a
    one-element half, bfloat16 or float8 tensor takes a value beyond its range as inf (torch's
    fill of one element skips the overflow check: zeros((), dtype=torch.half).fill_(7e4) is inf,
    zeros(2, ...) raises), as factories.full does."""
    try:
        return fill_number(value, data.dtype)
    except RuntimeError:
        dt = data.dtype
        if data.size != 1 or dt.itemsize > 2 or dt.kind in "biu" or not is_number(value):
            raise
    with _dtype.quiet_casts():
        return data.dtype.type(via_float32(float(value), data.dtype))


def _fill(self, value, node: str, shown):
    """fill_ / zero_, recording a node named `node` listing the edges `shown`."""
    if not state.enabled or not (self._requires_grad or getattr(value, "_requires_grad", False)):
        # one number: repeated elements are fine (torch's fill_ of a tensor refuses them)
        _check_leaf(self, "fill_", overlap_ok=not isinstance(value, Tensor))
        data = writable(self)
        if not isinstance(value, Tensor):
            data.fill(_fill_value(value, data))
        elif value._device is self._device:  # an array assignment: no read back to the host
            data[...] = via_float32(value._data, data.dtype)
        else:  # a CPU scalar into a device tensor (as torch allows): the host has the number
            data.fill(value._device.backend.to_host(value._data).item())
        self._vc[0] += 1
        return self
    # (no overlap check of the value: torch reads it as a number first, so x.fill_(x[0]) works)
    _check_leaf(self, "fill_", overlap_ok=not isinstance(value, Tensor))
    return apply_inplace(
        self,
        lambda s: name_node(Fill.apply(s, value), node, shown=shown),
        "fill_",
        (value,),
        checked=True,
    )


def zero_(input):
    """Fills with zeros. Mirrors torch.Tensor.zero_."""
    try:
        if input._vc.__class__ is list and not (
            state.enabled and (input._requires_grad or input._base is not None)
        ):
            # nothing to record or refuse (_check_leaf's checks with overlap_ok): 0 as every
            # dtype's zero, as fill_number gives it, but in float8 (e8m0fnu has no zero)
            x = input._data
            if x.dtype.kind in "fiucb":
                try:
                    x.fill(0)
                except ValueError:  # read-only memory (an expanded view): writable() below
                    pass
                else:
                    input._vc[0] += 1
                    return input
        return _fill(input, 0, "ZeroBackward0", (0,))
    except AttributeError:  # torch.zero_(None): zero-cost when a tensor
        check_tensors("zero_", ("input", input))
        raise


class CopyFrom(Function):
    """out = src broadcast to a's shape and dtype;  grad_a = 0,  grad_src = grad"""

    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, a, src):
        dt = a._data.dtype
        y = via_float32(src._data, dt)
        if y.shape != a._data.shape:
            y = ctx.xp.broadcast_to(y, a._data.shape)
        return y.astype(dt)  # (a copy: the result is written into a, never an alias of src)

    @staticmethod
    def backward(ctx, grad):
        return (
            zeros_of(grad) if ctx.needs_input_grad[0] else None,  # +0 as torch (grad * 0: -0)
            grad if ctx.needs_input_grad[1] else None,
        )


# NOTE [ Partial overlap ]
# torch refuses an in-place write whose input shares part of the written memory (x[1:] = x[:-1],
# x.add_(x.t()), x.index_copy_(0, i, x[2:4])): the result would depend on the kernel's order.
# It decides cheaply and only for dense layouts: same tensor or same memory range with the same
# strides is fine (x.add_(x)); two dense tensors over one storage whose byte ranges meet
# otherwise overlap; anything non-dense (x[::2] against x[1::2], an expanded operand) is "too
# hard" and allowed. Two roots that own their memory never share it, so the common case
# (p.add_(g), neither a view) stops at two attribute reads; a detached alias (p.detach(), a
# state_dict's value) is a root over another's memory and is compared by address.


def _dense(a) -> bool:
    """Whether the array's elements fill a block of memory without gaps or repeats."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    expected = a.itemsize
    for stride, size in sorted(
        (st, sz) for st, sz in zip(a.strides, a.shape, strict=True) if sz != 1
    ):
        if stride != expected:
            return False
        expected *= size
    return True


def same_order(a, b) -> bool:
    """Whether arrays a and b of one shape step through memory alike (the strides of size-1
    dims aside, which NumPy sets freely and no element reads)."""
    if a.shape != b.shape:
        return False
    return a.strides == b.strides or all(
        p == q for n, p, q in zip(a.shape, a.strides, b.strides, strict=True) if n != 1
    )


def check_partial_overlap(dst: Tensor, src, dst_data=None, *, same_ok: bool = True):
    """torch's RuntimeError when src (an operand of an in-place write into dst, or into the part
    `dst_data` of dst's memory) partly overlaps it. See NOTE [ Partial overlap ]. same_ok=False:
    the kernels that read source while they write (index_add_, index_copy_, put_) refuse the
    same memory too (x.index_add_(0, i, x)), as torch's."""
    if not isinstance(src, Tensor):
        return
    if src is dst:
        if same_ok:
            return
    else:
        rs = src._base if src._base is not None else src
        rd = dst._base if dst._base is not None else dst
        if rs is not rd and rs._data is not rd._data and rs._data.base is None is rd._data.base:
            return  # two roots that own their memory (a detached alias shares its root's)
    a = dst._data if dst_data is None else dst_data
    b = src._data
    if not (a.size and b.size and _dense(a) and _dense(b)):
        return
    ptr = dst._device.backend.data_ptr
    a0, b0 = ptr(a), ptr(b)
    a1, b1 = a0 + a.nbytes, b0 + b.nbytes
    if (a0, a1) == (b0, b1):
        # (one element: torch's strides compare by rank: x.copy_(x[0]) of a 1-element x raises)
        if same_ok and (same_order(a, b) or (a.size == 1 and a.ndim == b.ndim)):
            return  # the same memory in the same order: an in-place op on itself
    elif not (a0 < b1 and b0 < a1):
        return
    raise RuntimeError(OVERLAP_MESSAGE)


def check_out_overlap(out, *inputs) -> None:
    """torch's refusal of an out= sharing memory with an input of the kernels that read their
    inputs while they write (cross, outer, kron): out=x raises OVERLAP_MESSAGE where a pointwise
    op would run in place. Dense layouts only, as torch's check gives up on interleaved ones."""
    if not isinstance(out, Tensor) or not out._data.size or not _dense(out._data):
        return
    ptr = out._device.backend.data_ptr
    o0 = ptr(out._data)
    o1 = o0 + out._data.nbytes
    for t in inputs:
        if isinstance(t, Tensor) and t._device is out._device and t._data.size:
            b = t._data
            if _dense(b) and ptr(b) < o1 and o0 < ptr(b) + b.nbytes:
                raise RuntimeError(OVERLAP_MESSAGE)


OVERLAP_MESSAGE = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


_check_partial_overlap = check_partial_overlap


# NOTE [ A plain copy ]
# copy_ between two tensors that are no views, of one shape, dtype and device, with nothing to
# record (a state dict loaded, an EMA copied, a buffer reset) passes every check of the general
# path: a root not requiring grad meets none of the autograd refusals, a root without zero
# strides no overlap refusal, two roots skip the partial-overlap test (NOTE [ Partial overlap ]),
# and NumPy writes a source sharing the destination's memory as a copy would (the general path
# skips that write: the same values). So it writes at once (x.copy_(y) on (32, 32): 4.2 ->
# 1.3 us). Read-only memory (NumPy refuses the write before any element) and float8 (whose
# copy goes through via_float32's float32 round trip) go the general way.


def copy_(self, src, non_blocking=False):
    """Copies src (broadcast, cast, from any device) into self. Mirrors torch.Tensor.copy_."""
    if src.__class__ is Tensor:  # NOTE [ A plain copy ]
        x, y = self._data, src._data
        if (
            self._base is None
            and src._base is None
            and self._vc.__class__ is list
            and src._device is self._device
            and y.shape == x.shape
            and y.dtype == x.dtype
            and not (state.enabled and (self._requires_grad or src._requires_grad))
            and 0 not in x.strides
            and (x.dtype.kind in "fiucb" or x.dtype.itemsize != 1)  # (float8: via_float32)
        ):
            try:
                x[...] = y
            except ValueError:  # read-only memory: the general path's writable() writes it
                pass
            else:
                self._vc[0] += 1
                return self
    elif not isinstance(src, Tensor):
        try:
            src = scalar_like(src, self)
        except TypeError:  # no number either: torch's parser names a Tensor
            raise wrong_type("copy_", src, "other", 2, "Tensor") from None
    elif dispatching(src):  # NOTE [ In-place ops with a Tensor-subclass operand ]
        kwargs = {"non_blocking": non_blocking} if non_blocking else {}
        return dispatch_method("copy_", (self, src), kwargs)
    # torch's order: the autograd checks, then (a copy from the very same view of the same
    # memory returning at once, expanded or not) the memory overlap of self and of self with
    # src, then the shapes
    x, y = self._data, src._data
    same = src is self or (
        x.size
        and src._device is self._device
        and x.dtype == y.dtype
        and same_order(x, y)
        and self.data_ptr() == src.data_ptr()
    )
    _check_leaf(self, "copy_", overlap_ok=same)
    if same and not (state.enabled and (self._requires_grad or src._requires_grad)):
        self._vc[0] += 1
        return self
    if src._device is not self._device:
        src = src.to(self._device, non_blocking=non_blocking)
    _check_partial_overlap(self, src)
    if src._data.shape != x.shape:
        try:
            shape = src._device.backend.xp.broadcast_shapes(src._data.shape, x.shape)
        except ValueError as err:  # torch names the first mismatched pair from the right
            _raise_broadcast_error(None, (self, src), err)
        if shape != x.shape:  # src broadcasts but would grow self
            raise RuntimeError(
                f"output with shape {list(x.shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
    if not state.enabled or not (self._requires_grad or src._requires_grad):
        writable(self)[...] = via_float32(src._data, x.dtype)
        self._vc[0] += 1
        return self
    # (self's checks above are apply_inplace's, but for the overlap of a copy from self itself)
    compute = lambda s: CopyFrom.apply(s, src)  # noqa: E731
    return apply_inplace(self, compute, "copy_", (src,), checked=True)
