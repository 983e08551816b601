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
