"""Session 51, lead, against torch: autograd.grad of leaves on the data walk (NOTE [ autograd.
grad's data walk ]): its gradients on random graphs, what the nodes it passes by keep, and which
hooks fire on roots that reach no input."""

import random

import numpy as np
import pytest

import minitorch
from tests.test_s50_lead import grow_dag

torch = pytest.importorskip("torch")


def _program(lib, seed, pick, how="grad"):
    """A random DAG of common ops over five leaves (the first read by no op); autograd.grad of
    a scalar of it w.r.t. the leaves `pick` names (how="backward": backward(inputs=) of them,
    and every leaf's .grad)."""
    rng = random.Random(seed)
    values = np.random.default_rng(seed).standard_normal((5, 3, 4))
    leaves = [lib.tensor(v, requires_grad=True) for v in values]
    made = leaves[1:] + [lib.tensor(values[0] * 0.5)]
    grow_dag(rng, made, 12, ("add", "mul", "sub", "tanh", "exp"))
    outs = [t for t in made[4:] if t.requires_grad]
    loss = sum(t.sum() for t in rng.sample(outs, min(3, len(outs))))
    if how == "backward":
        loss.backward(inputs=[leaves[i] for i in pick])
        return [None if leaf.grad is None else leaf.grad.numpy() for leaf in leaves]
    got = lib.autograd.grad(loss, [leaves[i] for i in pick], allow_unused=True)
    assert all(leaf.grad is None for leaf in leaves)
    return [None if g is None else g.detach().numpy() for g in got]


@pytest.mark.parametrize("seed", range(10))
def test_grad_of_leaves_matches_torch(seed):
    pick = random.Random(seed).sample(range(5), 1 + seed % 5)
    want = _program(torch, seed, pick)
    got = _program(minitorch, seed, pick)
    for i, g, w in zip(pick, got, want, strict=True):
        assert (g is None) == (w is None), (i, g, w)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=f"leaf {i}")


@pytest.mark.parametrize("seed", range(6))
def test_backward_with_leaf_inputs_matches_torch(seed):
    pick = random.Random(seed).sample(range(1, 5), 1 + seed % 4)  # (leaf 0 is never used)
    want = _program(torch, seed, pick, "backward")
    got = _program(minitorch, seed, pick, "backward")
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert (g is None) == (w is None), (i, g, w)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=f"leaf {i}")


def _passed_by(lib):
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.5, 0.25, -0.5], dtype=lib.float64, requires_grad=True)
    b = w.exp()
    y = (x * 2) * b
    (gx,) = lib.autograd.grad(y.sum(), x)
    b.sum().backward()  # exp did not run: what it saved is still there
    try:
        y.sum().backward()
        again = "ran"
    except RuntimeError as e:
        again = "second time" in str(e)
    return gx.detach().numpy(), w.grad.numpy(), again


def test_nodes_passed_by_keep_what_they_saved_as_in_torch():
    got, want = _passed_by(minitorch), _passed_by(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    assert got[2] == want[2] is True


def _root_hooks(lib, lone):
    x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.5, 0.25], dtype=lib.float64, requires_grad=True)
    z = w * 3
    fired = []
    z.register_hook(lambda g: fired.append(g.tolist()))
    ones = lib.ones(2, dtype=lib.float64)
    if lone:
        (g,) = lib.autograd.grad(z, x, ones, allow_unused=True)
    else:
        (g,) = lib.autograd.grad([(x * w.exp()).sum(), z], x, [None, ones])
    return fired, None if g is None else g.detach().numpy()


@pytest.mark.parametrize("lone", [True, False])
def test_hooks_of_roots_that_reach_no_input_fire_as_in_torch(lone):
    got, want = _root_hooks(minitorch, lone), _root_hooks(torch, lone)
    assert got[0] == want[0]
    assert (got[1] is None) == (want[1] is None)
    if got[1] is not None:
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
