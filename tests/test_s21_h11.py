"""Forward-mode AD as torch's (found by a differential fuzzer of forward_ad / torch.func against
torch 2.13): finite tangents at backward kinks, in-place ops on duals and on jvp's inputs, the
tangent's outer graph, make_dual's refusal, linearize. Expected values are torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.autograd.forward_ad as fwAD


def _p():
    return mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64)


def _t():
    return mt.tensor([0.5, -1.0, 2.0], dtype=mt.float64)


def _close(got, want, msg=""):
    np.testing.assert_allclose(got.detach().numpy(), np.asarray(want), rtol=1e-10, atol=1e-12,
                               err_msg=msg)  # fmt: skip


def test_logcumsumexp_tangent_is_finite():
    # its backward sums positive and negative gradients apart, in logs: a zero auxiliary
    # cotangent (or one a softmax maps to zero) made every tangent NaN
    _, jv = mt.func.jvp(lambda x: mt.logcumsumexp(x, 0), (_p(),), (_t(),))
    _close(jv, [0.4999999999996305, -0.5965878679448887, 1.1307687270799611])
    _, jv = mt.func.jvp(lambda x: mt.logcumsumexp(x, 0).softmax(0), (_p(),), (_t(),))
    _close(jv, [-0.011693894385345472, -0.3011281500983344, 0.3128220444836798])
    with fwAD.dual_level():
        x = fwAD.make_dual(_p(), _t())
        y = mt.logcumsumexp(x.softmax(0) * 3, 0)
        _close(fwAD.unpack_dual(y).tangent,
               [-0.17036541011080517, -1.0262688493866703, 0.8631812728339432])  # fmt: skip


def test_norm_of_zero_vector_tangent_and_double_backward():
    z = mt.zeros(4, dtype=mt.float64)
    out, jv = mt.func.jvp(mt.linalg.norm, (z,), (mt.ones(4, dtype=mt.float64),))
    assert out.item() == 0.0 and jv.item() == 0.0  # was NaN
    # double backward at a zero norm: 0 in the upstream gradient, NaN in the input (torch's)
    x = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    g = mt.tensor(0.7, dtype=mt.float64, requires_grad=True)
    (gx,) = mt.autograd.grad(mt.linalg.vector_norm(x), x, g, create_graph=True)
    v = mt.tensor([0.3, -1.0, 2.0], dtype=mt.float64)
    dx, dg = mt.autograd.grad((gx * v).sum(), [x, g])
    assert dg.item() == 0.0
    assert np.isnan(dx.numpy()).all()


def test_inplace_on_a_dual_and_on_its_views():
    with fwAD.dual_level():
        p = _p()
        x = fwAD.make_dual(p, _t())
        x.mul_(2)
        _close(fwAD.unpack_dual(x).tangent, [1.0, -2.0, 4.0])
        _close(p, [2.0, 4.0, 6.0], "the dual shares the primal's memory")
        x = fwAD.make_dual(_p(), _t())
        x[1:].exp_()
        _close(fwAD.unpack_dual(x).tangent, [0.5, -7.38905609893065, 40.171073846375336])
        x = fwAD.make_dual(_p(), _t())
        w = x * 1
        w.t()[::2].sin_()
        _close(fwAD.unpack_dual(w).tangent, [0.2701511529340699, -1.0, -1.9799849932008908])


def test_make_dual_of_a_tensor_with_a_tangent_raises():
    with fwAD.dual_level():
        x = fwAD.make_dual(_p(), _t())
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level"):
            fwAD.make_dual(x.exp(), _t())
        fwAD.make_dual(x.detach(), _t())  # no tangent: fine


def test_tangent_keeps_the_graph_of_an_outer_leaf():
    p = _p().requires_grad_()
    w = mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64, requires_grad=True)
    with fwAD.dual_level():
        x = fwAD.make_dual(p, _t())
        primal, tangent = fwAD.unpack_dual((x * x).sum())
        assert primal.requires_grad and tangent.requires_grad
        (g,) = mt.autograd.grad(tangent, p)
        _close(g, [1.0, -2.0, 4.0])
        x = fwAD.make_dual(_p(), _t())
        tangent = fwAD.unpack_dual((x * w).sum()).tangent
        tangent.backward()
        _close(w.grad, [0.5, -1.0, 2.0])


def test_dual_is_plain_after_its_level():
    with fwAD.dual_level():
        x = fwAD.make_dual(_p(), _t())
    assert not x.requires_grad and x.grad_fn is None
    assert fwAD.unpack_dual(x).tangent is None


def test_jvp_and_jacfwd_allow_inplace_ops_on_their_inputs():
    out, jv = mt.func.jvp(lambda x: x.mul_(2).sin(), (_p(),), (_t(),))
    _close(out, [0.90929742682568171, -0.75680249530792820, -0.27941549819892586])
    _close(jv, [-0.41614683654714241, 1.30728724172722388, 3.84068114660146387])
    out, jv = mt.func.jvp(lambda x: (x[1:].exp_(), x)[1], (_p(),), (_t(),))
    _close(jv, [0.5, -7.38905609893065041, 40.17107384637533585])
    jac = mt.func.jacfwd(lambda x: x.mul_(2).sin())(_p())
    _close(jac, np.diag([-0.8322936730942848, -1.3072872417272239, 1.920340573300732]))
    r = _p()  # the tangent is the primal itself: read before f writes into it, as torch's
    out, jv = mt.func.jvp(lambda x: x.mul_(2), (r,), (r,))
    _close(out, [2.0, 4.0, 6.0])
    _close(jv, [2.0, 4.0, 6.0])
    _close(r, [2.0, 4.0, 6.0])


def test_jvp_messages():
    with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward"):
        mt.func.jvp(mt.sin, (_p(),), (_t()[:2],))
    with pytest.raises(RuntimeError, match=r"expected f\(\*primals\) to return only tensors"):
        mt.func.jvp(lambda x: 3, (_p(),), (_t(),))


def test_linearize():
    out, fn = mt.func.linearize(lambda x: x.exp() * x, _p())
    _close(out, [2.718281828459045, 14.7781121978613, 60.256610769563004])
    _close(fn(_t()), [2.718281828459045, -22.16716829679195, 160.68429538550134])
    _close(fn(2 * _t()), [5.43656365691809, -44.3343365935839, 321.3685907710027])
    assert not out.requires_grad
    with pytest.raises(RuntimeError, match="tangent:0 with shape"):
        fn(_t()[:2])
    with pytest.raises(RuntimeError, match="tangent:0 with dtype torch.float32"):
        fn(_t().float())
    with pytest.raises(RuntimeError, match="to have the same argspec as the primals"):
        fn(_t(), _t())
    with pytest.raises(ValueError, match="Expected primal to be floating point"):
        mt.func.linearize(mt.sin, mt.tensor([1, 2]))
