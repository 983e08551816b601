"""Session 32 (helper pose): torch-free checks of what the pose-estimation programs in
tests/reference/test_s32_pose_reference.py found: unravel_index checks each element of its
shape is an int and accepts any sequence (range, torch.Size) as torch 2.13 does, and refuses a
dimension past int64 with torch's overflow message; argmax decoding by floor division and
remainder gives torch's coordinates (torch's values and messages written as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

_ONLY_INTS = "expected 'shape' sequence to only contain ints, but got "


@pytest.mark.parametrize(
    "shape, error, message",
    [
        ((6.0, 7), TypeError, _ONLY_INTS + "<class 'float'>"),
        (
            [6, np.int64(7)],
            TypeError,
            _ONLY_INTS + "<class 'numpy.int64'>",
        ),
        ("ab", TypeError, _ONLY_INTS + "<class 'str'>"),
        ((6, [7]), TypeError, _ONLY_INTS + "<class 'list'>"),
        (6.0, TypeError, "expected 'shape' to be int or sequence of ints, but got <class 'float'>"),
        ((2, 2**63), ValueError, "Overflow when unpacking long long"),
        (
            (-(2**63) - 1,),
            ValueError,
            "'shape' cannot have negative values, but got (-9223372036854775809,)",
        ),
    ],
)
def test_unravel_index_checks_shape_elements_like_torch(shape, error, message):
    with pytest.raises(error) as info:
        mt.unravel_index(mt.tensor([1]), shape)
    assert str(info.value) == message


def test_unravel_index_takes_any_int_sequence():
    rows, cols, last = mt.unravel_index(mt.tensor([5, 11]), range(3, 6))
    assert (rows.tolist(), cols.tolist(), last.tolist()) == ([0, 0], [1, 2], [0, 1])
    rows, cols = mt.unravel_index(mt.tensor([5]), [True, 7])
    assert (rows.tolist(), cols.tolist()) == ([0], [5])
    rows, cols = mt.unravel_index(mt.tensor([5]), (2**32, 2**32))
    assert (rows.tolist(), cols.tolist()) == ([0], [5])


def test_argmax_decode_by_floor_division_and_remainder():
    hm = mt.zeros(2, 6, 7)
    hm[0, 4, 3] = 1.0
    hm[1, 0, 6] = 2.0
    idx = hm.flatten(1).argmax(1)
    ys = mt.div(idx, 7, rounding_mode="floor")
    xs = mt.remainder(idx, 7)
    assert (ys.tolist(), xs.tolist()) == ([4, 0], [3, 6])
    r, c = mt.unravel_index(idx, (6, 7))
    assert (r.tolist(), c.tolist()) == ([4, 0], [3, 6])
    assert mt.div(mt.tensor([-7, 7]), 2, rounding_mode="floor").tolist() == [-4, 3]
    assert mt.div(mt.tensor([-7, 7]), 2, rounding_mode="trunc").tolist() == [-3, 3]
