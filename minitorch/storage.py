"""Storages: the memory under a tensor and its views, as bytes (UntypedStorage) or elements
(TypedStorage), the legacy classes (FloatStorage, ByteStorage, ...: NOTE [ Legacy storage
classes ]); Tensor.untyped_storage, storage, storage_type, set_ and is_set_to. Mirrors
torch.storage.

A tensor's memory is its root array: the array of the tensor its views come from (`_base`), or,
for a tensor made from a NumPy array view (from_numpy of a slice), the array that owns the
memory. Differences from torch: storages cannot be resized (torch refuses too for memory it
does not own, such as NumPy's), so set_ past a storage's end raises; Tensor.resize_ past the end
moves the tensor and its base to new, larger memory, but views of the base taken earlier stay on
the old memory (torch's storage moves under all of them); memory is shared between processes
only with forked children (see NOTE [ Shared memory ]).
"""

from __future__ import annotations

import mmap
import numbers
import sys
import warnings
from collections.abc import Sequence

import numpy as np

from minitorch import _dtype
from minitorch._backend import strided_view
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import state

__all__ = ["UntypedStorage", "TypedStorage"]


def _root_array(t: Tensor):
    """The contiguous array whose memory t's data lies in."""
    from minitorch._tensor import _storage_root

    backend = t._device.backend
    a = _storage_root(t)._data
    while not (a.flags.c_contiguous or a.flags.f_contiguous) and backend.is_array(a.base):
        a = a.base
    return a


# NOTE [ Shared memory ]
# Tensor.share_memory_ moves a CPU tensor's memory into an anonymous shared mapping (MAP_SHARED
# on Linux and macOS): a child started by fork (torch.multiprocessing with the "fork" context,
# the hogwild pattern of model.share_memory() then workers training in place) writes into the
# very pages the parent reads. torch moves the storage under every tensor that uses it; a
# minitorch tensor holds its own NumPy array instead of a storage object, so only the tensor's
# root (the base of its views) and the tensor itself are re-pointed at the new memory. Views and
# detached aliases made before the call keep the old memory (is_shared() says False for them)
# and a NumPy array given to from_numpy stops sharing with the tensor, as in torch. Spawned
# children get tensors by pickling: a copy, not shared. Whether memory is shared is read from the
# array itself (its chain of bases ends in a _SharedMemory), so every alias made afterwards
# (views, detach(), .data, numpy()) agrees.


class _SharedMemory(mmap.mmap):
    """Anonymous memory mapped shared with forked children; its own class, so that a user's
    mmap (np.memmap of a file, say) is not taken for memory that share_memory_ made."""


def _in_shared_memory(a) -> bool:
    while a is not None and not isinstance(a, _SharedMemory):
        a = getattr(a, "base", None)  # an array's base; mmap and bytes have none
    return a is not None


def is_shared(t: Tensor) -> bool:
    """Tensor.is_shared: CUDA memory counts as shared, as in torch."""
    return t._device.type not in ("cpu", "meta") or _in_shared_memory(t._data)


def share_memory_(t: Tensor) -> Tensor:
    """Tensor.share_memory_: see NOTE [ Shared memory ]. A no-op on CUDA and when shared."""
    if t._device.type == "meta":
        raise RuntimeError("_share_fd_: only available on CPU")
    if is_shared(t):
        return t
    xp = t._device.backend.xp
    root = t._base if t._base is not None else t
    owner = _root_array(t)  # contiguous: its memory is one block of owner.nbytes bytes
    memory = _SharedMemory(-1, max(owner.nbytes, 1))  # mmap refuses a length of 0
    # the same layout in the new memory, then the data, copied in memory order
    order = "C" if owner.flags.c_contiguous else "F"
    new_owner = xp.ndarray(owner.shape, owner.dtype, buffer=memory, order=order)
    new_owner.ravel(order="K")[...] = owner.ravel(order="K")
    start = owner.__array_interface__["data"][0]

    def moved(a):
        offset = a.__array_interface__["data"][0] - start
        return xp.ndarray(a.shape, a.dtype, buffer=memory, offset=offset, strides=a.strides)

    root._data = moved(root._data)
    if t is not root:
        t._data = moved(t._data)
    return t


