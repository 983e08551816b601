"""minitorch.cuda: GPU availability, the current device, synchronisation and CUDA seeding;
streams and events (streams.py) and the caching allocator's statistics (memory.py) re-exported.

Importing this package imports no CuPy: the first question that needs the GPU (is_available(),
device_count(), a tensor on 'cuda') imports it, once.
"""

from __future__ import annotations

from minitorch import _backend
from minitorch._backend import CudaUnavailableError, OutOfMemoryError, cupy_backend
from minitorch._factories import legacy_type as _legacy_type
from minitorch.cuda import memory, streams
from minitorch.cuda._utils import device_index as _index
from minitorch.cuda._utils import lazy_init as _lazy_init
from minitorch.cuda.memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_reserved,
    memory_stats,
    memory_summary,
    reset_max_memory_allocated,
    reset_peak_memory_stats,
    set_per_process_memory_fraction,
)
from minitorch.cuda.streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)

# fmt: off
__all__ = [
    "is_available", "device_count", "current_device", "set_device", "synchronize",
    "get_device_name", "get_device_capability", "get_device_properties", "is_initialized", "init",
    "device", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
    "CudaUnavailableError", "OutOfMemoryError", "memory", "streams",
    "Stream", "Event", "StreamContext", "stream", "current_stream", "default_stream", "set_stream",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "reset_peak_memory_stats", "reset_max_memory_allocated", "memory_stats", "memory_summary",
    "empty_cache", "set_per_process_memory_fraction", "mem_get_info",
    "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
]
# fmt: on


def is_available() -> bool:
    """True when CuPy is installed and sees a GPU; never raises. Mirrors torch.cuda.is_available."""
    return cupy_backend.cuda_available()


def device_count() -> int:
    """The number of GPUs (0 without CuPy or a GPU). Mirrors torch.cuda.device_count."""
    return cupy_backend.device_count()


def is_initialized() -> bool:
    """Whether CUDA has been set up in this process (a CUDA tensor made, init() called)."""
    return "cuda" in _backend._backends


def init() -> None:
    """Sets CUDA up now instead of on first use. Mirrors torch.cuda.init.

    Raises CudaUnavailableError (a RuntimeError and an AssertionError, as torch raises an
    AssertionError) where CuPy or a GPU is missing.
    """
    _backend.backend_of(_backend.device("cuda", 0))


def current_device() -> int:
    """The index of the current GPU. Mirrors torch.cuda.current_device."""
    _lazy_init()
    return _backend.current_cuda_index()


def set_device(device) -> None:
    """Makes `device` the current GPU ('cuda' then means it). Mirrors torch.cuda.set_device."""
    index = _index(device)
    if index < 0:
        return  # torch ignores negative indices
    backend = _lazy_init()
    n = device_count()
    if index >= n:
        raise RuntimeError(f"CUDA error: invalid device ordinal {index} (device_count() is {n})")
    backend.xp.cuda.Device(index).use()
    _backend.set_current_cuda_index(index)


class device:
    """Context manager that changes the current GPU inside its block. Mirrors torch.cuda.device."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _backend.current_cuda_index()
        if self.idx >= 0 and self.idx != self.prev_idx:
            set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx != self.idx and self.idx >= 0:
            set_device(self.prev_idx)
        return False


def synchronize(device=None) -> None:
    """Waits for all kernels queued on a GPU to finish. Mirrors torch.cuda.synchronize."""
    backend = _lazy_init()
    backend.synchronize(_backend.device("cuda", _index(device)))


def _properties(device):
    backend = _lazy_init()
    return backend.xp.cuda.runtime.getDeviceProperties(_index(device))


def get_device_name(device=None) -> str:
    """The GPU's name, e.g. 'NVIDIA H200'. Mirrors torch.cuda.get_device_name."""
    name = _properties(device)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def get_device_capability(device=None) -> tuple:
    """The GPU's compute capability (major, minor). Mirrors torch.cuda.get_device_capability."""
    p = _properties(device)
    return (p["major"], p["minor"])


