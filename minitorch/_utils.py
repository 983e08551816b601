"""The torch._utils names that library code and checkpoints reach for. Mirrors torch._utils.

The _rebuild_* functions are minitorch's unpickler's own (minitorch/_serialization_storage.py):
code that calls torch._utils._rebuild_tensor_v2 to build a tensor over a storage gets the same
result as minitorch.load does.
"""

from __future__ import annotations

import warnings

from minitorch._serialization_storage import (  # noqa: F401
    _rebuild_parameter,
    _rebuild_parameter_with_state,
    _rebuild_tensor,
    _rebuild_tensor_v2,
)


def is_compiling() -> bool:
    """Whether code runs under torch.compile (never here: minitorch.compiler.is_compiling).
    Mirrors torch._utils.is_compiling, deprecated as in torch."""
    from minitorch import compiler

    warnings.warn(
        "`torch._utils.is_compiling` is deprecated. Use `torch.compiler.is_compiling` instead.",
        stacklevel=2,
    )
    return compiler.is_compiling()
