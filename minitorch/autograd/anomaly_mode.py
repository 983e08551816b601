"""Anomaly mode: forward tracebacks for failing backward functions, and NaN checks in backward."""

from __future__ import annotations

import os
import sys
import threading
import warnings

from minitorch.autograd.function import pause_fast_path
from minitorch.autograd.grad_mode import _State, state

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
]

# NOTE [ Anomaly mode is process-wide ]
# torch's anomaly flag is global, not per thread. The flags are class attributes of the
# thread-local `_State`, never set on an instance, so `state.anomaly` (read by Function.apply and
# the engine) sees one value in every thread at the cost of one attribute load. Turning it on
# pauses the fast paths (the recorded ones keep no creation trace: NOTE [ The recorded fast
# path ] in minitorch/autograd/function.py) until it is turned off.

_lock = threading.Lock()  # (two threads turning it on pause the fast paths once)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_anomaly_enabled() -> bool:
    """Mirrors torch.is_anomaly_enabled."""
    return state.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """Mirrors torch.is_anomaly_check_nan_enabled."""
    return state.anomaly_check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off for the whole process.
    Mirrors torch.set_anomaly_enabled."""
    # See NOTE [ Anomaly mode is process-wide ]
    for i, (arg, v) in enumerate((("enabled", enabled), ("check_nan", check_nan)), 1):
        if v.__class__ is not bool:  # torch's parser takes a Python bool only
            cls = type(v)
            name = (
                cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
            )
            raise TypeError(
                f"set_anomaly_enabled(): argument '{arg}' (position {i}) must be bool, not {name}"
            )
    with _lock:
        if enabled != _State.anomaly:
            pause_fast_path(enabled)
        _State.anomaly = enabled
        _State.anomaly_check_nan = check_nan


class detect_anomaly:
    """Context manager enabling anomaly detection. Mirrors torch.autograd.detect_anomaly.

    Inside it, every recorded op keeps the traceback of its creation; a backward function that
    fails (or, with `check_nan`, returns NaN) reports that traceback in a UserWarning and raises.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = state.anomaly
        self.check_nan = check_nan
        self.prev_check_nan = state.anomaly_check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off, as a function or a context manager.
    Mirrors torch.autograd.set_detect_anomaly."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = state.anomaly
        self.prev_check_nan = state.anomaly_check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# --- the hooks called by Function.apply and the engine when state.anomaly is set ---


class _Running:
    node = None  # the node whose backward is running (parent of nodes created by it)


_running = _Running()


def record_trace(node) -> None:
    """Keeps the user's stack at the creation of `node` (and the backward that created it)."""
    import traceback  # on first use: anomaly mode is rare, and the module costs import time

    frames = [f for f in traceback.extract_stack()[:-1] if not _internal(f.filename)]
    node._trace = traceback.format_list(frames)
    node.metadata["traceback_"] = node._trace  # where torch keeps it (a list of str, the same)
    if _running.node is not None:
        node.metadata["parent_"] = _running.node


def _internal(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def run_backward_checked(node, grads):
    """Runs node's backward; on an exception or (with check_nan) a NaN gradient, warns with the
    forward traceback of the node (and of the nodes whose backward created it) and raises."""
    prev = _running.node
    _running.node = node
    try:
        out = node._fn.backward(node, *grads)
        # The inner nodes of a composite (mse_loss, smooth_l1_loss, ...) are not torch's nodes:
        # the composite's own check names it, as torch names MseLossBackward0
        folded = getattr(getattr(type(prev), "_fn", None), "_folds", False)
        if state.anomaly_check_nan and not folded:
            outs = out if isinstance(out, (tuple, list)) else (out,)
            for i, g in enumerate(outs):
                if g is not None and hasattr(g, "_data") and _has_nan(g):
                    raise RuntimeError(
                        f"Function '{type(node).__name__}' returned nan values in its {i}th output."
                    )
    except Exception:
        _warn_trace(node)
        raise
    finally:
        _running.node = prev
    return out


def _has_nan(g) -> bool:
    # A debugging mode may read device data back to the host (torch synchronizes here too).
    if not (g.dtype.is_floating_point or g.dtype.is_complex):  # bfloat16's NumPy kind is 'V'
        return False
    flag = g._device.backend.xp.isnan(g._data).any()
    return bool(g._device.backend.to_host(flag))


def _warn_trace(node) -> None:
    trace = _trace_of(node)
    if trace is None:
        warnings.warn(
            f"Error detected in {type(node).__name__}. No forward pass information available. "
            "Enable detect anomaly during forward pass for more information.",
            UserWarning,
            stacklevel=_user_stacklevel(),
        )
        return
    msg = f"Error detected in {type(node).__name__}. Traceback of forward call that caused the "
    msg += "error:\n" + "".join(trace)
    parent = _parent_of(node)
    while parent is not None:
        ptrace = _trace_of(parent)
        msg += (
            f"\n\nPrevious calculation was induced by {type(parent).__name__}. Traceback of "
            "forward call that induced the previous calculation:\n" + "".join(ptrace or ())
        )
        parent = _parent_of(parent)
    warnings.warn(msg, UserWarning, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The stacklevel, for a warning issued by our caller, of the first frame outside minitorch
    (the user's backward() call)."""
    frame = sys._getframe(2)  # the caller of our caller, who calls warnings.warn
    level = 2
    while frame is not None and _internal(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


def _trace_of(node):
    try:
        return node._trace
    except AttributeError:
        return None


def _parent_of(node):
    d = getattr(node, "__dict__", None) or {}
    return d.get("_metadata", {}).get("parent_")
