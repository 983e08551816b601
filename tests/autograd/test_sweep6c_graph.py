"""The graph API against torch's behaviour: backward/grad inputs and outputs, which hooks fire,
what hooks may return, node classes, reprs and anomaly metadata (sweep 6c)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import graph


def _close(actual, expected, msg=""):
    np.testing.assert_allclose(actual.detach().numpy(), expected, rtol=1e-6, err_msg=msg)


def test_backward_inputs_retains_the_grad_of_a_non_leaf():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    o = (h * h).sum()
    o.backward(inputs=[h], retain_graph=True)
    assert h.retains_grad
    _close(h.grad, [4.0, 8.0, 12.0])
    assert x.grad is None
    o.backward()  # a later plain backward keeps accumulating into h.grad
    _close(h.grad, [8.0, 16.0, 24.0])


def test_backward_inputs_on_a_retained_non_leaf_accumulates_once():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward(inputs=[h])
    _close(h.grad, [4.0, 8.0, 12.0])


def test_backward_inputs_runs_the_input_nodes_hooks_but_not_further():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    c = a.exp()
    d = c * 3
    log = []
    c.grad_fn.register_prehook(lambda go: log.append("pre-c"))
    c.grad_fn.register_hook(lambda gi, go: log.append("post-c"))
    c.register_hook(lambda g: log.append("tensor-c"))
    d.sum().backward(inputs=[c])
    assert log == ["tensor-c", "pre-c", "post-c"]
    assert a.grad is None


def test_gradient_edges_as_backward_inputs_and_grad_outputs():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    z = y.sin().sum()
    z.backward(inputs=[graph.get_gradient_edge(x)], retain_graph=True)
    _close(x.grad, np.cos(np.array([1.0, 4.0, 9.0])) * np.array([2.0, 4.0, 6.0]))
    # a non-leaf's edge only restricts the walk: nothing is stored
    x.grad = None
    z.backward(inputs=[graph.get_gradient_edge(y)], retain_graph=True)
    assert x.grad is None and not y.retains_grad
    (gx,) = mt.autograd.grad(graph.get_gradient_edge(y), x, grad_outputs=mt.ones(3))
    _close(gx, [2.0, 4.0, 6.0])


def test_gradient_edge_output_checks_what_the_graph_knows():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        mt.autograd.grad(graph.get_gradient_edge(x), x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        mt.autograd.grad(graph.get_gradient_edge(x), x, grad_outputs=mt.ones(2))
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        mt.autograd.grad(graph.get_gradient_edge(y), x)
    # a leaf's edge as output: the gradient passes through its accumulator
    (g,) = mt.autograd.grad(
        graph.get_gradient_edge(x), graph.get_gradient_edge(x), grad_outputs=mt.full((3,), 2.0)
    )
    _close(g, [2.0, 2.0, 2.0])


def test_multi_grad_hook_all_fires_with_none_for_grads_not_computed():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y1 = x * 2
    y2 = x * 3
    log = []

    def hook(gs):
        log.append([None if g is None else g.tolist() for g in gs])

    graph.register_multi_grad_hook([y1, y2], hook)
    (g,) = mt.autograd.grad((y1 * y2).sum(), [y1], retain_graph=True)
    _close(g, [3.0, 6.0])
    assert log == [[[3.0, 6.0], None]]
    (y1 * y2).sum().backward(inputs=[y1])
    assert log[1] == [[3.0, 6.0], None]


def test_grad_runs_no_hook_of_a_node_it_only_reads_at():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    c = a.exp()
    d = c * 3
    log = []
    c.grad_fn.register_prehook(lambda go: log.append("pre-c"))
    c.grad_fn.register_hook(lambda gi, go: log.append("post-c"))
    (g,) = mt.autograd.grad(d.sum(), c, retain_graph=True)
    _close(g, [3.0, 3.0])
    assert log == []
    c.register_hook(lambda g: log.append("tensor-c"))
    ga, gc = mt.autograd.grad(d.sum(), [a, c])  # now c's node runs (a needs it)
    _close(ga, 3 * np.exp([1.0, 2.0]))
    assert log == ["tensor-c", "pre-c", "post-c"]


def test_hooks_of_nodes_off_the_inputs_paths_do_not_fire():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y1 = x * 2
    y2 = x * 3
    log = []
    y2.register_hook(lambda g: log.append("y2"))
    mt.autograd.grad((y1 * y2).sum(), [y1])
    assert log == []


def test_node_hooks_cannot_replace_a_none_gradient():
    x = mt.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    p, q = x.split(2)
    p.grad_fn.register_prehook(lambda go: (mt.ones(2) if go[0] is None else go[0], go[1]))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        (q * 3).sum().backward()
    x3 = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = x3 * 2
    z.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        z.sum().backward()
    # dropping a gradient stays allowed
    x4 = mt.tensor([1.0, 2.0], requires_grad=True)
    w = x4 * x4
    w.grad_fn.register_hook(lambda gi, go: (None, gi[1]))
    w.sum().backward()
    _close(x4.grad, [1.0, 2.0])


def test_post_hook_grad_outputs_are_none_for_unused_outputs():
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    a, b = x.unbind(0)
    seen = []
    a.grad_fn.register_hook(lambda gi, go: seen.append(go))
    (a * 5).sum().backward()
    (go,) = seen
    assert len(go) == 2 and go[1] is None
    _close(go[0], [5.0, 5.0])
    _close(x.grad, [[5.0, 5.0], [0.0, 0.0]])  # the backward itself still got zeros


def test_repr_of_a_view_written_in_place_shows_the_regenerated_node():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1
    v = h[1:]
    v.mul_(2)
    assert repr(v) == "tensor([4., 6.], grad_fn=<AsStridedBackward0>)"


def test_anomaly_mode_stores_the_forward_traceback_in_metadata():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    assert "traceback_" not in x.exp().grad_fn.metadata
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with mt.autograd.detect_anomaly():
            y = x.exp()
    tb = y.grad_fn.metadata["traceback_"]
    assert isinstance(tb, list) and all(isinstance(s, str) for s in tb)
    assert tb[-1].startswith('  File "') and "y = x.exp()" in tb[-1]


def test_node_classes_print_as_torchs():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    assert str(type(x.sum().grad_fn)) == "<class 'SumBackward0'>"
    assert str(type(graph.get_gradient_edge(x).node)) == "<class 'AccumulateGrad'>"
    assert str(type((x.reshape(2, 1) @ x.reshape(1, 2)).grad_fn)) == "<class 'MmBackward0'>"
    edge = repr(graph.get_gradient_edge(x))
    assert re.fullmatch(
        r"GradientEdge\(node=<AccumulateGrad object at 0x[0-9a-f]+>, output_nr=0, "
        r"ownership_token=None\)",
        edge,
    ), edge
    assert graph.get_gradient_edge(x).ownership_token is None


class _Id(mt.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        return i.clone()

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_custom_function_nodes_are_backward_c_functions():
    x = mt.ones(2, requires_grad=True)
    fn = _Id.apply(x).grad_fn
    assert isinstance(fn, mt.autograd.function.BackwardCFunction)
    assert isinstance(fn, graph.Node)
    assert fn._forward_cls is _Id
    assert type(fn).__name__ == "_IdBackward"
    assert fn.requires_grad is True and x.sum().grad_fn.requires_grad is True
    _close(fn.apply(mt.ones(2)), [2.0, 2.0])
    _Id.apply(x).sum().backward()
    _close(x.grad, [2.0, 2.0])


def test_gradients_through_edges_match_gradcheck():
    x = mt.tensor([0.3, -0.7, 1.1], dtype=mt.float64, requires_grad=True)

    def f(t):
        y = t * t
        return (
            mt.autograd.grad(
                graph.get_gradient_edge(y),
                t,
                grad_outputs=mt.ones(3, dtype=mt.float64),
                create_graph=True,
            )[0]
            * t.sin()
        )

    assert mt.autograd.gradcheck(f, (x,))
    assert mt.autograd.gradgradcheck(f, (x,))


def test_built_in_nodes_show_no_saved_tensors_as_torchviz_expects():
    # torchviz's make_dot draws `saved_tensors` of any node that has them (custom Functions' only,
    # in torch), calling .size() on each: built-in and composite nodes must not have them
    model = mt.nn.Sequential(mt.nn.Linear(4, 5), mt.nn.Tanh(), mt.nn.Linear(5, 1))
    out = model(mt.randn(2, 4)).mean()
    lu, piv = mt.linalg.lu_factor(mt.randn(3, 3, dtype=mt.float64) + 3 * mt.eye(3))
    solved = mt.linalg.lu_solve(lu, piv, mt.ones(3, 1, dtype=mt.float64, requires_grad=True))
    for root in (out.grad_fn, solved.grad_fn):
        stack, seen = [root], set()
        while stack:
            fn = stack.pop()
            if fn is None or fn in seen:
                continue
            seen.add(fn)
            assert not hasattr(fn, "saved_tensors"), type(fn).__name__
            # dir() lists only _saved_ names torch's node lists too (its TanhBackward0's result,
            # MeanBackward0's input sizes, AddmmBackward0's operands and their layouts)
            saved = {a for a in dir(fn) if a.startswith("_saved_")}
            torchs = {"_saved_self", "_saved_result", "_saved_self_sym_numel"}
            torchs |= {"_saved_self_sym_sizes", "_saved_alpha", "_saved_beta"}
            layouts = ("", "_sym_sizes", "_sym_strides")
            torchs |= {f"_saved_mat{i}{s}" for i in (1, 2) for s in layouts}
            assert saved <= torchs, (type(fn).__name__, saved)
            stack.extend(u[0] for u in fn.next_functions)

    class Double(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2

    x = mt.ones(2, requires_grad=True)
    y = Double.apply(x)
    assert y.grad_fn.saved_tensors[0] is x  # a custom Function's node keeps them
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
