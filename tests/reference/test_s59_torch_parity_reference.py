"""Session 59: the cases of tests/test_s59_torch_parity.py, and their neighbours, run under torch
and minitorch alike: results (values, dtypes, the sign of zeros), gradients, and exceptions (type
and message)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return ("raises", type(e).__name__, str(e))
    if isinstance(r, tuple):
        return tuple(_value(x) for x in r)
    return _value(r)


def _value(r):
    if r is None or isinstance(r, (bool, int, float, str)):
        return r
    if isinstance(r, (mt.dtype, torch.dtype)):
        return str(r)
    r = r.detach()
    a = r.float().numpy() if r.dtype in (mt.bfloat16, torch.bfloat16) else r.numpy()
    a = np.asarray(a)
    sign = np.signbit(a).tolist() if a.dtype.kind == "f" else None
    return (str(r.dtype).split(".")[-1], a.shape, a.tolist(), sign)


def _same(fn):
    got, want = _outcome(mt, fn), _outcome(torch, fn)
    if want and want[0] == "raises" or got and got[0] == "raises":
        assert got == want
    else:
        assert repr(got) == repr(want)  # (NaN-safe, and -0. apart from 0.)


def _grad(lib, a, loss):
    a = lib.tensor(a, dtype=lib.float64, requires_grad=True)
    loss(lib, a)
    return a.grad


VALUES = [
    lambda T: T.nextafter(
        T.tensor([-0.0, 0.0, 1.0, 1.0, -0.0], dtype=T.float16),
        T.tensor([0.0, -0.0, 1.0, 2.0, -0.0], dtype=T.float16),
    ),
    lambda T: T.nextafter(
        T.tensor([[-0.0], [0.0]], dtype=T.float16), T.tensor([0.0, -0.0], dtype=T.float16)
    ),
    lambda T: T.zeros((), dtype=T.float16).fill_(70000.0),
    lambda T: T.zeros(1, dtype=T.bfloat16).fill_(1e39),
    lambda T: T.zeros(2, dtype=T.float16).fill_(70000.0),
    lambda T: T.zeros((), dtype=T.float8_e4m3fn).fill_(1000.0).float(),
    lambda T: T.zeros(2, dtype=T.uint8).fill_(np.float64(1e39)),
    lambda T: T.zeros(2, dtype=T.int8).fill_(np.float64(-1e39)),
    lambda T: T.add(T.ones(2), T.ones(2), alpha=1e39),
    lambda T: T.sub(T.ones(2), T.ones(2), alpha=3.5e38),
    lambda T: T.ones(2).add_(T.ones(2), alpha=1e39),
    lambda T: T.ones(2).sub_(T.ones(2), alpha=2**64),
    lambda T: T.add(3, T.ones(2), alpha=1e39),
    lambda T: T.add(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16), alpha=65505.0),
    lambda T: T.add(T.ones(2, dtype=T.float16), T.ones(2, dtype=T.float16), alpha=65504.0),
    lambda T: T.add(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.float16), alpha=1e5),
    lambda T: T.add(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.int8), alpha=256),
    lambda T: T.add(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.int8), alpha=-128),
    lambda T: T.add(T.ones(2, dtype=T.float64), T.ones(2), alpha=1e39),
    lambda T: T.add(T.ones(2), T.ones(2), alpha=math.inf),
    lambda T: T.add(T.ones(2), T.ones(2), alpha=-(2**63) - 1),
    lambda T: T.result_type(T.ones(1), 2**64),
    lambda T: T.result_type(T.ones(1, dtype=T.int8), 2**63),
    lambda T: T.clamp(T.ones(3, dtype=T.uint8), min=300, max=T.tensor(4)),
    lambda T: T.clamp(T.ones(3, dtype=T.uint8), min=-1, max=T.tensor(200)),
    lambda T: T.clamp(T.ones(3, dtype=T.float16), min=1e5, max=T.tensor(4.0)),
    lambda T: T.clamp(T.ones(3), min=T.tensor(1.0), max=math.inf),
    lambda T: T.ones(3, dtype=T.int16).clamp_(1e39),
    lambda T: T.ones(3, dtype=T.uint8).clamp_(1.5, None),
    lambda T: T.ones(3, dtype=T.bool).clamp_(2**64),
    lambda T: T.zeros(1, 3).std((0, -2, -3)),
    lambda T: T.zeros(1, 3).var([0, 5, 0]),
    lambda T: T.zeros(1, 3).nansum((1, -1)),
    lambda T: T.zeros(1, 3).sum((0, -2, -3)),
]
for _dt in ("int8", "int16", "int32", "int64"):
    VALUES.append(
        lambda T, d=_dt: T.gcd(
            T.tensor([T.iinfo(getattr(T, d)).min] * 5, dtype=getattr(T, d)),
            T.tensor([6, 5, 7, 0, 96], dtype=getattr(T, d)),
        )
    )


@pytest.mark.parametrize("fn", VALUES)
def test_values_and_errors_as_torch(fn):
    _same(fn)


@pytest.mark.parametrize("key", [0, slice(None), "mask", [0]])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "int8", "uint8"])
@pytest.mark.parametrize("value", [1e39, -1e39, 70000.0, np.float64(1e39), math.inf, 300])
def test_setitem_of_a_number_as_torch(key, dtype, value):
    def fn(T):
        x = T.zeros(2, dtype=getattr(T, dtype))
        x[T.tensor([True, False]) if key == "mask" else key] = value
        return x

    _same(fn)


def _copy_slices_twice(T):
    a = T.ones(2, dtype=T.float64, requires_grad=True)
    v = a - 1
    v[0] = 5.0
    v.sum().backward()
    try:
        v.sum().backward()
    except RuntimeError as e:
        return a.grad, str(e)
    return a.grad, None


def test_copy_slices_backward_twice_as_torch():
    got, want = _copy_slices_twice(mt), _copy_slices_twice(torch)
    assert got[0].tolist() == want[0].tolist() and got[1] == want[1]


NO_GRAD_VIEW = [
    lambda T, a, v: T.sub(v, a, alpha=0.5),
    lambda T, a, v: T.add(v, a, alpha=2),
    lambda T, a, v: T.sub(v, v, alpha=3) * a,
    lambda T, a, v: T.lerp(v, a, 0.3),
    lambda T, a, v: T.nn.functional.mse_loss(v, a * 2),
    lambda T, a, v: T.nn.functional.smooth_l1_loss(a, v),
    lambda T, a, v: T.addcmul(v, a, v, value=2),
]


@pytest.mark.parametrize("op", NO_GRAD_VIEW)
@pytest.mark.parametrize("nonleaf", [False, True])
def test_ops_on_a_no_grad_view_as_torch(op, nonleaf):
    def fn(T):
        a = T.tensor([1.5, -2.0], dtype=T.float64, requires_grad=True)
        with T.no_grad():
            v = (a * 1 if nonleaf else a)[:]
        r = op(T, a, v)
        nxt = [type(e[0]).__name__ if e[0] is not None else None for e in r.grad_fn.next_functions]
        r.sum().backward()
        return r, a.grad, str(nxt)

    got, want = _outcome(mt, fn), _outcome(torch, fn)
    assert got == want


ROOTS = [
    lambda T, a, v: v.backward(T.ones(2)),
    lambda T, a, v: v.sum().backward(),
    lambda T, a, v: v[0].backward(),
    lambda T, a, v: T.autograd.grad(v, a, T.ones(2)),
    lambda T, a, v: T.autograd.grad(v, a, T.ones(2), allow_unused=True),
    lambda T, a, v: T.autograd.grad(v.sum(), a, allow_unused=True),
    lambda T, a, v: T.autograd.backward([v, (a * 3).sum()], [T.ones(2), None]),
]


@pytest.mark.parametrize("root", ROOTS)
@pytest.mark.parametrize("nonleaf", [False, True])
def test_no_grad_view_roots_as_torch(root, nonleaf):
    def fn(T):
        a = T.ones(2, dtype=T.float64, requires_grad=True)
        with T.no_grad():
            v = (a * 2 if nonleaf else a)[:]
        r = root(T, a, v)
        return (r if isinstance(r, tuple) else (r,)) + (a.grad,)

    assert _outcome(mt, fn) == _outcome(torch, fn)


def test_no_grad_view_of_a_changed_view_as_torch():
    def fn(T):
        a = T.ones(2, dtype=T.float64, requires_grad=True)
        b = a * 1
        c = b[:]
        c.mul_(2)
        with T.no_grad():
            d = c[:]
        out = [d.grad_fn is None, d.requires_grad, (d * 2).sum().item()]
        b.mul_(3)
        try:
            _ = d.grad_fn
        except RuntimeError as e:
            out.append(str(e))
        return out

    assert fn(mt) == fn(torch)
