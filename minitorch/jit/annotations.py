"""torch.jit.annotations: the typing names TorchScript code imports for its signatures
(torchvision's ops import BroadcastingList2 from here). Mirrors torch.jit.annotations."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: UP035 - torch re-exports these

__all__ = [
    "Any",
    "List",
    "BroadcastingList1",
    "BroadcastingList2",
    "BroadcastingList3",
    "Tuple",
    "is_tuple",
    "is_list",
    "Dict",
    "is_dict",
    "is_optional",
    "is_union",
]


class _BroadcastingList:
    # BroadcastingListN[T]: an argument given as one T or N of them; a hint for TorchScript's
    # type checker only, so indexing it gives None, as torch's does outside TorchScript
    def __init__(self, n: int):
        self._n = n

    def __getitem__(self, types) -> None:
        return None

    def __repr__(self) -> str:
        return f"BroadcastingList{self._n}"


BroadcastingList1 = _BroadcastingList(1)
BroadcastingList2 = _BroadcastingList(2)
BroadcastingList3 = _BroadcastingList(3)


def _origin_is(ann, origin) -> bool:
    import typing

    return typing.get_origin(ann) is origin


def is_tuple(ann) -> bool:
    """Whether ann is Tuple[...] / tuple[...]. Mirrors torch.jit.annotations.is_tuple."""
    return ann is Tuple or _origin_is(ann, tuple)  # noqa: UP006


def is_list(ann) -> bool:
    """Whether ann is List[...] / list[...]. Mirrors torch.jit.annotations.is_list."""
    return ann is List or _origin_is(ann, list)  # noqa: UP006


def is_dict(ann) -> bool:
    """Whether ann is Dict[...] / dict[...]. Mirrors torch.jit.annotations.is_dict."""
    return ann is Dict or _origin_is(ann, dict)  # noqa: UP006


def is_union(ann) -> bool:
    """Whether ann is Union[...] (or X | Y). Mirrors torch.jit.annotations.is_union."""
    import types

    return ann is Union or _origin_is(ann, Union) or _origin_is(ann, types.UnionType)


def is_optional(ann) -> bool:
    """Whether ann is Optional[T] (a union with None). Mirrors torch.jit.annotations.is_optional."""
    import typing

    return ann is Optional or (is_union(ann) and type(None) in typing.get_args(ann))
