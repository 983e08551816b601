"""Several tensors: split, chunk, unbind (views); cat, stack and kin; grids; broadcasting."""

from __future__ import annotations

from collections.abc import Sequence
from operator import index as _int

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch import _memory_format as _mf
from minitorch._arg_errors import REQUIRED, arity_error, too_many_positional
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    broadcast_pair,
    cast,
    check_int,
    check_tensor_list,
    index,
    int_list,
    is_floating,
    is_index,
    not_tensor,
    not_tensor_element,
    row_major,
    type_name,
    wrong_type,
)
from minitorch._ops._common import wrap_dim as _wrap_dim
from minitorch._ops.shape import (
    Narrow,
    Squeeze,
    _short,
    empty_view,
    expand,
    keep_given,
    narrow,
    reshape,
    unsqueeze,
)
from minitorch._subclass import any_dispatching, run_converted
from minitorch._tensor import Size, Tensor
from minitorch.autograd.function import (
    _MULTI_OUTPUT_VIEW,
    Function,
    fast_path,
    plain_result,
    saved_dim,
    saved_uint64,
)
from minitorch.autograd.grad_mode import state

_CPU_XP = _CPU.backend.xp  # the no-grad fast paths' kernels (NOTE [ The no-grad fast path ])

__all__ = [
    "split",
    "split_with_sizes",
    "chunk",
    "unbind",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
    "row_stack",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "meshgrid",
    "cartesian_prod",
    "broadcast_shapes",
    "broadcast_tensors",
]


# --- split / chunk / unbind: one op, several views ---

# NOTE [ Multi-output views ]
# split, chunk and unbind return several views of their input from one node (SplitBackward0...),
# as torch does. The core records each output's view as (cls, kwargs), but replaying a multi-output
# op gives a tuple, not the one view: so each output's last record is replaced by single-output
# views (narrow, then squeeze for unbind) that select the same region (a deepcopy or a no_grad
# replay of the view uses them). Taken with grad mode on, the outputs are marked as torch marks
# them: an in-place change of one (or of a view of it), or a use of one after its base changed
# in place, is refused as torch refuses it ("Output 0 of Split is a view and is being modified
# inplace. This view is the output of a function that returns multiple views..."; the mark is
# the one a custom Function's outputs carry: NOTE [ Views made by custom Functions ]). Under
# no_grad or inference mode they are plain no_grad views.


def _as_single_views(outs, dim, starts, lengths, squeeze=False):
    mark = ()
    # (the outputs share one dtype: one test says whether they are differentiable, bfloat16 too)
    if outs and state.enabled and is_floating(outs[0]._data.dtype):
        mark = (_MULTI_OUTPUT_VIEW,)
    for t, start, length in zip(outs, starts, lengths, strict=True):
        if t._base is None:
            continue
        entries = ((Narrow, (), {"dim": dim, "start": start, "length": length}),)
        if squeeze:
            entries += ((Squeeze, (), {"dims": (dim,)}),)
        t._view_chain = t._view_chain[:-1] + entries + mark
    return outs


class Split(Function):
    """outs = consecutive pieces of a along dim (views);  grad_a = cat(grads, dim)"""

    _is_view = True

    @staticmethod
    def forward(ctx, a, *, dim, sizes):
        x = a._data
        ctx.dim = dim
        outs = []
        start = 0
        head = (slice(None),) * dim
        if x.size and 0 not in sizes:
            for s in sizes:
                outs.append(x[head + (slice(start, start + s),)])
                start += s
            return tuple(outs)
        for s in sizes:
            key = head + (slice(start, start + s),)
            out = x[key]
            # torch's offset and strides for an empty piece: NOTE [ Empty views ]
            outs.append(out if out.size else empty_view(ctx.xp, a, key))
            start += s
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(*grads, dim=ctx.dim)

    @staticmethod
    def _backward_data(ctx, *grads):
        return ctx.xp.concatenate(grads, axis=ctx.dim)


Split._saved_attrs = {  # grad_fn._saved_<name> (as torch's)
    "dim": saved_dim,
    "self_sym_sizes": lambda node: tuple(node._in_meta[0][0]),
    "split_size": lambda node: node.split_size,
}


class SplitWithSizes(Split):
    """outs = pieces of a of the given sizes along dim (views);  grad_a = cat(grads, dim)"""

    _saved_attrs = {
        "dim": saved_dim,
        "self_sym_sizes": Split._saved_attrs["self_sym_sizes"],
        "split_sizes": lambda node: node.split_size,
    }


def _split(input, dim, sizes, cls, given=None, split_size=None):
    """The views of cls (Split, SplitWithSizes) of input; `given`: the dim as the call gave it
    and `split_size` the size or sizes, for the node's grad_fn._saved_<name>."""
    outs = cls.apply(input, dim=dim, sizes=tuple(sizes))
    fn = outs[0]._grad_fn if outs else None
    if fn is not None:
        fn.split_size = tuple(sizes) if split_size is None else split_size
        if given is not None:  # (an int-like dim as the int it stands for, as torch saves it)
            fn.saved_dim = given if given.__class__ is int else index(given, "split", "dim")
    starts, at = [], 0
    for s in sizes:  # (no sizes: an empty dim split into nothing)
        starts.append(at)
        at += s
    return _as_single_views(outs, dim, starts, sizes)


