"""pin_memory under torch's module path. Mirrors torch.utils.data._utils.pin_memory."""

from __future__ import annotations

from minitorch.utils.data._collate import pin_memory

__all__ = ["pin_memory"]
