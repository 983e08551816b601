"""round's remaining argument errors and np.round of integer and bool tensors. Expected values
and messages hard-coded from torch 2.13; tests/reference/test_s53_round_reference.py compares
the same calls with torch.
- torch.special.round has one signature (Tensor input, *, int decimals=0, Tensor out=None): its
  parser's errors name special_round and say which argument has the wrong type.
- torch.round given decimals with a non-Tensor input matches neither overload: "invalid
  combination of arguments".
- torch.round(int_tensor, decimals=d, out=float_tensor) checks out's dtype before the kernel.
- np.round of an integer or bool tensor is NumPy's round of its array, as a tensor: integers
  rounded to a multiple of 10**-decimals, bools to float16."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(call):
    with pytest.raises(Exception) as info:
        call()
    return f"{info.type.__name__}: {info.value}"


@pytest.mark.parametrize(
    ("call", "want"),
    [
        (
            lambda: mt.special.round(mt.tensor([1.5]), decimals="a"),
            "TypeError: special_round(): argument 'decimals' must be int, not str",
        ),
        (
            lambda: mt.special.round(mt.tensor([1.5]), decimals=1.5),
            "TypeError: special_round(): argument 'decimals' must be int, not float",
        ),
        (
            lambda: mt.special.round(mt.tensor([1.5]), decimals=None),
            "TypeError: special_round(): argument 'decimals' must be int, not NoneType",
        ),
        (
            lambda: mt.special.round(mt.tensor([1.5]), decimals=True),
            "TypeError: special_round(): argument 'decimals' must be int, not bool",
        ),
        (
            lambda: mt.special.round(1.5),
            "TypeError: special_round(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: mt.special.round(1.5, decimals=1),
            "TypeError: special_round(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: mt.special.round(mt.tensor([1.5]), foo=1),
            "TypeError: special_round() got an unexpected keyword argument 'foo'",
        ),
        (
            lambda: mt.special.round(),
            'TypeError: special_round() missing 1 required positional arguments: "input"',
        ),
        (
            lambda: mt.special.round(mt.tensor([1.5]), out=3),
            "TypeError: special_round(): argument 'out' must be Tensor, not int",
        ),
        (
            lambda: mt.special.round(mt.tensor([1.5]), 1),
            "TypeError: special_round() takes 1 positional argument but 2 were given",
        ),
        (
            lambda: mt.special.round(mt.tensor([1, 2])),
            "NotImplementedError: \"round_vml_cpu\" not implemented for 'Long'",
        ),
        (
            lambda: mt.round(1.5, decimals=1),
            "TypeError: round() received an invalid combination of arguments - got (float, "
            "decimals=int), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * "
            "(Tensor input, *, int decimals, Tensor out = None)\n",
        ),
        (
            lambda: mt.round([1.5], decimals=0),
            "TypeError: round() received an invalid combination of arguments - got (list, "
            "decimals=int), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * "
            "(Tensor input, *, int decimals, Tensor out = None)\n",
        ),
        (
            lambda: mt.round(mt.tensor([1, 2]), decimals=1, out=mt.empty(2)),
            "RuntimeError: Found dtype Float but expected Long",
        ),
        (
            lambda: mt.round(mt.tensor([True]), decimals=1, out=mt.empty(1)),
            "RuntimeError: Found dtype Float but expected Bool",
        ),
        (  # an out of the input's dtype: the kernel's error, as before
            lambda: mt.round(mt.tensor([1, 2]), decimals=1, out=mt.empty(2, dtype=mt.int64)),
            "NotImplementedError: \"round_cpu\" not implemented for 'Long'",
        ),
    ],
)
def test_argument_errors(call, want):
    assert _message(call) == want


def test_special_round_results():
    x = mt.tensor([1.25, 2.5, -0.125], requires_grad=True)
    for kw in ({}, {"decimals": 1}, {"decimals": np.int64(1)}, {"decimals": mt.tensor(1)}):
        got = mt.special.round(input=x, **kw)
        assert got.grad_fn.name() == "RoundBackward1"
        want = [1.0, 2.0, -0.0] if not kw else [1.2, 2.5, -0.1]
        assert got.tolist() == pytest.approx(want)
    out = mt.empty(3)
    assert mt.special.round(x.detach(), decimals=1, out=out) is out
    assert out.tolist() == pytest.approx([1.2, 2.5, -0.1])


@pytest.mark.parametrize(
    ("values", "dtype", "decimals", "want", "want_dtype"),
    [
        ([15, 25, -35], "int64", 1, [15, 25, -35], "int64"),
        ([15, 25, -35], "int64", -1, [20, 20, -40], "int64"),
        ([15, 25, -35], "int32", 0, [15, 25, -35], "int32"),
        ([15, 250, 7], "uint8", -1, [20, 250, 10], "uint8"),
        ([1, -126], "int8", -2, [0, -100], "int8"),
        ([True, False], "bool", 0, [1.0, 0.0], "float16"),
    ],
)
def test_numpy_round_of_integer_tensors(values, dtype, decimals, want, want_dtype):
    x = mt.tensor(values, dtype=getattr(mt, dtype))
    for fn in (np.round, np.around):
        got = fn(x, decimals)
        assert isinstance(got, mt.Tensor)
        assert got.dtype == getattr(mt, want_dtype)
        assert got.tolist() == want
        assert x.tolist() == values  # (a new tensor)


def test_numpy_round_of_integer_tensor_into_out():
    out = mt.empty(2, dtype=mt.int64)
    assert np.round(mt.tensor([14, 16]), -1, out=out) is out
    assert out.tolist() == [10, 20]


def test_numpy_round_of_bool_tensor_with_decimals():
    # NumPy's own error: its float16 product cannot be cast back into a bool array
    with pytest.raises(TypeError, match="Cannot cast ufunc 'multiply' output"):
        np.round(mt.tensor([True, False]), 1)


def test_numpy_round_of_float_tensor_keeps_its_graph():
    # (a documented difference: np functions run minitorch ops, so the gradient flows)
    x = mt.tensor([1.25, 2.5], requires_grad=True)
    y = np.round(x, 1)
    assert y.grad_fn.name() == "RoundBackward1"
    assert y.tolist() == pytest.approx([1.2, 2.5])