def _needs_dims(input, op):
    try:
        ndim = input._data.ndim
    except AttributeError:  # an ndarray where a tensor belongs: zero-cost when a tensor
        if op == "split":  # torch.split is Python code calling input.split
            raise AttributeError(f"'{type_name(input)}' object has no attribute 'split'") from None
        raise not_tensor(op, input) from None
    if ndim == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of `split_size` (the last may be smaller) or of the listed sizes, as views.
    Mirrors torch.split."""
    try:
        _needs_dims(tensor, "split")
        d = _wrap_dim(dim, tensor._data.ndim)
    except AttributeError:  # torch.split is Python code calling tensor.split: a str's own
        if hasattr(tensor, "split"):
            return tensor.split(split_size_or_sections, dim)
        raise
    except TypeError:  # a dim of no int type: torch's Python split passes it on positionally,
        # to split for an int size, else to split_with_sizes
        from minitorch._ops._parser_errors import invalid_arguments

        op, forms = "split", ("Tensor input, int split_size, int dim = 0",
                              "Tensor input, tuple of ints split_size, int dim = 0")  # fmt: skip
        if not isinstance(split_size_or_sections, int):
            op = "split_with_sizes"
            forms = ("Tensor input, tuple of ints split_sizes, int dim = 0",)
        raise invalid_arguments(op, forms, (tensor, split_size_or_sections, dim), {}) from None
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = split_size_or_sections
        if any(s.__class__ is not int for s in sizes):  # a float size raises, never truncates
            sizes = int_list(sizes, "split_with_sizes", "split_sizes")
        sizes = list(sizes)
        if any(s < 0 for s in sizes):
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={sizes}"
            )
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                f"at dimension {dim}), but got split_sizes={sizes}"
            )
        return _split(tensor, d, sizes, SplitWithSizes, dim)
    if isinstance(split_size_or_sections, Tensor) and split_size_or_sections.numel() != 1:
        # (MoE code passing its counts tensor: torch wants a list, counts.tolist())
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
            "Tensor"
        )
    size = split_size_or_sections
    if size.__class__ is not int:
        if isinstance(size, Tensor):  # torch's Tensor.split reads a one-element tensor's value
            size = int(size)
        elif not isinstance(size, int):  # x.split(n / 2), a NumPy integer: torch's Python split
            # passes what is no int (nor tensor) to split_with_sizes, which refuses it
            raise TypeError(
                "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, "
                f"not {type_name(size)}"
            )
        else:
            size = size.__index__()
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0 and n != 0:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    if n == 0:
        return _split(tensor, d, [0], Split, dim, size)
    sizes = [size] * (n // size) + ([n % size] if n % size else [])
    return _split(tensor, d, sizes, Split, dim, size)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Pieces of the listed sizes, as views. Mirrors torch.split_with_sizes."""
    if split_sizes.__class__ is not list and (  # (a list: the common call, unchecked)
        isinstance(split_sizes, str) or not hasattr(split_sizes, "__iter__")
    ):
        raise wrong_type("split_with_sizes", split_sizes, "split_sizes", 2, "tuple of ints")
    return split(input, list(split_sizes), dim)


