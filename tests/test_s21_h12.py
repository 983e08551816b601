"""Printing of Tensor subclasses, str() of subclasses and return-type construction, as torch."""

import pytest

import minitorch as torch


class MyTensor(torch.Tensor):
    pass


class ReprTensor(torch.Tensor):
    def __repr__(self, *, tensor_contents=None):
        return "ReprTensor!"


class ReprParameter(torch.nn.Parameter):
    def __repr__(self):
        return "ReprParameter!"


def test_tensor_subclass_repr_uses_its_class_name():
    # torch 2.13: repr(MyTensor([1., 2.])) == 'MyTensor([1., 2.])'
    assert repr(MyTensor([1.0, 2.0])) == "MyTensor([1., 2.])"
    assert str(MyTensor([1.0, 2.0])) == "MyTensor([1., 2.])"
    assert repr(MyTensor([1.0, 2.0]).requires_grad_()) == ("MyTensor([1., 2.], requires_grad=True)")
    assert repr(MyTensor([])) == "MyTensor([])"
    assert repr(MyTensor(torch.tensor([1, 2], dtype=torch.int32))) == (
        "MyTensor([1, 2], dtype=torch.int32)"
    )
    # continuation lines are indented by the prefix's length
    long = MyTensor(torch.tensor([[1.5, 2.0] * 20] * 2))
    lines = repr(long).split("\n")
    assert lines[0] == "MyTensor([[1.5000, 2.0000, 1.5000, 2.0000, 1.5000, 2.0000, 1.5000, 2.0000,"
    assert lines[1] == "           1.5000, 2.0000, 1.5000, 2.0000, 1.5000, 2.0000, 1.5000, 2.0000,"
    assert lines[5] == "          [1.5000, 2.0000, 1.5000, 2.0000, 1.5000, 2.0000, 1.5000, 2.0000,"
    assert len(lines) == 10
    assert MyTensor([1.0]).__repr__(tensor_contents="X") == "MyTensor(X)"
    # a plain Tensor and a plain Parameter keep the "tensor(" prefix
    assert repr(torch.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    p = torch.nn.Parameter(torch.ones(2))
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert str(p) == repr(p)


def test_str_calls_a_subclass_own_repr():
    # torch's Tensor defines no __str__: object.__str__ calls the subclass's __repr__
    t = ReprTensor([1.0])
    assert str(t) == "ReprTensor!"
    assert f"{t}" == "ReprTensor!"
    assert str([t]) == "[ReprTensor!]"
    p = ReprParameter(torch.ones(1))
    assert str(p) == "ReprParameter!"
    assert repr(p) == "ReprParameter!"


def test_format_of_a_zero_dim_subclass_is_object_format():
    # torch formats only a plain 0-d Tensor as its number
    t = MyTensor(torch.tensor(2.5))
    assert format(t, "") == "MyTensor(2.5000)"
    assert f"{t}" == "MyTensor(2.5000)"
    with pytest.raises(
        TypeError, match=r"^unsupported format string passed to MyTensor.__format__$"
    ):
        format(t, ".2f")
    assert format(torch.tensor(2.5), ".2f") == "2.50"


@pytest.mark.parametrize("arg", [5, None, 3.5, torch.tensor(1.0)])
def test_return_type_constructor_requires_a_sequence(arg):
    with pytest.raises(TypeError, match=r"^constructor requires a sequence$"):
        torch.return_types.max(arg)
    # any iterable will do, as for torch's structseq types
    assert tuple(torch.return_types.max(iter([1, 2]))) == (1, 2)
    assert tuple(torch.return_types.max("ab")) == ("a", "b")
    r = torch.return_types.max({1: 2, 3: 4})
    assert (r.values, r.indices) == (1, 3)
    with pytest.raises(TypeError, match=r"takes a 2-sequence \(3-sequence given\)"):
        torch.return_types.max((1, 2, 3))
