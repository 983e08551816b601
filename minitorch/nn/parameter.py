"""Parameter (a Tensor a Module registers as learnable), Buffer (a marker for module state) and
the placeholders of lazy modules, UninitializedParameter and UninitializedBuffer."""

from __future__ import annotations

from minitorch._arg_errors import unexpected_keyword
from minitorch._ops._common import type_name
from minitorch._subclass import _disabled_torch_function_impl
from minitorch._tensor import (
    Tensor,
    _keep_storage_root,
    _make,
    _python_state,
    _rebuild,
    _refuse_inference_requires_grad,
)

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


def _check_internal_keys(kwargs: dict) -> None:
    """Parameter(data, requires_grad, **old.__dict__), as accelerate and HF loaders rebuild a
    parameter: torch's __dict__ of a used parameter is empty, minitorch's holds its autograd
    bookkeeping (NOTE [ Tensor attributes ]), which is the old tensor's and is dropped here.
    Any other keyword is refused as torch refuses it."""
    from minitorch._tensor import _AUTOGRAD_KEYS

    for key in kwargs:
        if key not in _AUTOGRAD_KEYS:
            raise unexpected_keyword("Parameter.__new__", key)


class Parameter(Tensor):
    """A Tensor that a Module registers as learnable when assigned as an attribute.

    Mirrors torch.nn.Parameter: it shares memory and the version counter with `data` (as
    `data.detach()` would) and is a fresh leaf. Ops on a Parameter return plain Tensors: as in
    torch, it opts out of subclass dispatch (NOTE [ Tensor subclasses ]), and so do subclasses
    of it that do not set __torch_function__ again.
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True, **internal):
        if internal:
            _check_internal_keys(internal)
        if data is None:
            from minitorch._factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            # torch's Parameter calls data.detach() first, so a list or an ndarray fails there
            # with Python's AttributeError: the same error here, for code that catches it
            data.detach  # noqa: B018
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        if requires_grad.__class__ is not bool:  # torch's Tensor._make_subclass's parser
            raise TypeError(
                "_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                f"{type_name(requires_grad)}"
            )
        if requires_grad and not data.dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        if requires_grad and data._vc.__class__ is not list:
            _refuse_inference_requires_grad(data)  # NOTE [ Inference tensors ]
        p = object.__new__(cls)
        Tensor._init_from(p, data._data, data._device, requires_grad)
        p._vc = data._vc  # a detached alias: in-place changes to either are seen by both
        if data._base is not None or "_storage_root" in data.__dict__:
            _keep_storage_root(p, data)  # Parameter(x[2:]) lies in x's storage, at offset 2
        return p

    def __init__(self, *args, **kwargs):
        # Everything happens in __new__ (so does Tensor's legacy constructor). Any
        # arguments are accepted, so that a subclass whose __new__ takes more (bitsandbytes'
        # and torchao's quantized parameters) can be built as in torch.
        pass

    @classmethod
    def _from_tensor(cls, t: Tensor) -> Parameter:
        """Rebuilds a Parameter after pickling (see `minitorch._tensor._rebuild`)."""
        return cls(t, t._requires_grad)

    def __reduce_ex__(self, protocol):
        # As torch: a subclass comes back as a plain Parameter, with its Python attributes.
        args = (self._host(), str(self._device), self._requires_grad, Parameter)
        state = _python_state(self)
        return (_rebuild, args, state) if state else (_rebuild, args)

    def __deepcopy__(self, memo):
        # As in torch: the class is called again on a copy of the values and requires_grad
        # (so a subclass's __new__ runs with its defaults); .grad and Python attributes are not
        # copied.
        if id(self) in memo:
            return memo[id(self)]
        data = _make(self._data.copy(order="K"), self._device, False, None)
        p = type(self)(data, self._requires_grad)
        memo[id(self)] = p
        return p

    def __repr__(self):  # (no tensor_contents: torch's Parameter.__repr__ takes none)
        if type(self) is Parameter:
            return "Parameter containing:\n" + Tensor.__repr__(self)
        # torch prints a subclass's values under its own name, inside "Parameter(...)".
        from minitorch import _dtype
        from minitorch._tensor_str import tensor_repr

        inner = tensor_repr(
            self._host_or_shape(),
            dtype_name=self.dtype.name,
            default_float_name=_dtype.get_default_dtype().name,
            device=None if self._device.type == "cpu" else str(self._device),
            requires_grad=self._requires_grad,
            prefix=f"{type(self).__name__}(",
        )
        return f"Parameter containing:\nParameter({inner})"

    def __format__(self, spec):
        # torch formats only a plain 0-d Tensor as a number: a Parameter is formatted as an
        # object (str() for an empty spec, TypeError otherwise).
        return object.__format__(self, spec)


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

    __torch_function__ = _disabled_torch_function_impl  # never instantiated (see __new__)

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
# Until then using it raises torch's ValueError, at no cost to other tensors (torch intercepts
# every call through __torch_function__, which minitorch does not have):
# - its Tensor methods and operators are replaced, on the placeholder classes only, by ones that
#   raise (torch's few allowed ones stay: size, dtype/device queries, conversions, copy_);
# - its array is a _NoData, which holds only a dtype: a function reading a placeholder's data
#   (torch.add(p, 1), F.linear(x, p), cat) raises the same ValueError from inside the op, where
#   NumPy hands the _NoData to its __array_ufunc__/__array_function__.
# Differences from torch: the message names the NumPy function for functions (torch names the
# torch function); nn.init functions read the shape first and raise its RuntimeError; on a GPU
# CuPy refuses the _NoData with its own TypeError.

_UNINITIALIZED = (
    "Attempted to use an uninitialized parameter in {}. This error happens when you are using a "
    "`LazyModule` or explicitly manipulating `torch.nn.parameter.{}` "
    "objects. When using LazyModules Call `forward` with a dummy batch to initialize the "
    "parameters before calling torch functions"
)


def _refuse(what: str, cls_name: str = "UninitializedParameter"):
    # torch names the placeholder's class (its __torch_function__'s cls): a buffer's is
    # UninitializedBuffer
    raise ValueError(_UNINITIALIZED.format(what, cls_name))


class _NoData:
    """The array of a placeholder: its dtype, and nothing to compute with."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __getattr__(self, name):
        _refuse(f"<an operation reading '{name}'>")

    def __array__(self, *args, **kwargs):
        _refuse("<function 'asarray'>")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _refuse(f"<ufunc '{ufunc.__name__}'>")

    def __array_function__(self, func, types, args, kwargs):
        _refuse(f"<function '{func.__name__}'>")

    def __len__(self):
        _refuse("<method '__len__'>")

    def __iter__(self):
        _refuse("<method '__iter__'>")

    def __bool__(self):
        _refuse("<method '__bool__'>")


