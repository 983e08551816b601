"""DLPack round trips with PyTorch: zero-copy both ways, dtypes kept."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils import dlpack as mt_dlpack

torch = pytest.importorskip("torch")

PAIRS = [
    (mt.float32, torch.float32), (mt.float64, torch.float64), (mt.float16, torch.float16),
    (mt.int64, torch.int64), (mt.int32, torch.int32), (mt.int16, torch.int16),
    (mt.int8, torch.int8), (mt.uint8, torch.uint8), (mt.bool, torch.bool),
]  # fmt: skip


@pytest.mark.parametrize("mdt, tdt", PAIRS, ids=[str(p[1]) for p in PAIRS])
def test_torch_to_minitorch(mdt, tdt):
    src = torch.arange(6).reshape(2, 3).to(tdt)
    t = mt.from_dlpack(src)
    assert t.dtype is mdt and tuple(t.shape) == (2, 3)
    np.testing.assert_array_equal(t.numpy(), src.numpy())
    assert t._data.ctypes.data == src.data_ptr()  # zero-copy
    src[0, 0] = 1
    assert t[0, 0].item() == src[0, 0].item()


@pytest.mark.parametrize("mdt, tdt", PAIRS, ids=[str(p[1]) for p in PAIRS])
def test_minitorch_to_torch(mdt, tdt):
    t = mt.arange(6).reshape(2, 3).to(mdt)
    out = torch.from_dlpack(t)
    assert out.dtype is tdt
    assert out.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(out.numpy(), t.numpy())
    out.zero_()
    assert not t.any().item()


def test_strided_views_and_utils_capsules():
    base = mt.arange(12.0).reshape(3, 4)
    view = base.t()
    out = torch.utils.dlpack.from_dlpack(mt_dlpack.to_dlpack(view))
    assert out.stride() == view.stride() and out.data_ptr() == view.data_ptr()
    back = mt_dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(out))
    assert back.stride() == view.stride()
    back[0, 0] = 7.0
    assert base[0, 0].item() == 7.0 and out[0, 0].item() == 7.0


def test_requires_grad_matches_torch():
    with pytest.raises(BufferError, match="require gradient"):
        torch.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        mt.ones(2, requires_grad=True).__dlpack__()
    assert mt.ones(2).__dlpack_device__() == tuple(torch.ones(2).__dlpack_device__())
