"""torch.__future__: the flags that opt into upcoming behaviour of Module conversions."""

from __future__ import annotations

# Read by Module._apply (.to(), .half(), .cuda(), ...) and Module._load_from_state_dict in
# minitorch/nn/modules/module.py. With both flags False (torch's default) a conversion replaces
# each parameter's data in place (`param.data = ...`), keeping the Parameter object.
_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Mirrors torch.__future__.set_overwrite_module_params_on_conversion: when True, a
    module conversion (.to(), .double(), ...) registers new Parameter objects and leaves the old
    ones as they were."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    """Mirrors torch.__future__.get_overwrite_module_params_on_conversion."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Mirrors torch.__future__.set_swap_module_params_on_conversion: when True, module
    conversions and load_state_dict swap the new values into the existing Parameter and buffer
    objects (utils.swap_tensors; load_state_dict through Tensor.module_load). Takes precedence
    over the overwrite flag."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    """Mirrors torch.__future__.get_swap_module_params_on_conversion."""
    return _swap_module_params_on_conversion
