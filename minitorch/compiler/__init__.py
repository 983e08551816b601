"""torch.compiler as eager no-ops: the guards and decorators libraries call around compiled code.
Mirrors torch.compiler (minitorch.compile itself compiles nothing: everything runs eagerly)."""

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
    "set_stance",
    "nested_compile_region",
    "config",
]


def compile(*args, **kwargs):
    """Mirrors torch.compiler.compile: minitorch.compile (a module wrapped in an
    OptimizedModule that runs it eagerly, a function unchanged)."""
    from minitorch._misc_api import compile as _compile

    return _compile(*args, **kwargs)


def disable(fn=None, recursive=True, *, reason=None):
    """Returns fn unchanged (works as @disable and @disable(recursive=...)). Mirrors
    torch.compiler.disable."""
    if fn is None:
        return _disable_decorator
    return _check_disable_target(fn)


def _check_disable_target(fn):
    if not callable(fn):
        raise AssertionError("fn must be callable")
    return fn


# what disable() and disable(recursive=...) return; it checks what it decorates as torch does
_disable_decorator = _check_disable_target


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    """Marks fn as a region torch.compile may compile once and reuse; outside torch.compile
    (always, here) a no-op, so fn is returned unchanged. Works as @nested_compile_region and
    @nested_compile_region(...). Mirrors torch.compiler.nested_compile_region.

    Differences from torch: torch returns a wrapper that calls fn."""
    if fn is None:
        return lambda f: f
    return fn


def __getattr__(name):
    # config imports minitorch._dynamo (which imports this module): loaded on first use
    if name == "config":
        import importlib

        return importlib.import_module("minitorch.compiler.config")
    raise AttributeError(f"module 'minitorch.compiler' has no attribute '{name}'")


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


# torch.compile's stances; torch checks the name only when a compiled function next runs (an
# unknown one raises there), and minitorch.compile compiles nothing, so here it is only stored
_stance = ["default"]


class set_stance:
    """Sets the compiler's stance ("default", "force_eager", "eager_on_recompile",
    "fail_on_recompile", "eager_then_compile", ...) now, and works as a context manager or
    decorator that restores the previous one. Mirrors torch.compiler.set_stance.

    Differences from torch: minitorch.compile compiles nothing, so every stance runs eagerly and
    an unknown name is never reported (torch raises when a compiled function next runs)."""

    def __init__(
        self, stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None
    ):
        if force_backend is not None and stance != "default":
            raise RuntimeError("non-default stance cannot have force_backend set")
        self.stance = stance
        self.prev = _stance[0]
        _stance[0] = stance  # a plain call sets the stance for good, as torch's does

    def __enter__(self) -> None:
        _stance[0] = self.stance

    def __exit__(self, *exc) -> None:
        _stance[0] = self.prev

    def __call__(self, fn):
        import functools

        _stance[0] = self.prev  # as a decorator it applies only while fn runs

        @functools.wraps(fn)
        def with_stance(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return with_stance
