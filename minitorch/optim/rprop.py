"""Rprop: resilient backpropagation (per-coordinate step sizes driven by gradient signs)."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _closure_loss,
    _init_states,
    _new_step,
    _params_with_grad,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Mirrors torch.optim.Rprop: state `step`, `prev` (the last gradient used) and
    `step_size`.

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors; one loop over the parameters either way), `capturable` only checks that the
    parameters are on a device (as torch asserts); the
    sign tests are `where` selections (torch's capturable form), never boolean indexing.
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }
    _scalar_state = ("step",)
    _scalar_state_on_param_device = ("capturable",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Where g * prev > 0 the step size grows by etaplus, where < 0 it shrinks by etaminus
        (and that coordinate skips this update); p -= sign(g) * step_size."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                _check_foreach_step(group, ("empty", "differentiable", "capturable"), xla=True)
            elif group["capturable"]:
                _check_capturable(group)
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                prev, step_size = state["prev"], state["step_size"]
                state["step"].add_(1)
                if group["differentiable"]:  # See NOTE [ Differentiable optimizer steps ]
                    _differentiable_rprop_(p, grad, prev, step_size, group)
                    continue
                agreement = grad.mul(prev)
                factor = minitorch.where(  # in grad's dtype, as torch writes its `sign` tensor
                    agreement > 0,
                    etaplus,
                    minitorch.where(agreement < 0, etaminus, minitorch.ones_like(agreement)),
                )
                # See NOTE [ Updates through the in-place fast path ]
                step_size.copy_(step_size.mul(factor).clamp(step_size_min, step_size_max))
                grad = minitorch.where(agreement < 0, 0.0, grad)
                p.sub_(minitorch.sign(grad).mul_(step_size))
                prev.copy_(grad)
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    state["step"] = _new_step()
    state["prev"] = minitorch.zeros_like(p)
    # torch's full_like takes a tensor lr as a Number: a TypeError where it requires grad, in
    # either mode
    state["step_size"] = minitorch.full_like(p.grad, _to_scalar(group["lr"]))


def _differentiable_rprop_(p, grad, prev, step_size, group) -> None:
    """torch's single-tensor Rprop step as it records it for backward: the sign factors written
    into sign(grad * prev) (a graph of zero derivative that step_size then carries), step_size
    clamped in place, p.addcmul_ saving sign(grad) and step_size."""
    etaminus, etaplus = group["etas"]
    step_size_min, step_size_max = group["step_sizes"]
    sign = grad.mul(prev.clone()).sign()
    # (torch writes through boolean masks; masked_fill_ records the same zero derivative with
    # no host read of the masks)
    sign.masked_fill_(sign.gt(0), etaplus)
    sign.masked_fill_(sign.lt(0), etaminus)
    sign.masked_fill_(sign.eq(0), 1)
    step_size.mul_(sign).clamp_(step_size_min, step_size_max)
    grad = grad.clone().masked_fill_(sign.eq(etaminus), 0)
    p.addcmul_(grad.sign(), step_size, value=-1)
    prev.copy_(grad)
