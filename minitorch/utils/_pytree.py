"""Flattening nested containers into leaves and back (tree_flatten, tree_map, TreeSpec, node
registration), for code that imports torch.utils._pytree. Mirrors torch.utils._pytree.

Nodes are exactly: tuple, list, dict, OrderedDict, defaultdict, deque, torch.Size (unflattened
to a tuple, as in torch), namedtuples, the return types of multi-output ops
(torch.return_types.max ...) and types registered with register_pytree_node. Anything else is
a leaf: None, a tuple/list/dict subclass that is none of those, a tensor, a set, a string (as
in torch).

Specs serialize to torch's JSON text (treespec_dumps, protocol 1) and back (treespec_loads).
minitorch.func's transforms flatten by this node registry too, with None an empty node there (as
its transforms need).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import importlib
import json
import warnings
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any, NamedTuple

from minitorch._tensor import Size

__all__ = [
    "TreeSpec", "LeafSpec", "register_pytree_node", "tree_flatten", "tree_flatten_with_path",
    "tree_unflatten", "tree_iter", "tree_leaves", "tree_leaves_with_path", "tree_structure",
    "tree_map", "tree_map_", "tree_map_only", "tree_map_only_", "tree_map_with_path", "tree_all",
    "tree_any", "tree_all_only", "tree_any_only", "tree_is_leaf", "treespec_leaf", "keystr",
    "key_get", "SequenceKey", "MappingKey", "GetAttrKey", "register_dataclass", "arg_tree_leaves",
    "PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
    "FromDumpableContextFn", "PyTreeSpec", "treespec_dumps", "treespec_loads", "treespec_pprint",
    "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "is_structseq",
    "is_structseq_class", "is_structseq_instance", "register_constant", "treespec_tuple",
    "treespec_dict",
]  # fmt: skip

# the type aliases torch's annotations use (user code imports them for its own hints)
PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], tuple[list[PyTree], Context]]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
DumpableContext = Any
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]


# --- key paths ---


class SequenceKey(NamedTuple):
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


class MappingKey(NamedTuple):
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


class GetAttrKey(NamedTuple):
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as source text ("['a'][0].b"). Mirrors torch.utils._pytree.keystr."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The part of obj at key path kp. Mirrors torch.utils._pytree.key_get."""
    for k in kp:
        obj = k.get(obj)
    return obj


# --- the node registry ---


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: Any  # node -> (children, context)
    unflatten_fn: Any  # (children, context) -> node
    flatten_with_keys_fn: Any  # node -> ([(key, child)], context), or None


SUPPORTED_NODES: dict = {}


class _SerializeNodeDef(NamedTuple):
    typ: Any
    serialized_type_name: str
    to_dumpable_context: Any  # context -> JSON-able value, or None: json.dumps of the context
    from_dumpable_context: Any


NO_SERIALIZED_TYPE_NAME_FOUND = "NO_SERIALIZED_TYPE_NAME_FOUND"
SUPPORTED_SERIALIZED_TYPES: dict = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}


def _private_register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
) -> None:
    """Registers (or, with torch's warning, re-registers) a node type and how its specs
    serialize. Mirrors torch.utils._pytree._private_register_pytree_node."""
    if cls in SUPPORTED_NODES:
        warnings.warn(
            f"{cls} is already registered as pytree node. Overwriting the previous registration.",
            UserWarning,
            stacklevel=3,
        )
    # a namedtuple class stays a namedtuple node whatever its functions, as in torch (whose
    # node-type lookup answers `namedtuple` for every namedtuple class)
    node = _NAMEDTUPLE if is_namedtuple_class(cls) else None
    SUPPORTED_NODES[cls] = node or NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if (to_dumpable_context is None) ^ (from_dumpable_context is None):
        raise ValueError(
            f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or "
            "registered."
        )
    name = NO_SERIALIZED_TYPE_NAME_FOUND if serialized_type_name is None else serialized_type_name
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(
        cls, name, to_dumpable_context, from_dumpable_context
    )
    SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
) -> None:
    """Make instances of exactly `cls` tree nodes: flatten_fn(node) -> (children, context),
    unflatten_fn(children, context) -> node; serialized_type_name and the dumpable-context
    functions are what treespec_dumps/loads use. Mirrors
    torch.utils._pytree.register_pytree_node."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _deregister_pytree_node(cls) -> None:
    """Forgets a registered node type. Mirrors torch.utils._pytree._deregister_pytree_node.

    Differences from torch: a second type registered without a serialized name, and a type
    whose registration raised after adding its node, are forgotten too (torch: KeyError)."""
    del SUPPORTED_NODES[cls]
    node = SUPPORTED_SERIALIZED_TYPES.pop(cls, None)  # None: its registration raised
    # the name may be shared (NO_SERIALIZED_TYPE_NAME_FOUND) and now stand for another type
    if node is not None and SERIALIZED_TYPE_TO_PYTHON_TYPE.get(node.serialized_type_name) is cls:
        del SERIALIZED_TYPE_TO_PYTHON_TYPE[node.serialized_type_name]
    CONSTANT_NODES.discard(cls)


@dataclasses.dataclass(frozen=True)
class ConstantNode:
    """The context of a register_constant type's node: the instance itself."""

    value: Any


