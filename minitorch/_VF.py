"""minitorch._VF: torch._VF, the namespace of torch's native functions that code copied from
torch's own modules calls (`_VF.lstm(input, hx, self._flat_weights, ...)`, `_VF.gru_cell`).
Mirrors torch._VF: a name is minitorch's top-level function of that name."""

from __future__ import annotations

import types


def __getattr__(name: str):
    import minitorch

    value = getattr(minitorch, name, None)
    if not callable(value) or isinstance(value, (type, types.ModuleType)):
        raise AttributeError(f"'minitorch._VF' object has no attribute '{name}'")
    return value
