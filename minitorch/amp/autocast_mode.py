"""torch.autocast: the mixed-precision region, its state functions, custom_fwd / custom_bwd.

The state itself lives in minitorch/_autocast_state.py, read by the ops' public entry points.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings

from minitorch import _autocast_state, _dtype
from minitorch._autocast_state import state as _state
from minitorch._tensor import Tensor

# fmt: off
__all__ = [
    "autocast", "is_autocast_available", "custom_fwd", "custom_bwd", "is_autocast_enabled",
    "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype", "get_autocast_gpu_dtype",
    "get_autocast_cpu_dtype", "set_autocast_gpu_dtype", "set_autocast_cpu_dtype",
    "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "clear_autocast_cache",
    "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
]
# fmt: on

_SUPPORTED = (_dtype.bfloat16, _dtype.float16)


# Device types torch's autocast knows but minitorch makes no tensors on, with torch's default
# dtypes. Their flags are kept here, apart from _autocast_state (which the ops read): turning
# autocast on for one of them changes no op, as no tensor lives there (torch on a machine without
# that device behaves the same way).
_OTHER_DEFAULT_DTYPES = {
    "xpu": _dtype.float16, "mps": _dtype.float16, "hpu": _dtype.bfloat16, "ipu": _dtype.float16,
    "xla": _dtype.bfloat16, "mtia": _dtype.float16, "maia": _dtype.bfloat16,
    "privateuseone": _dtype.float16,
}  # fmt: skip
_other_enabled = dict.fromkeys(_OTHER_DEFAULT_DTYPES, False)
_other_dtype = dict(_OTHER_DEFAULT_DTYPES)


def _type_of(device_type):
    """The device type a string with an index names ('cpu:0' -> 'cpu'), as torch's state
    functions read it (an invalid index: torch's "Invalid device string"); else as given."""
    if isinstance(device_type, str) and ":" in device_type:
        from minitorch._backend import device

        return device(device_type).type
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast knows this device type: torch's list (cpu, cuda, xpu, mps, hpu, ...),
    not 'meta' nor the other device types; an unknown string raises torch's error. Mirrors
    torch.amp.is_autocast_available."""
    device_type = _type_of(device_type)
    if device_type in _autocast_state.device_types or device_type in _other_enabled:
        return True
    if not isinstance(device_type, str):
        _known(device_type, "is_autocast_available")  # torch's TypeError
    from minitorch._backend import device

    device(device_type)  # torch's "Expected one of cpu, cuda, ... device string" error
    return False


def _flags(device_type, fn: str) -> tuple:
    """The (enabled, dtype) dicts that hold device_type's autocast state; torch's errors for a
    device type autocast does not know."""
    device_type = _type_of(device_type)
    if device_type in _other_enabled:
        return _other_enabled, _other_dtype
    _known(device_type, fn)
    return _state.enabled, _state.dtype


def _known(device_type: str, fn: str) -> str:
    if not isinstance(device_type, str):
        raise TypeError(
            f"{fn}(): argument 'device_type' (position 1) must be str, not "
            f"{type(device_type).__name__}"
        )
    if device_type not in _autocast_state.device_types:
        from minitorch._backend import device

        device(device_type)  # torch's "Expected one of cpu, cuda, ... device string" error
        # a device type torch knows but autocast does not (meta, mkldnn, lazy, ...)
        raise RuntimeError(
            "unknown device type for autocast in get_autocast_dispatch_key_from_device_type"
        )
    return device_type


# The dtypes set_autocast_dtype stored for device types autocast does not know: torch keeps a
# slot for every device type, unset ("unsupported scalarType") until set.
_unlisted_dtype: dict = {}


def _listed(device_type, fn: str) -> bool:
    """Whether autocast knows device_type; False for another valid device type (torch's errors
    for a non-string or an unknown device string)."""
    if device_type in _other_enabled or device_type in _autocast_state.device_types:
        return True
    try:
        _known(device_type, fn)
    except RuntimeError as e:
        if not str(e).startswith("unknown device type for autocast"):
            raise
    return False


_MISSING = object()


def is_autocast_enabled(device_type: str = _MISSING) -> bool:
    """Whether autocast is on for device_type (CUDA's when not given, as torch). Mirrors
    torch.is_autocast_enabled."""
    if device_type is _MISSING:
        device_type = "cuda"
    return _flags(device_type, "is_autocast_enabled")[0][_type_of(device_type)]


def _bool_argument(fn: str, name: str, position: int, value) -> None:
    """torch's argument parser's TypeError for a bool argument given something else."""
    if type(value) is not bool:
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be bool, not "
            f"{type(value).__name__}"
        )


def set_autocast_enabled(device_type=_MISSING, enabled=_MISSING) -> None:
    """Mirrors torch.set_autocast_enabled (also the old one-argument form, for CUDA)."""
    if enabled is _MISSING:  # set_autocast_enabled(enabled): CUDA's
        _bool_argument("set_autocast_enabled", "enabled", 1, device_type)
        device_type, enabled = "cuda", device_type
    elif device_type is _MISSING:  # set_autocast_enabled(enabled=...)
        device_type = "cuda"
    else:
        _bool_argument("set_autocast_enabled", "enabled", 2, enabled)
    _flags(device_type, "set_autocast_enabled")[0][_type_of(device_type)] = enabled
    _state.refresh()


def get_autocast_dtype(device_type: str) -> _dtype.dtype:
    """The dtype autocast lowers to on device_type. Mirrors torch.get_autocast_dtype."""
    device_type = _type_of(device_type)
    if not _listed(device_type, "get_autocast_dtype"):
        if device_type not in _unlisted_dtype:
            raise RuntimeError("unsupported scalarType")
        return _unlisted_dtype[device_type]
    return _flags(device_type, "get_autocast_dtype")[1][_type_of(device_type)]


def set_autocast_dtype(device_type: str, dtype) -> None:
    """Mirrors torch.set_autocast_dtype."""
    dtype = _dtype._dtype_arg(dtype, "set_autocast_dtype", "dtype", 2)
    device_type = _type_of(device_type)
    if not _listed(device_type, "set_autocast_dtype"):
        _unlisted_dtype[device_type] = dtype
        return
    _flags(device_type, "set_autocast_dtype")[1][_type_of(device_type)] = dtype


def _warn_deprecated(old: str, new: str) -> None:
    """torch's DeprecationWarning for the device-specific state functions: at every call, at the
    caller's line."""
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def get_autocast_gpu_dtype() -> _dtype.dtype:
    """Mirrors torch.get_autocast_gpu_dtype (deprecated there for get_autocast_dtype('cuda'))."""
    _warn_deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _state.dtype["cuda"]


def get_autocast_cpu_dtype() -> _dtype.dtype:
    """Mirrors torch.get_autocast_cpu_dtype (deprecated there for get_autocast_dtype('cpu'))."""
    _warn_deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _state.dtype["cpu"]


def set_autocast_gpu_dtype(dtype) -> None:
    """Mirrors torch.set_autocast_gpu_dtype (deprecated there)."""
    _warn_deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def set_autocast_cpu_dtype(dtype) -> None:
    """Mirrors torch.set_autocast_cpu_dtype (deprecated there)."""
    _warn_deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def is_autocast_cpu_enabled() -> bool:
    """Mirrors torch.is_autocast_cpu_enabled (deprecated there)."""
    _warn_deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _state.enabled["cpu"]


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Mirrors torch.set_autocast_cpu_enabled (deprecated there)."""
    _warn_deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def clear_autocast_cache() -> None:
    """Drops the weights cast in this autocast region. Mirrors torch.clear_autocast_cache."""
    _state.cache.clear()


def autocast_increment_nesting() -> int:
    """Mirrors torch.autocast_increment_nesting."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    """Mirrors torch.autocast_decrement_nesting."""
    _state.nesting -= 1
    return _state.nesting


def is_autocast_cache_enabled() -> bool:
    """Mirrors torch.is_autocast_cache_enabled."""
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Mirrors torch.set_autocast_cache_enabled."""
    if type(enabled) is not bool:
        raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
    _state.cache_enabled = enabled


class autocast:  # noqa: N801 - torch's name
    """A region (context manager or decorator) where matmul-like ops run in a lower precision and
    precision-sensitive ones in float32. Mirrors torch.autocast.

    Casts happen at the public entry points listed in NOTE [ Autocast policies ]
    (minitorch/_autocast_state.py) through the differentiable `.to(dtype)`, so a float32 weight
    gets a float32 gradient.
    On the CPU, torch's CPU lists are followed for the ops minitorch has (lower precision:
    matmul family, linear, conv, attention, LSTM, and composites through them such as einsum,
    tensordot, MultiheadAttention; float32: prod, quantile, cdist, trace, reflect/replicate pad,
    3-D pools, grid_sample, linalg decompositions and solvers, losses; promote: index_copy).
    Differences from torch: on CUDA-like devices fewer ops have a policy (not the pointwise and
    reduction ops of CUDA's float32 list); an LSTM with float32 input under float16 CPU autocast
    runs in float16 (torch's oneDNN kernel raises); 'strict' (the test device) is accepted and
    follows CUDA's lists.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        # without a dtype, torch reads the device type's first ("unsupported scalarType" for one
        # autocast does not know)
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        if not is_autocast_available(device_type):
            raise RuntimeError(
                f"User specified an unsupported autocast device_type '{device_type}'"
            )
        self.device = device_type
        self._cache_enabled = (
            is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        )
        if enabled:
            if device_type == "cuda":
                from minitorch import cuda

                if not cuda.is_available():
                    warnings.warn(
                        "CUDA is not available or torch_xla is imported. Disabling autocast.",
                        stacklevel=2,
                    )
                    enabled = False
            elif self.fast_dtype not in _SUPPORTED:
                name = device_type.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling "
                    f"autocast.\n{name} Autocast only supports dtypes of torch.bfloat16, "
                    "torch.float16 currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = enabled  # as given: entering checks it is a bool (torch's TypeError)

    def __enter__(self):
        # torch's steps, in its order: a non-bool enabled or cache_enabled, or a dtype that is
        # no dtype, raises in its setter (after the ones before it have run)
        self.prev_cache_enabled = _state.cache_enabled
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        _state.nesting += 1
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _state.nesting -= 1
        if _state.nesting == 0:
            _state.cache.clear()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        _state.cache_enabled = self.prev_cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                "Did you mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n"
                "        output = model(input)"
            )

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def _cast(value, device_type: str, dtype):
    """Floating tensors (not float64) on device_type cast to dtype, through containers."""
    if isinstance(value, Tensor):
        ok = (
            value.dtype.is_floating_point
            and value.device.type == device_type
            and value.dtype is not _dtype.float64
        )
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {
            _cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def _check_device_type(device_type) -> None:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom Function's forward: with cast_inputs, casts floating tensor
    arguments to it and runs forward with autocast off. Mirrors torch.amp.custom_fwd."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return fwd(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return fwd(
                *_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs)
            )

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom Function's backward: runs it under the autocast state its forward
    saw. Mirrors torch.amp.custom_bwd."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with _Unchecked(device_type, ctx._dtype, ctx._fwd_used_autocast):
            return bwd(*args, **kwargs)

    return decorate_bwd


class _Unchecked(autocast):
    """autocast without the availability warnings: restores a state already checked once."""

    def __init__(self, device_type, dtype, enabled):
        self.device = device_type
        self.fast_dtype = dtype
        self._cache_enabled = is_autocast_cache_enabled()
        self._enabled = bool(enabled)
