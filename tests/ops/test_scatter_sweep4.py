"""Sweep 4 of scatter/gather: out=, 0-d and empty operands, amax/amin tie counts."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

T = torch.tensor
f64 = torch.float64


def _x():
    return torch.zeros(2, 3)


@pytest.mark.parametrize(
    "name, call, expected",
    [
        ("scatter", lambda o: torch.scatter(_x(), 1, T([[0, 2, 2]]), torch.ones(1, 3), out=o),
         [[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),
        ("scatter value", lambda o: torch.scatter(_x(), 1, T([[0, 2, 2]]), 2.0, out=o),
         [[2.0, 0.0, 2.0], [0.0, 0.0, 0.0]]),
        ("scatter_add", lambda o: torch.scatter_add(_x(), 1, T([[0, 2, 2]]), torch.ones(1, 3),
                                                     out=o),
         [[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]),
        ("scatter_reduce", lambda o: torch.scatter_reduce(_x(), 1, T([[0, 2, 2]]),
                                                          torch.ones(1, 3), "sum", out=o),
         [[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]),
        ("take", lambda o: torch.take(torch.arange(6.0).reshape(2, 3), T([4, 1]), out=o),
         [4.0, 1.0]),
    ],
)  # fmt: skip
def test_out_is_filled(name, call, expected):
    o = torch.empty(0)
    r = call(o)
    assert r is o, name
    np.testing.assert_array_equal(o.numpy(), np.array(expected, dtype=np.float32), err_msg=name)


@pytest.mark.parametrize(
    "call",
    [
        lambda o: torch.scatter(_x(), 1, T([[0]]), torch.ones(1, 1), out=o),
        lambda o: torch.scatter(_x(), 1, T([[0]]), 2.0, out=o),
        lambda o: torch.scatter_add(_x(), 1, T([[0]]), torch.ones(1, 1), out=o),
        lambda o: torch.scatter_reduce(_x(), 1, T([[0]]), torch.ones(1, 1), "amax", out=o),
    ],
)
def test_out_dtype_must_match(call):
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have dtype float, but got double"
    ):
        call(torch.empty(0, dtype=f64))


def test_take_out_dtype_must_match():
    msg = "take\\(\\): self and out expected to have the same dtype, but got self.dtype = Float"
    with pytest.raises(RuntimeError, match=msg):
        torch.take(_x(), T([1]), out=torch.empty(0, dtype=f64))


def test_out_refuses_grad():
    x = torch.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.scatter_add(x, 1, T([[0]]), torch.ones(1, 1), out=torch.empty(0))


# --- 0-d self ---


def test_index_add_0d():
    a = T(2.0)
    np.testing.assert_array_equal(a.index_add(0, T(0), T(5.0)).numpy(), np.float32(7))
    b = a.clone().index_add_(-1, T(0), T(5.0), alpha=2)
    assert b.shape == () and b.item() == 12.0
    assert T(2).index_add(0, T(0), T(5), alpha=3).item() == 17
    h = T(2.0, dtype=torch.float16).index_add(0, T([0]), T(5.0, dtype=torch.float16), alpha=2)
    assert h.dtype is torch.float16 and h.item() == 12.0


def test_index_add_0d_errors():
    with pytest.raises(RuntimeError, match=r"Got self.shape = \[\] source.shape = \[1\]"):
        T(2.0).index_add(0, T([0]), T([5.0]))
    with pytest.raises(RuntimeError, match=r"Got self.shape = \[3\] source.shape = \[\]"):
        torch.ones(3).index_add(0, T([1]), T(5.0))
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        T(2.0).index_add(0, T([0, 0]), T(5.0))


def test_scatter_gather_0d_self():
    a = T(2.0)
    r = a.scatter_add(0, T([0]), T([5.0]))
    assert r.shape == () and r.item() == 7.0
    assert a.scatter_add(0, T([0, 0]), T([5.0, 1.0])).item() == 8.0
    assert a.scatter_add(0, T(0), T([5.0, 1.0])).item() == 7.0  # a 0-d index reads src[0]
    assert a.scatter(0, T([0, 0]), 5.0).item() == 5.0
    assert a.scatter_reduce(0, T([0, 0]), T([5.0, 3.0]), "prod", include_self=False).item() == 15
    g = a.gather(0, T([0, 0]))
    np.testing.assert_array_equal(g.numpy(), np.array([2.0, 2.0], dtype=np.float32))
    assert a.gather(0, T(0)).shape == ()
    with pytest.raises(RuntimeError, match="same number of dimensions as self tensor"):
        a.scatter_add(0, T([[0]]), T([[5.0]]))
    with pytest.raises(RuntimeError, match="index 1 is out of bounds for dimension 0 with size 1"):
        a.gather(0, T([1]))


def test_0d_src_counts_as_one_element():
    r = torch.tensor([1.0, 2.0]).scatter_add(0, T([1]), T(5.0))
    np.testing.assert_array_equal(r.numpy(), np.array([1.0, 7.0], dtype=np.float32))
    with pytest.raises(RuntimeError, match=r"to be no larger size than src \[\]"):
        torch.zeros(2).scatter_add(0, T([0, 1]), T(5.0))


def test_0d_self_gradients():
    a = T(2.0, dtype=f64, requires_grad=True)
    s = T([5.0, 1.0], dtype=f64, requires_grad=True)
    r = a.scatter_add(0, T([0, 0]), s)
    assert type(r.grad_fn).__name__ == "ScatterAddBackward0"
    r.backward(T(3.0, dtype=f64))
    assert a.grad.item() == 3.0
    np.testing.assert_array_equal(s.grad.numpy(), [3.0, 3.0])
    a.grad = None
    a.gather(0, T([0, 0, 0])).backward(T([1.0, 2.0, 3.0], dtype=f64))
    assert a.grad.item() == 6.0
    s0 = T(5.0, dtype=f64, requires_grad=True)
    assert gradcheck(lambda x, v: x.index_add(0, T(0), v, alpha=3), (a, s0))
    assert gradgradcheck(lambda x, v: x.scatter_add(0, T([0, 0]), v * v), (a, s))
    assert gradgradcheck(lambda x: x.gather(0, T([0, 0])) ** 2, (a,))


def test_take_along_dim_0d():
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        T(2.0).take_along_dim(T(0), -1)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        T(2.0).take_along_dim(T([0]), 0)


# --- empty index: torch returns before its shape checks ---


def test_scatter_empty_index_returns_self():
    z = torch.arange(6.0).reshape(3, 2)
    empty = torch.zeros(0, 5, dtype=torch.int64)
    for r in (
        z.scatter(0, empty, torch.ones(0, 5)),
        z.scatter(0, torch.zeros(0, dtype=torch.int64), 1.0),  # ndim differs too
        z.scatter_add(0, empty, torch.ones(3)),
        z.scatter_reduce(0, torch.zeros(5, 0, dtype=torch.int64), torch.ones(0, 0), "amax"),
        z.clone().scatter_(0, empty, torch.ones(0, 5)),
    ):
        np.testing.assert_array_equal(r.numpy(), z.numpy())
    assert z.gather(0, empty).shape == (0, 5)
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        z.scatter(0, empty, torch.ones(0, 5, dtype=f64))


def test_scatter_empty_index_gradients():
    x = torch.zeros(3, 2, dtype=f64, requires_grad=True)
    src = torch.ones(0, 5, dtype=f64, requires_grad=True)
    r = x.scatter(0, torch.zeros(0, 5, dtype=torch.int64), src)
    assert type(r.grad_fn).__name__ == "ScatterBackward0"
    r.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((3, 2)))
    assert src.grad.shape == (0, 5)


# --- amax/amin with include_self=False: the left-out self value counts in the tie ---


def test_amax_exclude_self_tie_count():
    s = T([1.0, 3.0, 3.0], dtype=f64, requires_grad=True)
    base = T([3.0], dtype=f64)
    base.scatter_reduce(0, T([0, 0, 0]), s, "amax", include_self=False).backward()
    np.testing.assert_allclose(s.grad.numpy(), [0.0, 1 / 3, 1 / 3], err_msg="scatter_reduce")
    s.grad = None
    base.index_reduce(0, T([0, 0, 0]), s, "amin", include_self=False).backward()
    np.testing.assert_allclose(s.grad.numpy(), [1.0, 0.0, 0.0], err_msg="index_reduce amin")
    s.grad = None
    base.index_reduce(0, T([0, 0, 0]), s, "amax", include_self=False).backward()
    np.testing.assert_allclose(s.grad.numpy(), [0.0, 1 / 3, 1 / 3], err_msg="index_reduce amax")
    x = T([[0.0, 2.0], [0.0, -1.0]], dtype=f64, requires_grad=True)
    out = x.new_zeros(1, 2).scatter_reduce(0, T([[0, 0], [0, 0]]), x, "amax", include_self=False)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1 / 3, 1.0], [1 / 3, 0.0]])


def test_amax_exclude_self_gradients():
    idx = T([0, 0, 1, 1])
    src = T([1.0, 3.0, 3.0, 0.5], dtype=f64, requires_grad=True)
    base = T([3.0, 0.25], dtype=f64, requires_grad=True)

    def f(b, v):  # values kept away from ties so the finite differences are smooth
        return b.scatter_reduce(0, idx, v * 1.5, "amax", include_self=False)

    assert gradcheck(f, (base, src))
    assert gradgradcheck(f, (base, src))
    # at the tie itself: the second derivative of grad-times-weights is zero, and the
    # double backward of the tie split must run
    out = base.scatter_reduce(0, idx, src, "amax", include_self=False)
    (g,) = torch.autograd.grad(out, src, torch.ones(2, dtype=f64), create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0.0, 0.5, 1.0, 0.0])
