"""Sweep 6 follow-ups: quantile's gradient w.r.t. q and at NaN, unique's grad_fn and its NaN
slices, linspace/logspace's 0-d endpoints, amax/amin's gradient over NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

NAN = math.nan


# --- quantile: q's gradient, NaN slices ---


def test_quantile_linear_is_differentiable_in_q():
    x = mt.tensor([3.0, 1.0, 4.0, 1.5, 9.0, 2.6], dtype=mt.float64)
    q = mt.tensor([0.3, 0.75], dtype=mt.float64, requires_grad=True)
    out = mt.quantile(x, q)
    assert out.requires_grad and type(out.grad_fn).__name__ == "SqueezeBackward4"
    out.sum().backward()
    # d/dq = (hi - lo) * (n - 1): sorted [1, 1.5, 2.6, 3, 4, 9], ranks 1.5 and 3.75
    np.testing.assert_allclose(q.grad.numpy(), [5.5, 5.0], rtol=1e-12, err_msg="q.grad")


@pytest.mark.parametrize("interpolation", ["lower", "higher", "midpoint", "nearest"])
def test_quantile_other_modes_do_not_track_q(interpolation):
    x = mt.tensor([3.0, 1.0, 4.0], dtype=mt.float64)
    q = mt.tensor([0.3], dtype=mt.float64, requires_grad=True)
    assert not mt.quantile(x, q, interpolation=interpolation).requires_grad


def test_quantile_gradcheck_in_input_and_q():
    x = mt.tensor([[3.0, 1.0, 4.0], [1.5, 9.0, 2.6]], dtype=mt.float64, requires_grad=True)
    q = mt.tensor([0.3, 0.6], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda a, b: mt.quantile(a, b, dim=1), (x, q))
    assert gradgradcheck(lambda a, b: mt.quantile(a, b, dim=1), (x, q))
    assert gradcheck(lambda a, b: mt.nanquantile(a, b, dim=0, keepdim=True), (x, q))


def test_quantile_q_gradient_at_infinite_end():
    x = mt.tensor([1.0, math.inf, math.inf], dtype=mt.float64)
    q = mt.tensor([0.2, 0.75], dtype=mt.float64, requires_grad=True)
    mt.quantile(x, q).sum().backward()
    # lerp's weight gradient is end - self: inf, then inf - inf (never 0 * inf from the branch
    # not taken)
    np.testing.assert_equal(q.grad.numpy(), [math.inf, NAN])


def test_quantile_nan_slice_sends_gradient_to_a_nan():
    x = mt.tensor(
        [[1.0, NAN, 3.0, NAN], [4.0, 1.0, 1.0, 0.0]], dtype=mt.float64, requires_grad=True
    )
    q = mt.tensor(0.4, dtype=mt.float64, requires_grad=True)
    out = mt.quantile(x, q, dim=1)
    out.backward(mt.tensor([2.0, 1.0], dtype=mt.float64))
    # a NaN slice's rank is its last sorted place: the last NaN; q gets nothing from it
    np.testing.assert_allclose(
        x.grad.numpy(), [[0, 0, 0, 2.0], [0, 0.8, 0.2, 0]], rtol=1e-12, err_msg="x.grad"
    )
    # the NaN slice's diff is NaN - NaN, but its rank is fixed: 0 (the other slice's diff is 0)
    np.testing.assert_equal(q.grad.numpy(), 0.0)


def test_nanquantile_all_nan_slice_gradient():
    x = mt.tensor([[NAN, NAN, NAN], [3.0, NAN, 1.0]], dtype=mt.float64, requires_grad=True)
    q = mt.tensor(0.5, dtype=mt.float64, requires_grad=True)
    mt.nanquantile(x, q, dim=1).backward(mt.tensor([2.0, 1.0], dtype=mt.float64))
    np.testing.assert_allclose(x.grad.numpy(), [[2.0, 0, 0], [0.5, 0, 0.5]], err_msg="x.grad")
    np.testing.assert_allclose(q.grad.numpy(), 2.0, err_msg="q.grad")  # all-NaN: rank fixed
    q0 = mt.tensor(0.0, dtype=mt.float64, requires_grad=True)
    mt.nanquantile(x, q0, dim=1).sum().backward()
    assert math.isnan(q0.grad.item())  # a rank of -0. is not fixed: NaN - NaN reaches q


# --- unique ---


@pytest.mark.parametrize(
    "call, node, kernel",
    [
        (lambda x: mt.unique(x), "Unique2Backward0", "_unique2"),
        (
            lambda x: mt.unique(x, sorted=False, return_inverse=True)[0],
            "Unique2Backward0",
            "_unique2",
        ),
        (lambda x: mt.unique(x, dim=0, return_counts=True)[0], "UniqueDimBackward0", "unique_dim"),
        (lambda x: mt.unique_consecutive(x), "UniqueConsecutiveBackward0", "unique_consecutive"),
    ],
)
def test_unique_requires_grad_and_backward_raises(call, node, kernel):
    x = mt.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True)
    u = call(x)
    assert u.requires_grad and type(u.grad_fn).__name__ == node
    with pytest.raises(NotImplementedError, match=f"the derivative for '{kernel}' is not impl"):
        u.sum().backward()
    with mt.no_grad():
        assert not call(x).requires_grad


def test_unique_dim_with_nan_rows_in_torch_order():
    x = mt.tensor([[NAN, 1.0], [NAN, 1.0], [0.0, 1.0], [2.0, 0.0], [0.0, 1.0]])
    values, inverse, counts = mt.unique(x, dim=0, return_inverse=True, return_counts=True)
    # torch's insertion sort: a NaN position compares neither way, so only [2, 0] < [nan, 1]
    # (decided by 0 < 1) and [0, 1] < [2, 0] order anything; equal NaN rows stay apart
    np.testing.assert_equal(
        values.numpy(), np.array([[0, 1], [2, 0], [NAN, 1], [NAN, 1], [0, 1]], dtype=np.float32)
    )
    np.testing.assert_equal(inverse.numpy(), [2, 3, 4, 1, 0])
    np.testing.assert_equal(counts.numpy(), [1, 1, 1, 1, 1])


def test_unique_dim_zero_sized_other_dim_raises():
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't sel"):
        mt.unique(mt.zeros(3, 0), dim=0)
    assert mt.unique(mt.zeros(0, 3), dim=0).shape == (0, 3)


# --- linspace / logspace ---


@pytest.mark.parametrize("fn", [mt.linspace, mt.logspace])
def test_range_endpoints_must_be_0d(fn):
    name = fn.__name__
    start = f"{name} only supports 0-dimensional start and end tensors, but got "
    with pytest.raises(RuntimeError, match=start + r"start with 1 dimension\(s\) and end with 0"):
        fn(mt.tensor([2.0]), mt.tensor(6.0), 3)
    with pytest.raises(RuntimeError, match=start + r"end with 1 dimension\(s\)\.$"):
        fn(2.0, mt.tensor([6.0]), 3)
    np.testing.assert_allclose(fn(mt.tensor(0.0), mt.tensor(2.0), 3).numpy(), fn(0.0, 2.0, 3))


# --- amax / amin over NaN ---


@pytest.mark.parametrize("fn", [mt.amax, mt.amin])
def test_amax_amin_gradient_nan_across_a_nan_slice(fn):
    x = mt.tensor([[NAN, 0.0, 1.0], [2.0, 2.0, 1.0]], dtype=mt.float64, requires_grad=True)
    fn(x, 1).sum().backward()
    want = [[NAN] * 3, [0.5, 0.5, 0] if fn is mt.amax else [0, 0, 1]]
    np.testing.assert_equal(x.grad.numpy(), np.array(want))
    x.grad = None
    fn(x).backward()  # all elements: one slice holding NaN
    assert np.isnan(x.grad.numpy()).all()


def test_max_and_inf_norm_gradients_keep_nan_ties():
    x = mt.tensor([[NAN, 0.0, 1.0], [2.0, -2.0, 1.0]], dtype=mt.float64, requires_grad=True)
    x.max().backward()  # torch's evenly_distribute_backward: the NaN takes it
    np.testing.assert_equal(x.grad.numpy(), [[1, 0, 0], [0, 0, 0]])
    x.grad = None
    mt.linalg.vector_norm(x, math.inf, dim=1).sum().backward()
    np.testing.assert_equal(x.grad.numpy(), [[0, 0, 0], [0.5, -0.5, 0]])
    x.grad = None
    mt.aminmax(x, dim=1).max.sum().backward()
    np.testing.assert_equal(x.grad.numpy(), [[NAN] * 3, [1, 0, 0]])
