"""The collate functions under torch's module path. Extending default_collate for a custom type
is documented as `collate(batch, collate_fn_map={**default_collate_fn_map, MyType: fn})`; adding
to `default_collate_fn_map` itself changes default_collate. Mirrors
torch.utils.data._utils.collate."""

from __future__ import annotations

from minitorch.utils.data._collate import (
    collate,
    collate_float_fn,
    collate_int_fn,
    collate_numpy_array_fn,
    collate_numpy_scalar_fn,
    collate_str_fn,
    collate_tensor_fn,
    default_collate,
    default_collate_err_msg_format,
    default_collate_fn_map,
    default_convert,
    np_str_obj_array_pattern,
)

__all__ = [
    "collate",
    "collate_float_fn",
    "collate_int_fn",
    "collate_numpy_array_fn",
    "collate_numpy_scalar_fn",
    "collate_str_fn",
    "collate_tensor_fn",
    "default_collate",
    "default_collate_err_msg_format",
    "default_collate_fn_map",
    "default_convert",
    "np_str_obj_array_pattern",
]
