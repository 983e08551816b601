"""Tensor subclasses as in torch: as_subclass, _make_subclass, results keep the most derived
subclass, nn.Parameter opts out, __torch_function__ dispatch for methods; methods that take no
positional argument refuse one with torch's TypeError."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.overrides import handle_torch_function, has_torch_function_unary


class MyT(torch.Tensor):
    pass


class Sub2(MyT):
    pass


class Other(torch.Tensor):
    pass


def _x():
    return torch.arange(6.0).reshape(2, 3)


def test_as_subclass_shares_memory_and_graph():
    a = torch.ones(3, requires_grad=True)
    s = a.as_subclass(MyT)
    assert type(s) is MyT and s.data_ptr() == a.data_ptr() and not s.is_leaf
    assert type(s.grad_fn).__name__ == "AliasBackward0"
    (s * 2).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])
    assert type(a.grad) is torch.Tensor
    assert type(a.as_subclass(torch.Tensor)) is torch.Tensor


def test_as_subclass_refuses_a_non_tensor_class():
    msg = "Creating a Tensor subclass from a class that does not inherit from Tensor"
    with pytest.raises(TypeError, match=msg):
        _x().as_subclass(int)
    with pytest.raises(TypeError, match=msg):
        torch.Tensor._make_subclass(int, _x())


def test_make_subclass():
    a = torch.ones(3, requires_grad=True)
    m = torch.Tensor._make_subclass(MyT, a, False)
    assert type(m) is MyT and not m.requires_grad and m.data_ptr() == a.data_ptr()
    m = torch.Tensor._make_subclass(MyT, a, True)
    assert m.requires_grad and m.is_leaf and m.grad_fn is None


def test_results_keep_the_subclass():
    x = _x()
    s = x.as_subclass(MyT)
    for r in (
        s + 1,
        1 + s,
        x + s,
        torch.add(s, x),
        s.sum(),
        s[0],
        s.T,
        s.exp(),
        s == s,
        torch.nn.functional.relu(s),
        s.detach(),
        s.clone(),
        s.data,
        s.float(),
        torch.stack([x, s]),
        s.new_zeros(2),
    ):
        assert type(r) is MyT, r
    mx = s.max(1)
    assert type(mx).__name__ == "max" and type(mx.values) is MyT and type(mx.indices) is MyT
    assert all(type(p) is MyT for p in s.split(1))
    assert type(s.tolist()) is list and type(s.shape) is torch.Size
    r = s.add_(1)
    assert r is s
    np.testing.assert_array_equal(x.numpy(), np.arange(1.0, 7.0).reshape(2, 3))


def test_most_derived_subclass_and_unrelated_ones():
    x = _x()
    s, s2 = x.as_subclass(MyT), x.as_subclass(Sub2)
    assert type(s + s2) is Sub2 and type(s2 + s) is Sub2 and type(torch.cat([s, s2])) is Sub2
    o = x.as_subclass(Other)
    with pytest.raises(TypeError, match="unsupported operand type"):
        s + o
    with pytest.raises(TypeError, match="Multiple dispatch failed"):
        torch.cat([s, o])


def test_parameter_opts_out():
    p = torch.nn.Parameter(torch.ones(3))
    s = torch.zeros(3).as_subclass(MyT)
    assert type(p + 1) is torch.Tensor and type(torch.add(p, 1)) is torch.Tensor
    assert type(p * s) is MyT and type(s * p) is MyT
    assert type(p.detach()) is torch.Tensor and type(p.data) is torch.Tensor
    assert not has_torch_function_unary(p) and has_torch_function_unary(s)


def test_leaf_grad_is_plain_and_gradcheck():
    leaf = torch.ones(3).as_subclass(MyT).requires_grad_()
    (leaf * 3).sum().backward()
    assert type(leaf.grad) is torch.Tensor
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, dtype=torch.float64, generator=g).as_subclass(MyT).requires_grad_()
    assert gradcheck(lambda t: (t.exp() * t).sum(1), (x,))
    assert gradgradcheck(lambda t: (t.exp() * t).sum(1), (x,))


def test_own_torch_function_is_called_for_methods():
    seen = []

    class Log(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    s = _x().as_subclass(Log)
    assert type(s.sum()) is Log and seen == ["sum"]

    def f(a):
        if has_torch_function_unary(a):
            return handle_torch_function(f, (a,), a)
        return a * 2

    assert type(f(s)) is Log and seen[-1] == "f"
    with pytest.raises(TypeError, match="own __torch_function__ for Tensor methods"):
        torch.add(s, 1)


def test_overridden_methods_and_slots():
    class Ovr(torch.Tensor):
        def sum(self, *args, **kwargs):
            return super().sum(*args, **kwargs) + 100

    o = _x().as_subclass(Ovr)
    r = o.sum()
    assert type(r) is Ovr and r.item() == 115.0

    class Slotted(torch.Tensor):
        __slots__ = ("z",)

    assert type(_x().as_subclass(Slotted) * 2) is Slotted


@pytest.mark.parametrize(
    "name",
    "float double half int long short bool byte char bfloat16 contiguous is_contiguous".split(),
)
def test_no_positional_arguments(name):
    x = torch.ones(2)
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes 0 positional arguments but 1 was "):
        getattr(x, name)(None)
    getattr(x, name)()
