"""A custom autograd.Function with a double backward: P3(x) = (5x^3 - 3x) / 2.

forward and backward are written by hand; because backward is itself written with tensor ops, the
second derivative comes for free (checked with gradcheck and gradgradcheck).

    python examples/custom_function.py [--steps 500] [--device cpu]
"""

from __future__ import annotations

import argparse
import math

import minitorch as torch


class LegendreP3(torch.autograd.Function):
    """P3(x) = (5x^3 - 3x) / 2;  dP3/dx = (15x^2 - 3) / 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * (5 * x**3 - 3 * x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 1.5 * (5 * x**2 - 1)  # tensor ops: differentiable again


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--lr", type=float, default=5e-6)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args(argv)
    torch.manual_seed(0)

    x64 = torch.randn(5, dtype=torch.float64, requires_grad=True)
    print("gradcheck:", torch.autograd.gradcheck(LegendreP3.apply, (x64,)))
    print("gradgradcheck:", torch.autograd.gradgradcheck(LegendreP3.apply, (x64,)))

    # fit y = sin(x) with a + b * P3(c + d x), as in PyTorch's tutorial
    x = torch.linspace(-math.pi, math.pi, 2000, device=args.device)
    y = torch.sin(x)
    a = torch.full((), 0.0, device=args.device, requires_grad=True)
    b = torch.full((), -1.0, device=args.device, requires_grad=True)
    c = torch.full((), 0.0, device=args.device, requires_grad=True)
    d = torch.full((), 0.3, device=args.device, requires_grad=True)
    loss = None
    for step in range(args.steps):
        y_pred = a + b * LegendreP3.apply(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if step % max(args.steps // 5, 1) == 0:
            node = type(y_pred.grad_fn).__name__
            print(f"step {step:4d}  loss {loss.item():.2f}  grad_fn {node}")
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= args.lr * p.grad
                p.grad = None
    fit = f"{a.item():.3f} + {b.item():.3f} * P3({c.item():.3f} + {d.item():.3f} x)"
    print(f"on {x.device}: y = {fit}")
    return loss.item()


if __name__ == "__main__":
    main()
