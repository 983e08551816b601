"""nn.functional.multi_head_attention_forward: the body of nn.MultiheadAttention, composed from
linear, bmm, softmax and scaled_dot_product_attention, following torch's steps (and so its
numbers): project, add bias_k/bias_v and zero attention, merge the masks into one additive mask,
attend per head, project out."""

from __future__ import annotations

import math
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import zeros, zeros_like
from minitorch._ops.nn_kernels import linear_fits, linear_kernel
from minitorch._tensor import Tensor
from minitorch.nn._functional_attention import scaled_dot_product_attention
from minitorch.nn._functional_dropout import dropout
from minitorch.nn._functional_pad import pad

__all__ = ["multi_head_attention_forward"]


def _linear(x: Tensor, w: Tensor, b) -> Tensor:
    if _autocast.state.any_enabled:
        return _autocast.call(_linear, _autocast.LOWER, (x, w, b))
    if linear_fits(x, w, b):
        return linear_kernel(x, w, b)  # torch's graph (addmm of w.t()) and one GEMM
    from minitorch.nn.functional import linear  # its checks: e.g. keys of the wrong width

    return linear(x, w, b)


def canonical_mask(mask, name: str, like: Tensor, other=None, other_name: str = ""):
    """A bool mask (True: masked) as an additive float mask of -inf; a float mask as is. With
    `other` (the mask it goes with), torch's deprecation warning when their dtypes differ."""
    if other is not None and not isinstance(other, Tensor):
        _none_or_dtype(other)  # torch's callers read the other mask's dtype first: its error
    if mask is None:
        return None
    is_bool = mask.dtype is _dtype.bool
    if not is_bool and not mask.dtype.is_floating_point:  # torch refuses before it warns
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype is not mask.dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type for "
            "both instead.",
            UserWarning,
            stacklevel=3,
        )
    if is_bool:
        return zeros_like(mask, dtype=like.dtype).masked_fill(mask, float("-inf"))
    return mask


def _check_mask_dtype(mask: Tensor, q: Tensor) -> None:
    """torch adds the merged float mask to the scores inside baddbmm(mask, q, k^T), which
    refuses a mask of another dtype than q's (a float32 mask in a float64 model): its error,
    unless autocast casts all three to one dtype first."""
    if _autocast.state.any_enabled:
        return
    m, t = _dtype.CPP_NAMES[mask.dtype.name], _dtype.CPP_NAMES[q.dtype.name]
    raise RuntimeError(f"Input dtypes must be the same, got: input {m}, batch1: {t}, batch2: {t}")


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """Whether the call is batched (3-D query), after torch's rank checks of the inputs and
    masks. Mirrors torch.nn.functional._mha_shape_check."""
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.ndim}-D and {value.ndim}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.ndim}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.ndim}-D tensor instead"
            )
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.ndim}-D and {value.ndim}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                f"found {key_padding_mask.ndim}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.ndim}-D tensor instead"
                )
            want = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != want:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}"
                )
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
        "tensor"
    )


