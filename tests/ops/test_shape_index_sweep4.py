"""Sweep 4's shape and indexing differences from torch: tuples inside index keys, +0 (not -0)
gradients through writes into views, row-major tril/triu/rot90 results, tensor_split's overload
keywords, empty *stack lists, torch's grad_fn names for the *_scatter / *_copy ops, and error
types and messages."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck


def _raises(exc, msg, fn, *args, **kwargs):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(*args, **kwargs)


def _signs(t) -> list:
    """The sign bits of t's values (True for -0.0), which == comparisons cannot see."""
    return [math.copysign(1.0, v) < 0 for v in np.asarray(t.detach().numpy()).reshape(-1)]


# --- 1. a tuple inside the key is an advanced index, like a list ---


def test_tuple_inside_key_indexes_like_a_list():
    a = np.arange(12.0).reshape(3, 4)
    x = mt.tensor(a)
    np.testing.assert_array_equal(x[:, (0, 2)].numpy(), a[:, [0, 2]])
    np.testing.assert_array_equal(x[(0, 1), :].numpy(), a[[0, 1], :])
    np.testing.assert_array_equal(x[((0, 2),)].numpy(), a[[0, 2]])
    np.testing.assert_array_equal(x[:, ((0, 1), (2, 3))].numpy(), a[:, [[0, 1], [2, 3]]])
    np.testing.assert_array_equal(x[:, (True, False, True, False)].numpy(), a[:, [0, 2]])
    np.testing.assert_array_equal(x[:, (-1, 0)].numpy(), a[:, [-1, 0]])
    assert tuple(x[:, ()].shape) == (3, 0)
    _raises(IndexError, "index 7 is out of bounds for dimension 0 with size 4", x.__getitem__,
            (slice(None), (0, 7)))  # fmt: skip


def test_tuple_inside_key_setitem_and_gradient():
    y = mt.arange(12.0).reshape(3, 4)
    y[:, (1, 3)] = 0.0
    expected = np.arange(12.0).reshape(3, 4)
    expected[:, [1, 3]] = 0
    np.testing.assert_array_equal(y.numpy(), expected)

    x = mt.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    w = mt.tensor(np.arange(6.0).reshape(3, 2) + 1)
    (x[:, (0, 2, 0)][:, :2] * w).sum().backward()
    g = np.zeros((3, 4))
    g[:, 0] = w.numpy()[:, 0]
    g[:, 2] = w.numpy()[:, 1]
    np.testing.assert_array_equal(x.grad.numpy(), g)
    assert gradcheck(lambda t: t[(0, 2), :], (mt.rand(3, 4, dtype=mt.float64, requires_grad=True),))


def test_str_index_is_a_type_error():
    _raises(TypeError, "new(): invalid data type 'str'", mt.zeros(3).__getitem__, "a")


# --- 2. zeros written into gradients are +0, as torch's ---


def _grad_of(fn):
    x = mt.tensor([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], requires_grad=True)
    (-fn(x)).sum().backward()
    return x.grad


def _setitem(x):
    y = x * 1
    y[0, 0] = 5.0
    return y


def _fill_view(x):
    y = x.clone()
    y[:, 0].fill_(0.0)
    return y


def _zero_view(x):
    y = x * 1
    y[1].zero_()
    return y


def _copy_view(x):
    y = x * 1
    y[0].copy_(mt.ones(3))
    return y


@pytest.mark.parametrize(
    "fn, zeroed",
    [
        (_setitem, [(0, 0)]),
        (_fill_view, [(0, 0), (1, 0)]),
        (_zero_view, [(1, 0), (1, 1), (1, 2)]),
        (_copy_view, [(0, 0), (0, 1), (0, 2)]),
        (lambda x: mt.select_scatter(x, mt.zeros(3), 0, 0), [(0, 0), (0, 1), (0, 2)]),
        (lambda x: mt.slice_scatter(x, mt.zeros(2, 1), 1, 0, 1), [(0, 0), (1, 0)]),
        (lambda x: mt.diagonal_scatter(x, mt.zeros(2)), [(0, 0), (1, 1)]),
    ],
)
def test_written_region_gradient_is_positive_zero(fn, zeroed):
    g = _grad_of(fn)
    expected = -np.ones((2, 3))
    for i, j in zeroed:
        expected[i, j] = 0.0
    np.testing.assert_array_equal(g.numpy(), expected)
    # -0.0 == 0.0: the sign bits tell torch's +0 from the product's -0
    assert _signs(g) == [v < 0 for v in expected.reshape(-1)]


