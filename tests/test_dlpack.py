"""DLPack: minitorch.from_dlpack, Tensor.__dlpack__/__dlpack_device__, minitorch.utils.dlpack."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils import dlpack

DTYPES = [np.float32, np.float64, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8,
          np.bool_]  # fmt: skip


@pytest.mark.parametrize("np_dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_from_numpy_array_is_zero_copy_and_keeps_dtype(np_dtype):
    a = np.arange(6).reshape(2, 3).astype(np_dtype)
    t = mt.from_dlpack(a)
    assert t.dtype is mt._dtype.from_numpy(a.dtype)
    assert t.device == mt.device("cpu") and tuple(t.shape) == (2, 3)
    assert np.shares_memory(t.numpy(), a)
    t[0, 0] = 1
    assert a[0, 0] == 1


def test_numpy_takes_tensors_without_copy():
    t = mt.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(t)
    assert np.shares_memory(a, t.numpy())
    t.add_(1.0)
    np.testing.assert_array_equal(a, np.arange(6.0).reshape(2, 3) + 1)
    assert t.__dlpack_device__() == (1, 0)


def test_views_and_strides_round_trip():
    base = mt.arange(12.0).reshape(3, 4)
    view = base.t()[1:]
    a = np.from_dlpack(view)
    np.testing.assert_array_equal(a, view.numpy())
    assert np.shares_memory(a, base.numpy())
    back = mt.from_dlpack(a)
    back[0, 0] = -5.0
    assert base[0, 1].item() == -5.0


def test_capsules_round_trip():
    t = mt.tensor([1.0, 2.0, 3.0])
    capsule = dlpack.to_dlpack(t)
    assert type(capsule).__name__ == "PyCapsule"
    u = dlpack.from_dlpack(capsule)
    assert np.shares_memory(u.numpy(), t.numpy())
    u[0] = 9.0  # a legacy capsule imports writable, as in torch
    assert t[0].item() == 9.0
    assert mt.from_dlpack(np.arange(3).__dlpack__()).tolist() == [0, 1, 2]
    assert dlpack.from_dlpack is mt.from_dlpack


def test_from_dlpack_of_a_tensor_shares_memory():
    t = mt.ones(3)
    u = mt.from_dlpack(t)
    u[0] = 5.0
    assert t[0].item() == 5.0


def test_requires_grad_tensor_is_refused():
    t = mt.ones(3, requires_grad=True)
    with pytest.raises(BufferError, match="detach"):
        np.from_dlpack(t)
    assert np.shares_memory(np.from_dlpack(t.detach()), t.detach().numpy())


def test_bad_inputs():
    with pytest.raises(TypeError, match="__dlpack__"):
        mt.from_dlpack([1, 2, 3])
    with pytest.raises(TypeError, match="to_dlpack"):
        dlpack.to_dlpack(np.ones(2))


def test_device_tensor_exports_its_array(device):
    t = mt.arange(4.0, device=device)
    assert t.__dlpack_device__() == tuple(int(x) for x in t._data.__dlpack_device__())
    u = mt.from_dlpack(t)
    assert u.device == t.device