def _check_in_projection(query, key, value, weights, biases) -> None:
    """torch's _in_projection checks of the separate weights (Eq, Eq), (Eq, Ek), (Eq, Ev) and
    the biases (Eq,), in that order."""
    eq = query.shape[-1]
    names = ("query", "key", "value")
    for name, x, w in zip(names, (query, key, value), weights, strict=True):
        want = (eq, x.shape[-1])
        if tuple(w.shape) != want:
            raise AssertionError(f"expecting {name} weights shape of {want}, but got {w.shape}")
    for name, b in zip(names, biases, strict=True):
        if b is not None and tuple(b.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {b.shape}")


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None) -> tuple:
    """q, k and v projected by separate weights (after torch's shape checks). Mirrors torch's
    private torch.nn.functional._in_projection, which copies of its attention code import."""
    _check_in_projection(q, k, v, (w_q, w_k, w_v), (b_q, b_k, b_v))
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _none_or_dtype(input) -> _dtype.dtype | None:
    """A mask's dtype, or None. Mirrors torch.nn.functional._none_or_dtype."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _check_key_padding_mask(key_padding_mask: Tensor, src_len: int, bsz: int) -> None:
    """torch's check of a (bsz, src_len) key padding mask. Mirrors
    torch.nn.functional._check_key_padding_mask."""
    for i, want in enumerate((bsz, src_len)):
        if key_padding_mask.shape[i] != want:
            raise AssertionError(
                f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                f"{key_padding_mask.shape[i]}"
            )


def _project(query, key, value, in_proj_weight, in_proj_bias, separate, q_w, k_w, v_w):
    if not separate:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:  # self-attention: one matmul for q, k and v
            return _linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
        w_q, w_k, w_v = in_proj_weight.chunk(3)
        if key is value and key.shape[-1] != w_k.shape[1]:  # torch projects k and v at once
            rows = math.prod(key.shape[:-1])
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{key.shape[-1]} and "
                f"{w_k.shape[1]}x{2 * w_k.shape[0]})"
            )
    else:
        for name, w in (("q", q_w), ("k", k_w), ("v", v_w)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        w_q, w_k, w_v = q_w, k_w, v_w
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    if separate:
        return _in_projection(query, key, value, w_q, w_k, w_v, b_q, b_k, b_v)
    return _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b=None) -> tuple:
    """q, k and v projected by the packed (3E, E) weight w = [W_q; W_k; W_v] and bias b, as
    contiguous tensors: one matmul when q is k is v (self-attention), one for k and v when only
    they are the same tensor (encoder-decoder attention). Mirrors torch's private
    torch.nn.functional._in_projection_packed, which copies of its attention code import."""
    if k is v and q is not k:
        e = q.shape[-1]
        w_q, w_kv = w.split([e, 2 * e])
        b_q, b_kv = (None, None) if b is None else b.split([e, 2 * e])
        k_out, v_out = _linear(k, w_kv, b_kv).chunk(2, -1)
        return _linear(q, w_q, b_q), k_out.contiguous(), v_out.contiguous()
    # torch's outputs are contiguous; the self-attention chunks of one projection are not
    return tuple(x.contiguous() for x in _project(q, k, v, w, b, False, None, None, None))


def _heads_first(x: Tensor, static, name: str, rows: int, head_dim: int) -> Tensor:
    """A projected key or value (S, N, E) as (N * heads, S, head_dim), or the static one given
    in its place (checked as torch does)."""
    if static is None:
        return x.reshape((x.shape[0], rows, head_dim)).transpose(0, 1)
    for i, want in ((0, rows), (2, head_dim)):
        if static.size(i) != want:
            raise AssertionError(f"expecting {name}.size({i}) of {want}, but got {static.size(i)}")
    return static


# NOTE [ MHA heads split by one permute ]
# The SDPA path (need_weights=False, as TransformerEncoderLayer calls it) needs q, k and v as
# (N, heads, L, head_dim). torch gets there by x.view(L, N * heads, head_dim).transpose(0, 1)
# and a view to 4-D: two view nodes after the copy of a projection chunk. Where the 3-D form
# is a copy (a chunk of the self-attention projection, batch > 1) or a view of a contiguous
# tensor, x.view(L, N, heads, head_dim).permute(1, 2, 0, 3) reads the same elements with the
# same strides (every size above 1: L, S, heads and head_dim; a size-1 dim's stride may differ)
# in one node less each, so the attention computes the same bits. Elsewhere (static k/v, zero
# attention, weights asked for, a size-1 dim, a chunk viewable as 3-D) the composed route runs.


def _heads_split(q, k, v, tgt_len, bsz, num_heads, head_dim):
    """q, k and v (L, N, E) as (L, N, heads, head_dim) (permuted to heads-first later), or None
    where NOTE [ MHA heads split by one permute ] leaves them to the composed route."""
    src_len = k.shape[0]
    if min(tgt_len, src_len, num_heads, head_dim) < 2:
        return None
    e = num_heads * head_dim
    if (
        tuple(q.shape) != (tgt_len, bsz, e)
        or tuple(k.shape) != (src_len, bsz, e)
        or tuple(v.shape) != (src_len, bsz, e)
    ):
        return None
    split = []
    for x in (q, k, v):
        if x.__class__ is not Tensor:  # a subclass sees the composed route's calls
            return None
        a = x._data
        if not a.flags.c_contiguous:
            # a copy in the 3-D form only where batch and heads cannot merge
            if bsz == 1 or a.strides[1] == a.strides[2] * e:
                return None
            x = x.contiguous()
        split.append(x)
    return [x.view((x.shape[0], bsz, num_heads, head_dim)) for x in split]


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple:
    """Multi-head attention on time-major (L, N, E) inputs (or unbatched (L, E)). A bool mask
    marks the positions NOT attended (True), a float mask is added to the scores. Returns
    (output, weights averaged over heads, or per head, or None). Mirrors
    torch.nn.functional.multi_head_attention_forward.

    Differences from torch: attention dropout draws from minitorch's generator."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(
        key_padding_mask, "key_padding_mask", query, attn_mask, "attn_mask"
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention applies the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", query)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    q, k, v = _project(
        query,
        key,
        value,
        in_proj_weight,
        in_proj_bias,
        use_separate_proj_weight,
        q_proj_weight,
        k_proj_weight,
        v_proj_weight,
    )

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(bsz * num_heads, tgt_len, src_len)}."
            )
    if bias_k is not None and bias_v is not None:
        for name, static in (("key", static_k), ("value", static_v)):
            if static is not None:
                raise AssertionError(f"bias cannot be added to static {name}.")
        k = _ops.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _ops.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    split = None
    if not (need_weights or add_zero_attn) and static_k is None and static_v is None:
        split = _heads_split(q, k, v, tgt_len, bsz, num_heads, head_dim)
    if split is not None:  # See NOTE [ MHA heads split by one permute ]
        q, k, v = split
    else:
        q = q.reshape((tgt_len, bsz * num_heads, head_dim)).transpose(0, 1)
        k = _heads_first(k, static_k, "static_k", bsz * num_heads, head_dim)
        v = _heads_first(v, static_v, "static_v", bsz * num_heads, head_dim)
    if add_zero_attn:
        z = zeros((bsz * num_heads, 1, head_dim), dtype=q.dtype, device=q.device)
        k, v = _ops.cat([k, z], 1), _ops.cat([v, z], 1)
        attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
    src_len = k.shape[1] if split is None else k.shape[0]

    if key_padding_mask is not None:
        # checked here, as torch does, against the key length after bias_k and zero attention
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        kpm = key_padding_mask.reshape((bsz, 1, 1, src_len)).expand((-1, num_heads, -1, -1))
        kpm = kpm.reshape((bsz * num_heads, 1, src_len))
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        if attn_mask is not None and attn_mask.dtype is not q.dtype:
            _check_mask_dtype(attn_mask, q)
        q = q * math.sqrt(1.0 / head_dim)
        if attn_mask is not None:  # one baddbmm, as torch: autocast lowers the mask with q, k
            scores = _ops.baddbmm(attn_mask, q, k.transpose(-2, -1))
        else:
            scores = _ops.bmm(q, k.transpose(-2, -1))
        weights = _ops.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = _ops.bmm(weights, v)
        out = out.transpose(0, 1).reshape((tgt_len * bsz, embed_dim))
        out = _linear(out, out_proj_weight, out_proj_bias)
        out = out.reshape((tgt_len, bsz, out.shape[1]))  # the projection may change the width
        weights = weights.reshape((bsz, num_heads, tgt_len, src_len))
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape((bsz, num_heads, -1, src_len))
    if split is not None:
        q, k, v = q.permute((1, 2, 0, 3)), k.permute((1, 2, 0, 3)), v.permute((1, 2, 0, 3))
    else:
        q = q.reshape((bsz, num_heads, tgt_len, head_dim))
        k = k.reshape((bsz, num_heads, src_len, head_dim))
        v = v.reshape((bsz, num_heads, src_len, head_dim))
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute((2, 0, 1, 3)).reshape((bsz * tgt_len, embed_dim))
    out = _linear(out, out_proj_weight, out_proj_bias)
    out = out.reshape((tgt_len, bsz, out.shape[1]))  # the projection may change the width
    return (out.squeeze(1) if not batched else out), None