class UntypedStorage:
    """A tensor's memory as bytes. Mirrors torch.UntypedStorage."""

    def __init__(self, data, device=None):
        # `data`: a 1-d uint8 array (the memory itself), or a size in bytes for new zeroed memory
        from minitorch._backend import device as as_device

        dev = as_device(device if device is not None else "cpu")
        if isinstance(data, int):
            data = dev.backend.xp.zeros(data, dtype="uint8")
        self._bytes = data
        self._device = dev

    @classmethod
    def _of(cls, t: Tensor) -> UntypedStorage:
        root = _root_array(t)
        flat = root.ravel(order="K")  # a view: the root is contiguous in some order
        return cls(flat.view("uint8") if flat.ndim else flat.reshape(1).view("uint8"), t._device)

    @property
    def device(self):
        return self._device

    def nbytes(self) -> int:
        return int(self._bytes.size)

    def __sizeof__(self) -> int:
        # the memory counts, as in torch (torchinfo sizes tensors with sys.getsizeof)
        return object.__sizeof__(self) + self.nbytes()

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        if self._device.type == "meta":  # torch's meta storages point nowhere
            return 0
        return self._device.backend.data_ptr(self._bytes)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return UntypedStorage(self._bytes[index], self._device)
        n = self.nbytes()
        if isinstance(index, int) and index >= n:
            raise IndexError(f"index {index} out of range for storage of size {n}")
        return int(self._bytes[index])

    def __setitem__(self, index, value):
        # torch writes a single byte only at 0 <= index < nbytes (no negative indices)
        if isinstance(index, int) and not 0 <= index < self.nbytes():
            raise RuntimeError("out of bounds")
        self._bytes[index] = value

    def tolist(self) -> list:
        return self._device.backend.to_host(self._bytes).tolist()

    def fill_(self, value) -> UntypedStorage:
        self._bytes.fill(value)
        return self

    def copy_(self, src, non_blocking=None) -> UntypedStorage:
        src = _source_storage(src)
        if src.nbytes() != self.nbytes():
            raise RuntimeError(
                f"size does not match, self was {self.nbytes()} bytes but src was {src.nbytes()} "
                "bytes"
            )
        self._bytes[...] = self._device.backend.xp.asarray(src._bytes)
        return self

    def clone(self) -> UntypedStorage:
        return UntypedStorage(self._bytes.copy(), self._device)

    def cpu(self) -> UntypedStorage:
        if self._device.type == "cpu":
            return self
        from minitorch._backend import device as as_device

        return UntypedStorage(self._device.backend.to_host(self._bytes), as_device("cpu"))

    def to(self, *, device, non_blocking: bool = False) -> UntypedStorage:
        """This storage on `device`: itself when already there, else a copy. Mirrors
        torch.UntypedStorage.to (device keyword-only, as in torch)."""
        from minitorch._backend import backend_of, tensor_device
        from minitorch._backend import device as as_device

        dev = tensor_device(as_device(device))
        if dev is self._device:
            return self
        target = backend_of(dev)  # raises for a device minitorch has no backend for (meta)
        host = self._device.backend.to_host(self._bytes)
        return UntypedStorage(target.from_host(host, dev), dev)

    def resize_(self, size: int):
        if size == self.nbytes():
            return self
        raise RuntimeError("Trying to resize storage that is not resizable")

    def is_shared(self) -> bool:
        return self._device.type not in ("cpu", "meta") or _in_shared_memory(self._bytes)

    def is_pinned(self, device="cuda") -> bool:
        return False

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    def untyped(self) -> UntypedStorage:
        return self

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self) -> str:
        # a meta storage has no bytes to list: "...", as torch prints it
        if self._device.type == "meta":
            body = "...\n"
        else:  # (torch's, when empty)
            body = "".join(f" {v}\n" for v in self.tolist()) or " \n"
        return f"{body}[torch.storage.UntypedStorage(device={self._device}) of size {self.size()}]"


_DEPRECATED = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
    "only storage class. This should only matter to you if you are using storages directly.  To "
    "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()"
)


