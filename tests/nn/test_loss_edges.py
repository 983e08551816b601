"""Losses at their edges: weights that would broadcast the loss, NaN probabilities, quiet NaN
means, the legacy reduction names, 0-d ignore_index, learnable class weights, margin ties,
infeasible CTC alignments, and torch's shape and dtype errors there."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _t(a, grad=False, dtype=None):
    return minitorch.tensor(np.asarray(a), dtype=dtype, requires_grad=grad)


LOGITS = [0.5, -1.0, 2.0, 0.1]
LABELS = [1.0, 0.0, 1.0, 0.0]
COLUMN = [[1.0], [2.0], [3.0], [4.0]]


# --- weights or targets that would grow the loss beyond the input's shape ---


@pytest.mark.parametrize(
    "call",
    [
        lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, weight=w),
        lambda x, y, w: F.binary_cross_entropy_with_logits(x, y, pos_weight=w),
        lambda x, y, w: F.binary_cross_entropy(minitorch.sigmoid(x), y, weight=w),
        lambda x, y, w: F.soft_margin_loss(x, w, reduction="sum"),
    ],
    ids=["bce_logits_weight", "bce_logits_pos_weight", "bce_weight", "soft_margin_target"],
)
def test_column_weight_does_not_broadcast_the_loss(call):
    x, y, w = _t(LOGITS), _t(LABELS), _t(COLUMN)
    with pytest.raises(RuntimeError, match=r"output with shape \[4\] doesn't match the "):
        call(x, y, w)


def test_row_weight_still_broadcasts():
    x = _t([[0.5, -1.0], [2.0, 0.1]])
    y = _t([[1.0, 0.0], [1.0, 0.0]])
    w = _t([2.0, 3.0])
    got = F.binary_cross_entropy_with_logits(x, y, weight=w, reduction="none")
    xs, ys = x.numpy(), y.numpy()
    want = (np.log1p(np.exp(-np.abs(xs))) + np.maximum(xs, 0) - ys * xs) * np.array([2.0, 3.0])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, err_msg="row weight")
    got = F.soft_margin_loss(x, _t([1.0, -1.0]), reduction="none")
    want = np.log1p(np.exp(-xs * np.array([1.0, -1.0])))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, err_msg="row target")


# --- binary_cross_entropy with NaN ---


def test_bce_nan_input_or_target_raises():
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(_t([float("nan"), 0.5]), _t([1.0, 0.0]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(_t([0.5, 0.3]), _t([float("nan"), 0.0]))


# --- no NumPy RuntimeWarning where torch is silent ---


def _silent(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a user's filter comes before minitorch's own
        return fn()


def test_all_ignored_and_empty_means_are_quiet_nan():
    x = minitorch.zeros(3, 5, requires_grad=True)
    ignored = minitorch.full((3,), -100)
    for out in (
        _silent(lambda: F.cross_entropy(x, ignored)),
        _silent(lambda: F.cross_entropy(x, ignored, label_smoothing=0.1)),
        _silent(
            lambda: F.nll_loss(minitorch.zeros(0, 5), minitorch.zeros(0, dtype=minitorch.long))
        ),
        _silent(
            lambda: F.kl_div(minitorch.zeros(0, 3), minitorch.zeros(0, 3), reduction="batchmean")
        ),
        _silent(
            lambda: F.multilabel_soft_margin_loss(minitorch.zeros(2, 0), minitorch.zeros(2, 0))
        ),
    ):
        assert np.isnan(out.detach().numpy()).all(), out
    loss = _silent(lambda: F.cross_entropy(x, ignored, label_smoothing=0.1))
    _silent(loss.backward)
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 5)), err_msg="ignored rows")


def test_label_smoothing_zero_total_weight_gradient_is_nan():
    # torch: classes of weight 0 for every target: a NaN loss and NaN gradients
    x = _t([[0.1, 0.2, 0.3], [1.0, -1.0, 0.0]], grad=True)
    w = _t([0.0, 0.0, 1.0])
    loss = _silent(lambda: F.cross_entropy(x, _t([0, 1]), weight=w, label_smoothing=0.1))
    loss.backward()
    assert np.isnan(loss.item()) and np.isnan(x.grad.numpy()).all()


def test_kl_div_zero_target_is_quiet():
    logp = F.log_softmax(_t([[1.0, 2.0, 0.5]]), dim=1)
    out = _silent(lambda: F.kl_div(logp, _t([[0.0, 1.0, 0.0]]), reduction="batchmean"))
    np.testing.assert_allclose(out.item(), -logp.numpy()[0, 1], rtol=1e-6)


def test_bce_target_gradient_at_saturated_probabilities_is_quiet():
    x = _t([0.0, 1.0, 0.5], grad=True)
    y = _t([0.0, 1.0, 1.0], grad=True)
    _silent(lambda: F.binary_cross_entropy(x, y, reduction="sum").backward())
    np.testing.assert_array_equal(y.grad.numpy(), [np.inf, -np.inf, 0.0])


# --- reduction='elementwise_mean' and nn._reduction ---


def _legacy_mean(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    messages = [str(w.message) for w in caught if w.category is UserWarning]
    assert "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead." in (
        messages
    ), messages
    return out.item()


def test_elementwise_mean_is_mean_with_a_warning():
    x = _t([[1.0, 2.0], [0.0, 1.0]])
    y = _t([0, 1])
    zero = minitorch.zeros(2, 2)
    assert _legacy_mean(lambda: nn.MSELoss(reduction="elementwise_mean")(x, zero)) == 1.5
    want = F.cross_entropy(x, y).item()
    assert _legacy_mean(lambda: F.cross_entropy(x, y, reduction="elementwise_mean")) == want
    want = F.multi_margin_loss(x, y).item()
    assert _legacy_mean(lambda: F.multi_margin_loss(x, y, reduction="elementwise_mean")) == want
    lp = minitorch.zeros(3, 1, 3).log_softmax(2)
    args = (lp, _t([[1, 2]]), [3], [2])
    want = F.ctc_loss(*args).item()
    assert _legacy_mean(lambda: F.ctc_loss(*args, reduction="elementwise_mean")) == want


def test_elementwise_mean_rejected_where_torch_checks_the_name_itself():
    x = minitorch.zeros(2, 3)
    with pytest.raises(ValueError, match="elementwise_mean is not a valid value for reduction"):
        F.poisson_nll_loss(x, x, reduction="elementwise_mean")
    with pytest.raises(ValueError, match="^elementwise_mean is not valid$"):
        F.multilabel_soft_margin_loss(x, x, reduction="elementwise_mean")
    with pytest.raises(ValueError, match="elementwise_mean is not a valid value for reduction"):
        F.triplet_margin_with_distance_loss(x, x, x, reduction="elementwise_mean")


def test_nn_reduction_module():
    red = importlib.import_module("minitorch.nn._reduction")
    assert minitorch.nn._reduction is red
    assert [red.get_enum(r) for r in ("none", "mean", "sum")] == [0, 1, 2]
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        red.get_enum("bad")
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert red.legacy_get_string(False, True) == "sum"
    assert red.legacy_get_string(None, False, emit_warning=False) == "none"
    assert red.legacy_get_enum(True, None, emit_warning=False) == 1


# --- nll_loss / cross_entropy arguments ---


def test_zero_dim_tensor_ignore_index():
    x = _t([[0.1, 0.2, 0.3, 0.4, 0.5], [1.0, -1.0, 0.0, 2.0, 0.5]])
    y = _t([0, 4])
    pad = minitorch.tensor(4)
    want = F.cross_entropy(x, y, ignore_index=4).item()
    assert F.cross_entropy(x, y, ignore_index=pad).item() == want
    assert nn.CrossEntropyLoss(ignore_index=pad)(x, y).item() == want
    np.testing.assert_allclose(F.nll_loss(x, y, ignore_index=pad).item(), -0.1, rtol=1e-6)


def test_learnable_class_weight_raises():
    w = nn.Parameter(minitorch.tensor([1.0, 2.0, 3.0]))
    x = minitorch.tensor([[0.1, 0.2, 0.3], [1.0, -1.0, 0.0]], requires_grad=True)
    msg = "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'"
    for fn in (F.cross_entropy, F.nll_loss):
        with pytest.raises(RuntimeError, match=msg):
            fn(x, _t([0, 2]), weight=w)
    with pytest.raises(RuntimeError, match="'nll_loss2d_forward'"):
        F.nll_loss(minitorch.zeros(1, 3, 2, 2), minitorch.zeros(1, 2, 2, dtype=minitorch.long), w)
    with minitorch.no_grad():  # torch checks only where a graph would be recorded
        F.nll_loss(x, _t([0, 2]), weight=w)


def test_byte_targets_only_for_one_and_two_dim_inputs():
    y = minitorch.zeros(2, dtype=minitorch.uint8)
    assert F.cross_entropy(minitorch.zeros(2, 3), y).item() == pytest.approx(np.log(3))
    for shape in ((2, 3, 2), (1, 3, 2, 2)):
        x = minitorch.zeros(*shape)
        t = minitorch.zeros((shape[0],) + shape[2:], dtype=minitorch.uint8)
        with pytest.raises(RuntimeError, match="expected scalar type Long but found Byte"):
            F.cross_entropy(x, t)


# --- margin losses ---


def test_triplet_margin_must_be_positive():
    a = minitorch.ones(2, 3)
    for m in (0.0, -1.0):
        with pytest.raises(ValueError, match=f"margin must be greater than 0, got {m}"):
            F.triplet_margin_loss(a, a * 0, a, margin=m)


def test_triplet_grad_fn_is_clamp_min():
    a = _t(np.arange(6.0).reshape(3, 2), grad=True)
    for fn in (F.triplet_margin_loss, F.triplet_margin_with_distance_loss):
        out = fn(a, a * 0, a * 2, reduction="none")
        assert type(out.grad_fn).__name__ == "ClampMinBackward0"


def test_margin_tie_subgradient_is_zero():
    x = _t([[1.0, 0.0, 2.0]], grad=True)  # x[0] - x[1] == margin: that term's slope is 0
    F.multi_margin_loss(x, _t([0])).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-1 / 3, 0.0, 1 / 3]], rtol=1e-6)
    x.grad = None
    F.multilabel_margin_loss(x, _t([[0, -1, 1]])).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-1 / 3, 0.0, 1 / 3]], rtol=1e-6)


def test_margin_losses_gradcheck_off_ties():
    x = _t([[0.3, -0.2, 1.1], [0.05, 0.7, -0.4]], grad=True)
    y = _t([2, 0])
    for p in (1, 2):
        assert gradcheck(lambda x, p=p: F.multi_margin_loss(x, y, p=p), (x,))
        assert gradgradcheck(lambda x, p=p: F.multi_margin_loss(x, y, p=p), (x,))
    t = _t([[2, -1, 0], [1, 0, -1]])
    assert gradcheck(lambda x: F.multilabel_margin_loss(x, t), (x,))


def test_multi_margin_zero_dim_input_and_multilabel_3d_input():
    out = F.multi_margin_loss(_t(1.0, grad=True), minitorch.tensor(0))
    assert out.shape == () and out.item() == 0.0
    out = F.multi_margin_loss(_t(1.0), minitorch.tensor([0]), reduction="none")
    assert out.shape == (1,)
    for shape in ((1, 4, 5), (0,), (2, 0)):
        target = minitorch.zeros(*shape, dtype=minitorch.long)
        with pytest.raises(RuntimeError, match="Expected non-empty vector or matrix"):
            F.multilabel_margin_loss(minitorch.zeros(*shape), target)


# --- ctc ---


def _ctc_case(zero_infinity, reduction="sum"):
    rng = np.random.default_rng(0)
    lp = _t(np.log(rng.dirichlet(np.ones(3), size=(4, 2))), grad=True)
    # sample 1: target [1, 1] needs 3 frames (1, blank, 1) but has 2: no alignment, loss inf
    targets, lengths = _t([[1, 2], [1, 1]]), _t([4, 2])
    loss = F.ctc_loss(lp, targets, lengths, _t([2, 2]), reduction=reduction,
                      zero_infinity=zero_infinity)  # fmt: skip
    (loss.sum() if reduction == "none" else loss).backward()
    return loss, lp.grad.numpy()


@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_ctc_infeasible_sample_gradient_is_nan(reduction):
    loss, grad = _ctc_case(False, reduction)
    assert np.isinf(loss.detach().numpy()).any()
    assert np.isnan(grad[:2, 1]).all(), "read frames of the infeasible sample"
    assert not np.isnan(grad[2:, 1]).any(), "frames past its input length"
    assert np.isfinite(grad[:, 0]).all(), "the feasible sample"
    feasible = _ctc_case(True, reduction)[1]
    np.testing.assert_array_equal(feasible[:, 1], 0.0, err_msg="zero_infinity")
    np.testing.assert_allclose(grad[:, 0], feasible[:, 0], rtol=1e-12, err_msg="feasible")
