"""Quickstart: train a small network on scikit-learn's handwritten digits with minitorch.

The README's main command. Written exactly as PyTorch code (`import minitorch as torch`): a
DataLoader, an nn.Module, cross-entropy, an optimizer, a progress bar per epoch, a plot of the loss
and accuracy curves, and a checkpoint that is saved and loaded back.

    python examples/quickstart.py [--epochs 15] [--device cpu|cuda] [--out examples/out]
"""

from __future__ import annotations

import argparse
import os
import time

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.utils.data import DataLoader, TensorDataset


def load_digits(device):
    """The 1,797 8x8 digit images that ship inside scikit-learn (no download), split 80/20."""
    from sklearn.datasets import load_digits as sk_load_digits

    digits = sk_load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0  # pixel values 0..16
    y = torch.tensor(digits.target, dtype=torch.int64)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[perm], y[perm]
    n_train = int(0.8 * len(x))
    train = TensorDataset(x[:n_train], y[:n_train])
    test = TensorDataset(x[n_train:].to(device), y[n_train:].to(device))
    return train, test


class MLP(nn.Module):
    def __init__(self, n_in=64, hidden=128, n_out=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, n_out),
        )

    def forward(self, x):
        return self.net(x)


def evaluate(model, dataset):
    model.eval()
    with torch.no_grad():
        x, y = dataset.tensors
        logits = model(x)
        loss = F.cross_entropy(logits, y).item()
        acc = (logits.argmax(dim=1) == y).float().mean().item()
    model.train()
    return loss, acc


def progress(iterable, desc):
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is in the 'examples' extra; run without a bar otherwise
        return iterable
    return tqdm(iterable, desc=desc, leave=False)


def plot(history, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    epochs = range(1, len(history["train_loss"]) + 1)
    ax1.plot(epochs, history["train_loss"], label="train")
    ax1.plot(epochs, history["test_loss"], label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.legend()
    ax2.plot(epochs, history["test_acc"])
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("test accuracy")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"saved {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "out"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    os.makedirs(args.out, exist_ok=True)

    train, test = load_digits(device)
    loader = DataLoader(train, batch_size=args.batch_size, shuffle=True)
    model = MLP().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    print(model)

    history = {"train_loss": [], "test_loss": [], "test_acc": []}
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        total, count = 0.0, 0
        for x, y in progress(loader, f"epoch {epoch}/{args.epochs}"):
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
            count += len(y)
        test_loss, test_acc = evaluate(model, test)
        history["train_loss"].append(total / count)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        print(f"epoch {epoch:2d}  train loss {total / count:.4f}  test loss {test_loss:.4f}  "
              f"test accuracy {test_acc:.1%}")
    print(f"trained in {time.perf_counter() - start:.1f} s")

    plot(history, os.path.join(args.out, "quickstart_curves.png"))

    path = os.path.join(args.out, "quickstart.pt")
    torch.save(model.state_dict(), path)
    reloaded = MLP().to(device)
    reloaded.load_state_dict(torch.load(path))
    _, reloaded_acc = evaluate(reloaded, test)
    assert reloaded_acc == history["test_acc"][-1], "the reloaded checkpoint gives other numbers"
    print(f"saved {path} and loaded it back: test accuracy {reloaded_acc:.1%}")
    return history


if __name__ == "__main__":
    main()
