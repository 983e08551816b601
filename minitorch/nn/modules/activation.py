"""Activation modules: thin Modules over nn.functional, with torch's arguments and reprs; and
MultiheadAttention, which torch defines here too (its __module__ and the path code imports it from;
transformer.py, which uses it, re-exports it)."""

from __future__ import annotations

from minitorch._factories import empty
from minitorch._tensor import Tensor
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn._functional_mha import canonical_mask, multi_head_attention_forward
from minitorch.nn.modules._naming import own_methods
from minitorch.nn.modules.linear import NonDynamicallyQuantizableLinear
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU",
    "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU",
    "LogSigmoid", "Softplus", "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin",
    "Softmax", "Softmax2d", "LogSoftmax", "MultiheadAttention",
]  # fmt: skip


def _inplace(inplace: bool, lead: str = ", ") -> str:
    return f"{lead}inplace=True" if inplace else ""


class Threshold(Module):
    """y = x if x > threshold else value. Mirrors torch.nn.Threshold."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace(self.inplace)}"


class _Inplace(Module):
    """An activation whose only argument is `inplace` (repr "inplace=True" when set)."""

    __constants__ = ["inplace"]
    _fn = None

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _inplace(self.inplace, "")


class ReLU(_Inplace):
    """max(0, x). Mirrors torch.nn.ReLU."""

    _fn = staticmethod(F.relu)


class SELU(_Inplace):
    """scale * elu(x, alpha) with the self-normalising constants. Mirrors torch.nn.SELU."""

    _fn = staticmethod(F.selu)


class SiLU(_Inplace):
    """x * sigmoid(x). Mirrors torch.nn.SiLU."""

    _fn = staticmethod(F.silu)


class Mish(_Inplace):
    """x * tanh(softplus(x)). Mirrors torch.nn.Mish."""

    _fn = staticmethod(F.mish)


class Hardsigmoid(_Inplace):
    """relu6(x + 3) / 6. Mirrors torch.nn.Hardsigmoid (whose repr omits inplace)."""

    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""


class Hardswish(Hardsigmoid):
    """x * relu6(x + 3) / 6. Mirrors torch.nn.Hardswish."""

    _fn = staticmethod(F.hardswish)


class RReLU(Module):
    """Leaky ReLU with a random slope in [lower, upper] while training, their mean in eval.
    Mirrors torch.nn.RReLU."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace(self.inplace)}"


class Hardtanh(Module):
    """clamp(x, min_val, max_val). Mirrors torch.nn.Hardtanh (min_value/max_value are its
    deprecated spellings)."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__()
        if min_value is not None:
            import warnings

            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            import warnings

            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:  # (a NaN bound passes, as in torch)
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace(self.inplace)}"


class ReLU6(Hardtanh):
    """min(max(0, x), 6). Mirrors torch.nn.ReLU6."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace(self.inplace, "")


class Sigmoid(Module):
    """1 / (1 + exp(-x)). Mirrors torch.nn.Sigmoid."""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    """tanh(x). Mirrors torch.nn.Tanh."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class ELU(Module):
    """x if x > 0 else alpha (exp(x) - 1). Mirrors torch.nn.ELU."""

    __constants__ = ["alpha", "inplace"]
    _fn = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace(self.inplace)}"


class CELU(ELU):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)). Mirrors torch.nn.CELU."""

    _fn = staticmethod(F.celu)


class GLU(Module):
    """a * sigmoid(b) for the halves a, b of the input along dim. Mirrors torch.nn.GLU."""

    __constants__ = ["dim"]

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """x * Phi(x), or its tanh approximation. Mirrors torch.nn.GELU."""

    __constants__ = ["approximate"]

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """x where |x| > lambd, else 0. Mirrors torch.nn.Hardshrink."""

    __constants__ = ["lambd"]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """x -+ lambd outside [-lambd, lambd], else 0. Mirrors torch.nn.Softshrink."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """max(0, x) + negative_slope * min(0, x). Mirrors torch.nn.LeakyReLU."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace(self.inplace)}"


class LogSigmoid(Module):
    """log(sigmoid(x)), computed stably. Mirrors torch.nn.LogSigmoid."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta x)) / beta, linear above threshold. Mirrors torch.nn.Softplus."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """max(0, x) + weight * min(0, x) with a learnt slope (one, or one per channel). Mirrors
    torch.nn.PReLU."""

    __constants__ = ["num_parameters"]

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """x / (1 + |x|). Mirrors torch.nn.Softsign."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x). Mirrors torch.nn.Tanhshrink."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    __constants__ = ["dim"]
    _fn = None

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along dim. Mirrors torch.nn.Softmax."""

    _fn = staticmethod(F.softmax)


class Softmin(_SoftmaxBase):
    """softmax(-x) along dim. Mirrors torch.nn.Softmin."""

    _fn = staticmethod(F.softmin)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along dim. Mirrors torch.nn.LogSoftmax."""

    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """softmax over the channels of each location of a (N, C, H, W) or (C, H, W) input.
    Mirrors torch.nn.Softmax2d."""

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3, _stacklevel=5)


