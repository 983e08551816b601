"""Storages: the memory under a tensor and its views, as bytes (UntypedStorage) or elements
(TypedStorage); Tensor.untyped_storage, storage, set_ and is_set_to. Mirrors torch.storage.

A tensor's memory is its root array: the array of the tensor its views come from (`_base`), or,
for a tensor made from a NumPy array view (from_numpy of a slice), the array that owns the
memory. Differences from torch: storages cannot be resized (torch refuses too for memory it
does not own, such as NumPy's), and they are not shared between processes.
"""

from __future__ import annotations

import warnings

from minitorch import _dtype
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import state

__all__ = ["UntypedStorage", "TypedStorage"]


def _root_array(t: Tensor):
    """The contiguous array whose memory t's data lies in."""
    backend = t._device.backend
    a = (t._base if t._base is not None else t)._data
    while not (a.flags.c_contiguous or a.flags.f_contiguous) and backend.is_array(a.base):
        a = a.base
    return a


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

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._device.backend.data_ptr(self._bytes)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return UntypedStorage(self._bytes[index], self._device)
        return int(self._bytes[index])

    def __setitem__(self, index, value):
        self._bytes[index] = value

    def tolist(self) -> list:
        return self._device.backend.to_host(self._bytes).tolist()

    def fill_(self, value) -> UntypedStorage:
        self._bytes.fill(value)
        return self

    def copy_(self, src, non_blocking=None) -> UntypedStorage:
        if src.nbytes() != self.nbytes():
            raise RuntimeError(
                f"copy_: storages of {self.nbytes()} and {src.nbytes()} bytes differ in size"
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

    def resize_(self, size: int):
        if size == self.nbytes():
            return self
        raise RuntimeError("Trying to resize storage that is not resizable")

    def is_shared(self) -> bool:
        return False

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
        body = "".join(f" {v}\n" for v in self.tolist())
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
        return self._untyped_storage._bytes.view(_dtype.numpy_dtype(self.dtype))

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

    def __repr__(self) -> str:
        body = "".join(f" {v}\n" for v in self.tolist())
        return (
            f"{body}[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of "
            f"size {self.size()}]"
        )


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


def set_(self: Tensor, source=None, storage_offset: int = 0, size=None, stride=None) -> Tensor:
    """Makes self a view of source's memory (a tensor, or a storage with offset/size/stride in
    elements); no source: an empty tensor. Mirrors torch.Tensor.set_."""
    if state.enabled and self._requires_grad:
        if self._grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        raise RuntimeError("set_: minitorch does not record set_ on a tensor in the graph")
    xp = self._device.backend.xp
    if source is None:
        data = xp.zeros((0,), dtype=self._data.dtype)
    elif isinstance(source, Tensor):
        if source._device is not self._device or source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"set_: expected a source of {self.dtype} on {self._device}, got {source.dtype} "
                f"on {source._device}"
            )
        data = source._data
    elif isinstance(source, (UntypedStorage, TypedStorage)):
        untyped = source.untyped()
        if isinstance(source, TypedStorage) and source.dtype is not self.dtype:
            from minitorch._ops.linalg import _ctype

            raise RuntimeError(
                f"Expected a Storage of type {_ctype(self.dtype)} or an UntypedStorage, but got "
                f"type {_dtype.scalar_name(source.dtype)} for argument 1 'storage'"
            )
        elements = untyped._bytes.view(self._data.dtype)
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
        if 0 not in size and need > elements.size:
            item = elements.itemsize
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                f"{storage_offset}, and itemsize {item} requiring a storage size of "
                f"{need * item} are out of bounds for storage of size {elements.size * item}"
            )
        data = xp.lib.stride_tricks.as_strided(
            elements[storage_offset:],
            shape=size,
            strides=tuple(s * elements.itemsize for s in stride),
        )
    else:
        raise TypeError(
            f"set_() received an invalid combination of arguments - got ({type(source).__name__})"
        )
    self._data = data
    self._base = None
    self._vc[0] += 1
    return self


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether self and tensor are the same view of the same memory. Mirrors
    torch.Tensor.is_set_to."""
    a, b = self._data, tensor._data
    return (
        self._device is tensor._device
        and self.data_ptr() == tensor.data_ptr()
        and a.shape == b.shape
        and a.strides == b.strides
        and a.dtype == b.dtype
    )
