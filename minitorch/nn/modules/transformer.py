"""Transformer layers: TransformerEncoderLayer/Encoder, TransformerDecoderLayer/Decoder and
Transformer, with torch's parameter names and initialisation. Their attention,
MultiheadAttention, lives in activation.py as in torch and is re-exported here."""

from __future__ import annotations

import copy
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch._factories import full
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn._functional_mha import canonical_mask
from minitorch.nn.modules.activation import MultiheadAttention
from minitorch.nn.modules.container import ModuleList
from minitorch.nn.modules.dropout import Dropout
from minitorch.nn.modules.linear import Linear
from minitorch.nn.modules.module import Module
from minitorch.nn.modules.normalization import LayerNorm

__all__ = [  # MultiheadAttention is activation.py's, imported above
    "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
    "TransformerDecoder", "Transformer",
]  # fmt: skip


def _get_activation_fn(activation: str):
    """F.relu for "relu", F.gelu for "gelu", else RuntimeError. Mirrors torch's private
    torch.nn.modules.transformer._get_activation_fn, which research code imports."""
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _activation(activation):
    # the layers also take a callable (or module) as is
    return _get_activation_fn(activation) if isinstance(activation, str) else activation


def _sa_block(layer, x, attn_mask, key_padding_mask, is_causal):
    x = layer.self_attn(
        x,
        x,
        x,
        attn_mask=attn_mask,
        key_padding_mask=key_padding_mask,
        need_weights=False,
        is_causal=is_causal,
    )[0]
    return layer.dropout1(x)