class TypedStorage:
    """A tensor's memory as elements of its dtype. Mirrors torch.TypedStorage (deprecated in
    torch in favour of UntypedStorage, with the same warning)."""

    def __init__(self, untyped: UntypedStorage, dtype):
        self._untyped_storage = untyped
        self.dtype = _dtype.to_dtype(dtype, "TypedStorage")

    def _elements(self):
        raw, npdt = self._untyped_storage._bytes, _dtype.numpy_dtype(self.dtype)
        if raw.size % npdt.itemsize:  # FloatStorage(wrap_storage=<6 bytes>): whole elements
            raw = raw[: raw.size - raw.size % npdt.itemsize]
        return raw.view(npdt)

    @property
    def device(self):
        return self._untyped_storage.device

    def size(self) -> int:
        return int(self._elements().size)

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self._elements().itemsize

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def __getitem__(self, index):
        values = self._elements()[index]
        if isinstance(index, slice):
            return TypedStorage(UntypedStorage(values.view("uint8"), self.device), self.dtype)
        return self.device.backend.to_host(values).item()

    def __setitem__(self, index, value):
        self._elements()[index] = value

    def tolist(self) -> list:
        return self.device.backend.to_host(self._elements()).tolist()

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value) -> TypedStorage:
        self._elements().fill(value)
        return self

    def copy_(self, source, non_blocking=None) -> TypedStorage:
        self._untyped_storage.copy_(source)
        return self

    def clone(self) -> TypedStorage:
        return TypedStorage(self._untyped_storage.clone(), self.dtype)

    def cpu(self) -> TypedStorage:
        untyped = self._untyped_storage
        return self if untyped.device.type == "cpu" else TypedStorage(untyped.cpu(), self.dtype)

    def is_shared(self) -> bool:
        return self._untyped_storage.is_shared()

    def is_pinned(self, device="cuda") -> bool:
        return False

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def type(self, dtype=None, non_blocking: bool = False):
        """With no argument, the legacy class name ('torch.FloatStorage'; 'torch.cuda.' ones on
        a GPU); with a storage class, a copy converted to it (as .double() etc.)."""
        if dtype is None:
            name = _dtype.TENSOR_TYPE_NAMES[self.dtype.name].replace("Tensor", "Storage")
            return f"torch.cuda.{name}" if self.is_cuda else f"torch.{name}"
        return self._to(getattr(dtype, "dtype", dtype))

    def _to(self, dtype) -> TypedStorage:
        """A copy of the elements converted to dtype (torch's storage .double(), .long(), ...)."""
        from minitorch._tensor import _make

        t = _make(self._elements(), self.device, False, None).to(dtype, copy=True)  # (same too)
        return TypedStorage(UntypedStorage(t._data.view("uint8"), self.device), dtype)

    def double(self):
        return self._to(_dtype.float64)

    def float(self):
        return self._to(_dtype.float32)

    def half(self):
        return self._to(_dtype.float16)

    def bfloat16(self):
        return self._to(_dtype.bfloat16)

    def long(self):
        return self._to(_dtype.int64)

    def int(self):
        return self._to(_dtype.int32)

    def short(self):
        return self._to(_dtype.int16)

    def char(self):
        return self._to(_dtype.int8)

    def byte(self):
        return self._to(_dtype.uint8)

    def bool(self):
        return self._to(_dtype.bool)

    def __repr__(self) -> str:
        body = "".join(f" {v}\n" for v in self.tolist()) or " \n"  # (torch's, when empty)
        return (
            f"{body}[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
            f"size {self.size()}]"
        )


def _source_storage(src) -> UntypedStorage:
    """The bytes a storage's copy_ reads: src's, a typed or untyped storage (torch's refusal of
    anything else)."""
    if isinstance(src, TypedStorage):
        return src._untyped_storage
    if not isinstance(src, UntypedStorage):
        raise TypeError(
            f"copy_(): argument 'src' (position 1) must be torch.Storage, not {type(src).__name__}"
        )
    return src


# NOTE [ Legacy storage classes ]
# torch.FloatStorage, ByteStorage, ... (the storages of torch before TypedStorage) live on as
# constructors and isinstance tests: calling one makes a plain TypedStorage of its dtype on the
# CPU, and isinstance(s, FloatStorage) asks whether s is a CPU TypedStorage of float32 (the
# metaclass's test), so a float tensor's storage() is a FloatStorage, as in torch. Old image
# code reads pixels with ByteTensor(ByteStorage.from_buffer(img.tobytes())).

