"""Session 36 (helper dtw): torch-free regression tests of the library fixes the soft-DTW,
alignment and CTC programs of tests/reference/test_s36_dtw_reference.py found: logsumexp's
parser counts for too many positional arguments (dim counted as required: "from 2 to 3", a
method's "from 1 to 2", special_logsumexp's name). torch's messages are written here as
literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

NINF = -math.inf


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "call, text",
    [
        (
            lambda x: mt.logsumexp(x, 0, True, 1),
            "logsumexp() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            lambda x: mt.logsumexp(x, 0, False, None, out=mt.empty(4)),
            "logsumexp() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            lambda x: mt.logsumexp([x], 0, True, 1),
            "logsumexp() takes from 2 to 3 positional arguments but 4 were given",
        ),
        (
            lambda x: mt.special.logsumexp(x, 0, True, 1, 2),
            "special_logsumexp() takes from 2 to 3 positional arguments but 5 were given",
        ),
        (
            lambda x: x.logsumexp(0, True, 1),
            "logsumexp() takes from 1 to 2 positional arguments but 3 were given",
        ),
        (
            lambda x: x.logsumexp(0, True, 1, 2),
            "logsumexp() takes from 1 to 2 positional arguments but 4 were given",
        ),
        (lambda x: mt.logsumexp(x), 'logsumexp() missing 1 required positional arguments: "dim"'),
    ],
)
def test_logsumexp_positional_counts(call, text):
    x = mt.ones(3, 4)
    assert _message(lambda: call(x)) == text


def test_logsumexp_still_takes_its_arguments():
    x = mt.tensor([[0.0, math.log(3.0)], [NINF, 0.0]], dtype=mt.float64)
    np.testing.assert_allclose(mt.logsumexp(x, 1, True).numpy(), [[math.log(4.0)], [0.0]])
    np.testing.assert_allclose(x.logsumexp(0, False).numpy(), [0.0, math.log(4.0)])
    out = mt.empty(2, dtype=mt.float64)
    mt.special.logsumexp(x, 1, False, out=out)
    np.testing.assert_allclose(out.numpy(), [math.log(4.0), 0.0])
