"""NumPy operands mixed with tensors (session 23, NumPy interop fuzzing).

Expected values were obtained by running torch 2.13.0 with NumPy 2.4 on the same expressions.
"""

import numpy as np
import pytest

import minitorch as mt


def _check(result, dtype, values):
    assert isinstance(result, mt.Tensor), type(result)
    assert result.dtype is dtype, result.dtype
    assert result.tolist() == values


# torch hands a tensor mixed with an ndarray to NumPy: the result has NumPy's dtype (a 0-d array is
# not a weak scalar for NumPy), and the computation runs in it.
@pytest.mark.parametrize(
    "call, dtype, values",
    [
        (
            lambda: np.divide(np.array([1, 2, 3]), mt.tensor([3, 4, 6], dtype=mt.int8)),
            mt.float64,
            [0.3333333333333333, 0.5, 0.5],
        ),
        (
            lambda: np.multiply(mt.tensor([1.5, 2.0, 0.1]), np.array(1.0 / 3.0)),
            mt.float64,
            [0.5, 0.6666666666666666, 0.033333333830038704],
        ),
        (
            lambda: np.power(np.array([True, False, True]), mt.tensor([False, True, True])),
            mt.int8,
            [1, 0, 1],
        ),
        (
            lambda: mt.tensor([False, True, False]) @ np.array([1, 1, 1], dtype=np.float16),
            mt.float16,
            1.0,
        ),
        (
            lambda: np.add(mt.tensor([100], dtype=mt.int8), np.array(100, dtype=np.int16)),
            mt.int16,
            [200],
        ),
    ],
)
def test_ufunc_of_a_tensor_and_an_ndarray_has_numpys_dtype(call, dtype, values):
    _check(call(), dtype, values)


def test_ndarray_mixed_ufunc_keeps_the_graph():
    # torch: float64 [3., 6.] (it refuses a tensor that requires grad: a documented difference)
    t = mt.tensor([1.0, 2.0], requires_grad=True)
    y = np.multiply(np.array(3.0), t)
    assert y.dtype is mt.float64 and y.requires_grad and y.tolist() == [3.0, 6.0]
    y.sum().backward()
    assert t.grad.dtype is mt.float32 and t.grad.tolist() == [3.0, 3.0]


def test_float32_compared_with_a_0d_float64_array_compares_in_float64():
    # NumPy compares 0.1f with 0.1 in float64: not equal (torch's promotion would round 0.1);
    # torch's results are uint8 tensors (a documented difference), with these values
    _check(np.greater(mt.tensor([0.2]), np.array(0.2)), mt.bool, [True])
    _check(np.equal(mt.tensor([0.1]), np.array(0.1)), mt.bool, [False])


# A NumPy scalar on the left of a tensor is the number torch reads from it (a weak scalar; np.bool_
# reads as a float), as torch's reflected operators take it.
@pytest.mark.parametrize(
    "call, dtype, values",
    [
        (lambda: np.int64(3) // mt.tensor(5, dtype=mt.int32), mt.int32, 0),
        (lambda: np.int64(3) ^ mt.tensor(1, dtype=mt.int8), mt.int8, 2),
        (lambda: np.uint8(200) + mt.tensor(100, dtype=mt.int8), mt.int8, 44),
        (lambda: np.bool_(True) - mt.tensor([1, 2], dtype=mt.int32), mt.float32, [0.0, -1.0]),
        (lambda: np.int64(3) * mt.tensor(2, dtype=mt.int16), mt.int16, 6),
        (lambda: np.add(mt.tensor(100, dtype=mt.int8), 3), mt.int8, 103),
    ],
)
def test_numpy_scalar_operands_are_weak_numbers(call, dtype, values):
    _check(call(), dtype, values)


def test_contains_takes_numpy_and_complex_numbers():
    t = mt.tensor([1, 2])
    assert np.int32(2) in t
    assert np.int64(5) not in t
    assert np.float32(1.5) in mt.tensor([1.5])
    assert 2 + 0j in t
    assert 1 + 1j not in t
    for bad, name in ((np.bool_(True), "numpy.bool"), (np.array(2), "numpy.ndarray")):
        with pytest.raises(RuntimeError, match=f"but you passed in a <class '{name}'>"):
            bad in t  # noqa: B015
