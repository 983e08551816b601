"""Tensor construction and conversion fixes from sweep 4: scalars read in the tensor's dtype by
searchsorted/bucketize/isin, row-major copies of expanded tensors, torch.utils._pytree,
memory_format on the shorthand casts, writable numpy() of expanded tensors, sizes given by
__index__ objects."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import minitorch as mt


def test_searchsorted_reads_a_python_scalar_in_the_sequence_dtype():
    edges = mt.tensor([0.1, 0.7, 1.1, 2.3])  # float32: 0.7 is float32(0.7)
    assert mt.searchsorted(edges, 0.7).item() == 1
    assert mt.bucketize(0.7, edges).item() == 1
    h = mt.tensor([2048.0, 2050.0], dtype=mt.float16)
    assert mt.searchsorted(h, 2049).item() == 0  # 2049 is 2048 in float16
    u8 = mt.tensor([0, 5, 255], dtype=mt.uint8)
    assert mt.searchsorted(u8, -1).item() == 2  # -1 wraps to 255
    ints = mt.tensor([1, 2, 3])
    assert mt.searchsorted(ints, 2.5).item() == 2  # a float is not truncated into the ints
    # tensors promote as a pair: float64 values against float32 edges compare in float64
    assert mt.searchsorted(edges, mt.tensor([0.7], dtype=mt.float64)).tolist() == [2]
    # int64 with float32 compares in float32 (NumPy would use float64)
    big = mt.tensor([16777217, 16777218])
    assert mt.isin(big, mt.tensor([16777217.0])).tolist() == [True, False]
    with pytest.raises(NotImplementedError, match="Bool"):
        mt.searchsorted(mt.tensor([False, True]), True)


def test_isin_reads_a_python_scalar_in_the_tensor_dtype():
    edges = mt.tensor([0.1, 0.7, 1.1, 2.3])
    assert mt.isin(edges, 0.7).tolist() == [False, True, False, False]
    assert mt.isin(0.7, edges).item() is True
    u8 = mt.tensor([0, 255], dtype=mt.uint8)
    assert mt.isin(u8, -1).tolist() == [False, True]
    assert mt.isin(u8, 256).tolist() == [True, False]
    assert mt.isin(u8, 255.5).tolist() == [False, False]
    assert mt.isin(u8, mt.tensor([-1])).tolist() == [False, False]  # int64 pair: no wrap
    with pytest.raises(RuntimeError, match="isin\\(\\): Bool"):
        mt.isin(mt.tensor([1, 0]), True)
    with pytest.raises(TypeError, match="invalid combination"):
        mt.isin(2, 3)


@pytest.mark.parametrize(
    "copy",
    [
        lambda t: mt.tensor(t),
        lambda t: t.new_tensor(t),
        lambda t: mt.asarray(t, copy=True),
        lambda t: mt.tensor(t, dtype=mt.float16),
    ],
)
def test_copies_of_an_expanded_tensor_are_row_major(copy):
    pos = mt.arange(4.0).expand(2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = copy(pos)
    assert c.stride() == (4, 1) and c.is_contiguous()
    np.testing.assert_array_equal(c.view(-1).numpy(), [0, 1, 2, 3] * 2)


@pytest.mark.parametrize("name", ["float", "double", "half", "long", "int", "bool", "cpu"])
def test_shorthand_casts_honour_memory_format(name):
    x = mt.arange(120.0).reshape(2, 3, 4, 5)
    y = getattr(x, name)(memory_format=mt.channels_last)
    assert y.is_contiguous(memory_format=mt.channels_last) and y.stride() == (60, 1, 15, 3)
    np.testing.assert_array_equal(y.double().numpy(), getattr(x, name)().double().numpy())
    back = x.contiguous(memory_format=mt.channels_last)
    assert getattr(back, name)(memory_format=mt.contiguous_format).is_contiguous()
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'memory_format'"):
        getattr(x, name)(memory_format=3)


def test_shorthand_cast_in_format_is_differentiable():
    x = mt.rand(1, 2, 2, 3, dtype=mt.float64, requires_grad=True)
    f = lambda t: (t.double(memory_format=mt.channels_last) * 2).sum()  # noqa: E731
    assert mt.autograd.gradcheck(f, (x,))
    assert mt.autograd.gradgradcheck(f, (x,))


def test_numpy_of_an_expanded_tensor_is_writable_and_aliases():
    x = mt.zeros(3)
    a = x.expand(2, 3).numpy()
    assert a.strides == (0, 4) and a.flags.writeable
    a[0, 1] = 5
    assert x.tolist() == [0.0, 5.0, 0.0]
    b = mt.zeros(3, dtype=mt.bfloat16).expand(2, 3).numpy()
    assert b.dtype.name == "bfloat16" and b.flags.writeable
    ro = np.frombuffer(b"abcdefgh", dtype=np.uint8)  # read-only memory stays read-only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not mt.from_numpy(ro).expand(2, 8).numpy().flags.writeable


class _Index:
    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


def test_sizes_given_by_index_objects():
    assert mt.zeros(_Index(3)).shape == (3,)
    assert mt.ones(_Index(2), _Index(3)).shape == (2, 3)
    assert mt.full((_Index(2), 3), 1.0).shape == (2, 3)
    assert mt.Tensor(_Index(3)).shape == (3,)
    with pytest.raises(TypeError):
        mt.zeros(1.5)


# --- torch.utils._pytree ---


def _pt():
    from minitorch.utils import _pytree

    return _pytree


def test_pytree_none_is_a_leaf_and_subclasses_are_leaves():
    pt = _pt()
    batch = {"x": 1, "mask": None, "n": (2, 3)}
    assert pt.tree_leaves(batch) == [1, None, 2, 3]
    assert pt.tree_map(lambda v: "seen" if v is None else v, batch)["mask"] == "seen"

    class TS(tuple):
        pass

    assert pt.tree_leaves([TS((1, 2)), {"a": [3]}]) == [TS((1, 2)), 3]
    assert pt.tree_structure(None).is_leaf()


def test_pytree_collections_round_trip():
    pt = _pt()
    NT = collections.namedtuple("NT", "a b")
    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    dq = collections.deque([1, [2]], maxlen=5)
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    for tree, leaves in [(dd, [1, 2]), (dq, [1, 2]), (od, [1, 2]), (NT(1, [2]), [1, 2])]:
        got, spec = pt.tree_flatten(tree)
        assert got == leaves
        back = pt.tree_unflatten([v * 10 for v in got], spec)
        assert type(back) is type(tree)
    assert pt.tree_map(lambda v: v + 1, dd).default_factory is list
    assert pt.tree_map(lambda v: v, dq).maxlen == 5
    assert pt.tree_leaves(mt.zeros(2).max(0)) == list(mt.zeros(2).max(0))


def test_pytree_spec_and_errors():
    pt = _pt()
    spec = pt.tree_structure([1, (2, 3)])
    assert (spec.num_leaves, spec.num_nodes, spec.num_children) == (3, 5, 2)
    assert repr(spec) == "TreeSpec(list, None, [*,\n  TreeSpec(tuple, None, [*,\n    *])])"
    assert spec == pt.tree_structure([4, (5, 6)]) and spec != pt.tree_structure([4, [5, 6]])
    assert spec.unflatten([7, 8, 9]) == [7, (8, 9)]
    with pytest.raises(
        ValueError, match="`leaves` has length 1 but the spec refers to a pytree that holds 3 items"
    ):
        pt.tree_unflatten([1], spec)
    with pytest.raises(TypeError, match="PyTreeSpec"):
        pt.tree_unflatten([1, 2], [1, 2])


def test_pytree_maps_and_predicates():
    pt = _pt()
    assert pt.tree_map(lambda a, b: a + b, [1, 2], [10, 20]) == [11, 22]
    assert pt.tree_map(lambda a, b: (a, b), [1, 2], [10, [20, 30]]) == [(1, 10), (2, [20, 30])]
    assert pt.tree_map(lambda a, b: a + b, {"a": 1, "b": 2}, {"b": 20, "a": 10}) == {
        "a": 11, "b": 22}  # fmt: skip
    with pytest.raises(ValueError, match="Node arity mismatch; expected 2, but got 3"):
        pt.tree_map(lambda a, b: a, [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="Node type mismatch"):
        pt.tree_map(lambda a, b: a, [1, 2], (1, 2))
    with pytest.raises(ValueError, match="Node keys mismatch"):
        pt.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    assert pt.tree_leaves([[1, 2], [3]], is_leaf=lambda v: v == [3]) == [1, 2, [3]]
    assert pt.tree_map_only(int, lambda v: v * 10, [1, "a", 2.5, (3,)]) == [10, "a", 2.5, (30,)]
    assert pt.tree_map_only((int, str), lambda v: v * 2, [1, "a", 2.5]) == [2, "aa", 2.5]
    assert pt.tree_all(lambda v: v > 0, [1, (2, 3)]) and not pt.tree_all(lambda v: v > 1, [1, 2])
    assert pt.tree_any(lambda v: v > 2, [1, (2, 3)]) and not pt.tree_any(bool, [])
    assert pt.tree_all_only(int, lambda v: v > 0, [1, "a", -1.0])
    assert not pt.tree_any_only(int, lambda v: v > 5, [1, "a", 10.0])
    assert list(pt.tree_iter([1, (2, None), {"a": 3}])) == [1, 2, None, 3]
    seen = []
    assert pt.tree_map_(seen.append, [1, (2, 3)]) == [1, (2, 3)] and seen == [1, 2, 3]


def test_pytree_paths_and_registration():
    pt = _pt()
    NT = collections.namedtuple("NT", "a b")
    paths = [pt.keystr(kp) for kp, _ in pt.tree_leaves_with_path({"a": [1, NT(2, 3)], 3: 4})]
    assert paths == ["['a'][0]", "['a'][1].a", "['a'][1].b", "[3]"]

    class Pt:
        def __init__(self, x, y):
            self.x, self.y = x, y

    pt.register_pytree_node(Pt, lambda o: ([o.x, o.y], None), lambda v, c: Pt(*v))
    try:
        out = pt.tree_map(lambda v: v * 10, [Pt(1, (2, 3))])[0]
        assert (out.x, out.y) == (10, (20, 30))
        with pytest.raises(ValueError, match="already registered"):
            pt.register_pytree_node(Pt, lambda o: ([], None), lambda v, c: Pt(0, 0))
        with pytest.raises(ValueError, match="flatten_with_keys_fn"):
            pt.tree_flatten_with_path(Pt(1, 2))
    finally:
        pt.SUPPORTED_NODES.pop(Pt)

    class Q:
        def __init__(self, a):
            self.a = a

    with pytest.warns(FutureWarning, match="_register_pytree_node` is deprecated"):
        pt._register_pytree_node(Q, lambda o: ([o.a], None), lambda v, c: Q(v[0]))
    try:
        assert pt.tree_map(lambda v: v + 1, {"q": Q(1)})["q"].a == 2
    finally:
        pt.SUPPORTED_NODES.pop(Q)
