"""scaled_dot_product_attention in blocks of (batch, head) positions, for big score tensors: the
no-grad attention one block at a time, and a recorded node that keeps only query, key and value
and recomputes each block in its backward (NOTE [ SDPA in chunks ] and NOTE [ SDPA blocks with
grad ])."""

from __future__ import annotations

import math

from minitorch._ops.linalg import _BLAS_COPY_MIN
from minitorch._ops.reduction import _GEMV_MIN_SIZE
from minitorch._tensor import Tensor, _make
from minitorch.autograd.engine import grad as _autograd_grad
from minitorch.autograd.function import Function
from minitorch.autograd.function import dual_hook as _dual_hook
from minitorch.autograd.function import fast_path as _fast_path
from minitorch.autograd.grad_mode import enable_grad, no_grad
from minitorch.autograd.grad_mode import state as _grad_state


def _attend_whole(*args):
    """The whole attention (_functional_attention._attend_whole; imported when first used, as
    that module imports this one)."""
    from minitorch.nn._functional_attention import _attend_whole as whole

    return whole(*args)


# NOTE [ SDPA in chunks ]
# The attention's temporaries are score-sized, (B, H, L, S) each: the scores, their scaled copy,
# the softmax's shifted exponentials and result (and in backward the weights' gradient). For a
# transformer layer at batch 64 x seq 512 x 16 heads that is 1 GiB of float32 each. Every one of
# these steps works on one (L, S) matrix of one (batch, head) position alone: NumPy's matmul of
# stacked matrices runs one GEMM per matrix, softmax's shift and exponentials go row by row. So
# where the scores reach _CHUNK_MIN elements, the flash-path attention runs on blocks of
# (batch, head) positions of about _CHUNK_SIZE score elements each (_DEVICE_CHUNK_SIZE on a
# GPU) and writes each block's output into the result: only one block's temporaries exist at a
# time, and every value comes out as the whole computation gives it (where a node is recorded:
# NOTE [ SDPA blocks with grad ]). Three things in the kernels depend on the
# size of the array they see, and the blocks are cut so that they do not change:
# - a softmax row sum over the last dim is a BLAS matrix-vector product with ones for arrays of
#   _GEMV_MIN_SIZE elements or more (NumPy's pairwise sum below): no block is smaller than that;
# - OpenBLAS's matrix-vector kernels sum a row in an order that depends on its position in a
#   group of 4 or 8 rows from the array's start (measured: Haswell and SkylakeX kernels, one and
#   two threads, any row length; a block starting on a multiple of 8 rows matches): every block
#   starts on a multiple of _ROW_ALIGN rows of the (B * H * L, S) scores;
# - a product takes its operand through a copy when BLAS cannot read it in place, tested only
#   for operands of _BLAS_COPY_MIN elements or more: blocks are used only where BLAS reads all
#   of query, key and value in place (any size then takes the same route).
# With enable_gqa a block holds whole groups of query heads (key and value heads are sliced,
# not repeated first). On the GPU (CuPy) the results may differ in the last bits from one
# whole product (cuBLAS chooses its algorithms by size), as they do between CuPy versions.
_CHUNK_MIN = 1 << 22  # score elements from which the attention runs in blocks (16 MiB float32)
_CHUNK_SIZE = 1 << 20  # score elements per block on the CPU, about (4 MiB float32; the
# no-grad forward of a TransformerEncoderLayer(1024, 16, 4096) at batch 2 x seq 512 ran 9-11%
# faster than whole, its training step 2-8%; blocks of 2**22 elements gained half that)
_DEVICE_CHUNK_SIZE = 1 << 23  # on a GPU (32 MiB float32): fewer blocks, fewer kernel launches
# (each block's ops cost their Python time whatever its size), still 1/32 of the scores of a
# layer at batch 64 x seq 512 x 16 heads
_ROW_ALIGN = 8  # rows of the scores at which a block may start


