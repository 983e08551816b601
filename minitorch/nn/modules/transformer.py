"""Attention and transformer layers: MultiheadAttention, TransformerEncoderLayer/Encoder,
TransformerDecoderLayer/Decoder and Transformer, with torch's parameter names, layout
(in_proj_weight stacks W_q, W_k, W_v) and initialisation."""

from __future__ import annotations

import copy
import warnings

from minitorch import _dtype
from minitorch._factories import empty, full
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn._functional_mha import canonical_mask, multi_head_attention_forward
from minitorch.nn.modules.container import ModuleList
from minitorch.nn.modules.dropout import Dropout
from minitorch.nn.modules.linear import Linear, NonDynamicallyQuantizableLinear
from minitorch.nn.modules.module import Module
from minitorch.nn.modules.normalization import LayerNorm
from minitorch.nn.parameter import Parameter

__all__ = [
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
    "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
]  # fmt: skip


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim / num_heads each. Mirrors
    torch.nn.MultiheadAttention: in_proj_weight (3E, E) when kdim == vdim == E, else
    q/k/v_proj_weight; out_proj; optional bias_k/bias_v; inputs (L, N, E), (N, L, E) with
    batch_first, or unbatched (L, E); forward returns (output, weights or None)."""

    __constants__ = ["batch_first"]

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim=None,
        vdim=None,
        batch_first: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask=None,
        need_weights: bool = True,
        attn_mask=None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple:
        batched = query.ndim == 3
        if self.batch_first and batched:
            # transposes keep `query is key is value` (self-attention takes one projection)
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


def _activation(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


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
        if self.norm_first:
            x = x + _sa_block(self, self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + _ff_block(self, self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + _sa_block(self, x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + _ff_block(self, x, self.dropout2))
        return x


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


def _clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


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

    Differences from torch: off the CPU, a mask of src's dtype or bool is not read back to
    check (it is applied as given, which gives the same numbers)."""
    if is_causal is not None or mask is None:
        return is_causal is True
    if mask._device.type != "cpu" and (mask.dtype is src.dtype or mask.dtype is _dtype.bool):
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
        self.layers = _clones(encoder_layer, num_layers)
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
        return pad if on_cpu else None


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer, then an optional norm. Mirrors
    torch.nn.TransformerDecoder."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer: Module, num_layers: int, norm=None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
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
