"""torch.compiler as eager no-ops: the guards and decorators libraries call around compiled code.
Mirrors torch.compiler (minitorch.compile itself returns its argument unchanged)."""

from __future__ import annotations

__all__ = [
    "compile",
    "disable",
    "reset",
    "allow_in_graph",
    "assume_constant_result",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "cudagraph_mark_step_begin",
]


def compile(*args, **kwargs):
    """Mirrors torch.compiler.compile: minitorch.compile (returns its argument unchanged)."""
    from minitorch._misc_api import compile as _compile

    return _compile(*args, **kwargs)


def disable(fn=None, recursive=True, *, reason=None):
    """Returns fn unchanged (works as @disable and @disable(recursive=...)). Mirrors
    torch.compiler.disable."""
    if fn is None:
        return lambda f: f
    return fn


def reset() -> None:
    """Nothing to clear. Mirrors torch.compiler.reset."""


def allow_in_graph(fn):
    """Returns fn unchanged. Mirrors torch.compiler.allow_in_graph."""
    return fn


def assume_constant_result(fn):
    """Returns fn unchanged. Mirrors torch.compiler.assume_constant_result."""
    return fn


def is_compiling() -> bool:
    """False: nothing is ever being compiled. Mirrors torch.compiler.is_compiling."""
    return False


def is_dynamo_compiling() -> bool:
    """False. Mirrors torch.compiler.is_dynamo_compiling."""
    return False


def is_exporting() -> bool:
    """False. Mirrors torch.compiler.is_exporting."""
    return False


def cudagraph_mark_step_begin() -> None:
    """Nothing to mark (no CUDA graphs). Mirrors torch.compiler.cudagraph_mark_step_begin."""
