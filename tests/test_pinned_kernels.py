"""NOTE [ Pinned CPU kernels ] in tests/conftest.py: the suite runs NumPy and torch on their AVX2
kernels, whatever the machine, so reference records do not follow the CPU. And minitorch's
get_cpu_capability reads torch's ATEN_CPU_CAPABILITY cap as torch's does."""

from __future__ import annotations

import os

import pytest

import minitorch as mt


def test_numpy_runs_its_avx2_kernels():
    if "X86_V4" not in os.environ.get("NPY_DISABLE_CPU_FEATURES", ""):
        pytest.skip("the caller set NPY_DISABLE_CPU_FEATURES")
    from numpy._core._multiarray_umath import __cpu_features__ as features

    assert not features.get("X86_V4")
    assert os.environ["ATEN_CPU_CAPABILITY"] in ("avx2", "")


@pytest.mark.parametrize("cap, most", [("default", "DEFAULT"), ("avx2", "AVX2"), ("bogus", None)])
def test_cpu_capability_follows_aten_cpu_capability(monkeypatch, cap, most):
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    detected = mt.backends.cpu.get_cpu_capability()
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", cap)
    got = mt.backends.cpu.get_cpu_capability()
    if most is None:  # an unknown value caps nothing
        assert got == detected
    elif detected == "DEFAULT":
        assert got == "DEFAULT"
    else:
        levels = ["DEFAULT", "AVX2", "AVX512"]
        assert got == levels[min(levels.index(most), levels.index(detected))]
