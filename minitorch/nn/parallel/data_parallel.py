"""torch.nn.parallel.data_parallel: DataParallel and data_parallel. minitorch runs a model on
one device, so DataParallel wraps it (state_dict keys gain the "module." prefix, as torch's) and
runs it on its first device. Mirrors torch.nn.parallel.data_parallel."""

from __future__ import annotations

from typing import Generic, TypeVar

from minitorch._tensor import Tensor
from minitorch.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]

T = TypeVar("T", bound=Module)


def _device_ids(device_ids) -> list:
    from minitorch import cuda

    if device_ids is None:
        return list(range(cuda.device_count()))
    return [d if isinstance(d, int) else (d.index or 0) for d in device_ids]


def _to(obj, device):
    """obj with every tensor inside (tuples, lists, dicts) moved to device."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _to(v, device) for k, v in obj.items()}
    return obj


class DataParallel(Module, Generic[T]):
    """Runs `module` on its inputs, which are moved to device_ids[0]; outputs are moved to
    output_device. Without a GPU it calls module directly, as torch does. Mirrors
    torch.nn.DataParallel.

    Differences from torch: with several GPUs torch splits the batch along `dim` and runs one
    replica per device; minitorch runs the whole batch on device_ids[0] (same numbers, one GPU's
    speed)."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0):
        super().__init__()
        from minitorch import cuda

        self.module = module
        if not cuda.is_available():
            self.device_ids = []
            return
        ids = _device_ids(device_ids)
        self.dim = dim
        self.device_ids = ids
        self.output_device = ids[0] if output_device is None else _device_ids([output_device])[0]
        from minitorch._backend import device

        self.src_device_obj = device(f"cuda:{ids[0]}")

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        src = self.src_device_obj
        for t in (*self.module.parameters(), *self.module.buffers()):
            if t.device != src:
                raise RuntimeError(
                    "module must have its parameters and buffers on device "
                    f"{src} (device_ids[0]) but found one of them on device: {t.device}"
                )
        out = self.module(*_to(inputs, src), **_to(kwargs, src))
        return _to(out, f"cuda:{self.output_device}")


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form of DataParallel: module(*inputs) on device_ids[0]. Mirrors
    torch.nn.parallel.data_parallel (which refuses to run without a GPU, as here)."""
    from minitorch import cuda

    if not cuda.is_available():
        raise RuntimeError("device type could not be determined")
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    wrapper = DataParallel(module, device_ids, output_device, dim)
    return wrapper(*inputs, **(module_kwargs or {}))
