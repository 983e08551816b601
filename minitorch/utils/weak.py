"""Dictionaries keyed weakly by object identity, for caches keyed by tensors (a tensor's == is
elementwise, so a WeakKeyDictionary cannot key on it). Mirrors torch.utils.weak.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, MutableMapping

__all__ = ["WeakIdRef", "WeakIdKeyDictionary", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed and compared by its referent's identity (two live references to
    one object are equal; a dead one equals only itself). Mirrors torch.utils.weak.WeakIdRef."""

    __slots__ = ("_id",)

    def __init__(self, key, callback=None):
        super().__init__(key, callback)
        self._id = id(key)  # kept: the hash must survive the referent

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if not isinstance(other, WeakIdRef):
            return NotImplemented
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A mapping from objects, by identity, to values; an entry goes when its key is garbage
    collected. Mirrors torch.utils.weak.WeakIdKeyDictionary."""

    def __init__(self, dict=None, ref_type=WeakIdRef):
        self.data = {}
        self.ref_type = ref_type
        selfref = weakref.ref(self)

        def remove(ref):
            owner = selfref()
            if owner is not None:
                owner.data.pop(ref, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value):
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key):
        del self.data[self.ref_type(key)]

    def __contains__(self, key):
        try:
            ref = self.ref_type(key)
        except TypeError:  # an object that cannot be weakly referenced is never a key
            return False
        return ref in self.data

    def __iter__(self):
        # over a snapshot: a key collected meanwhile removes its entry from self.data
        for ref in list(self.data):
            obj = ref()
            if obj is not None:
                yield obj

    def __len__(self):
        return sum(1 for ref in list(self.data) if ref() is not None)

    def get(self, key, default=None):
        return self.data.get(self.ref_type(key), default)

    def copy(self):
        return type(self)({k: v for k, v in self.items()}, self.ref_type)

    __copy__ = copy

    def keyrefs(self) -> list:
        """The weak references to the keys (a dead one's referent is None)."""
        return list(self.data)

    def __ior__(self, other):
        self.update(other)
        return self

    def __or__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        out = type(self)()
        out.update(other)
        out.update(self)
        return out

    def __eq__(self, other):
        # keys compare by identity, as they are stored (a tensor's == is elementwise)
        if not isinstance(other, Mapping):
            return NotImplemented
        return {id(k): v for k, v in self.items()} == {id(k): v for k, v in other.items()}

    __hash__ = None  # mutable, like dict

    def __repr__(self):
        return f"<{type(self).__name__} at {id(self):#x}>"


# torch's name for the dictionary keyed by tensors
WeakTensorKeyDictionary = WeakIdKeyDictionary
