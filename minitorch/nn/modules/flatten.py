"""Flatten and Unflatten: reshape a range of dimensions to one and back."""

from __future__ import annotations

from minitorch._tensor import Tensor
from minitorch.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims start_dim..end_dim into one (default: all but the batch dim). Mirrors
    torch.nn.Flatten."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expands dim `dim` into the shape `unflattened_size` (one entry may be -1). Mirrors
    torch.nn.Unflatten.

    Differences from torch: named tensors (a NamedShape `unflattened_size`) are not supported.
    """

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, value) -> None:
        if isinstance(value, (tuple, list)):
            for idx, elem in enumerate(value):
                if not isinstance(elem, int):
                    raise TypeError(
                        "unflattened_size must be tuple of ints, but found element of type "
                        f"{type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(value).__name__}"
        )

    def forward(self, input: Tensor) -> Tensor:
        if hasattr(input, "unflatten") or not hasattr(input, "shape"):
            # (torch's AttributeError for a non-tensor names unflatten)
            return input.unflatten(self.dim, self.unflattened_size)
        return _unflatten(input, self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def _unflatten(input: Tensor, dim: int, sizes: tuple) -> Tensor:
    """input.unflatten(dim, sizes) through view, with torch's checks."""
    shape = tuple(input.shape)
    ndim = len(shape)
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
            f"{max(ndim, 1) - 1}], but got {dim})"
        )
    dim = dim + ndim if dim < 0 else dim
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if known == 0 or shape[dim] % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                f"{dim} ({shape[dim]}) in the input tensor"
            )
        sizes = tuple(shape[dim] // known if s == -1 else s for s in sizes)
    elif known != shape[dim]:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
            f"({shape[dim]}) in the input tensor"
        )
    return input.view(shape[:dim] + sizes + shape[dim + 1 :])