def _chunk_spans(query, key, value, recorded=False):
    """The (batch start, batch end, head start, head end) blocks NOTE [ SDPA in chunks ] cuts
    the (validated, flash-path) attention into, or None where it runs whole. `recorded`: for
    _BlockAttention, whose blocks' gradients must show their layout (_layout_order): no size-1
    matrix dims, at least two heads (of key and value too) a block."""
    B, H, L, E = query.shape
    S = key.shape[-2]
    per = L * S
    if B * H * per < _CHUNK_MIN or not all(_in_place(t) for t in (query, key, value)):
        return None
    if recorded and min(L, S, E, value.shape[-1]) < 2:
        return None
    group = H // key.shape[1]  # query heads per key head (1 without enable_gqa)
    # the positions a block needs to reach _GEMV_MIN_SIZE (where the whole does)
    least = -(-_GEMV_MIN_SIZE // per) if B * H * per >= _GEMV_MIN_SIZE else 1
    size = _CHUNK_SIZE if query._device.type == "cpu" else _DEVICE_CHUNK_SIZE
    few = 2 * group if recorded else 1  # the fewest query heads of a block of one batch
    n = max(size // per, least, few)
    if n < H and H * L % _ROW_ALIGN == 0:
        step = _lcm(group, _ROW_ALIGN // math.gcd(L, _ROW_ALIGN))
        n = -(-n // step) * step
        if n < H:
            heads = _cut(H, n, max(least, few))
            return [(b, b + 1, h0, h1) for b in range(B) for h0, h1 in heads]
    unit = _ROW_ALIGN // math.gcd(H * L, _ROW_ALIGN)
    least = -(-least // H)
    if recorded and H < few:  # one key head: two batches a block
        least = max(least, 2)
    nb = -(-max(n // H, least) // unit) * unit
    batches = _cut(B, nb, least)
    return [(b0, b1, 0, H) for b0, b1 in batches] if len(batches) > 1 else None


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


def _cut(total: int, n: int, least: int) -> list:
    """[0, total) in spans of n, the last one merged into the one before when under least."""
    spans = [[i, min(i + n, total)] for i in range(0, total, n)]
    if len(spans) > 1 and spans[-1][1] - spans[-1][0] < least:
        last = spans.pop()
        spans[-1][1] = last[1]
    return spans


def _in_place(t) -> bool:
    """Whether BLAS reads t's matrices (its last two dims) in place (linalg.blas_ready's test,
    for any size: NOTE [ SDPA in chunks ])."""
    s_row, s_col = t._data.strides[-2:]
    n_row, n_col = t._data.shape[-2:]
    item = t._data.itemsize
    return (s_col == item and s_row >= n_col * item) or (s_row == item and s_col >= n_row * item)


def _attend_in_chunks(
    spans, query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa
) -> Tensor:
    """The attention computed block by block (NOTE [ SDPA in chunks ]): a new row-major tensor
    holding each block's _attend_whole result, as one call on all of them gives."""
    B, H, L = query.shape[:3]
    group = H // key.shape[1]
    out = None
    for b0, b1, h0, h1 in spans:
        mask = _mask_block(attn_mask, b0, b1, h0, h1)
        kv = (slice(b0, b1), slice(h0 // group, h1 // group))
        block = _attend_whole(
            query[b0:b1, h0:h1], key[kv], value[kv], mask, dropout_p, is_causal, scale,
            enable_gqa, True,
        )  # fmt: skip
        data = block._data
        if out is None:
            xp = query._device.backend.xp
            out = xp.empty((B, H, L, data.shape[-1]), dtype=data.dtype)
        out[b0:b1, h0:h1] = data
    return _make(out, query._device, False, None)


def _mask_block(mask, b0, b1, h0, h1):
    """The part of a (validated, flash-path) mask that a block of positions reads."""
    if mask is None or mask.ndim != 4:
        return mask
    rows = slice(b0, b1) if mask.shape[0] != 1 else slice(None)
    return mask[rows, slice(h0, h1) if mask.shape[1] != 1 else slice(None)]


def _records_blocks(query, key, value) -> bool:
    """Whether a recorded flash-path call may run as _BlockAttention: not where the graph
    itself is observed op by op (anomaly mode, saved-tensor hooks, forward-mode AD, the
    profiler), nor for a tensor passed twice (its gradients' sum keeps the inner graph's
    order) or an inference tensor (the inner graph raises where it saves one)."""
    if _dual_hook[0] is not None or not _fast_path[0]:  # (anomaly mode and hooks pause it too)
        return False
    if query is key or key is value or query is value:
        return False
    return all(t._vc.__class__ is list for t in (query, key, value))


# NOTE [ SDPA blocks with grad ]
# A recorded flash-path call with big scores keeps only what torch's flash node keeps: query,
# key and value (and the result, read by grad_fn._saved_output), not the score-sized softmax
# weights the composed graph saves. _BlockAttention computes the result block by block (NOTE
# [ SDPA in chunks ]) and, in backward, recomputes each block's attention with grad from its
# slices of query, key and value and takes that block's gradients: the same ops on the same
# matrices as the composed graph's backward, so the same values, written into gradients laid
# out as that graph's are (_layout_order). scaled_dot_product_attention folds its node into the
# one named ScaledDotProductFlashAttentionForCpuBackward0 (as_node), which checks the versions
# of the tensors torch's node saves before it runs. A backward that records (create_graph), or
# whose incoming gradient BLAS cannot read in place (the expanded gradient of `.sum()`) in
# blocks too small to take the whole's route through the products (_takes_blocks), recomputes
# the whole attention instead: the composed graph again, whose gradients and double backward
# are the whole call's.


class _BlockAttention(Function):
    """out = softmax(q k^T scale + bias) v, computed block by block, its backward recomputing
    each block (NOTE [ SDPA blocks with grad ]); only inside the composite flash node."""

    @staticmethod
    def forward(ctx, query, key, value, *, mask, is_causal, scale, gqa, spans):
        ctx.save_for_backward(query, key, value)
        with no_grad():
            # the composed graph keeps the bias made from the mask at forward: a mask changed
            # in place before backward leaves its gradients alone (the copy is no bigger than
            # the bias the composed graph makes)
            kept = None if mask is None else mask.clone()
            ctx.attend = (kept, 0.0, is_causal, scale, gqa)
            ctx.spans = spans
            args = (query, key, value, mask, 0.0, is_causal, scale, gqa)
            return _attend_in_chunks(spans, *args)._data

    @staticmethod
    def backward(ctx, grad):
        q, k, v = ctx._stored_tensors
        needs = ctx.needs_input_grad
        if not _grad_state.enabled and _takes_blocks(ctx.spans, grad):
            grads = _block_grads(ctx.spans, (q, k, v), grad, needs, ctx.attend)
            if grads is not None:
                return grads
        return _whole_grads((q, k, v), grad, needs, ctx.attend)


def _takes_blocks(spans, grad) -> bool:
    """Whether the products of backward take the incoming gradient's blocks by the route they
    take the whole by: BLAS reads it in place, or it is copied or its repeated rows multiplied
    once (_BLAS_COPY_MIN) for the whole and every block alike (NOTE [ SDPA blocks with grad ])."""
    if _in_place(grad):
        return True
    shape = grad._data.shape
    per = shape[2] * shape[3]
    least = min((b1 - b0) * (h1 - h0) for b0, b1, h0, h1 in spans)
    return least * per >= _BLAS_COPY_MIN


def _whole_grads(qkv, grad, needs, attend) -> tuple:
    """The gradients of the whole attention, recomputed (recorded where backward records)."""
    create = _grad_state.enabled
    if not create:
        qkv = [t.detach().requires_grad_(n) for t, n in zip(qkv, needs, strict=True)]
    with enable_grad():
        out = _attend_whole(*qkv, *attend, True)
    inputs = [t for t, n in zip(qkv, needs, strict=True) if n]
    got = iter(_autograd_grad(out, inputs, grad, create_graph=create))
    return tuple(next(got) if n else None for n in needs)


def _block_grads(spans, qkv, grad, needs, attend):
    """The gradients of _BlockAttention computed block by block, or None where a block's
    gradient has a layout _layout_order cannot carry over to the whole."""
    group = qkv[0].shape[1] // qkv[1].shape[1]
    parts_of = [t.detach() for t in qkv]
    xp = grad._device.backend.xp
    whole = [None, None, None]
    orders = [None, None, None]
    for b0, b1, h0, h1 in spans:
        at = (slice(b0, b1), slice(h0, h1))
        kv = (slice(b0, b1), slice(h0 // group, h1 // group))
        parts = [parts_of[0][at], parts_of[1][kv], parts_of[2][kv]]
        for t, n in zip(parts, needs, strict=True):
            if n:
                t.requires_grad_()
        with enable_grad():
            out = _attend_whole(*parts, _mask_block(attend[0], b0, b1, h0, h1), *attend[1:], True)
        inputs = [t for t, n in zip(parts, needs, strict=True) if n]
        got = iter(_autograd_grad(out, inputs, grad[at]))
        for i, n in enumerate(needs):
            if not n:
                continue
            g = next(got)._data
            order = _layout_order(g)
            if order is None or orders[i] not in (None, order):
                return None
            if whole[i] is None:
                orders[i] = order
                shape = qkv[i].shape
                base = xp.empty(tuple(shape[d] for d in order), dtype=g.dtype)
                whole[i] = base.transpose(tuple(order.index(d) for d in range(len(order))))
            whole[i][at if i == 0 else kv] = g
    device = grad._device
    return tuple(None if w is None else _make(w, device, False, None) for w in whole)


def _layout_order(a):
    """The dims of a dense array from outermost to innermost (a C-ordered array's transpose
    has them), or None where the strides do not tell: a size-1 dim has the stride of the dim
    just outside it, so among equal strides it is the inner one (two size-1 dims of one stride
    leave their order open), and an array with gaps or overlaps is no such transpose."""
    strides, shape = a.strides, a.shape
    order = sorted(range(a.ndim), key=lambda d: (-strides[d], shape[d] == 1))
    step = a.itemsize
    for pos in range(a.ndim - 1, -1, -1):
        d = order[pos]
        if strides[d] != step:
            return None
        if pos and shape[d] == 1 and shape[order[pos - 1]] == 1:
            if strides[order[pos - 1]] == strides[d]:
                return None
        step *= shape[d]
    return order
