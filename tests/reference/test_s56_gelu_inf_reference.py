"""Session 56, lead: gelu at the infinities against torch's formula path (0-d and strided tensors,
float64 and half, which every host's torch computes as x Phi(x)): +inf gives inf, -inf NaN, and
the derivative is NaN at both (tests/test_s56_gelu_inf.py)."""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _run(lib, x, dtype):
    t = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
    src = t[::2] if t.dim() else t  # strided: ATen's formula, not oneDNN's contiguous kernel
    y = lib.nn.functional.gelu(src)
    (g,) = lib.autograd.grad(y.sum(), t)
    return y.detach().float().numpy(), g.float().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("x", [INF, -INF, NAN, [INF, 0.0, -INF, 0.0, NAN, 0.0, 2.0, 0.0]])
def test_gelu_infinities_match_torch(dtype, x):
    want = _run(torch, x, dtype)
    got = _run(minitorch, x, dtype)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=2e-3, equal_nan=True)
        np.testing.assert_array_equal(np.isinf(g), np.isinf(w))
