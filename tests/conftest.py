"""Shared fixtures: the `device` fixture runs device-agnostic tests on every available device."""

from __future__ import annotations

import contextlib
import os
import sys


def _numpy_avx512_names() -> str:
    """NumPy's names of its AVX-512 dispatch targets, as the installed version spells them
    (2.4 groups them as x86-64-v4; a name it does not dispatch is an ImportWarning, an error
    under -W error), read without importing NumPy."""
    from importlib import metadata

    try:
        major, minor = (int(p) for p in metadata.version("numpy").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return ""
    if (major, minor) >= (2, 4):
        return "X86_V4 AVX512_ICL AVX512_SPR"
    return (
        "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL "
        "AVX512_SPR"
    )


# NOTE [ Pinned CPU kernels ]
# NumPy, its OpenBLAS and torch choose SIMD kernels by the CPU when they are imported, and their
# AVX-512 kernels round some results differently from their AVX2 ones (ulps in exp/log/sin,
# other summation orders in BLAS and LAPACK, so other pivots and ranks at singular matrices).
# The reference tests compare minitorch with torch at 1e-10 in float64: the suite pins both
# libraries to their AVX2 kernels, so that fewer results depend on the machine running it. It
# is no AVX2 machine (MKL and LAPACK still choose by CPU model): a program must still not record
# what rounding decides (a singular matrix's pivots, a float32 loop iterated to its tolerance).
# Set before NumPy or torch is imported (a variable the caller set is kept; NumPy's names of its
# AVX-512 targets changed in 2.4).
_PINNED = {
    "NPY_DISABLE_CPU_FEATURES": _numpy_avx512_names(),
    "OPENBLAS_CORETYPE": "Haswell",
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
}
if "numpy" not in sys.modules:
    for _name, _value in _PINNED.items():
        os.environ.setdefault(_name, _value)

import pytest  # noqa: E402

import minitorch  # noqa: E402
from minitorch._autocast_state import state as _autocast_state  # noqa: E402
from minitorch.autograd import function as _function  # noqa: E402
from minitorch.autograd.grad_mode import state as _grad_state  # noqa: E402


def _devices():
    devs = ["cpu", "strict"]
    try:
        if minitorch.cuda.is_available():
            devs.append("cuda:0")  # a tensor's device names its index: cuda:0, as torch's
    except AttributeError:
        pass
    return devs


DEVICES = _devices()


@pytest.fixture(params=DEVICES)
def device(request):
    """'cpu', the strict test device (CuPy-like toward the host), and 'cuda:0' when present."""
    return request.param


# NOTE [ Tests leave global state as they found it ]
# The suite runs under pytest-xdist: a test may run after any other in its worker process, so one
# that leaves a process-wide setting changed breaks whichever test a worker runs next (a float64
# default dtype, grad mode off, print options, an autocast never exited, a global module hook).
# `_seed` reads these settings of minitorch and (once imported) torch before and after each test:
# a change fails the test that made it, in its teardown, and is undone so that no later test fails
# with it. (A read of a library's settings costs 3.5 us, 14 us a test: tests/nn's 1,493 tests took
# 26.6-26.9 s with the check, 26.9-28.2 s without, the noise; torch.get_default_device is left
# out, it alone costs 30 us.)
_SETTINGS = (
    ("default dtype", "get_default_dtype", "set_default_dtype"),
    ("grad mode", "is_grad_enabled", "set_grad_enabled"),
    ("inference mode", "is_inference_mode_enabled", None),
    ("anomaly mode", "is_anomaly_enabled", "set_anomaly_enabled"),
    (
        "deterministic algorithms",
        "are_deterministic_algorithms_enabled",
        "use_deterministic_algorithms",
    ),
    ("warn_always", "is_warn_always_enabled", "set_warn_always"),
    ("float32 matmul precision", "get_float32_matmul_precision", "set_float32_matmul_precision"),
    ("number of threads", "get_num_threads", "set_num_threads"),
)
_PRINT_OPTIONS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")


def _autocast_of(lib) -> tuple:
    """(whether autocast is on, its nesting level) in lib (minitorch's is_autocast_enabled parses
    its device type: 25 us; its flag is one attribute)."""
    if lib is minitorch:
        return _autocast_state.any_enabled, _autocast_state.nesting
    lib.autocast_increment_nesting()
    return lib.is_autocast_enabled("cpu"), lib.autocast_decrement_nesting()


_GLOBAL_HOOKS = tuple(
    f"_global_{kind}_hooks"
    for kind in (
        "forward", "forward_pre", "backward", "backward_pre", "module_registration",
        "parameter_registration", "buffer_registration",
    )
)  # fmt: skip


def _global_hooks_of(lib) -> tuple:
    """The handle ids of lib's global module hooks (nn.modules.module.register_module_*_hook)."""
    module = lib.nn.modules.module
    return tuple(tuple(getattr(module, name)) for name in _GLOBAL_HOOKS)


def _remove_global_hooks(lib, old) -> None:
    """Removes the global module hooks a test registered and left (the handle ids not in old)."""
    module = lib.nn.modules.module
    for name, ids in zip(_GLOBAL_HOOKS, old, strict=True):
        hooks = getattr(module, name)
        for key in [k for k in hooks if k not in ids]:
            del hooks[key]


def _settings_of(lib) -> tuple:
    """lib's process-wide settings (NOTE [ Tests leave global state as they found it ])."""
    opts = lib._tensor_str.PRINT_OPTS
    return (
        *(getattr(lib, getter)() for _, getter, _ in _SETTINGS),
        tuple(getattr(opts, name) for name in _PRINT_OPTIONS),
        _autocast_of(lib),
        _global_hooks_of(lib),
    )


def _undo_autocast(lib, old) -> None:
    """Leaves the autocast regions a test left entered: off, nesting and cast cache as before."""
    if not old[0]:
        for device_type in ("cpu", "cuda"):
            lib.set_autocast_enabled(device_type, False)
    for _ in range(_autocast_of(lib)[1] - old[1]):
        lib.autocast_decrement_nesting()
    if old[1] == 0:
        lib.clear_autocast_cache()


def _restore_settings(lib, before, after) -> list:
    """Puts back the settings of lib that differ from `before`; the list of what had changed."""
    setters = [setter and getattr(lib, setter) for _, _, setter in _SETTINGS] + [
        lambda opts: lib.set_printoptions(**dict(zip(_PRINT_OPTIONS, opts, strict=True))),
        lambda old: _undo_autocast(lib, old),
        lambda old: _remove_global_hooks(lib, old),
    ]
    names = [name for name, _, _ in _SETTINGS]
    names += ["print options", "autocast (on, nesting)", "global module hooks"]
    changed = []
    for name, setter, old, new in zip(names, setters, before, after, strict=True):
        if old != new:
            changed.append(f"{lib.__name__}'s {name}: {old!r} -> {new!r}")
            if setter is not None:
                setter(old)
    return changed


@pytest.fixture(autouse=True)
def _seed():
    """Seeds minitorch's generator; checks the settings (NOTE [ Tests leave global state ...])."""
    minitorch.manual_seed(0)
    torch = sys.modules.get("torch")
    before = (_settings_of(minitorch), torch and _settings_of(torch))
    pauses, hooks = _function._fast_path_pauses[0], _grad_state.saved_hooks
    yield
    changed = []
    for lib, old in zip((minitorch, torch), before, strict=True):
        if old is not None:
            new = _settings_of(lib)
            if new != old:
                changed += _restore_settings(lib, old, new)
    if _grad_state.saved_hooks is not hooks:  # a saved-tensor hooks region left entered
        changed.append("minitorch's saved-tensor hooks")
        _grad_state.saved_hooks = hooks
    now = _function._fast_path_pauses[0]  # (after anomaly mode's restore, which resumes them)
    if now != pauses:  # such a region, or a profile, left entered
        changed.append(f"minitorch's fast-path pauses: {pauses} -> {now}")
        _function._fast_path_pauses[0] = pauses
        _function.fast_path[0] = pauses == 0
    if changed:
        pytest.fail("the test left process-wide settings changed (undone): " + "; ".join(changed))


@contextlib.contextmanager
def once_warnings_forgotten():
    """A fresh process's state for the block: none of minitorch's once-per-process warnings
    (warn_once's keys, Tensor.storage()'s deprecation) given yet; the record is put back after."""
    from minitorch import _settings, storage

    saved, storage_warned = set(_settings._warned_once), list(storage._warned)
    _settings._warned_once.clear()
    storage._warned.clear()
    try:
        yield
    finally:
        _settings._warned_once.clear()
        _settings._warned_once.update(saved)
        storage._warned[:] = storage_warned


@pytest.fixture
def fresh_once():
    """For a torch-free test that asserts a warning minitorch gives once per process: it sees
    the warning whatever its worker ran before (once_warnings_forgotten). A test that compares
    with torch cannot reset torch's: run_program's set_warn_always makes both libraries warn."""
    with once_warnings_forgotten():
        yield


def pytest_xdist_auto_num_workers(config):
    """`pytest -n auto` (the README's test command): one worker per core, at most 8 (each one
    imports torch and collects the whole suite; more would cost memory, not time)."""
    return max(1, min(os.cpu_count() or 1, 8))
