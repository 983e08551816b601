"""Linear algebra basics: matmul and its special cases, dot/outer/inner, add*mm, kron, trace."""

from __future__ import annotations

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, arity_error, too_many_positional
from minitorch._backend import cpu as _CPU
from minitorch._ops._common import (
    _called_as_method,
    broadcast_pair,
    cast,
    index,
    is_floating,
    is_index,
    is_scalar_arg,
    no_overload,
    not_tensor,
    on_host,
    opmath_dtype,
    type_name,
    wrap_dim,
    wrong_type,
)
from minitorch._ops.einsum_op import _LETTERS, Einsum
from minitorch._ops.pointwise import _plain_pair
from minitorch._ops.shape import Reshape
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, show_saved
from minitorch.autograd.function import (
    _FREED,
    Function,
    Node,
    check_watched,
    fast_path,
    name_node,
    plain_result,
    record_pair,
)
from minitorch.autograd.grad_mode import state as _grad_state

# fmt: off
__all__ = [
    "matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "inner", "addmm", "addmv",
    "addbmm", "baddbmm", "tensordot", "kron", "trace",
]
# fmt: on


_short = _dtype.scalar_name  # torch's dtype spelling in messages ("Float")
_CPU_XP = _CPU.backend.xp  # the no-grad fast paths' kernels (NOTE [ The no-grad fast path ])
# addmm's default beta and alpha: its fast path tests `is _ONE`, as add's does (1.0, True or a
# 0-d tensor take the full path, whose checks read them)
_ONE = 1


def _ctype(dt) -> str:
    return _dtype.CPP_NAMES[dt.name]


def _require_tensor(x, op, name, pos):
    if not isinstance(x, Tensor):
        raise wrong_type(op, x, name, pos, "Tensor")


def _require_tensors(op, names, args):
    """_require_tensor for each of an add*mm's operands, in torch's order (input first)."""
    for pos, (name, x) in enumerate(zip(names, args, strict=True), 1):
        if not isinstance(x, Tensor):
            _require_tensor(x, op, name, pos)


_MM_NAMES = ("input", "mat1", "mat2")
_MV_NAMES = ("input", "mat", "vec")
_BMM_NAMES = ("input", "batch1", "batch2")


def _no_bool(x: Tensor, kernel: str):
    if x._data.dtype == bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _dims_str(shape) -> str:
    return "x".join(str(s) for s in shape)


# --- the matrix product kernels ---


def _swap(xp, x, flag):
    # the array method: xp.swapaxes goes through NumPy's function dispatch (~0.5 us a call)
    return x.swapaxes(-1, -2) if flag else x


_BLAS_COPY_MIN = 1 << 12  # elements; a smaller operand is cheap in NumPy's own loop


def blas_ready(x) -> bool:
    """Whether BLAS can read x's last two dims in place (or x is small enough not to matter).
    NumPy's matmul hands an operand to BLAS only when one of those dims is unit-stride and the
    other steps at least a row; otherwise (a zero stride from expand, the gradient of `.sum()`;
    a stepped slice) it runs its own triple loop: _strided_product avoids that."""
    if x.ndim < 2 or x.size < _BLAS_COPY_MIN:
        return True
    s_row, s_col = x.strides[-2:]
    n_row, n_col = x.shape[-2:]
    item = x.itemsize
    return (s_col == item and s_row >= n_col * item) or (s_row == item and s_col >= n_row * item)


# NOTE [ Products of repeated rows ]
# An operand with a zero stride (an expanded tensor; the gradient `.sum()` sends back, which a
# residual add passes on to the last layer of a block) repeats one row or column. Where op(a)'s
# rows repeat, so do the product's: one row is computed (a matrix-vector product) and written
# out to every row; likewise for op(b)'s columns. Any other operand BLAS cannot read is copied
# first. The fc2 layer's backward on the attention block, with the (2048, 128) gradient of
# `.sum()` (float32, one BLAS thread, best of 50): 1.52 + 1.66 ms copied and multiplied,
# 0.14 + 0.14 ms so (most of it writing out the (2048, 512) result). Each row of the result
# sums the same products as the full GEMM, in BLAS's matrix-vector order.


def _strided_product(xp, ad, bd, ta, tb):
    """_product for operands of which one is not blas_ready: see NOTE [ Products of repeated
    rows ]."""
    a, b = _swap(xp, ad, ta), _swap(xp, bd, tb)
    if a.strides[-2] == 0 and a.shape[-2] > 1:
        part = _product(xp, xp.ascontiguousarray(a[..., :1, :]), b, False, False)
        return _repeated(xp, part, a.shape[-2], -2)
    if b.strides[-1] == 0 and b.shape[-1] > 1:
        part = _product(xp, a, xp.ascontiguousarray(b[..., :1]), False, False)
        return _repeated(xp, part, b.shape[-1], -1)
    a = a if blas_ready(a) else xp.ascontiguousarray(a)
    b = b if blas_ready(b) else xp.ascontiguousarray(b)
    return _product(xp, a, b, False, False)


def _repeated(xp, part, n, dim):
    """A new row-major array of part repeated n times along dim, where part has size 1."""
    shape = list(part.shape)
    shape[dim] = n
    out = xp.empty(tuple(shape), dtype=part.dtype)
    out[...] = part
    return out


class Mm(Function):
    """out = op(a) @ op(b) (op: optional transpose of the last two dims);  the grads are matmuls
    of grad with the other operand, so they carry the same flags and are differentiable again"""

    # set on a node only where they differ: NOTE [ Gradient layout in mm ] for cols
    _node_defaults = {"ta": False, "tb": False, "cols": (False, False)}

    @staticmethod
    def forward(ctx, a, b, *, ta=False, tb=False):
        needs = ctx.needs_input_grad  # each kept only for the other's gradient, as torch
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        if ta or tb:
            ctx.ta, ctx.tb = ta, tb
        ad, bd = a._data, b._data
        sa, sb = ad.strides, bd.strides
        if sa[0] < sa[1] or sb[0] < sb[1]:  # rare: maybe a column-major operand
            ctx.cols = _column_majors(ad, bd)  # NOTE [ Gradient layout in mm ]
        return _product(ctx.xp, ad, bd, ta, tb)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        ta, tb = ctx.ta, ctx.tb
        fn = ctx._fn
        ca, cb = ctx.cols  # See NOTE [ Gradient layout in mm ]
        ga = gb = None
        if ctx.needs_input_grad[0]:
            if ta != ca:
                ga = fn.apply(b, grad, ta=tb, tb=True)  # op(b) @ grad^T
            else:
                ga = fn.apply(grad, b, tb=not tb)  # grad @ op(b)^T
            ga = ga.t() if ca else ga
        if ctx.needs_input_grad[1]:
            if tb != cb:
                gb = fn.apply(grad, a, ta=True, tb=ta)  # grad^T @ op(a)
            else:
                gb = fn.apply(a, grad, ta=not ta)  # op(a)^T @ grad
            gb = gb.t() if cb else gb
        return ga, gb

    @staticmethod
    def _backward_data(ctx, grad):
        a, b = ctx._stored_arrays()
        ta, tb = ctx.ta, ctx.tb
        xp = ctx.xp
        ca, cb = ctx.cols  # See NOTE [ Gradient layout in mm ]
        ga = gb = None
        if ctx.needs_input_grad[0]:
            if ta != ca:
                ga = _product(xp, b, grad, tb, True)
            else:
                ga = _product(xp, grad, b, False, not tb)
            ga = ga.T if ca else ga
        if ctx.needs_input_grad[1]:
            if tb != cb:
                gb = _product(xp, grad, a, True, ta)
            else:
                gb = _product(xp, a, grad, not ta, False)
            gb = gb.T if cb else gb
        return ga, gb


# NOTE [ Gradient layout in mm ]
# torch's mm backward gives an operand's gradient the operand's layout: for a column-major
# operand (the `w.T` of a hand-written `x @ w.T`) it computes the gradient as the transpose of
# the swapped product, so that after w.T's TransposeBackward w.grad is row-major again and
# `torch.cat([g.view(-1) for g in grads])` works. Mm's forward records the layouts in ctx.cols,
# only where a stride test says a column-major operand is possible (one comparison per
# operand on the common row-major path); 2-d operands only, as torch's bmm keeps its layout.
_ROW_MAJOR = (False, False)


def _column_majors(ad, bd) -> tuple:
    """Whether each of two 2-d arrays is column-major by torch's test (a unit row stride, a
    column stride of one column); (False, False) for a batched product, whose gradients for a
    broadcast 2-d operand are summed over the batch into a fresh array anyway."""
    if ad.ndim != 2 or bd.ndim != 2:
        return _ROW_MAJOR
    return tuple(
        x.strides[0] == x.itemsize and x.strides[1] == x.shape[0] * x.itemsize for x in (ad, bd)
    )


# NOTE [ Two entry points to one GEMM ]
# A 2-D float product of m k n multiply-adds below _DOT_MAX goes through the array method `dot`,
# above it through xp.matmul. Both call the same BLAS GEMM, but dot skips the ufunc dispatch
# (0.7 us of a 1.5 us (16, 64) @ (64, 64) product, most of a small MLP layer's time) while
# matmul runs the big products 3-16% faster (float32, best of 15 blocks: (256, 128) @ (128, 256)
# 104 -> 88 us, the backward's (784, 256) @ (256, 512) 1.05 -> 0.91 ms; even at 2^20). The test
# is written out where products are made (_product, nn_kernels._matmul_bias): a helper call
# would add ~35 opcodes to every product of every step.
# dot treats a (1, 1) operand as a scalar and scales the other one with BLAS scal, which writes
# zeros for a zero factor: [[0.]] @ [[nan, inf]] gives [[0., 0.]] where IEEE (and torch) give
# nan. Such products (inner size 1, one side 1x1) take matmul; the test costs the common case
# one comparison (the inner size).
_DOT_MAX = 1 << 20