CONSTANT_NODES: set = set()


def register_constant(cls) -> None:
    """Make instances of `cls` (with its own __eq__ and __hash__) nodes with no children, whose
    spec holds the instance. Mirrors torch.utils._pytree.register_constant."""
    if cls.__eq__ is object.__eq__:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__eq__` implementation."
        )
    if cls.__hash__ is None:
        raise TypeError(
            "register_constant(cls) expects `cls` to have a non-default `__hash__` implementation."
        )
    _private_register_pytree_node(
        cls,
        lambda x: ([], ConstantNode(x)),
        lambda _, context: context.value,
        flatten_with_keys_fn=lambda x: ([], ConstantNode(x)),
    )
    CONSTANT_NODES.add(cls)


def register_dataclass(
    cls,
    *,
    field_names: list[str] | None = None,
    drop_field_names: list[str] | None = None,
    serialized_type_name: str | None = None,
) -> None:
    """Make instances of exactly `cls` (a dataclass, or a class built from keyword arguments
    named field_names) tree nodes whose children are the fields' values. A field holding None
    is no child: the spec keeps its name, so the node unflattens with None there. Mirrors
    torch.utils._pytree.register_dataclass (registering again replaces the node, with torch's
    warning)."""
    if field_names is None:
        if not dataclasses.is_dataclass(cls):
            raise ValueError(
                "field_names must be specified with a list of all fields used to initialize "
                f"{cls}, as it is not a dataclass."
            )
        field_names = [f.name for f in dataclasses.fields(cls) if f.init]
    elif dataclasses.is_dataclass(cls):
        _check_dataclass_fields(cls, field_names, drop_field_names or [])
    names = list(field_names)

    def flatten(node):
        # context: [names of the children, names of the fields that hold None]
        present = [n for n in names if getattr(node, n) is not None]
        absent = [n for n in names if getattr(node, n) is None]
        return [getattr(node, n) for n in present], [present, absent]

    def unflatten(values, context):
        present, absent = context
        return cls(**dict(zip(present, values, strict=True)), **dict.fromkeys(absent))

    def flatten_with_keys(node):
        children, context = flatten(node)
        keys = [GetAttrKey(n) for n in context[0]]
        return list(zip(keys, children, strict=True)), context

    _private_register_pytree_node(
        cls,
        flatten,
        unflatten,
        serialized_type_name=serialized_type_name,
        flatten_with_keys_fn=flatten_with_keys,
    )


def _check_dataclass_fields(cls, field_names, drop_field_names) -> None:
    init_fields = {f.name for f in dataclasses.fields(cls) if f.init}
    missing = init_fields - set(field_names) - set(drop_field_names)
    if missing:
        raise ValueError(
            "field_names does not include all dataclass fields.\n"
            f"Missing fields in `field_names`: {missing}. If you want to include these fields "
            "in the pytree, please add them to `field_names`, otherwise please add them to "
            "`drop_field_names`.\n"
        )
    unexpected = set(field_names) - init_fields
    if unexpected:
        raise ValueError(
            "field_names does not include all dataclass fields.\n"
            f"Unexpected fields in `field_names`: {unexpected}. Please remove these fields, or "
            "add them to `drop_field_names`.\n"
        )


def _register_pytree_node(
    cls,
    flatten_fn,
    unflatten_fn,
    to_str_fn=None,
    maybe_from_str_fn=None,
    *,
    serialized_type_name=None,
    to_dumpable_context=None,
    from_dumpable_context=None,
    flatten_with_keys_fn=None,
) -> None:
    """The deprecated spelling (older Hugging Face transformers calls it); warns as torch does,
    and registering a type again replaces its node with a warning instead of raising."""
    warnings.warn(
        "`torch.utils._pytree._register_pytree_node` is deprecated. Please use "
        "`torch.utils._pytree.register_pytree_node` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if to_str_fn is not None or maybe_from_str_fn is not None:
        warnings.warn(
            "`to_str_fn` and `maybe_from_str_fn` is deprecated. "
            "Please use `to_dumpable_context` and `from_dumpable_context` instead.",
            FutureWarning,
            stacklevel=2,
        )
    _private_register_pytree_node(
        cls,
        flatten_fn,
        unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=to_dumpable_context,
        from_dumpable_context=from_dumpable_context,
        flatten_with_keys_fn=flatten_with_keys_fn,
    )


def _seq_keys(node, context):
    return [(SequenceKey(i), v) for i, v in enumerate(node)], context


def _dict_keys(node, context):
    return [(MappingKey(k), v) for k, v in node.items()], context


def _builtin(cls, flatten, unflatten, keys, name=None, to_dumpable=None, from_dumpable=None):
    """Registers a built-in node kind; its specs serialize under `name` (torch's: the type's
    module and name), the context through to_dumpable/from_dumpable or as JSON text."""
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten, unflatten, keys)
    name = name or f"{cls.__module__}.{cls.__qualname__}"
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, name, to_dumpable, from_dumpable)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[name] = cls


def _defaultdict_serialize(context):
    default_factory, keys = context
    return {
        "default_factory_module": default_factory.__module__,
        "default_factory_name": default_factory.__qualname__,
        "dict_context": keys,
    }


def _defaultdict_deserialize(dumpable):
    expected = {"default_factory_module", "default_factory_name", "dict_context"}
    if not isinstance(dumpable, dict):
        raise AssertionError("dumpable_context must be a dict")
    if set(dumpable) != expected:
        raise AssertionError(f"dumpable_context keys must be {expected}, got {set(dumpable)}")
    module = importlib.import_module(dumpable["default_factory_module"])
    return [getattr(module, dumpable["default_factory_name"]), dumpable["dict_context"]]


def _namedtuple_serialize(context):
    node = SUPPORTED_SERIALIZED_TYPES.get(context)
    if node is None:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we didn't register "
            "a serializated_type_name. Please register using `_register_namedtuple`."
        )
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"Can't serialize TreeSpec of namedtuple class {context} because we couldn't find a "
            "serializated_type_name. Please register using `_register_namedtuple`."
        )
    return node.serialized_type_name


def _namedtuple_deserialize(dumpable):
    if dumpable not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(
            f"Can't deserialize TreeSpec of namedtuple class {dumpable} because we couldn't "
            "find a serializated name."
        )
    return SERIALIZED_TYPE_TO_PYTHON_TYPE[dumpable]


_builtin(tuple, lambda t: (list(t), None), lambda v, c: tuple(v), lambda t: _seq_keys(t, None))
_builtin(list, lambda t: (list(t), None), lambda v, c: list(v), lambda t: _seq_keys(t, None))
_builtin(
    dict, lambda d: (list(d.values()), list(d)), lambda v, c: dict(zip(c, v, strict=True)),
    lambda d: _dict_keys(d, list(d)),
)  # fmt: skip
_builtin(
    collections.OrderedDict, lambda d: (list(d.values()), list(d)),
    lambda v, c: collections.OrderedDict(zip(c, v, strict=True)),
    lambda d: _dict_keys(d, list(d)),
)  # fmt: skip
# a defaultdict's context is [default_factory, keys]; a deque's is its maxlen (torch's spelling)
_builtin(
    collections.defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d)]),
    lambda v, c: collections.defaultdict(c[0], zip(c[1], v, strict=True)),
    lambda d: _dict_keys(d, [d.default_factory, list(d)]), None,
    _defaultdict_serialize, _defaultdict_deserialize,
)  # fmt: skip
_builtin(
    collections.deque, lambda q: (list(q), q.maxlen),
    lambda v, c: collections.deque(v, maxlen=c), lambda q: _seq_keys(q, q.maxlen),
)  # fmt: skip

# namedtuples: one node kind whose context is the class (torch names the kind by the
# collections.namedtuple function itself, and so does a spec's .type)
_NAMEDTUPLE = NodeDef(
    collections.namedtuple,
    lambda t: (list(t), type(t)),
    lambda v, c: c(*v),
    lambda t: ([(GetAttrKey(f), getattr(t, f)) for f in t._fields], type(t)),
)
SUPPORTED_SERIALIZED_TYPES[collections.namedtuple] = _SerializeNodeDef(
    collections.namedtuple, "collections.namedtuple", _namedtuple_serialize,
    _namedtuple_deserialize,
)  # fmt: skip
SERIALIZED_TYPE_TO_PYTHON_TYPE["collections.namedtuple"] = collections.namedtuple
_DICT_TYPES = (dict, collections.OrderedDict, collections.defaultdict)
# the node kinds whose flatten_up_to is lenient (dicts match dicts by key; a deque's maxlen is
# not compared); any other kind must match exactly
_BUILTIN_TYPES = (tuple, list, collections.deque, collections.namedtuple, *_DICT_TYPES)

# torch.Size is a node whose ints are the leaves (so tree_map over a shape maps its sizes); as in
# torch, it unflattens to a plain tuple (a mapped "size" need not be an int)
_builtin(
    Size, lambda t: (list(t), None), lambda v, c: tuple(v), lambda t: _seq_keys(t, None),
    "torch.Size",
)  # fmt: skip


def _register_namedtuple(cls, *, serialized_type_name: str) -> None:
    """Gives the namedtuple class `cls` a name its specs serialize under. Mirrors
    torch.utils._pytree._register_namedtuple."""
    _private_register_pytree_node(
        cls,
        _NAMEDTUPLE.flatten_fn,
        _NAMEDTUPLE.unflatten_fn,
        serialized_type_name=serialized_type_name,
        to_dumpable_context=_namedtuple_serialize,
        from_dumpable_context=_namedtuple_deserialize,
    )


def is_namedtuple_class(cls) -> bool:
    """Whether cls is a namedtuple class. Mirrors torch.utils._pytree.is_namedtuple_class."""
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(type(field) is str for field in cls._fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple_instance(obj) -> bool:
    """Whether obj is a namedtuple. Mirrors torch.utils._pytree.is_namedtuple_instance."""
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    """Whether obj is a namedtuple or a namedtuple class. Mirrors
    torch.utils._pytree.is_namedtuple."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """Whether cls is a struct sequence: a C PyStructSequence (os.stat_result) or a return type
    of a multi-output op (minitorch.return_types.max ...). Mirrors
    torch.utils._pytree.is_structseq_class."""
    if not isinstance(cls, type):
        return False
    from minitorch.return_types import _StructSeq

    if issubclass(cls, _StructSeq):
        return cls is not _StructSeq
    return (
        cls.__bases__ == (tuple,)
        and isinstance(getattr(cls, "n_fields", None), int)
        and isinstance(getattr(cls, "n_sequence_fields", None), int)
        and isinstance(getattr(cls, "n_unnamed_fields", None), int)
        and not cls.__flags__ & (1 << 10)  # Py_TPFLAGS_BASETYPE: a C type that refuses subclasses
    )


def is_structseq_instance(obj) -> bool:
    """Whether obj is a struct sequence. Mirrors torch.utils._pytree.is_structseq_instance."""
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    """Whether obj is a struct sequence or its class. Mirrors torch.utils._pytree.is_structseq."""
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _structseq_node(cls) -> NodeDef:
    return NodeDef(
        cls, lambda t: (list(t), None), lambda v, c: cls(v), lambda t: _seq_keys(t, None)
    )


def _node_def(x):
    """The NodeDef x is flattened with, or None for a leaf (dispatch on the exact type)."""
    cls = type(x)
    node = SUPPORTED_NODES.get(cls)
    if node is not None:
        return node
    if issubclass(cls, tuple):
        if hasattr(cls, "_fields") and hasattr(cls, "_make"):
            return _NAMEDTUPLE
        from minitorch.return_types import _StructSeq

        if issubclass(cls, _StructSeq):
            return _structseq_node(cls)
    return None


def _is_leaf(x, is_leaf=None) -> bool:
    return (is_leaf is not None and is_leaf(x)) or _node_def(x) is None


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether tree is a leaf (not a node, or is_leaf(tree)). Mirrors
    torch.utils._pytree.tree_is_leaf."""
    return _is_leaf(tree, is_leaf)


# --- specs ---


class TreeSpec:
    """The structure of a tree without its leaves: a node's type, context and children's specs
    (a leaf: type None, no children). Mirrors torch.utils._pytree.TreeSpec."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context
        self._children = list(children_specs)
        self.num_children = len(self._children)
        if type is None and not self._children:  # a leaf
            self.num_leaves, self.num_nodes = 1, 1
        else:
            self.num_leaves = sum(c.num_leaves for c in self._children)
            self.num_nodes = 1 + sum(c.num_nodes for c in self._children)

    @property
    def _context(self):  # torch's field name, read by code that reaches into specs
        return self.context

    @property
    def children_specs(self) -> list:
        warnings.warn(
            "`treespec.children_specs` is deprecated. Use `treespec.child(index)` to access a "
            "single child, or `treespec.children()` to get all children.",
            FutureWarning,
            stacklevel=2,
        )
        return self._children

    def is_leaf(self) -> bool:
        return self.type is None and not self._children

    def children(self) -> list:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def _node(self) -> NodeDef:
        if self.type is collections.namedtuple:
            return _NAMEDTUPLE
        return SUPPORTED_NODES.get(self.type) or _structseq_node(self.type)

    def unflatten(self, leaves) -> Any:
        """The tree of this structure holding `leaves` in order."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self})."
            )
        return self._build(iter(leaves))

    def _build(self, it):
        if self.is_leaf():
            return next(it)
        values = [c._build(it) for c in self._children]
        return self._node().unflatten_fn(values, self.context)

    def flatten_up_to(self, tree) -> list:
        """tree's subtrees at this spec's leaves (tree has this structure down to them); torch's
        ValueError naming the first mismatch otherwise."""
        out: list = []
        self._up_to(tree, out)
        return out

    def _up_to(self, tree, out: list) -> None:
        if self.is_leaf():
            out.append(tree)
            return
        node = _node_def(tree)
        kind = type(tree) if node is None else node.type
        if self.type not in _BUILTIN_TYPES:
            # a registered (or Size / return-type) node: the exact type and context
            if kind is not self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {kind!r}.")
            children, context = node.flatten_fn(tree)
            self._check_arity(len(children))
            if context != self.context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            dicts = self.type in _DICT_TYPES and kind in _DICT_TYPES
            if not dicts and kind is not self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {kind!r}.")
            self._check_arity(len(tree))
            if dicts:  # any two dict kinds match by key, in this spec's order
                keys = self.context[1] if self.type is collections.defaultdict else self.context
                if set(keys) != set(tree):
                    missing = set(keys) - set(tree)
                    extra = set(tree) - set(keys)
                    why = (f"; missing key(s): {missing}" if missing else "") + (
                        f"; extra key(s): {extra}" if extra else ""
                    )
                    raise ValueError(f"Node keys mismatch{why}.")
                children = [tree[k] for k in keys]
            else:
                children, context = node.flatten_fn(tree)
                if context != self.context and self.type is not collections.deque:
                    raise ValueError(
                        f"Node context mismatch for node type {self.type!r}; expected "
                        f"{self.context!r}, but got {context!r}."
                    )
        for spec, child in zip(self._children, children, strict=True):
            spec._up_to(child, out)

    def _check_arity(self, n: int) -> None:
        if n != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {n}.")

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (
            self.type == other.type
            and self.context == other.context
            and self._children == other._children
        )

    def __hash__(self):
        return hash((self.type, self.num_nodes, self.num_leaves))

    def __repr__(self, indent: int = 0) -> str:
        if self.is_leaf():
            return "*"
        name = "namedtuple" if self.type is collections.namedtuple else self.type.__name__
        parts = []
        inner = indent + 2
        for i, c in enumerate(self._children):
            text = c.__repr__(inner)
            parts.append(text if i == 0 else "\n" + " " * inner + text)
        return f"TreeSpec({name}, {self.context}, [{','.join(parts)}])"


class LeafSpec(TreeSpec):
    """The spec of a leaf (kept for old code; torch prefers treespec_leaf() and warns, as here,
    when one is made)."""

    def __init__(self):
        warnings.warn(
            "`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, TreeSpec) "
            "and treespec.is_leaf()` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(None, None, [])