def chunk(input: Tensor = REQUIRED, chunks: int = REQUIRED, dim: int = 0, *extra) -> tuple:
    """At most `chunks` pieces of equal size (the last may be smaller), as views.
    Mirrors torch.chunk."""
    if extra or input is REQUIRED or chunks is REQUIRED:
        raise arity_error("chunk", extra, 3, input=input, chunks=chunks)
    _needs_dims(input, "chunk")
    if chunks.__class__ is not int:  # x.chunk(n / 2) is a TypeError: NOTE [ Int-like arguments ]
        chunks = check_int("chunk", chunks, "chunks", 2)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, input._data.ndim, "chunk", "dim", 3)
    n = input._data.shape[d]
    size = (n + chunks - 1) // chunks
    if n == 0:
        return _split(input, d, [0] * chunks, SplitWithSizes, dim)
    # split(input, size, dim), whose checks a positive size passes
    sizes = [size] * (n // size) + ([n % size] if n % size else [])
    return _split(input, d, sizes, Split, dim, size)


class Unbind(Function):
    """outs = the slices a[i] along dim (views);  grad_a = stack(grads, dim)"""

    _is_view = True
    _saved_attrs = {"dim": saved_dim}  # grad_fn._saved_dim (as torch)

    @staticmethod
    def forward(ctx, a, *, dim):
        x = a._data
        ctx.dim = dim
        head = (slice(None),) * dim
        if x.size:
            return tuple(x[head + (i, Ellipsis)] for i in range(x.shape[dim]))
        # torch's offset and strides for each empty slice: NOTE [ Empty views ]
        return tuple(empty_view(ctx.xp, a, head + (i, Ellipsis)) for i in range(x.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(*grads, dim=ctx.dim)


def unbind(input: Tensor = REQUIRED, dim: int = 0, *extra) -> tuple:
    """The slices along dim, as views. Mirrors torch.unbind."""
    if extra:  # (input REQUIRED: not_tensor words torch.unbind())
        raise arity_error("unbind", extra, 2, input=input)
    try:
        ndim = input._data.ndim
    except AttributeError:  # zero-cost when a tensor
        raise not_tensor("unbind", input) from None
    if ndim == 0:
        _wrap_dim(dim, 0, "unbind", "dim", 2)  # torch's range error first (-1 and 0 pass)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, input._data.ndim, "unbind", "dim", 2)
    n = input._data.shape[d]
    outs = Unbind.apply(input, dim=d)
    if d != dim and outs and outs[0]._grad_fn is not None:  # a negative dim: as given
        outs[0]._grad_fn.saved_dim = dim  # (for grad_fn._saved_dim)
    return _as_single_views(outs, d, range(n), [1] * n, squeeze=True)


def split_arg(op, given, sections, indices, tensor_indices_or_sections=None):
    """The one split argument of tensor_split/hsplit/vsplit/dsplit, positional or by one of
    torch's overload keywords (sections=int, indices=ints, tensor_indices_or_sections=Tensor);
    torch's TypeError for none, several, or one of the wrong kind (None is never valid, so it
    stands for "not given")."""
    named = [
        (k, v)
        for k, v in (
            ("sections", sections),
            ("indices", indices),
            ("tensor_indices_or_sections", tensor_indices_or_sections),
        )
        if v is not None
    ]
    if given is not None:
        named.append(("", given))
    if len(named) == 1:
        kw, arg = named[0]
        sequence = isinstance(arg, (list, tuple))
        if (
            kw == ""
            or (kw == "sections" and not sequence and not isinstance(arg, float))
            or (kw == "indices" and sequence)
            or (kw == "tensor_indices_or_sections" and isinstance(arg, Tensor))
        ):
            return arg
    got = ", ".join(
        ["Tensor"]
        + [type(v).__name__ for k, v in named if not k]
        + [f"{k}={type(v).__name__}" for k, v in named if k]
    )
    raise TypeError(f"{op}() received an invalid combination of arguments - got ({got})")


def tensor_split(
    input: Tensor = REQUIRED,
    indices_or_sections=None,
    dim: int = 0,
    *extra,
    sections=None,
    indices=None,
    tensor_indices_or_sections=None,
) -> tuple:
    """Pieces by a number of sections or by split indices, as views. Mirrors torch.tensor_split
    (the split argument positional or by its overload's keyword)."""
    try:
        if extra:  # tensor_split(x, 1, 0, 0): no overload takes four
            raise TypeError("tensor_split(): no overload takes them")  # (below)
        arg = split_arg(
            "tensor_split", indices_or_sections, sections, indices, tensor_indices_or_sections
        )
        input._data  # noqa: B018  (a non-tensor's AttributeError)
        if not (arg.__class__ is int or isinstance(arg, (Tensor, list, tuple)) or is_index(arg)):
            raise TypeError(f"tensor_split(): no overload takes {type_name(arg)}")  # (below)
        if isinstance(arg, (list, tuple)) and arg and not is_index(arg[0]):
            # torch's parser matches a tuple of ints by its first element only ((2, True) is
            # one, (True, 2) is no overload's); a later bad one fails its unpacking below
            raise TypeError("tensor_split(): no overload takes it")  # (below)
        if dim.__class__ is not int:
            index(dim, "tensor_split", "dim")
    except (AttributeError, TypeError):  # no overload takes them: NOTE [ Overloaded reductions ]
        from minitorch._ops._parser_errors import parsed_error, with_extra

        named = [("input", input), ("indices_or_sections", indices_or_sections)]
        named.append(("dim", dim if extra or _dim_given(dim) else None))  # (None: its default)
        named += [("sections", sections), ("indices", indices)]
        named += [("tensor_indices_or_sections", tensor_indices_or_sections)]
        raise parsed_error("tensor_split", with_extra(named, extra)) from None
    if input._data.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if isinstance(arg, Tensor):
        if arg.dtype is not _dtype.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{_short(arg.dtype)}"
            )
        if arg.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {arg.ndim} dims"
            )
        arg = arg.item() if arg.ndim == 0 else arg.tolist()
    elif not isinstance(arg, int) and is_index(arg):  # np.int64: NOTE [ Int-like arguments ]
        arg = index(arg, "tensor_split", "sections")
    if isinstance(arg, int):
        if arg <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {arg}")
        q, r = divmod(n, arg)
        sizes = [q + 1] * r + [q] * (arg - r)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:
        if not all(i.__class__ is int for i in arg):  # np.int64 too; floats are TypeErrors
            arg = int_list(arg, "tensor_split", "indices")
        bounds = [0, *arg, n]
    outs = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        lo = min(max(lo + n if lo < 0 else lo, 0), n)
        hi = min(max(hi + n if hi < 0 else hi, 0), n)
        outs.append(narrow(input, d, lo, max(hi - lo, 0)))
    return tuple(outs)


def _dim_given(dim) -> bool:
    """Whether the user's call of tensor_split gave `dim` (not 0, or 0 by keyword or by
    position), which torch's parser error lists. For error paths only."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._common import _called_as_method

    if not (dim.__class__ is int and dim == 0):
        return True
    call = call_arguments("tensor_split")  # (n positional, keyword names), None if unknown
    if call is None:
        return False
    return "dim" in call[1] or call[0] > (1 if _called_as_method("tensor_split") else 2)


def _split_overload_error(op: str, arg) -> TypeError:
    """torch's TypeError for a split argument matching neither (int sections) nor (tuple of ints
    indices): a sequence is described by its elements' types, as torch's parser does."""
    if isinstance(arg, list):
        bad = "list of [" + ", ".join(type_name(a) for a in arg) + "]"
    elif isinstance(arg, tuple):
        names = [type_name(a) for a in arg]
        bad = "tuple of (" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    else:
        bad = type_name(arg)
    from minitorch._ops._common import _called_as_method

    got = type(arg).__name__ if isinstance(arg, (list, tuple)) else type_name(arg)
    # the method's listing leaves self out: x.hsplit((True, 1)) "got (tuple)"
    self_arg, self_param = ("", "") if _called_as_method(op) else ("Tensor, ", "Tensor input, ")
    lines = [
        f"{op}() received an invalid combination of arguments - got ({self_arg}{got}), but "
        "expected one of:"
    ]
    for form in ("int sections", "tuple of ints indices"):
        lines.append(f" * ({self_param}{form})")
        lines.append(
            "      didn't match because some of the arguments have invalid types: "
            f"({self_arg}!{bad}!)"
        )
    return TypeError("\n".join(lines) + "\n")


def _split_by(input, arg, dim, op, min_dims):
    if isinstance(arg, (list, tuple)):
        # torch's parser reads the first element to pick the overload, then unpacks the rest
        if arg and not is_index(arg[0]):
            raise _split_overload_error(op, arg)
        arg = int_list(arg, op, "indices")
    elif not is_index(arg):
        raise _split_overload_error(op, arg)
    if input._data.ndim < min_dims:
        raise RuntimeError(
            f"torch.{op} requires a tensor with at least {min_dims} dimension, but got a tensor "
            f"with {input._data.ndim} dimensions!"
        )
    if not isinstance(arg, (int, Tensor)) and is_index(arg):  # See NOTE [ Int-like arguments ]
        arg = index(arg, op, "sections")
    if isinstance(arg, int) and (arg == 0 or input._data.shape[dim] % arg):
        raise RuntimeError(
            f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
            f"{input._data.shape[dim]} is not divisible by the split_size {arg}!"
        )
    return tensor_split(input, arg, dim)


def hsplit(input: Tensor, indices_or_sections=None, *, sections=None, indices=None):
    """Mirrors torch.hsplit (the split argument positional, or sections= / indices=)."""
    arg = split_arg("hsplit", indices_or_sections, sections, indices)
    return _split_by(input, arg, 1 if input._data.ndim > 1 else 0, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections=None, *, sections=None, indices=None):
    """Mirrors torch.vsplit (the split argument positional, or sections= / indices=)."""
    arg = split_arg("vsplit", indices_or_sections, sections, indices)
    return _split_by(input, arg, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections=None, *, sections=None, indices=None):
    """Mirrors torch.dsplit (the split argument positional, or sections= / indices=)."""
    arg = split_arg("dsplit", indices_or_sections, sections, indices)
    return _split_by(input, arg, 2, "dsplit", 3)


# --- cat / stack ---


def _is_skipped(x) -> bool:
    # torch's legacy rule: 1-d empty tensors are left out of cat whatever the others' shapes.
    return x.ndim == 1 and x.shape[0] == 0


def given_dim(node) -> int:
    """A _saved_attrs entry: grad_fn._saved_dim of a join's node, the dim as the call gave it
    (`given`, kept by the forward; a negative one read back unsigned, as torch's binding reads
    its int64), or the node's own dim where none was given (a node made by a backward)."""
    given = node.__dict__.get("given")
    return saved_uint64(node.dim if given is None or not is_index(given) else _int(given))


