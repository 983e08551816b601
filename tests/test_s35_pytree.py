"""Session 35 (helper pytree): torch-free regression tests of the library fixes the programs of
tests/reference/test_s35_pytree_reference.py found in minitorch.utils._pytree: the names of
torch's __all__ (type aliases, PyTreeSpec, treespec_dumps/loads, treespec_pprint, the
namedtuple and structseq predicates), register_constant, treespec_tuple/treespec_dict,
_broadcast_to_and_flatten, _deregister_pytree_node and TreeSpec._context; _register_pytree_node
replacing a node with a warning; register_pytree_node's serialization arguments; a registered
namedtuple class staying a namedtuple node; LeafSpec()'s deprecation warning; and
minitorch.func's transforms flattening by that registry (registered types, deque and
defaultdict are nodes, subclasses of dict and list leaves). torch's texts are written here as
literals."""

from __future__ import annotations

import collections
import dataclasses
import enum
import json
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils import _pytree as pt

LEAF = {"type": None, "context": None, "children_spec": []}


class Color(enum.Enum):
    RED = 1


@pytest.fixture
def registered():
    """Types registered by a test, forgotten after it."""
    types: list = []
    yield types
    for cls in types:
        if cls in pt.SUPPORTED_NODES:
            pt._deregister_pytree_node(cls)


def _box_class():
    class Box:
        def __init__(self, v, tag):
            self.v, self.tag = v, tag

    return Box


def test_torch_all_names_exist():
    for name in (
        "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext",
        "ToDumpableContextFn", "FromDumpableContextFn", "PyTreeSpec", "treespec_dumps",
        "treespec_loads", "treespec_pprint", "is_namedtuple", "is_namedtuple_class",
        "is_namedtuple_instance", "is_structseq", "is_structseq_class", "is_structseq_instance",
    ):  # fmt: skip
        assert name in pt.__all__, name
        assert hasattr(pt, name), name
    assert pt.PyTreeSpec is pt.TreeSpec
    assert pt.tree_structure({"k": 1})._context == ["k"]


def test_treespec_dumps_torch_text_and_loads_back():
    tree = {"a": [1, (2, None)], "d": collections.deque([5], maxlen=4), "s": mt.Size([2])}
    spec = pt.tree_structure(tree)
    text = pt.treespec_dumps(spec)
    assert text == (
        '[1, {"type": "builtins.dict", "context": "[\\"a\\", \\"d\\", \\"s\\"]", "children_spec": '
        '[{"type": "builtins.list", "context": "null", "children_spec": [{"type": null, '
        '"context": null, "children_spec": []}, {"type": "builtins.tuple", "context": "null", '
        '"children_spec": [{"type": null, "context": null, "children_spec": []}, {"type": null, '
        '"context": null, "children_spec": []}]}]}, {"type": "collections.deque", "context": '
        '"4", "children_spec": [{"type": null, "context": null, "children_spec": []}]}, '
        '{"type": "torch.Size", "context": "null", "children_spec": [{"type": null, "context": '
        'null, "children_spec": []}]}]}]'
    )
    back = pt.treespec_loads(text)
    assert back == spec
    assert pt.treespec_loads(text) is back  # cached, as torch's
    assert pt.treespec_dumps(pt.treespec_leaf()) == json.dumps([1, LEAF])


def test_treespec_dumps_defaultdict_and_enum_contexts():
    spec = pt.tree_structure(collections.defaultdict(list, q=4))
    schema = json.loads(pt.treespec_dumps(spec))[1]
    assert schema["context"] == {
        "default_factory_module": "builtins",
        "default_factory_name": "list",
        "dict_context": ["q"],
    }
    back = pt.treespec_loads(pt.treespec_dumps(spec))
    assert back.type is collections.defaultdict and back.context == [list, ["q"]]
    espec = pt.tree_structure({Color.RED: 1})
    ctx = json.loads(json.loads(pt.treespec_dumps(espec))[1]["context"])
    assert ctx == [{"__enum__": True, "fqn": f"{__name__}:Color", "name": "RED"}]
    assert pt.treespec_loads(pt.treespec_dumps(espec)).context == [Color.RED]


