"""Session 25 (counts): the fast path of torch's CPU Poisson and binomial draws (NOTE [ count
draws from a block of uniforms ]) gives the scalar routine's numbers and stream position, and
torch's (literals from torch 2.13 with the same seeds)."""

from __future__ import annotations

import numpy as np

import minitorch
from minitorch._backend import torch_stream_counts as tsc
from minitorch._backend.torch_stream import TorchStream


def _same(fast, scalar, seed, *args):
    s1, s2 = TorchStream(seed), TorchStream(seed)
    s1.words(seed % 5)
    s2.words(seed % 5)
    a, b = fast(s1, *args), scalar(s2, *args)
    np.testing.assert_array_equal(a, b)
    assert s1._next_at_end == s2._next_at_end
    np.testing.assert_array_equal(s1.words(4), s2.words(4))
    return a.size


def test_poisson_fast_path_equals_scalar():
    rng = np.random.default_rng(0)
    edges = [0.0, 1e-300, 1e-3, 0.5, 9.999999999999998, 10.0, 10.000000000000002, 50.0, 1e5]
    edges += [1e7, np.inf]
    total = 0
    for seed in range(24):
        k = int(rng.integers(16, 600))
        if seed % 3 == 0:
            lam = rng.choice(edges, k)
        elif seed % 3 == 1:
            lam = rng.random(k) * 30 * (rng.random(k) > 0.3)
        else:
            lam = np.full(k, rng.choice(edges[:-2]))
        if seed % 2:
            lam = lam.astype(np.float32).astype(np.float64)
        total += _same(tsc.poisson, tsc.poisson_scalar, seed, lam.reshape(-1, 1))
    assert total > 5000


def test_binomial_fast_path_equals_scalar():
    rng = np.random.default_rng(1)
    ns = [np.nan, -3.0, 0.0, 1.0, 11.0, 20.0, 100.0, 1000.0, 1e6, np.inf]
    ps = [np.nan, -0.1, 0.0, 1e-9, 0.02, 0.3, 0.5, 0.5000001, 0.7, 0.98, 1.0, 1.5]
    total = 0
    for seed in range(24):
        f32 = bool(seed % 2)
        k = int(rng.integers(16, 600))
        if seed % 3 == 0:
            n, p = rng.choice(ns, k), rng.choice(ps, k)
        elif seed % 3 == 1:
            n, p = np.floor(rng.random(k) * 200), rng.random(k)
        else:
            n, p = np.full(k, rng.choice(ns[4:-1])), np.full(k, rng.choice(ps[4:-2]))
        if f32:
            n, p = n.astype(np.float32).astype(np.float64), p.astype(np.float32).astype(np.float64)
        total += _same(tsc.binomial, tsc.binomial_scalar, seed, n, p, f32)
    assert total > 5000


def test_poisson_many_elements_are_torchs():
    minitorch.manual_seed(5)
    lam = minitorch.tensor(
        [0.0, 0.3, 2.5, 9.5, 10.0, 37.0, 0.01, 120.0] * 4, dtype=minitorch.float64
    )
    assert minitorch.poisson(lam).tolist() == [
        0.0, 0.0, 2.0, 11.0, 8.0, 42.0, 0.0, 117.0, 0.0, 0.0, 2.0, 10.0, 8.0, 39.0, 0.0, 130.0,
        0.0, 0.0, 0.0, 6.0, 7.0, 37.0, 0.0, 129.0, 0.0, 0.0, 3.0, 10.0, 12.0, 42.0, 0.0, 120.0,
    ]  # fmt: skip
    assert minitorch.rand(2, dtype=minitorch.float64).tolist() == [
        0.20661944044795288,
        0.33912612684130916,
    ]


