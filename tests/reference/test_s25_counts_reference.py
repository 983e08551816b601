"""Session 25 (counts): torch.poisson / torch.binomial on inputs large enough for the fast path
(NOTE [ count draws from a block of uniforms ]) against torch, element by element, and the
stream after each call (a following rand)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _rates(rng, k):
    lam = rng.random(k) * 30
    lam[rng.random(k) < 0.2] = 0.0
    lam[:8] = [0.0, 1e-300, 1e-3, 9.999999999999998, 10.0, 1e5, 1e7, 0.5]
    return lam


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_matches_torch(dtype):
    rng = np.random.default_rng(0)
    for seed in range(6):
        lam = _rates(rng, 2000 + seed)
        torch.manual_seed(seed)
        minitorch.manual_seed(seed)
        a = torch.poisson(torch.tensor(lam, dtype=getattr(torch, dtype)))
        b = minitorch.poisson(minitorch.tensor(lam, dtype=getattr(minitorch, dtype)))
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        np.testing.assert_array_equal(
            minitorch.rand(3, dtype=minitorch.float64).numpy(),
            torch.rand(3, dtype=torch.float64).numpy(),
        )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_matches_torch(dtype):
    rng = np.random.default_rng(1)
    for seed in range(6):
        k = 2000 + seed
        n = np.floor(rng.random(k) * 300)
        p = rng.random(k)
        n[:8] = [0.0, -2.0, 5.0, 11.0, 1e6, 40.0, 1000.0, 7.0]
        p[:8] = [0.5, 0.5, 0.0, 0.91, 0.3, 1.0, 0.02, 0.5000001]
        torch.manual_seed(seed)
        minitorch.manual_seed(seed)
        tdt, mdt = getattr(torch, dtype), getattr(minitorch, dtype)
        a = torch.binomial(torch.tensor(n, dtype=tdt), torch.tensor(p, dtype=tdt))
        b = minitorch.binomial(minitorch.tensor(n, dtype=mdt), minitorch.tensor(p, dtype=mdt))
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        np.testing.assert_array_equal(
            minitorch.rand(3, dtype=minitorch.float64).numpy(),
            torch.rand(3, dtype=torch.float64).numpy(),
        )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("lam", [1e-3, 0.5, 3.0, 10.0, 50.0, 2.5e4])
def test_poisson_one_rate_matches_torch(dtype, lam):
    # NOTE [ count draws of one rate by a table of next slots ], past one chunk
    for seed in range(2):
        torch.manual_seed(seed)
        minitorch.manual_seed(seed)
        shape = (70000,) if seed else (3, 1, 40, 40)
        a = torch.poisson(torch.full(shape, lam, dtype=getattr(torch, dtype)))
        b = minitorch.poisson(minitorch.full(shape, lam, dtype=getattr(minitorch, dtype)))
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        np.testing.assert_array_equal(
            minitorch.rand(3, dtype=minitorch.float64).numpy(),
            torch.rand(3, dtype=torch.float64).numpy(),
        )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "n, p", [(10.0, 0.3), (1.0, 0.5), (100.0, 0.5), (40.0, 0.97), (1e6, 3e-6), (5.0, 1e-310)]
)
def test_binomial_one_param_matches_torch(dtype, n, p):
    # session 26: NOTE [ binomial draws of one count and probability by a table of next slots ]
    for seed in range(2):
        torch.manual_seed(seed)
        minitorch.manual_seed(seed)
        shape = (70000,) if seed else (3, 1, 40, 40)
        tdt, mdt = getattr(torch, dtype), getattr(minitorch, dtype)
        a = torch.binomial(torch.full(shape, n, dtype=tdt), torch.full(shape, p, dtype=tdt))
        b = minitorch.binomial(
            minitorch.full(shape, n, dtype=mdt), minitorch.full(shape, p, dtype=mdt)
        )
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        np.testing.assert_array_equal(
            minitorch.rand(3, dtype=minitorch.float64).numpy(),
            torch.rand(3, dtype=torch.float64).numpy(),
        )


def test_binomial_varying_many_elements_matches_torch():
    # session 26: NOTE [ BTRS's log test from tables ], the typical Binomial(total_count, probs)
    rng = np.random.default_rng(3)
    for seed, n in enumerate([np.full(30000, 100.0), rng.integers(1, 50, 30000).astype(float)]):
        p = rng.random(n.size)
        torch.manual_seed(seed)
        minitorch.manual_seed(seed)
        a = torch.distributions.Binomial(torch.tensor(n), probs=torch.tensor(p)).sample()
        mb = minitorch.distributions.Binomial(minitorch.tensor(n), probs=minitorch.tensor(p))
        b = mb.sample()
        np.testing.assert_array_equal(b.numpy(), a.numpy())
        np.testing.assert_array_equal(
            minitorch.rand(3, dtype=minitorch.float64).numpy(),
            torch.rand(3, dtype=torch.float64).numpy(),
        )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial_periodic_matches_torch(dtype):
    # session 26: a distribution's parameters expanded over a batch (a table per pair)
    for seed, (count, probs) in enumerate([(100.0, [0.2, 0.5, 0.7]), ([10.0, 60.0], [0.3, 0.9])]):
        torch.manual_seed(seed)
        minitorch.manual_seed(seed)
        tdt, mdt = getattr(torch, dtype), getattr(minitorch, dtype)
        td = torch.distributions.Binomial(
            torch.tensor(count, dtype=tdt), probs=torch.tensor(probs, dtype=tdt)
        )
        md = minitorch.distributions.Binomial(
            minitorch.tensor(count, dtype=mdt), probs=minitorch.tensor(probs, dtype=mdt)
        )
        np.testing.assert_array_equal(md.sample((20001,)).numpy(), td.sample((20001,)).numpy())
        np.testing.assert_array_equal(
            minitorch.rand(3, dtype=minitorch.float64).numpy(),
            torch.rand(3, dtype=torch.float64).numpy(),
        )
