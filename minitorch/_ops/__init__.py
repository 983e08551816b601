"""Every built-in differentiable op: one Function each, grouped by family; the public functions."""

from __future__ import annotations

import functools as _functools

from minitorch import _tensor_methods
from minitorch._ops import indexing as _indexing
from minitorch._ops import pointwise as _pw
from minitorch._ops._common import scalar_like
from minitorch._ops.activation import *  # noqa: F403
from minitorch._ops.convert import *  # noqa: F403
from minitorch._ops.cumulative import *  # noqa: F403
from minitorch._ops.einsum import *  # noqa: F403
from minitorch._ops.indexing import *  # noqa: F403
from minitorch._ops.inplace import *  # noqa: F403
from minitorch._ops.linalg import *  # noqa: F403
from minitorch._ops.linalg_factor import *  # noqa: F403
from minitorch._ops.linalg_matfn import *  # noqa: F403
from minitorch._ops.linalg_more import *  # noqa: F403
from minitorch._ops.linalg_solve import *  # noqa: F403
from minitorch._ops.logical import *  # noqa: F403
from minitorch._ops.nn_kernels import *  # noqa: F403
from minitorch._ops.pointwise import *  # noqa: F403
from minitorch._ops.pointwise_binary import *  # noqa: F403
from minitorch._ops.pointwise_misc import *  # noqa: F403
from minitorch._ops.pointwise_more import *  # noqa: F403
from minitorch._ops.random_ops import *  # noqa: F403
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
from minitorch._ops.special_more import *  # noqa: F403
from minitorch._ops.tensor_misc import *  # noqa: F403
from minitorch._ops.view_variants import *  # noqa: F403

# See NOTE [ Late binding of ops ]
_tensor_methods._ops = __import__("sys").modules[__name__]

# NOTE [ Direct operator binding ]
# The hottest operators are the op functions themselves: `x * y` calls mul(x, y) with no method in
# between (one Python frame less on every op of every model, ~8% of a small op's cost; a debugger
# steps straight into the op). Each function takes (self, other) in the operator's order.
for _name, _fn in (
    ("__add__", _pw.add), ("__radd__", _pw.add), ("__sub__", _pw.sub), ("__mul__", _pw.mul),
    ("__rmul__", _pw.mul), ("__truediv__", _pw.div), ("__neg__", _pw.neg),
    ("__getitem__", _indexing.getitem),
):
    setattr(_tensor_methods.TensorMethods, _name, _fn)
del _name, _fn


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


# NOTE [ NumPy argument aliases ]
# torch's argument parser accepts NumPy's spellings `axis=` for `dim=` and `keepdims=` for
# `keepdim=` on every function that has those parameters; so does minitorch. The public functions
# that take `dim` (or `keepdim`) but not `axis` are wrapped once here, at import; those that spell
# the aliases themselves (sum, mean, ...) are left as they are.
def _with_numpy_aliases(fn):
    @_functools.wraps(fn)
    def aliased(*args, **kwargs):
        if "axis" in kwargs:
            if "dim" in kwargs:
                raise TypeError(f"{fn.__name__}() got both 'dim' and its alias 'axis'")
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)

    return aliased


def _takes_dim(fn) -> bool:
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)  # with_out wraps some
    if code is None:
        return False
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return ("dim" in params or "keepdim" in params) and "axis" not in params


def _add_numpy_aliases():
    here = __import__("sys").modules[__name__]
    for name in __all__:
        if _takes_dim(getattr(here, name)):
            setattr(here, name, _with_numpy_aliases(getattr(here, name)))
    methods = _tensor_methods.TensorMethods
    for name, fn in list(vars(methods).items()):
        if not name.startswith("__") and _takes_dim(fn):
            setattr(methods, name, _with_numpy_aliases(fn))


_add_numpy_aliases()
assert scalar_like  # used by Tensor's reflected operators through this module
