"""Session 38 (helper indexfuzz): torch-free regression tests of the library fixes the seeded
indexing sweep of tests/reference/test_s38_indexfuzz_reference.py found: which full slices torch
skips in x[key] = v (a written start of 0, a step of 1, a stop of n or more: x[-n:] = v goes
through a view) and its fill_ of a number or a 0-d CPU value (FillBackward3); a NumPy bool
scalar refused as an index; ints of a key past int64 ("Overflow when unpacking long long");
out-of-range index tensors reported element by element; index_put's argument number in its
function's TypeError; index_select's RuntimeError for an out-of-range index into an empty
input; the order of the checks of take_along_dim, index_select, index_add, index_reduce and
put_; index_fill's setStorage error on an empty dim; fill_ reading an overlapping value first
and refusing a tensor value on an expanded self. torch's messages are written here as
literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _rand(seed, *shape):
    return mt.randn(shape, generator=mt.Generator().manual_seed(seed), dtype=mt.float64)


# --- x[key] = v: skipped slices and fills ---


@pytest.mark.parametrize(
    "s, node",
    [
        (slice(None), "IndexPutBackward0"),
        (slice(0, None), "IndexPutBackward0"),
        (slice(0, 10), "IndexPutBackward0"),
        (slice(None, 3, 1), "IndexPutBackward0"),
        (slice(-3, None), "CopySlices"),
        (slice(-4, None), "CopySlices"),
        (slice(-10, 3), "CopySlices"),
    ],
)
def test_setitem_skips_only_a_slice_written_whole(s, node):
    x = _rand(1, 3, 3).requires_grad_(True)
    y = x * 1
    y[mt.tensor([True, False, True]), s] = 2.0
    assert type(y.grad_fn).__name__ == node
    z = x * 1
    z[s, mt.tensor([0])] = 2.0
    assert type(z.grad_fn).__name__ == node
    w = x * 1
    w[s] = 2.0
    assert type(w.grad_fn).__name__ == ("FillBackward3" if node != "CopySlices" else node)
    g = _rand(2, 3, 3)
    (y * g).sum().backward()
    want = g.clone()
    want[[0, 2]] = 0.0
    np.testing.assert_allclose(x.grad.numpy(), want.numpy(), rtol=0, atol=0)


def test_setitem_fills_from_a_number_or_a_0d_cpu_value():
    x = mt.zeros(3, requires_grad=True)
    for value, node in [
        (1.0, "FillBackward3"),
        (mt.tensor(2.0), "FillBackward3"),
        (mt.tensor([2.0]), "CopyBackwards"),
        (mt.ones(3), "CopyBackwards"),
    ]:
        y = x * 1
        y[...] = value
        assert type(y.grad_fn).__name__ == node, value
    x0 = mt.zeros((), requires_grad=True)
    y0 = x0 * 1
    y0[...] = 1.0  # equal sizes: a copy
    assert type(y0.grad_fn).__name__ == "CopyBackwards"
    v = mt.tensor(2.0, dtype=mt.float64, requires_grad=True)
    z = mt.zeros(4, dtype=mt.float64)
    z[:] = v
    assert type(z.grad_fn).__name__ == "FillBackward3"
    (z * mt.arange(4.0, dtype=mt.float64)).sum().backward()
    assert v.grad.item() == 6.0
    assert z.tolist() == [2.0] * 4


# --- keys ---


_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
    "valid indices (got numpy.bool)"
)


@pytest.mark.parametrize("key", [np.bool_(True), (0, np.bool_(False)), (np.bool_(True), 0)])
def test_numpy_bool_scalar_key_is_refused(key):
    x = mt.zeros(4, 5)
    assert _message(IndexError, lambda: x[key]) == _VALID

    def write():
        x[key] = 1.0

    assert _message(IndexError, write) == _VALID
    assert x.sum().item() == 0.0


def test_numpy_0d_bool_array_key_still_indexes():
    x = mt.arange(6.0).reshape(2, 3)
    assert x[np.array(True)].shape == (1, 2, 3)
    assert x[np.array(False), 0].shape == (0, 3)


@pytest.mark.parametrize(
    "key",
    [2**63, -(2**63) - 1, (0, 2**63), (2**63, "a"), [2**63], [2**63, -1], [[2**64]],
     (mt.tensor([0]), 2**63), (2**63, mt.tensor([0.5])), (slice(None), None, 2**63)],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore:Using a non-tuple sequence")
def test_ints_past_int64_in_a_key_overflow(key):
    x = mt.zeros(3, 4)
    assert _message(ValueError, lambda: x[key]) == "Overflow when unpacking long long"

    def write():
        x[key] = 1.0

    assert _message(ValueError, write) == "Overflow when unpacking long long"


def test_int64_bounds_and_order_of_key_errors():
    x = mt.zeros(3, 4)
    msg = _message(IndexError, lambda: x[2**63 - 1])
    assert msg == "index 9223372036854775807 is out of bounds for dimension 0 with size 3"
    msg = _message(IndexError, lambda: x[-(2**63)])
    assert msg == "index -9223372036854775808 is out of bounds for dimension 0 with size 3"
    assert _message(IndexError, lambda: x[2**63, 0, 0]) == (
        "too many indices for tensor of dimension 2"
    )
    assert _message(TypeError, lambda: x["a", 2**63]) == "new(): invalid data type 'str'"
    assert x[[0.5, 1]].shape == (2, 4)  # (floats in a list are truncated, as torch)


def test_index_put_function_counts_input_as_argument_0():
    x = mt.zeros(4, 5, 3)
    i = mt.tensor([0])
    fn = "expected Tensor as element 0 in argument 1, but got NoneType"
    method = "expected Tensor as element 0 in argument 0, but got NoneType"
    assert _message(TypeError, lambda: mt.index_put(x, (None, i), mt.tensor(1.0))) == fn
    assert _message(TypeError, lambda: mt.index_put_(x, (None, i), mt.tensor(1.0))) == fn
    assert _message(TypeError, lambda: x.index_put((None, i), mt.tensor(1.0))) == method
    assert _message(TypeError, lambda: x.index_put_([None], mt.tensor(1.0))) == method
    assert _message(TypeError, lambda: x.index_put_((i, 1), mt.tensor(1.0))) == (
        "expected Tensor as element 1 in argument 0, but got int"
    )


# --- the functional ops ---


@pytest.mark.parametrize(
    "shape, dim, idx, value, size",
    [
        ((3, 0, 2), -1, [5], 5, 2),
        ((0, 1, 4, 1), -1, [0, -1, 0], -1, 1),
        ((2, 0), 0, [3], 3, 2),
        ((0, 3), 1, [5], 5, 3),
    ],
)
def test_index_select_out_of_range_on_an_empty_input(shape, dim, idx, value, size):
    msg = _message(RuntimeError, lambda: mt.index_select(mt.zeros(shape), dim, mt.tensor(idx)))
    assert msg == f"INDICES element is out of DATA bounds, id={value} axis_dim={size}"
    # a 1-d input and non-empty inputs along other dims than 1 keep the IndexError
    for x, d in [(mt.zeros(0), 0), (mt.zeros(3), 0), (mt.zeros(2, 3, 4), 2)]:
        msg = _message(IndexError, lambda x=x, d=d: mt.index_select(x, d, mt.tensor([7])))
        assert msg == "index out of range in self"


def test_take_along_dim_checks_dim_type_ranks_dtype_then_range():
    x = mt.zeros(3, 4)
    i16 = mt.zeros(3, 1, dtype=mt.int16)
    rank = (
        "torch.take_along_dim(): input and indices should have the same number of dimensions, "
        "but got 2 dimensions for input, and 1 dimensions for indices"
    )
    short = "torch.take_along_dim(): dtype of indices should be Long but got Short"
    assert (
        _message(RuntimeError, lambda: mt.take_along_dim(x, mt.zeros(3, dtype=mt.int16), 5)) == rank
    )
    assert _message(RuntimeError, lambda: mt.take_along_dim(x, i16, 5)) == short
    assert _message(IndexError, lambda: mt.take_along_dim(x, i16.long(), 5)) == (
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    )
    assert _message(TypeError, lambda: mt.take_along_dim(x, i16, "a")) == (
        "take_along_dim(): argument 'dim' (position 3) must be int, not str"
    )
    assert _message(TypeError, lambda: x.take_along_dim(mt.zeros(3, dtype=mt.int32), 1.0)) == (
        "take_along_dim(): argument 'dim' (position 2) must be int, not float"
    )
    assert _message(
        RuntimeError, lambda: mt.take_along_dim(mt.tensor(1.0), mt.zeros(1).long(), 1)
    ) == (
        "torch.take_along_dim(): input and indices should have the same number of dimensions, "
        "but got 0 dimensions for input, and 1 dimensions for indices"
    )


@pytest.mark.parametrize(
    "dtype, name", [(mt.int16, "Short"), (mt.float32, "Float"), (mt.bool, "Bool")]
)
def test_index_rank_is_checked_before_its_dtype(dtype, name):
    x = mt.zeros(3, 4)
    idx = mt.zeros(2, 1, dtype=dtype)
    assert _message(IndexError, lambda: mt.index_select(x, 0, idx)) == (
        "index_select(): Index is supposed to be a vector"
    )
    assert _message(IndexError, lambda: x.index_add(0, idx, mt.ones(2, 4))) == (
        f"index_add_(): Index is supposed to be a vector, but got dim: 2 with type: {name} "
        "and size: [2, 1]"
    )
    assert _message(RuntimeError, lambda: mt.index_select(x, 0, idx[:, 0])) == (
        "index_select(): Expected dtype int32 or int64 for index"
    )
    assert _message(RuntimeError, lambda: x.index_add(0, idx[:, 0], mt.ones(2, 4))) == (
        f"index_add_(): Expected dtype int32/int64 for index but got: {name}"
    )
    # index_reduce wraps dim against the input before it looks at the index
    assert _message(IndexError, lambda: x.index_reduce(5, idx, mt.ones(2, 4), "prod")) == (
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    )


def test_put_checks_the_numbers_of_elements_before_an_empty_self():
    x = mt.zeros(0)
    assert _message(IndexError, lambda: x.put_(mt.tensor([0, 1]), mt.ones(0))) == (
        "put_(): Expected source and index to have the same number of elements, but got "
        "source.numel() = 0, index.numel() = 2"
    )
    assert _message(
        RuntimeError, lambda: x.put_(mt.tensor([0, 1]), mt.ones(0, dtype=mt.float64))
    ) == (
        "put_(): self and source expected to have the same dtype, but got self.dtype = Float "
        "and source.dtype = Double"
    )
    assert _message(IndexError, lambda: x.put_(mt.tensor([0, 1]), mt.ones(2))) == (
        "put_(): Tried to put elements into an empty tensor"
    )
    assert _message(IndexError, lambda: mt.zeros(3).put_(mt.tensor([20, 1]), mt.ones(3))) == (
        "put_(): Expected source and index to have the same number of elements, but got "
        "source.numel() = 3, index.numel() = 2"
    )
    assert _message(
        RuntimeError, lambda: mt.zeros(3).put_(mt.tensor([0], dtype=mt.int32), mt.ones(3))
    ) == ("put_(): Expected a long tensor for index, but got Int")


@pytest.mark.parametrize(
    "shape, dim, idx, dtype, sizes, strides, item, need",
    [
        ((0,), 0, [0], mt.float64, [1], [0], 8, 8),
        ((0, 3), 0, [1, 2, 0], mt.int16, [3, 3], [0, 1], 2, 6),
        ((3, 0), 1, [1, 2], mt.float64, [3, 2], [1, 0], 8, 24),
        ((2, 0, 3), 1, [0], mt.float64, [2, 1, 3], [3, 0, 1], 8, 48),
        ((0, 3), 0, 5, mt.float32, [1, 3], [0, 1], 4, 12),
    ],
)
def test_index_fill_of_an_empty_dim(shape, dim, idx, dtype, sizes, strides, item, need):
    x = mt.zeros(shape, dtype=dtype)
    assert _message(RuntimeError, lambda: x.index_fill(dim, mt.tensor(idx), 1)) == (
        f"setStorage: sizes {sizes}, strides {strides}, storage offset 0, and itemsize {item} "
        f"requiring a storage size of {need} are out of bounds for storage of size 0"
    )


# --- fill_ (which x[...] = one value runs) ---


def test_fill_reads_an_overlapping_0d_value_first():
    x0 = mt.arange(3.0, dtype=mt.float64, requires_grad=True)
    x = x0 * 1
    x.fill_(x[2])
    assert x.tolist() == [2.0, 2.0, 2.0] and type(x.grad_fn).__name__ == "FillBackward3"
    x.sum().backward()
    assert x0.grad.tolist() == [0.0, 0.0, 3.0]
    y0 = mt.arange(3.0, requires_grad=True)
    y = y0 * 1
    y[:] = y[2]
    assert y.tolist() == [2.0, 2.0, 2.0]


_EXPANDED = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


@pytest.mark.parametrize("grad", [False, True])
def test_fill_of_an_expanded_tensor_takes_a_number_not_a_tensor(grad):
    x = mt.zeros(1, requires_grad=True) * 1 if grad else mt.zeros(1)
    e = x.expand(3)
    e.fill_(2.0)
    assert x.tolist() == [2.0]
    e.zero_()
    assert x.tolist() == [0.0]
    for v in (mt.tensor(2.0), mt.tensor(2.0, requires_grad=True)):
        assert _message(RuntimeError, lambda v=v: e.fill_(v)) == _EXPANDED
    assert x.tolist() == [0.0]


@pytest.mark.parametrize(
    "key, value, dim, size",
    [
        ((mt.tensor([0, 5]), mt.tensor([7, 0])), 7, 1, 4),
        ((mt.tensor([[0], [5]]), mt.tensor([[0, 7]])), 7, 1, 4),
        ((mt.tensor([[5], [0]]), mt.tensor([[0, 7]])), 5, 0, 3),
        (([0, 0, 9], [0, 8, 0]), 8, 1, 4),
        ((mt.tensor([0, 0, 9]), slice(None), mt.tensor([0, 8, 0])), 8, 1, 4),
    ],
)
def test_out_of_range_indices_are_reported_element_by_element(key, value, dim, size):
    """torch's kernel walks the broadcast index elements in order, checking each one's indices
    in turn: the first bad element decides, not the first bad index tensor."""
    x = mt.zeros(3, 5, 4) if len(key) == 3 else mt.zeros(3, 4)
    want = f"index {value} is out of bounds for dimension {dim} with size {size}"
    assert _message(IndexError, lambda: x[key]) == want

    def write():
        x[key] = 1.0

    assert _message(IndexError, write) == want
    idx = tuple(mt.tensor(k) if isinstance(k, list) else k for k in key)
    if len(idx) == 2:
        assert _message(IndexError, lambda: x.index_put_(idx, mt.tensor(1.0), True)) == want
    assert x.sum().item() == 0.0
