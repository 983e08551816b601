"""The backward walk runs ready nodes in torch's order (NOTE [ Walk order ]): accumulators first,
then the node recorded last; the orders below are what torch 2.13 prints for the same programs."""

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F


def _leaf(log, name, *size):
    p = minitorch.ones(*size, requires_grad=True)
    p.register_hook(lambda g: log.append(name))
    return p


def test_mlp_parameter_hooks_fire_in_torch_order():
    log = []
    w1, b1 = _leaf(log, "w1", 4, 3), _leaf(log, "b1", 4)
    w2, b2 = _leaf(log, "w2", 2, 4), _leaf(log, "b2", 2)
    h = F.linear(minitorch.ones(5, 3), w1, b1).relu()
    F.linear(h, w2, b2).sum().backward()
    assert log == ["b2", "w2", "b1", "w1"]


def test_shared_leaves_and_non_leaf_hooks():
    log = []
    a, b, c = _leaf(log, "a", 3), _leaf(log, "b", 3), _leaf(log, "c", 3)
    (a * b + b * c + c * a + a.exp()).sum().backward()
    assert log == ["c", "a", "b"]
    log.clear()
    x = _leaf(log, "x", 3)
    u, v, w = x * 2, x * 3, x + 1
    for t, name in ((u, "u"), (v, "v"), (w, "w")):
        t.register_hook(lambda g, name=name: log.append(name))
    (u * v + w).sum().backward()
    assert log == ["w", "v", "u", "x"]


class _Five(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx, *xs):
        return xs[0] + xs[1] + xs[2] + xs[3] + xs[4]

    @staticmethod
    def backward(ctx, g):
        return (g,) * 5


@pytest.mark.parametrize(
    "pending, order",
    [
        (0, ["l0", "l2", "l4", "l1", "l3"]),
        (1, ["l0", "l1", "l4", "l3", "l2", "x"]),
        (2, ["l0", "l3", "l4", "l1", "l2", "x"]),
        (3, ["l0", "l2", "l3", "l1", "l4", "x"]),
        (6, ["l0", "l1", "l3", "l4", "l2", "x"]),
    ],
)
def test_accumulators_that_tie_leave_the_heap_as_in_torch(pending, order):
    # Five accumulators become ready at once, over `pending` other ready nodes: their order is
    # the binary heap's, which heapq shares with torch's C++ heap.
    log = []
    x = _leaf(log, "x", 2)
    branches = [(x * (k + 2)).sin().sum() for k in range(pending)]
    leaves = [_leaf(log, f"l{i}", 2) for i in range(5)]
    total = _Five.apply(*leaves).sum()
    for b in branches:
        total = total + b
    log.clear()
    total.backward()
    assert log == order


def test_three_contributions_sum_in_torch_order():
    # x's gradient has three parts, reached newest first (exp, x * b, x * c), though the adds
    # list x * c first: the buffer sums them in that order, which decides float32's last bits.
    rng = np.random.default_rng(3)
    vx, vb, vc = (rng.standard_normal(4000).astype(np.float32) * s for s in (1.0, 1e-3, 3e3))
    x = minitorch.tensor(vx, requires_grad=True)
    s = x * minitorch.tensor(vc)
    u = x * minitorch.tensor(vb)
    v = x.exp()
    ((v + u) + s).sum().backward()
    e = x.exp().detach().numpy()
    expected = (e + vb) + vc
    assert not np.array_equal(expected, (vc + vb) + e)  # the data tells the orders apart
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_sequence_numbers_follow_recording_order():
    x = minitorch.ones(2, requires_grad=True)
    y = x * 2
    z = y.exp()
    acc = y.grad_fn.next_functions[0][0]
    assert z.grad_fn._sequence_nr() == y.grad_fn._sequence_nr() + 1
    assert acc._sequence_nr() == 2**64 - 1
    with pytest.raises(TypeError):
        _ = y.grad_fn < z.grad_fn