_LEGACY_FORMS = (
    "Expected one of:\n * no arguments\n * (int size)\n * (Sequence data)\n"
    " * (*, UntypedStorage wrap_storage)\n"
)


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return type(obj) is TypedStorage and obj.dtype is cls.dtype and obj.device.type == "cpu"


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """A legacy typed storage class (NOTE [ Legacy storage classes ]). Mirrors torch's
    FloatStorage, ByteStorage, ...: FloatStorage(), FloatStorage(size), FloatStorage(data),
    FloatStorage(wrap_storage=untyped), FloatStorage.from_buffer(...)."""

    dtype = None

    def __new__(cls, *args, wrap_storage=None, **kwargs):
        def refuse(why, kind=TypeError):
            return kind(f"<class 'torch.{cls.__name__}'>.__new__ received an invalid "
                        f"combination of arguments. {_LEGACY_FORMS}{why}")  # fmt: skip

        if kwargs:
            key = next(iter(kwargs))
            raise refuse(f"Keyword argument '{key}' cannot be specified", RuntimeError)
        if wrap_storage is not None:
            if args:
                raise refuse(
                    "No positional arguments should be given when using 'wrap_storage'",
                    RuntimeError,
                )
            if not isinstance(wrap_storage, UntypedStorage):
                raise refuse(
                    "Argument 'wrap_storage' must be UntypedStorage, but got "
                    f"{_class_name(wrap_storage)}"
                )
            return TypedStorage(wrap_storage, cls.dtype)
        if len(args) > 1:
            raise refuse("Too many positional arguments", RuntimeError)
        if not args:
            return _new_typed(cls.dtype, 0)
        (arg,) = args
        if isinstance(arg, numbers.Integral):  # (a bool too, as torch)
            return _new_typed(cls.dtype, int(arg))
        if isinstance(arg, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(arg).__name__}'")
        if not isinstance(arg, Sequence):  # (a list, tuple or range; not an array)
            raise refuse(f"Argument type not recognized: {_class_name(arg)}")
        from minitorch._factories import tensor

        values = tensor(list(arg), dtype=cls.dtype).reshape(-1)._data
        return TypedStorage(UntypedStorage(values.view("uint8")), cls.dtype)

    @classmethod
    def from_buffer(cls, buffer, byte_order=None, count: int = -1, offset: int = 0):
        """A storage holding a copy of the bytes of `buffer` (any bytes-like object) from byte
        `offset` on, `count` elements (-1: all), read in `byte_order` ('native', 'little' or
        'big'; needed for elements wider than a byte, and for bool). Mirrors torch's."""
        try:
            view = memoryview(buffer).cast("B")
        except TypeError:
            raise TypeError(
                f"a bytes-like object is required, not '{type(buffer).__name__}'"
            ) from None
        item = _dtype.numpy_dtype(cls.dtype).itemsize
        if byte_order is None and (item > 1 or cls.dtype is _dtype.bool):
            raise RuntimeError("function missing required argument 'byte_order' (pos 2)")
        if byte_order is not None and byte_order not in ("native", "little", "big"):
            raise ValueError(
                f"invalid byte_order '{byte_order}' (expected 'big', 'little', or 'native')"
            )
        n = view.nbytes
        if not 0 <= offset <= n:  # (torch's message has the two numbers swapped)
            raise ValueError(
                "offset must be non-negative and no greater than buffer length "
                f"({offset}) , but got {n}"
            )
        if count < 0:
            if (n - offset) % item:
                raise ValueError(f"buffer size ({n}) must be a multiple of element size ({item})")
            count = (n - offset) // item
        elif offset + count * item > n:
            raise ValueError(
                f"buffer has only {n - offset} elements after offset {offset}, but specified a "
                f"size of {count}"
            )
        raw = np.frombuffer(view, dtype=np.uint8, count=count * item, offset=offset).copy()
        if item > 1 and byte_order != "native" and byte_order != sys.byteorder:
            raw = raw.reshape(-1, item)[:, ::-1].reshape(-1).copy()  # the other byte order
        return TypedStorage(UntypedStorage(raw), cls.dtype)


def _class_name(obj) -> str:
    cls = type(obj)
    if cls is Tensor:
        return "<class 'torch.Tensor'>"
    if cls in (UntypedStorage, TypedStorage):
        return f"<class 'torch.storage.{cls.__name__}'>"
    return repr(cls)


def _new_typed(dtype, size: int) -> TypedStorage:
    if size < 0:  # torch's allocator sees the byte count as unsigned
        nbytes = size * _dtype.numpy_dtype(dtype).itemsize + 2**64
        raise RuntimeError(
            "[enforce fail at alloc_cpu.cpp:98] ((ptrdiff_t)nbytes) >= 0. alloc_cpu() seems to "
            f"have been called with negative number: {nbytes}"
        )
    return TypedStorage(UntypedStorage(size * _dtype.numpy_dtype(dtype).itemsize), dtype)


def _legacy_class(name: str, dtype) -> type:
    cls = _LegacyStorageMeta(name, (_LegacyStorage,), {"dtype": dtype, "__module__": "minitorch"})
    cls.__qualname__ = name  # minitorch.FloatStorage (pickled by that name), as torch.FloatStorage
    return cls


