"""RAdam: Adam with the variance of the adaptive learning rate rectified."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.adam import moments_
from minitorch.optim.optimizer import (
    Optimizer,
    _check_betas,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _default_to_fused_or_foreach,
    _init_states,
    _lr_operand,
    _new_step,
    _params_with_grad,
    _scalar,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Mirrors torch.optim.RAdam: state `step`, `exp_avg`, `exp_avg_sq`.

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors; one loop over the parameters either way), `capturable` only checks that the
    parameters are on a device (as torch asserts); the
    rectification test (rho_t > 5) is a Python comparison of host numbers, never a device one.
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "capturable": False,
    }
    _scalar_state = ("step",)
    _scalar_state_on_param_device = ("capturable",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
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
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Adam's moments; the step is rectified by r_t once rho_t > 5, plain momentum before."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                _check_foreach_step(group, ("empty", "differentiable", "capturable"))
            elif group["capturable"]:
                _check_capturable(group)
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            differentiable = group["differentiable"]
            # (See NOTE [ A tensor lr rounds in its own dtype ]: moments_ rounds 1 - lr * wd)
            lr_operand = _to_scalar(lr) if differentiable else _lr_operand(lr)
            lr = lr_operand if differentiable else _scalar(lr_operand)
            beta1, beta2 = group["betas"]
            decoupled = group["decoupled_weight_decay"]
            rho_inf = 2 / (1 - beta2) - 1
            foreach = group["foreach"]
            if foreach is None:
                foreach = _default_to_fused_or_foreach(group["params"], differentiable)[1]
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                step = moments_(p, grad, state, lr_operand, beta1, beta2, weight_decay, decoupled)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if differentiable:  # See NOTE [ Differentiable optimizer steps ]
                    update = exp_avg / bias_correction1 * lr
                    if rho_t > 5.0:
                        rect = _rectification(rho_t, rho_inf)
                        update = update * (bias_correction2**0.5 / exp_avg_sq.sqrt().add(eps))
                        update = update * rect
                    p.add_(update, alpha=-1.0)  # (torch's spelling: p's node is AddBackward0)
                elif foreach:  # torch's multi-tensor step: p += m * (1 / ((sqrt(v) + eps) /
                    # (-sqrt(bc2) lr rect / bc1)) - lr unrectified / bc1), rounded as its kernels
                    # (a tensor lr keeps both step sizes in its dtype, as torch's lists of 0-d
                    # tensors: NOTE [ A tensor lr rounds in its own dtype ])
                    rect = _rectification(rho_t, rho_inf) if rho_t > 5 else 0
                    unrect = (lr_operand * (0 if rect > 0 else 1.0) / bias_correction1) * -1
                    unrect = _scalar(unrect)
                    if rect == 0:  # (the reciprocal of a division by -0.0 is -0.0)
                        p.add_(exp_avg, alpha=unrect)
                        continue
                    scale = (bias_correction2**0.5) * (lr_operand * rect / bias_correction1) * -1
                    buffer = exp_avg_sq.sqrt().add_(eps).div_(_scalar(scale))
                    buffer.reciprocal_().add_(unrect)
                    p.addcmul_(exp_avg, buffer)
                elif rho_t > 5.0:
                    rect = _rectification(rho_t, rho_inf)
                    # torch's `number / tensor` is tensor.reciprocal() * number (in place here,
                    # on the step's own temporary)
                    adaptive_lr = (
                        exp_avg_sq.sqrt().add_(eps).reciprocal_().mul_(bias_correction2**0.5)
                    )
                    update = (exp_avg / bias_correction1).mul_(lr)
                    p.sub_(update.mul_(adaptive_lr).mul_(rect))
                else:
                    p.sub_((exp_avg / bias_correction1).mul_(lr))
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    state["step"] = _new_step()
    state["exp_avg"] = minitorch.zeros_like(p)
    state["exp_avg_sq"] = minitorch.zeros_like(p)


def _rectification(rho_t: float, rho_inf: float) -> float:
    """RAdam's variance rectification term r_t (defined for rho_t > 5)."""
    return ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
