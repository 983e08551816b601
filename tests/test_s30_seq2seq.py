"""Session 30 (helper seq2seq): torch-free checks of the sequence-to-sequence building blocks the
reference programs in tests/reference/test_s30_seq2seq_reference.py lean on (CTC loss values,
gradients and reductions, label-smoothed cross entropy with weights and ignore_index, beam ids
recovered from flattened top-k ids, greedy CTC decoding by unique_consecutive, unsorted packing,
multinomial draws from a Generator, causal masks, nucleus filtering). The session found no
library difference in this domain; the values below are torch 2.13's, so these keep the
behaviour pinned where torch is not installed."""

from __future__ import annotations

import math

import numpy as np

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def _log_probs():
    p = [
        [[0.1, 0.5, 0.4], [0.6, 0.2, 0.2]],
        [[0.3, 0.3, 0.4], [0.1, 0.1, 0.8]],
        [[0.5, 0.25, 0.25], [0.2, 0.7, 0.1]],
        [[0.2, 0.2, 0.6], [0.3, 0.4, 0.3]],
    ]
    return mt.tensor(p, dtype=F64).log()


def test_ctc_loss_values_gradient_and_reductions():
    lp = _log_probs().requires_grad_()
    t = mt.tensor([[1, 2], [2, 0]])
    loss = F.ctc_loss(lp, t, mt.tensor([4, 3]), mt.tensor([2, 1]), reduction="none")
    _close(loss.detach(), [1.3606266143713128, 1.5994875815809324])
    loss.sum().backward()
    want = [
        [[0.006432748538011679, -0.4064327485380117, 0.4],
         [-0.1425742574257428, 0.2, -0.05742574257425764]],
        [[-0.009941520467836362, -0.15614035087719286, 0.16608187134502927],
         [0.0504950495049505, 0.10000000000000002, -0.15049504950495074]],
        [[0.03606237816764135, 0.12719298245614036, -0.1632553606237816],
         [-0.4534653465346535, 0.7, -0.2465346534653467]],
        [[0.018713450292397626, 0.2, -0.21871345029239786], [0.0, 0.0, 0.0]],
    ]  # fmt: skip
    _close(lp.grad, want, "gradient (zero past the second sample's length)")
    lp = lp.detach()
    # mean divides each loss by its target length first; tuples of ints as lengths
    _close(F.ctc_loss(lp, t, (4, 3), (2, 1)), 1.1399004443832945, "mean")
    # an input too short for its target: inf, then zeroed by zero_infinity
    _close(F.ctc_loss(lp, t, (1, 3), (2, 1), reduction="none"), [math.inf, 1.5994875815809324])
    z = F.ctc_loss(lp, t, (1, 3), (2, 1), reduction="sum", zero_infinity=True)
    _close(z, 1.5994875815809324, "zero_infinity")
    # concatenated 1-d targets give the padded 2-d targets' loss
    _close(F.ctc_loss(lp, mt.tensor([1, 2, 2]), (4, 3), (2, 1)), 1.1399004443832945, "1-d")


def test_label_smoothed_cross_entropy_with_weight_and_ignore_index():
    x = mt.tensor([[0.5, -1.0, 2.0, 0.0], [1.5, 0.25, -0.5, 1.0], [0.0, 0.0, 3.0, -2.0]],
                  dtype=F64, requires_grad=True)  # fmt: skip
    y = mt.tensor([2, -100, 0])
    w = mt.tensor([1.0, 2.0, 0.5, 1.0], dtype=F64)
    want = {"mean": 2.595017551043692, "sum": 3.8925263265655374,
            "none": [0.6889684889936388, 0.0, 3.203557837571899]}  # fmt: skip
    for red, v in want.items():
        _close(F.cross_entropy(x, y, weight=w, label_smoothing=0.2, reduction=red).detach(), v,
               red)  # fmt: skip
    F.cross_entropy(x, y, weight=w, label_smoothing=0.2).backward()
    want_g = [
        [0.032685295631241555, -0.0519359194130213, 0.012541634535905937, 0.006708989245873835],
        [0.0, 0.0, 0.0, 0.0],
        [-0.5359147984688118, -0.03591479846881191, 0.6010011174783456, -0.02917152054072168],
    ]
    _close(x.grad, want_g, "gradient")


