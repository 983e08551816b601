"""torch-level settings: thread counts, determinism, matmul precision, warn-always, denormals,
and the deprecated set_default_tensor_type.

NOTE [ Stored settings ]
minitorch runs its kernels in NumPy / CuPy, which have no switches for these: the thread counts,
the determinism flags and the float32 matmul precision are stored and reported back exactly as
torch reports them (so code that sets and reads them works), but they change no kernel. The one
exception: set_num_threads also sets the thread count of NumPy's OpenBLAS where it can be found
(see NOTE [ BLAS threads ] in minitorch/_backend/numpy_backend.py); left alone, NumPy's BLAS picks
its own (OMP_NUM_THREADS and friends, before import).
"""

from __future__ import annotations

import builtins
import os
import warnings

# fmt: off
__all__ = [
    "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision",
    "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
    "set_flush_denormal", "is_storage", "set_default_tensor_type",
]
# fmt: on


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


_state = {
    "num_threads": _cpus(),
    "num_interop_threads": _cpus(),
    "interop_set": False,
    "deterministic": False,
    "deterministic_warn_only": False,
    "matmul_precision": "highest",
    # torch.backends.cuda.matmul.fp32_precision: "none" until either API sets the precision
    "matmul_fp32_precision": "none",
    "warn_always": False,
}


_warned_once: set = set()  # the keys warn_once has warned for


def warn_once(key: str, message: str, stacklevel: int | None = None) -> None:
    """torch's TORCH_WARN_ONCE: a UserWarning once per process for `key` (not Python's once per
    call site), every time after set_warn_always(True). stacklevel counts from warn_once's
    caller; by default the first frame outside minitorch (the user's line)."""
    if not _state["warn_always"]:  # (as torch's, a warning under warn_always leaves the once
        if key in _warned_once:  # flag unset)
            return
        _warned_once.add(key)
    if stacklevel is None:
        from minitorch.autograd.anomaly_mode import _user_stacklevel

        stacklevel = _user_stacklevel()
    else:
        stacklevel += 1
    warnings.warn(message, UserWarning, stacklevel=stacklevel)


def _positive_int(n, op: str) -> int:
    if isinstance(n, builtins.bool) or not isinstance(n, builtins.int):
        raise RuntimeError(f"{op} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{op} expects a positive integer")
    return n


def _bool_arg(b, op: str, what: str) -> builtins.bool:
    if not isinstance(b, builtins.bool):
        raise RuntimeError(f"{what} expects a bool, but got {type(b).__name__}")
    return b


# --- threads ---


def set_num_threads(int) -> None:
    """Sets the number of intra-op threads: NumPy's OpenBLAS's where it is found, else stored
    (see NOTE [ Stored settings ]). Mirrors torch.set_num_threads."""
    from minitorch._backend.numpy_backend import set_blas_threads

    _state["num_threads"] = _positive_int(int, "set_num_threads")
    set_blas_threads(_state["num_threads"])


def get_num_threads() -> int:
    """The number set by set_num_threads (default: the CPUs this process may use).
    Mirrors torch.get_num_threads."""
    return _state["num_threads"]


def set_num_interop_threads(int) -> None:
    """Sets the number of inter-op threads, once per process, as torch allows (stored; see
    NOTE [ Stored settings ]). Mirrors torch.set_num_interop_threads."""
    n = _positive_int(int, "set_num_interop_threads")
    if _state["interop_set"]:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _state["num_interop_threads"] = n
    _state["interop_set"] = True


def get_num_interop_threads() -> int:
    """Mirrors torch.get_num_interop_threads."""
    return _state["num_interop_threads"]


# --- determinism ---


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Records whether deterministic algorithms are required (stored; minitorch's kernels are
    deterministic on the CPU already). Mirrors torch.use_deterministic_algorithms."""
    if not isinstance(mode, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
            f"{type(mode).__name__}"
        )
    if not isinstance(warn_only, builtins.bool):
        raise TypeError(
            "_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
            f"{type(warn_only).__name__}"
        )
    _state["deterministic"] = mode
    _state["deterministic_warn_only"] = warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Mirrors torch.are_deterministic_algorithms_enabled."""
    return _state["deterministic"]


