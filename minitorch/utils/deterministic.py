"""torch.utils.deterministic.fill_uninitialized_memory, the switch of torch's deterministic mode
that fills torch.empty's memory with NaN. Mirrors torch.utils.deterministic.

While use_deterministic_algorithms(True) is set, empty/empty_like/new_empty/empty_strided fill
their memory as torch's do (NaN, the integer type's maximum, True); otherwise minitorch's empty
memory is zeros. Differences from torch: resize_ does not fill the memory it adds.
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
