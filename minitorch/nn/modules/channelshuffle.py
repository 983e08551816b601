"""torch.nn.modules.channelshuffle's import path: ChannelShuffle lives in pixelshuffle.py."""

from minitorch.nn.modules.pixelshuffle import ChannelShuffle

__all__ = ["ChannelShuffle"]
