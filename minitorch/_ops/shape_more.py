"""More shape ops: diagonals, triangles, strided views (as_strided, unfold), flips, rolls."""

from __future__ import annotations

import operator

from minitorch import _memory_format as _mf
from minitorch._arg_errors import REQUIRED, arity_error, missing_positional
from minitorch._backend import cpu as _CPU
from minitorch._backend import strided_view
from minitorch._dtype import can_cast, scalar_name
from minitorch._ops._common import (
    check_int,
    check_tensors,
    index,
    int_list,
    ints,
    is_index,
    not_tensor,
    row_major,
    wrong_type,
)
from minitorch._ops._common import wrap_dim as _wrap_dim
from minitorch._ops.shape import at_strides, given_dims, keep_given, saved_ints
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, _replay_view, name_node, saved_uint64
from minitorch.autograd.grad_mode import no_grad

_CPU_XP = _CPU.backend.xp  # NumPy: the host kernels below that skip its Python-level wrappers

__all__ = [
    "diagonal",
    "diag",
    "diag_embed",
    "diagflat",
    "tril",
    "triu",
    "as_strided",
    "unfold",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "rot90",
]


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# --- gathers by flat position (the backward of strided views) ---


class StridedGather(Function):
    """out = a.flatten()[pos];  grad_a = grad scatter-added back at pos"""

    @staticmethod
    def forward(ctx, a, *, pos):
        ctx.shape = a._data.shape
        ctx.pos = pos
        return ctx.xp.take(a._data.reshape(-1), pos)

    @staticmethod
    def backward(ctx, grad):
        return StridedScatterAdd.apply(grad, pos=ctx.pos, shape=ctx.shape)


class StridedScatterAdd(Function):
    """out = zeros(shape) with a added at flat positions pos;  grad_a = grad.flatten()[pos]"""

    @staticmethod
    def forward(ctx, a, *, pos, shape):
        ctx.pos = pos
        out = ctx.xp.zeros(_prod(shape), dtype=a._data.dtype)
        a._device.backend.scatter_add(out, pos, a._data)
        return out.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return StridedGather.apply(grad, pos=ctx.pos)


def _positions(xp, shape):
    return xp.arange(_prod(shape), dtype=xp.int64).reshape(shape)


# --- diagonals ---


def _diag_view(xp, x, offset, dim1, dim2):
    """The (writable) view of x's diagonal `offset` over dims (dim1, dim2), as torch lays it out."""
    shape, strides = x.shape, x.strides
    if offset >= 0:
        n = max(0, min(shape[dim1], shape[dim2] - offset))
        start = (dim2, offset)
    else:
        n = max(0, min(shape[dim1] + offset, shape[dim2]))
        start = (dim1, -offset)
    if n:
        key = [slice(None)] * x.ndim
        key[start[0]] = slice(start[1], None)
        x = x[tuple(key)]
    rest = [i for i in range(len(shape)) if i != dim1 and i != dim2]
    return strided_view(
        xp,
        x,
        [shape[i] for i in rest] + [n],
        [strides[i] for i in rest] + [strides[dim1] + strides[dim2]],
    )


def _host_diag_view(x, offset: int, dim1: int, dim2: int):
    """_diag_view of a host array x that owns its row-major memory (a new array to write
    into): the same elements, made by NumPy's ndarray constructor over x's buffer rather than
    as_strided's interface object (torch.diag of 4 elements: 6.4 -> 3.8 us). Its base differs from
    _diag_view's, so only for a view that is written into and dropped."""
    shape, strides = x.shape, x.strides
    if offset >= 0:
        n = max(0, min(shape[dim1], shape[dim2] - offset))
        start = strides[dim2] * offset
    else:
        n = max(0, min(shape[dim1] + offset, shape[dim2]))
        start = strides[dim1] * -offset
    rest = [i for i in range(len(shape)) if i != dim1 and i != dim2]
    return _CPU_XP.ndarray(
        tuple([shape[i] for i in rest]) + (n,),
        x.dtype,
        x,
        start if n else 0,
        tuple([strides[i] for i in rest]) + (strides[dim1] + strides[dim2],),
    )


def _saved_diagonal_dim(i: int):
    """DiagonalBackward0's _saved_dim1/_dim2: the dim as given (diagonal keeps a negative one on
    the node), read back unsigned as torch's binding does."""
    return lambda node: given_dims(node, node.args[2:])[i]


