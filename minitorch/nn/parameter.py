"""Parameter (a Tensor a Module registers as learnable) and Buffer (a marker for module state)."""

from __future__ import annotations

from minitorch._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A Tensor that a Module registers as learnable when assigned as an attribute.

    Mirrors torch.nn.Parameter: it shares memory and the version counter with `data` (as
    `data.detach()` would) and is a fresh leaf. Ops on a Parameter return plain Tensors, because
    the ops always build Tensor (see `minitorch._tensor._make`).
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from minitorch._factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        requires_grad = bool(requires_grad)
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        p = object.__new__(cls)
        Tensor._init_from(p, data._data, data._device, requires_grad)
        p._vc = data._vc  # a detached alias: in-place changes to either are seen by both
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        pass  # everything happens in __new__; Tensor.__init__ is the legacy constructor

    @classmethod
    def _from_tensor(cls, t: Tensor) -> Parameter:
        """Rebuilds a Parameter after pickling (see `minitorch._tensor._rebuild`)."""
        return cls(t, t._requires_grad)

    def __deepcopy__(self, memo):
        # As in torch: the values and requires_grad are copied, the .grad is not.
        if id(self) in memo:
            return memo[id(self)]
        p = object.__new__(type(self))
        Tensor._init_from(p, self._data.copy(), self._device, self._requires_grad)
        memo[id(self)] = p
        return p

    def __repr__(self, *, tensor_contents=None):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


class _BufferMeta(type):
    # `Buffer(t)` returns a plain Tensor tagged `_is_buffer`; isinstance(x, Buffer) reads the tag.
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and instance.__dict__.get("_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer when assigned to a Module attribute. Mirrors torch.nn.Buffer.

    `Buffer(data, persistent=True)` returns `data.detach()` (a plain Tensor, keeping
    requires_grad) tagged so that `Module.__setattr__` registers it with `persistent`.
    """

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:
            from minitorch._factories import empty

            data = empty(0)
        t = data.detach()
        if data._requires_grad:
            t._requires_grad = True
        t.persistent = persistent
        t._is_buffer = True
        return t
