"""Session 60: binary pointwise ops report their refusals in torch's order (NOTE [ Shapes
before dtypes ] in minitorch/_ops/pointwise.py): operand shapes that do not broadcast first, then
out='s cast check, then the kernel's refusal of the dtype (or add/sub's of alpha); in-place forms
alike. Each case asserts the exact exception type and the first line of its message
(tests/reference/test_s60_op_order_ref.py runs the same table under torch)."""

from __future__ import annotations

import pytest

import minitorch as mt


def _t(T, dt, n):
    return T.ones(n, dtype=getattr(T, dt))


def _e(T, dt):
    return T.empty(2, dtype=getattr(T, dt))


CASES = {
    "floordiv_op_bool": lambda T: _t(T, "bool", 2) // _t(T, "bool", 3),
    "floor_divide_bool": lambda T: T.floor_divide(_t(T, "bool", 2), _t(T, "bool", 3)),
    "div_trunc_bool": lambda T: T.div(_t(T, "bool", 2), _t(T, "bool", 3), rounding_mode="trunc"),
    "div_floor_bool_out": lambda T: T.div(
        _t(T, "bool", 2), _t(T, "bool", 3), rounding_mode="floor", out=_e(T, "bool")
    ),
    "remainder_bool": lambda T: T.remainder(_t(T, "bool", 2), _t(T, "bool", 3)),
    "mod_op_bool": lambda T: _t(T, "bool", 2) % _t(T, "bool", 3),
    "fmod_bool": lambda T: T.fmod(_t(T, "bool", 2), _t(T, "bool", 3)),
    "pow_bool": lambda T: T.pow(_t(T, "bool", 2), _t(T, "bool", 3)),
    "pow_op_bool_2d": lambda T: _t(T, "bool", (2, 3)) ** _t(T, "bool", 4),
    "gcd_bool": lambda T: T.gcd(_t(T, "bool", 2), _t(T, "bool", 3)),
    "gcd_float_int": lambda T: T.gcd(_t(T, "float32", 2), _t(T, "int64", 3)),
    "lcm_bool": lambda T: T.lcm(_t(T, "bool", 2), _t(T, "bool", 3)),
    "add_float_alpha_int": lambda T: T.add(_t(T, "int64", 2), _t(T, "int64", 3), alpha=1.5),
    "sub_float_alpha_uint8_out": lambda T: T.sub(
        _t(T, "uint8", 2), _t(T, "uint8", 3), alpha=1.5, out=_e(T, "bool")
    ),
    "add_float_alpha_out_cast": lambda T: T.add(
        _t(T, "int64", 2), _t(T, "int64", 2), alpha=1.5, out=_e(T, "bool")
    ),
    "add_complex_alpha_int": lambda T: T.add(_t(T, "int64", 2), _t(T, "int64", 2), alpha=1j),
    "add_complex_alpha_bool": lambda T: T.add(_t(T, "bool", 2), _t(T, "bool", 3), alpha=1j),
    "add__complex_alpha_int": lambda T: _t(T, "int64", 2).add_(_t(T, "int64", 2), alpha=1j),
    "add__complex_alpha_float_other": lambda T: _t(T, "int64", 2).add_(
        _t(T, "float32", 2), alpha=1j
    ),
    "sub__float_alpha_int": lambda T: _t(T, "int64", 2).sub_(_t(T, "int64", 3), alpha=1.5),
    "sub_complex_alpha_bool": lambda T: T.sub(_t(T, "bool", 2), _t(T, "bool", 2), alpha=1j),
    "sub_complex_alpha_bool_int": lambda T: T.sub(_t(T, "bool", 2), _t(T, "int64", 2), alpha=1j),
    "add_bool_alpha_half": lambda T: T.add(_t(T, "float16", 2), _t(T, "float16", 3), alpha=True),
    "add_bool_alpha_half_out": lambda T: T.add(
        _t(T, "float16", 2), _t(T, "float16", 3), alpha=True, out=_e(T, "bool")
    ),
    "add_bool_alpha_half_out_cast": lambda T: T.add(
        _t(T, "float16", 2), _t(T, "float16", 2), alpha=True, out=_e(T, "bool")
    ),
    "add_bool_tensor_alpha_half": lambda T: T.add(
        _t(T, "float16", 2), _t(T, "float16", 3), alpha=T.tensor(True)
    ),
    "add_bool_alpha_int": lambda T: T.add(_t(T, "int64", 2), _t(T, "int64", 3), alpha=True),
    "lcm_out_cast": lambda T: T.lcm(_t(T, "float32", 2), _t(T, "float32", 2), out=_e(T, "int64")),
    "gcd_out_cast_half": lambda T: T.gcd(_t(T, "bool", 2), _t(T, "float16", 2), out=_e(T, "bool")),
    "gcd_out_shapes": lambda T: T.gcd(_t(T, "float32", 2), _t(T, "float32", 3), out=_e(T, "int64")),
    "igamma_out_cast": lambda T: T.igamma(_t(T, "int64", 2), _t(T, "int64", 2), out=_e(T, "bool")),
    "igammac_out_cast": lambda T: T.igammac(_t(T, "uint8", 2), _t(T, "bool", 2), out=_e(T, "bool")),
    "gammainc_out_cast": lambda T: T.special.gammainc(
        _t(T, "int64", 2), _t(T, "int64", 2), out=_e(T, "bool")
    ),
    "igamma_out_shapes": lambda T: T.igamma(
        _t(T, "int64", 2), _t(T, "int64", 3), out=_e(T, "bool")
    ),
    "logaddexp_out_cast": lambda T: T.logaddexp(
        _t(T, "int64", 2), _t(T, "int64", 2), out=_e(T, "bool")
    ),
    "logaddexp2_out_cast": lambda T: T.logaddexp2(
        _t(T, "uint8", 2), _t(T, "int64", 2), out=_e(T, "bool")
    ),
    "nextafter_out_cast": lambda T: T.nextafter(
        _t(T, "int64", 2), _t(T, "int64", 2), out=_e(T, "bool")
    ),
    "lerp_number_weight_out_cast": lambda T: T.lerp(
        _t(T, "uint8", 2), _t(T, "uint8", 2), 0.5, out=_e(T, "bool")
    ),
    "lerp_bool": lambda T: T.lerp(_t(T, "bool", 2), _t(T, "bool", 3), 0.5),
    "lerp_tensor_weight_out": lambda T: T.lerp(
        _t(T, "bool", 2), _t(T, "bool", 3), _t(T, "bool", 2), out=_e(T, "int64")
    ),
    "lerp_tensor_weight_out_dtype": lambda T: T.lerp(
        _t(T, "int64", 2), _t(T, "int64", 2), _t(T, "int64", 2), out=_e(T, "int32")
    ),
    "lerp__bool": lambda T: _t(T, "bool", 2).lerp_(_t(T, "bool", 3), 0.5),
    "ldexp_bool_exponent": lambda T: T.ldexp(_t(T, "float16", 2), _t(T, "bool", 3)),
    "ldexp__bool_exponent": lambda T: _t(T, "float32", 2).ldexp_(_t(T, "bool", 3)),
    "gcd__bool_half": lambda T: _t(T, "bool", 2).gcd_(_t(T, "float16", 3)),
    "gcd__bool": lambda T: _t(T, "bool", 2).gcd_(_t(T, "bool", 3)),
    "lcm__float": lambda T: _t(T, "float32", 2).lcm_(_t(T, "float32", 3)),
    "ifloordiv_bool": lambda T: _t(T, "bool", 2).__ifloordiv__(_t(T, "bool", 3)),
    "imod_bool": lambda T: _t(T, "bool", 2).__imod__(_t(T, "bool", 3)),
    "ipow_bool": lambda T: _t(T, "bool", 2).__ipow__(_t(T, "bool", 3)),
    "fmod__bool": lambda T: _t(T, "bool", 2).fmod_(_t(T, "bool", 3)),
    "remainder__bool": lambda T: _t(T, "bool", 2).remainder_(_t(T, "bool", 3)),
    "floor_divide__bool": lambda T: _t(T, "bool", 2).floor_divide_(_t(T, "bool", 3)),
    "pow__bool": lambda T: _t(T, "bool", 2).pow_(_t(T, "bool", 3)),
}

