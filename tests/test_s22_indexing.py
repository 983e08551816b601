"""Indexing, setitem, index_put_, gather/scatter and take_along_dim edges found by differential
fuzzing against torch 2.13 (session 22). Expected values and messages were obtained by running
torch; the tests do not import it."""

import warnings

import pytest

import minitorch as torch


def _raises(exc, msg, fn):
    with pytest.raises(exc) as e:
        fn()
    assert str(e.value) == msg


def _shape(t):
    return tuple(t.shape)


# --- getitem: the order of torch's checks and its wording ---


def test_getitem_counts_dims_before_index_dtype():
    too_many = "too many indices for tensor of dimension 1"
    i8 = torch.tensor([], dtype=torch.int8)
    _raises(IndexError, too_many, lambda: torch.zeros(5)[2, 1:, torch.tensor(0), i8])
    oob = "index -6 is out of bounds for dimension 0 with size 3"
    _raises(IndexError, oob, lambda: torch.zeros(3, 0)[-6, ..., i8])
    bad = "tensors used as indices must be long, int, byte or bool tensors"
    i8 = torch.tensor([1], dtype=torch.int8)
    _raises(IndexError, bad, lambda: torch.zeros(3, 2)[0, i8])


def test_getitem_out_of_range_int_names_its_position_in_the_key():
    x = torch.arange(24.0).reshape(2, 3, 4)
    msg = "index 9 is out of bounds for dimension {} with size {}"
    _raises(IndexError, msg.format(1, 4), lambda: x[..., 9])
    _raises(IndexError, msg.format(2, 3), lambda: x[0, None, 9])
    _raises(IndexError, msg.format(2, 3), lambda: x[None, 0, torch.tensor(9)])


def test_getitem_zero_dim_messages():
    y = torch.tensor(2.0)
    _raises(IndexError, "index -1 is out of bounds for dimension 0 with size 0", lambda: y[-1])
    _raises(IndexError, "index 1 is out of bounds for dimension 0 with size 0", lambda: y[1])
    too_many = "too many indices for tensor of dimension 0"
    _raises(IndexError, too_many, lambda: y[(0,)])
    _raises(IndexError, too_many, lambda: y[torch.tensor([0])])  # was "tuple index out of range"
    _raises(IndexError, too_many, lambda: y[torch.tensor(0)])


def test_getitem_names_the_first_mask_that_does_not_fit():
    m = torch.tensor([True] * 5)
    msg = (
        "The shape of the mask [5] at index 0 does not match the shape of the indexed tensor "
        "[4, 3, 1] at index 0"
    )
    _raises(IndexError, msg, lambda: torch.zeros(4, 3, 1)[m, m])


def test_getitem_broadcasts_index_tensors_before_checking_bounds():
    msg = "shape mismatch: indexing tensors could not be broadcast together with shapes [3], [1, 2]"
    _raises(IndexError, msg, lambda: torch.zeros(3, 2)[[7, 0, 1], [[0, 1]]])


def test_getitem_empty_result_reads_no_index_value():
    # torch's kernel checks index values and does not run for an empty result
    assert _shape(torch.zeros(4, 0)[[5]]) == (1, 0)
    assert _shape(torch.zeros(4, 0)[torch.tensor([5])]) == (1, 0)
    assert _shape(torch.zeros(3, 2)[[5], []]) == (0,)
    assert _shape(torch.zeros(0, 3)[:, [5]]) == (0, 1)
    x = torch.zeros(4, 0)
    v = x._version
    x[[5]] = 1.0
    assert _shape(x) == (4, 0) and x._version == v + 1


def test_getitem_index_into_a_size_zero_dim():
    msg = "index is out of bounds for dimension with size 0"
    _raises(IndexError, msg, lambda: torch.zeros(0, 3)[[0]])
    _raises(IndexError, msg, lambda: torch.zeros(0, 3)[torch.tensor([0])])
    _raises(IndexError, msg, lambda: torch.zeros(3, 0)[:, [0]])


# --- setitem ---


def test_setitem_true_is_a_cast_copy_and_false_does_nothing():
    x = torch.zeros(2, 3, dtype=torch.int64)
    x[True] = torch.tensor([0.5, 1.5, 2.5])  # was "Index put requires ... dtypes match"
    assert x.tolist() == [[0, 1, 2], [0, 1, 2]]
    a = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    z = a * 1
    v = torch.ones(7, dtype=torch.float64, requires_grad=True)
    ver = z._version
    z[False] = v  # no shape check, no version bump, no graph
    assert z._version == ver and z.grad_fn.name() == "MulBackward0"
    z.sum().backward()
    assert v.grad is None


