"""Adam, with the AMSGrad variant and the decoupled weight decay that AdamW (adamw.py) turns on."""

from __future__ import annotations

import minitorch
from minitorch._backend import cpu as _CPU
from minitorch._ops.pointwise_binary import _addcmul_array, _lerp_array
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    _HALF,
    _NUMBER_CLASSES,
    Optimizer,
    _add_square_,
    _advance,
    _check_betas,
    _check_capturable,
    _check_foreach_step,
    _check_lr,
    _check_nonneg,
    _closure_loss,
    _in_float32,
    _keep_grad,
    _lerp_,
    _lr_operand,
    _maximum_,
    _new_step,
    _params_with_grad,
    _scalar,
    _sub_quotient_,
    _to_scalar,
    _use_grad_for_differentiable,
    _with_decay,
    count_step,
    update_arrays,
)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Mirrors torch.optim.Adam: state `step` (0-d on the CPU), `exp_avg`,
    `exp_avg_sq` and, with amsgrad, `max_exp_avg_sq`.

    Differences from torch: `foreach` changes only the checks (torch's multi-tensor step's
    errors; one loop over the parameters either way), and `fused` nothing beyond what torch's
    fused kernel shows: tensor lr/betas read as doubles, half-precision parameters updated in
    float32 and rounded once (NOTE [ Fused half-precision steps ]) and the step count is float32
    whatever the default dtype; `capturable` only checks that the parameters are on a device, as
    torch asserts (not with `fused`, whose kernel runs on the CPU too); the step count stays on
    the CPU either way (see NOTE [ Optimizer scalars stay off the device ]); betas given as
    tensors are read on the host (the numbers derived from them rounded in their dtype, as
    torch's), except in a differentiable step where they require grad.
    """

    # See NOTE [ Loading old checkpoints ]
    _group_setdefaults = {
        "amsgrad": False,
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "fused": None,
    }
    _scalar_state = ("step",)
    _scalar_state_on_param_device = ("capturable", "fused")

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        betas=(0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_lr(lr)
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError(
                "lr as a Tensor is not supported for capturable=False and foreach=True"
            )
        _check_nonneg("epsilon", eps)
        _check_betas(betas)
        _check_nonneg("weight_decay", weight_decay)
        if not (
            (isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))
        ):
            raise ValueError("betas must be either both floats or both Tensors")
        if isinstance(betas[0], Tensor) and foreach and not capturable:
            raise ValueError(
                "betas[0] as a Tensor is not supported for capturable=False and foreach=True"
            )
        for i, beta in enumerate(betas):
            if isinstance(beta, Tensor) and beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() else b for b in betas)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        if fused and differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """m = lerp(m, g, 1-b1);  v = b2 v + (1-b2) g^2;
        p -= lr / (1-b1^t) * m / (sqrt(v / (1-b2^t)) + eps)."""
        self._accelerator_graph_capture_health_check()  # (a warning on a GPU only)
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _init_group(self, group)  # (before the checks, as torch)
            if group["foreach"]:
                checks = ("empty", "tensor_hparams", "capturable", "differentiable")
                _check_foreach_step(group, checks)
            elif group["capturable"] and not group["fused"]:  # torch's fused kernel runs on CPU
                _check_capturable(group)
            # (tensor lr and betas: NOTE [ A tensor lr rounds in its own dtype ]; torch's fused
            # kernel reads them as doubles instead)
            operand = _scalar if group["fused"] else _lr_operand
            lr, eps, weight_decay = operand(group["lr"]), group["eps"], group["weight_decay"]
            beta1, beta2 = (operand(b) for b in group["betas"])
            amsgrad, decoupled = group["amsgrad"], group["decoupled_weight_decay"]
            differentiable = group["differentiable"]
            on_arrays = (  # NOTE [ Updates on arrays ] (the parameters are checked below)
                not (amsgrad or differentiable)
                and (decoupled or weight_decay == 0)
                and all(x.__class__ in _NUMBER_CLASSES for x in (lr, beta1, beta2, eps))
                and weight_decay.__class__ in _NUMBER_CLASSES
            )
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                if on_arrays:
                    arrays = update_arrays(p, grad, state["exp_avg"], state["exp_avg_sq"])
                    if arrays is not None:
                        _update_arrays(p, state, arrays, lr, beta1, beta2, eps, weight_decay)
                        continue
                if differentiable:  # See NOTE [ Differentiable optimizer steps ]
                    _differentiable_update(p, grad, state, group)
                    continue
                args = (lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad)
                if group["fused"] and p.dtype in _HALF:  # NOTE [ Fused half-precision steps ]
                    _in_float32(_update, p, grad, state, args)
                else:
                    _update(p, grad, state, *args)
        return loss


def _init_group(optimizer, group) -> None:
    """The state of each parameter with a gradient, created before the step's checks, as
    torch's _init_group: there a tensor lr with foreach=True (and not capturable) raises after
    the first such parameter's state is made."""
    no_tensor_lr = group["foreach"] and not group["capturable"] and isinstance(group["lr"], Tensor)
    for p in group["params"]:
        if p.grad is None:
            continue
        state = optimizer.state[p]
        if not state:
            state["step"] = _new_step(fused=bool(group["fused"]))
            state["exp_avg"] = minitorch.zeros_like(p)
            state["exp_avg_sq"] = minitorch.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = minitorch.zeros_like(p)
        if no_tensor_lr:
            raise RuntimeError(
                "lr as a Tensor is not supported for capturable=False and foreach=True"
            )


def moments_(p, grad, state, lr, beta1, beta2, weight_decay, decoupled, cast_beta1=False) -> float:
    """The Adam family's common first part, in place: the step count, weight decay (decoupled:
    p shrinks; else folded into grad), and the moments m = lerp(m, g, 1-b1), v = b2 v + (1-b2)
    g^2. Returns the new step count. cast_beta1: a tensor beta1 is first cast to p's dtype for
    the lerp weight (torch's Adam does; RAdam rounds 1 - beta1 in beta1's dtype)."""
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    step = _advance(state["step"])
    # (tensor betas are 0-d CPU tensors here, so 1 - beta rounds in their dtype, as torch's)
    if weight_decay != 0:
        if decoupled:
            # (_keep_grad: a differentiable RAdam keeps a grad-requiring lr; else a number
            # rounded in lr's dtype, see NOTE [ A tensor lr rounds in its own dtype ])
            p.mul_(_keep_grad(1 - lr * weight_decay))
        else:
            grad = _with_decay(grad, p, weight_decay)
    # See NOTE [ Updates through the in-place fast path ]
    if cast_beta1 and isinstance(beta1, Tensor):
        beta1 = beta1.to(p.dtype)
    _lerp_(exp_avg, grad, _scalar(1 - beta1))
    _add_square_(exp_avg_sq.mul_(_scalar(beta2)), grad, _scalar(1 - beta2))
    return step


def _update(p, grad, state, lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad):
    """One Adam step of p in place (the state's moments too)."""
    step = moments_(p, grad, state, lr, beta1, beta2, weight_decay, decoupled, True)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    # (NOTE [ A tensor lr rounds in its own dtype ], tensor betas alike)
    step_size = _scalar(lr / (1 - beta1**step))
    bias_correction2_sqrt = _scalar((1 - beta2**step) ** 0.5)
    if amsgrad:
        max_sq = state["max_exp_avg_sq"]
        _maximum_(max_sq, exp_avg_sq)
        denom = max_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
    else:
        denom = exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
    _sub_quotient_(p, exp_avg, denom, step_size)


def _update_arrays(p, state, arrays, lr, beta1, beta2, eps, weight_decay):
    """_update on the arrays (p, grad, exp_avg, exp_avg_sq) of NOTE [ Updates on arrays ]
    (weight decay decoupled, no amsgrad): each line the array calls of the tensor op named."""
    xp = _CPU.backend.xp
    pd, gd, md, vd = arrays
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    step = count_step(state["step"])
    if weight_decay != 0:  # p.mul_(1 - lr * weight_decay)
        xp.multiply(pd, 1 - lr * weight_decay, out=pd)
        p._vc[0] += 1
    out = _lerp_array(_CPU.backend, md, gd, 1 - beta1, into=md)  # exp_avg.lerp_(grad, 1 - b1)
    if out is not md:
        xp.copyto(md, out)
    xp.multiply(vd, beta2, out=vd)  # exp_avg_sq.mul_(b2).addcmul_(grad, grad, value=1 - b2)
    out = _addcmul_array(_CPU.backend, vd, gd, gd, 1 - beta2)
    if out is not vd:
        xp.copyto(vd, out)
    exp_avg._vc[0] += 1
    exp_avg_sq._vc[0] += 2
    step_size = lr / (1 - beta1**step)
    denom = xp.sqrt(vd)  # exp_avg_sq.sqrt().div_(bias_correction2_sqrt).add_(eps)
    xp.true_divide(denom, (1 - beta2**step) ** 0.5, out=denom)
    xp.add(denom, eps, out=denom)
    q = md * -step_size  # p.add_(exp_avg.mul(-step_size).div_(denom)) (_sub_quotient_)
    xp.true_divide(q, denom, out=q)
    xp.add(pd, q, out=pd)
    p._vc[0] += 1


def _differentiable_update(p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
    """One Adam step autograd can go through, with torch's formulas for differentiable=True:
    bias corrections from the step tensor, tensor lr/betas/weight_decay kept as tensors, the
    max and the first moment cloned before a backward saves them (they change in place next
    step). See NOTE [ Differentiable optimizer steps ]."""
    # (a tensor lr stays a tensor, as torch's: the step size then takes its dtype)
    lr, eps = _to_scalar(group["lr"]), group["eps"]
    weight_decay = _keep_grad(group["weight_decay"])
    beta1, beta2 = (_keep_grad(b) for b in group["betas"])
    exp_avg, exp_avg_sq, step = state["exp_avg"], state["exp_avg_sq"], state["step"]
    step.add_(1)
    if weight_decay != 0:
        if group["decoupled_weight_decay"]:
            p.mul_(1 - lr * weight_decay)
        elif isinstance(weight_decay, Tensor):  # p is changed in place below
            grad = grad.addcmul_(p.clone(), weight_decay)
        else:
            grad = grad.add(p, alpha=weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    if isinstance(beta2, Tensor):  # lerp: a tensor weight (addcmul_ takes only a number)
        exp_avg_sq.lerp_(grad.square(), 1 - beta2)
    else:
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    # (Pow saves its exponent for the base's gradient, and `step` changes in place next step)
    bias_correction1 = 1 - beta1 ** (step.clone() if isinstance(beta1, Tensor) else step)
    bias_correction2 = 1 - beta2 ** (step.clone() if isinstance(beta2, Tensor) else step)
    step_size_neg = (lr / bias_correction1).neg()
    if group["amsgrad"]:
        max_sq = state["max_exp_avg_sq"]
        max_sq.copy_(minitorch.maximum(max_sq.clone(), exp_avg_sq))
        exp_avg_sq = max_sq
    denom = (exp_avg_sq.sqrt() / (bias_correction2.sqrt() * step_size_neg)).add_(
        eps / step_size_neg
    )
    p.addcdiv_(exp_avg.clone(), denom)


def adam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    state_steps: list[Tensor],
    foreach: bool | None = None,
    capturable: bool = False,
    differentiable: bool = False,
    fused: bool | None = None,
    grad_scale: Tensor | None = None,
    found_inf: Tensor | None = None,
    has_complex: bool = False,
    decoupled_weight_decay: bool = False,
    *,
    amsgrad: bool,
    beta1: float | Tensor,
    beta2: float | Tensor,
    lr: float | Tensor,
    weight_decay: float,
    eps: float,
    maximize: bool,
) -> None:
    """Functional Adam: one step of each params[i], updating the given state tensors (and
    incrementing state_steps[i]) in place, with Adam.step's update. Mirrors
    torch.optim.adam.adam (torch.optim._functional.adam).

    Differences from torch: `grad_scale`/`found_inf` (torch's fused AMP unscaling) raise;
    `foreach`/`capturable` change nothing, as in Adam."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError(
            "API has changed, `state_steps` argument must contain a list of singleton tensors"
        )
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("adam: grad_scale and found_inf are not supported")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    group = {
        "lr": lr,
        "betas": (beta1, beta2),
        "eps": eps,
        "weight_decay": weight_decay,
        "amsgrad": amsgrad,
        "decoupled_weight_decay": decoupled_weight_decay,
    }
    # (See NOTE [ A tensor lr rounds in its own dtype ])
    operand = _scalar if fused else _lr_operand  # (as Adam.step)
    args = (operand(lr), operand(beta1), operand(beta2), eps, weight_decay)
    args += (decoupled_weight_decay, amsgrad)
    for i, p in enumerate(params):
        grad = -grads[i] if maximize else grads[i]
        state = {"step": state_steps[i], "exp_avg": exp_avgs[i], "exp_avg_sq": exp_avg_sqs[i]}
        if amsgrad:
            state["max_exp_avg_sq"] = max_exp_avg_sqs[i]
        if differentiable:  # See NOTE [ Differentiable optimizer steps ]
            _differentiable_update(p, grad, state, group)
        elif fused and p.dtype in _HALF:  # NOTE [ Fused half-precision steps ]
            _in_float32(_update, p, grad, state, args)
        else:
            _update(p, grad, state, *args)


def __getattr__(name):
    # AdamW and adamw lived here before moving to adamw.py (torch's module for them): imports
    # and pickles that name this module still find them
    if name in ("AdamW", "adamw"):
        from minitorch.optim import adamw

        return getattr(adamw, name)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