def _no_data_binary(name):
    def refuse(self, *args):
        _refuse(f"<method '{name}'>")

    return refuse


for _name in (
    "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift "
    "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor "
    "iadd isub imul itruediv ifloordiv imod ipow imatmul iand ior ixor "
    "neg pos abs invert lt le gt ge getitem setitem float int index complex"
).split():
    setattr(_NoData, f"__{_name}__", _no_data_binary(f"__{_name}__"))


# What torch lets a placeholder do (besides the attributes that are not methods): its size,
# dtype and device queries, the conversions (below), copy_, and the machinery of Python itself.
_ALLOWED = frozenset(
    (
        "size",
        "is_floating_point",
        "is_complex",
        "get_device",
        "copy_",
        "detach",
        "materialize",
        "share_memory_",
        "to",
        "cpu",
        "cuda",
        "float",
        "double",
        "half",
        "long",
        "int",
        "short",
        "char",
        "__init__",
        "__new__",
        "__init_subclass__",
        "__repr__",
        "__str__",
        "__hash__",
        "__reduce__",
        "__reduce_ex__",
        "__deepcopy__",
        "__getattribute__",
        "__getattr__",
        "__setattr__",
        "__delattr__",
        "__dir__",
        "__sizeof__",
    )
)


def _op_name(name: str) -> str:
    """The op an operator method runs, as torch names it: __radd__ -> add, __iadd__ -> add_."""
    if not (name.startswith("__") and name.endswith("__")):
        return name
    bare = name[2:-2]
    if bare in _OPERATORS:
        return _OPERATORS[bare]
    if bare[:1] in "ri" and bare[1:] in _OPERATORS:
        return _OPERATORS[bare[1:]] + ("_" if bare[0] == "i" else "")
    return name


_OPERATORS = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "truediv": "div",
    "floordiv": "floor_divide",
    "mod": "remainder",
    "pow": "pow",
    "matmul": "matmul",
    "neg": "neg",
    "abs": "abs",
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
}


def _refusing(name: str):
    # torch names its C methods so; its few Python-level ones (split, norm) by address instead
    what = f"<method '{_op_name(name)}' of 'minitorch._C.TensorBase' objects>"

    def method(self, *args, **kwargs):
        _refuse(what, type(self).__name__)

    method.__name__ = name
    return method