def alert_not_deterministic(op: str) -> None:
    """torch's error (a warning with warn_only=True) for an op without a deterministic
    implementation while deterministic algorithms are required; nothing otherwise."""
    if not _state["deterministic"]:
        return
    msg = (
        f"{op} does not have a deterministic implementation, but you set "
        "'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this "
        "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
        "application. You can also file an issue at https://github.com/pytorch/pytorch/issues "
        "to help us prioritize adding deterministic support for this operation."
    )
    if _state["deterministic_warn_only"]:
        warnings.warn(msg, UserWarning, stacklevel=3)
    else:
        raise RuntimeError(msg)


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Mirrors torch.is_deterministic_algorithms_warn_only_enabled."""
    return _state["deterministic_warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """0 / "default": off; 1 / "warn": deterministic, warn only; 2 / "error": deterministic.
    Mirrors torch.set_deterministic_debug_mode."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, builtins.int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """Mirrors torch.get_deterministic_debug_mode."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["deterministic_warn_only"] else 2


# --- float32 matmul precision, warnings, denormals ---


def set_float32_matmul_precision(precision: str) -> None:
    """Sets the float32 matmul precision, "highest", "high" or "medium" (stored: NumPy always
    computes float32 matmuls in float32). An unknown value warns and changes nothing, as in torch.
    Mirrors torch.set_float32_matmul_precision; like torch, "high" and "medium" also turn on
    torch.backends.cuda.matmul.allow_tf32 (the same setting, see minitorch/backends)."""
    if not isinstance(precision, str):
        raise RuntimeError(
            f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}"
        )
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "setFloat32MatmulPrecision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _state["matmul_precision"] = precision
    _state["matmul_fp32_precision"] = "ieee" if precision == "highest" else "tf32"


def get_float32_matmul_precision() -> str:
    """Mirrors torch.get_float32_matmul_precision."""
    return _state["matmul_precision"]


def set_warn_always(b: bool) -> None:
    """Records whether warnings torch issues once should be issued every time.
    Mirrors torch.set_warn_always."""
    _state["warn_always"] = _bool_arg(b, "set_warn_always", "setWarnOnlyOnce")


def is_warn_always_enabled() -> bool:
    """Mirrors torch.is_warn_always_enabled."""
    return _state["warn_always"]


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormals to zero could be set: always False here.
    Mirrors torch.set_flush_denormal.

    Differences from torch: NumPy has no flush-to-zero switch, so minitorch reports the mode as
    unsupported (torch returns False on such CPUs too) and denormals stay as they are."""
    _bool_arg(mode, "set_flush_denormal", "flush_denormal")
    return False


# --- storages and the legacy default tensor type ---


def is_storage(obj) -> bool:
    """True for a storage object (UntypedStorage, TypedStorage, or one a `map_location`
    callable receives from minitorch.load). Mirrors torch.is_storage."""
    from minitorch._serialization_storage import Storage
    from minitorch.storage import TypedStorage, UntypedStorage

    return isinstance(obj, (Storage, UntypedStorage, TypedStorage))


def set_default_tensor_type(t) -> None:
    """Sets the default dtype (and, for torch.cuda.* types, device) from a legacy tensor type
    or its name. Deprecated in torch 2.1, with the same warning here.
    Mirrors torch.set_default_tensor_type."""
    import minitorch
    from minitorch import _dtype
    from minitorch._backend import set_default_device

    # torch gives this warning once per process, before checking t
    warn_once(
        "set_default_tensor_type",
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        stacklevel=2,
    )
    if isinstance(t, str):
        # torch's _import_dotted_name: the first name imported, the rest read as attributes
        first, *rest = t.split(".")
        t = minitorch if first == "torch" else __import__(first)
        for name in rest:
            t = getattr(t, name)
    dt = getattr(t, "dtype", None)
    if isinstance(t, _dtype.dtype) or not isinstance(dt, _dtype.dtype):
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if not dt.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if getattr(t, "_device_type", "cpu") == "cuda":
        if not minitorch.cuda.is_available():  # checked first: the default stays as it was
            raise TypeError(
                f"type torch.cuda.{t.__name__} not available. Torch not compiled with CUDA "
                "enabled."
            )
        _dtype.set_default_dtype(dt)
        set_default_device("cuda")
        return
    _dtype.set_default_dtype(dt)
