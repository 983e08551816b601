"""torch.fx._symbolic_trace: is_fx_tracing, which model code asks before data-dependent Python
control flow. Mirrors torch.fx._symbolic_trace."""

from __future__ import annotations

__all__ = ["is_fx_tracing", "is_fx_symbolic_tracing"]


def is_fx_tracing() -> bool:
    """False: minitorch has no symbolic tracing. Mirrors torch.fx._symbolic_trace.is_fx_tracing
    (without torch's warning that it also answers for torch.export)."""
    return False


def is_fx_symbolic_tracing() -> bool:
    """False. Mirrors torch.fx._symbolic_trace.is_fx_symbolic_tracing."""
    return False