def test_beam_and_token_ids_from_flattened_topk_ids():
    ids = mt.tensor([[7, 0, 13], [20, 6, 2]])
    assert (ids // 7).tolist() == [[1, 0, 1], [2, 0, 0]]
    assert (ids % 7).tolist() == [[0, 0, 6], [6, 6, 2]]
    assert mt.div(-ids, 7, rounding_mode="floor").tolist() == [[-1, 0, -2], [-3, -1, -1]]
    assert (-ids % 7).tolist() == [[0, 0, 1], [1, 1, 5]]
    assert mt.fmod(-ids, 7).tolist() == [[0, 0, -6], [-6, -6, -2]]


def test_greedy_ctc_decoding_by_unique_consecutive():
    b = mt.tensor([[0, 3, 3, 0, 1, 1, 2, 2], [2, 2, 0, 0, 4, 0, 4, 4]])
    u, inv, cnt = mt.unique_consecutive(b[0], return_inverse=True, return_counts=True)
    assert (u.tolist(), inv.tolist(), cnt.tolist()) == (
        [0, 3, 0, 1, 2],
        [0, 1, 1, 2, 3, 3, 4, 4],
        [1, 2, 1, 2, 2],
    )
    assert u[u != 0].tolist() == [3, 1, 2]
    cols, counts = mt.unique_consecutive(b, return_counts=True, dim=1)
    assert cols.tolist() == [[0, 3, 3, 0, 1, 1, 2], [2, 2, 0, 0, 4, 0, 4]]
    assert counts.tolist() == [1, 1, 1, 1, 1, 1, 2]


def test_unsorted_packing_round_trip():
    rnn = mt.nn.utils.rnn
    x = mt.arange(12.0).view(3, 4, 1)
    p = rnn.pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False)
    assert p.data.view(-1).tolist() == [4.0, 0.0, 8.0, 5.0, 1.0, 6.0, 7.0]
    assert p.batch_sizes.tolist() == [3, 2, 1, 1]
    assert p.sorted_indices.tolist() == [1, 0, 2]
    assert p.unsorted_indices.tolist() == [1, 0, 2]
    out, lengths = rnn.pad_packed_sequence(p, batch_first=True, padding_value=-1.0, total_length=5)
    assert out.view(3, 5).tolist() == [
        [0.0, 1.0, -1.0, -1.0, -1.0],
        [4.0, 5.0, 6.0, 7.0, -1.0],
        [8.0, -1.0, -1.0, -1.0, -1.0],
    ]
    assert lengths.tolist() == [2, 4, 1]


def test_multinomial_draws_follow_torchs_generator_stream():
    g = mt.Generator().manual_seed(21)
    probs = mt.tensor([[0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.5, 0.0]])
    assert mt.multinomial(probs, 2, generator=g).tolist() == [[1, 3], [2, 1]]
    drawn = mt.multinomial(probs, 3, replacement=True, generator=g)
    assert drawn.tolist() == [[0, 1, 2], [1, 2, 2]]


def test_causal_mask_and_nucleus_filter():
    mask = mt.nn.Transformer.generate_square_subsequent_mask(3)
    assert repr(mask) == (
        "tensor([[0., -inf, -inf],\n        [0., 0., -inf],\n        [0., 0., 0.]])"
    )
    lg = mt.tensor([[2.0, 1.0, 0.5, -1.0, 3.0]])
    sl, si = mt.sort(lg, descending=True)
    remove = sl.softmax(-1).cumsum(-1) > 0.8
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = False
    kept = lg.masked_fill(remove.scatter(1, si, remove), float("-inf"))
    assert kept.tolist() == [[2.0, -math.inf, -math.inf, -math.inf, 3.0]]
