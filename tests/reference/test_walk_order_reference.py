"""The backward walk's order against torch's on random graphs (NOTE [ Walk order ]): the order
the tensors' hooks fire and the bits of gradients that sum several contributions."""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _program(lib, seed):
    """A random graph of exact float32 ops (+, -, *) over four leaves, with a hook on every
    tensor; returns the hook log and the leaves' gradients."""
    rng = np.random.default_rng(seed)
    log = []
    ts = []
    for i in range(4):
        t = lib.tensor(rng.standard_normal(64).astype(np.float32) * 10.0 ** (i - 1))
        t.requires_grad_(True)
        ts.append(t)
    leaves = list(ts)
    for _ in range(14):
        a, b = (ts[j] for j in rng.integers(len(ts), size=2))
        op = rng.integers(3)
        ts.append(a * b if op == 0 else a + b if op == 1 else a - b)
    for k, t in enumerate(ts):
        t.register_hook(lambda g, k=k: log.append(k))
    total = ts[-1].sum()
    for j in rng.permutation(len(ts) - 1)[:5]:
        total = total + ts[j].sum()
    total.backward()
    return log, [t.grad.numpy() if t.grad is not None else None for t in leaves]


@pytest.mark.parametrize("seed", range(12))
def test_hook_order_and_gradient_bits_match_torch(seed):
    ours_log, ours = _program(minitorch, seed)
    ref_log, ref = _program(torch, seed)
    assert ours_log == ref_log
    for g, r in zip(ours, ref, strict=True):
        if r is None:
            assert g is None
        else:
            np.testing.assert_array_equal(g, r)
