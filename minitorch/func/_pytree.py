"""A small pytree for the function transforms: flatten and unflatten over the nodes of
minitorch.utils._pytree (tuples, lists, dicts, namedtuples, return types and registered types,
dispatched on the exact type as torch's), with None an empty container."""

from __future__ import annotations

import collections
from typing import Any

from minitorch.utils import _pytree as _nodes

# A spec is None for a leaf, or (container type, context, child specs): the context is the keys of
# a dict or OrderedDict, the registered node's context for other registered types (defaultdict,
# deque, user classes), and None otherwise. None values are empty containers (no leaves), as in
# torch's pytree.
_LEAF = None
_DICTS = (dict, collections.OrderedDict)


def _children(x):
    """(type, context, children) for a container, or None for a leaf."""
    if x is None:
        return type(None), None, ()
    cls = type(x)
    if cls is tuple or cls is list:
        return cls, None, tuple(x)
    if cls in _DICTS:
        return cls, tuple(x.keys()), tuple(x.values())
    node = _nodes._node_def(x)
    if node is None:  # a leaf; a subclass of list or dict too, as in torch
        return None
    if node.type is collections.namedtuple or _nodes.is_structseq_class(cls):
        return cls, None, tuple(x)
    children, context = node.flatten_fn(x)
    return cls, context, tuple(children)


def tree_flatten(tree, none_is_leaf: bool = False) -> tuple[list, Any]:
    """(leaves in order, spec); with none_is_leaf, a None is a leaf (as vmap's outputs count
    it), not an empty container."""
    leaves: list = []
    spec = _flatten_into(tree, leaves, none_is_leaf)
    return leaves, spec


def _flatten_into(tree, leaves: list, none_is_leaf: bool = False):
    node = None if none_is_leaf and tree is None else _children(tree)
    if node is None:
        leaves.append(tree)
        return _LEAF
    kind, context, kids = node
    return (kind, context, tuple(_flatten_into(k, leaves, none_is_leaf) for k in kids))


def tree_unflatten(leaves, spec):
    """The tree of `spec` with `leaves` in order."""
    it = iter(leaves)
    out = _build(spec, it)
    return out


def _build(spec, it):
    if spec is _LEAF:
        return next(it)
    kind, context, kids = spec
    values = [_build(k, it) for k in kids]
    if kind is type(None):
        return None
    if kind is list:
        return values
    if kind is tuple:
        return tuple(values)
    if kind in _DICTS:
        return kind(zip(context, values, strict=True))
    node = _nodes.SUPPORTED_NODES.get(kind)
    if node is not None and node.type is not collections.namedtuple:
        return node.unflatten_fn(values, context)
    # a namedtuple, or a return type (torch.return_types.max)
    return kind._make(values) if hasattr(kind, "_make") else kind(values)


def num_leaves(spec) -> int:
    if spec is _LEAF:
        return 1
    return sum(num_leaves(k) for k in spec[2])


def tree_map(fn, tree, none_is_leaf: bool = False):
    leaves, spec = tree_flatten(tree, none_is_leaf)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, spec):
    """The leaves of `prefix` (a tree whose leaves are ints or None) broadcast over the tree of
    `spec`: a leaf of `prefix` covers a whole subtree. None when the structures do not match.

    torch's rules (torch.utils._pytree._broadcast_to_and_flatten, which vmap's in_dims and
    out_dims go through): any two standard dicts (dict, OrderedDict, defaultdict) match when
    their keys do, in any order, and the leaves come in the prefix's key order; vmap pairs them
    with the inputs' leaves in the inputs' order, as torch's does."""
    full = _nodes.tree_structure(tree_unflatten([0] * num_leaves(spec), spec))
    return _nodes._broadcast_to_and_flatten(prefix, full)


def spec_str(spec) -> str:
    """A readable form of a spec for error messages."""
    if spec is _LEAF:
        return "*"
    kind, context, kids = spec
    inner = [spec_str(k) for k in kids]
    if kind is type(None):
        return "None"
    if kind in _DICTS:
        inner = [f"{k!r}: {v}" for k, v in zip(context, inner, strict=True)]
        return "{" + ", ".join(inner) + "}"
    if kind is list:
        return "[" + ", ".join(inner) + "]"
    if kind is tuple and len(inner) == 1:
        return "(" + inner[0] + ",)"
    name = "" if kind is tuple else kind.__name__
    return name + "(" + ", ".join(inner) + ")"


def spec_repr(spec, indent: int = 0) -> str:
    """A spec written as torch's TreeSpec repr (what torch.func's structure errors print):
    `TreeSpec(tuple, None, [*,` with each further child on its own line, indented by depth."""
    if spec is _LEAF:
        return "*"
    kind, context, kids = spec
    if issubclass(kind, tuple) and kind is not tuple and hasattr(kind, "_fields"):
        name, context = "namedtuple", kind
    else:
        name = kind.__name__
        if kind in _DICTS:  # a dict's keys print as a list
            context = list(context)
    inner = indent + 2
    parts = [
        spec_repr(k, inner) if i == 0 else "\n" + " " * inner + spec_repr(k, inner)
        for i, k in enumerate(kids)
    ]
    return f"TreeSpec({name}, {context}, [{','.join(parts)}])"