DoubleStorage = _legacy_class("DoubleStorage", _dtype.float64)
FloatStorage = _legacy_class("FloatStorage", _dtype.float32)
HalfStorage = _legacy_class("HalfStorage", _dtype.float16)
BFloat16Storage = _legacy_class("BFloat16Storage", _dtype.bfloat16)
LongStorage = _legacy_class("LongStorage", _dtype.int64)
IntStorage = _legacy_class("IntStorage", _dtype.int32)
ShortStorage = _legacy_class("ShortStorage", _dtype.int16)
CharStorage = _legacy_class("CharStorage", _dtype.int8)
ByteStorage = _legacy_class("ByteStorage", _dtype.uint8)
BoolStorage = _legacy_class("BoolStorage", _dtype.bool)
Storage = FloatStorage  # as torch.Storage
_LEGACY_CLASSES = {
    cls.dtype: cls
    for cls in (DoubleStorage, FloatStorage, HalfStorage, BFloat16Storage, LongStorage,
                IntStorage, ShortStorage, CharStorage, ByteStorage, BoolStorage)
}  # fmt: skip


# --- the Tensor methods (see TensorMethods) ---


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The bytes of self's memory (shared with its views). Mirrors torch.Tensor.untyped_storage."""
    return UntypedStorage._of(self)


_warned = []


def storage(self: Tensor) -> TypedStorage:
    """self's memory as elements of its dtype. Mirrors torch.Tensor.storage (deprecated: torch's
    warning, once per process as torch gives it)."""
    if not _warned:
        _warned.append(True)
        warnings.warn(_DEPRECATED, UserWarning, stacklevel=3)
    return TypedStorage(UntypedStorage._of(self), self.dtype)


def storage_type(self: Tensor):
    """The legacy storage class of self's dtype (torch.FloatStorage, ...; None for a dtype that
    has none and on the meta device), with storage()'s deprecation warning. Mirrors
    torch.Tensor.storage_type. Differences from torch: on a GPU, TypedStorage (minitorch has no
    torch.cuda.FloatStorage, ...)."""
    storage(self)  # (its warning)
    if self._device.type == "meta":
        return None
    if self._device.type != "cpu":
        return TypedStorage
    return _LEGACY_CLASSES.get(self.dtype)


_SET_FORMS = (
    "",
    "torch.Storage source",
    "torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None",
    "Tensor source",
    "Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None",
)


def _set_type_error(args) -> TypeError:
    from minitorch._ops._parser_errors import listing  # (an error path)

    names = {
        UntypedStorage: "torch.storage.UntypedStorage",
        TypedStorage: "torch.storage.TypedStorage",
    }
    got = ", ".join(
        "Tensor" if isinstance(a, Tensor) else names.get(type(a), type(a).__name__) for a in args
    )
    return TypeError(
        f"set_() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listing(_SET_FORMS, tuple(args), {})}"
    )


