"""torch.__future__: the flags that opt into upcoming behaviour of Module conversions."""

from __future__ import annotations

# Read by nothing yet: minitorch's Module._apply (.to(), .half(), .cuda()) always converts
# parameters in place, keeping their identity, which is torch's default (both flags False).
_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Mirrors torch.__future__.set_overwrite_module_params_on_conversion.

    Differences from torch: the flag is stored but conversions do not read it yet."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    """Mirrors torch.__future__.get_overwrite_module_params_on_conversion."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Mirrors torch.__future__.set_swap_module_params_on_conversion.

    Differences from torch: the flag is stored but conversions do not read it yet."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    """Mirrors torch.__future__.get_swap_module_params_on_conversion."""
    return _swap_module_params_on_conversion
