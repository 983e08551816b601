"""Muon: momentum whose update is orthogonalized by a Newton-Schulz iteration (2-d params)."""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _closure_loss,
    _lr_operand,
    _params_with_grad,
    _scalar,
)

__all__ = ["Muon"]

_NS_COEFFICIENTS = (3.4445, -4.775, 2.0315)


class Muon(Optimizer):
    """Mirrors torch.optim.Muon: state `momentum_buffer`; 2-d parameters only.

    Per step: B = lerp(B, g, 1 - momentum); the update U = lerp(g, B, momentum) (nesterov) or B,
    orthogonalized by ns_steps quintic Newton-Schulz iterations in bfloat16 (as torch, so
    bfloat16 needs ml_dtypes here); then decoupled weight decay p *= 1 - lr * weight_decay and
    p -= lr' U, where lr' scales lr by the matrix's shape (adjust_lr_fn: "original",
    sqrt(max(1, rows / cols)); "match_rms_adamw", 0.2 sqrt(max(rows, cols))).
    """

    def __init__(
        self,
        params,
        lr: float | Tensor = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = _NS_COEFFICIENTS,
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    @minitorch.no_grad()
    def step(self, closure=None):
        """One Muon update of every parameter with a gradient."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            # See NOTE [ A tensor lr rounds in its own dtype ]
            lr, wd, mu = _lr_operand(group["lr"]), group["weight_decay"], group["momentum"]
            for p, grad in _params_with_grad(group):
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = minitorch.zeros_like(grad)
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - mu)
                update = grad.lerp(buf, mu) if group["nesterov"] else buf
                update = _orthogonalize(
                    update, group["ns_coefficients"], group["ns_steps"], group["eps"]
                )
                p.mul_(_scalar(1 - lr * wd))
                p.add_(update, alpha=-_scalar(_adjusted_lr(lr, group["adjust_lr_fn"], p.shape)))
        return loss


def _orthogonalize(g: Tensor, coefficients, steps: int, eps: float) -> Tensor:
    """About U V^T of g = U S V^T: `steps` iterations X <- a X + (b A + c A²) X, A = X X^T, from
    X = g / |g|_F (the spectral norm at most 1), on the wide orientation of g, in bfloat16."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if g.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = g.shape[0] > g.shape[1]
    x = g.bfloat16()
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        x = minitorch.addmm(x, minitorch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, rule: str | None, shape):
    rows, cols = shape[:2]
    if rule is None or rule == "original":
        return lr * math.sqrt(max(1, rows / cols))
    return lr * 0.2 * math.sqrt(max(rows, cols))
