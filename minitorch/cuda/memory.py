"""The caching allocator with torch's names: CuPy's default memory pool, its statistics (peaks
tracked by minitorch's allocator wrapper, see NOTE [ Peak memory tracking ] in
minitorch/_backend/cupy_backend.py), memory_summary, empty_cache and the per-process limit.

Before CUDA is set up (and always on machines without it) the statistics are empty and the
sizes 0, as in torch.
"""

from __future__ import annotations

import collections
import warnings

from minitorch._backend import OutOfMemoryError, cupy_backend
from minitorch.cuda._utils import device_index, initialized_backend, lazy_init

# fmt: off
__all__ = [
    "OutOfMemoryError", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
    "memory_stats", "memory_summary", "empty_cache", "set_per_process_memory_fraction",
    "mem_get_info", "memory_cached", "max_memory_cached", "reset_max_memory_cached",
    "memory_stats_as_nested_dict", "host_memory_stats", "host_memory_stats_as_nested_dict",
]
# fmt: on


def memory_stats(device=None) -> dict:
    """The allocator's statistics for `device`, under torch's keys (an empty OrderedDict before
    CUDA is set up). Mirrors torch.cuda.memory_stats.

    Differences from torch: a subset of the keys; "allocated_bytes.all.allocated" counts the bytes
    requested (torch counts them rounded to its block sizes); the pool has no "small"/"large"
    split, so only the ".all." keys exist.
    """
    backend = initialized_backend()
    if backend is None:
        return collections.OrderedDict()
    tracker = backend.memory
    index = device_index(device)
    with backend.xp.cuda.Device(index):
        used, reserved = tracker.pool.used_bytes(), tracker.pool.total_bytes()
    peak_used, peak_reserved, n_alloc, requested, retries, ooms = tracker.device_stats(index)
    stats = {
        "active_bytes.all.current": used,
        "active_bytes.all.peak": max(peak_used, used),
        "allocated_bytes.all.allocated": requested,
        "allocated_bytes.all.current": used,
        "allocated_bytes.all.peak": max(peak_used, used),
        "allocation.all.allocated": n_alloc,
        "num_alloc_retries": retries,
        "num_ooms": ooms,
        "reserved_bytes.all.current": reserved,
        "reserved_bytes.all.peak": max(peak_reserved, reserved),
    }
    return collections.OrderedDict(sorted(stats.items()))


def memory_allocated(device=None) -> int:
    """Bytes held by tensors on `device` now. Mirrors torch.cuda.memory_allocated."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None) -> int:
    """The most bytes held by tensors since start or reset_peak_memory_stats(). Mirrors
    torch.cuda.max_memory_allocated."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None) -> int:
    """Bytes the pool holds from the driver (allocated plus cached). Mirrors
    torch.cuda.memory_reserved."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None) -> int:
    """The most bytes the pool held since start or reset_peak_memory_stats(). Mirrors
    torch.cuda.max_memory_reserved."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None) -> None:
    """Peaks restart from the current usage. Mirrors torch.cuda.reset_peak_memory_stats.

    Differences from torch: a no-op before CUDA is set up (torch's CPU build raises an
    AttributeError from its missing C function).
    """
    backend = initialized_backend()
    if backend is not None:
        backend.memory.reset_peaks(device_index(device))


