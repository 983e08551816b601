"""RMSprop: gradients scaled by a running root mean square (optionally centered), momentum."""

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
    _lerp_,
    _new_step,
    _params_with_grad,
    _scalar,
    _sub_quotient_,
    _use_grad_for_differentiable,
    _with_decay,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Mirrors torch.optim.RMSprop: state `step`, `square_avg`, and `momentum_buffer` (momentum
    > 0) and `grad_avg` (centered).

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors; one loop over the parameters either way), `capturable` only checks that the
    parameters are on a device (as torch asserts).
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "momentum": 0,
        "centered": False,
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
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonneg("epsilon", eps)
        _check_nonneg("momentum", momentum)
        _check_nonneg("weight_decay", weight_decay)
        _check_nonneg("alpha", alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """v = a v + (1-a) g^2;  avg = sqrt(v - mean(g)^2 if centered else v) + eps;
        p -= lr g/avg (or through the momentum buffer b = m b + g/avg)."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                _check_foreach_step(group, ("empty", "differentiable", "capturable"), xla=True)
            elif group["capturable"]:
                _check_capturable(group)
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            alpha, momentum, centered = group["alpha"], group["momentum"], group["centered"]
            differentiable = group["differentiable"]
            if differentiable:  # where torch takes the lr as a Number
                arg = "add_(): argument 'alpha'" if momentum > 0 else "addcdiv_(): argument 'value'"
                lr = _scalar(lr, arg)
            else:
                lr = _scalar(lr)
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                square_avg = state["square_avg"]
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = _with_decay(grad, p, weight_decay)
                # See NOTE [ Updates through the in-place fast path ]
                _add_square_(square_avg.mul_(alpha), grad, 1 - alpha)
                if centered:
                    grad_avg = state["grad_avg"]
                    _lerp_(grad_avg, grad, 1 - alpha)
                    avg = _centered(square_avg, grad_avg).sqrt()
                else:
                    avg = square_avg.sqrt()
                # (sqrt saves its output: NOTE [ Differentiable optimizer steps ])
                avg = avg.add(eps) if differentiable else avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    p.add_(buf, alpha=-lr)  # (rounded once, as torch's)
                elif differentiable:  # (torch's addcdiv_: the parameter's node, as its)
                    p.addcdiv_(grad, avg, value=-lr)
                else:
                    _sub_quotient_(p, grad, avg, lr)
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    state["step"] = _new_step()
    state["square_avg"] = minitorch.zeros_like(p)
    if group["momentum"] > 0:
        state["momentum_buffer"] = minitorch.zeros_like(p)
    if group["centered"]:
        state["grad_avg"] = minitorch.zeros_like(p)


def _centered(square_avg: Tensor, grad_avg: Tensor) -> Tensor:
    """square_avg - grad_avg^2: torch's square_avg.addcmul(grad_avg, grad_avg, value=-1), one
    fused multiply-add (half: in float32, rounded once). Its square is not rounded first: an
    inf square_avg (a gradient whose square overflowed) stays inf there, not inf - inf = nan
    (float32 exactly; float64 where the square itself overflows gives nan)."""
    return square_avg.addcmul(grad_avg, grad_avg, value=-1)
