"""minitorch.cpu: the CPU device module (always available) and its amp spellings. Mirrors
torch.cpu."""

from __future__ import annotations

# fmt: off
__all__ = [
    "is_available", "device_count", "current_device", "synchronize", "amp", "is_initialized",
    "set_device", "Stream", "StreamContext", "stream", "current_stream", "Event",
    "get_capabilities",
]
# fmt: on


def is_available() -> bool:
    """Always True. Mirrors torch.cpu.is_available."""
    return True


def device_count() -> int:
    """Always 1. Mirrors torch.cpu.device_count."""
    return 1


def current_device() -> str:
    """Always 'cpu'. Mirrors torch.cpu.current_device."""
    return "cpu"


def synchronize(device=None) -> None:
    """Nothing to wait for: CPU ops are synchronous. Mirrors torch.cpu.synchronize."""


def is_initialized() -> bool:
    """Always True: the CPU needs no set-up. Mirrors torch.cpu.is_initialized."""
    return True


def set_device(device) -> None:
    """Does nothing: there is one CPU device. Mirrors torch.cpu.set_device."""


# The stream and event classes below do nothing: CPU work runs in order as it is called. They
# exist so device-agnostic code (minitorch.get_device_module(x.device).Stream()) runs unchanged.


class Stream:
    """A stand-in stream for device-agnostic code. Mirrors torch.cpu.Stream."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream) -> None:
        """Nothing to wait for."""

    def record_event(self) -> None:
        """Records nothing (torch's CPU stream returns None too)."""

    def wait_event(self, event) -> None:
        """Nothing to wait for."""


class Event:
    """A stand-in event that is always complete. Mirrors torch.cpu.Event."""

    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_default_stream = Stream()
_current = [_default_stream]  # the stream current_stream() answers; stream(s) swaps it


def current_stream(device=None) -> Stream:
    """The selected stand-in stream (`device` is ignored). Mirrors torch.cpu.current_stream."""
    return _current[0]


class StreamContext:
    """Makes `stream` current inside the block (None: changes nothing). Mirrors
    torch.cpu.StreamContext; __enter__ returns None, as torch's."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self) -> None:
        if self.stream is not None:
            self.prev_stream = _current[0]
            _current[0] = self.stream

    def __exit__(self, *exc) -> None:
        if self.stream is not None:
            _current[0] = self.prev_stream


def stream(stream) -> StreamContext:
    """Mirrors torch.cpu.stream: a StreamContext selecting `stream`."""
    return StreamContext(stream)


# torch's capability names (from cpuinfo) -> the flag Linux lists for it in /proc/cpuinfo
# fmt: off
_X86_FLAGS = {
    "sse": "sse", "sse2": "sse2", "sse3": "pni", "ssse3": "ssse3", "sse4_1": "sse4_1",
    "sse4_2": "sse4_2", "sse4a": "sse4a", "avx": "avx", "avx2": "avx2", "avx_vnni": "avx_vnni",
    "avx512_f": "avx512f", "avx512_cd": "avx512cd", "avx512_dq": "avx512dq",
    "avx512_bw": "avx512bw", "avx512_vl": "avx512vl", "avx512_ifma": "avx512ifma",
    "avx512_vbmi": "avx512vbmi", "avx512_vbmi2": "avx512_vbmi2",
    "avx512_bitalg": "avx512_bitalg", "avx512_vpopcntdq": "avx512_vpopcntdq",
    "avx512_vnni": "avx512_vnni", "avx512_bf16": "avx512_bf16", "avx512_fp16": "avx512_fp16",
    "avx512_vp2intersect": "avx512_vp2intersect", "avx512_4vnniw": "avx512_4vnniw",
    "avx512_4fmaps": "avx512_4fmaps", "avx10_1": "avx10_1", "avx10_2": "avx10_2",
    "avx_vnni_int8": "avx_vnni_int8", "avx_vnni_int16": "avx_vnni_int16",
    "avx_ne_convert": "avx_ne_convert", "amx_bf16": "amx_bf16", "amx_tile": "amx_tile",
    "amx_int8": "amx_int8", "amx_fp16": "amx_fp16", "fma3": "fma", "fma4": "fma4",
    "f16c": "f16c", "bmi": "bmi1", "bmi2": "bmi2", "popcnt": "popcnt", "lzcnt": "abm",
    "aes": "aes", "sha": "sha_ni", "clflush": "clflush", "clflushopt": "clflushopt",
    "clwb": "clwb",
}
_ARM_FLAGS = {
    "neon": "asimd", "fp16_arith": "asimdhp", "bf16": "bf16", "i8mm": "i8mm", "dot": "asimddp",
    "sve": "sve", "sve2": "sve2", "sve_bf16": "svebf16", "sme": "sme", "sme2": "sme2",
    "atomics": "atomics", "fhm": "asimdfhm", "rdm": "asimdrdm", "crc32": "crc32", "aes": "aes",
    "sha1": "sha1", "sha2": "sha2", "pmull": "pmull",
}
# fmt: on
_capabilities: list = []  # the mapping, once read


def get_capabilities():
    """An immutable mapping of the CPU's features (torch's names: "avx2", "avx512_f", "neon",
    ... -> bool), its architecture, name, core counts and cache sizes; read once. Mirrors
    torch.cpu.get_capabilities.

    Differences from torch: read from Linux's /proc/cpuinfo and /sys (elsewhere every feature
    is False); cpu_name is the model name without trademarks, which may differ from cpuinfo's."""
    if not _capabilities:
        import types

        _capabilities.append(types.MappingProxyType(_read_capabilities()))
    return _capabilities[0]


