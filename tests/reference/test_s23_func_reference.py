"""torch.func against torch: a seeded slice of session 23's differential fuzzer (None leaves,
structure errors, and transform values over a few op chains)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

_CHAINS = {
    "softmax_sin": lambda T, x: T.softmax(x, -1).sin() * x,
    "layernorm": lambda T, x: T.nn.functional.layer_norm(x, x.shape[-1:]) * x.exp(),
    "inplace": lambda T, x: x.clone().mul_(2).add_(1) * x.cumsum(-1),
    "gelu_flip": lambda T, x: T.nn.functional.gelu(x).flip(-1) * x,
}


def _run(T, fn):
    try:
        return "ok", fn(T)
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return "err", (type(e).__name__, str(e))


def _flat(r, T):
    leaves = T.utils._pytree.tree_flatten(r)[0]
    return [leaf.detach().numpy() if isinstance(leaf, T.Tensor) else leaf for leaf in leaves]


def _same(fn):
    a, b = _run(torch, fn), _run(minitorch, fn)
    assert a[0] == b[0], (a, b)
    if a[0] == "err":
        assert a[1] == b[1]
        return
    fa, fb = _flat(a[1], torch), _flat(b[1], minitorch)
    assert len(fa) == len(fb)
    for u, v in zip(fa, fb, strict=True):
        np.testing.assert_allclose(v, u, rtol=1e-10, atol=1e-12)


_XA = np.random.RandomState(0).randn(3, 4)
_YA = np.random.RandomState(1).randn(3, 4)


def _xy(T):
    return T.tensor(_XA), T.tensor(_YA)


@pytest.mark.parametrize("chain", sorted(_CHAINS))
@pytest.mark.parametrize(
    "kind", ["vmap", "grad", "jacrev", "jacfwd", "hessian", "jvp", "vjp", "vmap_grad"]
)
def test_transforms_match_torch(kind, chain):
    c = _CHAINS[chain]

    def fn(T):
        x, y = _xy(T)
        f = lambda a, b: c(T, a) * b  # noqa: E731
        s = lambda a, b: (c(T, a) * b).sum()  # noqa: E731
        if kind == "vmap":
            return T.vmap(f, in_dims=(1, None), out_dims=-1)(x, y[:, 0])
        if kind == "grad":
            return T.func.grad(s, argnums=(0, 1))(x, y)
        if kind == "jacrev":
            return T.func.jacrev(f, argnums=(0, 1))(x[0], y[0])
        if kind == "jacfwd":
            return T.func.jacfwd(f, argnums=1)(x[0], y[0])
        if kind == "hessian":
            return T.func.hessian(s)(x[0], y[0])
        if kind == "jvp":
            return T.func.jvp(f, (x, y), (y, x))
        if kind == "vjp":
            out, vjp_fn = T.func.vjp(f, x, y)
            return out, vjp_fn(y)
        return T.vmap(T.func.grad(s))(x, y)

    _same(fn)


@pytest.mark.parametrize(
    "case",
    [
        lambda T, x: T.vmap(lambda a, b: a)(x, None),
        lambda T, x: T.vmap(lambda a, b: a * 2, in_dims=(0, None))(x, None),
        lambda T, x: T.vmap(lambda a: a, in_dims=({"a": 0, "b": None},))({"a": x, "c": x}),
        lambda T, x: T.vmap(lambda a: (a, a), out_dims=[0, 0])(x),
        lambda T, x: T.vmap(lambda a: a, chunk_size=0, randomness="bad"),
        lambda T, x: T.func.vjp(lambda a: (a * 2, None), x),
        lambda T, x: T.func.jacrev(lambda a: None)(x),
        lambda T, x: T.func.jvp(lambda a: None, (x,), (x,)),
        lambda T, x: T.func.jvp(lambda a, b: a, (x, x), (x,)),
        lambda T, x: T.func.jvp(lambda a, b: a * 2, (x, 3.0), (x, 3.0)),
        lambda T, x: T.func.grad(lambda p: p[0].sum())((x, None)),
        lambda T, x: T.func.linearize(lambda a, b: a * b, x, x)[1](x),
    ],
)
def test_errors_match_torch(case):
    _same(lambda T: case(T, T.tensor(_XA[0])))
