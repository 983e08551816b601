"""Adadelta: steps scaled by the ratio of running RMS of updates and of gradients."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _add_square_,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _init_states,
    _new_step,
    _params_with_grad,
    _scalar,
    _use_grad_for_differentiable,
    _with_decay,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Mirrors torch.optim.Adadelta: state `step`, `square_avg`, `acc_delta`.

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors; one loop over the parameters either way), `capturable` only checks that the
    parameters are on a device (as torch asserts).
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
        lr: float | Tensor = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonneg("epsilon", eps)
        _check_nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """v = rho v + (1-rho) g^2;  d = sqrt(u + eps)/sqrt(v + eps) g;  u = rho u + (1-rho) d^2;
        p -= lr d."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                _check_foreach_step(group, ("differentiable", "capturable", "empty"))
            elif group["capturable"]:
                _check_capturable(group, xla=False)
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            rho, differentiable = group["rho"], group["differentiable"]
            lr = _scalar(lr, "add_(): argument 'alpha'" if differentiable else None)
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = _with_decay(grad, p, weight_decay)
                # See NOTE [ Updates through the in-place fast path ]
                _add_square_(square_avg.mul_(rho), grad, 1 - rho)
                std = square_avg.add(eps).sqrt()
                delta = acc_delta.add(eps).sqrt()
                if differentiable:  # See NOTE [ Differentiable optimizer steps ]
                    delta = delta.clone()
                delta.div_(std).mul_(grad)
                _add_square_(acc_delta.mul_(rho), delta, 1 - rho)
                p.add_(delta, alpha=-lr)
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    state["step"] = _new_step()
    state["square_avg"] = minitorch.zeros_like(p)
    state["acc_delta"] = minitorch.zeros_like(p)