def test_write_into_view_gradients_check():
    def f(x):
        y = x * 2
        y[:, 1] = x[:, 0] ** 2
        y[0].fill_(3.0)
        return y

    x = mt.rand(3, 4, dtype=mt.float64, requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
    src = mt.rand(4, dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda a, s: mt.select_scatter(a, s, 0, 1), (x, src))
    assert gradgradcheck(lambda a, s: mt.select_scatter(a, s, 0, 1), (x, src))


# --- 3. tril / triu / rot90 results are laid out as torch's ---


def test_tril_triu_of_a_permuted_tensor_are_row_major():
    a = np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)
    x = mt.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
    for got, want in [(x.tril(), np.tril(a)), (x.triu(1), np.triu(a, 1))]:
        assert got.is_contiguous() and got.stride() == (6, 3, 1)
        np.testing.assert_array_equal(got.view(-1).numpy(), want.reshape(-1))


def test_rot90_of_a_transposed_matrix_is_row_major():
    a = np.arange(12.0).reshape(3, 4).T
    x = mt.arange(12.0).reshape(3, 4).t()
    for k in (1, 3, -1):
        r = x.rot90(k)
        assert r.stride() == (4, 1), k
        np.testing.assert_array_equal(r.view(-1).numpy(), np.rot90(a, k).reshape(-1))
    assert x.rot90(2).stride() == (1, 4)  # a flip keeps its input's layout, as torch's
    assert mt.arange(12.0).reshape(3, 4).rot90(1).stride() == (1, 4)  # transposed, as torch's
    assert x.flip(0).stride() == (1, 4)
    assert mt.arange(4.0).expand(3, 4).flip(1).stride() == (4, 1)


def test_rot90_dims_errors():
    x = mt.zeros(3, 4)
    _raises(IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
            x.rot90, 1, [0, 2])  # fmt: skip
    _raises(RuntimeError, "expected rotation dims to be different, but got dim0 = 0 and dim1 = -2",
            x.rot90, 1, [0, -2])  # fmt: skip


# --- 4. tensor_split / hsplit / vsplit / dsplit overload keywords ---


def _shapes(parts):
    return [tuple(p.shape) for p in parts]


def test_tensor_split_overload_keywords():
    x = mt.arange(24.0).reshape(2, 3, 4)
    assert _shapes(mt.tensor_split(x, sections=2, dim=2)) == [(2, 3, 2), (2, 3, 2)]
    assert _shapes(x.tensor_split(indices=[1], dim=2)) == [(2, 3, 1), (2, 3, 3)]
    assert _shapes(mt.tensor_split(x, tensor_indices_or_sections=mt.tensor([1]), dim=2)) == [
        (2, 3, 1),
        (2, 3, 3),
    ]
    assert _shapes(mt.dsplit(x, sections=2)) == [(2, 3, 2), (2, 3, 2)]
    assert _shapes(mt.hsplit(x, indices=[1])) == [(2, 1, 4), (2, 2, 4)]
    assert _shapes(x.vsplit(sections=2)) == [(1, 3, 4), (1, 3, 4)]
    assert _shapes(x.dsplit(indices=[1])) == [(2, 3, 1), (2, 3, 3)]
    assert _shapes(x.hsplit(1, 2)) == [(2, 1, 4), (2, 1, 4), (2, 1, 4)]  # the varargs form
    for bad in (
        lambda: mt.tensor_split(x),
        lambda: mt.tensor_split(x, 2, sections=2),
        lambda: mt.tensor_split(x, sections=[1]),
        lambda: mt.tensor_split(x, indices=2),
        lambda: mt.tensor_split(x, tensor_indices_or_sections=2),
        lambda: mt.hsplit(x, sections=2.0),
    ):
        _raises(TypeError, "received an invalid combination of arguments", bad)


# --- 5. *stack of an empty list ---


