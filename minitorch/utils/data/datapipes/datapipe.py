"""IterDataPipe and MapDataPipe: the dataset bases whose instances chain into one another through
functional forms registered with @functional_datapipe. Mirrors torch.utils.data.datapipes.datapipe.

Differences from torch: only the basic protocol is here (subclassing, registering and calling
functional forms, use as a DataLoader dataset). torch's built-in datapipes and their functional
forms (map, filter, batch, shuffle, sharding_filter, ...), graph traversal and sharding across
DataLoader workers, single-iterator enforcement, typing validation and the DataFrame pipes are not.
"""

from __future__ import annotations

import functools
from typing import TypeVar

from minitorch.utils.data.dataset import Dataset, IterableDataset

__all__ = ["IterDataPipe", "MapDataPipe"]

T_co = TypeVar("T_co", covariant=True)


def _register(functions: dict, function_name: str, cls_to_register: type) -> None:
    if function_name in functions:
        # torch raises a bare Exception here
        raise Exception(
            f"Unable to add DataPipe function name {function_name} as it is already taken"
        )
    functions[function_name] = cls_to_register


def _functional_form(functions: dict, pipe, name: str):
    """`pipe.name(*args, **kwargs)` builds the registered class as cls(pipe, *args, **kwargs)."""
    cls = functions.get(name)
    if cls is None:
        raise AttributeError(f"'{type(pipe).__name__}' object has no attribute '{name}'")
    return functools.partial(cls, pipe)


class IterDataPipe(IterableDataset[T_co]):
    """An iterable-style dataset that can be chained: a class decorated with
    @functional_datapipe("name") is reachable from every IterDataPipe as `.name(...)`, which
    builds it with the pipe as its first argument. Mirrors torch.utils.data.IterDataPipe."""

    functions: dict[str, type] = {}

    @classmethod
    def register_datapipe_as_function(
        cls, function_name: str, cls_to_register: type, enable_df_api_tracing: bool = False
    ) -> None:
        _register(IterDataPipe.functions, function_name, cls_to_register)

    def __getattr__(self, name: str):
        # Only reached when normal lookup fails, so the pipe's own attributes come first.
        return _functional_form(IterDataPipe.functions, self, name)

    def __repr__(self) -> str:
        return type(self).__qualname__

    __str__ = __repr__


class MapDataPipe(Dataset[T_co]):
    """A map-style dataset that can be chained, as IterDataPipe (MapDataPipe's functional forms
    are registered apart from IterDataPipe's). Mirrors torch.utils.data.MapDataPipe."""

    functions: dict[str, type] = {}

    @classmethod
    def register_datapipe_as_function(cls, function_name: str, cls_to_register: type) -> None:
        _register(MapDataPipe.functions, function_name, cls_to_register)

    def __getattr__(self, name: str):
        return _functional_form(MapDataPipe.functions, self, name)

    def __repr__(self) -> str:
        return type(self).__qualname__

    __str__ = __repr__