def _read_capabilities() -> dict:
    import os
    import platform

    machine = platform.machine().lower()
    arm = machine in ("aarch64", "arm64")
    try:
        with open("/proc/cpuinfo") as f:
            cpuinfo = f.read()
    except OSError:
        cpuinfo = ""
    fields: dict = {}  # the first processor's fields, and the set of (socket, core) pairs
    cores, sockets = set(), set()
    for block in cpuinfo.strip().split("\n\n"):
        entry = dict(
            (k.strip(), v.strip()) for k, _, v in (ln.partition(":") for ln in block.splitlines())
        )
        fields = fields or entry
        cores.add((entry.get("physical id"), entry.get("core id")))
        sockets.add(entry.get("physical id"))
    flags = set((fields.get("Features") if arm else fields.get("flags", "")).split())
    table = _ARM_FLAGS if arm else _X86_FLAGS
    caps: dict = {name: flag in flags for name, flag in table.items()}
    caps["architecture"] = "aarch64" if arm else machine
    if not arm:
        caps["cpu_name"] = _short_cpu_name(fields.get("model name", ""))
        logical = cpuinfo.count("processor\t") or os.cpu_count() or 1
        caps["num_logical_cores"] = logical
        caps["num_physical_cores"] = len(cores) if cpuinfo else logical
        caps["num_sockets"] = len(sockets) if cpuinfo else 1
        caps["l1d_cache_size"] = _cache_size(1, "Data")
        caps["l2_cache_size"] = _cache_size(2, "Unified")
    return caps


def _short_cpu_name(model: str) -> str:
    # "Intel(R) Xeon(R) Processor" -> "Intel Xeon", as cpuinfo shortens it
    for mark in ("(R)", "(TM)", "(tm)", "(r)"):
        model = model.replace(mark, "")
    words = model.split("@")[0].split()
    return " ".join(w for w in words if w not in ("Processor", "CPU"))


def _cache_size(level: int, kind: str) -> int:
    """Bytes of cpu0's cache of that level and type (/sys), 0 where unknown."""
    import glob

    for index in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(f"{index}/level") as f1, open(f"{index}/type") as f2:
                if int(f1.read()) != level or f2.read().strip() != kind:
                    continue
            with open(f"{index}/size") as f:
                size = f.read().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1024, "M": 1024 * 1024}.get(size[-1:], 1)
        return int(size.rstrip("KM")) * scale
    return 0


def __getattr__(name):
    # amp is imported on first use, as minitorch.amp itself (see NOTE [ Lazy submodules ]).
    if name == "amp":
        import importlib

        return importlib.import_module("minitorch.cpu.amp")
    raise AttributeError(f"module 'minitorch.cpu' has no attribute '{name}'")
