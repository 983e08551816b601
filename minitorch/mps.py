"""torch.mps for device-selection and seeding code: minitorch runs on the CPU and on CUDA GPUs
only, so no mps device is ever available. Mirrors torch.mps as torch behaves without MPS: the
queries say no, manual_seed does nothing, and what needs the device raises RuntimeError."""

from __future__ import annotations

__all__ = [
    "device_count",
    "is_available",
    "manual_seed",
    "seed",
    "get_rng_state",
    "set_rng_state",
    "synchronize",
    "empty_cache",
    "set_per_process_memory_fraction",
    "current_allocated_memory",
    "driver_allocated_memory",
    "recommended_max_memory",
]


def is_available() -> bool:
    """Always False. Mirrors torch.mps.is_available."""
    return False


def device_count() -> int:
    """Always 0. Mirrors torch.mps.device_count."""
    return 0


def manual_seed(seed) -> None:
    """Nothing to seed (no mps device), as in torch. Mirrors torch.mps.manual_seed."""


def _no_mps(name: str, what: str):
    def call(*args, **kwargs):
        raise RuntimeError(f"Cannot execute {what}() without MPS backend.")

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"Raises RuntimeError (no MPS device), as torch does. Mirrors torch.mps.{name}."
    return call


seed = _no_mps("seed", "getDefaultGenerator")
get_rng_state = _no_mps("get_rng_state", "getDefaultGenerator")
set_rng_state = _no_mps("set_rng_state", "getDefaultGenerator")
synchronize = _no_mps("synchronize", "deviceSynchronize")
empty_cache = _no_mps("empty_cache", "emptyCache")
set_per_process_memory_fraction = _no_mps("set_per_process_memory_fraction", "setMemoryFraction")
current_allocated_memory = _no_mps("current_allocated_memory", "getCurrentAllocatedMemory")
driver_allocated_memory = _no_mps("driver_allocated_memory", "getDriverAllocatedMemory")
recommended_max_memory = _no_mps("recommended_max_memory", "getRecommendedMaxMemory")
