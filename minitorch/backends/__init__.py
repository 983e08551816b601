"""minitorch.backends: the flags PyTorch tutorials set (cudnn.benchmark, matmul.allow_tf32, ...).

minitorch runs on NumPy and CuPy and calls neither cuDNN nor selects cuBLAS math modes, so the
flags are accepted, validated as torch validates them, stored and read back, and otherwise do
nothing. Submodules: cudnn, cuda (cuda.matmul), mps, cpu.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import types

__all__ = ["cudnn", "cuda", "mps", "cpu"]


def _check_bool(value, setter: str) -> bool:
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")
    return value


class _CudnnModule(types.ModuleType):
    """minitorch.backends.cudnn. Mirrors torch.backends.cudnn; a no-op: minitorch never calls
    cuDNN (convolutions are CuPy matmuls), so is_available() is False and version() None."""

    def __init__(self, name):
        super().__init__(name, _CudnnModule.__doc__)
        self.__dict__["_flags"] = {
            "enabled": True,
            "benchmark": False,
            "deterministic": False,
            "allow_tf32": True,
        }
        self.__dict__["benchmark_limit"] = 10

    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name in flags:
            return flags[name]
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __setattr__(self, name, value):
        flags = self.__dict__["_flags"]
        if name in flags:
            flags[name] = _check_bool(value, f"set_{name}_cudnn")
        else:
            super().__setattr__(name, value)

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def version():
        return None

    @staticmethod
    def is_acceptable(tensor) -> bool:
        return False

    @contextlib.contextmanager
    def flags(self, enabled=False, benchmark=False, deterministic=False, allow_tf32=True):
        """Sets the flags inside the block and restores them after. Mirrors
        torch.backends.cudnn.flags."""
        saved = dict(self._flags)
        new = dict(
            enabled=enabled, benchmark=benchmark, deterministic=deterministic, allow_tf32=allow_tf32
        )
        for k, v in new.items():
            setattr(self, k, v)
        try:
            yield
        finally:
            self._flags.update(saved)


class _CublasModule:
    """minitorch.backends.cuda.matmul. Mirrors torch.backends.cuda.matmul (torch's cuBLASModule);
    stored only: CuPy picks its own math modes (TF32 follows the CUPY_TF32 environment variable
    read when CuPy is imported)."""

    _NAMES = (
        "allow_tf32",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
        "allow_fp16_accumulation",
        "fp32_precision",
    )

    def __init__(self):
        object.__setattr__(
            self,
            "_values",
            {
                "allow_tf32": False,
                "allow_fp16_reduced_precision_reduction": True,
                "allow_bf16_reduced_precision_reduction": True,
                "allow_fp16_accumulation": False,
                "fp32_precision": "none",
            },
        )

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in self._NAMES:
            raise AttributeError(f"Unknown attribute {name}")
        if name == "allow_tf32":
            value = _check_bool(value, "set_allow_tf32_cublas")
        elif name == "fp32_precision":
            if value not in ("none", "ieee", "tf32"):
                raise RuntimeError(f"Unknown precision: {value}")
        else:
            if isinstance(value, (tuple, list)) and value and isinstance(value[0], bool):
                value = value[0]
            if not isinstance(value, bool):
                raise TypeError(
                    f"{name} expects a bool or a tuple/list of bools, but got {type(value)}"
                )
        self._values[name] = value

    def __repr__(self):
        return "<minitorch.backends.cuda.matmul>"


def _make_cuda() -> types.ModuleType:
    mod = types.ModuleType(
        "minitorch.backends.cuda",
        "minitorch.backends.cuda. Mirrors torch.backends.cuda: matmul flags and the scaled "
        "dot-product attention switches, stored only (minitorch has one attention kernel).",
    )
    mod.matmul = _CublasModule()
    sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}

    def is_built() -> bool:
        """Whether CuPy is installed (torch: whether it was built with CUDA). Imports nothing."""
        return importlib.util.find_spec("cupy") is not None

    def switch(kind):
        def enabled() -> bool:
            return sdp[kind]

        def enable(enabled: bool) -> None:
            sdp[kind] = _check_bool(enabled, f"enable_{kind}_sdp")

        enabled.__name__, enable.__name__ = f"{kind}_sdp_enabled", f"enable_{kind}_sdp"
        return enabled, enable

    @contextlib.contextmanager
    def sdp_kernel(
        enable_flash: bool = True,
        enable_math: bool = True,
        enable_mem_efficient: bool = True,
        enable_cudnn: bool = True,
    ):
        """Sets the four switches for a region, then restores them. Mirrors
        torch.backends.cuda.sdp_kernel (deprecated there for nn.attention.sdpa_kernel)."""
        import warnings

        warnings.warn(
            "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
            "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new "
            "context manager, with updated signature",
            FutureWarning,
            stacklevel=3,
        )
        wanted = {
            "flash": enable_flash,
            "math": enable_math,
            "mem_efficient": enable_mem_efficient,
            "cudnn": enable_cudnn,
        }
        before = dict(sdp)
        try:
            for kind, on in wanted.items():
                sdp[kind] = _check_bool(on, f"enable_{kind}_sdp")
            yield
        finally:
            sdp.update(before)

    mod.is_built = is_built
    mod.sdp_kernel = sdp_kernel
    for kind in sdp:
        enabled, enable = switch(kind)
        setattr(mod, enabled.__name__, enabled)
        setattr(mod, enable.__name__, enable)
    return mod


def _make_mps() -> types.ModuleType:
    mod = types.ModuleType("minitorch.backends.mps", "Mirrors torch.backends.mps: never present.")
    mod.is_available = lambda: False
    mod.is_built = lambda: False
    return mod


def get_cpu_capability() -> str:
    """The widest SIMD level the CPU offers, as torch names it ('AVX512', 'AVX2' or 'DEFAULT').
    Mirrors torch.backends.cpu.get_cpu_capability; read from NumPy's CPU feature detection."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy < 2
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as features
        except ImportError:
            return "DEFAULT"
    if all(features.get(f) for f in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        return "AVX512"
    if features.get("AVX2") and features.get("FMA3"):
        return "AVX2"
    return "DEFAULT"


def _make_cpu() -> types.ModuleType:
    mod = types.ModuleType("minitorch.backends.cpu", "Mirrors torch.backends.cpu.")
    mod.get_cpu_capability = get_cpu_capability
    return mod


cudnn = _CudnnModule("minitorch.backends.cudnn")
cuda = _make_cuda()
mps = _make_mps()
cpu = _make_cpu()
for _m in (cudnn, cuda, mps, cpu):  # so that `import minitorch.backends.cudnn` works too
    sys.modules[_m.__name__] = _m
del _m
