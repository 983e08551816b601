"""Session 25: the speculative gamma sampler against torch itself, many seeds and shapes
(NOTE [ gamma draws without a loop per element ])."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _prog(lib, seed, shape, dtype, alpha_kind):
    lib.manual_seed(seed)
    dt = getattr(lib, dtype)
    lib.randn(3, dtype=lib.float64)  # leaves a cached normal
    if alpha_kind == "const":
        a = lib.full(shape, 0.7, dtype=dt)
    else:
        a = lib.rand(shape, dtype=dt) * 4
    out = [lib._standard_gamma(a).numpy()]
    out.append(lib.distributions.Beta(lib.tensor(2.0), lib.tensor(3.0)).sample(shape).numpy())
    conc = lib.tensor([0.3, 1.0, 5.0], dtype=dt)
    out.append(lib.distributions.Dirichlet(conc).sample(shape).numpy())
    out.append(lib.distributions.StudentT(lib.full(shape, 4.0)).sample().numpy())
    out.append(lib.rand(4).numpy())
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(7,), (40,), (33, 17), (5000,)])
def test_gamma_family_samples_are_torchs(seed, shape):
    for dtype in ("float32", "float64"):
        for kind in ("const", "rand"):
            want = _prog(torch, seed, shape, dtype, kind)
            got = _prog(mt, seed, shape, dtype, kind)
            for w, g in zip(want, got, strict=True):
                np.testing.assert_array_equal(g, w)


def _prog_periodic(lib, seed, n, dtype):
    # NOTE [ gamma draws of a periodic concentration ]: constant and short-period alphas
    lib.manual_seed(seed)
    dt = getattr(lib, dtype)
    out = [lib._standard_gamma(lib.full((n,), 0.5, dtype=dt)).numpy()]
    lib.randn(1, dtype=lib.float64)  # a cached normal for the next call
    out.append(lib.distributions.Beta(lib.tensor(2.0), lib.tensor(3.0)).sample((n,)).numpy())
    for conc in ([0.3, 1.0], [0.3, 1.0, 5.0], [0.7, 0.2, 9.0, 1.5]):
        c = lib.tensor(conc, dtype=dt)
        out.append(lib.distributions.Dirichlet(c).sample((n // len(conc),)).numpy())
    out.append(lib.distributions.Chi2(lib.full((n,), 1.0, dtype=dt)).sample().numpy())
    out.append(lib.distributions.Gamma(lib.full((n,), 1e-3, dtype=dt), 1.0).sample().numpy())
    out.append(lib.rand(4).numpy())
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [24, 1000, 30000])
def test_periodic_gamma_samples_are_torchs(seed, n):
    for dtype in ("float32", "float64"):
        want = _prog_periodic(torch, seed, n, dtype)
        got = _prog_periodic(mt, seed, n, dtype)
        for w, g in zip(want, got, strict=True):
            np.testing.assert_array_equal(g, w)
