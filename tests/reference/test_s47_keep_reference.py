"""Session 47 (helper keep), against torch: the strides of reductions of non-contiguous inputs
(keepdim or not, each path) and grad_fn._saved_dim of dims given negative or out of order."""

import numpy as np
import pytest

import minitorch
from minitorch.autograd import function

torch = pytest.importorskip("torch")

OPS = (
    "sum", "amax", "amin", "prod", "nansum", "nanmean", "any", "all",
    "mean", "std", "var", "logsumexp", "max", "argmax",
)  # fmt: skip
DIMS = (0, 1, -1, (1, 2), (-1, -3), None)


def layouts(lib):
    g = np.random.RandomState(0)
    a = (g.randn(2, 4, 6, 5) * 3).astype(np.float32)
    x = lib.tensor(a)
    return {
        "contiguous": x,
        "transposed": x.transpose(1, 3),
        "channels_last": x.to(memory_format=lib.channels_last),
        "sliced": x[:, 1:3, ::2],
        "expanded": lib.tensor(a[:, :1]).expand(2, 4, 6, 5),
        "permuted": x.permute(3, 1, 0, 2),
    }


def call(lib, op, x, dim, keepdim, grad):
    if op in ("any", "all"):
        x = x > 0
    elif grad and op != "argmax":
        x = x.detach().requires_grad_()
    if op in ("prod", "max", "argmax", "logsumexp") and isinstance(dim, tuple):
        if op != "logsumexp":
            dim = dim[0]  # (their dim is one int)
    f = getattr(lib, op)
    if dim is None:
        if op in ("max", "logsumexp"):
            return f(x)
        if op in ("prod",) or not keepdim:
            return f(x, dim=None, keepdim=keepdim) if op != "prod" else f(x)
    r = f(x, dim, keepdim=keepdim)
    return r[0] if op == "max" else r


def strides(lib, op, grad):
    out = []
    for name, x in layouts(lib).items():
        for dim in DIMS:
            for keepdim in (True, False):
                try:
                    r = call(lib, op, x, dim, keepdim, grad)
                    out.append((name, dim, keepdim, r.stride(), tuple(r.shape)))
                except (TypeError, RuntimeError) as e:
                    out.append((name, dim, keepdim, type(e).__name__))
    return out


@pytest.mark.parametrize("op", OPS)
def test_reduction_strides_match_torch(op):
    want = strides(torch, op, False)
    assert strides(minitorch, op, False) == want
    function.fast_path[0] = False
    try:
        assert strides(minitorch, op, False) == want
    finally:
        function.fast_path[0] = True
    if op not in ("any", "all", "argmax"):
        assert strides(minitorch, op, True) == strides(torch, op, True)


@pytest.mark.parametrize("op", ("nansum", "nanmean", "sum", "amax", "prod"))
def test_gradient_strides_match_torch(op):
    def run(lib):
        out = []
        for name, x in layouts(lib).items():
            for dim in (0, 1, -1):
                for keepdim in (True, False):
                    a = x.detach().requires_grad_()
                    r = call(lib, op, a, dim, keepdim, False)
                    (g,) = lib.autograd.grad(r, a, lib.ones_like(r))
                    out.append((name, dim, keepdim, g.stride()))
        return out

    assert run(minitorch) == run(torch)


SAVED = (
    "x.mean((-1, -2))", "x.mean(-1)", "x.mean([-1, 0])", "x.mean((2, 0))", "x.mean(())",
    "x.mean(-1, keepdim=True)", "x.mean(-1, dtype=lib.float16)", "x.mean(-2, dtype=lib.float64)",
    "x.sum((-1, -2))", "x.sum(-3)", "x.sum([-1])", "x.sum((2, 1))", "x.sum(())", "x.sum(1)",
    "x.sum(-1, dtype=lib.float64)", "x.amax((-1, -2))", "x.amin(-1)", "x.prod(-1)",
    "x.std((-1, -2))", "x.var(-1)", "x.logsumexp((-1, -2))", "x.nansum(-1)", "x.norm(dim=-1)",
    "s.sum(-1)", "s.mean(0)",
    "F.adaptive_avg_pool2d(y, 1)", "F.adaptive_avg_pool2d(y, (1, 1))",
    "F.adaptive_avg_pool2d(y[0], 1)", "F.adaptive_avg_pool3d(y, 1)",
    "F.adaptive_avg_pool2d(y.to(lib.bfloat16), 1)", "lib.nn.AdaptiveAvgPool2d(1)(y)",
    "lib.select(x, -1, 2)", "lib.select(x, -3, -1)", "lib.select(x, 1, 2)", "x[..., -1]",
)  # fmt: skip


def saved(lib):
    g = lib.Generator().manual_seed(0)
    x = lib.randn(2, 3, 4, generator=g, requires_grad=True)
    y = lib.randn(2, 3, 5, 5, generator=g, requires_grad=True)
    s = lib.randn((), generator=g, requires_grad=True)
    env = {"lib": lib, "F": lib.nn.functional, "x": x, "y": y, "s": s}
    out = []
    for text in SAVED:
        r = eval(text, env)
        node = r.grad_fn
        out.append((text, node.name(), getattr(node, "_saved_dim", "-")))
    return out


def test_saved_dim_matches_torch():
    assert saved(minitorch) == saved(torch)


def test_aminmax_and_count_nonzero_strides_match_torch():
    def run(lib):
        out = []
        for name, x in layouts(lib).items():
            for dim in (0, 1, -1):
                for keepdim in (True, False):
                    a = x.detach().requires_grad_()
                    lo, hi = lib.aminmax(a, dim=dim, keepdim=keepdim)
                    (g,) = lib.autograd.grad(lo.sum() + hi.sum(), a)
                    out.append((name, dim, keepdim, lo.stride(), hi.stride(), g.stride()))
                out.append((name, dim, lib.count_nonzero(x, dim).stride()))
            out.append((name, lib.count_nonzero(x, (1, 2)).stride()))
        return out

    assert run(minitorch) == run(torch)
