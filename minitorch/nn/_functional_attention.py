"""nn.functional.scaled_dot_product_attention, composed from matmul and the softmax kernel."""

from __future__ import annotations

import math
import sys
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _memory_format, _ops
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._factories import ones, zeros, zeros_like
from minitorch._ops._common import wrong_type
from minitorch._ops.linalg import _kept
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import scalar_node
from minitorch.autograd.grad_mode import no_grad
from minitorch.autograd.grad_mode import state as _grad_state
from minitorch.nn import _argcheck as _arg
from minitorch.nn import _attention_blocks as _blocks
from minitorch.nn._functional_dropout import dropout

__all__ = ["scaled_dot_product_attention"]


def _attn_bias(attn_mask, is_causal: bool, L: int, S: int, like: Tensor, causal_dtype):
    """The additive bias (-inf where masked): an explicit bool mask becomes `like`'s dtype (an
    integer query overflows there, as in torch), the causal mask `causal_dtype` (the scaled
    scores' dtype: torch builds it after scaling the query). Both apply together only where
    torch's flash kernel runs (the caller checked, see NOTE [ SDPA flash path ])."""
    causal = None
    if is_causal:
        causal = ones(L, S, dtype=_dtype.bool, device=like.device).tril()
        if attn_mask is None:
            zero = zeros_like(causal, dtype=causal_dtype)
            return zero.masked_fill(~causal, float("-inf"))
    if attn_mask is None:
        return None
    if attn_mask.dtype is _dtype.bool:
        keep = attn_mask if causal is None else attn_mask & causal
        zero = zeros_like(keep, dtype=like.dtype)
        return zero.masked_fill(~keep, float("-inf"))
    if causal is not None:
        return attn_mask.masked_fill(~causal, float("-inf"))
    return attn_mask


# NOTE [ SDPA flash path ]
# torch 2.13 on CPU runs scaled_dot_product_attention either in its flash kernel, one autograd
# node ScaledDotProductFlashAttentionForCpuBackward0 with edges (query, key, value), or in its
# composite math path (the last matmul's node, UnsafeViewBackward0). The choice is visible: the
# flash kernel applies an explicit attn_mask together with is_causal, the math path raises.
# The flash kernel runs (measured on torch 2.13 CPU) for floating 4-D query/key/value, with
# non-empty, no dropout (dropout_p <= 0; a negative one is refused by the kernel), equal head
# sizes, last dims of stride 1, equal batch sizes, key and value with equal heads that equal
# the query's (or divide them with enable_gqa), and a mask that is 2-D or 4-D, does not require
# grad and broadcasts to (batch, heads, L, S) without growing it. minitorch computes both paths
# the same way and only names the result's node and raises as torch's choice would. With the
# math kernel switched off, torch warns the first failed check's reason before it raises, in
# the order dropout, dims, batch, heads, mask, head sizes, stride, dtype (_flash_refusal's).


