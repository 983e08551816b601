"""torch's TypeErrors for wrong-typed arguments of nn.functional and the torch.* functions of nn.

torch's argument parser refuses a value of the wrong kind before the kernel runs: a non-tensor
where a Tensor is expected, anything but a Python bool for a bool, a str, list or non-0-d tensor
for a float, a float or bool for an int or int[]. Its message names the op, the argument and,
when torch's Python wrapper passes it by position, that position:
`group_norm(): argument 'eps' (position 5) must be float, not str`.

These checks run where the functions are already slow (losses, normalisation, pooling); the hot
kernels catch the AttributeError of a non-tensor instead (no cost on their common path).
"""

from __future__ import annotations

from minitorch._ops._common import check_bool, check_int, is_index, not_tensor, wrong_type
from minitorch._tensor import Tensor

__all__ = [
    "tensor",
    "opt_tensor",
    "boolean",
    "floating",
    "number",
    "integer",
    "int_tuple",
    "string",
    "opt_boolean",
    "wrapper_reads",
]


def tensor(x, op: str, name: str = "input", pos: int = 1) -> None:
    """A Tensor argument."""
    if not isinstance(x, Tensor):
        raise not_tensor(op, x, name, pos)


def opt_tensor(x, op: str, name: str, pos: int) -> None:
    """An optional Tensor argument (None allowed)."""
    if x is not None and not isinstance(x, Tensor):
        raise not_tensor(op, x, name, pos)


def boolean(x, op: str, name: str, pos: int | None = None) -> None:
    """A bool argument: torch takes only a Python bool (not 0/1, np.bool_ or a tensor)."""
    if x.__class__ is not bool:
        check_bool(op, x, name, pos)


def opt_boolean(x, op: str, name: str, pos: int | None = None) -> None:
    """An optional bool argument (None allowed)."""
    if x is not None and x.__class__ is not bool:
        raise wrong_type(op, x, name, pos, "bool")


def string(x, op: str, name: str, pos: int | None = None) -> None:
    """A str argument."""
    if not isinstance(x, str):
        raise wrong_type(op, x, name, pos, "str")


def _float_like(x) -> bool:
    cls = x.__class__
    if cls is float or cls is int or cls is bool:
        return True
    if isinstance(x, Tensor):  # (torch's parser reads a 0-d tensor as its number, if no grad)
        return x.ndim == 0 and not x.requires_grad
    return isinstance(x, (int, float)) or (
        hasattr(x, "dtype") and getattr(x, "ndim", None) == 0 and x.dtype.kind in "biuf"
    )


def floating(x, op: str, name: str, pos: int | None = None) -> None:
    """A float argument: a Python or NumPy number or a 0-d tensor."""
    if not _float_like(x):
        raise wrong_type(op, x, name, pos, "float")


def number(x, op: str, name: str, pos: int | None = None) -> None:
    """A Scalar argument (torch says "Number"): what `floating` takes."""
    if not _float_like(x):
        raise wrong_type(op, x, name, pos, "Number")


def integer(x, op: str, name: str, pos: int | None = None) -> None:
    """An int argument (int-like: NumPy integers, 0-d integer tensors; not bool or float)."""
    check_int(op, x, name, pos)


def int_tuple(x, op: str, name: str, pos: int | None = None) -> None:
    """An int[] argument: one int-like value or a sequence of them (not a str, a float, None or
    a tensor that is not a 0-d integer one)."""
    if x.__class__ is int or x.__class__ is tuple:
        return
    if is_index(x):
        return
    if isinstance(x, Tensor) and x.numel() == 1 and x.dtype._kind == 1:
        return  # torch's parser reads a one-element integer tensor as one int
    if hasattr(x, "__iter__") and not isinstance(x, (str, Tensor)):
        return  # the elements are read by the caller (int_list's messages)
    raise wrong_type(op, x, name, pos, "tuple of ints")


def wrapper_reads(x, attr: str, op: str, name: str = "input", pos: int = 1) -> None:
    """A Tensor argument that torch's Python wrapper uses (x.size(), x.dim(), x.is_cuda) before
    its parser sees it: a non-tensor without that attribute gets Python's AttributeError
    ("'NoneType' object has no attribute 'size'"), any other non-tensor torch's TypeError."""
    if not isinstance(x, Tensor):
        getattr(x, attr)
        raise not_tensor(op, x, name, pos)