# where the shapes broadcast, the dtype's and alpha's refusals are as before
CASES.update(
    {
        "gcd_float": lambda T: T.gcd(_t(T, "float32", 2), _t(T, "float32", 1)),
        "gcd_float_out_castable": lambda T: T.gcd(
            _t(T, "float32", 2), _t(T, "float32", 2), out=_e(T, "float64")
        ),
        "floor_divide_bool_broadcast": lambda T: T.floor_divide(
            _t(T, "bool", (2, 1)), _t(T, "bool", 3)
        ),
        "lerp_bool_same_shape": lambda T: T.lerp(_t(T, "bool", 2), _t(T, "bool", 2), 0.5),
        "add_float_alpha_int_same_shape": lambda T: T.add(
            _t(T, "int64", 2), _t(T, "int64", 2), alpha=1.5
        ),
        "add_bool_alpha_half_same_shape": lambda T: T.add(
            _t(T, "float16", 2), _t(T, "float16", 2), alpha=True
        ),
        "add__complex_alpha_float": lambda T: _t(T, "float32", 2).add_(
            _t(T, "float32", 2), alpha=1j
        ),
        "add_complex_alpha_float": lambda T: T.add(
            _t(T, "float32", 2), _t(T, "float32", 2), alpha=1j
        ),
        "gcd__output_shape": lambda T: _t(T, "float32", 1).gcd_(_t(T, "float32", 2)),
    }
)


