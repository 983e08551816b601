"""Parameter (a Tensor a Module registers as learnable), Buffer (a marker for module state) and
the placeholders of lazy modules, UninitializedParameter and UninitializedBuffer."""

from __future__ import annotations

from minitorch._tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


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


# NOTE [ Uninitialized parameters ]
# A lazy module (LazyLinear, ...) holds placeholders until its first forward knows the input size:
# an UninitializedParameter/UninitializedBuffer is a tensor with no shape yet. `materialize(shape)`
# gives it storage in place and turns its class into Parameter/Tensor, so every reference to it
# (the module's registry, an optimizer built before the first forward) sees the real tensor.
# Differences from torch: ops on a placeholder are not refused with ValueError (minitorch has no
# __torch_function__ to intercept them); reading its shape raises as in torch.


class UninitializedTensorMixin:
    """What the two placeholders share: materialize, the refused shape, the repr."""

    cls_to_become: type = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Allocates uninitialised storage of `shape` in place and becomes `cls_to_become`.
        Mirrors torch.nn.parameter.UninitializedTensorMixin.materialize."""
        from minitorch._factories import empty

        if isinstance(shape, int):
            shape = (shape,)
        data = empty(
            tuple(shape),
            device=self._device if device is None else device,
            dtype=self.dtype if dtype is None else dtype,
        )
        Tensor._init_from(self, data._data, data._device, self._requires_grad)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes."
        )

    def detach(self):
        return self  # state_dict() keeps the placeholder itself, as torch's does

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, self._device, self.dtype)
        return memo[id(self)]


def _placeholder(cls, requires_grad, device, dtype):
    from minitorch._factories import empty

    data = empty(0, device=device, dtype=dtype)
    t = object.__new__(cls)
    Tensor._init_from(t, data._data, data._device, requires_grad)
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet. Mirrors torch.nn.parameter.UninitializedParameter.
    See NOTE [ Uninitialized parameters ]."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass


def _still_lazy(name: str):
    """A conversion (to, cuda, double, ...) that returns a placeholder of the converted dtype
    and device: Module._apply replaces buffers by the result, which must stay lazy."""

    def convert(self, *args, **kwargs):
        done = getattr(Tensor, name)(self, *args, **kwargs)
        return _placeholder(type(self), self._requires_grad, done._device, done.dtype)

    convert.__name__ = name
    return convert


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet. Mirrors torch.nn.parameter.UninitializedBuffer.
    See NOTE [ Uninitialized parameters ]."""

    cls_to_become = Tensor

    to = _still_lazy("to")
    cuda = _still_lazy("cuda")
    cpu = _still_lazy("cpu")
    float = _still_lazy("float")
    double = _still_lazy("double")
    half = _still_lazy("half")
    bfloat16 = _still_lazy("bfloat16")

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = False, device=None, dtype=None):
        pass


def is_lazy(param) -> bool:
    """True for an UninitializedParameter or UninitializedBuffer. Mirrors
    torch.nn.parameter.is_lazy."""
    return isinstance(param, UninitializedTensorMixin)
