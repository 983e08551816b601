"""default_collate, default_convert, the collate registry and pin_memory's walk of a batch."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch
from minitorch.utils.data import default_collate, default_convert
from minitorch.utils.data._collate import collate, default_collate_fn_map, pin_memory

Point = collections.namedtuple("Point", "x y")


def _check(t, values, dtype):
    assert isinstance(t, minitorch.Tensor)
    assert t.dtype is dtype, f"{t.dtype} != {dtype}"
    np.testing.assert_array_equal(t.numpy(), np.asarray(values), err_msg=str(t))


def test_tensors_are_stacked():
    a, b = minitorch.ones(2, 3), minitorch.zeros(2, 3)
    out = default_collate([a, b])
    assert out.shape == (2, 2, 3) and out.dtype is minitorch.float32
    np.testing.assert_array_equal(out[0].numpy(), a.numpy())


def test_tensors_of_different_shapes_raise_stack_error():
    with pytest.raises(
        RuntimeError,
        match=r"stack expects each tensor to be equal size, but got "
        r"\[2\] at entry 0 and \[3\] at entry 1",
    ):
        default_collate([minitorch.zeros(2), minitorch.zeros(3)])


def test_scalar_tensors_and_subclasses():
    out = default_collate([minitorch.tensor(1), minitorch.tensor(2)])
    _check(out, [1, 2], minitorch.int64)
    p = minitorch.nn.Parameter(minitorch.ones(2))
    assert default_collate([p, p]).shape == (2, 2)


def test_python_numbers():
    _check(default_collate([1.5, 2.0]), [1.5, 2.0], minitorch.float64)
    _check(default_collate([1, 2, 3]), [1, 2, 3], minitorch.int64)
    _check(default_collate([True, False]), [True, False], minitorch.bool)


def test_numpy_arrays_and_scalars():
    out = default_collate([np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)])
    _check(out, [[0, 1, 2], [1, 1, 1]], minitorch.float32)
    _check(default_collate([np.int32(1), np.int32(4)]), [1, 4], minitorch.int32)
    _check(default_collate([np.float64(0.5), np.float64(2)]), [0.5, 2.0], minitorch.float64)
    _check(default_collate([np.bool_(True), np.bool_(False)]), [True, False], minitorch.bool)
    _check(default_collate([np.array(3), np.array(4)]), [3, 4], minitorch.int64)


def test_numpy_string_and_object_arrays_are_rejected():
    msg = (
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found"
    )
    with pytest.raises(TypeError, match=msg + " <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(TypeError, match=msg + " object"):
        default_collate([np.array([{}], dtype=object)] * 2)


def test_strings_and_bytes_stay_lists():
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]
    assert default_collate([np.str_("a"), np.str_("b")]) == ["a", "b"]


def test_mappings_keep_their_type():
    out = default_collate([{"x": 1, "s": "a"}, {"x": 2, "s": "b"}])
    assert set(out) == {"x", "s"} and out["s"] == ["a", "b"]
    _check(out["x"], [1, 2], minitorch.int64)
    od = default_collate([collections.OrderedDict(b=1.0, a=2), collections.OrderedDict(b=3.0, a=4)])
    assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]
    _check(od["b"], [1.0, 3.0], minitorch.float64)


def test_named_tuples_keep_their_type():
    out = default_collate([Point(1, "a"), Point(2, "b")])
    assert type(out) is Point
    _check(out.x, [1, 2], minitorch.int64)
    assert out.y == ("a", "b")  # a field of strings is the transposed tuple, as in torch


def test_sequences_are_transposed():
    out = default_collate([(minitorch.zeros(2), 0), (minitorch.ones(2), 1)])
    assert isinstance(out, list) and len(out) == 2  # tuples come back as lists
    assert out[0].shape == (2, 2)
    _check(out[1], [0, 1], minitorch.int64)
    nested = default_collate([[1, [2.0, "s"]], [3, [4.0, "t"]]])
    assert isinstance(nested, list)
    _check(nested[0], [1, 3], minitorch.int64)
    _check(nested[1][0], [2.0, 4.0], minitorch.float64)
    assert nested[1][1] == ("s", "t")


def test_immutable_sequence_type_is_kept_or_falls_back_to_list():
    class Pair(collections.abc.Sequence):
        def __init__(self, items):
            self.items = list(items)

        def __getitem__(self, i):
            return self.items[i]

        def __len__(self):
            return len(self.items)

    out = default_collate([Pair([1, 2]), Pair([3, 4])])
    assert type(out) is Pair
    _check(out[0], [1, 3], minitorch.int64)

    class NoInit(Pair):
        def __init__(self, a, b):
            super().__init__([a, b])

    assert type(default_collate([NoInit(1, 2), NoInit(3, 4)])) is list  # cannot be rebuilt


def test_ragged_sequences_raise():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_unsupported_type_raises():
    with pytest.raises(
        TypeError,
        match="batch must contain tensors, numpy arrays, numbers, dicts or "
        "lists; found <class 'object'>",
    ):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <class 'NoneType'>"):
        default_collate([None, None])


def test_collate_with_a_custom_map():
    def tensors_summed(batch, *, collate_fn_map=None):
        return sum(batch)

    out = collate(
        [minitorch.tensor(1.0), minitorch.tensor(2.0)],
        collate_fn_map={minitorch.Tensor: tensors_summed},
    )
    assert out.item() == 3.0
    # an extended copy of the default map: exact type first, then isinstance in order
    fn_map = {**default_collate_fn_map, Point: lambda b, *, collate_fn_map=None: "points"}
    assert collate([[Point(1, 2)], [Point(3, 4)]], collate_fn_map=fn_map) == ["points"]


def test_default_convert():
    t = default_convert(np.arange(3))
    _check(t, [0, 1, 2], minitorch.int64)
    arr = np.zeros(2, dtype=np.float32)
    assert np.shares_memory(default_convert(arr).numpy(), arr)
    _check(default_convert(np.float32(1.5)), 1.5, minitorch.float32)
    assert default_convert(3) == 3 and default_convert("s") == "s"
    x = minitorch.ones(2)
    assert default_convert(x) is x
    strs = np.array(["a", "b"])
    assert default_convert(strs) is strs
    assert default_convert(np.str_("a")) == "a"
    out = default_convert({"a": np.ones(2), "b": 1})
    assert isinstance(out["a"], minitorch.Tensor) and out["b"] == 1
    p = default_convert(Point(np.int64(1), "y"))
    assert type(p) is Point and isinstance(p.x, minitorch.Tensor) and p.y == "y"
    lst = default_convert((np.ones(1), 2))
    assert isinstance(lst, list) and isinstance(lst[0], minitorch.Tensor)
    assert default_convert([np.ones(1), 2])[1] == 2


def test_pin_memory_walks_the_batch():
    pinned = []

    class Custom:
        def pin_memory(self):
            pinned.append(self)
            return "pinned"

    # tensors are pinned through Tensor.pin_memory(), which needs CUDA: see tests/cuda/
    c = Custom()
    out = pin_memory({"a": [c], "b": Point(c, "s"), "c": (1, "x")})
    assert out["a"][0] == "pinned" and out["b"].x == "pinned" and out["b"].y == "s"
    assert out["c"] == [1, "x"]
    assert len(pinned) == 2
