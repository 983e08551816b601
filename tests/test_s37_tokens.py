"""Session 37 (helper tokens): torch-free regression tests of the library fixes the text
preprocessing and batching programs of tests/reference/test_s37_tokens_reference.py found:
pack_padded_sequence(enforce_sorted=False) with a lengths count other than the batch's (torch
index_selects the batch by the order first), repeat_interleave's negative output_size (torch's
allocation error) and empty repeats, F.embedding(max_norm=...)'s embedding_renorm_ messages, the
rows embedding_renorm_ has renormed before it raises for a bad index, and PackedSequence's
batch_sizes check. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
rnn = mt.nn.utils.rnn


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_pack_padded_unsorted_fewer_lengths_packs_the_first_sequences():
    ids = mt.arange(18).view(3, 6) + 1
    p = rnn.pack_padded_sequence(ids, mt.tensor([3, 5]), batch_first=True, enforce_sorted=False)
    np.testing.assert_array_equal(p.data.numpy(), [7, 1, 8, 2, 9, 3, 10, 11])
    np.testing.assert_array_equal(p.batch_sizes.numpy(), [2, 2, 2, 1, 1])
    np.testing.assert_array_equal(p.sorted_indices.numpy(), [1, 0])
    np.testing.assert_array_equal(p.unsorted_indices.numpy(), [1, 0])
    more = mt.tensor([2, 1, 1, 1])
    msg = _message(
        IndexError,
        lambda: rnn.pack_padded_sequence(ids, more, batch_first=True, enforce_sorted=False),
    )
    assert msg == "index out of range in self"
    msg = _message(RuntimeError, lambda: rnn.pack_padded_sequence(ids, [3], batch_first=True))
    assert msg == "Expected `len(lengths)` to be equal to batch_size, but got 1 (batch_size=3)"


@pytest.mark.parametrize(
    "call, size",
    [
        (lambda: mt.repeat_interleave(mt.tensor([1, 2]), mt.tensor([1, 2]), output_size=-1), -1),
        (lambda: mt.repeat_interleave(mt.tensor([1, 2]), mt.tensor([2]), output_size=-2), -2),
        (lambda: mt.repeat_interleave(mt.tensor([-1, 2]), output_size=-3), -3),
        (lambda: mt.repeat_interleave(mt.tensor([0, 0]), output_size=-2), -2),
    ],
)
def test_repeat_interleave_negative_output_size(call, size):
    msg = _message(RuntimeError, call)
    assert msg == f"Trying to create tensor with negative dimension {size}: [{size}]"


def test_repeat_interleave_output_size_mismatch_and_empty_repeats():
    msg = _message(
        RuntimeError,
        lambda: mt.repeat_interleave(mt.tensor([1, 2]), mt.tensor([1, 2]), output_size=2),
    )
    assert msg == "allocated size does not match required size"
    for size in (-1, 3):  # no repeats: torch returns at once, whatever output_size says
        out = mt.repeat_interleave(mt.tensor([], dtype=mt.long), output_size=size)
        assert out.shape == (0,) and out.dtype is mt.int64


RENORM_DIM = (
    "Expected 2-dimensional tensor, but got {}-dimensional tensor for argument #1 'self' "
    "(while checking arguments for embedding_renorm_)"
)


def test_embedding_max_norm_reports_embedding_renorm_checks():
    w = mt.arange(10.0).view(5, 2)
    msg = _message(RuntimeError, lambda: F.embedding(mt.tensor([1, 2]), w[None], max_norm=1.0))
    assert msg == RENORM_DIM.format(3)
    msg = _message(RuntimeError, lambda: F.embedding(mt.tensor([1.0, 2]), w[0, 0], max_norm=1.0))
    assert msg == RENORM_DIM.format(0)
    # renormed under no_grad, as torch's functional: no in-place refusal for a leaf's view
    leaf = w[0].requires_grad_()
    msg = _message(RuntimeError, lambda: F.embedding(mt.tensor([1, 2]), leaf, max_norm=1.0))
    assert msg == RENORM_DIM.format(1)
    msg = _message(RuntimeError, lambda: F.embedding(mt.tensor([1.0, 2]), w, max_norm=1.0))
    assert msg == (
        "Expected tensor for argument #2 'indices' to have one of the following scalar types: "
        "Long, Int; but got torch.FloatTensor instead (while checking arguments for "
        "embedding_renorm_)"
    )
    # without max_norm, embedding's own checks
    msg = _message(RuntimeError, lambda: F.embedding(mt.tensor([1, 2]), w[None]))
    assert msg == "'weight' must be 2-D"


@pytest.mark.parametrize("call", ["embedding", "renorm", "bag"])
def test_renorm_rows_before_a_bad_index_stay_renormed(call):
    def run(w, idx):
        if call == "embedding":
            return F.embedding(mt.tensor(idx), w, max_norm=1.0)
        if call == "bag":
            return F.embedding_bag(mt.tensor(idx), w, mt.tensor([0]), max_norm=1.0)
        return mt.embedding_renorm_(w, mt.tensor(idx), 1.0, 2.0)

    w = mt.arange(10.0, dtype=mt.float64).view(5, 2)
    msg = _message(IndexError, lambda: run(w, [7, 1, -1]))
    assert msg == "select(): index 7 out of range for tensor of size [5, 2] at dimension 0"
    want = np.arange(10.0).reshape(5, 2)
    for r in (1, 4):  # index 1 and index -1 (row 4), both below 7
        want[r] *= 1.0 / (np.linalg.norm(want[r]) + 1e-7)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-15, err_msg=call)
    # an index below -n comes first in torch's ascending order: nothing renormed
    w = mt.arange(10.0, dtype=mt.float64).view(5, 2)
    msg = _message(IndexError, lambda: run(w, [-9, 1]))
    assert msg == "select(): index -9 out of range for tensor of size [5, 2] at dimension 0"
    np.testing.assert_array_equal(w.numpy(), np.arange(10.0).reshape(5, 2))


def test_packed_sequence_batch_sizes_checks():
    data = mt.tensor([1, 2, 3])
    msg = _message(AttributeError, lambda: rnn.PackedSequence(data, [2, 1]))
    assert msg == "'list' object has no attribute 'device'"
    msg = _message(ValueError, lambda: rnn.PackedSequence(data, mt.tensor([2, 1], device="meta")))
    assert msg == (
        "batch_sizes should always be on CPU. Instances of PackedSequence should never be "
        "created manually. They should be instantiated by functions like pack_sequence and "
        "pack_padded_sequences in nn.utils.rnn. "
        "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
    )
    p = rnn.PackedSequence(data, mt.tensor([2, 1]))
    assert p.sorted_indices is None and p.unsorted_indices is None
