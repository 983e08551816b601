"""minitorch._C: the few torch._C names that library code calls directly. Mirrors torch._C.

This is a compatibility surface, not a C extension: torch._C is PyTorch's compiled core, and
torchvision, timm and others reach into it for a handful of helpers (API-usage logging, the
tracer's state, the __torch_function__ probes and switches, the .to() argument parser). Each is
answered here from minitorch's own state; nothing else of torch._C exists.
"""

from __future__ import annotations

import types

from minitorch._subclass import (  # torch._C's names for them
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    all_disabled,
    dispatch_off,
)
from minitorch._tensor_methods import TensorMethods
from minitorch.random import Generator  # noqa: F401  (torch._C.Generator is torch.Generator)

__all__ = [
    "Generator",
    "TensorBase",
    "_TensorBase",
    "_log_api_usage_once",
    "_get_tracing_state",
    "_has_torch_function",
    "_has_torch_function_unary",
    "_has_torch_function_variadic",
    "_is_torch_function_enabled",
    "_is_torch_function_all_disabled",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "_disabled_torch_function_impl",
    "_get_cudnn_enabled",
    "_set_grad_enabled",
    "_get_default_device",
    "_nn",
    "_jit_set_profiling_executor",
    "_jit_set_profiling_mode",
    "_jit_override_can_fuse_on_cpu",
    "_jit_override_can_fuse_on_gpu",
    "_jit_can_fuse_on_cpu",
    "_jit_can_fuse_on_gpu",
    "_jit_set_texpr_fuser_enabled",
    "_jit_texpr_fuser_enabled",
    "_set_graph_executor_optimize",
    "_get_graph_executor_optimize",
    "_jit_set_nvfuser_enabled",
]


# torch.Tensor's compiled base class, which holds its built-in methods: libraries test
# isinstance(x, torch._C.TensorBase) and patch methods onto it. minitorch's counterpart is the
# class the ops attach Tensor's methods to (_TensorBase is torch's older name).
TensorBase = _TensorBase = TensorMethods


def __getattr__(name):
    # torch.linalg.LinAlgError is torch._C._LinAlgError; minitorch's lives in a lazy op family,
    # loaded only when asked for (NOTE [ Lazy op families ] in minitorch/_ops)
    if name == "_LinAlgError":
        from minitorch._ops.linalg_solve import LinAlgError

        return LinAlgError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _log_api_usage_once(event: str) -> None:
    """A no-op: torch records API usage for its telemetry; torchvision calls this in every
    model and op."""


def _get_tracing_state():
    """None: minitorch has no TorchScript tracer, so code never runs under one."""
    return None


# The __torch_function__ switches and probes: Tensor subclasses dispatch as in torch (NOTE
# [ Tensor subclasses ] in minitorch/_subclass.py); the probes are torch.overrides' own.
def _has_torch_function(args) -> bool:
    """Whether an argument is of a Tensor subclass that dispatches (False under
    DisableTorchFunctionSubclass). Mirrors torch._C._has_torch_function."""
    from minitorch.overrides import has_torch_function

    return has_torch_function(args)


def _has_torch_function_unary(arg) -> bool:
    """_has_torch_function((arg,)). Mirrors torch._C._has_torch_function_unary."""
    from minitorch.overrides import has_torch_function_unary

    return has_torch_function_unary(arg)


def _has_torch_function_variadic(*args) -> bool:
    """_has_torch_function(args). Mirrors torch._C._has_torch_function_variadic."""
    from minitorch.overrides import has_torch_function

    return has_torch_function(args)


def _is_torch_function_enabled() -> bool:
    """False inside DisableTorchFunctionSubclass / DisableTorchFunction. Mirrors
    torch._C._is_torch_function_enabled."""
    return not dispatch_off()


def _is_torch_function_all_disabled() -> bool:
    """True inside DisableTorchFunction. Mirrors torch._C._is_torch_function_all_disabled."""
    return all_disabled()


def _get_cudnn_enabled() -> bool:
    """torch.backends.cudnn.enabled (minitorch stores the flag; it never calls cuDNN)."""
    from minitorch import backends

    return backends.cudnn.enabled


def _set_grad_enabled(enabled: bool) -> None:
    """Turns gradient recording on or off, as torch.set_grad_enabled(enabled) called as a
    function does."""
    from minitorch.autograd.grad_mode import set_grad_enabled

    set_grad_enabled(enabled)


