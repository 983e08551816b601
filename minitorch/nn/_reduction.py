"""The loss reductions' names and their legacy spellings. Mirrors torch.nn._reduction, which
custom losses copied from torch's loss modules import (`from torch.nn import _reduction`)."""

from __future__ import annotations

import warnings

__all__ = ["get_enum", "legacy_get_string", "legacy_get_enum"]

# torch's Reduction enum (ATen's Reduction.h): the numbers its kernels take
_ENUM = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction: str) -> int:
    """The enum value of `reduction` ('none' 0, 'mean' 1, 'sum' 2); the PyTorch 0.4 spelling
    'elementwise_mean' means 'mean', with a deprecation warning. Mirrors
    torch.nn._reduction.get_enum."""
    ret = _ENUM.get(reduction) if isinstance(reduction, str) else None
    if ret is not None:
        return ret
    if reduction == "elementwise_mean":
        warn_elementwise_mean(stacklevel=3)
        return 1
    raise ValueError(f"{reduction} is not a valid value for reduction")


def warn_elementwise_mean(stacklevel: int = 2) -> None:
    warnings.warn(
        "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The reduction named by the deprecated size_average/reduce pair (None counts as True):
    'mean' when both hold, 'sum' when only reduce does, else 'none'. Mirrors
    torch.nn._reduction.legacy_get_string."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if not reduce:
        ret = "none"
    elif size_average:
        ret = "mean"
    else:
        ret = "sum"
    if emit_warning:
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{ret}' "
            "instead.",
            UserWarning,
            stacklevel=2,
        )
    return ret


def legacy_get_enum(size_average, reduce, emit_warning: bool = True) -> int:
    """get_enum of legacy_get_string. Mirrors torch.nn._reduction.legacy_get_enum."""
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
