"""The pickle inside a checkpoint: tensors, dtypes and devices written as torch's globals."""

from __future__ import annotations

import io
import pickle
import sys
import types
from collections import OrderedDict

from minitorch import _dtype
from minitorch._backend import Device
from minitorch._serialization_storage import SavedStorage
from minitorch._tensor import Size, Tensor, _python_state
from minitorch.storage import TypedStorage, UntypedStorage


class _Global:
    """A global of torch's (e.g. `torch._utils._rebuild_tensor_v2`) written by name: minitorch
    never imports torch, so the pickler writes the GLOBAL opcode itself."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module = module
        self.name = name

    def __call__(self, *args):  # pickle insists that a reduce function be callable
        raise TypeError(f"{self.module}.{self.name} is a stand-in for pickling only")


_GLOBALS: dict = {}


def torch_global(module: str, name: str) -> _Global:
    key = (module, name)
    if key not in _GLOBALS:
        _GLOBALS[key] = _Global(module, name)
    return _GLOBALS[key]


_REBUILD_TENSOR = torch_global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_TENSOR_V3 = torch_global("torch._utils", "_rebuild_tensor_v3")
_UNTYPED = _dtype.SHELL_UINTS + _dtype.FLOAT8  # the dtypes torch has no typed storage class for
_REBUILD_PARAMETER = torch_global("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_WITH_STATE = torch_global("torch._utils", "_rebuild_parameter_with_state")
_REBUILD_FROM_TYPE = torch_global("torch._tensor", "_rebuild_from_type_v2")
_REBUILD_META = torch_global("torch._utils", "_rebuild_meta_tensor_no_storage")
_TORCH_TENSOR = torch_global("torch", "Tensor")
_TORCH_DEVICE = torch_global("torch", "device")
_TORCH_SIZE = torch_global("torch", "Size")
_GET_LAYOUT = torch_global("torch.serialization", "_get_layout")
_UNTYPED_STORAGE = torch_global("torch.storage", "UntypedStorage")
_TORCH_PLACEHOLDERS = {
    "UninitializedParameter": torch_global("torch.nn.parameter", "UninitializedParameter"),
    "UninitializedBuffer": torch_global("torch.nn.parameter", "UninitializedBuffer"),
}


def _write_global(pickler, module: str, name: str, obj) -> None:
    pickler.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
    pickler.memoize(obj)


class TorchPickler(pickle._Pickler):
    """Pickles like torch.save: tensors as `_rebuild_tensor_v2(storage, offset, size, stride,
    requires_grad, OrderedDict())` with the storage as a persistent id, Parameters through
    `_rebuild_parameter`, dtypes, devices and Sizes as torch's.

    The pure-Python pickler, because only it lets a subclass write a global by name."""

    dispatch = pickle._Pickler.dispatch.copy()
    dispatch[_Global] = lambda self, g: _write_global(self, g.module, g.name, g)
    dispatch[_dtype.dtype] = lambda self, dt: _write_global(self, "torch", dt.name, dt)

    def __init__(self, file, protocol: int, plan):
        super().__init__(file, protocol)
        self.plan = plan

    def save_global(self, obj, name=None):
        try:
            super().save_global(obj, name)
        except pickle.PicklingError:
            # torch pickles with the C pickler, whose error for an object it cannot find by
            # name may have another type (AttributeError "Can't pickle local object ..." for a
            # lambda or nested function before Python 3.14): raise the C pickler's own error.
            try:
                pickle.Pickler(io.BytesIO(), self.proto).dump(obj)
            except Exception as c_error:
                raise c_error from None
            raise

    dispatch[types.FunctionType] = save_global  # the base class's table holds its own method

    def persistent_id(self, obj):
        # a new tuple at each use, as torch's pickler makes: the pickle then spells a storage
        # used again out of its memoized parts, as torch's does, not as one memoized tuple
        if obj.__class__ is SavedStorage:
            return (*obj.pid,)
        if isinstance(obj, (UntypedStorage, TypedStorage)):  # written as torch writes storages
            return (*self.plan.locate_storage(obj, _UNTYPED_STORAGE).pid,)
        return None

    def reducer_override(self, obj):
        cls = obj.__class__
        if cls is Device:
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            return (_TORCH_DEVICE, args)
        if cls is Size:
            return (_TORCH_SIZE, (tuple(obj),))
        if isinstance(obj, Tensor):
            from minitorch.nn.parameter import Parameter, UninitializedTensorMixin

            if isinstance(obj, UninitializedTensorMixin):
                return _reduce_placeholder(obj)
            # Python attributes set on the tensor travel as torch writes them (see
            # NOTE [ Python state of a tensor ] in minitorch/_tensor.py).
            state = _python_state(obj)
            if isinstance(obj, Parameter):
                args = (obj.detach(), obj.requires_grad, OrderedDict())
                if state:
                    return (_REBUILD_PARAMETER_WITH_STATE, (*args, state))
                return (_REBUILD_PARAMETER, args)
            if obj._device.type == "meta" and obj.__class__ is Tensor and not state:
                # no storage to write: NOTE [ The meta device ]
                args = (obj.dtype, tuple(obj.shape), obj.stride(), obj.requires_grad)
                return (_REBUILD_META, args)
            storage, offset, size, stride = self.plan.locate(obj)
            args = (storage, offset, size, stride, obj.requires_grad, OrderedDict())
            rebuild = _REBUILD_TENSOR
            if obj.dtype in _UNTYPED:  # on untyped storage, the dtype given apart
                rebuild, args = _REBUILD_TENSOR_V3, (*args, obj.dtype)
            if obj.__class__ is not Tensor:  # a subclass, written by its own name as torch
                return (_REBUILD_FROM_TYPE, (rebuild, obj.__class__, args, state))
            if state:
                return (_REBUILD_FROM_TYPE, (rebuild, _TORCH_TENSOR, args, state))
            return (rebuild, args)
        return NotImplemented


def _reduce_placeholder(obj):
    # A lazy module's placeholder has no storage to write (see NOTE [ Uninitialized parameters ]
    # in minitorch/nn/parameter.py). torch writes it as its class called with requires_grad
    # alone (its dtype and device are not kept), and so do we, under torch's name for the two
    # built-in placeholders so that either library reads the file back.
    cls = obj.__class__
    known = _TORCH_PLACEHOLDERS.get(cls.__name__)
    if known is not None and cls.__module__ == "minitorch.nn.parameter":
        cls = known
    return (cls, (obj._requires_grad,))


def _register_layout() -> None:
    # A layout is written as torch writes it, `torch.serialization._get_layout("torch.strided")`,
    # which torch's weights_only=True load accepts. Layouts live in a lazy op family (NOTE
    # [ Lazy op families ] in minitorch/_ops): none exists before it is loaded, so its class is
    # registered then, and saving never loads the family itself.
    misc = sys.modules.get("minitorch._ops.tensor_misc")
    if misc is not None and misc.layout not in TorchPickler.dispatch:
        TorchPickler.dispatch[misc.layout] = lambda self, lay: self.save_reduce(
            _GET_LAYOUT, (repr(lay),), obj=lay
        )


def dumps(obj, protocol: int, plan) -> bytes:
    _register_layout()
    buf = io.BytesIO()
    TorchPickler(buf, protocol, plan).dump(obj)
    return buf.getvalue()
