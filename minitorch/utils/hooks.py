"""Hook handles. Mirrors torch.utils.hooks (the machinery lives in minitorch.nn.modules._hooks)."""

from __future__ import annotations

from minitorch.nn.modules._hooks import BackwardHook, RemovableHandle

__all__ = ["RemovableHandle", "BackwardHook", "unserializable_hook"]


def unserializable_hook(f):
    """Marks a hook as one that is not to be serialized. Mirrors
    torch.utils.hooks.unserializable_hook."""
    f.__torch_unserializable__ = True
    return f
