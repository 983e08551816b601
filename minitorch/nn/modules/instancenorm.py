"""torch.nn.modules.instancenorm's import path: the InstanceNorm classes live beside BatchNorm
(they share _NormBase) and their lazy forms in lazy.py; code written for torch imports them from
here (`from torch.nn.modules.instancenorm import _InstanceNorm`)."""

from minitorch.nn.modules.batchnorm import (  # noqa: F401  (the private bases: subclassed, as in torch)
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    _InstanceNorm,
    _NormBase,
)
from minitorch.nn.modules.lazy import (  # noqa: F401
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
    _LazyNormBase,
)

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]