def test_treespec_dumps_errors():
    spec = pt.tree_structure([1])
    with pytest.raises(TypeError, match=r"^Expected `treespec` to be an instance of PyTreeSpec "):
        pt.treespec_dumps([1])
    with pytest.raises(ValueError, match=r"^Unknown protocol 2\. Available protocols: \[1\]$"):
        pt.treespec_dumps(spec, protocol=2)
    with pytest.raises(ValueError, match=r"^Unknown protocol 3\. Available protocols: \[1\]$"):
        pt.treespec_loads("[3, {}]")
    with pytest.raises(NotImplementedError, match=r"^Deserializing my\.Thing in pytree is not"):
        pt.treespec_loads('[1, {"type": "my.Thing", "context": "null", "children_spec": []}]')
    with pytest.raises(TypeError, match=r"^Unable to serialize context\. Please make the context"):
        pt.treespec_dumps(pt.tree_structure({object: 1}))
    with pytest.raises(
        NotImplementedError,
        match=r"^No registered serialization name for <class 'minitorch\.return_types\.max'> ",
    ):
        pt.treespec_dumps(pt.tree_structure(mt.max(mt.ones(2, 2), 0)))
    point = collections.namedtuple("Point", "x y")
    with pytest.raises(NotImplementedError, match=r"didn't register a serializated_type_name"):
        pt.treespec_dumps(pt.tree_structure(point(1, 2)))


def test_registered_types_serialize_by_name(registered):
    Box = _box_class()
    Unnamed = _box_class()

    @dataclasses.dataclass
    class DC:
        a: object
        b: object = None

    Q = collections.namedtuple("Q", ["a", "b"])
    registered += [Box, Unnamed, DC, Q]
    pt.register_pytree_node(
        Box,
        lambda b: ([b.v], b.tag),
        lambda v, c: Box(v[0], c),
        serialized_type_name="test_s35.Box",
    )
    spec = pt.tree_structure([Box(1, "t1")])
    schema = json.loads(pt.treespec_dumps(spec))[1]["children_spec"][0]
    assert schema == {"type": "test_s35.Box", "context": '"t1"', "children_spec": [LEAF]}
    assert pt.treespec_loads(pt.treespec_dumps(spec)) == spec
    pt.register_pytree_node(Unnamed, lambda b: ([b.v], None), lambda v, c: Unnamed(v[0], None))
    with pytest.raises(NotImplementedError, match=r"^No registered serialization name for "):
        pt.treespec_dumps(pt.tree_structure(Unnamed(1, 2)))
    pt._register_namedtuple(Q, serialized_type_name="test_s35.Q")
    qspec = pt.tree_structure(Q(1, 2))
    assert json.loads(pt.treespec_dumps(qspec))[1]["type"] == "collections.namedtuple"
    assert json.loads(pt.treespec_dumps(qspec))[1]["context"] == "test_s35.Q"
    assert repr(qspec).startswith("TreeSpec(namedtuple, <class ")
    assert pt.treespec_loads(pt.treespec_dumps(qspec)) == qspec
    pt.register_dataclass(DC, serialized_type_name="test_s35.DC")
    dspec = pt.tree_structure(DC(1))
    assert json.loads(pt.treespec_dumps(dspec))[1]["context"] == '[["a"], ["b"]]'
    assert pt.treespec_loads(pt.treespec_dumps(dspec)) == dspec
    pt._deregister_pytree_node(Box)
    pt._deregister_pytree_node(Unnamed)  # torch: KeyError (the shared unnamed entry)
    with pytest.raises(NotImplementedError, match=r"in pytree is not registered\.$"):
        pt.treespec_dumps(spec)


