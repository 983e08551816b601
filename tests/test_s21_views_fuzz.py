"""Views, in-place ops and autograd: cases found by differential fuzzing against torch (session 21).

Expected values were obtained by running the same code in torch 2.13.
"""

import warnings

import numpy as np
import pytest

import minitorch as torch


def f64(x, requires_grad=False):
    return torch.tensor(x, dtype=torch.float64, requires_grad=requires_grad)


def test_is_leaf_of_a_view_written_with_a_grad_source():
    # a view of a base without grad, written in place with a tensor that requires grad: the view
    # takes its history from the base (CopySlices), so it is no leaf any more
    for make in (lambda b: b.unfold(0, 1, 1), lambda b: b[:], lambda b: b.t()):
        base = torch.zeros(2, 2, dtype=torch.float64)
        view = make(base)
        s = f64(1.5, requires_grad=True)
        view[torch.tensor([0, 1])] = s
        assert not view.is_leaf
        assert view.grad_fn.name() == "AsStridedBackward0"
        assert base.grad_fn.name() == "torch::autograd::CopySlices"
        view.sum().backward()
        np.testing.assert_allclose(s.grad.numpy(), 4.0)


def test_out_resize_keeps_memory_shared_with_an_alias():
    # torch resizes out= over its storage when it is large enough: an alias sees the write
    base = torch.zeros(4, 3, 1, dtype=torch.float64)
    alias = base.detach()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.sin(f64([-0.012]), out=alias)
    assert alias.shape == (1,)
    np.testing.assert_allclose(base[0, 0, 0].item(), np.sin(-0.012))
    np.testing.assert_allclose(base.sum().item(), np.sin(-0.012))

    x = torch.zeros(4, dtype=torch.float64)
    w = x[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.sin(torch.ones(2, dtype=torch.float64), out=x)
    np.testing.assert_allclose(w.numpy(), [0.8414709848078965] * 2)
    assert x.stride() == (1,) and x.storage_offset() == 0


def test_view_requires_grad_follows_base_requires_grad_():
    b = torch.ones(2, 3, dtype=torch.float64)
    v = b[0]
    v2 = v[1:]
    b.requires_grad_()
    # torch: the views require grad with their base, stay leaves, and get no gradient
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    assert v2.requires_grad
    y = v * 2
    assert y.requires_grad
    assert y.grad_fn.next_functions == ((None, 0), (None, 0))
    y.sum().backward()
    assert b.grad is None and v.grad is None
    v.requires_grad_(False)  # its flag is its base's
    assert v.requires_grad
    b.requires_grad_(False)
    assert not v.requires_grad and not (v * 2).requires_grad
    b.requires_grad_(True)
    v.requires_grad_(True)  # a flag of its own: a leaf with its own gradient
    assert (v * 2).grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert (v2 * 2).grad_fn.next_functions == ((None, 0), (None, 0))
    w = v[1:]
    (w * 3).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [0.0, 3.0, 3.0])
    assert b.grad is None
    b.requires_grad_(False)
    assert v.requires_grad  # its own flag


def test_view_of_a_changed_base_is_replayed_when_the_base_requires_grad():
    # changed in place before the base required grad: torch replays it on the base
    b = torch.ones(3, 1, 1, dtype=torch.float64)
    v = b.view((1, 3))
    v[:, :, ...] = 0.0
    b.requires_grad_()
    assert not v.is_leaf and v.requires_grad
    assert v.grad_fn.name() == "AsStridedBackward0"
    b = torch.ones(3, 1, 1, dtype=torch.float64)
    v = b.view((1, 3))
    b.mul_(2)
    b.requires_grad_()
    assert v.grad_fn.name() == "AsStridedBackward0"
    (v * f64([[1.0, 2.0, 3.0]])).sum().backward()
    np.testing.assert_allclose(b.grad.numpy().ravel(), [1.0, 2.0, 3.0])


def test_no_grad_view_given_its_own_requires_grad():
    a = f64([[-1.735, 1.423]], requires_grad=True)
    with torch.no_grad():
        v = a.movedim(0, -1)
    assert (v * v).grad_fn.next_functions == ((None, 0), (None, 0))
    v.requires_grad_()
    s = v[0]
    assert s.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    y = (v * v).sum()
    v.requires_grad_(False)  # back to its base's flag: the graph recorded keeps its gradient
    assert v.requires_grad and v.is_leaf
    y.backward()
    np.testing.assert_allclose(v.grad.numpy(), [[-3.47], [2.846]])
    assert a.grad is None
    assert (v * 2).grad_fn.next_functions == ((None, 0), (None, 0))
    v.requires_grad_(True)
    (g,) = torch.autograd.grad((v * v).sum(), v)
    np.testing.assert_allclose(g.numpy(), [[-3.47], [2.846]])


def test_saved_result_of_inplace_on_view_carries_the_views_history():
    # sigmoid_ on a view saves its result: in a second derivative that result is the view with
    # its own history (torch's saved variable of an in-place op on a view), so the gradient
    # with respect to the view is found (it was None)
    v1 = torch.tensor([[[0.626]], [[2.215]], [[0.658]]], dtype=torch.float64)
    v2 = torch.tensor([[-0.872, -1.527, 0.393]], dtype=torch.float64, requires_grad=True)
    v3 = v1.view_as(v2)
    v3.div_(v2)
    v3.sigmoid_()
    v8 = (v1.pow(3) * torch.tensor([[[0.106]], [[0.195]], [[-0.841]]], dtype=torch.float64)).sum()
    (g,) = torch.autograd.grad(v8, [v2], create_graph=True)
    w = torch.tensor([[0.762, 1.686, 0.546]], dtype=torch.float64)
    g2, g3 = torch.autograd.grad((g * w).sum(), [v2, v3])
    # torch 2.13's values
    np.testing.assert_allclose(
        g2.numpy(), [[-0.004269107874998496, 0.004255024622713323, -1.9469403566334593]], rtol=1e-12
    )
    np.testing.assert_allclose(
        g3.numpy(),
        [[-0.0073826425446547874, -0.020957586970383277, -2.848211627976854]],
        rtol=1e-12,
    )


def test_saved_result_of_inplace_on_view_version_error_names_the_view_node():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x.clone()
    v = b[0:2]
    v.sigmoid_()
    b.mul_(2)
    with pytest.raises(RuntimeError, match=r"output 0 of AsStrided, is at version 2"):
        b.sum().backward()