# NOTE [ Batched products with a transposed right operand ]
# OpenBLAS runs a small GEMM whose right operand is transposed (q @ k.transpose(-2, -1),
# grad @ v.transpose(-2, -1) in attention) at about half the speed of one with a row-major
# operand, on two threads even slower: the attention block's (32, 64, 128) @ (32, 128, 64)
# took 0.52 ms, 0.35 ms with k copied row-major first (float32, best of 8, both of its products
# so: -0.36 ms a step). NumPy runs a batch as one GEMM per matrix, so a batched product with
# such an operand and matrices of at most _SMALL_NT_MAX multiply-adds copies it first; bigger
# matrices (where the copy costs more than it saves: (8, 256, 256) 1.2x slower) and 2-D
# products (one big GEMM, no difference) are left as they are.
_SMALL_NT_MAX = 1 << 19


def _product(xp, ad, bd, ta, tb):
    """op(ad) @ op(bd) of arrays (op: a transpose of the last two dims where the flag is set),
    in ad's dtype."""
    dt = ad.dtype
    # (blas_ready holds for small operands: the common small product makes no call for it)
    if (ad.size >= _BLAS_COPY_MIN or bd.size >= _BLAS_COPY_MIN) and not (
        blas_ready(ad) and blas_ready(bd)
    ):
        return _strided_product(xp, ad, bd, ta, tb)
    matrices = ad.ndim == 2 and bd.ndim == 2  # (a layer's product)
    if ta:  # _swap, inlined (.T for a matrix: no arguments to parse)
        ad = ad.T if matrices else ad.swapaxes(-1, -2)
    if tb:
        bd = bd.T if matrices else bd.swapaxes(-1, -2)
    if (
        matrices
        and dt.char in "fd"
        and ad.size * bd.shape[1] < _DOT_MAX
        and (ad.shape[1] != 1 or (ad.size != 1 and bd.size != 1))
    ):
        out = ad.dot(bd)  # NOTE [ Two entry points to one GEMM ]
    else:
        if (
            bd.ndim > 2
            and bd.strides[-2] == bd.itemsize
            and ad.shape[-2] * ad.shape[-1] * bd.shape[-1] <= _SMALL_NT_MAX
            and 0 not in bd.strides
            and bd.dtype.char in "fd"
            and on_host(xp)
        ):  # NOTE [ Batched products with a transposed right operand ]
            bd = xp.ascontiguousarray(bd)
        out = xp.matmul(ad, bd)
        if out.ndim > 2:  # NumPy lays a batch out like its operands; torch's bmm row-major
            out = xp.ascontiguousarray(out)
    # NumPy's matmul of bfloat16 and float8 (ml_dtypes) arrays returns float32: keep the input's
    # dtype, rounded as torch casts (float8_e4m3fn saturates: NOTE [ Float8 dtypes ])
    if out.dtype is dt or out.dtype == dt:
        return out
    return _dtype.via_float32(out, dt).astype(dt, copy=False)


# NOTE [ Saved operands of products ]
# torch's MmBackward0 / AddmmBackward0 save each operand for the other's gradient (None where
# that one needs none), both operands' sizes, and the strides of each operand that needs a
# gradient (() otherwise): grad_fn._saved_self / _saved_mat2 / _saved_mat1 and their
# _sym_sizes / _sym_strides, which graph drawers list. minitorch's nodes save the same operands
# and keep the shapes of those needing a gradient (_in_meta): product_attrs reads the answers
# from these, recording nothing more at forward. Where neither tells (the strides of an operand
# that is not saved, or any after a backward freed the graph) the strides are a dense
# operand's in the product's usual layout; a shape that neither tells raises the freed-graph
# error (a backward freed it) or, with only a bias needing a gradient, is None.


def product_attrs(first: str, second: str, at: int, layout=None) -> dict:
    """_saved_attrs entries for a product's two operands and their sizes and strides, named
    `first` and `second` as torch names them, saved (or None) at 0 and 1 and input `at` and
    `at + 1` of the node. `layout(node)`: whether each operand is column-major when not saved
    (default: the node's ctx.cols, else row-major). See NOTE [ Saved operands of products ]."""

    def operand(node, k):
        if node._saved is _FREED:
            return None
        try:
            return node._stored_tensors[k]
        except RuntimeError:  # changed in place since: the shapes are read where they are kept
            return None

    def sizes(k):
        def read(node):
            meta = node._in_meta[at + k]
            if meta is not None:
                return tuple(meta[0])
            t = operand(node, k)
            if t is None and node._saved is _FREED:
                Node.saved_tensors.fget(node)  # raises torch's freed-graph error
            return None if t is None else tuple(t._data.shape)

        return read

    def strides(k):
        def read(node):
            meta = node._in_meta[at + k]
            if meta is None:
                return ()
            t = operand(node, k)
            if t is not None:
                return t.stride()
            rows, cols = meta[0]
            col = (layout or _saved_layout)(node)[k]
            return (1, rows) if col else (cols, 1)

        return read

    return {
        first: saved_operand(0, at),
        second: saved_operand(1, at),
        f"{first}_sym_sizes": sizes(0),
        f"{first}_sym_strides": strides(0),
        f"{second}_sym_sizes": sizes(1),
        f"{second}_sym_strides": strides(1),
    }


def saved_operand(k: int, at: int = 0):
    """A _saved_attrs entry: a product's operand k (of two, saved at 0 and 1, inputs `at` and
    `at + 1` of the node), which its node keeps for the other's gradient only: None where the
    other needs none, even after a backward freed the graph, as torch's."""

    def read(node):
        if node._in_meta[at + 1 - k] is None:
            return None
        return node._stored_tensors[k]  # (torch's errors once freed or changed in place)

    return read


def _saved_layout(node) -> tuple:
    return node.cols


Mm._saved_names = ("self", "mat2")  # grad_fn._saved_self, ... (as torch's MmBackward0)
Mm._saved_attrs = product_attrs("self", "mat2", 0)


class Bmm(Mm):
    _saved_shown = {"BmmBackward0": ("self", "mat2")}  # (torch's keeps no sizes)


# NOTE [ Ops that save views ]
# torch's matmul (batched) and einsum expand, permute or reshape their operands before the bmm
# and save those views, not the operands. A view whose base changes in place is regenerated as
# an as_strided of it, so the error of a backward that finds a saved operand modified names
# "output 0 of AsStrided" where minitorch's node saved the operand itself: a Function with
# `_saves_views = True` has its modified inputs described so (autograd.function._raise_modified).


class BatchedMatmul(Mm):
    # torch reshapes a broadcast batched matmul into bmm and back: its node is the final view.
    _node_name = "UnsafeViewBackward0"
    _saves_views = True  # See NOTE [ Ops that save views ]
    _saved_shown = {"UnsafeViewBackward0": ()}  # (torch's saves the bmm's result sizes)


class Mv(Function):
    """out = op(m) @ v;  grad_m = outer(grad, v) (or its transpose),  grad_v = op(m)^T @ grad"""

    _saved_names = ("self", "vec")  # grad_fn._saved_self, _saved_vec (as torch's)
    _saved_attrs = {"self": saved_operand(0), "vec": saved_operand(1)}

    @staticmethod
    def forward(ctx, m, v, *, ta=False):
        needs = ctx.needs_input_grad  # each kept only for the other's gradient, as torch
        ctx.save_for_backward(m if needs[1] else None, v if needs[0] else None)
        ctx.ta = ta
        out = ctx.xp.matmul(_swap(ctx.xp, m._data, ta), v._data)
        return out if out.dtype == m._data.dtype else out.astype(m._data.dtype)  # bfloat16

    @staticmethod
    def backward(ctx, grad):
        m, v = ctx._stored_tensors
        ta = ctx.ta
        gm = gv = None
        if ctx.needs_input_grad[0]:
            gm = _outer(v, grad) if ta else _outer(grad, v)
        if ctx.needs_input_grad[1]:
            gv = Mv.apply(m, grad, ta=not ta)
        return gm, gv


def _outer(a: Tensor, b: Tensor) -> Tensor:
    return a.reshape((a._data.shape[0], 1)) * b  # b broadcasts as a row, as in torch's graph


class Dot(Function):
    """out = sum(a * b) over two vectors;  grad_a = grad * b,  grad_b = grad * a"""

    _saved_names = ("self", "tensor")  # grad_fn._saved_self, _saved_tensor (as torch)
    _saved_shown = {"VdotBackward0": ()}  # (torch's vdot names them self and other)

    @staticmethod
    def forward(ctx, a, b):
        needs = ctx.needs_input_grad  # each kept only for the other's gradient, as torch
        ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        return ctx.xp.asarray(ctx.xp.dot(a._data, b._data))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx._stored_tensors
        return (
            grad * b if ctx.needs_input_grad[0] else None,
            grad * a if ctx.needs_input_grad[1] else None,
        )


# --- matmul and its special cases ---


def _check_dot(a, b, op="dot", out=None):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if out is not None and out.dtype is not a.dtype:  # torch checks out= before the operands
        raise _out_dtype_error("dot", a.dtype, out.dtype)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"{op} : expected both vectors to have same dtype, but found {_short(a.dtype)} and "
            f"{_short(b.dtype)}"
        )
    n, m = a._data.shape[0], b._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    _no_bool(a, "dot")


# The product checks speak in torch's order: the shapes, then an out= of another dtype, then
# operands of different dtypes (dot alone checks out= and the dtypes before the sizes).


def _check_mm(a_shape, b_shape, a: Tensor, b: Tensor, out=None):
    """2-d product checks; the shapes are the (possibly folded) matrices torch would report."""
    if a_shape[-1] != b_shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_dims_str(a_shape)} and "
            f"{_dims_str(b_shape)})"
        )
    if out is not None and out.dtype is not a.dtype:
        raise _dtype.out_dtype_error(a.dtype, out.dtype)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_ctype(a.dtype)} != "
            f"{_ctype(b.dtype)}"
        )
    if a._data.dtype.kind == "b" and a._data.size and b._data.size:  # (one dtype: see above)
        # (torch's kernel returns an empty product, or zeros for an inner size of 0, before
        # its dispatch on the dtype)
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _check_mv_dtype(first: Tensor, second: Tensor):
    """torch's message names (second, first, second) for matmul(first, second) of a vector."""
    if first._data.dtype != second._data.dtype:
        x, y = _short(second.dtype), _short(first.dtype)
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {x}, {y}, and {x}"
        )


