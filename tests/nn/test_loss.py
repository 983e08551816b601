"""Losses: values against NumPy formulas for each reduction, float64 first and second
derivatives, the loss modules, torch's errors, and no host reads on the strict device."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
X = RNG.normal(size=(5, 4))
Y = RNG.normal(size=(5, 4))
T = np.array([0, 3, 1, 1, 2])
P = RNG.uniform(0.05, 0.95, size=(5, 4))
SIGNS = RNG.choice([-1.0, 1.0], size=5)


def _t(a, device="cpu", grad=False, dtype=None):
    return minitorch.tensor(np.asarray(a), device=device, dtype=dtype, requires_grad=grad)


def _np(t):
    return t.detach().cpu().numpy()


def _log_softmax(x, axis=1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _reduce(v, reduction):
    return {"none": v, "mean": v.mean(), "sum": v.sum()}[reduction]


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _ce(x, t, w=None, ignore=-100, smoothing=0.0):
    """cross entropy (mean) of class indices, written out with NumPy."""
    logp = _log_softmax(x)
    c = x.shape[1]
    w = np.ones(c) if w is None else w
    keep = t != ignore
    ts = np.where(keep, t, 0)
    wt = w[ts] * keep
    nll = -(logp[np.arange(len(t)), ts] * wt).sum() / wt.sum()
    smooth = -((logp * w).sum(1) * keep).sum() / wt.sum()
    return (1 - smoothing) * nll + smoothing / c * smooth


# name -> (minitorch loss(reduction) on the standard inputs, NumPy reference(reduction))
CASES = {
    "mse": (
        lambda r, d: F.mse_loss(_t(X, d), _t(Y, d), reduction=r),
        lambda r: _reduce((X - Y) ** 2, r),
    ),
    "l1": (
        lambda r, d: F.l1_loss(_t(X, d), _t(Y, d), reduction=r),
        lambda r: _reduce(np.abs(X - Y), r),
    ),
    "smooth_l1": (
        lambda r, d: F.smooth_l1_loss(_t(X, d), _t(Y, d), reduction=r, beta=0.5),
        lambda r: _reduce(np.where(np.abs(X - Y) < 0.5, (X - Y) ** 2, np.abs(X - Y) - 0.25), r),
    ),
    "huber": (
        lambda r, d: F.huber_loss(_t(X, d), _t(Y, d), reduction=r, delta=0.5),
        lambda r: _reduce(
            np.where(np.abs(X - Y) < 0.5, 0.5 * (X - Y) ** 2, 0.5 * (np.abs(X - Y) - 0.25)), r
        ),
    ),
    "nll": (
        lambda r, d: F.nll_loss(_t(X, d), _t(T, d), reduction=r),
        lambda r: _reduce(-X[np.arange(5), T], r),
    ),
    "cross_entropy": (
        lambda r, d: F.cross_entropy(_t(X, d), _t(T, d), reduction=r),
        lambda r: _reduce(-_log_softmax(X)[np.arange(5), T], r),
    ),
    "cross_entropy_probs": (
        lambda r, d: F.cross_entropy(_t(X, d), _t(P, d), reduction=r),
        lambda r: _reduce(-(_log_softmax(X) * P).sum(1), r),
    ),
    "bce": (
        lambda r, d: F.binary_cross_entropy(_t(P, d), _t(_sig(Y), d), reduction=r),
        lambda r: _reduce(-(_sig(Y) * np.log(P) + (1 - _sig(Y)) * np.log(1 - P)), r),
    ),
    "bce_logits": (
        lambda r, d: F.binary_cross_entropy_with_logits(_t(X, d), _t(P, d), reduction=r),
        lambda r: _reduce(-(P * np.log(_sig(X)) + (1 - P) * np.log(1 - _sig(X))), r),
    ),
    "kl_div": (
        lambda r, d: F.kl_div(_t(_log_softmax(X), d), _t(P, d), reduction=r),
        lambda r: _reduce(P * (np.log(P) - _log_softmax(X)), r),
    ),
    "poisson": (
        lambda r, d: F.poisson_nll_loss(_t(X, d), _t(P * 3, d), reduction=r),
        lambda r: _reduce(np.exp(X) - 3 * P * X, r),
    ),
    "gaussian": (
        lambda r, d: F.gaussian_nll_loss(_t(X, d), _t(Y, d), _t(P, d), reduction=r),
        lambda r: _reduce(0.5 * (np.log(P) + (X - Y) ** 2 / P), r),
    ),
    "margin_ranking": (
        lambda r, d: F.margin_ranking_loss(
            _t(X[:, 0], d), _t(Y[:, 0], d), _t(SIGNS, d), 0.1, reduction=r
        ),
        lambda r: _reduce(np.maximum(0, -SIGNS * (X[:, 0] - Y[:, 0]) + 0.1), r),
    ),
    "hinge": (
        lambda r, d: F.hinge_embedding_loss(_t(X[:, 0], d), _t(SIGNS, d), reduction=r),
        lambda r: _reduce(np.where(SIGNS == 1, X[:, 0], np.maximum(0, 1 - X[:, 0])), r),
    ),
    "soft_margin": (
        lambda r, d: F.soft_margin_loss(_t(X, d), _t(np.sign(Y), d), reduction=r),
        lambda r: _reduce(np.log1p(np.exp(-np.sign(Y) * X)), r),
    ),
    "multilabel_soft_margin": (
        lambda r, d: F.multilabel_soft_margin_loss(_t(X, d), _t(P, d), reduction=r),
        lambda r: _reduce(-(P * np.log(_sig(X)) + (1 - P) * np.log(_sig(-X))).mean(1), r),
    ),
    "multi_margin": (
        lambda r, d: F.multi_margin_loss(_t(X, d), _t(T, d), reduction=r),
        lambda r: _reduce(
            np.array(
                [
                    sum(max(0, 1 - X[n, T[n]] + X[n, i]) for i in range(4) if i != T[n]) / 4
                    for n in range(5)
                ]
            ),
            r,
        ),
    ),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_numpy(name, reduction, device):
    loss, ref = CASES[name]
    with count_transfers() as transfers:
        out = loss(reduction, device)
    if device == "strict":
        assert transfers.count == 0, f"{name} read {transfers.count} values back to the host"
    assert out.device == minitorch.device(device)
    np.testing.assert_allclose(_np(out), ref(reduction), rtol=1e-10, atol=1e-12, err_msg=name)


def test_cross_entropy_weight_ignore_index_and_smoothing():
    w = np.array([0.5, 1.0, 2.0, 0.25])
    t = np.array([0, 3, -100, 1, 2])
    got = F.cross_entropy(_t(X), _t(t), weight=_t(w), label_smoothing=0.2)
    np.testing.assert_allclose(_np(got), _ce(X, t, w, smoothing=0.2), rtol=1e-12)
    got = F.cross_entropy(_t(X), _t(T), ignore_index=1)
    np.testing.assert_allclose(_np(got), _ce(X, T, ignore=1), rtol=1e-12)
    # every target ignored: 0 / 0 as in torch
    assert np.isnan(_np(F.cross_entropy(_t(X), _t(np.full(5, -100)))))


def test_cross_entropy_k_dimensional():
    x = RNG.normal(size=(2, 3, 4, 2))
    t = RNG.integers(0, 3, size=(2, 4, 2))
    want = -np.take_along_axis(_log_softmax(x, 1), t[:, None], 1).mean()
    np.testing.assert_allclose(_np(F.cross_entropy(_t(x), _t(t))), want, rtol=1e-12)
    none = F.cross_entropy(_t(x), _t(t), reduction="none")
    assert none.shape == (2, 4, 2)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: F.cross_entropy(
            x, _t(T), weight=_t([0.5, 1.0, 2.0, 0.25]), label_smoothing=0.1
        ),
        lambda x, y: F.cross_entropy(x, y.softmax(1)),
        lambda x, y: F.nll_loss(x.log_softmax(1), _t(T), reduction="sum"),
        lambda x, y: F.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
        lambda x, y: F.binary_cross_entropy_with_logits(
            x, y.sigmoid(), pos_weight=_t([1.0, 2, 3, 4])
        ),
        lambda x, y: F.kl_div(x.log_softmax(1), y, reduction="batchmean", log_target=True),
        lambda x, y: F.smooth_l1_loss(x, y, beta=0.3),
        lambda x, y: F.huber_loss(x, y, delta=0.3),
        lambda x, y: F.gaussian_nll_loss(x, y, y.exp(), full=True),
        lambda x, y: F.poisson_nll_loss(x.exp(), y.exp(), log_input=False, full=True),
        lambda x, y: F.cosine_embedding_loss(x, y, _t(SIGNS), margin=-0.5),
        lambda x, y: F.triplet_margin_loss(x, y, x * 0.5 + 1.0, swap=True),
        lambda x, y: F.multilabel_soft_margin_loss(x, y.sigmoid()),
        lambda x, y: F.multi_margin_loss(x, _t(T), p=2, margin=0.7),
        lambda x, y: F.multilabel_margin_loss(x, _t([[3, 0, -1, 1]] * 5)),
        lambda x, y: F.soft_margin_loss(x, _t(np.sign(Y))),
    ],
    ids=[
        "ce_weighted",
        "ce_probs",
        "nll",
        "bce",
        "bce_logits",
        "kl_div",
        "smooth_l1",
        "huber",
        "gaussian",
        "poisson_full",
        "cosine_embedding",
        "triplet",
        "multilabel_soft_margin",
        "multi_margin",
        "multilabel_margin",
        "soft_margin",
    ],
)
def test_loss_gradients(fn):
    x = _t(X, grad=True)
    y = _t(Y * 0.5, grad=True)
    assert gradcheck(fn, (x, y))
    assert gradgradcheck(fn, (x, y))


def test_bce_gradient_is_finite_at_saturation():
    x = _t([0.0, 1.0, 0.5], grad=True)
    loss = F.binary_cross_entropy(x, _t([1.0, 0.0, 0.5]), reduction="sum")
    np.testing.assert_allclose(_np(loss), 200 + np.log(2), rtol=1e-12)
    loss.backward()
    assert np.isfinite(_np(x.grad)).all()


def test_bce_with_logits_is_stable():
    x = _t([-1000.0, 1000.0, 0.0], grad=True)
    loss = F.binary_cross_entropy_with_logits(x, _t([1.0, 0.0, 1.0]), reduction="none")
    np.testing.assert_allclose(_np(loss), [1000.0, 1000.0, np.log(2)], rtol=1e-12)
    loss.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [-1.0, 1.0, -0.5])


MODULES = [
    (nn.MSELoss(reduction="sum"), "mse", "sum"),
    (nn.L1Loss(), "l1", "mean"),
    (nn.SmoothL1Loss(reduction="none", beta=0.5), "smooth_l1", "none"),
    (nn.HuberLoss(delta=0.5), "huber", "mean"),
    (nn.NLLLoss(), "nll", "mean"),
    (nn.CrossEntropyLoss(reduction="sum"), "cross_entropy", "sum"),
    (nn.KLDivLoss(reduction="sum"), "kl_div", "sum"),
    (nn.PoissonNLLLoss(), "poisson", "mean"),
    (nn.SoftMarginLoss(), "soft_margin", "mean"),
    (nn.MultiMarginLoss(), "multi_margin", "mean"),
    (nn.MultiLabelSoftMarginLoss(reduction="none"), "multilabel_soft_margin", "none"),
]


@pytest.mark.parametrize(
    "module, name, reduction", MODULES, ids=[type(m).__name__ for m, _, _ in MODULES]
)
def test_loss_modules(module, name, reduction):
    inputs = {
        "mse": (X, Y),
        "l1": (X, Y),
        "smooth_l1": (X, Y),
        "huber": (X, Y),
        "nll": (X, T),
        "cross_entropy": (X, T),
        "kl_div": (_log_softmax(X), P),
        "poisson": (X, P * 3),
        "soft_margin": (X, np.sign(Y)),
        "multi_margin": (X, T),
        "multilabel_soft_margin": (X, P),
    }[name]
    out = module(*[_t(a) for a in inputs])
    np.testing.assert_allclose(_np(out), CASES[name][1](reduction), rtol=1e-10)
    assert repr(module) == f"{type(module).__name__}()"


def test_weighted_loss_modules_keep_weights_as_buffers():
    w = _t([1.0, 2.0, 3.0, 4.0])
    ce = nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)
    assert list(ce.state_dict()) == ["weight"] and ce.weight is w
    np.testing.assert_allclose(
        _np(ce(_t(X), _t(T))), _ce(X, T, np.array([1.0, 2, 3, 4]), smoothing=0.1), rtol=1e-12
    )
    bce = nn.BCEWithLogitsLoss(pos_weight=_t([1.0, 2, 3, 4]))
    assert list(bce.state_dict()) == ["pos_weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.MSELoss(size_average=False).reduction == "sum"


def test_out_of_range_targets_raise_on_cpu():
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        F.cross_entropy(_t(X), _t([0, 5, 1, 1, 2]))
    with pytest.raises(IndexError, match=r"^Target -1 is out of bounds\.$"):
        F.nll_loss(_t(X), _t([0, -1, 1, 1, 2]))
    # the ignored index is never checked
    F.cross_entropy(_t(X), _t([0, 7, 1, 1, 2]), ignore_index=7)


def test_strict_device_skips_the_range_check_without_reading_back():
    # See NOTE [ Checks that read values ]: the check needs the values, so it runs on CPU only
    with count_transfers() as transfers:
        F.cross_entropy(
            _t(X, "strict"),
            _t([0, 1, 1, 1, 2], "strict"),
            label_smoothing=0.1,
            weight=_t([1.0, 2, 3, 4], "strict"),
        )
        F.binary_cross_entropy(_t(P, "strict"), _t(P, "strict"))
        F.gaussian_nll_loss(_t(X, "strict"), _t(Y, "strict"), _t(P, "strict"))
    assert transfers.count == 0


@pytest.mark.parametrize(
    "fn, exc, msg",
    [
        (
            lambda: F.cross_entropy(_t(X), _t([0, 1])),
            ValueError,
            r"Expected input batch_size \(5\) to match target batch_size \(2\)\.",
        ),
        (
            lambda: F.cross_entropy(_t(X), _t(X[:, :2])),
            RuntimeError,
            "0D or 1D target tensor expected, multi-target not supported",
        ),
        (
            lambda: F.cross_entropy(_t(X), _t(T).int()),
            RuntimeError,
            "expected target dtype to be Long or Byte, but got Int",
        ),
        (
            lambda: F.cross_entropy(_t(X), _t(T), weight=_t([1.0, 2.0])),
            RuntimeError,
            "weight tensor should be defined either for all 4 classes or no classes",
        ),
        (
            lambda: F.cross_entropy(_t(X), _t(T), reduction="avg"),
            ValueError,
            "avg is not a valid value for reduction",
        ),
        (
            lambda: F.cross_entropy(_t(X), _t(T), label_smoothing=2.0),
            RuntimeError,
            "label_smoothing must be between 0.0 and 1.0. Got: 2",
        ),
        (
            lambda: F.nll_loss(_t(np.ones((2, 3, 4))), _t(np.zeros((2, 5), dtype=int))),
            RuntimeError,
            r"Expected target size \[2, 4\], got \[2, 5\]",
        ),
        (
            lambda: F.binary_cross_entropy(_t(P), _t(P[:, :2])),
            ValueError,
            "Using a target size .* that is different to the input size",
        ),
        (
            lambda: F.binary_cross_entropy(_t(X), _t(P)),
            RuntimeError,
            "all elements of input should be between 0 and 1",
        ),
        (
            lambda: F.binary_cross_entropy_with_logits(_t(X), _t(P[:2])),
            ValueError,
            r"Target size \(torch.Size\(\[2, 4\]\)\) must be the same as input size",
        ),
        (
            lambda: F.gaussian_nll_loss(_t(X), _t(Y), _t(-P)),
            ValueError,
            "var has negative entry/entries",
        ),
        (
            lambda: F.multi_margin_loss(_t(X), _t(T), p=3),
            ValueError,
            "only p == 1 and p == 2 supported",
        ),
    ],
)
def test_errors(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn()


def test_mse_warns_on_broadcast():
    with pytest.warns(UserWarning, match="Using a target size"):
        out = F.mse_loss(_t(X), _t(Y[0]))
    np.testing.assert_allclose(_np(out), ((X - Y[0]) ** 2).mean())


def test_ignored_rows_with_minus_inf_log_probabilities_weigh_zero():
    # a padding row with masked logits (-inf at the class looked up for ignore_index=-100)
    inf = float("inf")
    logits = minitorch.tensor([[2.0, 1.0, 0.5], [-inf, 0.0, 0.0]], requires_grad=True)
    target = minitorch.tensor([1, -100])
    loss = F.cross_entropy(logits, target)
    loss.backward()
    want = float(-F.log_softmax(logits[:1], 1)[0, 1])
    np.testing.assert_allclose(loss.item(), want, rtol=1e-6)  # was nan
    assert logits.grad[1].tolist() == [0.0, 0.0, 0.0]
    none = F.cross_entropy(logits, target, reduction="none")
    assert none[1].item() == 0.0 and not np.signbit(none[1].item())  # +0, printed 0.0000
    masked = minitorch.tensor([[-inf, 0.0]])
    assert F.nll_loss(masked, minitorch.tensor([-100]), reduction="sum").item() == 0
    w = minitorch.tensor([1.0, 2.0, 3.0])
    assert np.isfinite(F.cross_entropy(logits, target, weight=w).item())


def test_bce_target_outside_unit_interval_raises():
    p = minitorch.tensor([0.2, 0.7, 0.5])
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(p, minitorch.tensor([0.0, 1.0, 2.0]))
    F.binary_cross_entropy(p, minitorch.tensor([0.0, 1.0, 0.5]))  # soft targets are fine


@pytest.mark.parametrize("fn", [F.huber_loss, F.soft_margin_loss])
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_losses_shaped_like_the_input_keep_its_dtype(fn, reduction):
    # torch's huber and soft margin kernels write into a tensor like the input: a float64 target
    # does not widen a float32 loss (mse_loss and smooth_l1_loss do promote, as torch's)
    x = minitorch.tensor(X, dtype=minitorch.float32, requires_grad=True)
    huber = fn is F.huber_loss  # soft margin is not differentiable in its target (torch's)
    t = minitorch.tensor(SIGNS[:, None] * np.ones((5, 4)), requires_grad=huber)
    loss = fn(x, t, reduction=reduction)
    assert loss.dtype is minitorch.float32
    want = fn(x.double(), t, reduction=reduction)
    np.testing.assert_allclose(loss.detach().numpy(), want.detach().numpy(), rtol=1e-6)
    if huber:  # torch's huber backward kernel takes one dtype (tests/test_s60_functional.py)
        with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
            loss.sum().backward()
    else:
        loss.sum().backward()
        assert x.grad.dtype is minitorch.float32
        assert t.grad is None
    assert F.mse_loss(x, t).dtype is minitorch.float64