SIZE = "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"

EXPECTED = {
    "floordiv_op_bool": (RuntimeError, SIZE),
    "floor_divide_bool": (RuntimeError, SIZE),
    "div_trunc_bool": (RuntimeError, SIZE),
    "div_floor_bool_out": (RuntimeError, SIZE),
    "remainder_bool": (RuntimeError, SIZE),
    "mod_op_bool": (RuntimeError, SIZE),
    "fmod_bool": (RuntimeError, SIZE),
    "pow_bool": (RuntimeError, SIZE),
    "pow_op_bool_2d": (
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    ),
    "gcd_bool": (RuntimeError, SIZE),
    "gcd_float_int": (RuntimeError, SIZE),
    "lcm_bool": (RuntimeError, SIZE),
    "add_float_alpha_int": (RuntimeError, SIZE),
    "sub_float_alpha_uint8_out": (RuntimeError, SIZE),
    "add_float_alpha_out_cast": (
        RuntimeError,
        "result type Long can't be cast to the desired output type Bool",
    ),
    "add_complex_alpha_int": (
        RuntimeError,
        "For integral input tensors, argument alpha must not be a floating point number.",
    ),
    "add_complex_alpha_bool": (RuntimeError, SIZE),
    "add__complex_alpha_int": (
        RuntimeError,
        "For integral input tensors, argument alpha must not be a floating point number.",
    ),
    "add__complex_alpha_float_other": (
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    "sub__float_alpha_int": (RuntimeError, SIZE),
    "sub_complex_alpha_bool": (
        RuntimeError,
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
        "`^` or `logical_xor()` operator instead.",
    ),
    "sub_complex_alpha_bool_int": (
        RuntimeError,
        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
        "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
    ),
    "add_bool_alpha_half": (RuntimeError, SIZE),
    "add_bool_alpha_half_out": (RuntimeError, SIZE),
    "add_bool_alpha_half_out_cast": (
        RuntimeError,
        "result type Half can't be cast to the desired output type Bool",
    ),
    "add_bool_tensor_alpha_half": (RuntimeError, SIZE),
    "add_bool_alpha_int": (RuntimeError, SIZE),
    "lcm_out_cast": (
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    "gcd_out_cast_half": (
        RuntimeError,
        "result type Half can't be cast to the desired output type Bool",
    ),
    "gcd_out_shapes": (RuntimeError, SIZE),
    "igamma_out_cast": (
        RuntimeError,
        "result type Long can't be cast to the desired output type Bool",
    ),
    "igammac_out_cast": (
        RuntimeError,
        "result type Byte can't be cast to the desired output type Bool",
    ),
    "gammainc_out_cast": (
        RuntimeError,
        "result type Long can't be cast to the desired output type Bool",
    ),
    "igamma_out_shapes": (RuntimeError, SIZE),
    "logaddexp_out_cast": (
        RuntimeError,
        "result type Long can't be cast to the desired output type Bool",
    ),
    "logaddexp2_out_cast": (
        RuntimeError,
        "result type Long can't be cast to the desired output type Bool",
    ),
    "nextafter_out_cast": (
        RuntimeError,
        "result type Long can't be cast to the desired output type Bool",
    ),
    "lerp_number_weight_out_cast": (
        RuntimeError,
        "result type Byte can't be cast to the desired output type Bool",
    ),
    "lerp_bool": (RuntimeError, SIZE),
    "lerp_tensor_weight_out": (RuntimeError, SIZE),
    "lerp_tensor_weight_out_dtype": (RuntimeError, "Found dtype Int but expected Long"),
    "lerp__bool": (RuntimeError, SIZE),
    "ldexp_bool_exponent": (RuntimeError, SIZE),
    "ldexp__bool_exponent": (RuntimeError, SIZE),
    "gcd__bool_half": (RuntimeError, SIZE),
    "gcd__bool": (RuntimeError, SIZE),
    "lcm__float": (RuntimeError, SIZE),
    "ifloordiv_bool": (RuntimeError, SIZE),
    "imod_bool": (RuntimeError, SIZE),
    "ipow_bool": (RuntimeError, SIZE),
    "fmod__bool": (RuntimeError, SIZE),
    "remainder__bool": (RuntimeError, SIZE),
    "floor_divide__bool": (RuntimeError, SIZE),
    "pow__bool": (RuntimeError, SIZE),
    "gcd_float": (NotImplementedError, "\"gcd_cpu\" not implemented for 'Float'"),
    "gcd_float_out_castable": (NotImplementedError, "\"gcd_cpu\" not implemented for 'Float'"),
    "floor_divide_bool_broadcast": (
        NotImplementedError,
        "\"div_floor_cpu\" not implemented for 'Bool'",
    ),
    "lerp_bool_same_shape": (
        NotImplementedError,
        "\"lerp_kernel_scalar\" not implemented for 'Bool'",
    ),
    "add_float_alpha_int_same_shape": (
        RuntimeError,
        "For integral input tensors, argument alpha must not be a floating point number.",
    ),
    "add_bool_alpha_half_same_shape": (
        RuntimeError,
        "Boolean alpha only supported for Boolean results.",
    ),
    "add__complex_alpha_float": (
        RuntimeError,
        "For non-complex input tensors, argument alpha must not be a complex number.",
    ),
    "add_complex_alpha_float": (
        RuntimeError,
        "For non-complex input tensors, argument alpha must not be a complex number.",
    ),
    "gcd__output_shape": (
        RuntimeError,
        "output with shape [1] doesn't match the broadcast shape [2]",
    ),
}


def test_every_case_has_an_expectation():
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("name", list(CASES))
def test_error_order(name):
    kind, message = EXPECTED[name]
    with pytest.raises(kind) as info:
        CASES[name](mt)
    assert type(info.value) is kind, (name, info.value)  # (not a subclass)
    assert str(info.value).splitlines()[0] == message, name
