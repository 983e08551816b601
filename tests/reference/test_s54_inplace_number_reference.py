"""Session 54, lead: in-place arithmetic with a Python number (inplace.py _fast_inplace's number
branch) against torch: the same bits, and torch's refusal of an int beyond its Scalar range."""

import numpy as np
import pytest

import minitorch as torch
from tests.test_s54_inplace_number import NUMBERS, OPS, _tensor

ref = pytest.importorskip("torch")


def test_the_same_bits_as_torch():
    for dtype in ("float32", "float64"):
        for op in OPS:
            for number in NUMBERS:
                a = _tensor(getattr(torch, dtype))
                b = ref.from_numpy(a.numpy().copy())
                getattr(a, op)(number)
                getattr(b, op)(number)
                np.testing.assert_array_equal(a.numpy(), b.numpy(), f"{dtype} {op} {number}")


@pytest.mark.parametrize("number", [2**64, 2**70, -(2**63) - 1, 2**64 - 1, -(2**63)])
def test_ints_at_and_beyond_the_scalar_range_as_torch(number):
    outcomes = []
    for lib in (torch, ref):
        x = lib.ones(2)
        try:
            x.add_(number)
            outcomes.append(x.tolist())
        except OverflowError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]
