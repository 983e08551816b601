"""Gradient clipping: clip_grad_norm_ (with get_total_norm and clip_grads_with_norm_, its two
halves) and clip_grad_value_.

Nothing here reads a device value back to the host: the total norm stays a tensor and the
scale factor min(1, max_norm / (norm + 1e-6)) is applied as one, so a step never synchronises.
The exception is `error_if_nonfinite=True`, which must look at the norm to raise (as torch).
"""

from __future__ import annotations

import math
import warnings

from minitorch import _foreach, _ops
from minitorch._factories import tensor
from minitorch._ops.reduction_more import vector_norm
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
]


def _tensors(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _grads(parameters) -> list:
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


def get_total_norm(
    tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None
) -> Tensor:
    """The norm of the norms of `tensors` (as if concatenated), on the first tensor's device.
    Mirrors torch.nn.utils.get_total_norm."""
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    first = tensors[0].device  # a None first fails here with AttributeError, as in torch
    for i, t in enumerate(tensors):
        if t is None:  # a parameter without a gradient: torch refuses it (clip_grad_norm_ skips it)
            raise RuntimeError(
                "Tensors of the first list of nested Tensor lists are supposed to be defined but "
                f"the {i}-th Tensor is not."
            )
    if norm_type == math.inf and foreach is not False and any(t.numel() == 0 for t in tensors):
        # torch's fused per-list norm (used unless foreach=False) words the empty-max error so
        raise RuntimeError(
            "_foreach_norm cannot compute the infinity norm on an empty tensor because the "
            "operation does not have an identity"
        )
    with no_grad():
        norms = [vector_norm(t, norm_type) for t in tensors]
        # (to() returns a norm already on the first tensor's device unchanged: asked only of
        # the others)
        norms = [n if n._device is first else n.to(first) for n in norms]
        total = vector_norm(_ops.stack(norms), norm_type)
    if error_if_nonfinite:
        # the documented host read: the value decides whether to raise
        value = total.item()
        if math.isnan(value) or math.isinf(value):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
            )
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scales every gradient by min(1, max_norm / (total_norm + 1e-6)), in place. Mirrors
    torch.nn.utils.clip_grads_with_norm_."""
    max_norm = float(max_norm)  # first, as torch: a bad max_norm raises even without gradients
    _scale_grads(_grads(parameters), max_norm, total_norm, foreach)


def _scale_grads(grads: list, max_norm: float, total_norm: Tensor, foreach) -> None:
    """clip_grads_with_norm_ for the gradients `grads` and a max_norm already read as a float."""
    if not grads:
        return
    with no_grad():
        coef = _ops.clamp(max_norm / (total_norm + 1e-6), max=1.0)
        if foreach is False:
            for g in grads:
                g.mul_(coef.to(g.device))
            return
        # torch's default and foreach=True paths scale each device's list by _foreach_mul_,
        # which refuses a total_norm that is not 0-d ("scalar tensor expected to be 0 dim")
        by_device: dict = {}
        for g in grads:
            by_device.setdefault(g.device, []).append(g)
        for device, device_grads in by_device.items():
            _foreach._foreach_mul_(device_grads, coef.to(device))


def clip_grad_norm_(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
) -> Tensor:
    """Rescales the gradients so their total norm is at most max_norm; returns the total norm
    before clipping, as a tensor (no host synchronisation). Mirrors
    torch.nn.utils.clip_grad_norm_."""
    parameters = _tensors(parameters)
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    # (clip_grads_with_norm_'s work, with the gradients just collected)
    _scale_grads(grads, float(max_norm), total, foreach)
    return total


def clip_grad_norm(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
) -> Tensor:
    """Deprecated spelling of clip_grad_norm_. Mirrors torch.nn.utils.clip_grad_norm."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamps every gradient to [-clip_value, clip_value], in place. Mirrors
    torch.nn.utils.clip_grad_value_."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
