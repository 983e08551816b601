"""Tests for minitorch._tensor_str: expected strings observed from PyTorch 2.13, as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from minitorch import _tensor_str
from minitorch._tensor_str import get_printoptions, printoptions, set_printoptions, tensor_repr

NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def _restore_printoptions():
    yield
    set_printoptions(profile="default")


def f32(values) -> str:
    return tensor_repr(np.array(values, dtype=np.float32), dtype_name="float32")


@pytest.mark.parametrize(
    "values, dtype, expected",
    [
        (3.0, "float32", "tensor(3.)"),
        (2.5, "float32", "tensor(2.5000)"),
        (-7, "int64", "tensor(-7)"),
        (True, "bool", "tensor(True)"),
        (0.1, "float64", "tensor(0.1000, dtype=torch.float64)"),
        (NAN, "float32", "tensor(nan)"),
    ],
)
def test_zero_dim(values, dtype, expected):
    assert tensor_repr(np.array(values, dtype=dtype), dtype_name=dtype) == expected


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1.0, 2.0, -3.0], "tensor([ 1.,  2., -3.])"),
        ([0.1, -2.25, 10.0], "tensor([ 0.1000, -2.2500, 10.0000])"),
        ([-0.0, 0.0, 1.0], "tensor([-0., 0., 1.])"),
        ([1.0, -0.0], "tensor([1., -0.])"),  # zeros never widen the columns
    ],
)
def test_integral_and_fixed_point_floats(values, expected):
    assert f32(values) == expected


@pytest.mark.parametrize(
    "values, expected",
    [
        ([1e-3, 2.0, 5.0], "tensor([1.0000e-03, 2.0000e+00, 5.0000e+00])"),  # max/min > 1000
        ([1.5e8, 2.0], "tensor([1.5000e+08, 2.0000e+00])"),  # max > 1e8
        ([5e-5, 0.5], "tensor([5.0000e-05, 5.0000e-01])"),  # min < 1e-4
        ([2e8, 1e8], "tensor([2.0000e+08, 1.0000e+08])"),  # integral but > 1e8
    ],
)
def test_scientific_notation(values, expected):
    assert f32(values) == expected


@pytest.mark.parametrize(
    "values, expected",
    [
        ([NAN, INF, -INF, 1.5], "tensor([   nan,    inf,   -inf, 1.5000])"),
        ([NAN, 0.0], "tensor([nan, 0.])"),
        ([NAN, 1.0], "tensor([nan, 1.])"),
        ([-INF, 0.5], "tensor([  -inf, 0.5000])"),
    ],
)
def test_nan_and_inf(values, expected):
    assert f32(values) == expected


def test_ints_with_negative_values_align():
    got = tensor_repr(np.array([[1, -20], [300, 4]]), dtype_name="int64")
    assert got == "tensor([[  1, -20],\n        [300,   4]])"


@pytest.mark.parametrize(
    "values, dtype, expected",
    [
        ([-128, 5], "int8", "tensor([-128,    5], dtype=torch.int8)"),
        ([0, 255], "uint8", "tensor([  0, 255], dtype=torch.uint8)"),
        ([True, False], "bool", "tensor([ True, False])"),
        ([0.1, 1000.0], "float16", "tensor([9.9976e-02, 1.0000e+03], dtype=torch.float16)"),
        ([1.0, 2.0], "float64", "tensor([1., 2.], dtype=torch.float64)"),
    ],
)
def test_dtypes(values, dtype, expected):
    assert tensor_repr(np.array(values, dtype=dtype), dtype_name=dtype) == expected


def test_default_float64_shows_float32():
    a = np.array([1.0, 2.0])
    assert tensor_repr(a, dtype_name="float64", default_float_name="float64") == "tensor([1., 2.])"
    got = tensor_repr(a.astype(np.float32), dtype_name="float32", default_float_name="float64")
    assert got == "tensor([1., 2.], dtype=torch.float32)"
    got = tensor_repr(np.zeros(0, np.float32), dtype_name="float32", default_float_name="float64")
    assert got == "tensor([], dtype=torch.float32)"


def test_2d_wrap():
    a = np.arange(30, dtype=np.float32).reshape(2, 15) * 1.5
    assert f32(a) == (
        "tensor([[ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "         12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000],\n"
        "        [22.5000, 24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000,\n"
        "         34.5000, 36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000]])"
    )


def test_1d_int_wrap():
    got = tensor_repr(np.arange(40) * 1000, dtype_name="int64")
    assert got == (
        "tensor([    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,  9000,\n"
        "        10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000,\n"
        "        20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000, 28000, 29000,\n"
        "        30000, 31000, 32000, 33000, 34000, 35000, 36000, 37000, 38000, 39000])"
    )


def test_higher_dims_separate_blocks_with_blank_lines():
    got = tensor_repr(np.arange(8).reshape(2, 2, 2), dtype_name="int64")
    assert got == "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"
    assert f32(np.arange(16).reshape(2, 2, 2, 2)) == (
        "tensor([[[[ 0.,  1.],\n          [ 2.,  3.]],\n\n"
        "         [[ 4.,  5.],\n          [ 6.,  7.]]],\n\n\n"
        "        [[[ 8.,  9.],\n          [10., 11.]],\n\n"
        "         [[12., 13.],\n          [14., 15.]]]])"
    )


def test_summarised_1d():
    assert f32(np.arange(2000)) == (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])"
    )


def test_summarised_3d():
    a = np.arange(2 * 30 * 40).reshape(2, 30, 40) / 7
    assert f32(a) == (
        "tensor([[[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 5.2857e+00,\n"
        "          5.4286e+00, 5.5714e+00],\n"
        "         [5.7143e+00, 5.8571e+00, 6.0000e+00,  ..., 1.1000e+01,\n"
        "          1.1143e+01, 1.1286e+01],\n"
        "         [1.1429e+01, 1.1571e+01, 1.1714e+01,  ..., 1.6714e+01,\n"
        "          1.6857e+01, 1.7000e+01],\n"
        "         ...,\n"
        "         [1.5429e+02, 1.5443e+02, 1.5457e+02,  ..., 1.5957e+02,\n"
        "          1.5971e+02, 1.5986e+02],\n"
        "         [1.6000e+02, 1.6014e+02, 1.6029e+02,  ..., 1.6529e+02,\n"
        "          1.6543e+02, 1.6557e+02],\n"
        "         [1.6571e+02, 1.6586e+02, 1.6600e+02,  ..., 1.7100e+02,\n"
        "          1.7114e+02, 1.7129e+02]],\n"
        "\n"
        "        [[1.7143e+02, 1.7157e+02, 1.7171e+02,  ..., 1.7671e+02,\n"
        "          1.7686e+02, 1.7700e+02],\n"
        "         [1.7714e+02, 1.7729e+02, 1.7743e+02,  ..., 1.8243e+02,\n"
        "          1.8257e+02, 1.8271e+02],\n"
        "         [1.8286e+02, 1.8300e+02, 1.8314e+02,  ..., 1.8814e+02,\n"
        "          1.8829e+02, 1.8843e+02],\n"
        "         ...,\n"
        "         [3.2571e+02, 3.2586e+02, 3.2600e+02,  ..., 3.3100e+02,\n"
        "          3.3114e+02, 3.3129e+02],\n"
        "         [3.3143e+02, 3.3157e+02, 3.3171e+02,  ..., 3.3671e+02,\n"
        "          3.3686e+02, 3.3700e+02],\n"
        "         [3.3714e+02, 3.3729e+02, 3.3743e+02,  ..., 3.4243e+02,\n"
        "          3.4257e+02, 3.4271e+02]]])"
    )


@pytest.mark.parametrize(
    "shape, dtype, expected",
    [
        ((0,), "float32", "tensor([])"),
        ((0, 3), "float32", "tensor([], size=(0, 3))"),
        ((0, 3), "int64", "tensor([], size=(0, 3), dtype=torch.int64)"),
        ((0,), "bool", "tensor([], dtype=torch.bool)"),
        ((2, 0, 4), "float16", "tensor([], size=(2, 0, 4), dtype=torch.float16)"),
    ],
)
def test_empty(shape, dtype, expected):
    assert tensor_repr(np.zeros(shape, dtype=dtype), dtype_name=dtype) == expected


def test_grad_suffixes():
    a = np.array([1.0, 2.0], dtype=np.float32)
    assert tensor_repr(a, dtype_name="float32", requires_grad=True) == (
        "tensor([1., 2.], requires_grad=True)"
    )
    got = tensor_repr(a * 2, dtype_name="float32", requires_grad=True, grad_fn_name="MulBackward0")
    assert got == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    got = tensor_repr(a.astype(np.float64), dtype_name="float64", requires_grad=True)
    assert got == "tensor([1., 2.], dtype=torch.float64, requires_grad=True)"


def test_suffix_moves_to_new_line_past_linewidth():
    a = np.linspace(-1, 1, 10)
    assert tensor_repr(a, dtype_name="float64", requires_grad=True) == (
        "tensor([-1.0000, -0.7778, -0.5556, -0.3333, -0.1111,  0.1111,  0.3333,  0.5556,\n"
        "         0.7778,  1.0000], dtype=torch.float64, requires_grad=True)"
    )


def test_device_suffix_comes_first():
    a = np.array([1.0, 2.0])
    got = tensor_repr(a, dtype_name="float64", device="cuda:0", requires_grad=True)
    assert got == "tensor([1., 2.], device='cuda:0', dtype=torch.float64, requires_grad=True)"
    assert tensor_repr(a, dtype_name="float32", device="cpu") == "tensor([1., 2.])"
    got = tensor_repr(np.zeros((0, 3)), dtype_name="float32", device="cuda:0")
    assert got == "tensor([], device='cuda:0', size=(0, 3))"


def test_parameter_style_prefix():
    a = np.array([1.0, 2.0], dtype=np.float32)
    got = "Parameter containing:\n" + tensor_repr(a, dtype_name="float32", requires_grad=True)
    assert got == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    got = tensor_repr(np.eye(2), dtype_name="float32", prefix="Foo(")
    assert got == "Foo([[1., 0.],\n     [0., 1.]])"


def test_get_and_set_printoptions():
    assert get_printoptions() == {
        "precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None,
    }  # fmt: skip
    set_printoptions(profile="short", sci_mode=True)
    assert get_printoptions() == {
        "precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80, "sci_mode": True,
    }  # fmt: skip
    set_printoptions(precision=3)  # sci_mode goes back to automatic
    assert get_printoptions()["precision"] == 3 and get_printoptions()["sci_mode"] is None
    set_printoptions(profile="no-such-profile")  # ignored, as in torch
    assert get_printoptions()["precision"] == 3
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    with printoptions(precision=1, linewidth=10):
        assert get_printoptions()["linewidth"] == 10
    assert get_printoptions()["linewidth"] == 80 and _tensor_str.PRINT_OPTS.precision == 4


@pytest.mark.parametrize(
    "options, values, expected",
    [
        ({"precision": 2}, [1 / 3, 2 / 3], "tensor([0.33, 0.67])"),
        ({"sci_mode": True}, [1.0, -2.0], "tensor([ 1.0000e+00, -2.0000e+00])"),
        ({"sci_mode": True}, [0.0, 0.0], "tensor([0., 0.])"),
        (
            {"sci_mode": False},
            [1e-5, -1e9, 0.5],
            "tensor([          0.0000, -1000000000.0000,           0.5000])",
        ),
        (
            {"linewidth": 30},
            np.arange(12) / 3,
            "tensor([0.0000, 0.3333,\n        0.6667, 1.0000,\n        1.3333, 1.6667,\n"
            "        2.0000, 2.3333,\n        2.6667, 3.0000,\n        3.3333, 3.6667])",
        ),
        (
            {"profile": "short"},
            np.arange(1200) / 3,
            "tensor([0.00e+00, 3.33e-01,  ..., 3.99e+02, 4.00e+02])",
        ),
        ({"edgeitems": 0}, np.arange(5), "tensor([0., 1., 2., 3., 4.], size=(5,))"),
        ({"edgeitems": 0}, np.arange(2000).reshape(20, 100), "tensor([...], size=(20, 100))"),
    ],
)
def test_printoptions_change_output(options, values, expected):
    set_printoptions(**options)
    assert f32(values) == expected


def test_small_threshold_and_edgeitems_summarise_ints():
    set_printoptions(edgeitems=1, threshold=4)
    got = tensor_repr(np.arange(30).reshape(5, 6), dtype_name="int64")
    assert got == "tensor([[ 0,  ...,  5],\n        ...,\n        [24,  ..., 29]])"


def test_full_profile_prints_everything():
    set_printoptions(profile="full")
    got = tensor_repr(np.arange(1200), dtype_name="int64")
    assert "..." not in got
    assert got.startswith("tensor([   0,    1,    2,")
    assert got.endswith(
        "\n        1188, 1189, 1190, 1191, 1192, 1193, 1194, 1195, 1196, 1197, 1198, 1199])"
    )
