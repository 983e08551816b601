"""A small pytree (nested tuples, lists, dicts, namedtuples) flatten and unflatten."""

from __future__ import annotations

from typing import Any

# A spec is None for a leaf, or (container type, context, child specs): the context is the keys of
# a dict and None otherwise. None values are empty containers (no leaves), as in torch's pytree.
_LEAF = None


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(x):
    """(type, context, children) for a container, or None for a leaf."""
    if x is None:
        return type(None), None, ()
    if isinstance(x, (tuple, list)):
        return type(x), None, tuple(x)
    if isinstance(x, dict):
        return type(x), tuple(x.keys()), tuple(x.values())
    return None


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
    if issubclass(kind, tuple):  # a namedtuple, or a return type (torch.return_types.max)
        return kind._make(values) if hasattr(kind, "_make") else kind(values)
    if issubclass(kind, dict):
        if kind is dict:
            return dict(zip(context, values, strict=True))
        return kind(zip(context, values, strict=True))
    return kind(values)


def num_leaves(spec) -> int:
    if spec is _LEAF:
        return 1
    return sum(num_leaves(k) for k in spec[2])


def tree_map(fn, tree, none_is_leaf: bool = False):
    leaves, spec = tree_flatten(tree, none_is_leaf)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, spec):
    """The leaves of `prefix` (a tree whose leaves are ints or None) broadcast over the tree of
    `spec`: a leaf of `prefix` covers a whole subtree. None when the structures do not match."""
    out: list = []
    return out if _broadcast_into(prefix, spec, out) else None


def _broadcast_into(prefix, spec, out: list) -> bool:
    node = None if prefix is None else _children(prefix)
    if node is None:  # a leaf of the prefix (None included) covers the whole subtree
        out.extend([prefix] * num_leaves(spec))
        return True
    if spec is _LEAF:
        return False
    kind, context, kids = node
    skind, scontext, skids = spec
    if kind is not skind or context != scontext or len(kids) != len(skids):
        return False
    return all(_broadcast_into(p, s, out) for p, s in zip(kids, skids, strict=True))


def spec_str(spec) -> str:
    """A readable form of a spec for error messages."""
    if spec is _LEAF:
        return "*"
    kind, context, kids = spec
    inner = [spec_str(k) for k in kids]
    if kind is type(None):
        return "None"
    if context is not None:
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
        if context is not None:  # a dict's keys print as a list
            context = list(context)
    inner = indent + 2
    parts = [
        spec_repr(k, inner) if i == 0 else "\n" + " " * inner + spec_repr(k, inner)
        for i, k in enumerate(kids)
    ]
    return f"TreeSpec({name}, {context}, [{','.join(parts)}])"
