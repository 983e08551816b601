"""Session 43 (lead): relu's kernel against a zero scalar, not an array of zeros."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops.pointwise import Relu

SPECIAL = [-0.0, 0.0, -1.5, 2.5, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.0, -7.0]
INTS = ["int8", "uint8", "int32", "int64"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


def _array(dtype):
    """64 values of dtype (the backend's array): random ones and the special values."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(53) * 4, SPECIAL])
    if dtype in INTS:
        x = np.nan_to_num(x, nan=0.0, posinf=5.0, neginf=-5.0)
        if dtype == "uint8":
            x = np.abs(x)
    return torch.tensor(x).to(getattr(torch, dtype))._data


def _layouts(a):
    """a (64,) array in several layouts: row-major, transposed, sliced, expanded, reversed."""
    m = a.reshape(8, 8)
    return [m, m.T, m[::2, 1::3], np.broadcast_to(a[:8], (4, 8)), a[::-3]]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_relu_kernel_matches_the_zeros_formula(dtype):
    for arr in _layouts(_array(dtype)):
        new = Relu.kernel(np, arr)
        old = np.maximum(np.zeros_like(arr), arr)  # the kernel before session 43
        assert new.dtype == arr.dtype and new.shape == arr.shape
        assert new.tobytes() == old.tobytes()  # bits: -0. stays -0., NaN passes


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_and_relu_bits_and_layouts(dtype):
    x = torch.tensor(SPECIAL * 6, dtype=getattr(torch, dtype)).reshape(6, 11)
    for v in (x, x.t(), x[:, ::2], x[:1].expand(4, 11)):
        ref = np.maximum(np.zeros_like(v.numpy()), v.numpy())
        for out in (torch.relu(v), v.clone().relu_()):
            got = out.numpy()
            assert np.array_equal(np.signbit(got), np.signbit(ref))
            assert np.array_equal(np.isnan(got), np.isnan(ref))
            assert np.array_equal(np.nan_to_num(got), np.nan_to_num(ref))
        assert torch.relu(v).stride() == v.clone().stride()  # laid out as the input, as torch


def test_relu_gradient_masks_to_positive_zero():
    x = torch.tensor([[-0.0, 0.0, -1.0, 2.0], [np.nan, 3.0, -2.0, 0.5]], requires_grad=True)
    torch.relu(x).backward(torch.full((2, 4), -3.0))
    g = x.grad.numpy()
    assert g.tolist()[0] == [0.0, 0.0, 0.0, -3.0]
    assert g[1, 0] == -3.0 and g[1, 2] == 0.0  # a NaN input passes its gradient, as torch
    assert not np.signbit(g[0, :3]).any() and not np.signbit(g[1, 2])
