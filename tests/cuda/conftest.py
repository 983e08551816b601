"""The `fake_cupy` fixture: minitorch's CUDA backend on the CuPy test double of fake_cupy.py."""

from __future__ import annotations

import pytest

from minitorch import _backend
from minitorch import random as mt_random
from minitorch._backend import cupy_backend
from tests.cuda import fake_cupy as fake


def reset_cuda_state() -> None:
    """Forgets everything minitorch cached about CUDA (probe, backend, generators, device)."""
    cupy_backend._reason.clear()
    _backend._backends.pop("cuda", None)
    for (type_, _), d in _backend._interned.items():
        if type_ == "cuda":
            d.backend = None
    _backend.set_current_cuda_index(0)
    for key in [k for k in mt_random._defaults if k.startswith("cuda")]:
        del mt_random._defaults[key]


@pytest.fixture
def fake_cupy(monkeypatch):
    """A fresh fake CuPy with one 1 MiB GPU; minitorch's CUDA state is reset before and after."""
    cupy = fake.install(monkeypatch)
    reset_cuda_state()
    yield cupy
    reset_cuda_state()


@pytest.fixture
def fake_cupy_2gpu(monkeypatch):
    """As fake_cupy, with two GPUs."""
    cupy = fake.install(monkeypatch, n_devices=2)
    reset_cuda_state()
    yield cupy
    reset_cuda_state()


@pytest.fixture
def no_gpu():
    """Skips a test of the CPU-only behaviour where a real GPU is present."""
    import minitorch

    if minitorch.cuda.is_available():
        pytest.skip("checks the behaviour without a GPU")