def test_register_pytree_node_dumpable_context_pair(registered):
    Box = _box_class()
    registered.append(Box)
    with pytest.raises(
        ValueError,
        match=r"^Both to_dumpable_context and from_dumpable_context for <class .*Box'> must be "
        r"None or registered\.$",
    ):
        pt.register_pytree_node(
            Box, lambda b: ([b.v], None), lambda v, c: Box(v[0], None), to_dumpable_context=str
        )
    assert pt.tree_leaves(Box(7, "x")) == [7]  # registered before the check, as in torch


def test_deprecated_register_replaces_with_warning(registered):
    Box = _box_class()
    registered.append(Box)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pt._register_pytree_node(Box, lambda b: ([b.v], b.tag), lambda v, c: Box(v[0], c))
        pt._register_pytree_node(Box, lambda b: ([b.tag], b.v), lambda v, c: Box(c, v[0]), str)
    texts = [(w.category, str(w.message)) for w in caught]
    deprecated = (
        "`torch.utils._pytree._register_pytree_node` is deprecated. Please use "
        "`torch.utils._pytree.register_pytree_node` instead."
    )
    assert texts == [
        (FutureWarning, deprecated),
        (FutureWarning, deprecated),
        (
            FutureWarning,
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. Please use "
            "`to_dumpable_context` and `from_dumpable_context` instead.",
        ),
        (
            UserWarning,
            f"{Box} is already registered as pytree node. Overwriting the previous registration.",
        ),
    ]
    assert pt.tree_leaves(Box(1, "last")) == ["last"]
    with pytest.raises(ValueError, match=r"is already registered as pytree node\.$"):
        pt.register_pytree_node(Box, lambda b: ([], None), lambda v, c: Box(0, 0))


def test_registered_namedtuple_stays_namedtuple(registered):
    NT = collections.namedtuple("NT", ["p", "q"])
    registered.append(NT)
    pt.register_pytree_node(NT, lambda t: ([t.p], t.q), lambda v, c: NT(v[0], c))
    leaves, spec = pt.tree_flatten(NT(1, 2))
    assert leaves == [1, 2]
    assert spec.type is collections.namedtuple and spec.context is NT


def test_predicates():
    point = collections.namedtuple("Point", "x y")
    r = mt.max(mt.arange(6.0).reshape(2, 3), 0)
    assert [pt.is_namedtuple(o) for o in (point(1, 2), point, (1, 2), r)] == [
        True, True, False, False,
    ]  # fmt: skip
    assert [pt.is_structseq(o) for o in (r, type(r), point(1, 2), (1,))] == [
        True, True, False, False,
    ]  # fmt: skip
    assert pt.is_structseq(mt.sort(mt.ones(3))) and pt.is_structseq(mt.linalg.slogdet(mt.eye(2)))
    import time

    assert pt.is_structseq(time.gmtime(0))
    assert pt.is_namedtuple_class(point) and not pt.is_namedtuple_class(point(1, 2))
    assert pt.is_structseq_class(type(r)) and not pt.is_structseq_class(r)
    assert pt.is_namedtuple_instance(point(1, 2)) and not pt.is_namedtuple_instance(point)
    assert pt.is_structseq_instance(r) and not pt.is_structseq_instance(type(r))


def test_pprint_and_spec_builders():
    point = collections.namedtuple("Point", "x y")
    spec = pt.tree_structure({"a": [1, (2,)], "b": None, "p": point(1, 2)})
    assert pt.treespec_pprint(spec) == "{'a': [*, (*,)], 'b': *, 'p': Point(x=*, y=*)}"
    assert pt.treespec_pprint(pt.treespec_leaf()) == "*"
    assert pt.treespec_tuple([pt.treespec_leaf()] * 2) == pt.tree_structure((0, 1))
    assert pt.treespec_dict(a=pt.treespec_leaf(), b=pt.treespec_leaf()) == pt.tree_structure(
        {"a": 0, "b": 1}
    )
    with pytest.raises(ValueError, match=r"^Expected a tuple of TreeSpec values, got: \[1\]\.$"):
        pt.treespec_tuple([1])
    with pytest.raises(ValueError, match=r"^Expected a dictionary of TreeSpec values, got: "):
        pt.treespec_dict(a=1)


