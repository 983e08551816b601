"""Session 51, lead: autograd.grad of leaves runs on the data walk (NOTE [ autograd.grad's data
walk ] in minitorch/autograd/engine.py), without counting the graph's edges or ordering its
nodes: the same gradients as the general loop, bit for bit; the nodes with no path to an input
do not run and keep what they saved; no leaf's .grad changes, even where a backward fails; and
hooks, a GradientEdge input or a node the walk does not run hand the call to the general loop.
Also the lazy imports of this session (cuda, the window functions, the parser's errors)."""

import random
import subprocess
import sys

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import engine
from tests.test_s50_lead import grow_dag


def _random_graph(seed):
    """Leaves (one that no op reads, one that needs no grad) and a scalar loss over a random DAG
    of common ops whose operands are drawn from every tensor made so far."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    leaves = [torch.randn(3, 4, dtype=torch.float64, requires_grad=True) for _ in range(4)]
    leaves.append(torch.randn(4, dtype=torch.float64, requires_grad=True))  # broadcast
    const = torch.randn(3, 4, dtype=torch.float64)
    made = leaves[1:] + [const]  # leaves[0] is used by no op
    grow_dag(rng, made, 14)
    outs = [t for t in made[len(leaves) :] if t.requires_grad]
    loss = sum(t.sum() for t in rng.sample(outs, min(4, len(outs))))
    return leaves, loss


def _count_calls(monkeypatch, names):
    calls = dict.fromkeys(names, 0)
    for name in names:
        real = getattr(engine, name)

        def counted(*a, _name=name, _real=real, **k):
            calls[_name] += 1
            return _real(*a, **k)

        monkeypatch.setattr(engine, name, counted)
    return calls


def _reached_leaves(loss, leaves):
    """The positions in `leaves` of those loss's graph reaches."""
    seen, stack, found = set(), [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        for e in node._next:
            if e is not None and e[0] not in seen:
                seen.add(e[0])
                stack.append(e[0])
                leaf = getattr(e[0], "_variable", lambda: None)()
                found.update(i for i, t in enumerate(leaves) if t is leaf)
    return found


@pytest.mark.parametrize("seed", range(8))
def test_grad_of_leaves_on_the_data_walk_gives_the_general_loops_bits(monkeypatch, seed):
    rng = random.Random(100 + seed)
    pick = rng.sample(range(5), rng.randint(1, 5))  # the same inputs in both runs
    reached = []

    def run(data_path):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        leaves, loss = _random_graph(seed)
        reached[:] = _reached_leaves(loss, leaves)
        got = torch.autograd.grad(loss, [leaves[i] for i in pick], allow_unused=True)
        assert all(leaf.grad is None for leaf in leaves)  # autograd.grad accumulates nothing
        return got

    calls = _count_calls(monkeypatch, ["_dependencies", "_executable", "_walk_data"])
    got = run(True)
    # where a leaf reached is no input, the plan takes the nodes to run from _executable
    pruned = int(not set(reached) <= set(pick))
    assert calls == {"_dependencies": pruned, "_executable": pruned, "_walk_data": 1}, calls
    want = run(False)
    for i, g, w in zip(pick, got, want, strict=True):
        if i == 0:  # the leaf no op reads
            assert g is None and w is None
            continue
        assert (g is None) == (w is None)
        if g is not None:
            assert g.__class__ is torch.Tensor and not g.requires_grad and g.grad_fn is None
            np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"input {i}")


def test_grad_of_every_leaf_counts_no_edges(monkeypatch):
    torch.manual_seed(0)
    x = torch.randn(8, 6, dtype=torch.float64)
    w1 = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    b1 = torch.randn(5, dtype=torch.float64, requires_grad=True)
    w2 = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    loss = (torch.relu(x @ w1 + b1) @ w2).logsumexp(dim=1).mean()
    calls = _count_calls(monkeypatch, ["_dependencies", "_executable", "_walk_data"])
    grads = torch.autograd.grad(loss, [w1, b1, w2], retain_graph=True)
    assert calls == {"_dependencies": 0, "_executable": 0, "_walk_data": 1}, calls
    loss.backward(inputs=[w1, b1, w2])
    assert calls == {"_dependencies": 0, "_executable": 0, "_walk_data": 2}, calls
    for g, p in zip(grads, (w1, b1, w2), strict=True):
        np.testing.assert_array_equal(g.numpy(), p.grad.numpy())


