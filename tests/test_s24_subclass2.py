"""Tensor subclasses through autograd, pickling, torch.save, deepcopy and torch._C's switches
(expected values are torch 2.13's)."""

import copy
import io
import pickle

import numpy as np
import pytest

import minitorch as torch


class MyT(torch.Tensor):
    pass


class Sub2(MyT):
    pass


class WithNewEmpty(torch.Tensor):
    def new_empty(self, *args, **kwargs):
        return super().new_empty(*args, **kwargs).as_subclass(WithNewEmpty)


def _x(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float64)


def test_backward_with_subclass_gradient_gives_plain_grad():
    x = _x(3).requires_grad_()
    x.backward(torch.ones(3, dtype=torch.float64).as_subclass(Sub2))
    assert type(x.grad) is torch.Tensor
    x.grad = None
    (x + 0).backward(torch.ones(3, dtype=torch.float64).as_subclass(Sub2))
    assert type(x.grad) is torch.Tensor
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(3))


def test_inplace_with_subclass_operands_backward():
    a = _x(3, 4).requires_grad_()
    b = torch.Tensor._make_subclass(Sub2, _x(4, seed=1), True)
    w = torch.Tensor._make_subclass(Sub2, _x(3, 4, seed=2), True)
    a.clone().lerp_(b, w).sum().backward()
    assert [type(t.grad) for t in (a, b, w)] == [torch.Tensor] * 3
    np.testing.assert_allclose(a.grad.numpy(), 1 - w.detach().numpy())


def test_autograd_grad_converts_to_subclass():
    a = _x(3, 4).requires_grad_()
    b = torch.Tensor._make_subclass(Sub2, _x(4, seed=1), True)
    w = torch.Tensor._make_subclass(Sub2, _x(3, 4, seed=2), True)
    g = torch.autograd.grad(torch.lerp(a, b, w).sum(), [a, b, w])
    assert [type(t) for t in g] == [Sub2, Sub2, Sub2]
    # a subclass among neither outputs nor inputs: plain results (torch: grad_outputs don't count)
    x = _x(3).requires_grad_()
    (gx,) = torch.autograd.grad(x * 2, x, torch.ones(3, dtype=torch.float64).as_subclass(Sub2))
    assert type(gx) is torch.Tensor


def test_pickle_keeps_subclass_and_attributes():
    x = torch.ones(2).as_subclass(MyT)
    x.tag = 1
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is MyT and y.tag == 1 and y.is_leaf and not y.requires_grad
    z = torch.Tensor._make_subclass(MyT, torch.ones(2), True)
    y = pickle.loads(pickle.dumps(z))
    # torch rebuilds by as_subclass: a non-leaf alias
    assert type(y) is MyT and not y.is_leaf and type(y.grad_fn).__name__ == "AliasBackward0"


def test_save_load_keeps_subclass():
    x = torch.Tensor._make_subclass(Sub2, torch.arange(3.0), False)
    x.tag = "t"
    buf = io.BytesIO()
    torch.save([x, x[1:]], buf)
    buf.seek(0)
    a, b = torch.load(buf, weights_only=False)
    assert type(a) is Sub2 and type(b) is Sub2 and a.tag == "t"
    assert a.tolist() == [0.0, 1.0, 2.0] and b.tolist() == [1.0, 2.0]
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(buf)


def test_deepcopy_of_subclass():
    with pytest.raises(RuntimeError, match="non-wrapper subclasses only works for subclass types"):
        copy.deepcopy(torch.ones(2).as_subclass(MyT))
    y = copy.deepcopy(torch.ones(2).as_subclass(WithNewEmpty))
    assert type(y) is WithNewEmpty and y.tolist() == [1.0, 1.0]
    p = copy.deepcopy(torch.nn.Parameter(torch.ones(2)))
    assert type(p) is torch.nn.Parameter


def test_C_torch_function_switches():
    C = torch._C
    x = torch.ones(2).as_subclass(MyT)
    p = torch.nn.Parameter(torch.ones(2))
    assert C._has_torch_function((x,)) and C._has_torch_function_unary(x)
    assert C._has_torch_function_variadic(x, 1)
    assert not C._has_torch_function((p, 1)) and not C._has_torch_function_unary(torch.ones(1))
    assert C._is_torch_function_enabled() and not C._is_torch_function_all_disabled()
    with C.DisableTorchFunctionSubclass():
        assert type(x + 1) is torch.Tensor
        assert not C._has_torch_function_unary(x) and not C._is_torch_function_enabled()
        assert not C._is_torch_function_all_disabled()
        with C.DisableTorchFunction():
            assert C._is_torch_function_all_disabled()
        assert not C._is_torch_function_enabled()
    with C.DisableTorchFunction():
        assert type(x + 1) is torch.Tensor and not C._has_torch_function_unary(x)
    assert type(x + 1) is MyT
    r = C._disabled_torch_function_impl(torch.add, (), (x, 1), {})
    assert type(r) is torch.Tensor and r.tolist() == [2.0, 2.0]


def test_as_methods_dispatch_on_other():
    a = torch.ones(6)
    s = torch.ones(2, 3).as_subclass(Sub2)
    assert type(a.view_as(s)) is Sub2 and type(a.reshape_as(s)) is Sub2
    assert type(torch.ones(3).expand_as(s)) is Sub2
    assert type(a.view_as(torch.ones(2, 3))) is torch.Tensor
