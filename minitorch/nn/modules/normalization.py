"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm and CrossMapLRN2d modules."""

from __future__ import annotations

import numbers

from minitorch import _dtype
from minitorch._factories import empty
from minitorch._tensor import Tensor
from minitorch.autograd.function import Function
from minitorch.nn import functional as F
from minitorch.nn import init
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _shape_tuple(normalized_shape) -> tuple:
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Normalises over the last dims (normalized_shape), with an elementwise affine. Mirrors
    torch.nn.LayerNorm (weight ones, bias zeros)."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Normalises groups of channels, with a per-channel affine. Mirrors torch.nn.GroupNorm."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(empty(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) * weight over the last dims. Mirrors torch.nn.RMSNorm."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(
        self,
        normalized_shape,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class LocalResponseNorm(Module):
    """Normalises each channel by its neighbours' squared activity. Mirrors
    torch.nn.LocalResponseNorm."""

    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


# NOTE [ CrossMapLRN2d's windows ]
# torch's CrossMapLRN2d (the Lua-era layer) is not LocalResponseNorm: it keeps a running sum of
# squares over the channels in which channel 0, once added, is never taken out, so with
# p = (size + 1) // 2 the scale of channel c sums x_j^2 over j in [c - p + 1, c + p - 1] (clipped
# to the channels) plus j = 0 when that window has moved past it. Its hand-written backward is
# not the derivative of that: it sums g * out / scale over j in [c - p, c + size - 1 - p] (no
# channel-0 term). Both are matched here, as the spec; see _CrossMapLRN2d.


def _channel_window_sum(t: Tensor, lo: int, hi: int) -> Tensor:
    """sum over j in [c + lo, c + hi] (clipped to the channels) of t[:, j], for every channel c."""
    c = t.shape[1]
    before, after = max(-lo, 0), max(hi, 0)
    padded = F.pad(t, (0, 0, 0, 0, before, after))
    total = None
    for off in range(lo, hi + 1):
        part = padded.narrow(1, off + before, c)
        total = part if total is None else total + part
    return total if total is not None else t * 0


def _cross_map_scale(x: Tensor, size: int, alpha: float, k: float) -> Tensor:
    """k + alpha / size * (torch's windowed sum of squares; NOTE [ CrossMapLRN2d's windows ])."""
    p = (size + 1) // 2
    sq = x * x
    total = _channel_window_sum(sq, 1 - p, p - 1)
    channels = x.shape[1]
    if channels > p:  # channel 0 stays in the sum of channels p.. (left out of their window)
        stale = [0.0] * p + [1.0] * (channels - p)
        mask = x.new_tensor(stale).reshape(1, channels, 1, 1)
        total = total + sq.narrow(1, 0, 1) * mask
    return total * (alpha / size) + k


class _CrossMapLRN2d(Function):
    """out = x * scale^-beta; grad as torch's own backward (NOTE [ CrossMapLRN2d's windows ])"""

    _node_name = "CrossMapLRN2dBackward"

    @staticmethod
    def forward(ctx, input, *, size, alpha, beta, k):
        ctx.save_for_backward(input)
        ctx.options = (size, alpha, beta, k)
        x = input.detach()
        return (x * _cross_map_scale(x, size, alpha, k).pow(-beta))._data

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._stored_tensors
        size, alpha, beta, k = ctx.options
        scale = _cross_map_scale(x, size, alpha, k)  # recomputed: saving out would cycle
        inv = scale.pow(-beta)
        ratio = grad * x * inv / scale  # grad * out / scale
        p = (size + 1) // 2
        acc = _channel_window_sum(ratio, -p, size - 1 - p)
        return inv * grad - x * acc * (2 * alpha * beta / size)


class CrossMapLRN2d(Module):
    """Cross-channel local response normalization of 4-d input, in torch's legacy windows (NOTE
    [ CrossMapLRN2d's windows ]). Mirrors torch.nn.CrossMapLRN2d.

    Differences from torch: size=1 has a gradient (torch's backward raises).
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
        if not input.dtype.is_floating_point:
            raise RuntimeError(
                "result type Float can't be cast to the desired output type "
                f"{_dtype.scalar_name(input.dtype)}"
            )
        return _CrossMapLRN2d.apply(
            input, size=self.size, alpha=self.alpha, beta=self.beta, k=self.k
        )

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
