"""Shared fixtures: the `device` fixture runs device-agnostic tests on every available device."""

from __future__ import annotations

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


@pytest.fixture(autouse=True)
def _seed():
    minitorch.manual_seed(0)
    yield


def pytest_xdist_auto_num_workers(config):
    """`pytest -n auto` (the README's test command): one worker per core, at most 8 (each one
    imports torch and collects the whole suite; more would cost memory, not time)."""
    return max(1, min(os.cpu_count() or 1, 8))
