"""Edges of the autograd and torch.func APIs where minitorch must behave as PyTorch does."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import func
from minitorch.autograd import forward_ad as fwAD
from minitorch.autograd.gradcheck import gradcheck, gradgradcheck


def _close(actual, expected, msg):
    np.testing.assert_allclose(
        np.asarray(actual.detach().numpy() if isinstance(actual, mt.Tensor) else actual),
        np.asarray(expected),
        rtol=1e-6,
        atol=1e-12,
        err_msg=msg,
    )


# --- grad_outputs / grad_tensors counts ---


def test_fewer_gradients_than_outputs_raise():
    x = mt.ones(3, requires_grad=True)
    y = mt.ones(3, requires_grad=True)
    outs = [(x * 2).sum(), (y * 3).sum()]
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        mt.autograd.grad(outs, [x, y], grad_outputs=[mt.tensor(5.0)])
    with pytest.raises(RuntimeError, match="got 2 tensors and 0 gradients"):
        mt.autograd.grad(outs, [x, y], grad_outputs=[])
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        mt.autograd.backward(outs, [mt.tensor(5.0)])
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        mt.autograd.backward(outs, mt.tensor(5.0))
    assert x.grad is None and y.grad is None  # nothing ran
    # written-out Nones are implicit gradients; extra gradients are ignored (torch zips them)
    gx, gy = mt.autograd.grad(outs, [x, y], grad_outputs=[None, mt.tensor(5.0)], retain_graph=True)
    _close(gx, [2.0, 2.0, 2.0], "implicit gradient")
    _close(gy, [15.0, 15.0, 15.0], "given gradient")
    (gx,) = mt.autograd.grad([outs[0]], [x], grad_outputs=[mt.tensor(4.0), mt.tensor(9.0)])
    _close(gx, [8.0, 8.0, 8.0], "extra gradient ignored")


# --- views returned by custom Functions ---


class _Flatten(mt.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a.view(-1)

    @staticmethod
    def backward(ctx, g):
        return g.view(2, 2)


class _Ident(mt.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a

    @staticmethod
    def backward(ctx, g):
        return g * 2


_CUSTOM_VIEW = "This view was created inside a custom Function"


def test_custom_function_view_output_is_a_view_of_its_base():
    w = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64, requires_grad=True)
    base = w * 1
    out = _Flatten.apply(base)
    assert out._base is base and out._is_view() and not base._is_view()
    assert type(out.grad_fn).__name__ == "_FlattenBackward"
    c = mt.tensor([1.0, -2.0, 3.0, 5.0], dtype=mt.float64)
    (out * c).sum().backward()
    _close(w.grad, [[1.0, -2.0], [3.0, 5.0]], "gradient through the custom view")
    assert gradcheck(_Flatten.apply, (w,)) and gradgradcheck(_Flatten.apply, (w,))


def test_inplace_on_custom_function_view_is_refused():
    w = mt.ones(2, 2, requires_grad=True)
    base = w * 1
    out = _Flatten.apply(base)
    with pytest.raises(
        RuntimeError,
        match=f"Output 0 of _Flatten is a view and is being modified inplace. {_CUSTOM_VIEW}",
    ):
        out.mul_(3)
    with pytest.raises(RuntimeError, match="Output 0 of Slice is a view and is being modified"):
        out[:2].relu_()  # a view of the view inherits the rule
    _close(base, np.ones((2, 2)), "the base is unchanged")
    same = _Ident.apply(base)  # an input returned as-is is a view too
    assert same._base is base and same is not base
    with pytest.raises(RuntimeError, match="Output 0 of _Ident is a view and is being modified"):
        same.add_(1)
    # a leaf base is refused as well (the leaf keeps its value)
    with pytest.raises(RuntimeError):
        _Flatten.apply(w).mul_(3)
    _close(w, np.ones((2, 2)), "the leaf is unchanged")


def test_custom_function_view_whose_base_changed_is_refused_at_use():
    w = mt.ones(2, 2, requires_grad=True)
    base = w * 1
    out = _Flatten.apply(base)
    base.mul_(2)
    msg = "Output 0 of _Flatten is a view and its base or another view of its base has been"
    with pytest.raises(RuntimeError, match=msg):
        out.grad_fn  # noqa: B018
    with pytest.raises(RuntimeError, match=msg):
        out.sum().backward()  # still refused: the error is not a one-off
    out2 = _Flatten.apply(w * 1)
    with mt.no_grad():
        out2.mul_(3)  # allowed without grad mode, but the history is then unusable
    with pytest.raises(RuntimeError, match=msg):
        out2.sum().backward()


# --- ctx.save_for_forward ---


class _Scale(mt.autograd.Function):
    generate_vmap_rule = True  # jacfwd vmaps it (torch refuses a Function without a vmap rule)

    @staticmethod
    def forward(a, k):
        return a * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        a, k = inputs
        ctx.k = k
        ctx.save_for_forward(a, None)

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None

    @staticmethod
    def jvp(ctx, ta, tk):
        return ta * ctx.k


def test_save_for_forward_and_forward_mode_through_a_custom_function():
    x = mt.tensor([1.0, 2.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, mt.tensor([1.0, -1.0]))
        tangent = fwAD.unpack_dual(_Scale.apply(d, 3.0)).tangent
    _close(tangent, [3.0, -3.0], "forward_ad tangent")
    _, jv = func.jvp(lambda a: _Scale.apply(a, 2.0), (x,), (mt.tensor([0.5, 1.0]),))
    _close(jv, [1.0, 2.0], "func.jvp")
    _close(func.jacfwd(lambda a: _Scale.apply(a, 2.0))(x), 2.0 * np.eye(2), "jacfwd")
    ctx_saved = _Scale.apply(x.requires_grad_(), 2.0).grad_fn._saved_for_forward
    assert ctx_saved[0] is x and ctx_saved[1] is None

    class Bad(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_forward(a, 3)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(AssertionError, match="save_for_forward expects all arguments to be"):
        Bad.apply(x)


# --- backward() inside torch.func transforms ---

_IN_TRANSFORM = "backward\\(\\) called inside a functorch transform"


def _calls_backward(a):
    loss = (a * 2).sum()
    loss.backward()
    return loss


def test_backward_inside_a_transform_is_refused():
    x = mt.ones(2)
    with pytest.raises(RuntimeError, match=_IN_TRANSFORM):
        func.grad(_calls_backward)(x)
    with pytest.raises(RuntimeError, match=_IN_TRANSFORM):
        func.vjp(_calls_backward, x)
    with pytest.raises(RuntimeError, match=_IN_TRANSFORM):
        func.vmap(_calls_backward)(mt.ones(3, 2))
    with pytest.raises(RuntimeError, match=_IN_TRANSFORM):
        func.jacrev(_calls_backward)(x)
    # autograd.grad stays allowed inside, and backward works again once outside
    g = func.grad(lambda a: mt.autograd.grad((a**3).sum(), a, create_graph=True)[0].sum())(x)
    _close(g, [6.0, 6.0], "autograd.grad inside grad")
    w = mt.ones(2, requires_grad=True)
    _calls_backward(w)
    _close(w.grad, [2.0, 2.0], "backward outside")


# --- hooks ---


def test_post_accumulate_grad_hook_returning_a_value():
    p = mt.ones(3, requires_grad=True)
    p.register_post_accumulate_grad_hook(lambda t: t.grad.mul_(0.5))
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None"):
        (p * 2).sum().backward()
    q = mt.ones(3, requires_grad=True)
    q.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError, match="hook returned 'int'"):
        q.sum().backward()
    h = q.register_hook(lambda g: g)
    assert type(h).__name__ == "RemovableHandle"


# --- has_aux ---


def test_aux_outputs_must_be_tensors():
    x = mt.ones(2)

    def f(a):
        return (a**2).sum(), {"step": 3}

    for call in (
        lambda: func.grad(f, has_aux=True)(x),
        lambda: func.grad_and_value(f, has_aux=True)(x),
        lambda: func.vjp(f, x, has_aux=True),
        lambda: func.jvp(f, (x,), (x,), has_aux=True),
        lambda: func.jacrev(f, has_aux=True)(x),
        lambda: func.jacfwd(f, has_aux=True)(x),
    ):
        with pytest.raises(
            RuntimeError, match="Expected tensors, got unsupported type <class 'int'>"
        ):
            call()
    with pytest.raises(RuntimeError, match="got unsupported type <class 'NoneType'>"):
        func.grad(lambda a: ((a**2).sum(), None), has_aux=True)(x)
    g, aux = func.grad(lambda a: ((a**2).sum(), (a, [a * 2])), has_aux=True)(x)
    _close(g, [2.0, 2.0], "grad with tensor aux")
    _close(aux[1][0], [2.0, 2.0], "nested tensor aux")


# --- vmap ---

_RANDOM_IN_VMAP = "vmap: called random operation while in randomness error mode"


def test_vmap_refuses_random_ops_in_error_mode():
    x = mt.ones(4, 3)
    mt.manual_seed(0)
    expected = mt.rand(3)
    mt.manual_seed(0)
    with pytest.raises(RuntimeError, match=_RANDOM_IN_VMAP):
        func.vmap(lambda a: a + mt.rand(3))(x)
    with pytest.raises(RuntimeError, match=_RANDOM_IN_VMAP):
        func.vmap(lambda a: mt.nn.functional.dropout(a, 0.5))(x)
    _close(mt.rand(3), expected, "the refused draws left the generator where it was")
    out = func.vmap(lambda a: mt.nn.functional.dropout(a, 0.5, training=False))(x)
    _close(out, np.ones((4, 3)), "no draw, no error")
    diff = func.vmap(lambda a: a + mt.rand(3), randomness="different")(x)
    assert tuple(diff.shape) == (4, 3)


def test_vmap_outputs_none_and_unbatched():
    x = mt.arange(12.0).reshape(4, 3)
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'NoneType'>"):
        func.vmap(lambda a: None)(x)
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'NoneType'>"):
        func.vmap(lambda a: (a, None))(x)
    assert func.vmap(lambda a: None, out_dims=None)(x) is None
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        func.vmap(lambda a: a * 2, out_dims=None)(x)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        func.vmap(lambda a: (a, a.sum()), out_dims=(0, None))(x)
    both = func.vmap(lambda a: (a * 2, mt.ones(2)), out_dims=(0, None))(x)
    _close(both[0], 2 * np.arange(12.0).reshape(4, 3), "batched output")
    _close(both[1], [1.0, 1.0], "unbatched output")


# --- node names of fills ---


def test_fill_and_zero_node_names():
    a = mt.ones(2, requires_grad=True)
    z = (a * 2).zero_()
    f2 = (a * 2).fill_(1.0)
    v = mt.tensor(3.0, requires_grad=True)
    f3 = (a * 2).fill_(v)
    assert type(z.grad_fn).__name__ == "ZeroBackward0" and len(z.grad_fn.next_functions) == 1
    assert type(f2.grad_fn).__name__ == "FillBackward2" and len(f2.grad_fn.next_functions) == 1
    assert type(f3.grad_fn).__name__ == "FillBackward3" and len(f3.grad_fn.next_functions) == 2
    (f3 * mt.tensor([2.0, 5.0])).sum().backward()
    _close(v.grad, 7.0, "fill_ value gradient")
    _close(a.grad, [0.0, 0.0], "filled input gradient")
    # the saved-tensor error names the node as torch does (an overload's number kept)
    for fill, name in ((lambda t: t.zero_(), "Zero"), (lambda t: t.fill_(2.0), "Fill2")):
        b = fill(a * 1)
        d = b * b
        with mt.no_grad():
            b.add_(1)
        with pytest.raises(RuntimeError, match=f"which is output 0 of {name}, is at version 2"):
            d.sum().backward()


# --- public names ---


def test_set_multithreading_enabled():
    from minitorch.autograd.grad_mode import state

    assert state.multithreading
    with mt.autograd.set_multithreading_enabled(False):
        assert not state.multithreading
    assert state.multithreading
    mt.autograd.set_multithreading_enabled(False)  # as a function, it stays set
    assert not state.multithreading
    mt.autograd.set_multithreading_enabled(True)

    @mt.autograd.set_multithreading_enabled(False)
    def inside():
        return state.multithreading

    assert inside() is False and state.multithreading


def test_allow_mutation_on_saved_tensors():
    graph = mt.autograd.graph
    with graph.allow_mutation_on_saved_tensors():
        a = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a.clone()
        out = (b**2).sum()
        b.sin_()
        out.backward()
    _close(a.grad, [2.0, 4.0, 6.0], "backward saw the value before sin_")
    _close(b, np.sin([1.0, 2.0, 3.0]), "the mutation happened")
    with graph.allow_mutation_on_saved_tensors():
        out = (a.exp() * 2).sum()
    with pytest.raises(AssertionError, match="Trying to backward outside"):
        out.backward()
    with pytest.raises(RuntimeError, match="cannot be nested"):
        with graph.allow_mutation_on_saved_tensors():
            with graph.allow_mutation_on_saved_tensors():
                pass
    b = a * 1
    c = b * b
    b.add_(1)  # outside the region mutation is refused again
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_custom_node_apply_runs_its_backward():
    class Triple(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3 + 1

    x = mt.ones(2, requires_grad=True)
    node = Triple.apply(x).grad_fn
    _close(node.apply(mt.tensor([1.0, 2.0])), [4.0, 7.0], "node.apply")
    assert not hasattr((x * 2).grad_fn, "apply")  # built-in nodes have none, as in torch


# --- basic-index backward keeps the gradient's sign ---


def test_slice_and_select_backward_keep_negative_zero():
    a = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a[:2].backward(mt.tensor([1.0, -0.0]))
    g = a.grad.numpy()
    assert list(np.signbit(g)) == [False, True, False], g
    b = mt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b[1].backward(mt.tensor([-0.0, 2.0]))
    assert list(np.signbit(b.grad.numpy()).ravel()) == [False, False, True, False]
    x = mt.tensor([1.0, 2.0, 3.0, 4.0], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: t[1:3] * t[0:2], (x,))
    assert gradgradcheck(lambda t: t[1:3] ** 2, (x,))


def test_inplace_on_a_custom_function_view_of_a_leaf_names_the_custom_function():
    class Flatten(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2, 2)

    w = mt.ones(2, 2, requires_grad=True)
    out = Flatten.apply(w)
    with pytest.raises(RuntimeError, match="Output 0 of Flatten is a view and is being modified"):
        out.relu_()
    assert w.detach().flatten().tolist() == [1.0] * 4


def test_no_grad_exit_without_enter_turns_recording_off_as_torch():
    prev = mt.is_grad_enabled()
    try:
        mt.no_grad().__exit__(None, None, None)  # torch's prev starts False
        assert not mt.is_grad_enabled()
    finally:
        mt.set_grad_enabled(prev)
