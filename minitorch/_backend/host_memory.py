"""Host memory: ask the C allocator to keep freed array memory for reuse.

NOTE [ Host memory reuse ]
A training step allocates and frees the same few megabyte-sized arrays every time (activations,
their gradients, the temporaries of each kernel). glibc's malloc serves blocks above its mmap
threshold with fresh mappings and hands the top of its heap back to the kernel once more than its
trim threshold is free, so each new array is zero-filled by the kernel page by page on first
touch. Both thresholds start at 128 KiB and only grow as mapped blocks are freed, so on a step
with many arrays the process keeps returning and refaulting memory: per step, 3,600 page faults
(7.6 ms of kernel time in a 37 ms step) on bench/'s cnn_step and 6,100 (15 ms of 67 ms) on
attention_block, none with the thresholds raised. PyTorch's GPU side answers this with a caching
allocator (ours: CuPy's memory pool); on the host, raising the two thresholds makes malloc's own
free lists that cache: blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap and
up to 64 MiB of free heap top stays mapped. Bigger arrays still get their own mapping and go back
to the system when freed.

The settings are process-wide, so they are applied once at import and only where nobody chose
otherwise: on glibc, unless the environment already sets malloc options (MALLOC_*_ variables,
GLIBC_TUNABLES) or preloads another allocator (LD_PRELOAD), and unless MINITORCH_MALLOC_TUNING=0.
"""

from __future__ import annotations

import os

__all__: list[str] = []

MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20
_M_TRIM_THRESHOLD = -1  # mallopt parameter numbers, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3

_MALLOC_ENV = (
    "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_TRIM_THRESHOLD_",
    "MALLOC_TOP_PAD_",
    "MALLOC_MMAP_MAX_",
    "MALLOC_ARENA_MAX",
)

applied = False  # whether this process runs with the settings above


def _user_chose_allocator(env) -> bool:
    if env.get("MINITORCH_MALLOC_TUNING", "1").strip().lower() in ("0", "false", "no", "off"):
        return True
    if any(name in env for name in _MALLOC_ENV) or env.get("LD_PRELOAD"):
        return True
    return "malloc" in env.get("GLIBC_TUNABLES", "")


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, OSError, ValueError):  # not a glibc system
        return False


def tune(env=os.environ) -> bool:
    """Raises glibc's mmap and trim thresholds (see the NOTE) where allowed; returns whether it
    did."""
    global applied
    if applied or _user_chose_allocator(env) or not _glibc():
        return applied
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mmap first: setting any threshold stops glibc's own adjustment of the other
    applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
    return applied
