"""Adagrad: per-coordinate learning rates from the running sum of squared gradients."""

from __future__ import annotations

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    _HALF,
    Optimizer,
    _add_square_,
    _advance,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _in_float32,
    _lr_operand,
    _new_step,
    _params_with_grad,
    _scalar,
    _scalar_dtype,
    _sub_quotient_,
    _use_grad_for_differentiable,
    _with_decay,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Mirrors torch.optim.Adagrad: state `step` and `sum`, created for every parameter at
    construction (so `share_memory()` and state dicts see them before the first step).

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors), and `fused` nothing beyond what torch's fused kernel shows (a tensor lr read as a
    double; half-precision parameters updated in float32 and rounded once, NOTE [ Fused
    half-precision steps ]); sparse gradients are not supported.
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "fused": None,
    }
    _scalar_state = ("step",)
    _scalar_state_on_param_device = ("fused",)

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_lr(lr)
        _check_nonneg("lr_decay", lr_decay)
        _check_nonneg("weight_decay", weight_decay)
        _check_nonneg("initial_accumulator_value", initial_accumulator_value)
        _check_nonneg("epsilon", eps)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def _init_state(self, p, state, group) -> None:
        state["step"] = _new_step(fused=bool(group["fused"]))
        # (the constructor's value for every group, as torch: a group's own
        # initial_accumulator_value is kept in the group but never read)
        state["sum"] = minitorch.full_like(p, self.defaults["initial_accumulator_value"])

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        # As torch's: when the first state's step is no tensor (only a state not of this
        # optimizer's parameters can be so here), every state's step is made one, in the
        # scalar dtype of the last group's `fused` (a state without a step: KeyError).
        values = list(self.state.values())
        if values and isinstance(values[0]["step"], Tensor):
            return
        fused = bool(self.param_groups[-1].get("fused")) if self.param_groups else False
        for s in values:
            s["step"] = minitorch.tensor(float(s["step"]), dtype=_scalar_dtype(fused=fused))

    def share_memory(self) -> None:
        """Calls share_memory_() on the `sum` tensors (a no-op where tensors lack it)."""
        for group in self.param_groups:
            for p in group["params"]:
                share = getattr(self.state[p]["sum"], "share_memory_", None)
                if share is not None:
                    share()

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """s += g^2;  p -= lr / (1 + (t-1) lr_decay) * g / (sqrt(s) + eps)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            if group["foreach"]:
                _check_foreach_step(group, ("differentiable",))
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            lr_decay, differentiable = group["lr_decay"], group["differentiable"]
            if differentiable:  # (a grad-requiring tensor lr raises TypeError, as torch's)
                _scalar(lr, "addcdiv_(): argument 'value'")
            # (See NOTE [ A tensor lr rounds in its own dtype ]; torch's fused kernel reads a
            # tensor lr as a double)
            lr = _scalar(lr) if group["fused"] else _lr_operand(lr)
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                if not state:  # a parameter added with add_param_group
                    self._init_state(p, state, group)
                args = (lr, eps, weight_decay, lr_decay, differentiable)
                if group["fused"] and p.dtype in _HALF:  # NOTE [ Fused half-precision steps ]
                    _in_float32(_update, p, grad, state, args)
                else:
                    _update(p, grad, state, *args)
        return loss


def _update(p, grad, state, lr, eps, weight_decay, lr_decay, differentiable):
    """One Adagrad step of p in place (the state's sum too)."""
    step = _advance(state["step"])
    if weight_decay != 0:
        grad = _with_decay(grad, p, weight_decay)
    clr = _scalar(lr / (1 + (step - 1) * lr_decay))
    state_sum = state["sum"]
    # See NOTE [ Updates through the in-place fast path ]
    _add_square_(state_sum, grad, 1)
    std = state_sum.sqrt()
    # (sqrt saves its output: NOTE [ Differentiable optimizer steps ])
    if differentiable:  # (torch's addcdiv_: the parameter's node, as its)
        p.addcdiv_(grad, std.add(eps), value=-clr)
    else:
        _sub_quotient_(p, grad, std.add_(eps), clr)
