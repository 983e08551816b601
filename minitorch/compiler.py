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
    "list_backends",
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


# the tags torch gives its registered backends; list_backends() leaves out "debug" and
# "experimental" ones by default
_BACKEND_TAGS = {
    "eager": ("debug",),
    "aot_eager": ("debug",),
    "aot_eager_decomp_partition": ("debug",),
    "aot_eager_default_partitioner": ("debug",),
    "aot_ts": ("debug",),
    "eager_debug": ("debug",),
    "eager_noexcept": ("debug",),
    "pre_dispatch_eager": ("debug",),
    "invoke_subgraph": ("debug",),
    "openxla_eval": ("experimental",),
    "ts": ("experimental",),
}


def list_backends(exclude_tags=("debug", "experimental")) -> list[str]:
    """The backend names minitorch.compile accepts (all run eagerly), sorted, without those
    tagged with any of exclude_tags. Mirrors torch.compiler.list_backends."""
    from minitorch._misc_api import _COMPILE_BACKENDS

    excluded = set(exclude_tags or ())
    return sorted(
        name for name in _COMPILE_BACKENDS if not excluded & set(_BACKEND_TAGS.get(name, ()))
    )
