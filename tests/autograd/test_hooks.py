"""Tensor hooks, node hooks and pre-hooks, retain_grad, requires_grad_, detach."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _np(t):
    return t.detach().cpu().numpy()


def _leaf(values=(1.0, 2.0, 3.0)):
    return mt.tensor(list(values), requires_grad=True)


def test_leaf_hook_sees_the_total_gradient_once_and_is_removable():
    x = _leaf()
    seen = []
    handle = x.register_hook(lambda g: seen.append(_np(g).copy()))
    (x * 2 + x * 3 + x * x).sum().backward()
    assert len(seen) == 1, "one call with the summed gradient"
    np.testing.assert_allclose(seen[0], [7.0, 9.0, 11.0], err_msg="2 + 3 + 2x")
    handle.remove()
    (x * 2).sum().backward()
    assert len(seen) == 1, "removed hooks do not run"
    handle.remove()  # removing twice is harmless


def test_hook_may_replace_the_gradient():
    x = _leaf()
    x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [10.0, 10.0, 10.0])
    y_leaf = _leaf()
    y = y_leaf * 2
    y.register_hook(lambda g: g * 0 + 1)
    (y * y).sum().backward()
    np.testing.assert_allclose(_np(y_leaf.grad), [2.0, 2.0, 2.0], err_msg="replaced before MulBack")


def test_hooks_run_in_registration_order_and_chain():
    x = _leaf()
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [20.0, 20.0, 20.0], err_msg="(1 + 1) * 10")


def test_handle_works_as_a_context_manager():
    x = _leaf()
    with x.register_hook(lambda g: g * 0):
        (x * 1).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [0.0, 0.0, 0.0])
    (x * 1).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [1.0, 1.0, 1.0], err_msg="hook removed on exit")


def test_retain_grad_keeps_a_non_leaf_grad_after_the_hooks():
    x = _leaf()
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 100)  # runs before the retained grad is stored (torch >= 2.0)
    (y * 1).sum().backward()
    assert y.retains_grad
    np.testing.assert_allclose(_np(y.grad), [100.0, 100.0, 100.0])
    np.testing.assert_allclose(_np(x.grad), [200.0, 200.0, 200.0])
    z = x * 1
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert z.grad is None
    with pytest.raises(
        RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"
    ):
        mt.ones(1).retain_grad()


def test_retain_grad_accumulates_and_keeps_the_graph_under_create_graph():
    x = _leaf()
    y = x * x
    y.retain_grad()
    (y * y).sum().backward(create_graph=True)
    assert y.grad.requires_grad and type(y.grad.grad_fn).__name__ == "CloneBackward0"
    np.testing.assert_allclose(_np(y.grad), [2.0, 8.0, 18.0], err_msg="2y")
    y2 = x * 1
    y2.retain_grad()
    out = (y2 * 3).sum()
    out.backward(retain_graph=True)
    out.backward()
    np.testing.assert_allclose(_np(y2.grad), [6.0, 6.0, 6.0], err_msg="accumulated twice")


def test_hook_errors_match_torch():
    def shrink(g):
        return g[:1]

    for make in (lambda x: x, lambda x: x * 1):  # a leaf and a non-leaf
        x = _leaf()
        make_x = make(x)
        make_x.register_hook(shrink)
        with pytest.raises(RuntimeError, match="^hook 'shrink' has changed the size of value$"):
            (make_x * 2).sum().backward()
        x = _leaf()
        make_x = make(x)
        make_x.register_hook(lambda g: g.double())
        with pytest.raises(
            RuntimeError,
            match=r"^hook '<lambda>' has changed the type of value "
            r"\(was torch.FloatTensor got torch.DoubleTensor\)",
        ):
            (make_x * 2).sum().backward()
        x = _leaf()
        make_x = make(x)
        make_x.register_hook(lambda g: 3)
        with pytest.raises(TypeError, match="^expected Variable, but hook returned 'int'$"):
            (make_x * 2).sum().backward()
    with pytest.raises(
        RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"
    ):
        mt.ones(2).register_hook(lambda g: g)


def test_node_prehook_and_post_hook():
    x = _leaf()
    y = x * 2
    log = []

    def pre(grad_outputs):
        log.append(("pre", _np(grad_outputs[0]).tolist()))
        return (grad_outputs[0] * 3,)

    def post(grad_inputs, grad_outputs):
        log.append(
            ("post", _np(grad_inputs[0]).tolist(), grad_inputs[1], _np(grad_outputs[0]).tolist())
        )

    y.grad_fn.register_prehook(pre)
    y.grad_fn.register_hook(post)
    y.sum().backward()
    assert log == [("pre", [1.0, 1.0, 1.0]), ("post", [6.0, 6.0, 6.0], None, [3.0, 3.0, 3.0])]
    np.testing.assert_allclose(_np(x.grad), [6.0, 6.0, 6.0])


def test_node_post_hook_may_replace_input_gradients():
    x = _leaf()
    w = _leaf()
    y = x * w
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1]))
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(_np(w.grad), [1.0, 2.0, 3.0])
    y = x * w
    y.grad_fn.register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(
        RuntimeError,
        match=r"^hook '<lambda>' has returned an incorrect number "
        r"of values \(got 1, but expected 2\)$",
    ):
        y.sum().backward()
    y = x * w
    y.grad_fn.register_hook(lambda gi, go: 5)
    with pytest.raises(TypeError, match="^expected tuple, but hook returned 'int'$"):
        y.sum().backward()


def test_tensor_hooks_run_before_node_prehooks():
    x = _leaf()
    y = x * 2
    order = []
    y.grad_fn.register_prehook(lambda go: order.append("node"))
    y.register_hook(lambda g: order.append("tensor"))
    y.sum().backward()
    assert order == ["tensor", "node"]


def test_requires_grad_and_detach():
    t = mt.ones(2)
    assert t.requires_grad_() is t and t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        mt.tensor([1, 2]).requires_grad_()
    y = t * 2
    with pytest.raises(
        RuntimeError, match="^you can only change requires_grad flags of leaf variables."
    ):
        y.requires_grad_(False)
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    d.add_(1)
    np.testing.assert_allclose(_np(y), [3.0, 3.0], err_msg="detach shares memory")
    assert d._version == y._version, "and the version counter"
    y2 = t * 2
    assert y2.detach_() is y2
    assert not y2.requires_grad and y2.grad_fn is None and y2.is_leaf


def test_hooks_do_not_keep_the_graph_alive():
    import gc
    import weakref

    gc.disable()
    try:
        x = _leaf()
        y = x * 2
        y.register_hook(lambda g: g)
        y.retain_grad()
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()


# --- post-accumulate-grad hooks ---


def test_post_accumulate_grad_hook_sees_the_accumulated_grad_and_can_be_removed():
    x = mt.ones(3, requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert seen == [[2.0, 2.0, 2.0], [5.0, 5.0, 5.0]]
    handle.remove()
    (x * 2).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_runs_for_backward_inputs_but_not_autograd_grad():
    x = mt.ones(2, requires_grad=True)
    fired = []
    x.register_post_accumulate_grad_hook(lambda t: fired.append(t.grad.sum().item()))
    mt.autograd.grad((x * 4).sum(), x)
    assert fired == []
    (x * 4).sum().backward(inputs=[x])
    assert fired == [8.0]


def test_post_accumulate_grad_hook_refusals():
    x = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mt.ones(2).register_post_accumulate_grad_hook(lambda t: None)
    x.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError, match="hook returned 'int'"):
        x.sum().backward()


def test_tensor_hook_handles_are_removable_handles():
    from minitorch.utils.hooks import RemovableHandle

    x = mt.ones(2, requires_grad=True)
    y = x * 2
    seen = []
    for t in (x, y):
        h = t.register_hook(lambda g: seen.append(1))
        assert isinstance(h, RemovableHandle)
        h.remove()
    with y.grad_fn.register_hook(lambda gi, go: seen.append(2)) as h:
        assert isinstance(h, RemovableHandle)
    y.sum().backward()
    assert seen == []  # every hook was removed
