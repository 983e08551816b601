"""The meta device: tensors with a shape, a dtype and a device but no data to read (torch's
'meta', for building a model before its weights exist, shape checks and counting).

NOTE [ The meta device ]
A meta tensor is a strict-device array (strict.py) behind a backend that refuses every read
of its values: ops, autograd and in-place updates run as on any device (so every op gives
torch's output shapes, dtypes and errors, and a model built under `with torch.device('meta')`
initialises as usual), but copying out ('.cpu()', `.tolist()`, printing the values) raises
torch's NotImplementedError, `.item()` its RuntimeError. A tensor copied onto the device
brings its shape and dtype only.
Ops whose output's shape depends on the values (nonzero, reading through a boolean mask,
masked_select, unique, bincount, repeat_interleave by a tensor) refuse as torch's do, each on
its own error path; linear algebra runs on stand-in matrices (_MetaLinalg), so the zeros never
make a matrix singular. Tensor.data_ptr() counts from 0, as torch's (a view's is its offset in
bytes), while the backend's data_ptr is the real address (storage offsets, overlap checks and
view detection measure from it). Moving a module to or from the meta device makes new
Parameters, as torch's _apply does across incompatible tensor types.
Differences from torch: the arrays hold memory and the kernels run, so a meta model costs what
it costs on the CPU.
"""

from __future__ import annotations

import numpy as np

from minitorch._backend import strict
from minitorch._backend.strict import StrictArray, StrictBackend

__all__ = ["MetaBackend", "NO_DATA", "ITEM", "NONZERO", "device_mismatch", "no_kernel"]

NO_DATA = "Cannot copy out of meta tensor; no data!"
ITEM = "Tensor.item() cannot be called on meta tensors"
# what torch's nonzero (and so a boolean mask read) says on the meta device
NONZERO = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this registration, "
    "please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


def _unit_diagonal(a):
    """A matrix argument's stand-in: its shape and dtype, ones on the diagonal."""
    if a.__class__ is not StrictArray or a.ndim < 2:
        return a
    out = np.zeros(a.shape, a.dtype)
    i = np.arange(min(a.shape[-2:]))
    out[..., i, i] = 1
    return StrictArray(out)


class _MetaLinalg(strict._Namespace):
    """numpy.linalg for meta arrays, whose values mean nothing: each matrix is replaced by one
    of its shape with a unit diagonal, so no factorisation fails on the zeros the arrays hold
    (torch's meta kernels compute shapes only: no singular or not-positive-definite errors)."""

    def __getattr__(self, name):
        fn = super().__getattr__(name)
        if not callable(fn) or isinstance(fn, type):
            return fn

        def run(*args, **kwargs):
            return fn(*[_unit_diagonal(a) for a in args], **kwargs)

        self.__dict__[name] = run
        return run


_overrides = {k: v for k, v in vars(strict.xp).items() if not k.startswith("_")}
_overrides["linalg"] = _MetaLinalg(np.linalg, "xp.linalg")
xp = strict._Namespace(np, "xp", **_overrides)


class MetaBackend(StrictBackend):
    """The backend of the 'meta' device: the strict device's arrays, with no way out."""

    name = "meta"
    xp = xp

    def from_host(self, array, device):
        if array.__class__ is StrictArray:
            return array
        return StrictArray(np.zeros(np.shape(array), np.asarray(array).dtype))

    def to_host(self, array):
        raise NotImplementedError(NO_DATA)

    def to_host_nonblocking(self, array):
        raise NotImplementedError(NO_DATA)


def device_mismatch(expected, got) -> RuntimeError:
    """torch's error for a meta tensor meeting one of another device in an op (its meta kernels
    check devices with their own words): `expected` is the first tensor's device."""
    return RuntimeError(f"Tensor on device {got} is not on the expected device {expected}!")


def no_kernel(op: str) -> NotImplementedError:
    """torch's error for an op with no meta kernel (aten::`op`): those whose output's shape
    depends on the values (masked_select, unique, bincount) and those that read them (equal)."""
    return NotImplementedError(
        f"aten::{op}: attempted to run this operator with Meta tensors, but there was no fake "
        "impl or Meta kernel registered. You may have run into this message while using an "
        "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this "
        "operator with those APIs you'll need to add a fake impl. Please see the following for "
        "next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )
