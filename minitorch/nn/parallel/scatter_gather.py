"""torch.nn.parallel.scatter_gather: scatter (a batch split into one chunk per GPU, through
tuples, lists and dicts), scatter_kwargs and gather (the chunks concatenated on one device), as
multi-GPU training written by hand uses them. Mirrors torch.nn.parallel.scatter_gather."""

from __future__ import annotations

import warnings

from minitorch._tensor import Tensor

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj) -> bool:
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _gpu(d, *, allow_cpu: bool = False):
    """The device an entry of target_gpus (or a target_device) names: an integer is that CUDA
    device; 'cpu' is refused unless allowed, as torch's; the test-only 'strict' device stands for
    a GPU."""
    from minitorch import cuda
    from minitorch._backend import device

    if isinstance(d, int) and not isinstance(d, bool):
        return device("cpu") if d == -1 and allow_cpu else device(f"cuda:{d}")
    dev = device(d) if isinstance(d, str) else d
    if dev.type == "cpu":
        if allow_cpu:
            return dev
        raise ValueError(f"Expected a non cpu device, but got: {d}")
    if dev.type == "cuda" and dev.index is None:
        return device(f"cuda:{cuda.current_device()}")
    if dev.index is None and dev.type != "strict":
        raise ValueError(
            f"Expected a torch.device with a specified index or an integer, but got:{dev.index}"
        )
    return dev


def _scatter_tensor(x: Tensor, devices: list, dim: int) -> tuple:
    # chunk() as torch's comm.scatter without chunk sizes (fewer chunks than devices when the
    # dim is shorter); the copies are differentiable, so gradients flow back to x
    return tuple(c.to(d) for c, d in zip(x.chunk(len(devices), dim), devices, strict=False))


def scatter(inputs, target_gpus, dim: int = 0):
    """Splits every tensor in inputs into one chunk per device of target_gpus along dim, and
    returns one copy of the structure per chunk (a tuple of chunks for a tensor, a list of
    tuples/lists/dicts for a tuple/list/dict; anything else is repeated). Mirrors
    torch.nn.parallel.scatter.

    Differences from torch: a chunk's grad_fn is the copy's (ToCopyBackward0), not torch's
    ScatterBackward; the copies run on the current stream (torch uses one stream per device)."""

    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return _scatter_tensor(obj, [_gpu(d) for d in target_gpus], dim)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj), strict=False)]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj), strict=False))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj), strict=False)]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()), strict=False)]
        return [obj for _ in target_gpus]

    try:
        return scatter_map(inputs)
    finally:
        scatter_map = None  # the nested function reaches itself through its cell: a cycle otherwise


def scatter_kwargs(inputs, kwargs, target_gpus, dim: int = 0):
    """scatter of the positional and the keyword arguments, the shorter padded with empty ones
    (returns two tuples of equal length). Mirrors
    torch.nn.parallel.scatter_gather.scatter_kwargs."""
    scattered = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kw = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered) < len(scattered_kw):
        scattered.extend(() for _ in range(len(scattered_kw) - len(scattered)))
    elif len(scattered_kw) < len(scattered):
        scattered_kw.extend({} for _ in range(len(scattered) - len(scattered_kw)))
    return tuple(scattered), tuple(scattered_kw)


def _gather_tensors(target_device, dim: int, tensors):
    if not all(t.device.type != "cpu" for t in tensors):
        raise AssertionError("Gather function not implemented for CPU tensors")
    target = _gpu(target_device, allow_cpu=True)
    if all(t.dim() == 0 for t in tensors) and dim == 0:
        warnings.warn(
            "Was asked to gather along dimension 0, but all input tensors were scalars; will "
            "instead unsqueeze and return a vector.",
            UserWarning,
            stacklevel=4,
        )
        tensors = [t.view(1) for t in tensors]
    from minitorch import cat

    return cat([t.to(target) for t in tensors], dim)


def gather(outputs, target_device, dim: int = 0):
    """Concatenates the per-device outputs (tensors, or tuples/lists/dicts of them) along dim
    on target_device (an index, a device, or 'cpu' / -1). Mirrors torch.nn.parallel.gather.

    Differences from torch: the result's grad_fn is CatBackward0 (torch's GatherBackward)."""

    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            return _gather_tensors(target_device, dim, outputs)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs, strict=False)))
        return type(out)(map(gather_map, zip(*outputs, strict=False)))

    try:
        return gather_map(outputs)
    finally:
        gather_map = None  # as scatter's: no cycle through the cell
