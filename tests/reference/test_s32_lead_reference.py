"""Session 32 (lead): kthvalue's index among equal values compared with torch's CPU kernel on
random tied rows of several lengths, dtypes and k, NaN included (NOTE [ torch's quickselect on
ties ] in minitorch/_backend/torch_stream_multinomial.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


def prog_kthvalue_ties(lib, dt, rec):
    rng = np.random.default_rng(3)
    for n in (2, 3, 7, 16, 33, 100):
        rows = rng.integers(0, 4, (5, n)).astype(np.float64)
        rows[rng.random(rows.shape) < 0.1] = np.nan
        x = lib.tensor(rows.tolist(), dtype=dt)
        for k in sorted({1, 2, (n + 1) // 2, n}):
            v, i = lib.kthvalue(x, k, dim=1)
            rec(f"n{n}.k{k}.values", v)
            rec(f"n{n}.k{k}.indices", i)
            rec(f"n{n}.k{k}.dim0", lib.kthvalue(x.t(), k, dim=0).indices)
    ints = lib.tensor(rng.integers(0, 3, (4, 9)).tolist())
    rec("int64", lib.kthvalue(ints, 5).indices)
    rec("uint8", lib.kthvalue(ints.to(lib.uint8), 2, dim=0, keepdim=True).indices)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_kthvalue_ties_program(dt):
    assert_program_matches(prog_kthvalue_ties, torch, dt)
