"""Session 39 (helper dtypefuzz): torch-free regression tests of the library fixes the dtype
promotion and casting fuzzer of tests/reference/test_s39_dtypefuzz_reference.py found: out= in
the argument parser's "got (...)"; out='s cast check
before an integer division by zero, hypot's and lerp's missing kernels, pow's exponent
conversion and add/sub's alpha refusals (and the in-place shape and cast checks before those);
lerp's and clamp's out= dtype rules; uint8 with a negative alpha or value wrapping, an
out-of-range one refused; a number first operand of mul/div rounded to the half dtype. torch's
messages and values are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _combination(op, got, forms):
    listed = "".join(f" * ({f})\n" for f in forms)
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listed}"
    )


COMPARE = ("Tensor input, Tensor other, *, Tensor out = None",
           "Tensor input, Number other, *, Tensor out = None")  # fmt: skip
CLAMP = ("Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
         "Tensor input, Number min = None, Number max = None, *, Tensor out = None")  # fmt: skip
LERP = ("Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
        "Tensor input, Tensor end, Number weight, *, Tensor out = None")  # fmt: skip


def test_parser_error_names_out():
    t = mt.tensor([1.0, -2.0])
    o = mt.empty(0)
    kw = {"out": o}
    assert _message(TypeError, lambda: mt.fmod(1, t, out=o)) == _combination(
        "fmod", "int, Tensor, out=Tensor", COMPARE
    )
    assert _message(TypeError, lambda: mt.fmod(1, t, out=None)) == _combination(
        "fmod", "int, Tensor, out=NoneType", COMPARE
    )
    assert _message(TypeError, lambda: mt.fmod(1, t, **kw)) == _combination(
        "fmod", "int, Tensor, out=Tensor", COMPARE
    )
    assert _message(TypeError, lambda: mt.fmod(1, t)) == _combination(
        "fmod", "int, Tensor", COMPARE
    )
    assert _message(TypeError, lambda: mt.lt(np.int32(1), t, out=o)) == _combination(
        "lt", "numpy.int32, Tensor, out=Tensor", COMPARE
    )
    assert _message(TypeError, lambda: mt.clamp(t, 1.0, t, out=o)) == _combination(
        "clamp", "Tensor, float, Tensor, out=Tensor", CLAMP
    )
    assert _message(TypeError, lambda: mt.lerp(t, True, t, out=o)) == _combination(
        "lerp", "Tensor, bool, Tensor, out=Tensor", LERP
    )


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b, out: mt.fmod(a, b, out=out),
        lambda a, b, out: mt.remainder(a, b, out=out),
        lambda a, b, out: mt.div(a, b, rounding_mode="floor", out=out),
        lambda a, b, out: mt.div(a, b, rounding_mode="trunc", out=out),
        lambda a, b, out: mt.floor_divide(a, b, out=out),
    ],
)
def test_integer_division_by_zero_checks_out_first(op):
    a = mt.tensor([1, 2, 3], dtype=mt.int8)
    b = mt.tensor([0, 1, 2])
    assert _message(RuntimeError, lambda: op(a, b, mt.empty(0, dtype=mt.bool))) == (
        "result type Long can't be cast to the desired output type Bool"
    )
    assert _message(RuntimeError, lambda: op(a, b, mt.empty(0, dtype=mt.int64))) == (
        "ZeroDivisionError"
    )


def test_out_cast_before_kernel_errors():
    i32 = mt.tensor([1, 2, 3], dtype=mt.int32)
    assert _message(RuntimeError, lambda: mt.hypot(i32, i32, out=mt.empty(0, dtype=mt.bool))) == (
        "result type Int can't be cast to the desired output type Bool"
    )
    assert _message(NotImplementedError, lambda: mt.hypot(i32, i32)) == (
        "\"hypot_cpu\" not implemented for 'Int'"
    )
    half = mt.tensor([1.0, 2.0], dtype=mt.float16)
    assert _message(RuntimeError, lambda: mt.pow(half, 1e5, out=mt.empty(0, dtype=mt.int8))) == (
        "result type Half can't be cast to the desired output type Char"
    )
    assert _message(RuntimeError, lambda: mt.pow(half, 1e5)) == (
        "value cannot be converted to type c10::Half without overflow"
    )
    assert _message(RuntimeError, lambda: mt.pow(i32, -1, out=mt.empty(0, dtype=mt.bool))) == (
        "Integers to negative integer powers are not allowed."
    )


def test_alpha_refused_after_the_output_checks():
    f32 = mt.tensor([1.0, 2.0, 3.0])
    i32 = mt.tensor([1, 2, 3], dtype=mt.int32)
    cases = [
        (lambda: mt.tensor(1.0).add_(f32, alpha=True),
         "output with shape [] doesn't match the broadcast shape [3]"),
        (lambda: i32.clone().add_(f32, alpha=True),
         "result type Float can't be cast to the desired output type Int"),
        (lambda: i32.clone().sub_(f32.bfloat16(), alpha=True),
         "result type BFloat16 can't be cast to the desired output type Int"),
        (lambda: mt.add(f32, f32, alpha=True, out=mt.empty(0, dtype=mt.int8)),
         "result type Float can't be cast to the desired output type Char"),
        (lambda: mt.add(f32.half(), f32.bfloat16(), alpha=True, out=mt.empty(0, dtype=mt.uint8)),
         "result type Float can't be cast to the desired output type Byte"),
        (lambda: mt.tensor(True).add_(mt.tensor(2, dtype=mt.uint8), alpha=0.5),
         "result type Byte can't be cast to the desired output type Bool"),
        (lambda: mt.add(i32, i32, alpha=0.5, out=mt.empty(0, dtype=mt.bool)),
         "result type Int can't be cast to the desired output type Bool"),
        (lambda: mt.add(i32, i32, alpha=0.5),
         "For integral input tensors, argument alpha must not be a floating point number."),
        (lambda: mt.add(f32, f32, alpha=True), "Boolean alpha only supported for Boolean results."),
        (lambda: mt.add(f32, f32, alpha=True, out=mt.empty(0, dtype=mt.float64)),
         "Boolean alpha only supported for Boolean results."),
    ]  # fmt: skip
    for fn, msg in cases:
        assert _message(RuntimeError, fn) == msg


def test_uint8_negative_alpha_and_value_wrap():
    u8 = mt.tensor([3, 1, 200, 0], dtype=mt.uint8)
    assert u8.clone().add_(u8, alpha=-1).tolist() == [0, 0, 0, 0]
    assert u8.clone().sub_(u8[:1], alpha=-2).tolist() == [9, 7, 206, 6]
    assert mt.addcmul(u8, u8, u8, value=-1).tolist() == [250, 0, 136, 0]
    assert u8.clone().addcmul_(u8, u8, value=-3).tolist() == [232, 254, 8, 0]
    i8 = u8.to(mt.int8)
    assert mt.addcmul(i8, i8, i8, value=-128).tolist() == [-125, -127, -56, 0]
    overflow = "value cannot be converted to type int8_t without overflow"
    assert _message(RuntimeError, lambda: mt.addcmul(i8, i8, i8, value=200)) == overflow
    assert _message(RuntimeError, lambda: mt.add(i8, i8, alpha=200)) == overflow
    assert _message(RuntimeError, lambda: i8.clone().add_(i8, alpha=200)) == overflow
    assert _message(RuntimeError, lambda: mt.addcmul(u8, u8, u8, value=-300)) == (
        "value cannot be converted to type uint8_t without overflow"
    )


def test_lerp_out_dtypes():
    i8 = mt.tensor([1, 2], dtype=mt.int8)
    f32 = mt.tensor([1.0, 2.5, -3.0])
    out = lambda dt: mt.empty(0, dtype=dt)  # noqa: E731
    assert _message(RuntimeError, lambda: mt.lerp(i8, i8, i8, out=out(mt.int16))) == (
        "Found dtype Short but expected Char"
    )
    w = mt.tensor(1, dtype=mt.int8)
    assert _message(NotImplementedError, lambda: mt.lerp(i8, i8, w, out=out(mt.int16))) == (
        "\"lerp_kernel_tensor\" not implemented for 'Char'"
    )
    b = mt.tensor([True, True])
    u = mt.tensor(7, dtype=mt.uint8)
    assert _message(RuntimeError, lambda: mt.lerp(mt.tensor(False), b, u, out=out(mt.bool))) == (
        "result type Byte can't be cast to the desired output type Bool"
    )
    r = mt.lerp(f32, f32 * 2, mt.tensor(0.5), out=out(mt.float64))
    assert r.dtype == mt.float64 and r.tolist() == [1.5, 3.75, -4.5]
    r = mt.lerp(i8, i8, mt.tensor(1.5), out=out(mt.float64))
    assert r.dtype == mt.float64 and r.tolist() == [1.0, 2.0]
    assert _message(RuntimeError, lambda: mt.lerp(f32, f32, f32, out=out(mt.float64))) == (
        "Found dtype Double but expected Float"
    )


def test_clamp_mixed_bounds_out_dtype():
    f32 = mt.tensor([1.0, 2.5, -3.0])
    out = lambda dt: mt.empty(0, dtype=dt)  # noqa: E731
    assert _message(
        RuntimeError, lambda: mt.clamp(f32, 1.5, mt.tensor(2.0), out=out(mt.float64))
    ) == ("Found dtype Double but expected Float")
    assert mt.clamp(f32, 1.5, mt.tensor(2.0), out=out(mt.float32)).tolist() == [1.5, 2.0, 1.5]
    r = mt.clamp(f32, mt.tensor(-1.5), mt.tensor(2.0), out=out(mt.float64))
    assert r.dtype == mt.float64 and r.tolist() == [1.0, 2.0, -1.5]  # (tensor bounds: cast)


def test_number_first_rounded_to_half():
    x = mt.tensor([-2.5, 3.0, 0.25, 1.0, 7.0], dtype=mt.float16)
    c = 1.0 + 3 * 2**-12  # float16(c) is 1 + 2**-10
    assert mt.mul(c, x).tolist() == [-2.501953125, 3.00390625, 0.250244140625, 1.0009765625,
                                     7.0078125]  # fmt: skip
    assert mt.mul(np.float64(c), x).tolist() == mt.mul(c, x).tolist()
    # c * x is x.mul(c): c read in float32
    assert (c * x).tolist() == [-2.501953125, 3.001953125, 0.250244140625, 1.0009765625, 7.00390625]
    assert mt.div(c, x).tolist()[1] == 0.333740234375
    assert mt.true_divide(c, x).tolist()[1] == 0.333740234375
    assert (c / x).tolist()[1] == 0.33349609375
    y = mt.tensor([-2.5, 3.0, 0.25, -0.0], dtype=mt.float16)
    assert str(mt.mul(1e5, y).tolist()) == "[-inf, inf, inf, nan]"
    assert mt.div(1e5, y).tolist() == [-float("inf"), float("inf"), float("inf"), -float("inf")]
    assert (1e5 * y).tolist() == [-float("inf"), float("inf"), 24992.0, -0.0]
    b = mt.tensor([3.0, 7.0], dtype=mt.bfloat16)
    assert mt.mul(1.0 + 3 * 2**-9, b).tolist() == [3.03125, 7.0625]


def test_clamp_bool_out_dtype_before_kernel():
    b = mt.tensor([True, False])
    o = mt.empty(0)
    found = "Found dtype Float but expected Bool"
    assert _message(RuntimeError, lambda: mt.clamp(b, mt.tensor(False), True, out=o)) == found
    assert _message(RuntimeError, lambda: mt.clamp(b, False, True, out=o)) == found
    assert _message(RuntimeError, lambda: mt.clamp(b, min=False, out=o)) == found
    assert _message(NotImplementedError, lambda: mt.clamp(b, False, True)) == (
        "\"clamp_scalar_cpu\" not implemented for 'Bool'"
    )
    assert _message(
        NotImplementedError, lambda: mt.clamp(b, mt.tensor(False), mt.tensor(True), out=o)
    ) == ("\"clamp_cpu\" not implemented for 'Bool'")
