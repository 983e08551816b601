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
    host_memory_stats,
    host_memory_stats_as_nested_dict,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_stats,
    memory_stats_as_nested_dict,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_cached,
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
    "device_of", "get_arch_list", "ipc_collect", "memory_cached", "is_current_stream_capturing",
    "set_sync_debug_mode", "get_sync_debug_mode", "CUDAGraph", "nvtx", "random",
    "max_memory_cached", "reset_max_memory_cached", "memory_stats_as_nested_dict",
    "host_memory_stats", "host_memory_stats_as_nested_dict", "utilization", "memory_usage",
    "temperature", "power_draw", "clock_rate", "list_gpu_processes", "CudaError", "graph",
    "make_graphed_callables", "get_gencode_flags", "has_half", "has_magma",
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
        if self.idx < 0:  # torch's "no device" (device_of a CPU tensor): changes nothing
            return
        _lazy_init()  # without CUDA, torch's RuntimeError (CudaUnavailableError is one)
        self.prev_idx = _backend.current_cuda_index()
        if self.idx >= 0 and self.idx != self.prev_idx:
            set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev_idx != self.idx and self.idx >= 0 and self.prev_idx >= 0:
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
    """Mirrors torch.cuda.set_rng_state: without CUDA it does nothing, as torch defers the call
    to CUDA's set-up, which never comes (so resuming a GPU checkpoint on a CPU works)."""
    if not is_available():
        return
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


class device_of(device):
    """Context manager that makes a tensor's GPU current inside its block (does nothing for a
    CPU tensor). Mirrors torch.cuda.device_of."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


def _is_compiled() -> bool:
    """Whether CuPy is installed (torch: whether it was built with CUDA); imports nothing.
    Mirrors torch.cuda._is_compiled."""
    import importlib.util

    return importlib.util.find_spec("cupy") is not None


def get_arch_list() -> list:
    """The GPU architectures kernels are built for ([] without CUDA). Mirrors
    torch.cuda.get_arch_list; CuPy compiles its kernels for the GPUs present, so these are
    their 'sm_XY' names."""
    if not is_available():
        return []
    return sorted({"sm_{}{}".format(*get_device_capability(i)) for i in range(device_count())})


def ipc_collect() -> None:
    """Nothing to collect: minitorch shares no CUDA memory between processes. Raises without
    CUDA as torch does. Mirrors torch.cuda.ipc_collect."""
    _lazy_init()


def is_current_stream_capturing() -> bool:
    """False: minitorch never captures CUDA graphs. Raises RuntimeError without CUDA, as torch.
    Mirrors torch.cuda.is_current_stream_capturing."""
    from minitorch.cuda._utils import require

    require("is_current_stream_capturing")
    return False


_sync_debug_mode = [0]
_SYNC_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_sync_debug_mode(debug_mode) -> None:
    """Stores the mode ("default"/0, "warn"/1, "error"/2). Mirrors torch.cuda.set_sync_debug_mode.

    Differences from torch: stored only: minitorch does not warn or raise on synchronizing
    calls (DESIGN.md: library code never synchronizes on its own)."""
    _lazy_init()
    if isinstance(debug_mode, str):
        if debug_mode not in _SYNC_DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`"
            )
        debug_mode = _SYNC_DEBUG_MODES[debug_mode]
    _sync_debug_mode[0] = int(debug_mode)


def get_sync_debug_mode() -> int:
    """Mirrors torch.cuda.get_sync_debug_mode."""
    _lazy_init()
    return _sync_debug_mode[0]


class CUDAGraph:
    """Mirrors torch.cuda.CUDAGraph's name only: minitorch cannot capture CUDA graphs, so making
    one raises RuntimeError (as torch without CUDA)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("CUDAGraph: minitorch cannot capture CUDA graphs (it runs eagerly)")


has_half = True  # torch's build flags: half precision yes, MAGMA no (CuPy uses cuSOLVER)
has_magma = False


def _is_in_bad_fork() -> bool:
    """False: minitorch's CUDA set-up survives no fork it could be poisoned by (CuPy initialises
    per process). Mirrors torch.cuda._is_in_bad_fork."""
    return False


