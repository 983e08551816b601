"""Session 50, lead, against torch: the order hooks fire in and the gradients of a backward that
the data walk runs (NOTE [ The data walk ]) or hands part-way to the general loop, and what a
backward that fails part-way leaves in .grad."""

import random

import numpy as np
import pytest

import minitorch
from tests.test_s50_lead import grow_dag

torch = pytest.importorskip("torch")


def _program(lib, seed, hooked):
    """A random DAG of common ops over four leaves; `hooked` names the tensors given hooks (by
    position among the tensors made). Returns the hooks' record and the leaves' gradients."""
    rng = random.Random(seed)
    values = np.random.default_rng(seed).standard_normal((4, 3, 4))
    leaves = [lib.tensor(v, requires_grad=True) for v in values[:3]]
    leaves.append(lib.tensor(values[3, 0], requires_grad=True))
    made = list(leaves)
    grow_dag(rng, made, 10, ("add", "mul", "sub", "tanh", "exp"))
    record = []
    for i in hooked:
        t = made[i]
        t.register_hook(lambda g, i=i: record.append(("hook", i, round(float(g.sum()), 9))))
        if t.is_leaf:
            t.register_post_accumulate_grad_hook(lambda p, i=i: record.append(("post", i)))
    loss = sum(t.sum() for t in rng.sample(made[len(leaves) :], 4))
    loss.backward()
    return record, [None if p.grad is None else p.grad.numpy() for p in leaves]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("hooked", [(), (0, 2), (1, 6), (3, 5, 9, 12)])
def test_hooks_and_gradients_match_torch(seed, hooked):
    want_record, want = _program(torch, seed, hooked)
    got_record, got = _program(minitorch, seed, hooked)
    assert got_record == want_record
    for g, w in zip(got, want, strict=True):
        if w is None:
            assert g is None
        else:  # (the ops' formulas may differ from torch's in the last bit)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)


def _failing(lib):
    values = np.random.default_rng(3).standard_normal((6, 3))
    x = lib.tensor(values[:4])
    w = lib.tensor(values[3:], requires_grad=True)
    h1 = lib.tensor(values[4], requires_grad=True)
    h2 = lib.tensor(values[5], requires_grad=True)
    z = (x @ w).tanh()
    (z * h1).sum().backward()
    try:
        ((z * h2).sum() + (h1 * h2).sum()).backward()
    except RuntimeError as e:
        err = "second time" in str(e)
    return err, [None if p.grad is None else p.grad.numpy() for p in (w, h1, h2)]


def test_a_failing_backward_leaves_torchs_gradients():
    (want_err, want), (got_err, got) = _failing(torch), _failing(minitorch)
    assert want_err and got_err
    assert want[2] is not None  # h2's gradient was complete before the trunk's node failed
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)
