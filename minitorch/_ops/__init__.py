"""Every built-in differentiable op: one Function each, grouped by family; the public functions."""

from __future__ import annotations

from minitorch import _tensor_methods
from minitorch._ops._common import scalar_like
from minitorch._ops.activation import *  # noqa: F403
from minitorch._ops.convert import *  # noqa: F403
from minitorch._ops.cumulative import *  # noqa: F403
from minitorch._ops.einsum import *  # noqa: F403
from minitorch._ops.indexing import *  # noqa: F403
from minitorch._ops.inplace import *  # noqa: F403
from minitorch._ops.linalg import *  # noqa: F403
from minitorch._ops.logical import *  # noqa: F403
from minitorch._ops.nn_kernels import *  # noqa: F403
from minitorch._ops.pointwise import *  # noqa: F403
from minitorch._ops.pointwise_binary import *  # noqa: F403
from minitorch._ops.pointwise_more import *  # noqa: F403
from minitorch._ops.reduction import *  # noqa: F403
from minitorch._ops.reduction_more import *  # noqa: F403
from minitorch._ops.scatter import *  # noqa: F403
from minitorch._ops.selection import *  # noqa: F403
from minitorch._ops.shape import *  # noqa: F403
from minitorch._ops.shape_join import *  # noqa: F403
from minitorch._ops.shape_more import *  # noqa: F403
from minitorch._ops.shape_repeat import *  # noqa: F403
from minitorch._ops.sorting import *  # noqa: F403
from minitorch._ops.special import *  # noqa: F403

# See NOTE [ Late binding of ops ]
_tensor_methods._ops = __import__("sys").modules[__name__]


def _public_names():
    # `from minitorch._ops import *` (in minitorch/__init__.py) exports the families' public
    # functions only, not the family module names (`linalg` must stay minitorch.linalg).
    import sys

    here = sys.modules[__name__]
    names = []
    for mod_name, mod in list(sys.modules.items()):
        private = mod_name.rpartition(".")[2].startswith("_")
        if mod_name.startswith(__name__ + ".") and not private and hasattr(mod, "__all__"):
            names.extend(n for n in mod.__all__ if hasattr(here, n))
    return sorted(set(names))


__all__ = _public_names()
assert scalar_like  # used by Tensor's reflected operators through this module
