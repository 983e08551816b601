"""Property tests: broadcasting binary ops give NumPy's values and un-broadcast gradients."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch as mt

_OPS = {
    "add": (lambda a, b: a + b, lambda ga, a, b: (ga, ga)),
    "sub": (lambda a, b: a - b, lambda ga, a, b: (ga, -ga)),
    "mul": (lambda a, b: a * b, lambda ga, a, b: (ga * b, ga * a)),
}


def _sum_to(g, shape):
    """NumPy's reference un-broadcast: sum the leading and the stretched dims."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape)


@settings(max_examples=60, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=3),
    op=st.sampled_from(["add", "sub", "mul"]),
    seed=st.integers(0, 2**16),
)
def test_broadcast_values_and_gradients(shapes, op, seed):
    rng = np.random.default_rng(seed)
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    an, bn = rng.standard_normal(sa), rng.standard_normal(sb)
    a = mt.tensor(an, requires_grad=True)
    b = mt.tensor(bn, requires_grad=True)
    fn, vjp = _OPS[op]
    out = fn(a, b)
    np.testing.assert_allclose(out.detach().numpy(), fn(an, bn), rtol=1e-12, err_msg=op)
    assert tuple(out.shape) == out_shape
    g = rng.standard_normal(out_shape)
    out.backward(mt.tensor(g))
    ga, gb = vjp(g, np.broadcast_to(an, out_shape), np.broadcast_to(bn, out_shape))
    np.testing.assert_allclose(a.grad.numpy(), _sum_to(ga, sa), rtol=1e-10, err_msg=f"{op} a")
    np.testing.assert_allclose(b.grad.numpy(), _sum_to(gb, sb), rtol=1e-10, err_msg=f"{op} b")
    assert a.grad.shape == a.shape and b.grad.shape == b.shape