def _flash_refusal(query, key, value, attn_mask, dropout_p, enable_gqa):
    """None where torch 2.13's CPU backend selection picks its flash kernel, else a function
    giving torch's reason for refusing it (its debug warning, "" where it gives none), checked
    in torch's order; see NOTE [ SDPA flash path ]."""
    if dropout_p > 0:
        return lambda: "Both fused kernels do not support non-zero dropout."
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        return lambda: (
            "All fused kernels requires query, key and value to be 4 dimensional, but got Query "
            f"dim: {query.ndim}, Key dim: {key.ndim}, Value dim: {value.ndim} instead."
        )
    if query.device.type == "meta":  # torch's meta device runs the math path
        return str
    (B, H, L, E), (Bk, Hk, S, Ek), (Bv, Hv, Sv, Ev) = query.shape, key.shape, value.shape
    shapes = f"{list(query.shape)}", f"{list(key.shape)}", f"{list(value.shape)}"
    if not B == Bk == Bv:
        return lambda: (
            "For dense inputs, both fused kernels require query, key and value to have the same "
            f"batch_size. Query.sizes(): {shapes[0]}, Key.sizes(): {shapes[1]}, Value.sizes(): "
            f"{shapes[2]} instead. To broadcast dense inputs, try using unsqueeze and expand_to "
            "before passing them into the kernel."
        )
    if enable_gqa and Hk != Hv:
        return lambda: (
            "Both fused kernels require key and value to have the same num_heads and "
            f"batch_size but got: Key sizes: {shapes[1]}, Value sizes: {shapes[2]}, Query "
            f"sizes: {shapes[0]} instead."
        )
    if enable_gqa and (Hk == 0 or H % Hk):
        return lambda: (
            "The number of heads in key/value must divide number of heads in query.Got input "
            f"Key sizes(): {Hk}, Value sizes(): {Hv}, Query sizes(): {H} instead."
        )
    if not enable_gqa and not H == Hk == Hv:
        return lambda: (
            "For dense input, both fused kernels require query, key and value to have the same "
            f"num_heads. Query.sizes(): {shapes[0]}, Key sizes(): {shapes[1]}, Value sizes(): "
            f"{shapes[2]} instead. To broadcast dense inputs, try using unsqueeze and expand_to "
            "before passing them into the kernel."
        )
    if attn_mask is not None:
        if attn_mask.requires_grad:
            return str
        want = (B, H, L, S)[-attn_mask.ndim :]
        if attn_mask.ndim not in (2, 4) or any(
            m not in (1, w) for m, w in zip(attn_mask.shape, want, strict=True)
        ):
            return lambda: (
                "Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x "
                "{KV_seq_len, 1}); 4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x "
                "{KV_seq_len, 1})"
            )
    if not E == Ek == Ev:
        return lambda: (
            "Flash attention requires q,k,v to have the same last dimension. Got "
            f"Query.size(-1): {E}, Key.size(-1): {Ek}, Value.size(-1): {Ev} instead."
        )
    if 0 in (B, H, L, E, Bk, Hk, S, Ek, Bv, Hv, Sv, Ev) or S != Sv:
        return str
    strides = query.stride(-1), key.stride(-1), value.stride(-1)
    if strides != (1, 1, 1):
        return lambda: (
            "All fused kernels require the last dimension of the input to have stride 1. Got "
            f"Query.stride(-1): {strides[0]}, Key.stride(-1): {strides[1]}, Value.stride(-1): "
            f"{strides[2]}"
        )
    if not query.dtype.is_floating_point:
        names = [_dtype.CPP_NAMES[t.dtype.name] for t in (query, key, value)]
        return lambda: (
            "Expected query, key and value to all be of dtype: {Float, Double, BFloat16, "
            f"Half}}. Got Query dtype: {names[0]}, Key dtype: {names[1]}, and Value dtype: "
            f"{names[2]} instead."
        )
    return None


def _runs_flash(query, key, value, attn_mask, dropout_p, enable_gqa) -> bool:
    """Whether the call runs as torch's CPU flash kernel (else as its math path), with the
    kernels sdpa_kernel switched off; see NOTE [ SDPA flash path ]."""
    refusal = _flash_refusal(query, key, value, attn_mask, dropout_p, enable_gqa)
    backends = sys.modules.get("minitorch.backends")  # switches off only if it was imported
    if backends is not None:
        sdp = backends._SDP
        if not (sdp["math"] and sdp["flash"]) and query.device.type == "cpu":
            return _cpu_backend_choice(sdp, refusal)
    return refusal is None


def _check_mask_rows(query, key, value, attn_mask, dropout_p, enable_gqa) -> None:
    """A 0-d or 1-d mask broadcasts like any other, except where torch's flash-kernel selection
    reaches its mask check, which reads the mask's dim -2: after the dropout, 4-d shape, batch
    and head checks of NOTE [ SDPA flash path ] (before the dtype, head size and stride ones),
    for a mask that does not require grad (one that does is refused before its shape is read)."""
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4 or dropout_p > 0:
        return
    (B, H), (Bk, Hk), (Bv, Hv) = query.shape[:2], key.shape[:2], value.shape[:2]
    if not B == Bk == Bv or Hk != Hv:
        return
    if H != Hk and not (enable_gqa and H % Hk == 0):
        return
    if attn_mask.requires_grad:  # refused before the mask's shape is read
        return
    if attn_mask.ndim == 0:
        raise IndexError("Dimension specified as -2 but tensor has no dimensions")
    raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")


def _cpu_backend_choice(sdp: dict, refusal) -> bool:
    """Whether torch's CPU backend selection runs its flash kernel when some kernels are
    switched off (sdpa_kernel, backends.cuda.enable_*_sdp): on the CPU torch has only the math
    and flash kernels, so with both off nothing runs, and with math off the flash kernel must
    take the call (refusal: _flash_refusal's, whose reason torch warns before it raises)."""
    if not sdp["math"]:
        if not sdp["flash"]:
            raise RuntimeError(
                "No viable backend for scaled_dot_product_attention was found. This is likely "
                "due to turning off both the math kernel and the fused kernels."
            )
        if refusal is not None:
            warnings.warn("Flash attention kernel not used because:", stacklevel=4)
            reason = refusal()
            if reason:
                warnings.warn(reason, stacklevel=4)
            raise RuntimeError("No available kernel.  Aborting execution.")
        return True
    return False  # flash off: the math kernel runs