def get_gencode_flags() -> str:
    """nvcc's '-gencode compute=compute_XY,code=sm_XY' flags for get_arch_list() ('' without
    CUDA). Mirrors torch.cuda.get_gencode_flags."""
    flags = []
    for arch in get_arch_list():
        kind, _, number = arch.partition("_")
        flags.append(f"-gencode compute=compute_{number},code={kind}_{number}")
    return " ".join(flags)


class CudaError(RuntimeError):
    """A CUDA runtime error code with its message. Mirrors torch.cuda.CudaError.

    Differences from torch: without CUDA the message is 'CUDA error <code>' (torch's CPU build
    fails with an AttributeError while building it)."""

    def __init__(self, code: int) -> None:
        message = f"CUDA error {code}"
        if is_available():
            runtime = _lazy_init().xp.cuda.runtime
            message = runtime.getErrorString(code)
            message = message.decode() if isinstance(message, bytes) else str(message)
        super().__init__(f"{message} ({code})")


class graph:
    """Context manager capturing CUDA work into a CUDAGraph. Mirrors torch.cuda.graph's name:
    minitorch runs eagerly and cannot capture, so it raises RuntimeError (without CUDA, torch's
    own error: its side stream needs CUDA)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global", **kwargs):
        from minitorch.cuda._utils import require

        require("torch.cuda.Stream")
        raise RuntimeError("graph: minitorch cannot capture CUDA graphs (it runs eagerly)")


def make_graphed_callables(
    callables, sample_args, num_warmup_iters=3, allow_unused_input=False, pool=None
):
    """Mirrors torch.cuda.make_graphed_callables's name: it needs a CUDAGraph, which minitorch
    cannot make, so it raises CUDAGraph's RuntimeError as torch's CPU build does."""
    CUDAGraph()


_NO_NVML = "nvidia-ml-py does not seem to be installed or it can't be imported."


def _nvml_handle(device):
    """The NVML handle of a GPU; torch's ModuleNotFoundError where nvidia-ml-py is missing.

    Differences from torch: the index is CuPy's ordinal (torch maps it through
    CUDA_VISIBLE_DEVICES)."""
    try:
        import pynvml
    except ImportError:
        raise ModuleNotFoundError(_NO_NVML) from None
    pynvml.nvmlInit()
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(_index(device))


def utilization(device=None) -> int:
    """Percent of the last sample period a kernel ran (NVML). Mirrors torch.cuda.utilization."""
    nvml, h = _nvml_handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(h).gpu


def memory_usage(device=None) -> int:
    """Percent of the last sample period memory was read or written (NVML). Mirrors
    torch.cuda.memory_usage."""
    nvml, h = _nvml_handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(h).memory


def temperature(device=None) -> int:
    """The GPU sensor's temperature in degrees C (NVML). Mirrors torch.cuda.temperature."""
    nvml, h = _nvml_handle(device)
    return nvml.nvmlDeviceGetTemperature(h, 0)  # 0: NVML_TEMPERATURE_GPU


def power_draw(device=None) -> int:
    """The GPU's power draw in milliwatts (NVML). Mirrors torch.cuda.power_draw."""
    nvml, h = _nvml_handle(device)
    return nvml.nvmlDeviceGetPowerUsage(h)


def clock_rate(device=None) -> int:
    """The SM clock in MHz (NVML). Mirrors torch.cuda.clock_rate."""
    nvml, h = _nvml_handle(device)
    return nvml.nvmlDeviceGetClockInfo(h, 1)  # 1: NVML_CLOCK_SM


def list_gpu_processes(device=None) -> str:
    """A readable list of the processes using a GPU and their memory (NVML); torch's
    message instead where nvidia-ml-py is missing. Mirrors torch.cuda.list_gpu_processes."""
    try:
        nvml, h = _nvml_handle(device)
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    lines = [f"GPU:{_index(device)}"]
    procs = nvml.nvmlDeviceGetComputeRunningProcesses(h)
    for p in procs:
        lines.append(
            f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory"
        )
    if not procs:
        lines.append("no processes are running")
    return "\n".join(lines)


# torch.cuda.nvtx and torch.cuda.random are real submodules (minitorch/cuda/nvtx.py, random.py), so
# `import torch.cuda.nvtx as nvtx` works; imported on first use: `import minitorch` loads neither
_SUBMODULES = ("nvtx", "random")


def __getattr__(name):
    if name in _SUBMODULES or name == "amp":  # torch.cuda.amp: minitorch/cuda/amp/
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
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
