"""PixelShuffle and PixelUnshuffle (channels to space and back) and ChannelShuffle."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn import _functional_conv as F
from minitorch.nn._functional_vision import channel_shuffle
from minitorch.nn.modules.module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


class PixelShuffle(Module):
    """(*, C*r^2, H, W) -> (*, C, H*r, W*r). Mirrors torch.nn.PixelShuffle."""

    __constants__ = ["upscale_factor"]

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H*r, W*r) -> (*, C*r^2, H, W). Mirrors torch.nn.PixelUnshuffle."""

    __constants__ = ["downscale_factor"]

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Regroups (N, g*k, *) channels as (N, k*g, *). Mirrors torch.nn.ChannelShuffle."""

    # torch's path, which type() shows (that module re-exports it)
    __module__ = "minitorch.nn.modules.channelshuffle"

    __constants__ = ["groups"]

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
