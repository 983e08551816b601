"""Session 38 (helper promote): torch-free regression tests of the library fixes the
type-promotion sweep of tests/reference/test_s38_promote_reference.py found: NumPy bools as
Numbers (lerp, float_power, ops on two numbers), add/sub's 0-d tensor alpha kept out of type
promotion and a tensor alpha refused first, the in-place cast check for NumPy scalars, the
argument positions of addcmul_/addcdiv_/addr_, addcdiv's value checked before its integer
division, clamp's error naming a NumPy bound, the shell unsigned dtypes' promotion error
naming the dimensioned operand first, and torch's parser messages of result_type,
promote_types and can_cast. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _values(t):
    return t.tolist()


# --- NumPy bools are Numbers (read as floats) ---


def test_lerp_numpy_bool_weight():
    x = mt.tensor([1.0, 2.0])
    y = mt.tensor([3.0, 6.0])
    out = mt.lerp(x, y, np.bool_(True))
    assert out.dtype is mt.float32 and _values(out) == [3.0, 6.0]
    assert _values(mt.lerp(x, y, np.bool_(False))) == [1.0, 2.0]
    z = x.clone()
    assert z.lerp_(y, np.bool_(True)) is z and _values(z) == [3.0, 6.0]
    h = mt.tensor([1.0, 2.0], dtype=mt.float16)
    assert mt.lerp(h, h * 2, np.bool_(True)).dtype is mt.float16
    msg = _message(
        NotImplementedError, lambda: mt.lerp(mt.tensor([1]), mt.tensor([2]), np.bool_(1))
    )
    assert msg == "\"lerp_kernel_scalar\" not implemented for 'Long'"


def test_float_power_numpy_bool():
    out = mt.float_power(mt.tensor([3, -7]), np.bool_(True))
    assert out.dtype is mt.float64 and _values(out) == [3.0, -7.0]
    out = mt.float_power(np.bool_(True), mt.tensor([2.0, 3.0]))
    assert out.dtype is mt.float64 and _values(out) == [1.0, 1.0]


@pytest.mark.parametrize("op", [mt.add, mt.sub, mt.mul, mt.div, mt.floor_divide])
def test_two_numbers_with_numpy_bool(op):
    out = op(np.float64(8.5), np.bool_(True))
    assert out.dtype is mt.float32 and out.ndim == 0
    out = op(np.bool_(True), 2)
    assert out.dtype is mt.float32


def test_add_two_numpy_bools_values():
    assert mt.add(np.bool_(True), np.bool_(True)).item() == 2.0
    assert mt.sub(2, np.bool_(True)).item() == 1.0


# --- add/sub's alpha ---


def test_zero_dim_alpha_takes_no_part_in_promotion():
    a = mt.tensor(3, dtype=mt.int8)
    out = mt.add(a, a, alpha=mt.tensor(2, dtype=mt.int16))
    assert out.dtype is mt.int8 and out.item() == 9
    u = mt.tensor(3, dtype=mt.uint8)
    out = mt.sub(u, u * 0 + 1, alpha=mt.tensor(2, dtype=mt.int64))
    assert out.dtype is mt.uint8 and out.item() == 1
    out = mt.add(mt.tensor([3], dtype=mt.int32), 2, alpha=mt.tensor(3))
    assert out.dtype is mt.int32 and _values(out) == [9]
    f = mt.tensor(1.5)
    out = mt.add(f, f, alpha=mt.tensor(2.0, dtype=mt.float64))
    assert out.dtype is mt.float32 and out.item() == 4.5
    out = mt.add(np.float64(2.5), 1, alpha=mt.tensor(2.0, dtype=mt.float64))
    assert out.dtype is mt.float32 and out.item() == 4.5


def test_zero_dim_alpha_gradient():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([3.0, 4.0], dtype=mt.float64, requires_grad=True)
    out = mt.add(x, y, alpha=mt.tensor(3.0))
    assert out.dtype is mt.float64
    out.sum().backward()
    assert _values(x.grad) == [1.0, 1.0] and _values(y.grad) == [3.0, 3.0]


def test_zero_dim_alpha_gradcheck():
    x = mt.tensor([1.0, -2.0, 0.5], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([0.3, 4.0, -1.5], dtype=mt.float64, requires_grad=True)
    alpha = mt.tensor(2.5)
    for op in (mt.add, mt.sub):
        fn = lambda a, b, op=op: op(a * b, b, alpha=alpha)  # noqa: E731
        assert mt.autograd.gradcheck(fn, (x, y))
        assert mt.autograd.gradgradcheck(fn, (x, y))


def test_zero_dim_bool_alpha_on_half_result():
    h = mt.tensor([1.0, 2.0], dtype=mt.float16)
    msg = _message(RuntimeError, lambda: mt.add(h, h, alpha=mt.tensor(True)))
    assert msg == "Boolean alpha only supported for Boolean results."


def test_tensor_alpha_with_elements_is_refused_first():
    x = mt.ones(2)
    msg = _message(TypeError, lambda: mt.add(x, x, alpha=mt.ones(2)))
    assert msg == "add(): argument 'alpha' must be Number, not Tensor"
    h = mt.ones(2, dtype=mt.float16)
    msg = _message(TypeError, lambda: mt.add(h, h, alpha=mt.ones(2)))
    assert msg == "add(): argument 'alpha' must be Number, not Tensor"
    m = mt.tensor([True, False])
    msg = _message(TypeError, lambda: mt.sub(m, m, alpha=mt.tensor([1, 2])))
    assert msg == "sub(): argument 'alpha' must be Number, not Tensor"
    msg = _message(TypeError, lambda: mt.sub(m, mt.ones(2), alpha=mt.tensor([1, 2])))
    assert msg == "sub(): argument 'alpha' must be Number, not Tensor"
    msg = _message(RuntimeError, lambda: mt.sub(m, m, alpha=2))
    assert msg.startswith("Subtraction, the `-` operator, with two bool tensors is not supported.")


# --- in-place ops: the cast check for NumPy scalars ---


@pytest.mark.parametrize("scalar", [np.float32(1.0), np.bool_(True), np.float64(2.0)])
def test_inplace_bitwise_numpy_float_cast_check(scalar):
    x = mt.tensor([1, 2])
    msg = _message(RuntimeError, lambda: x.bitwise_and_(scalar))
    assert msg == "result type Float can't be cast to the desired output type Long"
    msg = _message(RuntimeError, lambda: x.__ixor__(scalar))
    assert msg == "result type Float can't be cast to the desired output type Long"
    b = mt.tensor([True])
    msg = _message(RuntimeError, lambda: b.bitwise_or_(scalar))
    assert msg == "result type Float can't be cast to the desired output type Bool"
    assert _values(x) == [1, 2]


def test_out_of_place_bitwise_numpy_float_kernel_error():
    msg = _message(NotImplementedError, lambda: mt.tensor([1]).bitwise_and(np.float32(1)))
    assert msg == "\"bitwise_and_cpu\" not implemented for 'Float'"


# --- argument errors ---


def test_inplace_ternary_argument_positions():
    x = mt.ones(3)
    msg = _message(TypeError, lambda: x.addcmul_(x, 2))
    assert msg == "addcmul_(): argument 'tensor2' (position 2) must be Tensor, not int"
    msg = _message(TypeError, lambda: x.addcdiv_(x, 2.5))
    assert msg == "addcdiv_(): argument 'tensor2' (position 2) must be Tensor, not float"
    msg = _message(TypeError, lambda: x.addcmul_(2, x))
    assert msg == "addcmul_(): argument 'tensor1' (position 1) must be Tensor, not int"
    msg = _message(TypeError, lambda: mt.ones(3, 3).addr_(x, 2))
    assert msg == "addr_(): argument 'vec2' (position 2) must be Tensor, not int"
    msg = _message(TypeError, lambda: x.atan2_(1))
    assert msg == "atan2_(): argument 'other' (position 1) must be Tensor, not int"


def test_addcdiv_value_checked_before_integer_division():
    i = mt.tensor([1, 2])
    msg = _message(TypeError, lambda: mt.addcdiv(i, i, i, value=mt.tensor([1])))
    assert msg == "addcdiv(): argument 'value' must be Number, not Tensor"
    msg = _message(TypeError, lambda: mt.addcdiv(i, i, i, value="a"))
    assert msg == "addcdiv(): argument 'value' must be Number, not str"
    msg = _message(RuntimeError, lambda: mt.addcdiv(i, i, i))
    assert msg.startswith("Integer division with addcdiv is no longer supported")


def test_clamp_mixed_bounds_names_numpy_scalar():
    x = mt.ones(2)
    msg = _message(TypeError, lambda: mt.clamp(x, x, np.float64(2)))
    assert msg.startswith(
        "clamp() received an invalid combination of arguments - got (Tensor, Tensor, "
        "numpy.float64), but expected one of:\n"
    )
    msg = _message(TypeError, lambda: mt.clamp(x, np.int64(2), x))
    assert "got (Tensor, numpy.int64, Tensor)" in msg
    msg = _message(TypeError, lambda: x.clone().clamp_(x, np.float32(1)))
    assert msg.startswith(
        "clamp_() received an invalid combination of arguments - got (Tensor, numpy.float32)"
    )
    # a 0-d bound with a NumPy one still works (read as numbers)
    out = mt.clamp(mt.tensor([0.0, 5.0]), mt.tensor(1.0), np.float64(2))
    assert _values(out) == [1.0, 2.0]


# --- promotion messages and the dtype functions ---


@pytest.mark.parametrize("u, name", [(mt.uint16, "UInt16"), (mt.uint32, "UInt32")])
def test_shell_uint_promotion_names_dimensioned_operand_first(u, name):
    head = "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
    msg = _message(RuntimeError, lambda: mt.ones((), dtype=u) + mt.tensor([True]))
    assert msg == head + f"Bool and {name}"
    msg = _message(RuntimeError, lambda: mt.tensor([True]) * mt.ones((), dtype=u))
    assert msg == head + f"Bool and {name}"
    msg = _message(RuntimeError, lambda: mt.ones(2, dtype=u) * mt.ones(2, dtype=mt.int64))
    assert msg == head + f"{name} and Long"
    assert (mt.ones(2, dtype=u) * mt.ones((), dtype=mt.int64)).dtype is u  # (the 0-d: no error)


RESULT_TYPE_FORMS = (
    "but expected one of:\n"
    " * (Tensor tensor, Tensor other)\n"
    "{}"
    " * (Number scalar, Tensor tensor)\n"
    "{}"
    " * (Tensor tensor, Number other)\n"
    "{}"
    " * (Number scalar1, Number scalar2)\n"
    "{}"
)


def test_result_type_messages():
    x = mt.zeros(2)
    msg = _message(TypeError, lambda: mt.result_type(x, "a"))
    marks = (
        "      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n",
        "      didn't match because some of the arguments have invalid types: (!Tensor!, !str!)\n",
        "      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n",
        "      didn't match because some of the arguments have invalid types: (!Tensor!, !str!)\n",
    )
    want = "result_type() received an invalid combination of arguments - got (Tensor, str), "
    assert msg == want + RESULT_TYPE_FORMS.format(*marks)
    msg = _message(TypeError, lambda: mt.result_type(np.float64(1), None))
    assert msg.startswith(
        "result_type() received an invalid combination of arguments - got (numpy.float64, "
        "NoneType), but"
    )
    plain = RESULT_TYPE_FORMS.format("", "", "", "")
    head = "result_type() received an invalid combination of arguments - got "
    assert _message(TypeError, lambda: mt.result_type(1)) == head + "(int), " + plain
    assert _message(TypeError, lambda: mt.result_type()) == head + "(), " + plain
    assert (
        _message(TypeError, lambda: mt.result_type(x, 2, 3))
        == head + "(Tensor, int, int), " + plain
    )
    assert mt.result_type(x, other=2) is mt.float32
    assert mt.result_type(np.bool_(True), mt.tensor([1])) is mt.float32


def test_promote_types_and_can_cast_arity():
    f = mt.float32
    msg = _message(TypeError, lambda: mt.promote_types(f))
    assert msg == 'promote_types() missing 1 required positional arguments: "type2"'
    msg = _message(TypeError, lambda: mt.promote_types())
    assert msg == 'promote_types() missing 2 required positional argument: "type1", "type2"'
    msg = _message(TypeError, lambda: mt.promote_types(f, f, 1))
    assert msg == "promote_types() takes 2 positional arguments but 3 were given"
    msg = _message(TypeError, lambda: mt.can_cast(f))
    assert msg == 'can_cast() missing 1 required positional arguments: "to"'
    msg = _message(TypeError, lambda: mt.can_cast(f, f, 1))
    assert msg == "can_cast() takes 2 positional arguments but 3 were given"
    assert mt.promote_types(type2=mt.int8, type1=f) is f
    assert mt.can_cast(from_=f, to=mt.int8) is False
