"""torch.utils.deterministic.fill_uninitialized_memory, the switch of torch's deterministic mode
that fills torch.empty's memory with NaN. Mirrors torch.utils.deterministic.

Differences from torch: stored and validated only; minitorch.empty already returns zeros, not
NaN, whatever the setting.
"""

from __future__ import annotations

import sys
import types

fill_uninitialized_memory = True


class _DeterministicModule(types.ModuleType):
    def __setattr__(self, name, value):
        if name == "fill_uninitialized_memory" and not isinstance(value, bool):
            raise RuntimeError(f"expected a bool, but got {type(value).__name__}")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _DeterministicModule
