"""Optimizer steps whose updates go through NumPy's BLAS (NOTE [ axpy through NumPy's BLAS ])
give torch's moments and SGD's parameters bit for bit, with and without the BLAS path."""

import numpy as np
import pytest

import minitorch
from minitorch._backend import host_blas

torch = pytest.importorskip("torch")

# 4,160 and 130 elements: a BLAS body and a NumPy tail; 5,000 float64: the same
SHAPES = [(64, 65), (130,)]


def trajectory(lib, opt_name, kwargs, dtype, steps=5):
    rng = np.random.default_rng(7)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True) for s in SHAPES]
    opt = getattr(lib.optim, opt_name)(params, **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = lib.tensor(rng.standard_normal(p.shape).astype(dtype))
        opt.step()
    buffers = [
        opt.state[p][k].numpy().copy()
        for p in params
        for k in ("momentum_buffer", "exp_avg", "exp_avg_sq")
        if opt.state[p].get(k) is not None
    ]
    return [p.detach().numpy().copy() for p in params], buffers


CASES = [
    ("SGD", {"lr": 0.013}),
    ("SGD", {"lr": 0.013, "momentum": 0.9, "dampening": 0.1}),
    ("SGD", {"lr": 0.013, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-2}),
    ("Adam", {"lr": 1e-3}),
    ("AdamW", {"lr": 1e-3, "weight_decay": 0.05}),
]


# state buffers per parameter: momentum_buffer (SGD with momentum), exp_avg and exp_avg_sq
BUFFERS = {("SGD", False): 0, ("SGD", True): 1, ("Adam", False): 2, ("AdamW", False): 2}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("blas", [True, False])
@pytest.mark.parametrize("opt_name, kwargs", CASES)
def test_optimizer_steps_match_torch_bit_for_bit(opt_name, kwargs, dtype, blas, monkeypatch):
    if not blas:
        monkeypatch.setattr(host_blas, "_kernels", {})
    ours, our_buffers = trajectory(minitorch, opt_name, kwargs, dtype)
    theirs, their_buffers = trajectory(torch, opt_name, kwargs, dtype)
    assert len(our_buffers) == len(their_buffers) == BUFFERS[opt_name, "momentum" in kwargs] * 2
    for a, b in zip(our_buffers, their_buffers, strict=True):
        np.testing.assert_array_equal(a, b)  # lerp_ / add_(alpha=) / addcmul_: rounded once
    for a, b in zip(ours, theirs, strict=True):
        if opt_name == "SGD":
            np.testing.assert_array_equal(a, b)
        else:  # torch's CPU sqrt is not correctly rounded (an ulp off NumPy's in ~1% of
            # elements), and Adam divides by it
            np.testing.assert_allclose(a, b, rtol=1e-6 if dtype == np.float32 else 1e-14)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weight", [0.1, 0.45, 0.5, 0.9])
def test_lerp_and_add_with_alpha_match_torch(dtype, weight):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((70, 70)).astype(dtype) for _ in range(2))
    ma, mb = minitorch.tensor(a), minitorch.tensor(b)
    ta, tb = torch.tensor(a), torch.tensor(b)
    pairs = [
        (minitorch.lerp(ma, mb, weight), torch.lerp(ta, tb, weight)),
        (ma.clone().lerp_(mb, weight), ta.clone().lerp_(tb, weight)),
        (minitorch.add(ma, mb, alpha=weight), torch.add(ta, tb, alpha=weight)),
        (minitorch.sub(ma, mb, alpha=weight), torch.sub(ta, tb, alpha=weight)),
        (ma.clone().add_(mb, alpha=-weight), ta.clone().add_(tb, alpha=-weight)),
    ]
    for ours, theirs in pairs:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
