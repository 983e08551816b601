"""torch._dynamo's entry points that scripts call around torch.compile, as eager no-ops
(minitorch.compile compiles nothing: everything runs eagerly). Mirrors torch._dynamo.

Differences from torch: nothing is traced, so disable returns the function itself (torch wraps
it) and the mark_* hints are ignored.
"""

from __future__ import annotations

import functools
import inspect

from minitorch._dynamo import config, utils
from minitorch.compiler import (
    allow_in_graph,
    assume_constant_result,
    disable,
    is_compiling,
    list_backends,
    reset,
    set_stance,
)

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
    "utils",
    "set_stance",
    "graph_break",
    "optimize",
    "explain",
    "assume_constant_result",
    "forbid_in_graph",
    "substitute_in_graph",
    "eval_frame",  # noqa: F822 - imported on first use by __getattr__
    "OptimizedModule",  # noqa: F822
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


def graph_break(msg: str = "") -> None:
    """Ends the traced graph here; a no-op when running eagerly. Mirrors
    torch._dynamo.graph_break."""


def forbid_in_graph(fn):
    """Returns fn (nothing is traced). Mirrors torch._dynamo.forbid_in_graph."""
    if not callable(fn):
        raise AssertionError("forbid_in_graph applies only to callables")
    return fn


def substitute_in_graph(
    original_fn,
    *,
    can_constant_fold_through=False,
    skip_signature_check=False,
    is_embedded_type=False,
):
    """A decorator registering a traceable stand-in for original_fn; returns the stand-in
    unchanged (nothing is traced). Mirrors torch._dynamo.substitute_in_graph."""
    kind = inspect.isclass if is_embedded_type else callable
    if not kind(original_fn):
        raise TypeError(f"substitute_in_graph expects a function but got {type(original_fn)!r}")

    def register(traceable_fn):
        if not callable(traceable_fn):
            raise TypeError(
                f"@substitute_in_graph(...) expects a function but got {type(traceable_fn)!r}"
            )
        return traceable_fn

    return register


def optimize(
    backend="inductor",
    *,
    nopython=False,
    guard_export_fn=None,
    guard_fail_fn=None,
    guard_filter_fn=None,
    disable=False,
    dynamic=None,
    rebuild_ctx=None,
    package=None,
):
    """The PyTorch 2.0 spelling of torch.compile(backend=...): a decorator that wraps a module
    in an OptimizedModule and returns a function as given, as minitorch.compile does (nothing is
    compiled), after checking backend as torch.compile does. Mirrors torch._dynamo.optimize."""
    from minitorch._misc_api import _check_compile_options, compile

    if not isinstance(backend, str) and not callable(backend):
        raise AssertionError(f"A callable function is expected, but {type(backend)} is provided.")
    _check_compile_options(False, dynamic, backend, None, None, disable)
    return functools.partial(compile, backend=backend, disable=disable)


class ExplainOutput:
    """What explain() reports. Mirrors torch._dynamo.backends.debugging.ExplainOutput; with
    nothing traced it reports what torch does for a call that captured no graph."""

    def __init__(self):
        self.graphs: list = []
        self.graph_count = 0
        self.graph_break_count = -1  # torch's graph_count - 1
        self.break_reasons: list = []
        self.op_count = 0
        self.ops_per_graph: list = []
        self.out_guards: list = []
        self.compile_times = ""

    def __str__(self) -> str:
        return (
            f"Graph Count: {self.graph_count}\nGraph Break Count: {self.graph_break_count}\n"
            f"Op Count: {self.op_count}\nBreak Reasons:\nOps per Graph:\nOut Guards:\n"
            f"Compile Times: {self.compile_times}\n"
        )


def explain(f, *extra_args, **extra_kwargs):
    """explain(f)(*args) runs f(*args) and reports the graphs and graph breaks torch.compile
    would make. Mirrors torch._dynamo.explain.

    Differences from torch: nothing is traced, so the report is empty (no graphs, no breaks)."""

    def run(*args, **kwargs):
        f(*args, **kwargs)
        return ExplainOutput()

    if extra_args or extra_kwargs:  # torch's deprecated explain(f, *args) form
        return run(*extra_args, **extra_kwargs)
    return run


def __getattr__(name):
    # OptimizedModule subclasses nn.Module: imported on first use, so that reading
    # torch._dynamo.config does not import nn (NOTE [ Lazy submodules ] in minitorch/__init__.py)
    if name in ("eval_frame", "OptimizedModule"):
        import importlib

        eval_frame = importlib.import_module(f"{__name__}.eval_frame")
        return eval_frame if name == "eval_frame" else eval_frame.OptimizedModule
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
