"""Session 47 (helper npx): a NumPy scalar on the left of a tensor operator runs the tensor's
reflected operator with the Python number torch reads from it (NOTE [ A NumPy scalar on the
left of an operator ] in minitorch/_numpy_interop.py), not the ufunc; explicit ufunc calls keep
the ufunc path. Expected values are torch 2.13's (tests/reference/test_s47_npx_reference.py
compares the whole sweep with torch)."""

from __future__ import annotations

import operator
import re

import numpy as np
import pytest

import minitorch as mt

# each operator as Python code, so that the operator instruction runs in the lambda's frame
OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "@": lambda a, b: a @ b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
SCALARS = [
    np.float16(2.7), np.float32(-0.3), np.float64(2.7), np.float64(0.0), np.int8(-3),
    np.int16(3), np.int32(-3), np.int64(3), np.int64(-(2**63)), np.uint8(250), np.uint16(3),
    np.uint32(2**32 - 1), np.uint64(3), np.longlong(-3), np.bool_(True), np.bool_(False),
]  # fmt: skip
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool"]


def _tensor(dt, requires_grad=True):
    dtype = getattr(mt, dt)
    if dt == "bool":
        return mt.tensor([True, False, True])
    if dtype.is_floating_point:
        return mt.tensor([7.0, -1.1, 0.3], dtype=dtype, requires_grad=requires_grad)
    if dt == "uint8":
        return mt.tensor([3, 253, 0], dtype=dtype)
    return mt.tensor([3, -7, 0], dtype=dtype)


def _outcome(fn, t):
    """What fn(t) gives: its error, or its value, dtype, grad_fn name and the gradient of t."""
    try:
        r = fn(t)
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return ("error", type(e).__name__, str(e))
    grad = None
    if r.requires_grad:
        try:
            r.sum().backward()
            grad = repr(t.grad.tolist())
        except RuntimeError as e:  # (number // t: torch's derivative error)
            grad = str(e)
    return (str(r.dtype), repr(r.tolist()), r.grad_fn.name() if r.grad_fn else None, grad)


def _number(s):
    """The Python number torch reads from a NumPy scalar: a NumPy bool is a float."""
    return float(s) if s.dtype.kind == "b" else s.item()


@pytest.mark.parametrize("dt", DTYPES)
def test_numpy_scalar_is_torchs_python_number(dt):
    """Every operator and NumPy scalar type: `s op t` is `number op t` (value, dtype, grad_fn,
    gradient, error), the number torch reads from s (the errors name the NumPy type)."""
    for s in SCALARS:
        for name, op in OPS.items():
            got = _outcome(lambda t, op=op, s=s: op(s, t), _tensor(dt))
            want = _outcome(lambda t, op=op, s=s: op(_number(s), t), _tensor(dt))
            if want[0] == "error" and got[0] == "error" and name == "@":
                kind = type(s).__name__
                assert got[2] == f"unsupported operand type(s) for @: 'numpy.{kind}' and 'Tensor'"
                continue
            assert got == want, (repr(s), dt, name)


def test_division_is_reciprocal_times_the_number():
    x = mt.tensor([0.3, 7.0], requires_grad=True)
    y = np.float64(3.0) / x
    assert y.tolist() == [10.0, 0.4285714626312256]
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [-33.33333206176758, -0.06122449412941933]
    assert (np.int64(3) / mt.tensor([2.5], dtype=mt.float16)).tolist() == [1.19921875]


def test_half_tensors_take_the_number_unrounded():
    for dt, want in ((mt.float16, [18.90625, -2.96875]), (mt.bfloat16, [18.875, -2.96875])):
        t = mt.tensor([7.0, -1.1], dtype=dt)
        y = np.float64(2.7) * t
        assert y.dtype == dt and y.tolist() == want
    h = mt.tensor([7.0], dtype=mt.float16)
    assert (np.float16(2.7) * h).tolist() == [18.890625]  # (the float16 scalar's own value)
    assert (np.float32(2.7) * h).tolist() == [18.90625]


def test_comparisons_are_reflected():
    u8 = mt.tensor([3, 253], dtype=mt.uint8)
    assert (np.int64(-3) < u8).tolist() == [False, False]  # -3 wraps to 253, as torch's
    assert (np.int64(-3) == u8).tolist() == [False, True]
    assert (np.int64(-3) != u8).tolist() == [True, False]
    assert (np.uint8(250) < mt.tensor([3, -7], dtype=mt.int8)).tolist() == [True, False]
    f = mt.tensor([0.3, 7.0])
    assert (np.float64(0.3) < f).tolist() == [False, True]  # compared in float32
    assert (np.float64(0.3) >= f).tolist() == [True, False]
    assert (np.float64(16777217) == mt.tensor([16777216.0])).tolist() == [True]


