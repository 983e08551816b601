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

_unused = scalar_like