class Cat(Function):
    """out = the inputs joined along dim;  grad_i = the slice of grad that input i filled"""

    _saved_attrs = {"dim": given_dim}  # grad_fn._saved_dim (as torch)

    @staticmethod
    def forward(ctx, *tensors, dim):
        arrays = []
        sizes = []  # each input's size along dim; None: a legacy empty input, left out
        for t in tensors:
            x = t._data
            arrays.append(x)
            shape = x.shape
            sizes.append(None if len(shape) == 1 and shape[0] == 0 else shape[dim])  # _is_skipped
        ctx.dim = dim
        ctx.sizes = sizes = tuple(sizes)
        kept = arrays if None not in sizes else [x for x in arrays if not _is_skipped(x)]
        if not kept:
            return ctx.xp.concatenate(arrays)
        fmt = _mf.suggested_last(arrays[0]) if arrays[0].ndim in (4, 5) else None
        if fmt is not None and all(_mf.suggested_last(x) is fmt for x in arrays):
            # torch keeps a common channels-last (4-d) or channels-last-3d (5-d) layout
            to, back, axis = _mf.last_orders(arrays[0].ndim)
            nhwc = [x.transpose(to) for x in arrays]
            return ctx.xp.concatenate(nhwc, axis=axis[dim]).transpose(back)
        return row_major(ctx.xp, ctx.xp.concatenate(kept, axis=dim))

    @staticmethod
    def backward(ctx, grad):
        grads = []
        start = 0
        for i, size in enumerate(ctx.sizes):
            if not ctx.needs_input_grad[i]:
                grads.append(None)
            elif size is None:
                grads.append(narrow(grad.reshape(-1), 0, 0, 0))
            else:
                grads.append(narrow(grad, ctx.dim, start, size))
            start += size or 0
        return tuple(grads)

    @staticmethod
    def _backward_data(ctx, grad):
        grads = []
        start = 0
        head = (slice(None),) * ctx.dim
        for i, size in enumerate(ctx.sizes):
            if not ctx.needs_input_grad[i]:
                grads.append(None)
            elif size is None:  # a skipped legacy empty input: an empty gradient
                grads.append(grad.reshape(-1)[:0])
            else:
                grads.append(grad[head + (slice(start, start + size),)])
            start += size or 0
        return tuple(grads)


