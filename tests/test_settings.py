"""torch-level settings (minitorch/_settings.py): stored values read back as torch reports them,
torch's argument errors, and set_default_tensor_type's deprecation and effect."""

from __future__ import annotations

import pytest

import minitorch as mt
from minitorch import _settings
from minitorch._backend.numpy_backend import get_blas_threads, set_blas_threads


@pytest.fixture(autouse=True)
def _restore_settings():
    saved = dict(_settings._state)
    dtype = mt.get_default_dtype()
    blas = get_blas_threads()
    yield
    _settings._state.clear()
    _settings._state.update(saved)
    mt.set_default_dtype(dtype)
    if blas is not None:  # the rest of the suite keeps its BLAS threads
        set_blas_threads(blas)


def test_num_threads_are_stored():
    assert mt.get_num_threads() >= 1 and mt.get_num_interop_threads() >= 1
    mt.set_num_threads(3)
    assert mt.get_num_threads() == 3
    with pytest.raises(RuntimeError, match="expects a positive integer"):
        mt.set_num_threads(0)
    with pytest.raises(RuntimeError, match="expects an int, but got float"):
        mt.set_num_threads(2.5)


def test_num_threads_reach_numpys_openblas():
    if get_blas_threads() is None:
        pytest.skip("NumPy's BLAS here is not an OpenBLAS minitorch can find")
    mt.set_num_threads(1)
    assert get_blas_threads() == 1 and mt.get_num_threads() == 1
    a = mt.randn(64, 64)
    assert (a @ a).shape == (64, 64)
    mt.set_num_threads(2)
    assert get_blas_threads() == 2


def test_interop_threads_can_be_set_once():
    mt.set_num_interop_threads(5)
    assert mt.get_num_interop_threads() == 5
    with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
        mt.set_num_interop_threads(4)


def test_deterministic_flags_and_debug_mode():
    assert not mt.are_deterministic_algorithms_enabled()
    assert mt.get_deterministic_debug_mode() == 0
    mt.use_deterministic_algorithms(True, warn_only=True)
    assert mt.are_deterministic_algorithms_enabled()
    assert mt.is_deterministic_algorithms_warn_only_enabled()
    assert mt.get_deterministic_debug_mode() == 1
    mt.set_deterministic_debug_mode("error")
    assert mt.get_deterministic_debug_mode() == 2
    assert not mt.is_deterministic_algorithms_warn_only_enabled()
    mt.set_deterministic_debug_mode(0)
    assert not mt.are_deterministic_algorithms_enabled()
    with pytest.raises(TypeError, match="must be bool, not int"):
        mt.use_deterministic_algorithms(1)
    with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
        mt.set_deterministic_debug_mode("loud")
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 5"):
        mt.set_deterministic_debug_mode(5)
    with pytest.raises(TypeError, match="must be str or int"):
        mt.set_deterministic_debug_mode(1.0)


def test_matmul_precision():
    assert mt.get_float32_matmul_precision() == "highest"
    mt.set_float32_matmul_precision("medium")
    assert mt.get_float32_matmul_precision() == "medium"
    with pytest.warns(UserWarning, match="no effect"):
        mt.set_float32_matmul_precision("fastest")
    assert mt.get_float32_matmul_precision() == "medium"


def test_warn_always_and_flush_denormal():
    assert mt.is_warn_always_enabled() is False
    mt.set_warn_always(True)
    assert mt.is_warn_always_enabled() is True
    with pytest.raises(RuntimeError, match="expects a bool"):
        mt.set_warn_always(1)
    assert mt.set_flush_denormal(True) is False
    with pytest.raises(RuntimeError, match="flush_denormal expects a bool"):
        mt.set_flush_denormal(1)


def test_is_storage():
    from minitorch._serialization_storage import Storage

    assert not mt.is_storage(mt.zeros(2)) and not mt.is_storage(3)
    assert mt.is_storage(Storage(mt.zeros(2)._data, mt.device("cpu"), mt.float32))


def test_set_default_tensor_type(monkeypatch):
    # torch warns once per process; warn_always shows it on every call
    monkeypatch.setitem(mt._settings._state, "warn_always", True)
    with pytest.warns(UserWarning, match="deprecated"):
        mt.set_default_tensor_type(mt.DoubleTensor)
    assert mt.get_default_dtype() is mt.float64
    assert mt.tensor([1.5]).dtype is mt.float64
    with pytest.warns(UserWarning):
        mt.set_default_tensor_type("torch.FloatTensor")
    assert mt.get_default_dtype() is mt.float32
    with pytest.warns(UserWarning), pytest.raises(TypeError, match="only floating-point"):
        mt.set_default_tensor_type(mt.LongTensor)
    with pytest.warns(UserWarning), pytest.raises(TypeError, match="invalid type object"):
        mt.set_default_tensor_type(mt.float32)