def _refuse_tensor_methods(cls) -> None:
    """Gives `cls` a refusing version of every Tensor method torch does not allow on a
    placeholder (public methods and operators; private helpers stay, for the machinery)."""
    import types

    own = (cls, UninitializedTensorMixin)
    seen = {name for k in own for name in vars(k)}
    for klass in cls.__mro__[:-1]:  # Parameter's methods too, before Tensor's
        if klass in own:
            continue
        for name, value in vars(klass).items():
            if name in seen or name in _ALLOWED or not isinstance(value, types.FunctionType):
                continue
            seen.add(name)
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                continue
            setattr(cls, name, _refusing(name))


class UninitializedTensorMixin:
    """What the two placeholders share: materialize, the refused shape and methods, the repr."""

    cls_to_become: type = Tensor
    # placeholders refuse methods themselves (NOTE [ Uninitialized parameters ]), no dispatch
    __torch_function__ = _disabled_torch_function_impl

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

    # torch's placeholder holds an empty 1-d tensor, which its size queries report.
    def size(self, dim=None):
        from minitorch._tensor import Size

        return Size((0,)) if dim is None else self._empty().size(dim)

    @property
    def ndim(self) -> int:
        return 1

    @property
    def data(self) -> Tensor:
        return self._empty()

    @data.setter
    def data(self, value: Tensor):
        # Module._apply (model.double(), .to(device)) sets the converted empty tensor: the
        # placeholder takes its dtype and device and stays a placeholder.
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type_name(value)}")
        if isinstance(value._data, _NoData) or not value._data.size:
            self._data = _NoData(value._data.dtype)
            self._device = value._device
        else:
            Tensor.data.fset(self, value)

    def _empty(self) -> Tensor:
        """A real empty tensor of the placeholder's dtype and device."""
        from minitorch._factories import empty

        return empty(0, device=self._device, dtype=self.dtype)

    def detach(self):
        return self  # state_dict() keeps the placeholder itself, as torch's does

    def copy_(self, src, non_blocking=False):
        """As torch's placeholder, an empty 1-d tensor, copies: another placeholder (a lazy
        module's state loaded into another) or an empty tensor is a no-op, anything else
        raises the empty tensor's error; the placeholder stays one."""
        target = self._empty().requires_grad_(self._requires_grad)
        target.copy_(
            src._empty() if isinstance(src, UninitializedTensorMixin) else src, non_blocking
        )
        return self

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad, str(self._device), self.dtype))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, self._device, self.dtype)
        return memo[id(self)]


def _placeholder(cls, requires_grad, device, dtype):
    from minitorch._factories import empty

    like = empty(0, device=device, dtype=dtype)  # checks the arguments, resolves the defaults
    t = object.__new__(cls)
    Tensor._init_from(t, _NoData(like._data.dtype), like._device, requires_grad)
    return t


def _converting(name: str, stays_lazy: bool):
    """A conversion (to, cuda, double, ...) of a placeholder: it converts an empty tensor of the
    placeholder's dtype and device. A parameter gives that empty tensor (as torch's does; its
    Module._apply then sets it as `.data`), a buffer a placeholder of the converted dtype and
    device (Module._apply replaces buffers by the result, which must stay lazy); a conversion
    that changes nothing gives the placeholder itself."""

    def convert(self, *args, **kwargs):
        empty = self._empty()
        done = getattr(Tensor, name)(empty, *args, **kwargs)
        if done is empty:
            return self
        if stays_lazy:
            return _placeholder(type(self), self._requires_grad, done._device, done.dtype)
        return done

    convert.__name__ = name
    return convert


_CONVERSIONS = ("to", "cuda", "cpu", "float", "double", "half", "long", "int", "short", "char")


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet. Mirrors torch.nn.parameter.UninitializedParameter.
    See NOTE [ Uninitialized parameters ]."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet. Mirrors torch.nn.parameter.UninitializedBuffer.
    See NOTE [ Uninitialized parameters ]."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad: bool = False, device=None, dtype=None):
        pass


for _cls, _lazy in ((UninitializedParameter, False), (UninitializedBuffer, True)):
    for _name in _CONVERSIONS:
        setattr(_cls, _name, _converting(_name, _lazy))
    _refuse_tensor_methods(_cls)


def is_lazy(param) -> bool:
    """True for an UninitializedParameter or UninitializedBuffer. Mirrors
    torch.nn.parameter.is_lazy."""
    return isinstance(param, UninitializedTensorMixin)
