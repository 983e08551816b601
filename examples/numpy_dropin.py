"""NumPy drop-in: a small network written with NumPy functions, trained with minitorch gradients.

The model, the loss and the metrics below are plain NumPy code (`np.tanh`, `np.matmul`, `np.mean`,
`np.square`, ...). The parameters are minitorch tensors, so each NumPy call runs a minitorch op on
the tensors' device and records the graph: `loss.backward()` gives the gradients. PyTorch cannot do
this (np.tanh on a torch tensor that requires grad raises).

    python examples/numpy_dropin.py [--steps 500] [--lr 0.1] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse

import numpy as np

import minitorch as torch


def make_data(n: int, seed: int):
    """y = sin(3x) + noise on x in [-1, 1]: a curve a straight line cannot fit."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, (n, 1))
    y = np.sin(3.0 * x) + 0.05 * rng.standard_normal((n, 1))
    return x, y


def init_params(hidden: int, seed: int, device):
    rng = np.random.default_rng(seed + 1)
    shapes = {"W1": (1, hidden), "b1": (hidden,), "W2": (hidden, 1), "b2": (1,)}
    params = {}
    for name, shape in shapes.items():
        scale = 1.0 / np.sqrt(shape[0]) if name.startswith("W") else 0.0
        value = scale * rng.standard_normal(shape)
        params[name] = torch.tensor(value, device=device, requires_grad=True)
    return params


def forward(p, x):
    """A one-hidden-layer tanh network, written in NumPy."""
    h = np.tanh(np.matmul(x, p["W1"]) + p["b1"])
    return np.matmul(h, p["W2"]) + p["b2"]


def mse(pred, y):
    return np.mean(np.square(pred - y))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)

    x_np, y_np = make_data(args.n, args.seed)
    # Data moves to the device once; every NumPy call below then runs there.
    x = torch.as_tensor(x_np, device=args.device)
    y = torch.as_tensor(y_np, device=args.device)
    params = init_params(args.hidden, args.seed, args.device)
    opt = torch.optim.Adam(params.values(), lr=args.lr)

    history = []
    for step in range(args.steps):
        loss = mse(forward(params, x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.detach())
        if step % max(1, args.steps // 10) == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {loss.item():.5f}")

    with torch.no_grad():
        final = mse(forward(params, x), y)
        baseline = np.var(y)  # the loss of predicting the mean
    print(f"final loss {final.item():.5f}  (predicting the mean: {baseline.item():.5f})")
    return {"loss": [h.item() for h in history], "final": final.item(), "baseline": baseline.item()}


if __name__ == "__main__":
    main()
