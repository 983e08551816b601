"""minitorch.backends: the flags PyTorch tutorials set (cudnn.benchmark, matmul.allow_tf32, ...).

minitorch runs on NumPy and CuPy and calls neither cuDNN nor selects cuBLAS math modes, so the
flags are accepted, validated as torch validates them, stored and read back, and otherwise do
nothing. Submodules: cudnn, cuda (cuda.matmul), mps, cpu, mkldnn, quantized, and mkl, openmp,
nnpack, opt_einsum (is_available() only), mha (the fast-path switch).
"""

from __future__ import annotations

import contextlib
import enum
import importlib.util
import os
import sys
import types

from minitorch import _settings

__all__ = [
    "cudnn",
    "cuda",
    "mps",
    "cpu",
    "mkldnn",
    "mkl",
    "openmp",
    "nnpack",
    "opt_einsum",
    "quantized",
    "mha",
]


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
        self.__dict__["fp32_precision"] = "none"
        self.__dict__["conv"] = _Precision("tf32")
        self.__dict__["rnn"] = _Precision("tf32")

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


class _Precision:
    """An fp32_precision holder (torch.backends.cudnn.conv, .rnn, mkldnn.matmul, ...): stored
    only, validated as torch validates it."""

    _VALUES = ("none", "ieee", "tf32", "bf16")

    def __init__(self, fp32_precision: str = "none"):
        object.__setattr__(self, "fp32_precision", fp32_precision)

    def __setattr__(self, name, value):
        if name != "fp32_precision":
            raise AttributeError(f"Unknown attribute {name}")
        if value not in self._VALUES:
            raise RuntimeError(f"Unknown precision: {value}")
        object.__setattr__(self, name, value)


class _CublasModule:
    """minitorch.backends.cuda.matmul. Mirrors torch.backends.cuda.matmul (torch's cuBLASModule);
    stored only: CuPy picks its own math modes (TF32 follows the CUPY_TF32 environment variable
    read when CuPy is imported). allow_tf32 and fp32_precision are views of the float32 matmul
    precision kept in minitorch/_settings.py, as in torch: allow_tf32 is True exactly when
    get_float32_matmul_precision() is not "highest", and setting it sets that precision."""

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
                "allow_fp16_reduced_precision_reduction": True,
                "allow_bf16_reduced_precision_reduction": True,
                "allow_fp16_accumulation": False,
            },
        )

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _settings._state["matmul_precision"] != "highest"
        if name == "fp32_precision":
            return _settings._state["matmul_fp32_precision"]
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in self._NAMES:
            raise AttributeError(f"Unknown attribute {name}")
        if name == "allow_tf32":
            value = _check_bool(value, "set_allow_tf32_cublas")
            _settings._state["matmul_precision"] = "high" if value else "highest"
            _settings._state["matmul_fp32_precision"] = "tf32" if value else "ieee"
            return
        if name == "fp32_precision":
            if value not in ("none", "ieee", "tf32"):
                raise RuntimeError(f"Unknown precision: {value}")
            _settings._state["matmul_fp32_precision"] = value
            return
        if isinstance(value, (tuple, list)) and value and isinstance(value[0], bool):
            value = value[0]
        if not isinstance(value, bool):
            raise TypeError(
                f"{name} expects a bool or a tuple/list of bools, but got {type(value)}"
            )
        self._values[name] = value

    def __repr__(self):
        return "<minitorch.backends.cuda.matmul>"


# The scaled dot-product attention switches (backends.cuda.enable_<kind>_sdp, sdpa_kernel).
# nn.functional.scaled_dot_product_attention reads them through sys.modules, so that a program
# that never imports minitorch.backends pays nothing for them (all are on by default).
_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


class _LinalgBackend(enum.Enum):
    """Mirrors torch._C._LinalgBackend (printed as torch prints it)."""

    Default = 0
    Cusolver = 1
    Magma = 2

    def __int__(self) -> int:
        return self.value


class _BlasBackend(enum.Enum):
    """Mirrors torch._C._BlasBackend (printed as torch prints it)."""

    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3

    def __int__(self) -> int:
        return self.value


_preferred = {"linalg": _LinalgBackend.Default, "blas": _BlasBackend.Cublas}


def _choose_backend(backend, kind: str, enum_type, names: dict, built: dict):
    """The setter half of preferred_{linalg,blas}_library: a name or enum member, torch's
    errors for unknown values and for libraries this build lacks."""
    if backend is None:
        return _preferred[kind]
    if isinstance(backend, str):
        if backend not in names:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(names)}.")
        backend = names[backend]
    elif not isinstance(backend, enum_type):
        raise RuntimeError("Unknown input value type.")
    library = built.get(backend)
    if library is not None and not library[1]():
        raise RuntimeError(
            f"Cannot set preferred backend to {library[0]} if PyTorch has not been compiled "
            f"with {library[0]}."
        )
    _preferred[kind] = backend
    return backend


def _has_cuda() -> bool:
    from minitorch._backend import cupy_backend

    return cupy_backend.cuda_available()


