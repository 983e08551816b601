"""SparseAdam: lazy Adam for embeddings, updating only the rows a step's gradient touches."""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Tensor
from minitorch.optim.optimizer import (
    Optimizer,
    _check_betas,
    _closure_loss,
    _lr_operand,
    _scalar,
)

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Mirrors torch.optim.SparseAdam: state `step` (an int), `exp_avg`, `exp_avg_sq`.

    Each step updates the moments and the parameter at the rows the gradient touches only (a
    lazy Adam: rows an embedding did not look up keep their moments as they were).

    Differences from torch: minitorch has no sparse tensors, so an Embedding(sparse=True) gives
    a dense gradient; its touched rows are the rows with a nonzero entry (a looked-up row whose
    gradient is exactly zero is skipped, where torch would decay its moments). A dense gradient
    of any other parameter is accepted the same way (torch refuses dense gradients).
    """

    def __init__(self, params, lr: float | Tensor = 1e-3, betas=(0.9, 0.999), eps=1e-8,
                 maximize: bool = False) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:  # (torch refuses a zero lr and eps here, unlike its other optimizers)
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)

    @minitorch.no_grad()
    def step(self, closure=None):
        """For the touched rows r: m_r = lerp(m_r, g_r, 1-b1), v_r = lerp(v_r, g_r^2, 1-b2),
        p_r -= lr sqrt(1-b2^t)/(1-b1^t) m_r / (sqrt(v_r) + eps)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            # See NOTE [ A tensor lr rounds in its own dtype ]
            lr, eps = _lr_operand(group["lr"]), group["eps"]
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = -p.grad if group["maximize"] else p.grad
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = minitorch.zeros_like(p)
                    state["exp_avg_sq"] = minitorch.zeros_like(p)
                state["step"] += 1
                # rows along dim 0 (2-d views of every tensor: a 0-d or 1-d one has rows of one)
                pv, gv, m, v = (_rows(t) for t in (p, grad, state["exp_avg"], state["exp_avg_sq"]))
                rows = (gv != 0).any(1).nonzero().reshape(-1)  # the touched rows (a host read)
                g = gv[rows]
                m_rows = m[rows] + (g - m[rows]) * (1 - beta1)
                v_rows = v[rows] + (g * g - v[rows]) * (1 - beta2)
                m[rows] = m_rows
                v[rows] = v_rows
                t = state["step"]
                step_size = _scalar(lr * math.sqrt(1 - beta2**t) / (1 - beta1**t))
                pv[rows] = pv[rows] - step_size * (m_rows / (v_rows.sqrt() + eps))
        return loss


def _rows(t: Tensor) -> Tensor:
    """t as a (rows, rest) view sharing its memory."""
    rows = t.shape[0] if t.ndim else 1
    return t.reshape(rows, math.prod(t.shape[1:]))  # (an empty t has no -1 to infer)
