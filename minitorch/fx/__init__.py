"""torch.fx's names that model code uses outside tracing: `torch.fx.wrap` (called at import by
torchvision-style ops) and `torch.fx.Proxy` (isinstance checks). Mirrors torch.fx.

Differences from torch: there is no symbolic tracing (minitorch runs eagerly): symbolic_trace
raises NotImplementedError, no value is ever a Proxy.
"""

from __future__ import annotations

from minitorch.fx import _symbolic_trace  # noqa: F401 - torch.fx._symbolic_trace.is_fx_tracing

__all__ = ["Proxy", "symbolic_trace", "wrap"]


def wrap(fn_or_name):
    """Marks a function as a leaf for symbolic tracing; returns its argument (a function or the
    name of one), as torch does. Mirrors torch.fx.wrap."""
    return fn_or_name


class Proxy:
    """The placeholder value of symbolic tracing. Mirrors torch.fx.Proxy (nothing creates one
    here: `isinstance(x, torch.fx.Proxy)` is False for every value)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("minitorch has no symbolic tracing: torch.fx.Proxy is unused")


def symbolic_trace(root, concrete_args=None):
    """Mirrors torch.fx.symbolic_trace's signature; minitorch runs eagerly and cannot trace."""
    raise NotImplementedError(
        "torch.fx.symbolic_trace: minitorch runs eagerly and has no symbolic tracing"
    )