def preferred_linalg_library(backend=None):
    """Reads (None) or sets the linear-algebra library CUDA ops prefer. Mirrors
    torch.backends.cuda.preferred_linalg_library: stored only (CuPy always uses cuSOLVER);
    'cusolver' needs a GPU, 'magma' is never built."""
    names = {
        "default": _LinalgBackend.Default,
        "cusolver": _LinalgBackend.Cusolver,
        "magma": _LinalgBackend.Magma,
    }
    built = {
        _LinalgBackend.Cusolver: ("cuSOLVER", _has_cuda),
        _LinalgBackend.Magma: ("MAGMA", lambda: False),
    }
    return _choose_backend(backend, "linalg", _LinalgBackend, names, built)


def preferred_blas_library(backend=None):
    """Reads (None) or sets the BLAS library CUDA matmuls prefer. Mirrors
    torch.backends.cuda.preferred_blas_library: stored only (CuPy always uses cuBLAS);
    'default' is cuBLAS, 'cublaslt' needs a GPU."""
    names = {
        "default": _BlasBackend.Cublas,
        "cublas": _BlasBackend.Cublas,
        "hipblas": _BlasBackend.Cublas,
        "cublaslt": _BlasBackend.Cublaslt,
        "hipblaslt": _BlasBackend.Cublaslt,
        "ck": _BlasBackend.Ck,
    }
    built = {_BlasBackend.Cublaslt: ("cuBLASLt", _has_cuda)}
    return _choose_backend(backend, "blas", _BlasBackend, names, built)


def _make_cuda() -> types.ModuleType:
    mod = types.ModuleType(
        "minitorch.backends.cuda",
        "minitorch.backends.cuda. Mirrors torch.backends.cuda: matmul flags and the scaled "
        "dot-product attention switches, stored only (minitorch has one attention kernel).",
    )
    mod.matmul = _CublasModule()
    sdp = _SDP

    def __getattr__(name):  # SDPBackend, defined in nn.attention (a layer above this one)
        if name == "SDPBackend":
            from minitorch.nn.attention import SDPBackend

            return SDPBackend
        raise AttributeError(f"module 'minitorch.backends.cuda' has no attribute '{name}'")

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

    def is_flash_attention_available() -> bool:
        """False: minitorch has no FlashAttention kernel, on any device (its one attention
        kernel is the math one). Mirrors torch.backends.cuda.is_flash_attention_available."""
        return False

    mod.is_built = is_built
    mod.is_flash_attention_available = is_flash_attention_available
    mod.sdp_kernel = sdp_kernel
    mod.preferred_linalg_library = preferred_linalg_library
    mod.preferred_blas_library = preferred_blas_library
    mod.__getattr__ = __getattr__
    for kind in sdp:
        enabled, enable = switch(kind)
        setattr(mod, enabled.__name__, enabled)
        setattr(mod, enable.__name__, enable)
    return mod


def _make_mps() -> types.ModuleType:
    mod = types.ModuleType("minitorch.backends.mps", "Mirrors torch.backends.mps: never present.")
    mod.is_available = lambda: False
    mod.is_built = lambda: False

    def is_macos_or_newer(major: int, minor: int) -> bool:
        raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")

    def is_macos13_or_newer(minor: int = 0) -> bool:
        raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")

    mod.is_macos_or_newer = is_macos_or_newer
    mod.is_macos13_or_newer = is_macos13_or_newer
    return mod


_CPU_LEVELS = ("DEFAULT", "AVX2", "AVX512")


def get_cpu_capability() -> str:
    """The widest SIMD level the CPU offers, as torch names it ('AVX512', 'AVX2' or 'DEFAULT'),
    capped as torch's by the ATEN_CPU_CAPABILITY environment variable ('default', 'avx2',
    'avx512'). Mirrors torch.backends.cpu.get_cpu_capability; read from NumPy's CPU feature
    detection."""
    level = _detected_cpu_level()
    cap = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if cap in _CPU_LEVELS and _CPU_LEVELS.index(cap) < _CPU_LEVELS.index(level):
        return cap
    return level


def _detected_cpu_level() -> str:
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


