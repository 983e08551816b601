"""torch.xpu as a PyTorch build without XPU support answers it: minitorch runs on the CPU and on
CUDA GPUs only, so no xpu device is ever available. Device-agnostic helpers (seeding every
backend, emptying caches, reading memory counters) call these; each does what CPU-only torch does:
nothing, 0, or torch's exception. Mirrors torch.xpu on a build without XPU."""

from __future__ import annotations

import collections

# fmt: off
__all__ = [
    "device_count", "is_available", "is_initialized", "init", "manual_seed", "manual_seed_all",
    "seed", "seed_all", "initial_seed", "get_rng_state", "set_rng_state", "get_rng_state_all",
    "set_rng_state_all", "empty_cache", "memory_allocated", "max_memory_allocated",
    "memory_reserved", "max_memory_reserved", "memory_stats", "memory_stats_as_nested_dict",
    "reset_peak_memory_stats", "reset_accumulated_memory_stats", "synchronize", "current_device",
    "set_device", "get_device_name", "get_device_properties", "get_device_capability",
    "current_stream", "mem_get_info", "is_bf16_supported", "is_tf32_supported", "get_arch_list",
    "get_gencode_flags", "default_generators",
]
# fmt: on

default_generators: tuple = ()  # one per XPU device: none


def _needs_xpu(name: str):
    """torch.xpu.<name>: a call that needs the XPU runtime, so raises torch's AssertionError."""

    def f(*args, **kwargs):
        raise AssertionError("Torch not compiled with XPU enabled")

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Raises torch's AssertionError: no XPU runtime. Mirrors torch.xpu.{name}."
    return f


def is_available() -> bool:
    """Always False. Mirrors torch.xpu.is_available."""
    return False


def device_count() -> int:
    """Always 0. Mirrors torch.xpu.device_count."""
    return 0


def is_initialized() -> bool:
    """Always False: XPU is never set up. Mirrors torch.xpu.is_initialized."""
    return False


# Seeding does nothing: torch defers it to the XPU set-up, which never comes. The seed is still
# read as an int, so a bad seed raises as in torch.


def manual_seed(seed) -> None:
    """Does nothing (no XPU generators). Mirrors torch.xpu.manual_seed."""
    int(seed)


def manual_seed_all(seed) -> None:
    """Does nothing (no XPU generators). Mirrors torch.xpu.manual_seed_all."""
    int(seed)


def seed() -> None:
    """Does nothing (no XPU generators). Mirrors torch.xpu.seed."""


def seed_all() -> None:
    """Does nothing (no XPU generators). Mirrors torch.xpu.seed_all."""


def set_rng_state(new_state, device="xpu") -> None:
    """Does nothing (torch defers it to a set-up that never comes). Mirrors
    torch.xpu.set_rng_state."""


def get_rng_state_all() -> list:
    """[]: there are no XPU devices. Mirrors torch.xpu.get_rng_state_all."""
    return []


def set_rng_state_all(new_states) -> None:
    """Does nothing. Mirrors torch.xpu.set_rng_state_all."""


def empty_cache() -> None:
    """Does nothing: no XPU memory is cached. Mirrors torch.xpu.empty_cache."""


def memory_stats_as_nested_dict(device=None) -> dict:
    """{}: no XPU allocator. Mirrors torch.xpu.memory_stats_as_nested_dict."""
    return {}


def memory_stats(device=None) -> dict:
    """An empty OrderedDict, as torch's. Mirrors torch.xpu.memory_stats."""
    return collections.OrderedDict()


def memory_allocated(device=None) -> int:
    """0. Mirrors torch.xpu.memory_allocated."""
    return 0


def max_memory_allocated(device=None) -> int:
    """0. Mirrors torch.xpu.max_memory_allocated."""
    return 0


def memory_reserved(device=None) -> int:
    """0. Mirrors torch.xpu.memory_reserved."""
    return 0


def max_memory_reserved(device=None) -> int:
    """0. Mirrors torch.xpu.max_memory_reserved."""
    return 0


def reset_peak_memory_stats(device=None) -> None:
    """Mirrors torch.xpu.reset_peak_memory_stats of a build without XPU: its AttributeError
    (the allocator binding is missing)."""
    raise AttributeError("module 'torch._C' has no attribute '_xpu_resetPeakMemoryStats'")


def reset_accumulated_memory_stats(device=None) -> None:
    """Mirrors torch.xpu.reset_accumulated_memory_stats of a build without XPU: its
    AttributeError (the allocator binding is missing)."""
    raise AttributeError("module 'torch._C' has no attribute '_xpu_resetAccumulatedMemoryStats'")


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False. Mirrors torch.xpu.is_bf16_supported."""
    return False


def is_tf32_supported() -> bool:
    """False. Mirrors torch.xpu.is_tf32_supported."""
    return False


def get_arch_list() -> list:
    """[]. Mirrors torch.xpu.get_arch_list."""
    return []


def get_gencode_flags() -> str:
    """''. Mirrors torch.xpu.get_gencode_flags."""
    return ""


def _is_compiled() -> bool:
    """False. Mirrors torch.xpu._is_compiled."""
    return False


# Everything that needs an XPU device raises torch's AssertionError.
init = _needs_xpu("init")
synchronize = _needs_xpu("synchronize")
current_device = _needs_xpu("current_device")
set_device = _needs_xpu("set_device")
get_device_name = _needs_xpu("get_device_name")
get_device_properties = _needs_xpu("get_device_properties")
get_device_capability = _needs_xpu("get_device_capability")
current_stream = _needs_xpu("current_stream")
mem_get_info = _needs_xpu("mem_get_info")
initial_seed = _needs_xpu("initial_seed")
get_rng_state = _needs_xpu("get_rng_state")
