"""Session 39 (helper shapefuzz): torch-free regression tests of the library fixes the shape-op
fuzzer of tests/reference/test_s39_shapefuzz_reference.py found: take_along_dim without a dim
flattens by view (torch's error for an expanded input), unflatten's order of errors (the
parser's types, dim's range, empty sizes, then a 0-d input; the method checks empty sizes
first), movedim's order (every dim's range before a repeated dim), and repeat_interleave along
a dim of a 0-d input (torch's IndexErrors). torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_take_along_dim_without_dim_views_flat():
    x = mt.arange(4.0).reshape(2, 1, 2).expand(2, 2, 2)
    idx = mt.tensor([4, 4, 7, 3])
    assert _message(RuntimeError, lambda: mt.take_along_dim(x, idx)) == VIEW_ERROR
    assert _message(RuntimeError, lambda: x.take_along_dim(idx)) == VIEW_ERROR
    # a non-contiguous index is view's error too
    bad_idx = mt.tensor([[1, 2], [0, 3]]).t()
    got = _message(RuntimeError, lambda: mt.take_along_dim(x.contiguous(), bad_idx))
    assert got == VIEW_ERROR
    # a flat-viewable input still works, with its gradient
    y = mt.arange(6.0).reshape(2, 3).requires_grad_(True)
    out = mt.take_along_dim(y, mt.tensor([[5, 0], [5, 1]]))
    assert out.tolist() == [5.0, 0.0, 5.0, 1.0]
    out.sum().backward()
    assert y.grad.tolist() == [[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]


NON_EMPTY = "unflatten: sizes must be non-empty"
NO_DIMS = (
    "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions"
)


@pytest.mark.parametrize(
    "args, method, exc, msg",
    [
        ((mt.zeros(()), 0, ()), False, RuntimeError, NON_EMPTY),
        ((mt.zeros(()), 0, ()), True, RuntimeError, NON_EMPTY),
        ((mt.zeros(()), 0, (1,)), False, RuntimeError, NO_DIMS),
        ((mt.zeros(()), 0, (-1, -1)), True, RuntimeError, NO_DIMS),
        ((mt.zeros(3), 5, []), False, IndexError,
         "Dimension out of range (expected to be in range of [-1, 0], but got 5)"),
        ((mt.zeros(3), 5, []), True, RuntimeError, NON_EMPTY),
        ((mt.zeros(3), 1.5, ()), True, RuntimeError, NON_EMPTY),
        ((mt.zeros(3), 1.5, ()), False, TypeError,
         "unflatten(): argument 'dim' (position 2) must be int, not float"),
        ((mt.zeros(3), 5, "b"), False, TypeError,
         "unflatten(): argument 'sizes' (position 3) must be tuple of ints, not str"),
        ((mt.zeros(3), 5, "b"), True, TypeError,
         "unflatten(): argument 'sizes' (position 2) must be tuple of ints, not str"),
        ((mt.zeros(3), "a", "b"), False, TypeError,
         "unflatten(): argument 'dim' (position 2) must be int, not str"),
    ],
)  # fmt: skip
def test_unflatten_error_order(args, method, exc, msg):
    if method:
        assert _message(exc, lambda: args[0].unflatten(*args[1:])) == msg
    else:
        assert _message(exc, lambda: mt.unflatten(*args)) == msg


def test_unflatten_still_works():
    x = mt.arange(6.0)
    assert x.unflatten(0, (2, -1)).shape == (2, 3)
    assert mt.unflatten(x.reshape(1, 6), -1, [3, 2]).shape == (1, 3, 2)


@pytest.mark.parametrize(
    "src, dst, exc, msg",
    [
        ((0, 0), (0, 5), IndexError,
         "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
        ((5, 0), (0, 0), IndexError,
         "Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
        ((0, 0), (1, 1), RuntimeError, "movedim: repeated dim in `source` ([0, 0])"),
        ((0, 1), (1, 1), RuntimeError, "movedim: repeated dim in `destination` ([1, 1])"),
        ((0, -2), (1, 0), RuntimeError, "movedim: repeated dim in `source` ([0, -2])"),
    ],
)  # fmt: skip
def test_movedim_checks_every_range_first(src, dst, exc, msg):
    x = mt.zeros(3, 4)
    assert _message(exc, lambda: mt.movedim(x, src, dst)) == msg
    assert _message(exc, lambda: x.moveaxis(src, dst)) == msg


def test_movedim_still_works():
    x = mt.zeros(2, 3, 4)
    assert mt.movedim(x, (0, -1), (2, 0)).shape == (4, 3, 2)


RANGE = "Dimension out of range (expected to be in range of [-1, 0], but got "


@pytest.mark.parametrize(
    "repeats, dim, exc, msg",
    [
        (2, 0, IndexError, RANGE + "1)"),
        (2, -1, IndexError, RANGE + "1)"),
        (2, 5, IndexError, RANGE + "5)"),
        (-1, 0, RuntimeError, "Repeats must be non-negative"),
        ("t[1, -1]", 0, IndexError, "Dimension specified as 0 but tensor has no dimensions"),
        ("t[2]", -1, IndexError, "Dimension specified as -1 but tensor has no dimensions"),
        ("t[2]", 5, IndexError, "Dimension specified as 5 but tensor has no dimensions"),
        ("t[[2]]", 0, RuntimeError, "repeats must be 0-dim or 1-dim tensor"),
    ],
)  # fmt: skip
def test_repeat_interleave_zero_dim_input_along_dim(repeats, dim, exc, msg):
    if isinstance(repeats, str):
        repeats = mt.tensor(eval(repeats[1:]))  # noqa: S307 - a literal list
    x = mt.tensor(2.0)
    assert _message(exc, lambda: x.repeat_interleave(repeats, dim=dim)) == msg
    assert _message(exc, lambda: mt.repeat_interleave(x, repeats, dim)) == msg


def test_repeat_interleave_zero_dim_input_flat():
    x = mt.tensor(2.0)
    assert x.repeat_interleave(2).tolist() == [2.0, 2.0]
    assert x.repeat_interleave(mt.tensor(3)).tolist() == [2.0, 2.0, 2.0]
    assert mt.tensor([1.0, 2.0]).repeat_interleave(mt.tensor([1, 2]), dim=0).tolist() == [
        1.0, 2.0, 2.0,
    ]  # fmt: skip
