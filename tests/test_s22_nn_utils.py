"""Session-22 differential fuzzing of nn.utils: the inf norm of an empty gradient, the checks
of pack_padded_sequence (their order and wording), the graph and layout pad_packed_sequence
returns, unpad_sequence's lengths. Expected values are torch 2.13's, obtained by running it."""

import math

import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.utils import rnn

_FOREACH_INF = (
    "_foreach_norm cannot compute the infinity norm on an empty tensor because the operation "
    "does not have an identity"
)


def _raises(exc, msg, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert str(info.value) == msg


def _param_with_grad(grad):
    p = torch.zeros(grad.shape, requires_grad=True)
    p.grad = grad
    return p


def test_inf_norm_of_an_empty_gradient_words_the_error_as_torch():
    # torch uses its fused per-list norm unless foreach=False, and only for +inf
    empty, full = torch.zeros(0), torch.ones(2)
    for foreach in (None, True):
        _raises(
            RuntimeError, _FOREACH_INF, torch.nn.utils.get_total_norm, [full, empty],
            math.inf, foreach=foreach,
        )  # fmt: skip
        params = [_param_with_grad(empty)]
        _raises(
            RuntimeError, _FOREACH_INF, torch.nn.utils.clip_grad_norm_, params, 1.0, "inf",
            foreach=foreach,
        )  # fmt: skip
    tail = " norm on an empty tensor because the operation does not have an identity"
    _raises(
        RuntimeError, "linalg.vector_norm cannot compute the inf" + tail,
        torch.nn.utils.get_total_norm, [empty], math.inf, foreach=False,
    )  # fmt: skip
    _raises(
        RuntimeError, "linalg.vector_norm cannot compute the -inf" + tail,
        torch.nn.utils.get_total_norm, [empty], -math.inf,
    )  # fmt: skip


def test_pack_padded_sequence_checks_in_torchs_order():
    # an empty input is refused before the lengths are looked at
    _raises(RuntimeError, "Cannot pack empty tensors.", rnn.pack_padded_sequence,
            torch.zeros(0, 2), [1, 1])  # fmt: skip
    _raises(RuntimeError, "Cannot pack empty tensors.", rnn.pack_padded_sequence,
            torch.zeros(3, 2, 0), [[1, 1]])  # fmt: skip
    # with enforce_sorted, a last length <= 0 is reported before the order
    _raises(
        RuntimeError,
        "Length of all samples has to be greater than 0, but found an element in 'lengths' "
        "that is <= 0",
        rnn.pack_padded_sequence, torch.zeros(5, 4), [2, 5, 2, 0],
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn.pack_padded_sequence(torch.zeros(3, 3), [2, 0, 1])
    _raises(
        IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        rnn.pack_padded_sequence, torch.zeros(3), [2, 1, 1],
    )  # fmt: skip


def test_pad_packed_sequence_graph_layout_and_values():
    x = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).t().reshape(4, 3, 1)
    x.requires_grad_()
    packed = rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
    out, lengths = rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-1.0)
    # torch: a CopySlices buffer, transposed, then one index_select: contiguous
    assert type(out.grad_fn).__name__ == "IndexSelectBackward0"
    assert out.is_contiguous()
    assert out.squeeze(-1).tolist() == [
        [0.0, 1.0, -1.0, -1.0], [4.0, 5.0, 6.0, 7.0], [8.0, -1.0, -1.0, -1.0],
    ]  # fmt: skip
    assert lengths.tolist() == [2, 4, 1]
    w = torch.arange(1.0, 13.0, dtype=torch.float64).reshape(3, 4, 1)
    (out * w).sum().backward()
    expected = [[1.0, 5.0, 9.0], [2.0, 6.0, 0.0], [0.0, 7.0, 0.0], [0.0, 8.0, 0.0]]
    assert x.grad.squeeze(-1).tolist() == expected
    out, _ = rnn.pad_packed_sequence(packed, total_length=5)
    assert out.squeeze(-1).tolist() == [
        [0.0, 4.0, 8.0], [1.0, 5.0, 0.0], [0.0, 6.0, 0.0], [0.0, 7.0, 0.0], [0.0, 0.0, 0.0],
    ]  # fmt: skip

    sorted_packed = rnn.pack_padded_sequence(x, [4, 2, 1])
    out, _ = rnn.pad_packed_sequence(sorted_packed)
    assert type(out.grad_fn).__name__ == "CopySlices"
    assert out.stride() == (3, 1, 1)
    out, _ = rnn.pad_packed_sequence(sorted_packed, batch_first=True)
    assert type(out.grad_fn).__name__ == "TransposeBackward0"
    assert not out.is_contiguous()


def test_pad_packed_sequence_gradients_float64():
    torch.manual_seed(0)
    x = torch.randn(4, 3, 2, dtype=torch.float64, requires_grad=True)

    def fn(x):
        packed = rnn.pack_padded_sequence(x, [3, 4, 1], enforce_sorted=False)
        return rnn.pad_packed_sequence(packed, batch_first=True, padding_value=0.5)[0]

    assert type(fn(x).grad_fn).__name__ == "IndexSelectBackward0"
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_unpad_sequence_wants_a_lengths_tensor():
    padded = torch.zeros(3, 2)
    _raises(AttributeError, "'list' object has no attribute 'device'", rnn.unpad_sequence,
            padded, [3, 1])  # fmt: skip
    _raises(AttributeError, "'tuple' object has no attribute 'device'", rnn.unpad_sequence,
            padded, (3, 1))  # fmt: skip
    parts = rnn.unpad_sequence(padded, torch.tensor([3, 1]))
    assert [tuple(p.shape) for p in parts] == [(3,), (1,)]


def test_pad_packed_sequence_total_length_must_be_an_int():
    packed = rnn.pack_sequence([torch.ones(2), torch.ones(1)])
    msg = "_pad_packed_sequence(): argument 'total_length' (position 5) must be int, not {}"
    _raises(TypeError, msg.format("float"), rnn.pad_packed_sequence, packed, total_length=2.0)
    _raises(
        TypeError, msg.format("Tensor"), rnn.pad_packed_sequence, packed,
        total_length=torch.tensor(3.0),
    )  # fmt: skip
    # too short is checked first, whatever the type
    with pytest.raises(ValueError, match="but got total_length=1.0 and max sequence length"):
        rnn.pad_packed_sequence(packed, total_length=1.0)
    out, _ = rnn.pad_packed_sequence(packed, total_length=torch.tensor(3))
    assert tuple(out.shape) == (3, 2)


def test_packed_sequence_to_refuses_a_copy_argument_when_it_converts():
    packed = rnn.pack_sequence([torch.ones(2), torch.ones(1)], enforce_sorted=False)
    msg = ".to() does not accept copy argument"
    _raises(RuntimeError, msg, packed.to, torch.float64, copy=False)
    _raises(RuntimeError, msg, packed.to, "cpu", torch.float64, False, False)
    _raises(RuntimeError, msg, packed.to, torch.float32, False, True)  # copy=True converts
    assert packed.to(torch.float32, copy=False) is packed  # nothing to convert: no check
    converted = packed.to(torch.zeros(1, dtype=torch.float64), False)
    assert converted.data.dtype == torch.float64
    assert converted.unsorted_indices.tolist() == [0, 1]
