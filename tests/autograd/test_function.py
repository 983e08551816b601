"""Custom autograd.Function: torch's ctx API, setup_context style, outputs, double backward."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import Function, once_differentiable


def _np(t):
    return t.detach().cpu().numpy()


def _leaf(values, device="cpu", dtype=None):
    return mt.tensor(values, dtype=dtype, device=device, requires_grad=True)


class Exp(Function):
    """Saves its output (the pattern that must not create a reference cycle)."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class Cube(Function):
    """Saves its input; backward uses differentiable ops, so it can be differentiated again."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x


def test_custom_function_forward_backward_and_node_name(device):
    x = _leaf([0.0, 1.0], device)
    y = Exp.apply(x)
    assert not y.is_leaf and y.requires_grad
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert "grad_fn=<ExpBackward>" in repr(y)
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.exp([0.0, 1.0]), rtol=1e-6)


def test_forward_runs_without_recording_and_outputs_take_the_new_node():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["enabled"] = mt.is_grad_enabled()
            inner = x * 2
            seen["inner_requires_grad"] = inner.requires_grad
            return inner

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = _leaf([1.0])
    y = Probe.apply(x)
    assert seen == {"enabled": False, "inner_requires_grad": False}
    assert type(y.grad_fn).__name__ == "ProbeBackward"


def test_saving_the_output_creates_no_reference_cycle():
    gc.disable()
    try:
        x = _leaf([1.0, 2.0])
        y = Exp.apply(x)
        node = weakref.ref(y.grad_fn)
        out = weakref.ref(y)
        del y
        assert out() is None and node() is None, "output or node kept alive by a cycle"
    finally:
        gc.enable()


def test_double_backward_through_a_custom_function():
    x = _leaf([1.0, 2.0], dtype=mt.float64)
    (g,) = mt.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(_np(g), [3.0, 12.0], err_msg="3x^2")
    (gg,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_np(gg), [6.0, 12.0], err_msg="6x")
    (g,) = mt.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (gg,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_np(gg), np.exp([1.0, 2.0]), err_msg="saved output re-enters")


def test_needs_input_grad_and_non_tensor_arguments():
    seen = []

    class Scale(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            ctx.k = k
            return a * b * k

        @staticmethod
        def backward(ctx, grad):
            seen.append(ctx.needs_input_grad)
            return grad * ctx.k, None, None

    a = _leaf([1.0, 2.0])
    Scale.apply(a, mt.ones(2), 3.0).sum().backward()
    assert seen == [(True, False, False), (True, False, False)]
    np.testing.assert_allclose(_np(a.grad), [3.0, 3.0])
    with mt.no_grad():
        out = Scale.apply(a, mt.ones(2), 3.0)
    # torch reports the inputs' requires_grad even under no_grad; no node is recorded.
    assert seen[-1] == (True, False, False) and out.grad_fn is None and not out.requires_grad


def test_extra_trailing_none_gradients_are_accepted():
    class Extra(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None, None

    a = _leaf([1.0])
    Extra.apply(a).sum().backward()
    np.testing.assert_allclose(_np(a.grad), [2.0])


def test_mark_dirty_in_place_function():
    class DoubleInPlace(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    a = _leaf([1.0, 2.0])
    b = a * 1
    c = DoubleInPlace.apply(b)
    assert c is b and b._version == 2, "the input itself is returned, its version bumped"
    assert type(b.grad_fn).__name__ == "DoubleInPlaceBackward"
    (c * c).sum().backward()
    np.testing.assert_allclose(_np(a.grad), [8.0, 16.0], err_msg="d/da (2a)^2 = 8a")
    with pytest.raises(
        RuntimeError,
        match="^a leaf Variable that requires grad has been used in an in-place operation.$",
    ):
        DoubleInPlace.apply(_leaf([1.0]))


def test_mark_non_differentiable_and_materialized_zero_grads():
    seen = []

    class SplitSign(Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).long()
            ctx.mark_non_differentiable(mask)
            return x * 2, mask

        @staticmethod
        def backward(ctx, grad, grad_mask):
            seen.append(grad_mask)
            return grad * 2

    x = _leaf([-1.0, 1.0, 2.0])
    y, mask = SplitSign.apply(x)
    assert y.requires_grad and not mask.requires_grad and mask.grad_fn is None
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0, 2.0])
    assert seen[0].dtype == mt.int64 and _np(seen[0]).tolist() == [0, 0, 0], "torch gives zeros"


def test_set_materialize_grads_false_passes_none():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            out = mt.zeros_like(g2 if g1 is None else g1)
            if g1 is not None:
                out = out + g1 * 2
            if g2 is not None:
                out = out + g2 * 3
            return out

    class TwoMaterialized(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((_np(g1).tolist(), _np(g2).tolist()))
            return g1 * 2 + g2 * 3

    a = _leaf([1.0, 1.0])
    _, q = Two.apply(a)
    q.sum().backward()
    _, q = TwoMaterialized.apply(a)
    q.sum().backward()
    assert seen == [(True, False), ([0.0, 0.0], [1.0, 1.0])]
    np.testing.assert_allclose(_np(a.grad), [6.0, 6.0])


def test_once_differentiable_refuses_double_backward():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            assert not mt.is_grad_enabled()
            return 2 * x * grad

    a = _leaf([1.0, 2.0])
    (g,) = mt.autograd.grad(Square.apply(a).sum(), a)
    np.testing.assert_allclose(_np(g), [2.0, 4.0])
    b = _leaf([1.0, 2.0])
    y = Square.apply(b)
    gout = mt.ones(2, requires_grad=True)
    (g,) = mt.autograd.grad(y, b, gout, create_graph=True)
    assert g.requires_grad and type(g.grad_fn).__name__ == "Error"
    assert gout.is_leaf and gout.grad_fn is None, "the caller's grad_outputs tensor was modified"
    with pytest.raises(
        RuntimeError,
        match="trying to differentiate twice a function that was marked with @once_differentiable",
    ):
        g.sum().backward()


def test_once_differentiable_passing_the_gradient_through_leaves_it_untouched():
    class PassThrough(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            return grad

    x = _leaf([1.0, 2.0])
    v = _leaf([3.0, 4.0])
    (g,) = mt.autograd.grad(PassThrough.apply(x), x, v, create_graph=True)
    assert g is not v and v.is_leaf and v.grad_fn is None
    np.testing.assert_allclose(_np(g), [3.0, 4.0])
    with pytest.raises(RuntimeError, match="trying to differentiate twice"):
        g.sum().backward()


def test_setup_context_style():
    class Scale(Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.k = k
            ctx.save_for_backward(x, output)

        @staticmethod
        def backward(ctx, grad):
            x, out = ctx.saved_tensors
            np.testing.assert_allclose(_np(out), _np(x) * ctx.k)
            return grad * ctx.k, None

    a = _leaf([1.0, 2.0])
    out = Scale.apply(a, 3.0)
    assert type(out.grad_fn).__name__ == "ScaleBackward"
    out.sum().backward()
    np.testing.assert_allclose(_np(a.grad), [3.0, 3.0])


def test_non_tensor_outputs_pass_through_with_none_grads():
    seen = []

    class WithInfo(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7, "label"

        @staticmethod
        def backward(ctx, grad, g_int, g_str):
            seen.append((g_int, g_str))
            return grad * 2

    a = _leaf([1.0, 2.0])
    out, n, s = WithInfo.apply(a)
    assert (n, s) == (7, "label")
    out.sum().backward()
    assert seen == [(None, None)]
    np.testing.assert_allclose(_np(a.grad), [2.0, 2.0])


def test_returning_an_input_unchanged_gives_a_new_tensor_in_the_graph():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    a = _leaf([1.0, 2.0])
    out = Identity.apply(a)
    assert out is not a and type(out.grad_fn).__name__ == "IdentityBackward"
    assert out._version == a._version
    out.sum().backward()
    np.testing.assert_allclose(_np(a.grad), [5.0, 5.0], err_msg="the custom backward ran")


def test_saved_tensor_modified_in_place_is_detected():
    x = _leaf([1.0, 2.0])
    y = x * 1
    z = Cube.apply(y)
    y.mul_(2)
    with pytest.raises(
        RuntimeError,
        match=r"^one of the variables needed for gradient "
        r"computation has been modified by an inplace "
        r"operation: \[torch.FloatTensor \[2\]\], which is "
        r"output 0 of Mul, is at version 1; expected version "
        r"0 instead. Hint: enable anomaly detection",
    ):
        z.sum().backward()
    w = Exp.apply(x)
    s = w.sum()
    w.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Exp, is at version 1"):
        s.backward()


def test_errors_for_misuse():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

    with pytest.raises(NotImplementedError, match="You must implement either the backward or vjp"):
        NoBackward.apply(_leaf([1.0])).sum().backward()
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        legacy = Exp()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward"):
        legacy(_leaf([1.0]))


def test_saved_tensors_under_retain_graph_and_node_attributes():
    x = _leaf([1.0, 2.0])
    y = Cube.apply(x)
    node = y.grad_fn
    (saved,) = node.saved_tensors
    assert saved is x
    assert node.next_functions[0][0] is not None and node.next_functions[0][1] == 0
    y.sum().backward(retain_graph=True)
    (saved,) = node.saved_tensors  # still there
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [6.0, 24.0])


def test_custom_function_matches_torch():
    torch = pytest.importorskip("torch")

    def make(lib):
        class Softplus(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, beta):
                out = (1 + (x * beta).exp()).log() / beta
                ctx.save_for_backward(x, out)
                ctx.beta = beta
                return out

            @staticmethod
            def backward(ctx, grad):
                x, out = ctx.saved_tensors
                s = 1 / (1 + (-x * ctx.beta).exp())
                return grad * s, None

        return Softplus

    xv = np.array([-1.5, 0.0, 0.7, 2.0])
    results = []
    for lib in (mt, torch):
        x = lib.tensor(xv, requires_grad=True)
        y = make(lib).apply(x, 2.0)
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((_np(y), _np(g), _np(gg), type(y.grad_fn).__name__))
    for a, b in zip(*results, strict=True):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_saved_tensor_attributes_of_built_in_nodes():
    # "Autograd mechanics": grad_fn._saved_self is the input itself, _saved_result the output's
    x = mt.randn(5, requires_grad=True)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_exponent == 2
    y = x.exp()
    assert y.equal(y.grad_fn._saved_result) and y is not y.grad_fn._saved_result
    z = x * mt.ones(5)
    assert z.grad_fn._saved_self is None and z.grad_fn._saved_other.tolist() == [1.0] * 5
    assert x.sin().grad_fn._saved_self is x and x.relu().grad_fn._saved_result.shape == (5,)
    with pytest.raises(AttributeError, match="has no attribute '_saved_nope'"):
        y.grad_fn._saved_nope  # noqa: B018


def test_tensors_passed_by_keyword_to_apply_are_inputs():
    class Scale(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x, alpha=2.0):
            ctx.alpha = alpha
            return x * alpha

        @staticmethod
        def backward(ctx, g):
            return g * ctx.alpha, None

    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x=x)  # the graph was lost
    assert type(y.grad_fn).__name__ == "ScaleBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    assert Scale.apply(x, alpha=3.0).tolist() == [3.0, 6.0]
