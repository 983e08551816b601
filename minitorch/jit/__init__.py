"""torch.jit as eager pass-throughs: scripted and traced functions and modules run as written.
Mirrors torch.jit's decorators and guards so code written for TorchScript runs unchanged.

Differences from torch: nothing is compiled. script and trace return the object given (so
`isinstance(m, torch.jit.ScriptModule)` is False for a "scripted" module), and save/load of
TorchScript archives raise NotImplementedError. The entry points torch 2.13 deprecates give its
DeprecationWarning once per call, where torch's internals repeat some (trace of a function
twice, trace_module's "trace_method" twice).
"""

from __future__ import annotations

import builtins
import collections
import contextlib
import sys
import typing
import warnings
from typing import Final  # noqa: F401 - torch.jit.Final, re-exported

from minitorch.futures import Future

__all__ = [
    "script",
    "trace",
    "trace_module",
    "script_if_tracing",
    "ignore",
    "unused",
    "export",
    "interface",
    "is_scripting",
    "is_tracing",
    "annotate",
    "fork",
    "wait",
    "fuser",
    "Future",
    "freeze",
    "optimize_for_inference",
    "optimized_execution",
    "save",
    "load",
    "Final",
    "ScriptModule",  # noqa: F822 - made on first use by __getattr__
    "ScriptFunction",
    "Error",
    "TracerWarning",
    "script_method",
    "Attribute",
    "isinstance",
    "enable_onednn_fusion",
    "onednn_fusion_enabled",
    "set_fusion_strategy",
]


def _warn_deprecated(api: str, instead: str = "switch to `torch.compile` or `torch.export`"):
    """torch 2.13's DeprecationWarning for the TorchScript entry point `api`. Given at torch's
    stack level (it names this file, not the caller), so Python's default filters hide it as
    they hide torch's."""
    if sys.version_info >= (3, 14) and instead.startswith("switch"):
        msg = f"`torch.jit.{api}` is not supported in Python 3.14+ and may break. Please {instead}."
    else:
        msg = f"`torch.jit.{api}` is deprecated. Please {instead}."
    warnings.warn(msg, DeprecationWarning, stacklevel=1)


_USE_COMPILE = "use `torch.compile` instead"


class Error(RuntimeError):
    """Mirrors torch.jit.Error."""


class TracerWarning(Warning):
    """Mirrors torch.jit.TracerWarning."""


class ScriptFunction:
    """The type torch gives scripted functions; see ScriptModule."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns obj unchanged (a function, a Module or a class): minitorch runs eagerly.
    Mirrors torch.jit.script."""
    _warn_deprecated("script")
    if optimize is not None:
        warnings.warn(
            "`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()"
            "` instead",
            FutureWarning,
            stacklevel=2,
        )
    if builtins.isinstance(obj, type) and _is_module_class(obj):
        raise RuntimeError(
            f"Type '{obj}' cannot be compiled since it inherits from nn.Module, pass an instance "
            "instead"
        )
    return obj


def _is_module_class(cls) -> bool:
    # only for classes given to script(): nn is imported here, not when minitorch.jit is
    from minitorch import nn

    return issubclass(cls, nn.Module)


def trace(
    func,
    example_inputs=None,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-05,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_kwarg_inputs=None,
    _store_inputs=True,
):
    """Runs func once on example_inputs (a tensor, a tuple of arguments, or the keyword
    arguments example_kwarg_inputs) and returns func itself, after torch's checks of the
    arguments and of what func returns. Mirrors torch.jit.trace.

    Differences from torch: nothing is recorded, so the returned object runs the Python code
    on every call: control flow that depends on the inputs follows each call's inputs (torch's
    trace replays the branches the example took, with a TracerWarning) and side effects happen
    on every call. check_trace, check_inputs and check_tolerance are not used: func runs once
    (torch runs it again, and its recorded graph, to check the trace)."""
    _warn_deprecated("trace")
    module = func if _is_module_instance(func) else None
    if module is None and getattr(func, "__name__", None) == "forward":
        module = getattr(func, "__self__", None)
        module = module if _is_module_instance(module) else None
    if example_inputs is None and example_kwarg_inputs is None:  # torch's errors for no inputs
        if module is None:
            raise TypeError("'NoneType' object is not iterable")
        raise RuntimeError("example_kwarg_inputs should be a dict")
    if module is not None:  # torch traces a module by trace_module
        _warn_deprecated("trace_method")
    elif _is_module_instance(getattr(func, "__self__", None)):
        raise AttributeError(
            "trace doesn't support compiling individual module's functions.\n"
            "Please use trace_module"
        )
    args, kwargs = _example_arguments(example_inputs, example_kwarg_inputs)
    _check_traced_output(func(*args, **kwargs), strict)
    return func


