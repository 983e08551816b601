"""Per-sample gradients with torch.func, and DP-SGD-style training with them, on the 8x8 digits.

torch.func.functional_call runs a model with parameters given as a dict, grad differentiates a
one-example loss with respect to them, and vmap maps that over the batch: one gradient per
example, checked against a loop of backward() calls. Each example's gradient is clipped to a
maximum norm and Gaussian noise is added to their sum (the recipe of differentially private SGD)
before a plain SGD step.

    python examples/per_sample_grads.py [--epochs 8] [--clip 1.0] [--noise 0.5]
"""

from __future__ import annotations

import argparse

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.func import functional_call, grad, vmap


def load_digits():
    from sklearn.datasets import load_digits as sk_load_digits

    digits = sk_load_digits()
    x = torch.tensor(digits.images, dtype=torch.float32).reshape(-1, 64) / 16.0
    y = torch.tensor(digits.target, dtype=torch.int64)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[perm], y[perm]
    n = int(0.8 * len(x))
    return (x[:n], y[:n]), (x[n:], y[n:])


def per_sample_grads(model, params, x, y):
    """{name: (batch, *param.shape)} gradients of each example's cross-entropy."""

    def loss_one(p, xi, yi):
        logits = functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(logits, yi.unsqueeze(0))

    return vmap(grad(loss_one), in_dims=(None, 0, 0))(params, x, y)


def check_against_loop(model, params, x, y):
    """The largest difference between vmap's gradients and one backward() per example."""
    batched = per_sample_grads(model, params, x, y)
    worst = 0.0
    for i in range(len(x)):
        model.zero_grad()
        F.cross_entropy(model(x[i : i + 1]), y[i : i + 1]).backward()
        for name, p in model.named_parameters():
            worst = max(worst, (batched[name][i] - p.grad).abs().max().item())
    return worst


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--noise", type=float, default=0.5)
    p.add_argument("--lr", type=float, default=0.5)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = load_digits()
    model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    params = dict(model.named_parameters())
    diff = check_against_loop(
        model, {k: v.detach() for k, v in params.items()}, x_train[:8], y_train[:8]
    )
    print(f"vmap(grad(...)) against 8 backward() calls: largest difference {diff:.2e}")
    acc = 0.0
    for epoch in range(1, args.epochs + 1):
        perm = torch.randperm(len(x_train))
        for start in range(0, len(x_train), args.batch):
            idx = perm[start : start + args.batch]
            detached = {k: v.detach() for k, v in params.items()}
            grads = per_sample_grads(model, detached, x_train[idx], y_train[idx])
            # clip each example's whole gradient to norm <= clip, then sum, add noise, average
            norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads.values()]).norm(dim=0)
            scale = (args.clip / (norms + 1e-6)).clamp(max=1.0)
            with torch.no_grad():
                for name, p_ in params.items():
                    g = (grads[name] * scale.view(-1, *[1] * (grads[name].ndim - 1))).sum(0)
                    g += torch.randn_like(g) * args.noise * args.clip
                    p_ -= args.lr * g / len(idx)
        with torch.no_grad():
            acc = (model(x_test).argmax(1) == y_test).float().mean().item()
        print(f"epoch {epoch:2d}  test accuracy {acc:.1%}")
    return {"max_diff": diff, "accuracy": acc}


if __name__ == "__main__":
    main()
