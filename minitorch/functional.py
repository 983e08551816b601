"""torch.functional: the module where torch defines einsum, meshgrid, norm, split, unique, ...
and imports nn.functional as F. Older code calls through it (`torch.functional.F.relu(x)`,
`torch.functional.norm(x)`); here every name is minitorch's own function, looked up on first use.
Mirrors torch.functional."""

from __future__ import annotations

import minitorch
from minitorch import Tensor  # noqa: F401 (torch.functional.Tensor is torch.Tensor)

# the names torch.functional defines (its __all__; stft/istft are not minitorch's)
_NAMES = (
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "block_diag",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "lu",
    "norm",
    "meshgrid",
    "pca_lowrank",
    "split",
    "stft",
    "svd_lowrank",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
)


def __getattr__(name):
    if name == "F":
        return minitorch.nn.functional
    if name in _NAMES:
        return getattr(minitorch, name)
    raise AttributeError(f"module 'minitorch.functional' has no attribute '{name}'")


def __dir__():
    return sorted([*globals(), "F", *(n for n in _NAMES if hasattr(minitorch, n))])