# NOTE [ Joins on the no-grad fast path ]
# cat and stack of a list (or tuple) of plain CPU tensors of one dtype, where nothing is
# recorded (NOTE [ The no-grad fast path ] in minitorch/autograd/function.py), skip the checks
# and Function.apply: _plain_arrays finds their arrays, and the op joins them as Cat.forward and
# Stack.forward do, laid out row-major. NumPy's own checks stand for the full path's shape
# checks: arrays that do not join (a 0-d one, other ranks or sizes, a dim out of range) raise,
# and the full path runs, to torch's error (cat's legacy 1-d empty inputs join as the full path
# joins them: NumPy adds nothing for them). 4-d and 5-d inputs (channels-last layouts, which the
# forwards keep) take the full path, as do promotion, out= and autocast. On two (32, 32)
# float32: torch.cat([x, y]) 4.5 -> 1.65 us (torch 0.95), torch.stack 5.1 -> 2.4 us (1.2).


def _plain_arrays(tensors, dim, extra, out):
    """The arrays of a cat/stack call of a list or tuple of plain CPU tensors of one dtype none
    of which is recorded, an int dim, no out= and nothing else to apply (the fast paths on, no
    autocast); else None (see NOTE [ Joins on the no-grad fast path ])."""
    if (
        out is not None
        or dim.__class__ is not int
        or extra
        or not fast_path[0]
        or _autocast.state.any_enabled
        or tensors.__class__ is not list and tensors.__class__ is not tuple
        or not tensors
    ):
        return None
    first = tensors[0]
    if first.__class__ is not Tensor:
        return None
    dt = first._data.dtype
    record = state.enabled
    arrays = []
    for t in tensors:
        if t.__class__ is not Tensor or t._device is not _CPU or (t._requires_grad and record):
            return None
        x = t._data
        if x.dtype is not dt:
            return None
        arrays.append(x)
    return arrays


