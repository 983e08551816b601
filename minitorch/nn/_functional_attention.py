"""nn.functional.scaled_dot_product_attention, composed from matmul and the softmax kernel."""

from __future__ import annotations

import math

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import ones, zeros_like
from minitorch._tensor import Tensor
from minitorch.nn._functional_dropout import dropout

__all__ = ["scaled_dot_product_attention"]


def _attn_bias(attn_mask, is_causal: bool, L: int, S: int, like: Tensor, both_ok: bool):
    """The additive bias (-inf where masked) and whether any entry can be masked. With
    both_ok (torch 2.13's CPU flash kernel) an explicit mask and is_causal apply together;
    otherwise torch refuses the pair."""
    causal = None
    if is_causal:
        if attn_mask is not None and not both_ok:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True"
            )
        causal = ones(L, S, dtype=_dtype.bool, device=like.device).tril()
        if attn_mask is None:
            attn_mask, causal = causal, None
    if attn_mask is None:
        return None
    if attn_mask.dtype is _dtype.bool:
        keep = attn_mask if causal is None else attn_mask & causal
        zero = zeros_like(keep, dtype=like.dtype)
        return zero.masked_fill(~keep, float("-inf"))
    if causal is not None:
        return attn_mask.masked_fill(~causal, float("-inf"))
    return attn_mask


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value, scale = 1 / sqrt(E) by default; a bool
    mask keeps the True entries, a float mask is added; rows with every key masked give 0 (as
    torch's CPU kernel). Mirrors torch.nn.functional.scaled_dot_product_attention.

    Differences from torch: dropout masks come from minitorch's generator.
    """
    if attn_mask is not None and type(attn_mask) is not Tensor:
        # a CausalBias computes the attention itself: see NOTE [ CausalBias dispatch ]
        dispatch = getattr(attn_mask, "_dispatch", None)
        if dispatch is not None:
            args = (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
            return dispatch(*args)
    if _autocast.state.any_enabled:
        args = (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
        return _autocast.call(scaled_dot_product_attention, _autocast.LOWER, args)
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "scaled_dot_product_attention: Expected query, key, and value to all be at least 2 "
            f"dimensional, but got query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: "
            f"{value.ndim} instead."
        )
    dt = query.dtype
    if key.dtype is not dt or value.dtype is not dt:
        raise RuntimeError(
            "scaled_dot_product_attention: Expected query, key, and value to have the same "
            f"dtype, but got query.dtype: {_dtype.scalar_name(dt)} key.dtype: "
            f"{_dtype.scalar_name(key.dtype)} and value.dtype: {_dtype.scalar_name(value.dtype)} "
            "instead."
        )
    if attn_mask is not None and attn_mask.ndim < 2:  # torch reads the mask's dim -2
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    mask_dt = getattr(attn_mask, "dtype", None)
    if mask_dt is not None and mask_dt not in (_dtype.bool, _dtype.float32, dt):
        raise RuntimeError(
            "scaled_dot_product_attention: Expected attn_mask dtype to be bool or float or to "
            f"match query dtype, but got attn_mask.dtype: {_dtype.scalar_name(mask_dt)} and "
            f"query.dtype: {_dtype.scalar_name(dt)} instead."
        )
    if (
        dt in _dtype.HALF_FLOATS
        and key.dtype is dt
        and value.dtype is dt
        and getattr(attn_mask, "dtype", dt) in (dt, _dtype.bool, _dtype.float32)
    ):
        # half: computed in float32 and rounded once, as torch's CPU kernel (rounding the
        # attention weights before their product with value cost up to 180 ulps near 0)
        mask = attn_mask.float() if getattr(attn_mask, "dtype", None) is dt else attn_mask
        args = (query.float(), key.float(), value.float(), mask, dropout_p, is_causal, scale)
        return scaled_dot_product_attention(*args, enable_gqa=enable_gqa).to(dt)
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    if key.shape[-1] != E:
        raise RuntimeError(
            f"scaled_dot_product_attention: expected key's last dim to be {E} (query's), "
            f"but got key of shape {list(key.shape)}"
        )
    if value.shape[-2] != S:
        raise RuntimeError(
            f"scaled_dot_product_attention: expected value to have {S} positions (key's), but "
            f"got value of shape {list(value.shape)}"
        )
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        if key.shape[-3] == 0 or query.shape[-3] % key.shape[-3]:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in query"
            )
        groups = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(groups, dim=-3)
        value = value.repeat_interleave(groups, dim=-3)
    factor = 1.0 / math.sqrt(E) if scale is None else scale
    scores = _ops.matmul(query, key.transpose(-2, -1)) * factor
    # torch 2.13's CPU flash kernel (4-D, no dropout, value's head dim equal to the query's)
    # applies an explicit mask with is_causal; its math path refuses the pair
    both_ok = query.ndim == 4 and dropout_p == 0 and value.shape[-1] == query.shape[-1]
    bias = _attn_bias(attn_mask, is_causal, L, S, query, both_ok)
    if bias is None:
        attn = _ops.softmax(scores, -1)
    else:
        # a row whose every key is masked gives 0, not softmax's nan (nor a nan gradient): its
        # bias is replaced by 0 before the softmax and its weights by 0 after
        visible = (bias != float("-inf")).any(-1, keepdim=True)
        attn = _ops.softmax(scores + _ops.where(visible, bias, 0.0), -1)
        attn = _ops.where(visible, attn, 0.0)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, training=True)
    return _ops.matmul(attn, value)