def test_setitem_converts_the_value_before_reading_the_key():
    x = torch.zeros(3, dtype=torch.int32)
    msg = "value cannot be converted to type int without overflow"
    _raises(RuntimeError, msg, lambda: x.__setitem__([0, 1, 5], 1e10))


def test_setitem_checks_value_shape_before_dtype_and_drops_leading_ones():
    x = torch.zeros(2, 3, dtype=torch.int64)
    msg = (
        "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of "
        "shape [2, 3, 1]"
    )
    _raises(RuntimeError, msg, lambda: x.__setitem__((..., True), torch.ones(3)))
    msg = (
        "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result of "
        "shape [1, 3]"
    )
    _raises(RuntimeError, msg, lambda: torch.zeros(2, 3).__setitem__([0], torch.ones(1, 1, 4)))
    msg = (
        "The expanded size of the tensor (5) must match the existing size (6) at non-singleton "
        "dimension 1.  Target sizes: [0, 5].  Tensor sizes: [6]"
    )
    _raises(RuntimeError, msg, lambda: torch.zeros(3, 5).__setitem__(slice(1, 0), torch.ones(1, 6)))


def test_setitem_one_mask_beside_selects_is_a_masked_fill():
    x = torch.zeros(2, 5, dtype=torch.bool)
    x[-2, [False, True, False, True, True]] = torch.tensor(1)  # cast, as masked_fill_
    assert x.tolist() == [[False, True, False, True, True], [False] * 5]
    x = torch.zeros(3, 1, 1)
    u8 = torch.tensor([False], dtype=torch.uint8)
    msg = "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        key = (torch.tensor(1), torch.tensor(0), u8)
        _raises(RuntimeError, msg, lambda: x.__setitem__(key, torch.tensor([1.0])))
    # a 0-d bool tensor is an index there, not a mask: no cast
    msg = (
        "Index put requires the source and destination dtypes match, got Float for the "
        "destination and Long for the source."
    )
    _raises(
        RuntimeError,
        msg,
        lambda: torch.zeros(3).__setitem__(torch.tensor(True), torch.tensor([[1]])),
    )


# --- index_put_ ---


def test_index_put_refuses_none_and_numbers_in_indices():
    x = torch.zeros(2, 3)
    one = torch.tensor(1.0)
    msg = "expected Tensor as element 0 in argument 0, but got NoneType"
    _raises(TypeError, msg, lambda: x.index_put_((None, torch.tensor([0])), one))
    msg = "expected Tensor as element 1 in argument 0, but got int"
    _raises(TypeError, msg, lambda: x.index_put_([torch.tensor([0]), 1], one))


def test_index_put_messages():
    x = torch.zeros(2, 3, dtype=torch.int64)
    msg = "too many indices for tensor of dimension 2 (got 3)"
    _raises(IndexError, msg, lambda: x.index_put_((torch.tensor([0]),) * 3, torch.tensor(1)))
    msg = (
        "shape mismatch: value tensor of shape [7] cannot be broadcast to indexing result of "
        "shape [1, 3]"
    )
    _raises(RuntimeError, msg, lambda: x.index_put_((torch.tensor([0]),), torch.ones(7)))


# --- take_along_dim, gather, scatter ---


def test_take_along_dim_broadcasts_size_zero_and_one():
    out = torch.take_along_dim(torch.zeros(1, 4, 0), torch.zeros(0, 3, 1, dtype=torch.long), 1)
    assert _shape(out) == (0, 3, 0)
    out = torch.take_along_dim(torch.tensor([[1.0, 2.0]]), torch.zeros(3, 1, dtype=torch.long), 1)
    assert out.tolist() == [[1.0], [1.0], [1.0]]
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    msg = (
        "The size of tensor a (2) must match the size of tensor b (0) at non-singleton dimension 1"
    )
    _raises(
        RuntimeError, msg, lambda: torch.take_along_dim(x, torch.zeros(1, 0, dtype=torch.long), 0)
    )
    msg = (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    )
    idx = torch.zeros(2, 2, 5, dtype=torch.long)
    _raises(RuntimeError, msg, lambda: torch.take_along_dim(torch.zeros(3, 3, 4), idx, 2))


def test_scatter_family_index_checks():
    x = torch.zeros(3, 3)
    i16 = torch.tensor([[0]], dtype=torch.int16)
    src = torch.ones(1, 1)
    msg = "scatter(): Expected dtype int32/int64 for index"
    _raises(RuntimeError, msg, lambda: x.scatter_add(0, i16, src))
    _raises(RuntimeError, msg, lambda: x.scatter_reduce(0, i16, src, "amax"))
    msg = "Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    _raises(IndexError, msg, lambda: x.scatter_add(5, i16, src))
    _raises(IndexError, msg, lambda: x.gather(5, i16))
