"""Autograd: Function, the engine (backward, grad), grad modes, gradcheck, anomaly mode."""

from __future__ import annotations

from minitorch.autograd import graph  # noqa: F401
from minitorch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from minitorch.autograd.engine import backward, grad  # noqa: F401
from minitorch.autograd.function import Function, FunctionCtx, once_differentiable  # noqa: F401
from minitorch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    enforce_grad_layout_policy,
    inference_mode,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from minitorch.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from minitorch.autograd.variable import Variable  # noqa: F401
from minitorch.overrides import is_tensor_like  # noqa: F401  (torch re-exports it here)

# autograd.functional (jacobian, hessian, ...) loads on first use, like minitorch.nn: see
# NOTE [ Lazy submodules ] in minitorch/__init__.py.
_LAZY_MODULES = ("functional", "profiler", "forward_ad")


def __getattr__(name):
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"minitorch.autograd.{name}")
    if name == "DeviceType":  # the profiler's (torch.autograd.DeviceType)
        from minitorch.autograd.profiler import DeviceType

        return DeviceType
    raise AttributeError(f"module 'minitorch.autograd' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | {"DeviceType"})
