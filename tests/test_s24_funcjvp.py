"""torch.func's jvp, jacfwd and linearize push tangents through a custom autograd.Function's own
jvp; the transforms refuse the Functions torch's refuse (no setup_context; no vmap rule under
vmap/jacfwd; no jvp where a tangent reaches it). Expected values were obtained from torch 2.13."""

import numpy as np
import pytest

import minitorch as mt
from minitorch import func

SETUP_CONTEXT = "must override the setup_context staticmethod"
NO_JVP = (
    "You must implement the jvp function for custom autograd.Function to use it with forward "
    "mode AD."
)


def _vmap_msg(name):
    return f"You tried to vmap over {name}, but it does not have vmap support"


class Old(mt.autograd.Function):  # old-style: forward(ctx, ...), no setup_context
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

    @staticmethod
    def jvp(ctx, t):
        return t * 100


class NoJvp(mt.autograd.Function):
    @staticmethod
    def forward(x):
        return x.sin()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos()


class WithJvp(NoJvp):  # its jvp is 100 times its true derivative: which one ran is visible
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * x.cos() * 100


class WithJvpVmap(WithJvp):
    generate_vmap_rule = True


class TwoOut(mt.autograd.Function):  # no usable backward: forward mode only
    generate_vmap_rule = True

    @staticmethod
    def forward(x, y):
        return x * y, x + y

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(*inputs)

    @staticmethod
    def backward(ctx, g1, g2):
        raise RuntimeError("no backward")

    @staticmethod
    def jvp(ctx, tx, ty):
        x, y = ctx.saved_tensors
        return tx * y + x * ty, tx + ty


def _x():
    return mt.tensor([0.5, 1.0], dtype=mt.float64)


def _t():
    return mt.tensor([1.0, 2.0], dtype=mt.float64)


def _close(a, b):
    np.testing.assert_allclose(
        np.asarray(a.detach().tolist()), np.asarray(b), rtol=1e-9, atol=1e-12
    )


def _chain(a):
    p, s = TwoOut.apply(a.sin(), a)
    return (p * s).exp()


def test_jvp_calls_the_functions_jvp():
    out, jv = func.jvp(WithJvp.apply, (_x(),), (_t(),))
    _close(out, [0.479425538604203, 0.8414709848078965])
    _close(jv, [87.75825618903728, 108.06046117362794])
    assert not jv.requires_grad
    _, jv = func.jvp(lambda y: WithJvp.apply(y * 2), (_x(),), (_t(),))
    _close(jv, [108.06046117362794, -166.45873461885696])


def test_jvp_without_jvp_is_refused_where_a_tangent_reaches_it():
    with pytest.raises(NotImplementedError, match=NO_JVP):
        func.jvp(NoJvp.apply, (_x(),), (_t(),))
    c = mt.ones(2, dtype=mt.float64)  # a constant input: its jvp is not needed
    out, jv = func.jvp(lambda y: y + NoJvp.apply(c), (_x(),), (_t(),))
    _close(out, [1.341470984807897, 1.8414709848078965])
    _close(jv, [1.0, 2.0])


def test_old_style_function_refused_by_every_transform_but_linearize():
    x, t, c = _x(), _t(), mt.ones(2, dtype=mt.float64)
    calls = [
        lambda: func.jvp(Old.apply, (x,), (t,)),
        lambda: func.jvp(lambda y: y + Old.apply(c), (x,), (t,)),
        lambda: func.jacfwd(Old.apply)(x),
        lambda: func.grad(lambda y: y.sum() + Old.apply(c).sum())(x),
        lambda: func.vjp(Old.apply, x),
        lambda: func.jacrev(Old.apply)(x),
        lambda: func.hessian(lambda y: Old.apply(y).sum())(x),
        lambda: func.vmap(Old.apply)(x),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match=SETUP_CONTEXT):
            call()
    _, jvp_fn = func.linearize(Old.apply, x)  # torch traces forward AD there: its jvp runs
    _close(jvp_fn(t), [100.0, 200.0])


def test_linearize_uses_the_jvp_for_every_tangent():
    _, jvp_fn = func.linearize(WithJvp.apply, _x())
    _close(jvp_fn(_t()), [87.75825618903728, 108.06046117362794])
    _close(jvp_fn(mt.tensor([1.0, 0.0], dtype=mt.float64)), [87.75825618903728, 0.0])
    with pytest.raises(NotImplementedError, match=NO_JVP):
        func.linearize(NoJvp.apply, _x())[1](_t())


def test_vmap_rule_required_by_vmap_jacfwd_and_hessian():
    x = _x()
    for call in (
        lambda: func.vmap(NoJvp.apply)(x),
        lambda: func.vmap(lambda y: y + NoJvp.apply(mt.ones(())))(x),
        lambda: func.hessian(lambda y: NoJvp.apply(y).sum())(x),
    ):
        with pytest.raises(RuntimeError, match=_vmap_msg("NoJvp")):
            call()
    with pytest.raises(RuntimeError, match=_vmap_msg("WithJvp")):
        func.jacfwd(WithJvp.apply)(x)
    # jacrev and grad only run the backward: no rule needed
    _close(func.jacrev(NoJvp.apply)(x), np.diag([0.8775825618903728, 0.5403023058681398]))


def test_jacfwd_calls_the_functions_jvp():
    _close(func.jacfwd(WithJvpVmap.apply)(_x()), np.diag([87.75825618903728, 54.03023058681398]))
    _close(func.vmap(WithJvpVmap.apply)(_x()), [0.479425538604203, 0.8414709848078965])


def test_two_outputs_and_a_function_without_backward():
    x, t, c = _x(), _t(), mt.ones(2, dtype=mt.float64)
    out, jv = func.jvp(TwoOut.apply, (x, c), (t, t))
    _close(out[0], [0.5, 1.0])
    _close(out[1], [1.5, 2.0])
    _close(jv[0], [1.5, 4.0])
    _close(jv[1], [2.0, 4.0])
    _, jv = func.jvp(lambda a: TwoOut.apply(a, c), (x,), (t,))
    _close(jv[0], [1.0, 2.0])
    _close(jv[1], [1.0, 2.0])
    jac = func.jacfwd(TwoOut.apply, argnums=(0, 1))(x, c)
    _close(jac[0][0], np.eye(2))
    _close(jac[0][1], np.diag([0.5, 1.0]))
    _close(jac[1][0], np.eye(2))
    _close(jac[1][1], np.eye(2))


def test_function_inside_a_chain_of_ops():
    out, jv = func.jvp(_chain, (_x(),), (_t(),))
    _close(out, [1.2646315415, 4.7093241402])
    _close(jv, [1.706500781, 36.1734030011])
    _close(func.jacfwd(_chain)(_x()), np.diag([1.706500781, 18.0867015006]))
    jac = func.jacfwd(lambda a: _chain(a.reshape(2)).reshape(2, 1))(_x().reshape(2, 1))
    assert tuple(jac.shape) == (2, 1, 2, 1)
    _close(jac.reshape(2, 2), np.diag([1.706500781, 18.0867015006]))


def test_grad_of_jvp_differentiates_the_jvp_formula():
    def f(a):
        return func.jvp(lambda b: TwoOut.apply(b, b)[0], (a,), (_t(),))[1].sum()

    _close(func.grad(f)(_x()), [2.0, 4.0])
