"""Custom autograd.Function: argument binding, save_for_backward checks, non-differentiable
inputs returned as-is, mark_dirty on tensors not returned (torch's behaviour, sweep 7)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import Function, gradcheck, gradgradcheck


def _leaf(values, dtype=mt.float64):
    return mt.tensor(values, dtype=dtype, requires_grad=True)


# --- NOTE [ Binding a custom Function's arguments ] ---


class _ScaleSetup(Function):
    """forward(x, scale=2.0); setup_context keeps the scale from `inputs`."""

    seen = []

    @staticmethod
    def forward(x, scale=2.0):
        return x * scale

    @staticmethod
    def setup_context(ctx, inputs, output):
        _ScaleSetup.seen.append(inputs[1:])
        ctx.scale = inputs[-1]

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale, None


@pytest.mark.parametrize(
    "call, scale",
    [
        (lambda x: _ScaleSetup.apply(x, scale=5.0), 5.0),
        (lambda x: _ScaleSetup.apply(x), 2.0),
        (lambda x: _ScaleSetup.apply(x, 3.0), 3.0),
        (lambda x: _ScaleSetup.apply(x=x, scale=4.0), 4.0),
    ],
)
def test_setup_context_inputs_bind_keywords_and_defaults(call, scale):
    x = _leaf([1.0, -2.0, 0.5])
    _ScaleSetup.seen.clear()
    y = call(x)
    assert _ScaleSetup.seen == [(scale,)]
    assert y.grad_fn.needs_input_grad == (True, False)
    upstream = mt.tensor([0.3, -1.1, 2.0], dtype=mt.float64)
    y.backward(upstream)
    np.testing.assert_allclose(x.grad.numpy(), scale * upstream.numpy(), rtol=0, atol=0)


def test_setup_context_binding_gradcheck():
    x = _leaf([0.7, -1.3, 2.1])
    assert gradcheck(lambda t: _ScaleSetup.apply(t, scale=-1.5), (x,))
    assert gradgradcheck(lambda t: _ScaleSetup.apply(t, scale=-1.5) ** 2, (x,))


def test_setup_context_binding_counts_gradients_of_defaults():
    class OneGrad(Function):
        @staticmethod
        def forward(x, scale=2.0):
            return x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad):
            return grad  # one gradient for two inputs (x and the bound default)

    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 1\)"):
        OneGrad.apply(_leaf([1.0])).sum().backward()


def _setup_fn(forward):
    class F(Function):
        seen = []

        @staticmethod
        def setup_context(ctx, inputs, output):
            F.seen.append(tuple(i if not isinstance(i, mt.Tensor) else "T" for i in inputs))

        @staticmethod
        def backward(ctx, grad):
            return (grad,) + (None,) * (len(F.seen[-1]) - 1)

    F.forward = staticmethod(forward)
    return F


def test_setup_context_varargs_are_inputs():
    F = _setup_fn(lambda x, *rest: x * 1)
    F.apply(_leaf([1.0]), 1, 2)
    F.apply(_leaf([1.0]))
    assert F.seen == [("T", 1, 2), ("T",)]


@pytest.mark.parametrize(
    "forward, kwargs, msg",
    [
        (lambda x, *, scale: x * scale, {"scale": 2.0}, "unexpected keyword argument 'scale'"),
        (lambda x, *, scale=3.0: x * scale, {}, "unexpected keyword argument 'scale'"),
        (lambda x, **kw: x, {"a": 1}, "unexpected keyword argument 'a'"),
        (lambda x, scale: x * scale, {}, "missing a required argument: 'scale'"),
        (lambda x, scale: x * scale, {"foo": 1, "scale": 1}, "unexpected keyword argument 'foo'"),
    ],
)
def test_setup_context_refuses_what_forward_cannot_take_positionally(forward, kwargs, msg):
    F = _setup_fn(forward)
    for grad_mode in (True, False):
        with mt.set_grad_enabled(grad_mode), pytest.raises(TypeError, match=msg):
            F.apply(_leaf([1.0]), **kwargs)
    assert F.seen == []
    with pytest.raises(TypeError, match="too many positional arguments"):
        _setup_fn(lambda x, scale: x * scale).apply(_leaf([1.0]), 1, 2)


def _old_fn(forward):
    class F(Function):
        @staticmethod
        def backward(ctx, grad):
            return grad, None, None

    F.forward = staticmethod(forward)
    return F


def test_old_style_keywords_go_to_their_positions():
    seen = []

    def forward(ctx, x, a=1, b=2):
        seen.append((a, b, len(ctx.needs_input_grad)))
        return x * a * b

    F = _old_fn(forward)
    x = _leaf([1.0, 2.0])
    w = _leaf([3.0, 4.0])
    y = F.apply(x, 7, b=w)  # a tensor passed by keyword is an input: recorded
    assert seen[-1][:2] == (7, w) and seen[-1][2] == 3
    assert y.grad_fn.needs_input_grad == (True, False, True)
    F.apply(x)  # forward fills its own defaults
    assert seen[-1] == (1, 2, 1)


@pytest.mark.parametrize(
    "forward, args, kwargs, msg",
    [
        (lambda ctx, x, *, scale=2.0: x, (), {"scale": 1.0}, "unexpected keyword argument 'scale'"),
        (lambda ctx, x, **kw: x, (), {"q": 1}, "unexpected keyword argument 'q'"),
        (lambda ctx, x, *r: x, (), {"q": 1}, "unexpected keyword argument 'q'"),
        (lambda ctx, x, a: x, (1,), {"ctx": 1}, "unexpected keyword argument 'ctx'"),
        (lambda ctx, x, a=1, b=2: x, (), {"x": 1}, "multiple values for argument 'x'"),
        (
            lambda ctx, x, a=1, b=2: x,
            (),
            {"b": 5},
            r"missing required argument: 'a' \(position 1\)",
        ),
    ],
)
def test_old_style_keyword_errors(forward, args, kwargs, msg):
    with pytest.raises(TypeError, match=msg):
        _old_fn(forward).apply(_leaf([1.0]), *args, **kwargs)


def test_old_style_keyword_only_default_untouched_without_keywords():
    F = _old_fn(lambda ctx, x, *, scale=3.0: x * scale)
    assert F.apply(_leaf([1.0])).tolist() == [3.0]


# --- save_for_backward of a non-tensor: checked only where a node keeps it ---


class _SaveNumber(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x, k)
        return x * k

    @staticmethod
    def backward(ctx, grad):
        return grad, None


def test_save_for_backward_non_tensor_without_graph_is_accepted():
    x = _leaf([1.0, 2.0])
    with mt.no_grad():
        assert _SaveNumber.apply(x, 2).tolist() == [2.0, 4.0]
    with mt.inference_mode():
        assert _SaveNumber.apply(x, 3).tolist() == [3.0, 6.0]
    y = _SaveNumber.apply(mt.tensor([1.0, 2.0]), 2.5)
    assert y.tolist() == [2.5, 5.0] and not y.requires_grad
    with pytest.raises(TypeError, match="argument 1 is of type int"):
        _SaveNumber.apply(x, 2)


# --- mark_non_differentiable on an input returned as-is ---


class _PassMask(Function):
    @staticmethod
    def forward(ctx, x, mask):
        ctx.mark_non_differentiable(mask)
        return x * mask, mask

    @staticmethod
    def backward(ctx, grad, grad_mask):
        assert grad_mask is not None and not grad_mask.any()  # materialized zeros
        return grad * ctx.needs_input_grad[0], None


def test_non_differentiable_input_returned_is_a_detached_alias():
    x = _leaf([1.0, 2.0, 3.0])
    m = _leaf([1.0, 0.0, 1.0])
    y, m2 = _PassMask.apply(x, m)
    assert m2 is not m and m2._base is None
    assert not m2.requires_grad and m2.grad_fn is None and m2.is_leaf
    assert y.requires_grad and y.grad_fn is not None
    m2.add_(1)  # allowed (detached), and seen by the input: same data and version counter
    assert m.tolist() == [2.0, 1.0, 2.0] and m._version == 1
    upstream = mt.tensor([0.5, -2.0, 4.0], dtype=mt.float64)
    y.backward(upstream)
    np.testing.assert_allclose(x.grad.numpy(), upstream.numpy(), rtol=0, atol=0)
    assert m.grad is None


def test_non_differentiable_non_leaf_input_returned():
    x = _leaf([1.0, 2.0])
    h = x * 2
    y, h2 = _PassMask.apply(x, h)
    assert h2 is not h and h2._base is None and h2.grad_fn is None and not h2.requires_grad
    assert y.grad_fn is not None


def test_non_differentiable_input_without_grad_returned_is_a_view():
    x = _leaf([1.0, 2.0])
    m = mt.tensor([1.0, 0.0], dtype=mt.float64)
    _, m2 = _PassMask.apply(x, m)
    assert m2 is not m and m2._base is m and not m2.requires_grad and m2.grad_fn is None


def test_input_returned_under_no_grad_is_detached():
    class Ret(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    m = _leaf([1.0, 2.0])
    with mt.no_grad():
        r = Ret.apply(m)
    assert r is not m and r._base is None and not r.requires_grad and r.is_leaf
    r.mul_(3)  # a detached alias: in-place with grad mode on is allowed
    assert m.tolist() == [3.0, 6.0]
    plain = mt.tensor([1.0, 2.0])
    r2 = Ret.apply(plain)
    assert r2._base is plain and not r2.requires_grad


def test_non_differentiable_view_made_in_forward_keeps_requires_grad():
    class PassView(Function):
        @staticmethod
        def forward(ctx, x):
            v = x.view(-1)
            ctx.mark_non_differentiable(v)
            return v

        @staticmethod
        def backward(ctx, grad):
            return grad

    m = _leaf([[1.0, 2.0]])
    v = PassView.apply(m)
    assert v._base is m and v.requires_grad and v.grad_fn is None
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        v.mul_(2)


# --- mark_dirty on a tensor not returned ---


def test_mark_dirty_without_returning_raises():
    class ScaleInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    msg = "Some elements marked as dirty during the forward method were not returned as output"
    for make, grad_mode in [
        (lambda: _leaf([1.0, 1.0]) * 1, True),
        (lambda: _leaf([1.0, 1.0]) * 1, False),
        (lambda: mt.ones(2), True),
    ]:
        a = make()
        with mt.set_grad_enabled(grad_mode), pytest.raises(RuntimeError, match=msg):
            ScaleInplace.apply(a)
        assert a._version == 2 and a.tolist() == [2.0, 2.0]  # mul_ and the dirty mark


def test_mark_dirty_returned_still_works():
    class MulInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(3)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    x = _leaf([1.0, 2.0])
    h = x * 1
    y = MulInplace.apply(h)
    assert y is h and type(y.grad_fn).__name__ == "MulInplaceBackward"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_old_style_positional_only_parameter_named_by_keyword():
    seen = []

    def forward(ctx, x, /, a):
        seen.append(a)
        return x * a

    _old_fn(forward).apply(_leaf([1.0]), a=3.0)
    assert seen == [3.0]


class _ExpOfView(Function):
    """exp(x), returned as a view made inside forward (a cat sliced back) and saved as the
    output: its backward reads only the saved output."""

    @staticmethod
    def forward(ctx, x):
        y = mt.cat([x.exp(), x])[: x.shape[0]]
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


@pytest.mark.parametrize("hooked", [False, True])
def test_saved_output_that_is_a_view_keeps_its_node(hooked):
    # The saved output unpacks with this node as grad_fn, so a double backward through it
    # reaches x (it used to unpack as a constant: a second derivative of 0).
    class SaveOutput(Function):
        @staticmethod
        def forward(ctx, x):
            y = mt.cat([x * x, x])[:3]
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            assert y.requires_grad and type(y.grad_fn).__name__ == "SaveOutputBackward"
            return grad * y * 2

    x = _leaf([1.0, 2.0, 3.0])
    hooks = (lambda t: t, lambda t: t) if hooked else None
    with mt.autograd.graph.saved_tensors_hooks(*hooks) if hooked else _nullcontext():
        y = SaveOutput.apply(x)
    (g,) = mt.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 8.0, 18.0]
    (gg,) = mt.autograd.grad(g.sum(), x)
    assert gg.tolist() == [4.0, 16.0, 36.0]  # torch's values: d(2 y)/dx = 2 * 2x


def test_saved_view_output_gradgradcheck():
    x = mt.tensor([0.5, -1.5, 2.0], dtype=mt.float64, requires_grad=True)
    assert gradcheck(_ExpOfView.apply, (x,))
    assert gradgradcheck(_ExpOfView.apply, (x,))


def test_input_returned_and_saved_stays_an_input():
    class ReturnInput(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            assert x.grad_fn is None and x.requires_grad  # the leaf, not this node's output
            return grad * x

    x = _leaf([2.0, 3.0])
    ReturnInput.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 3.0]


def _nullcontext():
    import contextlib

    return contextlib.nullcontext()
