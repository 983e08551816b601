"""torch._dynamo.eval_frame: the home of OptimizedModule, which libraries (accelerate, diffusers,
peft) test for to ask "is this model compiled?". Mirrors torch._dynamo.eval_frame."""

from __future__ import annotations

from minitorch import nn

__all__ = ["OptimizedModule"]


class OptimizedModule(nn.Module):
    """The wrapper torch.compile puts around an nn.Module, its original in `_orig_mod`. Mirrors
    torch._dynamo.eval_frame.OptimizedModule for isinstance checks.

    Differences from torch: minitorch.compile returns the module given, so no compiled module is
    one; one made directly runs `_orig_mod` eagerly."""

    def __init__(self, mod: nn.Module, dynamo_ctx=None):
        super().__init__()
        self._orig_mod = mod
        self.dynamo_ctx = dynamo_ctx

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)
