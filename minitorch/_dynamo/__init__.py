"""torch._dynamo's entry points that scripts call around torch.compile, as eager no-ops
(minitorch.compile returns its argument unchanged). Mirrors torch._dynamo.

Differences from torch: nothing is traced, so disable returns the function itself (torch wraps
it) and the mark_* hints are ignored.
"""

from __future__ import annotations

from minitorch._dynamo import config
from minitorch.compiler import allow_in_graph, disable, is_compiling, list_backends, reset

__all__ = [
    "config",
    "reset",
    "disable",
    "allow_in_graph",
    "is_compiling",
    "list_backends",
    "mark_dynamic",
    "maybe_mark_dynamic",
    "mark_static",
    "mark_static_address",
]


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None) -> None:
    """A shape hint for the compiler; ignored. Mirrors torch._dynamo.mark_dynamic."""


def maybe_mark_dynamic(t, index) -> None:
    """Ignored. Mirrors torch._dynamo.maybe_mark_dynamic."""


def mark_static(t, index=None) -> None:
    """Ignored. Mirrors torch._dynamo.mark_static."""


def mark_static_address(t, guard=True) -> None:
    """Ignored (HF's StaticCache calls it outside compile). Mirrors
    torch._dynamo.mark_static_address."""