def _check_args(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa) -> None:
    """torch's argument parser's TypeErrors (this runs before any tensor is read)."""
    op = "scaled_dot_product_attention"
    for pos, (name, x) in enumerate((("query", query), ("key", key), ("value", value)), 1):
        if not isinstance(x, Tensor):
            raise wrong_type(op, x, name, pos, "Tensor")
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise wrong_type(op, attn_mask, "attn_mask", 4, "Tensor")
    if isinstance(dropout_p, bool) or not isinstance(dropout_p, (int, float)):
        raise wrong_type(op, dropout_p, "dropout_p", 5, "float")
    if is_causal.__class__ is not bool:
        _arg.boolean(is_causal, op, "is_causal", 6)
    if scale is not None and scale.__class__ is not float:
        _arg.floating(scale, "scaled_dot_product_attention", "scale")
    if enable_gqa.__class__ is not bool:
        _arg.boolean(enable_gqa, "scaled_dot_product_attention", "enable_gqa")


def scaled_dot_product_attention(
    query: Tensor = REQUIRED,
    key: Tensor = REQUIRED,
    value: Tensor = REQUIRED,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *extra,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value, scale = 1 / sqrt(E) by default; a bool
    mask keeps the True entries, a float mask is added; rows with every key masked give 0 (as
    torch's CPU kernel). Mirrors torch.nn.functional.scaled_dot_product_attention.

    Differences from torch: dropout masks come from minitorch's generator.
    """
    if extra or value is REQUIRED:  # scale and enable_gqa are keyword-only, as in torch
        op = "scaled_dot_product_attention"
        raise arity_error(op, extra, 6, query=query, key=key, value=value)
    if attn_mask is not None and type(attn_mask) is not Tensor:
        # a CausalBias computes the attention itself: see NOTE [ CausalBias dispatch ]
        dispatch = getattr(attn_mask, "_dispatch", None)
        if dispatch is not None:
            args = (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
            return dispatch(*args)
    _check_args(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    if _autocast.state.any_enabled:
        args = (query, key, value, attn_mask, dropout_p, is_causal)
        kwargs = {"scale": scale, "enable_gqa": enable_gqa}
        return _autocast.call(scaled_dot_product_attention, _autocast.LOWER, args, kwargs)
    # torch's validate_sdpa_input: dtypes, devices, dims, then the mask's dtype
    dt = query.dtype
    names = _dtype.CPP_NAMES  # torch's messages spell dtypes in C++ ("long int", "c10::Half")
    if key.dtype is not dt or value.dtype is not dt:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{names[dt.name]} key.dtype: {names[key.dtype.name]} and value.dtype: "
            f"{names[value.dtype.name]} instead."
        )
    if key.device != query.device or value.device != query.device:
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got query.device: "
            f"{query.device} key.device: {key.device} and value.device: {value.device} instead."
        )
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    # the mask's dtype is checked before its dims (a 1-D 0/1 int64 padding mask is a dtype error)
    mask_dt = getattr(attn_mask, "dtype", None)
    if mask_dt is not None and mask_dt not in (_dtype.bool, _dtype.float32, dt):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {names[mask_dt.name]} and  query.dtype: {names[dt.name]} instead."
        )
    if not (query.numel() and key.numel() and value.numel()):
        return _empty_attention(query, key, value)
    if attn_mask is not None and attn_mask.ndim < 2:
        _check_mask_rows(query, key, value, attn_mask, dropout_p, enable_gqa)
    flash = _runs_flash(query, key, value, attn_mask, dropout_p, enable_gqa)
    if is_causal and attn_mask is not None and not flash:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if flash and dropout_p != 0:
        raise RuntimeError(
            "scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0"
        )
    args = (query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    spans = recorded = None
    sq = query._data.shape
    if flash and sq[0] * sq[1] * sq[2] * key._data.shape[2] >= _blocks._CHUNK_MIN:
        # big scores are computed a block at a time: NOTE [ SDPA in chunks ]
        if not (
            _grad_state.enabled
            and (query._requires_grad or key._requires_grad or value._requires_grad)
        ):
            spans = _blocks._chunk_spans(query, key, value)
        elif _blocks._records_blocks(query, key, value):
            spans = recorded = _blocks._chunk_spans(query, key, value, recorded=True)
    if recorded is not None:
        kw = {"mask": attn_mask, "is_causal": is_causal, "scale": scale, "gqa": enable_gqa}
        out = _blocks._BlockAttention.apply(query, key, value, spans=spans, **kw)
    elif spans is not None:
        out = _blocks._attend_in_chunks(spans, *args)
    else:
        out = _attend_whole(*args, flash)
    if flash and not query._data.flags.c_contiguous:
        # torch's flash kernel lays its output out in the query's axis order: heads split from
        # a (B, T, H*D) projection and transposed give a (B, T, H, D)-ordered output, whose
        # out.transpose(1, 2).view(B, T, H * D) works (the math path's output is row-major)
        out._data = _memory_format.like(out._device.backend.xp, query._data, out._data)
    if flash and _grad_state.enabled:
        # one node with torch's name and edges; it saves what torch's node saves (its
        # grad_fn._saved_<name>: a bool mask as the additive bias torch converts it to)
        mask = attn_mask
        if mask is not None and mask.dtype is _dtype.bool:
            mask = zeros_like(mask, dtype=dt).masked_fill(~mask, float("-inf"))
        # (the output itself is read back through `saved`: holding it would make the cycle
        # output -> node -> output, which keeps the graph alive until the garbage collector runs)
        attrs = {"query": query, "key": key, "value": value, "attn_mask": mask,
                 "dropout_p": float(dropout_p), "is_causal": is_causal, "scale": scale,
                 "kept_device": out._device}  # fmt: skip
        saved = (query, key, value, out)
        out = as_node(out, _FLASH_NODE, (query, key, value), saved=saved, attrs=attrs)
    return out


_FLASH_NODE = "ScaledDotProductFlashAttentionForCpuBackward0"


def _attend_whole(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, flash):
    """The attention of all of query, key and value at once, in their dtype."""
    dt = query.dtype
    if dt in _dtype.HALF_FLOATS:
        # half: computed in float32 and rounded once, as torch's CPU kernel (rounding the
        # attention weights before their product with value cost up to 180 ulps near 0)
        mask = attn_mask.float() if getattr(attn_mask, "dtype", None) is dt else attn_mask
        args = (query.float(), key.float(), value.float(), mask, dropout_p, is_causal, scale)
        return _attend(*args, enable_gqa, round_to=dt if flash else None).to(dt)
    return _attend(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _saved_logsumexp(node) -> Tensor:
    """grad_fn._saved_logsumexp of torch's flash node: the (B, H, L) logsumexp of each query's
    scaled (and masked) scores, float32 for half inputs, 0 for a row with every key masked.
    Recomputed when read (minitorch's backward does not use it)."""
    query, key = _kept("query")(node), _kept("key")(node)
    kept = node.__dict__
    with no_grad():
        work = _dtype.float32 if query.dtype in _dtype.HALF_FLOATS else query.dtype
        q, k = query.to(work), key.to(work)
        if k.shape[1] != q.shape[1]:  # enable_gqa
            k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)
        scale = kept["scale"]
        factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
        scores = _ops.matmul(q, k.transpose(-2, -1)) * factor
        L, S = scores.shape[-2:]
        bias = _attn_bias(kept["attn_mask"], kept["is_causal"], L, S, q, work)
        if bias is not None:
            scores = scores + bias
        lse = scores.logsumexp(-1)
        return lse.masked_fill(lse == float("-inf"), 0.0)


show_saved(
    _FLASH_NODE,
    {"logsumexp": _saved_logsumexp}
    | {k: _kept(k) for k in ("attn_mask", "dropout_p", "is_causal", "key")}
    | {"output": saved_value(3), "query": _kept("query")}
    | {k: _kept(k) for k in ("scale", "value")},
)


def _empty_attention(query, key, value) -> Tensor:
    """What torch returns when query, key or value is empty, whatever their other sizes, mask
    and flags: zeros of shape (*query.shape[:-1], value.shape[-1]) plus 0 times the inputs'
    sums (so a nan or inf in them spreads, and each gets a zero gradient)."""
    shape = (*query.shape[:-1], value.shape[-1])
    zero = zeros(shape, dtype=query.dtype, device=query.device)
    return zero + scalar_node((query.sum() + key.sum() + value.sum()) * 0)


def _attend(
    query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, round_to=None
) -> Tensor:
    """The attention itself, on validated arguments (scaled_dot_product_attention's body).
    round_to: the half dtype of float32 inputs torch's flash kernel would run in."""
    dt = query.dtype
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    # mismatched head sizes or positions are left to the matmuls, whose messages are torch's
    if enable_gqa:
        # key and value are repeated each by its own group count (torch 2.13's math path),
        # which reads the head dim -3 of all three first
        short = next((t for t in (query, key, value) if t.ndim < 3), None)
        if short is not None:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-short.ndim}, "
                f"{short.ndim - 1}], but got -3)"
            )
        heads = query.shape[-3]
        if any(t.shape[-3] == 0 or heads % t.shape[-3] for t in (key, value)):
            # torch's message stops after "in " (its text is cut short in torch 2.13)
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in "
            )
        if key.shape[-3] != heads:
            key = key.repeat_interleave(heads // key.shape[-3], dim=-3)
        if value.shape[-3] != heads:
            value = value.repeat_interleave(heads // value.shape[-3], dim=-3)
    factor = 1.0 / math.sqrt(E) if scale is None else scale
    q, k = query, key
    if not dt.is_floating_point:
        # torch scales query and key by a Python float first, so the scores are floating and
        # an integer or bool value is refused at the last matmul
        q, k = query.to(_dtype.default_float()), key.to(_dtype.default_float())
    scores = _ops.matmul(q, k.transpose(-2, -1)) * factor
    bias = _attn_bias(attn_mask, is_causal, L, S, query, scores.dtype)
    if round_to is not None and value.shape[-2] == S:
        return _flash_half(scores, bias, value, round_to)
    if bias is None:
        attn = _ops.softmax(scores, -1)
    else:
        _check_mask_fits(scores.shape, bias.shape)
        # a row whose every key is masked gives 0, not softmax's nan (nor a nan gradient): its
        # bias is replaced by 0 before the softmax and its weights by 0 after
        visible = (bias != float("-inf")).any(-1, keepdim=True)
        attn = _ops.softmax(scores + _ops.where(visible, bias, 0.0), -1)
        attn = _ops.where(visible, attn, 0.0)
    if dropout_p > 0.0:
        if dropout_p > 1:  # torch's math path calls at::dropout, whose check is a RuntimeError
            raise RuntimeError(
                f"dropout probability has to be between 0 and 1, but got {dropout_p}"
            )
        attn = dropout(attn, dropout_p, training=True)
    if value.dtype is not attn.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype.scalar_name(attn.dtype)} but found "
            f"{_dtype.scalar_name(value.dtype)}"
        )
    return _ops.matmul(attn, value)


