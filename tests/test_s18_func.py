"""vmap over autograd.grad (graphs shared by the samples), assert_close's allow_subclasses, and
torch.autograd's re-exports (is_tensor_like, enforce_grad_layout_policy)."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitorch
from minitorch.autograd.grad_mode import state
from minitorch.autograd.gradcheck import gradcheck, gradgradcheck


def _np(t):
    return t.detach().numpy()


# --- vmap over autograd.grad (NOTE [ Graphs shared by vmap's samples ]) ---


def test_vmap_of_autograd_grad_without_retain_graph():
    # torch.vmap's docstring example: batched VJPs of a graph made before vmap
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2
    (out,) = minitorch.vmap(lambda v: minitorch.autograd.grad(y, x, v))(minitorch.eye(3))
    np.testing.assert_allclose(_np(out), np.diag([2.0, 4.0, 6.0]), err_msg="batched vjp")
    # the graph is freed once vmap returns, as torch's single batched backward frees it
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        minitorch.autograd.grad(y, x, minitorch.ones(3))
    assert state.sample_loop is None


def test_vmap_hessian_rows_and_list_form():
    x = minitorch.tensor([1.0, 2.0, 3.0], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad((x**3).sum(), x, create_graph=True)
    eye = minitorch.eye(3, dtype=minitorch.float64)
    (h,) = minitorch.vmap(lambda v: minitorch.autograd.grad(g, x, v))(eye)
    np.testing.assert_allclose(_np(h), np.diag([6.0, 12.0, 18.0]), err_msg="hessian rows")
    y, z = x.sin() * 2, x.exp()
    (both,) = minitorch.vmap(lambda v: minitorch.autograd.grad([y, z], [x], [v, v]))(eye)
    xs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        _np(both), np.diag(2 * np.cos(xs) + np.exp(xs)), rtol=1e-12, err_msg="list form"
    )


def test_vmap_of_grad_explicit_retain_false_and_nested():
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2

    def vjp(v):
        return minitorch.autograd.grad(y, x, v, retain_graph=False)[0]

    vs = minitorch.eye(3).reshape(1, 3, 3).expand(2, 3, 3)
    out = minitorch.vmap(minitorch.vmap(vjp))(vs)
    np.testing.assert_allclose(_np(out), np.stack([np.diag([2.0, 4.0, 6.0])] * 2), err_msg="nested")
    with pytest.raises(RuntimeError, match="a second time"):
        minitorch.autograd.grad(y, x, minitorch.ones(3))


def test_nested_vmap_frees_a_samples_graph_at_the_inner_loops_end():
    made = []

    def outer(xi):
        xi = xi.detach()
        xi.requires_grad = True  # (requires_grad_() is refused inside a transform, as torch's)
        yi = xi.exp() * xi
        made.append((xi, yi))
        g = minitorch.vmap(lambda v: minitorch.autograd.grad(yi, xi, v)[0])(minitorch.ones(2))
        # this sample's graph was freed when the inner vmap ended (it is no outer sample's)
        with pytest.raises(RuntimeError, match="a second time"):
            minitorch.autograd.grad(yi, xi)
        return g

    out = minitorch.vmap(outer)(minitorch.tensor([1.0, 2.0]))
    want = [[2 * np.e] * 2, [3 * np.exp(2.0)] * 2]  # d/dx x e^x = (x + 1) e^x
    np.testing.assert_allclose(_np(out), want, rtol=1e-6, err_msg="nested inner graph")


def test_graph_made_in_a_sample_is_freed_at_once():
    # a sample's own graph is freed by its backward, as torch frees it: a second grad raises
    def f(xi):
        xi = xi.detach()
        xi.requires_grad = True  # (requires_grad_() is refused inside a transform, as torch's)
        yi = xi.exp()
        minitorch.autograd.grad(yi, xi)
        return minitorch.autograd.grad(yi, xi)[0]

    with pytest.raises(RuntimeError, match="a second time"):
        minitorch.vmap(f)(minitorch.tensor([1.0, 2.0]))
    assert state.sample_loop is None  # left by the exception too


def _vmapped_grad_of_a_graph():
    """A weak reference to an inner node of a graph that vmap walked, once the graph's tensors
    are gone."""
    a = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    mid = a.exp()
    y = mid * a
    minitorch.vmap(lambda v: minitorch.autograd.grad(y, a, v))(minitorch.eye(3))
    return weakref.ref(mid.grad_fn)


def test_vmap_keeps_no_graph_alive():
    gc.disable()  # the node must die of its reference count: no cycle keeps it
    try:
        ref = _vmapped_grad_of_a_graph()
        assert ref() is None
    finally:
        gc.enable()


def test_vmap_of_grad_retain_graph_true_keeps_the_graph():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    minitorch.vmap(lambda v: minitorch.autograd.grad(y, x, v, retain_graph=True))(minitorch.eye(2))
    (g,) = minitorch.autograd.grad(y, x, minitorch.ones(2))  # not freed: retained by request
    np.testing.assert_allclose(_np(g), np.exp([1.0, 2.0]), rtol=1e-6, err_msg="retained")


def test_vmap_of_grad_gradients_are_differentiable():
    # the batched vjp, made with create_graph inside vmap, differentiates correctly (float64)
    def f(x):
        y = x.sin() * x
        (rows,) = minitorch.vmap(lambda v: minitorch.autograd.grad(y, x, v, create_graph=True))(
            minitorch.eye(3, dtype=minitorch.float64)
        )
        return rows

    x = minitorch.tensor([0.3, -0.7, 1.1], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# --- testing.assert_close(allow_subclasses=False) ---


def test_assert_close_allow_subclasses_false_refuses_parameter_vs_tensor():
    a = minitorch.tensor([1.0, 2.0])
    p = minitorch.nn.Parameter(a.clone())
    minitorch.testing.assert_close(p, a)  # related types compare by default
    minitorch.testing.assert_close(p, minitorch.nn.Parameter(a.clone()), allow_subclasses=False)
    want = (
        "No comparison pair was able to handle inputs of type <class "
        "'minitorch.nn.parameter.Parameter'> and <class 'minitorch.Tensor'>."
    )
    with pytest.raises(TypeError) as info:
        minitorch.testing.assert_close(p, a, allow_subclasses=False, msg="not used")
    assert str(info.value) == want
    with pytest.raises(TypeError, match=r"Tensor'> and <class 'minitorch.nn.parameter"):
        minitorch.testing.assert_close(a, p, allow_subclasses=False)
    # Python numbers are exempt; NumPy subclasses are not
    minitorch.testing.assert_close(np.float64(1.0), 1.0, allow_subclasses=False)
    sub = np.ones(2).view(_Array)
    minitorch.testing.assert_close(sub, np.ones(2))
    with pytest.raises(TypeError, match="_Array'> and <class 'numpy.ndarray'>"):
        minitorch.testing.assert_close(sub, np.ones(2), allow_subclasses=False)


class _Array(np.ndarray):
    """An ndarray subclass."""


def test_assert_close_unsupported_pair_names_the_item():
    a = minitorch.tensor([1.0, 2.0])
    p = minitorch.nn.Parameter(a.clone())
    with pytest.raises(TypeError) as info:
        minitorch.testing.assert_close({"x": [1, a]}, {"x": [1, p]}, allow_subclasses=False)
    assert str(info.value).endswith("\n\nThe failure occurred for item ['x'][1]")
    with pytest.raises(TypeError) as info:
        minitorch.testing.assert_close([np.ones(2)], [minitorch.ones(2)])
    assert str(info.value).endswith("'minitorch.Tensor'>.\n\nThe failure occurred for item [0]")


# --- torch.autograd re-exports ---


def test_autograd_is_tensor_like():
    assert minitorch.autograd.is_tensor_like is minitorch.overrides.is_tensor_like
    assert minitorch.autograd.is_tensor_like(minitorch.ones(1))
    assert not minitorch.autograd.is_tensor_like(np.ones(1))


def test_enforce_grad_layout_policy_sets_and_restores_the_flag():
    policy = minitorch.autograd.enforce_grad_layout_policy
    assert state.grad_layout_enforced is True
    with policy(False):
        assert state.grad_layout_enforced is False
        with policy():
            assert state.grad_layout_enforced is True
        assert state.grad_layout_enforced is False
    assert state.grad_layout_enforced is True

    @policy(False)
    def inside():
        return state.grad_layout_enforced

    assert state.grad_layout_enforced is True  # decorating does not set it
    assert inside() is False
    assert state.grad_layout_enforced is True
    with pytest.raises(TypeError, match="must be bool, not str"):
        policy("no")
    # the gradient still takes the leaf's strides (what the contract asks)
    with policy(False):
        p = minitorch.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
        (p * 2).sum().backward()
    assert p.grad.stride() == p.stride()
