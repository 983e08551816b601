"""Helpers layer code imports from torch.nn.modules.utils: argument tuples (_pair, ...) and
state-dict prefix removal. Mirrors torch.nn.modules.utils."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    """A function making an n-tuple of a single value (an iterable is returned as a tuple)."""

    def parse(x):
        if isinstance(x, Iterable):
            return tuple(x)
        return (x,) * n

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """Each element of t, last first, repeated n times: (1, 2), 2 -> (2, 2, 1, 1) (the padding
    layout F.pad wants from a conv's per-dim padding)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults) -> list:
    """out_size with each None replaced by the matching trailing entry of defaults."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    tail = defaults[-len(out_size) :]
    return [d if v is None else v for v, d in zip(out_size, tail, strict=True)]


def consume_prefix_in_state_dict_if_present(state_dict, prefix: str) -> None:
    """Strips `prefix` from the keys of state_dict (and of its _metadata) that start with it, in
    place and keeping their order, e.g. the "module." of a DataParallel checkpoint. Mirrors
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if not key:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                new = "" if key == prefix.replace(".", "") else key[len(prefix) :]
                metadata[new] = metadata.pop(key)