class _MkldnnModule(types.ModuleType):
    """minitorch.backends.mkldnn. Mirrors torch.backends.mkldnn; the flags are stored only.

    Differences from torch: is_available() is False (torch's CPU build says True): minitorch
    never calls oneDNN, its CPU kernels are NumPy's."""

    _BOOLS = ("enabled", "deterministic", "allow_tf32")

    def __init__(self, name):
        super().__init__(name, _MkldnnModule.__doc__)
        self.__dict__.update(enabled=True, deterministic=False, allow_tf32=True)
        self.__dict__["fp32_precision"] = "none"
        for kind in ("matmul", "conv", "rnn"):
            self.__dict__[kind] = _Precision()

    def __setattr__(self, name, value):
        if name in self._BOOLS:
            value = _check_bool(value, f"set_{name}_mkldnn")
        elif name == "fp32_precision" and value not in _Precision._VALUES:
            raise RuntimeError(f"Unknown precision: {value}")
        super().__setattr__(name, value)

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def is_acl_available() -> bool:
        return False

    @contextlib.contextmanager
    def flags(self, enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
        """Sets the flags inside the block and restores them after. Mirrors
        torch.backends.mkldnn.flags."""
        names = (*self._BOOLS, "fp32_precision")
        saved = {k: self.__dict__[k] for k in names}
        for k, v in zip(names, (enabled, deterministic, allow_tf32, fp32_precision), strict=True):
            setattr(self, k, v)
        try:
            yield
        finally:
            self.__dict__.update(saved)


class _QuantizedModule(types.ModuleType):
    """minitorch.backends.quantized. Mirrors torch.backends.quantized: the engine name of
    torch's x86 CPU build, stored only (minitorch has no quantized kernels)."""

    supported_engines = ["qnnpack", "onednn", "x86", "fbgemm"]

    def __init__(self, name):
        super().__init__(name, _QuantizedModule.__doc__)
        self.__dict__["engine"] = "x86"

    def __setattr__(self, name, value):
        if name == "engine" and value not in self.supported_engines:
            raise RuntimeError(f"{value} is not a valid value for quantized engine")
        super().__setattr__(name, value)


def _unavailable(name: str, doc: str, **attrs) -> types.ModuleType:
    mod = types.ModuleType(f"minitorch.backends.{name}", doc)
    mod.is_available = lambda: False
    mod.__dict__.update(attrs)
    return mod


cudnn = _CudnnModule("minitorch.backends.cudnn")
cuda = _make_cuda()
mps = _make_mps()
cpu = _make_cpu()
mkldnn = _MkldnnModule("minitorch.backends.mkldnn")
quantized = _QuantizedModule("minitorch.backends.quantized")
# Libraries torch's CPU build links and minitorch does not call (NumPy brings its own BLAS):
# is_available() is False, honestly, where torch's CPU build says True for mkl, openmp, nnpack.
mkl = _unavailable("mkl", "Mirrors torch.backends.mkl; minitorch does not call MKL.")
openmp = _unavailable("openmp", "Mirrors torch.backends.openmp; minitorch has no OpenMP.")
nnpack = _unavailable("nnpack", "Mirrors torch.backends.nnpack; minitorch does not call NNPACK.")
# torch.backends.opt_einsum: False when the opt_einsum package is absent, as in torch; minitorch's
# einsum is NumPy's and never uses it
opt_einsum = _unavailable(
    "opt_einsum",
    "Mirrors torch.backends.opt_einsum as torch reports it without opt_einsum installed.",
    enabled=False,
    strategy=None,
    get_opt_einsum=lambda: None,
)


def _opt_einsum_set_flags(_enabled=None, _strategy=None):
    """Mirrors torch.backends.opt_einsum.set_flags without opt_einsum: only enabled=False can be
    set; returns the previous (enabled, strategy)."""
    orig = (opt_einsum.enabled, None)
    if _enabled is not None:
        if _enabled:
            raise ValueError(
                f"opt_einsum is not available, so setting `enabled` to {_enabled} will not reap "
                "the benefits of calculating an optimal path for einsum. torch.einsum will fall "
                "back to contracting from left to right. To enable this optimal path "
                "calculation, please install opt-einsum."
            )
        opt_einsum.enabled = _enabled
    if _strategy is not None:
        raise ValueError(
            f"opt_einsum is not available, so setting `strategy` to {_strategy} will not be "
            "meaningful. torch.einsum will bypass path calculation and simply contract from left "
            "to right. Please install opt_einsum or unset `strategy`."
        )
    return orig


@contextlib.contextmanager
def _opt_einsum_flags(enabled=None, strategy=None):
    """Mirrors torch.backends.opt_einsum.flags: set_flags for the block, then the old values."""
    orig = _opt_einsum_set_flags(enabled, strategy)
    try:
        yield
    finally:
        _opt_einsum_set_flags(*orig)


opt_einsum.set_flags = _opt_einsum_set_flags
opt_einsum.flags = _opt_einsum_flags


def _make_mha() -> types.ModuleType:
    mod = types.ModuleType(
        "minitorch.backends.mha",
        "Mirrors torch.backends.mha: the fast-path switch of MultiheadAttention and "
        "TransformerEncoder, stored and read back (minitorch's layers have one path).",
    )
    state = {"enabled": True}

    def get_fastpath_enabled() -> bool:
        """Whether the fast path may run. Mirrors torch.backends.mha.get_fastpath_enabled."""
        return state["enabled"]

    def set_fastpath_enabled(value: bool) -> None:
        """Mirrors torch.backends.mha.set_fastpath_enabled."""
        state["enabled"] = value

    mod.get_fastpath_enabled = get_fastpath_enabled
    mod.set_fastpath_enabled = set_fastpath_enabled
    return mod


mha = _make_mha()
# torch.backends.fp32_precision: the generic default of the fp32_precision settings; stored only
fp32_precision = "none"
_SUBMODULES = (cudnn, cuda, mps, cpu, mkldnn, quantized, mkl, openmp, nnpack, opt_einsum, mha)
for _m in _SUBMODULES:  # so that `import minitorch.backends.cudnn` works too
    sys.modules[_m.__name__] = _m
del _m
