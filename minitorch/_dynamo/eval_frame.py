"""torch._dynamo.eval_frame: the home of OptimizedModule, the wrapper minitorch.compile puts
around an nn.Module (libraries such as accelerate, diffusers and peft test for it to ask "is this
model compiled?"). Mirrors torch._dynamo.eval_frame."""

from __future__ import annotations

from collections.abc import Sized

from minitorch import nn

__all__ = ["OptimizedModule"]


class OptimizedModule(nn.Module):
    """The wrapper torch.compile puts around an nn.Module, its original in `_orig_mod` (its only
    child, so state_dict keys and parameter names carry the `_orig_mod.` prefix). Reading or
    setting any other attribute reaches the original, and `training` is the original's. Mirrors
    torch._dynamo.eval_frame.OptimizedModule.

    Differences from torch: nothing is compiled; a call runs `_orig_mod` (its hooks included)
    eagerly, and `dynamo_ctx` is whatever was given (minitorch.compile gives None)."""

    # the names that live on the wrapper itself; every other one is the original module's
    _opt_mod_attributes = frozenset(
        {
            "_orig_mod",
            "dynamo_ctx",
            "get_compiler_config",
            "forward",
            "__dict__",
            "_super_module_initialized",
        }
    )

    def __init__(self, mod: nn.Module, dynamo_ctx=None):
        # first, as torch does: attribute reads and writes of self go to _orig_mod
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # now registered as the child module
        self.dynamo_ctx = dynamo_ctx

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    @property
    def training(self) -> bool:
        return self._orig_mod.training

    @training.setter
    def training(self, value: bool) -> None:
        # Module.__init__'s default is ignored: the wrapper mirrors the original's mode
        if self._super_module_initialized:
            self._orig_mod.training = value

    def __len__(self) -> int:
        if isinstance(self._orig_mod, Sized):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    def __getattr__(self, name: str):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name: str, value) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __reduce__(self):
        return (self.__class__, (self._orig_mod, self.dynamo_ctx))

    def __dir__(self) -> list[str]:
        orig_mod_attrs = self._orig_mod.__dir__()
        return orig_mod_attrs + [a for a in super().__dir__() if a not in orig_mod_attrs]