def test_numpy_bool_reads_as_a_float():
    i8 = mt.tensor([3, -7], dtype=mt.int8)
    y = np.True_ + i8
    assert y.dtype == mt.float32 and y.tolist() == [4.0, -6.0]
    assert (np.False_**i8).tolist() == [0.0, float("inf")]
    assert (np.True_ * mt.tensor([True, False])).tolist() == [1.0, 0.0]
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        np.True_ - mt.tensor([True, False])
    with pytest.raises(RuntimeError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        np.True_ & i8


def test_integer_scalars_stay_weak():
    assert (np.int64(3) // mt.tensor([7, -7], dtype=mt.int32)).tolist() == [0, -1]
    y = np.int64(300) + mt.tensor([3], dtype=mt.uint8)
    assert y.dtype == mt.uint8 and y.tolist() == [47]
    assert (np.int64(2**40) * mt.tensor([1], dtype=mt.int32)).tolist() == [0]


def test_uint64_past_int64_is_refused():
    big = np.uint64(2**64 - 1)
    t = mt.tensor([3, 0])
    msg = "unsupported operand type(s) for +: 'numpy.uint64' and 'Tensor'"
    with pytest.raises(TypeError, match=re.escape(msg)):
        big + t
    with pytest.raises(TypeError, match=r"'<' not supported between instances of 'numpy.uint64'"):
        _ = big < t
    with pytest.raises(TypeError, match=r"for \*\* or pow\(\): 'numpy.uint64' and 'Tensor'"):
        big**t
    assert (big == t) is False and (big != t) is True  # Python's identity comparison
    # torch's `/` is reciprocal(t) * big: NumPy multiplies the reciprocal's array
    r = big / mt.tensor([0.3, 7.0])
    assert r.__class__ is np.ndarray and r.dtype == np.float64
    assert r.tolist() == [6.148914544634967e19, 2.635249271191896e18]
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        big / mt.tensor([0.3, 7.0], requires_grad=True)
    with pytest.raises(TypeError, match=r"for /: 'numpy.uint64' and 'Tensor'"):
        big / mt.tensor([0.3, 7.0], dtype=mt.bfloat16)


def test_in_place_operators_on_a_numpy_scalar():
    t = mt.tensor([0.3, 7.0], requires_grad=True)
    a = np.float64(3.0)
    a /= t
    assert a.grad_fn.name() == "MulBackward0" and a.tolist() == [10.0, 0.4285714626312256]
    b = np.uint64(2**64 - 1)
    with pytest.raises(TypeError, match=r"for \*\*=: 'numpy.uint64' and 'Tensor'"):
        b **= t
    c = np.float64(2.0)
    with pytest.raises(TypeError, match=r"for @=: 'numpy.float64' and 'Tensor'"):
        c @= t


def test_subclass_and_nested_frames():
    p = mt.nn.Parameter(mt.tensor([0.3, 7.0]))
    y = np.float64(3.0) / p
    assert y.grad_fn.name() == "MulBackward0"
    ys = [np.float64(3.0) / p for _ in range(2)]  # (a comprehension's frame)
    assert all(v.grad_fn.name() == "MulBackward0" for v in ys)
    assert ((lambda: np.int64(-3) < mt.tensor([3], dtype=mt.uint8))()).tolist() == [False]


def test_explicit_ufunc_calls_keep_the_ufunc_path():
    x = mt.tensor([0.3, 7.0], requires_grad=True)
    y = np.divide(np.float64(3.0), x)
    assert y.grad_fn.name() == "DivBackward0" and y.tolist() == [10.0, 0.4285714328289032]
    h = mt.tensor([7.0], dtype=mt.float16)
    assert np.multiply(np.float64(2.7), h).tolist() == [18.890625]
    u8 = mt.tensor([3, 253], dtype=mt.uint8)
    assert np.less(np.int64(-3), u8).tolist() == [False, False]
    assert np.less(np.array(-3), u8).tolist() == [True, True]  # (NumPy's promotion)
    assert operator.truediv(np.float64(3.0), x).grad_fn.name() == "DivBackward0"
    assert np.add(x, np.float64(1.0)).grad_fn.name() == "AddBackward0"
    assert (x + np.float64(1.0)).grad_fn.name() == "AddBackward0"


def test_other_left_operands_are_untouched():
    t = mt.tensor([3, 253], dtype=mt.uint8)
    # an array on the left: NumPy's promotion, as before
    assert (np.array([-3]) < t).tolist() == [True, True]
    assert (np.array(-3) + t).dtype == mt.int64
    # a 0-d array on the left of a comparison is indistinguishable from a scalar's there
    assert (np.array(-3) < t).tolist() == [False, False]
