"""minitorch.accelerator (on the CuPy test double and without CUDA) and minitorch.backends."""

from __future__ import annotations

import importlib
import sys

import pytest

import minitorch as mt


def test_accelerator_is_cuda_when_a_gpu_is_present(fake_cupy_2gpu):
    acc = mt.accelerator
    assert acc.is_available() and acc.device_count() == 2
    assert acc.current_accelerator() == mt.device("cuda")
    assert acc.current_device_index() == 0
    with acc.device_index(1):
        assert acc.current_device_index() == 1 == mt.cuda.current_device()
        with acc.device_index(None):
            assert acc.current_device_index() == 1
    assert acc.current_device_index() == 0
    acc.set_device_index(1)
    assert mt.cuda.current_device() == 1
    acc.set_device_index(0)
    before = fake_cupy_2gpu._fake_state.synchronized
    acc.synchronize()
    assert fake_cupy_2gpu._fake_state.synchronized == before + 1
    assert acc.current_stream() == mt.cuda.current_stream()
    x = mt.zeros(256, device="cuda")
    assert acc.memory_allocated() == 1024 == acc.max_memory_allocated()
    assert acc.memory_stats()["allocated_bytes.all.current"] == 1024
    del x


def test_accelerator_without_a_gpu(no_gpu):
    acc = mt.accelerator
    assert not acc.is_available() and acc.device_count() == 0
    assert acc.current_accelerator() is None
    for call in (
        acc.current_device_index,
        lambda: acc.set_device_index(0),
        acc.synchronize,
        acc.memory_allocated,
        acc.empty_cache,
    ):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none"):
            call()
    with acc.device_index(None):
        pass
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        with acc.device_index(0):
            pass


def test_tutorial_device_selection_idiom(no_gpu):
    dev = mt.accelerator.current_accelerator().type if mt.accelerator.is_available() else "cpu"
    assert mt.ones(2, device=dev).device == mt.device("cpu")


def test_cudnn_flags_are_stored_and_validated():
    cudnn = mt.backends.cudnn
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
        True,
        False,
        False,
        True,
    )
    assert not cudnn.is_available() and cudnn.version() is None
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert cudnn.benchmark and cudnn.deterministic
        with cudnn.flags(enabled=False, benchmark=False):
            assert not cudnn.enabled and not cudnn.benchmark
        assert cudnn.enabled and cudnn.benchmark
        with pytest.raises(RuntimeError, match="set_deterministic_cudnn expects a bool"):
            cudnn.deterministic = 1
    finally:
        cudnn.benchmark = cudnn.deterministic = False
    import minitorch.backends.cudnn as by_import

    assert by_import is cudnn


def test_cuda_matmul_flags():
    matmul = mt.backends.cuda.matmul
    assert matmul.allow_tf32 is False and matmul.allow_fp16_reduced_precision_reduction is True
    try:
        matmul.allow_tf32 = True
        matmul.allow_fp16_reduced_precision_reduction = False
        assert matmul.allow_tf32 and not matmul.allow_fp16_reduced_precision_reduction
        with pytest.raises(RuntimeError, match="expects a bool"):
            matmul.allow_tf32 = "yes"
        with pytest.raises(TypeError, match="expects a bool or a tuple/list of bools"):
            matmul.allow_fp16_reduced_precision_reduction = 1
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            matmul.foo = 1
        with pytest.raises(AttributeError, match="Unknown attribute foo"):
            matmul.foo  # noqa: B018
    finally:
        matmul.allow_tf32 = False
        matmul.allow_fp16_reduced_precision_reduction = True
    assert mt.backends.cuda.flash_sdp_enabled()
    mt.backends.cuda.enable_flash_sdp(False)
    assert not mt.backends.cuda.flash_sdp_enabled()
    mt.backends.cuda.enable_flash_sdp(True)


def test_mps_and_cpu():
    assert mt.backends.mps.is_available() is False and mt.backends.mps.is_built() is False
    assert mt.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")


class _NoCupy:
    """A meta path finder that fails any attempt to import cupy."""

    def find_spec(self, name, path=None, target=None):
        assert name.partition(".")[0] not in ("cupy", "cupyx"), f"imported {name}"


def test_gpu_modules_and_cpu_calls_import_no_cupy(monkeypatch, no_gpu):
    # Fresh imports of accelerator and backends (monkeypatch restores the old modules after).
    for name in [n for n in sys.modules if n.startswith(("minitorch.accelerator", "minitorch.b"))]:
        monkeypatch.delitem(sys.modules, name)
    for name in ("accelerator", "backends"):
        monkeypatch.delattr(mt, name, raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoCupy(), *sys.meta_path])
    importlib.import_module("minitorch.accelerator")
    mt.backends.cudnn.benchmark = False
    assert "minitorch.accelerator" in sys.modules and mt.backends.mps.is_available() is False
    mt.accelerator.device_index(None)
    mt.cuda.memory_allocated()
    mt.cuda.memory_summary()
    mt.ones(2).is_pinned()
    mt.ones(2).to("cpu", non_blocking=True)
