"""Adafactor: Adam-like steps with a factored second moment (a row and a column vector per
matrix), relative step sizes and update clipping."""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _advance,
    _closure_loss,
    _lr_operand,
    _new_step,
    _params_with_grad,
    _scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Mirrors torch.optim.Adafactor: state `step`, and `row_var` / `col_var` (a gradient of two
    or more dims, its second moment factored over the last two) or `variance` (a vector).

    Differences from torch: torch reads the parameter's and the update's RMS back to the host
    every step; minitorch keeps them on the device, computing the step scale in float64 as
    torch's Python floats are (the same numbers, no synchronisation). `foreach` is accepted
    and changes nothing. An empty parameter is left as it is (torch's step divides by its
    zero size and raises ZeroDivisionError).
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {"foreach": None}
    _scalar_state = ("step",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps=(None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """v = lerp(v, g^2, t^decay) (factored for matrices), u = g / sqrt(v) clipped to RMS d,
        p -= max(eps2, RMS(p)) min(lr, 1/sqrt(t)) u (weight decay first)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr_operand, weight_decay = _lr_operand(group["lr"]), group["weight_decay"]
            lr = _scalar(lr_operand)
            lr_t = group["lr"].detach().reshape(()) if isinstance(group["lr"], Tensor) else None
            eps1, eps2 = group["eps"]
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                if not state:
                    state["step"] = _new_step()
                    if grad.ndim > 1:
                        state["row_var"] = grad.new_zeros(grad.shape[:-1] + (1,))
                        state["col_var"] = grad.new_zeros(grad.shape[:-2] + (1, grad.shape[-1]))
                    else:
                        state["variance"] = minitorch.zeros_like(grad)
                step = _advance(state["step"])
                e1 = minitorch.finfo(p.dtype).eps if eps1 is None else eps1
                weight = step ** group["beta2_decay"]  # 1 - beta2_t
                rho = min(lr, 1 / step**0.5)
                # max(eps2, RMS(p)) * rho, on the device in float64 (torch: Python floats)
                alpha = _py_max(eps2, p.norm(2).double() / math.sqrt(p.numel()))
                # torch's min(lr, ...) keeps a tensor lr, and alpha is then a 0-d tensor of its
                # dtype (See NOTE [ A tensor lr rounds in its own dtype ])
                lr_rho = lr_t is not None and not bool(1 / step**0.5 < lr_operand)
                alpha = alpha.to(lr_t.dtype) * lr_t.to(p.device) if lr_rho else alpha * rho
                if weight_decay != 0:
                    p.mul_(_scalar(1 - lr_operand * weight_decay))
                if grad.ndim > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_var.lerp_(
                        grad.norm(dim=-1, keepdim=True).square_() / grad.shape[-1], weight
                    )
                    col_var.lerp_(
                        grad.norm(dim=-2, keepdim=True).square_() / grad.shape[-2], weight
                    )
                    estimate = row_var @ col_var
                    estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=e1))
                else:
                    state["variance"].lerp_(grad * grad, weight)
                    estimate = state["variance"].clone()
                update = estimate.clamp_(min=e1 * e1).rsqrt_().mul_(grad)
                rms = update.norm(2).double() / (math.sqrt(update.numel()) * group["d"])
                scale = (-alpha / _py_max(1.0, rms).to(alpha.dtype)).to(p.dtype)
                p.add_(update.mul_(scale))
        return loss


def _py_max(floor: float, x: Tensor) -> Tensor:
    """Python's max(floor, x) on a 0-d tensor, as torch computes these on host floats: floor
    unless x > floor, so a NaN x gives floor (clamp would give NaN). A gradient that overflows
    in one element (g * g = inf) makes the update's RMS NaN; torch's step then only NaNs that
    element, through the update itself, not the whole parameter through the scale."""
    return minitorch.where(x > floor, x, floor)
