"""ctc_loss as one fused op (alpha recursion forward, beta recursion backward, on arrays):
torch's gradient formula exp(log_probs) - occupancy, its NaN and zero_infinity rules, its
handling of a blank inside the targets, frames past every input length, the strict device,
and a create_graph gradient that differentiates again. Expected values are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradgradcheck


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _lp(seed, shape, dtype=np.float64):
    """Normalised log-probabilities given straight to ctc_loss (no log_softmax after them)."""
    return _log_softmax(np.random.default_rng(seed).standard_normal(shape)).astype(dtype)


# case 1 (seed 0, (4, 2, 3)): targets [[1, 2], [2, 2]], lengths (4, 3), (2, 1), 'none',
# upstream gradient (1, 2)
_LOSS_1 = [2.4988963843, 1.0544427685]
_GRAD_1 = [
    [[-0.2497595153, -0.2357884716, 0.4855479869], [-0.1871631147, 0.373800677, -0.1866375622]],
    [[0.1410501738, -0.187421083, 0.0463709092], [0.0703595447, 0.5763895934, -0.6467491381]],
    [[0.0238373505, 0.1851085614, -0.2089459119], [-0.2723401787, 0.6483735884, -0.3760334097]],
    [[-0.000795309, 0.5428399354, -0.5420446265], [0.0, 0.0, 0.0]],
]


def _case_1(x, lengths_as_tensors=False):
    il, tl = [4, 3], [2, 1]
    if lengths_as_tensors:
        il, tl = mt.tensor(il, device=x.device), mt.tensor(tl, device=x.device)
    tg = mt.tensor([[1, 2], [2, 2]], device=x.device)
    return F.ctc_loss(x, tg, il, tl, reduction="none")


def test_gradient_is_torchs_formula_on_raw_log_probs():
    # torch's CtcLossBackward0 returns exp(log_probs) - occupancy (the derivative once through a
    # log_softmax), not the exact derivative -occupancy
    x = mt.tensor(_lp(0, (4, 2, 3)), requires_grad=True)
    loss = _case_1(x)
    assert type(loss.grad_fn).__name__ == "CtcLossBackward0"
    loss.backward(mt.tensor([1.0, 2.0], dtype=mt.float64))
    np.testing.assert_allclose(loss.detach().numpy(), _LOSS_1, rtol=1e-9, err_msg="loss")
    np.testing.assert_allclose(x.grad.numpy(), _GRAD_1, rtol=1e-8, atol=1e-10, err_msg="grad")


def test_frames_past_every_input_length_are_never_read():
    # two NaN frames after the longest input and a NaN in sample 1's unread frame 3: torch reads
    # none of them (loss, gradient unchanged, zero gradient there), for both length overloads
    lp = np.concatenate([_lp(0, (4, 2, 3)), np.full((2, 2, 3), np.nan)])
    lp[3, 1] = np.nan
    for as_tensors in (False, True):
        x = mt.tensor(lp, requires_grad=True)
        loss = _case_1(x, as_tensors)
        loss.backward(mt.tensor([1.0, 2.0], dtype=mt.float64))
        np.testing.assert_allclose(loss.detach().numpy(), _LOSS_1, rtol=1e-9)
        want = np.concatenate([_GRAD_1, np.zeros((2, 2, 3))])
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-8, atol=1e-10, err_msg="grad")


def test_blank_inside_targets_follows_torch():
    # blank=1 inside targets: torch lets a label equal to the blank skip from s - 2, and its CPU
    # backward drops the first end state's occupancy when the last label is the blank
    x = mt.tensor(_lp(1, (4, 3, 3)), requires_grad=True)
    tg = mt.tensor([[1, 0, 2], [0, 1, 0], [2, 1, 0]])
    loss = F.ctc_loss(x, tg, [4, 4, 3], [3, 2, 2], blank=1, reduction="sum")
    loss.backward()
    np.testing.assert_allclose(loss.item(), 9.1728736284, rtol=1e-9)
    want = [
        [[0.2781916117, -0.5522011758, 0.2740095641], [-0.2354182912, -0.1273847568, 0.362803048],
         [0.1533199771, 0.2756883219, -0.4290082991]],
        [[-0.4275923218, 0.0060660349, 0.4215262869], [-0.4521477803, 0.1348356982, 0.3173120821],
         [0.5045839856, -0.3625434167, -0.1420405689]],
        [[-0.1471243676, 0.1653549205, -0.0182305529], [-0.0114427886, -0.3716596881, 0.3831024767],
         [0.0628560414, -0.6399720026, 0.7941222699]],
        [[0.2090234709, 0.1609294101, -0.369952881], [0.8912474012, -0.6324135998, 0.0734921276],
         [0.0, 0.0, 0.0]],
    ]  # fmt: skip
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-8, atol=1e-10)


def test_minus_infinity_log_prob_gets_nan_gradient():
    # torch computes exp(-inf + loss - lp) at lp = -inf on a read frame: NaN, for any class
    lp = _lp(2, (3, 1, 3))
    lp[1, 0, 2] = lp[2, 0, 1] = -np.inf
    x = mt.tensor(lp, requires_grad=True)
    loss = F.ctc_loss(x, mt.tensor([[1]]), [3], [1], reduction="sum")
    loss.backward()
    np.testing.assert_allclose(loss.item(), 2.4998072093, rtol=1e-9)
    want = [
        [[-0.1770579091, -0.0916078722, 0.2686657812]],
        [[0.0046688031, -0.343203795, np.nan]],
        [[-0.8286526372, np.nan, 0.3142932176]],
    ]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-8, atol=1e-10)


def test_device_lengths_zero_infinity_mean_float32(device):
    # tensor lengths (no host read), an infeasible sample (target [2, 2] in 2 frames) zeroed by
    # zero_infinity, the mean over target lengths, float32
    x = mt.tensor(_lp(3, (5, 3, 4), np.float32), device=device, requires_grad=True)
    tg = mt.tensor([[1, 2, 3], [2, 2, 0], [3, 0, 0]], device=device)
    il, tl = mt.tensor([5, 2, 4], device=device), mt.tensor([3, 2, 1], device=device)
    loss = F.ctc_loss(x, tg, il, tl, reduction="mean", zero_infinity=True)
    loss.backward()
    np.testing.assert_allclose(loss.item(), 2.9671228, rtol=1e-6)
    want = [
        [[-0.021335972, -0.0021663723, 0.01711617, 0.006386301], [0.0] * 4,
         [-0.18331628, 0.30702674, 0.013869914, -0.13758036]],
        [[0.02509023, -0.07405752, 0.016173964, 0.032793436], [0.0] * 4,
         [-0.13479605, 0.1944103, 0.071468405, -0.1310826]],
        [[0.0055629387, 0.0015243872, -0.015323222, 0.008235931], [0.0] * 4,
         [-0.040451616, 0.08210051, 0.050355658, -0.09200445]],
        [[-0.0025127062, 0.09054663, -0.036727384, -0.0513065], [0.0] * 4,
         [-0.11026301, 0.038729094, 0.16649023, -0.09495635]],
        [[-0.018639984, 0.06180959, 0.016558543, -0.059728112], [0.0] * 4, [0.0] * 4],
    ]  # fmt: skip
    grad = x.grad.cpu().numpy()
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, want, rtol=2e-5, atol=1e-7)


def test_create_graph_gradient_is_torchs_and_differentiates_again():
    # torch raises "derivative for aten::_ctc_loss_backward is not implemented" on a double
    # backward; here the create_graph gradient is the same first derivative, differentiable
    x = mt.tensor(_lp(0, (4, 2, 3)), requires_grad=True)
    (g,) = mt.autograd.grad(
        _case_1(x), x, mt.tensor([1.0, 2.0], dtype=mt.float64), create_graph=True
    )
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.detach().numpy(), _GRAD_1, rtol=1e-8, atol=1e-10)
    small = mt.tensor(_lp(4, (3, 2, 3)), requires_grad=True)

    def f(a):
        return F.ctc_loss(a, mt.tensor([[1, 2], [2, 0]]), [3, 2], [2, 1], reduction="sum")

    assert gradgradcheck(f, (small,))


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_infeasible_sample_gradient(zero_infinity):
    # target [1, 1] needs 3 frames: in 2 its loss is inf, its read frames' gradient NaN for
    # every class (torch), or all zero with zero_infinity; the other sample is unaffected
    x = mt.tensor(_lp(5, (3, 2, 3)), requires_grad=True)
    loss = F.ctc_loss(
        x, mt.tensor([[1, 2], [1, 1]]), [3, 2], [2, 2], reduction="none",
        zero_infinity=zero_infinity,
    )  # fmt: skip
    loss.sum().backward()
    grad = x.grad.numpy()
    if zero_infinity:
        np.testing.assert_array_equal(grad[:, 1], 0.0)
    else:
        assert np.isnan(grad[:2, 1]).all() and (grad[2, 1] == 0).all()
    # the feasible sample: exp(lp) - occupancy sums to 0 over classes on each read frame
    np.testing.assert_allclose(grad[:, 0].sum(-1), 0.0, atol=1e-12)