class Diagonal(Function):
    """out = the diagonal of a over (dim1, dim2), last (a view);  grad_a = diag_embed(grad)"""

    _is_view = True
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's)
        "dim1": _saved_diagonal_dim(0),
        "dim2": _saved_diagonal_dim(1),
        "offset": lambda node: saved_uint64(node.args[1]),
        "self_sym_sizes": lambda node: node.args[0],
    }

    @staticmethod
    def forward(ctx, a, *, offset, dim1, dim2):
        ctx.args = (a._data.shape, offset, dim1, dim2)
        return _diag_view(ctx.xp, a._data, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        shape, offset, dim1, dim2 = ctx.args
        out = DiagEmbed.apply(grad, shape=shape, offset=offset, dim1=dim1, dim2=dim2)
        return name_node(out, "DiagonalBackwardBackward0")  # torch's diagonal_backward node


class DiagonalCopy(Diagonal):
    """out = a copy of a matrix's diagonal;  grad_a = diag_embed(grad)"""

    _is_view = False
    _node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, a, *, offset, dim1, dim2):
        ctx.args = (a._data.shape, offset, dim1, dim2)
        return _diag_view(ctx.xp, a._data, offset, dim1, dim2).copy()


def _saved_diag_arg(i: int):
    """DiagEmbedBackward0's _saved_offset/_dim1/_dim2: the argument as given (diag_embed keeps
    them on the node), read back unsigned as torch's binding does."""
    return lambda node: saved_uint64(node.__dict__.get("given", node.args)[i])


