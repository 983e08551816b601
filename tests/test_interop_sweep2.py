"""Data interop and loop glue found by the second drop-in sweep: read-only NumPy memory, views
given new memory (`.data =`, resize_) in deepcopy and storage_offset, pandas nullable columns
with NA, 0-d arrays in lists, asarray(requires_grad=True), share_memory_/is_shared and
set_rng_state's TypeError."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import minitorch as mt


def _read_only(a):
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("make", [mt.from_numpy, mt.as_tensor, mt.asarray])
def test_tensors_over_read_only_arrays_warn_and_write_through(make):
    # pandas 3's df[col].values is read-only: torch warns and writes into it; this raised
    # "assignment destination is read-only" on the first in-place op
    owner = np.arange(4.0)
    a = _read_only(owner.view())
    mt._settings._warned_once.discard("numpy_not_writable")  # torch warns once per process
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        t = make(a)
    t -= t.mean()
    assert owner.tolist() == [-1.5, -0.5, 0.5, 1.5] and t.numpy().flags.writeable
    t[0] = 7.0
    assert owner[0] == 7.0


def test_memory_numpy_cannot_write_stays_read_only():
    b = np.frombuffer(b"\x00" * 32, dtype=np.float64)  # a bytes object: never written into
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t = mt.from_numpy(b)
    with pytest.raises(ValueError, match="read-only"):
        t.sub_(1)


def test_deepcopy_and_storage_offset_of_a_view_given_new_memory():
    m = mt.zeros(3).view(1, 3)  # a buffer updated EMA-style through .data
    m.data = m.data * 0.9 + 1
    assert copy.deepcopy(m).tolist() == [[1.0, 1.0, 1.0]]  # was the stale zeros
    assert m.storage_offset() == 0
    v = mt.zeros(6)[2:]
    assert v.storage_offset() == 2
    v.resize_(2)
    v.fill_(3.0)
    assert copy.deepcopy(v).tolist() == [3.0, 3.0]  # was 4 elements


def test_pandas_nullable_columns_with_na_are_refused():
    pd = pytest.importorskip("pandas")
    s = pd.Series([1, None, 3], dtype="Int64")
    for f in (lambda: mt.tensor(s), lambda: mt.tensor(s.values), lambda: mt.as_tensor(s)):
        with pytest.raises(RuntimeError, match="Could not infer dtype of NAType"):
            f()
    with pytest.raises(TypeError, match="must be real number, not NAType"):
        mt.tensor(s, dtype=mt.float32)
    assert mt.tensor(pd.Series([1, 3], dtype="Int64")).tolist() == [1, 3]
    assert mt.tensor(pd.Series([1.0, np.nan])).isnan().tolist() == [False, True]


def test_zero_dim_arrays_in_a_list_after_a_number():
    assert mt.tensor([0.0, mt.tensor(1.5).numpy()]).tolist() == [0.0, 1.5]
    assert mt.tensor([1, np.array(2)]).tolist() == [1, 2]


def test_asarray_requires_grad_share_memory_and_rng_state_type():
    t = mt.ones(2)
    assert mt.asarray(t, requires_grad=True) is t and t.requires_grad
    x = mt.zeros(3)
    assert not x.is_shared()
    assert x.share_memory_() is x and x.is_shared() and x[1:].is_shared()
    assert not x.clone().is_shared() and not copy.deepcopy(x).is_shared()
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        mt.set_rng_state(mt.zeros(5))
