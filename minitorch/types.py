"""torch.types: the type aliases annotations use (`from torch.types import Number, Device,
_size`). Mirrors torch.types, without the symbolic types (SymInt, ...) of graph capture, which
minitorch has not: the int-like aliases are plain int, float and bool."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Union

from minitorch import Size, Tensor, UntypedStorage, layout
from minitorch._backend import Device as _Device
from minitorch._dtype import dtype as _dtype_cls

_bool = bool
_int = int
_float = float
_complex = complex
_str = str
_bytes = bytes
_dtype = _dtype_cls
_device = _Device
_layout = layout

IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
py_sym_types = ()

_size = Union[Size, list[int], tuple[int, ...]]  # noqa: UP007 (evaluated at import, as torch's)
_symsize = _size
Number = Union[int, float, bool]  # noqa: UP007
_Number = (int, float, bool)  # isinstance(x, _Number)
Device = Union[_Device, str, int, None]  # noqa: UP007
FileLike = Union[str, os.PathLike, IO[bytes]]  # noqa: UP007

Storage = UntypedStorage

_TensorOrTensors = Union[Tensor, Sequence[Tensor]]  # noqa: UP007
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]  # noqa: UP007
