"""Shared fixtures: the `device` fixture runs device-agnostic tests on every available device."""

from __future__ import annotations

import pytest

import minitorch


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
