"""The caching allocator's API (memory_allocated, peaks, memory_stats, memory_summary, limits,
OutOfMemoryError) on the CuPy test double, and its answers without CUDA."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt

KiB = 1024


def test_allocations_go_through_minitorchs_tracking_allocator(fake_cupy):
    assert mt.cuda.memory_allocated() == 0  # not set up yet: zeros, as in torch
    x = mt.zeros(256, device="cuda")  # 1 KiB of float32
    pool = fake_cupy.get_default_memory_pool()
    assert pool.malloc_calls == 1
    assert mt.cuda.memory_allocated() == pool.used_bytes() == KiB
    assert mt.cuda.memory_reserved() == KiB
    del x
    assert mt.cuda.memory_allocated() == 0 and mt.cuda.memory_reserved() == KiB  # cached
    assert mt.cuda.max_memory_allocated() == KiB


def test_peaks_track_the_highest_usage_and_reset(fake_cupy):
    a = mt.zeros(512, device="cuda")  # 2 KiB
    b = mt.zeros(1024, device="cuda")  # 4 KiB
    del b
    c = mt.zeros(256, device="cuda")  # 1 KiB, from the cache
    assert mt.cuda.memory_allocated() == 3 * KiB
    assert mt.cuda.max_memory_allocated() == 6 * KiB
    assert mt.cuda.max_memory_reserved() == 6 * KiB
    mt.cuda.reset_peak_memory_stats()
    assert mt.cuda.max_memory_allocated() == 3 * KiB
    assert mt.cuda.max_memory_reserved() == mt.cuda.memory_reserved() == 6 * KiB
    mt.cuda.empty_cache()
    assert mt.cuda.memory_reserved() == 3 * KiB
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"):
        mt.cuda.reset_max_memory_allocated()
    assert mt.cuda.max_memory_reserved() == 3 * KiB
    del a, c


def test_memory_stats_keys_and_values(fake_cupy):
    x = mt.zeros(100, device="cuda")  # 400 bytes requested, 512 in a block
    stats = mt.cuda.memory_stats()
    for key in (
        "allocated_bytes.all.current",
        "allocated_bytes.all.peak",
        "reserved_bytes.all.current",
        "reserved_bytes.all.peak",
        "active_bytes.all.current",
        "num_alloc_retries",
        "num_ooms",
    ):
        assert key in stats, key
    assert list(stats) == sorted(stats)  # an OrderedDict sorted by key, as torch's
    assert stats["allocated_bytes.all.current"] == 512
    assert stats["allocated_bytes.all.allocated"] == 400
    assert stats["allocation.all.allocated"] == 1
    assert stats["num_ooms"] == stats["num_alloc_retries"] == 0
    assert mt.cuda.memory_stats(0) == mt.cuda.memory_stats("cuda:0") == stats
    del x


def test_stats_are_per_device(fake_cupy_2gpu):
    x = mt.zeros(256, device="cuda:1")
    assert mt.cuda.memory_allocated(1) == KiB and mt.cuda.memory_allocated(0) == 0
    assert mt.cuda.max_memory_allocated(mt.device("cuda", 1)) == KiB
    del x


def test_memory_summary_is_a_table_of_the_stats(fake_cupy):
    x = mt.zeros(512, device="cuda")
    y = mt.zeros(256, device="cuda")
    del y  # 1 KiB back in the pool's cache
    text = mt.cuda.memory_summary()
    lines = text.splitlines()
    assert "device ID 0" in lines[1] and "CUDA OOMs: 0" in text
    assert all(len(line) == 75 for line in lines), [len(line) for line in lines]
    allocated = next(line for line in lines if "Allocated memory" in line)
    assert allocated.count("2.00 KiB") == 1 and "3.00 KiB" in allocated  # current, peak
    cached = next(line for line in lines if "Cached free memory" in line)
    assert "1.00 KiB" in cached
    assert "Allocations (total)" in text
    assert "Allocations (total)" not in mt.cuda.memory_summary(abbreviated=True)
    del x


def test_out_of_memory_is_minitorchs_error_with_the_summary(fake_cupy):
    keep = mt.zeros(128 * KiB, device="cuda")  # half of the 1 MiB fake GPU
    with pytest.raises(mt.cuda.OutOfMemoryError) as info:
        mt.zeros(256 * KiB, device="cuda")
    assert isinstance(info.value, RuntimeError)
    msg = str(info.value)
    assert msg.startswith("CUDA out of memory. Tried to allocate 1.00 MiB. GPU 0")
    assert "minitorch CUDA memory summary" in msg and "CUDA OOMs: 1" in msg
    stats = mt.cuda.memory_stats()
    assert stats["num_ooms"] == 1 and stats["num_alloc_retries"] == 1
    del keep


def test_a_retry_after_emptying_the_cache_can_succeed(fake_cupy):
    x = mt.zeros(200 * KiB, device="cuda")  # 800 KiB, then cached
    del x
    y = mt.zeros(100 * KiB, device="cuda")  # reuses the cache
    z = mt.zeros(150 * KiB, device="cuda")  # 600 KiB: too big for the 400 KiB cache: retry
    stats = mt.cuda.memory_stats()
    assert stats["num_alloc_retries"] == 1 and stats["num_ooms"] == 0
    del y, z


def test_per_process_memory_fraction_caps_the_pool(fake_cupy):
    mt.cuda.set_per_process_memory_fraction(0.25)
    with pytest.raises(mt.cuda.OutOfMemoryError):
        mt.zeros(128 * KiB, device="cuda")  # 512 KiB > 256 KiB
    small = mt.zeros(32 * KiB, device="cuda")
    with pytest.raises(TypeError, match="must be `float`"):
        mt.cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        mt.cuda.set_per_process_memory_fraction(1.5)
    del small


def test_mem_get_info(fake_cupy):
    x = mt.zeros(256, device="cuda")
    assert mt.cuda.mem_get_info() == (1024 * KiB - KiB, 1024 * KiB)
    del x


def test_without_cuda_the_stats_are_empty_and_the_limits_raise(no_gpu):
    assert mt.cuda.memory_stats() == {} and mt.cuda.memory_allocated() == 0
    assert mt.cuda.max_memory_allocated() == mt.cuda.memory_reserved() == 0
    assert mt.cuda.max_memory_reserved(0) == 0
    mt.cuda.empty_cache()
    mt.cuda.reset_peak_memory_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        mt.cuda.reset_max_memory_allocated()
    assert "Allocated memory" in mt.cuda.memory_summary()
    with pytest.raises(AssertionError):
        mt.cuda.set_per_process_memory_fraction(0.5)
    with pytest.raises(AssertionError):
        mt.cuda.mem_get_info()
    assert issubclass(mt.cuda.OutOfMemoryError, RuntimeError)
