"""round's argument errors and np.round of integer and bool tensors against torch: the calls of
tests/test_s53_round.py (and a few more) raise torch's exception type and message, or give its
values and dtype."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _outcome(call):
    try:
        r = call()
    except Exception as e:  # noqa: BLE001 - the outcome compared is the error itself
        return ("raises", type(e).__name__, str(e))
    return ("gives", str(r.dtype).split(".")[-1], r.tolist())


CALLS = {
    "special decimals str": lambda L: L.special.round(L.tensor([1.5]), decimals="a"),
    "special decimals float": lambda L: L.special.round(L.tensor([1.5]), decimals=1.5),
    "special decimals None": lambda L: L.special.round(L.tensor([1.5]), decimals=None),
    "special decimals bool": lambda L: L.special.round(L.tensor([1.5]), decimals=True),
    "special decimals np.int64": lambda L: L.special.round(L.tensor([1.25]), decimals=np.int64(1)),
    "special input float": lambda L: L.special.round(1.5),
    "special input float, decimals": lambda L: L.special.round(1.5, decimals=1),
    "special input list": lambda L: L.special.round([1.5]),
    "special unknown keyword": lambda L: L.special.round(L.tensor([1.5]), foo=1),
    "special no input": lambda L: L.special.round(),
    "special out int": lambda L: L.special.round(L.tensor([1.5]), out=3),
    "special out float64": lambda L: L.special.round(
        L.tensor([1.5]), out=L.empty(1, dtype=L.float64)
    ),
    "special positional decimals": lambda L: L.special.round(L.tensor([1.5]), 1),
    "special input keyword": lambda L: L.special.round(input=L.tensor([1.25]), decimals=1),
    "special int": lambda L: L.special.round(L.tensor([1, 2])),
    "special int decimals": lambda L: L.special.round(L.tensor([1, 2]), decimals=2),
    "round float, decimals": lambda L: L.round(1.5, decimals=1),
    "round float, decimals, out": lambda L: L.round(1.5, decimals=1, out=L.empty(1)),
    "round list, decimals=0": lambda L: L.round([1.5], decimals=0),
    "round float, decimals str": lambda L: L.round(1.5, decimals="a"),
    "round int, decimals, float out": lambda L: L.round(
        L.tensor([1, 2]), decimals=1, out=L.empty(2)
    ),
    "round int, decimals=0, float out": lambda L: L.round(
        L.tensor([1, 2]), decimals=0, out=L.empty(2)
    ),
    "round int, decimals, int out": lambda L: L.round(
        L.tensor([1, 2]), decimals=1, out=L.empty(2, dtype=L.int64)
    ),
    "round int8, decimals, int64 out": lambda L: L.round(
        L.tensor([1, 2], dtype=L.int8), decimals=1, out=L.empty(2, dtype=L.int64)
    ),
    "round bool, decimals, float out": lambda L: L.round(
        L.tensor([True]), decimals=1, out=L.empty(1)
    ),
    "round int, float out": lambda L: L.round(L.tensor([1, 2]), out=L.empty(2)),
    "round float, decimals, out int": lambda L: L.round(L.tensor([1.5]), decimals=1, out=3),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_round_calls(name):
    call = CALLS[name]
    assert _outcome(lambda: call(mt)) == _outcome(lambda: call(torch))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "bool"])
@pytest.mark.parametrize("decimals", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("fn", [np.round, np.around])
def test_numpy_round_of_integer_tensors(dtype, decimals, fn):
    values = [0, 1, 5, 15, 25, 35, 49, 50, 51, 99, 105, 127]
    if dtype == "bool":
        values = [True, False, True]
    elif dtype == "int8":
        values = values + [-5, -15, -25, -128]
    elif dtype != "uint8":
        values = values + [-5, -15, -25, -128, -1005]
    want = _outcome(lambda: fn(torch.tensor(values, dtype=getattr(torch, dtype)), decimals))
    got = _outcome(lambda: fn(mt.tensor(values, dtype=getattr(mt, dtype)), decimals))
    if want[0] == "raises":  # NumPy's own error (a bool array's float16 product)
        assert got[:2] == want[:2]
    else:
        assert got == want
