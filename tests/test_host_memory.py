"""Host memory reuse (NOTE [ Host memory reuse ] in minitorch/_backend/host_memory.py)."""

import os
import subprocess
import sys

import pytest

from minitorch._backend import host_memory

_GLIBC = host_memory._glibc()

# Allocates and frees three 3 MiB arrays 20 times after a warm-up round and prints whether the
# settings were applied and how many page faults the second round took. (Below NumPy's 4 MiB
# threshold for asking for huge pages, so the count does not depend on the kernel's THP mode.)
_CHURN = """
import resource, numpy as np
import minitorch
from minitorch._backend import host_memory
def churn():
    for _ in range(20):
        a = np.ones(3 << 18, np.float32); b = np.ones(3 << 18, np.float32)
        c = np.ones(3 << 18, np.float32)
        del a, b, c
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
churn()
print(host_memory.applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _run_churn(**env_changes):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.pop("LD_PRELOAD", None)
    env.pop("GLIBC_TUNABLES", None)
    env.pop("MINITORCH_MALLOC_TUNING", None)
    env.update(env_changes)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", _CHURN], env=env, capture_output=True, text=True, check=True
    )
    applied, faults = out.stdout.split()
    return applied == "True", int(faults)


@pytest.mark.skipif(not _GLIBC, reason="the settings are glibc's")
def test_freed_arrays_are_reused_without_page_faults():
    applied, faults = _run_churn()
    assert applied
    # 180 MiB allocated and freed: no memory comes fresh from the kernel
    assert faults < 100


@pytest.mark.skipif(not _GLIBC, reason="the settings are glibc's")
@pytest.mark.parametrize(
    "env",
    [
        {"MINITORCH_MALLOC_TUNING": "0"},
        {"MALLOC_ARENA_MAX": "2"},
        {"MINITORCH_MALLOC_TUNING": "off"},
    ],
)
def test_opting_out_keeps_the_system_settings(env):
    applied, faults = _run_churn(**env)
    assert not applied
    # glibc's defaults hand the memory back each round and fault it in again (~45,000 here)
    assert faults > 1000


@pytest.mark.parametrize(
    "env, chose",
    [
        ({}, False),
        ({"MINITORCH_MALLOC_TUNING": "1"}, False),
        ({"MINITORCH_MALLOC_TUNING": "0"}, True),
        ({"MINITORCH_MALLOC_TUNING": "False"}, True),
        ({"MALLOC_TRIM_THRESHOLD_": "0"}, True),
        ({"MALLOC_MMAP_THRESHOLD_": "1000"}, True),
        ({"LD_PRELOAD": "/usr/lib/libjemalloc.so.2"}, True),
        ({"LD_PRELOAD": ""}, False),
        ({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"}, True),
        ({"GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=1"}, False),
    ],
)
def test_the_environment_decides(env, chose):
    assert host_memory._user_chose_allocator(env) is chose
