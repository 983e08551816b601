"""Storages: Tensor.untyped_storage / storage / set_ / is_set_to."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.storage import TypedStorage, UntypedStorage


def test_views_share_one_storage():
    x = mt.arange(6.0).reshape(2, 3)
    v = x[:, 1:]
    u = v.untyped_storage()
    assert isinstance(u, UntypedStorage) and u is not None
    assert (u.nbytes(), len(u), u.element_size()) == (24, 24, 1)
    assert u.data_ptr() == x.data_ptr() == x.untyped_storage().data_ptr()
    assert v.data_ptr() == u.data_ptr() + 4 * v.storage_offset()
    assert mt.ones(3).untyped_storage().data_ptr() != u.data_ptr()
    t = mt.from_numpy(np.arange(10.0)[2:8])  # a NumPy view: the storage is its own memory
    assert t.untyped_storage().nbytes() == 48


def test_typed_storage_reads_and_writes_the_memory():
    x = mt.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = x[1].storage()
    assert isinstance(s, TypedStorage) and s.dtype == mt.float32
    assert (s.size(), s[4], s.tolist()) == (6, 4.0, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    s[0] = 7
    assert x[0, 0].item() == 7.0
    assert repr(mt.arange(3.0).untyped_storage()[:4]).endswith(
        "[torch.storage.UntypedStorage(device=cpu) of size 4]"
    )


def test_set_to_a_tensor_and_to_a_storage():
    x = mt.arange(6.0).reshape(2, 3)
    y = mt.empty(0)
    assert y.set_(x) is y and y.is_set_to(x) and not x[:, 1:].is_set_to(x)
    z = mt.empty(0).set_(x.untyped_storage(), 2, (2, 2), (1, 2))
    assert z.tolist() == [[2.0, 4.0], [3.0, 5.0]]
    x[1, 0] = -1.0  # all three see the write
    assert y[1, 0].item() == -1.0 and z[1, 0].item() == -1.0
    assert mt.empty(2).set_().shape == (0,)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        mt.empty(0).set_(x.untyped_storage(), 2, (4, 2), (1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = x.storage()
    with pytest.raises(RuntimeError, match="Expected a Storage of type long int"):
        mt.empty(0, dtype=mt.int64).set_(typed)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        x.untyped_storage().resize_(0)


def test_set_on_parameters_needs_no_grad():
    p = mt.nn.Parameter(mt.zeros(3))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p.set_(mt.ones(3))
    with mt.no_grad():
        p.set_(mt.ones(3))
    assert p.tolist() == [1.0, 1.0, 1.0] and p.requires_grad


def test_typed_storage_warns_once_per_process(monkeypatch):
    from minitorch import storage

    monkeypatch.setattr(storage, "_warned", [])
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        mt.ones(2).storage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.ones(2).storage()


def test_getsizeof_of_a_storage_counts_its_bytes():
    import sys

    s = mt.zeros(1536).untyped_storage()
    assert 6144 < sys.getsizeof(s) < 6144 + 256
