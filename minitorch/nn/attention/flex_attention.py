"""nn.attention.flex_attention, eager: attention whose scores a user function rewrites (score_mod)
and masks (a BlockMask's mask_mod). Mirrors torch.nn.attention.flex_attention."""

from __future__ import annotations

import inspect
import math

from minitorch import _dtype, _ops
from minitorch._factories import arange, zeros
from minitorch._tensor import Tensor

__all__ = [
    "BlockMask",
    "flex_attention",
    "create_block_mask",
    "create_mask",
    "or_masks",
    "and_masks",
    "noop_mask",
]

_DEFAULT_SPARSE_BLOCK_SIZE = 128

# NOTE [ flex_attention mods are called once, on broadcast indices ]
# torch calls score_mod(score, b, h, q_idx, kv_idx) and mask_mod(b, h, q_idx, kv_idx) per element
# of the (B, H, L, S) scores through vmap, with 0-d int64 indices. minitorch calls each one once,
# with int64 index tensors shaped (B,1,1,1), (1,H,1,1), (1,1,L,1), (1,1,1,S) and the whole score
# tensor, then broadcasts the result to (B, H, L, S). A mod written with tensor ops (arithmetic,
# comparisons, &, |, torch.where, indexing a captured tensor with the indices) means the same in
# both; Python control flow on an index (`if q_idx > 0:`) fails in both.


def _index_grid(B: int, H: int, L: int, S: int, device):
    return (
        arange(B, device=device).reshape(B, 1, 1, 1),
        arange(H, device=device).reshape(1, H, 1, 1),
        arange(L, device=device).reshape(1, 1, L, 1),
        arange(S, device=device).reshape(1, 1, 1, S),
    )


def _is_score_mod(fn) -> bool:
    """Whether fn is a score_mod (5 positional parameters without defaults), not a mask_mod
    (4); anything else is torch's AssertionError."""
    code = getattr(fn, "__code__", None)
    if code is not None:
        n = code.co_argcount - len(getattr(fn, "__defaults__", None) or ())
    else:
        params = inspect.signature(fn).parameters.values()
        n = sum(p.default is inspect.Parameter.empty for p in params)
    if n != 5 and n != 4:
        raise AssertionError(f"Expected 4 or 5 positional args, got {n}")
    return n == 5


def noop_mask(batch: Tensor, head: Tensor, token_q: Tensor, token_kv: Tensor) -> Tensor:
    """A mask_mod keeping every score. Mirrors torch.nn.attention.flex_attention.noop_mask."""
    return batch.new_ones((), dtype=_dtype.bool)


def _check_mods(mask_mods) -> None:
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")


def or_masks(*mask_mods):
    """A mask_mod keeping a score that any of mask_mods keeps. Mirrors
    torch.nn.attention.flex_attention.or_masks."""
    _check_mods(mask_mods)

    def or_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        keep = b.new_zeros((), dtype=_dtype.bool)
        for mask_mod in mask_mods:
            keep = keep | mask_mod(b, h, q_idx, kv_idx)
        return keep

    return or_mask


def and_masks(*mask_mods):
    """A mask_mod keeping a score that all of mask_mods keep. Mirrors
    torch.nn.attention.flex_attention.and_masks."""
    _check_mods(mask_mods)

    def and_mask(b: Tensor, h: Tensor, q_idx: Tensor, kv_idx: Tensor) -> Tensor:
        keep = b.new_ones((), dtype=_dtype.bool)
        for mask_mod in mask_mods:
            keep = keep & mask_mod(b, h, q_idx, kv_idx)
        return keep

    return and_mask


def create_mask(mod_fn, B: int | None, H: int | None, Q_LEN: int, KV_LEN: int, device="cpu"):
    """The dense (B, H, Q_LEN, KV_LEN) bool mask of a mask_mod (or of a score_mod: True where it
    does not give -inf); B or H None means 1. Mirrors torch.nn.attention.flex_attention.create_mask.
    See NOTE [ flex_attention mods are called once, on broadcast indices ]."""
    B = 1 if B is None else B
    H = 1 if H is None else H
    b, h, m, n = _index_grid(B, H, Q_LEN, KV_LEN, device)
    if _is_score_mod(mod_fn):
        scores = zeros(B, H, Q_LEN, KV_LEN, device=device)
        keep = mod_fn(scores, b, h, m, n) != float("-inf")
    else:
        keep = mod_fn(b, h, m, n)
    return keep.expand(B, H, Q_LEN, KV_LEN).clone()


