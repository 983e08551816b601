"""Session 28 (helper det): library fixes found by running object-detection programs (box ops,
NMS, anchors, matchers, DETR/YOLO/CenterNet targets, RoIAlign, training) against torch 2.13; the
messages below are torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._tensor_str import cpp_str

_MAX_FORMS = (
    " * (Tensor input, *, Tensor out = None)\n"
    " * (Tensor input, Tensor other, *, Tensor out = None)\n"
    " * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n"
)


def _message(fn, exc=TypeError):
    with pytest.raises(exc) as info:
        fn()
    return str(info.value)


# --- Tensor.max/min's own overloads (x.max(dim=(1, 2)) is the usual mistake for amax) ---


def test_max_method_names_its_own_overloads():
    b = mt.zeros(4, 4)
    assert _message(lambda: b.max(dim=(0, 1))) == (
        "max() received an invalid combination of arguments - got (dim=tuple, ), but expected "
        "one of:\n * ()\n      didn't match because some of the keywords were incorrect: dim\n"
        " * (Tensor other)\n      didn't match because some of the keywords were incorrect: dim\n"
        " * (int dim, bool keepdim = False)\n"
    )
    assert _message(lambda: b.min(1.5)) == (
        "min() received an invalid combination of arguments - got (float), but expected one "
        "of:\n * ()\n      didn't match because some of the arguments have invalid types: "
        "(!float!)\n * (Tensor other)\n      didn't match because some of the arguments have "
        "invalid types: (!float!)\n * (int dim, bool keepdim = False)\n"
    )
    assert _message(lambda: b.max(other=1)) == (
        "max() received an invalid combination of arguments - got (other=int, ), but expected "
        "one of:\n * ()\n      didn't match because some of the keywords were incorrect: other\n"
        " * (Tensor other)\n      didn't match because some of the arguments have invalid "
        "types: (!other=int!, )\n * (int dim, bool keepdim = False)\n"
    )
    assert _message(lambda: b.max(0, 1, 2)) == (
        "max() received an invalid combination of arguments - got (int, int, int), but expected "
        "one of:\n * ()\n * (Tensor other)\n * (int dim, bool keepdim = False)\n"
    )
    # keywords are listed in the reverse of the order they were passed
    assert _message(lambda: b.max(dim=0, keepdim=True, other=b)) == (
        "max() received an invalid combination of arguments - got (other=Tensor, keepdim=bool, "
        "dim=int, ), but expected one of:\n * ()\n * (Tensor other)\n"
        " * (int dim, bool keepdim = False)\n"
    )


def test_max_method_two_arguments_name_the_bad_one():
    # two arguments fit the (dim, keepdim) overload only: torch names the wrong argument
    b = mt.zeros(4, 4)
    assert _message(lambda: b.max((0, 1), True)) == (
        "max(): argument 'dim' (position 1) must be int, not tuple"
    )
    assert _message(lambda: b.min(dim=0, keepdim=1)) == (
        "min(): argument 'keepdim' must be bool, not int"
    )
    assert _message(lambda: b.max(dim=(0, 1), keepdim=True)) == (
        "max(): argument 'dim' must be int, not tuple"
    )


def test_max_function_lists_keywords_and_explains_three_arguments():
    b = mt.zeros(4, 4)
    assert _message(lambda: mt.max(b, dim=(0, 1))) == (
        "max() received an invalid combination of arguments - got (Tensor, dim=tuple), but "
        "expected one of:\n" + _MAX_FORMS
    )
    lines = _MAX_FORMS.splitlines(keepends=True)
    assert _message(lambda: mt.max(b, (0, 1), True)) == (
        "max() received an invalid combination of arguments - got (Tensor, tuple, bool), but "
        "expected one of:\n" + lines[0] + "      didn't match because some of the arguments have "
        "invalid types: (Tensor, !tuple of (int, int)!, !bool!)\n" + "".join(lines[1:])
    )
    assert _message(lambda: mt.min(b, dim=(0, 1), keepdim=True)) == (
        "min() received an invalid combination of arguments - got (Tensor, keepdim=bool, "
        "dim=tuple), but expected one of:\n" + lines[0] + "      didn't match because some of "
        "the keywords were incorrect: keepdim, dim\n" + "".join(lines[1:])
    )
    assert _message(lambda: mt.max(b, 1, 2, out=(b, b))) == (
        "max(): argument 'keepdim' (position 3) must be bool, not int"
    )
    assert (
        _message(lambda: mt.max(b, 1, True, out=(b,))) == "expected tuple of 2 elements but got 1"
    )
    # the valid calls are untouched
    values, indices = mt.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1, True)
    np.testing.assert_array_equal(values.numpy(), [[5.0], [7.0]])
    np.testing.assert_array_equal(indices.numpy(), [[1], [0]])
    np.testing.assert_array_equal(mt.tensor([3, 1]).min(other=mt.tensor([2, 2])).numpy(), [2, 1])


# --- clamp with one tensor and one number bound (boxes.clamp(min=0, max=image_size)) ---


def test_clamp_mixed_bounds_messages_per_name_and_form():
    b, t = mt.zeros(4, 4), mt.ones(4)
    why = "      didn't match because some of the keywords were incorrect: max, min\n"
    method = (
        "received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor min = None, Tensor max = None)\n" + why
        + " * (Number min = None, Number max = None)\n" + why
    )  # fmt: skip
    function = (
        "received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"
    )
    assert _message(lambda: b.clamp(min=0, max=t)) == "clamp() " + method.format(
        got="max=Tensor, min=int, "
    )
    assert _message(lambda: b.clip(min=0, max=t)) == "clip() " + method.format(
        got="max=Tensor, min=int, "
    )
    assert _message(lambda: b.clamp_(min=t, max=1)) == "clamp_() " + method.format(
        got="max=int, min=Tensor, "
    )
    assert _message(lambda: mt.clamp(b, min=0, max=t)) == "clamp() " + function.format(
        got="Tensor, max=Tensor, min=int"
    )
    assert _message(lambda: mt.clip(b, min=t, max=1.0)) == "clip() " + function.format(
        got="Tensor, max=float, min=Tensor"
    )
    # a 0-d tensor passes as a number, as in torch
    out = mt.tensor([-1.0, 5.0, 20.0]).clamp(min=0, max=mt.tensor(10.0))
    np.testing.assert_array_equal(out.numpy(), [0.0, 5.0, 10.0])


# --- tensors printed as torch's C++ printer does, inside error messages ---


def test_meshgrid_error_prints_the_tensor_as_torch_cpp():
    head = "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
    msg = _message(lambda: mt.meshgrid(mt.zeros(2, 2), indexing="ij"), RuntimeError)
    assert msg == head + " 0  0\n 0  0\n[ torch.FloatTensor{2,2} ]"
    msg = _message(lambda: mt.meshgrid(mt.arange(24.0).view(2, 3, 4), indexing="ij"), RuntimeError)
    assert msg == head + (
        "(1,.,.) = \n  0   1   2   3\n   4   5   6   7\n   8   9  10  11\n\n(2,.,.) = \n 12  13  "
        "14  15\n  16  17  18  19\n  20  21  22  23\n[ torch.FloatTensor{2,3,4} ]"
    )
    scaled = mt.tensor([[1e-3, 2e-3], [3e-3, 4e-3]])
    msg = _message(lambda: mt.meshgrid(scaled, indexing="ij"), RuntimeError)
    assert msg == head + "0.001 *\n 1.0000  2.0000\n  3.0000  4.0000\n[ torch.FloatTensor{2,2} ]"


def test_cpp_str_formats():
    assert cpp_str(np.array([[True, False]]), "bool") == " 1  0\n[ CPUBoolType{1,2} ]"
    assert cpp_str(np.zeros((0, 3)), "float32") == "[ torch.FloatTensor{0,3} ]"
    assert cpp_str(np.array([[1e10, 1.0]]), "float32") == (
        " 1.0000e+10  1.0000e+00\n[ torch.FloatTensor{1,2} ]"
    )
    assert (
        cpp_str(np.array([[123456789.0]]), "float32") == "1.23457e+08\n[ torch.FloatTensor{1,1} ]"
    )
    assert cpp_str(np.array([[np.nan, 1.5]]), "float32") == (
        "    nan  1.5000\n[ torch.FloatTensor{1,2} ]"
    )
    assert cpp_str(np.array([[1.5e14 + 0.5, 1.9e14]]), "float64") == (
        "100000000000000 *\n 1.5000  1.9000\n[ torch.DoubleTensor{1,2} ]"
    )
    # more columns than fit in 80 characters: "Columns a to b" blocks
    wide = np.arange(26, dtype=np.float64).reshape(1, 26) / 4 - 3
    assert cpp_str(wide, "float64") == (
        "Columns 1 to 10-3.0000 -2.7500 -2.5000 -2.2500 -2.0000 -1.7500 -1.5000 -1.2500 -1.0000 "
        "-0.7500\n\nColumns 11 to 20-0.5000 -0.2500  0.0000  0.2500  0.5000  0.7500  1.0000  "
        "1.2500  1.5000  1.7500\n\nColumns 21 to 26 2.0000  2.2500  2.5000  2.7500  3.0000  "
        "3.2500\n[ torch.DoubleTensor{1,26} ]"
    )
