"""Session 23, L1: operator and calling-convention leftovers (expected values from torch 2.13)."""

import numpy as np
import pytest

import minitorch as torch


@pytest.mark.parametrize(
    "code, expected",
    [
        ("x &= np.array(3)", [1, 2]),
        ("x |= np.array(3)", [3, 3]),
        ("x ^= np.array(3)", [2, 1]),
        ("x <<= np.array([1, 1])", [2, 4]),
        ("x >>= np.array([1, 1])", [0, 1]),
    ],
)
def test_inplace_bitwise_operator_with_array_rebinds(code, expected):
    # torch returns NotImplemented: Python falls back to `x = x op arr`, the old x unchanged
    names = {"x": torch.tensor([1, 2]), "np": np}
    old = names["x"]
    exec(code, names)
    assert names["x"] is not old
    assert old.tolist() == [1, 2]
    assert names["x"].tolist() == expected


def test_inplace_bitwise_operator_bool_tensor_int8_array():
    # torch: NumPy's promotion, an int8 result (minitorch raised "can't be cast to ... Bool")
    x = torch.tensor([True, False])
    x |= np.array([1, 0], dtype=np.int8)
    assert x.dtype == torch.int8 and x.tolist() == [1, 0]


def test_three_argument_pow_is_a_type_error():
    with pytest.raises(TypeError) as e:
        pow(torch.tensor([2, 3]), 2, 5)
    assert str(e.value) == "unsupported operand type(s) for ** or pow(): 'Tensor', 'int', 'int'"
    with pytest.raises(TypeError, match="3rd argument not allowed unless all arguments are int"):
        pow(torch.tensor([2.0, 3.0]), 2.0, 5)
    assert (torch.tensor([2, 3]) ** 2).tolist() == [4, 9]


def _type_error(fn):
    with pytest.raises(TypeError) as e:
        fn()
    return str(e.value)


def test_bool_tensor_minus_array_is_numpy_subtraction():
    b = torch.tensor([True, False])
    r = b - np.array([1.5, 2.0])
    assert r.dtype == torch.float64 and r.tolist() == [-0.5, -2.0]
    r = b - np.array(1.5)
    assert r.dtype == torch.float64 and r.tolist() == [-0.5, -1.5]
    r = b - np.array([1, 2])
    assert r.dtype == torch.int64 and r.tolist() == [0, -2]
    assert _type_error(lambda: b - np.array([True, False])) == (
        "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
        "operator, or the logical_xor function instead."
    )
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        b - 1.5


class NT(tuple):
    pass


def test_argument_errors_name_a_python_class_by_its_bare_name():
    t = torch.tensor([1.0, 2.0])
    msg = _type_error(lambda: t.view(NT((2,)), 1))
    assert "got (NT, int)" in msg and "__main__" not in msg and "test_s23_l1" not in msg
    msg = _type_error(lambda: t.narrow(NT((0,)), 0, 1))
    assert "got (NT, int, int)" in msg and "(!NT of (int,)!, int, int)" in msg
    assert _type_error(lambda: t.view(np.float64(2.0))).endswith("numpy.float64")


def test_shape_methods_refuse_an_ndarray_size():
    t = torch.zeros(2, 3)
    a = np.array([-1])
    tuple_of_ints = "must be tuple of ints, not numpy.ndarray"
    assert _type_error(lambda: t.reshape(a)) == (
        f"reshape(): argument 'shape' (position 1) {tuple_of_ints}"
    )
    assert _type_error(lambda: t.reshape(shape=a)) == f"reshape(): argument 'shape' {tuple_of_ints}"
    assert _type_error(lambda: t.repeat(np.array([2, 1]))) == (
        f"repeat(): argument 'repeats' (position 1) {tuple_of_ints}"
    )
    assert _type_error(lambda: t.permute(np.array([1, 0]))) == (
        f"permute(): argument 'dims' (position 1) {tuple_of_ints}"
    )
    assert _type_error(lambda: torch.zeros(1, 3).expand(np.array([2, 3]))) == (
        f"expand(): argument 'size' (position 1) {tuple_of_ints}"
    )
    assert _type_error(lambda: t.view(np.array([3, 2]))).startswith(
        "view() received an invalid combination of arguments - got (numpy.ndarray), but expected"
    )
    # a 0-d integer array is one int, as torch reads it
    assert t.reshape(np.array(6)).shape == (6,)
    assert t.reshape([np.int64(3), 2]).shape == (3, 2)


def test_squeeze_method_refuses_none():
    s = torch.zeros(1, 2, 1)
    tail = (
        " * (int dim)\n      didn't match because some of the arguments have invalid types: ({b})\n"
        " * (tuple of ints dim)\n      didn't match because some of the arguments have invalid "
        "types: ({b})\n"
    )
    assert _type_error(lambda: s.squeeze(None)) == (
        "squeeze() received an invalid combination of arguments - got (NoneType), but expected "
        "one of:\n * ()\n      didn't match because some of the arguments have invalid types: "
        "(!NoneType!)\n" + tail.format(b="!NoneType!")
    )
    assert _type_error(lambda: s.squeeze(dim=None)) == (
        "squeeze() received an invalid combination of arguments - got (dim=NoneType, ), but "
        "expected one of:\n * ()\n      didn't match because some of the keywords were "
        "incorrect: dim\n" + tail.format(b="!dim=NoneType!, ")
    )
    assert _type_error(lambda: s.squeeze(0, dim=2)) == (
        "squeeze() received an invalid combination of arguments - got (int, dim=int), but "
        "expected one of:\n * ()\n * (int dim)\n * (tuple of ints dim)\n"
    )
    assert s.squeeze().shape == (2,) and s.squeeze(dim=2).shape == (1, 2)
    assert s.squeeze(0, 2).shape == (2,) and s.squeeze((0, 2)).shape == (2,)


def test_movedim_method_refuses_an_int_with_a_sequence():
    s = torch.zeros(1, 2, 1)
    assert _type_error(lambda: s.movedim(0, (1,))) == (
        "movedim() received an invalid combination of arguments - got (int, tuple), but expected "
        "one of:\n * (int source, int destination)\n      didn't match because some of the "
        "arguments have invalid types: (int, !tuple of (int,)!)\n * (tuple of ints source, tuple "
        "of ints destination)\n      didn't match because some of the arguments have invalid "
        "types: (!int!, !tuple of (int,)!)\n"
    )
    msg = _type_error(lambda: s.moveaxis([0], 1))
    assert msg.startswith("moveaxis() received an invalid combination of arguments - got (list,")
    assert "(!list of [int]!, int)" in msg and "(!list of [int]!, !int!)" in msg
    assert s.movedim(0, 1).shape == (2, 1, 1) and s.movedim((0,), (1,)).shape == (2, 1, 1)