def _check_mask_types(attn_mask, key_padding_mask) -> None:
    """torch's MultiheadAttention.forward first asks is_floating_point of attn_mask, then (unless
    that was a float tensor) of key_padding_mask: a mask that is no tensor is refused there."""
    from minitorch._ops._common import not_tensor

    for mask in (attn_mask, key_padding_mask):
        if mask is not None and not isinstance(mask, Tensor):
            raise not_tensor("is_floating_point", mask)
        if mask is not None and mask.dtype.is_floating_point:
            return


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim / num_heads each. Mirrors
    torch.nn.MultiheadAttention: in_proj_weight (3E, E) when kdim == vdim == E, else
    q/k/v_proj_weight; out_proj; optional bias_k/bias_v; inputs (L, N, E), (N, L, E) with
    batch_first, or unbatched (L, E); forward returns (output, weights or None).

    Differences from torch: a query whose every key is masked attends to nothing (0, as torch's
    SDPA path gives) also where torch's native eval fast path (here and in
    TransformerEncoderLayer) gives NaN with a bool mask (pytorch issues 107084, 118628)."""

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
        _check_mask_types(attn_mask, key_padding_mask)
        # torch's module turns bool masks into float ones (and refuses other dtypes) before
        # anything else, so an integer attn_mask is refused even where is_causal would drop it
        key_padding_mask = canonical_mask(
            key_padding_mask, "key_padding_mask", query, attn_mask, "attn_mask"
        )
        attn_mask = canonical_mask(attn_mask, "attn_mask", query)
        try:
            batched = query.ndim == 3
        except AttributeError:  # torch's module reads query.dim() first: its AttributeError
            query.dim()
            raise
        if is_causal and batched and _native_fast_path(self, query, key, value):
            # torch's native kernel takes no is_causal: there the hint is dropped (a mask given
            # applies as it is; without one, no causal mask and no error)
            is_causal = False
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
        try:
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
        except AssertionError:
            width = query.shape[-1] if batched else None  # (a 0-d query has none)
            if batched and width != self.embed_dim and _native_fast_path(self, query, key, value):
                # torch's native kernel checks the query's width with its own message
                raise RuntimeError(
                    f"passed-in embed_dim {self.embed_dim} didn't match last dim of query {width}"
                ) from None
            raise
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights

    def merge_masks(self, attn_mask, key_padding_mask, query: Tensor) -> tuple:
        """(mask, mask_type) for a (N, L, E) query: (key_padding_mask, 1) alone; with an
        attn_mask, (L, L) or (N * num_heads, L, L), that mask viewed as (N, num_heads, L, L)
        plus the padding mask broadcast over heads and queries (a logical or for bool masks),
        type 2; (None, None) without masks. Mirrors torch.nn.MultiheadAttention.merge_masks."""
        mask_type = merged = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            if attn_mask.dim() == 3:
                merged = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged = attn_mask.view(1, 1, seq_len, seq_len)
                merged = merged.expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                padding = key_padding_mask.view(batch_size, 1, 1, seq_len)
                merged = merged + padding.expand(-1, self.num_heads, -1, -1)
            mask_type = 2
        return merged, mask_type


def _native_fast_path(mha: MultiheadAttention, query, key, value) -> bool:
    """Whether torch would run a batched call of mha through its native kernel (torch's
    conditions, MultiheadAttention.forward)."""
    from minitorch import _autocast_state as _autocast
    from minitorch import backends
    from minitorch.autograd.grad_mode import is_grad_enabled

    w, b = mha.in_proj_weight, mha.in_proj_bias
    if (
        not backends.mha.get_fastpath_enabled()
        or query is not key
        or key is not value
        or w is None
        or b is None
        or query.dtype is not w.dtype
        or query.dtype is not b.dtype
        or mha.training
        or mha.num_heads % 2
        or not mha.batch_first
        or mha.bias_k is not None
        or mha.bias_v is not None
        or mha.add_zero_attn
        or _autocast.state.enabled["cuda"]  # torch.is_autocast_enabled(): CUDA's
    ):
        return False
    tensors = (query, w, b, mha.out_proj.weight, mha.out_proj.bias)
    if any(t._device.type not in ("cpu", "cuda") for t in tensors):
        return False
    return not (is_grad_enabled() and any(t.requires_grad for t in tensors))


# torch defines __init__ and forward in each of these classes, so its argument errors name them
# (ReLU.forward() got an unexpected keyword argument ...), not the shared base here
_SHARED = (ReLU, SELU, SiLU, Mish, Hardsigmoid, Hardswish, CELU, Softshrink)
for _cls in _SHARED + (Softmax, Softmin, LogSoftmax):
    own_methods(_cls, *(n for n in ("__init__", "forward") if n not in _cls.__dict__))
del _cls, _SHARED
