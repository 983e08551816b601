"""autograd.Variable, the legacy wrapper: returns a leaf tensor sharing memory; every tensor is
an instance of it."""

from __future__ import annotations

import pytest

import minitorch as mt
from minitorch.autograd import Variable


def test_variable_is_a_leaf_alias_of_its_data():
    x = mt.tensor([1.0, 2.0])
    v = Variable(x, requires_grad=True)
    assert v is not x and v.requires_grad and v.is_leaf and not x.requires_grad
    x[0] = 5.0  # shares memory
    assert v.tolist() == [5.0, 2.0]
    (v * v).sum().backward()
    assert v.grad.tolist() == [10.0, 4.0]
    assert Variable(x).requires_grad is False


def test_variable_detaches_history():
    y = mt.ones(2, requires_grad=True) * 2
    v = Variable(y)
    assert v.grad_fn is None and not v.requires_grad


def test_isinstance_and_errors():
    assert isinstance(mt.zeros(1), Variable)
    assert not isinstance(3.0, Variable)
    assert Variable().shape == (0,)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1.0])
    with pytest.warns(UserWarning, match="volatile was removed"):
        Variable(mt.ones(1), volatile=True)
