"""Session 30 (helper sr): torch-free regression tests of the library fixes the
super-resolution reference programs (tests/reference/test_s30_sr_reference.py) led to: the
argument errors of fold/unfold (torch's im2col/col2im take exactly two values per size and
parse every argument before checking lengths; a number is doubled as torch's _pair does) and
the TypeError conv_transpose*d gives for a size argument that is not ints. The messages are
torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


_LEN = "It is expected {} equals to 2, but got size {}"
_ELEM = (
    "{}(): argument '{}' (position {}) must be tuple of ints, but found element of type {} at pos 0"
)
_UNPACK = (
    "{}(): argument '{}' failed to unpack the object at pos 2 with error "
    '"type must be tuple of ints,but got {}"'
)
_CT = "conv_transpose2d(): argument '{}' must be tuple of ints, not {}"


def _x():
    return mt.arange(2 * 3 * 8 * 8, dtype=mt.float32).view(2, 3, 8, 8)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: F.unfold(x, (3,)), _LEN.format("kernel_size", 1)),
        (lambda x: F.unfold(x, [3, 3, 3]), _LEN.format("kernel_size", 3)),
        (lambda x: F.unfold(x, []), _LEN.format("kernel_size", 0)),
        (lambda x: F.unfold(x, 3, dilation=(1,)), _LEN.format("dilation", 1)),
        (lambda x: F.unfold(x, 3, padding=(1, 1, 1)), _LEN.format("padding", 3)),
        (lambda x: F.unfold(x, 3, stride=[1]), _LEN.format("stride", 1)),
        (lambda x: mt.nn.Unfold((2,))(x), _LEN.format("kernel_size", 1)),
        # all arguments parse before the lengths are checked
        (
            lambda x: F.fold(F.unfold(x, 2, stride=2), (8, 8, 1), (2,)),
            _LEN.format("output_size", 3),
        ),
        (
            lambda x: F.fold(F.unfold(x, 2, stride=2), (8,), 2, stride=2),
            _LEN.format("output_size", 1),
        ),
        (lambda x: F.fold(F.unfold(x, 2, stride=2), (8, 8), [2]), _LEN.format("kernel_size", 1)),
        (
            lambda x: F.fold(F.unfold(x, 2, stride=2), (8, 8), 2, stride=(2,)),
            _LEN.format("stride", 1),
        ),
    ],
)
def test_fold_unfold_take_exactly_two_values(call, message):
    with pytest.raises(RuntimeError) as e:
        call(_x())
    assert str(e.value) == message


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: F.unfold(x, 2.0), _ELEM.format("im2col", "kernel_size", 2, "float")),
        (lambda x: F.unfold(x, True), _ELEM.format("im2col", "kernel_size", 2, "bool")),
        (lambda x: F.unfold(x, (2,), stride=1.0), _ELEM.format("im2col", "stride", 5, "float")),
        (
            lambda x: F.unfold(x, 2, dilation=(1.0, 1)),
            _ELEM.format("im2col", "dilation", 3, "float"),
        ),
        (lambda x: F.unfold(x, (2, "a")), _UNPACK.format("im2col", "kernel_size", "str")),
        (
            lambda x: F.fold(F.unfold(x, 2), 4.5, 2),
            _ELEM.format("col2im", "output_size", 2, "float"),
        ),
        (
            lambda x: F.fold(F.unfold(x, 2), None, 2),
            _ELEM.format("col2im", "output_size", 2, "NoneType"),
        ),
        (
            lambda x: F.fold(F.unfold(x, 2), (8, 8), 2, stride=1.5),
            _ELEM.format("col2im", "stride", 6, "float"),
        ),
        (
            lambda x: F.fold(F.unfold(x, 2), (8, 8.0), 2),
            _UNPACK.format("col2im", "output_size", "float"),
        ),
    ],
)
def test_fold_unfold_argument_types(call, message):
    with pytest.raises(TypeError) as e:
        call(_x())
    assert str(e.value) == message


def test_fold_unfold_still_take_int_likes():
    x = _x()
    cols = F.unfold(x, np.int64(2), stride=[2, 2], padding=(np.int32(0), 0))
    assert tuple(cols.shape) == (2, 12, 16)
    back = F.fold(cols, mt.Size([8, 8]), (2, 2), stride=2)
    assert mt.equal(back, x)
    assert tuple(F.fold(cols, 8, 2, stride=2).shape) == (2, 3, 8, 8)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(padding="same"), _CT.format("padding", "str")),
        (dict(stride=1.5), _CT.format("stride", "float")),
        (dict(output_padding=[1.0]), _CT.format("output_padding", "list")),
        (dict(dilation=None), _CT.format("dilation", "NoneType")),
        (dict(stride=True), _CT.format("stride", "bool")),
        (dict(stride=(2,), output_padding=(True, 0)), _CT.format("output_padding", "tuple")),
    ],
)
def test_conv_transpose_size_argument_types(kwargs, message):
    with pytest.raises(TypeError) as e:
        F.conv_transpose2d(_x(), mt.ones(3, 2, 4, 4), **kwargs)
    assert str(e.value) == message


def test_conv_transpose_1d_3d_name_themselves():
    x = _x()
    with pytest.raises(TypeError, match=r"^conv_transpose1d\(\): argument 'padding' must be tuple"):
        F.conv_transpose1d(x[0], mt.ones(3, 2, 4), padding="valid")
    with pytest.raises(TypeError, match=r"^conv_transpose3d\(\): argument 'stride' must be tuple"):
        F.conv_transpose3d(x[None], mt.ones(3, 2, 4, 4, 1), stride=0.5)
    # int-likes still parse
    out = F.conv_transpose2d(x, mt.ones(3, 2, 4, 4), stride=np.int64(2), padding=(1,))
    assert tuple(out.shape) == (2, 2, 16, 16)


def test_conv_transpose_names_the_position_of_a_positional_argument():
    x, w = _x(), mt.ones(3, 2, 4, 4)
    cases = [
        (lambda: F.conv_transpose2d(x, w, None, [1.0]), "'stride' (position 4) must be tuple of "
         "ints, but found element of type float at pos 0"),
        (lambda: F.conv_transpose2d(x, w, None, 1, "same"), "'padding' (position 5) must be "
         "tuple of ints, not str"),
        (lambda: F.conv_transpose2d(x, w, None, 1, 0, 0, 1, (1.5,)), "'dilation' (position 8) "
         "must be tuple of ints, but found element of type float at pos 0"),
        (lambda: F.conv_transpose2d(x, w, None, 1, (1, 2.0)), "'padding' failed to unpack the "
         "object at pos 2 with error \"type must be tuple of ints,but got float\""),
    ]  # fmt: skip
    for call, tail in cases:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == "conv_transpose2d(): argument " + tail


def test_conv_modules_keep_a_float_size_for_forward_to_refuse():
    # torch's _pair doubles a float: the module builds (and prints it); its forward refuses it
    m = mt.nn.ConvTranspose2d(3, 3, 3, stride=1.5)
    assert m.stride == (1.5, 1.5)
    assert repr(m) == "ConvTranspose2d(3, 3, kernel_size=(3, 3), stride=(1.5, 1.5))"
    with pytest.raises(TypeError) as e:
        m(_x())
    assert str(e.value) == (
        "conv_transpose2d(): argument 'stride' (position 4) must be tuple of ints, but found "
        "element of type float at pos 0"
    )
    assert mt.nn.Conv2d(3, 3, 3, padding=1.0).padding == (1.0, 1.0)
