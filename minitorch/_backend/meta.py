"""The meta device: tensors with a shape, a dtype and a device but no data to read (torch's
'meta', for building a model before its weights exist, shape checks and counting).

NOTE [ The meta device ]
A meta tensor is a strict-device array (strict.py) behind a backend that refuses every read
of its values: ops, autograd and in-place updates run as on any device (so every op gives
torch's output shapes, dtypes and errors, and a model built under `with torch.device('meta')`
initialises as usual), but copying out ('.cpu()', `.tolist()`, printing the values) raises
torch's NotImplementedError, `.item()` its RuntimeError. A tensor copied onto the device
brings its shape and dtype only.
Differences from torch: the arrays hold (zeroed) memory and the kernels run, so a meta model
costs what it costs on the CPU; ops whose output shape depends on the values (nonzero, boolean
masks, unique) compute from those zeros where torch refuses.
"""

from __future__ import annotations

import numpy as np

from minitorch._backend.strict import StrictArray, StrictBackend

__all__ = ["MetaBackend", "NO_DATA", "device_mismatch"]

NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaBackend(StrictBackend):
    """The backend of the 'meta' device: the strict device's arrays, with no way out."""

    name = "meta"

    def from_host(self, array, device):
        if array.__class__ is StrictArray:
            return array
        return StrictArray(np.zeros(np.shape(array), np.asarray(array).dtype))

    def to_host(self, array):
        raise NotImplementedError(NO_DATA)

    def to_host_nonblocking(self, array):
        raise NotImplementedError(NO_DATA)

    def data_ptr(self, array) -> int:
        return 0  # torch's meta tensors point nowhere


def device_mismatch(expected, got) -> RuntimeError:
    """torch's error for a meta tensor meeting one of another device in an op (its meta kernels
    check devices with their own words): `expected` is the first tensor's device."""
    return RuntimeError(f"Tensor on device {got} is not on the expected device {expected}!")