def _check_mv(m_shape, v: Tensor, m: Tensor, out=None):
    if m_shape[1] != v._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({m_shape[0]}), mat ({_dims_str(m_shape)}), vec "
            f"({v._data.shape[0]})"
        )
    if out is None:
        _check_mv_dtype(m, v)
    elif not out.dtype is m.dtype is v.dtype:  # out= stands where the (empty) input would
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_short(out.dtype)}, "
            f"{_short(m.dtype)}, and {_short(v.dtype)}"
        )
    if m._data.dtype.kind == "b" and m._data.size:  # (an empty matrix: torch's shortcut first)
        raise NotImplementedError("\"addmv_impl_cpu\" not implemented for 'Bool'")


def folds_into_mm(a: Tensor, b: Tensor) -> bool:
    """Whether torch's matmul makes a batch of matrices a (3+ dims) times a matrix b one mm:
    when b requires grad, or when a's batch dims view as one matrix without a copy (F.linear
    and utils.flop_counter follow the same rule)."""
    x = a._data
    if b._requires_grad or x.flags.c_contiguous:  # (the common cases first)
        return True
    st, sh = x.strides, x.shape
    return x.size == 0 or all(st[i] == st[i + 1] * sh[i + 1] for i in range(x.ndim - 2))


BMM_GEMM_MIN = 400  # multiply-adds per product from which torch's CPU bmm runs its gemm path


def _bmm_by_gemm(a: Tensor, b: Tensor) -> bool:
    """Whether torch's CPU bmm takes its gemm path (BMM_GEMM_MIN multiply-adds per product and
    more) rather than its naive kernel."""
    sa, sb = a._data.shape, b._data.shape
    return sa[-2] * sa[-1] * sb[-1] >= BMM_GEMM_MIN


def bmm_dtype_error(a_dtype, b_dtype, by_gemm: bool, *, baddbmm=False) -> RuntimeError:
    """torch's CPU bmm error for batches of two dtypes: its naive kernel (dispatched on
    batch1's dtype) reads batch2; its gemm path (by_gemm, see _bmm_by_gemm) reads batch1 as
    batch2's float32/float64 dtype, or refuses any other batch2 as mm does (baddbmm in its own
    words)."""
    x, y = _short(a_dtype), _short(b_dtype)
    if not by_gemm:
        return RuntimeError(f"expected scalar type {x} but found {y}")
    if b_dtype in (_dtype.float32, _dtype.float64):
        return RuntimeError(f"expected scalar type {y} but found {x}")
    if baddbmm:
        return RuntimeError(f"mat1 and mat2 must have the same dtype, but got {x} and {y}")
    return RuntimeError(
        f"expected m1 and m2 to have the same dtype, but got: {_ctype(a_dtype)} != "
        f"{_ctype(b_dtype)}"
    )


def _check_bmm_dtype(a: Tensor, b: Tensor, *, baddbmm=False):
    if a._data.dtype != b._data.dtype:
        raise bmm_dtype_error(a.dtype, b.dtype, _bmm_by_gemm(a, b), baddbmm=baddbmm)


def _check_bmm(a: Tensor, b: Tensor, batch: int, out=None) -> Tensor:
    """bmm's checks; returns a, cast to b's dtype for an empty product of two dtypes (torch's
    kernel returns its empty or zero result, of batch2's dtype, before reading either)."""
    k = a._data.shape[-1]
    got = b._data.shape[-2]
    if k != got:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] but "
            f"got: [{batch}, {got}]."
        )
    if out is not None and out.dtype is not b.dtype:  # torch's batched out= follows batch2
        raise _dtype.out_dtype_error(b.dtype, out.dtype)
    if a._data.dtype != b._data.dtype:
        if batch * a._data.shape[-2] * b._data.shape[-1] * k == 0:
            return cast(a, b.dtype)
        by_gemm = _bmm_by_gemm(a, b)
        if not by_gemm:
            _no_bool(a, "bmm")  # (torch's naive kernel's dispatch on batch1's dtype speaks first)
        raise bmm_dtype_error(a.dtype, b.dtype, by_gemm)
    if a._data.dtype.kind == "b" and batch * a._data.shape[-2] * b._data.shape[-1] * k:
        raise _bool_bmm_error(a, b)
    return a


def _bool_bmm_error(a: Tensor, b: Tensor, op: str = "bmm") -> NotImplementedError:
    """torch's CPU bmm of bool batches (an empty product returns first): its naive kernel's
    dispatch under op's name, or its gemm path's per-batch addmm (see _bmm_by_gemm)."""
    kernel = "addmm_impl_cpu_" if _bmm_by_gemm(a, b) else op
    return NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# NOTE [ Products on the no-grad fast path ]
# matmul (of two matrices, a matrix and a vector, a vector and a matrix, a contiguous batch and
# a matrix, two batches of one size), mm, bmm and addmm (beta = alpha = 1, a bias of the
# result's shape or of one row) of plain CPU float32 or float64 tensors of one dtype, where
# nothing is recorded (NOTE [ The no-grad fast path ] in minitorch/autograd/function.py), skip
# the checks and Function.apply: _plain_product computes what the full path's forwards compute
# on the same arrays (the same views of them, for the folds), after cheap tests that stand for
# the full path's checks, and returns None for anything else, which takes the full path (to its
# result or its error). A small 2-D product calls `dot` itself, under _product's own test (NOTE
# [ Two entry points to one GEMM ]). A FlopCounterMode pauses the fast paths while it counts
# the products through Mm.forward (NOTE [ Counting FLOPs without a dispatcher ]). Where a node
# is recorded, matmul (of two matrices, or a matrix and a vector) and mm of such tensors skip
# their checks the same way; a product of two matrices then makes its node with record_pair
# (_recorded_mm: NOTE [ The recorded fast path ] in minitorch/autograd/function.py), a matrix
# and a vector call Mv.apply at once. On (32, 32) float32: x @ w 2.9 -> 1.7 us (torch 1.65),
# addmm 13.6 -> 3.8 us (torch 2.3-4.8).


def _plain_mm_operands(a, b) -> bool:
    """Whether the arrays a and b are matrices that mm's checks (_check_mm) pass: float32 or
    float64 of one dtype, a's columns as many as b's rows."""
    dt = a.dtype
    return (
        a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and b.dtype is dt
        and dt.char in "fd"
    )  # fmt: skip


def _plain_product(a, b):
    """The result of matmul(a, b) for the arrays of two plain CPU tensors with nothing to record,
    as a new tensor, or None where the full path must run: NOTE [ Products on the no-grad fast
    path ]."""
    dt = a.dtype
    if b.dtype is not dt or dt.char not in "fd":
        return None
    sa, sb = a.shape, b.shape
    if len(sa) == 2 and len(sb) == 2:
        n = sb[0]
        if sa[1] != n:
            return None
        m = sa[0] * n  # a.size
        if m < _BLAS_COPY_MIN and n * sb[1] < _BLAS_COPY_MIN and m * sb[1] < _DOT_MAX and n != 1:
            return plain_result(a.dot(b), _CPU)  # as _product would (the common small product)
        return plain_result(_product(_CPU_XP, a, b, False, False), _CPU)
    if len(sb) == 1:
        if len(sa) == 2 and sa[1] == sb[0]:
            return plain_result(_CPU_XP.matmul(a, b), _CPU)  # Mv.forward's product
        return None
    if len(sa) == 1:
        if len(sb) == 2 and sa[0] == sb[0] and sa[0] and a.flags.c_contiguous:
            # matmul's vector as a row (unsqueeze's view), mm, the row squeezed in place (at
            # version 1): NOTE [ matmul results are not views ]
            out = _product(_CPU_XP, a.reshape((1, sa[0])), b, False, False)
            result = plain_result(_CPU_XP.ascontiguousarray(out).reshape(sb[1:]), _CPU)
            result._vc[0] += 1
            return result
        return None
    if len(sa) == 3:
        if len(sb) == 3 and sa[0] == sb[0] and sa[2] == sb[1]:  # bmm's product
            return plain_result(_product(_CPU_XP, a, b, False, False), _CPU)
        if len(sb) == 2 and sa[2] == sb[0] and a.flags.c_contiguous:
            # matmul's fold of a's batch into one matrix (a view), mm, and the product reshaped
            out = _product(_CPU_XP, a.reshape((sa[0] * sa[1], sa[2])), b, False, False)
            return plain_result(_CPU_XP.ascontiguousarray(out).reshape(sa[:2] + sb[1:]), _CPU)
    return None


def _recorded_mm(input, other, a, b):
    """Mm.apply(input, other) for plain CPU matrices a and b of one float dtype, mm's checks
    passed, a node recorded and no saved-tensor hooks: NOTE [ The recorded fast path ] in
    minitorch/autograd/function.py. The product of Mm.forward (`dot` where _product calls it,
    under _plain_product's test), each operand saved for the other's gradient, and the
    attributes Mm.forward sets on its node."""
    n, k = b.shape
    m = a.size
    if m < _BLAS_COPY_MIN and n * k < _BLAS_COPY_MIN and m * k < _DOT_MAX and n != 1:
        out = a.dot(b)
    else:
        out = _product(_CPU_XP, a, b, False, False)
    result = record_pair(Mm, out, input, other, other._requires_grad, input._requires_grad)
    sa, sb = a.strides, b.strides
    if sa[0] < sa[1] or sb[0] < sb[1]:  # (as Mm.forward: NOTE [ Gradient layout in mm ])
        result._grad_fn.cols = _column_majors(a, b)
    return result


# NOTE [ matmul results are not views ]
# torch's matmul reshapes its operands into an mm or bmm and the product back with
# _unsafe_view: the result is a tensor of its own (no `_base`), whose node is
# UnsafeViewBackward0. An in-place op on it then records its own node (x @ w).relu_() ->
# ReluBackward0, where a view's would be AsStridedBackward0. Reshape is that op here: the
# product is a fresh contiguous array, so it reshapes without a copy.


class SqueezeRow(Reshape):
    """The row of (1, m) mm result dropped: torch's squeeze_(0) of a 1-d @ 2-d matmul's (and a
    1-d input's linear's) product, so its node is SqueezeBackward4 with _saved_dim 0."""

    _node_name = "SqueezeBackward4"
    _saved_attrs = {**Reshape._saved_attrs, "dim": lambda node: 0}  # (as torch's)


