"""nn.attention.bias: causal masks that scaled_dot_product_attention understands without a dense
mask (CausalBias, causal_upper_left, causal_lower_right). Mirrors torch.nn.attention.bias."""

from __future__ import annotations

import enum
import warnings

from minitorch._factories import _shape_seq

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(enum.IntEnum):
    """Which corner a causal mask is anchored to when L != S: UPPER_LEFT keeps key j for query i
    when j <= i, LOWER_RIGHT when j <= i + (S - L) (the last query sees every key, as in KV-cache
    decoding). Mirrors torch.nn.attention.bias.CausalVariant."""

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


# NOTE [ CausalBias dispatch ]
# torch's CausalBias is a Tensor subclass whose __torch_function__ reroutes
# F.scaled_dot_product_attention to CausalBias._dispatch. minitorch calls a subclass's own
# __torch_function__ for its methods and operators only, not for torch.*/F.* functions (NOTE
# [ Tensor subclasses ] in minitorch/_subclass.py), so scaled_dot_product_attention itself hands
# any non-Tensor attn_mask that has a `_dispatch` method over to it
# (nn/_functional_attention.py); the plain-Tensor path pays nothing for it.


class CausalBias:
    """A causal attention mask given by its variant and the two sequence lengths, materialised
    only when needed; pass it as attn_mask to F.scaled_dot_product_attention. Mirrors
    torch.nn.attention.bias.CausalBias.

    Differences from torch: not a Tensor subclass (torch's carries an unused placeholder tensor
    of shape (variant, seq_len_q, seq_len_kv)); to_dense() returns the materialised bool mask.
    See NOTE [ CausalBias dispatch ]."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        # torch's CausalBias is a tensor of size (variant, seq_len_q, seq_len_kv): its size
        # parser's errors for a length that is no int or is negative
        _, seq_len_q, seq_len_kv = _shape_seq((int(variant), seq_len_q, seq_len_kv), "new", None)
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if self.seq_len_q > self.seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn(
                "Lower right causal bias will produce NaNs in the output when "
                "seq_len_q > seq_len_kv!",
                stacklevel=2,
            )

    def _upper_left(self, device):
        from minitorch import _dtype
        from minitorch._factories import ones

        return ones(self.seq_len_q, self.seq_len_kv, dtype=_dtype.bool, device=device).tril()

    def _lower_right(self, device):
        from minitorch import _dtype
        from minitorch._factories import ones

        keep = ones(self.seq_len_q, self.seq_len_kv, dtype=_dtype.bool, device=device)
        return keep.tril(self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None):
        """The (seq_len_q, seq_len_kv) bool mask, True where a key is attended (on the CPU
        unless device is given)."""
        device = "cpu" if device is None else device
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        return self._lower_right(device)

    def to_dense(self):
        return self._materialize()

    @staticmethod
    def _dispatch(
        query,
        key,
        value,
        attn_mask: CausalBias,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: float | None = None,
        enable_gqa: bool = False,
    ):
        """scaled_dot_product_attention with a CausalBias mask: is_causal=True when the two
        corners coincide (upper-left, or square), otherwise the materialised lower-right mask
        (torch's CPU route; its flash/efficient kernels compute the same values)."""
        from minitorch.nn._functional_attention import scaled_dot_product_attention as sdpa

        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        options = {"scale": scale, "enable_gqa": enable_gqa}
        if (
            attn_mask.seq_len_q == attn_mask.seq_len_kv
            or attn_mask.variant == CausalVariant.UPPER_LEFT
        ):
            return sdpa(query, key, value, None, dropout_p, True, **options)
        mask = attn_mask._materialize(query.device)
        return sdpa(query, key, value, mask, dropout_p, False, **options)

    def __repr__(self) -> str:
        return repr(self._materialize())


def _causal(variant: CausalVariant, name: str, size) -> CausalBias:
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return CausalBias(variant, size[0], size[1])


def causal_upper_left(*size) -> CausalBias:
    """A CausalBias keeping key j for query i when j <= i; causal_upper_left(L, S) is what
    is_causal=True does. Mirrors torch.nn.attention.bias.causal_upper_left."""
    return _causal(CausalVariant.UPPER_LEFT, "causal_upper_left", size)


def causal_lower_right(*size) -> CausalBias:
    """A CausalBias keeping key j for query i when j <= i + (S - L): the L newest queries of a
    KV cache of length S. Mirrors torch.nn.attention.bias.causal_lower_right."""
    return _causal(CausalVariant.LOWER_RIGHT, "causal_lower_right", size)
