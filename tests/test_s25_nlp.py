"""Session 25 (NLP programs): torch's behaviour where NLP code met a difference: the nested-tensor
warning of TransformerEncoder's padded fast path, pack_padded_sequence's error for a matrix of
lengths when unsorted, MultiheadAttention's error for keys of the wrong width, embedding_bag's
offsets[0] message, PackedSequence built from a lone tensor. Expected values are torch 2.13's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from minitorch import _settings, nn

NESTED = (
    "The PyTorch API of nested tensors is in prototype stage and will change in the near "
    "future. We recommend specifying layout=torch.jagged when constructing a nested tensor, as "
    "this layout receives active development, has better operator coverage, and works with "
    "torch.compile."
)


def _forget_nested_warning(monkeypatch):
    """The warning comes once per process: forget that it came (as a fresh process)."""
    monkeypatch.setattr(_settings, "_warned_once", _settings._warned_once - {"nested_tensor"})


def _encoder_calls(monkeypatch):
    _forget_nested_warning(monkeypatch)
    minitorch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2).eval()
    x = minitorch.randn(2, 5, 8)
    kpm = minitorch.tensor([[False, False, False, True, True], [False] * 5])
    caught = []
    outs = []
    for _ in range(2):
        with warnings.catch_warnings(record=True) as w, minitorch.no_grad():
            warnings.simplefilter("always")
            outs.append(enc(x, src_key_padding_mask=kpm))
        caught.append([(c.category, str(c.message)) for c in w])
    return caught, outs


def test_nested_tensor_path_warns_once_per_process(monkeypatch):
    caught, outs = _encoder_calls(monkeypatch)
    assert caught[0] == [(UserWarning, NESTED)]
    assert caught[1] == []  # torch's TORCH_WARN_ONCE
    np.testing.assert_array_equal(outs[0][0, 3:].numpy(), np.zeros((2, 8), np.float32))


def test_nested_tensor_warning_not_given_off_the_path(monkeypatch):
    _forget_nested_warning(monkeypatch)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 1)
    x = minitorch.randn(2, 5, 8)
    kpm = minitorch.tensor([[False, False, False, True, True], [False] * 5])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        enc(x, src_key_padding_mask=kpm)  # training mode: no nested tensor
        enc.eval()
        enc(x, src_key_padding_mask=kpm)  # gradients enabled: no nested tensor
    assert [str(c.message) for c in w] == []


@pytest.mark.parametrize("lengths", [[[3, 5]], minitorch.tensor([[5], [3]])])
def test_pack_padded_sequence_matrix_of_lengths(lengths):
    x = minitorch.randn(2, 5, 4)
    pack = nn.utils.rnn.pack_padded_sequence
    with pytest.raises(IndexError, match=r"^index_select\(\): Index is supposed to be a vector$"):
        pack(x, lengths, batch_first=True, enforce_sorted=False)
    msg = "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"
    with pytest.raises(RuntimeError) as e:
        pack(x, lengths, batch_first=True, enforce_sorted=True)
    assert str(e.value) == msg
    with pytest.raises(RuntimeError) as e:  # a 0-d tensor sorts, then the same check refuses it
        pack(x, minitorch.tensor(5), batch_first=True, enforce_sorted=False)
    assert str(e.value) == msg.replace("2D", "0D")


def test_multihead_attention_keys_of_wrong_width():
    minitorch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    q = minitorch.randn(2, 4, 8)
    kv = minitorch.randn(2, 4, 6)
    with pytest.raises(RuntimeError) as e:
        mha(q, kv, minitorch.randn(2, 4, 6))
    assert str(e.value) == "mat1 and mat2 shapes cannot be multiplied (8x6 and 8x8)"
    with pytest.raises(RuntimeError) as e:  # key is value: torch projects both at once
        mha(q, kv, kv)
    assert str(e.value) == "mat1 and mat2 shapes cannot be multiplied (8x6 and 8x16)"


@pytest.mark.parametrize(
    "input_dt, offsets_dt, name",
    [("int32", "int32", "Int"), ("int64", "int32", "Long"), ("int64", "int64", "Long")],
)
def test_embedding_bag_first_offset_message(input_dt, offsets_dt, name):
    ids = minitorch.tensor([1, 2], dtype=getattr(minitorch, input_dt))
    offsets = minitorch.tensor([1, 0], dtype=getattr(minitorch, offsets_dt))
    with pytest.raises(RuntimeError) as e:
        nn.functional.embedding_bag(ids, minitorch.randn(5, 2), offsets)
    assert str(e.value) == (
        "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
        f"position 0. However, got 1\n[ torch.{name}Tensor{{}} ]"
    )


def test_packed_sequence_from_a_lone_tensor():
    data = minitorch.randn(6, 3)
    with pytest.raises(AssertionError, match="^Expected data to be a list or tuple of length 2$"):
        nn.utils.rnn.PackedSequence(data)
    with pytest.raises(AssertionError, match="^Expected data to be a list or tuple of length 2$"):
        nn.utils.rnn.PackedSequence((data,))
    pk = nn.utils.rnn.PackedSequence((data, minitorch.tensor([3, 2, 1])))
    assert pk.batch_sizes.tolist() == [3, 2, 1]
