"""Session 34 (helper combopt): torch-free regression tests of the library fixes the neural
combinatorial-optimisation programs of tests/reference/test_s34_combopt_reference.py found:
expand to a size below -1 on a size-1 dim (torch's numel overflow), masked_fill_ on an
expanded tensor with a mask that does not broadcast to it (torch's TensorIterator messages),
triu_indices/tril_indices called without row or col (torch's parser text), the legacy
constructors' errors naming new(), multinomial's silent resize of an out= of another shape,
gather's TypeError for a sparse_grad that is no bool, and nn.LSTM's error for packed input of
another feature size (its kernel's matmul message: torch's LSTM skips its input checks there).
torch's messages are written here as literals."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


OVERFLOW = "numel: integer multiplication overflow"


@pytest.mark.parametrize(
    "shape, sizes, want",
    [
        ((2, 2, 1), (-1, -1, -2), OVERFLOW),
        ((1,), (-2,), OVERFLOW),
        ((1, 1), (-2, -1), OVERFLOW),
        ((1, 1), (-2, -3), OVERFLOW),
        # a mismatch found later in the scan (further left) is reported, not the overflow
        (
            (3, 1),
            (2, -3),
            "The expanded size of the tensor (2) must match the existing size (3) at "
            "non-singleton dimension 0.  Target sizes: [2, -3].  Tensor sizes: [3, 1]",
        ),
        (
            (1, 3),
            (2, -2),
            "The expanded size of the tensor (-2) must match the existing size (3) at "
            "non-singleton dimension 1.  Target sizes: [2, -2].  Tensor sizes: [1, 3]",
        ),
        (
            (1, 3),
            (-1, 2, 3),
            "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
            "dimension 0",
        ),
    ],
)
def test_expand_negative_sizes(shape, sizes, want):
    assert _message(RuntimeError, lambda: mt.zeros(*shape).expand(*sizes)) == want


def test_expand_still_expands():
    x = mt.tensor([[1.0], [2.0]])
    out = x.expand(-1, 3)
    assert out.shape == (2, 3) and out.stride() == (1, 0)
    assert x.expand(4, 2, 3).shape == (4, 2, 3)
    assert mt.zeros(2, 1).expand(2, 0).shape == (2, 0)


def test_masked_fill_on_expanded_tensor_checks_the_mask_shape():
    def fill(mask):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mt.zeros(1, 3).expand(2, 3).masked_fill_(mask, 1.0)

    msg = _message(RuntimeError, lambda: fill(mt.ones(2, 2, dtype=mt.bool)))
    assert msg == (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    )
    msg = _message(RuntimeError, lambda: fill(mt.ones(2, 2, 3, dtype=mt.bool)))
    assert msg == "output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]"
    # a mask that broadcasts still writes (and warns, as torch)
    with pytest.warns(UserWarning, match="Use of masked_fill_ on expanded tensors"):
        out = mt.zeros(1, 3).expand(2, 3).masked_fill_(mt.tensor([True, False, True]), 1.0)
    assert out.tolist() == [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda: mt.triu_indices(), 'triu_indices() missing 2 required positional argument: '
                                    '"row", "col"'),
        (lambda: mt.tril_indices(3), 'tril_indices() missing 1 required positional arguments: '
                                     '"col"'),
        (lambda: mt.triu_indices(row=3), 'triu_indices() missing 1 required positional '
                                         'arguments: "col"'),
        (lambda: mt.tril_indices(col=3), 'tril_indices() missing 2 required positional '
                                         'argument: "row", "col"'),
        (lambda: mt.triu_indices(3, offset=1), 'triu_indices() missing 1 required positional '
                                               'arguments: "col"'),
        (lambda: mt.triu_indices(None, 3), "triu_indices(): argument 'row' (position 1) must "
                                           "be int, not NoneType"),
    ],
)  # fmt: skip
def test_triangle_indices_missing_arguments(call, want):
    assert _message(TypeError, call) == want


def test_triangle_indices_values():
    assert mt.triu_indices(3, 3, 1).tolist() == [[0, 0, 1], [1, 2, 2]]
    assert mt.tril_indices(col=2, row=2).tolist() == [[0, 1, 1], [0, 0, 1]]


@pytest.mark.parametrize(
    "call, want",
    [
        (
            lambda: mt.FloatTensor(2, 3.0),
            "new(): argument 'size' failed to unpack the object at pos 2 with error \"type "
            'must be tuple of ints,but got float"',
        ),
        (
            lambda: mt.LongTensor(2, None),
            "new(): argument 'size' failed to unpack the object at pos 2 with error \"type "
            'must be tuple of ints,but got NoneType"',
        ),
        (lambda: mt.FloatTensor(2.5), "new(): data must be a sequence (got float)"),
    ],
)
def test_legacy_constructors_name_new(call, want):
    assert _message(TypeError, call) == want


def test_legacy_constructor_invalid_combination_names_new():
    msg = _message(TypeError, lambda: mt.DoubleTensor(2, foo=1))
    assert msg.startswith("new() received an invalid combination of arguments - got (int, foo=int)")


def test_multinomial_resizes_out_silently():
    probs = mt.tensor([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]])
    out = mt.zeros(3, 5, dtype=mt.long)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mt.multinomial(probs, 2, generator=mt.Generator().manual_seed(0), out=out)
    assert got is out and out.shape == (2, 2)
    want = mt.multinomial(probs, 2, generator=mt.Generator().manual_seed(0))
    assert mt.equal(out, want)
    # a view keeps writing into its base's memory
    base = mt.zeros(6, dtype=mt.long)
    view = base[:3]
    mt.multinomial(probs, 2, generator=mt.Generator().manual_seed(0), out=view)
    assert base[:4].tolist() == want.flatten().tolist()


@pytest.mark.parametrize(
    "call, exc, want",
    [
        (
            lambda x, i: x.gather(1, i, sparse_grad=1),
            TypeError,
            "gather(): argument 'sparse_grad' must be bool, not int",
        ),
        (
            lambda x, i: mt.gather(x, 1, i, sparse_grad=None),
            TypeError,
            "gather(): argument 'sparse_grad' must be bool, not NoneType",
        ),
        # the parser's error comes before the kernel's check of the index values
        (
            lambda x, i: mt.gather(x, 1, i + 9, sparse_grad=0),
            TypeError,
            "gather(): argument 'sparse_grad' must be bool, not int",
        ),
        # and after the errors of the arguments before it
        (
            lambda x, i: mt.gather(x, 1.0, i, sparse_grad=0),
            TypeError,
            "gather(): argument 'dim' (position 2) must be int, not float",
        ),
    ],
)
def test_gather_sparse_grad_must_be_bool(call, exc, want):
    x = mt.arange(6.0).view(2, 3)
    i = mt.tensor([[2], [0]])
    assert _message(exc, lambda: call(x, i)) == want
    assert x.gather(1, i, sparse_grad=False).tolist() == [[2.0], [3.0]]


def test_packed_lstm_feature_size_is_refused_by_its_matmul():
    pack = mt.nn.utils.rnn.pack_sequence
    data = pack([mt.ones(4, 2), mt.ones(2, 2)])
    msg = _message(RuntimeError, lambda: mt.nn.LSTM(3, 5)(data))
    assert msg == "mat1 and mat2 shapes cannot be multiplied (6x2 and 3x20)"
    msg = _message(RuntimeError, lambda: mt.nn.LSTM(3, 5, proj_size=2, num_layers=2)(data))
    assert msg == "mat1 and mat2 shapes cannot be multiplied (6x2 and 3x20)"
    # a dtype mismatch is reported first, as torch's matmul does
    msg = _message(RuntimeError, lambda: mt.nn.LSTM(3, 5).double()(data))
    assert msg == "mat1 and mat2 must have the same dtype, but got Float and Double"
    # GRU (and RNN) check packed input like any other
    msg = _message(RuntimeError, lambda: mt.nn.GRU(3, 5)(data))
    assert msg == "input.size(-1) must be equal to input_size. Expected 3, got 2"
    # and unpacked LSTM input keeps its check
    msg = _message(RuntimeError, lambda: mt.nn.LSTM(3, 5)(mt.ones(4, 2, 2)))
    assert msg == "input.size(-1) must be equal to input_size. Expected 3, got 2"
    out, (h, c) = mt.nn.LSTM(2, 5)(data)
    assert out.data.shape == (6, 5) and h.shape == (1, 2, 5)
