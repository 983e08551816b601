"""SGD: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    _HALF,
    Optimizer,
    _closure_loss,
    _keep_grad,
    _params_with_grad,
    _use_grad_for_differentiable,
)

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Mirrors torch.optim.SGD (same update, state key `momentum_buffer`, defaults lr=1e-3).

    Differences from torch: `foreach` is accepted and ignored (one loop over the parameters);
    `fused` only computes half-precision updates in float32 (as torch's fused kernel); sparse
    gradients are not supported.
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "nesterov": False,
        "maximize": False,
        "foreach": None,
        "differentiable": False,
        "fused": False,
    }

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float | Tensor = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:  # (not _check_lr: torch's SGD lets a nan lr through)
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """p -= lr * v, v = momentum * v + (1 - dampening) * (grad + weight_decay * p)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            # (tensors kept where a differentiable step needs their gradient; See NOTE
            # [ Differentiable optimizer steps ])
            lr, weight_decay = _keep_grad(group["lr"]), _keep_grad(group["weight_decay"])
            momentum, dampening = group["momentum"], group["dampening"]
            nesterov = group["nesterov"]
            fused = group["fused"]
            pairs = list(_params_with_grad(group))
            # The buffers are read before any update, as torch's _init_group does: a parameter
            # listed twice starts its first momentum step without a buffer at both places.
            bufs = [self.state[p].get("momentum_buffer") for p, _ in pairs] if momentum else ()
            if fused and any(b is None for b in bufs) and any(b is not None for b in bufs):
                _missing_fused_buffer(pairs, bufs)
            args = (lr, weight_decay, momentum, dampening, nesterov)
            for i, (p, grad) in enumerate(pairs):
                if fused and p.dtype in _HALF:  # NOTE [ Fused half-precision steps ]
                    buf = _fused_half_update(p, grad, bufs[i] if momentum else None, args)
                    if momentum != 0:
                        self.state[p]["momentum_buffer"] = buf
                elif momentum != 0:
                    self.state[p]["momentum_buffer"] = _update(p, grad, bufs[i], *args)
                else:
                    _update(p, grad, None, *args)
        return loss


def _missing_fused_buffer(pairs, bufs) -> None:
    """torch's fused kernel takes the momentum buffers as a list of tensors, made for every
    parameter only on a group's first step: a parameter whose first gradient came later has
    none, and the kernel's argument check refuses the list, before any update. The index is
    the parameter's position among those with a gradient and its device and dtype."""
    seen: dict = {}
    for (p, _), buf in zip(pairs, bufs, strict=True):
        key = (p.device, p.dtype)
        i = seen[key] = seen.get(key, -1) + 1
        if buf is None:
            raise TypeError(f"expected Tensor as element {i} in argument 2, but got NoneType")


def _update(p, grad, buf, lr, weight_decay, momentum, dampening, nesterov):
    """One SGD step of p in place; returns the momentum buffer (`buf`, updated in place, or a
    new one when it is None; None without momentum)."""
    # See NOTE [ Updates through the in-place fast path ]
    if weight_decay != 0:
        if isinstance(weight_decay, Tensor):  # p is changed in place below
            grad = grad.addcmul_(p.clone(), weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    if momentum != 0:
        if buf is None:
            buf = grad.detach().clone()
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - dampening)
        grad = grad.add(buf, alpha=momentum) if nesterov else buf
    if isinstance(lr, Tensor):  # (a differentiable step's lr that requires grad)
        p.addcmul_(grad, lr, value=-1)
    else:
        p.add_(grad, alpha=-lr)
    return buf


def _fused_half_update(p, grad, buf, args):
    """_update on float32 copies of a half p, its grad and its momentum buffer `buf`, each
    written back rounded once, as torch's fused kernel computes; returns the momentum buffer
    (`buf` updated in place, or a new one when it is None; None without momentum)."""
    p32 = p.float()
    buf32 = _update(p32, grad.float(), None if buf is None else buf.float(), *args)
    p.copy_(p32)
    if buf32 is None:
        return None
    if buf is None:
        return buf32.to(p.dtype)
    buf.copy_(buf32)
    return buf


def sgd(
    params: list[Tensor],
    d_p_list: list[Tensor],
    momentum_buffer_list: list[Tensor | None],
    has_sparse_grad: bool = False,
    foreach: bool | None = None,
    fused: bool | None = None,
    grad_scale: Tensor | None = None,
    found_inf: Tensor | None = None,
    *,
    weight_decay: float,
    momentum: float,
    lr: float,
    dampening: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    """Functional SGD: one step of each params[i] with SGD.step's update; a None in
    momentum_buffer_list is replaced by the new buffer, as in torch. Mirrors
    torch.optim.sgd.sgd (torch.optim._functional.sgd).

    Differences from torch: `grad_scale`/`found_inf` (torch's fused AMP unscaling) raise;
    `foreach`/`fused` change nothing, as in SGD."""
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("sgd: grad_scale and found_inf are not supported")
    # (a grad-requiring tensor lr/weight_decay stays a tensor: NOTE [ Differentiable optimizer
    # steps ]; else numbers, as SGD.step reads them)
    lr, weight_decay = _keep_grad(lr), _keep_grad(weight_decay)
    for i, p in enumerate(params):
        grad = -d_p_list[i] if maximize else d_p_list[i]
        buf = momentum_buffer_list[i] if momentum != 0 else None
        buf = _update(p, grad, buf, lr, weight_decay, momentum, dampening, nesterov)
        if momentum != 0:
            momentum_buffer_list[i] = buf