def test_nodes_with_no_path_to_an_input_do_not_run_and_keep_their_saved_values(monkeypatch):
    calls = _count_calls(monkeypatch, ["_walk_data", "_run_node", "_run_data_node"])
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    b = w.exp()  # ExpBackward0 leads to w only
    y = (x * 2) * b
    (gx,) = torch.autograd.grad(y.sum(), x)
    assert calls == {"_walk_data": 1, "_run_node": 0, "_run_data_node": 0}
    np.testing.assert_allclose(gx.numpy(), 2 * np.exp(w.detach().numpy()))
    assert w.grad is None and x.grad is None
    b.sum().backward()  # exp's saved result was not freed: its backward never ran
    np.testing.assert_allclose(w.grad.numpy(), np.exp(w.detach().numpy()))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()  # the nodes that ran were freed


def test_an_unused_input_is_none_or_the_usual_error():
    x = torch.randn(3, requires_grad=True)
    z = torch.randn(3, requires_grad=True)
    y = (x * x).sum()
    assert torch.autograd.grad(y, [x, z], retain_graph=True, allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used"):
        torch.autograd.grad(y, [x, z])


def test_a_leaf_input_with_hooks_runs_the_general_loop(monkeypatch):
    calls = _count_calls(monkeypatch, ["_dependencies", "_walk_data"])
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
    (g,) = torch.autograd.grad((x * x).sum(), x)
    assert calls == {"_dependencies": 1, "_walk_data": 0}
    np.testing.assert_allclose(seen[0].numpy(), 2 * x.detach().numpy())
    np.testing.assert_allclose(g.numpy(), 20 * x.detach().numpy())  # the hook's result


def test_a_hooked_root_that_reaches_no_input_runs_the_general_loop(monkeypatch):
    """torch visits a lone root whether or not it leads to an input: its tensor hooks fire."""
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, requires_grad=True)
    z = w * 3
    fired = []
    z.register_hook(lambda g: fired.append(1))
    calls = _count_calls(monkeypatch, ["_walk_data"])
    (g,) = torch.autograd.grad(z, x, torch.ones(3), allow_unused=True)
    assert g is None and fired == [1] and calls["_walk_data"] == 0


def test_a_hooked_root_beside_others_is_passed_by_without_its_hooks(monkeypatch):
    """With two roots torch's walk starts at a root node above both: a root with no path to an
    input is not visited, and its tensor hooks do not fire."""

    def run(data_path):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        torch.manual_seed(1)
        x = torch.randn(3, dtype=torch.float64, requires_grad=True)
        w = torch.randn(3, dtype=torch.float64, requires_grad=True)
        z = w * 3
        fired = []
        z.register_hook(lambda g: fired.append(1))
        y = (x * w.exp()).sum()
        (g,) = torch.autograd.grad([y, z], x, [None, torch.ones(3, dtype=torch.float64)])
        return g, fired

    (got, fired), (want, _) = run(True), run(False)
    assert fired == []
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_node_the_walk_does_not_run_hands_autograd_grad_to_the_general_loop(monkeypatch):
    class Twice(torch.autograd.Function):  # a custom Function: a Tensor-only backward
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def run(data_path):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        torch.manual_seed(0)
        x = torch.randn(4, dtype=torch.float64, requires_grad=True)
        w = torch.randn(4, dtype=torch.float64, requires_grad=True)
        v = torch.randn(4, dtype=torch.float64, requires_grad=True)
        side = (v.exp() * 3).sin()  # leads to v only: passed by
        y = (Twice.apply(x.tanh() * w) * side).sum() + (x * w).sum()
        return torch.autograd.grad(y, [x, w])

    got, want = run(True), run(False)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_a_failing_autograd_grad_changes_no_leafs_grad():
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    a = x * 2
    e = a.exp()  # saves its result
    y = (e * w).sum() + (x * w).sum()
    e.add_(1)  # the saved result is modified: its backward raises
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.autograd.grad(y, [x, w])
    assert x.grad is None and w.grad is None


