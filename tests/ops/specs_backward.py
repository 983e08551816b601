"""Op-test rows for the fused backward Functions of pointwise ops (TanhBackward, ...).

Each row's op is the backward itself, built with create_graph=True, so it is checked and twice
differentiated like any op."""

from __future__ import annotations

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec


def _backward_of(fn):
    """(x, g) -> d fn(x)/dx^T g, differentiable in both x and g."""

    def make(T):
        def op(x, g):
            x = x if x.requires_grad else x.detach().requires_grad_(True)
            return T.autograd.grad(getattr(T, fn)(x), x, g, create_graph=True)[0]

        return op

    return make


def _torch(make):
    def op(*args):
        import torch

        return make(torch)(*args)

    return op


def _row(name, fn, ref, domain=(-2.0, 2.0)):
    make = _backward_of(fn)
    return OpSpec(
        name=name,
        op=make(mt),
        ref=ref,
        shapes=[(3, 4), (3, 4)],
        domain=domain,
        dtypes=("float32", "float64"),
        torch_op=_torch(make),
    )


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _relu_domain(rng, shape, dtype):
    # away from the kink at 0
    x = rng.uniform(0.2, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return x.astype(dtype)


SPECS = [
    _row("tanh_backward", "tanh", lambda x, g: g * (1 - np.tanh(x) ** 2)),
    _row("sigmoid_backward", "sigmoid", lambda x, g: g * _sigmoid(x) * (1 - _sigmoid(x))),
    _row("relu_backward", "relu", lambda x, g: g * (x > 0), domain=_relu_domain),
]
