"""ASGD: averaged stochastic gradient descent."""

from __future__ import annotations

import minitorch
from minitorch import _dtype
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _default_to_fused_or_foreach,
    _init_states,
    _params_with_grad,
    _scalar,
    _scalar_dtype,
    _use_grad_for_differentiable,
    _with_decay,
)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Mirrors torch.optim.ASGD: state `step`, `eta`, `mu` (0-d float32, or float64 under a
    float64 default dtype, on the parameter's device, as torch keeps them) and the average `ax`.

    The update reads `eta` and `mu` as tensors and computes their next values with tensor
    math from `step` (torch's capturable formulas in float64), so nothing is read back to the
    host; `foreach` (torch's multi-tensor path) computes eta in the step's dtype, as torch's.
    Differences from torch: `capturable` only checks that the parameters are on a device (as
    torch asserts).
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }
    _scalar_state = ("step", "eta", "mu")
    _scalar_state_on_param_device = True

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr(lr)
        _check_nonneg("weight_decay", weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """p = p (1 - lambd eta) - eta g;  ax += mu (p - ax);
        eta = lr / (1 + lambd lr t)^alpha,  mu = 1 / max(1, t - t0)."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        scalar_dtype, f64 = _scalar_dtype(), _dtype.float64
        for group in self.param_groups:
            _init_states(self, group, _init_state)  # (before the checks, as torch)
            if group["foreach"]:
                checks = ("empty", "differentiable", "capturable")
                _check_foreach_step(group, checks, "params, mus, etas, and state_steps")
            elif group["capturable"]:
                _check_capturable(group, "params, mus, etas, and state_steps")
            lr, weight_decay = _scalar(group["lr"]), group["weight_decay"]
            lr_t = group["lr"].detach().reshape(()) if isinstance(group["lr"], Tensor) else None
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            foreach = group["foreach"]
            if foreach is None:
                foreach = _default_to_fused_or_foreach(group["params"], group["differentiable"])[1]
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                step_t, eta, mu, ax = state["step"], state["eta"], state["mu"], state["ax"]
                step_t.add_(1)
                if weight_decay != 0:
                    grad = _with_decay(grad, p, weight_decay)
                # a copy where the update is recorded: the step's eta.copy_ below must not change
                # what backward reads (torch reads eta as a number)
                eta_p = eta.to(p.dtype, copy=group["differentiable"])
                # torch reads eta as a Python float: 1 - lambd * eta in float64, rounded to p's
                # dtype by mul_, and p += -eta * grad rounded once (add_ with alpha); here on
                # p's device (NOTE [ Updates through the in-place fast path ])
                if foreach:  # torch's multi-tensor path: p -= eta (grad + lambd p), each add
                    grad = grad.add(p, alpha=lambd)  # and addcmul rounded once
                    p.addcmul_(grad, eta_p, value=-1)
                    ax.addcmul_(p.sub(ax), mu.to(p.dtype))
                else:
                    p.mul_((1 - lambd * eta.to(f64)).to(p.dtype))
                    p.addcmul_(grad, eta_p, value=-1)
                    # torch copies p into ax while mu == 1, else moves ax towards p by mu.
                    ax.copy_(minitorch.where(mu == 1, p, ax + (p - ax) * mu.to(p.dtype)))
                if isinstance(lr_t, Tensor):  # See NOTE [ A tensor lr rounds in its own dtype ]
                    lr_p = lr_t.to(p.device)  # (no host read: eta stays on p's device)
                    step = step_t.to(lr_p.dtype)
                    eta.copy_(lr_p / (1 + lambd * lr_p * step) ** alpha)
                elif foreach:  # torch's multi-tensor path: tensor math in the step's dtype
                    step = step_t
                    # the power through float64: a correctly rounded float32 powf, as torch's
                    decay = ((step * lambd * lr + 1).to(f64) ** alpha).to(step.dtype)
                    eta.copy_(decay.reciprocal() * lr)
                else:  # torch computes a Python float, then makes it a default-dtype tensor
                    step = step_t.to(f64)
                    new_eta = minitorch.full_like(step, lr) / (1 + lambd * lr * step) ** alpha
                    eta.copy_(new_eta.to(scalar_dtype))
                # rounded to the scalar dtype even where a loaded state keeps eta/mu in float64
                mu.copy_((step - t0).clamp_min(1).reciprocal().to(scalar_dtype))
        return loss


def _init_state(p, state, group) -> None:
    """A parameter's state before its first step (torch's keys, dtypes and devices)."""
    scalar_dtype, lr = _scalar_dtype(), _scalar(group["lr"])
    state["step"] = minitorch.zeros((), dtype=scalar_dtype, device=p.device)
    state["eta"] = minitorch.as_tensor(lr, dtype=scalar_dtype, device=p.device).clone()
    state["mu"] = minitorch.ones((), dtype=scalar_dtype, device=p.device)
    state["ax"] = minitorch.zeros_like(p)
