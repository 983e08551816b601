"""Session 28 (helper fin): torch-free checks of the finance building blocks the reference
programs in tests/reference/test_s28_fin_reference.py lean on (drawdowns by cummax, VaR by
quantile/kthvalue, weighted covariances, rolling windows by unfold, normal CDF/quantile). The
session found no library difference in this domain; the values below are torch 2.13's, so these
keep the behaviour pinned where torch is not installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def test_drawdown_by_cummax_keeps_the_last_tied_index():
    # torch's cummax/cummin report the latest index of a tie (a flat equity curve's new "peak")
    eq = mt.tensor([1.0, 3.0, 2.0, 5.0, 4.0, 4.0], dtype=F64)
    peak = mt.cummax(eq, 0)
    assert peak.indices.tolist() == [0, 1, 1, 3, 3, 3]
    assert mt.cummin(mt.tensor([3.0, 1, 1, 2, 1]), 0).indices.tolist() == [0, 1, 2, 2, 4]
    dd = eq / peak.values - 1
    _close(dd, [0.0, 0.0, -0.33333333333333337, 0.0, -0.19999999999999996, -0.19999999999999996])


@pytest.mark.parametrize(
    "interpolation, want",
    [
        ("linear", [1.25, 2.5, 3.5]),
        ("lower", [1.0, 2.0, 3.0]),
        ("higher", [2.0, 3.0, 4.0]),
        ("midpoint", [1.5, 2.5, 3.5]),
        ("nearest", [1.0, 3.0, 3.0]),
    ],
)
def test_var_quantile_interpolations(interpolation, want):
    pnl = mt.tensor([1.0, 3.0, 2.0, 5.0, 4.0, 4.0], dtype=F64)
    q = mt.tensor([0.05, 0.3, 0.5], dtype=F64)
    _close(mt.quantile(pnl, q, interpolation=interpolation), want, interpolation)
    kth = mt.kthvalue(pnl, 2)
    assert (kth.values.item(), kth.indices.item()) == (2.0, 2)


def test_weighted_covariances():
    X = mt.tensor([[1.0, 2, 4, 7], [3, 1, 2, 2]], dtype=F64)
    fw = mt.tensor([1, 2, 1, 3])
    aw = mt.tensor([0.5, 1, 1, 2], dtype=F64)
    _close(mt.cov(X), [[7.0, -0.3333333333333333], [-0.3333333333333333, 0.6666666666666666]])
    _close(
        mt.cov(X, fweights=fw),
        [[7.238095238095237, 0.21428571428571422], [0.21428571428571422, 0.4761904761904762]],
    )
    _close(
        mt.cov(X, aweights=aw),
        [[8.071428571428573, 0.2500000000000001], [0.2500000000000001, 0.46428571428571436]],
    )
    _close(
        mt.cov(X, correction=0, fweights=fw, aweights=aw),
        [[5.268698060941828, 0.4709141274238227], [0.4709141274238227, 0.23822714681440443]],
    )
    _close(mt.corrcoef(X), [[1.0, -0.15430334996209188], [-0.1543033499620919, 1.0]])


def test_returns_windows_and_normal_tails():
    r = mt.tensor([0.01, -0.02, 0.015, 0.0, -0.01], dtype=F64)
    _close(mt.cumprod(1 + r, 0), [1.01, 0.9898, 1.004647, 1.004647, 0.99460053])
    _close(
        mt.logcumsumexp(r * 100, 0),
        [1.0, 1.048587351573742, 1.9926991533322977, 2.1205002500252097, 2.1636891222258128],
    )
    assert mt.arange(10.0).unfold(0, 4, 3).tolist() == [
        [0.0, 1.0, 2.0, 3.0],
        [3.0, 4.0, 5.0, 6.0],
        [6.0, 7.0, 8.0, 9.0],
    ]
    z = mt.tensor([-1.0, 0.0, 1.96], dtype=F64)
    _close(mt.special.ndtr(z), [0.15865525393145702, 0.5, 0.9750021048517796])
    p = mt.tensor([0.025, 0.5, 0.99], dtype=F64)
    _close(mt.special.ndtri(p), [-1.9599639845400545, 0.0, 2.3263478740408408])


def test_std_of_one_return_warns_as_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = mt.tensor([1.0]).std()
    assert s.isnan().item()
    assert [str(w.message) for w in caught] == [
        "std(): degrees of freedom is <= 0. Correction should be strictly less than the "
        "reduction factor (input numel divided by output numel)."
    ]
