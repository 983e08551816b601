"""functional_datapipe: registers a DataPipe class as a chainable method. Mirrors
torch.utils.data.datapipes._decorator."""

from __future__ import annotations

from minitorch.utils.data.datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["functional_datapipe"]


class functional_datapipe:
    """Class decorator: `@functional_datapipe("name")` on an IterDataPipe (or MapDataPipe)
    subclass makes `pipe.name(*args, **kwargs)` build it as cls(pipe, *args, **kwargs) from any
    pipe of that kind; a name already taken raises. Other classes are returned unregistered, as
    torch does. Mirrors torch.utils.data.functional_datapipe.

    Differences from torch: enable_df_api_tracing is accepted and ignored (no DataFrame pipes).
    """

    name: str

    def __init__(self, name: str, enable_df_api_tracing: bool = False) -> None:
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        if issubclass(cls, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        return cls
