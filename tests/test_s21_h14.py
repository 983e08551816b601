"""Session 21, h14: dtype promotion and casting findings of a differential fuzzer vs torch 2.13.

Expected values are literals obtained by running torch 2.13.0 on the same inputs."""

import math
import re

import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _vals(t):
    return t.to(torch.float64).tolist() if t.dtype.is_floating_point else t.tolist()


# --- add/sub alpha: the float-alpha refusal looks at the result dtype ---


def test_add_float_alpha_with_bool_tensor_and_float_tensor():
    # torch: the result is float32, so a float alpha is allowed whichever operand is the bool
    r = torch.add(torch.tensor([True, False]), torch.tensor([1.5, 2.0]), alpha=0.5)
    assert r.dtype is torch.float32
    assert r.tolist() == [1.75, 1.0]
    r = torch.add(torch.tensor([1.5, 2.0]), torch.tensor([True, False]), alpha=0.5)
    assert r.tolist() == [2.0, 2.0]
    r = torch.sub(torch.tensor([3, 4]), torch.tensor([1.5, 2.0], dtype=torch.float64), alpha=0.5)
    assert r.dtype is torch.float64 and r.tolist() == [2.25, 3.0]
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        torch.add(torch.tensor([True]), torch.tensor([1]), alpha=0.5)


def test_add_float_alpha_gradients_with_bool_operand():
    mask = torch.tensor([True, False, True])
    b = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda b: torch.add(mask, b, alpha=0.5), (b,))
    assert gradgradcheck(lambda b: torch.add(mask, b * b, alpha=0.5), (b,))


# --- logical ops test their operands in the common dtype ---


def test_logical_ops_cast_to_common_dtype():
    a = torch.tensor([1, 2], dtype=torch.int8)
    # a 0-d int16 -32768 is 0 as int8 (the common dtype of an int8 tensor and a 0-d int16)
    assert torch.logical_and(a, torch.tensor(-32768, dtype=torch.int16)).tolist() == [False, False]
    h = torch.tensor([0.0], dtype=torch.float16)
    tiny = torch.tensor(1e-8, dtype=torch.float64)  # 0 in float16
    assert torch.logical_or(h, tiny).tolist() == [False]
    assert torch.logical_xor(h, tiny).tolist() == [False]
    u = torch.tensor([1], dtype=torch.uint8)
    assert torch.logical_and(u, torch.tensor(256)).tolist() == [False]
    assert torch.logical_and(u, torch.tensor(0.5)).tolist() == [True]  # float wins: 0.5
    out = torch.empty(1)
    torch.logical_and(u, torch.tensor(256), out=out)
    assert out.tolist() == [0.0]


def test_logical_inplace_cast_to_common_dtype():
    a = torch.tensor([1, 2], dtype=torch.int8)
    a.logical_and_(torch.tensor(256))
    assert a.tolist() == [0, 0]
    b = torch.tensor([32767, 0, -1], dtype=torch.int16)
    b.logical_or_(torch.tensor(-2147483648, dtype=torch.int32))
    assert b.tolist() == [1, 0, 1]


# --- lcm: torch's |a / gcd * b| wraps before the absolute value (int32, int64) ---


def test_lcm_wraps_before_abs():
    i32 = torch.int32
    assert torch.lcm(
        torch.tensor([130], dtype=i32), torch.tensor([2147483647], dtype=i32)
    ).tolist() == [130]
    r = torch.lcm(
        torch.tensor([-2147483647, 0, 0, 6, -4], dtype=i32),
        torch.tensor([2, 0, 5, -4, 6], dtype=i32),
    )
    assert r.tolist() == [2, 0, 0, 12, 12]
    r = torch.lcm(torch.tensor([126], dtype=torch.int8), torch.tensor([3, 9223372036854775807]))
    assert r.dtype is torch.int64 and r.tolist() == [126, 18]
    # narrower types compute in C int: the absolute value first, then the wrap
    r = torch.lcm(torch.tensor([25, -25, 127, 100], dtype=torch.int8),
                  torch.tensor([7, 7, 3, 3], dtype=torch.int8))  # fmt: skip
    assert r.tolist() == [-81, -81, 125, 44]
    u = torch.tensor([32, 200], dtype=torch.uint8)
    u.lcm_(torch.tensor([9223372036854775807, 7]))
    assert u.tolist() == [32, 120]


# --- a half tensor times / over a 0-d integer tensor: the integer is read in float32 ---


def test_half_mul_div_by_0d_integer_tensor():
    x = torch.tensor([1.5, 1e-4, 3.0], dtype=torch.float16)
    big = torch.tensor(70000, dtype=torch.int32)  # inf as float16
    assert _vals(x * big) == [math.inf, 7.0, math.inf]
    assert _vals(x / big) == [2.1457672119140625e-05, 0.0, 4.285573959350586e-05]
    assert _vals(torch.true_divide(x, big)) == _vals(x / big)
    y = x.clone()
    y /= big
    assert _vals(y) == [2.1457672119140625e-05, 0.0, 4.285573959350586e-05]
    assert _vals(torch.div(x, big, rounding_mode="trunc")) == [0.0, 0.0, 0.0]
    h = torch.tensor([6e4], dtype=torch.float16)
    assert _vals(torch.floor_divide(h, torch.tensor(7000, dtype=torch.int32))) == [8.0]
    b = torch.tensor([1.5, 1e-4, 3.0], dtype=torch.bfloat16)
    s = torch.tensor(301, dtype=torch.int16)  # 300 as bfloat16
    assert _vals(b * s) == [452.0, 0.0301513671875, 904.0]
    assert _vals(b / torch.tensor(70000)) == [
        2.1457672119140625e-05,
        1.433363649994135e-09,
        4.291534423828125e-05,
    ]
    assert _vals(torch.tensor([0.5], dtype=torch.bfloat16).mul(torch.tensor(257))) == [128.0]


