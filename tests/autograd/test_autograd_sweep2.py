"""Sweep fixes: numpy() under no_grad, in-place shape ops on views, leaf accumulators (hooks,
frozen leaves, calls), callable nodes, custom Function checks, node names, InplaceFunction.
Expected values are PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck


def _np(t):
    return t.detach().cpu().numpy()


# --- numpy() on a tensor that requires grad ---


def test_numpy_of_a_tensor_requiring_grad_is_allowed_with_grad_mode_off():
    x = mt.tensor([3.0, 1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()
    with mt.no_grad():
        np.testing.assert_array_equal(x.numpy(), [3.0, 1.0, 2.0])

    class NpExp(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = mt.from_numpy(np.exp(a.numpy()))  # forward runs with grad mode off
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    y = NpExp.apply(x)
    assert y.grad_fn.name() == "NpExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.exp([3.0, 1.0, 2.0]), rtol=1e-6)


# --- transpose_ / t_ / swapaxes_ / as_strided_ / squeeze_ on a tensor that is a view ---


@pytest.mark.parametrize(
    "make, op, w, name, expected",
    [
        (
            lambda t: t.view(3, 4),
            lambda y: y.transpose_(0, 1),
            np.arange(12.0).reshape(4, 3),
            "TransposeBackward1",
            [[0.0, 3.0, 6.0], [9.0, 1.0, 4.0]],
        ),
        (
            lambda t: t[1:3],
            lambda y: y.t_(),
            np.arange(6.0).reshape(3, 2),
            "TBackward1",
            [[0.0, 0.0, 0.0], [0.0, 2.0, 4.0]],
        ),
        (
            lambda t: t.permute(1, 0),
            lambda y: y.swapaxes_(0, 1),
            np.arange(12.0).reshape(4, 3),
            "TransposeBackward1",
            [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
        ),
        (
            lambda t: t.view(12),
            lambda y: y.as_strided_((3, 4), (1, 3)),
            np.arange(12.0).reshape(3, 4),
            "AsStridedBackward1",
            [[0.0, 4.0, 8.0], [1.0, 5.0, 9.0]],
        ),
    ],
    ids=["transpose_", "t_", "swapaxes_", "as_strided_"],
)
def test_inplace_shape_op_on_a_view_gives_its_node_and_gradient(make, op, w, name, expected):
    x = mt.ones(4, 3, requires_grad=True)
    y = make(x * 1)
    op(y)
    (y * mt.tensor(w, dtype=mt.float32)).sum().backward()
    assert y.grad_fn.name() == name
    np.testing.assert_allclose(_np(x.grad)[:2], expected, err_msg=name)


def test_inplace_shape_ops_chained_on_a_view():
    x = mt.ones(4, 3, requires_grad=True)
    y = (x * 1)[1:3]
    y.t_()
    y.t_()
    (y * mt.arange(6.0).reshape(2, 3)).sum().backward()
    assert y.grad_fn.name() == "TBackward1"
    np.testing.assert_allclose(
        _np(x.grad), [[0, 0, 0], [0, 1, 2], [3, 4, 5], [0, 0, 0]], err_msg="t_ twice: no-op"
    )

    x = mt.ones(4, 3, requires_grad=True)
    y = (x * 1).view(12)
    y.as_strided_((3, 4), (1, 3))
    y.unsqueeze_(0)
    assert y.shape == (1, 3, 4)
    (y * mt.arange(12.0).reshape(1, 3, 4)).sum().backward()
    assert y.grad_fn.name() == "UnsqueezeBackward1"
    np.testing.assert_allclose(_np(x.grad), [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]])

    x = mt.ones(4, 3, requires_grad=True)
    y = (x * 1).view(3, 4)
    y.squeeze_()
    y.unsqueeze_(1)
    y.squeeze_(1)
    (y * mt.arange(12.0).reshape(3, 4)).sum().backward()
    assert y.grad_fn.name() == "SqueezeBackward4"
    assert y._version == 3
    np.testing.assert_allclose(_np(x.grad)[0], [0, 1, 2])


def test_inplace_write_after_an_inplace_transpose_of_a_view():
    # the view's new shape must reach CopySlices (the region written) and its later replays
    x = mt.ones(4, 3, requires_grad=True)
    b = x * 1
    y = b[1:3].t()[0:2]
    y.transpose_(0, 1)
    y.mul_(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    (b * mt.arange(12.0).reshape(4, 3)).sum().backward()
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    np.testing.assert_allclose(
        _np(x.grad), [[0, 1, 2], [3, 8, 5], [18, 28, 8], [9, 10, 11]], err_msg="mul_ region"
    )


def test_view_transposed_in_place_follows_later_changes_of_its_base():
    expected = [[0, 6, 12], [18, 2, 8], [14, 20, 4], [10, 16, 22]]
    x = mt.ones(4, 3, requires_grad=True)
    b = x * 1
    y = b.view(3, 4)
    y.transpose_(0, 1)
    b.mul_(2)  # y's grad_fn is regenerated from b through its (transposed) chain
    (y * mt.arange(12.0).reshape(4, 3)).sum().backward()
    np.testing.assert_allclose(_np(x.grad), expected)

    buf = mt.zeros(4, 3)  # a base that gains history after the view was transposed
    y = buf.view(3, 4)
    y.transpose_(0, 1)
    w = mt.ones(4, 3, requires_grad=True)
    buf.add_(w * 2)
    assert y.requires_grad
    (y * mt.arange(12.0).reshape(4, 3)).sum().backward()
    np.testing.assert_allclose(_np(w.grad), expected)


def test_inplace_transpose_of_a_view_bumps_the_version_saved_outputs_check():
    x = mt.ones(2, 3, requires_grad=True)
    b = x.exp()  # saves its output
    y = b[0:1]
    y.t_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (y * mt.arange(3.0).reshape(3, 1)).sum().backward()


def test_inplace_shape_op_on_a_view_of_a_leaf_is_refused():
    x = mt.ones(4, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x.view(3, 4).transpose_(0, 1)


def test_inplace_shape_ops_on_views_gradcheck():
    rng = np.random.default_rng(0)
    w1 = mt.tensor(rng.standard_normal((4, 3)))
    w2 = mt.tensor(rng.standard_normal((2, 3)))

    def f(x):
        y = (x * x).view(3, 4)
        y.transpose_(0, 1)
        z = y[1:3]
        z.t_()
        z.t_()
        return (y * w1).sum() + (z * w2).sum()

    x = mt.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert gradcheck(f, (x,))


# --- AccumulateGrad: node hooks, frozen leaves, calls ---


def test_accumulate_grad_node_hooks_fire_in_torch_order():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append("tensor hook"))
    x.register_post_accumulate_grad_hook(lambda t: seen.append("post accumulate"))
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"
    acc.register_prehook(lambda go: seen.append(("prehook", _np(go[0]).tolist())))
    handle = acc.register_hook(lambda gi, go: seen.append(("hook", gi, _np(go[0]).tolist())))
    y.sum().backward()
    assert seen == [
        "tensor hook",
        ("prehook", [2.0, 2.0, 2.0]),
        "post accumulate",
        ("hook", (), [2.0, 2.0, 2.0]),
    ]
    handle.remove()
    seen.clear()
    (x * 2).sum().backward()  # the same accumulator while x lives: its prehook stays
    assert [s if isinstance(s, str) else s[0] for s in seen] == [
        "tensor hook",
        "prehook",
        "post accumulate",
    ]
    np.testing.assert_allclose(_np(x.grad), [4.0, 4.0, 4.0])


def test_accumulate_grad_prehook_replaces_the_gradient_and_grad_skips_it():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: (go[0] * 10,))
    y.sum().backward(retain_graph=True)
    np.testing.assert_allclose(_np(x.grad), [20.0, 20.0, 20.0])
    # autograd.grad runs no accumulator (nor its hooks), as in torch
    (g,) = mt.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(_np(g), [2.0, 2.0, 2.0])


def test_leaf_frozen_after_the_forward_gets_no_grad():
    w = mt.ones(2, requires_grad=True)
    loss = (w * 3).sum()
    w.requires_grad_(False)
    loss.backward()
    assert w.grad is None

    w = mt.ones(2, requires_grad=True)
    seen = []
    w.register_hook(lambda g: seen.append(_np(g).tolist()))  # tensor hooks still run (torch)
    loss = (w * 3).sum()
    w.requires_grad = False
    loss.backward()
    assert w.grad is None and seen == [[3.0, 3.0]]

    w = mt.ones(2, requires_grad=True)  # frozen and unfrozen before backward: accumulates
    loss = (w * 3).sum()
    w.requires_grad_(False)
    w.requires_grad_(True)
    loss.backward()
    np.testing.assert_allclose(_np(w.grad), [3.0, 3.0])
    (w * 2).sum().backward()  # and keeps accumulating afterwards
    np.testing.assert_allclose(_np(w.grad), [5.0, 5.0])


def test_leaf_frozen_in_a_graph_with_other_leaves():
    a = mt.ones(2, requires_grad=True)
    b = mt.full((2,), 2.0, requires_grad=True)
    loss = (a * b).sum()
    b.requires_grad_(False)
    loss.backward()
    np.testing.assert_allclose(_np(a.grad), [2.0, 2.0])
    assert b.grad is None


def test_accumulate_grad_node_is_callable():
    x = mt.ones(2, requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc(mt.ones(2)) == ()
    assert acc(mt.ones(2)) == ()
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0])
    assert acc.variable is x


# --- calling grad_fn nodes ---


def test_grad_fn_nodes_are_callable():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([3.0, 4.0], requires_grad=True)
    y = a * b
    ga, gb = y.grad_fn(mt.ones(2))
    np.testing.assert_allclose(_np(ga), [3.0, 4.0])
    np.testing.assert_allclose(_np(gb), [1.0, 2.0])
    assert ga.grad_fn is not None, "grad mode on: the call records a graph"
    with mt.no_grad():
        ga, _ = y.grad_fn(mt.ones(2))
    assert ga.grad_fn is None
    z = (a * 2).exp()
    gz = z.grad_fn(mt.ones(2))  # one input: a Tensor, not a tuple
    np.testing.assert_allclose(_np(gz), np.exp([2.0, 4.0]), rtol=1e-6)
    g, none = (a * 2).grad_fn(mt.ones(2))  # the number operand's slot is None
    np.testing.assert_allclose(_np(g), [2.0, 2.0])
    assert none is None
    # nothing is un-broadcast
    c = mt.ones(3, 2, requires_grad=True) + mt.ones(2, requires_grad=True)
    assert [tuple(t.shape) for t in c.grad_fn(mt.ones(3, 2))] == [(3, 2), (3, 2)]
    # a multi-output node's missing gradients are zeros
    u = a.unbind(0)
    np.testing.assert_allclose(_np(u[0].grad_fn(mt.tensor(1.0), None)), [1.0, 0.0])


def test_grad_fn_call_errors():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    z = a.exp()
    with pytest.raises(TypeError, match="expected 1 arguments, got 0 instead"):
        z.grad_fn()
    with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
        z.grad_fn(mt.ones(2), mt.ones(2))
    with pytest.raises(TypeError, match="argument 0 is not a Variable"):
        z.grad_fn(1.0)
    assert z.grad_fn(None) is None

    class Twice(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match="'TwiceBackward' object is not callable"):
        Twice.apply(a).grad_fn(mt.ones(2))  # torch's custom-Function nodes are not callable
    y = a * a
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn(mt.ones(2))


# --- what a custom Function's backward may return ---


def test_custom_backward_returning_a_number_or_a_gradient_for_a_number_raises():
    class Num(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return 3

    class Scale(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    class AsList(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return [g]

    x = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got int\)"):
        Num.apply(x).sum().backward()
    with pytest.raises(
        RuntimeError,
        match="function ScaleBackward returned a gradient different than None at position 2, "
        "but the corresponding forward input was not a Variable",
    ):
        Scale.apply(x, 2.0).sum().backward()
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got list\)"):
        AsList.apply(x).sum().backward()
    with mt.autograd.set_detect_anomaly(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=r"expected Variable or None \(got int\)"):
            Num.apply(x).sum().backward()
    assert x.grad is None


# --- names and reprs ---


def test_custom_function_node_repr_is_module_qualified():
    class MyExp(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.exp()

        @staticmethod
        def backward(ctx, g):
            return g

    fn = MyExp.apply(mt.ones(2, requires_grad=True)).grad_fn
    assert type(fn).__module__ == "minitorch.autograd.function"
    assert repr(fn).startswith("<minitorch.autograd.function.MyExpBackward object at 0x")
    assert repr((mt.ones(2, requires_grad=True) * 2).grad_fn).startswith("<MulBackward0 object")


def test_engine_nodes_are_named_with_the_cpp_namespace():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    b[0] = 5.0
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    assert repr(b.grad_fn).startswith("<CopySlices object at")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x**2).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "torch::autograd::CopyBackwards"
    d = b.sin()
    b[1] = 3.0
    with pytest.raises(
        RuntimeError, match="which is output 0 of torch::autograd::CopySlices, is at version 2"
    ):
        d.sum().backward()


# --- InplaceFunction ---


def test_inplace_function_is_a_function_base_with_an_inplace_flag():
    from minitorch.autograd.function import InplaceFunction

    class Round(InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x.round()

        @staticmethod
        def backward(ctx, g):
            return g  # straight-through

    x = mt.tensor([0.4, 1.6], requires_grad=True)
    y = Round.apply(x)
    np.testing.assert_allclose(_np(y), [0.0, 2.0])
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [1.0, 1.0])
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f = InplaceFunction(inplace=True)
    assert f.inplace is True


@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "relu_", "tanh_"])
def test_inplace_op_saving_its_result_then_modified_again_fails_at_backward(op):
    # the node keeps self's memory and version (torch saves self), not a private copy
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    getattr(b, op)()
    b.add_(1)
    with pytest.raises(RuntimeError, match="is at version 2; expected version 1"):
        b.sum().backward()
    c = a * 1
    getattr(c, op)()  # not modified again: backward works and is right
    c.sum().backward()
    assert a.grad is not None


def test_more_grad_fn_saved_attributes_as_torch():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.sum(0).grad_fn._saved_dim == (0,) and x.sum(0).grad_fn._saved_keepdim is False
    assert x.mean(0).grad_fn._saved_dim == (0,)
    s = x.softmax(0)
    assert s.grad_fn._saved_dim == 0
    assert s.grad_fn._saved_result.tolist() == s.tolist()
    assert x.log_softmax(0).grad_fn._saved_result.grad_fn.name() == "LogSoftmaxBackward0"
    for y in (x.abs(), mt.nn.functional.gelu(x), mt.nn.functional.silu(x)):
        assert y.grad_fn._saved_self is x
    assert mt.nn.functional.gelu(x, approximate="tanh").grad_fn._saved_approximate == "tanh"


def test_anomaly_mode_names_the_loss_node_not_its_inner_nodes():
    F = mt.nn.functional
    x = mt.tensor([-1.0, 1.0], requires_grad=True)
    for loss, name in (
        (F.mse_loss, "MseLossBackward0"),
        (F.smooth_l1_loss, "SmoothL1LossBackward0"),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with mt.autograd.detect_anomaly():
                out = loss(x.log(), mt.zeros(2))  # log(-1) is nan
                with pytest.raises(RuntimeError, match=f"Function '{name}' returned nan values"):
                    out.backward()