def _example_arguments(example_inputs, example_kwarg_inputs):
    """(args, kwargs) of the call trace makes, normalised as torch's trace does: a single tensor
    is one argument, any other iterable the tuple of arguments."""
    from minitorch._tensor import Tensor

    if builtins.isinstance(example_kwarg_inputs, dict):
        return (), example_kwarg_inputs
    if builtins.isinstance(example_inputs, (Tensor, dict)):
        return (example_inputs,), {}
    return tuple(example_inputs), {}


def _check_traced_output(out, strict: bool) -> None:
    """torch's tracer errors for an output it cannot record."""
    if out is None:
        raise RuntimeError(
            "The traced function didn't return any values! Side-effects are not captured in "
            "traces, so it would be a no-op."
        )

    _check_traced_value(out, strict)


def _check_traced_value(value, strict: bool) -> None:
    """_check_traced_output's walk of the output's containers (module level: a nested function
    calling itself holds itself in a reference cycle, function <-> cell)."""
    from minitorch._tensor import Tensor

    if builtins.isinstance(value, Tensor):
        return
    if builtins.isinstance(value, (list, tuple)):
        for v in value:
            _check_traced_value(v, strict)
        return
    if builtins.isinstance(value, dict):
        if strict:
            raise RuntimeError(
                "Encountering a dict at the output of the tracer might cause the trace to "
                "be incorrect, this is only valid if the container structure does not "
                "change based on the module's inputs. Consider using a constant container "
                "instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a "
                "`NamedTuple` instead). If you absolutely need this and know the side "
                "effects, pass strict=False to trace() to allow this behavior."
            )
        for v in value.values():
            _check_traced_value(v, strict)
        return
    raise RuntimeError(
        "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output "
        "from traced functions"
    )


def _is_module_instance(obj) -> bool:
    from minitorch import nn

    return builtins.isinstance(obj, nn.Module)


def trace_module(mod, inputs, *args, **kwargs):
    """Returns mod unchanged. Mirrors torch.jit.trace_module."""
    _warn_deprecated("trace_method")  # (sic: torch's message for trace_module)
    return mod


def script_if_tracing(fn):
    """Returns fn unchanged. Mirrors torch.jit.script_if_tracing."""
    return fn


# torch's private TorchScript helpers that model code calls directly (torchvision's and timm's
# DenseNet declare forward overloads with @torch.jit._overload_method)


def _script_if_tracing(fn):
    """Returns fn unchanged. Mirrors torch.jit._script_if_tracing."""
    return fn


def _overload(func):
    """Declares a TorchScript overload signature of a function; returns func, so the real
    definition that follows under the same name replaces it. Mirrors torch.jit._overload."""
    return func


def _overload_method(func):
    """Declares a TorchScript overload signature of a method in a class body; returns func, so
    the real method defined after it replaces it. Mirrors torch.jit._overload_method."""
    return func


def _unwrap_optional(x):
    """x, asserting it is not None. Mirrors torch.jit._unwrap_optional."""
    if x is None:
        raise AssertionError("Unwrapping null optional")
    return x


