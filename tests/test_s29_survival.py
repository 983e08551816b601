"""Session 29 (helper survival): torch-free checks of the building blocks the survival programs
in tests/reference/test_s29_survival_reference.py lean on (Kaplan-Meier by unique/scatter_add/
cumprod with Greenwood variances, Cox risk sets by a stable descending argsort and
logcumsumexp, Weibull log_prob/cdf/icdf/entropy). The session found no library difference in
this domain; the values below are torch 2.13's, so these keep the behaviour pinned where torch
is not installed."""

from __future__ import annotations

import numpy as np

import minitorch as mt

F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def _km_data():
    t = mt.tensor([0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 3.0], dtype=F64)
    e = mt.tensor([1.0, 1, 0, 1, 1, 1, 0], dtype=F64)
    return t, e


def test_kaplan_meier_by_unique_and_cumprod():
    t, e = _km_data()
    ut, inv, counts = mt.unique(t, return_inverse=True, return_counts=True)
    assert ut.tolist() == [0.5, 1.0, 1.5, 2.0, 3.0]
    assert inv.tolist() == [0, 1, 1, 2, 3, 3, 4]
    assert counts.tolist() == [1, 2, 1, 2, 1]
    d = mt.zeros_like(ut).scatter_add(0, inv, e)
    n_risk = 7 - mt.cumsum(counts, 0) + counts
    assert d.tolist() == [1.0, 1.0, 1.0, 2.0, 0.0]
    assert n_risk.tolist() == [7, 6, 4, 3, 1]
    s = mt.cumprod(1 - d / n_risk, 0)
    _close(s, [0.8571428571428572, 0.7142857142857144, 0.5357142857142858, 0.17857142857142863,
               0.17857142857142863], "survival")  # fmt: skip
    green = mt.cumsum(d / (n_risk * (n_risk - d)), 0)
    _close(green, [0.023809523809523808, 0.05714285714285714, 0.14047619047619048,
                   0.8071428571428572, 0.8071428571428572], "greenwood")  # fmt: skip


def test_cox_risk_sets_by_stable_descending_sort_and_logcumsumexp():
    t, _ = _km_data()
    r = mt.tensor([0.3, -0.2, 0.5, 0.1, 0.0, 0.7, -1.0], dtype=F64)
    order = mt.argsort(t, descending=True, stable=True)
    assert order.tolist() == [6, 4, 5, 3, 1, 2, 0]
    _close(mt.logcumsumexp(r[order], 0),
           [-1.0, 0.31326168751822286, 1.2183584771574498, 1.501140436286417,
            1.6687503927896659, 1.9393537154690612, 2.116751042378563])  # fmt: skip


def test_weibull_log_prob_cdf_icdf_entropy():
    w = mt.distributions.Weibull(mt.tensor(2.0, dtype=F64), mt.tensor(1.5, dtype=F64))
    q = mt.tensor([0.5, 1.0, 3.0], dtype=F64)
    _close(w.log_prob(q), [-1.1058292530117262, -0.9878090533250272, -1.9220668254850823])
    _close(w.cdf(q), [0.11750309741540454, 0.29781149867344037, 0.8407240915099786])
    _close(w.icdf(mt.tensor([0.1, 0.5], dtype=F64)), [0.44615105127383414, 1.5664395375493028])
    _close(w.entropy(), 1.4800872940856251)
    _close(w.mean, 1.8054905859018673, "mean")
