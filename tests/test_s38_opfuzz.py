"""Session 38 (helper opfuzz): torch-free regression tests of the library fix the random program
fuzzing of tests/reference/test_s38_opfuzz_reference.py found: logaddexp's and logaddexp2's
backward takes both weights from one sigmoid of -|a - b| (the large one as 1 minus it), so that
their double backward keeps, as torch's does, the tiny derivative of the weight that saturates
at 1 (sigmoid(a - b)'s out * (1 - out) rounded it to 0). torch's values are written here as
literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt


def _double(fn, a, b, dt, weight):
    """(grad_a, grad_b, d(sum(weight * grad_b))/da, .../db) of fn(a, b).sum()."""
    a = mt.tensor(a, dtype=dt, requires_grad=True)
    b = mt.tensor(b, dtype=dt, requires_grad=True)
    ga, gb = mt.autograd.grad(getattr(mt, fn)(a, b).sum(), (a, b), create_graph=True)
    ha, hb = mt.autograd.grad((gb * mt.tensor(weight, dtype=dt)).sum(), (a, b))
    return [t.detach().numpy() for t in (ga, gb, ha, hb)]


@pytest.mark.parametrize(
    "fn, a0, want",
    [
        (
            "logaddexp",
            -50.0,
            [
                [1.5791268155225368e-22, 0.6681877721681662],
                [1.0, 0.3318122278318339],
                [-1.579126815522537e-22, -0.11085643664655452],
                [1.579126815522537e-22, 0.11085643664655452],
            ],
        ),
        (
            "logaddexp2",
            -100.0,
            [
                [6.867433054024408e-31, 0.6189757386701197],
                [1.0, 0.3810242613298804],
                [-4.760141859081193e-31, -0.08173756993805704],
                [4.760141859081193e-31, 0.08173756993805704],
            ],
        ),
    ],
)
def test_logaddexp_double_backward_keeps_the_saturated_side(fn, a0, want):
    # grad_b = 1 / (1 + exp(a - b)) is 1 to double precision at a = -50; its derivative in a,
    # -exp(a - b) / (1 + exp(a - b))², is not 0 (torch: -1.58e-22)
    got = _double(fn, [a0, 0.3], [0.2, -0.4], mt.float64, [1.0, 0.5])
    for g, w, name in zip(got, want, ("ga", "gb", "ha", "hb"), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0, err_msg=f"{fn} {name}")


@pytest.mark.parametrize("fn, scale", [("logaddexp", 1.0), ("logaddexp2", math.log(2.0))])
def test_logaddexp_double_backward_at_equal_and_infinite_sides(fn, scale):
    # a == b: each weight is 1/2 and its derivative +-scale/4 (the weights' branches meet
    # there); a = -inf (a masked identity): the weights are 0 and 1 and their derivatives 0,
    # finite (torch: NaN, inf / inf)
    got = _double(fn, [0.7, -math.inf], [0.7, 0.2], mt.float64, [1.0, 1.0])
    want = [[0.5, 0.0], [0.5, 1.0], [-scale / 4, 0.0], [scale / 4, 0.0]]
    for g, w, name in zip(got, want, ("ga", "gb", "ha", "hb"), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-15, atol=0, err_msg=f"{fn} {name}")


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
def test_logaddexp_gradcheck_and_gradgradcheck(fn):
    gen = mt.Generator().manual_seed(38)
    a = mt.randn(3, 4, generator=gen, dtype=mt.float64).requires_grad_(True)
    b = (mt.randn(4, generator=gen, dtype=mt.float64) * 3).requires_grad_(True)
    op = getattr(mt, fn)
    assert mt.autograd.gradcheck(op, (a, b))
    assert mt.autograd.gradgradcheck(op, (a, b))