def ignore(drop=False, **kwargs):
    """Marks a function TorchScript should leave to Python; a no-op here. Works as @ignore and
    @ignore(drop=...). Mirrors torch.jit.ignore."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """Returns fn unchanged. Mirrors torch.jit.unused."""
    return fn


def export(fn):
    """Returns fn unchanged. Mirrors torch.jit.export."""
    return fn


def interface(obj):
    """Returns obj unchanged. Mirrors torch.jit.interface."""
    _warn_deprecated("interface", _USE_COMPILE)
    return obj


def is_scripting() -> bool:
    """False: code never runs under TorchScript here. Mirrors torch.jit.is_scripting."""
    return False


def is_tracing() -> bool:
    """False: code never runs under the tracer here. Mirrors torch.jit.is_tracing."""
    return False


def annotate(the_type, the_value):
    """Returns the_value (the type is a hint for TorchScript). Mirrors torch.jit.annotate."""
    return the_value


def fork(func, *args, **kwargs):
    """Runs func now and returns a completed torch.futures.Future of its result (an exception
    func raises is raised here, as torch's fork does when it runs the call inline). Mirrors
    torch.jit.fork (which may run it asynchronously)."""
    _warn_deprecated("fork", _USE_COMPILE)
    future: Future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future):
    """The result of a fork. Mirrors torch.jit.wait."""
    _warn_deprecated("wait", _USE_COMPILE)
    return future.wait()


# the TorchScript fusers fuser() switches between; nothing is fused here
_FUSERS = ("fuser0", "fuser1", "fuser2", "fuser3", "none")


@contextlib.contextmanager
def fuser(name):
    """Selects a TorchScript fuser inside the block; a no-op here (nothing is compiled), but an
    unknown name raises as in torch. Mirrors torch.jit.fuser."""
    if name not in _FUSERS:
        raise Exception(f"unrecognized fuser option (name: {name})")  # noqa: TRY002 - torch's type
    yield


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Returns mod unchanged (a module in eval mode, as torch requires). Mirrors
    torch.jit.freeze."""
    _warn_deprecated("freeze", _USE_COMPILE)
    if getattr(mod, "training", False):
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call .eval() "
            "on your module before freezing."
        )
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Returns mod, put in eval mode and frozen as torch does first. Mirrors
    torch.jit.optimize_for_inference."""
    _warn_deprecated("optimize_for_inference", _USE_COMPILE)
    if hasattr(mod, "training"):
        mod = freeze(mod.eval(), preserved_attrs=other_methods)
    return mod


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """A no-op context. Mirrors torch.jit.optimized_execution."""
    yield


def save(m, f, _extra_files=None):
    """TorchScript archives need a compiled program: use minitorch.save(model.state_dict(), f).
    Mirrors torch.jit.save's signature."""
    _warn_deprecated("save", "switch to `torch.export`")
    raise NotImplementedError(
        "torch.jit.save: minitorch has no TorchScript; save the weights with "
        "minitorch.save(model.state_dict(), f) instead"
    )


def load(f, map_location=None, _extra_files=None, _restore_shapes=False, **kwargs):
    """Mirrors torch.jit.load's signature; see save."""
    _warn_deprecated("load", "switch to `torch.export`")
    raise NotImplementedError(
        "torch.jit.load: minitorch has no TorchScript; build the model in Python and load its "
        "weights with model.load_state_dict(minitorch.load(f))"
    )


def _make_script_module():
    from minitorch import nn

    class ScriptModule(nn.Module):
        """The base of old-style TorchScript modules (methods marked @script_method) and the type
        torch gives scripted modules. Mirrors torch.jit.ScriptModule: here a plain nn.Module
        whose methods run as written; `self.x = Attribute(value, type)` stores value.

        Differences from torch: script() returns the module given, never a ScriptModule."""

        def __setattr__(self, name, value):
            if value.__class__ is Attribute:
                value = value.value
            super().__setattr__(name, value)

    ScriptModule.__module__, ScriptModule.__qualname__ = __name__, "ScriptModule"
    return ScriptModule


