"""Session 35 (helper asr): torch-free regression tests of the library fix the speech-recognition
programs of tests/reference/test_s35_asr_reference.py found: ctc_loss's CtcLossBackward0 node
shows torch's saved values (_saved_log_probs, _saved_targets as int64, _saved_blank,
_saved_zero_infinity, the lengths as tuples of ints, _saved_result0 (the losses) and
_saved_result1 (log_alpha, N x T x (2 max(S) + 1))), the tensors freed by backward with torch's
message (and the losses saved, so changing them in place refuses backward, as torch's
node does); torch.ctc_loss's parser TypeError lists only the arguments the call gave (and a str or
bool reduction is one), and the torch.<loss> functions with ATen's int reduction (kl_div,
poisson_nll_loss, ...) refuse a bool or str reduction with the parser's TypeError (position
named only when passed by position). torch's texts and values are written here as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
NAMES = [
    "_saved_blank", "_saved_input_lengths", "_saved_log_probs", "_saved_result0",
    "_saved_result1", "_saved_target_lengths", "_saved_targets", "_saved_zero_infinity",
]  # fmt: skip


def _node(loss):
    node = loss.grad_fn
    while type(node).__name__ != "CtcLossBackward0":
        node = [f for f, _ in node.next_functions if f is not None][-1]
    return node


def _setup(seed=0):
    g = mt.Generator().manual_seed(seed)
    x = mt.randn(6, 2, 5, generator=g, dtype=mt.float64, requires_grad=True)
    return x, x.log_softmax(2)


@pytest.mark.parametrize("lengths", ["tuple", "int64", "int32"])
def test_ctc_node_saved_values(lengths):
    x, lp = _setup()
    tg = mt.tensor([[1, 2, 0, 0], [3, 0, 0, 0]], dtype=mt.int32)
    il, tl = (6, 4), (2, 1)
    if lengths != "tuple":
        dt = getattr(mt, lengths)
        il, tl = mt.tensor(il, dtype=dt), mt.tensor(tl, dtype=dt)
    loss = F.ctc_loss(lp, tg, il, tl, blank=4, reduction="none", zero_infinity=True)
    node = _node(loss)
    assert sorted(k for k in dir(node) if k.startswith("_saved_")) == NAMES
    assert (node._saved_blank, node._saved_zero_infinity) == (4, True)
    assert node._saved_input_lengths == (6, 4)
    assert node._saved_target_lengths == (2, 1)
    assert node._saved_log_probs is lp
    assert node._saved_targets.dtype is mt.int64
    np.testing.assert_array_equal(node._saved_targets.numpy(), [[1, 2, 0, 0], [3, 0, 0, 0]])
    r0 = node._saved_result0
    assert type(r0.grad_fn).__name__ == "CtcLossBackward0"
    np.testing.assert_allclose(r0.detach().numpy(), loss.detach().numpy(), rtol=1e-12)
    alpha = node._saved_result1
    assert tuple(alpha.shape) == (2, 6, 5)  # (N, T, 2 max(target_lengths) + 1)
    a, p = alpha.numpy(), lp.detach().numpy()
    # frame 0: the blank and the first label; -inf at the other states
    np.testing.assert_allclose(a[:, 0, :2], [[p[0, 0, 4], p[0, 0, 1]], [p[0, 1, 4], p[0, 1, 3]]])
    assert np.isneginf(a[:, 0, 2:]).all()
    # the loss is -logsumexp of the two end states at the last frame
    for b, (T, S) in enumerate([(6, 2), (4, 1)]):
        end = np.logaddexp(a[b, T - 1, 2 * S], a[b, T - 1, 2 * S - 1])
        np.testing.assert_allclose(-end, loss[b].item(), rtol=1e-12)
    assert np.isneginf(a[1, 4:]).all()  # past sample 1's frames (torch: uninitialised)


def test_ctc_node_saved_freed_by_backward():
    x, lp = _setup(1)
    loss = F.ctc_loss(lp, mt.tensor([1, 2, 3]), (6, 5), (2, 1), reduction="sum")
    node = _node(loss)
    loss.backward()
    for name in ("_saved_result1", "_saved_targets", "_saved_log_probs", "_saved_result0"):
        with pytest.raises(RuntimeError) as info:
            getattr(node, name)
        assert str(info.value) == FREED, name
    assert node._saved_input_lengths == (6, 5)  # numbers stay
    assert (node._saved_blank, node._saved_zero_infinity) == (0, False)


def test_ctc_node_saved_empty_input_and_target():
    x, lp = _setup(2)
    loss = F.ctc_loss(lp, mt.tensor([[1, 1], [3, 3]]), [6, 0], [0, 2], reduction="none")
    alpha = _node(loss)._saved_result1.numpy()
    assert alpha.shape == (2, 6, 5)
    p = lp.detach().numpy()
    # an empty target: only the blank state, at every frame of the input
    np.testing.assert_allclose(alpha[0, :, 0], np.cumsum(p[:, 0, 0]), rtol=1e-12)
    assert np.isneginf(alpha[0, :, 1:]).all()
    assert np.isneginf(alpha[1]).all()  # an empty input: frame 0 is -inf too
    assert loss[1].item() == math.inf


def test_ctc_node_saved_unbatched():
    x, lp = _setup(3)
    loss = F.ctc_loss(lp[:, 0], mt.tensor([1, 2]), mt.tensor(6), mt.tensor(2), reduction="none")
    node = _node(loss)
    assert tuple(node._saved_log_probs.shape) == (6, 1, 5)
    assert tuple(node._saved_result0.shape) == (1,)
    assert tuple(node._saved_result1.shape) == (1, 6, 5)
    assert node._saved_input_lengths == (6,)


def test_ctc_loss_modified_in_place_refuses_backward():
    x, lp = _setup(4)
    tl = mt.tensor([2, 1])
    loss = F.ctc_loss(lp, mt.tensor([[1, 2], [3, 0]]), mt.tensor([6, 5]), tl, reduction="none")
    loss /= tl
    with pytest.raises(RuntimeError) as info:
        loss.sum().backward()
    assert str(info.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.DoubleTensor [2]], which is output 0 of CtcLoss, is at version 1; "
        "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


_CTC_FORMS = (
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints "
    "target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = "
    "False)\n",
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank "
    "= 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n",
)


def _ctc_message(got, why=None):
    lines = [
        f"ctc_loss() received an invalid combination of arguments - got ({got}), but expected "
        "one of:\n"
    ]
    for form in _CTC_FORMS:
        lines.append(form)
        if why is not None:
            lines.append(
                f"      didn't match because some of the arguments have invalid types: {why}\n"
            )
    return "".join(lines)


def _ctc_inputs():
    lp = mt.randn(5, 2, 4, generator=mt.Generator().manual_seed(4)).log_softmax(2)
    return lp, mt.tensor([[1, 2, 3], [3, 2, 1]])


def test_torch_ctc_loss_parser_errors_show_the_given_arguments():
    lp, tg = _ctc_inputs()
    with pytest.raises(TypeError) as info:
        mt.ctc_loss(lp, tg, [5, 5], [3, 3], reduction="mean")
    assert str(info.value) == _ctc_message("Tensor, Tensor, list, list, reduction=str")
    with pytest.raises(TypeError) as info:
        mt.ctc_loss(lp, tg, mt.tensor([5, 5]), [3, 3])
    assert str(info.value) == _ctc_message("Tensor, Tensor, Tensor, list")
    with pytest.raises(TypeError) as info:
        mt.ctc_loss(lp, tg, [5, 5], [3, 3], 0, "mean", False)
    why = "(Tensor, Tensor, !list of [int, int]!, !list of [int, int]!, !int!, !str!, !bool!)"
    assert str(info.value) == _ctc_message("Tensor, Tensor, list, list, int, str, bool", why)
    # ints still pick the reduction: 2 is sum
    total = mt.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 2)
    per = mt.ctc_loss(lp, tg, [5, 5], [3, 3], 0, 0)
    np.testing.assert_allclose(total.item(), per.sum().item(), rtol=1e-6)


def test_torch_loss_reduction_must_be_int():
    x = mt.rand(4, generator=mt.Generator().manual_seed(5))
    cases = [
        (
            lambda: mt.kl_div(x, x, True),
            "kl_div(): argument 'reduction' (position 3) must be int, not bool",
        ),
        (
            lambda: mt.kl_div(x, x, reduction="sum"),
            "kl_div(): argument 'reduction' must be int, not str",
        ),
        (
            lambda: mt.poisson_nll_loss(x, x, True, False, 1e-8, "mean"),
            "poisson_nll_loss(): argument 'reduction' (position 6) must be int, not str",
        ),
    ]
    for fn, message in cases:
        with pytest.raises(TypeError) as info:
            fn()
        assert str(info.value) == message


def test_ctc_node_saved_values_on_device(device):
    g = mt.Generator().manual_seed(6)
    x = mt.randn(6, 2, 5, generator=g, dtype=mt.float64).to(device).requires_grad_(True)
    lp = x.log_softmax(2)
    tg = mt.tensor([[1, 2, 0], [3, 0, 0]], device=device)
    il, tl = mt.tensor([6, 4], device=device), mt.tensor([2, 1], device=device)
    loss = F.ctc_loss(lp, tg, il, tl, reduction="none")
    node = loss.grad_fn
    assert node._saved_input_lengths == (6, 4)  # read back from the device when asked for
    alpha = node._saved_result1
    assert alpha.device == lp.device and tuple(alpha.shape) == (2, 6, 5)
    a = alpha.cpu().numpy()
    end = np.logaddexp(a[0, 5, 4], a[0, 5, 3])
    np.testing.assert_allclose(-end, loss.cpu()[0].item(), rtol=1e-12)
    assert np.isneginf(a[1, 4:]).all()
