"""Session 61: clamp and clamp_ with an int bound in [2**63, 2**64), against torch
(tests/test_s61_clamp_uint64.py)."""

import pytest

import minitorch

torch = pytest.importorskip("torch")

BOUNDS = [
    {"max": 2**63},
    {"min": 2**63},
    {"min": 0, "max": 2**64 - 1},
    {"min": True, "max": 2**63},
    {"min": 2**63, "max": 1.5},
    {"min": 0.5, "max": 2**63},
    {"min": 2**63, "max": 2**63},
    {"min": 2**63, "max": 2**70},
    {"min": 2**70, "max": 2**63},
]


def _run(lib, dtype, method, bounds):
    try:
        r = getattr(lib.zeros(2, dtype=getattr(lib, dtype)), method)(**bounds)
    except (RuntimeError, OverflowError, TypeError) as e:
        return type(e).__name__, str(e)[:100]
    return r.tolist(), str(r.dtype).split(".")[-1]


@pytest.mark.parametrize("bounds", BOUNDS)
@pytest.mark.parametrize("method", ["clamp", "clamp_"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float32"])
def test_uint64_bounds_match_torch(dtype, method, bounds):
    assert _run(minitorch, dtype, method, bounds) == _run(torch, dtype, method, bounds)
