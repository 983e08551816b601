"""Benchmark workloads, written against a `torch` module (minitorch or torch), and NumPy floors.

Each workload builder takes the library module and returns `step`, a zero-argument callable doing
one iteration; the builder does the set-up (random inputs, parameters) outside the timed call. The
NumPy floors compute the same forward and a hand-written backward in float32, with no per-op
overhead, so `minitorch / numpy` is the price of the Python frontend.
"""

from __future__ import annotations

import importlib

import numpy as np

MLP_SIZES = (784, 512, 512, 10)
MLP_BATCH = 256
TINY_SIZES = (32, 32, 32, 10)
TINY_BATCH = 16
LR = 0.01


# ---------------------------------------------------------------------------------------------
# Written against `torch`: the same code runs with `minitorch` and with PyTorch.


def pointwise_fwd_bwd(torch):
    torch.manual_seed(0)
    x = torch.randn(32, 32, requires_grad=True)
    y = torch.randn(32, 32, requires_grad=True)

    def step():
        z = ((x * y + x).tanh() * 2 - y).exp().sum()
        z.backward()
        return z

    return step


def pointwise_fwd_nograd(torch):
    torch.manual_seed(0)
    x = torch.randn(32, 32, requires_grad=True)
    y = torch.randn(32, 32, requires_grad=True)

    def step():
        with torch.no_grad():
            return ((x * y + x).tanh() * 2 - y).exp().sum()

    return step


def _mlp(torch, sizes, batch):
    torch.manual_seed(0)
    x = torch.randn(batch, sizes[0])
    y = torch.randint(0, sizes[-1], (batch,))
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        w = (torch.randn(fan_in, fan_out) * 0.05).requires_grad_()
        b = torch.zeros(fan_out, requires_grad=True)
        params += [w, b]

    def step():
        h = x
        for w, b in zip(params[0:-2:2], params[1:-2:2], strict=True):
            h = torch.relu(h @ w + b)
        logits = h @ params[-2] + params[-1]
        loss = (logits.logsumexp(dim=1) - logits[torch.arange(batch), y]).mean()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss

    return step


def mlp_step(torch):
    return _mlp(torch, MLP_SIZES, MLP_BATCH)


def mlp_step_tiny(torch):
    return _mlp(torch, TINY_SIZES, TINY_BATCH)


# ---------------------------------------------------------------------------------------------
# The floor: hand-written NumPy, float32, forward and manual backward.


def _randn(rng, *shape):
    return rng.standard_normal(shape, dtype=np.float32)


def pointwise_fwd_bwd_numpy():
    rng = np.random.default_rng(0)
    x, y = _randn(rng, 32, 32), _randn(rng, 32, 32)
    # .grad accumulates across backward calls in torch: the floor accumulates too
    gx_acc, gy_acc = np.zeros_like(x), np.zeros_like(y)

    def step():
        t = np.tanh(x * y + x)
        e = np.exp(t * 2 - y)
        z = e.sum()
        ga = (2 * e) * (1 - t * t)  # d z / d (x*y + x)
        gx_acc[...] += ga * (y + 1)
        gy_acc[...] += ga * x - e
        return z

    return step


def pointwise_fwd_nograd_numpy():
    rng = np.random.default_rng(0)
    x, y = _randn(rng, 32, 32), _randn(rng, 32, 32)

    def step():
        return np.exp(np.tanh(x * y + x) * 2 - y).sum()

    return step