with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    _LEAF_SPEC = LeafSpec()


def treespec_leaf() -> TreeSpec:
    """The spec of a single leaf. Mirrors torch.utils._pytree.treespec_leaf."""
    return _LEAF_SPEC


PyTreeSpec = TreeSpec


def treespec_tuple(iterable=(), /) -> TreeSpec:
    """The spec of a tuple of subtrees of the given specs. Mirrors
    torch.utils._pytree.treespec_tuple."""
    children = list(iterable)
    if any(not isinstance(child, TreeSpec) for child in children):
        raise ValueError(f"Expected a tuple of TreeSpec values, got: {children!r}.")
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), /, **kwargs) -> TreeSpec:
    """The spec of a dict of subtrees of the given specs. Mirrors
    torch.utils._pytree.treespec_dict."""
    dct = dict(mapping, **kwargs)
    if any(not isinstance(child, TreeSpec) for child in dct.values()):
        raise ValueError(f"Expected a dictionary of TreeSpec values, got: {dct!r}.")
    return TreeSpec(dict, list(dct), list(dct.values()))


# --- flatten, unflatten, iterate ---


def _flatten(tree, leaves: list, is_leaf) -> TreeSpec:
    if is_leaf is not None and is_leaf(tree):
        leaves.append(tree)
        return _LEAF_SPEC
    node = _node_def(tree)
    if node is None:
        leaves.append(tree)
        return _LEAF_SPEC
    children, context = node.flatten_fn(tree)
    return TreeSpec(node.type, context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_flatten(tree, is_leaf=None) -> tuple[list, TreeSpec]:
    """(leaves in order, spec). Mirrors torch.utils._pytree.tree_flatten."""
    leaves: list = []
    return leaves, _flatten(tree, leaves, is_leaf)


def tree_unflatten(leaves, treespec: TreeSpec) -> Any:
    """The tree of `treespec` holding `leaves`. Mirrors torch.utils._pytree.tree_unflatten."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            "Expected `treespec` to be an instance of PyTreeSpec but got item of type "
            f"{type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """A generator of the leaves, depth first. Mirrors torch.utils._pytree.tree_iter."""
    if _is_leaf(tree, is_leaf):
        yield tree
        return
    for child in _node_def(tree).flatten_fn(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    """The leaves of a tree, in order. Mirrors torch.utils._pytree.tree_leaves."""
    return list(tree_iter(tree, is_leaf))


def arg_tree_leaves(*args, **kwargs) -> list:
    """The leaves of a call's arguments: tree_leaves((args, kwargs)). Mirrors
    torch.utils._pytree.arg_tree_leaves."""
    return tree_leaves((args, kwargs))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    """The spec of a tree. Mirrors torch.utils._pytree.tree_structure."""
    return tree_flatten(tree, is_leaf)[1]


def _paths(tree, prefix: tuple, out: list, is_leaf) -> TreeSpec:
    if _is_leaf(tree, is_leaf):
        out.append((prefix, tree))
        return _LEAF_SPEC
    node = _node_def(tree)
    if node.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node.type}. Please pass a "
            "flatten_with_keys_fn argument to register_pytree_node."
        )
    pairs, context = node.flatten_with_keys_fn(tree)
    kids = [_paths(child, (*prefix, key), out, is_leaf) for key, child in pairs]
    return TreeSpec(node.type, context, kids)


def tree_flatten_with_path(tree, is_leaf=None) -> tuple[list, TreeSpec]:
    """([(key path, leaf)], spec). Mirrors torch.utils._pytree.tree_flatten_with_path."""
    out: list = []
    return out, _paths(tree, (), out, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    """[(key path, leaf)]. Mirrors torch.utils._pytree.tree_leaves_with_path."""
    return tree_flatten_with_path(tree, is_leaf)[0]


# --- maps and predicates ---


def _leaf_rows(tree, rests, is_leaf):
    """(spec, [leaves of tree, then of each rest at the same places]): each rest must have
    tree's structure down to tree's leaves (a rest's subtree there is passed whole)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    return spec, [leaves] + [spec.flatten_up_to(r) for r in rests]


def tree_map(func, tree, *rests, is_leaf=None) -> Any:
    """func applied to each leaf (with the matching parts of `rests`), in a tree of tree's
    structure. Mirrors torch.utils._pytree.tree_map."""
    spec, rows = _leaf_rows(tree, rests, is_leaf)
    return spec.unflatten(map(func, *rows))


def tree_map_(func, tree, *rests, is_leaf=None) -> Any:
    """func called on each leaf for its effect; returns tree. Mirrors
    torch.utils._pytree.tree_map_."""
    _, rows = _leaf_rows(tree, rests, is_leaf)
    for args in zip(*rows, strict=True):
        func(*args)
    return tree


def _only(type_or_types_or_pred):
    """A predicate from a type, a tuple (or union) of types, or a predicate itself."""
    if isinstance(type_or_types_or_pred, type | tuple) or hasattr(
        type_or_types_or_pred, "__args__"
    ):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def map_only(type_or_types_or_pred):
    """A decorator: func applied to the values `type_or_types_or_pred` selects, the rest passed
    through. Mirrors torch.utils._pytree.map_only."""
    pred = _only(type_or_types_or_pred)

    def wrap(func):
        return lambda x: func(x) if pred(x) else x

    return wrap


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None) -> Any:
    """tree_map of func over the leaves of the given type(s) (or passing a predicate); the other
    leaves are kept. Mirrors torch.utils._pytree.tree_map_only."""
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None) -> Any:
    """tree_map_ over the selected leaves. Mirrors torch.utils._pytree.tree_map_only_."""
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_with_path(func, tree, *rests, is_leaf=None) -> Any:
    """func(key path, leaf, *matching parts of rests). Mirrors
    torch.utils._pytree.tree_map_with_path."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    rows = [spec.flatten_up_to(r) for r in rests]
    paths = [kp for kp, _ in pairs]
    leaves = [leaf for _, leaf in pairs]
    return spec.unflatten(map(func, paths, leaves, *rows))


def tree_all(pred, tree, is_leaf=None) -> bool:
    """Whether pred holds for every leaf. Mirrors torch.utils._pytree.tree_all."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    """Whether pred holds for some leaf. Mirrors torch.utils._pytree.tree_any."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    """tree_all over the leaves of the given type(s). Mirrors torch.utils._pytree.tree_all_only."""
    keep = _only(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if keep(x))


def tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    """tree_any over the leaves of the given type(s). Mirrors torch.utils._pytree.tree_any_only."""
    keep = _only(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if keep(x))


def _broadcast_to_and_flatten(tree, treespec: TreeSpec, is_leaf=None) -> list | None:
    """The leaves of `tree` (a prefix of treespec's structure) repeated over the leaves of the
    subtrees they stand for; None when tree is no prefix. Mirrors
    torch.utils._pytree._broadcast_to_and_flatten (vmap's in_dims)."""
    full_tree = treespec.unflatten([0] * treespec.num_leaves)
    result: list = []

    def add_leaves(x, subtree):
        result.extend([x] * tree_structure(subtree, is_leaf).num_leaves)

    try:
        tree_map_(add_leaves, tree, full_tree, is_leaf=is_leaf)
    except ValueError:
        return None
    return result


class _Asterisk(str):
    __slots__ = ()

    def __new__(cls):
        return super().__new__(cls, "*")

    def __repr__(self):
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The spec drawn as its tree with * at the leaves ("{'a': [*, *]}"). Mirrors
    torch.utils._pytree.treespec_pprint."""
    return repr(tree_unflatten([_Asterisk()] * treespec.num_leaves, treespec))


# --- serialization of specs (torch's JSON schema, protocol 1) ---


class _EnumEncoder(json.JSONEncoder):
    """Contexts holding Enum members dump them by qualified name, as torch's EnumEncoder."""

    def default(self, obj):
        if isinstance(obj, Enum):
            cls = type(obj)
            return {
                "__enum__": True,
                "fqn": f"{cls.__module__}:{cls.__qualname__}",
                "name": obj.name,
            }
        return super().default(obj)


def _enum_object_hook(obj: dict):
    if "__enum__" not in obj:
        return obj
    module, _, qualname = obj["fqn"].partition(":")
    cls = importlib.import_module(module)
    for attr in qualname.split("."):
        cls = getattr(cls, attr)
    return cls[obj["name"]]


def _treespec_to_json(spec: TreeSpec) -> dict:
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    node = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if node is None and is_structseq_class(spec.type):  # registered without a name, as in torch
        node = _SerializeNodeDef(spec.type, NO_SERIALIZED_TYPE_NAME_FOUND, None, None)
    if node is None:
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if node.serialized_type_name == NO_SERIALIZED_TYPE_NAME_FOUND:
        raise NotImplementedError(
            f"No registered serialization name for {spec.type} found. Please update your "
            "_register_pytree_node call with a `serialized_type_name` kwarg."
        )
    if node.to_dumpable_context is None:
        try:
            context = json.dumps(spec.context, cls=_EnumEncoder)
        except TypeError as e:
            raise TypeError(
                "Unable to serialize context. Please make the context json dump-able, or "
                "register a custom serializer using _register_pytree_node."
            ) from e
    else:
        context = node.to_dumpable_context(spec.context)
    children = [_treespec_to_json(child) for child in spec._children]
    return {"type": node.serialized_type_name, "context": context, "children_spec": children}


def _json_to_treespec(schema: dict) -> TreeSpec:
    if schema["type"] is None and schema["context"] is None and not schema["children_spec"]:
        return _LEAF_SPEC
    if schema["type"] not in SERIALIZED_TYPE_TO_PYTHON_TYPE:
        raise NotImplementedError(f"Deserializing {schema['type']} in pytree is not registered.")
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE[schema["type"]]
    node = SUPPORTED_SERIALIZED_TYPES[typ]
    if node.from_dumpable_context is None:
        try:
            context = json.loads(schema["context"], object_hook=_enum_object_hook)
        except TypeError as e:
            raise TypeError(
                "Unable to deserialize context. Please make the context json load-able, or "
                "register a custom serializer using _register_pytree_node."
            ) from e
    else:
        context = node.from_dumpable_context(schema["context"])
    return TreeSpec(typ, context, [_json_to_treespec(c) for c in schema["children_spec"]])


DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1
_SUPPORTED_PROTOCOLS = {1: (_treespec_to_json, _json_to_treespec)}


def _check_protocol(protocol) -> None:
    if protocol not in _SUPPORTED_PROTOCOLS:
        raise ValueError(
            f"Unknown protocol {protocol}. Available protocols: {list(_SUPPORTED_PROTOCOLS)}"
        )


def treespec_dumps(treespec: TreeSpec, protocol: int | None = None) -> str:
    """The spec as JSON text ([protocol, schema]), loadable by treespec_loads; the node types
    must have serialized names. Mirrors torch.utils._pytree.treespec_dumps."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            "Expected `treespec` to be an instance of PyTreeSpec but got item of type "
            f"{type(treespec)}."
        )
    if protocol is None:
        protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL
    _check_protocol(protocol)
    schema = _SUPPORTED_PROTOCOLS[protocol][0](treespec)
    return json.dumps((protocol, schema), cls=_EnumEncoder)


@functools.lru_cache
def treespec_loads(serialized: str) -> TreeSpec:
    """The spec treespec_dumps wrote as `serialized` (cached, as torch's). Mirrors
    torch.utils._pytree.treespec_loads."""
    protocol, schema = json.loads(serialized)
    _check_protocol(protocol)
    return _SUPPORTED_PROTOCOLS[protocol][1](schema)
