"""Half-precision activations against torch bit for bit (tests/ops/test_half_activations.py has
the rules without torch): forward values of each activation, and the gradients of those whose
backward torch runs as one kernel."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

X = np.random.default_rng(0).uniform(-6, 6, 4096).astype(np.float32)
G = np.random.default_rng(1).uniform(-2, 2, 4096).astype(np.float32)

# name -> (function of a library, whether the gradient matches bit for bit too)
CASES = {
    "silu": (lambda L, t: L.nn.functional.silu(t), True),
    "leaky_relu": (lambda L, t: L.nn.functional.leaky_relu(t), True),
    "hardswish": (lambda L, t: L.nn.functional.hardswish(t), True),
    "hardsigmoid": (lambda L, t: L.nn.functional.hardsigmoid(t), True),
    "softplus": (lambda L, t: L.nn.functional.softplus(t), True),
    "selu": (lambda L, t: L.nn.functional.selu(t), True),
    "elu": (lambda L, t: L.nn.functional.elu(t, 0.7), True),
    "celu": (lambda L, t: L.nn.functional.celu(t), True),
    "logsigmoid": (lambda L, t: L.nn.functional.logsigmoid(t), True),
    # (glu halves its input: fed t and a reversed copy; torch rounds sigmoid first in backward)
    "glu": (lambda L, t: L.nn.functional.glu(L.cat([t, t.flip(0)])), False),
    "tanh": (lambda L, t: L.tanh(t), True),
    "sigmoid": (lambda L, t: L.sigmoid(t), True),
    "rsqrt": (lambda L, t: L.rsqrt(t.abs()), False),  # torch's backward: several half ops
    "mish": (lambda L, t: L.nn.functional.mish(t), False),  # 1-2 of 4096 gradients differ
}


def _run(L, name, dtype):
    x = L.tensor(X).to(getattr(L, dtype)).requires_grad_()
    y = CASES[name][0](L, x)
    y.backward(L.tensor(G).to(getattr(L, dtype)))
    return y.detach().float().numpy(), x.grad.float().numpy()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_half_activation_bits_match_torch(name, dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    (ym, gm), (yt, gt) = _run(mt, name, dtype), _run(torch, name, dtype)
    assert np.array_equal(ym, yt, equal_nan=True)
    if CASES[name][1]:
        assert np.array_equal(gm, gt, equal_nan=True)