def matmul(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Matrix product with torch's 1-d and batched broadcasting rules. Mirrors torch.matmul."""
    if (  # two plain tensors: NOTE [ Products on the no-grad fast path ]
        other.__class__ is Tensor
        and input.__class__ is Tensor
        and out is None
        and not extra
        and not _autocast.state.any_enabled
    ):
        if (  # NOTE [ The no-grad fast path ] in minitorch/autograd/function.py
            not ((input._requires_grad or other._requires_grad) and _grad_state.enabled)
            and input._device is _CPU
            and other._device is _CPU
            and fast_path[0]
        ):
            result = _plain_product(input._data, other._data)
            if result is not None:
                return result
        else:  # a node to record (or another device, or a profile): mm's or mv's checks pass
            a, b = input._data, other._data
            sb = b.shape
            if a.ndim == 2 and 0 < len(sb) < 3 and a.shape[1] == sb[0]:
                dt = a.dtype
                if b.dtype is dt and dt.char in "fd":  # (see _plain_mm_operands)
                    if (  # (a node to record, then: the else of the test above)
                        len(sb) == 2
                        and input._device is _CPU
                        and other._device is _CPU
                        and fast_path[0]
                    ):
                        return _recorded_mm(input, other, a, b)
                    return (Mm if len(sb) == 2 else Mv).apply(input, other)
    if extra or input is REQUIRED or other is REQUIRED:
        raise arity_error("matmul", extra, 2, input=input, other=other)
    if _autocast.state.any_enabled:
        return _autocast.call(matmul, _autocast.LOWER, (input, other), {"out": out})
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        _require_tensor(input, "matmul", "input", 1)
        _require_tensor(other, "matmul", "other", 2)
    sa, sb = input._data.shape, other._data.shape
    da, db = len(sa), len(sb)
    if da == 2 and db == 2 and out is None:  # the common case: mm's checks, once
        _check_mm(sa, sb, input, other)
        return Mm.apply(input, other)
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if out is not None:
        _check_matmul_out(input, other, out)
    elif da == 3 and db == 3 and (sa[0] == 1) != (sb[0] == 1):
        # torch 2.13 drops the batch dim of a single-batch operand that requires grad, so that
        # the product folds into one mm (its gradient is then one product, not a batch summed)
        if sa[0] == 1 and input.requires_grad:
            return matmul(input.squeeze(0), other)
        if sb[0] == 1 and other.requires_grad:
            return matmul(input, other.squeeze(0))
    if da == 1 and db == 1:
        result = dot(input, other, out=out)
    elif da == 2 and db == 1:
        result = mv(input, other, out=out)
    elif da == 1 and db == 2:
        _check_mm((1, sa[0]), sb, input, other, out)
        # torch's graph: the vector unsqueezed into a row, mm, the row squeezed in place (a
        # tensor of its own, at version 1). See NOTE [ matmul results are not views ].
        result = Mm.apply(input.unsqueeze(0), other)
        result = SqueezeRow.apply(result, shape=sb[1:])
        result._vc[0] += 1
    elif da == 2 and db == 2:
        result = mm(input, other, out=out)
    elif db <= 2 and da >= 3 and folds_into_mm(input, other):
        # torch folds the batch into one matrix: view (a copy when only the matrix requires
        # grad), mm (or mv), view
        folded = (_prod(sa[:-1]), sa[-1])
        if db == 1:
            try:
                _check_mv(folded, other, input, out)
            except RuntimeError:  # See NOTE [ Folds NumPy calls contiguous ]
                if torch_folds(input, other):
                    raise
                return _unfolded(input, other, out, "mv")
            result = Reshape.apply(Mv.apply(input.reshape(folded), other), shape=sa[:-1])
        else:
            try:
                _check_mm(folded, sb, input, other, out)
            except RuntimeError:
                if torch_folds(input, other):
                    raise
                return _unfolded(input, other, out, "gemm")
            result = Mm.apply(input.reshape(folded), other)
            result = Reshape.apply(result, shape=sa[:-1] + sb[1:])
    elif da == 1 and db >= 3 and out is None and folds_into_mm(other.mT, input):
        # the same fold with the operands swapped: other^T folded into one matrix, one mv
        # (so a length mismatch is mv's "size mismatch" error, as in torch)
        ot = other.mT
        folded = (_prod(ot._data.shape[:-1]), sb[-2])
        try:
            _check_mv(folded, input, other)
        except RuntimeError:
            if torch_folds(ot, input):
                raise
            return _unfolded(input, other, out, "gemm")
        result = Reshape.apply(Mv.apply(ot.reshape(folded), input), shape=sb[:-2] + sb[-1:])
    elif da == 2 and input.requires_grad and out is None:
        # torch folds the batch into one mm when the matrix requires grad (its gradient is then
        # one product, not a batch to sum): (other^T folded @ input^T)^T, made contiguous
        folded = other.mT.reshape(_prod(sb[:-2]) * sb[-1], sb[-2])
        _check_mm(folded._data.shape, sa[::-1], other, input)
        result = Mm.apply(folded, input.t())
        result = name_node(result.reshape(sb[:-2] + (sb[-1], sa[0])), "UnsafeViewBackward0")
        result = result.mT.contiguous()
    else:
        result = _batched_matmul(input, other, out)
    if out is not None:
        return _write(result, out, "dot" if da == db == 1 else "mv" if db == 1 else "gemm")
    return result


# NOTE [ Folds NumPy calls contiguous ]
# folds_into_mm takes an array NumPy flags C-contiguous as one that folds, but NumPy's flag
# ignores the strides of size-1 dims where torch's test reads them: (2, 4, 1).mT (strides
# (4, 1, 1)) folds here, while torch runs a bmm. The result is the same; the errors are not (mm's
# or mv's shapes and dtypes against bmm's). So where a fold's checks fail, torch_folds asks
# torch's own question, and a batch torch would not fold raises (or returns) as the bmm path
# does: the common path pays nothing.


def torch_folds(a: Tensor, b: Tensor) -> bool:
    """folds_into_mm with torch's test of the strides alone (each batch dim's stride, size-1
    dims' included, the next one's times its size): see NOTE [ Folds NumPy calls contiguous ]."""
    x = a._data
    if b._requires_grad or x.size == 0:
        return True
    st, sh = x.strides, x.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(x.ndim - 2))


def _unfolded(input: Tensor, other: Tensor, out, product: str) -> Tensor:
    """matmul of a batch torch does not fold (NOTE [ Folds NumPy calls contiguous ]): bmm."""
    result = _batched_matmul(input, other, out)
    return result if out is None else _write(result, out, product)


def _check_matmul_out(input: Tensor, other: Tensor, out) -> None:
    """matmul's out= refusals that come before its shape and dtype checks."""
    from minitorch._ops.inplace import check_out

    check_out(out, "matmul", input, other)


def _batched_matmul(a: Tensor, b: Tensor, out=None) -> Tensor:
    """At least one operand has 3+ dims and the other 1+: broadcast the batch dims, then bmm."""
    sa, sb = a._data.shape, b._data.shape
    vec_a, vec_b = a.ndim == 1, b.ndim == 1
    if vec_a:
        a = a.reshape((1, sa[0]))
    if vec_b:
        b = b.reshape((sb[0], 1))
    batch = broadcast_pair(a._data.shape[:-2], b._data.shape[:-2])
    a = _check_bmm(a, b, _prod(batch), out)
    result = BatchedMatmul.apply(a, b)
    shape = result._data.shape
    if vec_a:  # See NOTE [ matmul results are not views ]
        result = Reshape.apply(result, shape=shape[:-2] + shape[-1:])
    elif vec_b:
        result = Reshape.apply(result, shape=shape[:-1])
    return result


_MM_FORMS = (
    "Tensor input, Tensor mat2, *, Tensor out = None",
    "Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None",
)


