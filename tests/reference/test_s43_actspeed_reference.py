"""Session 43 (actspeed): the activations whose kernels lost passes still match torch, forward
and backward (the data-level path), on big-enough arrays to take the new code."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as MF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [
    ("elu", lambda F, x, w: F.elu(x)),
    ("elu_alpha", lambda F, x, w: F.elu(x, 0.5)),
    ("selu", lambda F, x, w: F.selu(x)),
    ("celu", lambda F, x, w: F.celu(x, 1.5)),
    ("softplus", lambda F, x, w: F.softplus(x)),
    ("softplus_beta", lambda F, x, w: F.softplus(x, 2.0, 5.0)),
    ("hardsigmoid", lambda F, x, w: F.hardsigmoid(x)),
    ("leaky_relu", lambda F, x, w: F.leaky_relu(x, 0.1)),
    ("prelu", lambda F, x, w: F.prelu(x, w)),
    ("gelu_tanh", lambda F, x, w: F.gelu(x, approximate="tanh")),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, dtype):
    rng = np.random.default_rng(43)
    a = (rng.standard_normal((8, 16, 40)) * 4).astype(dtype)
    a[0, 0, :4] = [0.0, -0.0, 30.0, -30.0]
    g = rng.standard_normal(a.shape).astype(dtype)
    w = np.array([0.25 + 0.04 * i for i in range(16)], dtype)  # per channel, inside (0, 1]
    results = []
    for lib, F in ((mt, MF), (torch, TF)):
        x = lib.tensor(a.copy(), requires_grad=True)
        out = fn(F, x, lib.tensor(w.copy()))
        out.backward(lib.tensor(g.copy()))
        results.append((out.detach().numpy(), x.grad.numpy()))
    tol = {"float32": 2e-6, "float64": 1e-12}[dtype]
    if name == "gelu_tanh" and dtype == "float32":
        tol = 1e-5  # torch's fused backward rounds otherwise (as before session 43: same bits)
    for mine, theirs, what in zip(results[0], results[1], ("forward", "backward"), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol, err_msg=f"{name} {what}")