class _DeviceProperties:
    """What get_device_properties() returns (a subset of torch's fields)."""

    def __init__(self, props: dict):
        name = props["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.major = props["major"]
        self.minor = props["minor"]
        self.total_memory = props["totalGlobalMem"]
        self.multi_processor_count = props["multiProcessorCount"]

    def __repr__(self):
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device=None) -> _DeviceProperties:
    """Mirrors torch.cuda.get_device_properties (name, major, minor, total_memory,
    multi_processor_count)."""
    return _DeviceProperties(_properties(device))


# --- seeding: the default generators of the CUDA devices (see minitorch.random) ---


def _generator(index: int):
    from minitorch.random import generator_for

    return generator_for(_backend.device("cuda", index))


def manual_seed(seed) -> None:
    """Seeds the current GPU's default generator (a no-op without a GPU, as in torch)."""
    _generator(_backend.current_cuda_index()).manual_seed(int(seed))  # int(): as torch's


def manual_seed_all(seed) -> None:
    """Seeds every GPU's default generator. Mirrors torch.cuda.manual_seed_all."""
    seed = int(seed)  # torch.cuda takes 1.5 or True; Generator.manual_seed does not
    for i in range(device_count()):
        _generator(i).manual_seed(seed)


def seed() -> None:
    """Seeds the current GPU's generator from the OS. Mirrors torch.cuda.seed."""
    _generator(_backend.current_cuda_index()).seed()


def seed_all() -> None:
    """Seeds every GPU's generator from the OS (one seed for all). Mirrors torch.cuda.seed_all."""
    gens = [_generator(i) for i in range(device_count())]
    if gens:
        s = gens[0].seed()
        for g in gens[1:]:
            g.manual_seed(s)


def initial_seed() -> int:
    """The current GPU's generator seed. Mirrors torch.cuda.initial_seed."""
    _lazy_init()
    return _generator(_backend.current_cuda_index()).initial_seed()


def get_rng_state(device="cuda"):
    """A GPU default generator's state (a uint8 tensor). Mirrors torch.cuda.get_rng_state."""
    _lazy_init()
    return _generator(_index(device)).get_state()


def set_rng_state(new_state, device="cuda") -> None:
    """Mirrors torch.cuda.set_rng_state."""
    _lazy_init()
    _generator(_index(device)).set_state(new_state)


def get_rng_state_all() -> list:
    """Every GPU's generator state (empty without a GPU). Mirrors torch.cuda.get_rng_state_all."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
    """Mirrors torch.cuda.set_rng_state_all."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def _capability_at_least(major: int) -> bool:
    return is_available() and get_device_capability()[0] >= major


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the current GPU computes in bfloat16 (compute capability 8.0 on; False without a
    GPU). Mirrors torch.cuda.is_bf16_supported."""
    return _capability_at_least(8)


def is_tf32_supported() -> bool:
    """Whether the current GPU has TF32 tensor cores (False without a GPU). Mirrors
    torch.cuda.is_tf32_supported."""
    return _capability_at_least(8)


def __getattr__(name):
    if name == "amp":  # torch.cuda.amp, imported on first use (minitorch/cuda/amp.py)
        import importlib

        return importlib.import_module("minitorch.cuda.amp")
    if name == "default_generators":  # computed on use: it asks how many GPUs there are
        return tuple(_generator(i) for i in range(device_count()))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


FloatTensor = _legacy_type("float32", "cuda")
DoubleTensor = _legacy_type("float64", "cuda")
HalfTensor = _legacy_type("float16", "cuda")
BFloat16Tensor = _legacy_type("bfloat16", "cuda")
LongTensor = _legacy_type("int64", "cuda")
IntTensor = _legacy_type("int32", "cuda")
ShortTensor = _legacy_type("int16", "cuda")
CharTensor = _legacy_type("int8", "cuda")
ByteTensor = _legacy_type("uint8", "cuda")
BoolTensor = _legacy_type("bool", "cuda")