def _mm_arity_error(op, input, mat2, extra):
    """torch's TypeError for mm/bmm given too few or too many positional arguments (two
    overloads: its parser lists both). See NOTE [ Argument parser errors ]."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments

    given = tuple(v for v in (input, mat2) if v is not REQUIRED) + extra
    call = call_arguments(op)
    if call is None:  # (keywords unknown: the arguments given, as positional ones)
        return invalid_arguments(op, _MM_FORMS, given, {})
    n, names = call
    values = {"input": input, "mat2": mat2}
    kwargs = {k: values[k] for k in reversed(names) if k in values}
    return invalid_arguments(op, _MM_FORMS, (input, mat2, *extra)[:n], kwargs)


def mm(input=REQUIRED, mat2=REQUIRED, *extra, out=None):
    """2-d matrix product. Mirrors torch.mm."""
    if (  # two plain tensors: NOTE [ Products on the no-grad fast path ]
        mat2.__class__ is Tensor
        and input.__class__ is Tensor
        and out is None
        and not extra
        and not _autocast.state.any_enabled
        and _plain_mm_operands(input._data, mat2._data)
    ):
        if (  # NOTE [ The no-grad fast path ] in minitorch/autograd/function.py
            not ((input._requires_grad or mat2._requires_grad) and _grad_state.enabled)
            and input._device is _CPU
            and mat2._device is _CPU
            and fast_path[0]
        ):
            return _plain_product(input._data, mat2._data)
        if (  # (a node to record, then: the else of the test above)
            input._device is _CPU
            and mat2._device is _CPU
            and fast_path[0]
        ):
            return _recorded_mm(input, mat2, input._data, mat2._data)
        return Mm.apply(input, mat2)
    if mat2 is REQUIRED or input is REQUIRED or extra:
        raise _mm_arity_error("mm", input, mat2, extra)
    if _autocast.state.any_enabled:
        return _autocast.call(mm, _autocast.LOWER, (input, mat2), {"out": out})
    _require_tensor(input, "mm", "input", 1)
    _require_tensor(mat2, "mm", "mat2", 2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input._data.shape, mat2._data.shape, input, mat2, _out_tensor(out))
    return _write(Mm.apply(input, mat2), out, "gemm")


def bmm(input=REQUIRED, mat2=REQUIRED, *extra, out=None):
    """Batched 3-d matrix product with equal batch sizes. Mirrors torch.bmm."""
    if (  # NOTE [ The no-grad fast path ]: see NOTE [ Products on the no-grad fast path ]
        mat2.__class__ is Tensor
        and input.__class__ is Tensor
        and input._device is _CPU
        and mat2._device is _CPU
        and out is None
        and not extra
        and not ((input._requires_grad or mat2._requires_grad) and _grad_state.enabled)
        and fast_path[0]
        and not _autocast.state.any_enabled
        and input._data.ndim == 3
        and mat2._data.ndim == 3
    ):
        result = _plain_product(input._data, mat2._data)
        if result is not None:
            return result
    if mat2 is REQUIRED or input is REQUIRED or extra:
        raise _mm_arity_error("bmm", input, mat2, extra)
    if _autocast.state.any_enabled:
        return _autocast.call(bmm, _autocast.LOWER, (input, mat2), {"out": out})
    _require_tensor(input, "bmm", "input", 1)
    _require_tensor(mat2, "bmm", "mat2", 2)
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    sa, sb = input._data.shape, mat2._data.shape
    if sa[0] != sb[0] or sa[2] != sb[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[2]}] "
            f"but got: [{sb[0]}, {sb[1]}]."
        )
    input = _check_bmm(input, mat2, sa[0], _out_tensor(out))
    return _write(Bmm.apply(input, mat2), out, "gemm")


def mv(input=REQUIRED, vec=REQUIRED, *extra, out=None):
    """Matrix-vector product. Mirrors torch.mv."""
    if extra or input is REQUIRED or vec is REQUIRED:
        raise arity_error("mv", extra, 2, input=input, vec=vec)
    if _autocast.state.any_enabled:
        return _autocast.call(mv, _autocast.LOWER_CUDA, (input, vec), {"out": out})
    _require_tensor(input, "mv", "input", 1)
    _require_tensor(vec, "mv", "vec", 2)
    if input.ndim != 2 or vec.ndim != 1:
        if not input.ndim:  # torch sizes its result by input.size(0) first
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _check_mv(input._data.shape, vec, input, _out_tensor(out))
    return _write(Mv.apply(input, vec), out, "mv")


def dot(input=REQUIRED, tensor=REQUIRED, *extra, out=None):
    """Inner product of two 1-d tensors. Mirrors torch.dot."""
    if extra or input is REQUIRED or tensor is REQUIRED:
        raise arity_error("dot", extra, 2, input=input, tensor=tensor)
    _require_tensor(input, "dot", "input", 1)
    _require_tensor(tensor, "dot", "tensor", 2)
    _check_dot(input, tensor, out=_out_tensor(out))
    return _write(Dot.apply(input, tensor), out, "dot")


def vdot(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """dot with the first argument conjugated (real tensors: dot). Mirrors torch.vdot."""
    if extra or input is REQUIRED or other is REQUIRED:
        raise arity_error("vdot", extra, 2, input=input, other=other)
    _require_tensor(input, "vdot", "input", 1)
    _require_tensor(other, "vdot", "other", 2)
    _check_dot(input, other, "dot", _out_tensor(out))  # (torch names dot)
    return _write(Vdot.apply(input, other), out, "dot")


class Vdot(Dot):
    """vdot of real tensors: dot (the conjugation does nothing), under torch's node name"""

    _node_name = "VdotBackward0"


def _out_tensor(out):
    """out= when it is a tensor (the product checks read its dtype), else None: _write refuses
    anything else."""
    return out if isinstance(out, Tensor) else None


def _write(result, out, product=None):
    """result written into out= when given. A product (`product`: "gemm", "mv" or "dot") refuses
    an out of another dtype with torch's message, where other ops cast into it."""
    if out is None:
        return result
    if product is not None and isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise _out_dtype_error(product, result.dtype, out.dtype)
    from minitorch._ops.inplace import write_out

    return write_out(out, result)


def _out_dtype_error(product, dt, out_dt) -> RuntimeError:
    if product == "dot":
        return RuntimeError(
            f"result dtype {_short(out_dt)} does not match input dtype {_short(dt)}"
        )
    if product == "mv":
        return RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_short(out_dt)}, "
            f"{_short(dt)}, and {_short(dt)}"
        )
    return _dtype.out_dtype_error(dt, out_dt)


# --- products built on the kernels ---


def _outer_named(op: str):
    """outer under the name `op` (outer, or its alias ger), which its argument errors carry, as
    torch's do (x.ger("a")), at outer's cost."""

    def outer(input=REQUIRED, vec2=REQUIRED, *extra, out=None):
        if (
            vec2.__class__ is Tensor
            and input.__class__ is Tensor
            and input._device is _CPU
            and vec2._device is _CPU
            and out is None
            and not extra
            and not ((input._requires_grad or vec2._requires_grad) and _grad_state.enabled)
            and fast_path[0]
        ):  # NOTE [ The no-grad fast path ]: _outer's reshape and product, on the arrays
            # (float32/float64 vectors of one dtype: outer of two (4,) 3.9 -> 1.4 us)
            x, y = input._data, vec2._data
            if x.dtype is y.dtype and x.dtype.char in "fd" and x.ndim == 1 and y.ndim == 1:
                return plain_result(x.reshape(x.shape[0], 1) * y, _CPU)
        if extra or input is REQUIRED or vec2 is REQUIRED:
            if extra and _called_as_method(op):  # x.ger(v, 1): torch counts without self
                raise too_many_positional(op, 1 + len(extra), 1)
            raise arity_error(op, extra, 2, input=input, vec2=vec2)
        _require_tensor(input, op, "input", 1)
        _require_tensor(vec2, op, "vec2", 2)
        for name, v in (("self", input), ("vec2", vec2)):
            if v.ndim != 1:
                raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
        from minitorch._ops.inplace import check_out_overlap

        result = _outer(input, vec2)
        check_out_overlap(out, input, vec2)
        return _write(result, out)

    outer.__name__ = outer.__qualname__ = op
    outer.__doc__ = f"Outer product of two vectors. Mirrors torch.{op}."
    return outer


outer = _outer_named("outer")
ger = _outer_named("ger")


def inner(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Sum-product over the last dims (a scalar times a tensor for 0-d). Mirrors torch.inner."""
    if extra or input is REQUIRED or other is REQUIRED:
        raise arity_error("inner", extra, 2, input=input, other=other)
    _require_tensor(input, "inner", "input", 1)
    _require_tensor(other, "inner", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return _write(input * other, out)
    if _autocast.state.any_enabled:  # torch's inner is a tensordot (a mul for 0-d, above)
        return _autocast.call(inner, _autocast.LOWER_SAME, (input, other), {"out": out})
    sa, sb = input._data.shape, other._data.shape
    if sa[-1] != sb[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(sa)} and {list(sb)}"
        )
    # tensordot's out= (its dtype check and message), and its bool refusal
    return tensordot(input, other, dims=([-1], [-1]), out=out)


# NOTE [ Deprecated add*mm overloads ]
# torch still takes the pre-1.0 spellings with the scalars first, with a deprecation warning:
# torch.addmm(beta, M, alpha, m1, m2), torch.addmm(beta, M, m1, m2) and the methods'
# M.addmm_(beta, alpha, m1, m2), M.addmm_(beta, m1, m2) (old optimizers and tutorials), for
# addmm, addmv, addr, addbmm, baddbmm and their in-place forms. The modern signature takes
# exactly three tensors, so these arrive as extra positional arguments: the functions and methods
# take `*args` and turn to _beta_alpha_first (minitorch/_tensor_methods.py) only when it is not
# empty, leaving the ordinary call one truth test.


def _deprecated_overload(op, args, beta, alpha):
    """The function form's tensors, beta and alpha: See NOTE [ Deprecated add*mm overloads ]."""
    from minitorch._tensor_methods import _beta_alpha_first

    return _beta_alpha_first(op, args, beta, alpha, method=False)


def check_scalars(op: str, beta, alpha, out=None, names=None) -> None:
    """torch's argument parser on the add*mm family's beta and alpha: each a Number (a Python or
    NumPy number, or a 0-d tensor that does not require grad, which it reads as one). names: the
    matrix arguments of a function with torch's out_dtype overload too (addmm, baddbmm), whose
    refusal lists both overloads; else the argument is named."""
    for name, v in (("beta", beta), ("alpha", alpha)):
        if is_scalar_arg(v):
            continue
        if names is None:
            raise TypeError(f"{op}(): argument '{name}' must be Number, not {type_name(v)}")
        given = {"beta": beta, "alpha": alpha, "out": out}
        got = ["Tensor"] * 3 + [
            f"{k}={type_name(given[k])}"
            for k in sorted(given)
            if given[k] is not (None if k == "out" else 1)
        ]
        a, b = names
        tail = "*, Number beta = 1, Number alpha = 1, Tensor out = None"
        raise no_overload(
            op,
            ", ".join(got),
            (
                f"Tensor input, Tensor {a}, Tensor {b}, {tail}",
                f"Tensor input, Tensor {a}, Tensor {b}, torch.dtype out_dtype, {tail}",
            ),
        )


def _scaled_sum(input, product, beta, alpha, op):
    """beta * input + alpha * product, input broadcast to product's shape (ignored if beta == 0)."""
    shape = product._data.shape
    si = input._data.shape
    if si != shape and not _expands_to(si, shape):
        input.expand(shape)  # torch's broadcast error, naming both shapes
    if product._data.dtype.kind in "iu":  # torch casts the scalars to the integer type
        beta, alpha = int(beta), int(alpha)
    if alpha == 0 and op != "baddbmm":
        # torch's GEMV/GEMM call skips the product when alpha is 0, so a NaN or inf in the
        # matrices does not reach the result (0 * nan would); its baddbmm multiplies through
        from minitorch._ops.pointwise import where

        product = where(product.new_zeros((), dtype=_dtype.bool), product, product.new_zeros(()))
    elif alpha != 1:
        product = product * alpha
    if beta == 0:
        if input.requires_grad:  # input's values are ignored, but it gets torch's zero gradient
            from minitorch._ops.pointwise import where

            return where(input.new_zeros((), dtype=_dtype.bool), input, product)
        return product
    if beta != 1:
        input = input * beta
    return input + product


def _expands_to(si, shape) -> bool:
    """Whether a tensor of shape si expands to `shape` (tested, not expanded: an expand would
    record a node for nothing)."""
    n = len(shape) - len(si)
    if n < 0:
        return False
    for k, s in enumerate(si, n):
        if s != 1 and s != shape[k]:
            return False
    return True


_NARROW_FLOATS = frozenset(_dtype.HALF_FLOATS + _dtype.FLOAT8)


def _in_float32(fn, args, beta, alpha, out):
    """fn(*args) on float32 copies when all three operands share a half-precision (or float8)
    dtype, rounded once into it (and written to out), else None: torch computes beta * input +
    alpha * product in float32 (rounding the product first loses the digits that the sum
    cancels)."""
    dt = getattr(args[0], "dtype", None)
    if dt not in _NARROW_FLOATS or any(getattr(t, "dtype", None) is not dt for t in args):
        return None
    r = fn(*(t.float() for t in args), beta=beta, alpha=alpha)
    return _write(r.to(dt), out)


def _check_addmm_dtypes(input, mat1, mat2):
    """torch's addmm / addbmm dtype checks, in its order: self against mat2, then the mats. (Also
    linear with a bias, which torch runs as addmm(bias, input, weight.T).) A meta tensor meeting
    another device in self and mat1 is refused first, naming mat1's device as the expected one."""
    if input._device is not mat1._device and "meta" in (input._device.type, mat1._device.type):
        from minitorch._backend.meta import device_mismatch

        raise device_mismatch(mat1._device, input._device)
    dt = mat2.dtype
    if input.dtype is not dt:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {_short(input.dtype)} and "
            f"{_short(dt)}"
        )
    if mat1.dtype is not dt:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {_short(mat1.dtype)} and {_short(dt)}"
        )


