"""Adamax: Adam with the infinity norm in place of the second moment."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _advance,
    _check_betas,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _init_states,
    _lerp_,
    _lr_operand,
    _maximum_,
    _new_step,
    _params_with_grad,
    _scalar,
    _sub_quotient_,
    _use_grad_for_differentiable,
    _with_decay,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Mirrors torch.optim.Adamax: state `step`, `exp_avg`, `exp_inf`.

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
        lr: float | Tensor = 2e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonneg("epsilon", eps)
        _check_betas(betas)
        _check_nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """m = lerp(m, g, 1-b1), u = max(b2 u, |g| + eps), p -= lr/(1-b1^t) m/u."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                _check_foreach_step(group, ("differentiable", "empty", "capturable"))
            elif group["capturable"]:
                _check_capturable(group)
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            differentiable = group["differentiable"]
            if differentiable:  # (a number for addcdiv_, rounded in lr's dtype as below)
                _scalar(lr, "addcdiv_(): argument 'value'")
            if differentiable or not group["foreach"]:
                lr = _lr_operand(lr)  # See NOTE [ A tensor lr rounds in its own dtype ]
            else:  # (torch's foreach kernel reads a tensor lr as a number)
                lr = _scalar(lr)
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                step = _advance(state["step"])
                if weight_decay != 0:
                    grad = _with_decay(grad, p, weight_decay)
                # See NOTE [ Updates through the in-place fast path ]
                _lerp_(exp_avg, grad, 1 - beta1)
                if differentiable:  # out= records no graph: NOTE [ Differentiable optimizer steps ]
                    norms = minitorch.stack([exp_inf.mul_(beta2), grad.abs().add_(eps)])
                    exp_inf.copy_(norms.amax(0))
                else:
                    _maximum_(exp_inf.mul_(beta2), grad.abs().add_(eps))
                clr = _scalar(lr / (1 - beta1**step))
                if differentiable:  # torch's addcdiv_ saves exp_avg and exp_inf for backward
                    p.addcdiv_(exp_avg, exp_inf, value=-clr)
                else:
                    _sub_quotient_(p, exp_avg, exp_inf, clr)
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    state["step"] = _new_step()
    state["exp_avg"] = minitorch.zeros_like(p)
    state["exp_inf"] = minitorch.zeros_like(p)
