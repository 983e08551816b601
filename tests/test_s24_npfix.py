"""Session 24 (npfix): NumPy ufuncs on tensors give NumPy's errors/results as torch's do.

torch's tensors reach NumPy's own loop, so where minitorch's op refuses, NumPy's error or result
is torch's. Expected values were read from torch 2.13 (literals; torch is not imported).
"""

import numpy as np
import pytest

import minitorch as torch


def test_matmul_shape_error_is_numpy_value_error():
    t = torch.tensor([2, 1, 1])
    a = np.array([[4, 1], [1, 1], [1, 4]], dtype=np.int32)
    with pytest.raises(ValueError, match="matmul: Input operand 1 has a mismatch"):
        np.matmul(a, t)
    with pytest.raises(ValueError, match="matmul: Input operand 1 has a mismatch"):
        torch.ones(2, 3) @ np.ones((2, 3))
    with pytest.raises(ValueError, match="Input operand 1 does not have enough dimensions"):
        np.matmul(torch.tensor([1.0, 2.0]), np.array(2.0))
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    np.matmul(x, x).backward()  # a valid matmul stays minitorch's op, with its graph
    assert x.grad.tolist() == [2.0, 4.0]


def test_ufunc_without_loop_is_numpy_type_error():
    with pytest.raises(TypeError, match="ufunc 'invert' not supported for the input types"):
        np.invert(torch.tensor([1.0, 2.0], dtype=torch.float16))
    with pytest.raises(TypeError, match="numpy boolean negative"):
        np.negative(torch.tensor([True, False]))
    # a NumPy scalar is torch's Python number: torch's own RuntimeError for bool subtraction
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        np.bool_(True) - torch.tensor([True, True])


def test_integer_division_by_zero_with_array_is_numpy_result():
    t = torch.tensor([False, True, True])
    a = np.array([3, 1, 3])
    r = np.floor_divide(a, t)
    assert isinstance(r, torch.Tensor) and r.dtype == torch.int64
    assert r.tolist() == [0, 1, 3]
    assert np.fmod(a, t).tolist() == [0, 0, 0]
    assert np.remainder(np.array([[4, 3, 3]], dtype=np.int8), t).tolist() == [[0, 0, 0]]