class DiagEmbed(Function):
    """out = zeros(shape) with a on the diagonal over (dim1, dim2);  grad_a = diagonal(grad)"""

    _saved_attrs = {  # grad_fn._saved_<name> (as torch's)
        "offset": _saved_diag_arg(0),
        "dim1": _saved_diag_arg(1),
        "dim2": _saved_diag_arg(2),
    }

    @staticmethod
    def forward(ctx, a, *, shape, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        out = ctx.xp.zeros(shape, dtype=a._data.dtype)
        if ctx.xp is _CPU_XP:
            _host_diag_view(out, offset, dim1, dim2)[...] = a._data
        else:
            _diag_view(ctx.xp, out, offset, dim1, dim2)[...] = a._data
        return out

    @staticmethod
    def backward(ctx, grad):
        offset, dim1, dim2 = ctx.args
        return Diagonal.apply(grad, offset=offset, dim1=dim1, dim2=dim2)


def _offset(k, op: str, name: str) -> int:
    """A diagonal's offset (the op's 2nd argument) as an int: floats and bools are TypeErrors
    (NOTE [ Int-like arguments ]), where int() would truncate x.tril(-1.5) to tril(-1)."""
    return k if k.__class__ is int else check_int(op, k, name, 2)


def _diag_dims(n, dim1, dim2, op="diagonal"):
    d1, d2 = _wrap_dim(dim1, n, op, "dim1", 3), _wrap_dim(dim2, n, op, "dim2", 4)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(
    input: Tensor = REQUIRED, offset: int = 0, dim1: int = 0, dim2: int = 1, *extra
) -> Tensor:
    """The diagonal over two dims, as a view (appended as the last dim). Mirrors torch.diagonal."""
    if extra:  # (input REQUIRED: not_tensor words torch.diagonal())
        raise arity_error("diagonal", extra, 4, input=input)
    try:
        d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    except AttributeError:  # zero-cost when a tensor
        raise not_tensor("diagonal", input) from None
    except (IndexError, RuntimeError, TypeError):  # torch's parser reads offset's type first
        _offset(offset, "diagonal", "offset")
        raise
    offset = _offset(offset, "diagonal", "offset")
    if d1 is dim1 and d2 is dim2:  # (dims in range: the same ints)
        return Diagonal.apply(input, offset=offset, dim1=d1, dim2=d2)
    out = Diagonal.apply(input, offset=offset, dim1=d1, dim2=d2)
    keep_given(out, (dim1, dim2))  # as given, for grad_fn._saved_dim1/2
    return out


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Tensors whose diagonals (over dim1, dim2) are input's last dim. Mirrors torch.diag_embed."""
    try:
        shape = input._data.shape
    except AttributeError:  # zero-cost when a tensor
        raise not_tensor("diag_embed", input) from None
    offset = _offset(offset, "diag_embed", "offset")
    d1, d2 = _diag_dims(len(shape) + 1, dim1, dim2, "diag_embed")
    n = (shape[-1] if shape else 1) + abs(offset)
    out_shape = list(shape[:-1])
    for d in sorted((d1, d2)):
        out_shape.insert(d, n)
    out = DiagEmbed.apply(input, shape=tuple(out_shape), offset=offset, dim1=d1, dim2=d2)
    if out._grad_fn is not None:  # (grad_fn._saved_dim1 and _dim2, as given)
        out._grad_fn.given = (offset, operator.index(dim1), operator.index(dim2))
    return out


def diag(input: Tensor = REQUIRED, diagonal: int = 0, *extra, out=None) -> Tensor:
    """A 1-d tensor's diagonal matrix, or a matrix's diagonal (a copy). Mirrors torch.diag."""
    if extra:  # (input REQUIRED: not_tensor words torch.diag())
        raise arity_error("diag", extra, 2, input=input)
    result = _diag(input, diagonal)
    if out is None:
        return result
    from minitorch._ops.inplace import write_out_exact

    if isinstance(out, Tensor) and input.ndim == 1 and not can_cast(result.dtype, out.dtype):
        # a vector's diagonal matrix is checked for a cast first, as in torch's kernel
        raise RuntimeError(
            f"diag: result type {scalar_name(result.dtype)} can't be cast to the desired out= "
            f"type {scalar_name(out.dtype)}"
        )
    return write_out_exact(out, result)  # torch's diag refuses an out= of another dtype


def _diag(input, diagonal):
    try:
        n = input._data.ndim
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("diag", input) from None
    diagonal = _offset(diagonal, "diag", "diagonal")
    if n == 1:
        return diag_embed(input, diagonal)  # (its dims -2, -1 are 0, 1 here, as in torch)
    if n == 2:
        return DiagonalCopy.apply(input, offset=diagonal, dim1=0, dim2=1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input as a diagonal matrix. Mirrors torch.diagflat."""
    if not isinstance(input, Tensor):
        raise not_tensor("diagflat", input)
    offset = _offset(offset, "diagflat", "offset")  # (as diag's)
    return diag_embed(input.contiguous().view(-1), offset)  # torch's nodes: a ViewBackward0


# NOTE [ Triangle masks ]
# NumPy's tril/triu build their boolean mask (tri: an outer comparison of two aranges) on every
# call, then select with where(mask, x, zeros(1, dtype)): on a small matrix the mask costs more
# than the selection (x.tril() of 3x4: 4.5 -> 2.2 us). The host route keeps the masks of
# small matrices, read-only, and makes the same where() call with the same operands: the same
# array, bit for bit and in layout. Other devices call their xp.tril/triu.
_TRI_MASKS: dict = {}
_TRI_MASK_MAX = 4096  # elements of a kept mask; bigger ones are made per call, as NumPy's


def _tri_mask(n: int, m: int, k: int):
    """NumPy's tri(n, m, k, dtype=bool): True on and below diagonal k."""
    key = (n, m, k)
    mask = _TRI_MASKS.get(key)
    if mask is None:
        mask = _CPU_XP.tri(n, m, k, dtype=bool)
        if n * m <= _TRI_MASK_MAX:
            if len(_TRI_MASKS) >= 256:
                _TRI_MASKS.clear()
            mask.flags.writeable = False
            _TRI_MASKS[key] = mask
    return mask


def _tril(xp, x, k: int):
    """xp.tril(x, k): on the host, NumPy's own where() over a kept mask (NOTE [ Triangle
    masks ])."""
    if xp is not _CPU_XP or x.__class__ is not xp.ndarray:
        return xp.tril(x, k)
    return xp.where(_tri_mask(x.shape[-2], x.shape[-1], k), x, xp.zeros(1, x.dtype))


def _triu(xp, x, k: int):
    """xp.triu(x, k), as _tril."""
    if xp is not _CPU_XP or x.__class__ is not xp.ndarray:
        return xp.triu(x, k)
    return xp.where(_tri_mask(x.shape[-2], x.shape[-1], k - 1), xp.zeros(1, x.dtype), x)


class Tril(Function):
    """out = a with the elements above diagonal k zeroed;  grad_a = tril(grad, k)"""

    _saved_attrs = {"diagonal": lambda node: saved_uint64(node.k)}  # (as torch's)

    @staticmethod
    def forward(ctx, a, *, diagonal):
        ctx.k = diagonal
        return row_major(ctx.xp, _tril(ctx.xp, a._data, diagonal))  # NumPy keeps a's layout

    @staticmethod
    def backward(ctx, grad):
        return Tril.apply(grad, diagonal=ctx.k)


class Triu(Function):
    """out = a with the elements below diagonal k zeroed;  grad_a = triu(grad, k)"""

    _saved_attrs = Tril._saved_attrs

    @staticmethod
    def forward(ctx, a, *, diagonal):
        ctx.k = diagonal
        return row_major(ctx.xp, _triu(ctx.xp, a._data, diagonal))  # NumPy keeps a's layout

    @staticmethod
    def backward(ctx, grad):
        return Triu.apply(grad, diagonal=ctx.k)


def _triangle(cls, input, diagonal, out, op):
    try:
        n = input._data.ndim
    except AttributeError:  # torch.tril(None): zero-cost when a tensor
        raise not_tensor(op, input) from None
    if n < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    result = cls.apply(input, diagonal=_offset(diagonal, op, "diagonal"))
    if out is None:
        return result
    from minitorch._ops.inplace import write_out_exact

    return write_out_exact(out, result, graph_op=op)  # (named also when only out needs grad)


def tril(input: Tensor = REQUIRED, diagonal: int = 0, *extra, out=None) -> Tensor:
    """The lower triangle of the last two dims. Mirrors torch.tril."""
    if extra:  # (input REQUIRED: not_tensor words torch.tril())
        raise arity_error("tril", extra, 2, input=input)
    return _triangle(Tril, input, diagonal, out, "tril")


def triu(input: Tensor = REQUIRED, diagonal: int = 0, *extra, out=None) -> Tensor:
    """The upper triangle of the last two dims. Mirrors torch.triu."""
    if extra:  # (input REQUIRED: not_tensor words torch.triu())
        raise arity_error("triu", extra, 2, input=input)
    return _triangle(Triu, input, diagonal, out, "triu")


# --- strided views ---


# NOTE [ as_strided addresses the root's memory ]
# torch's as_strided indexes the storage: offsets and strides count elements of the memory the
# tensor's root (its view base) lives in, laid out however the root is (a transposed result such
# as h.t() * 2, from_numpy of a transposed array). The root's memory is the span from its first
# element (its lowest address: strides are non-negative) to its last; AsStrided records the
# root's strides (`layout`) so a replay of the view on another tensor of the root's shape (a
# gradient, CopySlices' mask, a deepcopy) addresses that tensor's values as if laid out like the
# root. The backward works in memory positions: out's gradient is scatter-added into the memory,
# then read back at the input's memory positions (those of a row-major root are its flat ones).


def _memory_strides(r, op: str = "as_strided"):
    """r's strides in elements, after checking its memory can be addressed from its first element
    (non-negative whole-element strides)."""
    item = r.itemsize
    if any(s < 0 or s % item for s in r.strides):
        raise RuntimeError(
            f"{op}: the base tensor's memory has negative strides {r.strides} (bytes) and cannot "
            "be addressed from its first element (call .contiguous() first)"
        )
    return tuple(s // item for s in r.strides)


def _extent(shape, strides) -> int:
    """The number of elements spanned by memory seen with shape and (element) strides."""
    return 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))


def _memory(xp, r, layout):
    """The 1-D memory of root r, as if r were laid out with element strides `layout`: r's own
    memory when it is, else a copy of r's values laid out so (a replay; see NOTE [ as_strided
    addresses the root's memory ])."""
    if r.flags.c_contiguous and layout == _row_major(r.shape):
        return r.reshape(-1)
    item = r.itemsize
    n = _extent(r.shape, layout)
    if all(s == k * item or d == 1 for s, k, d in zip(r.strides, layout, r.shape, strict=True)):
        return strided_view(xp, r, (n,), (item,))
    mem = xp.zeros(n, dtype=r.dtype)
    strided_view(xp, mem, r.shape, [s * item for s in layout])[...] = r
    return mem


def _row_major(shape):
    out, n = [], 1
    for s in reversed(shape):
        out.append(n)
        n *= s
    return tuple(reversed(out))


class AsStrided(Function):
    """out = the root's memory seen with size/stride/offset (a view);  grad_a = grad
    scatter-added into the root's memory, then read back at a's memory positions"""

    _is_view = True
    _saved_attrs = {  # grad_fn._saved_<name> (as torch's; the offset as given, None if not)
        "size": lambda node: node.args[2],
        "stride": lambda node: node.args[3],
        "storage_offset": lambda node: node.__dict__.get("given"),
    }

    @staticmethod
    def forward(ctx, a, *, size, stride, storage_offset, layout):
        root = a._base if a._base is not None else a
        r = root._data
        ctx.args = (r.shape, layout, size, stride, storage_offset)
        ctx.chain = a._view_chain if a._base is not None else ()
        ctx.overlap = bool(ctx.chain) and _may_overlap(a._data)
        mem = _memory(ctx.xp, r, layout)
        if 0 in size:  # NumPy would leave an empty slice's pointer at mem's start
            return at_strides(ctx.xp, mem, storage_offset, size, stride)  # NOTE [ Empty views ]
        return strided_view(ctx.xp, mem[storage_offset:], size, [s * r.itemsize for s in stride])

    @staticmethod
    def backward(ctx, grad):
        xp = ctx.xp
        root_shape, layout, size, stride, offset = ctx.args
        row_major = layout == _row_major(root_shape)
        n = _extent(root_shape, layout)
        pos = _positions(xp, (n,))
        out_pos = strided_view(xp, pos[offset:], size, [s * pos.itemsize for s in stride]).copy()
        if row_major:  # memory positions are the root's flat positions
            g = StridedScatterAdd.apply(grad, pos=out_pos, shape=root_shape)
            if not ctx.chain:
                return g
        else:
            g = StridedScatterAdd.apply(grad, pos=out_pos, shape=(n,))
        # the root's elements (then the input's, through its view chain) by memory position
        root_pos = strided_view(xp, pos, root_shape, [s * pos.itemsize for s in layout])
        with no_grad():
            root = _make(root_pos, grad._device, False, None)
            in_pos = _replay_view(root, ctx.chain)._data.copy()
        if ctx.overlap:
            # as torch, the gradient at a memory position is shared among the input's elements
            # that sit there, so the input's own backward (an expand's sum) adds it up once
            count = xp.zeros(n, dtype=grad._data.dtype)
            grad._device.backend.scatter_add(
                count, in_pos.reshape(-1), xp.ones(in_pos.size, dtype=count.dtype)
            )
            count = xp.maximum(count, 1).reshape(g.shape)
            g = g / _make(count, grad._device, False, None)
        return StridedGather.apply(g, pos=in_pos)


def _may_overlap(x) -> bool:
    """Whether two elements of array x may share memory (a sufficient test: False is certain)."""
    dims = sorted((abs(s), n) for s, n in zip(x.strides, x.shape, strict=True) if n != 1)
    if any(n == 0 for _, n in dims):
        return False
    span = 0
    for s, n in dims:
        if s <= span:
            return True
        span += (n - 1) * s
    return False


def _offset_type(storage_offset) -> None:
    """torch's TypeError for an as_strided storage_offset that is not int-like, which its parser
    raises before any check of the sizes. An error path."""
    if storage_offset is not None and storage_offset.__class__ is not int:
        check_int("as_strided", storage_offset, "storage_offset", 4)


def as_strided(input: Tensor, size, stride=REQUIRED, storage_offset: int | None = None) -> Tensor:
    """A view of the memory with explicit size, stride and offset. Mirrors torch.as_strided.

    See NOTE [ as_strided addresses the root's memory ].
    """
    if not isinstance(input, Tensor):
        raise not_tensor("as_strided", input)
    # a float size or stride raises, as torch's, rather than truncating: NOTE [ Int-like arguments ]
    size = ints(size, "as_strided", "size", 2)  # (its type before a stride left out)
    stride = ints(stride, "as_strided", "stride", 3)
    if len(size) != len(stride):
        _offset_type(storage_offset)
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        _offset_type(storage_offset)
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: "
            f"{list(stride)}"
        )
    root = input._base if input._base is not None else input
    r = root._data
    given = storage_offset
    if storage_offset is None:
        storage_offset = input.storage_offset()
    elif storage_offset.__class__ is not int:
        storage_offset = check_int("as_strided", storage_offset, "storage_offset", 4)
    if storage_offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
    # a dtype view's root may itself start inside the storage (NOTE [ Dtype views ]): offsets
    # count from the storage's start, the memory addressed here from the root's
    start = root.storage_offset() if "_storage_root" in root.__dict__ else 0
    layout = _memory_strides(r)
    need = 0 if 0 in size else storage_offset - start + _extent(size, stride)
    have = _extent(r.shape, layout)
    if need > have or storage_offset < start:
        item = r.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
            f"{storage_offset}, and itemsize {item} requiring a storage size of {need * item} "
            f"are out of bounds for storage of size {have * item}"
        )
    out = AsStrided.apply(
        input, size=size, stride=stride, storage_offset=storage_offset - start, layout=layout
    )
    if given is not None:
        keep_given(out, storage_offset)  # for grad_fn._saved_storage_offset
    return out


