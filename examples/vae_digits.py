"""A variational autoencoder on scikit-learn's 8x8 digits, written with torch.distributions.

The encoder maps an image to a Normal over an 8-d latent code (its layers weight-normalised with
nn.utils.parametrizations.weight_norm); a code drawn with rsample (differentiable: the
reparameterisation trick) is decoded to pixel logits. The loss is the negative ELBO: the
reconstruction's binary cross-entropy plus kl_divergence(q(z|x), N(0, 1)). The decoder runs under
torch.utils.checkpoint, so its activations are recomputed in backward instead of kept.

    python examples/vae_digits.py [--epochs 30] [--latent 8] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import time

import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.distributions import Normal, kl_divergence
from minitorch.nn.utils.parametrizations import weight_norm
from minitorch.utils.checkpoint import checkpoint
from minitorch.utils.data import DataLoader, TensorDataset


def load_digits(device):
    """The 1,797 digit images as (N, 64) tensors in [0, 1], split 80/20."""
    from sklearn.datasets import load_digits as sk_load_digits

    x = torch.tensor(sk_load_digits().images, dtype=torch.float32).reshape(-1, 64) / 16.0
    x = x[torch.randperm(len(x), generator=torch.Generator().manual_seed(0))]
    n_train = int(0.8 * len(x))
    return TensorDataset(x[:n_train]), x[n_train:].to(device)


class VAE(nn.Module):
    def __init__(self, latent=8, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(
            weight_norm(nn.Linear(64, hidden)),
            nn.ReLU(),
            weight_norm(nn.Linear(hidden, 2 * latent)),
        )
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, 64))

    def posterior(self, x):
        mu, log_std = self.encoder(x).chunk(2, dim=-1)
        return Normal(mu, log_std.exp())

    def forward(self, x):
        """The negative ELBO per image, averaged over the batch."""
        q = self.posterior(x)
        z = q.rsample()
        logits = checkpoint(self.decoder, z, use_reentrant=False)
        recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(-1)
        prior = Normal(torch.zeros_like(z), torch.ones_like(z))
        return (recon + kl_divergence(q, prior).sum(-1)).mean()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--latent", type=int, default=8)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = p.parse_args(argv)
    torch.manual_seed(0)
    train, test_x = load_digits(args.device)
    model = VAE(args.latent).to(args.device)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loader = DataLoader(train, batch_size=64, shuffle=True)
    start = time.perf_counter()
    history = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        for (x,) in loader:
            loss = model(x.to(args.device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            test_loss = model(test_x).item()
        history.append(test_loss)
        print(f"epoch {epoch:3d}  test loss {test_loss:7.2f} (BCE + KL, nats per image)")
    print(f"trained in {time.perf_counter() - start:.1f} s")
    return history


if __name__ == "__main__":
    main()
