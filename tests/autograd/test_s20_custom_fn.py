"""Custom autograd.Function outputs as torch wraps them: mark_dirty / mark_non_differentiable
checks, outputs of a Function called without a node, views among several outputs, inputs
returned as-is and saved, saved non-differentiable outputs (session 20 differential fuzzing;
torch's values stated as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

Function = mt.autograd.Function


def _leaf(n=3, requires_grad=True):
    return mt.linspace(-1.0, 2.0, n, dtype=mt.float64).requires_grad_(requires_grad)


class _Scale(Function):
    """forward(a, b) = a * 2 + b (b may be unused)."""

    @staticmethod
    def backward(ctx, *grads):
        return grads[0] * 2, grads[0]


def _fn(forward, backward=None, setup_context=None):
    attrs = {"forward": staticmethod(forward)}
    if backward is not None:
        attrs["backward"] = staticmethod(backward)
    if setup_context is not None:
        attrs["setup_context"] = staticmethod(setup_context)
    return type("F", (_Scale,), attrs)


# --- the marks: tensors only, every dirty tensor bumped ---


@pytest.mark.parametrize("value", [3, None])
def test_mark_non_differentiable_refuses_non_tensors(value):
    def forward(ctx, a, b):
        ctx.mark_non_differentiable(value)
        return a * 2

    F = _fn(forward)
    for x in (_leaf(), _leaf(requires_grad=False)):  # checked with or without a node
        with pytest.raises(
            RuntimeError, match="^mark_non_differentiable only accepts variable arguments"
        ):
            F.apply(x, x)


def test_mark_dirty_refuses_non_tensors():
    def forward(ctx, a, b):
        ctx.mark_dirty(3)
        return a * 2

    with pytest.raises(RuntimeError, match="^mark_dirty can only accept variables"):
        _fn(forward).apply(_leaf(), _leaf())


def _dirty_forward(ctx, a, b):
    a.mul_(2)
    ctx.mark_dirty(a)
    return a


def test_dirty_input_under_no_grad_is_returned_detached():
    # torch: a dirty input that requires grad, with no node recorded, comes back as a detached
    # alias (the input keeps requiring grad); its version is bumped by mul_ and by mark_dirty
    x = _leaf()
    with mt.no_grad():
        out = _fn(_dirty_forward).apply(x, mt.ones(3, dtype=mt.float64))
    assert out is not x
    assert (out.requires_grad, out.is_leaf, out.grad_fn, out._is_view()) == (
        False,
        True,
        None,
        False,
    )
    assert x.requires_grad and x._version == 2 and out._version == 2
    np.testing.assert_allclose(x.detach().numpy(), [-2.0, 1.0, 4.0])


def test_dirty_input_marked_non_differentiable_is_returned_detached():
    def forward(ctx, a, b):
        a.mul_(2)
        ctx.mark_dirty(a)
        ctx.mark_non_differentiable(a)
        return a

    x = _leaf()
    y = x * 1.5
    out = _fn(forward).apply(y, mt.ones(3, dtype=mt.float64))
    assert (out.requires_grad, out.is_leaf, out.grad_fn, out._version) == (False, True, None, 2)
    assert type(y.grad_fn).__name__ == "MulBackward0"


def test_dirty_view_of_leaf_is_refused():
    x = _leaf(4)
    with pytest.raises(
        RuntimeError,
        match="^a view of a leaf Variable that requires grad is being used in an in-place",
    ):
        _fn(_dirty_forward).apply(x[1:], mt.ones(3, dtype=mt.float64))


@pytest.mark.parametrize("extra", ["tensor", "number", "none"])
def test_dirty_view_with_several_outputs_is_refused(extra):
    def forward(ctx, a, b):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a, {"tensor": a * 2, "number": 3, "none": None}[extra]

    x = _leaf(4)
    with pytest.raises(
        RuntimeError,
        match="^If your Function modifies inplace an input that is a view of another Tensor, "
        "your Function cannot return more than one Tensor",
    ):
        _fn(forward).apply((x * 1)[1:], mt.ones(3, dtype=mt.float64))


def test_dirty_input_edges_are_the_history_before_forward():
    # a Function dirtying a view input: its other outputs' edge is the view's node of before
    # the in-place change (torch collects the edges before forward runs)
    def forward(ctx, a, b):
        a.mul_(2)
        ctx.mark_dirty(a)
        ctx.mark_non_differentiable(a)
        return a, a - b

    x = _leaf(4)
    b = mt.ones(3, dtype=mt.float64)
    _, out1 = _fn(forward, lambda ctx, g0, g1: (g1, -g1)).apply(x[1:], b)
    assert type(out1.grad_fn.next_functions[0][0]).__name__ == "SliceBackward0"
    out1.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1.0, 1.0, 1.0])


# --- inputs returned as-is and saved by a setup_context Function ---


def _setup_saving_b(ctx, inputs, output):
    ctx.save_for_backward(inputs[1])


def _forward_returning_b(a, b):
    return a * 2, b


def test_setup_context_saving_an_input_returned_as_is_is_refused():
    F = _fn(_forward_returning_b, setup_context=_setup_saving_b)
    x, b = _leaf(), mt.ones(3, dtype=mt.float64)
    match = "^An input that has been returned as-is as output is being saved for backward"
    with pytest.raises(RuntimeError, match=match):
        F.apply(x, b)
    with pytest.raises(RuntimeError, match=match), mt.no_grad():  # refused without a node too
        F.apply(x, b)
    # under no_grad an input that requires grad comes back detached, not as a view: allowed
    b = _leaf()
    with mt.no_grad():
        out0, out1 = F.apply(x, b)
    assert (out1.requires_grad, out1._is_view(), out1 is b) == (False, False, False)


# --- views among the outputs ---

_MULTI = "This view is the output of a function that returns multiple views."
_CUSTOM = "This view was created inside a custom Function"


def _view_and_op(ctx, a, b):
    return (a * b).view(-1), a - b


def test_view_among_several_outputs_names_multiple_views():
    x, b = _leaf(), mt.ones(3, dtype=mt.float64)
    out0, _ = _fn(_view_and_op).apply(x, b)
    with pytest.raises(RuntimeError, match=f"^Output 0 of F is a view and is being .*{_MULTI}"):
        out0.add_(1)


def test_input_returned_among_several_outputs_names_multiple_views():
    def forward(ctx, a, b):
        return a * 2, a - b, b

    x, b = _leaf(), _leaf()
    *_, out2 = _fn(forward, lambda ctx, g0, g1, g2: (g0, g2)).apply(x, b)
    with mt.no_grad():
        b.add_(1)
    with pytest.raises(
        RuntimeError,
        match=f"^Output 2 of F is a view and its base or another view of its base has "
        f"been modified inplace. {_MULTI}",
    ):
        (out2 * 1).sum()


def test_view_returned_under_no_grad_is_marked_as_custom():
    def forward(ctx, a, b):
        return a.view(-1)

    x = _leaf()
    with mt.no_grad():
        out = _fn(forward).apply(x, x)
    assert (out.requires_grad, out.grad_fn, out._is_view(), out._base is x) == (
        True,
        None,
        True,
        True,
    )
    with pytest.raises(
        RuntimeError,
        match=f"^A view was created in no_grad mode and is being modified inplace with grad mode "
        f"enabled. {_CUSTOM}",
    ):
        out.add_(1)
    with mt.no_grad():
        out.add_(1)
    with pytest.raises(
        RuntimeError,
        match="^A view was created in no_grad mode and its base or another view of its base has "
        f"been modified inplace with grad mode enabled. {_CUSTOM}",
    ):
        _ = out.grad_fn


def test_input_returned_as_is_with_a_node_refuses_a_changed_base():
    # the returned view's history is the Function's node, even where its base needs no grad
    def forward(ctx, a, b):
        return a

    a, b = mt.ones(3, dtype=mt.float64), _leaf()
    out = _fn(forward).apply(a, b)
    with mt.no_grad():
        a.add_(1)
    with pytest.raises(
        RuntimeError,
        match="^Output 0 of F is a view and its base or another view of its base has "
        f"been modified inplace. {_CUSTOM}",
    ):
        (out * 2).sum()


# --- what backward unpacks ---


def test_saved_non_differentiable_output_has_no_history():
    seen = []

    def forward(ctx, a, b):
        idx = (a > 0).long()
        ctx.save_for_backward(idx)
        return a * 2, idx

    def backward(ctx, g0, g1):
        (idx,) = ctx.saved_tensors
        seen.append((idx.requires_grad, idx.grad_fn, idx.dtype, idx.tolist()))
        return g0 * 2, None

    x = _leaf()
    out0, idx = _fn(forward, backward).apply(x, x.detach())
    assert (idx.requires_grad, idx.grad_fn) == (False, None)
    out0.sum().backward()
    assert seen == [(False, None, mt.int64, [0, 1, 1])]
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_saved_tensor_hooks_unpack_a_plain_intermediate_as_returned():
    keep = {}

    def forward(ctx, a, b):
        inter = a.detach() * 3
        keep["view"] = inter.t()
        ctx.save_for_backward(keep["view"])
        return a * 2

    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        keep["same"] = v is keep["view"]
        keep["is_view"] = v._is_view()
        return g * 2, None

    x = mt.ones(2, 2, dtype=mt.float64, requires_grad=True)
    with mt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = _fn(forward, backward).apply(x, x.detach())
    y.sum().backward()
    assert (keep["same"], keep["is_view"]) == (True, True)


# --- the version of a new .grad ---


def test_new_grad_copied_from_the_gradient_starts_at_version_one():
    # torch steals a gradient nothing else holds (version 0) and otherwise copies it into new
    # memory with copy_ (version 1): an expanded, transposed or caller's gradient
    def version(step):
        x = mt.ones(2, 3, requires_grad=True)
        step(x)
        return x.grad._version

    g = mt.ones(2, 3)
    steps = [
        lambda x: (x * 1).sum().backward(),
        lambda x: x.sum().backward(),
        lambda x: (x * 1).backward(g),
        lambda x: x.backward(g),
        lambda x: x.t().sum().backward(),
        lambda x: (x.t() * 2).sum().backward(),
    ]
    assert [version(s) for s in steps] == [0, 1, 0, 1, 1, 1]
