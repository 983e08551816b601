"""Sweep 7 of the statistics ops against torch's behaviour: out= dtypes of quantile/aminmax,
var/std gradients at dof <= 0, median's +0 gradients, nanmean/searchsorted/histogram errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck


def _x64():
    return mt.tensor([[1.0, 5.0, 2.0], [3.0, 0.0, 1.0]], dtype=mt.float64)


# --- out= dtypes ---


@pytest.mark.parametrize("fn", [mt.quantile, mt.nanquantile])
def test_quantile_refuses_an_out_of_another_dtype(fn):
    x = _x64()
    with pytest.raises(RuntimeError, match=r"^quantile\(\) out tensor must be same dtype as the"):
        fn(x, 0.5, 1, out=mt.empty(0))
    # checked before the dim, as torch
    with pytest.raises(RuntimeError, match="out tensor must be same dtype"):
        fn(x, 0.5, 5, out=mt.empty(0))
    out = mt.empty(0, dtype=mt.float64)
    assert fn(x, 0.5, 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [2.0, 1.0])


def test_quantile_messages_say_quantile_and_q_range_is_checked_last():
    x = _x64()
    with pytest.raises(RuntimeError, match=r"^quantile\(\) q must be a scalar or 1D tensor"):
        mt.nanquantile(x, mt.tensor([[0.5]], dtype=mt.float64))
    with pytest.raises(RuntimeError, match=r"^quantile\(\) interpolation must be one of"):
        mt.quantile(x, mt.tensor([2.0], dtype=mt.float64), interpolation="x")
    with pytest.raises(IndexError):
        mt.quantile(x, mt.tensor([2.0], dtype=mt.float64), 7)


def test_aminmax_refuses_outs_of_another_dtype():
    x = _x64()
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have dtype double, but got float"
    ):
        mt.aminmax(x, dim=1, out=(mt.empty(0), mt.empty(0)))
    hi = mt.zeros(2, dtype=mt.float64)
    with pytest.raises(RuntimeError, match="dtype double, but got float instead"):
        mt.aminmax(x, dim=1, out=(mt.empty(0), hi))
    np.testing.assert_array_equal(hi.numpy(), [0.0, 0.0])  # nothing written
    with pytest.raises(RuntimeError, match="dtype int, but got long int instead"):
        mt.aminmax(mt.tensor([1, 2], dtype=mt.int32), out=(mt.empty(0, dtype=mt.int64),) * 2)
    lo, hi = mt.empty(0, dtype=mt.float64), mt.empty(0, dtype=mt.float64)
    r = mt.aminmax(x, dim=1, out=(lo, hi))
    assert r.min is lo and r.max is hi
    np.testing.assert_array_equal(hi.numpy(), [5.0, 3.0])


# --- var / std gradients when correction >= the number of elements ---


def _grad(f, data, g=1.0):
    x = mt.tensor(data, dtype=mt.float64, requires_grad=True)
    y = f(x)
    y = y[0] if isinstance(y, tuple) else y
    y.backward(mt.full_like(y, g))
    return x.grad.numpy()


@pytest.mark.parametrize("c", [2, 3])
def test_var_full_reduction_gradient_at_dof_le_0_is_inf(c):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(
            _grad(lambda x: x.var(correction=c), [1.0, 2.0]), [np.inf] * 2
        )
        np.testing.assert_array_equal(
            _grad(lambda x: x.var(correction=c), [1.0, 2.0], -1.0), [-np.inf] * 2
        )
        np.testing.assert_array_equal(
            _grad(lambda x: mt.var_mean(x, correction=c), [[1.0, 2.0]]), [[np.inf] * 2]
        )
        # nan where the element equals the mean (inf * 0)
        assert np.isnan(_grad(lambda x: x.var(correction=c), [1.0, 1.0])).all()
        assert np.isnan(_grad(lambda x: x.std(correction=c), [1.0, 2.0])).all()


def test_var_with_dim_keeps_2_over_n_minus_correction():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(
            _grad(lambda x: x.var(1, correction=2), [[1.0, 2.0]]), [[-np.inf, np.inf]]
        )
        np.testing.assert_array_equal(
            _grad(lambda x: x.var(1, correction=3), [[1.0, 2.0]]), [[1.0, -1.0]]
        )
        np.testing.assert_array_equal(
            _grad(lambda x: x.var(1, correction=2.5), [[1.0, 2.0]], -1.0), [[-2.0, 2.0]]
        )
        np.testing.assert_array_equal(
            _grad(lambda x: mt.var_mean(x, (0, 1), correction=3), [[1.0, 2.0]]), [[1.0, -1.0]]
        )
        # torch counts dim=[] as 1 element in the backward: 2 / (1 - 3)
        np.testing.assert_array_equal(
            _grad(lambda x: x.var([], correction=3), [[1.0, 2.0]]), [[0.5, -0.5]]
        )
        g = _grad(lambda x: x.std(1, correction=3), [[1.0, 2.0]])  # std is inf: 0 * -2 * dev
        np.testing.assert_array_equal(g, [[0.0, 0.0]])
        assert list(np.signbit(g[0])) == [False, True]
        g = _grad(lambda x: mt.std_mean(x, 1, correction=3), [[1.0, 2.0]])
        assert list(np.signbit(g[0])) == [False, True]


def test_var_std_gradients_unchanged_at_positive_dof():
    x = mt.tensor([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]], dtype=mt.float64, requires_grad=True)
    for f in (
        lambda t: t.var(),
        lambda t: t.var(1, correction=0),
        lambda t: t.std(0),
        lambda t: mt.var_mean(t, 1)[0],
    ):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


# --- median's gradient ---


@pytest.mark.parametrize("fn", [mt.median, mt.nanmedian])
def test_full_median_gradient_is_plus_zero_off_the_median(fn):
    x = mt.tensor([1.0, 3.0, 2.0, 5.0], requires_grad=True)
    (-fn(x)).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, -1.0, 0.0])
    assert np.signbit(x.grad.numpy()).tolist() == [False, False, True, False]
    ties = mt.tensor([1.0, 2.0, 2.0, 5.0, 2.0], requires_grad=True)
    (fn(ties) * -3).backward()
    np.testing.assert_array_equal(ties.grad.numpy(), [0.0, -1.0, -1.0, 0.0, -1.0])
    assert not np.signbit(ties.grad.numpy()[[0, 3]]).any()
    y = mt.tensor([1.0, 2.5, 2.0, 5.0, -2.0], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: fn(t) * 3, (y,))
    assert gradgradcheck(lambda t: fn(t) * 3, (y,))


# --- messages ---


def test_nanmean_names_the_dtype_argument():
    with pytest.raises(RuntimeError, match=r"Optional dtype must be .* Got: Long"):
        mt.nanmean(mt.tensor([1.0, 2.0]), dtype=mt.int64)
    with pytest.raises(RuntimeError, match="expected input to have floating point .* got Long"):
        mt.nanmean(mt.tensor([1, 2]), dtype=mt.float32)
    assert mt.nanmean(mt.tensor([1.0, 2.0]), dtype=mt.float64).item() == 1.5


def test_searchsorted_without_a_sequence_tensor_is_torchs_overload_error():
    with pytest.raises(TypeError, match=r"got \(list, Tensor\), but expected one of"):
        mt.searchsorted([1.0, 2.0], mt.tensor([1.5]))
    with pytest.raises(TypeError, match=r"got \(list, Tensor, right=bool\)"):
        mt.searchsorted([1.0, 2.0], mt.tensor([1.5]), right=True)
    with pytest.raises(TypeError, match=r"got \(Tensor, list\)"):
        mt.searchsorted(mt.tensor([1.0, 2.0]), [1.5])
    assert mt.searchsorted(mt.tensor([1.0, 2.0]), 1.5).item() == 1


def test_histogram_bins_errors_follow_torch():
    x = mt.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="at least 1 element, but got 0 elements .* dimension 0"):
        mt.histogram(x, mt.tensor([]))
    with pytest.raises(RuntimeError, match=r"bins must be > 0, but got 0 for dimension 0"):
        mt.histogram(x, mt.tensor([1.0]))
    p = mt.rand(4, 2)
    with pytest.raises(RuntimeError, match="at least 1 element, but got 0 elements .* dimension 1"):
        mt.histogramdd(p, bins=[2, -1])
    with pytest.raises(RuntimeError, match="at least 1 element, .* dimension 1"):
        mt.histogramdd(p, bins=[0, -1])
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        mt.histogramdd(p, bins=[0, -2])
    with pytest.raises(RuntimeError, match="range should have 4 elements, but got 2"):
        mt.histogramdd(p, bins=[2, -1], range=[0.0, 1.0])
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        mt.histogramdd(p, bins=[2, -1], range=[1.0, 0.0, 0.0, 1.0])
    with pytest.raises(RuntimeError, match="at least 1 element"):
        mt.histogramdd(p, bins=[mt.tensor([0.0, 1.0]), mt.tensor([])], weight=mt.ones(3))


def test_histogramdd_of_integers_is_not_implemented():
    i = mt.tensor([[0, 1], [1, 0]], dtype=mt.int32)
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Int'"):
        mt.histogramdd(i, bins=2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        mt.histogramdd(i, bins=[2, -1])
    with pytest.raises(RuntimeError, match="same dtype, but got input with dtype int and bins"):
        mt.histogramdd(i, bins=[mt.tensor([0.0, 1.0])] * 2)
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        mt.histogram(mt.tensor([1, 2]), mt.tensor([1, 2]))
    hist, edges = mt.histogramdd(i.float(), bins=2)
    np.testing.assert_array_equal(hist.numpy(), [[0.0, 1.0], [1.0, 0.0]])
