"""Session 26 (binom): torch's CPU binomial draws, faster: one count and probability by a table
of next slots (NOTE [ binomial draws of one count and probability by a table of next slots ]),
BTRS's log test from tables (NOTE [ BTRS's log test from tables ]), and a tiny probability
(whose gaps overflow to infinity, as C's ceil gives them) no longer raising. Every path gives
binomial_scalar's numbers and stream position, and torch's (literals from torch 2.13)."""

from __future__ import annotations

import numpy as np
import pytest

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


def _scalar_one(s, size, n, p, float32):
    return tsc.binomial_scalar(s, np.full(size, n), np.full(size, p), float32)


def test_binomial_one_param_table_equals_scalar():
    # inversion (n q < 10) and BTRS, both sides of p = 1/2, tiny and huge counts, float32
    ns = [1.0, 2.0, 10.0, 37.0, 100.0, 1000.0, 12345.0, 1e6]
    ps = [1e-9, 1e-3, 0.02, 0.3, 0.5, 0.5000001, 0.7, 0.999]
    total = seed = 0
    for n in ns:
        for p in ps:
            for f32 in (False, True):
                seed += 1
                nn, pp = (float(np.float32(n)), float(np.float32(p))) if f32 else (n, p)
                size = 1024 + (seed * 37) % 700
                total += _same(tsc._binomial_one_param, _scalar_one, seed, size, nn, pp, f32)
    # a count that is not whole, an infinite one: not the table's
    assert tsc._binomial_one_param(TorchStream(0), 2000, 10.5, 0.3, False) is None
    assert tsc._binomial_one_param(TorchStream(0), 2000, np.inf, 0.3, False) is None
    # through binomial: chunks of one value each, then a varying chunk
    n = np.concatenate([np.full(tsc._CHUNK + 500, 20.0), np.floor(np.arange(1500) / 10.0)])
    p = np.concatenate([np.full(tsc._CHUNK, 0.2), np.full(2000, 0.65)])
    total += _same(tsc.binomial, tsc.binomial_scalar, 3, n, p, False)
    total += _same(
        tsc.binomial, tsc.binomial_scalar, 4, np.full(5000, 10.5), np.full(5000, 0.3), True
    )
    assert total > 150000