def _mlp_numpy(sizes, batch):
    rng = np.random.default_rng(0)
    x = _randn(rng, batch, sizes[0])
    y = rng.integers(0, sizes[-1], size=batch)
    ws = [_randn(rng, i, o) * np.float32(0.05) for i, o in zip(sizes[:-1], sizes[1:], strict=True)]
    bs = [np.zeros(o, dtype=np.float32) for o in sizes[1:]]

    def step():
        rows = np.arange(batch)
        # forward, keeping what backward needs
        acts = [x]
        h = x
        for w, b in zip(ws[:-1], bs[:-1], strict=True):
            h = np.maximum(h @ w + b, 0)
            acts.append(h)
        logits = h @ ws[-1] + bs[-1]
        m = logits.max(axis=1, keepdims=True)
        ex = np.exp(logits - m)
        s = ex.sum(axis=1, keepdims=True)
        lse = m[:, 0] + np.log(s[:, 0])
        loss = (lse - logits[rows, y]).mean()
        # backward: d loss / d logits = (softmax - onehot) / batch
        g = ex / s
        g[rows, y] -= 1
        g *= np.float32(1 / batch)
        for i in range(len(ws) - 1, -1, -1):
            gw = acts[i].T @ g
            gb = g.sum(axis=0)
            if i > 0:
                g = (g @ ws[i].T) * (acts[i] > 0)
            ws[i] -= LR * gw
            bs[i] -= LR * gb
        return loss

    return step


def mlp_step_numpy():
    return _mlp_numpy(MLP_SIZES, MLP_BATCH)


def mlp_step_tiny_numpy():
    return _mlp_numpy(TINY_SIZES, TINY_BATCH)


# ---------------------------------------------------------------------------------------------
# The nn/optim workloads of the nn issue (written with nn.Module, losses and optimizers; no
# hand-written NumPy floor: the comparison is with torch).


def mlp_nn_step(torch):
    """The MLP of mlp_step written with nn.Linear, nn.CrossEntropyLoss and optim.SGD."""
    nn = torch.nn
    torch.manual_seed(0)
    sizes = MLP_SIZES
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(fan_in, fan_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1])
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.randn(MLP_BATCH, sizes[0])
    y = torch.randint(0, sizes[-1], (MLP_BATCH,))

    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def cnn_step(torch):
    """28x28x1 batch 64: conv3x3 1->16 pad 1, ReLU, maxpool 2, conv3x3 16->32 pad 1, ReLU,
    maxpool 2, Linear 1568->10, cross-entropy, SGD."""
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 7 * 7, 10),
    )
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = torch.randn(64, 1, 28, 28)
    y = torch.randint(0, 10, (64,))

    def step():
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def attention_block(torch):
    """Forward+backward of a single-head attention + MLP block: batch 32, seq 64, dim 128,
    MLP 128->512->128 with GELU, pre-norm residuals."""
    nn = torch.nn
    F = torch.nn.functional
    torch.manual_seed(0)
    dim = 128
    norm1, norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
    qkv, proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
    fc1, fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
    params = [p for m in (norm1, norm2, qkv, proj, fc1, fc2) for p in m.parameters()]
    x = torch.randn(32, 64, dim)

    def step():
        h = norm1(x)
        q, k, v = qkv(h).chunk(3, dim=-1)
        att = F.softmax(q @ k.transpose(-2, -1) / dim**0.5, dim=-1)
        h = x + proj(att @ v)
        out = h + fc2(F.gelu(fc1(norm2(h))))
        out.sum().backward()
        for p in params:
            p.grad = None
        return out

    return step


# ---------------------------------------------------------------------------------------------

# name -> (builder written against `torch`, NumPy floor builder)
WORKLOADS = {
    "pointwise_fwd_bwd": (pointwise_fwd_bwd, pointwise_fwd_bwd_numpy),
    "pointwise_fwd_nograd": (pointwise_fwd_nograd, pointwise_fwd_nograd_numpy),
    "mlp_step": (mlp_step, mlp_step_numpy),
    "mlp_step_tiny": (mlp_step_tiny, mlp_step_tiny_numpy),
    "mlp_nn_step": (mlp_nn_step, None),
    "cnn_step": (cnn_step, None),
    "attention_block": (attention_block, None),
}

LIBRARIES = ("numpy", "minitorch", "torch")


def make_step(library: str, workload: str):
    """Build `workload` for `library` ('numpy', 'minitorch' or 'torch'); return its step (None
    for a workload without a NumPy floor)."""
    torch_builder, numpy_builder = WORKLOADS[workload]
    if library == "numpy":
        return None if numpy_builder is None else numpy_builder()
    return torch_builder(importlib.import_module(library))
