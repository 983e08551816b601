"""minitorch.utils: data loading (utils.data), hook handles (utils.hooks), DLPack and activation
checkpointing (utils.checkpoint, loaded on first use). Mirrors torch.utils."""

from __future__ import annotations

from minitorch.utils import data, dlpack, hooks  # noqa: F401

_LAZY_MODULES = ("checkpoint", "benchmark", "_pytree")


def __getattr__(name):
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"minitorch.utils.{name}")
    raise AttributeError(f"module 'minitorch.utils' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES))