def set_(self: Tensor, source=None, storage_offset=None, size=None, stride=None) -> Tensor:
    """Makes self a view of source's memory (a tensor, or a storage with offset/size/stride in
    elements; a tensor's offset counts from where it starts); no source: an empty tensor. An
    offset needs a size, as torch's signatures. storage_offset() and untyped_storage() then
    read the whole memory, as torch's. Mirrors torch.Tensor.set_."""
    from minitorch._tensor import _make, _storage_root

    given = [a for a in (source, storage_offset, size, stride) if a is not None]
    if (storage_offset is not None or stride is not None) and size is None:
        raise _set_type_error(given)
    if source is None and given:
        raise _set_type_error(given)
    if source is not None and not isinstance(source, (Tensor, UntypedStorage, TypedStorage)):
        raise _set_type_error(given)
    if storage_offset is not None and storage_offset.__class__ is not int:
        from minitorch._tensor_methods import _is_index

        if not _is_index(storage_offset):  # (torch's parser: no overload takes it)
            raise _set_type_error(given)
    record = False
    if state.enabled:
        from minitorch._ops.inplace import _check_autograd_rules

        _check_autograd_rules(self)  # a leaf requiring grad, or a view of one: torch's errors
        record = self._requires_grad or (isinstance(source, Tensor) and source._requires_grad)
    xp = self._device.backend.xp
    root = None  # the tensor over the whole memory, when self starts inside it
    if source is None:
        data = xp.zeros((0,), dtype=self._data.dtype)
    elif isinstance(source, Tensor) and size is None:
        if source._data.dtype != self._data.dtype:
            from minitorch._ops.linalg import _ctype

            raise RuntimeError(
                f"Could not set tensor of type {_ctype(source.dtype)} to a tensor of type "
                f"{_ctype(self.dtype)}"
            )
        if source._device is not self._device:
            raise RuntimeError(
                f"set_: expected a source on {self._device}, got one on {source._device}"
            )
        data = source._data
        if _storage_root(source) is not source:  # self starts inside source's memory
            root = _make(_root_array(source), self._device, False, None)
    else:
        if isinstance(source, Tensor):
            if source._data.dtype != self._data.dtype:
                from minitorch._ops.linalg import _ctype

                raise RuntimeError(
                    f"Could not set tensor of type {_ctype(source.dtype)} to a tensor of type "
                    f"{_ctype(self.dtype)}"
                )
            storage_offset = source.storage_offset() + int(storage_offset)
            source = UntypedStorage._of(source)
        storage_offset = 0 if storage_offset is None else int(storage_offset)
        untyped = source.untyped()
        if isinstance(source, TypedStorage) and source.dtype is not self.dtype:
            from minitorch._ops.linalg import _ctype

            raise RuntimeError(
                f"Expected a Storage of type {_ctype(self.dtype)} or an UntypedStorage, but got "
                f"type {_dtype.scalar_name(source.dtype)} for argument 1 'storage'"
            )
        raw = untyped._bytes  # whole elements only, as torch's storage size in elements
        elements = raw[: raw.size - raw.size % self._data.itemsize].view(self._data.dtype)
        if size is None:
            size = (elements.size - storage_offset,)
        size = tuple(int(s) for s in size)
        if stride is None:
            stride, step = [], 1
            for s in reversed(size):
                stride.append(step)
                step *= s
            stride = tuple(reversed(stride))
        need = storage_offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) + 1
        item = elements.itemsize
        if 0 not in size and need > elements.size:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{storage_offset}, and itemsize {item} requiring a storage size of "
                f"{need * item} are out of bounds for storage of size {elements.size * item}"
            )
        data = strided_view(xp, elements[storage_offset:], size, [s * item for s in stride])
        root = _make(elements, self._device, False, None)
    old = self._data
    self._data = data
    self._base = None
    self.__dict__.pop("_storage_root", None)
    if root is not None:
        self._storage_root = root
    self._vc[0] += 1
    if record:  # torch records set_ with a node that refuses to run (see _set_node)
        from minitorch._ops.inplace import _take_history

        operands = (self, source) if isinstance(source, Tensor) else (self,)
        _take_history(self, _set_node().apply(*operands))
    elif (self._grad_fn or self._grad_acc) is not None:  # NOTE [ Outputs reshaped in place ]
        from minitorch.autograd.function import reshaped_in_place

        reshaped_in_place(self, old.shape, old.dtype)
    return self


_SET_NODE = []


def _set_node():
    """The Function torch records set_ with, in grad mode, where self or a source tensor requires
    grad: self becomes a non-leaf whose node (torch's class name: NotImplemented) takes self's old
    history and the source's, and refuses a backward through it, as torch's."""
    if not _SET_NODE:
        from minitorch.autograd.function import Function

        class SetBackward(Function):
            _node_name = "NotImplemented"

            @staticmethod
            def forward(ctx, *args):
                return args[0]._data  # (self, already set: the node's output is self)

            @staticmethod
            def backward(ctx, grad):
                raise RuntimeError("derivative for set_ is not implemented")

        _SET_NODE.append(SetBackward)
    return _SET_NODE[0]


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether self and tensor are the same view of the same memory: one storage, one offset
    in it, one shape and strides (whatever the dtypes, as torch's). An empty view compares
    where it starts, though its data_ptr() is 0. Mirrors torch.Tensor.is_set_to."""
    from minitorch._tensor import _memory_key

    if not isinstance(tensor, Tensor):
        from minitorch._ops._common import wrong_type

        raise wrong_type("is_set_to", tensor, "tensor", 1, "Tensor")
    if self._device is not tensor._device:
        return False
    a, b = self._data, tensor._data
    backend = self._device.backend
    return (
        a.shape == b.shape
        and backend.data_ptr(a) == backend.data_ptr(b)
        and self.stride() == tensor.stride()
        and _memory_key(a, backend) == _memory_key(b, backend)
    )
