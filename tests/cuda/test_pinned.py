"""Pinned host memory, non_blocking copies, record_stream and DataLoader(pin_memory=True), on the
CuPy test double; and their behaviour without CUDA."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils.data import DataLoader, TensorDataset
from tests.cuda import fake_cupy as fake


def _pending():
    return mt.device("cuda", 0).backend._pending


def test_pin_memory_copies_into_the_pinned_pool(fake_cupy):
    x = mt.arange(6.0).reshape(2, 3)
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.is_pinned() and p is not x and p.device == mt.device("cpu")
    assert isinstance(p._data.base, fake.PinnedMemoryPointer)
    assert fake_cupy.get_default_pinned_memory_pool().allocated == 24
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    assert p.pin_memory() is p  # already pinned
    assert p[1:].is_pinned() and p.t().is_pinned()  # views of pinned memory are pinned
    assert not p.clone().is_pinned()


def test_pin_memory_keeps_dtype_empty_and_gradients(fake_cupy):
    e = mt.zeros(0, 3, dtype=mt.int64).pin_memory()
    assert e.is_pinned() and e.shape == (0, 3) and e.dtype == mt.int64
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    p = w.pin_memory()
    assert p.is_pinned() and p.requires_grad and not p.is_leaf
    (p * mt.tensor([3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 4.0])


def test_pin_memory_errors(fake_cupy):
    with pytest.raises(RuntimeError, match="cannot pin 'torch.cuda.FloatTensor' only dense CPU"):
        mt.ones(2, device="cuda").pin_memory()
    with pytest.warns(DeprecationWarning, match="'device' of Tensor.pin_memory"):
        with pytest.raises(RuntimeError, match="CPU device type not an accelerator"):
            mt.ones(2).pin_memory("cpu")
    with pytest.warns(DeprecationWarning, match="'device' of Tensor.is_pinned"):
        assert not mt.ones(2).is_pinned("cuda")


def test_non_blocking_upload_from_pinned_memory_is_queued_on_the_current_stream(fake_cupy):
    p = mt.arange(4.0).pin_memory()
    s = mt.cuda.Stream()
    with mt.cuda.stream(s):
        g = p.to("cuda", non_blocking=True)
    assert s._cupy_stream.copies == ["h2d"]
    assert g.device == mt.device("cuda", 0)
    np.testing.assert_array_equal(g.cpu().numpy(), [0, 1, 2, 3])
    # The pinned source is held until the stream passes the copy.
    assert any(obj is p._data for _, obj in _pending())


def test_blocking_or_pageable_uploads_are_ordinary_copies(fake_cupy):
    s = mt.cuda.Stream()
    with mt.cuda.stream(s):
        mt.arange(4.0).to("cuda", non_blocking=True)  # pageable source: a synchronous copy
        mt.arange(4.0).pin_memory().to("cuda")  # non_blocking=False
        mt.arange(4.0).pin_memory().cuda(non_blocking=False)
    assert s._cupy_stream.copies == []


def test_non_blocking_upload_with_a_dtype_change_casts_on_the_device(fake_cupy):
    p = mt.tensor([1.5, 2.5], dtype=mt.float64).pin_memory()
    g = p.to("cuda", mt.float32, non_blocking=True)
    assert g.dtype == mt.float32 and mt.cuda.current_stream()._cupy_stream.copies == ["h2d"]
    np.testing.assert_array_equal(g.cpu().numpy(), np.array([1.5, 2.5], np.float32))


def test_non_blocking_download_lands_in_pinned_memory(fake_cupy):
    g = mt.arange(6, device="cuda").reshape(2, 3).t()  # not contiguous on the device
    h = g.to("cpu", non_blocking=True)
    assert h.is_pinned() and h.device == mt.device("cpu") and h.dtype == mt.int64
    assert mt.cuda.current_stream()._cupy_stream.copies == ["d2h"]
    np.testing.assert_array_equal(h.numpy(), np.arange(6).reshape(2, 3).T)
    assert not g.cpu().is_pinned()  # a blocking download is pageable
    f = g.to("cpu", mt.float32, non_blocking=True)
    assert f.dtype == mt.float32 and f.is_pinned()


def test_non_blocking_copy_keeps_gradients(fake_cupy):
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    g = w.pin_memory().to("cuda", non_blocking=True)
    (g * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0])


def test_record_stream_holds_memory_until_the_stream_passes(fake_cupy):
    s = mt.cuda.Stream()
    s._cupy_stream.busy = True
    x = mt.zeros(256, device="cuda")
    x.record_stream(s)
    held = _pending()
    assert len(held) == 1 and held[0][1] is x._data and held[0][0].stream is s._cupy_stream
    del x
    assert mt.cuda.memory_allocated() == 1024  # still held
    event = held[0][0]
    del held
    s.synchronize()
    event.synchronize()
    del event
    mt.cuda.synchronize()  # drops finished entries
    assert _pending() == [] and mt.cuda.memory_allocated() == 0


def test_record_stream_errors(fake_cupy):
    with pytest.raises(RuntimeError, match="expected a minitorch.cuda.Stream, got NoneType"):
        mt.zeros(2, device="cuda").record_stream(None)
    with pytest.raises(RuntimeError, match="expected a CUDA tensor"):
        mt.zeros(2).record_stream(mt.cuda.Stream())


def test_dataloader_pins_batches_when_cuda_is_available(fake_cupy):
    ds = TensorDataset(mt.arange(8.0).reshape(4, 2), mt.arange(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batches = list(DataLoader(ds, batch_size=2, pin_memory=True))
    assert len(batches) == 2
    for x, y in batches:
        assert x.is_pinned() and y.is_pinned()
    assert not next(iter(DataLoader(ds, batch_size=2)))[0].is_pinned()


def test_without_cuda_nothing_is_pinned(no_gpu):
    x = mt.ones(2)
    assert not x.is_pinned()
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none"):
        x.pin_memory()
    y = x.to("cpu", non_blocking=True)
    assert y is x  # nothing to copy
    with pytest.warns(UserWarning, match="no accelerator is found"):
        (batch,) = list(DataLoader(TensorDataset(x), batch_size=2, pin_memory=True))
    assert not batch[0].is_pinned()