class Unfold(Function):
    """out = the windows of `size` every `step` along dim, as a last dim (a view);
    grad_a = the windows' gradients added back where they came from"""

    _is_view = True
    _saved_attrs = {  # grad_fn._saved_dimension, ... (as torch)
        "dimension": lambda node: given_dims(node, node.args[0]),
        "size": lambda node: node.args[1],
        "step": lambda node: node.args[2],
        "self_sym_sizes": "in_shape",
    }

    @staticmethod
    def forward(ctx, a, *, dimension, size, step):
        x = a._data
        ctx.in_shape = x.shape
        ctx.args = (dimension, size, step)
        return _unfold(ctx.xp, x, dimension, size, step)

    @staticmethod
    def backward(ctx, grad):
        pos = _unfold(ctx.xp, _positions(ctx.xp, ctx.in_shape), *ctx.args).copy()
        out = StridedScatterAdd.apply(grad, pos=pos, shape=ctx.in_shape)
        return name_node(out, "UnfoldBackwardBackward0")  # torch's unfold_backward node


def _unfold(xp, x, dim, size, step):
    if x.ndim == 0:  # torch: a 0-d tensor unfolds to shape (size,)
        return strided_view(xp, x, (size,), (x.itemsize,))
    shape, strides = list(x.shape), list(x.strides)
    shape.append(size)
    strides.append(strides[dim])
    shape[dim] = (shape[dim] - size) // step + 1
    strides[dim] *= step
    return strided_view(xp, x, shape, strides)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold: sliding windows along a dim, as a view. Mirrors torch.Tensor.unfold."""
    n = input._data.ndim
    if dimension.__class__ is not int:
        dimension = index(dimension, "unfold", "dimension", 1)  # (a method's positions)
    d = _wrap_dim(dimension, n)
    if size.__class__ is not int:  # x.unfold(d, k / 2, s): torch's TypeError, not a truncation
        size = index(size, "unfold", "size", 2)
    if step.__class__ is not int:
        step = index(step, "unfold", "step", 3)
    have = input._data.shape[d] if n else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > have:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {have} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    out = Unfold.apply(input, dimension=d, size=size, step=step)
    if dimension < 0:  # kept as given, for grad_fn._saved_dimension (keep_given)
        keep_given(out, dimension)
    return out


# --- flips and rolls ---


def _flip_copy(xp, x, dims):
    """x reversed along dims in new memory laid out as x, as torch's flip (empty_like): a
    transposed input gives a transposed result (rot90 relies on it); an expanded one, whose
    elements share memory, a dense one in torch's order (NOTE [ Preserved layouts ])."""
    if 0 in x.strides:
        return _mf.into_layout_of(xp, x, xp.flip(x, axis=dims))
    if xp is _CPU_XP and x.__class__ is xp.ndarray:
        # NumPy's flip is this key (its view), built past its argument normalising (x.flip(0)
        # of 3x4: 3.0 -> 2.3 us); dims are wrapped and distinct here
        if dims.__class__ is int:
            dims = (dims,)
        key = tuple([_REVERSED if d in dims else _WHOLE for d in range(x.ndim)])
        return x[key].copy(order="K")
    return xp.flip(x, axis=dims).copy(order="K")


