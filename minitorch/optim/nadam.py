"""NAdam: Adam with Nesterov momentum (and a momentum-decay schedule)."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _add_square_,
    _advance,
    _check_betas,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _default_to_fused_or_foreach,
    _init_states,
    _keep_grad,
    _lerp_,
    _lr_operand,
    _new_step,
    _params_with_grad,
    _scalar,
    _sub_quotient_,
    _to_scalar,
    _use_grad_for_differentiable,
    _with_decay,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Mirrors torch.optim.NAdam: state `step`, `mu_product` (both 0-d on the CPU),
    `exp_avg`, `exp_avg_sq`.

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors; one loop over the parameters either way), `capturable` only checks that the
    parameters are on a device (as torch asserts).
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
    }
    _scalar_state = ("step", "mu_product")
    _scalar_state_on_param_device = ("capturable",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 2e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
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
        _check_nonneg("momentum_decay", momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """mu_t = b1 (1 - 0.5 * 0.96^(t psi)); p -= lr [(1-mu_t) g / (1-prod mu)
        + mu_{t+1} m / (1 - prod mu * mu_{t+1})] / (sqrt(v/(1-b2^t)) + eps)."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                checks = ("empty", "differentiable", "capturable")
                _check_foreach_step(group, checks, "params, mu_products, and state_steps")
            elif group["capturable"]:
                _check_capturable(group, "params, mu_products and state_steps")
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            differentiable = group["differentiable"]
            # (a tensor lr: See NOTE [ A tensor lr rounds in its own dtype ]; a differentiable
            # step keeps it a tensor, as torch's, whose step sizes then take its dtype)
            lr = _to_scalar(lr) if differentiable else _lr_operand(lr)
            beta1, beta2 = group["betas"]
            momentum_decay = group["momentum_decay"]
            decoupled = group["decoupled_weight_decay"]
            foreach = group["foreach"]
            if foreach is None:
                foreach = _default_to_fused_or_foreach(group["params"], differentiable)[1]
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                mu_product_t = state["mu_product"]
                step = _advance(state["step"])
                bias_correction2 = 1 - beta2**step
                if weight_decay != 0:
                    if decoupled:
                        p.mul_(_keep_grad(1 - lr * weight_decay))
                    else:
                        grad = _with_decay(grad, p, weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product_t.mul_(mu)  # on the CPU in the scalar dtype, as torch keeps it
                if differentiable:  # See NOTE [ Differentiable optimizer steps ]
                    exp_avg.lerp_(grad, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    denom = exp_avg_sq.div(bias_correction2).sqrt().add(eps)
                    mu_product_next = mu_product_t * mu_next
                    p.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product_t)), denom)
                    p.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
                    continue
                mu_product = mu_product_t.item()
                mu_product_next = mu_product * mu_next

                # See NOTE [ Updates through the in-place fast path ]
                _lerp_(exp_avg, grad, 1 - beta1)
                _add_square_(exp_avg_sq.mul_(beta2), grad, 1 - beta2)
                if foreach:  # torch's multi-tensor step: sqrt(v) / sqrt(bc2), not sqrt(v / bc2)
                    denom = exp_avg_sq.sqrt().div_(bias_correction2**0.5).add_(eps)
                else:
                    denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                # (torch's foreach kernel reads a tensor lr as a number for these two)
                lr_s = _scalar(lr) if group["foreach"] else lr
                _sub_quotient_(p, grad, denom, _scalar(lr_s * (1.0 - mu) / (1.0 - mu_product)))
                step_size = _scalar((lr_s * mu_next) / (1.0 - mu_product_next))
                _sub_quotient_(p, exp_avg, denom, step_size)
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    state["step"] = _new_step()
    state["mu_product"] = _new_step(1.0)
    state["exp_avg"] = minitorch.zeros_like(p)
    state["exp_avg_sq"] = minitorch.zeros_like(p)
