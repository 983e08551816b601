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