def _flash_half(scores, bias, value, round_to) -> Tensor:
    """softmax(scores + bias) @ value as torch's CPU flash kernel computes it for half inputs
    (in float32): exp(s - rowmax) is summed unrounded but rounded to the half dtype for its
    product with value, which is then scaled by 1 / sum. Exact for keys up to the kernel's
    block of 512 (past it torch rescales block by block); torch's approximate exp still flips
    the last bit of a few percent of the elements."""
    if bias is not None:
        _check_mask_fits(scores.shape, bias.shape)
        scores = scores + bias
    top = _ops.amax(scores, -1, keepdim=True).detach()
    visible = top != float("-inf")  # a row with every key masked gives 0
    num = _ops.exp(scores - _ops.where(visible, top, 0.0))
    total = _ops.where(visible, num.sum(-1, keepdim=True), 1.0)
    # the weights rounded to the half dtype for the product, as torch's forward; its backward
    # computes in float32, so the rounding passes the gradient through unrounded (num + the
    # rounding error, detached: exactly the rounded value, as the difference is exact)
    rounded = num + (num.to(round_to).to(scores.dtype) - num).detach()
    out = _ops.matmul(rounded, value)
    return out * _ops.where(visible, 1.0 / total, 0.0)


def _check_mask_fits(shape, mask_shape) -> None:
    """torch's math path adds the mask to the scores in place, so a mask that would broadcast
    them to a larger shape (more dims, or a size where they have 1) raises; a mask that does
    not broadcast at all is left to the add's own error."""
    if mask_shape == shape:
        return
    n = max(len(shape), len(mask_shape))
    a = (1,) * (n - len(shape)) + tuple(shape)
    b = (1,) * (n - len(mask_shape)) + tuple(mask_shape)
    if any(x != y and x != 1 and y != 1 for x, y in zip(a, b, strict=True)):
        return
    full = [max(x, y) if min(x, y) else 0 for x, y in zip(a, b, strict=True)]
    if tuple(full) != tuple(shape):
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {full}"
        )