def addmm(input, mat1, mat2, *args, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat1 @ mat2). Mirrors torch.addmm."""
    if (  # NOTE [ The no-grad fast path ]: see NOTE [ Products on the no-grad fast path ]
        beta is _ONE
        and alpha is _ONE
        and out is None
        and not args
        and input.__class__ is Tensor
        and input._device is _CPU
        and not (input._requires_grad and _grad_state.enabled)
        and mat1.__class__ is Tensor
        and mat2.__class__ is Tensor
        and mat1._device is _CPU
        and mat2._device is _CPU
        and not ((mat1._requires_grad or mat2._requires_grad) and _grad_state.enabled)
        and fast_path[0]
        and not _autocast.state.any_enabled
        and mat1._data.ndim == 2
        and mat2._data.ndim == 2
    ):
        bias = input._data
        product = _plain_product(mat1._data, mat2._data)
        if product is not None and bias.dtype is mat1._data.dtype:
            p = product._data
            if bias.shape == p.shape or bias.shape == p.shape[1:]:  # (it broadcasts as one row)
                return plain_result(bias + p, _CPU)  # _scaled_sum's input + product
    if args:  # See NOTE [ Deprecated add*mm overloads ]
        tensors = (input, mat1, mat2, *args)
        (input, mat1, mat2), beta, alpha = _deprecated_overload("addmm", tensors, beta, alpha)
    check_scalars("addmm", beta, alpha, out, ("mat1", "mat2"))
    if _autocast.state.any_enabled:
        kw = {"beta": beta, "alpha": alpha, "out": out}
        return _autocast.call(addmm, _autocast.LOWER, (input, mat1, mat2), kw)
    _require_tensors("addmm", _MM_NAMES, (input, mat1, mat2))
    _check_addmm_dtypes(input, mat1, mat2)
    if mat1._data.ndim != 2 or mat2._data.ndim != 2:  # before mm's "self" (not the bias)
        bad, m = ("mat1", mat1) if mat1._data.ndim != 2 else ("mat2", mat2)
        raise RuntimeError(f"{bad} must be a matrix, got {m._data.ndim}-D tensor")
    args = (input, mat1, mat2)
    r = _in_float32(addmm, args, beta, alpha, None)
    if r is None:
        product = mm(mat1, mat2)
        if mat1._data.shape[1]:
            r = _scaled_sum(input, product, beta, alpha, "addmm")
        else:  # See NOTE [ Products over no elements ]
            if beta != 0 and product._data.size:
                _check_scale(input, product._data.shape, product.dtype, beta)
            r = _scaled_sum(input, product, beta, 1, "addmm")
    attrs = _addmm_attrs(*args, beta, alpha) if r._requires_grad else None
    r = as_node(r, "AddmmBackward0", args, attrs=attrs)
    return _write(r, out, "gemm")


def _addmm_attrs(input, mat1, mat2, beta, alpha) -> dict:
    """What addmm's composite node keeps for its grad_fn._saved_<name> attributes, as torch's
    AddmmBackward0 saves them (NOTE [ Saved operands of products ])."""
    need1, need2 = mat1._requires_grad, mat2._requires_grad
    return {
        "mat1": mat1 if need2 else None,
        "mat2": mat2 if need1 else None,
        "alpha": alpha,
        "beta": beta,
        "mat1_sym_sizes": tuple(mat1._data.shape),
        "mat1_sym_strides": mat1.stride() if need1 else (),
        "mat2_sym_sizes": tuple(mat2._data.shape),
        "mat2_sym_strides": mat2.stride() if need2 else (),
    }


def _kept(name: str):
    """A _saved_attrs entry: what the composite node kept as `name`; a tensor only until a
    backward frees the graph, as torch's saved tensors."""

    def read(node):
        value = node.__dict__[name]
        if isinstance(value, Tensor):
            check_watched(node)  # raises torch's freed-graph error
        return value

    return read


_ADDMM_SAVED = (
    "mat1", "mat2", "alpha", "beta", "mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes",
    "mat2_sym_strides",
)  # fmt: skip
show_saved("AddmmBackward0", {k: _kept(k) for k in _ADDMM_SAVED})


def _operand_attrs(names, first, second, beta, alpha) -> dict:
    """What addmv's, baddbmm's, addbmm's and addr's composite nodes keep for their
    grad_fn._saved_<name> attributes, as torch's nodes save them: each product operand
    (`names`) where the other one needs its gradient (the inner product's node keeps it too),
    and beta and alpha as given."""
    return {
        names[0]: first if second._requires_grad else None,
        names[1]: second if first._requires_grad else None,
        "alpha": alpha,
        "beta": beta,
    }


for _name, _operands in (
    ("AddmvBackward0", ("mat", "vec")),
    ("BaddbmmBackward0", ("batch1", "batch2")),
    ("AddbmmBackward0", ("batch1", "batch2")),
    ("AddrBackward0", ("vec1", "vec2")),
):
    _keys = (*_operands, "alpha", "beta")
    if _name == "AddbmmBackward0":  # (the gradients expand to the product's sizes)
        _keys += ("batch1_sym_argsize_0", "batch1_sym_argsize_1", "batch2_sym_argsize_2")
    show_saved(_name, {k: _kept(k) for k in _keys})


def addmv(input, mat, vec, *args, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat @ vec). Mirrors torch.addmv."""
    if args:  # See NOTE [ Deprecated add*mm overloads ]
        tensors = (input, mat, vec, *args)
        (input, mat, vec), beta, alpha = _deprecated_overload("addmv", tensors, beta, alpha)
    check_scalars("addmv", beta, alpha)
    if _autocast.state.any_enabled:
        kw = {"beta": beta, "alpha": alpha, "out": out}
        return _autocast.call(addmv, _autocast.LOWER_CUDA, (input, mat, vec), kw)
    _require_tensors("addmv", _MV_NAMES, (input, mat, vec))
    _check_addmv_shapes(input._data.shape, mat._data.shape, vec._data.shape)
    if input.dtype is not mat.dtype or mat.dtype is not vec.dtype:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_short(input.dtype)}, "
            f"{_short(mat.dtype)}, and {_short(vec.dtype)}"
        )
    args = (input, mat, vec)
    if not mat._data.size:  # See NOTE [ Products over no elements ]
        r = _addmv_empty(input, mat, beta)
    else:
        r = _in_float32(addmv, args, beta, alpha, None)
        if r is None:
            r = _scaled_sum(input, mv(mat, vec), beta, alpha, "addmv")
    attrs = _operand_attrs(("mat", "vec"), mat, vec, beta, alpha) if r._requires_grad else None
    return _write(as_node(r, "AddmvBackward0", args, attrs=attrs), out, "gemm")


# NOTE [ Products over no elements ]
# torch's add*mm kernels return before their product where it sums no elements: an empty
# result as it is, else beta * input, made by copying input into the result (of the product's
# dtype: batch2's for baddbmm) and scaling it in place, result.mul_(beta), or zeros for a beta
# of 0. alpha is not read, and the kernel's dtype dispatch (no bool product) and baddbmm's
# check of the two batches' dtypes are never reached; the in-place mul_ refuses a beta of a
# higher kind than the result (a float for an integer result, an int for a bool one; addbmm
# scales by 1 after its first batch). addmv scales input itself (mul_out, beta as input's
# dtype), so its result takes input's shape, and refuses nothing.


def _check_scale(input, shape, dt, beta) -> None:
    """torch's refusals, in its order, of an add*mm whose product (of `shape` and dtype dt)
    sums no elements and whose beta is not 0: input that does not broadcast to the result, then
    a beta the result's in-place mul_ refuses. See NOTE [ Products over no elements ]."""
    si = input._data.shape
    if si != shape and not _expands_to(si, shape):
        input.expand(shape)  # torch's broadcast error, naming both shapes
    if not dt.is_floating_point:
        input.new_zeros((), dtype=dt).mul_(beta)  # (refuses as torch's result.mul_(beta))


