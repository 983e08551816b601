"""Losses and xlogy at extreme values: BCE's log1p(-p), xlogy/xlog1py's gradient under a zero
upstream gradient, NaN scores in the multi-class margin losses, integer margin ranking inputs,
mse's backward order, soft margin's signed zero."""

from __future__ import annotations

import math

import numpy as np

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _rng():
    return np.random.default_rng(18)


# --- binary_cross_entropy: log1p(-p) ---


def test_bce_small_probability_uses_log1p():
    p = minitorch.tensor([1e-4, 3e-6, 1e-9, 0.3], requires_grad=True)
    t = minitorch.zeros(4)
    loss = F.binary_cross_entropy(p, t, reduction="none")
    # -log1p(-p) in float64, rounded to float32: log(1 - p) would give 0 at 1e-9
    pd = p.detach().numpy().astype(np.float64)
    expected = (-np.log1p(-pd)).astype(np.float32)
    np.testing.assert_allclose(loss.detach().numpy(), expected, rtol=2e-7, err_msg="bce loss")
    assert loss[2].item() > 0
    loss.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 1 / (1 - pd), rtol=1e-6, err_msg="bce grad")


def test_bce_clamps_log1p_at_minus_100():
    p = minitorch.tensor([1.0, 0.0, 1.0], dtype=minitorch.float64)
    t = minitorch.tensor([0.0, 1.0, 0.5], dtype=minitorch.float64)
    loss = F.binary_cross_entropy(p, t, reduction="none")
    np.testing.assert_array_equal(loss.numpy(), [100.0, 100.0, 50.0], err_msg="clamp at -100")


def test_bce_gradcheck_float64():
    rng = _rng()
    p = minitorch.tensor(rng.uniform(0.05, 0.95, (3, 4)), requires_grad=True)
    t = minitorch.tensor(rng.uniform(0, 1, (3, 4)), requires_grad=True)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b), (p, t))
    assert gradgradcheck(lambda a, b: F.binary_cross_entropy(a, b), (p, t))


# --- xlogy / xlog1py: a zero upstream gradient stays 0 ---


def test_xlogy_grad_masked_term_is_zero_not_nan():
    p = minitorch.tensor([0.5, 0.3, 0.2], requires_grad=True)
    q = minitorch.tensor([0.6, 0.4, 0.0])
    mask = minitorch.tensor([1.0, 1.0, 0.0])
    (minitorch.xlogy(p, q) * mask).sum().backward()
    expected = np.array([math.log(0.6), math.log(0.4), 0.0], dtype=np.float32)
    np.testing.assert_allclose(p.grad.numpy(), expected, rtol=1e-6, err_msg="xlogy grad")


def test_xlogy_grad_edge_values():
    x = minitorch.tensor([0.5, 0.0, 0.0, 2.0, 1.0], requires_grad=True)
    y = minitorch.tensor([0.0, 0.0, -2.0, math.nan, 0.0])
    (minitorch.xlogy(x, y) * minitorch.tensor([0.0, 1.0, 1.0, 1.0, 1.0])).sum().backward()
    # torch: 0 where grad == 0 or (x == 0 and y <= 0); NaN with a NaN y; -inf at y = 0
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0, math.nan, -math.inf])


def test_xlog1py_grad_masked_term_is_zero_not_nan():
    x = minitorch.tensor([0.5, 0.0, 0.0, 2.0], requires_grad=True)
    y = minitorch.tensor([-1.0, -1.0, -2.0, math.inf])
    r = minitorch.special.xlog1py(x, y)
    (r * minitorch.tensor([0.0, 1.0, 1.0, 0.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0, 0.0], err_msg="xlog1py grad")


def test_xlogy_xlog1py_gradcheck_float64():
    rng = _rng()
    a = minitorch.tensor(rng.uniform(-1, 1, (3, 4)), requires_grad=True)
    b = minitorch.tensor(rng.uniform(0.2, 2, (3, 4)), requires_grad=True)
    for fn in (minitorch.xlogy, minitorch.special.xlog1py):
        assert gradcheck(fn, (a, b))
        assert gradgradcheck(fn, (a, b))


def test_kl_div_target_grad_unchanged():
    # torch's kl_div is xlogy(t, t) - t input: a zero target's gradient is NaN there too
    inp = minitorch.tensor([-1.0, -0.5, -2.0], requires_grad=True)
    t = minitorch.tensor([0.5, 0.5, 0.0], requires_grad=True)
    F.kl_div(inp, t, reduction="sum").backward()
    g = t.grad.numpy()
    np.testing.assert_allclose(g[:2], [math.log(0.5) + 1 + 1, math.log(0.5) + 1 + 0.5], rtol=1e-6)
    assert math.isnan(g[2])
    np.testing.assert_array_equal(inp.grad.numpy(), [-0.5, -0.5, -0.0])


# --- multi-class margin losses: NaN terms are skipped ---


def test_multi_margin_loss_skips_nan_terms():
    x = minitorch.tensor([[0.0, 1.0, math.nan], [1.0, 2.0, 3.0]], requires_grad=True)
    loss = F.multi_margin_loss(x, minitorch.tensor([1, 0]))
    np.testing.assert_allclose(loss.item(), 5 / 6, rtol=1e-6, err_msg="multi_margin loss")
    loss.backward()
    expected = np.array([[0, 0, 0], [-1 / 3, 1 / 6, 1 / 6]], dtype=np.float32)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, err_msg="multi_margin grad")


