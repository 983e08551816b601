"""Session 32 review: torch-free tests of the inference-tensor fixes (torch's values and behaviour
written as literals; the torch comparison is tests/reference/test_s32_review_reference.py)."""

from __future__ import annotations

import numpy as np

import minitorch as torch


def _inside(fn):
    with torch.inference_mode():
        return fn()


def test_func_transforms_differentiate_an_inference_input():
    x = _inside(lambda: torch.tensor([0.5, 1.0, -2.0], dtype=torch.float64))
    g = torch.func.grad(lambda a: (a * a).sum())(x)
    np.testing.assert_allclose(g.numpy(), [1.0, 2.0, -4.0])
    assert not g.is_inference() and x.is_inference()
    jac = torch.func.jacrev(lambda a: a * a)(x)
    np.testing.assert_allclose(jac.numpy(), np.diag([1.0, 2.0, -4.0]))
    np.testing.assert_allclose(torch.func.jacfwd(lambda a: a * a)(x).numpy(), jac.numpy())
    _, tangent = torch.func.jvp(lambda a: a * a, (x,), (torch.ones(3, dtype=torch.float64),))
    np.testing.assert_allclose(tangent.numpy(), [1.0, 2.0, -4.0])
    _, vjp_fn = torch.func.vjp(lambda a: a * a, x)
    np.testing.assert_allclose(vjp_fn(x)[0].numpy(), [0.5, 2.0, 8.0])
    with torch.inference_mode():  # inside too: torch.func turns inference mode off
        inside = torch.func.grad(lambda a: (a * a).sum())(torch.ones(2))
    np.testing.assert_allclose(inside.numpy(), [2.0, 2.0])
    assert not inside.is_inference()


def test_func_transforms_save_a_captured_inference_tensor():
    with torch.inference_mode():
        feats = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
        target = torch.tensor([0.0, 1.0], dtype=torch.float64)
        scale = torch.tensor([3.0, -1.0], dtype=torch.float64)
    w = torch.tensor([0.5, 0.25], dtype=torch.float64)

    def loss(w, xi, yi):
        return ((xi * w).sum() - yi) ** 2

    per_sample = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(w, feats, target)
    # 2 * (x.w - y) * x: residuals 1.0 and 1.5
    np.testing.assert_allclose(per_sample.numpy(), [[2.0, 4.0], [9.0, 12.0]])
    np.testing.assert_allclose(torch.func.jacrev(lambda a: a * scale)(w).numpy(), np.diag([3, -1]))
    _, t = torch.func.jvp(lambda a: a * scale, (w,), (torch.ones(2, dtype=torch.float64),))
    np.testing.assert_allclose(t.numpy(), [3.0, -1.0])
    # outside a transform saving it stays refused
    try:
        w.requires_grad_() * scale
    except RuntimeError as e:
        assert str(e).startswith("Inference tensors cannot be saved for backward.")
    else:
        raise AssertionError("no error")


def test_make_dual_of_an_inference_primal_or_tangent():
    fwad = torch.autograd.forward_ad
    x = _inside(lambda: torch.tensor([1.0, 2.0], dtype=torch.float64))
    t = _inside(lambda: torch.tensor([0.5, -1.0], dtype=torch.float64))
    with fwad.dual_level():
        d = fwad.make_dual(x, torch.ones(2, dtype=torch.float64))
        primal, tangent = fwad.unpack_dual(d)
        assert primal.is_inference()
        np.testing.assert_allclose(fwad.unpack_dual(d * 2).tangent.numpy(), [2.0, 2.0])
        e = fwad.make_dual(x.clone(), t)
        assert fwad.unpack_dual(e).tangent.is_inference()
        np.testing.assert_allclose(fwad.unpack_dual(e * e).tangent.numpy(), [1.0, -4.0])


def test_increment_version_of_an_inference_tensor_is_a_no_op():
    x = _inside(lambda: torch.ones(2))
    n = torch.ones(2)
    torch.autograd.graph.increment_version([x, n])  # torch: no error
    assert n._version == 1
    with torch.inference_mode():
        torch.autograd.graph.increment_version(x)
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0])


def test_data_of_a_normal_tensor_inside_inference_mode_is_normal():
    n = torch.ones(2)
    with torch.inference_mode():
        d = n.data
        x = torch.ones(2)
        xd = x.data
    assert not d.is_inference()
    assert d._version == 0
    d.add_(1)  # allowed outside: a normal tensor
    np.testing.assert_array_equal(n.numpy(), [2.0, 2.0])
    assert xd.is_inference()  # an inference tensor's, taken inside, stays one
