"""Fill values that are not numbers (None, a string, a Decimal, a 0-d NumPy array) raise torch's
TypeError naming the op; None was stored as nan (torch 2.13 refuses every one of these)."""

from decimal import Decimal

import numpy as np
import pytest

import minitorch as mt

BAD = [None, "a", Decimal("1.5"), np.array(2.0), [1.0]]


def _ops():
    mask = mt.tensor([True, False, True])
    idx = mt.tensor([0])
    return {
        "fill_": lambda v: mt.zeros(3).fill_(v),
        "masked_fill": lambda v: mt.zeros(3).masked_fill(mask, v),  # torch: "masked_fill()"
        "masked_fill_ in place": lambda v: mt.zeros(3).masked_fill_(mask, v),
        "index_fill": lambda v: mt.zeros(3).index_fill(0, idx, v),  # (its overloads listed)
        "fill_diagonal_": lambda v: mt.zeros(2, 2).fill_diagonal_(v),
    }


@pytest.mark.parametrize("value", BAD, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("op", list(_ops()))
def test_non_number_fill_values_raise_type_error(op, value):
    with pytest.raises(TypeError, match=op.split()[0]):
        _ops()[op](value)


@pytest.mark.parametrize("value", [2, 2.5, True, np.float32(2.5), np.int64(2), np.bool_(True)])
def test_numbers_and_numpy_scalars_fill(value):
    out = mt.zeros(2).masked_fill(mt.tensor([True, False]), value)
    assert out.tolist() == [float(value), 0.0]
    assert mt.zeros(2).fill_(value).tolist() == [float(value)] * 2