def _tensor_list(tensors, op):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise wrong_type(op, tensors, "tensors", 1, "tuple of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise not_tensor_element(i, t)
    return list(tensors)


def _stack_list(tensors, op):
    """_tensor_list for hstack/vstack/dstack/column_stack, which refuse an empty list themselves
    (RuntimeError in torch's words, before cat's own check)."""
    tensors = _tensor_list(tensors, op)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def _promoted(tensors):
    dts = [t._data.dtype for t in tensors]
    first = dts[0]
    if dts.count(first) == len(dts):  # one array dtype (the common case: no cast, no lookups)
        return tensors
    dt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not dt:
            dt = _dtype.promote_types(dt, t.dtype)
    return [cast(t, dt) for t in tensors]


def _out(result, out, op):
    if out is None:
        return result
    if isinstance(out, Tensor) and not _dtype.can_cast(result.dtype, out.dtype):
        # torch's cat/stack check the inputs' dtype against out's first, as a TypeError
        raise TypeError(
            "torch.cat(): input types can't be cast to the desired output type "
            f"{_dtype.scalar_name(out.dtype)}"
        )
    from minitorch._ops.inplace import write_out

    return write_out(out, result, op)  # (named also when only out requires grad)


def cat(tensors=REQUIRED, dim: int = 0, *extra, out=None) -> Tensor:
    """Joins tensors along an existing dim, promoting dtypes. Mirrors torch.cat."""
    arrays = _plain_arrays(tensors, dim, extra, out)  # NOTE [ Joins on the no-grad fast path ]
    if arrays is not None and arrays[0].ndim not in (4, 5):
        try:
            joined = _CPU_XP.concatenate(arrays, axis=dim)
        except Exception:  # (free unless raised) the full path raises torch's error
            pass
        else:
            return plain_result(row_major(_CPU_XP, joined), _CPU)
    if extra:  # (tensors REQUIRED, extra: torch.cat() and cat(x, y) in torch's words)
        raise too_many_positional("cat", 2 + len(extra), 2, 1)
    tensors = _tensor_list(tensors, "cat")
    if _autocast.state.any_enabled:  # torch's promote check (the join's promotion casts)
        _autocast.check_join(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    ref = None
    for i, t in enumerate(tensors):
        shape = t._data.shape
        n = len(shape)
        if n == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if n == 1 and shape[0] == 0:  # _is_skipped
            continue
        if ref is None:
            ref = shape
            try:
                d = _wrap_dim(dim, n, "cat", "dim", 2)
            except IndexError:  # torch refuses a 0-d tensor anywhere in the list first
                _no_zero_dim(tensors, i + 1)
                raise
            continue
        if n != len(ref):
            _no_zero_dim(tensors, i + 1)  # (torch checks every tensor for 0-d first)
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {len(ref)} and {n}"
            )
        if shape[:d] != ref[:d] or shape[d + 1 :] != ref[d + 1 :]:
            _no_zero_dim(tensors, i + 1)
            _cat_size_error(ref, shape, d, i)
    if ref is None:  # all legacy empty (0,) tensors: torch accepts any dim
        d = 0
    if out is not None:
        _check_out_overlap(out, tensors, same_ok=False)
    result = Cat.apply(*_promoted(tensors), dim=d)
    if dim != d:  # a negative dim: kept as given, for grad_fn._saved_dim
        keep_given(result, dim)
    return _out(result, out, "cat")


def _no_zero_dim(tensors, start: int) -> None:
    """cat's error for the first 0-d tensor from position `start` on."""
    for i in range(start, len(tensors)):
        if not tensors[i]._data.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")


def _cat_size_error(ref, shape, d, i):
    """cat's error for tensor i of `shape` that differs from the first kept one's outside d."""
    k = next(k for k in range(len(shape)) if k != d and shape[k] != ref[k])
    raise RuntimeError(
        f"Sizes of tensors must match except in dimension {d}. Expected size {ref[k]} but got "
        f"size {shape[k]} for tensor number {i} in the list."
    )


def _check_out_overlap(out, tensors, same_ok=True):
    """torch's error when an input shares part of out's memory (cat([x[:2], x[:2]], out=x[:4])):
    see NOTE [ Partial overlap ]. same_ok=False (cat): out's own memory as an input is refused
    too, and out given as one of the inputs is, once resized, all of that input (an empty one
    included), unless the result is empty."""
    from minitorch._ops.inplace import OVERLAP_MESSAGE, check_partial_overlap

    if isinstance(out, Tensor):
        for t in tensors:
            if t is out and not same_ok:
                if any(u._data.size for u in tensors):
                    raise RuntimeError(OVERLAP_MESSAGE)
                continue
            check_partial_overlap(out, t, same_ok=same_ok)


def concat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Mirrors torch.concat (cat)."""
    return cat(_tensor_list(tensors, "concat"), dim, out=out)


def concatenate(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Mirrors torch.concatenate (cat)."""
    return cat(_tensor_list(tensors, "concatenate"), dim, out=out)


class Stack(Function):
    """out = the inputs joined along a new dim;  grad_i = grad.select(dim, i)"""

    _saved_attrs = {"dim": given_dim}  # grad_fn._saved_dim (as torch)

    @staticmethod
    def forward(ctx, *tensors, dim):
        ctx.dim = dim
        arrays = [t._data for t in tensors]
        x = arrays[0]
        if x.ndim in (4, 5) and dim < x.ndim and not x.flags.c_contiguous:
            fmt = _mf.suggested_last(x)
            if fmt is not None and all(_mf.suggested_last(y) is fmt for y in arrays[1:]):
                return _stack_last(ctx.xp, arrays, dim)
        return row_major(ctx.xp, _stack_arrays(ctx.xp, arrays, dim))

    @staticmethod
    def backward(ctx, grad):
        return unbind(grad, ctx.dim)

    @staticmethod
    def _backward_data(ctx, grad):
        head = (slice(None),) * ctx.dim
        return tuple(grad[head + (i,)] for i in range(grad.shape[ctx.dim]))


def _stack_arrays(xp, arrays, dim):
    """xp.stack(arrays, axis=dim) for a dim in [0, ndim]: what NumPy's stack does (each array
    given a new axis at dim, then joined along it) without its Python checks of the arrays (half
    its time on two (32, 32)); arrays of different shapes do not join either way."""
    head = (slice(None),) * dim + (None,)
    return xp.concatenate([x[head] for x in arrays], axis=dim)


def _stack_last(xp, arrays, dim):
    """The channels-last (or -3d) arrays stacked along a new dim before their dim `dim`, laid out
    as torch's stack lays them: each input's memory order kept, the new dim just outside the
    input dim it is put before (stack([x_cl, x_cl], 1) runs N, H, W, new, C in memory)."""
    to = _mf.last_orders(arrays[0].ndim)[0]
    order = []  # the result's dims, slowest in memory first
    for a in to:
        if a == dim:
            order.append(dim)
        order.append(a + (a >= dim))
    shape = list(arrays[0].shape)
    shape.insert(dim, len(arrays))
    back = [0] * len(order)
    for i, a in enumerate(order):
        back[a] = i
    out = xp.empty([shape[a] for a in order], dtype=arrays[0].dtype).transpose(back)
    head = (slice(None),) * dim
    for i, x in enumerate(arrays):
        out[head + (i,)] = x
    return out


def stack(tensors=REQUIRED, dim: int = 0, *extra, out=None) -> Tensor:
    """Joins same-shaped tensors along a new dim. Mirrors torch.stack."""
    arrays = _plain_arrays(tensors, dim, extra, out)  # NOTE [ Joins on the no-grad fast path ]
    if arrays is not None:
        n = arrays[0].ndim + 1
        if -n <= dim < n and (n - 1 not in (4, 5) or arrays[0].flags.c_contiguous):
            try:
                d = dim + n if dim < 0 else dim
                if d == 0:
                    # one C call that checks the shapes and copies each array into its row,
                    # in place of a new axis on each and concatenate (stack of 32 (16,): 152k
                    # -> 96k instructions a call); other shapes raise ValueError, as there
                    stacked = _CPU_XP.array(arrays, dtype=arrays[0].dtype)
                else:
                    stacked = _stack_arrays(_CPU_XP, arrays, d)
                return plain_result(row_major(_CPU_XP, stacked), _CPU)
            except Exception:  # (free unless raised) the full path raises torch's error
                pass
    if extra:  # (as cat's)
        raise too_many_positional("stack", 2 + len(extra), 2, 1)
    tensors = _tensor_list(tensors, "stack")
    if _autocast.state.any_enabled:  # torch's promote check (the join's promotion casts)
        _autocast.check_join(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._data.shape
    d = _wrap_dim(dim, len(shape) + 1, "stack", "dim", 2)  # (torch wraps before the sizes)
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                f"{list(t._data.shape)} at entry {i}"
            )
    if out is None:
        result = Stack.apply(*_promoted(tensors), dim=d)
        if dim != d:  # a negative dim: kept as given, for grad_fn._saved_dim
            keep_given(result, dim)
        return result
    _check_out_overlap(out, tensors)
    result = Stack.apply(*_promoted(tensors), dim=d)
    if dim != d:
        keep_given(result, dim)
    if not result._data.flags.c_contiguous:  # torch's stack out= is row-major when resized
        result = result.contiguous()
    return _out(result, out, "stack")


_ATLEAST_FORMS = ("Tensor input", "tuple of Tensors tensors")


def _atleast(tensors, n, op):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        out = _atleast(tuple(tensors[0]), n, op)  # a sequence in gives a tuple out, as torch
        return out if isinstance(out, tuple) else (out,)
    outs = []
    for i, x in enumerate(tensors):
        try:
            k = x._data.ndim
        except AttributeError:  # a non-tensor: torch's argument parser's errors
            if len(tensors) == 1:
                from minitorch._ops._parser_errors import invalid_arguments

                raise invalid_arguments(op, _ATLEAST_FORMS, (x,), {}) from None
            raise not_tensor_element(i, x) from None
        if k >= n:
            outs.append(x)
        elif k == 0:
            outs.append(reshape(x, (1,) * n))
        elif n == 2 or k == 2:  # (m,) -> (1, m) ; (a, b) -> (a, b, 1)
            outs.append(unsqueeze(x, 0 if k == 1 else -1))
        else:  # (m,) -> (1, m, 1)
            outs.append(unsqueeze(unsqueeze(x, 0), -1))
    return outs[0] if len(outs) == 1 else tuple(outs)


def atleast_1d(*tensors):
    """Mirrors torch.atleast_1d."""
    if any_dispatching(tensors):  # NOTE [ Tensor subclasses ]
        return run_converted(atleast_1d, tensors)
    return _atleast(tensors, 1, "atleast_1d")


def atleast_2d(*tensors):
    """Mirrors torch.atleast_2d."""
    if any_dispatching(tensors):  # NOTE [ Tensor subclasses ]
        return run_converted(atleast_2d, tensors)
    return _atleast(tensors, 2, "atleast_2d")


def atleast_3d(*tensors):
    """Mirrors torch.atleast_3d."""
    if any_dispatching(tensors):  # NOTE [ Tensor subclasses ]
        return run_converted(atleast_3d, tensors)
    return _atleast(tensors, 3, "atleast_3d")


def _as_tuple(x):
    out = _atleast((x,), 1, "")
    return out if isinstance(out, tuple) else (out,)


def hstack(tensors=REQUIRED, *extra, out=None) -> Tensor:
    """Joins along dim 1 (dim 0 for 1-d tensors). Mirrors torch.hstack."""
    if extra:  # (as cat's)
        raise too_many_positional("hstack", 1 + len(extra), 1)
    tensors = [_as_tuple(t)[0] for t in _stack_list(tensors, "hstack")]
    if tensors and tensors[0]._data.ndim == 1:
        return cat(tensors, 0, out=out)
    return cat(tensors, 1, out=out)


def vstack(tensors=REQUIRED, *extra, out=None) -> Tensor:
    """Joins along dim 0 after atleast_2d. Mirrors torch.vstack."""
    if extra:  # (as cat's)
        raise too_many_positional("vstack", 1 + len(extra), 1)
    tensors = _stack_list(tensors, "vstack")
    return cat([atleast_2d(t) for t in tensors], 0, out=out)


def row_stack(tensors=REQUIRED, *extra, out=None) -> Tensor:
    """Mirrors torch.row_stack (vstack)."""
    if extra:  # (as cat's)
        raise too_many_positional("row_stack", 1 + len(extra), 1)
    return vstack(_tensor_list(tensors, "row_stack"), out=out)


def dstack(tensors=REQUIRED, *extra, out=None) -> Tensor:
    """Joins along dim 2 after atleast_3d. Mirrors torch.dstack."""
    if extra:  # (as cat's)
        raise too_many_positional("dstack", 1 + len(extra), 1)
    tensors = _stack_list(tensors, "dstack")
    return cat([atleast_3d(t) for t in tensors], 2, out=out)


def column_stack(tensors=REQUIRED, *extra, out=None) -> Tensor:
    """Joins 0-d/1-d tensors as columns, others along dim 1. Mirrors torch.column_stack."""
    if extra:  # (as cat's)
        raise too_many_positional("column_stack", 1 + len(extra), 1)
    tensors = _stack_list(tensors, "column_stack")
    cols = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors]
    return cat(cols, 1, out=out)


