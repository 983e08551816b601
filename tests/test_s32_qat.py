"""Session 32 (helper qat): torch-free checks of what the quantization programs in
tests/reference/test_s32_qat_reference.py found: fake_quantize_per_tensor_affine reads its
arguments as torch's two overloads do (0-d tensors as numbers, the "invalid combination"
listing), the per-channel and learnable quantizers word keyword arguments and read int-likes
as torch, round refuses positional decimals and integer input given decimals= as torch,
aminmax's dim is one int, and clamp(x, ..., out=x) is checked as the in-place clamp_ (torch
2.13's values and messages are written below as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

PER_TENSOR = "fake_quantize_per_tensor_affine"
LISTING = (
    f"{PER_TENSOR}() received an invalid combination of arguments - got ({{got}}), but expected "
    "one of:\n"
    " * (Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max)\n"
    "      didn't match because some of the arguments have invalid types: ({first})\n"
    " * (Tensor input, float scale, int zero_point, int quant_min, int quant_max)\n"
    "      didn't match because some of the arguments have invalid types: ({second})\n"
)


def _message(fn):
    with pytest.raises(Exception) as info:
        fn()
    return f"{type(info.value).__name__}: {info.value}"


def test_fake_quantize_per_tensor_reads_0d_tensors_and_bools_as_numbers():
    x = mt.tensor([0.26, 1.0, -0.4, 30.0])
    want = [0.30000001192092896, 1.0, -0.4000000059604645, 12.40000057220459]
    for scale, zp, qmax in [
        (0.1, mt.tensor(3), 127),  # a 0-d integer tensor for the int zero point
        (mt.tensor(0.1), 3, 127),  # a 0-d tensor for the float scale
        (0.1, 3, mt.tensor(127)),
    ]:
        got = mt.fake_quantize_per_tensor_affine(x, scale, zp, -128, qmax)
        np.testing.assert_allclose(got.numpy(), want, rtol=0, atol=0)
    got = mt.fake_quantize_per_tensor_affine(x, True, 0, -2, 2)  # (a bool is a float there)
    assert got.tolist() == [0.0, 1.0, 0.0, 2.0]


@pytest.mark.parametrize(
    "args, got, first, second",
    [
        ((0.1, 1.5, 0, 255), "Tensor, float, float, int, int", "Tensor, !float!, !float!, int, "
         "int", "Tensor, float, !float!, int, int"),
        (("a", 1, 0, 255), "Tensor, str, int, int, int", "Tensor, !str!, !int!, int, int",
         "Tensor, !str!, int, int, int"),
        ((0.1, True, 0, 255), "Tensor, float, bool, int, int", "Tensor, !float!, !bool!, int, "
         "int", "Tensor, float, !bool!, int, int"),
        ((True, 1.5, 0, 255), "Tensor, bool, float, int, int", "Tensor, !bool!, !float!, int, "
         "int", "Tensor, !bool!, !float!, int, int"),
        ((mt.tensor(0.1), 1.5, 0, 255), "Tensor, Tensor, float, int, int", "Tensor, Tensor, "
         "!float!, int, int", "Tensor, !Tensor!, !float!, int, int"),
        ((0.1, mt.tensor(1.0), 0, 255), "Tensor, float, Tensor, int, int", "Tensor, !float!, "
         "Tensor, int, int", "Tensor, float, !Tensor!, int, int"),
        ((mt.tensor(0.1), mt.tensor(1), 0.0, 255), "Tensor, Tensor, Tensor, float, int",
         "Tensor, Tensor, Tensor, !float!, int", "Tensor, !Tensor!, !Tensor!, !float!, int"),
    ],
)  # fmt: skip
def test_fake_quantize_per_tensor_lists_both_overloads(args, got, first, second):
    want = LISTING.format(got=got, first=first, second=second)
    msg = _message(lambda: mt.fake_quantize_per_tensor_affine(mt.ones(2), *args))
    assert msg == "TypeError: " + want


def test_fake_quantize_per_tensor_listing_of_keywords_and_a_list_input():
    msg = _message(
        lambda: mt.fake_quantize_per_tensor_affine(mt.ones(2), 0.1, 1, quant_max=0.5, quant_min=0)
    )
    assert msg == "TypeError: " + LISTING.format(
        got="Tensor, float, int, quant_min=int, quant_max=float",
        first="Tensor, !float!, !int!, quant_min=int, !quant_max=float!",
        second="Tensor, float, int, quant_min=int, !quant_max=float!",
    )
    msg = _message(lambda: mt.fake_quantize_per_tensor_affine([1.0], 0.1, 1, 0, 255))
    assert msg == "TypeError: " + LISTING.format(
        got="list, float, int, int, int",
        first="!list of [float]!, !float!, !int!, int, int",
        second="!list of [float]!, float, int, int, int",
    )


def test_per_channel_and_learnable_word_keywords_and_read_int_likes():
    f, sc, zp = mt.ones(2, 3), mt.ones(3), mt.zeros(3, dtype=mt.int32)
    op = "fake_quantize_per_channel_affine"
    msg = _message(lambda: mt.fake_quantize_per_channel_affine(f, sc, zp, 1, 0, quant_max=1.5))
    assert msg == f"TypeError: {op}(): argument 'quant_max' must be int, not float"
    msg = _message(lambda: mt.fake_quantize_per_channel_affine(f, sc, zp, True, 0, 255))
    assert msg == f"TypeError: {op}(): argument 'axis' (position 4) must be int, not bool"
    out = mt.fake_quantize_per_channel_affine(f, sc, zp, 1, mt.tensor(0), 255)
    assert out.tolist() == [[1.0] * 3] * 2
    s, z = mt.tensor([0.1]), mt.tensor([0.0])
    learnable = mt._fake_quantize_learnable_per_tensor_affine
    op = "_fake_quantize_learnable_per_tensor_affine"
    msg = _message(lambda: learnable(f, s, z, 0, 255, grad_factor="a"))
    assert msg == f"TypeError: {op}(): argument 'grad_factor' must be float, not str"
    out = learnable(f, s, z, 0, mt.tensor(255), mt.tensor(1.0))
    np.testing.assert_allclose(out.numpy(), np.ones((2, 3)), rtol=1e-6)


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x: x.round(1), "round() takes from 1 to 0 positional arguments but 1 were given"),
        (lambda x: mt.round(x, 1, decimals=2),
         "round() takes from 2 to 1 positional arguments but 2 were given"),
        (lambda x: x.round_(2), "round_() takes from 1 to 0 positional arguments but 1 were given"),
        (lambda x: mt.round_(x, 2),
         "round_() takes from 2 to 1 positional arguments but 2 were given"),
        (lambda x: mt.round(x, 1),
         "round() received an invalid combination of arguments - got (Tensor, int), but "
         "expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, *, int "
         "decimals, Tensor out = None)\n"),
        (lambda x: x.round(1, 2),
         "round() received an invalid combination of arguments - got (int, int), but expected "
         "one of:\n * ()\n * (*, int decimals)\n      didn't match because some of the "
         "arguments have invalid types: (!int!, int)\n"),
        (lambda x: mt.round(x, 1, out=x, decimals=2),
         "round() received an invalid combination of arguments - got (Tensor, int, decimals=int, "
         "out=Tensor), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor "
         "input, *, int decimals, Tensor out = None)\n      didn't match because some of the "
         "keywords were incorrect: out\n"),
        (lambda x: x.round_(decimals=1.5), "round_(): argument 'decimals' must be int, not float"),
    ],
)  # fmt: skip
def test_round_refuses_positional_decimals_as_torch(call, want):
    assert _message(lambda: call(mt.ones(2))) == "TypeError: " + want


def test_round_of_integers_given_decimals_is_refused():
    i8 = mt.tensor([1, -3], dtype=mt.int8)
    want = "NotImplementedError: \"round_vml_cpu\" not implemented for 'Char'"
    assert _message(lambda: mt.round(i8, decimals=0)) == want
    assert _message(lambda: i8.round(decimals=0)) == want
    assert _message(lambda: i8.round_(decimals=0)) == want
    assert _message(lambda: mt.round(i8, decimals=0, out=i8)) == want
    want_bool = "NotImplementedError: \"round_vml_cpu\" not implemented for 'Bool'"
    assert _message(lambda: mt.round(mt.tensor([True]), decimals=0)) == want_bool
    assert mt.round(i8).tolist() == [1, -3] and i8.round_().tolist() == [1, -3]
    assert mt.round(mt.tensor([2.5, 0.125]), decimals=0).tolist() == [2.0, 0.0]


def test_aminmax_dim_is_one_int():
    x = mt.ones(2, 3)
    want = "TypeError: aminmax(): argument 'dim' must be int, not tuple"
    assert _message(lambda: mt.aminmax(x, dim=(0, 1))) == want
    assert _message(lambda: x.aminmax(dim=(0, 1))) == want
    assert _message(lambda: mt.aminmax(x, dim=[0])) == want.replace("tuple", "list")
    want = "TypeError: aminmax() takes 0 positional arguments but 1 was given"
    assert _message(lambda: x.aminmax(0)) == want
    lo, hi = mt.aminmax(mt.tensor([[1.0, 5.0], [-2.0, 0.0]]), dim=mt.tensor(1))
    assert lo.tolist() == [1.0, -2.0] and hi.tolist() == [5.0, 0.0]


def test_clamp_into_its_own_input_is_checked_as_clamp_():
    i8 = mt.tensor([1, 5, -3], dtype=mt.int8)
    number = "RuntimeError: result type Float can't be cast to the desired output type "
    assert _message(lambda: mt.clamp(i8, 0, 1.5, out=i8)) == number + "signed char"
    assert _message(lambda: mt.clamp_min(i8, 1.5, out=i8)) == number + "signed char"
    i = mt.tensor([1, 2])
    assert _message(lambda: mt.clip(i, 0.5, out=i)) == number + "long int"
    assert _message(lambda: mt.clamp(i8, mt.tensor(0.5), out=i8)) == number + "Char"
    # a 0-d tensor beside a number bound is read as a number: the number kernel's spelling
    assert _message(lambda: i8.clamp_(mt.tensor(0.5), 1)) == number + "signed char"
    assert _message(lambda: mt.clamp(i8, 1, mt.tensor(1.5), out=i8)) == number + "signed char"
    # another tensor as out keeps the out= rule
    assert _message(lambda: mt.clamp(i8, 0.5, out=i8[:])) == (
        "RuntimeError: Found dtype Char but expected Float"
    )
    assert mt.clamp(i8, 0, 2, out=i8) is i8 and i8.tolist() == [1, 2, 0]
    assert _message(lambda: mt.clip(i8, "a", out=i8)) == (
        "TypeError: clip() received an invalid combination of arguments - got (Tensor, str, "
        "out=Tensor), but expected one of:\n"
        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
    )


def test_clamp_out_requiring_grad_is_refused_first_by_name():
    out = mt.ones(3, requires_grad=True)
    want = (
        "RuntimeError: clamp(): functions with out=... arguments don't support automatic "
        "differentiation, but one of the arguments requires grad."
    )
    assert _message(lambda: mt.clamp(mt.ones(3, dtype=mt.int8), 0, 1.5, out=out)) == want
    assert _message(lambda: mt.clamp(mt.ones(3, dtype=mt.float16), 0, 1, out=out)) == want
    assert _message(lambda: mt.clamp_min(mt.ones(3, dtype=mt.int8), 0.5, out=out)) == (
        want.replace("clamp()", "clamp_min()")
    )
    with mt.no_grad():
        assert mt.clamp(mt.tensor([3.0, -1.0, 0.5]), 0, 1, out=out).tolist() == [1.0, 0.0, 0.5]
