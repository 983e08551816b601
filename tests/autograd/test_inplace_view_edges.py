"""Edges of in-place ops and views under autograd: where retain_grad lands after an in-place op,
regenerated view nodes, detach_ on views, views taken under no_grad, and the saved-tensor
version checks of composite nodes and of erfinv."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd.composite import one_node

F = mt.nn.functional
MODIFIED = "modified by an inplace operation"


def _np(t):
    return t.detach().cpu().numpy()


# --- retain_grad follows the tensor (NOTE [ retain_grad follows the tensor ]) ---


def test_retain_grad_of_base_written_through_a_view_is_the_new_values_gradient():
    # .grad of a retained tensor is the gradient of its current value: a write through a view
    # of it (an index assignment, a view's in-place op) moves the retain to the new history
    a = mt.ones(2, 3, requires_grad=True)
    x = a * 2
    x.retain_grad()
    x[0, 0] = 7.0
    (x * x).sum().backward()
    assert x.grad.tolist() == [[14.0, 4.0, 4.0], [4.0, 4.0, 4.0]]
    x = a * 2
    x.retain_grad()
    x.view(-1).mul_(3)
    (x * x).sum().backward()
    assert x.grad.tolist() == [[12.0] * 3] * 2


def test_hook_on_a_view_written_in_place_is_not_called():
    # the written view's gradient goes straight to its base (CopySlices), not through the node
    # the hook was registered on
    a = mt.ones(3, requires_grad=True)
    x = a * 2
    v = x[:2]
    calls = []
    v.register_hook(lambda g: calls.append(g))
    v.mul_(3)
    x.sum().backward()
    assert calls == [] and a.grad.tolist() == [6.0, 6.0, 2.0]


def test_retain_grad_of_view_moves_when_base_changes_in_place():
    a = mt.ones(2, 3, requires_grad=True)
    y = a * 2
    v = y[1]
    v.retain_grad()
    y.mul_(3)  # v's value is now 6: its regenerated node carries the retain
    (v * v).sum().backward()
    np.testing.assert_allclose(_np(v.grad), [12.0, 12.0, 12.0], err_msg="grad of v's new value")
    np.testing.assert_allclose(_np(a.grad), [[0, 0, 0], [72, 72, 72]], err_msg="a.grad")


def test_retain_grad_of_view_written_in_place():
    a = mt.ones(2, 3, requires_grad=True)
    x = a * 2
    v = x[0]
    v.retain_grad()
    v.mul_(3)
    (v * v).sum().backward()
    # the gradient of v's current value (6), not of the value before the write (2: 36)
    np.testing.assert_allclose(_np(v.grad), [12.0, 12.0, 12.0], err_msg="v.grad")
    assert v.retains_grad


def test_retain_grad_of_view_stays_until_the_view_is_used_again():
    # torch regenerates a view's node lazily: a view not touched after its base changed keeps
    # its retain on the old node, which the graph built before the change still reaches.
    a = mt.ones(2, 3, requires_grad=True)
    x = a * 2
    v = x[0]
    v.retain_grad()
    w = v * 5
    x.mul_(3)
    (w.sum() + (x * x).sum()).backward()
    np.testing.assert_allclose(_np(v.grad), [5.0, 5.0, 5.0], err_msg="old node's gradient")


def test_retain_grad_of_base_moves_for_a_custom_function_writing_a_view():
    class Double(mt.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 2

    a = mt.ones(2, 3, requires_grad=True)
    x = a * 2
    x.retain_grad()
    Double.apply(x[0])
    (x * x).sum().backward()
    # x is now [[4, 4, 4], [2, 2, 2]]: d(sum x^2)/dx = 2x (the old value's gradient was 16)
    np.testing.assert_allclose(_np(x.grad), [[8, 8, 8], [4, 4, 4]], err_msg="x.grad")
    np.testing.assert_allclose(_np(a.grad), [[32, 32, 32], [8, 8, 8]], err_msg="a.grad")


def test_regenerated_view_node_is_as_strided():
    a = mt.ones(3, 4, requires_grad=True)
    x = a * 1
    y, z = x[0], x.view(12)
    x.mul_(2)
    assert y.grad_fn.name() == "AsStridedBackward0"
    assert z.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    np.testing.assert_allclose(_np(a.grad), [[2] * 4, [0] * 4, [0] * 4], err_msg="a.grad")


# --- detach_ ---


def test_detach_inplace_refuses_every_view():
    a = mt.zeros(3, 4)
    for v in (a[0], a.view(12), a.t()):
        with pytest.raises(RuntimeError, match="Can't detach views in-place. Use detach"):
            v.detach_()
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        mt.detach_(a[1])
    x = mt.ones(2, requires_grad=True)
    y = (x * 2).detach_()  # not a view: allowed
    assert not y.requires_grad and y.grad_fn is None
    assert x.detach().detach_() is not None


# --- views taken under no_grad ---


def test_view_taken_under_no_grad_requires_grad_without_an_edge():
    x = mt.ones(2, 3, requires_grad=True)
    with mt.no_grad():
        v = x[0]
        w = v.view(3)
    assert (v.requires_grad, v.is_leaf, v.grad_fn) == (True, True, None)
    assert (w.requires_grad, w.is_leaf) == (True, True)
    y = v * 2
    assert y.requires_grad and y.grad_fn is not None
    assert y.grad_fn.next_functions == ((None, 0), (None, 0))
    y.sum().backward()  # runs; the gradient reaches neither the view nor its base
    assert x.grad is None and v.grad is None
    s = v[0:2]  # a view of it taken with grad mode on is recorded
    assert s.grad_fn.name() == "SliceBackward0" and not s.is_leaf
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        mt.autograd.grad((v * 2).sum(), v)
    v.requires_grad_(False)  # inherited from the base: stays
    assert v.requires_grad
    v.retain_grad()  # a leaf: nothing to retain
    assert not v.retains_grad
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        v.mul_(2)


def test_view_under_no_grad_of_a_tensor_without_grad_does_not_require_grad():
    y = mt.ones(3)
    with mt.no_grad():
        z = y[0:2]
    assert not z.requires_grad


# --- saved tensors of composite nodes ---


def _leaf(values):
    return mt.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


A = [[0.2, 0.7, 0.4], [0.9, 0.1, 0.6], [0.3, 0.8, 0.5]]
T = [[0.5, 0.1, 0.9], [0.2, 0.3, 0.6], [0.7, 0.4, 0.8]]

# name -> (function of (x, y), which of them torch's node saves)
COMPOSITES = {
    "mse_loss": (lambda x, y: F.mse_loss(x, y), "xy"),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x, y, beta=10.0), "xy"),
    "huber_loss": (lambda x, y: F.huber_loss(x, y), "xy"),
    "binary_cross_entropy": (lambda x, y: F.binary_cross_entropy(x, y.detach()), "xy"),
    "bce_with_logits": (lambda x, y: F.binary_cross_entropy_with_logits(x, y), "xy"),
    "soft_margin_loss": (lambda x, y: F.soft_margin_loss(x, y.detach()), "xy"),
    "multi_margin_loss": (lambda x, y: F.multi_margin_loss(x, mt.tensor([0, 2, 1])), "x"),
    "multilabel_margin_loss": (
        lambda x, y: F.multilabel_margin_loss(x, mt.tensor([[0, 2, -1], [1, -1, 0], [2, 1, 0]])),
        "x",
    ),
    "adaptive_avg_pool2d": (lambda x, y: F.adaptive_avg_pool2d(x[None], 2), "x"),
    "adaptive_avg_pool1d": (lambda x, y: F.adaptive_avg_pool1d(x, 2), "x"),
    "adaptive_max_pool2d": (lambda x, y: F.adaptive_max_pool2d(x[None], 2), "x"),
    "adaptive_max_pool1d": (lambda x, y: F.adaptive_max_pool1d(x, 2), "x"),
    "fractional_max_pool2d": (
        lambda x, y: F.fractional_max_pool2d(
            x[None, None],
            2,
            output_size=2,
            _random_samples=mt.tensor([[[0.5, 0.5]]], dtype=mt.float64),
        ),
        "x",
    ),
}


@pytest.mark.parametrize("name", list(COMPOSITES))
def test_composite_refuses_a_saved_argument_changed_in_place(name):
    fn, saved = COMPOSITES[name]
    for which in "xy":
        a, t = _leaf(A), _leaf(T)
        x, y = a * 1, t * 1
        out = fn(x, y)
        out = out[0] if isinstance(out, tuple) else out
        (x if which == "x" else y).add_(0.1)
        if which in saved:
            with pytest.raises(RuntimeError, match=MODIFIED):
                out.sum().backward()
        else:
            out.sum().backward()


@pytest.mark.parametrize("name", ["mse_loss", "huber_loss", "adaptive_avg_pool2d"])
def test_composite_result_changed_in_place_keeps_its_gradient(name):
    fn, _ = COMPOSITES[name]
    a, t = _leaf(A), _leaf(T)
    fn(a * 1, t * 1).sum().backward()
    expected = _np(a.grad)
    b, u = _leaf(A), _leaf(T)
    out = fn(b * 1, u * 1)
    out.mul_(2)  # torch's node does not save its result
    out.sum().backward()
    np.testing.assert_allclose(_np(b.grad), 2 * expected, err_msg=name)


def test_one_node_saved_names_arguments_and_result():
    # the inner ops (additions) save nothing: only `saved` makes backward check versions
    @one_node("ShiftedSumBackward0", saved=("a", "result"))
    def shifted_sum(a, b):
        return a + b + 1

    def run(change):
        a, b = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
        x, y = a * 1, b * 1
        out = shifted_sum(x, y)
        assert out.grad_fn.name() == "ShiftedSumBackward0"
        {"a": x, "b": y, "result": out}[change].mul_(2)
        out.sum().backward()
        return a.grad

    for change in ("a", "result"):
        with pytest.raises(RuntimeError, match=MODIFIED):
            run(change)
    np.testing.assert_allclose(_np(run("b")), [1.0, 1.0], err_msg="b is not saved")


def test_composite_modified_message_names_the_tensor():
    a = _leaf([[1.0, 2.0], [3.0, 5.0]])
    x = a * 1
    loss = F.mse_loss(x, mt.zeros(2, 2, dtype=mt.float64))
    x.add_(1)
    with pytest.raises(RuntimeError) as err:
        loss.backward()
    msg = str(err.value)
    assert "[torch.DoubleTensor [2, 2]], which is output 0 of Add" in msg, msg
    assert "is at version 1; expected version 0 instead" in msg, msg


# --- erfinv saves its input, as torch ---


def test_erfinv_result_changed_in_place_keeps_its_gradient():
    vals = [0.1, 0.2, 0.3, 0.5]
    a = _leaf(vals)
    y = a.erfinv()
    inv = _np(y).copy()
    np.testing.assert_allclose([math.erf(v) for v in inv], vals, rtol=1e-12, err_msg="erfinv")
    y.mul_(2)
    y.sum().backward()
    expected = 2 * math.sqrt(math.pi) / 2 * np.exp(inv**2)
    np.testing.assert_allclose(_np(a.grad), expected, rtol=1e-12, err_msg="grad")
    assert a.erfinv().grad_fn._saved_self is a


def test_erfinv_input_changed_in_place_raises():
    a = _leaf([0.1, 0.2])
    x = a * 1
    y = x.erfinv()
    x.mul_(0.5)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


def test_erfinv_gradients():
    a = _leaf([-0.7, -0.2, 0.1, 0.45, 0.8])
    assert mt.autograd.gradcheck(mt.erfinv, (a,))
    assert mt.autograd.gradgradcheck(mt.erfinv, (a,))
