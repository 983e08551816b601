"""Losses' target gradients where torch's formula is not the derivative of the forward's
arithmetic: binary_cross_entropy_with_logits with a pos_weight at saturated logits, and
poisson_nll_loss's Stirling term at a zero count; weighted means over a total weight of 0, BCE's
signed zeros, smooth_l1/huber's second derivative where the branches join."""

from __future__ import annotations

import warnings

import numpy as np

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

INF = float("inf")


def _t(a, grad=False, dtype=None):
    return minitorch.tensor(np.asarray(a), dtype=dtype, requires_grad=grad)


def _bce_logits_grads(x, t, pos_weight, weight=None, reduction="none"):
    f32 = minitorch.float32  # (the saturations and roundings below are float32's)
    x, t = _t(x, grad=True, dtype=f32), _t(t, grad=True, dtype=f32)
    pw = _t(pos_weight, dtype=f32)
    w = None if weight is None else _t(weight, dtype=f32)
    loss = F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw, reduction=reduction)
    assert type(loss.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
    return loss, minitorch.autograd.grad(loss.sum(), [x, t])


def test_bce_logits_target_grad_pos_weight_below_one_at_infinite_logits():
    # torch: grad_t = logsigmoid(-x) - pos_weight logsigmoid(x): +inf at x = -inf, -inf at
    # x = +inf (the composed -x - (p - 1) logsigmoid(x) gave inf - inf = nan at -inf)
    loss, (gx, gt) = _bce_logits_grads([-INF, INF, 0.0, 3.0], [0.0, 1.0, 0.5, 0.2], 0.5)
    np.testing.assert_array_equal(gt.numpy()[:2], [INF, -INF], err_msg="saturated logits")
    want = np.log(0.5) - 0.5 * np.log(0.5)
    np.testing.assert_allclose(gt.numpy()[2], want, rtol=1e-6, err_msg="x = 0")
    # pos_weight 0 at x = -inf: 0 * logsigmoid(-inf) = nan, as torch
    _, (_, gt) = _bce_logits_grads([-INF, -100.0], [0.0, 1.0], 0.0)
    assert np.isnan(gt.numpy()[0]), gt
    # logsigmoid(100) = -exp(-100) ~ -3.7e-44, a float32 subnormal that -x - (p - 1) ls(x)
    # rounded away (100 + -100.0 = 0)
    assert -1e-43 < gt.numpy()[1] < 0.0, gt


def test_bce_logits_target_grad_weight_and_mean_in_torchs_order():
    # torch multiplies by the weight before dividing by numel: an overflow to -inf stays
    x = [3.4e38, 0.5, -1.0]
    t = [1.0, 0.0, 0.7]
    w = [2.0, 2.0, 3.0]
    _, (_, gt) = _bce_logits_grads(x, t, 0.5, weight=w, reduction="mean")
    assert gt.numpy()[0] == -INF, gt
    ls = lambda v: -np.logaddexp(0.0, -v)  # noqa: E731
    want = (ls(-np.array(x[1:])) - 0.5 * ls(np.array(x[1:]))) * np.array(w[1:]) / 3
    np.testing.assert_allclose(gt.numpy()[1:], want, rtol=1e-6, err_msg="finite logits")


def test_bce_logits_target_grad_dtype_and_values_without_pos_weight():
    x = _t([0.3, -1.2], grad=True, dtype=minitorch.float64)
    t = _t([0.2, 0.9], grad=True, dtype=minitorch.float32)
    w = _t([2.0, 0.5], dtype=minitorch.float64)
    for pw in (None, _t([2.0, 1.0], dtype=minitorch.float64)):
        loss = F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw, reduction="sum")
        assert loss.dtype is minitorch.float32
        gx, gt = minitorch.autograd.grad(loss, [x, t])
        assert gx.dtype is minitorch.float64 and gt.dtype is minitorch.float32
        xs = np.array([0.3, -1.2])
        ls = -np.logaddexp(0.0, -xs)
        want = -xs if pw is None else -np.logaddexp(0.0, xs) - np.array([2.0, 1.0]) * ls
        np.testing.assert_allclose(gt.numpy(), want * [2.0, 0.5], rtol=1e-6, err_msg=str(pw))


def test_bce_logits_gradcheck_with_learned_target():
    rng = np.random.default_rng(0)
    x = _t(rng.normal(size=(2, 3)), grad=True)
    t = _t(rng.uniform(size=(2, 3)), grad=True)
    w = _t(rng.uniform(0.5, 2.0, size=(3,)))
    pw = _t(rng.uniform(0.2, 3.0, size=(3,)))
    for red in ("none", "mean", "sum"):
        for p in (None, pw):

            def f(x, t, red=red, p=p):
                return F.binary_cross_entropy_with_logits(
                    x, t, weight=w, pos_weight=p, reduction=red
                )

            assert gradcheck(f, (x, t)), (red, p)
            assert gradgradcheck(f, (x, t)), (red, p)


