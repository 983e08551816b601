"""A small convolutional network on scikit-learn's 8x8 handwritten digits, with minitorch.

Two Conv2d + ReLU + MaxPool2d stages and a Linear classifier, trained with Adam from a DataLoader;
prints the test accuracy after every epoch. No download: the digits ship inside scikit-learn.

    python examples/cnn_digits.py [--epochs 10] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.utils.data import DataLoader, TensorDataset


def load_digits(device):
    """The 1,797 digit images as (N, 1, 8, 8) tensors scaled to [0, 1], split 80/20."""
    from sklearn.datasets import load_digits as sk_load_digits

    digits = sk_load_digits()
    x = torch.tensor(digits.images, dtype=torch.float32).reshape(-1, 1, 8, 8) / 16.0
    y = torch.tensor(digits.target, dtype=torch.int64)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    x, y = x[perm], y[perm]
    n_train = int(0.8 * len(x))
    train = TensorDataset(x[:n_train], y[:n_train])
    test = TensorDataset(x[n_train:].to(device), y[n_train:].to(device))
    return train, test


class DigitsCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=3, padding=1),  # 16 x 8 x 8
            nn.ReLU(),
            nn.MaxPool2d(2),  # 16 x 4 x 4
            nn.Conv2d(16, 32, kernel_size=3, padding=1),  # 32 x 4 x 4
            nn.ReLU(),
            nn.MaxPool2d(2),  # 32 x 2 x 2
        )
        self.classifier = nn.Linear(32 * 2 * 2, n_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def evaluate(model, dataset):
    model.eval()
    with torch.no_grad():
        x, y = dataset.tensors
        acc = (model(x).argmax(dim=1) == y).float().mean().item()
    model.train()
    return acc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    train, test = load_digits(device)
    loader = DataLoader(
        train,
        batch_size=args.batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(args.seed),
    )
    model = DigitsCNN().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    print(model)

    start = time.perf_counter()
    acc = 0.0
    for epoch in range(1, args.epochs + 1):
        total, count = 0.0, 0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
            count += len(y)
        acc = evaluate(model, test)
        print(f"epoch {epoch:2d}  train loss {total / count:.4f}  test accuracy {acc:.1%}")
    print(f"trained in {time.perf_counter() - start:.1f} s")
    return acc


if __name__ == "__main__":
    main()