# --- grids ---


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 0-d/1-d tensors, as expanded views. Mirrors torch.meshgrid."""
    if any_dispatching(tensors):  # NOTE [ Tensor subclasses ]
        return run_converted(meshgrid, tensors, {"indexing": indexing})
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):  # torch's parser: the list, then indexing's type
        if not isinstance(t, Tensor):
            raise not_tensor_element(i, t)
    if isinstance(indexing, bytes):  # (torch's parser reads bytes as a str)
        indexing = indexing.decode()
    if indexing is not None and not isinstance(indexing, str):
        raise TypeError(f"meshgrid(): argument 'indexing' must be str, not {type_name(indexing)}")
    if indexing is None:
        from minitorch._settings import warn_once  # torch: once per process

        warn_once(
            "meshgrid_indexing",
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for a, b in zip(tensors[:-1], tensors[1:], strict=True):  # the dtype before the device
        if a.dtype is not b.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if a._device is not b._device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    for t in tensors:
        if t._data.ndim > 1:
            from minitorch._tensor_str import cpp_str  # an error path: torch's C++ printing

            shown = cpp_str(t.detach().cpu().double().numpy(), str(t.dtype)[6:], str(t.device))
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {shown}"
            )
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    sizes = [t._data.size for t in ts]
    outs = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[i] = -1
        outs.append(reshape(t, shape).expand(sizes))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


def cartesian_prod(*tensors) -> Tensor:
    """All combinations of the elements of 1-d tensors, as rows. Mirrors torch.cartesian_prod."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise not_tensor_element(i, t)
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