def test_register_constant(registered):
    @dataclasses.dataclass(frozen=True)
    class Cfg:
        norm: str

    registered.append(Cfg)
    pt.register_constant(Cfg)
    leaves, spec = pt.tree_flatten({"cfg": Cfg("l2"), "w": 1})
    assert leaves == [1]
    assert spec.child(0).context == pt.ConstantNode(Cfg("l2"))
    assert spec.child(0).num_leaves == 0 and not spec.child(0).is_leaf()
    assert pt.tree_unflatten([5], spec) == {"cfg": Cfg("l2"), "w": 5}
    assert spec != pt.tree_structure({"cfg": Cfg("l1"), "w": 0})

    class NoEq:
        pass

    with pytest.raises(TypeError, match=r"non-default `__eq__` implementation\.$"):
        pt.register_constant(NoEq)


def test_broadcast_to_and_flatten():
    full = pt.tree_structure([1, (2, 3), {"a": 4}])
    assert pt._broadcast_to_and_flatten(0, full) == [0, 0, 0, 0]
    assert pt._broadcast_to_and_flatten([0, 1, 2], full) == [0, 1, 1, 2]
    assert pt._broadcast_to_and_flatten([0, (1, None), {"a": 2}], full) == [0, 1, None, 2]
    assert pt._broadcast_to_and_flatten([0, 1], full) is None
    assert pt._broadcast_to_and_flatten((0, 1, 2), full) is None


def test_leafspec_warns_deprecated():
    with pytest.warns(FutureWarning) as caught:
        leaf = pt.LeafSpec()
    assert str(caught[0].message) == (
        "`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, TreeSpec) "
        "and treespec.is_leaf()` instead."
    )
    assert leaf == pt.treespec_leaf() and leaf.is_leaf()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pt.tree_flatten([1, (2,)])  # the library's own leaf specs do not warn


def test_func_transforms_use_the_node_registry(registered):
    @dataclasses.dataclass
    class Params:
        w: object
        b: object = None

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    registered += [Params, Pair]
    pt.register_dataclass(Params)
    pt.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda v, c: Pair(*v))
    w = mt.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=mt.float64)
    g = mt.func.grad(lambda p: (p.w**2).sum())(Params(w))
    assert type(g) is Params and g.b is None
    np.testing.assert_allclose(g.w.numpy(), 2 * w.numpy(), err_msg="grad of a dataclass")
    x = mt.arange(6.0, dtype=mt.float64).reshape(2, 3)
    out = mt.func.vmap(lambda r: Pair(r * 2, r.sum()))(x)
    assert type(out) is Pair
    np.testing.assert_allclose(out.b.numpy(), [3.0, 12.0], err_msg="vmap output")
    summed = mt.func.vmap(lambda p: p.a + p.b)(Pair(x, x))
    np.testing.assert_allclose(summed.numpy(), 2 * x.numpy(), err_msg="vmap input")
    q = mt.func.vmap(lambda d: d[0] * d[1])(collections.deque([x, x + 1]))
    np.testing.assert_allclose(q.numpy(), (x * (x + 1)).numpy(), err_msg="deque input")
    dd = mt.func.vmap(lambda r: collections.defaultdict(list, k=r.sum()))(x)
    assert type(dd) is collections.defaultdict and dd.default_factory is list
    np.testing.assert_allclose(dd["k"].numpy(), [3.0, 12.0], err_msg="defaultdict output")


def test_func_transforms_treat_dict_and_list_subclasses_as_leaves():
    class D(dict):
        pass

    class L(list):
        pass

    x = mt.ones(2, 3)
    with pytest.raises(ValueError, match=r"^Thing passed to transform API must be Tensor, got "):
        mt.func.grad(lambda d: d["a"].sum())(D(a=x))
    with pytest.raises(ValueError, match=r"must only return Tensors, got type <class .*L'>"):
        mt.func.vmap(lambda a: L([a]))(x)