def reset_max_memory_allocated(device=None) -> None:
    """Deprecated alias of reset_peak_memory_stats (it resets every peak, as in torch)."""
    warnings.warn(
        "minitorch.cuda.reset_max_memory_allocated now calls "
        "minitorch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def memory_cached(device=None) -> int:
    """Deprecated name of memory_reserved. Mirrors torch.cuda.memory_cached."""
    warnings.warn(
        "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """Deprecated name of max_memory_reserved. Mirrors torch.cuda.max_memory_cached."""
    warnings.warn(
        "`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return max_memory_reserved(device)


def reset_max_memory_cached(device=None) -> None:
    """Deprecated alias of reset_peak_memory_stats (it resets every peak, as in torch)."""
    warnings.warn(
        "minitorch.cuda.reset_max_memory_cached now calls "
        "minitorch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def memory_stats_as_nested_dict(device=None) -> dict:
    """memory_stats(device) with its dotted keys split into nested dicts ({} before CUDA is
    set up). Mirrors torch.cuda.memory_stats_as_nested_dict."""
    nested: dict = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def host_memory_stats() -> dict:
    """The pinned host allocator's statistics: an empty OrderedDict. Mirrors
    torch.cuda.host_memory_stats.

    Differences from torch: always empty (CuPy's pinned pool keeps no statistics); torch's
    CPU-only build answers the same."""
    return collections.OrderedDict()


def host_memory_stats_as_nested_dict() -> dict:
    """{} (see host_memory_stats). Mirrors torch.cuda.host_memory_stats_as_nested_dict."""
    return {}


def empty_cache() -> None:
    """Returns the pool's cached (unused) blocks of the current GPU to the driver. Mirrors
    torch.cuda.empty_cache."""
    backend = initialized_backend()
    if backend is not None:
        backend.memory.pool.free_all_blocks()


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Caps the pool at `fraction` of the GPU's memory; allocations past it raise
    OutOfMemoryError. Mirrors torch.cuda.set_per_process_memory_fraction."""
    backend = lazy_init()
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    with backend.xp.cuda.Device(device_index(device)):
        backend.memory.pool.set_limit(fraction=fraction)


def mem_get_info(device=None) -> tuple:
    """(free, total) bytes of the GPU, from the driver. Mirrors torch.cuda.mem_get_info."""
    backend = lazy_init()
    with backend.xp.cuda.Device(device_index(device)):
        free, total = backend.xp.cuda.runtime.memGetInfo()
    return (int(free), int(total))


def _size(n: int) -> str:
    for unit in ("B  ", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:7d} {unit}" if unit == "B  " else f"{n:7.2f} {unit}"
        n /= 1024
    return ""  # pragma: no cover


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A readable table of memory_stats(device). Mirrors torch.cuda.memory_summary.

    Differences from torch: fewer rows (CuPy's pool has no block-size classes); before CUDA is
    set up it shows zeros (torch's CPU build raises a KeyError).
    """
    stats = memory_stats(device)
    index = device_index(device)

    def get(key):
        return stats.get(key, 0)

    width = 75
    rule, thick = "|" + "-" * (width - 2) + "|", "|" + "=" * (width - 2) + "|"

    def row(*cells):
        return "|" + "|".join(cells) + "|"

    lines = [
        thick,
        row(f" minitorch CUDA memory summary, device ID {index} (CuPy memory pool)".ljust(73)),
        rule,
        row(
            f" CUDA OOMs: {get('num_ooms')}".ljust(36),
            f" cudaMalloc retries: {get('num_alloc_retries')}".ljust(36),
        ),
        thick,
        row(" Metric".ljust(36), " Cur Usage".ljust(17), " Peak Usage".ljust(18)),
        rule,
    ]
    metrics = [
        ("Allocated memory", "allocated_bytes.all.current", "allocated_bytes.all.peak"),
        ("Active memory", "active_bytes.all.current", "active_bytes.all.peak"),
        ("GPU reserved memory", "reserved_bytes.all.current", "reserved_bytes.all.peak"),
        ("Cached free memory", None, None),  # reserved by the pool, held by no tensor
    ]
    for name, cur, peak in metrics:
        if cur is None:
            value = get("reserved_bytes.all.current") - get("allocated_bytes.all.current")
        else:
            value = get(cur)
        peak_cell = f" {_size(get(peak))}" if peak else ""
        lines.append(row(f" {name}".ljust(36), f" {_size(value)}".ljust(17), peak_cell.ljust(18)))
    if not abbreviated:
        lines.append(rule)
        lines.append(
            row(
                " Allocations (total)".ljust(36),
                f" {get('allocation.all.allocated'):>11d}".ljust(17),
                "".ljust(18),
            )
        )
        lines.append(
            row(
                " Bytes requested (total)".ljust(36),
                f" {_size(get('allocated_bytes.all.allocated'))}".ljust(17),
                "".ljust(18),
            )
        )
    lines.append(thick)
    return "\n".join(lines) + "\n"


# An OutOfMemoryError raised by the allocator ends with this summary.
cupy_backend.oom_describer = memory_summary
