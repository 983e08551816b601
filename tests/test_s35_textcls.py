"""Session 35 (helper textcls): torch-free regression tests of the library fixes the
text-classification programs of tests/reference/test_s35_textcls_reference.py found:
embedding_bag's argument TypeErrors (padding_idx at position 9, include_last_offset at 8) and
the order of its kernel checks (the offsets' values after the argument types and the tensors'
dtypes, before the per-sample weights' dtype); torch.embedding_bag's parser and mode errors;
pack_padded_sequence of a non-tensor input; cross_entropy's label smoothing of an unbatched
input with a (1,) target; PackedSequence's base class name. torch's messages are written here
as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional
rnn = mt.nn.utils.rnn


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _bag_inputs():
    w = mt.randn(5, 2, generator=mt.Generator().manual_seed(0))
    return mt.tensor([0, 1, 2, 4]), w


OFFSETS0 = (
    "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
    "position 0. However, got 1\n[ torch.LongTensor{} ]"
)


def test_embedding_bag_padding_idx_type_names_position_9():
    i, w = _bag_inputs()
    msg = _message(TypeError, lambda: F.embedding_bag(i, w, mt.tensor([0]), padding_idx=1.0))
    assert msg == "embedding_bag(): argument 'padding_idx' (position 9) must be int, not float"


@pytest.mark.parametrize("value, name", [(1, "int"), (None, "NoneType")])
def test_embedding_bag_include_last_offset_must_be_bool(value, name):
    i, w = _bag_inputs()
    msg = _message(
        TypeError, lambda: F.embedding_bag(i, w, mt.tensor([0, 4]), include_last_offset=value)
    )
    assert msg == (
        f"embedding_bag(): argument 'include_last_offset' (position 8) must be bool, not {name}"
    )


def test_embedding_bag_offsets_values_checked_after_types_and_dtypes():
    i, w = _bag_inputs()
    bad = mt.tensor([1, 2])
    msg = _message(TypeError, lambda: F.embedding_bag(i, w, bad, sparse=1))
    assert msg == "embedding_bag(): argument 'sparse' (position 6) must be bool, not int"
    msg = _message(RuntimeError, lambda: F.embedding_bag(i, w, bad, padding_idx=10))
    assert msg == "padding_idx must be within the number of embeddings, -5 through 4, but got 10"
    msg = _message(RuntimeError, lambda: F.embedding_bag(i, w.long(), bad))
    assert msg.startswith("Expected tensor for argument #1 'weight' to have one of the following")
    msg = _message(RuntimeError, lambda: F.embedding_bag(i, w, bad.float()))
    assert msg.startswith("Expected tensor for argument #1 'indices' to have one of the following")
    # ... and before the per-sample weights' dtype and the indices' range
    psw = mt.ones(4, dtype=mt.float16)
    msg = _message(
        RuntimeError, lambda: F.embedding_bag(i, w, bad, mode="sum", per_sample_weights=psw)
    )
    assert msg == OFFSETS0
    msg = _message(RuntimeError, lambda: F.embedding_bag(mt.tensor([0, 9]), w, bad))
    assert msg == OFFSETS0
    msg = _message(
        RuntimeError,
        lambda: F.embedding_bag(i, w, mt.tensor([0]), mode="sum", per_sample_weights=psw),
    )
    assert msg.startswith("Expected tensor for argument #1 'weight' to have the same type as")


def test_torch_embedding_bag_mode_and_offsets_errors():
    i, w = _bag_inputs()
    o = mt.tensor([0])
    for mode in (3, -1):
        msg = _message(RuntimeError, lambda mode=mode: mt.embedding_bag(w, i, o, False, mode))
        assert msg == "`mode` must be sum, mean, or max."
    for mode, name in (("sum", "str"), (1.0, "float"), (True, "bool")):
        msg = _message(TypeError, lambda mode=mode: mt.embedding_bag(w, i, o, False, mode))
        assert msg == f"embedding_bag(): argument 'mode' (position 5) must be int, not {name}"
    msg = _message(TypeError, lambda: mt.embedding_bag(w, i.view(2, 2), None))
    assert msg == "embedding_bag(): argument 'offsets' (position 3) must be Tensor, not NoneType"
    for mode in (1, 2, 5):
        msg = _message(
            RuntimeError, lambda mode=mode: mt.embedding_bag(w, i, o, False, mode, False, w[:4, 0])
        )
        assert msg == "embedding_bag: per_sample_weights only supported with mode='sum'"
    out, _, _, _ = mt.embedding_bag(w, i, o, False, 1)
    assert out.shape == (1, 2)


def test_pack_padded_sequence_of_a_non_tensor():
    msg = _message(TypeError, lambda: rnn.pack_padded_sequence([[1.0], [2.0]], [1, 1]))
    assert msg == "_pack_padded_sequence(): argument 'input' (position 1) must be Tensor, not list"
    msg = _message(TypeError, lambda: rnn.pack_padded_sequence(None, mt.tensor([1]), True))
    assert msg.endswith("must be Tensor, not NoneType")
    msg = _message(AttributeError, lambda: rnn.pack_padded_sequence([[1.0]], [1], False, False))
    assert msg == "'list' object has no attribute 'device'"
    # the lengths are converted first
    with pytest.raises((TypeError, ValueError, RuntimeError)) as info:
        rnn.pack_padded_sequence([[1.0]], "a")
    assert "_pack_padded_sequence" not in str(info.value)


def test_cross_entropy_label_smoothing_of_an_unbatched_input_with_a_1_target():
    logits = mt.randn(3, generator=mt.Generator().manual_seed(1))
    t = mt.tensor([2])
    plain = F.cross_entropy(logits, t)  # taken without smoothing
    assert plain.shape == ()
    for red in ("mean", "sum", "none"):
        msg = _message(
            RuntimeError,
            lambda red=red: F.cross_entropy(logits, t, label_smoothing=0.1, reduction=red),
        )
        assert msg == "output with shape [] doesn't match the broadcast shape [1]"
    msg = _message(
        RuntimeError,
        lambda: F.cross_entropy(logits, mt.tensor([-100]), weight=mt.ones(3), label_smoothing=0.2),
    )
    assert msg == "output with shape [] doesn't match the broadcast shape [1]"
    # a 0-d target is the unbatched form: smoothed
    smooth = F.cross_entropy(logits, t[0], label_smoothing=0.1)
    want = 0.9 * plain - 0.1 * mt.log_softmax(logits, 0).mean()
    assert abs(float(smooth) - float(want)) < 1e-6


def test_packed_sequence_base_is_torchs_namedtuple_name():
    p = rnn.pack_sequence([mt.ones(2), mt.ones(1)])
    assert [c.__name__ for c in type(p).__mro__[:3]] == [
        "PackedSequence",
        "PackedSequence_",
        "tuple",
    ]
    assert rnn.PackedSequence_ is type(p).__mro__[1]
    assert rnn.PackedSequence_._fields == (
        "data",
        "batch_sizes",
        "sorted_indices",
        "unsorted_indices",
    )
