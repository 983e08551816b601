"""Session 31 (helper ot): torch-free regression tests of the library fixes the optimal-transport
programs (tests/reference/test_s31_ot_reference.py) led to: cdist's p = inf kernel passes over
NaN coordinates where pdist's gives NaN, both give NaN gradients where |diff| - dist is NaN (an
infinite tie), pdist's p = 1 gradient no longer takes NaN from a row's pair with itself, a zero
difference gets a zero gradient for 0 < p < 1, a batch mismatch raises torch's message for every
p, and the direct p = 2 form saves what torch's node saves. The values are torch 2.13's."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import minitorch as mt

NAN, INF = math.nan, math.inf


def _eq(got, want, err_msg=""):
    np.testing.assert_array_equal(np.asarray(got, dtype=float), want, err_msg=err_msg)


@pytest.mark.parametrize(
    "row, dist, grad",
    [
        ([NAN, 0.0], 0.0, [NAN, 0.0]),
        ([0.0, NAN], 0.0, [0.0, NAN]),
        ([NAN, NAN], 0.0, [NAN, NAN]),
        ([1.0, NAN, 3.0], 3.0, [0.0, NAN, 2.0]),
        ([NAN, -4.0, 2.0], 4.0, [NAN, -2.0, 0.0]),
        ([INF, 0.0], INF, [NAN, 0.0]),
        ([INF, INF], INF, [NAN, NAN]),
        ([-INF, 1.0], INF, [NAN, 0.0]),
        ([2.0, -2.0, 1.0], 2.0, [2.0, -2.0, 0.0]),
    ],
)
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_cdist_inf_norm_skips_nan_coordinates(row, dist, grad, dtype):
    x = mt.tensor([row], dtype=dtype, requires_grad=True)
    d = mt.cdist(x, mt.zeros(1, len(row), dtype=dtype), p=float("inf"))
    _eq(d, [[dist]], "distance")
    d.backward(mt.full((1, 1), 2.0, dtype=dtype))
    _eq(x.grad, [grad], "gradient")


def test_cdist_inf_norm_nan_gradient_whatever_the_upstream_gradient():
    x = mt.tensor([[NAN, 0.0], [2.0, 1.0]], requires_grad=True)
    y = mt.tensor([[0.0, 0.0], [1.0, 3.0]])
    d = mt.cdist(x, y, p=float("inf"))
    _eq(d, [[0.0, 3.0], [2.0, 2.0]])
    d.backward(mt.tensor([[0.0, 1.0], [1.0, 1.0]]))
    _eq(x.grad, [[NAN, -1.0], [1.0, -1.0]])
    x.grad = None
    mt.cdist(x, y, p=float("inf")).backward(mt.zeros(2, 2))
    _eq(x.grad, [[NAN, 0.0], [0.0, 0.0]])


@pytest.mark.parametrize(
    "row, dist, grad",
    [
        ([NAN, 0.0], NAN, [[NAN, NAN], [NAN, NAN]]),
        ([1.0, NAN, 3.0], NAN, [[NAN] * 3, [NAN] * 3]),
        ([INF, 0.0], INF, [[NAN, 0.0], [NAN, 0.0]]),
        ([2.0, -2.0, 1.0], 2.0, [[1.0, -1.0, 0.0], [-1.0, 1.0, 0.0]]),
    ],
)
def test_pdist_inf_norm_keeps_nan(row, dist, grad):
    x = mt.tensor([row, [0.0] * len(row)], requires_grad=True)
    d = mt.pdist(x, p=float("inf"))
    _eq(d, [dist])
    d.backward(mt.ones(1))
    _eq(x.grad, grad)


@pytest.mark.parametrize(
    "rows, dist, grad",
    [
        (
            [[INF, 0.0], [0.0, 0.0], [1.0, 2.0]],
            [INF, INF, 3.0],
            [[3.0, -2.0], [-4.0, -3.0], [1.0, 5.0]],
        ),
        (
            [[-INF, 0.0], [0.0, 0.0], [1.0, 2.0]],
            [INF, INF, 3.0],
            [[-3.0, -2.0], [-2.0, -3.0], [5.0, 5.0]],
        ),
        (
            [[0.0, 0.0], [0.0, 0.0], [1.0, INF]],
            [0.0, INF, INF],
            [[-2.0, -2.0], [-3.0, -3.0], [5.0, 5.0]],
        ),
    ],
)
def test_pdist_p1_gradient_with_an_infinite_row(rows, dist, grad):
    x = mt.tensor(rows, dtype=mt.float64, requires_grad=True)
    d = mt.pdist(x, p=1)
    _eq(d, dist)
    d.backward(mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64))
    _eq(x.grad, grad)


@pytest.mark.parametrize("row, dist", [([INF, 0.0], INF), ([NAN, 0.0], NAN)])
def test_cdist_below_one_zero_difference_gets_zero_gradient(row, dist):
    # torch's kernels skip a coordinate whose difference is 0 for p < 1 (|diff| ** (p - 1) is
    # infinite), even when the distance is infinite or NaN
    x = mt.tensor([row], dtype=mt.float64, requires_grad=True)
    d = mt.cdist(x, mt.zeros(1, 2, dtype=mt.float64), p=0.5)
    _eq(d, [[dist]])
    d.backward(mt.full((1, 1), 2.0, dtype=mt.float64))
    _eq(x.grad, [[NAN, 0.0]])


def test_pdist_below_one_zero_difference_gets_zero_gradient():
    x = mt.tensor([[INF, 0.0], [0.0, 0.0], [1.0, 2.0]], dtype=mt.float64, requires_grad=True)
    d = mt.pdist(x, p=0.5)
    np.testing.assert_allclose(d.tolist(), [INF, INF, 5.82842712474619], rtol=1e-14)
    d.backward(mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64))
    np.testing.assert_allclose(
        x.grad.tolist(), [[NAN, -INF], [NAN, -5.121320343559642], [NAN, INF]], rtol=1e-14
    )


def test_cdist_below_one_stays_twice_differentiable():
    g = mt.Generator().manual_seed(0)
    x = mt.randn(4, 3, generator=g, dtype=mt.float64).requires_grad_()
    y = mt.randn(3, 3, generator=g, dtype=mt.float64).requires_grad_()
    assert mt.autograd.gradgradcheck(lambda x, y: mt.cdist(x, y, p=0.5), (x, y))
    assert mt.autograd.gradgradcheck(lambda x: mt.pdist(x, p=0.7), (x,))
    assert mt.autograd.gradgradcheck(lambda x, y: mt.cdist(x, y, p=float("inf")), (x, y))
    assert mt.autograd.gradgradcheck(lambda x: mt.pdist(x, p=1), (x,))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
@pytest.mark.parametrize(
    "s1, s2, msg",
    [
        (
            (2, 4, 2),
            (3, 3, 2),
            "a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        ),
        (
            (5, 2, 4, 2),
            (3, 3, 2),
            "a (2) must match the size of tensor b (3) at non-singleton dimension 1",
        ),
        (
            (2, 4, 2),
            (5, 3, 3, 2),
            "a (2) must match the size of tensor b (3) at non-singleton dimension 1",
        ),
        (
            (2, 3, 4, 2),
            (3, 2, 3, 2),
            "a (3) must match the size of tensor b (2) at non-singleton dimension 1",
        ),
        (
            (2, 30, 2),
            (3, 3, 2),
            "a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        ),
    ],
)
def test_cdist_batch_mismatch_names_torchs_dimension(s1, s2, msg, p):
    with pytest.raises(RuntimeError, match=r"^The size of tensor " + re.escape(msg) + "$"):
        mt.cdist(mt.ones(*s1), mt.ones(*s2), p=p)


def test_cdist_batch_broadcast_shapes():
    assert mt.cdist(mt.ones(2, 1, 4, 2), mt.ones(1, 3, 3, 2)).shape == (2, 3, 4, 3)
    assert mt.cdist(mt.ones(1, 0, 30, 2), mt.ones(3, 1, 3, 2), p=1).shape == (3, 0, 30, 3)
    assert mt.cdist(mt.ones(1, 0, 30, 2), mt.ones(3, 1, 3, 2)).shape == (3, 0, 30, 3)


def test_cdist_direct_p2_saves_the_inputs_and_the_result():
    # torch's CdistBackward0 saves x1, x2 and the result: what saved_tensors_hooks see
    packed = []
    x = mt.tensor([[0.0, 1.0], [2.0, 3.0], [1.0, 1.0]], requires_grad=True)
    y = mt.tensor([[0.0, 1.0], [1.0, 2.0]])
    with mt.autograd.graph.saved_tensors_hooks(
        lambda t: packed.append(tuple(t.shape)) or t, lambda t: t
    ):
        d = mt.cdist(x, y)
    assert packed == [(3, 2), (2, 2), (3, 2)]
    assert d.grad_fn.name() == "CdistBackward0"
    d.backward(mt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    np.testing.assert_allclose(
        x.grad.tolist(),
        [[-1.4142135381698608, -1.4142135381698608], [4.949747562408447, 4.949747562408447],
         [5.0, -6.0]],
        rtol=1e-6,
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out = mt.cdist(x, y)
        out.mul_(2)
        out.sum().backward()