def test_binomial_many_elements_are_torchs():
    minitorch.manual_seed(6)
    n = minitorch.tensor([0.0, 4.0, 30.0, 200.0, 15.0, 1000.0] * 4)
    p = minitorch.tensor([0.5, 0.2, 0.5, 0.9, 0.05, 0.02] * 4)
    assert minitorch.binomial(n, p).tolist() == [
        0.0, 2.0, 14.0, 178.0, 3.0, 20.0, 0.0, 1.0, 13.0, 188.0, 2.0, 17.0,
        0.0, 1.0, 19.0, 180.0, 1.0, 23.0, 0.0, 1.0, 17.0, 178.0, 0.0, 24.0,
    ]  # fmt: skip
    assert minitorch.rand(2, dtype=minitorch.float64).tolist() == [
        0.34401346807227073,
        0.18240792830274455,
    ]


def test_poisson_one_rate_table_equals_scalar():
    # NOTE [ count draws of one rate by a table of next slots ]: every rate the table takes,
    # both sides of 10, tiny and huge ones, float32-rounded ones, a size past one chunk
    rates = [1e-300, 1e-3, 0.5, 2.0, 3.9999999, 10.0, 10.000000000000002, 37.0, 1e5, 999999.0]
    rates += [float(np.float32(0.7)), float(np.float32(13.3))]
    total = 0
    for seed, lam in enumerate(rates):
        k = 1024 + 997 * seed
        total += _same(tsc._poisson_one_rate, _scalar_rate, seed, k, lam)
        total += _same(tsc.poisson, tsc.poisson_scalar, seed + 50, np.full((k // 8, 8), lam))
    n = tsc._CHUNK + 3000
    total += _same(tsc.poisson, tsc.poisson_scalar, 7, np.full(n, 0.25))
    total += _same(tsc.poisson, tsc.poisson_scalar, 8, np.full(n, 25.0))
    assert total > 250000


def _scalar_rate(s, m, lam):
    return tsc.poisson_scalar(s, np.full(m, lam))


def test_poisson_one_rate_near_ties_and_block_end():
    # rates whose running sums come within the tolerance of a boundary (redrawn exactly), and
    # a block too short for its elements (the walk runs past it and draws the rest exactly)
    # (a tolerance widened a million times: many slots uncertain)
    tol = tsc._TOL_ULPS
    tsc._TOL_ULPS = tol * 1e6
    try:
        for seed in range(4):
            s1, s2 = TorchStream(seed), TorchStream(seed)
            a = tsc._poisson_one_rate(s1, 6000, 3.5 - seed)
            b = tsc.poisson_scalar(s2, np.full(6000, 3.5 - seed))
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(s1.words(3), s2.words(3))
    finally:
        tsc._TOL_ULPS = tol
    s1, s2 = TorchStream(3), TorchStream(3)
    old = tsc._ArrayBlock.__init__

    def short(self, s, n):
        old(self, s, n // 3)

    tsc._ArrayBlock.__init__ = short
    try:
        a = tsc._poisson_one_rate(s1, 3000, 1.5)
        c = tsc._poisson_one_rate(s1, 3000, 40.0)
    finally:
        tsc._ArrayBlock.__init__ = old
    np.testing.assert_array_equal(a, tsc.poisson_scalar(s2, np.full(3000, 1.5)))
    np.testing.assert_array_equal(c, tsc.poisson_scalar(s2, np.full(3000, 40.0)))
    np.testing.assert_array_equal(s1.words(3), s2.words(3))


def test_poisson_one_rate_is_torchs():
    minitorch.manual_seed(11)
    a = minitorch.poisson(minitorch.full((2048,), 0.5, dtype=minitorch.float64))
    b = minitorch.poisson(minitorch.full((2048,), 30.0))
    assert a[:12].tolist() == [0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0]
    assert b[-12:].tolist() == [
        20.0, 26.0, 39.0, 45.0, 29.0, 27.0, 33.0, 24.0, 29.0, 34.0, 27.0, 39.0,
    ]  # fmt: skip
    assert float(a.sum()) == 1078.0 and float(b.sum()) == 61820.0
    assert minitorch.rand(2, dtype=minitorch.float64).tolist() == [
        0.5265651303228998,
        0.08450987681755384,
    ]
