"""Session 32 (helper optflow): torch-free regression tests of the library fixes the
optical-flow and spatial-transformer programs of tests/reference/test_s32_optflow_reference.py
found: interpolate's TypeError for an align_corners that is no bool (torch's upsample kernel
parser, naming output_size and scale_factors as interpolate passes them) and the order of its
dtype check after the size checks; meshgrid's argument order (the tensor list, then indexing's
type; dtype and device pair by pair, torch's device message); affine_grid's TypeError for a
size without a length. torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _kernel_error(kernel, got, marked, scales):
    return (
        f"{kernel}() received an invalid combination of arguments - got (Tensor, {got}), but "
        "expected one of:\n"
        " * (Tensor input, tuple of ints output_size, bool align_corners, tuple of floats "
        "scale_factors)\n"
        "      didn't match because some of the arguments have invalid types: "
        f"(Tensor, {marked})\n"
        f" * (Tensor input, tuple of ints output_size, bool align_corners, {scales}, *, "
        "Tensor out = None)\n"
    )


HW = "float scales_h = None, float scales_w = None"


@pytest.mark.parametrize(
    "shape, kwargs, kernel, got, marked, scales",
    [
        (
            (1, 1, 2, 2),
            dict(scale_factor=2, mode="bilinear", align_corners="x"),
            "upsample_bilinear2d",
            "NoneType, str, list",
            "!NoneType!, !str!, !list of [int, int]!",
            HW,
        ),
        (
            (1, 1, 2, 2),
            dict(size=mt.Size([3, 4]), mode="bilinear", align_corners=1),
            "upsample_bilinear2d",
            "torch.Size, int, NoneType",
            "!torch.Size of (int, int)!, !int!, !NoneType!",
            HW,
        ),
        (
            (1, 1, 2, 2),
            dict(scale_factor=(2, 2.5), mode="bicubic", align_corners=1.0),
            "upsample_bicubic2d",
            "NoneType, float, tuple",
            "!NoneType!, !float!, !tuple of (int, float)!",
            HW,
        ),
        (
            (1, 1, 2, 2),
            dict(scale_factor=2.0, mode="bilinear", align_corners=0, recompute_scale_factor=True),
            "upsample_bilinear2d",
            "list, int, NoneType",
            "!list of [int, int]!, !int!, !NoneType!",
            HW,
        ),
        (
            (1, 1, 2, 2),
            dict(size=(3, 4), mode="bicubic", align_corners=1, antialias=True),
            "_upsample_bicubic2d_aa",
            "tuple, int, NoneType",
            "!tuple of (int, int)!, !int!, !NoneType!",
            HW,
        ),
        (
            (1, 1, 2),
            dict(size=3, mode="linear", align_corners="x"),
            "upsample_linear1d",
            "list, str, NoneType",
            "!list of [int]!, !str!, !NoneType!",
            "float scales = None",
        ),
        (
            (1, 1, 2, 2, 2),
            dict(scale_factor=[2, 1, 3], mode="trilinear", align_corners=[True]),
            "upsample_trilinear3d",
            "NoneType, list, list",
            "!NoneType!, !list of [bool]!, !list of [int, int, int]!",
            "float scales_d = None, " + HW,
        ),
    ],
)
def test_interpolate_align_corners_of_another_type(shape, kwargs, kernel, got, marked, scales):
    x = mt.ones(shape)
    assert _message(TypeError, lambda: F.interpolate(x, **kwargs)) == _kernel_error(
        kernel, got, marked, scales
    )


def test_interpolate_align_corners_is_parsed_before_the_dtype():
    x = mt.ones(1, 1, 2, 2, dtype=mt.int64)
    msg = _message(
        TypeError, lambda: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=1)
    )
    assert msg.startswith("upsample_bilinear2d() received an invalid combination of arguments")


@pytest.mark.parametrize(
    "shape, size, mode, message",
    [
        (
            (1, 1, 2, 2),
            (0, 2),
            "bilinear",
            "Input and output sizes should be greater than 0, but got input (H: 2, W: 2) "
            "output (H: 0, W: 2)",
        ),
        (
            (1, 0, 2, 2),
            (3, 2),
            "bilinear",
            "Non-empty 4D data tensor expected but got a tensor with sizes [1, 0, 2, 2]",
        ),
        (
            (1, 0, 2, 2),
            (3, 2),
            "nearest",
            "Non-empty 4D data tensor expected but got a tensor with sizes [1, 0, 2, 2]",
        ),
    ],
)
def test_interpolate_checks_sizes_before_the_dtype(shape, size, mode, message):
    x = mt.ones(shape, dtype=mt.int64)
    assert _message(RuntimeError, lambda: F.interpolate(x, size=size, mode=mode)) == message


def test_interpolate_still_refuses_integer_inputs():
    x = mt.ones(1, 1, 2, 2, dtype=mt.int64)
    msg = _message(NotImplementedError, lambda: F.interpolate(x, size=(3, 3), mode="bilinear"))
    assert msg == "\"upsample_bilinear2d_channels_last\" not implemented for 'Long'"
    msg = _message(NotImplementedError, lambda: F.interpolate(x, size=(3, 3), mode="area"))
    assert msg.endswith("not implemented for 'Long'")


def test_meshgrid_indexing_must_be_a_str():
    a = mt.ones(2)
    msg = "meshgrid(): argument 'indexing' must be str, not int"
    assert _message(TypeError, lambda: mt.meshgrid(a, indexing=5)) == msg
    assert _message(TypeError, lambda: mt.meshgrid([a], indexing=5)) == msg
    # the tensor list is parsed first
    msg = "expected Tensor as element 1 in argument 0, but got int"
    assert _message(TypeError, lambda: mt.meshgrid(a, 3, indexing=5)) == msg
    assert _message(TypeError, lambda: mt.meshgrid(a, 3, indexing="ab")) == msg
    # torch's parser reads bytes as a str
    x, y = mt.meshgrid(mt.arange(2), mt.arange(3), indexing=b"xy")
    assert tuple(x.shape) == (3, 2) and tuple(y.shape) == (3, 2)


def test_meshgrid_checks_dtype_and_device_pair_by_pair():
    a, m = mt.ones(2), mt.ones(3, device="meta")
    dev = "meshgrid expects all tensors to have the same device"
    assert _message(RuntimeError, lambda: mt.meshgrid(a, m, indexing="ij")) == dev
    # the device of the first pair before the dtype of the second, and both before the ranks
    three = (a, m, mt.ones(3, dtype=mt.int64))
    assert _message(RuntimeError, lambda: mt.meshgrid(*three, indexing="ij")) == dev
    assert _message(RuntimeError, lambda: mt.meshgrid(mt.ones(2, 2), m, indexing="ij")) == dev
    mixed = (a, mt.ones(3, dtype=mt.int64, device="meta"))
    msg = "meshgrid expects all tensors to have the same dtype"
    assert _message(RuntimeError, lambda: mt.meshgrid(*mixed, indexing="ij")) == msg


@pytest.mark.parametrize("size, name", [(4, "int"), (None, "NoneType")])
def test_affine_grid_size_without_a_length(size, name):
    theta = mt.eye(2, 3).unsqueeze(0)
    msg = _message(TypeError, lambda: F.affine_grid(theta, size, align_corners=False))
    assert msg == f"object of type '{name}' has no len()"


@pytest.mark.parametrize(
    "shape, mode, padding_mode, align_corners, saved",
    [
        ((1, 1, 2, 3), "bicubic", "reflection", True, (2, 2, True)),
        ((1, 1, 2, 3), "bilinear", "zeros", False, (0, 0, False)),
        ((1, 1, 2, 3, 2), "nearest", "border", False, (1, 1, False)),
    ],
)
def test_grid_sample_node_names_what_it_saved(shape, mode, padding_mode, align_corners, saved):
    x = mt.randn(shape, requires_grad=True)
    n = len(shape) - 2
    g = mt.zeros((1,) * (n - 1) + (2, 2, n), requires_grad=True)
    y = F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    node = y.grad_fn
    got = (node._saved_interpolation_mode, node._saved_padding_mode, node._saved_align_corners)
    assert got == saved
    assert node._saved_input is x and node._saved_grid is g
    names = [k for k in dir(node) if k.startswith("_saved_")]
    assert names == [
        "_saved_align_corners",
        "_saved_grid",
        "_saved_input",
        "_saved_interpolation_mode",
        "_saved_padding_mode",
    ]
