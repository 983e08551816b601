"""Kernels that silence NumPy's floating-point warnings do it through `_ops._common.quiet`,
which CuPy (no `errstate`) answers with a context that does nothing. The strict test device
refuses `xp.errstate` as cupy does, so each such kernel runs here on it: before, the mean
reduction of nll_loss/cross_entropy, binary_cross_entropy's backward, kl_div, poisson_nll_loss,
fake quantization, lu_solve, cholesky, ldl_solve, ctc_loss and the tie weights of amax/amin
called `xp.errstate` and raised AttributeError on a GPU."""

from __future__ import annotations

import pytest

import minitorch as mt
from minitorch._backend import strict

F = mt.nn.functional


def test_strict_xp_has_no_errstate_as_cupy():
    assert not hasattr(strict.xp, "errstate")
    with pytest.raises(AttributeError, match="errstate"):
        strict.xp.errstate  # noqa: B018


def _leaf(shape, device, dtype=mt.float64, low=None):
    x = mt.randn(*shape, dtype=dtype)
    if low is not None:
        x = x.abs() + low
    return x.to(device).requires_grad_(True)


def _grads(out, *inputs):
    """First and second derivatives of out.sum() (the double backward runs the backward nodes)."""
    (g,) = mt.autograd.grad(out.sum(), inputs[:1], create_graph=True)
    if not g.requires_grad:  # a gradient constant in the input (kl_div's -target)
        return g, None
    (gg,) = mt.autograd.grad(g.square().sum(), inputs[:1], allow_unused=True)
    return g, gg


def test_losses_on_device(device):
    x = _leaf((4, 3), device)
    target = mt.tensor([0, 2, 1, 2]).to(device)
    weight = mt.tensor([1.0, 0.5, 2.0], dtype=mt.float64).to(device)
    for kwargs in ({}, {"weight": weight}, {"ignore_index": 2}):
        out = F.cross_entropy(x, target, **kwargs)
        want = F.cross_entropy(x.detach().cpu(), target.cpu(), **{
            k: v.cpu() if hasattr(v, "cpu") else v for k, v in kwargs.items()
        })  # fmt: skip
        assert mt.allclose(out.detach().cpu(), want)
        _grads(out, x)
    # every target ignored: 0 / 0 is NaN, as torch, without an error
    out = F.nll_loss(x.log_softmax(1), mt.full((4,), 2).to(device), ignore_index=2)
    assert out.detach().cpu().isnan().item()
    p = _leaf((5,), device).sigmoid()
    y = mt.rand(5, dtype=mt.float64).to(device)
    _grads(F.binary_cross_entropy(p, y), p)
    logq = _leaf((3, 4), device).log_softmax(1)
    q = mt.rand(3, 4, dtype=mt.float64).softmax(1).to(device)
    _grads(F.kl_div(logq, q, reduction="batchmean"), logq)
    rate = _leaf((6,), device)
    counts = mt.tensor([0.0, 1, 2, 0, 3, 1], dtype=mt.float64).to(device)
    _grads(F.poisson_nll_loss(rate, counts, log_input=False, full=True), rate)


def test_ctc_on_device(device):
    logp = _leaf((6, 2, 4), device).log_softmax(2)
    targets = mt.tensor([[1, 2], [3, 3]]).to(device)
    lengths = mt.tensor([6, 5]).to(device)
    out = F.ctc_loss(logp, targets, lengths, mt.tensor([2, 2]).to(device))
    want = F.ctc_loss(logp.detach().cpu(), targets.cpu(), lengths.cpu(), mt.tensor([2, 2]))
    assert mt.allclose(out.detach().cpu(), want)
    out.backward()


def test_fake_quantize_on_device(device):
    x = _leaf((8,), device, dtype=mt.float32)
    out = mt.fake_quantize_per_tensor_affine(x, 0.1, 0, -128, 127)
    out.sum().backward()
    scale = mt.tensor([0.1]).to(device).requires_grad_(True)
    zero = mt.tensor([0.0]).to(device).requires_grad_(True)
    out = mt._fake_quantize_learnable_per_tensor_affine(x, scale, zero, -128, 127, 1.0)
    out.sum().backward()
    assert scale.grad is not None and zero.grad is not None


def test_linalg_on_device(device):
    a = mt.randn(4, 4, dtype=mt.float64)
    spd = (a @ a.mT + 4 * mt.eye(4, dtype=mt.float64)).to(device).requires_grad_(True)
    b = _leaf((4, 2), device)
    _grads(mt.linalg.cholesky(spd), spd)
    lu, piv = mt.linalg.lu_factor(spd)
    for adjoint in (False, True):
        _grads(mt.linalg.lu_solve(lu, piv, b, adjoint=adjoint), lu)
    if device != "cpu":  # ldl_factor: a host loop, CPU tensors only
        return
    ld, piv = mt.linalg.ldl_factor(spd.detach())
    x = mt.linalg.ldl_solve(ld, piv, b.detach())
    assert mt.allclose((spd.detach() @ x).cpu(), b.detach().cpu())


def test_extreme_ties_on_device(device):
    x = mt.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], dtype=mt.float64).to(device)
    x.requires_grad_(True)
    x.amax(1).sum().backward()
    want = mt.tensor([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]], dtype=mt.float64)
    assert mt.equal(x.grad.cpu(), want)