def _get_default_device() -> str:
    """The default device's name, a string as torch._C's ('cpu', 'cuda:0')."""
    from minitorch import get_default_device

    return str(get_default_device())


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from Tensor.to / Module.to arguments, None
    where not given. Mirrors torch._C._nn._parse_to."""
    # Module.to's own parser (it imports nn, so only when called)
    from minitorch.nn.modules.module import _parse_to as parse

    return parse(args, kwargs)


_nn = types.ModuleType("minitorch._C._nn", "Mirrors torch._C._nn: only _parse_to.")
_nn._parse_to = _parse_to


# --- the TorchScript executor's switches, which Megatron/NeMo-style scripts flip at startup ---
# minitorch has no TorchScript (minitorch/jit/ runs everything eagerly), so each switch is only
# stored, read back by its getter, and changes nothing. Values are torch's defaults.
_jit_flags = {
    "profiling_executor": True,
    "profiling_mode": True,
    "can_fuse_on_cpu": False,
    "can_fuse_on_gpu": False,
    "texpr_fuser": True,
    "graph_executor_optimize": True,
}


def _set_jit_flag(fn: str, key: str, value) -> bool:
    # torch._C's pybind11 bool argument converts None and anything with __bool__ (numbers, NumPy
    # bools, tensors) and rejects the rest (a str or a list) with this TypeError
    if value is not None and not hasattr(type(value), "__bool__"):
        raise TypeError(
            f"{fn}(): incompatible function arguments. The following argument types are "
            f"supported:\n    1. (arg0: bool)\n\nInvoked with: {value!r}"
        )
    previous, _jit_flags[key] = _jit_flags[key], bool(value)
    return previous


def _jit_set_profiling_executor(enabled: bool) -> bool:
    """Stored only; returns the previous setting. Mirrors torch._C._jit_set_profiling_executor."""
    return _set_jit_flag("_jit_set_profiling_executor", "profiling_executor", enabled)


def _jit_set_profiling_mode(enabled: bool) -> bool:
    """Stored only; returns the previous setting. Mirrors torch._C._jit_set_profiling_mode."""
    return _set_jit_flag("_jit_set_profiling_mode", "profiling_mode", enabled)


def _jit_override_can_fuse_on_cpu(enabled: bool) -> None:
    """Stored only. Mirrors torch._C._jit_override_can_fuse_on_cpu."""
    _set_jit_flag("_jit_override_can_fuse_on_cpu", "can_fuse_on_cpu", enabled)


def _jit_override_can_fuse_on_gpu(enabled: bool) -> None:
    """Stored only. Mirrors torch._C._jit_override_can_fuse_on_gpu."""
    _set_jit_flag("_jit_override_can_fuse_on_gpu", "can_fuse_on_gpu", enabled)


def _jit_can_fuse_on_cpu() -> bool:
    """Mirrors torch._C._jit_can_fuse_on_cpu."""
    return _jit_flags["can_fuse_on_cpu"]


def _jit_can_fuse_on_gpu() -> bool:
    """Mirrors torch._C._jit_can_fuse_on_gpu."""
    return _jit_flags["can_fuse_on_gpu"]


def _jit_set_texpr_fuser_enabled(enabled: bool) -> None:
    """Stored only. Mirrors torch._C._jit_set_texpr_fuser_enabled."""
    _set_jit_flag("_jit_set_texpr_fuser_enabled", "texpr_fuser", enabled)


def _jit_texpr_fuser_enabled() -> bool:
    """Mirrors torch._C._jit_texpr_fuser_enabled."""
    return _jit_flags["texpr_fuser"]


def _set_graph_executor_optimize(optimize: bool) -> None:
    """Stored only. Mirrors torch._C._set_graph_executor_optimize."""
    _set_jit_flag("_set_graph_executor_optimize", "graph_executor_optimize", optimize)


def _get_graph_executor_optimize(new_settings: bool | None = None) -> bool:
    """The setting (torch returns the value before new_settings is applied). Mirrors
    torch._C._get_graph_executor_optimize."""
    previous = _jit_flags["graph_executor_optimize"]
    if new_settings is not None:
        _set_graph_executor_optimize(new_settings)
    return previous


def _jit_set_nvfuser_enabled(enabled: bool) -> None:
    """A no-op (torch's is deprecated: it prints a C++ warning, not a Python one). Mirrors
    torch._C._jit_set_nvfuser_enabled."""
