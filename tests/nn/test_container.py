"""Containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict) and the simple
layers (Identity, Linear, Flatten, Unflatten)."""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn


class Tag(nn.Module):
    """Adds a constant: distinguishable, parameter-free, pointwise only."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return x + self.k

    def extra_repr(self):
        return f"k={self.k}"


def _ks(container):
    return [m.k for m in container]


# --- Sequential ---


def test_sequential_forward_order_and_indexing():
    seq = nn.Sequential(Tag(1), Tag(2), Tag(3))
    assert seq(minitorch.tensor(0.0)).item() == 6
    assert seq[0].k == 1 and seq[-1].k == 3 and len(seq) == 3
    sub = seq[1:]
    assert type(sub) is nn.Sequential and _ks(sub) == [2, 3] and list(sub._modules) == ["1", "2"]
    assert _ks(seq[::-1]) == [3, 2, 1]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    with pytest.raises(IndexError, match="index -4 is out of range"):
        seq[-4]


def test_sequential_from_ordered_dict_keeps_names():
    seq = nn.Sequential(OrderedDict([("a", Tag(1)), ("b", Tag(2))]))
    assert list(seq._modules) == ["a", "b"] and seq.b.k == 2
    assert [n for n, _ in seq.named_children()] == ["a", "b"]


def test_sequential_setitem_delitem_renumbers():
    seq = nn.Sequential(Tag(0), Tag(1), Tag(2), Tag(3))
    seq[1] = Tag(10)
    seq[-1] = Tag(30)
    assert _ks(seq) == [0, 10, 2, 30]
    del seq[0]
    assert _ks(seq) == [10, 2, 30] and list(seq._modules) == ["0", "1", "2"]
    del seq[::2]
    assert _ks(seq) == [2] and list(seq._modules) == ["0"]


def test_sequential_append_insert_extend_pop_add():
    seq = nn.Sequential(Tag(0))
    assert seq.append(Tag(1)) is seq
    seq.insert(0, Tag(-1))
    seq.insert(-1, Tag(5))
    assert _ks(seq) == [-1, 0, 5, 1]
    seq.extend([Tag(7), Tag(8)])
    assert _ks(seq) == [-1, 0, 5, 1, 7, 8]
    assert seq.pop(2).k == 5 and _ks(seq) == [-1, 0, 1, 7, 8]
    both = nn.Sequential(Tag(1)) + nn.Sequential(Tag(2))
    assert _ks(both) == [1, 2]
    seq2 = nn.Sequential(Tag(1))
    seq2 += nn.Sequential(Tag(2))
    assert _ks(seq2) == [1, 2]
    assert _ks(nn.Sequential(Tag(1), Tag(2)) * 2) == [1, 2, 1, 2]
    with pytest.raises(IndexError, match="Index out of range: 9"):
        seq.insert(9, Tag(0))
    with pytest.raises(AssertionError, match="module should be of type"):
        seq.insert(0, 3)
    with pytest.raises(
        ValueError,
        match="add operator supports only objects of Sequential class, but <class 'int'> is given.",
    ):
        seq + 3


def test_sequential_registers_parameters():
    seq = nn.Sequential(nn.Identity(), nn.Sequential(nn.Identity()))
    seq.append(nn.Module())
    seq[2].p = nn.Parameter(minitorch.ones(1))
    assert [n for n, _ in seq.named_parameters()] == ["2.p"]
    assert "0" not in dir(seq)


# --- ModuleList ---


def test_module_list_basics():
    ml = nn.ModuleList([Tag(0), Tag(1)])
    ml.append(Tag(2))
    ml.extend([Tag(3)])
    ml += [Tag(4)]
    ml.insert(1, Tag(9))
    assert _ks(ml) == [0, 9, 1, 2, 3, 4] and len(ml) == 6
    assert ml[-1].k == 4 and _ks(ml[1:3]) == [9, 1] and type(ml[1:3]) is nn.ModuleList
    ml[0] = Tag(-1)
    del ml[1]
    assert _ks(ml) == [-1, 1, 2, 3, 4] and list(ml._modules) == ["0", "1", "2", "3", "4"]
    assert ml.pop(-1).k == 4
    assert _ks(ml + nn.ModuleList([Tag(7)])) == [-1, 1, 2, 3, 7]
    with pytest.raises(IndexError, match="index 10 is out of range"):
        ml[10]
    with pytest.raises(
        TypeError, match="ModuleList.extend should be called with an iterable, but got int"
    ):
        ml.extend(3)
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        nn.ModuleList([1])


def test_module_list_repr_collapses_repeats():
    ml = nn.ModuleList([Tag(1), Tag(1), Tag(1), Tag(2), Tag(1), Tag(1)])
    assert repr(ml) == (
        "ModuleList(\n  (0-2): 3 x Tag(k=1)\n  (3): Tag(k=2)\n  (4-5): 2 x Tag(k=1)\n)"
    )
    assert repr(nn.ModuleList()) == "ModuleList()"
    nested = nn.ModuleList([nn.Sequential(Tag(1))] * 2)
    assert repr(nested) == ("ModuleList(\n  (0-1): 2 x Sequential(\n    (0): Tag(k=1)\n  )\n)")


# --- ModuleDict ---


def test_module_dict():
    md = nn.ModuleDict({"b": Tag(2), "a": Tag(1)})
    assert list(md) == ["b", "a"] and list(md.keys()) == ["b", "a"]  # insertion order
    md["c"] = Tag(3)
    assert "c" in md and len(md) == 3 and md["c"].k == 3
    assert [k for k, _ in md.items()] == ["b", "a", "c"] and _ks(md.values()) == [2, 1, 3]
    assert md.pop("b").k == 2 and list(md) == ["a", "c"]
    del md["a"]
    md.update([("d", Tag(4))])
    assert list(md) == ["c", "d"]
    assert [n for n, _ in md.named_modules()] == ["", "c", "d"]
    md.clear()
    assert len(md) == 0
    with pytest.raises(
        ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"
    ):
        md.update([(Tag(1),)])
    with pytest.raises(TypeError, match="ModuleDict.update should be called with an iterable"):
        md.update(3)


# --- ParameterList / ParameterDict ---


def test_parameter_list():
    pl = nn.ParameterList([minitorch.ones(2), nn.Parameter(minitorch.zeros(3))])
    assert all(type(p) is nn.Parameter for p in pl) and len(pl) == 2
    pl.append(minitorch.ones(1))
    pl.extend([minitorch.ones(4)])
    assert [tuple(p.shape) for p in pl] == [(2,), (3,), (1,), (4,)]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2", "3"]
    assert [tuple(p.shape) for p in pl[1:3]] == [(3,), (1,)]
    pl[0] = minitorch.zeros(5)
    assert tuple(pl[0].shape) == (5,) and type(pl[0]) is nn.Parameter
    with pytest.raises(
        TypeError, match="ParameterList.extend should be called with an iterable, but got Tensor"
    ):
        pl.extend(minitorch.ones(2))
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()


def test_parameter_list_repr():
    pl = nn.ParameterList([nn.Parameter(minitorch.zeros(3, 4)), minitorch.zeros(2), "x"])
    pl.append(minitorch.zeros(1, dtype=minitorch.float64))
    assert repr(pl) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [torch.float32 of size 3x4]\n"
        "    (1): Parameter containing: [torch.float32 of size 2]\n"
        "    (2): Object of type: str\n"
        "    (3): Parameter containing: [torch.float64 of size 1]\n"
        ")"
    )


def test_parameter_dict():
    pd = nn.ParameterDict({"b": minitorch.ones(2), "a": minitorch.zeros(3)})
    assert list(pd) == ["a", "b"]  # a plain dict is added in sorted order, as torch
    pd["c"] = minitorch.ones(1)
    assert type(pd["c"]) is nn.Parameter and "c" in pd and len(pd) == 3
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    assert pd.get("zz") is None and pd.setdefault("d", minitorch.ones(1)) is pd["d"]
    k, v = pd.popitem()
    assert k == "d" and type(v) is nn.Parameter and "d" not in pd
    assert tuple(pd.pop("a").shape) == (3,)
    merged = pd | nn.ParameterDict(OrderedDict([("z", minitorch.ones(1))]))
    assert list(merged) == ["b", "c", "z"]
    assert list(pd.copy()) == ["b", "c"]
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key"):
        pd[1]
    pd.clear()
    assert len(pd) == 0 and not list(pd.parameters())


def test_parameter_dict_repr():
    pd = nn.ParameterDict(
        OrderedDict(
            [("w", minitorch.zeros(3, 4)), ("d", minitorch.zeros(2, dtype=minitorch.float64))]
        )
    )
    assert repr(pd) == (
        "ParameterDict(\n"
        "    (w): Parameter containing: [torch.FloatTensor of size 3x4]\n"
        "    (d): Parameter containing: [torch.DoubleTensor of size 2]\n"
        ")"
    )


# --- Identity, Linear, Flatten, Unflatten ---


def test_identity_and_reprs():
    x = minitorch.ones(2)
    assert nn.Identity(3, unused=True)(x) is x
    assert repr(nn.Identity()) == "Identity()"
    assert repr(nn.Linear(3, 2, bias=False)) == "Linear(in_features=3, out_features=2, bias=False)"
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.Unflatten(1, (2, 3))) == "Unflatten(dim=1, unflattened_size=(2, 3))"


def test_linear_parameters_and_default_init():
    lin = nn.Linear(400, 300)
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]
    assert tuple(lin.weight.shape) == (300, 400) and tuple(lin.bias.shape) == (300,)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), ...)
    w = lin.weight.detach().numpy()
    assert w.min() >= -bound and w.max() <= bound
    np.testing.assert_allclose(w.std(), bound / math.sqrt(3), rtol=0.02)
    assert np.abs(lin.bias.detach().numpy()).max() <= bound
    lin64 = nn.Linear(2, 3, bias=False, dtype=minitorch.float64)
    assert lin64.weight.dtype is minitorch.float64 and lin64.bias is None


def test_linear_on_device(device):
    lin = nn.Linear(4, 3, device=device)
    assert lin.weight.device == minitorch.device(device)


def test_linear_forward_matches_numpy(device):
    lin = nn.Linear(4, 3).to(device)
    x = minitorch.randn(5, 4, device=device)
    out = lin(x)
    w, b = lin.weight.detach().cpu().numpy(), lin.bias.detach().cpu().numpy()
    np.testing.assert_allclose(
        out.detach().cpu().numpy(), x.cpu().numpy() @ w.T + b, rtol=1e-5, atol=1e-6
    )
    out.sum().backward()
    np.testing.assert_allclose(lin.bias.grad.cpu().numpy(), np.full(3, 5.0), rtol=1e-6)
    np.testing.assert_allclose(
        lin.weight.grad.cpu().numpy(), np.tile(x.cpu().numpy().sum(0), (3, 1)), rtol=1e-5
    )


def test_flatten():
    x = minitorch.zeros(2, 3, 4, 5)
    assert tuple(nn.Flatten()(x).shape) == (2, 60)
    assert tuple(nn.Flatten(0, 2)(x).shape) == (24, 5)


def test_unflatten():
    x = minitorch.arange(24.0).reshape(2, 12)
    assert tuple(nn.Unflatten(1, (3, 4))(x).shape) == (2, 3, 4)
    assert tuple(nn.Unflatten(-1, [2, -1, 3])(x).shape) == (2, 2, 2, 3)
    with pytest.raises(
        TypeError,
        match="unflattened_size must be tuple of ints, but found element of type float at pos 1",
    ):
        nn.Unflatten(1, (2, 6.0))
    with pytest.raises(
        TypeError, match="unflattened_size must be a tuple of ints, but found type int"
    ):
        nn.Unflatten(1, 6)
    with pytest.raises(
        RuntimeError,
        match=r"unflatten: Provided sizes \[5, -1\] don't multiply "
        r"up to the size of dim 1 \(12\) in the input tensor",
    ):
        nn.Unflatten(1, (5, -1))(x)
