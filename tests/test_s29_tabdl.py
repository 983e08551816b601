"""Session 29 (helper tabdl): torch-free checks of the tabular-DL building blocks the reference
programs in tests/reference/test_s29_tabdl_reference.py lean on (sparsemax and entmax-1.5 as
custom Functions over sort/cumsum/gather, Embedding's max_norm renormalisation, index_reduce
means). The session found no library difference in this domain; the values below are torch
2.13's, so these keep the behaviour pinned where torch is not installed."""

from __future__ import annotations

import numpy as np

import minitorch as mt

F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


class Sparsemax(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        zs = mt.sort(x, dim=-1, descending=True).values
        rng = mt.arange(1, x.shape[-1] + 1, dtype=x.dtype)
        cs = zs.cumsum(-1) - 1
        k = (rng * zs > cs).sum(-1, keepdim=True)
        out = mt.clamp(x - cs.gather(-1, k - 1) / k.to(x.dtype), min=0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        nz = (out > 0).to(grad.dtype)
        return nz * (grad - (grad * nz).sum(-1, keepdim=True) / nz.sum(-1, keepdim=True))


class Entmax15(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = (x - x.max(dim=-1, keepdim=True).values) / 2
        xs = mt.sort(x, dim=-1, descending=True).values
        rho = mt.arange(1, x.shape[-1] + 1, dtype=x.dtype)
        mean = xs.cumsum(-1) / rho
        ss = rho * ((xs**2).cumsum(-1) / rho - mean**2)
        tau = mean - mt.sqrt(mt.clamp((1 - ss) / rho, 0))
        support = (tau <= xs).sum(-1).unsqueeze(-1)
        out = mt.clamp(x - tau.gather(-1, support - 1), min=0) ** 2
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        gppr = y.sqrt()
        dx = grad * gppr
        return dx - dx.sum(-1, keepdim=True) / gppr.sum(-1, keepdim=True) * gppr


X = [[0.5, 1.0, -0.3, 0.9], [2.0, -1.0, 0.0, 0.1]]
W = [[1.0, 2, 3, 4], [4, 3, 2, 1]]


def test_sparsemax_by_sort_and_cumsum():
    x = mt.tensor(X, dtype=F64, requires_grad=True)
    p = Sparsemax.apply(x)
    _close(p.detach(), [[0.033333333333333326, 0.5333333333333333, 0.0, 0.43333333333333335],
                        [1.0, 0.0, 0.0, 0.0]])  # fmt: skip
    (g,) = mt.autograd.grad((p * mt.tensor(W, dtype=F64)).sum(), x)
    _close(g, [[-1.3333333333333335, -0.3333333333333335, 0.0, 1.6666666666666665], [0, 0, 0, 0]])


def test_entmax15_by_sort_and_cumsum():
    x = mt.tensor(X, dtype=F64, requires_grad=True)
    p = Entmax15.apply(x * 2)
    _close(p.detach(), [[0.05541909858248643, 0.54083171205612, 0.0, 0.40374918936139337],
                        [1.0, 0.0, 0.0, 0.0]])  # fmt: skip
    (g,) = mt.autograd.grad((p * mt.tensor(W, dtype=F64)).sum(), x)
    _close(g, [[-0.7743284606869494, -0.9481229702553606, 0.0, 1.7224514309423093], [0, 0, 0, 0]])


def test_embedding_max_norm_renormalises_looked_up_rows_in_place():
    w = mt.tensor([[3.0, 4], [0.3, 0.4], [1.0, -2]], dtype=F64)
    e = mt.nn.Embedding.from_pretrained(w.clone(), freeze=False, max_norm=1.0)
    out = e(mt.tensor([0, 2, 0]))
    a, b = [0.5999999880000002, 0.7999999840000003], [0.4472135754999588, -0.8944271509999177]
    _close(out.detach(), [a, b, a])
    _close(e.weight.detach(), [a, [0.3, 0.4], b])  # row 1 was not looked up


def test_index_reduce_mean_with_and_without_self():
    grp = mt.tensor([0, 2, 0, 2, 2])
    v = mt.tensor([1.0, 2, 3, 4, 5], dtype=F64)
    ones = mt.ones(3, dtype=F64)
    _close(ones.index_reduce(0, grp, v, "mean", include_self=True), [1.6666666666666667, 1, 3])
    _close(ones.index_reduce(0, grp, v, "mean", include_self=False), [2.0, 1, 3.6666666666666665])
