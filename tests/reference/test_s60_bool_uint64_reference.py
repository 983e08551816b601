"""Session 60: a bool (or other) tensor with a Python int beyond int64, against torch."""

import pytest

import minitorch

torch = pytest.importorskip("torch")

CASES = [
    "t + 2**63", "t * (2**64 - 1)", "2**63 * t", "t / 2**63", "t == 2**63", "t < 2**63",
    "t & 2**63", "t - 2**63", "t.add(2**63)", "lib.where(t, t, 2**63)", "t + (-2**63)",
    "i + 2**63", "u + 2**63", "f + 2**63",
]  # fmt: skip


def _run(lib, case):
    t = lib.tensor([True, False])
    i, u, f = lib.tensor([1, 2]), lib.tensor([1, 2], dtype=lib.uint8), lib.tensor([1.0, 2.0])
    try:
        r = eval(case, {"lib": lib, "t": t, "i": i, "u": u, "f": f})
    except RuntimeError as e:
        return "error", str(e)[:60]
    return r.tolist(), str(r.dtype)


@pytest.mark.parametrize("case", CASES)
def test_matches_torch(case):
    assert _run(minitorch, case) == _run(torch, case)