_REVERSED = slice(None, None, -1)
_WHOLE = slice(None)


class Flip(Function):
    """out = a reversed along dims (a copy);  grad_a = flip(grad, dims)"""

    _saved_attrs = {"dims": lambda node: given_dims(node, node.dims)}  # (as torch's: as given)

    @staticmethod
    def forward(ctx, a, *, dims):
        ctx.dims = dims
        return _flip_copy(ctx.xp, a._data, dims)  # no dims: a copy, laid out the same way

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, dims=ctx.dims)


_NO_DIMS = object()  # flip's dims when not given (it has no default)


def flip(input: Tensor, dims=_NO_DIMS) -> Tensor:
    """Reverses the order along dims (a copy, as in torch). Mirrors torch.flip."""
    try:
        n = input._data.ndim
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("flip", input) from None
    if dims.__class__ is not tuple and not isinstance(dims, (tuple, list)):
        if dims is _NO_DIMS:  # torch.flip(x): torch's parser, not Python's, names it
            raise missing_positional("flip", "dims")
        # dims is an unsized int[] in torch: a bare int is a TypeError here (torch.flip(x, 1)),
        # though the method's varargs take one (x.flip(1): Tensor.flip builds the tuple).
        raise wrong_type("flip", dims, "dims", 2, "tuple of ints")
    dims = ints(dims, "flip", "dims", 2)
    wrapped = ()
    for d in dims:  # wrapped one by one, as torch: a repeat is found before a later bad dim
        d = _wrap_dim(d, n)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped += (d,)
    # a 0-d tensor takes dim 0 or -1 (as one of one dim) and has nothing to reverse: a copy
    if wrapped == dims:
        return Flip.apply(input, dims=wrapped if n else ())
    out = Flip.apply(input, dims=wrapped if n else ())
    keep_given(out, dims)  # a negative dim: kept as given, for grad_fn._saved_dims
    return out