def _make_recursive_script_module():
    class RecursiveScriptModule(__getattr__("ScriptModule")):
        """The type torch.jit.script gives an nn.Module. Mirrors torch.jit.RecursiveScriptModule
        for isinstance checks: script() returns the module given, so no module is one."""

    RecursiveScriptModule.__module__ = __name__
    RecursiveScriptModule.__qualname__ = "RecursiveScriptModule"
    return RecursiveScriptModule


_LAZY_CLASSES = {
    "ScriptModule": _make_script_module,
    "RecursiveScriptModule": _make_recursive_script_module,
}


def __getattr__(name):
    # ScriptModule subclasses nn.Module: made on first use, so that `minitorch.jit` does not
    # import nn (NOTE [ Lazy submodules ] in minitorch/__init__.py)
    if name in _LAZY_CLASSES:
        cls = globals().get(name)
        if cls is None:
            globals()[name] = cls = _LAZY_CLASSES[name]()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def script_method(fn):
    """Returns fn unchanged (the method runs as Python). Mirrors torch.jit.script_method."""
    _warn_deprecated("script_method")
    return fn


# Mirrors torch.jit.Attribute: outside a ScriptModule the (value, type) pair itself
Attribute = collections.namedtuple("Attribute", ["value", "type"])


def isinstance(obj, target_type) -> bool:
    """isinstance that also checks the element types of list[T], dict[K, V], tuple[...] and
    Optional/Union types. Mirrors torch.jit.isinstance (in eager mode)."""
    import builtins

    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    # a container type without its element types: torch's error, named as written (List, list)
    bare = target_type in (list, dict, tuple) or (origin in (list, dict, tuple) and not args)
    if bare or target_type is typing.Optional:
        name = getattr(target_type, "_name", None) or target_type.__name__
        if target_type in (dict, typing.Dict):  # noqa: UP006
            raise RuntimeError(
                f"Attempted to use {name} without contained types. Please add contained type, "
                f"e.g. {name}[int, int]"
            )
        raise RuntimeError(
            f"Attempted to use {name} without a contained type. Please add a contained type, "
            f"e.g. {name}[int]"
        )
    if origin is None:
        return builtins.isinstance(obj, target_type)
    if origin is typing.Union or getattr(origin, "__name__", "") == "UnionType":
        return any(isinstance(obj, t) for t in args)
    if not builtins.isinstance(obj, origin):
        return False
    if origin in (list, typing.List):  # noqa: UP006
        return all(isinstance(x, args[0]) for x in obj)
    if origin in (dict, typing.Dict):  # noqa: UP006
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin in (tuple, typing.Tuple):  # noqa: UP006
        return len(obj) == len(args) and all(
            isinstance(x, t) for x, t in zip(obj, args, strict=True)
        )
    return True


_fusion = {"onednn": False, "strategy": [("STATIC", 2), ("DYNAMIC", 10)]}


def enable_onednn_fusion(enabled: bool) -> None:
    """Stored only (nothing is fused). Mirrors torch.jit.enable_onednn_fusion."""
    _fusion["onednn"] = enabled


def onednn_fusion_enabled() -> bool:
    """Mirrors torch.jit.onednn_fusion_enabled."""
    return _fusion["onednn"]


def set_fusion_strategy(strategy) -> list:
    """Stores the fuser's strategy and returns the previous one (nothing is fused). Mirrors
    torch.jit.set_fusion_strategy."""
    import builtins

    _warn_deprecated("set_fusion_strategy", _USE_COMPILE)
    if not builtins.isinstance(strategy, (list, tuple)):
        raise TypeError(
            "set_fusion_strategy(): expected a list of (str, int) pairs, not "
            f"{type(strategy).__name__}"
        )
    for kind, _depth in strategy:
        if kind not in ("STATIC", "DYNAMIC"):
            raise ValueError(f"FusionBehavior only supported 'STATIC' or 'DYNAMIC', got: {kind}")
    previous, _fusion["strategy"] = _fusion["strategy"], [tuple(p) for p in strategy]
    return previous
