"""Miscellaneous Tensor methods: new_*, element_size/nelement, clone(memory_format=), type_as,
fill_diagonal_, apply_ and map_."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch


def _np(t):
    return t.detach().cpu().numpy()


# --- new_* ---


def test_new_factories_keep_dtype_and_device(device):
    x = torch.ones(2, 3, dtype=torch.float64, device=device)
    for t in (
        x.new_tensor([1, 2]),
        x.new_zeros(2, 3),
        x.new_zeros((2, 3)),
        x.new_ones(4),
        x.new_full((2,), 3),
        x.new_empty(2, 2),
    ):
        assert t.dtype == torch.float64 and str(t.device) == device
    np.testing.assert_array_equal(_np(x.new_tensor([1, 2])), [1.0, 2.0])
    np.testing.assert_array_equal(_np(x.new_zeros(2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(_np(x.new_ones(4)), np.ones(4))
    np.testing.assert_array_equal(_np(x.new_full((2,), 3)), [3.0, 3.0])
    assert x.new_empty(2, 2).shape == (2, 2)
    y = x.new_zeros(3, dtype=torch.int32, requires_grad=False)
    assert y.dtype == torch.int32
    assert x.new_ones(2, requires_grad=True).requires_grad


# --- sizes and copies ---


@pytest.mark.parametrize(
    "dtype,size",
    [("float64", 8), ("float32", 4), ("float16", 2), ("int64", 8), ("int16", 2), ("bool", 1)],
)
def test_element_size_and_nelement(dtype, size):
    x = torch.zeros(2, 5, dtype=getattr(torch, dtype))
    assert x.element_size() == size
    assert x.nelement() == x.numel() == 10
    assert torch.zeros(0, 3).nelement() == 0


def test_clone_accepts_memory_format(device):
    x = torch.arange(6.0, device=device).reshape(2, 3).t()
    c = x.clone(memory_format=None)
    np.testing.assert_array_equal(_np(c), _np(x))
    c[0, 0] = 100.0
    assert _np(x)[0, 0] == 0.0


def test_type_as(device):
    x = torch.tensor([1.5, 2.5], device=device)
    assert x.type_as(torch.zeros(1, dtype=torch.int32)).dtype == torch.int32
    assert x.type_as(x) is x


# --- fill_diagonal_ ---


@pytest.mark.parametrize(
    "shape,wrap",
    [
        ((3, 3), False),
        ((3, 5), False),
        ((7, 3), False),
        ((7, 3), True),
        ((5, 2), True),
        ((3, 5), True),
        ((3, 3, 3), False),
        ((2, 2, 2, 2), False),
    ],
)
def test_fill_diagonal_matches_numpy(device, shape, wrap):
    x = torch.zeros(shape, device=device)
    out = x.fill_diagonal_(2.5, wrap=wrap)
    assert out is x
    expect = np.zeros(shape, dtype=np.float32)
    np.fill_diagonal(expect, 2.5, wrap=wrap)
    np.testing.assert_array_equal(_np(x), expect)


def test_fill_diagonal_gradient():
    a = torch.ones(3, 3, requires_grad=True)
    b = a * 2
    b.fill_diagonal_(0)
    g = torch.arange(9.0).reshape(3, 3)
    b.backward(g)
    np.testing.assert_array_equal(_np(a.grad), 2 * g.numpy() * (1 - np.eye(3)))


def test_fill_diagonal_errors():
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        torch.ones(3).fill_diagonal_(2)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        torch.ones(3, 3, 4).fill_diagonal_(2)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.ones(2, 2, requires_grad=True).fill_diagonal_(1)


# --- apply_ and map_ ---


def test_apply_():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t()  # non-contiguous
    v = x._version
    assert x.apply_(lambda e: e * 10 + 1) is x
    np.testing.assert_array_equal(x.numpy(), [[11.0, 31.0], [21.0, 41.0]])
    assert x._version == v  # torch's apply_ does not bump the version counter
    i = torch.tensor([1, 3, 5])
    np.testing.assert_array_equal(i.apply_(lambda e: e / 2).numpy(), [0, 1, 2])
    assert i.dtype == torch.int64


def test_map_():
    x = torch.tensor([1.0, 2.0, 3.0])
    assert x.map_(torch.tensor([10.0]), lambda a, b: a * b) is x
    np.testing.assert_array_equal(x.numpy(), [10.0, 20.0, 30.0])


def test_apply_and_map_errors():
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        torch.ones(3, requires_grad=True).apply_(lambda v: v)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        torch.ones(3).apply_(3)
    with pytest.raises(TypeError, match="must be real number, not str"):
        torch.ones(3).apply_(lambda v: "a")
    with pytest.raises(TypeError, match="apply_ is only implemented on CPU tensors"):
        torch.ones(3, device="strict").apply_(lambda v: v)
    with pytest.raises(TypeError, match="map_ is only implemented on CPU tensors"):
        torch.ones(3, device="strict").map_(torch.ones(3, device="strict"), lambda a, b: a)
    with pytest.raises(
        TypeError, match=r"map_\(\): argument 'other' \(position 1\) must be Tensor"
    ):
        torch.ones(3).map_(3, lambda a, b: a + b)
    with pytest.raises(
        TypeError, match=r"map_: expected torch.LongTensor for 'other' \(got torch.FloatTensor\)"
    ):
        torch.ones(3, dtype=torch.long).map_(torch.ones(3), lambda a, b: a + b)
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(1\) must match"):
        torch.ones(1).map_(torch.ones(3), lambda a, b: a + b)
    with pytest.raises(RuntimeError, match=r"Can't call map_\(\) on Variable that requires grad"):
        torch.ones(3, requires_grad=True).map_(torch.ones(3), lambda a, b: a)