def _ff_block(layer, x, drop):
    return drop(layer.linear2(layer.dropout(layer.activation(layer.linear1(x)))))


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm
    (after, or before with norm_first). Mirrors torch.nn.TransformerEncoderLayer."""

    __constants__ = ["norm_first"]

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation=F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        # 1: relu, 2: gelu, 0: another (torch's flag; TransformerEncoder's fast path reads it)
        act = self.activation
        name = getattr(act, "__name__", type(act).__name__).lower()
        self.activation_relu_or_gelu = {"relu": 1, "gelu": 2}.get(name, 0)

    def forward(
        self, src: Tensor, src_mask=None, src_key_padding_mask=None, is_causal: bool = False
    ) -> Tensor:
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src, src_mask, "src_mask"
        )
        src_mask = canonical_mask(src_mask, "src_mask", src)
        x = src
        masked = src_mask is not None or src_key_padding_mask is not None
        if masked and not self.training and _native_fast_path(self, src):
            # torch's native kernel reads its (merged) float mask as bool: any nonzero value
            # masks, where the composed path adds it (a 0/1 float mask differs)
            if src_mask is not None:
                src_mask = src_mask != 0
            if src_key_padding_mask is not None:
                src_key_padding_mask = src_key_padding_mask != 0
        if _autocast.state.any_enabled and _fast_path_under_cpu_autocast(self, src):
            # See NOTE [ The encoder layer's fast path under CPU autocast ]
            sa = _sa_block(self, self.norm1(x) if self.norm_first else x, src_mask,
                           src_key_padding_mask, is_causal)  # fmt: skip
            x = (x + sa).to(sa.dtype)
            if self.norm_first:
                return x + _ff_block(self, self.norm2(x), self.dropout2)
            x = self.norm1(x)
            return self.norm2(x + _ff_block(self, x, self.dropout2))
        if self.norm_first:
            x = x + _sa_block(self, self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + _ff_block(self, self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + _sa_block(self, x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + _ff_block(self, x, self.dropout2))
        return x


# NOTE [ The encoder layer's fast path under CPU autocast ]
# In eval mode without gradients torch runs TransformerEncoderLayer as one native kernel, which
# it skips under CUDA autocast only. Under CPU autocast its attention gives the autocast dtype
# and it adds the residual in place (`x.add_(src)`), so the sum is rounded to that dtype and the
# layer's output has it, where the composed (training) path promotes to float32 at the first
# residual. minitorch composes both paths and rounds that residual the same way.


def _fast_path_under_cpu_autocast(layer, src: Tensor) -> bool:
    """Whether torch would run layer on src through its native fast path with CPU autocast on
    (torch's conditions, TransformerEncoderLayer.forward)."""
    st = _autocast.state
    return src._device.type == "cpu" and st.enabled["cpu"] and _native_fast_path(layer, src)


def _native_fast_path(layer, src: Tensor) -> bool:
    """Whether torch would run layer on src through its native kernel (torch's conditions,
    TransformerEncoderLayer.forward)."""
    from minitorch import backends
    from minitorch.autograd.grad_mode import is_grad_enabled

    st = _autocast.state
    attn = layer.self_attn
    if (
        st.enabled["cuda"]  # torch.is_autocast_enabled(): CUDA's
        or src._device.type not in ("cpu", "cuda")
        or not backends.mha.get_fastpath_enabled()
        or src.dim() != 3
        or layer.training
        or not attn.batch_first
        or attn.in_proj_bias is None
        or not attn._qkv_same_embed_dim
        or not layer.activation_relu_or_gelu
        or layer.norm1.eps != layer.norm2.eps
        or attn.num_heads % 2 == 1
        or any(m._forward_hooks or m._forward_pre_hooks for m in layer.modules())
    ):
        return False
    tensors = [src, *layer.parameters()]
    return not (is_grad_enabled() and any(t.requires_grad for t in tensors))


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, then a feed-forward block, each with
    a residual and LayerNorm. Mirrors torch.nn.TransformerDecoderLayer.

    Differences from torch: a deep copy (as TransformerDecoder makes) keeps a module activation;
    torch's __setstate__ replaces it by F.relu in the copies."""

    __constants__ = ["norm_first"]

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation=F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout2(x)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + _sa_block(self, self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + _ff_block(self, self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + _sa_block(self, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x
                + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + _ff_block(self, x, self.dropout3))
        return x


def _get_clones(module: Module, N: int) -> ModuleList:
    """A ModuleList of N deep copies of module (independent parameters). Mirrors torch's private
    torch.nn.modules.transformer._get_clones, which research code imports."""
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _why_not_nested(layer) -> str:
    """Why torch would not use its nested-tensor path with this encoder layer ('' if it would)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not attn.batch_first:
        return (
            f"{name}.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)"
        )
    if not attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not getattr(layer, "activation_relu_or_gelu", 0):
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def _causal_mask(sz: int, device=None, dtype=None) -> Tensor:
    """(sz, sz): 0 on and below the diagonal, -inf (True for bool) above."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _seq_len(src: Tensor, layers) -> int:
    """The sequence length of src (S, E), (S, N, E) or, batch_first, (N, S, E)."""
    if src.ndim == 2:
        return src.shape[0]
    attn = getattr(layers[0], "self_attn", None)
    return src.shape[1] if getattr(attn, "batch_first", False) else src.shape[0]


def _detect_is_causal(mask, is_causal, size: int, src: Tensor) -> bool:
    """torch's _detect_is_causal_mask: an is_causal given is kept (True only if it is True);
    None means 'is mask the (size, size) causal mask?'. A causal mask found is then dropped by
    multi_head_attention_forward (without key padding), so one SDPA would refuse as given (a
    float64 mask with float32 inputs) runs, as in torch.

    Differences from torch: on a GPU, a mask of src's dtype or bool is not read back to check
    (it is applied as given, which gives the same numbers). A meta mask is read, and refuses as
    torch's does."""
    if is_causal is not None or mask is None:
        return is_causal is True
    gpu = mask._device.type not in ("cpu", "meta")
    if gpu and (mask.dtype is src.dtype or mask.dtype is _dtype.bool):
        return False
    causal = _causal_mask(size, device=mask.device, dtype=mask.dtype)  # first: refuses int masks
    if tuple(mask.shape) != (size, size):
        return False
    return bool((mask == causal).all())


def _check_nested_mask(src: Tensor, key_padding_mask: Tensor) -> None:
    """The shape checks of torch's conversion of src to a nested tensor (a RuntimeError there,
    where the layers' own checks raise AssertionError)."""
    if key_padding_mask.ndim != 2:
        raise RuntimeError("Padding mask should be 2D")
    if tuple(key_padding_mask.shape) != tuple(src.shape[:2]):
        raise RuntimeError("Mask size should match input size")


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer, then an optional norm. Mirrors
    torch.nn.TransformerEncoder.

    NOTE [ The nested-tensor path ]: in eval mode without gradients, with a left-aligned
    src_key_padding_mask and the layer torch's fast path takes (batch_first, post-norm,
    relu/gelu, an even number of heads, ...), torch runs the layers on a nested tensor and pads
    the result with zeros: the padded positions of the output are 0 before the final norm.
    minitorch computes the same layers with the mask and writes those zeros.

    Differences from torch: on a GPU the mask is not read back to check its alignment, so the
    zeros are not written there; see _detect_is_causal for the mask given with is_causal=None."""

    __constants__ = ["norm"]

    def __init__(
        self,
        encoder_layer: Module,
        num_layers: int,
        norm=None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(
                f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                stacklevel=2,
            )
        self.use_nested_tensor = enable_nested_tensor and not why

    def forward(self, src: Tensor, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src, mask, "mask"
        )
        mask = canonical_mask(mask, "mask", src)
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        if padded is not None:  # the nested tensor holds the kept positions only: a float
            src_key_padding_mask = padded  # mask's nonzeros pad, whatever their values
        is_causal = _detect_is_causal(mask, is_causal, _seq_len(src, self.layers), src)
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if padded is not None:  # NOTE [ The nested-tensor path ]
            output = output.masked_fill(padded.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_padding(self, src, mask, key_padding_mask):
        """The (N, S) padded positions where torch would take its nested-tensor path, else
        None (torch's conditions, in its order)."""
        from minitorch.autograd.grad_mode import is_grad_enabled

        first = self.layers[0]
        if (
            not getattr(self, "use_nested_tensor", False)
            or first.training
            or src.dim() != 3
            or key_padding_mask is None
        ):
            return None
        on_cpu = src._device.type == "cpu"  # elsewhere the alignment check would read it back
        pad = key_padding_mask != 0  # canonical: 0 where attended, -inf where padded
        if getattr(self, "mask_check", True):
            _check_nested_mask(src, key_padding_mask)
            if on_cpu and bool((pad[:, :-1] & ~pad[:, 1:]).any()):
                return None  # not left-aligned: a padded position before a kept one
        if mask is not None:
            return None
        if is_grad_enabled() and (
            src.requires_grad or any(p.requires_grad for p in first.parameters())
        ):
            return None
        _check_nested_mask(src, key_padding_mask)  # torch converts, which checks again
        if not on_cpu:
            return None
        from minitorch._settings import warn_once

        warn_once("nested_tensor", _NESTED_WARNING)  # torch's, as it builds the nested tensor
        return pad


_NESTED_WARNING = (
    "The PyTorch API of nested tensors is in prototype stage and will change in the near "
    "future. We recommend specifying layout=torch.jagged when constructing a nested tensor, as "
    "this layout receives active development, has better operator coverage, and works with "
    "torch.compile."
)


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer, then an optional norm. Mirrors
    torch.nn.TransformerDecoder."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer: Module, num_layers: int, norm=None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        tgt_is_causal = _detect_is_causal(tgt_mask, tgt_is_causal, _seq_len(tgt, self.layers), tgt)
        output = tgt
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """An encoder-decoder transformer ("Attention Is All You Need"); every weight matrix drawn
    by xavier_uniform_. Mirrors torch.nn.Transformer."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation=F.relu,
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(
                d_model,
                nhead,
                dim_feedforward,
                dropout,
                activation,
                layer_norm_eps,
                batch_first,
                norm_first,
                bias,
                **kw,
            )
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(
                d_model,
                nhead,
                dim_feedforward,
                dropout,
                activation,
                layer_norm_eps,
                batch_first,
                norm_first,
                bias,
                **kw,
            )
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        src_is_causal=None,
        tgt_is_causal=None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batched = src.ndim == 3
        if not self.batch_first and src.shape[1] != tgt.shape[1] and batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.shape[0] != tgt.shape[0] and batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        """(sz, sz) float mask: 0 on and below the diagonal, -inf above. Mirrors
        torch.nn.Transformer.generate_square_subsequent_mask."""
        return _causal_mask(sz, device=device, dtype=dtype or _dtype.get_default_dtype())

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
