"""Flattening nested containers (tuples, lists, dicts, namedtuples) into leaves and back, for code
that imports torch.utils._pytree. Mirrors the common part of torch.utils._pytree.

Differences from torch: a spec is minitorch's own nested tuple (not a TreeSpec object with
torch's repr), and custom node types cannot be registered.
"""

from __future__ import annotations

from minitorch.func._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"]


def tree_leaves(tree) -> list:
    """The leaves of a tree, in order. Mirrors torch.utils._pytree.tree_leaves."""
    return tree_flatten(tree)[0]


def tree_structure(tree):
    """The spec of a tree (its shape without the leaves). Mirrors
    torch.utils._pytree.tree_structure."""
    return tree_flatten(tree)[1]
