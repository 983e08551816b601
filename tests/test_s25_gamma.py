"""Session 25: torch's CPU gamma sampler without a Python loop per element (NOTE [ gamma draws
without a loop per element ] in minitorch/_backend/torch_stream_gamma.py): the speculative path
gives the scalar routine's numbers bit for bit and leaves the stream and the cached normal
where it does; torch's values (2.13, CPU) as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import torch_stream_gamma as tsg
from minitorch._backend.torch_stream import TorchStream


def _draw(fn, alpha, float32, seed, cache, skip):
    s = TorchStream(seed)
    s.words(skip)
    s.normal_double = cache
    out = fn(s, alpha, float32)
    return out, s.normal_double, s.words(5).tolist()


def _alphas(kind, n, rng):
    if kind == "half":
        return np.full(n, 0.5)
    if kind == "beta":
        return np.tile([2.0, 3.0], n)[:n]
    if kind == "mixed":
        return rng.gamma(1.0, 2.0, n)
    if kind == "small":
        return rng.random(n) * 0.05
    if kind == "huge":
        return np.exp(rng.random(n) * 60)
    a = rng.gamma(1.0, 2.0, n)  # edges sprinkled in
    edges = np.array([0.0, math.nan, math.inf, -0.5, 5e-324, 1e-45, 1e300, 1.0, 1 - 2**-40])
    at = rng.integers(0, n, min(n, 15))
    a[at] = edges[rng.integers(0, edges.size, at.size)]
    return a


@pytest.mark.parametrize("kind", ["half", "beta", "mixed", "small", "huge", "edges"])
@pytest.mark.parametrize("float32", [False, True])
def test_fast_path_equals_the_scalar_routine(kind, float32):
    rng = np.random.default_rng(len(kind) + 10 * float32)
    compared = 0
    for n, seed, cache, skip in [(1, 0, None, 0), (23, 1, 0.37, 1), (24, 2, None, 3),
                                 (25, 3, -1.5, 0), (100, 4, None, 2), (1000, 5, 2.0, 7),
                                 (20000, 6, None, 0)]:  # fmt: skip
        a = _alphas(kind, n, rng)
        with np.errstate(over="ignore"):
            a = a.astype(np.float32) if float32 else a
        fast = _draw(tsg.standard_gamma, a, float32, seed, cache, skip)
        ref = _draw(tsg.standard_gamma_scalar, a, float32, seed, cache, skip)
        np.testing.assert_array_equal(fast[0].view(np.int64), ref[0].view(np.int64))
        assert fast[1] == ref[1] or (fast[1] is None and ref[1] is None)
        assert fast[2] == ref[2]  # the stream continues at the same word
        compared += n
    assert compared == 21173


def test_fast_path_handles_a_2d_alpha_and_zeros():
    a = np.where(np.arange(600).reshape(20, 30) % 7 == 0, 0.0, 1.7)
    fast = _draw(tsg.standard_gamma, a, False, 9, None, 0)
    ref = _draw(tsg.standard_gamma_scalar, a, False, 9, None, 0)
    assert fast[0].shape == (20, 30)
    np.testing.assert_array_equal(fast[0], ref[0])
    assert (fast[0][a == 0] == 0).all()
    assert fast[1:] == ref[1:]


def test_torch_numbers_gamma_and_beta_then_rand():
    mt.manual_seed(3)
    g = mt._standard_gamma(mt.full((300,), 0.5))
    want = [0.7377498745918274, 0.24387645721435547, 0.5137790441513062, 1.6139870882034302]
    assert g[[0, 1, 137, 299]].tolist() == want
    assert float(g.double().sum()) == pytest.approx(164.2080479131364, rel=1e-12)
    beta = mt.distributions.Beta(mt.tensor(2.0, dtype=mt.float64), mt.tensor(3.0, dtype=mt.float64))
    b = beta.sample((200,))
    assert b[[0, 5, 199]].tolist() == [0.37097817447465653, 0.40146405930575213, 0.8305392931125]
    assert float(b.sum()) == pytest.approx(80.18133777611217, rel=1e-13)
    assert mt.rand(2).tolist() == [0.1966383457183838, 0.5784478783607483]


def test_explicit_generator_matches_the_default_stream():
    gen = mt.Generator().manual_seed(11)
    a = mt.full((500,), 2.5, dtype=mt.float64)
    x = mt._standard_gamma(a, generator=gen)
    mt.manual_seed(11)
    y = mt._standard_gamma(a)
    np.testing.assert_array_equal(x.numpy(), y.numpy())
    np.testing.assert_array_equal(mt.rand(3, generator=gen).numpy(), mt.rand(3).numpy())


_PERIODIC = {
    "half": [0.5],
    "two_and_a_half": [2.5],
    "tiny": [1e-3],
    "huge": [1e30],
    "one": [1.0],
    "beta": [2.0, 3.0],
    "mixed_boost": [0.3, 1.0],
    "three": [0.3, 1.0, 5.0],
    "four": [0.7, 0.2, 9.0, 1.5],
    "subnormal": [5e-324],
    "nan": [math.nan],
    "inf": [math.inf],
}


@pytest.mark.parametrize("kind", sorted(_PERIODIC))
@pytest.mark.parametrize("float32", [False, True])
def test_periodic_path_equals_the_scalar_routine(kind, float32):
    # NOTE [ gamma draws of a periodic concentration ]: constant and short-period alphas take
    # the tabled walk (or, for a subnormal, NaN or inf one, the other paths); every element,
    # the cached normal and the stream after it as the scalar routine's
    period = _PERIODIC[kind]
    compared = 0
    for n, seed, cache, skip in [(24, 0, None, 0), (25, 1, 0.37, 1), (48, 2, None, 3),
                                 (97, 3, -1.5, 0), (1000, 4, None, 2), (1001, 5, 2.0, 7),
                                 (6000, 6, None, 0), (6003, 7, 0.1, 5)]:  # fmt: skip
        a = np.tile(np.array(period, dtype=np.float64), n)[:n]
        with np.errstate(over="ignore", under="ignore"):
            a = a.astype(np.float32) if float32 else a
        fast = _draw(tsg.standard_gamma, a, float32, seed, cache, skip)
        ref = _draw(tsg.standard_gamma_scalar, a, float32, seed, cache, skip)
        np.testing.assert_array_equal(fast[0].view(np.int64), ref[0].view(np.int64))
        assert fast[1] == ref[1] or (fast[1] is None and ref[1] is None)
        assert fast[2] == ref[2]
        compared += n
    assert compared == 14198


def test_periodic_walk_grows_its_table(monkeypatch):
    # a table far too short for the walk: it grows (also inside a scalar element's draws)
    real = tsg._Table.__init__

    def short(self, s, n, consts, L):
        real(self, s, 40, consts, L)

    monkeypatch.setattr(tsg._Table, "__init__", short)
    for alpha in ([0.5], [2.0, 3.0], [0.3, 1.0, 5.0]):
        a = np.tile(alpha, 3000)[:3000]
        fast = _draw(tsg.standard_gamma, a, False, 12, None, 0)
        ref = _draw(tsg.standard_gamma_scalar, a, False, 12, None, 0)
        np.testing.assert_array_equal(fast[0], ref[0])
        assert fast[1:] == ref[1:]


def test_libm_pow_of_squares():
    # e == 2 by the rounded square where libm's pow must agree, math.pow where in doubt
    base = 1.0 - np.random.default_rng(0).random(20000)
    got = tsg._pow_libm(base, np.full(base.size, 2.0))
    want = np.array([math.pow(b, 2.0) for b in base.tolist()])
    np.testing.assert_array_equal(got, want)