def test_binomial_one_param_past_block(monkeypatch):
    # a block too short for its elements: the walk runs past the table, draws the rest exactly
    old = tsc._ArrayBlock.__init__

    def short(self, s, n):
        old(self, s, n // 3)

    monkeypatch.setattr(tsc._ArrayBlock, "__init__", short)
    for seed, (n, p) in enumerate([(10.0, 0.3), (200.0, 0.25), (30.0, 0.9)]):
        _same(tsc._binomial_one_param, _scalar_one, seed, 3000, n, p, bool(seed % 2))


@pytest.mark.parametrize("tol", [0.0, 1e3])
def test_btrs_log_test_from_tables_equals_scalar(monkeypatch, tol):
    # no element redone by _btrs_log_test (tol 0), every one redone (tol 1e3): the same numbers
    monkeypatch.setattr(tsc, "_LOG_TOL", tol)
    rng = np.random.default_rng(2)
    total = 0
    for seed in range(8):
        k = int(rng.integers(500, 3000))
        n = np.full(k, 100.0) if seed % 2 else np.floor(rng.random(k) * 3000)
        p = rng.random(k)
        if seed % 4 == 3:
            n, p = n.astype(np.float32).astype(np.float64), p.astype(np.float32).astype(np.float64)
        total += _same(tsc.binomial, tsc.binomial_scalar, seed, n, p, seed % 4 == 3)
    assert total > 4000


def test_binomial_one_param_is_torchs():
    minitorch.manual_seed(12)
    a = minitorch.binomial(minitorch.full((2048,), 10.0), minitorch.full((2048,), 0.3))
    b = minitorch.binomial(
        minitorch.full((3000,), 200.0, dtype=minitorch.float64),
        minitorch.full((3000,), 0.75, dtype=minitorch.float64),
    )
    assert a[:12].tolist() == [3.0, 5.0, 3.0, 3.0, 1.0, 4.0, 1.0, 2.0, 3.0, 2.0, 4.0, 4.0]
    assert b[-12:].tolist() == [
        149.0, 147.0, 144.0, 151.0, 143.0, 146.0, 145.0, 152.0, 152.0, 154.0, 157.0, 147.0,
    ]  # fmt: skip
    assert float(a.sum()) == 6159.0 and float(b.sum()) == 449452.0
    assert minitorch.rand(2, dtype=minitorch.float64).tolist() == [
        0.3011538086585298,
        0.422077841068647,
    ]
    assert tsc._binomial_one_param(TorchStream(0), 2000, 10.0, 0.3, False) is not None


@pytest.mark.parametrize(
    "k, after", [(4, 0.9486325252324131), (40, 0.0691385552620225), (2000, 0.005583857767136546)]
)
def test_binomial_tiny_probability_is_torchs(k, after):
    # log u / log1p(-p) overflows to infinity for p = 1e-310: torch's gap is infinite (C's ceil)
    minitorch.manual_seed(k)
    c = minitorch.binomial(
        minitorch.full((k,), 10.0, dtype=minitorch.float64),
        minitorch.full((k,), 1e-310, dtype=minitorch.float64),
    )
    assert c.tolist() == [0.0] * k
    assert minitorch.rand(1, dtype=minitorch.float64).tolist() == [after]
    s1, s2 = TorchStream(1), TorchStream(1)
    n, p = np.full(300, 10.0), np.where(np.arange(300) % 2, 5e-324, 0.3)
    np.testing.assert_array_equal(
        tsc.binomial(s1, n, p, False), tsc.binomial_scalar(s2, n, p, False)
    )
    np.testing.assert_array_equal(s1.words(3), s2.words(3))


def test_binomial_lean_loop_zero_uniform(monkeypatch):
    # a uniform of exactly 0 (an infinite gap; rejected BTRS try): the lean loop's block is
    # given zeros, and its draws are the scalar routine's over the same uniforms
    old = tsc._Block.__init__
    seen = []

    def zeroed(self, s, n):
        old(self, s, n)
        for t in range(0, len(self.u), 7):
            self.u[t] = 0.0
        seen.append(list(self.u))

    monkeypatch.setattr(tsc._Block, "__init__", zeroed)
    rng = np.random.default_rng(4)
    n = np.floor(rng.random(600) * 120)
    p = rng.random(600)
    got = tsc._binomial_fast(TorchStream(0), n, p, False)
    uniform, _ = tsc._reader_at(seen[0], 0)
    want = [
        tsc._binomial_one(c, q, False, uniform) for c, q in zip(n.tolist(), p.tolist(), strict=True)
    ]
    assert got.tolist() == want
    seen.clear()
    lam = rng.random(600) * 40
    got = tsc._poisson_fast(TorchStream(1), lam)
    uniform, _ = tsc._reader_at(seen[0], 0)
    assert got.tolist() == [tsc._poisson_one(x, uniform) for x in lam.tolist()]


def test_binomial_periodic_tables_equal_scalar(monkeypatch):
    # a distribution's parameters expanded over a batch: period 2..4, a size no multiple of it,
    # inversion and BTRS pairs mixed; a pair that is no table's (count 10.5) takes the lean loop
    pairs = [(10.0, 0.3), (100.0, 0.8), (1.0, 0.5), (40.0, 0.02), (1e6, 0.4), (10.5, 0.3)]
    total = 0
    for seed, per in enumerate([2, 3, 4, 3, 2]):
        sel = [pairs[(seed + j) % (5 if seed < 4 else 6)] for j in range(per)]
        size = 3001 + 17 * seed
        n = np.array([sel[j % per][0] for j in range(size)])
        p = np.array([sel[j % per][1] for j in range(size)])
        total += _same(tsc.binomial, tsc.binomial_scalar, seed, n, p, bool(seed % 2))
    assert tsc._period(np.arange(10.0) % 3, np.zeros(10)) == 3
    assert tsc._period(np.arange(10.0), np.zeros(10)) == 0
    # blocks too short: tables of the rest, rotated to the element they start at
    old = tsc._ArrayBlock.__init__

    def short(self, s, n):
        old(self, s, n // 3)

    monkeypatch.setattr(tsc._ArrayBlock, "__init__", short)
    ns, ps = [10.0, 200.0, 3.0], [0.3, 0.25, 0.9]
    size = 4000
    n = np.array([ns[j % 3] for j in range(size)])
    p = np.array([ps[j % 3] for j in range(size)])
    s1, s2 = TorchStream(5), TorchStream(5)
    got = tsc._binomial_periodic(s1, size, ns, ps, False)
    np.testing.assert_array_equal(got, tsc.binomial_scalar(s2, n, p, False))
    np.testing.assert_array_equal(s1.words(3), s2.words(3))
    assert total > 15000