def test_grad_while_profiling_and_under_will_execute():
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    with torch.autograd.profiler.profile() as prof:
        y = (x.exp() * w.sin()).sum()
        gx, gw = torch.autograd.grad(y, [x, w])
    names = [e.name for e in prof.function_events]
    assert "ExpBackward0" in names and "SinBackward0" in names
    xd, wd = x.detach().numpy(), w.detach().numpy()
    np.testing.assert_allclose(gx.numpy(), np.exp(xd) * np.sin(wd))
    np.testing.assert_allclose(gw.numpy(), np.exp(xd) * np.cos(wd))

    seen = {}

    class Probe(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.clone()

        @staticmethod
        def backward(ctx, g):
            task = engine.state.graph_task
            seen["x"] = task.will_execute(x.grad_fn or engine._edge(x)[0])
            seen["exp"] = task.will_execute(side.grad_fn)
            return g

    side = w.exp()
    y = (Probe.apply(x * 2) + side).sum()
    torch.autograd.grad(y, x)
    assert seen == {"x": True, "exp": False}


def test_jacobian_and_hessian_agree_with_formulas():
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    jac = torch.autograd.functional.jacobian(lambda t: t.sin() * t, x)
    xd = x.detach().numpy()
    np.testing.assert_allclose(jac.numpy(), np.diag(np.cos(xd) * xd + np.sin(xd)))
    hess = torch.autograd.functional.hessian(lambda t: (t**3).sum(), x)
    np.testing.assert_allclose(hess.numpy(), np.diag(6 * xd))


def test_import_minitorch_defers_cuda_windows_and_the_parsers_errors():
    code = (
        "import sys, minitorch; loaded = set(sys.modules); "
        "print(' '.join(m for m in ['minitorch.cuda', 'minitorch._windows', "
        "'minitorch._ops._parser_errors', 'minitorch._backend.torch_stream_counts', 'glob'] "
        "if m in loaded)); "
        "print(minitorch.cuda.is_available() in (True, False), minitorch.hann_window(4).shape); "
        "print(minitorch.__version__ >= (0, 1), minitorch.__version__ < '0.1.0.post1')"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    lines = out.stdout.splitlines()
    assert lines == ["", "True torch.Size([4])", "True True"], out.stdout


def test_the_parsers_errors_load_when_raised():
    with pytest.raises(TypeError, match=r"sum\(\) received an invalid combination of arguments"):
        torch.tensor([1.0, 2.0]).sum(1, 2, 3, 4)
    with pytest.raises(TypeError, match=r"clamp\(\) received an invalid combination"):
        torch.clamp(torch.tensor([1.0]), "a")
    with pytest.raises(TypeError, match="floor_divide"):
        torch.floor_divide(torch.tensor([1.0]), "a")


def test_a_path_ending_at_no_accumulator_is_passed_by():
    """once_differentiable's error node has no edges: a graph through it reaches no input, so
    its backward (which raises) does not run, as in torch."""

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t**3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            return g * 3 * ctx.saved_tensors[0] ** 2

    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    v = torch.ones(2, dtype=torch.float64, requires_grad=True)  # (so the error node is made)
    (g,) = torch.autograd.grad(Cube.apply(x), x, v, create_graph=True)
    assert g.grad_fn.name() == "torch::autograd::Error"
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 12.0])
    (gg,) = torch.autograd.grad(g.sum(), x, allow_unused=True)
    assert gg is None
    w = torch.ones(2, dtype=torch.float64, requires_grad=True)
    (gw,) = torch.autograd.grad((g * w).sum(), w)  # the other factor's path runs
    np.testing.assert_allclose(gw.numpy(), [3.0, 12.0])
    with pytest.raises(RuntimeError, match="index 0 appears to not have been used"):
        torch.autograd.grad((g * w).sum(), x)  # (torch's answer too)


@pytest.mark.parametrize("seed", range(6))
def test_backward_with_leaf_inputs_on_the_data_walk_gives_the_general_loops_bits(
    monkeypatch, seed
):
    rng = random.Random(200 + seed)
    pick = rng.sample(range(5), rng.randint(1, 5))

    def run(data_path):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        leaves, loss = _random_graph(seed)
        used = [leaves[i] for i in pick if i != 0] or [leaves[1]]  # (every input is used)
        loss.backward(inputs=used)
        return [leaf.grad for leaf in leaves]

    calls = _count_calls(monkeypatch, ["_walk_data", "_run_node", "_run_data_node"])
    got = run(True)
    assert calls == {"_walk_data": 1, "_run_node": 0, "_run_data_node": 0}, calls
    want = run(False)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert (g is None) == (w is None), i
        if g is not None:
            np.testing.assert_array_equal(g.numpy(), w.numpy(), err_msg=f"leaf {i}")


def test_backward_inputs_with_a_hooked_leaf_and_a_failing_node():
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    v = torch.randn(3, dtype=torch.float64, requires_grad=True)
    x.register_hook(lambda g: g * 2)
    y = (x * w).sum() + v.exp().sum()
    y.backward(inputs=[x, w])  # a hooked input: the general loop
    np.testing.assert_allclose(x.grad.numpy(), 2 * w.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), x.detach().numpy())
    assert v.grad is None
    a = (x * 2).exp()
    y = (a * w).sum() + (v * w).sum()
    a.add_(1)  # the product a * w saved a: its backward raises
    w.grad = None
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward(inputs=[w, v])
    # as backward() and torch: a leaf no node left to run feeds has its gradient (v's, from
    # v * w, which ran first), one that a node left to run feeds has none (w)
    assert w.grad is None
    np.testing.assert_allclose(v.grad.numpy(), w.detach().numpy())


def test_the_lazy_window_names_are_those_the_module_defines():
    import minitorch._windows as windows

    lazy = {n for n, module in torch._LAZY_NAMES.items() if module == "_windows"}
    assert lazy == set(windows.__all__)
    assert all(getattr(torch, n) is getattr(windows, n) for n in windows.__all__)
