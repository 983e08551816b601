"""autograd.forward_ad: dual tensors whose tangents are Jacobian-vector products."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.forward_ad as fwAD


def test_tangent_is_the_jacobian_vector_product():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4)
    t = rng.standard_normal(4)
    w = rng.standard_normal((3, 4))

    def f(v):
        return np.tanh(w @ v) * v.sum()

    with fwAD.dual_level():
        d = fwAD.make_dual(mt.tensor(x), mt.tensor(t))
        y = mt.tanh(mt.tensor(w) @ d) * d.sum()
        primal, tangent = fwAD.unpack_dual(y)
    eps = 1e-6
    want = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
    np.testing.assert_allclose(tangent.numpy(), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(primal.numpy(), f(x), rtol=1e-12)
    assert not primal.requires_grad


def test_duals_through_a_module_and_several_inputs():
    mt.manual_seed(0)
    lin = mt.nn.Linear(3, 2).double()
    a, b = mt.randn(3, dtype=mt.float64), mt.randn(3, dtype=mt.float64)
    ta, tb = mt.randn(3, dtype=mt.float64), mt.randn(3, dtype=mt.float64)
    with fwAD.dual_level():
        y = lin(fwAD.make_dual(a, ta) * fwAD.make_dual(b, tb))
        tangent = fwAD.unpack_dual(y).tangent
    want = lin.weight.detach() @ (ta * b + a * tb)
    # the tangent depends on lin's parameters: it keeps their graph, as torch's
    np.testing.assert_allclose(tangent.detach().numpy(), want.numpy(), rtol=1e-12)


def test_levels_and_plain_tensors():
    x, t = mt.ones(2), mt.zeros(2)
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(x, t)
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, t)
        assert fwAD.unpack_dual(d).tangent is t and fwAD.unpack_dual(d).primal is x
        assert fwAD.unpack_dual(mt.ones(2)).tangent is None
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, mt.ones(3))
        with pytest.raises(RuntimeError, match="Nested forward mode AD"):
            fwAD.enter_dual_level()
    assert fwAD.unpack_dual(d).tangent is None
