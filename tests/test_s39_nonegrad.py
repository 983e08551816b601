"""Session 39 (helper nonegrad): torch-free regression tests of the engine fixes the programs of
tests/reference/test_s39_nonegrad_reference.py found (NOTE [ Nodes no gradient reached ]): a
node the backward walk reaches with no gradient at all still runs, as in torch: a custom
Function's backward on zeros (None without materialized grads), its zeros flowing on to the
leaves; tensor hooks, Node pre- and post hooks, leaves' hooks and post-accumulate hooks called
with None (also in autograd.grad and backward(inputs=...)); a built-in node's saved tensors
unpacked (unpack hooks, in-place and freed checks) and freed; a hook may not replace None; a
module's full backward hooks behind a block leave its parameters' .grad None; backward(inputs=)
runs a leaf accumulator's Node hooks. torch's values and messages are written here as
literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

_NONE_REPLACED = "can't replace a None gradient with a non-None value"
_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)


class Stop(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return None


def _show(g):
    if g is None:
        return None
    if isinstance(g, tuple):
        return tuple(_show(t) for t in g)
    return g.tolist()


def _scale(log, materialize=True):
    class Scale(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            log.append(_show(g))
            return None if g is None else g * 2

    return Scale.apply


def _x(*values):
    return mt.tensor(list(values), dtype=mt.float64, requires_grad=True)


@pytest.mark.parametrize("materialize", [True, False])
def test_custom_backward_runs_behind_a_block(materialize):
    log = []
    x = _x(1.0, 2.0)
    z = _x(3.0)
    (Stop.apply(_scale(log, materialize)(x)).sum() + z.sum()).backward()
    if materialize:  # zeros in, zeros out: the leaf gets zeros, not None
        assert log == [[0.0, 0.0]]
        assert x.grad.tolist() == [0.0, 0.0]
    else:
        assert log == [None]
        assert x.grad is None
    assert z.grad.tolist() == [1.0]


def test_multi_output_function_with_both_outputs_blocked():
    seen = []

    class Two(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            seen.append((_show(ga), _show(gb)))
            return ga * 2 + gb * 3

    x = _x(1.0, 2.0)
    a, b = Two.apply(x)
    z = _x(1.0)
    (Stop.apply(a).sum() + Stop.apply(b).sum() + z.sum()).backward()
    assert seen == [([0.0, 0.0], [0.0, 0.0])]
    assert x.grad.tolist() == [0.0, 0.0]


def test_hooks_behind_a_block_see_none():
    log = []
    x = _x(1.0, 2.0)
    x.register_hook(lambda g: log.append(("x", _show(g))))
    x.register_post_accumulate_grad_hook(lambda p: log.append(("x.post_acc", _show(p.grad))))
    m = x * 3
    m.retain_grad()
    m.register_hook(lambda g: log.append(("m", _show(g))))
    m.grad_fn.register_prehook(lambda go: log.append(("pre", _show(go))))
    m.grad_fn.register_hook(lambda gi, go: log.append(("post", _show(gi), _show(go))))
    z = _x(1.0)
    (Stop.apply(m).sum() + z.sum()).backward()
    assert log == [
        ("m", None),
        ("pre", (None,)),
        ("post", (None, None), (None,)),
        ("x", None),
        ("x.post_acc", None),
    ]
    assert m.grad is None and x.grad is None


def test_accumulator_node_hooks_behind_a_block():
    log = []
    x = _x(1.0, 2.0)
    m = x * 1
    acc = m.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: log.append(("pre", _show(go))))
    acc.register_hook(lambda gi, go: log.append(("post", _show(gi), _show(go))))
    (Stop.apply(m).sum() + _x(1.0).sum()).backward()
    assert log == [("pre", (None,)), ("post", (), (None,))]
    assert x.grad is None


@pytest.mark.parametrize("where", ["tensor", "leaf", "prehook", "posthook"])
def test_a_hook_may_not_replace_none(where):
    x = _x(1.0, 2.0)
    m = x * 2
    one = mt.ones(2, dtype=mt.float64)
    if where == "tensor":
        m.register_hook(lambda g: one)
    elif where == "leaf":
        x.register_hook(lambda g: one)
    elif where == "prehook":
        m.grad_fn.register_prehook(lambda go: (one,))
    else:
        m.grad_fn.register_hook(lambda gi, go: (one, None))
    with pytest.raises(RuntimeError) as info:
        (Stop.apply(m).sum() + _x(1.0).sum()).backward()
    assert str(info.value) == _NONE_REPLACED


def test_autograd_grad_hooks_see_none():
    log = []
    x = _x(1.0, 2.0)
    w = _x(1.0, 2.0)
    x.register_hook(lambda g: log.append(("x", _show(g))))
    m = x * 3
    m.register_hook(lambda g: log.append(("m", _show(g))))
    y = Stop.apply(m).sum() + (w * w).sum()
    gx, gw = mt.autograd.grad(y, [x, w], allow_unused=True)
    assert gx is None and gw.tolist() == [2.0, 4.0]
    assert log == [("m", None), ("x", None)]
    # a piece of unbind autograd.grad only reads from: the unused piece's hook sees None
    log.clear()
    t = mt.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    p0, p1 = t.unbind(0)
    p0.register_hook(lambda g: log.append(("p0", _show(g))))
    p1.register_hook(lambda g: log.append(("p1", _show(g))))
    (g0,) = mt.autograd.grad((p0 * p0).sum(), [p0])
    assert g0.tolist() == [2.0, 4.0]
    assert log == [("p0", [2.0, 4.0]), ("p1", None)]


def test_autograd_grad_through_a_custom_function_behind_a_block():
    log = []
    x = _x(1.0, 2.0)
    w = _x(1.0, 2.0)
    y = Stop.apply(_scale(log)(x)).sum() + (w * w).sum()
    (gx,) = mt.autograd.grad(y, [x])  # reached: no "not used" error, zeros
    assert gx.tolist() == [0.0, 0.0]
    assert log == [[0.0, 0.0]]


def test_backward_inputs_leaf_hooks_see_none():
    log = []
    x = _x(1.0, 2.0)
    w = _x(1.0, 2.0)
    x.register_hook(lambda g: log.append(("x", _show(g))))
    x.register_post_accumulate_grad_hook(lambda p: log.append(("x.post_acc", _show(p.grad))))
    y = Stop.apply(x * 3).sum() + (w * w).sum()
    y.backward(inputs=[x, w])
    assert log == [("x", None), ("x.post_acc", None)]
    assert x.grad is None and w.grad.tolist() == [2.0, 4.0]


def test_module_full_backward_hooks_behind_a_block():
    log = []
    lin = mt.nn.Linear(2, 2).double()
    lin.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _show(go))))
    lin.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", _show(gi), _show(go))))
    x = mt.tensor([[1.0, 2.0]], dtype=mt.float64, requires_grad=True)
    (Stop.apply(lin(x)).sum() + _x(1.0).sum()).backward()
    assert log == [("pre", (None,)), ("hook", ([[0.0, 0.0]],), (None,))]
    assert x.grad.tolist() == [[0.0, 0.0]]
    assert lin.weight.grad is None and lin.bias.grad is None


def test_saved_tensors_of_a_node_behind_a_block_are_unpacked_and_freed():
    x = _x(1.0, 2.0)
    m = x * 1
    s = m.sin()  # saves m
    m.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (Stop.apply(s).sum() + x.sum()).backward()
    x = _x(1.0, 2.0)
    s = x.sin()
    (Stop.apply(s).sum() + x.sum()).backward()
    with pytest.raises(RuntimeError) as info:
        (Stop.apply(s).sum() + x.sum()).backward()
    assert str(info.value) == _FREED
    events = []
    x = _x(1.0, 2.0)
    with mt.autograd.graph.saved_tensors_hooks(
        lambda t: events.append("pack") or t, lambda t: events.append("unpack") or t
    ):
        s = (x * 1).exp()
    (Stop.apply(s).sum() + x.sum()).backward()
    assert events == ["pack", "unpack"]


def test_reentrant_checkpoint_behind_a_block_recomputes():
    runs = []

    def block(t):
        runs.append(1)
        return t.sin()

    x = _x(1.0, 2.0)
    y = mt.utils.checkpoint.checkpoint(block, x, use_reentrant=True)
    (Stop.apply(y).sum() + _x(1.0).sum()).backward()
    assert len(runs) == 2
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


@pytest.mark.parametrize("blocked", [False, True])
def test_backward_inputs_runs_an_accumulators_node_hooks(blocked):
    log = []
    x = _x(1.0, 2.0)
    m = x * 1
    acc = m.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda go: log.append(("pre", _show(go))))
    acc.register_hook(lambda gi, go: log.append(("post", _show(gi), _show(go))))
    w = _x(1.0)
    ((Stop.apply(m) if blocked else m).sum() + w.sum()).backward(inputs=[x, w])
    g = None if blocked else [1.0, 1.0]
    assert log == [("pre", (g,)), ("post", (), (g,))]
    assert _show(x.grad) == g