def test_multi_margin_loss_nan_target_score_and_p2():
    x = minitorch.tensor([[math.nan, 1.0, 2.0], [1.0, 2.0, 3.0]], requires_grad=True)
    w = minitorch.tensor([1.0, 2.0, 3.0])
    loss = F.multi_margin_loss(x, minitorch.tensor([0, 0]), p=2, weight=w, reduction="none")
    # row 0: every term has x[y] = NaN, all skipped; row 1: (2^2 + 3^2) * w[0] / 3
    np.testing.assert_allclose(loss.detach().numpy(), [0.0, 13 / 3], rtol=1e-6)
    loss.sum().backward()
    expected = np.array([[0, 0, 0], [-10 / 3, 4 / 3, 2.0]], dtype=np.float32)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, err_msg="p=2 grad")


def test_multilabel_margin_loss_skips_nan_terms():
    x = minitorch.tensor([[0.0, 1.0, math.nan], [1.0, 2.0, 3.0]], requires_grad=True)
    loss = F.multilabel_margin_loss(x, minitorch.tensor([[1, -1, 0], [0, -1, 0]]))
    np.testing.assert_allclose(loss.item(), 5 / 6, rtol=1e-6, err_msg="multilabel loss")
    loss.backward()
    expected = np.array([[0, 0, 0], [-1 / 3, 1 / 6, 1 / 6]], dtype=np.float32)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, err_msg="multilabel grad")


def test_multi_margin_losses_gradcheck_float64():
    rng = _rng()
    x = minitorch.tensor(rng.uniform(-1, 1, (3, 4)), requires_grad=True)
    y = minitorch.tensor([0, 3, 1])
    t = minitorch.tensor([[0, 2, -1, 1], [3, -1, 0, 0], [1, 2, 3, -1]])
    assert gradcheck(lambda a: F.multi_margin_loss(a, y, p=2), (x,))
    assert gradcheck(lambda a: F.multilabel_margin_loss(a, t), (x,))


# --- margin_ranking_loss: integer inputs give a float loss ---


def test_margin_ranking_loss_integer_inputs_are_float():
    a, b, y = minitorch.tensor([1, 2]), minitorch.tensor([2, 1]), minitorch.tensor([1, 1])
    none = F.margin_ranking_loss(a, b, y, reduction="none")
    assert none.dtype is minitorch.float32
    np.testing.assert_array_equal(none.numpy(), [1.0, 0.0])
    for reduction, value in (("mean", 0.5), ("sum", 1.0)):
        r = F.margin_ranking_loss(a, b, y, reduction=reduction)
        assert r.dtype is minitorch.float32, reduction
        assert r.item() == value, reduction
    assert F.margin_ranking_loss(a, b, y, margin=1).tolist() == 1.0


# --- mse_loss backward: (x - t) * 2 * grad ---


def test_mse_loss_backward_order_overflows_as_torch():
    a = minitorch.tensor([3e38, -2e38], requires_grad=True)
    t = minitorch.tensor([0.0, 0.0], requires_grad=True)
    F.mse_loss(a, t, reduction="none").backward(minitorch.tensor([0.01, 0.5]))
    np.testing.assert_array_equal(a.grad.numpy(), [math.inf, -math.inf])
    a.grad = t.grad = None
    F.mse_loss(a, t, reduction="sum").backward(minitorch.tensor(1e-3))
    np.testing.assert_array_equal(a.grad.numpy(), [math.inf, -math.inf])
    np.testing.assert_array_equal(t.grad.numpy(), [-math.inf, math.inf])
    # mean: torch's norm 2 / n halves first, so two elements stay finite
    a.grad = None
    F.mse_loss(a, t.detach()).backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.array([3e38, -2e38], dtype=np.float32))


def test_mse_loss_gradcheck_float64():
    rng = _rng()
    a = minitorch.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    t = minitorch.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    for reduction in ("none", "mean", "sum"):
        assert gradcheck(lambda x, y, r=reduction: F.mse_loss(x, y, reduction=r), (a, t))
        assert gradgradcheck(lambda x, y, r=reduction: F.mse_loss(x, y, reduction=r), (a, t))


# --- soft_margin_loss: +0. at y x = +inf ---


def test_soft_margin_loss_positive_zero_at_inf():
    r = F.soft_margin_loss(
        minitorch.tensor([math.inf, 50.0, -math.inf]),
        minitorch.tensor([1.0, 1.0, -1.0]),
        reduction="none",
    )
    v = r.numpy()
    assert v[0] == 0 and not np.signbit(v[0])
    assert v[2] == 0 and not np.signbit(v[2])
    np.testing.assert_allclose(v[1], math.exp(-50.0), rtol=1e-6)
    s = F.soft_margin_loss(minitorch.tensor([math.inf]), minitorch.tensor([1.0]), reduction="sum")
    assert not np.signbit(s.item())


def test_soft_margin_loss_gradcheck_float64():
    rng = _rng()
    x = minitorch.tensor(rng.normal(size=(5,)), requires_grad=True)
    y = minitorch.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=minitorch.float64)
    assert gradcheck(lambda a: F.soft_margin_loss(a, y), (x,))
    assert gradgradcheck(lambda a: F.soft_margin_loss(a, y), (x,))