def _addmv_empty(input, mat, beta):
    """addmv of an empty matrix: see NOTE [ Products over no elements ]. beta * input, of
    input's shape, with beta in input's dtype; zeros of the product's shape for beta 0."""
    if beta == 0:
        return _scaled_sum(input, input.new_zeros(mat._data.shape[:1]), 0, 1, "addmv")
    if input.dtype is _dtype.bool:
        beta = bool(beta)  # (an int beta would promote a bool input)
    m, shape = mat._data.shape[0], input._data.shape
    if m and shape != (m,):  # torch's mul_out resizes its (m,) result: its warning
        from minitorch._ops.inplace import warn_resized

        warn_resized(input.new_empty((m,)), shape)
    return _scaled_sum(input, input.new_zeros(shape), beta, 1, "addmv")


def _check_addmv_shapes(si, sm, sv):
    """torch's addmv checks, before the dtypes: the ranks, then the sizes (its message names
    input's first size, an IndexError for a 0-d input)."""
    if len(si) > 1 or len(sm) != 2 or len(sv) != 1:
        ranks = f"{len(si)}, {len(sm)}, {len(sv)}"
        raise RuntimeError(f"vector + matrix @ vector expected, got {ranks}")
    if sm[1] == sv[0] and (_prod(si) == 1 or si[0] == sm[0]):
        return
    if not si:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    raise RuntimeError(f"size mismatch, got input ({si[0]}), mat ({sm[0]}x{sm[1]}), vec ({sv[0]})")


def baddbmm(input, batch1, batch2, *args, beta=1, alpha=1, out=None):
    """beta * input + alpha * bmm(batch1, batch2). Mirrors torch.baddbmm."""
    if args:  # See NOTE [ Deprecated add*mm overloads ]
        tensors = (input, batch1, batch2, *args)
        (input, batch1, batch2), beta, alpha = _deprecated_overload("baddbmm", tensors, beta, alpha)
    check_scalars("baddbmm", beta, alpha, out, ("batch1", "batch2"))
    if _autocast.state.any_enabled:
        kw = {"beta": beta, "alpha": alpha, "out": out}
        return _autocast.call(baddbmm, _autocast.LOWER, (input, batch1, batch2), kw)
    _require_tensors("baddbmm", _BMM_NAMES, (input, batch1, batch2))
    check_baddbmm_input(input, batch1, batch2)
    bs, m, k, n = _check_baddbmm_batches(input, batch1, batch2)
    args = (input, batch1, batch2)
    dt = batch2.dtype
    if bs * m * n and k:
        if batch1.dtype is not dt:
            if batch1.dtype is _dtype.bool and not _bmm_by_gemm(batch1, batch2):
                # (torch's naive kernel's dispatch on batch1's dtype speaks first)
                raise NotImplementedError("\"baddbmm\" not implemented for 'Bool'")
            _check_bmm_dtype(batch1, batch2, baddbmm=True)
        if dt is _dtype.bool:
            raise _bool_bmm_error(batch1, batch2, "baddbmm")
        r = _in_float32(baddbmm, args, beta, alpha, None)
        if r is None:
            r = _scaled_sum(input, bmm(batch1, batch2), beta, alpha, "baddbmm")
    else:  # See NOTE [ Products over no elements ]: the result is of batch2's dtype
        product = bmm(batch1, batch2)
        if bs * m * n and beta != 0:
            _check_scale(input, product._data.shape, dt, beta)
        r = _scaled_sum(cast(input, dt), product, beta, 1, "baddbmm")
    attrs = None
    if r._requires_grad:
        attrs = _operand_attrs(("batch1", "batch2"), batch1, batch2, beta, alpha)
    return _write(as_node(r, "BaddbmmBackward0", args, attrs=attrs), out, "gemm")


def check_baddbmm_input(input, batch1, batch2):
    """torch's first baddbmm check: input must expand to the result's shape (batch1's first two
    sizes and batch2's last), before the dtypes and bmm's own checks (an IndexError for a
    batch with too few dims)."""
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) < 2 or len(s2) < 3 or input._data.shape != (s1[0], s1[1], s2[2]):
        input.expand((batch1.size(0), batch1.size(1), batch2.size(2)))


def _check_baddbmm_batches(input, batch1, batch2) -> tuple:
    """baddbmm's checks after input's broadcast, in torch's order: input's dtype against
    batch1's, the ranks, the sizes (bmm's words). The sizes (batch, m, k, n)."""
    if input.dtype is not batch1.dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {_ctype(input.dtype)}, batch1: "
            f"{_ctype(batch1.dtype)}, batch2: {_ctype(batch2.dtype)}"
        )
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(s2) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if s2[0] != s1[0] or s2[1] != s1[2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, {s1[2]}] "
            f"but got: [{s2[0]}, {s2[1]}]."
        )
    return s1[0], s1[1], s1[2], s2[2]


def _not_for_bool(batch1, batch2, op):
    """bmm's shape errors, then torch's missing bool kernel under op's name (not bmm's)."""
    try:
        bmm(batch1, batch2)
    except NotImplementedError:
        raise NotImplementedError(f"\"{op}\" not implemented for 'Bool'") from None


def addbmm(input, batch1, batch2, *args, beta=1, alpha=1, out=None):
    """beta * input + alpha * (the sum over the batch of batch1[i] @ batch2[i]). Mirrors
    torch.addbmm."""
    if args:  # See NOTE [ Deprecated add*mm overloads ]
        tensors = (input, batch1, batch2, *args)
        (input, batch1, batch2), beta, alpha = _deprecated_overload("addbmm", tensors, beta, alpha)
    check_scalars("addbmm", beta, alpha)
    if _autocast.state.any_enabled:
        kw = {"beta": beta, "alpha": alpha, "out": out}
        return _autocast.call(addbmm, _autocast.LOWER, (input, batch1, batch2), kw)
    _require_tensors("addbmm", _BMM_NAMES, (input, batch1, batch2))
    _check_addbmm_shapes(input, batch1, batch2)  # (torch checks the shapes first)
    _check_addmm_dtypes(input, batch1, batch2)
    args = (input, batch1, batch2)
    dt = batch2.dtype
    if dt is _dtype.bool:
        _not_for_bool(batch1, batch2, "addmm_impl_cpu_")
    _check_addbmm_scale(input, batch1, batch2, beta)
    s1 = batch1._data.shape
    # See NOTE [ Products over no elements ] (other ranks: bmm's errors below)
    scale = alpha if len(s1) != 3 or (s1[0] and s1[2]) else 1
    if dt in _dtype.HALF_FLOATS:
        r = _addbmm_half(input, batch1, batch2, beta, scale)
    else:
        from minitorch._ops.reduction import sum as _sum

        # (an integer batch sums in its own dtype, wrapping as torch's accumulation does)
        product = _sum(bmm(batch1, batch2), 0, dtype=None if dt.is_floating_point else dt)
        r = _scaled_sum(input, product, beta, scale, "addbmm")
    attrs = None
    if r._requires_grad:
        attrs = _operand_attrs(("batch1", "batch2"), batch1, batch2, beta, alpha)
        attrs["batch1_sym_argsize_0"], attrs["batch1_sym_argsize_1"] = batch1._data.shape[:2]
        attrs["batch2_sym_argsize_2"] = batch2._data.shape[2]
    return _write(as_node(r, "AddbmmBackward0", args, attrs=attrs), out, "gemm")


def _check_addbmm_shapes(input, batch1, batch2):
    """torch's addbmm checks, in its order: input against the result, then the batches and the
    inner sizes (its own message, not bmm's)."""
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) != 3 or len(s2) != 3:
        # torch sizes input's broadcast first (an IndexError for too few dims), then bmm's checks
        shape = (batch1.size(1), batch2.size(2))
        if input._data.shape != shape:
            input.expand(shape)
        return
    if input._data.shape != (s1[1], s2[2]):
        input.expand((s1[1], s2[2]))  # torch's broadcast error, naming both shapes
    if s1[0] != s2[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {s1[0]} and {s2[0]}"
        )
    if s1[2] != s2[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and {s2[1]}x{s2[2]})"
        )


def _check_addbmm_scale(input, batch1, batch2, beta) -> None:
    """addbmm's refusals of a product over no elements (NOTE [ Products over no elements ]):
    torch scales its result by beta where there is no batch, else by beta in the first batch's
    addmm and by 1 in each later one where the inner size is 0 (of a result not empty)."""
    s1, s2 = batch1._data.shape, batch2._data.shape
    dt = batch2.dtype
    if dt.is_floating_point or len(s1) != 3 or len(s2) != 3:
        return  # (other ranks: bmm's errors)
    (b, m, k), n = s1, s2[2]
    if b and (k or not m * n):
        return
    if beta != 0:
        input.new_zeros((), dtype=dt).mul_(beta)
    if b > 1:
        input.new_zeros((), dtype=dt).mul_(1)


def _addbmm_half(input, batch1, batch2, beta, alpha):
    """torch's CPU addbmm on a half dtype: one addmm per batch entry into the result, each
    computed in float32 and rounded to the half dtype (the first one with beta * input):
    rounding once at the end would keep digits that torch's sum cancels away."""
    dt = batch2.dtype
    products = bmm(batch1.float(), batch2.float())  # (also bmm's checks of the shapes)
    if not products.shape[0]:  # beta * input alone, with beta rounded to the half dtype
        zeros = products.sum(0).to(dt)
        if beta in (0, 1):
            return _scaled_sum(input, zeros, beta, alpha, "addbmm")
        return _scaled_sum(input * input.new_full((), beta), zeros, 1, alpha, "addbmm")
    r = _scaled_sum(input.float(), products[0], beta, alpha, "addbmm").to(dt)
    for i in range(1, products.shape[0]):
        r = _scaled_sum(r.float(), products[i], 1, alpha, "addbmm").to(dt)
    return r


class Trace(Function):
    """out = sum of the main diagonal;  grad_a = grad on the diagonal, 0 elsewhere"""

    _saved_attrs = {"self_sym_sizes": "shape"}  # grad_fn._saved_self_sym_sizes (as torch's)

    @staticmethod
    def forward(ctx, a):
        x = a._data
        ctx.shape = x.shape
        if not is_floating(x.dtype):
            return ctx.xp.asarray(ctx.xp.trace(x, dtype=_dtype.int64.np))
        acc = opmath_dtype(x.dtype) or x.dtype  # half: summed in float32
        return ctx.xp.asarray(ctx.xp.trace(x, dtype=acc), dtype=x.dtype)

    @staticmethod
    def backward(ctx, grad):
        from minitorch._ops.pointwise import where

        n, m = ctx.shape
        # a select, not grad * eye: an inf or nan grad leaves the off-diagonal 0 (inf * 0 = nan)
        eye = _make(ctx.xp.eye(n, m, dtype=bool), grad._device, False, None)
        return where(eye, grad, 0.0)


