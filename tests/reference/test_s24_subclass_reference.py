"""Tensor subclasses against torch: a seeded sweep of ops on subclass, Parameter and mixed
arguments comparing result types (by role), values and gradients."""

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _classes(lib):
    class MyT(lib.Tensor):
        pass

    class Sub2(MyT):
        pass

    return {"MyT": MyT, "Sub2": Sub2, "Tensor": lib.Tensor, "Parameter": lib.nn.Parameter}


def _role(lib, obj):
    if isinstance(obj, (tuple, list)):
        return [_role(lib, o) for o in obj]
    if isinstance(obj, lib.Tensor):
        return type(obj).__name__
    return type(obj).__name__


def _make(lib, kind, values):
    cls = _classes_cache[lib.__name__][kind]
    t = lib.tensor(values, dtype=lib.float64)
    if kind == "Parameter":
        return cls(t)
    if kind == "Tensor":
        return t.requires_grad_()
    return t.requires_grad_().as_subclass(cls)


_classes_cache = {}

OPS = [
    lambda a, b: a + b,
    lambda a, b: b * a,
    lambda a, b: a.sum() - b.mean(),
    lambda a, b: (a @ b.T).tanh(),
    lambda a, b: a[0] / (b[1] + 3),
    lambda a, b: a.max(1).values + b.exp().sum(1),
    lambda a, b: a.split(1)[1] * b,
    lambda a, b: a.T.relu() + b.T,
    lambda a, b: a.unsqueeze(0).expand(2, 2, 3).reshape(4, 3) ** 2 + b.sum(),
    lambda a, b: a.sigmoid().clone() - b.abs(),
]
KINDS = ["MyT", "Sub2", "Tensor", "Parameter"]


@pytest.mark.parametrize("op", range(len(OPS)))
@pytest.mark.parametrize("ka", KINDS)
@pytest.mark.parametrize("kb", KINDS)
def test_sweep(op, ka, kb):
    rng = np.random.default_rng(op * 100 + KINDS.index(ka) * 10 + KINDS.index(kb))
    va, vb = rng.standard_normal((2, 2, 3)).tolist()
    results = {}
    for lib in (torch, minitorch):
        _classes_cache.setdefault(lib.__name__, _classes(lib))
        a, b = _make(lib, ka, va), _make(lib, kb, vb)
        out = OPS[op](a, b)
        role = _role(lib, out)
        out.sum().backward()
        grads = [None if t.grad is None else t.grad.detach().numpy() for t in (a, b)]
        results[lib.__name__] = (role, out.detach().numpy(), grads)
    (rt, vt, gt), (rm, vm, gm) = results["torch"], results["minitorch"]
    assert rm == rt
    np.testing.assert_allclose(vm, vt, rtol=1e-12, atol=1e-12)
    for x, y in zip(gm, gt, strict=True):
        assert (x is None) == (y is None)
        if x is not None:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)
