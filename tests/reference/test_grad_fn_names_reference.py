"""The grad_fn a user sees (in a printed tensor, `out.grad_fn`) for common layers and functions
is the class name torch gives the last node of the same computation."""

from __future__ import annotations

import pytest

import minitorch

torch = pytest.importorskip("torch")


def _cases(lib):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    x1 = lib.randn(3, requires_grad=True)
    x2 = lib.randn(4, 3, requires_grad=True)
    x3 = lib.randn(2, 4, 3, requires_grad=True)
    w = lib.randn(5, 3, requires_grad=True)
    b = lib.randn(5, requires_grad=True)
    img = lib.randn(2, 3, 8, 8, requires_grad=True)
    target = lib.tensor([0, 1, 2, 0])
    return {
        "linear 2-d": lambda: F.linear(x2, w, b),
        "linear 2-d no bias": lambda: F.linear(x2, w),
        "linear 3-d": lambda: F.linear(x3, w, b),
        "linear 3-d no bias": lambda: F.linear(x3, w),
        "linear 1-d": lambda: F.linear(x1, w, b),
        "linear 1-d no bias": lambda: F.linear(x1, w),
        "nn.Linear": lambda: nn.Linear(3, 5)(x2),
        "layer_norm": lambda: F.layer_norm(x3, (3,)),
        "nn.LayerNorm": lambda: nn.LayerNorm(3)(x3),
        "layer_norm half": lambda: F.layer_norm(x2.half(), (3,)),
        "linear half": lambda: F.linear(x2.half(), w.half(), b.half()),
        "matmul 3-d": lambda: x3 @ w.t(),
        "mm": lambda: x2 @ w.t(),
        "bmm": lambda: lib.bmm(x3, x3.transpose(1, 2)),
        "gelu": lambda: F.gelu(x2),
        "relu": lambda: F.relu(x2),
        "silu": lambda: F.silu(x2),
        "tanh": lambda: lib.tanh(x2),
        "softmax": lambda: F.softmax(x2, -1),
        "log_softmax": lambda: F.log_softmax(x2, -1),
        "conv2d": lambda: F.conv2d(img, lib.randn(4, 3, 3, 3), padding=1),
        "max_pool2d": lambda: F.max_pool2d(img, 2),
        "avg_pool2d": lambda: F.avg_pool2d(img, 2),
        "dropout": lambda: F.dropout(x2, 0.5),
        "cross_entropy": lambda: F.cross_entropy(x2, target),
        "nll_loss": lambda: F.nll_loss(x2, target),
        "sdpa": lambda: F.scaled_dot_product_attention(x3, x3, x3),
        "logsumexp": lambda: x2.logsumexp(1),
        "mean": lambda: x2.mean(),
        "var": lambda: x2.var(0),
        "norm": lambda: x2.norm(),
        "sum dim": lambda: x2.sum(1),
        "max dim": lambda: x2.max(1)[0],
        "cat": lambda: lib.cat([x2, x2]),
        "stack": lambda: lib.stack([x2, x2]),
        "chunk": lambda: x2.chunk(2, 0)[0],
        "index": lambda: x2[lib.tensor([0, 1])],
        "slice": lambda: x2[1:],
        "where": lambda: lib.where(x2 > 0, x2, 0.0),
        "masked_fill": lambda: x2.masked_fill(x2 > 0, 0.0),
        "pow": lambda: x2**2,
        "div": lambda: x2 / 2,
        "addmm": lambda: lib.addmm(b, x2, w.t()),
        "addmm beta 0": lambda: lib.addmm(b, x2, w.t(), beta=0),
        "addmm half": lambda: lib.addmm(b.half(), x2.half(), w.t().half()),
        "addmv": lambda: lib.addmv(x2[:, 0], x2, x1),
        "baddbmm": lambda: lib.baddbmm(x3, x3, x3.transpose(1, 2) @ x3),
        "addbmm": lambda: lib.addbmm(x2, x3, x3.transpose(1, 2) @ x3),
        "vector @ matrix": lambda: x1 @ w.t(),
        "vector @ batch": lambda: x1 @ x3.transpose(1, 2),
        "batch @ vector": lambda: x3 @ x1,
    }


@pytest.mark.parametrize("name", list(_cases(torch)))
def test_grad_fn_name_matches_torch(name):
    want = type(_cases(torch)[name]().grad_fn).__name__
    got = type(_cases(minitorch)[name]().grad_fn).__name__
    assert got == want
