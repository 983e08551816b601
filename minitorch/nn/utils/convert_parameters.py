"""parameters_to_vector and vector_to_parameters: a model's parameters as one flat tensor and
back."""

from __future__ import annotations

from minitorch import _ops
from minitorch._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_device(param: Tensor, old_device):
    """The index of the GPU the parameters seen so far are on, -1 on the CPU or the meta device;
    they must all share it. Mirrors torch's _check_param_device, which tells only GPUs apart (a
    CPU and a meta parameter pass it, and the op that mixes them speaks)."""
    device = param.device
    index = -1 if device.type in ("cpu", "meta") else device.index or 0
    if old_device is not None and index != old_device:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return index


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and concatenated into one 1-D tensor (differentiable). Mirrors
    torch.nn.utils.parameters_to_vector: a parameter that cannot be viewed flat (a transposed
    one) raises view's RuntimeError, as in torch."""
    device = None
    flat = []
    for p in parameters:
        device = _check_device(p, device)
        flat.append(p.view(-1))
    return _ops.cat(flat)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copies consecutive slices of vec into the parameters' data, in order. Mirrors
    torch.nn.utils.vector_to_parameters."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for p in parameters:
        device = _check_device(p, device)
        n = p.numel()
        p.data = vec[pointer : pointer + n].view_as(p).data
        pointer += n
