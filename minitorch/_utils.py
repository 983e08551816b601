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


def _get_device_index(device, optional: bool = False, allow_cpu: bool = False):
    """A device argument (int, str, minitorch.device) as an index: -1 for the CPU with
    allow_cpu; with optional, an index-less device (or None) means the current CUDA device, or
    None where there is no GPU. Mirrors torch._utils._get_device_index."""
    from minitorch import _backend, cuda

    if isinstance(device, str):
        device = _backend.device(device)
    index = None
    if isinstance(device, _backend.Device):
        if not allow_cpu and device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        index = -1 if device.type == "cpu" else device.index
    elif isinstance(device, int) and not isinstance(device, bool):
        index = device
    if index is None:
        if not optional:
            raise ValueError(
                "Expected a torch.device with a specified index or an integer, but got:"
                f"{device}"
            )
        index = _backend.current_cuda_index() if cuda.is_available() else None
    return index