# --- broadcasting several tensors ---


def broadcast_shapes(*shapes) -> Size:
    """The shape that all `shapes` broadcast to. Mirrors torch.broadcast_shapes (its Python
    reference: None entries skipped, a shape shown in an error as it was given)."""
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for s in shapes:
        if not isinstance(s, Sequence):
            raise RuntimeError(
                f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}"
            )
    out = [1] * max((len(s) for s in shapes), default=0)
    for k, s in enumerate(shapes):
        for i in range(-1, -1 - len(s), -1):  # torch checks from the last dim
            v = s[i]
            if out[i] == 1:
                if v < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                out[i] = v
            elif v != 1 and out[i] != v:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {v} at {i}! Mismatching "
                    f"argument at index {k} had {s}; but expected shape should be "
                    f"broadcastable to {out}"
                )
    return Size(out)


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common shape (views). Mirrors torch.broadcast_tensors.

    As in torch, a tensor that already has the common shape comes back as itself (same object,
    still a leaf): distributions keep the user's parameters this way, so they stay optimisable."""
    if any_dispatching(tensors):  # NOTE [ Tensor subclasses ]
        return run_converted(broadcast_tensors, tensors)
    out = ()
    try:
        for t in tensors:
            out = broadcast_pair(out, t._data.shape)
    except AttributeError:  # a list of tensors or a number among them: torch's TypeError
        check_tensor_list(tensors)
        raise
    return tuple(t if t._data.shape == out else expand(t, out) for t in tensors)