class BlockMask:
    """Which (query, key) pairs flex_attention keeps, from create_block_mask: the mask_mod, the
    shape (B, H, Q_LEN, KV_LEN) it was made for and its BLOCK_SIZE. Mirrors
    torch.nn.attention.flex_attention.BlockMask.

    Differences from torch: only what the eager computation reads is kept (no kv_num_blocks /
    kv_indices tables, no slicing, no from_kv_blocks); to_dense() gives the block-level mask."""

    def __init__(self, mask_mod, shape, BLOCK_SIZE, blocks: Tensor):
        self.mask_mod = mask_mod
        self.shape = tuple(shape)
        self.seq_lengths = self.shape[-2:]
        self.BLOCK_SIZE = tuple(BLOCK_SIZE)
        self._blocks = blocks

    def to_dense(self) -> Tensor:
        """(B, H, Q blocks, KV blocks) int32: 1 where a block keeps any score."""
        return self._blocks

    def numel(self) -> int:
        return math.prod(self.shape)

    def __repr__(self) -> str:
        name = getattr(self.mask_mod, "__name__", repr(self.mask_mod))
        return f"BlockMask(shape={self.shape}, BLOCK_SIZE={self.BLOCK_SIZE}, mask_mod={name})"


def create_block_mask(
    mask_mod,
    B: int | None,
    H: int | None,
    Q_LEN: int,
    KV_LEN: int,
    device=None,
    BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_SPARSE_BLOCK_SIZE,
    _compile=False,
    separate_full_blocks: bool = True,
    compute_dq_write_order: bool = False,
    dq_kv_order: bool = True,
) -> BlockMask:
    """A BlockMask for mask_mod over (B, H, Q_LEN, KV_LEN) (B or H None: 1, shared by every batch
    or head); mask_mod is evaluated here, so its errors surface here. Mirrors
    torch.nn.attention.flex_attention.create_block_mask.

    Differences from torch: _compile, separate_full_blocks and the dq options change nothing."""
    if _is_score_mod(mask_mod):
        raise AssertionError(f"create-block_mask requires a mask_mod function! Got {mask_mod}")
    if device is None:
        from minitorch import get_default_device

        device = get_default_device()
    bq, bk = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else BLOCK_SIZE
    B = 1 if B is None else B
    H = 1 if H is None else H
    keep = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    nq, nk = -(-Q_LEN // bq), -(-KV_LEN // bk)
    padded = zeros(B, H, nq * bq, nk * bk, dtype=_dtype.bool, device=device)
    padded[:, :, :Q_LEN, :KV_LEN] = keep
    blocks = padded.reshape(B, H, nq, bq, nk, bk).any(5).any(3).to(_dtype.int32)
    return BlockMask(mask_mod, (B, H, Q_LEN, KV_LEN), (bq, bk), blocks)


def _check_inputs(query, key, value, block_mask, enable_gqa) -> None:
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise ValueError(
            f"flex_attention: expected query, key and value to be at least 2-D, but got "
            f"query.dim: {query.ndim}, key.dim: {key.ndim} and value.dim: {value.ndim}"
        )
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(
            "Expect query and key/value to have the same embedding dimension but got "
            f"E={query.shape[-1]} and E={key.shape[-1]}."
        )
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise NotImplementedError("NYI: query, key, and value must be 4D tensors")
    Hq, Hkv = query.shape[1], key.shape[1]
    if not enable_gqa and Hq != Hkv:
        raise ValueError(
            "Expect query and key/value to have the same number of heads but got "
            f"Hq={Hq} and Hkv={Hkv}. Try setting enable_gqa=True for GQA."
        )
    if enable_gqa and (Hkv == 0 or Hq % Hkv):
        raise ValueError(
            "Expect number of query heads to be a multiple of kv heads for GQA but got "
            f"Hq={Hq} and Hkv={Hkv}."
        )
    Bq, Bkv = query.shape[0], key.shape[0]
    if Bq != Bkv and block_mask is None:
        raise ValueError(
            "Expect query and key/value to have the same batch size, or non-none block_mask, "
            f"but got block_mask=None, Bq={Bq}, and Bkv={Bkv}."
        )
    if Bq != Bkv and Bkv != 1:
        raise RuntimeError(f"Bq and Bkv must broadcast. Got Bq={Bq} and Bkv={Bkv}")
    if block_mask is None:
        return
    L, S = query.shape[-2], key.shape[-2]
    mL, mS = block_mask.seq_lengths
    if L > mL or S > mS:
        raise ValueError(
            f"block_mask was created for block_mask.shape={block_mask.shape} but got q_len={L} "
            f"and kv_len={S}. As the block mask was created for a smaller length than you're "
            "using it for, you likely need to create a new block mask."
        )
    if L != mL or S != mS:
        raise ValueError(
            f"block_mask was created for block_mask.shape={block_mask.shape} but got q_len={L} "
            f"and kv_len={S}. As the block mask was created for a larger length than you're "
            "using it for, you can either 1. create a new block mask with the correct length, or "
            "2. 'adjust' the existing block mask to the correct length by calling "
            "block_mask._adjust(q_len, kv_len). This essentially 'crops' the block mask to the "
            "upper left corner, which does not work for all mask_mods!"
        )
    if block_mask._blocks.device != query.device:
        raise RuntimeError(
            "Expect q/k/v and block_mask to be on the same device but got "
            f"{query.device} and {block_mask._blocks.device}."
        )


def flex_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    score_mod=None,
    block_mask: BlockMask | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
    return_lse: bool = False,
    kernel_options=None,
):
    """softmax(s) @ value for (B, H, L, E) query and (B, Hkv, S, E) key, (B, Hkv, S, Ev) value,
    where s = score_mod(query @ key^T * scale, b, h, q_idx, kv_idx) (scale = 1/sqrt(E) by
    default), set to -inf where block_mask's mask_mod is False. A row with every score masked
    gives 0 and a logsumexp of -inf. Scores are computed in float32 (float64 for float64 query).
    With return_lse, also the (B, H, L) logsumexp of s. Mirrors
    torch.nn.attention.flex_attention.flex_attention.

    Differences from torch: the mods are called once on broadcast index tensors (see NOTE
    [ flex_attention mods are called once, on broadcast indices ]); backward works on every
    device (torch's eager CPU path refuses inputs that require grad); no return_aux;
    kernel_options is ignored."""
    _check_inputs(query, key, value, block_mask, enable_gqa)
    B, Hq, L, E = query.shape
    groups = Hq // key.shape[1] if key.shape[1] else 1
    if groups > 1:
        key = key.repeat_interleave(groups, dim=1)
        value = value.repeat_interleave(groups, dim=1)
    if key.shape[0] != B:  # a single key/value batch shared by every query batch
        key = key.expand(B, *key.shape[1:])
        value = value.expand(B, *value.shape[1:])
    S = key.shape[-2]
    work = _dtype.float64 if query.dtype is _dtype.float64 else _dtype.float32
    factor = 1.0 / math.sqrt(E) if scale is None else scale
    scores = _ops.matmul(query.to(work), key.to(work).transpose(-2, -1)) * factor
    if score_mod is not None or block_mask is not None:
        b, h, m, n = _index_grid(B, Hq, L, S, query.device)
        if score_mod is not None:
            scores = score_mod(scores, b, h, m, n).expand(B, Hq, L, S)
        if block_mask is not None:
            scores = _ops.where(block_mask.mask_mod(b, h, m, n), scores, float("-inf"))
    # a fully masked row gives output 0 and lse -inf with a zero gradient (torch's safe
    # softmax): its scores are replaced by 0 before the softmax / logsumexp and their results
    # overwritten after, so no nan reaches either direction
    masked = (scores == float("-inf")).all(-1, keepdim=True)
    scores = _ops.where(masked, 0.0, scores)
    attn = _ops.where(masked, 0.0, _ops.softmax(scores, -1))
    out = _ops.matmul(attn.to(query.dtype), value.to(query.dtype))
    if not return_lse:
        return out
    lse = _ops.where(masked.squeeze(-1), float("-inf"), scores.logsumexp(-1))
    return out, lse
