"""DLPack capsules in and out of minitorch. Mirrors torch.utils.dlpack."""

from __future__ import annotations

from minitorch._dlpack import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