@pytest.mark.parametrize(
    "fn, name",
    [
        (mt.hstack, "hstack"),
        (mt.vstack, "vstack"),
        (mt.row_stack, "vstack"),
        (mt.dstack, "dstack"),
        (mt.column_stack, "column_stack"),
    ],
)
def test_stack_of_empty_list(fn, name):
    _raises(RuntimeError, f"{name} expects a non-empty TensorList", fn, [])


# --- 6. grad_fn names ---


def test_scatter_and_copy_node_names():
    x = mt.zeros(3, 4, requires_grad=True)
    y = x * 1
    names = {
        "SelectScatterBackward0": mt.select_scatter(x, mt.ones(4), 0, 0),
        "SliceScatterBackward0": mt.slice_scatter(x, mt.ones(1, 4), 0, 0, 1),
        "DiagonalScatterBackward0": mt.diagonal_scatter(x, mt.ones(3)),
        "AsStridedScatterBackward0": mt.as_strided_scatter(y, mt.ones(2), (2,), (1,)),
        "IndexReduceBackward0": x.index_reduce(0, mt.tensor([0]), mt.ones(1, 4), "amax"),
        "NarrowCopyBackward0": y.narrow_copy(0, 0, 1),
        "SelectBackward0_copy": mt.select_copy(y, 0, 0),
        "ViewBackward0_copy": mt.view_copy(y, (12,)),
        "PermuteBackward0_copy": mt.permute_copy(y, (1, 0)),
        "SliceBackward0_copy": mt.slice_copy(y, 0, 0, 2),
        "UnbindBackward0_copy": mt.unbind_copy(y)[1],
        "AliasBackward0_copy": mt.alias_copy(y),
    }
    for name, r in names.items():
        assert r.grad_fn.name() == name
    assert mt.select_scatter(x.detach(), mt.ones(4), 0, 0).grad_fn is None
    r = x.clone().index_reduce_(0, mt.tensor([0]), mt.ones(1, 4), "amax")
    assert r.grad_fn.name() == "IndexReduceBackward0"


# --- 7. error types and messages ---


def test_shape_op_errors():
    x = mt.zeros(3, 4)
    for step in (0, -1):
        _raises(RuntimeError, "slice step must be positive", mt.slice_scatter, x, x, 0, step=step)
        _raises(RuntimeError, "slice step must be positive", mt.slice_copy, x, 0, step=step)
    _raises(RuntimeError, "unflatten got an unexpected error:\nDimension specified as 0 but "
            "tensor has no dimensions", mt.tensor(5.0).unflatten, 0, (1,))  # fmt: skip
    msg = (
        "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified "
        "dimension size -1 can be any value and is ambiguous"
    )
    _raises(RuntimeError, msg, mt.zeros(0, 3).reshape, -1, 0)
    _raises(RuntimeError, msg, mt.zeros(0, 3).view, -1, 0)
    _raises(RuntimeError, "shape '[-1, 0]' is invalid for input of size 3", mt.zeros(3).reshape,
            -1, 0)  # fmt: skip
    assert tuple(mt.zeros(0, 3).reshape(-1, 3).shape) == (0, 3)


# --- 8. arguments torch refuses ---


def test_refused_arguments():
    x = mt.arange(12.0).reshape(3, 4)
    i32 = mt.tensor([[0, 2]], dtype=mt.int32)
    _raises(RuntimeError, "torch.take_along_dim(): dtype of indices should be Long but got Int",
            mt.take_along_dim, x, i32, 1)  # fmt: skip
    np.testing.assert_array_equal(mt.take_along_dim(x, i32).numpy(), [0.0, 2.0])  # flat: fine
    _raises(TypeError, '"dims"', x.flip)
    np.testing.assert_array_equal(x.flip(()).numpy(), x.numpy())
    _raises(TypeError, "repeat() takes 1 positional argument but 2 were given", x.repeat, 2.0, 1)
    _raises(TypeError, "must be tuple of ints", x.repeat, (2.0, 1))
    _raises(TypeError, "must be tuple of ints", x.tile, 2.0)
    _raises(TypeError, "must be tuple of ints", mt.tile, x, (2.0,))
    assert tuple(x.repeat(np.int64(2), 1).shape) == (6, 4)
    assert tuple(x.tile(2).shape) == (3, 8)
