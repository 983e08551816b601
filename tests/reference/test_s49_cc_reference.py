"""Session 49, helper cc: the argument TypeErrors of tests/test_s49_cc.py against torch itself
(exception type and first message line), with the same inputs in both libraries."""

import numpy as np
import pytest

import minitorch
from tests.test_s49_cc import CASES

torch = pytest.importorskip("torch")


def _names(lib):
    rng = np.random.default_rng(0)
    return {
        "torch": lib,
        "x": lib.tensor(rng.standard_normal((2, 3, 4))),
        "v": lib.tensor(rng.standard_normal(4)),
        "m": lib.tensor(rng.standard_normal((3, 4))),
        "i": lib.tensor([0, 1, 2]),
    }


def _error(lib, call):
    try:
        eval(call, _names(lib))
    except Exception as e:  # noqa: BLE001 (the error is what is compared)
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize(("call", "kind", "message"), CASES, ids=[c[0] for c in CASES])
def test_argument_type_error_matches_torch(call, kind, message):
    expected = _error(torch, call)
    assert expected == (kind.__name__, message), expected  # the table is torch's
    assert _error(minitorch, call) == expected
