"""Storage offsets of saved views against torch: files torch writes read by minitorch, and files
minitorch writes read by torch, keep each tensor's offset, strides, values and as_strided."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _views(lib):
    w = lib.arange(12.0)
    m = w.view(3, 4)
    return {"a": w, "b": w[3:6], "c": m.t(), "d": m[1:, ::2], "e": w[:4], "g": w[2:3].expand(4)}


# (size, stride, offset) read through as_strided from each loaded tensor
_STRIDED = [((2,), (1,), 0), ((3,), (2,), 1), ((2, 2), (1, 4), 5)]


def _summary(r):
    out = {}
    for k, v in r.items():
        strided = [v.as_strided(*args).tolist() for args in _STRIDED]
        out[k] = (v.storage_offset(), tuple(v.shape), tuple(v.stride()), v.tolist(), strided)
    return out


@pytest.mark.parametrize("weights_only", [True, False])
def test_torch_writes_minitorch_reads(weights_only):
    buf = io.BytesIO()
    torch.save(_views(torch), buf)
    expected = _summary(torch.load(io.BytesIO(buf.getvalue()), weights_only=weights_only))
    got = _summary(mt.load(io.BytesIO(buf.getvalue()), weights_only=weights_only))
    assert got == expected
    assert expected["b"][0] == 3 and expected["b"][4][0] == [0.0, 1.0]  # not trivially equal


def test_torch_writes_empty_slice_minitorch_keeps_offset():
    w = torch.arange(12.0)
    buf = io.BytesIO()
    torch.save({"a": w, "f": w[11:11]}, buf)
    r = mt.load(io.BytesIO(buf.getvalue()))
    assert r["f"].storage_offset() == 11 and tuple(r["f"].shape) == (0,)
    assert r["f"].untyped_storage().nbytes() == 48


def test_minitorch_writes_torch_reads():
    buf = io.BytesIO()
    mt.save(_views(mt), buf)
    expected = _summary(torch.load(io.BytesIO(buf.getvalue())))
    got = _summary(mt.load(io.BytesIO(buf.getvalue())))
    assert got == expected
    assert got["d"][0] == 4
    # the loaded tensors share one storage in both
    r = torch.load(io.BytesIO(buf.getvalue()))
    assert r["b"].untyped_storage().data_ptr() == r["a"].untyped_storage().data_ptr()


def test_minitorch_loaded_views_round_trip_to_torch():
    # minitorch reads torch's file, writes it again: torch reads the same layout back
    buf = io.BytesIO()
    torch.save(_views(torch), buf)
    again = io.BytesIO()
    mt.save(mt.load(io.BytesIO(buf.getvalue())), again)
    expected = _summary(torch.load(io.BytesIO(buf.getvalue())))
    got = _summary(torch.load(io.BytesIO(again.getvalue())))
    assert got == expected
    np.testing.assert_array_equal(
        torch.load(io.BytesIO(again.getvalue()))["d"].numpy(), [[4.0, 6.0], [8.0, 10.0]]
    )
