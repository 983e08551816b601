"""Session 25 (d2l): what textbook-chapter programs met that differed from torch, with torch's
values as literals: `w.data[:] -= lr * g` of a weight whose leading dims are 1 (a view with the
weight's own memory and strides was refused as a partial overlap), and nn.parallel.scatter/gather
of the multi-GPU chapter (missing)."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.nn.parallel import gather, scatter
from minitorch.nn.parallel.scatter_gather import scatter_kwargs

# --- x[:] op= v through a view of x's own memory (leading dims of size 1) ---


def test_data_slice_isub_of_conv_weight():
    # the learned-kernel exercise: conv2d.weight.data[:] -= lr * conv2d.weight.grad
    w = torch.nn.Parameter(torch.tensor([[[[0.5, -1.0]]]]))
    g = torch.tensor([[[[2.0, 4.0]]]])
    w.data[:] -= 0.25 * g
    assert w.data.tolist() == [[[[0.0, -2.0]]]]


def test_slice_assign_of_own_view_with_leading_ones():
    x = torch.tensor([[1.0, 2.0]])
    v = x[:]
    v *= 3
    x[:] = v
    assert x.tolist() == [[3.0, 6.0]]
    x = torch.arange(6.0).reshape(1, 1, 6)
    x[0] = x[0]
    assert x.tolist() == [[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]]
    x = torch.arange(2.0).reshape(1, 2)
    x[0] = x
    assert x.tolist() == [[0.0, 1.0]]


def test_partial_overlap_still_refused():
    x = torch.arange(6.0).reshape(1, 6)
    with pytest.raises(RuntimeError, match="unsupported operation: some elements"):
        x[:, 1:] = x[:, :-1]


# --- nn.parallel.scatter / gather ---


def test_scatter_refuses_cpu_and_unindexed_devices():
    x = torch.ones(4)
    for devices in ([torch.device("cpu")], ["cpu"], [torch.device("cpu"), "cpu"]):
        with pytest.raises(ValueError, match="^Expected a non cpu device, but got: cpu$"):
            scatter(x, devices)
    with pytest.raises(ValueError) as e:
        scatter(x, [torch.device("meta")])
    assert str(e.value) == (
        "Expected a torch.device with a specified index or an integer, but got:None"
    )


def test_scatter_structures_without_tensors():
    nt = collections.namedtuple("NT", "a b")
    assert scatter(3, ["cpu"]) == [3]
    assert scatter((3,), []) == []
    assert scatter([], [0, 1]) == [[], []]
    assert scatter({}, [0]) == [{}]
    assert scatter((1, [2, {"k": 3}]), ["a", "b"]) == [(1, [2, {"k": 3}])] * 2
    assert scatter(nt(1, 2), [1, 2]) == [nt(1, 2), nt(1, 2)]
    assert scatter_kwargs((3,), {"a": 1}, []) == ((), ())
    assert scatter_kwargs((3,), {"a": 1}, ["x", "y"]) == (((3,), (3,)), ({"a": 1}, {"a": 1}))
    assert scatter_kwargs((), {"a": 1}, ["x", "y"]) == (((), ()), ({"a": 1}, {"a": 1}))
    assert scatter_kwargs((3, 4), {}, ["x"]) == (((3, 4),), ({},))


def test_gather_errors_and_none():
    x = torch.ones(2)
    for target in ("cpu", -1, 0):
        with pytest.raises(AssertionError, match="^Gather function not implemented for CPU"):
            gather([x, x], target)
    assert gather([None, None], "cpu") is None
    assert gather([(None,), (None,)], "cpu") == (None,)
    with pytest.raises(ValueError, match="^All dicts must have the same number of keys$"):
        gather([{"a": None}, {}], "cpu")


def test_scatter_gather_round_trip_on_a_device():
    # the strict test device stands for a GPU (the split_batch of the multi-GPU chapter)
    x = torch.arange(10.0, requires_grad=True)
    y = torch.arange(10)
    parts = scatter(x, ["strict"] * 3)
    assert [p.shape[0] for p in parts] == [4, 4, 2]
    assert all(p.device.type == "strict" for p in parts)
    pairs = scatter((x, y), [torch.device("strict")] * 2)
    assert len(pairs) == 2
    np.testing.assert_array_equal(pairs[1][1].cpu().numpy(), [5, 6, 7, 8, 9])
    out = gather([p * torch.arange(1.0, 1.0 + p.shape[0], device=p.device) for p in parts], -1)
    assert out.device.type == "cpu"
    assert out.tolist() == [0.0, 2.0, 6.0, 12.0, 4.0, 10.0, 18.0, 28.0, 8.0, 18.0]
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0]
    dicts = gather([{"a": p} for p in parts], "cpu")
    assert dicts["a"].shape == (10,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sums = gather([p.detach().sum() for p in parts], "cpu")
    assert sums.tolist() == [6.0, 22.0, 17.0]
    assert [str(w.message) for w in caught] == [
        "Was asked to gather along dimension 0, but all input tensors were scalars; will "
        "instead unsqueeze and return a vector."
    ]
    assert gather(list(parts), "strict").device.type == "strict"