def test_half_mul_div_by_0d_integer_tensor_backward():
    x = torch.tensor([1.5, 1e-4, 3.0], dtype=torch.bfloat16, requires_grad=True)
    (x * torch.tensor(301, dtype=torch.int16)).backward(torch.ones(3, dtype=torch.bfloat16))
    assert x.grad.dtype is torch.bfloat16 and _vals(x.grad) == [300.0, 300.0, 300.0]
    x = torch.tensor([1.5, 1e-4, 3.0], dtype=torch.bfloat16, requires_grad=True)
    y = x / torch.tensor(70000)
    assert type(y.grad_fn).__name__ == "DivBackward0"
    y.backward(torch.ones(3, dtype=torch.bfloat16))
    assert _vals(x.grad) == [1.430511474609375e-05] * 3
    # float64 (not the half path): first and second derivatives through a 0-d int scale
    w = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
    k = torch.tensor(3)
    assert gradcheck(lambda w: w * k / k * w, (w,))
    assert gradgradcheck(lambda w: w * k / k * w, (w,))


# --- errors ---


def test_ldexp_cast_errors_name_ldexp():
    with pytest.raises(RuntimeError, match="^ldexp can't be cast to the desired output type Bool$"):
        torch.tensor([True]).ldexp_(torch.tensor([1]))
    with pytest.raises(RuntimeError, match="^ldexp can't be cast to the desired output type Long$"):
        torch.tensor([1]).ldexp_(torch.tensor([1]))
    with pytest.raises(RuntimeError, match="^ldexp can't be cast to the desired output type Byte$"):
        torch.ldexp(torch.tensor([True]), torch.tensor([1]), out=torch.empty(1, dtype=torch.uint8))
    # the out check comes before the bool-exponent kernel check, as torch's
    with pytest.raises(RuntimeError, match="^ldexp can't be cast to the desired output type Bool$"):
        torch.ldexp(torch.tensor([1.5]), torch.tensor([True]), out=torch.empty(1, dtype=torch.bool))
    x = torch.tensor([1.5, -2.0])
    x.ldexp_(torch.tensor([2, -1]))
    assert x.tolist() == [6.0, -1.0]


def test_heaviside_out_of_other_dtype_raises():
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with"):
        torch.heaviside(torch.tensor([1.0, 0.0]), torch.tensor([0.5, 0.5]),
                        out=torch.empty(2, dtype=torch.float64))  # fmt: skip
    out = torch.empty(2)
    torch.heaviside(torch.tensor([1.0, 0.0]), torch.tensor([0.5, 0.5]), out=out)
    assert out.tolist() == [1.0, 0.5]


def test_inplace_cast_error_before_zero_division():
    with pytest.raises(RuntimeError, match="^result type Char can't be cast to the desired output"):
        torch.tensor([True, False]).floor_divide_(torch.tensor([1, 0], dtype=torch.int8))
    x = torch.tensor([True, False])
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output"):
        x //= torch.tensor(0)
    with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
        torch.tensor([3, 4]).remainder_(torch.tensor([1, 0]))


def test_maximum_minimum_number_operand_message():
    x = torch.tensor([1.0])
    for op in ("maximum", "minimum"):
        msg = f"{op}(): argument 'other' (position 2) must be Tensor, not int"
        with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
            getattr(torch, op)(x, 1)
        with pytest.raises(TypeError, match="argument 'input' .position 1. must be Tensor"):
            getattr(torch, op)(1, x)


def test_clamp_nan_bound_skips_the_other_bounds_conversion():
    h = torch.tensor([1.0, 2.0], dtype=torch.float16)
    for lo, hi in ((1e300, math.nan), (math.nan, 1e300), (2**40, math.nan)):
        r = torch.clamp(h, lo, hi)
        assert r.dtype is torch.float16 and all(math.isnan(v) for v in _vals(r))
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half"):
        torch.clamp(h, 1e300, 2.0)
    with pytest.raises(OverflowError, match="int too big to convert"):
        torch.clamp(torch.tensor([1, 2]), 2**70, math.nan)
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        torch.clamp(torch.tensor([1, 2]), -(2**63) - 1)


def test_inplace_method_names_itself_for_a_number_operand():
    x = torch.tensor([1.0, 2.0])
    cases = [
        ("atan2_", "other", 2.0),
        ("hypot_", "other", 1),
        ("logical_or_", "other", True),
        ("heaviside_", "values", 0.5),
        ("nextafter_", "other", 1.0),
    ]
    for op, arg, v in cases:
        msg = f"{op}(): argument '{arg}' (position 1) must be Tensor, not {type(v).__name__}"
        with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
            getattr(x, op)(v)
    i = torch.tensor([4, 6])
    with pytest.raises(TypeError, match=re.escape("gcd_(): argument 'other' (position 1)")):
        i.gcd_(2)


def test_inplace_shape_error_before_kernel_errors():
    msg = re.escape("output with shape [] doesn't match the broadcast shape [2, 3]")
    with pytest.raises(RuntimeError, match=msg):  # not div_floor's Bool kernel error
        torch.tensor(True).floor_divide_(torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(RuntimeError, match=msg):  # not ZeroDivisionError
        torch.tensor(3, dtype=torch.uint8).floor_divide_(torch.zeros(2, 3, dtype=torch.bool))
    with pytest.raises(RuntimeError, match=msg):  # not lerp's Int kernel error
        torch.tensor(0, dtype=torch.int32).lerp_(torch.ones(2, 3, dtype=torch.int32), 0.5)