def test_poisson_full_target_grad_is_nan_at_zero_count():
    # torch computes the Stirling term everywhere and masks it where target <= 1: its
    # gradient is nan at t <= 0 (0 log 0), 0 on (0, 1], the term's derivative above 1
    for log_input in (True, False):
        x = _t([0.5] * 5, grad=True)
        t = _t([0.0, -1.0, 0.5, 1.0, 2.0], grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # zero counts are ordinary: the forward is quiet
            loss = F.poisson_nll_loss(x, t, log_input=log_input, full=True, reduction="none")
        base = 0.5 if log_input else np.log(0.5 + 1e-8)
        want = np.exp(0.5) - 2 * 0.5 if log_input else 0.5 - 2 * base
        want += 2 * np.log(2) - 2 + 0.5 * np.log(4 * np.pi)
        np.testing.assert_allclose(loss.detach().numpy()[4], want, rtol=1e-6)
        gt = minitorch.autograd.grad(loss.sum(), [t])[0].numpy()
        assert np.isnan(gt[:2]).all(), gt
        np.testing.assert_allclose(gt[2:4], [-base, -base], rtol=1e-6, err_msg="0 < t <= 1")
        np.testing.assert_allclose(gt[4], -base + np.log(2) + 0.25, rtol=1e-6, err_msg="t = 2")


def test_poisson_full_gradcheck_above_one():
    x = _t([0.3, 1.2, 2.0], grad=True)
    t = _t([1.5, 3.0, 0.5], grad=True)
    f = lambda x, t: F.poisson_nll_loss(x, t, full=True)  # noqa: E731
    assert gradcheck(f, (x, t))
    assert gradgradcheck(f, (x, t))


def test_smooth_l1_beta_zero_nan_target_gradient_is_zero():
    # beta = 0 is l1_loss, whose abs has torch's sgn(nan) = 0 gradient: a masked-out NaN
    # target leaves its prediction's gradient 0, not nan
    pred = _t([1.0, 2.0, 3.0], grad=True)
    tgt = _t([1.5, float("nan"), 2.0])
    F.smooth_l1_loss(pred, tgt, beta=0.0, reduction="none")[
        _t([True, False, True])
    ].sum().backward()
    np.testing.assert_array_equal(pred.grad.numpy(), [-1.0, 0.0, 1.0])


def test_all_zero_weight_mean_gradient_is_nan():
    # every target's class has weight 0: the mean divides by a total weight of 0, and torch's
    # gradient is that 0/0 too (all NaN for cross_entropy, NaN at the targets for nll_loss)
    x = _t([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]], grad=True)
    w = _t([1.0, 0.0, 2.0])
    target = _t([1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # quiet, as torch
        loss = F.cross_entropy(x, target, weight=w)
        loss.backward()
    assert np.isnan(loss.item()) and np.isnan(x.grad.numpy()).all()
    x.grad = None
    loss = F.nll_loss(x, target, weight=w)
    loss.backward()
    g = x.grad.numpy()
    assert np.isnan(g[:, 1]).all() and (g[:, [0, 2]] == 0).all()


def test_all_zero_weight_leaves_ignored_rows_at_zero():
    x = _t([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]], grad=True)
    F.nll_loss(x, _t([1, -100]), weight=_t([1.0, 0.0, 2.0])).backward()
    g = x.grad.numpy()
    assert np.isnan(g[0, 1]) and (g[1] == 0).all()


def test_binary_cross_entropy_signed_zeros():
    # torch: +0 for p = t = 0, -0 for p = t = 1
    out = F.binary_cross_entropy(_t([0.0, 1.0, 0.5]), _t([0.0, 1.0, 0.5]), reduction="none")
    v = out.numpy()
    assert v[0] == 0 and not np.signbit(v[0])
    assert v[1] == 0 and np.signbit(v[1])
    np.testing.assert_allclose(v[2], np.log(2.0), rtol=1e-6)


def test_smooth_l1_and_huber_second_derivative_at_the_joint():
    # |d| == beta (delta) is on the linear branch: second derivative 0 there, 1 inside
    for fn in (F.smooth_l1_loss, F.huber_loss):
        x = _t([-1.0, 1.0, 0.5], grad=True, dtype=minitorch.float64)
        t = minitorch.zeros(3, dtype=minitorch.float64)
        (g,) = minitorch.autograd.grad(fn(x, t, reduction="sum"), x, create_graph=True)
        (h,) = minitorch.autograd.grad(g.sum(), x)
        assert h.tolist() == [0.0, 0.0, 1.0], fn.__name__
        np.testing.assert_array_equal(g.detach().numpy(), [-1.0, 1.0, 0.5])
