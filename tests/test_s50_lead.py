"""Session 50, lead: the common backward walks its graph without counting each node's incoming
edges first (NOTE [ The data walk ] in minitorch/autograd/engine.py): the nodes run in the order
the counting walk gives, the leaves get the same gradients, a node the walk does not run hands
the rest of the graph to the general loop, and a backward that fails part-way leaves the
gradients of the leaves no remaining node feeds, as torch's engine does."""

import heapq
import random

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import engine
from minitorch.autograd.function import AccumulateGrad


def grow_dag(rng, made, steps, ops=("add", "mul", "sub", "tanh", "sigmoid", "exp")):
    """Appends `steps` tensors to `made`, each a random op of `ops` on tensors drawn from every
    tensor made so far (so many feed several others); any library's tensors."""
    for _ in range(steps):
        a, b = rng.choice(made), rng.choice(made)
        op = rng.choice(ops)
        if op == "add":
            t = a + b
        elif op == "mul":
            t = a * b
        elif op == "sub":
            t = a - b
        elif op == "tanh":
            t = a.tanh()
        elif op == "sigmoid":
            t = a.sigmoid()
        else:
            t = (a * 0.1).exp()
        made.append(t)
    return made


def _random_graph(seed):
    """Leaves and a scalar loss over a random DAG of common ops whose operands are drawn from
    every tensor made so far (so many nodes feed several others)."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    leaves = [torch.randn(3, 4, dtype=torch.float64, requires_grad=True) for _ in range(3)]
    leaves.append(torch.randn(4, dtype=torch.float64, requires_grad=True))  # broadcast
    made = list(leaves)
    grow_dag(rng, made, 12)
    loss = sum(t.sum() for t in rng.sample(made[len(leaves) :], 4))
    return leaves, loss


def _counting_order(root):
    """The nodes (not accumulators) in the order the counting walk runs them: a node becomes
    ready when every node feeding it has run; the newest ready node runs first."""
    deps = {root: 0}
    stack = [root]
    while stack:
        for e in stack.pop()._next:
            if e is not None:
                if e[0] in deps:
                    deps[e[0]] += 1
                else:
                    deps[e[0]] = 1
                    stack.append(e[0])
    ready, order = [(root._prio, id(root), root)], []
    while ready:
        node = heapq.heappop(ready)[2]
        if node.__class__ is not AccumulateGrad:
            order.append(node)
        for e in node._next:
            if e is not None:
                deps[e[0]] -= 1
                if deps[e[0]] == 0:
                    heapq.heappush(ready, (e[0]._prio, id(e[0]), e[0]))
    return order


def _recording(monkeypatch, root, ran):
    """Patches the data-level backward of every node class under root to note the nodes run."""
    classes, stack, seen = set(), [root], {root}
    while stack:
        node = stack.pop()
        if node.__class__ is not AccumulateGrad:
            classes.add(type(node))
        for e in node._next:
            if e is not None and e[0] not in seen:
                seen.add(e[0])
                stack.append(e[0])
    for cls in classes:
        original = cls._data_bw

        def noted(ctx, *grads, _original=original):
            ran.append(ctx)
            return _original(ctx, *grads)

        monkeypatch.setattr(cls, "_data_bw", noted)


@pytest.mark.parametrize("seed", range(6))
def test_the_data_walk_runs_the_nodes_in_the_counting_walks_order(monkeypatch, seed):
    leaves, loss = _random_graph(seed)
    want = _counting_order(loss.grad_fn)
    ran = []
    _recording(monkeypatch, loss.grad_fn, ran)
    counted = []
    monkeypatch.setattr(engine, "_dependencies", lambda roots: counted.append(1) or {})
    loss.backward(retain_graph=True)
    assert counted == [], "the data walk counted edges"
    assert ran == want
    assert len(ran) > 12


@pytest.mark.parametrize("seed", range(6))
def test_the_data_walk_gives_the_tensor_formulas_gradients(monkeypatch, seed):
    leaves, loss = _random_graph(seed)
    loss.backward(retain_graph=True)
    got = [None if p.grad is None else p.grad.numpy().copy() for p in leaves]
    for p in leaves:
        p.grad = None
    monkeypatch.setattr(engine, "DATA_BACKWARD", False)  # the general loop, Tensor formulas
    loss.backward()
    assert sum(g is not None for g in got) >= 3
    for g, p in zip(got, leaves, strict=True):
        if g is None:
            assert p.grad is None
        else:
            np.testing.assert_array_equal(g, p.grad.numpy())


def test_a_node_the_data_walk_does_not_run_hands_the_rest_to_the_general_loop(monkeypatch):
    class Twice(torch.autograd.Function):  # a custom Function: no data-level backward
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            order.append("Twice")
            return g * 2

    order = []
    torch.manual_seed(0)
    w, b, v = (torch.randn(3, dtype=torch.float64, requires_grad=True) for _ in range(3))
    h = (w * v).tanh()
    loss = (Twice.apply(h + b) * v).sum() + (v * 3).sum()
    w.register_hook(lambda g: order.append("w"))
    counted = []
    real = engine._dependencies
    monkeypatch.setattr(engine, "_dependencies", lambda r: counted.append(len(r)) or real(r))
    loss.backward()
    assert len(counted) == 1  # the edges left were counted once, where the walk stopped
    assert order == ["Twice", "w"]
    tv = np.tanh(w.detach().numpy() * v.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), 2 * (1 - tv**2) * v.detach().numpy() ** 2)
    np.testing.assert_allclose(b.grad.numpy(), 2 * v.detach().numpy())
    vw = v.detach().numpy()
    want_v = 2 * (tv + b.detach().numpy()) + 3 + 2 * vw * (1 - tv**2) * w.detach().numpy()
    np.testing.assert_allclose(v.grad.numpy(), want_v)


def test_a_leaf_with_hooks_runs_where_torch_runs_it():
    torch.manual_seed(1)
    a = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    order = []
    b.register_hook(lambda g: order.append(("b", a.grad is None)))
    a.register_post_accumulate_grad_hook(lambda p: order.append(("a", b.grad is None)))
    ((a * b).exp().sum() + (b * 2).sum()).backward()
    # a's accumulator is ready first (b's waits for b * 2's node); each runs as soon as its
    # gradient is complete, as in torch (tests/reference/test_s50_lead_reference.py)
    assert order == [("a", True), ("b", False)]
    ea = np.exp(a.detach().numpy() * b.detach().numpy())
    np.testing.assert_allclose(a.grad.numpy(), ea * b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), (ea * a.detach().numpy()).sum(0) + 2)


def test_a_hooked_leaf_accumulates_before_older_nodes_run(monkeypatch):
    # a's gradient is complete after the two newest nodes: torch accumulates it (and runs its
    # hook) before the older exp node runs; the walk must not defer such a leaf to its end
    torch.manual_seed(4)
    a = torch.randn(3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    t = b.exp()
    loss = (t * 3).sum() + (a * 2).sum()
    order = []
    exp_cls = type(t.grad_fn)
    original = exp_cls._data_bw
    monkeypatch.setattr(exp_cls, "_data_bw", lambda ctx, g: order.append("exp") or original(ctx, g))
    a.register_post_accumulate_grad_hook(lambda p: order.append("a"))
    loss.backward()
    assert order == ["a", "exp"]
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 2.0))
    np.testing.assert_allclose(b.grad.numpy(), 3 * np.exp(b.detach().numpy()))


def test_a_failing_backward_keeps_the_gradients_of_the_leaves_it_had_finished():
    torch.manual_seed(2)
    x = torch.randn(4, 3, dtype=torch.float64)
    w = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
    h1, h2 = (torch.randn(3, dtype=torch.float64, requires_grad=True) for _ in range(2))
    z = (x @ w).tanh()  # the shared trunk
    (z * h1).sum().backward()  # frees the trunk's saved values
    w_grad = w.grad.clone()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        (z * h2).sum().backward()
    # h2's accumulator ran before the trunk's node failed; w's never did
    np.testing.assert_allclose(h2.grad.numpy(), z.detach().numpy().sum(0))
    np.testing.assert_array_equal(w.grad.numpy(), w_grad.numpy())


def test_will_execute_counts_the_graph_when_asked():
    class Probe(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            asked.append((ctx.needs_input_grad, ctx._next[0][0] is not None))
            task = torch.autograd.grad_mode.state.graph_task
            asked.append(task.will_execute(ctx._next[0][0]))
            return g, g

    asked = []
    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    Probe.apply(x.exp(), y).sum().backward()
    assert asked == [((True, True), True), True]
    np.testing.assert_allclose(x.grad.numpy(), np.exp(1.0) * np.ones(2))


# --- autograd.grad and backward(inputs=) route arrays between common nodes too ---


def _mlp_loss(seed):
    torch.manual_seed(seed)
    x = torch.randn(8, 6, dtype=torch.float64)
    w1 = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    b1 = torch.randn(5, dtype=torch.float64, requires_grad=True)
    w2 = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    h = torch.relu(x @ w1 + b1)
    return (h @ w2).logsumexp(dim=1).mean(), (w1, b1, w2), h


@pytest.mark.parametrize("which", ["leaves", "some_leaves", "a_non_leaf", "backward_inputs"])
def test_inputs_given_route_arrays_with_the_tensor_formulas_bits(monkeypatch, which):
    def run(data_path):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        loss, (w1, b1, w2), h = _mlp_loss(3)
        if which == "backward_inputs":
            h.retain_grad()
            loss.backward(inputs=[w1, h])
            return [w1.grad, h.grad], b1.grad
        inputs = {"leaves": [w1, b1, w2], "some_leaves": [b1], "a_non_leaf": [h, w1]}[which]
        return list(torch.autograd.grad(loss, inputs)), b1.grad

    routed = []  # nodes run on arrays by the general loop, or runs of the data walk
    real, real_walk = engine._run_data_node, engine._walk_data
    monkeypatch.setattr(
        engine, "_run_data_node", lambda node, *a: routed.append(node) or real(node, *a)
    )
    monkeypatch.setattr(engine, "_walk_data", lambda *a: routed.append("walk") or real_walk(*a))
    got, b1_grad = run(True)
    assert routed, "no node ran on arrays"
    # autograd.grad of leaves runs on the data walk (NOTE [ autograd.grad's data walk ])
    assert ("walk" in routed) == (which in ("leaves", "some_leaves")), routed
    assert b1_grad is None  # no .grad where none was asked for
    want, _ = run(False)
    for g, w in zip(got, want, strict=True):
        assert g.__class__ is torch.Tensor and not g.requires_grad
        np.testing.assert_array_equal(g.numpy(), w.numpy())