def fliplr(input: Tensor) -> Tensor:
    """Mirrors torch.fliplr."""
    check_tensors("fliplr", ("input", input))
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Mirrors torch.flipud."""
    check_tensors("flipud", ("input", input))
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class Roll(Function):
    """out = a shifted circularly along dims (flattened when dims is None);
    grad_a = roll(grad, -shifts, dims)"""

    # grad_fn._saved_shifts / _saved_dims as torch's: tuples, () for a flattened roll, and a
    # negative shift read as the unsigned 64-bit number torch's binding shows (-1: 2**64 - 1)
    _saved_attrs = {
        "shifts": lambda node: tuple(saved_uint64(s) for s in _as_tuple(node.args[0])),
        "dims": lambda node: given_dims(node, _as_tuple(node.args[1])),
    }

    @staticmethod
    def forward(ctx, a, *, shifts, dims):
        ctx.args = (shifts, dims)
        x = a._data
        if dims is not None and x.ndim in (4, 5) and _mf.suggested_last(x) is not None:
            if any(s % x.shape[d] == 0 for s, d in zip(shifts, dims, strict=True)):
                # torch joins a roll by a whole turn from an empty piece: row-major from there
                return row_major(ctx.xp, ctx.xp.roll(x, shifts, axis=dims))
            to, back, axis = _mf.last_orders(x.ndim)  # torch keeps the layout
            axes = tuple(axis[d] for d in dims)
            return ctx.xp.roll(x.transpose(to), shifts, axis=axes).transpose(back)
        if dims is not None and ctx.xp is _CPU_XP and x.__class__ is _CPU_XP.ndarray:
            out = _roll_one_dim(x, shifts, dims)
            if out is not None:
                return row_major(_CPU_XP, out)  # (NumPy joins the pieces of an F-order x so)
        return row_major(ctx.xp, ctx.xp.roll(x, shifts, axis=dims))

    @staticmethod
    def backward(ctx, grad):
        shifts, dims = ctx.args
        neg = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
        return Roll.apply(grad, shifts=neg, dims=dims)


def _roll_one_dim(x, shifts: tuple, dims: tuple):
    """row_major(np.roll(x, shifts, axis=dims)) of a host array rolled along one dim (the
    shifts of a dim named twice add up, as NumPy's), or None for any other roll: the two pieces
    np.roll copies, joined (x.roll(1, 0) of 3x4: 6.3 -> 3.1 us; copies: the same bits)."""
    if len(dims) == 1:
        d = dims[0]
        shift = shifts[0]
    else:
        d = None
        for s, dim in zip(shifts, dims, strict=True):
            if s % (x.shape[dim] or 1):
                if d is not None and dim != d:
                    return None  # (a roll along several dims: NumPy's)
                d = dim
        if d is None:
            return None
        shift = sum(s for s, dim in zip(shifts, dims, strict=True) if dim == d)
    shift %= x.shape[d] or 1
    if not shift:
        return None  # (a copy in x's layout, then row-major: NumPy's)
    lead = (_WHOLE,) * d
    return _CPU_XP.concatenate(
        (x[lead + (slice(-shift, None),)], x[lead + (slice(None, -shift),)]), d
    )


def _one_int(t: Tensor) -> bool:
    """Whether torch's parser reads tensor t as an int[] of one element (any ndim)."""
    return t.numel() == 1 and t.dtype._kind == 1


def _as_tuple(v) -> tuple:
    return () if v is None else (v,) if isinstance(v, int) else tuple(v)


def roll(input: Tensor = REQUIRED, shifts=REQUIRED, dims=None, *extra) -> Tensor:
    """Mirrors torch.roll."""
    if extra or input is REQUIRED or shifts is REQUIRED:
        raise arity_error("roll", extra, 3, input=input, shifts=shifts)
    try:
        n = input._data.ndim
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("roll", input) from None
    # See NOTE [ Int-like arguments ]
    if shifts.__class__ is int:
        shifts = (shifts,)
    elif is_index(shifts):
        shifts = (index(shifts, "roll", "shifts"),)
    elif isinstance(shifts, Tensor) and not _one_int(shifts):  # (no int[] to torch's parser)
        raise wrong_type("roll", shifts, "shifts", 2, "tuple of ints")
    else:
        shifts = int_list(shifts, "roll", "shifts", 2)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is not None:
        one = dims.__class__ is not bool and (isinstance(dims, int) or is_index(dims))
        if dims.__class__ is bool or (isinstance(dims, Tensor) and not _one_int(dims)):
            raise wrong_type("roll", dims, "dims", 3, "tuple of ints")
        dims = (dims,) if one else ints(dims, "roll", "dims", 3)
    if not dims:  # None or (): torch rolls the flattened tensor for both
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(input, shifts=shifts[0], dims=None)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if input._data.size == 0:  # torch returns an empty input's copy before reading dims
        return Roll.apply(input, shifts=0, dims=None)
    if n == 0:  # torch: IndexError naming the first dim, where _wrap_dim would take 0 and -1
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    wrapped = tuple(_wrap_dim(d, n) for d in dims)
    if wrapped == dims:
        return Roll.apply(input, shifts=shifts, dims=wrapped)
    out = Roll.apply(input, shifts=shifts, dims=wrapped)
    keep_given(out, dims)  # a negative dim: kept as given, for grad_fn._saved_dims
    return out


class Rot90(Function):
    """out = a rotated k quarter turns in the plane dims;  grad_a = rot90(grad, -k, dims)"""

    _saved_attrs = {  # grad_fn._saved_<name> (as torch's: as given; rot90 keeps them)
        "k": lambda node: saved_uint64(node.__dict__.get("given", node.args)[0]),
        "dims": lambda node: saved_ints(node.__dict__.get("given", node.args)[1]),
    }

    @staticmethod
    def forward(ctx, a, *, k, dims):
        ctx.args = (k, dims)
        x, xp = a._data, ctx.xp
        d0, d1 = dims
        # laid out as torch's: a flip (a copy in the input's layout), transposed for odd k; so
        # a row-major input gives a transposed result and a transposed one a row-major result
        if k == 1:
            return _flip_copy(xp, x, d1).swapaxes(d0, d1)
        if k == 2:
            return _flip_copy(xp, x, dims)
        if k == 3:
            return _flip_copy(xp, x, d0).swapaxes(d0, d1)
        return x.copy()

    @staticmethod
    def backward(ctx, grad):
        k, dims = ctx.args
        return Rot90.apply(grad, k=(-k) % 4, dims=dims)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotates by 90 degrees k times from dims[0] towards dims[1]. Mirrors torch.rot90."""
    check_tensors("rot90", ("input", input))
    if k.__class__ is not int:  # rot90(x, 1.0): torch's TypeError (NOTE [ Int-like arguments ])
        k = check_int("rot90", k, "k", 2)
    if dims.__class__ is not tuple or any(d.__class__ is not int for d in dims):
        dims = int_list(dims, "rot90", "dims", 3)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d = (_wrap_dim(dims[0], n), _wrap_dim(dims[1], n))  # an out-of-range dim: IndexError first
    if d[0] == d[1]:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    out = Rot90.apply(input, k=k % 4, dims=d)
    if k != k % 4 or d != dims:  # kept as given, for grad_fn._saved_k and _dims (keep_given)
        keep_given(out, (k, dims))
    return out
