"""A base for the families whose parameters are broadcast tensors of one batch shape."""

from __future__ import annotations

import numbers

from minitorch._tensor import Size
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all


class _Elementwise(Distribution):
    """Parameters named in `_params`, broadcast together; batch shape is theirs (empty when all
    were Python numbers). expand() expands each parameter."""

    _params: tuple = ()

    def __init__(self, *values, validate_args=None):
        tensors = broadcast_all(*values)
        for name, t in zip(self._params, tensors, strict=True):
            setattr(self, name, t)
        if all(isinstance(v, numbers.Number) for v in values):
            batch_shape = Size()
        else:
            batch_shape = tensors[0].size()
        Distribution.__init__(self, batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        return self._expand_params(new, batch_shape, self._params)

    def _get_checked_instance(self, cls, _instance=None):
        return self.__new__(type(self)) if _instance is None else _instance