def trace(input):
    """Sum of the main diagonal of a matrix. Mirrors torch.trace."""
    if _autocast.state.any_enabled:
        return _autocast.call(trace, _autocast.FP32_CPU, (input,))
    try:
        nd = input._data.ndim
    except AttributeError:  # a list where a tensor belongs: zero-cost when a tensor
        raise not_tensor("trace", input) from None
    _no_bool(input, "trace")  # (torch's kernel dispatch, before its dims check)
    if nd != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {nd}")
    return Trace.apply(input)


# NOTE [ Kronecker products without a node ]
# kron's einsum ('ab,cd->acbd' and its like) sums nothing: each element is one product of an
# element of each operand, rounded once in the dtype, whatever route computes it. So where
# nothing is recorded (NOTE [ The no-grad fast path ] in minitorch/autograd/function.py), two
# plain float32/float64 CPU tensors of one dtype, without out=, are multiplied broadcast (input's
# dims at the even places, other's at the odd ones) into new row-major memory and reshaped, as
# the einsum and the reshape give (kron_f32 of two (3, 4): 33 -> 3.0 us).


def _plain_kron(a, b, out):
    """The no-node Kronecker product of NOTE [ Kronecker products without a node ], or None."""
    if not (b.__class__ is Tensor and _plain_pair(a, b, out)):
        return None
    x, y = a._data, b._data
    if x.dtype.char not in "fd":
        return None
    sa, sb = x.shape, y.shape
    n = len(sa) - len(sb)
    if n > 0:
        sb = (1,) * n + sb
    elif n < 0:
        sa = (1,) * -n + sa
    ia, ib, shape = [], [], []
    for p, q in zip(sa, sb, strict=True):
        ia += (p, 1)
        ib += (1, q)
        shape.append(p * q)
    r = _CPU_XP.multiply(x.reshape(ia), y.reshape(ib), order="C")
    return plain_result(r.reshape(shape), _CPU)


def kron(input=REQUIRED, other=REQUIRED, *extra, out=None):
    """Kronecker product. Mirrors torch.kron."""
    fast = None if extra else _plain_kron(input, other, out)  # NOTE [ Kronecker products
    if fast is not None:  # without a node ]
        return fast
    if extra or input is REQUIRED or other is REQUIRED:
        raise arity_error("kron", extra, 2, input=input, other=other)
    from minitorch._ops._common import cast

    _require_tensors("kron", ("input", "other"), (input, other))
    # torch promotes kron's operands as two dimensioned tensors (a 0-d one counts in full) and
    # casts both: the einsum kernel would keep a bool operand's dtype
    dt = _dtype.promote_types(input.dtype, other.dtype)
    a = input if input.dtype is dt else cast(input, dt)
    b = other if other.dtype is dt else cast(other, dt)
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + tuple(a._data.shape)
    sb = (1,) * (n - b.ndim) + tuple(b._data.shape)
    # torch's graph: each operand _unsafe_view'ed with its dims interleaved with ones
    # (UnsafeViewBackward0; views here, so that an operand changed in place is refused), their
    # broadcast product (MulBackward0, whose backward sums as torch's), and _unsafe_view of the
    # product: a tensor of its own (not a view)
    ia = tuple(v for x in sa for v in (x, 1))
    ib = tuple(v for y in sb for v in (1, y))
    r = name_node(a.reshape(ia), "UnsafeViewBackward0") * name_node(
        b.reshape(ib), "UnsafeViewBackward0"
    )
    shape = tuple(x * y for x, y in zip(sa, sb, strict=False))
    result = Reshape.apply(r, shape=shape)
    from minitorch._ops.inplace import check_out_overlap

    check_out_overlap(out, input, other)
    return _write(result, out)


def tensordot(a, b, dims=2, out=None):
    """Sum-product over the given dims of a and b. Mirrors torch.tensordot.

    As torch's, a contracted dim of size 1 broadcasts against its partner (that side is summed)."""
    if _autocast.state.any_enabled:
        return _autocast.call(tensordot, _autocast.LOWER_SAME, (a, b, dims), {"out": out})
    # torch's order: its Python reads dims (and, for an int, a.dim() and b.dim(): a non-tensor's
    # AttributeError), then its kernel's parser checks input, other, dims_self, dims_other
    if isinstance(dims, int):  # (bool included, as torch's isinstance test does)
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        na = a.ndim if isinstance(a, Tensor) else a.dim()
        nb = b.ndim if isinstance(b, Tensor) else b.dim()
        if dims > na or dims > nb:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
    elif isinstance(dims, (tuple, list)):
        da, db = dims
    elif isinstance(dims, Tensor):
        da, db = _tensordot_tensor_dims(dims)
    else:  # np.int64 included: torch's Python-level test admits only int, list, tuple, Tensor
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
            f"containing two lists, but got dims={dims}"
        )
    _require_tensor(a, "tensordot", "input", 1)
    _require_tensor(b, "tensordot", "other", 2)
    na, nb = a.ndim, b.ndim
    if isinstance(dims, int):
        da = list(range(na - dims, na))
        db = list(range(dims))
    else:
        da = _tensordot_dims(da, "dims_self", 3)
        db = _tensordot_dims(db, "dims_other", 4)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    # torch's order: each pair's dims wrapped and sizes compared, then repeats, then the kernel
    sa, sb = a._data.shape, b._data.shape
    shared = []  # per pair: one einsum letter for both (sizes equal) or each summed on its own
    for k, (di, dj) in enumerate(zip(da, db, strict=True)):
        i, j = di, dj
        if not 0 <= i < na:  # (a cheap test: only a negative or bad dim pays for the wrap)
            da[k] = i = _tensordot_wrap(i, na)
        if not 0 <= j < nb:
            db[k] = j = _tensordot_wrap(j, nb)
        if sa[i] != sb[j] and sa[i] != 1 and sb[j] != 1:
            if isinstance(dims, int):
                di -= na  # torch names an int dims' dims of a from the end
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa[i]} in dim {di} "
                f"and second has size {sb[j]} in dim {dj}"
            )
        shared.append(sa[i] == sb[j])
    if len(da) > 1:
        _tensordot_no_repeat(da)
        _tensordot_no_repeat(db)
    if a._data.dtype.kind == "b":  # (b's too: one dtype)
        _tensordot_no_bool(sa, sb, da, db, shared)
    la = list(_LETTERS[:na])
    lb = list(_LETTERS[na : na + nb])
    for i, j, same in zip(da, db, shared, strict=True):
        if same:
            lb[j] = la[i]
    # A size-1 dim paired with a longer one keeps its own letter: einsum sums each side apart,
    # which is torch's sum over the longer dim times the size-1 one.
    keep_a = [x for i, x in enumerate(la) if i not in da]
    keep_b = [x for j, x in enumerate(lb) if j not in db]
    eq = f"{''.join(la)},{''.join(lb)}->{''.join(keep_a + keep_b)}"
    # torch's tensordot is an mm between reshapes: its node is the final view
    result = name_node(Einsum.apply(a, b, eq=eq), "ViewBackward0")
    if out is not None and isinstance(out, Tensor) and out.dtype is not result.dtype:
        raise RuntimeError(  # its out= is refused, not cast, in words of its own
            f"tensordot: Expected the output tensor to have dtype {_short(result.dtype)}, but got "
            f"an output tensor with dtype {_short(out.dtype)}"
        )
    return _write(result, out)


def _tensordot_no_bool(sa, sb, da, db, shared) -> None:
    """torch's refusal of a bool tensordot, which runs one matrix product (a's kept dims by the
    contracted ones, times those by b's kept dims): dot where both sides keep one element,
    else mm, which returns an empty product or one over no elements (zeros) before its dtype
    dispatch. A size-1 dim paired with a longer one is summed away first (shared: False)."""
    m = _prod([s for i, s in enumerate(sa) if i not in da])
    n = _prod([s for j, s in enumerate(sb) if j not in db])
    if m == 1 and n == 1:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    k = _prod([sa[i] for i, same in zip(da, shared, strict=True) if same])
    if m * n * k:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _tensordot_dims(d, name, pos) -> list:
    """tensordot's dims_self / dims_other as a list of Python ints, with torch's TypeError for
    what is not a list or tuple of int-likes (a bare int, a set, a range, a float element)."""
    if not isinstance(d, (list, tuple)):
        raise TypeError(
            f"tensordot(): argument '{name}' (position {pos}) must be tuple of ints, "
            f"not {type_name(d)}"
        )
    out = list(d)
    for k, x in enumerate(out):
        if x.__class__ is not int:
            if isinstance(x, Tensor) and x.numel() == 1 and x.dtype._kind == 1:
                out[k] = int(x)  # as int_list: an int[] reads a one-element integer tensor
                continue
            if not is_index(x):  # (bools too: torch's int[] refuses them)
                raise TypeError(
                    f"tensordot(): argument '{name}' (position {pos}) must be tuple of ints, but "
                    f"found element of type {type_name(x)} at pos {k}"
                )
            out[k] = index(x, "tensordot", name)
    return out


def _tensordot_tensor_dims(dims) -> tuple:
    """torch's reading of a Tensor dims: two rows of dims, or a count n meaning the last n of a
    with the first n of b (written as negative dims, so there is no separate ndim check)."""
    if dims.numel() > 1:
        if dims.shape[0] != 2:
            raise AssertionError(
                f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}"
            )
        return dims[0].tolist(), dims[1].tolist()
    n = int(dims.item())
    if n < 0:
        raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
    return list(range(-n, 0)), list(range(n))


def _tensordot_wrap(d, ndim) -> int:
    """A contracted dim wrapped into [0, ndim), with torch's IndexError (none for a 0-d one)."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return wrap_dim(d, ndim)


def _tensordot_no_repeat(dims):
    """torch's error for a dim contracted twice (dims already wrapped)."""
    seen = set()
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
