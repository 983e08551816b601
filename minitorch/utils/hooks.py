"""Hook handles. Mirrors torch.utils.hooks (the machinery lives in minitorch.nn.modules._hooks)."""

from __future__ import annotations

import warnings

from minitorch.nn.modules._hooks import BackwardHook, RemovableHandle

__all__ = ["RemovableHandle", "BackwardHook", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f):
    """Marks a hook as one that is not to be serialized. Mirrors
    torch.utils.hooks.unserializable_hook."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor) -> None:
    """Warns, once per hook, about each backward hook registered on `tensor` that is not marked
    with unserializable_hook: saving the tensor does not keep its hooks. Mirrors
    torch.utils.hooks.warn_if_has_hooks."""
    hooks = tensor._backward_hooks
    if not hooks:
        return
    for hook in list(hooks.values()):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, "
                "you can decorate the function with @torch.utils.hooks.unserializable_hook to "
                "suppress this warning",
                stacklevel=2,
            )
