"""Autograd basics: fit y = sin(x) with a cubic polynomial, the classic way.

Tensors, the graph autograd records (printed through grad_fn), backward(), and parameter updates
under no_grad — no nn, no optim: every step is visible.

    python examples/autograd_basics.py [--steps 2000] [--device cpu]
"""

from __future__ import annotations

import argparse
import math

import minitorch as torch


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--lr", type=float, default=1e-6)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)

    x = torch.linspace(-math.pi, math.pi, 2000, device=args.device)
    y = torch.sin(x)
    # y_pred = a + b x + c x^2 + d x^3: four leaves that require grad
    a, b, c, d = (torch.randn((), device=args.device, requires_grad=True) for _ in range(4))

    loss = None
    for step in range(args.steps):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if step == 0:
            print("the graph behind the loss:")
            fn, depth = loss.grad_fn, 0
            while fn is not None and depth < 4:
                print("  " * depth + type(fn).__name__)
                fn = next((f for f, _ in fn.next_functions if f is not None), None)
                depth += 1
        if step % max(args.steps // 5, 1) == 0:
            print(f"step {step:5d}  loss {loss.item():.2f}")
        loss.backward()
        with torch.no_grad():  # the update is not part of the graph
            for p in (a, b, c, d):
                p -= args.lr * p.grad
                p.grad = None

    print(f"y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3")
    return loss.item()


if __name__ == "__main__":
    main()
