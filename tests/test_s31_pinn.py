"""Session 31 (helper pinn): torch-free checks of the library fix the physics-informed programs
in tests/reference/test_s31_pinn_reference.py found: a torch.func transform called inside
another (jacrev of a function that calls grad or vmap(grad), as Gauss-Newton on PDE residuals
does) returned a result that still required grad, because the outer transform took the inner
one's private input leaf for an outside variable and recorded its whole backward; each
Levenberg-Marquardt step then grew the graph of the next (a 20x slowdown). torch returns plain
tensors there; the values below are torch 2.13's."""

from __future__ import annotations

import numpy as np

import minitorch as mt

F = mt.func
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(
        np.asarray(got.detach(), dtype=float), want, rtol=1e-11, atol=1e-14, err_msg=err_msg
    )


def test_jacrev_of_a_function_calling_grad_returns_a_plain_tensor():
    theta = mt.tensor([0.5, -1.5], dtype=F64)
    x = mt.tensor([0.25, 1.0], dtype=F64)

    def residual(th):
        def u(xx):
            return mt.tanh(xx * th[0]) * th[1]

        return F.vmap(F.grad(u))(x)

    J = F.jacrev(residual)(theta)
    assert not J.requires_grad
    assert J.grad_fn is None
    _close(J, [[-1.4308932283855118, 0.4922681654751967],
               [-0.6345251134112007, 0.3932238664829637]])  # fmt: skip
    J1 = F.jacrev(lambda th: F.grad(lambda xx: mt.sin(xx * th[0]) * th[1])(x[1]))(theta)
    assert not J1.requires_grad
    _close(J1, [-0.9568046888824069, 0.4387912809451864])


def test_nested_transforms_keep_the_graph_of_an_outside_variable():
    # a captured tensor that requires grad still gets a differentiable Jacobian
    w = mt.tensor(2.0, dtype=F64, requires_grad=True)
    theta = mt.tensor([0.5, -1.5], dtype=F64)

    def f(th):
        return F.grad(lambda xx: mt.sin(xx * th[0] * w) * th[1])(mt.tensor(1.0, dtype=F64))

    J = F.jacrev(f)(theta)
    assert J.requires_grad
    (gw,) = mt.autograd.grad(J.sum(), w)
    _close(gw, 3.636035092165656)


def test_grad_of_grad_and_hessian_of_a_plain_input():
    x = mt.tensor(0.7, dtype=F64)
    d2 = F.grad(F.grad(lambda v: v**3 * mt.sin(v)))(x)
    assert not d2.requires_grad
    _close(d2, 4.73338365029217)
    H = F.hessian(lambda v: (v**3).sum() * v[0])(mt.tensor([0.5, 2.0], dtype=F64))
    assert not H.requires_grad
    _close(H, [[3.0, 12.0], [12.0, 6.0]])


def test_gauss_newton_steps_do_not_grow_a_graph():
    x = mt.linspace(0, 1, 5, dtype=F64)

    def residual(th):
        u_x = F.vmap(F.grad(lambda xx: mt.tanh(xx * th[0]) * th[1]))(x)
        return u_x - mt.cos(x)

    theta = mt.tensor([0.5, 1.5], dtype=F64)
    for _ in range(3):
        J = F.jacrev(residual)(theta)
        step = mt.linalg.solve(J.T @ J + 1e-3 * mt.eye(2, dtype=F64), J.T @ residual(theta))
        theta = theta - step
        assert not theta.requires_grad
    _close(theta, [0.8181859329707688, 1.2366790210878178], "theta after three LM steps")
