"""torch.func: functional_call, grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian,
vmap, replace_all_batch_norm_modules_."""

from __future__ import annotations

import minitorch
from minitorch.func._transforms import (
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    vjp,
)
from minitorch.func._vmap import vmap

__all__ = [
    "functional_call",
    "stack_module_state",
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "linearize",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "replace_all_batch_norm_modules_",
]


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Calls `module(*args, **kwargs)` with the tensors of `parameter_and_buffer_dicts` (a dict, or
    a tuple/list of dicts with distinct keys) in place of the parameters and buffers of those
    dotted names; the originals are back afterwards, even after an exception.
    Mirrors torch.func.functional_call."""
    from minitorch.nn.utils.stateless import _functional_call

    return _functional_call(
        module, parameter_and_buffer_dicts, args, kwargs, tie_weights=tie_weights, strict=strict
    )


def stack_module_state(models):
    """(params, buffers): each parameter and buffer of the models stacked along a new dim 0, by
    name; stacked parameters are new leaves. Mirrors torch.func.stack_module_state."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name: str):
    flags = {t.requires_grad for t in tensors}
    if len(flags) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = minitorch.stack(tensors)
    if flags == {True}:
        out = out.detach().requires_grad_()
    return out


def replace_all_batch_norm_modules_(root):
    """Makes every batch norm module in `root` (itself included) stop tracking running
    statistics, in place: running_mean, running_var and num_batches_tracked become None and
    track_running_stats False, so that it normalizes with batch statistics (what vmap over a
    batch needs). Returns `root`. Mirrors torch.func.replace_all_batch_norm_modules_."""
    from minitorch.nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
